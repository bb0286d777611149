"""Hugging Face config import (hfimport.py) rules the suite did not pin, found by mutation testing (qa464): each value
below is worked out by hand from the module's docstring and transformers' config rules, never copied from the output."""

import warnings

import pytest

from roofline.errors import RooflineError, RooflineWarning
from roofline.hfimport import _skipped_classes, check_params, profile_from_hf_config

TINY = {"model_type": "llama", "num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 8, "num_key_value_heads": 2,
        "intermediate_size": 128, "vocab_size": 1000}
MOE = {**TINY, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32}


def _import(config, **kwargs):
    """(profile, the RooflineWarning messages the import gave)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        profile = profile_from_hf_config(config, "x", "x.json", **kwargs)
    return profile, [str(w.message) for w in caught if issubclass(w.category, RooflineWarning)]


def _attention(config):
    attention = profile_from_hf_config(config, "x", "x.json")["attention"]
    return attention["groups"], attention.get("layer_groups", [])


# --- which layers slide -----------------------------------------------------------------------------------------------

def test_llama4_chunked_layers_by_the_default_interval_and_by_an_explicit_no_rope_list():
    """transformers' Llama4TextConfig: no_rope_layer_interval defaults to 4, layer i global where (i + 1) % 4 == 0;
    no_rope_layers[i] 1 means the layer uses RoPE, i.e. it is a chunked layer, 0 a global one."""
    llama4 = {**TINY, "model_type": "llama4_text", "num_hidden_layers": 8, "attention_chunk_size": 8192,
              "intermediate_size_mlp": 128}
    # layers 3 and 7 (0-based) global, the other six chunked
    assert _attention(llama4) == ([{"kind": "sliding", "layers": 6, "window": 8192}, {"kind": "full", "layers": 2}],
                                  [0, 0, 0, 1, 0, 0, 0, 1])
    flags = {**llama4, "num_hidden_layers": 4, "no_rope_layers": [1, 0, 1, 1]}  # layer 1 the one global layer
    assert _attention(flags) == ([{"kind": "sliding", "layers": 3, "window": 8192}, {"kind": "full", "layers": 1}], [0, 1, 0, 0])


def test_gemma2_slides_its_even_layers_from_layer_0():
    """transformers' Gemma2: is_sliding = not layer_idx % 2; with 5 layers, 0, 2 and 4 slide (3 of 5)."""
    gemma2 = {**TINY, "model_type": "gemma2", "num_hidden_layers": 5, "sliding_window": 4096}
    assert _attention(gemma2) == ([{"kind": "sliding", "layers": 3, "window": 4096}, {"kind": "full", "layers": 2}],
                                  [0, 1, 0, 1, 0])


def test_qwen_windows_start_at_max_window_layers_default_28():
    """Qwen2Config's max_window_layers defaults to 28: of 30 layers, 28 and 29 slide."""
    qwen2 = {**TINY, "model_type": "qwen2", "num_hidden_layers": 30, "sliding_window": 4096, "use_sliding_window": True}
    assert _attention(qwen2)[0] == [{"kind": "sliding", "layers": 2, "window": 4096}, {"kind": "full", "layers": 28}]


@pytest.mark.parametrize("model_type", ["mistral", "mixtral", "phi3", "starcoder2"])
def test_every_layer_window_types_slide_on_every_layer_unless_told_not_to(model_type):
    """EVERY_LAYER_WINDOW_TYPES: Phi-3 and StarCoder2 apply their one sliding_window to every layer, as Mistral does;
    use_sliding_window false turns it off."""
    config = {**TINY, "model_type": model_type, "sliding_window": 2047}
    if model_type == "mixtral":
        config.update(num_local_experts=4, num_experts_per_tok=2)
    profile, said = _import(config)
    assert profile["attention"]["groups"] == [{"kind": "sliding", "layers": 4, "window": 2047}] and said == []
    assert _import({**config, "use_sliding_window": False})[0]["attention"]["groups"] == [{"kind": "full", "layers": 4}]


# --- skip lists and precision -----------------------------------------------------------------------------------------

