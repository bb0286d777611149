"""roofline accuracy: error statistics checked by hand, the report files and its JSON line, ideal beside the
engine, and the two speculation checks of issue 9 (known misses kept as strict xfails)."""

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import cli
from roofline.accuracy import batch_regime, error_stats, write_accuracy
from roofline.api import predict
from roofline.measurements import COLUMNS

ROW = {
    "source_id": "a", "source": "test", "engine": "vllm", "engine_version": "", "hardware": "h100-sxm", "gpus": "1",
    "tp": "1", "ep": "1", "dp_attention": "1", "model": "llama-3.1-8b", "weight_dtype": "bf16", "kv_dtype": "bf16",
    "batch": "1", "input_len": "500", "output_len": "200", "method": "none", "k": "0", "acceptance_length": "",
    "quantity": "tokens_per_s_per_user", "value": "120", "split": "heldout", "notes": "",
}


def test_error_statistics_by_hand():
    # |errors| 0.1, 0.2, 0.05, 0.5: median (0.1 + 0.2) / 2 = 0.15; two of four within 15%
    stats = error_stats([0.1, -0.2, 0.05, 0.5, np.nan])
    assert stats["rows"] == 4 and stats["median_abs_error"] == pytest.approx(0.15)
    assert stats["within_15pct"] == pytest.approx(0.5)
    assert stats["p90_abs_error"] == pytest.approx(0.2 + 0.7 * 0.3)  # numpy's linear interpolation: 0.2 + 0.7 x (0.5 - 0.2)
    assert error_stats([])["rows"] == 0


def test_precision_groups_follow_what_the_gemm_computes_in_on_the_rows_gpu():
    from roofline.accuracy import PRECISIONS, precision

    labels = precision(["h100-sxm", "h100-sxm", "a100-sxm-80gb", "h100-sxm", "h100-sxm", "b200", "h100-sxm"],
                       ["bf16", "fp8", "fp8", "int4", "w8a16", "fp4", "fp4"])
    sixteen, narrow, weight_only = PRECISIONS
    # fp8 on an A100 and fp4 on an H100 have no tensor cores of their own: dequantised, like int4 and w8a16
    assert list(labels) == [sixteen, narrow, weight_only, weight_only, weight_only, narrow, weight_only]


def test_batch_regimes_are_1_2_to_64_and_above():
    assert list(batch_regime([1, 2, 64, 65])) == ["batch 1", "batch 2-64", "batch 2-64", "batch > 64"]


@pytest.mark.slow
def test_the_report_writes_its_files_and_prints_one_json_line_last(tmp_path, monkeypatch):
    import roofline.accuracy

    titles = []
    drawn = roofline.accuracy.plot_accuracy
    monkeypatch.setattr(roofline.accuracy, "plot_accuracy", lambda df, path, title: (titles.append(title), drawn(df, path, title)))
    path = tmp_path / "m.csv"
    rows = [ROW, {**ROW, "model": "mixtral-8x7b", "tp": "2", "gpus": "2", "value": "90", "source_id": "b"},
            {**ROW, "batch": "128", "quantity": "tokens_per_s", "value": "8000"}, {**ROW, "split": "fit"}]
    pd.DataFrame(rows, columns=list(COLUMNS)).to_csv(path, index=False)
    result = CliRunner().invoke(cli.app, ["accuracy", "--file", str(path), "--out", str(tmp_path / "acc")])
    assert result.exit_code == 0, result.output
    headline = json.loads(result.output.strip().splitlines()[-1])
    assert headline["rows"] == 3 and headline["predicted"] == 3 and headline["batch1_moe_rows"] == 1
    assert set(headline["ideal"]) == {"median_abs_error", "p90_abs_error", "within_15pct"}
    table = pd.read_csv(tmp_path / "acc" / "accuracy.csv")
    assert np.allclose(table["error"], table["predicted"] / table["value"] - 1, rtol=1e-4, atol=1e-5)  # the CSV rounds predicted
    assert (table["predicted_ideal"] > table["predicted"]).all()  # speeds: the bound is faster than the engine
    assert (tmp_path / "acc" / "predicted_vs_measured.png").read_bytes()[:4] == b"\x89PNG"
    assert titles[0].startswith("held-out rows of m.csv: within 15%")  # the split as said, not its key 'heldout'
    again = CliRunner().invoke(cli.app, ["accuracy", "--file", str(path), "--out", str(tmp_path / "acc")])
    assert again.exit_code != 0 and "pass --force" in str(again.exception)


