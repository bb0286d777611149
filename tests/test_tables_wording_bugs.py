"""Wording slips of `roofline predict` (tables.py), found by mutation testing (qa496): a plural of one, a run said from a batch to itself."""

import pytest

import roofline
from roofline.tables import predict_table

pytestmark = pytest.mark.slow  # each predict searches break-even and best k


def test_one_arriving_prefill_is_said_in_the_singular():
    """At 2 in flight one other request's prefill lands in the decode: '+ 1 arriving prefill of', not '+ 1 arriving
    prefills' (the plurals qa354, qa378 and qa462 mended elsewhere)."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 2, 1024, prompt=1000, output_len=200)
    (line,) = [x for x in predict_table(p).splitlines() if x.startswith("  serving TPOT ")]
    assert "+ 1 arriving prefill of 1,000 tokens" in line, line


def test_a_verify_pass_compute_bound_at_one_batch_alone_is_not_said_from_it_to_itself():
    """sglang, tp 8, llama-3.1-8b, n-gram k 3: the verify pass is compute-bound at batch 117 only (memory-bound again
    from 118); the line says 'compute-bound at batch 117 (468 tokens a pass) to 117', a run from a batch to itself
    (the 'below it' line says such a one-batch span 'alone')."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 4, 1024, engine="sglang", tp=8, method="ngram", k=3, alpha=0.5)
    edge = p["spec"]["verify_compute_bound"]
    assert edge["first_batch"] == 117 and edge["memory_bound_again"] == 118
    (line,) = [x for x in predict_table(p).splitlines() if x.startswith("    verify pass ")]
    assert "to 117," not in line, line


def test_one_draft_pass_is_not_said_each():
    """k 1: '1 pass of X, with Y of the engine's bookkeeping', not 'each with' of one pass (qa496); k 2: 'each with'."""
    for k, said in ((1, "(1 pass of "), (2, "(2 passes of ")):
        p = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, method="eagle", k=k, alpha=0.8)
        (line,) = [x for x in predict_table(p).splitlines() if x.startswith("    iteration ")]
        assert said in line and ("each with" in line) is (k > 1) and " with " in line, line
