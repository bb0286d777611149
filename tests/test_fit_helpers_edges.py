"""roofline/fit.py's helpers at their edges (qa451's mutation round; no fit run): the number format, the folded
notes, the rows a robust loss fades, the worse-than-loaded line, --per-family's note, which rows a profile takes and how the others are
named, the second start of the search, and the fitted column at the optimiser's residue above a low bound."""

from __future__ import annotations

import io
import types
import warnings

import numpy as np
import pandas as pd
import pytest

from roofline.errors import RooflineWarning
from roofline.fit import (
    PARAMETERS,
    _faded_rows,
    _folded,
    _per_family_none,
    _shown,
    _starts,
    _worse_than_loaded,
    fit_report,
    fit_rows,
    left_out_note,
    rows_slot,
)


def test_shown_writes_four_significant_digits_out_in_full_from_a_thousandth_up_to_a_million():
    """_shown's docstring: 4 significant digits, written out in full from 0.001 (inclusive) to 10^6 (exclusive)."""
    assert _shown(1.23456) == "1.235"  # 4 significant digits, not 5
    assert _shown(123456.0) == "123500"
    assert _shown(0.001) == "0.001"  # the lower end is written out
    assert _shown(1e6) == "1e+06"  # 10^6 itself is not


def test_folded_notes_fold_a_last_stretch_longer_than_the_width_at_its_last_space():
    """A notes text whose last stretch (after the last fold) is longer than the width is folded at its last space: the
    block scalar's lines stay within 110 characters and read back as the same text."""
    from ruamel.yaml import YAML

    from roofline.editing import _round_trip

    text = "a" * 100 + " " + "b" * 50  # 151 characters, one space: no space lies past the width, the tail is too long
    stream = io.StringIO()
    _round_trip().dump({"notes": _folded(text)}, stream)  # as fitted_profile_text writes a profile (width 4096)
    body = stream.getvalue().splitlines()[1:]  # 'notes: >-' then the folded lines
    assert [len(line.strip()) for line in body] == [100, 50], stream.getvalue()
    assert YAML(typ="safe").load(stream.getvalue())["notes"] == text


def _residual_rows(residuals):
    return pd.DataFrame({"row": range(1, len(residuals) + 1), "skipped": [""] * len(residuals), "log_residual": residuals})


def test_a_robust_loss_fades_rows_beyond_three_loss_scales_and_names_twelve_of_them():
    """far = |ln(p/m)| > 3 x 0.15 = 0.45: a row at 0.40 is not far (2 scales would make it so); with 13 far rows the
    first 12 are named, then '...'."""
    (line,) = _faded_rows({"loss": "cauchy", "loss_scale": 0.15, "rows": _residual_rows([0.01, 0.40, -0.50, 0.02])})
    assert line.startswith("the cauchy loss weighs 1 of 4 rows little (predicted more than 57% above or 36% below: rows 3)"), line
    assert line.endswith(f"{np.sqrt((0.01 ** 2 + 0.40 ** 2 + 0.02 ** 2) / 3):.3f}"), line  # RMS over the other three: 0.231
    (line,) = _faded_rows({"loss": "soft_l1", "loss_scale": 0.15, "rows": _residual_rows([1.0] * 13 + [0.0])})
    assert "13 of 14 rows little" in line and "rows 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, ...)" in line, line


def test_the_worse_than_loaded_line_starts_above_five_percent_worse():
    """_worse_than_loaded: said where the fitted RMS exceeds 1.05 x the profile's as loaded (0.030 against 0.025 is 1.2x),
    not at 1.04x (0.026 against 0.025)."""
    fit = {"rms_log_error": {"start": 0.1, "loaded": 0.025, "fitted": 0.030}, "parameters": [],
           "base": types.SimpleNamespace(name="vllm")}
    assert _worse_than_loaded(fit) == ["worse than vllm as it is on these rows (0.030 against 0.025): vllm as it is "
                                       "describes them better"]
    assert _worse_than_loaded({**fit, "rms_log_error": {"start": 0.1, "loaded": 0.025, "fitted": 0.026}}) == []


