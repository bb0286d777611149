"""Validation: run the real PyTorch decoder and speculative loop, predict every point, compare.

Measured (bf16 weights and KV cache, every point the median of repeats after warm-up):
    decode   one decode step (q = 1) over batch sizes B and contexts S
    verify   one verification pass of q = k + 1 tokens over B at S
    spec     end-to-end speculative decoding (the real loop of roofline.specloop: a 2-layer drafter,
             controlled acceptance over alpha and natural acceptance) over k and B: tokens/s, the
             time of one iteration, and the speedup over plain greedy decoding of the same sequences
    plain    that plain greedy baseline (median step time while producing the reference tokens)
Predicted with the calibrated hardware profile and the same model profiles
(model_profiles/validation-small.yaml, validation-draft.yaml) by the library itself:
    step times    roofline.engine.step_metrics
    speculation   roofline.speculation.speculative_metrics (method draft), at the alpha whose
                  tau(alpha, k) equals the tokens each sequence actually emitted per iteration
                  (controlled mode samples acceptance, so a run's tau scatters around
                  tau(alpha, k); it is the timing model that is validated here)
and, for comparison, by the classic form: the same profile without its refinements (max of compute
and memory time, GEMM ceilings for every operator, no per-layer overhead). `ablation` switches the
refinements off one at a time. Each error is predicted / measured - 1 (a fraction: 0.1 is 10%).

Outputs in out_dir: validation.csv (the table), validation.md (summary, ablation, table),
summary.json, hardware-measured.yaml (when calibrated here), predicted_vs_measured.png,
step_time_vs_tokens.png, speedup.png.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from roofline.calibrate import median_time_s, profile_to_yaml, run_calibrate, setup_runtime
from roofline.engine import step_metrics
from roofline.errors import RooflineError
from roofline.hardware import HardwareSpec, hardware_from_dict
from roofline.model import ModelSpec, load_model
from roofline.speculation import speculative_metrics, tau_scalar_alpha

TARGET, DRAFT = "validation-small", "validation-draft"
WEIGHT_DTYPE = KV_DTYPE = "bf16"
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
    spec_repeats: int
    calibrate_budget_s: float


QUICK = Grid(
    decode_batches=(1, 4, 16, 32), decode_contexts=(256, 1024),
    verify_batches=(1, 4, 16), verify_q=(2, 3, 5, 9), verify_contexts=(256,),
    spec_batches=(1, 4), spec_k=(2, 4), spec_alphas=(0.5, 0.7, 0.9),
    spec_iterations=8, repeats=7, spec_repeats=3, calibrate_budget_s=40,
)
FULL = Grid(
    decode_batches=(1, 2, 4, 8, 16, 32, 64), decode_contexts=(128, 512, 1024, 2048),
    verify_batches=(1, 2, 4, 8, 16, 32), verify_q=(2, 3, 4, 5, 7, 9), verify_contexts=(256, 1024),
    spec_batches=(1, 4, 16), spec_k=(1, 2, 4, 6), spec_alphas=(0.3, 0.5, 0.7, 0.8, 0.9, 1.0),
    spec_iterations=12, repeats=7, spec_repeats=3, calibrate_budget_s=100,
)


# ---- prediction ----

REFINEMENTS = {
    "overlap": {"overlap_exponent": None},
    "attention ceilings": {"attention_compute_flops_per_s": None, "attention_memory_bytes_per_s": None},
    "elementwise ceiling": {"elementwise_memory_bytes_per_s": None},
    "layer overhead": {"layer_overhead_s": 0.0},
}


def classic(hw: HardwareSpec) -> HardwareSpec:
    """The profile without its refinements: the max form, GEMM ceilings for every operator, no per-layer overhead."""
    return dataclasses.replace(hw, **{k: v for change in REFINEMENTS.values() for k, v in change.items()})


def step_time_s(hw: HardwareSpec, model: ModelSpec, batch, q, context):
    """roofline.engine.step_metrics(...)['step_time_s'] for bf16 weights and KV cache."""
    return step_metrics(hw, model, batch, q, context, WEIGHT_DTYPE, KV_DTYPE)["step_time_s"]


def alpha_for_tau(tau: float, k: int) -> float:
    """The scalar alpha whose tau(alpha, k) = (1 - alpha^(k+1)) / (1 - alpha) equals tau (bisection)."""
    tau = min(max(tau, 1.0), k + 1.0)
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if float(tau_scalar_alpha(mid, k)) < tau else (lo, mid)
    return (lo + hi) / 2


def speculation(hw: HardwareSpec, target: ModelSpec, draft: ModelSpec, batch, context, k, alpha) -> dict:
    """roofline.speculation.speculative_metrics for the drafter of the real loop (method draft)."""
    return speculative_metrics(hw, target, batch, context, k, alpha, method="draft", draft=draft,
                               weight_dtype=WEIGHT_DTYPE, kv_dtype=KV_DTYPE)


# ---- measurement ----

class Progress:
    """A one-line progress bar on stderr: [#####-----] 12/36 verify B=4 q=5 S=256  1:23."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.done, self.enabled, self.start = total, 0, enabled, time.perf_counter()

    def update(self, label: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        width = 24
        filled = int(width * self.done / max(self.total, 1))
        elapsed = int(time.perf_counter() - self.start)
        line = f"\rvalidate [{'#' * filled}{'-' * (width - filled)}] {self.done}/{self.total} {label:<34} {elapsed // 60}:{elapsed % 60:02d}"
        print(line, end="\n" if self.done >= self.total else "", file=sys.stderr, flush=True)

    def note(self, text: str) -> None:
        if self.enabled:
            print(f"validate: {text}", file=sys.stderr, flush=True)


def _tokens(torch, shape, vocab, seed, dev):
    return torch.randint(0, vocab, shape, generator=torch.Generator().manual_seed(seed)).to(dev)


def measure_steps(torch, dev, model, cache, grid: Grid, bar: Progress) -> list[dict]:
    """Decode and verify step times (median of repeats after warm-up) over the grid."""
    from roofline.decoder import decode_one_token, verify

    vocab, rows = model.spec.vocab_size, []
    for context in grid.decode_contexts:
        for batch in grid.decode_batches:
            view, tok = cache.first(batch), _tokens(torch, (batch,), vocab, batch, dev)
            pos = torch.full((batch,), context, dtype=torch.long, device=dev)
            seconds = median_time_s(functools.partial(decode_one_token, model, view, tok, pos), dev, grid.repeats, warmup=2)
            rows.append({"kind": "decode", "batch": batch, "q": 1, "context": context, "measured_s": seconds})
            bar.update(f"decode B={batch} S={context}")
    for context in grid.verify_contexts:
        for batch in grid.verify_batches:
            for q in grid.verify_q:
                view, tok = cache.first(batch), _tokens(torch, (batch, q), vocab, batch * q, dev)
                pos = torch.full((batch,), context, dtype=torch.long, device=dev)
                seconds = median_time_s(functools.partial(verify, model, view, tok, pos), dev, grid.repeats, warmup=2)
                rows.append({"kind": "verify", "batch": batch, "q": q, "context": context, "measured_s": seconds})
                bar.update(f"verify B={batch} q={q} S={context}")
    return rows


def measure_speculation(torch, dev, model, draft, cache, draft_cache, grid: Grid, bar: Progress) -> list[dict]:
    """Plain greedy baseline and the speculative loop (controlled over alpha, natural) per batch and k."""
    from roofline.decoder import decode_one_token, synchronize
    from roofline.specloop import speculative_decode

    vocab, rows, s0 = model.spec.vocab_size, [], SPEC_CONTEXT
    k_max = max(grid.spec_k)
    for batch in grid.spec_batches:
        view, dview = cache.first(batch), draft_cache.first(batch)
        prev = _tokens(torch, (batch,), vocab, 1000 + batch, dev)
        cur0 = _tokens(torch, (batch,), vocab, 2000 + batch, dev)
        start = torch.full((batch,), s0, dtype=torch.long, device=dev)
        # plain greedy decoding from the same state: the baseline's step times and the reference continuation
        n_ref = grid.spec_iterations * (k_max + 1) + k_max + 1
        ref, step_s, cur, pos = [], [], cur0, start.clone()
        for _ in range(n_ref):
            t0 = time.perf_counter()
            cur = decode_one_token(model, view, cur, pos)
            synchronize(dev)
            step_s.append(time.perf_counter() - t0)
            ref.append(cur)
            pos = pos + 1
        reference = torch.stack(ref, 1)
        plain_step_s = statistics.median(step_s[2:])
        plain_context = s0 + n_ref / 2
        rows.append({"kind": "plain", "batch": batch, "q": 1, "context": plain_context, "measured_s": plain_step_s,
                     "measured_tokens_per_s": batch / plain_step_s})
        bar.update(f"plain B={batch}")
        configs = [(k, "controlled", a) for k in grid.spec_k for a in grid.spec_alphas] + [(k, "natural", None) for k in grid.spec_k]
        for k, mode, alpha in configs:
            runs = []
            seed = 7919 * batch + 101 * k + int(100 * (alpha or 0))
            for r in range(grid.spec_repeats + 1):  # the first run is the warm-up
                t0 = time.perf_counter()
                # the same seed every repeat: every repeat accepts the same tokens, only the timing varies
                _, stats = speculative_decode(model, draft, view, dview, prev, cur0, start, k, grid.spec_iterations * (k + 1),
                                              mode=mode, alpha=alpha, reference=reference, seed=seed,
                                              iterations=grid.spec_iterations)
                synchronize(dev)
                if r:
                    runs.append((time.perf_counter() - t0, stats))
            seconds = [t for t, _ in runs]
            tok_s = statistics.median(s.emitted_total / t for t, s in runs)
            tau = statistics.fmean(s.tau for _, s in runs)
            accepted = torch.cat([torch.stack(s.accepted).flatten() for _, s in runs])
            checked = float(accepted.sum() + (accepted < k).sum())
            rows.append({
                "kind": "spec", "mode": mode, "batch": batch, "k": k, "alpha": alpha, "q": k + 1,
                "context": s0 + grid.spec_iterations * tau / 2,
                "measured_s": statistics.median(seconds) / grid.spec_iterations,  # one iteration
                "measured_tokens_per_s": tok_s, "tau_measured": tau,
                "alpha_measured": float(accepted.sum()) / checked if checked else float("nan"),
                "measured_speedup": tok_s / (batch / plain_step_s),
                "draft_share": statistics.fmean(s.draft_s / (s.draft_s + s.verify_s + s.other_s) for _, s in runs),
            })
            bar.update(f"spec {mode} B={batch} k={k}" + (f" a={alpha}" if alpha is not None else ""))
    return rows


# ---- comparison, table, plots ----

def predict_rows(rows: list[dict], hw: HardwareSpec, target: ModelSpec, draft: ModelSpec) -> pd.DataFrame:
    """Add predicted_s_<form>, error_<form> (and speedup columns for spec rows) to the measured rows.

    Forms: `engine` (the calibrated profile as the library uses it) and `classic` (without refinements).
    """
    df = pd.DataFrame(rows)
    for form, profile in (("engine", hw), ("classic", classic(hw))):
        pred, speed = [], []
        for row in df.itertuples():
            if row.kind == "spec":
                m = speculation(profile, target, draft, int(row.batch), float(row.context), int(row.k),
                                alpha_for_tau(row.tau_measured, int(row.k)))
                pred.append(float(m["iteration_time_s"]))
                speed.append(float(m["speedup"]))
            else:
                pred.append(float(step_time_s(profile, target, int(row.batch), int(row.q), float(row.context))))
                speed.append(float("nan"))
        df[f"predicted_s_{form}"] = pred
        df[f"error_{form}"] = df[f"predicted_s_{form}"] / df["measured_s"] - 1.0
        if "measured_speedup" in df:
            df[f"predicted_speedup_{form}"] = speed
            df[f"speedup_error_{form}"] = df[f"predicted_speedup_{form}"] / df["measured_speedup"] - 1.0
    df["tokens_in_flight"] = df["batch"] * df["q"]
    return df


def summarize(df: pd.DataFrame, device: str, form: str = "engine") -> dict:
    """The summary: errors of step times (decode + verify) and of speedups at alpha >= 0.5 (fractions).

    alpha is the set alpha for controlled runs and the measured one for the natural drafter.
    """
    steps = df[df["kind"].isin(["decode", "verify"])][f"error_{form}"].abs()
    spec = df[df["kind"] == "spec"]
    alpha = spec["alpha"].where(spec["mode"] == "controlled", spec["alpha_measured"]).astype(float)
    speed = spec[alpha >= 0.5][f"speedup_error_{form}"].abs() if len(spec) else pd.Series(dtype=float)

    def quantile(series: pd.Series, level: float) -> float:
        return round(float(series.quantile(level)), 4) if len(series) else float("nan")

    return {
        "device": device,
        "points": int(len(df)),
        "median_abs_error": quantile(steps, 0.5),
        "p90_abs_error": quantile(steps, 0.9),
        "max_abs_error": round(float(steps.max()), 4) if len(steps) else float("nan"),
        "speedup_median_abs_error": quantile(speed, 0.5),
        "fractions": True,
    }


def ablation(df: pd.DataFrame, hw: HardwareSpec, target: ModelSpec) -> pd.DataFrame:
    """Step-time errors (decode + verify) of the calibrated profile with each refinement switched off in turn."""
    steps = df[df["kind"].isin(["decode", "verify"])]
    variants = {"calibrated profile (all refinements)": hw}
    variants.update({f"without {name}": dataclasses.replace(hw, **change) for name, change in REFINEMENTS.items()})
    variants["classic form (none of them)"] = classic(hw)
    rows = []
    for label, profile in variants.items():
        pred = step_time_s(profile, target, steps["batch"].to_numpy(), steps["q"].to_numpy(), steps["context"].to_numpy())
        err = np.abs(pred / steps["measured_s"].to_numpy() - 1.0)
        rows.append({"form": label, "median_abs_error": round(float(np.median(err)), 4),
                     "p90_abs_error": round(float(np.quantile(err, 0.9)), 4), "max_abs_error": round(float(err.max()), 4)})
    return pd.DataFrame(rows)


def _plot_predicted_vs_measured(df: pd.DataFrame, path: Path) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 5.6))
    lo = min(df["measured_s"].min(), df["predicted_s_engine"].min(), df["predicted_s_classic"].min()) * 1e3 * 0.8
    hi = max(df["measured_s"].max(), df["predicted_s_engine"].max(), df["predicted_s_classic"].max()) * 1e3 * 1.25
    line = np.geomspace(lo, hi, 50)
    ax.fill_between(line, line * 0.8, line * 1.2, color="0.92", label="±20%")
    ax.fill_between(line, line * 0.9, line * 1.1, color="0.82", label="±10%")
    ax.plot(line, line, color="0.4", lw=1)
    markers = {"decode": "o", "verify": "s", "spec": "^", "plain": "D"}
    for kind, g in df.groupby("kind"):
        ax.scatter(g["measured_s"] * 1e3, g["predicted_s_classic"] * 1e3, marker=markers[kind], facecolors="none",
                   edgecolors="tab:gray", s=30, label=f"{kind}: classic max form")
        ax.scatter(g["measured_s"] * 1e3, g["predicted_s_engine"] * 1e3, marker=markers[kind], s=30,
                   label=f"{kind}: calibrated profile")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("measured time per pass or iteration (ms)")
    ax.set_ylabel("predicted time (ms)")
    ax.set_title("validation-small, bf16: predicted against measured")
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _plot_step_vs_tokens(df: pd.DataFrame, hw: HardwareSpec, target: ModelSpec, path: Path) -> None:
    import matplotlib.pyplot as plt

    steps = df[df["kind"].isin(["decode", "verify"])]
    contexts = sorted(steps["context"].unique())
    fig, axes = plt.subplots(1, len(contexts), figsize=(6.0 * len(contexts), 4.8), squeeze=False)
    ridge = hw.compute_ceiling_flops_per_s(WEIGHT_DTYPE) / hw.memory_ceiling_bytes_per_s  # FLOP/byte = tokens for bf16 weights
    for ax, context in zip(axes[0], contexts):
        g = steps[steps["context"] == context]
        series = [("decode (q = 1, B varies)", g[g["kind"] == "decode"], "batch", 1)]
        series += [(f"verify B = {b} (q varies)", g[(g["kind"] == "verify") & (g["batch"] == b)], "q", b)
                   for b in sorted(g[g["kind"] == "verify"]["batch"].unique())]
        for i, (label, s, axis, fixed) in enumerate(series):
            if s.empty:
                continue
            color = f"C{i}"
            s = s.sort_values("tokens_in_flight")
            ax.plot(s["tokens_in_flight"], s["measured_s"] * 1e3, "o", color=color, label=f"{label}: measured")
            dense = np.unique(np.round(np.geomspace(s[axis].min(), s[axis].max(), 40)))
            b, q = (dense, 1) if axis == "batch" else (fixed, dense)
            pred = step_time_s(hw, target, b, q, context)
            ax.plot(np.asarray(b) * np.asarray(q), pred * 1e3, "-", color=color, label=f"{label}: predicted")
            old = step_time_s(classic(hw), target, b, q, context)
            ax.plot(np.asarray(b) * np.asarray(q), old * 1e3, ":", color=color, lw=1)
        ax.axvline(ridge, color="0.5", ls="--", lw=1)
        ax.text(ridge, 0.03, f" GEMM ridge point\n ≈ {ridge:.0f} tokens", va="bottom", fontsize=8, color="0.3",
                transform=ax.get_xaxis_transform())
        ax.set_xscale("log")
        ax.set_xlabel("tokens in flight per pass, B × q")
        ax.set_ylabel("time per pass (ms)")
        ax.set_title(f"context S = {int(context)}: solid calibrated profile, dotted classic max form", fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle("validation-small, bf16: step time against tokens in flight")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _plot_speedup(df: pd.DataFrame, hw: HardwareSpec, target: ModelSpec, draft: ModelSpec, path: Path) -> None:
    import matplotlib.pyplot as plt

    spec = df[df["kind"] == "spec"]
    if spec.empty:
        return
    batches = sorted(spec["batch"].unique())
    fig, axes = plt.subplots(1, len(batches), figsize=(5.4 * len(batches), 4.6), squeeze=False, sharey=True)
    alphas = np.linspace(0.3, 0.99, 60)
    for ax, batch in zip(axes[0], batches):
        g = spec[spec["batch"] == batch]
        for i, k in enumerate(sorted(g["k"].unique())):
            s = g[g["k"] == k]
            k, context = int(k), float(s["context"].mean())
            curve = speculation(hw, target, draft, int(batch), context, k, alphas)["speedup"]
            ax.plot(alphas, curve, "-", color=f"C{i}", lw=1, label=f"k = {k}: predicted, tau(alpha, k)")
            c, n = s[s["mode"] == "controlled"], s[s["mode"] == "natural"]
            ax.plot(c["alpha_measured"], c["measured_speedup"], "o", color=f"C{i}", label=f"k = {k}: measured (controlled alpha)")
            ax.plot(n["alpha_measured"], n["measured_speedup"], "*", ms=12, color=f"C{i}", label=f"k = {k}: measured (natural drafter)")
            ax.plot(s["alpha_measured"], s["predicted_speedup_engine"], "x", ms=8, color=f"C{i}",
                    label=f"k = {k}: predicted at the run's measured tau")
        ax.axhline(1.0, color="0.5", lw=1)
        ax.set_xlabel("acceptance rate alpha, as measured in the run")
        ax.set_ylabel("speedup over plain greedy decoding (x)")
        ax.set_title(f"batch {int(batch)}, context about {SPEC_CONTEXT}")
        ax.legend(fontsize=6.5)
    fig.suptitle("validation-small with its 2-layer drafter, bf16: speculative speedup, measured and predicted")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _markdown(df: pd.DataFrame, summary: dict, summary_classic: dict, ablated: pd.DataFrame) -> str:
    cols = ["kind", "mode", "batch", "q", "k", "alpha", "context", "measured_s", "predicted_s_engine", "error_engine",
            "predicted_s_classic", "error_classic", "tau_measured", "alpha_measured", "measured_speedup",
            "predicted_speedup_engine", "speedup_error_engine"]
    table = df[[c for c in cols if c in df]].copy()
    for c in ("measured_s", "predicted_s_engine", "predicted_s_classic"):
        table[c] = (table[c] * 1e3).round(2)
    table = table.rename(columns={c: c.replace("_s", "_ms", 1) for c in ("measured_s", "predicted_s_engine", "predicted_s_classic")})

    def cell(v) -> str:
        if isinstance(v, float):
            return "" if math.isnan(v) else f"{v:.3g}"
        return str(v)

    return "\n".join([
        "# Validation: predicted against measured", "",
        "Errors are fractions (0.1 is 10%): predicted / measured - 1. Times per pass (decode, verify, plain) or per",
        "speculative iteration (spec), in ms.", "",
        f"Calibrated profile: `{json.dumps(summary)}`", "",
        f"Classic max form (same profile, no refinements): `{json.dumps(summary_classic)}`", "",
        "Ablation (step times, decode + verify):", "",
        "| form | median abs error | p90 abs error | max abs error |", "|---|---|---|---|",
        *[f"| {r.form} | {r.median_abs_error} | {r.p90_abs_error} | {r.max_abs_error} |" for r in ablated.itertuples()], "",
        "| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns),
        *["| " + " | ".join(cell(v) for v in row) + " |" for row in table.itertuples(index=False)], "",
    ])


def run_validate(device: str = "cpu", quick: bool = False, out_dir: Path = Path("out/validate"), progress: bool = True,
                 hardware: HardwareSpec | None = None) -> dict:
    """Measure, predict, compare; write the table, plots and JSON into out_dir; return the summary.

    Without `hardware`, calibrates first (a shorter calibration with `quick`) and writes the
    profile to out_dir/hardware-measured.yaml. Raises RooflineError when torch is missing or the
    requested device is absent.
    """
    torch, dev = setup_runtime(device)
    from roofline.decoder import build_decoder, fill_kv_cache_random, new_kv_cache, truncate

    start = time.perf_counter()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    grid = QUICK if quick else FULL
    if hardware is None:
        profile = run_calibrate(device, seconds_budget=grid.calibrate_budget_s, progress=progress)
        path = out_dir / "hardware-measured.yaml"
        path.write_text(profile_to_yaml(profile), encoding="utf-8")
        hardware = hardware_from_dict(profile, str(path))
    target_spec, draft_spec = load_model(TARGET), load_model(DRAFT)
    same = ("hidden_size", "heads", "kv_heads", "head_dim", "ffn_size", "vocab_size", "tied_embeddings")
    if any(getattr(target_spec, f) != getattr(draft_spec, f) for f in same) or draft_spec.layers >= target_spec.layers:
        raise RooflineError(f"{DRAFT}: expected the first layers of {TARGET} (same shapes, fewer layers)")

    n_spec = len(grid.spec_batches) * (1 + len(grid.spec_k) * (len(grid.spec_alphas) + 1))
    n_steps = len(grid.decode_batches) * len(grid.decode_contexts) + len(grid.verify_batches) * len(grid.verify_q) * len(grid.verify_contexts)
    bar = Progress(n_steps + n_spec, progress)
    model = build_decoder(target_spec, dtype=torch.bfloat16, device=dev, seed=0)
    draft = truncate(model, draft_spec.layers)
    b_max = max(grid.decode_batches + grid.verify_batches + grid.spec_batches)
    max_len = max(max(grid.decode_contexts) + 1, max(grid.verify_contexts) + max(grid.verify_q),
                  SPEC_CONTEXT + (grid.spec_iterations + 1) * (max(grid.spec_k) + 1) + 2) + 8
    cache = new_kv_cache(model, b_max, max_len)
    fill_kv_cache_random(cache, max_len)
    spec_b = max(grid.spec_batches)
    draft_cache = new_kv_cache(draft, spec_b, max_len)
    draft_cache.k.copy_(cache.k[: draft_spec.layers, :spec_b])  # the drafter's layers saw the same context
    draft_cache.v.copy_(cache.v[: draft_spec.layers, :spec_b])
    bar.note(f"{TARGET}: {model.weight_bytes() / 1e9:.2f} GB of bf16 weights, KV cache {2 * cache.k.numel() * 2 / 1e9:.2f} GB; "
             f"{bar.total} points")

    rows = measure_steps(torch, dev, model, cache, grid, bar)
    rows += measure_speculation(torch, dev, model, draft, cache, draft_cache, grid, bar)
    df = predict_rows(rows, hardware, target_spec, draft_spec)
    summary = summarize(df, device)
    summary_classic = summarize(df, device, "classic")
    summary["classic_max_form"] = {k: summary_classic[k] for k in ("median_abs_error", "p90_abs_error", "max_abs_error", "speedup_median_abs_error")}
    summary["seconds"] = round(time.perf_counter() - start, 1)

    df.to_csv(out_dir / "validation.csv", index=False)
    ablated = ablation(df, hardware, target_spec)
    (out_dir / "validation.md").write_text(_markdown(df, summary, summary_classic, ablated), encoding="utf-8")
    _plot_predicted_vs_measured(df, out_dir / "predicted_vs_measured.png")
    _plot_step_vs_tokens(df, hardware, target_spec, out_dir / "step_time_vs_tokens.png")
    _plot_speedup(df, hardware, target_spec, draft_spec, out_dir / "speedup.png")
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary
