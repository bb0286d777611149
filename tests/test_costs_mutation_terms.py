"""Cost terms (costs.py) the suite did not pin, found by mutation testing (qa494): the exact balls-in-bins maximum to its last
digits (not cut short), no KV held for a batch of nothing beside a shared prefix, and the hybrid window pool applying only
to a model with both full and sliding layers, its m the largest window's (the module and _pooled_bytes docstrings)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from math import comb
from types import SimpleNamespace

import pytest

from roofline.costs import expected_max_load, kv_cache_bytes, window_pool_applies
from roofline.layout import deployment
from roofline.model import load_model

pytestmark = pytest.mark.slow  # the exact counts and MoE passes take above 30 ms


def _exact_max_load(n: int, bins: int) -> Fraction:
    """E[max] = sum_{m=0}^{n-1} P(max > m), P(max <= m) the share of the bins^n placements of n labelled balls with
    every bin at most m, counted bin by bin (C(n - used, j) ways to put j of the rest in the next bin): a second route to
    the module docstring's sum."""
    total = Fraction(0)
    for m in range(n):
        ways = [1] + [0] * n
        for _ in range(bins):
            new = [0] * (n + 1)
            for used, count in enumerate(ways):
                if count:
                    for j in range(min(m, n - used) + 1):
                        new[used + j] += count * comb(n - used, j)
            ways = new
        total += 1 - Fraction(ways[n], bins ** n)
    return total


@pytest.mark.parametrize("n, bins", [(2, 2), (8, 8), (20, 4), (64, 8), (64, 64)])
def test_the_busiest_bins_expected_load_is_exact(n, bins):
    """2 balls in 2 bins: (2, 0), (0, 2) and twice (1, 1): 1.5. The sum runs on until its terms are below 1e-12, so it
    agrees with the exact count to 1e-10 (a cut at 1e-4 leaves ~1e-5 of the tail)."""
    assert expected_max_load(n, bins) == pytest.approx(float(_exact_max_load(n, bins)), rel=1e-10, abs=0)


def test_no_sequences_hold_no_kv_whatever_prefix_they_would_share():
    """B_a * stored - max(B_a - 1, 0) * shared: at B = 0 nothing, not the prefix once (the max's floor)."""
    llama = load_model("llama-3.1-8b")
    assert float(kv_cache_bytes(llama, 0, 4096, deployment(llama), shared_prefix=1024)) == 0.0


def test_the_window_pool_applies_only_beside_full_layers():
    """ServingEngine.window_kv_pool_ratio sizes a cache of full and sliding layers; all-sliding or all-full, it does not."""
    def model(*kinds):
        return SimpleNamespace(groups=[SimpleNamespace(kind=k) for k in kinds])
    assert window_pool_applies(model("full", "sliding"), 0.8)
    assert not window_pool_applies(model("sliding"), 0.8)
    assert not window_pool_applies(model("full"), 0.8)
    assert not window_pool_applies(model("full", "sliding"), None)


def test_the_window_pools_m_is_the_largest_windows():
    """Two sliding groups of windows 128 and 4,096 beside full layers, at S = 2,000 and r = 0.8: m = min(S, 4,096) =
    2,000, so a full layer pays e_f max(2,000, 2,000 / 0.8) = 2,500 entries and each sliding layer e_s max(0.8 x 2,000,
    2,000) = 2,000 (_pooled_bytes' docstring)."""
    gpt = load_model("gpt-oss-120b")
    full = next(g for g in gpt.groups if g.kind == "full")
    sliding = next(g for g in gpt.groups if g.kind == "sliding")
    half = sliding.layers // 2
    groups = (full, dataclasses.replace(sliding, layers=half),
              dataclasses.replace(sliding, layers=sliding.layers - half, window=4096))
    two = dataclasses.replace(gpt, groups=groups)
    e_f = gpt.cache_bytes_per_layer(full, 1.0, 1, "bf16") - full.state_bytes
    e_s = gpt.cache_bytes_per_layer(sliding, 1.0, 1, "bf16") - sliding.state_bytes
    expected = full.layers * e_f * 2500 + sliding.layers * e_s * 2000
    assert float(kv_cache_bytes(two, 1, 2000, deployment(two), window_pool_ratio=0.8)) == pytest.approx(expected, rel=1e-12)


def test_a_sequence_split_router_runs_a_tp_ranks_share_of_its_groups_tokens(deepseek_v3):
    """vLLM's sequence-parallel MoE (dep.sequence_split: router, shared experts) holds the router whole and runs each tp
    rank on ceil(T_a / tp) tokens: B = 8 over dp_attention 2 is B_a = 4, T_a = 4 decode tokens, 2 a rank at tp 2; router
    flops = 2 x router_params x 2 x moe_layers (the module docstring's weight GEMM on its tokens)."""
    from roofline.costs import operator_costs

    m = deepseek_v3
    dep = dataclasses.replace(deployment(m, tp=2, dp_attention=2, ep=4), sequence_split=("router", "shared_experts"))
    flops, _ = operator_costs(m, 8, 1, 4096, dep)["router"]
    assert float(flops) == pytest.approx(2.0 * m.router_params * 2 * m.moe_layers, rel=1e-12)
