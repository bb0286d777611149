"""The speculative side of roofline.predict that the suite did not pin (api.py), found by mutation testing (qa475)."""

import pytest

import roofline

pytestmark = pytest.mark.slow  # each predicts: 50-500 ms a test


def test_the_draft_cost_ratio_is_one_draft_pass_over_the_plain_step_and_none_for_medusa():
    """spec.draft_cost_ratio is Leviathan et al.'s c: one draft step (the iteration's draft time over k) over the plain
    decode step; draft_pass_cost_ratio the same less the engine's bookkeeping of a draft step (the iteration's over k).
    None where no pass drafts token by token: Medusa's heads run in one pass, n-gram's lookup is no pass."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", batch=8, method="eagle", alpha=0.7, k=3)
    s, step = p["spec"], p["step_time_s"]
    assert s["draft_busy_time_s"] > 0 and s["draft_bookkeeping_time_s"] > 0
    assert s["draft_cost_ratio"] == pytest.approx(s["draft_time_s"] / 3 / step, rel=1e-12)
    assert s["draft_pass_cost_ratio"] == pytest.approx((s["draft_time_s"] - s["draft_bookkeeping_time_s"]) / 3 / step, rel=1e-12)
    for method in ("medusa", "ngram"):
        s = roofline.predict("h100-sxm", "llama-3.1-8b", batch=8, method=method, alpha=0.7, k=3)["spec"]
        assert s["draft_cost_ratio"] is None and s["draft_pass_cost_ratio"] is None, method


@pytest.mark.parametrize("method, nodes, said", [
    ("eagle", 1, "tree of 1 node at depth k = 1, the default (4, at most the nodes): give k, the tree's depth"),
    ("eagle", 2, "tree of 2 nodes at depth k = 2, the default (4, at most the nodes): give k, the tree's depth"),
    ("medusa", 2, "tree of 2 nodes at k = 2 heads, the default (4, at most the nodes): give k, Medusa's heads"),
])
def test_a_tree_without_k_names_its_nodes_and_the_default_it_took(method, nodes, said):
    """k defaults to 4 and at most the tree's node count (predict's docstring): a tree of 1 node runs at k = 1, of 2
    at k = 2, and the note names the default, 4, and the nodes in the singular or plural."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 8, method=method, tree_nodes=nodes, tree_tau=1.5)
    assert p["spec"]["k"] == nodes
    assert [w for w in p["warnings"] if w.startswith("tree of")][0].startswith(said)


def test_the_cap_note_on_a_break_even_past_max_num_seqs_is_said_only_of_a_batch_within_the_cap():
    """gpt-oss-120b on 8 H200 under vllm pays speculation up to batch 21,713 (memory's end), past vLLM's 1,024
    sequences a step by default: at batch 8 that is said of the break-even; at batch 2,000, itself past the cap, the
    running-cap note says it of the batch instead, and the break-even's is not said twice."""
    said = "is above the 1,024 sequences vllm runs at once by default (its max_num_seqs): it assumes the cap raised"
    low = roofline.predict("h200", "gpt-oss-120b", 8, 1024, tp=8, engine="vllm", method="eagle", k=3)
    assert low["spec"]["break_even_batch"] > 1024 and any(w.endswith(said) for w in low["warnings"])
    high = roofline.predict("h200", "gpt-oss-120b", 2000, 1024, tp=8, engine="vllm", method="eagle", k=3)
    assert any(w.startswith("batch 2,000 under vllm: it runs at most 1,024 sequences at once") for w in high["warnings"])
    assert not any(w.endswith(said) for w in high["warnings"])


