"""qa446: the MLA sentence of the break-even finding (findings.mla_attention_text, qa441) at the edges the first test
left open: several batches in any order, several KV dtypes and layouts that differ in dp-attention alone, another
model's rows beside it, the verify pass's width, one value said once, two MLA models (mutation survivors)."""

from __future__ import annotations

import re
import warnings

import pandas as pd
import pytest

from roofline.findings import mla_attention_text

META = {"display_names": {}}


def _ops(rows, model="deepseek-v3"):
    """Attention rows: (hardware, tp, dp_attention, kv_dtype, pass, batch, flops, bytes, compute ceiling, memory
    ceiling), q 4 in verify; compute_bound as the engine sets it, intensity above the ridge."""
    return pd.DataFrame([{"model": model, "operator": "attention", "hardware": h, "tp": tp, "dp_attention": dp, "ep": 8,
                          "pp": 1, "kv_dtype": kv, "pass": p, "batch": b, "q": 1.0 if p == "decode" else 4.0,
                          "flops": f, "bytes": by, "compute_ceiling_flops_per_s": c, "memory_ceiling_bytes_per_s": m,
                          "compute_bound": f / by > c / m} for h, tp, dp, kv, p, b, f, by, c, m in rows])


def test_one_decode_value_is_said_once_and_the_verify_pass_by_its_width():
    """A decode step of 480 FLOP/B on both devices is '480', not '480-480'; the verify rows' q of 4 is '4 tokens'."""
    ops = _ops([(h, 1, 8, "fp8", p, 64, f, 1e9, c, 1e12) for h, c in (("h200", 200e12), ("b200", 250e12))
                for p, f in (("decode", 480e9), ("verify", 1600e9))])
    text = mla_attention_text("deepseek-v3", ops, META)
    assert "its attention does 480 FLOP/B in a decode step" in text and "480-480" not in text, text
    assert "in a verify pass of 4 tokens a sequence" in text, text


def test_the_verdict_is_read_at_the_largest_batch_whatever_the_tables_order():
    """A ridge that falls as the batch grows (an attention memory ceiling that rises with the streams, 0.2 TB/s at
    batch 1, 1 TB/s at 64): memory-bound at batch 1 (ridge 1,000), compute-bound at 64 (ridge 200); the rows listed
    largest batch first, the sentence reads batch 64's, decode's too (640 FLOP/B there against 40 at batch 1)."""
    rows = [("h200", 1, 8, "fp8", p, b, f, 1e9, 200e12, m) for b, m, fd, fv in ((64, 1e12, 640e9, 1600e9), (1, 0.2e12, 40e9, 600e9))
            for p, f in (("decode", fd), ("verify", fv))]
    text = mla_attention_text("deepseek-v3", _ops(rows), META)
    assert "and here it does not" in text and "1,600 FLOP/B, above its derated ridge on every device where it fits (h200 (200) FLOP/B)" in text, text
    assert "does 640 FLOP/B in a decode step" in text, text


def test_each_kv_dtype_is_read_on_its_own_side_of_the_ridge():
    """fp8 KV at 1,600 FLOP/B (compute-bound) and bf16 at 150 (memory-bound), one device and layout: each named with
    its KV dtype on its own side of the ridge (200)."""
    rows = [("h200", 1, 8, kv, p, 64, f, 1e9, 200e12, 1e12) for kv, fd, fv in (("fp8", 480e9, 1600e9), ("bf16", 60e9, 150e9))
            for p, f in (("decode", fd), ("verify", fv))]
    text = mla_attention_text("deepseek-v3", _ops(rows), META)
    above, below = text.split(" and below it on ")
    assert "fp8 KV cache: 200" in above and "bf16 KV cache" not in above and "bf16 KV cache: 200" in below, text
    assert "150-1,600 FLOP/B, above its derated ridge (in FLOP/B in brackets) on" in text, text
    assert ") FLOP/B" not in text, text  # qa486: the unit after a device's bracket, twice


