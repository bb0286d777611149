"""Scenario reading (scenario.py) the suite did not pin, found by mutation testing (qa494): bounds at their edge (a shared prefix of
CONTEXT_MAX, a range of exactly MAX_AXIS_VALUES values, a name of 128 characters, the 50 million points default), a
range's bad step, num, log and start said in one line (not a traceback), a scalar nan, a nested list, an empty name,
a numpy integer and a padded quoted number taken, the rounding note's first eight values, alpha kept to 12 digits, a
misspelt top-level key's suggestion, the name a dotted file gives."""

from __future__ import annotations

import numpy as np
import pytest

from roofline.errors import RooflineError
from roofline.scenario import scenario_from_dict

BASE = {"hardware": "h100-sxm", "model": "llama-3.1-8b"}


def _sc(**data):
    return scenario_from_dict({**BASE, **data}, "s.yaml")


def _refused(message: str, **data):
    with pytest.raises(RooflineError) as err:
        _sc(**data)
    assert str(err.value).startswith(message), str(err.value)
    assert "\n" not in str(err.value)


def test_a_shared_prefix_of_context_max_is_taken_and_one_more_refused():
    """shared_prefix's bound is 0..CONTEXT_MAX (1,000,000,000) inclusive, as the context axis's."""
    assert _sc(shared_prefix=10**9, axes={"context": [10**9]}).shared_prefix == (10**9,)
    _refused("s.yaml: shared_prefix: expected a whole number of tokens in 0..1,000,000,000", shared_prefix=10**9 + 1,
             axes={"context": [10**9]})


def test_layouts_beside_a_layout_key_names_the_first_key_in_tp_dp_attention_ep_pp_order():
    """layouts with ep and tp given too: the line names tp (LAYOUT_KEYS order), as `--set tp=` removes it."""
    _refused("s.yaml: layouts: expected layouts or tp, dp_attention, ep, pp, not both (an empty value removes one: "
             "--set tp=), found 'layouts and tp'", layouts=[{"tp": 2}], ep=2, tp=2)


def test_an_empty_name_is_refused_as_no_name():
    _refused("s.yaml: hardware: expected a name or a non-empty list of names", hardware="")
    _refused("s.yaml: model: expected a name or a non-empty list of names", model=["llama-3.1-8b", ""])


def test_numpy_integers_and_padded_quoted_numbers_are_the_numbers():
    """A library caller's np.int64 in an axis list is the integer (qa220's rule for a range's num); a quoted " 8 " is 8
    as "8" is (_number strips it)."""
    assert _sc(axes={"batch": [np.int64(4), np.int32(8)]}).axes["batch"].tolist() == [4, 8]
    assert _sc(axes={"batch": [" 8 ", "16"]}).axes["batch"].tolist() == [8, 16]


@pytest.mark.slow  # builds a 51-million-point grid check
def test_the_default_points_limit_is_fifty_million(monkeypatch):
    """50,000,000 points by default (DEFAULT_MAX_POINTS): 1,000,000 alphas x 51 contexts = 51,000,000 refused; x 5
    contexts = 5,000,000... under it, taken (5 x 1,000,000 = 5,000,000 exactly would be refused under a 5 M default too:
    6 contexts = 6,000,000 tells the two apart)."""
    monkeypatch.delenv("ROOFLINE_MAX_POINTS", raising=False)
    alpha = {"start": 0.0, "stop": 1.0, "num": 1_000_000}
    _refused("s.yaml: axes: expected at most 50,000,000 points (raise the limit with ROOFLINE_MAX_POINTS=N), "
             "found '51,000,000 points'", method="eagle", axes={"alpha": alpha, "context": list(range(1024, 1075))})
    assert _sc(method="eagle", axes={"alpha": alpha, "context": list(range(1024, 1030))}).points == 6_000_000


def test_a_name_of_128_characters_is_taken_and_129_refused():
    assert _sc(name="a" * 128).name == "a" * 128
    _refused("s.yaml: name: expected a name of 1 to 128 ASCII letters", name="a" * 129)


def test_a_dotted_files_name_drops_its_leading_dot():
    """No name given: the file's stem, stripped of leading '-' and '.' (a name may not start with them)."""
    assert scenario_from_dict(dict(BASE), "dir/.hidden.yaml").name == "hidden"


@pytest.mark.parametrize("spec, message", [
    ({"start": 1, "stop": 8, "num": 4, "log": "yes"}, "s.yaml: axes.batch.log: expected true or false, found 'yes'"),
    ({"start": 1, "stop": 8, "step": 0}, "s.yaml: axes.batch.step: expected a positive number, found 0"),
    ({"start": 1, "stop": 8, "num": 0}, "s.yaml: axes.batch.num: expected a positive integer, found 0"),
])
def test_a_ranges_bad_log_step_or_num_is_one_line(spec, message):
    _refused(message, axes={"batch": spec})


def test_a_log_range_from_zero_is_refused_as_such():
    _refused("s.yaml: axes.context.start: expected a positive start for a log range, found 0",
             axes={"context": {"start": 0, "stop": 1024, "num": 4, "log": True}})


@pytest.mark.slow
def test_an_axis_of_exactly_a_million_values_is_taken():
    """MAX_AXIS_VALUES (1,000,000) values per axis, by a range's num or as a list, are taken."""
    assert len(_sc(axes={"context": {"start": 0, "stop": 999_999, "num": 1_000_000}}).axes["context"]) == 1_000_000
    assert len(_sc(axes={"context": list(range(1_000_000))}).axes["context"]) == 1_000_000


