"""FLOPs and bytes of every operator in one forward pass, per device.

The pass processes `batch` sequences (B) with `q` query tokens each on top of `context` tokens
already in the KV cache (S): q = 1 is a decode step, q = k + 1 a speculative verification, q = P a
prefill. T = B * q tokens go through every weight matrix. All arguments broadcast as numpy arrays.

Per operator (w = bytes per weight, a = 2 activation bytes, c = KV bytes per element, tp = tensor
parallel degree; weights, heads and FLOPs are split over tp, activations are replicated):

    weight GEMM (qkv_proj, o_proj, mlp, shared_experts, lm_head):
        flops = 2 * params * T / tp
        bytes = params * w / tp + T * (d_in + d_out) * a
    experts (routed, per MoE layer): unique experts touched by T tokens, uniform routing,
        touched = E * (1 - (1 - top_k / E) ** T)
        flops = 2 * top_k * expert_params * T / tp
        bytes = touched * expert_params * w / tp + T * 2 * hidden * top_k * a
    router: a GEMM of hidden x E
    attention (per layer group g, read_g(L) = KV entries one query reads at length L):
        flops = 2 * heads * (d_qk + d_v) * T * read_g(S + (q + 1) / 2) / tp
        bytes = B * read_g(S + q) * kv_elems_per_device * c        (each KV entry read once per pass)
                + T * hidden * a * 2                                 (queries in, attention output out)
    kv_write: bytes = T * kv_elems_per_device * c per layer
    norms (RMSNorm x2, residual adds x2, RoPE, activation): ELEMENTWISE_PASSES reads+writes of the
        residual stream per layer: bytes = T * hidden * a * ELEMENTWISE_PASSES, flops = 5 * same elems
    embedding: a gather, bytes = T * hidden * w
    lm_head: logits for `logit_tokens` tokens per sequence (q for decode/verify, 1 for prefill)

Deliberately ignored: biases, attention sinks, softmax exponent cost, MLA's compressor and indexer
FLOPs, KV re-reads inside a long prefill (flash attention reads KV once per query tile; counted once).
"""

from __future__ import annotations

import numpy as np

from roofline.model import BYTES_PER_ELEMENT, ModelSpec

ACTIVATION_BYTES = 2.0
ELEMENTWISE_PASSES = 8
OPERATORS = (
    "embedding", "qkv_proj", "attention", "kv_write", "o_proj", "mlp", "router", "experts",
    "shared_experts", "norms", "lm_head",
)
# Which operators run on the compute dtype of the weights (GEMMs) vs. the activations (bf16).
WEIGHT_GEMMS = ("qkv_proj", "o_proj", "mlp", "router", "experts", "shared_experts", "lm_head")


def unique_experts_touched(experts, top_k, tokens):
    """E * (1 - (1 - top_k/E)^N): expected distinct experts hit by N tokens under uniform routing."""
    experts = np.asarray(experts, dtype=np.float64)
    return experts * (1.0 - (1.0 - np.asarray(top_k, dtype=np.float64) / experts) ** np.asarray(tokens, dtype=np.float64))


def attention_flops(heads, d_qk, d_v, tokens, read_tokens):
    """2 * heads * (d_qk + d_v) * tokens * read_tokens: q.k scores and the weighted sum of values, per layer.

    `tokens` queries each attend over `read_tokens` KV entries (arrays broadcast); softmax is ignored.
    """
    return 2.0 * heads * (d_qk + d_v) * np.asarray(tokens, dtype=np.float64) * np.asarray(read_tokens, dtype=np.float64)


def weight_bytes(model: ModelSpec, weight_dtype: str = "bf16", tp: int = 1) -> float:
    """Bytes of all weights resident on one device (embedding + head + blocks, MTP excluded)."""
    return model.params * BYTES_PER_ELEMENT[weight_dtype] / tp


def kv_cache_bytes(model: ModelSpec, batch, context_len, kv_dtype: str = "bf16", tp: int = 1):
    """KV bytes held on one device for `batch` sequences of `context_len` tokens each."""
    per_seq = model.kv_cache_elements_per_sequence(context_len, tp) * BYTES_PER_ELEMENT[kv_dtype]
    return np.asarray(batch, dtype=np.float64) * per_seq


