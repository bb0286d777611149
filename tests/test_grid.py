import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from roofline.engine import step_time_s
from roofline.errors import RooflineError
from roofline.grid import LABEL_COLUMNS, blocks_frame, iter_blocks, load_configs, operator_table, run_sweep
from roofline.hardware import load_hardware
from roofline.model import load_model
from roofline.scenario import scenario_from_dict
from roofline.serving import load_engine
from roofline.speculation import speculative_metrics

SCENARIO = {
    "name": "t", "hardware": ["h100-sxm", "h200"], "model": "llama-3.1-8b", "method": "eagle",
    "axes": {"batch": [1, 8, 64, 512], "context": [1024, 8192], "k": [0, 2, 4], "alpha": [0.6, 0.9]},
}


@pytest.fixture(scope="module")
def sweep_df():
    sc = scenario_from_dict(SCENARIO, "t.yaml")
    return run_sweep(sc, load_configs(sc))


@pytest.mark.slow
def test_one_row_per_point_with_axis_and_output_columns(sweep_df):
    assert len(sweep_df) == 2 * 4 * 2 * 3 * 2
    for col in ("hardware", "batch", "context", "k", "alpha", "step_time_s", "tokens_per_s", "speedup", "tau",
                "iteration_time_s", "fits_in_memory", "best_k", "break_even_batch", "cost_usd_per_million_tokens"):
        assert col in sweep_df.columns
    assert sweep_df[["hardware", "batch", "context", "k", "alpha"]].drop_duplicates().shape[0] == len(sweep_df)


def test_each_row_equals_a_direct_scalar_call(sweep_df):
    hw, model = load_hardware("h200"), load_model("llama-3.1-8b")
    row = sweep_df[(sweep_df.hardware == "h200") & (sweep_df.batch == 64) & (sweep_df.context == 8192)
                   & (sweep_df.k == 4) & (sweep_df.alpha == 0.9)].iloc[0]
    engine = load_engine("vllm")  # the default engine of a scenario that names none
    direct = speculative_metrics(hw, model, 64, 8192, 4, 0.9, method="eagle", engine=engine)
    assert row.engine == "vllm" and row.speedup == float(direct["speedup"])
    assert row.step_time_s == float(step_time_s(hw, model, 64, 1, 8192, engine=engine))


@pytest.mark.slow
def test_best_k_is_the_k_with_the_highest_throughput(sweep_df):
    for _, group in sweep_df.groupby(["hardware", "batch", "context", "alpha"]):
        fitting = group[group.fits_in_memory]
        if len(fitting):
            assert group.best_k.iloc[0] == fitting.loc[fitting.tokens_per_s.idxmax(), "k"]


def test_k_0_rows_have_speedup_exactly_1(sweep_df):
    assert (sweep_df[sweep_df.k == 0].speedup == 1.0).all()


@pytest.mark.slow
def test_chunked_sweep_equals_the_one_pass_sweep(sweep_df):
    sc = scenario_from_dict(SCENARIO, "t.yaml")
    chunked = blocks_frame(list(iter_blocks(sc, load_configs(sc), chunk_points=10)), categorical=True)
    assert len(list(iter_blocks(sc, load_configs(sc), chunk_points=10))) > len(list(iter_blocks(sc, load_configs(sc))))
    pd.testing.assert_frame_equal(chunked, sweep_df)


def test_cost_per_million_tokens_follows_the_price(sweep_df):
    row = sweep_df[(sweep_df.hardware == "h100-sxm") & (sweep_df.k == 0)].iloc[0]
    price = load_hardware("h100-sxm").price_usd_per_hour
    assert row.cost_usd_per_million_tokens == pytest.approx(price / 3600 / row.tokens_per_s * 1e6)
    assert np.isfinite(sweep_df.cost_usd_per_million_tokens).all()


@pytest.mark.slow
def test_break_even_batch_never_exceeds_what_fits_in_memory():
    sc = scenario_from_dict({**SCENARIO, "axes": {**SCENARIO["axes"], "context": [8192], "batch": [1, 16, 64, 256]}}, "t.yaml")
    df = run_sweep(sc, load_configs(sc))
    assert (df.break_even_batch <= df.max_batch.max()).all()
    h100 = df[(df.hardware == "h100-sxm") & (df.k == 4)]
    # batch 64 and 256 do not fit at 8k on 80 GB: it pays at every batch that fits, to the largest (max_batch), not only 16
    assert not h100[h100.batch == 64].fits_in_memory.any()
    assert (h100.break_even_batch == h100.max_batch).all() and 16 < h100.break_even_batch.iloc[0] < 64


@pytest.mark.slow
def test_a_drafter_device_is_paid_only_while_it_drafts():
    data = {"name": "d", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "draft", "draft": "llama-3.2-1b",
            "draft_hardware": "l4", "axes": {"batch": [1, 8], "k": [0, 3], "alpha": [0.8]}}
    sc = scenario_from_dict(data, "d.yaml")
    df = run_sweep(sc, load_configs(sc))
    k0, k3 = df[df.k == 0], df[df.k == 3]
    assert (k0.cost_usd_per_million_tokens == k0.baseline_cost_usd_per_million_tokens).all()
    assert (k0.tokens_per_s_per_device == k0.tokens_per_s).all()
    assert (k3.tokens_per_s_per_device == k3.tokens_per_s / 2).all()
    h100, l4 = load_hardware("h100-sxm").price_usd_per_hour, load_hardware("l4").price_usd_per_hour
    row = k3.iloc[0]
    assert row.cost_usd_per_million_tokens == pytest.approx((h100 + l4) / 3600 / row.tokens_per_s * 1e6)


@pytest.mark.slow
def test_an_unpriced_drafter_device_blanks_only_the_costs_of_the_rows_that_draft_on_it():
    assert load_hardware("l40s").price_usd_per_hour is None
    data = {"name": "d", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "draft", "draft": "llama-3.2-1b",
            "draft_hardware": "l40s", "axes": {"batch": [1, 8], "k": [0, 3], "alpha": [0.8]}}
    sc = scenario_from_dict(data, "d.yaml")
    df = run_sweep(sc, load_configs(sc))
    h100 = load_hardware("h100-sxm").price_usd_per_hour
    assert np.allclose(df.baseline_cost_usd_per_million_tokens, h100 / 3600 / df.baseline_tokens_per_s * 1e6)  # plain decoding: priced
    k0, k3 = df[df.k == 0], df[df.k == 3]
    assert (k0.cost_usd_per_million_tokens == k0.baseline_cost_usd_per_million_tokens).all()  # k = 0 never drafts
    assert k3.cost_usd_per_million_tokens.isna().all()  # the drafter's hour has no price


def test_a_draft_vocabulary_above_the_models_is_one_line_naming_the_scenario():
    from roofline.errors import RooflineError

    data = {**SCENARIO, "method": "eagle", "draft_vocab": 300_000}
    with pytest.raises(RooflineError, match=r"s.yaml: draft_vocab: expected at most the vocabulary of llama-3.1-8b \(128,256 tokens"):
        load_configs(scenario_from_dict(data, "s.yaml"))
    assert load_configs(scenario_from_dict({**data, "draft_vocab": 32_000}, "s.yaml"))  # a reduced head: fine


def test_a_layout_the_model_cannot_take_is_one_line_naming_the_scenario():
    from roofline.errors import RooflineError

    sc = scenario_from_dict({**SCENARIO, "tp": [1, 3]}, "s.yaml")
    with pytest.raises(RooflineError, match="s.yaml: tp: expected a divisor of the model's 32 attention heads"):
        load_configs(sc)


def test_a_user_file_named_like_a_listed_profile_is_refused_not_labelled_twice(tmp_path):
    from roofline.errors import RooflineError

    mine = tmp_path / "h100-sxm.yaml"  # a user's copy, still named h100-sxm inside
    mine.write_text((Path(__file__).resolve().parent.parent / "hardware_profiles" / "h100-sxm.yaml").read_text())
    sc = scenario_from_dict({**SCENARIO, "hardware": [str(mine), "h100-sxm"]}, "s.yaml")
    with pytest.raises(RooflineError, match=r"^s.yaml: hardware: expected each profile once.*found \"the profile named 'h100-sxm' twice, as '/"):
        load_configs(sc)


@pytest.mark.slow
def test_method_and_draft_hardware_lists_are_config_axes_with_their_own_rows():
    sc = scenario_from_dict({"hardware": "h100-sxm", "model": "llama-3.1-70b", "tp": 4, "method": ["draft", "ngram"],
                             "draft": "llama-3.2-1b", "draft_hardware": [None, "l4"], "axes": {"batch": [1, 8], "k": [2], "alpha": [0.7]}}, "s.yaml")
    df = run_sweep(sc, load_configs(sc))
    # draft on the target GPUs, draft on an L4, n-gram (no drafter device: one config, not two)
    assert sorted(map(tuple, df[["method", "draft_hardware"]].astype(str).drop_duplicates().values.tolist())) == [
        ("draft", ""), ("draft", "l4"), ("ngram", "")]
    assert len(df) == 3 * 2


@pytest.mark.slow
def test_configs_differing_in_expert_dtype_or_layout_have_labels_that_tell_them_apart():
    sc = scenario_from_dict({"hardware": "h200", "model": ["llama-3.1-8b", "mixtral-8x7b"], "expert_dtype": ["fp8", "fp4"],
                             "tp": [1, 2], "axes": {"batch": [1, 8]}}, "s.yaml")
    configs = load_configs(sc)
    df = run_sweep(sc, configs)  # the dense model once per tp: an expert dtype does not apply to it
    assert len(configs) == 2 + 4 and len(df) == 2 * len(configs)
    assert set(df[df.model == "mixtral-8x7b"].expert_dtype.astype(str)) == {"fp8", "fp4"}
    assert set(df[df.model == "llama-3.1-8b"].expert_dtype.astype(str)) == {""}
    assert not df.duplicated(list(LABEL_COLUMNS) + ["tp", "batch"]).any()
    ops = operator_table(sc, configs)
    assert not ops.duplicated(["model", "tp", "expert_dtype", "pass", "batch", "operator"]).any()
    assert len(ops.drop_duplicates(["model", "tp", "expert_dtype"])) == len(configs)


def test_an_expert_dtype_with_only_dense_models_is_refused():
    from roofline.errors import RooflineError

    sc = scenario_from_dict({"hardware": "h200", "model": "llama-3.1-8b", "expert_dtype": ["fp8", "bf16"]}, "s.yaml")
    with pytest.raises(RooflineError, match="^s.yaml: expert_dtype: expected a mixture-of-experts model among the models"):
        load_configs(sc)


