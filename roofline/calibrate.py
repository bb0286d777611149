"""Calibration: measure this machine's ceilings with PyTorch and write them as a hardware profile.

Every number is a micro-benchmark on synthetic tensors (never the validation runs), timed as the
median of repeats after warm-up. What each profile field means physically, as measured here:

    memory_bandwidth      streaming read (x.sum()) of a buffer far larger than the last-level cache
    efficiency.memory     weight-streaming GEMV bandwidth / memory_bandwidth: the share of the stream
                          a matrix-vector product (M = 1 token) sustains while it also does the math
    peak_flops[dtype]     best large square GEMM in that dtype (fp32, bf16; fp16 and fp8 on a GPU)
    efficiency.compute    GEMM throughput at LLM weight shapes and large M / peak_flops[bf16]
    overlap_exponent p    how memory and compute time of one operator combine,
                          t = (t_compute^p + t_memory^p)^(1/p): p = 1 is no overlap at all (the sum),
                          p -> inf perfect overlap (the roofline max); fitted on a sweep of M
    step_overhead         fixed cost of a forward pass: the decoder at tiny width (every operator
                          launched, no bytes or FLOPs to speak of), minus its per-layer part
    layer_overhead        the per-layer part of that cost (operator dispatch per block)
    operator_ceilings     attention_memory / attention_compute: the attention kernel's KV stream
                          rate (q = 1) and FLOP rate (q = 32), well below the GEMM ceilings on a CPU;
                          elementwise_memory: activation bytes per second of the elementwise operators
                          (RMSNorm, RoPE, SiLU*up, residual adds) as roofline.costs counts them
    measured_*            the raw material: copy bandwidth, GEMV bandwidth, the GEMM sweep, the cache
                          sweep and the effective cache size, date, device, torch, load average

`run_calibrate` returns the profile mapping (PROFILES.md schema, units on every number);
`profile_to_yaml` renders it. torch is imported lazily: without it both raise one RooflineError.
"""

from __future__ import annotations

import datetime
import functools
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np
import yaml

from roofline.errors import RooflineError

INSTALL_HINT = "PyTorch is not installed; install the extra: pip install '.[torch]'"
OVERHEAD_DEPTHS = (2, 16)  # layers of the tiny-width decoder whose step times give step_overhead and layer_overhead
GEMM_SWEEP_M = (1, 4, 16, 24, 32, 48, 64, 80, 96, 128, 192, 256, 512, 1024)


def require_torch():
    """Import torch or raise the one-line install hint."""
    try:
        import torch
    except ImportError:
        raise RooflineError(INSTALL_HINT) from None
    return torch


def setup_runtime(device: str):
    """torch with all cores in use and the device checked; returns (torch, torch.device)."""
    torch = require_torch()
    from roofline.decoder import resolve_device

    dev = resolve_device(device)
    torch.set_num_threads(os.cpu_count() or 1)
    torch.set_grad_enabled(False)
    return torch, dev


def median_time_s(fn: Callable[[], object], device, repeats: int = 5, warmup: int = 2) -> float:
    """Median wall time of fn() over `repeats` calls after `warmup` calls (device synchronised)."""
    from roofline.decoder import synchronize

    for _ in range(warmup):
        fn()
    synchronize(device)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        synchronize(device)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def pnorm_time_s(t_compute, t_memory, p: float):
    """(t_c^p + t_m^p)^(1/p): the overlap form the engine uses when a profile sets overlap_exponent."""
    t_compute, t_memory = np.asarray(t_compute, dtype=np.float64), np.asarray(t_memory, dtype=np.float64)
    big = np.maximum(np.maximum(t_compute, t_memory), 1e-30)
    return big * ((t_compute / big) ** p + (t_memory / big) ** p) ** (1.0 / p)


