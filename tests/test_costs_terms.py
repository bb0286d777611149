"""costs.py's docstring terms the suite did not pin, each figure by hand (qa462's mutation round). Each test names the
surviving mutants it kills (their ids in the qa462 report)."""
import dataclasses
import math
from statistics import NormalDist

import pytest

from roofline.costs import (
    _simulated_routing,
    busiest_rank_experts,
    expected_max_load,
    expected_max_z,
    kv_cache_bytes,
    operator_costs,
    weight_bytes_by_class,
)
from roofline.layout import deployment
from roofline.model import AttentionGroup, load_model

V3 = load_model("deepseek-v3")
LLAMA = load_model("llama-3.1-8b")
KV_TOKEN_LAYER = 2 * 8 * 128 * 2  # Llama-3.1-8B: K and V of 8 heads of 128, bf16: 4,096 B a token a layer


def test_an_mla_prefill_without_a_cached_context_expands_nothing():
    """E = read_g(S, 1) entries of the cache, not of S + q (M-C10): at S = 0 the qkv GEMM alone, on DeepSeek-V3 at
    tp 8: 2 x (7168 x 2112 whole + (1536 x 128 x 192 + 512 x 128 x 256) / 8) x 64 tokens x 61 layers."""
    per_device = 7168 * (1536 + 512 + 64) + (1536 * 128 * 192 + 512 * 128 * 256) / 8  # 21,954,560
    flops = operator_costs(V3, 1, 64, 0, deployment(V3, tp=8), logit_tokens=1, prefill=True)["qkv_proj"][0]
    assert float(flops) == pytest.approx(2 * per_device * 64 * 61, rel=1e-12)  # 171,421,204,480


@pytest.mark.slow
def test_an_mla_prefill_expands_the_cached_latents_of_its_attention_groups_sequences_alone():
    """B_a = B / dp_attention sequences' caches (M-C11: B): DeepSeek-V3 at tp 2 x dp_attention 4, batch 8 (2 a group),
    1,024 cached: 61 x 2 x 512 x (128 / 2 x 256) x 2 x 1,024."""
    dep = deployment(V3, tp=2, dp_attention=4, ep=8)
    cached, fresh = (operator_costs(V3, 8, 16, s, dep, logit_tokens=1, prefill=True)["qkv_proj"] for s in (1024, 0))
    u = 128 / 2 * (128 + 128)
    assert float(cached[0] - fresh[0]) == pytest.approx(61 * 2 * 512 * u * 2 * 1024, rel=1e-12)
    assert float(cached[1] - fresh[1]) == pytest.approx(61 * 2 * 2 * 1024 * u * 2, rel=1e-12)


def test_a_sparse_mla_group_expands_no_cached_context():
    """'per layer of a dense MLA group (no read_tokens cap)' (M-C09: the filter dropped)."""
    sparse = dataclasses.replace(V3, groups=(AttentionGroup(kind="full", layers=61, read_tokens=2048),))
    dep = deployment(V3, tp=8)
    flops = [float(operator_costs(sparse, 1, 64, s, dep, logit_tokens=1, prefill=True)["qkv_proj"][0]) for s in (0, 65536)]
    assert flops[0] == flops[1]


def test_attention_flops_split_over_tensor_parallel_ranks():
    """attention_flops(...) / tp (M-C16): Llama-3.1-8B at tp 4, 2 sequences at S = 1,023 read 1,024 entries each:
    32 layers x 2 x 32 heads x (128 + 128) x 2 tokens x 1,024 / 4."""
    flops = operator_costs(LLAMA, 2, 1, 1023, deployment(LLAMA, tp=4))["attention"][0]
    assert float(flops) == 32 * 2 * 32 * 256 * 2 * 1024 / 4  # 268,435,456


@pytest.mark.parametrize("prefix, read_once, entries", [
    (600, True, 4 * 1000 - 3 * 600),   # shared_g = read(1000) - read(400) = 600, read once (M-C19: B_a x shared)
    (600, False, 4 * 1000),            # every sequence its own (M-C20: the flag ignored)
    (5000, True, 4 * 1000 - 3 * 999),  # P capped at S = 999: read(1000) - read(1) (M-C49)
])
def test_a_shared_prefix_is_read_once_a_pass(prefix, read_once, entries):
    """(B_a read_g(S + q, q) - (B_a - 1) shared_g) x entry bytes + activations: Llama-3.1-8B, 4 sequences, S = 999."""
    costs = operator_costs(LLAMA, 4, 1, 999, deployment(LLAMA), shared_prefix=prefix, shared_prefix_read_once=read_once)
    activations = 4 * 32 * (128 + 128) * 2 * 32
    assert float(costs["attention"][1]) == entries * KV_TOKEN_LAYER * 32 + activations


