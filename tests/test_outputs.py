"""Output files: written whole or not at all, CSV and Parquet holding the same rows (outputs.py)."""

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from roofline.errors import RooflineError
from roofline.outputs import MARKER, POLARS_FROM_ROWS, TableWriter, progress_bar, staged_dir
from roofline.yamlio import write_text_atomic


# Arrow formats CSV_HALVES_FROM_ROWS rows or more in two halves (lowered here, so the halves are few rows);
# polars costs 0.3-0.4 s to import, so its cases are slow-marked
@pytest.mark.parametrize("by_polars, n", [(False, 3_000), pytest.param(True, 3_000, marks=pytest.mark.slow)])
def test_csv_and_parquet_hold_the_same_rows_and_csv_floats_keep_seven_digits(tmp_path, monkeypatch, by_polars, n):
    monkeypatch.setattr("roofline.outputs.CSV_HALVES_FROM_ROWS", 2_000)  # each write of n rows: two halves (qa474:
    # 4,000 against writes of 3,000 rows never split one)
    rng = np.random.default_rng(0)
    cols = {"batch": np.arange(n), "step_time_s": rng.random(n) * 1e-2, "fits": rng.random(n) > 0.5}
    rows = POLARS_FROM_ROWS if by_polars else None
    with TableWriter(tmp_path / "results", ("hardware", "batch", "step_time_s", "fits"), "both", rows=rows) as w:
        w.write({"hardware": "h100-sxm"}, cols)
        w.write({"hardware": "h200"}, cols)
    assert w.files == ["results.csv", "results.parquet"] and w.by_polars == by_polars
    csv, parquet = pd.read_csv(tmp_path / "results.csv"), pd.read_parquet(tmp_path / "results.parquet")
    assert len(csv) == len(parquet) == 2 * n and list(csv["batch"][:3]) == [0, 1, 2] and csv["batch"][n] == 0
    assert (csv["hardware"] == parquet["hardware"].astype(str)).all() and list(csv["hardware"][n - 1:n + 1]) == ["h100-sxm", "h200"]
    np.testing.assert_array_equal(parquet["step_time_s"][:n], cols["step_time_s"])  # Parquet: exact
    np.testing.assert_allclose(csv["step_time_s"], parquet["step_time_s"], rtol=1e-6)  # CSV: float32 shortest form
    assert not np.array_equal(csv["step_time_s"], parquet["step_time_s"])  # ... which is not float64's
    # labels an unordered categorical from either writer (qa122: polars' ordered Enum did not combine with Arrow's)
    assert not parquet["hardware"].cat.ordered and not pq.read_schema(tmp_path / "results.parquet").field("hardware").type.ordered


@pytest.mark.slow
def test_arrow_and_polars_write_files_that_read_back_as_the_same_values(tmp_path):
    cols = {"batch": np.arange(4), "context": np.array([1, 2, 3, 4]), "flops": np.array([3.0276555e10, 1e-12, np.nan, 0.05]),
            "fits": np.array([True, False, True, True])}
    names = ("hardware", "draft_hardware", "batch", "context", "flops", "fits")
    for rows, stem in ((None, "arrow"), (POLARS_FROM_ROWS, "polars")):
        with TableWriter(tmp_path / stem, names, "both", rows=rows) as w:
            w.write({"hardware": "h100-sxm", "draft_hardware": ""}, cols)
    for suffix, read in ((".csv", pd.read_csv), (".parquet", pd.read_parquet)):
        arrow, polars = read(tmp_path / f"arrow{suffix}"), read(tmp_path / f"polars{suffix}")
        pd.testing.assert_frame_equal(arrow, polars, check_categorical=False, check_dtype=suffix == ".csv")
    meta = pq.ParquetFile(tmp_path / "polars.parquet").metadata.row_group(0)
    assert meta.column(2).statistics.max == 3 and meta.column(4).statistics.max == pytest.approx(3.0276555e10)
    assert pq.ParquetFile(tmp_path / "arrow.parquet").metadata.row_group(0).column(2).statistics.max == 3
    field = pq.read_schema(tmp_path / "polars.parquet").field("hardware")
    assert pa.types.is_dictionary(field.type) and field.type.value_type in (pa.string(), pa.large_string())
    # a sweep of each writer combines with the other (qa122: 'Cannot merge ordered and unordered dictionary')
    both = pa.concat_tables([pq.read_table(tmp_path / "arrow.parquet"), pq.read_table(tmp_path / "polars.parquet")],
                            promote_options="permissive")
    assert both.num_rows == 8 and both.column("hardware").to_pylist() == ["h100-sxm"] * 8