def test_a_drafter_device_named_like_a_different_target_device_is_refused(tmp_path):
    from roofline.errors import RooflineError

    slow = tmp_path / "h100-sxm.yaml"  # a user's h100-sxm at 1 TB/s
    text = (Path(__file__).resolve().parent.parent / "hardware_profiles" / "h100-sxm.yaml").read_text()
    slow.write_text("\n".join("memory_bandwidth: 1 TB/s" if line.startswith("memory_bandwidth:") else line for line in text.splitlines()))
    data = {"hardware": str(slow), "model": "llama-3.1-70b", "tp": 4, "method": "draft", "draft": "llama-3.2-1b",
            "axes": {"alpha": [0.8]}}
    with pytest.raises(RooflineError, match="draft_hardware: expected one profile per name across hardware and draft_hardware"):
        load_configs(scenario_from_dict({**data, "draft_hardware": "H100"}, "s.yaml"))
    assert len(load_configs(scenario_from_dict({**data, "draft_hardware": str(slow)}, "s.yaml"))) == 1  # the same one: fine


def test_weight_and_expert_dtype_labels_tell_dtype_configs_of_an_moe_model_apart():
    sc = scenario_from_dict({"hardware": "h200", "model": "mixtral-8x7b", "weight_dtype": ["fp8", "int4"], "expert_dtype": "bf16",
                             "axes": {"batch": [1]}}, "s.yaml")
    df = run_sweep(sc, load_configs(sc))
    assert sorted(zip(df.weight_dtype.astype(str), df.expert_dtype.astype(str))) == [("fp8", "bf16"), ("int4", "bf16")]


def test_scenario_json_holds_the_axes_and_every_drafter_placement_enough_to_run_it_again():
    import json

    from roofline.grid import scenario_meta

    data = {"name": "d", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "draft", "draft": "llama-3.2-1b",
            "draft_hardware": [None, "l4"], "axes": {"batch": [1, 8], "context": [1024], "k": [2], "alpha": [0.7, 0.9]}}
    sc = scenario_from_dict(data, "d.yaml")
    meta = json.loads(json.dumps(scenario_meta(sc, load_configs(sc), 8)))  # as written
    assert meta["axes"] == {"batch": [1, 8], "context": [1024], "k": [2], "alpha": [0.7, 0.9]}
    assert meta["draft_hardware"] == [None, "l4"]  # the drafter on the target is a placement of its own
    again = scenario_from_dict({**{k: meta[k] for k in ("method", "draft", "draft_hardware", "axes")}, "name": "again",
                                "hardware": list(meta["hardware"])[0], "model": "llama-3.1-8b"}, "again.yaml")
    assert again.points == sc.points
    # engines and drafter devices in the file's order, as the table's rows and the panels (qa242: sorted here alone)
    ordered = scenario_from_dict({**data, "draft_hardware": ["l4", "a10g"], "engine": ["vllm", "sglang"]}, "o.yaml")
    meta = scenario_meta(ordered, load_configs(ordered), 8)
    assert meta["draft_hardware"] == ["l4", "a10g"] and meta["engine"] == ["vllm", "sglang"]
    methods = scenario_from_dict({**data, "method": ["ngram", "eagle"], "draft": None, "draft_hardware": None}, "m.yaml")
    assert scenario_meta(methods, load_configs(methods), 8)["method"] == ["ngram", "eagle"]  # qa256: sorted, as engines were


@pytest.mark.slow
def test_k_zero_rows_have_no_break_even_batch_as_plain_decoding_has_none():
    sc = scenario_from_dict({**SCENARIO, "axes": {"batch": [1, 64], "context": [1024], "k": [0, 2], "alpha": [0.8]}}, "t.yaml")
    df = run_sweep(sc, load_configs(sc))
    assert (df[df.k == 0].break_even_batch == 0).all() and (df[df.k == 2].break_even_batch == 64).all()


def test_every_output_column_is_in_api_md_s_table_saying_whether_it_is_plain_or_speculative():
    from pathlib import Path

    from roofline.grid import OUTPUT_COLUMNS, SERVING_COLUMNS

    text = (Path(__file__).parent.parent / "docs" / "API.md").read_text()

    def documented(start: str, end: str) -> set:
        table = text[text.index(start):text.index(end)]
        return {name for line in table.splitlines() if line.startswith("| `") for name in
                [c.strip(" `") for c in line.split("|")[1].split(",")]}
    assert documented("### Output columns", "### Serving columns") == set(OUTPUT_COLUMNS)
    assert documented("### Serving columns", "## Lower levels") == set(SERVING_COLUMNS)  # a request's sweep's


@pytest.mark.slow
def test_a_config_that_fits_at_no_point_is_said_once():
    """Mixtral-8x7B in bf16 on one H100 (94 GB of weights) fit nowhere, and the sweep said nothing: its rows were all
    there with fits_in_memory false, and the report's finding spoke only of the points that fit."""
    import roofline
    from roofline.errors import RooflineWarning

    with pytest.warns(RooflineWarning, match=r"mixtral-8x7b on 1 x h100-sxm \(tp 1, bf16 weights, bf16 experts, bf16 KV, engine vllm\) fits in "
                                             r"device memory at no point of the sweep") as caught:
        df = roofline.sweep({"hardware": "h100-sxm", "model": ["mixtral-8x7b", "llama-3.1-8b"], "axes": {"batch": [1, 8]}})
    assert not df[df["model"] == "mixtral-8x7b"]["fits_in_memory"].any()
    assert sum("fits in device memory at no point" in str(w.message) for w in caught) == 1  # the 8B fits: no word of it


def test_a_profile_file_named_in_a_scenario_is_found_beside_the_scenario(tmp_path, monkeypatch):
    """`engine: myeng.yaml` beside the scenario was looked up in the working directory only: 'unknown engine'."""
    import shutil

    from roofline.grid import load_configs
    from roofline.profiles import builtin_dir
    from roofline.scenario import load_scenario

    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "myeng.yaml").write_text((builtin_dir("engine") / "vllm.yaml").read_text().replace("name: vllm", "name: myeng", 1))
    shutil.copy(builtin_dir("hardware") / "h100-sxm.yaml", folder / "my-h100.yaml")
    (folder / "s.yaml").write_text("name: s\nhardware: my-h100.yaml\nmodel: llama-3.1-8b\nengine: myeng.yaml\naxes:\n  batch: [1]\n")
    monkeypatch.chdir(tmp_path)  # not the scenario's folder
    configs = load_configs(load_scenario("sub/s.yaml"))
    assert [c.engine.name for c in configs] == ["myeng"] and configs[0].hw.mem_bw_bytes_per_s == 3.35e12
    shutil.copy(builtin_dir("hardware") / "h200.yaml", tmp_path / "my-h100.yaml")  # one of that name here too: the
    assert load_configs(load_scenario("sub/s.yaml"))[0].hw.mem_bw_bytes_per_s == 3.35e12  # scenario's own is read


@pytest.mark.slow
def test_a_config_where_only_plain_decoding_fits_is_said_once():
    """A 70B on 2 H100s with an 8B draft model at 8k: plain decoding fits to batch 4, speculation nowhere; the best-k
    figure said 'nothing fits' and the sweep nothing."""
    import roofline
    from roofline.errors import RooflineWarning

    with pytest.warns(RooflineWarning, match=r"llama-3.1-70b on 2 x h100-sxm \(tp 2, bf16 weights, bf16 KV, engine vllm, method "
                                             r"draft, drafter on the target\): speculation fits in device memory at no point of the sweep"):
        df = roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-70b", "tp": 2, "method": "draft", "draft": "llama-3.1-8b",
                             "axes": {"batch": [1, 4], "context": [8192], "k": [0, 2], "alpha": [0.6]}})
    assert df[df["k"] == 0]["fits_in_memory"].any() and not df[df["k"] == 2]["fits_in_memory"].any()


def test_a_column_that_follows_the_model_is_not_a_panel_split_and_panels_are_counted():
    """Llama (bf16, no speculation) beside DeepSeek-V3 (fp8, MTP) made the sweep say 'a figure keeps a subset of method,
    weight_dtype, expert_dtype' where each model has one of each and every panel was drawn."""
    from roofline.plot_jobs import narrowed_columns

    sc = scenario_from_dict({"name": "m", "hardware": "h200", "model": ["llama-3.1-8b", "deepseek-v3"], "tp": 8,
                             "method": {"llama-3.1-8b": "none", "deepseek-v3": "mtp"},
                             "axes": {"batch": [1, 32], "context": [4096], "k": [0, 2], "alpha": [0.8]}}, "m")
    assert narrowed_columns(run_sweep(sc, load_configs(sc))) == {}
    sc = scenario_from_dict({"name": "k", "hardware": ["h100-sxm", "h200"], "model": "llama-3.1-8b", "kv_dtype": ["bf16", "fp8"],
                             "axes": {"batch": [1], "context": [1024, 4096]}}, "k")
    assert list(narrowed_columns(run_sweep(sc, load_configs(sc)))) == ["context"]  # 8 panels: one context, both KV dtypes


def test_a_layouts_sweep_keeps_each_layout_whole_in_its_figures():
    """qa245: h200 and b200 x [tp 8, tp 8 pp 2, tp 16, tp 4 pp 4] (8 panels) kept 6, tp narrowed to its first value per
    panel: tp 16 and tp 4 pp 4, two of the layouts compared, gone; now up to a grid's 8 kept whole, else one layout
    whole (never a mix of degrees)."""
    from roofline.plot_jobs import narrowed_columns

    layouts = [{"tp": 8}, {"tp": 8, "pp": 2}, {"tp": 16}, {"tp": 4, "pp": 4}]
    sc = scenario_from_dict({"name": "l", "hardware": ["h200", "b200"], "model": "llama-3.1-405b", "layouts": layouts,
                             "axes": {"batch": [1, 64], "context": [4096]}}, "l")
    assert narrowed_columns(run_sweep(sc, load_configs(sc))) == {}
    more = scenario_from_dict({"name": "l", "hardware": ["h200", "b200", "mi300x"], "model": "llama-3.1-405b",
                               "layouts": layouts, "axes": {"batch": [1, 64], "context": [4096]}}, "l")
    assert list(narrowed_columns(run_sweep(more, load_configs(more)))) == ["tp", "pp"]  # 12 panels: one layout, every device


def test_a_layout_that_fits_on_no_device_alone_is_left_out_and_said():
    """qa247: 405B's tp 8 does not fit on an H100, so the figures kept one layout (tp 8 pp 2, which vllm refuses with
    eagle) of four, tp 16 and tp 4 pp 4 fitting on both dropped, and the sweep said nothing."""
    from roofline import plots
    from roofline.plot_jobs import narrowed_columns

    sc = scenario_from_dict({"name": "l", "hardware": ["h200", "h100-sxm"], "model": "llama-3.1-405b",
                             "layouts": [{"tp": 8}, {"tp": 8, "pp": 2}, {"tp": 16}, {"tp": 4, "pp": 4}],
                             "axes": {"batch": [1, 64], "context": [4096]}}, "l")
    df = run_sweep(sc, load_configs(sc))
    by, keys, note = plots._panels(df, ("hardware", "model", "context"), {})
    assert len(keys) == 6 and note == ("TP 8 left out (no point of it fits on h100-sxm; on h200 it fits, "
                                           "not drawn)")  # qa415: where, not 'a panel'; qa436: where it fits too
    meta = {"hardware": {"h100-sxm": "H100", "h200": "H200"}}
    assert plots._panels(df, ("hardware", "model", "context"), meta)[2] == "TP 8 left out (no point of it fits on H100; on H200 it fits, not drawn)"
    assert narrowed_columns(df) == {"tp": [8]}  # the sweep's hint: --where tp=8 draws it


