"""Engine terms: collectives, kernel counts, ceilings and host work (engine.py, serving.py), found by mutation testing (qa484).

Each test names the mutant it kills; every expected value is worked from the docstrings by hand."""

import dataclasses

import numpy as np
import pytest

from roofline.engine import (
    _node_hit,
    bytes_set_time_s,
    collective_times_s,
    lm_head_gather_time_s,
    operator_ceilings,
    parameters_used,
    step_metrics,
)
from roofline.hardware import load_hardware
from roofline.layout import deployment
from roofline.model import load_model
from roofline.serving import IDEAL, load_engine

pytestmark = pytest.mark.slow  # DeepSeek's layouts: the first test of them pays its caches (0.2-0.4 s)

H100 = load_hardware("h100-sxm")
H200 = load_hardware("h200")
LLAMA = load_model("llama-3.1-8b")  # 32 layers
QWEN_MOE = load_model("qwen3-30b-a3b")  # 48 layers, all MoE, 128 experts
DSV3 = load_model("deepseek-v3")  # 61 layers: 3 dense, 58 MoE; 256 experts, top 8
LAUNCH_S = 15.6e-6


def _engine(**kw):
    return dataclasses.replace(IDEAL, name="e", **kw)


def test_under_pp_the_host_terms_are_used_whatever_the_engine_overlaps():
    """parameters_used: at pp > 1 a micro-batch's own host work lies on its round trip (engine.step_metrics), so the host
    terms set the step even where the engine overlaps them; at pp 1 an overlapping engine's do not (unless host-bound).
    Kills `or dep.pp > 1` dropped from `host`."""
    engine = _engine(host_overlap=True, host_per_step_s=1e-4)
    assert parameters_used(H100, LLAMA, deployment(LLAMA, pp=2), engine)["host_per_step"] is True
    assert parameters_used(H100, LLAMA, deployment(LLAMA), engine)["host_per_step"] is False


def test_expert_parallelism_without_attention_dp_dispatches_nothing():
    """t_all_to_all: ep > 1 and attention data-parallel; with dp_attention = 1 every device holds every token and the
    combine rides on the all-reduce: 0 s, no kernel. Kills `dep.dp_attention > 1` -> `>= 1` in dispatches."""
    kernels: dict = {}
    times = collective_times_s(H100, QWEN_MOE, deployment(QWEN_MOE, tp=8, ep=8), IDEAL, 8, 1, kernels=kernels)
    assert float(times["all_to_all_time_s"]) == 0.0 and kernels["all_to_all_time_s"] == 0.0
    assert kernels["allreduce_time_s"] == 2 * 48  # both all-reduces of every layer stay


@pytest.mark.parametrize("p, expected", [(None, 4.0), (1.0, 4.0), (2.0, 4.0 * 4.0 / 5.0), (3.0, 4.0 * (4.0 / 5.0) ** 2)])
def test_the_bytes_set_part_of_an_operator_is_t_m_times_its_share_to_the_p_minus_1(p, expected):
    """bytes_set_time_s: t_m (t_m / t_op)^(p - 1); t_m where memory bounds the max form. t_c = 3, t_m = 4, t_op = 5
    (the 2-norm's). Kills `- 1.0` -> `- 0.0` in the exponent."""
    assert float(bytes_set_time_s(3.0, 4.0, 5.0, p)) == pytest.approx(expected)
    assert float(bytes_set_time_s(5.0, 4.0, 5.0, None)) == 0.0  # compute bounds the max form


def test_a_lightning_indexer_computes_at_the_fp8_ceiling():
    """operator_ceilings: the indexer's compute ceiling is fp8's (DeepGEMM's fp8 MQA logits), 2x bf16's on an H100.
    Kills "fp8" -> "bf16"."""
    ceilings = operator_ceilings(H100, deployment(LLAMA))
    assert ceilings["indexer"][0] == H100.compute_ceiling_flops_per_s("fp8")
    assert ceilings["indexer"][0] > 1.5 * H100.compute_ceiling_flops_per_s("bf16")  # the derated fp8 and bf16 ceilings


