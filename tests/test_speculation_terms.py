"""speculation.py (tau, draft/verify/iteration times, best k, break-even search, _longest_paying_k): what the suite did
not pin (qa462's mutation round). Each figure by hand from the module docstring, or by brute force over every batch
where the docstring defines a search's answer. Each test names the surviving mutants it kills (ids in the qa462 report)."""
import numpy as np
import pytest

from roofline.errors import RooflineError
from roofline.hardware import load_hardware
from roofline.layout import deployment
from roofline.model import load_model
from roofline.serving import IDEAL, load_engine
from roofline.speculation import (
    alpha_from_acceptance_length,
    alpha_from_tau,
    default_k,
    drafter_deployment,
    drafter_spec,
    drafter_weight_bytes,
    leviathan_speedup,
    pays,
    predict_speculation,
    speculative_metrics,
)

H100 = load_hardware("h100-sxm")
LLAMA = load_model("llama-3.1-8b")
L70 = load_model("llama-3.1-70b")


def test_an_acceptance_length_of_k_plus_1_is_every_draft_accepted_up_to_the_longest_k():
    """tau in [1, k + 1] and k in 1..K_MAX = 64 (M-S03: k < 64; M-S04: tau < k + 1): alpha 1 at tau = k + 1."""
    assert alpha_from_acceptance_length("x", 65.0, 64) == 1.0
    assert alpha_from_acceptance_length("x", 5.0, 4) == 1.0
    assert alpha_from_acceptance_length("x", 1.0, 4) == 0.0


def test_alpha_of_a_tau_of_1_is_exactly_0():
    """'tau <= 1 gives 0' (M-S02: the bisection's 4e-19)."""
    assert alpha_from_tau(1.0, 4) == 0.0 and alpha_from_tau(0.5, 3) == 0.0


def test_leviathan_refuses_a_fractional_draft_length():
    """k 'whole numbers of draft tokens, 0 or more' (M-S07: 1.5 priced)."""
    with pytest.raises(RooflineError, match=r"k: expected whole numbers of draft tokens, 0 or more, found 1\.5"):
        leviathan_speedup(0.5, 1.5, 0.1)


def test_a_tree_drafts_ceil_of_its_nodes_over_its_depth_a_step():
    """q_d = ceil(N / k): a tree of 10 nodes at depth 4 drafts 3 tokens a step (M-S09: floor, 2); under `ideal` (no
    per-draft-step cost) t_draft = k x t_step(drafter, B, 3, S)."""
    from roofline.engine import step_metrics

    drafter = drafter_spec("eagle", LLAMA)
    d_dep = drafter_deployment("eagle", drafter, deployment(LLAMA), False)
    m = speculative_metrics(H100, LLAMA, 32, 2048, 4, method="eagle", tree_nodes=10, tree_tau=2.5, engine=IDEAL)
    steps = {q: float(step_metrics(H100, drafter, 32, q, 2048, d_dep, engine=IDEAL)["step_time_s"]) for q in (2, 3)}
    assert steps[2] != steps[3]
    assert float(m["draft_time_s"]) == pytest.approx(4 * steps[3], rel=1e-12)


def test_tokens_per_user_are_tau_over_the_iteration():
    """tokens/s = B tau / t_iter, a user's tau / t_iter (M-S27: 1 / t_iter)."""
    m = speculative_metrics(H100, LLAMA, 16, 1024, 3, 0.7, method="eagle")
    tau = 1 + 0.7 + 0.49 + 0.343
    assert float(m["tau"]) == pytest.approx(tau, rel=1e-12)
    assert float(m["tokens_per_s_per_user"]) == pytest.approx(tau / float(m["iteration_time_s"]), rel=1e-12)
    assert float(m["tokens_per_s"]) == pytest.approx(16 * tau / float(m["iteration_time_s"]), rel=1e-12)


def test_a_speedup_a_rounding_below_1_pays():
    """speedup >= 1, rounding aside (M-S28: PAYS_FROM exactly 1)."""
    assert pays(1.0 - 1e-13) and pays(1.0) and not pays(1.0 - 1e-9)


