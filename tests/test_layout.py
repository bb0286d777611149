"""Deployments as they are served: per-class precision, TP / attention DP / EP / PP, scale-out links (issue 8)."""

import dataclasses
import re

import numpy as np
import pytest

from roofline.api import predict
from roofline.costs import busiest_rank_experts, expected_max_z, unique_experts_touched, weight_bytes_by_class
from roofline.engine import step_metrics, ttft_s
from roofline.errors import RooflineError
from roofline.hardware import load_hardware
from roofline.layout import deployment, shard_note
from roofline.model import BYTES_PER_ELEMENT, load_model

H100, H200 = load_hardware("h100-sxm"), load_hardware("h200")
GPT_OSS, DSV3 = load_model("gpt-oss-120b"), load_model("deepseek-v3")


def test_gpt_oss_native_precision_streams_mxfp4_experts_and_bf16_attention_head_and_embedding():
    dep = deployment(GPT_OSS)
    assert dep.dtype("experts") == "fp4" and dep.dtype("attention") == dep.dtype("lm_head") == "bf16"
    by_class = weight_bytes_by_class(GPT_OSS, dep)
    # 36 layers x 128 experts x 3 x 2880 x 2880 params at 0.5 + 1/32 bytes (MXFP4 with one 8-bit scale per 32)
    assert by_class["experts"] == pytest.approx(36 * 128 * 3 * 2880**2 * (0.5 + 1 / 32))
    t = {wd: float(step_metrics(H100, GPT_OSS, 1, 1, 8192, deployment(GPT_OSS, wd))["step_time_s"]) for wd in ("fp4", "bf16")}
    native = float(step_metrics(H100, GPT_OSS, 1, 1, 8192, dep)["step_time_s"])
    # one dtype for everything is 42% off one way or 2x the other; the mix sits between (issue 8: near 1.9 ms)
    assert t["fp4"] < native < t["bf16"] and native == pytest.approx(1.9e-3, rel=0.05)


def test_expert_dtype_overrides_only_the_experts_and_weight_dtype_the_decoder_blocks():
    dep = deployment(GPT_OSS, expert_dtype="bf16")
    assert dep.dtype("experts") == "bf16" and dep.dtype("attention") == "bf16"
    fp8 = deployment(DSV3, "FP8")  # dtype names are case-insensitive
    assert {c: d for c, d in fp8.dtypes.items() if c not in ("embedding", "lm_head", "router")} == dict.fromkeys(
        ("attention", "mlp", "experts", "shared_experts", "mtp"), "fp8")
    assert fp8.dtype("router") == "bf16"  # the gate stays 16-bit in quantised checkpoints, as in DeepSeek's own
    assert fp8.weight_dtype_label == "fp8" and deployment(DSV3).weight_dtype_label == "fp8"  # DeepSeek ships fp8 blocks


def test_a_quantised_weight_dtype_keeps_the_lm_head_and_embedding_at_the_native_dtype():
    llama = load_model("llama-3.1-8b")
    for wd in ("fp8", "int8", "w8a16", "int4", "fp4"):  # as quantised checkpoints ship them (ignore=["lm_head"])
        dep = deployment(llama, wd)
        assert dep.dtype("lm_head") == dep.dtype("embedding") == "bf16" and dep.dtype("mlp") == wd
        assert dep.weight_dtype_label == wd
    assert set(deployment(llama, "fp32").dtypes.values()) == {"fp32"}  # 16/32-bit floats: every class
    assert set(deployment(GPT_OSS, "fp16").dtypes.values()) == {"fp16"}
    # the LM head of Llama-3.1-8B (128256 x 4096) stays 2 bytes a weight: 1.05 GB of an int4 step's bytes
    by_class = weight_bytes_by_class(llama, deployment(llama, "int4"))
    assert by_class["lm_head"] == pytest.approx(128256 * 4096 * 2.0)


def test_fp4_weights_on_hopper_compute_in_bf16_and_fp8_uses_its_own_efficiency():
    assert H100.compute_dtype("fp4") == "bf16"  # no fp4 tensor cores: W4A16
    hw = dataclasses.replace(H100, compute_efficiency_by_dtype={"fp8": 0.6})
    assert hw.compute_ceiling_flops_per_s("fp8") == pytest.approx(1978.9e12 * 0.6)
    assert hw.compute_ceiling_flops_per_s("bf16") == pytest.approx(989.4e12 * H100.compute_efficiency)


@pytest.mark.parametrize("kwargs, message", [
    (dict(model="llama-3.1-70b", tp=3), "tp: expected a divisor of the model's 64 attention heads"),
    (dict(model="llama-3.1-8b", ep=2), "ep: expected 1 for a dense model"),
    (dict(model="deepseek-v3", tp=8, ep=3), "ep: expected a divisor of the model's 256 experts"),
    (dict(model="deepseek-v3", tp=4, dp_attention=80, ep=320), "found 320 (redundant experts, EPLB's, are not modelled: "
                                                              "a divisor such as 256 is the nearest below)"),
    (dict(model="deepseek-v3", tp=2, ep=8), "ep: expected a divisor of tp x dp_attention = 2 devices per stage"),
    (dict(model="llama-3.2-1b", pp=64), "pp: expected at most the model's 16 layers"),
    (dict(model="llama-3.1-8b", expert_dtype="fp8"), "expert_dtype: expected only for a mixture-of-experts model"),
])
def test_layouts_the_model_cannot_take_are_refused_in_one_line(kwargs, message):
    with pytest.raises(RooflineError, match=re.escape(message)):
        predict("h100-sxm", kwargs.pop("model"), **kwargs)


