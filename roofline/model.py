"""A decoder-only transformer as the roofline model sees it: shapes, parameter counts, KV-cache size.

Read from a model profile (docs/PROFILES.md). Parameter counts are computed from the architecture
(and tested against published figures), never copied:

    embedding       = vocab * hidden                       (+ the same again for an untied LM head)
    attention/layer = gqa:  hidden*heads*hd + 2*hidden*kv_heads*hd + heads*hd*hidden
                      shared_kv: hidden*heads*hd + hidden*kv_heads*hd + heads*hd*hidden
                      (optional low rank: q = hidden*q_lora + q_lora*heads*hd;
                       o = heads*hd*o_lora + o_groups*o_lora*hidden)
                      mla:  hidden*q_lora + q_lora*heads*(nope+rope)   (or hidden*heads*(nope+rope))
                            + hidden*(kv_lora+rope) + kv_lora*heads*(nope+v) + heads*v*hidden
    mlp/layer       = (3 if gated else 2) * hidden * ffn
    moe/layer       = experts*3*hidden*expert_ffn + shared*3*hidden*shared_ffn + hidden*experts (router)
    norms           = 2*hidden per layer + hidden (final)
    active          = the same with top_k routed experts in place of all of them

KV cache elements per cached token per layer: gqa 2*kv_heads*hd (K and V), shared_kv kv_heads*hd,
mla kv_lora + rope (one latent, replicated on every tensor-parallel rank). Sliding-window layers
store min(S, window) tokens; compressed layers store ceil(S/ratio) + min(S, window).
Biases, attention sinks and fp8's and int8's per-block or per-channel scales are ignored (< 0.1% of bytes); the group
scales of the 4-bit formats are counted in their bytes an element (BYTES_PER_ELEMENT: int4's 16-bit scale a group of
128, fp4's 8-bit one a group of 32, nvfp4's a group of 16: 3.0%, 5.9% and 11.1% of their bytes), as are a KV entry's
where a profile gives its bytes (kv_entry_bytes).
"""

from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from roofline.errors import MISSING, RooflineError, check_choice, check_flag, field_error, field_line, prose, unknown_key_error
from roofline.hardware import check_file_name, spec_where
from roofline.profiles import find_profile, normalize_dtype, read_yaml

# Bytes per stored element by dtype. int4/fp4/nvfp4 include their group scales: int4 with one fp16 scale
# per 128 weights (0.5 + 2/128); fp4 is MXFP4 (OCP microscaling: one E8M0 scale per 32 weights, 0.5 + 1/32);
# nvfp4 is NVIDIA's NVFP4 (one FP8 E4M3 scale per 16 weights, 0.5 + 1/16, and one FP32 scale per tensor, which
# rounds to nothing: NVIDIA, "Introducing NVFP4 for Efficient and Accurate Low-Precision Inference", June 2025;
# modal.com/llm-almanac/block-quants). Both compute on fp4 tensor cores where the device has them.
# int8 computes in int8 where the device can (W8A8); w8a16 is int8 weights, dequantised to bf16 (weight-only,
# per-channel scales: GPTQ 8-bit, gpt-fast's int8).
BYTES_PER_ELEMENT = {
    "fp32": 4.0, "tf32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "w8a16": 1.0,
    "int4": 0.5 + 2.0 / 128, "fp4": 0.5 + 1.0 / 32, "nvfp4": 0.5 + 1.0 / 16,
}
KV_DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8")
WEIGHT_DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8", "w8a16", "int4", "fp4", "nvfp4")
GROUP_KINDS = ("full", "sliding", "compressed")
MAX_COUNT = 10**9  # any count in a profile (layers, sizes, experts, windows) is at most this
# Weight classes that may carry their own precision (layout.py maps operators onto them).
WEIGHT_CLASSES = ("attention", "mlp", "experts", "shared_experts", "router", "embedding", "lm_head", "mtp")


@dataclass(frozen=True)
class AttentionGroup:
    """Layers sharing one attention pattern."""

    kind: str          # full | sliding | compressed
    layers: int
    window: int = 0    # sliding: tokens kept; compressed: uncompressed recent tokens kept too
    ratio: int = 1     # compressed: tokens per stored entry
    read_tokens: int = 0  # sparse attention: at most this many compressed entries read per query (0: all)
    # a lightning indexer (sparse attention picks its read_tokens entries by it): one index key of index_dim values
    # stored per indexed entry, whole on every rank, and scored by every query over index_heads heads (0: none)
    index_dim: int = 0
    index_heads: int = 0
    # bytes one layer holds per sequence whatever its length (a compressor's running state: DeepSeek-V4's fp32
    # kv_state and score_state, inference/model.py Compressor), whole on every rank
    state_bytes: int = 0


@dataclass(frozen=True)
class MLASpec:
    q_lora_rank: int
    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int


@dataclass(frozen=True)
class MoESpec:
    experts: int
    top_k: int
    expert_ffn_size: int
    shared_experts: int = 0
    shared_expert_ffn_size: int = 0
    dense_layers: int = 0
    dense_placement: str = "interleaved"  # where the dense layers sit: "leading" (DeepSeek's first_k_dense_replace) or
    #   "interleaved" among the MoE layers (Llama 4's interleave_moe_layer_step); what a pipeline stage holds of each
    groups: int = 1            # group-limited routing (DeepSeek-V3's n_group): experts in `groups` equal contiguous groups,
    groups_per_token: int = 1  # each token's top_k drawn from the experts of `groups_per_token` of them (topk_group)
    sequence_parallel: bool = True  # the engines' MoE block for it has a sequence-parallel path (vLLM: not Mixtral's)

    @property
    def grouped(self) -> bool:
        """Whether routing is group-limited: a token's experts come from fewer than all groups."""
        return self.groups_per_token < self.groups

    @property
    def shared_ffn_width(self) -> int:
        """Intermediate width of the shared experts together: shared_experts x their size (a routed expert's where
        the profile gives none, as Llama 4's)."""
        return self.shared_experts * (self.shared_expert_ffn_size or self.expert_ffn_size)


