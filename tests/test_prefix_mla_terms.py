"""Mutation testing (qa470) of the last two sessions' sweep note for a prefix-aware kernel without the prefix cache
(grid) and of MLA's prefill expansion of a cached context (costs): each test names the mutants it kills."""

from __future__ import annotations

import warnings

import pytest

from roofline.costs import operator_costs
from roofline.layout import deployment
from roofline.model import load_model

pytestmark = pytest.mark.slow  # each sweeps or predicts: 0.3-1 s a test


def test_a_sweep_says_a_prefix_aware_kernel_without_the_cache_reads_each_sequences_copy(roofline, monkeypatch, tmp_path):
    """qa457: a copy of vllm with prefix_read_once true and prefix_cached false holds a copy a sequence, which no
    kernel shares: the sweep's note says it is read by each sequence and why (mutants: 'read once a step' from
    prefix_read_once alone; the reason dropped)."""
    import roofline as api

    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user"))
    code, _, err = roofline("engines", "new", "kernel-nocache", "--from", "vllm", "--set", "prefix_read_once=true",
                            "--set", "prefix_cached=false")
    assert code == 0, err
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "engine": "kernel-nocache", "shared_prefix": 512})
    (note,) = [str(w.message) for w in caught if "shared_prefix: under" in str(w.message)]
    assert note.endswith("under kernel-nocache the prefix is held by each sequence (prefix_cached false), read by each "
                         "sequence (prefix_read_once true; each sequence's own copy, which no kernel shares)"), note


def test_an_mla_prefill_without_a_cached_context_expands_no_latent():
    """With no cached context (S = 0) a prefill up-projects only its own tokens' latents, as its GEMMs do: qkv_proj's
    FLOPs are linear in the new tokens, 128 tokens twice 64's (mutant entries_read(S + 1): one phantom cached entry a
    layer, 2 x 512 x 4,096 x 61 FLOP more at each T, which the with-minus-without difference cancels)."""
    v3 = load_model("deepseek-v3")
    dep = deployment(v3, tp=8)
    f64, f128 = (float(operator_costs(v3, 1, t, 0, dep, logit_tokens=1, prefill=True)["qkv_proj"][0]) for t in (64, 128))
    assert f128 == 2 * f64
