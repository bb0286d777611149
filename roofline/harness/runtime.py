"""The harness's runtime: torch imported on demand, the device resolved, work synchronised and timed.

Every real measurement of the harness goes through here, so all of them time the same way:

    median_time_s(fn)        median wall time of fn() over repeats after warm-up (device synchronised)
    repeat_times_s(fn)       the repeats themselves, for a median and its spread
    graph_launch_time_s(fns) one launch of a kernel inside a CUDA graph of many (`--cuda-graphs` calibration)
    interleave(fns, rounds)  round r runs fns[0], fns[1], ... in turn (A, B, A, B, ...): a ratio taken
                             within one round sees the machine in the same state for both, so the
                             drift of a shared machine cancels in it
    quartiles(values)        (25th percentile, median, 75th percentile): a median and its spread
    check_cuda_graphs        refuses, in one line, --cuda-graphs on a device other than CUDA
    check_bf16_matmul        refuses, in one line, a device without bf16 units (when the harness runs bf16)
    torch_dtype(torch, name) the torch dtype of a harness dtype name ('bf16', 'fp32'), checked
    busy_machine_note()      a warning when other work keeps the cores busy before a measurement starts

torch is imported lazily (`require_torch`), so this module, and everything in the harness that does
not run a model, imports without it; a command that needs torch raises one RooflineError saying how
to install it.
"""

from __future__ import annotations

import os
import re
import statistics
import time
from collections.abc import Callable, Sequence

import numpy as np

from roofline.errors import RooflineError
from roofline.units import format_si

INSTALL_HINT = "PyTorch is not installed; install the extra: pip install '.[torch]'"


def require_torch():
    """Import torch or raise the one-line install hint."""
    try:
        import torch
    except ImportError:
        raise RooflineError(INSTALL_HINT) from None
    return torch


def check_device_name(device: str) -> None:
    """'cpu', 'cuda' or 'cuda:N', else a one-line RooflineError: said before PyTorch is looked for (qa372: --device tpu
    was told PyTorch is not installed)."""
    if device not in ("cpu", "cuda") and not re.fullmatch(r"cuda:[0-9]+", device):  # (qa376: 'cuda:x' passed)
        raise RooflineError(f"--device: expected cpu, cuda or cuda:N (a device index), found {device!r}")


def resolve_device(device: str):
    """torch.device for 'cpu', 'cuda' or 'cuda:N'; an unknown or missing device is a one-line RooflineError."""
    check_device_name(device)
    torch = require_torch()
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise RooflineError(f"--device {device}: no CUDA device is available to this PyTorch ({torch.__version__}); use --device cpu")
    return torch.device(device)


def check_cuda_graphs(cuda_graphs: bool, device) -> None:
    """--cuda-graphs needs a CUDA device (`device`: a name, 'cuda:1', or a torch.device): elsewhere one line, not eager
    passes run under its name."""
    kind = str(device).split(":")[0]
    if cuda_graphs and kind != "cuda":
        raise RooflineError(f"--cuda-graphs: expected --device cuda (CUDA graphs capture GPU work), found --device {kind}")


HARNESS_DTYPES = {"bf16": "bfloat16", "fp32": "float32"}  # --dtype name -> torch attribute: weights, KV cache, activations


def check_dtype(dtype: str) -> str:
    """The dtype name if the harness runs in it ('bf16' or 'fp32'), else a one-line RooflineError."""
    if dtype not in HARNESS_DTYPES:
        raise RooflineError(f"--dtype: expected {' or '.join(HARNESS_DTYPES)}, found {dtype!r}")
    return dtype


def torch_dtype(torch, dtype: str):
    """torch.bfloat16 for 'bf16', torch.float32 for 'fp32' (checked by check_dtype)."""
    return getattr(torch, HARNESS_DTYPES[check_dtype(dtype)])


def setup_runtime(device: str, dtype: str = "bf16"):
    """torch with every core in use, gradients off, the device and dtype checked and, for bf16, its bf16
    GEMMs usable; returns (torch, torch.device)."""
    check_dtype(dtype)
    torch = require_torch()
    dev = resolve_device(device)
    torch.set_num_threads(os.cpu_count() or 1)
    torch.set_grad_enabled(False)
    if dtype == "bf16":
        check_bf16_matmul(torch, dev)
    return torch, dev


