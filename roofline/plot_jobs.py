"""What figures to draw, and the worker processes that draw them, without importing matplotlib here.

A figure job is (plotter name, results table, operators table, meta, path without suffix, formats);
`roofline.plots.draw_figure` draws one. The standard plots of a sweep are `standard_jobs`; a report's
figures are jobs named `report:QUESTION`. `standard_plots` draws a table's six, and `plot_from_table` those
of a written sweep folder (`roofline plot`), reading the table here, not in a process that has imported
matplotlib.

`FigurePool` forks one process (the seed) when it is created. The seed imports roofline.plots
(matplotlib, about half a second on a small machine) while the caller computes and writes its tables,
then forks the drawers from itself, so they start with matplotlib loaded: it is imported once, not once
per drawer, and the caller itself never imports it to draw. So that import leaves the serial path of
`roofline sweep` and `roofline report`:

    wall ~ max(caller's compute and write, seed's import) + drawing / drawers

The `roofline` executable starts the pool of `sweep` and `plot` before it imports anything heavy
(`start_early`, from roofline.launch), and the command takes it over (`early_or_new`).

Drawers take the next job when they finish one and send back (index, paths) or the job's error; the seed
watches them, so a drawer that dies (a signal, out of memory) becomes an error, not a wait. Seed and
drawers ignore Ctrl-C (the caller stops the pool, see `close`) and end by themselves within about a
second when the process above them dies, so a killed caller leaves none behind. Processes
are forked, never spawned (a spawned one would re-import everything); where fork does not exist, or with
one worker or one job, `draw` draws in the calling process, one figure after another.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import multiprocessing
import multiprocessing.connection
import os
import pickle
import queue
import signal
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from roofline.errors import RooflineError, bare_name

if TYPE_CHECKING:  # pandas is not imported here, so a pool can start before it is (cli.py)
    import pandas as pd

PLOT_NAMES = ("roofline", "step_time_vs_tokens", "speedup_heatmap", "throughput_vs_batch", "pareto", "best_k_vs_batch",
              "serving_vs_batch", "speedup_vs_context")
PLOT_NEEDS = {  # what a table must hold for each standard plot (its plotter returns None otherwise): `not_drawn` says so
    "roofline": ("the operator table beside the results, operators.csv as `sweep --out` writes it (a report's tables "
                 "have none), with rows of the selection: it holds the first context swept"),  # (qa202)
    "step_time_vs_tokens": "two batch sizes",
    "speedup_heatmap": "a speculative method with k > 0, two batch sizes or two acceptance rates, and a point that fits in memory",
    "throughput_vs_batch": "two batch sizes and a point that fits in memory",
    "pareto": "two batch sizes and a point that fits in memory",
    "best_k_vs_batch": "a speculative method (not a tree), two k values, two batch sizes and a point that fits in memory",
    "serving_vs_batch": "two batch sizes and a point that fits in memory (and a request's serving_* columns)",
    "speedup_vs_context": "a speculative method with k > 0, two contexts above 0 and a point that fits in memory",
}
REQUEST_PLOTS = ("serving_vs_batch",)  # drawn only for a scenario that gives a request: not missed where none does
CONTEXT_PLOTS = ("speedup_vs_context",)  # drawn only for a table of two contexts or more: not missed where it has one


def not_drawn(paths, request: bool = False, contexts: bool = False) -> str:
    """'not drawn: NAME (needs ...), ...' for the standard plots missing from `paths` (files written), else ''; the
    figures of a request (REQUEST_PLOTS) only where the table gives one (`request`), those against the context
    (CONTEXT_PLOTS) only where it sweeps two contexts or more (`contexts`): elsewhere they were not asked for."""
    drawn = {Path(p).stem for p in paths}
    missing = [f"{name} (needs {PLOT_NEEDS[name]})" for name in PLOT_NAMES
               if name not in drawn and (request or name not in REQUEST_PLOTS) and (contexts or name not in CONTEXT_PLOTS)]
    return "not drawn: " + "; ".join(missing) if missing else ""


def table_gives_request(table: Path) -> bool:
    """Whether the results table of `table` (a sweep folder or its results file) holds a request's serving columns,
    read from its header alone."""
    import pandas as pd

    path = _locate(Path(table))
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        names = pq.read_schema(path).names
    else:
        names = list(pd.read_csv(path, nrows=0).columns)
    return "serving_time_per_output_token_s" in names


def table_sweeps_contexts(table: Path) -> bool:
    """Whether the results table of `table` (a sweep folder or its results file) holds two contexts or more, read from
    its context column alone."""
    import pandas as pd

    path = _locate(Path(table))
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        column = pq.read_table(path, columns=["context"]).column("context").to_pandas()
    else:
        column = pd.read_csv(path, usecols=["context"])["context"]
    return column.nunique() > 1


FORMATS = ("png", "svg")
REQUIRED_COLUMNS = (
    "hardware", "model", "method", "batch", "context", "k", "alpha", "step_time_s", "tokens_per_s",
    "tokens_per_s_per_user", "speedup", "verify_time_s", "verify_compute_bound", "baseline_tokens_per_s",
    "baseline_tokens_per_s_per_user", "fits_in_memory", "max_batch", "best_k", "tokens_per_s_per_device",
)
NUMERIC_COLUMNS = tuple(c for c in REQUIRED_COLUMNS if c not in ("hardware", "model", "method"))
BOOL_FLAG_COLUMNS = ("verify_compute_bound", "fits_in_memory")
# Config columns of a sweep besides hardware and model (a list-valued scenario key makes one a sweep axis), read when
# present: a panel holds one value of each that varies, or the rows of several configs would fall into one curve or cell.
PANEL_CONFIG_COLUMNS = ("engine", "method", "draft_hardware", "weight_dtype", "expert_dtype", "kv_dtype", "tp", "dp_attention",
                        "ep", "pp", "shared_prefix")
MAX_PANELS = 6  # panels a standard figure draws; beyond, it keeps a subset (plots._panels) and its title says which
MAX_GRID_PANELS = 8  # a (hardware, model) grid of up to this many panels is kept whole: no model is dropped to fit six
# Read when present (older tables lack them): the devices of the target (tp x pp, the drafter's own device not counted)
# and plain decoding's batch cap (max_batch and fits_in_memory count the drafter and its k + 1 tokens).
OPTIONAL_COLUMNS = ("devices", "baseline_max_batch", "serving_time_per_output_token_s",
                    "baseline_serving_time_per_output_token_s", "serving_speedup")  # the last three: a request's
OPERATOR_COLUMNS = (
    "hardware", "model", "pass", "batch", "q", "operator", "flops", "bytes", "time_s", "step_time_s",
    "peak_flops_per_s", "compute_ceiling_flops_per_s", "mem_bw_bytes_per_s", "memory_ceiling_bytes_per_s",
)


def check_columns(df: pd.DataFrame, required: tuple[str, ...], where: str, what: str) -> None:
    """One line naming the missing columns of `df`, or nothing."""
    missing = [c for c in required if c not in df.columns]
    if missing:
        found = ", ".join(map(str, df.columns[:8])) + (", ..." if len(df.columns) > 8 else "") if len(df.columns) else "no columns"
        raise RooflineError(f"{where}: expected {what} with column(s) {', '.join(missing)}, found {found}")


def check_formats(formats) -> None:
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        raise RooflineError(f"formats: expected some of {', '.join(FORMATS)}, found {', '.join(map(str, formats)) or 'none'}")


def drafting_rows(df: pd.DataFrame, meta: dict) -> tuple[pd.DataFrame, dict]:
    """`df` without its method-none rows where other methods stand beside them, and `meta` saying which methods are
    left: every speculative row carries plain decoding in its baseline columns, and a method none beside others
    would only take a panel's first pick (a heatmap of 1.00x, "speculation never pays")."""
    methods = list(dict.fromkeys(df["method"].astype(str))) if "method" in df else []
    if "none" not in methods or len(methods) < 2:
        return df, meta
    kept = [m for m in methods if m != "none"]
    return df[df["method"].astype(str) != "none"], {**meta, "method": kept[0] if len(kept) == 1 else kept}


