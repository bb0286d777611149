"""Sweep-engine benchmark: points per second and peak memory for a synthetic sweep of N points.

The sweep is Llama-3.1-8B with EAGLE on H100 SXM over batch x context x k x alpha, sized to N
points, computed chunk by chunk exactly as `roofline sweep` does (without writing files).
Peak memory is the process's peak resident set size (ru_maxrss) after the run, in bytes.
"""

from __future__ import annotations

import resource
import sys
import time

import numpy as np

from roofline.scenario import scenario_from_dict
from roofline.grid import iter_sweep, load_configs


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


def run_bench(points: int, chunk_points: int = 1_000_000) -> dict:
    """Time one synthetic sweep; return points, seconds, points/s, peak RSS."""
    sc = synthetic_scenario(points)
    pairs = load_configs(sc)
    start = time.perf_counter()
    done = 0
    checksum = 0.0
    for frame in iter_sweep(sc, pairs, chunk_points):
        done += len(frame)
        checksum += float(frame["tokens_per_s"].iloc[-1])
    elapsed = time.perf_counter() - start
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    scale = 1 if sys.platform == "darwin" else 1024
    return {
        "points": done,
        "seconds": round(elapsed, 3),
        "points_per_s": round(done / elapsed),
        "peak_rss_bytes": rss_kib * scale,
        "chunk_points": chunk_points,
        "checksum_tokens_per_s": round(checksum, 3),
    }