BF16_PROBE_SIZE = 256          # n of the n x n x n GEMMs the probe times (2 n^3 = 34 MFLOP each)
BF16_MIN_SHARE_OF_FP32 = 0.25  # bf16 GEMM FLOP/s below this share of fp32's: no bf16 units


def check_bf16_matmul(torch, dev) -> None:
    """Refuse, in one line, a device whose bf16 GEMMs run at under a quarter of its fp32 GEMMs' FLOP/s.

    With --dtype bf16 (the default) the harness runs its decoder in bf16, and calibration times bf16 GEMMs over 1 GB of weights up to
    M = 1024 tokens. A CPU without bf16 units (no AVX512-BF16 or AMX) gets PyTorch's scalar fallback
    kernel: on a 2-core AMD EPYC (AVX2) it ran 0.7 GFLOP/s in bf16 against 86 GFLOP/s in fp32, and a
    `validate --quick` would take hours instead of minutes. A GPU or a CPU with bf16 units runs bf16
    at least as fast as fp32. The probe runs on one thread (on a busy machine a 2-thread GEMM this small
    waits on a descheduled thread: 48 ms instead of 0.5 ms) and takes about 0.2 s where bf16 is slow.
    """
    n, threads = BF16_PROBE_SIZE, torch.get_num_threads()
    flops = {}
    torch.set_num_threads(1)  # one thread: on a busy machine a multi-threaded GEMM this small waits on descheduled threads
    try:
        for name, dtype in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
            a = torch.randn(n, n, device=dev).to(dtype)
            b = torch.randn(n, n, device=dev).to(dtype)
            flops[name] = 2.0 * n**3 / median_time_s(lambda a=a, b=b: torch.matmul(a, b), dev, repeats=3, warmup=1)
    finally:
        torch.set_num_threads(threads)
    if flops["bf16"] < BF16_MIN_SHARE_OF_FP32 * flops["fp32"]:
        raise RooflineError(
            f"--device {dev.type}: expected bf16 GEMMs at least {BF16_MIN_SHARE_OF_FP32:g}x as fast as fp32, found "
            f"{format_si(flops['bf16'], 'FLOP/s')} against {format_si(flops['fp32'], 'FLOP/s')} ({n}^3 GEMMs): no bf16 units "
            "(AVX512-BF16 or AMX), so PyTorch's scalar fallback would make the bf16 decoder and calibration take hours; "
            "run on a CPU with bf16 units or a GPU (--device cuda), or in fp32 (--dtype fp32)"
        )


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


def graph_launch_time_s(fns: Sequence[Callable[[], object]], device, repeats: int = 9) -> float:
    """Seconds of one launch inside a CUDA graph: fns (one closure a launch) captured in one graph (after a warm-up
    on a side stream, as torch.cuda.graph asks), the graph replayed `repeats` times after two untimed replays, the
    median replay over len(fns). The graph's own launch is spread over the launches; their operands should be
    distinct and together far past the L2 cache, so that each launch reads DRAM."""
    torch = require_torch()
    side = torch.cuda.Stream(device)
    side.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(side):
        for fn in fns:
            fn()
    torch.cuda.current_stream(device).wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for fn in fns:
            fn()
    for _ in range(2):
        graph.replay()
    synchronize(device)
    seconds = [timed_s(graph.replay, device)[0] for _ in range(repeats)]
    return statistics.median(seconds) / len(fns)


def quartiles(values) -> tuple[float, float, float]:
    """(25th percentile, median, 75th percentile) of `values` (linear interpolation, numpy's default)."""
    p25, p50, p75 = np.percentile(np.asarray(values, dtype=np.float64), [25.0, 50.0, 75.0])
    return float(p25), float(p50), float(p75)


def load_average() -> float | None:
    """The 1-minute load average (None on a platform without one): recorded beside a measurement's results."""
    try:
        return round(os.getloadavg()[0], 2)
    except (OSError, AttributeError):  # no load average on this platform
        return None


def busy_machine_note() -> str:
    """A warning when the 1-minute load average is at least half the cores before a measurement starts (other work
    shares the machine: timings come out slower and noisier than idle), else ''."""
    load = load_average()
    if load is None:
        return ""
    cores = os.cpu_count() or 1
    if load < 0.5 * cores:
        return ""
    return (f"the load average is {load:.1f} on {cores} cores before measuring: other work shares this machine, so "
            f"timings come out slower and noisier than on an idle one")
