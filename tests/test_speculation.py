import dataclasses
import re

import numpy as np
import pytest

from roofline.engine import step_time_s
from roofline.errors import RooflineError
from roofline.hardware import load_hardware
from roofline.layout import deployment
from roofline.model import load_model
from roofline.speculation import (
    break_even_batch,
    drafter_deployment,
    drafter_spec,
    leviathan_ops_factor,
    leviathan_speedup,
    predict_speculation,
    speculative_metrics,
    tau_from_rates,
    tau_scalar_alpha,
)

# Leviathan et al. 2023, Table 1 (c = c_hat = 0): alpha, k, ops factor, speed factor
LEVIATHAN_TABLE_1 = [
    (0.6, 2, 1.53, 1.96), (0.7, 3, 1.58, 2.53), (0.8, 2, 1.23, 2.44),
    (0.8, 5, 1.63, 3.69), (0.9, 2, 1.11, 2.71), (0.9, 10, 1.60, 6.86),
]
# Tables 2/4 (T5-XXL target): k, alpha, c, formula column
LEVIATHAN_TABLES_2_4 = [
    (7, 0.75, 0.02, 3.2), (7, 0.80, 0.04, 3.3), (7, 0.82, 0.11, 2.5),
    (7, 0.62, 0.02, 2.3), (5, 0.68, 0.04, 2.4), (3, 0.71, 0.11, 2.0),
]


@pytest.mark.parametrize("alpha, k, ops, speed", LEVIATHAN_TABLE_1)
def test_leviathan_table_1_is_reproduced_exactly(alpha, k, ops, speed):
    assert round(float(leviathan_speedup(alpha, k, 0.0)), 2) == speed
    assert round(float(leviathan_ops_factor(alpha, k, 0.0)), 2) == ops


@pytest.mark.parametrize("k, alpha, c, formula", LEVIATHAN_TABLES_2_4)
def test_leviathan_tables_2_and_4_formula_column_within_0_1(k, alpha, c, formula):
    assert abs(float(leviathan_speedup(alpha, k, c)) - formula) <= 0.1


def test_tau_includes_the_bonus_token():
    assert tau_scalar_alpha(0.0, 4) == 1.0
    assert tau_scalar_alpha(1.0, 4) == 5.0
    assert tau_scalar_alpha(0.8, 2) == pytest.approx(1 + 0.8 + 0.64)


def test_position_dependent_rates_multiply_along_the_chain():
    assert tau_from_rates([0.9, 0.5], 2) == pytest.approx(1 + 0.9 + 0.45)
    # positions past the list reuse the last rate; equal rates give the scalar formula
    assert tau_from_rates([0.7], np.array([0, 3, 6])) == pytest.approx(tau_scalar_alpha(0.7, np.array([0, 3, 6])))


def test_tau_lies_between_1_and_k_plus_1_on_a_grid():
    alpha, k = np.meshgrid(np.linspace(0.0, 1.0, 101), np.arange(0, 33))
    tau = tau_scalar_alpha(alpha, k)
    assert np.all(tau >= 1.0 - 1e-12) and np.all(tau <= k + 1 + 1e-9)
    assert np.all(tau[:, 0] == 1.0) and np.allclose(tau[:, -1], k[:, -1] + 1)  # alpha 0: the bonus token only; 1: all


H100 = load_hardware("h100-sxm")
H200 = load_hardware("h200")
LLAMA = load_model("llama-3.1-8b")
DSV3 = load_model("deepseek-v3")


def test_alpha_0_with_a_costly_draft_model_slows_decoding_down():
    r = speculative_metrics(H100, LLAMA, 1, 1024, 4, 0.0, method="draft", draft=load_model("llama-3.2-1b"))
    assert float(r["speedup"]) < 1.0


def test_dense_speedup_does_not_rise_with_batch_once_verification_is_compute_bound():
    # Short context so that weights, not the KV cache, dominate; every batch that fits in memory.
    batches = np.arange(1, 4097)
    r = speculative_metrics(H100, LLAMA, batches, 128, 4, 0.8, method="eagle")
    fits = r["fits_in_memory"]
    compute_bound = r["verify_compute_bound"] & fits
    assert compute_bound.any() and not compute_bound[0]
    speedup = r["speedup"][compute_bound]
    # non-increasing up to the amortisation of the fixed step overhead (relative 1e-5)
    assert np.all(np.diff(speedup) <= 1e-5 * speedup[:-1])
    assert speedup[0] > 2.0 and speedup[-1] < 1.0  # from a clear win to a loss


def test_moe_speedup_dips_then_recovers_as_experts_saturate():
    # DeepSeek-V3, TP 8 on H200, n-gram drafts (no draft cost), k = 3, alpha = 0.8.
    # Batch 1: decode touches 8 experts per layer, verify (4 tokens) 256*(1-(1-8/256)^4) = 30.5: verification
    # streams ~3.8x the expert bytes, so the speedup is far below tau = 2.95.
    # Batch 4: decode 30.5 experts, verify (16 tokens) 102: still ~3.3x -> the speedup dips further.
    # Batch 64: decode 222 experts, verify (256 tokens) 255.9: ~1.15x -> the speedup recovers toward tau.
    model = load_model("deepseek-v3")
    r = speculative_metrics(load_hardware("h200"), model, np.array([1, 4, 64]), 1024, 3, 0.8, method="ngram", dep=deployment(model, "bf16", tp=8))
    s1, s4, s64 = r["speedup"]
    assert s4 < s1 < s64
    assert s64 > 2.0 and s4 < 1.2


def test_break_even_batch_is_the_largest_batch_with_speedup_at_least_one():
    assert break_even_batch(np.array([1, 2, 4, 8]), np.array([1.5, 1.2, 0.9, 1.0])) == 8
    assert break_even_batch(np.array([1, 2, 4, 8]), np.array([0.5, 0.6, 0.9, 0.8])) == 0


@pytest.mark.slow
def test_predict_speculation_reports_best_k_and_break_even():
    spec = predict_speculation(H100, LLAMA, 1, 1024, 4, 0.8, method="eagle")
    assert 1 <= spec["best_k"] <= 16 and spec["speedup"] > 1.5
    assert spec["break_even_batch"] is not None and spec["break_even_batch"] >= 1
    none = predict_speculation(H100, LLAMA, 1, 1024, 0, 0.8, method="eagle")
    assert none["speedup"] == 1.0


@pytest.mark.slow
def test_a_draft_model_elsewhere_overlaps_only_when_the_batch_splits_into_two_micro_batches():
    l4 = load_hardware("l4")
    draft = load_model("llama-3.2-1b")
    same = speculative_metrics(H100, LLAMA, 1, 1024, 4, 0.8, method="draft", draft=draft)
    one = speculative_metrics(H100, LLAMA, 1, 1024, 4, 0.8, method="draft", draft=draft, draft_hw=l4)
    # batch 1 cannot be split: drafting and verifying take turns, the times add
    assert float(one["iteration_time_s"]) == pytest.approx(float(one["draft_time_s"] + one["verify_time_s"] + one["transfer_time_s"]))
    assert float(same["draft_time_s"]) < float(one["draft_time_s"])  # the L4 is slower
    # batch 8: two micro-batches of 4, one drafted on the L4 while the H100 verifies the other
    eight = speculative_metrics(H100, LLAMA, 8, 1024, 4, 0.8, method="draft", draft=draft, draft_hw=l4)
    serial = speculative_metrics(H100, LLAMA, 8, 1024, 4, 0.8, method="draft", draft=draft, draft_hw=l4, overlap=False)
    half_draft = 4 * float(speculative_metrics(H100, LLAMA, 4, 1024, 1, 0.8, method="draft", draft=draft, draft_hw=l4)["draft_time_s"])
    half_verify = float(step_time_s(H100, LLAMA, 4, 5, 1024))
    split = max(2 * half_draft, 2 * half_verify)
    turns = float(serial["draft_time_s"] + serial["verify_time_s"])
    second = 2 * max(H100.link_latency_s, l4.link_latency_s)  # the second micro-batch's round trip (ideal: no spec cost)
    overlapped = split + second < turns
    assert bool(eight["drafter_overlaps"]) == overlapped
    assert float(eight["iteration_time_s"]) == pytest.approx((split if overlapped else turns) + float(eight["transfer_time_s"]))
    # the 1B draft streams its weights once per micro-batch on the slow L4, so here taking turns wins;
    # against a 70B target on 4 H100s at batch 64, drafting (17.6 ms) and verifying (17.3 ms) are balanced: the split pays
    m70 = load_model("llama-3.1-70b")
    big = speculative_metrics(H100, m70, 64, 1024, 1, 0.8, method="draft", draft=draft, draft_hw=l4, dep=deployment(m70, tp=4))
    assert bool(big["drafter_overlaps"]) and float(big["iteration_time_s"]) < float(big["draft_time_s"] + big["verify_time_s"])


