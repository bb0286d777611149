"""qa449: the model field qk_norm_all_heads checked and said wherever a model's flags are."""
import dataclasses

import jsonschema
import pytest
import yaml

from roofline.errors import RooflineError
from roofline.model import check_model_spec, load_model, model_from_dict
from roofline.profiles import builtin_dir
from roofline.schema import model_schema


def test_qk_norm_all_heads_is_in_models_show_json():
    """`models show --json` gives the flag, as it gives ffn_gated and tied_embeddings."""
    assert load_model("minimax-m2.7").to_json()["qk_norm_all_heads"] is True
    assert load_model("llama-3.1-8b").to_json()["qk_norm_all_heads"] is False


@pytest.mark.parametrize("value", ["yes", 1])
def test_qk_norm_all_heads_takes_true_or_false_only(value):
    """A profile's 'yes' or 1, a spec object's, and the schema: refused, as ffn_gated's are."""
    data = yaml.safe_load((builtin_dir("model") / "llama-3.1-8b.yaml").read_text())
    with pytest.raises(RooflineError, match=r"qk_norm_all_heads: expected true or false, found"):
        model_from_dict({**data, "qk_norm_all_heads": value}, "m.yaml")
    with pytest.raises(RooflineError, match=r"qk_norm_all_heads: expected true or false, found"):
        check_model_spec(dataclasses.replace(load_model("llama-3.1-8b"), qk_norm_all_heads=value))
    assert not jsonschema.Draft202012Validator(model_schema()).is_valid({**data, "qk_norm_all_heads": value})
