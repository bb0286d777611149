"""Where the engine's terms enter a step (engine.py): behaviour the suite did not pin (qa457's mutation survivors).

Each test names the mutant it kills; every expected value is worked from the docstrings by hand."""

import dataclasses

import pytest

from roofline.engine import attention_memory_ceiling, parameters_used, step_metrics, unfitted_family_note, weight_only_note
from roofline.hardware import load_hardware
from roofline.layout import deployment
from roofline.model import load_model
from roofline.serving import IDEAL, load_engine

H100 = load_hardware("h100-sxm")
A100 = load_hardware("a100-sxm-80gb")
MI300X = load_hardware("mi300x")
LLAMA = load_model("llama-3.1-8b")  # 32 layers, 8 KV heads
QWEN_MOE = load_model("qwen3-30b-a3b")


def test_an_ngram_point_leans_on_no_draft_step_cost():
    """parameters_used: n-gram lookup drafts on the host in no draft step (qa293), so spec_per_draft_step is not used;
    a drafting method's point uses it. Kills `and method != "ngram"` dropped."""
    dep = deployment(LLAMA)
    vllm = load_engine("vllm")
    ngram = parameters_used(H100, LLAMA, dep, vllm, speculating=True, method="ngram")
    eagle = parameters_used(H100, LLAMA, dep, vllm, speculating=True, method="eagle")
    assert ngram["spec_per_draft_step"] is False and ngram["spec_per_iteration"] is True
    assert eagle["spec_per_draft_step"] is True


@pytest.mark.parametrize("q, w, used", [(0.7, 0.8, (True, False)), (0.8, 0.8, (True, True)), (0.9, 0.8, (False, True))])
def test_dequantising_fp8_experts_lean_on_the_lower_efficiency_and_on_both_where_they_tie(q, w, used):
    """fp8 experts on an A100 (no fp8 tensor cores) run a quantised fused-MoE kernel that dequantises: eta =
    min(q, w), so the lower parameter sets it, and at a tie both do. The other weights in bf16 (no other GEMM
    dequantises). Kills `q <= w` -> `q < w`."""
    dep = deployment(QWEN_MOE, "bf16", expert_dtype="fp8")
    engine = dataclasses.replace(IDEAL, name="e", quantised_moe_efficiency=q, weight_only_efficiency=w)
    got = parameters_used(A100, QWEN_MOE, dep, engine)
    assert (got["quantised_moe_efficiency"], got["weight_only_efficiency"]) == used


def test_a_pipeline_hand_off_leans_on_the_allreduce_latency():
    """p2p_time_s pays max(the engine's allreduce_latency, the link's) at each hand-off, so a pp 2 point at tp 1 uses
    allreduce_latency (parameters_used), and a 1 ms latency moves its step. Kills `or dep.pp > 1` dropped."""
    dep = deployment(LLAMA, pp=2)
    assert parameters_used(H100, LLAMA, dep, IDEAL)["allreduce_latency"] is True
    assert parameters_used(H100, LLAMA, deployment(LLAMA), IDEAL)["allreduce_latency"] is False  # tp 1, pp 1: none
    slow = dataclasses.replace(IDEAL, name="e", allreduce_latency_s=1e-3)
    base = step_metrics(H100, LLAMA, 2, 1, 1024, dep)["p2p_time_s"]
    # one forward hand-off (pp - 1 = 1) and the return: two latencies, each now 1 ms
    assert float(step_metrics(H100, LLAMA, 2, 1, 1024, dep, engine=slow)["p2p_time_s"]) == pytest.approx(
        float(base) - 2 * H100.link_for(1)[1] + 2e-3)


def test_fp8_weights_that_a_device_dequantises_launch_no_quantisation_kernels():
    """_operator_time_s counts quant_kernels_per_gemm where the GEMM computes in fp8 / fp4 / int8 on the device: fp8
    weights on an A100 compute in bf16 (weight-only), so the MLP launches its kernels_per_layer only; on an H100 two
    quantisation kernels more (gate-up, down). Kills the weight dtype taken for the compute dtype."""
    engine = dataclasses.replace(IDEAL, name="e", kernel_latency_s=1e-6, kernels_per_layer={"mlp": 3},
                                 quant_kernels_per_gemm=1)
    dep = deployment(LLAMA, "fp8")
    a100 = step_metrics(A100, LLAMA, 1, 1, 1024, dep, engine=engine, with_operators=True)["operators"]["mlp"]
    h100 = step_metrics(H100, LLAMA, 1, 1, 1024, dep, engine=engine, with_operators=True)["operators"]["mlp"]
    assert float(a100["kernel_latency_s"]) == pytest.approx(32 * 3 * 1e-6)
    assert float(h100["kernel_latency_s"]) == pytest.approx(32 * (3 + 2) * 1e-6)


def test_routed_experts_are_not_padded_to_the_tile():
    """pad_o is 1 for the routed experts (their rows per expert vary); another weight GEMM's rows, 1 token at batch 1,
    are padded to 64: 64x its FLOPs. Kills the experts put among PADDED_GEMMS."""
    engine = dataclasses.replace(IDEAL, name="e", gemm_tile_rows=64)
    ops = step_metrics(H100, QWEN_MOE, 1, 1, 1024, engine=engine, with_operators=True)["operators"]
    assert float(ops["experts"]["padded_flops"]) == float(ops["experts"]["flops"])
    assert float(ops["qkv_proj"]["padded_flops"]) == pytest.approx(64 * float(ops["qkv_proj"]["flops"]))


