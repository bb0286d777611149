"""Roofline time of one forward pass on a deployment: per operator, per step, and what bounds it.

For every operator o of one pipeline stage's pass over a micro-batch (FLOPs and bytes on the busiest
device from `roofline.costs`):

    t_o = roofline(flops_o * pad_o / (peak_flops[dtype_o] * eff[dtype_o] * eta_o), bytes_o / (mem_bw * mem_eff * eta_o))
          + n_o * kernels_o * kernel_latency
        eta_o = the engine's weight_only_efficiency w for a weight GEMM whose weights are narrower than its compute
                dtype (w8a16, int4; fp8 / fp4 where the device has no such tensor cores: dequantised inside the
                GEMM); its quantised_moe_efficiency q for routed experts computing in fp8 / fp4 / int8 (quantised
                fused-MoE kernels at small batch), and min(q, w) for routed experts that dequantise (one kernel, a
                quantised fused-MoE kernel that dequantises: the lower of the two, never their product); 1 for every
                other operator
        roofline(t_c, t_m) = max(t_c, t_m), or (t_c^p + t_m^p)^(1/p) with an overlap exponent p: the engine's, else
                             the hardware profile's (an engine's p replaces a calibrated device's)
        pad_o = ceil(R_o / tile) * tile / R_o for weight GEMMs but the routed experts (rows padded to the tensor-core
                tile): R_o = T_a tokens of the busiest attention group, B_a * logit tokens for the LM head (a class
                the engine splits over the stage, dep.stage_split: T_g (t_dp_gather's padded T), or B * logit tokens,
                every group's gathered; one
                of dep.sequence_split, vLLM's sequence-parallel shared experts and router: ceil(T_a / tp)); 1
                for the routed experts, whose rows per expert vary, and for every other operator
        n_o   = layers of the stage that run operator o (MoE layers for router, experts and shared experts; the
                other layers for a MoE model's dense MLP; the layers of the groups with a lightning indexer for the
                indexer, the stage's share of them; every layer for attention and norms), 1 for embedding, input
                projection and LM head
        kernels_o = the engine's kernels per layer of operator o (serving.py: per attention kind, plus activation
                    quantisation before GEMMs computing in fp8/fp4/int8), each paying a fixed latency (launch,
                    ramp-up, tail) on top of its data time: a latency + size / bandwidth model

    t_body   = sum over layer operators of t_o + t_allreduce + t_all_to_all + t_moe_gather + t_dp_gather
               + layers_stage * layer_overhead
    t_head   = t_embedding + t_input_proj + t_lm_head  (n_o = 1: a round trip crosses the first stage's embedding and the
               last's LM head) + t_head_gather (the LM head's gathers: its logits over tp, or over the stage) +
               t_embed_reduce (the embedding's all-reduce over tp)
    t_device = max(pp * t_body_mean + t_head, m * (t_body + t_head)) + t_p2p + step_overhead   (m = min(B, pp) micro-batches of B / m)
        each sequence's token passes the pp stages once a step: a micro-batch's round trip crosses every stage's layers
        and the head once (first term), and the busiest stage passes all m micro-batches (second term, which sets the
        step of a full pipeline, m = pp; at pp = 1 the two are equal), charged the whole head: an upper estimate where
        it holds one part of it, or none (a middle stage, vLLM's busiest of Llama-3.1-405B at pp 4: 2% of the step).
        t_body is the busiest stage's: the stage of most MoE layers, then most layers, as the engine splits them
        (leading dense layers in the first stages, interleaved ones in every stage in their share:
        layout.Deployment.stage_layers), so a pp that does not divide the layers paces every pass at that stage.
        t_body_mean is the mean stage's, layers / pp of each kind (Deployment.mean_stage): every term of t_body
        is a layer count times a time a layer, so pp of them are the sum of the stages' bodies, one pass over every
        layer of the model (the busiest stage's pp times overstated a round trip: DeepSeek-V3 at pp 4, batch 1, with its
        three leading dense layers, 64 MoE layers' time for its 58 MoE and 3 dense)
    eager (the engine's `graphs` false): a pass takes at least its host's launches of its kernels, launch_floor_s =
        K * eager_launch: the round trip (pp * t_body_mean + t_head) at least (pp * (K_layers_mean + K_coll_mean) + K_head)
        * eager_launch, the paced passes (m * (t_body + t_head)) at least m * (K_layers + K_coll + K_head) * eager_launch
        (the busiest stage's): K_layers = sum over layer operators of kernels_o * n_o, K_head the same over embedding,
        input projection and LM head, K_coll = the collectives t_allreduce, t_all_to_all, t_moe_gather and t_dp_gather
        price, one kernel each (collective_times_s' `kernels`; the head's gathers, the sampler's kernels and pipeline
        sends not counted). The host launches ahead of the device, so a pass is the longer of the two
        (launch_time_s, launch_kernels: those of the term that sets the step, under pp the round trip with its own host
        work or the paced passes; launch_bound). Where the engine overlaps its host work, the host does it and the
        launches on one thread: at pp 1, t_step = max(t_device, t_host + t_launch) (under pp each stage's worker launches
        its own kernels apart from the scheduler's work: not applied).
        In graphs, no floor; nor for a prefill pass in either mode (the engines capture decode passes, so a prefill runs
        eagerly in graphs too: a short prompt's kernels take less than their launches, by the profiles' counts and 15.6
        us under about 110 tokens for Llama 3.1 405B FP8 at tp 8 on an MI300X; not priced, alike in both modes)
    t_host = m * host_per_step + host_per_sequence * B_a   (each micro-batch scheduled on its own: host_time_s)
    t_step = max(t_device, t_host + t_launch) if the engine overlaps host work, else t_device + t_host      (pp = 1;
             t_launch = launch_time_s, 0 in graphs)
           = max(max(pp * t_body_mean + t_head + t_host_mb, m * (t_body + t_head)) + t_p2p + step_overhead, t_host)
                                                                                                 (pp > 1)
    t_host_mb = host_per_step + host_per_sequence * ceil((B / m) / dp_attention)   (a micro-batch's own)
        under pp a micro-batch's next step is scheduled once its last one's tokens are back (host_overlapped), so its
        own host work, t_host_mb, lies on its round trip, the other micro-batches' beside it; the host, busy with
        every micro-batch's, bounds the step too. At m = 1 this is t_device + t_host, whatever host_overlap says

    t_dp_gather  = dense_layers_stage * (2 lat + t_ring(D, 2 c T_g * hidden * 2))  where the engine splits the dense
                   MLP over the stage (dep.stage_split: SGLang's dp_gather and reduce-scatter a dense layer), else 0;
                   T_g = ceil(B / dp_attention) q dp_attention, every group's buffer padded to the busiest's
                   (gathered_tokens; in a decode or verify pass, run in CUDA graphs: a prefill gathers T), and c = 2
                   where the engine's dp_gather is allreduce (an all-reduce of the zero-padded buffer and one of the
                   outputs: SGLang before 0.4.10), or allgather_decode in a prefill (SGLang's sum_len mode), else 1;
                   T_g and c alike in t_all_to_all's allgather dispatch (t_ring(D, 2 c T_g * hidden * 2)) and
                   t_moe_gather (c at any ep; T_g at ep = 1)
    t_head_gather = 2 lat + t_ring(D, R * (hidden + vocab) * 2)  where it splits the LM head over the stage: the hidden
                   states of its R = B * logit tokens gathered (padded as T_g in a decode or verify pass), the logits
                   of each device's vocabulary slice all-gathered;
                   lat + t_ring(tp, R_a * vocab * 2) where the LM head is split over the group's tp (R_a = B_a * logit
                   tokens: each rank's vocabulary slice of the group's logits all-gathered, as every engine does); 0
                   for an LM head held whole
    t_embed_reduce = t_allreduce's per-collective time on M  where the embedding is split over the group's tp (vocabulary-parallel: each
                   rank looks up the tokens of its slice, zeros elsewhere, and the T_a h-wide rows are all-reduced, M as
                   t_allreduce's: vLLM's VocabParallelEmbedding.forward, SGLang's and TensorRT-LLM's alike; qa152); 0 for
                   an embedding held whole (SGLang's under attention DP)
    t_allreduce  = (2 * layers_stage - r) * (lat + t_ring(tp, 2 M))  (tp > 1; r = moe_layers_stage with attention DP,
                   whose MoE layers reduce in the gather's scatter or the all-to-all's combine, but not under vLLM
                   without its sequence-parallel MoE (its sequence_parallel_moe engine with dep.sequence_split empty: a
                   Mixtral, or ep = 1) and with an allgather dispatch or none, which gathers over the data-parallel
                   group, leaving each tp rank a partial sum of the experts to all-reduce
                   (FusedMoE.maybe_all_reduce_tensor_model_parallel; qa152), plus dense_layers_stage
                   where the dense MLP is split over the stage (its reduce-scatter in t_dp_gather), else 0; a reduce-scatter
                   and an all-gather of the M = T_a * hidden * 2 byte message), plus moe_layers_stage * lat where the
                   engine runs its MoE layers sequence-parallel (dep.sequence_split, vLLM's at tp > 1 with attention DP
                   and EP) in DeepSeek's decoder layer at pp = 1 (an MLA model: the reduction after attention is a
                   reduce-scatter, and the output all-gathered before the next layer's attention, the all-reduce's bytes
                   in two collectives), else moe_layers_stage * (lat + t_ring(tp, M)) (the all-reduce stays, and the
                   MoE block all-gathers its output: Qwen3-MoE, or pp > 1), plus layers_stage * (lat + t_ring(tp, M_qk))
                   for a model whose QK norm spans all heads (model.qk_norm_all_heads: MiniMax-M2's qk_norm_type
                   per_layer), each layer all-reducing its q and k sums of squares over tp, M_qk = T_a * 2 * 4 bytes
                   (fp32: vLLM's MiniMaxText01RMSNormTP, SGLang's MiniMaxM2QKRMSNorm); across exactly two domains NCCL's tuning
                   picks a tree (tuning.cc: bus bandwidth bwIntra for nNodes <= 2; NVIDIA/nccl-tests issue 196), each
                   NIC of the smallest domain carrying M / r: max(2 M (S - 1) / S / bw_up, M / r / bw_out). lat across
                   domains is the profile's scale-out latency, measured between two ranks: NCCL's own model puts 16
                   ranks on two nodes at 25-48 us (tuning.cc's latencies; 46-48 us measured on 2 x 8 H20, NVIDIA/nccl
                   issue 1244), so a cross-node all-reduce's latency is a lower estimate
    t_ring(D, M) = M (D - 1) / D / bw inside one domain; across N = ceil(D / S) domains of S devices, r of them in the
                   smallest (D mod S, or S), max(M (S - 1) / S / bw_up, M (D - 1) / (D r) / bw_out): for an all-gather,
                   a reduce-scatter, and an all-reduce over more than two domains NCCL runs a ring a NIC, each carrying
                   its share of every chunk across each node boundary, so the smallest node's r NICs pace it
                   (hw.two_link_transfer_s; a tp 16 all-reduce over two nodes was priced on one NIC, 8x slow)
    t_all_to_all = moe_layers_stage * (2 lat + t_xfer(n * (b_out + hidden * 2)))   (ep > 1 and attention data-parallel;
                   with dp_attention = 1 every device already holds every token and the combine rides on the all-reduce;
                   lat from the engine's all_to_all_latency for DeepEP's kernels, per_rank and per_pair, and from its
                   allreduce_latency for allgather, the NCCL all-gather and reduce-scatter t_moe_gather also runs:
                   dispatch_latency_s)
                   n tokens a device sends and gets back, by the engine's moe_dispatch (serving.MOE_DISPATCH), each b_out
                   bytes out and hidden * 2 back, of T_d = ceil(B_a * q / tp) tokens on the busiest device (T / D where
                   the attention groups and their tp ranks split the batch evenly; qa119, qa124: the mean, T / D, until
                   session 30); t_xfer below:
                     per_rank   n = T_d * (ep - 1) * h_ep, b_out = hidden * 2, or hidden * (1 + 4 / 128) where the
                                experts are block-quantised fp8 (vLLM's DeepEP high-throughput path quantises before it
                                dispatches; the combine is bf16): once to each other rank one of its top_k
                                experts is on (DeepEP's normal kernels); h_ep = costs.rank_hit_probability, the chance a
                                rank holds one of a token's distinct experts (under DeepSeek's group-limited routing, 4 of
                                8 groups, about 3.5 ranks of 7 at ep 8 against 4.6)
                     per_pair   n = T_d * top_k * (ep - 1) / ep, b_out = hidden * (1 + 4 / 128): once per expert on
                                another rank (DeepEP's low-latency kernels, one message a token-expert pair), fp8 out with
                                an fp32 scale a 128 values, bf16 back
                     allgather  every other rank's tokens all-gathered, the outputs reduce-scattered (vLLM's default
                                all2all backend, allgather_reducescatter): t_xfer is t_ring's, below, over D ranks, or
                                over the dp_attention ranks of a data-parallel group where vLLM gathers over it (above)
                   per_pair goes straight to its rank: t_xfer = hw.spread_transfer_s(D, bytes), over the scale-up link
                   inside one domain; across domains the share for peers in the device's own domain over it and the
                   rest over the scale-out link, at once. The others across N = ceil(D / S) domains of S devices, r
                   of them in the smallest (D mod S, or S), hw.two_link_transfer_s (NVLink bytes on the scale-up link,
                   NIC bytes on the scale-out, at once):
                     allgather  t_ring(D_g, c T_g * hidden * 2 * 2) (T_g, c: t_dp_gather's; D_g = D, or dp_attention
                                where vLLM gathers over the data-parallel group): NCCL's rings carry every token across
                                each node boundary, out and back
                     per_rank   NVLink n, NIC T_d (D - r) / r * h_N (h_N: h_ep with each of min(N, ep) domains one
                                rank): DeepEP's normal kernels send a token once to each other domain, forwarding inside
                                over NVLink; the smallest node takes the others' tokens on its r NICs
    t_moe_gather = 2 * moe_layers_stage * (lat + t_ring(g, c T_g * hidden * 2))  (g: dp_attention where vLLM gathers
                   over the data-parallel group, above)
                   (attention data-parallel with each routed expert split over g = D / ep > 1 devices: the tokens
                    of every attention group gathered before the experts and the outputs reduce-scattered after,
                    SGLang's dp_gather and reduce-scatter; none where an allgather dispatch already gave every device
                    every token; T_g = the padded T of t_dp_gather when ep = 1, else T h_ep, the tokens
                    with at least one of their experts on an EP rank, each gathered once (it counted token-expert
                    pairs, min(T, T top_k / ep), until session 19))
    t_p2p        = sum over the pp - 1 forward boundaries of (lat + 2 T_r * hidden * 2 / tp / bw + t_gather) + lat
                   (pp > 1) the hidden states and the residual of a rank's attention group (T_r = ceil(B_mb /
                   dp_attention) q, the busiest group's),
                   each tp rank its slice, all-gathered over tp by the next stage (t_gather = lat + t_ring(tp, 2 T_r *
                   hidden * 2) at tp > 1), and the sampled tokens' return to the first stage, a latency: p2p_time_s
    bw (t_p2p) and lat: the scale-up link's inside one domain, the scale-out link's for a group that spans domains
    (hardware.link_for); lat = max(the engine's measured collective latency, the link's latency).
    t_host = m * host_per_step + host_per_sequence * B_a (serving.py; host_time_s)

dtype_o is the compute dtype of the operator's weight class for weight GEMMs (fp4 on Hopper runs as
W4A16 in bf16), fp8 for a lightning indexer (bf16 on a device without fp8) and bf16 for attention and elementwise
work. A hardware profile may give attention and
elementwise operators their own ceilings and a per-layer overhead (`roofline calibrate` measures them); attention's memory
ceiling is min(attention_memory, S * attention_stream) where it gives attention_stream and the engine's attention does not
split a sequence's keys (attention_splits_keys false: S = B_a * h_kv streams, attention_memory_ceiling).

    MBU = bytes moved / t_step / mem_bw          MFU = sum_o (flops_o / peak_flops[dtype_o]) / t_step
                                                 (each operator against the peak of the dtype it computes in: fp32
                                                 weight GEMMs beside bf16 attention stay at most 1)
    arithmetic intensity = flops / bytes         an operator is compute-bound when its compute time
                                                 exceeds its memory time.
"""

