"""A real speculative decoding loop (greedy): draft k tokens, verify k + 1 in one target pass.

One iteration on B sequences, each at its own position (ragged after the first iteration):

    draft    k sequential drafter steps; the first feeds [prev, cur] (q = 2, see below), the rest
             feed the previous proposal (q = 1). Proposals d_1..d_k per sequence.
    verify   one target pass over [cur, d_1..d_k] (q = k + 1) at the sequence's position; the
             target's greedy token after each prefix is t_0..t_k.
    accept   n_b = the longest prefix with d_i == t_{i-1}; sequence b emits t_0..t_{n_b}
             (its n_b accepted drafts, which equal the target's tokens, plus the bonus or correction
             token t_{n_b}), and its position advances by n_b + 1. Rollback is just that: the KV
             entries the target and drafter wrote past the new position are dead and get
             overwritten. Every sequence keeps its own n_b; nothing is re-run.

The output is token for token the target's plain greedy output (tested).

Why the first draft step has q = 2: when all k drafts were accepted, the drafter never wrote the KV
entry of d_k (it fed only cur, d_1..d_{k-1}). Feeding [prev, cur] at [pos - 1, pos] fills that hole;
for every other sequence it rewrites an entry with the same token at the same position. A memory-
bound q = 2 step costs about what a q = 1 step costs in bytes; what it costs more (a 2-row GEMM on a CPU, the q > 1
dispatch of an eager pass) validate prices (validate.speculation, HarnessCosts).

harness_costs measures what the loop spends outside its passes, and what a q > 1 pass dispatches beyond a q = 1
pass, at tiny width (HarnessCosts): the loop's serving-engine costs, which validate adds to its predictions.

Acceptance modes:
    natural      the drafter's own proposals; acceptance is whatever the target agrees with.
    controlled   the drafter still runs every step (its cost is real), but each proposal is
                 replaced, with probability alpha, by the target's own continuation (`reference`,
                 from plain greedy decoding of the same state), and otherwise by a token that
                 differs from it, so each position is accepted with probability alpha exactly.
"""

from __future__ import annotations

import functools
import statistics
import time
from dataclasses import dataclass, field

import torch

from roofline.errors import RooflineError
from roofline.harness.decoder import Decoder, KVCache, forward, greedy, verify
from roofline.harness.runtime import interleave, synchronize


@dataclass
class SpecStats:
    """What one speculative run did, per iteration and in total."""

    k: int
    batch: int
    iterations: int = 0
    accepted: list[torch.Tensor] = field(default_factory=list)  # [B] accepted drafts per iteration
    draft_s: float = 0.0
    verify_s: float = 0.0
    other_s: float = 0.0

    @property
    def accepted_total(self) -> int:
        return int(sum(int(a.sum()) for a in self.accepted))

    @property
    def emitted_total(self) -> int:
        """Tokens emitted over all sequences and iterations (accepted drafts + one per sequence per iteration)."""
        return self.accepted_total + self.iterations * self.batch

    @property
    def tau(self) -> float:
        """Mean tokens emitted per sequence per iteration (bonus token included)."""
        return self.emitted_total / max(1, self.iterations * self.batch)

    @property
    def alpha(self) -> float:
        """Per-token acceptance estimate: accepted positions / positions checked.

        A position is checked while the prefix before it was accepted: an iteration that accepts
        n < k checks n + 1 positions (the last one rejected); one that accepts all k checks k.
        """
        if not self.accepted:
            return float("nan")
        n = torch.stack(self.accepted).flatten()
        checked = n.sum() + (n < self.k).sum()
        return float(n.sum() / checked) if checked > 0 else float("nan")