def test_norms_read_at_the_profiles_elementwise_ceiling_where_it_gives_one():
    """operator_ceilings: elementwise work on its own measured memory ceiling where the profile has one. Kills the
    elementwise ceiling dropped for the memory ceiling."""
    hw = dataclasses.replace(H100, elementwise_memory_bytes_per_s=1.0e12)
    assert operator_ceilings(hw, deployment(LLAMA))["norms"][1] == 1.0e12
    assert operator_ceilings(H100, deployment(LLAMA))["norms"][1] == H100.memory_ceiling_bytes_per_s


def test_experts_not_split_evenly_over_nodes_are_drawn_with_replacement():
    """_node_hit: 1 - (1 - 1/N)^top_k where the experts do not split evenly over N domains: DeepSeek-V3 over 3 nodes,
    1 - (2/3)^8 = 0.961 (its docstring). Kills the exponent top_k -> top_k - 1."""
    assert _node_hit(DSV3, 3) == pytest.approx(1 - (2 / 3) ** 8) and round(_node_hit(DSV3, 3), 3) == 0.961


def test_a_sequence_parallel_engine_at_ep_1_gathers_over_the_dp_group_and_keeps_the_moe_all_reduce():
    """collective_times_s: an engine with sequence_parallel_moe at tp > 1 under attention DP with ep = 1 (no
    dispatch) gathers over the data-parallel group, so each MoE layer's tp all-reduce stays: 2 x 48 all-reduces a pass,
    whatever its moe_dispatch. Kills `or dep.ep == 1` dropped from over_dp_group."""
    dep = deployment(QWEN_MOE, tp=2, dp_attention=4)
    for dispatch in ("per_rank", "allgather"):
        kernels: dict = {}
        collective_times_s(H100, QWEN_MOE, dep, _engine(sequence_parallel_moe=True, moe_dispatch=dispatch), 8, 1, kernels=kernels)
        assert kernels["allreduce_time_s"] == 96
        assert kernels["moe_gather_time_s"] == 2 * 48  # g = 8 devices each expert is split over: gathered and scattered


def test_a_dense_mlp_split_over_the_stage_counts_its_gathers_and_drops_its_all_reduce():
    """DeepSeek-V3 at tp 2, dp_attention 4, ep 8 with its dense MLP over the stage (SGLang's): each of the 3 dense layers
    gathers and reduce-scatters (2 collectives each, t_dp_gather), and its second all-reduce goes with them; each MoE
    layer's second is its dispatch's combine: 2 x 61 - 58 - 3 = 61 all-reduces. With each collective's latency 1 s
    (bytes aside) the all-reduce time is 61 s. Kills the dp_gather count 2 -> 1, `replaced += dense_layers` dropped and
    the count left at 2 x layers."""
    engine = _engine(allreduce_latency_s=1.0, all_to_all_latency_s=1.0)
    dep = dataclasses.replace(deployment(DSV3, tp=2, dp_attention=4, ep=8, weight_dtype="fp8"), stage_split=("mlp",))
    kernels: dict = {}
    times = collective_times_s(H100, DSV3, dep, engine, 8, 1, kernels=kernels)
    assert kernels["dp_gather_time_s"] == 6 and float(times["dp_gather_time_s"]) == pytest.approx(6.0, rel=1e-3)
    assert kernels["allreduce_time_s"] == 61 and float(times["allreduce_time_s"]) == pytest.approx(61.0, rel=1e-3)


def _split(dep):
    return dataclasses.replace(dep, sequence_split=("router", "shared_experts"))


def test_vllms_sequence_parallel_moe_in_deepseeks_layer_is_one_latency_more_a_moe_layer_at_pp_1():
    """t_allreduce: in DeepSeek's decoder layer at pp 1 a MoE layer's all-reduce after attention is a reduce-scatter,
    its output all-gathered before the next layer: the same bytes, one latency more (moe_layers x lat), one collective
    more each (2 x 61 - 58 + 58 = 122). Kills bytes added to the reduce-scatter's extra, and the count's `+= moe_layers`."""
    engine = _engine(allreduce_latency_s=1e-3)  # over the NVLink latency: lat = 1 ms
    dep = deployment(DSV3, tp=2, dp_attention=4, ep=8, weight_dtype="fp8")
    kernels, messages = {}, {}
    split = collective_times_s(H100, DSV3, _split(dep), engine, 64, 1, kernels=kernels, messages=messages)
    plain = collective_times_s(H100, DSV3, dep, engine, 64, 1)
    assert messages["sequence_parallel_moe"] == ("reduce_scatter", 58) and kernels["allreduce_time_s"] == 122
    assert float(split["allreduce_time_s"] - plain["allreduce_time_s"]) == pytest.approx(58 * 1e-3, rel=1e-9)


