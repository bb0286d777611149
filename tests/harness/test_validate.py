"""Validation's arithmetic without torch: tau inverted to alpha, per-pair speedups, the summary and its spreads, outputs."""

import json

import pandas as pd
import pytest

from roofline.errors import RooflineError
from roofline.harness.validate import (
    FULL,
    PLOT_FILES,
    QUICK,
    QUICK_FP32,
    alpha_for_tau,
    grid_for,
    predict_rows,
    run_validate,
    speedup_ratios,
    summarize,
    write_outputs,
)
from roofline.model import load_model


def test_validation_inverts_tau_to_the_alpha_that_produced_it():
    from roofline.speculation import tau_scalar_alpha

    for alpha in (0.3, 0.6, 0.9):
        assert alpha_for_tau(float(tau_scalar_alpha(alpha, 4)), 4) == pytest.approx(alpha, abs=1e-6)
    assert alpha_for_tau(5.0, 4) == pytest.approx(1.0, abs=1e-4)


def test_a_pair_speedup_is_the_ratio_of_tokens_per_second_and_drift_within_a_pair_cancels():
    # batch 1, 8 plain tokens in 0.8 s (10 tok/s); the speculative run emits 20 tokens in 1.0 s (20 tok/s): 2x.
    # In the second pair the machine runs at half speed: both runs take twice as long, the ratio stays 2.
    assert speedup_ratios([0.8, 1.6], [1.0, 2.0], [20, 20], plain_tokens=8) == pytest.approx([2.0, 2.0])
    # a baseline timed in the slow moment against a run timed in the fast one would have read 4x
    assert speedup_ratios([1.6], [1.0], [20], plain_tokens=8) == pytest.approx([4.0])
    with pytest.raises(ValueError):
        speedup_ratios([0.8], [1.0, 2.0], [20, 20], plain_tokens=8)


def measured_table() -> pd.DataFrame:
    """Errors and spreads chosen so every summary figure can be worked out by hand."""
    step = {"measured_s": 0.1, "measured_s_p25": 0.09, "measured_s_p75": 0.11}  # repeat spread (0.11 - 0.09) / 0.1 = 0.2
    rows = [{"kind": "decode", "error_engine": e, **step} for e in (0.1, -0.2, 0.05)]
    rows.append({"kind": "verify", "error_engine": -0.3, **step})
    spec = {"kind": "spec", "measured_s": 0.2, "measured_s_p25": 0.2, "measured_s_p75": 0.2}
    rows += [
        {**spec, "mode": "controlled", "alpha": 0.5, "alpha_measured": 0.45, "speedup_error_engine": 0.04,
         "measured_speedup": 2.0, "measured_speedup_p25": 1.9, "measured_speedup_p75": 2.1},      # spread 0.1
        {**spec, "mode": "controlled", "alpha": 0.3, "alpha_measured": 0.6, "speedup_error_engine": 0.5,
         "measured_speedup": 1.1, "measured_speedup_p25": 0.5, "measured_speedup_p75": 1.5},      # set alpha < 0.5: left out
        {**spec, "mode": "natural", "alpha": float("nan"), "alpha_measured": 0.6, "speedup_error_engine": -0.02,
         "measured_speedup": 1.5, "measured_speedup_p25": 1.47, "measured_speedup_p75": 1.53},   # spread 0.04
    ]
    return pd.DataFrame(rows)


def test_summary_reports_each_median_with_its_spread():
    s = summarize(measured_table(), "cpu")
    # step errors |0.1|, |-0.2|, |0.05|, |-0.3| sorted 0.05, 0.1, 0.2, 0.3: median 0.15, quartiles at
    # positions 0.75 and 2.25: 0.05 + 0.75 * 0.05 = 0.0875 and 0.2 + 0.25 * 0.1 = 0.225
    assert s["points"] == 7
    assert s["median_abs_error"] == pytest.approx(0.15)
    assert s["abs_error_iqr"] == pytest.approx([0.0875, 0.225])
    assert s["max_abs_error"] == pytest.approx(0.3)
    assert s["step_time_repeat_spread"] == pytest.approx(0.2)
    # speedups at alpha >= 0.5: |0.04| and |-0.02| (the alpha 0.3 run is left out): median 0.03, quartiles 0.025, 0.035
    assert s["speedup_median_abs_error"] == pytest.approx(0.03)
    assert s["speedup_abs_error_iqr"] == pytest.approx([0.025, 0.035])
    assert s["speedup_repeat_spread"] == pytest.approx(0.07)  # median of 0.1 and 0.04
    json.dumps(s)  # the summary is one JSON line