@dataclass(frozen=True)
class ModelSpec:
    name: str
    display_name: str
    layers: int
    hidden_size: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn_size: int
    ffn_gated: bool
    vocab_size: int
    tied_embeddings: bool
    kv_layout: str = "gqa"
    groups: tuple[AttentionGroup, ...] = ()
    layer_groups: tuple[int, ...] = ()  # the group (an index into groups) of each layer, first to last; (): not given,
    #   each group's layers taken as spread evenly (group_layers_between): only a pipeline stage's share depends on it
    mla: MLASpec | None = None
    q_lora_rank: int = 0     # gqa/shared_kv: low-rank query projection hidden -> r -> heads*hd (0: full rank)
    o_lora_rank: int = 0     # gqa/shared_kv: grouped low-rank output, heads*hd -> o_groups*r -> hidden (0: full)
    o_groups: int = 1
    moe: MoESpec | None = None
    mtp_modules: int = 0
    mtp_window: int = 0      # tokens the MTP block's attention keeps (a sliding window; 0: full attention)
    max_context_tokens: int = 0  # the longest sequence its positions were trained for, as vLLM derives it from
    #   config.json (hfimport._trained_context; 0: not given): a longer context is priced, and warned (context_note)
    qk_norm_all_heads: bool = False  # its q and k RMS-normed over all heads together (MiniMax-M2's qk_norm_type
    #   per_layer), not per head: split over tp, a layer all-reduces the norm's sums of squares (engine.collective_times_s)
    tokenizer: str = ""      # the tokenizer family ('llama-2', 'mistral-v1', ...; '': not given): a draft model must share
    #   its target's (speculation.drafter_warnings), which equal vocabulary sizes do not show (Llama 2 and Mixtral: 32,000 each)
    kv_entry_bytes: tuple = ()   # (kv dtype, bytes of one token's KV entry in one layer) where a layout is not elements
                                 # x the dtype's width (DeepSeek-V4's fp8: 448 fp8 + 64 bf16 RoPE + 8 B of scales = 584)
    index_key_bytes: tuple = ()  # (kv dtype, bytes of one indexer key) likewise (DeepSeek-V4's fp8: 128 + a 4 B scale)
    input_projection: bool = False  # a drafter's 2h -> h projection of (hidden state, token embedding) before its
    #   layer: EAGLE's fc, MTP's eh_proj (speculation.drafter_spec sets it; costs' input_proj operator)
    medusa_head: bool = False  # one Medusa head (speculation.drafter_spec): no layers, no embedding, no KV cache; its
    #   h -> h residual block is the input projection (h x h, not 2h x h) and its own LM head the model's
    published_params: float | None = None
    published_active_params: float | None = None
    native_precision: tuple[tuple[str, str], ...] = ()   # (weight class, dtype) of the released checkpoint
    quant_block: int = 0     # the checkpoint's block scales cover quant_block x quant_block weights (DeepSeek's fp8:
    #   128) in the classes at its default dtype: a tensor-parallel shard must hold whole blocks (layout.shard_note)
    source: str = ""
    notes: str = ""
    path: str = ""  # the profile file it was loaded from ('' for a spec built otherwise: models import, a test)

    # ---- parameter counts (per component, whole model, unsharded) ----
    @property
    def attention_params_per_layer(self) -> int:
        h, hd = self.hidden_size, self.head_dim
        if self.kv_layout == "mla":
            m = self.mla
            qk = m.qk_nope_head_dim + m.qk_rope_head_dim
            q = h * m.q_lora_rank + m.q_lora_rank * self.heads * qk if m.q_lora_rank else h * self.heads * qk
            kv = h * (m.kv_lora_rank + m.qk_rope_head_dim) + m.kv_lora_rank * self.heads * (m.qk_nope_head_dim + m.v_head_dim)
            return q + kv + self.heads * m.v_head_dim * h
        kv_mats = 1 if self.kv_layout == "shared_kv" else 2
        r = self.q_lora_rank
        q = h * r + r * self.heads * hd if r else h * self.heads * hd
        return q + kv_mats * h * self.kv_heads * hd + self.o_params_per_layer

    @property
    def qkv_params_per_layer(self) -> int:
        """Input projections of attention (everything but the output projection)."""
        return self.attention_params_per_layer - self.o_params_per_layer

    def qkv_params_per_layer_per_device(self, tp: int) -> float:
        """Of qkv_params_per_layer, what one of `tp` tensor-parallel ranks holds (vLLM's and SGLang's layers):
        MLA: the down-projections hidden -> q_lora + kv_lora + rope whole (q_a and kv_a, one
             `fused_qkv_a_proj = MergedReplicatedLinear(...)` in deepseek_v2.py; kv_a alone without q_lora), the rest a
             1/tp share;
        gqa / shared_kv: the query projection a 1/tp share but for a low-rank query's down-projection hidden ->
             q_lora_rank, whole (DeepSeek-V4's `wq_a = ReplicatedLinear(hidden_size, q_lora_rank)` in SGLang), and
             max(kv_heads / tp, 1) KV heads' key and value projections (QKVParallelLinear gives each rank one KV
             head, replicated, once tp > kv_heads; V4's single shared KV head is a ReplicatedLinear `wkv`).
        """
        h = self.hidden_size
        if self.kv_layout == "mla":
            m = self.mla
            whole = h * (m.q_lora_rank + m.kv_lora_rank + m.qk_rope_head_dim)
            return (self.qkv_params_per_layer - whole) / tp + whole
        kv = (1 if self.kv_layout == "shared_kv" else 2) * h * self.kv_heads * self.head_dim
        q_down = h * self.q_lora_rank  # 0 for a full-rank query
        return (self.qkv_params_per_layer - kv - q_down) / tp + q_down + kv * max(1.0 / tp, 1.0 / self.kv_heads)

    @property
    def o_params_per_layer(self) -> int:
        if self.o_lora_rank:
            return self.attention_output_width * self.o_lora_rank + self.o_groups * self.o_lora_rank * self.hidden_size
        return self.attention_output_width * self.hidden_size

    @property
    def mla_up_params_per_layer(self) -> int:
        """MLA's up-projection from the latent (kv_b_proj: kv_lora_rank -> heads x (qk_nope + v_head)), which decode
        absorbs into its query and output (W_UK, W_UV); 0 for another attention."""
        if self.kv_layout != "mla":
            return 0
        m = self.mla
        return m.kv_lora_rank * self.heads * (m.qk_nope_head_dim + m.v_head_dim)

    def group_layers_between(self, start: int, count: int) -> tuple[float, ...]:
        """Layers of each attention group among the `count` layers from layer `start` (a pipeline stage's): counted in
        layer_groups where the profile gives the order (gpt-oss alternates sliding and full from a sliding layer 0; a
        stage of an odd count holds one more of one kind), else each group's share, g.layers * count / layers."""
        if self.layer_groups:
            stage = self.layer_groups[start:start + count]
            return tuple(float(stage.count(i)) for i in range(len(self.groups)))
        return tuple(g.layers * count / self.layers if self.layers else 0.0 for g in self.groups)

    @property
    def attention_output_width(self) -> int:
        """heads * v_dim: the attention output o_proj reads (MLA's v_head_dim, else head_dim)."""
        return self.heads * (self.mla.v_head_dim if self.kv_layout == "mla" else self.head_dim)

    @property
    def dense_mlp_params(self) -> int:
        return (3 if self.ffn_gated else 2) * self.hidden_size * self.ffn_size

    @property
    def expert_params(self) -> int:
        """One routed expert (gated MLP)."""
        return 3 * self.hidden_size * self.moe.expert_ffn_size

    @property
    def shared_expert_params(self) -> int:
        return 3 * self.hidden_size * self.moe.shared_ffn_width

    @property
    def router_params(self) -> int:
        return self.hidden_size * self.moe.experts

    @property
    def moe_layers(self) -> int:
        return 0 if self.moe is None else self.layers - self.moe.dense_layers

    @property
    def dense_layers(self) -> int:
        return self.layers - self.moe_layers

    @property
    def embedding_params(self) -> int:
        return self.vocab_size * self.hidden_size

    @property
    def lm_head_params(self) -> int:
        """The LM head's weights (read every step even when tied to the embedding)."""
        return self.vocab_size * self.hidden_size

    @property
    def norm_params(self) -> int:
        return 2 * self.hidden_size * self.layers + self.hidden_size

    def block_params(self, moe_layer: bool, active: bool) -> int:
        """One transformer block: attention + (dense MLP | MoE) + 2 norms."""
        ffn = self.dense_mlp_params
        if moe_layer:
            routed = self.moe.top_k if active else self.moe.experts
            ffn = routed * self.expert_params + self.shared_expert_params + self.router_params
        return self.attention_params_per_layer + ffn + 2 * self.hidden_size

    @property
    def input_projection_params(self) -> int:
        """A drafter's 2h -> h input projection (input_projection), a Medusa head's h -> h residual block (medusa_head),
        0 for any other model."""
        if not self.input_projection:
            return 0
        return (1 if self.medusa_head else 2) * self.hidden_size * self.hidden_size

    @property
    def mtp_params(self) -> int:
        """DeepSeek-style MTP modules: one block + a 2h->h projection + 2 norms each; embedding and head shared."""
        if not self.mtp_modules:
            return 0
        h = self.hidden_size
        return self.mtp_modules * (self.block_params(self.moe is not None, active=False) + 2 * h * h + 2 * h)

    def _params(self, active: bool) -> int:
        embed = self.embedding_params + (0 if self.tied_embeddings else self.lm_head_params)
        blocks = self.dense_layers * self.block_params(False, active)
        if self.moe_layers:
            blocks += self.moe_layers * self.block_params(True, active)
        return embed + blocks + self.hidden_size

    def params_by_class(self) -> dict[str, int]:
        """Resident parameters per weight class (MTP modules under 'mtp'); sums to params + mtp_params.

        Norms count with attention; a tied LM head is the embedding (stored once, under 'embedding'); the
        router (an MoE layer's gate) is a class of its own, kept 16-bit by quantised checkpoints. A drafter's input projection is not a class's: it is replicated on every
        tensor-parallel rank (speculation.drafter_weight_bytes).
        """
        moe = self.moe
        out = dict.fromkeys(WEIGHT_CLASSES, 0)
        out["attention"] = self.layers * (self.attention_params_per_layer + 2 * self.hidden_size) + self.hidden_size
        out["mlp"] = self.dense_layers * self.dense_mlp_params
        if moe is not None:
            out["experts"] = self.moe_layers * moe.experts * self.expert_params
            out["shared_experts"] = self.moe_layers * self.shared_expert_params
            out["router"] = self.moe_layers * self.router_params
        out["embedding"] = self.embedding_params
        out["lm_head"] = 0 if self.tied_embeddings else self.lm_head_params
        out["mtp"] = self.mtp_params
        return out

    @property
    def params(self) -> int:
        """Total parameters of the main model (MTP modules excluded, as publishers count them)."""
        return self._params(active=False)

    @property
    def active_params(self) -> int:
        """Parameters one token uses: top_k routed experts instead of all of them."""
        return self._params(active=True)

    # ---- KV cache ----
    @property
    def kv_elements_per_token_per_layer(self) -> int:
        if self.kv_layout == "mla":
            return self.mla.kv_lora_rank + self.mla.qk_rope_head_dim
        return (1 if self.kv_layout == "shared_kv" else 2) * self.kv_heads * self.head_dim

    def kv_elements_per_token_per_layer_per_device(self, tp: int) -> float:
        """Under tensor parallelism KV heads are split (at least one per rank); an MLA latent is replicated."""
        if self.kv_layout == "mla":
            return float(self.kv_elements_per_token_per_layer)
        per_head = self.kv_elements_per_token_per_layer / self.kv_heads
        return per_head * -(-self.kv_heads // tp)

    def kv_bytes_per_element(self, kv_dtype: str | float) -> float:
        """Bytes one KV element takes in `kv_dtype`: the profile's `kv_entry_bytes` over an entry's elements where it
        gives them for that dtype (scales, a RoPE part kept in bf16), else the dtype's width. A number is taken as the
        bytes an element takes (the form these methods took before kv_entry_bytes)."""
        if isinstance(kv_dtype, (int, float)) and not isinstance(kv_dtype, bool):
            return float(kv_dtype)
        if kv_dtype not in BYTES_PER_ELEMENT:
            raise RooflineError(f"kv_dtype: expected one of {', '.join(KV_DTYPES)} (or bytes per element), found {kv_dtype!r}")
        given = dict(self.kv_entry_bytes).get(kv_dtype)
        return given / self.kv_elements_per_token_per_layer if given else BYTES_PER_ELEMENT[kv_dtype]

    def index_bytes_per_element(self, group: AttentionGroup, kv_dtype: str | float) -> float:
        """Bytes one element of `group`'s indexer keys takes in `kv_dtype` (`index_key_bytes`, else the dtype's width)."""
        if isinstance(kv_dtype, (int, float)) and not isinstance(kv_dtype, bool):
            return float(kv_dtype)
        given = dict(self.index_key_bytes).get(kv_dtype)
        return given / group.index_dim if given and group.index_dim else BYTES_PER_ELEMENT[kv_dtype]

    def kv_bytes_per_token(self, kv_dtype: str = "bf16") -> float:
        """Nominal KV bytes per token per sequence: every layer storing every token (no window, no compression)."""
        return self.layers * self.kv_elements_per_token_per_layer * self.kv_bytes_per_element(kv_dtype)

    def kv_bytes_per_token_at(self, context_len: int, kv_dtype: str = "bf16") -> float:
        """Effective KV bytes per token of a sequence of `context_len` tokens (windows and compression applied)."""
        return float(self.kv_cache_bytes_per_sequence(context_len, kv_dtype)) / context_len

    def stored_tokens(self, group: AttentionGroup, context_len):
        """KV entries one layer of `group` holds for a sequence of `context_len` tokens (array-friendly)."""
        s = np.asarray(context_len, dtype=np.float64)
        if group.kind == "sliding":
            return np.minimum(s, group.window)
        if group.kind == "compressed":
            return np.ceil(s / group.ratio) + np.minimum(s, group.window)
        return s

    def entries_read(self, group: AttentionGroup, context_len, queries=1.0):
        """KV entries one layer of `group` reads at context `context_len` for `queries` query tokens of one sequence.
        Dense attention reads every entry once whatever the queries; sparse attention (read_tokens) picks its entries
        per query, so q queries read up to q * read_tokens of them, never more than are stored (a verify pass of
        DeepSeek-V4 at 128k reads 4 x 512 compressed entries a CSA layer for q = 4, not 512). A window of W read by a
        pass of q queries spans W + q - 1 entries: the W - 1 before its first query's position and the q the pass writes,
        each query reading its own and those before it in the window (a chain's q positions; a tree's nodes share
        positions but each is an entry of its own, which a deeper node's window reaches, so a tree of 60 nodes reads
        W + 60 too: qa413, where qa412's W + depth counted positions, not entries). Counted as W before (qa410: 0.1% of
        gpt-oss-120b's attention bytes at q = 9 and 8k, 3% of DeepSeek-V4's 128-token window reads at q = 5)."""
        s = np.asarray(context_len, dtype=np.float64)
        q = np.asarray(queries, dtype=np.float64)
        picked = q * group.read_tokens
        span = group.window + np.maximum(q, 1.0) - 1.0  # (a window of 0: no sliding part)
        if group.kind == "compressed":
            compressed = np.ceil(s / group.ratio)
            if group.read_tokens:
                compressed = np.minimum(compressed, picked)
            return compressed + np.minimum(s, np.where(group.window > 0, span, 0.0))
        stored = np.minimum(s, span) if group.kind == "sliding" else self.stored_tokens(group, s)
        return np.minimum(stored, picked) if group.read_tokens else stored

    def mean_entries_read(self, group: AttentionGroup, context_len, queries):
        """read_g(S, q) of costs.operator_costs' attention FLOPs: the mean over the q query tokens of one sequence, at
        positions S + 1 ... S + q (S = `context_len`, the tokens before them), of the entries one layer of `group`
        reads for each (entries_read at its position, one query). Each capped piece, min(u / r, C) (a window, a sparse
        pick of read_tokens, a compressed layer's picks), is averaged over u uniform in [S + 1/2, S + q + 1/2], its kink
        split out (_mean_capped), not taken at the mean position: min(mean, W) exceeds the mean of min(u, W) where
        the queries straddle the window (qa352: a sliding layer's prefill FLOPs 14-23% high at P = 2W). At q = 1,
        entries_read at S + 1 itself."""
        s = np.asarray(context_len, dtype=np.float64)
        q = np.asarray(queries, dtype=np.float64)
        a, b = s + 0.5, s + q + 0.5
        if group.kind == "compressed":
            picks = (_mean_capped(a, b, group.read_tokens, 1.0 / group.ratio) if group.read_tokens
                     else np.ceil((s + (q + 1.0) / 2.0) / group.ratio))  # linear: at the mean position
            spread = picks + _mean_capped(a, b, group.window)
        else:
            cap = min(group.window if group.kind == "sliding" else np.inf, group.read_tokens or np.inf)
            spread = _mean_capped(a, b, cap) if np.isfinite(cap) else (a + b) / 2.0  # uncapped: the mean position
        return np.where(q <= 1.0, self.entries_read(group, s + 1.0), spread)

    def indexed_entries(self, group: AttentionGroup, context_len):
        """Entries one layer's lightning indexer holds an index key for, and every query scores, at `context_len`:
        the compressed entries of a compressed group (the recent window is read whole), every stored token of
        another group; 0 without an indexer."""
        s = np.asarray(context_len, dtype=np.float64)
        if not group.index_dim:
            return np.zeros_like(s)
        return np.ceil(s / group.ratio) if group.kind == "compressed" else self.stored_tokens(group, s)

    def cache_elements_per_layer(self, group: AttentionGroup, context_len, tp: int = 1):
        """Cache elements one layer of `group` holds for a sequence of `context_len` tokens, per device: its KV
        entries (split over tp as kv_elements_per_token_per_layer_per_device) and its indexer's keys (whole on every rank)."""
        return (self.stored_tokens(group, context_len) * self.kv_elements_per_token_per_layer_per_device(tp)
                + self.indexed_entries(group, context_len) * group.index_dim)

    def kv_cache_elements_per_sequence(self, context_len, tp: int = 1):
        """KV elements one sequence of `context_len` tokens holds, per device, summed over layers (indexer keys included)."""
        return sum(g.layers * self.cache_elements_per_layer(g, context_len, tp) for g in self.groups)

    def cache_bytes_per_layer(self, group: AttentionGroup, context_len, tp: int, kv_dtype: str):
        """Cache bytes one layer of `group` holds for a sequence of `context_len` tokens, per device: its KV entries
        and its indexer's keys (cache_elements_per_layer), each at its bytes per element in `kv_dtype`, and its fixed
        state_bytes."""
        kv = self.stored_tokens(group, context_len) * self.kv_elements_per_token_per_layer_per_device(tp)
        keys = self.indexed_entries(group, context_len) * group.index_dim
        return (kv * self.kv_bytes_per_element(kv_dtype) + keys * self.index_bytes_per_element(group, kv_dtype)
                + group.state_bytes)

    def kv_cache_bytes_per_sequence(self, context_len, kv_dtype: str = "bf16", tp: int = 1):
        """KV cache bytes one sequence of `context_len` tokens holds, per device, summed over layers."""
        return sum(g.layers * self.cache_bytes_per_layer(g, context_len, tp, kv_dtype) for g in self.groups)

    def attention_dims_per_query_head(self, prefill: bool = False) -> tuple[int, int]:
        """(dims of q.k, dims of the value) per head as attention computes them.

        MLA decode and verification use the absorbed form (q.k over the kv_lora + rope latent, values
        in the kv_lora latent); MLA prefill the non-absorbed form (nope + rope per head, v_head_dim),
        as vLLM's and SGLang's MLA backends and FlashMLA do.
        """
        if self.kv_layout == "mla":
            m = self.mla
            if prefill:
                return m.qk_nope_head_dim + m.qk_rope_head_dim, m.v_head_dim
            return m.kv_lora_rank + m.qk_rope_head_dim, m.kv_lora_rank
        return self.head_dim, self.head_dim

    def to_json(self) -> dict:
        """The `roofline models show --json` object (KV bytes in bf16 and fp8; nominal: every layer keeps every token)."""
        return {
            "name": self.name,
            "display_name": self.display_name,
            "params": self.params,
            "active_params": self.active_params,
            "mtp_params": self.mtp_params,
            "kv_bytes_per_token_nominal": self.kv_bytes_per_token("bf16"),
            "kv_bytes_per_token_at_4k": self.kv_bytes_per_token_at(4096, "bf16"),
            "kv_bytes_per_token_at_128k": self.kv_bytes_per_token_at(131072, "bf16"),
            "kv_bytes_per_token_at_128k_fp8": self.kv_bytes_per_token_at(131072, "fp8"),
            "kv_entry_bytes": dict(self.kv_entry_bytes) or None,
            "index_key_bytes": dict(self.index_key_bytes) or None,
            "kv_layout": self.kv_layout,
            "mla": None if self.mla is None else self.mla.__dict__,
            "q_lora_rank": self.q_lora_rank,
            "o_lora_rank": self.o_lora_rank,
            "o_groups": self.o_groups,
            "ffn_gated": self.ffn_gated,
            "tied_embeddings": self.tied_embeddings,
            "qk_norm_all_heads": self.qk_norm_all_heads,
            "native_precision": dict(self.native_precision) or dict.fromkeys(WEIGHT_CLASSES, "bf16"),
            "quant_block": self.quant_block or None,
            "params_by_class": self.params_by_class(),
            "weight_bytes_as_released": self.weight_bytes_as_released,
            "layers": self.layers,
            "hidden_size": self.hidden_size,
            "heads": self.heads,
            "kv_heads": self.kv_heads,
            "head_dim": self.head_dim,
            "ffn_size": self.ffn_size,
            "vocab_size": self.vocab_size,
            "attention_groups": [g.__dict__ for g in self.groups],
            "layer_groups": list(self.layer_groups) or None,
            "moe": None if self.moe is None else self.moe.__dict__,
            "mtp_modules": self.mtp_modules,
            "mtp_window": self.mtp_window,
            "max_context_tokens": self.max_context_tokens or None,
            "tokenizer": self.tokenizer or None,
            "published_params": self.published_params,
            "published_active_params": self.published_active_params,
            "source": self.source,
            "notes": self.notes,
        }

    @property
    def weight_bytes_as_released(self) -> float:
        """Bytes of every weight (MTP modules included) in the checkpoint's own dtypes (bf16 where it names none)."""
        dtypes = dict(self.native_precision)
        return float(sum(n * BYTES_PER_ELEMENT[dtypes.get(cls, "bf16")] for cls, n in self.params_by_class().items()))


_INT_FIELDS = ("layers", "hidden_size", "heads", "kv_heads", "head_dim", "ffn_size", "vocab_size")
_KNOWN = set(_INT_FIELDS) | {
    "type", "name", "display_name", "source", "notes", "ffn_gated", "tied_embeddings", "qk_norm_all_heads", "attention",
    "moe", "mtp_modules", "mtp_window", "max_context_tokens", "tokenizer", "published_params", "published_active_params", "precision",
}


def _precision(where: str, value: object) -> tuple[tuple[str, str], ...]:
    """`precision: {default: fp8, embedding: bf16, ..., source: "..."}` -> ((class, dtype), ...) for every class."""
    if value is None:
        return ()
    raw = _mapping(where, "precision", value, {*WEIGHT_CLASSES, "default", "source", "block"})
    given = {key: normalize_dtype(raw[key], WEIGHT_DTYPES, where, f"precision.{key}")  # any spelling: FP8, bfloat16
             for key in ("default", *WEIGHT_CLASSES) if key in raw}
    if not isinstance(raw.get("source"), str) or not raw["source"].strip():
        raise field_error(where, "precision.source", "a non-empty string saying where the checkpoint's dtypes come from",
                          raw.get("source", MISSING))
    default = given.get("default", "bf16")
    return tuple((cls, given.get(cls, default)) for cls in WEIGHT_CLASSES)


def _entry_bytes(where: str, key: str, value: object, groups: list | None) -> tuple[tuple[str, int], ...]:
    """`kv_entry_bytes: {fp8: 584}` / `index_key_bytes: {fp8: 132}` -> ((kv dtype, bytes), ...); in a profile, index
    keys need an indexer (a group's index_dim); `groups` None (a spec changed in Python, its groups replaced) skips
    that: bytes of keys no group holds are never read."""
    if value is None:
        return ()
    if not isinstance(value, dict) or not value:
        raise field_error(where, key, "a mapping of KV dtype to bytes, e.g. {fp8: 584}", value)
    if key.endswith("index_key_bytes") and groups is not None and not any(g.index_dim for g in groups):
        raise field_error(where, key, "an attention group with an indexer (index_dim) for index keys to take bytes", value)
    out = []
    for dtype, n in value.items():
        name = normalize_dtype(dtype, KV_DTYPES, where, f"{key} key")
        out.append((name, _positive_int(where, f"{key}.{name}", n)))
    return tuple(out)


def _quant_block(where: str, value: object) -> int:
    """`precision.block: 128`: the side of the checkpoint's square block scales (0 where not given)."""
    if not isinstance(value, dict) or value.get("block") is None:
        return 0
    return _positive_int(where, "precision.block", value["block"])


def _positive_int(where: str, key: str, value: object, allow_zero: bool = False) -> int:
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool) and (value >= 0 if allow_zero else value > 0)
    if not ok:
        whole = isinstance(value, float) and value.is_integer() and value > 0 and value <= MAX_COUNT  # 1e5 read as 100000.0
        raise field_error(where, key, ("a non-negative integer" if allow_zero else "a positive integer")
                          + (f" written in digits (write {int(value)}: a count takes no exponent or decimal point)"
                             if whole else ""), value)  # (qa340: 'found 100000.0' of a whole number)
    if value > MAX_COUNT:
        raise field_error(where, key, f"an integer at most {MAX_COUNT:,}", value)
    return value