def test_no_per_family_note_without_per_family():
    """The note names --per-family only where it was asked (a fit without it has no family of its own either)."""
    families = pd.Series(["h100-sxm"] * 6)
    assert _per_family_none((), [], families) == ""
    assert _per_family_none(("kernel_latency",), [], families).startswith("--per-family kernel_latency: no family beside")


def test_a_copy_named_after_a_versioned_profile_fits_that_versions_rows():
    """rows_slot matches the longest slot name the profile's name contains: my-sglang-early is sglang-early's, my-vllm-v0
    vllm-v0's (not sglang's, vllm's)."""
    table = pd.DataFrame({"split": ["fit"], "engine_slot": ["vllm"]})
    assert rows_slot("my-sglang-early", table) == "sglang-early"
    assert rows_slot("my-vllm-v0", table) == "vllm-v0"
    assert rows_slot("my-vllm", table) == "vllm"


def test_five_rows_of_the_engine_are_enough_and_the_note_of_rows_left_out_follows_the_rows_taken():
    """MIN_ENGINE_ROWS = 5 own rows are fitted alone; with 3 the fit takes every row, so nothing is said left out."""
    table = pd.DataFrame({"split": ["fit"] * 12, "engine_slot": ["vllm"] * 5 + ["trtllm"] * 7, "batch": range(1, 13)})
    rows, which = fit_rows(table, "vllm")
    assert len(rows) == 5 and which == "5 fit rows of engine vllm"
    assert left_out_note(table, "vllm") == " (7 rows of other engines left out: trtllm 7)"
    few = table.assign(engine_slot=["vllm"] * 3 + ["trtllm"] * 9)
    assert left_out_note(few, "vllm") == ""  # its docstring: '' where the fit falls back to every row


def test_other_engines_are_named_by_their_own_spelling_three_at_most():
    """Rows of a server whose every spelling has capitals are counted (casefold -> its spelling), and a fallback names the
    three engines with most rows, then '...'."""
    table = pd.DataFrame({"split": ["fit"] * 8, "engine": ["vLLM"] * 6 + ["HF Transformers"] * 2,
                          "engine_slot": ["vllm"] * 6 + [""] * 2, "batch": range(1, 9)})
    assert left_out_note(table, "vllm") == " (2 rows of other engines left out: HF Transformers 2)"
    slots = ["vllm"] * 2 + ["sglang"] * 4 + ["trtllm"] * 3 + ["vllm-v0"] * 2 + ["sglang-early"] * 1
    table = pd.DataFrame({"split": ["fit"] * 12, "engine_slot": slots, "batch": range(1, 13)})
    with pytest.warns(RooflineWarning):
        _, which = fit_rows(table, "vllm")
    assert which.endswith("(10 rows: sglang 4, trtllm 3, vllm-v0 2, ...)"), which


