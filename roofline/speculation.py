"""Speculative decoding: tokens per iteration, draft and verify cost, speedup, best k, break-even batch.

Conventions (../shared/reference/speculation.md): k draft tokens per iteration, bonus token
excluded; alpha is the per-token acceptance probability; tau, the tokens one iteration emits per
sequence, includes the bonus (or correction) token:

    tau = 1 + sum_{i=1..k} prod_{j<=i} a_j              (per-position conditional rates a_j)
        = (1 - alpha^(k+1)) / (1 - alpha)               (scalar alpha; k + 1 at alpha = 1)

One iteration on B sequences with context S (method-specific draft cost t_draft, below):

    t_verify = t_step(target, B, q = k + 1, S)          (chain; a tree of N draft nodes verifies q = N + 1
                                                          with a given tau, its drafter runs k = depth steps of N/k tokens)
    t_iter   = t_draft + t_verify + t_bookkeeping                         (drafter on the same device)
             = max(t_draft, t_verify) + t_transfer + t_bookkeeping        (drafter elsewhere, overlap on)
             = t_draft + t_verify + t_transfer + t_bookkeeping            (drafter elsewhere, overlap off)
    tokens/s = B * tau / t_iter;   speedup = tau * t_step(target, B, 1, S) / t_iter

Draft cost, k sequential forward passes of a drafter at batch B, q = 1 (each pays the step overhead):
    draft   a separate model profile (its own weights and KV cache count against memory)
    mtp     the target's own MTP block: one transformer block of the target's shapes + the shared LM head
    eagle   one dense decoder layer of the target's shapes + an LM head (optionally a smaller draft vocabulary)
    ngram   prompt/n-gram lookup on the host: no device time
With k = 0 every method reduces to plain decoding: t_draft = 0, no transfer, tau = 1, speedup = 1.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from roofline.costs import kv_cache_bytes, weight_bytes
from roofline.engine import max_batch, step_metrics
from roofline.errors import RooflineError
from roofline.hardware import HardwareSpec
from roofline.model import BYTES_PER_ELEMENT, AttentionGroup, ModelSpec

METHODS = ("none", "draft", "mtp", "eagle", "ngram")


def tau_scalar_alpha(alpha, k):
    """(1 - alpha^(k+1)) / (1 - alpha), with its limit k + 1 at alpha = 1; broadcasts."""
    alpha = np.asarray(alpha, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    near_one = np.isclose(alpha, 1.0)
    safe = np.where(near_one, 0.5, alpha)
    return np.where(near_one, k + 1.0, (1.0 - safe ** (k + 1.0)) / (1.0 - safe))


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


def leviathan_speedup(alpha, k, c):
    """Walltime improvement with verification costing one target step: (1 - a^(k+1)) / ((1 - a)(k c + 1))."""
    return tau_scalar_alpha(alpha, k) / (np.asarray(k) * np.asarray(c) + 1.0)


def leviathan_ops_factor(alpha, k, c_hat):
    """Arithmetic operations per token relative to plain decoding: (1 - a)(k c_hat + k + 1) / (1 - a^(k+1))."""
    return (np.asarray(k) * np.asarray(c_hat) + np.asarray(k) + 1.0) / tau_scalar_alpha(alpha, k)


def drafter_spec(method: str, target: ModelSpec, draft: ModelSpec | None = None, draft_vocab: int | None = None) -> ModelSpec | None:
    """The model whose forward pass one draft step runs (None for none/ngram).

    mtp: one block of the target (MoE if the target is MoE) with the shared LM head.
    eagle: one dense decoder layer of the target's shapes, full attention, LM head of `draft_vocab` rows.
    """
    if method in ("none", "ngram"):
        return None
    if method == "draft":
        if draft is None:
            raise RooflineError("--draft: method 'draft' needs a draft model name, found none")
        return draft
    one_layer = (AttentionGroup(kind="full", layers=1),)
    if method == "mtp":
        if target.mtp_modules < 1:
            raise RooflineError(f"--method mtp: model {target.name!r} has no MTP modules (mtp_modules: 0); use eagle or draft")
        moe = None if target.moe is None else dataclasses.replace(target.moe, dense_layers=0)
        return dataclasses.replace(target, name=f"{target.name}-mtp", layers=1, groups=one_layer, moe=moe, mtp_modules=0)
    if method == "eagle":
        return dataclasses.replace(
            target, name=f"{target.name}-eagle", layers=1, groups=one_layer, moe=None, mtp_modules=0,
            kv_layout="gqa" if target.kv_layout == "mla" else target.kv_layout, mla=None,
            vocab_size=draft_vocab or target.vocab_size,
        )
    raise RooflineError(f"--method: expected one of {' | '.join(METHODS)}, found {method!r}")


def drafter_memory_bytes(method: str, drafter: ModelSpec | None, batch, context_len,
                         weight_dtype: str, kv_dtype: str, tp: int, draft_vocab: int | None = None):
    """Extra device memory the drafter needs: its own weights and its KV cache.

    A draft model brings all its weights. MTP and EAGLE heads share the target's embedding and LM
    head: they add their block, a 2h -> h projection of (hidden state, embedding), and, for EAGLE
    with a reduced `draft_vocab`, a head of their own.
    """
    if drafter is None:
        return np.zeros(np.broadcast(np.asarray(batch), np.asarray(context_len)).shape)
    if method == "draft":
        weights = weight_bytes(drafter, weight_dtype, tp)
    else:
        h = drafter.hidden_size
        own_params = drafter.params - drafter.embedding_params - (0 if drafter.tied_embeddings else drafter.lm_head_params)
        own_params += 2 * h * h + (drafter.lm_head_params if method == "eagle" and draft_vocab else 0)
        weights = own_params * BYTES_PER_ELEMENT[weight_dtype] / tp
    return weights + kv_cache_bytes(drafter, batch, context_len, kv_dtype, tp)


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
    bookkeeping_s: float = 0.0,
    draft_vocab: int | None = None,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    tp: int = 1,
) -> dict:
    """Everything about speculative decoding at the broadcast points (batch, context, k, alpha).

    Returns arrays: baseline_step_time_s, baseline_tokens_per_s, draft_time_s, verify_time_s,
    transfer_time_s, overhead_time_s, iteration_time_s, tau, tokens_per_s, tokens_per_s_per_user,
    speedup, flops_per_token, bytes_per_token, baseline_flops_per_token, wasted_flops_fraction,
    memory_needed_bytes, fits_in_memory, max_batch, verify_compute_bound.
    """
    if method not in METHODS:
        raise RooflineError(f"method: expected one of {' | '.join(METHODS)}, found {method!r}")
    b = np.asarray(batch, dtype=np.float64)
    s = np.asarray(context, dtype=np.float64)
    k = np.asarray(k, dtype=np.int64)
    if np.any(k < 0):
        raise RooflineError(f"k: expected a non-negative integer, found {int(k.min())}")
    if method == "none":
        k = np.zeros_like(k)
    if tree_nodes is not None:
        if tree_tau is None or not 1.0 <= tree_tau <= tree_nodes + 1:
            raise RooflineError(f"--tree-tau: expected a number in [1, tree nodes + 1 = {tree_nodes + 1}], found {tree_tau}")
        tau = np.where(k > 0, float(tree_tau), 1.0)
        q = np.where(k > 0, tree_nodes + 1.0, 1.0)
        draft_q = np.ceil(tree_nodes / np.maximum(k, 1))
    else:
        if acceptance is not None:
            tau = tau_from_rates(acceptance, k)
        else:
            a = np.asarray(0.0 if alpha is None else alpha, dtype=np.float64)
            if np.any((a < 0) | (a > 1)):
                raise RooflineError(f"alpha: expected a value in [0, 1], found {float(a[(a < 0) | (a > 1)].flat[0])}")
            tau = tau_scalar_alpha(a, k)
        q = k + 1.0
        draft_q = 1.0

    base = step_metrics(hw, target, b, 1, s, weight_dtype, kv_dtype, tp)
    verify = step_metrics(hw, target, b, q, s, weight_dtype, kv_dtype, tp)
    drafter = drafter_spec(method, target, draft, draft_vocab)
    dhw = draft_hw or hw
    d_tp = 1 if draft_hw is not None else tp
    if drafter is None:
        draft_step = {"step_time_s": np.zeros(()), "flops": np.zeros(()), "bytes": np.zeros(())}
    else:
        draft_step = step_metrics(dhw, drafter, b, draft_q, s, weight_dtype, kv_dtype, d_tp)
    draft_time = k * draft_step["step_time_s"]
    speculating = k > 0
    if draft_hw is not None and drafter is not None:
        # tokens (4 B each) travel to the target, hidden states (2 B x hidden) back to a head drafter
        nbytes = b * (k * 4.0 + ((q * target.hidden_size * 2.0) if method in ("mtp", "eagle") else 0.0))
        link_bw = min(hw.link_bw_bytes_per_s * hw.link_efficiency, dhw.link_bw_bytes_per_s * dhw.link_efficiency)
        transfer = np.where(speculating, max(hw.link_latency_s, dhw.link_latency_s) + nbytes / link_bw, 0.0)
        busy = np.maximum(draft_time, verify["step_time_s"]) if overlap else draft_time + verify["step_time_s"]
    else:
        transfer = np.zeros(())
        busy = draft_time + verify["step_time_s"]
    overhead = np.where(speculating, bookkeeping_s, 0.0)
    t_iter = busy + transfer + overhead
    shape = np.broadcast(t_iter, tau, b, s).shape
    tokens_per_iter = b * tau
    flops = (k * draft_step["flops"] + verify["flops"])
    nbytes_total = (k * draft_step["bytes"] + verify["bytes"])

    verify_len = s + q
    target_mem = weight_bytes(target, weight_dtype, tp) + kv_cache_bytes(target, b, verify_len, kv_dtype, tp)
    draft_mem = drafter_memory_bytes(method, drafter, b, verify_len, weight_dtype, kv_dtype, d_tp, draft_vocab)
    if draft_hw is None:
        needed = target_mem + draft_mem
        fits = needed <= hw.usable_mem_bytes
        per_seq_draft = 0.0 if drafter is None else kv_cache_bytes(drafter, 1, verify_len, kv_dtype, d_tp)
        fixed_draft = draft_mem - b * per_seq_draft
        cap = max_batch(hw, target, verify_len, weight_dtype, kv_dtype, tp, fixed_draft, per_seq_draft)
    else:
        needed = target_mem
        fits = (target_mem <= hw.usable_mem_bytes) & (draft_mem <= dhw.usable_mem_bytes)
        cap = max_batch(hw, target, verify_len, weight_dtype, kv_dtype, tp)
        if drafter is not None:
            per_seq_draft = kv_cache_bytes(drafter, 1, verify_len, kv_dtype, d_tp)
            draft_weights = draft_mem - b * per_seq_draft
            draft_cap = np.maximum(np.floor((dhw.usable_mem_bytes - draft_weights) / per_seq_draft), 0).astype(np.int64)
            cap = np.minimum(cap, draft_cap)

    out = {
        "baseline_step_time_s": base["step_time_s"],
        "baseline_tokens_per_s": b / base["step_time_s"],
        "draft_time_s": draft_time,
        "verify_time_s": verify["step_time_s"],
        "transfer_time_s": transfer,
        "overhead_time_s": overhead,
        "iteration_time_s": t_iter,
        "tau": tau,
        "tokens_per_s": tokens_per_iter / t_iter,
        "tokens_per_s_per_user": tau / t_iter,
        "speedup": tau * base["step_time_s"] / t_iter,
        "flops_per_token": flops / tokens_per_iter,
        "bytes_per_token": nbytes_total / tokens_per_iter,
        "baseline_flops_per_token": base["flops"] / b,
        "baseline_bytes_per_token": base["bytes"] / b,
        "wasted_flops_fraction": 1.0 - (base["flops"] / b) / (flops / tokens_per_iter),
        "memory_needed_bytes": needed,
        "fits_in_memory": fits,
        "max_batch": cap,
        "verify_compute_bound": verify["compute_bound"],
        "baseline_mbu": base["mbu"],
        "baseline_mfu": base["mfu"],
    }
    return {key: np.broadcast_to(np.asarray(v), shape) for key, v in out.items()}


def best_k(metrics_over_k: dict, k_values, axis: int = -1):
    """The k maximising tokens/s along `axis` of arrays computed over `k_values` on that axis."""
    idx = np.argmax(metrics_over_k["tokens_per_s"], axis=axis)
    return np.asarray(k_values)[idx]


def break_even_batch(batches, speedup, axis: int = -1):
    """Largest batch whose speedup >= 1 along `axis` (batches ascending); 0 where none."""
    batches = np.asarray(batches)
    ok = np.asarray(speedup) >= 1.0 - 1e-12
    shape = [1] * ok.ndim
    shape[axis] = -1
    candidates = np.where(ok, batches.reshape(shape), 0)
    return candidates.max(axis=axis)


K_SEARCH = np.arange(0, 17)


def predict_speculation(hw: HardwareSpec, target: ModelSpec, batch: int, context: int, k: int, alpha=None, **kw) -> dict:
    """The `spec` object of `roofline predict --json`: one point, plus best k (0..16) and break-even batch.

    best_k maximises tokens/s over k = 0..16 at this batch, context and acceptance (0 means: do not
    speculate). break_even_batch is the largest batch in 1..max_batch (the memory limit) where this k
    still gives speedup >= 1, searched on a geometric grid of batches refined to every batch next to
    the last crossing; None if none.
    """
    point = speculative_metrics(hw, target, batch, context, k, alpha, **kw)
    over_k = speculative_metrics(hw, target, batch, context, K_SEARCH, alpha, **kw)
    cap = int(point["max_batch"])
    be = 0
    if cap >= 1:
        # a geometric grid of batches up to the memory limit, then every batch around the last crossing
        grid = np.unique(np.round(np.geomspace(1, cap, 512)).astype(np.int64))
        ok = speculative_metrics(hw, target, grid, context, k, alpha, **kw)["speedup"] >= 1.0
        if ok.any():
            i = int(np.nonzero(ok)[0][-1])
            fine = np.arange(grid[i], grid[min(i + 1, grid.size - 1)] + 1)
            be = int(break_even_batch(fine, speculative_metrics(hw, target, fine, context, k, alpha, **kw)["speedup"]))
    keys = ("iteration_time_s", "draft_time_s", "verify_time_s", "transfer_time_s", "overhead_time_s", "tau",
            "tokens_per_s", "tokens_per_s_per_user", "speedup", "flops_per_token", "bytes_per_token",
            "wasted_flops_fraction", "memory_needed_bytes")
    out = {key: float(point[key]) for key in keys}
    out.update(
        method=kw.get("method", "eagle"),
        k=int(k),
        alpha=None if alpha is None else float(alpha),
        acceptance=None if kw.get("acceptance") is None else [float(a) for a in kw["acceptance"]],
        tree_nodes=kw.get("tree_nodes"),
        best_k=int(best_k(over_k, K_SEARCH)),
        break_even_batch=be if be > 0 else None,
        fits_in_memory=bool(point["fits_in_memory"]),
        max_batch=cap,
        verify_bound="compute" if bool(point["verify_compute_bound"]) else "memory",
    )
    return out
