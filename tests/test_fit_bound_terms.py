"""serving.fit_bound_note's terms (qa490 mutants): said only of a parameter in fitted.bounds_hit, only at the bound, and
the direction of a time's bound the opposite of an efficiency's (a time at its ceiling: the rows wanted it longer, slower
than the model; a time at a floor above 0: the rows wanted it shorter, faster)."""
import dataclasses
import warnings

import pytest

from roofline.hardware import load_hardware
from roofline.serving import fit_bound_note, load_engine

pytestmark = pytest.mark.slow  # loads profiles: about 0.3 s


def _engine(hw_name: str, bounds_hit: list[str], **values):
    hw = load_hardware(hw_name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine = load_engine("sglang").for_hardware(hw)
    fitted = {**engine.fitted, "bounds_hit": bounds_hit}
    return dataclasses.replace(engine, fitted=fitted, **values), hw


def test_a_value_at_a_bound_its_fit_did_not_hit_is_not_said():
    engine, hw = _engine("mi300x", [], quantised_moe_efficiency=0.5)  # at 0.5 by hand, not per its fit's bounds_hit
    assert fit_bound_note(engine, hw, {"quantised_moe_efficiency": True}) == ""


def test_a_value_inside_the_range_is_not_said_though_listed():
    engine, hw = _engine("mi300x", ["quantised_moe_efficiency [AMD Instinct]"], quantised_moe_efficiency=0.6)
    assert fit_bound_note(engine, hw, {"quantised_moe_efficiency": True}) == ""  # 0.6: 20% above the 0.5 floor


def test_a_time_at_its_ceiling_means_rows_slower_than_the_model():
    engine, hw = _engine("h100-sxm", ["host_per_sequence"], host_per_sequence_s=100e-6)  # the 0-100 us range's top
    note = fit_bound_note(engine, hw, {"host_per_sequence": True})
    assert "host_per_sequence (100 us) is the upper bound" in note, note
    assert "measured slower than that gives" in note and "run fast where they lean on it" in note, note


def test_a_time_at_a_floor_above_zero_means_rows_faster_than_the_model():
    engine, hw = _engine("h100-sxm", ["kernel_latency"], kernel_latency_s=0.5e-6)  # the 0.5-20 us range's floor
    note = fit_bound_note(engine, hw, {"kernel_latency": True})
    assert "kernel_latency (500 ns) is the lower bound" in note or "kernel_latency (0.5 us) is the lower bound" in note, note
    assert "measured faster than that gives" in note and "run slow where they lean on it" in note, note


@pytest.mark.parametrize("hw_name, hit, values, said", [
    ("h100-sxm", "host_per_sequence", {"host_per_sequence_s": 99.7e-6}, "host_per_sequence (99.7 us) is near the upper bound"),
    ("mi300x", "quantised_moe_efficiency [AMD Instinct]", {"quantised_moe_efficiency": 0.502},
     "quantised_moe_efficiency on AMD Instinct (0.502) is near the lower bound"),
])
def test_a_value_the_fit_counts_at_its_bound_is_said_near_it(hw_name, hit, values, said):
    """qa490: the fit counts a value within 1% of its range (on the scale it searches) at the bound, fitted.bounds_hit;
    the note read only a value within 0.1% of it and said nothing of 99.7 us of a 0-100 us range (u 0.997) or 0.502 of a
    0.5-1 one (u = log2(0.502 / 0.5) = 0.0058)."""
    engine, hw = _engine(hw_name, [hit], **values)
    note = fit_bound_note(engine, hw, {hit.split(" [")[0]: True})
    assert said in note, note
