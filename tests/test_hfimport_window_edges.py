"""hfimport._sliding_groups' window at or beyond max_position_embeddings (qa486), at its edges (qa490 mutants): a
window equal to the longest sequence slides over nothing either, and the warning names the field the config gave."""
import warnings

from roofline.hfimport import profile_from_hf_config

CFG = {"model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
       "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000, "max_position_embeddings": 32768,
       "head_dim": 128}


def _import(cfg):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        profile = profile_from_hf_config(cfg, "m", "c.json")
    return profile, [str(w.message) for w in caught if "no sequence outgrows it" in str(w.message)]


def test_a_window_equal_to_the_longest_sequence_is_full_attention():
    profile, said = _import({**CFG, "sliding_window": 32768})
    assert said == ["c.json: sliding_window 32,768: at least max_position_embeddings (32,768), so no sequence outgrows "
                    "it: those layers imported as full attention"], said
    assert profile["attention"] == _import(CFG)[0]["attention"]


def test_a_chunk_size_is_named_as_the_config_names_it():
    profile, said = _import({**CFG, "model_type": "llama", "attention_chunk_size": 65536})
    assert len(said) == 1 and said[0].startswith("c.json: attention_chunk_size 65,536: at least"), said
