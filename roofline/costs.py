"""FLOPs and bytes of every operator in one forward pass, on the busiest device of a deployment.

The pass processes `batch` sequences (B, the replica's batch) with `q` query tokens each on top of
`context` tokens already in the KV cache (S): q = 1 is a decode step, q = k + 1 a speculative
verification, q = P a prefill. All arguments broadcast as numpy arrays. The deployment (layout.py)
splits the work: an attention group of tp devices handles B_a = B / dp_attention sequences, so
T_a = B_a * q tokens go through its non-expert weights; all T = B * q tokens are routed to experts.
B_a = ceil(B / dp_attention) on the busiest group.

Per operator (w_c = bytes per weight of the operator's weight class c, a = 2 activation bytes,
c_kv = KV bytes per element; non-expert weights and heads split over tp, the hidden state replicated):

    weight GEMM (qkv_proj, o_proj, mlp, router, shared_experts, lm_head), on T_a tokens:
        flops = 2 * params_device * T_a
        bytes = params_device * w_c + T_a * (d_in + d_out) * a
        d_in, d_out: the widths one device reads and writes, a column-parallel GEMM's output and a row-parallel one's
        input its 1/tp share: qkv_proj h -> params_device / h, o_proj heads v_dim / tp -> h (a grouped low-rank
        output, DeepSeek-V4's: its o_groups r / tp intermediate written and read too, d_in + 2 o_groups r / tp), lm_head h -> vocab / tp,
        router h -> E; an MLP (the dense one, the shared experts of width f_s) both its GEMMs, gate/up h -> 2 f / tp
        (f / tp ungated) and down f / tp -> h: d_in = h + f / tp, d_out = 2 f / tp + h
        params_device = params / tp, but for qkv_proj model.qkv_params_per_layer_per_device(tp): MLA's and a
        low-rank query's down-projections whole on every rank, and one KV head's K and V on each rank once tp > kv_heads;
        and the router whole on every rank (vLLM's ReplicatedLinear gate, SGLang's MoEGate)
        MLA decode under an engine that reads its absorbed up-projections in 16 bits (dep.mla_absorbed_bf16, vLLM's
        W_UK and W_UV) from weights of fewer bits: qkv_proj bytes += layers * mla_absorbed_params_per_device * (2 - w_c)
        MLA prefill on a cached context (S > 0; its non-absorbed form needs every cached token's K and V, and the cache
        holds the latent alone: vLLM's MLACommonImpl._compute_prefill_context runs kv_b_proj over each cached chunk,
        then flash attention): per layer of a dense MLA group (no read_tokens cap) the cached entries E = read_g(S, 1)
        of each of the B_a sequences are up-projected, u = heads / tp * (d_nope + d_v) per entry,
            qkv_proj flops += layers * 2 * kv_lora * u * B_a * E
            qkv_proj bytes += layers * 2 * B_a * E * u * a       (the expanded K and V written, then read by attention)
        a class of dep.stage_split (those of an engine's dp_attention_stage_split: SGLang's mlp, shared_experts and lm_head by
        default) runs on the stage's gathered T = B * q tokens (lm_head: B * its logit tokens; each group's padded to
        the busiest group's in a decode or verify pass, engine.py's T_g: gathered_tokens) with tp read as
        D = tp * dp_attention throughout: params_device = params / D, d_in = h + f / D, lm_head h -> vocab / D
    experts (per MoE layer): E / ep experts per EP rank, each split over D / ep devices; the busiest
    rank sets the pace (the expected maximum over ep ranks of n = T top_k token-expert pairs):
        p          = 1 - (1 - top_k / E) ** T                    (one expert is touched by T tokens; ep = 1 below)
        assigned   = up to T_s = ceil(SMALL_PAIRS / top_k) tokens, L(T): the expected maximum over ranks of the pairs in a
                     seeded simulation of routing (_simulated_routing: a token's top_k experts distinct and drawn evenly,
                     or through a group-limited gate; interpolated between whole T; for top_k = 1 without groups
                     the exact sum for n = T balls in ep bins, sum_{m>=0} (1 - n!/ep^n [x^n] (sum_{j<=m} x^j/j!)^ep)):
                     one top-1 token puts 1 pair on its rank, where the normal form gave 0.6; above, Blom's b(n) = n / ep + z_ep sqrt(n Var_1 / top_k)
                     (Var_1: the simulation's variance of one rank's pairs of one token) times
                     1 + (L(T_s) / b(T_s top_k) - 1) sqrt(T_s top_k / n): an upper-leaning extrapolation, against the
                     exact top-1 sum and a top-8 simulation (qa410) +0.1-0.2% at 8 ranks, up to +1.1% (top 1) and +1.7%
                     (top 8) at 64-128 ranks by 256 pairs (an excess fading as n^-0.65 fits the top-1 sums within -1.6%)
        touched    = M(T), the simulation's expected most distinct experts on one rank, up to the T at which a given
                     expert is left unpicked one time in a thousand ((1 - top_k / E)^T = 1e-3), interpolated between
                     its points (every whole T to T_s, 24 geometric ones on); above, E/ep; never above assigned; E p
                     when ep = 1; at least min(E/ep, 1) once a pair exists. (The normal form over a rank's experts it
                     replaced ran 6% low just past T_s under DeepSeek-V3's groups, which pick a rank's experts together.)
        group-limited routing (moe.groups, groups_per_token: DeepSeek-V3 keeps 4 of 8 groups a token) is simulated
        where its groups line up with contiguous ranks; p is unchanged (every expert as likely)
        flops = 2 * expert_params * assigned / (D / ep)
        bytes = touched * expert_params * w_experts / (D / ep) + assigned * (2 h + 3 f_e / (D / ep)) * a   (a pair's
                hidden state in and out, its gate/up output and down input, f_e = expert_ffn_size)
    attention (per layer group g, read_g(L, n) = model.entries_read(g, L, n), KV entries n queries of one sequence read
    at length L: every stored entry once (a window's W + n - 1: the W - 1 before the first query and the n the pass
    writes), or for sparse attention up to n * read_tokens, each query picking its own;
    mean_g(S, q) = model.mean_entries_read(g, S, q), read_g(., 1) averaged over the q queries' positions S + 1 ... S + q,
    each window or pick cap's kink split out, read_g(S + (q + 1) / 2, 1) where none falls among them):
        flops = attention_flops(heads, d_qk, d_v, T_a, mean_g(S, q)) / tp
        bytes = (B_a * read_g(S + q, q) - (B_a - 1) * shared_g) * kv_elems_per_device * c_kv
                + T_a * heads / tp * (d_qk + d_v) * a              (the rank's query heads in, their outputs out)
        shared_g = read_g(S + q, q) - read_g(S + q - P, q) entries of a prefix of P tokens that every
        sequence shares, read once per pass when `shared_prefix_read_once` (0 when P = 0)
        c_kv: bytes per element of the KV dtype, or a profile's kv_entry_bytes over an entry's elements where it gives
        them for that dtype (DeepSeek-V4's fp8 entry: 584 B for 512 elements)
        MLA: decode and verify use the absorbed form (d_qk = kv_lora + rope, d_v = kv_lora),
        prefill the non-absorbed form (d_qk = nope + rope, d_v = v_head_dim): per query-key pair and
        head 2*(576) + 2*512 = 2176 FLOPs against 2*(192) + 2*128 = 640 for DeepSeek-V3.
    indexer (a lightning indexer: a group's index_dim, index_heads; DeepSeek-V4's compressed sparse layers, DeepSeek
    Sparse Attention's full ones): every query scores every indexed entry idx_g(L) = model.indexed_entries(g, L) before
    attention reads read_tokens of them. It is replicated, not split over tp (vLLM's and SGLang's indexers build their
    projections as ReplicatedLinear, "no tensor parallel, just replicated", and keep the keys whole on every rank), so
    every rank of an attention group scores all of its T_a queries:
        flops = 2 * index_heads * index_dim * T_a * idx_g(S + (q + 1) / 2)
        bytes = (B_a * idx_g(S + q) - (B_a - 1) * shared_idx_g) * index_dim * c_idx
        c_idx: a profile's index_key_bytes for the KV dtype over index_dim (fp8 values and a 4 B scale a 128: 132 B for
        128, as vLLM and SGLang store the keys whatever the KV dtype), else the KV dtype's width; it computes in fp8
        (engine.operator_compute_dtypes: DeepGEMM's fp8 MQA logits)
    kv_write: bytes = T_a * kv_elems_per_device * c_kv per layer (+ T_a / ratio * kv_elems_per_device * c_kv, a
        compressed layer's entries beside its window's, + T_a / ratio * index_dim * c_idx, an indexer's keys)
    norms (RMSNorm x2, residual adds x2, RoPE, activation): ELEMENTWISE_PASSES transfers (a read or a write each) of
        the residual stream per layer: bytes = T_a * hidden * a * ELEMENTWISE_PASSES, flops = 5 * same elems
    embedding: a gather, bytes = T_a * hidden * w_embedding
    input_proj: a drafter's 2h -> h projection of (hidden state, token embedding) (EAGLE's fc, MTP's eh_proj;
        model.input_projection, else zero), a plain linear layer in vLLM and SGLang: unquantised (the embedding's
        dtype) and replicated on every tensor-parallel rank, so not split over tp:
        flops = 2 * 2h^2 * T_a,   bytes = 2h^2 * w_embedding + T_a * (2h + h) * a
        A Medusa head (model.medusa_head) has no layers and no embedding: its h -> h residual block is the input
        projection (h^2 weights, T_a * (h + h) * a activations) and its own LM head the lm_head; nothing else runs
    lm_head: logits for `logit_tokens` tokens per sequence (q for decode/verify, 1 for prefill)

Deliberately ignored: biases, attention sinks, softmax exponent cost, the compressors of compressed attention and
an indexer's query projection (their weights, about 0.5B in DeepSeek-V4-Flash), KV re-reads inside a long prefill (flash attention reads KV once per query tile; counted once),
the norms' own weights read each pass (held in memory with the attention weights; `norms` moves the residual stream
alone: 0.53 MB of Llama-3.1-8B's 15.2 GB a decode step, 0.0035%; qa440).
"""

