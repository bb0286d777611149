"""Safe output folders: written in full to a temporary sibling, then moved into place.

A failed run leaves nothing behind; an existing output is replaced only with `force`, and only when it is one:
every output folder holds a marker file (MARKER) listing the files roofline wrote into it, and a folder without it
(a repository, the profile folder, anything the user keeps), or one holding a file the marker does not list (a
scenario or notes the user put beside the results), is never replaced, `force` or not.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from roofline.errors import RooflineError, warn
from roofline.launch import signals_held
from roofline.yamlio import umask

MARKER = ".roofline-output"  # in every output folder: what `--force` may replace whole, and the files written there
MARKER_HEAD = "Written by roofline: `--force` replaces this folder whole, if it holds only the files listed here.\n"


def _files_under(folder: Path) -> set[str]:
    """Every file below `folder` (its relative POSIX paths), the folder's own marker left out, and every empty folder
    (as 'name/'): what --force would delete with it."""
    out = set()
    for p in folder.rglob("*"):
        name = p.relative_to(folder).as_posix()
        if p.is_file() or p.is_symlink():
            if name != MARKER:  # the top-level marker only: a file of that name in a subfolder is someone's
                out.add(name)
        elif p.is_dir() and not any(p.iterdir()):
            out.add(name + "/")
    return out


def listed_files(folder: Path) -> set[str] | None:
    """The files `folder`'s marker lists as written by roofline; None for a marker without a list (an older version's)."""
    lines = (folder / MARKER).read_text(encoding="utf-8", errors="replace").splitlines()
    if "files:" not in lines:
        return None
    return {line.strip() for line in lines[lines.index("files:") + 1:] if line.strip()}


def marker_kind(folder: Path) -> str | None:
    """The command whose output `folder` is, as its marker says ('kind: plot'); None without a marker or that line (a
    version before it)."""
    try:
        lines = (folder / MARKER).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith("kind:")), None)


def write_marker(folder: Path, files: set[str], kind: str | None = None) -> None:
    """(Re)write `folder`'s marker listing `files` (relative POSIX paths) as roofline's, and the kind of output it is."""
    (folder / MARKER).write_text(MARKER_HEAD + (f"kind: {kind}\n" if kind else "") + "files:\n"
                                 + "".join(f"  {name}\n" for name in sorted(files)), encoding="utf-8")


def add_to_marker(folder: Path, files: set[str]) -> None:
    """Files roofline wrote into an existing output `folder` (plot into a sweep's own folder), added to its marker's
    list, its kind kept; nothing where the folder has no marker, or one without a list."""
    if (folder / MARKER).is_file():
        listed = listed_files(folder)
        if listed is not None:
            write_marker(folder, listed | set(files), marker_kind(folder))


def check_writable(out: Path, force: bool) -> None:
    """Refuse to touch an existing non-empty folder (or a file) unless `force` and the folder is an earlier output (it
    holds MARKER), and never take the current folder or one above it: the output replaces its folder whole, so
    `--out .` would remove the folder the user is in."""
    here = Path.cwd().resolve()
    resolved = Path(out).resolve()
    if resolved == here or resolved in here.parents:
        raise RooflineError(f"--out: expected a folder to create or replace, found {str(out)!r}, the current folder or one "
                            f"above it (the output replaces its folder whole): name a subfolder, e.g. --out {Path(out) / 'out'}")
    from roofline.profiles import builtin_folder_of

    folder = builtin_folder_of(out)
    if folder is not None:  # a folder among the profiles: `hw list` and `hw validate` would fail on it
        raise RooflineError(f"--out: {out} is inside the built-in profile folder {folder}: choose another folder")
    if out.is_symlink():
        raise RooflineError(f"--out: {out} is a symbolic link: name the folder itself (an output replaces its folder whole, "
                            "which would replace the link, not write where it points)")
    if out.exists() and not out.is_dir():
        raise RooflineError(f"--out: expected a folder, found an existing file {out} (choose another path)")
    if out.is_dir() and any(out.iterdir()):  # what --force could not replace is said first, with or without it (qa308:
        # 'pass --force', then refused with it)
        if not (out / MARKER).is_file():
            raise RooflineError(f"--out: {out} holds files roofline did not write (no {MARKER} in it: a folder of your own, "
                                f"or an output of a version before the marker) and --force would replace the folder whole: "
                                f"choose a new or empty folder, or remove this one yourself")
        listed = listed_files(out)
        if listed is None:  # no list to tell roofline's files from the user's (a hand-written or emptied marker; qa307:
            # --force then deleted a thesis.tex beside one), so none is taken as roofline's
            raise RooflineError(f"--out: {out} holds a {MARKER} without the list of the files roofline wrote, so --force "
                                "cannot tell them from yours: choose a new or empty folder, or remove this one yourself")
        foreign = sorted(_files_under(out) - listed)
        if foreign:
            shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
            raise RooflineError(f"--out: {out} holds files roofline did not write there ({shown}), which --force would "
                                "delete with the folder: move them out, or choose another --out")
        if not force:
            raise RooflineError(f"--out: {out} exists and is not empty; pass --force to replace it")


OUTPUT_KINDS = {"sweep": ("results.csv", "results.parquet"), "report": ("report.md",), "accuracy": ("accuracy.csv",),
                "validation": ("validation.csv",)}  # the files that say which command wrote a folder


KINDS = (*OUTPUT_KINDS, "plot")  # what a marker's kind line may name: the commands that write output folders


def _a(kind: str) -> str:
    """"a sweep's", "an accuracy's": a kind's output as an error names it."""
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}'s"


