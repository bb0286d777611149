"""The harness's runtime: torch imported on demand, the device resolved, work synchronised and timed.

Every real measurement of the harness goes through here, so all of them time the same way:

    median_time_s(fn)        median wall time of fn() over repeats after warm-up (device synchronised)
    repeat_times_s(fn)       the repeats themselves, for a median and its spread
    interleave(fns, rounds)  round r runs fns[0], fns[1], ... in turn (A, B, A, B, ...): a ratio taken
                             within one round sees the machine in the same state for both, so the
                             drift of a shared machine cancels in it
    quartiles(values)        (25th percentile, median, 75th percentile): a median and its spread

torch is imported lazily (`require_torch`), so this module, and everything in the harness that does
not run a model, imports without it; a command that needs torch raises one RooflineError saying how
to install it.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Sequence

import numpy as np

from roofline.errors import RooflineError

INSTALL_HINT = "PyTorch is not installed; install the extra: pip install '.[torch]'"


def require_torch():
    """Import torch or raise the one-line install hint."""
    try:
        import torch
    except ImportError:
        raise RooflineError(INSTALL_HINT) from None
    return torch


def resolve_device(device: str):
    """torch.device for 'cpu', 'cuda' or 'cuda:N'; an unknown or missing device is a one-line RooflineError."""
    if device not in ("cpu", "cuda") and not device.startswith("cuda:"):
        raise RooflineError(f"--device: expected cpu or cuda, found {device!r}")
    torch = require_torch()
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise RooflineError(f"--device {device}: no CUDA device is available to this PyTorch ({torch.__version__}); use --device cpu")
    return torch.device(device)


def setup_runtime(device: str):
    """torch with every core in use, gradients off and the device checked; returns (torch, torch.device)."""
    torch = require_torch()
    dev = resolve_device(device)
    torch.set_num_threads(os.cpu_count() or 1)
    torch.set_grad_enabled(False)
    return torch, dev


def synchronize(device) -> None:
    """Wait for queued device work (a no-op on CPU)."""
    if device.type == "cuda":
        require_torch().cuda.synchronize(device)


def timed_s(fn: Callable[[], object], device) -> tuple[float, object]:
    """(wall seconds of fn(), its result), the device synchronised before the clock stops."""
    start = time.perf_counter()
    result = fn()
    synchronize(device)
    return time.perf_counter() - start, result


def repeat_times_s(fn: Callable[[], object], device, repeats: int = 5, warmup: int = 2) -> list[float]:
    """Wall seconds of `repeats` calls of fn() after `warmup` untimed calls."""
    for _ in range(warmup):
        fn()
    synchronize(device)
    return [timed_s(fn, device)[0] for _ in range(repeats)]


def median_time_s(fn: Callable[[], object], device, repeats: int = 5, warmup: int = 2) -> float:
    """Median wall time of fn() over `repeats` calls after `warmup` calls (device synchronised)."""
    return statistics.median(repeat_times_s(fn, device, repeats, warmup))


def interleave(fns: Sequence[Callable[[], object]], rounds: int, device, warmup: int = 1) -> list[list[tuple[float, object]]]:
    """Run fns in turn, `rounds` times: [[(seconds, result) of fns[0], of fns[1], ...] per round].

    `warmup` untimed rounds first. Within a round the functions run back to back, so anything the
    machine does slowly (a neighbour's burst, a frequency change) lands on both sides of a ratio
    taken inside the round, not on one side only as it does when A is timed minutes before B.
    """
    for _ in range(warmup):
        for fn in fns:
            fn()
    synchronize(device)
    return [[timed_s(fn, device) for fn in fns] for _ in range(rounds)]


def quartiles(values) -> tuple[float, float, float]:
    """(25th percentile, median, 75th percentile) of `values` (linear interpolation, numpy's default)."""
    p25, p50, p75 = np.percentile(np.asarray(values, dtype=np.float64), [25.0, 50.0, 75.0])
    return float(p25), float(p50), float(p75)