from __future__ import annotations

import functools
import math
from statistics import NormalDist

import numpy as np

from roofline.layout import OPERATOR_CLASS, Deployment
from roofline.model import BYTES_PER_ELEMENT, ModelSpec

ACTIVATION_BYTES = 2.0
ELEMENTWISE_PASSES = 8
OPERATORS = (
    "embedding", "input_proj", "qkv_proj", "attention", "indexer", "kv_write", "o_proj", "mlp", "router", "experts",
    "shared_experts", "norms", "lm_head",
)
# Weight GEMMs run on the compute dtype of their weight class; the rest on bf16.
WEIGHT_GEMMS = ("input_proj", "qkv_proj", "o_proj", "mlp", "router", "experts", "shared_experts", "lm_head")
LAYER_OPERATORS = tuple(o for o in OPERATORS if o not in ("embedding", "input_proj", "lm_head"))


def unique_experts_touched(experts, top_k, tokens):
    """E * (1 - (1 - top_k/E)^N): expected distinct experts hit by N tokens under uniform routing."""
    experts = np.asarray(experts, dtype=np.float64)
    return experts * (1.0 - (1.0 - np.asarray(top_k, dtype=np.float64) / experts) ** np.asarray(tokens, dtype=np.float64))


def expected_max_z(n: int) -> float:
    """Blom's approximation of the expected maximum of n standard normals: Phi^-1((n - 0.375) / (n + 0.25)); 0 for n = 1."""
    return 0.0 if n <= 1 else NormalDist().inv_cdf((n - 0.375) / (n + 0.25))