def operator_costs(
    model: ModelSpec,
    batch,
    q,
    context,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    tp: int = 1,
    logit_tokens=None,
    layers_scale: float = 1.0,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Map operator name -> (flops, bytes) on one device for one forward pass (see module docstring).

    `logit_tokens`: tokens per sequence that need logits (default q). `layers_scale` multiplies the
    per-layer operators (an MTP or EAGLE draft block is one layer of the same shapes: use 1/layers).
    """
    b = np.asarray(batch, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    s = np.asarray(context, dtype=np.float64)
    tokens = b * q
    w = BYTES_PER_ELEMENT[weight_dtype]
    c = BYTES_PER_ELEMENT[kv_dtype]
    a = ACTIVATION_BYTES
    h = float(model.hidden_size)
    n_layers = model.layers * layers_scale
    logits = tokens if logit_tokens is None else b * np.asarray(logit_tokens, dtype=np.float64)

    def gemm(params: float, d_in: float, d_out: float, n_tokens=tokens, count: float = 1.0):
        flops = 2.0 * params * n_tokens / tp * count
        nbytes = (params * w / tp + n_tokens * (d_in + d_out) * a) * count
        return flops, nbytes

    zero = np.zeros(np.broadcast(b, q, s).shape)
    costs: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    costs["embedding"] = (zero, tokens * h * w + zero)
    qkv_out = model.qkv_params_per_layer / h
    costs["qkv_proj"] = gemm(model.qkv_params_per_layer, h, qkv_out, count=n_layers)
    costs["o_proj"] = gemm(model.o_params_per_layer, model.o_params_per_layer / h, h, count=n_layers)

    # attention: per layer group, KV entries read per query at the mean causal position
    d_qk, d_v = model.attention_dims_per_query_head
    kv_elems = model.kv_elements_per_token_per_layer_per_device(tp)
    attn_flops, attn_bytes, write_bytes = zero.copy(), zero.copy(), zero.copy()
    for g in model.groups:
        layers = g.layers * layers_scale
        mean_len = s + (q + 1.0) / 2.0
        attn_flops = attn_flops + layers * attention_flops(model.heads, d_qk, d_v, tokens, model.read_tokens(g, mean_len)) / tp
        attn_bytes = attn_bytes + layers * b * model.read_tokens(g, s + q) * kv_elems * c
        write_bytes = write_bytes + layers * tokens * kv_elems * c
    costs["attention"] = (attn_flops, attn_bytes + tokens * h * a * 2 * n_layers)
    costs["kv_write"] = (zero, write_bytes)

    dense_layers = model.dense_layers * layers_scale if model.moe else n_layers
    ffn = model.ffn_size
    costs["mlp"] = gemm(model.dense_mlp_params, h, (2 if model.ffn_gated else 1) * ffn, count=dense_layers)
    if model.moe is not None:
        moe = model.moe
        moe_layers = model.moe_layers * layers_scale
        costs["router"] = gemm(model.router_params, h, moe.experts, count=moe_layers)
        touched = unique_experts_touched(moe.experts, moe.top_k, tokens)
        expert_flops = 2.0 * moe.top_k * model.expert_params * tokens / tp * moe_layers
        expert_bytes = (touched * model.expert_params * w / tp + tokens * 2.0 * h * moe.top_k * a) * moe_layers
        costs["experts"] = (expert_flops, expert_bytes)
        if moe.shared_experts:
            shared_ffn = moe.shared_experts * (moe.shared_expert_ffn_size or moe.expert_ffn_size)
            costs["shared_experts"] = gemm(model.shared_expert_params, h, 2 * shared_ffn, count=moe_layers)
        else:
            costs["shared_experts"] = (zero, zero)
    else:
        costs["router"] = (zero, zero)
        costs["experts"] = (zero, zero)
        costs["shared_experts"] = (zero, zero)

    elementwise = tokens * h * ELEMENTWISE_PASSES * n_layers
    costs["norms"] = (5.0 * elementwise, elementwise * a)
    costs["lm_head"] = gemm(model.lm_head_params, h, model.vocab_size, n_tokens=logits)
    return {name: (np.broadcast_to(f, zero.shape), np.broadcast_to(by, zero.shape)) for name, (f, by) in costs.items()}
