import re

import pytest
import yaml

from roofline.errors import RooflineError
from roofline.scenario import load_scenario, scenario_from_dict

ISSUE_FORM = """
name: eagle-on-hopper
hardware: [h100-sxm, h200]
model: llama-3.1-8b
method: eagle          # none | draft | mtp | eagle | medusa | ngram
draft: null            # a model name when method is draft
axes:
  batch: {start: 1, stop: 256, num: 9, log: true}
  context: [1024, 8192]
  k: [1, 2, 3, 4, 5]
  alpha: [0.5, 0.6, 0.7, 0.8, 0.9]
"""


def test_the_issue_form_parses_into_axes():
    sc = scenario_from_dict(yaml.safe_load(ISSUE_FORM), "s.yaml")
    assert list(sc.axes["batch"]) == [1, 2, 4, 8, 16, 32, 64, 128, 256]
    assert sc.hardware == ("h100-sxm", "h200") and sc.points == 2 * 9 * 2 * 5 * 5


def test_every_builtin_scenario_loads(tmp_path):
    from roofline.profiles import list_names

    names = list_names("scenario")
    assert "eagle-on-hopper" in names and len(names) >= 4
    for name in names:
        assert load_scenario(name).points > 0


@pytest.mark.parametrize("patch, message", [
    ({"axes": {"batch": [1], "colour": [1]}}, "s.yaml: axes.colour: expected an axis among batch, context, k, alpha"),
    ({"axes": {"alpha": [0.5, 1.2]}}, "s.yaml: axes.alpha: expected values in [0, 1], found 1.2"),
    ({"axes": {"k": [-1, 2]}}, "s.yaml: axes.k: expected values >= 0, found -1"),
    ({"axes": {"batch": {"start": 64, "stop": 1, "num": 4}}}, "s.yaml: axes.batch: expected a range with stop >= start"),
    ({"axes": {"batch": []}}, "s.yaml: axes.batch: expected a non-empty list or a range"),
    ({"axes": {"batch": "lots"}}, "s.yaml: axes.batch: expected a number, a list or a range"),
    ({"method": "lookahead"}, "s.yaml: method: expected one of none | draft | mtp | eagle | medusa | ngram"),
    ({"type": "hardware"}, "s.yaml: expected a scenario, found a hardware profile (type: hardware)"),
    ({"description": 5}, "s.yaml: description: expected text, found 5"),
    ({"method": ["none", "EAGEL"]}, "s.yaml: method: expected one of none | draft | mtp | eagle | medusa | ngram, found 'EAGEL' (did you mean eagle?)"),
    ({"method": "draft"}, "s.yaml: draft: expected a draft model name with method draft, found none"),
    ({"tp": 0}, "s.yaml: tp: expected an integer in 1..4096, found 0"),
    ({"draft_hardware": 5}, "s.yaml: draft_hardware: expected a hardware name"),
    ({"method": "draft", "draft": 123}, "s.yaml: draft: expected a draft model name, found 123"),
    ({"bookkeeping_s": 0.001}, "s.yaml: bookkeeping_s: expected a known key"),
    ({"method": ["eagle", "eagle"]}, "s.yaml: method: expected distinct values"),
    ({"draft": "llama-3.2-1b"}, "s.yaml: draft: expected a draft model only with method draft"),
    ({"axes": {"batch": {"start": 1, "stop": 8, "num": 4, "step": 2}}}, "s.yaml: axes.batch: expected either num or step"),
    # qa242: 'found both', a key by another name told the five keys alone, and neither num nor step said as num's null
    ({"axes": {"batch": {"start": 1, "stop": 8, "num": 4, "step": 2}}}, "s.yaml: axes.batch: expected either num or step, not both, found 'num 4 and step 2'"),
    ({"axes": {"batch": {"start": 1, "end": 8, "num": 4}}}, "s.yaml: axes.batch.end: expected a known field (did you mean 'stop'?), found 'end'"),
    ({"axes": {"batch": {"start": 1, "stop": 8}}}, "s.yaml: axes.batch: expected a range with num (values) or step (spacing), found 'neither'"),
    ({"axes": {"k": {"start": 0, "stop": 4, "step": 0.5}}}, "s.yaml: axes.k.step: expected a whole number"),
    ({"axes": {"batch": [1, 1.0e+30]}}, "s.yaml: axes.batch: expected values <= 100,000,000, found 1e+30"),
    ({"speed": "fast"}, "s.yaml: speed: expected a known key"),
    ({"method": "none", "axes": {"alpha": [0.5]}}, "s.yaml: axes.alpha: expected only with a speculation method"),
    ({"method": "none", "axes": {"batch": [1]}, "acceptance": [0.9]}, "s.yaml: acceptance: expected only with a speculation method"),
    ({"method": "ngram", "draft_hardware": "l4"}, "s.yaml: draft_hardware: expected only with a method that runs a drafter"),
    ({"method": "none", "axes": {"k": [2]}}, "s.yaml: axes.k: expected only with a speculation method"),
    ({"hardware": ["h100-sxm", "h100-sxm"]}, "s.yaml: hardware: expected distinct names"),
    ({"shared_prefix": 2048}, "s.yaml: shared_prefix: expected at most the smallest context of the sweep (1,024 tokens"),
])
def test_bad_scenarios_give_one_line_with_file_key_expected_found(patch, message):
    data = yaml.safe_load(ISSUE_FORM)
    data.update(patch)
    with pytest.raises(RooflineError) as err:
        scenario_from_dict(data, "s.yaml")
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)


