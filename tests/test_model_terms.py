"""Model terms (model.py) the suite did not pin, found by mutation testing (qa465): parameter counts and KV bytes
against the module docstring's equations."""

from dataclasses import replace

import pytest

from roofline.model import MLASpec, check_model_spec, load_model

DS3 = load_model("deepseek-v3")


def test_a_full_rank_mla_query_projects_hidden_to_heads_times_nope_plus_rope():
    """mla: hidden*heads*(nope+rope) without q_lora (model docstring), + hidden*(kv_lora+rope) + kv_lora*heads*(nope+v)
    + heads*v*hidden: DeepSeek-V3's shapes with q_lora_rank 0 (DeepSeek-V2-Lite's kind) by hand (qa465 M01: the
    query's rope dims dropped)."""
    m = DS3.mla
    full = check_model_spec(replace(DS3, mla=MLASpec(0, m.kv_lora_rank, m.qk_nope_head_dim, m.qk_rope_head_dim, m.v_head_dim)))
    h = 7168
    q = h * 128 * (128 + 64)
    kv = h * (512 + 64) + 512 * 128 * (128 + 128)
    o = 128 * 128 * h
    assert full.attention_params_per_layer == q + kv + o == 314_507_264
    assert full.qkv_params_per_layer == q + kv
    # per tp rank: the kv_a down-projection whole (no q_a without q_lora), the rest a 1/tp share
    assert full.qkv_params_per_layer_per_device(8) == pytest.approx((q + 512 * 128 * 256) / 8 + h * 576, rel=1e-12)


def test_deepseek_v3s_mtp_module_is_one_moe_block_an_eh_projection_and_two_norms_by_hand():
    """mtp_params: one block (MoE, all 256 experts) + a 2h -> h projection + 2 norms, the embedding and head shared:
    attention 7168 x 1536 + 1536 x 128 x 192 + 7168 x 576 + 512 x 128 x 256 + 128 x 128 x 7168 = 187,105,280;
    MoE 256 x 3 x 7168 x 2048 + 3 x 7168 x 2048 + 7168 x 256 = 11,320,164,352; norms 2 x 7168; eh_proj 2 x 7168^2
    = 102,760,448; enorm + hnorm 2 x 7168: 11,610,058,752 (qa465 M21: eh_proj dropped; M22: a dense block)."""
    h = 7168
    attention = h * 1536 + 1536 * 128 * 192 + h * 576 + 512 * 128 * 256 + 128 * 128 * h
    moe = 256 * 3 * h * 2048 + 3 * h * 2048 + h * 256
    assert attention == 187_105_280 and moe == 11_320_164_352
    assert DS3.mtp_params == attention + moe + 2 * h + 2 * h * h + 2 * h == 11_610_058_752
    assert DS3.params_by_class()["mtp"] == DS3.mtp_params
    assert load_model("llama-3.1-8b").mtp_params == 0


@pytest.mark.slow
def test_the_classes_parameters_sum_to_the_model_and_its_mtp_modules_the_final_norm_under_attention(roofline):
    """params_by_class sums to params + mtp_params (its docstring): llama-3.1-8b's attention class is 32 layers of
    4096^2 + 2 x 4096 x 1024 + 4096^2 + 2 x 4096 (norms) and the final norm's 4096: 1,342,443,520 (qa465 M24: the final
    norm left out of every class, the sum one hidden_size short)."""
    llama = load_model("llama-3.1-8b")
    per_layer = 4096 * 4096 + 2 * 4096 * 1024 + 4096 * 4096 + 2 * 4096
    assert llama.params_by_class()["attention"] == 32 * per_layer + 4096 == 1_342_443_520
    for name in ("llama-3.1-8b", "deepseek-v3", "gpt-oss-120b", "deepseek-v4-flash", "llama-3.2-1b"):
        m = load_model(name)
        assert sum(m.params_by_class().values()) == m.params + m.mtp_params, name
    code, out, _ = roofline("models", "show", "deepseek-v3")
    assert code == 0 and "MTP modules      1 (11.61 B params)" in out


def test_a_compressed_group_without_a_window_reads_only_its_compressed_entries_at_any_query_count():
    """entries_read of a compressed group: ceil(S / ratio) + min(S, W + q - 1) where it keeps a window, and no
    sliding part at W = 0 (a window of 0: 'no sliding part'): 1,000 tokens at ratio 4 are 250 entries for 1 query and
    for 4 (qa465 M36: 253 at q = 4, the q - 1 entries of a window it does not have)."""
    from roofline.model import AttentionGroup

    g = AttentionGroup("compressed", 4, window=0, ratio=4)
    assert float(DS3.entries_read(g, 1000, 1)) == 250.0
    assert float(DS3.entries_read(g, 1000, 4)) == 250.0
    w = AttentionGroup("compressed", 4, window=128, ratio=4)
    assert float(DS3.entries_read(w, 1000, 4)) == 250.0 + 128 + 3