@pytest.mark.slow
def test_a_parquet_file_polars_cannot_write_is_one_line_and_a_caller_error_is_not_masked(tmp_path):
    cols = {"batch": np.arange(10)}
    (tmp_path / "gone").mkdir()
    with pytest.raises(RooflineError, match=r"^r\.parquet: could not write Parquet: "):
        with TableWriter(tmp_path / "gone" / "r", ("batch",), "parquet", rows=POLARS_FROM_ROWS) as w:
            (tmp_path / "gone").rmdir()
            w.write({}, cols)
    with pytest.raises(KeyError, match="the sweep failed"):  # the sink is abandoned, the caller's error goes on
        with TableWriter(tmp_path / "r", ("batch",), "parquet", rows=POLARS_FROM_ROWS) as w:
            w.write({}, cols)
            raise KeyError("the sweep failed")


def test_a_failure_inside_a_staged_folder_leaves_nothing_behind(tmp_path):
    out = tmp_path / "o"
    with pytest.raises(RuntimeError), staged_dir(out, force=False) as tmp:
        (tmp / "half.csv").write_text("a,b\n")
        raise RuntimeError("the sweep failed half-way")
    assert list(tmp_path.iterdir()) == []


def test_an_existing_output_is_replaced_only_with_force(tmp_path):
    with staged_dir(tmp_path / "o", force=False) as tmp:
        (tmp / "old.csv").write_text("x")
    with pytest.raises(RooflineError, match="pass --force"), staged_dir(tmp_path / "o", force=False):
        pass
    with staged_dir(tmp_path / "o", force=True) as tmp:
        (tmp / "new.csv").write_text("y")
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == [MARKER, "new.csv"]
    write_text_atomic(tmp_path / "f.yaml", "a: 1\n", force=False)
    with pytest.raises(RooflineError, match="exists"):
        write_text_atomic(tmp_path / "f.yaml", "a: 2\n", force=False)


def test_force_never_replaces_a_folder_roofline_did_not_write(tmp_path):
    # a repository, the profile folder, anything the user keeps: --force replaced it whole, .git and profiles with it
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "a.py").write_text("mine")
    with pytest.raises(RooflineError, match=f"holds files roofline did not write \\(no {MARKER} in it: a folder of your own"):
        with staged_dir(repo, force=True):
            pass
    assert sorted(p.name for p in repo.iterdir()) == [".git", "a.py"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".repo")]  # no staging folder left
    with staged_dir(tmp_path / "empty", force=False):  # an empty folder, or a new one, is fine
        pass


def test_the_current_folder_or_one_above_it_is_never_an_output_folder(tmp_path, monkeypatch):
    here = tmp_path / "work"
    here.mkdir()
    (here / "notes.txt").write_text("mine")
    monkeypatch.chdir(here)
    for out in (".", "./", "..", str(here), str(tmp_path)):
        with pytest.raises(RooflineError, match=r"^--out: expected a folder to create or replace, found .*the current folder"):
            with staged_dir(Path(out), force=True):
                pass
    assert sorted(p.name for p in tmp_path.iterdir()) == ["work"] and (here / "notes.txt").read_text() == "mine"
    with staged_dir(Path("sub"), force=False) as tmp:  # a subfolder is fine
        (tmp / "r.csv").write_text("x")
    assert (here / "sub" / "r.csv").exists()


def test_the_progress_bar_is_one_line_redrawn_in_place_on_a_terminal_and_lines_in_a_log(capsys, monkeypatch):
    import sys

    from roofline.outputs import progress_done

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    progress_bar(5, 10, 1.25, "points")
    progress_done()
    err = capsys.readouterr().err
    assert err.startswith("\r[###############") and "5/10" in err and err.count("\n") == 1 and err.endswith("\n")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    progress_bar(5, 10, 1.25, "points")
    progress_bar(10, 10, 2.5, "points")
    progress_done()
    err = capsys.readouterr().err
    assert "\r" not in err and err.splitlines()[1].startswith("[" + "#" * 30 + "] 10/10  points  2.5 s") and err.count("\n") == 2


