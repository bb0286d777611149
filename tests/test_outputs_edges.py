"""Output writing edges (outputs.py) the suite did not pin, found by mutation testing (qa474) (the marker's kind kept when plot adds figures, an
existing file as --out, the 'and N more' of foreign files, 'an accuracy's', a left .old staging folder and its size,
`new/../o` cleaned up after a failure, a one-point progress bar, --format's message, CSV halves' single header)."""

import os
import time
import warnings

import numpy as np
import pandas as pd
import pytest

from roofline.errors import RooflineError
from roofline.outputs import (
    TableWriter,
    add_to_marker,
    check_format,
    check_kind,
    listed_files,
    marker_kind,
    progress_bar,
    staged_dir,
    write_marker,
)


def test_adding_files_to_a_marker_keeps_its_kind_and_its_earlier_files(tmp_path):
    write_marker(tmp_path, {"results.csv", "scenario.json"}, "sweep")
    add_to_marker(tmp_path, {"speedup_heatmap.png"})
    assert marker_kind(tmp_path) == "sweep"
    assert listed_files(tmp_path) == {"results.csv", "scenario.json", "speedup_heatmap.png"}


def test_an_existing_file_named_as_out_is_refused_before_anything_is_staged(tmp_path):
    target = tmp_path / "o"
    target.write_text("mine\n")
    ran = []
    with pytest.raises(RooflineError) as err:
        with staged_dir(target, force=True):
            ran.append(1)
    assert str(err.value) == f"--out: expected a folder, found an existing file {target} (choose another path)"
    assert ran == [] and target.read_text() == "mine\n" and sorted(p.name for p in tmp_path.iterdir()) == ["o"]


def test_more_than_three_foreign_files_are_named_three_and_counted(tmp_path):
    out = tmp_path / "o"
    with staged_dir(out, force=False) as tmp:
        (tmp / "a.csv").write_text("1\n")
    for name in ("n1.txt", "n2.txt", "n3.txt", "n4.txt", "n5.txt"):
        (out / name).write_text("x\n")
    with pytest.raises(RooflineError) as err:
        with staged_dir(out, force=True):
            pass
    assert str(err.value) == (f"--out: {out} holds files roofline did not write there (n1.txt, n2.txt, n3.txt and 2 more), "
                              "which --force would delete with the folder: move them out, or choose another --out")


def test_an_accuracy_output_is_named_with_an(tmp_path):
    (tmp_path / "accuracy.csv").write_text("a\n1\n")
    write_marker(tmp_path, {"accuracy.csv"}, "accuracy")
    with pytest.raises(RooflineError) as err:
        check_kind(tmp_path, "report")
    assert str(err.value) == (f"--out: {tmp_path} holds an accuracy's output (accuracy.csv), which --force would remove "
                              "with the folder: choose another --out for the report")


def test_a_left_aside_old_folder_is_said_with_its_size_in_mb(tmp_path):
    left = tmp_path / ".out.old.ab12CD34"  # _swap's aside folder (mkdtemp: 8 characters) a killed run left
    left.mkdir()
    (left / "results.parquet").write_bytes(b"\0" * 3_000_000)  # 3,000,000 bytes = 3 MB
    old = time.time() - 3600
    os.utime(left / "results.parquet", (old, old))
    os.utime(left, (old, old))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with staged_dir(tmp_path / "out", force=False) as folder:
            (folder / "a.txt").write_text("a")
    said = [str(w.message) for w in caught]
    assert len(said) == 1 and f"{left} (3 MB, untouched for 60 minutes) is a staging folder a run writing" in said[0]


def test_a_failed_output_through_a_new_folder_and_up_leaves_no_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RuntimeError, match="boom"):
        with staged_dir(tmp_path / "new" / ".." / "o", force=False):
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []  # `new` made for the path, removed again


def test_a_progress_bar_of_one_point_done_is_full(capsys, monkeypatch):
    monkeypatch.setattr("sys.stderr.isatty", lambda: False)
    progress_bar(1, 1, 0.5)
    assert capsys.readouterr().err == f"[{'#' * 30}] 1/1    0.5 s\n"


def test_an_unknown_format_is_said_quoted():
    with pytest.raises(RooflineError) as err:
        check_format("xlsx")
    assert str(err.value) == "--format: expected csv, parquet or both, found 'xlsx'"


