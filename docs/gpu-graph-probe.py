"""Kernel timings inside CUDA graphs, behind docs/VALIDATION.md's "CUDA graphs on a GPU": what a captured pass of the
validation decoder spends beyond its tiny kernels' floors and its bytes.

    PYTHONPATH=. python3 docs/gpu-graph-probe.py        (one CUDA GPU, about 20 s; prints one JSON object)

Each figure is the median of 9 replays of a graph of N launches of one kernel, divided by N (the graph's own launch
amortised). Operands are distinct buffers, together far larger than the L2 cache, so every launch reads DRAM:

    floor_s            an elementwise add on 64 values: the least a kernel costs inside a graph
    gemv_s[MB]         a bf16 matrix-vector product (M = 1) over a weight of MB megabytes, and the fit
                       t = latency + bytes / bandwidth over those sizes (gemv_latency_s, gemv_bw_bytes_per_s)
    attention_s[B, L]  the decoder's attention (decoder.attention: SDPA over the folded query heads) of one layer of
                       validation-small at batch B over L cached tokens, beside its KV bytes / the fitted GEMV bandwidth
"""

from __future__ import annotations

import json
import statistics
import time

import numpy as np
import torch

from roofline.harness.decoder import attention, folded_mask
from roofline.model import load_model

DEV = torch.device("cuda")
BF16 = torch.bfloat16
L2_PASS_BYTES = 512 * 2**20  # operands of one graph together: several times an H100/H200's 50-60 MB L2


def graph_time_s(fns, replays: int = 9) -> float:
    """Median seconds of one launch: fns (one closure a launch) captured in one graph, replayed."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for fn in fns:
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for fn in fns:
            fn()
    times = []
    for _ in range(replays + 2):
        torch.cuda.synchronize()
        start = time.perf_counter()
        graph.replay()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times[2:]) / len(fns)


def floor_s() -> float:
    xs = [torch.zeros(64, device=DEV, dtype=BF16) for _ in range(200)]
    return graph_time_s([lambda x=x: x.add_(1) for x in xs])


def gemv_s(megabytes: int) -> float:
    hidden = 4096
    rows = megabytes * 2**20 // (hidden * 2)
    count = max(8, L2_PASS_BYTES // (rows * hidden * 2))
    weights = [torch.randn(rows, hidden, device=DEV, dtype=BF16) for _ in range(count)]
    x = torch.randn(1, hidden, device=DEV, dtype=BF16)
    return graph_time_s([lambda w=w: torch.nn.functional.linear(x, w) for w in weights])


def attention_s(batch: int, length: int) -> tuple[float, float]:
    spec = load_model("validation-small")
    group, layers = spec.heads // spec.kv_heads, 16
    kv = [(torch.randn(batch, spec.kv_heads, length, spec.head_dim, device=DEV, dtype=BF16),
           torch.randn(batch, spec.kv_heads, length, spec.head_dim, device=DEV, dtype=BF16)) for _ in range(layers)]
    q = torch.randn(batch, 1, spec.heads, spec.head_dim, device=DEV, dtype=BF16)
    mask = folded_mask(torch.ones(batch, 1, length, dtype=torch.bool, device=DEV), group)
    seconds = graph_time_s([lambda k=k, v=v: attention(q, k, v, mask) for k, v in kv])
    return seconds, 2.0 * batch * spec.kv_heads * length * spec.head_dim * 2


def main() -> None:
    sizes = (2, 8, 32, 128, 512)
    gemv = {mb: gemv_s(mb) for mb in sizes}
    slope, latency = np.polyfit([mb * 2**20 for mb in sizes], [gemv[mb] for mb in sizes], 1)
    bw = 1.0 / slope
    attn = {}
    for batch in (1, 4, 32):
        for length in (256, 1024):
            seconds, kv_bytes = attention_s(batch, length)
            attn[f"B={batch} L={length}"] = {"seconds": seconds, "kv_bytes_over_bw_s": kv_bytes / bw}
    print(json.dumps({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "floor_s": floor_s(),
                      "gemv_s": {f"{mb} MB": t for mb, t in gemv.items()}, "gemv_latency_s": latency,
                      "gemv_bw_bytes_per_s": bw, "attention_s": attn}, indent=1))


if __name__ == "__main__":
    main()