def _or_zero(value: object) -> object:
    """An optional count as its field holds it: null (not given) is 0."""
    return 0 if value is None else value


def _text(where: str, key: str, value: object) -> str:
    if not isinstance(value, str):
        raise field_error(where, key, "a string", value)
    return value


def _tokenizer(where: str, value: object) -> str:
    """A tokenizer family as compared (lower case, stripped: 'Llama-2' is 'llama-2'); '' where not given (null)."""
    if value is None:
        return ""
    if not isinstance(value, str) or not value.strip():
        raise field_error(where, "tokenizer", "a tokenizer family like 'llama-3' (text), or null", value)
    return value.strip().lower()


def _mapping(where: str, key: str, value: object, allowed: set[str]) -> dict:
    if not isinstance(value, dict):
        raise field_error(where, key, "a mapping", value)
    for k in value:
        if k not in allowed:
            raise unknown_key_error(where, k, allowed, prefix=f"{key}.")
    return value


def _weight_dtype(where: str, key: str, value: object) -> str:
    if not isinstance(value, str) or value not in WEIGHT_DTYPES:
        raise field_error(where, key, " | ".join(WEIGHT_DTYPES), value)
    return value


def _shape(where: str, values: dict[str, object]) -> dict[str, int]:
    """The required counts (layers, hidden_size, heads, ...), with KV heads grouping the query heads evenly."""
    ints = {k: _positive_int(where, k, values[k]) for k in _INT_FIELDS}
    if ints["kv_heads"] > ints["heads"]:
        raise field_error(where, "kv_heads", f"at most heads={ints['heads']}", ints["kv_heads"])
    if ints["heads"] % ints["kv_heads"]:
        raise field_error(where, "kv_heads", f"a divisor of heads={ints['heads']} (each KV head serves a whole group of query heads)", ints["kv_heads"])
    return ints