def standard_jobs(df: pd.DataFrame, ops: pd.DataFrame | None, meta: dict, out_dir: Path,
                  formats: tuple[str, ...] = ("png",)) -> list[tuple]:
    """The jobs of every standard plot of a sweep table (checked; none for an empty table), in PLOT_NAMES order.
    A plot the table cannot support draws nothing (roofline.plots). Rows of method none beside speculative methods are
    left out: the speculative rows' baseline columns hold plain decoding."""
    check_columns(df, REQUIRED_COLUMNS, "results table", "a sweep results table")
    if ops is not None and not ops.empty:
        check_columns(ops, OPERATOR_COLUMNS, "operators table", "an operators table")
    check_formats(formats)
    if df.empty:
        return []
    df, meta = drafting_rows(df, meta)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    # only the columns the plotters read: every row filter in a plotter copies each column it carries
    optional = [c for c in OPTIONAL_COLUMNS if c in df.columns]
    df = _labelled(df[[*REQUIRED_COLUMNS, *optional, *_varying(df, PANEL_CONFIG_COLUMNS)]])
    if ops is not None and not ops.empty:  # its context too (older tables lack it): the roofline says which it shows
        ops = _labelled(ops[[*OPERATOR_COLUMNS, *[c for c in ("context", "compute_dtype") if c in ops.columns], *_varying(ops, PANEL_CONFIG_COLUMNS)]])
    return [(name, df, ops, meta, out_dir / name, tuple(formats)) for name in PLOT_NAMES]


def _varying(df: pd.DataFrame, columns: tuple[str, ...]) -> list[str]:
    """The `columns` of `df` (those it has; older tables lack some) that hold more than one value."""
    return [c for c in columns if c in df.columns and c not in REQUIRED_COLUMNS and df[c].nunique(dropna=False) > 1]


def _labelled(df: pd.DataFrame) -> pd.DataFrame:
    """Label columns as plain strings (a Parquet table reads them as categoricals); a missing label of a config column
    (a drafter on the target, read from CSV as NaN) as '', which equals itself, so that panels can be keyed by it."""
    labels = {c: df[c].astype(str) for c in df.columns if df[c].dtype.name == "category" or c in ("hardware", "model")}
    missing = {c: df[c].fillna("") for c in PANEL_CONFIG_COLUMNS if c in df.columns and df[c].dtype.kind not in "biufcmM" and df[c].isna().any()}
    return df.assign(**missing, **labels)


def report_job(name: str, df: pd.DataFrame, ops: pd.DataFrame, meta: dict, stem: Path, formats=("png",)) -> tuple:
    """The figure job of report section `name` (roofline.report_figures draws it; an unknown name the generic figure)."""
    return (f"report:{name}", df, ops, meta, Path(stem), tuple(formats))


def _draw(job: tuple) -> list[Path]:
    from roofline.plots import draw_figure

    return draw_figure(job)


def _sendable(exc: BaseException) -> BaseException:
    """`exc` if it survives pickling (to cross back to the caller), else a RooflineError saying what it was."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return RooflineError(f"drawing a figure: {type(exc).__name__}: {exc}")


def _drawer(jobs, results) -> None:
    """Draw (index, job) items from `jobs` until None, putting (index, paths, None) or (index, None, error)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the caller's to handle: it stops the pool
    seed = os.getppid()
    while True:
        try:
            item = jobs.get(timeout=1.0)
        except queue.Empty:
            if os.getppid() != seed:  # the seed is gone (killed with the caller): nobody will stop us
                return
            continue
        if item is None:
            return
        index, job = item
        try:
            results.put((index, _draw(job), None))
        except Exception as exc:
            results.put((index, None, _sendable(exc)))