def synthetic_rows() -> list[dict]:
    """Measured rows in validate's vocabulary, with made-up times (the outputs, not the numbers, are under test)."""
    def spread(prefix, value):
        return {prefix: value, f"{prefix}_p25": 0.95 * value, f"{prefix}_p75": 1.05 * value}

    rows = [{"kind": "decode", "batch": b, "q": 1, "context": s, **spread("measured_s", 0.09 + 0.002 * b)}
            for s in (256, 1024) for b in (1, 4, 16)]
    rows += [{"kind": "verify", "batch": b, "q": q, "context": 256, **spread("measured_s", 0.09 + 0.002 * b * q)}
             for b in (1, 4) for q in (2, 5)]
    for b in (1, 4):
        rows.append({"kind": "plain", "batch": b, "q": 1, "context": 260, **spread("measured_s", 0.092), "measured_tokens_per_s": b / 0.092})
        for k in (2, 4):
            for mode, alpha in (("controlled", 0.7), ("natural", None)):
                rows.append({"kind": "spec", "mode": mode, "batch": b, "k": k, "alpha": alpha, "q": k + 1, "context": 266,
                             **spread("measured_s", 0.15), "measured_tokens_per_s": 20.0, "tau_measured": 2.2,
                             "alpha_measured": 0.6, **spread("measured_speedup", 1.6), "draft_share": 0.2})
    return rows


@pytest.mark.slow  # draws three figures
def test_outputs_are_the_table_summary_and_three_plots_named_apart_from_a_sweeps(tmp_path, h100):
    target, draft = load_model("validation-small"), load_model("validation-draft")
    df = predict_rows(synthetic_rows(), h100, target, draft)
    summary = {**summarize(df, "cpu"), "load_average_at_start": 3.6, "cores": 2}
    write_outputs(df, summary, summarize(df, "cpu", "classic"), h100, target, draft, tmp_path)
    assert json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))["measured_under_load"] is True  # qa88
    names = {p.name for p in tmp_path.iterdir()}
    assert names == {"validation.csv", "validation.md", "summary.json", *PLOT_FILES}
    assert all(name.startswith("validation_") for name in PLOT_FILES)
    assert "step_time_vs_tokens.png" not in names  # the sweep's file name
    markdown = (tmp_path / "validation.md").read_text(encoding="utf-8")
    assert "measured_ms_iqr" in markdown and "measured_speedup_iqr" in markdown
    assert "| 1024 |" in markdown and "1.02e+03" not in markdown  # a context as written, not in 3 digits
    table = pd.read_csv(tmp_path / "validation.csv")
    assert {"measured_s_p25", "measured_s_p75", "measured_speedup_p25", "measured_speedup_p75"} <= set(table.columns)
    assert json.loads((tmp_path / "summary.json").read_text(encoding="utf-8")) == json.loads(json.dumps(summary))


def test_the_dtype_reaches_the_prediction_fp32_streaming_up_to_twice_the_bytes_of_bf16(h100):
    target, draft = load_model("validation-small"), load_model("validation-draft")
    bf16 = predict_rows(synthetic_rows(), h100, target, draft, "bf16")
    fp32 = predict_rows(synthetic_rows(), h100, target, draft, "fp32")
    # decode at batch 1 on an H100 is memory-bound: fp32 doubles the weight and KV bytes, activations
    # are counted at the same 2 bytes and the step overhead is the same, so the ratio is above 1.5
    # (1.7 GB of weights against microseconds of overhead) and at most 2
    ratio = (fp32["predicted_s_engine"] / bf16["predicted_s_engine"])[(bf16["kind"] == "decode") & (bf16["batch"] == 1)]
    assert ((ratio > 1.5) & (ratio <= 2.0)).all() and len(ratio) == 2