def _controlled(proposal: torch.Tensor, reference: torch.Tensor, generated: torch.Tensor, i: int,
                alpha: float, vocab: int, gen: torch.Generator) -> torch.Tensor:
    """Replace proposal i (0-based) by the reference continuation with probability alpha, else by a different token."""
    cols = (generated + i).clamp(max=reference.shape[1] - 1)
    ref = reference.gather(1, cols[:, None])[:, 0]
    hit = torch.rand(proposal.shape[0], generator=gen).to(proposal.device) < alpha
    miss = torch.where(proposal == ref, (ref + 1) % vocab, proposal)
    return torch.where(hit, ref, miss)


def speculative_decode(
    target: Decoder,
    draft: Decoder,
    target_cache: KVCache,
    draft_cache: KVCache,
    prev_token: torch.Tensor,
    cur_token: torch.Tensor,
    input_pos: torch.Tensor,
    k: int,
    n_tokens: int,
    mode: str = "natural",
    alpha: float | None = None,
    reference: torch.Tensor | None = None,
    seed: int = 0,
    iterations: int | None = None,
) -> tuple[torch.Tensor, SpecStats]:
    """Generate at least `n_tokens` tokens per sequence after `cur_token`; returns ([B, n_tokens], stats).

    With `iterations`, run exactly that many iterations instead (tokens past n_tokens are counted in
    `stats` but not returned); benchmarks use it so every run does the same number of passes.

    prev_token [B] is the token at input_pos - 1 (already in both caches), cur_token [B] the
    latest token (in neither cache) at input_pos [B], input_pos >= 1. Both caches must hold the
    same context before input_pos. All sequences run until the slowest has n_tokens (the others
    keep generating, as a real batch would; their surplus is discarded from the output but
    counted in `stats`).
    """
    if k < 1:
        raise RooflineError(f"k: expected a draft length >= 1, found {k}")
    if mode not in ("natural", "controlled"):
        raise RooflineError(f"mode: expected natural or controlled, found {mode!r}")
    if mode == "controlled":
        if alpha is None or not 0.0 <= alpha <= 1.0:
            raise RooflineError(f"alpha: expected a value in [0, 1] for controlled mode, found {alpha}")
        need = n_tokens + k + 1 if iterations is None else iterations * (k + 1) + k
        if reference is None or reference.shape[1] < need:
            raise RooflineError(f"reference: controlled mode needs the target's greedy continuation of >= {need} tokens")
    if int(input_pos.min()) < 1:
        raise RooflineError("input_pos: speculative decoding needs at least one token already cached")
    device, b = cur_token.device, cur_token.shape[0]
    vocab = target.spec.vocab_size
    gen = torch.Generator(device="cpu").manual_seed(seed)
    out = torch.zeros(b, n_tokens + k + 2, dtype=torch.long, device=device)  # last column: dump
    generated = torch.zeros(b, dtype=torch.long, device=device)
    pos = input_pos.clone()
    steps = torch.arange(k + 1, device=device)
    stats = SpecStats(k=k, batch=b)
    while (int(generated.min()) < n_tokens) if iterations is None else (stats.iterations < iterations):
        t0 = time.perf_counter()
        proposals = []
        logits = forward(draft, draft_cache, torch.stack((prev_token, cur_token), 1), pos - 1)[:, -1]
        for i in range(k):
            d = greedy(logits)
            if mode == "controlled":
                d = _controlled(d, reference, generated, i, alpha, vocab, gen)
            proposals.append(d)
            if i + 1 < k:
                logits = forward(draft, draft_cache, d[:, None], pos + 1 + i)[:, 0]
        drafts = torch.stack(proposals, 1)                                       # [B, k]
        synchronize(device)
        t1 = time.perf_counter()
        checked = verify(target, target_cache, torch.cat((cur_token[:, None], drafts), 1), pos)  # [B, k + 1]
        synchronize(device)
        t2 = time.perf_counter()
        n = torch.cumprod((drafts == checked[:, :k]).long(), 1).sum(1)          # accepted drafts per sequence
        cols = generated[:, None] + steps[None, :]
        dump = out.shape[1] - 1
        cols = torch.where((steps[None, :] <= n[:, None]) & (cols < dump), cols, torch.full_like(cols, dump))
        out.scatter_(1, cols, checked)
        last_accepted = torch.cat((cur_token[:, None], drafts), 1).gather(1, n[:, None])[:, 0]
        prev_token, cur_token = last_accepted, checked.gather(1, n[:, None])[:, 0]
        pos = pos + n + 1
        generated = generated + n + 1
        stats.iterations += 1
        stats.accepted.append(n.cpu())
        t3 = time.perf_counter()
        stats.draft_s += t1 - t0
        stats.verify_s += t2 - t1
        stats.other_s += t3 - t2
    return out[:, :n_tokens], stats