@pytest.mark.slow
def test_an_overlapped_iteration_is_the_larger_busy_time_of_two_half_batch_passes_each():
    """With overlap, draft_time_s and verify_time_s are each device's busy time (two half-batch passes, each paying the
    per-sequence draft cost of its own B/2 and the shared prefix), the iteration the larger of them plus the rest."""
    from roofline.serving import load_engine

    a100, draft, m70 = load_hardware("a100-sxm-80gb"), load_model("llama-3.2-1b"), load_model("llama-3.1-70b")
    kw = dict(method="draft", draft=draft, draft_hw=a100, dep=deployment(m70, tp=4), engine=load_engine("vllm"))
    r = speculative_metrics(H100, m70, 64, 4096, 4, 0.8, **kw)
    assert bool(r["drafter_overlaps"])
    assert float(r["iteration_time_s"]) == pytest.approx(max(float(r["draft_busy_time_s"]), float(r["verify_busy_time_s"]))
                                                        + float(r["transfer_time_s"] + r["overhead_time_s"]), rel=1e-12)
    half = speculative_metrics(H100, m70, 32, 4096, 4, 0.8, **kw, overlap=False)  # one micro-batch of 32, taking turns
    assert float(r["draft_busy_time_s"]) == pytest.approx(2 * float(half["draft_time_s"]), rel=1e-12)
    assert float(r["verify_busy_time_s"]) == pytest.approx(2 * float(half["verify_time_s"]), rel=1e-12)
    whole = speculative_metrics(H100, m70, 64, 4096, 4, 0.8, **kw, overlap=False)  # the columns keep one whole-batch pass
    assert float(r["verify_time_s"]) == float(whole["verify_time_s"]) and float(r["draft_time_s"]) == float(whole["draft_time_s"])
    # each micro-batch is verified and accepted on its own: the link's round trip and spec_per_iteration twice
    latency = max(H100.link_outside_domain()[1], a100.link_outside_domain()[1])  # each device's scale-out NIC: 20 us
    assert float(r["transfer_time_s"] - whole["transfer_time_s"]) == pytest.approx(2 * latency, rel=1e-9)
    assert float(r["overhead_time_s"] - whole["overhead_time_s"]) == pytest.approx(kw["engine"].spec_per_iteration_s, rel=1e-9)
    # both models stream their weights once per micro-batch: two half passes' bytes and FLOPs
    assert float(r["bytes_per_token"]) == pytest.approx(float(half["bytes_per_token"]), rel=1e-12)
    import dataclasses

    kw["engine"] = dataclasses.replace(kw["engine"], prefix_read_once=True)  # a cascade kernel (vllm's is opt-in)
    prefix = speculative_metrics(H100, m70, 64, 4096, 4, 0.8, **kw, shared_prefix=2000)
    half_prefix = speculative_metrics(H100, m70, 32, 4096, 4, 0.8, **kw, shared_prefix=2000, overlap=False)
    assert bool(prefix["drafter_overlaps"]) and float(prefix["draft_busy_time_s"]) < float(r["draft_busy_time_s"])  # read once
    assert float(prefix["draft_busy_time_s"]) == pytest.approx(2 * float(half_prefix["draft_time_s"]), rel=1e-12)


def test_a_draft_model_costs_memory_and_lowers_the_maximum_batch():
    plain = speculative_metrics(H100, LLAMA, 1, 8192, 4, 0.8, method="ngram")
    drafted = speculative_metrics(H100, LLAMA, 1, 8192, 4, 0.8, method="draft", draft=load_model("llama-3.2-1b"))
    assert int(drafted["max_batch"]) < int(plain["max_batch"])
    assert float(drafted["memory_needed_bytes"]) > float(plain["memory_needed_bytes"]) + 2.4e9


def test_tree_verification_costs_n_plus_1_tokens_and_uses_the_given_tau():
    r = speculative_metrics(H100, LLAMA, 4, 1024, 5, None, method="eagle", tree_nodes=24, tree_tau=4.2)
    assert float(r["tau"]) == 4.2
    assert float(r["verify_time_s"]) == float(step_time_s(H100, LLAMA, 4, 25, 1024))
    # a wider tree verifies more tokens for the same tau: never faster
    wide = speculative_metrics(H100, LLAMA, 256, 1024, 5, None, method="eagle", tree_nodes=64, tree_tau=4.2)
    narrow = speculative_metrics(H100, LLAMA, 256, 1024, 5, None, method="eagle", tree_nodes=24, tree_tau=4.2)
    assert float(wide["speedup"]) < float(narrow["speedup"])


def test_a_tree_at_k_0_is_the_baseline():
    r = speculative_metrics(H100, LLAMA, 8, 1024, 0, None, method="eagle", tree_nodes=24, tree_tau=4.2)
    assert float(r["tau"]) == 1.0 and float(r["speedup"]) == 1.0


def test_head_drafters_of_tied_models_add_memory_not_subtract_it():
    tied = load_model("llama-3.2-1b")
    assert tied.tied_embeddings
    plain = speculative_metrics(H100, tied, 1, 1024, 4, 0.8, method="ngram")
    eagle = speculative_metrics(H100, tied, 1, 1024, 4, 0.8, method="eagle")
    extra = float(eagle["memory_needed_bytes"] - plain["memory_needed_bytes"])
    # one block (60.8M params) + its final norm + a 2h x h projection (8.4M), bf16, plus one layer of KV for 1029 tokens
    block = tied.attention_params_per_layer + tied.dense_mlp_params + 2 * tied.hidden_size
    expected = 2 * (block + tied.hidden_size + 2 * tied.hidden_size**2) + 1029 * 2 * 8 * 64 * 2
    assert extra == pytest.approx(expected)


def test_every_trained_mtp_module_is_held_in_memory_with_its_kv_cache():
    """qa433: a model of three MTP modules was charged one module's weights and KV cache; an engine loads and caches
    them all (vLLM's DeepSeekMultiTokenPredictor: num_nextn_predict_layers layers, step i running layer i mod n)."""
    v3 = load_model("deepseek-v3")
    three = dataclasses.replace(v3, mtp_modules=3)
    h200 = load_hardware("h200")
    one, many = (speculative_metrics(h200, m, 4, 4096, 2, 0.8, method="mtp", dep=deployment(m, tp=8))
                 for m in (v3, three))
    assert float(many["drafter_memory_bytes"]) == pytest.approx(3 * float(one["drafter_memory_bytes"]), rel=1e-9)
    assert int(many["max_batch"]) < int(one["max_batch"])
    assert float(many["iteration_time_s"]) == pytest.approx(float(one["iteration_time_s"]))  # a step runs one module


def test_mtp_past_several_trained_modules_is_said_as_reusing_them_in_turn():
    """qa433: 'the last is reused' of three modules, where vLLM runs module i mod n at draft step i."""
    from roofline.speculation import mtp_reuse_note, mtp_reused_text

    three = dataclasses.replace(load_model("deepseek-v3"), mtp_modules=3)
    assert mtp_reused_text(1) == "the last is reused"
    assert "exceeds its 3 trained MTP modules: they are reused in turn (vLLM: position i runs module i mod 3) for every " \
           "further position" in mtp_reuse_note("mtp", three, 5, rates_default=False)
    point = predict_speculation(load_hardware("h200"), three, 4, 4096, 5, 0.8, method="mtp", dep=deployment(three, tp=8))
    assert point["mtp_modules"] == 3 and point["mtp_module_reused"]