def test_write_csv_round_trips_a_frame_and_quotes_only_when_a_value_needs_it(tmp_path):
    from roofline.outputs import write_csv

    df = pd.DataFrame({"hardware": pd.Categorical(["h100-sxm", "l4"]), "step_time_s": [0.005340445257945567, np.nan],
                       "fits": [True, False], "batch": [1, 2]})
    write_csv(df, tmp_path / "plain.csv")
    assert (tmp_path / "plain.csv").read_text().splitlines()[1] == "h100-sxm,0.0053404453,true,1"
    back = pd.read_csv(tmp_path / "plain.csv")
    assert back["fits"].tolist() == [True, False] and back["step_time_s"].isna().tolist() == [False, True]
    write_csv(df.assign(hardware=["a, b", "c"]), tmp_path / "quoted.csv")
    assert pd.read_csv(tmp_path / "quoted.csv")["hardware"].tolist() == ["a, b", "c"]


def test_write_csv_exact_keeps_every_float64(tmp_path):
    from roofline.outputs import write_csv

    df = pd.DataFrame({"time_s": [0.005340445257945567, 2.575876909569798e-06], "bound": [False, True]})
    write_csv(df, tmp_path / "exact.csv", exact=True)
    back = pd.read_csv(tmp_path / "exact.csv")
    assert back["time_s"].tolist() == df["time_s"].tolist() and back["bound"].tolist() == [False, True]
    write_csv(df, tmp_path / "float32.csv")
    assert pd.read_csv(tmp_path / "float32.csv")["time_s"].tolist() != df["time_s"].tolist()


def test_an_output_folder_gets_the_mode_any_new_folder_gets_not_a_private_one(tmp_path):
    import os

    mask = os.umask(0o022)
    try:
        with staged_dir(tmp_path / "out", force=False) as tmp:
            (tmp / "a.txt").write_text("x")
        reference = tmp_path / "plain"
        reference.mkdir()
        assert (tmp_path / "out").stat().st_mode & 0o777 == reference.stat().st_mode & 0o777 == 0o755  # mkdtemp: 0o700
    finally:
        os.umask(mask)


def test_force_never_deletes_a_file_roofline_did_not_write_into_its_output_folder(tmp_path):
    """A scenario kept beside its results (`sweep run1/mine.yaml --out run1 --force`) was deleted with the folder: the
    marker said the folder was an output, not which files in it were roofline's."""
    out = tmp_path / "run1"
    with staged_dir(out, force=False) as tmp:
        (tmp / "results.csv").write_text("a\n1\n")
        (tmp / "sub").mkdir()
        (tmp / "sub" / "fig.png").write_bytes(b"x")
    assert (out / MARKER).read_text().splitlines()[-2:] == ["  results.csv", "  sub/fig.png"]
    (out / "mine.yaml").write_text("name: mine\n")
    with pytest.raises(RooflineError, match=r"run1 holds files roofline did not write there \(mine.yaml\), which --force would delete"):
        with staged_dir(out, force=True) as tmp:
            (tmp / "results.csv").write_text("a\n2\n")
    assert (out / "mine.yaml").read_text() == "name: mine\n" and (out / "results.csv").read_text() == "a\n1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run1"]  # nothing staged left beside it
    (out / "mine.yaml").unlink()
    with staged_dir(out, force=True) as tmp:  # only its own files: replaced whole
        (tmp / "results.csv").write_text("a\n2\n")
    assert (out / "results.csv").read_text() == "a\n2\n" and not (out / "sub").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run1"]  # the earlier output, set aside, is gone


def test_an_output_folder_named_by_a_symbolic_link_or_written_meanwhile_is_not_replaced_unasked(tmp_path):
    """A symlink --out was replaced by a real folder without --force; a second run writing the same --out while the
    first ran replaced the first's output without --force."""
    (tmp_path / "target").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "target")
    with pytest.raises(RooflineError, match=r"link is a symbolic link: name the folder itself"):
        with staged_dir(tmp_path / "link", force=True):
            pass
    assert (tmp_path / "link").is_symlink()
    out = tmp_path / "same"
    with pytest.raises(RooflineError, match=r"same exists and is not empty; pass --force to replace it"):
        with staged_dir(out, force=False) as tmp:
            (tmp / "mine.csv").write_text("first\n")
            with staged_dir(out, force=False) as other:  # another run finishes first
                (other / "theirs.csv").write_text("second\n")
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "theirs.csv"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "same", "target"]


