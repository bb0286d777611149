"""Validation: run the real PyTorch decoder and speculative loop, predict every point, compare.

Measured (weights, KV cache and activations in one dtype, `--dtype`: bf16 by default, or fp32 on a
device without bf16 units; every point a median of repeats after warm-up, reported with
its spread: the 25th and 75th percentiles of the repeats, `*_p25` and `*_p75`):
    decode   one decode step (q = 1) over batch sizes B and contexts S
    verify   one verification pass of q = k + 1 tokens over B at S
    spec     end-to-end speculative decoding (the real loop of roofline.harness.specloop: a 2-layer
             drafter, controlled acceptance over alpha and natural acceptance) over k and B: tokens/s,
             the time of one iteration, and the speedup over plain greedy decoding of the same sequences
    plain    that plain greedy baseline, step time per token
The speedup is measured in pairs: a plain greedy run (A) of as many steps as the speculative run has
iterations, then the speculative run (B), A, B, A, B, ... (`roofline.harness.runtime.interleave`);
each pair gives one ratio, speedup = (tokens of B / seconds of B) / (tokens of A / seconds of A),
and the point reports the median ratio and its spread. A and B seconds apart see the shared machine
in the same state, so its drift cancels in the ratio (a baseline timed minutes before the runs it
divides moved the median speedup error from 3% to 12% between two runs).

Predicted with the calibrated hardware profile and the same model profiles
(model_profiles/validation-small.yaml, validation-draft.yaml), weights and KV cache in the run's
dtype (roofline.layout.deployment(model, dtype, dtype)), by the library itself:
    step times    roofline.engine.step_metrics
    speculation   roofline.speculation.speculative_metrics (method draft), its first draft pass over
                  the 2 tokens the loop gives it (speculation() below), at the alpha whose
                  tau(alpha, k) equals the tokens each sequence actually emitted per iteration
                  (controlled mode samples acceptance, so a run's tau scatters around
                  tau(alpha, k); it is the timing model that is validated here)
with what the harness spends beyond its passes' calibrated price, measured at tiny width before the
points (roofline.harness.specloop.harness_costs): a pass of q > 1 tokens dispatches two copies a layer
more than the q = 1 pass the profile's overheads were calibrated on, and the loop's own work is its
serving engine's spec_per_iteration and spec_per_draft_step (loop_engine). On a GPU, where an eager
pass is dispatch-bound, they were most of what the profile missed (docs/VALIDATION.md, GPU).
With --cuda-graphs (run_validate's cuda_graphs, a CUDA device only) every pass replays a CUDA graph
(decoder.cuda_graphs), calibration's tiny passes included, so the overheads are the kernels' floors on
the device rather than the host's dispatch (docs/VALIDATION.md, "CUDA graphs on a GPU").
For comparison, the classic form: the same profile without its refinements or the harness's costs (max
of compute and memory time, GEMM ceilings for every operator, no per-layer overhead). `ablation`
switches the refinements off one at a time. Each error is predicted / measured - 1 (a fraction: 0.1 is 10%).

fp32 --quick runs the first 4 of validation-small's 16 layers (1.25 GB of fp32 weights, still 39
times a 32 MB last-level cache) and speculation at batch 1 only (`QUICK_FP32`): fp32 GEMMs with 2 to 16
rows run at a fraction of the GEMV's bandwidth on a CPU whose BLAS falls back to its generic path
(MKL 2024.2 on an AMD EPYC: 1 GB of weights took 62 ms at M = 1, 210 ms at M = 4, 680 ms at M = 16),
so the 16-layer model's verify passes and batch-4 speculation would take far longer than a quick run's
few minutes (estimated from those times, not run).

Outputs in out_dir: validation.csv (the table), validation.md (summary, ablation, table),
summary.json, hardware-measured.yaml (when calibrated here), and three plots in the library's style
(roofline.plots.STYLE), named apart from a sweep's: validation_predicted_vs_measured.png,
validation_step_time_vs_tokens.png, validation_speedup.png.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from roofline.engine import step_metrics
from roofline.errors import RooflineError
from roofline.hardware import HardwareSpec, hardware_from_dict
from roofline.harness.calibrate import profile_to_yaml, run_calibrate
from roofline.harness.runtime import (
    busy_machine_note,
    check_cuda_graphs,
    check_dtype,
    interleave,
    load_average,
    quartiles,
    repeat_times_s,
    setup_runtime,
    torch_dtype,
)
from roofline.layout import deployment
from roofline.model import BYTES_PER_ELEMENT, ModelSpec, load_model
from roofline.outputs import progress_bar, progress_done
from roofline.serving import ServingEngine
from roofline.speculation import speculative_metrics, tau_scalar_alpha
from roofline.units import format_seconds

if TYPE_CHECKING:
    from roofline.harness.specloop import HarnessCosts

PLOT_FILES = ("validation_predicted_vs_measured.png", "validation_step_time_vs_tokens.png", "validation_speedup.png")
TARGET, DRAFT = "validation-small", "validation-draft"
HARNESS_COST_ROUNDS = 21  # rounds of specloop.harness_costs (about 7 s on 2 CPU cores, 20 s on an H200)
SPEC_CONTEXT = 256


@dataclass(frozen=True)
class Grid:
    """The points one validation run measures, and how hard it measures them."""

    decode_batches: tuple[int, ...]
    decode_contexts: tuple[int, ...]
    verify_batches: tuple[int, ...]
    verify_q: tuple[int, ...]
    verify_contexts: tuple[int, ...]
    spec_batches: tuple[int, ...]
    spec_k: tuple[int, ...]
    spec_alphas: tuple[float, ...]
    spec_iterations: int
    repeats: int
    spec_pairs: int
    calibrate_budget_s: float
    target_layers: int | None = None  # run the first n layers of TARGET (None: all of them)


QUICK = Grid(
    decode_batches=(1, 4, 16, 32), decode_contexts=(256, 1024),
    verify_batches=(1, 4, 16), verify_q=(2, 3, 5, 9), verify_contexts=(256,),
    spec_batches=(1, 4), spec_k=(2, 4), spec_alphas=(0.5, 0.7, 0.9),
    spec_iterations=8, repeats=7, spec_pairs=3, calibrate_budget_s=40,
)
FULL = Grid(
    decode_batches=(1, 2, 4, 8, 16, 32, 64), decode_contexts=(128, 512, 1024, 2048),
    verify_batches=(1, 2, 4, 8, 16, 32), verify_q=(2, 3, 4, 5, 7, 9), verify_contexts=(256, 1024),
    spec_batches=(1, 4, 16), spec_k=(1, 2, 4, 6), spec_alphas=(0.3, 0.5, 0.7, 0.8, 0.9, 1.0),
    spec_iterations=12, repeats=7, spec_pairs=5, calibrate_budget_s=100,
)
# fp32 on a CPU: the same points with 4 of the 16 layers (1.25 GB of weights, far past any last-level
# cache), speculation at batch 1 only (see the module docstring)
QUICK_FP32 = dataclasses.replace(QUICK, spec_batches=(1,), target_layers=4)


def grid_for(quick: bool, dtype: str) -> Grid:
    """The grid a run measures: QUICK or FULL, QUICK_FP32 for a quick fp32 run."""
    if quick:
        return QUICK_FP32 if check_dtype(dtype) == "fp32" else QUICK
    return FULL


# ---- prediction ----

REFINEMENTS = {
    "overlap": {"overlap_exponent": None},
    "attention ceilings": {"attention_compute_flops_per_s": None, "attention_memory_bytes_per_s": None,
                           "attention_stream_bytes_per_s": None},
    "elementwise ceiling": {"elementwise_memory_bytes_per_s": None},
    "layer overhead": {"layer_overhead_s": 0.0},
}


def classic(hw: HardwareSpec) -> HardwareSpec:
    """The profile without its refinements: the max form, GEMM ceilings for every operator, no per-layer overhead."""
    return dataclasses.replace(hw, **{k: v for change in REFINEMENTS.values() for k, v in change.items()})


# the harness's own pass as the library prices it: the ideal engine but for its attention kernel, PyTorch's fused
# attention, which streams each (sequence, KV head) on one unit (a profile's attention_stream caps it where it has one)
HARNESS = ServingEngine(name="harness", display_name="the harness's PyTorch decoder", attention_splits_keys=False)


def step_time_s(hw: HardwareSpec, model: ModelSpec, batch, q, context, dtype: str = "bf16", costs: HarnessCosts | None = None):
    """roofline.engine.step_metrics(...)['step_time_s'] on one device, weights and KV cache in `dtype`, under HARNESS;
    with the harness's `costs`, a pass of q > 1 tokens takes its extra dispatch too (HarnessCosts.multi_token_s)."""
    t = step_metrics(hw, model, batch, q, context, deployment(model, dtype, dtype), engine=HARNESS)["step_time_s"]
    return t if costs is None else t + np.where(np.asarray(q) > 1, costs.multi_token_s(model.layers), 0.0)