def _kv_layout(where: str, key: str, value: object) -> str:
    return check_choice(where, key, value, ("gqa", "shared_kv", "mla"))


def _low_rank(where: str, prefix: str, kv_layout: object, q_lora_rank: object, o_lora_rank: object, o_groups: object) -> dict[str, int]:
    """Low-rank query / grouped output projections of GQA and shared-KV attention (MLA has its own ranks)."""
    out = {"q_lora_rank": _positive_int(where, f"{prefix}q_lora_rank", q_lora_rank, allow_zero=True),
           "o_lora_rank": _positive_int(where, f"{prefix}o_lora_rank", o_lora_rank, allow_zero=True),
           "o_groups": _positive_int(where, f"{prefix}o_groups", o_groups)}
    if kv_layout == "mla" and (out["q_lora_rank"] or out["o_lora_rank"]):
        raise field_error(where, f"{prefix}q_lora_rank", "no top-level low-rank fields with kv_layout mla (use attention.mla)", "both")
    return out


def _group(where: str, key: str, kind: object, layers: object, window: object, ratio: object, read_tokens: object,
           index_dim: object = 0, index_heads: object = 0, state_bytes: object = 0) -> AttentionGroup:
    """One layer group: a known kind; a sliding group's window above 0; a compressed group's ratio at least 2; an
    indexer (index_dim and index_heads, both or neither) only where sparse attention picks entries (read_tokens)."""
    if kind == "sliding" and window is None:  # qa141: said as 'found 0', a value nobody wrote
        raise RooflineError(f"{where}: {key}.window: expected a positive integer (a sliding group's window, in tokens), "
                            "found none")
    if kind not in GROUP_KINDS:
        raise field_error(where, f"{key}.kind", " | ".join(GROUP_KINDS), kind)
    group = AttentionGroup(
        kind=kind,
        layers=_positive_int(where, f"{key}.layers", layers),
        window=_positive_int(where, f"{key}.window", 0 if window is None else window, allow_zero=kind != "sliding"),
        ratio=_positive_int(where, f"{key}.ratio", ratio),
        read_tokens=_positive_int(where, f"{key}.read_tokens", read_tokens, allow_zero=True),
        index_dim=_positive_int(where, f"{key}.index_dim", index_dim, allow_zero=True),
        index_heads=_positive_int(where, f"{key}.index_heads", index_heads, allow_zero=True),
        state_bytes=_positive_int(where, f"{key}.state_bytes", state_bytes, allow_zero=True),
    )
    if group.kind == "full" and group.window:  # it would be ignored: a full group keeps every token
        raise field_error(where, f"{key}.window", "0 on a full group (a window is kind: sliding's, or a compressed group's)",
                          group.window)
    if group.kind != "compressed" and group.ratio != 1:  # qa467: ignored, where a window on a full group was refused
        raise field_error(where, f"{key}.ratio", f"1 or none on a {group.kind} group (a ratio is kind: compressed's)",
                          group.ratio)
    if group.kind == "compressed" and group.ratio < 2:
        raise field_error(where, f"{key}.ratio", "an integer >= 2 for a compressed group", group.ratio)
    if bool(group.index_dim) != bool(group.index_heads):
        raise field_error(where, f"{key}.index_dim", "index_dim and index_heads both (a lightning indexer) or neither",
                          f"index_dim {group.index_dim}, index_heads {group.index_heads}")
    if group.index_dim and group.kind == "sliding":
        raise field_error(where, f"{key}.index_dim", "an indexer only on a compressed or full group (a window reads all it keeps)",
                          group.index_dim)
    if group.index_dim and not group.read_tokens:
        raise field_error(where, f"{key}.read_tokens", "the entries an indexer picks per query, with index_dim", 0)
    return group


