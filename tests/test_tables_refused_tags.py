"""Found by mutation testing of session 72's diff (qa482): predict's table tags of a point no setup of its engine runs, and memory needed / usable to the same decimals
(tables.py), found by mutation testing."""
import pytest

import roofline
from roofline.tables import _needed_of_usable, predict_table

pytestmark = pytest.mark.slow  # CLI runs, predicts and sweeps: 40-650 ms a test


def _lines(p):
    return predict_table(p).splitlines()


def test_a_refused_points_plain_batch_throughput_is_tagged():
    """kills tab_tps_tag: the plain '  tokens/s (batch)' line of a trtllm point on an MI300X (NVIDIA only) untagged."""
    p = roofline.predict("mi300x", "llama-3.1-8b", engine="trtllm", method="eagle", k=2, alpha=0.7)
    line = next(x for x in _lines(p) if x.startswith("  tokens/s (batch) "))
    assert line.endswith(" per device; no trtllm setup runs it)"), line
    runs = roofline.predict("h100-sxm", "llama-3.1-8b", engine="trtllm", method="eagle", k=2, alpha=0.7)
    assert next(x for x in _lines(runs) if x.startswith("  tokens/s (batch) ")).endswith(" per device)")


def test_at_k_0_best_k_0_the_points_own_refusal_tags_the_speculative_lines():
    """kills tab_spec_tps_tag, tab_tag_and: at k 0 with best k 0 spec.engine_refuses is empty, the point's is not (a
    device trtllm does not run on): the speculative tokens/s, best k and break-even lines are tagged all the same."""
    p = roofline.predict("mi300x", "llama-3.1-8b", engine="trtllm", method="eagle", k=0, alpha=0.05)
    assert p["engine_refuses"] and p["spec"]["engine_refuses"] == [] and p["spec"]["best_k"] == 0
    lines = _lines(p)
    for label in ("    tokens/s (batch) ", "    best k here ", "    break-even batch "):
        assert "no trtllm setup runs it" in next(x for x in lines if x.startswith(label)), label


def test_the_pays_longest_line_of_a_refused_point_is_tagged():
    """kills tab_pays_tag: EAGLE k 6 on a 70B at tp 4 (alpha 0.7) names a k that pays longer; on an MI300X under trtllm
    that line is of a point no trtllm setup runs."""
    p = roofline.predict("mi300x", "llama-3.1-70b", tp=4, engine="trtllm", method="eagle", k=6, alpha=0.7)
    line = next(x for x in _lines(p) if x.startswith("    pays longest "))
    assert line.endswith("  (no trtllm setup runs it)"), line
    runs = roofline.predict("h100-sxm", "llama-3.1-70b", tp=4, engine="trtllm", method="eagle", k=6, alpha=0.7)
    assert "setup runs it" not in next(x for x in _lines(runs) if x.startswith("    pays longest "))


def test_two_whole_numbers_of_one_unit_are_left_whole():
    """kills tab_dec_ge: both sides at 0 decimals gain no '.' ('19. GB')."""
    assert _needed_of_usable({"memory_needed_bytes": 19e9, "usable_memory_bytes": 69e9}) == "19 GB of 69 GB"
