"""Layout terms (layout.py) the suite did not pin, found by mutation testing (qa465)."""

from dataclasses import replace

import pytest

from roofline.errors import RooflineError
from roofline.layout import deployment
from roofline.model import check_model_spec, load_model

DS3 = load_model("deepseek-v3")


def test_an_mla_models_kv_heads_do_not_bound_tp():
    """MLA's one latent KV is whole on every rank (layout's checks: 'not for MLA'), so its kv_heads field sets no tp:
    96 heads, 32 'KV heads' take tp 3 (96 / 3 = 32 heads a rank), which a GQA model of 32 KV heads may not (qa465 L24:
    the KV-head check ran on MLA too)."""
    mla = check_model_spec(replace(DS3, heads=96, kv_heads=32))
    assert deployment(mla, tp=3).tp == 3
    gqa = check_model_spec(replace(load_model("llama-3.1-8b"), heads=96, kv_heads=32, layer_groups=()))
    with pytest.raises(RooflineError, match="tp: expected a divisor or a multiple of the model's 32 KV heads"):
        deployment(gqa, tp=3)


def test_a_shard_note_splits_sglangs_stage_split_shared_experts_over_the_stage():
    """SGLang under DP attention runs DeepSeek's shared experts over every device of the stage (dp_attention_stage_split:
    Deployment.split_of gives D = tp x dp_attention), so at tp 1 x dp-attention 3 their 2,048 columns go 3 ways:
    2,048 = 3 x 682 + 2, a remainder of 2 (qa465 L31: split over tp 1, the shared experts were never named)."""
    from roofline.layout import shard_note
    from roofline.serving import for_engine, load_engine

    dep = for_engine(deployment(DS3, dp_attention=3), load_engine("sglang"), DS3)
    assert dep.split_of("shared_experts") == 3
    note = shard_note(DS3, dep)
    assert "the shared experts 2,048 / 3 = 682 remainder 2" in note
    assert "a routed expert 2,048 / 3 = 682 remainder 2" in note  # D / ep = 3 / 1
    assert "the dense MLP" not in note  # 18,432 / 3 = 6,144 whole, and 48 blocks of 128: no note


def test_an_mla_attention_outputs_width_is_heads_times_v_head_dim_not_head_dim():
    """o_proj reads heads x v_head_dim = 128 x 128 = 16,384 columns in DeepSeek-V3 (its head_dim field, 192, is the
    query/key width): at tp 128 a rank holds 128, one whole 128-block, so neither note names the attention output
    (qa465 L32: 128 x 192 / 128 = 192 was said to cut a block)."""
    from roofline.layout import group_note, shard_note

    assert DS3.head_dim == 192 and DS3.mla.v_head_dim == 128
    note = shard_note(DS3, deployment(DS3, tp=128))
    assert "the dense MLP 18,432 / 128 = 144" in note and "attention output" not in note
    int4 = group_note(DS3, deployment(DS3, tp=128, weight_dtype="int4"))
    assert "a routed expert 2,048 / 128 = 16" in int4 and "attention output" not in int4


def test_an_int8_block_scaled_checkpoints_cut_blocks_are_said_as_fp8s_are():
    """Square block scales are fp8's and int8's (shard_note's `blocked`): DeepSeek-V3's classes as int8 with 128 x 128
    blocks at tp 32 hold 18,432 / 32 = 576 dense-MLP columns (576 = 4 x 128 + 64) and 2,048 / 32 = 64 of an expert,
    parts of blocks (qa465 L38: int8 left out of the blocked dtypes, no note)."""
    from roofline.layout import shard_note

    int8 = check_model_spec(replace(DS3, native_precision=tuple((c, "int8" if d == "fp8" else d) for c, d in DS3.native_precision)))
    note = shard_note(int8, deployment(int8, tp=32))
    assert "the checkpoint's 128 x 128 block scales do not divide the columns a device holds" in note
    assert "the dense MLP 18,432 / 32 = 576" in note and "a routed expert 2,048 / 32 = 64" in note
    assert shard_note(int8, deployment(int8, tp=8)) == ""  # 2,304 and 256 columns: whole blocks


def test_a_results_tables_layouts_are_each_distinct_one_in_row_order_with_its_pipeline():
    """layouts_of_rows: describe_layout of each distinct (tp, dp_attention, ep, pp) in row order, a column the table lacks
    being 1 (qa465 L41: a layout repeated once a row; L42: pp left out, 'tp 2, pp 4' said as 'tp 2')."""
    import pandas as pd

    from roofline.layout import layouts_of_rows

    df = pd.DataFrame({"tp": [1, 1, 8, 8, 2], "dp_attention": [8, 8, 1, 1, 1], "ep": [8, 8, 1, 1, 1], "pp": [1, 1, 1, 1, 4],
                       "tok_s": [1.0, 2.0, 3.0, 4.0, 5.0]})
    assert layouts_of_rows(df) == ["tp 1, dp-attention 8, ep 8", "tp 8", "tp 2, pp 4"]
    assert layouts_of_rows(df[["tp", "tok_s"]]) == ["tp 1", "tp 8", "tp 2"]
    assert layouts_of_rows(df[["tok_s"]]) == []


