"""roofline/grid.py at its edges (qa453's mutation round): sweep columns, flags, notes and scenario.json."""

import numpy as np
import pytest

from roofline.grid import load_configs, run_sweep
from roofline.scenario import scenario_from_dict


def _sweep(data: dict, name: str = "t.yaml"):
    sc = scenario_from_dict({"name": "t", **data}, name)
    return run_sweep(sc, load_configs(sc))


@pytest.mark.slow
def test_plain_decodings_per_user_rate_is_one_token_a_step_on_every_row():
    """baseline_tokens_per_s_per_user = 1 / t_step (a sequence gets one token a plain step), also on drafting rows, where
    the iteration time differs; and it is baseline_tokens_per_s / B."""
    df = _sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                 "axes": {"batch": [1, 16], "k": [0, 3], "alpha": [0.8], "context": [2048]}})
    drafting = df[df.k == 3]
    assert (drafting.iteration_time_s != drafting.step_time_s).all()  # the mutant's 1 / t_iter would differ
    assert np.allclose(df.baseline_tokens_per_s_per_user, 1.0 / df.step_time_s, rtol=1e-12)
    assert np.allclose(df.baseline_tokens_per_s_per_user, df.baseline_tokens_per_s / df.batch, rtol=1e-12)


def test_a_tree_sweep_reports_no_best_k_as_minus_1():
    """A tree's tau at another depth is unknown: best_k is -1 on every row (compute_block), not the swept depth that
    happens to be fastest."""
    df = _sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle", "tree": {"nodes": 15, "tau": 3.5},
                 "axes": {"batch": [1, 16], "k": [0, 4], "context": [2048]}})
    assert (df[df.k == 4].speedup > 1).all()  # depth 4 is the faster: an argmax would pick it
    assert (df.best_k == -1).all()


def test_a_config_that_fits_nowhere_is_not_flagged_at_its_memory_limit():
    """break_even_at_memory_limit is (be > 0) & (be == max_batch): where nothing fits both are 0 and no break-even was
    found, so the flag is false (a 70B model in bf16 on one 24 GB L4)."""
    df = _sweep({"hardware": "l4", "model": "llama-3.1-70b", "method": "eagle",
                 "axes": {"batch": [1, 16], "k": [0, 3], "alpha": [0.8], "context": [2048]}})
    assert (df.max_batch == 0).all() and (df.break_even_batch == 0).all()
    assert not df.break_even_at_memory_limit.any() and not df.break_even_at_last_batch.any()


def test_the_refinement_scan_counts_the_batches_below_the_first_swept_one():
    """refines_break_even: the widest gap is the widest between swept batches or below the first (batches 1 .. b_0 - 1,
    scanned where no swept batch pays): batches [1000, 1001] at one (context, alpha, k) cell scan up to 999 batches."""
    from roofline.grid import refines_break_even

    sc = scenario_from_dict({"name": "t", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                             "axes": {"batch": [1000, 1001], "k": [3], "alpha": [0.8], "context": [2048]}}, "t.yaml")
    assert refines_break_even(sc) == (True, 1 * (1000 - 1))


