"""Roofline time of one forward pass: per operator, per step, and what bounds it.

For every operator o of the pass (FLOPs and bytes from `roofline.costs`):

    t_o = max( flops_o / (peak_flops[dtype_o] * compute_efficiency),
               bytes_o / (mem_bw * mem_efficiency) )

    t_step = sum_o t_o + t_comm + step_overhead + layers * layer_overhead
    t_comm = 2 * layers * (link_latency + 2 * (tp - 1) / tp * T * hidden * 2 / (link_bw * link_efficiency))
             (two all-reduces of the residual stream per layer under tensor parallelism; 0 when tp = 1)

dtype_o is the compute dtype of the weights for weight GEMMs (int4 runs as W4A16 in bf16) and bf16
for attention and elementwise work. A profile may give attention and elementwise operators their own
achievable ceilings (`operator_ceilings`) and a per-layer overhead (`layer_overhead`, default 0);
without them every operator uses the derated peaks above. The pure max() is the classic roofline (a lower bound). A
profile may set `overlap_exponent: p` to use the smooth form (t_c**p + t_m**p)**(1/p) instead: p -> inf
is the max, p = 1 is no overlap of compute and memory at all; `roofline calibrate` measures p.

    MBU = bytes moved / t_step / mem_bw          MFU = flops / t_step / peak_flops[dtype]
    arithmetic intensity = flops / bytes         an operator is compute-bound when its intensity
                                                 exceeds the derated ridge point.
"""

from __future__ import annotations

import numpy as np

from roofline.costs import ACTIVATION_BYTES, WEIGHT_GEMMS, kv_cache_bytes, operator_costs, weight_bytes
from roofline.hardware import HardwareSpec
from roofline.model import ModelSpec


def op_time_s(flops, nbytes, compute_flops_per_s: float, memory_bytes_per_s: float, overlap_exponent: float | None = None):
    """max(flops / compute ceiling, bytes / memory ceiling), or the p-norm when overlap_exponent is set."""
    t_compute = np.asarray(flops, dtype=np.float64) / compute_flops_per_s
    t_memory = np.asarray(nbytes, dtype=np.float64) / memory_bytes_per_s
    if overlap_exponent is None:
        return np.maximum(t_compute, t_memory)
    p = float(overlap_exponent)
    big = np.maximum(t_compute, t_memory)
    safe = np.where(big > 0, big, 1.0)
    return big * ((t_compute / safe) ** p + (t_memory / safe) ** p) ** (1.0 / p)


def operator_ceilings(hw: HardwareSpec, weight_dtype: str) -> dict[str, tuple[float, float]]:
    """(compute FLOP/s, memory bytes/s) ceiling of every operator: weight GEMMs on the weights' compute
    dtype, attention and elementwise work on their own measured ceilings where the profile has them."""
    memory = hw.memory_ceiling_bytes_per_s
    other = hw.compute_ceiling_flops_per_s("bf16")
    out = {name: (hw.compute_ceiling_flops_per_s(weight_dtype), memory) for name in WEIGHT_GEMMS}
    out["attention"] = (hw.attention_compute_flops_per_s or other, hw.attention_memory_bytes_per_s or memory)
    out["norms"] = (other, hw.elementwise_memory_bytes_per_s or memory)
    out["embedding"] = out["kv_write"] = (other, memory)
    return out


def comm_time_s(hw: HardwareSpec, model: ModelSpec, tokens, tp: int, layers_scale: float = 1.0):
    """Two all-reduces of T * hidden activations per layer over the scale-up link (0 when tp = 1)."""
    tokens = np.asarray(tokens, dtype=np.float64)
    if tp <= 1:
        return np.zeros_like(tokens)
    nbytes = tokens * model.hidden_size * ACTIVATION_BYTES
    per_allreduce = hw.link_latency_s + 2.0 * (tp - 1) / tp * nbytes / (hw.link_bw_bytes_per_s * hw.link_efficiency)
    return 2.0 * model.layers * layers_scale * per_allreduce


def step_metrics(
    hw: HardwareSpec,
    model: ModelSpec,
    batch,
    q,
    context,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    tp: int = 1,
    logit_tokens=None,
    layers_scale: float = 1.0,
    with_operators: bool = False,
) -> dict:
    """Time and utilisation of one forward pass of B sequences x q tokens on `context` cached tokens.

    Returns arrays (broadcast over batch, q, context): step_time_s, compute_time_s (sum of operator
    times), comm_time_s, overhead_s, flops, bytes, arithmetic_intensity_flops_per_byte, mbu, mfu,
    compute_bound (True where compute-bound operators take most of the operator time), tokens.
    With `with_operators`, also `operators`: {name: {flops, bytes, time_s, compute_bound}}.
    """
    costs = operator_costs(model, batch, q, context, weight_dtype, kv_dtype, tp, logit_tokens, layers_scale)
    ceilings = operator_ceilings(hw, weight_dtype)
    p = hw.overlap_exponent
    shape = next(iter(costs.values()))[0].shape
    total_flops, total_bytes, op_sum = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    compute_side = np.zeros(shape)
    operators = {}
    for name, (flops, nbytes) in costs.items():
        ceiling, memory_ceiling = ceilings[name]
        t = op_time_s(flops, nbytes, ceiling, memory_ceiling, p)
        is_compute = flops / ceiling > nbytes / memory_ceiling
        total_flops, total_bytes, op_sum = total_flops + flops, total_bytes + nbytes, op_sum + t
        compute_side = compute_side + np.where(is_compute, t, 0.0)
        if with_operators:
            operators[name] = {"flops": flops, "bytes": nbytes, "time_s": t, "compute_bound": is_compute}
    tokens = np.broadcast_to(np.asarray(batch, dtype=np.float64) * np.asarray(q, dtype=np.float64), shape)
    t_comm = comm_time_s(hw, model, tokens, tp, layers_scale)
    overhead = hw.step_overhead_s + model.layers * layers_scale * hw.layer_overhead_s
    step = op_sum + t_comm + overhead
    peak = hw.peak_flops_per_s[hw.compute_dtype(weight_dtype)]
    out = {
        "step_time_s": step,
        "compute_time_s": op_sum,
        "comm_time_s": t_comm,
        "overhead_s": np.full(shape, overhead),
        "flops": total_flops,
        "bytes": total_bytes,
        "arithmetic_intensity_flops_per_byte": total_flops / total_bytes,
        "mbu": total_bytes / step / hw.mem_bw_bytes_per_s,
        "mfu": total_flops / step / peak,
        "compute_bound": compute_side > 0.5 * op_sum,
        "tokens": tokens,
    }
    if with_operators:
        out["operators"] = operators
    return out


