"""The sweep benchmark reports compute-only and end-to-end figures with their ratios (figures printed, never asserted)."""

import pytest

from roofline.bench import points_run, run_bench, synthetic_scenario


def test_the_synthetic_scenario_has_about_the_asked_points():
    assert synthetic_scenario(1_000_000).points == 983_040 == points_run(1_000_000)  # 16 k x 20 alpha x 128 batch x 24 contexts
    assert points_run(1000) == points_run(2000) == synthetic_scenario(2000).points == 40_960


@pytest.mark.slow
def test_bench_reports_every_format_and_its_ratio_to_compute(recwarn):
    r = run_bench(40_960, chunk_points=10_000, repeats=3)
    assert not [w for w in recwarn if "break_even_batch" in str(w.message)]  # a synthetic sweep's caveats (qa122: 8 times)
    assert r["points"] == 40_960 and r["repeats"] == 3
    low, high = r["compute_s_range"]
    assert low <= r["compute_s"] <= high  # the median of the repeats lies within their range
    for fmt in ("parquet", "csv"):
        # seconds to 4 significant digits, so the printed figures check against the ratio (qa122: 0.01 s beside 3.81)
        assert r[f"{fmt}_bytes"] > 0 and r[f"{fmt}_over_compute"] == pytest.approx(r[f"{fmt}_s"] / r["compute_s"], rel=0.002, abs=0.006)
        low, high = r[f"{fmt}_s_range"]
        assert low <= r[f"{fmt}_s"] <= high
        assert r[f"{fmt}_first_s"] > 0  # the untimed first write, reported apart from the medians


@pytest.mark.slow  # fresh interpreters: about a second each
def test_jobs_are_timed_as_fresh_processes_and_a_failing_job_is_one_line():
    from roofline.bench import README_JOBS, run_jobs
    from roofline.errors import RooflineError

    assert set(README_JOBS) == {"report", "sweep"}
    timed = run_jobs(repeats=2, jobs={"list": ("scenarios", "list"), "sweep": ("sweep", "flops-vs-time", "--no-plots", "--out", "{out}", "--force")})
    assert timed["repeats"] == 2 and set(timed) == {"repeats", "list_s", "list_s_range", "sweep_s", "sweep_s_range",
                                                    "load_average_at_start", "load_average_at_end", "cores"}
    assert timed["cores"] >= 1 and (timed["load_average_at_start"] is None or timed["load_average_at_start"] >= 0)
    assert 0 < timed["list_s_range"][0] <= timed["list_s"] <= timed["list_s_range"][1]
    with pytest.raises(RooflineError, match=r"bench job bad \(roofline sweep no-such-scenario\): exit code 2: error: unknown scenario"):
        run_jobs(repeats=1, jobs={"bad": ("sweep", "no-such-scenario")})


@pytest.mark.slow
def test_bench_takes_the_formats_sweep_takes(roofline):
    """bench --format took parquet and csv (repeatable) where sweep takes csv | parquet | both (qa101)."""
    import json

    for asked, timed in ((["both"], {"parquet", "csv"}), (["csv"], {"csv"}), (["parquet", "csv"], {"parquet", "csv"})):
        code, out, err = roofline("bench", "--points", "1000", "--repeats", "1", *[x for f in asked for x in ("--format", f)])
        assert code == 0, err
        line = json.loads(out.strip().splitlines()[-1])
        assert {f for f in ("parquet", "csv") if f"{f}_s" in line} == timed
    code, _, err = roofline("bench", "--points", "1000", "--format", "xlsx")
    assert code == 2 and "--format: expected csv, parquet or both, found 'xlsx'" in err


@pytest.mark.slow
def test_two_sizes_that_run_the_same_points_are_timed_once(roofline):
    """qa288: `--points 1000 --points 2000` both run one grid of 40,960 points, which was timed twice."""
    import json

    code, out, err = roofline("bench", "--points", "1000", "--points", "2000", "--points", "90000", "--repeats", "1", "--format", "csv")
    assert code == 0, err
    assert [json.loads(line)["points"] for line in out.strip().splitlines()] == [40_960, 81_920]
    assert "note: --points 2,000 runs 40,960 points, as --points 1,000 does: timed once" in err
    code, out, err = roofline("bench", "--points", "1000", "--points", "1000", "--repeats", "1", "--format", "csv")
    assert code == 0 and len(out.strip().splitlines()) == 1 and "note: --points 1,000 given twice: timed once" in err