def test_a_cross_validation_fold_says_nothing_of_the_rows_it_falls_back_to():
    """fit_rows warns of a fallback to other engines' rows, but not in a cross-validation fold (the full fit said it)."""
    table = pd.DataFrame({"split": ["fit"] * 10, "engine_slot": ["vllm"] * 3 + ["trtllm"] * 7, "batch": range(1, 11)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rows, which = fit_rows(table, "vllm", fold=True)
    assert len(rows) == 10 and which.startswith("all 10 fit rows (only 3 of engine vllm")


def test_the_second_start_moves_kernel_latency_alone_to_the_upper_quarter():
    """_starts: the start values, and the same with kernel latency moved up to u = 0.75 (kept where already above)."""
    keys = [p.key for p in PARAMETERS]
    u0 = np.linspace(0.1, 0.6, len(PARAMETERS))
    first, second = _starts(u0)
    assert np.array_equal(first, u0) and u0[0] == pytest.approx(0.1)
    expected = u0.copy()
    expected[keys.index("kernel_latency")] = 0.75
    assert np.array_equal(second, expected)
    high = u0.copy()
    high[0] = 0.9
    assert np.array_equal(_starts(high)[1], high)


def test_a_fitted_value_just_above_a_low_bound_of_0_is_shown_not_rounded_to_the_bound():
    """_at_low_bound takes a value within 1e-6 of the range to the bound; 0.004 ms of 0-5 ms is 8e-4 of it: shown."""
    param = {"parameter": "host_per_step", "meaning": "m", "unit": "ms", "low": 0.0, "high": 5.0, "start": 1.5,
             "fitted": 0.004, "bound": "", "fixed": False, "determined": True, "together_with": []}
    rows = pd.DataFrame({"skipped": pd.Series([], dtype=str), "log_residual": pd.Series([], dtype=float)})
    fit = {"base": types.SimpleNamespace(name="vllm", eager_launch_s=0.0), "rows_used": 0, "file": "f.csv",
           "rms_log_error": {"start": 0.1, "fitted": 0.05}, "evaluations": 1, "status": "ok", "parameters": [param],
           "rows": rows}
    line = next(x for x in fit_report(fit).splitlines() if x.startswith("host_per_step"))
    assert line.split()[:5] == ["host_per_step", "ms", "0-5", "1.5", "0.004"], line


def _report_line(**row) -> str:
    """fit_report's line of one parameter row (host_per_sequence, us, 0-100) built from `row`."""
    param = {"parameter": "host_per_sequence", "meaning": "m", "unit": "us", "low": 0.0, "high": 100.0, "start": 10.0,
             "fitted": 10.0, "bound": "", "fixed": False, "determined": False, "together_with": [], **row}
    rows = pd.DataFrame({"skipped": pd.Series([], dtype=str), "log_residual": pd.Series([], dtype=float)})
    fit = {"base": types.SimpleNamespace(name="vllm", eager_launch_s=0.0), "rows_used": 0, "file": "f.csv",
           "rms_log_error": {"start": 0.1, "fitted": 0.05}, "evaluations": 1, "status": "ok", "parameters": [param],
           "rows": rows}
    return next(x for x in fit_report(fit).splitlines() if x.startswith("host_per_sequence"))


def test_an_undetermined_parameter_is_said_moved_past_two_percent_of_its_range_and_its_earlier_value_past_two_percent():
    """fit_report: a parameter no row determines that ends more than 2% of its range from its start (13 of 0-100 from 10:
    3%) was 'moved ... by the other parameters' fit'; within it (11: 1%) 'kept near start'. The profile's earlier-fit
    value is named where the fitted one lies more than 2% of the range from it (40 against 10), not within (11 against 10);
    a fixed one held away from it says so."""
    assert _report_line(fitted=13.0).endswith("not determined by these rows (moved from 10 to 13 by the other parameters' "
                                              "fit, not by rows of its own)")
    assert _report_line(fitted=11.0).endswith("not determined by these rows (kept near start)")
    line = _report_line(loaded=40.0)
    assert line.endswith("(kept near start); the profile had 40 (its earlier fit's, on other rows; copy it into the fitted "
                         "block's start: to keep it)"), line
    assert "the profile had" not in _report_line(loaded=11.0)
    line = _report_line(fixed=True, loaded=40.0)
    assert line.endswith("fixed at its start value (--fix); the profile had 40 (its earlier fit's): --fix keeps the sourced "
                         "start, not that"), line


def test_a_sourced_override_shadows_only_the_rows_its_glob_matches_and_only_free_parameters():
    """_shadowed: sglang's mi* values on 3 MI300X rows of 8 (the H100 rows match no glob), not a --fix'd parameter's."""
    from roofline.fit import _shadowed
    from roofline.serving import load_engine

    sglang = load_engine("sglang")
    hardware = pd.Series(["mi300x"] * 3 + ["h100-sxm"] * 5)
    said = _shadowed(sglang, (), hardware)
    mi = [f"{key} on mi* (3 rows)" for key in ("kernel_latency", "allreduce_latency", "quantised_moe_efficiency")]
    assert said == mi, said
    assert _shadowed(sglang, ("allreduce_latency",), hardware) == [mi[0], mi[2]]


def test_an_earlier_fits_value_equal_to_the_start_is_not_kept_and_an_unset_exponent_starts_at_3():
    """_kept_from_earlier_fit keeps a value 'away from the start value' only; sourced_start gives an overlap exponent the
    profile leaves unset (None) the start 3."""
    import dataclasses

    from roofline.fit import BY_KEY, _kept_from_earlier_fit, sourced_start
    from roofline.serving import load_engine

    vllm = load_engine("vllm")
    start = sourced_start(vllm)
    p = BY_KEY["spec_per_iteration"]
    assert _kept_from_earlier_fit(vllm, start, [p]) == [p]
    at_start = dataclasses.replace(vllm, spec_per_iteration_s=start["spec_per_iteration_s"])
    assert _kept_from_earlier_fit(at_start, start, [p]) == []
    unset = dataclasses.replace(vllm, overlap_exponent=None, fitted=None)
    assert sourced_start(unset)["overlap_exponent"] == 3.0


def test_parameters_are_determined_together_where_the_others_reproduce_their_effect_within_5_percent():
    """_determined_together: column A = (1, 0, 0) and B = (1, 0.02, 0) reproduce each other within 2% (< 5%): together;
    with B = (1, 0.1, 0), 10% apart, not; C, orthogonal, never."""
    from roofline.fit import _determined_together

    a, c = np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])
    close = np.c_[a, [1.0, 0.02, 0.0], c]
    assert _determined_together(close, [0, 1, 2]) == {0: [1], 1: [0]}
    apart = np.c_[a, [1.0, 0.1, 0.0], c]
    assert _determined_together(apart, [0, 1, 2]) == {}