def _plots_only(folder: Path) -> str | None:
    """'plot' where `folder`'s marker, written before markers named their command, lists standard figures alone (a
    `plot --out` of then; qa304: still replaced by a report); else None."""
    from roofline.plot_jobs import FORMATS, PLOT_NAMES

    if marker_kind(folder) is not None or not (folder / MARKER).is_file():
        return None
    listed = listed_files(folder)
    figures = {f"{name}.{ext}" for name in PLOT_NAMES for ext in FORMATS}
    return "plot" if listed and listed <= figures else None


def check_kind(out: Path, kind: str | None) -> None:
    """Refuse to replace a folder holding another command's output with one of `kind` (qa246: `report --out` a sweep's
    folder --force removed its results, where `plot` refuses the same): by the files that name a kind (OUTPUT_KINDS),
    and by the kind its marker records (qa301: `plot --out` a report's folder --force replaced it with figures, and a
    report replaced a folder of figures, which has no such file). A sweep may replace plot's figures: it draws them too."""
    if kind is None or not out.is_dir() or not (out / MARKER).is_file():  # no marker: check_writable says it is the
        return  # user's folder (qa308: a notes/report.md of one's own was called a report's output)
    for other, names in OUTPUT_KINDS.items():
        found = [n for n in names if other != kind and (out / n).is_file()]
        if found:
            raise RooflineError(f"--out: {out} holds {_a(other)} output ({', '.join(found)}), which --force would remove "
                                f"with the folder: choose another --out for the {kind}")
    named = marker_kind(out)
    if named is not None and named not in KINDS:  # a hand-edited kind (qa307: an empty one let a report replace plots)
        raise RooflineError(f"--out: {out} holds a {MARKER} naming the output of no roofline command ({named!r}; one of "
                            f"{', '.join(KINDS)}): choose another --out, or remove this folder yourself")
    written = named or _plots_only(out)
    if written is not None and written != kind and (written, kind) != ("plot", "sweep"):  # a sweep draws the same figures
        how = "says so" if named else "lists standard figures alone"
        raise RooflineError(f"--out: {out} holds {_a(written)} output (its {MARKER} {how}), which --force would remove "
                            f"with the folder: choose another --out for the {kind}")


