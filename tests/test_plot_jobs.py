"""Tests for roofline.plot_jobs: the standard jobs are checked and ordered, the module keeps matplotlib out of the
calling process, and a FigurePool draws jobs in job order in its workers or, with one worker, in the caller."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from roofline import plot_jobs
from roofline.errors import RooflineError
from roofline.grid import load_configs, operator_table, run_sweep
from roofline.plot_jobs import PLOT_NAMES, FigurePool, report_job, standard_jobs
from roofline.scenario import scenario_from_dict

SMALL = {"name": "jobs-test", "hardware": "h100-sxm", "model": "llama-3.2-1b", "method": "eagle",
         "axes": {"batch": [1, 16], "context": [512], "k": [1, 2], "alpha": [0.7]}}


@pytest.mark.slow  # a fresh interpreter importing numpy and pandas: most of a second here
def test_importing_plot_jobs_leaves_matplotlib_unimported():
    code = "import sys, roofline.plot_jobs, roofline.grid, roofline.report; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.slow
def test_the_cli_starts_its_figure_pool_before_pandas_is_imported():
    # what `roofline sweep` and `roofline report` import before they fork the figure workers; then the public API,
    # imported on first use
    code = ("import sys, cli, roofline.plot_jobs, roofline.outputs; print('pandas' in sys.modules, 'numpy' in sys.modules); "
            "import roofline; print(roofline.predict.__module__, 'pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "roofline.api", "True"]


@pytest.mark.slow
def test_standard_jobs_are_the_six_plots_in_order_and_a_bad_table_is_one_line(tmp_path):
    sc = scenario_from_dict(SMALL)
    pairs = load_configs(sc)
    df, ops = run_sweep(sc, pairs), operator_table(sc, pairs)
    jobs = standard_jobs(df, ops, {"method": "eagle"}, tmp_path / "plots")
    assert [job[0] for job in jobs] == list(PLOT_NAMES) and all(job[4].parent == tmp_path / "plots" for job in jobs)
    assert standard_jobs(df.iloc[:0], ops, {}, tmp_path) == []
    with pytest.raises(RooflineError, match="results table: expected a sweep results table with column"):
        standard_jobs(df.drop(columns=["speedup"]), ops, {}, tmp_path)
    with pytest.raises(RooflineError, match="formats: expected some of png, svg, found pdf"):
        standard_jobs(df, ops, {}, tmp_path, formats=("pdf",))


@pytest.mark.slow
def test_standard_jobs_keep_the_operators_context_for_the_roofline_title(tmp_path):
    sc = scenario_from_dict({**SMALL, "axes": {**SMALL["axes"], "context": [8192, 1024]}})
    pairs = load_configs(sc)
    df, ops = run_sweep(sc, pairs), operator_table(sc, pairs)
    (roof,) = [job for job in standard_jobs(df, ops, {"method": "eagle"}, tmp_path) if job[0] == "roofline"]
    assert roof[2]["context"].unique().tolist() == [1024]  # the operators table's one context, kept for the title
    older = ops.drop(columns=["context"])  # a table written before the column existed still makes its jobs
    (roof,) = [job for job in standard_jobs(df, older, {"method": "eagle"}, tmp_path) if job[0] == "roofline"]
    assert "context" not in roof[2].columns


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_a_pool_draws_every_job_in_job_order(tmp_path, workers):
    sc = scenario_from_dict(SMALL)
    pairs = load_configs(sc)
    df, ops = run_sweep(sc, pairs), operator_table(sc, pairs)
    df = df.assign(hardware=df["hardware"].astype(str), model=df["model"].astype(str))
    jobs = [report_job("no-such-question", df, ops, {}, tmp_path / "generic"), *standard_jobs(df, ops, {"method": "eagle"}, tmp_path)]
    with FigurePool(len(jobs), workers) as pool:
        drawn = pool.draw(jobs)
    assert [paths[0].name if paths else None for paths in drawn][:3] == ["generic.png", "roofline.png", "step_time_vs_tokens.png"]
    assert all(p.stat().st_size > 10_000 for paths in drawn for p in paths)


def _draw_or_die(job):
    if job[0] == "die":
        os._exit(3)  # a drawer killed mid-job (out of memory, a signal)
    if job[0] == "fail":
        raise RooflineError("fail: expected a figure this table supports")
    return [job[4]]


@pytest.mark.slow
def test_a_pool_reports_a_failed_job_and_a_dead_worker_instead_of_waiting(tmp_path, monkeypatch):
    monkeypatch.setattr(plot_jobs, "_draw", _draw_or_die)  # the pool forks, so its workers see the stand-in
    ok = ("ok", None, None, {}, tmp_path / "ok", ("png",))
    with FigurePool(3, workers=2) as pool:
        assert pool.draw([ok, ok]) == [[tmp_path / "ok"]] * 2
        with pytest.raises(RooflineError, match="fail: expected a figure"):
            pool.draw([ok, ("fail", *ok[1:])])
    with FigurePool(3, workers=2) as pool:
        with pytest.raises(RooflineError, match="figure worker roofline-drawer-[01]: ended with exit code 3"):
            pool.draw([("die", *ok[1:]), ok, ok])


def _slow_draw(job):
    import time

    time.sleep(0.3)
    job[4].write_text("drawn")
    return [job[4]]


@pytest.mark.slow
def test_a_failing_caller_leaves_the_queued_jobs_undrawn(tmp_path, monkeypatch):
    import time

    monkeypatch.setattr(plot_jobs, "_draw", _slow_draw)
    with pytest.raises(RuntimeError, match="the caller failed"), FigurePool(20, workers=2) as pool:
        for i in range(20):
            pool.submit((f"job{i}", None, None, {}, tmp_path / f"j{i}", ("png",)))
        time.sleep(1.0)  # 20 jobs of 0.3 s on 2 drawers need 3 s: most are still queued
        raise RuntimeError("the caller failed")
    assert len(list(tmp_path.iterdir())) < 20  # the pool has closed, the queued jobs taken back undrawn


@pytest.mark.slow
def test_a_caller_failing_before_any_job_ends_the_seed_without_waiting_for_its_imports():
    import signal

    with pytest.raises(RooflineError, match="a bad scenario"), FigurePool(6, workers=2) as pool:
        seed = pool._seed
        raise RooflineError("a bad scenario")
    assert seed.exitcode == -signal.SIGTERM  # ended, not joined after its matplotlib import


@pytest.mark.slow
def test_standard_jobs_keep_the_device_count_and_plain_decodings_cap_and_key_a_drafter_on_the_target_as_empty(tmp_path):
    import io

    import pandas as pd

    sc = scenario_from_dict({**SMALL, "method": "draft", "draft": "llama-3.2-1b", "draft_hardware": [None, "l4"]})
    pairs = load_configs(sc)
    df = pd.read_csv(io.StringIO(run_sweep(sc, pairs).to_csv(index=False)))  # as read back from results.csv
    assert df["draft_hardware"].isna().any()
    (job, *_) = standard_jobs(df, operator_table(sc, pairs), {"method": "draft"}, tmp_path)
    table = job[1]
    assert {"devices", "baseline_max_batch"} <= set(table.columns)
    assert sorted(table["draft_hardware"].unique()) == ["", "l4"]  # NaN != NaN would split no panel by it


@pytest.mark.slow  # draws five figures
def test_a_standard_plot_the_table_cannot_support_is_named_with_what_it_needs(roofline, tmp_path):
    from roofline.plot_jobs import PLOT_NAMES, PLOT_NEEDS, not_drawn

    assert tuple(PLOT_NEEDS) == PLOT_NAMES and not_drawn([f"x/{n}.png" for n in PLOT_NAMES]) == ""
    drawn = [f"x/{n}.png" for n in PLOT_NAMES if n != "speedup_vs_context"]  # a figure against the context is missed
    assert not_drawn(drawn) == "" and "speedup_vs_context (needs a speculative method with k > 0, two contexts" in (
        not_drawn(drawn, contexts=True))  # only where the table sweeps two contexts or more
    code, out, _ = roofline("sweep", "flops-vs-time", "--out", tmp_path / "fvt")  # one batch size: no step-time curve
    assert code == 0 and out.rstrip().splitlines()[-1] == (
        "not drawn: step_time_vs_tokens (needs two batch sizes); throughput_vs_batch (needs two batch sizes and a point "
        "that fits in memory); pareto (needs two batch sizes and a point that fits in memory); best_k_vs_batch (needs a "
        "speculative method (not a tree), two k values, two batch sizes and a point that fits in memory)")


@pytest.mark.slow  # two sweeps and a redraw
def test_a_request_sweep_draws_or_names_its_serving_figure_from_sweep_and_plot(roofline, tmp_path):
    """A scenario with a request draws serving_vs_batch; one batch says it was not drawn and why; `plot` of the table
    (Parquet or CSV: the header tells a request) draws it again, and `plot` of a table without one never names it."""
    text = "name: s\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\nprompt: 512\noutput_len: 128\naxes:\n  k: [2, 3]\n"
    (tmp_path / "one.yaml").write_text(text + "  batch: [8]\n")
    code, out, err = roofline("sweep", tmp_path / "one.yaml", "--out", tmp_path / "one")
    said = "serving_vs_batch (needs two batch sizes and a point that fits in memory (and a request's serving_* columns))"
    assert code == 0 and said in out.splitlines()[-1], out + err
    code, out, err = roofline("plot", tmp_path / "one" / "results.parquet", "--out", tmp_path / "re-one")  # its header
    assert code == 0 and said in out.splitlines()[-1], out + err
    (tmp_path / "two.yaml").write_text(text + "  batch: [1, 16]\n")
    code, out, err = roofline("sweep", tmp_path / "two.yaml", "--out", tmp_path / "two")
    assert code == 0 and f"{tmp_path / 'two' / 'serving_vs_batch.png'}" in out and "not drawn" not in out, out + err
    import pandas as pd

    from roofline.plot_jobs import _derived_meta

    derived = _derived_meta(pd.read_csv(tmp_path / "two" / "results.csv"), tmp_path / "bare")  # no scenario.json: the
    assert derived["serving_columns"] is True and derived["axes"] == {"batch": [1, 16]}  # columns still say a request
    for table in ("results.parquet", "results.csv"):
        code, out, err = roofline("plot", tmp_path / "two" / table, "--out", tmp_path / f"re-{table}")
        assert code == 0 and (tmp_path / f"re-{table}" / "serving_vs_batch.png").is_file() and "not drawn" not in out, out + err
    (tmp_path / "plain.yaml").write_text(text.replace("prompt: 512\noutput_len: 128\n", "") + "  batch: [1, 16]\n")
    code, out, err = roofline("sweep", tmp_path / "plain.yaml", "--out", tmp_path / "plain")
    assert code == 0 and "serving_vs_batch" not in out + err and not (tmp_path / "plain" / "serving_vs_batch.png").exists()
    code, out, err = roofline("plot", tmp_path / "plain" / "results.parquet", "--out", tmp_path / "re-plain")
    assert code == 0 and "serving_vs_batch" not in out + err, out + err


@pytest.mark.slow
def test_plot_into_the_tables_own_folder_replaces_its_figures_only_once_all_are_drawn(roofline, tmp_path, monkeypatch):
    """`plot DIR --force` drew into the folder itself: a failure halfway left new and old figures mixed."""
    code, _, err = roofline("sweep", "eagle-on-hopper", "--out", tmp_path / "sw", "--no-plots")
    assert code == 0, err
    folder = tmp_path / "sw"
    (folder / "roofline.png").write_bytes(b"the earlier figure")

    def half_then_fail(df, ops, meta, out_dir, formats=("png",), workers=None, pool=None):
        (out_dir / "roofline.png").write_bytes(b"new")
        raise RooflineError("a figure failed")

    monkeypatch.setattr(plot_jobs, "standard_plots", half_then_fail)
    with pytest.raises(RooflineError, match="a figure failed"):
        plot_jobs.plot_from_table(folder, None, force=True)
    assert (folder / "roofline.png").read_bytes() == b"the earlier figure"
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".plots-")) == []


@pytest.mark.slow
def test_plot_force_into_the_own_folder_removes_figures_it_no_longer_draws_and_marks_the_new_ones(roofline, tmp_path):
    """An SVG of an earlier run, or a figure the table no longer makes, stayed beside the new figures and looked
    current; the new figures must be the folder's own (its marker lists them), so a later --force may replace it."""
    from roofline.outputs import MARKER, listed_files

    folder = tmp_path / "sw"
    code, _, err = roofline("sweep", "eagle-on-hopper", "--out", folder, "--svg")
    assert code == 0, err
    svgs = sorted(p.name for p in folder.glob("*.svg"))
    assert svgs
    code, _, err = roofline("plot", folder, "--force")  # PNG only now
    assert code == 0, err
    assert not list(folder.glob("*.svg")) and (folder / "speedup_heatmap.png").is_file()
    assert {p.name for p in folder.glob("*.png")} <= listed_files(folder) and (folder / MARKER).is_file()
    code, _, err = roofline("sweep", "eagle-on-hopper", "--out", folder, "--force", "--no-plots")
    assert code == 0, err  # every file in it roofline's: replaced


