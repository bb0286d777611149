"""break_even_notes branches the suite did not pin (api.py), found by mutation testing (qa475)."""

import dataclasses

import pytest

from roofline.api import break_even_notes
from roofline.serving import load_engine

pytestmark = pytest.mark.slow  # each predicts: 50-500 ms a test

BOUND = dataclasses.replace(load_engine("vllm"), spec_per_iteration_per_sequence_s=100e-6,
                            fitted={"parameters": ["spec_per_iteration_per_sequence"],
                                    "bounds_hit": ["spec_per_iteration_per_sequence"]})  # as test_predict_notes_terms'


def test_a_batch_where_memory_ends_the_search_is_not_said_to_rest_on_a_fit_bound():
    """Where memory ends the break-even search (break_even_at_memory_limit), the batch is the largest that fits, not a
    break-even the engine's per-sequence cost set: only the optimistic caveat is said of it, not 'rests on ...'."""
    notes = break_even_notes({"break_even_batch": 148, "break_even_at_memory_limit": True, "k": 3, "pays_longest": None},
                             BOUND, 8)
    assert notes == ["speculation paying up to batch 148, the largest that fits, lies where, under vllm, speculative "
                     "gains run optimistic (batch 32 and above, docs/ACCURACY.md): read it as an upper estimate"], notes


def test_the_ideal_bound_gets_no_break_even_notes_even_from_a_copy_with_fitted_costs():
    """`ideal` is the roofline bound: its break-even rests on no engine evidence and is not optimistic."""
    ideal = dataclasses.replace(BOUND, name="ideal")
    assert break_even_notes({"break_even_batch": 100, "k": 12, "pays_longest": None}, ideal, 8) == []
