"""roofline command line: a thin shell over the library (parse, call one function, print or write).

Run as `roofline ...` after `pip install .`, or `python cli.py ...` from a checkout.
Every bad input ends with one line on stderr and exit code 2.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from roofline.errors import RooflineError

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Roofline model of LLM decode throughput, with and without speculative decoding.")
hw_app = typer.Typer(no_args_is_help=True, help="Hardware profiles.")
models_app = typer.Typer(no_args_is_help=True, help="Model profiles.")
app.add_typer(hw_app, name="hw")
app.add_typer(models_app, name="models")

ProfilesOpt = Annotated[Optional[list[Path]], typer.Option("--profiles", help="Extra folder of YAML profiles (repeatable; also ROOFLINE_PATH).")]
_state: dict = {"profiles": ()}


@app.callback()
def _root(profiles: ProfilesOpt = None) -> None:
    _state["profiles"] = tuple(profiles or ())


def _dirs() -> tuple:
    return _state["profiles"]


def _echo_json(obj: dict) -> None:
    typer.echo(json.dumps(obj, indent=2, default=_json_default))


def _json_default(value):
    import numpy as np

    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


@app.command()
def predict(
    hardware: Annotated[str, typer.Option(help="Hardware profile name (roofline hw list).")] = "h100-sxm",
    model: Annotated[str, typer.Option(help="Model profile name (roofline models list).")] = "llama-3.1-8b",
    batch: Annotated[int, typer.Option(min=1, max=100_000_000, help="Sequences decoded together.")] = 1,
    context: Annotated[int, typer.Option(min=0, max=1_000_000_000, help="Tokens already in each sequence's KV cache.")] = 1024,
    tp: Annotated[int, typer.Option(min=1, max=4096, help="Tensor-parallel degree.")] = 1,
    weight_dtype: Annotated[str, typer.Option(help="bf16 | fp16 | fp32 | fp8 | int8 | int4 | fp4")] = "bf16",
    kv_dtype: Annotated[str, typer.Option(help="bf16 | fp16 | fp32 | fp8 | int8")] = "bf16",
    prompt: Annotated[Optional[int], typer.Option(min=1, help="Prompt length: adds time to first token (one prefill).")] = None,
    method: Annotated[str, typer.Option(help="Speculation: none | draft | mtp | eagle | ngram")] = "none",
    draft: Annotated[Optional[str], typer.Option(help="Draft model name (method draft).")] = None,
    k: Annotated[int, typer.Option(min=0, max=64, help="Draft tokens per iteration (bonus token excluded).")] = 4,
    alpha: Annotated[Optional[float], typer.Option(min=0.0, max=1.0, help="Per-token acceptance probability.")] = None,
    acceptance: Annotated[Optional[str], typer.Option(help="Per-position conditional acceptance rates a1,a2,... (instead of --alpha).")] = None,
    draft_hardware: Annotated[Optional[str], typer.Option(help="Run the drafter on this device (overlapped with verify).")] = None,
    overlap: Annotated[bool, typer.Option(help="With --draft-hardware: overlap drafting with verification.")] = True,
    draft_vocab: Annotated[Optional[int], typer.Option(min=1, help="EAGLE head's reduced vocabulary.")] = None,
    tree_nodes: Annotated[Optional[int], typer.Option(min=1, help="Tree verification: draft nodes per sequence (root excluded); k is the tree depth.")] = None,
    tree_tau: Annotated[Optional[float], typer.Option(min=1.0, help="Tree verification: measured tokens per iteration (bonus included).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object (SI units).")] = False,
) -> None:
    """Predict one decode point: step time, tokens/s, MBU/MFU, bound, memory; optionally speculation."""
    from roofline.engine import predict_point
    from roofline.hardware import load_hardware
    from roofline.model import KV_DTYPES, WEIGHT_DTYPES, load_model

    from roofline.profiles import normalize_dtype

    weight_dtype = normalize_dtype(weight_dtype, WEIGHT_DTYPES, "option", "--weight-dtype")
    kv_dtype = normalize_dtype(kv_dtype, KV_DTYPES, "option", "--kv-dtype")
    hw = load_hardware(hardware, _dirs())
    spec_model = load_model(model, _dirs())
    point = predict_point(hw, spec_model, batch, context, weight_dtype, kv_dtype, tp, prompt)
    if method != "none" or acceptance or alpha is not None or tree_nodes is not None:
        from roofline.speculation import predict_speculation

        rates = _parse_rates(acceptance) if acceptance else None
        if draft is not None and method != "draft":
            raise RooflineError(f"--draft: expected only with --method draft, found --method {method}")
        if draft_vocab is not None and method != "eagle":
            raise RooflineError(f"--draft-vocab: expected only with --method eagle, found --method {method}")
        if rates is not None and alpha is not None:
            raise RooflineError("--alpha and --acceptance: expected one of them, found both")
        if tree_nodes is not None and (rates is not None or alpha is not None):
            raise RooflineError("--tree-tau: a tree takes its tau from --tree-tau, found --alpha or --acceptance as well")
        if (tree_nodes is None) != (tree_tau is None):
            raise RooflineError("--tree-nodes and --tree-tau: expected both or neither, found one")
        if rates is None and alpha is None and tree_nodes is None and method != "none":
            raise RooflineError("--alpha or --acceptance: expected one of them with a speculation method, found neither")
        point["spec"] = predict_speculation(
            hw, spec_model, batch, context, k, alpha, method=method,
            draft=load_model(draft, _dirs()) if draft else None,
            draft_hw=load_hardware(draft_hardware, _dirs()) if draft_hardware else None,
            acceptance=rates, draft_vocab=draft_vocab, weight_dtype=weight_dtype, kv_dtype=kv_dtype, tp=tp,
            tree_nodes=tree_nodes, tree_tau=tree_tau, overlap=overlap,
        )
    if json_out:
        _echo_json(point)
    else:
        from roofline.tables import predict_table

        typer.echo(predict_table(point))


def _parse_rates(text: str) -> list[float]:
    try:
        rates = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise RooflineError(f"--acceptance: expected comma-separated rates like 0.8,0.7,0.6, found {text!r}") from None
    if not rates or any(not 0 <= r <= 1 for r in rates):
        raise RooflineError(f"--acceptance: expected rates in [0, 1], found {text!r}")
    return rates


@hw_app.command("list")
def hw_list() -> None:
    """List hardware profiles: memory, bandwidth, bf16 peak, ridge point."""
    from roofline.hardware import load_hardware
    from roofline.profiles import list_names
    from roofline.tables import hardware_list

    typer.echo(hardware_list([load_hardware(name, _dirs()) for name in list_names("hardware", _dirs())]))


@hw_app.command("show")
def hw_show(name: str, json_out: Annotated[bool, typer.Option("--json", help="Print JSON (SI units).")] = False) -> None:
    """Show one hardware profile."""
    from roofline.hardware import load_hardware

    hw = load_hardware(name, _dirs())
    if json_out:
        _echo_json(hw.to_json())
        return
    from roofline.tables import hardware_table

    typer.echo(hardware_table(hw))


@models_app.command("list")
def models_list() -> None:
    """List model profiles: parameters, active parameters, KV bytes per token."""
    from roofline.model import load_model
    from roofline.profiles import list_names
    from roofline.tables import model_list

    typer.echo(model_list([load_model(name, _dirs()) for name in list_names("model", _dirs())]))


@models_app.command("show")
def models_show(name: str, json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """Show one model profile with its computed parameter counts and KV size."""
    from roofline.model import load_model

    m = load_model(name, _dirs())
    if json_out:
        _echo_json(m.to_json())
        return
    from roofline.tables import model_table

    typer.echo(model_table(m))


@app.command()
def sweep(
    scenario: Annotated[str, typer.Argument(help="Scenario YAML file or built-in scenario name.")],
    out: Annotated[Path, typer.Option(help="Output folder (results.csv, plots).")] = Path("out/sweep"),
    force: Annotated[bool, typer.Option(help="Replace an existing output folder.")] = False,
    plots: Annotated[bool, typer.Option(help="Draw the standard plots.")] = True,
    chunk_points: Annotated[int, typer.Option(min=1000, help="Rows computed per chunk (bounds memory).")] = 1_000_000,
) -> None:
    """Run a scenario sweep: results.csv (+ .parquet), operators.csv, plots (PNG and SVG)."""
    from roofline.outputs import staged_dir
    from roofline.scenario import load_scenario
    from roofline.sweep import load_pairs, write_sweep

    sc = load_scenario(scenario, _dirs())
    pairs = load_pairs(sc, _dirs())
    with staged_dir(out, force) as tmp:
        summary = write_sweep(sc, pairs, tmp, plots=plots, chunk_points=chunk_points, progress=sys.stderr.isatty() or sc.points > 200_000)
    typer.echo(f"{sc.name}: {summary['points']:,} points in {summary['compute_s']:.2f} s -> {out}/")
    for name in summary["files"]:
        typer.echo(f"  {out / name}")


@app.command()
def plot(
    table: Annotated[Path, typer.Argument(help="A sweep output folder or its results.csv / results.parquet.")],
    out: Annotated[Optional[Path], typer.Option(help="Folder for the plots (default: the table's folder).")] = None,
    force: Annotated[bool, typer.Option(help="Overwrite existing plot files.")] = False,
) -> None:
    """Re-draw the standard plots from a written table, without recomputing anything."""
    from roofline.plots import plot_from_table

    for path in plot_from_table(table, out, force):
        typer.echo(str(path))


@app.command()
def bench(
    points: Annotated[list[int], typer.Option(min=1000, help="Sweep sizes to time (repeatable).")] = [1_000_000, 10_000_000],  # noqa: B006
    chunk_points: Annotated[int, typer.Option(min=1000, help="Rows per chunk.")] = 1_000_000,
) -> None:
    """Benchmark the sweep engine: points/s and peak memory, one JSON line per size."""
    from roofline.bench import run_bench

    for n in points:
        typer.echo(json.dumps(run_bench(n, chunk_points)))


@app.command()
def calibrate(
    device: Annotated[str, typer.Option(help="cpu | cuda")] = "cpu",
    out: Annotated[Optional[Path], typer.Option(help="Write the measured hardware profile here (YAML).")] = None,
    force: Annotated[bool, typer.Option(help="Overwrite an existing file.")] = False,
) -> None:
    """Measure this machine (bandwidth, GEMM FLOP/s, GEMV bandwidth, overhead) into a hardware profile."""
    from roofline.hardware import hardware_from_dict
    from roofline.harness.calibrate import profile_to_yaml, run_calibrate
    from roofline.outputs import write_file_safely

    if out is not None and out.exists() and not force:
        raise RooflineError(f"--out: {out} exists; pass --force to overwrite it")
    profile = run_calibrate(device)
    hardware_from_dict(profile, "<calibration>")  # the profile must load like any other
    text = profile_to_yaml(profile)
    if out is None:
        typer.echo(text)
    else:
        write_file_safely(out, text, force)
        typer.echo(f"wrote {out}")


@app.command()
def validate(
    device: Annotated[str, typer.Option(help="cpu | cuda")] = "cpu",
    quick: Annotated[bool, typer.Option(help="Fewer points and repeats (under 5 minutes on 2 cores).")] = False,
    out: Annotated[Path, typer.Option(help="Output folder: table, plots, profile.")] = Path("out/validate"),
    hardware: Annotated[Optional[str], typer.Option(help="Use this (calibrated) hardware profile instead of calibrating now.")] = None,
    force: Annotated[bool, typer.Option(help="Replace an existing output folder.")] = False,
) -> None:
    """Run the real PyTorch decoder and speculative loop, and report predicted against measured."""
    from roofline.harness.validate import run_validate
    from roofline.outputs import staged_dir

    hw = None
    if hardware:
        from roofline.hardware import load_hardware

        hw = load_hardware(hardware, _dirs())
    with staged_dir(out, force) as tmp:
        summary = run_validate(device=device, quick=quick, out_dir=tmp, progress=True, hardware=hw)
    typer.echo(json.dumps(summary))


def main() -> None:
    """Console entry point: bad input becomes one line on stderr and exit code 2."""
    try:
        app(standalone_mode=False)
    except RooflineError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except typer.Abort:
        typer.echo("aborted", err=True)
        sys.exit(1)
    except Exception as exc:
        # click's usage errors (vendored by recent typer): unknown option, value out of range, missing argument
        if type(exc).__name__ == "NoArgsIsHelpError" and getattr(exc, "ctx", None) is not None:
            typer.echo(exc.ctx.get_help())  # `roofline` alone, or a group without a command
            sys.exit(0)
        if hasattr(exc, "format_message") and isinstance(getattr(exc, "exit_code", None), int):
            typer.echo(f"error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        raise


if __name__ == "__main__":
    main()