def test_a_results_table_with_text_in_a_number_column_is_one_line(tmp_path):
    import pandas as pd

    df = pd.DataFrame({c: [1.0, 2.0] for c in plot_jobs.REQUIRED_COLUMNS})
    df["hardware"], df["model"], df["method"] = "h100-sxm", "llama-3.1-8b", "eagle"
    df["step_time_s"] = ["0.01", "abc"]
    with pytest.raises(RooflineError, match=r"^t.csv: step_time_s: expected numbers, found 'abc' \(line 3\)$"):
        plot_jobs.check_numeric(df, plot_jobs.NUMERIC_COLUMNS, "t.csv")


@pytest.mark.slow
def test_plot_where_draws_the_rows_asked_for_and_names_a_condition_no_row_meets(roofline, tmp_path, monkeypatch):
    """A sweep's figures keep the first TP / context that fits; --where draws another subset, titled by what it holds."""
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: s\nhardware: h100\nmodel: llama-3.1-70b\nmethod: eagle\nalpha: 0.8\ntp: [4, 8]\n"
                        "axes:\n  batch: [1, 8]\n  context: [2048, 8192]\n  k: [2]\n  alpha: [0.8]\n".replace("alpha: 0.8\n", ""))
    code, _, err = roofline("sweep", scenario, "--out", tmp_path / "sw", "--no-plots")
    assert code == 0, err
    seen = {}
    monkeypatch.setattr(plot_jobs, "standard_plots",
                        lambda df, ops, meta, out_dir, formats=("png",), workers=None, pool=None: seen.update(df=df, ops=ops, meta=meta) or [])
    plot_jobs.plot_from_table(tmp_path / "sw", tmp_path / "o", where=("tp=8",))
    assert set(seen["ops"]["tp"]) == {8}  # the roofline figure's operators are the selection's too (they were every TP's)
    plot_jobs.plot_from_table(tmp_path / "sw", tmp_path / "p", where=("tp=8", "context=8192"))
    assert set(seen["df"]["tp"]) == {8} and set(seen["df"]["context"]) == {8192}
    assert seen["ops"] is None  # the operator table holds the first context only: no roofline figure, not a wrong one
    assert seen["meta"]["tp"] == [8] and seen["meta"]["axes"]["context"] == [8192]  # the titles' setup line
    with pytest.raises(RooflineError, match=r"--where tp=3: expected a value tp takes in .*found '3', which no row has \(values: 4, 8\)"):
        plot_jobs.plot_from_table(tmp_path / "sw", tmp_path / "q", where=("tp=3",))
    plot_jobs.plot_from_table(tmp_path / "sw", tmp_path / "r", where=("draft_hardware=",))  # an empty cell: the drafter on the target
    assert set(seen["df"]["draft_hardware"].fillna("").astype(str)) == {""}
    with pytest.raises(RooflineError, match=r"--where context=2048: .* once --where tp=8 --where context=8192 is applied"):
        plot_jobs.plot_from_table(tmp_path / "sw", tmp_path / "s", where=("tp=8", "context=8192", "context=2048"))
    with pytest.raises(RooflineError, match=r"--where: expected COLUMN=VALUE with a column of"):
        plot_jobs.plot_from_table(tmp_path / "sw", tmp_path / "q", where=("tpx=3",))


