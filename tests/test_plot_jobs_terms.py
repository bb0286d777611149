"""Figures not drawn and table facts (plot_jobs.py), found by mutation testing (qa476): what `sweep` / `plot` say of a figure not drawn, and the table facts
that decide which figures are missed."""

import pandas as pd
import pytest

import roofline
from roofline import plot_jobs
from roofline.errors import RooflineError
from roofline.plot_jobs import PLOT_NAMES, not_drawn, standard_jobs, table_gives_request, table_sweeps_contexts

pytestmark = pytest.mark.slow  # CLI runs and sweeps: 20-700 ms a test

ONE = {"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle", "axes": {"batch": [8], "k": [2, 3]}}


def _missed(name: str, **kw) -> str:
    return not_drawn([f"x/{n}.png" for n in PLOT_NAMES if n != name], **kw)


def test_a_missed_figure_says_what_its_plotter_needs():
    """Each line as the plotter's conditions read (plots._plot_speedup_heatmap: two batches OR two alphas)."""
    assert _missed("speedup_heatmap") == ("not drawn: speedup_heatmap (needs a speculative method with k > 0, two batch "
                                          "sizes or two acceptance rates, and a point that fits in memory)")
    assert _missed("roofline") == ("not drawn: roofline (needs the operator table beside the results, operators.csv as "
                                   "`sweep --out` writes it (a report's tables have none), with rows of the selection: it "
                                   "holds the first context swept)")
    assert _missed("serving_vs_batch") == "" and _missed("serving_vs_batch", request=True).startswith(
        "not drawn: serving_vs_batch (needs two batch sizes and a point that fits in memory (and a request's serving_* columns))")
    two = not_drawn([f"x/{n}.png" for n in PLOT_NAMES if n not in ("pareto", "roofline")])
    assert two.startswith("not drawn: roofline (needs ") and "; pareto (needs two batch sizes and a point" in two


def test_the_heatmap_of_one_batch_is_drawn_over_two_acceptance_rates_and_missed_over_one():
    from roofline.plots import PLOTTERS

    def heatmap(alphas, tmp):
        df = roofline.sweep({**ONE, "axes": {**ONE["axes"], "alpha": alphas}})
        (job,) = [j for j in standard_jobs(df, None, {"method": "eagle"}, tmp) if j[0] == "speedup_heatmap"]
        return PLOTTERS["speedup_heatmap"](job[1], job[2], job[3])

    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        assert heatmap([0.6, 0.8], Path(tmp)) is not None  # one batch, two rates: the 'or' of the line above
        assert heatmap([0.8], Path(tmp)) is None


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_a_table_sweeps_contexts_only_with_two_of_them(tmp_path, suffix):
    """`plot` names speedup_vs_context as missed only where the table holds two contexts or more (cli.py's plot)."""
    for contexts, sweeps in (([1024, 1024], False), ([1024, 2048], True)):
        df = pd.DataFrame({"context": contexts, "batch": [1, 8]})
        path = tmp_path / f"results.{suffix}"
        df.to_csv(path, index=False) if suffix == "csv" else df.to_parquet(path)
        assert table_sweeps_contexts(path) is sweeps
        assert table_gives_request(path) is False
        df.assign(serving_time_per_output_token_s=[0.01, 0.02]).to_csv(tmp_path / "results.csv", index=False)
        assert table_gives_request(tmp_path / "results.csv") is True


def _table(**changes) -> pd.DataFrame:
    df = pd.DataFrame({c: [1.0, 2.0] for c in plot_jobs.REQUIRED_COLUMNS})
    df["hardware"], df["model"], df["method"] = "h100-sxm", "llama-3.1-8b", "eagle"
    return df.assign(**changes)


def test_no_format_at_all_is_refused_in_one_line(tmp_path):
    with pytest.raises(RooflineError, match=r"^formats: expected some of png, svg, found none$"):
        standard_jobs(_table(), None, {}, tmp_path, formats=())


def test_a_number_column_of_text_is_read_as_its_numbers_and_a_blank_one_said_as_nothing():
    df = _table(step_time_s=["0.01", "0.02"])  # a Parquet column of strings (qa135)
    plot_jobs.check_numeric(df, plot_jobs.NUMERIC_COLUMNS, "t.parquet")
    assert df["step_time_s"].tolist() == [0.01, 0.02]
    with pytest.raises(RooflineError, match=r"^t\.csv: step_time_s: expected numbers, found nothing \(line 3\)$"):
        plot_jobs.check_numeric(_table(step_time_s=["0.01", None]), plot_jobs.NUMERIC_COLUMNS, "t.csv")