def _ds(layout: dict, batch: int) -> dict:
    return predict("h200", "deepseek-v3", batch, 4096, engine="ideal", **layout)


@pytest.mark.slow
@pytest.mark.parametrize("batch", [32, 256])
def test_attention_dp_reads_only_its_own_sequences_kv_and_ep_adds_all_to_all(batch):
    tp8, dp8 = _ds(dict(tp=8), batch), _ds(dict(dp_attention=8, ep=8), batch)
    # TP 8 replicates the MLA latent: every device reads the whole batch's cache; DP 8 reads 1/8 of it
    assert dp8["kv_read_bytes_per_device"] == pytest.approx(tp8["kv_read_bytes_per_device"] / 8, rel=1e-9)
    assert tp8["all_to_all_time_s"] == 0 and dp8["all_to_all_time_s"] > 0 and dp8["allreduce_time_s"] == 0
    # attention weights are replicated on every DP rank, so the batch cap grows by less than 8x
    assert 4 * tp8["max_batch"] < dp8["max_batch"] < 8 * tp8["max_batch"]


@pytest.mark.slow
def test_at_large_batch_attention_dp_with_ep_beats_tensor_parallel_decoding():
    assert _ds(dict(dp_attention=8, ep=8), 256)["step_time_s"] < _ds(dict(tp=8), 256)["step_time_s"]


@pytest.mark.slow
def test_the_busiest_ep_rank_touches_more_experts_than_the_mean():
    touched, assigned = busiest_rank_experts(256, 8, np.array([1, 32, 4096]), 8)
    mean = unique_experts_touched(256, 8, np.array([1, 32, 4096])) / 8
    assert np.all(touched >= mean) and touched[0] > mean[0] and touched[-1] == pytest.approx(32)
    assert np.all(assigned > np.array([1, 32, 4096]) * 8 / 8)
    assert expected_max_z(1) == 0 and 1.3 < expected_max_z(8) < 1.5  # Blom: Phi^-1(7.625 / 8.25) = 1.43
    # one rank: the mean itself
    one, _ = busiest_rank_experts(256, 8, 32, 1)
    assert float(one) == pytest.approx(float(unique_experts_touched(256, 8, 32)))


def test_a_collective_spanning_two_nvlink_domains_is_priced_on_the_scale_out_link():
    hw = dataclasses.replace(H100, scale_up_domain=8, scale_out_bw_bytes_per_s=50e9, scale_out_latency_s=10e-6)
    m405 = load_model("llama-3.1-405b")
    inside = step_metrics(hw, m405, 8, 1, 4096, deployment(m405, tp=8))
    across = step_metrics(hw, m405, 8, 1, 4096, deployment(m405, tp=16))
    assert hw.link_for(8) == (450e9 * hw.link_efficiency, H100.link_latency_s)
    assert hw.link_for(16) == (50e9 * hw.scale_out_link_efficiency, 10e-6)
    # 2 all-reduces x 126 layers, each at least the 10 us scale-out latency
    assert float(across["allreduce_time_s"]) >= 2 * 126 * 10e-6 > float(inside["allreduce_time_s"])


def test_pipeline_stages_hold_a_share_of_layers_and_batch_1_waits_for_every_stage():
    m405 = load_model("llama-3.1-405b")
    one = step_metrics(H100, m405, 1, 1, 4096, deployment(m405, tp=8, pp=2), with_operators=True)
    flat = step_metrics(H100, m405, 1, 1, 4096, deployment(m405, tp=8), with_operators=True)
    # batch 1 is one micro-batch: it passes both stages one after the other (the bubble), each with half the layers
    assert float(one["operators"]["mlp"]["time_s"]) == pytest.approx(float(flat["operators"]["mlp"]["time_s"]) / 2)
    head = sum(float(one["operators"][o]["time_s"]) for o in ("embedding", "input_proj", "lm_head"))
    layers = sum(float(o["time_s"]) for o in one["operators"].values()) - head
    assert float(one["operator_time_s"]) == pytest.approx(2 * layers + head)  # the head once: it was 2 * (layers + head)
    # a token's round trip crosses the head once whatever pp: batch 1 of Llama-3.1-8B at pp 8 was 49% slower than at pp 1
    m8 = load_model("llama-3.1-8b")
    flat8 = step_metrics(H100, m8, 1, 1, 1024, deployment(m8))
    for pp in (2, 4, 8):
        piped = step_metrics(H100, m8, 1, 1, 1024, deployment(m8, pp=pp))
        assert float(piped["step_time_s"]) == pytest.approx(float(flat8["step_time_s"] + piped["p2p_time_s"]), rel=1e-9)
    # at batch >= pp the two micro-batches keep both stages busy: per-device bytes cover both micro-batches
    b16 = step_metrics(H100, m405, 16, 1, 4096, deployment(m405, tp=8, pp=2))
    assert float(b16["p2p_time_s"]) > 0


