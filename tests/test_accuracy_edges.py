"""`roofline accuracy` at its edges (qa450's mutation round): the 15% boundary, the targets at their exact
thresholds, the regime groups (dense / MoE, with / without speculation, batch 1 of MoE models), the terminal table's
columns, the memory line's asked sequences, rows by engine profile, the plausibility check and the figure's speeds."""

import numpy as np
import pandas as pd
import pytest

from roofline.accuracy import accuracy_table, error_stats, report_text, summarize
from roofline.errors import RooflineError
from roofline.measurements import COLUMNS

ROW = {
    "source_id": "a", "source": "test", "engine": "vllm", "engine_version": "", "hardware": "h100-sxm", "gpus": "1",
    "tp": "1", "ep": "1", "dp_attention": "1", "model": "llama-3.1-8b", "weight_dtype": "bf16", "kv_dtype": "bf16",
    "batch": "1", "input_len": "500", "output_len": "200", "method": "none", "k": "0", "acceptance_length": "",
    "quantity": "tokens_per_s_per_user", "value": "120", "split": "heldout", "notes": "",
}


def write(tmp_path, rows, name="m.csv"):
    path = tmp_path / name
    pd.DataFrame([{**ROW, **r} for r in rows], columns=list(COLUMNS)).to_csv(path, index=False)
    return path


def test_an_error_of_exactly_15pct_is_within_15pct():
    # |errors| 0.15, 0.15, 0.3: two of three within (<= 15%, inclusive)
    stats = error_stats([0.15, -0.15, 0.3])
    assert stats["within_15pct"] == pytest.approx(2 / 3, abs=1e-6)


def _frame(errors, moe, batch, speculative):
    n = len(errors)
    return pd.DataFrame({
        "row": np.arange(1, n + 1), "source_id": ["b"] * (n - 1) + ["a"], "error": errors, "error_ideal": errors,
        "batch": batch, "batch_regime": ["batch 1" if b == 1 else "batch 2-64" if b <= 64 else "batch > 64" for b in batch],
        "moe": moe, "speculative": speculative, "precision": ["16-bit weights"] * n,
        "family": ["NVIDIA Hopper (or other)"] * n, "quantity": ["tokens_per_s_per_user"] * n, "skipped": [""] * n,
    })


def test_the_targets_are_met_at_exactly_their_thresholds_and_the_regimes_split_the_rows():
    # |errors| sorted 0, .02, .05, .08, .1, .1, .12, .14, .25, .5: median (0.1 + 0.1) / 2 = 0.10, 8 of 10 within 15%
    errors = [0.0, 0.02, -0.05, 0.08, 0.1, -0.1, 0.12, 0.14, -0.25, 0.5]
    moe = [True, False, False, False, False, False, False, False, True, True]
    batch = [1, 1, 8, 8, 8, 128, 128, 8, 1, 2]  # MoE at batch 1: rows 1 and 9 (|e| 0 and 0.25); row 10 is batch 2
    speculative = [False] * 8 + [True, True]
    summary = summarize(_frame(errors, moe, batch, speculative), "vllm", "f.csv", "heldout")
    h = summary["headline"]
    assert h["median_abs_error"] == pytest.approx(0.10) and h["within_15pct"] == pytest.approx(0.8)
    assert h["targets_met"]["within_15pct >= 0.80"] is True
    assert h["targets_met"]["median_abs_error <= 0.10"] is True
    # batch-1 MoE rows: 0 and 0.25, both within 25% (inclusive); the batch-2 MoE row (0.5) is not one of them
    assert h["batch1_moe_rows"] == 2 and h["batch1_moe_within_25pct"] == pytest.approx(1.0)
    assert h["targets_met"]["batch-1 MoE speed within 25%"] is True
    regimes = summary["per_regime"]
    assert regimes["dense"]["engine"]["rows"] == 7 and regimes["MoE"]["engine"]["rows"] == 3
    assert regimes["with speculation"]["engine"]["rows"] == 2 and regimes["without speculation"]["engine"]["rows"] == 8
    # with speculation: |e| 0.25 and 0.5 -> median 0.375, none within 15%
    assert regimes["with speculation"]["engine"]["median_abs_error"] == pytest.approx(0.375)
    assert regimes["with speculation"]["engine"]["within_15pct"] == 0.0
    assert list(summary["per_source"]) == ["a", "b"]  # sources sorted by name, as the table lists them


def test_a_speculative_row_of_one_draft_token_counts_as_speculative(tmp_path):
    path = write(tmp_path, [{}, {"method": "eagle", "k": "1", "acceptance_length": "1.6"}])
    df = accuracy_table(path)
    assert df["speculative"].tolist() == [False, True]
    summary = summarize(df, "vllm", str(path), "heldout")
    assert summary["per_regime"]["with speculation"]["engine"]["rows"] == 1