def test_a_quick_fp32_run_measures_4_of_the_16_layers_at_the_same_points_with_speculation_at_batch_1():
    assert grid_for(True, "bf16") is QUICK and grid_for(False, "fp32") is FULL and grid_for(False, "bf16") is FULL
    g = grid_for(True, "fp32")
    assert g is QUICK_FP32 and g.target_layers == 4 and g.spec_batches == (1,) and QUICK.target_layers is None
    assert (g.decode_batches, g.verify_batches, g.verify_q, g.spec_k, g.spec_alphas) == (
        QUICK.decode_batches, QUICK.verify_batches, QUICK.verify_q, QUICK.spec_k, QUICK.spec_alphas)
    with pytest.raises(RooflineError, match="--dtype"):
        grid_for(True, "int8")


def test_the_cli_passes_dtype_to_calibrate_and_validate(monkeypatch, tmp_path):
    from typer.testing import CliRunner

    import cli
    import roofline.harness.calibrate as calibrate
    import roofline.harness.validate as validate

    seen = {}

    def fake_validate(**kw):
        seen["validate"] = kw["dtype"]
        seen["graphs"] = kw["cuda_graphs"]
        (kw["out_dir"] / "validation.md").write_text("x")
        return {"dtype": kw["dtype"]}

    def fake_calibrate(device, dtype="bf16", cuda_graphs=False):
        seen["calibrate"] = dtype
        raise RooflineError("stop here")

    monkeypatch.setattr(validate, "run_validate", fake_validate)
    monkeypatch.setattr(calibrate, "run_calibrate", fake_calibrate)
    runner, command = CliRunner(), cli.app
    result = runner.invoke(command, ["validate", "--dtype", "fp32", "--out", str(tmp_path / "v")])
    assert result.exit_code == 0 and json.loads(result.stdout.strip().splitlines()[-1]) == {"dtype": "fp32"}
    assert result.stdout.splitlines()[:-1] == [f"  {tmp_path / 'v' / 'validation.md'}"]  # what it wrote (qa378)
    runner.invoke(command, ["calibrate", "--dtype", "fp32"])
    assert seen == {"validate": "fp32", "calibrate": "fp32", "graphs": False}
    result = runner.invoke(command, ["validate", "--out", str(tmp_path / "w")])
    assert seen["validate"] == "bf16"  # the default
    result = runner.invoke(command, ["validate", "--device", "cuda", "--cuda-graphs", "--out", str(tmp_path / "g")])
    assert result.exit_code == 0 and seen["graphs"] is True


@pytest.mark.slow  # imports torch (builds nothing: the decoder is stopped at its first call)
def test_run_validate_builds_its_decoder_in_the_dtype_asked_for(monkeypatch, tmp_path, h100):
    torch = pytest.importorskip("torch")
    import roofline.harness.decoder as decoder

    built = {}

    def stop(spec, dtype, device, seed):
        built.update(layers=spec.layers, dtype=dtype)
        raise RooflineError("stop before building")

    monkeypatch.setattr(decoder, "build_decoder", stop)
    with pytest.raises(RooflineError, match="stop before building"):
        run_validate(quick=True, out_dir=tmp_path, progress=False, hardware=h100, dtype="fp32")
    assert built == {"layers": 4, "dtype": torch.float32}


@pytest.mark.slow  # imports torch (builds nothing)
def test_a_gpu_profile_given_to_a_cpu_run_is_warned_about_before_anything_is_measured(monkeypatch, tmp_path, h100, capsys):
    pytest.importorskip("torch")
    import roofline.harness.decoder as decoder

    def stop(spec, dtype, device, seed):
        raise RooflineError("stop before building")

    monkeypatch.setattr(decoder, "build_decoder", stop)
    with pytest.raises(RooflineError, match="stop before building"):
        run_validate(device="cpu", quick=True, out_dir=tmp_path, progress=True, hardware=h100, dtype="fp32")
    assert "warning: the profile h100-sxm is a gpu profile, and this runs on the cpu" in capsys.readouterr().err