def test_a_skip_list_naming_one_class_in_every_layer_keeps_it_16_bit():
    """_skipped_classes: a class named for one layer's module counts where the list names it in every layer."""
    names = [f"model.layers.{i}.self_attn" for i in range(4)]
    assert _skipped_classes({"ignore": names}, 4) == {"attention"}
    assert _skipped_classes({"ignore": names[:3]}, 4) == set()  # three of four: still quantised
    precision = profile_from_hf_config({**TINY, "quantization_config": {"quant_method": "fp8", "ignored_layers": names}},
                                       "x", "x.json")["precision"]
    assert precision["attention"] == "bf16" and precision["default"] == "fp8"


def test_a_per_channel_gptq_group_size_of_minus_1_is_read_with_its_bytes_said():
    """group_size -1: one 16-bit scale an output channel, about 0 B a weight, against the int4 dtype's 2 B / 128 =
    0.015625: (0.5 + 0) / 0.515625 - 1 = -3.0%, the profile's weights about 3% heavy."""
    profile, said = _import({**TINY, "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": -1}})
    assert profile["precision"]["default"] == "int4"
    assert said == ["x.json: quantization_config: int4 group_size -1: scales take 0.0000 B a weight, the int4 dtype assumes "
                    "0.0156 (weights about 3% heavy)"]


def test_an_8_bit_gptq_group_size_is_checked_against_w8a16s_per_channel_scales():
    """w8a16 counts 1 B a weight (per-channel scales, none to speak of); group 128 adds 2 / 128 = 0.015625 B: 1.6% off,
    past the 1% tolerance, the dtype light; -1 (per channel) is the dtype's own: nothing said."""
    profile, said = _import({**TINY, "quantization_config": {"quant_method": "gptq", "bits": 8, "group_size": 128}})
    assert profile["precision"]["default"] == "w8a16"
    assert said == ["x.json: quantization_config: w8a16 group_size 128: scales take 0.0156 B a weight, the w8a16 dtype "
                    "assumes 0.0000 (weights about 2% light)"]
    assert _import({**TINY, "quantization_config": {"quant_method": "gptq", "bits": 8, "group_size": -1}})[1] == []


def test_a_quantization_config_inside_the_text_config_is_read():
    """_precision reads config's quantization_config, else the text_config's."""
    config = {"model_type": "llava", "text_config": {**TINY, "quantization_config": {"quant_method": "fp8"}}}
    assert profile_from_hf_config(config, "x", "x.json")["precision"]["default"] == "fp8"


@pytest.mark.parametrize("algo", ["FP8", "FP8_PER_CHANNEL_PER_TOKEN", "FP8_BLOCK_SCALES"])
def test_every_modelopt_fp8_algorithm_is_fp8(algo):
    qc = {"quant_method": "modelopt", "quant_algo": algo}
    assert profile_from_hf_config({**TINY, "quantization_config": qc}, "x", "x.json")["precision"]["default"] == "fp8"


@pytest.mark.parametrize("activations, dtype", [({"num_bits": 8, "type": "int"}, "int8"), (None, "w8a16")])
def test_compressed_tensors_8_bit_integer_weights_are_int8_with_int8_inputs_else_w8a16(activations, dtype):
    """8-bit int weights with int8 activations compute W8A8 (int8); without quantised activations they are weight-only
    (w8a16), not int4."""
    qc = {"quant_method": "compressed-tensors", "config_groups": {"group_0": {
        "weights": {"num_bits": 8, "type": "int", "strategy": "channel"}, "input_activations": activations}}}
    assert profile_from_hf_config({**TINY, "quantization_config": qc}, "x", "x.json")["precision"]["default"] == dtype