def test_the_columns_a_figure_narrows_are_those_its_panels_cut_not_every_one_that_varies():
    """qa242: 2 devices x 3 engines x 2 contexts said 'keeps a subset of context, engine' where every figure drew the 3
    engines (6 panels at one context)."""
    from roofline.plot_jobs import narrowed_columns

    sc = scenario_from_dict({"name": "e", "hardware": ["h100-sxm", "h200"], "model": "llama-3.1-8b",
                             "engine": ["vllm", "sglang", "trtllm"], "axes": {"batch": [1], "context": [1024, 4096]}}, "e")
    assert narrowed_columns(run_sweep(sc, load_configs(sc))) == {"context": [4096]}  # the value left out (qa250: the hint named a drawn one)
    sc = scenario_from_dict({"name": "f", "hardware": ["h100-sxm", "h200"], "model": "llama-3.1-8b",
                             "engine": ["vllm", "sglang", "trtllm"], "kv_dtype": ["bf16", "fp8"],
                             "axes": {"batch": [1], "context": [1024]}}, "f")
    assert list(narrowed_columns(run_sweep(sc, load_configs(sc)))) == ["engine"]  # 12 panels: one engine, both KV dtypes (6)


@pytest.mark.slow
def test_a_layouts_sweep_says_what_each_layout_spends_on_collectives():
    """A sweep of layouts mixed collectives into step time minus operators: comm_time_s is plain decoding's
    collectives at each point, predict's figure."""
    import roofline

    df = roofline.sweep({"name": "ep", "hardware": "h200", "model": "deepseek-v3", "engine": "sglang", "method": "none",
                         "layouts": [{"tp": 8}, {"dp_attention": 8, "ep": 8}], "axes": {"batch": [8, 256], "context": [2048]}})
    assert "comm_time_s" in df
    for row in df.itertuples():
        point = roofline.predict("h200", "deepseek-v3", int(row.batch), int(row.context), tp=int(row.tp), ep=int(row.ep),
                                 dp_attention=int(row.dp_attention), engine="sglang")
        assert row.comm_time_s == pytest.approx(point["comm_time_s"], rel=1e-9) and 0 < row.comm_time_s < row.step_time_s


