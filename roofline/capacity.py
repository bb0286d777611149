"""Device memory: what a deployment needs, whether it fits, and the largest batch that fits.

On the busiest device (layout.py, costs.py):

    needed    = weights + KV(B) + extra + extra_per_sequence * B_a
    KV(B)     = B_a * (stored(L) - shared(L)) + shared(L)       (a shared prefix is stored once; costs.kv_cache_bytes)
    fits      = needed <= memory * usable_memory_fraction
    max_batch = dp_attention * floor((usable - weights - extra - shared) / (KV per sequence + extra_per_sequence))
                (0 when the weights alone do not fit)

`extra` and `extra_per_sequence` carry a drafter that shares the device (its weights; its KV cache per
sequence). Every caller (predict, speculation, sweeps, reports) uses this one function.
"""

from __future__ import annotations

import numpy as np

from roofline.costs import kv_cache_bytes, sequences_per_group, weight_bytes
from roofline.hardware import HardwareSpec
from roofline.layout import Deployment
from roofline.model import ModelSpec


def kv_shared_and_per_sequence_bytes(model: ModelSpec, context_len, dep: Deployment, shared_prefix=0, window_pool_ratio=None):
    """(shared, per_sequence): the KV bytes a device holds once (a prefix every sequence shares) and per sequence of
    its attention group, read off kv_cache_bytes at B_a = 1 and B_a = 2 (memory is linear in B_a)."""
    one = kv_cache_bytes(model, dep.dp_attention, context_len, dep, shared_prefix, window_pool_ratio)        # B_a = 1
    two = kv_cache_bytes(model, 2 * dep.dp_attention, context_len, dep, shared_prefix, window_pool_ratio)    # B_a = 2
    return one - (two - one), two - one


def capacity(hw: HardwareSpec, model: ModelSpec, batch, context_len, dep: Deployment, *, shared_prefix=0,
             extra_bytes=0.0, extra_bytes_per_seq=0.0, weights_bytes: float | None = None,
             window_pool_ratio: float | None = None) -> dict[str, np.ndarray]:
    """weight_bytes, kv_bytes, memory_needed_bytes, usable_memory_bytes, fits_in_memory, max_batch (broadcast arrays).

    `weights_bytes` replaces the model's resident weights (a head drafter holds only part of its spec's);
    `window_pool_ratio`: the engine's hybrid window pool (serving.ServingEngine.window_kv_pool_ratio), None where
    sliding layers hold only their window.
    """
    resident_bytes = weight_bytes(model, dep) if weights_bytes is None else weights_bytes
    b_a = sequences_per_group(batch, dep)
    kv_bytes = kv_cache_bytes(model, batch, context_len, dep, shared_prefix, window_pool_ratio)
    extra = np.asarray(extra_bytes, dtype=np.float64)
    per_seq_extra = np.asarray(extra_bytes_per_seq, dtype=np.float64)
    needed_bytes = resident_bytes + kv_bytes + extra + per_seq_extra * b_a
    usable_bytes = hw.usable_mem_bytes
    shared_bytes, kv_per_seq_bytes = kv_shared_and_per_sequence_bytes(model, context_len, dep, shared_prefix, window_pool_ratio)
    per_seq_bytes = kv_per_seq_bytes + per_seq_extra
    fixed_bytes = resident_bytes + extra + shared_bytes
    groups = np.floor((usable_bytes - fixed_bytes) / np.where(per_seq_bytes > 0, per_seq_bytes, 1e-30))
    max_batch = np.where(fixed_bytes + per_seq_bytes <= usable_bytes, np.maximum(groups, 0) * dep.dp_attention, 0)
    shape = np.broadcast(needed_bytes, max_batch).shape
    return {
        "weight_bytes": np.broadcast_to(np.asarray(resident_bytes, dtype=np.float64), shape),
        "kv_bytes": np.broadcast_to(kv_bytes, shape),
        "memory_needed_bytes": np.broadcast_to(needed_bytes, shape),
        "usable_memory_bytes": np.broadcast_to(np.asarray(usable_bytes), shape),
        "fits_in_memory": np.broadcast_to(needed_bytes <= usable_bytes, shape),
        "max_batch": np.broadcast_to(np.minimum(max_batch, 2**62).astype(np.int64), shape),
    }