def test_a_calibrated_profile_is_named_after_its_file_so_it_loads_by_that_name(monkeypatch, tmp_path):
    from typer.testing import CliRunner

    import cli
    import roofline.harness.calibrate as calibrate
    from roofline.hardware import load_hardware
    from roofline.profiles import builtin_dir
    from roofline.yamlio import read_yaml_file

    measured = {**read_yaml_file(builtin_dir("hardware") / "h100-sxm.yaml"), "name": "measured-cpu"}
    monkeypatch.setattr(calibrate, "run_calibrate", lambda device, dtype="bf16", cuda_graphs=False: dict(measured))
    runner, command = CliRunner(), cli.app
    result = runner.invoke(command, ["calibrate", "--out", str(tmp_path / "my-box.yaml")])
    assert result.exit_code == 0, result.output
    assert load_hardware("my-box", (tmp_path,)).name == "my-box"  # found by its file name, which it carries
    result = runner.invoke(command, ["hw", "validate", str(tmp_path / "my-box.yaml")])
    assert result.exit_code == 0, result.output
    result = runner.invoke(command, ["calibrate", "--out", str(tmp_path / "my-box")])
    assert result.exit_code != 0 and "expected a profile file NAME.yaml" in str(result.exception)


def test_validation_md_says_when_it_was_measured_under_load(h100):
    """A run at load 3.6 on 2 cores gave 48% step errors; the console warned, validation.md did not."""
    from roofline.harness.validate import _markdown

    target, draft = load_model("validation-small"), load_model("validation-draft")
    df = predict_rows(synthetic_rows(), h100, target, draft)
    summary = summarize(df, "cpu")
    ablated = pd.DataFrame({"form": ["x"], "median_abs_error": [0.1], "p90_abs_error": [0.2], "max_abs_error": [0.3]})
    busy = _markdown(df, {**summary, "load_average_at_start": 3.6, "load_average_at_end": 4.0, "cores": 2}, summary, ablated)
    quiet = _markdown(df, {**summary, "load_average_at_start": 0.3, "load_average_at_end": 0.4, "cores": 2}, summary, ablated)
    assert "**Measured under load**: the load average was 3.6 before the run and 4.0 at its end (its own work included) on 2 cores" in busy
    assert "under load" not in quiet
    from roofline.harness.validate import under_load  # the same rule gives summary.json's flag (qa88)
    assert under_load({"load_average_at_start": 3.6, "cores": 2}) and not under_load({"load_average_at_start": 0.3, "cores": 2})
    assert not under_load({"load_average_at_start": None, "cores": 2})
    # neighbours that arrive mid-run: the end's load less the run's own threads (qa113: 0.91 -> 4.18 read as quiet)
    assert under_load({"load_average_at_start": 0.91, "load_average_at_end": 4.18, "threads": 2, "cores": 2})
    assert not under_load({"load_average_at_start": 0.2, "load_average_at_end": 2.4, "threads": 2, "cores": 2})


def test_the_loops_first_draft_pass_over_two_tokens_is_priced_as_it_runs(h100):
    """specloop's first draft pass of an iteration takes 2 tokens a sequence (the last accepted and the target's next);
    the prediction priced k one-token steps (session 38: 15 of 16 predicted speedups above the measured ones, most at
    k = 2). The iteration takes the difference of a 2-token and a 1-token drafter step once, whatever k."""
    from roofline.engine import step_metrics
    from roofline.harness.validate import speculation
    from roofline.layout import deployment
    from roofline.speculation import speculative_metrics

    target, draft = load_model("validation-small"), load_model("validation-draft")
    d_dep = deployment(draft, "fp32", "fp32")
    extra = (step_metrics(h100, draft, 4, 2, 300, d_dep)["step_time_s"] - step_metrics(h100, draft, 4, 1, 300, d_dep)["step_time_s"])
    assert extra > 0
    for k in (2, 4):
        library = speculative_metrics(h100, target, 4, 300, k, 0.7, method="draft", draft=draft,
                                      dep=deployment(target, "fp32", "fp32"))
        loop = speculation(h100, target, draft, 4, 300, k, 0.7, "fp32")
        assert float(loop["iteration_time_s"]) == pytest.approx(float(library["iteration_time_s"] + extra))
        assert float(loop["speedup"]) == pytest.approx(float(library["speedup"] * library["iteration_time_s"] / loop["iteration_time_s"]))
        assert float(loop["speedup"]) < float(library["speedup"])


