"""cheapest reads the table's own engine_runs where its profiles are not on the search path (qa489: trtllm rows on an
AMD device, marked engine_runs false by the sweep, were priced and picked from a table read away from its profiles)."""
import pandas as pd
import pytest

pytestmark = pytest.mark.slow  # a sweep and cheapest through the CLI: about 1 s


@pytest.fixture(autouse=True)
def _isolated_user_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user-profiles"))
    monkeypatch.delenv("ROOFLINE_PATH", raising=False)


def test_rows_the_table_marks_unrun_are_left_out_and_said(roofline, tmp_path):
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: s\nhardware: [h100-sxm, mi300x]\nmodel: llama-3.1-8b\nengine: trtllm\n"
                        "axes:\n  batch: [1, 8]\n  context: 2048\n")
    code, _, err = roofline("sweep", str(scenario), "--out", str(tmp_path / "out"), "--no-plots")
    assert code == 0, err
    table = pd.read_csv(tmp_path / "out" / "results.csv")
    assert (~table.loc[table["hardware"] == "mi300x", "engine_runs"]).all() and table.loc[table["hardware"] == "h100-sxm", "engine_runs"].all()
    # the AMD device renamed to one no profile has: only the table's column can say its rows do not run
    table["hardware"] = table["hardware"].replace({"mi300x": "zz-amd"})
    table.to_csv(tmp_path / "away.csv", index=False)
    code, out, err = roofline("cheapest", str(tmp_path / "away.csv"), "--min-tokens-per-user", "20")
    assert code == 0, err
    picks = [line for line in out.splitlines() if line.strip().startswith("plain")]
    assert picks and "h100-sxm" in picks[0] and "zz-amd" not in out.split("note:")[0], out
    assert ("2 rows left out, at a layout, method or draft model their engine refuses to load or runs no setup of: "
            "llama-3.1-8b on zz-amd (tp 1) under trtllm: marked by its sweep as run by no setup of the engine (engine_runs "
            "false; the profiles that say why are not on the search path here)") in out + err, out + err


def test_a_plain_point_of_a_speculative_row_reads_its_baseline_mark():
    from roofline.frontier import _reachable, refused_layouts

    rows = pd.DataFrame({"hardware": ["h"] * 2, "model": ["m"] * 2, "engine": ["e"] * 2, "method": ["eagle"] * 2,
                         "k": [3, 3], "batch": [1, 8], "context": [1024] * 2, "tp": [1] * 2, "alpha": [0.7] * 2,
                         "fits_in_memory": [True] * 2, "tokens_per_s_per_user": [100.0, 80.0],
                         "cost_usd_per_million_tokens": [1.0, 0.5], "baseline_tokens_per_s_per_user": [60.0, 50.0],
                         "baseline_cost_usd_per_million_tokens": [1.5, 0.8], "baseline_max_batch": [100] * 2,
                         "engine_runs": [False, False], "baseline_engine_runs": [True, True]})
    refused = refused_layouts(rows)[0]  # "m" and "e" are no profiles: the table's marks alone say it
    assert [e.get("speculative_only") for e in refused] == [True] and refused[0]["method"] == "eagle"
    reach = _reachable(rows, refused)
    assert set(reach["decoding"]) == {"plain"} and len(reach) == 2  # the method refused, plain decoding runs
    both = rows.assign(baseline_engine_runs=[False, False])  # plain decoding marked too: no method in its entry, so
    refused = refused_layouts(both)[0]  # the plain points drawn from the speculative rows (method none) are held too
    assert "method" not in refused[0] and not refused[0].get("speculative_only")
    assert _reachable(both, refused).empty