def test_the_terminal_table_prints_median_p90_and_share_in_their_columns():
    engine = {"rows": 2, "median_abs_error": 0.1, "p90_abs_error": 0.3, "within_15pct": 0.5}
    ideal = {"rows": 2, "median_abs_error": 0.6, "p90_abs_error": 0.9, "within_15pct": 0.0}
    pair = {"engine": engine, "ideal": ideal}
    summary = {"headline": {"file": "f.csv", "rows": 2, "split": "heldout", "engine": "vllm", "batch1_moe_rows": 2,
                            "batch1_moe_within_25pct": 0.5, "targets_met": {}},
               "overall": pair, "per_regime": {}, "per_source": {"a": pair}, "skipped": []}
    line = next(line for line in report_text(summary).splitlines() if line.startswith("all rows"))
    assert line.split() == ["all", "rows", "2", "10.0%", "30.0%", "50.0%", "|", "60.0%", "90.0%", "0.0%"]
    assert "batch-1 MoE speed within 25%: 1 of 2 rows (50.0%)" in report_text(summary)


def test_the_rows_by_engine_profile_count_the_rows_predicted(tmp_path):
    # row 2: a draft model without an acceptance length, not predicted: not one of vllm's rows
    path = write(tmp_path, [{}, {"method": "draft", "k": "3", "notes": "draft=llama-3.2-1b"}])
    summary = summarize(accuracy_table(path), "vllm", str(path), "heldout")
    assert summary["headline"]["not_predicted"] == 1 and summary["engines_used"] == {"vllm": 1}
    assert "rows by engine profile: vllm 1\n" in report_text(summary)


def test_a_memory_capped_row_with_its_mean_in_flight_is_said_against_that_mean(tmp_path):
    # asked: its mean in flight, 3,000 (not its client's cap, 4,096); a 32,500-token sequence on one H100 holds far fewer
    path = write(tmp_path, [{"batch": "4096", "concurrency": "3000", "input_len": "32000"}])
    df = accuracy_table(path)
    summary = summarize(df, "vllm", str(path), "heldout")
    (capped,) = summary["memory_capped"]
    assert capped["asked_sequences"] == 3000.0 and capped["running_sequences"] == df["running_batch"].iloc[0] < 3000
    assert f"row 1 at {capped['running_sequences']:,.0f} of its 3,000" in report_text(summary)


def test_accuracy_refuses_a_unit_slip_as_fit_does(tmp_path):
    # 9.0 s a step where 0.009 was meant: thousands of times slower than the roofline bound of an 8B model on an H100
    path = write(tmp_path, [{}, {"quantity": "step_time_s", "value": "9.0"}])
    with pytest.raises(RooflineError, match=r"row 2: value: expected a measurement at most 100x slower .* "
                                            r"\(milliseconds written as seconds\?\)"):
        accuracy_table(path)


def test_the_written_table_spells_graphs_as_the_measurements_do(tmp_path):
    from roofline.accuracy import write_accuracy

    path = tmp_path / "m.csv"
    rows = [{**ROW, "graphs": "false"}, {**ROW, "batch": "2", "graphs": ""}, {**ROW, "batch": "4", "graphs": "true"}]
    pd.DataFrame(rows, columns=[*COLUMNS, "graphs"]).to_csv(path, index=False)
    write_accuracy(tmp_path / "acc", path=path, engine="ideal")
    written = pd.read_csv(tmp_path / "acc" / "accuracy.csv", dtype=str, keep_default_na=False)
    assert written["graphs"].tolist() == ["false", "", "true"]


def test_the_figure_draws_a_time_per_token_row_as_its_speed(tmp_path, monkeypatch):
    """A step_time_s row of 0.01 s is drawn at 1 / 0.01 = 100 tokens/s per user (_as_speed), as its prediction."""
    from matplotlib.figure import Figure

    from roofline.accuracy import plot_accuracy

    figures = []
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: figures.append(fig))
    df = accuracy_table(write(tmp_path, [{"quantity": "step_time_s", "value": "0.01"}]))
    plot_accuracy(df, tmp_path / "p.png", "t")
    (ax,) = figures[0].axes
    points = [c.get_offsets() for c in ax.collections if len(c.get_offsets()) == 1]
    drawn = {(round(float(p[0][0]), 6), round(float(p[0][1]), 6)) for p in points}
    assert (100.0, round(1.0 / float(df["predicted"].iloc[0]), 6)) in drawn
    assert (100.0, round(1.0 / float(df["predicted_ideal"].iloc[0]), 6)) in drawn