@pytest.mark.slow  # imports torch
def test_the_harness_costs_reach_the_engine_forms_prediction_term_by_term_and_not_the_classic_form(h100):
    """A verify pass (q > 1) takes the multi-token extra of the target's layers; a speculative iteration takes the loop's
    per-iteration cost, both passes' multi-token extras (target and drafter) and k per-draft-step costs of its mode; a
    decode step (q = 1) and the classic form take none of them."""
    pytest.importorskip("torch")
    from roofline.harness.specloop import HarnessCosts

    target, draft = load_model("validation-small"), load_model("validation-draft")
    costs = HarnessCosts(per_iteration_s={"natural": 4e-4, "controlled": 7e-4}, per_draft_step_s={"natural": 0.0, "controlled": 2e-4},
                         multi_token_fixed_s=1e-4, multi_token_per_layer_s=5e-5, outside_s={})
    plain, with_costs = predict_rows(synthetic_rows(), h100, target, draft), predict_rows(synthetic_rows(), h100, target, draft,
                                                                                          costs=costs)
    added = with_costs["predicted_s_engine"] - plain["predicted_s_engine"]
    multi_target, multi_draft = 1e-4 + 16 * 5e-5, 1e-4 + 2 * 5e-5
    kind, mode, k = with_costs["kind"], with_costs["mode"], with_costs["k"]
    assert added[kind.isin(["decode", "plain"])].abs().max() < 1e-15
    assert added[kind == "verify"].to_numpy() == pytest.approx(multi_target)
    spec = kind == "spec"
    expected = (mode[spec].map(costs.per_iteration_s) + multi_target + multi_draft + k[spec] * mode[spec].map(costs.per_draft_step_s))
    assert added[spec].to_numpy() == pytest.approx(expected.to_numpy())
    assert (with_costs["predicted_speedup_engine"][spec] < plain["predicted_speedup_engine"][spec]).all()
    assert (with_costs["predicted_s_classic"] == plain["predicted_s_classic"]).all()


