"""Measurements tables: checking cells in one line, the row -> prediction mapping against the public API,
acceptance length -> alpha, and the converter from vLLM / SGLang serving-benchmark output."""

import json
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from roofline.api import predict
from roofline.engine import step_metrics
from roofline.errors import RooflineError, RooflineWarning
from roofline.hardware import load_hardware
from roofline.measurements import (
    COLUMNS,
    alpha_from_tau,
    check_measurements,
    convert_benchmark,
    default_measurements_path,
    engine_slot,
    load_measurements,
    memory_bound,
    predict_measurements,
    prepare_rows,
    write_measurements,
)
from roofline.model import load_model
from roofline.serving import load_engine
from roofline.speculation import tau_scalar_alpha

BASE = {
    "source_id": "test", "source": "here", "engine": "vllm", "engine_version": "0.9", "hardware": "h100-sxm", "gpus": "1",
    "tp": "1", "ep": "1", "dp_attention": "1", "model": "llama-3.1-8b", "weight_dtype": "bf16", "kv_dtype": "bf16",
    "batch": "1", "input_len": "512", "output_len": "256", "method": "none", "k": "0", "acceptance_length": "",
    "quantity": "tokens_per_s_per_user", "value": "100", "split": "heldout", "notes": "",
}


def write_rows(tmp_path, rows, name="m.csv"):
    path = tmp_path / name
    pd.DataFrame([{**BASE, **r} for r in rows], columns=list(COLUMNS)).to_csv(path, index=False)
    return path


def test_the_published_dataset_loads_with_its_split_by_source():
    df = load_measurements(default_measurements_path())
    assert len(df) == 433 and df["source_id"].nunique() == 39
    assert (df["split"] == "fit").sum() == 349 and (df["split"] == "heldout").sum() == 84
    sides = df.groupby("source_id")["split"].nunique()
    assert (sides == 1).all()  # no source on both sides


@pytest.mark.parametrize(("change", "expected"), [
    ({"batch": "eight"}, "row 2: batch: expected an integer"),
    ({"quantity": "latency"}, "row 2: quantity: expected one of tokens_per_s_per_user"),
    ({"value": "-3"}, "row 2: value: expected a finite positive number"),
    ({"method": "none", "k": "2"}, "row 2: k: expected 0 with method none"),
    ({"method": "eagle", "k": "2", "acceptance_length": "3.5"}, "row 2: acceptance_length: expected tokens per iteration in [1, k + 1 = 3]"),
    ({"weight_dtype": "fp6"}, "row 2: weight_dtype: expected one of"),
    ({"split": "train"}, "row 2: split: expected one of fit, heldout"),
    ({"method": "draft", "k": "4", "acceptance_length": "2"}, "row 2: draft: expected a draft model name"),
    ({"notes": "draft_vocab=32000"}, "row 2: draft_vocab: expected none with method none (an EAGLE head's own vocabulary"),
    ({"method": "eagle", "k": "2", "notes": "draft_vocab=0"}, "row 2: draft_vocab: expected a whole number of tokens"),
    # qa160: '32,000' was read as 32, a huge or superscript number was a traceback, a bare key was passed over
    ({"method": "eagle", "k": "2", "notes": "head drafts over draft_vocab=32,000 tokens"}, "found '32,000'"),
    ({"method": "eagle", "k": "2", "notes": "draft_vocab=99999999999999999999"}, "row 2: draft_vocab: expected a whole number"),
    ({"method": "eagle", "k": "2", "notes": "draft_vocab=3\u00b2"}, "row 2: draft_vocab: expected a whole number"),
    ({"method": "eagle", "k": "2", "notes": "draft_vocab= 32000 or so"}, None),
    ({"method": "eagle", "k": "2", "notes": "draft_vocab= and more"}, "row 2: draft_vocab: expected a whole number"),
    ({"method": "eagle", "k": "2", "notes": "draft_vocab=32000; Draft_Vocab=16000"}, "row 2: draft_vocab: expected one value"),
    # qa161: the heads' own config key is read; the key without '=' is refused, not passed over
    ({"method": "eagle", "k": "2", "notes": "config: 'draft_vocab_size=32000'"}, None),
    ({"method": "eagle", "k": "2", "notes": "draft_vocab=32000 (draft_vocab_size = 032000)"}, None),
    ({"method": "eagle", "k": "2", "notes": "its draft_vocab: 32000"}, "row 2: draft_vocab: expected draft_vocab=N in notes"),
    ({"method": "eagle", "k": "2", "notes": "draft_vocab\uff1d32000"}, "row 2: draft_vocab: expected draft_vocab=N in notes"),
    # qa279: Python's int and float read 1_6 as 16 and full-width or Arabic-Indic digits as numbers
    ({"batch": "1_6"}, "row 2: batch: expected an integer in 1..100,000,000 (ASCII digits), found '1_6'"),
    ({"tp": "\uff18"}, "row 2: tp: expected an integer in 1..4,096 (ASCII digits)"),
    ({"value": "1_33"}, "row 2: value: expected"),
    ({"value": "\u0661\u0663\u0663"}, "row 2: value: expected"),
])
def test_a_bad_cell_is_one_line_naming_file_row_and_column(tmp_path, change, expected):
    path = write_rows(tmp_path, [{}, change])
    if expected is None:  # spaces around '=', the config's key and a leading zero are read
        assert list(load_measurements(path)["draft_vocab"]) == [0, 32000]
        return
    with pytest.raises(RooflineError) as err:
        load_measurements(path)
    message = str(err.value)  # the file line the row starts on beside it (qa359: 'row 3' read as line 3)
    assert message.startswith(str(path)) and expected.replace("row 2: ", "row 2 (line 3): ") in message and "\n" not in message


def test_a_bad_rows_error_names_the_line_it_starts_on_past_a_cell_of_two_lines_and_a_blank_line(tmp_path):
    """qa359: 'row 3' of an error was file line 4; a quoted cell over two lines and a blank line move it further."""
    path = write_rows(tmp_path, [{"notes": "two\nlines"}, {}, {"batch": "0"}])
    text = path.read_text().splitlines()
    path.write_text("\n".join([*text[:4], "  \t", *text[4:]]) + "\n")  # a line of blanks above the third row: no row
    # (qa360: counted as one, the line said one too high)
    with pytest.raises(RooflineError, match=r"m.csv: row 3 \(line 6\): batch: expected an integer"):
        load_measurements(path)
    lines = path.read_text().splitlines()  # a line of empty fields is a row, as the loader reads it (qa363: skipped)
    path.write_text("\n".join([*lines[:4], ",,,", *lines[5:]]) + "\n")
    with pytest.raises(RooflineError, match=r"m.csv: row 3 \(line 5\): hardware: expected a value, found ''"):
        load_measurements(path)


def test_a_rows_error_after_loading_names_its_line_too(tmp_path, roofline):
    """qa360: 'row 3: hardware: unknown hardware' (found when the rows are predicted, after the file loaded) named no line."""
    path = write_rows(tmp_path, [{"notes": "two\nlines"}, {}, {"hardware": "h999"}])
    code, _, err = roofline("accuracy", path, "--split", "all", "--out", tmp_path / "acc")
    assert code == 2 and "m.csv: row 3 (line 5): hardware: unknown hardware 'h999'" in err, err


def test_a_missing_column_is_named_in_the_header_error(tmp_path):
    path = tmp_path / "m.csv"
    pd.DataFrame([BASE]).drop(columns=["batch"]).to_csv(path, index=False)
    with pytest.raises(RooflineError, match=r"header: expected the columns .* found no batch"):
        load_measurements(path)


def test_unknown_hardware_is_named_with_its_row(tmp_path):
    path = write_rows(tmp_path, [{"hardware": "h999"}])
    with pytest.raises(RooflineError, match=r"row 1: hardware: unknown hardware 'h999'"):
        predict_measurements(load_measurements(path))


def test_an_unknown_name_is_quoted_as_the_file_writes_it(tmp_path, roofline):
    """qa426: 'unknown hardware 'h999-sxm'' of an H999-SXM written (the reader lower-cases names to look them up; a
    name's case is kept beside the table, not in a column the row fingerprints hash)."""
    from roofline.measurements import row_fingerprints

    path = write_rows(tmp_path, [{}, {"hardware": "H999-SXM"}, {"model": "Llama-9-1B"}])
    table = load_measurements(path)
    with pytest.raises(RooflineError, match=r"row 2: hardware: unknown hardware 'H999-SXM'"):
        predict_measurements(table)
    code, _, err = roofline("accuracy", path, "--split", "all", "--out", tmp_path / "acc")
    assert code == 2 and "m.csv: row 2 (line 3): hardware: unknown hardware 'H999-SXM'" in err, err
    code, _, err = roofline("fit", path, "--engine", "vllm", "--out", tmp_path / "f.yaml")
    assert code == 2 and "row 2 (line 3): hardware: unknown hardware 'H999-SXM'" in err, err
    lower = write_rows(tmp_path, [{}, {"hardware": "h999-sxm"}, {"model": "llama-9-1b"}], name="low.csv")
    assert list(row_fingerprints(table)) == list(row_fingerprints(load_measurements(lower)))  # the same measurements


def test_engine_text_maps_to_the_three_profiles_or_none():
    assert engine_slot("vLLM 0.6.3") == "vllm"
    assert engine_slot("NVIDIA NIM (TensorRT-LLM backend)") == "trtllm"
    assert engine_slot("SGLang") == "sglang"
    assert engine_slot("gpt-fast") is None


def test_alpha_from_tau_inverts_the_scalar_tau_formula():
    # k = 1: tau = 1 + a, so tau 1.5 -> a = 0.5; k = 2: tau = 1 + a + a^2 = 1.75 at a = 0.5
    assert alpha_from_tau(1.5, 1) == pytest.approx(0.5, abs=1e-9)
    assert alpha_from_tau(1.75, 2) == pytest.approx(0.5, abs=1e-9)
    taus, ks = np.array([1.2, 2.5, 3.9, 5.88]), np.array([3, 4, 7, 8])
    assert tau_scalar_alpha(alpha_from_tau(taus, ks), ks) == pytest.approx(taus, rel=1e-9)
    assert alpha_from_tau(1.0, 4) == 0.0 and alpha_from_tau(5.0, 4) == 1.0


def _mixed_stall(hw, model, engine, decoding: int, prompt: int, running: int, naive: bool = False) -> float:
    """By hand, what a prompt of `prompt` tokens adds to a pass of `decoding` tokens (of `running` sequences) it joins:
    t_pass(decoding + prompt) - t_pass(decoding), less the attention between the two sets of tokens, which one
    sequence of them all prices and a batch does not run (qa352; `naive`: with it, as before)."""
    from roofline.layout import deployment

    dep = deployment(model)
    passes = [step_metrics(hw, model, 1, t, 0, dep, engine=engine, logit_tokens=lt, prefill=True, with_operators=True)
              for t, lt in ((decoding + prompt, running), (decoding, running), (prompt, 1))]

    def attention(m) -> float:  # its attention operators' time, their kernel latencies aside
        return sum(float(m["operators"][n]["time_s"] - m["operators"][n]["kernel_latency_s"]) for n in ("attention", "indexer"))

    cross = attention(passes[0]) - attention(passes[1]) - attention(passes[2])
    return float(passes[0]["step_time_s"] - passes[1]["step_time_s"] - (0.0 if naive else cross))


def test_a_plain_row_is_the_api_step_time_at_mid_decode_context(tmp_path):
    path = write_rows(tmp_path, [{"batch": "1", "quantity": "tokens_per_s_per_user"},
                                 {"batch": "16", "quantity": "step_time_s", "value": "0.01"}])
    out = predict_measurements(load_measurements(path))
    context = 512 + 256 // 2
    one = predict("h100-sxm", "llama-3.1-8b", 1, context, engine="vllm")
    assert out["predicted"][0] == pytest.approx(1.0 / one["step_time_s"], rel=1e-9)
    # TPOT at concurrency 16 under vLLM V1 (mixed_prefill): the decode step plus, for each of the 15 other requests,
    # what its 512 prompt tokens add to a pass that already carries the 16 decoding tokens, over 256 output tokens
    sixteen = predict("h100-sxm", "llama-3.1-8b", 16, context, engine="vllm", prompt=512)
    hw, model, vllm = load_hardware("h100-sxm"), load_model("llama-3.1-8b"), load_engine("vllm")
    stall = _mixed_stall(hw, model, vllm, 16, 512, 16)
    assert 0 < stall < 0.5 * sixteen["ttft_s"]  # less than a prefill pass of its own: the weights are read once
    assert out["predicted"][1] == pytest.approx(sixteen["step_time_s"] + 15 * stall / 256, rel=1e-9)


def test_a_mixed_prefill_beside_a_chain_is_priced_beside_its_verify_tokens_and_never_above_a_pass_of_its_own(tmp_path):
    """Under vLLM V1 a speculative row's decode pass carries B (k + 1) verify tokens, and the prompt's tokens join
    those; one sequence of T tokens also has the prompt attend to them, which no batch does, so a wide verify pass
    beside a long prompt priced the stall above the prompt's own pass (qa103): it is capped there, and since qa352 that
    attention is not priced at all."""
    from roofline.measurements import prefill_stall_s, prepare_rows

    hw, model, vllm = load_hardware("h100-sxm"), load_model("llama-3.1-8b"), load_engine("vllm")
    rows = [{"batch": "16", "quantity": "step_time_s", "value": "0.01", "method": "eagle", "k": "3",
             "acceptance_length": "2.5"},
            {"batch": "256", "quantity": "step_time_s", "value": "0.01", "method": "eagle", "k": "7",
             "acceptance_length": "3.5", "input_len": "4096"}]
    table = load_measurements(write_rows(tmp_path, rows))
    prepared = prepare_rows(table)
    stalls = {}
    for g in prepared.groups:
        stall = prefill_stall_s(g, vllm, g.batch)
        for i, s in zip(g.index, np.broadcast_to(stall, g.index.shape)):
            stalls[int(i)] = float(s)

    # 16 sequences x (k + 1 = 4) verify tokens, and the EAGLE head's own prefill of the prompt beside (qa354)
    from roofline.layout import deployment
    from roofline.speculation import drafter_prefill_stall_s

    def head(prompt: int, running: int) -> float:
        return float(drafter_prefill_stall_s("eagle", model, None, None, hw, None, deployment(model), vllm, prompt, running))

    assert 0 < head(512, 16) < 0.2 * _mixed_stall(hw, model, vllm, 16 * 4, 512, 16)
    assert stalls[0] == pytest.approx(_mixed_stall(hw, model, vllm, 16 * 4, 512, 16) + head(512, 16), rel=1e-9)
    own = float(step_metrics(hw, model, 1, 4096, 0, engine=vllm, logit_tokens=1, prefill=True)["step_time_s"])
    wide = _mixed_stall(hw, model, vllm, 256 * 8, 4096, 256)
    # the prompt's attention to the 2,048 verify tokens once priced it above its own pass (capped there); without it,
    # below (qa352), the cap kept
    assert _mixed_stall(hw, model, vllm, 256 * 8, 4096, 256, naive=True) > own > wide
    assert stalls[1] == pytest.approx(min(wide, own) + head(4096, 256), rel=1e-9)


