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
bound q = 2 step costs about what a q = 1 step costs.

Acceptance modes:
    natural      the drafter's own proposals; acceptance is whatever the target agrees with.
    controlled   the drafter still runs every step (its cost is real), but each proposal is
                 replaced, with probability alpha, by the target's own continuation (`reference`,
                 from plain greedy decoding of the same state), and otherwise by a token that
                 differs from it, so each position is accepted with probability alpha exactly.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import torch

from roofline.errors import RooflineError
from roofline.harness.decoder import Decoder, KVCache, forward, greedy, verify
from roofline.harness.runtime import synchronize


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
