"""Serving engines: the costs of a deployment that the silicon's roofline does not explain.

An engine profile (YAML in `engine_profiles/`, every number with its unit and a source or the fit
that produced it) adds physical terms to the roofline step of engine.py:

    kernel latency   every kernel pays a fixed `kernel_latency` (launch inside the graph, ramp-up, tail) on top
                     of its data time; operator o launches kernels_o kernels per layer (embedding and LM head:
                     per pass), so t_o = t_o(roofline) + n_o * kernels_o * kernel_latency, with
                     kernels_o = kernels_per_layer[o] (`kernels_per_layer_mla` for MLA models) plus
                     `quant_kernels_per_gemm` per activation-quantised GEMM (weights computing in fp8/fp4/int8)
    collectives      all-reduce and all-to-all pay the engine's measured small-message latency (NCCL/RCCL), never
                     below the link's own wire latency: max(engine, link latency) + bytes / link bandwidth;
                     `moe_dispatch` (MOE_DISPATCH) says what an attention-DP + EP layer moves to its experts and back
                     (engine.py's t_all_to_all)
    host work        scheduling, input preparation and sampling on the CPU per decode step:
                     t_host = m * host_per_step + host_per_sequence * B_a (m = min(B, pp) micro-batches); at pp 1
                     overlapped with the device (max) when the engine schedules asynchronously, else added
                     (`host_overlap_speculating` false: added while speculating, the verify pass of speculation.py); at
                     pp > 1 a micro-batch's share on its round trip, the others' beside it (engine.step_metrics)
    speculation      per draft step: spec_per_draft_step + spec_per_draft_step_per_sequence * B_d (the drafter's
                     sequences per attention group; B on a device of its own: speculation.py; none for n-gram, a
                     host lookup with no drafter);
                     per iteration (rejection sampling, KV bookkeeping):
                     spec_per_iteration + spec_per_iteration_per_sequence * B_a
    eager launch     `graphs` false (vLLM's --enforce-eager, SGLang's --disable-cuda-graph): the host launches every
                     kernel of a pass itself, `eager_launch` each (the CPU time PyTorch, the engine's Python and the
                     driver spend on one kernel), ahead of the device (launches are asynchronous), so a pass takes
                     max(its device time, K * eager_launch), K its kernels: the operators' (kernels_o * n_o, as the
                     kernel latency counts them) and the collectives its layers price, one kernel each
                     (engine.launch_floor_s, collective_times_s; not a prefill pass, eager in graphs too); where the engine overlaps its host work, at pp 1 the host does that work and
                     the launches on one thread, so the step is at least t_host + K * eager_launch (engine.step_metrics);
                     true (CUDA / HIP graphs): one launch a pass, no floor
    near the ridge   `overlap_exponent` p: the smooth form (t_c^p + t_m^p)^(1/p) of compute and memory
                     time; `gemm_tile_rows`: weight-GEMM rows padded to the tensor-core tile (engine.py's pad_o: not
                     the routed experts, whose rows per expert vary; the LM head by its own logit rows)
    MoE kernels      `quantised_moe_efficiency`: the share of the device's ceilings the engine's routed-expert kernels
                     (grouped / fused MoE GEMMs) reach when the experts compute in fp8 / fp4 / int8 (where they
                     dequantise, int4 / w8a16 or a format without tensor cores, the lower of it and
                     weight_only_efficiency: one kernel, never both); the expert
                     operator's roofline time is divided by it, its kernel latencies are not (1: the roofline;
                     bf16 experts are not affected)
    weight-only      `weight_only_efficiency`: the share of the device's ceilings a weight GEMM reaches when its
                     weights are narrower than the dtype it computes in (w8a16, int4, and fp8 / fp4 without
                     tensor cores for them: Marlin, Machete, AWQ, TensorRT-LLM int4_awq dequantise in the GEMM);
                     that operator's roofline time is divided by it, its kernel latencies are not (1: the roofline)
    shared prefix    `prefix_read_once`: the attention kernel reads a prefix shared by the batch once
                     per pass (cascade / prefix-aware attention) instead of once per sequence; only a prefix
                     the batch holds once (`prefix_cached`): with its cache off each sequence holds and reads its own
                     copy (`reads_prefix_once`)
    key splits       `attention_splits_keys`: the decode attention kernel splits each sequence's keys over the
                     device's units (flash-decoding: FlashInfer, FlashAttention's split-KV, TensorRT-LLM's XQA), so a
                     hardware profile's attention_stream (a kernel that streams each (sequence, KV head) on one unit,
                     as PyTorch's fused attention does) does not cap it; false: it does (engine.attention_memory_ceiling;
                     validate's harness engine)
    prefill stall    `mixed_prefill`: a request's prefill joins a decode step (vLLM V1's scheduler: one token budget a
                     step, prefill chunks and decode tokens in one pass; TensorRT-LLM's in-flight batching: context-
                     and generation-phase sequences in one packed pass) instead of running as a pass of its own
                     (vLLM V0, SGLang's default): measurements.py prices the stall it adds to the other requests'
                     time per output token as the extra tokens' time in a shared pass, not a whole prefill pass.
                     Not a cost: like `nvidia_only`, a `costs_from` profile takes the other's value unless it sets
                     its own (vllm-v0 takes vllm's costs and says false: V0 ran prefills as passes of their own)
    prefix cache     `prefix_cached`: an arriving request's prefill skips the tokens of a prefix the batch shares
                     (`shared_prefix`), whose KV cache the engine keeps from the requests before it (vLLM V1's automatic
                     prefix caching, SGLang's radix cache, TensorRT-LLM's KV-cache block reuse, each on by default), so
                     its prefill computes the rest, attending to the prefix (engine.ttft_s' cached tokens); false:
                     every prompt is prefilled whole (vLLM V0, where prefix caching was opt-in). Not a cost: a
                     `costs_from` profile takes the other's value unless it sets its own, as `mixed_prefill`.
                     `prefix_cached_speculating` false: the cache is off while the engine speculates (SGLang 0.4 under
                     EAGLE), so a speculating point prefills every prompt whole and holds and reads the prefix in each
                     sequence (`speculating_engine`), plain decoding's points as `prefix_cached` says
    memory           what a device gives weights and KV cache (capacity.py): `memory_fraction` f of its memory M (vLLM's
                     --gpu-memory-utilization, SGLang's --mem-fraction-static) less a reserve R that is not KV cache,
                     f M - R (less C below); or, `memory_fraction_of: free` (TensorRT-LLM's free_gpu_memory_fraction),
                     W + f (M - C - W - R) with W the weights; R = memory_reserved + memory_reserved_parallel (on a stage of more than one
                     device: communication buffers) + memory_reserved_per_device x (N - 1) (N the replica's devices,
                     tp x dp_attention x pp: SGLang's tp x pp / 8 GiB) + memory_reserved_per_dp_group x dp_attention
                     (at dp_attention > 1: SGLang's padding buffers) + 4 B x vocabulary x sampler_logit_copies x S (the
                     float32 logits of the profiling run's sampler for S sequences: `sampler_sequences`, or
                     `sampler_sequences_small` on a device under 70 GiB or an A100, vLLM's default max_num_seqs).
                     `memory_fraction` null (ideal): the hardware profile's usable_memory_fraction of M, nothing
                     reserved. `memory_fraction_by_devices` {N: f_N}: f is f_N of the largest N at most the replica's
                     devices, memory_fraction below the least N (SGLang 0.4's --mem-fraction-static by tp size).
                     C = memory_before_share + memory_before_share_parallel (on a stage of more than one device):
                     what the engine's process holds before it measures the memory its share is of, M - C (SGLang
                     measures the free memory once its CUDA context and communicators exist): (f M - R) (M - C) / M
    KV memory        `window_kv_pool_ratio` r (None: every sliding-window layer holds min(S, window) entries a
                     sequence, vLLM's hybrid allocator): SGLang's hybrid SWA pool for a model with full and sliding
                     layers (its --swa-full-tokens-ratio), a window pool of r x the full pool's tokens, so a sequence
                     of S tokens is charged max(S, m / r) entries on a full layer and max(r S, m) on a sliding one,
                     m = min(S, the largest window) (costs.kv_cache_bytes); reads are not affected
    speculation      what the engine does while it speculates (not costs: like `mixed_prefill`, a `costs_from` profile
                     takes the other's values unless it sets its own): `max_running_requests_speculating` C (None: no
                     cap), the sequences it runs at once when its own cap is left at its default (SGLang resets
                     --max-running-requests to 48 for every speculative algorithm, each of d attention-DP groups taking
                     floor(C / d) of them): a larger batch waits, so predict, sweeps and cheapest say so, naming
                     `max_running_requests_flag`, the server option that raises the cap, where the profile gives one
                     (null where C is: a copy that sets C null drops the flag it took; a measured row runs at its
                     batch: the harnesses that measure speculation at a large batch set the cap,
                     and a row whose server ran fewer records them in `concurrency`); `speculation_refused`, the methods
                     it has no drafter for (SGLang has no Medusa); `speculation_refused_with_dp_attention`, the
                     methods it refuses under attention DP (SGLang's STANDALONE, the tool's draft, and NGRAM raise
                     there), and `speculation_refused_with_pp`, every method refused with pipeline parallelism (SGLang's
                     server-args check): predict and sweeps warn, cheapest and the report leave such rows out;
                     `speculation_caveats` {method: note}, what a point drafting so must know that leaves it priced (vLLM
                     0.10-0.13 refuse a draft model): predict, sweeps and cheapest say it

`ideal` sets every term to zero: the roofline bound, with only the hardware profile's own `step_overhead` (engine.py). A profile may carry `overrides` per
hardware family (a list of {hardware: GLOB, FIELD: VALUE}), e.g. HIP graphs on AMD.
"""

from __future__ import annotations

import fnmatch
import functools
import math
import numbers
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from roofline.costs import OPERATORS
from roofline.errors import (
    MISSING,
    RooflineError,
    UnknownName,
    check_choice,
    check_flag,
    closest_names,
    field_error,
    prose,
    unknown_key_error,
    warn,
)
from roofline.hardware import check_file_name, spec_where
from roofline.layout import PP_REMAINDERS, shard_note
from roofline.profiles import builtin_dir, differing_fields, find_profile, is_profile_path, list_names, read_yaml
from roofline.units import BYTE_UNITS, format_seconds, is_finite, parse_quantity, parse_seconds_or_zero, spoken_list

DEFAULT_KERNELS = {"input_proj": 1}  # a drafter's input projection: one GEMM, where a profile's counts do not name it
# weight GEMMs per layer of each operator that take a quantised activation when the weights compute in fp8 / fp4 /
# int8 (one quantisation kernel each, `quant_kernels_per_gemm`): GQA's fused QKV; MLA's fused q_a + kv_a projection
# and q_b projection (kv_b is absorbed into the attention's batched matmuls, which stay in bf16); the gate-up and
# down GEMMs of an MLP, of the routed experts and of the shared experts. Router and LM head run in bf16.
QUANTISED_GEMMS = {"qkv_proj": 1, "o_proj": 1, "mlp": 2, "experts": 2, "shared_experts": 2}
QUANTISED_GEMMS_MLA = {**QUANTISED_GEMMS, "qkv_proj": 2}
# YAML key of a time -> its dataclass field (seconds)
_SECONDS = {
    "kernel_latency": "kernel_latency_s",
    "allreduce_latency": "allreduce_latency_s",
    "all_to_all_latency": "all_to_all_latency_s",
    "host_per_step": "host_per_step_s",
    "host_per_sequence": "host_per_sequence_s",
    "spec_per_draft_step": "spec_per_draft_step_s",
    "spec_per_draft_step_per_sequence": "spec_per_draft_step_per_sequence_s",
    "spec_per_iteration": "spec_per_iteration_s",
    "spec_per_iteration_per_sequence": "spec_per_iteration_per_sequence_s",
    "eager_launch": "eager_launch_s",
}
# YAML key of a memory size -> its dataclass field (bytes)
_BYTES = {
    "memory_reserved": "memory_reserved_bytes",
    "memory_reserved_parallel": "memory_reserved_parallel_bytes",
    "memory_reserved_per_device": "memory_reserved_per_device_bytes",
    "memory_reserved_per_dp_group": "memory_reserved_per_dp_group_bytes",
    "memory_before_share": "memory_before_share_bytes",
    "memory_before_share_parallel": "memory_before_share_parallel_bytes",
}
DEFAULT_ENGINE = "vllm"
DRAFTING_METHODS = ("draft", "mtp", "eagle", "medusa", "ngram")  # the speculative methods (speculation.METHODS less none)


# Where the fitted engine costs stop carrying to speculation: published EAGLE curves on an 8B model fall over batch 2-48
# where the predicted ones rise (3% under vllm since session 34, 5% in session 33; a 15% fall sessions 27-32 came from a fitted stand-in
# for one source's slow link: docs/ACCURACY.md), so a speculative gain priced at a large batch is an upper estimate.
# Why 32 (qa454 asked why not 2): a fall of 20% spread evenly over 2-48 against the model's rise of 4% puts the gap at
# about 3% at batch 8, 8% at 16, 13% at 24 and 18% at 32: past 24 it leaves the 15% the accuracy report counts as within
OPTIMISTIC_BATCH = 32
OPTIMISTIC = f"with a serving engine, speculative gains at batch {OPTIMISTIC_BATCH} and above run optimistic"
# the share of a device's time arriving prompts' prefills take beyond which a new one often waits behind another's:
# a serving TTFT (one stall) is then a lower bound (api._queueing_note, frontier.prefill_share_note)
PREFILL_SHARE_QUEUES = 0.5


def dispatch_on_prior(engine: ServingEngine) -> bool:
    """Whether an expert dispatch under `engine` rests on the unfitted all_to_all_latency: DeepEP's kernels (per_rank,
    per_pair) with the profile's sourced start value still (an allgather dispatch pays allreduce_latency:
    engine.dispatch_latency_s)."""
    return engine.moe_dispatch != "allgather" and engine.still_prior("all_to_all_latency")


def dispatch_prior_text(engine: ServingEngine) -> str:
    """'pays sglang's all_to_all_latency (40 us) twice a MoE layer, a prior no measured row determines (roofline engines
    show sglang)': what predict and a sweep say where an expert dispatch rests on the unfitted latency (still_prior)."""
    return (f"pays {engine.name}'s all_to_all_latency ({format_seconds(engine.all_to_all_latency_s)}) twice a MoE layer, a "
            f"prior no measured row determines (roofline engines show {engine.name})")


def dispatch_latency_note(engine: ServingEngine, subject: str = "its expert dispatch", link_latency_s: float = 0.0) -> str:
    """What an expert dispatch's latency rests on, said wherever a point dispatches (predict where it is over a tenth of
    the step, a sweep once an engine and latency with its configs listed, cheapest of its picks; qa152: predict alone
    said it): DeepEP's kernels on the
    unfitted all_to_all_latency (dispatch_prior_text); an all-gather and reduce-scatter on the engine's
    allreduce_latency, a lower estimate for the collective library's (qa149; not where they are all-reduces,
    dp_gather allreduce, which run as the latency was measured: qa150; the latency is an all-reduce's as measured on
    the device, NCCL's, RCCL's or a custom one's: qa152); '' otherwise. `subject`: the dispatch as the sentence names
    it ('it' where the sentence already did). `link_latency_s`: the scale-out link's latency where the dispatch spans
    scale-up domains (hw.cross_domain_latency_s; 0 inside one); where it is the larger the collectives pay it, and the
    engine's value moves nothing (qa227: '15 us' was suggested where 20 us was paid)."""
    own_s = engine.all_to_all_latency_s if dispatch_on_prior(engine) else engine.allreduce_latency_s
    link = (f", and across nodes the scale-out link's {format_seconds(link_latency_s)}, the larger, which the engine's value "
            "does not move" if link_latency_s > own_s else "")
    if dispatch_on_prior(engine):
        return f"{subject} {dispatch_prior_text(engine)}{link}"
    if engine.moe_dispatch == "allgather" and engine.dp_gather != "allreduce":
        possessive = "its" if subject == "it" else f"{subject}'s"
        return (f"{possessive} two collectives a MoE layer pay {engine.name}'s allreduce_latency "
                f"({format_seconds(engine.allreduce_latency_s)}, a small all-reduce's as measured{link}), a lower estimate "
                "for the all-gather and reduce-scatter it runs")
    return ""