@pytest.mark.slow
def test_a_sweep_says_once_where_an_expert_dispatch_rests_on_an_unfitted_latency():
    """predict warned that the dispatch rested on sglang's unfitted 40 us all_to_all_latency; a sweep, the report and
    cheapest said nothing, though dp-attention rows filled the cheap end of the frontier (qa66). DeepEP's kernels pay it;
    an all-gather dispatch pays the engine's allreduce_latency, as the same all-gather at ep 1 does, and no note (qa139)."""
    import dataclasses
    import warnings

    import roofline

    def notes(engine, text="a prior no measured row determines"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            roofline.sweep({"name": "x", "hardware": "h200", "model": "qwen3-235b-a22b", "method": "none",
                            "engine": [engine, "ideal"], "layouts": [{"dp_attention": 8, "ep": 8}, {"tp": 8}],
                            "axes": {"batch": [8, 64], "context": [4096]}})
        return [str(w.message) for w in caught if text in str(w.message)]

    deepep = dataclasses.replace(roofline.load_engine("sglang"), moe_dispatch="per_pair")
    got = notes(deepep)
    assert len(got) == 1 and got[0].startswith("sweep: the expert dispatch under sglang in 1 config (qwen3-235b-a22b dp_attention 8 ep 8 on h200)"), got
    assert notes("sglang") == []  # its allgather dispatch
    # qa152: whose latency, an all-reduce's, is a lower estimate for its all-gather and reduce-scatter: predict said so
    # where the dispatch weighs, the sweep never; once an engine and latency, the configs listed (qa210: once a config)
    lower = notes("sglang", "a lower estimate for the all-gather and reduce-scatter it runs")
    assert len(lower) == 1 and "under sglang in 1 config (qwen3-235b-a22b dp_attention 8 ep 8 on h200): its two collectives a MoE layer pay sglang's allreduce_latency" in lower[0]
    assert notes(dataclasses.replace(roofline.load_engine("sglang"), dp_gather="allreduce"), "a lower estimate") == []
    # DeepEP's kernels set for the device's family only: the engine as on the device says it (qa143: the general one)
    on_hopper = dataclasses.replace(roofline.load_engine("sglang"), overrides=(("h*", {"moe_dispatch": "per_pair"}),))
    assert len(notes(on_hopper)) == 1


@pytest.mark.slow
def test_a_sweeps_break_even_batch_is_the_exact_batch_between_its_grid_points_as_predict_finds_it():
    """The sweep's break-even was the largest swept batch that pays: 256 on H100 where every batch to 270 pays, 181 on
    B200 where 255 do (half-octave grid), which ordered two GPUs 41% apart that are 6% apart. It is now refined to the
    batch before the crossing, as predict's search over every batch finds it at each k."""
    import roofline

    batches = [1, 2, 4, 8, 16, 32, 64, 128, 181, 256, 362, 512]
    for hardware in ("h100-sxm", "b200", "a100-sxm-80gb"):
        df = roofline.sweep({"name": "be", "hardware": hardware, "model": "llama-3.1-8b", "method": "eagle", "engine": "ideal",
                             "axes": {"batch": batches, "context": [256], "k": [1, 2, 4], "alpha": [0.6]}})
        for k, rows in df.groupby("k"):
            p = roofline.predict(hardware, "llama-3.1-8b", method="eagle", engine="ideal", batch=1, context=256, k=int(k),
                                 alpha=0.6)["spec"]
            assert p["break_even_batch"] < 512 and not p["break_even_at_memory_limit"]
            assert set(rows["break_even_batch"]) == {p["break_even_batch"]}
            assert p["break_even_batch"] not in batches or hardware == "a100-sxm-80gb" and k == 4  # between grid points


@pytest.mark.slow
def test_a_break_even_past_the_last_swept_batch_that_fits_reaches_the_largest_batch_that_fits_as_in_predict():
    """On an L4 the next swept batch after 128 (181) does not fit, and the sweep kept 128 where every batch that fits,
    to 148, pays (predict: 148 at the memory limit): the report said 'at least 128 on L4'. The sweep now scans on to
    the cell's max_batch, and the report's table calls that break-even a lower bound (it pays where memory ends it)."""
    import roofline
    from roofline.findings import break_even_table

    df = roofline.sweep({"name": "cap", "hardware": "l4", "model": "llama-3.1-8b", "method": "eagle", "engine": "ideal",
                         "axes": {"batch": [64, 128, 181, 256], "context": [256], "k": [1, 2, 6], "alpha": [0.6]}})
    for k, rows in df.groupby("k"):
        p = roofline.predict("l4", "llama-3.1-8b", method="eagle", engine="ideal", batch=1, context=256, k=int(k), alpha=0.6)["spec"]
        assert set(rows["break_even_batch"]) == {p["break_even_batch"]}
        assert p["break_even_at_memory_limit"] == (k < 6)  # k 1, 2 pay wherever the batch fits; k 6 crosses inside
        # the rows say it as predict does (qa299: the table had no column for it, only a warning counting the cells)
        assert set(rows["break_even_at_memory_limit"]) == {p["break_even_at_memory_limit"]}
        assert not rows.loc[rows["batch"] == 181, "fits_in_memory"].any()  # the premise: the next swept batch does not fit
    row = break_even_table(df).iloc[0]
    assert row["break_even_batch"] == df["break_even_batch"].max() > 128 == row["largest_fitting_batch"]
    # qa380: a batch axis running far past what fits (to 16,384 where 717 fit) was not refined (16 cells x the 8,191
    # batches of its widest gap, more than the budget), its rows' break-even a swept batch with neither flag set; a gap
    # is scanned only as far as the batch fits
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wide = roofline.sweep({"name": "wide", "hardware": "h200", "model": "llama-3.1-70b", "tp": 8, "weight_dtype": "fp8",
                               "method": "eagle", "axes": {"batch": [1, 4, 16, 64, 256, 512, 1024, 2048, 4096, 8192, 16384],
                                                           "context": [4096, 8192, 32768, 131072], "k": [1, 2, 3, 4],
                                                           "alpha": [0.8]}})
    assert not any("refining it would scan" in str(w.message) for w in caught)
    for (context, k), rows in wide.groupby(["context", "k"]):
        p = roofline.predict("h200", "llama-3.1-70b", batch=1, context=int(context), tp=8, weight_dtype="fp8",
                             method="eagle", k=int(k), alpha=0.8)["spec"]
        assert set(rows["break_even_batch"]) == {p["break_even_batch"]}, (context, k)
        assert set(rows["break_even_at_memory_limit"]) == {p["break_even_at_memory_limit"]}, (context, k)
    assert row["censored"] and row["break_even_batch"] == row["max_batch"]
    crossing = break_even_table(df[df["k"] == 6]).iloc[0]  # a break-even inside the sweep is not a bound
    assert not crossing["censored"] and crossing["break_even_batch"] < 128
    # nor one refined to a crossing between the last swept batch that fits and max_batch (qa81: 143 at alpha 0.5, k 3,
    # where 147 fit, was called a lower bound and 'the largest batch that fits')
    gap = roofline.sweep({"name": "gap", "hardware": "l4", "model": "llama-3.1-8b", "method": "eagle", "engine": "ideal",
                          "axes": {"batch": [64, 128, 181, 256], "context": [256], "k": [3], "alpha": [0.5]}})
    p = roofline.predict("l4", "llama-3.1-8b", method="eagle", engine="ideal", batch=1, context=256, k=3, alpha=0.5)["spec"]
    row = break_even_table(gap).iloc[0]
    assert row["break_even_batch"] == p["break_even_batch"] and 128 < row["break_even_batch"] < row["max_batch"]
    assert not p["break_even_at_memory_limit"] and not row["censored"] and not gap["break_even_at_memory_limit"].any()


@pytest.mark.slow
def test_the_break_even_is_the_last_batch_that_pays_where_the_speedup_zigzags_and_a_large_sweep_says_where_it_is_a_bound():
    """TensorRT-LLM pads a GEMM's rows to its tile: near speedup 1 the curve zigzags (279-281 pay, 282-288 do not,
    289-291 pay on an A100 PCIe), and a bisection stopped at the first crossing it met (268, then 281; qa74) where
    predict's search gives 291. A sweep whose gaps hold more batches than it has points keeps the swept bound and says so."""
    import warnings

    import roofline

    sc = {"name": "zig", "hardware": "a100-pcie-40gb", "model": "llama-3.1-8b", "engine": "trtllm", "method": "eagle",
          "axes": {"batch": [256, 512], "context": [256], "k": [4], "alpha": [0.8]}}
    p = roofline.predict("a100-pcie-40gb", "llama-3.1-8b", batch=256, context=256, engine="trtllm", method="eagle", k=4, alpha=0.8)
    assert p["spec"]["not_paying_below_break_even"] is not None  # the zigzag
    assert set(roofline.sweep(sc)["break_even_batch"]) == {p["spec"]["break_even_batch"]} == {291}
    big = {"name": "big", "hardware": "h200", "model": "llama-3.1-70b", "tp": 4, "method": "eagle",
           "axes": {"batch": [2 ** i for i in range(11)], "context": list(range(256, 256 + 20 * 300, 300)),
                    "k": list(range(10)), "alpha": [round(0.05 + 0.04 * i, 2) for i in range(20)]}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = roofline.sweep(big)
    said = [str(w.message) for w in caught if "break_even_batch is the largest swept batch" in str(w.message)]
    assert len(said) == 1 and "is the largest swept batch that pays, a lower bound" in said[0]
    assert df.loc[df["break_even_batch"] > 0, "break_even_batch"].isin(big["axes"]["batch"]).all()  # 44,000 points: one block


@pytest.mark.slow
def test_whether_a_sweep_refines_its_break_even_is_decided_from_its_axes_not_its_chunks(tmp_path, roofline):
    """qa77: the refinement's budget was a chunk's, so --chunk-points 1000 refined cells the default chunk left at the
    swept value (199 against 230 on a B200). The decision is now the config's, from its axes."""
    import pandas as pd

    scenario = tmp_path / "c.yaml"
    scenario.write_text("name: c\nhardware: b200\nmodel: llama-3.1-8b\nengine: ideal\nmethod: eagle\naxes:\n"
                        "  batch: [1, 64, 256, 512]\n  context: [128, 512, 2048, 8192, 32768]\n  k: [1, 2, 3, 4]\n"
                        "  alpha: [0.5, 0.6, 0.7, 0.8]\n")
    tables = []
    for chunk in ("1000000", "1000"):
        code, _, err = roofline("sweep", scenario, "--out", tmp_path / chunk, "--no-plots", "--chunk-points", chunk)
        assert code == 0, err
        tables.append(pd.read_parquet(tmp_path / chunk / "results.parquet"))
    pd.testing.assert_series_equal(tables[0]["break_even_batch"], tables[1]["break_even_batch"])
    assert not tables[0]["break_even_batch"].isin([0, 1, 64, 256, 512]).all()  # refined: between the swept batches


@pytest.mark.slow
def test_where_no_swept_batch_fits_the_batches_below_the_first_are_scanned_as_predict_does():
    """Llama-3.1-70B on 2 H100 at 8k: batches 8 and up do not fit, 1-3 do and pay; the sweep said 0 ('never pays')
    where predict says 3 at the memory limit (qa81). Plain rows (k = 0) keep 0."""
    import roofline
    from roofline.findings import break_even_table

    df = roofline.sweep({"name": "below", "hardware": "h100-sxm", "model": "llama-3.1-70b", "tp": 2, "method": "eagle",
                         "engine": "ideal", "axes": {"batch": [8, 16, 64], "context": [8192], "k": [0, 1, 3], "alpha": [0.8]}})
    assert not df["fits_in_memory"].any()
    for k, rows in df.groupby("k"):
        if k == 0:
            assert set(rows["break_even_batch"]) == {0}
            continue
        p = roofline.predict("h100-sxm", "llama-3.1-70b", tp=2, method="eagle", engine="ideal", batch=1, context=8192, k=int(k),
                             alpha=0.8)["spec"]
        assert set(rows["break_even_batch"]) == {p["break_even_batch"]} and p["break_even_batch"] >= 1
    row = break_even_table(df).iloc[0]
    assert row["censored"] and np.isnan(row["largest_fitting_batch"]) and row["break_even_batch"] == row["max_batch"]


@pytest.mark.slow
def test_a_sweep_says_once_that_speculative_gains_at_large_batches_run_optimistic():
    """predict warned of a speculative point at batch 32 or more under a serving engine; a sweep of such points said
    nothing, and its vllm speedup of 1.43 at batch 512 reverses the ideal engine's 0.90 (qa92)."""
    import warnings

    import roofline
    from roofline.errors import RooflineWarning

    def said(engine, batches):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            roofline.sweep({"hardware": "h100", "model": "llama-3.1-8b", "engine": engine, "method": "eagle",
                            "axes": {"batch": batches, "k": [4], "alpha": [0.7], "context": [512]}})
        return [str(w.message) for w in caught if issubclass(w.category, RooflineWarning)
                and "speculative gains at batch" in str(w.message)]

    assert said("vllm", [256, 512]) == ["sweep: under vllm, with a serving engine, speculative gains at batch 32 and above run "
                                        "optimistic (docs/ACCURACY.md): read the sweep's speedups there as upper estimates"]
    assert said("vllm", [1, 16]) == [] and said("ideal", [256, 512]) == []


def test_operators_csv_holds_a_bounded_number_of_batches_and_says_so(monkeypatch):
    """A sweep of 1,000,000 batch values wrote 16 operator rows a batch: 16 GB, then the kernel killed it (qa99)."""
    from roofline import grid
    from roofline.errors import RooflineWarning

    batches = np.arange(1, 1_000_001)
    held = grid.operator_batches(batches)
    assert len(held) == grid.OPERATOR_BATCHES_MAX and held[0] == 1 and held[-1] == 1_000_000
    assert np.all(np.diff(held) > 0) and np.array_equal(batches[np.searchsorted(batches, held)], held)  # swept ones
    assert np.array_equal(grid.operator_batches([1, 4, 16]), [1, 4, 16])
    monkeypatch.setattr(grid, "OPERATOR_BATCHES_MAX", 8)
    sc = scenario_from_dict({"name": "s", "hardware": "h100-sxm", "model": "llama-3.1-8b", "engine": "ideal",
                             "axes": {"batch": list(range(1, 41))}}, "s.yaml")
    with pytest.warns(RooflineWarning, match=r"the operator table \(a sweep's operators.csv\) holds 8 of the 40 swept batches"):
        ops = operator_table(sc, load_configs(sc))
    assert ops["batch"].nunique() == 8 and {1, 40} <= set(ops["batch"])


@pytest.mark.slow
def test_running_out_of_memory_is_one_line_and_leaves_no_output(roofline, tmp_path, monkeypatch):
    """A sweep under a memory limit ended in numpy's _ArrayMemoryError traceback, exit code 1 (qa99)."""
    from roofline import grid

    def no_memory(*args, **kwargs):
        raise MemoryError("Unable to allocate 1.31 GiB for an array with shape (11, 16000000)")

    monkeypatch.setattr(grid, "operator_table", no_memory)
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: s\nhardware: h100-sxm\nmodel: llama-3.1-8b\naxes: {batch: [1, 2]}\n")
    code, out, err = roofline("sweep", scenario, "--out", tmp_path / "out")
    assert code == 2 and err.startswith("error: out of memory") and len(err.splitlines()) == 1
    assert not (tmp_path / "out").exists() and [p.name for p in tmp_path.iterdir()] == ["s.yaml"]


def test_a_sweep_of_k_0_alone_says_the_acceptance_given_is_not_used():
    """qa130: predict warned of it, a sweep with rates or a tree and k [0] said nothing."""
    import roofline
    from roofline.errors import RooflineWarning

    for extra in ({"acceptance": [0.8, 0.6]}, {"tree": {"nodes": 10, "tau": 3.0}}):
        with pytest.warns(RooflineWarning, match="k: only 0 swept: nothing is drafted"):
            roofline.sweep({"name": "k0", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle", **extra,
                            "axes": {"batch": [1], "k": [0]}})


@pytest.mark.slow
def test_one_list_of_rates_for_several_methods_is_said_once():
    """qa256: `method: [ngram, eagle]` beside one `acceptance` list compared the two at equal acceptance in silence,
    which their heatmaps and the report read as n-gram beating EAGLE."""
    import warnings

    import roofline
    from roofline.errors import RooflineWarning

    base = {"name": "m", "hardware": "h100-sxm", "model": "llama-3.1-8b", "axes": {"batch": [1], "k": [0, 2]}}
    with pytest.warns(RooflineWarning) as got:
        roofline.sweep({**base, "method": ["ngram", "eagle"], "acceptance": [0.8, 0.6]})
    said = [str(w.message) for w in got if "for every method swept" in str(w.message)]
    assert said == ["sweep: one list of per-position rates for every method swept (ngram and eagle): they are compared at "
                    "equal acceptance, which their drafters need not reach alike; to compare them at what each was "
                    "measured to accept, sweep each in a scenario of its own with its own rates"]
    for one in ({"method": "eagle", "acceptance": [0.8, 0.6]}, {"method": ["ngram", "eagle"]}):  # one method; published rates
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            roofline.sweep({**base, **one})
        assert not [w for w in caught if "for every method swept" in str(w.message)]


def test_a_sweep_of_drafting_k_alone_where_only_plain_decoding_fits_says_so_not_that_nothing_fits():
    """qa129: '... (method draft, drafter on the target) fits in device memory at no point of the sweep, not even at
    its smallest batch and context' where plain decoding (k 0, unswept) fits: the finding said 'with the drafter'."""
    import roofline
    from roofline.errors import RooflineWarning

    with pytest.warns(RooflineWarning, match=r"speculation fits in device memory at no point of the sweep \(the drafter and "
                      r"its k \+ 1 tokens per sequence take the memory\); plain decoding \(k 0, not swept here\) does") as got:
        roofline.sweep({"name": "d", "hardware": "h100-sxm", "model": "llama-3.1-70b", "weight_dtype": "fp8", "method": "draft",
                        "draft": "llama-3.1-8b", "axes": {"batch": [1, 2], "context": [1024], "k": [1, 2], "alpha": [0.8]}})
    assert not any("not even at its smallest batch" in str(w.message) for w in got)


@pytest.mark.slow
def test_a_sweep_under_sglang_says_its_speculating_batches_past_48_assume_its_cap_raised():
    """sglang.yaml's max_running_requests_speculating: SGLang decodes at most 48 sequences at once while speculating
    unless --max-running-requests is set; a sweep to batch 64 says so once, one to batch 48 and vLLM's say nothing."""
    import warnings

    import roofline

    def said(batches, engine):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "engine": engine, "method": "eagle",
                            "axes": {"batch": batches, "k": [0, 2], "alpha": [0.7]}})
        return [str(w.message) for w in caught if "at most 48 sequences at once" in str(w.message)]

    assert len(said([1, 64], "sglang")) == 1 and said([1, 64], "sglang")[0].startswith("sweep: speculating under sglang: it runs at most 48")
    assert said([1, 48], "sglang") == [] and said([1, 64], "vllm") == []
    assert "the server option --max-running-requests raises it" in said([1, 64], "sglang")[0]  # its profile's flag