def test_at_pp_above_1_deepseeks_sequence_parallel_moe_all_gathers_its_output():
    """t_allreduce: at pp > 1 (or Qwen3-MoE) the all-reduce stays and the MoE block all-gathers its output over tp:
    'all_gather', one more latency and ring pass a MoE layer. Kills `and dep.pp == 1` dropped."""
    dep = deployment(DSV3, tp=2, dp_attention=4, ep=8, pp=2, weight_dtype="fp8")
    messages: dict = {}
    collective_times_s(H100, DSV3, _split(dep), _engine(), 64, 1, messages=messages)
    moe_layers = dep.stage_layers(DSV3)[1]
    assert messages["sequence_parallel_moe"] == ("all_gather", moe_layers)


def test_the_lm_head_gather_message_is_each_devices_share():
    """lm_head_gather_message_bytes: each device's part of the tp gather, R_a V a / tp: Llama 3.1 8B at tp 8, batch 4,
    4 x 128,256 x 2 / 8 = 128,256 B. Kills `/ dep.tp` dropped."""
    m = step_metrics(H100, LLAMA, 4, 1, 1024, deployment(LLAMA, tp=8))
    assert float(m["lm_head_gather_message_bytes"]) == 4 * 128_256 * 2 / 8


def test_a_prefills_lm_head_split_over_the_stage_gathers_its_one_row_unpadded():
    """A prefill runs eagerly: the LM head split over the stage gathers its B x logit rows, 1, not padded to the
    busiest group's 1 x dp_attention = 8 (padded=not prefill). Its gather is the step's dp_gather_time_s (no dense MLP
    split). Kills padded=True for the logit rows."""
    dep = dataclasses.replace(deployment(DSV3, dp_attention=8, ep=8, weight_dtype="fp8"), stage_split=("lm_head",))
    m = step_metrics(H100, DSV3, 1, 512, 0, dep, engine=IDEAL, logit_tokens=1, prefill=True)
    assert float(m["dp_gather_time_s"]) == pytest.approx(float(lm_head_gather_time_s(H100, DSV3, dep, IDEAL, 1, 1)))
    assert float(lm_head_gather_time_s(H100, DSV3, dep, IDEAL, 8, 1)) > float(m["dp_gather_time_s"])


def test_the_paced_passes_launch_the_head_each_pass():
    """qa326's case with no host work: at pp 3 the busiest stage's three passes set the step, their launches
    3 x (11 layers x (10 + 2 all-reduces) + 3 of the head) = 405 (test_eager: the round trip's 387).
    Kills head_kernels dropped from paced_kernels."""
    engine = dataclasses.replace(load_engine("vllm").for_hardware(H200), graphs=False, eager_launch_s=LAUNCH_S,
                                 host_per_step_s=0.0, host_per_sequence_s=0.0)
    m = step_metrics(H200, LLAMA, 72, 1, 1024, deployment(LLAMA, tp=2, pp=3), engine=engine)
    assert float(m["launch_kernels"]) == pytest.approx(405)


def test_a_pipelines_collective_terms_add_up_to_its_comm_time():
    """comm_time_s is the sum of the collective terms and p2p (step_metrics' docstring: 'their sum'), the head's gathers
    once a pass through the head: m of them where the paced passes set the step (Llama 3.1 8B at tp 2, pp 3, batch 72,
    no host work). Kills passes_with_head dropped from the head's gather in allreduce_time_s."""
    m = step_metrics(H200, LLAMA, 72, 1, 1024, deployment(LLAMA, tp=2, pp=3),
                     engine=dataclasses.replace(load_engine("vllm").for_hardware(H200), host_per_step_s=0.0, host_per_sequence_s=0.0))
    parts = sum(float(m[k]) for k in ("allreduce_time_s", "all_to_all_time_s", "moe_gather_time_s", "dp_gather_time_s",
                                      "p2p_time_s"))
    assert parts == pytest.approx(float(m["comm_time_s"]), rel=1e-12)