HOST_SHARE_NOTED = 0.25  # a share of plain decoding's step above which an engine's unoverlapped host work is named


def host_carries_gain(engine: ServingEngine, pp: int = 1) -> bool:
    """Whether an engine's host work can carry a speculative gain: it adds it to plain decoding's step too
    (host_overlap false), so a speculative iteration pays it once for tau tokens. An engine that overlaps it in plain
    decoding and adds it only while speculating (SGLang's spec V1: host_overlap_speculating false) loses by it (qa157).
    Not said at pp > 1 (qa244: said 'not overlapped' of host work the micro-batches overlap): there a micro-batch's own
    share alone lies on its round trip (engine.step_metrics), and every shipped engine refuses speculation."""
    return str(engine.name) != "ideal" and not engine.host_overlap and pp == 1  # the profile's name, not its repr (qa457)


def host_terms_text(engine: ServingEngine, hardware=None) -> str:
    """'60.2 us a sequence, fitted' or '1.5 ms a step + 10 us a sequence, sourced': the host terms a note names, each
    said fitted only where a fit row determined it (qa157: sglang's unfitted 10 us was called fitted)."""
    fitted = engine.fitted.get("parameters") or ()
    parts = [(f"{format_seconds(v)} a {what}", key) for v, what, key in (
        (engine.host_per_step_s, "step", "host_per_step"), (engine.host_per_sequence_s, "sequence", "host_per_sequence")) if v]
    determined = all(key in fitted and not engine.undetermined(key, hardware or "") for _, key in parts)
    return " + ".join(text for text, _ in parts) + (", fitted" if parts and determined else "")


def host_amortised_note(engine: ServingEngine, batch: int, host_s: float, plain_step_s: float, place: str = "",
                        hardware=None, pp: int = 1) -> str:
    """What a speculative point's gain rests on where the engine adds its host work to plain decoding's step
    (host_carries_gain) and that work is more than HOST_SHARE_NOTED of it (qa156: under session 33's vllm, 61.3 us a
    sequence, speculation paid at every batch that fits and beat the bare roofline's speedup up to threefold, host work
    being paid once an iteration of tau tokens); '' otherwise. `place`: where the sentence puts the batch ('at batch
    B' by default)."""
    if not host_carries_gain(engine, pp) or plain_step_s <= 0:
        return ""
    share = host_s / plain_step_s
    if share <= HOST_SHARE_NOTED:
        return ""
    return (f"{engine.name}'s host work {place or f'at batch {batch:,}'} ({format_seconds(host_s)}: "
            f"{host_terms_text(engine, hardware)}, not overlapped) is {share:.0%} of the plain step, and speculation "
            "pays it once an iteration of tau tokens, so much of the gain there rests on it; host work and GPU work a "
            "sequence (which speculation would not amortise) are not told apart by the fit: an upper estimate "
            "(docs/ACCURACY.md)")


def optimistic_found_for(engine: ServingEngine) -> str:
    """'' for a shipped engine profile (its file and any costs_from's in engine_profiles/), else the words that say
    whose evidence OPTIMISTIC is (qa203, qa204: under a user's fitted profile, or a vllm.yaml of the user's that
    vllm-v0 takes its costs from, it read as that profile's own finding)."""
    shipped = builtin_dir("engine").resolve()
    files = [f for f in (engine.path, engine.costs_from) if f]
    if files and all(Path(f).resolve().parent == shipped for f in files):
        return ""
    return (" (found for the shipped profiles against published speculative curves; a profile fitted to speculative rows "
            "of your own at such batches may hold better)")


def optimistic(batch, engine) -> bool:
    """Whether a speculative point at `batch` under `engine` is in the range OPTIMISTIC names (not the bare roofline)."""
    return str(getattr(engine, "name", engine)) != "ideal" and int(batch) >= OPTIMISTIC_BATCH  # a name or a profile (qa457)


@dataclass(frozen=True)
class ServingEngine:
    """One serving engine's costs (SI units). Zero everywhere is the pure roofline (`ideal`)."""

    name: str = "ideal"
    display_name: str = "ideal roofline"
    version: str = ""
    kernel_latency_s: float = 0.0
    kernels_per_layer: dict = field(default_factory=dict, hash=False)
    kernels_per_layer_mla: dict = field(default_factory=dict, hash=False)  # replaces entries for MLA attention
    quant_kernels_per_gemm: float = 0.0
    allreduce_latency_s: float = 0.0     # 0: the hardware link latency
    all_to_all_latency_s: float = 0.0    # 0: the hardware link latency
    host_per_step_s: float = 0.0
    host_per_sequence_s: float = 0.0
    host_overlap: bool = True
    host_overlap_speculating: bool = True  # false: the engine gives its host overlap up while it speculates (SGLang's spec V1)
    moe_dispatch: str = "per_rank"  # how attention-DP tokens reach their expert-parallel ranks (MOE_DISPATCH)
    dp_gather: str = "allgather"  # how every group's tokens are gathered and brought back under attention DP (DP_GATHER)
    dp_attention_stage_split: tuple = ()  # classes split over a stage's devices under attention DP (STAGE_SPLIT_CLASSES)
    dp_attention_whole: tuple = ()  # classes held whole on every device under attention DP, not split over tp (WHOLE_CLASSES)
    dp_attention_tp1: bool = False  # attention DP runs one device a group (TensorRT-LLM): tp > 1 with it is no setup of its
    ep_spans_stage: bool = False  # expert parallelism spreads the experts over every device of a stage or none (vLLM)
    sequence_parallel_moe: bool = False  # MoE layers at tp > 1 under attention DP + EP run 1/tp of the tokens a rank (vLLM)
    pp_remainder: str = "last"  # the stages that take an uneven pipeline split's extra layers (layout.PP_REMAINDERS)
    attention_dp: bool = True  # false: the engine has no attention data parallelism (vLLM's V0 engine)
    expert_parallel: bool = True  # false: the engine has no expert parallelism, ep 1 only (vLLM's V0 releases)
    mla_absorbed_bf16: bool = False  # MLA decode's absorbed up-projections (kv_b_proj's W_UK, W_UV) a 16-bit copy,
    #   read in 16 bits whatever the weights' dtype (vLLM: no quantised bmm for them); false: in the weights' dtype
    spec_per_draft_step_s: float = 0.0
    spec_per_draft_step_per_sequence_s: float = 0.0
    spec_per_iteration_s: float = 0.0
    spec_per_iteration_per_sequence_s: float = 0.0
    overlap_exponent: float | None = None
    gemm_tile_rows: int = 0
    prefix_read_once: bool = True
    attention_splits_keys: bool = True
    quantised_moe_efficiency: float = 1.0
    weight_only_efficiency: float = 1.0
    window_kv_pool_ratio: float | None = None  # SGLang's hybrid SWA pool (module docstring); None: window-capped
    memory_fraction: float | None = None  # None: the hardware profile's usable_memory_fraction (module docstring, memory)
    memory_fraction_of: str = "device"  # "device": (f M - R)(M - C)/M (vLLM, SGLang); "free": W + f (M - C - W - R) (TensorRT-LLM)
    memory_fraction_by_devices: tuple = ()  # ((N, f_N), ...) ascending: the share at a replica of N or more devices
    memory_reserved_bytes: float = 0.0
    memory_reserved_parallel_bytes: float = 0.0  # on top, on a stage of more than one device (tp x dp_attention > 1)
    memory_reserved_per_device_bytes: float = 0.0  # on top, for each device of the replica past the first
    memory_reserved_per_dp_group_bytes: float = 0.0  # on top, for each attention-DP group where there are several
    memory_before_share_bytes: float = 0.0  # held before the engine measures the memory its share is of (C)
    memory_before_share_parallel_bytes: float = 0.0  # on top, on a stage of more than one device (tp x dp_attention > 1)
    sampler_sequences: int = 0
    sampler_sequences_small: int = 0  # on a device under 70 GiB or an A100
    sampler_logit_copies: float = 0.0
    max_running_requests_speculating: int | None = None  # sequences run at once while speculating, by default (module docstring)
    max_running_requests_flag: str | None = None  # the server option that raises that cap ("--max-running-requests")
    speculation_refused: tuple = ()  # methods the engine has no drafter for (SGLang: medusa)
    speculation_refused_with_dp_attention: tuple = ()  # methods the engine refuses under attention DP
    speculation_refused_with_pp: bool = False  # the engine refuses every speculative method at pp > 1
    speculation_caveats: tuple = ()  # (method, note): what a point drafting with that method must know (releases refusing it)
    nvidia_only: bool = False  # the engine runs on NVIDIA GPUs only (TensorRT-LLM): runs_on says no to other devices
    mixed_prefill: bool = False  # a request's prefill runs inside a decode step (vLLM V1), not as a pass of its own
    prefix_cached: bool = True  # an arriving request's prefill skips a shared prefix the engine holds (module docstring)
    prefix_cached_speculating: bool = True  # false: the engine turns its prefix cache off while it speculates (SGLang 0.4)
    graphs: bool = True  # decode passes replayed from CUDA / HIP graphs; false: launched eagerly (vLLM's --enforce-eager)
    eager_launch_s: float = 0.0  # host time to launch one kernel of an eager pass (module docstring, eager launch)
    overrides: tuple = ()
    fitted: dict = field(default_factory=dict, compare=False, hash=False)
    known_misses: tuple = field(default=(), compare=False, hash=False)  # measured misses, said where a point matches one
    source: str = ""
    notes: str = ""
    path: str = ""
    costs_from: str = ""  # the path of the profile whose costs this one takes (load_engine), or "" for costs of its own
    # the engine before for_hardware applied its overrides (None: this one): a drafter on other hardware starts from it
    general: ServingEngine | None = field(default=None, compare=False, hash=False, repr=False)

    def kernels(self, operator: str, mla: bool = False, quantised: bool = False) -> float:
        """Kernels operator `operator` launches per layer (per pass for embedding, input projection and LM head):

            kernels_per_layer[o]  (kernels_per_layer_mla[o] where the model's attention is MLA and the entry exists;
                                   DEFAULT_KERNELS[o] where neither names o, else 0)
            + quant_kernels_per_gemm * QUANTISED_GEMMS[o]   when the operator's weights compute in fp8 / fp4 / int8
                                                            and it launches kernels of its own (QUANTISED_GEMMS_MLA
                                                            under MLA: its qkv_proj is two GEMMs, the down- and
                                                            up-projections); an operator of 0 kernels runs inside
                                                            another's (SGLang's shared experts as a 257th routed
                                                            expert), whose quantised input it takes (qa479)
        """
        counts = self.kernels_per_layer_mla if mla and operator in self.kernels_per_layer_mla else self.kernels_per_layer
        n = float(counts.get(operator, DEFAULT_KERNELS.get(operator, 0)))
        if quantised and n > 0:
            n += self.quant_kernels_per_gemm * (QUANTISED_GEMMS_MLA if mla else QUANTISED_GEMMS).get(operator, 0)
        return n

    def memory_fraction_for(self, devices: int) -> float | None:
        """f (module docstring, memory) for a replica of `devices` devices: memory_fraction_by_devices' f_N of the
        largest N <= devices, else memory_fraction (None: the hardware profile's usable_memory_fraction)."""
        f = self.memory_fraction
        for n, share in self.memory_fraction_by_devices:  # ascending N
            if devices >= n:
                f = share
        return f

    def memory_terms(self) -> tuple:
        """The fields that set a device's memory for weights and KV cache (capacity.py): a cache key."""
        return (self.window_kv_pool_ratio, self.memory_fraction, self.memory_fraction_by_devices, self.memory_fraction_of, self.memory_reserved_bytes,
                self.memory_reserved_parallel_bytes, self.memory_reserved_per_device_bytes,
                self.memory_reserved_per_dp_group_bytes, self.memory_before_share_bytes,
                self.memory_before_share_parallel_bytes, self.sampler_sequences, self.sampler_sequences_small,
                self.sampler_logit_copies)

    def at_fit_bound(self, parameter: str) -> bool:
        """Whether `parameter` (a fitted parameter's profile key) holds the value its fit left at a bound of the fit's
        range (fitted.bounds_hit; the profile's own value, not a family's), not set by hand since: the rows wanted it
        past the bound, so what rests on it is the bound's answer."""
        fitted = self.fitted or {}
        return parameter in (fitted.get("bounds_hit") or ()) and parameter in (fitted.get("parameters") or ())

    def still_prior(self, parameter: str) -> bool:
        """Whether `parameter` (a fitted parameter's profile key: all_to_all_latency) still holds the sourced start value
        no fit row determined (fitted.not_determined_by_rows): a prior, not a measurement; a copy whose value was set by
        hand holds a value of its own."""
        fitted = self.fitted or {}
        undetermined = [str(entry).split(" [")[0] for entry in fitted.get("not_determined_by_rows") or ()]  # per-family too
        if parameter not in undetermined:
            return False
        start = (fitted.get("start") or {}).get(parameter)
        unit = FITTED_UNITS.get((fitted.get("start_units") or {}).get(parameter))
        value = getattr(self, f"{parameter}_s", getattr(self, parameter, None))
        return start is None or unit is None or value is None or math.isclose(value, start * unit, rel_tol=1e-6)

    def overridden(self, parameter: str, hardware) -> bool:
        """Whether an override matching `hardware` (a HardwareSpec's engine_family, or a name) sets `parameter` (a fitted
        parameter's profile key; a time's override key is its field's, with _s)."""
        name = hardware if isinstance(hardware, str) else hardware.engine_family
        return any(fnmatch.fnmatch(name, glob) and ({parameter, parameter + "_s"} & set(changes)) for glob, changes in self.overrides)

    def undetermined(self, parameter: str, hardware) -> bool:
        """Whether no fit row of the whole profile determined `parameter` (an entry without a family in
        fitted.not_determined_by_rows, the parameter still fitted, not set by hand, not held at a measured value with
        --fix: fitted.fixed) and no override for `hardware`'s family (a HardwareSpec's engine_family, or a name) sets
        it: the value is a sourced start, or where the rest of the fit left it, on every device that takes it."""
        fitted = self.fitted or {}
        if (parameter not in (fitted.get("not_determined_by_rows") or ()) or parameter not in (fitted.get("parameters") or ())
                or parameter in (fitted.get("fixed") or ())):  # qa290: --fix allreduce_latency was said "a prior"
            return False
        return not self.overridden(parameter, hardware)

    def fitted_source(self, parameter: str, hardware) -> str | None:
        """The fitted.fitted_on key the value of `parameter` on `hardware` was fitted as: the parameter's own name (the
        profile's value), or 'parameter [family]' (an override the fit wrote for the device's family: its
        fitted.per_family lists it); None where it is no fit's: set by hand (no longer in fitted.parameters, or an
        override set by hand, gone from fitted.per_family), or held with --fix (fitted.fixed)."""
        fitted = self.fitted or {}
        if parameter not in (fitted.get("parameters") or ()) or parameter in (fitted.get("fixed") or ()):
            return None
        name = hardware if isinstance(hardware, str) else hardware.engine_family
        if not self.overridden(parameter, name):
            return parameter
        family = family_of(name)
        written = [str(e) for e in fitted.get("per_family") or () if str(e).startswith(f"{parameter} on {family} (")
                   and not str(e).endswith("not written")]
        return f"{parameter} [{family}]" if written else None

    def unfitted_on(self, hardware) -> list[tuple[str, str]]:
        """[(parameter, family)] for the fitted parameters whose value on `hardware`'s family (a HardwareSpec's
        engine_family, or a name) no fit row of that family determined (fitted.not_determined_by_rows' entries like
        'quantised_moe_efficiency [AMD Instinct]'): that family takes the profile's value, fitted on other devices. A
        parameter set by hand (no longer in fitted.parameters) or given an override for the family is left out."""
        fitted = self.fitted or {}
        name = hardware if isinstance(hardware, str) else hardware.engine_family
        out = []
        for entry in fitted.get("not_determined_by_rows") or ():
            parameter, _, family = str(entry).partition(" [")
            globs = dict(FAMILIES).get(family.rstrip("]"), ())
            if (family and parameter in (fitted.get("parameters") or ()) and any(fnmatch.fnmatch(name, g) for g in globs)
                    and not self.overridden(parameter, name)):
                out.append((parameter, family.rstrip("]")))
        return out

    @property
    def reads_prefix_once(self) -> bool:
        """Whether a prefix the batch shares is read once a pass: a prefix-aware kernel (`prefix_read_once`) over one
        held copy (`prefix_cached`); without the cache each sequence holds its own copy, which no kernel shares (qa457)."""
        return self.prefix_read_once and self.prefix_cached

    def for_hardware(self, hardware) -> ServingEngine:
        """This engine with the overrides whose `hardware` glob matches applied: to a HardwareSpec's engine_family (its
        `family`, else its name), or to a name. It keeps the engine it started from as `general`, so that a device of
        another family (a drafter's) takes that family's values, not these: `engine.for_other_hardware(hw)`."""
        hardware_name = hardware if isinstance(hardware, str) else hardware.engine_family
        out = self
        for glob, changes in self.overrides:
            if fnmatch.fnmatch(hardware_name, glob):
                out = replace(out, **changes)
        clash = _layout_clash(out.dp_attention_stage_split, out.dp_attention_whole, out.sequence_parallel_moe, out.moe_dispatch)
        if clash:  # qa143: two overrides matching one device listed a class in both; the split silently won
            expected = ("classes not both in dp_attention_stage_split and dp_attention_whole" if clash[0] == "dp_attention_whole"
                        else f"{clash[0]} {clash[1]}")
            raise field_error(self.path or spec_where("engine", self.name), "overrides", f"{expected} on {hardware_name}", clash[2])
        return replace(out, general=self.general or self)

    def for_other_hardware(self, hardware) -> ServingEngine:
        """The engine as `for_hardware(hardware)` makes it from the profile's own values: an engine already
        made for one device (the target's) gives another (a drafter's) none of that device's override values."""
        # graphs is how the deployment runs, not a cost of the device: a copy set eager stays so (qa328)
        return replace((self.general or self).for_hardware(hardware), graphs=self.graphs)

    def to_json(self) -> dict:
        keys = ("name", "display_name", "version", "kernel_latency_s", "allreduce_latency_s", "all_to_all_latency_s",
                "host_per_step_s", "host_per_sequence_s", "host_overlap", "host_overlap_speculating", "moe_dispatch", "dp_gather", "dp_attention_stage_split",
                "dp_attention_whole", "dp_attention_tp1", "ep_spans_stage", "sequence_parallel_moe", "pp_remainder", "attention_dp", "expert_parallel", "mla_absorbed_bf16", "spec_per_draft_step_s",
                "spec_per_draft_step_per_sequence_s", "spec_per_iteration_s", "spec_per_iteration_per_sequence_s",
                "overlap_exponent", "gemm_tile_rows", "prefix_read_once", "attention_splits_keys", "quantised_moe_efficiency",
                "weight_only_efficiency", "window_kv_pool_ratio", "memory_fraction", "memory_fraction_of", "memory_reserved_bytes",
                "memory_reserved_parallel_bytes", "memory_reserved_per_device_bytes", "memory_reserved_per_dp_group_bytes",
                "memory_before_share_bytes", "memory_before_share_parallel_bytes", "sampler_sequences", "sampler_sequences_small", "sampler_logit_copies", "max_running_requests_speculating",
                "max_running_requests_flag", "speculation_refused", "speculation_refused_with_dp_attention", "speculation_refused_with_pp",
                "quant_kernels_per_gemm", "nvidia_only",
                "mixed_prefill", "prefix_cached", "prefix_cached_speculating", "graphs", "eager_launch_s", "costs_from")
        out = {k: getattr(self, k) for k in keys}
        out["speculation_caveats"] = dict(self.speculation_caveats)
        out["memory_fraction_by_devices"] = {n: f for n, f in self.memory_fraction_by_devices}
        out["kernels_per_layer"] = dict(self.kernels_per_layer)
        out["kernels_per_layer_mla"] = dict(self.kernels_per_layer_mla)
        # per hardware family: [{hardware: GLOB, FIELD: VALUE}] in SI units, as for_hardware applies them
        out["overrides"] = [{"hardware": glob, **{k: dict(v) if isinstance(v, dict) else v for k, v in changes.items()}}
                            for glob, changes in self.overrides]
        out["fitted"] = self.fitted or None  # the block roofline fit wrote (rows, classes, families, undetermined), or None
        out["known_misses"] = [dict(miss) for miss in self.known_misses]  # measured misses predict says (qa305: unlisted)
        return out