def test_a_drafter_on_another_device_caps_the_batch_by_that_device_memory():
    draft = load_model("llama-3.1-8b")
    r = speculative_metrics(load_hardware("h200"), load_model("llama-3.1-70b"), 1, 8192, 4, 0.8,
                            method="draft", draft=draft, draft_hw=load_hardware("l4"), dep=deployment(load_model("llama-3.1-70b"), tp=4))
    # L4: 24 GB x 0.9 usable - 16.06 GB of 8B weights leaves 5.54 GB for 1.07 GB of KV per sequence
    assert int(r["max_batch"]) == int((24e9 * 0.9 - 2 * 8_030_261_248) // ((8192 + 5) * 131072))


def test_a_head_drafter_on_other_hardware_holds_its_own_embedding_and_head_and_never_overlaps():
    l4 = load_hardware("l4")
    r = predict_speculation(H100, LLAMA, 1, 1024, 4, 0.8, method="eagle", draft_hw=l4)
    # one layer (218M) + fc 2h x h (33.6M) + embedding and LM head copies (2 x 525M), bf16: 2.6 GB before its KV cache
    own = 2 * (LLAMA.attention_params_per_layer + LLAMA.dense_mlp_params + 2 * 4096 + 2 * 4096**2 + 2 * 128256 * 4096)
    assert r["drafter_memory_bytes"] > own > 2.6e9
    assert r["drafter_waits_for_target"] and not r["drafter_overlaps"]
    assert r["iteration_time_s"] == pytest.approx(r["draft_time_s"] + r["verify_time_s"] + r["transfer_time_s"] + r["overhead_time_s"])


def test_k_0_charges_no_drafter_memory():
    draft = load_model("llama-3.2-1b")
    plain = speculative_metrics(H100, LLAMA, 1, 1024, 0, 0.8, method="ngram")
    zero = speculative_metrics(H100, LLAMA, 1, 1024, 0, 0.8, method="draft", draft=draft)
    four = speculative_metrics(H100, LLAMA, 1, 1024, 4, 0.8, method="draft", draft=draft)
    assert int(zero["max_batch"]) == int(plain["max_batch"]) > int(four["max_batch"])


@pytest.mark.slow
def test_best_k_in_predict_respects_memory():
    # at the largest batch that fits with k = 1, k = 4 no longer fits: best k cannot exceed the largest k that fits.
    # With h100-sxm at 81559 MiB (85.5e9 B) that batch is 445 and k = 1..3 keep it (each extra draft position adds
    # less than one sequence's worth of memory over 445 sequences), k = 4 only 444; at 80e9 B it was k <= 1 at 409.
    cap = {k: int(speculative_metrics(H100, LLAMA, 1, 1000, k, 0.9, method="eagle")["max_batch"]) for k in range(1, 5)}
    assert cap[4] < cap[1]
    k_fit = max(k for k in cap if cap[k] >= cap[1])
    spec = predict_speculation(H100, LLAMA, cap[1], 1000, 4, 0.9, method="eagle")
    assert spec["best_k"] is not None and spec["best_k"] <= k_fit < 4


@pytest.mark.slow
def test_best_k_of_a_tree_is_not_reported_and_where_no_k_fits_there_is_none_each_saying_why():
    from roofline import predict
    from roofline.tables import predict_table

    spec = predict_speculation(H100, LLAMA, 4, 1024, 5, None, method="eagle", tree_nodes=24, tree_tau=4.2)
    assert spec["best_k"] is None and spec["best_k_unknown_because"].startswith("tree")
    assert spec["tree_nodes"] == 24 and spec["tree_tau"] == 4.2
    full = predict_speculation(H100, LLAMA, 64, 131072, 3, 0.7, method="eagle")  # 64 x 128k of KV fits nowhere
    assert not full["fits_in_memory"] and full["best_k"] is None
    assert full["best_k_unknown_because"] == "no k of 0..64 fits in memory at this batch"
    fits = predict_speculation(H100, LLAMA, 4, 1024, 3, 0.7, method="eagle")
    assert fits["best_k"] is not None and fits["best_k_unknown_because"] is None
    tree_text = predict_table(predict("h100-sxm", "llama-3.1-8b", batch=4, method="eagle", k=3, tree_nodes=8, tree_tau=3.5))
    assert "k 3  tree of 8 nodes, tau 3.5 (given)" in tree_text and "None" not in tree_text
    assert "best k here        not reported (tree: tau at another depth is unknown)" in tree_text
    full_text = predict_table(predict("h100-sxm", "llama-3.1-8b", batch=64, context=131072, method="eagle", k=3, alpha=0.7))
    assert "best k here        none (no k of 0..64 fits in memory at this batch)" in full_text


def test_without_alpha_a_method_uses_its_published_per_position_rates():
    from roofline.speculation import DEFAULT_RATES

    mtp = predict_speculation(H200, DSV3, 1, 1024, 3, None, method="mtp")
    rates = DEFAULT_RATES["mtp"][0]
    assert mtp["tau"] == pytest.approx(1 + rates[0] + rates[0] * rates[1] + rates[0] * rates[1] ** 2)
    assert mtp["mtp_module_reused"] and "DeepSeek-V3" in mtp["acceptance_source"]
    with pytest.raises(RooflineError, match="alpha or acceptance: expected one of them, or an acceptance_length, for method 'draft'"):
        predict_speculation(H100, LLAMA, 1, 1024, 3, None, method="draft", draft=load_model("llama-3.2-1b"))


@pytest.mark.slow
def test_the_draft_models_own_prefill_is_part_of_time_to_first_token():
    from roofline.api import predict

    p = predict("h100-sxm", "llama-3.1-8b", 1, 1024, method="draft", draft="llama-3.2-1b", alpha=0.8, prompt=4096, engine="ideal")
    assert p["draft_prefill_s"] > 0 and p["ttft_with_speculation_s"] == pytest.approx(p["ttft_s"] + p["draft_prefill_s"])


@pytest.mark.parametrize("methods, options, message", [
    (("none",), {"alpha": 0.5}, "alpha: expected only with a speculation method"),
    (("none",), {"acceptance": [0.9]}, "acceptance: expected only with a speculation method"),
    (("none",), {"tree_nodes": 4}, "tree_nodes: expected only with a speculation method"),
    (("none",), {"k": [0, 2]}, "k: expected only with a speculation method"),
    (("none",), {"draft_hardware": "l4"}, "draft_hardware: expected only with a method that runs a drafter"),
    (("none", "ngram"), {"draft_hardware": "l4"}, "draft_hardware: expected only with a method that runs a drafter (draft, "
                                                  "mtp, eagle or medusa), found method none and ngram"),
])
def test_options_only_speculation_uses_need_a_method_that_uses_them(methods, options, message):
    from roofline.speculation import check_speculating

    with pytest.raises(RooflineError, match="^w: " + re.escape(message)):
        check_speculating("w", methods, **options)
    check_speculating("w", (*methods, "eagle"), **options)  # one method of the sweep uses them: fine
    check_speculating("w", ("none",), k=[0])  # no draft tokens asked for


@pytest.mark.slow
def test_a_colocated_drafter_holds_the_kv_of_a_shared_prefix_once_as_the_target_does():
    from roofline.api import predict

    own, shared = 2048, 32768
    plain = predict("h100-sxm", "llama-3.1-8b", batch=8, context=own + shared, method="eagle", k=2, alpha=0.8)["spec"]
    prefix = predict("h100-sxm", "llama-3.1-8b", batch=8, context=own + shared, shared_prefix=shared, method="eagle", k=2,
                     alpha=0.8)["spec"]
    alone = predict("h100-sxm", "llama-3.1-8b", batch=8, context=own, method="eagle", k=2, alpha=0.8)["spec"]
    # the drafter's KV: 8 sequences of 34,816 tokens without sharing; with it, 8 of 2,048 plus one prefix of 32,768
    per_token = (plain["drafter_memory_bytes"] - alone["drafter_memory_bytes"]) / (8 * shared)
    assert prefix["drafter_memory_bytes"] - alone["drafter_memory_bytes"] == pytest.approx(per_token * shared, rel=1e-6)


@pytest.mark.slow
def test_deepseek_v4s_mtp_block_attends_its_sliding_window_only():
    from roofline.api import predict

    v4 = load_model("deepseek-v4-flash")
    (group,) = drafter_spec("mtp", v4).groups
    assert (group.kind, group.window, v4.mtp_window) == ("sliding", 128, 128)
    (full,) = drafter_spec("mtp", load_model("deepseek-v3")).groups
    assert full.kind == "full"  # V3's MTP block attends the whole context
    point = predict("h200", "deepseek-v4-flash", 1, 131072, tp=8, weight_dtype="fp8", method="mtp", k=2, alpha=0.8)
    # a 128-token window costs the drafter a fixed few hundred kB a sequence, not 1 KiB per context token (full
    # attention took the cap from 136 to 114 sequences at 128k)
    assert point["max_batch"] - 2 <= point["spec"]["max_batch"] <= point["max_batch"]


@pytest.mark.parametrize("method, model, tp", [("eagle", "llama-3.1-8b", 1), ("eagle", "llama-3.1-70b", 8), ("mtp", "deepseek-v3", 8)])
def test_a_head_drafters_input_projection_is_a_whole_bf16_gemm_on_every_rank_each_draft_step(method, model, tp):
    import dataclasses

    from roofline.costs import operator_costs
    from roofline.engine import step_metrics
    from roofline.serving import load_engine
    from roofline.speculation import drafter_weight_bytes

    target = load_model(model)
    dep = deployment(target, weight_dtype="fp8", tp=tp)  # quantised blocks; the projection stays 16-bit
    drafter, h, batch = drafter_spec(method, target), target.hidden_size, 8
    flops, nbytes = (float(operator_costs(drafter, batch, 1, 1024, dep)["input_proj"][i]) for i in (0, 1))
    # EAGLE-1's fc and MTP's eh_proj: a plain nn.Linear(2h, h) in vLLM and SGLang, whole on every tensor-parallel rank
    assert flops == pytest.approx(2 * 2 * h * h * batch)
    assert nbytes == pytest.approx(2 * h * h * 2 + batch * 3 * h * 2)  # bf16 weights once, 2h in and h out per token
    assert float(operator_costs(target, batch, 1, 1024, dep)["input_proj"][1]) == 0.0  # the target has none
    # memory holds what time reads: the drafter's bytes less the same drafter without the projection
    bare = dataclasses.replace(drafter, input_projection=False)
    extra = drafter_weight_bytes(method, drafter, dep, False) - drafter_weight_bytes(method, bare, dep, False)
    assert extra == pytest.approx(2 * h * h * 2)
    vllm = load_engine("vllm")
    op = step_metrics(H100, drafter, batch, 1, 1024, dep, engine=vllm, with_operators=True)["operators"]["input_proj"]
    pad = vllm.gemm_tile_rows / batch  # 8 tokens padded to the engine's tile of rows
    t_roofline = max(op["flops"] / H100.compute_ceiling_flops_per_s("bf16") * pad, op["bytes"] / H100.memory_ceiling_bytes_per_s)
    assert float(op["time_s"]) >= t_roofline + vllm.kernel_latency_s * 0.999  # one GEMM kernel's latency on top


@pytest.mark.slow
def test_wasted_flops_are_never_negative_when_expert_parallel_balance_improves_with_the_wider_pass():
    from roofline.hardware import load_hardware
    from roofline.layout import deployment
    from roofline.model import load_model

    mixtral = load_model("mixtral-8x7b")
    spec = predict_speculation(load_hardware("h20"), mixtral, 2, 1024, 1, 1.0, method="ngram",
                               dep=deployment(mixtral, tp=2, ep=2))  # alpha 1: nothing is rejected
    assert spec["wasted_flops_fraction"] == 0.0
    dense = predict_speculation(H100, LLAMA, 1, 1024, 4, 0.5, method="eagle")
    assert 0.0 < dense["wasted_flops_fraction"] < 1.0  # drafter work and rejected positions: a share, as before


def test_an_eagle_head_on_an_mla_target_keeps_mla_attention():
    """vLLM's deepseek_eagle3.py and SGLang's run a DeepSeek EAGLE-3 head as DeepseekV2MLAAttention + a dense MLP: its
    KV cache is the 576-wide latent a token (1,152 bytes in bf16), not 128 heads of 192-wide keys and 128-wide values."""
    from roofline.speculation import drafter_spec

    v3 = load_model("deepseek-v3")
    head = drafter_spec("eagle", v3)
    assert head.kv_layout == "mla" and head.layers == 1 and head.moe is None
    assert head.kv_elements_per_token_per_layer_per_device(8) == 512 + 64  # replicated under tp, like the target's


@pytest.mark.slow
def test_k_0_has_no_break_even_batch_in_predict_as_in_the_sweep():
    """k = 0 is plain decoding (speedup exactly 1 at every batch): predict gave the memory limit as its break-even."""
    spec = predict_speculation(H100, LLAMA, 8, 1024, 0, 0.7, method="eagle")
    assert spec["speedup"] == pytest.approx(1.0)
    assert spec["break_even_batch"] is None and not spec["break_even_at_memory_limit"]
    assert predict_speculation(H100, LLAMA, 8, 1024, 3, 0.7, method="eagle")["break_even_batch"] > 8


@pytest.mark.slow
def test_a_draft_model_drafts_with_the_targets_attention_data_parallelism_as_its_kv_is_counted():
    """Each attention group drafts its own ceil(B / dp) sequences: the draft time fell with dp only in memory before."""
    from roofline.api import predict

    spec = {dp: predict("h100-sxm", "llama-3.1-70b", 64, 4096, method="draft", draft="llama-3.2-1b", k=4, alpha=0.7,
                        tp=2, dp_attention=dp)["spec"] for dp in (1, 2, 4)}
    assert spec[1]["draft_time_s"] > spec[2]["draft_time_s"] > spec[4]["draft_time_s"]
    assert spec[1]["drafter_memory_bytes"] > spec[2]["drafter_memory_bytes"] > spec[4]["drafter_memory_bytes"]
    dep = drafter_deployment("draft", load_model("llama-3.2-1b"), deployment(load_model("llama-3.1-70b"), tp=2, dp_attention=4), False)
    assert (dep.tp, dep.dp_attention) == (2, 4)
    dep = drafter_deployment("draft", load_model("llama-3.2-1b"), deployment(load_model("llama-3.1-70b"), tp=64), False)
    assert dep.tp == 1  # 32 heads do not split 64 ways (layout.deployment's rule)


def test_a_drafter_on_other_hardware_takes_its_own_familys_engine_values_not_the_targets():
    """The engine the target's device made (mi300x: 4.49 us kernels) was specialised again for the drafter's h100,
    which kept every mi* value h100 does not override."""
    from roofline.serving import load_engine

    vllm = load_engine("vllm")
    on_mi300x = vllm.for_hardware("mi300x")
    assert on_mi300x.kernel_latency_s != vllm.kernel_latency_s
    assert on_mi300x.for_other_hardware("h100-sxm") == vllm.for_hardware("h100-sxm")
    mi300x, target = load_hardware("mi300x"), load_model("llama-3.1-70b")
    draft = load_model("llama-3.2-1b")
    kw = dict(method="draft", draft=draft, draft_hw=H100, overlap=False)
    got = speculative_metrics(mi300x, target, 1, 1024, 4, 0.7, engine=on_mi300x, **kw)["draft_time_s"]
    alone = step_time_s(H100, draft, 1, 1, 1024, drafter_deployment("draft", draft, deployment(target), True),
                        engine=dataclasses.replace(vllm.for_hardware("h100-sxm"), host_per_step_s=0.0, host_per_sequence_s=0.0))
    per_step = vllm.spec_per_draft_step_s + vllm.spec_per_draft_step_per_sequence_s
    assert float(got) == pytest.approx(4 * (alone + per_step), rel=1e-12)


def test_a_drafter_of_another_kind_is_reached_over_the_slower_link_outside_the_targets_scale_up_domain():
    """An H100 target and an MI300X drafter share no NVLink or xGMI: the transfer went at min(378, 336) GB/s with
    3-6 us latency; it goes over the scale-out links (48 GB/s, 20 us). An L4 has PCIe only, which then sets it."""
    target, draft = load_model("llama-3.1-8b"), load_model("llama-3.2-1b")
    for other in ("mi300x", "l4"):
        dhw = load_hardware(other)
        bw = min(H100.link_outside_domain()[0], dhw.link_outside_domain()[0])
        latency = max(H100.link_outside_domain()[1], dhw.link_outside_domain()[1])
        r = speculative_metrics(H100, target, 8, 1024, 4, 0.7, method="draft", draft=draft, draft_hw=dhw, overlap=False)
        assert float(r["transfer_time_s"]) == pytest.approx(2 * latency + 8 * (4 * 4 + float(r["tau"]) * 4) / bw, rel=1e-12)  # a round trip
        assert bw < dhw.link_for(dhw.scale_up_domain)[0] or other == "l4"
    assert load_hardware("l4").link_outside_domain() == load_hardware("l4").link_for(2)  # PCIe, its only link


@pytest.mark.parametrize("options, message", [
    ({"tree_nodes": 60, "tree_tau": 61, "k": 4}, "tree_tau: expected at most k + 1 = 5 (a tree of depth k = 4"),
    ({"tree_nodes": 60, "tree_tau": 4.5, "k": [0, 3, 6]}, "tree_tau: expected at most k + 1 = 4 (a tree of depth k = 3"),
    ({"tree_nodes": 1, "tree_tau": 2, "k": 8}, "tree_nodes: expected at least the depth k = 8"),
])
def test_a_trees_tau_and_nodes_are_checked_against_its_depth_k(options, message):
    """A tree of depth k emits at most k + 1 tokens an iteration: tree_tau 61 at k = 4 gave a speedup of 38.7."""
    from roofline.speculation import check_options

    with pytest.raises(RooflineError, match="^w: " + re.escape(message)):
        check_options("w", "eagle", **options)
    check_options("w", "eagle", tree_nodes=60, tree_tau=4.5, k=[0, 4])  # k = 0 is plain decoding beside it


@pytest.mark.slow
def test_predict_names_the_batches_below_the_break_even_where_speculation_does_not_pay():
    """A 70B target on 4 H100s with a 1B draft model on an L4 at k 1, alpha 0.8: the speedup dips below 1 from batch 22
    to 59 and recovers up to 248, the break-even; the break-even alone read as if it paid at every batch below
    (vllm's profile of session 33; alpha 0.95 dipped from 30 to 94 under session 32's, 0.9 from 25 to 224 under
    session 31's)."""
    from roofline.serving import load_engine

    target, draft, l4 = load_model("llama-3.1-70b"), load_model("llama-3.2-1b"), load_hardware("l4")
    kw = dict(method="draft", draft=draft, draft_hw=l4, dep=deployment(target, tp=4), engine=load_engine("vllm"))
    spec = predict_speculation(H100, target, 32, 2048, 1, 0.8, **kw)
    first, last = spec["not_paying_below_break_even"]
    batches = np.arange(1, spec["break_even_batch"] + 1)
    speedup = speculative_metrics(H100, target, batches, 2048, 1, 0.8, **kw)["speedup"]
    losing = batches[speedup < 1.0 - 1e-12]
    assert (first, last) == (int(losing.min()), int(losing.max())) and first > 1
    assert predict_speculation(H100, LLAMA, 8, 1024, 3, 0.7, method="eagle")["not_paying_below_break_even"] is None


def test_a_drafter_on_another_gpu_of_the_targets_kind_is_reached_over_the_scale_up_link():
    target, draft = load_model("llama-3.1-8b"), load_model("llama-3.2-1b")
    r = speculative_metrics(H100, target, 8, 1024, 4, 0.7, method="draft", draft=draft, draft_hw=H100, overlap=False)
    bw, latency = H100.link_for(2)
    assert float(r["transfer_time_s"]) == pytest.approx(2 * latency + 8 * (4 * 4 + float(r["tau"]) * 4) / bw, rel=1e-12)  # a round trip


def test_a_drafter_of_the_targets_kind_beside_a_full_scale_up_domain_is_reached_over_the_scale_out_link():
    """With 8 of the node's 8 GPUs taken by the target, a ninth H100 for the drafter is outside the NVLink domain."""
    target, draft = load_model("llama-3.1-70b"), load_model("llama-3.2-1b")
    r = speculative_metrics(H100, target, 8, 1024, 4, 0.7, method="draft", draft=draft, draft_hw=H100, overlap=False,
                            dep=deployment(target, tp=8))
    bw, latency = H100.link_for(9)
    assert (bw, latency) == H100.link_outside_domain() and latency > H100.link_for(2)[1]
    assert float(r["transfer_time_s"]) == pytest.approx(2 * latency + 8 * (4 * 4 + float(r["tau"]) * 4) / bw, rel=1e-12)  # a round trip


def test_a_drafter_elsewhere_pays_its_own_devices_per_draft_step_costs_for_every_sequence_it_drafts():
    """The per-draft-step cost was the target's engine value per target attention group; the drafter's device runs its
    own family's engine values over all B sequences."""
    from roofline.serving import load_engine

    base = load_engine("vllm")
    engine = dataclasses.replace(base, overrides=(*base.overrides, ("l4", {"spec_per_draft_step_s": 1e-3})))
    target, draft, l4 = load_model("llama-3.1-8b"), load_model("llama-3.2-1b"), load_hardware("l4")
    kw = dict(method="draft", draft=draft, overlap=False, engine=engine.for_hardware("h100-sxm"))
    elsewhere = speculative_metrics(H100, target, 8, 1024, 4, 0.7, draft_hw=l4, **kw)
    step = step_time_s(l4, draft, 8, 1, 1024, drafter_deployment("draft", draft, deployment(target), True),
                       engine=dataclasses.replace(engine.for_other_hardware("l4"), host_per_step_s=0.0, host_per_sequence_s=0.0))
    per_step = 1e-3 + base.spec_per_draft_step_per_sequence_s * 8
    assert float(elsewhere["draft_time_s"]) == pytest.approx(4 * (step + per_step), rel=1e-12)


@pytest.mark.slow
def test_speculation_under_pipeline_parallelism_is_warned():
    """EAGLE on Llama-3.1-405B at tp 8 pp 2 was priced (2.6x) without a word: vLLM refuses the combination."""
    import roofline

    said = roofline.predict("h100-sxm", "llama-3.1-405b", weight_dtype="fp8", tp=8, pp=2, method="eagle", k=3, alpha=0.8,
                            engine="ideal")["warnings"]  # an engine without a refusal of its own: the general note
    assert any(w.startswith("eagle with pp 2: vLLM refused speculative decoding") and "TensorRT-LLM issue 9009" in w
               for w in said)  # qa210: TensorRT-LLM's refusal too, not vLLM's alone
    assert not any("with pp" in w for w in roofline.predict("h100-sxm", "llama-3.1-405b", weight_dtype="fp8", tp=8, pp=2)["warnings"])


def test_sglang_adds_its_host_work_to_a_speculative_iteration_because_spec_v1_turns_its_overlap_scheduler_off():
    """SGLang's server_args.py disables the overlap scheduler for EAGLE, EAGLE3, NEXTN (MTP), standalone and n-gram
    speculation (spec V1, the versions its profiles cover); the profile kept host work hidden under the verify pass, so
    EAGLE on Llama-3.1-8B at batch 1 gained 1.62x where the serialised host work leaves about 1.4x."""
    from roofline.engine import step_metrics
    from roofline.serving import load_engine

    hw, target = load_hardware("h100-sxm"), load_model("llama-3.1-8b")
    sglang = load_engine("sglang").for_hardware(hw)
    assert sglang.host_overlap and not sglang.host_overlap_speculating
    dep = deployment(target)
    out = speculative_metrics(hw, target, np.array([1.0, 1.0, 64.0]), 4096, np.array([0.0, 3.0, 3.0]), 0.7, method="eagle",
                              dep=dep, engine=sglang)
    serial = step_metrics(hw, target, np.array([1.0, 64.0]), 4.0, 4096, dep, engine=dataclasses.replace(sglang, host_overlap=False))
    overlapped = step_metrics(hw, target, np.array([1.0, 64.0]), 4.0, 4096, dep, engine=sglang)
    np.testing.assert_allclose(out["verify_time_s"][1:], serial["step_time_s"], rtol=1e-12)
    assert np.all(serial["step_time_s"] > overlapped["step_time_s"])
    assert out["speedup"][0] == pytest.approx(1.0, rel=1e-12)  # k = 0 is the overlapped baseline exactly
    kept = speculative_metrics(hw, target, 1.0, 4096, 3.0, 0.7, method="eagle", dep=dep,
                               engine=dataclasses.replace(sglang, host_overlap_speculating=True))
    assert float(kept["speedup"]) > float(out["speedup"][1]) * 1.1


@pytest.mark.slow
def test_an_eagle_head_with_its_own_vocabulary_on_other_hardware_holds_the_targets_whole_embedding():
    """vLLM's EAGLE-3 sizes only its LM head by draft_vocab_size: its embedding looks up the target's token ids, so on a
    device of its own it holds all 128,256 rows (1.05 GB for Llama-3.1-8B), not 32,000 (262 MB)."""
    import roofline

    small = roofline.predict("h100-sxm", "llama-3.1-8b", 1, method="eagle", k=4, alpha=0.8, draft_hardware="l4", draft_vocab=32000)
    full = roofline.predict("h100-sxm", "llama-3.1-8b", 1, method="eagle", k=4, alpha=0.8, draft_hardware="l4")
    target = load_model("llama-3.1-8b")
    embedding = target.vocab_size * target.hidden_size * 2
    head_saved = (target.vocab_size - 32000) * target.hidden_size * 2
    assert full["spec"]["drafter_memory_bytes"] - small["spec"]["drafter_memory_bytes"] == pytest.approx(head_saved, rel=1e-9)
    assert small["spec"]["drafter_memory_bytes"] > embedding + 32000 * target.hidden_size * 2


@pytest.mark.slow
def test_a_measured_acceptance_length_carried_to_another_k_and_eagle_1_rates_under_an_eagle_3_head_are_said():
    """A measured acceptance length becomes one alpha at every position, so best k beyond the measured k ran 21%
    optimistic with no word (k = 1 at 1.72 gave best k 4); EAGLE's default rates are EAGLE-1's, silent under a head with
    a draft vocabulary (EAGLE-3's kind) on the very model they were measured on."""
    import roofline

    out = roofline.predict("h100-sxm", "llama-3.1-8b", 1, method="eagle", k=1, acceptance_length=1.72)
    assert out["spec"]["best_k"] > 1
    assert any(f"best k {out['spec']['best_k']} takes the acceptance length measured at k = 1" in w for w in out["warnings"])
    assert any("best k and its gain run optimistic" in w for w in out["warnings"])
    fewer = roofline.predict("h100-sxm", "llama-3.1-8b", 1, method="eagle", k=4, acceptance_length=2.4)
    assert fewer["spec"]["best_k"] == 3 and any("the gain at k = 3 runs low" in w for w in fewer["warnings"])
    at_best = roofline.predict("h100-sxm", "llama-3.1-8b", 1, method="eagle", k=3, acceptance_length=2.2)
    assert at_best["spec"]["best_k"] == 3 and not any("takes the acceptance length" in w for w in at_best["warnings"])
    eagle3 = roofline.predict("h100-sxm", "llama-3.1-8b", 1, method="eagle", k=4, draft_vocab=32000)
    assert any("EAGLE-1 head's" in w and "32,000" in w for w in eagle3["warnings"])
    eagle1 = roofline.predict("h100-sxm", "llama-3.1-8b", 1, method="eagle", k=4)
    assert not any("EAGLE-1 head's" in w for w in eagle1["warnings"])


@pytest.mark.slow
def test_a_tied_models_head_on_other_hardware_holds_its_one_embedding_matrix_once():
    """Llama-3.2-1B ties its LM head to its embedding: an EAGLE head on an L4 held the 128,256 x 2048 matrix twice
    (1.21 GB where one copy gives 0.68); with a draft vocabulary the head has rows of its own beside it."""
    import roofline

    target = load_model("llama-3.2-1b")
    assert target.tied_embeddings
    matrix = target.vocab_size * target.hidden_size * 2
    elsewhere = roofline.predict("h100-sxm", "llama-3.2-1b", 8, method="eagle", k=3, alpha=0.8, draft_hardware="l4")
    here = roofline.predict("h100-sxm", "llama-3.2-1b", 8, method="eagle", k=3, alpha=0.8)
    assert elsewhere["spec"]["drafter_memory_bytes"] - here["spec"]["drafter_memory_bytes"] == pytest.approx(matrix, rel=1e-9)
    small = roofline.predict("h100-sxm", "llama-3.2-1b", 8, method="eagle", k=3, alpha=0.8, draft_hardware="l4", draft_vocab=32000)
    head = 32000 * target.hidden_size * 2
    assert small["spec"]["drafter_memory_bytes"] - here["spec"]["drafter_memory_bytes"] == pytest.approx(matrix + head, rel=1e-9)


def test_a_drafter_elsewhere_sends_its_draft_ids_and_gets_back_the_kept_tokens_hidden_states():
    """A tree of N nodes on a drafter's own device sent k ids (its depth), not N; a head drafter got back every verified
    position's hidden state (N + 1 for a tree), where it extends its KV with the tau tokens kept (qa63)."""
    import roofline
    from roofline.hardware import load_hardware

    kw = dict(method="eagle", draft_hardware="l4", tree_nodes=15, tree_tau=3.5, k=4)
    r = roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1024, **kw)["spec"]
    h100, l4 = load_hardware("h100-sxm"), load_hardware("l4")
    (bw_h, lat_h), (bw_l, lat_l) = h100.link_outside_domain(), l4.link_outside_domain()
    expected = 2 * max(lat_h, lat_l) + 8 * (15 * 4 + 3.5 * 4096 * 2) / min(bw_h, bw_l)  # a round trip (qa118)
    assert r["transfer_time_s"] == pytest.approx(expected, rel=1e-9)


