"""scenario.py behaviour the suite did not pin (qa458's mutation survivors): the configs a sweep counts, axis ranges by
step and of one value, the bounds of counts at their edge, a whole-number axis refused a fraction, options refused
beside the wrong method, and the defaults the module docstring gives."""

from __future__ import annotations

import math

import pytest

from roofline.errors import RooflineError
from roofline.scenario import far_from_request, scenario_from_dict

BASE = {"hardware": "h100-sxm", "model": "llama-3.1-8b"}


def _sc(**data):
    return scenario_from_dict({**BASE, **data}, "s.yaml")


def _refused(message: str, **data):
    with pytest.raises(RooflineError) as err:
        _sc(**data)
    assert str(err.value).startswith(message), str(err.value)
    assert "\n" not in str(err.value)


def test_a_method_that_drafts_on_no_device_counts_once_whatever_draft_hardware_lists():
    """ngram drafts on no device: ngram x [target, l4] is one config, eagle x [target, l4] two: 3 configs, 3 x 2 batches
    = 6 points (config_count; `scenarios list` prints sc.configs and sc.points)."""
    sc = _sc(method=["ngram", "eagle"], draft_hardware=[None, "l4"], axes={"batch": [1, 2]})
    assert (sc.configs, sc.points) == (3, 6)
    # a per-model mapping alike: llama's eagle on two devices, qwen's ngram once
    sc = scenario_from_dict({"hardware": "h100-sxm", "model": ["llama-3.1-8b", "qwen3-8b"],
                             "method": {"llama-3.1-8b": "eagle", "qwen3-8b": "ngram"}, "draft_hardware": [None, "l4"]},
                            "s.yaml")
    assert sc.configs == 3


def test_the_points_limit_counts_every_crossed_layout(monkeypatch):
    """tp: [1, 2] x dp_attention: [1, 2] is 4 layouts, 4 points at one grid point: refused under a limit of 3,
    accepted at 4."""
    monkeypatch.setenv("ROOFLINE_MAX_POINTS", "3")
    _refused("s.yaml: axes: expected at most 3 points (raise the limit with ROOFLINE_MAX_POINTS=N), found '4 points'",
             tp=[1, 2], dp_attention=[1, 2])
    monkeypatch.setenv("ROOFLINE_MAX_POINTS", "4")
    assert _sc(tp=[1, 2], dp_attention=[1, 2]).points == 4


def test_a_points_limit_of_zero_is_refused_as_such(monkeypatch):
    monkeypatch.setenv("ROOFLINE_MAX_POINTS", "0")
    _refused("ROOFLINE_MAX_POINTS: expected a positive integer, found '0'")


def test_a_range_by_step_sweeps_its_stop_and_a_range_of_one_value_is_taken():
    """{start: 1, stop: 9, step: 2} is 1, 3, 5, 7, 9 (the stop included, as README's ranges); alpha by 0.1 from 0.5 to
    0.9 is the five rates, 0.9 among them; start == stop is one value, not 'stop >= start' refused."""
    sc = _sc(method="eagle", axes={"batch": {"start": 1, "stop": 9, "step": 2}, "context": {"start": 1024, "stop": 1024, "num": 1},
                                   "alpha": {"start": 0.5, "stop": 0.9, "step": 0.1}})
    assert sc.axes["batch"].tolist() == [1, 3, 5, 7, 9]
    assert sc.axes["context"].tolist() == [1024]
    assert sc.axes["alpha"].tolist() == [0.5, 0.6, 0.7, 0.8, 0.9]


@pytest.mark.slow
def test_a_range_by_step_of_one_value_too_many_is_refused():
    """0..1,000,000 by 1 is 1,000,001 values, one more than MAX_AXIS_VALUES; 0..999,999 is exactly the limit."""
    _refused("s.yaml: axes.context.step: expected at most 1,000,000 values in the range, found 1,000,001 (step 1)",
             axes={"context": {"start": 0, "stop": 1_000_000, "step": 1}})
    assert len(_sc(axes={"context": {"start": 0, "stop": 999_999, "step": 1}}).axes["context"]) == 1_000_000


def test_a_fraction_in_a_whole_number_axis_is_refused_not_rounded():
    _refused("s.yaml: axes.batch: expected whole numbers, found [1, 2.5]", axes={"batch": [1, 2.5]})


def test_counts_at_their_bounds_are_taken_and_one_past_refused():
    """tp 4,096 (DEGREE_MAX) is taken; 64 distinct values of a config key are taken, 65 refused; a prompt of
    1,000,000,000 tokens (CONTEXT_MAX) is taken beside a context axis, and a request whose mean context is exactly
    CONTEXT_MAX (999,999,999 + 2 / 2) sets the context axis to it."""
    assert _sc(tp=4096).tp == (4096,)
    assert len(_sc(tp=list(range(1, 65))).tp) == 64
    _refused("s.yaml: tp: expected a value or a list of 1..64 values", tp=list(range(1, 66)))
    with pytest.warns(Warning, match="axes.context: a request of"):
        assert _sc(prompt=10**9, output_len=1, axes={"context": [1024]}).prompt == 10**9
    assert _sc(prompt=10**9 - 1, output_len=2).axes["context"].tolist() == [10**9]


