"""The best-k figure's title names each line that steps back and forth in one group only (plots._zigzags_text; qa485:
MI300X's TP 8 line, a 0.96% tie at batch 256 and 1.7% apart at batch 4, was named among the near-tie lines and among
the others)."""
import pytest

from roofline.plots import _zigzags_text

pytestmark = pytest.mark.slow  # imports matplotlib, which the quick loop never does

NEAR = "between k within 1% of each other in speedup"
FAR = "between k that differ more"


def test_a_line_with_both_kinds_of_reversal_is_named_once():
    text = _zigzags_text(["A: α = 0.6", "B: α = 0.6"], ["B: α = 0.6", "C: α = 0.6"])
    assert text == f"some lines (A: α = 0.6) step back and forth {NEAR}, others (C: α = 0.6) {FAR}, and some (B: α = 0.6) both"
    assert text.count("B: α = 0.6") == 1


def test_groups_left_empty_are_not_said():
    assert _zigzags_text(["A"], ["B"]) == f"some lines (A) step back and forth {NEAR}, others (B) {FAR}"
    assert _zigzags_text(["B"], ["B", "C"]) == f"some lines (C) step back and forth {FAR}, and some (B) {FAR} and {NEAR}"
    assert _zigzags_text(["B"], ["B"]) == f"some lines (B) step back and forth both {NEAR} and {FAR}"
    assert _zigzags_text(["A", "B"], ["B"]) == f"some lines (A) step back and forth {NEAR}, and some (B) both"
