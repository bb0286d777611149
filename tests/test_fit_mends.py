"""Three bugs of roofline/fit.py qa451 found mutation-testing it: a per-family fit that put back an earlier fit's value
dropped the profile's own overrides of that family from the fitted engine (the printed fitted column and RMS, and
--cv's predictions, read the wrong engine); a family value's start column unclipped; a fallback for a repeated row
blamed the model."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from roofline.fit import fit_report, fit_rows, run_fit, write_fitted_profile
from roofline.hardware import load_hardware
from roofline.measurements import COLUMNS, load_measurements, predict_measurements
from roofline.serving import load_engine

ROW = {
    "source_id": "synthetic", "source": "test", "engine": "sglang", "engine_version": "", "hardware": "mi300x", "gpus": "1",
    "tp": "1", "ep": "1", "dp_attention": "1", "model": "llama-3.1-8b", "weight_dtype": "bf16", "kv_dtype": "bf16",
    "batch": "1", "input_len": "1000", "output_len": "200", "method": "none", "k": "0", "acceptance_length": "",
    "quantity": "tokens_per_s_per_user", "value": "1", "split": "fit", "notes": "",
}


@pytest.mark.slow
def test_a_per_family_fit_that_keeps_an_earlier_fits_value_keeps_the_sourced_overrides_of_that_family(tmp_path):
    """sglang's mi* entry holds sourced values (allreduce_latency 7.5 us, memory_fraction 0.867) beside the values its
    --per-family fit wrote (kernel_latency, quantised_moe_efficiency). `fit --engine sglang --per-family kernel_latency` on
    MI300X rows (8B at tp 1, 70B at tp 4, exactly as sglang predicts them) keeps quantised_moe_efficiency (no row moves it)
    and so puts its mi* value back (_with_overrides), which rebuilt the overrides by glob and let the added
    ('mi*', {kernel_latency}) entry replace sglang's whole mi* entry: fit['engine'] on MI300X lost the 7.5 us all-reduce
    and 0.867 memory share. The fit searched with them (engine_at) and the written file keeps them, but the report's
    fitted column and RMS (0.010; the written profile's is 0.0015) and --cv's predictions used the engine without them:
    the 70B rows, 80 layers x 2 all-reduces x 1.5 us = 240 us of a 16 ms step, read 1.4% high."""
    sglang = load_engine("sglang")
    mi300x = load_hardware("mi300x")
    rows = [{**ROW, "model": m, "tp": str(tp), "gpus": str(tp), "batch": str(b)}
            for m, tp in (("llama-3.1-8b", 1), ("llama-3.1-70b", 4)) for b in (1, 4, 16, 64)]
    path = tmp_path / "mi.csv"
    pd.DataFrame(rows, columns=list(COLUMNS)).to_csv(path, index=False)
    values = predict_measurements(load_measurements(path), sglang)["predicted"]
    pd.DataFrame([{**r, "value": f"{v:.10g}"} for r, v in zip(rows, values)], columns=list(COLUMNS)).to_csv(path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = run_fit(path, "sglang", loss="linear", per_family=("kernel_latency",), max_evaluations=40)
        written = load_engine(str(write_fitted_profile(fit, tmp_path / "sg-mine.yaml")))
    assert "quantised_moe_efficiency" in fit["kept"]  # the case: a kept value's mi* override put back
    on_mi = fit["engine"].for_hardware(mi300x)
    assert on_mi.allreduce_latency_s == pytest.approx(sglang.for_hardware(mi300x).allreduce_latency_s)  # 7.5 us, not 6
    assert on_mi.memory_fraction == pytest.approx(sglang.for_hardware(mi300x).memory_fraction)  # 0.867, not 0.835
    table = load_measurements(path)
    by_file = predict_measurements(table, written)["predicted"].to_numpy()
    assert np.allclose(fit["rows"]["fitted_predicted"], by_file, rtol=1e-3)  # the report's fitted column is the file's
    measured = table["value"].to_numpy(float)
    assert fit["rms_log_error"]["fitted"] == pytest.approx(float(np.sqrt(np.mean(np.log(by_file / measured) ** 2))), abs=2e-4)


@pytest.mark.slow
def test_a_family_values_start_column_shows_the_bound_the_search_starts_from(tmp_path):
    """qa187 made the start column of a parameter whose profile value lies beyond its bounds show the bound the search
    starts from (a copy's kernel_latency 50 us: start 20). A --per-family value starts from the same clipped u
    (u0[n_base + i] = u0[j]) but its row still showed 50."""
    import sys
    from pathlib import Path

    from roofline.editing import new_profile

    sys.path.insert(0, str(Path(__file__).parent))
    from test_fit import family_file

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        new_profile("engine", "slowk", "vllm", ["kernel_latency=50 us"], out_dir=tmp_path / "p")
        fixed = ("host_per_step", "host_per_sequence", "allreduce_latency", "overlap_exponent", "quantised_moe_efficiency")
        fit = run_fit(family_file(tmp_path), "slowk", profiles=(tmp_path / "p",), loss="linear", fixed=fixed,
                      per_family=("kernel_latency",), max_evaluations=20)
    starts = {line.split("  ")[0].strip(): line.split()[line.split().index("us") + 2]
              for line in fit_report(fit).splitlines() if line.startswith("kernel_latency")}
    assert starts == {"kernel_latency": "20", "kernel_latency [AMD Instinct]": "20", "kernel_latency [NVIDIA Blackwell]": "20"}, starts


def test_a_fallback_for_repeated_rows_does_not_blame_the_model():
    """5 vllm rows, one of them a repeat of another (4 distinct), every one predictable: fit_rows falls back to every
    engine's rows and said 'only 4 of engine vllm the model can predict', where the model can predict all five."""
    table = pd.DataFrame({"split": ["fit"] * 12, "engine_slot": ["vllm"] * 5 + ["trtllm"] * 7,
                          "batch": [1, 2, 3, 4, 4, 5, 6, 7, 8, 9, 10, 11]})
    with pytest.warns(Warning):
        rows, which = fit_rows(table, "vllm")
    assert len(rows) == 12 and "only 4" in which
    assert "the model can predict" not in which, which