def _seed(workers: int, jobs, results) -> None:
    """Import roofline.plots (matplotlib) once, fork the drawers from this process, then watch them: a drawer
    that ends without being told to (killed, out of memory) is reported, so the caller never waits forever."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the caller's to handle: it stops the pool
    # terminate() ends a seed at once, as a signal's default does: a handler the caller set (launch.stop_on_sigterm)
    # raised inside matplotlib's import instead and printed a traceback beside a refusal (qa135)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    caller = os.getppid()
    with contextlib.suppress(OSError):  # a process group of its own, its drawers' too: an abandoned pool whose pipes an
        os.setpgid(0, 0)  # interrupted get or put left unreadable is ended whole (FigurePool.close; qa372: a hang)
    import roofline.plots  # noqa: F401

    context = multiprocessing.get_context("fork")
    drawers = [context.Process(target=_drawer, args=(jobs, results), name=f"roofline-drawer-{i}") for i in range(workers)]
    for drawer in drawers:
        drawer.start()
    running = {drawer.sentinel: drawer for drawer in drawers}
    while running:  # whichever ends first
        ready = multiprocessing.connection.wait(list(running), timeout=1.0)
        if not ready and os.getppid() != caller:  # the caller was killed: stop drawing for nobody
            for drawer in running.values():
                drawer.terminate()
            return
        for sentinel in ready:
            drawer = running.pop(sentinel)
            drawer.join()
            if drawer.exitcode != 0:
                results.put((None, None, RooflineError(f"figure worker {drawer.name}: ended with exit code {drawer.exitcode}")))


ABANDON_WAIT_S = 3.0  # how long an abandoned pool's drawers get to finish the figure in hand before they are ended


class FigurePool:
    """Figure drawers, started now (see the module docstring). Use as a context manager. `submit(job)` hands a
    job over at once (drawers start on it while the caller goes on), `collect()` returns the written paths of
    every job submitted since the last collect, in submission order, and raises the first error a job raised;
    `draw(jobs)` is both."""

    def __init__(self, jobs: int, workers: int | None = None):
        self._workers = min(workers or os.cpu_count() or 1, max(jobs, 1))
        self._seed = None
        self._waiting: list[tuple] = []  # without drawers: the jobs collect() will draw here
        self._submitted = self._collected = 0
        if self._workers > 1 and "fork" in multiprocessing.get_all_start_methods():
            context = multiprocessing.get_context("fork")
            self._jobs, self._results = context.Queue(), context.Queue()
            self._seed = context.Process(target=_seed, args=(self._workers, self._jobs, self._results), name="roofline-figures")
            self._seed.start()
            atexit.register(self._end)  # before multiprocessing's own exit hook, which would wait for it

    def submit(self, job: tuple) -> None:
        if self._seed is None:
            self._waiting.append(job)
        else:
            self._jobs.put((self._submitted, job))
        self._submitted += 1

    def collect(self) -> list[list[Path]]:
        first, count = self._collected, self._submitted - self._collected
        self._collected = self._submitted
        if self._seed is None:
            jobs, self._waiting = self._waiting, []
            return [_draw(job) for job in jobs]
        drawn: list = [None] * count
        for _ in range(count):
            index, paths, error = self._next()
            if error is not None:
                raise error
            drawn[index - first] = paths
        return drawn

    def draw(self, jobs: list[tuple]) -> list[list[Path]]:
        for job in jobs:
            self.submit(job)
        return self.collect()

    def _next(self) -> tuple:
        while True:
            try:
                return self._results.get(timeout=0.5)
            except queue.Empty:
                if not self._seed.is_alive():
                    raise RooflineError(f"figure workers: ended with exit code {self._seed.exitcode} before drawing every figure") from None

    def close(self, abandon: bool = False) -> None:
        """Stop the drawers once they have drawn every job submitted; with `abandon` (the caller failed), once
        they have finished the job each has in hand: the jobs still queued are taken back undrawn. A caller
        that fails before submitting any job (a bad scenario) does not wait for the seed's imports: the seed
        is ended at once, and drawers it may have forked end on the stop marks, having nothing to write."""
        if self._seed is not None:
            while abandon:
                try:
                    self._jobs.get(timeout=0.05)
                except Exception:  # empty, or a pipe a Ctrl-C cut mid-message left unreadable
                    break
            for _ in range(self._workers):
                self._jobs.put(None)
            if abandon and self._submitted == 0:
                self._seed.terminate()
            try:
                self._seed.join(ABANDON_WAIT_S if abandon else None)
            finally:  # a drawer stuck on a pipe an interrupted get or put left unreadable, or a Ctrl-C in this join
                self._end()
            atexit.unregister(self._end)
            self._seed = None
        self._waiting = []

    def _end(self) -> None:
        """End the seed's process group (the seed and its drawers) where the seed is still running: at exit (atexit:
        a Ctrl-C while the pool drew or closed left the seed to multiprocessing's exit hook, which waited for it
        forever, qa372: in 4 runs of 50 under load), or after an abandoned pool's grace, ABANDON_WAIT_S."""
        if self._seed is not None and self._seed.is_alive():
            try:
                os.killpg(self._seed.pid, signal.SIGKILL)
            except OSError:  # not its group yet (killed before its setpgid): the seed alone
                self._seed.kill()
            self._seed.join()
        if self._seed is not None:
            for q in (self._jobs, self._results):  # nothing left to deliver: never wait on a pipe at exit
                q.cancel_join_thread()

    def __enter__(self) -> FigurePool:
        return self

    def __exit__(self, exc_type, *exc) -> None:
        self.close(abandon=exc_type is not None)


_EARLY: FigurePool | None = None  # started by `start_early`, handed to the first command that draws


def start_early(jobs: int) -> None:
    """Start a pool before anything heavy is imported (roofline.launch, for the commands that draw)."""
    global _EARLY
    stop_early()
    _EARLY = FigurePool(jobs)


def early_or_new(jobs: int) -> FigurePool:
    """The pool `start_early` started, handed over once (the caller closes it), else a new one."""
    global _EARLY
    pool, _EARLY = _EARLY, None
    return pool if pool is not None else FigurePool(jobs)


def stop_early() -> None:
    """End a pool `start_early` started that no command took (the command failed before it drew)."""
    global _EARLY
    if _EARLY is not None:
        _EARLY.close(abandon=True)
        _EARLY = None


# ---------------------------------------------------------------- drawing a table's standard plots

