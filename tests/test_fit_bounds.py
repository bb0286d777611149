"""qa446: fit_report's 'at' / 'near' a bound (qa435's change) at the high bound and at the optimiser's residue above a
low bound of 0 (mutation survivors of fit.fit_report)."""

from __future__ import annotations

import types

import pandas as pd

from roofline.fit import fit_report


def _fit(**row) -> dict:
    """A fit of one parameter and no rows: what fit_report reads, no more."""
    param = {"parameter": "host_per_step_s", "meaning": "m", "unit": "ms", "low": 0.0, "high": 5.0, "start": 1.0,
             "fitted": 1.0, "bound": "", "fixed": False, "determined": True, "together_with": [], **row}
    rows = pd.DataFrame({"skipped": pd.Series([], dtype=str), "log_residual": pd.Series([], dtype=float)})
    return {"base": types.SimpleNamespace(name="vllm", eager_launch_s=0.0), "rows_used": 0, "file": "f.csv",
            "rms_log_error": {"start": 0.1, "fitted": 0.05}, "evaluations": 1, "status": "ok", "parameters": [param],
            "rows": rows}


def _line(fit: dict) -> str:
    return next(x for x in fit_report(fit).splitlines() if x.startswith("host_per_step_s"))


def test_a_value_at_its_high_bound_is_said_at_it_and_one_shown_below_it_near_it():
    """5 of 0-5 ms is 'at high bound'; 4.96 (within 1% of the range, shown otherwise) is 'near high bound'."""
    assert _line(_fit(bound="high", fitted=5.0)).endswith("at high bound"), _line(_fit(bound="high", fitted=5.0))
    line = _line(_fit(bound="high", fitted=4.96))
    assert line.endswith("near high bound") and " 4.96  " in line, line


def test_the_optimisers_residue_above_a_low_bound_of_0_is_at_it():
    """1.777e-13 ms above a low bound of 0 is shown as 0 (_at_low_bound) and said 'at low bound', not 'near' it."""
    line = _line(_fit(bound="low", fitted=1.777e-13))
    assert line.endswith("at low bound") and "near" not in line, line