def test_layouts_that_differ_in_dp_attention_alone_are_each_read():
    """tp 8 with dp-attention 8 (128 heads a device) above the ridge, tp 8 with dp-attention 1 (16) below it: both
    layouts said, each on its side."""
    rows = [("h200", 8, dp, "fp8", p, 64, f, 1e9, 200e12, 1e12) for dp, fd, fv in ((8, 480e9, 1600e9), (1, 60e9, 150e9))
            for p, f in (("decode", fd), ("verify", fv))]
    text = mla_attention_text("deepseek-v3", _ops(rows), META)
    above, below = text.split(" and below it on ")
    assert "dp-attention 8" in above and "dp-attention 8" not in below and "tp 8" in below, text


def test_another_models_attention_rows_are_not_read():
    """A dense model's attention (10 FLOP/B, memory-bound) listed after DeepSeek-V3's at the same batch: the sentence
    for DeepSeek-V3 reads its own rows alone."""
    mine = _ops([("h200", 1, 8, "fp8", p, 64, f, 1e9, 200e12, 1e12) for p, f in (("decode", 480e9), ("verify", 1600e9))])
    other = _ops([("h200", 1, 8, "fp8", p, 64, 10e9, 1e9, 200e12, 1e12) for p in ("decode", "verify")], model="llama-3.1-8b")
    text = mla_attention_text("deepseek-v3", pd.concat([mine, other], ignore_index=True), META)
    assert "and here it does not" in text and "does 480 FLOP/B in a decode step" in text and "10.0" not in text, text


@pytest.mark.slow
def test_the_break_even_finding_says_the_sentence_for_each_mla_model():
    """DeepSeek-V3 and DeepSeek-R1 swept together: a sentence for each (about 0.5 s: one small sweep)."""
    text = _break_even_text({"model": ["deepseek-v3", "deepseek-r1"], "method": "mtp", "hardware": "h200", "engine": "sglang",
                             "tp": 8, "axes": {"batch": [1, 16], "context": [2048], "k": [0, 1, 2], "alpha": [0.8]}})
    assert " For DeepSeek-V3 " in text and " For DeepSeek-R1 " in text, text


def _break_even_text(data: dict) -> str:
    from roofline.findings import break_even_batch
    from roofline.report import _sweep

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df, ops, meta = _sweep({"name": "x", **data}, "x", ())
    return break_even_batch(df, ops, meta).text


@pytest.mark.slow
def test_the_mla_verdict_is_the_long_contexts_whatever_context_the_sweep_starts_at():
    """qa446: at a 256-token context the verify pass's FLOP/B (125 at tp 8, fp8 KV, q = 4) was read as memory-bound on
    H200 (ridge 194), where 32k gives 240: the query activations weigh beside a short cache. The cache's reads alone
    give about 16 heads x 3.78 x 4 = 242 at either context, compute-bound, said so."""
    common = {"hardware": ["h200"], "model": "deepseek-v3", "method": "mtp", "engine": "sglang", "kv_dtype": "fp8", "tp": 8}
    for context in (256, 32768):
        text = _break_even_text({**common, "axes": {"batch": [1, 8, 32], "context": [context], "k": [0, 1, 3], "alpha": [0.8]}})
        said = re.search(r"whose queries share each read of the cache, ([\d,.]+) FLOP/B, above its derated ridge", text)
        assert said and 235 <= float(said.group(1).replace(",", "")) <= 250 and "and here it does not" in text, text