from __future__ import annotations

import math

import numpy as np

from roofline.costs import (
    ACTIVATION_BYTES,
    LAYER_OPERATORS,
    WEIGHT_GEMMS,
    attention_activation_bytes,
    gathered_tokens,
    operator_costs,
    rank_hit_probability,
    sequence_split_tokens,
    sequences_per_group,
    weight_bytes_by_class,
)
from roofline.hardware import HardwareSpec
from roofline.layout import OPERATOR_CLASS, QUANTISED_DTYPES, Deployment, deployment
from roofline.model import BYTES_PER_ELEMENT, ModelSpec
from roofline.serving import HOST_PARAMETERS, IDEAL, SPEC_PARAMETERS, ServingEngine

QK_NORM_BYTES = 2 * 4  # a token's q and k sums of squares, fp32: what a QK norm over all heads all-reduces a layer


def weight_only(hw: HardwareSpec, weight_dtype: str) -> bool:
    """Whether weights of `weight_dtype` are narrower than the dtype their GEMM computes in on `hw` (w8a16 and
    int4 always; fp8 and fp4 on a device without fp8 / fp4 tensor cores): the GEMM dequantises them."""
    return BYTES_PER_ELEMENT[weight_dtype] < BYTES_PER_ELEMENT.get(hw.compute_dtype(weight_dtype), 2.0)


def parameters_used(hw: HardwareSpec, model: ModelSpec, dep: Deployment, engine: ServingEngine, speculating: bool = False,
                    host_bound: bool = False, method: str = "") -> dict[str, bool]:
    """{fitted parameter: whether a point's figures depend on it}: the kernel latency always; quantised_moe_efficiency
    where the routed experts compute quantised, or dequantise and it is the lower of the two (_operator_time_s);
    weight_only_efficiency where another GEMM dequantises, or the experts do and it is the lower; the host work where
    the engine (as on `hw`: its family's overrides applied) adds it to the step (no overlap, or a speculative iteration
    without it) or it sets the step (`host_bound`); the speculation costs where the point speculates (but a draft
    step's where its `method` is n-gram lookup, which drafts on the host in no draft step: qa293); allreduce_latency
    where a collective pays it (tp > 1, pp > 1, an attention-DP MoE layer's gather over split experts, or a dense MLP or
    LM head split over the stage: collective_times_s, p2p_time_s, lm_head_gather_time_s), or an allgather expert
    dispatch (dispatch_latency_s); overlap_exponent where the
    engine sets it (else the hardware profile's p). DeepEP's dispatch's all_to_all_latency is said apart, with its
    share of the step (serving.dispatch_prior_text)."""
    gathers = _gathers_split_experts(model, dep, engine)
    dense_mlp_layers = dep.stage_layers(model)[2] if model.moe is not None else dep.stage_layers(model)[0]
    host = (not engine.host_overlap or (speculating and not engine.host_overlap_speculating) or host_bound
            or dep.pp > 1)  # under pp a micro-batch's own host work is on its round trip (step_metrics)
    quantised_experts = model.moe is not None and dep.dtype("experts") in QUANTISED_DTYPES
    dequantised_experts = model.moe is not None and weight_only(hw, dep.dtype("experts"))
    q, w = engine.quantised_moe_efficiency, engine.weight_only_efficiency
    held = {c for c, nbytes in weight_bytes_by_class(model, dep).items() if nbytes > 0}  # not a class the model lacks
    others = any(weight_only(hw, d) for c, d in dep.dtypes.items() if c in held and (c != "experts" or model.moe is None))
    return {"kernel_latency": True,
            "quantised_moe_efficiency": quantised_experts and (not dequantised_experts or q <= w),
            "weight_only_efficiency": others or (dequantised_experts and (not quantised_experts or w <= q)),
            **dict.fromkeys(HOST_PARAMETERS, host), **dict.fromkeys(SPEC_PARAMETERS, speculating),
            "spec_per_draft_step": speculating and method != "ngram",
            "allreduce_latency": (dep.tp > 1 or dep.pp > 1 or gathers or (dispatches(model, dep) and engine.moe_dispatch == "allgather")
                                  or "lm_head" in dep.stage_split or ("mlp" in dep.stage_split and dense_mlp_layers > 0)),
            "overlap_exponent": engine.overlap_exponent is not None}


def dispatches(model: ModelSpec, dep: Deployment) -> bool:
    """Whether `dep`'s MoE layers dispatch their tokens to the experts' ranks (t_all_to_all): ep > 1 under attention DP."""
    return model.moe is not None and dep.ep > 1 and dep.dp_attention > 1


def unfitted_family_note(hw: HardwareSpec, model: ModelSpec, dep: Deployment, engine: ServingEngine) -> str:
    """'vllm's quantised_moe_efficiency (0.79) on mi300x is fitted on other devices: no fit row of AMD Instinct
    determines it ...' where a parameter this point uses (parameters_used) rests on no fit row of the device's family
    (ServingEngine.unfitted_on) and on some of other families (one no row of the whole profile determines,
    undetermined_note says instead); '' where none does."""
    used = parameters_used(hw, model, dep, engine)
    lost = [(p, family) for p, family in engine.unfitted_on(hw) if used.get(p) and not engine.undetermined(p, hw)]  # else undetermined_note says it
    if not lost:
        return ""
    from roofline.units import format_seconds

    values = " and ".join(f"{p} ({format_seconds(getattr(engine, p + '_s')) if hasattr(engine, p + '_s') else f'{getattr(engine, p):.3g}'})"
                          for p, _ in lost)
    return (f"{engine.name}'s {values} on {hw.name} is fitted on other devices: no fit row of {lost[0][1]} determines it "
            f"(roofline engines show {engine.name}), so the figures rest on kernels measured elsewhere")


def weight_only_note(hw: HardwareSpec, dep: Deployment, model: ModelSpec) -> str:
    """'fp8 weights on a100-sxm-80gb: the device has no fp8 tensor / matrix cores; ...' where weights of `model` that
    compute in their own dtype on a device with such units (fp8, int8, fp4, nvfp4) run weight-only here (weight_only:
    dequantised to the device's compute dtype in every GEMM, at the engine's weight_only_efficiency; routed experts at
    the lower of it and the quantised-MoE efficiency); only classes the model holds weights of count (a head drafter
    holds no experts); '' where none do."""
    held = {c for c, nbytes in weight_bytes_by_class(model, dep).items() if nbytes > 0}  # a head drafter holds no experts
    lost = sorted({d for c, d in dep.dtypes.items() if c in held and d in ("fp8", "int8", "fp4", "nvfp4") and weight_only(hw, d)})
    if not lost:
        return ""
    names = " and ".join(lost)
    cores = " or ".join(dict.fromkeys("fp4" if d == "nvfp4" else d for d in lost))  # NVFP4 runs on the fp4 tensor cores
    why = (f"its fp4 units take {' and '.join(f.upper() for f in hw.fp4_formats)} only (fp4_formats in its profile)"
           if "fp4" in hw.peak_flops_per_s and cores == "fp4" else
           f"the device has no {cores} tensor / matrix cores (no such peak in its profile)")
    experts = " (routed experts: the lower of it and its quantised_moe_efficiency)" if "experts" in held and weight_only(
        hw, dep.dtype("experts")) else ""
    return (f"{names} weights on {hw.name}: {why}, so they are modelled as weight-only, dequantised to "
            f"{hw.compute_dtype(lost[0])} in every GEMM at the engine's weight_only_efficiency{experts}")


