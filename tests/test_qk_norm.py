"""qa449: the QK norm over all heads' all-reduce at the layouts and token counts the shipped tests leave out."""
import dataclasses

import pytest

from roofline.engine import _tp_allreduce_s, collective_times_s
from roofline.hardware import load_hardware
from roofline.layout import deployment
from roofline.model import load_model
from roofline.serving import load_engine


def _added(dep, batch, q):
    """(seconds the QK norm adds, its messages entry, kernels added) of minimax-m2.7 on H100 under sglang."""
    hw, model = load_hardware("h100-sxm"), load_model("minimax-m2.7")
    engine = load_engine("sglang").for_hardware(hw)
    plain = dataclasses.replace(model, qk_norm_all_heads=False)
    msgs, k_with, k_without = {}, {}, {}
    with_norm = collective_times_s(hw, model, dep, engine, batch, q, kernels=k_with, messages=msgs)["allreduce_time_s"]
    without = collective_times_s(hw, plain, dep, engine, batch, q, kernels=k_without)["allreduce_time_s"]
    kernels = k_with["allreduce_time_s"] - k_without["allreduce_time_s"]
    return float(with_norm - without), msgs.get("qk_norm"), kernels, (hw, engine)


@pytest.mark.parametrize(("layout", "batch", "q", "count", "message"), [
    # tp 2 x dp-attention 4, batch 13: each all-reduce carries T_a = ceil(13 / 4) = 4 tokens' 8 B, not all 13's
    ({"tp": 2, "dp_attention": 4, "ep": 8}, 13, 1.0, 62, 32.0),
    # a pass of q = 4 tokens a sequence (a verify pass) all-reduces B x q x 8 bytes a layer, not B x 8
    ({"tp": 8, "ep": 8}, 16, 4.0, 62, 16 * 4 * 8.0),
    # tp 4 x pp 3 (stages of 20, 21, 21 layers): 21 QK-norm all-reduces a stage's pass, not the model's 62
    ({"tp": 4, "ep": 4, "pp": 3}, 6, 1.0, 21, 48.0),
], ids=["busiest-attention-group", "verify-pass", "busiest-stage"])
def test_qk_norm_all_reduces_carry_the_busiest_groups_tokens_of_the_pass_over_the_busiest_stages_layers(layout, batch, q,
                                                                                                       count, message):
    """The QK norm's all-reduces: `count` of them (the busiest stage's layers), each of `message` bytes (the busiest
    attention group's B_a x q tokens x 8), each priced as a tp all-reduce of that message."""
    dep = deployment(load_model("minimax-m2.7"), **layout)
    seconds, (got_count, got_message), kernels, (hw, engine) = _added(dep, batch, q)
    assert (got_count, float(got_message), kernels) == (count, message, count)
    assert seconds == pytest.approx(count * float(_tp_allreduce_s(hw, dep, engine, message)), rel=1e-12)


def test_no_qk_norm_all_reduce_where_attention_is_not_split():
    """tp 1 x dp-attention 8: each rank holds all heads, so the norm needs no all-reduce."""
    dep = deployment(load_model("minimax-m2.7"), tp=1, dp_attention=8, ep=8)
    seconds, entry, kernels, _ = _added(dep, 16, 1.0)
    assert (seconds, entry, kernels) == (0.0, None, 0)
