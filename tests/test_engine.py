import dataclasses

import numpy as np
import pytest

from roofline.api import predict
from roofline.capacity import capacity
from roofline.engine import op_time_s, step_metrics, step_time_s, ttft_s
from roofline.hardware import load_hardware
from roofline.layout import deployment
from roofline.model import load_model


def test_llama_8b_batch_1_on_h100_takes_streamed_weights_over_derated_bandwidth_plus_overhead(h100, llama8b):
    # Resident weights: 8,030,261,248 params x 2 B = 16.06 GB. A decode step streams all of them except the
    # embedding table (only one row per token is gathered): 2 x (8,030,261,248 - 128,256 x 4096) = 15.01 GB.
    streamed_bytes = 2 * (8_030_261_248 - 128_256 * 4096)
    hand = streamed_bytes / (3.35e12 * 0.85) + 20e-6  # = 5.291 ms
    assert float(step_time_s(h100, llama8b, 1, 1, 0)) == pytest.approx(hand, rel=0.002)


def test_decode_is_memory_bound_at_batch_1_and_compute_bound_at_large_batch(h100, llama8b):
    small = predict(h100, llama8b, 1, 1024, engine="ideal")
    large = predict(h100, llama8b, 1024, 128, engine="ideal")
    assert small["bound"] == "memory" and small["mbu"] > 0.8
    assert large["bound"] == "compute"


def test_op_time_is_the_larger_of_compute_and_memory_time():
    assert op_time_s(1e12, 1e9, 1e12, 1e12) == pytest.approx(1.0)
    assert op_time_s(1e9, 1e12, 1e12, 1e12) == pytest.approx(1.0)
    # the smooth form lies between max and sum
    smooth = op_time_s(1e12, 1e12, 1e12, 1e12, overlap_exponent=2.0)
    assert 1.0 < smooth < 2.0 and smooth == pytest.approx(2 ** 0.5)


@pytest.mark.slow
def test_a_scalar_call_equals_the_same_point_of_a_vectorised_call(h100, llama8b):
    b = np.array([1, 7, 64, 300])[:, None, None]
    q = np.array([1, 4, 9])[None, :, None]
    s = np.array([0, 512, 30000])[None, None, :]
    grid = step_metrics(h100, llama8b, b, q, s, deployment(llama8b, tp=2))
    for i, bb in enumerate(b.ravel()):
        for j, qq in enumerate(q.ravel()):
            for kk, ss in enumerate(s.ravel()):
                one = step_metrics(h100, llama8b, int(bb), int(qq), int(ss), deployment(llama8b, tp=2))
                assert float(one["step_time_s"]) == grid["step_time_s"][i, j, kk]
                assert float(one["mbu"]) == grid["mbu"][i, j, kk]


def test_tensor_parallelism_adds_allreduce_time_and_splits_weights(h100):
    m70 = load_model("llama-3.1-70b")
    one = predict(h100, m70, 1, 1024, tp=1, engine="ideal")
    four = predict(h100, m70, 1, 1024, tp=4, engine="ideal")
    assert not one["fits_in_memory"] and four["fits_in_memory"]
    assert four["comm_time_s"] > 0 and four["step_time_s"] < one["step_time_s"] / 2


def test_points_that_do_not_fit_are_flagged_not_raised(h100):
    p = predict(h100, load_model("llama-3.1-405b"), 1, 1024, engine="ideal")
    assert p["fits_in_memory"] is False and p["max_batch"] == 0