@pytest.mark.slow
def test_a_file_of_fit_rows_only_says_how_to_predict_them(tmp_path):
    from roofline.accuracy import accuracy_table
    from roofline.errors import RooflineError

    path = tmp_path / "my-server.csv"  # what `measurements convert` writes by default: fit rows
    pd.DataFrame([{**ROW, "split": "fit"}, {**ROW, "split": "fit", "batch": "8"}], columns=list(COLUMNS)).to_csv(path, index=False)
    with pytest.raises(RooflineError, match=r"split = heldout, found none \(2 fit: pass --split all to predict every row"):
        accuracy_table(path)
    assert len(accuracy_table(path, split="all")) == 2
    result = CliRunner().invoke(cli.app, ["accuracy", "--file", str(path), "--split", "all", "--out", str(tmp_path / "acc")])
    headline = json.loads(result.output.strip().splitlines()[-1])
    assert headline["batch1_moe_rows"] == 0 and headline["targets_met"]["batch-1 MoE speed within 25%"] is None  # not tested
    assert "target " not in result.output  # issue 9's targets are the shipped dataset's, not a user's server's
    bench = tmp_path / "run.json"  # a benchmark result given where measurements go
    bench.write_text('{"backend": "vllm", "max_concurrency": 8}')
    result = CliRunner().invoke(cli.app, ["accuracy", "--file", str(bench), "--out", str(tmp_path / "acc2")])
    assert "convert it first: roofline measurements convert" in str(result.exception)


