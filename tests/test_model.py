import pytest
import yaml

from roofline.errors import RooflineError
from roofline.model import load_model, model_from_dict
from roofline.profiles import builtin_dir, list_names

REQUIRED_MODELS = [
    "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "llama-3.2-1b", "llama-3.2-3b", "llama-2-7b", "tinyllama-1.1b",
    "qwen3-0.6b", "qwen3-1.7b", "qwen3-8b", "qwen3-32b", "mixtral-8x7b", "deepseek-v3", "deepseek-v4-flash", "gpt-oss-120b",
]


def test_llama_3_1_8b_has_8_03_billion_parameters(llama8b):
    # 2 * 128256 * 4096 + 32 * (2 * 4096^2 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 2 * 4096) + 4096
    assert llama8b.params == 8_030_261_248


def test_llama_3_1_8b_kv_cache_is_131072_bytes_per_token_in_bf16(llama8b):
    # 2 (K, V) * 32 layers * 8 KV heads * 128 dims * 2 bytes
    assert llama8b.kv_bytes_per_token(2.0) == 131_072


def test_deepseek_v3_counts_671b_total_about_37b_active(deepseek_v3):
    assert deepseek_v3.params == pytest.approx(671e9, rel=0.005)
    assert deepseek_v3.active_params == pytest.approx(37e9, rel=0.03)


def test_deepseek_v3_mla_cache_is_512_plus_64_elements_per_layer(deepseek_v3):
    assert deepseek_v3.kv_elements_per_token_per_layer == 512 + 64
    assert deepseek_v3.kv_bytes_per_token(2.0) == 61 * 576 * 2
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
    assert v4.kv_cache_elements_per_sequence(s) == expected_tokens * 512


def test_all_presets_are_listed():
    names = list_names("model")
    assert set(REQUIRED_MODELS) <= set(names)


def _llama_dict():
    return yaml.safe_load((builtin_dir("model") / "llama-3.1-8b.yaml").read_text())


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