def test_nothing_lands_in_a_built_in_profile_folder_unasked():
    """`sweep --out hardware_profiles/x.yaml` made a folder there and `hw list` failed on it; `hw new --dir
    hardware_profiles` and `measurements convert --out engine_profiles/rows.yaml` wrote new files there without --force."""
    import shutil

    from roofline.profiles import builtin_dir

    folder, target = builtin_dir("hardware") / "x.yaml", builtin_dir("engine") / "rows.yaml"
    try:
        with pytest.raises(RooflineError, match=r"x.yaml is inside the built-in profile folder .*hardware_profiles"):
            with staged_dir(folder, force=True):
                pass
        assert not folder.exists()
        with pytest.raises(RooflineError, match=r"is in the built-in folder .*engine_profiles, where a new file becomes a built-in"):
            write_text_atomic(target, "source,row\n")
        assert not target.exists() and not list(builtin_dir("engine").glob(".rows.yaml.*"))
    finally:  # a broken guard's file taken away, not left to fail later runs (qa474: engine_profiles/rows.yaml stayed)
        shutil.rmtree(folder, ignore_errors=True) if folder.is_dir() else folder.unlink(missing_ok=True)
        target.unlink(missing_ok=True)


def test_a_failed_output_removes_the_folders_it_made_and_a_written_file_follows_the_umask(tmp_path):
    """`sweep no-such --out deep/er/path` left deep/er behind; `hw new` files were 0644 under umask 077."""
    import os

    with pytest.raises(RooflineError, match="boom"), staged_dir(tmp_path / "deep" / "er" / "path", force=False):
        raise RooflineError("boom")
    assert list(tmp_path.iterdir()) == []
    old = os.umask(0o077)
    try:
        write_text_atomic(tmp_path / "f.yaml", "a: 1\n")
    finally:
        os.umask(old)
    assert (tmp_path / "f.yaml").stat().st_mode & 0o777 == 0o600


def test_force_keeps_a_users_empty_folder_and_nested_marker_and_a_raced_run_leaves_one_line_and_nothing_aside(tmp_path, monkeypatch):
    """A user's `sub/.roofline-output` and empty folders were deleted with the output; two --force runs finishing at
    once left a traceback and a hidden `.o.old.*` copy of a whole output."""
    out = tmp_path / "o"
    with staged_dir(out, force=False) as tmp:
        (tmp / "a.csv").write_text("1\n")
    (out / "keep").mkdir()
    with pytest.raises(RooflineError, match=r"holds files roofline did not write there \(keep/\)"):
        with staged_dir(out, force=True):
            pass
    (out / "keep").rmdir()
    (out / "sub").mkdir()
    (out / "sub" / MARKER).write_text("my own notes\n")
    with pytest.raises(RooflineError, match=r"holds files roofline did not write there \(sub/.roofline-output\)"):
        with staged_dir(out, force=True):
            pass
    import shutil

    shutil.rmtree(out / "sub")
    import roofline.outputs as outputs

    real = outputs.check_writable

    def another_run_lands(target, force):  # the other run's output arrives just before this one's swap
        real(target, force)
        if target == out and not getattr(another_run_lands, "done", False):
            another_run_lands.done = True
            with staged_dir(out, force=True) as other:
                (other / "theirs.csv").write_text("2\n")

    with staged_dir(out, force=True) as tmp:
        (tmp / "mine.csv").write_text("3\n")
        monkeypatch.setattr(outputs, "check_writable", another_run_lands)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o"]  # nothing staged or set aside left
    assert (out / "mine.csv").is_file() or (out / "theirs.csv").is_file()


def test_an_out_path_through_a_link_and_up_goes_where_the_system_says(tmp_path, monkeypatch):
    """`--out lnk/../o1` was normalised to ./o1, where the system puts it beside the link's target."""
    (tmp_path / "elsewhere" / "deep").mkdir(parents=True)
    (tmp_path / "lnk").symlink_to(tmp_path / "elsewhere" / "deep")
    monkeypatch.chdir(tmp_path)
    with staged_dir(Path("lnk/../o1"), force=False) as tmp:
        (tmp / "a.csv").write_text("1\n")
    assert (tmp_path / "elsewhere" / "o1" / "a.csv").is_file() and not (tmp_path / "o1").exists()


