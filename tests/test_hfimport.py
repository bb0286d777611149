"""roofline.hfimport: a transformers config.json read into a model profile (attention groups, MLA, MoE layers, MTP)."""

import re
import warnings

import pytest

from roofline.errors import RooflineError, RooflineWarning
from roofline.hfimport import import_hf_config, profile_from_hf_config
from roofline.model import load_model, model_from_dict

TINY = {"model_type": "llama", "num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 8, "num_key_value_heads": 2,
        "intermediate_size": 128, "vocab_size": 1000}


def test_import_reads_mla_and_sliding_window_configs():
    deepseek = {"model_type": "deepseek_v3", "num_hidden_layers": 61, "hidden_size": 7168, "num_attention_heads": 128,
                "num_key_value_heads": 128, "intermediate_size": 18432, "moe_intermediate_size": 2048, "vocab_size": 129280,
                "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
                "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
                "num_nextn_predict_layers": 1, "tie_word_embeddings": False, "n_group": 8, "topk_group": 4,
                "topk_method": "noaux_tc"}
    profile = profile_from_hf_config(deepseek, "ds", "ds.json")
    spec = model_from_dict(profile, "ds")
    assert spec.kv_layout == "mla" and spec.moe.dense_layers == 3 and spec.mtp_modules == 1
    assert (spec.moe.groups, spec.moe.groups_per_token) == (8, 4) == (load_model("deepseek-v3").moe.groups, 4)
    for plain in ({"n_group": 1, "topk_group": 1}, {"topk_method": "greedy"}, {"n_group": None, "topk_group": None}):
        assert not model_from_dict(profile_from_hf_config({**deepseek, **plain}, "ds", "ds.json"), "ds").moe.grouped
    assert spec.params == load_model("deepseek-v3").params       # the hand-written profile's count
    gpt_oss = {"model_type": "gpt_oss", "num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 8, "num_key_value_heads": 2,
               "head_dim": 8, "intermediate_size": 32, "vocab_size": 100, "num_local_experts": 4, "num_experts_per_tok": 2,
               "sliding_window": 128, "layer_types": ["sliding_attention", "full_attention"] * 2}
    attention = profile_from_hf_config(gpt_oss, "g", "g.json")["attention"]
    assert attention["groups"] == [{"kind": "sliding", "layers": 2, "window": 128}, {"kind": "full", "layers": 2}]
    assert attention["layer_groups"] == [0, 1, 0, 1]  # the order a pipeline stage's layers are counted in (qa255)
    assert "layer_groups" not in profile_from_hf_config({**gpt_oss, "layer_types": ["full_attention"] * 4}, "g", "g.json")["attention"]


def test_a_dense_config_counts_its_parameters_by_hand():
    spec = model_from_dict(profile_from_hf_config(TINY, "tiny", "tiny.json"), "tiny")
    # per layer: q 64*64 + k, v 2*64*16 + o 64*64 = 10,240; gated MLP 3*64*128 = 24,576; two norms 128 -> 34,944 * 4
    # = 139,776; untied embedding and head 2*1000*64 = 128,000; final norm 64 -> 267,840
    assert spec.params == 267_840 and spec.kv_layout == "gqa" and spec.moe is None


def test_moe_layers_follow_the_sparse_step_and_the_mlp_only_list():
    cfg = {**TINY, "num_hidden_layers": 8, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
           "decoder_sparse_step": 2, "mlp_only_layers": [3]}
    moe = profile_from_hf_config(cfg, "m", "m.json")["moe"]
    # sparse layers: (i + 1) % 2 == 0 -> 1, 3, 5, 7; layer 3 is MLP-only -> 1, 5, 7: 3 MoE layers, 5 dense
    assert moe == {"experts": 4, "top_k": 2, "expert_ffn_size": 32, "shared_experts": 0, "dense_layers": 5}


def test_a_shared_expert_of_its_own_size_is_kept():
    cfg = {**TINY, "num_experts": 4, "num_experts_per_tok": 1, "moe_intermediate_size": 32, "shared_expert_intermediate_size": 96}
    moe = profile_from_hf_config(cfg, "q", "q.json")["moe"]
    assert moe["shared_experts"] == 1 and moe["shared_expert_ffn_size"] == 96 and moe["dense_layers"] == 0


def test_chunked_attention_layers_become_sliding_groups_of_one_chunk():
    cfg = {"text_config": {**TINY, "model_type": "llama4_text", "num_hidden_layers": 8, "attention_chunk_size": 8192,
                           "no_rope_layer_interval": 4, "intermediate_size_mlp": 256}}
    profile = profile_from_hf_config(cfg, "l4", "l4.json")
    # every 4th layer (4 and 8) is global; the other 6 attend within one chunk
    assert profile["attention"]["groups"] == [{"kind": "sliding", "layers": 6, "window": 8192}, {"kind": "full", "layers": 2}]
    assert profile["attention"]["layer_groups"] == [0, 0, 0, 1, 0, 0, 0, 1]
    assert profile["ffn_size"] == 256 and "Chunked local attention" in profile["notes"]