def _layer_groups(where: str, key: str, value: object, groups: list[AttentionGroup], layers: int) -> tuple[int, ...]:
    """The group index of each layer, first to last: `layers` entries, group i named groups[i].layers times (absent or
    empty: ())."""
    if value is None or (isinstance(value, (list, tuple)) and not value):
        return ()
    if not isinstance(value, (list, tuple)) or len(value) != layers:
        raise field_error(where, key, f"a list of {layers} group indices (one a layer, first to last)",
                          f"{len(value)} entries" if isinstance(value, (list, tuple)) else value)
    # a whole float (1.0) is the index it is, as JSON Schema's integer reads it (qa258: refused, where a torus took 16.0)
    value = [int(e) if isinstance(e, float) and e.is_integer() else e for e in value]
    for i, entry in enumerate(value):
        if isinstance(entry, bool) or not isinstance(entry, numbers.Integral) or not 0 <= entry < len(groups):
            raise field_error(where, f"{key}[{i}]", f"a group index 0..{len(groups) - 1} (attention.groups, in order)", entry)
    for i, g in enumerate(groups):
        if value.count(i) != g.layers:
            raise field_error(where, key, f"group {i} ({g.kind}) on its {g.layers} layers", f"{value.count(i)} layers")
    return tuple(int(entry) for entry in value)