def test_numbers_yaml_reads_as_strings_are_accepted():
    data = yaml.safe_load(ISSUE_FORM.replace("stop: 256", "stop: 1e3"))
    assert scenario_from_dict(data, "s.yaml").axes["batch"].max() == 1000
    # in a list, a range or alone alike: a lone axis value written as text was refused while a list of them was taken
    one = {"name": "s", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
           "axes": {"batch": "8", "context": "1e3", "alpha": ["0.8"]}}
    axes = scenario_from_dict(one, "s.yaml").axes
    assert axes["batch"].tolist() == [8] and axes["context"].tolist() == [1000]
    with pytest.raises(RooflineError, match=r"^s.yaml: axes.batch: expected a number, a list or a range .*, found 'eight'$"):
        scenario_from_dict({**one, "axes": {"batch": "eight"}}, "s.yaml")
    # qa185: float() read "1_000" (refused unquoted), digits of other scripts and "nan" as numbers; they stay text
    for text in ("1_000", "\u0661\u0662", "nan", "0x10"):
        with pytest.raises(RooflineError, match=rf"^s.yaml: axes.batch: expected a list of numbers, found '{text}'$"):
            scenario_from_dict({**one, "axes": {"batch": [text]}}, "s.yaml")


def test_options_apply_when_some_method_of_the_sweep_uses_them():
    data = yaml.safe_load(ISSUE_FORM)
    data.update({"method": ["none", "eagle"], "draft_hardware": [None, "l4"], "shared_prefix": [0, 1024]})
    sc = scenario_from_dict(data, "s.yaml")  # alpha and a drafter's device serve eagle; the prefix fits every context
    assert sc.method == ("none", "eagle") and max(sc.shared_prefix) == 1024


@pytest.mark.parametrize("name", ["../../notes", "/tmp/abs", ".hidden", "a/b", ""])
def test_a_scenario_name_is_a_file_stem_never_a_path(name):
    """A report writes tables/NAME.csv and img/NAME.png: `name: ../../notes` overwrote a user's file outside --out."""
    with pytest.raises(RooflineError, match=r"name: expected a name of 1 to 128 ASCII letters, digits"):
        scenario_from_dict({"name": name, "hardware": "h100", "model": "llama-3.1-8b"}, "s.yaml")
    assert scenario_from_dict({"hardware": "h100", "model": "llama-3.1-8b"}, "/tmp/my scenario.yaml").name == "my-scenario"