def test_mla_prefill_uses_the_non_absorbed_form_and_decode_the_absorbed_one():
    assert DSV3.attention_dims_per_query_head(prefill=True) == (192, 128)     # 2*192 + 2*128 = 640 FLOPs per pair
    assert DSV3.attention_dims_per_query_head(prefill=False) == (576, 512)    # 2*576 + 2*512 = 2176 FLOPs per pair
    dep = deployment(DSV3, tp=8)
    fast = float(ttft_s(H200, DSV3, 8192, dep))
    absorbed = float(step_metrics(H200, DSV3, 1, 8192, 0, dep, logit_tokens=1)["step_time_s"])
    assert fast < absorbed


def test_kv_and_weights_per_device_follow_the_layout():
    m70 = load_model("llama-3.1-70b")
    by_tp = weight_bytes_by_class(m70, deployment(m70, tp=4))
    assert by_tp["mlp"] == pytest.approx(m70.params_by_class()["mlp"] * BYTES_PER_ELEMENT["bf16"] / 4)
    moe = weight_bytes_by_class(DSV3, deployment(DSV3, dp_attention=8, ep=8))
    # experts spread over the 8 devices, attention replicated on each
    assert moe["experts"] == pytest.approx(DSV3.params_by_class()["experts"] / 8)
    assert moe["attention"] == pytest.approx(DSV3.params_by_class()["attention"])


def test_a_dense_models_label_is_its_blocks_dtype_and_an_moe_models_experts_have_a_label_of_their_own():
    dense = deployment(load_model("llama-3.1-8b"), "fp8")
    assert (dense.weight_dtype_label, dense.expert_dtype_label) == ("fp8", "") and "experts" not in dense.to_json()["weight_dtypes"]
    oss = deployment(load_model("gpt-oss-120b"))  # native MXFP4 experts, bf16 attention
    assert (oss.weight_dtype_label, oss.expert_dtype_label) == ("bf16", "fp4")
    assert deployment(load_model("mixtral-8x7b"), expert_dtype="int4").expert_dtype_label == "int4"


def test_the_router_is_a_class_of_its_own_kept_16_bit_and_not_set_by_expert_dtype():
    by_class = weight_bytes_by_class(GPT_OSS, deployment(GPT_OSS))
    assert by_class["shared_experts"] == 0  # gpt-oss has no shared experts: its 26 MB of router weights were shown so
    assert by_class["router"] == pytest.approx(36 * 2880 * 128 * 2)  # 36 MoE layers, hidden 2880 x 128 experts, bf16
    dep = deployment(DSV3, "fp8", expert_dtype="fp4")
    assert (dep.dtype("experts"), dep.dtype("shared_experts"), dep.dtype("router")) == ("fp4", "fp4", "bf16")
    assert deployment(DSV3).dtype("router") == "bf16"  # the checkpoint's own (DeepSeek-V3 README_WEIGHTS.md)
    assert "router" not in deployment(load_model("llama-3.1-8b")).to_json()["weight_dtypes"]  # a dense model has none
    point = predict("h100-sxm", "gpt-oss-120b", 1, 1024)
    assert point["weight_classes"]["router"]["dtype"] == "bf16" and "shared_experts" not in point["weight_classes"]


def test_a_layout_whose_shards_cut_the_checkpoints_block_scales_is_warned():
    """DeepSeek-V3's fp8 checkpoint (128 x 128 blocks) at tp 32 gave a clean prediction, where vLLM and SGLang refuse
    the shard ("576 is not divisible by weight quantization block_n = 128")."""
    import roofline
    from roofline.layout import shard_note

    v3 = load_model("deepseek-v3")
    assert shard_note(v3, deployment(v3, tp=8)) == "" and shard_note(v3, deployment(v3, tp=16)) == ""
    note = shard_note(v3, deployment(v3, tp=32))
    assert "the dense MLP 18,432 / 32 = 576" in note and "a routed expert 2,048 / 32 = 64" in note
    assert "a routed expert 2,048 / 32 = 64" in shard_note(v3, deployment(v3, dp_attention=32))
    assert shard_note(v3, deployment(v3, dp_attention=32, ep=32)) == ""  # whole experts a device
    assert shard_note(v3, deployment(v3, "bf16", tp=32)) == ""  # re-quantised: the checkpoint's blocks are gone
    assert any("block scales do not divide" in w for w in roofline.predict("h200", "deepseek-v3", tp=32)["warnings"])
    assert shard_note(load_model("llama-3.1-70b"), deployment(load_model("llama-3.1-70b"), tp=8)) == ""
    v4 = load_model("deepseek-v4-flash")  # fp4 experts: group scales, not the fp8 layers' 128 x 128 blocks
    assert shard_note(v4, deployment(v4, dp_attention=32)) == ""
    uneven = shard_note(v3, deployment(v3, "bf16", tp=8, dp_attention=3))  # an expert split 24 ways, whatever its dtype
    assert "the columns a device holds are not whole (a routed expert 2,048 / 24 = 85 remainder 8)" in uneven
    scout = load_model("llama-4-scout")  # its shared expert is a routed expert's size: the profile gives no width of its own
    assert "the shared experts 8,192 / 40 = 204 remainder 32" in shard_note(scout, deployment(scout, tp=40))  # it named the routed one only