def test_a_copy_of_vllm_with_a_cap_is_not_told_sglangs_flag(tmp_path):
    """qa181: `engines new vcap --from vllm --set max_running_requests_speculating=64` was told "SGLang raises it with
    --max-running-requests"."""
    import dataclasses

    from roofline.layout import deployment
    from roofline.model import load_model
    from roofline.serving import load_engine, speculation_engine_notes

    vcap = dataclasses.replace(load_engine("vllm"), name="vcap", max_running_requests_speculating=64)
    note = speculation_engine_notes(vcap, "eagle", 100, deployment(load_model("llama-3.1-8b")))
    assert len(note) == 1 and "at most 64 sequences" in note[0] and "--max-running-requests" not in note[0]


@pytest.mark.slow
def test_a_copy_of_sglang_under_another_name_is_told_the_flag_its_profile_names(roofline, tmp_path):
    """The flag came from the profile's name (reads_as_sglang): `engines new myeng --from sglang` copies every SGLang
    field under a name without "sglang" and was not told --max-running-requests; the profile now names it
    (max_running_requests_flag), and a copy keeps it."""
    code, _, err = roofline("engines", "new", "myeng", "--from", "sglang", "--dir", tmp_path)
    assert code == 0, err
    code, out, err = roofline("--profiles", tmp_path, "predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b",
                              "--engine", "myeng", "--batch", "64", "--method", "eagle", "--k", "3", "--alpha", "0.7")
    assert code == 0, err
    assert "at most 48 sequences" in out + err and "the server option --max-running-requests raises it" in out + err
    code, out, _ = roofline("--profiles", tmp_path, "engines", "show", "myeng")
    assert code == 0 and "--max-running-requests raises it" in out
    code, _, err = roofline("engines", "new", "bad", "--from", "sglang", "--dir", tmp_path,
                            "--set", "max_running_requests_flag=max-running")
    assert code == 2 and "max_running_requests_flag" in err and "a server option like --max-running-requests" in err


@pytest.mark.slow
def test_the_operator_table_gives_attention_the_ceiling_its_time_was_priced_at(tmp_path, roofline, monkeypatch):
    """qa197: operators.csv listed the aggregate attention ceiling where an attention_stream cap set the time."""
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    assert roofline("hw", "new", "gpu", "--from", "h200", "--set", "operator_ceilings.attention_stream=25 GB/s")[0] == 0
    assert roofline("engines", "new", "torch-sdpa", "--from", "ideal", "--set", "attention_splits_keys=false")[0] == 0
    for engine, capped, pp in (("torch-sdpa", True, 1), ("ideal", False, 1), ("torch-sdpa", True, 2)):
        sc = scenario_from_dict({"hardware": "gpu", "model": "llama-3.1-8b", "engine": engine, "pp": pp,
                                 "axes": {"batch": [1, 256], "context": [4096]}}, "s.yaml")
        ops = operator_table(sc, load_configs(sc))
        attention = ops[(ops.operator == "attention") & (ops["pass"] == "decode")].set_index("batch")
        priced = attention["bytes"] / attention["time_s"]  # memory-bound at q = 1
        np.testing.assert_allclose(attention["memory_ceiling_bytes_per_s"], priced, rtol=1e-6)
        assert bool(attention.loc[1, "memory_ceiling_bytes_per_s"] == pytest.approx(8 * 25e9)) is capped


@pytest.mark.slow
def test_a_sweeps_dispatch_note_is_one_line_an_engine_listing_its_layouts():
    """qa210: the note on what an expert dispatch's latency rests on was printed once a config: 8 near-copies."""
    import warnings

    import roofline

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        roofline.sweep({"name": "x", "hardware": "h200", "model": "deepseek-v3", "method": "none", "engine": "sglang",
                        "layouts": [{"tp": 1, "dp_attention": 8, "ep": 8}, {"tp": 2, "dp_attention": 4, "ep": 8}],
                        "axes": {"batch": [16, 64], "context": [1024]}})
    said = [str(w.message) for w in caught if "a lower estimate for the all-gather and reduce-scatter" in str(w.message)]
    assert len(said) == 1 and "deepseek-v3 dp_attention 8 ep 8 on h200; deepseek-v3 dp_attention 4 ep 8 on h200" in said[0]


@pytest.mark.slow
def test_the_dispatch_note_names_a_pipeline_layout_apart():
    """qa245: dp_attention 8 ep 8 at pp 1 and pp 2 were said as 'in 1 config'."""
    import warnings

    import roofline

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        roofline.sweep({"name": "x", "hardware": "h200", "model": "deepseek-v3", "method": "none", "engine": "sglang",
                        "layouts": [{"dp_attention": 8, "ep": 8}, {"dp_attention": 8, "ep": 8, "pp": 2}],
                        "axes": {"batch": [64], "context": [1024]}})
    said = [str(w.message) for w in caught if "the expert dispatch under sglang" in str(w.message)]
    assert len(said) == 1 and ("in 2 configs (deepseek-v3 dp_attention 8 ep 8 on h200; deepseek-v3 dp_attention 8 ep 8 "
                               "pp 2 on h200)") in said[0]


@pytest.mark.slow
def test_no_dispatch_note_for_a_layout_its_engine_has_no_setup_for():
    """qa240: a sweep of vllm-v0 (no attention DP) at dp_attention 8 said no setup runs it, and beside it what its expert
    dispatch's latency rests on."""
    import warnings

    import roofline

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        roofline.sweep({"name": "x", "hardware": "h200", "model": "deepseek-v3", "method": "none",
                        "engine": ["vllm-v0", "vllm"], "layouts": [{"tp": 1, "dp_attention": 8, "ep": 8}],
                        "axes": {"batch": [64], "context": [1024]}})
    said = [str(w.message) for w in caught]
    assert any("no vllm-v0 setup has this layout" in w for w in said)
    dispatch = [w for w in said if "a lower estimate for the all-gather and reduce-scatter" in w]
    assert len(dispatch) == 1 and "vllm-v0" not in dispatch[0] and "vllm" in dispatch[0]


@pytest.mark.slow
def test_a_sweep_of_an_engine_on_a_device_it_does_not_run_on_says_that_alone_of_it():
    """TensorRT-LLM on an MI300X: the sweep said no deployment runs it, and beside it its priors and its optimism."""
    import warnings

    import roofline

    said = {}
    for hw in ("mi300x", "h100-sxm"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            roofline.sweep({"name": "x", "hardware": hw, "model": "llama-3.1-8b", "method": "eagle", "engine": "trtllm",
                            "axes": {"batch": [1, 64], "context": [1024], "k": [0, 3], "alpha": [0.7]}})
        said[hw] = [str(w.message) for w in caught if "trtllm" in str(w.message)]
    assert len(said["mi300x"]) == 1 and "describe no deployment" in said["mi300x"][0]
    assert any("run optimistic" in w for w in said["h100-sxm"]) and any("no measured row" in w for w in said["h100-sxm"])


@pytest.mark.slow
def test_a_sweep_says_its_engines_cap_and_tp_across_domains_once_naming_the_configs():
    """qa229: 'batch 256 while speculating under sglang: it runs at most 48 ...' three times, each worded its own way and
    naming no layout (one of a batch that did not fit), and tp 16 across two nodes' all-reduce latency said by predict
    alone."""
    import warnings

    from roofline.errors import RooflineWarning

    sc = scenario_from_dict({"name": "cap", "hardware": "h200", "model": "qwen3-235b-a22b", "method": "eagle",
                             "engine": ["sglang", "vllm"],
                             "layouts": [{"tp": 8}, {"dp_attention": 8, "ep": 8}, {"tp": 16}],
                             "axes": {"batch": [1, 256], "context": [4096], "k": [0, 3], "alpha": [0.7]}}, "cap.yaml")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RooflineWarning)
        load_configs(sc)
    said = [str(w.message) for w in caught]
    caps = [s for s in said if "at most 48" in s]
    assert len(caps) == 1 and caps[0].startswith("speculating under sglang: it runs at most 48 sequences at once")
    assert "in 3 configs (qwen3-235b-a22b on h200, tp 8; qwen3-235b-a22b on h200, tp 1, dp-attention 8, ep 8: 6 in each of " \
           "its 8 attention-DP groups; qwen3-235b-a22b on h200, tp 16)" in caps[0]
    spans = [s for s in said if s.startswith("tp spans scale-up domains")]
    assert len(spans) == 1 and "(qwen3-235b-a22b on h200, tp 16)" in spans[0] and "20 us" in spans[0]
    # a batch above the cap that does not fit is not said: 1,024 sequences of 32k do not fit beside an 8B model on an H200
    sc = scenario_from_dict({"name": "cap1", "hardware": "h200", "model": "llama-3.1-8b", "method": "eagle", "engine": "sglang",
                             "tp": 1, "axes": {"batch": [1, 1024], "context": [32768], "k": [3], "alpha": [0.7]}}, "cap1.yaml")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RooflineWarning)
        load_configs(sc)
    assert not [w for w in caught if "at most 48" in str(w.message)]


@pytest.mark.slow
def test_a_sweep_says_which_contexts_are_past_its_draft_models_positions():
    """qa243: a draft model's own trained positions were never checked (vLLM caps the drafter there)."""
    import warnings

    import roofline

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        roofline.sweep({"name": "x", "hardware": "h100-sxm", "model": "llama-2-70b", "method": "draft",
                        "draft": "tinyllama-1.1b", "layouts": [{"tp": 4}],
                        "axes": {"batch": [1, 8], "context": [1024, 4096], "k": [0, 3], "alpha": [0.7]}})
    said = [str(w.message) for w in caught if "draft model tinyllama-1.1b's 2,048 trained positions" in str(w.message)]
    assert len(said) == 1 and said[0].startswith("sweep: context 4,096 (1 of 2) is past")