SMALL_PAIRS = 64  # token-expert pairs (rounded up to whole tokens) up to which the busiest rank's pairs are simulated


@functools.lru_cache(maxsize=4096)
def expected_max_load(n: int, bins: int) -> float:
    """The expected largest count when n balls fall uniformly into `bins` bins (exact: the module docstring's sum,
    each P(max <= m) a truncated exponential series raised to the power `bins`, by numpy's polynomial product): a top-1
    router's busiest rank, whose one expert a token is the same drawn with replacement or not."""
    if n <= 0 or bins <= 1:
        return float(max(n, 0))
    log_scale = math.lgamma(n + 1) - n * math.log(bins)  # n! / bins^n, in logs
    expected, m = 0.0, 0
    while m < n:
        series = np.array([math.exp(-math.lgamma(j + 1)) for j in range(m + 1)])
        power, base, exponent = np.array([1.0]), series, bins
        while exponent:  # series ** bins, truncated at degree n, by squaring
            if exponent & 1:
                power = np.convolve(power, base)[: n + 1]
            base, exponent = np.convolve(base, base)[: n + 1], exponent >> 1
        at_most_m = math.exp(log_scale + math.log(power[n])) if len(power) > n and power[n] > 0 else 0.0
        expected += 1.0 - at_most_m
        if 1.0 - at_most_m < 1e-12:
            break
        m += 1
    return expected


def rank_hit_probability(experts: int, top_k: int, ep: int, groups: int = 1, groups_per_token: int = 1) -> float:
    """The chance that one expert-parallel rank holds at least one of a token's top_k experts, experts placed
    contiguously (rank r holds experts r E/ep .. (r+1) E/ep - 1: vLLM's and SGLang's placement without EPLB).
    Drawn evenly and distinct: 1 - C(E - E/ep, top_k) / C(E, top_k) (hypergeometric; 1 - (1 - 1/ep)^top_k draws them
    with replacement and reaches fewer ranks: 0.8% fewer at 256 experts, top 8, ep 8; 2.7% at 128 experts, top 8,
    ep 128). Under group-limited routing, _simulated_routing's estimate."""
    if _aligned_groups(experts, ep, groups, groups_per_token) != (1, 1):
        return _simulated_routing(experts, top_k, ep, groups, groups_per_token)[0]
    per_rank = experts // ep
    return 1.0 - math.comb(experts - per_rank, top_k) / math.comb(experts, top_k)


def _aligned_groups(experts: int, ep: int, groups: int, groups_per_token: int) -> tuple[int, int]:
    """(groups, groups_per_token) as the routing sees them on `ep` contiguous ranks: (1, 1) where routing is not
    group-limited, runs on one rank, or its groups do not line up with the ranks (neither of groups, ep divides the other)."""
    if groups_per_token >= groups or ep <= 1 or experts % ep or (groups % ep and ep % groups):
        return 1, 1
    return groups, groups_per_token


GATE_TOKENS = 32_768   # tokens routed through the simulated gate (_simulated_routing), fewer on many ranks or experts
ROUTING_TRIALS = 8_000  # trials of the busiest-rank tables (fewer on many ranks or tokens: about 4e6 rank loads)