def test_the_mean_reads_of_a_dense_compressed_layer_are_at_the_queries_mean_position_s_plus_q_plus_1_over_2():
    """mean_entries_read: the q queries sit at S + 1 ... S + q, mean S + (q + 1) / 2; DeepSeek-V4-Flash's HCA layer
    (ratio 128, window 128, no sparse pick) at S = 127, q = 2: ceil(128.5 / 128) = 2 compressed entries, and the mean of
    min(u, 128) over u in [127.5, 129.5]: ((128^2 - 127.5^2) / 2 + 128 x 1.5) / 2 = 127.9375 (qa465 M37: at S + q / 2,
    ceil(128 / 128) = 1)."""
    v4 = load_model("deepseek-v4-flash")
    hca = v4.groups[2]
    assert (hca.kind, hca.ratio, hca.window, hca.read_tokens) == ("compressed", 128, 128, 0)
    assert float(v4.mean_entries_read(hca, 127, 2)) == 2 + 127.9375


def test_one_query_reads_what_entries_read_gives_at_its_own_position():
    """At q = 1 mean_entries_read is entries_read at S + 1 itself (its docstring): a 128-token window at S = 127 reads
    min(128, 128) = 128 entries, not the mean of min(u, 128) over [127.5, 128.5], 127.875 (qa465 M38: q < 1)."""
    v4 = load_model("deepseek-v4-flash")
    sliding = v4.groups[0]
    assert (sliding.kind, sliding.window) == ("sliding", 128)
    assert float(v4.mean_entries_read(sliding, 127, 1)) == 128.0
    assert float(v4.mean_entries_read(sliding, 127, 2)) == 127.9375  # two queries: the mean over [127.5, 129.5]


def test_the_weights_as_released_take_each_classs_own_dtype(roofline):
    """weight_bytes_as_released: DeepSeek-V3's fp8 classes at 1 B (attention, MLP, experts, shared experts, MTP) and
    its bf16 router, embedding and LM head at 2 B: 680,676,549,632 + 2 x 1,959,788,544 = 684,596,126,720 B, said as
    685 GB (qa465 M44: every class at 2 B, 1.36 TB)."""
    c = DS3.params_by_class()
    fp8 = c["attention"] + c["mlp"] + c["experts"] + c["shared_experts"] + c["mtp"]
    bf16 = c["router"] + c["embedding"] + c["lm_head"]
    assert (fp8, bf16) == (680_676_549_632, 1_959_788_544)
    assert DS3.weight_bytes_as_released == 684_596_126_720.0
    code, out, _ = roofline("models", "show", "deepseek-v3")
    assert code == 0 and "(685 GB of weights as released, MTP included)" in out


def test_routing_groups_without_groups_per_token_are_not_group_limited():
    """moe.groups_per_token defaults to moe.groups (MoESpec: a token may draw from every group): a profile giving
    groups: 8 alone is not group-limited routing (qa465 M53: it defaulted to 1 group a token)."""
    from roofline.model import model_from_dict

    raw = {"name": "g8", "layers": 4, "hidden_size": 256, "heads": 4, "kv_heads": 4, "head_dim": 64, "ffn_size": 512,
           "vocab_size": 1000, "moe": {"experts": 32, "top_k": 4, "expert_ffn_size": 128, "groups": 8}}
    moe = model_from_dict(raw).moe
    assert (moe.groups, moe.groups_per_token, moe.grouped) == (8, 8, False)
    limited = model_from_dict({**raw, "moe": {**raw["moe"], "groups_per_token": 2}}).moe
    assert (limited.groups_per_token, limited.grouped) == (2, True)


def test_a_count_of_exactly_max_count_is_taken_and_one_more_refused():
    """Any count in a profile is at most MAX_COUNT = 10^9 (model.py): 10^9 itself is taken (qa465 M56: refused at >=)."""
    from roofline.errors import RooflineError
    from roofline.model import MAX_COUNT, model_from_dict

    raw = {"name": "c", "layers": 2, "hidden_size": 64, "heads": 1, "kv_heads": 1, "head_dim": 64, "ffn_size": 128,
           "vocab_size": 100}
    assert MAX_COUNT == 10**9
    assert model_from_dict({**raw, "max_context_tokens": 10**9}).max_context_tokens == 10**9
    with pytest.raises(RooflineError, match="max_context_tokens: expected an integer at most 1,000,000,000"):
        model_from_dict({**raw, "max_context_tokens": 10**9 + 1})