def alpha_for_tau(tau: float, k: int) -> float:
    """The scalar alpha whose tau(alpha, k) = (1 - alpha^(k+1)) / (1 - alpha) equals tau (bisection)."""
    tau = min(max(tau, 1.0), k + 1.0)
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if float(tau_scalar_alpha(mid, k)) < tau else (lo, mid)
    return (lo + hi) / 2


def loop_engine(costs: HarnessCosts | None, mode: str, target: ModelSpec, draft: ModelSpec) -> ServingEngine | None:
    """The serving engine of the real loop in `mode` (specloop.harness_costs), HARNESS with

        spec_per_iteration  = per_iteration[mode] + multi_token(target layers) + multi_token(draft layers)
        spec_per_draft_step = per_draft_step[mode]

    (each iteration runs one verify pass and one drafter pass of q > 1 tokens); None without costs (the ideal engine)."""
    if costs is None:
        return None
    per_iteration_s = costs.per_iteration_s[mode] + costs.multi_token_s(target.layers) + costs.multi_token_s(draft.layers)
    return dataclasses.replace(HARNESS, name="harness-loop", display_name=f"the harness's speculative loop ({mode})",
                               spec_per_iteration_s=per_iteration_s, spec_per_draft_step_s=costs.per_draft_step_s[mode])


def speculation(hw: HardwareSpec, target: ModelSpec, draft: ModelSpec, batch, context, k, alpha, dtype: str = "bf16",
                engine: ServingEngine | None = None) -> dict:
    """roofline.speculation.speculative_metrics for the drafter of the real loop (method draft), `dtype` weights and KV,
    under `engine` (loop_engine: the loop's own costs outside its passes; None: HARNESS), with the loop's first
    draft pass as it runs: over 2 tokens a sequence (the last token accepted and the target's next one:
    specloop.speculative_decode), where the library prices k one-token draft steps. Its iteration time and speedup are

        iteration = iteration_library + t_step(draft, B, 2, S) - t_step(draft, B, 1, S)
        speedup   = speedup_library x iteration_library / iteration   (tokens/s likewise)

    (session 38: on the CPU a 2-row GEMM costs more than a 1-row one; the correction moved the speedup median errors of
    two recorded --quick runs from 13.3% and 9.9% to 11.2% and 7.5%)."""
    dep, engine = deployment(target, dtype, dtype), engine or HARNESS
    m = speculative_metrics(hw, target, batch, context, k, alpha, method="draft", draft=draft, dep=dep, engine=engine)
    d_dep = deployment(draft, dtype, dtype)
    catch_up_s = (step_metrics(hw, draft, batch, 2, context, d_dep, engine=engine)["step_time_s"]
                  - step_metrics(hw, draft, batch, 1, context, d_dep, engine=engine)["step_time_s"])
    iteration_s = m["iteration_time_s"] + catch_up_s
    slower = m["iteration_time_s"] / iteration_s
    return {**m, "iteration_time_s": iteration_s, "draft_time_s": m["draft_time_s"] + catch_up_s,
            **{key: m[key] * slower for key in ("speedup", "tokens_per_s", "tokens_per_s_per_user")}}


# ---- measurement ----