def test_a_staging_folder_a_killed_run_left_is_said_where_it_is(tmp_path):
    """A sweep killed with SIGKILL left .out.fsib1cdy/ (306 MB) beside out/, which no later run mentioned."""
    import os
    import time
    import warnings

    from roofline.outputs import staged_dir

    left = tmp_path / ".out.fsib1cdy"
    left.mkdir()
    (left / "results.csv").write_text("x\n" * 10)
    old = time.time() - 3600
    os.utime(left / "results.csv", (old, old))
    os.utime(left, (old, old))
    busy = tmp_path / ".out.abcd1234"  # a run at work beside this one, appending to an old folder's file: not said
    busy.mkdir()
    (busy / "results.parquet").write_text("x")
    os.utime(busy, (old, old))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with staged_dir(tmp_path / "out", force=False) as folder:
            (folder / "a.txt").write_text("a")
    said = [str(w.message) for w in caught]
    assert len(said) == 1 and ".out.fsib1cdy (0 MB, untouched for 60 minutes) is a staging folder a run writing" in said[0]
    assert left.is_dir() and "remove it if no run is writing" in said[0]


@pytest.mark.slow
def test_a_sweep_of_profiles_named_with_a_comma_or_null_writes_and_reads_back_its_csv(roofline, tmp_path):
    """qa122: a hardware profile named 'gpu,x' crashed the CSV writer (a traceback from Arrow, bare quoting); one
    named 'null' wrote a CSV that plot and cheapest read back as 'hardware: expected a name, found nothing'."""
    from roofline.plot_jobs import _read_table
    from roofline.profiles import builtin_dir

    text = (builtin_dir("hardware") / "h100-sxm.yaml").read_text()
    for name in ("gpu,x", "null"):
        (tmp_path / f"{name}.yaml").write_text(text.replace("name: h100-sxm", f'name: "{name}"', 1))
    (tmp_path / "s.yaml").write_text('name: s\nhardware: ["gpu,x", "null", h200]\nmodel: llama-3.1-8b\n'
                                     "axes:\n  batch: [1, 8]\n  context: [1024]\n")
    code, _, err = roofline("--profiles", tmp_path, "sweep", tmp_path / "s.yaml", "--out", tmp_path / "out", "--no-plots")
    assert code == 0, err
    csv, parquet = _read_table(tmp_path / "out" / "results.csv"), pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert list(csv["hardware"]) == list(parquet["hardware"].astype(str)) == ["gpu,x"] * 2 + ["null"] * 2 + ["h200"] * 2
    code, _, err = roofline("cheapest", tmp_path / "out" / "results.csv")
    assert code == 0, err
    # and operators.csv too: `plot` drew no roofline figure for a profile named null (qa124)
    code, _, err = roofline("plot", tmp_path / "out", "--out", tmp_path / "re", "--where", "hardware=null")
    assert code == 0 and "not drawn: roofline" not in err and (tmp_path / "re" / "roofline.png").is_file(), err


