"""roofline.measurements at its edges (qa450's mutation round): what it reads, refuses and predicts: version and engine-name
boundaries, the cells' bounds, the rows refused by rule, a replica's share of the mean in flight, Little's law at a
memory-capped batch, and the memory line's rows."""

import pandas as pd
import pytest

from roofline.errors import RooflineError
from roofline.limits import BATCH_MAX, K_MAX
from roofline.measurements import (
    COLUMNS,
    _version,
    engine_slot,
    load_measurements,
    memory_capped_text,
    predict_measurements,
)

BASE = {
    "source_id": "test", "source": "here", "engine": "vllm", "engine_version": "0.9", "hardware": "h100-sxm", "gpus": "1",
    "tp": "1", "ep": "1", "dp_attention": "1", "model": "llama-3.1-8b", "weight_dtype": "bf16", "kv_dtype": "bf16",
    "batch": "1", "input_len": "512", "output_len": "256", "method": "none", "k": "0", "acceptance_length": "",
    "quantity": "tokens_per_s_per_user", "value": "100", "split": "heldout", "notes": "",
}


def write_rows(tmp_path, rows, name="m.csv", columns=COLUMNS):
    path = tmp_path / name
    pd.DataFrame([{**BASE, **r} for r in rows], columns=list(columns)).to_csv(path, index=False)
    return path


def test_the_early_profiles_end_exactly_at_vllm_0_8_and_sglang_0_4_5():
    assert _version("0.4") == (0, 4, 0) and _version("v0.4.4.post1") == (0, 4, 4)
    assert engine_slot("sglang", "0.4.4") == engine_slot("sglang", "0.4") == "sglang-early"  # below 0.4.5
    assert engine_slot("sglang", "0.4.5") == "sglang"
    assert engine_slot("vllm", "0.7.99") == "vllm-v0" and engine_slot("vllm", "0.8") == "vllm"


@pytest.mark.parametrize("text", ["TRT-LLM 0.9", "trt_llm", "TensorRT-LLM", "trtllm-serve"])
def test_every_spelling_of_tensorrt_llm_is_its_profile(text):
    assert engine_slot(text) == "trtllm"


def test_the_largest_counts_a_row_may_hold_are_read(tmp_path):
    path = write_rows(tmp_path, [{"method": "eagle", "k": str(K_MAX), "batch": str(BATCH_MAX)}])
    table = load_measurements(path)
    assert table["k"].iloc[0] == K_MAX and table["batch"].iloc[0] == BATCH_MAX


@pytest.mark.parametrize(("change", "expected"), [
    ({"value": "0"}, "row 1 (line 2): value: expected a finite positive number, found '0'"),
    ({"batch": "4", "concurrency": "0"}, "row 1 (line 2): concurrency: expected the mean requests in flight (> 0), or empty, "
                                         "found '0'"),
    ({"method": "eagle", "k": "4", "acceptance_length": "2", "draft_tokens": "4"},
     "row 1 (line 2): draft_tokens: expected at least k + 1 = 5 tokens verified per sequence, found '4'"),
    ({"quantity": "speedup", "value": "1.5"}, "row 1 (line 2): quantity: expected a speed (not speedup) with method none, "
                                              "found 'speedup'"),
])
def test_a_cell_at_its_bound_is_refused_in_one_line(tmp_path, change, expected):
    path = write_rows(tmp_path, [change], columns=[*COLUMNS, *(c for c in change if c not in COLUMNS)])
    with pytest.raises(RooflineError) as err:
        load_measurements(path)
    assert str(err.value) == f"{path}: {expected}"


def test_tp_that_does_not_count_whole_attention_groups_is_not_read_as_sglangs(tmp_path):
    # tp 3 is no multiple of dp_attention 2: not SGLang's tp = dp x tp_layout, so 3 x 2 = 6 devices on 4 GPUs
    path = write_rows(tmp_path, [{"engine": "sglang", "engine_version": "0.5.3", "model": "qwen3-30b-a3b", "tp": "3",
                                  "dp_attention": "2", "gpus": "4", "batch": "8"}])
    with pytest.raises(RooflineError, match=r"row 1: gpus: expected at least tp x dp_attention x pp = 6 devices, found 4$"):
        predict_measurements(load_measurements(path))


def test_each_replica_runs_its_share_of_the_mean_in_flight(tmp_path):
    # 2 replicas of one GPU; 6 requests in flight on average: C_r = 6 / 2 = 3 each (module docstring)
    path = write_rows(tmp_path, [{"gpus": "2", "batch": "8", "concurrency": "6", "quantity": "step_time_s", "value": "0.01"}])
    out = predict_measurements(load_measurements(path))
    assert out["replicas"].iloc[0] == 2 and out["running_batch"].iloc[0] == 3.0