@pytest.mark.parametrize("change, message", [
    ({"n_layer": 12}, "n_layer: expected a decoder config with num_hidden_layers"),
    ({"hidden_size": 64.5}, "hidden_size: expected a positive integer, found 64.5"),
    ({"num_hidden_layers": True}, "num_hidden_layers: expected a positive integer, found true"),
    ({"layer_types": ["full_attention"] * 3}, "layer_types: expected as many entries as layers (4), found 3"),
    ({"layer_types": ["full_attention"] * 3 + ["linear_attention"]}, "layer_types: expected a decoder whose every layer is "
                                                                       "attention"),
    ({"layer_types": "full_attention"}, "layer_types: expected a list of each layer's type, found 'full_attention'"),  # qa258
    # qa260: Granite-4.0-H names its attention layers "attention": a hybrid, refused as one (not an unknown type)
    ({"model_type": "granitemoehybrid", "layer_types": ["mamba"] * 3 + ["attention"]},
     "model_type: expected a decoder whose every layer is attention"),
    ({"layer_types": ["full_attention"] * 3 + ["weird_attention"]}, "layer_types: expected each a layer type this import "
                                                                      "knows: sliding_attention, full_attention"),
    # hybrid decoders imported as all attention in silence (qa121): Qwen3-Next's KV ran 4x high, Jamba's params 92B for 52B
    ({"full_attention_interval": 4}, "full_attention_interval: expected a decoder whose every layer is attention"),
    ({"attn_layer_period": 8, "attn_layer_offset": 4}, "attn_layer_period: expected a decoder whose every layer is attention"),
    ({"hybrid_override_pattern": "M-M-M*-"}, "hybrid_override_pattern: expected a decoder whose every layer is attention"),
    ({"attn_type_list": [0, 0, 1, 0]}, "attn_type_list: expected a decoder whose every layer is attention"),
    ({"layer_types": ["full_attention"] * 3 + ["mamba"]}, "layer_types: expected a decoder whose every layer is attention"),
    ({"model_type": "mamba"}, "model_type: expected a decoder whose every layer is attention"),  # qa205: by its type too
    ({"model_type": "rwkv"}, "model_type: expected a decoder whose every layer is attention"),
    ({"model_type": "t5", "is_encoder_decoder": True}, "is_encoder_decoder: expected a decoder-only model"),  # qa207
    ({"model_type": "bart"}, "model_type: expected a decoder-only model (an encoder and cross-attention are not modelled)"),
    ({"model_type": "T5"}, "model_type: expected a decoder-only model"),  # qa209: any case, the key that refuses it
    ({"model_type": "t5", "is_encoder_decoder": False}, "model_type: expected a decoder-only model"),
    ({"model_type": "t5gemma"}, "model_type: expected a decoder-only model"),
    ({"is_encoder_decoder": "true"}, "is_encoder_decoder: expected a decoder-only model"),
    ({"model_type": "Mamba"}, "model_type: expected a decoder whose every layer is attention"),
    ({"tie_word_embeddings": "yes"}, "tie_word_embeddings: expected true or false"),
    # qa447: ERNIE-4.5's moe_num_experts (a key not read) imported 21B as a dense 3.35B, exit 0
    ({"model_type": "ernie4_5_moe", "moe_num_experts": 64, "moe_k": 6, "moe_intermediate_size": 1536},
     "moe_num_experts: expected a dense model's config, or a MoE one whose expert count is num_experts, num_local_experts "
     "or n_routed_experts (keys the importer reads), found 64"),
])
def test_a_config_the_importer_cannot_read_is_one_line_naming_the_key(change, message):
    with pytest.raises(RooflineError) as err:
        profile_from_hf_config({**TINY, **change}, "bad", "bad.json")
    assert str(err.value).startswith("bad.json") and message in str(err.value) and "\n" not in str(err.value)


def test_a_decoder_whose_encoder_decoder_flag_is_false_as_text_is_imported():
    """qa211: "is_encoder_decoder": "false" was refused as an encoder-decoder."""
    assert profile_from_hf_config({**TINY, "is_encoder_decoder": "false"}, "ok", "ok.json")["layers"] == TINY["num_hidden_layers"]


@pytest.mark.slow
def test_the_header_of_an_imported_profile_gives_the_config_as_the_command_named_it(roofline, tmp_path, monkeypatch):
    """qa477: `models import /path/hf/config.json` was recorded as `models import config.json`, which cannot be run
    again from another folder; the path is written as given."""
    (tmp_path / "hf").mkdir()
    (tmp_path / "hf" / "config.json").write_text('{"model_type": "llama", "num_hidden_layers": 4, "hidden_size": 64, '
                                                 '"num_attention_heads": 8, "intermediate_size": 128, "vocab_size": 1000}')
    monkeypatch.chdir(tmp_path)
    code, _, err = roofline("models", "import", "hf/config.json", "--name", "tiny", "--dir", tmp_path / "out")
    assert code == 0, err
    assert (tmp_path / "out" / "tiny.yaml").read_text().startswith(
        "# tiny: made with `roofline models import hf/config.json --name tiny`")


def test_a_head_dim_left_out_where_heads_do_not_divide_the_hidden_size_is_said():
    """qa477: hidden 5120 over 48 heads and no head_dim was written head_dim 106 (transformers' 5120 // 48) unsaid."""
    from roofline.errors import RooflineWarning

    cfg = {**TINY, "hidden_size": 5120, "num_attention_heads": 48, "num_key_value_heads": 8}
    cfg.pop("head_dim", None)
    with pytest.warns(RooflineWarning, match=r"c\.json: head_dim: not given, and hidden_size 5120 is no whole number of its "
                                             r"48 heads: taken as 5120 // 48 = 106, as transformers does"):
        assert profile_from_hf_config(cfg, "ok", "c.json")["head_dim"] == 106
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert profile_from_hf_config({**cfg, "head_dim": 128}, "ok", "c.json")["head_dim"] == 128


def test_import_writes_once_and_refuses_to_overwrite_without_force(tmp_path):
    config = tmp_path / "config.json"
    config.write_text('{"model_type": "llama", "num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 8, '
                      '"intermediate_size": 128, "vocab_size": 1000}')
    path, line = import_hf_config(config, "tiny", tmp_path / "out")
    assert path.name == "tiny.yaml" and path.read_text().startswith("# tiny: made with `roofline models import")
    assert line.startswith("params ") and "published" not in line
    with pytest.raises(RooflineError, match="exists; pass --force"):
        import_hf_config(config, "tiny", tmp_path / "out")
    with pytest.raises(RooflineError, match="--name: expected ASCII letters, digits"):
        import_hf_config(config, "../escape", tmp_path / "out")


