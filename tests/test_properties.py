"""Properties of the engine and of speculation over generated inputs (hypothesis): more bandwidth or FLOPs never
slows a step, more work never speeds one up, tau stays in [1, k + 1], k = 0 is exactly the baseline. A slow suite
(conftest.SLOW_SUITES): hypothesis alone takes about a second to import."""

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from roofline.engine import step_time_s
from roofline.hardware import load_hardware
from roofline.layout import deployment
from roofline.model import load_model
from roofline.speculation import speculative_metrics, tau_scalar_alpha

H = load_hardware("h100-sxm")
M = load_model("qwen3-8b")
LLAMA = load_model("llama-3.1-8b")


@settings(max_examples=60, deadline=None)
@given(bw=st.floats(1.0, 4.0), fl=st.floats(1.0, 4.0), b=st.integers(1, 512), q=st.integers(1, 16), s=st.integers(0, 64000))
def test_more_bandwidth_or_more_flops_never_makes_a_step_slower(bw, fl, b, q, s):
    faster = dataclasses.replace(H, mem_bw_bytes_per_s=H.mem_bw_bytes_per_s * bw,
                                 peak_flops_per_s={k: v * fl for k, v in H.peak_flops_per_s.items()})
    assert float(step_time_s(faster, M, b, q, s)) <= float(step_time_s(H, M, b, q, s)) * (1 + 1e-12)


@settings(max_examples=60, deadline=None)
@given(b=st.integers(1, 512), q=st.integers(1, 16), s=st.integers(0, 64000), db=st.integers(0, 64), dq=st.integers(0, 8), ds=st.integers(0, 4096))
def test_step_time_never_falls_as_batch_query_tokens_or_context_grow(b, q, s, db, dq, ds):
    for model in (M, load_model("deepseek-v3")):
        base = float(step_time_s(H, model, b, q, s))
        assert float(step_time_s(H, model, b + db, q, s)) >= base
        assert float(step_time_s(H, model, b, q + dq, s)) >= base
        assert float(step_time_s(H, model, b, q, s + ds)) >= base


@settings(max_examples=100, deadline=None)
@given(alpha=st.floats(0.0, 1.0), k=st.integers(0, 32))
def test_tau_lies_between_1_and_k_plus_1(alpha, k):
    tau = float(tau_scalar_alpha(alpha, k))
    assert 1.0 - 1e-12 <= tau <= k + 1 + 1e-9


@settings(max_examples=40, deadline=None)
@given(b=st.integers(1, 512), s=st.integers(0, 32000), alpha=st.floats(0, 1), method=st.sampled_from(["draft", "mtp", "eagle", "ngram", "none"]))
def test_k_0_is_exactly_the_baseline(b, s, alpha, method):
    model = load_model("deepseek-v3") if method == "mtp" else LLAMA
    draft = load_model("llama-3.2-1b") if method == "draft" else None
    r = speculative_metrics(H, model, b, s, 0, alpha, method=method, draft=draft, dep=deployment(model, tp=8 if method == "mtp" else 1))
    assert float(r["speedup"]) == 1.0
    assert float(r["tokens_per_s"]) == float(r["baseline_tokens_per_s"])