def test_k_0_with_rates_says_they_serve_only_the_best_k_search():
    """As an alpha at k 0 (test_tables' qa288 test): per-position rates at k 0 draft nothing, so the point is plain
    decoding and the rates serve only the best-k search, said."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, method="eagle", k=0, acceptance=[0.8, 0.7])
    assert p["spec"]["tau"] == 1.0
    assert ("k 0: nothing is drafted, so the point is plain decoding; the acceptance given (alpha or rates) serves only "
            "the best-k search") in p["warnings"]


@pytest.mark.parametrize("k", [0, 3])
def test_a_drafter_on_its_own_device_is_paid_only_while_it_drafts(k):
    """h100-sxm $3.00/h, l4 $0.75/h (their profiles' prices). Speculation's cost is the rent over its tokens:
    tp 4 targets and, while it drafts (k > 0), the drafter's L4: (4 x 3.00 + 0.75) / (tokens/s x 3,600) x 1e6 USD per
    million tokens; at k 0 nothing is drafted, the L4 is not paid (draft price 0) and the cost is plain decoding's."""
    p = roofline.predict("h100-sxm", "llama-3.1-70b", 8, tp=4, method="draft", draft="llama-3.2-1b", draft_hardware="l4",
                         k=k, alpha=0.7)
    s = p["spec"]
    rent = 4 * 3.00 + (0.75 if k else 0.0)
    assert s["draft_price_usd_per_hour"] == (0.75 if k else 0.0)
    assert s["cost_usd_per_million_tokens"] == pytest.approx(rent / (s["tokens_per_s"] * 3600) * 1e6, rel=1e-9)
    if k == 0:
        assert s["cost_usd_per_million_tokens"] == pytest.approx(p["cost_usd_per_million_tokens"], rel=1e-9)


def test_a_tree_point_that_fits_plain_but_not_with_its_verify_pass_names_the_nodes_it_verifies():
    """llama-3.1-8b on an H100 at context 512 at its largest batch that fits plain decoding; a 10-node tree drafted on an
    L4 verifies N + 1 = 11 tokens a sequence, holding context + 11 tokens of KV where plain decoding holds context + 1
    (docs/API.md): 10 more of 131,072 B each (32 layers x 8 KV heads x 128 x 2 x 2 B), which no longer fit: said first,
    naming the 11 tokens."""
    mb = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 512)["max_batch"]
    p = roofline.predict("h100-sxm", "llama-3.1-8b", mb, 512, method="draft", draft="llama-3.2-1b", draft_hardware="l4",
                         k=4, tree_nodes=10, tree_tau=3.0)
    assert p["fits_in_memory"] and not p["spec"]["fits_in_memory"]
    assert p["spec"]["memory_needed_bytes"] - p["memory_needed_bytes"] == pytest.approx(mb * 10 * 131072, rel=1e-9)
    assert p["warnings"][0].startswith("with the KV of the N + 1 = 11 tokens a pass verifies, this point does not fit "
                                       "in memory: needs ")


def test_an_ngram_point_that_does_not_fit_blames_the_verified_tokens_not_a_drafter():
    """n-gram lookup has no drafter model: a point that does not fit says it needs that memory with the KV of the
    k + 1 tokens a pass verifies, not 'with its drafter' (llama-3.1-8b at 60 x 32,768 tokens on one H100)."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 60, 32768, method="ngram", k=4, alpha=0.6)
    assert not p["fits_in_memory"]
    assert p["warnings"][0].startswith("does not fit in memory: with the KV of the k + 1 tokens a pass verifies it needs ")
    assert "drafter" not in p["warnings"][0]


def test_a_speculative_memory_refusal_gives_plain_decodings_need_beside_its_own():
    """The memory line of a speculative point whose plain step does not fit either ends with plain decoding's need:
    60 sequences x 32,769 tokens x 131,072 B of KV (257.7 GB) + 16.06 GB of bf16 weights = 273.8 GB, max batch 13."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 60, 32768, method="ngram", k=4, alpha=0.6)
    assert p["memory_needed_bytes"] == pytest.approx(60 * 32769 * 131072 + 16.06e9, rel=1e-3)
    assert p["warnings"][0].endswith(f"; plain decoding 273.8 GB (max batch {p['max_batch']})") and p["max_batch"] == 13


