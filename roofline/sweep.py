"""Sweeps: a scenario's axes as broadcast numpy arrays, computed in one vectorised pass per
(hardware, model) pair, returned as one tidy DataFrame (one row per point, unit-suffixed columns).

Axis order inside a pair is (context, alpha, batch, k): best k is an argmax along the k axis and the
break-even batch a reduction along the batch axis, both without a Python loop over points. Large
sweeps are cut into chunks along (context, alpha), each chunk whole in batch and k, so memory stays
bounded and `iter_sweep` can stream them to disk.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from roofline.engine import step_metrics
from roofline.hardware import HardwareSpec, load_hardware
from roofline.model import ModelSpec, load_model
from roofline.scenario import Scenario
from roofline.speculation import break_even_batch, speculative_metrics

OUTPUT_COLUMNS = (
    "step_time_s", "tokens_per_s", "tokens_per_s_per_user", "speedup", "tau", "iteration_time_s",
    "draft_time_s", "verify_time_s", "transfer_time_s", "overhead_time_s", "baseline_tokens_per_s",
    "baseline_tokens_per_s_per_user", "mbu", "mfu", "verify_compute_bound", "flops_per_token",
    "bytes_per_token", "baseline_flops_per_token", "wasted_flops_fraction", "memory_needed_bytes",
    "fits_in_memory", "max_batch", "best_k", "break_even_batch", "cost_usd_per_million_tokens",
    "baseline_cost_usd_per_million_tokens", "tokens_per_s_per_device",
)


@dataclass(frozen=True)
class Pair:
    """One (hardware, model) combination of a scenario, specs loaded."""

    hw: HardwareSpec
    model: ModelSpec
    draft: ModelSpec | None
    draft_hw: HardwareSpec | None


def load_pairs(sc: Scenario, extra_dirs: tuple = ()) -> list[Pair]:
    """Load every hardware x model of the scenario (errors name the scenario file)."""
    draft = load_model(sc.draft, extra_dirs) if sc.draft else None
    draft_hw = load_hardware(sc.draft_hardware, extra_dirs) if sc.draft_hardware else None
    models = [load_model(m, extra_dirs) for m in sc.model]
    return [Pair(load_hardware(h, extra_dirs), m, draft, draft_hw) for h in sc.hardware for m in models]


def _chunk_slices(n_context: int, n_alpha: int, per_slice: int, chunk_points: int) -> Iterator[tuple[slice, slice]]:
    alpha_step = max(1, min(n_alpha, chunk_points // max(per_slice, 1)))
    context_step = max(1, chunk_points // max(per_slice * n_alpha, 1)) if alpha_step == n_alpha else 1
    for c0 in range(0, n_context, context_step):
        for a0 in range(0, n_alpha, alpha_step):
            yield slice(c0, c0 + context_step), slice(a0, a0 + alpha_step)


def compute_block(sc: Scenario, pair: Pair, context, alpha, batch, k) -> dict[str, np.ndarray]:
    """All outputs on the grid context x alpha x batch x k (4-D arrays, that axis order)."""
    c = np.asarray(context, dtype=np.float64)[:, None, None, None]
    a = np.asarray(alpha, dtype=np.float64)[None, :, None, None]
    b = np.asarray(batch, dtype=np.float64)[None, None, :, None]
    kk = np.asarray(k, dtype=np.int64)[None, None, None, :]
    alpha_arg = None if sc.acceptance is not None else a
    spec = speculative_metrics(
        pair.hw, pair.model, b, c, kk, alpha_arg, method=sc.method, draft=pair.draft, draft_hw=pair.draft_hw,
        acceptance=sc.acceptance, tree_nodes=sc.tree_nodes, tree_tau=sc.tree_tau, overlap=sc.overlap,
        bookkeeping_s=sc.bookkeeping_s, draft_vocab=sc.draft_vocab, weight_dtype=sc.weight_dtype,
        kv_dtype=sc.kv_dtype, tp=sc.tp,
    )
    shape = np.broadcast(c, a, b, kk).shape
    out = {name: np.broadcast_to(v, shape) for name, v in spec.items()}
    out["step_time_s"] = out["baseline_step_time_s"]
    out["mbu"], out["mfu"] = out["baseline_mbu"], out["baseline_mfu"]
    out["baseline_tokens_per_s_per_user"] = 1.0 / out["step_time_s"]
    fits = out["fits_in_memory"]
    best = np.take(np.asarray(k), np.argmax(np.where(fits, out["tokens_per_s"], -np.inf), axis=3))
    best = np.where(fits.any(axis=3), best, -1)  # -1: no k of the axis fits in memory
    out["best_k"] = np.broadcast_to(best[..., None], shape)
    be = break_even_batch(batch, np.where(fits, out["speedup"], 0.0), axis=2)
    out["break_even_batch"] = np.broadcast_to(be[:, :, None, :], shape)
    # the drafter's device counts (and costs) only when there is a drafter and it drafts (k > 0)
    uses_draft_device = (pair.draft_hw is not None and sc.method not in ("none", "ngram")) & (kk > 0)
    devices = sc.tp + uses_draft_device.astype(np.float64)
    out["tokens_per_s_per_device"] = out["tokens_per_s"] / devices
    price = pair.hw.price_usd_per_hour
    draft_price = pair.draft_hw.price_usd_per_hour if pair.draft_hw is not None else 0.0
    if price is None or (draft_price is None and uses_draft_device.any()):
        out["cost_usd_per_million_tokens"] = np.full(shape, np.nan)
        out["baseline_cost_usd_per_million_tokens"] = np.full(shape, np.nan)
    else:
        per_s = (price * sc.tp + np.where(uses_draft_device, draft_price or 0.0, 0.0)) / 3600.0
        out["cost_usd_per_million_tokens"] = per_s / out["tokens_per_s"] * 1e6
        out["baseline_cost_usd_per_million_tokens"] = price * sc.tp / 3600.0 / out["baseline_tokens_per_s"] * 1e6
    return out


INT_COLUMNS = ("batch", "context", "k", "max_batch", "best_k", "break_even_batch")
BOOL_COLUMNS = ("fits_in_memory", "verify_compute_bound")


def _tidy_frame(sc: Scenario, pair: Pair, block: dict, context, alpha, batch, k) -> pd.DataFrame:
    """One row per grid point. Columns are filled into three 2-D blocks (float, int, bool) so that pandas
    wraps them without copying; names are categoricals. Column order: axes first, then outputs."""
    grid = dict(zip(("context", "alpha", "batch", "k"), np.meshgrid(context, alpha, batch, k, indexing="ij")))
    n = grid["context"].size
    columns = {**grid, **block}
    float_names = [c for c in ("alpha", *OUTPUT_COLUMNS) if c not in INT_COLUMNS and c not in BOOL_COLUMNS]
    parts = []
    for names, dtype in ((list(INT_COLUMNS), np.int64), (float_names, np.float64), (list(BOOL_COLUMNS), np.bool_)):
        data = np.empty((len(names), n), dtype=dtype)
        for i, name in enumerate(names):
            data[i] = np.ravel(columns[name])
        parts.append(pd.DataFrame(data.T, columns=names, copy=False))
    labels = {
        "hardware": pair.hw.name, "model": pair.model.name, "method": sc.method,
    }
    frame = pd.concat(parts, axis=1)
    for i, (name, value) in enumerate(labels.items()):
        frame.insert(i, name, pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=[value]))
    order = ["hardware", "model", "method", "batch", "context", "k", "alpha", *[c for c in OUTPUT_COLUMNS]]
    return frame[order]


def iter_sweep(sc: Scenario, pairs: list[Pair], chunk_points: int = 1_000_000) -> Iterator[pd.DataFrame]:
    """Yield the sweep as tidy DataFrames of at most about `chunk_points` rows each."""
    ax = sc.axes
    per_slice = len(ax["batch"]) * len(ax["k"])
    for pair in pairs:
        for cs, asl in _chunk_slices(len(ax["context"]), len(ax["alpha"]), per_slice, chunk_points):
            context, alpha = ax["context"][cs], ax["alpha"][asl]
            block = compute_block(sc, pair, context, alpha, ax["batch"], ax["k"])
            yield _tidy_frame(sc, pair, block, context, alpha, ax["batch"], ax["k"])


def run_sweep(sc: Scenario, pairs: list[Pair]) -> pd.DataFrame:
    """The whole sweep in memory as one DataFrame."""
    return pd.concat(list(iter_sweep(sc, pairs)), ignore_index=True)


def operator_table(sc: Scenario, pairs: list[Pair]) -> pd.DataFrame:
    """Per-operator FLOPs, bytes and time of a decode step (q = 1) and a verify step (q = max k + 1),
    at every batch of the sweep and its first context, with each device's ceilings: the roofline chart's data."""
    batch = np.asarray(sc.axes["batch"], dtype=np.float64)
    context = float(sc.axes["context"][0])
    q_verify = float(sc.tree_nodes + 1 if sc.tree_nodes else max(int(np.max(sc.axes["k"])), 1) + 1)
    rows = []
    for pair in pairs:
        ceilings = {
            "peak_flops_per_s": pair.hw.peak_flops_per_s[pair.hw.compute_dtype(sc.weight_dtype)],
            "compute_ceiling_flops_per_s": pair.hw.compute_ceiling_flops_per_s(sc.weight_dtype),
            "mem_bw_bytes_per_s": pair.hw.mem_bw_bytes_per_s,
            "memory_ceiling_bytes_per_s": pair.hw.memory_ceiling_bytes_per_s,
        }
        for pass_name, q in (("decode", 1.0), ("verify", q_verify)):
            m = step_metrics(pair.hw, pair.model, batch, q, context, sc.weight_dtype, sc.kv_dtype, sc.tp, with_operators=True)
            for op, v in m["operators"].items():
                keep = (v["bytes"] > 0) | (v["flops"] > 0)
                frame = pd.DataFrame({
                    "hardware": pair.hw.name, "model": pair.model.name, "pass": pass_name, "batch": batch, "context": context,
                    "q": q, "operator": op, "flops": v["flops"], "bytes": v["bytes"], "time_s": v["time_s"],
                    "compute_bound": v["compute_bound"], "step_time_s": m["step_time_s"], **ceilings,
                })
                rows.append(frame[keep])
    return pd.concat(rows, ignore_index=True)


def write_sweep(sc: Scenario, pairs: list[Pair], out_dir: Path, plots: bool = True, chunk_points: int = 1_000_000,
                progress: bool = False, keep_in_memory_max: int = 2_000_000) -> dict:
    """Compute the sweep chunk by chunk, streaming results.csv (and results.parquet) into `out_dir`,
    then operators.csv, scenario.json and the plots. Returns a summary with the files written."""
    import json
    import sys
    import time

    out_dir = Path(out_dir)
    total = sc.points
    parquet_writer = None
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        pa = pq = None
    kept, done, compute_s = [], 0, 0.0
    csv_path = out_dir / "results.csv"
    t0 = time.perf_counter()
    chunks = iter_sweep(sc, pairs, chunk_points)
    while True:
        t = time.perf_counter()
        frame = next(chunks, None)
        compute_s += time.perf_counter() - t
        if frame is None:
            break
        frame.to_csv(csv_path, mode="a", header=done == 0, index=False)
        if pq is not None:
            table = pa.Table.from_pandas(frame, preserve_index=False)
            if parquet_writer is None:
                parquet_writer = pq.ParquetWriter(out_dir / "results.parquet", table.schema)
            parquet_writer.write_table(table)
        if total <= keep_in_memory_max:
            kept.append(frame)
        done += len(frame)
        if progress:
            elapsed = time.perf_counter() - t0
            bar = "#" * int(30 * done / total)
            print(f"\r[{bar:<30}] {done:,}/{total:,} points  {elapsed:.1f} s", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    if parquet_writer is not None:
        parquet_writer.close()
    files = ["results.csv"] + (["results.parquet"] if pq is not None else [])
    ops = operator_table(sc, pairs)
    ops.to_csv(out_dir / "operators.csv", index=False)
    meta = {
        "scenario": sc.name, "description": sc.description, "method": sc.method, "draft": sc.draft,
        "draft_hardware": sc.draft_hardware, "weight_dtype": sc.weight_dtype, "kv_dtype": sc.kv_dtype, "tp": sc.tp,
        "hardware": {p.hw.name: p.hw.display_name for p in pairs}, "model": {p.model.name: p.model.display_name for p in pairs},
        "tree_nodes": sc.tree_nodes, "tree_tau": sc.tree_tau, "acceptance": sc.acceptance, "points": done,
    }
    (out_dir / "scenario.json").write_text(json.dumps(meta, indent=2))
    files += ["operators.csv", "scenario.json"]
    if plots:
        if kept:
            from roofline.plots import standard_plots

            files += [p.name for p in standard_plots(pd.concat(kept, ignore_index=True), ops, meta, out_dir)]
        elif progress:
            print(f"plots skipped for {done:,} points: run `roofline plot {out_dir}` on a subset", file=sys.stderr)
    return {"points": done, "compute_s": compute_s, "files": files}