def test_only_square_weight_blocks_are_kept_and_int8_keeps_its_blocks_too():
    """block: square block scales (fp8 or int8) only; a [128, 64] block is no square block."""
    fp8 = profile_from_hf_config({**TINY, "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 64]}},
                                 "x", "x.json")["precision"]
    assert "block" not in fp8
    int8 = {"quant_method": "compressed-tensors", "config_groups": {"group_0": {
        "weights": {"num_bits": 8, "type": "int", "strategy": "block", "block_structure": [128, 128]},
        "input_activations": {"num_bits": 8, "type": "int"}}}}
    precision = profile_from_hf_config({**TINY, "quantization_config": int8}, "x", "x.json")["precision"]
    assert (precision["default"], precision["block"]) == ("int8", 128)


def test_the_precision_source_mentions_unconverted_modules_only_where_the_config_lists_some():
    plain = profile_from_hf_config({**TINY, "quantization_config": {"quant_method": "fp8"}}, "x", "x.json")["precision"]
    assert plain["source"] == ("quantization_config of the imported config.json: quant_method fp8; embedding, LM head and "
                               "router kept in 16 bits (roofline/hfimport.py)")
    listed = {"quant_method": "fp8", "modules_to_not_convert": ["model.layers.*.self_attn"]}
    assert "with the modules it leaves unconverted" in profile_from_hf_config(
        {**TINY, "quantization_config": listed}, "x", "x.json")["precision"]["source"]


def test_quark_reads_the_first_weight_spec_and_the_first_input_spec_and_warns_of_w4a8_with_int8_inputs():
    def quark(weight, inputs):
        qc = {"quant_method": "quark", "global_quant_config": {"weight": weight, "input_tensors": inputs}}
        return _import({**TINY, "quantization_config": qc})

    # the first weight spec is the storage: int4, whatever the second says
    assert quark([{"dtype": "int4"}, {"dtype": "fp8_e4m3"}], None)[0]["precision"]["default"] == "int4"
    # fp8 weights with fp8 inputs first: W8A8 fp8 (a second spec does not make it weight-only)
    assert quark({"dtype": "fp8_e4m3"}, [{"dtype": "fp8_e4m3"}, {"dtype": "bfloat16"}])[0]["precision"]["default"] == "fp8"
    profile, said = quark({"dtype": "fp4"}, {"dtype": "int8"})  # W4A8 with int8 inputs: int4, said as fp8 inputs are
    assert profile["precision"]["default"] == "int4"
    assert len(said) == 1 and said[0].startswith("x.json: quantization_config: fp4 weights with int8 input tensors (W4A8) "
                                                 "are read as int4")


# --- MoE layers and routing -------------------------------------------------------------------------------------------

def test_a_shared_expert_of_the_experts_own_size_writes_no_size_of_its_own():
    moe = profile_from_hf_config({**MOE, "shared_expert_intermediate_size": 32}, "x", "x.json")["moe"]
    assert moe["shared_experts"] == 1 and "shared_expert_ffn_size" not in moe


def test_llama4s_moe_layers_are_every_step_th_from_step_minus_1_or_the_listed_ones():
    """Llama4TextConfig: moe_layers = range(step - 1, layers, step): with 5 layers and step 2, layers 1 and 3 are MoE
    and 0, 2, 4 dense (3); with step 2 and 2 layers, layer 0 alone is dense: it leads. moe_layers given wins."""
    llama4 = {**TINY, "model_type": "llama4_text", "num_local_experts": 4, "num_experts_per_tok": 1,
              "intermediate_size_mlp": 256, "num_hidden_layers": 5, "interleave_moe_layer_step": 2}
    assert profile_from_hf_config(llama4, "x", "x.json")["moe"]["dense_layers"] == 3
    two = profile_from_hf_config({**llama4, "num_hidden_layers": 2}, "x", "x.json")["moe"]
    assert (two["dense_layers"], two.get("dense_placement")) == (1, "leading")
    listed = profile_from_hf_config({**MOE, "moe_layers": [1, 3]}, "x", "x.json")["moe"]
    assert listed["dense_layers"] == 2 and "dense_placement" not in listed  # 0 and 2 dense: interleaved


def test_an_n_group_without_topk_group_routes_ungrouped():
    """topk_group absent: every group (n_group of n_group), no group limit."""
    config = {**MOE, "model_type": "deepseek_v2", "n_routed_experts": 64, "num_experts_per_tok": 6, "n_group": 8}
    del config["num_experts"]
    moe = profile_from_hf_config(config, "x", "x.json")["moe"]
    assert "groups" not in moe and "groups_per_token" not in moe


def test_groups_exactly_enough_for_top_k_are_accepted():
    """256 experts in 64 groups of 4, 2 groups a token: 2 x 4 = 8 = num_experts_per_tok, enough."""
    config = {**TINY, "model_type": "deepseek_v3", "n_routed_experts": 256, "num_experts_per_tok": 8,
              "moe_intermediate_size": 32, "n_group": 64, "topk_group": 2, "topk_method": "noaux_tc"}
    moe = profile_from_hf_config(config, "x", "x.json")["moe"]
    assert (moe["groups"], moe["groups_per_token"]) == (64, 2)


def test_a_moe_config_whose_every_layer_is_dense_is_refused():
    with pytest.raises(RooflineError, match=r"^x\.json: num_experts: expected at least one MoE layer, found 0$"):
        profile_from_hf_config({**MOE, "mlp_only_layers": [0, 1, 2, 3]}, "x", "x.json")


# --- lengths, keys, defaults ------------------------------------------------------------------------------------------

def test_a_fractional_length_is_left_out_with_a_warning_and_a_factor_below_1_is_applied():
    profile, said = _import({**TINY, "max_position_embeddings": 4096.5})
    assert "max_context_tokens" not in profile
    assert said == ["x.json: max_position_embeddings: expected a whole number of tokens up to 1,000,000,000, found 4096.5: "
                    "max_context_tokens left out"]
    # vLLM multiplies the length by any positive linear factor: 4096 x 0.5 = 2048
    half = {**TINY, "max_position_embeddings": 4096, "rope_scaling": {"rope_type": "linear", "factor": 0.5}}
    assert profile_from_hf_config(half, "x", "x.json")["max_context_tokens"] == 2048


def test_a_gpt2_style_config_is_refused_by_n_embd_alone_too():
    with pytest.raises(RooflineError, match=r"a decoder config with num_hidden_layers \(GPT-2 style configs are not read\)"):
        profile_from_hf_config({**TINY, "n_embd": 64}, "x", "x.json")


def test_the_top_level_config_decides_what_the_text_config_leaves_out():
    """tie_word_embeddings: the text_config's, else the top-level config's, else the model_type's default."""
    top_tied = {"model_type": "llava", "tie_word_embeddings": True, "text_config": dict(TINY)}
    assert profile_from_hf_config(top_tied, "x", "x.json")["tied_embeddings"] is True
    gemma3 = {"model_type": "gemma3", "tie_word_embeddings": False, "text_config": {**TINY, "model_type": "gemma3_text"}}
    profile = profile_from_hf_config(gemma3, "x", "x.json")
    assert profile["tied_embeddings"] is False and "tie_word_embeddings true" not in profile["notes"]


def test_the_layer_bound_is_inclusive():
    assert profile_from_hf_config({**TINY, "num_hidden_layers": 100_000}, "x", "x.json")["layers"] == 100_000


# --- MLA, sparse attention, notes, MTP --------------------------------------------------------------------------------

DSV32 = {"model_type": "deepseek_v32", "num_hidden_layers": 61, "hidden_size": 7168, "num_attention_heads": 128,
         "num_key_value_heads": 128, "intermediate_size": 18432, "moe_intermediate_size": 2048, "vocab_size": 129280,
         "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
         "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
         "n_group": 8, "topk_group": 4, "topk_method": "noaux_tc", "index_topk": 2048, "index_n_heads": 64,
         "index_head_dim": 128}


def test_mla_head_dim_is_nope_plus_rope_and_a_q_lora_rank_of_0_or_none_is_no_q_compression():
    profile = profile_from_hf_config(DSV32, "x", "x.json")
    assert profile["head_dim"] == 128 + 64
    for q in (0, None):
        assert profile_from_hf_config({**DSV32, "q_lora_rank": q}, "x", "x.json")["attention"]["mla"]["q_lora_rank"] == 0


def test_the_indexer_weights_left_out_are_said_at_their_size():
    """vLLM's DeepseekV32 indexer: wq_b q_lora_rank x (heads x dim), wk hidden x dim, weights_proj hidden x heads:
    61 x (1536 x 64 x 128 + 7168 x (128 + 64)) = 61 x 13,959,168 = 851,509,248, 0.85B."""
    assert "(wq_b, wk, weights_proj: 0.85B) are not counted" in profile_from_hf_config(DSV32, "x", "x.json")["notes"]


def test_index_keys_and_fp8_latents_count_a_4_byte_scale_for_every_started_128():
    """index_head_dim 200: 200 fp8 values + 2 scales (128 + 72) of 4 B = 208 B; a 192-wide latent: 192 + 2 x 4 + 2 x 64 RoPE
    dims = 328 B."""
    profile = profile_from_hf_config({**DSV32, "index_head_dim": 200, "kv_lora_rank": 192}, "x", "x.json")
    assert profile["attention"]["index_key_bytes"]["fp8"] == 208
    assert profile["attention"]["kv_entry_bytes"] == {"fp8": 328}


def test_sparse_attention_is_put_on_the_full_attention_layers_only():
    config = {**TINY, "index_topk": 256, "index_n_heads": 4, "index_head_dim": 32, "sliding_window": 128,
              "layer_types": ["sliding_attention", "full_attention"] * 2}
    groups = profile_from_hf_config(config, "x", "x.json")["attention"]["groups"]
    assert groups == [{"kind": "sliding", "layers": 2, "window": 128},
                      {"kind": "full", "layers": 2, "read_tokens": 256, "index_dim": 32, "index_heads": 4}]


def test_mtp_modules_under_minimax_keys_are_said_without_a_use_mtp_flag_too():
    profile, said = _import({**TINY, "num_mtp_modules": 3})
    assert "mtp_modules" not in profile and len(said) == 1 and said[0].startswith("x.json: num_mtp_modules 3: not imported")
    assert _import({**TINY, "num_mtp_modules": 3, "use_mtp": False})[1] == []


def test_an_active_count_without_a_published_figure_is_said_with_the_input_embedding():
    """gpt-oss-120b: 5.13B active without the input embedding (the suite's check), plus 201,088 x 2,880 = 579,133,440
    of embedding: 5.71B."""
    gpt_oss = {"model_type": "gpt_oss", "num_hidden_layers": 36, "hidden_size": 2880, "num_attention_heads": 64,
               "num_key_value_heads": 8, "head_dim": 64, "intermediate_size": 2880, "vocab_size": 201088,
               "tie_word_embeddings": False, "num_local_experts": 128, "num_experts_per_tok": 4, "sliding_window": 128,
               "layer_types": ["sliding_attention", "full_attention"] * 18}
    line = check_params(profile_from_hf_config(gpt_oss, "g", "g.json"), "g.json")
    assert line.endswith("active 5.71B") and "published" not in line


def test_a_window_no_sequence_outgrows_is_imported_as_full_attention():
    """qa486: a sliding_window of 99,999,999 over 32,768 positions was imported as a sliding group ('gqa sliding' in
    `models list`) that holds and reads what full attention does: imported as full attention, said."""
    import warnings

    from roofline.hfimport import profile_from_hf_config

    cfg = {"model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
           "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000, "max_position_embeddings": 32768,
           "head_dim": 128}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wide = profile_from_hf_config({**cfg, "sliding_window": 99999999}, "m", "c.json")
    said = [str(w.message) for w in caught if "no sequence outgrows it" in str(w.message)]
    assert said == ["c.json: sliding_window 99,999,999: at least max_position_embeddings (32,768), so no sequence outgrows "
                    "it: those layers imported as full attention"], said
    full = profile_from_hf_config(cfg, "m", "c.json")
    assert wide["attention"] == full["attention"] and "sliding" not in str(wide["attention"])
    narrow = profile_from_hf_config({**cfg, "sliding_window": 4096}, "m", "c.json")  # Mistral 7B v0.1's: slides
    assert "sliding" in str(narrow["attention"])