@functools.lru_cache(maxsize=64)
def _simulated_routing(experts: int, top_k: int, ep: int, groups: int = 1,
                       groups_per_token: int = 1) -> tuple[float, float, np.ndarray, np.ndarray]:
    """(rank hit probability, variance of one rank's pairs of a token, busiest-rank pairs of t = 0 .. ceil(SMALL_PAIRS /
    top_k) tokens, and the busiest rank's distinct experts as a 2 x n array of token counts and values: every whole count
    to that one, then 24 points geometrically on to the tokens that leave a given expert unpicked one time in a
    thousand) on `ep` ranks of contiguous experts. A token's top_k experts
    are distinct, drawn evenly (uniform routing's assumption: every top_k set as likely); under group-limited routing
    (DeepSeek-V3's gate, inference/model.py Gate.forward) its scores split into `groups` contiguous groups, the
    groups_per_token groups with the largest sum of their top two scores kept, its top_k experts the largest scores
    among theirs. Scores are drawn independent and identical, each group's top ones as order statistics (Renyi:
    log U_(1) = log V_1 / s, log U_(i) = log U_(i-1) + log V_i / (s - i + 1) of s = E / groups); a kept group's c picks
    are c of its experts drawn evenly (random keys; scores are exchangeable). Monte Carlo with a fixed seed, every
    draw Generator.random's or .integers' (streams numpy keeps across versions; its hypergeometric sampler's is not
    one), so a run repeats exactly: a pool of routed tokens, and up to ROUTING_TRIALS trials of t of them added up (the
    same draws for every t, so each table rises in t; fewer trials where ranks or tokens are many); about 0.3% standard
    error at 8 ranks, 1-1.5% at 64. A rank's distinct experts
    count each expert once however many of the t tokens pick it. Chosen groups spread a token's pairs: DeepSeek-V3's
    8 experts fall in 4.0 groups on average, 3.0 in the fullest one (uniform draws among the 4 groups' experts put 3.5).
    Drawn with replacement instead of distinct, one Qwen3-235B token (128 experts, top 8) at EP 64 put 1.38 pairs on
    its busiest rank where 1.21 are simulated (1.2075 exactly: 2 - C(64, 8) 2^8 / C(128, 8))."""
    rng = np.random.default_rng(0)
    group_size = experts // groups
    n = min(GATE_TOKENS, 4_000_000 // max(ep, groups_per_token * group_size if groups > 1 else 1))
    depth = min(top_k, group_size)
    if groups == 1:  # a token's top_k experts, distinct and drawn evenly
        expert_ids = _distinct_draws(rng, n, experts, top_k)
    else:
        log_top = np.cumsum(np.log(rng.random((n, groups, depth))) / (group_size - np.arange(depth)), axis=2)
        group_score = np.exp(log_top[:, :, :2]).sum(axis=2)
        # the kept groups in id order (argpartition's order is its implementation's: the keys below pair with positions)
        chosen = np.sort(np.argpartition(-group_score, groups_per_token - 1, axis=1)[:, :groups_per_token], axis=1)
        candidates = np.take_along_axis(log_top, chosen[:, :, None], axis=1)
        kth = -np.partition(-candidates.reshape(n, -1), top_k - 1, axis=1)[:, top_k - 1]
        picks = (candidates >= kth[:, None, None]).sum(axis=2)  # n x groups_per_token: each kept group's experts
        keys = rng.random((n, groups_per_token, group_size))  # a kept group's c picks: c of its experts, by random keys
        smallest = np.argpartition(keys, depth - 1, axis=2)[:, :, :depth] if depth < group_size else np.argsort(keys, axis=2)
        smallest = np.take_along_axis(smallest, np.argsort(np.take_along_axis(keys, smallest, axis=2), axis=2), axis=2)
        taken = np.arange(smallest.shape[2]) < picks[:, :, None]  # the first c of them, c = the group's picks
        expert_ids = (chosen[:, :, None] * group_size + smallest)[taken].reshape(n, top_k)
    per_rank = experts // ep
    loads = np.bincount((np.arange(n)[:, None] * ep + expert_ids // per_rank).ravel(), minlength=n * ep).reshape(n, ep).astype(np.int32)
    max_tokens = -(-SMALL_PAIRS // top_k)
    # the distinct experts' table runs on to the tokens that leave a given expert unpicked one time in a thousand
    far = max_tokens if top_k >= experts else max(max_tokens, math.ceil(math.log(1e-3) / math.log1p(-top_k / experts)))
    #   (every expert a token's: the first token picks them all; qa410, log1p(-1) raised)
    grid = np.unique(np.concatenate([np.arange(max_tokens + 1), np.geomspace(max_tokens, far, 24).round()])).astype(np.int64)
    if top_k == 1 and groups == 1:  # one expert a token: drawn with replacement or not, the exact balls-in-bins sum
        assigned = np.array([expected_max_load(t, ep) for t in range(max_tokens + 1)])
    else:  # loads[drawn]: trials x t x ranks
        drawn = rng.integers(0, n, size=(max(1_000, min(ROUTING_TRIALS, 4_000_000 // (max_tokens * ep))), max_tokens))
        assigned = np.concatenate([[0.0], loads[drawn].cumsum(axis=1).max(axis=2).mean(axis=0)])
    # each expert's first token among a trial's drawn ones (far: never picked), counted at the first grid point past it
    rows = max(500, min(ROUTING_TRIALS, 4_000_000 // (far * top_k), 8_000_000 // (ep * len(grid))))
    picked = expert_ids[rng.integers(0, n, size=(rows, far))]  # rows x tokens x top_k
    first, row = np.full((rows, experts), far), np.arange(rows)[:, None]
    for token in range(far - 1, -1, -1):  # the earliest token writes last (a token's experts are distinct)
        first[row, picked[:, token]] = token
    bins = len(grid) + 1  # the last: never picked
    cell = (np.arange(rows)[:, None] * ep + np.arange(experts) // per_rank) * bins + np.searchsorted(grid, first, side="right")
    new_by_point = np.bincount(cell.ravel(), minlength=rows * ep * bins).astype(np.int32).reshape(rows, ep, bins)[:, :, :-1]
    touched = np.stack([grid.astype(np.float64), new_by_point.cumsum(axis=2).max(axis=1).mean(axis=0)])
    touched[1, 1] = assigned[1]  # one token's experts are distinct: its pairs are its experts (one estimate for both)
    return float((loads > 0).mean()), float(loads.var()), assigned, touched


def _distinct_draws(rng: np.random.Generator, n: int, population: int, k: int) -> np.ndarray:
    """n rows of k distinct integers, each row's set drawn evenly from range(population): Floyd's algorithm, a column at
    a time (for j = population - k .. population - 1 draw t in 0..j, take t unless the row holds it, else j). The order
    within a row carries no meaning (the first column never holds the top k - 1 values): use the rows as sets."""
    out = np.empty((n, k), dtype=np.int64)
    for i, j in enumerate(range(population - k, population)):
        t = rng.integers(0, j + 1, size=n)
        out[:, i] = np.where((out[:, :i] == t[:, None]).any(axis=1), j, t)
    return out


def busiest_rank_experts(experts: int, top_k: int, tokens, ep: int, groups: int = 1, groups_per_token: int = 1):
    """(touched, assigned) on the busiest of `ep` expert-parallel ranks (module docstring), from _simulated_routing's
    expected maxima (interpolated between its token counts: a pipeline's micro-batches hold fractions): assigned up to
    ceil(SMALL_PAIRS / top_k) tokens, above it Blom's form with the simulation's per-token variance, scaled to meet the
    simulated value there, the excess fading as 1 / sqrt(n); touched up to the tokens that leave a given expert unpicked
    one time in a thousand, above them all E / ep experts; both increasing in the tokens. Group-limited routing
    (`groups`, `groups_per_token`: a token's experts on fewer groups) is simulated where its groups line up with the
    ranks; one rank (ep = 1) holds every expert: E p touched, T top_k assigned."""
    t = np.asarray(tokens, dtype=np.float64)
    per_rank = experts / ep
    pairs = t * top_k
    if ep <= 1:
        touched, assigned = unique_experts_touched(experts, top_k, t), pairs
    else:
        touched, assigned = _simulated_rank(experts, top_k, t, ep, groups, groups_per_token)
    return np.where(pairs >= 1.0, np.maximum(touched, min(per_rank, 1.0)), touched), assigned  # a pair reads an expert


def _simulated_rank(experts: int, top_k: int, t: np.ndarray, ep: int, groups: int, groups_per_token: int):
    """busiest_rank_experts on ep > 1 ranks, before its floor of one expert a pair: from _simulated_routing's tables."""
    per_rank, pairs = experts / ep, t * top_k
    _, variance, assigned_table, touched_table = _simulated_routing(experts, top_k, ep,
                                                                   *_aligned_groups(experts, ep, groups, groups_per_token))
    small_tokens = len(assigned_table) - 1
    spread = math.sqrt(variance / top_k)  # a pair's share of a token's variance
    z = expected_max_z(ep)

    def blom(n):
        return n / ep + z * spread * np.sqrt(n)

    edge = float(small_tokens * top_k)
    large = blom(pairs) * (1.0 + (assigned_table[-1] / blom(edge) - 1.0) * np.sqrt(edge / np.maximum(pairs, edge)))
    assigned = np.where(t <= small_tokens, np.interp(t, np.arange(small_tokens + 1.0), assigned_table), large)
    # distinct experts: simulated up to the tokens that leave a given expert unpicked one time in a thousand, then all
    grid, simulated = touched_table
    touched = np.minimum(np.where(t <= grid[-1], np.interp(t, grid, simulated), per_rank), assigned)
    return touched, assigned


def attention_flops(heads, d_qk, d_v, tokens, read_tokens):
    """2 * heads * (d_qk + d_v) * tokens * read_tokens: q.k scores and the weighted sum of values, per layer.

    `tokens` queries each attend over `read_tokens` KV entries (arrays broadcast); softmax is ignored.
    """
    return 2.0 * heads * (d_qk + d_v) * np.asarray(tokens, dtype=np.float64) * np.asarray(read_tokens, dtype=np.float64)


def gathered_tokens(batch, q, dep: Deployment, padded: bool = True):
    """Rows of a stage's gathered buffer under attention DP: the busiest group's B_a q tokens from each of the
    dp_attention groups, ceil(B / dp_attention) q dp_attention (every rank's buffer padded to the largest, as the
    engines' CUDA graphs run a decode or verify pass: SGLang's max_len mode, vLLM's DP padding; B q where the groups
    split B evenly); `padded` false (a prefill, run eagerly: SGLang's sum_len mode) B q."""
    q = np.asarray(q, dtype=np.float64)
    return sequences_per_group(batch, dep) * q * dep.dp_attention if padded else np.asarray(batch, dtype=np.float64) * q


def sequence_split_tokens(tokens_a, dep: Deployment):
    """Tokens a tp rank runs of its attention group's T_a in vLLM's sequence-parallel MoE (dep.sequence_split): ceil(T_a / tp)."""
    return np.ceil(tokens_a / dep.tp)


def sequences_per_group(batch, dep: Deployment):
    """B_a: sequences of the busiest attention group, ceil(B / dp_attention) (B itself when dp_attention = 1)."""
    b = np.asarray(batch, dtype=np.float64)
    return np.ceil(b / dep.dp_attention) if dep.dp_attention > 1 else b


def weight_bytes_by_class(model: ModelSpec, dep: Deployment) -> dict[str, float]:
    """Resident weight bytes per class on a device of `dep`'s described stage (Deployment.busiest_stage, or the one
    at_stage names).

    Non-expert classes split over tp (replicated over dp_attention groups; those of dep.stage_split over the stage's
    D devices, those of dep.whole on none: Deployment.split_of), but for the attention input projections
    a rank holds whole (model.qkv_params_per_layer_per_device: MLA's down-projections, a KV head replicated once tp >
    kv_heads; in each layer and MTP module) and the router, whole on every rank; routed experts over all
    D = tp * dp_attention devices of a stage (E/ep experts, each split D/ep ways); layers over pp stages as the engine
    splits them (Deployment.stage_layers: the stage's MoE layers' share of the experts, router and shared experts, its
    dense layers' share of the dense MLP, its layers' of the rest), the embedding on the first stage and the LM head
    (a tied one's copy of the embedding) on the last (Deployment.holds_head; the mean stage the larger of the two).
    The target's MTP modules are not counted: an MTP drafter brings them as a drafter
    (speculation.drafter_weight_bytes, its routed experts split as the target's are), only while it drafts.
    Under an engine that holds MLA's absorbed up-projections in 16 bits (dep.mla_absorbed_bf16: vLLM's W_UK and
    W_UV) a checkpoint of fewer bits holds them twice: attention += layers * mla_up_params / split * 2 B.
    """
    params = model.params_by_class()
    pp = dep.pp
    layers, moe_layers, dense_layers = dep.stage_layers(model)
    share = {"experts": moe_layers / max(model.moe_layers, 1), "router": moe_layers / max(model.moe_layers, 1),
             "shared_experts": moe_layers / max(model.moe_layers, 1), "mlp": dense_layers / max(model.dense_layers, 1)}
    qkv, qkv_device = model.qkv_params_per_layer, model.qkv_params_per_layer_per_device(dep.tp)
    blocks = {"attention": model.layers}  # the attention input projections the class holds
    out = {}
    for cls, n in params.items():
        if cls == "mtp":
            continue
        split = dep.devices_per_stage if cls == "experts" else 1 if cls == "router" else dep.split_of(cls)
        per_stage = 1.0 if cls in ("embedding", "lm_head") else share.get(cls, layers / max(model.layers, 1))
        count = blocks.get(cls, 0)
        out[cls] = ((n - count * qkv) / split + count * qkv_device) * BYTES_PER_ELEMENT[dep.dtype(cls)] * per_stage
    out["attention"] += mla_absorbed_copy_bytes(model, dep)
    if pp > 1:  # the embedding on the first stage, the LM head (a tied one a copy of the embedding) on the last
        embedding, lm_head = out["embedding"], out["lm_head"] or out["embedding"]
        holds_embedding, holds_lm_head = dep.holds_head(model)
        if dep.stage == "mean":  # the mean stage: the larger, as one of them (engine.py's round trip holds both once)
            out["embedding"], out["lm_head"] = max(embedding, lm_head), 0.0
        else:
            out["embedding"], out["lm_head"] = embedding * holds_embedding, lm_head * holds_lm_head
    return out


def mla_absorbed_params_per_device(model: ModelSpec, dep: Deployment) -> float:
    """Parameters a layer of MLA's up-projections (W_UK, W_UV) holds on a device, where an engine keeps them as a 16-bit
    copy beside a quantised checkpoint's kv_b_proj, which prefill still runs (dep.mla_absorbed_bf16: vLLM's), split
    over tp as kv_b_proj is: mla_up_params / split; 0 otherwise (vLLM's MLA runs 16-bit weights only: a bf16
    checkpoint's W_UK / W_UV are views of it). The copy's bytes held (mla_absorbed_copy_bytes) and read in decode
    (operator_costs' qkv_proj) both come from it."""
    if not dep.mla_absorbed_bf16 or BYTES_PER_ELEMENT[dep.dtype("attention")] >= 2.0:
        return 0.0
    return model.mla_up_params_per_layer / dep.split_of("attention")


def mla_absorbed_copy_bytes(model: ModelSpec, dep: Deployment) -> float:
    """Bytes of that 16-bit copy on a device of `dep`'s described stage: layers_stage * mla_absorbed_params * 2 B."""
    return dep.stage_layers(model)[0] * mla_absorbed_params_per_device(model, dep) * 2.0


def weight_bytes(model: ModelSpec, dep: Deployment) -> float:
    """Bytes of weights resident on the busiest device (sum of weight_bytes_by_class)."""
    return float(sum(weight_bytes_by_class(model, dep).values()))


def kv_cache_bytes(model: ModelSpec, batch, context_len, dep: Deployment, shared_prefix=0, window_pool_ratio=None):
    """KV bytes held on a device of `dep`'s described stage for `batch` sequences of `context_len` tokens each.

    Each attention group holds B / dp_attention sequences in its layers on the stage (Deployment.stage_group_layers:
    the busiest stage's, or the one at_stage names, counted in the model's layer order); a shared prefix of P tokens
    is stored once:
    B_a * stored(L) - (B_a - 1) * (stored(L) - stored(L - P)).
    Under an engine's hybrid window pool (`window_pool_ratio` r, serving.py: SGLang's) a model with full and sliding
    layers is charged pooled(L) (_pooled_bytes) where stored(L) stands.
    """
    b_a = sequences_per_group(batch, dep)
    length = np.asarray(context_len, dtype=np.float64)
    p = np.minimum(np.asarray(shared_prefix, dtype=np.float64), length)
    total = 0.0
    for g, layers in zip(model.groups, dep.stage_group_layers(model)):  # a layer's KV entries and indexer keys
        stored = _pooled_bytes(model, g, length, dep, window_pool_ratio)  # (model.cache_bytes_per_layer)
        shared = stored - _pooled_bytes(model, g, length - p, dep, window_pool_ratio)
        total = total + layers * (b_a * stored - np.maximum(b_a - 1.0, 0.0) * shared)
    return total


def window_pool_applies(model: ModelSpec, ratio) -> bool:
    """Whether an engine's hybrid window pool of `ratio` (ServingEngine.window_kv_pool_ratio) sizes `model`'s cache:
    a ratio is set and the model has both full and sliding layers."""
    kinds = {g.kind for g in model.groups}
    return ratio is not None and {"full", "sliding"} <= kinds


def _pooled_bytes(model: ModelSpec, group, length, dep: Deployment, ratio):
    """Cache bytes one layer of `group` is charged for a sequence of `length` tokens: what it stores
    (model.cache_bytes_per_layer), or, under a hybrid window pool of ratio r on a model with full and sliding layers
    (SGLang sizes a window pool of r x the full pool's tokens, so whichever fills first caps the batch), per entry
    e:  full layer  e * max(S, m / r),  sliding layer  e * max(r S, m),  m = min(S, the largest window)
    (plus the layer's state_bytes, once).
    A compressed group (DeepSeek-V4, which SGLang pools its own way) keeps what it stores."""
    stored = model.cache_bytes_per_layer(group, length, dep.tp, dep.kv_dtype)
    if not window_pool_applies(model, ratio) or group.kind == "compressed":
        return stored
    windows = [g.window for g in model.groups if g.kind == "sliding"]
    # one token's entry (a window holds >= 1), without the layer's fixed state, which a sequence holds once
    entry = model.cache_bytes_per_layer(group, 1.0, dep.tp, dep.kv_dtype) - group.state_bytes
    s = np.maximum(np.asarray(length, dtype=np.float64), 0.0)
    m = np.minimum(s, max(windows))
    return entry * (np.maximum(ratio * s, m) if group.kind == "sliding" else np.maximum(s, m / ratio)) + group.state_bytes


def attention_activation_bytes(model: ModelSpec, tokens_a, dep: Deployment, prefill: bool, layers) -> np.ndarray:
    """T_a * heads / tp * (d_qk + d_v) * a * layers: the attention operator's own activations, each rank's query heads
    in and their outputs out (qa243: the full hidden width twice on every rank, 4.8% of a tp 8 pass's bytes at batch
    256); MLA's absorbed query and latent output in decode (attention_dims_per_query_head)."""
    d_qk, d_v = model.attention_dims_per_query_head(prefill)
    return np.asarray(tokens_a, dtype=np.float64) * model.heads / dep.tp * (d_qk + d_v) * ACTIVATION_BYTES * layers


def operator_costs(
    model: ModelSpec,
    batch,
    q,
    context,
    dep: Deployment,
    logit_tokens=None,
    prefill: bool = False,
    shared_prefix=0,
    shared_prefix_read_once: bool = True,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Map operator name -> (flops, bytes) on the busiest device for one forward pass (module docstring).

    `logit_tokens`: tokens per sequence that need logits (default q). The per-layer operators run the busiest
    pipeline stage's layers (Deployment.stage_layers: its MoE and dense layers, each attention group its share);
    a head drafter is a model of its own layers (speculation.drafter_spec). `prefill` selects MLA's non-absorbed
    attention form.
    """
    b = np.asarray(batch, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    s = np.asarray(context, dtype=np.float64)
    tp = dep.tp
    b_a = sequences_per_group(b, dep)
    tokens_a = b_a * q
    c = model.kv_bytes_per_element(dep.kv_dtype)  # the dtype's width, or a profile's entry bytes / elements (scales, bf16 RoPE)
    a = ACTIVATION_BYTES
    h = float(model.hidden_size)
    n_layers, moe_stage, dense_stage = dep.stage_layers(model)
    logits = tokens_a if logit_tokens is None else b_a * np.asarray(logit_tokens, dtype=np.float64)

    def w(op: str) -> float:
        return BYTES_PER_ELEMENT[dep.dtype(OPERATOR_CLASS[op])]

    def gemm(op: str, params: float, d_in: float, d_out: float, n_tokens=tokens_a, count: float = 1.0, per_device: float | None = None):
        per_device = params / tp if per_device is None else per_device
        flops = 2.0 * per_device * n_tokens * count
        nbytes = (per_device * w(op) + n_tokens * (d_in + d_out) * a) * count
        return flops, nbytes

    zero = np.zeros(np.broadcast(b, q, s).shape)
    costs: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    costs["embedding"] = (zero, zero) if model.medusa_head else (zero, tokens_a * h * w("embedding") + zero)
    proj = model.input_projection_params  # 0 but for a head drafter; replicated, not split over tp
    proj_widths = 2.0 if model.medusa_head else 3.0  # h in and h out (a Medusa head's block), else 2h in and h out
    costs["input_proj"] = (2.0 * proj * tokens_a + zero, proj * w("input_proj") + tokens_a * proj_widths * h * a + zero) if proj else (zero, zero)
    qkv_device = model.qkv_params_per_layer_per_device(tp)
    costs["qkv_proj"] = gemm("qkv_proj", model.qkv_params_per_layer, h, qkv_device / h, count=n_layers, per_device=qkv_device)
    if not prefill:  # decode's W_UK and W_UV read in 16 bits where an engine keeps that copy, not the checkpoint's
        up_device = mla_absorbed_params_per_device(model, dep)
        costs["qkv_proj"] = (costs["qkv_proj"][0], costs["qkv_proj"][1] + n_layers * up_device * (2.0 - w("qkv_proj")))
    if prefill and model.kv_layout == "mla":  # a cached context's latents up-projected (qa460: left out, a 128-token
        m = model.mla  # prompt on 128k cached of DeepSeek-V3 priced 13 ms of attention, the 33.5 TFLOP expansion not)
        up = model.heads / tp * (m.qk_nope_head_dim + m.v_head_dim)
        cached = sum(layers * model.entries_read(g, s, 1.0) for g, layers in zip(model.groups, dep.stage_group_layers(model))
                     if not g.read_tokens) * b_a
        costs["qkv_proj"] = (costs["qkv_proj"][0] + 2.0 * m.kv_lora_rank * up * cached,
                             costs["qkv_proj"][1] + 2.0 * cached * up * a)
    o_in = (model.attention_output_width + 2.0 * model.o_groups * model.o_lora_rank) / tp  # o_lora_rank 0: no intermediate
    costs["o_proj"] = gemm("o_proj", model.o_params_per_layer, o_in, h, count=n_layers)

    # attention: per layer group, KV entries read per query averaged over the queries' causal positions
    d_qk, d_v = model.attention_dims_per_query_head(prefill)
    kv_elems = model.kv_elements_per_token_per_layer_per_device(tp)
    prefix = np.minimum(np.asarray(shared_prefix, dtype=np.float64), s)
    attn_flops, attn_bytes, write_bytes, index_flops, index_bytes = (zero.copy() for _ in range(5))
    for g, layers in zip(model.groups, dep.stage_group_layers(model)):  # each group's layers on the stage
        mean_len = s + (q + 1.0) / 2.0
        attn_flops = attn_flops + layers * attention_flops(model.heads, d_qk, d_v, tokens_a, model.mean_entries_read(g, s, q)) / tp
        read = model.entries_read(g, s + q, q)
        shared = read - model.entries_read(g, s + q - prefix, q) if shared_prefix_read_once else 0.0
        attn_bytes = attn_bytes + layers * (b_a * read - np.maximum(b_a - 1.0, 0.0) * shared) * kv_elems * c
        compressed = tokens_a / g.ratio if g.kind == "compressed" else 0.0  # its compressed entries (qa255: unwritten)
        write_bytes = write_bytes + layers * (tokens_a + compressed) * kv_elems * c
        if g.index_dim:  # the lightning indexer scores every indexed entry, then attention reads read_tokens of them
            c_index = model.index_bytes_per_element(g, dep.kv_dtype)
            indexed = model.indexed_entries(g, s + q)
            shared_index = indexed - model.indexed_entries(g, s + q - prefix) if shared_prefix_read_once else 0.0
            index_flops = index_flops + layers * 2.0 * g.index_heads * g.index_dim * tokens_a * model.indexed_entries(g, mean_len)
            index_bytes = index_bytes + layers * (b_a * indexed - np.maximum(b_a - 1.0, 0.0) * shared_index) * g.index_dim * c_index
            write_bytes = write_bytes + layers * tokens_a / (g.ratio if g.kind == "compressed" else 1) * g.index_dim * c_index
    costs["attention"] = (attn_flops, attn_bytes + attention_activation_bytes(model, tokens_a, dep, prefill, n_layers))
    costs["indexer"] = (index_flops, index_bytes)
    costs["kv_write"] = (zero, write_bytes)

    dense_layers = dense_stage if model.moe else n_layers
    ffn = model.ffn_size

    def split(cls: str):
        """(devices the class splits over, tokens it runs on): a stage_split class on the stage's gathered B q tokens
        over its D devices, a sequence_split class whole on ceil(T_a / tp) of its group's tokens, a class held whole
        on its group's T_a on one, else its group's T_a over tp (Deployment.split_of)."""
        if cls in dep.stage_split:  # every group's rows, each padded to the busiest group's but in a prefill (run
            return dep.devices_per_stage, gathered_tokens(b, q, dep, padded=not prefill)  # eagerly)
        return dep.split_of(cls), (sequence_split_tokens(tokens_a, dep) if cls in dep.sequence_split else tokens_a)  # whole: 1
    d_mlp, t_mlp = split("mlp")
    costs["mlp"] = gemm("mlp", model.dense_mlp_params, h + ffn / d_mlp, (2 if model.ffn_gated else 1) * ffn / d_mlp + h,
                        n_tokens=t_mlp, count=dense_layers, per_device=model.dense_mlp_params / d_mlp)
    if model.moe is not None:
        moe = model.moe
        moe_layers = moe_stage
        costs["router"] = gemm("router", model.router_params, h, moe.experts, n_tokens=split("router")[1], count=moe_layers,
                               per_device=model.router_params)
        touched, assigned = busiest_rank_experts(moe.experts, moe.top_k, b * q, dep.ep, moe.groups, moe.groups_per_token)
        expert_tp = dep.expert_tp
        expert_flops = 2.0 * model.expert_params * assigned / expert_tp * moe_layers
        expert_bytes = (touched * model.expert_params * w("experts") / expert_tp
                        + assigned * (2.0 * h + 3.0 * moe.expert_ffn_size / expert_tp) * a) * moe_layers
        costs["experts"] = (expert_flops, expert_bytes)
        if moe.shared_experts:
            d_shared, t_shared = split("shared_experts")
            width = moe.shared_ffn_width / d_shared
            costs["shared_experts"] = gemm("shared_experts", model.shared_expert_params, h + width, 2 * width + h,
                                           n_tokens=t_shared, count=moe_layers, per_device=model.shared_expert_params / d_shared)
        else:
            costs["shared_experts"] = (zero, zero)
    else:
        costs["router"] = (zero, zero)
        costs["experts"] = (zero, zero)
        costs["shared_experts"] = (zero, zero)

    elementwise = tokens_a * h * ELEMENTWISE_PASSES * n_layers
    costs["norms"] = (5.0 * elementwise, elementwise * a)
    d_head, _ = split("lm_head")
    head_tokens = gathered_tokens(b, q if logit_tokens is None else logit_tokens, dep, padded=not prefill) \
        if "lm_head" in dep.stage_split else logits  # every group's sequences, gathered (padded as the MLP's: qa152)
    costs["lm_head"] = gemm("lm_head", model.lm_head_params, h, model.vocab_size / d_head, n_tokens=head_tokens,
                            per_device=model.lm_head_params / d_head)
    return {name: (np.broadcast_to(f, zero.shape), np.broadcast_to(by, zero.shape)) for name, (f, by) in costs.items()}