@pytest.mark.slow
def test_a_sweep_written_by_polars_keeps_its_labels_unordered_as_arrows(tmp_path, monkeypatch):
    """qa122: a sweep of 50,000 points or more wrote its labels as polars' Enum, an ordered dictionary, which did not
    concatenate with a smaller sweep's (Arrow's, unordered) in pyarrow or polars."""
    from roofline.grid import load_configs, write_sweep
    from roofline.scenario import load_scenario

    monkeypatch.setattr("roofline.outputs.POLARS_FROM_ROWS", 1)  # this small sweep through polars' writers
    sc = load_scenario("eagle-on-hopper")
    (tmp_path / "big").mkdir()
    (tmp_path / "small").mkdir()
    write_sweep(sc, load_configs(sc), tmp_path / "big", plots=False, fmt="parquet")
    monkeypatch.setattr("roofline.outputs.POLARS_FROM_ROWS", 10 ** 9)
    write_sweep(sc, load_configs(sc), tmp_path / "small", plots=False, fmt="parquet")
    tables = [pq.read_table(tmp_path / name / "results.parquet") for name in ("big", "small")]
    assert not any(t.schema.field("hardware").type.ordered for t in tables)
    assert pa.concat_tables(tables, promote_options="permissive").num_rows == 2 * tables[0].num_rows


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGHUP"), reason="POSIX signals")
def test_a_sigterm_while_the_staging_folder_is_made_lands_after_its_name_is_kept():
    """Session 39: a SIGTERM that landed inside mkdtemp, after its mkdir and before `tmp` was set, left the staging
    folder behind (test_launch's SIGTERM test, on a loaded machine); the handler now defers inside signals_held, so the
    signal is raised when the block ends, whatever thread it reached (qa183: a signal mask held it on one thread only)."""
    import os
    import signal
    import threading

    from roofline.launch import Terminated, signals_held, stop_on_sigterm

    previous = {n: signal.getsignal(n) for n in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)}
    stop_on_sigterm()
    waiting = threading.Event()
    helper = threading.Thread(target=waiting.wait, daemon=True)  # another thread alive, as in a sweep
    helper.start()
    kept = None
    try:
        with pytest.raises(Terminated) as stopped:
            with signals_held():
                os.kill(os.getpid(), signal.SIGTERM)  # deferred until the block ends
                for _ in range(1000):  # bytecode boundaries at which an undeferred handler would run
                    pass
                kept = "assigned"
        assert stopped.value.code == 128 + signal.SIGTERM
    finally:
        waiting.set()
        for number, handler in previous.items():
            signal.signal(number, handler)
    assert kept == "assigned"


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGHUP"), reason="POSIX signals")
def test_ctrl_c_inside_signals_held_is_raised_as_keyboard_interrupt_when_the_block_ends():
    """Ctrl-C was not held (session 39's leftover): a KeyboardInterrupt inside mkdtemp left its folder as SIGTERM did.
    Now stop_on_sigterm's handler takes SIGINT too and defers it inside signals_held; outside, Ctrl-C raises at once."""
    import os
    import signal

    from roofline.launch import signals_held, stop_on_sigterm

    previous = {n: signal.getsignal(n) for n in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    stop_on_sigterm()
    kept = None
    try:
        with pytest.raises(KeyboardInterrupt):
            with signals_held():
                os.kill(os.getpid(), signal.SIGINT)
                for _ in range(1000):
                    pass
                kept = "assigned"
        assert kept == "assigned"
        with pytest.raises(KeyboardInterrupt):  # outside the block: at once
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):
                pass
            kept = "not reached"
        assert kept == "assigned"
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def test_force_does_not_replace_another_commands_output_with_a_report_or_an_accuracy_table(tmp_path, roofline):
    """qa246: `report --out SWEEP_FOLDER --force` removed the sweep's results, `accuracy --out REPORT --force` the report,
    where `plot` refuses the same."""
    code, _, _ = roofline("sweep", "flops-vs-time", "--no-plots", "--out", tmp_path / "sw")
    assert code == 0
    code, _, err = roofline("report", "flops-vs-time", "--out", tmp_path / "sw", "--force")
    assert code == 2 and "holds a sweep's output (results.csv, results.parquet)" in err, err
    assert (tmp_path / "sw" / "results.csv").is_file()
    code, _, _ = roofline("sweep", "flops-vs-time", "--no-plots", "--out", tmp_path / "sw", "--force")  # its own kind
    assert code == 0


@pytest.mark.slow
def test_plot_does_not_replace_a_report_nor_a_report_a_folder_of_plots(tmp_path, roofline):
    """qa301: `plot SWEEP --out REPORT --force` replaced a report's folder with the sweep's figures (sweep and accuracy
    refuse it), and `report --out PLOTS --force` a folder of figures, which holds no file that names its kind: each
    output's marker now records its command, and a folder of another kind is refused whole, its files kept."""
    assert roofline("sweep", "flops-vs-time", "--no-plots", "--out", tmp_path / "sw")[0] == 0
    assert roofline("report", "flops-vs-time", "--out", tmp_path / "rep")[0] == 0
    code, _, err = roofline("plot", tmp_path / "sw", "--out", tmp_path / "rep", "--force")
    assert code == 2 and "holds a report's output (report.md)" in err and (tmp_path / "rep" / "report.md").is_file()
    assert roofline("plot", tmp_path / "sw", "--out", tmp_path / "pl")[0] == 0
    before = sorted(p.name for p in (tmp_path / "pl").iterdir())
    for command in (("report", "flops-vs-time"), ("accuracy",)):
        code, _, err = roofline(*command, "--out", tmp_path / "pl", "--force")
        assert code == 2 and "holds a plot's output (its .roofline-output says so)" in err, err
        assert sorted(p.name for p in (tmp_path / "pl").iterdir()) == before
    assert roofline("plot", tmp_path / "sw", "--out", tmp_path / "pl", "--force")[0] == 0  # its own kind
    marker = tmp_path / "pl" / ".roofline-output"  # written before markers named their command: figures alone (qa304)
    marker.write_text("".join(line for line in marker.read_text().splitlines(keepends=True) if not line.startswith("kind:")))
    code, _, err = roofline("report", "flops-vs-time", "--out", tmp_path / "pl", "--force")
    assert code == 2 and "holds a plot's output (its .roofline-output lists standard figures alone)" in err, err
    assert roofline("sweep", "flops-vs-time", "--no-plots", "--out", tmp_path / "pl", "--force")[0] == 0  # a sweep draws
    # the same figures (test_cli's plot test replaces a plot folder so)
    assert roofline("plot", tmp_path / "sw", "--force")[0] == 0  # into the sweep's own folder: still the sweep's
    code, _, err = roofline("report", "flops-vs-time", "--out", tmp_path / "sw", "--force")
    assert code == 2 and "holds a sweep's output" in err


