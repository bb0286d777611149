"""speculation.py at its edges (qa448: mutation testing of engine.py and speculation.py, 100 mutants; these kill
the speculation.py survivors that were not equivalent; no bug)."""

import dataclasses

import numpy as np
import pytest

from roofline.engine import step_metrics
from roofline.hardware import load_hardware
from roofline.layout import deployment
from roofline.model import load_model
from roofline.serving import IDEAL
from roofline.speculation import draft_vocab_of, drafter_deployment, speculative_metrics, tau_scalar_alpha

H100, L4 = load_hardware("h100-sxm"), load_hardware("l4")
LLAMA8, LLAMA70, DRAFT = load_model("llama-3.1-8b"), load_model("llama-3.1-70b"), load_model("llama-3.2-1b")
SPEC_COSTS = dict(spec_per_draft_step_s=20e-6, spec_per_draft_step_per_sequence_s=1e-6, spec_per_iteration_s=50e-6,
                  spec_per_iteration_per_sequence_s=2e-6)


def test_k_0_gives_tau_exactly_1_at_every_alpha():
    """tau(alpha, k = 0) is exactly 1, not 1 to rounding (alpha 0.542 gives 1 - 1 ulp by the closed form): plain decoding."""
    alphas = np.linspace(0.0, 1.0, 1001)
    assert np.all(tau_scalar_alpha(alphas, 0) == 1.0)
    r = speculative_metrics(H100, LLAMA8, 1, 1024, 0, 0.542, method="eagle")
    assert float(r["speedup"]) == 1.0


@pytest.fixture(scope="module")
def dp4_eagle():
    """An EAGLE head on Llama 3.1 8B at attention DP 4, B = 65 (B_a = 17), k = 3, under IDEAL with speculation costs."""
    engine = dataclasses.replace(IDEAL, **SPEC_COSTS)
    return speculative_metrics(H100, LLAMA8, 65, 1024, 3, 0.8, method="eagle", engine=engine,
                               dep=deployment(LLAMA8, tp=1, dp_attention=4))


def test_per_draft_step_costs_count_the_drafters_sequences_per_attention_group(dp4_eagle):
    """t_draft's k (spec_per_draft_step + spec_per_draft_step_per_sequence B_d): 3 x (20 + 17 x 1) us = 111 us."""
    assert float(dp4_eagle["draft_bookkeeping_time_s"]) == pytest.approx(3 * (20e-6 + 17 * 1e-6), rel=1e-12)


def test_per_iteration_costs_count_the_sequences_per_attention_group(dp4_eagle):
    """t_spec = spec_per_iteration + spec_per_iteration_per_sequence B_a: 50 + 17 x 2 us = 84 us."""
    assert float(dp4_eagle["overhead_time_s"]) == pytest.approx(50e-6 + 17 * 2e-6, rel=1e-12)


def test_an_overlapped_odd_batch_splits_into_two_halves_of_b_over_2():
    """With overlap, each device is busy two passes of B/2: B = 65 gives 2 t(32.5) per device (module docstring)."""
    dep = deployment(LLAMA70, tp=4)
    r = speculative_metrics(H100, LLAMA70, 65, 1024, 1, 0.8, method="draft", draft=DRAFT, draft_hw=L4, dep=dep)
    assert bool(r["drafter_overlaps"])
    d_dep = drafter_deployment("draft", DRAFT, dep, True)
    assert float(r["draft_busy_time_s"]) == pytest.approx(2 * float(step_metrics(L4, DRAFT, 32.5, 1, 1024, d_dep)["step_time_s"]), rel=1e-12)
    assert float(r["verify_busy_time_s"]) == pytest.approx(2 * float(step_metrics(H100, LLAMA70, 32.5, 2, 1024, dep)["step_time_s"]), rel=1e-12)


@pytest.mark.parametrize("spec_per_iteration_s", [0.0, 6e-3])
def test_overlap_never_makes_an_iteration_longer_than_taking_turns(spec_per_iteration_s):
    """t_iter = min(split + 2 t_link + spec_per_iteration, t_draft + t_verify) + ...: overlapping is taken only where it
    pays, its second micro-batch's fixed costs counted (at 6 ms a split that saves 4.9 ms of busy time at B = 64 loses)."""
    engine = dataclasses.replace(IDEAL, spec_per_iteration_s=spec_per_iteration_s)
    kw = dict(method="draft", draft=DRAFT, draft_hw=L4, dep=deployment(LLAMA70, tp=4), engine=engine)
    batches = np.array([2, 8, 16, 32, 64, 96, 128])
    on = speculative_metrics(H100, LLAMA70, batches, 1024, 1, 0.8, **kw)["iteration_time_s"]
    off = speculative_metrics(H100, LLAMA70, batches, 1024, 1, 0.8, overlap=False, **kw)["iteration_time_s"]
    assert np.all(on <= off * (1 + 1e-12))


def test_an_iterations_flops_and_bytes_count_k_draft_steps_and_one_verify_pass():
    """flops_per_token x B tau = k x one draft step's FLOPs + the verify pass's (q = k + 1); bytes alike."""
    k, b, alpha = 3, 4, 0.8
    r = speculative_metrics(H100, LLAMA8, b, 1024, k, alpha, method="draft", draft=DRAFT)
    d_dep = drafter_deployment("draft", DRAFT, deployment(LLAMA8), False)
    draft = step_metrics(H100, DRAFT, b, 1, 1024, d_dep)
    verify = step_metrics(H100, LLAMA8, b, k + 1, 1024)
    tokens = b * float(tau_scalar_alpha(alpha, k))
    assert float(r["flops_per_token"]) * tokens == pytest.approx(k * float(draft["flops"]) + float(verify["flops"]), rel=1e-12)
    assert float(r["bytes_per_token"]) * tokens == pytest.approx(k * float(draft["bytes"]) + float(verify["bytes"]), rel=1e-12)


def test_a_draft_vocabulary_goes_only_to_the_heads_that_take_one():
    """draft_vocab_of: a scenario's draft_vocab reaches eagle and medusa, and no other method of the same sweep."""
    assert draft_vocab_of("eagle", 32000) == 32000 and draft_vocab_of("medusa", 32000) == 32000
    assert all(draft_vocab_of(m, 32000) is None for m in ("none", "draft", "mtp", "ngram"))
