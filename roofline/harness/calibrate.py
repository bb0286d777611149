"""Calibration: measure this machine's ceilings with PyTorch and write them as a hardware profile.

Every number is a micro-benchmark on synthetic tensors (never the validation runs), timed as the
median of repeats after warm-up. What each profile field means physically, as measured here:

    memory_bandwidth      streaming read (x.sum()) of a buffer far larger than the last-level cache
    efficiency.memory     weight-streaming GEMV bandwidth / memory_bandwidth: the share of the stream
                          a matrix-vector product (M = 1 token) sustains while it also does the math
    peak_flops[dtype]     best large square GEMM in that dtype (fp32, bf16; fp16 and fp8 on a GPU)
    efficiency.compute    GEMM throughput at LLM weight shapes and large M / peak_flops[dtype]
    overlap_exponent p    how memory and compute time of one operator combine,
                          t = (t_compute^p + t_memory^p)^(1/p): p = 1 is no overlap at all (the sum),
                          p -> inf perfect overlap (the roofline max); fitted on a sweep of M
    step_overhead         fixed cost of a forward pass: the decoder at tiny width (every operator
                          launched, no bytes or FLOPs to speak of), minus its per-layer part
    layer_overhead        the per-layer part of that cost (operator dispatch per block)
                          with --cuda-graphs: both timed as CUDA-graph replays (the kernels' floors), and a weight
                          GEMM's latency past them added, gemm_latency (graph_costs): layer_overhead = per_layer +
                          4 gemm_latency (GEMMS_PER_BLOCK), step_overhead = fixed + gemm_latency (the LM head)
    operator_ceilings     attention_memory / attention_compute: the attention kernel's KV stream
                          rate (q = 1) and FLOP rate (q = 32), well below the GEMM ceilings on a CPU;
                          elementwise_memory: activation bytes per second of the elementwise operators
                          (RMSNorm, RoPE, SiLU*up, residual adds) as roofline.costs counts them;
                          attention_stream (--cuda-graphs only): one (sequence, KV head)'s KV stream in the attention
                          kernel at batch 1 (graph_costs), a cap only under an engine that does not split keys
    measured_*            the raw material: copy bandwidth, GEMV bandwidth, the GEMM sweep, the cache
                          sweep and the effective cache size, date, device, torch, load average

Everything runs in one dtype, `--dtype` (bf16 by default, or fp32 where the device has no bf16
units): the square GEMM peak, the weight GEMM sweep, the attention kernel and KV cache, the
elementwise operators and the tiny-width decoder. The profile's efficiency.compute is taken against
that dtype's peak, so a prediction with weights and KV cache in the same dtype uses the measured
ceiling. (bf16 runs also time the fp32 peak, as a profile's second dtype.)

`measure` returns a `Calibration` (frozen, SI units, the unit in every field name);
`build_profile(calibration)` turns it into the profile mapping (PROFILES.md schema, units on every
number); `run_calibrate` does both; `profile_to_yaml` renders the mapping. Overlap follows
`roofline.engine.op_time_s` and attention FLOPs `roofline.costs.attention_flops`, the functions the
predictions use. torch is imported lazily (`roofline.harness.runtime`): without it, one RooflineError.
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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
import yaml

from roofline.costs import ACTIVATION_BYTES, attention_flops
from roofline.engine import op_time_s
from roofline.harness.runtime import (
    busy_machine_note,
    check_cuda_graphs,
    graph_launch_time_s,
    interleave,
    median_time_s,
    setup_runtime,
    torch_dtype,
)
from roofline.units import format_seconds, format_si

ELEMENTWISE_TOKENS = {True: 8192, False: 256}  # tokens of the elementwise-operator benchmark, on a GPU and on a CPU
OVERHEAD_DEPTHS = (2, 16)  # layers of the tiny-width decoder whose step times give step_overhead and layer_overhead
# M of the weight-GEMM sweep: every row count from 1 to 5 and several to 16, where decode steps and the verify
# passes of small batches run (k + 1 rows at batch 1), then the road past the ridge point. A BLAS whose small-M
# kernels are uneven (MKL on an AVX2 EPYC: 3 rows 1.5-1.7x a 1-row pass, 4 rows 0.9-1.1x) is then fitted on
# the rows decoding uses, not on one lucky row count (docs/VALIDATION.md, session 6)
GEMM_SWEEP_M = (1, 2, 3, 4, 5, 8, 9, 12, 16, 24, 32, 48, 64, 80, 96, 128, 192, 256, 512, 1024)
# largest M of the GEMM sweep per dtype: far past the ridge point (bf16 on AMX: about 100 tokens;
# fp32 on AVX2/AVX-512 FMAs: a few tokens), and fp32 GEMMs at M = 1024 over 1 GB take seconds each
GEMM_SWEEP_MAX_M = {"bf16": 1024, "fp32": 64}
# --cuda-graphs: what a captured pass costs beyond the tiny-width decoder's kernel floors and its bytes
GRAPH_GEMV_MB = (2, 4, 8, 16, 32, 64)  # weight sizes of the GEMV latency sweep (validation-small's GEMMs: 8-46 MB)
GRAPH_OPERAND_BYTES = 512 * 2**20  # operands of one graph together: several times a GPU's L2 (50-60 MB on an H100/H200)
GEMMS_PER_BLOCK = 4  # the decoder's weight GEMMs a block: fused QKV, output, fused gate+up, down (the LM head: one a pass)
ATTENTION_STREAM_TOKENS = (512, 4096)  # cached tokens of the two attention timings whose difference gives one stream's rate


@dataclass(frozen=True)
class Calibration:
    """What `measure` found on this machine: SI units, the unit in every name, nothing mutable.

    The mappings (GEMM peaks by dtype, the cache and GEMM sweeps) are read-only views.
    """

    device_name: str
    kind: str                                  # profile kind: "cpu" or "gpu"
    device_type: str                           # torch device type: "cpu" or "cuda"
    memory_bytes: float
    last_level_cache_bytes: float              # as the OS (or the CUDA driver) reports it
    stream_buffer_bytes: float                 # size of the buffer the streaming read covers
    stream_bw_bytes_per_s: float               # x.sum() over that buffer: memory_bandwidth
    copy_bw_bytes_per_s: float                 # y.copy_(x), read + write bytes
    cache_sweep_bw_bytes_per_s: Mapping[int, float]   # buffer bytes -> read bytes/s
    effective_cache_bytes: float               # end of the run of buffers read over 1.25x faster than DRAM (0: none)
    square_gemm_sizes: tuple[int, ...]
    dtype: str                                 # what the GEMM sweep, attention, elementwise and decoder ran in
    peak_flops_per_s: Mapping[str, float]      # dtype -> best square GEMM FLOP/s
    gemm_hidden_size: int                      # hidden size of the block weights of the GEMM sweep
    gemm_weight_bytes: float                   # bytes of those weights (streamed per sweep point)
    gemm_sweep_s: Mapping[int, float]          # M (tokens) -> seconds over all those weights
    gemv_bw_bytes_per_s: float                 # fitted weight-streaming bandwidth (M = 1)
    gemm_flops_per_s: float                    # fitted GEMM ceiling at weight shapes, in `dtype`
    overlap_exponent: float                    # fitted p of (t_c^p + t_m^p)^(1/p)
    attention_memory_bytes_per_s: float        # attention kernel's KV stream at q = 1
    attention_compute_flops_per_s: float       # attention kernel's FLOP rate at q = 32
    elementwise_memory_bytes_per_s: float      # activation bytes/s of the elementwise operators
    step_overhead_s: float                     # fixed cost of a forward pass
    layer_overhead_s: float                    # per-layer part of that cost
    cuda_graphs: bool                          # the passes behind the two overheads replayed CUDA graphs
    threads: int
    rounds: int
    torch_version: str
    elapsed_s: float                           # wall time of the whole measurement
    load_average: str                          # 1-minute load average when it ended
    date: datetime.datetime
    # --cuda-graphs only (None / empty otherwise): kernels timed inside CUDA graphs (graph_gemv_times,
    # graph_attention_times) and what they give the profile
    graph_gemv_s: Mapping[int, float] = field(default_factory=dict)       # weight bytes -> one GEMV (M = 1)
    graph_tiny_gemv_s: float | None = None                                # the tiny-width decoder's largest GEMV
    graph_attention_s: Mapping[int, float] = field(default_factory=dict)  # cached tokens -> one layer's attention, batch 1
    gemm_latency_s: float | None = None        # a weight GEMM's latency beyond its bytes and the tiny GEMM's floor
    attention_stream_bytes_per_s: float | None = None  # one (sequence, KV head)'s KV stream in the attention kernel

    def __post_init__(self):
        for name in ("cache_sweep_bw_bytes_per_s", "peak_flops_per_s", "gemm_sweep_s", "graph_gemv_s", "graph_attention_s"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))
        object.__setattr__(self, "square_gemm_sizes", tuple(self.square_gemm_sizes))


class _Progress:
    """One stderr line per phase: `calibrate [3/8] GEMM peaks ... 12 s`."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.done, self.enabled, self.start = total, 0, enabled, time.perf_counter()

    def step(self, what: str) -> None:
        self.done += 1
        if self.enabled:
            elapsed = time.perf_counter() - self.start
            print(f"calibrate [{self.done}/{self.total}] {what} ({elapsed:.0f} s)", file=sys.stderr, flush=True)