def test_where_on_a_column_the_table_lacks_names_the_one_meant():
    """qa428: `--where gpu=mi300x` said the column was not one of the table's, not which one was meant."""
    import pandas as pd

    from roofline.plot_jobs import select_rows

    df = pd.DataFrame({"hardware": ["mi300x", "h200"], "batch": [1, 8], "context": [1024, 1024]})
    for condition, meant in (("gpu=mi300x", "hardware"), ("hardwre=h200", "hardware"), ("concurrency=8", "batch")):
        with pytest.raises(RooflineError, match=re.escape(f"found {condition!r} (did you mean {meant}?)") + "$"):
            select_rows(df, (condition,), "t.csv")
    with pytest.raises(RooflineError, match=r"found 'zzz=1'$"):
        select_rows(df, ("zzz=1",), "t.csv")
    df = df.assign(devices=[8, 8], weight_dtype=["bf16", "fp8"], tp=[8, 8])  # qa430's mutants and synonyms
    for condition, meant in (("GPU=mi300x", "hardware"), ("gpus=8", "devices"), ("atch=8", "batch"), ("dtype=fp8", "weight_dtype"),
                             ("draft_length=2", None), ("tensor_parallel=8", "tp")):
        said = f" (did you mean {meant}?)" if meant else ""
        if meant is None:  # k is not a column here: no hint, not the spelling's nearest
            with pytest.raises(RooflineError, match=re.escape(f"found {condition!r}") + "$"):
                select_rows(df, (condition,), "t.csv")
            continue
        with pytest.raises(RooflineError, match=re.escape(f"found {condition!r}{said}") + "$"):
            select_rows(df, (condition,), "t.csv")
    for condition in ("hw=h200", "hardware"):  # too unlike; no '=': no hint
        with pytest.raises(RooflineError, match=re.escape(f"found {condition!r}") + "$"):
            select_rows(df, (condition,), "t.csv")
    with pytest.raises(RooflineError, match=r"found 'gpu=mi300x'$"):  # a synonym only for a column the table has
        select_rows(df[["batch", "context"]], ("gpu=mi300x",), "t.csv")