def test_a_csv_written_in_two_halves_has_one_header(tmp_path, monkeypatch):
    monkeypatch.setattr("roofline.outputs.CSV_HALVES_FROM_ROWS", 1_000)  # 3,000 rows a write: two halves of 1,500
    n = 3_000
    cols = {"batch": np.arange(n), "step_time_s": np.full(n, 0.5)}
    with TableWriter(tmp_path / "results", ("hardware", "batch", "step_time_s"), "csv") as w:
        w.write({"hardware": "h100-sxm"}, cols)
    lines = (tmp_path / "results.csv").read_text().splitlines()
    assert len(lines) == n + 1 and sum("batch" in line for line in lines) == 1
    csv = pd.read_csv(tmp_path / "results.csv")
    assert list(csv["batch"]) == list(range(n)) and (csv["step_time_s"] == 0.5).all()


def _rename_hook(monkeypatch, out, before):
    """Path.rename, calling `before()` first when the staged folder (.o.XXXXXXXX) moves onto `out`."""
    from pathlib import Path

    real = Path.rename

    def rename(self, target):
        if Path(target) == out and self.name.startswith(f".{out.name}.") and ".old." not in self.name:
            before()
        return real(self, target)

    monkeypatch.setattr(Path, "rename", rename)


def test_an_output_another_run_puts_in_place_during_the_swap_is_kept_and_said_in_one_line(tmp_path, monkeypatch):
    out = tmp_path / "o"
    with staged_dir(out, force=False) as tmp:
        (tmp / "a.csv").write_text("1\n")

    def another_run_lands():  # after this run set the earlier output aside, before its own moves in
        out.mkdir()
        (out / "theirs.csv").write_text("2\n")

    _rename_hook(monkeypatch, out, another_run_lands)
    with pytest.raises(RooflineError) as err:
        with staged_dir(out, force=True) as tmp:
            (tmp / "mine.csv").write_text("3\n")
    assert str(err.value) == f"--out: {out}: another run wrote it while this one ran; this run's output is not kept"
    assert [p.name for p in tmp_path.iterdir()] == ["o"] and [p.name for p in out.iterdir()] == ["theirs.csv"]


def test_a_swap_that_fails_puts_the_earlier_output_back(tmp_path, monkeypatch):
    import errno

    out = tmp_path / "o"
    with staged_dir(out, force=False) as tmp:
        (tmp / "a.csv").write_text("1\n")

    def busy():
        raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))

    _rename_hook(monkeypatch, out, busy)
    with pytest.raises(RooflineError) as err:
        with staged_dir(out, force=True) as tmp:
            (tmp / "mine.csv").write_text("3\n")
    assert str(err.value) == (f"--out: {out}: cannot replace it: Device or resource busy (a mount point cannot be "
                              "replaced: name a folder inside it)")
    assert [p.name for p in tmp_path.iterdir()] == ["o"] and (out / "a.csv").read_text() == "1\n"


def test_an_earlier_output_gone_before_it_is_set_aside_leaves_no_aside_folder(tmp_path, monkeypatch):
    import errno
    from pathlib import Path

    out = tmp_path / "o"
    with staged_dir(out, force=False) as tmp:
        (tmp / "a.csv").write_text("1\n")
    real = Path.rename

    def rename(self, target):  # another run removed the earlier output just before this one set it aside
        if self == out and ".old." in Path(target).name:
            raise OSError(errno.ENOENT, os.strerror(errno.ENOENT))
        return real(self, target)

    monkeypatch.setattr(Path, "rename", rename)
    with pytest.raises(RooflineError) as err:
        with staged_dir(out, force=True) as tmp:
            (tmp / "mine.csv").write_text("3\n")
    assert str(err.value) == f"--out: {out}: another run wrote it while this one ran; this run's output is not kept"
    assert [p.name for p in tmp_path.iterdir()] == ["o"]  # no .o.old.XXXXXXXX, no staging folder


def test_a_progress_bar_counts_with_thousands_separators(capsys, monkeypatch):
    monkeypatch.setattr("sys.stderr.isatty", lambda: False)
    progress_bar(1234, 10_000, 2.0, "points")  # 30 * 1234 / 10000 = 3.7: 3 marks
    assert capsys.readouterr().err == f"[{'###':<30}] 1,234/10,000  points  2.0 s\n"


def test_a_users_old_folder_named_like_a_staging_folder_but_longer_is_not_called_one(tmp_path):
    mine = tmp_path / ".out.backup123"  # 9 characters after '.out.': mkdtemp's names have 8
    mine.mkdir()
    old = time.time() - 3600
    os.utime(mine, (old, old))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with staged_dir(tmp_path / "out", force=False) as folder:
            (folder / "a.txt").write_text("a")
    assert [str(w.message) for w in caught] == []