def test_rows_an_engine_was_fitted_on_are_said_to_be_in_sample(tmp_path, recwarn):
    """qa290: a user's own fit scored 1.6% on its own rows, every target 'met', without a word that those rows were
    the ones it was fitted on (`fit --cv` gave 15.8%)."""
    import re
    from pathlib import Path

    from roofline.accuracy import accuracy_table

    path = tmp_path / "mine.csv"
    pd.DataFrame([{**ROW, "split": "fit"}, {**ROW, "split": "fit", "batch": "8"}, {**ROW, "batch": "4"}],
                 columns=list(COLUMNS)).to_csv(path, index=False)
    text = (Path(cli.__file__).parent / "engine_profiles" / "vllm.yaml").read_text()
    text = re.sub(r"\nname: vllm\n", "\nname: mine\n", text)
    text = re.sub(r"\n  file: .*\n", f"\n  file: {path}\n", text)
    (tmp_path / "p").mkdir()
    text = re.sub(r"\n  row_fingerprints: .*\n", "\n", text)  # fitted before them: its row numbers (below: by content)
    (tmp_path / "p" / "mine.yaml").write_text(re.sub(r"\n  row_numbers: .*\n", "\n  row_numbers: 1 2\n", text))
    df = accuracy_table(path, "mine", (tmp_path / "p",), split="all")
    said = [str(w.message) for w in recwarn if "in-sample" in str(w.message)]
    assert len(said) == 1 and said[0].startswith(f"{path}: 2 of the 3 rows scored are rows their engine was fitted on (mine 2:")
    # the profile given by its path, off the search path (qa435: loaded by its name, not found, its rows unsaid)
    assert accuracy_table(path, str(tmp_path / "p" / "mine.yaml"), (), split="all")["in_sample"].tolist() == [True, True, False]
    # qa334: said on stderr only; the rows, the JSON line and the table say it too
    from roofline.accuracy import report_text, summarize

    assert df["in_sample"].tolist() == [True, True, False]
    summary = summarize(df, "mine", str(path), "all")
    assert summary["headline"]["in_sample_rows"] == 2
    assert "in sample: 2 of the 3 rows are rows their engine was fitted on: their errors are not a test of it" in report_text(summary)
    import roofline.accuracy as accuracy

    titles = []
    real_plot = accuracy.plot_accuracy
    accuracy.plot_accuracy = lambda df, path, title: (titles.append(title), real_plot(df, path, title))[1]
    try:
        accuracy.write_accuracy(tmp_path / "out", path=path, engine="mine", profiles=(tmp_path / "p",), split="all")
    finally:
        accuracy.plot_accuracy = real_plot
    written = pd.read_csv(tmp_path / "out" / "accuracy.csv")
    assert written["in_sample"].tolist() == [True, True, False] and "memory_capped" in written
    from matplotlib.figure import Figure  # qa359: the figure drew the fit's own rows as the tests

    saved = []
    real_save = Figure.savefig
    Figure.savefig = lambda fig, *a, **k: saved.append(fig)
    try:
        accuracy.plot_accuracy(df, tmp_path / "p.png", "t")
    finally:
        Figure.savefig = real_save
    texts = [t.get_text() for legend in saved[0].legends for t in legend.get_texts()]
    assert "faded: in sample (fitted on it)" in texts
    alphas = sorted({c.get_alpha() for ax in saved[0].axes for c in ax.collections if c.get_alpha() is not None})
    assert 0.35 in alphas and 1.0 in alphas, alphas
    assert "engine mine (2 in sample: not a test):" in titles[0], titles
    # qa310: it suggested `fit --cv`, which needs two sources (one server's rows are one) and named the engine unfound
    assert "`fit --cv` needs two sources" in said[0] and "--cv` predicts" not in said[0], said[0]
    recwarn.clear()
    accuracy_table(path, "mine", (tmp_path / "p",))  # the held-out row alone: no word
    assert not [w for w in recwarn if "in-sample" in str(w.message)]
    pd.DataFrame([{**ROW, "split": "fit"}, {**ROW, "split": "fit", "batch": "8", "source_id": "b"}, {**ROW, "batch": "4"}],
                 columns=list(COLUMNS)).to_csv(path, index=False)  # two sources: --cv, the profile by its path
    accuracy_table(path, "mine", (tmp_path / "p",), split="all")
    said = [str(w.message) for w in recwarn if "in-sample" in str(w.message)]
    assert len(said) == 1 and f"(`roofline fit {path} --engine {tmp_path / 'p' / 'mine.yaml'} --cv` predicts" in said[0], said
    recwarn.clear()  # a shipped profile by its name (qa312: by its path)
    published = Path(cli.__file__).parent / "measurements" / "published.csv"
    accuracy_table(published, "sglang", split="all")
    said = [str(w.message) for w in recwarn if "in-sample" in str(w.message)]
    assert len(said) == 1 and "--engine sglang --cv` predicts" in said[0], said