@pytest.mark.slow
def test_a_sweep_says_where_a_batch_below_its_break_even_loses():
    """qa275: a drafter on an L4 beside 4 H100s lost at batch 32 (0.947x) and 64 under a break_even_batch of 223 in
    every row, and the sweep said nothing: the column reads as 'pays up to 223'."""
    import warnings

    import roofline

    sc = {"name": "dip", "hardware": "h100-sxm", "model": "llama-3.1-70b", "tp": 4, "method": "draft", "draft": "llama-3.2-1b",
          "draft_hardware": "l4", "axes": {"batch": [1, 16, 32, 64, 128], "context": [2048], "k": [1], "alpha": [0.8]}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = roofline.sweep(sc)
    said = [str(w.message) for w in caught if "not the first that loses" in str(w.message)]
    losing = df[(df["batch"] < df["break_even_batch"]) & (df["speedup"] < 1) & df["fits_in_memory"]]
    assert len(losing) and len(said) == 1 and "in 1 (config, context, alpha, k) cell(s) a swept batch below it loses" in said[0]
    assert "(a drafter on its own device overlaps only where that pays)" in said[0]  # qa280: the causes that apply only
    assert "MoE" not in said[0] and "smallest batches" not in said[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        roofline.sweep({**sc, "draft_hardware": None})  # co-located: no dip
    assert not any("not the first that loses" in str(w.message) for w in caught)
    # qa280: a dense 8B with a co-located draft model at alpha 0.5 loses at batch 1 (0.993x) and pays at 64: its cause
    # is the drafter's fixed costs, not an offload or MoE experts it does not have
    sc = {"name": "rise", "hardware": "mi300x", "model": "llama-3.1-8b", "method": "draft", "draft": "llama-3.2-1b",
          "axes": {"batch": [1, 4, 16, 64], "context": [2048], "k": [2], "alpha": [0.5]}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = roofline.sweep(sc)
    said = [str(w.message) for w in caught if "not the first that loses" in str(w.message)]
    assert df.loc[df["batch"] == 1, "speedup"].iloc[0] < 1 < df.loc[df["batch"] == 64, "speedup"].iloc[0]
    assert len(said) == 1 and "(at the smallest batches the drafter's fixed cost an iteration outweighs what it saves" in said[0]
    assert "own device" not in said[0] and "MoE" not in said[0]


def test_plain_decodings_rows_have_best_k_0_whatever_k_is_swept():
    """qa277: method none's rows read best_k 1 (argmax's tie over a k axis of [1, 2]), as if drafting one token."""
    import roofline

    df = roofline.sweep({"name": "bk", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": ["none", "eagle"],
                         "axes": {"batch": [1, 8], "context": [1024], "k": [1, 2], "alpha": [0.6, 0.8]}})
    assert set(df.loc[df["method"] == "none", "best_k"]) == {0}
    assert set(df.loc[df["method"] == "eagle", "best_k"]) <= {1, 2}


def test_a_sweep_of_one_alpha_at_every_position_says_its_best_k_runs_optimistic():
    """qa313: predict says a best k found under one alpha at every draft position runs optimistic; a sweep (and the
    report, recommending the largest k swept) of an alpha axis to k 8 said nothing. Said once a method; not of
    per-position rates, nor to k 1."""
    import warnings

    import roofline
    from roofline.errors import RooflineWarning

    def said(**given):
        axes = {"batch": [1, 8], "context": [512], **given.pop("axes")}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            roofline.sweep({"hardware": "h100", "model": "llama-3.1-8b", "method": "eagle", "axes": axes, **given})
        return [str(w.message) for w in caught if issubclass(w.category, RooflineWarning)
                and "at every draft position" in str(w.message)]

    assert said(axes={"k": [1, 4, 8], "alpha": [0.6, 0.8]}) == [
        "sweep: eagle: each alpha is taken at every draft position, to k 8; acceptance falls with the position in practice, so "
        "the best k and the gains at the larger k run optimistic: per-position rates (acceptance: in the scenario) place "
        "them better"]
    assert said(axes={"k": [1], "alpha": [0.6]}) == []
    assert said(axes={"k": [1, 3]}, acceptance=[0.8, 0.6, 0.5]) == []


def test_the_host_work_share_over_a_quarter_is_never_printed_as_25_percent():
    """qa313: 'over a quarter of the plain step ... 25% at batch 192' (25.47%): a share that rounds to 25% is printed
    with a decimal."""
    import warnings

    import roofline
    from roofline.errors import RooflineWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-70b", "tp": 4, "engine": "vllm", "method": "eagle",
                        "axes": {"batch": [1, 192], "context": [2048], "k": [0, 2], "alpha": [0.7]}})
    said = [str(w.message) for w in caught if issubclass(w.category, RooflineWarning) and "over a quarter" in str(w.message)]
    assert len(said) == 1 and "llama-3.1-70b on h100-sxm tp 4 25.5% at batch 192" in said[0], said


def _serving_scenario(**extra) -> dict:
    return {"name": "serve", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle", "prompt": 1024,
            "output_len": 256, "axes": {"batch": [1, 8, 64], "k": [0, 3], "alpha": [0.7]}, **extra}


@pytest.mark.slow
def test_a_request_adds_the_serving_columns_predict_prints_at_the_same_point():
    """A scenario could not carry prompt and output_len: sweeps showed decode-only gains where a serving benchmark's
    time per output token adds the other requests' prefills (session 54's note). Each serving column is predict's."""
    import roofline
    from roofline.grid import COLUMNS, SERVING_COLUMNS

    df = roofline.sweep(_serving_scenario())
    assert tuple(df.columns) == (*COLUMNS, *SERVING_COLUMNS) and set(df["context"]) == {1024 + 128}  # the request's mean
    for batch in (1, 8, 64):
        p = roofline.predict("h100-sxm", "llama-3.1-8b", batch, 1152, method="eagle", k=3, alpha=0.7, prompt=1024, output_len=256)
        spec, plain = (df[(df.batch == batch) & (df.k == k)].iloc[0] for k in (3, 0))
        assert spec.ttft_s == pytest.approx(p["ttft_s"], rel=1e-12)
        assert spec.serving_time_per_output_token_s == pytest.approx(p["spec"]["serving_time_per_output_token_s"], rel=1e-12)
        assert spec.baseline_serving_time_per_output_token_s == pytest.approx(p["serving_time_per_output_token_s"], rel=1e-12)
        assert spec.serving_ttft_s == pytest.approx(p["spec"]["serving_ttft_s"], rel=1e-12)
        assert spec.baseline_serving_ttft_s == pytest.approx(p["serving_ttft_s"], rel=1e-12)
        assert plain.serving_speedup == 1.0 and plain.serving_time_per_output_token_s == plain.baseline_serving_time_per_output_token_s
        assert spec.serving_cost_usd_per_million_tokens == pytest.approx(p["spec"]["serving_cost_usd_per_million_tokens"], rel=1e-12)
        assert spec.baseline_serving_cost_usd_per_million_tokens == pytest.approx(p["serving_cost_usd_per_million_tokens"], rel=1e-12)
    at = df[df.k == 3].set_index("batch")
    assert at.loc[1, "serving_speedup"] == pytest.approx(at.loc[1, "speedup"])  # no other request's prefill at batch 1
    assert at.loc[64, "serving_speedup"] < at.loc[64, "speedup"]  # each prefill stalls a wider verify pass longer
    assert "ttft_s" not in roofline.sweep({**_serving_scenario(), "prompt": None, "output_len": None}).columns


@pytest.mark.slow
def test_a_request_s_serving_columns_are_written_and_a_draft_model_s_prefill_joins_its_ttft(tmp_path):
    """The tables carry the columns (sweep_columns), scenario.json the request; a draft model prefills the prompt too."""
    import json

    from roofline.grid import SERVING_COLUMNS, write_sweep

    data = _serving_scenario(method="draft", draft="llama-3.2-1b", model="llama-3.1-70b", tp=4)
    sc = scenario_from_dict(data, "serve.yaml")
    write_sweep(sc, load_configs(sc), tmp_path, plots=False)
    table = pd.read_parquet(tmp_path / "results.parquet")
    csv = pd.read_csv(tmp_path / "results.csv")
    assert set(SERVING_COLUMNS) <= set(table.columns) and list(csv.columns) == list(table.columns)
    meta = json.loads((tmp_path / "scenario.json").read_text())
    assert (meta["prompt"], meta["output_len"]) == (1024, 256)
    one = table[(table.batch == 1) & (table.k == 3)].iloc[0]
    assert one.serving_ttft_s > one.ttft_s == one.baseline_serving_ttft_s  # the draft model's own prefill, before it drafts


def test_a_request_is_prompt_and_output_len_together_in_range():
    with pytest.raises(RooflineError, match=r"^s\.yaml: output_len: expected a number of tokens beside prompt .*found nothing$"):
        scenario_from_dict({**_serving_scenario(), "output_len": None}, "s.yaml")
    with pytest.raises(RooflineError, match=r"^s\.yaml: prompt: expected a number of tokens beside output_len"):
        scenario_from_dict({**_serving_scenario(), "prompt": None}, "s.yaml")
    with pytest.raises(RooflineError, match=r"^s\.yaml: prompt: expected a number of tokens in 1\.\.1,000,000,000, found 0$"):
        scenario_from_dict({**_serving_scenario(), "prompt": 0}, "s.yaml")
    with pytest.raises(RooflineError, match=r"^s\.yaml: output_len: expected a number of tokens in 1\.\.1,000,000,000, found true$"):
        scenario_from_dict({**_serving_scenario(), "output_len": True}, "s.yaml")
    with pytest.raises(RooflineError, match=r"^s\.yaml: prompt and output_len: expected a request whose mean context, prompt "
                                            r"\+ output_len / 2, is at most 1,000,000,000 tokens .*found 1,000,001,000$"):
        scenario_from_dict({**_serving_scenario(), "prompt": 999_999_000, "output_len": 4000, "axes": {"batch": [1]}}, "s.yaml")
    sc = scenario_from_dict({**_serving_scenario(), "prompt": 2000.0}, "s.yaml")
    assert sc.prompt == 2000 and list(sc.axes["context"]) == [2128]
    with pytest.warns(UserWarning, match=r"axes\.context: a request of 1,024 prompt and 256 output tokens decodes at 1,152 on "
                                         r"average, and the serving columns at context 8,192 price its steps there"):
        scenario_from_dict({**_serving_scenario(), "axes": {"batch": [1], "context": [1152, 8192]}}, "s.yaml")
    import warnings

    for context, said in ((1400, False), (1500, True)):  # more than 25% from the request's mean, 1,152, is said
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scenario_from_dict({**_serving_scenario(), "axes": {"batch": [1], "context": [context]}}, "s.yaml")
        assert any("decodes at 1,152 on average" in str(w.message) for w in caught) is said, context


@pytest.mark.slow
def test_a_request_s_serving_columns_for_a_tree_and_a_drafter_on_its_own_device_are_predict_s():
    """qa346: the tree's verify tokens (N + 1, not k + 1) and a drafter model's prefill on its own device were untested."""
    import roofline

    cases = [({"method": "eagle", "tree": {"nodes": 15, "tau": 3.5}, "axes": {"batch": [1, 16], "k": [4]}},  # vllm mixes
              dict(method="eagle", k=4, tree_nodes=15, tree_tau=3.5), "llama-3.1-8b", 1),  # prefills: its stall sees q_v
             ({"method": "draft", "draft": "llama-3.2-1b", "draft_hardware": "l4", "tp": 4,
               "axes": {"batch": [1, 16], "k": [3], "alpha": [0.7]}},
              dict(method="draft", draft="llama-3.2-1b", draft_hardware="l4", k=3, alpha=0.7, tp=4), "llama-3.1-70b", 4),
             ({"shared_prefix": 512, "axes": {"batch": [1, 16], "k": [3], "alpha": [0.7]}},  # a cached prefix (qa347)
              dict(method="eagle", k=3, alpha=0.7, shared_prefix=512), "llama-3.1-8b", 1)]
    for extra, options, model, _ in cases:
        df = roofline.sweep({**_serving_scenario(), "model": model, **extra})
        for batch in (1, 16):
            p = roofline.predict("h100-sxm", model, batch, 1152, prompt=1024, output_len=256, **options)
            row = df[df.batch == batch].iloc[0]
            assert row.serving_time_per_output_token_s == pytest.approx(p["spec"]["serving_time_per_output_token_s"], rel=1e-12)
            assert row.serving_ttft_s == pytest.approx(p["spec"]["serving_ttft_s"], rel=1e-12)
            assert row.ttft_s == pytest.approx(p["ttft_s"], rel=1e-12)


def test_a_request_written_as_text_is_read_as_its_number_as_the_axes_are():
    """qa347: prompt: '2000' was refused where an axis takes "8"; the value said as the file wrote it where refused."""
    sc = scenario_from_dict({**_serving_scenario(), "prompt": "2000", "output_len": "300"}, "s.yaml")
    assert (sc.prompt, sc.output_len) == (2000, 300) and isinstance(sc.prompt, int)
    with pytest.raises(RooflineError, match=r"^s\.yaml: prompt: expected a number of tokens in 1\.\.1,000,000,000, found '2k' "
                                            r"\(write 2048 for 2 x 1,024, or 2000 for 2 x 1,000\)$"):  # its digits (qa431)
        scenario_from_dict({**_serving_scenario(), "prompt": "2k"}, "s.yaml")


def test_a_shared_prefix_longer_than_the_request_s_prompt_is_refused():
    """qa349: predict warned of it, a sweep priced a 1-token prefill in silence; qa354: warned, the serving columns
    described no request (a prefix every sequence shares is part of each prompt). Said before the context's bound."""
    with pytest.raises(RooflineError, match=r"^s\.yaml: shared_prefix: expected at most the prompt's 4,000 tokens \(a prefix "
                                            r"every sequence shares is part of each prompt: give prompt as the whole "
                                            r"prompt, the prefix included\), found 4100$"):
        scenario_from_dict({**_serving_scenario(), "prompt": 4000, "output_len": 400, "shared_prefix": [0, 4100],
                            "axes": {"batch": [1], "context": [4200]}}, "s.yaml")
    with pytest.raises(RooflineError, match="at most the prompt's 1,000 tokens"):  # past the mean context too
        scenario_from_dict({**_serving_scenario(), "prompt": 1000, "output_len": 500, "shared_prefix": 2000}, "s.yaml")
    sc = scenario_from_dict({**_serving_scenario(), "prompt": 4000, "output_len": 400, "shared_prefix": 4000}, "s.yaml")
    assert max(sc.shared_prefix) == 4000  # the whole prompt shared: taken, a token more not (qa355: the bound unpinned)
    with pytest.raises(RooflineError, match="found 4001$"):
        scenario_from_dict({**_serving_scenario(), "prompt": 4000, "output_len": 400, "shared_prefix": 4001}, "s.yaml")


def test_a_sweep_of_a_shared_prefix_says_how_each_engine_holds_prefills_and_reads_it():
    """qa349: predict's header said it, no sweep did, where panels of prefix 0 and 3,000 drew alike (read by each
    sequence) and the prefill of a cached prefix fell 3.6x."""
    import roofline
    from roofline.errors import RooflineWarning

    with pytest.warns(RooflineWarning, match=r"shared_prefix: under vllm the prefix is held once and not prefilled again "
                                             r"\(prefix_cached true\), read by each sequence \(prefix_read_once false\); "
                                             r"under vllm-v0 the prefix is held by each sequence and prefilled whole"):
        roofline.sweep({**_serving_scenario(), "engine": ["vllm", "vllm-v0"], "shared_prefix": [0, 512]})
    import warnings

    with warnings.catch_warnings(record=True) as caught:  # without a request nothing is prefilled (qa350: 'prefilled
        warnings.simplefilter("always")  # whole' said of a decode-only sweep)
        roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "engine": "vllm-v0", "shared_prefix": 512})
    (note,) = [str(w.message) for w in caught if "shared_prefix: under" in str(w.message)]
    assert note.endswith("under vllm-v0 the prefix is held by each sequence (prefix_cached false), read by each sequence "
                         "(prefix_read_once false)"), note
    with pytest.warns(RooflineWarning, match=r"under ideal the prefix is held once \(prefix_cached true\), read once a step"):
        roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "engine": "ideal", "shared_prefix": 512})