@pytest.mark.parametrize("k, said", [
    (1, "mtp on deepseek-v3: best k 4 exceeds its 1 trained MTP module"),  # k itself within the module: best k alone
    (6, "mtp on deepseek-v3: k 6 exceeds its 1 trained MTP module"),  # best k 4 no further than k: k alone
])
def test_the_mtp_reuse_note_names_the_draft_lengths_that_run_past_the_module(k, said):
    """DeepSeek-V3 has one MTP module; at batch 1 on 8 H200 its default rates put best k at 4. The note names what runs
    past the module: at k 1 the best k alone (singular verb), at k 6 (past best k) k alone."""
    p = roofline.predict("h200", "deepseek-v3", batch=1, tp=8, method="mtp", k=k)
    assert p["spec"]["best_k"] == 4
    assert [w for w in p["warnings"] if "trained MTP module" in w][0].startswith(said)


def test_a_float32_alpha_is_the_decimal_meant():
    """_scalar_float: np.float32(0.8) is 0.8 (its shortest decimal), not 0.800000011920929, in the result as given."""
    import numpy as np

    p = roofline.predict("h100-sxm", "llama-3.1-8b", 8, method="eagle", k=3, alpha=np.float32(0.8))
    assert p["spec"]["alpha"] == 0.8
    assert p["spec"]["tau"] == pytest.approx((1 - 0.8 ** 4) / (1 - 0.8), rel=1e-12)  # 1 + a + a^2 + a^3 = 2.952


def test_a_known_miss_of_a_method_is_not_said_of_k_0_which_decodes_plainly():
    """known_misses entries match a point's method, `none` for plain decoding: at k 0 nothing is drafted, so an eagle
    entry is not said of it (it is at k 3)."""
    import dataclasses

    miss = {"methods": ["eagle"], "batch": [1, None], "measured": "slower", "note": "QA475 MISS"}
    eng = dataclasses.replace(roofline.load_engine("vllm"), name="vllm-qa475", known_misses=(miss,))
    said = {k: [w for w in roofline.predict("h100-sxm", "llama-3.1-8b", 8, method="eagle", k=k, alpha=0.7,
                                            engine=eng)["warnings"] if "QA475 MISS" in w] for k in (0, 3)}
    assert said == {0: [], 3: ["a known miss of engine vllm-qa475: QA475 MISS"]}


def test_at_k_0_without_a_best_k_the_speculative_refusals_are_empty():
    """docs/API.md: spec.engine_refuses at k = 0 lists those of the best k it names; where none is named (llama-3.1-70b
    in bf16 does not fit one H100 a group) there is none, though the layout itself is refused (top-level
    engine_refuses)."""
    p = roofline.predict("h100-sxm", "llama-3.1-70b", 8, dp_attention=2, engine="vllm-v0", method="eagle", k=0, alpha=0.7)
    assert p["spec"]["best_k"] is None and p["engine_refuses"]
    assert p["spec"]["engine_refuses"] == []


def test_at_k_0_the_best_k_named_keeps_a_refused_layout_and_its_caveats():
    """qa475: at k 0 spec.engine_refuses dropped the layout plain decoding shares (vllm-v0 has no attention DP) though
    it names a best k, and a best k read past the rates given got none of the caveats it gets at k 2."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1024, engine="vllm-v0", dp_attention=2, method="eagle", k=0, alpha=0.7)
    assert p["spec"]["best_k"] == 4
    assert any("dp_attention 2 under vllm-v0" in w for w in p["spec"]["engine_refuses"])
    assert any(w.startswith("best k 4 takes alpha 0.7 at every draft position") for w in p["warnings"])
    rates = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, method="eagle", k=0, acceptance=[0.5, 0.9])
    said = rates["warnings"]
    assert any(w.startswith(f"best k {rates['spec']['best_k']} takes the last of the 2 rates given (0.9)") for w in said)
    assert any(w.startswith("acceptance: the rates rise with the position") for w in said)
    big = roofline.predict("h200", "gpt-oss-120b", 2000, 1024, tp=8, method="eagle", k=3)
    assert any(w.startswith("batch 2,000 under vllm:") for w in big["warnings"])  # its thousands as the others (qa475)