def test_littles_law_counts_the_sequences_that_run_where_memory_caps_the_mean_in_flight(tmp_path):
    # 3,000 in flight asked, far fewer 32,256-token sequences fit on one H100: tokens_per_s = R b O / (t_own + stalls + O t_tok)
    path = write_rows(tmp_path, [{"batch": "4096", "concurrency": "3000", "input_len": "32000", "quantity": "tokens_per_s",
                                  "value": "500"}])
    out = predict_measurements(load_measurements(path)).iloc[0]
    assert 1 <= out["running_batch"] < 3000
    assert out["predicted"] == pytest.approx(
        out["replicas"] * out["running_batch"] * 256 / (out["prefill_time_s"] + 256 * out["per_token_time_s"]), rel=1e-12)


def test_the_memory_line_names_up_to_eight_rows():
    rows = pd.DataFrame({"row": [3, 5, 9], "running_batch": [10.0, 20.0, 1234.0], "asked_sequences": [64.0, 64.0, 4096.0]})
    text = memory_capped_text(rows)
    assert text.startswith("memory: 3 rows predicted at the batch whose KV cache fits beside the weights, the rest waiting "
                           "in the engine's queue (row 3 at 10 of its 64; row 5 at 20 of its 64; row 9 at 1,234 of its "
                           "4,096): ")


def _bound(tmp_path, change):
    """ideal's prediction of a row: the roofline bound check_plausible compares it with."""
    return float(predict_measurements(load_measurements(write_rows(tmp_path, [change], "bound.csv")), "ideal")["predicted"][0])


@pytest.mark.parametrize(("quantity", "refused", "kept"), [
    ("step_time_s", 150.0, 90.0),            # times the bound's step time: more than 100x slower is refused
    ("tokens_per_s_per_user", 1 / 15, 1 / 8),  # times the bound's speed: more than 10x faster is refused
])
def test_accuracy_refuses_a_measurement_past_the_plausible_factors_of_the_bound(tmp_path, quantity, refused, kept):
    from roofline.accuracy import accuracy_table

    bound = _bound(tmp_path, {"quantity": quantity})
    factor = refused if quantity == "step_time_s" else 1 / refused
    with pytest.raises(RooflineError, match=r"row 1: value: expected a measurement at most 100x slower and 10x faster "
                                            r"than the roofline bound"):
        accuracy_table(write_rows(tmp_path, [{"quantity": quantity, "value": f"{bound * factor:.6g}"}]))
    factor = kept if quantity == "step_time_s" else 1 / kept
    assert len(accuracy_table(write_rows(tmp_path, [{"quantity": quantity, "value": f"{bound * factor:.6g}"}]))) == 1


def test_a_speedup_row_is_never_refused_as_implausible(tmp_path):
    from roofline.measurements import check_plausible

    table = load_measurements(write_rows(tmp_path, [{"method": "eagle", "k": "3", "quantity": "speedup", "value": "0.01"}]))
    check_plausible(table, [2.0], "here")  # a speedup 200 times below the bound's: passed, as the docstring says


def test_a_speculative_rows_speed_per_user_is_one_over_its_time_per_token(tmp_path):
    # tokens_per_s_per_user = 1 / t_tok, t_tok = t_iter / tau: not the plain decode step's 1 / t_step
    path = write_rows(tmp_path, [{"method": "eagle", "k": "3", "acceptance_length": "2.5"}])
    out = predict_measurements(load_measurements(path)).iloc[0]
    assert out["predicted"] == pytest.approx(1.0 / out["per_token_time_s"], rel=1e-12)
    assert out["predicted"] > 1.2 / out["decode_step_time_s"]  # tau 2.5 pays off at batch 1


def test_a_row_one_token_past_the_models_trained_positions_is_said(tmp_path):
    import warnings

    # llama-3.1-8b: 131,072 trained positions (max_context_tokens); 130,817 + 256 = 131,073
    path = write_rows(tmp_path, [{"input_len": "130817", "quantity": "step_time_s", "value": "0.01"},
                                 {"input_len": "130816", "quantity": "step_time_s", "value": "0.01"}])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        predict_measurements(load_measurements(path), where=str(path))
    said = [str(w.message) for w in caught if "trained positions" in str(w.message)]
    assert len(said) == 1 and said[0].startswith(f"{path}: row 1: input_len + output_len (up to 131,073) is past "
                                                 "llama-3.1-8b's 131,072 trained positions"), said


