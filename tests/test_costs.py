import dataclasses
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from roofline.costs import busiest_rank_experts, kv_cache_bytes, operator_costs, unique_experts_touched, weight_bytes
from roofline.layout import deployment


@pytest.mark.parametrize("tokens, expected", [(1, 8.0), (4, 30.5), (16, 102.0), (64, 222.4)])
def test_256_experts_top_8_touch_the_expected_unique_experts(tokens, expected):
    # 256 * (1 - (1 - 8/256)^N)
    assert unique_experts_touched(256, 8, tokens) == pytest.approx(expected, abs=0.1)


def test_llama_8b_weights_are_16_06_gb_in_bf16_and_its_blocks_half_in_fp8(llama8b):
    assert weight_bytes(llama8b, deployment(llama8b, "bf16")) == pytest.approx(16.06e9, rel=1e-3)
    # fp8 halves the decoder blocks; the embedding and LM head (128256 x 4096 each) stay bf16: 2.10 GB
    head_and_embedding = 2 * 128256 * 4096 * 2.0
    expected = head_and_embedding + (16.06e9 - head_and_embedding) / 2
    assert weight_bytes(llama8b, deployment(llama8b, "fp8")) == pytest.approx(expected, rel=1e-3)
    assert expected == pytest.approx(9.08e9, rel=1e-3)
    assert weight_bytes(llama8b, deployment(llama8b, "bf16", tp=2)) == pytest.approx(8.03e9, rel=1e-3)


def test_decode_streams_every_weight_but_only_gathers_embedding_rows(llama8b):
    costs = operator_costs(llama8b, 1, 1, 0, deployment(llama8b))
    gemm_bytes = sum(float(costs[o][1]) for o in ("qkv_proj", "o_proj", "mlp", "lm_head"))
    streamed = 2 * (llama8b.params - llama8b.embedding_params - llama8b.norm_params)
    # plus each GEMM's input and output activations for one token, 2 bytes each: qkv, o, the MLP's gate/up and down
    per_layer = (4096 + 6144) + (4096 + 4096) + (4096 + 2 * 14336) + (14336 + 4096)
    activations = 2 * (32 * per_layer + 4096 + 128256)
    assert gemm_bytes == streamed + activations
    assert float(costs["embedding"][1]) == 4096 * 2


def test_a_tensor_parallel_rank_writes_and_reads_its_share_of_a_split_gemms_activations(llama8b):
    """Every rank was charged the whole qkv, gate/up and logits outputs and the whole o_proj input, where a
    column-parallel GEMM writes its 1/tp share and a row-parallel one reads it (Llama-3.1-70B at tp 8, batch 256,
    context 256: 2 GB a step too many); and the MLP's down GEMM's input and output were not counted at all."""
    tokens, tp = 256, 8
    one, eight = (operator_costs(llama8b, tokens, 1, 256, deployment(llama8b, tp=t)) for t in (1, tp))
    for op, d_in, d_out in (("qkv_proj", 4096, 6144), ("o_proj", 4096, 4096), ("lm_head", 4096, 128256)):
        split = (d_in + d_out / tp) if op != "o_proj" else (d_in / tp + d_out)
        weights = (float(one[op][1]) - tokens * (d_in + d_out) * 2 * (1 if op == "lm_head" else 32))
        layers = 1 if op == "lm_head" else 32
        assert float(eight[op][1]) == pytest.approx(weights / tp + tokens * split * 2 * layers, rel=1e-12), op
    mlp_weights = 3 * 4096 * 14336 * 2 * 32
    assert float(one["mlp"][1]) == mlp_weights + tokens * (4096 + 2 * 14336 + 14336 + 4096) * 2 * 32
    assert float(eight["mlp"][1]) == pytest.approx(mlp_weights / tp + tokens * (4096 + 3 * 14336 / tp + 4096) * 2 * 32, rel=1e-12)


def test_a_grouped_low_rank_output_reads_the_attention_output_and_its_intermediate():
    """qa254: DeepSeek-V4's o_proj (heads x 512 -> 8 groups x 1024 -> hidden) read o_params / h / tp = 16,384 values a
    token, not its attention output of 64 x 512 = 32,768, and its 8,192-wide intermediate was neither written nor read."""
    from roofline.model import load_model

    v4 = load_model("deepseek-v4-flash")
    tokens, tp = 64, 2
    dep = deployment(v4, tp=tp)
    cost = operator_costs(v4, tokens, 1, 4096, dep)["o_proj"]
    params = 64 * 512 * 1024 + 8 * 1024 * v4.hidden_size
    assert v4.o_params_per_layer == params and v4.attention_output_width == 64 * 512
    weight = {"fp8": 1.0, "bf16": 2.0}[dep.dtype("attention")]
    per_layer = params / tp * weight + tokens * ((64 * 512 + 2 * 8 * 1024) / tp + v4.hidden_size) * 2
    assert float(cost[1]) == pytest.approx(v4.layers * per_layer, rel=1e-12)


def test_a_compressed_layer_writes_its_compressed_entries_beside_its_windows():
    """qa255: DeepSeek-V4's kv_write counted each token's window entry and the indexer's keys, not the compressed
    entries a CSA layer writes every 4 tokens and an HCA layer every 128 (5,536 B a token in bf16)."""
    from roofline.model import load_model

    v4 = load_model("deepseek-v4-flash")
    dep = deployment(v4, kv_dtype="bf16")
    written = float(operator_costs(v4, 64, 1, 4096, dep)["kv_write"][1])
    window = 43 * 512 * 2
    compressed = (21 / 4 + 20 / 128) * 512 * 2
    index_keys = 21 / 4 * 132
    assert written == pytest.approx(64 * (window + compressed + index_keys), rel=1e-12)