def test_the_busiest_pipeline_stage_holds_each_kind_of_layer_in_its_share():
    """Llama-4-Maverick alternates MoE and dense layers: a stage of MoE layers only (right for DeepSeek-V3's leading
    dense layers) doubled its experts a device at pp 2 and said batch 64 on 16 H100 does not fit."""
    import roofline

    maverick, v3 = load_model("llama-4-maverick"), load_model("deepseek-v3")
    assert deployment(maverick, tp=8, pp=2).stage_layers(maverick) == (24.0, 12.0, 12.0)
    assert deployment(v3).stage_layers(v3) == (61.0, 58.0, 3.0)  # pp 1: the model's own
    assert roofline.predict("h100-sxm", "llama-4-maverick", 64, tp=8, pp=2)["fits_in_memory"] is True


def test_leading_dense_layers_sit_in_the_first_pipeline_stage_so_the_busiest_holds_only_moe_layers():
    """DeepSeek-V3's three dense layers lead (first_k_dense_replace); every stage held its share of them, so at pp 4 the
    busiest held 15.2 MoE layers and 0.8 dense where vLLM's split (15/15/16/15) puts 16 MoE layers in one stage.
    Llama-4-Maverick's dense layers alternate with its MoE layers: each stage keeps its share."""
    from roofline.hfimport import profile_from_hf_config
    from roofline.model import model_from_dict

    v3, maverick = load_model("deepseek-v3"), load_model("llama-4-maverick")
    assert (v3.moe.dense_placement, maverick.moe.dense_placement) == ("leading", "interleaved")
    four = deployment(v3, "fp8", tp=2, pp=4)
    assert four.stage_layers(v3) == (16.0, 16.0, 0.0)
    assert deployment(v3, "fp8", tp=4, pp=2).stage_layers(v3) == (31.0, 31.0, 0.0)
    assert deployment(v3, "fp8", tp=1, pp=30).stage_layers(v3) == (3.0, 3.0, 0.0)
    assert deployment(v3, "fp8", tp=8).stage_layers(v3) == (61.0, 58.0, 3.0)  # no pp: the model's own counts
    m_two = deployment(maverick, tp=4, pp=2)
    assert m_two.stage_layers(maverick) == (24.0, 12.0, 12.0)
    weights = weight_bytes_by_class(v3, four)
    whole = weight_bytes_by_class(v3, deployment(v3, "fp8", tp=2))
    assert weights["experts"] == pytest.approx(whole["experts"] * 16 / 58) and weights["mlp"] == 0.0
    assert weights["attention"] == pytest.approx(whole["attention"] * 16 / 61)
    config = {"model_type": "deepseek_v3", "num_hidden_layers": 8, "hidden_size": 64, "num_attention_heads": 4,
              "intermediate_size": 128, "moe_intermediate_size": 32, "vocab_size": 100, "n_routed_experts": 8,
              "num_experts_per_tok": 2, "first_k_dense_replace": 2}
    assert model_from_dict(profile_from_hf_config(config, "t", "t.json"), "t").moe.dense_placement == "leading"
    every_other = {**config, "first_k_dense_replace": 0, "moe_layer_freq": 1, "mlp_only_layers": [1, 3]}
    assert model_from_dict(profile_from_hf_config(every_other, "t", "t.json"), "t").moe.dense_placement == "interleaved"
    from roofline.profiles import builtin_dir
    from roofline.yamlio import read_yaml_file

    data = read_yaml_file(builtin_dir("model") / "deepseek-v3.yaml")
    with pytest.raises(RooflineError, match=r"moe.dense_placement: expected interleaved \| leading, found 'first'"):
        model_from_dict({**data, "moe": {**data["moe"], "dense_placement": "first"}}, "m")


def test_an_int4_shard_that_splits_a_scale_group_is_said_not_left_out():
    """qa119: tp 64 of Llama-3.1-70B in int4 holds 448 columns of the MLP's down projection, 3.5 groups of 128, in
    silence; vLLM's Marlin kernels refuse it (verify_marlin_supports_shape), its plain GPTQ kernel may run it."""
    from roofline.layout import group_note

    model = load_model("llama-3.1-70b")
    note = group_note(model, deployment(model, tp=64, weight_dtype="int4"))
    assert note.startswith("llama-3.1-70b at tp 64: int4's scale groups of 128 do not divide the columns a device holds "
                           "(the dense MLP 28,672 / 64 = 448)")
    assert group_note(model, deployment(model, tp=8, weight_dtype="int4")) == ""  # 3,584 = 28 groups
    assert group_note(model, deployment(model, tp=64)) == ""  # bf16: no groups
    assert shard_note(model, deployment(model, tp=64, weight_dtype="int4")) == ""  # loadable: a warning only