@contextlib.contextmanager
def staged_dir(out: Path, force: bool, kind: str | None = None) -> Iterator[Path]:
    """Yield a temporary folder next to `out`; on success it replaces `out`, on error it is removed. A `kind` of
    OUTPUT_KINDS refuses a folder holding another kind's output (check_kind)."""
    out = Path(out)
    check_kind(out, kind)  # first: another command's folder is refused whatever --force says (qa307: 'pass --force',
    check_writable(out, force)  # then refused with it)
    _warn_left_behind(out)
    tmp = None
    made = _folders_made(out)  # removed again if the run fails
    try:  # one try from the folder's making to its swap: a SIGTERM / SIGHUP (an exception here, roofline.launch) that
        # lands between the two leaves no staging folder behind (CI once caught one at the chmod)
        try:  # the folder it goes into: an error names --out, not the hidden staging folder beside it
            out.parent.mkdir(parents=True, exist_ok=True)
            with signals_held():  # a SIGTERM inside mkdtemp, after its mkdir and before `tmp` is set, left the folder
                tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))  # behind (session 39, under load)
            tmp.chmod(0o777 & ~umask())  # mkdtemp makes it private (0700): the output gets the mode any new folder gets
        except OSError as exc:
            blocker = next((q for q in out.parents if q.is_file()), None)
            why = f"{blocker} is a file" if blocker is not None else exc.strerror or str(exc)
            raise RooflineError(f"--out: {out}: cannot write a folder there: {why}") from None
        yield tmp
        write_marker(tmp, _files_under(tmp), kind)
        _swap(tmp, out, force)
    except BaseException:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        _remove_empty(made)
        raise


def _warn_left_behind(out: Path, quiet_s: float = 600.0) -> None:
    """Say where a staging folder of `out` (.OUT.XXXXXXXX, .OUT.old.XXXXXXXX: mkdtemp's) untouched for `quiet_s` is
    left beside it: a run killed outright (SIGKILL, the OOM killer) cannot remove its own. Not removed here: it holds
    no marker yet, and a younger one may be another run's at work."""
    import re
    import time

    pattern = re.compile(rf"^\.{re.escape(out.name)}\.(old\.)?[A-Za-z0-9_]{{8}}$")
    try:
        siblings = [p for p in out.parent.iterdir() if pattern.match(p.name) and p.is_dir()] if out.parent.is_dir() else []
    except OSError:
        return
    for folder in sorted(siblings):
        try:
            stats = [folder.stat(), *(f.stat() for f in folder.rglob("*") if f.is_file())]  # a file appended to counts too
        except OSError:
            continue
        age_s = time.time() - max(s.st_mtime for s in stats)
        size = sum(s.st_size for s in stats[1:])
        if age_s >= quiet_s:
            warn(f"--out: {folder} ({size / 1e6:,.0f} MB, untouched for {age_s / 60:,.0f} minutes) is a staging folder a run "
                 f"writing {out} left, killed before it finished; remove it if no run is writing {out}")


def _folders_made(out: Path) -> list[Path]:
    """The folders above `out` that creating its parent makes, innermost first, as written (`new/../o` makes `new`;
    a `..` is the OS's: after a symbolic link it is the link target's parent, so the path is not normalised)."""
    parts, made = out.parent.parts, []
    for i in range(1, len(parts) + 1):
        folder = Path(*parts[:i])
        if parts[i - 1] not in (".", "..") and not folder.exists():
            made.append(folder)
    return made[::-1]