def test_a_fitted_row_is_known_by_what_it_measured_in_a_file_rewritten(tmp_path):
    """qa359: a file converted again with --force (rows reordered, one added) kept row numbers the fit had named, and
    rows never fitted were said in sample, the fitted ones not."""
    import re
    from pathlib import Path

    from roofline.accuracy import accuracy_table
    from roofline.measurements import load_measurements, row_fingerprints

    path = tmp_path / "mine.csv"
    rows = [{**ROW, "split": "fit"}, {**ROW, "split": "fit", "batch": "8"}, {**ROW, "batch": "4"}]
    pd.DataFrame(rows, columns=list(COLUMNS)).to_csv(path, index=False)
    prints = row_fingerprints(load_measurements(path))
    assert prints.str.fullmatch(r"[0-9a-f]{10}").all() and prints.nunique() == 3
    text = (Path(cli.__file__).parent / "engine_profiles" / "vllm.yaml").read_text()
    text = re.sub(r"\nname: vllm\n", "\nname: mine\n", text)
    text = re.sub(r"\n  row_numbers: .*\n", "\n  row_numbers: 1 2\n", text)
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "mine.yaml").write_text(re.sub(r"\n  row_fingerprints: .*\n", f"\n  row_fingerprints: {prints[0]} {prints[1]}\n", text))
    pd.DataFrame([{**ROW, "batch": "16"}, rows[2], {**rows[1], "split": "heldout"}, rows[0]],  # reordered, split anew
                 columns=list(COLUMNS)).to_csv(path, index=False)
    df = accuracy_table(path, "mine", (tmp_path / "p",), split="all")
    assert df.sort_values("row")["in_sample"].tolist() == [False, False, True, True]
    assert row_fingerprints(pd.DataFrame({"batch": [2048], "value": [1.5]})).iloc[0] == \
        row_fingerprints(pd.DataFrame({"batch": [2048.0], "value": [1.5]})).iloc[0]  # a number whichever dtype read it


def test_one_engine_for_every_row_is_named_in_the_headline(tmp_path):
    path = tmp_path / "m.csv"
    pd.DataFrame([ROW], columns=list(COLUMNS)).to_csv(path, index=False)
    summary = write_accuracy(tmp_path / "acc", path=path, engine="ideal")
    assert summary["headline"]["engine"] == "ideal"
    assert summary["headline"]["median_abs_error"] == summary["headline"]["ideal"]["median_abs_error"]


@pytest.mark.slow
def test_the_published_heldout_rows_report_every_row_and_the_targets(tmp_path, monkeypatch):
    import roofline.accuracy

    titles = []
    drawn = roofline.accuracy.plot_accuracy
    monkeypatch.setattr(roofline.accuracy, "plot_accuracy", lambda df, path, title: titles.append(title) or drawn(df, path, title))
    summary = write_accuracy(tmp_path / "acc")
    h = summary["headline"]
    assert h["rows"] == 84 and h["predicted"] + h["not_predicted"] == 84
    assert set(h["targets_met"]) == {"within_15pct >= 0.80", "median_abs_error <= 0.10", "batch-1 MoE speed within 25%"}
    assert h["median_abs_error"] < h["ideal"]["median_abs_error"]  # the engine terms move every figure toward the measurements
    # docs/ACCURACY.md quotes the command's last line: the same figures (qa272: stale since session 37), and the README
    # its headline shares (the checkout's path aside)
    import json
    import re
    from pathlib import Path

    root = Path(__file__).parents[1]
    quoted = re.search(r"```json\n(\{.*?\})\n```", (root / "docs" / "ACCURACY.md").read_text(), re.S).group(1)
    assert {**json.loads(quoted), "file": ""} == {**json.loads(json.dumps(h)), "file": ""}
    readme = " ".join((root / "README.md").read_text().split())
    assert (f"{100 * h['within_15pct']:.1f}% of the {h['predicted']} held-out rows it predicts" in readme
            and f"the median error is {100 * h['median_abs_error']:.1f}%" in readme)
    # the plot's title gives the share as the table does, one decimal (qa272: 47.5% titled '48%')
    assert f"within 15%: {100 * h['within_15pct']:.1f}% (ideal {100 * h['ideal']['within_15pct']:.1f}%)" in titles[0], titles
    # qa395: each GPU family a group of its own, as ACCURACY.md's table gives them (the AMD rows' bias hid in the pool)
    families = {name: pair["engine"]["rows"] for name, pair in summary["per_regime"].items()
                if name in ("AMD Instinct", "NVIDIA Ampere", "NVIDIA Blackwell", "NVIDIA Hopper (or other)")}
    assert sum(families.values()) == h["predicted"] and families["AMD Instinct"] == 22
    table = pd.read_csv(tmp_path / "acc" / "accuracy.csv")
    assert set(table.loc[table["hardware"].str.startswith("mi"), "family"]) == {"AMD Instinct"}
    doc = (root / "docs" / "ACCURACY.md").read_text()
    amd = summary["per_regime"]["AMD Instinct"]["engine"]
    assert (f"| AMD Instinct | {amd['rows']} | {100 * amd['median_abs_error']:.1f}% | {100 * amd['p90_abs_error']:.1f}% | "
            f"{100 * amd['within_15pct']:.1f}% |") in doc