def test_an_eagle_rows_draft_vocab_sizes_its_heads_lm_head_as_the_api_does(tmp_path):
    """EAGLE-3 heads draft over 32,000 tokens; the rows had no way to say so, and every EAGLE-3 row was priced with a
    draft LM head of the target's 128,256 (151,936 for Qwen3) rows a draft step."""
    row = {"batch": "8", "quantity": "step_time_s", "value": "0.01", "method": "eagle", "k": "3", "acceptance_length": "2.5"}
    path = write_rows(tmp_path, [row, {**row, "notes": "EAGLE-3 head [draft_vocab=32000: its config]"}])
    out = predict_measurements(load_measurements(path))
    spec = predict("h100-sxm", "llama-3.1-8b", 8, 512 + 256 // 2, engine="vllm", method="eagle", k=3, acceptance_length=2.5,
                   draft_vocab=32000)["spec"]
    assert out["predicted"][1] < out["predicted"][0]  # a smaller head drafts faster
    assert out["per_token_time_s"][1] == pytest.approx(spec["iteration_time_s"] / spec["tau"], rel=1e-9)
    too_many = write_rows(tmp_path, [{**row, "notes": "draft_vocab=200000"}], name="too-many.csv")
    with pytest.raises(RooflineError, match="row 1: draft_vocab: expected at most the vocabulary of llama-3.1-8b"):
        prepare_rows(load_measurements(too_many))


def test_a_prefill_stalls_a_v0_engine_by_a_pass_of_its_own(tmp_path):
    """vLLM below 0.8 (vllm-v0, no mixed_prefill): each other request's prefill is a whole pass between decode steps."""
    path = write_rows(tmp_path, [{"batch": "16", "quantity": "step_time_s", "value": "0.01", "engine_version": "0.6.3"}])
    out = predict_measurements(load_measurements(path))
    sixteen = predict("h100-sxm", "llama-3.1-8b", 16, 512 + 256 // 2, engine="vllm-v0", prompt=512)
    assert out["predicted"][0] == pytest.approx(sixteen["step_time_s"] + 15 * sixteen["ttft_s"] / 256, rel=1e-9)


def test_replicas_decode_their_share_of_the_batch_and_add_their_throughput(tmp_path):
    path = write_rows(tmp_path, [{"gpus": "2", "batch": "32", "quantity": "tokens_per_s", "value": "3000"},
                                 {"gpus": "1", "batch": "16", "quantity": "tokens_per_s", "value": "1500"}])
    out = predict_measurements(load_measurements(path))
    assert list(out["replicas"]) == [2, 1]
    assert out["predicted"][0] == pytest.approx(2 * out["predicted"][1], rel=1e-12)
    # one replica: batch * O / (prefill of the batch + O * step)
    r = out.iloc[1]
    assert r["predicted"] == pytest.approx(16 * 256 / (r["prefill_time_s"] + 256 * r["decode_step_time_s"]), rel=1e-12)


def test_a_batch_whose_kv_cache_does_not_fit_runs_at_the_largest_batch_that_does(tmp_path):
    from roofline.capacity import capacity
    from roofline.hardware import load_hardware
    from roofline.layout import deployment
    from roofline.model import load_model

    model, h100 = load_model("llama-3.1-70b"), load_hardware("h100-sxm")
    vllm = memory_bound(load_engine("vllm").for_hardware(h100))  # the rows' engine's share of the memory sizes the cap
    cap = int(capacity(h100, model, 1, 512 + 256, deployment(model, tp=4), engine=vllm)["max_batch"])
    estimate = int(capacity(h100, model, 1, 512 + 256, deployment(model, tp=4), engine=load_engine("vllm"))["max_batch"])
    assert estimate < cap  # the fitted reserve does not cut what a row's engine ran (memory_bound)
    rows = [{"model": "llama-3.1-70b", "gpus": "4", "tp": "4", "batch": str(b), "quantity": "tokens_per_s", "value": "1000"}
            for b in (8 * cap, cap)]
    out = predict_measurements(load_measurements(write_rows(tmp_path, rows)))
    assert 32 < cap < 8 * cap and list(out["running_batch"]) == [cap, cap]
    assert out["predicted"][0] == pytest.approx(out["predicted"][1], rel=1e-12)  # the queue adds no throughput


@pytest.mark.slow
def test_a_speculative_row_runs_at_its_batch_whatever_the_engines_default_cap_while_speculating(tmp_path):
    """qa176: SGLang's default cap of 48 while speculating (sglang.yaml's max_running_requests_speculating) ran
    AngelSlim's EAGLE row at 48 where its harness, SpecForge's bench_eagle3.py, passes --max-running-requests as the
    batch: a row runs at its batch (or its recorded concurrency), plain or speculative, under either engine."""
    spec = {"method": "eagle", "k": "3", "acceptance_length": "2.5"}
    rows = [{"engine": engine, "batch": "64", "quantity": "tokens_per_s", "value": "1000", **extra}
            for engine in ("sglang", "vllm") for extra in ({}, spec)]
    out = predict_measurements(load_measurements(write_rows(tmp_path, rows)))
    assert list(out["running_batch"]) == [64, 64, 64, 64]


def test_a_row_with_its_mean_concurrency_runs_at_it_and_a_mean_above_the_cap_is_refused(tmp_path):
    rows = [{"batch": "16", "concurrency": c, "quantity": "tokens_per_s", "value": "1000"} for c in ("13.5", "")]
    rows.append({"batch": "13", "quantity": "tokens_per_s", "value": "1000"})
    out = predict_measurements(load_measurements(write_rows(tmp_path, rows)))
    assert list(out["running_batch"]) == [13.5, 16, 13]
    assert out["predicted"][2] < out["predicted"][0] < out["predicted"][1]  # throughput grows with the sequences in flight
    with pytest.raises(RooflineError, match=r"row 1 \(line 2\): concurrency: expected at most the batch \(16"):
        load_measurements(write_rows(tmp_path, [{"batch": "16", "concurrency": "16.5"}], "over.csv"))


def test_sglang_tp_counting_attention_dp_ranks_is_one_replica_on_its_gpus(tmp_path):
    path = write_rows(tmp_path, [{"model": "deepseek-v3", "hardware": "h200", "gpus": "8", "tp": "8", "dp_attention": "8",
                                  "weight_dtype": "fp8", "batch": "32", "quantity": "step_time_s", "value": "0.06"}])
    out = predict_measurements(load_measurements(path))
    assert out["replicas"][0] == 1
    direct = predict("h200", "deepseek-v3", 32, 512 + 256 // 2, tp=1, dp_attention=8, engine="vllm")
    assert out["decode_step_time_s"][0] == pytest.approx(direct["step_time_s"], rel=1e-9)


def test_a_speedup_row_uses_the_alpha_its_acceptance_length_implies(tmp_path):
    path = write_rows(tmp_path, [{"method": "eagle", "k": "3", "acceptance_length": "2.5", "quantity": "speedup", "value": "1.6"}])
    out = predict_measurements(load_measurements(path))
    alpha = float(alpha_from_tau(2.5, 3))
    spec = predict("h100-sxm", "llama-3.1-8b", 1, 640, engine="vllm", method="eagle", k=3, alpha=alpha)["spec"]
    assert out["predicted"][0] == pytest.approx(spec["speedup"], rel=1e-9)
    assert out["tau"][0] == pytest.approx(2.5, rel=1e-9)


def test_a_tree_row_verifies_its_draft_tokens_with_its_measured_tau(tmp_path):
    path = write_rows(tmp_path, [{"method": "eagle", "k": "4", "acceptance_length": "2.5", "draft_tokens": "16",
                                  "quantity": "speedup", "value": "1.6"},
                                 {"method": "eagle", "k": "4", "acceptance_length": "2.5", "quantity": "speedup", "value": "1.6"}])
    out = predict_measurements(load_measurements(path))
    spec = predict("h100-sxm", "llama-3.1-8b", 1, 640, engine="vllm", method="eagle", k=4, tree_nodes=15, tree_tau=2.5)["spec"]
    assert out["predicted"][0] == pytest.approx(spec["speedup"], rel=1e-9) and out["tau"][0] == pytest.approx(2.5)
    assert out["predicted"][0] < out["predicted"][1]  # 16 tokens verified cost more than the chain's 5, at the same tau


@pytest.mark.parametrize("cells, message", [
    ({"method": "eagle", "k": "4", "draft_tokens": "16"}, "acceptance_length: expected the measured tau of the tree"),
    ({"method": "eagle", "k": "4", "acceptance_length": "2", "draft_tokens": "3"}, "draft_tokens: expected at least k \\+ 1 = 5"),
    ({"draft_tokens": "8"}, "draft_tokens: expected empty or 0 with method none"),
])
def test_a_bad_tree_row_is_refused_in_one_line(tmp_path, cells, message):
    with pytest.raises(RooflineError, match=message):
        load_measurements(write_rows(tmp_path, [cells]))


def test_a_draft_model_row_without_acceptance_is_not_predicted_and_says_why(tmp_path):
    path = write_rows(tmp_path, [{"method": "draft", "k": "4", "notes": "draft=llama-3.2-1b"}])
    out = predict_measurements(load_measurements(path))
    assert np.isnan(out["predicted"][0]) and "acceptance_length" in out["skipped"][0]


def test_medusa_rows_without_acceptance_or_under_an_engine_without_its_drafter_are_not_predicted_and_say_why(tmp_path):
    """qa223: a Medusa row without an acceptance length stopped fit and accuracy for the whole file (no default rates),
    and SGLang Medusa rows were scored in silence (SGLang has no Medusa drafter)."""
    path = write_rows(tmp_path, [{"method": "medusa", "k": "4"}, {"method": "medusa", "k": "4", "acceptance_length": "2.4",
                                                                   "engine": "sglang"}, {}])
    out = predict_measurements(load_measurements(path))
    assert np.isnan(out["predicted"][0]) and out["skipped"][0] == ("no acceptance_length: Medusa's heads have no default "
                                                                   "acceptance rates")
    assert np.isnan(out["predicted"][1]) and "the sglang profile has no medusa drafter (its speculation_refused" in out["skipped"][1]
    assert np.isfinite(out["predicted"][2])  # the plain row beside them


def test_vllm_below_0_8_and_sglang_below_0_4_5_are_their_early_profiles_and_a_version_without_a_number_is_current():
    from roofline.measurements import engine_slot

    assert engine_slot("vllm", "0.6.3.post2.dev308+gb489fc3c") == "vllm-v0"
    assert engine_slot("vLLM", "0.7.4.dev181 (FLASHMLA)") == "vllm-v0"
    assert engine_slot("vllm", "0.8.0") == engine_slot("vllm", "0.15.1") == "vllm"
    assert engine_slot("vllm", "V1 engine, main branch 2025-04") == engine_slot("vllm", "") == "vllm"
    assert engine_slot("SGLang", "0.4.3.post2") == engine_slot("sglang", "0.4.2.post4 (ROCm)") == "sglang-early"
    assert engine_slot("sglang", "0.4.5") == engine_slot("sglang", "v0.5.3.post3") == engine_slot("sglang", "main 2025-03") == "sglang"
    assert engine_slot("gpt-fast", "0.1") is None


def test_every_row_engine_or_one_engine_for_all(tmp_path):
    path = write_rows(tmp_path, [{"engine": "sglang"}, {"engine": "gpt-fast"}])
    own = predict_measurements(load_measurements(path))
    assert list(own["engine_used"]) == ["sglang", "vllm"]
    ideal = predict_measurements(load_measurements(path), "ideal")
    assert list(ideal["engine_used"]) == ["ideal", "ideal"]
    assert (ideal["predicted"] > own["predicted"]).all()  # the bound is faster than any engine


VLLM_RESULT = {"date": "20250601-120000", "backend": "vllm", "model_id": "meta-llama/Llama-3.1-8B-Instruct",
               "num_prompts": 320, "request_rate": "inf", "max_concurrency": 32, "duration": 60.0, "completed": 320,
               "total_input_tokens": 327680, "total_output_tokens": 163840, "output_throughput": 2730.7,
               "mean_tpot_ms": 11.2, "mean_itl_ms": 11.0}  # no mean_ttft_ms: no mean in flight (of the means, below)
# a result of no recorded model (a model_id names the model convert checks --model against): the tests converting
# one run as several models
UNNAMED_RESULT = {key: value for key, value in VLLM_RESULT.items() if key != "model_id"}


def test_vllm_bench_serve_json_becomes_a_step_time_and_a_throughput_row(tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(VLLM_RESULT))
    raw = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")
    assert list(raw["quantity"]) == ["step_time_s", "tokens_per_s"]
    assert list(raw["value"].astype(float)) == pytest.approx([0.0112, 2730.7])
    first = raw.iloc[0]
    assert (first["batch"], first["input_len"], first["output_len"], first["engine"]) == ("32", "1024", "512", "vllm")
    out = write_measurements(raw, tmp_path / "rows.csv")
    assert len(load_measurements(out)) == 2
    with pytest.raises(RooflineError, match="exists; pass --force"):
        write_measurements(raw, out)


def test_vllm_per_request_records_give_the_mean_in_flight_by_littles_law(tmp_path):
    # 4 requests over 2.0 s: latencies 0.1 + 0.3, 0.2 + 0.6, 0.1 + 0.5, 0.2 + 0.4 = 2.4 s in flight -> 1.2 on average
    detailed = {**VLLM_RESULT, "max_concurrency": 2, "duration": 2.0, "completed": 4, "output_throughput": 200.0,
                "ttfts": [0.1, 0.2, 0.1, 0.2], "itls": [[0.1, 0.2], [0.3, 0.3], [0.25, 0.25], [0.4]]}
    path = tmp_path / "detailed.json"
    path.write_text(json.dumps(detailed))
    raw = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")
    assert list(raw["concurrency"]) == ["1.2", "1.2"]
    assert "concurrency = (sum of ttfts and itls) / duration" in raw["notes"][0]
    plain_path = tmp_path / "plain.json"
    plain_path.write_text(json.dumps(VLLM_RESULT))
    plain = convert_benchmark(plain_path, hardware="h100-sxm", model="llama-3.1-8b")
    assert list(plain["concurrency"]) == ["", ""]  # no record and no TTFT: the prediction runs at the cap


def test_vllm_run_level_means_give_the_mean_in_flight_by_littles_law_where_no_record_is_kept(tmp_path):
    """qa468: a run limited by --request-rate, saved without per-request records, was written at its cap (64) where
    1,000 requests of 4.42 s each over 500 s keep 8.84 in flight: completed x mean_e2el_ms / duration, else a request's
    mean TTFT and its mean gaps, mean_ttft_ms + mean_tpot_ms x (output_len - 1)."""
    rated = {**VLLM_RESULT, "request_rate": 2.0, "max_concurrency": 64, "completed": 1000, "num_prompts": 1000,
             "duration": 500.0, "total_input_tokens": 1_024_000, "total_output_tokens": 512_000, "output_throughput": 1024.0,
             "mean_tpot_ms": 8.6, "mean_ttft_ms": 38.5, "mean_e2el_ms": 4420.0}
    path = tmp_path / "rated.json"
    path.write_text(json.dumps(rated))
    raw = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")
    assert list(raw["batch"]) == ["64"] * 2 and list(raw["concurrency"]) == ["8.84"] * 2  # 1,000 x 4.42 / 500
    assert "concurrency = completed x mean_e2el_ms / duration" in raw["notes"][0]
    path.write_text(json.dumps({key: v for key, v in rated.items() if key != "mean_e2el_ms"}))
    raw = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")
    # 1,000 x (0.0385 + 0.0086 x 511) / 500 = 8.8662
    assert list(raw["concurrency"]) == ["8.866"] * 2, list(raw["concurrency"])  # (4 significant digits written)
    assert "concurrency = completed x (mean_ttft_ms + mean_tpot_ms x (output_len - 1)) / duration" in raw["notes"][0]
    closed = {**VLLM_RESULT, "mean_ttft_ms": 250.0}  # 320 requests of 0.25 + 0.0112 x 511 s over 60 s: 31.86 of 32
    path.write_text(json.dumps(closed))
    assert list(convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")["concurrency"]) == ["31.86"] * 2
    over = {**closed, "duration": 50.0}  # 38.2 by the means, past the cap of 32: at most the cap
    path.write_text(json.dumps(over))
    raw = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")
    assert list(raw["concurrency"]) == ["32"] * 2 and "at most the client's cap" in raw["notes"][0]


def test_an_implausible_converted_throughput_says_the_in_flight_and_lengths_its_bound_is_read_at(tmp_path):
    """qa468: a duration written in milliseconds (0.03186 requests in flight by Little's law: 320 x (0.25 + 0.0112 x
    511) / 60,000) or a total_output_tokens short by 100x (5 tokens a request) was refused naming output_throughput
    only (the short one as mean_tpot_ms, its bound spreading 31 prefills over 5 tokens); the refusal now says what the
    bound is read at, so the slipped field shows."""
    closed = {**VLLM_RESULT, "mean_ttft_ms": 250.0}
    path = tmp_path / "run.json"
    path.write_text(json.dumps({**closed, "duration": 60_000.0}))
    with pytest.raises(RooflineError, match=r"run\.json: result 1: output_throughput: .* the bound is read at 0\.03186 requests "
                       r"in flight \(completed x \(mean_ttft_ms \+ mean_tpot_ms x \(output_len - 1\)\) / duration\), 512 output "
                       r"tokens a request\)$"):
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")
    path.write_text(json.dumps({**VLLM_RESULT, "total_output_tokens": 1_600}))  # 5 tokens a request, no mean in flight
    with pytest.raises(RooflineError, match=r"mean_tpot_ms .* the bound is read at 32 requests in flight \(the batch\), 5 output "):
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")


def test_convert_warns_of_a_draft_model_no_smaller_than_its_target_as_predict_does(tmp_path):
    """qa468: a draft model as large as its target (Llama 3.2 3B drafting for Llama 3.2 1B) was converted in silence,
    where predict says a draft pass then costs a decode step or more; a draft of another tokenizer is said too."""
    path = tmp_path / "run.json"
    path.write_text(json.dumps({**UNNAMED_RESULT, "spec_decode_acceptance_length": 2.6}))
    with pytest.warns(RooflineWarning, match=r"run\.json: draft model llama-3\.2-3b \(3\.21B parameters\) is no smaller than "
                                             r"its target llama-3\.2-1b \(1\.24B\)"):
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.2-1b", method="draft", k=3, draft="llama-3.2-3b")
    with pytest.warns(RooflineWarning, match=r"run\.json: .*tokenizer"):
        convert_benchmark(path, hardware="h100-sxm", model="qwen3-32b", method="draft", k=3, draft="llama-3.2-1b")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a draft a tenth of its target with its tokenizer: nothing said
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", method="draft", k=3, draft="llama-3.2-1b")


def test_sglang_bench_serving_jsonl_lines_become_rows_with_their_acceptance(tmp_path):
    lines = [{"max_concurrency": c, "random_input_len": 1024, "random_output_len": 256, "completed": 100,
              "total_input_tokens": 102400, "total_output_tokens": 25600, "output_throughput": 100.0 * c,
              "mean_tpot_ms": 8.0 + c / 10, "accept_length": 2.6, "concurrency": 0.98 * c} for c in (1, 16)]
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    raw = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", method="eagle", k=3, quantities=("step_time_s",))
    assert list(raw["batch"]) == ["1", "16"] and set(raw["engine"]) == {"sglang"}
    tree = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", method="eagle", k=3, draft_tokens=8,
                             quantities=("step_time_s",))
    assert list(tree["draft_tokens"]) == ["8", "8"] and list(raw["draft_tokens"]) == ["", ""]
    assert list(raw["acceptance_length"]) == ["2.6", "2.6"] and list(raw["concurrency"]) == ["0.98", "15.68"]
    assert list(raw["value"].astype(float)) == pytest.approx([0.0081, 0.0096])
    spelled = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", method="eagle", k=3, kv_dtype="auto",
                                weight_dtype="bfloat16", quantities=("step_time_s",))  # qa407: auto refused, bfloat16 as typed
    assert set(spelled["kv_dtype"]) == {"bf16"} and set(spelled["weight_dtype"]) == {"bf16"}
    assert set(convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", method="eagle", k=3, kv_dtype="AUTO",
                                 quantities=("step_time_s",))["kv_dtype"]) == {"bf16"}  # any case (qa413)
    assert set(convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", method="eagle", k=3, kv_dtype="FP8_E4M3",
                                 quantities=("step_time_s",))["kv_dtype"]) == {"fp8"}
    for bad in (0, float("nan"), "many"):  # qa407: a corrupt mean in flight was read as none, its rows at the cap
        path.write_text(json.dumps({**lines[0], "concurrency": bad}) + "\n")
        with pytest.raises(RooflineError, match=r"result 1: concurrency: expected the mean requests in flight, above 0"):
            convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", method="eagle", k=3)


