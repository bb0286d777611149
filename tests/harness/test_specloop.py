"""The speculative loop: exact greedy output, ragged rollback, controlled acceptance."""

import math

import pytest

pytestmark = pytest.mark.slow  # runs PyTorch

torch = pytest.importorskip("torch")

from roofline.errors import RooflineError  # noqa: E402
from roofline.harness.decoder import build_decoder, decode_n_tokens, new_kv_cache, prefill, truncate  # noqa: E402
from roofline.harness.specloop import speculative_decode  # noqa: E402
from roofline.model import model_from_dict  # noqa: E402

TINY = {"name": "tiny", "layers": 4, "hidden_size": 64, "heads": 4, "kv_heads": 2, "head_dim": 16,
        "ffn_size": 160, "vocab_size": 512}
PROMPT_LEN, MAX_LEN = 6, 128


@pytest.fixture(scope="module")
def models():
    target = build_decoder(model_from_dict(TINY), dtype=torch.float32, seed=7)
    return target, truncate(target, 1)


def start(models, batch, seed=0):
    """Prefill both caches with the same random prompts; return caches and the loop's inputs."""
    target, draft = models
    prompt = torch.randint(0, TINY["vocab_size"], (batch, PROMPT_LEN), generator=torch.Generator().manual_seed(seed))
    tc, dc = new_kv_cache(target, batch, MAX_LEN), new_kv_cache(draft, batch, MAX_LEN)
    cur = prefill(target, tc, prompt)
    prefill(draft, dc, prompt)
    return tc, dc, prompt[:, -1], cur, torch.full((batch,), PROMPT_LEN)


def plain(models, batch, n, seed=0):
    target, _ = models
    tc, _, _, cur, pos = start(models, batch, seed)
    return decode_n_tokens(target, tc, cur, pos, n), tc


@pytest.mark.parametrize("batch", [1, 4])
def test_speculative_output_equals_plain_greedy_token_for_token(models, batch):
    n = 30
    expected, _ = plain(models, batch, n)
    tc, dc, prev, cur, pos = start(models, batch)
    got, stats = speculative_decode(*models, tc, dc, prev, cur, pos, k=3, n_tokens=n)
    assert torch.equal(got, expected)
    assert 0 < stats.alpha < 1  # the truncated drafter is sometimes right, sometimes wrong


def test_ragged_acceptance_output_and_rolled_back_cache_equal_plain_decoding(models):
    batch, n, k = 4, 24, 4
    expected, plain_cache = plain(models, batch, n + k + 1, seed=1)
    tc, dc, prev, cur, pos = start(models, batch, seed=1)
    got, stats = speculative_decode(*models, tc, dc, prev, cur, pos, k=k, n_tokens=n,
                                    mode="controlled", alpha=0.5, reference=expected, seed=3)
    assert torch.equal(got, expected[:, :n])
    accepted = torch.stack(stats.accepted)                      # [iterations, B]
    assert (accepted != accepted[:, :1]).any()                  # sequences accepted different counts
    final_pos = PROMPT_LEN + (accepted + 1).sum(0)              # each sequence's own position
    assert len(set(final_pos.tolist())) > 1                     # ragged
    for b in range(batch):
        end = min(int(final_pos[b]), PROMPT_LEN + n + k + 1)  # the plain run's cache ends there
        assert torch.allclose(tc.k[:, b, :, :end], plain_cache.k[:, b, :, :end], atol=1e-5)
        assert torch.allclose(tc.v[:, b, :, :end], plain_cache.v[:, b, :, :end], atol=1e-5)


@pytest.mark.parametrize("alpha", [0.3, 0.8])
def test_controlled_acceptance_is_alpha_within_statistical_tolerance(models, alpha):
    batch, n, k = 8, 40, 4
    reference, _ = plain(models, batch, n + k + 1, seed=2)
    tc, dc, prev, cur, pos = start(models, batch, seed=2)
    got, stats = speculative_decode(*models, tc, dc, prev, cur, pos, k=k, n_tokens=n,
                                    mode="controlled", alpha=alpha, reference=reference, seed=11)
    assert torch.equal(got, reference[:, :n])
    accepted = torch.stack(stats.accepted).flatten()
    trials = int(accepted.sum() + (accepted < k).sum())         # positions checked
    assert abs(stats.alpha - alpha) < 4 * math.sqrt(alpha * (1 - alpha) / trials)