def bytes_set_time_s(t_compute_s, t_memory_s, t_op_s, overlap_exponent: float | None = None):
    """The part of an operator's time t_op = (t_c^p + t_m^p)^(1/p) (op_time_s) its bytes set: t_m x dt_op/dt_m =
    t_m (t_m / t_op)^(p - 1), all of t_m where compute and memory add (p = 1), t_m where memory bounds the max form
    and 0 where compute does (p None); halving t_m (twice the bandwidth) saves about half of it, exactly at p = 1
    (qa339: sglang's and trtllm's compute-bound operators' bytes are halved too)."""
    t_memory_s = np.asarray(t_memory_s, dtype=np.float64)
    if overlap_exponent is None:
        return np.where(t_memory_s >= np.asarray(t_compute_s, dtype=np.float64), t_memory_s, 0.0)
    t_op_s = np.asarray(t_op_s, dtype=np.float64)
    share = np.where(t_op_s > 0, t_memory_s / np.where(t_op_s > 0, t_op_s, 1.0), 0.0)
    return t_memory_s * np.minimum(share, 1.0) ** (float(overlap_exponent) - 1.0)


def op_time_s(flops, nbytes, compute_flops_per_s: float, memory_bytes_per_s: float, overlap_exponent: float | None = None):
    """max(flops / compute ceiling, bytes / memory ceiling), or the p-norm when overlap_exponent is set."""
    t_compute_s = np.asarray(flops, dtype=np.float64) / compute_flops_per_s
    t_memory_s = np.asarray(nbytes, dtype=np.float64) / memory_bytes_per_s
    if overlap_exponent is None:
        return np.maximum(t_compute_s, t_memory_s)
    p = float(overlap_exponent)
    big_s = np.maximum(t_compute_s, t_memory_s)
    safe_s = np.where(big_s > 0, big_s, 1.0)
    return big_s * ((t_compute_s / safe_s) ** p + (t_memory_s / safe_s) ** p) ** (1.0 / p)


QUANTISED_COMPUTE = ("fp8", "fp4", "int8")  # GEMM compute dtypes whose activations are quantised by a kernel of their own
_MOE_OPERATORS = ("router", "experts", "shared_experts")


def operator_layers(model: ModelSpec, name: str, dep: Deployment | None = None) -> float:
    """Layers of the busiest stage (Deployment.stage_layers; the whole model without `dep`) that run operator `name`
    (n_o of the module docstring): MoE layers for the MoE operators, the dense layers for a MoE model's MLP, the indexed
    groups' layers (their share of the stage) for the indexer, every layer otherwise; 1 for embedding, input projection
    and LM head."""
    if name not in LAYER_OPERATORS:
        return 1.0
    layers, moe_layers, dense_layers = dep.stage_layers(model) if dep is not None else (model.layers, model.moe_layers,
                                                                                         model.dense_layers)
    if name in _MOE_OPERATORS:
        return moe_layers
    if name == "mlp" and model.moe is not None:
        return dense_layers
    if name == "indexer":  # the stage's layers of the groups with a lightning indexer (qa120)
        stage = dep.stage_group_layers(model) if dep is not None else tuple(float(g.layers) for g in model.groups)
        return sum(n for g, n in zip(model.groups, stage) if g.index_dim)
    return layers


def operator_ceilings(hw: HardwareSpec, dep: Deployment, model: ModelSpec | None = None, sequences=None,
                      engine: ServingEngine | None = None) -> dict[str, tuple]:
    """(compute FLOP/s, memory bytes/s) ceiling of every operator: weight GEMMs on their weight class's
    compute dtype, attention and elementwise work on their own measured ceilings where the profile has them; with
    `model`, `sequences` (B_a) and an `engine` whose attention does not split keys, attention's memory ceiling as
    attention_memory_ceiling gives it (an array over B_a)."""
    memory_bytes_per_s = hw.memory_ceiling_bytes_per_s
    other_flops_per_s = hw.compute_ceiling_flops_per_s("bf16")
    out = {name: (hw.compute_ceiling_flops_per_s(dep.dtype(OPERATOR_CLASS[name])), memory_bytes_per_s) for name in WEIGHT_GEMMS}
    attention_bytes_per_s = hw.attention_memory_bytes_per_s or memory_bytes_per_s
    if model is not None and sequences is not None and engine is not None and not engine.attention_splits_keys:
        attention_bytes_per_s = attention_memory_ceiling(hw, model, dep, sequences)
    out["attention"] = (hw.attention_compute_flops_per_s or other_flops_per_s, attention_bytes_per_s)
    out["indexer"] = (hw.compute_ceiling_flops_per_s("fp8"), memory_bytes_per_s)  # fp8 MQA logits (bf16 where the device has no fp8)
    out["norms"] = (other_flops_per_s, hw.elementwise_memory_bytes_per_s or memory_bytes_per_s)
    out["embedding"] = out["kv_write"] = (other_flops_per_s, memory_bytes_per_s)
    return out