def test_a_lineage_line_names_engine_slots_only():
    """lineage_comment: '' for a name that is no engine slot (a user's server), the line for a slot."""
    from roofline.fit import lineage_comment

    assert lineage_comment("our-server") == "" and lineage_comment("") == ""
    assert lineage_comment("sglang").startswith("# descends from the sglang profile: ")


@pytest.mark.slow
def test_a_fit_refuses_every_parameter_fixed_and_a_per_family_parameter_fixed_before_reading_rows(tmp_path):
    """run_fit's option checks, before the file is read (it does not exist here)."""
    from roofline.errors import RooflineError
    from roofline.fit import run_fit

    missing = tmp_path / "none.csv"
    with pytest.raises(RooflineError, match=r"^--fix: expected at least one parameter left to fit, found every one fixed$"):
        run_fit(missing, "vllm", fixed=tuple(p.key for p in PARAMETERS))
    with pytest.raises(RooflineError, match=r"^--per-family: expected parameters among kernel_latency, quantised_moe_efficiency, "
                                            r"weight_only_efficiency and not fixed, found 'kernel_latency'$"):
        run_fit(missing, "vllm", fixed=("kernel_latency",), per_family=("kernel_latency",))


def test_fit_out_refuses_ideal_in_any_case(tmp_path):
    """check_fit_out: the pure roofline's name, however it is written (engine names are found case-insensitively)."""
    from roofline.errors import RooflineError
    from roofline.fit import check_fit_out

    for name in ("ideal.yaml", "IDEAL.yaml", "Ideal.yml"):
        with pytest.raises(RooflineError, match=r"^--out: expected a name other than ideal"):
            check_fit_out(tmp_path / name)


ROW = {
    "source_id": "synthetic", "source": "test", "engine": "vllm", "engine_version": "", "hardware": "h100-sxm", "gpus": "1",
    "tp": "1", "ep": "1", "dp_attention": "1", "model": "llama-3.1-8b", "weight_dtype": "bf16", "kv_dtype": "bf16",
    "batch": "1", "input_len": "1000", "output_len": "200", "method": "none", "k": "0", "acceptance_length": "",
    "quantity": "tokens_per_s_per_user", "value": "150", "split": "fit", "notes": "",
}


