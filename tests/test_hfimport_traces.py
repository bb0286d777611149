"""qa449: models import's MoE trace under an unread key and its QK-norm flag at their edges."""
import pytest

from roofline.errors import RooflineError
from roofline.hfimport import profile_from_hf_config

TINY = {"model_type": "llama", "num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 8, "num_key_value_heads": 2,
        "intermediate_size": 128, "vocab_size": 1000}


@pytest.mark.parametrize("change, key", [
    ({"moe_num_experts": [64, 64]}, "moe_num_experts"),  # ERNIE-4.5-VL: a count a modality
    ({"moe_num_experts": [0, 64]}, "moe_num_experts"),   # a list holding one count above 0
    ({"NumExperts": 8}, "NumExperts"),                   # any case
    ({"n_expert": 8}, "n_expert"),                        # 'expert', singular
])
def test_an_expert_count_under_an_unread_key_is_refused(change, key):
    """A list of counts, any case and the singular are a MoE config's trace: refused, naming the key."""
    with pytest.raises(RooflineError, match=rf"^x\.json: {key}: expected a dense model's config, or a MoE one"):
        profile_from_hf_config({**TINY, **change}, "x", "x.json")


@pytest.mark.parametrize("change", [{"num_experts": 0}, {"use_expert_bias": True}, {"moe_num_experts": [0, 0]},
                                    # qa449: a read key given as 0 says the config is dense, whatever else it carries
                                    {"num_experts": 0, "num_experts_per_tok": 1},
                                    {"num_experts": 0, "shared_expert_intermediate_size": 5632}])
def test_a_zero_count_or_a_flag_under_an_expert_key_is_no_moe_trace(change):
    """0 experts, a flag (a bool is no count) or a list of zeros: imported dense, not refused."""
    assert profile_from_hf_config({**TINY, **change}, "x", "x.json").get("moe") is None


def test_the_qk_norm_flag_needs_use_qk_norm_and_reads_per_layer_in_any_case():
    """use_qk_norm false: no norm, so no all-reduce; 'PER_LAYER' is per_layer."""
    off = profile_from_hf_config({**TINY, "use_qk_norm": False, "qk_norm_type": "per_layer"}, "x", "x.json")
    assert "qk_norm_all_heads" not in off and "QK norm" not in off.get("notes", "")
    upper = profile_from_hf_config({**TINY, "use_qk_norm": True, "qk_norm_type": "PER_LAYER"}, "x", "x.json")
    assert upper["qk_norm_all_heads"] is True