MODES = ("natural", "controlled")
LOOP_COST_K = (1, 4)  # the draft lengths harness_costs times: per_draft_step from their difference
LOOP_COST_CONTEXT = 16  # tokens already cached when harness_costs starts
LOOP_COST_LAYERS = (16, 2)  # layers of its tiny target and of the drafter (the target's first layers)


@dataclass(frozen=True)
class HarnessCosts:
    """What the harness spends beyond the calibrated profile's price of its passes (seconds), measured at tiny width:

    per_iteration_s, per_draft_step_s   speculative_decode's own work outside its forward passes, per acceptance mode
        (MODES): the acceptance test, the output scatter, the position updates and the accepted counts copied to the
        host, each iteration; a proposal stacked (in controlled mode also the draw that replaces it), each draft step.
        At batch 1. validate's loop_engine makes them the loop's serving-engine terms (roofline.serving):
        spec_per_draft_step is per_draft_step; spec_per_iteration is per_iteration plus the multi-token extra of the
        iteration's verify pass and first draft pass.
    multi_token_fixed_s, multi_token_per_layer_s   what a pass of q > 1 tokens dispatches beyond a q = 1 pass: the
        decoder folds the query heads that share a KV head onto the query axis and back (decoder.attention): views at
        q = 1, two copies a layer at q > 1 (and the mask's fold once a pass). The calibrated overheads are those of a
        q = 1 pass (calibrate's forward_step_times), so a verify pass and the loop's first draft pass (q = 2) cost this
        much more. On a CPU it also holds decoder.linear's copies of a transposed result at q > 1 (4 a layer and the LM
        head's), which calibration's GEMM sweep prices too: counted twice there, tens of microseconds against passes of
        about 100 ms.
    outside_s   {(mode, k): outside(k)} as harness_costs measured it.
    """

    per_iteration_s: dict
    per_draft_step_s: dict
    multi_token_fixed_s: float
    multi_token_per_layer_s: float
    outside_s: dict

    def multi_token_s(self, layers: int) -> float:
        """The extra of a q > 1 pass of a model of `layers` layers: fixed + layers x per layer."""
        return self.multi_token_fixed_s + layers * self.multi_token_per_layer_s


