"""Mutation testing (qa470) of the findings changed in the last two sessions (break-even naming of several models,
MLA's long-context rule, sparse attention's): each test names the mutant it kills; values worked by hand."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from roofline.findings import _break_even_span, _sparse_attention_text, break_even_batch, mla_attention_text

pytestmark = pytest.mark.slow  # each sweeps or predicts: 0.3-1 s a test


def _cells(*rows):
    """break_even_table's rows of one method, alpha and context: (hardware, model, break-even, censored, memory_limited,
    largest fitting swept batch)."""
    keys = ("hardware", "model", "break_even_batch", "censored", "memory_limited", "largest_fitting_batch")
    return pd.DataFrame([dict(zip(keys, r)) for r in rows])


def test_a_break_even_span_over_two_models_on_one_gpu_counts_gpu_and_model_pairs():
    """qa467: two models on one GPU are two cells, not two GPUs. Two break-evens inside the sweep, 100 and 200, and one
    memory ends at 300: 2 of the 3 pairs inside (mutant: 'of the 3 GPUs'); both inside: 'for every GPU and model'
    (mutant: 'on every GPU', which says one GPU as many)."""
    three = _cells(("h200", "a", 100, False, False, 512.0), ("h200", "b", 200, False, False, 512.0),
                   ("h200", "c", 300, True, True, 256.0))
    assert _break_even_span(three, {}) == ("up to batch 100-200 on 2 of the 3 GPU and model pairs; on h200 for c to at "
                                           "least 300, the largest batch that fits")
    assert _break_even_span(three.iloc[:2], {}) == "up to batch 100-200 for every GPU and model"
    # memory ends all three: every pair (unnamed past two)
    ended = three.assign(censored=True, memory_limited=True)
    assert _break_even_span(ended, {}) == "to the largest batch that fits for every GPU and model"
    # one model on four GPUs keeps the GPUs' words
    gpus = _cells(("h200", "a", 100, True, True, 64.0), ("h100-sxm", "a", 200, True, True, 128.0),
                  ("b200", "a", 300, True, True, 256.0), ("l4", "a", 30, False, False, 256.0))
    assert _break_even_span(gpus, {}) == "up to batch 30 on 1 of the 4 GPUs; on 3 more to the largest batch that fits"


def test_the_later_alpha_sentence_counts_each_model_on_one_gpu(tmp_path):
    """Two models on one H100 at an 18,000-token context: memory (24 and 22 sequences at k 1) ends both break-evens at
    alpha 0.9, so 'on 2 of 2', the GPU and model pairs (mutant n_hw = GPUs: 'on 2 of 1')."""
    from roofline.findings import break_even_table
    from roofline.report import run_scenario

    (tmp_path / "two.yaml").write_text("name: two\nmodel: [llama-3.1-8b, qwen3-8b]\nmethod: eagle\nhardware: h100-sxm\n"
                                       "engine: ideal\naxes: {batch: [1, 8, 64], context: [18000], k: [0, 1, 2, 3], "
                                       "alpha: [0.6, 0.9]}\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = run_scenario(str(tmp_path / "two.yaml"), echo=False)
    table = break_even_table(r.df)
    at_09 = table[table["alpha"] == 0.9]
    assert len(at_09) == 2 and at_09["censored"].all()  # both pairs still pay where memory ends the search
    text = break_even_batch(r.df, r.ops, r.meta).text
    assert "still pays at the largest batch that fits or was swept on 2 of 2 at α = 0.9 (2 where memory ends it" in text, text


def _mla_ops(rows):
    return pd.DataFrame([{"model": "deepseek-v3", "operator": "attention", "hardware": h, "tp": tp, "dp_attention": dp,
                          "ep": 8, "pp": 1, "kv_dtype": "fp8", "pass": p, "batch": 64, "q": 1.0 if p == "decode" else 4.0,
                          "flops": f, "bytes": b, "compute_ceiling_flops_per_s": c, "memory_ceiling_bytes_per_s": m,
                          "compute_bound": f / b > c / m} for h, tp, dp, p, f, b, c, m in rows])


def test_the_mixed_mla_sentence_reads_the_long_context_limit_of_the_compute_bound_side_alone():
    """dp-attention 8 (decode 480, verify 1,600 FLOP/B, past ridges 200 and 250) beside tp 8 (30 and 120, below both):
    the compute-bound clause's N = 1,600 / max(480, ridge) = 3.33 on both devices; the memory-bound rows' 120 / ridge
    (0.48-0.6) are no verify pass that takes longer (mutant: _long_context_limit(last), '0.480-3.33x')."""
    rows = [(h, tp, dp, p, f, 1e9, c, 1e12) for h, c in (("h200", 200e12), ("b200", 250e12))
            for tp, dp, fd, fv in ((1, 8, 480e9, 1600e9), (8, 1, 30e9, 120e9)) for p, f in (("decode", fd), ("verify", fv))]
    text = mla_attention_text("deepseek-v3", _mla_ops(rows), {"display_names": {}})
    assert ("(compute-bound: so where attention is most of the step, at long contexts, a verify pass's attention takes "
            "3.33x a decode step's, and the gain there tends to tau / 3.33 (tau the tokens") in text, text


def test_the_sparse_attention_sentence_says_q_times_as_long():
    """2,048 entries a query, q = 4: past 4 x 2,048 = 8,192 tokens a verify pass reads 4 times a decode step's entries,
    and its attention takes about 4 times as long (mutant: 'about 3 times')."""
    assert _sparse_attention_text("DSV32", 2048, 4) == (
        " For DSV32 it does not hold for its attention, which is sparse: each query reads its own 2,048 cached entries "
        "(picked by its indexer), so past 8,192 tokens of context a verify pass of 4 tokens a sequence reads 4 times a "
        "decode step's entries at the same FLOP/B, and its attention takes about 4 times as long whatever the ridge; only "
        "the indexer, which scores every cached key for each query, shares each read among the queries.")