def _check_group_layers(where: str, key: str, groups: list[AttentionGroup], layers: int) -> None:
    if sum(g.layers for g in groups) != layers:
        raise field_error(where, key, f"layer counts summing to layers={layers}", sum(g.layers for g in groups))


def _mla(where: str, key: str, ranks: dict[str, object]) -> MLASpec:
    """MLA's ranks and head dims (q_lora_rank 0: a full-rank query projection)."""
    return MLASpec(
        q_lora_rank=_positive_int(where, f"{key}.q_lora_rank", ranks.get("q_lora_rank", 0), allow_zero=True),
        **{k: _positive_int(where, f"{key}.{k}", ranks.get(k)) for k in ("kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")},
    )


def _moe(where: str, key: str, counts: dict[str, object], layers: int) -> MoESpec:
    """Routed experts (top_k of them per token) and optional shared experts, on all but the leading dense layers."""
    given = [k for k in ("experts", "top_k", "expert_ffn_size") if counts.get(k) is not None]
    if len(given) < 3:  # `models set dense moe.top_k=2` said 'moe.experts: expected a positive integer, found None'
        line = field_line(where, key)
        raise RooflineError(f"{where}: {f'line {line}: ' if line else ''}{key}: expected experts, top_k and expert_ffn_size "
                            f"together (a MoE block needs all three), found {'only ' + ' and '.join(given) if given else 'none of them'}")
    moe = MoESpec(
        experts=_positive_int(where, f"{key}.experts", counts.get("experts")),
        top_k=_positive_int(where, f"{key}.top_k", counts.get("top_k")),
        expert_ffn_size=_positive_int(where, f"{key}.expert_ffn_size", counts.get("expert_ffn_size")),
        **{k: _positive_int(where, f"{key}.{k}", counts.get(k, 0), allow_zero=True)
           for k in ("shared_experts", "shared_expert_ffn_size", "dense_layers")},
        dense_placement=check_choice(where, f"{key}.dense_placement", counts.get("dense_placement", "interleaved"), DENSE_PLACEMENTS),
        groups=_positive_int(where, f"{key}.groups", counts.get("groups", 1)),
        groups_per_token=_positive_int(where, f"{key}.groups_per_token", counts.get("groups_per_token", counts.get("groups", 1))),
        sequence_parallel=check_flag(where, f"{key}.sequence_parallel", counts.get("sequence_parallel", True)),
    )
    if moe.top_k > moe.experts:
        raise field_error(where, f"{key}.top_k", f"at most experts={moe.experts}", moe.top_k)
    if moe.experts % moe.groups:
        raise field_error(where, f"{key}.groups", f"a divisor of experts={moe.experts}", moe.groups)
    if moe.groups_per_token > moe.groups:
        raise field_error(where, f"{key}.groups_per_token", f"at most groups={moe.groups}", moe.groups_per_token)
    if moe.groups_per_token * (moe.experts // moe.groups) < moe.top_k:
        raise field_error(where, f"{key}.groups_per_token", f"enough groups to hold top_k={moe.top_k} experts "
                          f"({moe.experts // moe.groups} a group)", moe.groups_per_token)
    if moe.dense_layers >= layers:
        raise field_error(where, f"{key}.dense_layers", f"fewer than layers={layers}", moe.dense_layers)
    return moe


DENSE_PLACEMENTS = ("interleaved", "leading")


PUBLISHED_PARAMS_MIN = 1e4  # a published count below this is a count in billions (qa414: 8.03 written for 8.03e9)


def _published(where: str, key: str, value: object) -> float | None:
    """A published parameter count, or None."""
    ok = value is None or (isinstance(value, numbers.Real) and not isinstance(value, bool) and 0 < value < 1e16)
    if not ok:
        raise field_error(where, key, "a finite positive number of parameters (below 1e16)", value)
    if value is not None and value < PUBLISHED_PARAMS_MIN:
        raise field_error(where, key, f"a count of parameters, at least {PUBLISHED_PARAMS_MIN:,.0f} ({value:g} billion is "
                          f"{value:g}e9)", value)
    return None if value is None else float(value)


def _yaml_number(value: object) -> object:
    """YAML 1.1 reads 8.03e9 (no sign in the exponent) as a string: that string as a float, anything else as is."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            pass
    return value


def model_from_dict(data: dict, where: str = "<model>") -> ModelSpec:
    """Validate a model profile mapping."""
    if not isinstance(data, dict):
        raise field_error(where, "(top level)", "a mapping of fields", type(data).__name__)
    for key in data:
        if key not in _KNOWN:
            raise unknown_key_error(where, key, _KNOWN)
    missing = [key for key in ("name", *_INT_FIELDS) if key not in data]
    if missing:
        from roofline.hardware import _also_missing

        raise field_error(where, missing[0], "a required field" + _also_missing(missing), MISSING)
    _text(where, "name", data["name"])
    ints = _shape(where, data)
    attention = _mapping(where, "attention", data.get("attention") or {}, {"kv_layout", "groups", "layer_groups", "mla", "q_lora_rank",
                                                                          "o_lora_rank", "o_groups", "kv_entry_bytes", "index_key_bytes"})
    low_rank = _low_rank(where, "attention.", attention.get("kv_layout"), attention.get("q_lora_rank", 0), attention.get("o_lora_rank", 0),
                         attention.get("o_groups", 1))
    kv_layout = _kv_layout(where, "attention.kv_layout", attention.get("kv_layout", "gqa"))
    raw_groups = attention.get("groups", [{"kind": "full", "layers": ints["layers"]}])
    if not isinstance(raw_groups, list) or not raw_groups:
        raise field_error(where, "attention.groups", "a non-empty list of layer groups (or no groups key: all layers full)", raw_groups)
    groups = []
    for i, g in enumerate(raw_groups):
        key = f"attention.groups[{i}]"
        g = _mapping(where, key, g, {"kind", "layers", "window", "ratio", "read_tokens", "index_dim", "index_heads", "state_bytes"})
        groups.append(_group(where, key, g.get("kind"), g.get("layers"), g.get("window"), g.get("ratio", 1), g.get("read_tokens", 0),
                             g.get("index_dim", 0), g.get("index_heads", 0), g.get("state_bytes", 0)))
    _check_group_layers(where, "attention.groups", groups, ints["layers"])
    layer_groups = _layer_groups(where, "attention.layer_groups", attention.get("layer_groups"), groups, ints["layers"])
    mla = None
    if kv_layout != "mla" and attention.get("mla") is not None:  # a forgotten `kv_layout: mla` sized a latent as GQA heads
        raise field_error(where, "attention.mla", "an mla block only beside attention.kv_layout: mla (the kv_layout it has)", kv_layout)
    if kv_layout == "mla":
        raw = _mapping(where, "attention.mla", attention.get("mla"), {"q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"})
        mla = _mla(where, "attention.mla", {**raw, "q_lora_rank": raw.get("q_lora_rank") or 0})  # null: full rank
    moe = None
    if data.get("moe") is not None:
        raw = _mapping(where, "moe", data["moe"], {"experts", "top_k", "expert_ffn_size", "shared_experts", "shared_expert_ffn_size", "dense_layers",
                                                  "dense_placement", "groups", "groups_per_token", "sequence_parallel"})
        moe = _moe(where, "moe", raw, ints["layers"])
    published = {k: _published(where, k, _yaml_number(data.get(k))) for k in ("published_params", "published_active_params")}
    if None not in published.values() and published["published_active_params"] > published["published_params"] * 1.0001:
        raise field_error(where, "published_active_params", f"at most published_params ({published['published_params']:.4g})",
                          published["published_active_params"])  # qa121: a swapped pair went in unsaid
    return ModelSpec(
        name=data["name"],
        display_name=prose(where, "display_name", data.get("display_name"), data["name"]),
        **ints,
        ffn_gated=check_flag(where, "ffn_gated", data.get("ffn_gated", True)),
        tied_embeddings=check_flag(where, "tied_embeddings", data.get("tied_embeddings", False)),
        qk_norm_all_heads=check_flag(where, "qk_norm_all_heads", data.get("qk_norm_all_heads", False)),
        kv_layout=kv_layout,
        groups=tuple(groups),
        layer_groups=layer_groups,
        mla=mla,
        **low_rank,
        moe=moe,
        mtp_modules=_positive_int(where, "mtp_modules", data.get("mtp_modules", 0), allow_zero=True),
        mtp_window=_positive_int(where, "mtp_window", data.get("mtp_window", 0), allow_zero=True),
        max_context_tokens=_positive_int(where, "max_context_tokens", _or_zero(data.get("max_context_tokens")), allow_zero=True),
        tokenizer=_tokenizer(where, data.get("tokenizer")),
        kv_entry_bytes=_entry_bytes(where, "attention.kv_entry_bytes", attention.get("kv_entry_bytes"), groups),
        index_key_bytes=_entry_bytes(where, "attention.index_key_bytes", attention.get("index_key_bytes"), groups),
        **published,
        native_precision=_precision(where, data.get("precision")),
        quant_block=_quant_block(where, data.get("precision")),
        source=prose(where, "source", data.get("source")).strip(),
        notes=prose(where, "notes", data.get("notes")).strip(),
    )


def _check_spec_groups(where: str, spec: ModelSpec) -> None:
    """The spec's layer groups: AttentionGroup objects, each valid, their layers summing to `layers` (an empty
    tuple, the dataclass default, holds no layer: a spec built in Python names its groups)."""
    if not isinstance(spec.groups, (tuple, list)):
        raise field_error(where, "groups", "a tuple of AttentionGroup", spec.groups)
    for i, g in enumerate(spec.groups):
        if not isinstance(g, AttentionGroup):
            raise field_error(where, f"groups[{i}]", "an AttentionGroup", g)
        _group(where, f"groups[{i}]", g.kind, g.layers, g.window, g.ratio, g.read_tokens, g.index_dim, g.index_heads, g.state_bytes)
    _check_group_layers(where, "groups", list(spec.groups), spec.layers)
    if not isinstance(spec.layer_groups, tuple):
        raise field_error(where, "layer_groups", "a tuple of group indices, one a layer, or ()", spec.layer_groups)
    try:
        _layer_groups(where, "layer_groups", spec.layer_groups, list(spec.groups), spec.layers)
    except RooflineError as error:  # groups or layers replaced, the order kept: say what to replace with them
        raise RooflineError(f"{error} (a spec whose groups or layers are replaced needs layer_groups replaced too: "
                            "layer_groups=() for none)") from None


def _check_spec_parts(where: str, spec: ModelSpec) -> None:
    """The spec's MLA ranks (with kv_layout mla) and MoE counts, as their own objects."""
    if spec.kv_layout == "mla":
        if not isinstance(spec.mla, MLASpec):
            raise field_error(where, "mla", "an MLASpec with kv_layout mla", spec.mla)
        _mla(where, "mla", vars(spec.mla))
    if spec.moe is not None:
        if not isinstance(spec.moe, MoESpec):
            raise field_error(where, "moe", "a MoESpec or None", spec.moe)
        _moe(where, "moe", vars(spec.moe), spec.layers)