def test_the_default_depth_is_4_at_most_a_trees_nodes():
    """0 for none, else K_DEFAULT = 4, at most a tree's nodes (M-S45)."""
    assert (default_k("none"), default_k("eagle"), default_k("eagle", 2), default_k("eagle", 9)) == (0, 4, 2, 4)


def test_an_eagle_head_with_a_draft_vocabulary_on_the_targets_devices_brings_its_own_lm_head():
    """'EAGLE with a reduced draft_vocab brings that head' on the target's devices (M-S68): 32,000 x 4,096 x 2 B."""
    dep = deployment(LLAMA)
    small, full = drafter_spec("eagle", LLAMA, draft_vocab=32000), drafter_spec("eagle", LLAMA)
    with_head = drafter_weight_bytes("eagle", small, drafter_deployment("eagle", small, dep, False), False, 32000, 128256)
    without = drafter_weight_bytes("eagle", full, drafter_deployment("eagle", full, dep, False), False, None, 128256)
    assert with_head - without == 32000 * 4096 * 2


def test_an_mtp_block_on_a_moe_target_is_a_moe_layer():
    """'one block of the target (MoE if the target is MoE)' (M-S69: DeepSeek-V3's 3 leading dense layers kept, so its
    one layer ran the dense MLP)."""
    mtp = drafter_spec("mtp", load_model("deepseek-v3"))
    assert mtp.layers == 1 and mtp.moe_layers == 1 and mtp.dense_layers == 0


@pytest.mark.slow  # two predict searches
def test_mtp_reuses_a_module_only_past_the_trained_ones():
    """DeepSeek-V3 has 1 MTP module: k = 1 runs it, k = 2 reuses it (M-S46: k >= modules)."""
    v3 = load_model("deepseek-v3")
    kw = dict(method="mtp", dep=deployment(v3, tp=8))
    assert not predict_speculation(H100, v3, 8, 1024, 1, 0.8, **kw)["mtp_module_reused"]
    assert predict_speculation(H100, v3, 8, 1024, 2, 0.8, **kw)["mtp_module_reused"]


KW70 = dict(method="eagle", dep=deployment(L70, tp=4), engine=load_engine("vllm"))


@pytest.mark.slow  # a predict search
def test_where_no_k_of_1_or_more_fits_drafting_does_not_fit():
    """Llama-3.1-70B at tp 4 under vLLM, batch 440: plain decoding fits (k = 0), no k >= 1 with its drafter does
    (M-S47: drafting_fits counted k = 0)."""
    ks = np.arange(0, 65)
    fits = np.asarray(speculative_metrics(H100, L70, 440, 1024, ks, 0.7, **KW70)["fits_in_memory"])
    assert fits[0] and not fits[1:].any()
    spec = predict_speculation(H100, L70, 440, 1024, 6, 0.7, **KW70)
    assert spec["drafting_fits"] is False and spec["best_k"] == 0


@pytest.mark.slow  # a predict search
def test_where_no_k_pays_none_pays_longest():
    """alpha 0: tau = 1 and every draft costs time, so no k pays at any batch (M-S40: k 1 named at batch 0)."""
    spec = predict_speculation(H100, L70, 8, 1024, 6, 0.0, **KW70)
    assert spec["break_even_batch"] is None and spec["pays_longest"] is None