def test_a_request_past_the_context_limit_is_refused_only_where_it_sets_the_context():
    """prompt 10^9 + output_len 4 is a mean context of 10^9 + 2: refused where it would set the context axis, taken
    beside a context axis given (the serving columns price the context given; a far-context warning says so)."""
    _refused("s.yaml: prompt and output_len: expected a request whose mean context", prompt=10**9, output_len=4)
    with pytest.warns(Warning, match="axes.context: a request of"):
        assert _sc(prompt=10**9, output_len=4, axes={"context": [4096]}).prompt == 10**9


def test_a_context_a_quarter_from_the_requests_mean_is_not_far():
    """|c - mean| > 0.25 x mean is far: at mean 2,000, 1,500 and 2,500 are not, 1,499 and 2,501 are."""
    assert far_from_request([1500, 2500, 1499, 2501], 2000).tolist() == [False, False, True, True]


def test_a_draft_vocabulary_beside_a_method_without_a_vocabulary_head_is_refused():
    _refused("s.yaml: draft_vocab: expected a draft vocabulary only with method eagle or medusa, found 32000",
             method="mtp", draft_vocab=32000)


def test_a_sweep_of_none_beside_a_method_defaults_k_to_the_methods():
    """Missing axes default to k [0] with method none alone, else the method's default (4): none beside eagle sweeps
    eagle at k 4, not at k 0 (plain decoding twice)."""
    assert _sc(method=["none", "eagle"]).axes["k"].tolist() == [4]
    assert _sc(method="none").axes["k"].tolist() == [0]


def test_a_negative_zero_acceptance_rate_is_kept_as_zero():
    sc = _sc(method="eagle", acceptance=[0.9, -0.0])
    assert sc.acceptance == (0.9, 0.0) and math.copysign(1.0, sc.acceptance[1]) == 1.0


def test_a_whole_float_degree_is_the_integer():
    """tp: 2.0 is tp 2, as batch and context take whole floats (qa101)."""
    assert _sc(tp=2.0).tp == (2,) and isinstance(_sc(tp=2.0).tp[0], int)


def test_a_per_model_method_mapping_finds_a_model_named_in_another_case():
    sc = scenario_from_dict({"hardware": "h100-sxm", "model": ["llama-3.1-8b", "qwen3-8b"],
                             "method": {"LLaMA-3.1-8B": "eagle", "qwen3-8b": "none"}}, "s.yaml")
    assert sc.method_by_model == (("llama-3.1-8b", "eagle"), ("qwen3-8b", "none"))


def test_an_axis_value_past_its_bound_is_said_as_written_a_whole_number():
    """batch 2e8 past BATCH_MAX is said 200000000, not 200000000.0."""
    _refused("s.yaml: axes.batch: expected values <= 100,000,000, found 200000000", axes={"batch": [1, 200000000.0]})
    with pytest.raises(RooflineError) as err:
        _sc(axes={"batch": [1, 200000000.0]})
    assert str(err.value).endswith("found 200000000")


def test_an_acceptance_length_measured_at_the_largest_k_is_taken():
    """k = K_MAX (64) is in 1..64: tau 3 there is alpha 2/3 (tau = (1 - a^(k+1)) / (1 - a), a^65 negligible)."""
    sc = _sc(method="eagle", acceptance_length={"tau": 3.0, "k": 64})
    assert sc.axes["k"].tolist() == [64] and sc.axes["alpha"][0] == pytest.approx(2 / 3, rel=1e-9)


@pytest.mark.parametrize("data, message", [
    ({"method": "none", "acceptance_length": {"tau": 2.0, "k": 3}},
     "s.yaml: acceptance_length: expected a speculation method beside it, found 'method none'"),
    ({"method": "eagle", "acceptance": [True, 0.5]},
     "s.yaml: acceptance: expected a non-empty list of rates in [0, 1], found [True, 0.5]"),
    ({"method": "eagle", "tree": {"nodes": 8}}, "s.yaml: tree: expected a mapping {nodes: N, tau: T}, found {'nodes': 8}"),
    ({"method": "eagle", "tree": {"nodes": 8, "tau": 3, "depth": 2}}, "s.yaml: tree: expected a mapping {nodes: N, tau: T}"),
])
def test_speculation_options_of_the_wrong_shape_are_one_line_naming_the_key(data, message):
    _refused(message, **data)


