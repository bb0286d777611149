"""Sweep benchmark: points per second computing, and end to end to each output format, with peak memory.

The sweep is Llama-3.1-8B with EAGLE on H100 SXM (default engine) over batch x context x k x alpha,
sized to N points. Three runs of the same sweep, timed separately:

    compute   every chunk computed exactly as `roofline sweep` does (grid.iter_blocks), nothing written
    parquet   grid.write_sweep to results.parquet (no plots), end to end
    csv       grid.write_sweep to results.csv (no plots), end to end

and the ratios parquet / compute and csv / compute. Peak memory is the process's peak resident set
size (ru_maxrss) after the runs, in bytes. Timings are this machine's, printed, never asserted.
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from roofline.grid import iter_blocks, load_configs, write_sweep
from roofline.scenario import scenario_from_dict


def synthetic_scenario(points: int):
    """A scenario of about `points` points: 16 k x 20 alpha x 128 batch x (points / 40,960) contexts."""
    n_context = max(1, int(round(points / (16 * 20 * 128))))
    data = {
        "name": f"bench-{points}",
        "hardware": "h100-sxm",
        "model": "llama-3.1-8b",
        "method": "eagle",
        "axes": {
            "batch": list(range(1, 129)),
            "context": list(range(256, 256 + 64 * n_context, 64)),
            "k": list(range(1, 17)),
            "alpha": [float(a) for a in np.linspace(0.05, 0.99, 20)],
        },
    }
    return scenario_from_dict(data, "<bench>")


def run_bench(points: int, chunk_points: int = 1_000_000, formats: tuple[str, ...] = ("parquet", "csv")) -> dict:
    """Time one synthetic sweep computed only, then written to each format; return figures and ratios."""
    sc = synthetic_scenario(points)
    configs = load_configs(sc)
    start = time.perf_counter()
    done = 0
    for _, cols in iter_blocks(sc, configs, chunk_points):
        done += len(cols["batch"])
    compute_s = time.perf_counter() - start
    out = {"points": done, "compute_s": round(compute_s, 3), "compute_points_per_s": round(done / compute_s)}
    for fmt in formats:
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            write_sweep(sc, configs, Path(tmp), plots=False, chunk_points=chunk_points, fmt=fmt)
            seconds = time.perf_counter() - start
            size = sum(p.stat().st_size for p in Path(tmp).glob("results.*"))
        out[f"{fmt}_s"] = round(seconds, 3)
        out[f"{fmt}_points_per_s"] = round(done / seconds)
        out[f"{fmt}_over_compute"] = round(seconds / compute_s, 2)
        out[f"{fmt}_bytes"] = size
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out["peak_rss_bytes"] = rss_kib * (1 if sys.platform == "darwin" else 1024)
    out["chunk_points"] = chunk_points
    return out