class _Progress:
    """One stderr line per phase: `calibrate [3/8] GEMM peaks ... 12 s`."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.done, self.enabled, self.start = total, 0, enabled, time.perf_counter()

    def step(self, what: str) -> None:
        self.done += 1
        if self.enabled:
            elapsed = time.perf_counter() - self.start
            print(f"calibrate [{self.done}/{self.total}] {what} ({elapsed:.0f} s)", file=sys.stderr, flush=True)


# ---- the measurements (each returns SI numbers) ----

def stream_bandwidth(torch, dev, nbytes: int, repeats: int) -> tuple[float, float]:
    """(read bytes/s of x.sum(), copy bytes/s of y.copy_(x) counting read + write) on `nbytes` buffers."""
    x = torch.ones(nbytes // 4, dtype=torch.float32, device=dev)
    y = torch.empty_like(x)
    read = nbytes / median_time_s(lambda: x.sum(), dev, repeats)
    copy = 2 * nbytes / median_time_s(lambda: y.copy_(x), dev, repeats)
    return read, copy


def cache_sweep(torch, dev, sizes_bytes: list[int], dram_read: float) -> tuple[dict[int, float], int]:
    """Read bandwidth per buffer size, and the largest size still read over 1.25x faster than DRAM."""
    sweep, effective = {}, 0
    for size in sizes_bytes:
        x = torch.ones(size // 4, dtype=torch.float32, device=dev)
        reps = max(3, min(50, int(2e9 / size)))
        sweep[size] = size / median_time_s(x.sum, dev, reps, warmup=2)
        if sweep[size] > 1.25 * dram_read:
            effective = size
    return sweep, effective


def gemm_peak_flops(torch, dev, dtype, sizes: tuple[int, ...], repeats: int) -> float:
    """Best FLOP/s of square n x n x n GEMMs (2 n^3 FLOPs each)."""
    best = 0.0
    for n in sizes:
        a = torch.randn(n, n, device=dev).to(dtype)
        b = torch.randn(n, n, device=dev).to(dtype)
        best = max(best, 2.0 * n**3 / median_time_s(functools.partial(torch.matmul, a, b), dev, repeats))
    return best


def fp8_peak_flops(torch, dev, n: int, repeats: int) -> float | None:
    """FP8 (e4m3) GEMM FLOP/s through torch._scaled_mm, or None where the GPU or torch lacks it."""
    if dev.type != "cuda" or torch.cuda.get_device_capability(dev) < (8, 9) or not hasattr(torch, "float8_e4m3fn"):
        return None
    try:
        a = torch.randn(n, n, device=dev).to(torch.float8_e4m3fn)
        b = torch.randn(n, n, device=dev).to(torch.float8_e4m3fn).t()
        one = torch.tensor(1.0, device=dev)
        return 2.0 * n**3 / median_time_s(lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16), dev, repeats)
    except (RuntimeError, TypeError):
        return None


def block_shapes(hidden: int) -> list[tuple[int, int]]:
    """(in, out) of the weight GEMMs of one Llama-style block at `hidden` (GQA 4:1, ffn 2.75 x hidden)."""
    ffn = int(2.75 * hidden)
    return [(hidden, hidden * 3 // 2), (hidden, hidden), (hidden, 2 * ffn), (ffn, hidden)]


def weight_gemm_sweep(torch, dev, dtype, hidden: int, total_bytes: float, ms: tuple[int, ...], repeats: int):
    """Time x[M, in] @ W[in, out] over a stack of block weights totalling ~total_bytes, for each M.

    The stack is several blocks of distinct weights, so every matrix is streamed from memory
    (the stack is many times the last-level cache). Returns (weight_bytes, params, {M: seconds}).
    """
    shapes = block_shapes(hidden)
    elem = torch.tensor([], dtype=dtype).element_size()
    per_block = sum(i * o for i, o in shapes) * elem
    blocks = max(1, int(math.ceil(total_bytes / per_block)))
    weights = [torch.empty(o, i, device=dev, dtype=dtype).uniform_(-0.03, 0.03) for _ in range(blocks) for i, o in shapes]
    params = sum(w.numel() for w in weights)
    times = {}
    for m in ms:
        xs = {i: torch.randn(m, i, device=dev).to(dtype) for i, _ in shapes}

        def run(xs=xs):
            for w in weights:
                torch.nn.functional.linear(xs[w.shape[1]], w)

        times[m] = median_time_s(run, dev, repeats if m <= 256 else 3, warmup=1)
    return params * elem, params, times


def fit_overlap(params: int, weight_bytes: float, times: dict[int, float], act_bytes: Callable[[int], float]):
    """Fit the GEMM compute ceiling C (FLOP/s) and overlap exponent p to the sweep.

    Memory ceiling: weight_bytes / t(M=1) (the GEMV; its compute is negligible). Then C and p
    minimise the squared log error of pnorm(2 * params * M / C, bytes(M) / bw) over the sweep.
    """
    ms = np.array(sorted(times), dtype=np.float64)
    t = np.array([times[int(m)] for m in ms])
    mem_bytes = weight_bytes + np.array([act_bytes(int(m)) for m in ms])
    t_mem1 = times[1]
    for _ in range(3):  # the GEMV's own small compute time is removed from t(M=1) once C and p are known
        bw = mem_bytes[0] / t_mem1
        c_guess = 2.0 * params * ms[-1] / t[-1]
        best = (np.inf, c_guess, 1.0)
        for c in c_guess * np.geomspace(0.7, 2.0, 61):
            for p in np.concatenate([np.linspace(1.0, 3.0, 41), np.linspace(3.2, 8.0, 25)]):
                err = np.sum(np.log(pnorm_time_s(2.0 * params * ms / c, mem_bytes / bw, p) / t) ** 2)
                if err < best[0]:
                    best = (err, c, p)
        _, c, p = best
        rest = times[1] ** p - (2.0 * params / c) ** p
        t_mem1 = rest ** (1.0 / p) if rest > 0 else times[1]
    return float(bw), float(c), float(p)


def forward_step_times(torch, dev, layers_small: int, layers_large: int, repeats: int) -> tuple[float, float]:
    """Seconds of a decode step of the decoder at tiny width (dispatch only) with two depths.

    t(L) = fixed + L * per_layer; `fixed` covers embedding, final norm, LM head, argmax and the
    step's setup (positions, mask, RoPE tables), `per_layer` the operators of one block.
    """
    from roofline.decoder import build_decoder, decode_one_token, new_kv_cache
    from roofline.model import model_from_dict

    def step_time(layers: int) -> float:
        spec = model_from_dict({"name": "tiny", "layers": layers, "hidden_size": 64, "heads": 4, "kv_heads": 1,
                                "head_dim": 16, "ffn_size": 176, "vocab_size": 256})
        model = build_decoder(spec, dtype=torch.bfloat16, device=dev)
        cache = new_kv_cache(model, 1, 64)
        tok = torch.zeros(1, dtype=torch.long, device=dev)
        pos = torch.full((1,), 16, dtype=torch.long, device=dev)
        return median_time_s(lambda: decode_one_token(model, cache, tok, pos), dev, repeats, warmup=3)

    return step_time(layers_small), step_time(layers_large)


def attention_timings(torch, dev, batch: int, context: int, layers: int, repeats: int) -> dict[int, tuple[float, float, float]]:
    """{q: (seconds, FLOPs, KV bytes)} of the decoder's attention kernel at q = 1 and q = 32.

    16 query heads, 4 KV heads, head_dim 128; KV for `layers` layers is cycled so it streams from
    memory. FLOPs and bytes are counted as roofline.costs counts them.
    """
    from roofline.decoder import attention

    heads, kvh, hd = 16, 4, 128
    kv = [(torch.randn(batch, kvh, context + 32, hd, device=dev).to(torch.bfloat16),
           torch.randn(batch, kvh, context + 32, hd, device=dev).to(torch.bfloat16)) for _ in range(layers)]
    out = {}
    for q_len in (1, 32):
        q = torch.randn(batch, q_len, heads, hd, device=dev).to(torch.bfloat16)
        length = context + q_len
        pos = context + torch.arange(q_len, device=dev)
        allowed = (torch.arange(length, device=dev)[None, :] <= pos[:, None]).expand(batch, q_len, length)

        def run(q=q, length=length, allowed=allowed):
            for k, v in kv:
                attention(q, k[:, :, :length], v[:, :, :length], allowed)

        seconds = median_time_s(run, dev, repeats, warmup=1)
        flops = layers * 2.0 * heads * 2 * hd * batch * q_len * (context + (q_len + 1) / 2)
        out[q_len] = (seconds, flops, layers * batch * length * 2 * kvh * hd * 2.0)
    return out


def attention_ceilings(timings: dict[int, tuple[float, float, float]], p: float) -> tuple[float, float]:
    """(KV bytes/s, FLOP/s) of the attention kernel: the KV stream rate at q = 1 (its compute is small),
    then the FLOP rate at q = 32 under overlap exponent p, (t_c^p + t_m^p)^(1/p) = t."""
    t1, _, b1 = timings[1]
    t32, f32, b32 = timings[32]
    bw = b1 / t1
    rest = t32**p - (b32 / bw) ** p
    t_c = rest ** (1.0 / p) if rest > 0 else t32
    return bw, f32 / t_c


def vector_bandwidth(torch, dev, tokens: int, hidden: int, repeats: int) -> float:
    """Activation bytes/s of one block's elementwise operators, counted as roofline.costs counts them.

    Runs what the decoder runs per layer outside GEMMs and attention (2 RMSNorms, RoPE on q and k,
    SiLU(gate) * up, 2 residual adds) on `tokens` tokens, over 8 layers' worth of distinct buffers.
    """
    from roofline.costs import ACTIVATION_BYTES, ELEMENTWISE_PASSES
    from roofline.decoder import apply_rope, rms_norm, rope_tables

    bf16 = torch.bfloat16
    heads, kvh, hd, ffn = 16, 4, 128, int(2.75 * hidden)
    positions = torch.arange(tokens, device=dev)[None, :]
    cos, sin = rope_tables(positions, hd, bf16)
    layers = 8
    bufs = [(torch.randn(1, tokens, hidden, device=dev).to(bf16),
             torch.randn(1, tokens, (heads + kvh) * hd, device=dev).to(bf16),
             torch.randn(1, tokens, 2 * ffn, device=dev).to(bf16)) for _ in range(layers)]
    weight = torch.ones(hidden, device=dev, dtype=bf16)

    def run():
        for x, qk, gu in bufs:
            h = rms_norm(x, weight)
            apply_rope(qk.view(1, tokens, heads + kvh, hd), cos, sin)
            x = x + h
            rms_norm(x, weight)
            gate, up = gu.chunk(2, dim=-1)
            torch.nn.functional.silu(gate) * up
            x = x + h

    seconds = median_time_s(run, dev, repeats, warmup=2)
    counted_bytes = layers * tokens * hidden * ELEMENTWISE_PASSES * ACTIVATION_BYTES
    return counted_bytes / seconds


# ---- the profile ----

def _fmt(value: float, unit: str) -> str:
    """A unit string with a prefix that keeps 4 significant digits: 2.75e10, 'B/s' -> '27.5 GB/s'."""
    for prefix, factor in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3), ("", 1.0)):
        if abs(value) >= factor:
            return f"{value / factor:.4g} {prefix}{unit}"
    return f"{value:.4g} {unit}"


def _fmt_seconds(value_s: float) -> str:
    for unit, factor in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if value_s >= factor:
            return f"{value_s / factor:.4g} {unit}"
    return f"{value_s / 1e-9:.4g} ns"


def _device_facts(torch, dev) -> tuple[str, str, float, float]:
    """(display name, kind, memory bytes, last-level cache bytes as the OS reports it)."""
    if dev.type == "cuda":
        props = torch.cuda.get_device_properties(dev)
        l2 = float(getattr(props, "L2_cache_size", 0) or 50e6)
        return props.name, "gpu", float(props.total_memory), l2
    name = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")) if hasattr(os, "sysconf") else 8e9
    llc = 0.0
    for index in range(4, -1, -1):
        path = f"/sys/devices/system/cpu/cpu0/cache/index{index}/size"
        if os.path.exists(path):
            text = open(path, encoding="utf-8").read().strip()
            units = {"K": 1024, "M": 1024**2, "G": 1024**3}
            llc = float(text[:-1]) * units[text[-1]] if text[-1] in units else float(text)
            break
    return f"{name} ({os.cpu_count()} cores)", "cpu", memory, llc or 32e6


def _load_average() -> str:
    """The 1-minute load average when the measurement ended (other processes share the cores)."""
    try:
        return open("/proc/loadavg", encoding="utf-8").read().split()[0]
    except OSError:
        return "unknown"


def measure(torch, dev, seconds_budget: float = 100, progress: bool = True, rounds: int = 3) -> dict:
    """Run every micro-benchmark `rounds` times, some seconds apart, and keep the median round of each.

    Other processes share the cores (and the host's memory bandwidth) of a small VM: a burst of
    theirs during one round would read as a slow machine, a quiet moment as a fast one. The median
    of the rounds (each itself a median of repeats) is what a workload typically sees, the same
    statistic `roofline validate` reports for its measurements. Returns SI numbers.
    """
    start = time.perf_counter()
    scale = max(0.25, min(2.0, seconds_budget / 100.0))
    reps = max(3, int(round(7 * scale)))
    gpu = dev.type == "cuda"
    steps = _Progress(7 * rounds, progress)
    name, kind, memory_bytes, llc_bytes = _device_facts(torch, dev)
    m = {"device_name": name, "kind": kind, "device_type": dev.type, "memory_bytes": memory_bytes, "llc_bytes": llc_bytes,
         "hidden": 8192 if gpu else 2048, "square": (4096, 8192) if gpu else (1024, 2048, 3072), "rounds": rounds,
         "stream_bytes": int(4 * 2**30) if gpu else int(max(512 * 2**20, 2 * llc_bytes))}
    shapes = block_shapes(m["hidden"])
    runs: dict = {"read_bw": [], "copy_bw": [], "peaks": [], "gemm_sweep": [], "attention": [], "vector_bw": [], "overhead": []}
    for r in range(rounds):
        tag = f"round {r + 1}/{rounds}: "
        read, copy = stream_bandwidth(torch, dev, m["stream_bytes"], reps + 2)
        runs["read_bw"].append(read)
        runs["copy_bw"].append(copy)
        steps.step(f"{tag}stream read {_fmt(read, 'B/s')}, copy {_fmt(copy, 'B/s')}")

        if r == 0:
            sizes = [2**20 * s for s in ((4, 16, 64, 256, 1024) if gpu else (1, 4, 16, 32, 64, 128, 256, 512))]
            m["cache_sweep"], m["effective_cache"] = cache_sweep(torch, dev, sizes, read)
        steps.step(f"{tag}cache sweep: faster than DRAM up to {_fmt(m['effective_cache'], 'B')}")

        peaks = {"fp32": gemm_peak_flops(torch, dev, torch.float32, m["square"], reps),
                 "bf16": gemm_peak_flops(torch, dev, torch.bfloat16, m["square"], reps)}
        if gpu:
            peaks["fp16"] = gemm_peak_flops(torch, dev, torch.float16, m["square"], reps)
            fp8 = fp8_peak_flops(torch, dev, m["square"][-1], reps)
            if fp8:
                peaks["fp8"] = fp8
        runs["peaks"].append(peaks)
        steps.step(tag + "GEMM peaks " + ", ".join(f"{k} {_fmt(v, 'FLOP/s')}" for k, v in peaks.items()))

        total = 8 * 2**30 if gpu else 1.0e9
        m["weight_bytes"], params, sweep = weight_gemm_sweep(torch, dev, torch.bfloat16, m["hidden"], total, GEMM_SWEEP_M, reps)
        runs["gemm_sweep"].append(sweep)
        steps.step(f"{tag}weight-streaming GEMM sweep: GEMV {_fmt(m['weight_bytes'] / sweep[1], 'B/s')}")

        timings = attention_timings(torch, dev, batch=64 if gpu else 16, context=4096 if gpu else 1024, layers=16, repeats=reps)
        runs["attention"].append(timings)
        steps.step(f"{tag}attention kernel: KV stream {_fmt(timings[1][2] / timings[1][0], 'B/s')}")

        vec = vector_bandwidth(torch, dev, tokens=8192 if gpu else 256, hidden=m["hidden"], repeats=reps)
        runs["vector_bw"].append(vec)
        steps.step(f"{tag}elementwise operators: {_fmt(vec, 'B/s')} of activations")

        small, large = forward_step_times(torch, dev, *OVERHEAD_DEPTHS, reps * 4)
        runs["overhead"].append((small, large))
        steps.step(f"{tag}forward pass at tiny width: {_fmt_seconds(small)} ({OVERHEAD_DEPTHS[0]} layers), "
                   f"{_fmt_seconds(large)} ({OVERHEAD_DEPTHS[1]} layers)")

    med = statistics.median
    best = {
        "read_bw": med(runs["read_bw"]), "copy_bw": med(runs["copy_bw"]), "vector_bw": med(runs["vector_bw"]),
        "peaks": {k: med(r[k] for r in runs["peaks"]) for k in runs["peaks"][0]},
        "gemm_sweep": {n: med(r[n] for r in runs["gemm_sweep"]) for n in runs["gemm_sweep"][0]},
        "attention": {q: tuple(med(r[q][i] for r in runs["attention"]) for i in range(3)) for q in runs["attention"][0]},
        "overhead": tuple(med(r[i] for r in runs["overhead"]) for i in range(2)),
    }
    blocks = params / sum(i * o for i, o in shapes)
    act = lambda n: blocks * sum((i + o) * n * 2.0 for i, o in shapes)  # noqa: E731  activations in + out, bf16
    m["gemv_bw"], m["gemm_flops"], m["p"] = fit_overlap(params, m["weight_bytes"], best["gemm_sweep"], act)
    m["attn_bw"], m["attn_flops"] = attention_ceilings(best["attention"], m["p"])
    shallow, deep = OVERHEAD_DEPTHS
    per_layer = max(0.0, (best["overhead"][1] - best["overhead"][0]) / (deep - shallow))
    m["overhead_s"], m["layer_overhead_s"] = max(best["overhead"][0] - shallow * per_layer, 1e-7), per_layer
    m.update(read_bw=best["read_bw"], copy_bw=best["copy_bw"], peaks=best["peaks"], gemm_sweep=best["gemm_sweep"],
             vector_bw=best["vector_bw"])
    m["threads"] = torch.get_num_threads()
    m["torch"] = str(torch.__version__)
    m["seconds"] = time.perf_counter() - start
    m["load_average"] = _load_average()
    m["date"] = datetime.datetime.now(datetime.timezone.utc)
    if progress:
        print(f"calibrate: GEMV {_fmt(m['gemv_bw'], 'B/s')}, GEMM {_fmt(m['gemm_flops'], 'FLOP/s')} at weight shapes, "
              f"overlap exponent {m['p']:.2f}; attention {_fmt(m['attn_bw'], 'B/s')}, {_fmt(m['attn_flops'], 'FLOP/s')}; "
              f"overhead {_fmt_seconds(m['overhead_s'])} + {_fmt_seconds(m['layer_overhead_s'])} per layer "
              f"({m['seconds']:.0f} s)", file=sys.stderr, flush=True)
    return m


def build_profile(m: dict) -> dict:
    """The hardware-profile mapping (PROFILES.md schema, units on every number) from `measure`'s results."""
    peaks = dict(m["peaks"])
    mem_eff = min(1.0, m["gemv_bw"] / m["read_bw"])
    compute_eff = min(1.0, m["gemm_flops"] / peaks["bf16"])
    peaks["bf16"] = max(peaks["bf16"], m["gemm_flops"])
    gpu = m["device_type"] == "cuda"
    date = m["date"]
    return {
        "name": f"measured-{m['device_type']}",
        "display_name": f"{m['device_name']}, measured",
        "kind": m["kind"],
        "memory": _fmt(m["memory_bytes"], "B"),
        "memory_bandwidth": _fmt(m["read_bw"], "B/s"),
        "peak_flops": {k: _fmt(v, "FLOP/s") for k, v in peaks.items()},
        "on_chip_cache": _fmt(m["llc_bytes"], "B"),
        "link_bandwidth": "25 GB/s" if gpu else "16 GB/s",
        "link_latency": "10 us",
        "efficiency": {"memory": round(mem_eff, 4), "compute": round(compute_eff, 4), "link": 0.8},
        "step_overhead": _fmt_seconds(m["overhead_s"]),
        "overlap_exponent": round(max(1.0, m["p"]), 3),
        "layer_overhead": _fmt_seconds(max(m["layer_overhead_s"], 1e-9)),
        "operator_ceilings": {
            "attention_compute": _fmt(m["attn_flops"], "FLOP/s"),
            "attention_memory": _fmt(m["attn_bw"], "B/s"),
            "elementwise_memory": _fmt(m["vector_bw"], "B/s"),
        },
        "measured": True,
        "measured_date": date.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "measured_device": m["device_name"],
        "measured_torch": m["torch"],
        "measured_threads": m["threads"],
        "measured_seconds": round(m["seconds"], 1),
        "measured_rounds": m["rounds"],
        "measured_load_average": m["load_average"],
        "measured_copy_bandwidth": _fmt(m["copy_bw"], "B/s"),
        "measured_gemv_bandwidth": _fmt(m["gemv_bw"], "B/s"),
        "measured_gemm_flops_weight_shapes": _fmt(m["gemm_flops"], "FLOP/s"),
        "measured_effective_cache": _fmt(max(m["effective_cache"], 1), "B"),
        "measured_cache_sweep": {_fmt(size, "B"): _fmt(bw, "B/s") for size, bw in m["cache_sweep"].items()},
        "measured_gemm_sweep": {int(n): _fmt_seconds(t) for n, t in m["gemm_sweep"].items()},
        "source": (
            f"roofline calibrate --device {m['device_type']} on {date:%Y-%m-%d}, torch {m['torch']}, {m['threads']} threads, "
            f"{m['seconds']:.0f} s, load average {m['load_average']} at the end. Each number: the median of repeats after "
            f"warm-up; the median of {m['rounds']} rounds some seconds apart.\n"
            f"memory_bandwidth: x.sum() over a {_fmt(m['stream_bytes'], 'B')} fp32 buffer. "
            f"peak_flops: best square GEMM of sizes {', '.join(map(str, m['square']))}.\n"
            f"efficiency.memory = GEMV bandwidth (M = 1 over {_fmt(m['weight_bytes'], 'B')} of bf16 block weights at hidden "
            f"{m['hidden']}) / memory_bandwidth. efficiency.compute and overlap_exponent: fitted to the same weights' GEMM "
            f"time over M = {', '.join(map(str, GEMM_SWEEP_M))} (compute ceiling / peak bf16).\n"
            "step_overhead and layer_overhead: decode step of the decoder at hidden 64 with 2 and 16 layers "
            "(fixed part, per-layer part).\n"
            "operator_ceilings: the decoder's attention kernel on a synthetic KV cache (KV stream at q = 1, FLOP/s at "
            "q = 32) and its elementwise operators on 256 tokens, bytes and FLOPs counted as roofline.costs counts them.\n"
            "on_chip_cache: as the OS reports it; measured_effective_cache: the largest buffer read over 1.25x faster than DRAM."
        ),
        "notes": (
            "Measured, not a datasheet: peaks are what PyTorch reaches here, and efficiencies are relative to them. "
            "efficiency.memory scales the streaming read down to what a weight-streaming GEMV sustains while it also "
            "multiplies; efficiency.compute scales the best square GEMM down to LLM weight shapes. "
            "overlap_exponent p: per operator t = (t_compute^p + t_memory^p)^(1/p); p near 1 means the cores that compute "
            "also stream, so memory and compute time mostly add near the ridge point. "
            "operator_ceilings: attention and the eager elementwise kernels reach far less than the GEMM ceilings on "
            "a CPU (the attention kernel converts and reduces in the vector unit; each elementwise op is its own pass). "
            "layer_overhead: operator dispatch per block in eager PyTorch. "
            "link_bandwidth and link_latency are placeholders: one device, no link measured."
        ),
    }


def run_calibrate(device: str = "cpu", seconds_budget: float = 100, progress: bool = True) -> dict:
    """Measure this machine and return a hardware-profile mapping (docs/PROFILES.md schema, measured: true).

    `seconds_budget` scales the repeats (100: about a minute and a half on 2 CPU cores). Raises RooflineError when torch is missing or the requested device is absent.
    """
    torch, dev = setup_runtime(device)
    return build_profile(measure(torch, dev, seconds_budget, progress))


def profile_to_yaml(d: dict) -> str:
    """The profile as YAML, keys in schema order, with a one-line header comment."""
    header = f"# Measured by `roofline calibrate` on {d.get('measured_date', '?')}: {d.get('measured_device', '?')}, torch {d.get('measured_torch', '?')}\n"
    return header + yaml.safe_dump(d, sort_keys=False, allow_unicode=True, width=110)