def test_a_profile_named_null_or_na_is_read_back_as_its_name(tmp_path):
    (tmp_path / "results.csv").write_text("hardware,model,batch\nnull,NA,1\n")
    assert plot_jobs.read_labelled_csv(tmp_path / "results.csv").to_dict("records") == [{"hardware": "null", "model": "NA", "batch": 1}]


def test_a_path_that_is_no_results_table_is_said_as_what_it_is(tmp_path):
    (tmp_path / "results").write_text("x")
    with pytest.raises(RooflineError, match=r"results: expected a \.csv or \.parquet results table, found a suffix-less file$"):
        plot_jobs._locate(tmp_path / "results")
    with pytest.raises(RooflineError, match=r"gone: expected a sweep folder or its results\.csv / results\.parquet, "
                                                     r"found nothing there \(`roofline sweep SCENARIO --out .*gone` writes one\)$"):
        plot_jobs._locate(tmp_path / "gone")


def test_without_scenario_json_the_meta_is_derived_from_the_table(tmp_path):
    """tp: tokens/s over tokens/s per device (800 / 100 = 8); one method as itself; the folder's name as the scenario's."""
    df = _table(tokens_per_s=[800.0, 1600.0], tokens_per_s_per_device=[100.0, 200.0], batch=[16, 2])
    meta = plot_jobs._derived_meta(df, tmp_path / "my-sweep")
    assert (meta["tp"], meta["method"], meta["scenario"], meta["axes"], meta["points"]) == (8, "eagle", "my-sweep", {"batch": [2, 16]}, 2)
    assert plot_jobs._derived_meta(df.assign(method=["eagle", "draft"]), tmp_path)["method"] == ["draft", "eagle"]


def test_a_column_called_by_its_usual_other_name_is_hinted():
    df = pd.DataFrame({"context": [1024], "alpha": [0.8]})
    for condition, meant in (("seq_len=1", "context"), ("acceptance=0.8", "alpha"), ("acceptance_rate=0.8", "alpha")):
        with pytest.raises(RooflineError, match=f"found '{condition}' \\(did you mean {meant}\\?\\)$"):
            plot_jobs.select_rows(df, (condition,), "t.csv")
    with pytest.raises(RooflineError, match=r"found 'ctx=1'$"):  # too unlike any column: no hint
        plot_jobs.select_rows(df, ("ctx=1",), "t.csv")


def test_the_alpha_note_is_said_only_where_every_alpha_is_empty():
    some = pd.DataFrame({"alpha": [float("nan"), 0.8], "k": [1, 2]})
    with pytest.raises(RooflineError, match=r"which no row has \(values: 0\.8, nan\)$"):
        plot_jobs.select_rows(some, ("alpha=0.5",), "t")


def test_a_selections_meta_leaves_out_an_empty_expert_dtype():
    meta = plot_jobs._meta_of_rows({}, pd.DataFrame({"expert_dtype": ["", "fp8"], "batch": [1, 2]}))
    assert meta["expert_dtype"] == ["fp8"] and meta["axes"] == {"batch": [1, 2]}


def test_a_selections_meta_names_the_kv_dtype_and_layouts_its_rows_hold():
    """plot --where: the titles' setup line says the selected rows' KV dtype and layouts, not the whole sweep's."""
    rows = pd.DataFrame({"kv_dtype": ["fp8", "fp8"], "tp": [2, 4], "dp_attention": [1, 1], "ep": [1, 1], "pp": [1, 1],
                         "batch": [1, 8]})
    meta = plot_jobs._meta_of_rows({"kv_dtype": ["bf16", "fp8"], "layouts": ["tp 1", "tp 2", "tp 4"]}, rows)
    assert meta["kv_dtype"] == ["fp8"] and meta["layouts"] == ["tp 2", "tp 4"] and meta["tp"] == [2, 4]