@pytest.mark.slow
def test_vllm_reads_mlas_absorbed_up_projections_in_16_bits_and_holds_them_beside_an_fp8_checkpoint():
    """qa255: vLLM dequantises DeepSeek's fp8 kv_b_proj into bf16 W_UK / W_UV for decode ('we just store fp16/bf16
    copies and perform the bmm's in 16-bit', MLACommonBaseImpl): 128 MB more read a step at tp 8 and 256 MB held, which
    the attention class's fp8 did not count; SGLang's bmm_fp8 keeps them in fp8; a bf16 checkpoint holds no copy."""
    from roofline.model import load_model
    from roofline.serving import for_engine, load_engine

    v3 = load_model("deepseek-v3")
    up = 512 * 128 * (128 + 128)  # kv_lora_rank -> heads x (qk_nope + v_head)
    assert v3.mla_up_params_per_layer == up
    plain = deployment(v3, "fp8", tp=8)
    vllm, sglang = (for_engine(plain, load_engine(e), v3) for e in ("vllm", "sglang"))
    assert vllm.mla_absorbed_bf16 and not sglang.mla_absorbed_bf16
    read = {name: float(operator_costs(v3, 16, 1, 2048, dep)["qkv_proj"][1]) for name, dep in (("vllm", vllm), ("sglang", sglang))}
    assert read["vllm"] - read["sglang"] == pytest.approx(61 * up / 8 * (2.0 - 1.0), rel=1e-12)
    prefill = {name: float(operator_costs(v3, 1, 512, 0, dep, prefill=True)["qkv_proj"][1]) for name, dep in (("vllm", vllm), ("sglang", sglang))}
    assert prefill["vllm"] == prefill["sglang"]  # prefill runs kv_b_proj itself, in the checkpoint's fp8
    held = {name: weight_bytes(v3, dep) for name, dep in (("vllm", vllm), ("sglang", sglang))}
    assert held["vllm"] - held["sglang"] == pytest.approx(61 * up / 8 * 2.0, rel=1e-12)
    bf16 = deployment(v3, "bf16", tp=8)
    assert weight_bytes(v3, for_engine(bf16, load_engine("vllm"), v3)) == weight_bytes(v3, bf16)  # views of its own weights
    llama = load_model("llama-3.1-8b")
    assert not for_engine(deployment(llama, "fp8"), load_engine("vllm"), llama).mla_absorbed_bf16
    # qa261: predict says how much of the attention class's fp8 bytes is that bf16 copy
    import roofline

    classes = roofline.predict("h200", "deepseek-v3", 64, 2048, tp=8)["weight_classes"]
    assert classes["attention"]["bf16_copy_bytes_per_device"] == pytest.approx(61 * up / 8 * 2.0, rel=1e-12)
    assert "bf16_copy_bytes_per_device" not in roofline.predict("h200", "deepseek-v3", 64, 2048, tp=8, engine="sglang")["weight_classes"]["attention"]
    # qa260: vLLM before its PR 14770 (vllm-v0) materialised absorbed matrices, not 16-bit copies; fp32 weights (which
    # vLLM's MLA does not run) are not read in fewer bytes than they hold
    assert not for_engine(plain, load_engine("vllm-v0"), v3).mla_absorbed_bf16
    fp32 = deployment(v3, "fp32", tp=8)
    for_vllm = for_engine(fp32, load_engine("vllm"), v3)
    assert weight_bytes(v3, for_vllm) == weight_bytes(v3, fp32)
    assert float(operator_costs(v3, 16, 1, 2048, for_vllm)["qkv_proj"][1]) == float(operator_costs(v3, 16, 1, 2048, fp32)["qkv_proj"][1])


def test_gemm_flops_are_two_per_parameter_per_token(llama8b):
    costs = operator_costs(llama8b, 4, 3, 100, deployment(llama8b))
    assert float(costs["mlp"][0]) == pytest.approx(2 * 32 * 3 * 4096 * 14336 * 12)


def test_attention_reads_the_whole_kv_cache_once_per_pass(llama8b):
    costs = operator_costs(llama8b, 8, 1, 4095, deployment(llama8b))
    kv_read = 8 * 4096 * 131072  # B * (S + q) * KV bytes per token
    queries_and_outputs = 8 * 4096 * 2 * 2 * 32  # T * hidden * 2 bytes * (in + out) per layer
    assert float(costs["attention"][1]) == kv_read + queries_and_outputs
    assert float(kv_cache_bytes(llama8b, 8, 4096, deployment(llama8b))) == kv_read


def test_attention_activations_are_each_ranks_query_heads_in_and_outputs_out(llama8b, deepseek_v3):
    """qa243: every tp rank was charged the full hidden width of queries and outputs; it runs heads / tp of them (MLA
    decode: the absorbed 576-wide query and 512-wide latent output a head)."""
    costs = operator_costs(llama8b, 8, 1, 4095, deployment(llama8b, tp=4))
    kv_read = 8 * 4096 * 131072 / 4  # 8 KV heads over 4 ranks
    assert float(costs["attention"][1]) == pytest.approx(kv_read + 8 * (32 / 4) * (128 + 128) * 2 * 32)
    mla = operator_costs(deepseek_v3, 2, 1, 0, deployment(deepseek_v3, tp=8))
    latent_read = 2 * 1 * 576 * 2 * 61  # B * (S + q) * (512 + 64) * 2 B, replicated on every rank, 61 layers
    assert float(mla["attention"][1]) == pytest.approx(latent_read + 2 * (128 / 8) * (576 + 512) * 2 * 61)


def test_moe_verification_touches_more_experts_than_decode(deepseek_v3):
    decode = operator_costs(deepseek_v3, 1, 1, 0, deployment(deepseek_v3))["experts"][1]
    verify = operator_costs(deepseek_v3, 1, 4, 0, deployment(deepseek_v3))["experts"][1]
    # weights dominate: 30.53 vs 8 experts touched per layer
    assert float(verify / decode) == pytest.approx(30.53 / 8, rel=0.01)


def test_costs_broadcast_over_batch_q_and_context(llama8b):
    b = np.array([1, 2, 4])[:, None, None]
    q = np.array([1, 5])[None, :, None]
    s = np.array([0, 1000, 8000, 32000])[None, None, :]
    costs = operator_costs(llama8b, b, q, s, deployment(llama8b))
    for flops, nbytes in costs.values():
        assert flops.shape == (3, 2, 4) and nbytes.shape == (3, 2, 4)


