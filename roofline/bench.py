"""Sweep benchmark: points per second computing, and end to end to each output format, with peak memory.

The sweep is Llama-3.1-8B with EAGLE on H100 SXM (default engine) over batch x context x k x alpha,
sized to N points. Three runs of the same sweep, timed separately:

    compute   every chunk computed exactly as `roofline sweep` does (grid.iter_blocks), nothing written
    parquet   grid.write_sweep to results.parquet (no plots), end to end: computing, writing results.parquet,
              operators.csv and scenario.json (before 2026-11-30, session 8, the removal of the temporary
              folder afterwards was timed too: about 0.06 s for 983,040 points)
    csv       the same to results.csv

each `repeats` times, interleaved (compute, parquet, csv, compute, ...) after one untimed run of each (its write
times reported apart, as `<format>_first_s`) and the writers' modules imported (`_import_writers`: polars, pyarrow's csv and parquet, 0.2-0.4 s, which the first timed
write of either format paid before 2026-12-01, so that `--repeats 1` reported Parquet slower than CSV at 100,000
points), and the medians reported with their range, and the ratios of the medians parquet / compute and csv / compute.
The untimed run and the interleaving put the three in the same state of the process: a first run in a
fresh process pays the kernel's first touch of every page it allocates (on this project's VM that alone
moved a single compute-only figure between 0.15 and 0.93 s), and a denominator taken once, cold, while
the writes ran warm after it, made the ratios look better than they are (983,040 points, 2026-11-30: Parquet
2.62x and CSV 5.06x in one such run, 4.3-4.5x and 20.9-23.5x measured this way). The same holds for the writes:
on this VM, memory the guest freed goes back to the host and the next touch of it is slow, so the first 336 MB
written after a quiet spell took 0.41-0.84 s where the same write took 0.07 s once warm (a plain `write` of a
336 MB buffer into a new file, four times in a row, 2026-12-01); the untimed write of each format pays that touch,
and `<format>_first_s` shows what it cost. Peak memory is the
process's peak resident set size (ru_maxrss) after the runs, in bytes. Timings are this machine's,
printed, never asserted.

`run_jobs` times the README's two main jobs as a user runs them, each a fresh `roofline` process
(interpreter start, imports, compute, tables, figures, exit) writing into a temporary folder:

    report   roofline report --out DIR --force                          (nine scenarios, nine figures)
    sweep    roofline sweep eagle-on-hopper --out DIR --force           (900 points, seven figures)

one untimed round, then `repeats` rounds interleaved (report, sweep, report, ...), medians and ranges.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from roofline.errors import RooflineError
from roofline.grid import iter_blocks, load_configs, write_sweep
from roofline.scenario import scenario_from_dict

GRID_POINTS = 16 * 20 * 128  # one context's points: 16 k x 20 alpha x 128 batch


def points_run(points: int) -> int:
    """The points a sweep of about `points` runs: whole grids of GRID_POINTS (1,000,000 runs 983,040)."""
    return max(1, int(round(points / GRID_POINTS))) * GRID_POINTS


def synthetic_scenario(points: int):
    """A scenario of about `points` points: 16 k x 20 alpha x 128 batch x (points / 40,960) contexts."""
    n_context = points_run(points) // GRID_POINTS
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


def _compute(sc, configs, chunk_points: int) -> int:
    done = 0
    for _, cols in iter_blocks(sc, configs, chunk_points, lower_bounds_said=False):  # a synthetic sweep's caveats
        done += len(cols["batch"])
    return done


def _import_writers() -> None:
    """Import what TableWriter writes with, once, untimed: every format's first write would pay it otherwise."""
    import polars  # noqa: F401
    import polars.io.plugins  # noqa: F401
    import pyarrow.csv  # noqa: F401
    import pyarrow.parquet  # noqa: F401


def _write(sc, configs, chunk_points: int, fmt: str) -> tuple[float, int]:
    """Write the sweep to `fmt` in a temporary folder: the seconds write_sweep took (the folder's removal
    afterwards not counted: a user's sweep keeps its files) and the bytes of its results file."""
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a synthetic sweep's caveats are no finding (qa122: one a write, 8 times)
        start = time.perf_counter()
        write_sweep(sc, configs, Path(tmp), plots=False, chunk_points=chunk_points, fmt=fmt)
        seconds = time.perf_counter() - start
        return seconds, sum(p.stat().st_size for p in Path(tmp).glob("results.*"))


