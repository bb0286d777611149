"""Serving notes and warnings (serving.py), found by mutation testing (qa484).
Each test names the mutant it kills; every expected value is read from the docstrings."""

import dataclasses
import warnings

from roofline.layout import deployment
from roofline.model import load_model
from roofline.serving import (
    IDEAL,
    _warn_kernels_uncounted,
    dispatch_latency_note,
    dispatch_on_prior,
    host_carries_gain,
    load_engine,
    optimistic,
    speculation_engine_notes,
)

DSV3 = load_model("deepseek-v3")


def _engine(**kw):
    return dataclasses.replace(IDEAL, name="e", **kw)


def test_host_work_carries_no_gain_said_under_pp():
    """host_carries_gain: not said at pp > 1 (qa244). Kills `and pp == 1` dropped."""
    engine = _engine(host_overlap=False)
    assert host_carries_gain(engine) is True and host_carries_gain(engine, pp=2) is False


def test_the_optimistic_range_starts_at_batch_32():
    """optimistic: batch 32 and above (OPTIMISTIC: 'at batch 32 and above'), never under ideal. Kills >= -> >."""
    assert optimistic(32, "vllm") and not optimistic(31, "vllm") and not optimistic(32, "ideal")


def test_a_refused_point_is_not_also_told_of_the_running_cap():
    """speculation_engine_notes: beside a refusal the running cap is not said (qa210: a cap on a setup that never runs).
    sglang refuses draft-model drafting under attention DP and caps speculation at 48. Kills `and not notes` dropped."""
    sglang = load_engine("sglang")
    assert "draft" in sglang.speculation_refused_with_dp_attention and sglang.max_running_requests_speculating == 48
    notes = speculation_engine_notes(sglang, "draft", 400, deployment(DSV3, dp_attention=8, ep=8, weight_dtype="fp8"))
    assert len(notes) == 1 and "speculation_refused_with_dp_attention" in notes[0]


_PRIOR = {"parameters": ["all_to_all_latency"], "not_determined_by_rows": ["all_to_all_latency"],
          "start": {"all_to_all_latency": 40}, "start_units": {"all_to_all_latency": "us"}}


def test_an_allgather_dispatch_does_not_rest_on_the_all_to_all_prior():
    """dispatch_on_prior: DeepEP's kernels (per_rank, per_pair) with the sourced start value still; an allgather dispatch
    pays allreduce_latency. Kills `moe_dispatch != "allgather"` dropped."""
    kw = dict(all_to_all_latency_s=40e-6, fitted=_PRIOR)
    assert dispatch_on_prior(_engine(moe_dispatch="per_rank", **kw)) is True
    assert dispatch_on_prior(_engine(moe_dispatch="allgather", **kw)) is False


def test_an_all_reduce_gather_is_not_called_a_lower_estimate():
    """dispatch_latency_note: an all-gather and reduce-scatter on the engine's allreduce_latency is a lower estimate,
    but not where they are all-reduces (dp_gather allreduce, which run as the latency was measured: qa150). Kills
    `and engine.dp_gather != "allreduce"` dropped."""
    note = dispatch_latency_note(_engine(moe_dispatch="allgather", dp_gather="allgather", allreduce_latency_s=10e-6))
    assert "lower estimate for the all-gather and reduce-scatter" in note
    assert dispatch_latency_note(_engine(moe_dispatch="allgather", dp_gather="allreduce", allreduce_latency_s=10e-6)) == ""


def test_an_override_taking_the_general_counts_is_not_warned_of_them_again():
    """_warn_kernels_uncounted: counts that leave operators out are said of the general counts once; an override that
    sets only kernel_latency takes them and is not said again (qa304). Kills `and own` dropped."""
    engine = _engine(kernel_latency_s=3e-6, kernels_per_layer={"mlp": 3}, overrides=(("mi*", {"kernel_latency_s": 4e-6}),))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _warn_kernels_uncounted(engine, "e.yaml")
    said = [str(w.message) for w in caught if "gives no count" in str(w.message)]
    assert len(said) == 1 and "overrides" not in said[0]