def test_kv_bytes_a_token_at_a_context_are_the_contexts_kv_over_its_tokens(roofline):
    """kv_bytes_per_token_at(S) = KV of a sequence of S tokens / S. gpt-oss-120b: 18 full layers of 2 x 8 x 64 x 2 B =
    2,048 B a token each, 18 sliding ones holding 128 tokens: at 4,096, 18 x 2,048 + 18 x 2,048 x 128 / 4,096 = 38,016;
    at 131,072, 36,864 + 36 = 36,900 (qa465 M59: over S + 1, 38,007)."""
    oss = load_model("gpt-oss-120b")
    assert oss.kv_bytes_per_token_at(4096) == 18 * 2048 + 18 * 2048 * 128 / 4096 == 38_016
    assert oss.kv_bytes_per_token_at(131072) == 36_900
    assert load_model("llama-3.1-8b").kv_bytes_per_token_at(4096) == 32 * 8 * 128 * 2 * 2
    code, out, _ = roofline("models", "show", "gpt-oss-120b")
    assert code == 0 and "KV per token     38,016 B at 4k context, 36,900 B at 128k" in out


def test_a_sliding_group_without_a_window_is_said_as_none_given():
    """qa141's message: a sliding group with no window key says 'found none', not a 0 nobody wrote (qa465 M61)."""
    from roofline.errors import RooflineError
    from roofline.model import model_from_dict

    raw = {"name": "s", "layers": 2, "hidden_size": 64, "heads": 1, "kv_heads": 1, "head_dim": 64, "ffn_size": 128,
           "vocab_size": 100, "attention": {"groups": [{"kind": "sliding", "layers": 2}]}}
    with pytest.raises(RooflineError, match=r"attention\.groups\[0\]\.window: expected a positive integer \(a sliding "
                                            r"group's window, in tokens\), found none$"):
        model_from_dict(raw, "m.yaml")


def test_a_sparse_full_layers_mean_reads_are_capped_at_its_picks():
    """mean_entries_read of a full layer with read_tokens (sparse attention over every stored token, DeepSeek-V3.2's
    kind): the mean over the queries of min(u, read_tokens), 2,048 at S = 4,096, q = 4 (each query picks 2,048 of its
    4,097+ entries); below the cap the mean position, S + (q + 1) / 2 = 1,002.5 at S = 1,000 (qa465 M67: the cap
    ignored, 4,098.5)."""
    from roofline.model import AttentionGroup

    g = AttentionGroup("full", 61, read_tokens=2048, index_dim=128, index_heads=64)
    assert float(DS3.mean_entries_read(g, 4096, 4)) == 2048.0
    assert float(DS3.mean_entries_read(g, 1000, 4)) == 1002.5


def test_an_indexer_needs_the_entries_it_picks():
    """A group with a lightning indexer (index_dim, index_heads) must say how many entries it picks a query
    (read_tokens): one line naming the field (qa465 M62: taken without, an indexer picking nothing)."""
    from roofline.errors import RooflineError
    from roofline.model import model_from_dict

    raw = {"name": "i", "layers": 2, "hidden_size": 64, "heads": 1, "kv_heads": 1, "head_dim": 64, "ffn_size": 128,
           "vocab_size": 100, "attention": {"groups": [{"kind": "full", "layers": 2, "index_dim": 64, "index_heads": 4}]}}
    with pytest.raises(RooflineError, match=r"attention\.groups\[0\]\.read_tokens: expected the entries an indexer picks "
                                            r"per query, with index_dim, found 0"):
        model_from_dict(raw, "m.yaml")


def test_a_sequences_kv_bytes_sum_every_layer():
    """kv_cache_bytes_per_sequence: layers x stored tokens x elements x bytes: llama-3.1-8b at 1,000 tokens is
    32 x 1,000 x 2 x 8 x 128 x 2 B = 131,072,000 B; per device at tp 8, one KV head a rank: 16,384,000 (qa465 M70: one
    layer's)."""
    llama = load_model("llama-3.1-8b")
    assert float(llama.kv_cache_bytes_per_sequence(1000)) == 32 * 1000 * 2 * 8 * 128 * 2 == 131_072_000
    assert float(llama.kv_cache_bytes_per_sequence(1000, "bf16", tp=8)) == 16_384_000
    assert float(llama.kv_cache_bytes_per_sequence(1000, "fp8", tp=8)) == 8_192_000