def eagle_speedups(engine=None):
    return [predict("h100-sxm", "llama-3.1-8b", b, 1024, engine=engine, method="eagle", k=3)["spec"]["speedup"]
            for b in (2, 8, 16, 32, 48)]


@pytest.mark.xfail(strict=True, reason="issue 9 check (a), a known miss: with the default engine the EAGLE speedup on "
                                      "Llama-3.1-8B / H100 rises 4% from batch 2 to 48 (1.584 1.604 1.624 1.645 1.643; "
                                      "its 15% fall in sessions 27-32 came from a fitted stand-in for one source's slow "
                                      "link), where the check asks a 20% fall (docs/ACCURACY.md)")
@pytest.mark.slow
def test_eagle_speedup_on_an_8b_model_falls_with_batch_from_2_to_48():
    s = eagle_speedups()
    assert all(a > b for a, b in zip(s, s[1:])) and s[-1] < 0.8 * s[0]


@pytest.mark.xfail(strict=True, reason="issue 9 check (b), a known miss: a 1B draft on a 70B target on 4 H100s still "
                                      "predicts speedup 1.52 at batch 32 (alpha 0.6, k 4; break-even batch 182), where "
                                      "vLLM users report a slowdown (docs/ACCURACY.md)")
def test_a_small_draft_model_on_a_70b_target_slows_down_by_batch_32():
    spec = predict("h100-sxm", "llama-3.1-70b", 32, 1024, tp=4, method="draft", draft="llama-3.2-1b", k=4, alpha=0.6)["spec"]
    assert spec["speedup"] < 1.0


def test_the_terminal_table_writes_long_source_ids_whole():
    from roofline.accuracy import report_text

    stats = {"rows": 1, "median_abs_error": 0.1, "p90_abs_error": 0.1, "within_15pct": 1.0}
    pair = {"engine": stats, "ideal": stats}
    long_id = "specforge-issue339-qwen3-30b-a3b-h100-and-more"
    summary = {"headline": {"file": "f.csv", "rows": 1, "split": "heldout", "engine": "vllm", "batch1_moe_rows": 0, "targets_met": {}},
               "overall": pair,
               "per_regime": {"batch 1": pair}, "per_source": {long_id: pair}, "skipped": []}
    text = report_text(summary)
    assert f"{long_id} " in text
    assert text.startswith("f.csv: 1 heldout row, engine: vllm")  # qa435: '1 rows'


def test_accuracy_says_a_user_engine_file_stands_in_for_a_built_in(tmp_path):
    """`roofline --profiles out/fitted accuracy` used a fitted vllm.yaml in silence, its header still naming vllm."""
    import shutil
    import warnings

    from roofline.errors import RooflineWarning
    from roofline.measurements import resolve_engines
    from roofline.profiles import builtin_dir

    shutil.copy(builtin_dir("engine") / "vllm.yaml", tmp_path / "vllm.yaml")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        resolve_engines(("vllm", "vllm-v0"), None, (tmp_path,))
    said = [str(w.message) for w in caught if issubclass(w.category, RooflineWarning)]
    assert any(s.startswith("engine vllm is ") and "shadows the built-in" in s for s in said)
    assert any(s.startswith("engine vllm-v0 takes its costs from") for s in said)
    from roofline.fit import fittable_engine

    with warnings.catch_warnings(record=True) as caught:  # fit said nothing of it
        warnings.simplefilter("always")
        fittable_engine("vllm", (tmp_path,))
    assert any(str(w.message).startswith("engine vllm is ") for w in caught)