IDEAL = ServingEngine()


def speculating_engine(engine: ServingEngine) -> ServingEngine:
    """`engine` as it holds a shared prefix while it speculates: with `prefix_cached_speculating` false its prefix
    cache is off then (SGLang 0.4 under EAGLE), so every prompt is prefilled whole and each sequence holds and reads
    the prefix (prefix_cached and prefix_read_once false); else `engine` itself."""
    if engine.prefix_cached and not engine.prefix_cached_speculating:  # its general engine too, which a drafter's own
        # device is priced from (for_other_hardware; qa353: the cache came back there)
        general = speculating_engine(engine.general) if engine.general is not None else None
        return replace(engine, prefix_cached=False, prefix_read_once=False, general=general)
    return engine


_KNOWN = {"type", "name", "display_name", "version", "known_misses", "kernels_per_layer", "kernels_per_layer_mla", "quant_kernels_per_gemm",
          "host_overlap", "host_overlap_speculating", "graphs", "moe_dispatch", "dp_gather", "dp_attention_stage_split",
          "dp_attention_whole", "dp_attention_tp1", "ep_spans_stage", "sequence_parallel_moe", "pp_remainder", "attention_dp",
          "expert_parallel", "mla_absorbed_bf16", "overlap_exponent",
          "gemm_tile_rows", "prefix_read_once", "attention_splits_keys", "quantised_moe_efficiency", "weight_only_efficiency", "window_kv_pool_ratio",
          "memory_fraction", "memory_fraction_by_devices", "memory_fraction_of", "sampler_sequences", "sampler_sequences_small",
          "sampler_logit_copies", "max_running_requests_speculating", "max_running_requests_flag", "speculation_refused", "speculation_refused_with_dp_attention",
          "speculation_refused_with_pp", "speculation_caveats", "nvidia_only", "mixed_prefill", "prefix_cached", "prefix_cached_speculating", "overrides", "fitted", "source", "notes", *_SECONDS, *_BYTES}


def _yaml_seconds(where: str, key: str, value: object) -> float:
    """A profile's time: "3 us" (a positive quantity), or 0 in any unit (a cost the engine does not have)."""
    try:
        return parse_seconds_or_zero(value)
    except ValueError as exc:
        raise field_error(where, key, str(exc), value) from None


def _spec_seconds(where: str, key: str, value: object) -> float:
    """A spec's time in seconds: finite, 0 or more (0: no such cost)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not is_finite(value) or value < 0:
        raise field_error(where, key, "a finite number of seconds >= 0", value)
    return float(value)


def _kernel_counts(where: str, key: str, value: object) -> dict:
    """{operator: kernels per layer}, operators of OPERATORS, counts in 0..100."""
    if not isinstance(value, dict):
        raise field_error(where, key, "a mapping of operator to kernel count", value)
    for op, n in value.items():
        if op not in OPERATORS:
            raise field_error(where, f"{key}.{op}", "one of " + ", ".join(OPERATORS), op)
        if isinstance(n, bool) or not isinstance(n, numbers.Real) or not 0 <= n <= 100:
            raise field_error(where, f"{key}.{op}", "a kernel count in 0..100 (a mean where layers differ)", n)
    return dict(value)


def _quant_kernels(where: str, key: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value <= 10:
        raise field_error(where, key, "a kernel count in 0..10", value)
    return float(value)



MOE_DISPATCH = {  # the all-to-all of an attention-DP + EP layer, engine.collective_times_s prices each: (short name, what)
    "per_rank": ("DeepEP normal", "a token once to each rank one of its experts is on, once to each node across nodes "
                 "(DeepEP's normal kernels, which wait on the CPU and so run without CUDA graphs: a bound for decoding), "
                 "fp8 out for block-quantised fp8 experts, else bf16, bf16 back"),
    "per_pair": ("DeepEP low-latency", "a token once per expert (DeepEP's low-latency kernels), fp8 with a scale a 128 out, "
                 "bf16 back"),
    "allgather": ("all-gather + reduce-scatter", "every rank's tokens gathered to every rank and the outputs reduce-scattered "
                  "(the default of vLLM, SGLang and TensorRT-LLM)"),
}


def _moe_dispatch(where: str, key: str, value: object) -> str:
    return check_choice(where, key, value, tuple(MOE_DISPATCH))


DP_GATHER = {  # how an engine gathers every attention group's tokens to a layer run over the stage, and brings them back
    "allgather": "an all-gather, then a reduce-scatter of the outputs (vLLM's allgather_reducescatter, TensorRT-LLM's)",
    "allgather_decode": "an all-gather, then a reduce-scatter of the outputs in a decode or verify pass (SGLang's max_len "
                        "mode in CUDA graphs, since 0.4.10), and in a prefill (sum_len mode) an all-reduce of the zero-padded "
                        "buffer and one of the outputs: twice the bytes",
    "allreduce": "an all-reduce of a zero-padded buffer, then an all-reduce of the outputs, each sliced (SGLang before "
                 "0.4.10): twice the bytes",
}


def _dp_gather(where: str, key: str, value: object) -> str:
    return check_choice(where, key, value, tuple(DP_GATHER))


STAGE_SPLIT_CLASSES = {  # what an engine may run over every device of a stage under attention DP, and where it comes from
    "mlp": "the dense MLP (SGLang: moe_dense_tp_size unset, its default; its first releases' DP attention too)",
    "shared_experts": "the shared experts (SGLang, but under DeepEP or Mooncake, where it holds them at tp 1: a per_pair or "
                      "per_rank moe_dispatch keeps them in the group)",
    "lm_head": "the LM head, its logits all-gathered (SGLang since 0.4.6: enable_dp_lm_head off, its default; a replicated "
               "LM head before)",
}


def _method_notes(where: str, key: str, value: object) -> tuple:
    """A profile's {method: note} (null or {} for none): each key a speculative method (any case), each note text."""
    if value is None:
        return ()
    if isinstance(value, (tuple, list)):  # a spec's own pairs
        value = dict(value) if all(isinstance(p, (tuple, list)) and len(p) == 2 for p in value) else value
    if not isinstance(value, dict):
        raise field_error(where, key, "a mapping of method to note, e.g. {draft: 'releases 0.10-0.13 refuse it'}", value)
    out = {}
    for method, note in value.items():
        name = method.strip().lower() if isinstance(method, str) else method
        if name not in DRAFTING_METHODS:
            raise field_error(where, f"{key} key", "one of " + ", ".join(DRAFTING_METHODS), method)
        if not isinstance(note, str) or not note.strip():
            raise field_error(where, f"{key}.{name}", "a note (text)", note)
        out[name] = " ".join(note.split())
    return tuple((m, out[m]) for m in DRAFTING_METHODS if m in out)


def _class_list(choices: dict):
    """The rule of a profile's list of weight classes among `choices`, each once ([] for none), in `choices`' order."""
    def check(where: str, key: str, value: object) -> tuple:
        given = [v.strip().lower() if isinstance(v, str) else v for v in value] if isinstance(value, (list, tuple)) else None
        if given is None or any(not isinstance(v, str) or v not in choices for v in given) or len(set(given)) != len(given):
            raise field_error(where, key, "a list of " + ", ".join(choices) + " (each once; [] for none)", value)
        return tuple(c for c in choices if c in given)  # any case, as method names are read (qa220)
    return check


WHOLE_CLASSES = {  # what an engine may hold whole on every device under attention DP, whatever its tp
    "embedding": "the input embedding (SGLang: VocabParallelEmbedding(enable_tp=not dp_attention))",
    "lm_head": "the LM head (SGLang before 0.4.6: a ReplicatedLinear under DP attention)",
}


def stage_split_classes(engine: ServingEngine, dp_attention: int) -> tuple:
    """The weight classes `engine` splits over a stage's D devices under attention DP (its dp_attention_stage_split),
    the shared experts left in the group where its MoE dispatch is DeepEP's (SGLang runs them at tp 1 there); () without
    attention DP."""
    if dp_attention <= 1:
        return ()
    deepep = engine.moe_dispatch in ("per_pair", "per_rank")
    return tuple(c for c in engine.dp_attention_stage_split if not (c == "shared_experts" and deepep))


def stage_split_dense_note(engine: ServingEngine, model, dep) -> str:
    """A note where an engine splits classes over the stage under attention DP for a dense model: SGLang runs attention
    DP for DeepSeek-style MoE models only (its dense models' files have no DP path), so the layout is none it runs."""
    if not for_engine(dep, engine, model).stage_split or model.moe is not None:
        return ""
    return (f"{model.name} with dp_attention {dep.dp_attention} under {engine.name}: its dp_attention_stage_split is "
            "SGLang's DeepSeek-style layout; SGLang runs attention DP for such MoE models only, so a dense model's figures "
            "here describe no SGLang setup")  # qa137


def engine_layout_note(engine: ServingEngine, model, dep) -> str:
    """A note where `engine` runs no setup of layout `dep` (the frontier leaves such rows out, as it does the shard
    widths engines refuse): attention DP where it has none (attention_dp false), pp > 1 where it has no pipeline
    parallelism (pp_remainder none), attention DP with tp > 1
    where its attention groups are one device each
    (dp_attention_tp1: TensorRT-LLM's enable_attention_dp sets the attention's tp to 1, tensorrt_llm/_torch/modules/
    attention.py; SGLang's early 0.4 server_args set dp_size to tp_size, sgl-project/sglang issue 3750), ep > 1 where it has no expert
    parallelism (expert_parallel false), or 1 < ep < D where its expert parallelism spans every device of a stage or
    none (ep_spans_stage: vLLM's --enable-expert-parallel sets ep = tp x data-parallel size, FusedMoEParallelConfig.make;
    SGLang's early 0.4 --enable-ep-moe set ep_size to tp_size); '' elsewhere."""
    d = dep.devices_per_stage
    if not engine.attention_dp and dep.dp_attention > 1:  # qa236: vLLM's V0 engine had no data parallelism
        return (f"dp_attention {dep.dp_attention} under {engine.name}: it has no attention data parallelism "
                f"(attention_dp false), so no {engine.name} setup has this layout")
    if not engine.expert_parallel and model.moe is not None and dep.ep > 1:  # qa292: vLLM's V0 releases had none
        return (f"ep {dep.ep} under {engine.name}: it has no expert parallelism (expert_parallel false), so no "
                f"{engine.name} setup has this layout: its experts split over the stage's devices (ep 1)")
    if engine.pp_remainder == "none" and dep.pp > 1:  # qa233: SGLang before its PR 5724 (2025) had none
        return (f"pp {dep.pp} under {engine.name}: it has no pipeline parallelism (pp_remainder none), so no "
                f"{engine.name} setup has this layout")
    if engine.dp_attention_tp1 and dep.dp_attention > 1 and dep.tp > 1:
        return (f"tp {dep.tp} with dp_attention {dep.dp_attention} under {engine.name}: its attention DP runs each attention "
                f"group on one device (dp_attention_tp1: its attention DP sets the attention's tp to 1; `roofline engines "
                f"show {engine.name}` gives the source), so no {engine.name} setup has this layout: {d} devices with "
                f"attention DP are tp 1, dp_attention {d} here")
    if engine.ep_spans_stage and model.moe is not None and 1 < dep.ep < d:
        return (f"ep {dep.ep} of a stage's {d} devices under {engine.name}: its expert parallelism spreads the experts over "
                f"every device of a stage or none (ep_spans_stage: its expert parallelism takes every device of the stage; "
                f"`roofline engines show {engine.name}` gives the source), so no {engine.name} setup has this layout: its "
                f"ep is 1 or {d} here")
    return ""


