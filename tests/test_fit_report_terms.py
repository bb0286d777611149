"""fit.py, found by mutation testing (qa478): fit_report's parameter and residual tables at the edges the earlier
rounds left open (no fit run: each test builds the dict fit_report reads)."""

from __future__ import annotations

import math
import types

import pandas as pd

from roofline.fit import _worse_than_loaded, fit_report


def _param(**row) -> dict:
    return {"parameter": "host_per_sequence", "meaning": "m", "unit": "us", "low": 0.0, "high": 100.0, "start": 10.0,
            "fitted": 10.0, "bound": "", "fixed": False, "determined": True, "together_with": [], **row}


def _fit(params=None, rows=None, **extra) -> dict:
    rows = rows if rows is not None else pd.DataFrame({"skipped": pd.Series([], dtype=str),
                                                       "log_residual": pd.Series([], dtype=float)})
    return {"base": types.SimpleNamespace(name="vllm", eager_launch_s=0.0), "rows_used": "6 fit rows of engine vllm",
            "file": "f.csv", "rms_log_error": {"start": 0.1, "fitted": 0.05}, "evaluations": 1, "status": "ok",
            "parameters": params if params is not None else [_param()], "rows": rows, **extra}


def _line(fit: dict, start: str = "host_per_sequence") -> str:
    return next(x for x in fit_report(fit).splitlines() if x.startswith(start))


def test_a_value_a_hundred_thousandth_of_its_range_above_a_low_bound_of_0_is_shown_not_taken_to_the_bound():
    """_at_low_bound: only a value within 1e-6 of the range of the bound is the bound (the optimiser's residue); 0.001 us
    of 0-100 us is 1e-5 of the range: shown as 0.001, not 0 (and 5e-5 us, 5e-7 of it, is shown 0)."""
    assert _line(_fit([_param(fitted=0.001)])).split()[:5] == ["host_per_sequence", "us", "0-100", "10", "0.001"]
    assert _line(_fit([_param(fitted=5e-5)])).split()[:5] == ["host_per_sequence", "us", "0-100", "10", "0"]


def test_the_profiles_earlier_value_is_named_from_two_percent_of_the_range_away():
    """fit_report: 'the profile had X' where the undetermined parameter's fitted value lies more than 2% of its range
    from the profile's earlier-fit value: 14 against 10 (4% of 0-100) is said, 11.5 (1.5%) is not."""
    line = _line(_fit([_param(determined=False, loaded=14.0)]))
    assert "the profile had 14 (its earlier fit's, on other rows" in line, line
    assert "the profile had" not in _line(_fit([_param(determined=False, loaded=11.5)]))


def _rows() -> pd.DataFrame:
    """Two fitted rows and one left out: row 1 measured 100 tokens/s, predicted 80 at the start and 110 fitted
    (ln(110/100) = +0.0953); row 2 a step of 0.02 s predicted 0.015 fitted (ln 0.75 = -0.288), 8 sequences in each of 3
    replicas (24 in all)."""
    return pd.DataFrame({
        "row": [1, 2, 3], "source_id": ["src-a", "src-b", "src-c"], "hardware": ["h100-sxm", "h100-sxm", "h100-sxm"],
        "model": ["llama-3.1-8b", "llama-3.1-8b", "llama-3.1-405b"], "batch": [16, 24, 1], "method": ["none"] * 3,
        "quantity": ["tokens_per_s_per_user", "step_time_s", "tokens_per_s"], "value": [100.0, 0.02, 5.0],
        "start_predicted": [80.0, 0.01, float("nan")], "fitted_predicted": [110.0, 0.015, float("nan")],
        "log_residual": [math.log(110 / 100), math.log(0.015 / 0.02), float("nan")],
        "skipped": ["", "", "does not fit in memory: 810 GB of weights on 80 GB"], "replicas": [1, 3, 1],
        "running_batch": [16.0, 24.0, float("nan")], "memory_capped": [False, False, False]})


def test_each_residual_row_gives_measured_start_fitted_and_the_log_residual_of_fitted_over_measured():
    """The residual table: measured, start, fitted to 4 significant digits, ln(p/m) signed to 3 decimals, the sequences
    run at (a replica's x replicas), and a row left out says why."""
    report = fit_report(_fit(rows=_rows()))
    one = next(x for x in report.splitlines() if x.startswith("   1 src-a"))
    assert one.split()[-4:] == ["100", "80", "110", "+0.095"], one
    assert " 16      16 none " in one, one
    two = next(x for x in report.splitlines() if x.startswith("   2 src-b"))
    assert two.split()[-4:] == ["0.02", "0.01", "0.015", "-0.288"], two
    assert " 24     8x3 none " in two, two
    three = next(x for x in report.splitlines() if x.startswith("   3 src-c"))
    assert three.endswith("skipped: does not fit in memory: 810 GB of weights on 80 GB"), three


def test_the_headline_gives_the_rms_at_the_start_as_loaded_and_fitted_each_its_own():
    """The second line: RMS log error at the start values, with the profile as it is, and fitted, to 3 decimals (three
    different numbers here, so a swap of any two shows), the evaluations and the optimiser's status."""
    fit = _fit(rms_log_error={"start": 0.1234, "loaded": 0.0876, "fitted": 0.0456}, evaluations=37, status="converged",
               loss="linear")
    line = fit_report(fit).splitlines()[1]
    assert line == ("RMS log error 0.123 at the start values (0.088 with vllm as it is) -> 0.046 fitted (37 evaluations; "
                    "converged)"), line
    first = fit_report({**fit, "left_out": " (3 rows of other engines left out: sglang 3)"}).splitlines()[0]
    assert first == "engine vllm: fitted on 6 fit rows of engine vllm (3 rows of other engines left out: sglang 3) of f.csv", first


def test_a_fixed_parameter_held_a_few_percent_from_the_profiles_earlier_fit_value_says_so():
    """A --fix'd parameter whose profile value (an earlier fit's, 10.5 us) differs from the sourced start it is held at
    (10 us) by 5%: the note names the profile's value, as it does for 40 against 10 (any difference beyond rounding)."""
    line = _line(_fit([_param(fixed=True, loaded=10.5, start=10.0, fitted=10.0)]))
    assert line.endswith("fixed at its start value (--fix); the profile had 10.5 (its earlier fit's): --fix keeps the "
                         "sourced start, not that"), line


def test_worse_than_loaded_names_a_fixed_parameter_held_a_few_percent_from_the_profiles_value_and_dropped_overrides():
    """_worse_than_loaded: fitted RMS 0.060 against the profile's 0.040 (1.5x); the fixed host_per_sequence held at its
    start of 10 us where the profile had 10.5 us (5% away) is named, and so are the per-family values dropped."""
    fit = _fit([_param(fixed=True, loaded=10.5, start=10.0, fitted=10.0)],
               rms_log_error={"start": 0.1, "loaded": 0.040, "fitted": 0.060})
    (line,) = _worse_than_loaded(fit)
    assert line == ("worse than vllm as it is on these rows (0.060 against 0.040): the parameters held at a start other "
                    "than the profile's value (host_per_sequence) keep the fit from the profile's values; vllm as it is "
                    "describes them better"), line
    (line,) = _worse_than_loaded({**fit, "parameters": [_param()], "dropped_overrides": [("mi*", "kernel_latency")]})
    assert line == ("worse than vllm as it is on these rows (0.060 against 0.040): the per-family values it dropped (listed "
                    "below; --per-family NAME fits them again, as the profile's header says) keep the fit from the "
                    "profile's values; vllm as it is describes them better"), line