def test_none_beside_a_method_is_warned_of_only_where_its_rows_repeat():
    """Plain decoding's rows repeat once per (k, alpha) pair: with one k and one alpha they do not, and nothing is said;
    with two alphas they do, and it is said."""
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        _sc(method=["none", "eagle"], axes={"k": [4], "alpha": [0.7]})
    assert not [w for w in seen if "rows repeat" in str(w.message)]
    with pytest.warns(Warning, match=r"plain decoding's rows repeat for each of the 2 \(k, alpha\) values"):
        _sc(method=["none", "eagle"], axes={"k": [4], "alpha": [0.7, 0.8]})


@pytest.mark.parametrize("data, message", [
    ({"type": "foo"}, "s.yaml: type: expected scenario (or no type), found 'foo'"),
    ({"question": "why"}, "s.yaml: question: expected one of the report's questions (verify-mini-prefill, "),
])
def test_a_type_or_question_no_scenario_has_is_refused(data, message):
    _refused(message, **data)


def test_a_folder_named_like_a_scenario_file_is_said_a_folder(tmp_path, monkeypatch):
    """`x.yaml` is a path, not a name: a folder of that name is 'expected a scenario file, found a folder', not 'not
    found'."""
    from roofline.scenario import scenario_file

    (tmp_path / "x.yaml").mkdir()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RooflineError, match=r"^x\.yaml: expected a scenario file, found a folder$"):
        scenario_file("x.yaml")


def test_the_far_context_note_shows_four_contexts_and_marks_a_fifth():
    """A request of 2,000 + 400 tokens decodes at 2,200 on average; contexts 100 to 500 are all far (> 550 away): the
    note names the first four and ' ...' for the rest; with four far contexts, no ' ...'."""
    with pytest.warns(Warning, match=r"at context 100, 200, 300, 400 \.\.\. price its steps there"):
        _sc(prompt=2000, output_len=400, axes={"context": [100, 200, 300, 400, 500]})
    with pytest.warns(Warning, match=r"at context 100, 200, 300, 400 price its steps there"):
        _sc(prompt=2000, output_len=400, axes={"context": [100, 200, 300, 400]})


def test_a_trees_default_depth_is_at_most_its_nodes():
    """No k axis beside a tree of 2 nodes: the depth is the default 4 held to the nodes, 2 (default_k)."""
    with pytest.warns(Warning, match="tree: 2 nodes at depth k = 2, the default"):
        assert _sc(method="eagle", tree={"nodes": 2, "tau": 1.8}).axes["k"].tolist() == [2]


def test_a_log_range_by_step_is_refused():
    _refused("s.yaml: axes.batch.log: expected a log range with num ({start, stop, num, log: true}), not with step",
             axes={"batch": {"start": 1, "stop": 8, "step": 1, "log": True}})


def test_whole_floats_are_counts_in_a_ranges_num_and_an_acceptance_lengths_k():
    """num: 4.0 is four values (qa218); acceptance_length k: 3.0 is k 3, swept at 3 (qa426); a tree's tau is a float."""
    assert _sc(axes={"batch": {"start": 1, "stop": 10, "num": 4.0}}).axes["batch"].tolist() == [1, 4, 7, 10]
    sc = _sc(method="eagle", acceptance_length={"tau": 2.5, "k": 3.0})
    assert sc.acceptance_length == (2.5, 3) and sc.axes["k"].tolist() == [3]
    sc = _sc(method="eagle", tree={"nodes": 8, "tau": 3}, axes={"k": [3]})
    assert sc.tree_tau == 3.0 and isinstance(sc.tree_tau, float)


def test_a_requests_mean_context_is_rounded_not_cut():
    """prompt + output_len / 2 = 2,000 + 3 / 2 = 2,001.5, rounded: 2,002 (request_context)."""
    assert _sc(prompt=2000, output_len=3).axes["context"].tolist() == [2002]


def test_two_spellings_of_one_value_are_said_to_be_one():
    _refused("s.yaml: kv_dtype: expected distinct values (bf16 and BF16 are one: bf16), found ['bf16', 'BF16']",
             kv_dtype=["bf16", "BF16"])


def test_a_file_name_with_nothing_a_name_may_hold_names_the_scenario_scenario():
    assert scenario_from_dict(dict(BASE), "/tmp/---.yaml").name == "scenario"


def test_a_layout_degree_spelled_dp_is_told_dp_attention():
    _refused("s.yaml: layouts[0].dp: expected one of tp, dp_attention, ep, pp (did you mean 'dp_attention'?)",
             layouts=[{"dp": 8}])


def test_a_shared_prefix_written_as_a_whole_float_is_the_count():
    """tp: 2.0, prompt: 2000.0 and axes.context: [4096.0] are taken as whole numbers (qa101, qa347); shared_prefix: 1024.0
    was refused as 'expected a number of tokens in 0..1,000,000,000, found 1024.0', which it is."""
    from roofline.scenario import scenario_from_dict

    sc = scenario_from_dict({"hardware": "h100-sxm", "model": "llama-3.1-8b", "shared_prefix": 1024.0,
                             "axes": {"context": [4096]}}, "s.yaml")
    assert sc.shared_prefix == (1024,)