@pytest.mark.slow
def test_layouts_sweep_chosen_layouts_side_by_side_and_a_crossed_combination_that_fails_is_named():
    """tp: [1, 8], dp_attention: [1, 8], ep: [1, 8] was refused whole (tp 1 x ep 8 is no layout), so tp 8 could not
    be put beside dp_attention 8 + ep 8 in one sweep, and the error did not say which combination failed."""
    import roofline
    from roofline.grid import load_configs

    base = {"name": "v3", "hardware": "h200", "model": "deepseek-v3", "axes": {"batch": [8, 64], "context": [8192]}}
    sc = scenario_from_dict({**base, "layouts": [{"tp": 8}, {"dp_attention": 8, "ep": 8}]}, "t")
    assert sc.layout_list == ((8, 1, 1, 1), (1, 8, 8, 1)) and sc.configs == 2 and sc.points == 4
    assert [(c.dep.tp, c.dep.dp_attention, c.dep.ep) for c in load_configs(sc)] == [(8, 1, 1), (1, 8, 8)]
    df = roofline.sweep({**base, "layouts": [{"tp": 8}, {"dp_attention": 8, "ep": 8}]})
    assert sorted(set(zip(df["tp"], df["dp_attention"], df["ep"]))) == [(1, 8, 8), (8, 1, 1)]
    assert df.loc[df["dp_attention"] == 8, "max_batch"].iloc[0] > 4 * df.loc[df["tp"] == 8, "max_batch"].iloc[0]
    listed = scenario_from_dict({**base, "layouts": [{"tp": 8}, {"tp": 8, "ep": 16}]}, "l.yaml")
    with pytest.raises(RooflineError, match=re.escape("l.yaml: layouts[1]: ep: expected a divisor of tp x dp_attention = 8")):
        load_configs(listed)
    crossed = scenario_from_dict({**base, "tp": [1, 8], "dp_attention": [1, 8], "ep": [1, 8]}, "c.yaml")
    with pytest.raises(RooflineError, match=r"\(the combination tp 1, dp_attention 1, ep 8, pp 1 of the lists crossed; `layouts:"):
        load_configs(crossed)
    several = scenario_from_dict({**base, "model": "llama-3.1-70b", "layouts": [{"tp": 3}, {"tp": 8}, {"tp": 5}]}, "s.yaml")
    with pytest.raises(RooflineError, match=re.escape("s.yaml: layouts[0]: tp: expected a divisor") + r".*"
                                            + re.escape("(layouts[2] too, for llama-3.1-70b)")):  # qa339: said at once
        load_configs(several)
    other = scenario_from_dict({**base, "model": "llama-3.1-70b", "layouts": [{"tp": 8, "ep": 8}, {"tp": 3}]}, "o.yaml")
    with pytest.raises(RooflineError) as err:  # qa466: tp 3's own rule, not 'too' of ep 8's
        load_configs(other)
    assert str(err.value).startswith("o.yaml: layouts[0]: ep: expected 1 for a dense model") and str(err.value).endswith(
        "(layouts[1] too, for llama-3.1-70b, by its own rule: tp: expected a divisor of the model's 64 attention heads "
        "(llama-3.1-70b), found 3)"), str(err.value)
    one_list = scenario_from_dict({**base, "model": "llama-3.1-70b", "tp": [1, 2, 3, 4, 5, 8]}, "o.yaml")  # qa336: each
    with pytest.raises(RooflineError, match=r"found 3 \(tp 5 too: drop them from the tp list\)$"):  # said at once, no
        load_configs(one_list)  # layouts hint where nothing is crossed
    for bad, says in (({"layouts": [{"tp": 8}], "tp": 2}, "layouts: expected layouts or tp, dp_attention, ep, pp, not both"),
                      ({"layouts": []}, "layouts: expected a non-empty list"),
                      ({"layouts": [{"tp": 8, "cp": 2}]}, "layouts[0].cp: expected one of tp, dp_attention, ep, pp"),
                      ({"layouts": [{"tp": 8}, {"tp": 8, "pp": 1}]}, "layouts[1]: expected each layout once"),
                      ({"layouts": [{"tp": 0}]}, "layouts[0].tp: expected an integer in 1..")):
        with pytest.raises(RooflineError, match=re.escape(says)):
            scenario_from_dict({**base, **bad}, "t")


@pytest.mark.slow
def test_a_measured_acceptance_length_in_a_scenario_is_swept_as_its_alpha_and_recorded():
    """A scenario had no way to take vLLM's 'Mean acceptance length' (acceptance_length: was an unknown key)."""
    import json

    import roofline

    data = {"name": "m", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
            "acceptance_length": {"tau": 2.635, "k": 3}, "axes": {"batch": [1, 8], "k": [1, 3, 5]}}
    df = roofline.sweep(data)
    assert df.loc[df["k"] == 3, "tau"].to_numpy() == pytest.approx([2.635, 2.635])
    assert df["alpha"].nunique() == 1 and df["alpha"].iloc[0] == pytest.approx(0.7258, abs=1e-4)
    from roofline.grid import load_configs, scenario_meta

    sc = scenario_from_dict(data, "m.yaml")
    meta = scenario_meta(sc, load_configs(sc), 6)
    assert meta["acceptance_length"] == {"tau": 2.635, "k": 3} and meta["default_rates"] is None
    json.dumps(meta)
    plain = scenario_from_dict({**{k: v for k, v in data.items() if k != "acceptance_length"}}, "d.yaml")
    assert list(scenario_meta(plain, load_configs(plain), 6)["default_rates"]) == ["eagle"]
    for bad, says in (({"acceptance_length": 2.635}, "acceptance_length: expected a mapping {tau: T, k: K}"),
                      ({"acceptance_length": {"tau": 2.6, "k": 3}, "acceptance": [0.8]}, "acceptance_length: expected it alone"),
                      ({"acceptance_length": {"tau": 6.0, "k": 3}}, "acceptance_length: expected tokens an iteration in [1, k + 1 = 4]"),
                      ({"acceptance_length": {"tau": 2.0, "k": 65}}, "acceptance_length.k: expected the draft length it was measured at, an integer in 1..64")):
        with pytest.raises(RooflineError, match=re.escape(says)):
            scenario_from_dict({**data, **bad}, "m.yaml")


def test_a_measured_acceptance_length_without_a_k_axis_sweeps_the_k_it_was_measured_at():
    """qa426: tau 2.6 measured at k = 3 swept the method's default k 4, where its one rate runs optimistic."""
    data = {"name": "m", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
            "acceptance_length": {"tau": 2.6, "k": 3}, "axes": {"batch": [1, 8]}}
    assert scenario_from_dict(data, "m.yaml").axes["k"].tolist() == [3]
    assert scenario_from_dict({**data, "axes": {"k": [2, 5]}}, "m.yaml").axes["k"].tolist() == [2, 5]  # given: kept
    assert scenario_from_dict({k: v for k, v in data.items() if k != "acceptance_length"}, "m.yaml").axes["k"].tolist() == [4]


