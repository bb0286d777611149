"""Figures of roofline.predict that the suite did not pin (api.py), found by mutation testing (qa475)."""

import pytest

import roofline

pytestmark = pytest.mark.slow  # each predicts: 50-500 ms a test


def test_plain_throughputs_are_the_batch_over_the_step_per_user_and_per_device():
    """docs/API.md: tokens_per_s is the deployment's, tokens_per_s_per_user one sequence's (1 / step) and
    tokens_per_s_per_device plain decoding's over the layout's devices."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", batch=8, context=2048, tp=2)
    step = p["step_time_s"]
    assert p["devices"] == 2
    assert p["tokens_per_s"] == pytest.approx(8 / step, rel=1e-12)
    assert p["tokens_per_s_per_user"] == pytest.approx(1 / step, rel=1e-12)
    assert p["tokens_per_s_per_device"] == pytest.approx(8 / step / 2, rel=1e-12)


def test_memory_efficiencies_name_an_engine_efficiency_just_below_one():
    """memory_efficiencies maps the operators an engine efficiency puts below their ceiling (below 0.995) to that
    share: int4 weights on an H100 are weight-only GEMMs (dequantised as they are read), so an engine whose
    weight_only_efficiency is 0.95 puts qkv_proj, o_proj and mlp at 0.95; the LM head keeps its native bf16."""
    import dataclasses

    eng = dataclasses.replace(roofline.load_engine("vllm"), name="vllm-qa475", weight_only_efficiency=0.95)
    p = roofline.predict("h100-sxm", "llama-3.1-8b", batch=8, weight_dtype="int4", engine=eng)
    assert p["main_gemm_weight_only"] is True
    assert p["memory_efficiencies"] == {"qkv_proj": 0.95, "o_proj": 0.95, "mlp": 0.95}
    assert p["memory_ceilings_measured"] == {}


def test_a_tp_group_past_its_scale_up_domain_keeps_the_domains_link_latency():
    """h100-sxm: an 8-GPU NVLink domain, link_latency 3 us, scale_out_latency 20 us. At tp 16 the group spans two
    domains: tp_link_latency_s is the scale-up link's own (3 us, which a collective inside a domain pays at least), the
    20 us the scale-out link's (tp_scale_out_latency_s); the bandwidths likewise (450 GB/s x 0.84 link efficiency)."""
    p = roofline.predict("h100-sxm", "llama-3.1-70b", batch=8, tp=16)
    assert p["scale_up_domains"] == 2
    assert p["tp_link_latency_s"] == pytest.approx(3e-6)
    assert p["tp_scale_out_latency_s"] == pytest.approx(20e-6)
    assert p["tp_link_bytes_per_s"] == pytest.approx(450e9 * 0.84)


@pytest.mark.parametrize("tp, share", [(1, 0.88), (2, 0.87), (4, 0.85), (8, 0.81)])
def test_engine_memory_fraction_is_the_share_for_the_replicas_devices(tp, share):
    """sglang-early.yaml: memory_fraction 0.88 at tp 1, memory_fraction_by_devices {2: 0.87, 4: 0.85, 8: 0.81}:
    engine_memory_fraction is the share applied to a replica of tp devices, as usable_memory_text says it."""
    p = roofline.predict("h100-sxm", "llama-3.1-70b", batch=8, tp=tp, engine="sglang-early")
    assert p["engine_memory_fraction"] == pytest.approx(share)
    assert p["usable_memory_text"].startswith(f"sglang-early's {share:g} at {tp} device")


def test_the_sequence_cap_counts_each_attention_dp_group():
    """vllm's max_num_seqs, 1,024, holds in each attention-DP group (docs/API.md, capacity.default_sequences): 8,192
    over 8 groups of one device, 1,024 for tp 8 on the same 8 devices."""
    groups = roofline.predict("h100-sxm", "deepseek-v3", batch=64, dp_attention=8, ep=8)
    assert groups["devices"] == 8 and groups["sequence_cap"] == 8 * 1024
    assert roofline.predict("h100-sxm", "deepseek-v3", batch=64, tp=8)["sequence_cap"] == 1024