def test_the_refinement_budget_is_5_percent_of_a_configs_points_where_that_is_over_50000():
    """Budget max(50,000, 5% x cells x batches): 100 contexts x 126 alphas x 1 k = 12,600 cells, batches 1, 6, ..., 496
    (100 of them, gaps of 4 batches) scan 12,600 x 4 = 50,400 > 50,000 batches, within 5% of 12,600 x 100 = 63,000."""
    from roofline.grid import refines_break_even

    axes = {"batch": list(range(1, 500, 5)), "k": [3], "alpha": [round(0.3 + 0.005 * i, 3) for i in range(126)],
            "context": list(range(1024, 1024 + 100 * 64, 64))}
    sc = scenario_from_dict({"name": "t", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle", "axes": axes},
                            "t.yaml")
    assert refines_break_even(sc) == (True, 12_600 * 4)


@pytest.mark.slow
def test_a_break_even_that_is_a_swept_batch_stays_where_no_batch_of_the_gap_after_it_pays():
    """_refined_break_even scans lo + 1 .. hi - 1 after the last swept batch that pays; where none of them pays the
    break-even stays that swept batch (max(lo, last)), as predict's search finds it."""
    import warnings

    import roofline

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = roofline.predict("h100-sxm", "llama-3.1-8b", 64, 256, method="eagle", k=3, alpha=0.6, engine="ideal")
        be = p["spec"]["break_even_batch"]
        assert 2 < be and p["spec"]["break_even_speedup"] > 1
        df = roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle", "engine": "ideal",
                             "axes": {"batch": [1, be, be + 10], "context": [256], "k": [3], "alpha": [0.6]}})
    assert (df.max_batch > be + 10).all()
    assert (df.break_even_batch == be).all()


def test_the_devices_column_counts_every_device_of_the_replica():
    """devices = tp x dp_attention x pp (layout.Deployment.devices): tp 2 x pp 2 is 4 devices, each paid, and
    tokens_per_s_per_device divides by them."""
    from roofline.hardware import load_hardware

    df = _sweep({"hardware": "h100-sxm", "model": "llama-3.1-70b", "tp": 2, "pp": 2, "method": "none",
                 "axes": {"batch": [8], "k": [0], "context": [2048]}})
    row = df.iloc[0]
    assert (row.tp, row.pp, row.devices) == (2, 2, 4)
    assert row.tokens_per_s_per_device == pytest.approx(row.tokens_per_s / 4, rel=1e-12)
    price = load_hardware("h100-sxm").price_usd_per_hour
    assert row.cost_usd_per_million_tokens == pytest.approx(4 * price / 3600 / row.tokens_per_s * 1e6, rel=1e-12)


def test_operators_csv_holds_1024_batches_at_most_as_docs_api_says():
    """docs/API.md: operators.csv holds every swept batch, 1,024 of them at most (the smallest and largest among them)."""
    from roofline.grid import operator_batches

    assert np.array_equal(operator_batches(np.arange(1, 1025)), np.arange(1, 1025))  # 1,024: all of them
    held = operator_batches(np.arange(1, 2001))
    assert len(held) == 1024 and held[0] == 1 and held[-1] == 2000