def test_an_axis_count_written_32k_or_with_separators_is_told_its_digits():
    """qa421: `context: [32k]` and `batch: ["2,048"]` were refused without the digits meant; a k is not guessed."""
    base = {"name": "s", "hardware": "h100-sxm", "model": "llama-3.1-8b"}
    for axes, says in (({"context": ["32k", 1024]}, "axes.context: expected a list of numbers, found '32k' (write 32768 "
                                                    "for 32 x 1,024, or 32000 for 32 x 1,000)"),
                       ({"context": "1M"}, "found '1M' (write 1048576 for 1 x 1,048,576, or 1000000 for 1 x 1,000,000)"),
                       ({"batch": [1, "2,048"]}, "axes.batch: expected a list of numbers, found '2,048' (write 2048: no "
                                                 "separators)")):
        with pytest.raises(RooflineError, match=re.escape(says) + "$"):
            scenario_from_dict({**base, "axes": axes}, "s.yaml")
    with pytest.raises(RooflineError, match=r"axes.alpha: expected a list of numbers, found '0.5k'$"):  # a rate: no count
        scenario_from_dict({**base, "method": "eagle", "axes": {"alpha": ["0.5k"]}}, "s.yaml")
    for axes, found in (({"batch": ["200M"]}, "'200M'"), ({"k": ["1k"]}, "'1k'")):  # qa427: only readings in the axis's
        with pytest.raises(RooflineError, match=f"found {found}$"):  # bounds (batch to 1e8, k to 64): none here
            scenario_from_dict({**base, "method": "eagle", "axes": axes}, "s.yaml")
    with pytest.raises(RooflineError, match=re.escape("found '100M' (write 100000000)") + "$"):
        scenario_from_dict({**base, "axes": {"batch": ["100M"]}}, "s.yaml")
    with pytest.raises(RooflineError, match=re.escape("axes.batch: expected a list of numbers, found '0k'") + "$"):
        scenario_from_dict({**base, "axes": {"batch": ["0k"]}}, "s.yaml")  # batch from 1 (qa430): no reading
    with pytest.raises(RooflineError, match=re.escape("found '0k' (write 0)") + "$"):
        scenario_from_dict({**base, "method": "eagle", "axes": {"batch": [1], "k": ["0k"]}}, "s.yaml")
    # qa431: a top-level `context: 32k` (beside prompt and output_len) is an axis; `prompt: 2k` told its digits too
    with pytest.raises(RooflineError, match=re.escape("context: expected a known key (context is an axis: write it under "
                                                      "axes, as axes.context), found 'context'")):
        scenario_from_dict({**base, "context": "32k"}, "s.yaml")
    with pytest.raises(RooflineError, match=re.escape("prompt: expected a number of tokens in 1..1,000,000,000, found '2k' "
                                                      "(write 2048 for 2 x 1,024, or 2000 for 2 x 1,000)") + "$"):
        scenario_from_dict({**base, "prompt": "2k", "output_len": 500}, "s.yaml")


def test_a_readme_scenario_path_run_outside_the_checkout_names_the_built_in(tmp_path, monkeypatch):
    """`roofline sweep scenarios/moe-verify-cost.yaml` from another folder said only 'scenario file not found'."""
    from roofline.errors import RooflineError
    from roofline.scenario import load_scenario

    monkeypatch.chdir(tmp_path)
    with pytest.raises(RooflineError, match=r"scenarios/moe-verify-cost.yaml: scenario file not found \(a scenario of that "
                                            r"name is on the search path, .*: give its name, moe-verify-cost\)"):
        load_scenario("scenarios/moe-verify-cost.yaml")
    with pytest.raises(RooflineError, match=r"^nothere.yaml: scenario file not found$"):
        load_scenario("nothere.yaml")