def test_where_on_a_text_column_with_blank_cells_is_one_line_not_a_type_error():
    """A CSV's blank draft_hardware cells read as NaN: --where draft_hardware=l40s raised TypeError, and a column of
    nothing at all read as numbers ('expected a number for draft_hardware'; qa90)."""
    import pandas as pd

    from roofline.errors import RooflineError
    from roofline.plot_jobs import select_rows

    df = pd.DataFrame({"draft_hardware": [float("nan"), "l4", "mi300x"], "k": [0, 3, 3]})
    assert select_rows(df, ("draft_hardware=l4",), "t.csv")["k"].tolist() == [3]
    assert select_rows(df, ("draft_hardware=",), "t.csv")["k"].tolist() == [0]
    with pytest.raises(RooflineError, match=r"found 'l40s', which no row has \(values: '' \(on the target: or none, co-located\), l4, mi300x\)"):
        select_rows(df, ("draft_hardware=l40s",), "t.csv")
    for name in ("none", "co-located", "Default", "co_located", "On-The-Target"):  # as scenarios, reports and plot
        # titles name it (qa99), separators aside (qa102)
        assert select_rows(df, (f"draft_hardware={name}",), "t.csv")["k"].tolist() == [0]
    blank = pd.DataFrame({"draft_hardware": [float("nan")] * 2, "k": [0, 3]})
    with pytest.raises(RooflineError, match=r"found 'l4', which no row has"):
        select_rows(blank, ("draft_hardware=l4",), "t.csv")
    elsewhere = pd.DataFrame({"draft_hardware": ["l4", "a10g"], "k": [3, 3]})  # qa242: said as '', not as typed
    with pytest.raises(RooflineError, match=r"found 'none', which no row has \(values: l4, a10g\)"):
        select_rows(elsewhere, ("draft_hardware=none",), "t.csv")
    spec = pd.DataFrame({"method": ["eagle", "eagle"], "k": [1, 3]})  # qa205: the plain frontier's rows say method none
    with pytest.raises(RooflineError, match=r"which no row has \(values: eagle\): plain decoding has no rows of its own here: it is every row's baseline_\* columns"):
        select_rows(spec, ("method=none",), "t.csv")