def test_a_pipeline_stage_holds_whole_layers_the_busiest_ceil_of_layers_over_pp(llama8b):
    from roofline.costs import weight_bytes_by_class
    from roofline.engine import step_metrics
    from roofline.hardware import load_hardware

    whole = weight_bytes_by_class(llama8b, deployment(llama8b, "bf16"))
    three = weight_bytes_by_class(llama8b, deployment(llama8b, "bf16", pp=3))  # 32 layers: stages of 10, 11, 11
    assert three["mlp"] == pytest.approx(whole["mlp"] * 11 / 32) and three["attention"] == pytest.approx(whole["attention"] * 11 / 32)
    assert three["lm_head"] == whole["lm_head"] and three["embedding"] == 0.0  # the last stage holds the LM head only
    first = weight_bytes_by_class(llama8b, deployment(llama8b, "bf16", pp=3).at_stage(0))  # the first, the embedding
    assert first["embedding"] == whole["embedding"] and first["lm_head"] == 0.0 and first["mlp"] == pytest.approx(whole["mlp"] * 10 / 32)
    assert float(kv_cache_bytes(llama8b, 4, 1024, deployment(llama8b, "bf16", pp=3))) == pytest.approx(
        float(kv_cache_bytes(llama8b, 4, 1024, deployment(llama8b, "bf16"))) * 11 / 32)
    two = weight_bytes_by_class(llama8b, deployment(llama8b, "bf16", pp=2))  # an even split: half, as before
    assert two["mlp"] == pytest.approx(whole["mlp"] / 2)
    h100 = load_hardware("h100-sxm")
    ops = step_metrics(h100, llama8b, 3, 1, 1024, deployment(llama8b, "bf16", pp=3), with_operators=True)["operators"]
    ref = step_metrics(h100, llama8b, 1, 1, 1024, deployment(llama8b, "bf16"), with_operators=True)["operators"]
    assert float(ops["mlp"]["bytes"]) == pytest.approx(float(ref["mlp"]["bytes"]) * 11 / 32)  # one micro-batch of 1 on the busiest stage


def test_mla_down_projections_are_whole_on_every_tensor_parallel_rank():
    """vLLM and SGLang hold q_a and kv_a (hidden -> q_lora + kv_lora + rope) as one replicated linear: at tp 8 each
    rank holds them whole and the rest of the attention weights an eighth (DeepSeek-V3: 7168 x 2112 a layer)."""
    from roofline.costs import weight_bytes_by_class
    from roofline.model import load_model
    from roofline.speculation import drafter_deployment, drafter_spec

    v3 = load_model("deepseek-v3")
    whole = 7168 * (1536 + 512 + 64)
    assert v3.qkv_params_per_layer_per_device(8) == (v3.qkv_params_per_layer - whole) / 8 + whole and whole == 15_138_816
    one, eight = deployment(v3, "fp8"), deployment(v3, "fp8", tp=8)
    attention_1, attention_8 = weight_bytes_by_class(v3, one)["attention"], weight_bytes_by_class(v3, eight)["attention"]
    assert attention_8 == pytest.approx((attention_1 - 61 * whole) / 8 + 61 * whole, rel=1e-12)  # fp8: 1 byte a weight
    mtp = drafter_spec("mtp", v3)  # the MTP drafter: one MLA block, its down-projections whole on every rank too
    mtp_1, mtp_8 = (weight_bytes_by_class(mtp, drafter_deployment("mtp", mtp, d, False))["attention"] for d in (one, eight))
    assert mtp_8 == pytest.approx((mtp_1 - whole) / 8 + whole, rel=1e-12)
    assert "mtp" not in weight_bytes_by_class(v3, eight)  # the target's own MTP modules count as a drafter, while it drafts
    (flops_1, bytes_1), (flops_8, bytes_8) = (operator_costs(v3, 1, 1, 1024, d)["qkv_proj"] for d in (one, eight))
    per_device = (v3.qkv_params_per_layer - whole) / 8 + whole
    assert float(flops_8) == pytest.approx(2.0 * per_device * 61, rel=1e-12)
    assert float(bytes_1) == pytest.approx(61 * (v3.qkv_params_per_layer + (7168 + v3.qkv_params_per_layer / 7168) * 2), rel=1e-12)
    assert float(bytes_8) == pytest.approx(61 * (per_device + (7168 + per_device / 7168) * 2), rel=1e-12)  # its share out
    llama = load_model("llama-3.1-8b")
    assert llama.qkv_params_per_layer_per_device(8) == llama.qkv_params_per_layer / 8  # 8 KV heads over 8 ranks: split


def test_a_kv_head_is_replicated_with_its_weights_once_tp_exceeds_the_kv_heads():
    """vLLM's QKVParallelLinear gives each rank one KV head once tp > kv_heads: Qwen3-235B-A22B (4 KV heads of 128
    over hidden 4096) at tp 8 holds an eighth of the query projection and one whole KV head's K and V."""
    from roofline.costs import weight_bytes_by_class
    from roofline.model import load_model

    qwen = load_model("qwen3-235b-a22b")
    q, kv_head = 4096 * 64 * 128, 2 * 4096 * 128
    assert qwen.qkv_params_per_layer == q + 4 * kv_head
    assert qwen.qkv_params_per_layer_per_device(4) == (q + 4 * kv_head) / 4  # tp = kv_heads: one head each, split
    assert qwen.qkv_params_per_layer_per_device(8) == q / 8 + kv_head       # not (q + 4 kv) / 8
    one, eight = deployment(qwen, "bf16"), deployment(qwen, "bf16", tp=8)
    extra = weight_bytes_by_class(qwen, eight)["attention"] - weight_bytes_by_class(qwen, one)["attention"] / 8
    assert extra == pytest.approx(94 * (kv_head - 4 * kv_head / 8) * 2.0, rel=1e-12)  # 94 layers, bf16


def test_deepseek_v4_holds_its_query_down_projection_and_shared_kv_head_whole_on_every_rank():
    """SGLang's DeepSeek-V4 attention: wq_a (hidden -> q_lora 1024) and wkv (hidden -> the one shared KV head of 512)
    are ReplicatedLinear; wq_b (1024 -> 64 heads x 512) is column-parallel."""
    from roofline.model import load_model

    v4 = load_model("deepseek-v4-flash")
    q_down, kv, q_up = 4096 * 1024, 4096 * 512, 1024 * 64 * 512
    assert v4.qkv_params_per_layer == q_down + kv + q_up
    assert v4.qkv_params_per_layer_per_device(8) == q_down + kv + q_up / 8