@pytest.mark.parametrize("dp, cap", [(1, 48), (5, 5 * (48 // 5)), (32, 32)])
def test_the_speculating_cap_is_each_attention_dp_groups_floor_share(dp, cap):
    """SGLang resets --max-running-requests to 48 while speculating and divides it over the attention-DP groups, each
    taking floor(48 / d) (serving.running_cap_speculating): 45 over 5 groups, 32 over 32 (one each)."""
    p = roofline.predict("h100-sxm", "deepseek-v3", batch=64, dp_attention=dp, ep=dp, engine="sglang") if dp == 32 else \
        roofline.predict("h100-sxm", "llama-3.1-8b", batch=64, dp_attention=dp, engine="sglang")
    assert p["speculating_cap"] == cap


def test_a_verify_pass_is_said_not_overlapped_where_the_engine_turns_its_overlap_off_while_speculating():
    """sglang.yaml: host_overlap true, host_overlap_speculating false (spec V1 turns the overlap scheduler off): at pp 1
    a decode step's host work is overlapped, a verify pass's is not."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", batch=8, engine="sglang")
    assert p["host_overlapped"] is True and p["host_overlapped_speculating"] is False


def test_operators_carry_their_weight_dtype_and_keep_those_that_only_move_bytes():
    """fp8 weights for llama-3.1-8b: the GEMMs' classes take fp8, the embedding and LM head stay bf16 (predict's
    docstring), and attention, the KV write and the norms hold no weights (None). The embedding's row gather and the KV
    write do no FLOPs but move bytes, so they are rows too: the KV write at batch 8 is 8 sequences x 32 layers x 2 (K and
    V) x 8 KV heads x 128 x 2 bytes (bf16) = 1,048,576 B; the embedding's 8 rows of 4,096 x 2 bytes = 65,536 B."""
    ops = roofline.predict("h100-sxm", "llama-3.1-8b", batch=8, weight_dtype="fp8")["operators"]
    assert {name: op["weight_dtype"] for name, op in ops.items()} == {
        "embedding": "bf16", "qkv_proj": "fp8", "o_proj": "fp8", "attention": None, "kv_write": None, "mlp": "fp8",
        "norms": None, "lm_head": "bf16"}
    assert ops["kv_write"]["flops"] == 0 and ops["kv_write"]["bytes"] == 8 * 32 * 2 * 8 * 128 * 2
    assert ops["embedding"]["flops"] == 0 and ops["embedding"]["bytes"] == 8 * 4096 * 2


def test_a_layout_no_engine_setup_runs_is_said_right_after_the_memory_refusal():
    """README: a point that does not fit says so first; what no setup of the engine runs comes next (before notes on
    its priors). llama-3.1-70b in bf16 on one H100 a group (about 141 GB of weights) under vllm-v0, which has no
    attention DP."""
    p = roofline.predict("h100-sxm", "llama-3.1-70b", batch=8, dp_attention=2, engine="vllm-v0")
    assert p["warnings"][0].startswith("does not fit in memory: needs ")
    assert p["warnings"][1].startswith("dp_attention 2 under vllm-v0: it has no attention data parallelism")
    assert p["engine_refuses"] == [p["warnings"][1]]


def test_fp16_weights_on_a_profile_without_sixteen_bit_units_are_warned_about_too():
    """As bf16's (test_api's test_sixteen_bit_weights_on_a_profile_without_sixteen_bit_units_are_warned_about): fp16
    weights on a device whose only peak is fp32 compute at that peak, said."""
    import dataclasses

    fp32_only = dataclasses.replace(roofline.load_hardware("h100-sxm"), name="my-cpu", kind="cpu",
                                    peak_flops_per_s={"fp32": 1.68e11})
    p = roofline.predict(fp32_only, "llama-3.2-1b", engine="ideal", weight_dtype="fp16")
    assert [w for w in p["warnings"] if "has no" in w] == [
        "my-cpu has no fp16 peak: fp16 weights compute at its fp32 peak here (a profile measured in fp32: weight dtype "
        "fp32 predicts what it measured)"]


def test_weight_classes_are_the_models_own_with_their_bytes():
    """llama-3.1-8b (32 layers, hidden 4,096, 32 query and 8 KV heads of 128, MLP 14,336, vocabulary 128,256, untied
    LM head) in bf16 on one device: attention 32 x (2 x 4,096^2 + 2 x 4,096 x 1,024) x 2 B and the RMS norms' weights it
    carries (two a layer and the final one, 65 x 4,096 x 2 B), the MLP 32 x 3 x 4,096 x
    14,336 x 2 B, the embedding and the LM head 128,256 x 4,096 x 2 B each; a dense model has no experts, router or MTP
    class, and none is listed at 0 bytes."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", batch=8)
    got = {c: v["bytes_per_device"] for c, v in p["weight_classes"].items()}
    assert got == pytest.approx({"attention": 32 * (2 * 4096 ** 2 + 2 * 4096 * 1024) * 2 + 65 * 4096 * 2, "mlp": 32 * 3 * 4096 * 14336 * 2,
                                 "embedding": 128256 * 4096 * 2, "lm_head": 128256 * 4096 * 2}, rel=1e-9)
    assert p["weight_bytes"] == pytest.approx(sum(got.values()), rel=1e-9)


def test_mlas_bf16_copy_is_attentions_alone():
    """vLLM holds a 16-bit copy of MLA's up-projections (W_UK, W_UV) beside DeepSeek-V3's fp8 attention: 61 layers x 128
    heads x 512 (kv_lora_rank) x (128 + 128) (qk_nope_head_dim + v_head_dim) x 2 B, over tp 8. It is attention's; no
    other class carries one."""
    p = roofline.predict("h200", "deepseek-v3", 8, tp=8)
    copies = {c: v["bf16_copy_bytes_per_device"] for c, v in p["weight_classes"].items() if "bf16_copy_bytes_per_device" in v}
    assert copies == {"attention": 61 * 128 * 512 * (128 + 128) * 2 / 8}



def test_engine_values_are_the_cost_terms_as_applied_not_the_profiles_fit_record_or_overrides():
    """docs/API.md: engine_values are the engine's cost terms as applied on this device (its family's overrides
    applied); the fit's record is engine_fitted's, not repeated there, and the overrides are already applied."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", batch=8)
    assert "fitted" not in p["engine_values"] and "overrides" not in p["engine_values"]
    assert p["engine_fitted"]["file"] and p["engine_values"]["kernel_latency_s"] == pytest.approx(
        roofline.load_engine("vllm").for_hardware(roofline.load_hardware("h100-sxm")).kernel_latency_s)