@pytest.mark.slow
def test_warnings_follow_k_past_what_the_acceptance_given_covers_and_a_draft_model_names_its_dtype(tmp_path, roofline):
    """qa72: k 7 past DeepSeek-V3's one MTP module warned only when best k went further; k 8 on two rates took the
    second at six more positions silently, in predict and sweeps alike; best k 0 was told to 'measure at k = 0'; an int4
    target's draft model ran in int4 unsaid."""
    import roofline as api

    p = api.predict("h200", "deepseek-v3", tp=8, method="mtp", k=7, alpha=0.9, engine="ideal")
    assert any("k 7 exceeds its 1 trained MTP module" in w for w in p["warnings"])
    p = api.predict("h100-sxm", "llama-3.1-8b", method="eagle", k=8, acceptance=[0.9, 0.6])
    assert any("k 8 takes the last of the 2 rates given (0.6) at draft positions 3-8" in w for w in p["warnings"])
    p = api.predict("h100-sxm", "llama-3.1-8b", method="eagle", k=4, acceptance_length=1.0)
    assert p["spec"]["best_k"] == 0 and not any("k = 0" in w for w in p["warnings"])
    p = api.predict("a100-sxm-80gb", "llama-2-70b", weight_dtype="int4", method="draft", draft="llama-2-7b", k=5, alpha=0.75)
    assert p["spec"]["drafter_weight_dtype"] == "int4"
    scenario = tmp_path / "r.yaml"
    scenario.write_text("name: r\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\nacceptance: [0.9, 0.8]\n"
                        "axes:\n  batch: [1, 8]\n  context: [1024]\n  k: [1, 2, 4]\n")
    code, _, err = roofline("sweep", scenario, "--out", tmp_path / "r", "--no-plots")
    assert code == 0 and "k up to 4 takes the last of the 2 rates given (0.8) at draft positions 3-4" in err
    scenario.write_text("name: l\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\nacceptance_length: {tau: 3.2, k: 4}\n"
                        "axes:\n  batch: [1, 8]\n  context: [1024]\n  k: [2, 4, 6]\n")
    code, _, err = roofline("sweep", scenario, "--out", tmp_path / "l", "--no-plots")
    assert code == 0 and "the acceptance length 3.2 measured at k = 4 is swept as one rate, alpha 0.775" in err


