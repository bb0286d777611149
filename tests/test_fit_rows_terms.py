"""fit.py, found by mutation testing (qa478): the fallback sentence of fit_rows in the singular and with one own row, and
the order of the partners _determined_together names (no fit run)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from roofline.fit import _determined_together, fit_rows


def _rows(slots):
    return pd.DataFrame({"split": ["fit"] * len(slots), "engine_slot": slots, "batch": range(1, len(slots) + 1)})


def test_a_fallback_with_one_row_of_another_engine_says_one_row():
    """4 vllm rows and 1 trtllm row: every row is taken, 'partly' to other engines' measurements, '(1 row: trtllm 1)'."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows, which = fit_rows(_rows(["vllm"] * 4 + ["trtllm"]), "vllm")
    assert len(rows) == 5 and which == ("all 5 fit rows (only 4 of engine vllm, fewer than 5), each predicted with vllm: a "
                                        "profile fitted partly to other engines' measurements (1 row: trtllm 1)"), which


def test_a_fallback_with_one_own_row_says_partly():
    """1 vllm row and 4 trtllm rows: the profile is fitted partly (not wholly) to other engines' measurements."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, which = fit_rows(_rows(["vllm"] + ["trtllm"] * 4), "vllm")
    assert which == ("all 5 fit rows (only 1 of engine vllm, fewer than 5), each predicted with vllm: a profile fitted "
                     "partly to other engines' measurements (4 rows: trtllm 4)"), which


def test_the_partners_that_reproduce_a_parameter_are_named_largest_share_first():
    """Column 0 = 0.3 x column 1 + 0.7 x column 2 exactly: both partners carry more than a tenth of it, named by their
    share of the reproduction, column 2 (0.7) before column 1 (0.3)."""
    one, two = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
    columns = np.c_[0.3 * one + 0.7 * two, one, two]
    assert _determined_together(columns, [0, 1, 2])[0] == [2, 1]


def test_a_mapping_the_fit_notes_beside_a_costs_from_field_is_written_by_its_keys():
    """_yaml_value_text: a mapping (speculation_caveats) as YAML flow text of its keys, not Python's repr (qa412)."""
    from roofline.fit import _yaml_value_text

    assert _yaml_value_text({"draft": "a note", "eagle": "another"}) == "{draft: ..., eagle: ...}"
    assert _yaml_value_text({}) == "{}"
    assert _yaml_value_text([True, None, "ngram"]) == "[true, null, ngram]"
