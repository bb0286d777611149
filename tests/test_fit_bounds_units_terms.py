"""fit.py, found by mutation testing (qa478): each fitted parameter's physical bounds and display unit, as docs/ACCURACY.md's
parameter table gives them (bounds column) and as the shipped profiles record their start units (fitted.start_units),
and the parameter table fit_report prints from them."""

from __future__ import annotations

import types

import pandas as pd
import pytest

from roofline.fit import PARAMETERS, fit_report
from roofline.serving import load_engine

# docs/ACCURACY.md, the table of fitted parameters: bounds, in the unit the profiles write (engine_profiles/vllm.yaml's
# fitted.start_units; the spec_ costs in us though the table writes 0-2 ms and 0-5 ms)
DOCUMENTED = {
    "kernel_latency": (0.5, 20, "us"), "host_per_step": (0, 5, "ms"), "host_per_sequence": (0, 100, "us"),
    "allreduce_latency": (1, 50, "us"), "all_to_all_latency": (5, 500, "us"), "spec_per_draft_step": (0, 2000, "us"),
    "spec_per_iteration": (0, 5000, "us"), "spec_per_iteration_per_sequence": (0, 100, "us"),
    "quantised_moe_efficiency": (0.5, 1, ""), "weight_only_efficiency": (0.05, 1, ""), "overlap_exponent": (1, 20, ""),
}
SECONDS = {"us": 1e-6, "ms": 1e-3, "": 1.0}


def test_each_parameters_bounds_and_unit_are_the_documented_ones():
    assert [p.key for p in PARAMETERS] == list(DOCUMENTED)
    units = load_engine("vllm").fitted["start_units"]
    for p in PARAMETERS:
        low, high, unit = DOCUMENTED[p.key]
        assert (p.low, p.high) == (pytest.approx(low * SECONDS[unit], rel=1e-12, abs=0), pytest.approx(high * SECONDS[unit], rel=1e-12)), p
        assert p.unit == unit and units[p.key] == (unit or "number"), (p.key, p.unit, units[p.key])
        # the unit scale: logarithmic between positive bounds, linear from 0 otherwise (module docstring)
        middle = p.from_u(0.5)
        assert middle == pytest.approx((p.low * p.high) ** 0.5 if low > 0 else p.high / 2, rel=1e-12), p.key


def test_the_parameter_table_prints_each_parameters_bounds_in_its_unit():
    """fit_report's bounds column: low-high in the parameter's unit, as run_fit's parameter rows give them."""
    params = [{"parameter": p.key, "meaning": p.meaning, "unit": p.unit or "-", "low": p.to_unit(p.low),
               "high": p.to_unit(p.high), "start": p.to_unit(p.low), "fitted": p.to_unit(p.low), "bound": "", "fixed": True,
               "determined": True, "together_with": []} for p in PARAMETERS]
    rows = pd.DataFrame({"skipped": pd.Series([], dtype=str), "log_residual": pd.Series([], dtype=float)})
    fit = {"base": types.SimpleNamespace(name="vllm", eager_launch_s=0.0), "rows_used": "5 fit rows", "file": "f.csv",
           "rms_log_error": {"start": 0.1, "fitted": 0.05}, "evaluations": 1, "status": "ok", "parameters": params, "rows": rows}
    lines = fit_report(fit).splitlines()
    for key, (low, high, unit) in DOCUMENTED.items():
        line = next(x for x in lines if x.startswith(key + " "))
        assert line.split()[1:3] == [unit or "-", f"{low:g}-{high:g}"], line