def step_time_s(hw: HardwareSpec, model: ModelSpec, batch, q, context, weight_dtype="bf16", kv_dtype="bf16", tp=1, **kw):
    """Shorthand: step_metrics(...)['step_time_s']."""
    return step_metrics(hw, model, batch, q, context, weight_dtype, kv_dtype, tp, **kw)["step_time_s"]


def memory_needed_bytes(model: ModelSpec, batch, context_len, weight_dtype="bf16", kv_dtype="bf16", tp=1):
    """Weights + KV cache on one device for `batch` sequences of `context_len` tokens."""
    return weight_bytes(model, weight_dtype, tp) + kv_cache_bytes(model, batch, context_len, kv_dtype, tp)


def max_batch(hw: HardwareSpec, model: ModelSpec, context_len, weight_dtype="bf16", kv_dtype="bf16", tp=1, extra_bytes=0.0, extra_bytes_per_seq=0.0):
    """floor((usable memory - weights - extra) / (KV per sequence + extra per sequence)); 0 if the weights do not fit."""
    free = hw.usable_mem_bytes - weight_bytes(model, weight_dtype, tp) - np.asarray(extra_bytes, dtype=np.float64)
    per_seq = kv_cache_bytes(model, 1, context_len, kv_dtype, tp) + np.asarray(extra_bytes_per_seq, dtype=np.float64)
    return np.maximum(np.floor(free / per_seq), 0).astype(np.int64)


def ttft_s(hw: HardwareSpec, model: ModelSpec, prompt_len, weight_dtype="bf16", kv_dtype="bf16", tp=1):
    """Time to first token: one prefill pass of `prompt_len` tokens for one sequence (logits for the last token only)."""
    return step_time_s(hw, model, 1, prompt_len, 0, weight_dtype, kv_dtype, tp, logit_tokens=1)


def predict_point(hw: HardwareSpec, model: ModelSpec, batch: int, context: int, weight_dtype="bf16", kv_dtype="bf16", tp=1, prompt: int | None = None) -> dict:
    """Everything `roofline predict` reports for one decode point, SI units, JSON-ready."""
    m = step_metrics(hw, model, batch, 1, context, weight_dtype, kv_dtype, tp, with_operators=True)
    step = float(m["step_time_s"])
    kv = float(kv_cache_bytes(model, batch, context + 1, kv_dtype, tp))
    wb = weight_bytes(model, weight_dtype, tp)
    out = {
        "hardware": hw.name,
        "model": model.name,
        "batch": batch,
        "context": context,
        "tp": tp,
        "weight_dtype": weight_dtype,
        "kv_dtype": kv_dtype,
        "step_time_s": step,
        "tokens_per_s": batch / step,
        "tokens_per_s_per_user": 1.0 / step,
        "mbu": float(m["mbu"]),
        "mfu": float(m["mfu"]),
        "bound": "compute" if bool(m["compute_bound"]) else "memory",
        "arithmetic_intensity_flops_per_byte": float(m["arithmetic_intensity_flops_per_byte"]),
        "derated_ridge_point_flops_per_byte": hw.ridge_point_flops_per_byte(weight_dtype, derated=True),
        "flops": float(m["flops"]),
        "bytes": float(m["bytes"]),
        "weight_bytes": wb,
        "kv_bytes": kv,
        "memory_needed_bytes": wb + kv,
        "usable_memory_bytes": hw.usable_mem_bytes,
        "fits_in_memory": bool(wb + kv <= hw.usable_mem_bytes),
        "max_batch": int(max_batch(hw, model, context + 1, weight_dtype, kv_dtype, tp)),
        "comm_time_s": float(m["comm_time_s"]),
        "overhead_s": float(m["overhead_s"]),
        "operators": {
            name: {
                "flops": float(op["flops"]),
                "bytes": float(op["bytes"]),
                "time_s": float(op["time_s"]),
                "bound": "compute" if bool(op["compute_bound"]) else "memory",
            }
            for name, op in m["operators"].items()
            if float(op["bytes"]) > 0 or float(op["flops"]) > 0
        },
    }
    if prompt is not None:
        out["prompt"] = prompt
        out["ttft_s"] = float(ttft_s(hw, model, prompt, weight_dtype, kv_dtype, tp))
    return out