def test_the_report_counts_the_rows_each_engine_profile_predicted(tmp_path):
    """A vLLM built from source reports 0.1.devN, read as below 0.8: its rows went to vllm-v0 and nothing said so
    (qa104): the table's header counts the rows by the profile that predicted them."""
    rows = [{**ROW, "engine_version": v, "split": "fit"} for v in ("0.10.1", "0.1.dev8000+g1234abc")]
    path = tmp_path / "m.csv"
    pd.DataFrame(rows, columns=list(COLUMNS)).to_csv(path, index=False)
    code = CliRunner().invoke(cli.app, ["accuracy", "--file", str(path), "--split", "all", "--out", str(tmp_path / "o")])
    assert code.exit_code == 0, code.output
    assert "rows by engine profile: vllm 1, vllm-v0 1" in code.output


def test_a_file_of_which_no_row_can_be_predicted_is_one_line(tmp_path, roofline):
    """Draft-model rows without an acceptance length only: accuracy raised 'zero-size array to reduction operation
    minimum' from its figure (qa106)."""
    rows = [{**ROW, "method": "draft", "k": "3", "notes": "draft=llama-3.2-1b", "split": "fit", "batch": b} for b in ("1", "2")]
    path = tmp_path / "d.csv"
    pd.DataFrame(rows, columns=list(COLUMNS)).to_csv(path, index=False)
    code, _, err = roofline("accuracy", "--file", path, "--split", "all", "--out", tmp_path / "o")
    assert code == 2 and err.strip().splitlines() == [
        f"error: {path}: no row could be predicted (2 rows; the first: no acceptance_length: a draft model has no default "
        "acceptance rates)"]
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("engine", ["vllm", "sglang"])  # prefill inside the decode pass, and a step of its own
def test_predict_gives_the_time_per_output_token_a_benchmark_row_is_priced_at(tmp_path, engine):
    """qa203: a fit to one's own `vllm bench serve` rows matched them within 5% (the arriving requests' prefills counted),
    and predict at their batch and lengths gave the bare step, 30% faster than the benchmark read."""
    from roofline.measurements import load_measurements, predict_measurements

    row = {"source_id": "s", "source": "test", "engine": engine, "engine_version": "", "hardware": "h100-sxm", "gpus": "1",
           "tp": "1", "ep": "1", "dp_attention": "1", "model": "llama-3.1-8b", "weight_dtype": "bf16", "kv_dtype": "bf16",
           "batch": "32", "input_len": "1000", "output_len": "200", "method": "none", "k": "0", "acceptance_length": "",
           "quantity": "step_time_s", "value": "0.01", "split": "fit", "notes": ""}
    rows = [row, {**row, "method": "eagle", "k": "3", "acceptance_length": "2.5"}]
    path = tmp_path / "m.csv"
    pd.DataFrame(rows, columns=list(COLUMNS)).to_csv(path, index=False)
    priced = predict_measurements(load_measurements(path), engine)["predicted"].to_numpy()
    kw = dict(tp=1, engine=engine, prompt=1000, output_len=200)
    plain = predict("h100-sxm", "llama-3.1-8b", 32, 1100, **kw)  # the rows' mean context: 1000 + 200 / 2
    spec = predict("h100-sxm", "llama-3.1-8b", 32, 1100, method="eagle", k=3, acceptance_length=2.5, **kw)["spec"]
    assert plain["serving_time_per_output_token_s"] == pytest.approx(priced[0], rel=1e-9)
    assert spec["serving_time_per_output_token_s"] == pytest.approx(priced[1], rel=1e-9)
    assert plain["serving_time_per_output_token_s"] > 1.05 * plain["step_time_s"]  # the stalls are no rounding
    assert not [w for w in plain["warnings"] if "decodes at" in w]  # priced at the rows' mean context
    far = predict("h100-sxm", "llama-3.1-8b", 32, 1024, tp=1, engine=engine, prompt=8000, output_len=200)  # qa204
    assert [w for w in far["warnings"] if "a request of 8,000 prompt and 200 output tokens decodes at 8,100 on average" in w]
    from roofline.tables import predict_table

    text = predict_table(predict("h100-sxm", "llama-3.1-8b", 32, 1100, method="eagle", k=3, acceptance_length=2.5, **kw))
    ratio = plain["serving_time_per_output_token_s"] / spec["serving_time_per_output_token_s"]
    assert f"is {ratio:.3f}x this)" in text and ratio > 1  # qa204: read as the speculative line being 1.5x plain's
    crowded = predict_table(predict("h100-sxm", "llama-3.1-8b", 2000, 1100, **kw))  # qa204: 2,000 where 398 fit
    assert "over 200 tokens; not reachable: fits in memory NO)" in crowded
    with pytest.raises(Exception, match="prompt: expected a prompt length beside an output length .*found nothing"):
        predict("h100-sxm", "llama-3.1-8b", 32, 1100, output_len=200)


