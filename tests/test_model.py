import dataclasses

import numpy as np
import pytest

from roofline.errors import RooflineError
from roofline.model import AttentionGroup, MoESpec, check_model_spec, load_model, model_from_dict
from roofline.profiles import builtin_dir, list_names
from roofline.yamlio import read_yaml_file

REQUIRED_MODELS = [
    "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "llama-3.2-1b", "llama-3.2-3b", "llama-2-7b", "tinyllama-1.1b",
    "qwen3-0.6b", "qwen3-1.7b", "qwen3-8b", "qwen3-32b", "mixtral-8x7b", "deepseek-v3", "deepseek-v4-flash", "gpt-oss-120b",
]


def test_llama_3_1_8b_has_8_03_billion_parameters(llama8b):
    # 2 * 128256 * 4096 + 32 * (2 * 4096^2 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 2 * 4096) + 4096
    assert llama8b.params == 8_030_261_248


def test_llama_3_1_8b_kv_cache_is_131072_bytes_per_token_in_bf16(llama8b):
    # 2 (K, V) * 32 layers * 8 KV heads * 128 dims * 2 bytes
    assert llama8b.kv_bytes_per_token("bf16") == 131_072


def test_deepseek_v3_counts_671b_total_about_37b_active(deepseek_v3):
    assert deepseek_v3.params == pytest.approx(671e9, rel=0.005)
    assert deepseek_v3.active_params == pytest.approx(37e9, rel=0.03)


def test_deepseek_v3_mla_cache_is_512_plus_64_elements_per_layer(deepseek_v3):
    assert deepseek_v3.kv_elements_per_token_per_layer == 512 + 64
    assert deepseek_v3.kv_bytes_per_token("bf16") == 61 * 576 * 2
    # the latent is replicated, not split, under tensor parallelism
    assert deepseek_v3.kv_elements_per_token_per_layer_per_device(8) == 576


def test_gqa_kv_heads_split_over_tensor_parallel_ranks_at_least_one_each(llama8b):
    assert llama8b.kv_elements_per_token_per_layer_per_device(2) == 2 * 4 * 128
    assert llama8b.kv_elements_per_token_per_layer_per_device(16) == 2 * 1 * 128


@pytest.mark.parametrize("name", REQUIRED_MODELS)
def test_every_preset_reproduces_its_published_parameter_count(name):
    model = load_model(name)
    assert model.published_params is not None
    assert model.params == pytest.approx(model.published_params, rel=0.025)


def test_moe_active_counts_match_published_figures():
    assert load_model("mixtral-8x7b").active_params == pytest.approx(12.9e9, rel=0.01)
    gpt_oss = load_model("gpt-oss-120b")
    # OpenAI counts the LM head but not the input embedding as active
    assert gpt_oss.active_params - gpt_oss.embedding_params == pytest.approx(5.13e9, rel=0.01)
    assert load_model("deepseek-v4-flash").active_params == pytest.approx(13e9, rel=0.03)


def test_sliding_window_layers_store_at_most_the_window(monkeypatch):
    gpt_oss = load_model("gpt-oss-120b")
    per_token_layer = 2 * 8 * 64
    # 18 full layers hold 100k tokens, 18 sliding layers hold 128
    assert gpt_oss.kv_cache_elements_per_sequence(100_000) == (18 * 100_000 + 18 * 128) * per_token_layer