V4 = load_model("deepseek-v4-flash")  # 21 CSA layers: an indexer of 64 heads x 128, entries 4:1, keys 132 B a 128


@pytest.mark.parametrize("prefix, read_once, keys", [
    (0, True, 4 * 1000),
    (2000, True, 4 * 1000 - 3 * 500),  # shared_idx = idx(4000) - idx(4000 - 2000) = 500 (M-C22: idx(S - P) = 498; M-C23)
    (2000, False, 4 * 1000),           # (M-C65)
])
def test_the_indexer_reads_its_keys_at_their_own_bytes_a_shared_prefix_once(prefix, read_once, keys):
    """bytes = (B_a idx(S + q) - (B_a - 1) shared_idx) x index_dim x c_idx, idx(L) = ceil(L / 4), c_idx = 132 / 128
    whatever the KV dtype (M-C21: the KV dtype's 2 B): 4 sequences verifying q = 8 at S = 3,992."""
    nbytes = operator_costs(V4, 4, 8, 3992, deployment(V4), shared_prefix=prefix, shared_prefix_read_once=read_once)["indexer"][1]
    assert float(nbytes) == pytest.approx(21 * keys * 132, rel=1e-12)


def test_the_indexer_scores_at_the_mean_position_of_a_wide_pass():
    """idx_g(S + (q + 1) / 2): q = 16 at S = 4,000 scores ceil(4,008.5 / 4) = 1,003 entries a query, not
    ceil(4,016 / 4) = 1,004 at S + q (M-C24) nor 1,002 at S + q / 2."""
    flops = operator_costs(V4, 1, 16, 4000, deployment(V4))["indexer"][0]
    assert float(flops) == 2 * 64 * 128 * 16 * 1003 * 21


def test_the_router_writes_one_score_an_expert():
    """router h -> E (M-C26: h -> h): DeepSeek-V3's bf16 gate, whole on every rank, 4 tokens, 58 MoE layers."""
    assert V3.router_params == 256 * 7168
    nbytes = operator_costs(V3, 4, 1, 1024, deployment(V3, "fp8"))["router"][1]
    assert float(nbytes) == pytest.approx(58 * (256 * 7168 * 2 + 4 * (7168 + 256) * 2), rel=1e-12)


@pytest.mark.slow  # one routing simulation (DeepSeek-V3's groups on 8 ranks)
def test_every_groups_tokens_are_routed_to_the_experts():
    """All T = B q tokens are routed (M-C27: the busiest group's T_a): DeepSeek-V3 at tp 2 x dp_attention 4, ep 8,
    batch 8: the busiest rank's pairs of 8 tokens, each expert whole on its rank (D / ep = 1)."""
    dep = deployment(V3, tp=2, dp_attention=4, ep=8)
    _, assigned = busiest_rank_experts(256, 8, 8.0, 8, 8, 4)
    flops = operator_costs(V3, 8, 1, 1024, dep)["experts"][0]
    assert float(flops) == pytest.approx(2 * V3.expert_params * float(assigned) * 58, rel=1e-12)


@pytest.mark.slow  # loads an engine profile
@pytest.mark.parametrize("prefill", [False, True])
def test_a_stage_split_runs_padded_rows_in_decode_and_the_prompts_own_in_prefill(prefill):
    """SGLang at tp 1 x dp_attention 8 (its dense MLP and LM head over the 8 devices), batch 9: a decode pass pads each
    group's rows to the busiest's, ceil(9 / 8) x 8 = 16 (M-C31, M-C32); a prefill of 100 tokens runs 900 and gathers
    9 logits (M-C28, M-C29, M-C30)."""
    from roofline.serving import for_engine, load_engine

    dep = for_engine(deployment(V3, tp=1, dp_attention=8, ep=8), load_engine("sglang"), V3)
    q, logits = (100, 1) if prefill else (1, None)
    costs = operator_costs(V3, 9, q, 512, dep, logit_tokens=logits, prefill=prefill)
    mlp_rows, head_rows = (900, 9) if prefill else (16, 16)
    assert float(costs["mlp"][0]) == pytest.approx(2 * 3 * 7168 * 18432 / 8 * mlp_rows * 3, rel=1e-12)
    assert float(costs["lm_head"][0]) == pytest.approx(2 * 129280 * 7168 / 8 * head_rows, rel=1e-12)