def test_convert_writes_an_eagle_heads_draft_vocab_that_the_rows_are_predicted_with(tmp_path, roofline):
    """qa160: convert had no way to say an EAGLE-3 head's 32,000-token vocabulary, so its rows paid the target's."""
    lines = [{"max_concurrency": 4, "completed": 100, "total_input_tokens": 51200, "total_output_tokens": 25600,
              "output_throughput": 400.0, "mean_tpot_ms": 8.0, "accept_length": 2.6}]
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps(lines[0]) + "\n")
    raw = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", method="eagle", k=3, draft_vocab=32000,
                            quantities=("step_time_s",))
    rows = load_measurements(write_measurements(raw, tmp_path / "rows.csv"))
    assert list(rows["draft_vocab"]) == [32000]
    with pytest.raises(RooflineError, match="--draft-vocab: expected an EAGLE head's vocabulary, with --method eagle only"):
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", method="draft", k=3, draft="llama-3.2-1b",
                          draft_vocab=32000)
    code, _, err = roofline("measurements", "convert", path, "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--method",
                            "eagle3", "--k", "3", "--draft-vocab", "0", "--out", tmp_path / "x.csv")
    assert code == 2 and "command line: --draft-vocab: expected a whole number from 1 to 10,000,000, found '0'" in err  # as
    # predict's option says it (the range is the option's since ff26774); the library says its own
    with pytest.raises(RooflineError, match=r"--draft-vocab: expected a whole number of tokens in 1\.\.10,000,000, found 0"):
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", method="eagle", k=3, draft_vocab=0)
    with pytest.raises(RooflineError, match="command line: --draft-vocab: expected at most the vocabulary of llama-3.1-8b"):
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", method="eagle", k=3, draft_vocab=200000)
    # qa310: README's EAGLE-3 command left --draft-vocab out, and the rows were priced with the target's vocabulary in
    # silence; a method named eagle3 without it is said (plain `eagle` may be an EAGLE-1/2 head of the full vocabulary)
    import warnings

    from roofline.errors import RooflineWarning

    for method, said in (("eagle3", 1), ("EAGLE-3", 1), ("eagle", 0)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", method=method, k=3, quantities=("step_time_s",))
        lines = [str(w.message) for w in caught if issubclass(w.category, RooflineWarning) and "--draft-vocab" in str(w.message)]
        assert len(lines) == said, (method, lines)
        assert not said or lines[0].startswith(f"command line: --method {method} without --draft-vocab: its rows are priced "
                                               "with the head drafting over llama-3.1-8b's whole vocabulary (128,256 tokens)")
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert all("--draft-vocab" in line for line in readme.splitlines() if "convert" in line and "--method eagle3" in line)


def test_a_benchmark_file_without_concurrency_is_refused_in_one_line(tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps({**VLLM_RESULT, "max_concurrency": None}))
    with pytest.raises(RooflineError, match=r"run.json: result 1: max_concurrency: expected the client's concurrency"):
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")


def test_measurements_convert_from_the_cli_writes_rows_that_fit_reads_and_refuses_to_overwrite(tmp_path, roofline):
    path = tmp_path / "c32.json"
    path.write_text(json.dumps(VLLM_RESULT))
    out = tmp_path / "mine.csv"
    code, stdout, err = roofline("measurements", "convert", path, "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--out", out)
    assert code == 0 and "2 rows from 1 file(s)" in stdout
    assert "weight dtype bf16: llama-3.1-8b's checkpoint as published" in err  # the dtype chosen, said (qa178)
    rows = load_measurements(out)
    assert list(rows["quantity"]) == ["step_time_s", "tokens_per_s"] and set(rows["split"]) == {"fit"}
    code, _, err = roofline("measurements", "convert", path, "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--out", out)
    assert code == 2 and "exists; pass --force" in err
    for force in ((), ("--force",)):  # a folder is refused as a folder, with or without --force
        code, _, err = roofline("measurements", "convert", path, "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--out",
                                tmp_path, *force)
        assert code == 2 and "expected a file path, found a folder" in err
    code, _, err = roofline("measurements", "convert", path, "--hardware", "h100-sxm", "--model", "no-such-model", "--out",
                            tmp_path / "x.csv")
    assert code == 2 and "no-such-model" in err and not (tmp_path / "x.csv").exists()


@pytest.mark.slow
def test_convert_appends_speculative_runs_to_plain_ones_in_one_file_and_refuses_the_same_results_twice(tmp_path, roofline):
    """qa187: `convert` takes one --method a call and `fit` one file, so plain and speculative runs were joined by hand.
    --append adds rows to an existing file in its line ends (a CRLF file stays CRLF); the same results appended again
    are refused before anything is written, and --append with --force is refused."""
    plain, spec = tmp_path / "plain.json", tmp_path / "eagle.json"
    plain.write_text(json.dumps(VLLM_RESULT))
    spec.write_text(json.dumps({**VLLM_RESULT, "mean_tpot_ms": 6.0, "output_throughput": 5100.0}))
    out = tmp_path / "mine.csv"
    common = ("--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--out", out, "--source-id", "me")
    code, stdout, err = roofline("measurements", "convert", plain, *common, "--append")  # no file yet: written
    assert code == 0 and "2 rows from 1 file(s) -> " in stdout, err
    out.write_bytes(out.read_bytes().replace(b"\n", b"\r\n"))  # a file saved on Windows
    code, stdout, err = roofline("measurements", "convert", spec, *common, "--method", "eagle3", "--k", "3", "--append")
    assert code == 0 and "2 rows from 1 file(s) appended to" in stdout, err
    text = out.read_bytes()
    assert text.count(b"\r\n") == 5 and b"\n" not in text.replace(b"\r\n", b"")
    rows = load_measurements(out)
    assert list(rows["method"]) == ["none", "none", "eagle", "eagle"] and set(rows["source_id"]) == {"me"}
    before = out.read_bytes()
    code, _, err = roofline("measurements", "convert", spec, *common, "--method", "eagle3", "--k", "3", "--append")
    assert code == 2 and "found 2 of the 2 converted there already" in err and out.read_bytes() == before
    code, _, err = roofline("measurements", "convert", spec, *common, "--append", "--force")
    assert code == 2 and "--append: expected without --force" in err and out.read_bytes() == before
    code, _, err = roofline("measurements", "convert", plain, *common[:-2], "--source-id", "another", "--append")
    assert code == 2 and "converted there already" in err and out.read_bytes() == before  # qa189: the same results
    renamed = tmp_path / "renamed.json"  # qa223: a renamed copy under another source id and without its engine version
    renamed.write_text(json.dumps(VLLM_RESULT))
    code, _, err = roofline("measurements", "convert", renamed, *common[:-2], "--source-id", "other", "--engine-version",
                            "0.11.0", "--append")
    assert code == 2 and "converted there already" in err and out.read_bytes() == before, err
    copy = tmp_path / "copy.json"  # qa206: a result given twice in one call (a copy of the file) was written twice
    copy.write_text(json.dumps(VLLM_RESULT, indent=2))
    code, _, err = roofline("measurements", "convert", plain, copy, "--hardware", "h100-sxm", "--model", "llama-3.1-8b",
                            "--out", tmp_path / "twice.csv")
    assert code == 2 and f"FILES: expected each result once, found {copy}: result 1, which repeats {plain}: result 1 (" in err
    assert not (tmp_path / "twice.csv").exists()
    (tmp_path / "comma.json").write_text(json.dumps(VLLM_RESULT, indent=2).replace(",", ",,", 3))  # qa206: said at line 1
    code, _, err = roofline("measurements", "convert", tmp_path / "comma.json", "--hardware", "h100-sxm", "--model",
                            "llama-3.1-8b", "--out", tmp_path / "comma.csv")
    assert code == 2 and "comma.json: line 2: not valid JSON: Expecting property name enclosed in double quotes" in err, err
    (tmp_path / "cut.jsonl").write_text(json.dumps(VLLM_RESULT)[:-1] + "\n" + json.dumps(VLLM_RESULT) + "\n")  # qa211:
    code, _, err = roofline("measurements", "convert", tmp_path / "cut.jsonl", "--hardware", "h100-sxm", "--model",  # said
                            "llama-3.1-8b", "--out", tmp_path / "cut.csv")  # at line 2, the valid one
    assert code == 2 and "cut.jsonl: line 1: not valid JSON" in err, err
    # qa189: a header with spaces after its commas had its cells written empty, and a file of the required columns
    # alone lost the rows' source and engine; a documented optional column (pp) was refused as unknown
    rows = pd.read_csv(out, dtype=str, keep_default_na=False)
    spaced = tmp_path / "spaced.csv"
    spaced.write_text(", ".join(rows.columns) + "\n" + rows.head(2).to_csv(index=False, header=False))
    bare = tmp_path / "bare.csv"
    rows.head(2)[["hardware", "gpus", "tp", "model", "weight_dtype", "kv_dtype", "batch", "input_len", "output_len",
                  "method", "k", "quantity", "value"]].to_csv(bare, index=False)
    with_pp = tmp_path / "pp.csv"
    rows.head(2).assign(pp="1").to_csv(with_pp, index=False)
    for path in (spaced, with_pp):
        code, _, err = roofline("measurements", "convert", spec, *common[:-3], path, "--source-id", "me", "--method",
                                "eagle3", "--k", "3", "--append")
        assert code == 0, err
        table = load_measurements(path)
        assert list(table["method"]) == ["none", "none", "eagle", "eagle"] and set(table["engine"]) == {"vllm"}
    kept = bare.read_bytes()
    code, _, err = roofline("measurements", "convert", spec, *common[:-3], bare, "--source-id", "me", "--append")  # a
    # source id the file has no column for
    assert code == 2 and "expected a column 'source_id', which these rows fill (source_id me)" in err and bare.read_bytes() == kept
    # qa191: a file without the optional columns whose value would be their default (ep 1, split fit), one ending in a
    # spreadsheet's empty rows, and one with a column of its own were refused; the same result under another spelling
    # of its path was taken again
    lean = tmp_path / "lean.csv"
    rows.head(2).drop(columns=["ep", "dp_attention", "split", "concurrency", "draft_tokens"]).assign(run_id="r1").to_csv(lean, index=False)
    lean.write_text(lean.read_text() + ",,,,,\n,,,,\n")
    code, _, err = roofline("measurements", "convert", spec, *common[:-3], lean, "--source-id", "me", "--method", "eagle3",
                            "--k", "3", "--append")
    assert code == 0, err
    table = load_measurements(lean)
    assert len(table) == 4 and list(table["method"]) == ["none", "none", "eagle", "eagle"] and set(table["ep"]) == {1}
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    (moved / spec.name).write_bytes(spec.read_bytes())
    kept = lean.read_bytes()
    code, _, err = roofline("measurements", "convert", moved / spec.name, *common[:-3], lean, "--source-id", "other",
                            "--method", "eagle3", "--k", "3", "--append")
    assert code == 2 and "converted there already" in err and lean.read_bytes() == kept
    # qa193: a source id saved on Windows (its carriage return made a file fit refused); the shipped measurements
    # folder; a file larger than 1 MB, which fit reads
    code, _, err = roofline("measurements", "convert", spec, *common[:-3], tmp_path / "cr.csv", "--source-id", "me\r")
    assert code == 2 and "--source-id: expected text on one line" in err and not (tmp_path / "cr.csv").exists()
    shipped = Path(__file__).resolve().parent.parent / "measurements" / "published.csv"
    before_shipped = shipped.read_bytes()
    new_there = shipped.parent / "my-runs-not-there.csv"  # qa426: a new file was told to be copied first
    try:  # the shipped file put back whatever the command did (qa450: a broken guard appended to it for good)
        code, _, err = roofline("measurements", "convert", spec, *common[:-3], shipped, "--append")
        assert code == 2 and "(the shipped measurements, fit's and accuracy's default input)" in err
        assert err.rstrip().endswith("published.csv: copy it elsewhere first"), err
        assert shipped.read_bytes() == before_shipped
        code, _, err = roofline("measurements", "convert", spec, *common[:-3], new_there)
        assert code == 2 and err.rstrip().endswith("my-runs-not-there.csv: write it elsewhere (--out my-runs.csv)"), err
        assert not new_there.exists()
    finally:
        if shipped.read_bytes() != before_shipped:
            shipped.write_bytes(before_shipped)
        new_there.unlink(missing_ok=True)
    big = tmp_path / "big.csv"
    body = out.read_text().replace("\r\n", "\n").splitlines(keepends=True)
    big.write_text(body[0] + "".join(body[1].replace("0.0112", f"{0.0112 + i * 1e-7:.7f}") for i in range(9000)))
    assert big.stat().st_size > 1_000_000
    code, _, err = roofline("measurements", "convert", spec, *common[:-3], big, "--method", "eagle3", "--k", "3", "--append")
    assert code == 0, err
    locked = tmp_path / "locked.csv"
    locked.write_bytes(kept)
    locked.chmod(0o444)
    code, _, err = roofline("measurements", "convert", spec, *common[:-3], locked, "--append")
    assert code == 2 and "the file is read-only; nothing appended" in err and locked.read_bytes() == kept


@pytest.mark.parametrize(("options", "message"), [
    ({"tp": 0}, "command line: --tp: expected an integer in 1..4096, found 0"),
    ({"tp": 3}, "command line: --tp: expected a divisor of the model's 32 attention heads (llama-3.1-8b), found 3"),
    ({"ep": 2}, "command line: --ep: expected 1 for a dense model (llama-3.1-8b has no experts), found 2"),
    ({"dp_attention": 0}, "command line: --dp-attention: expected an integer in 1..4096, found 0"),
    ({"tp": 2, "gpus": 3}, "command line: --gpus: expected a multiple of the 2 devices of one replica, found 3"),
    ({"tp": 4, "gpus": 2}, "command line: --gpus: expected at least tp x dp_attention x pp = 4 devices, found 2"),
    ({"gpus": 64}, "{path}: result 1: batch: expected at least one sequence per replica (64 replicas), found 32"),
])
def test_convert_refuses_a_layout_that_fit_and_accuracy_would_refuse_naming_the_option(tmp_path, options, message):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(VLLM_RESULT))
    with pytest.raises(RooflineError) as err:
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", **options)
    assert str(err.value) == message.replace("{path}", str(path))  # qa279: a row's fault named by its file and result