def _si(value: float, unit: str) -> str:
    """A profile quantity with 4 significant digits: 2.75e10, 'B/s' -> '27.5 GB/s'."""
    return format_si(value, unit, digits=4)


# ---- the measurements (each returns SI numbers) ----

def stream_bandwidth(torch, dev, nbytes: int, repeats: int) -> tuple[float, float]:
    """(read bytes/s of x.sum(), copy bytes/s of y.copy_(x) counting read + write) on `nbytes` buffers."""
    x = torch.ones(nbytes // 4, dtype=torch.float32, device=dev)
    y = torch.empty_like(x)
    read = nbytes / median_time_s(lambda: x.sum(), dev, repeats)
    copy = 2 * nbytes / median_time_s(lambda: y.copy_(x), dev, repeats)
    return read, copy


def cache_sweep(torch, dev, sizes_bytes: list[int]) -> dict[int, float]:
    """Read bandwidth (bytes/s) per buffer size (bytes)."""
    sweep = {}
    for size in sizes_bytes:
        x = torch.ones(size // 4, dtype=torch.float32, device=dev)
        reps = max(3, min(50, int(2e9 / size)))
        sweep[size] = size / median_time_s(x.sum, dev, reps, warmup=2)
    return sweep


def effective_cache_bytes(sweep_bw_bytes_per_s: Mapping[int, float], dram_read_bytes_per_s: float) -> int:
    """The end of the run of buffers, from the smallest up, read over 1.25x faster than DRAM (0: none): a cache is
    fast from the smallest buffer to its size, and a larger buffer read fast after a slow one is the machine's noise,
    not a cache (a 537 MB 'effective cache' on a 32 MiB L3, 2026-12-01). Both are medians over the rounds: one
    round's stalled stream read made every buffer look cache-fast."""
    end = 0
    for size in sorted(sweep_bw_bytes_per_s):
        if sweep_bw_bytes_per_s[size] <= 1.25 * dram_read_bytes_per_s:
            break
        end = size
    return end


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
    """Time x[M, in] @ W[in, out] (decoder.linear) over a stack of block weights totalling ~total_bytes, for each M.

    The stack is several blocks of distinct weights, so every matrix is streamed from memory
    (the stack is many times the last-level cache). Returns (weight_bytes, params, {M: seconds}).
    """
    from roofline.harness.decoder import linear  # the decoder's own weight GEMM, so the sweep times what it runs

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
                linear(xs[w.shape[1]], w)

        times[m] = median_time_s(run, dev, repeats if m <= 256 else 3, warmup=1)
    return params * elem, params, times


def fit_overlap(params: int, weight_bytes: float, times: Mapping[int, float], act_bytes: Callable[[int], float]):
    """Fit the GEMM compute ceiling C (FLOP/s) and overlap exponent p to the sweep; returns (bw, C, p).

    Memory ceiling: weight_bytes / t(M=1) (the GEMV; its compute is negligible). Then C and p
    minimise the squared log error of roofline.engine.op_time_s(2 * params * M, bytes(M), C, bw, p)
    over the sweep.
    """
    ms = np.array(sorted(times), dtype=np.float64)
    t = np.array([times[int(m)] for m in ms])
    mem_bytes = weight_bytes + np.array([act_bytes(int(m)) for m in ms])
    flops = 2.0 * params * ms
    t_mem1 = times[1]
    for _ in range(3):  # the GEMV's own small compute time is removed from t(M=1) once C and p are known
        bw = mem_bytes[0] / t_mem1
        c_guess = flops[-1] / t[-1]
        cs = c_guess * np.geomspace(0.7, 2.0, 61)
        ps = np.concatenate([np.linspace(1.0, 3.0, 41), np.linspace(3.2, 8.0, 25)])
        # err[i, j]: squared log error over the sweep at C = cs[i], p = ps[j] (all C at once per p)
        err = np.stack([np.sum(np.log(op_time_s(flops, mem_bytes, cs[:, None], bw, p) / t) ** 2, axis=1) for p in ps], axis=1)
        err = np.where(np.isfinite(err), err, np.inf)
        if np.isfinite(err).any():
            i, j = np.unravel_index(np.argmin(err), err.shape)  # the first minimum, C-major as a nested loop finds it
            c, p = float(cs[i]), float(ps[j])
        else:
            c, p = c_guess, 1.0
        rest = times[1] ** p - (2.0 * params / c) ** p
        t_mem1 = rest ** (1.0 / p) if rest > 0 else times[1]
    return float(bw), float(c), float(p)


def forward_step_times(torch, dev, layers_small: int, layers_large: int, repeats: int, dtype: str = "bf16",
                       cuda_graphs: bool = False) -> tuple[float, float]:
    """Seconds of a decode step of the decoder at tiny width (dispatch only) with two depths.

    t(L) = fixed + L * per_layer; `fixed` covers embedding, final norm, LM head, argmax and the
    step's setup (positions, mask, RoPE tables), `per_layer` the operators of one block. The two depths
    run in turn, `repeats` rounds (runtime.interleave), and each keeps its median: a slow spell of a shared
    host lands on both, not on one (on an H200 two runs timed apart gave a fixed part of 675 us and 949 us).
    With `cuda_graphs`, each pass replays a CUDA graph (decoder.cuda_graphs): what is left is its kernels' own time on
    the device (launch, ramp-up, tail: each kernel's floor) and one graph launch, not the host's dispatch.
    """
    from roofline.harness.decoder import build_decoder, decode_one_token, new_kv_cache, tiny_spec
    from roofline.harness.decoder import cuda_graphs as graphs

    def step(layers: int):
        model = build_decoder(tiny_spec(layers), dtype=torch_dtype(torch, dtype), device=dev)
        cache = new_kv_cache(model, 1, 64)
        tok = torch.zeros(1, dtype=torch.long, device=dev)
        pos = torch.full((1,), 16, dtype=torch.long, device=dev)
        return lambda: decode_one_token(model, cache, tok, pos, 17 if cuda_graphs else None)  # a graph's length is fixed

    with graphs(enabled=cuda_graphs):
        rounds = interleave([step(layers_small), step(layers_large)], repeats, dev, warmup=3)
    return statistics.median(r[0][0] for r in rounds), statistics.median(r[1][0] for r in rounds)


def graph_gemv_times(torch, dev, dtype, repeats: int) -> tuple[dict[int, float], float]:
    """({weight bytes: seconds} of one GEMV (M = 1, decoder.linear) per size of GRAPH_GEMV_MB, seconds of one GEMV of the
    tiny-width decoder's largest weight (its fused gate+up)), each one launch of a CUDA graph of many over distinct weights
    (runtime.graph_launch_time_s): the weights of one size together GRAPH_OPERAND_BYTES, so every launch of the sweep
    reads DRAM; the tiny GEMV's 64 weights (3 MB in bf16) stay in the L2 cache, as the tiny-width decoder's do in the
    pass whose floor it stands for."""
    from roofline.harness.decoder import linear, tiny_spec

    elem = torch.tensor([], dtype=dtype).element_size()
    hidden, times = 4096, {}
    for megabytes in GRAPH_GEMV_MB:
        rows = megabytes * 2**20 // (hidden * elem)
        weights = [torch.empty(rows, hidden, device=dev, dtype=dtype).uniform_(-0.03, 0.03)
                   for _ in range(max(8, GRAPH_OPERAND_BYTES // (rows * hidden * elem)))]
        x = torch.randn(1, hidden, device=dev).to(dtype)
        times[rows * hidden * elem] = graph_launch_time_s([functools.partial(linear, x, w) for w in weights], dev, repeats)
    tiny = tiny_spec(1)
    weights = [torch.empty(2 * tiny.ffn_size, tiny.hidden_size, device=dev, dtype=dtype).uniform_(-0.03, 0.03) for _ in range(64)]
    x = torch.randn(1, tiny.hidden_size, device=dev).to(dtype)
    return times, graph_launch_time_s([functools.partial(linear, x, w) for w in weights], dev, repeats)


def graph_attention_times(torch, dev, dtype, repeats: int) -> dict[int, float]:
    """{cached tokens: seconds} of one layer's attention (decoder.attention, batch 1, q = 1, 16 query heads on 4 KV heads
    of 128, validation-small's) at each length of ATTENTION_STREAM_TOKENS: one launch of a CUDA graph over distinct
    caches, together GRAPH_OPERAND_BYTES (in a pass the weights between two layers' attention evict the cache from L2).
    K and V are what decoder.forward hands the kernel: the first `length` positions of a longer cache (a strided view).
    On an H200 (torch 2.11) such views and contiguous K and V ran alike, about 20 ns a token, where the decoder's own
    pass spent about 35 ns a token in its attention kernel (cuDNN's flash kernel, profiled): not yet explained, and
    left short in its predictions (docs/VALIDATION.md, "CUDA graphs on a GPU")."""
    from roofline.harness.decoder import attention, folded_mask

    heads, kv_heads, head_dim, times = 16, 4, 128, {}
    elem = torch.tensor([], dtype=dtype).element_size()
    for length in ATTENTION_STREAM_TOKENS:
        calls = max(16, GRAPH_OPERAND_BYTES // (2 * kv_heads * length * head_dim * elem))
        caches = [torch.randn(2, 1, kv_heads, length + 8, head_dim, device=dev).to(dtype) for _ in range(calls)]
        kv = [(cache[0][:, :, :length], cache[1][:, :, :length]) for cache in caches]
        q = torch.randn(1, 1, heads, head_dim, device=dev).to(dtype)
        mask = folded_mask(torch.ones(1, 1, length, dtype=torch.bool, device=dev), heads // kv_heads)
        times[length] = graph_launch_time_s([functools.partial(attention, q, k, v, mask) for k, v in kv], dev, repeats)
    return times


def graph_costs(gemv_s: Mapping[int, float], tiny_gemv_s: float, attention_s: Mapping[int, float], gemv_bw_bytes_per_s: float,
                elem_bytes: int, head_dim: int = 128) -> tuple[float, float | None]:
    """(gemm_latency_s, attention_stream_bytes_per_s) from the kernels timed in CUDA graphs:

        gemm_latency     = max(0, median over sizes of (t_gemv(b) - b / gemv_bw) - t_gemv(tiny))
        attention_stream = 2 * head_dim * elem_bytes / ((t_attn(L2) - t_attn(L1)) / (L2 - L1)),   L1 < L2 the two
                           lengths timed; None where t_attn(L2) <= t_attn(L1) (no growth measured: no such ceiling)

    A weight GEMM pays its bytes at the fitted GEMV bandwidth (the profile's) plus a latency (launch, the first bytes'
    DRAM latency, ramp-up and tail) which the tiny-width decoder's GEMM, whose floor layer_overhead already holds, does
    not: the difference is what each weight GEMM of a captured pass costs more. Each additional cached token adds its
    K and V to every (sequence, KV head)'s stream, which the kernel runs on one unit without splitting its keys: the
    rate of one stream."""
    latency_s = statistics.median(t - b / gemv_bw_bytes_per_s for b, t in gemv_s.items()) - tiny_gemv_s
    (short, t_short), (long_, t_long) = sorted(attention_s.items())
    per_token_s = (t_long - t_short) / (long_ - short)
    return max(0.0, latency_s), (2 * head_dim * elem_bytes / per_token_s if per_token_s > 0 else None)


def attention_timings(torch, dev, batch: int, context: int, layers: int, repeats: int,
                      dtype: str = "bf16") -> dict[int, tuple[float, float, float]]:
    """{q: (seconds, FLOPs, KV bytes)} of the decoder's attention kernel at q = 1 and q = 32.

    16 query heads, 4 KV heads, head_dim 128; KV for `layers` layers is cycled so it streams from
    memory. FLOPs are roofline.costs.attention_flops at the mean causal length S + (q + 1) / 2, bytes
    the KV entries read once at the KV dtype's size, as roofline.costs counts them.
    """
    from roofline.harness.decoder import attention, folded_mask

    heads, kvh, hd, dt = 16, 4, 128, torch_dtype(torch, dtype)
    kv = [(torch.randn(batch, kvh, context + 32, hd, device=dev).to(dt),
           torch.randn(batch, kvh, context + 32, hd, device=dev).to(dt)) for _ in range(layers)]
    elem_bytes = float(kv[0][0].element_size())
    out = {}
    for q_len in (1, 32):
        q = torch.randn(batch, q_len, heads, hd, device=dev).to(dt)
        length = context + q_len
        pos = context + torch.arange(q_len, device=dev)
        allowed = (torch.arange(length, device=dev)[None, :] <= pos[:, None]).expand(batch, q_len, length)
        mask = folded_mask(allowed, heads // kvh)

        def run(q=q, length=length, mask=mask):
            for k, v in kv:
                attention(q, k[:, :, :length], v[:, :, :length], mask)

        seconds = median_time_s(run, dev, repeats, warmup=1)
        flops = layers * float(attention_flops(heads, hd, hd, batch * q_len, context + (q_len + 1) / 2))
        out[q_len] = (seconds, flops, layers * batch * length * 2 * kvh * hd * elem_bytes)
    return out


def attention_ceilings(timings: dict[int, tuple[float, float, float]], p: float) -> tuple[float, float]:
    """(KV bytes/s, FLOP/s) of the attention kernel: the KV stream rate at q = 1 (its compute is small),
    then the FLOP rate at q = 32 under overlap exponent p, solving (t_c^p + t_m^p)^(1/p) = t for t_c."""
    t1, _, b1 = timings[1]
    t32, f32, b32 = timings[32]
    bw = b1 / t1
    rest = t32**p - (b32 / bw) ** p
    t_c = rest ** (1.0 / p) if rest > 0 else t32
    return bw, f32 / t_c


def vector_bandwidth(torch, dev, tokens: int, hidden: int, repeats: int, dtype: str = "bf16") -> float:
    """Activation bytes/s of one block's elementwise operators, counted as roofline.costs counts them.

    Runs what the decoder runs per layer outside GEMMs and attention (2 RMSNorms, RoPE on q and k,
    SiLU(gate) * up, 2 residual adds) on `tokens` tokens in `dtype`, over 8 layers' worth of distinct
    buffers. Bytes are counted at roofline.costs.ACTIVATION_BYTES per element whatever the dtype, as the
    prediction counts them, so the ceiling is in the prediction's own bytes.
    """
    from roofline.costs import ELEMENTWISE_PASSES
    from roofline.harness.decoder import apply_rope, rms_norm, rope_tables

    dt = torch_dtype(torch, dtype)
    heads, kvh, hd, ffn = 16, 4, 128, int(2.75 * hidden)
    positions = torch.arange(tokens, device=dev)[None, :]
    cos, sin = rope_tables(positions, hd, dt)
    layers = 8
    bufs = [(torch.randn(1, tokens, hidden, device=dev).to(dt),
             torch.randn(1, tokens, (heads + kvh) * hd, device=dev).to(dt),
             torch.randn(1, tokens, 2 * ffn, device=dev).to(dt)) for _ in range(layers)]
    weight = torch.ones(hidden, device=dev, dtype=dt)

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


# ---- the machine ----

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


ROUNDS_DISAGREE_RATIO = 1.5  # calibration rounds whose largest figure over their smallest is more are said to disagree


def _warn_rounds_disagree(figures: dict[str, tuple[list[float], str]]) -> None:
    """Say where the rounds of a measurement differ by more than ROUNDS_DISAGREE_RATIO x (qa101: GEMV 2.76, 18.6 and 2.79
    GB/s on a busy machine, the median kept in silence, and validation's errors 3-5x)."""
    spread = {name: (min(v), max(v), unit) for name, (v, unit) in figures.items() if len(v) > 1 and min(v) > 0
              and max(v) / min(v) > ROUNDS_DISAGREE_RATIO}
    if spread:
        from roofline.errors import warn

        warn("calibration rounds disagree: " + "; ".join(f"{name} {_si(lo, unit)} to {_si(hi, unit)}"
                                                        for name, (lo, hi, unit) in spread.items())
             + ": other work shared the machine in some rounds; the median of the rounds is kept, and what is built on it "
             "(validate's predictions) is as uncertain")


def measure(torch, dev, seconds_budget: float = 100, progress: bool = True, rounds: int = 3, dtype: str = "bf16",
            cuda_graphs: bool = False) -> Calibration:
    """Run every micro-benchmark `rounds` times, some seconds apart, and keep the median round of each.

    Other processes share the cores (and the host's memory bandwidth) of a small VM: a burst of
    theirs during one round would read as a slow machine, a quiet moment as a fast one. The median
    of the rounds (each itself a median of repeats) is what a workload typically sees, the same
    statistic `roofline validate` reports for its measurements. Everything runs in `dtype` (bf16 or fp32).
    With `cuda_graphs` the tiny-width passes behind step_overhead and layer_overhead replay CUDA graphs
    (forward_step_times): the profile then prices passes as a serving engine runs them, captured.
    """
    start = time.perf_counter()
    dt = torch_dtype(torch, dtype)
    scale = max(0.25, min(2.0, seconds_budget / 100.0))
    reps = max(3, int(round(7 * scale)))
    gpu = dev.type == "cuda"
    steps = _Progress((8 if cuda_graphs else 7) * rounds, progress)
    busy = busy_machine_note() if progress else ""
    if busy:
        print(f"calibrate: warning: {busy}", file=sys.stderr, flush=True)
    name, kind, memory_bytes, llc_bytes = _device_facts(torch, dev)
    hidden = 8192 if gpu else 2048
    square = (4096, 8192) if gpu else (1024, 2048, 3072)
    stream_bytes = int(4 * 2**30) if gpu else int(max(512 * 2**20, 2 * llc_bytes))
    shapes = block_shapes(hidden)
    runs: dict = {"read_bw": [], "copy_bw": [], "cache": [], "peaks": [], "gemm_sweep": [], "attention": [], "vector_bw": [],
                  "overhead": [], "graph": []}
    sizes = [2**20 * s for s in ((4, 16, 64, 256, 1024) if gpu else (1, 4, 16, 32, 64, 128, 256, 512))]
    for r in range(rounds):
        tag = f"round {r + 1}/{rounds}: "
        read, copy = stream_bandwidth(torch, dev, stream_bytes, reps + 2)
        runs["read_bw"].append(read)
        runs["copy_bw"].append(copy)
        steps.step(f"{tag}stream read {_si(read, 'B/s')}, copy {_si(copy, 'B/s')}")

        runs["cache"].append(cache_sweep(torch, dev, sizes))
        cached = effective_cache_bytes(runs["cache"][-1], read)
        steps.step(f"{tag}cache sweep: " + (f"faster than this round's DRAM read up to {_si(cached, 'B')}" if cached >= 1 else
                                            "no buffer read faster than this round's DRAM read (no cache effect found)"))

        peaks = {name: gemm_peak_flops(torch, dev, torch_dtype(torch, name), square, reps) for name in dict.fromkeys(("fp32", dtype))}
        if gpu and dtype == "bf16":
            peaks["fp16"] = gemm_peak_flops(torch, dev, torch.float16, square, reps)
            fp8 = fp8_peak_flops(torch, dev, square[-1], reps)
            if fp8:
                peaks["fp8"] = fp8
        runs["peaks"].append(peaks)
        steps.step(tag + "GEMM peaks " + ", ".join(f"{k} {_si(v, 'FLOP/s')}" for k, v in peaks.items()))

        total = 8 * 2**30 if gpu else 1.0e9
        sweep_ms = tuple(m for m in GEMM_SWEEP_M if m <= GEMM_SWEEP_MAX_M[dtype])
        weight_bytes, params, sweep = weight_gemm_sweep(torch, dev, dt, hidden, total, sweep_ms, reps)
        runs["gemm_sweep"].append(sweep)
        steps.step(f"{tag}weight-streaming GEMM sweep: GEMV {_si(weight_bytes / sweep[1], 'B/s')} (raw: its compute time "
                   "included; the summary's figure is fitted with that removed)")

        timings = attention_timings(torch, dev, batch=64 if gpu else 16, context=4096 if gpu else 1024, layers=16, repeats=reps,
                                    dtype=dtype)
        runs["attention"].append(timings)
        steps.step(f"{tag}attention kernel: KV stream {_si(timings[1][2] / timings[1][0], 'B/s')}")

        vec = vector_bandwidth(torch, dev, tokens=ELEMENTWISE_TOKENS[gpu], hidden=hidden, repeats=reps, dtype=dtype)
        runs["vector_bw"].append(vec)
        steps.step(f"{tag}elementwise operators: {_si(vec, 'B/s')} of activations")

        small, large = forward_step_times(torch, dev, *OVERHEAD_DEPTHS, max(reps * 4, 40) if gpu else reps * 4, dtype=dtype,
                                          cuda_graphs=cuda_graphs)
        runs["overhead"].append((small, large))
        steps.step(f"{tag}forward pass at tiny width: {format_seconds(small)} ({OVERHEAD_DEPTHS[0]} layers), "
                   f"{format_seconds(large)} ({OVERHEAD_DEPTHS[1]} layers)")
        if cuda_graphs:
            gemv, tiny_gemv = graph_gemv_times(torch, dev, dt, reps)
            attention_s = graph_attention_times(torch, dev, dt, reps)
            runs["graph"].append((gemv, tiny_gemv, attention_s))
            gemv_text = ", ".join(_si(b, "B") + " " + format_seconds(t) for b, t in gemv.items())
            steps.step(f"{tag}in CUDA graphs: GEMV {gemv_text}; tiny GEMV {format_seconds(tiny_gemv)}; attention at batch 1 "
                       + ", ".join(f"{n} tokens {format_seconds(t)}" for n, t in attention_s.items()))

    med = statistics.median
    _warn_rounds_disagree({"stream read": (runs["read_bw"], "B/s"),
                           "GEMV (raw)": ([weight_bytes / r[1] for r in runs["gemm_sweep"]], "B/s"),
                           f"GEMM {dtype}": ([r[dtype] for r in runs["peaks"]], "FLOP/s"),
                           # every figure a prediction rests on, not three (qa113: the tiny-width pass 73x apart, unsaid)
                           "attention KV stream": ([t[1][2] / t[1][0] for t in runs["attention"]], "B/s"),
                           "elementwise": (runs["vector_bw"], "B/s"),
                           "forward pass at tiny width": ([r[1] for r in runs["overhead"]], "s")})
    gemm_sweep = {n: med(r[n] for r in runs["gemm_sweep"]) for n in runs["gemm_sweep"][0]}
    sweep_bw = {size: med(r[size] for r in runs["cache"]) for size in sizes}
    effective_cache = effective_cache_bytes(sweep_bw, med(runs["read_bw"]))
    attention = {q: tuple(med(r[q][i] for r in runs["attention"]) for i in range(3)) for q in runs["attention"][0]}
    overhead_small, overhead_large = (med(r[i] for r in runs["overhead"]) for i in range(2))
    blocks = params / sum(i * o for i, o in shapes)
    act = lambda n: blocks * sum((i + o) * n * ACTIVATION_BYTES for i, o in shapes)  # noqa: E731  activations in + out, as costs counts them
    gemv_bw, gemm_flops, p = fit_overlap(params, weight_bytes, gemm_sweep, act)
    attn_bw, attn_flops = attention_ceilings(attention, p)
    shallow, deep = OVERHEAD_DEPTHS
    per_layer = max(0.0, (overhead_large - overhead_small) / (deep - shallow))
    graph: dict = {}
    if runs["graph"]:
        gemv = {b: med(r[0][b] for r in runs["graph"]) for b in runs["graph"][0][0]}
        tiny_gemv = med(r[1] for r in runs["graph"])
        attention_s = {n: med(r[2][n] for r in runs["graph"]) for n in runs["graph"][0][2]}
        latency, stream = graph_costs(gemv, tiny_gemv, attention_s, gemv_bw, torch.tensor([], dtype=dt).element_size())
        if stream is None and progress:
            print(f"calibrate: warning: the attention kernel took no longer over {max(attention_s)} tokens than over "
                  f"{min(attention_s)} ({', '.join(format_seconds(t) for t in attention_s.values())}): no attention_stream "
                  "ceiling written", file=sys.stderr, flush=True)
        graph = {"graph_gemv_s": gemv, "graph_tiny_gemv_s": tiny_gemv, "graph_attention_s": attention_s,
                 "gemm_latency_s": latency, "attention_stream_bytes_per_s": stream}
    c = Calibration(
        device_name=name, kind=kind, device_type=dev.type, memory_bytes=memory_bytes, last_level_cache_bytes=llc_bytes,
        stream_buffer_bytes=float(stream_bytes), stream_bw_bytes_per_s=med(runs["read_bw"]), copy_bw_bytes_per_s=med(runs["copy_bw"]),
        cache_sweep_bw_bytes_per_s=sweep_bw, effective_cache_bytes=float(effective_cache), square_gemm_sizes=square, dtype=dtype,
        peak_flops_per_s={k: med(r[k] for r in runs["peaks"]) for k in runs["peaks"][0]},
        gemm_hidden_size=hidden, gemm_weight_bytes=float(weight_bytes), gemm_sweep_s=gemm_sweep,
        gemv_bw_bytes_per_s=gemv_bw, gemm_flops_per_s=gemm_flops, overlap_exponent=p,
        attention_memory_bytes_per_s=attn_bw, attention_compute_flops_per_s=attn_flops,
        elementwise_memory_bytes_per_s=med(runs["vector_bw"]),
        step_overhead_s=max(overhead_small - shallow * per_layer, 1e-7), layer_overhead_s=per_layer,
        cuda_graphs=cuda_graphs, threads=torch.get_num_threads(), rounds=rounds, torch_version=str(torch.__version__),
        elapsed_s=time.perf_counter() - start, load_average=_load_average(),
        date=datetime.datetime.now(datetime.timezone.utc), **graph,
    )
    if progress:
        print(f"calibrate ({dtype}): GEMV {_si(c.gemv_bw_bytes_per_s, 'B/s')} (fitted), GEMM {_si(c.gemm_flops_per_s, 'FLOP/s')} at weight "
              f"shapes, overlap exponent {c.overlap_exponent:.2f}; attention {_si(c.attention_memory_bytes_per_s, 'B/s')}, "
              f"{_si(c.attention_compute_flops_per_s, 'FLOP/s')}; overhead {format_seconds(c.step_overhead_s)} + "
              f"{format_seconds(c.layer_overhead_s)} per layer" + (
                  f"; in CUDA graphs a weight GEMM's latency {format_seconds(c.gemm_latency_s)} past the tiny GEMM's, an "
                  f"attention stream {_si(c.attention_stream_bytes_per_s, 'B/s')}" if c.gemm_latency_s is not None else "")
              + f" ({c.elapsed_s:.0f} s)", file=sys.stderr, flush=True)
    return c


# ---- the profile ----

def build_profile(c: Calibration) -> dict:
    """The hardware-profile mapping (PROFILES.md schema, units on every number) of a calibration.

    efficiency.memory = GEMV bandwidth / streaming bandwidth; efficiency.compute = GEMM ceiling at
    weight shapes / best square GEMM, both in the calibration's dtype (the peak is raised to the ceiling
    should the fit exceed it).
    """
    peaks = dict(c.peak_flops_per_s)
    mem_eff = min(1.0, c.gemv_bw_bytes_per_s / c.stream_bw_bytes_per_s)
    compute_eff = min(1.0, c.gemm_flops_per_s / peaks[c.dtype])
    peaks[c.dtype] = max(peaks[c.dtype], c.gemm_flops_per_s)
    gpu = c.device_type == "cuda"
    gemm_latency_s = c.gemm_latency_s or 0.0  # --cuda-graphs: a weight GEMM's latency past the tiny GEMM's floor
    ceilings = {
        "attention_compute": _si(c.attention_compute_flops_per_s, "FLOP/s"),
        "attention_memory": _si(c.attention_memory_bytes_per_s, "B/s"),
        **({"attention_stream": _si(c.attention_stream_bytes_per_s, "B/s")} if c.attention_stream_bytes_per_s else {}),
        "elementwise_memory": _si(c.elementwise_memory_bytes_per_s, "B/s"),
    }
    graph_text = ""
    if c.gemm_latency_s is not None:
        graph_text = (
            "In CUDA graphs (one launch of a graph of many, operands past the L2 cache): a GEMV (M = 1) took "
            + ", ".join(f"{format_seconds(t)} over {_si(b, 'B')}" for b, t in c.graph_gemv_s.items())
            + f", the tiny-width decoder's largest GEMV {format_seconds(c.graph_tiny_gemv_s)}: each weight GEMM pays "
            f"{format_seconds(gemm_latency_s)} beyond its bytes at the fitted GEMV bandwidth and the tiny GEMM's floor, added "
            f"to layer_overhead {GEMMS_PER_BLOCK} times (the decoder's weight GEMMs a block) and to step_overhead once (the "
            "LM head). The decoder's attention at batch 1 (16 query heads on 4 KV heads of 128) took "
            + ", ".join(f"{format_seconds(t)} a layer over {n} tokens" for n, t in c.graph_attention_s.items())
            + (": operator_ceilings.attention_stream is one (sequence, KV head)'s stream, 2 x 128 x "
               f"{c.dtype} bytes a token over the time a token adds.\n" if c.attention_stream_bytes_per_s else
               ": no longer over more tokens, so no attention_stream was written.\n"))
    return {
        "name": f"measured-{c.device_type}",
        "display_name": f"{c.device_name}, measured" + (" (CUDA graphs)" if c.cuda_graphs else ""),
        "kind": c.kind,
        "memory": _si(c.memory_bytes, "B"),
        "memory_bandwidth": _si(c.stream_bw_bytes_per_s, "B/s"),
        "peak_flops": {k: _si(v, "FLOP/s") for k, v in peaks.items()},
        "on_chip_cache": _si(c.last_level_cache_bytes, "B"),
        "link_bandwidth": "25 GB/s" if gpu else "16 GB/s",
        "link_latency": "10 us",
        "efficiency": {"memory": round(mem_eff, 4), "compute": round(compute_eff, 4), "link": 0.8},
        "step_overhead": format_seconds(c.step_overhead_s + gemm_latency_s),
        "overlap_exponent": round(max(1.0, c.overlap_exponent), 3),
        "layer_overhead": format_seconds(max(c.layer_overhead_s + GEMMS_PER_BLOCK * gemm_latency_s, 1e-9)),
        "operator_ceilings": ceilings,
        "measured": True,
        "measured_date": c.date.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "measured_device": c.device_name,
        "measured_torch": c.torch_version,
        "measured_threads": c.threads,
        "measured_seconds": round(c.elapsed_s, 1),
        "measured_rounds": c.rounds,
        "measured_load_average": c.load_average,
        "measured_copy_bandwidth": _si(c.copy_bw_bytes_per_s, "B/s"),
        "measured_gemv_bandwidth_fitted": _si(c.gemv_bw_bytes_per_s, "B/s"),  # fit_overlap's memory term over the GEMM sweep, not a raw read
        "measured_dtype": c.dtype,
        "measured_cuda_graphs": c.cuda_graphs,  # how the overheads were timed: validate warns where its run differs
        "measured_gemm_flops_weight_shapes": _si(c.gemm_flops_per_s, "FLOP/s"),
        "measured_effective_cache": _si(c.effective_cache_bytes, "B") if c.effective_cache_bytes >= 1 else "none found",
        "measured_cache_sweep": {_si(size, "B"): _si(bw, "B/s") for size, bw in c.cache_sweep_bw_bytes_per_s.items()},
        "measured_gemm_sweep": {f"M={int(n)}": format_seconds(t) for n, t in c.gemm_sweep_s.items()},  # text keys: YAML's rule
        "source": (
            f"roofline calibrate --device {c.device_type} on {c.date:%Y-%m-%d}, torch {c.torch_version}, {c.threads} threads, "
            f"{c.elapsed_s:.0f} s, load average {c.load_average} at the end. Each number: the median of repeats after "
            f"warm-up; the median of {c.rounds} rounds some seconds apart.\n"
            f"memory_bandwidth: x.sum() over a {_si(c.stream_buffer_bytes, 'B')} fp32 buffer. "
            f"peak_flops: best square GEMM of sizes {', '.join(map(str, c.square_gemm_sizes))}.\n"
            f"Measured in {c.dtype} (weights, KV cache, activations). "
            f"efficiency.memory = GEMV bandwidth (M = 1 over {_si(c.gemm_weight_bytes, 'B')} of {c.dtype} block weights at hidden "
            f"{c.gemm_hidden_size}) / memory_bandwidth. efficiency.compute and overlap_exponent: fitted to the same weights' GEMM "
            f"time over M = {', '.join(map(str, c.gemm_sweep_s))} (compute ceiling / peak {c.dtype}).\n"
            "step_overhead and layer_overhead: decode step of the decoder at hidden 64 with 2 and 16 layers "
            "(fixed part, per-layer part)" + (", each replayed from a CUDA graph" if c.cuda_graphs else ", eager") + ".\n"
            "operator_ceilings: the decoder's attention kernel on a synthetic KV cache (KV stream at q = 1, FLOP/s at "
            f"q = 32) and its elementwise operators on {ELEMENTWISE_TOKENS[gpu]} tokens, bytes and FLOPs counted as roofline.costs counts them.\n"
            + graph_text +
            "on_chip_cache: as the OS reports it; measured_effective_cache: the end of the run of buffers, from the smallest, read over 1.25x faster than DRAM."
        ),
        "notes": (
            "Measured, not a datasheet: peaks are what PyTorch reaches here, and efficiencies are relative to them. "
            "efficiency.memory scales the streaming read down to what a weight-streaming GEMV sustains while it also "
            "multiplies; efficiency.compute scales the best square GEMM down to LLM weight shapes. "
            "overlap_exponent p: per operator t = (t_compute^p + t_memory^p)^(1/p); p near 1 means the cores that compute "
            "also stream, so memory and compute time mostly add near the ridge point. "
            + ("operator_ceilings: attention and the eager elementwise kernels reach far less than the GEMM ceilings "
               "on a CPU (the attention kernel converts and reduces in the vector unit; each elementwise op is its own "
               "pass). " if not gpu else "")
            + ("operator_ceilings.attention_stream caps attention only under an engine whose attention_splits_keys is "
               "false (validate's harness: PyTorch's fused attention); the serving engines split the keys and ignore it. "
               if c.attention_stream_bytes_per_s else "")
            + ("layer_overhead: the floors (launch, ramp-up, tail) of a block's kernels replayed in a CUDA graph"
               + (f", and {GEMMS_PER_BLOCK} times a weight GEMM's latency past them; step_overhead holds the graph's launch "
                  "and the LM head's GEMM latency. " if c.gemm_latency_s is not None else
                  "; step_overhead holds the graph's launch. ") if c.cuda_graphs else
               "layer_overhead: operator dispatch per block in eager PyTorch. ") +
            "link_bandwidth and link_latency are placeholders: one device, no link measured."
        ),
    }


def run_calibrate(device: str = "cpu", seconds_budget: float = 100, progress: bool = True, dtype: str = "bf16",
                  cuda_graphs: bool = False) -> dict:
    """Measure this machine in `dtype` ('bf16' or 'fp32') and return a hardware-profile mapping
    (docs/PROFILES.md schema, measured: true).

    `seconds_budget` scales the repeats (100: about a minute and a half on 2 CPU cores). Raises
    RooflineError when torch is missing, the requested device is absent, the dtype unknown, or (bf16)
    the device has no bf16 units, or `cuda_graphs` is asked of a device other than CUDA.
    """
    torch, dev = setup_runtime(device, dtype)
    check_cuda_graphs(cuda_graphs, dev)
    return build_profile(measure(torch, dev, seconds_budget, progress, dtype=dtype, cuda_graphs=cuda_graphs))


def profile_to_yaml(d: dict) -> str:
    """The profile as YAML, keys in schema order, with a one-line header comment."""
    header = f"# Measured by `roofline calibrate` on {d.get('measured_date', '?')}: {d.get('measured_device', '?')}, torch {d.get('measured_torch', '?')}\n"
    return header + yaml.safe_dump(d, sort_keys=False, allow_unicode=True, width=110)
