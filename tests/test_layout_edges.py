"""layout.py at its edges (qa439: mutation testing of costs.py,
capacity.py and layout.py, 132 mutants; these kill its 14 survivors that were not equivalent)."""

from dataclasses import replace

import pytest

from roofline.errors import RooflineError
from roofline.layout import deployment, fp8_block_note, main_gemm_dtype, shard_note
from roofline.model import load_model

LLAMA = load_model("llama-3.1-8b")


def test_deepseek_v4s_busiest_of_three_equal_pipeline_stages_is_the_one_of_most_growing_attention():
    """Pins busiest_stage's compressed weight 1/ratio: V4-Flash at pp 4 under vLLM's split (11/11/11/10) is paced by stage 2."""
    v4 = load_model("deepseek-v4-flash")
    dep = replace(deployment(v4, pp=4), pp_remainder="before_last")  # vLLM's split (Deployment.stage_counts)
    assert dep.stage_counts(43) == [11, 11, 11, 10]
    # layer order: 2 sliding, then ratio-4 (even index) and ratio-128 (odd index) alternating; attention growth by stage:
    # 0: layers 0-10, five ratio-4 and four ratio-128: 5/4 + 4/128 = 1.28125
    # 1: layers 11-21, five ratio-4 and six ratio-128:  5/4 + 6/128 = 1.296875
    # 2: layers 22-32, six ratio-4 and five ratio-128:  6/4 + 5/128 = 1.5390625  (the most: the busiest)
    # (counting every compressed layer 1 instead ties stages 1 and 2 at 11 and picks 1)
    assert v4.groups[1].ratio == 4 and v4.groups[2].ratio == 128
    assert dep.busiest_stage(v4) == 2


def test_the_mean_pipeline_stage_holds_neither_the_embedding_nor_the_lm_head_alone():
    """Pins holds_head's documented (False, False) for the mean stage (weight_bytes_by_class gives it the larger itself)."""
    dep = deployment(LLAMA, pp=2)
    assert dep.mean_stage().holds_head(LLAMA) == (False, False)
    assert dep.at_stage(0).holds_head(LLAMA) == (True, False) and dep.at_stage(1).holds_head(LLAMA) == (False, True)


@pytest.mark.parametrize("degree", ["tp", "dp_attention", "ep", "pp"])
def test_a_degree_of_zero_is_refused_in_one_line(degree):
    """Pins _degree's range 1..DEGREE_MAX at its low end: 0 is a RooflineError, not a ZeroDivisionError or a 0-device layout."""
    with pytest.raises(RooflineError, match=rf"{degree}: expected an integer in 1\.\."):
        deployment(LLAMA, **{degree: 0})


def test_an_moe_models_main_gemm_dtype_is_its_routed_experts():
    """Pins main_gemm_dtype: DeepSeek-V3 with fp4 experts quotes fp4 (the experts stream most bytes), not its fp8 MLP's dtype."""
    ds = load_model("deepseek-v3")
    assert main_gemm_dtype(ds, deployment(ds, expert_dtype="fp4")) == "fp4"
    assert main_gemm_dtype(LLAMA, deployment(LLAMA, weight_dtype="fp8")) == "fp8"


def test_a_native_fp8_checkpoints_cut_blocks_are_shard_notes_not_fp8_block_notes():
    """Pins fp8_block_note's 'a class the model's own checkpoint holds in another dtype': DeepSeek-V3's own fp8 at tp 32 is not said twice."""
    ds = load_model("deepseek-v3")
    dep = deployment(ds, tp=32)  # a routed expert's 2,048 / 32 = 64 columns: half a 128-wide block
    assert "block scales" in shard_note(ds, dep) and "2,048 / 32 = 64" in shard_note(ds, dep)
    assert fp8_block_note(ds, dep) == ""