def _check_spec_precision(where: str, precision: object) -> None:
    """native_precision: (weight class, weight dtype) pairs."""
    if not isinstance(precision, (tuple, list)):
        raise field_error(where, "native_precision", "a tuple of (weight class, dtype) pairs", precision)
    for i, pair in enumerate(precision):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2 or pair[0] not in WEIGHT_CLASSES:
            raise field_error(where, f"native_precision[{i}]", "a (weight class, dtype) pair, the class one of " + ", ".join(WEIGHT_CLASSES), pair)
        _weight_dtype(where, f"native_precision[{i}]", pair[1])


def check_model_spec(spec: object) -> ModelSpec:
    """`spec` itself if it is a ModelSpec that model_from_dict could have produced, else one RooflineError naming the
    spec and field: `model spec 'llama-3.1-8b': kv_heads: expected a divisor of heads=32 (...), found 5`. For specs
    built or changed in Python (dataclasses.replace), which no profile check saw."""
    if not isinstance(spec, ModelSpec):
        raise RooflineError(f"model: expected a ModelSpec or a profile name, found {type(spec).__name__}")
    where = spec_where("model", spec.name)
    for key in ("name", "display_name", "source", "notes", "path"):  # path: the file it was read from, or ''
        _text(where, key, getattr(spec, key))
    if spec.tokenizer != _tokenizer(where, spec.tokenizer or None):
        raise field_error(where, "tokenizer", "a tokenizer family in lower case without surrounding spaces, or ''", spec.tokenizer)
    _shape(where, vars(spec))
    for key in ("ffn_gated", "tied_embeddings", "qk_norm_all_heads"):
        check_flag(where, key, getattr(spec, key))
    _kv_layout(where, "kv_layout", spec.kv_layout)
    _low_rank(where, "", spec.kv_layout, spec.q_lora_rank, spec.o_lora_rank, spec.o_groups)
    _check_spec_groups(where, spec)
    _check_spec_parts(where, spec)
    _positive_int(where, "mtp_modules", spec.mtp_modules, allow_zero=True)
    _positive_int(where, "mtp_window", spec.mtp_window, allow_zero=True)
    _positive_int(where, "max_context_tokens", spec.max_context_tokens, allow_zero=True)
    for key in ("kv_entry_bytes", "index_key_bytes"):
        pairs = getattr(spec, key)
        if not isinstance(pairs, (tuple, list)) or not all(isinstance(x, (tuple, list)) and len(x) == 2 for x in pairs):
            raise field_error(where, key, "a tuple of (kv dtype, bytes) pairs", pairs)
        _entry_bytes(where, key, dict(pairs) or None, None)
    for key in ("published_params", "published_active_params"):
        _published(where, key, getattr(spec, key))
    _check_spec_precision(where, spec.native_precision)
    _positive_int(where, "quant_block", spec.quant_block, allow_zero=True)
    return spec