def test_a_medusa_head_gathers_no_embedding_and_its_block_moves_h_in_and_h_out():
    """A Medusa head: no embedding (M-C38); its h -> h block, h^2 bf16 weights and T (h + h) activations (M-C02: 3h)."""
    from roofline.speculation import drafter_deployment, drafter_spec

    head = drafter_spec("medusa", LLAMA)
    costs = operator_costs(head, 4, 1, 1024, drafter_deployment("medusa", head, deployment(LLAMA), False))
    assert float(costs["embedding"][1]) == 0.0
    assert float(costs["input_proj"][1]) == 4096 * 4096 * 2 + 4 * (4096 + 4096) * 2
    assert float(costs["input_proj"][0]) == 2 * 4096 * 4096 * 4


def test_blom_z_for_two_ranks_is_not_zero():
    """Phi^-1((n - 0.375) / (n + 0.25)), 0 for n = 1 only (M-C43: 0 for n = 2 too)."""
    assert expected_max_z(1) == 0.0
    assert expected_max_z(2) == pytest.approx(NormalDist().inv_cdf(1.625 / 2.25), rel=1e-12)  # 0.589


@pytest.mark.slow  # one routing simulation
def test_a_top_1_routers_busiest_rank_past_64_pairs_follows_the_docstrings_extrapolation():
    """Past T_s = 64 tokens (top 1, 8 ranks): b(n) = n / 8 + z_8 sqrt(n Var_1) times 1 + (L(64) / b(64) - 1)
    sqrt(64 / n), L the exact balls-in-bins maximum (M-C35: the excess fading as 64 / n); Var_1 of a top-1 token's
    pairs on one rank is Bernoulli(1/8)'s 7/64 (M-C70: the simulation's variance scaled)."""
    variance = _simulated_routing(128, 1, 8)[1]
    assert variance == pytest.approx(7 / 64, rel=0.01)
    z = NormalDist().inv_cdf((8 - 0.375) / (8 + 0.25))

    def b(n):
        return n / 8 + z * math.sqrt(n * variance)

    n = 1000.0
    expected = b(n) * (1 + (expected_max_load(64, 8) / b(64) - 1) * math.sqrt(64 / n))
    assert float(busiest_rank_experts(128, 1, n, 8)[1]) == pytest.approx(expected, rel=1e-12)


@pytest.mark.slow  # loads an engine profile
def test_the_absorbed_16_bit_copy_counts_the_stages_layers():
    """layers_stage x mla_absorbed_params x 2 B held, x (2 - w_c) read (M-C47: the model's 61 layers; M-C71: 61 read):
    DeepSeek-V3 fp8 at tp 8, pp 2: the busiest stage's 30 or 31 layers, 512 x 128 x 256 / 8 up-projection weights a layer."""
    from roofline.serving import for_engine, load_engine

    vllm = for_engine(deployment(V3, "fp8", tp=8, pp=2), load_engine("vllm"), V3)
    plain = dataclasses.replace(vllm, mla_absorbed_bf16=False)
    layers = vllm.stage_layers(V3)[0]
    assert vllm.mla_absorbed_bf16 and layers in (30, 31)  # 61 over 2 stages
    up = 512 * 128 * 256 / 8
    held = weight_bytes_by_class(V3, vllm)["attention"] - weight_bytes_by_class(V3, plain)["attention"]
    assert held == pytest.approx(layers * up * 2, rel=1e-12)
    read = [float(operator_costs(V3, 16, 1, 2048, d)["qkv_proj"][1]) for d in (vllm, plain)]
    assert read[0] - read[1] == pytest.approx(layers * up * (2 - 1), rel=1e-12)


def test_a_moe_models_dense_mlp_runs_on_its_dense_layers_alone():
    """DeepSeek-V3's 3 dense layers' MLP (M-C61: all 61): 2 x 3 x 7168 x 18432 / 8 a token a layer at tp 8."""
    flops = operator_costs(V3, 1, 1, 1024, deployment(V3, "fp8", tp=8))["mlp"][0]
    assert float(flops) == pytest.approx(2 * 3 * 7168 * 18432 / 8 * 3, rel=1e-12)


def test_a_verify_pass_writes_every_token_it_verifies():
    """kv_write = T_a x entry bytes a layer (M-C63: B, one a sequence): 2 sequences x q 4, Llama-3.1-8B."""
    nbytes = operator_costs(LLAMA, 2, 4, 1024, deployment(LLAMA))["kv_write"][1]
    assert float(nbytes) == 2 * 4 * KV_TOKEN_LAYER * 32  # 1,048,576