@pytest.mark.slow  # draws a figure
def test_the_ridge_label_moves_off_points_that_sit_where_it_stood():
    """On a GPU every pass takes about the same time, so the measured points sat at the top of the step-time figure, where
    the ridge label stood (session 41): the label takes the first height free of points beside the line."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from roofline.harness.validate import _free_height

    fig = Figure()
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.plot([1, 200], [1, 100], alpha=0)  # the axes' range: x 1-200, y 1-100
    ax.set_xlim(1, 200)
    ax.set_ylim(1, 100)
    assert _free_height(ax, 150.0, left_of=True) == 0.97  # nothing beside the line: the top
    ax.plot([40, 80, 120], [60, 80, 70], "o")  # points at the top, left of the line
    assert _free_height(ax, 150.0, left_of=True) == 0.6
    assert _free_height(ax, 20.0, left_of=False) == 0.6  # right of a line further left: the same points
    assert _free_height(ax, 150.0, left_of=False) == 0.97  # right of the line: none there


def test_the_harness_pass_pays_a_profiles_attention_stream_and_the_classic_form_and_ablation_drop_it(h100):
    """qa197: the classic form kept a graph-calibrated profile's attention_stream cap, and the ablation without
    attention ceilings changed nothing. The harness's pass (validate.HARNESS: PyTorch's fused attention) pays it."""
    import dataclasses

    from roofline.harness.validate import REFINEMENTS, classic, step_time_s

    target = load_model("validation-small")
    streamed = dataclasses.replace(h100, attention_memory_bytes_per_s=1.4e12, attention_stream_bytes_per_s=25e9)
    plain = dataclasses.replace(streamed, attention_stream_bytes_per_s=None)
    assert float(step_time_s(streamed, target, 1, 1, 4096)) > 1.5 * float(step_time_s(plain, target, 1, 1, 4096))
    assert float(step_time_s(streamed, target, 64, 1, 4096)) == pytest.approx(float(step_time_s(plain, target, 64, 1, 4096)))
    assert classic(streamed) == classic(plain)
    ablated = dataclasses.replace(streamed, **REFINEMENTS["attention ceilings"])
    assert ablated.attention_stream_bytes_per_s is None


def test_a_graphed_runs_outputs_say_so_in_every_title_and_in_its_markdown(tmp_path, h100, monkeypatch):
    import roofline.harness.validate as validate

    titles = []
    for name in ("_plot_predicted_vs_measured", "_plot_step_vs_tokens", "_plot_speedup"):
        monkeypatch.setattr(validate, name, lambda *args, **kw: titles.append(args[-2] if len(args) > 4 else args[-1]))
    target, draft = load_model("validation-small"), load_model("validation-draft")
    df = predict_rows(synthetic_rows(), h100, target, draft)
    for summary, title in (({"cuda_graphs": True, "load_average_at_start": 3.6, "cores": 2},
                            "validation-small, bf16 (CUDA graphs; measured under load)"),
                           ({"cuda_graphs": False, "load_average_at_start": 0.1, "cores": 2}, "validation-small, bf16")):
        titles.clear()
        write_outputs(df, {**summarize(df, "cuda"), **summary}, summarize(df, "cuda", "classic"), h100, target, draft, tmp_path)
        assert titles == [title] * 3
        graphed = "replayed from a CUDA graph" in (tmp_path / "validation.md").read_text(encoding="utf-8")
        assert graphed is summary["cuda_graphs"]


@pytest.mark.slow  # imports torch (builds nothing)
def test_a_profile_calibrated_in_the_other_graph_mode_is_warned_about_before_anything_is_measured(monkeypatch, tmp_path,
                                                                                                  h100, capsys):
    """qa200: an eager calibration's dispatch overheads were compared with graph replays (or the reverse), unsaid."""
    import dataclasses

    pytest.importorskip("torch")
    import roofline.harness.decoder as decoder

    def stop(spec, dtype, device, seed):
        raise RooflineError("stop before building")

    monkeypatch.setattr(decoder, "build_decoder", stop)
    cpu_profile = dataclasses.replace(h100, kind="cpu", extra={"measured_cuda_graphs": True})
    with pytest.raises(RooflineError, match="stop before building"):
        run_validate(device="cpu", quick=True, out_dir=tmp_path, progress=True, hardware=cpu_profile, dtype="fp32")
    assert ("the profile h100-sxm was calibrated with CUDA graphs, and this run does not replay them"
            in capsys.readouterr().err)
    with pytest.raises(RooflineError, match="stop before building"):
        run_validate(device="cpu", quick=True, out_dir=tmp_path, progress=True,
                     hardware=dataclasses.replace(cpu_profile, extra={"measured_cuda_graphs": False}), dtype="fp32")
    assert "CUDA graphs" not in capsys.readouterr().err


@pytest.mark.slow  # runs a tiny decoder
def test_graphed_speculative_rows_are_priced_at_the_length_their_passes_read():
    """qa200: under --cuda-graphs every pass of a speculative run reads the cache up to a fixed length (303 tokens on the
    quick grid), where its rows were priced at their mean position (260-275)."""
    import dataclasses

    torch = pytest.importorskip("torch")
    from roofline.harness.decoder import build_decoder, new_kv_cache, tiny_spec, truncate
    from roofline.harness.validate import QUICK, SPEC_CONTEXT, Progress, measure_speculation

    grid = dataclasses.replace(QUICK, spec_batches=(1,), spec_k=(1,), spec_alphas=(0.5,), spec_iterations=2, spec_pairs=1)
    model = build_decoder(tiny_spec(2), dtype=torch.float32)
    draft = truncate(model, 1)
    cache, draft_cache = new_kv_cache(model, 1, SPEC_CONTEXT + 32), new_kv_cache(draft, 1, SPEC_CONTEXT + 32)
    for length, expected in ((None, None), (SPEC_CONTEXT + 20, SPEC_CONTEXT + 20)):
        rows = measure_speculation(torch, torch.device("cpu"), model, draft, cache, draft_cache, grid,
                                   Progress(4, False), length)
        contexts = {row["kind"]: row["context"] for row in rows}
        if expected is None:
            assert SPEC_CONTEXT < contexts["spec"] < SPEC_CONTEXT + 4 and contexts["plain"] == SPEC_CONTEXT + 1
        else:
            assert contexts == {"spec": expected, "plain": expected}