def test_an_axis_rounded_or_given_twice_is_said():
    """{start: 1, stop: 10, num: 3} swept batches 1, 6, 10 and [4, 4, 2] swept 2, 4 without a word (qa99); a log range's
    rounding is by design (docs/PROFILES.md), and the built-in scenarios say nothing."""
    import warnings

    from roofline.errors import RooflineWarning

    def said(axis) -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scenario_from_dict({"hardware": "h100-sxm", "model": "llama-3.1-8b", "axes": {"batch": axis}}, "s.yaml")
        return [str(w.message) for w in caught if issubclass(w.category, RooflineWarning)]

    assert said({"start": 1, "stop": 10, "num": 3}) == [
        "s.yaml: axes.batch: a range of 3 values, not all whole, rounded to whole numbers: 1, 6, 10"]
    assert said([4, 4, 2]) == ["s.yaml: axes.batch: 3 values given, 2 distinct: a value given twice (or two alike to 12 "
                               "digits) is swept once"]
    with warnings.catch_warnings(record=True) as caught:  # alike to 12 digits (qa102)
        warnings.simplefilter("always")
        scenario_from_dict({"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                            "axes": {"alpha": [0.8, 0.8000000000001, 0.7], "k": [3]}}, "s.yaml")
    assert [str(w.message) for w in caught if issubclass(w.category, RooflineWarning)] == [
        "s.yaml: axes.alpha: 3 values given, 2 distinct: a value given twice (or two alike to 12 digits) is swept once"]
    assert said({"start": 1, "stop": 4, "num": 10, "log": True}) == said([1, 8, 64]) == said({"start": 1, "stop": 64, "step": 1}) == []


def test_a_drafter_on_none_is_said_to_be_null_not_looked_up(tmp_path):
    """qa112: `draft_hardware: [l4, none]` said "unknown hardware 'none'; closest: tpu-v5e, ..."."""
    import roofline

    for value in ("none", "None", "target"):
        with pytest.raises(RooflineError, match=rf"^s: draft_hardware: expected a hardware profile name, found '{value}': the "
                                                r"target's own devices are null in a scenario file"):
            scenario_from_dict({"name": "s", "hardware": "h100-sxm", "model": "llama-3.1-70b", "method": "draft",
                                "draft": "llama-3.2-1b", "draft_hardware": ["l4", value], "axes": {"alpha": [0.7]}}, "s")
    with pytest.raises(RooflineError, match=r"^predict: draft_hardware: expected a hardware profile name, found 'none'"):
        roofline.predict("h100", "llama-3.1-8b", method="eagle", alpha=0.7, draft_hardware="none")


def test_a_folder_named_like_a_scenario_in_the_working_folder_does_not_hide_the_scenario(tmp_path, monkeypatch):
    """qa113: a sweep's own --out eagle-on-hopper in the working folder made `sweep eagle-on-hopper` (and scenarios
    list, bench --jobs) fail with 'expected a scenario file, found a folder'."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "eagle-on-hopper").mkdir()
    assert load_scenario("eagle-on-hopper").name == "eagle-on-hopper"
    with pytest.raises(RooflineError, match="expected a scenario file, found a folder"):
        load_scenario(str(tmp_path / "eagle-on-hopper"))  # a path to the folder is the folder


def test_a_scenario_without_a_name_takes_its_file_name_cut_to_the_rule(tmp_path):
    """qa124: a file name of 140 characters, no `name:`, was refused for the name the tool gave it."""
    path = tmp_path / ("a" * 140 + ".yaml")
    path.write_text("hardware: h100-sxm\nmodel: llama-3.1-8b\naxes:\n  batch: [1]\n")
    assert load_scenario(str(path)).name == "a" * 128


def test_acceptance_beside_an_alpha_axis_or_a_measured_length_says_what_it_found_not_both():
    """qa130: both refusals ended 'found 'both''."""
    base = {"name": "t", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle", "axes": {"batch": [1]}}
    for bad, says in (({"acceptance": [0.8], "axes": {"batch": [1], "alpha": [0.6]}},
                       "acceptance: expected either acceptance or an alpha axis, not both, found 'an alpha axis too'"),
                      ({"acceptance_length": {"tau": 2.5, "k": 3}, "tree": {"nodes": 8, "tau": 2.5}},
                       "acceptance_length: expected it alone (not beside an alpha axis, acceptance or a tree), found 'a tree too'")):
        with pytest.raises(RooflineError, match=re.escape(says)):
            scenario_from_dict({**base, **bad}, "t")


def test_a_tree_s_refusals_name_its_keys_as_the_file_spells_them():
    """qa130: 'tree.tau: expected a number in [1, tree_nodes + 1 = 21]', the API's name inside the file's message."""
    base = {"name": "t", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle", "axes": {"batch": [1]}}
    with pytest.raises(RooflineError, match=re.escape("t: tree.tau: expected a number in [1, tree.nodes + 1 = 3], found 25")):
        scenario_from_dict({**base, "tree": {"nodes": 2, "tau": 25}}, "t")
    # where the depth's bound is the tighter, it is said first (qa433)
    with pytest.raises(RooflineError, match=re.escape("t: tree.tau: expected at most k + 1 = 5 (a tree of depth k = 4")):
        scenario_from_dict({**base, "tree": {"nodes": 20, "tau": 25}}, "t")


def test_a_misspelt_key_or_predicts_tree_arguments_get_the_key_to_write():
    """qa140: `tree_nodes: 10` (predict's argument) and a misspelt key got the whole list of keys, no pointer."""
    base = {"name": "t", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
            "axes": {"batch": [1], "context": [1024]}}
    with pytest.raises(RooflineError, match=r"tree_nodes: expected tree: \{nodes: N, tau: T\}"):
        scenario_from_dict({**base, "tree_nodes": 10}, "s.yaml")
    with pytest.raises(RooflineError, match=r"acceptanse: expected a known key \(did you mean 'acceptance'\?\)"):
        scenario_from_dict({**base, "acceptanse": 0.7}, "s.yaml")


def test_a_method_per_model_that_is_a_list_or_mapping_is_one_line_not_a_traceback():
    """qa145: `method: {deepseek-v3: [none, mtp]}` was hashed before any check (TypeError: unhashable type: 'list')."""
    base = {"name": "m", "hardware": "h200", "model": "deepseek-v3", "tp": 8, "axes": {"batch": [1], "context": [1024]}}
    for value in (["none", "mtp"], {"x": 1}):
        with pytest.raises(RooflineError, match=r"method\.deepseek-v3: expected one method name for the model"):
            scenario_from_dict({**base, "method": {"deepseek-v3": value}}, "s.yaml")


def test_method_names_are_read_in_any_case_as_profile_names_are():
    """qa217: `--hardware H100-SXM --engine vLLM` were read, `--method EAGLE` refused (a hint said lower case)."""
    import roofline as api

    base = {"name": "m", "hardware": "h200", "model": "deepseek-v3", "tp": 8, "axes": {"batch": [1], "context": [1024]}}
    assert scenario_from_dict({**base, "method": ["None", " MTP "]}, "s.yaml").methods == ("none", "mtp")
    by_model = scenario_from_dict({**base, "method": {"deepseek-v3": "MTP"}}, "s.yaml")
    assert by_model.methods == ("mtp",) and dict(by_model.method_by_model) == {"deepseek-v3": "mtp"}
    point = api.predict("h100-sxm", "llama-3.1-8b", batch=1, method="EAGLE", k=2, alpha=0.7)
    assert point["spec"]["method"] == "eagle"


def test_a_misspelt_layout_key_gets_its_did_you_mean():
    """qa145: `layouts: [{dp: 8, ep: 8}]` got the list of keys only."""
    base = {"name": "l", "hardware": "h200", "model": "deepseek-v3", "axes": {"batch": [1], "context": [1024]}}
    with pytest.raises(RooflineError, match=r"layouts\[0\]\.dp: expected one of tp, dp_attention, ep, pp \(did you mean "
                                            r"'dp_attention'\?\)"):
        scenario_from_dict({**base, "layouts": [{"dp": 8, "ep": 8}]}, "s.yaml")


def test_none_beside_a_drafting_method_says_its_rows_repeat_over_k_and_alpha():
    """qa205: method [eagle, none] with 5 k values wrote each plain row 5 times (90 of 180 rows), in silence."""
    import warnings

    from roofline.errors import RooflineWarning

    base = {"name": "s", "hardware": "h100-sxm", "model": "llama-3.1-8b", "axes": {"batch": [1, 8], "k": [1, 2, 3]}}
    for method, said in ((["eagle", "none"], True), (["eagle"], False), (["eagle", "ngram"], False)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scenario_from_dict({**base, "method": method})
        notes = [str(w.message) for w in caught if issubclass(w.category, RooflineWarning) and "repeat for each" in str(w.message)]
        assert bool(notes) is said and (not said or "each of the 3 (k, alpha) values" in notes[0])


def test_a_tree_without_a_k_axis_says_the_depth_it_took():
    """qa207: a tree's depth defaulted to 4 in silence (predict says it; a scenario now too)."""
    import warnings

    from roofline.errors import RooflineWarning

    base = {"name": "s", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle", "tree": {"nodes": 25, "tau": 3.61}}
    for axes, said in (({"batch": [1]}, True), ({"batch": [1], "k": [5]}, False)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scenario_from_dict({**base, "axes": axes})
        notes = [str(w.message) for w in caught if issubclass(w.category, RooflineWarning) and "the tree's depth" in str(w.message)]
        assert bool(notes) is said and (not said or "tree: 25 nodes at depth k = 4, the default" in notes[0])
    with warnings.catch_warnings(record=True) as caught:  # qa402: Medusa's k is its heads, not a depth
        warnings.simplefilter("always")
        scenario_from_dict({**base, "method": "medusa", "axes": {"batch": [1]}})
    notes = [str(w.message) for w in caught if issubclass(w.category, RooflineWarning) and str(w.message).startswith("<scenario>: tree")
             or "tree: 25 nodes" in str(w.message)]
    assert len(notes) == 1 and "tree: 25 nodes at k = 4 heads, the default" in notes[0] and "Medusa's heads" in notes[0], notes



def test_a_scenario_files_config_errors_say_the_line_of_their_key(tmp_path):
    """qa242: `method: mtp` on Llama, `ep: 2` on a dense model, `tp: 3` and an alpha axis without a method said the file
    and key but no line, where other errors of the same file said theirs."""
    from roofline.grid import load_configs
    from roofline.scenario import load_scenario

    for extra, said in (("method: mtp\n", "line 4: method: expected a model with MTP modules"),
                        ("ep: 2\n", "line 4: ep: expected 1 for a dense model"),
                        ("tp: 3\n", "line 4: tp: expected a divisor of the model's 32 attention heads")):
        path = tmp_path / "t.yaml"
        path.write_text(f"name: t\nhardware: h100-sxm\nmodel: llama-3.1-8b\n{extra}axes:\n  batch: [1]\n")
        with pytest.raises(RooflineError, match=f"^{re.escape(str(path))}: {said}"):
            load_configs(load_scenario(str(path)))
    path.write_text("name: t\nhardware: h100-sxm\nmodel: llama-3.1-8b\naxes:\n  batch: [1]\n  alpha: [0.8]\n")
    with pytest.raises(RooflineError, match=f"^{re.escape(str(path))}: line 6: axes.alpha: expected only with a speculation"):
        load_scenario(str(path))


def test_a_per_model_method_mapping_counts_one_method_a_model_and_names_which_side_is_off(monkeypatch):
    """qa319: the size check multiplied a `method: {model: method}` mapping's methods by its models (6,912 points said
    for a sweep of 3,456), and a misspelt model in the list was said as a method fault."""
    data = {"name": "m", "hardware": "h100-sxm", "model": ["llama-3.1-8b", "qwen3-8b"],
            "method": {"llama-3.1-8b": "eagle", "qwen3-8b": "ngram"},
            "axes": {"batch": [1, 8, 64], "context": [1024], "k": [1, 2], "alpha": [0.7, 0.8]}}
    sc = scenario_from_dict(data, "m.yaml")
    assert sc.points == 2 * 3 * 2 * 2
    monkeypatch.setenv("ROOFLINE_MAX_POINTS", str(sc.points))
    assert scenario_from_dict(data, "m.yaml").points == sc.points  # at the limit: taken, not refused as twice it
    monkeypatch.setenv("ROOFLINE_MAX_POINTS", str(sc.points - 1))
    with pytest.raises(RooflineError, match=f"found '{sc.points:,} points'"):
        scenario_from_dict(data, "m.yaml")
    monkeypatch.delenv("ROOFLINE_MAX_POINTS")
    with pytest.raises(RooflineError, match=r"method: expected a method for each model \(llama-3.1-8b, qwen3-9b\): no method "
                                            r"for qwen3-9b; qwen3-8b not in model, found"):
        scenario_from_dict({**data, "model": ["llama-3.1-8b", "qwen3-9b"]}, "m.yaml")


def test_validate_says_a_scenario_name_that_is_not_its_file_name(tmp_path, roofline):
    """qa319: `scenarios validate` said ok of a file whose `name:` differs from its file name (list said it; show by
    that name then said 'unknown scenario')."""
    path = tmp_path / "my-file.yaml"
    path.write_text("name: other\nhardware: h100-sxm\nmodel: llama-3.1-8b\naxes: {batch: [1]}\n")
    code, out, err = roofline("scenarios", "validate", path)
    assert code == 0 and f"ok    {path}" in out
    assert f"warning: {path}: name: 'other' is not the file's name 'my-file': commands find the scenario by the file's " \
           "name, and its sweep and report outputs take 'other'" in err, err


def test_a_range_of_one_value_says_its_stop_is_not_swept():
    """qa319: `batch: {start: 1, stop: 8, num: 1}` swept [1] and dropped the stop in silence."""
    import warnings

    from roofline.errors import RooflineWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sc = scenario_from_dict({"name": "r", "hardware": "h100-sxm", "model": "llama-3.1-8b",
                                 "axes": {"batch": {"start": 1, "stop": 8, "num": 1}}}, "r.yaml")
    assert list(sc.axes["batch"]) == [1]
    assert [str(w.message) for w in caught if issubclass(w.category, RooflineWarning)] == [
        "r.yaml: axes.batch: num 1 sweeps the start alone (1); stop 8 is not swept (num 2 or more spans the range)"]


def test_show_and_the_size_check_count_the_configs_a_sweep_runs():
    """qa320: plain decoding beside a draft model on three devices was counted once per device (show: 6 configs, 12
    points; the sweep: 8), and a mapping naming one method in two cases was refused as two."""
    sc = scenario_from_dict({"name": "dh", "hardware": "h100-sxm", "model": "llama-3.1-70b", "tp": 4, "method": ["none", "draft"],
                             "draft": "llama-3.2-1b", "draft_hardware": ["l4", "l40s", "a10g"],
                             "axes": {"batch": [1, 8], "k": [2], "alpha": [0.7]}}, "dh.yaml")
    assert (sc.configs, sc.points) == (4, 8)
    import roofline

    assert len(roofline.sweep({"name": "dh", "hardware": "h100-sxm", "model": "llama-3.1-70b", "tp": 4,
                               "method": ["none", "draft"], "draft": "llama-3.2-1b", "draft_hardware": ["l4", "l40s", "a10g"],
                               "axes": {"batch": [1, 8], "k": [2], "alpha": [0.7]}})) == sc.points
    mixed = scenario_from_dict({"name": "mm", "hardware": "h100-sxm", "model": ["llama-3.1-8b", "llama-3.1-70b"], "tp": 4,
                                "method": {"llama-3.1-8b": "eagle", "llama-3.1-70b": "EAGLE"},
                                "axes": {"batch": [1], "k": [2], "alpha": [0.7]}}, "mm.yaml")
    assert mixed.method_by_model == (("llama-3.1-8b", "eagle"), ("llama-3.1-70b", "eagle")) and mixed.configs == 2


def test_scenarios_show_counts_the_configs_the_sweep_runs(tmp_path, roofline):
    """qa322: `show` said 2 configs and 4 points of a sweep of weight_dtype [null, bf16] on a bf16 model, whose two
    values are one config (the sweep wrote 2 points)."""
    path = tmp_path / "s5.yaml"
    path.write_text("name: s5\nhardware: h100-sxm\nmodel: llama-3.1-8b\nweight_dtype: [null, bf16]\n"
                    "axes: {batch: [1, 8]}\n")
    code, out, err = roofline("scenarios", "show", path)
    assert code == 0 and out.strip().endswith("1 config x 2 grid points = 2 points"), out
    import roofline as api

    assert len(api.sweep(str(path))) == 2


def test_a_tree_sweeps_one_depth():
    """qa345: a tree of one measured tau swept over depths 3-6 had its figures, report and cheapest take the fastest
    depth, always the shallowest (only the draft steps change): a tree's tau holds at its depth alone."""
    base = {"name": "s", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle", "tree": {"nodes": 15, "tau": 3.5}}
    with pytest.raises(RooflineError, match=r"^t: axes\.k: expected one tree depth \(0, plain decoding, may stand beside "
                                            r"it\): a tree's tau is measured at its depth.*found \[3, 4, 5, 6\]$"):
        scenario_from_dict({**base, "axes": {"k": [3, 4, 5, 6]}}, "t")
    assert list(scenario_from_dict({**base, "axes": {"k": [0, 5]}}, "t").axes["k"]) == [0, 5]
    with pytest.raises(RooflineError, match=r"axes\.k: expected one tree depth.*found \[4, 5\]$"):  # two are several
        scenario_from_dict({**base, "axes": {"k": [0, 4, 5]}}, "t")


def test_an_axis_error_names_the_first_value_given_out_of_range_and_an_empty_axes_key_is_said(tmp_path):
    """qa365: alpha [80, 85] said 'found 85.0' and batch [0, -3, 8] 'found -3' (the extreme, not the first given);
    `axes:` with nothing under it swept the defaults unsaid."""
    from roofline.errors import RooflineWarning

    base = {"name": "s", "hardware": "h100-sxm", "model": "llama-3.1-8b"}
    for axis, values, found in (("alpha", [80, 85], "found 80.0"), ("batch", [0, -3, 8], "found 0"),
                                ("alpha", [0.5, -0.2, 1.5], "found -0.2"), ("k", [2, -1, -5], "found -1")):
        with pytest.raises(RooflineError, match=rf"axes\.{axis}: expected .*, {found}$"):
            scenario_from_dict({**base, "axes": {axis: values}}, "s.yaml")
    path = tmp_path / "s.yaml"
    path.write_text("name: s\nhardware: h100-sxm\nmodel: llama-3.1-8b\naxes:\n")
    with pytest.warns(RooflineWarning, match="axes: empty: every axis takes its default"):
        load_scenario(str(path))


def _tree_scenario(k, nodes, tau):
    return scenario_from_dict({"name": "t", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                               "tree": {"nodes": nodes, "tau": tau}, "axes": {"batch": [1], "k": k}}, "t")


def test_a_trees_tau_bound_is_its_shallowest_depths_and_a_tau_of_one_is_taken(roofline):
    """qa437's survivors of qa433's change: a tau of exactly 1 is taken (every draft rejected); of a k axis the
    shallowest depth sets the bound said first; a k of 0 (plain decoding) beside a depth changes nothing."""
    _tree_scenario([0, 4], 8, 1)
    code, out, err = roofline("predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--method", "eagle", "--k", "4",
                              "--tree-nodes", "8", "--tree-tau", "1", "--batch", "1")
    assert code == 0 and "tree of 8 nodes, tau 1 (given)" in out and re.search(r"tau \(tokens/iter\)\s+1\.000", out), out + err
    with pytest.raises(RooflineError, match=re.escape("t: tree.tau: expected at most k + 1 = 3 (a tree of depth k = 2 emits "
                                                      "at most k + 1 tokens an iteration), found 10")):
        _tree_scenario([2, 8], 8, 10)
    for k in ([8], [0, 8]):
        with pytest.raises(RooflineError, match=re.escape("t: tree.tau: expected a number in [1, tree.nodes + 1 = 4], found 5")):
            _tree_scenario(k, 3, 5)