def test_a_pipeline_stage_reads_the_kv_of_its_own_layers_and_expands_the_mla_cache_of_its_own():
    """Each group's layers on the stage (M-C73: the model's): Llama-3.1-8B at pp 2, 16 layers, S = 1,023; DeepSeek-V3
    at tp 8 x pp 2 expands a cached context in its busiest stage's 31 layers (M-C72: 61)."""
    nbytes = operator_costs(LLAMA, 1, 1, 1023, deployment(LLAMA, pp=2))["attention"][1]
    assert float(nbytes) == 1024 * KV_TOKEN_LAYER * 16 + 1 * 32 * 256 * 2 * 16
    dep = deployment(V3, tp=8, pp=2)
    cached, fresh = (operator_costs(V3, 1, 64, s, dep, logit_tokens=1, prefill=True)["qkv_proj"][0] for s in (4096, 0))
    assert float(cached - fresh) == pytest.approx(31 * 2 * 512 * (128 / 8 * 256) * 4096, rel=1e-12)


@pytest.mark.parametrize("length, ratio, tokens", [
    (1000, 0.5, 1000 + 500),  # full e max(S, m / r) = 1000, sliding e max(r S, m) = 500 (M-C51: max(S, m))
    (100, 0.1, 1000 + 100),   # m = 100: full max(100, 1000) (M-C50: S), sliding max(10, 100)
])
def test_a_hybrid_window_pool_charges_each_layer_by_the_pool_that_fills_first(length, ratio, tokens):
    """gpt-oss-120b, 18 full and 18 sliding layers (window 128), 8 KV heads of 64 in bf16: 2,048 B an entry."""
    oss = load_model("gpt-oss-120b")
    held = kv_cache_bytes(oss, 1, length, deployment(oss, kv_dtype="bf16"), window_pool_ratio=ratio)
    assert float(held) == 18 * 2048 * tokens


def test_an_mla_prefill_attends_in_the_non_absorbed_form():
    """Prefill: d_qk = nope + rope = 192, d_v = 128 a head (640 FLOPs a query-key pair and head, not decode's absorbed
    2176) (M-C81), and its activations the rank's heads x (192 + 128) in and out (M-C99: the absorbed 576 + 512).
    DeepSeek-V3 at tp 8, a 128-token prompt, nothing cached: the queries read 64.5 entries on average (positions 1 to
    128), the pass 128 latents of 576 bf16 values a layer."""
    dep = deployment(V3, tp=8, kv_dtype="bf16")
    flops, nbytes = operator_costs(V3, 1, 128, 0, dep, logit_tokens=1, prefill=True)["attention"]
    assert float(flops) == pytest.approx(61 * 2 * 128 * (192 + 128) * 128 * 64.5 / 8, rel=1e-12)
    assert float(nbytes) == pytest.approx(61 * (128 * 576 * 2 + 128 * 128 / 8 * (192 + 128) * 2), rel=1e-12)


def test_a_pipeline_stage_holds_the_routers_of_its_own_moe_layers():
    """The router whole on every rank, for the stage's MoE layers (M-C114: every MoE layer's): DeepSeek-V3 at tp 8 x pp 2,
    the busiest stage 31 MoE layers of a bf16 gate of 256 x 7,168."""
    dep = deployment(V3, "fp8", tp=8, pp=2)
    assert dep.stage_layers(V3)[1] == 31
    assert weight_bytes_by_class(V3, dep)["router"] == pytest.approx(31 * 256 * 7168 * 2, rel=1e-12)


def test_an_attention_group_attends_and_writes_for_its_own_sequences_under_attention_dp():
    """T_a = B_a q (M-C143: attention FLOPs of B q; M-C144: KV written for B q): Llama-3.1-8B at dp_attention 2,
    batch 4 (2 a group), S = 1,023: 32 x 2 x 32 x 256 x 2 x 1,024 FLOPs and 2 x 4,096 B x 32 layers written."""
    costs = operator_costs(LLAMA, 4, 1, 1023, deployment(LLAMA, dp_attention=2))
    assert float(costs["attention"][0]) == 32 * 2 * 32 * 256 * 2 * 1024
    assert float(costs["kv_write"][1]) == 2 * KV_TOKEN_LAYER * 32


def test_the_indexer_is_replicated_not_split_over_tp():
    """Every rank scores all of its T_a queries (M-C145: / tp): DeepSeek-V4 at tp 8 as at tp 1, q = 16 at S = 4,000."""
    flops = operator_costs(V4, 1, 16, 4000, deployment(V4, tp=8))["indexer"][0]
    assert float(flops) == 2 * 64 * 128 * 16 * 1003 * 21