def standard_plots(df: pd.DataFrame, ops: pd.DataFrame, meta: dict, out_dir: Path, formats: tuple[str, ...] = ("png",),
                   workers: int | None = None, pool: FigurePool | None = None) -> list[Path]:
    """Draw every plot the table supports into `out_dir` (PNG by default; `formats=("png", "svg")` for both),
    on `pool` (a started FigurePool, which the caller closes) or over `workers` processes of a pool of this
    call's own (default: the machine's cores); return the written paths in PLOT_NAMES order."""
    jobs = standard_jobs(df, ops, meta, out_dir, formats)
    if pool is None:
        with FigurePool(len(jobs), workers) as pool:
            return [path for paths in pool.draw(jobs) for path in paths]
    return [path for paths in pool.draw(jobs) for path in paths]



def _read_table(path: Path) -> pd.DataFrame:
    """A results table, Parquet or CSV, refused in one line where it is a cost frontier `cheapest --out` wrote (qa132:
    its rows read as a sweep's, every point off the frontier missing: plots of 'does not fit' cells)."""
    df = _read_any_table(path)
    if {"decoding", "pick"} <= set(df.columns):
        raise RooflineError(f"{path}: expected a sweep results table, found a cost frontier `roofline cheapest --out` "
                            "wrote (the frontier's rows only): give the sweep's folder or its results table")
    return df


def _read_any_table(path: Path) -> pd.DataFrame:
    import pandas as pd

    if path.suffix == ".parquet":
        try:
            return pd.read_parquet(path)
        except ImportError as err:
            raise RooflineError(f"{path}: expected a readable parquet file, found no parquet engine (install roofline[parquet] or pass results.csv)") from err
        except (OSError, ValueError) as err:  # pyarrow's ArrowInvalid is a ValueError: not Parquet, or cut short
            raise RooflineError(f"{path}: expected a Parquet results table, found a file Arrow cannot read "
                                f"({textwrap.shorten(' '.join(str(err).split()), 160, placeholder=' ...')})") from None
    return read_labelled_csv(path)


def read_labelled_csv(path: Path) -> pd.DataFrame:
    """A results or operators CSV, its labels (grid.LABEL_COLUMNS) read as text whatever they spell: a profile named
    null or nan is not a missing one (qa122: a sweep's own CSV read back as 'hardware: expected a name, found nothing';
    qa124: operators.csv lost its roofline figure so); only an empty label is missing."""
    import pandas as pd

    from roofline.grid import LABEL_COLUMNS

    header = pd.read_csv(path, nrows=0).columns
    labels = [c for c in LABEL_COLUMNS if c in header]
    return pd.read_csv(path, dtype=dict.fromkeys(labels, str), keep_default_na=False,
                       na_values={c: [""] if c in labels else sorted(_DEFAULT_NA) for c in header})


FLOAT32_RTOL = 1.2e-7  # a float32's relative precision (2^-23 = 1.19e-7): how near a --where number must be
_DEFAULT_NA = {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A",
               "NA", "NULL", "NaN", "None", "n/a", "nan", "null"}  # pandas' default missing-value strings (read_csv's docs)


def check_numeric(df: pd.DataFrame, columns: tuple[str, ...], where: str) -> None:
    """One line naming the first of `columns` that holds something other than numbers (or true/false), and the value."""
    import pandas as pd

    for column in columns:
        values = df[column]
        if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            continue
        flags = column in BOOL_FLAG_COLUMNS  # true / false, as the writers spell them, in any case
        ok = (values.astype(str).str.lower().isin(("true", "false")) if flags
              else pd.to_numeric(values, errors="coerce").notna()) & values.notna()
        bad = values[~ok]
        if len(bad):
            line = f" (line {int(bad.index[0]) + 2})" if where.endswith(".csv") else ""  # the header is line 1
            raise RooflineError(f"{where}: {column}: expected {'true or false' if flags else 'numbers'}, found "
                                f"{'nothing' if pd.isna(bad.iloc[0]) else repr(bad.iloc[0])}{line}")
        if flags:
            df[column] = values.astype(str).str.lower() == "true"
        else:  # numbers stored as text (a Parquet column of strings): read as the numbers they are (qa135: a traceback)
            df[column] = pd.to_numeric(values)


def _locate(table: Path) -> Path:
    """The results file of `table` (a folder or a file), or a one-line error."""
    table = Path(table)
    named = sorted(p.with_suffix(".csv").name for p in table.glob("*.json") if p.with_suffix(".csv").is_file()) if table.is_dir() else []
    if named:  # a report's tables/ folder: NAME.csv beside NAME.json for each scenario (qa262: the one named `results`
        # read as the folder's, unsaid); a sweep's folder has no such pair (its scenario.json beside results.csv)
        raise RooflineError(f"{table}: expected a sweep folder, found a report's tables folder: name one of its tables "
                            f"({', '.join(named[:4])}{', ...' if len(named) > 4 else ''})")
    if table.is_dir():
        for name in ("results.parquet", "results.csv"):
            candidate = table / name
            if candidate.is_file() and (name == "results.csv" or _has_parquet()):
                return candidate
        tables = table / "tables"  # a report's own folder (qa281): its tables are one level down
        named = sorted(p.with_suffix(".csv").name for p in tables.glob("*.json") if p.with_suffix(".csv").is_file()) \
            if tables.is_dir() else []
        raise RooflineError(f"{table}: expected a sweep folder with results.csv or results.parquet, found neither"
                            + (f" (a report's folder: name one of its tables, {tables}/NAME.csv: "
                               f"{', '.join(named[:4])}{', ...' if len(named) > 4 else ''})" if named else ""))
    if not table.is_file():
        raise RooflineError(f"{table}: expected a sweep folder or its results.csv / results.parquet, found nothing there "
                            + (f"(`roofline sweep SCENARIO --out {table.parent}` writes it)" if table.name in ("results.csv", "results.parquet") else
                               "(`roofline sweep SCENARIO --out DIR` writes DIR/results.csv)"  # (qa476: told to make a
                               if table.suffix in (".csv", ".parquet") else  # folder named res.csv)
                               f"(`roofline sweep SCENARIO --out {table}` writes one)"))  # qa459: a README block run out of order
    if table.suffix not in (".csv", ".parquet"):
        raise RooflineError(f"{table}: expected a .csv or .parquet results table, found a {table.suffix or 'suffix-less'} file")
    return table