def test_a_last_swept_batch_that_is_the_memory_limit_is_not_said_to_have_larger_batches_fitting():
    """A batch axis ending at max_batch (51 for llama-3.1-8b + EAGLE k 4 at 8k context on an h100-sxm under vllm) where
    speculation still pays: break_even_batch 51 is memory's bound (break_even_at_memory_limit), not the sweep's last
    batch 'where larger batches fit', which no larger batch does."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = _sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                     "axes": {"context": [8192], "batch": [1, 16, 51], "k": [4], "alpha": [0.9]}})
    assert (df.max_batch == 51).all() and (df.break_even_batch == 51).all() and (df.speedup > 1).all()
    assert df.break_even_at_memory_limit.all() and not df.break_even_at_last_batch.any()
    assert not [w for w in caught if "break_even_batch is the sweep's last batch" in str(w.message)]


def test_operators_csv_of_a_tree_has_one_row_per_operator_pass_and_batch_verifying_its_nodes_plus_one():
    """operator_table: a config differing only in method runs the same target passes (kept once); operators with
    neither FLOPs nor bytes (a dense model's router, experts, indexer) are left out; the verify pass of a tree of 15 nodes
    runs q = 15 + 1 = 16 tokens a sequence (docs/API.md). llama-3.1-8b has 8 operators with work: embedding,
    qkv_proj, o_proj, attention, kv_write, mlp, norms, lm_head: 8 x 2 batches x 2 passes = 32 rows."""
    from roofline.grid import operator_table

    sc = scenario_from_dict({"name": "t", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": ["none", "eagle"],
                             "tree": {"nodes": 15, "tau": 3.5}, "axes": {"batch": [1, 16], "k": [4], "context": [2048]}},
                            "t.yaml")
    configs = load_configs(sc)
    assert len(configs) == 2
    ops = operator_table(sc, configs)
    assert sorted(ops.operator.unique()) == sorted(["embedding", "qkv_proj", "o_proj", "attention", "kv_write", "mlp",
                                                    "norms", "lm_head"])
    assert len(ops) == 32 and not ops.duplicated(["pass", "batch", "operator"]).any()
    assert set(ops[ops["pass"] == "decode"].q) == {1.0} and set(ops[ops["pass"] == "verify"].q) == {16.0}


@pytest.mark.slow
def test_operators_csv_gives_attention_the_ceiling_of_a_micro_batchs_sequences_under_pp(tmp_path, roofline, monkeypatch):
    """engine.attention_memory_ceiling under an engine whose attention does not split keys: min(aggregate, S x stream),
    S = B_a x kv heads over the sequences of one micro-batch, B / min(B, pp): batch 8 at pp 2 is 4 sequences x 8 KV heads
    = 32 streams of 25 GB/s, 800 GB/s (not batch 8's 64 streams, 1.6 TB/s)."""
    from roofline.grid import operator_table

    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    assert roofline("hw", "new", "gpu", "--from", "h200", "--set", "operator_ceilings.attention_stream=25 GB/s")[0] == 0
    assert roofline("engines", "new", "torch-sdpa", "--from", "ideal", "--set", "attention_splits_keys=false")[0] == 0
    sc = scenario_from_dict({"hardware": "gpu", "model": "llama-3.1-8b", "engine": "torch-sdpa", "pp": 2,
                             "axes": {"batch": [8], "context": [4096]}}, "s.yaml")
    ops = operator_table(sc, load_configs(sc))
    attention = ops[(ops.operator == "attention") & (ops["pass"] == "decode")].iloc[0]
    assert attention.memory_ceiling_bytes_per_s == pytest.approx(4 * 8 * 25e9, rel=1e-12)
    assert attention.memory_ceiling_bytes_per_s == pytest.approx(attention["bytes"] / attention.time_s, rel=1e-6)


def test_scenario_json_names_one_method_as_a_string_and_several_as_a_list_in_the_files_order():
    from roofline.grid import scenario_meta

    for methods, said in (("eagle", "eagle"), (["eagle", "none"], ["eagle", "none"])):
        sc = scenario_from_dict({"name": "t", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": methods,
                                 "axes": {"batch": [1], "k": [3], "alpha": [0.8], "context": [2048]}}, "t.yaml")
        assert scenario_meta(sc, load_configs(sc), 1)["method"] == said


def test_the_notes_batch_is_the_largest_swept_batch_that_plain_decoding_fits_that_batch_included():
    """_largest_fitting_batch: the largest swept batch <= max_batch at the shortest context (capacity at context + 1):
    with the cap itself swept, and the batch after it, the notes say the cap."""
    import warnings

    from roofline.capacity import capacity

    data = {"name": "t", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
            "axes": {"batch": [64], "k": [2], "alpha": [0.6], "context": [256]}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = load_configs(scenario_from_dict(data, "t.yaml"))[0]
    cap = int(capacity(c.hw, c.model, 1, 257, c.dep, engine=c.engine)["max_batch"])
    assert cap > 1024  # above vllm's 1,024 sequences at once: its note names the batch too
    sc = scenario_from_dict({**data, "axes": {**data["axes"], "batch": [64, cap, cap + 1]}}, "t.yaml")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_configs(sc)
    said = [str(w.message) for w in caught]
    assert any(m.startswith(f"batch {cap:,} under vllm: it runs at most 1,024 sequences at once") for m in said), said
    assert any(f"% at batch {cap:,})" in m for m in said if "host work" in m), said


def test_a_note_names_six_configs_and_counts_the_rest():
    from roofline.grid import _configs_text

    assert _configs_text(["a"]) == "1 config (a)"
    assert _configs_text(list("abcdef")) == "6 configs (a; b; c; d; e; f)"
    assert _configs_text(list("abcdefgh")) == "8 configs (a; b; c; d; e; f; and 2 more)"


def test_verify_adds_host_names_an_engine_that_overlaps_host_work_only_in_plain_decoding_at_pp_1():
    """scenario.json's verify_adds_host: engines whose host work a decode step hides and a verify pass pays (sglang:
    host_overlap true, host_overlap_speculating false), at pp 1 only (under pp a micro-batch's host work lies on its
    round trip in both passes)."""
    import warnings

    from roofline.grid import scenario_meta

    for pp, said in ((1, ["sglang"]), (2, None)):
        sc = scenario_from_dict({"name": "t", "hardware": "h100-sxm", "model": "llama-3.1-8b", "engine": "sglang",
                                 "method": "eagle", "pp": pp, "axes": {"batch": [8], "k": [2], "alpha": [0.6],
                                                                      "context": [2048]}}, "t.yaml")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            configs = load_configs(sc)
        assert configs and scenario_meta(sc, configs, 1)["verify_adds_host"] == said


def test_scenario_json_keeps_alpha_a_float_and_the_integer_axes_integers():
    import json

    from roofline.grid import scenario_meta

    sc = scenario_from_dict({"name": "t", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                             "axes": {"batch": [1, 8], "k": [2], "alpha": [0.5, 1.0], "context": [2048]}}, "t.yaml")
    axes = json.loads(json.dumps(scenario_meta(sc, load_configs(sc), 4)["axes"]))
    assert axes["batch"] == [1, 8] and all(type(v) is int for v in axes["batch"] + axes["k"] + axes["context"])
    assert axes["alpha"] == [0.5, 1.0] and all(type(v) is float for v in axes["alpha"])


def test_rates_that_rise_only_past_the_largest_swept_k_are_not_warned():
    """load_configs warns of rising per-position rates among the positions drafted (qa137): rates 0.9, 0.8, 0.95 at
    k up to 2 draft positions 1 and 2 alone (0.9 then 0.8, falling); at k 3 the rise to 0.95 is drafted and said."""
    import warnings

    for k, said in ((2, False), (3, True)):
        sc = scenario_from_dict({"name": "t", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                                 "acceptance": [0.9, 0.8, 0.95], "axes": {"batch": [1], "k": [k], "context": [2048]}}, "t.yaml")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            load_configs(sc)
        assert any("the rates rise with the position (0.8 then 0.95 at draft position 3)" in str(w.message)
                   for w in caught) is said


def test_host_work_under_a_quarter_of_the_plain_step_is_not_noted():
    """The host-work note is said where that work is over HOST_SHARE_NOTED (a quarter) of the plain step at the largest
    swept batch that fits: at batch 1 and an 8k context, vllm's 61 us a sequence is a small share of a 8B model's step
    (16 GB of weights and 1 GB of KV read at 3.35 TB/s: about 5 ms)."""
    import warnings

    sc = scenario_from_dict({"name": "t", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                             "axes": {"batch": [1], "k": [2], "alpha": [0.6], "context": [8192]}}, "t.yaml")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_configs(sc)
    assert not [w for w in caught if "speculation pays the engine's host work" in str(w.message)]


def test_a_note_of_a_config_that_fits_nowhere_names_its_pipeline_degree():
    """_config_text names dp_attention, ep and pp where above 1: pp 2 is said."""
    import warnings

    sc = scenario_from_dict({"name": "t", "hardware": "l4", "model": "llama-3.1-70b", "pp": 2, "method": "none",
                             "axes": {"batch": [1], "k": [0], "context": [2048]}}, "t.yaml")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_sweep(sc, load_configs(sc))
    said = [str(w.message) for w in caught if "fits in device memory at no point" in str(w.message)]
    assert len(said) == 1 and "llama-3.1-70b on 2 x l4 (tp 1, pp 2, bf16 weights" in said[0], said


@pytest.mark.slow
def test_a_sweep_of_exactly_the_points_held_in_memory_is_plotted(tmp_path):
    """write_sweep draws the plots of a sweep of at most keep_in_memory_max points: at exactly that many, it does."""
    from roofline.grid import write_sweep

    sc = scenario_from_dict({"name": "t", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                             "axes": {"batch": [1, 8], "k": [0, 2], "alpha": [0.6], "context": [2048]}}, "t.yaml")
    summary = write_sweep(sc, load_configs(sc), tmp_path, plots=True, keep_in_memory_max=sc.points, fmt="csv")
    assert summary["points"] == sc.points == 4 and summary["plots_skipped"] is False
    assert any(name.endswith(".png") for name in summary["files"])


def test_a_target_that_fits_nowhere_is_said_so_before_its_drafters_device():
    """iter_blocks: where neither the target (llama-3.1-70b in bf16 on one 24 GB L4) nor plain decoding fits anywhere,
    the note says the config fits nowhere, not that the drafter (llama-3.1-8b's 16 GB on a 16 GB tpu-v5e) is what does
    not fit."""
    import warnings

    sc = scenario_from_dict({"name": "t", "hardware": "l4", "model": "llama-3.1-70b", "method": "draft",
                             "draft": "llama-3.1-8b", "draft_hardware": "tpu-v5e",
                             "axes": {"batch": [1], "k": [2], "alpha": [0.6], "context": [2048]}}, "t.yaml")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_sweep(sc, load_configs(sc))
    said = [str(w.message) for w in caught if "t.yaml: llama-3.1-70b on 1 x l4" in str(w.message)]
    assert len(said) == 1 and said[0].endswith("fits in device memory at no point of the sweep, not even at its smallest "
                                               "batch and context"), said


def test_scenario_json_lists_each_shared_prefix_once_sorted():
    from roofline.grid import scenario_meta

    sc = scenario_from_dict({"name": "t", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": ["none", "eagle"],
                             "shared_prefix": [512, 0], "axes": {"batch": [1], "k": [2], "alpha": [0.6], "context": [2048]}},
                            "t.yaml")
    configs = load_configs(sc)
    assert len(configs) == 4 and scenario_meta(sc, configs, 4)["shared_prefix"] == [0, 512]


def test_run_sweeps_label_columns_are_categoricals_of_sorted_categories():
    """blocks_frame(categorical=True): each label column a categorical of sorted categories, whatever the file's order."""
    df = _sweep({"hardware": ["h200", "h100-sxm"], "model": "llama-3.1-8b", "method": "none",
                 "axes": {"batch": [1], "k": [0], "context": [2048]}})
    assert list(df.hardware) == ["h200", "h100-sxm"]  # the rows in the file's order
    assert list(df.hardware.cat.categories) == ["h100-sxm", "h200"]


def test_unfitted_overlapped_host_work_that_sets_the_step_at_the_largest_batch_is_noted():
    """_host_bound_somewhere tries both ends of the batch axis: sglang's priors (1.5 ms a step + 10 us a sequence,
    overlapped) are 1.5 ms + 2,048 x 10 us = 22 ms at batch 2,048, longer than llama-3.2-1b's device work at a
    128-token context (2.5 GB of weights, 8.7 GB of KV and 5.1 TFLOP: predict's operators take 12.6 ms on an h100-sxm),
    so they set the step there, not at batch 1: the note naming them is said for the axis [1, 2048], and not for [1] alone."""
    import warnings

    for batches, said in (([1, 2048], True), ([1], False)):
        sc = scenario_from_dict({"name": "t", "hardware": "h100-sxm", "model": "llama-3.2-1b", "engine": "sglang",
                                 "method": "none", "axes": {"batch": batches, "k": [0], "context": [128]}}, "t.yaml")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            load_configs(sc)
        assert any("no measured row determines sglang's host_per_step" in str(w.message) for w in caught) is said