def test_convert_writes_a_layout_that_accuracy_reads_the_same_way(tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(VLLM_RESULT))
    for options, replicas in (({"tp": 2}, 1), ({"tp": 2, "gpus": 8}, 4), ({"tp": 4, "dp_attention": 2, "gpus": 4}, 1)):
        raw = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", **options)
        rows = predict_measurements(load_measurements(write_measurements(raw, tmp_path / "rows.csv", force=True)))
        assert list(rows["replicas"]) == [replicas, replicas] and rows["predicted"].notna().all()


@pytest.mark.slow
def test_convert_without_a_weight_dtype_writes_the_checkpoint_as_published(tmp_path):
    """qa177: --weight-dtype defaulted to bf16, which since session 37 names an all-bf16 model where bf16 is not the
    dtype of most weight bytes: gpt-oss's MXFP4 run was predicted as its BF16 re-export, DeepSeek-V3 (fp8) refused."""
    path = tmp_path / "run.json"
    path.write_text(json.dumps(UNNAMED_RESULT))
    for model, tp, label in (("gpt-oss-120b", 4, "mxfp4"), ("deepseek-v3", 8, "fp8"), ("llama-3.1-8b", 1, "bf16")):
        raw = convert_benchmark(path, hardware="h200", model=model, tp=tp)
        assert set(raw["weight_dtype"]) == {label}, (model, set(raw["weight_dtype"]))
        rows = predict_measurements(load_measurements(write_measurements(raw, tmp_path / f"{model}.csv", force=True)))
        assert rows["predicted"].notna().all()
    given = predict_measurements(load_measurements(write_measurements(
        convert_benchmark(path, hardware="h200", model="gpt-oss-120b", tp=4, weight_dtype="mxfp4"), tmp_path / "m.csv", force=True)))
    default = predict_measurements(load_measurements(tmp_path / "gpt-oss-120b.csv"))
    assert list(given["predicted"]) == pytest.approx(list(default["predicted"]))  # mxfp4 spelled out: the same checkpoint


def test_measurements_convert_from_the_cli_names_the_bad_option_in_one_line(tmp_path, roofline):
    path = tmp_path / "c32.json"
    path.write_text(json.dumps(VLLM_RESULT))
    for tp, message in (("0", "command line: --tp: expected a whole number from 1 to 4,096, found '0'"),  # as
                        # every ranged option says it (qa288: the degrees' ranges are the options')
                        ("3", "command line: --tp: expected a divisor of the model's 32")):
        code, _, err = roofline("measurements", "convert", path, "--hardware", "h100-sxm", "--model", "llama-3.1-8b",
                                "--tp", tp, "--out", tmp_path / "x.csv")
        assert code == 2 and err.startswith(f"error: {message}")
        assert err.count("\n") == 1 and not (tmp_path / "x.csv").exists()


def test_convert_from_the_cli_takes_one_source_id_and_the_batch_of_results_without_one(tmp_path, roofline):
    files = []
    for c in (8, 32):
        path = tmp_path / f"c{c}.json"
        path.write_text(json.dumps({**VLLM_RESULT, "max_concurrency": None, "date": f"run at {c}"}))  # two runs, not
        files.append(path)  # one result twice (refused: qa206)
    out = tmp_path / "mine.csv"
    code, _, err = roofline("measurements", "convert", *files, "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--out", out)
    assert code == 2 and "or pass --batch N" in err
    code, _, err = roofline("measurements", "convert", *files, "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--out", out,
                            "--source-id", "my-server", "--batch", "16")
    assert code == 0, err
    rows = load_measurements(out)
    assert set(rows["source_id"]) == {"my-server"} and set(rows["batch"]) == {16}


def test_lengths_are_the_tokens_the_run_measured_not_sglangs_random_length_settings(tmp_path):
    # SGLang writes random_input_len / random_output_len (its 1024 defaults) even for a ShareGPT run, and draws random
    # lengths uniformly from [ratio * len, len]: the totals over completed requests are what was decoded
    line = {"backend": "sglang", "dataset_name": "sharegpt", "max_concurrency": 32, "random_input_len": 1024,
            "random_output_len": 1024, "random_range_ratio": 0.0, "completed": 500, "total_input_tokens": 115000,
            "total_output_tokens": 95000, "output_throughput": 2000.0, "mean_tpot_ms": 12.0}
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps(line) + "\n")
    raw = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", quantities=("step_time_s",))
    assert (raw["input_len"].iloc[0], raw["output_len"].iloc[0]) == ("230", "190")
    settings_only = {k: v for k, v in line.items() if not k.startswith("total_")}  # no totals: the settings are all there is
    path.write_text(json.dumps(settings_only) + "\n")
    raw = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", quantities=("step_time_s",))
    assert (raw["input_len"].iloc[0], raw["output_len"].iloc[0]) == ("1024", "1024")


def test_the_engine_is_read_from_the_backend_and_a_json_array_is_not_taken_for_sglang_lines(tmp_path):
    base = {"max_concurrency": 8, "completed": 100, "total_input_tokens": 51200, "total_output_tokens": 12800,
            "output_throughput": 800.0, "mean_tpot_ms": 9.0}
    array = tmp_path / "runs.json"
    array.write_text(json.dumps([{**base, "backend": "openai-chat"}, {**base, "backend": "openai-chat", "max_concurrency": 16}]))
    assert set(convert_benchmark(array, hardware="h100-sxm", model="llama-3.1-8b")["engine"]) == {"vllm"}
    lines = tmp_path / "runs.jsonl"
    lines.write_text("\n".join(json.dumps({**base, "backend": b}) for b in ("trt", "lmdeploy", "sglang")) + "\n")
    raw = convert_benchmark(lines, hardware="h100-sxm", model="llama-3.1-8b", quantities=("step_time_s",))
    assert list(raw["engine"]) == ["trtllm", "lmdeploy", "sglang"]