def run_bench(points: int, chunk_points: int = 1_000_000, formats: tuple[str, ...] = ("parquet", "csv"),
              repeats: int = 3) -> dict:
    """Time one synthetic sweep computed only and written to each format, `repeats` interleaved rounds after an
    untimed compute run (module docstring); return the medians, their ranges and the ratios of the medians."""
    load_at_start = _load_average()
    sc = synthetic_scenario(points)
    with warnings.catch_warnings():  # a synthetic sweep's caveats (its speculative rows at large batches) are no finding
        warnings.simplefilter("ignore")
        configs = load_configs(sc)
    done = _compute(sc, configs, chunk_points)  # untimed: the process's first touch of its working set
    _import_writers()
    first = {fmt: _write(sc, configs, chunk_points, fmt)[0] for fmt in formats}  # untimed in the medians: the
    # first touch of the memory each write's file takes in the page cache (module docstring)
    times: dict[str, list[float]] = {name: [] for name in ("compute", *formats)}
    sizes = {}
    for _ in range(repeats):
        start = time.perf_counter()
        _compute(sc, configs, chunk_points)
        times["compute"].append(time.perf_counter() - start)
        for fmt in formats:
            seconds, sizes[fmt] = _write(sc, configs, chunk_points, fmt)
            times[fmt].append(seconds)
    median = {name: float(np.median(values)) for name, values in times.items()}
    out = {"points": done, "repeats": repeats, "compute_s": _sig(median["compute"]),
           "compute_s_range": [_sig(min(times["compute"])), _sig(max(times["compute"]))],
           "compute_points_per_s": round(done / median["compute"])}
    for fmt in formats:
        out[f"{fmt}_s"] = _sig(median[fmt])
        out[f"{fmt}_s_range"] = [_sig(min(times[fmt])), _sig(max(times[fmt]))]
        out[f"{fmt}_points_per_s"] = round(done / median[fmt])
        out[f"{fmt}_over_compute"] = round(median[fmt] / median["compute"], 2)
        out[f"{fmt}_bytes"] = sizes[fmt]
        out[f"{fmt}_first_s"] = _sig(first[fmt])
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out["peak_rss_bytes"] = rss_kib * (1 if sys.platform == "darwin" else 1024)
    out["chunk_points"] = chunk_points
    out.update(load_average_at_start=load_at_start, load_average_at_end=_load_average(), cores=os.cpu_count())
    return out


def _sig(seconds: float) -> float:
    """Seconds to 4 significant digits (qa122: 0.01 s to 3 decimals beside a ratio of 3.81 did not check by hand)."""
    return float(f"{seconds:.4g}")


def _load_average() -> float | None:
    """The 1-minute load average, recorded beside the timings (a busy machine's come out slower); None without one."""
    try:
        return round(os.getloadavg()[0], 2)
    except (OSError, AttributeError):
        return None


README_JOBS = {
    "report": ("report", "--out", "{out}", "--force"),
    "sweep": ("sweep", "eagle-on-hopper", "--out", "{out}", "--force"),
}


def _run_job(name: str, args: tuple[str, ...], out: Path) -> float:
    """Seconds one fresh `roofline ARGS` process takes, start to exit; a failure is one line naming the job."""
    command = [sys.executable, "-c", "from roofline.launch import run; run()", *(a.replace("{out}", str(out)) for a in args)]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise RooflineError(f"bench job {name} (roofline {' '.join(args)}): exit code {done.returncode}: {last[:120]}")
    return seconds


def run_jobs(repeats: int = 3, jobs: dict[str, tuple[str, ...]] | None = None) -> dict:
    """Time each job of `jobs` (default README_JOBS) end to end, one untimed round then `repeats` interleaved rounds
    (module docstring); return each job's median seconds and range."""
    jobs = README_JOBS if jobs is None else jobs
    load_at_start = _load_average()
    times: dict[str, list[float]] = {name: [] for name in jobs}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(repeats + 1):
            for name, args in jobs.items():
                seconds = _run_job(name, args, Path(tmp) / name)
                if round_:
                    times[name].append(seconds)
    out: dict = {"repeats": repeats}
    for name, values in times.items():
        out[f"{name}_s"] = round(float(np.median(values)), 2)
        out[f"{name}_s_range"] = [round(min(values), 2), round(max(values), 2)]
    out.update(load_average_at_start=load_at_start, load_average_at_end=_load_average(), cores=os.cpu_count())
    return out