class Progress:
    """The library's one progress bar (outputs.progress_bar) on stderr: [#####.....] 12/36  verify B=4 q=5 S=256  83.0 s."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.done, self.enabled, self.start = total, 0, enabled, time.perf_counter()

    def update(self, label: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        progress_bar(self.done, self.total, time.perf_counter() - self.start, f"{label:<34}", width=24)
        if self.done >= self.total:
            progress_done()

    def note(self, text: str) -> None:
        if self.enabled:
            print(f"validate: {text}", file=sys.stderr, flush=True)


def _tokens(torch, shape, vocab, seed, dev):
    return torch.randint(0, vocab, shape, generator=torch.Generator().manual_seed(seed)).to(dev)


def _spread(prefix: str, values) -> dict:
    """{prefix: median, prefix_p25: 25th percentile, prefix_p75: 75th percentile} of repeats."""
    p25, p50, p75 = quartiles(values)
    return {prefix: p50, f"{prefix}_p25": p25, f"{prefix}_p75": p75}


def measure_steps(torch, dev, model, cache, grid: Grid, bar: Progress, cuda_graphs: bool = False) -> list[dict]:
    """Decode and verify step times over the grid: median of repeats after warm-up, with its spread. With `cuda_graphs`,
    each point's pass replays a CUDA graph of its own (decoder.cuda_graphs, freed after the point), which reads the
    cache up to the point's context, S + q (decoder.forward's `length`: a graph's shapes are fixed)."""
    from roofline.harness.decoder import cuda_graphs as graphs
    from roofline.harness.decoder import decode_one_token, verify

    vocab, rows = model.spec.vocab_size, []
    for context in grid.decode_contexts:
        for batch in grid.decode_batches:
            view, tok = cache.first(batch), _tokens(torch, (batch,), vocab, batch, dev)
            pos = torch.full((batch,), context, dtype=torch.long, device=dev)
            with graphs(enabled=cuda_graphs):
                times = repeat_times_s(functools.partial(decode_one_token, model, view, tok, pos, context + 1 if cuda_graphs else None),
                                       dev, grid.repeats, warmup=2)
            rows.append({"kind": "decode", "batch": batch, "q": 1, "context": context, **_spread("measured_s", times)})
            bar.update(f"decode B={batch} S={context}")
    for context in grid.verify_contexts:
        for batch in grid.verify_batches:
            for q in grid.verify_q:
                view, tok = cache.first(batch), _tokens(torch, (batch, q), vocab, batch * q, dev)
                pos = torch.full((batch,), context, dtype=torch.long, device=dev)
                with graphs(enabled=cuda_graphs):
                    times = repeat_times_s(functools.partial(verify, model, view, tok, pos, context + q if cuda_graphs else None),
                                           dev, grid.repeats, warmup=2)
                rows.append({"kind": "verify", "batch": batch, "q": q, "context": context, **_spread("measured_s", times)})
                bar.update(f"verify B={batch} q={q} S={context}")
    return rows


def speedup_ratios(plain_s, spec_s, spec_tokens, plain_tokens: int) -> list[float]:
    """Speedup of each interleaved pair i: (spec_tokens[i] / spec_s[i]) / (plain_tokens / plain_s[i]).

    A slowdown of the machine that lasts a pair stretches plain_s[i] and spec_s[i] alike and cancels.
    """
    return [float(n / b_s * a_s / plain_tokens) for a_s, b_s, n in zip(plain_s, spec_s, spec_tokens, strict=True)]


def measure_speculation(torch, dev, model, draft, cache, draft_cache, grid: Grid, bar: Progress,
                        graph_length: int | None = None) -> list[dict]:
    """Per batch and (k, alpha or natural): plain greedy runs (A) and speculative runs (B) interleaved.
    With `graph_length` (the runs replay CUDA graphs, whose shapes are fixed), every pass reads the cache up to that
    many tokens, and each row's context is it; else a row's context is its runs' mean position.

    A decodes `spec_iterations` tokens per sequence from the same state B starts from; each (A, B)
    pair gives one speedup ratio; the point reports the median of `spec_pairs` ratios and their
    spread. The plain row of a batch pools the step times of all its A runs.
    """
    from roofline.harness.decoder import decode_n_tokens
    from roofline.harness.specloop import speculative_decode

    vocab, rows, s0 = model.spec.vocab_size, [], SPEC_CONTEXT
    k_max, n_plain = max(grid.spec_k), grid.spec_iterations
    for batch in grid.spec_batches:
        view, dview = cache.first(batch), draft_cache.first(batch)
        prev = _tokens(torch, (batch,), vocab, 1000 + batch, dev)
        cur0 = _tokens(torch, (batch,), vocab, 2000 + batch, dev)
        start = torch.full((batch,), s0, dtype=torch.long, device=dev)
        # plain greedy decoding from the same state: the reference continuation controlled mode needs
        # (it also warms the plain runs up)
        reference = decode_n_tokens(model, view, cur0, start, grid.spec_iterations * (k_max + 1) + k_max + 1)
        plain = functools.partial(decode_n_tokens, model, view, cur0, start, n_plain)
        plain_step_s, spec_rows = [], []
        configs = [(k, "controlled", a) for k in grid.spec_k for a in grid.spec_alphas] + [(k, "natural", None) for k in grid.spec_k]
        for k, mode, alpha in configs:
            # the same seed every run: every run accepts the same tokens, only the timing varies
            spec = functools.partial(speculative_decode, model, draft, view, dview, prev, cur0, start, k,
                                     grid.spec_iterations * (k + 1), mode=mode, alpha=alpha, reference=reference,
                                     seed=7919 * batch + 101 * k + int(100 * (alpha or 0)), iterations=grid.spec_iterations)
            spec()  # warm-up at this k
            pairs = interleave((plain, spec), grid.spec_pairs, dev, warmup=0)
            plain_s = [a_s for (a_s, _), _ in pairs]
            spec_s = [b_s for _, (b_s, _) in pairs]
            stats = [b[1] for _, (_, b) in pairs]
            plain_step_s += [t / n_plain for t in plain_s]
            ratios = speedup_ratios(plain_s, spec_s, [s.emitted_total for s in stats], batch * n_plain)
            tau = float(np.mean([s.tau for s in stats]))
            accepted = torch.cat([torch.stack(s.accepted).flatten() for s in stats])
            checked = float(accepted.sum() + (accepted < k).sum())
            spec_rows.append({
                "kind": "spec", "mode": mode, "batch": batch, "k": k, "alpha": alpha, "q": k + 1,
                "context": graph_length or s0 + grid.spec_iterations * tau / 2,
                **_spread("measured_s", [t / grid.spec_iterations for t in spec_s]),  # one iteration
                "measured_tokens_per_s": quartiles([s.emitted_total / t for s, t in zip(stats, spec_s)])[1],
                "tau_measured": tau,
                "alpha_measured": float(accepted.sum()) / checked if checked else float("nan"),
                **_spread("measured_speedup", ratios),
                "draft_share": float(np.mean([s.draft_s / (s.draft_s + s.verify_s + s.other_s) for s in stats])),
            })
            bar.update(f"spec {mode} B={batch} k={k}" + (f" a={alpha}" if alpha is not None else ""))
        plain_row = {"kind": "plain", "batch": batch, "q": 1, "context": graph_length or s0 + n_plain / 2,
                     **_spread("measured_s", plain_step_s)}
        plain_row["measured_tokens_per_s"] = batch / plain_row["measured_s"]
        rows += [plain_row, *spec_rows]
        bar.update(f"plain B={batch}")
    return rows