def running_cap_speculating(engine: ServingEngine, dp_attention: int = 1) -> int | None:
    """The sequences `engine` runs at once while speculating with its own cap at its default (None: no cap): C, or under
    d > 1 attention-DP groups d x max(floor(C / d), 1), each group taking its floor share (SGLang's
    resolve_max_num_reqs divides --max-running-requests by the attention-DP size; at least one a group assumed)."""
    cap = engine.max_running_requests_speculating
    if cap is None or dp_attention <= 1:
        return cap
    return dp_attention * max(cap // dp_attention, 1)


def engine_refusals(engine: ServingEngine, hw, model, dep) -> list[str]:
    """What no setup of `engine` runs, speculating or not, each a line: its device (TensorRT-LLM off NVIDIA:
    engine_on_a_cpu's note), its layout (stage_split_dense_note, engine_layout_note), a shard vLLM and SGLang refuse to
    load (layout.shard_note; not under ideal, the bound). predict's `engine_refuses`; a measurement row's
    (measurements.engine_refusal, with the speculative refusals)."""
    return [w for w in (engine_on_a_cpu(engine, hw) if not runs_on(engine, hw) else "",
                        stage_split_dense_note(engine, model, dep), engine_layout_note(engine, model, dep),
                        shard_note(model, dep) if engine.name != IDEAL.name else "") if w]


def speculation_caveat_note(engine: ServingEngine, method: str) -> str:
    """What a point drafting with `method` under `engine` must know that does not stop every setup running it (its
    profile's speculation_caveats: vLLM's releases 0.10-0.13 refuse a draft model, qa405), '' where it says nothing.
    Not a refusal: the point stays priced, and cheapest and the report keep it."""
    caveat = {str(m).strip().lower(): note for m, note in dict(engine.speculation_caveats).items()}.get(method)  # (a spec
    #   object's keys as given: qa412)
    return (f"{method} speculation under {engine.name}" + (f" ({engine.version})" if engine.version else "")
            + f": {caveat} (its profile's speculation_caveats)") if caveat else ""


def drafting_word(method: str) -> str:
    """The method as 'X drafting' says it: 'draft-model' for a draft model (qa479: 'draft drafting'), else its name."""
    return "draft-model" if method == "draft" else method


def speculation_engine_notes(engine: ServingEngine, method: str, batch: int, dep) -> list[str]:
    """Notes where `engine` runs no setup of speculative `method` as asked at batch `batch` (a sweep's largest): a method it
    has no drafter for (speculation_refused: SGLang's SpeculativeAlgorithm has no Medusa), a method it
    refuses under attention DP (speculation_refused_with_dp_attention: SGLang's server_args.py _handle_speculative_decoding
    raises for STANDALONE and NGRAM with --enable-dp-attention) or with pipeline parallelism (speculation_refused_with_pp:
    SGLang's server-args check refuses speculative decoding at pp > 1), or a batch above the sequences it runs at once
    while speculating when its own cap is left at its default (running_cap_speculating: the same function resets
    --max-running-requests to 48 where it is unset). The caller says whether the point drafts at all."""
    notes = []
    if method in engine.speculation_refused:  # said alone: no layout or cap of it matters
        return [f"{method} speculation under {engine.name}: the engine has no {method} drafter (speculation_refused), "
                f"so no {engine.name} setup runs this point, as its profile describes the engine (`roofline engines show "
                f"{engine.name}` says why, and which form of it, if any, has one)"]  # qa345: TensorRT-LLM's legacy
    # engine flow runs Medusa, the PyTorch backend the profile describes does not
    if method in engine.speculation_refused_with_dp_attention and dep.dp_attention > 1:
        notes.append(f"{method} speculation with dp_attention {dep.dp_attention} under {engine.name}: the engine refuses "
                     f"{drafting_word(method)} drafting under attention DP (speculation_refused_with_dp_attention), so no {engine.name} "
                     "setup runs this point")
    if engine.speculation_refused_with_pp and dep.pp > 1:
        notes.append(f"{method} speculation with pp {dep.pp} under {engine.name}: the engine refuses speculative decoding "
                     f"with pipeline parallelism (speculation_refused_with_pp), so no {engine.name} setup runs this point")
    cap = running_cap_speculating(engine, dep.dp_attention)
    if cap is not None and int(batch) > cap and not notes:  # (qa210: beside a refusal, a cap on a setup that never runs)
        groups = (f" ({cap // dep.dp_attention:,} in each of its {dep.dp_attention} attention-DP groups)"
                  if dep.dp_attention > 1 else "")
        flag = engine.max_running_requests_flag  # the profile names the server option (qa181: not from its name)
        notes.append(f"batch {int(batch):,} while speculating under {engine.name}: it runs at most {cap:,} sequences at once "
                     f"when speculating{groups} unless its cap is raised (its profile's max_running_requests_speculating, "
                     f"{engine.max_running_requests_speculating:,}{f'; the server option {flag} raises it' if flag else ''}): a batch "
                     f"above {cap:,} here assumes the cap raised to it (left as it is, the rest wait in its queue)")
    return notes


SEQUENCE_SPLIT_CLASSES = ("router", "shared_experts")  # what vLLM's sequence-parallel MoE holds whole, on 1/tp of the tokens


def sequence_split_classes(engine: ServingEngine, dep, model) -> tuple:
    """The classes `engine` holds whole on every tp rank, each running 1/tp of its attention group's tokens
    (SEQUENCE_SPLIT_CLASSES): where its sequence_parallel_moe meets tp > 1 under attention DP with ep > 1 (vLLM's
    ParallelConfig.use_sequence_parallel_moe, which its MoE blocks follow at any pp; qa143) for a MoE model whose
    block has that path (its moe.sequence_parallel: vLLM's DeepSeek, Qwen3-MoE, Llama 4 and gpt-oss blocks, not
    Mixtral's; qa149), else ()."""
    moe = getattr(model, "moe", None)
    on = (engine.sequence_parallel_moe and dep.tp > 1 and dep.dp_attention > 1 and dep.ep > 1
          and moe is not None and moe.sequence_parallel)
    return SEQUENCE_SPLIT_CLASSES if on else ()


def for_engine(dep, engine: ServingEngine, model):
    """`dep` as `engine` lays it out for `model`: its stage_split classes (stage_split_classes), under attention DP the
    classes it holds whole (dp_attention_whole), those of its sequence-parallel MoE (sequence_split_classes), and the
    stages its uneven pipeline split gives the extra layers (pp_remainder), and whether an MLA model's absorbed
    up-projections are held and read in 16 bits (mla_absorbed_bf16)."""
    split = stage_split_classes(engine, dep.dp_attention)
    whole = engine.dp_attention_whole if dep.dp_attention > 1 else ()
    sequence = sequence_split_classes(engine, dep, model)
    remainder = engine.pp_remainder if dep.pp > 1 else dep.pp_remainder
    absorbed = engine.mla_absorbed_bf16 and getattr(model, "kv_layout", "") == "mla"
    if (split, whole, sequence, remainder, absorbed) == (dep.stage_split, dep.whole, dep.sequence_split, dep.pp_remainder,
                                                         dep.mla_absorbed_bf16):
        return dep
    return replace(dep, stage_split=split, whole=whole, sequence_split=sequence, pp_remainder=remainder,
                   mla_absorbed_bf16=absorbed)


def _overlap_exponent(where: str, key: str, value: object) -> float | None:
    """p of the smooth max of compute and memory time; None: the max itself."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real) or not is_finite(value)
                              or not 1 <= value <= 100):
        raise field_error(where, key, "a number in [1, 100] or null (pure max)", value)
    return None if value is None else float(value)


def _efficiency(where: str, key: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not is_finite(value) or not 0.01 <= value <= 1:
        raise field_error(where, key, "a fraction in [0.01, 1]", value)
    return float(value)


def _pool_ratio(where: str, key: str, value: object) -> float | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real) or not is_finite(value)
                              or not 0.01 <= value <= 1):
        raise field_error(where, key, "a fraction in [0.01, 1] (SGLang's --swa-full-tokens-ratio) or null (window-capped)", value)
    return None if value is None else float(value)


def _memory_fraction(where: str, key: str, value: object) -> float | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real) or not is_finite(value)
                              or not 0.05 <= value <= 1):
        raise field_error(where, key, "a fraction in [0.05, 1] or null (the hardware profile's usable_memory_fraction)", value)
    return None if value is None else float(value)


def shares_text(shares) -> str:
    """memory_fraction_by_devices as the tool says it, '0.87 at 2+ devices, 0.81 at 8+ devices', of ((N, f), ...) or of
    a profile's {"N": f} ('' for none)."""
    pairs = shares.items() if isinstance(shares, dict) else shares
    return ", ".join(f"{float(f):g} at {n}+ devices" for n, f in pairs)


def _fraction_by_devices(where: str, key: str, value: object) -> tuple:
    """{"N": f_N} (a profile's mapping, its keys strings of digits as the safe loader wants keys; or a spec's ((N, f_N),
    ...)) as ((N, f_N), ...) ascending; null or {} for none."""
    items = value.items() if isinstance(value, dict) else value if isinstance(value, tuple) else None  # (a YAML list: no)
    expected = 'a mapping of device counts of 2 or more to fractions in [0.05, 1] ({"2": 0.87, "8": 0.81}), or null'
    if value is None:
        return ()
    try:
        pairs = [(int(n) if isinstance(n, str) and re.fullmatch(r"[1-9][0-9]*", n) else n, f) for n, f in items] \
            if items is not None else None  # '02' no count, as the schema's pattern says (qa360)
    except (TypeError, ValueError):
        pairs = None
    if pairs is not None and len({n for n, _ in pairs}) != len(pairs):
        pairs = None  # a count given twice
    if pairs is None or any(isinstance(n, bool) or not isinstance(n, numbers.Integral) or not 2 <= n <= 1_000_000
                            or isinstance(f, bool) or not isinstance(f, numbers.Real) or not is_finite(f)
                            or not 0.05 <= f <= 1 for n, f in pairs):
        raise field_error(where, key, expected, value)
    return tuple(sorted((int(n), float(f)) for n, f in pairs))


def _memory_of(where: str, key: str, value: object) -> str:
    return check_choice(where, key, value, ("device", "free"))


def _pp_remainder(where: str, key: str, value: object) -> str:
    return check_choice(where, key, value, tuple(PP_REMAINDERS))


def _sequences(where: str, key: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value <= 1_000_000:
        raise field_error(where, key, "an integer in 0..1000000", value)
    return int(value)


def _running_cap(where: str, key: str, value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= value <= 1_000_000:
        raise field_error(where, key, "an integer in 1..1000000 or null (no cap)", value)
    return int(value)


OPTION_PATTERN = r"--[a-z0-9][a-z0-9_-]*"  # a server option: SGLang's --max-running-requests, trtllm-serve's --max_batch_size


def _option(where: str, key: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not re.fullmatch(OPTION_PATTERN, value):
        raise field_error(where, key, "a server option like --max-running-requests, or null (none)", value)
    return value


def _check_cap_flag(where: str, engine: "ServingEngine") -> None:
    """The option that raises the running cap names nothing where there is no cap (qa183: such a flag was accepted and
    never named)."""
    if engine.max_running_requests_flag is not None and engine.max_running_requests_speculating is None:
        raise field_error(where, "max_running_requests_flag", "null where max_running_requests_speculating is null "
                          "(there is no cap for the option to raise)", engine.max_running_requests_flag)


def _check_share_by_devices(where: str, engine: "ServingEngine") -> None:
    """Shares by device count are the steps from memory_fraction, the share at fewer devices: they need it (a null
    memory_fraction took the hardware profile's below the least N and the engine's share above), in the profile and
    in each `overrides` entry as it applies (qa360: an entry gave shares by devices over no memory_fraction)."""
    if engine.memory_fraction_by_devices and engine.memory_fraction is None:
        raise field_error(where, "memory_fraction", "a fraction in [0.05, 1] where memory_fraction_by_devices is set (the "
                          "share at fewer devices than its least count)", None)
    for i, (_, changes) in enumerate(engine.overrides):
        shares = changes.get("memory_fraction_by_devices", engine.memory_fraction_by_devices)
        if shares and changes.get("memory_fraction", engine.memory_fraction) is None:
            raise field_error(where, f"overrides[{i}].memory_fraction", "a fraction in [0.05, 1] where "
                              "memory_fraction_by_devices is set (the share at fewer devices than its least count)", None)


def _copies(where: str, key: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not is_finite(value) or not 0 <= value <= 100:
        raise field_error(where, key, "a number in [0, 100]", value)
    return float(value)


def _yaml_bytes(where: str, key: str, value: object) -> float:
    """A profile's memory size: "1.5 GiB", or 0 in any unit (nothing reserved); at most 1 PiB, as a spec's."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and value == 0:
        return 0.0
    zero = re.fullmatch(r"\s*([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)\s*(\S*)\s*", value) if isinstance(value, str) else None
    if zero and float(zero.group(1)) == 0 and (not zero.group(2) or zero.group(2) in BYTE_UNITS):  # "0" quoted too (qa176)
        return 0.0
    try:
        out = parse_quantity(value, "bytes")
    except ValueError:
        # one statement of what is wanted (session 36's note: "or 0 (a finite positive quantity like '80 GB')")
        raise field_error(where, key, "a memory size of 0 or more with a byte unit, B, kB to PB or KiB to PiB "
                                      "(1.5 GiB, 800 MB), or 0", value) from None
    if out > 2**50:
        raise field_error(where, key, "a memory size of at most 1 PiB", value)
    return out


def _spec_bytes(where: str, key: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not is_finite(value) or not 0 <= value <= 2**50:
        raise field_error(where, key, "a finite number of bytes >= 0", value)
    return float(value)


def _tile_rows(where: str, key: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value <= 1024:
        raise field_error(where, key, "an integer in 0..1024", value)
    return value


# The cost fields whose profile key is the dataclass field and whose value is a plain one (no unit): their rules,
# applied alike to a profile's values (engine_from_dict) and to a spec's (check_engine_spec).
_VALUE_RULES = {
    "kernels_per_layer": _kernel_counts,
    "kernels_per_layer_mla": _kernel_counts,
    "quant_kernels_per_gemm": _quant_kernels,
    "host_overlap": check_flag,
    "host_overlap_speculating": check_flag,
    "moe_dispatch": _moe_dispatch,
    "dp_gather": _dp_gather,
    "dp_attention_stage_split": _class_list(STAGE_SPLIT_CLASSES),
    "dp_attention_whole": _class_list(WHOLE_CLASSES),
    "dp_attention_tp1": check_flag,
    "ep_spans_stage": check_flag,
    "sequence_parallel_moe": check_flag,
    "prefix_read_once": check_flag,
    "attention_splits_keys": check_flag,
    "overlap_exponent": _overlap_exponent,
    "quantised_moe_efficiency": _efficiency,
    "weight_only_efficiency": _efficiency,
    "gemm_tile_rows": _tile_rows,
    "window_kv_pool_ratio": _pool_ratio,
    "memory_fraction": _memory_fraction,
    "memory_fraction_by_devices": _fraction_by_devices,
    "memory_fraction_of": _memory_of,
    "sampler_sequences": _sequences,
    "sampler_sequences_small": _sequences,
    "sampler_logit_copies": _copies,
}
# What the engine does while it speculates (module docstring): its own fields, not costs, as `mixed_prefill` is
_SPECULATION_RULES = {
    "max_running_requests_speculating": _running_cap,
    "max_running_requests_flag": _option,
    "speculation_refused": _class_list(dict.fromkeys(DRAFTING_METHODS)),
    "speculation_refused_with_dp_attention": _class_list(dict.fromkeys(DRAFTING_METHODS)),
    "speculation_refused_with_pp": check_flag,
    "speculation_caveats": _method_notes,
}
COST_FIELDS = (*_SECONDS.values(), *_BYTES.values(), *_VALUE_RULES)  # the ServingEngine fields an override may change
COST_KEYS = (*_SECONDS, *_BYTES, *_VALUE_RULES)  # the same fields as a profile spells them (schema.py)


def _fields(data: dict, where: str, prefix: str = "") -> dict:
    """The dataclass fields a mapping sets (shared by the profile and its overrides). A cost it leaves out keeps the
    ServingEngine default: 0 for every time and kernel count (the pure roofline's term), 1 for the efficiencies."""
    out = {name: _yaml_seconds(where, prefix + key, data[key]) for key, name in _SECONDS.items() if key in data}
    out.update({name: _yaml_bytes(where, prefix + key, data[key]) for key, name in _BYTES.items() if key in data})
    out.update({key: rule(where, prefix + key, data[key]) for key, rule in _VALUE_RULES.items() if key in data})
    for key, name in _BYTES.items():
        if name in out:
            _check_held(where, prefix + key, out[name], data[key])
    return out


HELD_BEFORE_SHARE = ("memory_before_share", "memory_before_share_parallel")  # C's terms (capacity.py)
HELD_MAX_BYTES = 64 * 2**30  # a runtime's context, communicators, graphs and buffers: 0.1-4.3 GiB in the sources


def _check_held(where: str, key: str, value_bytes: float, shown: object) -> None:
    """A term of C (what an engine holds before it measures its share) is a context and communicators, and a reserve
    R's term graphs and buffers, not a device's memory: each at most HELD_MAX_BYTES (qa369: 1000 GiB was taken, and
    predict printed a share of -988 GB; qa388: a reserve of 0.12 TiB, written for GiB, fitted no sequence, unsaid)."""
    if value_bytes > HELD_MAX_BYTES:
        what = ("a runtime's context and communicators, 0.7-4.3 GiB in SGLang's start-up logs: "
                "measurements/sglang-memory.csv" if key.split(".")[-1].removesuffix("_bytes") in HELD_BEFORE_SHARE else
                "a runtime's graphs, activations, buffers and communicators: 0.12-4.61 GiB in the shipped profiles")
        raise field_error(where, key, f"at most {HELD_MAX_BYTES / 2**30:g} GiB ({what})", shown)


def _check_spec_costs(where: str, costs: dict, prefix: str = "") -> None:
    """Cost fields of a spec (or of one of its overrides) by dataclass name: times in seconds, the rest by _VALUE_RULES."""
    for name, value in costs.items():
        if name in _VALUE_RULES:
            _VALUE_RULES[name](where, prefix + name, value)
        elif name in _SECONDS.values():
            _spec_seconds(where, prefix + name, value)
        elif name in _BYTES.values():
            _spec_bytes(where, prefix + name, value)
            _check_held(where, prefix + name, value, value)
        else:
            raise field_error(where, prefix + str(name), "an engine cost field (" + ", ".join(COST_FIELDS) + ")", name)


FITTED_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "number": 1.0}  # fitted.start_units: seconds per unit (number: none)
_FITTED_LISTS = ("parameters", "bounds_hit", "fixed", "not_determined_by_rows", "kept_from_earlier_fit", "per_family", "model_classes",
                 "hardware_families")
MODEL_CLASSES = ("dense GQA", "dense MLA", "MoE GQA", "MoE MLA")  # model_class's values
FITTED_ON_KEYS = ("devices", "models", "methods")  # fitted.fitted_on's entries: what the rows that determine it hold
_FITTED_ON_PARAMETERS = ("kernel_latency", "host_per_step", "host_per_sequence", "allreduce_latency", "all_to_all_latency",
                         "spec_per_draft_step", "spec_per_iteration", "spec_per_iteration_per_sequence",
                         "quantised_moe_efficiency", "weight_only_efficiency", "overlap_exponent")  # fit.PARAMETERS' keys
_FITTED_KEYS = ("by", "file", "rows", "row_numbers", "row_fingerprints", "date", "rms_log_error", "rms_log_error_at_start", "start",
                "start_units", "fitted_on", "batches", *_FITTED_LISTS)  # what fit.fitted_profile_text writes: a misspelt `start` would lose the start values


def check_fitted(where: str, fitted: object) -> dict:
    """The `fitted:` block `roofline fit` writes, checked where it is read back: `start` holds the sourced start
    value of each fitted parameter as a plain number >= 0 (no unit in the value) in the unit `start_units` names
    (one of FITTED_UNITS), and a later fit starts from it (fit.sourced_start), so a hand edit that writes
    `kernel_latency: 3 us` there is refused rather than silently passed over. The lists are record, of strings."""
    if not isinstance(fitted, dict):
        raise field_error(where, "fitted", "a mapping (written by roofline fit)", fitted)
    for key in fitted:
        if key not in _FITTED_KEYS:
            raise field_error(where, f"fitted.{key}", "one of the keys roofline fit writes (" + ", ".join(_FITTED_KEYS) + ")", key)
    start, units = fitted.get("start", {}), fitted.get("start_units", {})
    for key, block in (("start", start), ("start_units", units)):
        if not isinstance(block, dict):
            raise field_error(where, f"fitted.{key}", "a mapping of engine field to value (written by roofline fit)", block)
    cost_keys = (*_SECONDS, *_VALUE_RULES)
    for key, value in start.items():
        if key not in cost_keys:
            raise field_error(where, f"fitted.start.{key}", "an engine cost field (" + ", ".join(cost_keys) + ")", key)
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not is_finite(value) or value < 0:
            unit = units.get(key, "the parameter's own unit")
            raise field_error(where, f"fitted.start.{key}", f"a plain number >= 0 (in {unit}, as fitted.start_units "
                              "says; no unit in the value)", value)
        if key in _VALUE_RULES:  # an efficiency or exponent starts where the field itself may be
            _VALUE_RULES[key](where, f"fitted.start.{key}", value)
    for key, unit in units.items():
        if key not in cost_keys:
            raise field_error(where, f"fitted.start_units.{key}", "an engine cost field", key)
        allowed = ("us", "ms", "s") if key in _SECONDS else ("number",)  # a time, or a plain number
        if unit not in allowed:
            raise field_error(where, f"fitted.start_units.{key}", "one of " + ", ".join(allowed), unit)
    for key in _FITTED_LISTS:
        items = fitted.get(key, [])
        if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
            raise field_error(where, f"fitted.{key}", "a list of strings (written by roofline fit)", items)
    for item in fitted.get("model_classes", []):
        if item not in MODEL_CLASSES:
            raise field_error(where, "fitted.model_classes", "a list of " + ", ".join(MODEL_CLASSES), item)
    batches = fitted.get("batches")
    if batches is not None and not (isinstance(batches, list) and len(batches) == 2 and all(
            isinstance(b, numbers.Real) and not isinstance(b, bool) and is_finite(b) and b > 0 for b in batches)
            and batches[0] <= batches[1]):
        raise field_error(where, "fitted.batches", "[fewest, most] sequences at once its rows ran, numbers above 0 "
                          "(written by roofline fit)", batches)
    for key in ("rms_log_error", "rms_log_error_at_start"):  # (qa435: 'abc' taken, and `engines show` left it out)
        value = fitted.get(key)
        if value is not None and not (isinstance(value, numbers.Real) and not isinstance(value, bool) and is_finite(value)
                                      and value >= 0):
            raise field_error(where, f"fitted.{key}", "a number of 0 or more (written by roofline fit)", value)
    labels = [label for label, _ in FAMILIES] + [OTHER_FAMILY]
    for item in fitted.get("hardware_families", []):
        if item not in labels:
            raise field_error(where, "fitted.hardware_families", "a list of " + ", ".join(labels), item)
    fitted_on = fitted.get("fitted_on", {})
    if not isinstance(fitted_on, dict):
        raise field_error(where, "fitted.fitted_on", "a mapping of parameter to its rows' devices, models and methods "
                          "(written by roofline fit)", fitted_on)
    from roofline.speculation import METHODS

    for name, entry in fitted_on.items():
        match = re.fullmatch(r"(\w+)(?: \[([^\[\]]+)\])?", str(name))  # 'kernel_latency' or 'kernel_latency [AMD Instinct]'
        parameter, family = (match.group(1), match.group(2)) if match else ("", None)
        if parameter not in _FITTED_ON_PARAMETERS or (family is not None and family not in dict(FAMILIES)):
            # qa289, qa298: a misspelt key (or a family with a bracket too many) was passed over, and its warning lost
            raise field_error(where, f"fitted.fitted_on.{name}", "a fitted parameter (" + ", ".join(_FITTED_ON_PARAMETERS)
                              + "), or one with its family in brackets ('kernel_latency [AMD Instinct]')", name)
        if not isinstance(entry, dict) or set(entry) != set(FITTED_ON_KEYS) or not all(
                isinstance(v, list) and v and all(isinstance(x, str) and x.strip() for x in v) for v in entry.values()):
            raise field_error(where, f"fitted.fitted_on.{name}", "a mapping of " + ", ".join(FITTED_ON_KEYS) + " to lists "
                              "of names, none empty (written by roofline fit)", entry)
        for key, allowed in (("models", MODEL_CLASSES), ("methods", METHODS)):
            wrong = [v for v in entry[key] if v not in allowed]
            if wrong:
                raise field_error(where, f"fitted.fitted_on.{name}.{key}", "a list of " + ", ".join(allowed), wrong[0])
    return fitted


def _check_spec_overrides(where: str, overrides: object) -> None:
    """overrides: (hardware glob, {cost field: value}) pairs."""
    if not isinstance(overrides, (tuple, list)):
        raise field_error(where, "overrides", "a tuple of (hardware glob, {field: value}) pairs", overrides)
    for i, item in enumerate(overrides):
        if not isinstance(item, (tuple, list)) or len(item) != 2 or not isinstance(item[0], str) or not isinstance(item[1], dict):
            raise field_error(where, f"overrides[{i}]", "a (hardware glob, {field: value}) pair", item)
        _check_spec_costs(where, item[1], f"overrides[{i}].")


def _layout_clash(split, whole, sequence_parallel, moe_dispatch) -> tuple[str, str, object] | None:
    """(key, expected, found) where an engine's attention-DP layout lists contradict each other, else None: a class
    both split over the stage and whole (qa138), or shared experts split over the stage by an engine whose
    sequence-parallel MoE holds them whole on 1/tp of the tokens (qa152: both applied, each path its own way; not
    under DeepEP's dispatch, which keeps them in the group: stage_split_classes, qa155)."""
    both = [c for c in whole if c in split]
    if both:
        return "dp_attention_whole", "classes not also in dp_attention_stage_split", both
    clash = [c for c in SEQUENCE_SPLIT_CLASSES if c in split and not (c == "shared_experts" and moe_dispatch in ("per_pair", "per_rank"))]
    if sequence_parallel and clash:
        return ("sequence_parallel_moe", f"false where dp_attention_stage_split lists {spoken_list(clash)} (held whole on "
                "1/tp of the tokens, or split over the stage: one or the other)", True)
    return None


def _check_dp_lists(where: str, engine: ServingEngine) -> None:
    """No contradiction in the attention-DP layout (_layout_clash), in the profile's values or in those an override
    leaves in effect (qa138: the split silently won; qa141: an override could still list a class in both)."""
    lists = [("", engine.dp_attention_stage_split, engine.dp_attention_whole, engine.sequence_parallel_moe, engine.moe_dispatch)]
    lists += [(f"overrides[{i}].", *(changes.get(key, getattr(engine, key)) for key in (
               "dp_attention_stage_split", "dp_attention_whole", "sequence_parallel_moe", "moe_dispatch")))
              for i, (_, changes) in enumerate(engine.overrides)]
    for prefix, split, whole, sequence_parallel, moe_dispatch in lists:
        clash = _layout_clash(split, whole, sequence_parallel, moe_dispatch)
        if clash:
            raise field_error(where, prefix + clash[0], clash[1], clash[2])


def check_engine_spec(spec: object) -> ServingEngine:
    """`spec` itself if it is a ServingEngine that engine_from_dict could have produced, else one RooflineError naming
    the spec and field: `engine spec 'vllm': host_per_step_s: expected a finite number of seconds >= 0, found -0.001`.
    For engines built or changed in Python (dataclasses.replace), which no profile check saw. Its source may be
    empty (the dataclass default, as IDEAL's is)."""
    if not isinstance(spec, ServingEngine):
        raise RooflineError(f"engine: expected a ServingEngine or a profile name, found {type(spec).__name__}")
    where = spec_where("engine", spec.name)
    if not isinstance(spec.name, str) or not spec.name.strip():
        raise field_error(where, "name", "a non-empty string", spec.name)
    for key in ("display_name", "version", "source", "notes", "path", "costs_from"):  # path, costs_from: files, or ''
        if not isinstance(getattr(spec, key), str):
            raise field_error(where, key, "a string", getattr(spec, key))
    for key in ("nvidia_only", "mixed_prefill", "prefix_cached", "prefix_cached_speculating"):
        if not isinstance(getattr(spec, key), bool):
            raise field_error(where, key, "true or false", getattr(spec, key))
    if not isinstance(spec.known_misses, (tuple, list)):
        raise field_error(where, "known_misses", "a tuple of {hardware, models, model_classes, methods, layouts, batch, note}",
                          spec.known_misses)
    check_known_misses(where, list(spec.known_misses))  # checked, the object kept (callers compare it by identity)
    _pp_remainder(where, "pp_remainder", spec.pp_remainder)
    check_flag(where, "attention_dp", spec.attention_dp)
    check_flag(where, "expert_parallel", spec.expert_parallel)
    check_flag(where, "graphs", spec.graphs)  # qa330: 'no' ran as graphs, None as eager
    for key, rule in _SPECULATION_RULES.items():
        rule(where, key, getattr(spec, key))
    _check_cap_flag(where, spec)
    _check_spec_costs(where, {name: getattr(spec, name) for name in COST_FIELDS})
    _check_spec_overrides(where, spec.overrides)
    _check_share_by_devices(where, spec)  # (its overrides checked first: pairs)
    _check_dp_lists(where, spec)
    check_fitted(where, spec.fitted)
    _warn_eager_launch(spec, where)  # as a profile's (qa330: a 1,000x slip priced a 5 s step unsaid)
    return spec


def _require_name_and_source(data: dict, where: str) -> None:
    for key in ("name", "source"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise field_error(where, key, "a non-empty string", data.get(key))


def engine_from_dict(data: dict, where: str = "<engine>") -> ServingEngine:
    """Validate an engine profile mapping (docs/ACCURACY.md, "Engine profile fields") and convert it to SI units.

    Only `name` and `source` are required: a cost left out keeps the ServingEngine default, the pure roofline's
    term (0 s, 0 kernels, efficiencies 1, no overlap exponent), as `ideal` has it."""
    for key in data:
        if key not in _KNOWN:
            raise unknown_key_error(where, key, sorted(k for k in _KNOWN if k != "type"))  # with a did-you-mean (qa106)
    _require_name_and_source(data, where)
    overrides = []
    if not isinstance(data.get("overrides") or [], list):
        raise field_error(where, "overrides", "a list of {hardware: GLOB, FIELD: VALUE} mappings", data["overrides"])
    for i, item in enumerate(data.get("overrides") or []):
        if not isinstance(item, dict) or not isinstance(item.get("hardware"), str):
            raise field_error(where, f"overrides[{i}]", "a mapping with a hardware glob and fields to change", item)
        if not item["hardware"].strip() or item["hardware"] != item["hardware"].lower():  # qa388: 'MI*' warned, then
            # applied on no device (engine families are lower case), where a known miss's was refused (qa307)
            raise field_error(where, f"overrides[{i}].hardware", "an engine family or glob in lower case like mi*",
                              item["hardware"])
        rest = {k: v for k, v in item.items() if k != "hardware"}
        for key in rest:
            if key not in _KNOWN - _OWN_FIELDS - {"overrides", "fitted"}:  # with a did-you-mean, as a top-level key
                close = closest_names(str(key), sorted(_KNOWN - _OWN_FIELDS - {"overrides", "fitted"}), 1, 0.7)  # (qa340)
                raise field_error(where, f"overrides[{i}].{key}", "an engine cost field"
                                  + (f" (did you mean {close[0]!r}?)" if close else ""), key)
        overrides.append((item["hardware"], _fields(rest, where, f"overrides[{i}].")))
    fitted = check_fitted(where, data.get("fitted") or {})
    engine = ServingEngine(
        name=data["name"], display_name=prose(where, "display_name", data.get("display_name"), data["name"]),
        version=prose(where, "version", data.get("version")),
        nvidia_only=_nvidia_only(data, where),
        mixed_prefill=check_flag(where, "mixed_prefill", data.get("mixed_prefill", False)),
        prefix_cached=check_flag(where, "prefix_cached", data.get("prefix_cached", True)),
        prefix_cached_speculating=check_flag(where, "prefix_cached_speculating", data.get("prefix_cached_speculating", True)),
        pp_remainder=_pp_remainder(where, "pp_remainder", data.get("pp_remainder", "last")),
        attention_dp=check_flag(where, "attention_dp", data.get("attention_dp", True)),
        expert_parallel=check_flag(where, "expert_parallel", data.get("expert_parallel", True)),
        mla_absorbed_bf16=check_flag(where, "mla_absorbed_bf16", data.get("mla_absorbed_bf16", False)),
        graphs=check_flag(where, "graphs", data.get("graphs", True)),
        **{key: rule(where, key, data[key]) for key, rule in _SPECULATION_RULES.items() if key in data},
        **_fields(data, where), overrides=tuple(overrides), fitted=fitted,
        source=data["source"].strip(), notes=prose(where, "notes", data.get("notes")).strip(), path=where,
        known_misses=check_known_misses(where, data.get("known_misses")),
    )
    _check_dp_lists(where, engine)
    _check_cap_flag(where, engine)
    _check_share_by_devices(where, engine)
    _warn_beyond_fit_bounds(engine, where)
    _warn_kernels_uncounted(engine, where)
    _warn_eager_launch(engine, where)
    return engine


KNOWN_MISS_KEYS = ("hardware", "models", "model_classes", "methods", "layouts", "batch", "measured", "note")
_ABOVE_1 = r"([2-9]|[1-9][0-9]+)"  # a degree describe_layout writes (dp-attention, ep, pp only where above 1)
LAYOUT_TEXT = re.compile(rf"tp [1-9][0-9]*(, dp-attention {_ABOVE_1})?(, ep {_ABOVE_1})?(, pp {_ABOVE_1})?")  # its text
MEASURED = ("slower", "faster")  # a known miss's `measured`: its step measured slower or faster than predicted


def check_known_misses(where: str, value: object) -> tuple:
    """A profile's `known_misses`: a list of {hardware: GLOB, models: [GLOB, ...], model_classes: [...], methods: [...],
    layouts: ['tp 8', ...] (the layouts measured, as describe_layout writes them: qa379, a miss measured at tp 8 said
    at tp 8 pp 2 and at DP attention), batch: [LOW, HIGH or null], measured: slower | faster, note: TEXT}, each key
    but `note` optional (absent: any;
    `measured` absent: the direction not said); () where absent. A point matching every key given is said the note
    (known_miss_notes); `measured` lets cheapest say what size of such a miss would reverse its pick
    (frontier.miss_margin_notes)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise field_error(where, "known_misses", "a list of {hardware, models, model_classes, methods, layouts, batch, measured, "
                          "note} (known_misses=[{...}], or engines edit)", value)
    from roofline.speculation import METHODS  # (speculation imports this module)

    out = []
    for i, item in enumerate(value):
        at = f"known_misses[{i}]"
        if not isinstance(item, dict):
            raise field_error(where, at, "a mapping with a note", item)
        for key in item:
            if key not in KNOWN_MISS_KEYS:
                raise field_error(where, f"{at}.{key}", "one of " + ", ".join(KNOWN_MISS_KEYS), key)
        item = {key: v for key, v in item.items() if v is not None or key == "note"}  # `batch: null`: absent, any (qa306)
        note = " ".join(prose(where, f"{at}.note", item.get("note")).split())  # one line, as warnings are (qa307)
        if not note:
            raise field_error(where, f"{at}.note", "text saying the miss and its source", item.get("note", MISSING))
        if "hardware" in item and not (isinstance(item["hardware"], str) and item["hardware"].strip()
                                       and item["hardware"] == item["hardware"].lower()):  # qa307: 'H100*' never matched
            raise field_error(where, f"{at}.hardware", "an engine family or glob in lower case like mi*", item["hardware"])
        if "models" in item and isinstance(item["models"], list) and any(
                isinstance(v, str) and v != v.lower() for v in item["models"]):
            raise field_error(where, f"{at}.models", "model names or globs in lower case like llama-3.1-8b*", item["models"])
        for key, choices in (("models", None), ("model_classes", MODEL_CLASSES), ("methods", METHODS)):
            if key in item and not (isinstance(item[key], list) and item[key]
                                    and all(isinstance(v, str) and (choices is None or v in choices) for v in item[key])):
                raise field_error(where, f"{at}.{key}", "a list of " + (" | ".join(choices) if choices else "names or globs"),
                                  item[key])
        if "layouts" in item and not (isinstance(item["layouts"], list) and item["layouts"] and all(
                isinstance(v, str) and LAYOUT_TEXT.fullmatch(v) for v in item["layouts"])
                and len(set(item["layouts"])) == len(item["layouts"])):  # (qa382: 'tp 4, pp 1', never matched, taken)
            raise field_error(where, f"{at}.layouts", "a list of layouts as predict writes them, each once, like 'tp 8' "
                              "or 'tp 1, dp-attention 8, ep 8' (tp, then dp-attention, ep and pp where above 1)",
                              item["layouts"])
        if "measured" in item and item["measured"] not in MEASURED:
            raise field_error(where, f"{at}.measured", "slower or faster (the measured step against the predicted)",
                              item["measured"])
        batch = item.get("batch")
        if batch is not None and not (isinstance(batch, list) and len(batch) == 2
                                      and isinstance(batch[0], int) and not isinstance(batch[0], bool) and batch[0] >= 1
                                      and (batch[1] is None or isinstance(batch[1], int) and not isinstance(batch[1], bool)
                                           and batch[1] >= batch[0])):
            raise field_error(where, f"{at}.batch", "[LOW, HIGH] whole numbers from 1, LOW at most HIGH (HIGH null: no end)",
                              batch)
        entry = {**{k: item[k] for k in KNOWN_MISS_KEYS if k in item and k != "note"}, "note": note}
        if entry in out:
            raise field_error(where, at, "an entry not given before (it would be said twice)", item)
        out.append(entry)
    return tuple(out)


def known_misses_at(engine: ServingEngine, hw, model, methods, batches, layout: str | None = None) -> list[dict]:
    """The entries of `engine`'s known_misses that a point (or, with several `batches` and `methods`, a sweep's config
    at any of them) matches: its device's engine family (hw.engine_family, as `overrides` match it: a copy of an MI300X
    profile is one; qa306) the `hardware` glob, its model a glob of `models`, its class (model_class) one of
    `model_classes`, a method (none for plain decoding) one of `methods`, its `layout` (describe_layout's text; None:
    any) one of `layouts`, a batch within `batch`."""
    sizes = [int(b) for b in (batches if hasattr(batches, "__iter__") else [batches])]
    methods = {methods} if isinstance(methods, str) else set(methods)
    out = []
    for miss in engine.known_misses:
        low, high = miss.get("batch") or (1, None)
        if ("hardware" in miss and not fnmatch.fnmatch(hw.engine_family, miss["hardware"])
                or "models" in miss and not any(fnmatch.fnmatch(model.name, g) for g in miss["models"])
                or "model_classes" in miss and model_class(model) not in miss["model_classes"]
                or "methods" in miss and not methods & set(miss["methods"])
                or "layouts" in miss and layout is not None and layout not in miss["layouts"]
                or not any(low <= b and (high is None or b <= high) for b in sizes)):
            continue
        out.append(miss)
    return out


def cost_sharers(engine: ServingEngine) -> list[tuple[ServingEngine, str]]:
    """The shipped engine profiles priced with `engine`'s costs, each with how (qa365: vllm-v0's measured miss on
    MI300X, priced with vllm's costs, was unsaid under vllm, which predicts the same step): (profile, 'priced with
    ENGINE's costs') for one whose costs_from is `engine`'s file, (profile, 'whose costs ENGINE takes') for the one
    `engine`'s costs_from names."""
    def same(a: str, b: str) -> bool:
        return bool(a) and bool(b) and _resolved(a) == _resolved(b)

    # an engine changed since it was read (dataclasses.replace keeps its path) is not the file the others' costs_from
    # name, nor priced as they are (qa440: vllm with 3x its host work a sequence told vllm-v0's miss as 'the same
    # prediction as here', 18.97 ms against vllm-v0's 11.19)
    own = next((o for o in _shipped_engines() if same(o.path, engine.path)), None)
    if own is not None and _changed_since_read(engine, own):
        return []
    out = []
    for other in _shipped_engines():
        if same(other.path, engine.path):
            continue
        if same(other.costs_from, engine.path):  # (qa383: 'priced with vllm's costs' read as another engine's miss)
            out.append((other, f"priced with {engine.name}'s costs, so the same prediction as here"))
        elif same(engine.costs_from, other.path):
            out.append((other, f"whose costs {engine.name} takes, so the same prediction as here"))
    return out


def _changed_since_read(engine: ServingEngine, own: ServingEngine) -> bool:
    """Whether `engine` differs from the profile `own` it was read from in anything but its name: its general engine
    (the one before a device's overrides) from `own`, or a field of a device's engine from the general's by a value no
    override of `own` gives (qa446: vllm made for MI300X and then changed passed as its general, unchanged)."""
    names = {"name", "display_name"}  # a copy renamed prices as its source (qa446)
    general = engine.general if engine.general is not None else engine
    if any(f not in names for f in differing_fields(general, own)):
        return True
    given: dict = {}
    for _, changes in own.overrides:
        for field_name, value in changes.items():
            given.setdefault(field_name, []).append(value)
    return any(f not in names and getattr(engine, f) not in given.get(f, []) for f in differing_fields(engine, general))


@functools.lru_cache(maxsize=None)
def _shipped_engines() -> tuple[ServingEngine, ...]:
    """The shipped engine profiles, read once a process (qa368: cost_sharers read six files a predict, +65% its time)."""
    from roofline.profiles import builtin_dir

    return tuple(load_engine(str(path)) for path in sorted(builtin_dir("engine").glob("*.yaml")))


@functools.lru_cache(maxsize=256)
def _resolved(path: str) -> Path:
    return Path(path).resolve()


def known_miss_notes(engine: ServingEngine, hw, model, methods, batches, subject: str = "",
                     layout: str | None = None) -> list[str]:
    """The notes of the known misses a point matches (known_misses_at), `engine`'s own and those of the shipped
    profiles priced with its costs (cost_sharers: the same prediction). Said, never used to correct the prediction:
    these are measured misses the model does not explain. `subject` (' for deepseek-v3 on mi300x') names a sweep's
    config (qa309: unnamed among configs); each says how to read its percentages."""
    owners = [(engine, "")] + [(other, f", {how}") for other, how in cost_sharers(engine)]
    return [f"a known miss of engine {owner.name}{how}{subject}: {miss['note']}"
            + (" (x% short: the measured step is the predicted / (1 - x), 39% short 1.64x; x% high: the predicted "
               "throughput is the measured x (1 + x); x% long: the predicted step is the measured x (1 + x); "
               "docs/ACCURACY.md, \"Where the model still misses\")"
               if re.search(r"% (?:short|high|long)\b", miss["note"]) else "")  # (qa323: said of notes without such figures)
            for owner, how in owners for miss in known_misses_at(owner, hw, model, methods, batches, layout)]


def _nvidia_only(data: dict, where: str) -> bool:
    """A profile's `nvidia_only` (default false). A profile without the field whose display name says TensorRT-LLM (a
    copy made by `engines new --from trtllm` before the field existed, qa94) is read as true, with a warning."""
    if "nvidia_only" in data:
        return check_flag(where, "nvidia_only", data["nvidia_only"])
    if "tensorrt-llm" in str(data.get("display_name") or "").lower():
        from roofline.errors import warn

        warn(f"{where}: no nvidia_only field, and its display name says TensorRT-LLM: read as nvidia_only: true (write "
             "nvidia_only: true, or false if it runs elsewhere, to say so)")
        return True
    return False


def _warn_beyond_fit_bounds(engine: ServingEngine, where: str) -> None:
    """A value above ten times the physical bound `roofline fit` keeps it under (fit.PARAMETERS: 20 us a kernel,
    5 ms of host work a step) loads, with a warning: `kernel_latency=3 s` for 3 us priced a step at 969 s."""
    from roofline.errors import warn
    from roofline.fit import PARAMETERS
    from roofline.units import format_seconds

    own = {p.field: getattr(engine, p.field) for p in PARAMETERS}
    for label, values in (("", own), *((f"overrides ({glob}): ", changes) for glob, changes in engine.overrides)):
        for p in PARAMETERS:
            value = values.get(p.field)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and p.high and value > 10 * p.high:
                seconds = p.unit in ("us", "ms")
                shown, bound = (format_seconds(value), format_seconds(p.high)) if seconds else (f"{value:.4g}", f"{p.high:g}")
                warn(f"{where}: {label}{p.key}: {shown} is over ten times the largest value a fit takes ({bound}): a unit slip?")


H100_EAGER_LAUNCH_S = 15.6e-6  # the shipped profiles' eager_launch: NVIDIA/Fuser issue 3507, a DGX H100 host (source)
EAGER_LAUNCH_SAID_S = 1e-3  # an eager_launch above this is said as a unit slip (a kernel launch takes microseconds)
EAGER_LAUNCH_LEAST_S = 0.5e-6  # and one below this, above 0 (qa329: 1e-9 s priced eager runs as graphs, unsaid)


def _warn_eager_launch(engine: ServingEngine, where: str) -> None:
    """`graphs: false` where the profile (or the one its costs come from) gives no eager_launch prices no launch: an eager
    engine as fast as one in graphs, said (TensorRT-LLM's profile has no sourced value). An eager_launch above 1 ms a
    kernel or under 0.5 us (the profile's or an override's) is said as a unit slip (qa325: 15.6 ms priced a step at
    31.5 s; qa329: 1 ns priced eager runs as graphs)."""
    if not engine.graphs and not engine.eager_launch_s:
        priced = [glob for glob, changes in engine.overrides if changes.get("eager_launch_s")]  # qa328: said where priced
        advice = (f"a copy takes one: roofline engines new NAME --from {Path(engine.costs_from).stem} --set graphs=false "
                  "--set 'eager_launch=15.6 us'" if engine.costs_from else  # qa329: costs_from refuses a cost beside it
                  "set eager_launch, as vllm's 15.6 us")
        warn(f"{where}: graphs: false with no eager_launch (0 s a kernel): its eager passes are priced as graphs are"
             + (f", but on hardware matching {spoken_list(priced)}, whose override gives one" if priced else "")
             + f" ({advice})")
    for label, value in (("", engine.eager_launch_s),
                         *((f"overrides ({glob}): ", changes.get("eager_launch_s")) for glob, changes in engine.overrides)):
        if value is not None and (value > EAGER_LAUNCH_SAID_S or 0 < value < EAGER_LAUNCH_LEAST_S):
            side = (f"over {format_seconds(EAGER_LAUNCH_SAID_S)}" if value > EAGER_LAUNCH_SAID_S else
                    f"under {format_seconds(EAGER_LAUNCH_LEAST_S)}")
            warn(f"{where}: {label}eager_launch: {format_seconds(value)} a kernel is {side} "
                 "(a launch takes microseconds: vllm's is 15.6 us): a unit slip?")


def _warn_kernels_uncounted(engine: ServingEngine, where: str) -> None:
    """A kernel_latency above 0 (the profile's, or an override's on some hardware) where no operator of a GQA step counts
    a kernel (kernels_per_layer empty, or all 0, there, with no quantisation kernels) prices nothing but a drafter's
    input projection: said, since `engines new x --from ideal --set kernel_latency=1us` changed no step and looked
    applied (qa98). kernels_per_layer_mla's counts replace entries for MLA models only, so they do not silence it
    (qa102); an MLA model's layers price them, as the warning says. Counts given for some operators and not others
    (but DEFAULT_KERNELS' and the indexer's, 0 where not given: a model class the shipped profiles count none for)
    leave the others at 0 kernels: said, naming them, of the general counts and of an override's own (qa295: a
    profile counting the MLP alone priced attention's kernels at nothing, silently)."""
    from roofline.errors import warn
    from roofline.units import format_seconds

    for label, changes in (("", {}), *((f"overrides ({glob}): ", dict(c)) for glob, c in engine.overrides)):
        latency = changes.get("kernel_latency_s", engine.kernel_latency_s)
        counts = changes.get("kernels_per_layer", engine.kernels_per_layer)
        mla = changes.get("kernels_per_layer_mla", engine.kernels_per_layer_mla)
        quant = changes.get("quant_kernels_per_gemm", engine.quant_kernels_per_gemm)
        if latency > 0 and not any(float(v) > 0 for v in counts.values()) and not quant:
            also = ("; kernels_per_layer_mla's counts price an MLA model's layers only"
                    if any(float(v) > 0 for v in mla.values()) else "")
            warn(f"{where}: {label}kernel_latency: {format_seconds(latency)} prices no kernel of a GQA or MHA model's step: "
                 f"kernels_per_layer counts none (set kernels_per_layer.OPERATOR; `roofline engines show vllm` lists "
                 f"vllm's{also})")
            return
        unlisted = [op for op in OPERATORS if op not in counts and op not in DEFAULT_KERNELS and op != "indexer"]
        own = not label or "kernels_per_layer" in changes  # an override taking the general counts: said of them once (qa304)
        if latency > 0 and counts and unlisted and own:
            warn(f"{where}: {label}kernels_per_layer gives no count for {spoken_list(unlisted)}: "
                 f"{'they launch' if len(unlisted) > 1 else 'it launches'} no kernel, paying no kernel floor (write 0 "
                 "to say that is meant; `roofline engines show vllm` lists vllm's)")


# What an engine does rather than what it costs: a costs_from profile's own where it sets them (load_engine, roofline fit)
BEHAVIOUR_FIELDS = ("nvidia_only", "mixed_prefill", "prefix_cached", "prefix_cached_speculating", "pp_remainder", "attention_dp", "expert_parallel", "mla_absorbed_bf16", "graphs",
                    *_SPECULATION_RULES)
_OWN_FIELDS = {"type", "name", "display_name", "version", "source", "notes", "costs_from", "known_misses", *BEHAVIOUR_FIELDS}


def load_engine(name: str | ServingEngine | None, extra_dirs: tuple[str | Path, ...] = ()) -> ServingEngine:
    """An engine profile by name or path (None: the default realistic engine); `ideal` is built in.

    A profile with `costs_from: OTHER` takes every cost of profile OTHER (its values, kernel counts, overrides and
    `fitted` block) and keeps only its own name, display name, version, source and notes: an engine whose own fit
    does not carry to sources it was not fitted on (vllm-v0, docs/ACCURACY.md) says whose costs it uses instead
    of holding a copy that would drift. Such a file may set no cost itself, and OTHER may not use `costs_from`.

    A profile found by name must carry its file's name (`name:` equals the file stem, as hardware and model profiles
    do); a ServingEngine object is checked by check_engine_spec and returned as it is."""
    if isinstance(name, ServingEngine):
        return check_engine_spec(name)
    name = DEFAULT_ENGINE if name is None else str(name) if isinstance(name, Path) else name
    if not isinstance(name, str):
        raise field_error("engine", "name", "an engine name or path", name)
    path = find_profile("engine", name.strip(), extra_dirs)
    engine = engine_from_file_data(read_yaml(path), path, extra_dirs)
    check_file_name(path, name, engine.name, "engine")
    return engine


# Hardware families whose engines run different kernels (hardware-profile name globs); NVIDIA Hopper (h*) and
# any hardware not listed use the profile's own value.
FAMILIES = (
    ("AMD Instinct", ("mi*",)),
    ("NVIDIA Blackwell", ("b[0-9]*", "gb*")),
    ("NVIDIA Ampere", ("a[0-9]*",)),
    ("NVIDIA Ada", ("l4*", "rtx-4*")),
    # no row of the dataset comes from these: listed so that a profile fitted elsewhere says so on them
    ("NVIDIA GeForce Blackwell", ("rtx-5*",)),
    ("Google TPU", ("tpu*",)),
    ("Intel Gaudi", ("gaudi*",)),
    ("Apple silicon", ("apple*",)),
)
OTHER_FAMILY = "NVIDIA Hopper (or other)"  # a device of no FAMILIES entry, as fitted.hardware_families names it


def family_label(hardware_name: str) -> str:
    """family_of's entry, or OTHER_FAMILY: what fitted.hardware_families lists."""
    return family_of(hardware_name) or OTHER_FAMILY


def family_of(hardware_name: str) -> str | None:
    """The FAMILIES entry a device's engine family (a hardware profile name) belongs to, or None (NVIDIA Hopper and the
    rest)."""
    for family, globs in FAMILIES:
        if any(fnmatch.fnmatch(hardware_name, g) for g in globs):
            return family
    return None


# The instruction set a device's kernels are compiled for (CUDA compute capability, AMD gfx target: NVIDIA's CUDA GPUs
# compute-capability list, developer.nvidia.com/cuda-gpus; LLVM's AMDGPU processor table, gfx942 = MI300X / MI325X,
# gfx950 = MI350X / MI355X): devices of one architecture run the same kernels, so a kernel parameter fitted on one is
# measured for the others (fitted_elsewhere_note). Listed in order: the first matching glob wins (a100 before a10*).
ARCHITECTURES = (
    ("CDNA3, gfx942", ("mi300*", "mi325*")),
    ("CDNA4, gfx950", ("mi350*", "mi355*")),
    ("Hopper, sm90", ("h100*", "h200*", "h20", "h800*", "gh200*")),
    ("Blackwell, sm100", ("b[0-9]*", "gb*")),
    ("Ampere, sm80", ("a100*", "a800*", "a30*")),
    ("Ampere, sm86", ("a10*", "a40*", "rtx-3*")),
    ("Ada, sm89", ("l4*", "l40*", "rtx-4*")),
    ("Blackwell, sm120", ("rtx-5*",)),
)


def architecture_of(hardware_name: str) -> str:
    """The ARCHITECTURES entry of a device's engine family (a hardware profile name), else the name itself."""
    return next((arch for arch, globs in ARCHITECTURES if any(fnmatch.fnmatch(hardware_name, g) for g in globs)), hardware_name)


def model_class(model) -> str:
    """'dense GQA', 'MoE MLA', ...: what an engine's kernel counts and fitted efficiencies key on, a model's MoE
    kernels (or none) and its attention's (MLA's, or the other kinds', counted as GQA's)."""
    return f"{'MoE' if model.moe is not None else 'dense'} {'MLA' if model.kv_layout == 'mla' else 'GQA'}"


_spoken = spoken_list  # 'a, b and c'


HOST_PARAMETERS = ("host_per_step", "host_per_sequence")
SPEC_PARAMETERS = ("spec_per_draft_step", "spec_per_iteration", "spec_per_iteration_per_sequence")


def undetermined_note(engine: ServingEngine, hw, used: dict[str, bool]) -> str:
    """'no measured row determines sglang's host_per_step (1.5 ms) and spec_per_draft_step (25 us) ...' where a
    parameter this point uses (`used`: parameter -> whether the point's figures depend on it) is determined by no fit
    row of the whole profile (ServingEngine.undetermined): sglang's and trtllm's speculation costs, sglang's host work
    and weight-only efficiency, held at their sourced starts (qa84: used without a word); '' where none is. A sweep
    gathers the parameters of all its configs and says them once an engine (undetermined_text)."""
    lost = [p for p, use in used.items() if use and engine.undetermined(p, hw)]
    return undetermined_text(engine, lost, "this point's figures lean on " + ("them" if len(lost) > 1 else "it"))


def fit_bound_note(engine: ServingEngine, hw, used: dict[str, bool], whose: str = "this point's figures") -> str:
    """'sglang's quantised_moe_efficiency on AMD Instinct (0.5) is the lower bound of the range its fit searched
    (0.5-1) ...' where a parameter a point uses (`used`, as undetermined_note's) holds, on `hw`, a value its fit left at a bound
    (fitted.bounds_hit, the profile's own value or its family's, ServingEngine.fitted_source; not set by hand since):
    the rows wanted it further, so what rests on it is the bound's answer (qa485: MI300X's MoE experts at the 0.5 floor,
    two thirds of a DeepSeek-R1 step, said by `engines show` alone). Not said: the overlap exponent, whose bound 1 is
    the additive form, the model's least overlap, and what it moves depends on how near the ridge a point's operators
    lie; a time at 0, the least there is. `engine` as on `hw` (for_hardware); '' where none is."""
    from roofline.fit import BY_KEY

    hit = set((engine.fitted or {}).get("bounds_hit") or ())
    said = []
    for key in [p for p, use in used.items() if use and p in BY_KEY and p != "overlap_exponent"]:
        source = engine.fitted_source(key, hw)
        if source is None or source not in hit:
            continue
        p, value = BY_KEY[key], getattr(engine, BY_KEY[key].field)
        side = p.bound_at(value)
        if not side or (side == "lower" and p.low == 0.0):  # no time is shorter than none: the least there is, as
            continue  # the overlap exponent's 1 (vllm's host_per_step at 0 s: the per-sequence part carries the rest)
        shown = format_seconds(value) if p.unit else f"{value:.3g}"
        family = source.partition(" [")[2].rstrip("]")
        slower = (side == "lower") == (not p.unit)  # an efficiency at its floor, a time at its ceiling: rows slower still
        said.append(f"{key}{f' on {family}' if family else ''} ({shown}) is {'the' if p.on_bound(value) else 'near the'} "
                    f"{side} bound of the range its fit searched "
                    f"({format_seconds(p.low) if p.unit else f'{p.low:g}'}-{format_seconds(p.high) if p.unit else f'{p.high:g}'}): "
                    f"the rows it was fitted on measured {'slower' if slower else 'faster'} than that gives, so {whose} run "
                    f"{'fast' if slower else 'slow'} where they lean on it, by what the model does not price")
    if not said:
        return ""
    return (f"{engine.name}'s {'; '.join(said)} (its fitted.bounds_hit; roofline engines show {engine.name}; a copy with a "
            f"value you measured replaces it: roofline engines new NAME --from {engine.name} --set ...)")


def undetermined_text(engine: ServingEngine, lost: list[str], whose: str) -> str:
    """undetermined_note's sentence for the parameters `lost` ('' where none); `whose` ends it ('this point's figures
    lean on them')."""
    if not lost:
        return ""
    values = _spoken([f"{p} ({format_seconds(getattr(engine, p + '_s')) if hasattr(engine, p + '_s') else f'{getattr(engine, p):.3g}'})"
                      for p in lost])
    return (f"no measured row determines {engine.name}'s {values} (its fitted.not_determined_by_rows): "
            f"{'priors, not measurements' if len(lost) > 1 else 'a prior, not a measurement'}, and {whose} "
            f"(roofline engines show {engine.name}; a copy with values you measured replaces them: roofline engines new NAME "
            f"--from {engine.name} --set ...)")


def fitted_class_note(engine: ServingEngine, model) -> str:
    """A warning where `engine` was fitted (its `fitted.model_classes`, written by roofline fit) on no model of `model`'s
    class: a kernel latency or efficiency fitted on dense GQA rows prices an MoE or MLA model's other and more
    numerous kernels unmeasured (qa79: a user's 8B fit put DeepSeek-V3 at 3.2 ms a step, 16.1 ms measured); '' where
    the class was fitted on, or the profile records no classes (written before roofline fit recorded them)."""
    classes = (engine.fitted or {}).get("model_classes")
    if not classes or model_class(model) in classes:
        return ""
    return (f"engine {engine.name} was fitted on {_spoken(classes)} models only (its fitted.model_classes), and "
            f"{model.name} is {model_class(model)}: its kernel latency and efficiencies price kernels no fit row measured"
            f"{_kept_aside(engine)}, so read its figures there as less certain (a fit with rows of such a model measures them)")


def kept_kernel_parameters(engine: ServingEngine) -> list[str]:
    """The kernel parameters (KERNEL_PARAMETERS) `engine`'s fit kept from the fit before it (fitted.kept_from_earlier_fit,
    not set by hand since): determined on that fit's rows, whose fitted_on entry the profile keeps."""
    fitted = engine.fitted or {}
    kept = set(fitted.get("kept_from_earlier_fit") or ()) & set(fitted.get("parameters") or ())
    return [p for p in KERNEL_PARAMETERS if p in kept]


def _kept_aside(engine: ServingEngine) -> str:
    """' (but quantised_moe_efficiency, kept from the fit before it: its own rows are said apart)' where the profile-wide
    notes would speak of a kernel parameter the fit kept (qa390: said measured on no row like the point, where the
    shipped profile's fit measured it on MoE rows)."""
    kept = kept_kernel_parameters(engine)
    return (f" (but {_spoken(kept)}, kept from the fit before it, on rows of {'their' if len(kept) > 1 else 'its'} own: "
            "said apart where they differ from the point)") if kept else ""


FITTED_BATCH_REACH = 2.0  # a batch this many times past the most (or below the fewest) sequences a fit's rows ran is said


def fitted_batches_note(engine: ServingEngine, batches) -> str:
    """A warning where a batch lies far outside the sequences at once its fit's rows ran (the profile's
    fitted.batches, written by roofline fit; more than FITTED_BATCH_REACH times past either end), '' else or where the
    profile records none (the shipped ones, fitted before it was recorded): a fit at batch 1-64 prices batch 256 with
    its per-sequence host work and kernel efficiency extrapolated (qa407)."""
    fitted = (engine.fitted or {}).get("batches")
    if not fitted:
        return ""
    low, high = float(fitted[0]), float(fitted[1])
    values = [float(batches)] if isinstance(batches, numbers.Real) else [float(b) for b in batches]
    over = [b for b in values if b > FITTED_BATCH_REACH * high]
    under = [b for b in values if b < low / FITTED_BATCH_REACH]
    if not over and not under:
        return ""
    beyond = " and ".join(t for t in (f"batch {int(max(over)):,}" if over else "", f"batch {int(min(under)):,}" if under else "")
                          if t)
    return (f"engine {engine.name} was fitted on rows running {low:g}-{high:g} sequences at once (its fitted.batches), and "
            f"{beyond} lie{'s' if ' and ' not in beyond else ''} far outside them: its host work a sequence and its "
            "kernels' efficiency there are extrapolated (a fit with rows at such batches measures them)")


def fitted_family_note(engine: ServingEngine, hw, role: str = "") -> str:
    """A warning where `engine` was fitted (its `fitted.hardware_families`, written by roofline fit) on no device of
    `hw`'s family: its kernel latency and efficiencies were fitted on other GPUs' kernels (qa81: a user's fit of H100
    rows dropped vllm's AMD kernel latency and priced an MI300X with the H100's, silently); '' where the family was
    fitted on, or the profile records no families. `role` names a device that is not the target's ("the drafter's device ")."""
    families = (engine.fitted or {}).get("hardware_families")
    family = family_label(hw.engine_family)
    if not families or family in families or engine_on_a_cpu(engine, hw) or getattr(hw, "kind", "gpu") == "cpu":
        return ""  # a CPU, or a device the engine does not run on: engine_on_a_cpu says more
    own = hw.engine_family == str(hw.name).lower()  # a copy takes its source's family (qa477: an RTX PRO 6000 made
    # from rtx-5090 was said to be GeForce)
    is_ = f"is {family}" if own else f"takes {hw.engine_family}'s engine family ({family})"
    return (f"engine {engine.name} was fitted on rows from {_spoken(families)} devices only (its fitted.hardware_families), "
            f"and {role}{hw.name} {is_}: its kernel latency and efficiencies there come from other GPUs' kernels"
            f"{_kept_aside(engine)} (a fit with rows from such a device measures them)")


KERNEL_PARAMETERS = ("kernel_latency", "quantised_moe_efficiency", "weight_only_efficiency")  # the kernels' own: per device


def fitted_elsewhere_note(engine: ServingEngine, hw, model, method: str, used: dict[str, bool], role: str = "",
                          subject: str = "this point", device_named: bool = False) -> str:
    """A warning where a fitted parameter this point uses (`used`, engine.parameters_used) was determined by no fit row
    like the point (its `fitted.fitted_on`, written by roofline fit: the devices, model classes and methods of the rows
    that move it; qa287: vllm's kernel latency on AMD, fitted on MI300X rows, reached MI355X unsaid, and its
    speculation costs, fitted on EAGLE and draft-model rows of dense models on H100s, reached MTP on DeepSeek):
    - a kernel parameter (KERNEL_PARAMETERS) fitted on rows of other architectures (architecture_of: an MI325X runs
      the MI300X's gfx942 kernels, an MI355X gfx950's) or other model classes; a difference the profile-wide notes say
      already (fitted_family_note: no row of the device's family, of its kernel latency and efficiencies;
      fitted_class_note: none of its model class) is left to them;
    - a speculation cost fitted on rows of other methods, model classes or device families (none of those notes
      names them);
    - host work fitted on speculative rows alone (an engine that overlaps host work with plain steps: only its
      speculative rows set it), said of any point, a plain one's step and a speculative one's plain baseline using it;
      or on plain rows alone where the point speculates (`method` "none" or "" where it does not, k 0 among them).
    Only values the fit set count (ServingEngine.fitted_source: not one set by hand or held with --fix); a value no
    row determined is undetermined_note's and unfitted_family_note's. `role` names a device that is not the target's
    ("the drafter's device "): its kernel latency's architecture alone is checked (a family no row came from:
    fitted_family_note's, with the same role). `subject` names what is priced ("the config" in cheapest; a sweep's
    configs, grid.CONFIGS until they are known), `device_named` where it names the device too (a sweep's configs: the
    device is not said again). '' where nothing differs, or the profile records no fitted_on."""
    fitted = engine.fitted or {}
    fitted_on = fitted.get("fitted_on") or {}
    if not fitted_on or engine_on_a_cpu(engine, hw) or getattr(hw, "kind", "gpu") != "gpu":
        return ""
    device, family, klass = hw.engine_family, family_label(hw.engine_family), model_class(model)
    family_said = family not in (fitted.get("hardware_families") or [family])
    class_said = klass not in (fitted.get("model_classes") or [klass])
    speculating = method not in ("", "none")
    on_hw = engine.for_hardware(hw)
    checked = ("kernel_latency",) if role else (*KERNEL_PARAMETERS, *SPEC_PARAMETERS, *HOST_PARAMETERS)
    kept = set(kept_kernel_parameters(engine))  # the profile-wide notes leave these aside: said here against their own rows
    differing: dict[tuple, list[str]] = {}  # (rows' description, the point's) -> parameters
    for p in checked:
        source = engine.fitted_source(p, hw)
        entry = fitted_on.get(source) if source else None
        if not used.get(p) or entry is None or f"{p} [{family_of(device)}]" in (fitted.get("not_determined_by_rows") or ()):
            continue  # (no row of the family determined its value there: unfitted_family_note says so)
        rows, point = [], []
        methods = entry.get("methods") or []
        said_methods = _spoken(["plain" if m == "none" else m for m in methods])  # 'plain and eagle'
        if p in SPEC_PARAMETERS and method not in methods:
            rows.append(f"{said_methods} rows")
            point.append(f"speculates with {method}")
        if p in HOST_PARAMETERS and ("none" not in methods or speculating and set(methods) <= {"none"}):
            # SGLang's host work, overlapped in plain steps, set by its MTP rows alone; a speculative point's figures
            # hold its plain baseline's too (qa293: said one way only)
            rows.append(f"{said_methods} rows")
            point.append(f"speculates with {method} (and decodes plainly for its baseline)" if speculating else "decodes plainly")
        if not role and (p not in KERNEL_PARAMETERS or not class_said or p in kept) and p not in HOST_PARAMETERS \
                and klass not in (entry.get("models") or [klass]):
            rows.append(f"of {_spoken(entry['models'])} models")
            point.append(f"{'on' if point else 'is'} a {klass} model{_class_kind(model)}")
        devices = list(dict.fromkeys(str(d).strip().lower() for d in entry.get("devices") or [device]))  # as names go (qa298)
        if p in KERNEL_PARAMETERS and (not family_said or p in kept) and architecture_of(device) not in {architecture_of(d) for d in devices}:
            rows.append(f"from {_spoken(_with_architecture(devices))}")
            arch = architecture_of(device)
            if arch != device and str(device).lower() != hw.name.lower():  # a copy keeps its source's family (qa447: an
                arch = f"{device}'s engine family, {arch}"  # MI250X copied from mi300x said to run on CDNA3)
            where = arch if arch != device and device_named else f"{hw.name} ({arch})" if arch != device else hw.name
            point.append((f"{hw.name} ({arch})" if arch != device else hw.name) if role else  # 'the drafter's device is X'
                         ("on " if point else "runs on ") + where)  # 'deepseek-v3 on mi355x, tp 8 runs on CDNA4, gfx950'
        elif p in SPEC_PARAMETERS and family not in {family_label(d) for d in devices}:
            rows.append(f"from {_spoken(devices)}")
            point.append(("on " if point else "runs on ") + (family if device_named else f"{hw.name} ({family})"))
        if rows:
            value = getattr(on_hw, p + "_s", None)
            shown = format_seconds(value) if value is not None else f"{getattr(on_hw, p):.3g}"
            differing.setdefault((" ".join(rows if rows[0].endswith("rows") else ["rows", *rows]), " ".join(point)),
                                 []).append(f"{p} ({shown})")
    if not differing:
        return ""
    is_ = f"for {subject} {role}is " if role else f"{subject} "  # 'for this point the drafter's device is mi355x (...)'
    parts = [f"{_spoken(names)} {'was' if len(names) == 1 else 'were'} fitted on {rows} only, and {is_}{point}"
             for (rows, point), names in differing.items()]
    several = sum(len(names) for names in differing.values()) > 1
    return (f"engine {engine.name}: {'; '.join(parts)} (its fitted.fitted_on, which `roofline engines show {engine.name}` "
            f"lists): read the figures that lean on {'them' if several else 'it'} as less certain")


def _class_kind(model) -> str:
    """' (its shared_kv attention counted as GQA's)' where model_class calls attention GQA that is another kind than
    grouped-query or multi-head (qa297: DeepSeek-V4-Flash 'a MoE GQA model' beside text contrasting it with GQA)."""
    kind = getattr(model, "kv_layout", "gqa")
    return "" if kind in ("gqa", "mha", "mla") else f" (its {kind} attention counted as GQA's)"


def _with_architecture(devices: list[str]) -> list[str]:
    """Device names with their architecture where it is not the name ('mi300x (CDNA3, gfx942)')."""
    return [f"{d} ({architecture_of(d)})" if architecture_of(d) != d else d for d in devices]


def nvidia_only_text(engine: ServingEngine) -> str:
    """'TensorRT-LLM runs on NVIDIA GPUs only': why an engine whose profile says `nvidia_only` runs on no other device,
    named by its display name (a copy's own name)."""
    return f"{engine.display_name.split(' (')[0]} runs on NVIDIA GPUs only"


def runs_on(engine: ServingEngine, hw) -> bool:
    """Whether a deployment of `engine` on device `hw` exists: False for an NVIDIA-only engine (its `nvidia_only`:
    TensorRT-LLM, and a copy or a costs_from profile of it, which carry the field) on an AMD device (family mi*), a CPU
    or another accelerator; True otherwise (vLLM and SGLang run on CPUs too, so a GPU engine's costs on one are a caveat,
    engine_on_a_cpu's)."""
    return not (engine.nvidia_only and (_amd(hw) or getattr(hw, "kind", "gpu") != "gpu"))


def _amd(hw) -> bool:
    """Whether `hw` is an AMD Instinct device (its engine family, FAMILIES' glob: a renamed MI300X copy is one)."""
    return family_of(getattr(hw, "engine_family", "")) == "AMD Instinct"


def engine_on_a_cpu(engine: ServingEngine, hw) -> str:
    """A warning when an engine runs on no deployment of `hw` (runs_on), or a GPU serving engine's costs are put on a
    CPU profile (hardware kind cpu), on Apple silicon (qa123: mainline vLLM runs on a Mac's CPU only; vllm-metal, a
    community plugin on MLX, runs the GPU) or on a TPU or another accelerator (qa253: said as a fit to other GPUs),
    else ''. Where it says something, the caveats on the engine's fitted evidence are left unsaid beside it."""
    if not runs_on(engine, hw):
        said = nvidia_only_text(engine)
        return (f"engine {'' if said.startswith(engine.name + ' ') else engine.name + ': '}{said}, and {hw.name} is not one: "
                "its numbers there describe no deployment"
                + (" (vllm and sglang run on AMD GPUs)" if _amd(hw) else ""))
    if engine.name != "ideal" and getattr(hw, "kind", "") != "cpu" and family_of(getattr(hw, "engine_family", "")) == "Apple silicon":
        return (f"engine {engine.name} holds a GPU serving engine's costs (kernel latencies inside CUDA/HIP graphs, host "
                f"work), and {hw.name} is Apple silicon, which the CUDA / HIP builds of the serving engines do not run on "
                "(mainline vLLM, for one, runs there on the CPU only, its installation docs say): its figures assume a "
                "Metal / MLX build no fit row measured; engine ideal is the chip's own roofline")
    if engine.name != "ideal" and getattr(hw, "kind", "") in ("tpu", "accelerator"):
        what = "a TPU" if hw.kind == "tpu" else "an accelerator of another kind than a GPU"
        return (f"engine {engine.name} holds a GPU serving engine's costs (kernel latencies inside CUDA/HIP graphs, "
                f"{engine.gemm_tile_rows or 1}-row GEMM tiles, host work), and {hw.name} is {what}: a serving engine runs "
                "there through another backend, whose kernels no fit row measured; engine ideal is the chip's own roofline")
    if getattr(hw, "kind", "") != "cpu" or engine.name == "ideal":
        return ""
    return (f"engine {engine.name} holds a GPU serving engine's costs (kernel latencies inside CUDA/HIP graphs, "
            f"{engine.gemm_tile_rows or 1}-row GEMM tiles, host work), and {hw.name} is a CPU: engine ideal is the CPU's "
            f"own roofline (what roofline calibrate measures and roofline validate checks)")


def engine_from_file_data(data: dict, path: Path, extra_dirs: tuple[str | Path, ...] = ()) -> ServingEngine:
    """An engine profile file's mapping as it loads: its own costs, or those of the profile its `costs_from` names."""
    return engine_from_dict(data, str(path)) if "costs_from" not in data else _with_costs_from(data, Path(path), extra_dirs)


def _with_costs_from(data: dict, path: Path, extra_dirs: tuple[str | Path, ...]) -> ServingEngine:
    """Profile `data` (file `path`, with `costs_from: OTHER`): every cost of profile OTHER under its own identity."""
    where, other = str(path), data["costs_from"]
    for key in data:
        if key not in _OWN_FIELDS:
            raise field_error(where, key, "no cost field beside costs_from (the costs are those of the profile it names)", key)
    _require_name_and_source(data, where)
    if not isinstance(other, str) or not other.strip() or other.strip().lower() in (data["name"].strip().lower(), "ideal"):
        raise field_error(where, "costs_from", "the name of another engine profile (not itself, not ideal)", other)
    try:
        named = other.strip()  # a name is looked up in lower case; a path as written (qa191: /tmp/UP/x.yaml not found),
        # and so is what lower case would make a path (qa198: /tmp/UP/SG.YAML loaded /tmp/up/sg.yaml), which names nothing
        written = is_profile_path(named.lower())
        beside = Path(path).parent / named  # a relative path, from the profile's own folder first (qa222: from the
        # working directory only, so a profile `set` accepted in its folder failed from any other)
        base_path = (beside if written and not Path(named).is_absolute() and beside.is_file()
                     else find_profile("engine", named if written else named.lower(), extra_dirs))
    except RooflineError as exc:
        if isinstance(exc, UnknownName) and written and not Path(named).is_absolute():  # qa224, qa226: where, in order
            raise RooflineError(f"{where}: costs_from: {named}: engine file not found beside the profile ({Path(path).parent}) "
                                "nor in the working directory") from None
        raise RooflineError(f"{where}: costs_from: {exc}") from None
    base_data = read_yaml(base_path)
    if "costs_from" in base_data:
        raise field_error(where, "costs_from", f"a profile with costs of its own ({base_path} takes them from another)", other)
    base = engine_from_dict(base_data, str(base_path))
    check_file_name(base_path, other, base.name, "engine")
    own = {key: rule(where, key, data[key]) for key, rule in _SPECULATION_RULES.items() if key in data}
    if own.get("max_running_requests_speculating", 0) is None and "max_running_requests_flag" not in data:
        own["max_running_requests_flag"] = None  # a copy that lifts the cap lifts the option that raises it
    engine = replace(base, name=data["name"], display_name=prose(where, "display_name", data.get("display_name"), data["name"]),
                     version=prose(where, "version", data.get("version")), source=data["source"].strip(),
                     notes=prose(where, "notes", data.get("notes")).strip(), path=where, costs_from=str(base_path),
                     known_misses=check_known_misses(where, data.get("known_misses")),  # its own: measured of it
                     nvidia_only=check_flag(where, "nvidia_only", data.get("nvidia_only", base.nvidia_only)),
                     mixed_prefill=check_flag(where, "mixed_prefill", data.get("mixed_prefill", base.mixed_prefill)),
                     prefix_cached=check_flag(where, "prefix_cached", data.get("prefix_cached", base.prefix_cached)),
                     prefix_cached_speculating=check_flag(where, "prefix_cached_speculating",
                                                          data.get("prefix_cached_speculating", base.prefix_cached_speculating)),
                     pp_remainder=_pp_remainder(where, "pp_remainder", data.get("pp_remainder", base.pp_remainder)),
                     attention_dp=check_flag(where, "attention_dp", data.get("attention_dp", base.attention_dp)),
                     expert_parallel=check_flag(where, "expert_parallel", data.get("expert_parallel", base.expert_parallel)),
                     mla_absorbed_bf16=check_flag(where, "mla_absorbed_bf16", data.get("mla_absorbed_bf16", base.mla_absorbed_bf16)),
                     graphs=check_flag(where, "graphs", data.get("graphs", base.graphs)),
                     **own)
    _check_cap_flag(where, engine)
    _check_share_by_devices(where, engine)
    _warn_eager_launch(engine, where)
    return engine


def check_overrides(engine: ServingEngine, path, extra_dirs: tuple[str | Path, ...] = ()) -> None:
    """Where a profile is written (engines new, set, edit) and validated: the engine as on every hardware profile on
    the search path (for_hardware: no class both split and whole on a device two overrides match, qa143), and a
    warning where an override's or a known miss's glob matches no device's engine family (`H100*` matches none, globs
    being case-sensitive; a user device's own name, whose family is another's, none either: qa323) or is an earlier
    override's (the later wins where both set a field; qa141), and where a known miss's models glob matches no model
    profile on the search path (qa382)."""
    from roofline.hardware import load_hardware

    names = [n.lower() for n in list_names("hardware", extra_dirs)]
    for name in names:
        engine.for_hardware(name)
    family_of = {}  # each device's engine family, what a glob matches (qa323: a user device's own name, of another
    for name in names:  # family, passed as a match and applied on no device)
        try:
            family_of[name] = load_hardware(name, extra_dirs).engine_family
        except RooflineError:
            family_of[name] = name
    families = set(family_of.values())
    seen = set()
    globs = [(f"overrides[{i}].hardware", glob, "its values apply") for i, (glob, _) in enumerate(engine.overrides)]
    globs += [(f"known_misses[{i}].hardware", miss["hardware"], "it is said") for i, miss in enumerate(engine.known_misses)
              if "hardware" in miss]
    for entry, glob, what in globs:
        if not any(fnmatch.fnmatchcase(f, glob) for f in families):
            named = [n for n in names if fnmatch.fnmatchcase(n, glob)]
            why = (f" ({', '.join(named[:3])}: of famil{'y' if len({family_of[n] for n in named}) == 1 else 'ies'} "
                   f"{', '.join(dict.fromkeys(family_of[n] for n in named[:3]))}; a glob matches a device's engine family)"
                   if named else f" (families {_families_like(glob, families)}; globs like mi* or h100*)")  # (qa382:
            # 'h100', an alias, was told families are lower case)
            warn(f"{path}: {entry}: {glob!r} matches no device's engine family{why}, so {what} on no device")
        elif entry.startswith("overrides") and glob in seen:
            warn(f"{path}: {entry}: {glob!r} is an earlier entry's glob too: where both set a field, this entry's value wins")
        seen.add(glob)
    models = [n.lower() for n in list_names("model", extra_dirs)]  # a models glob matching no model (qa382: a typo,
    for i, miss in enumerate(engine.known_misses):  # 'lama-3.1-70b*', written in silence)
        for glob in miss.get("models", ()):
            if not any(fnmatch.fnmatchcase(m, glob) for m in models):
                warn(f"{path}: known_misses[{i}].models: {glob!r} matches no model profile on the search path "
                     "(roofline models list), so it is said of no model")


def _families_like(glob: str, families: set) -> str:
    """'h100-pcie, h100-sxm, ...': the engine families that begin as `glob` does (its first 3 characters), else the
    first few."""
    like = sorted(f for f in families if f.startswith(glob.split("*")[0][:3].lower()))
    shown = like or sorted(families)
    return ", ".join(shown[:6]) + (", ..." if len(shown) > 6 else "")


def engine_names(extra_dirs: tuple[str | Path, ...] = ()) -> list[str]:
    return list_names("engine", extra_dirs)