def harness_costs(torch_module, dev, dtype, iterations: int, rounds: int = 21) -> HarnessCosts:
    """Time the loop and the passes it is made of apart, at tiny width (decoder.tiny_spec: dispatch only), batch 1,
    a 16-layer target and its first 2 layers as the drafter (LOOP_COST_LAYERS), for k = 1 and 4 (LOOP_COST_K):

        outside(k)     = t_iteration(k) - t_draft(q = 2) - (k - 1) t_draft(q = 1) - t_verify(q = k + 1)
        per_draft_step = max(0, (outside(4) - outside(1)) / 3)
        per_iteration  = max(0, outside(1) - per_draft_step)
        multi(L)       = t(q > 1, L layers) - t(q = 1, L layers): t_draft(2) - t_draft(1) at L = 2,
                         t_verify(k + 1) - t_target(1) at L = 16
        multi_token_per_layer = max(0, (multi(16) - multi(2)) / 14),   multi_token_fixed = max(0, multi(2) - 2 x per layer)

    t_iteration is a run of `iterations` iterations (as validate runs them) over `iterations`. The loops of both modes
    and the passes they are compared with run in turn, round after round (runtime.interleave), and each difference is
    the median over `rounds` rounds of that round's difference (multi(L) over the rounds of both k), so a slow spell of
    a shared machine lands on both sides of it. A pass is timed as the loop runs it (the drafter's last logits and their
    greedy token, the target's greedy tokens), its inputs made beforehand. Each cost is clipped at 0 (noise can take
    a difference below it), and per_iteration is taken with the clipped per_draft_step (a per-draft-step cost noise put
    below 0 would otherwise inflate it, and k of it be added back to a k-step iteration).
    """
    from roofline.harness.decoder import build_decoder, decode_n_tokens, decode_one_token, new_kv_cache, tiny_spec, truncate

    deep, shallow = LOOP_COST_LAYERS
    target = build_decoder(tiny_spec(deep), dtype=dtype, device=dev)
    draft = truncate(target, shallow)
    k_max, s0 = max(LOOP_COST_K), LOOP_COST_CONTEXT
    max_len = s0 + (iterations + 2) * (k_max + 1) + 8
    cache, draft_cache = new_kv_cache(target, 1, max_len), new_kv_cache(draft, 1, max_len)
    prev = torch_module.zeros(1, dtype=torch_module.long, device=dev)
    cur = torch_module.ones(1, dtype=torch_module.long, device=dev)
    pos = torch_module.full((1,), s0, dtype=torch_module.long, device=dev)
    reference = decode_n_tokens(target, cache, cur, pos, iterations * (k_max + 1) + k_max + 1)
    two, before = torch_module.stack((prev, cur), 1), pos - 1
    passes = [lambda: greedy(forward(draft, draft_cache, two, before)[:, -1]),            # 0: drafter, q = 2
              functools.partial(decode_one_token, draft, draft_cache, cur, pos),           # 1: drafter, q = 1
              functools.partial(decode_one_token, target, cache, cur, pos)]                # 2: target, q = 1
    outside, multi = {}, {shallow: [], deep: []}
    for k in LOOP_COST_K:
        tokens = torch_module.zeros(1, k + 1, dtype=torch_module.long, device=dev)
        loops = [functools.partial(speculative_decode, target, draft, cache, draft_cache, prev, cur, pos, k, iterations * (k + 1),
                                   mode=mode, alpha=0.7 if mode == "controlled" else None, reference=reference,
                                   iterations=iterations) for mode in MODES]
        timed = interleave([*passes, functools.partial(verify, target, cache, tokens, pos), *loops], rounds, dev)
        seconds = [[t for t, _ in r] for r in timed]  # per round: draft q=2, draft q=1, target q=1, verify q=k+1, loops
        for i, mode in enumerate(MODES):
            outside[mode, k] = statistics.median(r[4 + i] / iterations - r[0] - (k - 1) * r[1] - r[3] for r in seconds)
        multi[shallow] += [r[0] - r[1] for r in seconds]
        multi[deep] += [r[3] - r[2] for r in seconds]
    lo, hi = LOOP_COST_K
    per_step = {mode: max(0.0, (outside[mode, hi] - outside[mode, lo]) / (hi - lo)) for mode in MODES}
    multi_s = {layers: statistics.median(values) for layers, values in multi.items()}
    per_layer = max(0.0, (multi_s[deep] - multi_s[shallow]) / (deep - shallow))
    return HarnessCosts(per_iteration_s={mode: max(0.0, outside[mode, lo] - lo * per_step[mode]) for mode in MODES},
                        per_draft_step_s=per_step,
                        multi_token_fixed_s=max(0.0, multi_s[shallow] - shallow * per_layer),
                        multi_token_per_layer_s=per_layer, outside_s=outside)