@pytest.mark.slow
def test_a_draft_model_of_another_tokenizer_family_is_warned_about_though_the_vocabulary_sizes_agree():
    """Llama 2 7B drafting for Mixtral 8x7B: 32,000 tokens each, two SentencePiece models, so token ids differ in
    meaning; only the vocabulary size was compared (qa72). TinyLlama shares Llama 2's and is not warned about."""
    import roofline as api

    p = api.predict("h100-sxm", "mixtral-8x7b", tp=2, method="draft", draft="llama-2-7b", k=4, alpha=0.8, batch=16)
    assert any("llama-2-7b uses the llama-2 tokenizer and mixtral-8x7b the mistral-v1 one" in w for w in p["warnings"])
    p = api.predict("h100-sxm", "llama-2-70b", tp=4, method="draft", draft="tinyllama-1.1b", k=4, alpha=0.8)
    assert not any("tokenizer" in w for w in p["warnings"])
    assert not any("is no smaller than its target" in w for w in p["warnings"])
    big = api.predict("h100-sxm", "llama-3.2-1b", method="draft", draft="llama-3.2-3b", k=4, alpha=0.7)  # qa380: 0.27x,
    assert big["spec"]["speedup"] < 1 and any(  # unexplained
        w.startswith("draft model llama-3.2-3b (3.21B parameters) is no smaller than its target llama-3.2-1b (1.24B)")
        for w in big["warnings"])
    same = api.predict("h100-sxm", "llama-3.1-8b", method="draft", draft="llama-3.1-8b", k=3, alpha=1.0)  # a tie at best
    assert same["spec"]["speedup"] <= 1.0 and any("cannot pay (at best a tie" in w for w in same["warnings"])
    for p in (api.predict("l4", "llama-3.1-8b", method="draft", draft="llama-3.1-8b", draft_hardware="b200", k=4,
                          alpha=0.9),  # qa381: a drafter on a faster device of its own pays (3.1x), and a MoE draft
              api.predict("h100-sxm", "qwen3-8b", method="draft", draft="qwen3-30b-a3b", k=4, alpha=1.0)):  # reads 3B a
        assert p["spec"]["speedup"] > 1 and not any("is no smaller than its target" in w for w in p["warnings"])  # pass
    moe = api.predict("h100-sxm", "qwen3-30b-a3b", method="draft", draft="qwen3-32b", k=2, alpha=0.7)  # a MoE target
    assert not any("is no smaller than its target" in w for w in moe["warnings"])  # reads 3B a token: not said (qa381)