# ---- comparison, table, plots ----

def predict_rows(rows: list[dict], hw: HardwareSpec, target: ModelSpec, draft: ModelSpec, dtype: str = "bf16",
                 costs: HarnessCosts | None = None) -> pd.DataFrame:
    """Add predicted_s_<form>, error_<form> (and speedup columns for spec rows) to the measured rows,
    weights and KV cache in `dtype` as the run had them.

    Forms: `engine` (the calibrated profile as the library uses it, with the harness's `costs`: a q > 1 pass's extra
    dispatch, speculation under loop_engine) and `classic` (without refinements or harness costs, the ideal engine).
    """
    df = pd.DataFrame(rows)
    for form, profile, form_costs in (("engine", hw, costs), ("classic", classic(hw), None)):
        pred, speed = [], []
        for row in df.itertuples():
            if row.kind == "spec":
                m = speculation(profile, target, draft, int(row.batch), float(row.context), int(row.k),
                                alpha_for_tau(row.tau_measured, int(row.k)), dtype, loop_engine(form_costs, row.mode, target, draft))
                pred.append(float(m["iteration_time_s"]))
                speed.append(float(m["speedup"]))
            else:
                pred.append(float(step_time_s(profile, target, int(row.batch), int(row.q), float(row.context), dtype, form_costs)))
                speed.append(float("nan"))
        df[f"predicted_s_{form}"] = pred
        df[f"error_{form}"] = df[f"predicted_s_{form}"] / df["measured_s"] - 1.0
        if "measured_speedup" in df:
            df[f"predicted_speedup_{form}"] = speed
            df[f"speedup_error_{form}"] = df[f"predicted_speedup_{form}"] / df["measured_speedup"] - 1.0
    df["tokens_in_flight"] = df["batch"] * df["q"]
    return df


def relative_spread(df: pd.DataFrame, column: str) -> pd.Series:
    """(75th - 25th percentile) / median of the repeats behind `column`, per row (a fraction)."""
    return (df[f"{column}_p75"] - df[f"{column}_p25"]) / df[column]


def summarize(df: pd.DataFrame, device: str, form: str = "engine") -> dict:
    """The summary: errors of step times (decode + verify) and of speedups at alpha >= 0.5 (fractions).

    alpha is the set alpha for controlled runs and the measured one for the natural drafter. Beside
    each median error: the interquartile range of the errors over the points (`*_iqr`: [25th, 75th
    percentile]) and the median spread of the repeats behind each point (`*_repeat_spread`:
    interquartile range over median of a point's repeats, or of its per-pair speedup ratios).
    """
    step_rows = df[df["kind"].isin(["decode", "verify"])]
    steps = step_rows[f"error_{form}"].abs()
    spec = df[df["kind"] == "spec"]
    alpha = spec["alpha"].where(spec["mode"] == "controlled", spec["alpha_measured"]).astype(float)
    spec = spec[alpha >= 0.5] if len(spec) else spec
    speed = spec[f"speedup_error_{form}"].abs() if len(spec) else pd.Series(dtype=float)

    def quantile(series: pd.Series, level: float) -> float:
        return round(float(series.quantile(level)), 4) if len(series) else float("nan")

    def iqr(series: pd.Series) -> list[float]:
        return [quantile(series, 0.25), quantile(series, 0.75)]

    return {
        "device": device,
        "points": int(len(df)),
        "median_abs_error": quantile(steps, 0.5),
        "abs_error_iqr": iqr(steps),
        "p90_abs_error": quantile(steps, 0.9),
        "max_abs_error": round(float(steps.max()), 4) if len(steps) else float("nan"),
        "step_time_repeat_spread": quantile(relative_spread(step_rows, "measured_s"), 0.5),
        "speedup_median_abs_error": quantile(speed, 0.5),
        "speedup_abs_error_iqr": iqr(speed),
        "speedup_repeat_spread": quantile(relative_spread(spec, "measured_speedup"), 0.5) if len(spec) else float("nan"),
        "fractions": True,
    }


def ablation(df: pd.DataFrame, hw: HardwareSpec, target: ModelSpec, dtype: str = "bf16",
             costs: HarnessCosts | None = None) -> pd.DataFrame:
    """Step-time errors (decode + verify) of the calibrated profile with each refinement switched off in turn, then
    without the harness's multi-token dispatch (with `costs`), then the classic form (none of them)."""
    steps = df[df["kind"].isin(["decode", "verify"])]
    variants = {"calibrated profile (all refinements)": (hw, costs)}
    variants.update({f"without {name}": (dataclasses.replace(hw, **change), costs) for name, change in REFINEMENTS.items()})
    if costs is not None:
        variants["without the multi-token pass's extra dispatch"] = (hw, None)
    variants["classic form (none of them)"] = (classic(hw), None)
    rows = []
    for label, (profile, form_costs) in variants.items():
        pred = step_time_s(profile, target, steps["batch"].to_numpy(), steps["q"].to_numpy(), steps["context"].to_numpy(), dtype,
                           form_costs)
        err = np.abs(pred / steps["measured_s"].to_numpy() - 1.0)
        rows.append({"form": label, "median_abs_error": round(float(np.median(err)), 4),
                     "p90_abs_error": round(float(np.quantile(err, 0.9)), 4), "max_abs_error": round(float(err.max()), 4)})
    return pd.DataFrame(rows)


# ---- plots, in the library's style ----

def _figure(ncols: int, width: float, height: float, legend_in: float):
    """A figure of `ncols` panels plus room for a legend at the right, on the Agg canvas (no pyplot)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width * ncols + legend_in, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig, list(fig.subplots(1, ncols, squeeze=False, sharey=False)[0])


def _plain_log_axis(ax, which: str) -> None:
    """Log scale with plain-number ticks (20, 50, 100; never 2x10^1): 1-2-5 steps, decades beyond three."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axis = ax.xaxis if which == "x" else ax.yaxis
    lo, hi = ax.get_xlim() if which == "x" else ax.get_ylim()
    decades = math.log10(hi / lo) if lo > 0 and hi > lo else 1.0
    subs = (1.0, 2.0, 3.0, 5.0) if decades <= 1.5 else (1.0, 2.0, 5.0) if decades <= 3 else (1.0,)
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def _legend_right(fig, axes) -> None:
    """One legend for all panels, outside the axes at the right (the panels' series share their labels)."""
    handles, labels = {}, []
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            if label not in handles:
                handles[label] = h
                labels.append(label)
    fig.legend([handles[label] for label in labels], labels, loc="outside right center")