def _remove_empty(folders: list[Path]) -> None:
    """Remove `folders` (innermost first) where still empty: the parents a failed run created for its output."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


def _swap(tmp: Path, out: Path, force: bool) -> None:
    """Move the finished folder `tmp` to `out`, replacing an earlier output there (checked again: another run may have
    written it meanwhile) through a uniquely named aside folder, put back if the move fails. Another run that writes
    `out` at the same moment wins: this run's output is discarded, with one line saying so; any other failure (a
    mount point, permissions) is one line naming --out and why."""
    import errno

    def failed(exc: OSError) -> RooflineError:
        if exc.errno in (errno.EEXIST, errno.ENOTEMPTY, errno.ENOENT):  # the folder came or went under this run
            return RooflineError(f"--out: {out}: another run wrote it while this one ran; this run's output is not kept")
        hint = " (a mount point cannot be replaced: name a folder inside it)" if exc.errno == errno.EBUSY else ""
        return RooflineError(f"--out: {out}: cannot replace it: {exc.strerror or exc}{hint}")

    if not (out.exists() or out.is_symlink()):
        try:
            tmp.rename(out)
            return
        except OSError as exc:
            if not out.exists():
                raise failed(exc) from None
    try:  # another run's output arrived first: it too must be an output this run may replace
        check_writable(out, force)
        if not out.is_dir() or not any(out.iterdir()):  # an empty folder (made meanwhile): moved onto
            tmp.rename(out)
            return
    except OSError as exc:
        raise failed(exc) from None
    with signals_held():  # from the aside folder's making to the new output in place: a SIGTERM between left a
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))  # .OUT.old folder, or no output (qa183)
        try:
            out.rename(old)  # onto the empty folder mkdtemp made
        except OSError as exc:
            old.rmdir()
            raise failed(exc) from None
        try:
            tmp.rename(out)
        except OSError as exc:
            try:
                old.rename(out)  # the earlier output back in place
            except OSError:  # another run's output is there now: the earlier one goes, as that run replaced it
                shutil.rmtree(old, ignore_errors=True)
            raise failed(exc) from None
        shutil.rmtree(old, ignore_errors=True)  # inside: a signal raised at the block's end would leave it


def progress_bar(done: int, total: int, elapsed_s: float, note: str = "", width: int = 30) -> None:
    """The one progress bar: `[#####.....] 12/36 points  note  1.2 s` redrawn in place on stderr when it is a
    terminal, else one line per update (a log file gets lines, not one line of carriage returns); `progress_done`
    ends it."""
    import sys

    filled = int(width * done / max(total, 1))
    line = f"[{'#' * filled:<{width}}] {done:,}/{total:,}  {note}  {elapsed_s:.1f} s"
    if sys.stderr.isatty():
        print(f"\r{line}", end="", file=sys.stderr, flush=True)
    else:
        print(line.rstrip(), file=sys.stderr, flush=True)


def progress_done() -> None:
    """End the progress bar's line (on a terminal; elsewhere each update was a line of its own)."""
    import sys

    if sys.stderr.isatty():
        print(file=sys.stderr, flush=True)


POLARS_FROM_ROWS = 50_000  # TableWriter: a table of at least this many rows is written by polars. Both writers
#   pay an import on first use (polars 0.25-0.4 s, pyarrow's csv and parquet modules about 0.2 s); writing both
#   formats of a sweep in a fresh process, Arrow against polars (2-core EPYC, 2026-11-30, three runs each):
#   40,960 rows 0.22-0.27 s against 0.28-0.30 s, 61,440 rows 0.39-0.52 s against 0.30-0.43 s, 163,840 rows
#   0.86-0.94 s against 0.42-0.46 s
CSV_HALVES_FROM_ROWS = 100_000  # Arrow formats a CSV table of this many rows or more in two halves, one per thread


FORMATS = ("csv", "parquet", "both")  # a sweep's results table: --format


def check_format(fmt: str) -> None:
    """One line where `fmt` is not a results-table format (FORMATS), said before a sweep computes (the CLI) and by
    TableWriter."""
    if fmt not in FORMATS:
        raise RooflineError(f"--format: expected csv, parquet or both, found {fmt!r}")