@pytest.mark.slow
def test_rate_and_tokenizer_notes_read_as_one_line_each_and_a_blank_tokenizer_is_refused(tmp_path):
    """qa73: 'at draft positions 3-3'; k and best k past the rates said twice; an acceptance length swept below its k
    unsaid; tokenizer 0 or ' ' taken, 'Llama-2' against 'llama-2' a mismatch."""
    import yaml

    import roofline as api
    from roofline.errors import RooflineError
    from roofline.model import model_from_dict
    from roofline.profiles import builtin_dir
    from roofline.speculation import acceptance_reach_note

    p = api.predict("h100-sxm", "llama-3.1-8b", method="eagle", k=3, acceptance=[0.95, 0.9])
    rates = [w for w in p["warnings"] if "rates given" in w]
    assert len(rates) == 1 and f"k 3 and best k {p['spec']['best_k']} take the last of the 2 rates given (0.9)" in rates[0]
    assert "at draft position 3;" in acceptance_reach_note("eagle", [1, 3], [0.9, 0.8])
    assert "at k below 4 the gains run low" in acceptance_reach_note("eagle", [1, 2], acceptance_length=(3.2, 4))
    data = yaml.safe_load((builtin_dir("model") / "mixtral-8x7b.yaml").read_text())
    for bad in (0, False, " "):
        with pytest.raises(RooflineError, match="tokenizer: expected a tokenizer family"):
            model_from_dict({**data, "tokenizer": bad}, "m.yaml")
    assert model_from_dict({**data, "tokenizer": " Mistral-V1 "}, "m.yaml").tokenizer == "mistral-v1"


def test_a_drafter_whose_own_device_dequantises_its_weights_is_said_so():
    """A draft model or head in the target's fp8 on an A100 drafter runs weight-only there, at the engine's
    weight_only_efficiency; predict and sweeps named it for the target's device only (qa86)."""
    from roofline.speculation import drafter_warnings

    target, small = load_model("llama-3.1-70b"), load_model("llama-3.2-1b")
    a100, h200 = load_hardware("a100-sxm-80gb"), load_hardware("h200")
    fp8 = deployment(target, "fp8", tp=2)
    for method, draft in (("draft", small), ("eagle", None)):
        said = [w for w in drafter_warnings(method, target, draft, a100, 1, fp8) if w.startswith("the drafter's fp8 weights on a100")]
        assert len(said) == 1, method
        assert not [w for w in drafter_warnings(method, target, draft, h200, 1, fp8) if w.startswith("the drafter's")]
    assert not [w for w in drafter_warnings("draft", target, small, a100, 1, deployment(target, tp=2)) if w.startswith("the drafter's")]
    assert not [w for w in drafter_warnings("ngram", target, None, None, 1, fp8) if w.startswith("the drafter's")]
    # a head drafter of a MoE target holds no experts: gpt-oss's fp4 experts are not its weights (qa89)
    gpt = load_model("gpt-oss-120b")
    assert not [w for w in drafter_warnings("eagle", gpt, None, a100, 1, deployment(gpt)) if w.startswith("the drafter's")]


@pytest.mark.slow
def test_a_drafter_on_a_renamed_copy_of_the_targets_device_is_one_more_gpu_beside_it():
    """`hw new my-h100 --from h100-sxm` as the drafter's device was priced over the scale-out link (20 us against the
    NVLink's 3 us), the name compared, not the kind (qa93)."""
    import dataclasses

    import roofline
    from roofline.hardware import load_hardware

    h100 = load_hardware("h100-sxm")
    copy = dataclasses.replace(h100, name="my-h100", family="h100-sxm")
    assert copy.engine_family == h100.engine_family == "h100-sxm"
    same, renamed = (roofline.predict("h100-sxm", "llama-3.1-70b", 32, tp=4, method="draft", draft="llama-3.2-1b", k=4,
                                      alpha=0.7, draft_hardware=d)["spec"]["transfer_time_s"] for d in (h100, copy))
    assert renamed == pytest.approx(same) and same < 10e-6
    # qa343: the kind's other board (an HGX 4-GPU H100 SXM5 94GB, family h100-sxm) is not on the 8-GPU board's
    # NVSwitch: the slower of the two links out, as any other device
    board = load_hardware("h100-sxm-94gb")
    assert board.engine_family == "h100-sxm" and not h100.shares_scale_up(board) and h100.shares_scale_up(copy)
    other = roofline.predict("h100-sxm", "llama-3.1-70b", 32, tp=4, method="draft", draft="llama-3.2-1b", k=4, alpha=0.7,
                             draft_hardware=board)["spec"]["transfer_time_s"]
    assert other > 2 * 20e-6  # two scale-out latencies (20 us each) and the bytes


@pytest.mark.slow
def test_rates_that_rise_or_go_on_after_a_0_are_noted_not_refused():
    """qa130: [0.45, 0.6, 0.8] and [0, 0.5] went through without a word: taken as given (conditional rates may rise),
    but a rising list is often one of unconditional rates, and a rate after a 0 is never used."""
    import roofline
    from roofline.speculation import rising_rates_note

    assert rising_rates_note([0.8, 0.6, 0.45]) == "" and rising_rates_note([0.7]) == ""
    assert "the rates rise with the position (0.45 then 0.6 at draft position 2)" in rising_rates_note([0.45, 0.6, 0.8])
    assert "rate 0 at draft position 1 ends every draft there" in rising_rates_note([0, 0.5])
    out = roofline.predict("h100-sxm", "llama-3.1-8b", method="eagle", k=3, acceptance=[0.45, 0.6, 0.8])
    assert any("the rates rise with the position" in w for w in out["warnings"])
    # a rise past k is noted too: best k reads it (qa138: 'best k here 4' from a rising third rate, unsaid)
    out = roofline.predict("h100-sxm", "llama-3.1-8b", method="eagle", k=2, acceptance=[0.8, 0.6, 0.7])
    assert any("the rates rise with the position" in w for w in out["warnings"])


# ---- Medusa: k heads, each a residual block (h x h) and its own LM head, in one pass on the last hidden state ----

def _medusa(hw, target, batch, k, engine=None, dep=None, **kw):
    from roofline.serving import load_engine
    eng = load_engine(engine) if isinstance(engine, str) else engine
    return speculative_metrics(hw, target, batch, 2048, k, 0.6, method="medusa", engine=eng, dep=dep, **kw)