def test_best_k_among_tied_ks_is_the_smallest_as_the_sweeps_argmax_over_its_ascending_k_axis():
    df = pd.DataFrame({"hardware": "h100-sxm", "model": "m", "batch": 1, "context": 1024, "alpha": 0.8, "k": [1, 2, 3],
                       "tokens_per_s": [10.0, 12.0, 12.0], "fits_in_memory": True, "best_k": 2})
    assert list(plot_jobs.best_k_among(df[df["k"] >= 2])["best_k"]) == [2, 2]
    from roofline.speculation import best_k

    assert best_k(df["tokens_per_s"].to_numpy(), df["fits_in_memory"].to_numpy(), df["k"].to_numpy()) == 2


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A sweep's results.csv alone in its folder; the drawing stubbed (what plot_from_table decides is under test)."""
    df = roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "axes": {"batch": [1, 8]}})
    (tmp_path / "sw").mkdir()
    df.to_csv(tmp_path / "sw" / "results.csv", index=False)
    monkeypatch.setattr(plot_jobs, "standard_plots", lambda *a, **k: [])
    return tmp_path / "sw"


def test_plot_into_the_tables_folder_refuses_a_subset_and_an_existing_figure_of_any_asked_format(folder):
    with pytest.raises(RooflineError, match=r"^--where: expected --out DIR for a subset's figures, found them going into "
                                            r"the table's own folder .*sw, beside the whole sweep's$"):
        plot_jobs.plot_from_table(folder, None, where=("batch=1",))
    (folder / "pareto.svg").write_text("<svg/>")
    with pytest.raises(RooflineError, match=r"^plot \(into the table's folder\): .*pareto\.svg exists; pass --force to "
                                            r"overwrite it or --out DIR for another folder$"):
        plot_jobs.plot_from_table(folder, None, formats=("png", "svg"))
    plot_jobs.plot_from_table(folder, None)  # PNG alone: the SVG is neither in the way nor removed without --force
    assert (folder / "pareto.svg").is_file()


def test_plot_of_a_table_of_no_rows_is_one_line(tmp_path):
    (tmp_path / "sw").mkdir()
    (tmp_path / "sw" / "results.csv").write_text(",".join(plot_jobs.REQUIRED_COLUMNS) + "\n")
    with pytest.raises(RooflineError, match=r"results\.csv: expected a sweep results table with at least one row, found none$"):
        plot_jobs.plot_from_table(tmp_path / "sw", tmp_path / "out")


def test_plot_of_rows_no_setup_of_their_engine_runs_says_so_on_the_figures_and_in_one_warning(tmp_path, monkeypatch):
    """trtllm on MI300X (TensorRT-LLM runs on NVIDIA GPUs only): drawn as swept, the figures' meta naming the refusal."""
    from roofline.errors import RooflineWarning

    df = roofline.sweep({"hardware": "mi300x", "model": "llama-3.1-8b", "engine": "trtllm", "axes": {"batch": [1, 8]}})
    (tmp_path / "sw").mkdir()
    df.to_csv(tmp_path / "sw" / "results.csv", index=False)
    seen = {}
    monkeypatch.setattr(plot_jobs, "standard_plots", lambda d, o, meta, *a, **k: seen.update(meta=meta) or [])
    with pytest.warns(RooflineWarning, match=r"the rows drawn include 1 layout, method or device no setup of their engine "
                                             r"runs \(trtllm on mi300x \(TensorRT-LLM runs on NVIDIA GPUs only\)\)"):
        plot_jobs.plot_from_table(tmp_path / "sw", tmp_path / "out")
    assert seen["meta"]["refused"] == [{"engine": "trtllm", "hardware": "mi300x",
                                        "note": "trtllm on mi300x (TensorRT-LLM runs on NVIDIA GPUs only)"}]


def test_a_selections_meta_holds_the_ks_its_rows_hold():
    """--where k=2 of a sweep of k 0, 2, 4: the footer's 'speculating' and the heatmap's depths read the kept k only."""
    meta = plot_jobs._meta_of_rows({"axes": {"k": [0, 2, 4], "batch": [1, 8]}}, pd.DataFrame({"k": [2, 2], "batch": [1, 8]}))
    assert meta["axes"] == {"k": [2], "batch": [1, 8]}