def _save(fig, path: Path) -> None:
    fig.savefig(path, dpi=150, metadata={"Software": None})


def _suptitle(fig, text: str) -> None:
    """`text` as `fig`'s title, each of its lines wrapped to the figure's width (qa378: a run's notes, 'CUDA graphs;
    measured under load; profile calibrated under load', ran the title off both edges)."""
    from roofline.plots import _balanced_fill, title_chars

    fig.suptitle("\n".join(_balanced_fill(line, title_chars(fig)) for line in text.split("\n")))


def _plot_predicted_vs_measured(df: pd.DataFrame, path: Path, title: str) -> None:
    fig, (ax,) = _figure(1, 5.2, 4.8, 2.6)
    lo = min(df["measured_s"].min(), df["predicted_s_engine"].min(), df["predicted_s_classic"].min()) * 1e3 * 0.8
    hi = max(df["measured_s"].max(), df["predicted_s_engine"].max(), df["predicted_s_classic"].max()) * 1e3 * 1.25
    line = np.geomspace(lo, hi, 50)
    ax.fill_between(line, line * 0.8, line * 1.2, color="0.92", label="±20%")
    ax.fill_between(line, line * 0.9, line * 1.1, color="0.82", label="±10%")
    ax.plot(line, line, color="0.4", lw=1, label="predicted = measured")
    markers = {"decode": "o", "verify": "s", "spec": "^", "plain": "D"}
    for i, (kind, g) in enumerate(df.groupby("kind")):
        ax.scatter(g["measured_s"] * 1e3, g["predicted_s_classic"] * 1e3, marker=markers[kind], facecolors="none",
                   edgecolors="tab:gray", s=30)
        ax.scatter(g["measured_s"] * 1e3, g["predicted_s_engine"] * 1e3, marker=markers[kind], s=30, color=f"C{i}", label=f"{kind}: calibrated profile")
    ax.plot([], [], "o", ls="", markerfacecolor="none", markeredgecolor="tab:gray", label="hollow: classic max form")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    _plain_log_axis(ax, "x")
    _plain_log_axis(ax, "y")
    ax.set_xlabel("measured time per pass or iteration (ms)")
    ax.set_ylabel("predicted time (ms)")
    ax.set_aspect("equal")
    _legend_right(fig, [ax])
    _suptitle(fig, f"{title}: predicted against measured")
    _save(fig, path)


def _free_height(ax, x: float, left_of: bool, heights=(0.97, 0.6, 0.25)) -> float:
    """The top (axes fraction) of the first of `heights` where a two-line label beside the vertical line at data x (to
    its left when `left_of`) covers none of the axes' points or curve samples, else the one covering fewest: on a GPU
    every pass takes about the same time and the measured points sit where the label stood (session 41)."""
    to_axes = ax.transAxes.inverted()
    xy = np.concatenate([to_axes.transform(ax.transData.transform(line.get_xydata())) for line in ax.get_lines()
                         if len(line.get_xdata())] or [np.empty((0, 2))])
    edge = to_axes.transform(ax.transData.transform((x, 1.0)))[0]
    side = (xy[:, 0] <= edge) & (xy[:, 0] >= edge - 0.35) if left_of else (xy[:, 0] >= edge) & (xy[:, 0] <= edge + 0.35)
    covered = [int(np.sum(side & (xy[:, 1] <= top + 0.02) & (xy[:, 1] >= top - 0.14))) for top in heights]
    return heights[int(np.argmin(covered))]


def _plot_step_vs_tokens(df: pd.DataFrame, hw: HardwareSpec, target: ModelSpec, path: Path, dtype: str, title: str,
                         costs: HarnessCosts | None = None) -> None:
    from matplotlib.lines import Line2D

    steps = df[df["kind"].isin(["decode", "verify"])]
    contexts = sorted(steps["context"].unique())
    fig, axes = _figure(len(contexts), 4.6, 4.2, 2.8)
    # FLOP/byte of the weight GEMMs: 2 FLOPs per weight per token over BYTES_PER_ELEMENT[dtype] bytes per weight
    ridge = hw.ridge_point_flops_per_byte(dtype, derated=True) * BYTES_PER_ELEMENT[dtype] / 2.0  # in tokens
    for ax, context in zip(axes, contexts):
        g = steps[steps["context"] == context]
        series = [("decode (q = 1, B varies)", g[g["kind"] == "decode"], "batch", 1)]
        series += [(f"verify B = {b} (q varies)", g[(g["kind"] == "verify") & (g["batch"] == b)], "q", b)
                   for b in sorted(g[g["kind"] == "verify"]["batch"].unique())]
        for i, (label, s, axis, fixed) in enumerate(series):
            if s.empty:
                continue
            color = f"C{i}"
            s = s.sort_values("tokens_in_flight")
            ms = s["measured_s"] * 1e3
            ax.errorbar(s["tokens_in_flight"], ms, yerr=[ms - s["measured_s_p25"] * 1e3, s["measured_s_p75"] * 1e3 - ms],
                        fmt="o", ms=4, color=color, label=label)
            dense = np.unique(np.round(np.geomspace(s[axis].min(), s[axis].max(), 40)))
            b, q = (dense, 1) if axis == "batch" else (fixed, dense)
            pred = step_time_s(hw, target, b, q, context, dtype, costs)
            ax.plot(np.asarray(b) * np.asarray(q), pred * 1e3, "-", color=color)
            old = step_time_s(classic(hw), target, b, q, context, dtype)
            ax.plot(np.asarray(b) * np.asarray(q), old * 1e3, ":", color=color, lw=1)
        ax.axvline(ridge, color="0.5", ls="--", lw=1)
        ax.set_xscale("log")
        ax.set_yscale("log")
        lo, hi = ax.get_xlim()
        right = ridge > math.sqrt(lo * hi)  # label on the side of the line with more room, inside the axes
        ax.text(ridge, _free_height(ax, ridge, right), f"derated GEMM ridge \n≈ {ridge:.0f} tokens " if right
                else f" derated GEMM ridge\n ≈ {ridge:.0f} tokens", va="top", ha="right" if right else "left", color="0.3",
                transform=ax.get_xaxis_transform())
        _plain_log_axis(ax, "x")
        _plain_log_axis(ax, "y")
        ax.set_xlabel("tokens in flight per pass, B × q")
        ax.set_ylabel("time per pass (ms)")
        ax.set_title(f"context S = {int(context)}")
    axes[0].plot([], [], "k-", label="predicted, calibrated profile")
    axes[0].plot([], [], "k:", lw=1, label="predicted, classic max form")
    axes[0].add_line(Line2D([], [], color="k", marker="o", ls="", label="measured (bars: 25th-75th percentile)"))
    _legend_right(fig, axes)
    _suptitle(fig, f"{title}: step time against tokens in flight")
    _save(fig, path)


