"""predict's `pays longest`: where the asked k stops paying before memory ends its search, the k of 1-64 that pays up to
the largest batch (qa454: predict said the break-even at the asked k alone, the report at the k that pays longest)."""
import numpy as np
import pytest

from roofline.hardware import load_hardware
from roofline.layout import deployment
from roofline.model import load_model
from roofline.serving import load_engine
from roofline.speculation import K_SEARCH, pays, predict_speculation, speculative_metrics

pytestmark = pytest.mark.slow  # each predict_speculation searches 64 k: 70-600 ms a test

H100 = load_hardware("h100-sxm")
TARGET = load_model("llama-3.1-70b")
KW = dict(method="eagle", dep=deployment(TARGET, tp=4), engine=load_engine("vllm"))


def test_the_k_that_pays_longest_is_the_largest_break_even_over_k_each_to_its_own_memory_limit():
    """EAGLE k 6 on a 70B target at tp 4, alpha 0.7: it stops paying before memory runs out; the k named pays up to a
    larger batch, its break-even as predict's own search at that k finds it, and no k
    of 1-64 pays at any fitting batch beyond it."""
    asked = predict_speculation(H100, TARGET, 8, 1024, 6, 0.7, **KW)
    longest = asked["pays_longest"]
    assert asked["break_even_batch"] < asked["max_batch"] and longest is not None
    assert longest["k"] != 6 and longest["batch"] > asked["break_even_batch"]
    at_k = predict_speculation(H100, TARGET, 8, 1024, longest["k"], 0.7, **KW)
    assert (at_k["break_even_batch"], at_k["break_even_at_memory_limit"]) == (longest["batch"], longest["at_memory_limit"])
    assert longest["speedup"] == pytest.approx(at_k["break_even_speedup"], rel=1e-12) and pays(longest["speedup"])
    # beyond it no k pays at a batch that k fits (every batch to twice it, every k)
    ks = K_SEARCH[K_SEARCH > 0]
    caps = np.asarray(speculative_metrics(H100, TARGET, 1, 1024, ks, 0.7, **KW)["max_batch"])
    beyond = np.arange(longest["batch"] + 1, 2 * longest["batch"] + 1)
    speedup = speculative_metrics(H100, TARGET, beyond[:, None], 1024, ks[None, :], 0.7, **KW)["speedup"]
    assert not (pays(speedup) & (beyond[:, None] <= caps[None, :])).any()
    # a smaller k that also pays as far is taken first: no k below it reaches its batch
    for k in range(1, longest["k"]):
        assert predict_speculation(H100, TARGET, 8, 1024, k, 0.7, **KW)["break_even_batch"] < longest["batch"]


def test_a_k_that_pays_up_to_its_memory_limit_names_another_only_where_it_pays_five_percent_further(roofline):
    """Llama 3.1 8B with EAGLE k 3 on one H100 pays up to the largest batch that fits, 410; k 1 holds fewer draft tokens a
    sequence and pays to its own limit, 411: found, not named (one sequence further is not news). EAGLE k 40 on
    Qwen3-30B-A3B pays to its limit, 395, where k 1 pays to 455 (qa462: a k at its memory limit named no other): named."""
    from roofline.speculation import PAYS_LONGER_FACTOR

    target = load_model("llama-3.1-8b")
    spec = predict_speculation(H100, target, 8, 1024, 3, 0.7, method="eagle", engine=load_engine("vllm"))
    longest = spec["pays_longest"]
    assert spec["break_even_at_memory_limit"] and longest["k"] == 1 and longest["at_memory_limit"]
    assert spec["break_even_batch"] < longest["batch"] < PAYS_LONGER_FACTOR * spec["break_even_batch"]
    assert "pays longest" not in roofline("predict", "--method", "eagle", "--k", "3", "--alpha", "0.7", "--batch", "8")[1]
    args = ["predict", "--model", "qwen3-30b-a3b", "--batch", "8", "--context", "256", "--method", "eagle", "--alpha", "0.8"]
    for k in (40, 1):
        spec = predict_speculation(H100, load_model("qwen3-30b-a3b"), 8, 256, k, 0.8, method="eagle", engine=load_engine("vllm"))
        assert spec["break_even_at_memory_limit"]
        if k == 40:
            longest = spec["pays_longest"]
            assert longest["k"] == 1 and longest["batch"] >= PAYS_LONGER_FACTOR * spec["break_even_batch"]
            line = next(x for x in roofline(*args, "--k", "40")[1].splitlines() if x.strip().startswith("pays longest"))
            assert f"k 1, to batch {longest['batch']:,} at least" in line
        else:
            assert spec["break_even_batch"] == longest["batch"]  # k 1's own search finds the batch named


def test_a_tree_and_k_0_name_no_k_that_pays_longest():
    tree = predict_speculation(H100, TARGET, 8, 1024, 3, None, tree_nodes=8, tree_tau=2.5, **KW)
    plain = predict_speculation(H100, TARGET, 8, 1024, 0, 0.7, **KW)
    assert tree["pays_longest"] is None and plain["pays_longest"] is None


