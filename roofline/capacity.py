"""Device memory: what a deployment needs, whether it fits, and the largest batch that fits.

On the busiest device (layout.py, costs.py):

    needed    = weights + KV(B) + extra + extra_per_sequence * B_a
    KV(B)     = B_a * (stored(L) - shared(L)) + shared(L)       (a shared prefix is stored once; costs.kv_cache_bytes)
    fits      = needed <= usable
    max_batch = dp_attention * floor((usable - weights - extra - shared) / (KV per sequence + extra_per_sequence))
                (0 when the weights alone do not fit)
    usable    = memory * usable_memory_fraction               (no engine, or one without memory_fraction: ideal)
              = max((f * M - R) * (M - C) / M, 0)             (an engine's memory_fraction f of the device: vLLM, SGLang)
              = max(min(W, M - C - R), 0) + f * max(M - C - W - R, 0)  (of the free memory: TensorRT-LLM), W = weights
                                                              + extra (W + f (M - C - W - R) while memory is left free)
    M         = the memory an engine sees as its device's (hw.engine_mem_bytes): the device's, on a system-on-chip
                the unified memory's share its GPU may wire (memory * usable_memory_fraction)
    C         = memory_before_share + memory_before_share_parallel [D > 1]: what the engine's process holds before it
                measures the memory its share is of, M - C (SGLang: the free memory once its CUDA context and
                communicators exist, model_runner's total_gpu_memory), of which it takes f less R's share of M, R / M
                (SGLang's reserves are parts of its default share's formula: server_args.py); C = 0: f M - R
    R         = memory_reserved + memory_reserved_parallel [D > 1] + memory_reserved_per_device * (N - 1)
                + memory_reserved_per_dp_group * dp_attention [dp_attention > 1]
                + 4 B * vocabulary * sampler_logit_copies * S [the stage holding the LM head: the last, or the only one]
    D, N      = the devices of a pipeline stage, tp * dp_attention, and of the replica, D * pp
    f         = memory_fraction, or memory_fraction_by_devices' f_N of the largest N <= N (SGLang 0.4 by tp size)
    S         = sampler_sequences, or sampler_sequences_small where M is under 70 GiB or on an A100 (serving.py)

`extra` and `extra_per_sequence` carry a drafter that shares the device (its weights; its KV cache per
sequence). Every caller (predict, speculation, sweeps, reports) uses this one function.
"""

from __future__ import annotations

import numpy as np

from roofline.costs import kv_cache_bytes, sequences_per_group, weight_bytes
from roofline.hardware import HardwareSpec
from roofline.layout import Deployment
from roofline.model import ModelSpec
from roofline.serving import ServingEngine
from roofline.units import format_si

SMALL_DEVICE_BYTES = 70 * 2**30  # below it (or on an A100) vLLM's default max_num_seqs is 256, not 1024 (engine/arg_utils.py)
LOGIT_BYTES = 4  # a sampler's logits are float32
NO_CAP_BATCH = 2**62  # the max batch of memory that holds no bytes a sequence (a drafter of heads without a KV cache)


def default_sequences(engine: ServingEngine, hw: HardwareSpec) -> int:
    """S (module docstring): `engine`'s sampler_sequences, or sampler_sequences_small where the memory the engine sees
    (M, hw.engine_mem_bytes) is under 70 GiB or on an A100: vLLM's default max_num_seqs there (0: the profile gives
    none)."""
    small = hw.engine_mem_bytes < SMALL_DEVICE_BYTES or hw.engine_family.startswith("a100")
    return engine.sampler_sequences_small if small else engine.sampler_sequences


def running_cap_note(engine: ServingEngine, hw: HardwareSpec, batch: int, dep: Deployment) -> str:
    """'batch 512 under vllm: it runs at most 256 sequences at once ...' where `batch` is above the sequences `engine`
    runs at once by default on `hw`: S (default_sequences) in each of the dp_attention groups, each an engine core
    of its own (vLLM's max_num_seqs: --max-num-seqs raises it); '' otherwise, and for a profile that gives no S."""
    sequences = default_sequences(engine, hw)
    cap = sequences * dep.dp_attention
    if not sequences or int(batch) <= cap:
        return ""
    groups = f" ({sequences:,} in each of its {dep.dp_attention} attention-DP groups)" if dep.dp_attention > 1 else ""
    field = "sampler_sequences_small" if sequences == engine.sampler_sequences_small != engine.sampler_sequences else "sampler_sequences"
    return (f"batch {int(batch):,} under {engine.name}: it runs at most {cap:,} sequences at once on {hw.name} by default"
            f"{groups} (the profile's {field}, vLLM's default max_num_seqs; the vLLM server's --max-num-seqs raises it): a batch above "
            f"{cap:,} here assumes the cap raised to it (left as it is, the rest wait in its queue)")