def test_an_ungated_mlp_architecture_counts_two_ffn_matrices():
    # Pythia-6.9B (gpt_neox): 32 layers of 4 h^2 attention + 2 h x 16384 MLP, embedding and head of 50,432 x 4096 each;
    # two norms per layer and a final one; biases left out as everywhere: 6.856e9 against the published 6.857e9
    pythia = {"model_type": "gpt_neox", "hidden_act": "gelu", "num_hidden_layers": 32, "hidden_size": 4096,
              "num_attention_heads": 32, "intermediate_size": 16384, "vocab_size": 50432, "tie_word_embeddings": False}
    profile = profile_from_hf_config(pythia, "p", "p.json")
    spec = model_from_dict(profile, "p")
    assert profile["ffn_gated"] is False and "two matrices" in profile["notes"]
    h = 4096
    assert spec.params == pytest.approx(32 * (4 * h * h + 2 * h * 16384) + 2 * 50432 * h + (2 * 32 + 1) * h, rel=1e-9)
    assert profile_from_hf_config(TINY, "t", "t.json")["ffn_gated"] is True  # llama: gate, up, down


@pytest.mark.parametrize("name", ["my model", "x:y", "x.yaml", "-dash", "gpü"])
def test_import_takes_the_names_hw_new_takes(name, tmp_path):
    config = tmp_path / "config.json"
    config.write_text('{"model_type": "llama", "num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 8, '
                      '"num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 1000}')
    with pytest.raises(RooflineError, match="^--name: expected ASCII letters, digits"):
        import_hf_config(config, name, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json"]


def test_a_quantised_checkpoint_is_imported_in_its_own_precision():
    """quantization_config was dropped: DeepSeek-V3's fp8 and gpt-oss's mxfp4 configs came out bf16 (gpt-oss-120b then
    needed 234 GB and fit no 80 GB GPU). The shipped profiles, written by hand from the model cards, are the reference."""
    deepseek = {"model_type": "deepseek_v3", "num_hidden_layers": 61, "hidden_size": 7168, "num_attention_heads": 128,
                "num_key_value_heads": 128, "intermediate_size": 18432, "moe_intermediate_size": 2048, "vocab_size": 129280,
                "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
                "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
                "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
                                        "weight_block_size": [128, 128]}}
    spec = model_from_dict(profile_from_hf_config(deepseek, "ds", "ds.json"), "ds")
    assert dict(spec.native_precision) == dict(load_model("deepseek-v3").native_precision)
    assert spec.quant_block == load_model("deepseek-v3").quant_block == 128  # weight_block_size [128, 128]
    gpt_oss = {"model_type": "gpt_oss", "num_hidden_layers": 36, "hidden_size": 2880, "num_attention_heads": 64,
               "num_key_value_heads": 8, "head_dim": 64, "intermediate_size": 2880, "vocab_size": 201088,
               "num_local_experts": 128, "num_experts_per_tok": 4, "sliding_window": 128,
               "layer_types": ["sliding_attention", "full_attention"] * 18,
               "quantization_config": {"quant_method": "mxfp4", "modules_to_not_convert": [
                   "model.layers.*.self_attn", "model.layers.*.mlp.router", "model.embed_tokens", "lm_head"]}}
    spec = model_from_dict(profile_from_hf_config(gpt_oss, "g", "g.json"), "g")
    assert dict(spec.native_precision) == dict(load_model("gpt-oss-120b").native_precision)
    awq = profile_from_hf_config({**TINY, "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128}}, "a", "a.json")
    assert awq["precision"]["default"] == "int4" and awq["precision"]["lm_head"] == "bf16"
    w8a8 = {"quant_method": "compressed-tensors", "config_groups": {"group_0": {
        "weights": {"num_bits": 8, "type": "float"}, "input_activations": {"num_bits": 8, "type": "float"}}}, "ignore": ["lm_head"]}
    assert profile_from_hf_config({**TINY, "quantization_config": w8a8}, "c", "c.json")["precision"]["default"] == "fp8"
    assert "block" not in profile_from_hf_config({**TINY, "quantization_config": w8a8}, "c", "c.json")["precision"]
    # compressed-tensors' block strategy keeps its 128 x 128 blocks, as weight_block_size does (qa121: dropped, so a tp
    # whose shard splits a block was not said)
    blocked = {**w8a8, "config_groups": {"group_0": {**w8a8["config_groups"]["group_0"], "weights": {
        "num_bits": 8, "type": "float", "strategy": "block", "block_structure": [128, 128]}}}}
    assert profile_from_hf_config({**TINY, "quantization_config": blocked}, "c", "c.json")["precision"]["block"] == 128
    assert "precision" not in profile_from_hf_config(TINY, "t", "t.json")  # no quantization_config: bf16 throughout
    with pytest.raises(RooflineError, match=r"^a.json: quantization_config.bits: expected 4 or 8 \(weight bits\), found nothing$"):
        profile_from_hf_config({**TINY, "quantization_config": {"quant_method": "gptq"}}, "a", "a.json")  # absent, not None
    with pytest.raises(RooflineError, match=r"^b.json: quantization_config.quant_method: expected fp8, .* found 'bitsandbytes'"):
        profile_from_hf_config({**TINY, "quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": True}}, "b", "b.json")


def test_gemma_layouts_keep_their_global_layers():
    """sliding_window_pattern (Gemma 3) and Gemma 2's alternation were read as every layer sliding: Gemma 3 27B's KV
    cache at 128k came out about 21x too small."""
    gemma3 = {"text_config": {**TINY, "model_type": "gemma3_text", "num_hidden_layers": 62, "sliding_window": 1024,
                              "sliding_window_pattern": 6}}
    assert profile_from_hf_config(gemma3, "g3", "g3.json")["attention"]["groups"] == [
        {"kind": "sliding", "layers": 52, "window": 1024}, {"kind": "full", "layers": 10}]  # layers 6, 12, ..., 60 global
    gemma2 = {**TINY, "model_type": "gemma2", "num_hidden_layers": 42, "sliding_window": 4096}
    assert profile_from_hf_config(gemma2, "g2", "g2.json")["attention"]["groups"] == [
        {"kind": "sliding", "layers": 21, "window": 4096}, {"kind": "full", "layers": 21}]
    mistral = {**TINY, "model_type": "mistral", "sliding_window": 4096}
    assert profile_from_hf_config(mistral, "m", "m.json")["attention"]["groups"] == [{"kind": "sliding", "layers": 4, "window": 4096}]


def test_a_skip_list_keeps_whole_modules_and_four_bit_floats_are_fp4():
    """`mlp.shared_expert_gate` in a skip list made every shared expert bf16, `linear_attn.in_proj_ba` all of attention;
    compressed-tensors FP4 weights were int4 or refused; NVFP4 (a scale a 16 weights) was costed as MXFP4 (a 32)."""
    skip = {"quant_method": "fp8", "weight_block_size": [128, 128],
            "modules_to_not_convert": ["lm_head", "model.layers.0.mlp.shared_expert_gate", "model.layers.0.linear_attn.in_proj_ba"]}
    precision = profile_from_hf_config({**TINY, "quantization_config": skip}, "s", "s.json")["precision"]
    assert precision["default"] == "fp8" and "attention" not in precision and "shared_experts" not in precision
    whole = {**skip, "modules_to_not_convert": ["re:.*self_attn", "model.layers.*.mlp.gate", "model.embed_tokens"]}
    precision = profile_from_hf_config({**TINY, "quantization_config": whole}, "w", "w.json")["precision"]
    assert (precision["attention"], precision["router"], precision["embedding"]) == ("bf16", "bf16", "bf16")
    for activations in ({"num_bits": 4, "type": "float"}, None):  # NVFP4 (W4A4) and FP4 weights with 16-bit activations
        fp4 = {"quant_method": "compressed-tensors", "config_groups": {"group_0": {
            "weights": {"num_bits": 4, "type": "float"}, "input_activations": activations}}}
        assert profile_from_hf_config({**TINY, "quantization_config": fp4}, "f", "f.json")["precision"]["default"] == "fp4"
        nv = {**fp4, "config_groups": {"group_0": {**fp4["config_groups"]["group_0"], "weights": {
            "num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16}}}}
        assert profile_from_hf_config({**TINY, "quantization_config": nv}, "n", "n.json")["precision"]["default"] == "nvfp4"
    modelopt = {"quant_method": "modelopt", "quant_algo": "NVFP4", "exclude_modules": ["lm_head"]}
    assert profile_from_hf_config({**TINY, "quantization_config": modelopt}, "m", "m.json")["precision"]["default"] == "nvfp4"
    with pytest.raises(RooflineError, match=r"quantization_config.quant_algo: expected FP8 or NVFP4 .*found 'W4A8_AWQ'"):
        profile_from_hf_config({**TINY, "quantization_config": {"quant_method": "modelopt", "quant_algo": "W4A8_AWQ"}}, "m", "m.json")


@pytest.mark.parametrize("change, message", [
    ({"sliding_window": 1024, "sliding_window_pattern": 0}, "sliding_window_pattern: expected a positive integer, found 0"),
    ({"quantization_config": {"quant_method": "fp8", "modules_to_not_convert": "model.layers.*.self_attn"}},
     "quantization_config.modules_to_not_convert: expected a list of module names"),
    ({"quantization_config": {"quant_method": "compressed-tensors", "config_groups": {
        "attn": {"weights": {"num_bits": 8, "type": "float"}, "input_activations": {"num_bits": 8, "type": "float"}},
        "mlp": {"weights": {"num_bits": 4, "type": "float"}}}}},
     "quantization_config.config_groups: expected groups that quantise the weights alike"),
])
def test_what_the_importer_read_wrongly_in_silence_is_refused(change, message):
    """A pattern of 0 made every layer sliding; a skip list given as a string was ignored (attention became fp8); two
    config groups of different weights were read as the first one's everywhere."""
    with pytest.raises(RooflineError, match=re.escape(message)):
        profile_from_hf_config({**TINY, "model_type": "gemma3_text", **change}, "bad", "bad.json")


def test_a_skip_list_naming_one_layer_leaves_its_class_quantised():
    qc = {"quant_method": "fp8", "modules_to_not_convert": ["model.layers.0.self_attn", "lm_head"]}
    assert "attention" not in profile_from_hf_config({**TINY, "quantization_config": qc}, "o", "o.json")["precision"]


@pytest.mark.parametrize("names, layers, expected", [
    (["re:.*mlp.gate$"], 4, {"router"}), ([r"re:.*mlp\.gate$"], 4, {"router"}), (["re:.*block_sparse_moe.gate"], 4, {"router"}),
    (["re:.*embed.*", "lm_head"], 4, {"embedding", "lm_head"}),  # llm-compressor's usual ignore entries
    ([f"model.layers.{i}.mlp.gate" for i in range(4)], 4, {"router"}),  # every layer named one by one
    (["model.layers.0.self_attn"], 4, set()),  # one layer of four: attention stays quantised
])
def test_skip_lists_in_the_forms_quantisers_write(names, layers, expected):
    from roofline.hfimport import _skipped_classes

    assert _skipped_classes({"ignore": names}, layers) == expected


def test_config_groups_differing_only_in_strategy_are_one_precision():
    groups = {"a": {"weights": {"num_bits": 8, "type": "float", "strategy": "channel"}, "input_activations": {"num_bits": 8}},
              "b": {"weights": {"num_bits": 8, "type": "float", "strategy": "block"}, "input_activations": {"num_bits": 8}}}
    qc = {"quant_method": "compressed-tensors", "config_groups": groups}
    assert profile_from_hf_config({**TINY, "quantization_config": qc}, "s", "s.json")["precision"]["default"] == "fp8"


def test_a_name_too_long_says_so_and_its_length():
    from roofline.profiles import check_profile_name

    with pytest.raises(RooflineError, match=r"^--name: expected a name of at most 80 characters, found one of 300 "):
        check_profile_name("a" * 300, "--name")


DEEPSEEK_V3 = {"model_type": "deepseek_v3", "num_hidden_layers": 61, "hidden_size": 7168, "num_attention_heads": 128,
               "num_key_value_heads": 128, "intermediate_size": 18432, "moe_intermediate_size": 2048, "vocab_size": 129280,
               "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
               "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
               "num_nextn_predict_layers": 1, "tie_word_embeddings": False, "n_group": 8, "topk_group": 4, "topk_method": "noaux_tc"}


def _warnings_of(call):
    """(what `call()` returns, the RooflineWarning messages it gave)."""
    import warnings

    from roofline.errors import RooflineWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = call()
    return out, [str(w.message) for w in caught if issubclass(w.category, RooflineWarning)]


@pytest.mark.parametrize("model_type", ["deepseek_v32", "glm_moe_dsa"])
def test_a_sparse_attention_config_keeps_its_indexer(model_type):
    """DeepSeek Sparse Attention (index_topk, index_n_heads, index_head_dim) imported as plain full attention: every
    query read the whole 128k-token latent cache, and the indexer's keys were not stored."""
    import roofline

    v32 = {**DEEPSEEK_V3, "model_type": model_type, "index_topk": 2048, "index_n_heads": 64, "index_head_dim": 128}
    profile = profile_from_hf_config(v32, "v32", "v32.json")
    assert profile["attention"]["groups"] == [{"kind": "full", "layers": 61, "read_tokens": 2048, "index_dim": 128, "index_heads": 64}]
    spec = model_from_dict(profile, "v32")
    assert dict(spec.index_key_bytes)["fp8"] == dict(spec.index_key_bytes)["bf16"] == 132  # 128 fp8 values + a 4 B scale
    assert dict(spec.kv_entry_bytes) == {"fp8": 656}  # vLLM's fp8_ds_mla: 512 fp8 + 4 scales of 4 B + 64 bf16 RoPE dims
    assert "index_topk 2048 -> read_tokens" in profile["notes"]
    v3 = model_from_dict(profile_from_hf_config(DEEPSEEK_V3, "v3", "v3.json"), "v3")
    point = {"batch": 4, "context": 131072, "tp": 8}
    sparse, dense = (roofline.predict("h200", m, **point)["kv_read_bytes_per_device"] for m in (spec, v3))
    # per layer and sequence: 2048 latents x 1152 B + 131072 index keys x 132 B, against 131072 latents x 1152 B
    assert sparse == pytest.approx(dense * (2048 * 1152 + 131072 * 132) / (131072 * 1152), rel=0.01)


@pytest.mark.parametrize("change, key", [
    ({"compress_ratios": [0, 0] + [4, 128] * 2}, "compress_ratios"), ({"o_lora_rank": 1024, "o_groups": 8}, "o_lora_rank"),
    ({"o_groups": 8}, "o_groups"), ({"num_hash_layers": 3}, "num_hash_layers"), ({"model_type": "deepseek_v4"}, "model_type"),
])
def test_a_deepseek_v4_config_is_refused_toward_the_built_in_profile(change, key):
    """A V4 config failed on a missing intermediate_size (the wrong problem) or, given one, imported as all-sliding GQA."""
    v4 = {"model_type": "deepseek_v3", "num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 8, "num_key_value_heads": 1,
          "head_dim": 64, "moe_intermediate_size": 32, "n_routed_experts": 4, "num_experts_per_tok": 2, "vocab_size": 100,
          "sliding_window": 128, **change}
    for config in (v4, {**v4, "intermediate_size": 32}):
        with pytest.raises(RooflineError) as err:
            profile_from_hf_config(config, "v4", "v4.json")
        message = str(err.value)
        assert message.startswith(f"v4.json: {key}: expected ") and "deepseek-v4-flash" in message and "\n" not in message


def test_sliding_window_on_every_layer_only_where_transformers_puts_it():
    """Any config with a sliding_window but no per-layer keys was imported with every layer sliding."""
    qwen2 = {**TINY, "model_type": "qwen2", "sliding_window": 4096, "max_window_layers": 1}
    assert profile_from_hf_config(qwen2, "q", "q.json")["attention"]["groups"] == [{"kind": "full", "layers": 4}]  # default off
    assert profile_from_hf_config({**qwen2, "use_sliding_window": True}, "q", "q.json")["attention"]["groups"] == [
        {"kind": "sliding", "layers": 3, "window": 4096}, {"kind": "full", "layers": 1}]  # layers 1, 2, 3 >= max_window_layers
    profile, said = _warnings_of(lambda: profile_from_hf_config({**TINY, "model_type": "newarch", "sliding_window": 512}, "n", "n.json"))
    assert profile["attention"]["groups"] == [{"kind": "full", "layers": 4}]
    assert len(said) == 1 and said[0].startswith("n.json: sliding_window 512: model_type newarch") and "full attention" in said[0]


KIMI_K2_THINKING = {
    "model_type": "kimi_k2", "num_hidden_layers": 61, "hidden_size": 7168, "num_attention_heads": 64, "num_key_value_heads": 64,
    "intermediate_size": 18432, "moe_intermediate_size": 2048, "vocab_size": 163840, "n_routed_experts": 384,
    "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 1, "q_lora_rank": 1536, "kv_lora_rank": 512,
    "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "tie_word_embeddings": False, "n_group": 1, "topk_group": 1,
    "quantization_config": {"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups": {"group_0": {
        "targets": ["Linear"], "input_activations": None, "output_activations": None, "weights": {
            "num_bits": 4, "type": "int", "symmetric": True, "strategy": "group", "group_size": 32, "dynamic": False}}},
        "ignore": ["lm_head", "re:.*self_attn.*", "re:.*shared_experts.*", "re:.*mlp\\.(gate|up|gate_up|down)_proj.*"]}}


def test_an_int4_group_size_other_than_the_dtypes_is_warned_and_a_dense_mlp_regex_is_kept_16_bit():
    """Kimi-K2-Thinking's int4 at group 32 was costed at the int4 dtype's group 128 in silence, and its ignore entry for
    the dense MLP (a regex over gate/up/down_proj) left the dense layer int4."""
    profile, said = _warnings_of(lambda: profile_from_hf_config(KIMI_K2_THINKING, "k", "k.json"))
    precision = profile["precision"]
    assert precision["default"] == "int4"
    assert all(precision[c] == "bf16" for c in ("attention", "shared_experts", "mlp", "lm_head", "embedding", "router"))
    assert said == ["k.json: quantization_config: int4 group_size 32: scales take 0.0625 B a weight, the int4 dtype assumes "
                    "0.0156 (weights about 9% light)"]
    # and kept in the profile's precision source, where models show and diff read it (qa121: said once, then lost)
    assert "; int4 group_size 32: scales take 0.0625 B a weight" in precision["source"]
    gptq = {**TINY, "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128}}
    assert _warnings_of(lambda: profile_from_hf_config(gptq, "g", "g.json"))[1] == []  # the dtype's own group
    awq = {**TINY, "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 64}}
    assert "int4 group_size 64: scales take 0.0312 B" in _warnings_of(lambda: profile_from_hf_config(awq, "a", "a.json"))[1][0]
    with pytest.raises(RooflineError, match=r"^g.json: quantization_config.group_size: expected a positive integer or -1"):
        profile_from_hf_config({**gptq, "quantization_config": {**gptq["quantization_config"], "group_size": "32"}}, "g", "g.json")


@pytest.mark.parametrize("names, expected", [
    (["re:.*mlp\\.(gate|up|gate_up|down)_proj.*"], {"mlp"}), (["re:.*mlp\\.(gate_up|down)_proj$"], {"mlp"}),
    (["re:.*mlp\\.(gate|up)_proj.*"], set()),  # the down projection stays quantised: not the whole MLP
    (["re:.*mlp\\.experts\\.(gate|up|down)_proj.*"], set()),
])
def test_a_regex_over_the_mlps_projections_names_the_dense_mlp(names, expected):
    from roofline.hfimport import _skipped_classes

    assert _skipped_classes({"ignore": names}, 4) == expected


def test_a_missing_key_takes_the_model_types_transformers_default():
    """tie_word_embeddings absent was read as untied (Gemma's LM head counted twice: Gemma 3 27B ~1.4B heavy), and Gemma 3
    without sliding_window_pattern as every layer sliding."""
    gemma3 = {**TINY, "model_type": "gemma3_text", "num_hidden_layers": 62, "sliding_window": 1024}
    profile = profile_from_hf_config({"model_type": "gemma3", "text_config": gemma3}, "g3", "g3.json")
    assert profile["tied_embeddings"] is True
    assert profile["attention"]["groups"] == [{"kind": "sliding", "layers": 52, "window": 1024}, {"kind": "full", "layers": 10}]
    assert "tie_word_embeddings true, sliding_window_pattern 6" in profile["notes"]
    for model_type in ("gemma", "gemma2"):
        assert profile_from_hf_config({**TINY, "model_type": model_type}, "g", "g.json")["tied_embeddings"] is True
    assert profile_from_hf_config({**TINY, "model_type": "gemma2", "tie_word_embeddings": False}, "g", "g.json")["tied_embeddings"] is False
    assert profile_from_hf_config(TINY, "t", "t.json")["tied_embeddings"] is False  # llama: transformers' default, untied


GPT_OSS_120B = {"model_type": "gpt_oss", "num_hidden_layers": 36, "hidden_size": 2880, "num_attention_heads": 64,
                "num_key_value_heads": 8, "head_dim": 64, "intermediate_size": 2880, "vocab_size": 201088, "tie_word_embeddings": False,
                "num_local_experts": 128, "num_experts_per_tok": 4, "sliding_window": 128,
                "layer_types": ["sliding_attention", "full_attention"] * 18}


def test_a_published_active_count_is_compared_without_the_input_embedding_where_the_publisher_leaves_it_out():
    """OpenAI's 5.13B active for gpt-oss-120b and DeepSeek's 36.6B leave the input embedding out: a correct import
    warned +11.3%. Qwen's 3.3B for Qwen3-30B-A3B counts it; the nearer convention is used and named."""
    from roofline.hfimport import check_params

    profile = profile_from_hf_config(GPT_OSS_120B, "g", "g.json", published_active_params=5.13e9)
    line, said = _warnings_of(lambda: check_params(profile, "g.json"))
    assert said == [] and "active 5.13B without the input embedding (published 5.13B, +0.0%)" in line
    v3 = profile_from_hf_config(DEEPSEEK_V3, "d", "d.json", published_active_params=36.6e9)
    assert "active 36.63B without the input embedding (published 36.60B, +0.1%)" in check_params(v3, "d.json")
    import json
    from pathlib import Path

    qwen = json.loads((Path(__file__).parent / "data" / "hf" / "qwen3-30b-a3b.json").read_text())
    line, said = _warnings_of(lambda: check_params(profile_from_hf_config(qwen, "q", "q.json", published_active_params=3.3e9), "q.json"))
    assert said == [] and "active 3.35B with the input embedding (published 3.30B, +1.6%)" in line
    far = profile_from_hf_config(GPT_OSS_120B, "g", "g.json", published_active_params=4e9)
    said = _warnings_of(lambda: check_params(far, "g.json"))[1]
    assert said == ["g.json: active: computed 5.13B without the input embedding (5.71B with it) is +28.3% from published 4.00B"]
    tied = profile_from_hf_config({**TINY, "tie_word_embeddings": True}, "t", "t.json", published_active_params=203_840)
    line = check_params(tied, "t.json")  # 267,840 less the head's 64,000: the tied matrix is the LM head too, one count
    assert "active 0.00B (published 0.00B, +0.0%)" in line and "input embedding" not in line


@pytest.mark.parametrize("change, message", [
    ({"n_group": 8, "topk_group": 10}, "topk_group: expected at most n_group=8"),
    ({"n_group": 3, "topk_group": 2}, "n_group: expected a divisor of n_routed_experts=256"),
    ({"n_group": 64, "topk_group": 1}, "topk_group: expected groups enough to hold num_experts_per_tok=8 experts (4 a group)"),
])
def test_group_limited_routing_the_gate_could_not_run_is_refused_naming_the_config_key(change, message):
    """topk_group above n_group imported as ungrouped in silence, and n_group 3 was refused as the profile's
    moe.groups, a field the config does not have."""
    config = {**TINY, "model_type": "deepseek_v3", "n_routed_experts": 256, "num_experts_per_tok": 8, "moe_intermediate_size": 32,
              "topk_method": "noaux_tc", **change}
    with pytest.raises(RooflineError, match=re.escape(message)):
        profile_from_hf_config(config, "ds", "ds.json")


def test_deepseek_v2s_group_scoring_by_the_best_expert_is_warned():
    from roofline.errors import RooflineWarning

    config = {**TINY, "model_type": "deepseek_v2", "n_routed_experts": 160, "num_experts_per_tok": 6, "moe_intermediate_size": 32,
              "n_group": 8, "topk_group": 3, "topk_method": "group_limited_greedy"}
    with pytest.warns(RooflineWarning, match="group_limited_greedy scores a group by its best expert"):
        moe = profile_from_hf_config(config, "ds2", "ds2.json")["moe"]
    assert (moe["groups"], moe["groups_per_token"]) == (8, 3)


def test_deepseek_v3s_group_keys_default_as_transformers_does_and_an_unknown_gate_is_refused():
    """A deepseek_v3 config without n_group / topk_group imported ungrouped (transformers defaults them to 8 and 4); an
    unknown topk_method was taken as group-limited routing in silence."""
    config = {**TINY, "model_type": "deepseek_v3", "n_routed_experts": 256, "num_experts_per_tok": 8, "moe_intermediate_size": 32}
    profile = profile_from_hf_config(config, "ds", "ds.json")
    assert (profile["moe"]["groups"], profile["moe"]["groups_per_token"]) == (8, 4)
    assert "n_group 8, topk_group 4" in profile["notes"]
    with pytest.raises(RooflineError, match="topk_method: expected one of greedy, group_limited_greedy, noaux_tc, found 'foo'"):
        profile_from_hf_config({**config, "topk_method": "foo"}, "ds", "ds.json")


def test_an_amd_quark_checkpoint_is_imported_in_its_own_precision():
    """`quant_method: quark` (AMD's own quantised checkpoints, global_quant_config) was refused (qa80)."""
    def quark(weight, inputs=None, **extra):
        gqc = {"weight": {"dtype": weight, "qscheme": "per_tensor"}, "input_tensors": inputs and {"dtype": inputs}}
        return profile_from_hf_config({**TINY, "quantization_config": {"quant_method": "quark", "global_quant_config": gqc, **extra}},
                                      "q", "q.json")["precision"]

    assert quark("fp8_e4m3", "fp8_e4m3")["default"] == "fp8"
    assert quark("int8", "int8")["default"] == "int8" and quark("int8")["default"] == "w8a16"
    assert quark("uint4")["default"] == "int4" and quark("fp4", "fp4")["default"] == "fp4"
    assert "quant_method quark" in quark("fp8_e4m3", "fp8_e4m3")["source"]
    # weight-only: no quantised input tensors, so the GEMMs compute in 16 bits (they were read as W8A8 / W4A4; qa85)
    assert quark("fp8_e4m3")["default"] == "w8a16" and quark("fp4")["default"] == "int4"
    assert quark("fp4", "bfloat16")["default"] == "int4" and quark("fp8_e4m3", "fp8_e4m3")["default"] == "fp8"
    # W4A8 (fp4 weights, fp8 inputs) has no dtype of its own: int4's bytes and 16-bit compute, said (qa90)
    with pytest.warns(RooflineWarning, match=r"q.json: quantization_config: fp4 weights with fp8_e4m3 input tensors \(W4A8\) are read as int4"):
        assert quark("fp4", "fp8_e4m3")["default"] == "int4"
    with pytest.raises(RooflineError, match=r"global_quant_config.weight.dtype: expected fp8_e4m3, int8, int4, uint4 or fp4, found 'bfp16'"):
        quark("bfp16")
    with pytest.raises(RooflineError, match=r"global_quant_config.weight: expected a quantisation spec"):
        profile_from_hf_config({**TINY, "quantization_config": {"quant_method": "quark"}}, "q", "q.json")


def test_a_config_whose_layers_share_another_layers_kv_is_refused():
    """A gemma3n-style config with num_kv_shared_layers 15 imported as 35 layers each caching its own KV (1.75x high; qa82)."""
    with pytest.raises(RooflineError, match=r"num_kv_shared_layers: expected 0 \(layers that reuse another layer's KV cache"):
        profile_from_hf_config({**TINY, "num_kv_shared_layers": 15}, "g", "g.json")
    assert profile_from_hf_config({**TINY, "num_kv_shared_layers": 0}, "g", "g.json")["name"] == "g"


def test_a_gemma_3_text_config_takes_gemma3textconfigs_defaults_for_the_keys_it_leaves_out():
    """qa121: gemma-3-4b-it's text_config gives no num_attention_heads, gemma-3-27b-it's no vocab_size: both refused."""
    text = {"model_type": "gemma3_text", "hidden_size": 2560, "intermediate_size": 10240, "num_hidden_layers": 34,
            "sliding_window": 1024}
    profile = profile_from_hf_config({"model_type": "gemma3", "text_config": text}, "g3", "g3.json")
    assert (profile["heads"], profile["kv_heads"], profile["head_dim"], profile["vocab_size"]) == (8, 4, 256, 262208)
    assert profile["attention"]["groups"] == [{"kind": "sliding", "layers": 29, "window": 1024}, {"kind": "full", "layers": 5}]
    assert profile["max_context_tokens"] == 131072 and profile["tied_embeddings"] is True


def test_a_published_count_given_in_billions_is_said_as_such_and_active_above_total_refused():
    """qa121: --published-params 14.8 (billions meant) read '+99785790170.3% from published 0.00B', and a published
    active count above the total went in unsaid; qa414: then warned of, and written."""
    from roofline.hfimport import check_params

    profile = profile_from_hf_config(TINY, "t", "t.json", published_params=14.8)
    profile["hidden_size"], profile["vocab_size"] = 2048, 32000  # a model of more than a million parameters
    # qa414: refused, not warned of (the profile was written, and `models validate` said ok)
    with pytest.raises(RooflineError, match=r"t.json: published_params: expected a count of parameters, at least 10,000 "
                       r"\(14.8 billion is 14.8e9\), found 14.8"):
        check_params(profile, "t.json")
    with pytest.raises(RooflineError, match=r"published_active_params: expected at most published_params \(2e\+09\)"):
        model_from_dict(profile_from_hf_config(TINY, "t", "t.json", published_params=2e9, published_active_params=3e9), "t")


def test_mtp_modules_under_another_key_are_said_not_imported_in_silence():
    """qa121: MiniMax-M2's use_mtp / num_mtp_modules 3 gave no mtp_modules and no word."""
    with pytest.warns(RooflineWarning, match=r"m.json: num_mtp_modules 3: not imported .* set mtp_modules by hand"):
        profile = profile_from_hf_config({**TINY, "use_mtp": True, "num_mtp_modules": 3}, "m", "m.json")
    assert "mtp_modules" not in profile


def test_attention_only_configs_carrying_hybrid_style_keys_still_import():
    """qa124: the hybrid refusal refused MiniMax-M2 (attn_type_list all 1: softmax attention on every layer) and a Llama 4
    config whose layer_types transformers filled in with chunked_attention."""
    m2 = profile_from_hf_config({**TINY, "attn_type_list": [1, 1, 1, 1]}, "m", "m.json")
    assert m2["attention"]["groups"] == [{"kind": "full", "layers": 4}]
    scout = {**TINY, "model_type": "llama4_text", "attention_chunk_size": 8192, "intermediate_size_mlp": 128,
             "layer_types": ["chunked_attention"] * 3 + ["full_attention"]}
    assert profile_from_hf_config(scout, "s", "s.json")["attention"]["groups"] == [
        {"kind": "sliding", "layers": 3, "window": 8192}, {"kind": "full", "layers": 1}]


def test_a_config_of_absurdly_many_layers_is_one_line_not_a_hang():
    """The fuzz's num_hidden_layers of 1e300 walked every layer in the MoE pattern and hung."""
    with pytest.raises(RooflineError, match=r"^h.json: num_hidden_layers: expected at most 100,000 layers"):
        profile_from_hf_config({**TINY, "num_hidden_layers": 10 ** 300}, "h", "h.json")


def test_a_mixtral_config_imports_without_a_sequence_parallel_moe_block():
    """qa149: vLLM's MixtralMoE has no sequence-parallel path; an imported Mixtral must say so (moe.sequence_parallel)."""
    cfg = {**TINY, "model_type": "mixtral", "num_local_experts": 8, "num_experts_per_tok": 2}
    moe = profile_from_hf_config(cfg, "mx", "mx.json")["moe"]
    assert moe["sequence_parallel"] is False and model_from_dict(profile_from_hf_config(cfg, "mx", "mx.json"), "mx").moe.sequence_parallel is False
    cfg = {**TINY, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32}
    assert "sequence_parallel" not in profile_from_hf_config(cfg, "q", "q.json")["moe"]


def test_an_imported_profiles_header_stays_one_comment_line_whatever_its_display_name(tmp_path):
    """qa246: --display-name 'a<newline>b' wrote '# a' and a line 'b: made with ...', a YAML key: the file failed its own
    validation and `models list` exited 2."""
    from pathlib import Path

    path, _ = import_hf_config(Path(__file__).parent / "data" / "hf" / "qwen3-30b-a3b.json", "qq5", tmp_path,
                               display_name="a\nb\u2028c")
    first, second = path.read_text().splitlines()[:2]
    assert first.startswith("# a\\nb\\u2028c: made with") and second == "type: model"
    assert load_model("qq5", (tmp_path,)).display_name == "a\nb\u2028c"


def test_a_qk_norm_over_all_heads_is_imported_not_dropped():
    """qa447: MiniMax-M2's qk_norm_type per_layer (a norm over all heads: under tp an all-reduce of its sums of squares
    each layer) was dropped in silence; it is imported as qk_norm_all_heads and noted, a per-head one (Qwen3's) not."""
    profile = profile_from_hf_config({**TINY, "use_qk_norm": True, "qk_norm_type": "per_layer"}, "mm", "mm.json")
    assert profile["qk_norm_all_heads"] is True and model_from_dict(profile, "mm.json").qk_norm_all_heads
    assert "Its QK norm spans all heads (qk_norm_type per_layer -> qk_norm_all_heads)" in profile["notes"]
    profile = profile_from_hf_config({**TINY, "use_qk_norm": True, "qk_norm_type": "per_head"}, "q", "q.json")
    assert "qk_norm_all_heads" not in profile and "QK norm" not in profile["notes"]
    from roofline.tables import model_table

    assert "qk_norm_all_heads true: q and k normed over all heads" in model_table(load_model("minimax-m2.7"))
    assert "qk_norm_all_heads" not in model_table(load_model("qwen3-30b-a3b"))


def test_a_multimodal_configs_vision_encoder_is_said_left_out():
    """qa447: Gemma 3's SigLIP tower (vision_config beside text_config) was left out of the weights unsaid."""
    config = {"model_type": "gemma3", "text_config": {**TINY, "model_type": "gemma3_text"}, "vision_config": {"hidden_size": 32}}
    with pytest.warns(RooflineWarning, match=r"vision_config: the vision encoder's weights are not counted"):
        profile = profile_from_hf_config(config, "g", "g.json")
    assert "vision encoder (vision_config) is not counted" in profile["notes"]


def test_a_gemma3_config_with_layer_types_notes_no_sliding_window_pattern_default():
    """qa463: layer_types said which layers slide, yet the notes listed the pattern's default 6 as given to the config."""
    types = ["sliding_attention", "full_attention"] * 2
    gemma3 = {**TINY, "model_type": "gemma3_text", "sliding_window": 512, "layer_types": types}
    profile = profile_from_hf_config(gemma3, "g3", "g3.json")
    assert profile["attention"]["groups"] == [{"kind": "sliding", "layers": 2, "window": 512}, {"kind": "full", "layers": 2}]
    assert "sliding_window_pattern" not in profile["notes"] and "tie_word_embeddings true" in profile["notes"]