def test_where_takes_a_profile_name_in_any_case_or_an_alias():
    """--where engine=trt-llm and hardware=MI300X were refused though every other command takes them (qa95)."""
    import pandas as pd

    from roofline.plot_jobs import select_rows

    df = pd.DataFrame({"hardware": ["h100-sxm", "mi300x"], "engine": ["trtllm", "vllm"], "batch": [1, 2]})
    assert select_rows(df, ("hardware=MI300X",), "t")["batch"].tolist() == [2]
    assert select_rows(df, ("engine=TensorRT-LLM", "hardware=h100"), "t")["batch"].tolist() == [1]


def test_a_figure_of_rows_of_one_drafter_placement_names_that_placement_only():
    """qa112: `plot --where draft_hardware=a10g` drew one placement under a title naming all three."""
    import pandas as pd

    from roofline.plot_jobs import _meta_of_rows

    meta = {"draft_hardware": [None, "a10g", "l4"], "method": "draft"}
    rows = pd.DataFrame({"draft_hardware": ["a10g", "a10g"], "method": ["draft", "draft"]})
    assert _meta_of_rows(meta, rows)["draft_hardware"] == ["a10g"]
    assert _meta_of_rows(meta, rows.assign(draft_hardware=""))["draft_hardware"] is None
    assert _meta_of_rows(meta, pd.DataFrame({"draft_hardware": ["", "l4"]}))["draft_hardware"] == [None, "l4"]


def test_where_takes_a_dtype_or_method_in_any_case_as_a_scenario_does():
    """qa112: --where weight_dtype=FP8 was refused where a scenario file takes FP8."""
    import pandas as pd

    from roofline.plot_jobs import select_rows

    df = pd.DataFrame({"weight_dtype": ["bf16", "fp8"], "method": ["eagle", "eagle"], "batch": [1, 2]})
    assert list(select_rows(df, ("weight_dtype=FP8",), "t")["batch"]) == [2]
    assert len(select_rows(df, ("method=EAGLE",), "t")) == 2


def test_where_on_a_number_matches_a_csvs_float32_and_a_parquets_float64_alike_and_nan():
    """qa122: --where alpha=0.123456789 matched the Parquet's rows and not the CSV's (float32: 0.12345679), and the
    reverse; a per-position sweep's NaN alpha could not be named; the values listed ran in string-length order."""
    import numpy as np
    import pandas as pd

    from roofline.plot_jobs import select_rows

    exact = pd.DataFrame({"alpha": [0.123456789, 0.7777777777, 0.85], "k": [1, 2, 3]})
    written = exact.assign(alpha=exact["alpha"].astype(np.float32).astype(float))
    for df in (exact, written):
        for asked in ("0.123456789", "0.12345679"):
            assert select_rows(df, (f"alpha={asked}",), "t")["k"].tolist() == [1]
    rates = pd.DataFrame({"alpha": [float("nan"), 0.8], "k": [1, 2]})
    assert select_rows(rates, ("alpha=nan",), "t")["k"].tolist() == [1]
    only = pd.DataFrame({"alpha": [float("nan")] * 2, "k": [1, 2]})  # a per-position sweep: every alpha NaN (qa124)
    assert select_rows(only, ("alpha=nan",), "t")["k"].tolist() == [1, 2]
    # the values listed as they can be typed back, integers whole (qa124: 0.123457 matched nothing; 1e+08 twice)
    with pytest.raises(RooflineError, match=r"which no row has \(values: 0\.123456789, 0\.7777777777, 0\.85\)"):
        select_rows(exact, ("alpha=0.5",), "t")
    big = pd.DataFrame({"batch": [1, 99_999_999, 100_000_000], "k": [1, 2, 3]})
    assert select_rows(big, ("batch=100000000",), "t")["k"].tolist() == [3]  # integers exactly, not within float32's
    with pytest.raises(RooflineError, match=r"\(values: 1, 99999999, 100000000\)"):
        select_rows(big, ("batch=3",), "t")
    for typed in ("1_0", "\uff11\uff10"):  # qa289: Python's float() read 1_0 and full-width digits as batch 10
        with pytest.raises(RooflineError, match=f"expected a number for batch, found '{typed}'"):
            select_rows(pd.DataFrame({"batch": [10, 20]}), (f"batch={typed}",), "t")