def read_results(table: Path) -> tuple[Path, pd.DataFrame]:
    """(file, rows) of a sweep folder or its results table, every problem one line (`plot`'s reading, for `cheapest`)."""
    import pandas as pd

    from roofline.yamlio import check_text_table

    path = _locate(Path(table))
    if path.suffix == ".csv":
        check_text_table(path)
    try:
        df = _read_table(path)
    except (pd.errors.EmptyDataError, pd.errors.ParserError) as exc:  # a CSV pandas cannot read as a table
        raise RooflineError(f"{path}: expected a sweep results table (CSV), found {str(exc).splitlines()[0][:120]}") from None
    _warn_rows_short(path, len(df))
    return path, df


def _warn_rows_short(path: Path, rows: int) -> None:
    """A table holding another number of rows than the points its scenario.json records (qa408: a CSV cut at a line's
    end, an interrupted copy, answered `cheapest` from 199 of its 540 rows in silence): said, and read as it is."""
    from roofline.errors import warn
    from roofline.frontier import _json_object, table_json

    meta_path, _ = table_json(path)
    points = (_json_object(meta_path)[0] or {}).get("points") if meta_path is not None else None
    if isinstance(points, int) and not isinstance(points, bool) and points != rows:
        warn(f"{path}: {rows:,} rows where {meta_path.name} records {points:,} points swept: a table cut short or edited "
             "(an interrupted copy? --where selects rows and leaves the table whole); read as it is")


def _has_parquet() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def _derived_meta(df: pd.DataFrame, folder: Path) -> dict:
    """A minimal meta when scenario.json is missing: names as their own display names, method from the table."""
    import numpy as np

    methods = df["method"].astype(str).unique()
    devices = (df["tokens_per_s"] / df["tokens_per_s_per_device"]).median()
    return {
        "scenario": folder.name, "description": "", "method": methods[0] if len(methods) == 1 else sorted(methods),
        "hardware": {h: h for h in df["hardware"].astype(str).unique()}, "model": {m: m for m in df["model"].astype(str).unique()},
        "tp": int(round(devices)) if np.isfinite(devices) else 1, "points": len(df),
        "axes": {"batch": sorted(int(b) for b in df["batch"].unique())},
        "serving_columns": "serving_time_per_output_token_s" in df,  # a request's table, its prompt unknown here
    }


ON_THE_TARGET = ("none", "co-located", "default", "target", "on the target")  # --where draft_hardware=


# what people call a column by another name (qa428: `--where gpu=mi300x` for hardware)
COLUMN_SYNONYMS = {"gpu": "hardware", "device": "hardware", "accelerator": "hardware", "gpus": "devices",  # gpus=8
                   "num_gpus": "devices", "concurrency": "batch", "batch_size": "batch", "seq_len": "context",
                   "context_len": "context", "draft_len": "k", "draft_length": "k", "num_speculative_tokens": "k",
                   "acceptance": "alpha", "acceptance_rate": "alpha", "tensor_parallel": "tp",
                   "tensor_parallel_size": "tp", "framework": "engine", "dtype": "weight_dtype"}  # (qa430)


def _column_hint(column: str, columns) -> str:
    """' (did you mean hardware?)' for a column the table lacks, by its usual other name or its spelling; '' else."""
    from roofline.errors import closest_names

    known = [str(c) for c in columns]
    meant = COLUMN_SYNONYMS.get(column.strip().lower())
    close = [meant] if meant in known else closest_names(column, known, 1, 0.8)
    return f" (did you mean {close[0]}?)" if close else ""