def _plot_speedup(df: pd.DataFrame, hw: HardwareSpec, target: ModelSpec, draft: ModelSpec, path: Path, dtype: str, title: str,
                  costs: HarnessCosts | None = None) -> None:
    spec = df[df["kind"] == "spec"]
    if spec.empty:
        return
    batches = sorted(spec["batch"].unique())
    fig, axes = _figure(len(batches), 4.4, 4.0, 3.0)
    alphas = np.linspace(0.3, 0.99, 60)
    for ax, batch in zip(axes, batches):
        g = spec[spec["batch"] == batch]
        for i, k in enumerate(sorted(g["k"].unique())):
            s = g[g["k"] == k]
            k, context = int(k), float(s["context"].mean())
            # the curve of controlled alpha (its loop's costs): the natural drafter's differ by its draw per draft step
            curve = speculation(hw, target, draft, int(batch), context, k, alphas, dtype,
                                loop_engine(costs, "controlled", target, draft))["speedup"]
            ax.plot(alphas, curve, "-", color=f"C{i}", lw=1,
                    label=f"k = {k}: predicted, tau(alpha, k)" + (" (controlled mode's loop)" if costs is not None else ""))
            # at the alpha whose tau(alpha, k) is the run's tau, the one the prediction was computed at: the share of
            # drafts accepted (alpha_measured) differs from it over a few iterations, and put the crosses off the curve
            x = s["tau_measured"].map(lambda tau, k=k: alpha_for_tau(tau, k))
            for mode, marker, ms, what in (("controlled", "o", 5, "controlled alpha"), ("natural", "*", 10, "natural drafter")):
                chosen = s["mode"] == mode
                m = s[chosen]
                sp = m["measured_speedup"]
                ax.errorbar(x[chosen], sp, yerr=[sp - m["measured_speedup_p25"], m["measured_speedup_p75"] - sp],
                            fmt=marker, ms=ms, color=f"C{i}", label=f"k = {k}: measured ({what})")
            ax.plot(x, s["predicted_speedup_engine"], "x", ms=7, color=f"C{i}", label=f"k = {k}: predicted at the run's tau")
        ax.axhline(1.0, color="0.5", lw=1)
        ax.set_xlabel("acceptance rate alpha whose tau(alpha, k) is the run's tau")
        ax.set_ylabel("speedup over plain greedy decoding (×)")
        ax.set_title(f"batch {int(batch)}, context about {SPEC_CONTEXT}")
    ymin = min(ax.get_ylim()[0] for ax in axes)
    ymax = max(ax.get_ylim()[1] for ax in axes)
    for ax in axes:
        ax.set_ylim(ymin, ymax)
    _legend_right(fig, axes)
    _suptitle(fig, f"{title} with its {draft.layers}-layer drafter: speculative speedup\n"
                 "measured: median of interleaved pairs, bars 25th-75th percentile")
    _save(fig, path)


def _markdown(df: pd.DataFrame, summary: dict, summary_classic: dict, ablated: pd.DataFrame) -> str:
    cols = ["kind", "mode", "batch", "q", "k", "alpha", "context", "measured_s", "measured_s_iqr", "predicted_s_engine",
            "error_engine", "predicted_s_classic", "error_classic", "tau_measured", "alpha_measured", "measured_speedup",
            "measured_speedup_iqr", "predicted_speedup_engine", "speedup_error_engine"]
    table = df.copy()
    for c in ("measured_s", "measured_s_p25", "measured_s_p75", "predicted_s_engine", "predicted_s_classic"):
        table[c] = table[c] * 1e3

    def iqr(prefix: str) -> pd.Series:
        if f"{prefix}_p25" not in table:
            return pd.Series("", index=table.index)
        lo, hi = table[f"{prefix}_p25"], table[f"{prefix}_p75"]
        return pd.Series([f"{a:.3g}–{b:.3g}" if not math.isnan(a) else "" for a, b in zip(lo, hi)], index=table.index)

    table["measured_s_iqr"] = iqr("measured_s")
    table["measured_speedup_iqr"] = iqr("measured_speedup")
    table = table[[c for c in cols if c in table]]
    table = table.rename(columns={c: c.replace("_s", "_ms", 1) for c in ("measured_s", "measured_s_iqr", "predicted_s_engine",
                                                                        "predicted_s_classic")})

    def cell(v) -> str:
        if isinstance(v, float):
            if math.isnan(v):
                return ""
            return f"{int(v)}" if v.is_integer() and abs(v) < 1e15 else f"{v:.3g}"  # a context of 1024, not 1.02e+03
        return str(v)

    load, cores = summary.get("load_average_at_start"), summary.get("cores") or 1
    busy = ([f"**Measured under load**: the load average was {load:.1f} before the run and "
             f"{summary.get('load_average_at_end') or 0:.1f} at its end (its own work included) on {cores} cores: other work "
             "shared the machine, so "
             "the timings (and the calibration they are predicted from) are slower and noisier than on an idle one; run it "
             "again on a quiet machine before reading the errors.", ""]
            if under_load(summary) else []) + (
        ["**Profile calibrated under load**: the hardware profile's own calibration ran beside other work (its "
         "measured_load_average), so its efficiencies and overheads describe a busy machine; calibrate again on a quiet "
         "one before reading the errors.", ""] if summary.get("profile_calibrated_under_load") else [])
    return "\n".join([
        "# Validation: predicted against measured", "", *busy,
        "Errors are fractions (0.1 is 10%): predicted / measured - 1. Times per pass (decode, verify, plain) or per",
        "speculative iteration (spec), in ms. Each measured value is a median of repeats; `*_iqr` is the 25th-75th",
        "percentile of those repeats. A speedup is the median of per-pair ratios: a plain greedy run and the speculative",
        "run timed back to back (A, B, A, B, ...).", "",
        *(["Every forward pass was replayed from a CUDA graph (`--cuda-graphs`), as serving engines run decode; the",
           "speculative loop's work between its passes ran eagerly.", ""] if summary.get("cuda_graphs") else []),
        f"Errors with the calibrated profile: `{json.dumps(summary)}`", "",
        f"Classic max form (same profile, no refinements): `{json.dumps(summary_classic)}`", "",
        "Ablation (step times, decode + verify):", "",
        "| form | median abs error | p90 abs error | max abs error |", "|---|---|---|---|",
        *[f"| {r.form} | {r.median_abs_error} | {r.p90_abs_error} | {r.max_abs_error} |" for r in ablated.itertuples()], "",
        "| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns),
        *["| " + " | ".join(cell(v) for v in row) + " |" for row in table.itertuples(index=False)], "",
    ])