def test_an_fp8_quantised_shard_that_splits_a_128_block_is_said():
    """qa423: Qwen3-235B-A22B at tp 8 with fp8 weights was priced in silence; its makers' FP8 checkpoint (128 x 128
    block scales) holds 1,536 / 8 = 192 columns of a routed expert a device, which vLLM refuses (issue 17569)."""
    from roofline.layout import fp8_block_note

    model = load_model("qwen3-235b-a22b")
    note = fp8_block_note(model, deployment(model, tp=8, weight_dtype="fp8"))
    assert note.startswith("qwen3-235b-a22b at tp 8: fp8 weights of a model whose checkpoint is not fp8: an FP8 checkpoint "
                           "with 128 x 128 block scales") and "(a routed expert 1,536 / 8 = 192)" in note, note
    assert fp8_block_note(model, deployment(model, tp=4, weight_dtype="fp8")) == ""  # 384: three blocks
    assert fp8_block_note(model, deployment(model, tp=8)) == ""  # bf16: no blocks
    deepseek = load_model("deepseek-v3")  # its own checkpoint is fp8: shard_note's (it knows its block), not this
    assert fp8_block_note(deepseek, deployment(deepseek, tp=8)) == ""
    llama = load_model("llama-3.1-70b")
    assert fp8_block_note(llama, deployment(llama, tp=8, weight_dtype="fp8")) == ""  # 3,584: 28 blocks
    import roofline

    said = roofline.predict(hardware="h200", model="qwen3-235b-a22b", tp=8, weight_dtype="fp8", batch=1)["warnings"]
    assert any("vLLM issue 17569" in w for w in said), said


@pytest.mark.slow
def test_vllms_sequence_parallel_moe_holds_shared_experts_whole_on_a_tp_ranks_share_of_the_tokens():
    """qa139 (vLLM's source): at tp > 1 with attention DP and EP, DeepseekV2MoE builds its shared experts unsplit
    (disable_tp) and runs router and experts on 1/tp of the tokens a rank, and each MoE layer reduce-scatters after
    attention and all-gathers before the next layer; roofline split the shared experts over tp (1.28 GB a device
    short at tp 2 / dp 4) and priced one all-reduce."""
    import dataclasses

    import roofline
    from roofline.serving import load_engine

    v3 = roofline.load_model("deepseek-v3")
    vllm = load_engine("vllm")
    plain = dataclasses.replace(vllm, sequence_parallel_moe=False)
    args = dict(tp=2, dp_attention=4, ep=8)
    sp, tp_split = (roofline.predict("h200", "deepseek-v3", 64, 2048, engine=e, **args) for e in (vllm, plain))
    shared = v3.shared_expert_params * v3.moe_layers * 1.0  # fp8, every MoE layer on the one stage
    assert sp["weight_classes"]["shared_experts"]["bytes_per_device"] == pytest.approx(shared, rel=1e-9)
    assert tp_split["weight_classes"]["shared_experts"]["bytes_per_device"] == pytest.approx(shared / 2, rel=1e-9)
    assert sp["max_batch"] < tp_split["max_batch"]
    # each device: whole weights on 64 / 4 / 2 = 8 tokens, as tp 2 split weights on 16: the same FLOPs, twice the bytes
    assert sp["operators"]["shared_experts"]["flops"] == pytest.approx(2 * shared * 8, rel=1e-9)
    assert sp["operators"]["shared_experts"]["flops"] == pytest.approx(tp_split["operators"]["shared_experts"]["flops"], rel=1e-9)
    h200 = roofline.load_hardware("h200")
    lat = max(vllm.allreduce_latency_s, h200.link_for(2)[1])
    assert sp["allreduce_time_s"] - tp_split["allreduce_time_s"] == pytest.approx(v3.moe_layers * lat, rel=1e-9)
    # not at tp 1, not without EP, not under other engines; over pipeline stages too (its MoE blocks follow the
    # config at any pp, qa143), the busiest stage holding 30 of the 58 MoE layers (vLLM's split: 31/30, 3 dense first)
    for other, ways in ((dict(tp=1, dp_attention=8, ep=8), 1), (dict(tp=2, dp_attention=4), 2),
                        (dict(tp=2, dp_attention=4, ep=8, pp=2), 1)):
        p = roofline.predict("h200", "deepseek-v3", 64, 2048, engine="vllm", **other)
        held = p["weight_classes"]["shared_experts"]["bytes_per_device"]
        share = 1 if other.get("pp", 1) == 1 else 30 / 58
        assert held == pytest.approx(shared / ways * share, rel=1e-9), other
    # at pp 2, and for a GQA model (Qwen3-MoE's block), the all-reduce stays and the MoE block all-gathers its output:
    # one ring pass of the group's tokens over tp, a MoE layer (pp 2: micro-batches of 32, a round trip of every stage)
    from roofline.engine import collective_times_s
    from roofline.layout import deployment
    from roofline.serving import for_engine

    for model, layout in (("deepseek-v3", dict(args, pp=2)), ("qwen3-235b-a22b", args)):
        spec = roofline.load_model(model)
        dep = deployment(spec, **layout)
        on, off = (collective_times_s(h200, spec, for_engine(dep, e, spec), e, 64.0, 1.0)["allreduce_time_s"] for e in (vllm, plain))
        ag = lat + 64 / 4 * spec.hidden_size * 2 / 2 / h200.link_for(2)[0]  # the group's 16 tokens, one ring pass over 2
        assert float(on - off) == pytest.approx(for_engine(dep, vllm, spec).stage_layers(spec)[1] * ag, rel=1e-9), model
    # qa149: Mixtral's MoE block in vLLM has no sequence-parallel path (its moe.sequence_parallel: false): its shared
    # layout is the plain one's; qa152: but vLLM then gathers over the data-parallel group (4 ranks of one tp index, not
    # the stage's 8), and each MoE layer keeps its tp all-reduce of the group's 64 tokens, where an engine without
    # sequence_parallel_moe (SGLang's stage-wide gather) reduces in the gather's scatter
    on, off = (roofline.predict("h100-sxm", "mixtral-8x7b", 256, 2048, engine=e, tp=2, dp_attention=4, ep=8)
               for e in (vllm, plain))
    mixtral, h100 = roofline.load_model("mixtral-8x7b"), roofline.load_hardware("h100-sxm")
    bw, link_lat = h100.link_for(2)
    per_layer = max(vllm.allreduce_latency_s, link_lat) + 2 * 64 * mixtral.hidden_size * 2 / 2 / bw
    assert on["allreduce_time_s"] - off["allreduce_time_s"] == pytest.approx(mixtral.moe_layers * per_layer, rel=1e-9)
    assert on["all_to_all_time_s"] < off["all_to_all_time_s"]  # a ring of 4 carries 3/4 of the buffer, of 8 7/8
    assert on["weight_classes"] == off["weight_classes"]
    assert not roofline.load_model("mixtral-8x7b").moe.sequence_parallel and spec.moe.sequence_parallel
    assert not load_engine("sglang").sequence_parallel_moe and not load_engine("trtllm").sequence_parallel_moe


