"""frontier._marked_unrun: which rows the table's own engine_runs mark adds to refused_layouts (qa489), pinned at the
function: only rows no profile rule already refuses, only where a profile they name is off the search path, a blank
mark read as runs, and a config's entry speculative-only only where every plain point of it runs (qa490 mutants)."""
import warnings

import pandas as pd

from roofline.frontier import refused_layouts

BASE = dict(model="llama-3.1-8b", batch=1, context=1024, tp=1, alpha=0.7, fits_in_memory=True)
MARK = "marked by its sweep as run by no setup of the engine"


def _refused(rows: list[dict]) -> tuple[list[dict], list[str]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return refused_layouts(pd.DataFrame(rows))


def test_a_row_a_profile_rule_refuses_gets_no_second_entry():
    # sglang has no Medusa drafter: refused by its profile though the device is unknown; the mark adds nothing
    refused, unchecked = _refused([{**BASE, "hardware": "zz", "engine": "sglang", "method": "medusa", "k": 3,
                                    "engine_runs": False, "baseline_engine_runs": True}])
    assert unchecked == ["device zz"]
    assert len(refused) == 1 and MARK not in refused[0]["note"], refused


def test_rows_whose_profiles_are_all_found_are_decided_by_them_not_by_the_mark():
    rows = [{**BASE, "hardware": h, "engine": "vllm", "method": "none", "k": 0, "engine_runs": False,
             "baseline_engine_runs": False} for h in ("h100-sxm", "zz")]
    refused, unchecked = _refused(rows)
    assert unchecked == ["device zz"]
    assert [e["hardware"] for e in refused] == ["zz"], refused  # vllm runs on an H100: the table's mark is stale there


def test_a_blank_mark_reads_as_runs():
    rows = [{**BASE, "hardware": "zz", "engine": "vllm", "method": "none", "k": 0, "engine_runs": None,
             "baseline_engine_runs": None}]
    refused, _ = _refused(rows)
    assert refused == [], refused  # a row of a table written before the column, or merged with one: not left out


def test_a_config_whose_plain_points_are_marked_unrun_anywhere_is_held_whole():
    rows = [{**BASE, "hardware": "zz", "engine": "vllm", "method": "eagle", "k": 3, "batch": b, "engine_runs": False,
             "baseline_engine_runs": plain} for b, plain in ((1, True), (8, False))]
    refused, _ = _refused(rows)
    assert len(refused) == 1 and not refused[0].get("speculative_only") and "method" not in refused[0], refused


def test_a_speculative_only_entry_names_its_method():
    rows = [{**BASE, "hardware": "zz", "engine": "vllm", "method": "eagle", "k": 3, "engine_runs": False,
             "baseline_engine_runs": True}]
    refused, _ = _refused(rows)
    assert len(refused) == 1 and refused[0]["speculative_only"] and refused[0]["method"] == "eagle", refused
    assert refused[0]["note"].startswith("llama-3.1-8b on zz (tp 1) under vllm, eagle speculation: " + MARK), refused