@pytest.mark.slow
def test_the_sweep_hint_names_panels_left_out_only_where_devices_outnumber_a_figures_panels(roofline, tmp_path):
    """qa190: the note said "(where a title says 'first 6 of N panels', --where hardware=... draws the rest)" for
    sweeps of two devices, whose figures leave none out."""
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: s\nhardware: [h100, h200]\nmodel: llama-3.1-70b\nmethod: eagle\ntp: [2, 4, 8]\n"
                        "axes:\n  batch: [1, 8]\n  context: [2048, 8192]\n  k: [2]\n  alpha: [0.8]\n")
    code, _, err = roofline("sweep", scenario, "--out", tmp_path / "sw")
    assert code == 0 and "--where" in err and "draws another" in err, err
    assert "first 6 of N panels" not in err


def test_best_k_is_taken_again_among_the_rows_a_where_on_k_keeps():
    """qa225: `plot --where k=3` kept the sweep's best k (of every k): heatmap cells read 'no fit' where k 3 fits and
    pays, the throughput figure drew lone dots."""
    import pandas as pd

    from roofline.plot_jobs import best_k_among

    df = pd.DataFrame({"hardware": "h100-sxm", "model": "m", "batch": [1, 1, 1, 8, 8], "context": 1024, "alpha": 0.8,
                       "k": [1, 3, 5, 3, 5], "tokens_per_s": [10.0, 12.0, 14.0, 50.0, 40.0],
                       "fits_in_memory": [True, True, True, False, True], "best_k": [5, 5, 5, 5, 5]})
    kept = best_k_among(df[df["k"] == 3])
    assert list(kept["best_k"]) == [3, -1]  # batch 8: k 3 does not fit, so none of the rows kept
    assert list(best_k_among(df)["best_k"]) == [5, 5, 5, 5, 5]  # every k: the sweep's own


