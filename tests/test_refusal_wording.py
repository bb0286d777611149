"""Found by mutation testing of session 72's diff (qa482): 'draft-model drafting' in predict's and cheapest's refusals (serving.py, frontier.py), the optimistic-batch
warning's thousands (api.py), and convert's draft-model warning said once (measurements.py)."""
import json
import warnings

import pytest

import roofline
from roofline.errors import RooflineWarning

pytestmark = pytest.mark.slow  # CLI runs, predicts and sweeps: 40-650 ms a test


def test_predict_says_sglang_refuses_draft_model_drafting_under_attention_dp():
    """kills serv_dw_notes ('refuses draft drafting')."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 8, engine="sglang", dp_attention=2, method="draft",
                         draft="llama-3.2-1b", k=3, alpha=0.7)
    assert ("draft speculation with dp_attention 2 under sglang: the engine refuses draft-model drafting under attention "
            "DP (speculation_refused_with_dp_attention), so no sglang setup runs this point") in p["warnings"]


def test_cheapest_says_sglang_refuses_draft_model_drafting_under_attention_dp():
    """kills fr_dw (frontier.refused_methods' note)."""
    from roofline.frontier import refused_methods

    df = roofline.sweep({"hardware": "h200", "model": "llama-3.1-8b", "engine": "sglang", "method": "draft",
                         "draft": "llama-3.2-1b", "layouts": [{"dp_attention": 2}],
                         "axes": {"batch": [8], "context": [2048], "k": [3], "alpha": [0.6]}})
    assert [e["note"] for e in refused_methods(df)] == [
        "draft speculation under sglang at dp_attention 2 (it refuses draft-model drafting under attention DP)"]


def test_the_optimistic_batch_warning_writes_its_batch_with_thousands():
    """kills api_opt_comma: batch 1,000 (at or above OPTIMISTIC_BATCH 32, within vllm's 1,024 sequences)."""
    p = roofline.predict("h200", "llama-3.1-8b", 1000, 1024, method="eagle", k=3, alpha=0.7)
    assert any(w.startswith("batch 1,000 under vllm: with a serving engine, speculative gains at batch 32 and above")
               for w in p["warnings"]), p["warnings"]


def test_convert_says_a_draft_model_no_smaller_than_its_target_once_over_two_engines_results(tmp_path):
    """kills meas_draftwarn_dupe: a vLLM result and an SGLang result of one too-large draft (two row groups, one an
    engine): one warning, not one a group."""
    from roofline.measurements import convert_benchmark

    vllm = {"date": "20250601-120000", "backend": "vllm", "num_prompts": 320, "request_rate": "inf", "max_concurrency": 32,
            "duration": 60.0, "completed": 320, "total_input_tokens": 327680, "total_output_tokens": 163840,
            "output_throughput": 2730.7, "mean_tpot_ms": 11.2, "mean_itl_ms": 11.0, "spec_decode_acceptance_length": 2.6}
    sglang = {"max_concurrency": 16, "random_input_len": 1024, "random_output_len": 256, "completed": 100,
              "total_input_tokens": 102400, "total_output_tokens": 25600, "output_throughput": 1600.0,
              "mean_tpot_ms": 9.6, "accept_length": 2.6, "concurrency": 15.7}
    (tmp_path / "run.json").write_text(json.dumps(vllm))
    (tmp_path / "run.jsonl").write_text(json.dumps(sglang) + "\n")
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        convert_benchmark([tmp_path / "run.json", tmp_path / "run.jsonl"], hardware="h100-sxm", model="llama-3.2-1b",
                          method="draft", k=3, draft="llama-3.2-3b")
    too_large = [str(w.message) for w in said if issubclass(w.category, RooflineWarning) and "no smaller than" in str(w.message)]
    assert len(too_large) == 1, too_large
    assert "draft model llama-3.2-3b (3.21B parameters) is no smaller than its target llama-3.2-1b" in too_large[0]