def test_six_contexts_are_six_panels_and_a_seventh_leaves_all_but_the_first_out():
    """MAX_PANELS = 6 panels a figure draws; beyond, the figures keep the first context (plot_from_table's docstring)."""
    base = {"hardware": "h100-sxm", "model": "llama-3.1-8b", "fits_in_memory": True, "method": "none", "k": 0}
    rows = [{**base, "context": 1024 * 2**i} for i in range(7)]
    assert plot_jobs.narrowed_columns(pd.DataFrame(rows[:6])) == {}
    assert plot_jobs.narrowed_columns(pd.DataFrame(rows)) == {"context": [2048, 4096, 8192, 16384, 32768, 65536]}


def _capture(monkeypatch) -> dict:
    seen = {}
    monkeypatch.setattr(plot_jobs, "standard_plots", lambda d, o, meta, *a, **k: seen.update(df=d, ops=o, meta=meta) or [])
    return seen


def test_where_k_takes_best_k_again_where_plain_decoding_won_every_point(tmp_path, monkeypatch):
    """k 0 beats k 2 at every point (best_k 0 throughout); --where k=2 keeps the k 2 rows, whose best k is 2 where they
    fit: the sweep's 0 would draw them as cells of another k (qa225)."""
    df = roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                         "axes": {"batch": [64, 256], "k": [0, 2], "alpha": [0.2]}})
    assert set(df["best_k"]) == {0}
    (tmp_path / "sw").mkdir()
    df.to_csv(tmp_path / "sw" / "results.csv", index=False)
    seen = _capture(monkeypatch)
    plot_jobs.plot_from_table(tmp_path / "sw", tmp_path / "out", where=("k=2",))
    assert list(seen["df"]["k"]) == [2, 2] and list(seen["df"]["best_k"]) == [2, 2]


def test_where_on_a_device_keeps_that_devices_operators_for_the_roofline_figure(roofline, tmp_path, monkeypatch):
    (tmp_path / "s.yaml").write_text("name: s\nhardware: [h100, h200]\nmodel: llama-3.1-8b\naxes:\n  batch: [1, 8]\n")
    code, _, err = roofline("sweep", tmp_path / "s.yaml", "--out", tmp_path / "sw", "--no-plots")
    assert code == 0, err
    seen = _capture(monkeypatch)
    plot_jobs.plot_from_table(tmp_path / "sw", tmp_path / "out", where=("hardware=h200",))
    assert set(seen["df"]["hardware"]) == {"h200"} and set(seen["ops"]["hardware"]) == {"h200"}
    # a column operators.csv lacks (max_batch: H200's 141 GB hold more sequences than H100's 80 GB): the devices of the
    # rows it keeps decide the operators kept
    cap = int(pd.read_csv(tmp_path / "sw" / "results.csv").query("hardware == 'h200'")["max_batch"].iloc[0])
    plot_jobs.plot_from_table(tmp_path / "sw", tmp_path / "out2", where=(f"max_batch={cap}",))
    assert set(seen["df"]["hardware"]) == {"h200"} and set(seen["ops"]["hardware"]) == {"h200"}


def test_a_where_that_matches_nothing_says_when_the_values_it_lists_are_not_all():
    """qa476: a --where miss listed the first 12 values of 20 as if they were all."""
    from roofline.plot_jobs import select_rows

    df = pd.DataFrame({"batch": list(range(1, 21)), "hardware": ["h100-sxm"] * 20})
    with pytest.raises(RooflineError, match=r"\(values: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, \.\.\. \(20 in all\)\)"):
        select_rows(df, ("batch=99",), "t.csv")
    with pytest.raises(RooflineError, match=r"\(values: 1, 2\)$"):
        select_rows(df.head(2), ("batch=99",), "t.csv")


def test_a_missing_table_file_is_told_the_folder_a_sweep_writes_it_in(tmp_path):
    """qa476: `plot res.csv` was told `roofline sweep SCENARIO --out res.csv` writes one: a folder named res.csv."""
    from roofline.plot_jobs import _locate

    with pytest.raises(RooflineError, match=r"found nothing there \(`roofline sweep SCENARIO --out DIR` writes DIR/results\.csv\)$"):
        _locate(tmp_path / "res.csv")
    with pytest.raises(RooflineError, match=rf"\(`roofline sweep SCENARIO --out {tmp_path / 'out'}` writes it\)$"):
        _locate(tmp_path / "out" / "results.csv")