@pytest.mark.slow
def test_a_method_no_setup_of_its_engine_runs_is_named_on_the_figures(tmp_path):
    """qa231: a Medusa panel under sglang (which has no Medusa drafter) read as a 2.4x gain; only stderr said it. qa237:
    a panel of one engine or one method (not in its key) lost the mark, a pp panel never had it, and the footer named
    refusals of rows the figure did not draw."""
    from matplotlib.figure import Figure

    from roofline.plot_jobs import refused_meta
    from roofline.plots import _panel_title, footer

    sc = scenario_from_dict({"name": "med", "hardware": "h200", "model": "llama-3.1-70b", "engine": ["sglang", "vllm"],
                             "method": ["medusa", "eagle"], "layouts": [{"tp": 2}, {"tp": 1, "pp": 2}],
                             "axes": {"batch": [1, 32], "k": [2], "alpha": [0.7], "context": [2048]}}, "med.yaml")
    df = run_sweep(sc, load_configs(sc))
    meta = {**refused_meta(df), "hardware": {"h200": "H200"}, "engine": ["sglang", "vllm"], "method": ["eagle", "medusa"],
            "layouts": ["tp 1, pp 2", "tp 2"]}
    notes = {e["note"] for e in meta["refused"]}
    assert "medusa speculation under sglang (it has no medusa drafter)" in notes
    assert "eagle speculation under vllm at pp 2 (it refuses speculative decoding with pipeline parallelism)" in notes
    key = {"hardware": "h200", "engine": "sglang", "method": "medusa", "tp": 2, "pp": 1}
    assert _panel_title(meta, key, False).endswith("not run by sglang")
    assert "not run" not in _panel_title(meta, {**key, "engine": "vllm"}, False)
    assert _panel_title(meta, {**key, "engine": "vllm", "method": "eagle", "tp": 1, "pp": 2}, False).endswith("not run by vllm")
    assert "not run" not in _panel_title(meta, {**key, "engine": "vllm", "method": "eagle"}, False)
    one = {**meta, "engine": ["sglang"], "method": "medusa"}  # one engine and one method: held in meta, not in the key
    assert _panel_title(one, {"hardware": "h200", "tp": 2, "pp": 1}, False).endswith("not run by sglang")
    fig = Figure()
    footer(fig, {**meta, "engine": ["vllm"], "method": "eagle", "layouts": ["tp 2"]})  # vllm at tp 2 alone: none refused
    assert "no setup" not in fig.texts[0].get_text()
    fig = Figure()
    footer(fig, one)
    assert "no setup of their engine runs them: medusa speculation under sglang" in fig.texts[0].get_text().replace("\n", " ")
    assert "under vllm" not in fig.texts[0].get_text()
    assert refused_meta(df[(df["engine"] == "vllm") & (df["pp"] == 1)]) == {}
    # qa239: a layout refusal is its model's and dtypes' (DeepSeek-V3's block scales at tp 32), not another model's; a
    # figure whose meta does not say its layouts (an older table) still names it in the footer
    shard = {"engine": "vllm", "method": "eagle", "hardware": "h200", "model": "deepseek-v3", "weight_dtype": "fp8",
             "expert_dtype": "fp8", "tp": 32, "dp_attention": 1, "ep": 1, "pp": 1, "note": "deepseek-v3 at tp 32: ..."}
    both = {"refused": [shard], "hardware": {"h200": "H200"}, "engine": ["vllm"], "method": "eagle",
            "layouts": ["tp 32", "tp 8"], "weight_dtype": ["bf16", "fp8"], "expert_dtype": ["fp8"],
            "model": {"deepseek-v3": "DeepSeek-V3", "llama-3.1-70b": "Llama 3.1 70B"},
            "dtypes_by_model": {"deepseek-v3": {"weight_dtype": ["fp8"], "expert_dtype": ["fp8"]},
                                "llama-3.1-70b": {"weight_dtype": ["bf16"], "expert_dtype": []}}}
    panel = {"hardware": "h200", "model": "deepseek-v3", "tp": 32}
    assert _panel_title(both, panel, True).endswith("not run by vllm")
    assert "not run" not in _panel_title(both, {**panel, "model": "llama-3.1-70b"}, True)
    fig = Figure()
    footer(fig, {key: value for key, value in both.items() if key != "layouts"})
    assert "deepseek-v3 at tp 32" in fig.texts[0].get_text()


@pytest.mark.slow
def test_a_layout_whose_speculation_alone_is_refused_keeps_its_plain_points_on_the_figures():
    """qa466: vllm refuses speculation at pp 2, not plain decoding; refused_meta dropped `speculative_only`, so every
    point of the tp 8 pp 2 layout was taken as unrun: its panels were left out as 'nothing fits there' (every row fit)
    and, drawn alone, titled 'not run by vllm' above a plain frontier vllm runs."""
    from roofline.grid import scenario_meta
    from roofline.plot_jobs import refused_meta
    from roofline.plots import _panels

    sc = scenario_from_dict({"name": "pptitle", "hardware": "h200", "model": "deepseek-v3", "method": "mtp",
                             "layouts": [{"dp_attention": 8, "ep": 8}, {"tp": 8, "pp": 2}],
                             "axes": {"batch": [1, 8, 64], "context": [4096], "k": [0, 1], "alpha": [0.8]}}, "pp.yaml")
    pairs = load_configs(sc)
    df = run_sweep(sc, pairs)
    assert df["fits_in_memory"].astype(bool).all()
    meta = {**scenario_meta(sc, pairs, len(df)), **refused_meta(df)}
    assert [e.get("speculative_only") for e in meta["refused"]] == [True]
    by, keys, note = _panels(df, ("hardware", "model", "context"), meta)  # every row fits: both layouts drawn
    assert {(key[by.index("tp")], key[by.index("pp")]) for key in keys} == {(1, 1), (8, 2)} and "not drawn" not in note
    pp2 = dict(zip(by, next(key for key in keys if key[by.index("pp")] == 2)))
    from roofline.plots import _panel_title

    assert _panel_title(meta, pp2, False).endswith(", speculation not run by vllm")
    # the speedup map draws speculation's rows alone: the pp 2 panel is left out, said as unrun, not as not fitting
    spec = df[df["k"] > 0]
    _, kept, note = _panels(df, ("hardware", "model", "context"), meta, fitting=spec)
    assert len(kept) == 1 and "(what fits there no setup of its engine runs; the device is drawn where something does)" in note
    assert "nothing fits there" not in note