@pytest.mark.slow
@pytest.mark.parametrize("command", ["sweep", "report"])
def test_a_bad_scenario_is_said_before_an_output_folder_that_exists(roofline, tmp_path, command):
    """qa283, qa284: `sweep bad.yaml --out DIR` (and `report`) over an existing folder said '--out DIR exists ... pass
    --force', and the scenario's own fault only once --force was given."""
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "x").write_text("")
    (tmp_path / "bad.yaml").write_text("name: bad\nhardware: h100-sxm\nmodel: llama-3.1-8b\nlayouts: [{tp: 2}, {dp: 8}]\n"
                                       "axes: {batch: [1], context: [512]}\n")
    code, _, err = roofline(command, tmp_path / "bad.yaml", "--out", tmp_path / "out")
    assert code == 2 and "line 4: layouts[1].dp: expected one of tp, dp_attention, ep, pp" in err, err
    assert "--force" not in err and err.count("\n") == 1, err


@pytest.mark.slow
def test_a_marker_without_its_files_list_or_with_an_unknown_kind_is_never_replaced(tmp_path, roofline):
    """qa307: a marker without a `files:` list (garbage, emptied) let --force delete a user's thesis.tex beside it; an
    empty or unknown `kind:` let a report replace plot's figures; and a plot folder's first refusal said 'pass --force',
    which was then refused too."""
    for name, marker, command in (("garbage", "garbage\n", ("report", "prefill-not-sped-up")),
                                  ("no-list", "Written by roofline: x\nkind: plot\n", ("sweep", "flops-vs-time"))):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "thesis.tex").write_text("precious")
        (folder / ".roofline-output").write_text(marker)
        code, _, err = roofline(*command, "--out", folder, "--force")
        assert code == 2 and "without the list of the files roofline wrote" in err, err
        assert (folder / "thesis.tex").read_text() == "precious"
    assert roofline("sweep", "flops-vs-time", "--no-plots", "--out", tmp_path / "sw")[0] == 0
    assert roofline("plot", tmp_path / "sw", "--out", tmp_path / "pl")[0] == 0
    marker = tmp_path / "pl" / ".roofline-output"
    for kind in ("", "banana"):
        marker.write_text(marker.read_text().replace(marker.read_text().split("kind:")[1].split("\n")[0], f" {kind}"))
        code, _, err = roofline("report", "prefill-not-sped-up", "--out", tmp_path / "pl", "--force")
        assert code == 2 and f"naming the output of no roofline command ({kind!r}" in err, err
    marker.write_text(marker.read_text().replace("kind: banana", "kind: plot"))
    code, _, err = roofline("report", "prefill-not-sped-up", "--out", tmp_path / "pl")  # without --force: the same answer
    assert code == 2 and "holds a plot's output" in err and "pass --force" not in err, err
    (tmp_path / "sw" / "thesis.tex").write_text("mine")  # a user's file in a folder of the same kind (qa308): said first
    code, _, err = roofline("sweep", "flops-vs-time", "--no-plots", "--out", tmp_path / "sw")
    assert code == 2 and "holds files roofline did not write there (thesis.tex)" in err and "pass --force" not in err, err
    notes = tmp_path / "notes"  # a folder of the user's, no marker: theirs, not 'a report's output' (qa308)
    notes.mkdir()
    (notes / "report.md").write_text("# my notes")
    code, _, err = roofline("sweep", "flops-vs-time", "--no-plots", "--out", notes, "--force")
    assert code == 2 and "holds files roofline did not write (no .roofline-output" in err, err