RESULT = {"backend": "vllm", "max_concurrency": 32, "completed": 320, "duration": 60.0, "total_input_tokens": 327680,
          "total_output_tokens": 163840, "output_throughput": 2730.7, "mean_tpot_ms": 11.2}


def _convert(tmp_path, result, name="run.json", model_name="llama-3.1-8b", **options):
    import json

    from roofline.measurements import convert_benchmark

    path = tmp_path / name
    path.write_text(json.dumps(result) + ("\n" if name.endswith(".jsonl") else ""))
    return convert_benchmark(path, hardware="h100-sxm", model=model_name, **options)


def test_convert_rounds_the_mean_lengths_to_the_nearest_token(tmp_path):
    # 159,940 / 200 = 799.7 -> 800 input tokens; 39,990 / 200 = 199.95 -> 200 output tokens
    raw = _convert(tmp_path, {**RESULT, "completed": 200, "total_input_tokens": 159940, "total_output_tokens": 39990})
    assert (raw["input_len"].iloc[0], raw["output_len"].iloc[0]) == ("800", "200")


def test_convert_refuses_a_mean_in_flight_more_than_2pct_above_the_cap(tmp_path):
    # the cap 32: 32 x 1.02 + 0.05 = 32.69 allowed (written at the cap), 35 refused
    raw = _convert(tmp_path, {**RESULT, "concurrency": 32.5}, name="ok.json")
    assert set(raw["concurrency"]) == {"32"}
    with pytest.raises(RooflineError, match=r"over\.json: result 1: concurrency: expected at most the batch 32 "
                                            r"\(max_concurrency\): a run cannot keep more requests in flight than its "
                                            r"client allows, found '?35'?"):
        _convert(tmp_path, {**RESULT, "concurrency": 35.0}, name="over.json")


def test_convert_says_drafts_that_held_well_under_k_tokens(tmp_path):
    import warnings

    from roofline.errors import RooflineWarning

    trimmed = {**RESULT, "spec_decode_acceptance_length": 2.0, "spec_decode_num_drafts": 1000,
               "spec_decode_draft_tokens": 2200}  # 2.2 tokens a draft against k 3: more than half a token short
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _convert(tmp_path, trimmed, method="eagle", k=3)
    said = [str(w.message) for w in caught if issubclass(w.category, RooflineWarning) and "drafts held" in str(w.message)]
    assert len(said) == 1 and "its drafts held 2.20 tokens on average against --k 3" in said[0], said


def test_a_json_result_of_a_generic_backend_with_sglangs_own_fields_is_sglangs(tmp_path):
    # one JSON document (not JSON lines), backend openai, but fields only SGLang's bench_serving writes
    raw = _convert(tmp_path, {**RESULT, "backend": "openai", "random_range_ratio": 0.0, "concurrency": 30.1})
    assert set(raw["engine"]) == {"sglang"}


def test_implausible_rows_past_the_first_are_counted(tmp_path):
    from roofline.measurements import check_plausible

    table = load_measurements(write_rows(tmp_path, [{"quantity": "step_time_s", "value": "9", "batch": b} for b in ("1", "2", "4")] + [{}]))
    with pytest.raises(RooflineError, match=r"^here: row 1: value: .*; 2 more rows like it$"):
        check_plausible(table, [0.005, 0.005, 0.005, 100.0], "here")


def test_a_file_of_more_rows_than_the_limit_is_refused(tmp_path, monkeypatch):
    import roofline.measurements as measurements

    monkeypatch.setattr(measurements, "MAX_ROWS", 2)
    path = write_rows(tmp_path, [{}, {"batch": "2"}, {"batch": "4"}])
    with pytest.raises(RooflineError, match=r": expected at most 2 rows, found 3$"):
        load_measurements(path)


def test_convert_refuses_an_acceptance_length_below_one_token(tmp_path):
    # 0.8 tokens an iteration is no acceptance length (at least the target's own token): refused, not dropped
    with pytest.raises(RooflineError, match=r"run\.jsonl: result 1: accept_length: expected tokens per iteration, a "
                                            r"number >= 1, found 0\.8"):
        _convert(tmp_path, {**RESULT, "backend": "sglang", "accept_length": 0.8}, name="run.jsonl")


def test_a_dtype_spelled_with_hyphens_is_read_as_its_name(tmp_path):
    # fp8-e4m3 (vLLM's --kv-cache-dtype spelling with '-') and int8-weight-only: '-' read as '_' (DTYPE_ALIASES)
    path = write_rows(tmp_path, [{"kv_dtype": "FP8-E4M3", "weight_dtype": "int8-weight-only"}])
    table = load_measurements(path)
    assert (table["kv_dtype"].iloc[0], table["weight_dtype"].iloc[0]) == ("fp8", "w8a16")


