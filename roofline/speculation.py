"""Speculative decoding: tokens per iteration, draft and verify cost, speedup, best k, break-even batch.

Conventions (docs/reference/speculation.md): k draft tokens per iteration, bonus token
excluded; alpha is the per-token acceptance probability; tau, the tokens one iteration emits per
sequence, includes the bonus (or correction) token:

    tau = 1 + sum_{i=1..k} prod_{j<=i} a_j              (per-position conditional rates a_j)
        = (1 - alpha^(k+1)) / (1 - alpha)               (scalar alpha; k + 1 at alpha = 1)

Without alpha or rates, a method's published per-position defaults are used (DEFAULT_RATES, with
sources; positions past the list reuse its last rate); a draft model has none (it depends on the pair).

One iteration on B sequences with context S (engine terms from serving.py, B_a = sequences per
attention group):

    t_verify = t_step(target, B, q = k + 1, S)            (a tree of N nodes verifies q = N + 1 with a given tau;
               its host work added, not overlapped, under an engine with host_overlap_speculating false)
    t_draft  = k * (t_step(drafter, B, q_d, S) + spec_per_draft_step + spec_per_draft_step_per_sequence * B_d)
               (0 for n-gram: a host lookup, no drafter; the drafter's device's engine values; B_d its sequences per attention group: B on a device of its own;
                t_step includes that device's step_overhead, engine.py, under every engine, `ideal` too)
               q_d = 1 for a chain; ceil(N / k) for a tree of N nodes at depth k (each draft step widens the tree)
             = k * (t_step(drafter, B, 1, S) - step_overhead) + step_overhead + spec_per_draft_step
               + spec_per_draft_step_per_sequence * B_d                      (medusa: its k heads run in ONE pass on
               the last hidden state, q_d = 1 for a chain or a tree, its device's fixed overhead and launch once)
    t_spec   = spec_per_iteration + spec_per_iteration_per_sequence * B_a             (rejection sampling, KV bookkeeping)
    t_iter   = t_draft + t_verify + t_spec                                        (drafter on the target's devices)
             = t_draft + t_verify + t_transfer + t_spec      (a head drafter elsewhere: it needs the verified hidden
                                                              states before it can draft, so nothing overlaps)
             = min(max(2 t_draft(B/2), 2 t_verify(B/2)) + 2 t_link + spec_per_iteration, t_draft + t_verify)
               + t_transfer + t_spec                         (a draft model elsewhere with overlap and B >= 2: two
                                                              micro-batches, one drafted while the other is verified,
                                                              each paying the link's round trip 2 t_link and
                                                              spec_per_iteration, where that beats taking turns;
                                                              B = 1 or overlap off: the times add)
    t_transfer = 2 t_link + B * (4 (q - 1) + tau * (2 hidden [a head drafter] | 4 [a draft model])) / bw_link
                 (a round trip: the q - 1 draft tokens, k or a tree's N, as 4-byte ids to the target; back, what the
                 drafter goes on from: the hidden states of the tau tokens kept, in bf16, to a head drafter, which
                 extends its own KV with them (medusa's heads: the last kept token's alone, 1 for tau), or their
                 4-byte ids to a draft model; one latency each way, until
                 session 30 one in all, qa118); bw_link and t_link: a device of the target's kind on the target's
                 scale-up link (HardwareSpec.shares_scale_up: its engine_family, a copy made with `hw new` its source's
                 kind, and the same link fields) is one more GPU beside the target's (link_for(devices + 1): the scale-up
                 link while the domain has room, else the scale-out one); a device of another kind or board is never on
                 the target's NVLink, so the slower of the two devices' links outside their domain
                 (HardwareSpec.link_outside_domain: the scale-out link, or the one link a device has, PCIe)
    tokens/s = B * tau / t_iter;   speedup = tau * t_step(target, B, 1, S) / t_iter

Draft passes pay kernel latencies but not the engine's per-step host work (they run inside the
target's scheduler step; the per-draft-step term covers their launch and sampling). Under an engine that runs eagerly
(`graphs` false) every t_step above, draft and verify passes alike, is no faster than its host's kernel launches
(engine.py's launch_floor_s), and spec_per_draft_step, fitted in graphs, is paid beside them. Drafters:
    draft   a separate model profile (its own weights and KV cache count against memory)
    mtp     the target's own MTP block (a 2h -> h projection, one transformer block + the shared LM head); deeper than the
            model's trained modules it reuses the last one, and acceptance falls (the default rates)
    eagle   one dense decoder layer of the target's shapes + a 2h -> h projection; on the target's
            devices it shares the embedding and LM head (or brings a smaller draft vocabulary head),
            on other hardware it holds its own copies of both
    medusa  k heads on the target's last hidden state (a residual block each, h x h, and an LM head each of the
            target's vocabulary): one pass drafts every position, no KV cache of their own (drafter_spec: one head)
    ngram   prompt/n-gram lookup on the host: no device time
With k = 0 every method reduces to plain decoding: no draft time, no memory, tau = 1, speedup = 1.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from roofline.capacity import NO_CAP_BATCH, capacity, kv_shared_and_per_sequence_bytes
from roofline.costs import ACTIVATION_BYTES, sequences_per_group, weight_bytes_by_class
from roofline.engine import step_metrics, weight_only_note
from roofline.errors import PYTHON_CALLS, RooflineError, closest_names, field_error, field_line, shown_value
from roofline.hardware import HardwareSpec
from roofline.layout import OPERATOR_CLASS, Deployment, deployment, single_device
from roofline.limits import DRAFT_VOCAB_MAX, K_MAX, TREE_NODES_MAX
from roofline.model import BYTES_PER_ELEMENT, AttentionGroup, ModelSpec
from roofline.serving import DRAFTING_METHODS, IDEAL, ServingEngine, speculating_engine
from roofline.units import is_finite

METHODS = ("none", *DRAFTING_METHODS)
HEAD_DRAFTERS = ("mtp", "eagle", "medusa")  # drafters that read the target's hidden states: elsewhere, they wait for the verified ones
# heads whose LM head may cover part of the target's vocabulary, `draft_vocab`: EAGLE-3's draft_vocab_size, Medusa's
# truncated_vocab_size (vLLM's medusa.py: each head a ParallelLMHead of truncated_vocab_size rows and a token_map)
VOCAB_HEADS = ("eagle", "medusa")


def draft_vocab_of(method: str, draft_vocab: int | None) -> int | None:
    """A scenario's (or a caller's) draft vocabulary as method `method` takes it: its own for a head of VOCAB_HEADS,
    None for any other method, which has no draft vocabulary (one rule, where five call sites spelled it)."""
    return draft_vocab if method in VOCAB_HEADS else None
# Per-position conditional acceptance rates a_1, a_2, ... from published measurements (see each source).
DEFAULT_RATES = {
    "mtp": ((0.85, 0.63),
            "a1 0.85: DeepSeek-V3 Technical Report (arXiv:2412.19437) sec. 5.4.3, second-token acceptance 85-90%; "
            "a2.. 0.63: geometric fit to mean acceptance length 3.20 at k = 7 with the MTP module reused "
            "(Hugging Face model card nebius/MTP-DeepSeek-V3-0324)"),
    "eagle": ((0.72, 0.53, 0.50),
              "EAGLE-1 chain drafts on Llama-3(.1)-8B in vLLM, MT-bench: mean acceptance length 1.72 at k = 1 "
              "(vllm-project/vllm PR 16035) and 2.10, 2.29 at k = 2, 3 (vllm-project/vllm issue 20780), "
              "as conditional rates"),
    "ngram": ((0.42,),
              "prompt lookup decoding on Spec-Bench (hemingkx/Spec-Bench Leaderboard.md): 1.73 tokens per step, "
              "as a constant rate at the lookup's default of 10 proposed tokens (0.422; 0.42, two digits, gives 1.72)"),
}


def tau_scalar_alpha(alpha, k):
    """(1 - alpha^(k+1)) / (1 - alpha), with its limit k + 1 at alpha = 1; broadcasts. Computed as
    -expm1((k + 1) log1p(alpha - 1)) / (1 - alpha), exact to rounding as alpha nears 1 (qa215: a tolerance of 1e-5
    set tau to k + 1 from alpha 0.99999 on, 64.98 -> 65 at k = 64)."""
    alpha = np.asarray(alpha, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    one = alpha == 1.0
    safe = np.where(one, 0.5, alpha)
    with np.errstate(divide="ignore"):  # alpha 0: log1p(-1) = -inf, expm1(-inf) = -1, tau 1
        tau = -np.expm1((k + 1.0) * np.log1p(safe - 1.0)) / (1.0 - safe)
    return np.where(one, k + 1.0, np.where(k == 0, 1.0, tau))  # k = 0: exactly 1 (plain decoding: its speedup exactly 1)


def alpha_from_tau(tau, k, iterations: int = 60):
    """The scalar alpha with (1 - alpha^(k+1)) / (1 - alpha) = tau, by bisection on [0, 1] (tau is increasing
    in alpha, from 1 at alpha = 0 to k + 1 at alpha = 1); broadcasts over tau and k. tau <= 1 gives 0,
    tau >= k + 1 gives 1."""
    tau = np.asarray(tau, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    low = np.zeros(np.broadcast(tau, k).shape)
    high = np.ones_like(low)
    for _ in range(iterations):
        mid = 0.5 * (low + high)
        above = tau_scalar_alpha(mid, k) > tau
        high = np.where(above, mid, high)
        low = np.where(above, low, mid)
    out = 0.5 * (low + high)
    return np.where(tau <= 1.0, 0.0, np.where(tau >= k + 1.0, 1.0, out))


def alpha_from_acceptance_length(where: str, acceptance_length, k) -> float:
    """The per-token alpha of a measured acceptance length (tokens an iteration, the bonus token included, as vLLM's
    "Mean acceptance length" and SGLang's "accept len" (its log) or "Accept length" (bench_serving) give it) at the k it was measured with: alpha_from_tau.
    tau in [1, k + 1] and k >= 1, else one line."""

    if isinstance(acceptance_length, bool) or not isinstance(acceptance_length, (int, float)) or not is_finite(acceptance_length):
        raise RooflineError(f"{where}: acceptance_length: expected a number of tokens an iteration, found {acceptance_length!r}")
    if not isinstance(k, (int, np.integer)) or not 1 <= k <= K_MAX:
        raise RooflineError(f"{where}: acceptance_length: expected the draft length k in 1..{K_MAX} it was measured at, found k = {k}")
    if not 1.0 <= acceptance_length <= k + 1:
        raise RooflineError(f"{where}: acceptance_length: expected tokens an iteration in [1, k + 1 = {k + 1}] at k = {k} "
                            f"(the bonus token included), found {acceptance_length:.15g}")  # qa285: :g gave 5 of 5.0000001
    return float(alpha_from_tau(acceptance_length, k))


def tau_from_rates(rates, k):
    """1 + sum_{i=1..k} prod_{j<=i} a_j; positions past the list reuse its last rate; broadcasts over k."""
    rates = np.asarray(rates, dtype=np.float64).ravel()
    k = np.asarray(k)
    k_max = int(np.max(k)) if k.size else 0
    if rates.size == 0:
        raise RooflineError("acceptance: expected at least one rate, found an empty list")
    full = np.concatenate([rates, np.full(max(k_max - rates.size, 0), rates[-1])])[: max(k_max, 1)]
    cumulative = np.concatenate([[1.0], 1.0 + np.cumsum(np.cumprod(full))])
    return cumulative[k.astype(np.int64)]


def _check_leviathan(where: str, alpha, k, cost, cost_name: str) -> None:
    """One line where an input of Leviathan's closed forms lies outside them: alpha in [0, 1], k a whole number >= 0, the
    draft's cost >= 0 (qa440: alpha 1.5 gave a speedup of 9.4, k = -1 a speedup of 0)."""
    for name, value, ok, expected in (
            ("alpha", alpha, lambda v: (v >= 0) & (v <= 1), "acceptance rates in [0, 1]"),
            ("k", k, lambda v: (v >= 0) & (v % 1 == 0), "whole numbers of draft tokens, 0 or more"),
            (cost_name, cost, lambda v: v >= 0, "costs of 0 or more (a draft step over a target step)")):
        v = np.asarray(value, dtype=float)
        bad = ~ok(v)
        if np.any(bad):
            raise RooflineError(f"{where}: {name}: expected {expected}, found {shown_value(v[bad].flat[0].item())}")


def leviathan_speedup(alpha, k, c):
    """Walltime improvement with verification costing one target step: (1 - a^(k+1)) / ((1 - a)(k c + 1))."""
    _check_leviathan("leviathan_speedup", alpha, k, c, "c")
    return tau_scalar_alpha(alpha, k) / (np.asarray(k) * np.asarray(c) + 1.0)


def leviathan_ops_factor(alpha, k, c_hat):
    """Arithmetic operations per token relative to plain decoding: (1 - a)(k c_hat + k + 1) / (1 - a^(k+1))."""
    _check_leviathan("leviathan_ops_factor", alpha, k, c_hat, "c_hat")
    return (np.asarray(k) * np.asarray(c_hat) + np.asarray(k) + 1.0) / tau_scalar_alpha(alpha, k)


def drafter_spec(method: str, target: ModelSpec, draft: ModelSpec | None = None, draft_vocab: int | None = None) -> ModelSpec | None:
    """The model whose forward pass one draft step runs (None for none/ngram).

    mtp: eh_proj (2h -> h) and one block of the target (MoE if the target is MoE) with the shared LM head; full
         attention, or a sliding window of the profile's mtp_window tokens (DeepSeek-V4's MTP block).
    eagle: fc (2h -> h) and one dense decoder layer of the target's shapes (its attention layout too: MLA for an MLA
           target, as vLLM's and SGLang's DeepSeek EAGLE-3 heads run it), full attention, LM head of `draft_vocab` rows.
    Both projections are the drafter's `input_projection` (costs' input_proj), read and computed in every draft step
    as EAGLE-1's fc and MTP's eh_proj are. EAGLE-3 is charged as EAGLE-1: its fc (3h -> h) runs once an iteration
    in vLLM, but its layer's QKV projection reads a 2h-wide input (embedding and hidden state) in every step; for
    Llama-3.1-8B at k = 4 that is 101 MB + 4 x 50 MB against the 4 x 67 MB charged here, 34 MB (1.1%) more than the
    3.1 GB the four draft steps read with a 32k-row head: too little to need a method of its own.
    medusa: ONE of the k heads (model.medusa_head): a residual block x + SiLU(W x), W h x h, on the target's last
            hidden state, and its own LM head of the target's vocabulary, or of `draft_vocab` rows (vLLM's Medusa model:
            ResidualBlock, one ParallelLMHead a head of truncated_vocab_size rows); no layers, no embedding, no KV cache. All k heads run on the same hidden state in
            one pass (speculative_metrics prices k heads' GEMMs and one pass's fixed costs).
    """
    method = method_name(method)  # any case (qa220: a library caller's 'MEDUSA')
    if method in ("none", "ngram"):
        return None
    if method == "draft":
        if draft is None:
            raise RooflineError("draft: method 'draft' needs a draft model name, found none")
        return draft
    one_layer = (AttentionGroup(kind="full", layers=1),)
    if method == "mtp":
        if target.mtp_modules < 1:
            raise RooflineError(f"method: expected a model with MTP modules for mtp, found {target.name!r} (mtp_modules: 0); "
                               "use eagle or draft")
        moe = None if target.moe is None else dataclasses.replace(target.moe, dense_layers=0)
        groups = (AttentionGroup(kind="sliding", layers=1, window=target.mtp_window),) if target.mtp_window else one_layer
        return dataclasses.replace(target, name=f"{target.name}-mtp", layers=1, groups=groups, layer_groups=(), moe=moe, mtp_modules=0,
                                   mtp_window=0, input_projection=True)
    if method == "eagle":  # an MLA target's head keeps MLA attention: vLLM's deepseek_eagle3.py and SGLang's
        # (DeepseekV2MLAAttention + DeepseekV2MLP: "Eagle3 ... for DeepseekV2/V3 with MLP (no MoE)")
        return dataclasses.replace(
            target, name=f"{target.name}-eagle", layers=1, groups=one_layer, layer_groups=(), moe=None, mtp_modules=0,
            vocab_size=draft_vocab or target.vocab_size, input_projection=True,
        )
    if method == "medusa":
        return dataclasses.replace(
            target, name=f"{target.name}-medusa", layers=0, groups=(), layer_groups=(), moe=None, mtp_modules=0, mtp_window=0,
            tied_embeddings=False, input_projection=True, medusa_head=True, vocab_size=draft_vocab or target.vocab_size,
        )
    raise unknown_method("method", method)


def method_name(method: object) -> object:
    """A method as given, in any case and without surrounding spaces ('EAGLE' is eagle, as profile names are read:
    qa217), anything else as it is (refused by check_options)."""
    return method.strip().lower() if isinstance(method, str) else method


# the engines' own names of a method this tool names otherwise (qa405: SGLang's NEXTN was offered nothing): vLLM's
# --speculative-config method values (vllm/config/speculative.py) and SGLang's --speculative-algorithm values
ENGINE_METHOD_NAMES = {
    "nextn": ("mtp", "SGLang's NEXTN is DeepSeek's multi-token prediction"),
    "deepseek_mtp": ("mtp", "vLLM's deepseek_mtp is DeepSeek's multi-token prediction"),
    "standalone": ("draft", "SGLang's STANDALONE is a draft model"),
    "draft_model": ("draft", "vLLM's draft_model is a draft model"),
    "eagle3": ("eagle", "EAGLE-3 is an EAGLE head, its acceptance given as alpha or acceptance_length"),
}
ENGINE_METHOD_NAMES["eagle_3"] = ENGINE_METHOD_NAMES["eagle3"]  # EAGLE-3 as the papers spell it (- read as _: qa412)


def unknown_method(where: str, method: object) -> RooflineError:
    """`WHERE: method: expected one of ..., found X`, naming the method meant where it is close to one."""
    close = closest_names(method.lower(), METHODS, 1, 0.8) if isinstance(method, str) else []
    engines_word = ENGINE_METHOD_NAMES.get(method.strip().lower().replace("-", "_")) if isinstance(method, str) else None
    hint = (f" ({engines_word[1]}: method {engines_word[0]} here)" if engines_word else
            f" (did you mean {close[0]}?)" if close else "")
    shown = shown_value(method)  # YAML's true, as written (qa120); a Series by its type, on one line (qa218)
    line = field_line(where, "method")  # a scenario file's line, as its other errors say (qa182)
    return RooflineError(f"{where}: {f'line {line}: ' if line else ''}method: expected one of {' | '.join(METHODS)}, "
                         f"found {shown}{hint}")


def drafter_deployment(method: str, drafter: ModelSpec | None, target_dep: Deployment, elsewhere: bool) -> Deployment | None:
    """Where and in which dtypes the drafter runs: on its own device when `elsewhere`; a head drafter
    shares the target's layout (one pipeline stage); a draft model runs at the target's tp where its
    heads allow (layout.deployment's rule; else at tp 1) and with the target's attention data parallelism, each
    attention group drafting its own ceil(B / dp_attention) sequences (as their KV cache is counted), in the
    dtype of the target's attention weights."""
    if drafter is None:
        return None
    # a head without experts (EAGLE's dense layer on a MoE target) labelled as one (qa285: 'fp4 experts')
    dep = dataclasses.replace(target_dep, pp=1, has_experts=target_dep.has_experts and drafter.moe is not None)
    if method == "draft":
        layout = dict(weight_dtype=target_dep.dtype("attention"), kv_dtype=target_dep.kv_dtype, dp_attention=target_dep.dp_attention)
        try:
            dep = deployment(drafter, tp=target_dep.tp, **layout)
        except RooflineError:  # the draft model's heads do not split tp ways
            dep = deployment(drafter, tp=1, **layout)
    return single_device(dep) if elsewhere else dep


def drafter_ttft_s(method: str, target: ModelSpec, draft: ModelSpec | None, draft_vocab: int | None, hw: HardwareSpec,
                   draft_hw: HardwareSpec | None, dep: Deployment, engine: ServingEngine, prompt, shared_prefix=0):
    """The drafter's own prefill of `prompt` tokens (its KV cache; of those past a cached `shared_prefix`, as the
    target's: engine.cached_prefix_tokens), engine.ttft_s of drafter_spec's model at
    drafter_deployment: on `draft_hw` with that device's engine values (ServingEngine.for_other_hardware) where the
    drafter runs elsewhere, else on `hw` with `engine`, without the engine's host work (it runs in the target's
    scheduler step, as the draft passes do); None for a method without a drafter model (none, ngram) or without a
    prefill of its own (medusa)."""
    from roofline.engine import ttft_s

    where = _drafter_prefill_where(method, target, draft, draft_vocab, hw, draft_hw, dep, engine)
    return None if where is None else ttft_s(*where[:2], prompt, *where[2:], shared_prefix)


def _drafter_prefill_where(method, target, draft, draft_vocab, hw, draft_hw, dep, engine) -> tuple | None:
    """(device, drafter model, its deployment, engine) a drafter's own prefill runs on: drafter_spec's model at
    drafter_deployment, on `draft_hw` with that device's engine values where it runs elsewhere, else on `hw`; without
    the engine's host work (in the target's scheduler step, as a draft pass; qa352: paid twice); None for a method
    without a drafter model (none, ngram) or without a prefill of its own (medusa: its heads run on the last hidden
    state)."""
    drafter = drafter_spec(method, target, draft, draft_vocab)
    if drafter is None or drafter.medusa_head:
        return None
    on = engine if draft_hw is None else engine.for_other_hardware(draft_hw)
    return (hw if draft_hw is None else draft_hw, drafter, drafter_deployment(method, drafter, dep, draft_hw is not None),
            dataclasses.replace(on, host_per_step_s=0.0, host_per_sequence_s=0.0))


def drafter_prefill_stall_s(method: str, target: ModelSpec, draft: ModelSpec | None, draft_vocab: int | None,
                            hw: HardwareSpec, draft_hw: HardwareSpec | None, dep: Deployment, engine: ServingEngine, prompt,
                            running, shared_prefix=0):
    """What the drafter's own prefill of an arriving `prompt` adds to the iteration of the `running` sequences:
    engine.arrival_stall_s of drafter_spec's model at drafter_deployment, beside a draft pass of one token a sequence (a
    pass of its own, or its tokens mixed into that pass under mixed_prefill), without the engine's host work (in the
    target's scheduler step, as drafter_ttft_s); on `draft_hw`, where the drafter runs elsewhere, with that device's
    engine values (the target waits on the drafting it holds up). None for a method without a drafter model's prefill
    (none, ngram, medusa). A serving benchmark's time per output token adds it to the target's own stall (qa354:
    left out, a 70B draft model's prefill 2% of its TPOT)."""
    from roofline.engine import arrival_stall_s

    where = _drafter_prefill_where(method, target, draft, draft_vocab, hw, draft_hw, dep, engine)
    return None if where is None else arrival_stall_s(*where[:2], prompt, running, *where[2:], 1, shared_prefix)


def drafter_weight_bytes(method: str, drafter: ModelSpec | None, dep: Deployment | None, elsewhere: bool,
                         draft_vocab: int | None = None, target_vocab: int | None = None) -> float:
    """Weight bytes the drafter adds on its device (of one head, for Medusa: speculation_capacity counts k).

    A draft model brings all its weights. A Medusa head brings its h x h block, whole on every tensor-parallel rank, and
    its own LM head of the target's vocabulary (or `draft_vocab`'s: drafter_spec), split as the target's; anywhere. MTP
    and EAGLE heads bring their block and a 2h -> h projection of (hidden state, embedding), unquantised and whole on every tensor-parallel rank (costs'
    input_proj); on the target's devices they share its embedding and LM head (EAGLE with a reduced
    `draft_vocab` brings that head), on other hardware they hold both (a tied model's one matrix once): the embedding
    at the target's vocabulary `target_vocab` (it looks up the target's token ids; vLLM's EAGLE-3 sizes only its LM head
    by draft_vocab_size).
    """
    if drafter is None:
        return 0.0
    if drafter.medusa_head:  # one head: its block whole on every rank, its LM head split as the target's (ParallelLMHead)
        return float(drafter.input_projection_params * BYTES_PER_ELEMENT[dep.dtype(OPERATOR_CLASS["input_proj"])]
                     + drafter.lm_head_params * BYTES_PER_ELEMENT[dep.dtype("lm_head")] / dep.split_of("lm_head"))
    by_class = weight_bytes_by_class(drafter, dep)
    if method == "draft":
        return float(sum(by_class.values()))
    own = sum(v for c, v in by_class.items() if c not in ("embedding", "lm_head"))
    own += drafter.input_projection_params * BYTES_PER_ELEMENT[dep.dtype(OPERATOR_CLASS["input_proj"])]  # replicated: no / tp
    if elsewhere:  # a tied model's one matrix is both, unless a draft vocabulary gives the head rows of its own
        embedding = by_class["embedding"] * (target_vocab / drafter.vocab_size if draft_vocab and target_vocab else 1.0)
        own += embedding + (by_class["lm_head"] or (by_class["embedding"] if draft_vocab else 0.0))
    elif method == "eagle" and draft_vocab:
        own += by_class["lm_head"] or by_class["embedding"]
    return float(own)


def check_options(where: str, method: str, *, draft=None, draft_vocab=None, alpha=None, acceptance=None,
                  tree_nodes=None, tree_tau=None, k=None, k_given: bool = True) -> None:
    """The one check of speculation options (CLI, scenario files and the Python API call it): method
    known; a draft model exactly with method draft; a draft vocabulary only for EAGLE; alpha or rates
    in [0, 1], not both; a tree with both its node count and tau, and no alpha or rates beside it, its tau at most
    k + 1 and its nodes at least k for every depth k > 0 given (`k_given` False: k is the default, and a tau above
    it says so)."""

    if not isinstance(method, str) or method_name(method) not in METHODS:  # qa218: pd.NA, an array: no 'in' test
        raise unknown_method(where, method)
    method = method_name(method)
    if method == "draft" and not draft:
        raise RooflineError(f"{where}: draft: expected a draft model name with method draft, found none")
    if draft and method != "draft":
        raise RooflineError(f"{where}: draft: expected only with method draft, found method {method}")
    if draft_vocab is not None and method not in VOCAB_HEADS:
        raise RooflineError(f"{where}: draft_vocab: expected only with method eagle or medusa, found method {method}")
    if draft_vocab is not None and (isinstance(draft_vocab, bool) or not isinstance(draft_vocab, int) or not 1 <= draft_vocab <= DRAFT_VOCAB_MAX):
        # the file's line and its spelling of the value, as the other fields say them (qa262: 'found True', no line)
        raise field_error(where, "draft_vocab", f"an integer in 1..{DRAFT_VOCAB_MAX:,}", draft_vocab)
    if alpha is not None and acceptance is not None:
        raise RooflineError(f"{where}: alpha and acceptance: expected one of them, found both")
    given = alpha if alpha is not None else (acceptance if acceptance is not None else [])
    if isinstance(given, (list, tuple)) and any(v is None for v in given):  # None reads as nan below (qa92: 'found nan')
        raise RooflineError(f"{where}: {'alpha' if alpha is not None else 'acceptance'}: expected rates in [0, 1], found None")
    values = np.atleast_1d(np.asarray(given, dtype=np.float64))
    if values.size and not np.all(np.isfinite(values) & (values >= 0) & (values <= 1)):
        bad = values[~(np.isfinite(values) & (values >= 0) & (values <= 1))][0]
        hint = (" (a number above 1 reads like an acceptance length, tokens an iteration: give it as acceptance_length)"
                if np.isfinite(bad) and 1 < bad <= K_MAX + 1 else "")  # the command line names the flag
        what = "a rate" if alpha is not None and np.ndim(alpha) == 0 else "rates"  # qa218: one alpha said as 'rates'
        raise RooflineError(f"{where}: {'alpha' if alpha is not None else 'acceptance'}: expected {what} in [0, 1], found {bad}{hint}")
    if acceptance is not None and values.size == 0:
        raise RooflineError(f"{where}: acceptance: expected at least one rate, found an empty list")
    if acceptance is not None and values.size > K_MAX:  # qa288: rates past the longest draft were never read, unsaid
        raise RooflineError(f"{where}: acceptance: expected at most {K_MAX} rates (one a draft position; k is at most "
                            f"{K_MAX}), found {values.size}")
    if (tree_nodes is None) != (tree_tau is None):
        raise RooflineError(f"{where}: tree_nodes and tree_tau: expected both or neither, found one")
    if tree_nodes is not None:
        if alpha is not None or acceptance is not None:
            raise RooflineError(f"{where}: tree_tau: a tree takes its tau from tree_tau, found alpha or acceptance as well")
        if isinstance(tree_nodes, bool) or not isinstance(tree_nodes, int) or not 1 <= tree_nodes <= TREE_NODES_MAX:
            raise RooflineError(f"{where}: tree_nodes: expected an integer in 1..{TREE_NODES_MAX}, found {tree_nodes!r}")
        depths = np.atleast_1d(np.asarray(k if k is not None else [], dtype=np.float64))
        depths = depths[depths > 0]
        depth_bound = float(depths.min()) + 1 if depths.size else math.inf  # the k check below says a tighter bound (qa433:
        # 'in [1, tree_nodes + 1 = 11]', then 'at most k + 1 = 4' of the 8 given next)
        if (isinstance(tree_tau, bool) or not isinstance(tree_tau, (int, float)) or not is_finite(tree_tau) or tree_tau < 1
                or tree_tau > tree_nodes + 1 and tree_nodes + 1 <= depth_bound):
            raise RooflineError(f"{where}: tree_tau: expected a number in [1, tree_nodes + 1 = {tree_nodes + 1}], found {tree_tau!r}")
    if k is not None:
        ks = np.atleast_1d(np.asarray(k))
        if ks.size and (ks.min() < 0 or ks.max() > K_MAX):
            raise RooflineError(f"{where}: k: expected draft lengths in 0..{K_MAX}, found {int(ks.min() if ks.min() < 0 else ks.max())}")
        depths = ks[ks > 0]
        if tree_nodes is not None and depths.size:  # k is the tree's depth: k + 1 tokens at most, k nodes at least
            shallow, deep = int(depths.min()), int(depths.max())
            if tree_tau > shallow + 1:
                raise RooflineError(f"{where}: tree_tau: expected at most k + 1 = {shallow + 1} (a tree of depth k = {shallow} "
                                    f"emits at most k + 1 tokens an iteration{'' if k_given else '; k not given: the default depth, give k'}), "
                                    f"found {tree_tau!r}")
            if tree_nodes < deep:
                raise RooflineError(f"{where}: tree_nodes: expected at least the depth k = {deep} (a node per level), "
                                    f"found {tree_nodes}")
    if alpha is None and acceptance is None and tree_nodes is None and method not in ("none", *DEFAULT_RATES):
        default_rates(method, where)  # raises: a draft model needs its acceptance


def mtp_reused_text(modules: int) -> str:
    """How an engine drafts past a model's `modules` trained MTP modules: 'the last is reused' of one; of several, in
    turn (vLLM's DeepSeekMultiTokenPredictor: draft step i runs module i mod n; qa433: 'the last' of three)."""
    return "the last is reused" if modules <= 1 else f"they are reused in turn (vLLM: position i runs module i mod {modules})"


def mtp_reuse_note(method: str, target: ModelSpec, k_max: int, rates_default: bool, one_point: bool = False) -> str:
    """'mtp on deepseek-v3: k up to 4 exceeds ...' where MTP drafts past the model's trained modules (the last one is
    run again for every further position), as predict's `mtp_module_reused` says of one point ('k 3 exceeds' with
    `one_point`: cheapest's pick); '' otherwise."""
    if method != "mtp" or target.mtp_modules < 1 or k_max <= target.mtp_modules:  # none at all: refused elsewhere
        return ""
    modules = f"{target.mtp_modules} trained MTP module{'s' if target.mtp_modules != 1 else ''}"
    return (f"mtp on {target.name}: k {'' if one_point else 'up to '}{k_max} exceeds its {modules}: "
            f"{mtp_reused_text(target.mtp_modules)} for every further position, "
            + ("and the default rates accept later positions less often" if rates_default
               else "at the acceptance given (a reused module accepts less in practice)"))


def acceptance_reach_note(method: str, k_values, acceptance=None, acceptance_length=None, alpha=None,
                          flat_alpha: bool = False) -> str:
    """What the draft lengths `k_values` ask of the acceptance given, '' where nothing: rates given for fewer positions
    than the largest k (the last is taken at every further one), an acceptance length measured at one k swept as one
    rate at other k (acceptance falls with the position in practice: past the k measured the gains run optimistic,
    before it low), or (`flat_alpha`: a sweep's alpha axis) one alpha taken at every position to a k of 2 or more
    (qa313: predict said best k then runs optimistic, a sweep and its report recommending the largest k did not)."""
    ks = sorted({int(k) for k in np.atleast_1d(k_values) if k > 0})
    if method == "none" or not ks:
        return ""
    k_max = ks[-1]
    ends = acceptance is not None and any(float(a) == 0.0 for a in acceptance)  # every draft ends at a rate of 0 (qa215)
    if acceptance is not None and k_max > len(acceptance) and not ends:
        n = len(acceptance)
        taken = f"the last of the {n} rates given ({acceptance[-1]:g})" if n > 1 else f"the one rate given ({acceptance[-1]:g})"
        where = f"draft position {k_max}" if n + 1 == k_max else f"draft positions {n + 1}-{k_max}"
        return (f"{method}: k up to {k_max} takes {taken} at {where}; acceptance falls with the position in practice, so "
                f"the gains there run optimistic: give rates to position {k_max}")
    if acceptance_length is not None:
        tau, k_measured = acceptance_length
        sides = ([f"at k above {k_measured} the gains run optimistic"] if k_max > k_measured else []) + (
            ["at k below it low" if k_max > k_measured else f"at k below {k_measured} the gains run low"] if ks[0] < k_measured else [])
        if sides:
            return (f"{method}: the acceptance length {tau:g} measured at k = {k_measured} is swept as one rate"
                    + (f", alpha {alpha:.3g}," if alpha is not None else "")
                    + f" at every draft position: {', '.join(sides)} (acceptance falls with the position in practice); "
                    "measure at the k swept to compare")
    if flat_alpha and acceptance is None and acceptance_length is None and k_max >= 2:
        return (f"{method}: each alpha is taken at every draft position, to k {k_max}; acceptance falls with the position "
                "in practice, so the best k and the gains at the larger k run optimistic: per-position rates "
                "(acceptance: in the scenario) place them better")
    return ""


def rising_rates_note(acceptance) -> str:
    """A note where per-position rates rise with the position, or go on after a 0 (qa130), else '': the formula takes
    them as given, but conditional rates usually fall, and a rising list is often one of unconditional rates (vLLM's
    per-position acceptance rates are: divide each by the one before)."""
    if not acceptance or len(acceptance) < 2:
        return ""
    rates = [float(a) for a in acceptance]
    if 0.0 in rates[:-1]:
        return (f"acceptance: rate 0 at draft position {rates.index(0.0) + 1} ends every draft there, so the rates after it "
                "are never used")
    rise = next((i for i in range(1, len(rates)) if rates[i] > rates[i - 1]), None)
    if rise is None:
        return ""
    return (f"acceptance: the rates rise with the position ({rates[rise - 1]:g} then {rates[rise]:g} at draft position "
            f"{rise + 1}); they are taken as conditional rates, which usually fall: a per-position rate that is not "
            "conditional (vLLM's are not) divides by the one before")


PP_SPECULATION = ("vLLM refused speculative decoding with pipeline parallelism (vllm-project/vllm issue 14117) until its "
                  "Model Runner V2 ran EAGLE-3-style drafters under PP for target models that opt in (PR 50514, merged "
                  "2026-07-31), and its MTP under PP fails or corrupts output (issues 49355, 57755); TensorRT-LLM's "
                  "PyTorch executor refuses a drafter with pipeline parallelism (NVIDIA/TensorRT-LLM issue 9009, "
                  "1.2.0rc2), and SGLang's server-args check refuses speculative decoding at pp > 1")  # qa210, qa233


def tokenizer_mismatch(target: ModelSpec, draft: ModelSpec) -> str:
    """Why no engine runs `draft` as `target`'s draft model (another vocabulary size, or another tokenizer family where
    both profiles name theirs: engines verify draft tokens by id), or ''."""
    if draft.vocab_size != target.vocab_size:
        return (f"draft model {draft.name} has a vocabulary of {draft.vocab_size:,} tokens and {target.name} one of "
                f"{target.vocab_size:,}: engines verify draft tokens by id, so a draft model must share the target's tokenizer")
    if draft.tokenizer and target.tokenizer and draft.tokenizer != target.tokenizer:
        return (f"draft model {draft.name} uses the {draft.tokenizer} tokenizer and {target.name} the {target.tokenizer} one "
                f"(the same {target.vocab_size:,} tokens in number, not in meaning): engines verify draft tokens by id, so "
                "a draft model must share the target's tokenizer")
    return ""


# where the engines run a drafter: on the target's own devices, in the target's worker (vLLM V1's proposers are built
# inside its GPUModelRunner, vllm/v1/worker/gpu_model_runner.py, on the runner's device; SGLang's EAGLEWorker and its
# standalone draft worker are TpModelWorkers made with the scheduler's gpu_id, sglang/srt/managers/scheduler.py;
# TensorRT-LLM's PyTorch backend runs the draft model inside the target's executor, tensorrt_llm/_torch/speculative)
DRAFTER_ON_TARGET = ("vLLM, SGLang and TensorRT-LLM run a drafter on the target's own devices, in the target's worker "
                     "(vLLM's proposer in its GPU model runner, SGLang's draft worker on the scheduler's GPU)")


def drafter_placement_note(devices: list[str], engine_name: str) -> str:
    """That a drafter on a device of its own (`devices`, each said once) is no setup engine `engine_name` runs."""
    return (f"a drafter on a device of its own ({', '.join(dict.fromkeys(devices))}) is a what-if under {engine_name}: "
            f"{DRAFTER_ON_TARGET}, so no shipped engine runs this placement: the figures price what such a split would "
            f"buy, with {engine_name}'s costs")


def drafter_warnings(method: str, target: ModelSpec, draft: ModelSpec | None, draft_hw: HardwareSpec | None,
                     pp: int = 1, dep: Deployment | None = None, engine: ServingEngine | None = None) -> list[str]:
    """What a user must know about a drafter that predict and sweep still price: a draft model with another
    tokenizer, a head drafter on other hardware, which waits for the verified hidden states, speculation under
    pipeline parallelism, which the engines refuse or run only behind a flag, and (given the target's `dep`) a
    drafter whose weights its own device dequantises (fp8 on an A100: weight-only there, qa86). Under an `engine` that
    refuses speculation at pp > 1 its own note says so (serving.speculation_engine_notes), not this one (qa177)."""
    out = []
    method = method_name(method)  # any case (qa224)
    if engine is not None and method in engine.speculation_refused:  # its own note says no setup runs it (qa220)
        return out
    if draft_hw is not None and dep is not None and method != "ngram" and (method != "draft" or draft is not None):
        drafter = drafter_spec(method, target, draft)
        note = weight_only_note(draft_hw, drafter_deployment(method, drafter, dep, True), drafter) if drafter is not None else ""
        if note:
            out.append(f"the drafter's {note}")
    if method != "none" and pp > 1 and not (engine is not None and engine.speculation_refused_with_pp):  # else its own
        out.append(f"{method} with pp {pp}: {PP_SPECULATION}: this prices a layout serving engines may not run")
    if method == "draft" and draft is not None and (mismatch := tokenizer_mismatch(target, draft)):
        out.append(mismatch)
    if (method == "draft" and draft is not None and draft_hw is None and target.moe is None and draft.moe is None
            and draft.params >= target.params):  # (qa380: 0.311x unexplained; a MoE model reads its active parameters
        # and more as the batch grows, and a drafter on a faster device of its own can pay: qa381, not said of those)
        out.append(f"draft model {draft.name} ({draft.params / 1e9:.3g}B parameters) is no smaller than its target "
                   f"{target.name} ({target.params / 1e9:.3g}B): a draft pass costs about a decode step or more, so "
                   "speculation cannot pay (at best a tie, every draft accepted); a draft model is usually a tenth of its "
                   "target or less")
    if draft_hw is not None and engine is not None and engine.name != "ideal" and method != "ngram":  # qa391: priced as
        # the engine's, where it has no such placement
        out.append(drafter_placement_note([draft_hw.name], engine.name))
    if method in HEAD_DRAFTERS and draft_hw is not None:
        who = (f"the {method} heads on {draft_hw.name} need", "they draft") if method == "medusa" else (  # its k heads (qa216)
            f"the {method} head on {draft_hw.name} needs", "it drafts")
        out.append(f"{who[0]} the verified hidden states before {who[1]}: drafting and verification cannot overlap")
    return out


def check_draft_vocab(where: str, draft_vocab: int | None, target: ModelSpec) -> None:
    """A head drafter's vocabulary is the target's or a reduced part of it (EAGLE-3's 32k heads): never larger."""
    if draft_vocab is not None and draft_vocab > target.vocab_size:
        raise RooflineError(f"{where}: draft_vocab: expected at most the vocabulary of {target.name} ({target.vocab_size:,} "
                            f"tokens: a head drafter's LM head covers part of it), found {draft_vocab:,}")


def check_speculating(where: str, methods, *, alpha=None, acceptance=None, tree_nodes=None, draft_hardware=None,
                      k=None, overlap: bool = True) -> None:
    """The options that only speculation uses need a method that uses them (CLI, scenario files and the Python API
    call this once with every method they run): an acceptance (alpha, rates), a tree or draft lengths above 0 (`k`,
    where given by the caller rather than defaulted) need a speculation method, a drafter's device a method that runs a
    drafter (n-gram lookup drafts on the host), overlap off a draft model on a device of its own (the one drafter that
    overlaps with verification)."""
    methods = tuple(methods)
    if all(m == "none" for m in methods):
        drafts = None if k is None or not np.any(np.asarray(k) > 0) else k
        for name, value in (("alpha", alpha), ("acceptance", acceptance), ("tree_nodes", tree_nodes), ("k", drafts)):
            if value is not None:
                raise RooflineError(f"{where}: {name}: expected only with a speculation method (method draft, mtp, eagle, "
                                    f"medusa or ngram), found method none")
    if draft_hardware is not None and all(m in ("none", "ngram") for m in methods):
        raise RooflineError(f"{where}: draft_hardware: expected only with a method that runs a drafter (draft, mtp, "
                            f"eagle or medusa), found method {' and '.join(methods)}")
    if not overlap and (draft_hardware is None or "draft" not in methods):  # said, not ignored (qa93: the API ignored it)
        # the command line's flag, spelled as the user typed it; a library caller's or a file's field (qa344: a keyword
        # argument overlap=False was told of --no-overlap)
        cli = where == "command line"
        field, hardware = ("--no-overlap", "--draft-hardware") if cli else ("overlap", "draft_hardware")
        off = "False" if where in PYTHON_CALLS else "false"  # as a library caller passed it, as a file writes it
        raise RooflineError(f"{where}: {field}: expected {'it' if cli else off} only with a draft model on a device of its "
                            f"own (method draft and {hardware}: the one drafter that overlaps with verification), found "
                            f"{'' if cli else off + ' with '}method {' and '.join(methods)}"
                            + ("" if draft_hardware is not None else f" and no {hardware}"))


MEASURED_ON = {"mtp": ("deepseek-v3", "deepseek-r1"), "eagle": ("llama-3.1-8b",), "ngram": ()}  # models DEFAULT_RATES come from


def default_rates_note(method: str, model_name: str, draft_vocab: int | None = None) -> str:
    """A warning where a method's published default rates stand in for a model they were not measured on ('' where
    they were): acceptance depends on the model, its drafter and the prompts, and it sets the speedup. EAGLE's rates
    are EAGLE-1's: a head with its own draft vocabulary is EAGLE-3's kind, which accepts more, on any model."""
    if method == "eagle" and draft_vocab:
        return (f"no acceptance given: EAGLE's published rates ({', '.join(f'{a:g}' for a in DEFAULT_RATES[method][0])}) are "
                f"an EAGLE-1 head's; a head with a draft vocabulary ({draft_vocab:,}) is EAGLE-3's kind, which accepts more: "
                "give alpha, acceptance or an acceptance length measured on it")
    if method not in DEFAULT_RATES or model_name in MEASURED_ON.get(method, ()):
        return ""
    measured = {"eagle": "Llama-3.1-8B", "mtp": "DeepSeek-V3", "ngram": "Spec-Bench's prompts"}[method]
    return (f"no acceptance given: {method}'s published rates ({', '.join(f'{a:g}' for a in DEFAULT_RATES[method][0])}, "
            f"measured on {measured}) stand in for {model_name}; give alpha, acceptance or an acceptance length measured on it")


def default_rates(method: str, where: str = "options") -> tuple[tuple[float, ...], str]:
    """(rates, source) a method uses when neither alpha nor rates are given; a clear error for a draft model."""
    if method not in DEFAULT_RATES:
        raise RooflineError(f"{where}: alpha or acceptance: expected one of them, or an acceptance_length, for method {method!r} "
                            f"(its acceptance depends on the {'heads trained on the target' if method == 'medusa' else 'draft/target pair'}; "
                            "no published default), found none")
    return DEFAULT_RATES[method]


def _verify_engine(engine: ServingEngine) -> ServingEngine:
    """The engine a verify pass runs under while speculating: its prefix cache where it keeps it (speculating_engine),
    its host work added where it gives its overlap up (host_overlap_speculating false)."""
    spec_engine = speculating_engine(engine)
    return spec_engine if spec_engine.host_overlap_speculating else dataclasses.replace(spec_engine, host_overlap=False)


VERIFY_BOUND_SEARCH_MAX_BATCH = 4_096  # verify_compute_bound_batches evaluates every batch to this one


def verify_compute_bound_batches(hw: HardwareSpec, target: ModelSpec, context, q: float, dep: Deployment,
                                 engine: ServingEngine, shared_prefix=0) -> dict:
    """Where the verify pass of q tokens a sequence (k + 1, a tree's nodes + 1) at `context` turns compute-bound
    (step_metrics' compute_bound: compute-bound operators take most of its operator time), every batch 1 ..
    VERIFY_BOUND_SEARCH_MAX_BATCH evaluated under the engine as it speculates (_verify_engine), memory or not:

        first_batch          the smallest batch whose pass is compute-bound (None: none to the search's end)
        memory_bound_again   the smallest memory-bound batch past it (None: none): KV reads grow with the batch, and
                             near the crossing tile padding and kernel latencies can flip it back for a batch or two
        from_batch           where the last run of compute-bound batches starts, to the search's end (None: it ends
                             memory-bound)
        runs                 every run of compute-bound batches, [first, last] (qa496: batch 117 alone, then 121 on)
        searched_to          VERIFY_BOUND_SEARCH_MAX_BATCH

    (the mini-prefill's edge: below first_batch a pass of B q tokens costs about a decode step of B)."""
    batches = np.arange(1, VERIFY_BOUND_SEARCH_MAX_BATCH + 1, dtype=np.float64)
    bound = np.broadcast_to(np.asarray(_verify_metrics(hw, target, batches, q, context, dep, engine, _verify_engine(engine),
                                                       True, shared_prefix)["compute_bound"], dtype=bool), batches.shape)
    out = {"first_batch": None, "memory_bound_again": None, "from_batch": None, "runs": [],
           "searched_to": VERIFY_BOUND_SEARCH_MAX_BATCH}
    if bound.any():
        first = int(np.argmax(bound))
        out["first_batch"] = int(batches[first])
        after = ~bound[first:]
        if after.any():
            out["memory_bound_again"] = int(batches[first + int(np.argmax(after))])
        edges = np.diff(np.concatenate([[0], bound.astype(np.int8), [0]]))
        out["runs"] = [[int(batches[i]), int(batches[j - 1])] for i, j in zip(np.flatnonzero(edges == 1),
                                                                               np.flatnonzero(edges == -1))]
        if bound[-1]:
            out["from_batch"] = out["runs"][-1][0]
    return out


def _verify_metrics(hw, target, b, q, s, dep, engine, verify_engine, speculating, shared_prefix) -> dict:
    """The verify pass's step_metrics: under `verify_engine` where speculating (an engine that gives its host overlap
    up while it speculates adds its host work: SGLang's spec V1 turns its overlap scheduler off; one whose prefix cache
    is off then reads a shared prefix a sequence: serving.speculating_engine), else under `engine` (k = 0 is exactly
    the baseline); every figure of the one pass (qa352: its time a pass's, its bytes the other's)."""
    verify = step_metrics(hw, target, b, q, s, dep, engine=engine, shared_prefix=shared_prefix)
    if verify_engine is engine:
        return verify
    serial = step_metrics(hw, target, b, q, s, dep, engine=verify_engine, shared_prefix=shared_prefix)
    return {key: np.where(speculating, serial[key], value) for key, value in verify.items()}


def speculative_metrics(
    hw: HardwareSpec,
    target: ModelSpec,
    batch,
    context,
    k,
    alpha=None,
    *,
    method: str = "eagle",
    draft: ModelSpec | None = None,
    draft_hw: HardwareSpec | None = None,
    acceptance=None,
    tree_nodes: int | None = None,
    tree_tau: float | None = None,
    overlap: bool = True,
    draft_vocab: int | None = None,
    dep: Deployment | None = None,
    engine: ServingEngine | None = None,
    shared_prefix=0,
) -> dict:
    """Everything about speculative decoding at the broadcast points (batch, context, k, alpha).

    The acceptance is alpha (scalar or array), or `acceptance` (per-position rates), or a tree's
    `tree_tau`; with none of them the method's DEFAULT_RATES. Returns arrays: baseline_step_time_s,
    baseline_tokens_per_s, draft_time_s, verify_time_s, transfer_time_s, overhead_time_s,
    iteration_time_s, tau, tokens_per_s, tokens_per_s_per_user, speedup, flops_per_token,
    bytes_per_token, baseline_flops_per_token, baseline_bytes_per_token, wasted_flops_fraction,
    weight_bytes, kv_bytes (a target device's weights and KV cache with the k + 1 tokens a pass verifies),
    memory_needed_bytes (with a drafter sharing the device), usable_memory_bytes, fits_in_memory, max_batch,
    baseline_max_batch (plain decoding's, without a drafter and
    its k + 1 extra tokens), verify_compute_bound, baseline_launch_bound, verify_launch_bound and draft_launch_bound
    (an eager decode step, verify or draft pass set by its host's launches), baseline_mbu, baseline_mfu, drafter_overlaps,
    drafter_memory_bytes (its weights and KV cache on the device it runs on), draft_busy_time_s and
    verify_busy_time_s. draft_time_s and verify_time_s are k draft steps and one verify pass over the whole batch;
    the busy times are what the drafter's and the target's devices spend in one iteration: the same, or where a draft
    model elsewhere overlaps (drafter_overlaps) two half-batch passes each, of which the iteration takes the larger,
    with FLOPs and bytes counting both passes and the link latency and spec_per_iteration paid twice (each
    micro-batch is verified and accepted on its own).
    """
    check_options("speculation", method, draft=draft, draft_vocab=draft_vocab, alpha=alpha, acceptance=acceptance,
                  tree_nodes=tree_nodes, tree_tau=tree_tau, k=k)
    method = method_name(method)  # any case, as checked (qa220)
    dep = dep or deployment(target)
    engine = engine or IDEAL
    b = np.asarray(batch, dtype=np.float64)
    s = np.asarray(context, dtype=np.float64)
    k = np.asarray(k, dtype=np.int64)
    if method == "none":
        k = np.zeros_like(k)
    if tree_nodes is not None:
        tau = np.where(k > 0, float(tree_tau), 1.0)
        q = np.where(k > 0, tree_nodes + 1.0, 1.0)
        # a drafting pass widens the tree a level a step; Medusa's heads pick every level's candidates from one pass
        draft_q = 1.0 if method == "medusa" else np.ceil(tree_nodes / np.maximum(k, 1))
    else:
        if acceptance is not None:
            tau = tau_from_rates(acceptance, k)
        elif alpha is not None:
            tau = tau_scalar_alpha(alpha, k)
        elif method == "none":
            tau = np.ones(k.shape)
        else:
            tau = tau_from_rates(default_rates(method)[0], k)
        q = k + 1.0
        draft_q = 1.0

    base = step_metrics(hw, target, b, 1, s, dep, engine=engine, shared_prefix=shared_prefix)
    spec_engine = speculating_engine(engine)  # its prefix cache where it keeps it while speculating
    verify_engine = _verify_engine(engine)
    verify = _verify_metrics(hw, target, b, q, s, dep, engine, verify_engine, k > 0, shared_prefix)
    drafter = drafter_spec(method, target, draft, draft_vocab)
    elsewhere = draft_hw is not None and drafter is not None
    dhw = draft_hw if elsewhere else hw
    d_dep = drafter_deployment(method, drafter, dep, elsewhere)
    no_host = dataclasses.replace(spec_engine.for_other_hardware(dhw) if elsewhere else spec_engine, host_per_step_s=0.0,
                                  host_per_sequence_s=0.0)
    b_a = sequences_per_group(b, dep)
    if drafter is None:
        draft_step = {"step_time_s": np.zeros(()), "flops": np.zeros(()), "bytes": np.zeros(())}
    else:
        draft_step = step_metrics(dhw, drafter, b, draft_q, s, d_dep, engine=no_host, shared_prefix=shared_prefix)
    def per_draft_step_s(batch):  # launch and sampling per draft step, by the drafter's device's engine values and layout
        return no_host.spec_per_draft_step_s + no_host.spec_per_draft_step_per_sequence_s * sequences_per_group(batch, d_dep)

    if method == "medusa":  # k heads' GEMMs and logits in ONE pass: its fixed device overhead and launch once
        fixed_s = dhw.step_overhead_s
        bookkeeping_s = np.where(k > 0, per_draft_step_s(b), 0.0)
        draft_time_s = np.where(k > 0, k * (draft_step["step_time_s"] - fixed_s) + fixed_s, 0.0) + bookkeeping_s
    else:
        bookkeeping_s = k * (per_draft_step_s(b) if drafter is not None else 0.0)
        draft_time_s = k * draft_step["step_time_s"] + bookkeeping_s
    speculating = k > 0
    overlaps = elsewhere and method == "draft" and overlap
    verify_time_s = verify["step_time_s"]
    draft_busy_s, verify_busy_s = draft_time_s, verify_time_s  # each device's busy time in one iteration
    flops = k * draft_step["flops"] + verify["flops"]
    total_bytes = k * draft_step["bytes"] + verify["bytes"]
    fixed_parts = 1.0  # iterations an iteration's time holds: two where two micro-batches overlap
    if elsewhere:
        # draft token ids travel to the target, verified hidden states back to a head drafter
        # out: the draft ids; back: what the drafter goes on from, the kept tokens' hidden states (a head drafter) or
        # their ids (a draft model; qa118: not counted, nor the way back's latency)
        # (Medusa's heads go on from the last kept token's hidden state alone)
        kept_back_tokens = 1.0 if method == "medusa" else tau
        link_bytes = b * ((q - 1.0) * TOKEN_ID_BYTES + kept_back_tokens * (target.hidden_size * ACTIVATION_BYTES if method in HEAD_DRAFTERS
                                                                    else TOKEN_ID_BYTES))
        if hw.shares_scale_up(dhw):  # the target's kind on its link (a copy made by hw new shares both): one more
            # GPU, inside the scale-up domain if it has room (a renamed copy was priced over the scale-out link; qa93)
            link_bytes_per_s, link_latency_s = hw.link_for(dep.devices + 1)
        else:  # another kind is never on the target's NVLink / xGMI: the slower of the two devices' links out
            (target_bytes_per_s, target_latency_s), (draft_bytes_per_s, draft_latency_s) = (hw.link_outside_domain(),
                                                                                            dhw.link_outside_domain())
            link_bytes_per_s = min(target_bytes_per_s, draft_bytes_per_s)
            link_latency_s = max(target_latency_s, draft_latency_s)
        if overlaps:  # two micro-batches of B/2: each device's busy time is two half-batch passes
            half = np.maximum(b / 2.0, 1.0)
            half_step = step_metrics(dhw, drafter, half, draft_q, s, d_dep, engine=no_host, shared_prefix=shared_prefix)
            half_draft_s = k * (half_step["step_time_s"] + per_draft_step_s(half))
            half_verify = _verify_metrics(hw, target, half, q, s, dep, engine, verify_engine, k > 0, shared_prefix)
            split_s = np.maximum(2.0 * half_draft_s, 2.0 * half_verify["step_time_s"])
            second_fixed_s = 2.0 * link_latency_s + engine.spec_per_iteration_s  # the fixed costs the second micro-batch adds
            overlaps = (b >= 2) & (split_s + second_fixed_s < draft_time_s + verify_time_s)  # only where it pays (both models streamed twice)
            draft_busy_s = np.where(overlaps, 2.0 * half_draft_s, draft_time_s)
            verify_busy_s = np.where(overlaps, 2.0 * half_verify["step_time_s"], verify_time_s)
            flops = np.where(overlaps, 2.0 * (k * half_step["flops"] + half_verify["flops"]), flops)
            total_bytes = np.where(overlaps, 2.0 * (k * half_step["bytes"] + half_verify["bytes"]), total_bytes)
            fixed_parts = np.where(overlaps, 2.0, 1.0)
            busy_s = np.where(overlaps, split_s, draft_time_s + verify_time_s)
        else:
            busy_s = draft_time_s + verify_time_s
        transfer_s = np.where(speculating, fixed_parts * 2.0 * link_latency_s + link_bytes / link_bytes_per_s, 0.0)  # a round trip
    else:
        transfer_s = np.zeros(())
        busy_s = draft_time_s + verify_time_s
    overhead_s = np.where(speculating, fixed_parts * engine.spec_per_iteration_s + engine.spec_per_iteration_per_sequence_s * b_a, 0.0)
    iteration_s = busy_s + transfer_s + overhead_s
    shape = np.broadcast(iteration_s, tau, b, s).shape
    tokens_per_iter = b * tau

    verify_len = s + q
    mem = speculation_capacity(hw, target, b, verify_len, dep, method, drafter, d_dep, dhw if elsewhere else None,
                               draft_vocab, speculating, shared_prefix, engine,
                               no_host,  # the drafter's device's own (an override may differ)
                               heads=k if method == "medusa" else target.mtp_modules if method == "mtp" else 1)
    out = {
        "baseline_step_time_s": base["step_time_s"],
        "baseline_tokens_per_s": b / base["step_time_s"],
        "draft_time_s": draft_time_s,
        "draft_bookkeeping_time_s": bookkeeping_s,  # of draft_time_s, the engine's per draft step (spec_per_draft_step...)
        "verify_time_s": verify_time_s,
        "draft_busy_time_s": draft_busy_s,
        "verify_busy_time_s": verify_busy_s,
        "transfer_time_s": transfer_s,
        "overhead_time_s": overhead_s,
        "iteration_time_s": iteration_s,
        "tau": tau,
        "tokens_per_s": tokens_per_iter / iteration_s,
        "tokens_per_s_per_user": tau / iteration_s,
        "speedup": tau * base["step_time_s"] / iteration_s,
        "flops_per_token": flops / tokens_per_iter,
        "bytes_per_token": total_bytes / tokens_per_iter,
        "baseline_flops_per_token": base["flops"] / b,
        "baseline_bytes_per_token": base["bytes"] / b,
        # on the busiest device: with expert parallelism the wider verify pass spreads its tokens over the experts more
        # evenly than a decode step (costs.py's z_ep term), which can outweigh the rejected work: then none is counted
        "wasted_flops_fraction": np.maximum(1.0 - (base["flops"] / b) / (flops / tokens_per_iter), 0.0),
        "weight_bytes": mem["weight_bytes"],  # a target device's (the stage that binds under pp), as capacity gives it
        "kv_bytes": mem["kv_bytes"],
        "memory_needed_bytes": mem["memory_needed_bytes"],
        "usable_memory_bytes": mem["usable_memory_bytes"],
        "fits_in_memory": mem["fits_in_memory"],
        "max_batch": mem["max_batch"],
        "baseline_max_batch": capacity(hw, target, b, s + 1, dep, shared_prefix=shared_prefix,  # plain decoding
                                       engine=engine)["max_batch"],
        "verify_compute_bound": verify["compute_bound"],
        "verify_launch_bound": verify["launch_bound"],  # an eager verify pass no faster than its host's launches
        "draft_launch_bound": np.asarray(draft_step.get("launch_bound", False)) & (np.asarray(k) > 0),  # a draft pass's
        "baseline_mbu": base["mbu"],
        "baseline_mfu": base["mfu"],
        "baseline_comm_time_s": base["comm_time_s"],
        "baseline_launch_bound": base["launch_bound"],  # an eager decode step no faster than its host's launches
        "drafter_overlaps": np.asarray(overlaps),
        "drafter_memory_bytes": mem["drafter_memory_bytes"],
        "drafter_usable_memory_bytes": mem["drafter_usable_memory_bytes"],
        "target_max_batch": mem["target_max_batch"],  # the target's devices' cap with the k + 1 tokens' KV (and a
        "drafter_device_max_batch": mem["drafter_device_max_batch"],  # drafter on them); a drafter's own device's, else -1
    }
    return {key: np.broadcast_to(np.asarray(v), shape) for key, v in out.items()}


def speculation_capacity(hw, target, batch, verify_len, dep, method, drafter, d_dep, draft_hw, draft_vocab,
                         speculating, shared_prefix=0, engine=None, draft_engine=None, heads=1) -> dict:
    """Memory with the drafter counted where it runs and only where it drafts (k > 0): the target's
    devices carry a co-located drafter's weights and per-sequence KV; a drafter on `draft_hw` caps the
    batch by that device's memory instead. `engine`: the engine on the target's devices (capacity: its memory and
    hybrid window pool), `draft_engine` on the drafter's own device (the same where it shares the target's). `heads`:
    copies of the drafter's weights and KV cache held (broadcasts): Medusa's k heads (no KV), a model's trained MTP
    modules, each a layer of its own that the engine loads and caches whatever k is (vLLM's DeepSeekMTP holds
    num_nextn_predict_layers layers, step i running layer i mod n; qa433: three modules held as one).
    Where the engine turns its prefix cache off while it speculates (serving.speculating_engine), a speculating
    point holds a shared prefix in each sequence, a plain one (k = 0) once."""
    speculating = np.asarray(speculating)
    args = (hw, target, batch, verify_len, dep, method, drafter, d_dep, draft_hw, draft_vocab, speculating, shared_prefix)
    spec_engine = speculating_engine(engine) if engine is not None else None
    if spec_engine is engine or not np.any(np.asarray(shared_prefix) > 0) or not np.any(speculating):
        return _drafting_capacity(*args, engine, draft_engine, heads)
    held, plain = (_drafting_capacity(*args, e, draft_engine, heads) for e in (spec_engine, engine))
    return {key: np.where(speculating, held[key], plain[key]) for key in held}


def _drafting_capacity(hw, target, batch, verify_len, dep, method, drafter, d_dep, draft_hw, draft_vocab, speculating,
                       shared_prefix, engine, draft_engine, heads) -> dict:
    """speculation_capacity under one engine on the target's devices (`engine`) and one on the drafter's own."""
    speculating = np.asarray(speculating)
    pool = {"shared_prefix": shared_prefix, "engine": engine}
    if drafter is None:
        out = capacity(hw, target, batch, verify_len, dep, **pool)
        return {**out, "drafter_memory_bytes": 0.0, "drafter_usable_memory_bytes": out["usable_memory_bytes"],
                "target_max_batch": out["max_batch"], "drafter_device_max_batch": -1}
    drafter_weights_bytes = np.asarray(heads, dtype=np.float64) * drafter_weight_bytes(method, drafter, d_dep, draft_hw is not None,
                                                                          draft_vocab, target.vocab_size)
    draft_side = draft_engine if draft_hw is not None else engine
    draft_ratio = draft_side.window_kv_pool_ratio if draft_side is not None else None
    # the drafter's KV of a shared prefix, held once like the target's, and of each sequence
    held_once = shared_prefix if draft_side is None or draft_side.prefix_cached else 0  # as capacity holds the target's
    shared_bytes, per_seq_bytes = (np.asarray(heads, dtype=np.float64) * v for v in
                                   kv_shared_and_per_sequence_bytes(drafter, verify_len, d_dep, held_once, draft_ratio))
    on = np.where(speculating, 1.0, 0.0)
    if draft_hw is None:
        out = capacity(hw, target, batch, verify_len, dep, extra_bytes=on * (drafter_weights_bytes + shared_bytes), extra_bytes_per_seq=on * per_seq_bytes,
                       **pool)
        return {**out, "drafter_memory_bytes": on * (drafter_weights_bytes + shared_bytes + per_seq_bytes * sequences_per_group(batch, dep)),
                "drafter_usable_memory_bytes": out["usable_memory_bytes"], "target_max_batch": out["max_batch"],
                "drafter_device_max_batch": -1}
    main = capacity(hw, target, batch, verify_len, dep, **pool)
    side = capacity(draft_hw, drafter, batch, verify_len, d_dep, weights_bytes=drafter_weights_bytes, shared_prefix=shared_prefix,
                    engine=draft_side)
    return {
        "weight_bytes": main["weight_bytes"],
        "kv_bytes": main["kv_bytes"],
        "memory_needed_bytes": main["memory_needed_bytes"],
        "usable_memory_bytes": main["usable_memory_bytes"],
        "fits_in_memory": main["fits_in_memory"] & np.where(speculating, side["fits_in_memory"], True),
        "max_batch": np.where(speculating, np.minimum(main["max_batch"], side["max_batch"]), main["max_batch"]),
        "drafter_memory_bytes": np.where(speculating, side["memory_needed_bytes"], 0.0),
        "drafter_usable_memory_bytes": side["usable_memory_bytes"],  # its engine's share of the drafter's device
        # each side's own cap, so that the one which sets max_batch can be named (qa343: the target's 62 was said as the
        # drafter device's, and the drafter device's own cap nowhere)
        "target_max_batch": main["max_batch"],
        "drafter_device_max_batch": side["max_batch"],
    }


def best_k(tokens_per_s, fits, k_values, axis: int = -1):
    """The k maximising tokens/s along `axis` among the k that fit in memory; -1 where none fits."""
    idx = np.argmax(np.where(fits, tokens_per_s, -np.inf), axis=axis)
    return np.where(np.asarray(fits).any(axis=axis), np.asarray(k_values)[idx], -1)


PAYS_FROM = 1.0 - 1e-12  # a speedup that pays: at least 1 (break-even counts), rounding aside


def pays(speedup):
    """Whether speculation pays at `speedup` (arrays too): speedup >= 1, rounding aside (PAYS_FROM). Every break-even,
    finding and figure asks this, not its own comparison."""
    return np.asarray(speedup) >= PAYS_FROM


def speculates(method: str, k):
    """Whether a configuration drafts at all: a method other than none, and k > 0 (k = 0 is plain decoding, its
    speedup exactly 1). Only then is there a batch up to which speculation pays, or a drafter's device to pay for."""
    return (method != "none") & (np.asarray(k) > 0)


def break_even_batch(batches, speedup, axis: int = -1):
    """Largest batch whose speedup >= 1 along `axis` (batches ascending; 1 less rounding); 0 where none. A caller
    passes only configurations that speculate (`speculates`)."""
    batches = np.asarray(batches)
    ok = pays(speedup)
    shape = [1] * ok.ndim
    shape[axis] = -1
    candidates = np.where(ok, batches.reshape(shape), 0)
    return candidates.max(axis=axis)


TOKEN_ID_BYTES = 4  # a token id on the link (int32): a draft token to the target, a kept one back to a draft model
PAYS_LONGER_FACTOR = 1.05  # predict names another k that pays to this many times the asked k's break-even or more (a
# k paying one sequence further, as a shorter draft fits one more beside the memory limit, is not news)
FINE_SEARCH_SPAN = 2  # predict's break-even: every batch from its last grid point that pays to twice it (+ 64) is evaluated
K_SEARCH = np.arange(0, K_MAX + 1)  # predict's best k: every k the CLI takes (16 was the cap before: k = 32 beat its "best" 16)
K_DEFAULT = 4  # draft tokens per iteration where a caller speculates without giving k (predict, a scenario's k axis)


def default_k(method: str, tree_nodes: object = None) -> int:
    """The draft length where none is given: 0 for plain decoding, else K_DEFAULT, at most a tree's nodes (its depth
    cannot exceed them). One rule for predict and for a scenario without a k axis."""
    if method == "none":
        return 0
    nodes = tree_nodes if isinstance(tree_nodes, int) and not isinstance(tree_nodes, bool) and tree_nodes >= 1 else None
    return K_DEFAULT if nodes is None else min(K_DEFAULT, nodes)


def _losing_batches(grid, grid_speedup, break_even: int, speedup_at) -> list[int] | None:
    """[first, last] batch below `break_even` where speculation does not pay (speedup < 1), each refined to the
    exact batch between its grid neighbours; None where it pays at every batch up to the break-even. A curve can
    dip and recover: a draft model elsewhere overlaps its two half batches only from the batch where that pays, and on
    an MoE target the verify pass's B(k + 1) tokens touch more experts than the step's B until B alone touches them all."""
    below = (grid < break_even) & ~pays(grid_speedup)
    if not below.any():
        return None
    first_i, last_i = int(np.argmax(below)), int(below.size - 1 - np.argmax(below[::-1]))
    lo = np.arange(grid[max(first_i - 1, 0)], grid[first_i] + 1)
    # below the break-even alone (qa461: the next grid point lay past it and lost, so 420 was named the last that
    # loses under a break-even of 421, where 417-420 paid)
    hi = np.arange(grid[last_i], min(grid[min(last_i + 1, grid.size - 1)], break_even - 1) + 1)
    lo_pays, hi_pays = pays(speedup_at(lo)), pays(speedup_at(hi))
    first = int(lo[np.argmin(lo_pays)]) if not lo_pays.all() else int(grid[first_i])
    last = int(hi[len(hi) - 1 - np.argmin(hi_pays[::-1])]) if not hi_pays.all() else int(grid[last_i])
    return [first, last]


EXACT_DIP_SEARCH_MAX = 65_536  # predict evaluates every batch below a break-even up to this one (about 0.1 s); past
# it, the search grid's batches with their edges refined (_losing_batches)


def _dip_below(grid, grid_speedup, break_even: int, speedup_at) -> tuple[list[int] | None, bool | None]:
    """([first, last] batch below `break_even` where speculation does not pay, whether every batch between them loses),
    (None, None) where none does: every batch below it evaluated where it is at most EXACT_DIP_SEARCH_MAX (qa462: a
    stretch of losing batches wholly between two grid batches that pay, 765-768 below 772, went unsaid), else the search
    grid's (_losing_batches)."""
    if break_even - 1 <= EXACT_DIP_SEARCH_MAX:
        batches = np.arange(1, break_even)
        losing = batches[~pays(speedup_at(batches))] if len(batches) else batches
        if not len(losing):
            return None, None
        return [int(losing[0]), int(losing[-1])], bool(len(losing) == losing[-1] - losing[0] + 1)
    losing = _losing_batches(grid, grid_speedup, break_even, speedup_at)
    if losing is None:
        return None, None
    between = np.arange(losing[0], losing[1] + 1)  # qa266: 'not every batch between them loses' where every one did
    return losing, not bool(pays(speedup_at(between)).any())


def _search_grid(cap: int):
    """The batches a break-even search evaluates first: 512 geometric steps from 1 to the memory limit `cap`."""
    return np.unique(np.round(np.geomspace(1, cap, 512)).astype(np.int64))


def _refined_break_even(grid, last: int, cap: int, speedup_at) -> tuple[int, float]:
    """(break-even batch, its speedup): every batch from `last`, the last grid point that pays, to twice it (+ 64,
    FINE_SEARCH_SPAN) or the memory limit `cap` is evaluated by `speedup_at`, and the largest that pays taken."""
    # every batch past the last grid point that pays: near speedup 1 a tile-padded curve zigzags, and a batch
    # beyond the next grid point can pay again (qa77: 1,490 pays on a B200 where the next grid gap ended at 1,484)
    start = int(grid[int(np.searchsorted(grid, last))])
    fine = np.arange(start, min(cap, FINE_SEARCH_SPAN * start + 64) + 1)
    fine_speedup = np.asarray(speedup_at(fine))
    be = int(break_even_batch(fine, fine_speedup))
    return be, float(fine_speedup[int(np.searchsorted(fine, be))])


def _longest_paying_k(hw, target, context: int, alpha, kw: dict) -> dict | None:
    """The k of 1..K_MAX that pays up to the largest batch, each k searched up to its own memory limit as the asked
    k's break-even is (`_search_grid`, then `_refined_break_even`); the smallest such k on a tie. {k, batch, speedup
    there, at_memory_limit}; None where no k pays at any batch that fits."""
    ks = K_SEARCH[K_SEARCH > 0]
    caps = np.asarray(speculative_metrics(hw, target, 1, context, ks, alpha, **kw)["max_batch"]).astype(np.int64)
    if caps.max() < 1:
        return None
    grid = _search_grid(int(caps.max()))
    speedup = speculative_metrics(hw, target, grid[:, None], context, ks[None, :], alpha, **kw)["speedup"]
    fits = grid[:, None] <= caps[None, :]
    last = break_even_batch(grid, np.where(fits, speedup, 0.0), axis=0)  # per k: 0 where none pays
    if last.max() < 1:
        return None
    i = int(np.argmax(last))
    k = int(ks[i])
    be, be_speedup = _refined_break_even(grid, int(last[i]), int(caps[i]),
                                         lambda b: speculative_metrics(hw, target, b, context, k, alpha, **kw)["speedup"])
    return {"k": k, "batch": be, "speedup": be_speedup, "at_memory_limit": bool(be == int(caps[i]))}


def predict_speculation(hw: HardwareSpec, target: ModelSpec, batch: int, context: int, k: int, alpha=None, *,
                        method: str = "eagle", draft: ModelSpec | None = None, draft_hw: HardwareSpec | None = None,
                        acceptance=None, tree_nodes: int | None = None, tree_tau: float | None = None,
                        overlap: bool = True, draft_vocab: int | None = None, dep: Deployment | None = None,
                        engine: ServingEngine | None = None, shared_prefix: int = 0) -> dict:
    """The `spec` object of `roofline predict --json`: one point, plus best k (0..K_MAX = 64, memory respected;
    None for a tree, whose tau at another depth is unknown, or where no k fits in memory at this batch; which
    of the two `best_k_unknown_because` says) and break-even batch.

    break_even_batch is the largest batch in 1..max_batch (the memory limit) where this k still gives
    speedup >= 1 (None where nothing speculates: method none or k = 0), searched on a geometric grid of batches, then
    every batch from the last grid point that pays to twice it (FINE_SEARCH_SPAN) or the memory limit; None if none. break_even_at_memory_limit: it is max_batch, so speculation still pays where
    memory ends the search (the break-even, if any, lies beyond what fits). not_paying_below_break_even: [first,
    last] batch below it where speedup < 1 (a dip: the overlap of a drafter elsewhere starts only where it pays),
    or None where it pays at every batch up to the break-even (every batch below it evaluated, to EXACT_DIP_SEARCH_MAX;
    past it on the search grid, its edges refined: _dip_below);
    not_paying_every_batch_between: whether every batch from first to last loses (None without a dip).
    """
    method = method_name(method)  # any case (qa220)
    kw = dict(method=method, draft=draft, draft_hw=draft_hw, acceptance=acceptance, tree_nodes=tree_nodes,
              tree_tau=tree_tau, overlap=overlap, draft_vocab=draft_vocab, dep=dep, engine=engine, shared_prefix=shared_prefix)
    point = speculative_metrics(hw, target, batch, context, k, alpha, **kw)
    cap = int(point["max_batch"])
    be, losing, be_speedup, losing_all = 0, None, None, None
    if cap >= 1 and speculates(method, k):
        grid = _search_grid(cap)
        grid_speedup = speculative_metrics(hw, target, grid, context, k, alpha, **kw)["speedup"]
        last = int(break_even_batch(grid, grid_speedup))
        if last > 0:
            be, be_speedup = _refined_break_even(grid, last, cap, lambda b: speculative_metrics(hw, target, b, context, k, alpha, **kw)["speedup"])
            speedup_at = lambda b: speculative_metrics(hw, target, b, context, k, alpha, **kw)["speedup"]  # noqa: E731
            losing, losing_all = _dip_below(grid, grid_speedup, be, speedup_at)
    best, best_speedup, best_per_user, drafting_fits = None, None, None, None
    # whether another k pays further (qa454), its own memory limit too: a shorter draft holds fewer tokens a sequence
    # (qa462: EAGLE k 40 on Qwen3-30B-A3B pays to its limit, 395, where k 1 pays to 455)
    longest = _longest_paying_k(hw, target, context, alpha, kw) if tree_nodes is None and speculates(method, k) else None
    if tree_nodes is None:
        over_k = speculative_metrics(hw, target, batch, context, K_SEARCH, alpha, **kw)
        best = int(best_k(over_k["tokens_per_s"], over_k["fits_in_memory"], K_SEARCH))
        drafting_fits = bool(np.any(np.asarray(over_k["fits_in_memory"])[np.asarray(K_SEARCH) > 0]))  # some k >= 1 fits
        if best >= 0:  # what the best k gives, beside its name (qa202: a second run with --k to learn it)
            at = list(K_SEARCH).index(best)
            best_speedup, best_per_user = float(over_k["speedup"][at]), float(over_k["tokens_per_s_per_user"][at])
    keys = ("iteration_time_s", "draft_time_s", "verify_time_s", "transfer_time_s", "overhead_time_s", "tau",
            "tokens_per_s", "tokens_per_s_per_user", "speedup", "flops_per_token", "bytes_per_token",
            "wasted_flops_fraction", "memory_needed_bytes", "drafter_memory_bytes", "drafter_usable_memory_bytes",
            "draft_busy_time_s", "verify_busy_time_s", "draft_bookkeeping_time_s")
    out = {key: float(point[key]) for key in keys}
    rates, rates_source = (None, None)
    if alpha is None and acceptance is None and tree_nodes is None and method != "none":
        rates, rates_source = default_rates(method)
    drafter_dep = drafter_deployment(method, drafter_spec(method, target, draft, draft_vocab), dep or deployment(target),
                                     draft_hw is not None)
    out.update(
        method=method,
        # a draft model runs in the dtype of the target's attention weights, a head drafter in the target's own, Medusa's
        # heads in its LM head's (unquantised: vLLM's nn.Linear blocks and ParallelLMHeads take no quant config; qa216)
        drafter_weight_dtype=None if drafter_dep is None else (drafter_dep.dtype("lm_head") if method == "medusa"
                                                                else drafter_dep.weight_dtype_label),
        # an MTP module's routed experts take the target's expert dtype (qa131: fp4 experts labelled 'fp8 weights')
        drafter_expert_dtype=None if drafter_dep is None or method == "medusa" else drafter_dep.expert_dtype_label or None,
        k=int(k),
        alpha=None if alpha is None else float(alpha),
        acceptance=[float(a) for a in (acceptance if acceptance is not None else rates or [])] or None,
        acceptance_source=rates_source or ("given" if alpha is not None or acceptance is not None else None),
        tree_nodes=tree_nodes,
        tree_tau=None if tree_tau is None else float(tree_tau),
        best_k=None if best is None or best < 0 else best,
        best_k_speedup=best_speedup,
        best_k_tokens_per_s_per_user=best_per_user,
        target_max_batch=int(point["target_max_batch"]),
        drafter_device_max_batch=(int(point["drafter_device_max_batch"]) if draft_hw is not None and speculates(method, k)
                                  and int(point["drafter_device_max_batch"]) < NO_CAP_BATCH
                                  else None),  # k 0 holds no drafter (qa346); heads without a KV cache cap nothing (qa374)
        drafting_fits=drafting_fits,  # whether some k >= 1 fits at this batch (None for a tree): a best k of 0's reason
        best_k_unknown_because=("tree: tau at another depth is unknown" if best is None else
                                f"no k of {int(K_SEARCH[0])}..{int(K_SEARCH[-1])} fits in memory at this batch" if best < 0 else None),
        break_even_batch=be if be > 0 else None,
        break_even_at_memory_limit=bool(be > 0 and be == cap),  # still pays where memory ends the search: at least `be`
        not_paying_below_break_even=losing,
        not_paying_every_batch_between=losing_all,
        break_even_speedup=be_speedup,  # the speedup at the break-even batch: within a percent of 1, the batch is not sharp
        # the k of K_SEARCH whose break-even is the largest (qa454: predict said the asked k's alone, the report the k
        # that pays longest): {k, batch, speedup, at_memory_limit}; None for a tree, k 0, or where no k pays (predict's
        # text names it where it pays to PAYS_LONGER_FACTOR x the asked k's break-even or more)
        pays_longest=longest,
        fits_in_memory=bool(point["fits_in_memory"]),
        max_batch=cap,
        # launch: an eager pass its host's kernel launches set (engine.launch_floor_s)
        draft_launch_bound=bool(np.any(point["draft_launch_bound"])),  # eager draft passes set by their launches
        verify_bound=("launch" if bool(point["verify_launch_bound"]) else
                      "compute" if bool(point["verify_compute_bound"]) else "memory"),
        # the batches where this k's verify pass is compute-bound (qa495: the mini-prefill's edge, bisected by hand):
        # verify_compute_bound_batches' {first_batch, memory_bound_again, from_batch, runs, searched_to}; None where nothing drafts
        verify_compute_bound=(verify_compute_bound_batches(
            hw, target, context, (tree_nodes + 1.0) if tree_nodes is not None else k + 1.0, dep or deployment(target),
            engine or IDEAL, shared_prefix) if speculates(method, k) else None),
        drafter_overlaps=bool(np.any(point["drafter_overlaps"])),
        draft_hardware=None if draft_hw is None else draft_hw.name,
        drafter_waits_for_target=bool(draft_hw is not None and method in HEAD_DRAFTERS),
        mtp_module_reused=bool(method == "mtp" and k > target.mtp_modules),
        mtp_modules=int(target.mtp_modules),  # the target's trained MTP modules (0: none)
    )
    return out