def run_validate(device: str = "cpu", quick: bool = False, out_dir: Path = Path("out/validate"), progress: bool = True,
                 hardware: HardwareSpec | None = None, dtype: str = "bf16", shown_dir: Path | None = None,
                 cuda_graphs: bool = False) -> dict:
    """Measure, predict, compare; write the table, plots and JSON into out_dir; return the summary.

    Weights, KV cache and activations in `dtype` ('bf16' or 'fp32'), measured and predicted alike.
    Without `hardware`, calibrates first in the same dtype (a shorter calibration with `quick`) and
    writes the profile to out_dir/hardware-measured.yaml (named in messages as in `shown_dir` where out_dir is a staging
    folder for it). With `cuda_graphs` (a CUDA device only) every forward pass, calibration's tiny ones included,
    replays a CUDA graph (decoder.cuda_graphs), as serving engines run decode and verify; the speculative loop's own
    work between its passes stays eager, as theirs does. Raises RooflineError when torch is missing,
    the requested device is absent or (bf16) has no bf16 units, or `cuda_graphs` is asked of a CPU.
    """
    torch, dev = setup_runtime(device, dtype)
    check_cuda_graphs(cuda_graphs, dev)
    from roofline.harness.decoder import build_decoder, fill_kv_cache_random, first_layers_spec, new_kv_cache, truncate
    from roofline.harness.decoder import cuda_graphs as graphs
    from roofline.harness.specloop import MODES, harness_costs

    start = time.perf_counter()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    grid = grid_for(quick, dtype)
    calibrated_here = hardware is None
    # the machine's load before this run adds its own: after calibrating, the 1-minute average holds the calibration's
    # threads, and every run that calibrates first read as measured under load (qa84)
    busy, load_at_start = busy_machine_note(), load_average()
    mismatch = (f"the profile {hardware.name} is a {hardware.kind} profile, and this runs on the {device}: its predictions "
                f"describe another machine" if hardware is not None and (hardware.kind == "cpu") != (device == "cpu") else "")
    graphed = None if hardware is None else hardware.extra.get("measured_cuda_graphs")  # how its overheads were timed
    other_mode = ""
    if graphed is not None and bool(graphed) != cuda_graphs:
        other_mode = (f"the profile {hardware.name} was calibrated {'with' if graphed else 'without'} CUDA graphs, and "
                      f"this run {'replays' if cuda_graphs else 'does not replay'} them: its overheads describe other "
                      f"passes (calibrate {'with' if cuda_graphs else 'without'} --cuda-graphs for this run)")
    if hardware is None:
        profile = run_calibrate(device, seconds_budget=grid.calibrate_budget_s, progress=progress, dtype=dtype,
                                cuda_graphs=cuda_graphs)
        path = out_dir / "hardware-measured.yaml"
        profile["name"] = path.stem  # the file's name, as every profile file carries
        path.write_text(profile_to_yaml(profile), encoding="utf-8")
        # its warnings name the file where it ends up (`shown_dir`: the output folder `out_dir` is staged for; qa113:
        # a warning named the staging folder, gone once the run ended)
        hardware = hardware_from_dict(profile, str(Path(shown_dir or out_dir) / path.name))
    target_spec, draft_spec = load_model(TARGET), load_model(DRAFT)
    if grid.target_layers is not None:
        target_spec = first_layers_spec(target_spec, grid.target_layers)
    same = ("hidden_size", "heads", "kv_heads", "head_dim", "ffn_size", "vocab_size", "tied_embeddings")
    if any(getattr(target_spec, f) != getattr(draft_spec, f) for f in same) or draft_spec.layers >= target_spec.layers:
        raise RooflineError(f"{DRAFT}: expected the first layers of {TARGET} (same shapes, fewer layers)")

    n_spec = len(grid.spec_batches) * (1 + len(grid.spec_k) * (len(grid.spec_alphas) + 1))
    n_steps = len(grid.decode_batches) * len(grid.decode_contexts) + len(grid.verify_batches) * len(grid.verify_q) * len(grid.verify_contexts)
    bar = Progress(n_steps + n_spec, progress)
    calibrated_busy = calibrated_under_load_note(hardware)
    for note in (busy, mismatch, other_mode, calibrated_busy):
        if note:
            bar.note(f"warning: {note}")
    model = build_decoder(target_spec, dtype=torch_dtype(torch, dtype), device=dev, seed=0)
    draft = truncate(model, draft_spec.layers)
    b_max = max(grid.decode_batches + grid.verify_batches + grid.spec_batches)
    spec_length = SPEC_CONTEXT + (grid.spec_iterations + 1) * (max(grid.spec_k) + 1) + 2
    max_len = max(max(grid.decode_contexts) + 1, max(grid.verify_contexts) + max(grid.verify_q), spec_length) + 8
    cache = new_kv_cache(model, b_max, max_len)
    fill_kv_cache_random(cache, max_len)
    spec_b = max(grid.spec_batches)
    draft_cache = new_kv_cache(draft, spec_b, max_len)
    draft_cache.k.copy_(cache.k[: draft_spec.layers, :spec_b])  # the drafter's layers saw the same context
    draft_cache.v.copy_(cache.v[: draft_spec.layers, :spec_b])
    bar.note(f"{target_spec.name}: {model.weight_bytes() / 1e9:.2f} GB of {dtype} weights, KV cache "
             f"{2 * cache.k.numel() * cache.k.element_size() / 1e9:.2f} GB; {bar.total} points")

    bar.note(f"measuring the harness's own costs at tiny width ({HARNESS_COST_ROUNDS} rounds: about 7 s on 2 CPU cores, "
             "20 s on an H200, whose eager passes are dispatch)")
    with graphs(enabled=cuda_graphs):
        costs = harness_costs(torch, dev, torch_dtype(torch, dtype), grid.spec_iterations, rounds=HARNESS_COST_ROUNDS)
    bar.note("the harness beyond its passes' calibrated price (tiny width, batch 1): a pass of q > 1 tokens "
             f"{format_seconds(costs.multi_token_fixed_s)} + {format_seconds(costs.multi_token_per_layer_s)} a layer; the "
             "speculative loop " + "; ".join(f"{mode} {format_seconds(costs.per_iteration_s[mode])} an iteration + "
                                             f"{format_seconds(costs.per_draft_step_s[mode])} a draft step" for mode in MODES))
    rows = measure_steps(torch, dev, model, cache, grid, bar, cuda_graphs)
    # a graph's shapes are fixed: a speculative run's passes read the cache up to the last position its runs reach
    with graphs(spec_length, enabled=cuda_graphs):
        rows += measure_speculation(torch, dev, model, draft, cache, draft_cache, grid, bar, spec_length if cuda_graphs else None)
    df = predict_rows(rows, hardware, target_spec, draft_spec, dtype, costs)
    summary = summarize(df, device)
    summary.update(dtype=dtype, model=target_spec.name, speedup_pairs=grid.spec_pairs, hardware=hardware.name,
                   hardware_display_name=hardware.display_name, calibrated_here=calibrated_here,  # which profile predicted
                   cuda_graphs=cuda_graphs)
    summary["harness_costs_s"] = {
        "multi_token_pass": {"fixed": round(costs.multi_token_fixed_s, 7), "per_layer": round(costs.multi_token_per_layer_s, 7)},
        **{f"loop_{mode}": {"per_iteration": round(costs.per_iteration_s[mode], 7),
                            "per_draft_step": round(costs.per_draft_step_s[mode], 7),
                            **{f"outside_k{k}": round(v, 7) for (m, k), v in costs.outside_s.items() if m == mode}}
           for mode in MODES}}
    summary_classic = summarize(df, device, "classic")
    summary["classic_max_form"] = {k: summary_classic[k] for k in ("median_abs_error", "p90_abs_error", "max_abs_error", "speedup_median_abs_error")}
    summary["seconds"] = round(time.perf_counter() - start, 1)
    summary.update(load_average_at_start=load_at_start, load_average_at_end=load_average(), cores=os.cpu_count(),  # a busy
                   threads=torch.get_num_threads() if dev.type == "cpu" else 1, profile_calibrated_under_load=bool(calibrated_busy))
    # machine's measurements come out slower and noisier: said in summary.json and validation.md beside the errors
    write_outputs(df, summary, summary_classic, hardware, target_spec, draft_spec, out_dir, dtype, costs)
    return summary


