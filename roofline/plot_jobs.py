"""What figures to draw, and the worker processes that draw them, without importing matplotlib here.

A figure job is (plotter name, results table, operators table, meta, path without suffix, formats);
`roofline.plots.draw_figure` draws one. The standard plots of a sweep are `standard_jobs`; a report's
figures are jobs named `report:QUESTION`.

`FigurePool` forks one process (the seed) when it is created. The seed imports roofline.plots
(matplotlib, about half a second on a small machine) while the caller computes and writes its tables,
then forks the drawers from itself, so they start with matplotlib loaded: it is imported once, not once
per drawer, and the caller itself never imports it to draw. So that import leaves the serial path of
`roofline sweep` and `roofline report`:

    wall ~ max(caller's compute and write, seed's import) + drawing / drawers

Drawers take the next job when they finish one and send back (index, paths) or the job's error; the seed
watches them, so a drawer that dies (a signal, out of memory) becomes an error, not a wait. Processes
are forked, never spawned (a spawned one would re-import everything); where fork does not exist, or with
one worker or one job, `draw` draws in the calling process, one figure after another.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import pickle
import queue
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


def _draw(job: tuple) -> list[Path]:
    from roofline.plots import draw_figure

    return draw_figure(job)


def _sendable(exc: BaseException) -> BaseException:
    """`exc` if it survives pickling (to cross back to the caller), else a RooflineError saying what it was."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return RooflineError(f"drawing a figure: {type(exc).__name__}: {exc}")


def _drawer(jobs, results) -> None:
    """Draw (index, job) items from `jobs` until None, putting (index, paths, None) or (index, None, error)."""
    while (item := jobs.get()) is not None:
        index, job = item
        try:
            results.put((index, _draw(job), None))
        except Exception as exc:
            results.put((index, None, _sendable(exc)))


def _seed(workers: int, jobs, results) -> None:
    """Import roofline.plots (matplotlib) once, fork the drawers from this process, then watch them: a drawer
    that ends without being told to (killed, out of memory) is reported, so the caller never waits forever."""
    import roofline.plots  # noqa: F401

    context = multiprocessing.get_context("fork")
    drawers = [context.Process(target=_drawer, args=(jobs, results), name=f"roofline-drawer-{i}") for i in range(workers)]
    for drawer in drawers:
        drawer.start()
    running = {drawer.sentinel: drawer for drawer in drawers}
    while running:  # whichever ends first
        for sentinel in multiprocessing.connection.wait(list(running)):
            drawer = running.pop(sentinel)
            drawer.join()
            if drawer.exitcode != 0:
                results.put((None, None, RooflineError(f"figure worker {drawer.name}: ended with exit code {drawer.exitcode}")))


class FigurePool:
    """Figure drawers, started now (see the module docstring). Use as a context manager; `draw(jobs)` returns
    each job's written paths, in job order, and raises the first error a job raised."""

    def __init__(self, jobs: int, workers: int | None = None):
        self._workers = min(workers or os.cpu_count() or 1, max(jobs, 1))
        self._seed = None
        if self._workers > 1 and "fork" in multiprocessing.get_all_start_methods():
            context = multiprocessing.get_context("fork")
            self._jobs, self._results = context.Queue(), context.Queue()
            self._seed = context.Process(target=_seed, args=(self._workers, self._jobs, self._results), name="roofline-figures")
            self._seed.start()

    def draw(self, jobs: list[tuple]) -> list[list[Path]]:
        if self._seed is None or len(jobs) <= 1:
            return [_draw(job) for job in jobs]
        for index, job in enumerate(jobs):
            self._jobs.put((index, job))
        drawn: list = [None] * len(jobs)
        for _ in jobs:
            index, paths, error = self._next()
            if error is not None:
                raise error
            drawn[index] = paths
        return drawn

    def _next(self) -> tuple:
        while True:
            try:
                return self._results.get(timeout=0.5)
            except queue.Empty:
                if not self._seed.is_alive():
                    raise RooflineError(f"figure workers: ended with exit code {self._seed.exitcode} before drawing every figure") from None

    def close(self) -> None:
        if self._seed is not None:
            for _ in range(self._workers):
                self._jobs.put(None)
            self._seed.join()
            for q in (self._jobs, self._results):  # nothing left to deliver: never wait on a pipe at exit
                q.cancel_join_thread()
            self._seed = None

    def __enter__(self) -> FigurePool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
