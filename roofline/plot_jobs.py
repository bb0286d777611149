"""What figures to draw, and the worker processes that draw them, without importing matplotlib here.

A figure job is (plotter name, results table, operators table, meta, path without suffix, formats);
`roofline.plots.draw_figure` draws one. The standard plots of a sweep are `standard_jobs`; a report's
figures are jobs named `report:QUESTION`.

`FigurePool` forks its workers when it is created, each importing roofline.plots (matplotlib, about
half a second on a small machine) while the caller computes and writes its tables; the caller itself
never imports matplotlib to draw. So that import leaves the serial path of `roofline sweep` and
`roofline report`:

    wall ~ max(caller's compute and write, worker start-up) + drawing / workers

Workers are forked, never spawned (a spawned worker would re-import everything); where fork does not
exist, or with one worker or one job, `draw` draws in the calling process, one figure after another.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd

from roofline.errors import RooflineError

PLOT_NAMES = ("roofline", "step_time_vs_tokens", "speedup_heatmap", "throughput_vs_batch", "pareto", "best_k_vs_batch")
FORMATS = ("png", "svg")
REQUIRED_COLUMNS = (
    "hardware", "model", "method", "batch", "context", "k", "alpha", "step_time_s", "tokens_per_s",
    "tokens_per_s_per_user", "speedup", "verify_time_s", "verify_compute_bound", "baseline_tokens_per_s",
    "baseline_tokens_per_s_per_user", "fits_in_memory", "max_batch", "best_k", "tokens_per_s_per_device",
)
OPERATOR_COLUMNS = (
    "hardware", "model", "pass", "batch", "q", "operator", "flops", "bytes", "time_s", "step_time_s",
    "peak_flops_per_s", "compute_ceiling_flops_per_s", "mem_bw_bytes_per_s", "memory_ceiling_bytes_per_s",
)


def check_columns(df: pd.DataFrame, required: tuple[str, ...], where: str, what: str) -> None:
    """One line naming the missing columns of `df`, or nothing."""
    missing = [c for c in required if c not in df.columns]
    if missing:
        found = ", ".join(map(str, df.columns[:8])) + (", ..." if len(df.columns) > 8 else "") if len(df.columns) else "no columns"
        raise RooflineError(f"{where}: expected {what} with column(s) {', '.join(missing)}, found {found}")


def check_formats(formats) -> None:
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        raise RooflineError(f"formats: expected some of {', '.join(FORMATS)}, found {', '.join(map(str, formats)) or 'none'}")


def standard_jobs(df: pd.DataFrame, ops: pd.DataFrame | None, meta: dict, out_dir: Path,
                  formats: tuple[str, ...] = ("png",)) -> list[tuple]:
    """The jobs of every standard plot of a sweep table (checked; none for an empty table), in PLOT_NAMES order.
    A plot the table cannot support draws nothing (roofline.plots)."""
    check_columns(df, REQUIRED_COLUMNS, "results table", "a sweep results table")
    if ops is not None and not ops.empty:
        check_columns(ops, OPERATOR_COLUMNS, "operators table", "an operators table")
    check_formats(formats)
    if df.empty:
        return []
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    # only the columns the plotters read: every row filter in a plotter copies each column it carries
    df = df[list(REQUIRED_COLUMNS)].assign(hardware=df["hardware"].astype(str), model=df["model"].astype(str))
    if ops is not None:
        ops = ops[list(OPERATOR_COLUMNS)] if not ops.empty else ops
        ops = ops.assign(hardware=ops["hardware"].astype(str), model=ops["model"].astype(str))
    return [(name, df, ops, meta, out_dir / name, tuple(formats)) for name in PLOT_NAMES]


def report_job(name: str, df: pd.DataFrame, ops: pd.DataFrame, meta: dict, stem: Path, formats=("png",)) -> tuple:
    """The figure job of report section `name` (roofline.report_figures draws it; an unknown name the generic figure)."""
    return (f"report:{name}", df, ops, meta, Path(stem), tuple(formats))


def _warm() -> None:
    import roofline.plots  # noqa: F401  (matplotlib and the plotters, imported once per worker)


def _ready() -> bool:
    return True


def _draw(job: tuple) -> list[Path]:
    from roofline.plots import draw_figure

    return draw_figure(job)


class FigurePool:
    """Worker processes for figure jobs, started now (see the module docstring). Use as a context manager;
    `draw(jobs)` returns each job's written paths, in job order."""

    def __init__(self, jobs: int, workers: int | None = None):
        n = min(workers or os.cpu_count() or 1, max(jobs, 1))
        self._pool = None
        if n > 1 and "fork" in multiprocessing.get_all_start_methods():
            self._pool = ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("fork"), initializer=_warm)
            for _ in range(n):  # start every worker now, so its import overlaps the caller's work
                self._pool.submit(_ready)

    def draw(self, jobs: list[tuple]) -> list[list[Path]]:
        if self._pool is None or len(jobs) <= 1:
            return [_draw(job) for job in jobs]
        return list(self._pool.map(_draw, jobs))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def __enter__(self) -> FigurePool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