def test_compressed_layers_store_one_entry_per_ratio_plus_the_window():
    v4 = load_model("deepseek-v4-flash")
    s = 65_536
    expected_tokens = 2 * 128 + 21 * (s // 4 + 128) + 20 * (s // 128 + 128)
    index_keys = 21 * (s // 4) * 128  # the CSA layers' Lightning Indexer: one 128-wide key per compressed entry
    assert v4.kv_cache_elements_per_sequence(s) == expected_tokens * 512 + index_keys


def test_the_lightning_indexer_scores_every_compressed_entry_and_its_keys_are_read_each_step():
    """DeepSeek-V4's CSA layers: every query scores all ceil(S/4) index keys (64 heads x 128) before attention reads
    its top 512; the keys are read whole on every rank each step. The profile left the indexer out until session 15.
    Since session 30 (qa117) the indexer is an operator of its own, replicated on every tensor-parallel rank (its
    FLOPs were split over tp: vLLM and SGLang build it ReplicatedLinear), its keys fp8 of 132 B whatever the KV dtype
    (they took the KV dtype: 256 B in bf16), scored in fp8."""
    from roofline.costs import operator_costs
    from roofline.engine import operator_compute_dtypes
    from roofline.hardware import load_hardware
    from roofline.layout import deployment

    v4 = load_model("deepseek-v4-flash")
    plain = dataclasses.replace(v4, groups=tuple(dataclasses.replace(g, index_dim=0, index_heads=0) for g in v4.groups))
    dep, s = deployment(v4, tp=8), 131072
    with_indexer, without = (operator_costs(m, 4, 3, s, dep) for m in (v4, plain))
    assert [float(x) for x in with_indexer["attention"]] == [float(x) for x in without["attention"]]
    assert float(without["indexer"][0]) == float(without["indexer"][1]) == 0.0
    flops, nbytes = with_indexer["indexer"]
    keys = 21 * np.ceil((s + 3) / 4)  # indexed entries a CSA layer holds at S + q, q = 3
    assert float(nbytes) == pytest.approx(4 * keys * 132, rel=1e-12)  # 4 sequences, fp8 keys of 132 B, whole per rank
    # 4 sequences x 3 queries, each scoring the entries at its mean causal position S + (q + 1) / 2: not divided by tp
    assert float(flops) == pytest.approx(21 * 2 * 64 * 128 * 12 * np.ceil((s + 2) / 4), rel=1e-12)
    assert operator_compute_dtypes(load_hardware("h200"), dep)["indexer"] == "fp8"
    assert operator_compute_dtypes(load_hardware("a100-sxm-80gb"), dep)["indexer"] == "bf16"  # no fp8 units
    half = dataclasses.replace(v4, groups=(v4.groups[0], dataclasses.replace(v4.groups[1], index_heads=0), v4.groups[2]))
    with pytest.raises(RooflineError, match=r"groups\[1\].index_dim: expected index_dim and index_heads both"):
        check_model_spec(half)


def test_all_presets_are_listed():
    names = list_names("model")
    assert set(REQUIRED_MODELS) <= set(names)


def _llama_dict():
    return read_yaml_file(builtin_dir("model") / "llama-3.1-8b.yaml")  # a fresh copy each call


@pytest.mark.parametrize("key, value, field", [
    ("layers", 0, "layers"), ("heads", "32", "heads"), ("ffn_gated", "yes", "ffn_gated"), ("colour", 1, "colour"),
])
def test_bad_model_fields_give_one_line(key, value, field):
    data = _llama_dict()
    data[key] = value
    with pytest.raises(RooflineError) as err:
        model_from_dict(data, "m.yaml")
    assert str(err.value).startswith(f"m.yaml: {field}: expected")


def test_layer_groups_must_sum_to_the_layer_count():
    data = _llama_dict()
    data["attention"] = {"groups": [{"kind": "full", "layers": 30}]}
    with pytest.raises(RooflineError, match="attention.groups: expected layer counts summing to layers=32"):
        model_from_dict(data, "m.yaml")


def test_every_shipped_model_spec_passes_its_check_unchanged():
    for name in list_names("model"):
        spec = load_model(name)
        assert check_model_spec(spec) is spec


@pytest.mark.parametrize("change, message", [
    ({"layers": 0}, "layers: expected a positive integer, found 0"),
    ({"layers": True}, "layers: expected a positive integer, found true"),
    ({"heads": "32"}, "heads: expected a positive integer, found '32'"),
    ({"hidden_size": 4096.0}, "hidden_size: expected a positive integer written in digits (write 4096: a count takes no "
                              "exponent or decimal point), found 4096.0"),  # (qa340: 1e5 was told it is no integer)
    ({"vocab_size": 10**10}, "vocab_size: expected an integer at most 1,000,000,000, found 10000000000"),
    ({"kv_heads": 64}, "kv_heads: expected at most heads=32, found 64"),
    ({"kv_heads": 5}, "kv_heads: expected a divisor of heads=32"),
    ({"ffn_gated": 1}, "ffn_gated: expected true or false, found 1"),
    ({"kv_layout": "mha"}, "kv_layout: expected gqa | shared_kv | mla, found 'mha'"),
    ({"o_groups": 0}, "o_groups: expected a positive integer, found 0"),
    ({"groups": ()}, "groups: expected layer counts summing to layers=32, found 0"),
    ({"groups": (AttentionGroup("sliding", 32),)}, "groups[0].window: expected a positive integer, found 0"),
    ({"groups": (AttentionGroup("compressed", 32, 128, 1),)}, "groups[0].ratio: expected an integer >= 2 for a compressed group, found 1"),
    ({"moe": MoESpec(experts=8, top_k=9, expert_ffn_size=1024)}, "moe.top_k: expected at most experts=8, found 9"),
    ({"moe": MoESpec(experts=8, top_k=2, expert_ffn_size=1024, dense_layers=32)}, "moe.dense_layers: expected fewer than layers=32, found 32"),
    ({"moe": {"experts": 8}}, "moe: expected a MoESpec or None"),
    ({"mtp_modules": -1}, "mtp_modules: expected a non-negative integer, found -1"),
    ({"published_params": float("inf")}, "published_params: expected a finite positive number of parameters (below 1e16), found inf"),
    ({"native_precision": (("mlp", "fp9"),)}, "native_precision[0]: expected fp32 | bf16 | fp16 | fp8 | int8 | w8a16 | int4 | fp4 | nvfp4, found 'fp9'"),
])
def test_a_model_spec_built_in_python_is_checked_like_a_profile(llama8b, change, message):
    with pytest.raises(RooflineError) as err:
        check_model_spec(dataclasses.replace(llama8b, **change))
    assert str(err.value).startswith(f"model spec 'llama-3.1-8b': {message}") and "\n" not in str(err.value)


def test_an_mla_spec_needs_its_ranks(deepseek_v3):
    with pytest.raises(RooflineError, match="^model spec 'deepseek-v3': mla: expected an MLASpec with kv_layout mla, found None$"):
        check_model_spec(dataclasses.replace(deepseek_v3, mla=None))
    with pytest.raises(RooflineError, match="^model spec 'deepseek-v3': mla.kv_lora_rank: expected a positive integer, found 0$"):
        check_model_spec(dataclasses.replace(deepseek_v3, mla=dataclasses.replace(deepseek_v3.mla, kv_lora_rank=0)))
    with pytest.raises(RooflineError, match="^model spec 'deepseek-v3': q_lora_rank: expected no top-level low-rank fields"):
        check_model_spec(dataclasses.replace(deepseek_v3, q_lora_rank=64))


def test_the_model_loader_keeps_its_messages_through_the_shared_rules():
    data = _llama_dict()
    data["moe"] = {"experts": 8, "top_k": 9, "expert_ffn_size": 1024}
    with pytest.raises(RooflineError, match=r"^m.yaml: moe.top_k: expected at most experts=8, found 9$"):
        model_from_dict(data, "m.yaml")
    data = _llama_dict()
    data["attention"] = {"groups": [{"kind": "compressed", "layers": 32, "ratio": 1}]}
    with pytest.raises(RooflineError, match=r"^m.yaml: attention.groups\[0\].ratio: expected an integer >= 2 for a compressed group"):
        model_from_dict(data, "m.yaml")
    data = _llama_dict()
    data["published_params"] = "8.03e9"  # YAML 1.1's string form of a number
    assert model_from_dict(data, "m.yaml").published_params == 8.03e9
    with pytest.raises(RooflineError, match="^model: expected a ModelSpec or a profile name, found str$"):
        check_model_spec("llama-3.1-8b")


def test_a_models_precision_takes_every_dtype_spelling_and_checks_it_before_the_source():
    from roofline.yamlio import load_yaml_text

    data = load_yaml_text((builtin_dir("model") / "llama-3.1-8b.yaml").read_text(), "m.yaml")
    data["precision"] = {"default": "FP8", "embedding": "bfloat16", "source": "test"}
    dtypes = dict(model_from_dict(data, "m.yaml").native_precision)
    assert dtypes["attention"] == "fp8" and dtypes["embedding"] == "bf16"
    data["precision"] = {"default": "fp7"}  # no source either: the dtype is what is wrong first
    with pytest.raises(RooflineError, match=r"precision.default: expected one of .*found 'fp7'"):
        model_from_dict(data, "m.yaml")


def test_nvfp4_weights_carry_a_scale_a_16_and_compute_on_the_fp4_tensor_cores():
    """NVFP4 was costed as MXFP4 (one 8-bit scale a 32 weights): 5.9% light on every quantised weight."""
    import roofline
    from roofline.hardware import load_hardware
    from roofline.model import BYTES_PER_ELEMENT
    from roofline.profiles import normalize_dtype

    assert BYTES_PER_ELEMENT["nvfp4"] == 0.5 + 1 / 16 and BYTES_PER_ELEMENT["fp4"] == 0.5 + 1 / 32
    mx = roofline.predict("b200", "llama-3.1-70b", 1, 1024, weight_dtype="mxfp4", engine="ideal")
    nv = roofline.predict("b200", "llama-3.1-70b", 1, 1024, weight_dtype="NVFP4", engine="ideal")
    for cls in ("attention", "mlp"):  # quantised; embedding and LM head stay bf16
        assert nv["weight_classes"][cls]["bytes_per_device"] == pytest.approx(mx["weight_classes"][cls]["bytes_per_device"] * 0.5625 / 0.53125)
        assert (nv["weight_classes"][cls]["dtype"], mx["weight_classes"][cls]["dtype"]) == ("nvfp4", "fp4")
    assert nv["weight_classes"]["embedding"] == mx["weight_classes"]["embedding"]
    b200 = load_hardware("b200")
    assert b200.compute_dtype("nvfp4") == b200.compute_dtype("fp4") == "fp4"
    assert load_hardware("h100-sxm").compute_dtype("nvfp4") == "bf16"  # no fp4 tensor cores: weight-only
    assert normalize_dtype("nvfp4", ("bf16", "fp8", "fp4"), "x", "peak_flops") == "fp4"  # a peak's key: the cores it runs on


@pytest.mark.slow
def test_a_models_or_engines_text_fields_must_be_text():
    """`display_name: {a: 1}` or `true` passed `models validate` and printed as "{'a': 1} (dn)"; hardware refused them."""
    import yaml as pyyaml

    from roofline.model import model_from_dict
    from roofline.profiles import builtin_dir
    from roofline.serving import engine_from_dict

    model = pyyaml.safe_load((builtin_dir("model") / "llama-3.1-8b.yaml").read_text())
    engine = pyyaml.safe_load((builtin_dir("engine") / "vllm.yaml").read_text())
    for bad in ({"a": 1}, [1, 2], True, float("inf")):
        with pytest.raises(RooflineError, match=r"^m.yaml: display_name: expected text, found "):
            model_from_dict({**model, "display_name": bad}, "m.yaml")
        with pytest.raises(RooflineError, match=r"^e.yaml: (display_name|notes): expected text, found "):
            engine_from_dict({**engine, "display_name": bad}, "e.yaml")
    assert model_from_dict({**model, "display_name": 4090}, "m.yaml").display_name == "4090"  # digits YAML read as a number


def test_a_version_yaml_reads_as_a_date_is_its_text():
    import yaml as pyyaml

    from roofline.profiles import builtin_dir
    from roofline.serving import engine_from_dict

    engine = pyyaml.safe_load((builtin_dir("engine") / "trtllm.yaml").read_text())
    dated = {**engine, "version": pyyaml.safe_load("v: 2025-06-01")["v"]}
    assert engine_from_dict(dated, "e.yaml").version == "2025-06-01"


def test_a_kv_layout_with_scales_and_a_bf16_rope_part_takes_the_entry_bytes_its_profile_gives():
    """DeepSeek-V4's fp8 KV entry is 584 B (448 fp8 + 64 bf16 RoPE dims + 8 B of scales; SGLang's pool sizing) and an
    index key 132 B: at 128k with fp8 KV a sequence held 453.7 MB, not 507.9, and H200 x 8 fitted 255 sequences, not 228."""
    import roofline
    from roofline.costs import kv_cache_bytes
    from roofline.layout import deployment

    v4 = load_model("deepseek-v4-flash")
    assert dict(v4.kv_entry_bytes) == {"fp8": 584} and set(dict(v4.index_key_bytes).values()) == {132}
    length = 131073
    windows, csa, hca = 43 * 128 * 584, 21 * 32769 * (584 + 132), 20 * 1025 * 584
    state = 21 * 81920 + 20 * 524288  # the compressors' fp32 state, whatever the dtype (test_capacity)
    held = kv_cache_bytes(v4, 1, length, deployment(v4, tp=8, kv_dtype="fp8"))
    assert float(held) == pytest.approx(windows + csa + hca + state, rel=1e-12)
    assert float(kv_cache_bytes(v4, 1, length, deployment(v4, tp=8))) == pytest.approx(  # bf16 entries, fp8 index keys
        43 * 128 * 1024 + 21 * 32769 * (1024 + 132) + 20 * 1025 * 1024 + state, rel=1e-12)
    p = roofline.predict("h200", "deepseek-v4-flash", tp=8, context=131072, kv_dtype="fp8")
    assert p["max_batch"] == int((p["usable_memory_bytes"] - p["weight_bytes"]) // (windows + csa + hca + state)) == 214  # 228 without the state
    # (222 in the hardware profile's 0.90 of the memory, before vllm's own share: session 35)
    with pytest.raises(RooflineError, match="index_key_bytes: expected an attention group with an indexer"):
        model_from_dict({**read_yaml_file(builtin_dir("model") / "llama-3.1-8b.yaml"), "attention": {"index_key_bytes": {"fp8": 132}}},
                        "m.yaml")
    with pytest.raises(RooflineError, match="kv_entry_bytes.fp8: expected a positive integer"):
        model_from_dict({**read_yaml_file(builtin_dir("model") / "llama-3.1-8b.yaml"), "attention": {"kv_entry_bytes": {"fp8": -1}}},
                        "m.yaml")


def test_a_window_on_a_full_group_is_refused_not_ignored():
    """`models set m attention.groups.0.window=4096` on a full group loaded and changed nothing: full KV, no word."""
    data = read_yaml_file(builtin_dir("model") / "llama-3.1-8b.yaml")
    data["attention"] = {"groups": [{"kind": "full", "layers": 32, "window": 4096}]}
    with pytest.raises(RooflineError, match=r"attention.groups\[0\].window: expected 0 on a full group"):
        model_from_dict(data, "m.yaml")


@pytest.mark.parametrize("kind, extra", [("full", {}), ("sliding", {"window": 4096})])
def test_a_ratio_on_a_group_that_keeps_every_token_is_refused_not_ignored(kind, extra):
    """qa467: `ratio: 4` on a full group validated `ok` and changed no byte (only a compressed group's ratio is read),
    where a window there was refused; 1, the default, is taken."""
    data = read_yaml_file(builtin_dir("model") / "llama-3.1-8b.yaml")
    data["attention"] = {"groups": [{"kind": kind, "layers": 32, "ratio": 4, **extra}]}
    with pytest.raises(RooflineError, match=rf"attention.groups\[0\].ratio: expected 1 or none on a {kind} group \(a ratio "
                                            r"is kind: compressed's\), found 4"):
        model_from_dict(data, "m.yaml")
    data["attention"]["groups"][0]["ratio"] = 1
    assert model_from_dict(data, "m.yaml").groups[0].ratio == 1


def test_a_json_config_with_a_key_twice_is_refused(tmp_path):
    """A config.json giving hidden_size twice imported as the last one (an 8B model at 18.7B) without a word."""
    from roofline.yamlio import read_json_file

    path = tmp_path / "config.json"
    path.write_text('{"hidden_size": 4096, "num_hidden_layers": 32, "hidden_size": 8192}')
    with pytest.raises(RooflineError, match="key 'hidden_size' given twice"):
        read_json_file(path)


def test_a_spec_built_from_deepseek_v4_without_its_indexer_still_runs():
    """dataclasses.replace(v4, groups=(all full,)) was refused for index_key_bytes no group reads."""
    import roofline

    v4 = load_model("deepseek-v4-flash")
    dense = dataclasses.replace(v4, name="dsv4-dense", groups=(AttentionGroup("full", 43),), layer_groups=())
    assert roofline.predict("h200", dense, tp=8)["step_time_s"] > 0
    with pytest.raises(RooflineError, match=r"layer_groups\[2\]: expected a group index 0\.\.0 .* needs layer_groups "
                                            r"replaced too: layer_groups=\(\) for none\)$"):
        roofline.predict("h200", dataclasses.replace(dense, layer_groups=v4.layer_groups), tp=8)
    assert load_model("llama-3.1-8b").kv_bytes_per_token(2.0) == 131_072  # bytes per element, as the method took before


@pytest.mark.slow
def test_a_context_past_the_trained_positions_is_priced_and_warned_in_predict_sweep_and_import():
    """No profile said how long a sequence a model was trained for: a sweep of Llama-2-7B at 32k contexts priced a
    length no engine serves without an override, silently. Every shipped model but the synthetic validation pair says
    (config.json's max_position_embeddings), predict and a sweep warn once past it, and `models import` reads it."""
    import warnings

    import roofline
    from roofline.hfimport import profile_from_hf_config

    shipped = {name: load_model(name) for name in list_names("model") if not name.startswith("validation")}
    assert all(spec.max_context_tokens > 0 for spec in shipped.values()), [n for n, s in shipped.items() if not s.max_context_tokens]
    assert (shipped["llama-2-7b"].max_context_tokens, shipped["qwen3-8b"].max_context_tokens,
            shipped["deepseek-v3"].max_context_tokens) == (4096, 40960, 163840)
    within = roofline.predict("h100-sxm", "llama-2-7b", batch=1, context=4096, method="eagle", k=4, alpha=0.7)
    assert not [w for w in within["warnings"] if "trained positions" in w]  # a pass's own tokens are not counted
    past = roofline.predict("h100-sxm", "llama-2-7b", batch=1, context=4097, method="eagle", k=4, alpha=0.7)
    note = next(w for w in past["warnings"] if "trained positions" in w)
    assert note.startswith("context 4,097 is past llama-2-7b's 4,096 trained positions (max_context_tokens)")
    assert past["step_time_s"] == roofline.predict("h100-sxm", "llama-2-7b", batch=1, context=4097)["step_time_s"]  # priced
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        roofline.sweep({"name": "long", "hardware": "h100-sxm", "model": ["llama-2-7b", "llama-3.1-8b"], "method": "none",
                        "axes": {"batch": [1, 8], "context": [1024, 8192]}})
    notes = [str(w.message) for w in caught if "trained positions" in str(w.message)]
    assert len(notes) == 1 and "context 8,192 (1 of 2) is past llama-2-7b's 4,096" in notes[0]
    imported = model_from_dict(profile_from_hf_config({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
                                                        "num_attention_heads": 8, "intermediate_size": 128, "vocab_size": 100,
                                                        "max_position_embeddings": 8192}, "t", "t.json"), "t")
    assert imported.max_context_tokens == 8192
    with pytest.raises(RooflineError, match="max_context_tokens: expected a non-negative integer, found -1"):
        model_from_dict({**read_yaml_file(builtin_dir("model") / "llama-2-7b.yaml"), "max_context_tokens": -1}, "m")


def test_a_prompt_past_the_trained_positions_is_warned_and_an_import_derives_the_length_as_vllm_does():
    """--prompt 16000 on Llama-2-7B was priced without a word; a sweep named only its longest context; an import with
    max_position_embeddings 10^12 failed whole naming max_context_tokens, a key the file does not have, and a linear RoPE
    scaling's factor (which vLLM applies to the length) was not read (qa62)."""
    import warnings

    import roofline
    from roofline.hfimport import profile_from_hf_config
    from roofline.model import context_note

    p = roofline.predict("h100-sxm", "llama-2-7b", 1, 1000, prompt=16000)
    assert [w for w in p["warnings"] if w.startswith("prompt 16,000 is past llama-2-7b's 4,096 trained positions")]
    assert context_note(load_model("vicuna-7b-v1.3"), [1024, 4096, 8192, 16384]).startswith(
        "contexts 4,096-16,384 (3 of 4) are past vicuna-7b-v1.3's 2,048")
    base = {"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 8,
            "intermediate_size": 128, "vocab_size": 100}
    cases = [({"max_position_embeddings": 32768, "rope_scaling": {"rope_type": "linear", "factor": 4}}, 131072),
             ({"max_position_embeddings": 163840, "rope_scaling": {"type": "yarn", "factor": 40,
                                                                   "original_max_position_embeddings": 4096}}, 163840),
             ({"max_position_embeddings": 131072, "rope_scaling": {"rope_type": "llama3", "factor": 8}}, 131072),
             ({"max_position_embeddings": 40960.0}, 40960)]
    for extra, expected in cases:
        assert profile_from_hf_config({**base, **extra}, "t", "t.json")["max_context_tokens"] == expected, extra
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        profile = profile_from_hf_config({**base, "max_position_embeddings": 10**12}, "t", "t.json")
    assert "max_context_tokens" not in profile
    assert [str(w.message) for w in caught if "max_position_embeddings: expected a whole number" in str(w.message)]


def test_an_import_takes_gemma_3s_length_as_scaled_already_and_lets_model_max_length_raise_it():
    """Gemma 3's 131,072 positions were multiplied by its linear RoPE factor (1,048,576), which vLLM does not do for
    gemma3; a Cohere config's model_max_length (131,072 over max_position_embeddings 8,192), which vLLM lets through,
    was not read (qa67)."""
    from roofline.hfimport import profile_from_hf_config

    base = {"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 8,
            "intermediate_size": 128, "vocab_size": 100}
    gemma = {**base, "model_type": "gemma3_text", "max_position_embeddings": 131072,
             "rope_scaling": {"rope_type": "linear", "factor": 8.0}}
    cohere = {**base, "model_type": "cohere", "max_position_embeddings": 8192, "model_max_length": 131072}
    smallest = {**base, "max_position_embeddings": 32768, "seq_length": 4096}
    assert profile_from_hf_config(gemma, "g", "g.json")["max_context_tokens"] == 131072
    assert profile_from_hf_config(cohere, "c", "c.json")["max_context_tokens"] == 131072
    assert profile_from_hf_config(smallest, "s", "s.json")["max_context_tokens"] == 4096


def test_an_mla_block_beside_another_kv_layout_is_refused_not_sized_as_gqa_heads():
    """qa75: DeepSeek-V3's profile without its `kv_layout: mla` line loaded, and sized a token's KV cache as 128 GQA heads:
    5,996,544 B where the latent takes 70,272 B (85x), without a word."""
    import yaml

    from roofline.errors import RooflineError
    from roofline.model import model_from_dict
    from roofline.profiles import builtin_dir

    data = yaml.safe_load((builtin_dir("model") / "deepseek-v3.yaml").read_text())
    assert model_from_dict(data, "v3.yaml").kv_layout == "mla"
    del data["attention"]["kv_layout"]
    with pytest.raises(RooflineError, match=r"attention\.mla: expected an mla block only beside attention\.kv_layout: mla \(the "
                                            r"kv_layout it has\), found 'gqa'"):
        model_from_dict(data, "v3.yaml")


@pytest.mark.parametrize("order, message", [
    ([1, 0] * 17, r"attention.layer_groups: expected a list of 36 group indices \(one a layer, first to last\), found '34 entries'"),
    ([1, 0] * 17 + [2, 0], r"attention.layer_groups\[34\]: expected a group index 0..1 \(attention.groups, in order\), found 2"),
    ([1, 0] * 17 + [0, 0], r"attention.layer_groups: expected group 0 \(full\) on its 18 layers, found '19 layers'"),
    ("1010", r"attention.layer_groups: expected a list of 36 group indices"),
])
def test_a_layer_order_that_does_not_match_the_groups_is_one_line(order, message):
    from roofline.profiles import builtin_dir
    from roofline.yamlio import read_yaml_file

    data = read_yaml_file(builtin_dir("model") / "gpt-oss-120b.yaml")
    data["attention"] = {**data["attention"], "layer_groups": order}
    with pytest.raises(RooflineError, match=r"^g.yaml: " + message):
        model_from_dict(data, "g.yaml")


def test_a_layer_order_of_whole_floats_reads_as_the_indices_json_schema_takes():
    """qa258: `layer_groups: [1.0, 0.0, ...]` was refused where the schema's integer (and a torus's 16.0) took it."""
    from roofline.profiles import builtin_dir
    from roofline.yamlio import read_yaml_file

    data = read_yaml_file(builtin_dir("model") / "gpt-oss-120b.yaml")
    data["attention"] = {**data["attention"], "layer_groups": [1.0, 0.0] * 18}
    assert model_from_dict(data, "g.yaml").layer_groups == (1, 0) * 18


@pytest.mark.parametrize("name, prompt", [("gpt-oss-120b", 256), ("deepseek-v4-flash", 4096), ("llama-4-scout", 16384)])
def test_a_prefills_attention_reads_are_the_mean_over_its_queries_not_at_their_mean_position(name, prompt):
    """qa352: a sliding or sparse layer's entries a query reads, taken at the queries' mean position, overstated a prefill
    straddling the window: min(mean, W) > mean of min(p, W) (gpt-oss at 256 tokens 128 against 96.25 a sliding layer;
    DeepSeek-V4's compressed sparse layers 640 against 510 at 4,096). By hand: every position's, averaged; a decode
    step and a verify pass past the window as before."""
    model = load_model(name)
    for g in model.groups:
        brute = np.mean([float(model.entries_read(g, p)) for p in range(1, prompt + 1)])
        assert float(model.mean_entries_read(g, 0, prompt)) == pytest.approx(brute, rel=5e-3), (name, g.kind)  # (ceil)
        assert float(model.mean_entries_read(g, 20_000, 1)) == float(model.entries_read(g, 20_001))  # decode: exact
        assert float(model.mean_entries_read(g, 20_000, 4)) == pytest.approx(float(model.entries_read(g, 20_002.5)))
    capped = [g for g in model.groups if g.kind != "full" or g.read_tokens]
    assert any(float(model.mean_entries_read(g, 0, prompt)) < 0.9 * float(model.entries_read(g, (prompt + 1) / 2))
               for g in capped)