class TableWriter:
    """Streams tidy blocks (constant labels + numeric columns) to `stem`.csv and/or `stem`.parquet.

    A table of `rows` >= POLARS_FROM_ROWS is written by polars, whose writers encode and format on every core
    (983,040 rows x 44 columns, 2-core EPYC: Parquet 0.17 s against Arrow's 0.42 s, CSV 1.0 s against 2.6-3.0 s,
    2026-11-30); a smaller one by Arrow's C++ writers, whose modules import faster (POLARS_FROM_ROWS).
    Either way Parquet keeps every float64 exactly, labels as dictionary-encoded strings, lz4-compressed, with
    min/max statistics on every column; and CSV holds floats at float32 precision (about 7 significant digits) as
    the shortest string that reads back as that float32 (0.0053404453, not 0.005340445257945567), so both writers'
    files read back as the same values (test); they differ in spelling only: Arrow writes 3.0276555e+10, nan and a
    quoted header, polars 30276555000.0, NaN and "" for an empty string. CSV and Parquet hold the same rows in the
    same order.
    """

    def __init__(self, stem: Path, columns: tuple[str, ...], fmt: str = "both", rows: int | None = None):
        check_format(fmt)
        self.stem, self.columns, self.fmt = Path(stem), columns, fmt
        self.by_polars = rows is not None and rows >= POLARS_FROM_ROWS
        self.files: list[str] = []
        self._csv = self._parquet = None
        self._header = True

    def __enter__(self) -> TableWriter:
        if self.fmt in ("csv", "both"):
            self._csv = open(self.stem.with_suffix(".csv"), "wb")
            self.files.append(self.stem.with_suffix(".csv").name)
        if self.fmt in ("parquet", "both"):
            self.files.append(self.stem.with_suffix(".parquet").name)
        return self

    def write(self, labels: dict, cols: dict) -> None:
        if self.by_polars:
            self._write_polars(labels, cols)
        else:
            self._write_arrow(labels, cols)
        self._header = False

    def _write_polars(self, labels: dict, cols: dict) -> None:
        import polars as pl

        frame = pl.DataFrame({name: cols[name] for name in self.columns if name not in labels})
        # labels as a Categorical: an unordered dictionary of strings in the file, as Arrow writes them, so that
        # sweeps of either writer combine (qa122: polars' Enum, written ordered, did not concatenate with Arrow's;
        # the Enum wrote 983,040 rows to Parquet in 0.31 s against 0.35 s, 2-core EPYC, 2026-12-03)
        constants = [pl.lit(str(labels[name]), dtype=pl.Categorical).alias(name) for name in self.columns if name in labels]
        frame = frame.with_columns(constants).select(self.columns)  # each label one value, broadcast: no per-row strings
        if self.fmt in ("parquet", "both"):
            if self._parquet is None:
                self._parquet = _ParquetSink(self.stem.with_suffix(".parquet"), frame.schema)
            self._parquet.put(frame)
        if self._csv is not None:
            frame.with_columns(pl.col(pl.Float64).cast(pl.Float32)).write_csv(self._csv, include_header=self._header)

    def _write_arrow(self, labels: dict, cols: dict) -> None:
        import numpy as np
        import pyarrow as pa

        n = len(next(iter(cols.values())))
        arrays = [pa.DictionaryArray.from_arrays(np.zeros(n, dtype=np.int8), pa.array([str(labels[name])])) if name in labels
                  else pa.array(cols[name]) for name in self.columns]
        table = pa.Table.from_arrays(arrays, names=list(self.columns))
        if self.fmt in ("parquet", "both"):
            import pyarrow.parquet as pq

            if self._parquet is None:  # dictionary pages for the label columns only: tried on a float column of a
                # million distinct values, a dictionary is built and then abandoned (0.82 s against 0.50 s for a
                # 983,040-row table, 53 MB against 55 MB)
                labels_only = [f.name for f in table.schema if pa.types.is_dictionary(f.type)]
                self._parquet = pq.ParquetWriter(self.stem.with_suffix(".parquet"), table.schema, compression="lz4",
                                                 use_dictionary=labels_only)
            self._parquet.write_table(table)
        if self._csv is not None:
            text = table.cast(pa.schema([_csv_field(f) for f in table.schema]))
            try:
                data = _csv_bytes(text, self._header)
            except pa.ArrowInvalid:  # a label with a comma, quote or line break (qa122: a profile named 'gpu,x'), quoted
                data = _csv_bytes(text, self._header, quoting="needed")  # as write_csv and polars quote it
            self._csv.write(data)

    def __exit__(self, exc_type, *exc) -> None:
        if self._csv is not None:
            self._csv.close()
        if self._parquet is not None:
            if self.by_polars:
                self._parquet.close(abandon=exc_type is not None)
            else:
                self._parquet.close()