def test_each_engine_gives_an_uneven_pipeline_splits_extra_layers_to_its_own_stages():
    """qa227: DeepSeek-V3's busiest pp 2 stage held 31 MoE layers under every engine, where vLLM's get_pp_indices
    splits 61 layers 31/30 (3 dense + 28 MoE, then 30 MoE), SGLang's 30/31 and TensorRT-LLM's Mapping.pp_layers 31/30."""
    import roofline
    from roofline.serving import for_engine, load_engine

    v3, llama = load_model("deepseek-v3"), load_model("llama-3.1-70b")
    two = deployment(v3, "fp8", tp=8, pp=2)
    counts = {name: for_engine(two, load_engine(name), v3) for name in ("vllm", "sglang", "trtllm", "ideal")}
    assert {n: d.stage_counts(61) for n, d in counts.items()} == {
        "vllm": [31, 30], "sglang": [30, 31], "trtllm": [31, 30], "ideal": [30, 31]}
    assert {n: d.stage_layers(v3) for n, d in counts.items()} == {
        "vllm": (30.0, 30.0, 0.0), "sglang": (31.0, 31.0, 0.0), "trtllm": (30.0, 30.0, 0.0), "ideal": (31.0, 31.0, 0.0)}
    four = dataclasses.replace(deployment(v3, "fp8", tp=4, pp=4), pp_remainder="before_last")
    assert four.stage_counts(61) == [15, 15, 16, 15] and four.stage_layers(v3) == (16.0, 16.0, 0.0)
    first = dataclasses.replace(four, pp_remainder="first")  # 16/15/15/15: 3 dense + 13 MoE, then 15 MoE layers
    assert first.stage_counts(61) == [16, 15, 15, 15] and first.stage_layers(v3) == (15.0, 15.0, 0.0)
    three = dataclasses.replace(deployment(v3, "fp8", pp=3), pp_remainder="before_last")  # r = pp - 1: all but the last
    assert three.stage_counts(61) == [20, 21, 20] and three.stage_counts(62) == [21, 21, 20]
    # predictions follow: vLLM's busiest stage holds 30 of the 58 MoE layers' experts, SGLang's 31
    experts = {e: roofline.predict("h200", "deepseek-v3", 1, tp=8, pp=2, engine=e)["weight_classes"]["experts"]["bytes_per_device"]
               for e in ("vllm", "sglang")}
    assert experts["vllm"] == pytest.approx(experts["sglang"] * 30 / 31)
    # a dense model: the busiest stage holds ceil(layers / pp) under any engine
    assert for_engine(deployment(llama, pp=3), load_engine("vllm"), llama).stage_layers(llama) == (27.0, 0.0, 27.0)
    assert for_engine(deployment(llama, pp=3), load_engine("trtllm"), llama).stage_layers(llama) == (27.0, 0.0, 27.0)


