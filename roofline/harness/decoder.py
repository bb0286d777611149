"""A small Llama-style decoder in PyTorch, built from a model profile, for the real runs.

RMSNorm, rotary position embedding (RoPE), grouped-query attention (GQA), SwiGLU MLP; random
weights. The style follows gpt-fast: flat, plain tensors, steps named as verbs (`prefill`,
`decode_one_token`, `verify`, `decode_n_tokens`).

The KV cache is preallocated, [layers, batch, kv_heads, max_len, head_dim] for K and for V, and a
forward pass writes its q new entries at explicit per-sequence positions `input_pos` (shape [B]:
sequence b writes positions input_pos[b] .. input_pos[b] + q - 1). Every sequence has its own
position, so a batch can be ragged; a query attends to the keys at positions <= its own (a mask),
and the pass reads the cache only up to the longest sequence. Rolling a sequence back is setting
its position to what it kept: entries past it are dead and get overwritten.

One forward pass does, per layer: RMSNorm, one fused QKV GEMM, RoPE on q and k, the KV write,
attention over the cache, the output GEMM, RMSNorm, one fused gate+up GEMM, SiLU * up, the down
GEMM; then the final RMSNorm and the LM head. These are the operators `roofline.costs` counts.

Random initialisation keeps greedy decoding well defined: the embedding dominates the residual
stream (block outputs are scaled by residual_scale / sqrt(2 * layers)) and the LM head is scaled so
logits have a standard deviation of about `logit_std`, which separates the top two logits. A
layer-truncated copy (`truncate`) therefore agrees with the full model often but not always: a
natural drafter (the first 2 of validation-small's 16 layers agree on about 60% of tokens).

Only dense GQA (or MHA) models with full attention and a gated MLP are supported; other profiles
raise RooflineError.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from roofline.errors import RooflineError
from roofline.model import AttentionGroup, ModelSpec, model_from_dict

ROPE_THETA = 10000.0
NORM_EPS = 1e-5


@dataclass
class Layer:
    """Weights of one transformer block (linear weights stored [out, in], as F.linear and `linear` take them)."""

    attn_norm: torch.Tensor  # [hidden]
    wqkv: torch.Tensor       # [(heads + 2 * kv_heads) * head_dim, hidden]
    wo: torch.Tensor         # [hidden, heads * head_dim]
    mlp_norm: torch.Tensor   # [hidden]
    w13: torch.Tensor        # [2 * ffn, hidden]: gate and up, fused
    w2: torch.Tensor         # [hidden, ffn]


@dataclass
class Decoder:
    """A whole model: the spec it was built from and its weights."""

    spec: ModelSpec
    embedding: torch.Tensor  # [vocab, hidden]
    layers: list[Layer]
    norm: torch.Tensor       # [hidden]
    lm_head: torch.Tensor    # [vocab, hidden] (the embedding itself when tied)

    @property
    def dtype(self) -> torch.dtype:
        return self.embedding.dtype

    @property
    def device(self) -> torch.device:
        return self.embedding.device

    def weight_bytes(self) -> int:
        """Bytes of all distinct weight tensors (a tied head counted once)."""
        seen, total = set(), 0
        tensors = [self.embedding, self.norm, self.lm_head]
        for layer in self.layers:
            tensors += [layer.attn_norm, layer.wqkv, layer.wo, layer.mlp_norm, layer.w13, layer.w2]
        for t in tensors:
            if t.data_ptr() not in seen:
                seen.add(t.data_ptr())
                total += t.numel() * t.element_size()
        return total


@dataclass
class KVCache:
    """Preallocated K and V, [layers, batch, kv_heads, max_len, head_dim] each."""

    k: torch.Tensor
    v: torch.Tensor

    @property
    def max_len(self) -> int:
        return self.k.shape[3]

    @property
    def batch(self) -> int:
        return self.k.shape[1]

    def first(self, batch: int) -> "KVCache":
        """A view on the first `batch` sequences (no copy)."""
        return KVCache(self.k[:, :batch], self.v[:, :batch])

    def clone(self) -> "KVCache":
        return KVCache(self.k.clone(), self.v.clone())


def check_supported(spec: ModelSpec) -> None:
    """Raise RooflineError unless the profile is a dense GQA decoder with full attention and a gated MLP."""
    problems = []
    if spec.moe is not None:
        problems.append("MoE layers")
    if spec.kv_layout != "gqa":
        problems.append(f"kv_layout {spec.kv_layout}")
    if any(g.kind != "full" or g.read_tokens for g in spec.groups):
        problems.append("non-full attention groups")
    if not spec.ffn_gated:
        problems.append("a non-gated MLP")
    if spec.mtp_modules:
        problems.append("MTP modules")
    if spec.heads % spec.kv_heads:
        problems.append(f"heads={spec.heads} not a multiple of kv_heads={spec.kv_heads}")
    if spec.head_dim % 2:
        problems.append(f"odd head_dim={spec.head_dim} (RoPE rotates pairs)")
    if problems:
        raise RooflineError(
            f"model {spec.name!r}: the PyTorch decoder supports dense GQA models with full attention and a gated MLP; "
            f"found {', '.join(problems)}"
        )


def tiny_spec(layers: int) -> ModelSpec:
    """A decoder of `layers` layers at tiny width (hidden 64, 4 heads on 1 KV head, vocabulary 256): its passes are
    dispatch only, so timing them measures what a pass costs besides its bytes and FLOPs (calibrate's overheads,
    specloop's loop costs)."""
    return model_from_dict({"name": f"tiny-{layers}", "layers": layers, "hidden_size": 64, "heads": 4, "kv_heads": 1,
                            "head_dim": 16, "ffn_size": 176, "vocab_size": 256})


def build_decoder(spec: ModelSpec, dtype: torch.dtype = torch.bfloat16, device: str | torch.device = "cpu",
                  seed: int = 0, logit_std: float = 8.0, residual_scale: float = 0.5) -> Decoder:
    """Random weights in the shapes of `spec` (see the module docstring for the scales)."""
    check_supported(spec)
    device = torch.device(device)
    gen = torch.Generator(device=device).manual_seed(seed)
    h, hd, heads, kvh, ffn = spec.hidden_size, spec.head_dim, spec.heads, spec.kv_heads, spec.ffn_size
    block_scale = residual_scale / math.sqrt(2.0 * spec.layers)

    def random(rows: int, cols: int, std: float) -> torch.Tensor:
        """Uniform with standard deviation `std` (filled in place: fast, and sums of many look Gaussian)."""
        bound = std * math.sqrt(3.0)
        return torch.empty(rows, cols, device=device, dtype=dtype).uniform_(-bound, bound, generator=gen)

    def ones() -> torch.Tensor:
        return torch.ones(h, device=device, dtype=dtype)

    layers = [
        Layer(
            attn_norm=ones(),
            wqkv=random((heads + 2 * kvh) * hd, h, 1.0 / math.sqrt(h)),
            wo=random(h, heads * hd, block_scale / math.sqrt(heads * hd)),
            mlp_norm=ones(),
            w13=random(2 * ffn, h, 1.0 / math.sqrt(h)),
            w2=random(h, ffn, block_scale / math.sqrt(ffn)),
        )
        for _ in range(spec.layers)
    ]
    embedding = random(spec.vocab_size, h, 1.0)
    lm_head = embedding if spec.tied_embeddings else random(spec.vocab_size, h, logit_std / math.sqrt(h))
    return Decoder(spec=spec, embedding=embedding, layers=layers, norm=ones(), lm_head=lm_head)


def first_layers_spec(spec: ModelSpec, layers: int) -> ModelSpec:
    """The profile of the first `layers` blocks of `spec` (same shapes, embedding and LM head), renamed."""
    if not 1 <= layers <= spec.layers:
        raise RooflineError(f"{spec.name} layers: expected 1..{spec.layers}, found {layers}")
    return dataclasses.replace(
        spec, name=f"{spec.name}-first{layers}", display_name=f"{spec.display_name} (first {layers} layers)",
        layers=layers, groups=(AttentionGroup(kind="full", layers=layers),), published_params=None,
    )


def truncate(model: Decoder, layers: int) -> Decoder:
    """A drafter: the first `layers` blocks of `model` with its embedding, final norm and LM head (shared tensors)."""
    spec = first_layers_spec(model.spec, layers)
    return Decoder(spec=spec, embedding=model.embedding, layers=model.layers[:layers], norm=model.norm, lm_head=model.lm_head)


def new_kv_cache(model: Decoder, batch: int, max_len: int) -> KVCache:
    """Zeroed K and V buffers for `batch` sequences of up to `max_len` tokens."""
    s = model.spec
    shape = (s.layers, batch, s.kv_heads, max_len, s.head_dim)
    return KVCache(torch.zeros(shape, dtype=model.dtype, device=model.device),
                   torch.zeros(shape, dtype=model.dtype, device=model.device))


def fill_kv_cache_random(cache: KVCache, length: int, seed: int = 0) -> None:
    """Random K and V in positions [0, length) of every sequence: a stand-in for a prompt of that length.

    A decode step costs the same whatever the cached values are, so timing at context S does not
    need an S-token prefill.
    """
    gen = torch.Generator(device=cache.k.device).manual_seed(seed)
    bound = math.sqrt(3.0)  # uniform with unit variance
    for buf in (cache.k, cache.v):
        for layer in buf:
            layer[:, :, :length].uniform_(-bound, bound, generator=gen)


def linear(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """x @ weight.T for weight [out, in].

    On a CPU computed as (weight @ x.T).T: the weight is the GEMM's left operand, as GPU engines lay out
    small-M GEMMs ("swap-AB"), so the few token rows of a decode or verify pass are the narrow dimension.
    Same product as F.linear. On a 2-core AVX2 CPU (PyTorch 2.13, MKL, fp32, the validation model's block
    shapes, 1.1 GB of weights) F.linear took 2.0-3.9x a 1-row pass at 2-16 rows, this form 0.9-2.4x
    (docs/VALIDATION.md).

    On a GPU, F.linear: cuBLAS picks the operand order itself, and the CPU form's transposed result
    costs a copy kernel per GEMM wherever a pass has more than one row (65 in a pass of validation-small),
    which an eager, launch-bound pass pays in dispatch: on an H200 a batch-4 decode step of
    validation-small took 0.6-0.85 ms (6-9%) more than a batch-1 step (docs/VALIDATION.md, GPU)."""
    if x.is_cuda:
        return F.linear(x, weight)
    rows = x.reshape(-1, x.shape[-1])
    return torch.mm(weight, rows.t()).t().contiguous().view(*x.shape[:-1], weight.shape[0])


def rms_norm(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """x / sqrt(mean(x^2) + eps) * weight (PyTorch's fused kernel, accumulating in float32)."""
    return F.rms_norm(x, (x.shape[-1],), weight, NORM_EPS)


def rope_tables(positions: torch.Tensor, head_dim: int, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """RoPE multipliers for positions [B, q]: (cos, sign * sin), each [B, q, 1, head_dim] in `dtype`.

    Angle i of a head is position * theta^(-2i/head_dim); the two halves of the head vector rotate
    as a pair: (x1, x2) -> (x1 cos - x2 sin, x2 cos + x1 sin).
    """
    freqs = ROPE_THETA ** (-torch.arange(0, head_dim, 2, device=positions.device, dtype=torch.float32) / head_dim)
    angles = positions.float()[..., None, None] * freqs
    cos, sin = angles.cos(), angles.sin()
    return torch.cat((cos, cos), -1).to(dtype), torch.cat((-sin, sin), -1).to(dtype)


def apply_rope(x: torch.Tensor, cos: torch.Tensor, signed_sin: torch.Tensor) -> torch.Tensor:
    """Rotate each head vector of x [B, q, heads, head_dim] by its position's angles."""
    half = x.shape[-1] // 2
    swapped = torch.cat((x[..., half:], x[..., :half]), dim=-1)
    return x * cos + swapped * signed_sin


def folded_mask(allowed: torch.Tensor, group: int) -> torch.Tensor:
    """The mask `attention` takes: allowed [B, qn, L] bool (key position <= query position) repeated for the
    `group` query heads that share a KV head, as attention folds them onto the query axis: [B, 1, group * qn, L].
    Built once a pass, not once a layer (for qn > 1 the fold is a copy)."""
    b, qn, length = allowed.shape
    return allowed[:, None, None].expand(b, 1, group, qn, length).reshape(b, 1, group * qn, length)


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Grouped-query attention over the cache, each KV entry read once per pass.

    q: [B, qn, heads, hd]; k, v: [B, kv_heads, L, hd] (strided views into the cache); mask: folded_mask's
    [B, 1, group * qn, L]. The `group = heads / kv_heads` query heads that share a KV head are folded onto
    the query axis ([B, kv_heads, group * qn, hd]), so PyTorch's fused scaled_dot_product_attention sees
    plain multi-head attention with more queries per head (no K/V repeat). Returns [B, qn, heads * hd].
    """
    b, qn, heads, hd = q.shape
    kvh = k.shape[1]
    group = heads // kvh
    qg = q.view(b, qn, kvh, group, hd).permute(0, 2, 3, 1, 4).reshape(b, kvh, group * qn, hd)
    out = F.scaled_dot_product_attention(qg, k, v, attn_mask=mask)
    return out.view(b, kvh, group, qn, hd).permute(0, 3, 1, 2, 4).reshape(b, qn, heads * hd)


class CudaGraphs:
    """Forward passes replayed from CUDA graphs, as serving engines run their decode and verify passes.

    Inside `with cuda_graphs(length)`, `forward` on a CUDA device captures a graph the first time it meets a (model,
    cache, token shape, length) and replays it after: the pass's tokens and positions are copied into the graph's
    static inputs (two small copies), its logits come back in the graph's static output (valid until that graph is
    replayed again). A graph has fixed shapes, so a pass reads the cache up to a fixed `length` (the call's own, else
    the context's bound) rather than up to its longest sequence; the mask keeps each query to its own past as before.
    Captured passes cost their kernels on the device and one launch on the host: the host's eager dispatch of every
    operator, which sets an eager pass on a GPU, is gone.
    """

    def __init__(self, length: int | None):
        self.length = length
        self.graphs: dict = {}

    def forward(self, model: Decoder, cache: KVCache, tokens: torch.Tensor, input_pos: torch.Tensor,
                length: int | None) -> torch.Tensor:
        length = length or self.length or cache.max_len
        key = (id(model), cache.k.data_ptr(), tuple(cache.k.shape), tuple(tokens.shape), length)
        if key not in self.graphs:
            self.graphs[key] = self._capture(model, cache, tokens, input_pos, length)
        graph, static_tokens, static_pos, logits = self.graphs[key]
        static_tokens.copy_(tokens)
        static_pos.copy_(input_pos)
        graph.replay()
        return logits

    @staticmethod
    def _capture(model, cache, tokens, input_pos, length):
        static_tokens, static_pos = tokens.clone(), input_pos.clone()
        side = torch.cuda.Stream(tokens.device)  # warm-up off the capturing stream, as torch.cuda.graph asks
        side.wait_stream(torch.cuda.current_stream(tokens.device))
        with torch.cuda.stream(side):
            for _ in range(2):
                _forward(model, cache, static_tokens, static_pos, length)
        torch.cuda.current_stream(tokens.device).wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            logits = _forward(model, cache, static_tokens, static_pos, length)
        return graph, static_tokens, static_pos, logits


_GRAPHS: list[CudaGraphs] = []  # the active `cuda_graphs` context, innermost last


@contextlib.contextmanager
def cuda_graphs(length: int | None = None, enabled: bool = True):
    """Within, every `forward` on a CUDA device replays a CUDA graph (CudaGraphs); `length` bounds the cache a pass
    reads where the call gives none (default: the cache's whole length). With `enabled` False, a no-op (eager passes).
    The graphs and their memory go when the block ends."""
    if not enabled:
        yield None
        return
    pool = CudaGraphs(length)
    _GRAPHS.append(pool)
    try:
        yield pool
    finally:
        _GRAPHS.remove(pool)
        pool.graphs.clear()


def forward(model: Decoder, cache: KVCache, tokens: torch.Tensor, input_pos: torch.Tensor,
            length: int | None = None) -> torch.Tensor:
    """One forward pass: tokens [B, q] at positions input_pos[b] + (0..q-1); returns logits [B, q, vocab] (model dtype).

    Writes the q new K/V entries of every layer into the cache at those positions and reads the
    cache up to the longest sequence (or up to `length`, which must reach it: no host sync to find it), masking each
    query to its own sequence's past. Inside `cuda_graphs`, on a CUDA device, a replayed CUDA graph (CudaGraphs).
    """
    if _GRAPHS and tokens.is_cuda:
        return _GRAPHS[-1].forward(model, cache, tokens, input_pos, length)
    return _forward(model, cache, tokens, input_pos, length)


def _forward(model: Decoder, cache: KVCache, tokens: torch.Tensor, input_pos: torch.Tensor, length: int | None) -> torch.Tensor:
    """forward's eager pass."""
    s = model.spec
    b, qn = tokens.shape
    if length is None:
        length = int(input_pos.max()) + qn
    if length > cache.max_len:
        raise RooflineError(f"KV cache: a sequence would reach {length} tokens, the cache holds {cache.max_len}")
    positions = input_pos[:, None] + torch.arange(qn, device=tokens.device)                    # [B, q]
    allowed = torch.arange(length, device=tokens.device)[None, None, :] <= positions[..., None]  # [B, q, L]
    mask = folded_mask(allowed, s.heads // s.kv_heads)
    rows = torch.arange(b, device=tokens.device)[:, None]
    cos, signed_sin = rope_tables(positions, s.head_dim, model.dtype)
    q_dim, kv_dim = s.heads * s.head_dim, s.kv_heads * s.head_dim
    x = F.embedding(tokens, model.embedding)
    for i, layer in enumerate(model.layers):
        qkv = linear(rms_norm(x, layer.attn_norm), layer.wqkv)
        qk = apply_rope(qkv[..., : q_dim + kv_dim].view(b, qn, s.heads + s.kv_heads, s.head_dim), cos, signed_sin)
        cache.k[i][rows, :, positions] = qk[:, :, s.heads:]
        cache.v[i][rows, :, positions] = qkv[..., q_dim + kv_dim:].view(b, qn, s.kv_heads, s.head_dim)
        out = attention(qk[:, :, : s.heads], cache.k[i][:, :, :length], cache.v[i][:, :, :length], mask)
        x = x + linear(out, layer.wo)
        gate, up = linear(rms_norm(x, layer.mlp_norm), layer.w13).chunk(2, dim=-1)
        x = x + linear(F.silu(gate) * up, layer.w2)
    return linear(rms_norm(x, model.norm), model.lm_head)


def greedy(logits: torch.Tensor) -> torch.Tensor:
    """The most likely token along the last axis (in float32: PyTorch's bf16 argmax is 2x slower on CPU)."""
    return logits.float().argmax(-1)


def prefill(model: Decoder, cache: KVCache, prompt: torch.Tensor) -> torch.Tensor:
    """Run prompts [B, P] from position 0; returns the greedy next token [B]."""
    start = torch.zeros(prompt.shape[0], dtype=torch.long, device=prompt.device)
    return greedy(forward(model, cache, prompt, start)[:, -1])


def decode_one_token(model: Decoder, cache: KVCache, tokens: torch.Tensor, input_pos: torch.Tensor,
                     length: int | None = None) -> torch.Tensor:
    """One decode step: tokens [B] at positions input_pos [B]; returns the greedy next token [B] (`length`: forward's)."""
    return greedy(forward(model, cache, tokens[:, None], input_pos, length)[:, 0])


def verify(model: Decoder, cache: KVCache, tokens: torch.Tensor, input_pos: torch.Tensor, length: int | None = None) -> torch.Tensor:
    """One pass over q = k + 1 tokens per sequence [B, q]; returns the greedy token after each [B, q] (`length`: forward's)."""
    return greedy(forward(model, cache, tokens, input_pos, length))


def decode_n_tokens(model: Decoder, cache: KVCache, cur_token: torch.Tensor, input_pos: torch.Tensor, n: int) -> torch.Tensor:
    """Plain greedy decoding: n steps from cur_token [B] (not yet cached) at input_pos [B]; returns [B, n]."""
    out = []
    pos = input_pos.clone()
    for _ in range(n):
        cur_token = decode_one_token(model, cache, cur_token, pos)
        out.append(cur_token)
        pos += 1
    return torch.stack(out, dim=1)