def test_alpha_one_accepts_every_draft_and_emits_k_plus_1(models):
    batch, n, k = 2, 20, 4
    reference, _ = plain(models, batch, n + k + 1, seed=4)
    tc, dc, prev, cur, pos = start(models, batch, seed=4)
    _, stats = speculative_decode(*models, tc, dc, prev, cur, pos, k=k, n_tokens=n,
                                  mode="controlled", alpha=1.0, reference=reference)
    assert stats.tau == k + 1 and stats.alpha == 1.0


def test_bad_arguments_raise_one_line(models):
    tc, dc, prev, cur, pos = start(models, 1)
    with pytest.raises(RooflineError, match="reference"):
        speculative_decode(*models, tc, dc, prev, cur, pos, k=2, n_tokens=5, mode="controlled", alpha=0.5)
    with pytest.raises(RooflineError, match="k"):
        speculative_decode(*models, tc, dc, prev, cur, pos, k=0, n_tokens=5)



def test_harness_costs_recovers_the_loops_own_work_and_the_multi_token_extra_from_their_timings(monkeypatch):
    """harness_costs takes each cost from per-round differences of the loop and its passes (interleaved): timings made
    from known costs give them back, per mode, and a difference that noise takes below 0 is clipped there."""
    import roofline.harness.specloop as specloop

    iterations, fixed, per_layer = 8, 50e-6, 20e-6
    per_iteration = {"natural": 300e-6, "controlled": 500e-6}
    per_draft_step = {"natural": 0.0, "controlled": 150e-6}
    draft_1, target_1 = 1.0e-3, 5.0e-3

    def multi(layers):
        return fixed + layers * per_layer

    def fake_interleave(fns, rounds, dev, warmup=1):
        k = fns[4].args[7]  # the loops' draft length (speculative_decode's eighth argument)
        jitter = [1.0 + 0.01 * r for r in range(rounds)]  # a drifting machine: every call of a round slower alike
        rows = []
        for j in jitter:
            draft_2, verify = draft_1 + multi(2), target_1 + multi(16)
            passes = [draft_2, draft_1, target_1, verify]
            loops = [iterations * (draft_2 + (k - 1) * draft_1 + verify + per_iteration[m] + k * per_draft_step[m])
                     for m in specloop.MODES]
            rows.append([(t * j, None) for t in passes + loops])
        return rows

    monkeypatch.setattr(specloop, "interleave", fake_interleave)
    costs = specloop.harness_costs(torch, torch.device("cpu"), torch.float32, iterations, rounds=5)
    for mode in specloop.MODES:
        assert costs.per_iteration_s[mode] == pytest.approx(per_iteration[mode] * 1.02, rel=1e-6)  # the median round's
        assert costs.per_draft_step_s[mode] == pytest.approx(per_draft_step[mode] * 1.02, abs=1e-12)
    assert costs.multi_token_per_layer_s == pytest.approx(per_layer * 1.02)
    assert costs.multi_token_fixed_s == pytest.approx(fixed * 1.02)
    assert costs.multi_token_s(16) == pytest.approx(multi(16) * 1.02)

    per_iteration["natural"] = -200e-6  # noise below 0: clipped
    costs = specloop.harness_costs(torch, torch.device("cpu"), torch.float32, iterations, rounds=5)
    assert costs.per_iteration_s["natural"] == 0.0

    # a per-draft-step cost noise put below 0 is clipped before per_iteration is taken with it (qa194: outside(1) less a
    # negative step inflated per_iteration, and k of the step were added back to a k-step iteration)
    per_iteration["natural"], per_draft_step["natural"] = 300e-6, -100e-6
    costs = specloop.harness_costs(torch, torch.device("cpu"), torch.float32, iterations, rounds=5)
    assert costs.per_draft_step_s["natural"] == 0.0
    assert costs.per_iteration_s["natural"] == pytest.approx((300e-6 - 100e-6) * 1.02)  # outside(1), not 300 + 100 us