def test_a_drafter_on_a_device_of_its_own_runs_no_sequence_parallel_moe():
    """single_device: nothing split, nothing gathered: vLLM's sequence-parallel MoE classes of the target's layout
    (router and shared experts at tp 2 x dp-attention 4, ep 8) are dropped with the rest (qa465 L43: kept, so a MoE
    drafter on its own device was priced the sequence-parallel MoE's extra collective, engine.collective_times_s)."""
    from roofline.layout import single_device
    from roofline.serving import for_engine, load_engine

    dep = for_engine(deployment(DS3, tp=2, dp_attention=4, ep=8), load_engine("vllm"), DS3)
    assert set(dep.sequence_split) == {"router", "shared_experts"}
    one = single_device(dep)
    assert (one.tp, one.dp_attention, one.ep, one.pp, one.devices) == (1, 1, 1, 1, 1)
    assert one.stage_split == () and one.whole == () and one.sequence_split == ()


def test_a_layouts_json_counts_every_device_of_the_replica():
    """Deployment.to_json's devices: N = tp x dp_attention x pp, 2 x 2 x 2 = 8 (qa465 L51: the stage's 4)."""
    dep = deployment(load_model("llama-3.1-8b"), tp=2, dp_attention=2, pp=2)
    assert dep.to_json()["devices"] == 8 == dep.devices
    assert dep.devices_per_stage == 4


def test_sglangs_spelling_names_the_gpus_it_runs_on_not_the_devices_here():
    """SGLang's --tp 8 --dp 8 --enable-dp-attention runs on 8 GPUs (its tp counts every device), tp 1 x dp-attention 8
    here; the layout as written here is 64 devices (qa465 L52: 'on 64 GPUs')."""
    from roofline.layout import dp_spelling_note

    note = dp_spelling_note(deployment(DS3, tp=8, dp_attention=8))
    assert note.startswith("tp 8, dp-attention 8 is 64 devices here")
    assert "SGLang's --tp 8 --dp 8 --enable-dp-attention on 8 GPUs is tp 1, dp-attention 8 here" in note


def test_a_blocks_weights_of_two_dtypes_are_labelled_mixed():
    """weight_dtype_label: 'mixed' where the blocks' non-expert classes differ: llama-3.1-8b with bf16 attention and an
    fp8 MLP (qa465 L55: one of the two picked at random from the set)."""
    llama = load_model("llama-3.1-8b")
    native = tuple((c, "fp8" if c == "mlp" else "bf16") for c in ("attention", "mlp", "experts", "shared_experts", "router",
                                                                   "embedding", "lm_head", "mtp"))
    mixed = check_model_spec(replace(llama, native_precision=native))
    assert deployment(mixed).dtype("mlp") == "fp8" and deployment(mixed).dtype("attention") == "bf16"
    assert deployment(mixed).weight_dtype_label == "mixed"
    assert deployment(mixed, weight_dtype="fp8").weight_dtype_label == "fp8"


def test_an_int4_shard_that_does_not_divide_is_the_shard_notes_not_the_group_notes():
    """group_note lists only shards that divide evenly and cut a 128-group; an uneven one (2,048 columns 3 ways under
    SGLang's stage split at dp-attention 3) is shard_note's 'remainder' (qa465 L59: also said as 2,048 / 3 = 682 in the
    int4 note)."""
    from roofline.layout import group_note, shard_note
    from roofline.serving import for_engine, load_engine

    dep = for_engine(deployment(DS3, dp_attention=3, weight_dtype="int4"), load_engine("sglang"), DS3)
    assert group_note(DS3, dep) == ""  # the dense MLP's 18,432 / 3 = 6,144 = 48 groups of 128: whole
    assert "a routed expert 2,048 / 3 = 682 remainder 2" in shard_note(DS3, dep)


def test_a_blocks_label_reads_only_the_classes_the_model_has_weights_in():
    """qa465: Qwen3-30B-A3B (no dense layers, no shared experts, no MTP) with fp8 attention and experts was labelled
    'mixed': its empty mlp and mtp classes kept the profile's default, bf16; the label and the JSON's weight_dtypes
    read only the classes that hold weights."""
    from roofline.model import load_model

    qwen = load_model("qwen3-30b-a3b")
    assert qwen.dense_layers == 0 and qwen.mtp_modules == 0
    dep = deployment(qwen)
    dep = replace(dep, dtypes={**dep.dtypes, "attention": "fp8", "experts": "fp8", "shared_experts": "fp8"})
    assert (dep.weight_dtype_label, dep.expert_dtype_label) == ("fp8", "fp8")
    assert "mlp" not in dep.to_json()["weight_dtypes"] and "mtp" not in dep.to_json()["weight_dtypes"]
    deepseek = deployment(load_model("deepseek-v3"))  # 3 dense layers: its mlp class holds weights
    mixed = replace(deepseek, dtypes={**deepseek.dtypes, "mlp": "bf16"})
    assert deepseek.weight_dtype_label == "fp8" and mixed.weight_dtype_label == "mixed"