def reserved_bytes(engine: ServingEngine, hw: HardwareSpec, vocab_size: int, dep: Deployment, sampler: bool = True) -> float:
    """R (module docstring): the memory of a device `engine` keeps from weights and KV cache, for a model of
    `vocab_size` tokens laid out as `dep` (its devices D a stage and N in all, its attention-DP groups); the sampler's
    logits only where `sampler`: the stage holding the LM head (vLLM's profile_run runs its dummy sampler on the last
    pipeline rank alone, gpu_model_runner: `if get_pp_group().is_last_rank`; qa245: every stage was charged them)."""
    sampler_bytes = LOGIT_BYTES * vocab_size * engine.sampler_logit_copies * default_sequences(engine, hw) if sampler else 0.0
    return (engine.memory_reserved_bytes + (engine.memory_reserved_parallel_bytes if dep.devices_per_stage > 1 else 0.0)
            + engine.memory_reserved_per_device_bytes * (dep.devices - 1)
            + (engine.memory_reserved_per_dp_group_bytes * dep.dp_attention if dep.dp_attention > 1 else 0.0)
            + sampler_bytes)


def usable_memory_text(hw: HardwareSpec, model: ModelSpec, dep: Deployment, engine: ServingEngine | None) -> str:
    """Where the usable memory comes from, as predict prints it: "vllm's 0.9 of 85.5 GB less 3.39 GB reserved" or
    "the hardware profile's 90% of 85.5 GB"."""
    f = None if engine is None else engine.memory_fraction_for(dep.devices)
    if f is None:
        return f"the hardware profile's {hw.usable_memory_fraction:.0%} of {format_si(hw.mem_bytes, 'B')}"
    reserve_bytes = reserved_bytes(engine, hw, model.vocab_size, dep, dep.holds_head(model)[1])
    memory = format_si(hw.engine_mem_bytes, "B")
    if hw.engine_mem_bytes != hw.mem_bytes:  # a system-on-chip: the share of unified memory its GPU may wire
        memory += f" (the GPU's {hw.usable_memory_fraction:.0%} of {format_si(hw.mem_bytes, 'B')} unified memory)"
    held_bytes = held_before_share_bytes(engine, dep)
    if held_bytes:  # the memory less C: what the engine measures its share of
        parts = [what for what, b in (("GPU context", engine.memory_before_share_bytes),
                                      ("communicators", engine.memory_before_share_parallel_bytes if dep.devices_per_stage > 1 else 0.0)) if b]
        what = f"the {format_si(held_bytes, 'B')} held by its {' and '.join(parts)} before it measures the free memory"
        base_bytes = share_base_bytes(hw, engine, dep)
        if base_bytes <= 0:  # (qa369: '0.835 of -988 GB')
            return f"no memory left: {memory} less {what}"
        memory = f"{format_si(base_bytes, 'B')} ({memory} less {what})"
    if engine.memory_fraction_of == "free":
        if free_bytes(hw, engine, dep, weight_bytes(model, dep), reserve_bytes) <= 0:  # usable_bytes_for's case of no free memory
            return f"no memory left beside the weights: {memory} less {engine.name}'s {format_si(reserve_bytes, 'B')} reserve"
        less = f" and a {format_si(reserve_bytes, 'B')} reserve" if reserve_bytes > 0 else ""
        return f"the weights and {engine.name}'s {f:g} of what {memory} leaves beside them{less}"
    at = f" at {dep.devices} device{'s' if dep.devices > 1 else ''}" if engine.memory_fraction_by_devices else ""
    if held_bytes and reserve_bytes >= f * hw.engine_mem_bytes:  # (qa402: 'sglang's -1.373, the share it logs')
        return (f"no memory left: the layout's reserve, {format_si(reserve_bytes, 'B')}, is at least {engine.name}'s {f:g} "
                f"of {format_si(hw.engine_mem_bytes, 'B')} (a server of this layout is given a larger share: `roofline "
                f"engines new NAME --from {engine.name} --set memory_fraction=...`)")
    if held_bytes and reserve_bytes > 0:  # (f - R / M) of M - C: the share such an engine logs (qa369: SGLang's 0.824 at tp 8 said
        # nowhere, 0.835 less 912 MB instead)
        return (f"{engine.name}'s {f - reserve_bytes / hw.engine_mem_bytes:.3f}{at}, the share it logs (its {f:g} less the layout's "
                f"reserve, {format_si(reserve_bytes, 'B')} / {format_si(hw.engine_mem_bytes, 'B')}), of {memory}")
    less = f" less {format_si(reserve_bytes, 'B')} reserved" if reserve_bytes > 0 else ""
    return f"{engine.name}'s {f:g}{at} of {memory}{less}"