def test_a_mean_in_flight_below_one_completes_that_share_of_requests(tmp_path):
    """qa206: a concurrency-1 client idle half its run (0.49 requests in flight) was priced at 1 in flight: 94% fast.
    One sequence decodes at a time, and Little's law completes 0.49 of them at once."""
    from roofline.measurements import load_measurements, predict_measurements

    row = {"source_id": "s", "source": "test", "engine": "vllm", "engine_version": "", "hardware": "h100-sxm", "gpus": "1",
           "tp": "1", "ep": "1", "dp_attention": "1", "model": "llama-3.1-8b", "weight_dtype": "bf16", "kv_dtype": "bf16",
           "batch": "1", "concurrency": "1", "input_len": "1024", "output_len": "512", "method": "none", "k": "0",
           "acceptance_length": "", "quantity": "tokens_per_s", "value": "140", "split": "fit", "notes": ""}
    path = tmp_path / "m.csv"
    pd.DataFrame([row, {**row, "concurrency": "0.49"}]).to_csv(path, index=False)
    busy, idle = predict_measurements(load_measurements(path), "vllm")["predicted"].to_numpy()
    assert idle == pytest.approx(0.49 * busy, rel=1e-9)


@pytest.mark.slow
def test_the_accuracy_figures_title_stays_inside_the_figure(tmp_path, monkeypatch):
    """qa310: a user's own file and engine named in the title of a one-panel figure ran off both edges ('it rows of
    my-server.csv ... log-scale axe'); the title wraps to the figure's width as every other figure's does."""
    from matplotlib.figure import Figure


    figures = []
    saved = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: (figures.append(fig), saved(fig, *a, **k))[1])
    path = tmp_path / "a-rather-long-name-of-my-own-benchmark-server.csv"
    pd.DataFrame([ROW, {**ROW, "batch": "8", "value": "110"}], columns=list(COLUMNS)).to_csv(path, index=False)
    result = CliRunner().invoke(cli.app, ["accuracy", "--file", str(path), "--split", "all", "--out", str(tmp_path / "acc")])
    assert result.exit_code == 0, result.output
    (fig,) = figures
    renderer = fig.canvas.get_renderer()
    box, title = fig.bbox, fig._suptitle
    extent = title.get_window_extent(renderer)
    assert "a-rather-long-name-of-my-own-benchmark-server.csv" in title.get_text().replace("\n", "")  # (a long name broken)
    assert box.x0 <= extent.x0 and extent.x1 <= box.x1, (extent, box)


@pytest.mark.slow
def test_accuracy_takes_its_file_as_fit_does_and_refuses_two(tmp_path, roofline):
    """qa325: `roofline accuracy mine.csv` (fit's form) was refused as an unexpected argument."""
    import shutil

    from roofline.measurements import default_measurements_path

    mine = tmp_path / "mine.csv"
    shutil.copy(default_measurements_path(), mine)
    code, out, err = roofline("accuracy", mine, "--out", tmp_path / "acc")
    assert code == 0, err
    assert json.loads(out.strip().splitlines()[-1])["file"] == str(mine)
    code, _, err = roofline("accuracy", mine, "--file", tmp_path / "other.csv", "--out", tmp_path / "acc2")
    assert code == 2 and err.strip() == f"error: FILE: expected one measurements file, found {mine} and --file {tmp_path / 'other.csv'}"
    assert not (tmp_path / "acc2").exists()