def attention_memory_ceiling(hw: HardwareSpec, model: ModelSpec, dep: Deployment, sequences):
    """The KV stream, bytes/s, of an attention kernel that does not split a sequence's keys, over B_a = `sequences`
    sequences of a group (step_metrics uses it under an engine whose attention_splits_keys is false):

        bw_attn = attention_memory                                      (default: the memory ceiling)
                  min(attention_memory, max(S, 1) * attention_stream)   where the profile gives attention_stream
        S = B_a * h_kv,   h_kv = the KV heads a device holds: ceil(kv_heads / tp) (one replicated once tp > kv_heads),
            1 for MLA's latent

    Such a kernel (PyTorch's fused attention: docs/VALIDATION.md, CUDA graphs) streams each (sequence, KV head)'s keys
    on one unit of its own, so S streams read at S times one's rate until they fill the device. Flash-decoding kernels
    (the serving engines', attention_splits_keys true) split the keys over the units and are not capped.
    Measured: a GPU's units number more than attention_memory / attention_stream (132 SMs against about 57 on the H200:
    1.45 TB/s over 25.6 GB/s), so the streams reach attention_memory before they queue for a unit, and no wave count is needed."""
    aggregate_bytes_per_s = hw.attention_memory_bytes_per_s or hw.memory_ceiling_bytes_per_s
    if not hw.attention_stream_bytes_per_s:
        return aggregate_bytes_per_s
    kv_heads = 1 if model.kv_layout == "mla" else -(-model.kv_heads // dep.tp)  # as kv_elements_per_token_per_layer_per_device
    streams = np.asarray(sequences, dtype=np.float64) * kv_heads
    return np.minimum(aggregate_bytes_per_s, np.maximum(streams, 1.0) * hw.attention_stream_bytes_per_s)


def operator_compute_dtypes(hw: HardwareSpec, dep: Deployment) -> dict[str, str]:
    """The dtype every operator computes in (dtype_o of the module docstring): weight GEMMs their weight class's
    compute dtype on this device (fp4 on Hopper: bf16), a lightning indexer fp8 (DeepGEMM's fp8 MQA logits, as vLLM
    and SGLang score its fp8 keys; bf16 on a device without fp8), attention and elementwise work bf16 (the device's
    widest where it has no bf16 units)."""
    out = {name: hw.compute_dtype(dep.dtype(OPERATOR_CLASS[name])) for name in WEIGHT_GEMMS}
    out.update(dict.fromkeys(("attention", "norms", "embedding", "kv_write"), hw.compute_dtype("bf16")))
    out["indexer"] = hw.compute_dtype("fp8")
    return out


def operator_peaks(hw: HardwareSpec, dep: Deployment) -> dict[str, float]:
    """The dense peak FLOP/s of every operator's compute dtype (MFU's denominators)."""
    return {name: hw.peak_flops_per_s[dtype] for name, dtype in operator_compute_dtypes(hw, dep).items()}


PADDED_GEMMS = tuple(name for name in WEIGHT_GEMMS if name != "experts")  # experts: each expert's rows vary (module docstring)


def _tile_padding(rows, tile_rows: int):
    """pad = ceil(rows / tile) * tile / rows: the share of a GEMM's FLOPs its rows padded to the tile cost (1 without tiles)."""
    if not tile_rows:
        return 1.0
    rows = np.asarray(rows, dtype=np.float64)
    return np.ceil(rows / tile_rows) * tile_rows / np.maximum(rows, 1e-30)


def _rank_hit(model: ModelSpec, dep: Deployment) -> float:
    """costs.rank_hit_probability of the model's routing on the deployment's expert-parallel ranks."""
    moe = model.moe
    return rank_hit_probability(moe.experts, moe.top_k, dep.ep, moe.groups, moe.groups_per_token)


FP8_SCALE_BYTES, FP8_SCALE_GROUP = 4.0, 128  # an fp8 activation row's scales: one fp32 a 128 values (DeepEP's dispatch)


def _node_hit(model: ModelSpec, nodes: int) -> float:
    """costs.rank_hit_probability with each of `nodes` scale-up domains taken as one rank (its contiguous experts)."""
    moe = model.moe
    if moe.experts % nodes:
        return 1.0 - (1.0 - 1.0 / nodes) ** moe.top_k  # experts not split evenly: drawn with replacement, a little low
        #   (distinct experts reach more nodes: 0.961 against the exact 0.963 for DeepSeek-V3 over 3 nodes; qa302)
    return rank_hit_probability(moe.experts, moe.top_k, nodes, moe.groups, moe.groups_per_token)


def _latency(engine_latency_s: float, link_latency_s: float) -> float:
    """An engine's measured collective latency, never below the link's own (a span across domains pays the scale-out latency)."""
    return max(engine_latency_s, link_latency_s)


def collective_times_s(hw: HardwareSpec, model: ModelSpec, dep: Deployment, engine: ServingEngine, batch, q,
                       padded: bool = True, kernels: dict | None = None, messages: dict | None = None) -> dict[str, np.ndarray]:
    """All-reduce, all-to-all, MoE gather / scatter and DP gather / scatter time of one stage's pass over `batch`
    sequences of `q` tokens each (module docstring): T = B * q, and T_a = ceil(B / dp_attention) * q for the busiest
    attention group's all-reduce. Where the engine splits the dense MLP over the stage (dep.stage_split, SGLang's
    dp_attention_stage_split) each dense layer gathers T h-wide tokens to all D devices and reduce-scatters them back
    (two ring passes, replacing its second all-reduce: dp_gather_time_s); the LM head's gathers go with the head's
    pass (lm_head_gather_time_s). The gathered buffers hold every group's tokens padded to the busiest group's
    (gathered_tokens), as decoding in CUDA graphs runs them; a prefill (`padded` false: run eagerly) gathers T.
    `kernels`, where given, gets the collectives each term prices, one kernel each (an eager pass's launches: its
    latencies counted, qa328), under the same names; `messages` the bytes of each tp all-reduce, M = B_a q h a
    (allreduce_time_s: what a reader checks by hand), and where vLLM's sequence-parallel MoE runs, how its one more
    collective a MoE layer is priced and how many ("sequence_parallel_moe": ('reduce_scatter' | 'all_gather', layers))."""
    b, q = np.broadcast_arrays(np.asarray(batch, dtype=np.float64), np.asarray(q, dtype=np.float64))
    tokens = b * q
    gathered = gathered_tokens(b, q, dep, padded)  # each group's buffer padded to the busiest's (qa144)
    # an all-reduce moves a gather's bytes twice: always under allreduce, in a prefill under allgather_decode (qa146)
    passes = 2.0 if engine.dp_gather == "allreduce" or (engine.dp_gather == "allgather_decode" and not padded) else 1.0
    h_bytes = model.hidden_size * ACTIVATION_BYTES
    layers, moe_layers, _ = dep.stage_layers(model)  # the busiest stage's
    # vLLM without its sequence-parallel MoE at tp > 1 (qa152): the MoE layer's gather runs over the data-parallel group
    # (the ranks of one tp index), so each rank's experts see every group's tokens but only its tp index's experts, and
    # the layer's tp all-reduce stays (AgRsAll2AllManager.dispatch: get_dp_group() unless sequence-parallel)
    # (DeepEP's kernels, per_rank and per_pair, dispatch over the EP group and reduce in their combine)
    over_dp_group = (engine.sequence_parallel_moe and not dep.sequence_split and dep.tp > 1 and dep.dp_attention > 1
                     and (engine.moe_dispatch == "allgather" or dep.ep == 1))
    out = {name: np.zeros_like(tokens) for name in ("allreduce_time_s", "all_to_all_time_s", "moe_gather_time_s",
                                                    "dp_gather_time_s")}
    count = dict.fromkeys(out, 0.0)  # the collectives each term prices (`kernels`)
    dense_layers = dep.stage_layers(model)[2] if model.moe is not None else layers  # where the dense MLP runs
    if "mlp" in dep.stage_split and dense_layers:  # SGLang's dp_gather and dp_reduce_scatter_tensor (dp_attention_stage_split):
        # every group's tokens gathered to the dense MLP, its output reduce-scattered back, a layer's two ring passes
        # (two all-reduces, four, under dp_gather: allreduce)
        transfer_s, latency_s = _ring_pass_s(hw, dep.devices_per_stage, gathered * 2 * passes * h_bytes)
        out["dp_gather_time_s"] = dense_layers * (2.0 * _latency(engine.allreduce_latency_s, latency_s) + transfer_s)
        count["dp_gather_time_s"] = 2.0 * dense_layers
    if dep.tp > 1:
        message_bytes = sequences_per_group(b, dep) * q * h_bytes
        transfer_s, latency_s = _tp_allreduce_parts_s(hw, dep, message_bytes)
        per_layer_s = _latency(engine.allreduce_latency_s, latency_s) + transfer_s
        if messages is not None:
            messages["allreduce_time_s"] = message_bytes
        # two per layer (after attention, after the MLP); with attention DP an MoE layer's second is the reduce-scatter
        # of its gather or the combine of its all-to-all, priced below
        replaced = moe_layers if dep.dp_attention > 1 and model.moe is not None and not over_dp_group else 0.0
        replaced += dense_layers if "mlp" in dep.stage_split else 0.0  # its reduce-scatter, priced in dp_gather_time_s
        out["allreduce_time_s"] = (2.0 * layers - replaced) * per_layer_s
        count["allreduce_time_s"] = 2.0 * layers - replaced
        if model.qk_norm_all_heads:  # a QK norm over all heads: its q and k sums of squares all-reduced each layer
            qk_bytes = sequences_per_group(b, dep) * q * QK_NORM_BYTES
            qk_transfer_s, qk_latency_s = _tp_allreduce_parts_s(hw, dep, qk_bytes)
            if messages is not None:  # how many, and their bytes (predict says them apart from the layers' M)
                messages["qk_norm"] = (layers, qk_bytes)
            out["allreduce_time_s"] = out["allreduce_time_s"] + layers * (_latency(engine.allreduce_latency_s, qk_latency_s)
                                                                          + qk_transfer_s)
            count["allreduce_time_s"] += layers
        if dep.sequence_split and model.moe is not None:  # vLLM's sequence-parallel MoE
            if model.mla is not None and dep.pp == 1:  # DeepseekV2DecoderLayer: a MoE layer's all-reduce after attention
                # is a reduce-scatter, and its output all-gathered before the next layer: its bytes, two latencies
                extra_s = _latency(engine.allreduce_latency_s, latency_s)
                split = "reduce_scatter"
            else:  # the all-reduce stays, and the MoE block all-gathers its output over tp (qa143: Qwen3-MoE, pp > 1)
                gather_s, gather_latency_s = _ring_pass_s(hw, dep.tp, message_bytes)
                extra_s = _latency(engine.allreduce_latency_s, gather_latency_s) + gather_s
                split = "all_gather"
            if messages is not None:  # how the extra collective of each MoE layer is priced (predict says it; qa417)
                messages["sequence_parallel_moe"] = (split, moe_layers)
            out["allreduce_time_s"] = out["allreduce_time_s"] + moe_layers * extra_s
            count["allreduce_time_s"] += moe_layers
    if dispatches(model, dep):
        d = dep.dp_attention if over_dp_group else dep.devices_per_stage  # the ranks the gather runs over
        per_device = np.ceil(sequences_per_group(b, dep) * q / dep.tp)  # the busiest device's whole tokens (qa124)
        if engine.moe_dispatch == "per_pair":  # each of a token's pairs on another rank, fp8 out with its scales: sent
            # straight to the rank, over NVLink inside a domain and RDMA across (DeepEP's low-latency kernels)
            sent_pairs = per_device * model.moe.top_k * (dep.ep - 1) / dep.ep
            transfer_s, latency_s = hw.spread_transfer_s(d, sent_pairs * (_fp8_dispatch_bytes(model) + h_bytes))
        elif engine.moe_dispatch == "allgather":  # NCCL's ring: every boundary between nodes carries all the tokens
            transfer_s, latency_s = _ring_pass_s(hw, d, gathered * 2 * passes * h_bytes,  # gathered out, reduce-scattered back
                                                 dep.pp * dep.tp if over_dp_group else 1)
        else:  # once to each other rank a token's experts are on, once to each other node over RDMA (DeepEP's normal
            # kernels forward inside the node over NVLink); fp8 out where the experts are block-quantised fp8
            domain, domains, smallest = _domains(hw, d)
            inside_tokens = per_device * (dep.ep - 1) * _rank_hit(model, dep)
            outside_tokens = (per_device * (d - smallest) / smallest * _node_hit(model, min(domains, dep.ep))
                              if domains > 1 else 0.0)
            sent_bytes = _fp8_dispatch_bytes(model) if dep.dtype("experts") == "fp8" and model.quant_block else h_bytes
            transfer_s, latency_s = hw.two_link_transfer_s(d, inside_tokens * (sent_bytes + h_bytes),
                                                           outside_tokens * (sent_bytes + h_bytes))
        out["all_to_all_time_s"] = moe_layers * (2.0 * _latency(dispatch_latency_s(engine), latency_s) + transfer_s)
        count["all_to_all_time_s"] = 2.0 * moe_layers
    g = dep.devices_per_stage // dep.ep  # devices each routed expert is split over
    if _gathers_split_experts(model, dep, engine):
        tokens_g = gathered if dep.ep == 1 else tokens * _rank_hit(model, dep)
        transfer_s, latency_s = (_ring_pass_s(hw, dep.dp_attention, tokens_g * passes * h_bytes, dep.pp * dep.tp) if over_dp_group
                                 else _ring_pass_s(hw, g, tokens_g * passes * h_bytes))
        out["moe_gather_time_s"] = 2.0 * moe_layers * (_latency(engine.allreduce_latency_s, latency_s) + transfer_s)
        count["moe_gather_time_s"] = 2.0 * moe_layers
    if kernels is not None:
        kernels.update(count)
    return out


def dispatch_latency_s(engine: ServingEngine) -> float:
    """The engine's latency of each of an expert dispatch's two collectives (t_all_to_all's lat): its all_to_all_latency
    for DeepEP's kernels (per_rank, per_pair), its allreduce_latency for an all-gather and a reduce-scatter (allgather:
    the collectives of the gather t_moe_gather prices, where vLLM and TensorRT-LLM run the same ones at ep 1; qa139:
    the same all-gather was priced at 40 us at ep 8 and 10 us at ep 1, 3.5 ms a step of DeepSeek-V3 apart)."""
    return engine.allreduce_latency_s if engine.moe_dispatch == "allgather" else engine.all_to_all_latency_s


def lm_head_gather_time_s(hw: HardwareSpec, model: ModelSpec, dep: Deployment, engine: ServingEngine, logit_rows,
                          group_rows, messages: dict | None = None):
    """The LM head's gathers, once a pass through the head. Where the engine splits it over a stage (dep.stage_split,
    SGLang's): the hidden states of every group's `logit_rows` (B times the tokens a sequence needs logits for)
    gathered, then the logits of each device's vocabulary slice all-gathered, R (h + V) a bytes in one ring pass each.
    Where it splits it over the group's tp: each rank's vocabulary slice of the group's `group_rows` logits
    all-gathered, R_a V a bytes in one ring pass (qa142: vLLM's LogitsProcessor._gather_logits, TensorRT-LLM's
    gather_output, SGLang's logits processor). 0 for an LM head held whole. `messages`, where given, gets the bytes
    each device contributes to the tp gather, R_a V a / tp, under "lm_head_gather" (not where split over the stage)."""
    rows = np.asarray(logit_rows, dtype=np.float64)
    if "lm_head" in dep.stage_split:
        transfer_s, latency_s = _ring_pass_s(hw, dep.devices_per_stage,
                                             rows * (model.hidden_size + model.vocab_size) * ACTIVATION_BYTES)
        return 2.0 * _latency(engine.allreduce_latency_s, latency_s) + transfer_s
    if dep.split_of("lm_head") > 1:
        gathered_bytes = np.asarray(group_rows, dtype=np.float64) * model.vocab_size * ACTIVATION_BYTES
        if messages is not None:
            messages["lm_head_gather"] = gathered_bytes / dep.tp
        transfer_s, latency_s = _ring_pass_s(hw, dep.tp, gathered_bytes)
        return _latency(engine.allreduce_latency_s, latency_s) + transfer_s
    return np.zeros_like(rows)


def _tp_allreduce_parts_s(hw: HardwareSpec, dep: Deployment, message_bytes):
    """(transfer, link latency) of an all-reduce of `message_bytes` over the group's tp ranks: a reduce-scatter then an
    all-gather (t_ring(tp, 2 M)), or across exactly two domains NCCL's tree, each NIC of the smallest carrying M / r."""
    domain, domains, smallest = _domains(hw, dep.tp)
    if domains == 2:  # NCCL's tuning picks a tree across two nodes: each of the smallest node's NICs carries M / r
        return hw.two_link_transfer_s(dep.tp, 2.0 * message_bytes * (domain - 1) / domain, message_bytes / smallest)
    return _ring_pass_s(hw, dep.tp, 2.0 * message_bytes)  # a reduce-scatter, then an all-gather


def _tp_allreduce_s(hw: HardwareSpec, dep: Deployment, engine: ServingEngine, message_bytes):
    """lat + the transfer of an all-reduce of `message_bytes` over tp (t_allreduce's per-collective time)."""
    transfer_s, latency_s = _tp_allreduce_parts_s(hw, dep, message_bytes)
    return _latency(engine.allreduce_latency_s, latency_s) + transfer_s


def embedding_reduce_time_s(hw: HardwareSpec, model: ModelSpec, dep: Deployment, engine: ServingEngine, group_rows,
                            messages: dict | None = None):
    """The embedding's all-reduce, once a pass through it (t_embed_reduce): where it is split over the group's tp
    (vocabulary-parallel), the `group_rows` h-wide rows all-reduced as a layer's (t_allreduce's per-collective time); 0 for an embedding held whole.
    `messages`, where given, gets that all-reduce's bytes under "embedding_allreduce"."""
    rows = np.asarray(group_rows, dtype=np.float64)
    if dep.split_of("embedding") == 1 or model.medusa_head:  # held whole, or none (a Medusa head embeds nothing)
        return np.zeros_like(rows)
    if messages is not None:
        messages["embedding_allreduce"] = rows * model.hidden_size * ACTIVATION_BYTES
    return _tp_allreduce_s(hw, dep, engine, rows * model.hidden_size * ACTIVATION_BYTES)


def _gathers_split_experts(model: ModelSpec, dep: Deployment, engine: ServingEngine) -> bool:
    """Whether an attention-DP MoE layer gathers its tokens to routed experts split over g = devices / ep > 1 devices
    and scatters them back (moe_gather_time_s): not where an all-gather dispatch gave every device every token."""
    g = dep.devices_per_stage // dep.ep
    return dep.dp_attention > 1 and g > 1 and model.moe is not None and not (dep.ep > 1 and engine.moe_dispatch == "allgather")


def _fp8_dispatch_bytes(model: ModelSpec) -> float:
    """Bytes of one token dispatched in fp8 with an fp32 scale a 128 values (DeepEP's kernels)."""
    return model.hidden_size * (1.0 + FP8_SCALE_BYTES / FP8_SCALE_GROUP)


def _domains(hw: HardwareSpec, devices: int) -> tuple[int, int, int]:
    """(S, N, r): devices a scale-up domain holds of the group (all of them without a scale-out link), the N domains
    the group spans, and the r devices of the smallest (a last node the group does not fill)."""
    domain = min(devices, hw.scale_up_domain) if hw.scale_out_bw_bytes_per_s is not None else devices
    return domain, -(-devices // domain), devices % domain or domain


def domains_spanned(hw: HardwareSpec, devices: int) -> int:
    """The scale-up domains a group of `devices` spans as the collectives price it (_domains: one where the device has
    no scale-out link)."""
    return _domains(hw, devices)[1]


def _ring_pass_s(hw: HardwareSpec, devices: int, nbytes, stride: int = 1) -> tuple[np.ndarray, float]:
    """(seconds, latency s) of ring passes (an all-gather, a reduce-scatter) moving `nbytes` of data over `devices`:
    NVLink nbytes (S - 1) / S and NIC nbytes (D - 1) / (D r) at once (hw.two_link_transfer_s): NCCL runs a ring a
    NIC, each carrying its share of every chunk across each node boundary, so the smallest node's r NICs pace it; in
    one domain nbytes (D - 1) / D over the scale-up link. An all-reduce is two passes of its message. A group whose
    devices are `stride` ranks apart (vLLM's data-parallel group of one tp and pp index: every (pp x tp)-th rank, its
    rank order "ExternalDP x DP x PP x TP") spans the domains its ranks lie in, S the most of them in one, r the fewest
    (qa251: a DP group of 8 at tp 2 over two nodes was priced on NVLink alone)."""
    if stride > 1 and hw.scale_out_bw_bytes_per_s is not None and devices * stride > hw.scale_up_domain:
        # the group's ranks in each domain, counted (qa252: a stride that does not divide the domain, 5 and 3 on GB200)
        counts = np.bincount([i * stride // hw.scale_up_domain for i in range(devices)])
        counts = counts[counts > 0]
        most, smallest = int(counts.max()), int(counts.min())
        inside = nbytes * (most - 1) / most
        outside = nbytes * (devices - 1) / (devices * smallest)
        up_bytes_per_s, _ = hw.link_for(most)  # the links among the group's own ranks there (an MI300X mesh: fewer)
        out_bytes_per_s, latency_s = hw.link_for(devices * stride)
        return np.maximum(inside / up_bytes_per_s, outside / out_bytes_per_s), latency_s
    domain, domains, smallest = _domains(hw, devices)
    inside = nbytes * (domain - 1) / domain
    outside = nbytes * (devices - 1) / (devices * smallest) if domains > 1 else 0.0
    return hw.two_link_transfer_s(devices, inside, outside)


def p2p_time_s(hw: HardwareSpec, model: ModelSpec, dep: Deployment, engine: ServingEngine, tokens_per_group):
    """One micro-batch's hand-offs between pipeline stages once per step (0 when pp = 1):

        t_p2p = sum over the pp - 1 forward boundaries of (lat + 2 T_r h a / tp / bw + t_gather) + lat (the return)
        t_gather = lat + t_ring(tp, 2 T_r h a)   (tp > 1, else 0)

    forward, the hidden states and the residual of a rank's attention group (`tokens_per_group` T_r: the busiest
    group's of a micro-batch, ceil(B_mb / dp_attention) q, as the other collectives take it; qa251), each
    tp rank sending its 1/tp slice and the next stage's ranks all-gathering them (vLLM's and SGLang's
    pp_group.send_tensor_dict(..., all_gather_group=the tp group); qa245: one rank sending the hidden states whole was
    4x the bytes a NIC carries at tp 8); back to the first stage only the sampled token ids, a latency (vLLM's
    pp_broadcast; qa247: priced as a third hand-off of activations). A boundary between scale-up domains uses the
    scale-out link: domains - 1 of the forward ones and the return where the replica spans domains; the all-gather
    runs inside a stage's tp group.
    """
    tokens = np.asarray(tokens_per_group, dtype=np.float64)
    if dep.pp <= 1:
        return np.zeros_like(tokens)
    sent_bytes = 2.0 * tokens * model.hidden_size * ACTIVATION_BYTES  # hidden states and residual
    nbytes = sent_bytes / dep.tp
    domains = -(-dep.devices // hw.scale_up_domain)
    forward_across = min(dep.pp, domains) - 1 if domains > 1 else 0
    inside_bytes_per_s, inside_latency_s = hw.link_for(1)
    across_bytes_per_s, across_latency_s = hw.link_for(dep.devices)
    inside_lat_s = _latency(engine.allreduce_latency_s, inside_latency_s)
    across_lat_s = _latency(engine.allreduce_latency_s, across_latency_s)
    gather_s = 0.0
    if dep.tp > 1:
        ring_s, ring_latency_s = _ring_pass_s(hw, dep.tp, sent_bytes)
        gather_s = _latency(engine.allreduce_latency_s, ring_latency_s) + ring_s
    inside_s = (dep.pp - 1 - forward_across) * (inside_lat_s + nbytes / inside_bytes_per_s + gather_s)
    across_s = forward_across * (across_lat_s + nbytes / across_bytes_per_s + gather_s)
    return inside_s + across_s + (across_lat_s if domains > 1 else inside_lat_s)


def _operator_time_s(hw: HardwareSpec, model: ModelSpec, dep: Deployment, engine: ServingEngine, name: str, flops, nbytes,
                     ceilings: tuple[float, float], pad: dict, overlap_exponent) -> tuple:
    """(t_o, its FLOPs padded to the tile, compute ceiling x eta_o, memory ceiling x eta_o, the kernel latencies in t_o,
    its kernels kernels_o * n_o) of operator `name` over the stage's layers that run it (module docstring)."""
    flops_per_s, bytes_per_s = ceilings
    dequantised = name in WEIGHT_GEMMS and weight_only(hw, dep.dtype(OPERATOR_CLASS[name]))  # dequantised in the GEMM
    eta = engine.weight_only_efficiency if dequantised else 1.0
    if name == "experts" and dep.dtype("experts") in QUANTISED_DTYPES:  # a quantised fused-MoE kernel
        eta = min(eta, engine.quantised_moe_efficiency) if dequantised else engine.quantised_moe_efficiency
    flops_per_s, bytes_per_s = flops_per_s * eta, bytes_per_s * eta
    effective_flops = flops * pad.get(name, pad["gemm"]) if name in PADDED_GEMMS else flops
    time_s = op_time_s(effective_flops, nbytes, flops_per_s, bytes_per_s, overlap_exponent)
    launches = 0.0
    if flops.any() or nbytes.any():
        quantised = name in WEIGHT_GEMMS and hw.compute_dtype(dep.dtype(OPERATOR_CLASS[name])) in QUANTISED_COMPUTE
        launches = engine.kernels(name, mla=model.kv_layout == "mla", quantised=quantised) * operator_layers(model, name, dep)
    latency_s = launches * engine.kernel_latency_s
    return time_s + latency_s, effective_flops, flops_per_s, bytes_per_s, latency_s, launches


def launch_floor_s(engine: ServingEngine, kernels, prefill: bool = False):
    """The host's time to launch `kernels` where the engine runs its decode and verify passes eagerly (`graphs` false):
    K * eager_launch; 0 in graphs (one launch a pass), and for a prefill pass, which the engines run eagerly in graphs
    too, so neither mode prices its launches (qa330: an eager engine's short prefill alone floored). A pass takes at least
    that (module docstring)."""
    return 0.0 * kernels if engine.graphs or prefill else kernels * engine.eager_launch_s


def host_sets_step(overlap, host_s, step_s):
    """Whether host work of `host_s` sets a step of `step_s` (the step as step_metrics gives it) where it is overlapped
    (`overlap`: host_overlapped, step_metrics' host_overlapped): the step pays the larger of it and the device's time, so the host work is the
    step where it is at least that (a rounding's worth aside)."""
    return np.asarray(overlap, dtype=bool) & (np.asarray(host_s) >= np.asarray(step_s) * (1 - 1e-9))


CROSS_DOMAIN_SHARE_NOTED = 0.1  # a step share of collectives on the scale-out link's latency that predict and cheapest say
CROSS_DOMAIN_CAVEAT = ("measured between two ranks: a lower estimate (NCCL's own model puts 16 ranks on two nodes at 25-48 "
                       "us; engine.py's docstring)")


def cross_domain_collectives_s(hw: HardwareSpec, dep: Deployment, allreduce_s: float, all_to_all_s: float) -> float:
    """The step's collectives that pay the scale-out link's latency: the tp all-reduces where tp spans scale-up domains,
    the expert dispatch where the stage's devices do (HardwareSpec.cross_domain_latency_s); 0 inside one domain."""
    return (allreduce_s if hw.cross_domain_latency_s(dep.tp) else 0.0) + (
        all_to_all_s if hw.cross_domain_latency_s(dep.devices_per_stage) else 0.0)


def cross_domain_tp_note(hw: HardwareSpec, dep: Deployment, allreduce_s: float | None = None, step_s: float | None = None,
                         all_to_all_s: float = 0.0) -> str:
    """'tp 16 spans 2 scale-up domains: its all-reduces (6.33 ms of the 35.6 ms decode step) pay the scale-out link's latency
    (20 us), measured between two ranks: a lower estimate ...' where tp spans domains and, given the step's times, the
    collectives on that link (cross_domain_collectives_s: the dispatch's too, qa229) are over CROSS_DOMAIN_SHARE_NOTED
    of the step; '' else. Without times (a sweep's config) the share is not said."""
    from roofline.units import format_seconds

    latency_s = hw.cross_domain_latency_s(dep.tp)
    if not latency_s or (step_s is not None and (
            not allreduce_s or cross_domain_collectives_s(hw, dep, allreduce_s, all_to_all_s) <= CROSS_DOMAIN_SHARE_NOTED * step_s)):
        return ""
    share = f" ({format_seconds(allreduce_s)} of the {format_seconds(step_s)} decode step)" if step_s is not None else ""
    return (f"tp {dep.tp} spans {math.ceil(dep.tp / hw.scale_up_domain)} scale-up domains: its all-reduces{share} pay the "
            f"scale-out link's latency ({format_seconds(latency_s)}), {CROSS_DOMAIN_CAVEAT}")


def microbatches(batch, dep: Deployment):
    """m = min(B, pp): the micro-batches of a step, each of B / m sequences, following each other through the stages."""
    return np.minimum(np.asarray(batch, dtype=np.float64), dep.pp)


def host_time_s(engine: ServingEngine, batch, dep: Deployment):
    """m * host_per_step + host_per_sequence * B_a: each of the m = min(B, pp) micro-batches in flight is scheduled on
    its own (vLLM V1's batch queue of pp batches, EngineCore.step_with_batch_queue; SGLang's event_loop_pp, one
    get_next_batch_to_run a micro-batch), so the fixed part is paid once each; each attention-DP rank schedules its own
    sequences."""
    return microbatches(batch, dep) * engine.host_per_step_s + engine.host_per_sequence_s * sequences_per_group(batch, dep)


def microbatch_host_time_s(engine: ServingEngine, batch, dep: Deployment):
    """t_host_mb = host_per_step + host_per_sequence * ceil((B / m) / dp_attention): the host work of the busiest of the
    m = min(B, pp) micro-batches, whole sequences of its busiest attention group (qa292, qa293)."""
    b = np.asarray(batch, dtype=np.float64)
    return engine.host_per_step_s + engine.host_per_sequence_s * sequences_per_group(np.ceil(b / microbatches(b, dep)), dep)


def host_overlapped(engine: ServingEngine, batch, dep: Deployment):
    """Whether a step's host work is not simply added to its device time: at pp = 1 where the engine overlaps it
    (host_overlap); at pp > 1 where m = min(B, pp) >= 2 micro-batches are in flight, whatever the engine: each
    micro-batch's own host work then lies on its round trip (step_metrics' chain), the others' beside it. The engines
    schedule a micro-batch's next step only once its last one's tokens are back: vLLM's batch queue ("PP requires
    PP-size concurrent batches to fill the pipeline", config/vllm.py max_concurrent_batches; EngineCore.
    step_with_batch_queue schedules a new batch while the queue is not full, and a request's next step after
    update_from_output), SGLang's event_loop_pp (its overlap scheduler off under pp: each micro-batch's result is
    processed, then it is scheduled again), so at one micro-batch (B = 1) the host work adds, whatever host_overlap."""
    pp = dep.pp
    if pp == 1:
        return np.asarray(bool(engine.host_overlap))
    return microbatches(batch, dep) >= 2


def step_metrics(
    hw: HardwareSpec,
    model: ModelSpec,
    batch,
    q,
    context,
    dep: Deployment | None = None,
    *,
    engine: ServingEngine | None = None,
    logit_tokens=None,
    prefill: bool = False,
    shared_prefix=0,
    with_operators: bool = False,
) -> dict:
    """Time and utilisation of one forward pass of B sequences x q tokens on `context` cached tokens.

    `dep` defaults to one device at the model's native precision; `engine` to the ideal roofline.
    Returns arrays (broadcast over batch, q, context): step_time_s, operator_time_s (sum of operator
    times of the pass), allreduce_time_s, all_to_all_time_s, moe_gather_time_s, p2p_time_s, comm_time_s (their sum),
    overhead_s (fixed device overhead), host_time_s, host_overlapped (not simply added to the device's time),
    host_on_path_s (what it adds to the device's time), launch_time_s, launch_kernels and launch_bound (an eager
    pass's launches: module docstring), host_microbatch_s (under pp a micro-batch's own host work,
    t_host_mb; t_host at pp 1), flops, bytes (per device per step), path_bytes (streamed on
    the step's critical path: every stage's layers on a pp round trip, else bytes), path_memory_time_s (the part of that
    path's time its bytes set, bytes_set_time_s, at the memory ceilings the kernels reach: derated ceiling x eta_o),
    kv_read_bytes, arithmetic_intensity_flops_per_byte, mbu, mfu, compute_bound (compute-bound
    operators take most of the operator time), tokens, allreduce_count and allreduce_message_bytes (a pass's tp
    collectives of the busiest stage's layers and the bytes each), embedding_allreduce_message_bytes and
    lm_head_gather_message_bytes (0 where none). With `with_operators`, also `operators`:
    {name: {flops, bytes, time_s, compute_bound}} for one stage's pass over one micro-batch.
    """
    dep = dep or deployment(model)
    engine = engine or IDEAL
    b = np.asarray(batch, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    pp = dep.pp
    m_micro = microbatches(b, dep)  # m = min(B, pp)
    mb = b / m_micro
    costs = operator_costs(model, mb, q, context, dep, logit_tokens, prefill, shared_prefix,
                           engine.reads_prefix_once)
    ceilings = operator_ceilings(hw, dep, model, sequences_per_group(mb, dep), engine)
    p = engine.overlap_exponent if engine.overlap_exponent is not None else hw.overlap_exponent
    shape = next(iter(costs.values()))[0].shape
    tokens_a = sequences_per_group(mb, dep) * q
    logit_rows = tokens_a if logit_tokens is None else sequences_per_group(mb, dep) * np.asarray(logit_tokens, dtype=np.float64)
    # every group's, through the MLP's gathered buffer: padded to the busiest group's but in a prefill (qa152)
    logit_rows_gathered = gathered_tokens(mb, q if logit_tokens is None else logit_tokens, dep, padded=not prefill)
    rows = {"gemm": tokens_a, "lm_head": logit_rows}
    if dep.stage_split:  # a class split over the stage runs on every group's rows gathered (qa136: padded as one group's)
        rows_gathered = gathered_tokens(mb, q, dep, padded=not prefill)  # a prefill runs eagerly, unpadded
        gathered = {"mlp": rows_gathered, "shared_experts": rows_gathered, "lm_head": logit_rows_gathered}
        rows.update({name: r for name, r in gathered.items() if name in dep.stage_split})
    rows.update({name: sequence_split_tokens(tokens_a, dep) for name in dep.sequence_split})  # vLLM's sequence-parallel MoE
    pad = {name: _tile_padding(r, engine.gemm_tile_rows) for name, r in rows.items()}
    stage_layers = dep.stage_layers(model)[0]  # the busiest stage's layers
    total_flops, total_bytes, operators_s, head_s, head_bytes, compute_bound_s, at_peak_s = (np.zeros(shape) for _ in range(7))
    memory_s, head_memory_s = np.zeros(shape), np.zeros(shape)  # the bytes at the memory ceilings the kernels reach
    peaks = operator_peaks(hw, dep)
    operators = {}
    layer_kernels = head_kernels = 0.0  # the kernels of the busiest stage's layers and of the head, a pass
    for name, (flops, nbytes) in costs.items():
        time_s, effective_flops, ceiling_flops_per_s, memory_ceiling_bytes_per_s, latency_s, kernels = _operator_time_s(
            hw, model, dep, engine, name, flops, nbytes, ceilings[name], pad, p)
        if name in LAYER_OPERATORS:
            layer_kernels += kernels
        else:
            head_kernels += kernels
        is_compute = effective_flops / ceiling_flops_per_s > nbytes / memory_ceiling_bytes_per_s
        total_flops, total_bytes, operators_s = total_flops + flops, total_bytes + nbytes, operators_s + time_s
        op_memory_s = bytes_set_time_s(effective_flops / ceiling_flops_per_s, nbytes / memory_ceiling_bytes_per_s, time_s - latency_s, p)
        memory_s = memory_s + op_memory_s  # (qa337: half of every byte's time was not saved at batch 512; qa339: p = 1)
        if name not in LAYER_OPERATORS:
            head_s, head_bytes, head_memory_s = head_s + time_s, head_bytes + nbytes, head_memory_s + op_memory_s
        at_peak_s = at_peak_s + flops / peaks[name]
        compute_bound_s = compute_bound_s + np.where(is_compute, time_s, 0.0)
        if with_operators:
            operators[name] = {"flops": flops, "bytes": nbytes, "time_s": time_s, "compute_bound": is_compute,
                               "memory_ceiling_bytes_per_s": memory_ceiling_bytes_per_s,  # derated, x the engine's eta_o
                               # the device's own for the operator, before eta_o (a profile's operator_ceilings)
                               "device_memory_ceiling_bytes_per_s": ceilings[name][1],
                               "padded_flops": effective_flops,  # its rows padded to the tile: what it is bound by
                               "kernel_latency_s": latency_s}  # the engine's kernel latencies in time_s
    tokens = np.broadcast_to(b * q, shape)
    coll_kernels: dict = {}  # the collectives of a pass, each a kernel an eager host launches
    coll_messages: dict = {}  # the bytes of each tp all-reduce
    coll = collective_times_s(hw, model, dep, engine, np.broadcast_to(mb, shape), q, padded=not prefill, kernels=coll_kernels,
                              messages=coll_messages)
    # the LM head's gathers and the embedding's all-reduce, once a pass with them (qa136: every prompt token's logits,
    # and left out of a round trip's stage bodies)
    head_gather_s = np.broadcast_to(lm_head_gather_time_s(hw, model, dep, engine, logit_rows_gathered, logit_rows,
                                                          messages=coll_messages), shape)
    embed_reduce_s = np.broadcast_to(embedding_reduce_time_s(hw, model, dep, engine, tokens_a, messages=coll_messages), shape)
    head_comm_s = head_gather_s + embed_reduce_s
    head_key = "dp_gather_time_s" if "lm_head" in dep.stage_split else "allreduce_time_s"
    p2p_s = np.broadcast_to(p2p_time_s(hw, model, dep, engine, sequences_per_group(mb, dep) * q), shape)  # T_r
    layers_s = operators_s - head_s
    body_s = layers_s + sum(coll.values()) + stage_layers * hw.layer_overhead_s
    if pp > 1:  # the round trip: pp passes of the mean stage
        mean = dep.mean_stage()
        mean_costs = operator_costs(model, mb, q, context, mean, logit_tokens, prefill, shared_prefix, engine.reads_prefix_once)
        mean_ceilings = operator_ceilings(hw, mean, model, sequences_per_group(mb, mean), engine)
        mean_terms = [_operator_time_s(hw, model, mean, engine, name, flops, nbytes, mean_ceilings[name], pad, p)
                      for name, (flops, nbytes) in mean_costs.items() if name in LAYER_OPERATORS]
        mean_layers_s, mean_layer_kernels = sum(t[0] for t in mean_terms), sum(t[5] for t in mean_terms)
        layer_bytes = [nbytes for name, (_, nbytes) in mean_costs.items() if name in LAYER_OPERATORS]
        mean_layer_bytes = sum(layer_bytes)
        mean_layer_memory_s = sum(bytes_set_time_s(t[1] / t[2], nbytes / t[3], t[0] - t[4], p)
                                  for nbytes, t in zip(layer_bytes, mean_terms))
        mean_coll_kernels: dict = {}
        mean_coll = collective_times_s(hw, model, mean, engine, np.broadcast_to(mb, shape), q, padded=not prefill,
                                       kernels=mean_coll_kernels)
        mean_stage_layers = mean.stage_layers(model)[0]
    else:
        mean_layers_s, mean_coll, mean_stage_layers = layers_s, coll, stage_layers
        mean_layer_bytes, mean_layer_kernels, mean_coll_kernels = total_bytes - head_bytes, layer_kernels, coll_kernels
        mean_layer_memory_s = memory_s - head_memory_s
    mean_body_s = mean_layers_s + sum(mean_coll.values()) + mean_stage_layers * hw.layer_overhead_s
    round_trip_s, paced_s = pp * mean_body_s + head_s + head_comm_s, m_micro * (body_s + head_s + head_comm_s)
    # an eager pass: no faster than its host launches its kernels (launch_floor_s), a round trip's and a stage's alike
    trip_kernels = pp * (mean_layer_kernels + sum(mean_coll_kernels.values())) + head_kernels
    paced_kernels = m_micro * (layer_kernels + sum(coll_kernels.values()) + head_kernels)
    launch_trip_s, launch_paced_s = launch_floor_s(engine, trip_kernels, prefill), launch_floor_s(engine, paced_kernels, prefill)
    floored_trip, floored_paced = launch_trip_s > round_trip_s, launch_paced_s > paced_s
    round_trip_s, paced_s = np.maximum(round_trip_s, launch_trip_s), np.maximum(paced_s, launch_paced_s)
    round_trip = round_trip_s >= paced_s

    def per_step(busiest, mean_stage):
        """A stage quantity over a step: pp mean-stage passes on a round trip, m busiest-stage passes when paced."""
        return np.where(round_trip, pp * mean_stage, m_micro * busiest)

    overhead_s = hw.step_overhead_s + per_step(stage_layers, mean_stage_layers) * hw.layer_overhead_s
    device_s = np.maximum(round_trip_s, paced_s) + p2p_s + hw.step_overhead_s
    host_s = np.broadcast_to(host_time_s(engine, b, dep), shape)
    overlapped = np.broadcast_to(host_overlapped(engine, b, dep), shape)
    if pp > 1:  # a micro-batch's chain: its own host work, then its round trip; the stages and the host busy besides
        # a micro-batch's own host work: host_per_step + host_per_sequence x its busiest group's sequences, ceil((B / m) /
        # dp_attention) (qa292: B_a / m, half a sequence at B = 2 over pp 2 and dp 4, made batch 2 faster than batch 1)
        own_host_s = np.broadcast_to(microbatch_host_time_s(engine, b, dep), shape)  # the busiest micro-batch's
        chain_s = round_trip_s + own_host_s
        step_s = np.maximum(np.maximum(chain_s, paced_s) + p2p_s + hw.step_overhead_s, host_s)
        round_trip_sets_step = chain_s >= paced_s  # the term that sets the step, its own host work on the round trip (qa326)
        passes_set_step = np.maximum(chain_s, paced_s) + p2p_s + hw.step_overhead_s >= host_s  # not the host's whole work
    else:
        own_host_s = host_s  # one micro-batch: the whole
        round_trip_sets_step, passes_set_step = round_trip, True
    # the eager launches of the term that sets the step (qa324, qa326: under pp the chain with its own host work)
    launch_s = np.where(round_trip_sets_step, launch_trip_s, launch_paced_s)
    launch_bound = np.where(round_trip_sets_step, floored_trip, floored_paced) & passes_set_step
    launch_kernels = np.where(round_trip_sets_step, trip_kernels, paced_kernels)
    if pp == 1:
        # an eager pass's launches and the host's other work run on one CPU thread (Python's): overlapped, the host is
        # busy with both (qa324: SGLang PR 1401's eager step is about the two added). Under pp each stage's worker
        # launches its own kernels, apart from the scheduler's work: not one thread, the rule not applied
        host_busy_s = host_s + launch_s
        step_s = np.where(overlapped, np.maximum(device_s, host_busy_s), device_s + host_s)
        launch_bound = launch_bound | (overlapped & (launch_s > 0) & (host_busy_s > device_s))
    kv_read_bytes = costs["attention"][1] + costs["indexer"][1] - attention_activation_bytes(model, tokens_a, dep, prefill, stage_layers)
    device_flops, device_bytes = m_micro * total_flops, m_micro * total_bytes
    passes_with_head = np.where(round_trip, 1.0, m_micro)
    qk_norm = coll_messages.get("qk_norm") or (0.0, 0.0)  # (its all-reduces, their bytes each): collective_times_s
    out = {
        "step_time_s": step_s,
        "operator_time_s": per_step(layers_s, mean_layers_s) + np.where(round_trip, 1.0, m_micro) * head_s,
        **{name: per_step(coll[name], mean_coll[name]) for name in coll},
        "p2p_time_s": p2p_s,
        "comm_time_s": per_step(sum(coll.values()), sum(mean_coll.values())) + p2p_s + passes_with_head * head_comm_s,
        "overhead_s": np.broadcast_to(overhead_s, shape),
        "host_time_s": host_s,
        "host_overlapped": overlapped,
        # what host work adds to the device's time: all of it where added, what outlasts the device where overlapped;
        # under pp what a micro-batch's share (t_host_mb, on its round trip) or the host's busy time adds (qa245: the
        # share said to add where the paced stages hid it)
        "host_on_path_s": np.maximum(step_s - device_s, 0.0),
        "host_microbatch_s": own_host_s,  # a micro-batch's own host work, t_host_mb (t_host at pp 1)
        # an eager pass's host launches (0 in graphs): the step's, and whether they outlast the device's work
        "launch_time_s": np.broadcast_to(launch_s, shape),
        "launch_kernels": np.broadcast_to(launch_kernels, shape),  # graphs or not
        "launch_bound": np.broadcast_to(launch_bound, shape),
        "flops": device_flops,
        "bytes": device_bytes,
        # what the step streams on its critical path: every stage's layers on a round trip (pp mean stages), the busiest
        # device's m passes when paced (qa202: a pp 2 step's "bytes take" note gave one stage's, half the path's)
        "path_bytes": np.where(round_trip_sets_step, pp * mean_layer_bytes + head_bytes, device_bytes),
        # the part of that path's time its bytes set (bytes_set_time_s, at the memory ceilings the kernels reach: each
        # operator's derated ceiling x the engine's eta_o, a quantised MoE's or a weight-only GEMM's efficiency): about
        # twice what twice the bandwidth saves, where path_bytes / the derated bandwidth is every byte's time
        # (the path that sets the step: a micro-batch's round trip with its own host work, or the paced passes; qa341:
        # the device's longer path was taken where host work put the round trip over it)
        "path_memory_time_s": np.where(round_trip_sets_step, pp * mean_layer_memory_s + head_memory_s, m_micro * memory_s),
        # the group's own sequences' caches, each once: m passes of the busiest micro-batch's ceil(B_mb / dp) sequences
        # would count more than the group holds where the rounding adds some (qa251: 566 MB read of 425 MB held); the
        # step's time keeps the busiest micro-batch's, as the engines pad micro-batches alike
        # (a shared prefix is read once a pass, not a sequence: there m passes' reads, the rounding's sequences with them)
        "kv_read_bytes": np.where(np.asarray(shared_prefix) > 0, m_micro * kv_read_bytes,
                                  kv_read_bytes * sequences_per_group(b, dep) / sequences_per_group(mb, dep)),
        "arithmetic_intensity_flops_per_byte": total_flops / total_bytes,
        "mbu": device_bytes / step_s / hw.mem_bw_bytes_per_s,
        "mfu": m_micro * at_peak_s / step_s,
        "compute_bound": compute_bound_s > 0.5 * operators_s,
        "compute_bound_share": compute_bound_s / np.maximum(operators_s, 1e-30),
        "tokens": tokens,
        # the tp collectives a pass of the busiest stage runs, as a reader checks them by hand: the layers'
        # all-reduces (count, and bytes each: M = B_a q h a), the embedding's all-reduce and each device's share of
        # the LM head's logit gather (bytes; 0 where none)
        "allreduce_count": np.broadcast_to(float(coll_kernels.get("allreduce_time_s", 0.0)), shape),
        # vLLM's sequence-parallel MoE: ('reduce_scatter' (MLA: a MoE layer's all-reduce split in two, one latency
        # more) or 'all_gather' (its MoE output gathered, M (tp - 1) / tp more), its MoE layers), else None
        "sequence_parallel_moe": coll_messages.get("sequence_parallel_moe"),
        # a QK norm over all heads (model.qk_norm_all_heads): its all-reduces a pass and the bytes of each (0 where none)
        "qk_norm_allreduce_count": np.broadcast_to(float(qk_norm[0]), shape),
        "qk_norm_allreduce_message_bytes": np.broadcast_to(np.asarray(qk_norm[1], dtype=np.float64), shape),
        **{f"{key}_message_bytes": np.broadcast_to(np.asarray(coll_messages.get(name, 0.0), dtype=np.float64), shape)
           for key, name in (("allreduce", "allreduce_time_s"), ("embedding_allreduce", "embedding_allreduce"),
                             ("lm_head_gather", "lm_head_gather"))},
    }
    # the LM head's gathers: over the stage with the DP gathers, its logits over tp with the tensor-parallel ones; the
    # embedding's all-reduce with the tensor-parallel ones
    out[head_key] = out[head_key] + passes_with_head * head_gather_s
    out["allreduce_time_s"] = out["allreduce_time_s"] + passes_with_head * embed_reduce_s
    if with_operators:
        out["operators"] = operators
    return out


COMPUTE_BOUND_SEARCH_MAX_BATCH = 65_536  # compute_bound_batches looks no further
COMPUTE_BOUND_DENSE_TO = 4_096  # every batch to this one evaluated, then a grid of 64 an octave refined where it flips


def compute_bound_batches(hw: HardwareSpec, model: ModelSpec, context, dep: Deployment | None = None, **kw) -> dict:
    """Where the decode step (q = 1) at `context` is compute-bound (step_metrics' compute_bound: compute-bound
    operators take most of the operator time), to COMPUTE_BOUND_SEARCH_MAX_BATCH: every batch to
    COMPUTE_BOUND_DENSE_TO evaluated, and above it a grid of 64 batches an octave with every batch between two grid
    batches whose flags differ (near the crossing the flag can zigzag: tile padding, kernel latencies; qa304: a
    coarser search missed such islands; one wholly between two grid batches above 4,096, under 1.1% wide, is not seen):

        first_batch          the smallest compute-bound batch (None: none)
        memory_bound_again   the smallest memory-bound batch past it (None: none)
        from_batch           where the last run of compute-bound batches starts, to the search's end (None: it ends
                             memory-bound)
        runs                 every run of compute-bound batches, [first, last] (qa306: a 110-batch band past the first
                             run went unsaid)
        intensity_at_first_flops_per_byte   the step's arithmetic intensity at first_batch (None with it)
        compute_bound_operators_at_first    the operators compute-bound at first_batch, most of its operator time
                             (qa357: not always its GEMMs; MLA's attention at long context alone)
        intensity_at_end_flops_per_byte     the step's intensity at the search's last batch (at long contexts
                             attention's KV reads, which grow with the batch, can keep the step memory-bound at every
                             batch; so can memory-bound experts or norms of an MoE model)
        memory_bound_operators_at_end       where no batch is compute-bound: the operators memory-bound at the
                             search's last batch, [name, share of the operator time], the largest first (qa459: 'its
                             memory-bound operators' said no name, where GQA attention's KV reads held 70% of it)"""
    def flags(batches):
        m = step_metrics(hw, model, batches, 1, context, dep, **kw)
        return (np.broadcast_to(np.asarray(m["compute_bound"], dtype=bool), batches.shape),
                np.broadcast_to(np.asarray(m["arithmetic_intensity_flops_per_byte"], dtype=np.float64), batches.shape))

    octaves = np.log2(COMPUTE_BOUND_SEARCH_MAX_BATCH / COMPUTE_BOUND_DENSE_TO)
    grid = np.unique(np.round(COMPUTE_BOUND_DENSE_TO * 2.0 ** np.arange(1 / 64, octaves + 1e-9, 1 / 64)).astype(np.int64))
    batches = np.concatenate([np.arange(1, COMPUTE_BOUND_DENSE_TO + 1), grid])
    bound, intensity = flags(batches)
    flips = np.flatnonzero(bound[COMPUTE_BOUND_DENSE_TO - 1:-1] != bound[COMPUTE_BOUND_DENSE_TO:]) + COMPUTE_BOUND_DENSE_TO - 1
    gaps = [np.arange(batches[i] + 1, batches[i + 1]) for i in flips]
    if gaps:
        more = np.concatenate(gaps)
        more_bound, more_intensity = flags(more)
        order = np.argsort(np.concatenate([batches, more]), kind="stable")
        batches = np.concatenate([batches, more])[order]
        bound = np.concatenate([bound, more_bound])[order]
        intensity = np.concatenate([intensity, more_intensity])[order]
    out = {"first_batch": None, "memory_bound_again": None, "from_batch": None, "intensity_at_first_flops_per_byte": None,
           "compute_bound_operators_at_first": [], "intensity_at_end_flops_per_byte": float(intensity[-1]), "runs": []}
    if not bound.any():
        at_end = step_metrics(hw, model, int(batches[-1]), 1, context, dep, with_operators=True, **kw)["operators"]
        total_s = sum(float(op["time_s"]) for op in at_end.values())
        shares = [[name, float(op["time_s"]) / total_s] for name, op in at_end.items()
                  if not bool(np.asarray(op["compute_bound"])) and float(op["time_s"]) > 0] if total_s > 0 else []
        out["memory_bound_operators_at_end"] = sorted(shares, key=lambda x: -x[1])
        return out
    edges = np.diff(np.concatenate([[False], bound, [False]]).astype(np.int8))
    out["runs"] = [[int(batches[i]), int(batches[j - 1])] for i, j in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1))]
    first = int(np.argmax(bound))
    out["first_batch"], out["intensity_at_first_flops_per_byte"] = int(batches[first]), float(intensity[first])
    at_first = step_metrics(hw, model, int(batches[first]), 1, context, dep, with_operators=True, **kw)["operators"]
    out["compute_bound_operators_at_first"] = [name for name, op in at_first.items() if bool(np.asarray(op["compute_bound"]))]
    after = ~bound[first:]
    if after.any():
        out["memory_bound_again"] = int(batches[first + int(np.argmax(after))])
    if bound[-1]:
        memory = np.flatnonzero(~bound)
        out["from_batch"] = int(batches[memory[-1] + 1]) if len(memory) else 1
    return out


def step_time_s(hw: HardwareSpec, model: ModelSpec, batch, q, context, dep: Deployment | None = None, **kw):
    """Shorthand: step_metrics(...)['step_time_s']."""
    return step_metrics(hw, model, batch, q, context, dep, **kw)["step_time_s"]


def arrival_stall_s(hw: HardwareSpec, model: ModelSpec, prompt_len, running, dep: Deployment | None = None,
                    engine: ServingEngine | None = None, verify_tokens=1, shared_prefix=0):
    """The time one arriving request's prefill of `prompt_len` tokens adds to the decode of `running` sequences of
    `verify_tokens` each a pass (1 plain; k + 1 or a tree's nodes + 1 speculating):

        t_stall = t_prefill(P, c)                                           (a step of prefills apart: mixed_prefill false)
                = min(max(t_pass(B q + P - c) - t_pass(B q) - t_cross + t_prefill(P, c) - t_prefill(P - c, 0), 0),
                      t_prefill(P, c))                                      (its tokens in the decode's pass: mixed_prefill)
        t_cross = a(B q + P - c) - a(B q) - a_prefill(P - c)

    t_pass(n): a prefill-shaped pass of n tokens with B logits, one sequence; a(n) the time of its attention operators
    (attention, a lightning indexer; their kernel latencies aside: _attention_s), a_prefill(n) of the request's own
    prefill pass of n tokens: t_cross is the new tokens' attention to the B q decoding tokens' keys (B q (P - c) pairs,
    one direction: a causal pass's earlier tokens see none of the later), which one sequence of B q + P - c tokens
    prices and a mixed pass does not run (each sequence attends to its own cache; qa352: on DeepSeek-V3 under attention
    DP 8, B q = 2,048 beside P = 2,000, twice the prompt's own attention). t_prefill(P, c): the request's own pass (ttft_s), c the
    prompt's tokens the engine holds cached (cached_prefix_tokens of `shared_prefix`): the new tokens' attention to
    those c is t_prefill(P, c) - t_prefill(P - c, 0), added (qa349: left out, a loaded TTFT came below a lone one's). A serving benchmark's time per
    output token at B in flight is t_token + (B - 1) t_stall / O (each of the other B - 1 requests' prefills once over
    a request's O tokens: measurements.predict_rowset, api.predict's output_len)."""
    engine = engine or IDEAL
    dep = dep or deployment(model)
    own_s = ttft_s(hw, model, prompt_len, dep, engine, shared_prefix)
    if not engine.mixed_prefill:
        return own_s
    new = np.asarray(prompt_len, dtype=np.float64) - cached_prefix_tokens(engine, prompt_len, shared_prefix)
    to_cached_s = own_s - ttft_s(hw, model, new, dep, engine)  # the new tokens' attention to the cached ones (0 without)
    decoding = np.asarray(running, dtype=np.float64) * verify_tokens
    passes = [(tokens, logits, step_metrics(hw, model, 1, tokens, 0, dep, engine=engine, logit_tokens=logits, prefill=True,
                                            with_operators=dep.pp == 1))  # at pp 1 their operators give a(n) too
              for tokens, logits in ((decoding + new, running), (decoding, running), (new, 1))]
    (with_new_s, without_s, alone_s) = (_attention_s(hw, model, dep, engine, tokens, logits, None if dep.pp > 1 else metrics)
                                  for tokens, logits, metrics in passes)
    cross_s = with_new_s - without_s - alone_s
    return np.clip(passes[0][2]["step_time_s"] - passes[1][2]["step_time_s"] - cross_s + to_cached_s, 0.0, own_s)


ATTENTION_OPERATORS = ("attention", "indexer")  # the operators whose work grows with the pairs of tokens a pass attends


def _attention_s(hw: HardwareSpec, model: ModelSpec, dep: Deployment, engine: ServingEngine, tokens, logit_tokens,
                 metrics: dict | None = None):
    """a(n) of arrival_stall_s: the time of the attention operators (ATTENTION_OPERATORS) in a prefill-shaped pass of one
    sequence of `tokens`, their kernel latencies aside (a pass of any width launches them alike); at pp > 1 pp times the
    mean stage's, every layer of the round trip with its own attention (qa353: the busiest stage's, scaled, put
    gpt-oss's full-attention layers on every stage: +23% at pp 8). `metrics`: that pass's step_metrics with operators,
    where the caller has them at pp 1 (not computed twice)."""
    stage = dep.mean_stage() if dep.pp > 1 else dep
    ops = (metrics if metrics is not None else
           step_metrics(hw, model, 1, tokens, 0, stage, engine=engine, logit_tokens=logit_tokens, prefill=True,
                        with_operators=True))["operators"]
    time_s = sum(ops[name]["time_s"] - ops[name]["kernel_latency_s"] for name in ATTENTION_OPERATORS if name in ops)
    return dep.pp * time_s


def serving_terms(t_token_s, t_pass_s, t_stall_s, prefill_s, batch, output_len, cost_usd_per_million_tokens=None) -> dict:
    """What a serving benchmark with B = `batch` requests in flight, each of O = `output_len` tokens, reads of a point
    whose decode gives a token every t_token (the step; the iteration / tau speculating) in passes of t_pass (the step;
    the iteration), each arriving prompt's prefill stalling it t_stall (arrival_stall_s) and taking t_prefill alone
    (ttft_s); elementwise, so a sweep's arrays (grid.serving_columns) and predict's scalars (api._serving_terms) alike:

        time_per_output_token_s = t_token + (B - 1) t_stall / O      (the other B - 1 requests' prefills over O tokens)
        ttft_s                  = t_prefill at B = 1, else t_pass + t_stall      (its prefill mixed into, or between, the
                                                                                  others' decode)
        tokens_per_s            = B / (t_token + B t_arrive / O)     (each request's O tokens over its own decode and
                                                                      every request's prefill: Little's law)
        cost_usd_per_million_tokens = cost (t_token + B t_arrive / O) / t_token     (the rent over that device time;
                                                                                     with a decode cost given)
        t_arrive                = t_prefill at B = 1 (a lone request's prefill runs alone: no decode to stall; qa359:
                                  its stall beside one decoding sequence was priced), else t_stall"""
    t_token_s, batch = np.asarray(t_token_s, dtype=np.float64), np.asarray(batch, dtype=np.float64)
    arrive_s = np.where(batch <= 1, prefill_s, t_stall_s)  # the device time each request's own prefill takes
    busy_s = t_token_s + batch * arrive_s / output_len  # the device time a token takes, every prefill included
    out = {"time_per_output_token_s": t_token_s + (batch - 1.0) * t_stall_s / output_len,
           "ttft_s": np.where(batch <= 1, prefill_s, t_pass_s + t_stall_s), "tokens_per_s": batch / busy_s}
    if cost_usd_per_million_tokens is not None:
        out["cost_usd_per_million_tokens"] = cost_usd_per_million_tokens * busy_s / t_token_s
    return out


def cached_prefix_tokens(engine: ServingEngine | None, prompt_len, shared_prefix=0):
    """Tokens of a `prompt_len`-token prompt whose KV cache the engine holds before its prefill: the batch's shared
    prefix where the engine caches prefixes (`prefix_cached`), at most P - 1 (the last token is computed for its
    logits, as vLLM recomputes it on a full hit); 0 otherwise."""
    if engine is None or not engine.prefix_cached:
        return np.zeros(np.shape(prompt_len)) if np.ndim(prompt_len) else 0.0
    return np.minimum(np.asarray(shared_prefix, dtype=np.float64), np.asarray(prompt_len, dtype=np.float64) - 1.0).clip(0.0)


def ttft_s(hw: HardwareSpec, model: ModelSpec, prompt_len, dep: Deployment | None = None, engine: ServingEngine | None = None,
           shared_prefix=0):
    """Time to first token: one prefill pass of the `prompt_len` - c tokens of one sequence not cached, attending to
    the c that are (cached_prefix_tokens: a `shared_prefix` the engine holds; logits for the last token only; MLA in
    its non-absorbed prefill form)."""
    engine = engine or IDEAL  # as arrival_stall_s takes None (qa348: None cached nothing here, all there)
    cached = cached_prefix_tokens(engine, prompt_len, shared_prefix)
    return step_time_s(hw, model, 1, np.asarray(prompt_len, dtype=np.float64) - cached, cached, dep, engine=engine,
                       logit_tokens=1, prefill=True)