def test_an_engines_overlap_exponent_replaces_the_devices():
    """p = the engine's overlap exponent, else the hardware profile's (an engine's p replaces a calibrated device's).
    Kills the precedence swapped."""
    calibrated = dataclasses.replace(H100, overlap_exponent=2.0)
    engine = dataclasses.replace(IDEAL, name="e", overlap_exponent=4.0)
    bare = dataclasses.replace(H100, overlap_exponent=None)
    at = dict(batch=256, q=1, context=1024)  # near the ridge, where p matters
    with_engine = float(step_metrics(calibrated, LLAMA, at["batch"], at["q"], at["context"], engine=engine)["step_time_s"])
    assert with_engine == float(step_metrics(bare, LLAMA, at["batch"], at["q"], at["context"], engine=engine)["step_time_s"])
    assert with_engine != float(step_metrics(calibrated, LLAMA, at["batch"], at["q"], at["context"])["step_time_s"])


def test_a_kv_head_replicated_over_tp_is_one_stream_a_sequence():
    """attention_memory_ceiling: h_kv = ceil(kv_heads / tp), one head replicated once tp > kv_heads: 8 KV heads at tp 16
    hold 1 a device, so 4 sequences are 4 streams: min(attention_memory, 4 x attention_stream). Kills the ceil made a
    floor (0 heads, 1 stream)."""
    seventy = load_model("llama-3.1-70b")  # 64 heads, 8 KV heads
    hw = dataclasses.replace(H100, attention_stream_bytes_per_s=10e9)
    dep = deployment(seventy, tp=16)
    assert float(attention_memory_ceiling(hw, seventy, dep, 4)) == pytest.approx(4 * 10e9)
    assert float(attention_memory_ceiling(hw, seventy, deployment(seventy, tp=4), 4)) == pytest.approx(4 * 2 * 10e9)


def test_a_parameter_no_row_of_the_whole_profile_determined_is_left_to_the_undetermined_note():
    """unfitted_family_note says a family's unfitted value only where some row of the profile determined it; one no
    row determined at all is undetermined_note's. Kills `not engine.undetermined(p, hw)` dropped."""
    fitted = {"parameters": ["kernel_latency"], "not_determined_by_rows": ["kernel_latency [AMD Instinct]"]}
    engine = dataclasses.replace(IDEAL, name="mine", kernel_latency_s=2e-6, kernels_per_layer={"mlp": 2}, fitted=fitted)
    dep = deployment(LLAMA)
    assert "no fit row of AMD Instinct determines it" in unfitted_family_note(MI300X, LLAMA, dep, engine)
    nowhere = dataclasses.replace(engine, fitted={**fitted, "not_determined_by_rows": ["kernel_latency",
                                                                                       "kernel_latency [AMD Instinct]"]})
    assert unfitted_family_note(MI300X, LLAMA, dep, nowhere) == ""


def test_the_weight_only_note_says_dequantising_experts_take_the_lower_efficiency():
    """weight_only_note: where routed experts dequantise it adds that they run at the lower of the two efficiencies;
    a dense model has none to say. Kills the experts clause dropped."""
    moe = weight_only_note(A100, deployment(QWEN_MOE, "fp8"), QWEN_MOE)
    assert moe.startswith("fp8 weights on a100-sxm-80gb") and moe.endswith(
        "(routed experts: the lower of it and its quantised_moe_efficiency)")
    dense = weight_only_note(A100, deployment(LLAMA, "fp8"), LLAMA)
    assert dense.startswith("fp8 weights on a100-sxm-80gb") and "routed experts" not in dense


def test_a_pipeline_over_two_domains_crosses_the_scale_out_link_once_forward_and_on_the_return():
    """p2p_time_s at tp 1, pp 16 on H100s (8 a scale-up domain): 16 devices span 2 domains, so of the 15 forward
    hand-offs min(pp, domains) - 1 = 1 crosses the scale-out link and 14 stay on NVLink, and the return to the first
    stage pays the scale-out latency. One token: 2 x 4096 x 2 B = 16,384 B a hand-off (hidden states and residual).
    Kills `min(pp, domains) - 1` -> `pp - 1` and the return's latency taken inside."""
    from roofline.engine import p2p_time_s

    dep = deployment(LLAMA, pp=16)
    in_bw, in_lat = H100.link_for(1)
    out_bw, out_lat = H100.link_for(16)
    assert (in_lat, out_lat) == (3e-6, 20e-6) and in_bw > out_bw  # NVLink, then the NIC
    nbytes = 2 * 1 * LLAMA.hidden_size * 2
    expected = 14 * (in_lat + nbytes / in_bw) + 1 * (out_lat + nbytes / out_bw) + out_lat
    assert float(p2p_time_s(H100, LLAMA, dep, IDEAL, 1)) == pytest.approx(expected)
    inside = deployment(LLAMA, pp=8)  # one domain: 7 hand-offs and the return, all on NVLink
    assert float(p2p_time_s(H100, LLAMA, inside, IDEAL, 1)) == pytest.approx(7 * (in_lat + nbytes / in_bw) + in_lat)
