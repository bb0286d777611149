"""Found by mutation testing of session 72's diff (qa482): the case hint of parse_quantity (units.py) and the other-kind hint of find_profile (profiles.py)."""
import pytest

from roofline.errors import UnknownName
from roofline.profiles import find_profile
from roofline.units import parse_quantity


def test_a_case_slip_whose_spelling_the_list_does_not_show_is_told_one_that_reads():
    """kills unit_cased_empty: 'tflops' matches TFLOPS / TFLOPs / TFlops, none of them the list's TFLOP/s: one is named."""
    with pytest.raises(ValueError, match=r"; units are read in their case: 'TFLOPS'\?\)$"):
        parse_quantity("1 tflops", "flops_per_s")
    assert parse_quantity("1 TFLOPS", "flops_per_s") == 1e12  # the spelling named reads


def test_a_builtin_of_another_kind_is_named_whatever_its_case_and_with_its_article():
    """kills prof_article ('not a engine profile') and prof_case (a name in capitals got no hint)."""
    with pytest.raises(UnknownName, match=r"; h100-sxm is a built-in hardware profile, not an engine profile$"):
        find_profile("engine", "h100-sxm")
    with pytest.raises(UnknownName, match=r"; H100-SXM is a built-in hardware profile, not a model profile$"):
        find_profile("model", "H100-SXM")