@pytest.mark.slow  # imports torch (builds nothing)
def test_a_profile_calibrated_under_load_is_warned_about_and_said_in_validation_md(monkeypatch, tmp_path, h100, capsys):
    """qa269: a profile calibrated at load 2.49 on 2 cores gave step errors of 200%, and validate said the run was quiet:
    calibrate's measured_load_average was written and never read."""
    import dataclasses
    import os

    pytest.importorskip("torch")
    import roofline.harness.decoder as decoder
    from roofline.harness.validate import _markdown, calibrated_under_load_note

    def stop(spec, dtype, device, seed):
        raise RooflineError("stop before building")

    monkeypatch.setattr(decoder, "build_decoder", stop)
    from roofline.hardware import load_hardware
    from roofline.harness.calibrate import profile_to_yaml
    from roofline.profiles import builtin_dir
    from roofline.yamlio import read_yaml_file

    cores = os.cpu_count() or 1
    # as calibrate writes it: /proc/loadavg's field, text (qa274: the note read a float alone, and never fired)
    profile = {**read_yaml_file(builtin_dir("hardware") / "h100-sxm.yaml"), "name": "busy",
               "measured_load_average": f"{cores + 0.5:.2f}", "measured_threads": 1}
    (tmp_path / "busy.yaml").write_text(profile_to_yaml(profile), encoding="utf-8")
    busy = dataclasses.replace(load_hardware(str(tmp_path / "busy.yaml")), kind="cpu")
    with pytest.raises(RooflineError, match="stop before building"):
        run_validate(device="cpu", quick=True, out_dir=tmp_path / "out", progress=True, hardware=busy, dtype="fp32")
    assert (f"warning: the profile busy was calibrated at a load average of {cores + 0.5:g} on {cores} cores, 1 of it its "
            "own threads") in capsys.readouterr().err
    quiet = dataclasses.replace(busy, extra={"measured_load_average": f"{cores * 0.5 + 0.9:.2f}", "measured_threads": 1})
    assert calibrated_under_load_note(quiet) == "" and calibrated_under_load_note(h100) == ""  # its own threads aside
    assert calibrated_under_load_note(dataclasses.replace(busy, extra={"measured_load_average": "unknown"})) == ""
    target, draft = load_model("validation-small"), load_model("validation-draft")
    df = predict_rows(synthetic_rows(), h100, target, draft)
    summary = summarize(df, "cpu")
    ablated = pd.DataFrame({"form": ["x"], "median_abs_error": [0.1], "p90_abs_error": [0.2], "max_abs_error": [0.3]})
    assert "**Profile calibrated under load**" in _markdown(df, {**summary, "profile_calibrated_under_load": True}, summary, ablated)
    assert "calibrated under load" not in _markdown(df, summary, summary, ablated)


@pytest.mark.slow
def test_every_validation_figures_title_line_fits_its_width_with_every_note(tmp_path, h100, monkeypatch):
    """qa378: under load, 'validation-small-first4, fp32 (measured under load; profile calibrated under load):
    predicted against measured' ran off both edges of the figure."""
    import roofline.harness.validate as validate
    from roofline.plots import title_chars

    figures = []
    monkeypatch.setattr(validate, "_save", lambda fig, path: figures.append(fig))
    target, draft = load_model("validation-small"), load_model("validation-draft")
    df = predict_rows(synthetic_rows(), h100, target, draft)
    summary = {**summarize(df, "cuda"), "cuda_graphs": True, "load_average_at_start": 3.6, "cores": 2,
               "profile_calibrated_under_load": True}
    write_outputs(df, summary, summarize(df, "cuda", "classic"), h100, target, draft, tmp_path)
    assert len(figures) == 3
    for fig in figures:
        lines = fig._suptitle.get_text().split("\n")
        assert all(len(line) <= title_chars(fig) for line in lines), lines
        assert "(CUDA graphs; measured under load; profile calibrated under load)" in " ".join(lines)