@pytest.mark.slow
def test_the_router_is_whole_on_every_rank_and_a_rank_touches_no_more_experts_than_it_is_given_pairs():
    """The MoE gate was split over tp (26.6 MB a device for DeepSeek-V3 at tp 8, against the 213 MB every rank holds:
    vLLM's ReplicatedLinear gate); on an ep rank the expected experts touched could exceed the token-expert pairs."""
    from roofline.costs import busiest_rank_experts, weight_bytes_by_class
    from roofline.model import load_model

    v3 = load_model("deepseek-v3")
    whole = v3.router_params * v3.moe_layers * 2  # bf16, every MoE layer's gate
    for tp in (1, 8):
        dep = deployment(v3, "fp8", tp=tp)
        assert weight_bytes_by_class(v3, dep)["router"] == pytest.approx(whole)
        flops, _ = operator_costs(v3, 4, 1, 1024, dep)["router"]
        assert float(flops) == pytest.approx(2 * (whole / 2) * 4)  # 2 FLOPs per weight per token, 4 tokens, every rank
    touched, assigned = busiest_rank_experts(256, 8, np.array([1.0, 8.0, 64.0]), 8)
    assert np.all(touched <= assigned) and touched[0] == pytest.approx(assigned[0])


def test_sparse_attention_picks_its_entries_per_query_so_a_verify_pass_reads_up_to_q_times_as_many():
    """DeepSeek-V4's indexer picks top-512 entries for each query token (vLLM's sparse indices are [num_tokens, window +
    top-k]); a verify pass of q = 4 read 512 compressed entries a CSA layer, as one decode query does."""
    from roofline.model import load_model

    v4 = load_model("deepseek-v4-flash")
    csa = next(g for g in v4.groups if g.read_tokens)
    long, short = 131072 + 4, 4096 + 4
    assert float(v4.entries_read(csa, long)) == 512 + csa.window  # one query
    # four queries, each its own 512; their window reads the W - 1 entries before them and their 4 (qa410: W counted)
    assert float(v4.entries_read(csa, long, 4)) == 4 * 512 + csa.window + 3
    assert float(v4.entries_read(csa, short, 4)) == np.ceil(short / csa.ratio) + csa.window + 3  # never more than stored
    oss = load_model("gpt-oss-120b")
    sliding = next(g for g in oss.groups if g.kind == "sliding")
    assert float(oss.entries_read(sliding, 8192 + 9, 9)) == sliding.window + 8  # a chain's verify pass of q = 9
    # a tree of 60 nodes: each node an entry of its own, a deeper node's window reaching its ancestors (qa413: qa412's
    # W + depth counted positions)
    assert float(oss.entries_read(sliding, 8192 + 61, 61)) == sliding.window + 60
    assert float(oss.entries_read(sliding, 8192 + 1)) == sliding.window and float(oss.entries_read(sliding, 100, 9)) == 100
    dense = next(g for g in v4.groups if not g.read_tokens)  # dense: every compressed entry once, the window's W + 3
    assert float(v4.entries_read(dense, long, 4)) == float(v4.entries_read(dense, long)) + (3 if dense.window else 0)
    dep = deployment(v4, tp=8)
    decode = float(operator_costs(v4, 1, 1, 131072, dep)["attention"][1])
    verify = float(operator_costs(v4, 1, 4, 131072, dep)["attention"][1])
    entry_bytes = v4.kv_elements_per_token_per_layer_per_device(8) * 2  # bf16 KV
    assert verify - decode >= csa.layers * 3 * 512 * entry_bytes  # three more queries' picks at least