def test_medusa_holds_k_heads_of_a_block_and_an_lm_head_each_and_no_kv_cache():
    hw, target = load_hardware("h100-sxm"), load_model("llama-3.1-8b")
    h, v = target.hidden_size, target.vocab_size
    for tp in (1, 2):  # the block whole on every rank (nn.Linear), the LM head split as the target's (ParallelLMHead)
        dep = deployment(target, tp=tp)
        for k in (1, 3, 5):
            m = _medusa(hw, target, 8, k, dep=dep)
            assert float(m["drafter_memory_bytes"]) == pytest.approx(k * (h * h * 2 + h * v * 2 / tp), rel=1e-12)
    # no KV cache: the heads' memory does not grow with the batch or the context
    assert float(_medusa(hw, target, 64, 3)["drafter_memory_bytes"]) == float(_medusa(hw, target, 1, 3)["drafter_memory_bytes"])
    # a truncated vocabulary (vLLM's truncated_vocab_size, given as draft_vocab): each head's LM head of its rows
    small = _medusa(hw, target, 8, 3, draft_vocab=32000)
    assert float(small["drafter_memory_bytes"]) == pytest.approx(3 * (h * h * 2 + h * 32000 * 2), rel=1e-12)
    assert float(small["draft_time_s"]) < float(_medusa(hw, target, 8, 3)["draft_time_s"])


@pytest.mark.slow
def test_medusa_drafts_in_one_pass_k_heads_times_one_head_plus_one_pass_fixed_costs():
    """draft = k * head + (step overhead + spec_per_draft_step + its per-sequence part) once: an EAGLE head pays the
    fixed costs at every one of its k sequential steps."""
    from roofline.costs import sequences_per_group
    from roofline.serving import load_engine
    hw, target = load_hardware("h100-sxm"), load_model("llama-3.1-8b")
    eng = load_engine("vllm").for_hardware(hw)
    b = 8
    d = [float(_medusa(hw, target, b, k, eng)["draft_time_s"]) for k in (1, 2, 3, 4)]
    head = d[1] - d[0]
    assert d[2] - d[1] == pytest.approx(head, rel=1e-9) and d[3] - d[2] == pytest.approx(head, rel=1e-9)
    fixed = hw.step_overhead_s + eng.spec_per_draft_step_s + eng.spec_per_draft_step_per_sequence_s * float(
        sequences_per_group(b, deployment(target)))
    assert d[0] - head == pytest.approx(fixed, rel=1e-9)
    eagle = [float(speculative_metrics(hw, target, b, 2048, k, 0.6, method="eagle", engine=eng)["draft_time_s"]) for k in (1, 2)]
    assert eagle[0] == pytest.approx(eagle[1] - eagle[0], rel=1e-9)  # EAGLE: no intercept, every step its own pass


def test_a_medusa_head_under_ideal_streams_its_block_and_lm_head_at_the_memory_ceiling():
    hw, target = load_hardware("h100-sxm"), load_model("llama-3.1-8b")
    h, v, a = target.hidden_size, target.vocab_size, 2
    d = [float(_medusa(hw, target, 1, k, "ideal")["draft_time_s"]) for k in (1, 2)]
    head_bytes = h * h * 2 + 1 * 2 * h * a + h * v * 2 + 1 * (h + v) * a  # weights and activations, batch 1
    assert d[1] - d[0] == pytest.approx(head_bytes / hw.memory_ceiling_bytes_per_s, rel=0.01)  # compute is negligible


def test_medusa_k0_is_plain_decoding_and_a_tree_does_not_widen_its_heads_pass():
    hw, target = load_hardware("h100-sxm"), load_model("llama-3.1-8b")
    plain = _medusa(hw, target, 4, 0, "vllm")
    assert float(plain["speedup"]) == 1.0 and float(plain["draft_time_s"]) == 0.0 and float(plain["drafter_memory_bytes"]) == 0.0
    chain = speculative_metrics(hw, target, 4, 2048, 4, 0.6, method="medusa")["draft_time_s"]
    tree = speculative_metrics(hw, target, 4, 2048, 4, method="medusa", tree_nodes=63, tree_tau=2.3)["draft_time_s"]
    assert float(tree) == float(chain)  # every level's candidates come from the heads' one pass
    eagle_chain = speculative_metrics(hw, target, 4, 2048, 4, 0.6, method="eagle")["draft_time_s"]
    eagle_tree = speculative_metrics(hw, target, 4, 2048, 4, method="eagle", tree_nodes=63, tree_tau=2.3)["draft_time_s"]
    assert float(eagle_tree) > float(eagle_chain)  # an EAGLE tree widens each draft step


@pytest.mark.slow
def test_medusa_needs_an_acceptance_and_sglang_runs_none():
    import roofline
    with pytest.raises(RooflineError, match="for method 'medusa' .*heads trained on the target; no published default"):
        roofline.predict("h100-sxm", "llama-3.1-8b", batch=1, method="medusa", k=3)
    point = roofline.predict("h100-sxm", "llama-3.1-8b", batch=1, method="medusa", k=3, alpha=0.6, engine="sglang", prompt=512)
    assert any("the engine has no medusa drafter (speculation_refused)" in w for w in point["warnings"])
    assert point["draft_prefill_s"] == 0.0 and point["ttft_with_speculation_s"] == point["ttft_s"]  # no prefill of their own
    vllm = roofline.predict("h100-sxm", "llama-3.1-8b", batch=1, method="medusa", k=3, alpha=0.6, engine="vllm")
    assert not any("speculation_refused" in w for w in vllm["warnings"])
    trt = roofline.predict("h100-sxm", "llama-3.1-8b", batch=1, method="medusa", k=3, alpha=0.6, engine="trtllm")
    assert any("the engine has no medusa drafter" in w for w in trt["warnings"])  # its PyTorch backend (qa216)
    assert any(w.endswith("as its profile describes the engine (`roofline engines show trtllm` says why, and which form of "
                          "it, if any, has one)") for w in trt["warnings"])  # the legacy engine flow has one (qa345)
    # the heads are unquantised, as the LM head (qa216: an fp8 target's heads were labelled fp8, priced in bf16)
    fp8 = roofline.predict("h100-sxm", "llama-3.1-8b", batch=1, method="medusa", k=3, alpha=0.6, weight_dtype="fp8")
    assert fp8["spec"]["drafter_weight_dtype"] == "bf16" and fp8["spec"]["drafter_expert_dtype"] is None
    assert fp8["spec"]["drafter_memory_bytes"] == vllm["spec"]["drafter_memory_bytes"]


def test_tau_near_alpha_1_is_the_sum_of_powers_and_an_acceptance_length_round_trips():
    """qa215: np.isclose's 1e-5 tolerance set tau to k + 1 = 65 from alpha 0.99999 on (the sum is 64.9792), and an
    acceptance length of 64.99 at k 64 came back as alpha 0.99998999 and tau 64.9792."""
    from roofline.speculation import alpha_from_tau
    for alpha, k in ((0.99999, 64), (0.9999999, 8), (0.999, 64), (0.5, 3)):
        assert float(tau_scalar_alpha(alpha, k)) == pytest.approx(sum(alpha ** i for i in range(k + 1)), rel=1e-12)
    assert float(tau_scalar_alpha(1.0, 64)) == 65.0 and float(tau_scalar_alpha(0.0, 64)) == 1.0
    assert float(tau_scalar_alpha(alpha_from_tau(64.99, 64), 64)) == pytest.approx(64.99, rel=1e-9)


def test_a_rate_of_0_ends_every_draft_so_the_reach_of_the_rates_given_is_not_said():
    """qa215: rates 0.9, 0, 0.9 at k 4 warned both that a rate of 0 ends every draft and that position 4 takes the
    last rate, optimistic there: moot, no draft reaches it."""
    from roofline.speculation import acceptance_reach_note
    assert acceptance_reach_note("eagle", [4], acceptance=[0.9, 0.0, 0.9]) == ""
    assert "k up to 4 takes the last of the 3 rates given" in acceptance_reach_note("eagle", [4], acceptance=[0.9, 0.5, 0.9])


def test_medusa_heads_elsewhere_take_back_the_last_kept_hidden_state_alone():
    """The link carries the k draft ids out and, back to the heads, the hidden state of the last kept token (an EAGLE
    head goes on from every kept token's, tau of them)."""
    hw, l4, target = load_hardware("h100-sxm"), load_hardware("l4"), load_model("llama-3.1-8b")
    (bw_t, lat_t), (bw_d, lat_d) = hw.link_outside_domain(), l4.link_outside_domain()
    b, k = 8, 3
    m = speculative_metrics(hw, target, b, 2048, k, 0.6, method="medusa", draft_hw=l4)
    sent = b * (k * 4 + 1 * target.hidden_size * 2)
    assert float(m["transfer_time_s"]) == pytest.approx(2 * max(lat_t, lat_d) + sent / min(bw_t, bw_d), rel=1e-12)


def test_a_draft_vocabulary_is_for_the_heads_that_take_one():
    """Medusa's truncated_vocab_size (a leftover since session 44) is given as draft_vocab, as EAGLE-3's is; another
    method is refused, in a scenario and on the command line alike."""
    from roofline.scenario import scenario_from_dict
    from roofline.speculation import check_options

    check_options("x", "medusa", draft_vocab=32000, alpha=0.6)
    with pytest.raises(RooflineError, match=r"^x: draft_vocab: expected only with method eagle or medusa, found method mtp$"):
        check_options("x", "mtp", draft_vocab=32000)
    base = {"name": "v", "hardware": "h100-sxm", "model": "llama-3.1-8b", "draft_vocab": 32000, "axes": {"alpha": [0.6]}}
    assert scenario_from_dict({**base, "method": "medusa"}, "v.yaml").draft_vocab == 32000
    with pytest.raises(RooflineError, match=r"draft_vocab: expected a draft vocabulary only with method eagle or medusa"):
        scenario_from_dict({**base, "method": "draft", "draft": "llama-3.2-1b"}, "v.yaml")