def held_before_share_bytes(engine: ServingEngine, dep: Deployment) -> float:
    """C (module docstring): what `engine`'s process holds on a device of `dep` before it measures the memory its share
    is of (its CUDA context; on a stage of more than one device its communicators too)."""
    return engine.memory_before_share_bytes + (engine.memory_before_share_parallel_bytes if dep.devices_per_stage > 1 else 0.0)


def share_base_bytes(hw: HardwareSpec, engine: ServingEngine, dep: Deployment) -> float:
    """M - C (module docstring): the memory `engine` takes its share of on a device of `dep`."""
    return hw.engine_mem_bytes - held_before_share_bytes(engine, dep)


def free_bytes(hw: HardwareSpec, engine: ServingEngine, dep: Deployment, weights_bytes, reserve_bytes):
    """M - C - W - R (module docstring): what a free share is taken of; at most 0 where the weights and the reserve fill
    the device."""
    return share_base_bytes(hw, engine, dep) - weights_bytes - reserve_bytes


def usable_bytes_for(hw: HardwareSpec, model: ModelSpec, dep: Deployment, engine: ServingEngine | None, weights_bytes=0.0):
    """usable (module docstring): what a device gives weights (`weights_bytes`: W) and KV cache under `engine`."""
    f = None if engine is None else engine.memory_fraction_for(dep.devices)
    if f is None:
        return hw.usable_mem_bytes
    reserve_bytes = reserved_bytes(engine, hw, model.vocab_size, dep, dep.holds_head(model)[1])
    base_bytes = share_base_bytes(hw, engine, dep)
    if engine.memory_fraction_of == "free":
        left_bytes = free_bytes(hw, engine, dep, weights_bytes, reserve_bytes)  # none: M - C - R, which W exceeds
        return np.maximum(np.minimum(weights_bytes, base_bytes - reserve_bytes), 0.0) + f * np.maximum(left_bytes, 0.0)
    memory_bytes = hw.engine_mem_bytes
    return max((f * memory_bytes - reserve_bytes) * base_bytes / memory_bytes, 0.0)  # a reserve past the share leaves nothing, not less


def kv_shared_and_per_sequence_bytes(model: ModelSpec, context_len, dep: Deployment, shared_prefix=0, window_pool_ratio=None):
    """(shared, per_sequence): the KV bytes a device holds once (a prefix every sequence shares) and per sequence of
    its attention group, read off kv_cache_bytes at B_a = 1 and B_a = 2 (memory is linear in B_a)."""
    one_bytes = kv_cache_bytes(model, dep.dp_attention, context_len, dep, shared_prefix, window_pool_ratio)        # B_a = 1
    two_bytes = kv_cache_bytes(model, 2 * dep.dp_attention, context_len, dep, shared_prefix, window_pool_ratio)    # B_a = 2
    return one_bytes - (two_bytes - one_bytes), two_bytes - one_bytes