def select_rows(df: pd.DataFrame, where: tuple[str, ...], source: str, strict: bool = True) -> pd.DataFrame:
    """The rows of `df` matching every COLUMN=VALUE of `where` (a number compared as a number, within a float32's
    precision, FLOAT32_RTOL, so a CSV's and a Parquet's rows match alike: tp=4, context=8192, alpha=nan for NaN;
    text as written: engine=sglang; draft_hardware= or one of ON_THE_TARGET for a drafter on the target's devices),
    or one line naming the condition no row meets and the values there are.
    Not `strict` (the operators table): a column it lacks is passed over, and no match leaves no rows."""
    import numpy as np
    import pandas as pd

    before: list[str] = []  # the conditions already applied: a value they left out is named with them
    for condition in where:
        column, sep, value = condition.partition("=")
        column, value = column.strip(), value.strip()
        typed = value  # said as typed (qa242: draft_hardware=none was said as '', the on-the-target cell it stands for)
        if sep and column not in df.columns and not strict:
            continue
        if not sep or column not in df.columns:
            raise RooflineError(f"--where: expected COLUMN=VALUE with a column of {source}, found {condition!r}"
                                + (_column_hint(column, df.columns) if sep else ""))
        values = df[column]
        if pd.api.types.is_bool_dtype(values):  # true / false, in any case
            values, value = values.astype(str).str.lower(), value.lower()
        if column == "draft_hardware" and bare_name(value) in {bare_name(x) for x in ON_THE_TARGET}:  # the names a drafter
            # on the target goes by, case and separators aside (co_located, On-The-Target; qa102)
            value = ""  # elsewhere (co-located, default, on the target): qa99 found only the empty one taken
        if value == "":  # an empty cell: no drafter device, no expert dtype (a column of nothing reads as numbers)
            keep = (values.isna() | (values.astype(str) == "")).to_numpy()
        elif (pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
              and (values.notna().any() or value.lower() == "nan")):  # (a column of nothing: text, but for nan)
            try:  # integers exactly; floats within a float32's precision: a CSV holds float32, its Parquet float64
                # (qa122: alpha=0.123456789 matched the Parquet only, 0.12345679 the CSV only); nan matches per-position
                # rates' NaN alpha, in a column of nothing else too (qa124)
                from roofline.units import plain_float

                numbers = values.to_numpy(dtype=float)
                asked = plain_float(value)  # (qa289: batch=1_6 and full-width digits matched batch 16)
                keep = (np.isnan(numbers) if np.isnan(asked) else numbers == asked if pd.api.types.is_integer_dtype(values)
                        else np.isclose(numbers, asked, rtol=FLOAT32_RTOL, atol=0.0))
            except ValueError:
                raise RooflineError(f"--where {condition}: expected a number for {column}, found {value!r}") from None
        else:  # text, blanks read as nothing (a CSV's empty cells are NaN: qa90's TypeError); a column of nothing as text
            values = values.astype(object).where(values.notna(), "").astype(str)
            keep = values.to_numpy() == value
            kind = {"hardware": "hardware", "draft_hardware": "hardware", "model": "model", "engine": "engine"}.get(column)
            if kind and not keep.any():  # a profile name as the rest of the tool takes it: any case, an alias (qa95)
                from roofline.profiles import alias_of

                lowered = value.lower()
                keep = values.str.lower().isin({lowered, alias_of(kind, value) or lowered}).to_numpy()
            if not keep.any() and (column.endswith("_dtype") or column == "method"):  # FP8, EAGLE: any case, as a
                keep = (values.str.lower() == value.lower()).to_numpy()  # scenario file takes them (qa112)
        if not keep.any() and not strict:
            return df[keep]
        if not keep.any():
            held = (sorted(values.astype(str).unique(), key=lambda v: (len(v), v))
                    if not pd.api.types.is_numeric_dtype(values) else  # numbers in their order (qa122)
                    [str(x) for x in sorted(values.dropna().unique().tolist())]  # as typed back
                    + (["nan"] if values.isna().any() else []))
            there = ", ".join(v if v else ("'' (on the target: or none, co-located)" if column == "draft_hardware" else "''")
                              for v in held[:12]) + (f", ... ({len(held)} in all)" if len(held) > 12 else "")  # (qa476)
            after = f" once --where {' --where '.join(before)} is applied" if before else ""
            empty = values.isna() | (values.astype(str).isin(["", "nan"]))
            rates = (": alpha is empty where per-position rates, a tree or a method's published rates stand for it "
                     "(--where alpha=nan keeps those rows)" if column == "alpha" and empty.all() else
                     ": plain decoding has no rows of its own here: it is every row's baseline_* columns (and the k = 0 "
                     "rows where the k axis holds 0)" if column == "method" and value.lower() == "none" else "")  # qa130, qa205
            raise RooflineError(f"--where {condition}: expected a value {column} takes in {source}{after}, found {typed!r}, "
                                f"which no row has (values: {there}){rates}")
        before.append(condition)
        df = df[keep]
    return df


def _meta_of_rows(meta: dict, df: pd.DataFrame) -> dict:
    """`meta` (scenario.json) with the config values and axes the selected rows hold, so a title says 'TP 8', not
    the sweep's 'TP 2 / 4 / 8'."""
    import numpy as np

    def values(column: str) -> list:
        out = sorted(df[column].dropna().unique().tolist(), key=str)
        return [v.item() if isinstance(v, np.generic) else v for v in out]
    meta = dict(meta)
    for key in ("engine", "weight_dtype", "kv_dtype", "tp"):
        if key in df:
            meta[key] = values(key)
    if "expert_dtype" in df:
        meta["expert_dtype"] = [v for v in values("expert_dtype") if str(v)]
    if "method" in df:
        methods = values("method")
        meta["method"] = methods[0] if len(methods) == 1 else methods
    if "draft_hardware" in df and meta.get("draft_hardware"):  # as scenario_meta words it: null for the target's devices
        # (qa112: --where draft_hardware=a10g kept every placement); a CSV's blank cell, NaN, is the target's too (qa116)
        placements = set(df["draft_hardware"].astype(object).where(df["draft_hardware"].notna(), "").astype(str).unique())
        elsewhere = sorted(placements - {""})
        meta["draft_hardware"] = ([None] if "" in placements else []) + elsewhere if elsewhere else None
    if "layouts" in meta and "tp" in df:  # the selected rows' layouts, as Deployment.describe words them
        from roofline.layout import layouts_of_rows

        meta["layouts"] = layouts_of_rows(df)
    axes = dict(meta.get("axes") or {})
    for axis in ("batch", "context", "k"):
        if axis in df:
            axes[axis] = [int(v) for v in values(axis)]
    meta["axes"] = axes
    return meta


# what names a refused panel: a layout refusal is its model's and dtypes' too (qa239: tp 32 marked another model's panel)
REFUSAL_KEYS = ("engine", "method", "hardware", "model", "weight_dtype", "expert_dtype", "tp", "dp_attention", "ep", "pp")


def narrowed_columns(df, meta: dict | None = None) -> dict[str, list]:
    """{column: its values left out, in table order} for each column a standard figure of a sweep's rows `df` narrows to a subset
    (plots._panels, as the figures call it, what fits in memory included; hardware where the first panels leave a
    device out): what the sweep's note names (qa242: it named every varying column, cut or not; qa247: taking every
    point to fit, it named none where the figures kept one layout). A sweep of at most MAX_PANELS panels narrows
    nothing: said without drawing on the plots module (matplotlib, not loaded in the sweep's own process)."""
    columns = [c for c in ("hardware", "model", "context", *PANEL_CONFIG_COLUMNS) if c in df.columns]
    if len(df[columns].drop_duplicates()) <= MAX_PANELS:
        return {}
    from roofline.plots import LAYOUT_DEGREES, _panels

    keep = {"fits_in_memory", "engine", "method", "weight_dtype", "expert_dtype", "tp", "dp_attention", "ep", "pp", "k"}
    df = df[[*columns, *(c for c in df.columns if c in keep and c not in columns)]].drop_duplicates()  # what refusals match
    by, keys, _ = _panels(df, ("hardware", "model", "context"), meta or {})  # its refusals, as the figures take them
    out = {axis: [v for v in dict.fromkeys(df[axis]) if v not in {key[i] for key in keys}]  # the values left out (qa250:
           for i, axis in enumerate(by) if len({key[i] for key in keys}) < df[axis].nunique(dropna=False)}  # all of them)
    degrees = [i for i, axis in enumerate(by) if axis in LAYOUT_DEGREES]
    layouts = list(dict.fromkeys(df[[by[i] for i in degrees]].itertuples(index=False, name=None))) if degrees else []
    left = [t for t in layouts if t not in {tuple(key[i] for i in degrees) for key in keys}]
    if left and not any(by[i] in out for i in degrees):  # a whole layout left out, each of its degrees still drawn
        out[by[degrees[0]]] = [t[0] for t in left]  # (its values end with a left-out layout's: the hint's --where)
    return out