@pytest.mark.slow  # predict's searches and a brute force over every batch
@pytest.mark.parametrize("target, k, alpha, context, kw", [
    (L70, 6, 0.7, 1024, KW70),  # loses at 263-264, pays at 265
    (LLAMA, 40, 0.95, 128, dict(method="eagle", engine=load_engine("sglang"), dep=deployment(LLAMA))),  # 141-144, 145
    (L70, 2, 0.6, 512, dict(KW70, engine=load_engine("sglang"))),  # 172-176 (neither on the grid), 181
])
@pytest.mark.slow
def test_the_break_even_and_the_batches_that_lose_below_it_are_every_batchs_answer(target, k, alpha, context, kw):
    """break_even_batch: the largest batch in 1..max_batch whose speedup >= 1; not_paying_below_break_even: the first
    and last batch below it that lose; break_even_speedup: the speedup at that batch (M-S30, M-S31, M-S32: the loss's
    edges left at their grid points or past the break-even, M-S97: the first edge's refinement from its own grid point;
    M-S35: the speedup of the fine search's first batch). Each case's losing batches are one run, so its edges are
    exact (the search samples a grid: a run between grid points that pay is not seen)."""
    spec = predict_speculation(H100, target, 8, context, k, alpha, **kw)
    batches = np.arange(1, spec["max_batch"] + 1)
    speedup = np.asarray(speculative_metrics(H100, target, batches, context, k, alpha, **kw)["speedup"])
    paying = batches[pays(speedup)]
    be = int(paying.max())
    assert spec["break_even_batch"] == be and be < spec["max_batch"]
    losing = batches[(batches < be) & ~pays(speedup)]
    assert losing.size and spec["not_paying_below_break_even"] == [int(losing.min()), int(losing.max())]
    assert spec["break_even_speedup"] == pytest.approx(float(speedup[be - 1]), rel=1e-12)


@pytest.mark.slow  # a predict search on DeepSeek-V3
def test_an_eagle_head_on_a_moe_target_has_no_expert_dtype():
    """EAGLE's one dense layer on DeepSeek-V3 (fp8) holds no experts, so none is labelled (M-S65: 'fp8 experts')."""
    v3 = load_model("deepseek-v3")
    spec = predict_speculation(H100, v3, 8, 1024, 2, 0.8, method="eagle", dep=deployment(v3, "fp8", tp=8))
    assert spec["drafter_expert_dtype"] is None and spec["drafter_weight_dtype"] == "fp8"


def test_a_draft_model_that_cannot_split_tp_ways_runs_at_tp_1_in_the_targets_dtypes():
    """Llama-3.2-3B's 24 heads do not split 16 ways beside a 70B target at tp 16: tp 1, the target's attention dtype
    (fp8) and KV dtype (fp8) (M-S66: bf16 weights, the default KV)."""
    draft = load_model("llama-3.2-3b")
    dep = drafter_deployment("draft", draft, deployment(L70, "fp8", tp=16, kv_dtype="fp8"), False)
    assert (dep.tp, dep.weight_dtype_label, dep.kv_dtype) == (1, "fp8", "fp8")


def test_a_drafter_under_an_engine_without_a_prefix_cache_holds_a_shared_prefix_in_every_sequence():
    """vLLM V0 (prefix_cached false): a 2,048-token shared prefix is held per sequence by the target and its draft
    model alike, so neither holds less than without one (M-S74: the drafter held it once)."""
    kw = dict(method="draft", draft=load_model("llama-3.2-1b"), engine=load_engine("vllm-v0"))
    shared, alone = (speculative_metrics(H100, LLAMA, 16, 4096, 2, 0.7, shared_prefix=p, **kw) for p in (2048, 0))
    assert float(shared["drafter_memory_bytes"]) == float(alone["drafter_memory_bytes"]) > 0
    assert float(shared["kv_bytes"]) == float(alone["kv_bytes"])


def test_an_engine_that_drops_its_prefix_cache_while_speculating_holds_the_prefix_per_sequence_only_then():
    """SGLang 0.4 (prefix_cached_speculating false): at k = 0 a 2,048-token shared prefix is held once, at k = 2 in
    every sequence, as without a shared prefix (M-S76: held once at k = 2 too)."""
    kw = dict(method="eagle", engine=load_engine("sglang-early"))
    ks = np.array([0, 2])
    shared, alone = (speculative_metrics(H100, LLAMA, 16, 4096, ks, 0.7, shared_prefix=p, **kw) for p in (2048, 0))
    assert float(shared["kv_bytes"][1]) == float(alone["kv_bytes"][1])
    assert float(shared["kv_bytes"][0]) < float(alone["kv_bytes"][0])
    assert int(shared["max_batch"][1]) == int(alone["max_batch"][1]) < int(shared["max_batch"][0])