def capacity(hw: HardwareSpec, model: ModelSpec, batch, context_len, dep: Deployment, *, shared_prefix=0,
             extra_bytes=0.0, extra_bytes_per_seq=0.0, weights_bytes: float | None = None,
             engine: ServingEngine | None = None) -> dict[str, np.ndarray]:
    """weight_bytes, kv_bytes, memory_needed_bytes, usable_memory_bytes, fits_in_memory, max_batch, stage (broadcast
    arrays). Under pipeline parallelism each kind of stage is checked (distinct_stages: its own layers, KV cache and
    head; a drafter's `extra_bytes` on the last) and the one with the least memory to spare gives the figures (`stage`
    its index), max batch the least of them.

    `weights_bytes` replaces the model's resident weights (a head drafter holds only part of its spec's);
    `engine` (made for `hw`: for_hardware) sets the memory it gives weights and KV cache (usable_bytes_for), its
    hybrid window pool (serving.ServingEngine.window_kv_pool_ratio; None, or no engine: sliding layers hold only their
    window) and whether a `shared_prefix` is held once: where the engine caches prefixes (`prefix_cached`: vLLM V1's
    prefix caching shares the blocks, SGLang's radix tree, TensorRT-LLM's block reuse), else each sequence holds its own
    copy (qa349: vLLM V0 held it once, max batch 378 where 108 fit).
    """
    if engine is not None and not engine.prefix_cached:
        shared_prefix = 0
    if dep.pp > 1 and weights_bytes is None and dep.stage == "busiest":  # every stage's memory: the tightest sets it;
        # a drafter's (extra_bytes) on the last, with the LM head its tokens come from (vLLM PR 50514; qa232, qa233)
        stages = [capacity(hw, model, batch, context_len, s, shared_prefix=shared_prefix,
                           extra_bytes=extra_bytes if s.stage == dep.pp - 1 else 0.0,
                           extra_bytes_per_seq=extra_bytes_per_seq if s.stage == dep.pp - 1 else 0.0, engine=engine)
                  for s in distinct_stages(model, dep)]
        return _tightest(stages)
    window_pool_ratio = engine.window_kv_pool_ratio if engine is not None else None
    resident_bytes = weight_bytes(model, dep) if weights_bytes is None else weights_bytes
    b_a = sequences_per_group(batch, dep)
    kv_bytes = kv_cache_bytes(model, batch, context_len, dep, shared_prefix, window_pool_ratio)
    extra = np.asarray(extra_bytes, dtype=np.float64)
    per_seq_extra = np.asarray(extra_bytes_per_seq, dtype=np.float64)
    needed_bytes = resident_bytes + kv_bytes + extra + per_seq_extra * b_a
    usable_bytes = usable_bytes_for(hw, model, dep, engine, resident_bytes + extra)
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
        "max_batch": np.broadcast_to(np.minimum(max_batch, NO_CAP_BATCH).astype(np.int64), shape),
        "stage": np.broadcast_to(np.asarray(dep.stage if isinstance(dep.stage, int) else dep.busiest_stage(model)
                                            if dep.pp > 1 and dep.stage == "busiest" else 0), shape),
    }


def distinct_stages(model: ModelSpec, dep: Deployment) -> list[Deployment]:
    """`dep` at each pipeline stage whose layers and head differ from those before it (Deployment.at_stage): a few
    kinds of stage (the first, the last, those with one more layer and those without, leading dense layers apart, and
    those of another mix of attention layers: qa257, gpt-oss-120b at pp 8 has stages of 5 layers with 2 and with 3
    full-attention ones, and max batch 118 was the 2's, where the 3's hold 84)."""
    table, seen, out = dep.stage_table(model), set(), []
    for index, row in enumerate(table):
        kind = (row, index == 0, index == dep.pp - 1, dep.at_stage(index).stage_group_layers(model))
        if kind not in seen:
            seen.add(kind)
            out.append(dep.at_stage(index))
    return out


def _tightest(stages: list[dict]) -> dict:
    """capacity's arrays of the stage with the least memory to spare at each point (its weights, KV cache, need and
    usable memory, and index: `stage`); fits where every stage fits, max batch the least of the stages' (and
    `max_batch_stage` the stage it is of)."""
    spare = np.stack([s["usable_memory_bytes"] - s["memory_needed_bytes"] for s in stages])
    pick = np.argmin(spare, axis=0)
    out = {key: np.choose(pick, [s[key] for s in stages]) for key in stages[0] if key not in ("fits_in_memory", "max_batch")}
    out["fits_in_memory"] = np.logical_and.reduce([s["fits_in_memory"] for s in stages])
    out["max_batch"] = np.minimum.reduce([s["max_batch"] for s in stages])
    # the stage whose memory sets max batch: at another batch another stage may have the least to spare (qa251: 744,
    # stage 2's, printed beside stage 4's figures)
    caps = np.stack([s["max_batch"] for s in stages])
    own = np.choose(pick, caps) == out["max_batch"]  # the stage shown holds it too (qa252: a tie, 0 on every stage)
    out["max_batch_stage"] = np.where(own, out["stage"], np.choose(np.argmin(caps, axis=0), [s["stage"] for s in stages]))
    return out