def test_memory_is_checked_on_every_kind_of_pipeline_stage_and_older_engines_put_the_leftover_layers_last():
    """qa228/qa229: the memory of a pp deployment was the busiest stage's layers with ceil(layers / pp) layers of KV
    cache and the larger of embedding and LM head, labelled embedding, a mix of stages; and every engine's older
    versions put all the layers left over on the last stage (DeepSeek-V3 at pp 8: 7 x 7 and 12)."""
    import roofline
    from roofline.capacity import capacity, distinct_stages
    from roofline.costs import weight_bytes_by_class
    from roofline.serving import for_engine, load_engine

    v3, llama = load_model("deepseek-v3"), load_model("llama-3.1-8b")
    old = dataclasses.replace(deployment(v3, "fp8", pp=8), pp_remainder="last_all")
    assert old.stage_counts(61) == [7] * 7 + [12] and old.stage_layers(v3) == (12.0, 12.0, 0.0)
    assert for_engine(deployment(v3, pp=8), load_engine("vllm-v0"), v3).stage_layers(v3) == (12.0, 12.0, 0.0)  # before 0.8
    assert for_engine(deployment(v3, pp=8), load_engine("sglang"), v3).stage_layers(v3) == (8.0, 8.0, 0.0)  # since Nov 2025
    early = for_engine(deployment(v3, pp=2), load_engine("sglang-early"), v3)  # qa233: SGLang 0.4.0-0.4.4 had no pp
    from roofline.serving import engine_layout_note

    assert engine_layout_note(load_engine("sglang-early"), v3, early).startswith("pp 2 under sglang-early: it has no pipeline")
    assert engine_layout_note(load_engine("sglang"), v3, for_engine(deployment(v3, pp=2), load_engine("sglang"), v3)) == ""
    assert for_engine(deployment(v3, pp=8), load_engine("vllm"), v3).stage_layers(v3) == (8.0, 8.0, 0.0)
    # the head: the last stage holds the LM head (shown as lm_head), the first the embedding, a middle one neither
    m405 = load_model("llama-3.1-405b")
    four = dataclasses.replace(deployment(m405, pp=4), pp_remainder="before_last")  # 126 layers: 31, 32, 32, 31
    assert four.stage_counts(126) == [31, 32, 32, 31] and four.busiest_stage(m405) == 1
    by_stage = [weight_bytes_by_class(m405, four.at_stage(i)) for i in range(4)]
    assert [(b["embedding"] > 0, b["lm_head"] > 0) for b in by_stage] == [(True, False), (False, False), (False, False),
                                                                            (False, True)]
    assert weight_bytes_by_class(m405, four) == by_stage[1]  # the busiest, a middle stage: no head (qa228)
    assert [s.stage for s in distinct_stages(m405, four)] == [0, 1, 3]  # the second and third alike
    # memory: the tightest stage's figures, max batch the least of the stages'
    h100 = roofline.load_hardware("h100-sxm")
    for dep, model in ((four, m405), (dataclasses.replace(deployment(llama, pp=3), pp_remainder="last"), llama)):
        mem = capacity(h100, model, 64, 4097, dep)
        each = [capacity(h100, model, 64, 4097, dep.at_stage(i)) for i in range(dep.pp)]
        need = [float(e["memory_needed_bytes"]) for e in each]
        assert int(mem["stage"]) == need.index(max(need)) and float(mem["memory_needed_bytes"]) == max(need)
        assert int(mem["max_batch"]) == min(int(e["max_batch"]) for e in each)
        assert float(mem["kv_bytes"]) == float(each[int(mem["stage"])]["kv_bytes"])  # its own layers' KV cache
    # 8B's LM head (1.05 GB) outweighs a layer (0.44 GB): of 10, 11, 11 layers the last stage binds
    assert int(capacity(h100, llama, 64, 4097, dataclasses.replace(deployment(llama, pp=3), pp_remainder="last"))["stage"]) == 2
    p = roofline.predict("h200", "deepseek-v3", 32, tp=8, pp=2, engine="vllm")  # 31/30: the second stage binds
    assert p["weight_classes"]["lm_head"]["bytes_per_device"] > 0 and "embedding" not in p["weight_classes"]
    assert p["kv_bytes"] == pytest.approx(roofline.predict("h200", "deepseek-v3", 32, tp=8, engine="vllm")["kv_bytes"] * 30 / 61)


