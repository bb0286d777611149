"""A fitted value at a bound of its fit's range is said where a point leans on it (serving.fit_bound_note), by predict,
the sweep and cheapest (qa485: sglang's MoE efficiency on AMD at its 0.5 floor, two thirds of a DeepSeek-R1 step on
MI300X, said by `engines show` alone)."""
import warnings

import pytest

import roofline
from roofline.hardware import load_hardware
from roofline.serving import fit_bound_note, load_engine

pytestmark = pytest.mark.slow

SAID = "is the lower bound of the range its fit searched (0.5-1)"


def _notes(**point) -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [w for w in roofline.predict(**point)["warnings"] if "bound of the range its fit searched" in w]


def test_a_family_value_at_its_floor_is_said_on_that_family_alone():
    on_amd = _notes(hardware="mi300x", model="deepseek-r1", engine="sglang", tp=8, batch=32)
    assert len(on_amd) == 1 and on_amd[0].startswith(f"sglang's quantised_moe_efficiency on AMD Instinct (0.5) {SAID}")
    assert "measured slower than that gives" in on_amd[0] and "run fast where they lean on it" in on_amd[0]
    assert not _notes(hardware="h200", model="deepseek-r1", engine="sglang", tp=8, batch=32)  # 0.622 there, fitted inside


def test_the_profiles_own_value_at_its_floor_is_said_and_only_where_a_point_uses_it():
    moe = _notes(hardware="h200", model="deepseek-r1", engine="trtllm", tp=8, batch=32)
    assert len(moe) == 1 and moe[0].startswith(f"trtllm's quantised_moe_efficiency (0.5) {SAID}")
    assert not _notes(hardware="h200", model="llama-3.1-8b", engine="trtllm", batch=32)  # bf16 dense: no quantised experts


def test_a_time_at_zero_and_the_overlap_exponent_are_not_said():
    # vllm's host_per_step and sglang's overlap exponent are in fitted.bounds_hit, at the least there is
    assert "host_per_step" in load_engine("vllm").fitted["bounds_hit"]
    assert not _notes(hardware="h100-sxm", model="llama-3.1-8b", engine="vllm", batch=32)
    assert "overlap_exponent" in load_engine("sglang").fitted["bounds_hit"]
    assert not _notes(hardware="h100-sxm", model="llama-3.1-8b", engine="sglang", batch=32)


def test_a_value_set_by_hand_is_no_fits():
    import dataclasses

    hw = load_hardware("mi300x")
    engine = load_engine("sglang").for_hardware(hw)
    used = {"quantised_moe_efficiency": True}
    assert fit_bound_note(engine, hw, used)
    fitted = dict(engine.fitted)
    fitted["per_family"] = [e for e in fitted.get("per_family") or () if not str(e).startswith("quantised_moe_efficiency")]
    assert not fit_bound_note(dataclasses.replace(engine, fitted=fitted), hw, used)  # the override no fit's any more
    assert not fit_bound_note(engine, hw, {"quantised_moe_efficiency": False})  # a point that does not lean on it


def test_the_sweep_says_it_once():
    from roofline.grid import load_configs, run_sweep
    from roofline.scenario import scenario_from_dict

    sc = scenario_from_dict({"name": "b", "hardware": ["mi300x", "h200"], "model": "deepseek-r1", "engine": "sglang",
                             "tp": 8, "axes": {"batch": [8, 32], "context": 2048}}, "b.yaml")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_sweep(sc, load_configs(sc))
    said = [str(w.message) for w in caught if "bound of the range its fit searched" in str(w.message)]
    assert len(said) == 1 and "on AMD Instinct (0.5)" in said[0] and "the sweep's figures run fast" in said[0], said


def test_cheapest_says_it_of_its_pick(roofline, tmp_path):
    scenario = tmp_path / "b.yaml"
    scenario.write_text("name: b\nhardware: mi300x\nmodel: deepseek-r1\nengine: sglang\ntp: 8\n"
                        "axes:\n  batch: [8, 32]\n  context: 2048\n")
    code, _, err = roofline("sweep", str(scenario), "--out", str(tmp_path / "out"), "--no-plots")
    assert code == 0, err
    code, out, err = roofline("cheapest", str(tmp_path / "out"), "--min-tokens-per-user", "1")
    assert code == 0, err
    said = [line for line in (out + err).splitlines() if "bound of the range its fit searched" in line]
    assert len(said) == 1 and "on AMD Instinct (0.5)" in said[0] and "the config's figures run fast" in said[0], said