class _ParquetSink:
    """One Parquet file fed block by block: a polars streaming sink (`LazyFrame.sink_parquet`) runs in a thread of
    its own on a source that yields the frames `put` hands it (polars.io.plugins.register_io_source), at most two
    waiting. `close()` ends the source and waits for the file; a sink that failed is one line naming the file."""

    _END, _ABANDON = object(), object()

    def __init__(self, path: Path, schema):
        import queue
        import threading

        from polars.io.plugins import register_io_source

        self.path = Path(path)
        self._queue: queue.Queue = queue.Queue(maxsize=2)
        self._error: BaseException | None = None
        frames = register_io_source(self._source, schema=schema)
        self._thread = threading.Thread(target=self._run, args=(frames,), name="roofline-parquet", daemon=True)
        self._thread.start()

    def _source(self, with_columns, predicate, n_rows, batch_size):
        while True:
            item = self._queue.get()
            if item is self._END:
                return
            if item is self._ABANDON:
                raise RuntimeError("abandoned")
            yield item

    def _run(self, frames) -> None:
        try:
            frames.sink_parquet(self.path, compression="lz4", statistics=True)
        except BaseException as e:  # reported by put() or close()
            self._error = e

    def _hand(self, item) -> None:
        import queue

        while True:
            if self._error is not None or not self._thread.is_alive():
                self._raise()
            try:
                self._queue.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def _raise(self) -> None:
        message = str(self._error).strip().splitlines()[0] if self._error else "the writer stopped"
        raise RooflineError(f"{self.path.name}: could not write Parquet: {message}")

    def put(self, frame) -> None:
        self._hand(frame)

    def close(self, abandon: bool = False) -> None:
        if not self._thread.is_alive():
            if self._error is not None and not abandon:
                self._raise()
            return
        try:
            self._hand(self._ABANDON if abandon else self._END)
        except RooflineError:
            if not abandon:
                raise
        self._thread.join()
        if self._error is not None and not abandon:
            self._raise()


def _csv_field(field):
    import pyarrow as pa

    if pa.types.is_floating(field.type):
        return pa.field(field.name, pa.float32())
    if pa.types.is_dictionary(field.type):
        return pa.field(field.name, pa.string())
    return field


def write_csv(df, path: Path, exact: bool = False) -> None:
    """A DataFrame as CSV the way TableWriter writes one (csv_bytes): pandas' `to_csv` formats each float in Python,
    5x slower on a 7,776-row report table (0.42 s against 0.08 s)."""
    Path(path).write_bytes(csv_bytes(df, exact))


def csv_bytes(df, exact: bool = False) -> bytes:
    """A DataFrame as the CSV bytes TableWriter writes (Arrow's writer, floats as the shortest float32 string, or with
    `exact` the shortest float64 string that reads back as the same float64; booleans true / false; labels as text;
    every string quoted only when one holds a comma, quote or line break, which Arrow refuses to write bare)."""
    import pyarrow as pa

    table = pa.Table.from_pandas(df, preserve_index=False)
    table = table.cast(pa.schema([f if exact and pa.types.is_floating(f.type) else _csv_field(f) for f in table.schema]))
    try:
        return _csv_bytes(table, header=True)
    except pa.ArrowInvalid:  # a value with a comma, quote or line break
        return _csv_bytes(table, header=True, quoting="needed")


def _csv_bytes(table, header: bool, quoting: str = "none") -> bytes:
    """The table as CSV bytes, its two halves formatted on two threads (Arrow releases the GIL)."""
    import io
    from concurrent.futures import ThreadPoolExecutor

    import pyarrow.csv as pcsv

    def fmt(part, with_header: bool) -> bytes:
        buf = io.BytesIO()
        pcsv.write_csv(part, buf, pcsv.WriteOptions(include_header=with_header, quoting_style=quoting))
        return buf.getvalue()

    half = table.num_rows // 2
    if 2 * half < CSV_HALVES_FROM_ROWS:
        return fmt(table, header)
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(fmt, table.slice(0, half), header)
        second = pool.submit(fmt, table.slice(half), False)
        return first.result() + second.result()