@pytest.mark.slow
def test_rows_left_out_for_several_reasons_are_said_so_and_a_source_with_one_row_left_out_is_not_refused(tmp_path):
    """The refusal of too few predictable rows names the first reason left out and ', and others' where the rows left
    out differ in reason (a 405B on one H100: memory; a draft row without acceptance_length: no default rates). --cv
    refuses a source whose rows are all unpredictable, not one with some left out (here: fewer than 2 sources, said)."""
    from roofline.errors import RooflineError
    from roofline.fit import cross_validate, run_fit
    from roofline.measurements import COLUMNS

    rows = [{**ROW, "batch": str(b)} for b in (1, 4, 16)]
    rows += [{**ROW, "model": "llama-3.1-405b"}, {**ROW, "method": "draft", "k": "3", "notes": "draft=llama-3.2-1b"}]
    path = tmp_path / "m.csv"
    pd.DataFrame(rows, columns=list(COLUMNS)).to_csv(path, index=False)
    with pytest.raises(RooflineError, match=r"found 3 of the 5 it took; left out: rows 4, 5 \(does not fit in memory, and "
                                            r"others\); it took all 5 fit rows, of engine vllm$"):
        run_fit(path, "vllm")
    one = pd.read_csv(path, dtype=str, keep_default_na=False)
    one = pd.concat([one.iloc[:3], one.iloc[:3].assign(batch=["2", "8", "32"]), one.iloc[[3]]])  # 6 predictable, one not
    one.to_csv(tmp_path / "one.csv", index=False)
    with pytest.raises(RooflineError, match=r"^--cv: expected fit rows from at least 2 sources \(source_id\) .* found 1 "):
        cross_validate(tmp_path / "one.csv", "vllm")


def test_the_robust_loss_note_is_for_a_robust_loss_and_the_notes_above_the_table_end_with_a_blank_line():
    """The headline's 'the cauchy loss minimises its own sum' is not said of the linear loss (whose RMS can rise by the
    prior's pull alone); the 'dropped:' line stands apart from the table's header by a blank line."""
    rows = pd.DataFrame({"skipped": pd.Series([], dtype=str), "log_residual": pd.Series([], dtype=float)})
    fit = {"base": types.SimpleNamespace(name="vllm", eager_launch_s=0.0), "rows_used": 0, "file": "f.csv",
           "rms_log_error": {"start": 0.10, "fitted": 0.11}, "evaluations": 1, "status": "ok", "parameters": [],
           "rows": rows, "loss": "linear", "loss_scale": 0.15, "dropped_overrides": [("mi*", "kernel_latency")]}
    lines = fit_report(fit).splitlines()
    assert "minimises its own sum" not in lines[1], lines[1]
    assert "minimises its own sum" in fit_report({**fit, "loss": "cauchy"}).splitlines()[1]
    at = next(i for i, line in enumerate(lines) if line.startswith("dropped: kernel_latency on mi*"))
    assert lines[at + 1] == "" and lines[at + 2].startswith("parameter "), lines[at:at + 3]


def test_rows_run_eagerly_are_said_with_the_engines_launch_or_its_name_where_it_gives_none():
    """_eager_rows: 2 of 3 rows with graphs false; the launch time where the engine gives one, its name where not."""
    from roofline.fit import _eager_rows

    rows = pd.DataFrame({"skipped": ["", "", ""], "graphs": [False, True, False]})
    (line,) = _eager_rows({"rows": rows, "base": types.SimpleNamespace(name="mine", eager_launch_s=15.6e-6)})
    assert line.startswith("2 of 3 rows ran eagerly (graphs false): each pass no faster than its kernels x eager_launch "
                           "(15.6 us, sourced, not fitted)"), line
    (line,) = _eager_rows({"rows": rows, "base": types.SimpleNamespace(name="mine", eager_launch_s=0.0)})
    assert line == ("2 of 3 rows ran eagerly (graphs false), but mine gives no eager_launch: they are predicted as in "
                    "graphs, and the costs below take up their launches"), line


def test_a_profiles_lineage_is_read_from_its_opening_comment_and_names_an_engine_slot_only(tmp_path):
    """copied_from: a lineage line below the opening comment, or one naming no engine slot, is not the profile's lineage:
    its costs_from says it (vllm)."""
    from roofline.fit import copied_from
    from roofline.serving import load_engine

    line = "# descends from the sglang profile: `roofline fit` takes the sglang rows of a measurements file for it\n"
    (tmp_path / "below.yaml").write_text(f"type: engine\nname: below\n{line}source: s\ncosts_from: vllm\n")
    assert copied_from(load_engine(str(tmp_path / "below.yaml"))) == "vllm"
    (tmp_path / "other.yaml").write_text(line.replace("sglang profile", "our-server profile") +
                                         "type: engine\nname: other\nsource: s\ncosts_from: vllm\n")
    assert copied_from(load_engine(str(tmp_path / "other.yaml"))) == "vllm"
