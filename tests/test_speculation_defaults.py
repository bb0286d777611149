"""Speculation terms (speculation.py) the suite did not pin, found by mutation testing (qa492). Each figure by hand from the module docstring,
DEFAULT_RATES' own sources, or by brute force over every batch where the docstring defines a search's answer."""
import numpy as np
import pytest

from roofline.hardware import load_hardware
from roofline.model import load_model
from roofline.serving import IDEAL
from roofline.speculation import (
    predict_speculation,
    speculative_metrics,
)

H100 = load_hardware("h100-sxm")
LLAMA = load_model("llama-3.1-8b")


@pytest.mark.parametrize("method, k, tau", [
    # mtp: 1 + 0.85 + 0.85 x 0.63 + ... + 0.85 x 0.63^6 = 3.2068 ("mean acceptance length 3.20 at k = 7")
    ("mtp", 7, 1 + 0.85 * sum(0.63 ** i for i in range(7))),
    ("mtp", 2, 1 + 0.85 + 0.85 * 0.63),
    # eagle: 1.72 at k = 1, 2.10 and 2.29 at k = 2, 3 (1 + .72 + .72 x .53 + .72 x .53 x .50)
    ("eagle", 2, 1 + 0.72 + 0.72 * 0.53),
    ("eagle", 3, 1 + 0.72 + 0.72 * 0.53 + 0.72 * 0.53 * 0.50),
    ("eagle", 5, 1 + 0.72 + 0.72 * 0.53 + 0.72 * 0.53 * 0.5 * (1 + 0.5 + 0.25)),  # past the list: its last rate
    # ngram: a constant 0.42 at the lookup's 10 proposed tokens: (1 - 0.42^11) / 0.58 = 1.724 ("0.42 gives 1.72")
    ("ngram", 10, (1 - 0.42 ** 11) / (1 - 0.42)),
])
def test_the_default_rates_give_their_sources_acceptance_lengths(method, k, tau):
    """DEFAULT_RATES without alpha or rates (qa492: a2 0.63 -> 0.65, eagle's a3 0.50 -> 0.52, ngram's 0.42 -> 0.43
    survived: only a1 was pinned)."""
    target = load_model("deepseek-v3") if method == "mtp" else LLAMA
    m = speculative_metrics(H100, target, 1, 1024, k, method=method, engine=IDEAL)
    assert float(m["tau"]) == pytest.approx(tau, rel=1e-12)
    if method == "mtp" and k == 7:
        assert float(m["tau"]) == pytest.approx(3.20, abs=0.01)


def test_plain_decodings_max_batch_holds_context_plus_one_tokens_a_sequence():
    """baseline_max_batch is plain decoding's: the KV of context + 1 tokens a sequence (capacity's, as predict's memory
    line says). Llama-3.1-8B on an H100 under ideal: 32 layers x 2 x 8 KV heads x 128 x 2 B = 131,072 B a token;
    at context 1001, 1002 tokens: (usable - weights) / (1002 x 131,072) = 463.8 -> 463 (1001 tokens gave 464.2 -> 464;
    qa492: s instead of s + 1 survived)."""
    m = speculative_metrics(H100, LLAMA, 1, 1001, [0, 1], 0.7, method="eagle", engine=IDEAL)
    per_token = 32 * 2 * 8 * 128 * 2
    assert float(m["kv_bytes"][0]) == 1002 * per_token
    free = float(m["usable_memory_bytes"][0]) - float(m["weight_bytes"][0])
    assert int(free // (1002 * per_token)) == 463 and int(free // (1001 * per_token)) == 464
    assert list(np.asarray(m["baseline_max_batch"])) == [463, 463]
    assert int(m["max_batch"][0]) == 463  # k 0 holds no drafter: plain decoding's cap


def test_a_rate_of_0_at_the_last_position_ends_no_draft_early():
    """rising_rates_note: 'rate 0 at draft position i ends every draft there, so the rates after it are never used' only
    where rates follow the 0; a list ending at 0 (0.8, 0) falls and has none after it: no note (qa492: any 0 in the list
    survived)."""
    from roofline.speculation import rising_rates_note

    assert rising_rates_note([0.8, 0.0]) == ""
    assert rising_rates_note([0.8, 0.0, 0.5]) == ("acceptance: rate 0 at draft position 2 ends every draft there, so the "
                                                  "rates after it are never used")


@pytest.mark.parametrize("alpha, hinted", [(3.0, True), (65.0, True), (66.0, False), (1000.0, False)])
def test_an_alpha_above_1_is_hinted_as_an_acceptance_length_only_where_one_could_be(alpha, hinted):
    """check_options: an alpha in (1, K_MAX + 1 = 65] reads like an acceptance length (tokens an iteration, at most k + 1);
    past 65 no k gives it, so no hint (qa492: the hint for every number above 1 survived)."""
    from roofline.errors import RooflineError
    from roofline.speculation import check_options

    with pytest.raises(RooflineError) as err:
        check_options("command line", "eagle", alpha=alpha)
    assert str(err.value).startswith(f"command line: alpha: expected a rate in [0, 1], found {alpha}")
    assert ("reads like an acceptance length" in str(err.value)) is hinted


@pytest.mark.slow  # a prediction with its drafter elsewhere: above 30 ms
@pytest.mark.parametrize("method, draft, waits", [("draft", "llama-3.2-1b", False), ("eagle", None, True),
                                                  ("medusa", None, True)])
def test_only_a_head_drafter_elsewhere_waits_for_the_targets_hidden_states(method, draft, waits):
    """drafter_waits_for_target: a head drafter (mtp, eagle, medusa) on a device of its own needs the verified hidden
    states before it drafts; a draft model elsewhere goes on from the kept token ids and may overlap (qa492: True for
    every drafter elsewhere survived)."""
    p = predict_speculation(H100, LLAMA, 8, 1024, 3, 0.7, method=method, draft=load_model(draft) if draft else None,
                            draft_hw=load_hardware("h100-sxm"), engine=IDEAL)
    assert p["drafter_waits_for_target"] is waits


def test_a_tree_needs_a_node_per_level_of_its_deepest_swept_depth():
    """check_options: 'its nodes at least k for every depth k > 0 given': a tree of 4 nodes swept at depths 2 and 6 is
    refused at 6, naming it (qa492: the shallowest depth's check, which 4 >= 2 passes, survived)."""
    from roofline.errors import RooflineError
    from roofline.speculation import check_options

    with pytest.raises(RooflineError, match=r"^t\.yaml: tree_nodes: expected at least the depth k = 6 \(a node per "
                                            r"level\), found 4$"):
        check_options("t.yaml", "eagle", tree_nodes=4, tree_tau=2.5, k=[2, 6])
    check_options("t.yaml", "eagle", tree_nodes=6, tree_tau=2.5, k=[2, 6])  # a node per level of both depths