def calibrated_under_load_note(hardware: HardwareSpec) -> str:
    """A calibrated profile's own load (calibrate's measured_load_average at its end, less its measured_threads: qa269,
    errors of 200% against a profile calibrated at load 2.49 on 2 cores, validate saying the run was quiet), or ''."""
    # calibrate writes /proc/loadavg's field as text ('2.49', quoted in the YAML; qa274: only a float was read) or
    # 'unknown'; the cores are this machine's, which calibrated it where validate reuses its profile
    try:
        load = float(hardware.extra.get("measured_load_average"))
        threads = int(hardware.extra.get("measured_threads") or 0)
    except (TypeError, ValueError):
        return ""
    cores = os.cpu_count() or 1
    if not math.isfinite(load) or load - threads < 0.5 * cores:
        return ""
    return (f"the profile {hardware.name} was calibrated at a load average of {load:g} on {cores} cores, {threads} of it "
            "its own threads: other work shared the machine, its efficiencies and overheads describe a busy one, and the "
            "errors against this run measure that too (calibrate again on a quiet machine)")


def under_load(summary: dict) -> bool:
    """Whether other work shared the machine: a load average of at least half its cores when the run began, or at its
    end less the run's own threads (`threads`: its CPU threads, 1 on a GPU; the 1-minute average then holds them):
    neighbours that arrived mid-run (qa113: 0.91 at the start, 4.18 at the end of a 2-thread run on 2 cores, read as
    quiet)."""
    cores = summary.get("cores") or 1
    start, end = summary.get("load_average_at_start"), summary.get("load_average_at_end")
    own = summary.get("threads") or 0
    return (start is not None and start >= 0.5 * cores) or (end is not None and end - own >= 0.5 * cores)


def write_outputs(df: pd.DataFrame, summary: dict, summary_classic: dict, hw: HardwareSpec, target: ModelSpec,
                  draft: ModelSpec, out_dir: Path, dtype: str = "bf16", costs: HarnessCosts | None = None) -> None:
    """validation.csv, validation.md, the three plots (library style) and summary.json into out_dir; the summary takes
    `measured_under_load` (under_load), one flag a script reading the JSON line cannot miss (qa88: errors of 72% and
    101% measured under load read as results)."""
    summary["measured_under_load"] = under_load(summary)
    df.to_csv(out_dir / "validation.csv", index=False)  # before the plots' imports: a run's measurements kept (qa269)
    from matplotlib import rc_context

    from roofline.plots import STYLE

    ablated = ablation(df, hw, target, dtype, costs)
    notes = [note for note, on in (("CUDA graphs", summary.get("cuda_graphs")), ("measured under load", summary["measured_under_load"]),
                                   ("profile calibrated under load", summary.get("profile_calibrated_under_load"))) if on]
    title = f"{target.name}, {dtype}" + (f" ({'; '.join(notes)})" if notes else "")  # on the
    # figures too: viewed alone, a busy machine's errors read as the model's (qa101)
    (out_dir / "validation.md").write_text(_markdown(df, summary, summary_classic, ablated), encoding="utf-8")
    with rc_context(STYLE):
        _plot_predicted_vs_measured(df, out_dir / PLOT_FILES[0], title)
        _plot_step_vs_tokens(df, hw, target, out_dir / PLOT_FILES[1], dtype, title, costs)
        _plot_speedup(df, hw, target, draft, out_dir / PLOT_FILES[2], dtype, title, costs)
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