def test_a_row_not_predicted_is_named_in_the_summary_and_the_table(tmp_path):
    path = write(tmp_path, [{}, {"method": "draft", "k": "3", "notes": "draft=llama-3.2-1b"}])
    summary = summarize(accuracy_table(path), "vllm", str(path), "heldout")
    why = "no acceptance_length: a draft model has no default acceptance rates"
    assert summary["skipped"] == [{"row": 2, "source_id": "a", "why": why}]
    assert f"not predicted: row 2 (a): {why}" in report_text(summary).splitlines()


def test_an_unknown_split_is_named_as_the_option(tmp_path, roofline):
    path = write(tmp_path, [{}])
    with pytest.raises(RooflineError, match=r"^--split: expected heldout, fit or all, found 'train'$"):
        accuracy_table(path, split="train")
    code, _, err = roofline("accuracy", path, "--split", "train", "--out", tmp_path / "acc")
    assert code == 2 and err.strip() == "error: --split: expected heldout, fit or all, found 'train'"


def test_in_sample_rows_of_several_engines_are_each_counted_once(recwarn):
    """vllm-v0 takes vllm's costs and its fitted rows (costs_from): those rows are vllm's, predicted by vllm, so they
    are counted once, under vllm: the rows said in sample are at most the rows scored, and as many as flagged."""
    import re

    from roofline.measurements import default_measurements_path

    df = accuracy_table(default_measurements_path(), split="fit")
    (said,) = [str(w.message) for w in recwarn if "in-sample" in str(w.message)]
    found = re.search(r": (\d+) of the (\d+) rows scored are rows their engine was fitted on \(([^:]*): their ", said)
    counts = dict(part.rsplit(" ", 1) for part in found.group(3).split(", "))
    assert int(found.group(2)) == len(df) and int(found.group(1)) == int(df["in_sample"].sum()) <= len(df)
    assert sum(map(int, counts.values())) == int(df["in_sample"].sum())
    for name, n in counts.items():  # each engine's count: rows it predicted
        assert int(n) == int((df["in_sample"] & (df["engine_used"] == name)).sum()), name
    assert "vllm-v0" not in counts
    assert ": their errors are in-sample, not a test of them (" in said  # several engines: 'their', 'them'


def test_a_profile_fitted_before_row_fingerprints_names_its_file_relative_to_the_checkout(tmp_path, monkeypatch, recwarn):
    """fitted.file 'measurements/published.csv' (as fit writes a shipped file: relative) is the checkout's, wherever
    accuracy runs from."""
    import re

    from roofline.measurements import default_measurements_path, load_measurements
    from roofline.profiles import builtin_dir

    table = load_measurements(default_measurements_path())
    held = table[(table["split"] == "heldout") & (table["engine_slot"] == "vllm")]["row"].astype(int).tolist()[:2]
    text = (builtin_dir("engine") / "vllm.yaml").read_text()
    text = re.sub(r"\nname: vllm\n", "\nname: mine\n", text)
    text = re.sub(r"\n  file: .*\n", "\n  file: measurements/published.csv\n", text)
    text = re.sub(r"\n  row_fingerprints: .*\n", "\n", text)
    text = re.sub(r"\n  row_numbers: .*\n", f"\n  row_numbers: {held[0]} {held[1]}\n", text)
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "mine.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)  # not the checkout
    df = accuracy_table(default_measurements_path(), "mine", (tmp_path / "p",))
    assert sorted(df.loc[df["in_sample"], "row"].astype(int)) == sorted(held)


def _figure(df, tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    from roofline.accuracy import plot_accuracy

    figures = []
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: figures.append(fig))
    plot_accuracy(df, tmp_path / "p.png", "t")
    return figures[0]


def test_the_figure_shades_the_15pct_band_and_names_only_what_it_draws(tmp_path, monkeypatch):
    df = accuracy_table(write(tmp_path, [{}, {"value": "110"}]))  # one panel, batch 1, dense, no speculation
    fig = _figure(df, tmp_path, monkeypatch)
    (ax,) = fig.axes
    band = next(c for c in ax.collections if type(c).__name__ in ("PolyCollection", "FillBetweenPolyCollection"))
    x, y = band.get_paths()[0].vertices.T
    inside = x > 0
    assert (y[inside] / x[inside]).min() == pytest.approx(0.85) and (y[inside] / x[inside]).max() == pytest.approx(1.15)
    (legend,) = fig.legends
    assert [t.get_text() for t in legend.get_texts()] == ["batch 1", "ideal roofline", "within ±15%"]
    assert legend._ncols == 2  # one panel: two columns (qa325: four ran off its edges)