def refused_meta(df, extra_dirs: tuple = (), refused: list | None = None) -> dict:
    """What the figures say of the rows of `df` that no setup of their engine runs (frontier.refused_layouts): each
    refusal's engine, method, device and layout degrees where it names them, and its note (`refused`: a panel whose
    values all match is titled 'not run by ENGINE', and the footer names those among the rows a figure draws:
    plots.refusals_drawn); {} where there are none."""
    from roofline.frontier import refused_layouts

    refused = refused_layouts(df, extra_dirs)[0] if refused is None else refused  # (_warn_of_refused's, worked out once)
    entries = []
    for e in refused:
        entry = {k: (int(e[k]) if k in ("tp", "dp_attention", "ep", "pp") else str(e[k])) for k in REFUSAL_KEYS
                 if k in e and not (e[k] is None or e[k] != e[k] or str(e[k]) == "")}  # qa240: a dense model's no expert dtype
        if e.get("speculative_only"):  # the plain rows run (qa466: pp 2's plain frontier dropped as 'nothing fits')
            entry["speculative_only"] = True
        entry["note"] = e["note"]
        if entry not in entries:
            entries.append(entry)
    return {"refused": entries} if entries else {}


def _warn_of_refused(df, extra_dirs: tuple = ()) -> list[dict]:
    """One line where the rows drawn hold layouts their engine refuses to load or runs no setup of, or engines on
    devices they do not run on (frontier.refused_layouts): drawn as the sweep computed them, where cheapest leaves
    them out (qa145: plot drew trtllm at tp 2 / dp 4, and on MI300X, without a word); the figures say it too
    (refused_meta; qa231: a Medusa panel under sglang read as a gain on a figure shared without the terminal)."""
    from roofline.errors import warn
    from roofline.frontier import refused_layouts

    refused = refused_layouts(df, extra_dirs)[0]
    if refused:
        notes = list(dict.fromkeys(e["note"] for e in refused))  # qa237: counted by entry a device, listed once
        named, n = "; ".join(notes), len(notes)
        warn(f"the rows drawn include {n} layout{'s' if n > 1 else ''}, method{'s' if n > 1 else ''} or device{'s' if n > 1 else ''} "
             f"no setup of their engine runs ({named}): drawn as the sweep computed them; roofline cheapest leaves them out "
             "(--where draws the others alone)")
    return refused


def best_k_among(df):
    """`df` with best_k taken again among its own rows (the k tokens/s is highest at, of those that fit; -1 where none
    fits), each point the same config, batch, context and alpha: `plot --where k=3` drew heatmap cells as 'no fit' and
    lone dots where the sweep's best k, of every k, was another (qa225)."""
    import numpy as np

    from roofline.grid import INPUT_COLUMNS

    keys = [c for c in INPUT_COLUMNS if c in df.columns and c != "k"]
    # a label's None, '' and NaN are one group, as the sweep wrote them
    groups = [df[c].fillna("") if df[c].dtype == object else df[c] for c in keys]
    score = df["tokens_per_s"].where(df["fits_in_memory"].astype(bool), -np.inf)
    top = score.groupby(groups, dropna=False, observed=True, sort=False).transform("max")
    winner = df["k"].where((score == top) & np.isfinite(top))
    best = winner.groupby(groups, dropna=False, observed=True, sort=False).transform("min")
    return df.assign(best_k=best.fillna(-1).astype(int))


def _say_verify_k_held(ops, where: tuple, path) -> None:
    """Warn where --where picks a k whose verify pass operators.csv does not hold (it holds the largest k swept's only):
    the roofline figure draws that one (qa400: `--where k=3` titled the heatmap k = 3, the roofline's verify pass q = 6
    unsaid)."""
    from roofline.errors import warn

    asked = [w.split("=", 1)[1].strip() for w in where if w.split("=", 1)[0].strip() == "k"]
    if ops is None or not asked or "q" not in ops:
        return
    held = sorted({int(q) for q in ops.loc[ops["pass"] == "verify", "q"]})
    try:
        wanted = int(float(asked[-1])) + 1
    except ValueError:
        return
    if held and wanted not in held:
        warn(f"{path}: --where k={asked[-1]}: the roofline figure draws the verify pass at q = {held[-1]} (k = {held[-1] - 1}), "
             "the one operators.csv holds (the largest k swept); the other figures are at the k asked")