def test_max_batch_is_free_memory_over_kv_per_sequence(h100, llama8b):
    # h100-sxm exposes 81559 MiB = 85_520_809_984 B; free = 0.9 * 85_520_809_984 - 2 * 8_030_261_248 (bf16 weights)
    #   = 76_968_728_985.6 - 16_060_522_496 = 60_908_206_489.6 B; / (8192 tokens * 131072 B) = 56.7 -> 56 sequences
    free = 81559 * 2**20 * 0.9 - 2 * 8_030_261_248
    assert int(capacity(h100, llama8b, 1, 8192, deployment(llama8b))["max_batch"]) == int(free // (8192 * 131072))


def test_ttft_of_a_long_prompt_is_compute_bound_and_longer_than_a_decode_step(h100, llama8b):
    t = float(ttft_s(h100, llama8b, 8192))
    flops_floor = 2 * 8e9 * 8192 / (989.4e12 * 0.8)
    assert t > flops_floor and t > float(step_time_s(h100, llama8b, 1, 1, 8192))


H = load_hardware("h100-sxm")
M = load_model("qwen3-8b")


def test_operator_ceilings_and_layer_overhead_change_only_their_operators(h100, llama8b):
    slow = dataclasses.replace(h100, attention_memory_bytes_per_s=h100.memory_ceiling_bytes_per_s / 2, layer_overhead_s=10e-6)
    base = step_metrics(h100, llama8b, 8, 1, 8192, with_operators=True)
    changed = step_metrics(slow, llama8b, 8, 1, 8192, with_operators=True)
    assert float(changed["operators"]["attention"]["time_s"]) == pytest.approx(2 * float(base["operators"]["attention"]["time_s"]))
    assert float(changed["operators"]["mlp"]["time_s"]) == float(base["operators"]["mlp"]["time_s"])
    assert float(changed["overhead_s"]) == pytest.approx(20e-6 + 32 * 10e-6)


def test_an_attention_stream_ceiling_caps_only_a_kernel_that_does_not_split_keys_while_its_streams_are_few(h100, llama8b):
    """attention_memory_ceiling: min(attention_memory, B_a x h_kv x stream) under an engine whose attention does not split
    a sequence's keys (attention_splits_keys false); 8 KV heads on one device (Llama 3.1 8B). Serving engines split them."""
    from roofline.serving import ServingEngine, load_engine

    streamed = dataclasses.replace(h100, attention_memory_bytes_per_s=1.6e12, attention_stream_bytes_per_s=20e9)
    plain = dataclasses.replace(h100, attention_memory_bytes_per_s=1.6e12)
    pytorch = ServingEngine(name="pytorch", attention_splits_keys=False)
    batch = np.array([1.0, 4.0, 10.0, 64.0])

    def attention_s(hw, engine, dep=None, b=batch):
        return step_metrics(hw, llama8b, b, 1, 4096, dep, engine=engine, with_operators=True)["operators"]["attention"]["time_s"]

    ratio = attention_s(streamed, pytorch) / attention_s(plain, pytorch)  # memory-bound at q = 1: time scales as 1 / ceiling
    np.testing.assert_allclose(ratio, [1.6e12 / (8 * 20e9), 1.6e12 / (32 * 20e9), 1.0, 1.0], rtol=1e-6)
    for engine in (None, load_engine("vllm")):  # the ideal engine and a serving engine split the keys: no cap
        np.testing.assert_array_equal(attention_s(streamed, engine), attention_s(plain, engine))
    mlp = [float(step_metrics(hw, llama8b, 1, 1, 4096, engine=pytorch, with_operators=True)["operators"]["mlp"]["time_s"])
           for hw in (streamed, plain)]
    assert mlp[0] == mlp[1]
    two = deployment(llama8b, "bf16", tp=2)  # each device holds 4 KV heads: half the streams
    assert float(attention_s(streamed, pytorch, two, 1) / attention_s(plain, pytorch, two, 1)) == pytest.approx(1.6e12 / (4 * 20e9))


def test_operator_ceilings_load_from_a_profile():
    import yaml

    from roofline.hardware import hardware_from_dict
    from roofline.profiles import builtin_dir

    data = yaml.safe_load((builtin_dir("hardware") / "h100-sxm.yaml").read_text())
    data.update(layer_overhead="40 us", operator_ceilings={"attention_memory": "20 GB/s", "elementwise_memory": "12 GB/s"})
    hw = hardware_from_dict(data, "x.yaml")
    assert hw.layer_overhead_s == pytest.approx(40e-6) and hw.attention_memory_bytes_per_s == 20e9
    data["operator_ceilings"]["attention_stream"] = "15 GB/s"
    assert hardware_from_dict(data, "x.yaml").attention_stream_bytes_per_s == 15e9
    data["operator_ceilings"] = {"attention_memory": "20 GB"}
    with pytest.raises(Exception, match="operator_ceilings.attention_memory: expected"):
        hardware_from_dict(data, "x.yaml")


def test_mfu_weighs_each_operator_by_the_peak_of_its_own_dtype_and_stays_at_most_one():
    from roofline.hardware import load_hardware
    from roofline.layout import deployment
    from roofline.model import load_model

    b200, v3 = load_hardware("b200"), load_model("deepseek-v3")
    dep = deployment(v3, "fp32", tp=8, pp=4)  # fp32 weight GEMMs beside bf16 attention over a 128k context
    m = step_metrics(b200, v3, 16, 1, 131072, dep, engine=None, with_operators=True)
    ops = m["operators"]
    assert float(m["mfu"]) <= 1.0
    by_hand = sum(float(o["flops"]) / (b200.peak_flops_per_s["bf16"] if name in ("attention", "norms", "embedding", "kv_write")
                                      else b200.peak_flops_per_s["fp32"]) for name, o in ops.items())
    assert float(m["mfu"]) == pytest.approx(min(16, 4) * by_hand / float(m["step_time_s"]))


@pytest.mark.slow
def test_the_allreduce_carries_the_busiest_attention_groups_tokens_ceil_b_over_dp_times_q():
    """T_a = ceil(B / dp_attention) * q (module docstring, costs.py); it was ceil(B * q / dp_attention)."""
    from roofline.engine import collective_times_s
    from roofline.serving import IDEAL

    model = load_model("deepseek-v3")
    dep = deployment(model, weight_dtype="fp8", tp=2, dp_attention=4, ep=8)
    bw, lat = H.link_for(2)
    batch, q = np.array([1.0, 2.0, 5.0, 6.0]), 5
    got = collective_times_s(H, model, dep, IDEAL, batch, q)["allreduce_time_s"]
    tokens_a = np.array([5.0, 5.0, 10.0, 10.0])
    # two all-reduces a layer, but an MoE layer's second is its all-to-all's combine under attention DP: 2 x 61 - 58
    allreduces = 2 * model.layers - model.moe_layers
    assert got == pytest.approx(allreduces * (lat + 2 * (2 - 1) / 2 * tokens_a * model.hidden_size * 2 / bw), rel=1e-12)


def test_the_lm_head_is_padded_to_the_tile_by_its_own_rows_not_the_prompts():
    """In prefill one token per sequence needs logits: the LM head's GEMM pads that 1 row to the tile (16 rows of
    FLOPs), where it was padded as the prompt's T_a = 1000 rows (1008 / 1000)."""
    from roofline.engine import operator_ceilings
    from roofline.serving import load_engine

    vllm = load_engine("vllm")
    model = load_model("llama-3.1-8b")
    dep = deployment(model)
    ops = step_metrics(H, model, 1, 1000, 0, dep, engine=vllm, logit_tokens=1, prefill=True, with_operators=True)["operators"]
    flops, nbytes = float(ops["lm_head"]["flops"]), float(ops["lm_head"]["bytes"])
    assert flops == pytest.approx(2 * model.hidden_size * model.vocab_size, rel=1e-9)  # one row of logits
    compute_ceiling, memory_ceiling = operator_ceilings(H, dep)["lm_head"]
    latency = vllm.kernels("lm_head") * vllm.kernel_latency_s
    padded = op_time_s(flops * vllm.gemm_tile_rows, nbytes, compute_ceiling, memory_ceiling, vllm.overlap_exponent) + latency
    assert float(ops["lm_head"]["time_s"]) == pytest.approx(float(padded), rel=1e-12)


@pytest.mark.slow
def test_attention_dp_with_experts_split_over_devices_pays_the_gather_and_scatter_of_every_groups_tokens():
    """dp_attention 8 with ep 1: each expert is split over the 8 devices, so every device needs every group's tokens
    (SGLang's dp_gather) and the outputs are reduce-scattered. It was priced with no communication at all, which
    made it beat every real layout."""
    from roofline.engine import collective_times_s
    from roofline.serving import load_engine

    model, h200, vllm = load_model("deepseek-v3"), load_hardware("h200"), load_engine("vllm")
    dep = deployment(model, weight_dtype="fp8", dp_attention=8)
    bw, lat = h200.link_for(8)
    got = collective_times_s(h200, model, dep, vllm, 256, 1)
    expected = 2 * model.moe_layers * (max(vllm.allreduce_latency_s, lat) + 7 / 8 * 256 * model.hidden_size * 2 / bw)
    assert float(got["moe_gather_time_s"]) == pytest.approx(expected, rel=1e-12)
    assert float(got["allreduce_time_s"]) == 0.0 == float(got["all_to_all_time_s"])  # attention tp 1, no EP
    ep8 = collective_times_s(h200, model, deployment(model, weight_dtype="fp8", dp_attention=8, ep=8), vllm, 256, 1)
    assert float(ep8["moe_gather_time_s"]) == 0.0 < float(ep8["all_to_all_time_s"])  # whole experts: dispatched instead
    tp8 = collective_times_s(h200, model, deployment(model, weight_dtype="fp8", tp=8), vllm, 256, 1)
    assert float(tp8["moe_gather_time_s"]) == 0.0 < float(tp8["allreduce_time_s"])  # every device holds every token
    step = step_metrics(h200, model, 256, 1, 4096, dep, engine=vllm)
    assert float(step["comm_time_s"]) == pytest.approx(float(step["moe_gather_time_s"]), rel=1e-12)
    # experts split over 2 devices of an EP 4 group: a token with any of its 8 experts on a rank is gathered once
    # (0.90 of them), not one copy a token-expert pair (min(T, 2T) = T)
    from math import comb

    ungrouped = dataclasses.replace(model, moe=dataclasses.replace(model.moe, groups=1, groups_per_token=1))
    per_rank = dataclasses.replace(vllm, moe_dispatch="per_rank")  # vLLM's default all-gather already holds every token
    assert float(collective_times_s(h200, model, deployment(model, weight_dtype="fp8", dp_attention=8, ep=4), vllm, 256, 1)
                 ["moe_gather_time_s"]) == 0.0
    vllm = per_rank
    ep4 = collective_times_s(h200, ungrouped, deployment(ungrouped, weight_dtype="fp8", dp_attention=8, ep=4), vllm, 256, 1)
    bw2, lat2 = h200.link_for(2)
    tokens = 256 * (1 - comb(192, 8) / comb(256, 8))  # a token's 8 distinct experts, 64 a rank
    assert float(ep4["moe_gather_time_s"]) == pytest.approx(
        2 * model.moe_layers * (max(vllm.allreduce_latency_s, lat2) + 1 / 2 * tokens * model.hidden_size * 2 / bw2), rel=1e-12)
    # DeepSeek-V3's routing (4 of 8 groups of 32; a rank of EP 4 holds 2 groups): fewer tokens reach a rank
    from roofline.costs import rank_hit_probability

    ep4 = collective_times_s(h200, model, deployment(model, weight_dtype="fp8", dp_attention=8, ep=4), vllm, 256, 1)
    assert rank_hit_probability(256, 8, 4, 8, 4) < 1 - comb(192, 8) / comb(256, 8)
    tokens = 256 * rank_hit_probability(256, 8, 4, 8, 4)
    assert float(ep4["moe_gather_time_s"]) == pytest.approx(
        2 * model.moe_layers * (max(vllm.allreduce_latency_s, lat2) + 1 / 2 * tokens * model.hidden_size * 2 / bw2), rel=1e-12)


def test_with_attention_dp_and_experts_split_over_devices_an_moe_layers_second_all_reduce_is_its_scatter():
    from roofline.engine import collective_times_s
    from roofline.serving import IDEAL

    model = load_model("deepseek-v3")
    dep = deployment(model, weight_dtype="fp8", tp=2, dp_attention=4)  # ep 1: experts split over all 8 devices
    bw, lat = H.link_for(2)
    got = collective_times_s(H, model, dep, IDEAL, 8, 1)
    per_layer = lat + 2 * (2 - 1) / 2 * 2 * model.hidden_size * 2 / bw  # T_a = ceil(8 / 4) = 2 tokens
    assert float(got["allreduce_time_s"]) == pytest.approx((2 * model.layers - model.moe_layers) * per_layer, rel=1e-12)
    assert float(got["moe_gather_time_s"]) > 0 and float(got["all_to_all_time_s"]) == 0


@pytest.mark.slow
def test_the_all_to_all_sends_a_token_once_to_each_rank_its_experts_are_on():
    """Every top-k copy was counted: at EP 2 a token reaches one other device, but 4 copies (of top-8 at 1 - 1/2) were
    priced, and at EP 8 about 4.6 ranks against 7 copies (DeepEP dispatches a token once per destination rank)."""
    from roofline.engine import collective_times_s
    from roofline.serving import load_engine

    hw, grouped = load_hardware("h200"), load_model("deepseek-v3")
    v3 = dataclasses.replace(grouped, moe=dataclasses.replace(grouped.moe, groups=1, groups_per_token=1))  # ungrouped
    engine = dataclasses.replace(load_engine("sglang").for_hardware(hw), moe_dispatch="per_rank")  # DeepEP's normal kernels
    from math import comb

    # a token's 8 experts are distinct: a rank of 32 of the 256 holds none of them with chance C(224, 8) / C(256, 8);
    # DeepSeek-V3's own routing keeps them within 4 of 8 contiguous groups of 32, so fewer ranks (costs.rank_hit_probability,
    # checked against a simulation of the gate in test_costs)
    from roofline.costs import rank_hit_probability

    cases = ((v3, 8, 7 * (1 - comb(224, 8) / comb(256, 8))), (v3, 2, 1 - comb(128, 8) / comb(256, 8)),
             (grouped, 8, 7 * rank_hit_probability(256, 8, 8, 8, 4)), (grouped, 2, rank_hit_probability(256, 8, 2, 8, 4)))
    for model, ep, ranks in cases:
        dep = deployment(model, tp=1, dp_attention=8, ep=ep)
        got = float(collective_times_s(hw, model, dep, engine, 512, 1)["all_to_all_time_s"])
        bw, lat = hw.link_for(8)
        sent = model.hidden_size * (1 + 4 / 128) + model.hidden_size * 2  # fp8 out (block-quantised fp8 experts), bf16 back
        per_layer = 2 * max(engine.all_to_all_latency_s, lat) + 512 / 8 * ranks * sent / bw
        assert got == pytest.approx(model.moe_layers * per_layer, rel=1e-12)
    # group-limited routing reaches fewer ranks: 3.5 of 7 at EP 8 against 4.6
    assert cases[2][2] == pytest.approx(3.46, abs=0.02) and cases[0][2] == pytest.approx(4.63, abs=0.01)
    assert cases[3][2] < cases[1][2]


@pytest.mark.slow
def test_each_engines_moe_dispatch_moves_what_its_kernels_move_and_a_span_of_nodes_splits_its_links():
    """DeepEP's low-latency kernels send a message a token-expert pair (fp8 out with a 4 B scale a 128, bf16 back);
    vLLM's, SGLang's and TensorRT-LLM's defaults all-gather every rank's tokens and reduce-scatter the outputs; across
    nodes a domain's tokens cross to another once, shared over its NICs (all-gather), a token goes once to each other
    node (DeepEP's normal kernels), and the low-latency kernels reach peers in their own domain over NVLink."""
    from roofline.costs import rank_hit_probability
    from roofline.engine import collective_times_s
    from roofline.serving import load_engine

    hw, v3 = load_hardware("h100-sxm"), load_model("deepseek-v3")
    h = v3.hidden_size
    engines = {name: load_engine(name).for_hardware(hw) for name in ("vllm", "sglang", "trtllm")}
    assert {e.moe_dispatch for e in engines.values()} == {"allgather"}
    vllm = engines["vllm"]
    per_pair, per_rank = dataclasses.replace(vllm, moe_dispatch="per_pair"), dataclasses.replace(vllm, moe_dispatch="per_rank")
    bw, lat = hw.link_for(8)
    lat_a2a = max(vllm.all_to_all_latency_s, lat)  # DeepEP's kernels
    lat_ag = max(vllm.allreduce_latency_s, lat)  # an all-gather and a reduce-scatter, as the same ones at ep 1 (qa139)
    dep = deployment(v3, tp=1, dp_attention=8, ep=8)
    tokens = 1024
    pairs = tokens / 8 * 8 * 7 / 8  # a rank's tokens x top_k x the share of experts on other ranks
    got = float(collective_times_s(hw, v3, dep, per_pair, tokens, 1)["all_to_all_time_s"])
    assert got == pytest.approx(v3.moe_layers * (2 * lat_a2a + pairs * (h * (1 + 4 / 128) + 2 * h) / bw), rel=1e-12)
    got = float(collective_times_s(hw, v3, dep, vllm, tokens, 1)["all_to_all_time_s"])
    assert got == pytest.approx(v3.moe_layers * (2 * lat_ag + tokens * 7 / 8 * 4 * h / bw), rel=1e-12)
    at_ep1 = collective_times_s(hw, v3, deployment(v3, tp=1, dp_attention=8, ep=1), vllm, tokens, 1)
    assert float(at_ep1["moe_gather_time_s"]) == pytest.approx(got, rel=1e-12) and float(at_ep1["all_to_all_time_s"]) == 0
    # two nodes of 8
    wide = deployment(v3, tp=1, dp_attention=16, ep=16)
    up, _ = hw.link_for(8)
    nic, nic_lat = hw.link_for(16)
    lat_wide, lat_ag_wide = max(vllm.all_to_all_latency_s, nic_lat), max(vllm.allreduce_latency_s, nic_lat)
    got = float(collective_times_s(hw, v3, wide, vllm, tokens, 1)["all_to_all_time_s"])
    transfer = max(tokens * 7 / 8 * 4 * h / up, tokens * 15 / (16 * 8) * 4 * h / nic)  # NCCL's ring: all tokens a boundary
    assert got == pytest.approx(v3.moe_layers * (2 * lat_ag_wide + transfer), rel=1e-12)
    # ten devices: the node of 2 takes every other device's tokens on its 2 NICs (it was priced as a full node's 8)
    ten = deployment(v3, tp=1, dp_attention=10, ep=2)
    got = float(collective_times_s(hw, v3, ten, vllm, tokens, 1)["all_to_all_time_s"])
    padded = np.ceil(tokens / 10) * 10  # each group's buffer padded to the busiest's, 103 of 1,024 over 10 (qa144)
    transfer = max(padded * 7 / 8 * 4 * h / up, padded * 9 / (10 * 2) * 4 * h / nic)
    assert got == pytest.approx(v3.moe_layers * (2 * lat_ag_wide + transfer), rel=1e-12)
    got_rank = float(collective_times_s(hw, v3, ten, per_rank, tokens, 1)["all_to_all_time_s"])
    busiest = np.ceil(tokens / 10)  # the busiest device's tokens, 103 of 1,024 over 10 groups (qa119: the mean, 102.4)
    inside = busiest * 1 * rank_hit_probability(256, 8, 2, 8, 4)
    outside = busiest * 8 / 2 * rank_hit_probability(256, 8, 2, 8, 4)
    fp8 = h * (1 + 4 / 128) + 2 * h  # DeepEP's normal kernels behind vLLM quantise block-fp8 experts' tokens first (qa69)
    assert got_rank == pytest.approx(v3.moe_layers * (2 * lat_wide + max(inside * fp8 / up, outside * fp8 / nic)), rel=1e-12)
    assert got_rank <= got  # a subset of the all-gather's tokens
    bf16_experts = deployment(v3, "bf16", tp=1, dp_attention=10, ep=2)  # unquantised: bf16 out as well
    got_bf16 = float(collective_times_s(hw, v3, bf16_experts, per_rank, tokens, 1)["all_to_all_time_s"])
    assert got_bf16 == pytest.approx(v3.moe_layers * (2 * lat_wide + max(inside * 4 * h / up, outside * 4 * h / nic)), rel=1e-12)
    got = float(collective_times_s(hw, v3, wide, per_rank, tokens, 1)["all_to_all_time_s"])
    inside = tokens / 16 * 15 * rank_hit_probability(256, 8, 16, 8, 4)
    outside = tokens / 16 * 1 * rank_hit_probability(256, 8, 2, 8, 4)  # the other node, once
    transfer = max(inside * fp8 / up, outside * fp8 / nic)
    assert got == pytest.approx(v3.moe_layers * (2 * lat_wide + transfer), rel=1e-12)
    got = float(collective_times_s(hw, v3, wide, per_pair, tokens, 1)["all_to_all_time_s"])
    sent = tokens / 16 * 8 * 15 / 16 * (h * (1 + 4 / 128) + 2 * h)
    assert got == pytest.approx(v3.moe_layers * (2 * lat_wide + max(sent * 7 / 15 / up, sent * 8 / 15 / nic)), rel=1e-12)
    # twelve devices on 8-GPU nodes: the node of 4 reaches 8 of its 11 peers over the NIC
    assert hw.spread_transfer_s(12, 1.0)[0] == pytest.approx(max(3 / 11 / up, 8 / 11 / nic))


def test_an_engine_profiles_moe_dispatch_that_is_not_a_known_word_is_one_line():
    from roofline.errors import RooflineError
    from roofline.serving import engine_from_dict

    for value in (["per_pair"], {"a": 1}, "deepep"):
        with pytest.raises(RooflineError, match=r"moe_dispatch: expected per_rank \| per_pair \| allgather"):
            engine_from_dict({"type": "engine", "name": "x", "source": "a test", "moe_dispatch": value}, "x.yaml")


def test_a_tensor_parallel_all_reduce_across_nodes_rides_on_every_nic_of_the_node():
    """A tp 16 all-reduce over two 8-GPU nodes went through one NIC (DeepSeek-V3 on 16 H200, batch 128: 12 ms of a
    32.3 ms step, slower than tp 8), where NCCL runs a ring a NIC (qa66): the NIC carries (D - 1) / (D r) of the
    reduce-scatter's and the all-gather's data on each of the node's r NICs, at once with the NVLink share."""
    import roofline
    from roofline.hardware import load_hardware

    h200 = load_hardware("h200")
    v3 = load_model("deepseek-v3")
    from roofline.engine import lm_head_gather_time_s
    from roofline.serving import IDEAL

    sixteen = roofline.predict("h200", "deepseek-v3", 128, 4096, tp=16, engine="ideal")
    message = 128 * v3.hidden_size * 2  # one layer's activations
    nvlink = 2 * message * 7 / 8 / h200.link_for(8)[0]  # a reduce-scatter and an all-gather inside the node
    nic_bytes_per_s, nic_latency_s = h200.link_for(16)
    tree = message / 8 / nic_bytes_per_s  # two nodes: NCCL's tree, M / r on each NIC (qa69)
    head = float(lm_head_gather_time_s(h200, v3, deployment(v3, tp=16), IDEAL, 128.0, 128.0))  # the logits' all-gather
    # two a layer and the embedding's (qa152), each a tree over the two nodes
    assert head > 0 and sixteen["allreduce_time_s"] == pytest.approx((2 * 61 + 1) * (nic_latency_s + max(nvlink, tree)) + head, rel=1e-9)
    four_nodes = roofline.predict("h200", "deepseek-v3", 128, 4096, tp=32, engine="ideal")  # rings a NIC
    ring = 2 * message * 31 / (32 * 8) / nic_bytes_per_s
    head = float(lm_head_gather_time_s(h200, v3, deployment(v3, tp=32), IDEAL, 128.0, 128.0))
    assert four_nodes["allreduce_time_s"] == pytest.approx((2 * 61 + 1) * (nic_latency_s + max(nvlink, ring)) + head, rel=1e-9)
    eight = roofline.predict("h200", "deepseek-v3", 128, 4096, tp=8, engine="ideal")
    assert sixteen["step_time_s"] < eight["step_time_s"]  # half the weights a device, and the all-reduce on 8 NICs


@pytest.mark.parametrize("name, tp, pp", [("deepseek-v3", 8, 4), ("llama-3.1-70b", 2, 3)])
def test_a_round_trip_at_batch_1_crosses_every_layer_of_the_model_once(name, tp, pp):
    """One micro-batch passes each stage once: its operator time is the unpipelined pass's, every layer once. The
    busiest stage's pp times overstated it: DeepSeek-V3's three leading dense layers leave a stage of 16 MoE layers,
    4 x 16 = 64 MoE layers for its 58 (and 3 dense); Llama's 80 layers over pp 3, 3 x 27 = 81."""
    from roofline.serving import load_engine

    hw, model = load_hardware("h200"), load_model(name)
    for engine in (None, load_engine("vllm")):
        piped = step_metrics(hw, model, 1, 1, 4096, deployment(model, "fp8", tp=tp, pp=pp), engine=engine)
        whole = step_metrics(hw, model, 1, 1, 4096, deployment(model, "fp8", tp=tp), engine=engine)
        assert float(piped["operator_time_s"]) == pytest.approx(float(whole["operator_time_s"]), rel=1e-12)
        assert float(piped["allreduce_time_s"]) == pytest.approx(float(whole["allreduce_time_s"]), rel=1e-12)
        assert float(piped["step_time_s"]) > float(whole["step_time_s"])  # and it pays the stage boundaries


def test_an_indexers_kernels_are_paid_on_the_layers_that_have_one():
    """qa120: kernels_per_layer.indexer 1 charged DeepSeek-V4's 43 layers a kernel each, where 21 run an indexer."""
    from roofline.engine import operator_layers
    from roofline.serving import load_engine

    v4 = load_model("deepseek-v4-flash")
    dep = deployment(v4, tp=8)
    assert operator_layers(v4, "indexer", dep) == 21 and operator_layers(v4, "attention", dep) == 43
    # the busiest stage's own: layers 21-42 at pp 2 (21 / 22, the remainder last), CSA on the even ones, 22-42: 11
    assert deployment(v4, tp=4, pp=2).stage_counts(v4.layers) == [21, 22]
    assert operator_layers(v4, "indexer", deployment(v4, tp=4, pp=2)) == 11
    vllm = load_engine("vllm")
    counted = dataclasses.replace(vllm, kernels_per_layer={**vllm.kernels_per_layer, "indexer": 1})
    hw = load_hardware("h200")
    times = [step_metrics(hw, v4, 16, 1, 131072, dep, engine=e, with_operators=True)["operators"]["indexer"]["time_s"]
             for e in (vllm, counted)]
    assert float(times[1] - times[0]) == pytest.approx(21 * vllm.kernel_latency_s, rel=1e-9)


def test_the_moe_dispatch_sends_the_busiest_devices_tokens_not_the_mean():
    """qa119: at dp_attention 8 and batch 1 the one device holding the sequence sends its token, not 1/8 of one."""
    from roofline.engine import collective_times_s
    from roofline.serving import load_engine

    hw, v3 = load_hardware("h100-sxm"), load_model("deepseek-v3")
    per_pair = dataclasses.replace(load_engine("vllm").for_hardware(hw), moe_dispatch="per_pair")
    dep = deployment(v3, tp=1, dp_attention=8, ep=8)
    bw, lat = hw.link_for(8)
    lat_a2a = max(per_pair.all_to_all_latency_s, lat)
    h = v3.hidden_size
    got = float(collective_times_s(hw, v3, dep, per_pair, 1, 1)["all_to_all_time_s"])
    assert got == pytest.approx(v3.moe_layers * (2 * lat_a2a + 1 * 8 * 7 / 8 * (h * (1 + 4 / 128) + 2 * h) / bw), rel=1e-12)
    # two ranks a group: the rank holding the token sends it whole, not half of it (qa124)
    wide = deployment(v3, tp=2, dp_attention=8, ep=16)
    bw16, lat16 = hw.link_for(16)
    got = float(collective_times_s(hw, v3, wide, per_pair, 1, 1)["all_to_all_time_s"])
    transfer = hw.spread_transfer_s(16, 1 * 8 * 15 / 16 * (h * (1 + 4 / 128) + 2 * h))[0]
    assert got == pytest.approx(v3.moe_layers * (2 * max(per_pair.all_to_all_latency_s, hw.spread_transfer_s(16, 1.0)[1])
                                                 + transfer), rel=1e-12)


def test_a_dp_gather_by_all_reduce_moves_twice_the_bytes_and_a_decode_buffer_is_padded_to_the_busiest_group():
    """qa144 (SGLang's source): its 0.4 releases gathered every group's tokens with an all-reduce of a zero-padded
    buffer and all-reduced the outputs (twice an all-gather's and a reduce-scatter's bytes), and in CUDA graphs every
    rank's buffer is padded to the largest (max_len): 65 sequences over 8 groups gather 9 x 8 = 72 rows, not 65."""
    from roofline.engine import collective_times_s, gathered_tokens
    from roofline.serving import for_engine, load_engine

    hw, v3 = load_hardware("h200"), load_model("deepseek-v3")
    early = load_engine("sglang-early").for_hardware(hw)
    assert early.dp_gather == "allreduce" and load_engine("sglang").dp_gather == "allgather_decode"
    gathering = dataclasses.replace(early, dp_gather="allgather")
    dep = for_engine(deployment(v3, tp=1, dp_attention=8, ep=1), early, v3)
    h = v3.hidden_size * 2
    bw, lat = hw.link_for(8)
    lat = max(early.allreduce_latency_s, lat)
    for engine, passes in ((early, 2), (gathering, 1)):
        got = collective_times_s(hw, v3, dep, engine, 64.0, 1.0)
        assert float(got["moe_gather_time_s"]) == pytest.approx(
            2 * v3.moe_layers * (lat + 64 * passes * h * 7 / 8 / bw), rel=1e-12)
        assert float(got["dp_gather_time_s"]) == pytest.approx(
            v3.moe.dense_layers * (2 * lat + 64 * 2 * passes * h * 7 / 8 / bw), rel=1e-12)
    assert float(gathered_tokens(65.0, 1.0, dep)) == 72.0
    padded = collective_times_s(hw, v3, dep, gathering, 65.0, 1.0)["moe_gather_time_s"]
    eager = collective_times_s(hw, v3, dep, gathering, 65.0, 1.0, padded=False)["moe_gather_time_s"]
    assert float(padded) == pytest.approx(2 * v3.moe_layers * (lat + 72 * h * 7 / 8 / bw), rel=1e-12)
    assert float(eager) == pytest.approx(2 * v3.moe_layers * (lat + 65 * h * 7 / 8 / bw), rel=1e-12)
    # SGLang since 0.4.10 (qa146): all-gathers in a decode pass (CUDA graphs' max_len), all-reduces in a prefill (sum_len)
    current = dataclasses.replace(early, dp_gather="allgather_decode")
    assert float(collective_times_s(hw, v3, dep, current, 65.0, 1.0)["moe_gather_time_s"]) == pytest.approx(float(padded))
    assert float(collective_times_s(hw, v3, dep, current, 65.0, 1.0, padded=False)["moe_gather_time_s"]) == pytest.approx(
        2 * v3.moe_layers * (lat + 65 * 2 * h * 7 / 8 / bw), rel=1e-12)
    # the costs' side (qa146: reverting it left every test green): the dense MLP runs on the padded rows in a decode
    from roofline.engine import step_metrics

    m = step_metrics(hw, v3, 65, 1, 2048, dep, engine=early, with_operators=True)
    mlp_params = 3 * v3.hidden_size * v3.ffn_size  # a dense layer's gated MLP, split over the stage's 8 devices
    assert float(m["operators"]["mlp"]["flops"]) == pytest.approx(2 * mlp_params / 8 * 72 * v3.moe.dense_layers, rel=1e-9)
    prefill = step_metrics(hw, v3, 65, 1, 2048, dep, engine=early, with_operators=True, prefill=True)
    assert float(prefill["operators"]["mlp"]["flops"]) == pytest.approx(2 * mlp_params / 8 * 65 * v3.moe.dense_layers, rel=1e-9)


def test_a_tensor_parallel_lm_heads_logits_are_all_gathered_once_a_pass():
    """qa142: an LM head split over tp gathers every rank's vocabulary slice of the logits (vLLM's
    LogitsProcessor._gather_logits, TensorRT-LLM's gather_output, SGLang's logits processor); it cost nothing, though
    a verify pass's k + 1 logits a sequence make it grow with batch and k."""
    from roofline.engine import lm_head_gather_time_s, step_metrics
    from roofline.serving import for_engine, load_engine

    hw, m70 = load_hardware("h100-sxm"), load_model("llama-3.1-70b")
    vllm = load_engine("vllm").for_hardware(hw)
    bw, lat = hw.link_for(4)
    rows = 32 * 5  # batch 32, k = 4: five logit rows a sequence
    got = float(lm_head_gather_time_s(hw, m70, deployment(m70, tp=4), vllm, rows, rows))
    assert got == pytest.approx(max(vllm.allreduce_latency_s, lat) + rows * m70.vocab_size * 2 * 3 / 4 / bw, rel=1e-12)
    assert float(lm_head_gather_time_s(hw, m70, deployment(m70), vllm, rows, rows)) == 0  # one device: nothing to gather
    v3 = load_model("deepseek-v3")
    whole = for_engine(deployment(v3, tp=2, dp_attention=4, ep=8), load_engine("sglang-early"), v3)  # a replicated LM head
    assert "lm_head" in whole.whole and float(lm_head_gather_time_s(hw, v3, whole, vllm, 64.0, 16.0)) == 0
    from roofline.engine import collective_times_s

    step = step_metrics(hw, m70, 32, 1, 2048, deployment(m70, tp=4), engine=vllm)  # a decode step: one logit row each
    layers = collective_times_s(hw, m70, deployment(m70, tp=4), vllm, 32.0, 1.0)["allreduce_time_s"]  # two a layer
    head = lm_head_gather_time_s(hw, m70, deployment(m70, tp=4), vllm, 32.0, 32.0)
    embedding = max(vllm.allreduce_latency_s, lat) + 2 * 32 * m70.hidden_size * 2 * 3 / 4 / bw  # its all-reduce (qa152)
    assert float(step["allreduce_time_s"]) == pytest.approx(float(layers) + float(head) + embedding, rel=1e-12)  # reported with them
    assert float(layers) == pytest.approx(2 * 80 * embedding, rel=1e-12)  # the same collective as a layer's


@pytest.mark.slow
def test_allreduce_latency_is_used_where_only_the_stage_split_gathers_pay_it():
    """qa152: SGLang's dense-MLP and LM-head gathers over the stage pay allreduce_latency at tp 1 with a DeepEP dispatch;
    parameters_used said the point did not lean on it (no note where a profile leaves it unfitted)."""
    from roofline.engine import collective_times_s, lm_head_gather_time_s, parameters_used
    from roofline.serving import for_engine, load_engine

    hw, v3 = load_hardware("h200"), load_model("deepseek-v3")
    sglang = dataclasses.replace(load_engine("sglang").for_hardware(hw), moe_dispatch="per_rank")
    dep = for_engine(deployment(v3, tp=1, dp_attention=8, ep=8), sglang, v3)
    assert "mlp" in dep.stage_split and float(collective_times_s(hw, v3, dep, sglang, 65, 1)["dp_gather_time_s"]) > 0
    assert parameters_used(hw, v3, dep, sglang)["allreduce_latency"]
    # the LM head alone: a dense-free MoE model split over the stage still gathers its head's rows
    no_mlp = dataclasses.replace(dep, stage_split=("lm_head",))
    assert float(lm_head_gather_time_s(hw, v3, no_mlp, sglang, 65, 9)) > 0 and parameters_used(hw, v3, no_mlp, sglang)["allreduce_latency"]
    # and not where nothing pays it: one device, no gathers
    assert not parameters_used(hw, load_model("llama-3.1-8b"), deployment(load_model("llama-3.1-8b")), sglang)["allreduce_latency"]


@pytest.mark.slow
def test_an_lm_head_split_over_the_stage_runs_on_the_padded_gathered_rows_in_a_decode():
    """qa152: SGLang gathers the LM head's hidden states through the dense MLP's buffer, padded to the busiest group's
    rows in a decode (65 sequences over 8 groups: 72 rows); the head ran and gathered 65."""
    from roofline.engine import collective_times_s, lm_head_gather_time_s, step_metrics
    from roofline.serving import for_engine, load_engine

    hw, v3 = load_hardware("h200"), load_model("deepseek-v3")
    sglang = load_engine("sglang").for_hardware(hw)
    dep = for_engine(deployment(v3, tp=1, dp_attention=8, ep=8), sglang, v3)
    assert "lm_head" in dep.stage_split
    step = step_metrics(hw, v3, 65, 1, 2048, dep, engine=sglang, with_operators=True)
    layers = float(collective_times_s(hw, v3, dep, sglang, 65.0, 1.0)["dp_gather_time_s"])
    head = float(lm_head_gather_time_s(hw, v3, dep, sglang, 72.0, 9.0))
    assert float(step["dp_gather_time_s"]) == pytest.approx(layers + head, rel=1e-12)
    assert float(step["operators"]["lm_head"]["flops"]) == pytest.approx(2 * v3.lm_head_params / 8 * 72, rel=1e-12)
    # a prefill runs eagerly: its 65 prompts' last tokens, unpadded
    prefill = step_metrics(hw, v3, 65, 128, 0, dep, engine=sglang, logit_tokens=1, prefill=True, with_operators=True)
    assert float(prefill["operators"]["lm_head"]["flops"]) == pytest.approx(2 * v3.lm_head_params / 8 * 65, rel=1e-12)


@pytest.mark.slow
def test_vllms_moe_gather_without_sequence_parallelism_runs_over_the_data_parallel_ranks_and_the_embedding_reduces_where_split():
    """qa155: the ranks vLLM's gather runs over without its sequence-parallel MoE (the dp_attention ranks of one tp
    index, not the stage's D), and where the embedding's all-reduce is paid (split over tp: yes; held whole under
    SGLang's attention DP: no), were pinned by no test: either could change without a failure."""
    from roofline.engine import collective_times_s, embedding_reduce_time_s
    from roofline.serving import for_engine, load_engine

    hw, mixtral = load_hardware("h200"), load_model("mixtral-8x7b")
    vllm = load_engine("vllm").for_hardware(hw)
    bw, link_lat = hw.link_for(8)
    lat = max(vllm.allreduce_latency_s, link_lat)
    h = mixtral.hidden_size
    # ep 8: the allgather dispatch's ring over the 4 data-parallel ranks, each group's 17 rows padded (65 over 4: 68)
    dep = for_engine(deployment(mixtral, tp=2, dp_attention=4, ep=8), vllm, mixtral)
    got = float(collective_times_s(hw, mixtral, dep, vllm, 65.0, 1.0)["all_to_all_time_s"])
    assert got == pytest.approx(mixtral.moe_layers * (2 * lat + 68 * 2 * h * 2 * 3 / 4 / bw), rel=1e-12)
    # ep 1: each expert split over the stage's 8 devices, gathered and reduce-scattered over the same 4 ranks
    ep1 = for_engine(deployment(mixtral, tp=2, dp_attention=4), vllm, mixtral)
    got = float(collective_times_s(hw, mixtral, ep1, vllm, 65.0, 1.0)["moe_gather_time_s"])
    assert got == pytest.approx(2 * mixtral.moe_layers * (lat + 68 * h * 2 * 3 / 4 / bw), rel=1e-12)
    # the embedding's all-reduce: split over tp, a layer's all-reduce of the group's rows; held whole, none
    v3, sglang = load_model("deepseek-v3"), load_engine("sglang").for_hardware(hw)
    split = for_engine(deployment(v3, tp=8), sglang, v3)
    bw8 = hw.link_for(8)[0]
    assert float(embedding_reduce_time_s(hw, v3, split, sglang, 64.0)) == pytest.approx(
        max(sglang.allreduce_latency_s, link_lat) + 2 * 64 * v3.hidden_size * 2 * 7 / 8 / bw8, rel=1e-12)
    whole = for_engine(deployment(v3, tp=2, dp_attention=4, ep=8), sglang, v3)
    assert "embedding" in whole.whole and float(embedding_reduce_time_s(hw, v3, whole, sglang, 16.0)) == 0



def test_a_pipeline_hand_off_sends_hidden_states_and_residual_a_slice_a_tp_rank_then_all_gathers():
    """qa245: vLLM and SGLang send the hidden states and the residual, each tp rank its 1/tp slice
    (send_tensor_dict(..., all_gather_group=tp)), the next stage all-gathering them; one rank sending the hidden states
    whole was 4x a NIC's bytes at tp 8. By hand, Llama-3.1-70B tp 4 pp 2 on H100 (NVLink 378 GB/s achievable, 3 us),
    batch 64: micro-batches of 32 tokens, 2 x 32 x 8192 x 2 B = 1,048,576 B a boundary, 262,144 B a rank."""
    from roofline.engine import p2p_time_s
    from roofline.serving import IDEAL

    hw, model = load_hardware("h100-sxm"), load_model("llama-3.1-70b")
    sent, bw, lat = 2 * 32 * 8192 * 2, 378e9, 3e-6
    gather = lat + sent * 3 / 4 / bw  # a ring pass over the 4 ranks of a stage
    expected = (lat + sent / 4 / bw + gather) + lat  # to stage 2; back to stage 1 the sampled tokens alone (qa247)
    assert float(p2p_time_s(hw, model, deployment(model, tp=4, pp=2), IDEAL, 32)) == pytest.approx(expected, rel=1e-9)
    assert float(p2p_time_s(hw, model, deployment(model, pp=2), IDEAL, 32)) == pytest.approx(2 * lat + sent / bw, rel=1e-9)
    # under attention DP a rank sends its own group's tokens (the caller gives the busiest group's: 8 of 32 over 4)
    v3 = load_model("deepseek-v3")
    dp = float(p2p_time_s(hw, v3, deployment(v3, dp_attention=4, ep=4, pp=2), IDEAL, 8))
    assert dp == pytest.approx(2 * lat + 2 * 8 * 7168 * 2 / bw, rel=1e-9)
    # qa251: step_metrics gives the busiest group's tokens of a micro-batch, ceil(10 / 8) = 2 at batch 20, pp 2, dp 8
    dep8 = deployment(v3, dp_attention=8, ep=8, pp=2)
    assert float(step_metrics(hw, v3, 20, 1, 4096, dep8)["p2p_time_s"]) == pytest.approx(
        float(p2p_time_s(hw, v3, dep8, IDEAL, 2)), rel=1e-12)


def test_a_strided_data_parallel_group_spans_the_nodes_its_ranks_lie_in():
    """qa251: vLLM's data-parallel group of one tp index (every tp-th rank) at tp 2 x dp 8 lies on two nodes, 4 a node;
    its MoE gather was priced on NVLink alone."""
    from roofline.engine import _ring_pass_s

    hw = load_hardware("h200")
    up_bw, _ = hw.link_for(hw.scale_up_domain)
    out_bw, out_lat = hw.link_for(16)
    n = 3.67e6
    seconds, latency = _ring_pass_s(hw, 8, n, stride=2)
    assert latency == out_lat and float(seconds) == pytest.approx(max(n * 3 / 4 / up_bw, n * 7 / 32 / out_bw))
    assert _ring_pass_s(hw, 4, n, stride=2) == _ring_pass_s(hw, 4, n)  # 8 ranks' span: one node, as before
    v3 = load_model("deepseek-v3")
    from roofline.serving import load_engine

    vllm = load_engine("vllm").for_hardware(hw)
    two = step_metrics(hw, v3, 256, 1, 4096, deployment(v3, tp=2, dp_attention=8), engine=vllm)["moe_gather_time_s"]
    one = step_metrics(hw, v3, 256, 1, 4096, deployment(v3, tp=1, dp_attention=8), engine=vllm)["moe_gather_time_s"]
    assert float(two) > 1.5 * float(one)  # the NIC paces the two-node ring


def test_a_steps_kv_read_counts_each_of_its_groups_sequences_once_under_attention_dp_and_pp():
    """qa251: DeepSeek-V3 at dp_attention 8, ep 8, pp 2, batch 20: two micro-batches of ceil(10 / 8) = 2 sequences a
    group read 4 sequences' caches of the 3 the busiest group holds (566 MB of 425 MB). (The read is the busiest
    stage's, the cache the memory stage's: on an uneven split they differ by a layer, qa252.)"""
    import roofline

    p = roofline.predict("h200", "deepseek-v3", 20, 4096, dp_attention=8, ep=8, pp=2)
    assert p["kv_read_bytes_per_device"] <= p["kv_bytes"] * (1 + 1e-9)
    assert p["kv_read_bytes_per_device"] == pytest.approx(p["kv_bytes"], rel=0.01)


def test_a_strided_groups_ring_counts_its_ranks_in_each_domain_and_their_own_links():
    """qa252: on GB200 (72 a domain) tp 16 x dp 8 puts 5 of the group's ranks in the first domain and 3 in the second
    (4 and 4 were assumed), and on an MI300X mesh 2 of a group's ranks in a node share one link, not seven; vLLM's
    rank order (ExternalDP x DP x PP x TP) puts a DP group's ranks pp x tp apart."""
    from roofline.engine import _ring_pass_s

    gb = load_hardware("gb200")
    n = 1e8
    out_bw, out_lat = gb.link_for(8 * 16)
    up_bw, _ = gb.link_for(5)
    seconds, latency = _ring_pass_s(gb, 8, n, stride=16)
    assert latency == out_lat and float(seconds) == pytest.approx(max(n * 4 / 5 / up_bw, n * 7 / (8 * 3) / out_bw))
    mi = load_hardware("mi300x")
    two_bw, _ = mi.link_for(2)
    seconds, _ = _ring_pass_s(mi, 4, n, stride=4)  # ranks 0, 4 | 8, 12: two a node, on one xGMI link
    assert float(seconds) == pytest.approx(max(n / 2 / two_bw, n * 3 / 8 / mi.link_for(16)[0]))
    from roofline.serving import load_engine

    v3, h200 = load_model("deepseek-v3"), load_hardware("h200")
    vllm = load_engine("vllm").for_hardware(h200)
    flat = step_metrics(h200, v3, 64, 1, 4096, deployment(v3, tp=2, dp_attention=4), engine=vllm)["moe_gather_time_s"]
    piped = step_metrics(h200, v3, 64, 1, 4096, deployment(v3, tp=2, dp_attention=4, pp=2), engine=vllm)
    assert float(piped["moe_gather_time_s"]) > float(flat)  # ranks 0, 4, 8, 12 of 16: two nodes, the NIC


def test_a_shared_prefix_is_read_once_a_pass_under_attention_dp_and_pp():
    """qa252: the read scaled by B_a / B_a,mb counted the prefix 1.5 times a step and fell from batch 16 to 20."""
    import roofline

    reads = [roofline.predict("h200", "deepseek-v3", b, 4096, dp_attention=8, ep=8, pp=2, engine="sglang",
                              shared_prefix=3072)["kv_read_bytes_per_device"] for b in (16, 20)]
    assert reads[1] >= reads[0]


@pytest.mark.slow
def test_a_micro_batchs_own_host_work_counts_its_busiest_groups_whole_sequences():
    """qa292: under pp 2 with dp_attention 4 a micro-batch's share of the host work was t_host / m, with half a
    sequence of host work at batch 2 (B_a / m = 1 / 2), which made batch 2 faster than batch 1."""
    import roofline
    from roofline.serving import load_engine

    sglang = load_engine("sglang")
    kw = dict(dp_attention=4, ep=4, pp=2, engine="sglang")
    steps = [roofline.predict("h200", "gpt-oss-120b", b, 2048, **kw) for b in (1, 2, 3, 8)]
    times = [p["step_time_s"] for p in steps]
    assert times == sorted(times)  # never faster with more sequences
    one_seq = sglang.host_per_step_s + sglang.host_per_sequence_s  # 1 sequence in a micro-batch's busiest group
    assert steps[1]["host_microbatch_s"] == pytest.approx(one_seq) and steps[0]["host_microbatch_s"] == pytest.approx(one_seq)
    # batch 8: 4 a micro-batch, one a group
    assert steps[3]["host_microbatch_s"] == pytest.approx(one_seq)
    assert steps[3]["host_time_s"] == pytest.approx(2 * sglang.host_per_step_s + 2 * sglang.host_per_sequence_s)
    # the busiest micro-batch's whole sequences at dp_attention 1 too (qa293: 1.5 of batch 3 over pp 2)
    vllm = load_engine("vllm")
    three = roofline.predict("h100-sxm", "llama-3.1-70b", 3, 1024, tp=4, pp=2)
    assert three["host_microbatch_s"] == pytest.approx(vllm.host_per_step_s + 2 * vllm.host_per_sequence_s)


def test_a_cached_prefix_is_not_prefilled_again_and_its_tokens_are_attended_to():
    """qa347-qa349: ttft_s and arrival_stall_s of a prompt past a shared prefix the engine caches (prefix_cached): the
    new tokens alone, attending to the cached ones, at most P - 1 cached; an engine that caches none prefills it whole;
    a mixed prefill's stall takes the attention to the cached tokens too (qa348's surviving mutants)."""
    import dataclasses

    from roofline.engine import arrival_stall_s, cached_prefix_tokens, ttft_s
    from roofline.layout import deployment
    from roofline.serving import IDEAL, load_engine

    hw, model = load_hardware("h100-sxm"), load_model("llama-3.1-8b")
    dep, vllm = deployment(model), load_engine("vllm").for_hardware(hw)
    uncached = dataclasses.replace(vllm, prefix_cached=False)
    assert cached_prefix_tokens(vllm, 2000, 1500) == 1500 and cached_prefix_tokens(vllm, 2000, 5000) == 1999
    assert cached_prefix_tokens(uncached, 2000, 1500) == 0
    whole, rest = float(ttft_s(hw, model, 2000, dep, vllm)), float(ttft_s(hw, model, 2000, dep, vllm, 1500))
    new_alone = float(ttft_s(hw, model, 500, dep, vllm))
    assert new_alone < rest < whole  # the 500 new tokens, attending to the 1,500 cached ones
    assert float(ttft_s(hw, model, 2000, dep, uncached, 1500)) == whole
    assert float(ttft_s(hw, model, 2000, dep, vllm, 5000)) < new_alone  # one token computed, 1,999 cached
    stall = float(arrival_stall_s(hw, model, 2000, 16, dep, vllm, 1, 1500))
    assert float(arrival_stall_s(hw, model, 500, 16, dep, vllm, 1)) < stall <= rest  # attends to the cached 1,500
    assert float(arrival_stall_s(hw, model, 2000, 16, dep, vllm, 1)) > stall  # the whole prompt's stall is longer
    sglang = load_engine("sglang").for_hardware(hw)  # a prefill apart: the stall is the request's own (cached) prefill
    assert float(arrival_stall_s(hw, model, 2000, 16, dep, sglang, 1, 1500)) == float(ttft_s(hw, model, 2000, dep, sglang, 1500))
    assert float(ttft_s(hw, model, 2000, dep, None, 1500)) == float(ttft_s(hw, model, 2000, dep, IDEAL, 1500))  # None: ideal's


def test_every_serving_engine_profile_says_whether_it_caches_prefixes():
    from roofline.serving import load_engine

    assert {n: load_engine(n).prefix_cached for n in ("vllm", "vllm-v0", "sglang", "sglang-early", "trtllm", "ideal")} == {
        "vllm": True, "vllm-v0": False, "sglang": True, "sglang-early": True, "trtllm": True, "ideal": True}


def test_serving_terms_are_a_benchmarks_figures_term_by_term():
    """engine.serving_terms, which predict's serving lines and a sweep's serving columns both take (before-stop mend:
    the equations were written in each): by hand at B = 4, O = 100, t_token 10 ms, t_pass 12 ms, stall 50 ms."""
    from roofline.engine import serving_terms

    t = serving_terms(0.010, 0.012, 0.050, 0.040, 4, 100, 2.0)
    assert t["time_per_output_token_s"] == pytest.approx(0.010 + 3 * 0.050 / 100)
    assert t["ttft_s"] == pytest.approx(0.012 + 0.050) and serving_terms(0.010, 0.012, 0.050, 0.040, 1, 100)["ttft_s"] == 0.040
    assert t["tokens_per_s"] == pytest.approx(4 / (0.010 + 4 * 0.050 / 100))
    assert t["cost_usd_per_million_tokens"] == pytest.approx(2.0 * (0.010 + 4 * 0.050 / 100) / 0.010)
    assert "cost_usd_per_million_tokens" not in serving_terms(0.010, 0.012, 0.050, 0.040, 4, 100)
    # a lone request's prefill runs alone: its own pass, not a stall beside a decoding sequence (qa359: the sweep's
    # batch-1 throughput 0.2% off accuracy's)
    one = serving_terms(0.010, 0.012, 0.050, 0.040, 1, 100, 2.0)
    assert one["tokens_per_s"] == pytest.approx(1 / (0.010 + 0.040 / 100))
    assert one["cost_usd_per_million_tokens"] == pytest.approx(2.0 * (0.010 + 0.040 / 100) / 0.010)
    assert one["time_per_output_token_s"] == 0.010


def test_a_mixed_prefill_stall_prices_the_prompts_own_attention_not_one_to_the_decoding_tokens():
    """qa352: t_pass(B q + P) - t_pass(B q) priced one sequence of B q + P tokens, the prompt attending to every
    decoding token's key: on DeepSeek-V3 with attention DP 8 the stall grew 67.6 -> 95.5 ms from B q = 64 to 2,048 (the
    pass's added attention 3x the prompt's own, the cross term twice it), and MTP's serving speedup at batch 512 came out
    1.03x. The stall's attention is now the prompt's own: it grows with B q only by the wider pass's GEMMs (within 5%)."""
    from roofline.engine import ATTENTION_OPERATORS, _attention_s, arrival_stall_s, step_metrics
    from roofline.layout import deployment
    from roofline.serving import load_engine

    hw, model = load_hardware("h200"), load_model("deepseek-v3")
    dep, vllm = deployment(model, tp=1, dp_attention=8, ep=8), load_engine("vllm").for_hardware(load_hardware("h200"))
    stalls = [float(arrival_stall_s(hw, model, 2000, b, dep, vllm, q)) for b, q in ((64, 1), (512, 1), (512, 4))]
    assert stalls[0] < stalls[1] < stalls[2] < 1.05 * stalls[0], stalls
    # the term taken out: the attention pairs between the 2,000 new tokens and the 2,048 decoding ones, by hand from
    # the passes' attention operators (their kernel latencies aside)
    one = {n: step_metrics(hw, model, 1, t, 0, dep, engine=vllm, logit_tokens=lt, prefill=True, with_operators=True)
           for n, t, lt in (("with", 2048 + 2000, 512), ("without", 2048, 512), ("alone", 2000, 1))}

    def attention(m):
        return sum(float(m["operators"][n]["time_s"] - m["operators"][n]["kernel_latency_s"]) for n in ("attention", "indexer"))

    naive = float(one["with"]["step_time_s"] - one["without"]["step_time_s"])
    cross = attention(one["with"]) - attention(one["without"]) - attention(one["alone"])
    assert stalls[2] == pytest.approx(naive - cross) and cross > 0.25 * stalls[2]
    assert cross == pytest.approx(float(_attention_s(hw, model, dep, vllm, 4048, 512) - _attention_s(hw, model, dep, vllm, 2048, 512)
                                        - _attention_s(hw, model, dep, vllm, 2000, 1)))
    assert set(ATTENTION_OPERATORS) == {"attention", "indexer"}
    # under pp, every layer's attention once, as without it (qa353: the busiest stage's scaled, gpt-oss's full-attention
    # layers on every stage, +23% at pp 8); the same device a stage
    oss = load_model("gpt-oss-120b")
    flat = float(_attention_s(hw, oss, deployment(oss), vllm, 6000, 1))
    for pp in (4, 8):
        assert float(_attention_s(hw, oss, deployment(oss, pp=pp), vllm, 6000, 1)) == pytest.approx(flat, rel=1e-6), pp


def test_a_qk_norm_over_all_heads_adds_one_small_all_reduce_a_layer_under_tp():
    """MiniMax-M2's QK norm spans all heads (qk_norm_all_heads): split over tp 8, each of its 62 layers all-reduces the
    norm's q and k sums of squares, T_a x 2 x 4 bytes: 62 more collectives, each the engine's latency plus that
    message's transfer; at tp 1 nothing (qa447; vLLM's MiniMaxText01RMSNormTP, SGLang's MiniMaxM2QKRMSNorm)."""
    from roofline.engine import _tp_allreduce_s, collective_times_s
    from roofline.serving import load_engine

    hw, model = load_hardware("h100-sxm"), load_model("minimax-m2.7")
    assert model.qk_norm_all_heads and model.layers == 62
    engine = load_engine("sglang").for_hardware(hw)
    plain = dataclasses.replace(model, qk_norm_all_heads=False)
    for tp, batch in ((8, 1), (8, 16), (1, 16)):
        dep = deployment(model, tp=tp, ep=tp)
        kernels_with, kernels_without = {}, {}
        with_norm = collective_times_s(hw, model, dep, engine, batch, 1.0, kernels=kernels_with)["allreduce_time_s"]
        without = collective_times_s(hw, plain, dep, engine, batch, 1.0, kernels=kernels_without)["allreduce_time_s"]
        added = 62 * _tp_allreduce_s(hw, dep, engine, batch * 2 * 4) if tp > 1 else 0.0
        assert float(with_norm - without) == pytest.approx(float(added), rel=1e-12, abs=1e-15)
        assert kernels_with.get("allreduce_time_s", 0) - kernels_without.get("allreduce_time_s", 0) == (62 if tp > 1 else 0)
    assert 62 * 6e-6 <= float(_tp_allreduce_s(hw, deployment(model, tp=8, ep=8), engine, 8.0)) * 62 < 62 * 7e-6  # 6 us each