@pytest.mark.slow
def test_the_mla_sentence_leaves_out_devices_where_the_model_fits_nowhere_and_is_not_said_where_nothing_pays():
    """qa446: DeepSeek-V3 at dp-attention 8 fits nowhere on 8 H100: 'above its derated ridge on every device swept
    (H100 SXM5 (278), H200 SXM (194))' counted it; and at alpha 0.05, where speculation pays at no batch, the sentence
    followed 'pays at no batch' with 'it holds here', no rule stated for 'it'."""
    common = {"hardware": ["h100-sxm", "h200"], "model": "deepseek-v3", "method": "mtp", "engine": "ideal",
              "kv_dtype": "fp8", "dp_attention": 8, "ep": 8}
    text = _break_even_text({**common, "axes": {"batch": [1, 8, 64], "context": [8192], "k": [0, 3], "alpha": [0.8]}})
    assert "not at all on H100 SXM5" in text and "every device where it fits (H200 SXM (194) FLOP/B)" in text, text
    text = _break_even_text({**common, "hardware": ["h200"], "tp": 8, "dp_attention": 1, "ep": 1,
                             "axes": {"batch": [1, 8, 64], "context": [256], "k": [0, 2], "alpha": [0.05]}})
    assert "speculation pays at no batch" in text and " For DeepSeek-V3" not in text and "  " not in text, text


@pytest.mark.slow
def test_the_generic_findings_context_rule_says_whether_it_holds_for_an_mla_model_beside_the_headlines():
    """qa441: Llama 3.1 70B (the headline, GQA) and DeepSeek-V3 (MLA) over contexts 8k and 128k: the finding gave the
    GQA rule alone ('the longer the context, the more of a step speculation's tokens share') where DeepSeek-V3's gain
    falls with the context; the MLA sentence follows it, and is not said where the rule was not stated."""
    from roofline.findings import CONTEXT_RULE, finding
    from roofline.report import _sweep

    data = {"name": "x", "hardware": ["h100-sxm", "h200"], "model": ["deepseek-v3", "llama-3.1-70b"],
            "method": {"deepseek-v3": "mtp", "llama-3.1-70b": "eagle"}, "weight_dtype": "fp8", "kv_dtype": "fp8",
            "layouts": [{"dp_attention": 8, "ep": 8}, {"tp": 8}],
            "axes": {"batch": [1, 16, 64], "context": [8192, 131072], "k": [0, 3], "alpha": [0.8]}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df, ops, meta = _sweep(data, "x", ())
    text = finding("x", df, ops, meta).text
    assert f"{CONTEXT_RULE} For DeepSeek-V3 that holds only while its attention stays memory-bound, and here it does not" in text, text
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df, ops, meta = _sweep({**data, "model": "deepseek-v3", "method": "mtp"}, "x", ())
    assert CONTEXT_RULE not in finding("x", df, ops, meta).text  # its own gain falls: no rule, no sentence on it


@pytest.mark.slow
@pytest.mark.parametrize("context", [256, 64])
def test_the_intensities_are_per_entry_read_as_long_contexts_tend_to(context):
    """qa481: at a 256-token context the sentence said 243 and 486 FLOP/B where a student's hand count gives 241.8 and
    483.6: 2 x (576 + 512) FLOP an entry and head over 1,152 B an entry of a bf16 latent cache, x 128 heads under
    attention DP, x 2 queries in a verify pass of k = 1. The FLOPs read S + 1 entries (S + 1.5 a verify query), the
    cache bytes S: each is taken per entry. qa482: at 64 tokens a verify query's S + q / 2 (not S + (q + 1) / 2) would
    leave 483.6 x 65.5 / 65 = 487."""
    from roofline.grid import load_configs, operator_table
    from roofline.scenario import scenario_from_dict

    sc = scenario_from_dict({"name": "t", "hardware": "h200", "model": "deepseek-v3", "method": "mtp", "engine": "ideal",
                             "layouts": [{"dp_attention": 8, "ep": 8}],
                             "axes": {"batch": [96], "context": [context], "k": [1], "alpha": [0.8]}}, "t")
    text = mla_attention_text("deepseek-v3", operator_table(sc, load_configs(sc)), META)
    assert "its attention does 242 FLOP/B in a decode step" in text, text
    assert "in a verify pass of 2 tokens a sequence, whose queries share each read of the cache, 484 FLOP/B" in text, text