def plot_from_table(table: Path, out: Path | None = None, force: bool = False, formats: tuple[str, ...] = ("png",),
                    pool: FigurePool | None = None, where: tuple[str, ...] = (), extra_dirs: tuple = ()) -> list[Path]:
    """Re-draw the standard plots from a sweep folder or its results table (operators.csv and
    scenario.json read from the same folder when present), on `pool` when given (see standard_plots).
    `where` (COLUMN=VALUE, repeatable) draws only the matching rows: another subset than the plots' own choice
    (the first TP, context, ... that fits: their titles say which), e.g. ("tp=8", "context=32768").
    Into the table's own folder (no `out`): refuses to overwrite plots unless `force`, which also removes the
    standard figures this run does not draw (they would look current). Into another folder `out`:
    an output folder like sweep's (outputs.staged_dir: created whole, marked, replaced with `force` only where
    roofline wrote it, never one holding a sweep's results table)."""
    from roofline.outputs import add_to_marker, check_kind, check_writable, staged_dir

    path = _locate(Path(table))
    folder = path.parent
    out_dir = Path(out) if out is not None else folder
    own_folder = out_dir.resolve() == folder.resolve()
    if where and own_folder:  # a subset's figures beside the whole sweep's would not say which is which
        raise RooflineError(f"--where: expected --out DIR for a subset's figures, found them going into the table's own "
                            f"folder {folder}, beside the whole sweep's")
    if out_dir.exists() and not out_dir.is_dir():
        raise RooflineError(f"--out: expected a folder, found an existing file {out_dir}")
    check_formats(formats)
    if not own_folder:
        tables = [n for n in ("results.csv", "results.parquet") if (out_dir / n).is_file()] if out_dir.is_dir() else []
        if tables:  # qa112: --force replaced another sweep's folder whole, its results with it
            raise RooflineError(f"--out: {out_dir} holds another sweep's results ({', '.join(tables)}), which --force would "
                                f"remove with the folder: plot into a folder of its own, or into that sweep's with "
                                f"`roofline plot {out_dir}`")
        check_kind(out_dir, "plot")  # a report's or accuracy's folder (qa301: replaced by figures with --force)
        check_writable(out_dir, force)
    elif not force:
        for name in PLOT_NAMES:
            for ext in formats:
                if (out_dir / f"{name}.{ext}").exists():
                    where = "--out" if out is not None else "plot (into the table's folder)"
                    raise RooflineError(f"{where}: {out_dir / f'{name}.{ext}'} exists; pass --force to overwrite it "
                                        f"or --out DIR for another folder")
    df = _read_table(path)
    _warn_rows_short(path, len(df))  # as cheapest reads it (qa412: plot drew a table cut short in silence)
    check_columns(df, REQUIRED_COLUMNS, str(path), "a sweep results table")
    check_numeric(df, NUMERIC_COLUMNS + tuple(c for c in (*OPTIONAL_COLUMNS, "shared_prefix") if c in df), str(path))  # qa137
    from roofline.frontier import check_plot_cells

    check_plot_cells(df, str(path))
    df = select_rows(df, tuple(where), str(path))
    if df.empty:
        raise RooflineError(f"{path}: expected a sweep results table with at least one row, found none")
    if where and (df["best_k"] >= 0).any():  # any selection may leave out a point's best k (qa226: verify_compute_bound=
        df = best_k_among(df)  # false); a tree's sweep has none to take (-1 throughout: its tau at another depth unknown)
    import pandas as pd

    from roofline.yamlio import check_text_table

    ops = None
    if (folder / "operators.csv").is_file():
        ops_path = folder / "operators.csv"  # its own faults named as its own (qa114: blamed on results.csv)
        check_text_table(ops_path, "an operators table (CSV)")
        try:
            ops = read_labelled_csv(ops_path)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
            raise RooflineError(f"{ops_path}: expected an operators table (CSV), found {str(exc).splitlines()[0][:160]}") from None
        check_columns(ops, OPERATOR_COLUMNS, str(folder / "operators.csv"), "an operators table")
        ops = select_rows(ops, tuple(where), str(folder / "operators.csv"), strict=False)  # the same selection
        ops = ops.merge(df[[c for c in ("hardware", "model") if c in ops]].drop_duplicates())  # the selected rows' devices
        ops = ops if len(ops) else None  # nothing of the selection was tabled per operator: no roofline figure
        _say_verify_k_held(ops, where, path)
    from roofline.frontier import JSON_MAX_BYTES, checked_meta, table_json

    # the file cheapest reads too (qa263: a report's tables/scenario.json, another scenario's, titled this table's
    # figures); a scenario.json beside that cannot be read is still refused here, in one line
    chosen, passed = table_json(path)
    meta_path = chosen or next((p for p, why in passed if p.name == "scenario.json" and not why.startswith("it is ")), None)
    if meta_path is not None:
        from roofline.yamlio import json_found, read_text

        try:
            meta = json.loads(read_text(meta_path, JSON_MAX_BYTES))  # UTF-8, or one line (qa114: random bytes)
        except json.JSONDecodeError as err:
            raise RooflineError(f"{meta_path}: line {err.lineno}: not valid JSON: {err.msg} (column {err.colno}), "
                                f"{json_found(err)}") from None
        except RooflineError:  # read_text's own line (not UTF-8, too large)
            raise
        except (ValueError, RecursionError) as err:  # qa262: nested past the recursion limit, an integer of 5,000 digits
            raise RooflineError(f"{meta_path}: expected a sweep's scenario.json, found JSON Python cannot read "
                                f"({type(err).__name__})") from None
        if not isinstance(meta, dict) or not isinstance(meta.get("axes", {}), dict):  # qa114: [1, 2], {"axes": 5}
            raise RooflineError(f"{meta_path}: expected a sweep's scenario.json (a JSON object with an `axes` object), "
                                f"found {type(meta).__name__ if not isinstance(meta, dict) else 'axes: ' + repr(meta['axes'])[:40]}")
        meta = checked_meta(meta, meta_path)  # qa262: a field of another type raised in a figure worker
    else:
        meta = _derived_meta(df, folder)
    if where:  # the titles describe the rows drawn, not the whole sweep
        meta = _meta_of_rows(meta, df)
    refused = _warn_of_refused(df, tuple(extra_dirs))  # the profiles on the search path (roofline --profiles)
    meta = {**meta, **refused_meta(df, refused=refused)}  # the figures say them too
    if own_folder:  # drawn aside, then moved in: a plot that fails leaves the folder's earlier figures as they were
        import os
        import tempfile

        with tempfile.TemporaryDirectory(prefix=".plots-", dir=out_dir) as aside:
            paths = standard_plots(df, ops, meta, Path(aside), formats, pool=pool)
            for p in paths:
                os.replace(p, out_dir / p.name)
        drawn = {p.name for p in paths}
        stale = [out_dir / f"{name}.{ext}" for name in PLOT_NAMES for ext in ("png", "svg")
                 if force and f"{name}.{ext}" not in drawn and (out_dir / f"{name}.{ext}").is_file()]
        for figure in stale:  # an earlier figure this table no longer makes (or in a format not asked for) would look current
            figure.unlink()
        add_to_marker(out_dir, drawn)
        return [out_dir / p.name for p in paths]
    with staged_dir(out_dir, force, "plot") as staged:
        paths = standard_plots(df, ops, meta, staged, formats, pool=pool)
    return [out_dir / p.name for p in paths]