def test_plain_decoding_beside_a_drafter_device_is_not_capped_by_it():
    """k = 0 holds no drafter: a draft model on an L4 caps the batch only where it drafts (M-S75: capped at k = 0
    too). Llama-3.1-8B on an H200 at 32k: the L4's cap binds at k = 2, plain decoding's own at k = 0."""
    h200 = load_hardware("h200")
    m = speculative_metrics(h200, LLAMA, 16, 32768, np.array([0, 2]), 0.7, method="draft", draft=load_model("llama-3.2-1b"),
                            draft_hw=load_hardware("l4"))
    assert int(m["drafter_device_max_batch"][1]) < int(m["target_max_batch"][1])
    assert int(m["max_batch"][1]) == int(m["drafter_device_max_batch"][1])
    assert int(m["max_batch"][0]) == int(m["baseline_max_batch"][0]) > int(m["max_batch"][1])


def test_method_none_is_plain_decoding_whatever_k_a_sweep_pairs_it_with():
    """'With k = 0 every method reduces to plain decoding'; method none is plain decoding at any k (a sweep's method
    axis beside a k axis) (M-S83: none at k = 3 verified 4 tokens a pass)."""
    m = speculative_metrics(H100, LLAMA, 16, 1024, np.array([0, 3]), method="none")
    assert np.all(m["tau"] == 1.0) and np.all(m["speedup"] == 1.0)
    assert np.all(m["iteration_time_s"] == m["baseline_step_time_s"]) and np.all(m["draft_time_s"] == 0.0)


@pytest.mark.parametrize("latency_s", [1e-3, 3e-3])
def test_overlap_pays_the_second_micro_batchs_link_round_trip_or_is_not_taken(latency_s):
    """min(max(2 t_draft(B/2), 2 t_verify(B/2)) + 2 t_link + spec_per_iteration, t_draft + t_verify): a draft model on
    an L4 over a slow link (1-3 ms each way) overlaps only where the split saves more than the second round trip, so
    overlapping never makes an iteration longer than taking turns (M-S18: the decision without 2 t_link)."""
    import dataclasses

    from roofline.serving import IDEAL

    slow = dataclasses.replace(load_hardware("l4"), link_latency_s=latency_s, scale_out_latency_s=latency_s)
    kw = dict(method="draft", draft=load_model("llama-3.2-1b"), draft_hw=slow, dep=deployment(L70, tp=4), engine=IDEAL)
    batches = np.array([2, 8, 16, 32, 64, 96, 128, 256])
    on = speculative_metrics(H100, L70, batches, 1024, 1, 0.8, **kw)["iteration_time_s"]
    off = speculative_metrics(H100, L70, batches, 1024, 1, 0.8, overlap=False, **kw)["iteration_time_s"]
    assert np.all(on <= off * (1 + 1e-12))


def test_k_0_drafts_no_pass_that_its_launches_could_bound():
    """An eager engine (200 us a launch) bounds an EAGLE draft pass of Llama-3.1-8B at k = 1; at k = 0 nothing is
    drafted, so no draft pass is launch-bound (M-S136: the drafter's pass said bound at k = 0)."""
    import dataclasses

    engine = dataclasses.replace(load_engine("vllm"), graphs=False, eager_launch_s=200e-6)
    m = speculative_metrics(H100, LLAMA, 1, 1024, np.array([0, 1]), 0.7, method="eagle", engine=engine)
    assert list(np.asarray(m["draft_launch_bound"])) == [False, True]