def test_a_nested_list_is_said_nested():
    _refused("s.yaml: axes.batch: expected a flat list of numbers (one axis), found a nested list of 2 rows, the first "
             "[1, 2]", axes={"batch": [[1, 2], [3, 4]]})


def test_a_scalar_nan_axis_is_refused():
    _refused("s.yaml: axes.alpha: expected a number", method="eagle", axes={"alpha": float("nan")})
    _refused("s.yaml: axes.batch: expected a number", axes={"batch": float("inf")})


def test_the_rounding_note_shows_eight_values_then_the_count():
    """{start: 1, stop: 20, num: 12}: 1 + 19 i / 11, rounded 1, 3, 4, 6, 8, 10, 11, 13, 15, 17, 18, 20 (12 values)."""
    with pytest.warns(Warning, match=r"axes.batch: a range of 12 values, not all whole, rounded to whole numbers: "
                                     r"1, 3, 4, 6, 8, 10, 11, 13, \.\.\. \(12 in all\)"):
        sc = _sc(axes={"batch": {"start": 1, "stop": 20, "num": 12}})
    assert sc.axes["batch"].tolist() == [1, 3, 4, 6, 8, 10, 11, 13, 15, 17, 18, 20]


def test_alpha_is_kept_to_twelve_digits():
    """Only values alike to 12 significant digits are one (0.7999999999999999 is 0.8): 0.8 and 0.8000001 are two."""
    sc = _sc(method="eagle", axes={"alpha": [0.8, 0.8000001, 0.1234567]})
    assert sc.axes["alpha"].tolist() == [0.1234567, 0.8, 0.8000001]


def test_a_misspelt_key_is_told_the_key_it_is_near():
    _refused("s.yaml: modle: expected a known key (did you mean 'model'?)", modle="llama-3.1-8b")
    # no like start: difflib's ratio alone, 0.8 (at least 0.7)
    _refused("s.yaml: nodel: expected a known key (did you mean 'model'?)", nodel="llama-3.1-8b")


@pytest.mark.parametrize("key", ["hardware", "model"])
def test_each_required_key_missing_is_said(key):
    data = {k: v for k, v in BASE.items() if k != key}
    with pytest.raises(RooflineError, match=f"^s.yaml: {key}: expected a required key, found nothing$"):
        scenario_from_dict(data, "s.yaml")


def test_overlap_must_be_true_or_false():
    _refused("s.yaml: overlap: expected true or false, found 'yes'", overlap="yes")


def test_a_scalar_acceptance_is_refused_as_not_a_list():
    _refused("s.yaml: acceptance: expected a non-empty list of rates in [0, 1], found 0.7", method="eagle", acceptance=0.7)


def test_an_acceptance_length_beside_another_rate_names_which():
    """acceptance_length is refused beside an alpha axis, acceptance or a tree; the line names the first of the three
    given, in that order (a tree beside either is only checked later)."""
    tree, measured = {"nodes": 4, "tau": 2.5}, {"tau": 2.6, "k": 3}
    _refused("s.yaml: acceptance_length: expected it alone (not beside an alpha axis, acceptance or a tree), found "
             "'an alpha axis too'", method="eagle", axes={"alpha": [0.7]}, tree=tree, acceptance_length=measured)
    _refused("s.yaml: acceptance_length: expected it alone (not beside an alpha axis, acceptance or a tree), found "
             "'acceptance too'", method="eagle", acceptance=[0.7, 0.6], tree=tree, acceptance_length=measured)


def test_an_acceptance_length_measured_at_k_zero_is_refused():
    _refused("s.yaml: acceptance_length.k: expected the draft length it was measured at, an integer in 1..", method="eagle",
             acceptance_length={"tau": 1.5, "k": 0})


def test_a_tree_beside_medusa_and_another_method_is_warned_of_as_a_depth():
    """The default-k note speaks of Medusa's heads only where medusa is the one method; beside eagle, k is a depth."""
    with pytest.warns(Warning, match=r"tree: 4 nodes at depth k = 4, the default \(4, at most the nodes\): give axes.k, "
                                     r"the tree's depth"):
        _sc(method=["eagle", "medusa"], tree={"nodes": 4, "tau": 2.5})


def test_none_in_a_per_model_mapping_is_not_warned_of_as_repeated_rows(recwarn):
    """A model mapped to none runs once (its own rows), not once per (k, alpha): no 'rows repeat' note."""
    sc = scenario_from_dict({"hardware": "h100-sxm", "model": ["llama-3.1-8b", "qwen3-8b"],
                             "method": {"llama-3.1-8b": "none", "qwen3-8b": "eagle"}, "axes": {"k": [2, 4]}}, "s.yaml")
    assert sc.configs == 2
    assert not [w for w in recwarn if "rows repeat" in str(w.message)]


def test_a_scenario_named_as_a_report_question_answers_it():
    assert _sc(name="shared-prefix").answers == "shared-prefix"
    assert _sc(name="my-sweep").answers == ""
    assert _sc(name="my-sweep", question="kv-caps-batch").answers == "kv-caps-batch"


def test_a_range_key_synonym_is_found_in_any_case():
    _refused("s.yaml: axes.batch.End: expected a known field (did you mean 'stop'?), found 'End'",
             axes={"batch": {"start": 1, "End": 8, "num": 4}})