@pytest.mark.slow
def test_predict_says_whether_every_batch_between_the_first_and_last_that_lose_loses():
    """qa266: the table said 'not every batch between them loses' of every dip, where on a 70B target with a 1B draft
    on an L4 each batch of it loses; TensorRT-LLM's tile padding on an A100 zigzags, some batches between paying."""
    import roofline
    from roofline.tables import predict_table

    for kw, every in ((dict(hardware="h100-sxm", model="llama-3.1-70b", tp=4, method="draft", draft="llama-3.2-1b",
                            draft_hardware="l4", engine="vllm", batch=32, context=2048, k=1, alpha=0.8), True),
                      (dict(hardware="a100-pcie-40gb", model="llama-3.1-8b", engine="trtllm", method="eagle", batch=256,
                            context=256, k=4, alpha=0.8), False)):
        p = roofline.predict(**kw)
        first, last = p["spec"]["not_paying_below_break_even"]
        between = [roofline.predict(**{**kw, "batch": b})["spec"]["speedup"] for b in range(first, last + 1)]
        assert between[0] < 1 and between[-1] < 1 and p["spec"]["not_paying_every_batch_between"] is every is all(s < 1 for s in between)
        line = next(line for line in predict_table(p).splitlines() if "below it" in line)
        assert ("(each of them)" in line) is every and ("some between them pay" in line) is not every, line


def test_an_acceptance_length_out_of_range_is_quoted_as_given():
    """qa285: 5.0000001 at k 4 was refused as 'found 5', a value inside the range the message gives."""
    from roofline.errors import RooflineError
    from roofline.speculation import alpha_from_acceptance_length

    for tau, k, found in ((5.0000001, 4, "found 5.0000001"), (0.9999999, 2, "found 0.9999999"), (6.0, 4, "found 6")):
        with pytest.raises(RooflineError, match=re.escape(found) + "$"):
            alpha_from_acceptance_length("command line: --acceptance-length", tau, k)


def test_a_verify_pass_under_its_speculating_engine_gives_that_passs_bytes_and_time_alike():
    """qa352: an engine whose verify pass ran under another engine (prefix cache off while speculating, reading a shared
    prefix a sequence) priced its time by that pass and its bytes and FLOPs by the plain engine's (20 GB an iteration
    taking 38 ms on an H100: 0.53 TB/s on a memory-bound pass)."""
    from roofline.serving import load_engine
    from roofline.speculation import speculative_metrics

    hw, model = load_hardware("h100-sxm"), load_model("llama-3.1-8b")
    vllm = load_engine("vllm").for_hardware(hw)
    mixed = dataclasses.replace(vllm, prefix_read_once=True, prefix_cached_speculating=False)
    per_sequence = dataclasses.replace(vllm, prefix_read_once=False, prefix_cached=False)
    kw = {"method": "ngram", "shared_prefix": 8000}
    got, want = (speculative_metrics(hw, model, 64, 8192, 4, 0.7, engine=e, **kw) for e in (mixed, per_sequence))
    for key in ("verify_time_s", "bytes_per_token", "flops_per_token", "iteration_time_s", "verify_compute_bound"):
        assert np.allclose(got[key], want[key]), key
    plain = speculative_metrics(hw, model, 64, 8192, 0, 0.7, engine=mixed, **kw)  # k = 0: the engine's own, read once
    assert float(plain["bytes_per_token"]) < 0.6 * float(got["bytes_per_token"])


def test_a_drafters_prefill_stall_is_its_models_arrival_stall_on_its_device_beside_one_token_a_sequence():
    """qa355: every parameter of drafter_prefill_stall_s survived mutation (verify tokens, host work, the drafter's
    layout, its device, the shared prefix, the running batch). By hand: engine.arrival_stall_s of the drafter's model
    (a draft model at its own layout; an EAGLE head as drafter_spec makes it), beside a draft pass of one token for
    each of the running sequences, on the drafter's device with that device's engine values, without host work."""
    from roofline.engine import arrival_stall_s
    from roofline.serving import load_engine
    from roofline.speculation import drafter_deployment, drafter_prefill_stall_s, drafter_spec

    h100, l4 = load_hardware("h100-sxm"), load_hardware("l4")
    target, draft = load_model("llama-3.1-70b"), load_model("llama-3.2-1b")
    dep = deployment(target, tp=4)
    vllm = load_engine("vllm").for_hardware(h100)

    def by_hand(method, drafter_model, hw, elsewhere, prompt, running, prefix):
        spec = drafter_spec(method, target, drafter_model, None)
        engine = (vllm.for_other_hardware(hw) if elsewhere else vllm)
        bare = dataclasses.replace(engine, host_per_step_s=0.0, host_per_sequence_s=0.0)
        return float(arrival_stall_s(hw, spec, prompt, running, drafter_deployment(method, spec, dep, elsewhere), bare, 1, prefix))

    for method, drafter_model, draft_hw in (("draft", draft, None), ("draft", draft, l4), ("eagle", None, None)):
        for prompt, running, prefix in ((2000, 32, 0), (3000, 8, 2500)):
            got = float(drafter_prefill_stall_s(method, target, drafter_model, None, h100, draft_hw, dep, vllm, prompt,
                                                running, prefix))
            want = by_hand(method, drafter_model, draft_hw or h100, draft_hw is not None, prompt, running, prefix)
            assert got == pytest.approx(want, rel=1e-12), (method, draft_hw, prompt, running)
    # the prefix cached, the running batch and the device each move it (what the mutants dropped)
    stall = lambda **kw: float(drafter_prefill_stall_s("draft", target, draft, None, h100, kw.get("hw"), dep, vllm,  # noqa: E731
                                                       3000, kw.get("running", 32), kw.get("prefix", 0)))
    assert stall(prefix=2500) < 0.5 * stall() and stall(running=1) != stall() and stall(hw=l4) > 2 * stall()
    assert drafter_prefill_stall_s("ngram", target, None, None, h100, None, dep, vllm, 2000, 32) is None
    assert drafter_prefill_stall_s("medusa", target, None, None, h100, None, dep, vllm, 2000, 32) is None


@pytest.mark.slow
def test_a_drafter_without_a_kv_cache_on_its_own_device_caps_no_batch():
    """qa374: Medusa heads on an L4 said the L4 held their KV cache for 4,611,686,018,427,387,904 sequences (the
    no-cap placeholder), in the text and as drafter_device_max_batch."""
    import roofline
    from roofline.tables import predict_table as predict_text

    p = roofline.predict("a100-sxm-80gb", "vicuna-7b-v1.3", method="medusa", k=4, alpha=0.6, draft_hardware="l4")
    assert p["spec"]["drafter_device_max_batch"] is None and p["spec"]["max_batch"] == p["spec"]["target_max_batch"] > 0
    text = predict_text(p)
    assert "l4 holds the drafter, which keeps no KV cache, for any number" in text and "4,611,686" not in text
    eagle = roofline.predict("a100-sxm-80gb", "vicuna-7b-v1.3", method="eagle", k=4, alpha=0.6, draft_hardware="l4")
    assert 0 < eagle["spec"]["drafter_device_max_batch"] < 2**40  # an EAGLE head keeps one: its cap is said
    from roofline.tables import _caps_text  # at k 0 nothing is drafted: no drafter's cap said (qa376's surviving mutant)

    assert _caps_text({**p["spec"], "k": 0}) == "" and "which keeps no KV cache" in _caps_text(p["spec"])


@pytest.mark.slow
@pytest.mark.parametrize("alpha, k, ops, speed", LEVIATHAN_TABLE_1)
def test_leviathan_table_1_comes_out_of_the_whole_prediction_with_a_drafter_that_costs_nothing(alpha, k, ops, speed):
    """qa396: Table 1 was checked through the closed forms only. End to end (n-gram lookup: c = 0; the bare roofline;
    batch 1, where the verify pass of k + 1 tokens costs about one decode step, a little more, never less) the
    speedup is Table 1's or a little below, and the FLOPs per token over plain decoding's its ops factor."""
    import roofline

    spec = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, method="ngram", k=k, alpha=alpha, engine="ideal")["spec"]
    base = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, engine="ideal")
    assert speed * 0.99 <= spec["speedup"] <= speed + 0.005, spec["speedup"]
    assert spec["flops_per_token"] / base["flops"] == pytest.approx(ops, rel=0.015)


def test_leviathans_closed_forms_refuse_inputs_outside_them_in_one_line():
    """qa440: the lower-level closed forms took alpha 1.5 (a speedup of 9.4) and k = -1 (0.0) where predict refuses both;
    inside their domain they still broadcast, and alpha = 1 accepts every draft: k + 1 tokens an iteration."""
    with pytest.raises(RooflineError, match=r"^leviathan_speedup: alpha: expected acceptance rates in \[0, 1\], found 1.5$"):
        leviathan_speedup(1.5, 4, 0.1)
    with pytest.raises(RooflineError, match=r"^leviathan_speedup: k: expected whole numbers of draft tokens, 0 or more"):
        leviathan_speedup(0.8, -1, 0.1)
    with pytest.raises(RooflineError, match=r"^leviathan_ops_factor: c_hat: expected costs of 0 or more"):
        leviathan_ops_factor(0.8, 4, -1.0)
    with pytest.raises(RooflineError, match=r"^leviathan_speedup: alpha: .* found 1.2$"):
        leviathan_speedup(np.array([0.5, 1.2]), 2, 0.1)
    assert float(leviathan_speedup(1.0, 3, 0.0)) == pytest.approx(4.0)
    assert leviathan_speedup(np.array([0.6, 0.8]), np.array([2, 4]), 0.0) == pytest.approx([1.96, 3.3616])