def test_convert_writes_the_acceptance_length_to_four_significant_figures(tmp_path):
    raw = _convert(tmp_path, {**RESULT, "backend": "sglang", "accept_length": 2.7137}, name="run.jsonl", method="eagle", k=3)
    assert set(raw["acceptance_length"]) == {"2.714"}


def test_convert_says_nothing_of_sglangs_tp_where_tp_is_no_multiple_of_the_attention_groups(tmp_path):
    import warnings

    # --tp 2 --dp-attention 4: SGLang's --tp counts the groups only as a multiple of them (tp 2 is not: 2 x 4 = 8 GPUs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        raw = _convert(tmp_path, {**RESULT, "backend": "sglang", "concurrency": 30.0}, name="run.jsonl",
                       tp=2, dp_attention=4, model_name="qwen3-30b-a3b")
    assert set(raw["gpus"]) == {"8"}
    assert not [w for w in caught if "attention group" in str(w.message)], [str(w.message) for w in caught]


def test_convert_refuses_a_plain_run_that_records_speculation(tmp_path):
    # --method none beside an acceptance length of 1.3 tokens an iteration: the run speculated
    with pytest.raises(RooflineError, match=r"run\.jsonl: result 1: accept_length: expected a plain run with --method none "
                                            r"\(this one speculated: pass its --method and --k\), found '?1\.3'?"):
        _convert(tmp_path, {**RESULT, "backend": "sglang", "accept_length": 1.3}, name="run.jsonl")


def test_convert_says_a_backend_that_names_no_engine_profile(tmp_path):
    from roofline.errors import RooflineWarning

    with pytest.warns(RooflineWarning, match=r"run\.json: result 1: backend 'tgi' names no engine profile: its rows are "
                                             r"written as engine 'tgi', which accuracy predicts with the default engine \(vllm\)"):
        raw = _convert(tmp_path, {**RESULT, "backend": "tgi"})
    assert set(raw["engine"]) == {"tgi"}


def test_convert_writes_an_fp4_weight_dtype_by_its_format_in_any_spelling(tmp_path):
    for spelling in ("FP4", "e2m1"):
        raw = _convert(tmp_path, RESULT, weight_dtype=spelling)
        assert set(raw["weight_dtype"]) == {"mxfp4"}, spelling


def test_append_refuses_results_converted_before_under_another_split(tmp_path):
    import json

    from roofline.measurements import convert_benchmark, write_measurements

    run = tmp_path / "run.json"
    run.write_text(json.dumps(RESULT))
    out = tmp_path / "mine.csv"
    write_measurements(convert_benchmark(run, hardware="h100-sxm", model="llama-3.1-8b"), out)
    again = convert_benchmark(run, hardware="h100-sxm", model="llama-3.1-8b", split="heldout", source_id="other")
    before = out.read_text()
    with pytest.raises(RooflineError, match=r"mine\.csv: --append: expected rows not in the file yet, found 2 of the 2 "
                                            r"converted there already"):
        write_measurements(again, out, append=True)
    assert out.read_text() == before


def test_a_draft_length_without_a_method_is_the_options_fault_not_the_files(tmp_path):
    """qa468: `--k 3` with --method left at none was refused as 'run.json: result 1: k: expected 0 with method none',
    a fault of a file that was fine."""
    with pytest.raises(RooflineError, match=r"^command line: --k: expected 0 with --method none \(a speculative run: pass "
                                            r"its --method too\), found 3$"):
        _convert(tmp_path, RESULT, k=3)
    assert list(_convert(tmp_path, RESULT, k=3, method="eagle")["k"]) == ["3", "3"]


def test_a_fractional_request_count_or_more_in_flight_than_requests_is_refused(tmp_path):
    """qa468: `completed: 7.5` was read (the lengths divided by it), and SGLang's concurrency 7.77 beside 3 completed
    requests written: neither is a run."""
    with pytest.raises(RooflineError, match=r"result 1: completed: expected a whole number of completed requests, found 7\.5$"):
        _convert(tmp_path, {**RESULT, "completed": 7.5})
    with pytest.raises(RooflineError, match=r"result 1: concurrency: expected at most the 3 completed requests \(a run cannot "
                                            r"keep more in flight than it ran\), found 7\.77$"):
        _convert(tmp_path, {**RESULT, "completed": 3, "total_input_tokens": 3072, "total_output_tokens": 1536,
                            "concurrency": 7.77, "max_concurrency": 8})
    assert list(_convert(tmp_path, {**RESULT, "completed": 320.0})["output_len"]) == ["512", "512"]  # 320.0 is whole