def test_convert_keeps_what_a_result_records_and_refuses_what_contradicts_it(tmp_path):
    """Each of these was written with exit 0: --batch 8 over a run that recorded max_concurrency 1; a speculative run
    without --method as plain decoding (its acceptance length dropped); vLLM's --append-result lines as SGLang's; an
    --engine typo, predicted with the default engine; and a draft-model run could not be converted at all."""
    path = tmp_path / "c1.json"
    path.write_text(json.dumps({**UNNAMED_RESULT, "max_concurrency": 1, "output_throughput": 100.0}))
    with pytest.raises(RooflineError, match=r"c1.json: result 1: max_concurrency: expected no recorded concurrency beside --batch 8"):
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", batch=8)
    assert set(convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", batch=1)["batch"]) == {"1"}
    eagle = tmp_path / "eagle.json"
    eagle.write_text(json.dumps({**UNNAMED_RESULT, "backend": "openai", "spec_decode_acceptance_length": 2.6}))
    with pytest.raises(RooflineError, match=r"spec_decode_acceptance_length: expected a plain run with --method none "
                                            r"\(this one speculated: pass its --method and --k\), found '2.6'"):
        convert_benchmark(eagle, hardware="h100-sxm", model="llama-3.1-8b")
    appended = tmp_path / "appended.json"  # vllm bench serve --append-result: one JSON object a line, backend openai
    appended.write_text("\n".join(json.dumps({**UNNAMED_RESULT, "backend": "openai", "max_concurrency": c,
                                               "output_throughput": 90.0 * c}) for c in (1, 8)) + "\n")
    assert set(convert_benchmark(appended, hardware="h100-sxm", model="llama-3.1-8b")["engine"]) == {"vllm"}
    for typo in ("vlm", "vllm-v0", "sglang-early", "vllm 0.6"):  # a version goes in --engine-version
        with pytest.raises(RooflineError, match=r"^command line: --engine: expected vllm, sglang or trtllm \(the version goes in"):
            convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", engine=typo)
    for spelling, slot in (("trt", "trtllm"), ("TensorRT-LLM", "trtllm"), ("SGLang", "sglang")):  # written as fit reads it
        assert set(convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", engine=spelling)["engine"]) == {slot}
    for bad in (0, -2, "2.5", float("nan")):  # a measured tau that cannot be read stood in silence for the default rates
        unreadable = tmp_path / "unreadable.json"
        unreadable.write_text(json.dumps({**UNNAMED_RESULT, "spec_decode_acceptance_length": bad}))
        with pytest.raises(RooflineError, match=r"unreadable.json: result 1: spec_decode_acceptance_length: expected tokens per "
                                                r"iteration, a number >= 1"):
            convert_benchmark(unreadable, hardware="h100-sxm", model="llama-3.1-8b", method="eagle", k=3)
    mixed = tmp_path / "mixed.json"  # one plain and one speculative result, converted as eagle
    mixed.write_text("\n".join(json.dumps(r) for r in (UNNAMED_RESULT, {**UNNAMED_RESULT, "spec_decode_acceptance_length": 2.6})))
    with pytest.raises(RooflineError, match=r"mixed.json: result 1: acceptance length: expected one, as mixed.json result 2 record"):
        convert_benchmark(mixed, hardware="h100-sxm", model="llama-3.1-8b", method="eagle", k=3)
    draft = convert_benchmark(eagle, hardware="h100-sxm", model="llama-3.1-70b", tp=4, method="draft", k=3, draft="llama-3.2-1b")
    assert draft["notes"][0].endswith("; draft=llama-3.2-1b") and set(draft["acceptance_length"]) == {"2.6"}
    with pytest.raises(RooflineError, match=r"^command line: --draft: expected the draft model's profile name, with --method draft"):
        convert_benchmark(eagle, hardware="h100-sxm", model="llama-3.1-8b", method="draft", k=3)


def test_a_deployment_the_model_does_not_fit_on_is_left_out_with_its_reason_and_refused_by_convert(tmp_path):
    """Llama-3.1-405B on one H100 (a forgotten --tp) was converted, then predicted at a batch of 1 the device cannot
    hold: accuracy printed a 1925% median error without a word, and fit ran on those rows."""
    path = tmp_path / "c1.json"
    path.write_text(json.dumps({**UNNAMED_RESULT, "max_concurrency": 1, "output_throughput": 50.0}))
    with pytest.raises(RooflineError, match=r"c1.json \(result 1\): does not fit in memory: not one sequence of 1,536 tokens "
                                            r"fits beside llama-3.1-405b's weights on 1 x h100-sxm \(tp 1, bf16 weights\): give the "
                                            r"layout the server ran \(--tp, --gpus, --weight-dtype\)$"):
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-405b")
    rows = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-405b", tp=8, weight_dtype="fp8")
    table = rows.assign(tp="1", gpus="1")  # the same rows as a hand-written file would give them
    prepared = prepare_rows(check_measurements(table.astype(str), "mine.csv"), (), "mine.csv")
    assert set(prepared.table["skipped"]) == {"does not fit in memory: not one sequence of 1,536 tokens fits beside "
                                              "llama-3.1-405b's weights on 1 x h100-sxm (tp 1, fp8 weights)"}


def test_convert_names_the_option_and_the_file_not_the_table_it_converted_to(tmp_path):
    path = tmp_path / "e.json"
    path.write_text(json.dumps({**VLLM_RESULT, "spec_decode_acceptance_length": 2.6}))
    with pytest.raises(RooflineError, match=r"^command line: --tp: expected a divisor of the model's 32 attention heads"):
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", tp=3, method="eagle", k=3)
    with pytest.raises(RooflineError, match=r"e.json: result 1: spec_decode_acceptance_length: expected at most k \+ 1 = 2 tokens per "
                                            r"iteration \(pass the server's --k"):  # it said 'converted benchmark output: row 1'
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", method="eagle", k=1)
    with pytest.raises(RooflineError, match=r"^command line: FILES: expected each result file once"):
        convert_benchmark([path, path], hardware="h100-sxm", model="llama-3.1-8b", method="eagle", k=3)
    import os

    os.link(path, tmp_path / "same.json")  # a hard link: the same file under another name (was converted twice)
    with pytest.raises(RooflineError, match=r"^command line: FILES: expected each result file once, found .*same.json"):
        convert_benchmark([path, tmp_path / "same.json"], hardware="h100-sxm", model="llama-3.1-8b", method="eagle", k=3)


def test_convert_refuses_two_acceptance_fields_that_disagree_and_draft_tokens_without_a_method(tmp_path):
    path = tmp_path / "two.json"
    path.write_text(json.dumps({**VLLM_RESULT, "accept_length": 3.0, "spec_decode_acceptance_length": 2.5}))
    with pytest.raises(RooflineError, match=r"two.json: result 1: accept_length / spec_decode_acceptance_length: expected one "
                                            r"acceptance length, found 'accept_length 3, spec_decode_acceptance_length 2.5'"):
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", method="eagle", k=3)
    with pytest.raises(RooflineError, match=r"^command line: --draft-tokens: expected 0 with --method none"):
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", draft_tokens=2)


def test_convert_refuses_what_it_wrote_wrong_in_silence(tmp_path):
    """Each of these was written with exit 0: a mean in flight of 63.8 cut to --batch 8; a plain file beside an EAGLE
    file given together read as EAGLE at the default rates; one --engine-version stamped on a vllm and an sglang
    result; the alias h100 written for h100-sxm."""
    sglang = {"backend": "sglang", "max_concurrency": None, "concurrency": 63.8, "completed": 100, "total_input_tokens": 102400,
              "total_output_tokens": 25600, "output_throughput": 3000.0, "mean_tpot_ms": 20.0}
    nocap = tmp_path / "nocap.jsonl"
    nocap.write_text(json.dumps(sglang) + "\n")
    with pytest.raises(RooflineError, match=r"nocap.jsonl: result 1: concurrency: expected at most the batch 8 \(--batch\).*found '63.8'"):
        convert_benchmark(nocap, hardware="h100-sxm", model="llama-3.1-8b", batch=8)
    assert list(convert_benchmark(nocap, hardware="h100-sxm", model="llama-3.1-8b", batch=64)["concurrency"]) == ["63.8", "63.8"]
    eagle, plain = tmp_path / "eagle.json", tmp_path / "plain.json"
    eagle.write_text(json.dumps({**VLLM_RESULT, "spec_decode_acceptance_length": 2.5}))
    plain.write_text(json.dumps(VLLM_RESULT))
    with pytest.raises(RooflineError, match=r"plain.json: result 1: acceptance length: expected one, as eagle.json result 1 record"):
        convert_benchmark([eagle, plain], hardware="h100-sxm", model="llama-3.1-8b", method="eagle", k=3)
    two = tmp_path / "two.jsonl"
    two.write_text(json.dumps({**sglang, "max_concurrency": 64}) + "\n" + json.dumps({**sglang, "backend": "vllm", "max_concurrency": 64}) + "\n")
    with pytest.raises(RooflineError, match=r"--engine-version: expected results of one engine .*found 'sglang, vllm'"):
        convert_benchmark(two, hardware="h100-sxm", model="llama-3.1-8b", engine_version="0.5.6")
    assert set(convert_benchmark(plain, hardware="h100", model="llama-3.1-8b")["hardware"]) == {"h100-sxm"}
    aliased = convert_benchmark(plain, hardware="H100", model="Llama3.1-8B")  # qa334: the model written as typed
    assert set(aliased["model"]) == {"llama-3.1-8b"} and set(aliased["hardware"]) == {"h100-sxm"}


def test_convert_reads_vllms_latencies_its_no_cap_zero_and_a_byte_order_mark(tmp_path):
    # 4 requests of 0.5, 0.5, 0.6, 0.8 s over 2.0 s: 1.2 in flight (current vllm bench serve keeps latencies)
    result = {**VLLM_RESULT, "max_concurrency": 0, "duration": 2.0, "completed": 4, "latencies": [0.5, 0.5, 0.6, 0.8],
              "output_throughput": 200.0}
    path = tmp_path / "run.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(result).encode())
    raw = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", batch=2)
    assert list(raw["concurrency"]) == ["1.2", "1.2"] and list(raw["batch"]) == ["2", "2"]
    assert "concurrency = (sum of latencies) / duration" in raw["notes"][0]  # it named ttfts and itls, not given here
    with pytest.raises(RooflineError, match="0 is the benchmark's 'no cap'"):
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")


def test_a_spreadsheets_csv_gets_a_line_that_says_what_to_change_and_its_trailing_empty_rows_are_skipped(tmp_path):
    text = (Path(__file__).parents[1] / "measurements" / "published.csv").read_text().splitlines()[:3]
    semi = tmp_path / "semi.csv"
    semi.write_text("\n".join(line.replace(",", ";") for line in text) + "\n")
    with pytest.raises(RooflineError, match="separated by ';'"):
        load_measurements(semi)
    tabs = tmp_path / "tabs.tsv"  # qa271: a TSV was told all 13 required columns were missing
    tabs.write_text("\n".join(line.replace(",", "\t") for line in text) + "\n")
    with pytest.raises(RooflineError, match=r"tabs.tsv: header: expected columns separated by commas, found them separated by tabs"):
        load_measurements(tabs)
    trailing = tmp_path / "trailing.csv"
    columns = text[0].count(",")
    trailing.write_text("\r\n".join(text + ["," * columns, "," * columns]) + "\r\n")
    assert len(load_measurements(trailing)) == 2


def test_the_readme_measurements_path_run_outside_the_checkout_names_the_shipped_file(tmp_path, monkeypatch):
    from roofline.errors import RooflineError
    from roofline.measurements import default_measurements_path, load_measurements

    monkeypatch.chdir(tmp_path)
    with pytest.raises(RooflineError, match=f"the shipped measurements are {re.escape(str(default_measurements_path()))}"):
        load_measurements("measurements/published.csv")


def test_the_outside_probe_loads_and_shares_no_source_with_the_dataset():
    """measurements/outside-probe.csv checks the fitted profiles on sources the dataset never used: it loads as a
    measurements file, every row held out, and none of its sources is one of published.csv's."""
    from roofline.measurements import load_measurements

    probe = load_measurements("measurements/outside-probe.csv")
    published = load_measurements("measurements/published.csv")
    assert len(probe) == 72 and set(probe["split"]) == {"heldout"}
    assert not set(probe["source_id"]) & set(published["source_id"])
    assert not {str(s).split()[0] for s in probe["source"]} & {str(s).split()[0] for s in published["source"]}  # URLs too


def test_a_misspelt_column_is_refused_and_an_unknown_one_is_said_to_be_unread(tmp_path):
    """A file whose `acceptance_len` column stood for acceptance_length was read without it, silently: its EAGLE rows
    took the default tau (qa79)."""
    import warnings

    from roofline.errors import RooflineError, RooflineWarning
    from roofline.measurements import load_measurements

    text = Path("measurements/outside-probe.csv").read_text()
    bad = tmp_path / "bad.csv"
    bad.write_text(text.replace("acceptance_length", "acceptance_len", 1))
    with pytest.raises(RooflineError, match=r"header: expected a column the tool reads, found 'acceptance_len' \(did you mean 'acceptance_length'"):
        load_measurements(bad)
    upper = tmp_path / "upper.csv"  # EP for ep: a case difference is refused too (difflib scored it 0; qa85)
    upper.write_text(text.replace(",ep,", ",EP,", 1))
    with pytest.raises(RooflineError, match=r"found 'EP' \(did you mean 'ep'"):
        load_measurements(upper)
    twice = tmp_path / "twice.csv"  # pandas read the second k as 'k.1' and the first silently (qa85)
    rows = text.splitlines()
    twice.write_text("\n".join([rows[0] + ",k"] + [row + ",3" for row in rows[1:]]) + "\n")
    with pytest.raises(RooflineError, match=r"header: expected each column once, found 'k' twice"):
        load_measurements(twice)
    beside = tmp_path / "beside.csv"  # a column that resembles one the file has is an annotation: read around (qa81)
    lines = text.splitlines()
    beside.write_text("\n".join([lines[0] + ",gpu"] + [line + ",H20" for line in lines[1:]]) + "\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert len(load_measurements(beside)) == len(lines) - 1  # every row, the annotation read around
    assert any("columns not read: gpu" in str(w.message) for w in caught)
    extra = tmp_path / "extra.csv"
    extra.write_text("\n".join([lines[0] + ",gpu_name"] + [line + ",H20" for line in lines[1:]]) + "\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert len(load_measurements(extra)) == len(lines) - 1
    assert any(isinstance(w.message, RooflineWarning) and "columns not read: gpu_name" in str(w.message) for w in caught)


def test_convert_takes_the_servers_own_method_names_and_refuses_a_k_the_result_contradicts(tmp_path):
    """`--method eagle3` (vLLM's speculative-config method), `draft_model`, `deepseek_mtp` and SGLang's NEXTN were
    refused as 'row 1: method'; `--k 2` on a run whose result records 3 draft tokens a draft was taken (qa79)."""
    path = tmp_path / "e.json"
    path.write_text(json.dumps({**VLLM_RESULT, "spec_decode_acceptance_length": 2.6, "spec_decode_num_drafts": 1000,
                                "spec_decode_draft_tokens": 3000}))
    rows = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", method="EAGLE3", k=3)
    assert set(rows["method"]) == {"eagle"}
    with pytest.raises(RooflineError, match=r"e.json: result 1: spec_decode_draft_tokens / spec_decode_num_drafts: expected at "
                                            r"most the --k given \(2\)"):
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", method="eagle", k=2)
    trimmed = tmp_path / "t.json"  # n-gram proposes fewer where it matches less, the scheduler trims to its budget
    trimmed.write_text(json.dumps({**VLLM_RESULT, "spec_decode_acceptance_length": 2.6, "spec_decode_num_drafts": 10000,
                                   "spec_decode_draft_tokens": 29700}))
    assert len(convert_benchmark(trimmed, hardware="h100-sxm", model="llama-3.1-8b", method="ngram", k=3)) >= 1  # qa81
    with pytest.raises(RooflineError, match=r"^command line: --method: expected one of none, draft, mtp, eagle, medusa, ngram, or the "
                                            r"server's own name"):
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", method="lookahead", k=3)
    from roofline.measurements import SERVER_METHODS

    assert SERVER_METHODS["nextn"] == SERVER_METHODS["deepseek_mtp"] == "mtp" and SERVER_METHODS["draft_model"] == "draft"


def test_convert_warns_where_sglangs_tp_that_counts_its_attention_groups_is_read_as_each_groups(tmp_path):
    """SGLang's --tp 8 --dp 8 --enable-dp-attention runs on 8 GPUs; converted as --tp 8 --dp-attention 8 it became a
    64-GPU row, predicted 2.2x fast, with no message (qa79)."""
    import warnings

    path = tmp_path / "r.json"
    path.write_text(json.dumps({**UNNAMED_RESULT, "backend": "sglang"}))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows = convert_benchmark(path, hardware="h200", model="deepseek-v3", tp=8, dp_attention=8, ep=8, weight_dtype="fp8",
                                 kv_dtype="bf16")
    assert set(rows["gpus"].astype(int)) == {64}
    assert any("--tp 8 --dp-attention 8 is 64 GPUs" in str(w.message) and "--tp 1 --dp-attention 8" in str(w.message) for w in caught)
    vllm_run = tmp_path / "v.json"  # a vLLM result: its tp is each group's already (qa85)
    vllm_run.write_text(json.dumps(UNNAMED_RESULT))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        convert_benchmark(vllm_run, hardware="h200", model="deepseek-v3", tp=8, dp_attention=8, ep=8, weight_dtype="fp8", kv_dtype="bf16")
    assert not any("is 64 GPUs" in str(w.message) for w in caught)  # (its layout warned otherwise: ep 8 of 64 under vllm)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        convert_benchmark(path, hardware="h200", model="deepseek-v3", tp=1, dp_attention=8, ep=8, weight_dtype="fp8", kv_dtype="bf16")
    assert not any("GPUs (tp is each attention" in str(w.message) for w in caught)


def test_mtp_rows_of_a_model_without_mtp_modules_are_refused_by_convert_and_named_by_the_reader(tmp_path):
    """convert wrote `--method nextn` rows for Llama-3.1-8B, which fit and accuracy then refused with no file or row (qa85)."""
    from roofline.measurements import load_measurements, prepare_rows

    path = tmp_path / "e.json"
    path.write_text(json.dumps({**VLLM_RESULT, "spec_decode_acceptance_length": 2.6}))
    with pytest.raises(RooflineError, match=r"^command line: --method: expected a model with MTP modules for mtp"):
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", method="nextn", k=3)
    rows = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", method="eagle", k=3)
    csv = tmp_path / "m.csv"
    rows.assign(method="mtp").to_csv(csv, index=False)
    with pytest.raises(RooflineError, match=r"m.csv: row 1: method: expected a model with MTP modules for mtp"):
        prepare_rows(load_measurements(csv), (), str(csv))


def test_a_row_whose_sequence_fits_only_without_the_engines_window_pool_is_skipped(tmp_path):
    """gpt-oss-120b on one H100 under sglang at 140,000 + 12,144 tokens (250,000 + 12,144 in the hardware profile's 0.90
    of the memory, before the engines' own shares: session 35): one sequence fits each sequence's window, none under
    SGLang's window pool (0.8); the row was predicted at batch 1 all the same (qa93), its skip check sized the
    cache without the pool that running_batch used."""
    from dataclasses import replace

    from roofline.capacity import capacity
    from roofline.hardware import load_hardware
    from roofline.layout import deployment
    from roofline.model import load_model
    from roofline.serving import load_engine

    h100, model = load_hardware("h100-sxm"), load_model("gpt-oss-120b")
    dep = deployment(model, weight_dtype="fp4")
    tokens = 140_000 + 12_144
    sglang = load_engine("sglang").for_hardware(h100)
    assert capacity(h100, model, 1, tokens, dep, engine=replace(sglang, window_kv_pool_ratio=None))["max_batch"] == 1
    assert capacity(h100, model, 1, tokens, dep, engine=sglang)["max_batch"] == 0
    assert capacity(h100, model, 1, tokens, dep, engine=memory_bound(load_engine("vllm").for_hardware(h100)))["max_batch"] >= 1
    row = {"model": "gpt-oss-120b", "weight_dtype": "fp4", "input_len": "140000", "output_len": "12144"}
    path = write_rows(tmp_path, [{**row, "engine": "sglang"}, {**row, "engine": "vllm"}])
    out = predict_measurements(load_measurements(path))
    assert out["skipped"][0].startswith("does not fit in memory") and np.isnan(out["predicted"][0])
    assert out["skipped"][1] == "" and out["predicted"][1] > 0


def test_a_misspelt_optional_column_near_a_known_one_is_refused(tmp_path):
    """num_draft_tokens (SGLang's flag) was read as absent, so tree rows loaded as chains, once the suggestion's
    cutoff was raised (qa94)."""
    for column, meant in (("num_draft_tokens", "draft_tokens"), ("max_concurrency", "concurrency")):
        path = write_rows(tmp_path, [{}])
        frame = pd.read_csv(path, dtype=str, keep_default_na=False).rename(columns={meant: column})
        if column not in frame:
            frame[column] = "4"
        frame.to_csv(path, index=False)
        with pytest.raises(RooflineError, match=re.escape(f"found '{column}' (did you mean '{meant}'?")):
            load_measurements(path)


def test_rows_that_repeat_an_earlier_row_are_said(tmp_path):
    """Rows 1-5 pasted twice were fitted and scored as 10 rows without a word (qa100)."""
    import warnings

    from roofline.errors import RooflineWarning

    shipped = pd.read_csv(default_measurements_path(), dtype=str, keep_default_na=False)
    path = tmp_path / "m.csv"
    pd.concat([shipped.head(6), shipped.head(3).assign(notes="pasted again")]).to_csv(path, index=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert len(load_measurements(path)) == 9
        load_measurements(default_measurements_path())  # the shipped file repeats no row
    said = [str(w.message) for w in caught if issubclass(w.category, RooflineWarning)]
    assert said == [f"{path}: row 7 repeats row 1; row 8 repeats row 2; row 9 repeats row 3, in every column but source, source_id, notes and engine version: each is counted again (delete the copies "
                    "if they are one measurement)"]
    pd.concat([shipped.head(2)] + [shipped.head(1)] * 3).to_csv(path, index=False)  # qa204: 'repeat rows 1, 1, 1'
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_measurements(path)
    assert [str(w.message) for w in caught if issubclass(w.category, RooflineWarning)][0].startswith(
        f"{path}: rows 3, 4, 5 repeat row 1, in every column")


def test_a_row_of_more_or_fewer_fields_than_the_header_is_named_by_its_row(tmp_path):
    """A row with one field too many read as pandas' 'Expected 24 fields in line 7, saw 25'; one of 10 fields as its
    11th column being empty (qa100). Rows are numbered as every other message numbers them: blank lines skipped."""
    shipped = pd.read_csv(default_measurements_path(), dtype=str, keep_default_na=False).head(8)
    header, *lines = shipped.to_csv(index=False).splitlines()
    fields = len(header.split(","))  # 25: the shipped file's columns, its `graphs` column among them
    for bad, count, hint in ((lines[5] + ",extra", fields + 1, " (a value with a comma needs quotes)"),
                             (",".join(lines[5].split(",")[:10]), 10, "")):
        path = tmp_path / "m.csv"
        path.write_text("\n".join([header, lines[0], "", *lines[1:5], bad, *lines[6:]]) + "\n")
        with pytest.raises(RooflineError, match=rf"m.csv: row 6 \(line 8\): expected {fields} fields, as the header has, found {count}"
                                                 + re.escape(hint) + "$"):
            load_measurements(path)


def test_convert_says_a_speculative_method_without_a_recorded_acceptance_and_refuses_a_unit_slip(tmp_path):
    """A plain run converted with --method eagle wrote rows the default rates predict, in silence; a result in
    milliseconds where seconds belong was written, though fit and accuracy refuse it (qa104)."""
    import warnings

    result = {"completed": 50, "max_concurrency": 8, "total_input_tokens": 25600, "total_output_tokens": 12800,
              "duration": 20.0, "mean_tpot_ms": 8.3, "output_throughput": 640.0, "backend": "vllm", "version": "0.10.1"}
    path = tmp_path / "plain.json"
    path.write_text(json.dumps(result))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", method="eagle", k=3)
    assert set(rows["method"]) == {"eagle"}
    assert any("no result records an acceptance length" in str(w.message) for w in caught)
    path.write_text(json.dumps({**result, "mean_tpot_ms": 8300.0}))
    with pytest.raises(RooflineError, match=r"plain\.json: result 1: mean_tpot_ms \(read as step_time_s = it / 1000\): "
                       r".* times slower than it \(a unit slip in the result file\? the bound is read at 8 requests in flight \(the batch\), "):
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")


def test_per_request_records_that_give_no_mean_in_flight_are_said(tmp_path):
    """A null among the ttfts, or ttfts and itls of different lengths, left the concurrency column empty in silence
    (qa104): the row ran at the client's cap with nothing said."""
    import warnings

    base = {**VLLM_RESULT, "max_concurrency": 2, "duration": 2.0, "completed": 4, "output_throughput": 200.0}
    for records in ({"ttfts": [0.1, None, 0.1, 0.1], "itls": [[0.01] * 10] * 4},
                    {"ttfts": [0.1, 0.1, 0.1], "itls": [[0.01] * 10] * 4}):
        path = tmp_path / "r.json"
        path.write_text(json.dumps({**base, **records}))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rows = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")
        assert set(rows["concurrency"]) == {""}
        assert any("give no mean in flight" in str(w.message) and "batch 2" in str(w.message) for w in caught)


def test_a_throughput_row_with_its_mean_in_flight_obeys_littles_law_with_its_time_per_token_row(tmp_path):
    """qa115: under SGLang (each prefill a pass of its own), a run's throughput row was predicted from one batched
    prefill of all B_r prompts, up to 48% above what its own predicted time per token allows: B_r requests in flight,
    each living its prefill and O steps, give at most B_r O / (t_prefill(1, P) + O TPOT)."""
    from roofline.measurements import load_measurements, predict_measurements

    base = {**{c: "" for c in COLUMNS}, "source_id": "s", "source": "t", "engine": "sglang", "hardware": "h100-sxm",
            "gpus": "2", "tp": "2", "ep": "1", "dp_attention": "1", "model": "qwen3-30b-a3b", "weight_dtype": "bf16",
            "kv_dtype": "bf16", "batch": "64", "concurrency": "61.5", "input_len": "1024", "output_len": "512",
            "method": "none", "k": "0", "split": "fit"}
    rows = [{**base, "quantity": "step_time_s", "value": "0.012"}, {**base, "quantity": "tokens_per_s", "value": "4000"},
            {**base, "quantity": "tokens_per_s", "value": "4000", "concurrency": ""}]
    path = tmp_path / "m.csv"
    pd.DataFrame(rows, columns=list(COLUMNS)).to_csv(path, index=False)
    p = predict_measurements(load_measurements(path))
    tpot, arriving, static = p["predicted"].to_numpy()
    own = p["prefill_time_s"].to_numpy()
    running = p["running_batch"].to_numpy()[0]
    ttft = float(own[1] - (running - 1.0) * own[0])  # the own prefill: what the throughput row adds to the stalls
    assert ttft > 0
    assert arriving == pytest.approx(running * 512 / (ttft + 512 * tpot), rel=1e-9)  # Little's law, to the last digit
    assert static > arriving  # without a mean in flight: one batched prefill of all the prompts (a static batch)


def test_a_benchmark_json_given_as_measurements_is_one_short_line(tmp_path):
    """qa115: a vLLM --save-detailed JSON given to fit printed a 25 KB line of 'duplicate columns'."""
    import json

    path = tmp_path / "c1.json"
    path.write_text(json.dumps({"backend": "vllm", "ttfts": [0.005739] * 400, "itls": [[0.005741] * 3] * 400}))
    with pytest.raises(RooflineError) as err:
        load_measurements(path)
    assert str(err.value) == (f"{path}: expected a measurements CSV, found JSON: a serving benchmark's result file? "
                              "convert it first: roofline measurements convert")


def test_two_csvs_joined_with_their_headers_and_a_non_csv_out_are_said(tmp_path):
    """qa115: `cat a.csv b.csv` read as 'row 9: gpus: expected an integer, found gpus'; convert --out c4.json --force
    replaced a benchmark result with CSV."""
    from roofline.measurements import write_measurements

    row = {**{c: "" for c in COLUMNS}, "source_id": "s", "source": "t", "engine": "vllm", "hardware": "h100-sxm",
           "gpus": "1", "tp": "1", "model": "llama-3.1-8b", "batch": "1", "input_len": "100", "output_len": "100",
           "method": "none", "k": "0", "quantity": "tokens_per_s_per_user", "value": "150", "split": "fit"}
    one = pd.DataFrame([row], columns=list(COLUMNS)).to_csv(index=False)
    (tmp_path / "both.csv").write_text(one + one)
    with pytest.raises(RooflineError, match=r"both.csv: row 2 \(line 3\): expected a measurement, found the header again"):
        load_measurements(tmp_path / "both.csv")
    with pytest.raises(RooflineError, match=r"^--out: expected a .csv file"):
        write_measurements(pd.DataFrame([row]), tmp_path / "c4.json", force=True)
    assert not (tmp_path / "c4.json").exists()


def test_littles_law_prices_the_requests_own_prefill_and_the_others_stalls_under_mixed_prefill(tmp_path):
    """qa116: the SGLang test could not tell a request's own prefill from a stall (they are equal without mixed
    prefill); under vllm's mixed prefill the throughput row pays t_prefill(1, P) once and t_stall B_r - 1 times."""
    from roofline.engine import step_metrics
    from roofline.hardware import load_hardware
    from roofline.layout import deployment
    from roofline.model import load_model
    from roofline.serving import load_engine

    base = {**{c: "" for c in COLUMNS}, "source_id": "s", "source": "t", "engine": "vllm", "engine_version": "0.10",
            "hardware": "h100-sxm", "gpus": "1", "tp": "1", "ep": "1", "dp_attention": "1", "model": "llama-3.1-8b",
            "weight_dtype": "bf16", "kv_dtype": "bf16", "batch": "32", "concurrency": "30", "input_len": "1024",
            "output_len": "512", "method": "none", "k": "0", "split": "fit"}
    rows = [{**base, "quantity": "step_time_s", "value": "0.02"}, {**base, "quantity": "tokens_per_s", "value": "2000"}]
    path = tmp_path / "m.csv"
    pd.DataFrame(rows, columns=list(COLUMNS)).to_csv(path, index=False)
    p = predict_measurements(load_measurements(path))
    stall, arriving_prefill = p["prefill_time_s"].to_numpy()
    running = float(p["running_batch"].iloc[0])
    engine = load_engine("vllm").for_hardware(load_hardware("h100-sxm"))
    model = load_model("llama-3.1-8b")
    own = float(step_metrics(load_hardware("h100-sxm"), model, 1, 1024, 0, deployment(model), engine=engine,
                             logit_tokens=1, prefill=True)["step_time_s"])
    assert stall < 0.9 * own  # mixed prefill: a stall is what the prompt adds to a decode pass, less than its own pass
    assert arriving_prefill == pytest.approx(own + (running - 1.0) * stall, rel=1e-9)
    tpot, throughput = p["predicted"].to_numpy()
    assert throughput == pytest.approx(running * 512 / (own + 512 * tpot), rel=1e-9)


def test_convert_says_an_engine_given_against_the_results_own_and_a_version_without_a_number(tmp_path):
    """qa114: `--engine sglang` on a result whose backend is vllm, and `--engine-version x.y` (read as the current
    engine), were taken without a word."""
    path = tmp_path / "vllm.json"
    path.write_text(json.dumps(VLLM_RESULT))
    with pytest.warns(RooflineWarning, match=r"vllm.json: result 1: backend 'vllm' names vllm, --engine sglang: its rows are "
                                             r"written as sglang's"):
        rows = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", engine="sglang")
    assert set(rows["engine"]) == {"sglang"}
    with pytest.warns(RooflineWarning, match=r"--engine-version 'x.y' holds no version number"):
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", engine_version="x.y")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the engine it names, and a version with a number: nothing to say
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", engine="vllm", engine_version="0.10.1")


def test_convert_says_a_run_of_few_requests_a_slot_without_records_of_its_mean_in_flight(tmp_path):
    """qa426: convert was silent where no record gave the mean in flight, and 100 requests under a cap of 256 were
    written at 256 in flight: at most the 100 there were ran at once."""
    path = tmp_path / "few.json"
    path.write_text(json.dumps({**VLLM_RESULT, "num_prompts": 100, "completed": 100, "max_concurrency": 256}))
    with pytest.warns(RooflineWarning, match=r"few.json: result 1: no per-request records give its mean in flight .*: its "
                                             r"rows run at its 100 completed requests, fewer than the client's cap 256, all "
                                             r"at once, the most that can be: its rows are priced at more sequences at "
                                             r"once than ran on average"):
        raw = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")
    assert list(raw["batch"]) == ["256"] * 2 and list(raw["concurrency"]) == ["100"] * 2
    assert "concurrency = completed requests, fewer than the cap" in raw["notes"][0]
    path.write_text(json.dumps({**VLLM_RESULT, "num_prompts": 64, "completed": 64}))
    with pytest.warns(RooflineWarning, match=r"its rows run at the client's cap, batch 32, where 64 requests, 2 a slot, "
                                             r"drain their last wave with fewer"):
        raw = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")
    assert list(raw["concurrency"]) == ["", ""]
    path.write_text(json.dumps(VLLM_RESULT))  # 320 requests, 10 a slot: within 5% of the cap, nothing to say
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert list(convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")["concurrency"]) == ["", ""]


def _drain_notes(path, **kw) -> tuple:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        raw = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", **kw)
    lines = [str(w.message) for w in caught]
    return raw, lines, [x for x in lines if "no per-request records give its mean in flight" in x]


@pytest.mark.parametrize("completed, said", [(144, True), (160, False), (176, False)])
def test_the_drain_note_stops_at_five_requests_a_slot(tmp_path, completed, said):
    """qa427's mutants: DRAIN_SLOTS 4 or 6, or <= 5."""
    path = tmp_path / "r.json"
    path.write_text(json.dumps({**VLLM_RESULT, "num_prompts": completed, "completed": completed}))
    raw, _, drained = _drain_notes(path)
    assert bool(drained) == said and list(raw["concurrency"]) == ["", ""], drained


def test_the_drain_note_is_said_once_a_file_alone_and_to_two_digits(tmp_path):
    """qa427's mutants: said once a file; a run of as many requests as its cap runs at the cap; records that give no
    mean said by their own line alone; SGLang's printed concurrency needs none; requests a slot to two digits."""
    path = tmp_path / "two.jsonl"
    path.write_text("\n".join(json.dumps({**VLLM_RESULT, "num_prompts": n, "completed": n, "max_concurrency": c})
                              for n, c in ((64, 32), (40, 16))) + "\n")
    assert len(_drain_notes(path)[2]) == 1
    path = tmp_path / "r.json"
    path.write_text(json.dumps({**VLLM_RESULT, "num_prompts": 32, "completed": 32}))
    raw, _, (line,) = _drain_notes(path)
    assert "its rows run at the client's cap, batch 32, where 32 requests, 1 a slot, drain their last wave" in line, line
    assert list(raw["concurrency"]) == ["", ""]
    path.write_text(json.dumps({**VLLM_RESULT, "num_prompts": 150, "completed": 150}))
    assert "where 150 requests, 4.7 a slot, drain" in _drain_notes(path)[2][0]
    path.write_text(json.dumps({**VLLM_RESULT, "max_concurrency": 2, "duration": 2.0, "completed": 4, "num_prompts": 4,
                                "output_throughput": 200.0, "ttfts": [0.1, None, 0.1, 0.1], "itls": [[0.01] * 10] * 4}))
    _, lines, drained = _drain_notes(path)
    assert any("give no mean in flight" in x for x in lines) and drained == [], lines
    sglang = tmp_path / "run.jsonl"
    sglang.write_text(json.dumps({"max_concurrency": 32, "random_input_len": 1024, "random_output_len": 256,
                                  "completed": 100, "total_input_tokens": 102400, "total_output_tokens": 25600,
                                  "output_throughput": 3000.0, "mean_tpot_ms": 10.0, "concurrency": 30.0}) + "\n")
    raw, _, drained = _drain_notes(sglang)
    assert drained == [] and list(raw["concurrency"]) == ["30", "30"]


def test_a_mean_in_flight_is_not_written_above_its_cap():
    """qa193: 12,346 in flight of a cap of 12,346 was written 1.235e+04, which convert's own check refused."""
    from roofline.measurements import _concurrency_text

    assert _concurrency_text(12346, 12346) == "12346" and _concurrency_text(12345.4, 12346) == "12346"
    assert _concurrency_text(31.7, 32) == "31.7" and _concurrency_text(1000.4, 2048) == "1000"


def test_convert_says_a_file_of_another_kind_as_such(tmp_path):
    """qa187: vLLM's .pytorch.json beside a result read 'completed: expected the number of completed requests, found
    nothing'; a file of [] named the function convert_benchmark; a truncated file lost its column; a measurements CSV
    was 'not valid JSON'."""
    cases = {
        "run.pytorch.json": ('{"metadata": {}, "benchmark": {"name": "x"}}',
                             "run.pytorch.json: result 1: expected a result of vllm bench serve / benchmark_serving.py or "
                             "SGLang's bench_serving (completed, mean_tpot_ms, output_throughput), found none of their fields "
                             "(metadata, benchmark); vLLM writes this .pytorch.json beside its result file: convert the result file"),
        "none.json": ("[]", "command line: FILES: expected result files holding at least one result, found"),
        # qa435: SGLang's bench_offline_throughput was told 'completed: expected the number of completed requests'
        "offline.jsonl": ('{"backend": "engine", "successful_requests": 10, "output_throughput": 978.9}\n',
                          "offline.jsonl: result 1: expected a result of vllm bench serve / benchmark_serving.py or SGLang's "
                          "bench_serving (completed, mean_tpot_ms, output_throughput), found output_throughput alone of their "
                          "fields (backend, successful_requests, output_throughput); an offline throughput run (no requests "
                          "timed one by one): run the serving benchmark against a server"),
        "cut.json": ('{"completed": 3, "mean_tpot_ms": "ab', "cut.json: line 1: not valid JSON: Unterminated string starting at (column 34)"),
        "mine.csv": ("source_id,hardware,quantity,value\nme,h100-sxm,step_time_s,0.01\n",
                     "mine.csv: expected benchmark results (JSON or JSON lines), found a measurements CSV"),
        # qa426: vLLM's printed summary saved to a file was 'line 1: not valid JSON'
        "printed.txt": ("INFO 12-07 launching\n============ Serving Benchmark Result ============\n"
                        "Successful requests:                     400\nMean TPOT (ms):                          7.01\n",
                        "printed.txt: expected benchmark results (JSON or JSON lines), found the benchmark's printed "
                        "summary: save its results as JSON (vLLM: vllm bench serve --save-result --save-detailed; SGLang: "
                        "bench_serving --output-file FILE.jsonl) and convert that"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(RooflineError) as error:
            convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")
        assert str(error.value).startswith(str(tmp_path / message) if not message.startswith("command") else message), str(error.value)


def test_convert_refuses_a_layout_degree_of_another_type_in_one_line(tmp_path):
    """qa213: convert_benchmark(..., tp="2") raised a TypeError from inside the layout check."""
    path = tmp_path / "r.json"
    path.write_text(json.dumps(VLLM_RESULT))
    for option, value in (("tp", "2"), ("ep", 1.5), ("dp_attention", True)):
        with pytest.raises(RooflineError, match=f"--{option.replace('_', '-')}: expected an integer, found"):
            convert_benchmark([path], hardware="h100-sxm", model="llama-3.1-8b", **{option: value})


def test_the_library_refuses_a_path_of_another_type_and_an_unchecked_table_in_one_line():
    """qa213: load_measurements(42) raised pathlib's TypeError; predict_measurements of a raw read_csv, pandas' KeyError."""
    with pytest.raises(RooflineError, match="load_measurements: path: expected a file path"):
        load_measurements(42)
    raw = pd.read_csv(default_measurements_path(), dtype=str, keep_default_na=False)
    with pytest.raises(RooflineError, match="expected a table from load_measurements .* pass it through load_measurements"):
        predict_measurements(raw)



def test_convert_append_refuses_an_accuracy_table(tmp_path, roofline):
    """qa223: --append onto accuracy.csv passed as a measurements file and then asked for a 'source' column."""
    path = tmp_path / "accuracy.csv"
    path.write_text("row,source_id,engine,hardware,model,quantity,value,predicted,error,predicted_ideal,error_ideal\n"
                    "1,x,vllm,h100-sxm,llama-3.1-8b,tokens_per_s,100,95,-0.05,120,0.2\n")
    before = path.read_bytes()
    result = tmp_path / "r.json"
    result.write_text(json.dumps(VLLM_RESULT))
    code, _, err = roofline("measurements", "convert", result, "--hardware", "h100-sxm", "--model", "llama-3.1-8b",
                            "--out", path, "--append")
    assert code == 2 and "found roofline accuracy's output" in err and path.read_bytes() == before, err


@pytest.mark.slow
def test_convert_and_rows_keep_a_profile_paths_case_refuse_a_key_given_twice_and_name_max_concurrency(tmp_path):
    """qa279: a hardware or model path was lowercased (/tmp/X/HW/h100-sxm.yaml: not found), a benchmark result with
    mean_tpot_ms twice was read by its last, max_concurrency 1e30 and 0 were said of 'converted benchmark output: row 1:
    batch' and as null."""
    folder = tmp_path / "Case" / "HW"
    folder.mkdir(parents=True)
    hw = folder / "H100-mine.yaml"
    hw.write_text((Path(__file__).resolve().parents[1] / "hardware_profiles" / "h100-sxm.yaml").read_text()
                  .replace("name: h100-sxm\n", "name: H100-mine\n"))
    path = tmp_path / "run.json"
    path.write_text(json.dumps(VLLM_RESULT))
    raw = convert_benchmark(path, hardware=str(hw), model="llama-3.1-8b")
    rows = predict_measurements(load_measurements(write_measurements(raw, tmp_path / "rows.csv")))
    assert set(rows["hardware"]) == {str(hw)} and rows["predicted"].notna().all()
    text = json.dumps(VLLM_RESULT)
    path.write_text(text[:-1] + ', "mean_tpot_ms": 99}')
    with pytest.raises(RooflineError, match=f"^{re.escape(str(path))}: not valid JSON: key 'mean_tpot_ms' given twice"):
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")
    for cap, found in ((1e30, "found 1e+30"), (0, "0 is the benchmark's 'no cap', found 0"), (0.0, "found 0.0")):
        path.write_text(json.dumps({**VLLM_RESULT, "max_concurrency": cap}))
        with pytest.raises(RooflineError) as err:
            convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")
        assert str(err.value).startswith(f"{path}: result 1: max_concurrency: expected ") and str(err.value).endswith(found)



def test_a_tree_without_its_measured_tau_is_one_line_not_a_warning_and_an_error(tmp_path, roofline):
    """qa298: `--draft-tokens 8` on a result without an acceptance length warned that its rows would be predicted with
    the default rates, then refused them (two lines, the first untrue)."""
    path = tmp_path / "run.json"
    path.write_text(json.dumps(VLLM_RESULT))
    code, out, err = roofline("measurements", "convert", path, "--hardware", "h100-sxm", "--model", "llama-3.1-8b",
                              "--method", "eagle", "--k", "4", "--draft-tokens", "8", "--out", tmp_path / "o.csv")
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: ") and "acceptance_length" in err, err
    assert not (tmp_path / "o.csv").exists()


def test_convert_says_speculative_rows_above_their_engines_cap_while_speculating(tmp_path):
    """qa310: an SGLang EAGLE run of 64 in flight was converted (and fitted) at 64 in silence, where predict says SGLang
    decodes at most 48 at once while speculating unless --max-running-requests raised it. Said, the rows kept at the
    run's concurrency (a server with the cap raised ran them so)."""
    from roofline.errors import RooflineWarning

    def said(batch: int, engine: str, method: str = "eagle") -> list[str]:
        path = tmp_path / f"run{batch}.jsonl"
        path.write_text(json.dumps({"max_concurrency": batch, "completed": 1000, "total_input_tokens": 1024000,
                                    "total_output_tokens": 512000, "output_throughput": 60.0 * batch, "mean_tpot_ms": 16.0,
                                    **({"accept_length": 2.6} if method != "none" else {})}) + "\n")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            raw = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b", method=method,
                                    k=3 if method != "none" else 0, engine=engine, draft_vocab=32000 if method != "none" else None)
        assert list(raw["batch"]) == [str(batch)] * 2  # kept as run
        return [str(w.message) for w in caught if issubclass(w.category, RooflineWarning) and "cap" in str(w.message)]

    lines = said(64, "sglang")
    assert lines == ["1 converted run runs more sequences at once (64 at most) than sglang decodes while speculating with "
                     "its cap at its default (48; --max-running-requests raises it): written at the run's concurrency, as a "
                     "server with the cap raised runs them; if yours ran with the default, the rest waited in its queue and "
                     "the rows overstate the batch"], lines
    assert said(48, "sglang") == [] and said(64, "vllm") == [] and said(64, "sglang", "none") == []
    # qa312: under attention DP the cap is each group's floor share (SGLang's resolve_max_num_reqs): 32 at dp 32
    path = tmp_path / "dp.jsonl"
    path.write_text(json.dumps({"max_concurrency": 40, "completed": 200, "total_input_tokens": 204800,
                                "total_output_tokens": 102400, "output_throughput": 2000.0, "mean_tpot_ms": 16.0,
                                "accept_length": 2.6}) + "\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        convert_benchmark(path, hardware="h200", model="deepseek-v3", tp=1, dp_attention=32, ep=32, method="mtp", k=3,
                          engine="sglang", weight_dtype="fp8")
    assert any("(40 at most) than sglang decodes while speculating with its cap at its default (32;" in str(w.message)
               for w in caught), [str(w.message) for w in caught]


def test_convert_says_its_warnings_only_once_the_rows_are_written(tmp_path, roofline):
    """qa312: a convert refused by --out (an --append file that is no measurements file) printed its warnings first,
    one saying the rows were 'written', then the error: bad input is one line."""
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps({"max_concurrency": 64, "completed": 200, "total_input_tokens": 204800,
                                "total_output_tokens": 102400, "output_throughput": 4000.0, "mean_tpot_ms": 16.0,
                                "accept_length": 2.6}) + "\n")
    (tmp_path / "bad.csv").write_text("a,b\n")
    args = ("measurements", "convert", path, "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--engine", "sglang",
            "--method", "eagle3", "--k", "3")
    code, _, err = roofline(*args, "--out", tmp_path / "bad.csv", "--append")
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: "), err
    code, out, err = roofline(*args, "--out", tmp_path / "ok.csv")
    assert code == 0 and "without --draft-vocab" in err and "1 converted run runs more sequences" in err, err


def test_convert_names_the_option_of_an_unknown_profile(tmp_path, roofline):
    """qa310: `convert --draft foo` said 'unknown model', the option unnamed (predict names it)."""
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps({"max_concurrency": 4, "completed": 100, "total_input_tokens": 51200,
                                "total_output_tokens": 25600, "output_throughput": 400.0, "mean_tpot_ms": 8.0}) + "\n")
    base = {"--hardware": "h100-sxm", "--model": "llama-3.1-8b"}
    for option, value, what in (("--draft", "foo", "model"), ("--hardware", "h100x", "hardware"), ("--model", "llamaz", "model")):
        given = {**base, **({option: value} if option != "--draft" else {})}
        extra = ["--method", "draft", "--k", "3", "--draft", value] if option == "--draft" else []
        code, _, err = roofline("measurements", "convert", path, *[x for kv in given.items() for x in kv], *extra,
                                "--out", tmp_path / "x.csv")
        assert code == 2 and err.startswith(f"error: command line: {option}: unknown {what} '{value}'"), err
        assert not (tmp_path / "x.csv").exists()


def test_more_requests_in_flight_than_the_cap_names_the_records_it_was_taken_from(tmp_path):
    """qa310: a vLLM run whose per-request records (ttfts and itls) give more requests in flight than its max_concurrency
    was refused naming 'latencies / duration', a field the file did not have."""
    path = tmp_path / "conc.json"
    path.write_text(json.dumps({"max_concurrency": 4, "completed": 8, "total_input_tokens": 4096, "total_output_tokens": 1024,
                                "output_throughput": 400.0, "mean_tpot_ms": 8.0, "duration": 1.0,
                                "ttfts": [0.1] * 8, "itls": [[0.08] * 9] * 8}))
    with pytest.raises(RooflineError, match=r"conc\.json: result 1: \(sum of ttfts and itls\) / duration: expected at "
                                            r"most the batch 4 \(max_concurrency\)"):
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")


def test_a_yaml_file_given_as_measurements_and_a_result_without_token_counts_are_named(tmp_path):
    """qa334: `fit engine.yaml` was refused as 'row 1: expected 3 fields, as the header has'; a result with neither
    total_input_tokens nor random_input_len was refused under the setting's name, not the total's."""
    from roofline.errors import RooflineError
    from roofline.measurements import load_measurements

    profile = tmp_path / "mine.txt"
    profile.write_text("type: engine\nname: mine\ncosts_from: vllm\n")
    for path in (profile, Path("engine_profiles/vllm.yaml")):
        with pytest.raises(RooflineError, match=r": expected a measurements CSV, found YAML \(a profile\?"):
            load_measurements(path)
    result = tmp_path / "r.json"
    result.write_text(json.dumps({k: v for k, v in VLLM_RESULT.items() if k not in ("total_input_tokens", "input_lens")}))
    with pytest.raises(RooflineError, match=r"r.json: result 1: total_input_tokens: expected total input tokens \(or random_input_len\), found nothing"):
        convert_benchmark(result, hardware="h100-sxm", model="llama-3.1-8b")


@pytest.mark.slow
def test_rows_no_setup_of_their_engine_runs_are_left_out_of_fit_and_said_by_convert(tmp_path):
    """qa388: rows at tp 4 ep 2 under vllm (its ep spans a stage or none), TensorRT-LLM on MI300X, and EAGLE at pp 2
    under sglang were fitted and scored in silence, where predict says no setup of the engine runs them."""
    path = write_rows(tmp_path, [
        {"model": "qwen3-30b-a3b", "tp": "4", "gpus": "4", "ep": "2", "batch": "8", "value": "100"},
        {"model": "qwen3-30b-a3b", "tp": "4", "gpus": "4", "ep": "4", "batch": "8", "value": "100"},
        {"engine": "TensorRT-LLM", "hardware": "mi300x", "batch": "8", "value": "100"},
        {"engine": "sglang", "engine_version": "0.4.6", "gpus": "2", "batch": "8", "method": "eagle", "k": "3",
         "acceptance_length": "2.5", "value": "100"}])
    table = pd.read_csv(path, dtype=str).assign(pp=["1", "1", "1", "2"])  # pp: an optional column, written where used
    table.to_csv(path, index=False)
    table = load_measurements(path)
    prepared = prepare_rows(table, (), str(path), engine_for=lambda slot: load_engine(slot or "vllm"))
    skipped = list(prepared.table["skipped"])
    assert skipped[0].startswith("no vllm setup runs it: ep 2 of a stage's 4 devices under vllm") and skipped[1] == ""
    assert skipped[2].startswith("no trtllm setup runs it: engine trtllm: TensorRT-LLM runs on NVIDIA GPUs only")
    assert skipped[3].startswith("no sglang setup runs it: eagle speculation with pp 2 under sglang"), skipped[3]
    result = tmp_path / "run.json"
    result.write_text(json.dumps({**VLLM_RESULT, "model_id": "Qwen/Qwen3-30B-A3B"}))
    with pytest.warns(RooflineWarning, match=r"run.json: ep 2 of a stage's 4 devices under vllm: .*: fit and accuracy leave these "
                                             r"rows out \(give the layout the server ran"):
        convert_benchmark(result, hardware="h100-sxm", model="qwen3-30b-a3b", tp=4, ep=2)


def test_engine_refusal_names_a_shard_the_engines_refuse_and_nothing_under_ideal():
    """qa390's surviving mutants: the shard vLLM and SGLang refuse to load (DeepSeek-V3's fp8 block scales at tp 32)
    was never checked, nor that the bound (ideal) refuses nothing."""
    from roofline.layout import deployment as lay
    from roofline.measurements import engine_refusal

    ds, h200 = load_model("deepseek-v3"), load_hardware("h200")
    shard = lay(ds, tp=32)
    refusal = engine_refusal(load_engine("vllm").for_hardware(h200), h200, ds, shard, "none", 0)
    assert refusal.startswith("deepseek-v3 at tp 32: ") and "refuse to load such a shard" in refusal
    assert engine_refusal(load_engine("ideal"), h200, ds, shard, "none", 0) == ""
    assert engine_refusal(load_engine("vllm").for_hardware(h200), h200, ds, lay(ds, tp=8), "none", 0) == ""


def test_a_servers_own_method_name_in_a_file_is_refused_with_the_name_it_stands_for(tmp_path):
    """qa388: a CSV row of `method: eagle3` was refused with no hint, where `convert --method eagle3` takes it."""
    path = write_rows(tmp_path, [{"method": "eagle3", "k": "3", "acceptance_length": "2.5"}])
    with pytest.raises(RooflineError, match=r"method: expected one of none, draft, mtp, eagle, medusa, ngram \(eagle3 is the "
                                            r"server's name for `eagle`, as `measurements convert --method eagle3` reads it; "
                                            r"an EAGLE-3 head's reduced vocabulary goes in draft_vocab\), found 'eagle3'$"):
        load_measurements(path)
    with pytest.raises(RooflineError, match=r"\(deepseek_mtp is the server's name for `mtp`, as .*reads it\), found"):
        load_measurements(write_rows(tmp_path, [{"method": "deepseek_mtp", "k": "1"}], name="m2.csv"))
    with pytest.raises(RooflineError, match=r"ngram, found 'medusa2'$"):  # no such name: no hint
        load_measurements(write_rows(tmp_path, [{"method": "medusa2"}], name="m3.csv"))


@pytest.mark.slow
def test_rows_past_the_models_trained_positions_are_said(tmp_path):
    """qa407: rows of 200,000 prompt tokens on Llama 3.1 8B (131,072 trained positions: a run's total input written for
    one request's) were fitted and scored in silence, where predict says such a context is past the model's."""
    shipped = pd.read_csv(default_measurements_path(), dtype=str, keep_default_na=False)
    rows = shipped[(shipped["model"] == "llama-3.1-8b") & (shipped["quantity"] == "step_time_s")].head(3).copy()
    rows.iloc[:2, rows.columns.get_loc("input_len")] = "200000"
    path = tmp_path / "m.csv"
    rows.to_csv(path, index=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        predict_measurements(load_measurements(path), where=str(path))
    said = [str(w.message) for w in caught if "trained positions" in str(w.message)]
    assert len(said) == 1 and said[0].startswith(f"{path}: rows 1, 2: input_len + output_len (up to 20"), said
    assert "past llama-3.1-8b's 131,072 trained positions" in said[0], said