@pytest.mark.slow  # simulates routing for eight layouts twice (about 1.4 s)
def test_the_busiest_expert_rank_matches_a_simulation_of_uniform_routing_at_small_batches():
    """Blom's normal form gave the busiest rank 0.6 pairs for one top-1 token (Llama 4 at ep 8: its rank reads one
    whole expert), and 2.34 for one DeepSeek token at ep 8 where 2.56 are simulated. The exact multinomial that came
    next drew a token's experts with replacement: one Qwen3-235B token (128 experts, top 8) at ep 64 put 1.38 pairs and
    1.38 experts on its busiest rank where 1.21 are simulated, and two to four tokens' distinct experts ran 8% low
    (1.84 against 1.99 at four tokens). Checked against routing written out plainly, with its own seed."""
    from roofline.costs import busiest_rank_experts

    rng = np.random.default_rng(3)

    def simulated(experts, top_k, tokens, ep, trials=3000):
        picks = np.argpartition(rng.random((trials * tokens, experts)), top_k - 1, axis=1)[:, :top_k]
        ranks = (picks // (experts // ep)).reshape(trials, tokens * top_k)
        pairs = np.stack([(ranks == r).sum(axis=1) for r in range(ep)], axis=1).max(axis=1)
        hit = np.zeros((trials, experts), dtype=bool)
        np.put_along_axis(hit, picks.reshape(trials, tokens * top_k), True, axis=1)
        return pairs.mean(), hit.reshape(trials, ep, experts // ep).sum(axis=2).max(axis=1).mean()

    touched, assigned = busiest_rank_experts(128, 1, 1, 8)
    assert float(assigned) == 1.0 and float(touched) == 1.0
    for experts, top_k, tokens, ep in ((256, 8, 1, 8), (128, 1, 8, 8), (256, 8, 1, 32), (128, 4, 4, 16),
                                       (128, 8, 1, 64), (128, 8, 4, 64), (128, 8, 2, 32), (256, 8, 8, 32),
                                       (256, 8, 12, 32), (128, 1, 32, 8), (128, 8, 24, 16)):
        pairs, experts_read = simulated(experts, top_k, tokens, ep)
        touched, assigned = busiest_rank_experts(experts, top_k, tokens, ep)
        assert float(assigned) == pytest.approx(pairs, rel=0.03), (experts, top_k, tokens, ep)
        assert float(touched) == pytest.approx(experts_read, rel=0.03), (experts, top_k, tokens, ep)


@pytest.mark.slow
@pytest.mark.parametrize("experts, top_k, ep", [
    (16, 1, 16), (256, 8, 8),
    pytest.param(128, 1, 8, marks=pytest.mark.slow), pytest.param(256, 8, 64, marks=pytest.mark.slow),
    pytest.param(128, 1, 2, marks=pytest.mark.slow), pytest.param(256, 8, 32, marks=pytest.mark.slow),
])  # each layout a routing simulation of 0.2-0.5 s: two in the quick loop
def test_the_busiest_expert_rank_grows_with_the_tokens_through_the_simulated_and_the_normal_forms(experts, top_k, ep):
    """A hard switch at 64 pairs and a touched-experts term below one expert made a step faster at batch 2 than at
    batch 1 (Llama-4-Scout at dp-attention 16 + ep 16: 10.05 then 9.40 ms), and fractional tokens (pipeline
    micro-batches) drew a saw-tooth."""
    from roofline.costs import busiest_rank_experts

    tokens = np.arange(1.0, 400.0, 0.25)
    touched, assigned = busiest_rank_experts(experts, top_k, tokens, ep)
    assert np.all(np.diff(assigned) >= -1e-12) and np.all(np.diff(touched) >= -1e-12), (experts, top_k, ep)
    assert np.all(touched >= min(experts / ep, 1.0)) and np.all(touched <= assigned + 1e-12)


@pytest.mark.slow  # simulates the gate for five layouts (about 2 s)
def test_group_limited_routing_puts_a_tokens_experts_on_fewer_ranks_as_a_simulation_of_deepseeks_gate_does():
    """DeepSeek-V3 picks 4 of 8 contiguous groups of 32 experts a token, then its top 8 among theirs (inference/model.py
    Gate.forward): at EP 8 a token's experts sit on at most 4 ranks, so one token's busiest rank holds 3.0 pairs, where
    uniform routing over 256 experts gives 2.6; the all-to-all reaches 3.5 remote ranks, not 4.6. Checked against the
    gate written out plainly on random scores (group score = the sum of a group's top two), with its own seed."""
    from roofline.costs import busiest_rank_experts, rank_hit_probability

    rng = np.random.default_rng(1)

    def gate(tokens, ep, trials=3000):
        scores = rng.random((trials * tokens, 8, 32))
        group_scores = np.sort(scores, axis=2)[:, :, -2:].sum(axis=2)
        dropped = np.argsort(group_scores, axis=1)[:, :4]
        np.put_along_axis(scores, dropped[:, :, None], -1.0, axis=1)
        experts = np.argsort(scores.reshape(trials * tokens, 256), axis=1)[:, -8:]
        ranks = (experts // (256 // ep)).reshape(trials, tokens * 8)
        loads = np.stack([(ranks == r).sum(axis=1) for r in range(ep)], axis=1)
        hit = np.mean([(experts // (256 // ep) == r).any(axis=1).mean() for r in range(ep)])
        picked = np.zeros((trials, 256), dtype=bool)
        np.put_along_axis(picked, experts.reshape(trials, tokens * 8), True, axis=1)
        return loads.max(axis=1).mean(), hit, picked.reshape(trials, ep, 256 // ep).sum(axis=2).max(axis=1).mean()

    # past 8 tokens (64 pairs) the distinct experts came from a normal form over a rank's experts, 6% low at 9-12
    # tokens on 16 or 32 ranks: the groups pick a rank's experts together
    for tokens, ep in ((1, 8), (4, 8), (1, 16), (2, 4), (8, 32), (10, 16), (12, 32), (24, 16)):
        busiest, hit, distinct = gate(tokens, ep)
        touched, assigned = busiest_rank_experts(256, 8, tokens, ep, 8, 4)
        assert float(assigned) == pytest.approx(busiest, rel=0.03), (tokens, ep)
        assert float(touched) == pytest.approx(distinct, rel=0.03), (tokens, ep)
        assert rank_hit_probability(256, 8, ep, 8, 4) == pytest.approx(hit, rel=0.03), (tokens, ep)
    ungrouped = float(busiest_rank_experts(256, 8, 1, 8)[1])
    grouped = float(busiest_rank_experts(256, 8, 1, 8, 8, 4)[1])
    assert ungrouped == pytest.approx(2.56, abs=0.02) and grouped == pytest.approx(3.0, abs=0.03)
    # the grouped load rises with the tokens through its table and Blom's form, and meets the ungrouped one where the
    # groups do not line up with the ranks (an EP of 3 is not a divisor or a multiple of 8 groups)
    tokens = np.arange(1.0, 400.0, 0.25)
    for ep in (2, 8, 64):
        touched, assigned = busiest_rank_experts(256, 8, tokens, ep, 8, 4)
        assert np.all(np.diff(assigned) >= -1e-12) and np.all(np.diff(touched) >= -1e-12), ep
    odd = busiest_rank_experts(384, 8, tokens, 3, 8, 4)[1]
    assert np.array_equal(odd, busiest_rank_experts(384, 8, tokens, 3)[1])


@pytest.mark.parametrize("moe, message", [
    ({"groups": 7}, "moe.groups: expected a divisor of experts=256, found 7"),
    ({"groups": 8, "groups_per_token": 9}, "moe.groups_per_token: expected at most groups=8, found 9"),
    ({"groups": 64, "groups_per_token": 1}, "moe.groups_per_token: expected enough groups to hold top_k=8 experts"),
])
def test_a_routing_group_that_cannot_be_is_refused_naming_the_field(moe, message):
    from roofline.errors import RooflineError
    from roofline.model import model_from_dict
    from roofline.yamlio import read_yaml_file

    data = read_yaml_file(Path(__file__).parent.parent / "model_profiles" / "deepseek-v3.yaml")
    data["moe"] = {k: v for k, v in data["moe"].items() if k not in ("groups", "groups_per_token")} | moe
    with pytest.raises(RooflineError, match=re.escape(message)):
        model_from_dict(data, "deepseek-v3.yaml")


def test_a_routed_experts_and_a_shared_experts_activations_are_counted_as_their_kernels_move_them():
    """A routed expert's pair was charged its hidden state in and out only (2 h), not its gate/up output and down
    input (3 f_e, split over the devices an expert spans), and every tensor-parallel rank the shared experts' whole
    width (qa63): checked term by term at tp 1 and tp 4."""
    from roofline.costs import busiest_rank_experts
    from roofline.model import load_model

    qwen = load_model("qwen3-30b-a3b")  # 128 experts, top 8, f_e 768, no shared experts
    h, f, moe_layers = qwen.hidden_size, qwen.moe.expert_ffn_size, qwen.moe_layers
    for tp in (1, 4):
        dep = deployment(qwen, tp=tp)
        touched, pairs = busiest_rank_experts(128, 8, 16, 1)
        _, nbytes = operator_costs(qwen, 16, 1, 512, dep)["experts"]
        weights = float(touched) * qwen.expert_params * 2 / tp * moe_layers
        assert float(nbytes) == pytest.approx(weights + float(pairs) * (2 * h + 3 * f / tp) * 2 * moe_layers, rel=1e-12), tp
    v3 = load_model("deepseek-v3")  # one shared expert of 2048 at tp 8
    w, t = v3.moe.shared_ffn_width, 4
    _, shared = operator_costs(v3, t, 1, 512, deployment(v3, "fp8", tp=8))["shared_experts"]
    assert float(shared) == pytest.approx(v3.moe_layers * (v3.shared_expert_params / 8 + t * (v3.hidden_size + w / 8 + 2 * w / 8
                                                                                            + v3.hidden_size) * 2), rel=1e-12)


@pytest.mark.slow
def test_sglang_splits_the_dense_mlp_shared_experts_and_lm_head_over_the_stage_under_attention_dp():
    """qa131, qa134: SGLang's --tp 8 --dp 8 --enable-dp-attention runs DeepSeek's dense MLP (moe_dense_tp_size unset),
    shared experts (no DeepEP) and LM head (enable_dp_lm_head off) over all 8 devices on every group's gathered
    tokens; roofline held them whole on each device of tp 1 groups: 4.9 GB more weights, max batch 968 for 1104 in the
    hardware profile's 0.90 of the memory (512 and 792 in each engine's own share: SGLang's 0.907 of an H200 less what it
    holds before measuring it (568 before session 58) less its
    DP-attention and per-device reserves, 1128 without them before session 36; vLLM's 0.90 less its reserve, its
    parallel term now also at tp 1 under attention DP: 872 without it, 864 with session 35's fit)."""
    import roofline
    from roofline.costs import weight_bytes_by_class
    from roofline.model import load_model
    from roofline.serving import for_engine, load_engine

    v3 = load_model("deepseek-v3")
    dep = deployment(v3, tp=1, dp_attention=8, ep=8)
    sglang, vllm, early = (for_engine(dep, load_engine(e), v3) for e in ("sglang", "vllm", "sglang-early"))
    assert sglang.stage_split == ("mlp", "shared_experts", "lm_head") and vllm.stage_split == ()
    assert early.stage_split == ("mlp", "shared_experts")  # its LM head a ReplicatedLinear under DP attention
    whole, split = weight_bytes_by_class(v3, vllm), weight_bytes_by_class(v3, sglang)
    for cls in ("mlp", "shared_experts", "lm_head"):
        assert split[cls] == pytest.approx(whole[cls] / 8, rel=1e-12)
    for cls in ("experts", "router", "embedding"):
        assert split[cls] == whole[cls]
    # vLLM's attention also holds MLA's up-projections as a 16-bit copy (mla_absorbed_bf16): 61 layers of 16.8M, whole
    assert whole["attention"] - split["attention"] == pytest.approx(61 * v3.mla_up_params_per_layer * 2.0, rel=1e-12)
    # the same FLOPs on every group's tokens gathered (B divisible by 8), an eighth of the weight reads
    for batch in (8, 64):
        a, b = operator_costs(v3, batch, 1, 4096, vllm), operator_costs(v3, batch, 1, 4096, sglang)
        for op in ("mlp", "shared_experts", "lm_head"):
            assert float(b[op][0]) == pytest.approx(float(a[op][0]), rel=1e-12)
            assert float(b[op][1]) < float(a[op][1])
    # DeepEP's dispatch keeps the shared experts in the group, as SGLang does
    deepep = dataclasses.replace(load_engine("sglang"), moe_dispatch="per_pair")
    assert for_engine(dep, deepep, v3).stage_split == ("mlp", "lm_head")
    assert for_engine(deployment(v3, tp=8), load_engine("sglang"), v3).stage_split == ()  # no attention DP: nothing to split
    p_s, p_v = (roofline.predict("h200", "deepseek-v3", engine=e, tp=1, dp_attention=8, ep=8, batch=64, context=4096)
                for e in ("sglang", "vllm"))
    assert (p_s["max_batch"], p_v["max_batch"]) == (512, 792)  # vLLM's 848 before its 2 GB of 16-bit up-projections
    def in_090(name):  # the engine without a share of its own, on any device (its overrides' shares dropped too)
        e = load_engine(name)
        overrides = tuple((g, {k: v for k, v in c.items() if k != "memory_fraction"}) for g, c in e.overrides)
        return dataclasses.replace(e, memory_fraction=None, overrides=overrides)
    same_memory = (roofline.predict("h200", "deepseek-v3", engine=in_090(e), tp=1, dp_attention=8, ep=8, batch=64,
                                    context=4096)["max_batch"] for e in ("sglang", "vllm"))
    assert tuple(same_memory) == (1104, 904)  # 968 before vLLM's 16-bit up-projections
    assert p_s["dp_gather_time_s"] > 0 and p_v["dp_gather_time_s"] == 0
    swept = roofline.sweep({"name": "s", "hardware": "h200", "model": "deepseek-v3", "engine": "sglang", "tp": 1,
                            "dp_attention": 8, "ep": 8, "axes": {"batch": [64], "context": [4096]}})
    assert int(swept["max_batch"].iloc[0]) == 512  # as predict gives it
    assert float(swept["step_time_s"].iloc[0]) == pytest.approx(p_s["step_time_s"], rel=1e-12)


def test_sglang_s_dense_layer_gathers_and_reduce_scatters_over_the_stage_in_place_of_its_all_reduce():
    """engine.collective_times_s: under a stage split each dense layer's second all-reduce becomes the reduce-scatter
    of its gather, two ring passes of T h over D, and the LM head gathers hidden states and logits once a pass."""
    from roofline.engine import collective_times_s
    from roofline.hardware import load_hardware
    from roofline.model import load_model
    from roofline.serving import for_engine, load_engine

    hw, v3, sglang = load_hardware("h200"), load_model("deepseek-v3"), load_engine("sglang")
    group = deployment(v3, tp=2, dp_attention=4, ep=8)
    stage = for_engine(group, sglang, v3)
    a, b = (collective_times_s(hw, v3, d, sglang, np.array([64.0]), np.array([1.0])) for d in (group, stage))
    assert float(a["dp_gather_time_s"][0]) == 0 < float(b["dp_gather_time_s"][0])
    layers, _, dense = group.stage_layers(v3)
    # 2 layers - 58 MoE layers' replaced before; now the 3 dense layers' second all-reduce goes too
    assert float(b["allreduce_time_s"][0]) == pytest.approx(float(a["allreduce_time_s"][0]) * (2 * layers - 58 - dense)
                                                            / (2 * layers - 58), rel=1e-12)


@pytest.mark.slow
def test_sglang_s_stage_split_in_prefill_pipelines_a_drafter_elsewhere_and_the_embedding(tmp_path):
    """qa136: the LM head's logits all-gather was priced on every prompt token of a prefill (26 ms at 32k) and left
    out of a pipeline's round trip; a drafter on its own device kept the target's split (gathers on one device);
    SGLang's input embedding, whole on every device under DP attention, was split over the group's tp."""
    from roofline.costs import weight_bytes_by_class
    from roofline.engine import collective_times_s, lm_head_gather_time_s, step_metrics
    from roofline.hardware import load_hardware
    from roofline.layout import single_device
    from roofline.model import load_model
    from roofline.serving import for_engine, load_engine

    hw, v3, sglang = load_hardware("h200"), load_model("deepseek-v3"), load_engine("sglang")
    dep = for_engine(deployment(v3, tp=1, dp_attention=8, ep=8), sglang, v3)
    one = float(lm_head_gather_time_s(hw, v3, dep, sglang, 1.0, 1.0))
    prefill = step_metrics(hw, v3, 1, 32768, 0, dep, engine=sglang, logit_tokens=1, prefill=True)
    dense = collective_times_s(hw, v3, dep, sglang, np.array([1.0]), np.array([32768.0]), padded=False)["dp_gather_time_s"]
    assert float(prefill["dp_gather_time_s"]) == pytest.approx(float(dense[0]) + one, rel=1e-9) and one > 0  # one token's logits
    assert single_device(dep).stage_split == () and single_device(dep).whole == ()
    piped = for_engine(deployment(v3, tp=1, dp_attention=4, ep=4, pp=2), sglang, v3)
    m = step_metrics(hw, v3, 1, 1, 4096, piped, engine=sglang)  # batch 1 on pp 2: a round trip of mean stages
    head = float(lm_head_gather_time_s(hw, v3, piped, sglang, 1.0, 1.0))
    mean = step_metrics(hw, v3, 1, 1, 4096, for_engine(deployment(v3, tp=1, dp_attention=4, ep=4, pp=2), load_engine("vllm"), v3),
                        engine=sglang)  # no split: what the split adds is its gathers less its lighter reads
    assert float(m["dp_gather_time_s"]) >= head > 0 and float(m["comm_time_s"]) >= float(mean["comm_time_s"])
    grouped = for_engine(deployment(v3, tp=2, dp_attention=4, ep=8), sglang, v3)
    assert weight_bytes_by_class(v3, grouped)["embedding"] == pytest.approx(v3.embedding_params * 2.0, rel=1e-12)
    assert weight_bytes_by_class(v3, deployment(v3, tp=2, dp_attention=4, ep=8))["embedding"] == pytest.approx(
        v3.embedding_params * 2.0 / 2, rel=1e-12)


@pytest.mark.slow
def test_cheapest_leaves_out_a_layout_sglang_refuses_to_load(tmp_path, roofline):
    """qa136: SGLang splits DeepSeek's dense MLP 32 ways at dp_attention 32 (576 wide, not whole 128-blocks): the sweep
    warned it refuses the shard, cheapest still priced its rows (its layout check held no engine)."""
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: s\nhardware: h200\nmodel: deepseek-v3\nengine: [sglang, vllm]\n"
                        "layouts: [{dp_attention: 32, ep: 32}, {dp_attention: 8, ep: 8}]\naxes:\n  batch: [64, 512]\n  context: [4096]\n")
    assert roofline("sweep", scenario, "--out", tmp_path / "sw", "--no-plots")[0] == 0
    code, out, err = roofline("cheapest", tmp_path / "sw", "--out", tmp_path / "f.csv")
    frontier = pd.read_csv(tmp_path / "f.csv")
    assert code == 0 and not ((frontier["engine"] == "sglang") & (frontier["dp_attention"] == 32)).any(), out


@pytest.mark.slow
def test_early_sglang_holds_its_lm_head_whole_and_a_dense_model_under_its_layout_is_noted():
    """qa137: sglang-early's LM head (a ReplicatedLinear under DP attention) was split over the group's tp; a dense model
    under SGLang's attention-DP layout, none SGLang runs, went without a word."""
    import roofline

    p = roofline.predict("h200", "deepseek-v3", engine="sglang-early", tp=2, dp_attention=4, ep=8, batch=256, context=4096)
    v3 = roofline.load_model("deepseek-v3")
    assert p["weight_classes"]["lm_head"]["bytes_per_device"] == pytest.approx(v3.lm_head_params * 2.0, rel=1e-9)
    assert p["operators"]["lm_head"]["flops"] == pytest.approx(2.0 * v3.lm_head_params * 256 / 4, rel=1e-9)
    dense = roofline.predict("h100-sxm", "llama-3.1-70b", engine="sglang", tp=2, dp_attention=4)
    assert any("describe no SGLang setup" in w for w in dense["warnings"])


def test_a_prefills_attention_flops_take_each_layers_entries_averaged_over_its_queries():
    """qa355: reverting operator_costs to entries_read at the queries' mean position passed every test. By hand for
    gpt-oss-120b's 256-token prefill (a 128-token window on its sliding layers): each group's layers x attention_flops
    at the brute-force mean of the entries each query reads; the old form 13% above it."""
    from roofline.costs import attention_flops
    from roofline.model import load_model

    model = load_model("gpt-oss-120b")
    dep = deployment(model)
    d_qk, d_v = model.attention_dims_per_query_head(True)
    got = float(operator_costs(model, 1, 256, 0, dep, logit_tokens=1, prefill=True)["attention"][0])

    def flops(read) -> float:
        return sum(layers * float(attention_flops(model.heads, d_qk, d_v, 256.0, read(g))) / dep.tp
                   for g, layers in zip(model.groups, dep.stage_group_layers(model)))

    brute = flops(lambda g: np.mean([float(model.entries_read(g, p)) for p in range(1, 257)]))
    at_mean = flops(lambda g: float(model.entries_read(g, 128.5)))
    assert got == pytest.approx(brute, rel=1e-5) and at_mean > 1.1 * got  # (float32 sums in the table)


# qa387's surviving mutants of costs.py: each figure by hand from the module docstring's terms
def test_routed_expert_flops_split_over_tensor_parallel_devices():
    """2 x params of an expert (3 h f) x top_k / tp x layers: Mixtral at tp 2, one token (K28: x expert_tp dropped)."""
    from roofline.model import load_model

    mx = load_model("mixtral-8x7b")
    flops = operator_costs(mx, 1, 1, 1024, deployment(mx, tp=2))["experts"][0]
    assert flops == pytest.approx(2 * (3 * 4096 * 14336) * 2 / 2 * 32)  # 11,274,289,152


def test_a_shared_prefix_longer_than_the_context_is_held_at_the_context_not_below_zero():
    """min(P, L): a prefix of 5,000 of a 1,000-token context is the context, held once (K8: -1.44 GB without it)."""
    from roofline.model import load_model

    m = load_model("llama-3.1-8b")
    assert kv_cache_bytes(m, 4, 1000, deployment(m), shared_prefix=5000) == pytest.approx(1000 * 32 * 2 * 8 * 128 * 2)


def test_an_ungated_mlp_streams_two_matrices_and_writes_its_width_once():
    """ffn_gated false: up and down, h f each, and activations h + f in, f + h out (K16: the gated output width 2f)."""
    from roofline.model import load_model

    m = dataclasses.replace(load_model("llama-3.1-8b"), ffn_gated=False)
    mlp_bytes = operator_costs(m, 1, 1, 1024, deployment(m))["mlp"][1]
    assert mlp_bytes == pytest.approx(2 * 4096 * 14336 * 32 * 2 + 32 * (4096 + 14336 + 14336 + 4096) * 2)


def test_norms_take_five_flops_an_element_and_eight_passes_a_layer():
    """Norms: 5 FLOPs per element, 8 passes of h elements of 2 B a layer (K2, K19: 7 passes, 4 FLOPs)."""
    from roofline.model import load_model

    m = load_model("llama-3.1-8b")
    flops, nbytes = operator_costs(m, 1, 1, 1024, deployment(m))["norms"]
    assert (float(flops), float(nbytes)) == (5 * 4096 * 8 * 32, 4096 * 2 * 8 * 32)


def test_the_indexer_reads_a_mean_length_of_context_plus_half_the_pass():
    """DeepSeek-V4's lightning indexer over S + (q + 1) / 2 cached tokens, compressed 4:1, 64 heads of 128, its 21
    layers: q = 2 at S = 4,095 (K14: S + q / 2)."""
    import math

    from roofline.model import load_model

    v4 = load_model("deepseek-v4-flash")
    flops = operator_costs(v4, 1, 2, 4095, deployment(v4))["indexer"][0]
    assert flops == pytest.approx(2 * 64 * 128 * 2 * math.ceil((4095 + 3 / 2) / 4) * 21)  # 705,331,200


def test_the_mean_pipeline_stage_holds_the_larger_of_embedding_and_lm_head_once():
    """K22: the mean stage held the embedding alone where the LM head is the larger (here equal sizes, the LM head held
    whole: each device of a stage holds the whole embedding, not its tp share)."""
    from roofline.costs import weight_bytes_by_class
    from roofline.model import load_model

    m = load_model("llama-3.1-8b")
    dep = dataclasses.replace(deployment(m, tp=2, dp_attention=2, pp=2), whole=("lm_head",), stage="mean")
    by = weight_bytes_by_class(m, dep)
    assert (by["embedding"], by["lm_head"]) == (128256 * 4096 * 2, 0.0)


@pytest.mark.slow
def test_routing_constants_the_docstrings_name():
    """K4: Blom's (n - 0.375) / (n + 0.25); K30: a rank's draws run until (1 - k / E)^n < 1e-3; K25: a micro-batch of
    sequence-split tokens is whole."""
    import math
    from statistics import NormalDist

    from roofline.costs import _simulated_routing, expected_max_z, sequence_split_tokens
    from roofline.layout import Deployment

    assert expected_max_z(8) == pytest.approx(NormalDist().inv_cdf((8 - 0.375) / (8 + 0.25)))  # 1.4342
    assert _simulated_routing(256, 8, 8)[3][0, -1] == math.ceil(math.log(1e-3) / math.log(1 - 8 / 256))  # 218
    assert sequence_split_tokens(1, Deployment(tp=8)) == 1


def test_every_expert_a_token_s_on_an_expert_parallel_layout_is_priced_not_a_traceback():
    """qa410: top_k equal to the expert count (a profile the loader takes) crashed at ep > 1 (math.log1p(-1) in the
    routing table's reach): every token picks every expert, so a rank holds E / ep experts and T x E / ep pairs."""
    touched, assigned = busiest_rank_experts(8, 8, np.array([1.0, 2.0, 100.0]), 2)
    assert np.allclose(touched, 4.0) and np.allclose(assigned, [4.0, 8.0, 400.0]), (touched, assigned)
