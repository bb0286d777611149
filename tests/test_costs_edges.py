"""costs.py at its edges (qa439: mutation testing of costs.py,
capacity.py and layout.py, 132 mutants; these kill its 14 survivors that were not equivalent)."""

import numpy as np
import pytest

from roofline.costs import (
    _aligned_groups,
    busiest_rank_experts,
    expected_max_load,
    operator_costs,
    rank_hit_probability,
    weight_bytes_by_class,
)
from roofline.layout import deployment
from roofline.model import load_model


def test_expected_max_load_is_the_exact_balls_in_bins_maximum():
    """Pins expected_max_load to hand-counted maxima (2 in 2: 1.5; 3 in 8: 1.359375; 5 in 8: 7915/4096): the sum's tail is kept."""
    # 2 balls, 2 bins: max 1 in 2 of 4 outcomes, 2 in the other 2 -> 1.5
    assert expected_max_load(2, 2) == pytest.approx(1.5, rel=1e-12)
    # 3 balls, 8 bins: P(max >= 2) = 1 - 8*7*6/512 = 0.34375, P(max = 3) = 8/512 -> 1 + 0.34375 + 0.015625
    assert expected_max_load(3, 8) == pytest.approx(1.359375, rel=1e-12)
    # 5 balls, 8 bins, 32,768 outcomes counted by their largest bin: 1: 8*7*6*5*4 = 6,720; 3: 8*C(5,3)*7^2 = 3,920;
    # 4: 8*C(5,4)*7 = 280; 5: 8; 2: the other 21,840 -> (6720 + 2*21840 + 3*3920 + 4*280 + 5*8) / 32768 = 7915/4096
    assert expected_max_load(5, 8) == pytest.approx(7915 / 4096, rel=1e-12)
    assert expected_max_load(1, 64) == 1.0 and expected_max_load(0, 8) == 0.0


@pytest.mark.slow
def test_a_top_1_routers_busiest_rank_is_the_exact_sum_up_to_64_pairs():
    """Pins the module docstring's 'up to T_s = ceil(64 / top_k) tokens ... for top_k = 1 the exact sum' (SMALL_PAIRS = 64)."""
    tokens = np.array([1.0, 2.0, 40.0, 64.0])
    _, assigned = busiest_rank_experts(4, 1, tokens, 2)  # 4 experts, top 1, on 2 ranks: n tokens are n balls in 2 bins
    exact = [expected_max_load(int(t), 2) for t in tokens]
    assert assigned[0] == 1.0 and assigned[1] == pytest.approx(1.5, rel=1e-12)  # 2 balls in 2 bins: 1 or 2, even odds
    assert np.allclose(assigned, exact, rtol=1e-12, atol=0.0), (assigned, exact)


def test_a_ranks_hit_probability_draws_a_tokens_experts_distinct():
    """Pins rank_hit_probability's hypergeometric form by hand: 4 experts, top 2, 2 ranks: 1 - C(2,2)/C(4,2) = 5/6; 256/8/8: 0.66183."""
    assert rank_hit_probability(4, 2, 2) == pytest.approx(5 / 6, rel=1e-12)
    # 1 - prod_{i<8} (224 - i) / (256 - i) = 0.6618315 (with replacement, 1 - (7/8)^8 = 0.6563911: 0.8% fewer, as the docstring says)
    assert rank_hit_probability(256, 8, 8) == pytest.approx(0.6618315000478101, rel=1e-9)


def test_routing_that_keeps_every_group_is_not_group_limited():
    """Pins _aligned_groups' (1, 1) where groups_per_token == groups: every group kept is uniform routing, priced exactly, not simulated."""
    assert _aligned_groups(256, 8, 8, 8) == (1, 1)
    assert _aligned_groups(256, 8, 8, 4) == (8, 4)  # DeepSeek-V3's 4 of 8 groups on 8 ranks: group-limited
    assert rank_hit_probability(256, 8, 8, groups=8, groups_per_token=8) == rank_hit_probability(256, 8, 8)


def test_a_micro_batch_of_exactly_one_pair_reads_one_whole_expert():
    """Pins busiest_rank_experts' floor 'at least min(E/ep, 1) once a pair exists' at pairs == 1 (a quarter token, top 4)."""
    touched, assigned = busiest_rank_experts(16, 4, np.array([0.25, 0.2]), 2)
    assert touched[0] == 1.0  # 0.25 tokens x top 4 = 1 pair: it streams one expert's weights
    assert touched[1] < 1.0   # 0.8 pairs: no pair yet, interpolated below one
    # 0.25 x E[busiest rank's share of 4 distinct experts over 2 ranks of 8] = 0.25 x (4*140 + 3*896 + 2*784)/1820 = 0.6615
    assert assigned[0] == pytest.approx(0.25 * (4 * 140 + 3 * 896 + 2 * 784) / 1820, rel=0.02)


def test_a_tied_lm_head_is_a_copy_of_the_embedding_on_the_last_pipeline_stage():
    """Pins weight_bytes_by_class under pp for tied embeddings (llama-3.2-1b): the last stage holds 128,256 x 2,048 x 2 B as its head."""
    model = load_model("llama-3.2-1b")
    dep = deployment(model, pp=2)
    first, last = (weight_bytes_by_class(model, dep.at_stage(i)) for i in (0, 1))
    table = 128_256 * 2_048 * 2.0  # 525,336,576 B, bf16
    assert first["embedding"] == table and first["lm_head"] == 0.0
    assert last["lm_head"] == table and last["embedding"] == 0.0


def test_logit_tokens_count_the_busiest_attention_groups_sequences_under_attention_dp():
    """Pins lm_head's tokens at ceil(B / dp_attention) x logit_tokens: batch 8, dp 2, q 4, 1 logit: 2 x 525,336,576 x 4 FLOPs."""
    model = load_model("llama-3.1-8b")
    dep = deployment(model, dp_attention=2)
    flops, _ = operator_costs(model, 8, 4, 100, dep, logit_tokens=1)["lm_head"]
    assert float(flops) == pytest.approx(2 * 128_256 * 4_096 * 4, rel=1e-12)  # 4 sequences of the group, 1 logit each