def contexts_past(model: ModelSpec, contexts, what: str = "context") -> str:
    """'context 3,500 is', 'context 3,500 (1 of 3) is' or 'contexts 65,536-131,072 (2 of 3) are': those of `contexts`
    past the model's trained positions (max_context_tokens); '' where none is or the profile does not say."""
    values = sorted({int(c) for c in np.atleast_1d(contexts)})
    past = [c for c in values if model.max_context_tokens and c > model.max_context_tokens]
    if not past:
        return ""
    return (f"{what} {past[0]:,}" + (f" (1 of {len(values)})" if len(values) > 1 else "") + " is" if len(past) == 1 else
            f"{what}s {past[0]:,}-{past[-1]:,} ({len(past)} of {len(values)}) are")


def drafter_context_note(draft: ModelSpec | None, contexts) -> str:
    """'context 3,500 is past the draft model tinyllama-1.1b's 2,048 trained positions ...' where a draft model's trained
    positions end before a context the target decodes at: vLLM caps the drafter's max_model_len there
    (SpeculativeConfig._maybe_override_draft_max_model_len: "so that sequences do not exceed the capacity of the draft
    model", "sequences can skip speculation"), and a longer sequence decodes without it; '' else."""
    which = contexts_past(draft, contexts) if draft is not None else ""
    if not which:
        return ""
    return (f"{which} past the draft model {draft.name}'s {draft.max_context_tokens:,} trained positions: vLLM caps the "
            "drafter there and a longer sequence skips speculation, decoding at plain decoding's speed, not the "
            "speedup priced here (an engine running the drafter past them drafts at an acceptance nobody measured); priced as asked")


def context_note(model: ModelSpec, contexts, what: str = "context") -> str:
    """'context 131,072 is past qwen3-8b's 40,960 trained positions ...' where a context (the tokens the KV cache
    holds; a prompt's, `what`) exceeds the positions the model was trained for (max_context_tokens), 'contexts 65,536-
    131,072 (2 of 3) are past ...' for a sweep's axis; '' where none does or the profile does not say. A pass's own few
    tokens are not counted: a sweep's 131,072 stands for a model's trained 128k. vLLM refuses a max_model_len above
    max_position_embeddings unless VLLM_ALLOW_LONG_MAX_MODEL_LEN is set, SGLang a context_length above it unless
    SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN is."""
    which = contexts_past(model, contexts, what)
    if not which:
        return ""
    return (f"{which} past {model.name}'s {model.max_context_tokens:,} trained positions (max_context_tokens): "
            "vLLM and SGLang refuse a longer sequence unless told to (VLLM_ALLOW_LONG_MAX_MODEL_LEN=1, "
            "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1; RoPE scaling where the model supports it); priced as asked")


def _mean_capped(a, b, cap: float, slope: float = 1.0):
    """The mean of min(slope u, cap) over u uniform in [a, b] (b > a), its kink at u = cap / slope split out:
    (slope (min(b, k)^2 - min(a, k)^2) / 2 + cap max(b - max(a, k), 0)) / (b - a), k = cap / slope."""
    knee = cap / slope
    low, high = np.minimum(a, knee), np.minimum(b, knee)
    return (slope * (high**2 - low**2) / 2.0 + cap * np.maximum(b - np.maximum(a, knee), 0.0)) / (b - a)


def load_model(name: str, extra_dirs: tuple[str | Path, ...] = ()) -> ModelSpec:
    """Load model profile `name` (or a path to a YAML file) from the search path."""
    path = find_profile("model", name, extra_dirs)
    spec = model_from_dict(read_yaml(path), str(path))
    check_file_name(path, name, spec.name, "model")
    return dataclasses.replace(spec, path=str(path))