@pytest.mark.slow
def test_an_engine_whose_prefix_cache_is_off_while_speculating_prices_its_speculating_points_uncached():
    """sglang-early (SGLang 0.4 turned its radix cache off under EAGLE: prefix_cached_speculating false): a speculating
    point is priced as by a copy that caches no prefix (its memory, max batch, serving time and TTFT), a plain one (k
    = 0, and every baseline column) as by one that caches it while speculating too."""
    import dataclasses
    import warnings

    import roofline
    from roofline.serving import load_engine, speculating_engine

    early = load_engine("sglang-early")
    assert (early.prefix_cached, early.prefix_cached_speculating) == (True, False)
    sglang = load_engine("sglang")
    assert sglang.prefix_cached_speculating and speculating_engine(sglang) is sglang  # SGLang's own keeps its cache
    never, always = (dataclasses.replace(early, name=n, **kw) for n, kw in
                     (("never", {"prefix_cached": False}), ("always", {"prefix_cached_speculating": True})))
    base = {"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle", "prompt": 3000, "output_len": 300,
            "shared_prefix": 2500, "axes": {"batch": [1, 16, 64, 256], "k": [0, 3], "alpha": [0.7], "context": [3150]}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df, off, on = (roofline.sweep({**base, "engine": e}) for e in (early, never, always))
    spec = df["k"] > 0
    speculating = ["max_batch", "fits_in_memory", "memory_needed_bytes", "tokens_per_s", "serving_ttft_s",
                   "serving_time_per_output_token_s", "serving_tokens_per_s", "serving_cost_usd_per_million_tokens"]
    for column in speculating:
        assert np.allclose(df.loc[spec, column].astype(float), off.loc[spec, column].astype(float)), column
    plain = ["baseline_max_batch", "ttft_s", "baseline_serving_ttft_s", "baseline_serving_time_per_output_token_s"]
    for column in plain:
        assert np.allclose(df[column].astype(float), on[column].astype(float)), column
    for column in speculating:  # and a k = 0 row's are plain decoding's
        assert np.allclose(df.loc[~spec, column].astype(float), on.loc[~spec, column].astype(float)), column
    # the prefix held in each speculating sequence: a batch of 141 where 709 fit cached (the cached one 616 with
    # the drafter's KV, `always`)
    assert df.loc[spec, "max_batch"].iloc[0] == off.loc[spec, "max_batch"].iloc[0] < on.loc[spec, "max_batch"].iloc[0]
    assert df.loc[~spec, "max_batch"].iloc[0] == on.loc[~spec, "max_batch"].iloc[0] > off.loc[~spec, "max_batch"].iloc[0]
    assert (df.loc[spec, "serving_ttft_s"].to_numpy() > on.loc[spec, "serving_ttft_s"].to_numpy()).all()
    with pytest.warns(UserWarning, match=r"under sglang-early the prefix is held once and not prefilled again \(prefix_cached "
                                         r"true\), read by each sequence \(prefix_read_once false\), and while speculating "
                                         r"held and read by each sequence and prefilled whole \(prefix_cached_speculating false\)"):
        roofline.sweep({**base, "engine": "sglang-early"})


def test_a_request_half_given_or_a_list_of_prompts_is_said_on_its_line(tmp_path):
    """qa354: `output_len` alone said 'prompt: expected ...' with no line; `prompt: [1000, 2000]` said nothing of why."""
    from roofline.scenario import load_scenario

    path = tmp_path / "b.yaml"
    path.write_text("name: b\nhardware: h100-sxm\nmodel: llama-3.1-8b\noutput_len: 200\n")
    with pytest.raises(RooflineError, match=rf"^{re.escape(str(path))}: line 4: prompt: expected a number of tokens beside "
                                            r"output_len \(a request's prompt and output tokens go together"):
        load_scenario(str(path))
    path.write_text("name: b\nhardware: h100-sxm\nmodel: llama-3.1-8b\nprompt: [1000, 2000]\noutput_len: 200\n")
    with pytest.raises(RooflineError, match=r"line 4: prompt: expected a number of tokens in 1\.\.1,000,000,000 \(one request "
                                            r"a scenario: a scenario for each prompt length\), found \[1000, 2000\]$"):
        load_scenario(str(path))


@pytest.mark.slow
def test_the_memory_columns_are_predicts_weights_kv_cache_and_usable_memory_at_the_same_point():
    """A sweep's `weight_bytes`, `kv_bytes` and `usable_memory_bytes` (qa361: a planner saw `fits_in_memory` false
    with neither what was needed nor what the engine gives): predict's at the same point, under pp the binding stage's;
    a verify pass's KV cache is that of k more tokens of context, and `fits_in_memory` is needed <= usable."""
    import warnings

    import roofline

    base = {"hardware": "h100-sxm", "model": "llama-3.1-70b", "method": "eagle", "tp": 2, "pp": 2,
            "axes": {"batch": [1, 64, 4096], "context": [4096], "k": [0, 3], "alpha": [0.7]}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = roofline.sweep(base)
    for row in df.itertuples():
        p = roofline.predict("h100-sxm", "llama-3.1-70b", batch=int(row.batch), context=int(row.context) + int(row.k),
                             tp=2, pp=2)
        assert row.weight_bytes == pytest.approx(p["weight_bytes"], rel=1e-12)
        assert row.kv_bytes == pytest.approx(p["kv_bytes"], rel=1e-12)
        assert row.usable_memory_bytes == pytest.approx(p["usable_memory_bytes"], rel=1e-12)
    assert (df["fits_in_memory"] == (df["memory_needed_bytes"] <= df["usable_memory_bytes"])).all()
    plain, spec = df[df.k == 0], df[df.k > 0]
    assert np.allclose(plain["weight_bytes"] + plain["kv_bytes"], plain["memory_needed_bytes"])
    assert (spec["memory_needed_bytes"] > spec["weight_bytes"] + spec["kv_bytes"]).all()  # the EAGLE head beside them
    assert not df["fits_in_memory"].all() and df["fits_in_memory"].any()


@pytest.mark.slow
def test_the_memory_columns_are_the_targets_with_a_drafter_on_its_own_device():
    """qa368: with a draft model on an L4 of its own, the columns are a target device's (a mutant taking the drafter
    device's weights and usable memory survived); fits_in_memory also needs the drafter's device to hold its batch."""
    import warnings

    import roofline

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = roofline.sweep({"hardware": "h200", "model": "llama-3.1-70b", "tp": 8, "method": "draft",
                             "draft": "llama-3.1-8b", "draft_hardware": "l4",
                             "axes": {"batch": [1, 16, 64], "context": [8192], "k": [0, 3], "alpha": [0.7]}})
    for row in df.itertuples():
        p = roofline.predict("h200", "llama-3.1-70b", batch=int(row.batch), context=int(row.context) + int(row.k), tp=8)
        for column in ("weight_bytes", "kv_bytes", "usable_memory_bytes"):
            assert getattr(row, column) == pytest.approx(p[column], rel=1e-12), column
    spec = df[df["k"] > 0]
    assert (spec["memory_needed_bytes"] <= spec["usable_memory_bytes"]).all() and not spec["fits_in_memory"].all()


@pytest.mark.slow
def test_the_refinement_budget_takes_the_most_any_config_fits_at_the_shortest_context_and_the_meta_says_it(tmp_path, roofline):
    """qa381's surviving mutants of _most_that_fit (the shortest context, the largest config's cap) and of scenario_meta's
    break_even_refined (the configs passed there too)."""
    import json

    from roofline.capacity import capacity
    from roofline.grid import _most_that_fit

    data = {"name": "m", "hardware": "h100-sxm", "model": ["llama-3.1-8b", "llama-3.1-70b"], "tp": 4, "method": "eagle",
            "axes": {"batch": [1, 64, 4096], "context": [1024, 32768], "k": [0, 1, 2, 3, 4, 5, 6], "alpha": [0.8]}}
    sc = scenario_from_dict(data, "m.yaml")
    configs = load_configs(sc)
    caps = [int(capacity(c.hw, c.model, 1, 1025, c.dep, engine=c.engine)["max_batch"]) for c in configs]
    assert _most_that_fit(sc, configs) == max(caps) > min(caps)
    assert max(caps) > int(capacity(configs[0].hw, configs[0].model, 1, 32769, configs[0].dep, engine=configs[0].engine)["max_batch"])
    from roofline.grid import refines_break_even

    assert not refines_break_even(sc)[0] and refines_break_even(sc, configs)[0]  # 14 cells x 4,031 batches: not from the
    path = tmp_path / "m.yaml"  # axes alone; refined as far as what fits
    path.write_text(json.dumps(data))
    assert roofline("sweep", path, "--out", tmp_path / "o", "--no-plots")[0] == 0
    assert json.loads((tmp_path / "o" / "scenario.json").read_text())["break_even_refined"] is True


@pytest.mark.slow
def test_a_sweep_says_the_drafter_placement_what_if_once_naming_every_device():
    """qa398: the report's draft-offload section said the what-if of a drafter on a device of its own once a drafter
    device (l4, l40s, a10g: three lines alike but for the name); one line now names them all, under each engine."""
    import warnings

    from roofline.scenario import load_scenario

    sc = load_scenario("draft-offload")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_configs(sc)
    said = [str(w.message) for w in caught if "what-if" in str(w.message)]
    assert len(said) == 1 and "a drafter on a device of its own (l4, l40s, a10g) is a what-if under vllm: " in said[0], said
    families = [str(w.message) for w in caught if "fitted.hardware_families" in str(w.message)]  # the drafter devices of
    assert len(families) == 1 and "and the drafter's devices l4 and l40s are NVIDIA Ada: " in families[0], families  # one family


@pytest.mark.slow
def test_a_known_miss_matching_several_configs_is_said_once_naming_them():
    """qa398: a known miss matching two configs of a sweep (two DeepSeek models on 8 H200 under vllm, vllm-v0's
    dstack miss) was said twice, each time with the definition of its percentages; once now, naming both. It was
    measured on DeepSeek-R1 (V3's architecture): DeepSeek-V4, which vLLM's V0 engine never ran, matches it no more."""
    import warnings

    sc = scenario_from_dict({"name": "t", "hardware": "h200", "model": ["deepseek-v3", "deepseek-r1", "deepseek-v4-flash"],
                             "tp": 8, "engine": "vllm", "axes": {"batch": [1, 16, 64], "context": [4096]}}, "t.yaml")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_configs(sc)
    said = [str(w.message) for w in caught if "DeepSeek-R1 on 8 H200" in str(w.message)]
    assert len(said) == 1, said
    assert ("so the same prediction as here for each of 2 configs (deepseek-v3 on h200 at tp 8; deepseek-r1 on h200 "
            "at tp 8): DeepSeek-R1") in said[0] and said[0].count("x% short") == 1, said
    one = scenario_from_dict({"name": "t", "hardware": "h200", "model": "deepseek-v3", "kv_dtype": ["bf16", "fp8"], "tp": 8,
                              "engine": "vllm", "axes": {"batch": [1, 16, 64], "context": [4096]}}, "t.yaml")
    with warnings.catch_warnings(record=True) as caught:  # two configs at one layout name it once (qa409)
        warnings.simplefilter("always")
        load_configs(one)
    said = [str(w.message) for w in caught if "DeepSeek-R1 on 8 H200" in str(w.message)]
    assert len(said) == 1 and "so the same prediction as here for deepseek-v3 on h200 at tp 8: DeepSeek-R1" in said[0], said


def test_a_layout_for_another_model_of_the_scenario_is_left_out_for_a_model_that_refuses_it():
    """qa436: `layouts: [{tp: 4}, {tp: 8}, {tp: 8, ep: 8}]` beside Llama (dense) and a MoE model refused the whole
    scenario ('ep: expected 1 for a dense model'); the ep 8 layout is now left out for Llama alone, said once. A layout
    no model takes, and a model that takes none of the layouts, are still refused."""
    import warnings

    base = {"name": "lay", "hardware": "h200", "model": ["llama-3.1-70b", "qwen3-30b-a3b"],
            "axes": {"batch": [1], "context": [2048]}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        configs = load_configs(scenario_from_dict({**base, "layouts": [{"tp": 4}, {"tp": 8}, {"tp": 8, "ep": 8}]}, "lay"))
    layouts = {(c.model.name, c.dep.tp, c.dep.ep) for c in configs}
    assert layouts == {("llama-3.1-70b", 4, 1), ("llama-3.1-70b", 8, 1), ("qwen3-30b-a3b", 4, 1), ("qwen3-30b-a3b", 8, 1),
                       ("qwen3-30b-a3b", 8, 8)}
    said = [str(w.message) for w in caught if "left out for" in str(w.message)]
    assert said == ["lay: layouts[2] (tp 8, ep 8) left out for llama-3.1-70b, which another model takes: ep: expected 1 "
                    "for a dense model (llama-3.1-70b has no experts), found 8"], said
    with pytest.raises(RooflineError, match=r"layouts\[0\]: ep: expected 1 for a dense model .* \(every layout of the list "
                                            r"refused for llama-3.1-70b: give it one it takes"):
        load_configs(scenario_from_dict({**base, "layouts": [{"tp": 8, "ep": 8}]}, "lay"))
    with pytest.raises(RooflineError, match=r"layouts\[1\]: tp: expected a divisor"):  # no model takes tp 3
        load_configs(scenario_from_dict({**base, "layouts": [{"tp": 4}, {"tp": 3}]}, "lay"))


def test_the_notes_that_list_configs_leave_out_a_layout_the_engines_refuse_to_load():
    """qa436: the host-work note quoted 'minimax-m2.7 on h200 tp 8 45% at batch 512', and the fitted-on note counted it,
    where another warning of the same sweep says vLLM and SGLang refuse to load MiniMax-M2.7's FP8 shard at tp 8."""
    import warnings

    sc = scenario_from_dict({"name": "mmw", "hardware": "h200", "model": "minimax-m2.7", "method": "eagle", "tp": [4, 8],
                             "axes": {"batch": [1, 64, 512], "context": [4096], "k": [0, 3], "alpha": [0.8]}}, "mmw")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_configs(sc)
    said = [str(w.message) for w in caught]
    assert any("minimax-m2.7 at tp 8: the checkpoint's 128 x 128 block scales" in m for m in said)  # the refusal
    listing = [m for m in said if "speculation pays the engine's host work" in m or "was fitted on rows of" in m]
    assert listing and not any("tp 8" in m for m in listing), listing
    assert any("minimax-m2.7 on h200, tp 4" in m for m in listing)  # the layout it runs, still said


def test_a_layout_one_model_of_three_takes_is_left_out_for_each_that_refuses_it(tmp_path, roofline):
    """qa437's survivors of qa436's change: a layout one model of three takes is left out, said, for each of the two
    that refuse it; where every layout is refused for a model, the first refusal is the one said, nothing written."""
    def sweep(models: str, layouts: str, out: str):
        path = tmp_path / "lay.yaml"
        path.write_text(f"name: lay\nhardware: h200\nmodel: [{models}]\nlayouts: {layouts}\n"
                        "axes:\n  batch: [1]\n  context: [2048]\n")
        return roofline("sweep", path, "--out", tmp_path / out, "--no-plots")

    code, out, err = sweep("llama-3.1-70b, qwen3-30b-a3b, llama-3.1-8b", "[{tp: 4}, {tp: 8}, {tp: 8, ep: 8}]", "sw")
    assert code == 0, err
    df = pd.read_csv(tmp_path / "sw" / "results.csv")
    assert sorted(set(zip(df["model"], df["tp"], df["ep"]))) == [
        ("llama-3.1-70b", 4, 1), ("llama-3.1-70b", 8, 1), ("llama-3.1-8b", 4, 1), ("llama-3.1-8b", 8, 1),
        ("qwen3-30b-a3b", 4, 1), ("qwen3-30b-a3b", 8, 1), ("qwen3-30b-a3b", 8, 8)]
    text = " ".join(err.split())
    for name in ("llama-3.1-70b", "llama-3.1-8b"):
        assert (f"layouts[2] (tp 8, ep 8) left out for {name}, which another model takes: ep: expected 1 for a dense "
                f"model ({name} has no experts), found 8") in text, err
    code, out, err = sweep("llama-3.1-70b, qwen3-30b-a3b", "[{tp: 4, ep: 4}, {tp: 8, ep: 8}]", "sw2")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert ("layouts[0]: ep: expected 1 for a dense model (llama-3.1-70b has no experts), found 4 (every layout of the list "
            "refused for llama-3.1-70b: give it one it takes, or sweep it in a scenario of its own)") in err, err
    assert not (tmp_path / "sw2" / "results.csv").exists()