def test_a_step_is_compute_bound_where_compute_bound_operators_take_most_of_the_operator_time():
    """compute_bound: compute-bound operators over half the operator time (compute_bound_share > 0.5), not less. Over a
    batch sweep of Llama 3.1 8B at 512 tokens of context some share falls in (0.4, 0.5] and is said memory-bound. Kills 0.5 -> 0.4."""
    m = step_metrics(H100, LLAMA, np.arange(1, 4097), 1, 512)
    share = m["compute_bound_share"]
    assert ((share > 0.4) & (share <= 0.5)).any()
    assert (m["compute_bound"] == (share > 0.5)).all()


def test_at_pp_1_the_path_bytes_are_every_byte_of_the_pass_the_heads_included():
    """path_bytes: at pp 1 the round trip is the pass, so the bytes on its path are the step's bytes: its layers' and
    the head's (embedding, LM head). Kills head_bytes dropped from the round trip's path."""
    m = step_metrics(H100, LLAMA, 8, 1, 1024)
    assert float(m["path_bytes"]) == pytest.approx(float(m["bytes"]), rel=1e-12)


def test_a_drafters_input_projection_is_one_kernel_where_the_counts_do_not_name_it():
    """ServingEngine.kernels: DEFAULT_KERNELS[o] where neither count names o (a head drafter's input projection: one
    GEMM), else 0 (an indexer). Kills the DEFAULT_KERNELS fallback dropped."""
    engine = _engine(kernels_per_layer={"mlp": 3})
    assert engine.kernels("input_proj") == 1.0 and engine.kernels("indexer") == 0.0 and engine.kernels("mlp") == 3.0


def test_deepeps_dispatch_keeps_the_shared_experts_in_the_group():
    """stage_split_classes: SGLang holds the shared experts at tp 1 under DeepEP, so a per_pair or per_rank dispatch
    keeps them out of the stage split; an allgather dispatch splits them; none without attention DP. Kills the DeepEP
    exclusion dropped."""
    from roofline.serving import stage_split_classes

    split = ("mlp", "shared_experts")
    for dispatch, expected in (("per_pair", ("mlp",)), ("per_rank", ("mlp",)), ("allgather", split)):
        assert stage_split_classes(_engine(dp_attention_stage_split=split, moe_dispatch=dispatch), 8) == expected
    assert stage_split_classes(_engine(dp_attention_stage_split=split, moe_dispatch="allgather"), 1) == ()


def test_vllms_sequence_parallel_moe_needs_expert_parallelism():
    """sequence_split_classes: vLLM's sequence-parallel MoE meets tp > 1 under attention DP with ep > 1; at ep 1 the
    router and shared experts are not held whole. Kills `and dep.ep > 1` dropped."""
    from roofline.serving import sequence_split_classes

    vllm = load_engine("vllm")
    assert sequence_split_classes(vllm, deployment(QWEN_MOE, tp=2, dp_attention=4, ep=8), QWEN_MOE) == ("router", "shared_experts")
    assert sequence_split_classes(vllm, deployment(QWEN_MOE, tp=2, dp_attention=4, ep=1), QWEN_MOE) == ()


def test_an_allgather_dispatch_over_a_strided_dp_group_spans_the_nodes_its_ranks_lie_in():
    """t_all_to_all's allgather over the dp_attention ranks of a data-parallel group where vLLM gathers over it (a
    sequence-parallel engine, no sequence split): Qwen3-30B-A3B at tp 2, dp_attention 8, ep 16 on H100s (8 a node), the
    group's ranks 2 apart, 4 in each of 2 nodes. Batch 64: T_g = ceil(64 / 8) x 8 = 64 tokens, 2 x 64 x h x 2 bytes,
    NVLink 3/4 of them at 378 GB/s, the NIC 7 / (8 x 4) at 48 GB/s, the scale-out latency 20 us twice a MoE layer.
    Kills the stride (pp x tp) dropped: one node's NVLink alone."""
    engine = _engine(sequence_parallel_moe=True, moe_dispatch="allgather")
    dep = deployment(QWEN_MOE, tp=2, dp_attention=8, ep=16)
    nbytes = 64 * 2 * QWEN_MOE.hidden_size * 2
    transfer_s = max(nbytes * 3 / 4 / 378e9, nbytes * 7 / (8 * 4) / 48e9)
    times = collective_times_s(H100, QWEN_MOE, dep, engine, 64, 1)
    assert float(times["all_to_all_time_s"]) == pytest.approx(48 * (2 * 20e-6 + transfer_s), rel=1e-9)