@pytest.mark.slow
def test_a_dense_models_refused_layout_is_named_on_its_figures():
    """qa240: a dense model's row has no expert dtype (NaN read back from CSV), which made its refusal match no panel."""
    import pandas as pd

    from roofline.plot_jobs import refused_meta
    from roofline.plots import refusals_drawn

    sc = scenario_from_dict({"name": "d", "hardware": "h200", "model": "llama-3.1-8b", "method": "none",
                             "engine": "sglang-early", "layouts": [{"tp": 1}, {"pp": 2}],
                             "axes": {"batch": [8], "context": [1024]}}, "d.yaml")
    df = run_sweep(sc, load_configs(sc))
    df = df.assign(expert_dtype=pd.Series([float("nan")] * len(df), index=df.index))  # as read back from a CSV
    meta = {**refused_meta(df), "hardware": {"h200": "H200"}, "engine": ["sglang-early"], "method": "none",
            "layouts": ["tp 1", "tp 1, pp 2"], "model": {"llama-3.1-8b": "Llama 3.1 8B"}, "weight_dtype": ["bf16"],
            "expert_dtype": [], "dtypes_by_model": {"llama-3.1-8b": {"weight_dtype": ["bf16"], "expert_dtype": []}}}
    assert "expert_dtype" not in meta["refused"][0]
    assert len(refusals_drawn(meta, {"hardware": "h200", "model": "llama-3.1-8b", "tp": 1, "pp": 2})) == 1
    assert refusals_drawn(meta, {"hardware": "h200", "model": "llama-3.1-8b", "tp": 1, "pp": 1}) == []
    assert len(refusals_drawn(meta)) == 1


@pytest.mark.slow
def test_an_abandoned_pool_whose_drawer_does_not_finish_is_ended_with_its_drawers(monkeypatch):
    """qa372: after a Ctrl-C, a drawer stuck on a pipe the interrupted caller left half-written kept the seed alive,
    and the process hung at exit waiting for it; an abandoned pool now gives its drawers ABANDON_WAIT_S, then ends the
    seed's process group, drawers included."""
    import threading
    import time

    from roofline import plot_jobs

    monkeypatch.setattr(plot_jobs, "_draw", lambda job: time.sleep(120))  # a drawer that never returns (forked with it)
    monkeypatch.setattr(plot_jobs, "ABANDON_WAIT_S", 0.5)
    pool = plot_jobs.FigurePool(2, workers=2)
    if pool._seed is None:
        pytest.skip("no fork on this platform: the pool draws in this process")
    pool.submit(("never",))
    time.sleep(1.0)  # the drawer has it in hand
    group = pool._seed.pid
    closing = threading.Thread(target=pool.close, kwargs={"abandon": True})
    closing.start()
    closing.join(60)
    assert not closing.is_alive(), "close(abandon=True) waited for a drawer that never finishes"
    time.sleep(0.5)
    assert _running_in_group(group) == [], "the seed's group, its drawers with it, is still running"


def _running_in_group(group: int) -> list[int]:
    """The processes of process group `group` still running (not zombies: a killed drawer, reparented, waits for its
    new parent to reap it), read from /proc."""
    import os
    from pathlib import Path

    running = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            running.append(int(stat.parent.name))
    return [pid for pid in running if pid != os.getpid()]


@pytest.mark.slow
def test_plot_where_k_says_the_roofline_verify_pass_stays_the_largest_ks_and_one_batch_is_titled_so(roofline, tmp_path,
                                                                                                    monkeypatch):
    """qa400: `plot --where k=3` titled the heatmap k = 3 while the roofline figure drew q = 6 (k = 5), unsaid; and
    `--where batch=64` drew one batch under a title of the smallest and the largest."""
    from roofline.errors import RooflineWarning
    from roofline.plots import PLOTTERS

    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: s\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                        "axes:\n  batch: [1, 8, 64]\n  context: [1024]\n  k: [1, 3, 5]\n  alpha: [0.8]\n")
    assert roofline("sweep", scenario, "--out", tmp_path / "sw", "--no-plots")[0] == 0
    seen = {}
    monkeypatch.setattr(plot_jobs, "standard_plots",
                        lambda df, ops, meta, out_dir, formats=("png",), workers=None, pool=None: seen.update(df=df, ops=ops, meta=meta) or [])
    with pytest.warns(RooflineWarning, match=r"--where k=3: the roofline figure draws the verify pass at q = 6 \(k = 5\)"):
        plot_jobs.plot_from_table(tmp_path / "sw", tmp_path / "o", where=("k=3",))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", RooflineWarning)
        plot_jobs.plot_from_table(tmp_path / "sw", tmp_path / "p", where=("k=5",))  # the one it holds: nothing to say
        plot_jobs.plot_from_table(tmp_path / "sw", tmp_path / "q", where=("batch=64",))
    fig = PLOTTERS["roofline"](seen["df"], seen["ops"], seen["meta"])
    title = fig._suptitle.get_text().replace("\n", " ")
    assert "at batch 64, the one drawn" in title and "smallest batch" not in title