@pytest.mark.slow
def test_rows_run_at_fewer_sequences_than_they_asked_are_said_as_fit_says_them(tmp_path):
    """qa334: accuracy ran rows at 3 sequences of their 62 (their KV cache not fitting beside the weights) without a
    word, where fit says it; two replicas of 4 asked 8 and ran every sequence (qa274)."""
    from roofline.accuracy import accuracy_table, report_text, summarize

    path = tmp_path / "m.csv"
    pd.DataFrame([{**ROW, "batch": "4096", "input_len": "32000"}, {**ROW, "gpus": "2", "batch": "8"}, ROW,
                  {**ROW, "gpus": "4", "batch": "4096", "input_len": "32000"}], columns=list(COLUMNS)).to_csv(path, index=False)
    df = accuracy_table(path)
    assert df["memory_capped"].tolist() == [True, False, False, True]
    assert df["running_batch"].iloc[0] < 4096 and df["running_batch"].iloc[1] == 4  # a replica's share, all running
    assert df["running_batch"].iloc[3] == df["running_batch"].iloc[0]  # each of 4 replicas runs what one device holds
    summary = summarize(df, "vllm", str(path), "heldout")
    assert summary["headline"]["memory_capped_rows"] == 2
    text = report_text(summary)
    one = df["running_batch"].iloc[0]
    assert (f"memory: 2 rows predicted at the batch whose KV cache fits beside the weights, the rest waiting in the engine's "
            f"queue (row 1 at {one:,.0f} of its 4,096; row 4 at {4 * one:,.0f} of its 4,096)") in text, text  # every replica's
    assert "in sample:" not in text


def test_fit_and_accuracy_name_the_engine_option_of_an_unknown_engine(roofline):
    """qa426: `fit` and `accuracy --engine my-vlm` said 'unknown engine' and no option, where predict names --engine."""
    for args in (("accuracy", "--engine", "my-vlm"), ("fit", "measurements/published.csv", "--engine", "my-vlm")):
        code, _, err = roofline(*args)
        assert code == 2 and err.startswith("error: command line: --engine: unknown engine 'my-vlm'; closest: vllm"), err


def test_ideal_is_read_on_the_rows_the_engine_predicts():
    """qa468: 'all rows 22 ... | ideal: 32.6%', ideal's figures over 32 rows (ten Medusa rows sglang refuses among
    them) beside the engine's 22, unsaid: side by side, both read the same rows."""
    from roofline.accuracy import summarize

    errors = [0.05, -0.10, 0.20, np.nan, np.nan]  # the engine predicts three rows of five
    ideal = [0.50, 0.60, 0.70, 9.0, 9.0]
    df = pd.DataFrame({"error": errors, "error_ideal": ideal, "batch_regime": "batch 1", "moe": False,
                       "speculative": [False, False, False, True, True], "precision": "16-bit weights", "batch": 1,
                       "quantity": "tokens_per_s", "source_id": "mine", "skipped": ["", "", "", "refused", "refused"],
                       "predicted": [1.0, 1.0, 1.0, np.nan, np.nan], "row": [1, 2, 3, 4, 5]})
    summary = summarize(df, "sglang", "mine.csv", "all")
    assert summary["overall"]["ideal"] == error_stats(pd.Series(ideal[:3]))  # not the two rows the engine refused
    assert summary["overall"]["ideal"]["rows"] == summary["overall"]["engine"]["rows"] == 3
    assert summary["headline"]["ideal"]["median_abs_error"] == pytest.approx(0.6)
    assert summary["per_regime"]["with speculation"]["ideal"]["rows"] == 0