def test_predict_prints_the_k_that_pays_longest_under_the_break_even(roofline):
    import json

    args = ["predict", "--model", "llama-3.1-70b", "--tp", "4", "--batch", "8", "--method", "eagle", "--k", "6", "--alpha", "0.7"]
    code, text, err = roofline(*args)
    spec = json.loads(roofline(*args, "--json")[1])["spec"]
    assert code == 0
    longest = spec["pays_longest"]
    line = next(x for x in text.splitlines() if x.strip().startswith("pays longest"))
    assert f"k {longest['k']}, to batch {longest['batch']:,}" in line and f"{longest['speedup']:.3f}x there" in line
    assert ("at least" in line) == longest["at_memory_limit"]
    assert text.index("break-even batch") < text.index("pays longest")
    # both batches lie where vllm's speculative gains run optimistic (batch 32 up): one note says both
    note = next(x for x in err.splitlines() if "run optimistic" in x)
    assert f"the break-even batch {spec['break_even_batch']:,} and k {longest['k']}'s " in note and "upper estimates" in note
    # where the asked k is the one that pays longest, no line
    own = roofline(*[a if a != "6" else str(longest["k"]) for a in args])[1]
    assert "pays longest" not in own


def test_a_k_that_pays_nowhere_names_the_k_that_does_and_its_optimistic_range(roofline):
    """EAGLE k 12 at alpha 0.3 on the 70B target pays at no batch; a shorter draft does, up to a batch in the range
    where vllm's speculative gains run optimistic: the line names it, and the caveat is said of it (there is no
    break-even of the asked k to say it of)."""
    args = ["predict", "--model", "llama-3.1-70b", "--tp", "4", "--batch", "8", "--method", "eagle", "--k", "12", "--alpha", "0.3"]
    code, text, err = roofline(*args)
    assert code == 0, err
    spec = predict_speculation(H100, TARGET, 8, 1024, 12, 0.3, **KW)
    longest = spec["pays_longest"]
    assert spec["break_even_batch"] is None and longest is not None and longest["batch"] >= 32
    assert "break-even batch   none at k 12" in text
    line = next(x for x in text.splitlines() if x.strip().startswith("pays longest"))
    assert line.strip().startswith(f"pays longest       k {longest['k']}, to batch {longest['batch']:,}, of k = 1-64")
    assert ("within 1% of 1" in line) == (longest["speedup"] < 1.01)
    assert f"k {longest['k']}'s break-even batch {longest['batch']:,} lies where, under vllm, speculative gains run optimistic" in err


def test_the_pays_longest_line_follows_the_break_evens_dip_and_says_the_engines_cap(roofline):
    """qa461: 'below it' (k 3's dip at batch 2) printed under the pays-longest line read as k 1's, which paid there; and
    sglang's cap of 48 sequences while speculating was said of the break-even alone."""
    base = ["predict", "--hardware", "h100-sxm", "--model", "qwen3-30b-a3b", "--tp", "2", "--ep", "2", "--context", "128",
            "--method", "eagle", "--alpha", "0.7"]
    _, text, _ = roofline(*base, "--batch", "2", "--k", "3", "--engine", "ideal")
    lines = [x.strip() for x in text.splitlines()]
    order = [next(i for i, x in enumerate(lines) if x.startswith(word)) for word in ("break-even batch", "below it", "pays longest")]
    assert order == sorted(order)
    _, text, _ = roofline(*base, "--batch", "64", "--k", "6", "--engine", "sglang")
    be_line = next(x for x in text.splitlines() if x.strip().startswith("break-even batch"))
    longest_line = next(x for x in text.splitlines() if x.strip().startswith("pays longest"))
    assert "above the 48 sequences sglang runs at once while speculating" in be_line and longest_line.endswith("; past the same cap")


def test_a_k_at_its_own_memory_limit_still_names_a_k_that_fits_and_pays_further():
    """Qwen3-30B-A3B with EAGLE k 40 at 256 tokens of context: each sequence holds k + 1 = 41 more tokens of KV, so
    k 40 fits 395 sequences and pays at all of them ('memory ends the search'), while k 1 fits 455 and pays at every
    one. pays_longest was None: the largest break-even over k, each k to its own memory limit, is k 1's."""
    target = load_model("qwen3-30b-a3b")
    kw = dict(method="eagle", dep=deployment(target), engine=load_engine("vllm"))
    spec = predict_speculation(load_hardware("h100-sxm"), target, 8, 256, 40, 0.8, **kw)
    assert spec["break_even_at_memory_limit"] and spec["break_even_batch"] == spec["max_batch"]
    ks = K_SEARCH[K_SEARCH > 0]
    h100 = load_hardware("h100-sxm")
    caps = np.asarray(speculative_metrics(h100, target, 1, 256, ks, 0.8, **kw)["max_batch"]).astype(int)
    batches = np.arange(1, caps.max() + 1)
    speedup = speculative_metrics(h100, target, batches[:, None], 256, ks[None, :], 0.8, **kw)["speedup"]
    reach = np.where(pays(speedup) & (batches[:, None] <= caps[None, :]), batches[:, None], 0).max(axis=0)
    best = int(np.argmax(reach))
    assert reach[best] > spec["break_even_batch"]  # 455 at k 1 against 395 at k 40
    longest = spec["pays_longest"]
    assert longest is not None and (longest["k"], longest["batch"]) == (int(ks[best]), int(reach[best]))


def test_a_speedup_a_hair_above_1_is_said_with_the_digits_that_tell_in_both_lines():
    """qa461: the pays-longest line (and the break-even line it copies) said 1.00037 as '1.000x there', a figure that
    reads as no gain at a batch named for still paying."""
    from roofline.tables import _pays_longest_text

    spec = {"k": 6, "break_even_batch": 100, "pays_longest": {"k": 1, "batch": 431, "at_memory_limit": False,
                                                              "speedup": 1.00037}}
    text = _pays_longest_text(spec, {})
    assert "(1.0004x there: within 1% of 1, the batch not sharp)" in text and "1.000x" not in text
