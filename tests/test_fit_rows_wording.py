"""Session 69's changes at their edges (qa456, mutation-testing this session's fit changes): the fallback sentence for
repeated rows in full, and a family value's start column clipped up to the low bound as well as down to the high one."""

import warnings

import pandas as pd
import pytest

from roofline.fit import fit_rows

TABLE = pd.DataFrame({"split": ["fit"] * 12, "engine_slot": ["vllm"] * 5 + ["trtllm"] * 7,
                      "batch": [1, 2, 3, 4, 4, 5, 6, 7, 8, 9, 10, 11]})  # vllm: 5 rows, batch 4 twice (4 distinct)
TAIL = ", each predicted with vllm: a profile fitted partly to other engines' measurements (7 rows: trtllm 7)"


def _which(predictable=None) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit_rows(TABLE, "vllm", predictable=predictable)[1]


def test_four_distinct_of_five_are_said_distinct_with_the_one_repeat():
    assert _which() == "all 12 fit rows (only 4 distinct of engine vllm (1 repeating another), fewer than 5)" + TAIL


def test_a_row_the_model_cannot_predict_beside_a_repeat_is_said_as_such():
    # batch 3 unpredictable: 1, 2, 4 distinct and predictable = 3, of the 4 distinct
    predictable = pd.Series([True, True, False] + [True] * 9, index=TABLE.index)
    assert _which(predictable) == ("all 12 fit rows (only 3 of engine vllm the model can predict (1 repeating another), "
                                   "fewer than 5)" + TAIL)


def test_none_predictable_says_the_repeat_too():
    predictable = pd.Series([False] * 5 + [True] * 7, index=TABLE.index)
    assert _which(predictable) == ("all 12 fit rows (none of engine vllm the model can predict (1 repeating another))"
                                   + TAIL)


@pytest.mark.slow
def test_a_family_values_start_below_its_low_bound_shows_the_low_bound(tmp_path):
    """kernel_latency's bounds are 0.5-20 us; a copy's 0.1 us starts the search at 0.5, its family rows too."""
    import sys
    from pathlib import Path

    from roofline.editing import new_profile
    from roofline.fit import fit_report, run_fit

    sys.path.insert(0, str(Path(__file__).parent))
    from test_fit import family_file

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        new_profile("engine", "fastk", "vllm", ["kernel_latency=0.1 us"], out_dir=tmp_path / "p")
        fixed = ("host_per_step", "host_per_sequence", "allreduce_latency", "overlap_exponent", "quantised_moe_efficiency")
        fit = run_fit(family_file(tmp_path), "fastk", profiles=(tmp_path / "p",), loss="linear", fixed=fixed,
                      per_family=("kernel_latency",), max_evaluations=20)
    starts = {line.split("  ")[0].strip(): line.split()[line.split().index("us") + 2]
              for line in fit_report(fit).splitlines() if line.startswith("kernel_latency")}
    assert starts == {"kernel_latency": "0.5", "kernel_latency [AMD Instinct]": "0.5",
                      "kernel_latency [NVIDIA Blackwell]": "0.5"}, starts