def test_notes_start_past_what_was_given_not_at_it():
    """Each note speaks of k beyond what the acceptance or the model covers, not k equal to it: k = 1 runs DeepSeek-V3's
    one MTP module (M-S145), 3 rates cover k = 3 (M-S148), an acceptance length measured at k = 3 is not carried at
    k = 3 (M-S149), equal rates do not rise (M-S146)."""
    from roofline.speculation import acceptance_reach_note, mtp_reuse_note, rising_rates_note

    v3 = load_model("deepseek-v3")
    assert mtp_reuse_note("mtp", v3, 1, True) == ""
    assert "k up to 2 exceeds its 1 trained MTP module" in mtp_reuse_note("mtp", v3, 2, True)
    assert acceptance_reach_note("eagle", [3], acceptance=[0.8, 0.7, 0.6]) == ""
    assert "draft position 4" in acceptance_reach_note("eagle", [4], acceptance=[0.8, 0.7, 0.6])
    assert acceptance_reach_note("eagle", [3], acceptance_length=(2.5, 3)) == ""
    assert "at k above 3" in acceptance_reach_note("eagle", [4], acceptance_length=(2.5, 3))
    assert rising_rates_note([0.8, 0.8, 0.7]) == "" and "rise" in rising_rates_note([0.7, 0.8])


def test_the_limits_of_the_options_are_inclusive():
    """Up to K_MAX = 64 rates (M-S128: 64 refused) and a draft vocabulary up to the target's own (M-S152: equal refused)."""
    from roofline.speculation import check_draft_vocab, check_options

    check_options("x", "eagle", acceptance=[0.5] * 64)
    with pytest.raises(RooflineError, match="expected at most 64 rates"):
        check_options("x", "eagle", acceptance=[0.5] * 65)
    check_draft_vocab("x", 128256, LLAMA)
    with pytest.raises(RooflineError, match="draft_vocab: expected at most"):
        check_draft_vocab("x", 128257, LLAMA)


@pytest.mark.slow  # a routing simulation (128 experts on 8 ranks)
def test_an_overlapped_iterations_flops_are_two_half_batch_passes_on_an_expert_parallel_target():
    """Both models run once per micro-batch: FLOPs of two B/2 passes (M-S21: one whole-batch pass's, which a dense or
    ep 1 model cannot tell apart; on Qwen3-235B at ep 8 the busiest rank's experts per token differ with the tokens)."""
    target = load_model("qwen3-235b-a22b")
    kw = dict(method="draft", draft=load_model("qwen3-0.6b"), draft_hw=load_hardware("l4"),
              dep=deployment(target, "fp8", tp=8, ep=8))
    r = speculative_metrics(H100, target, 64, 1024, 3, 0.7, **kw)
    half, whole = (speculative_metrics(H100, target, b, 1024, 3, 0.7, overlap=False, **kw) for b in (32, 64))
    assert bool(r["drafter_overlaps"]) and float(half["flops_per_token"]) != float(whole["flops_per_token"])
    assert float(r["flops_per_token"]) == pytest.approx(float(half["flops_per_token"]), rel=1e-12)


def test_k_0_beside_a_drafter_elsewhere_sends_nothing_over_the_link():
    """k = 0 is plain decoding: no round trip to a draft model on an L4 (M-S168: 2 t_link + bytes at k = 0)."""
    m = speculative_metrics(H100, L70, 16, 1024, np.array([0, 2]), 0.7, method="draft", draft=load_model("llama-3.2-1b"),
                            draft_hw=load_hardware("l4"), dep=deployment(L70, tp=4))
    assert float(m["transfer_time_s"][0]) == 0.0 < float(m["transfer_time_s"][1])
    assert float(m["speedup"][0]) == 1.0


def test_a_drafter_on_its_own_device_holds_a_shared_prefix_once_there_too():
    """A draft model on an L4 beside Llama-3.1-70B under vLLM (prefix cached), 32k context: a 16k shared prefix held
    once halves each sequence's KV on the drafter's device, about doubling the batch it fits, which sets the max batch
    (M-S173: the drafter's device held the prefix in every sequence: 17 both ways)."""
    kw = dict(method="draft", draft=load_model("llama-3.2-1b"), draft_hw=load_hardware("l4"), dep=deployment(L70, tp=8),
              engine=load_engine("vllm"))
    alone, shared = (speculative_metrics(H100, L70, 16, 32768, 2, 0.7, shared_prefix=p, **kw) for p in (0, 16384))
    assert int(shared["drafter_device_max_batch"]) >= 1.8 * int(alone["drafter_device_max_batch"])
    assert int(shared["max_batch"]) == int(shared["drafter_device_max_batch"])
