"""Kernel timings inside CUDA graphs, behind docs/VALIDATION.md's "CUDA graphs on a GPU": what a captured pass of the
validation decoder spends beyond its tiny kernels' floors and its bytes.

    PYTHONPATH=. python3 docs/gpu-graph-probe.py        (one CUDA GPU, about 30 s; prints one JSON object)

Each figure is the median of 9 replays of a graph of N launches of one kernel, divided by N (the graph's own launch
amortised). Operands are distinct buffers, together far larger than the L2 cache, so every launch reads DRAM:

    floor_s            an elementwise add on 64 values: the least a kernel costs inside a graph
    gemv_s[MB]         a bf16 matrix-vector product (M = 1) over a weight of MB megabytes, and the fit
                       t = latency + bytes / bandwidth over those sizes (gemv_latency_s, gemv_bw_bytes_per_s)
    decode_pass_batch1 one eager decode pass of validation-small at batch 1, 256 and 1024 cached tokens, profiled:
                       device time a pass, by kernel, those growing most with the context first (microseconds)
    attention_s[B, L]  the decoder's attention (decoder.attention: SDPA over the folded query heads) of one layer of
                       validation-small at batch B over L cached tokens, beside its KV bytes / the fitted GEMV bandwidth
                       (distinct caches past the L2 cache, as in a pass, whose weights evict them between layers), K and V
                       as decoder.forward passes them (views of a longer cache) and contiguous: PyTorch picks the kernel
                       by their layout
"""

from __future__ import annotations

import json

import numpy as np
import torch

from roofline.harness.decoder import attention, folded_mask
from roofline.harness.runtime import graph_launch_time_s
from roofline.model import load_model

DEV = torch.device("cuda")
BF16 = torch.bfloat16
L2_PASS_BYTES = 512 * 2**20  # operands of one graph together: several times an H100/H200's 50-60 MB L2


def graph_time_s(fns) -> float:
    """Median seconds of one launch: fns (one closure a launch) captured in one graph, replayed (runtime's)."""
    return graph_launch_time_s(fns, DEV)


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


def attention_s(batch: int, length: int, view: bool) -> tuple[float, float]:
    spec = load_model("validation-small")
    group, layers = spec.heads // spec.kv_heads, 16
    calls = max(layers, L2_PASS_BYTES // (2 * batch * spec.kv_heads * length * spec.head_dim * 2))  # past the L2 cache
    if view:  # as decoder.forward hands them over: the first `length` positions of a longer cache
        caches = [torch.randn(2, batch, spec.kv_heads, length + 8, spec.head_dim, device=DEV, dtype=BF16) for _ in range(calls)]
        kv = [(cache[0][:, :, :length], cache[1][:, :, :length]) for cache in caches]
    else:
        kv = [(torch.randn(batch, spec.kv_heads, length, spec.head_dim, device=DEV, dtype=BF16),
               torch.randn(batch, spec.kv_heads, length, spec.head_dim, device=DEV, dtype=BF16)) for _ in range(calls)]
    q = torch.randn(batch, 1, spec.heads, spec.head_dim, device=DEV, dtype=BF16)
    mask = folded_mask(torch.ones(batch, 1, length, dtype=torch.bool, device=DEV), group)
    seconds = graph_time_s([lambda k=k, v=v: attention(q, k, v, mask) for k, v in kv])
    return seconds, 2.0 * batch * spec.kv_heads * length * spec.head_dim * 2


def pass_kernels(top: int = 12) -> dict:
    """One eager decode pass of validation-small at batch 1 over 256 and 1024 cached tokens under torch.profiler: each
    kernel's device time a pass (the mean of 5), the `top` kernels whose time grows most with the context, and the
    total. A kernel's device time is the same in an eager pass and a graph's replay."""
    from torch.profiler import ProfilerActivity, profile

    from roofline.harness.decoder import build_decoder, decode_one_token, new_kv_cache

    model = build_decoder(load_model("validation-small"), dtype=BF16, device=DEV)
    cache, tok, per_pass = new_kv_cache(model, 1, 1040), torch.zeros(1, dtype=torch.long, device=DEV), {}
    for length in (256, 1024):
        pos = torch.full((1,), length, dtype=torch.long, device=DEV)
        for _ in range(3):
            decode_one_token(model, cache, tok, pos, length + 1)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(5):
                decode_one_token(model, cache, tok, pos, length + 1)
            torch.cuda.synchronize()
        per_pass[length] = {e.key: e.self_device_time_total / 5 for e in prof.key_averages() if e.self_device_time_total > 0}
    growth = sorted(set(per_pass[256]) | set(per_pass[1024]),
                    key=lambda k: per_pass[1024].get(k, 0.0) - per_pass[256].get(k, 0.0), reverse=True)
    return {"total_us": {n: sum(t.values()) for n, t in per_pass.items()},
            "kernels_us": {k[:90]: [per_pass[256].get(k, 0.0), per_pass[1024].get(k, 0.0)] for k in growth[:top]}}


def main() -> None:
    sizes = (2, 8, 32, 128, 512)
    gemv = {mb: gemv_s(mb) for mb in sizes}
    slope, latency = np.polyfit([mb * 2**20 for mb in sizes], [gemv[mb] for mb in sizes], 1)
    bw = 1.0 / slope
    attn = {}
    for view in (True, False):
        for batch in (1, 4, 32):
            for length in (256, 1024):
                seconds, kv_bytes = attention_s(batch, length, view)
                attn[f"{'cache view' if view else 'contiguous'} B={batch} L={length}"] = {
                    "seconds": seconds, "kv_bytes_over_bw_s": kv_bytes / bw}
    print(json.dumps({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "floor_s": floor_s(),
                      "gemv_s": {f"{mb} MB": t for mb, t in gemv.items()}, "gemv_latency_s": latency,
                      "gemv_bw_bytes_per_s": bw, "attention_s": attn, "decode_pass_batch1": pass_kernels()}, indent=1))


if __name__ == "__main__":
    main()