@pytest.mark.slow
def test_predict_says_the_pipelines_split_and_which_stage_sets_memory_and_a_drafter_sits_on_the_last():
    """qa233: 'KV cache per device 89.3 GB (read per step: 86.4 GB)' were two stages' figures, unlabelled, and nothing
    said the split; qa232/qa233: a co-located drafter was charged on every stage, where engines put it on the last."""
    import roofline
    from roofline.capacity import capacity
    from roofline.serving import for_engine, load_engine
    from roofline.tables import predict_table

    v3, vllm = load_model("deepseek-v3"), load_engine("vllm").for_hardware("h200")

    def for_engine_stage(i):
        return for_engine(deployment(v3, tp=8, pp=2), vllm, v3).at_stage(i)

    p = roofline.predict("h200", "deepseek-v3", 610, 4096, tp=8, pp=2, engine="vllm")
    each = [capacity(roofline.load_hardware("h200"), load_model("deepseek-v3"), 610, 4097, for_engine_stage(i), engine=vllm)
            for i in (0, 1)]
    spare = [float(e["usable_memory_bytes"] - e["memory_needed_bytes"]) for e in each]  # the sampler's logits on the last
    assert p["pipeline"] == {"stage_layers": [31, 30], "memory_stage": spare.index(min(spare)), "busiest_stage": 1,
                             "pp_remainder": "before_last"}
    line = next(x for x in predict_table(p).splitlines() if x.startswith("  pipeline stages"))
    assert "31 / 30 layers (vllm's split, pp_remainder before_last)" in line
    kv = next(x for x in predict_table(p).splitlines() if x.startswith("  KV cache per device"))
    assert ("by the busiest stage" in kv) == (p["pipeline"]["memory_stage"] != 1)
    assert roofline.predict("h200", "deepseek-v3", 64, 4096, tp=8, engine="vllm")["pipeline"] is None
    m405, h100 = load_model("llama-3.1-405b"), roofline.load_hardware("h100-sxm")
    dep = dataclasses.replace(deployment(m405, tp=8, pp=4), pp_remainder="before_last")  # 31, 32, 32, 31: a middle binds
    plain = capacity(h100, m405, 64, 4097, dep)
    with_drafter = capacity(h100, m405, 64, 4097, dep, extra_bytes=1e9, extra_bytes_per_seq=1e6)
    last = capacity(h100, m405, 64, 4097, dep.at_stage(3), extra_bytes=1e9, extra_bytes_per_seq=1e6)
    middle = capacity(h100, m405, 64, 4097, dep.at_stage(1))
    assert int(with_drafter["max_batch"]) == min(int(last["max_batch"]), int(middle["max_batch"])) <= int(plain["max_batch"])
    assert float(with_drafter["memory_needed_bytes"]) == max(float(last["memory_needed_bytes"]), float(middle["memory_needed_bytes"]))


# qa387's surviving mutants of layout.py
def test_compressed_attention_weighs_a_stage_by_one_over_its_ratio():
    """DeepSeek-V4-Flash at pp 4 (10/11/11/11 layers, each 11 MoE): the stages tie on MoE layers, then on layers; the
    attention growing with the context breaks it, a 4:1 compressed layer 1/4, a 128:1 one 1/128: the last stage's
    6/4 + 5/128 = 1.539 against the third's 5/4 + 6/128 = 1.297 (L8: x ratio put the third first)."""
    v4 = load_model("deepseek-v4-flash")
    dep = deployment(v4, pp=4)
    assert dep.stage_counts(v4.layers) == [10, 11, 11, 11] and dep.busiest_stage(v4) == 3


def test_the_largest_degrees_are_taken():
    """L14: pp = the model's layers (32 stages of one layer); L21: a degree of DEGREE_MAX itself."""
    from roofline.layout import _degree
    from roofline.limits import DEGREE_MAX

    m = load_model("llama-3.1-8b")
    assert deployment(m, pp=32).pp == 32 and _degree(DEGREE_MAX, "tp") == DEGREE_MAX
    with pytest.raises(RooflineError):
        _degree(DEGREE_MAX + 1, "tp")


def test_a_shard_of_a_column_not_whole_is_said_with_its_remainder():
    """qa387: 'the dense MLP 14,335 / 2 = 7168' (4 significant digits of 7167.5) said a whole number was not whole; L18:
    a split two ways was not checked."""
    m = dataclasses.replace(load_model("llama-3.1-8b"), ffn_size=14335)
    assert shard_note(m, deployment(m, tp=2)) == (
        "llama-3.1-8b at tp 2: the columns a device holds are not whole (the dense MLP 14,335 / 2 = 7,167 remainder 1): "
        "vLLM and SGLang refuse to load such a shard")


def test_sglangs_spelling_of_dp_attention_is_told_its_device_count():
    """qa405: `tp: 8, dp_attention: 8`, SGLang's `--tp 8 --dp 8 --enable-dp-attention` as written, priced 64 devices
    with no word but the header's count; the note says so, and what SGLang's 8-GPU setup is here."""
    from roofline.layout import dp_spelling_note
    from roofline.model import load_model

    ds = load_model("deepseek-v3")
    note = dp_spelling_note(deployment(ds, tp=8, dp_attention=8))
    assert note.startswith("tp 8, dp-attention 8 is 64 devices here") and "tp 1, dp-attention 8 here" in note, note
    assert dp_spelling_note(deployment(ds, tp=1, dp_attention=8, ep=8)) == ""
    assert dp_spelling_note(deployment(ds, tp=2, dp_attention=4)) == "" == dp_spelling_note(deployment(ds, tp=8))
    assert dp_spelling_note(deployment(ds)) == "" and "(ep 8 for its experts with --enable-ep-moe or DeepEP)" in note
    said = predict("h200", "deepseek-v3", 8, 1024, engine="sglang", tp=8, dp_attention=8)["warnings"]  # qa409: where used
    assert any(w.startswith("tp 8, dp-attention 8 is 64 devices here") for w in said), said
    import warnings

    from roofline.grid import load_configs
    from roofline.scenario import scenario_from_dict

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_configs(scenario_from_dict({"name": "t", "hardware": "h200", "model": "deepseek-v3", "tp": 8, "dp_attention": 8,
                                         "engine": "sglang", "axes": {"batch": [64], "context": [1024]}}, "t.yaml"))
    assert any("tp 8, dp-attention 8 is 64 devices here" in str(w.message) for w in caught)
