"""roofline.schema: the JSON Schemas editors check profiles with, built from the loaders' own tables."""

import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from roofline.model import model_from_dict
from roofline.schema import hardware_schema, model_schema, quantity_schema, schema_text

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("kind, good, bad", [
    ("bytes_per_s", ["3.35 TB/s", "900 GBps", "1e12 B/s", " 4.8 TB/s "], ["3.35", "3.35 TB", "fast", "-1 TB/s"]),
    ("bytes", ["80 GB", "96 GiB", ".5 TB"], ["80", "80 GB/s", "80 Gb"]),
    ("seconds", ["20 us", "1.5 ms", "3 µs"], ["20", "20 GB"]),
])
def test_a_quantity_is_a_number_and_a_unit_of_its_own_kind(kind, good, bad):
    pattern = re.compile(quantity_schema(kind)["pattern"])
    assert all(pattern.match(text) for text in good), good
    assert not any(pattern.match(text) for text in bad), bad


@pytest.mark.slow
def test_every_shipped_model_profile_satisfies_the_model_schema_and_bad_ones_do_not():
    validator = jsonschema.Draft202012Validator(model_schema())
    paths = sorted((ROOT / "model_profiles").glob("*.yaml"))
    assert len(paths) >= 20
    for path in paths:
        errors = [e.message for e in validator.iter_errors(yaml.safe_load(path.read_text()))]
        assert errors == [], (path, errors)
    llama = yaml.safe_load((ROOT / "model_profiles" / "llama-3.1-8b.yaml").read_text())
    for change in ({"layers": 0}, {"colour": "red"}, {"ffn_gated": "yes"},
                   {"attention": {"kv_layout": "paged", "groups": [{"kind": "full", "layers": 32}]}},
                   {"attention": {"groups": [{"kind": "full", "layers": 32}], "layer_group": [0] * 32}},  # a typo (qa257)
                   {"attention": {"groups": [{"kind": "full", "layers": 32}], "layer_groups": [-1] * 32}}):
        assert not validator.is_valid({**llama, **change}), change
    assert validator.is_valid({**llama, "attention": {"groups": [{"kind": "full", "layers": 32}], "layer_groups": [0] * 32}})


def test_the_hardware_schema_refuses_unknown_fields_and_efficiencies_above_one():
    validator = jsonschema.Draft202012Validator(hardware_schema())
    h100 = yaml.safe_load((ROOT / "hardware_profiles" / "h100-sxm.yaml").read_text())
    assert validator.is_valid(h100)
    assert not validator.is_valid({**h100, "memory_bandwith": "3.35 TB/s"})  # a typo is an unknown field
    # qa265: what the loader takes or refuses, the schema too
    assert validator.is_valid({**h100, "type": "Hardware"}) and validator.is_valid({**h100, "operator_ceilings": None})
    assert not validator.is_valid({**h100, "scale_up_domain": 100001})
    alone = {k: v for k, v in h100.items() if k != "scale_out_latency"}
    assert "scale_out_bandwidth" in h100 and not validator.is_valid(alone)
    tpu = yaml.safe_load((ROOT / "hardware_profiles" / "tpu-v5e.yaml").read_text())
    assert validator.is_valid(tpu) and not validator.is_valid({**tpu, "mesh_links": 255})
    assert not validator.is_valid({**h100, "efficiency": {**h100["efficiency"], "memory": 1.2}})
    assert not validator.is_valid({**h100, "peak_flops": {"bf16_sparse": "1979 TFLOP/s"}})
    assert validator.is_valid({**h100, "x_my_note": 3, "measured_gemv": [1, 2]})  # x_ and measured_ keys pass


def test_the_printed_schema_is_stable_json_ending_in_a_newline():
    text = schema_text("hardware")
    assert text.endswith("}\n") and json.loads(text) == hardware_schema()
    assert schema_text("hardware") == text  # the same bytes every time (the shipped file is this output)
    assert json.loads(schema_text("model"))["title"] == "roofline model profile"


def test_the_price_schema_takes_the_spellings_the_tool_reads():
    """`3 usd/h` and `$3/hr` were valid profiles (`hw validate`: ok) that an editor checking the schema flagged."""
    from roofline.schema import price_schema
    from roofline.units import parse_quantity

    pattern = re.compile(price_schema()["pattern"])
    for text in ("3 USD/h", "3 usd/h", "$3/hr", "$ 2.50/hour", "2.5 $/hr", "3.00 USD/hour", "1e1 USD/h", "3 EUR/h", "3", "0 USD/h",
                 "3 USD / h", "3 USD /h", "3 $/ h", "$3 /hr", "$3/ hr"):
        try:
            parse_quantity(text, "usd_per_hour")
            read = True
        except ValueError:
            read = False
        assert bool(pattern.match(text)) == read, text


@pytest.mark.slow
def test_the_schemas_take_the_dtype_keys_and_published_counts_the_tool_reads():
    """An editor using the schema flagged `BF16:` and `e4m3:` peaks, and PROFILES.md's `published_params: 8.03e9`
    (text in YAML 1.1), all of which the tool reads."""
    from roofline.errors import RooflineError
    from roofline.hardware import hardware_from_dict
    from roofline.model import model_from_dict

    root = Path(__file__).parent.parent
    hw = yaml.safe_load((root / "hardware_profiles" / "h100-sxm.yaml").read_text())
    peaks = hw["peak_flops"]
    spelled = {**hw, "peak_flops": {"BF16": peaks["bf16"], "E4M3": peaks["fp8"], "w8a8": peaks["int8"], "Float32": peaks["fp32"]}}
    jsonschema.validate(spelled, hardware_schema())
    hardware_from_dict(spelled, "x.yaml")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**hw, "peak_flops": {"bf17": peaks["bf16"]}}, hardware_schema())
    model = yaml.safe_load((root / "model_profiles" / "llama-3.1-8b.yaml").read_text())
    text = yaml.safe_load("published_params: 8.03e9")
    assert isinstance(text["published_params"], str)  # the premise: YAML 1.1 reads it as text
    jsonschema.validate({**model, **text}, model_schema())
    assert model_from_dict({**model, **text}, "m.yaml").published_params == 8.03e9
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**model, "published_params": "eight billion"}, model_schema())
    # qa414: a count in billions (8.03) refused by both; 10,000, the least count, taken by both (qa416's boundary)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**model, "published_params": 8.03}, model_schema())
    with pytest.raises(RooflineError, match="published_params: expected a count of parameters, at least 10,000"):
        model_from_dict({**model, "published_params": 671}, "m.yaml")
    jsonschema.validate({**model, "published_params": 1e4, "published_active_params": 1e4}, model_schema())
    assert model_from_dict({**model, "published_params": 1e4, "published_active_params": 1e4}, "m.yaml").published_params == 1e4


def test_the_schema_and_the_loader_agree_on_fp4_formats():
    """The schema refused `fp4_formats: null` (the loader reads it as absent) and a profile whose fp4 peak is spelt
    `FP4` or `mxfp4` (the loader reads any spelling); both still refuse a list beside no fp4 peak (qa85)."""
    from roofline.errors import RooflineError
    from roofline.hardware import hardware_from_dict

    validator = jsonschema.Draft202012Validator(hardware_schema())
    mi = yaml.safe_load((ROOT / "hardware_profiles" / "mi355x.yaml").read_text())
    h100 = yaml.safe_load((ROOT / "hardware_profiles" / "h100-sxm.yaml").read_text())
    peaks = {k: v for k, v in mi["peak_flops"].items() if k != "fp4"}
    cases = [({**mi, "fp4_formats": None}, True), ({**h100, "fp4_formats": None}, True),
             ({**mi, "peak_flops": {**peaks, "FP4": mi["peak_flops"]["fp4"]}}, True),
             ({**mi, "peak_flops": {**peaks, "mxfp4": mi["peak_flops"]["fp4"]}}, True),
             ({**mi, "peak_flops": peaks}, False), ({**h100, "fp4_formats": ["nvfp4"]}, False),
             ({**mi, "fp4_formats": ["MXFP4", "mxfp4"]}, True), ({**mi, "fp4_formats": []}, False),
             ({**mi, "fp4_formats": ["int4"]}, False)]
    for profile, good in cases:
        try:
            hardware_from_dict(profile, "x.yaml")
            read = True
        except RooflineError:
            read = False
        assert read == good and validator.is_valid(profile) == good, (profile.get("fp4_formats"), list(profile["peak_flops"]))


@pytest.mark.slow
def test_the_engine_schema_is_the_shipped_file_and_agrees_with_the_loader_field_by_field(roofline):
    """Engine profiles had no schema (session 38's note): `engines schema` prints it, docs/engine.schema.json is that
    output, every shipped engine names it on its first line and satisfies it; and for each field, values the loader
    takes the schema takes, values it refuses the schema refuses (so the two cannot drift apart unseen). JSON Schema
    cannot tell 16.0 from 16, so an integer field written 16.0 passes an editor and not the loader; the loader's range
    checks of times and sizes are not in the schema."""
    from roofline.errors import RooflineError
    from roofline.schema import engine_schema
    from roofline.serving import engine_from_dict

    code, out, _ = roofline("engines", "schema")
    assert code == 0 and out == (ROOT / "docs" / "engine.schema.json").read_text(), \
        "regenerate with: roofline engines schema > docs/engine.schema.json"
    validator = jsonschema.Draft202012Validator(engine_schema())
    for path in sorted((ROOT / "engine_profiles").glob("*.yaml")):
        assert path.read_text().startswith("# yaml-language-server: $schema=../docs/engine.schema.json\n"), path
        errors = [e.message for e in validator.iter_errors(yaml.safe_load(path.read_text()))]
        assert errors == [], (path, errors)
    samples = {
        "kernel_latency": ["3 us", "0", 0, "0 ms", "3", "-3 us", "3 GB", 3],
        "memory_reserved": ["1.5 GiB", "800 MB", 0, "0", "0 GB", "1.5", "1.5 GB/s", -1],
        "kernels_per_layer": [{"mlp": 3}, {"mlp": 0.5}, {"mlp": 101}, {"mpl": 3}, {"mlp": True}, [3]],
        "quant_kernels_per_gemm": [0, 2.5, 11, -1, True],
        "host_overlap": [True, False, "yes", 1],
        "moe_dispatch": ["per_rank", "per_pair", "allgather", "all_gather"],
        "dp_gather": ["allgather_decode", "allreduce", "gather"],
        "dp_attention_stage_split": [["mlp", "lm_head"], [], ["mlp", "mlp"], ["embedding"], "mlp"],
        "dp_attention_whole": [["embedding"], ["mlp"]],
        "overlap_exponent": [1, 3.5, None, 0.5, 101],
        "quantised_moe_efficiency": [0.5, 1, 0.001, 1.5, None],
        "gemm_tile_rows": [0, 16, 1024, 1025, 16.5, -1],
        "window_kv_pool_ratio": [0.8, None, 0, 1.2],
        "memory_fraction": [0.9, None, 0.01, 1.1],
        "memory_fraction_of": ["device", "free", "total"],
        "sampler_sequences": [0, 1024, -1, 1.5, 2_000_000],
        "sampler_logit_copies": [6.2, 0, 101, "6"],
        "max_running_requests_speculating": [48, None, 0, 48.5, True],
        "max_running_requests_flag": ["--max-running-requests", "--max_batch_size", None, "max-running", "--Max", 48],
        "version": ["0.5.7", 3, None, 1.2],  # decimals refused: 0.10 would read as 0.1 (qa183: the schema took 1.2)
        "display_name": ["SGLang", 4090, 1.5, None, [1]],
        "notes": ["n", None, {"a": 1}],
        "speculation_refused_with_dp_attention": [["draft", "ngram"], [], ["lookahead"], ["draft", "draft"]],
        "speculation_refused_with_pp": [True, "no"],
        "speculation_caveats": [{"draft": "n"}, {"Draft ": "n"}, None, {}, {"lookahead": "n"}, {"draft": " "}, {"draft": 3}, ["draft"]],
        "nvidia_only": [False, 0],
        "known_misses": [[{"note": "n", "measured": "slower"}], [{"note": "n", "measured": None, "batch": None}],
                         [{"note": "n", "measured": "slow"}], [{"note": "n", "hardware": None, "models": None}],  # qa312
                         [{"note": "n", "layouts": ["tp 8", "tp 1, dp-attention 8, ep 8"]}], [{"note": "n", "layouts": ["tp8"]}],
                         [{"note": "n", "layouts": []}], [{"note": "n", "layouts": None}]],  # qa379
    }
    for key, values in samples.items():
        for value in values:
            data = {"name": "x", "source": "test", key: value}
            try:
                engine_from_dict(data, "x.yaml")
                loads = True
            except RooflineError:
                loads = False
            assert validator.is_valid(data) == loads, (key, value, loads)
            if key in ("kernel_latency", "memory_reserved", "gemm_tile_rows", "memory_fraction"):  # an override's too
                wrapped = {"name": "x", "source": "test", "overrides": [{"hardware": "mi*", key: value}]}
                assert validator.is_valid(wrapped) == loads, ("overrides", key, value)
    assert not validator.is_valid({"name": "x", "source": "s", "host_per_stp": "1 ms"})  # a typo is an unknown field
    assert not validator.is_valid({"name": "x", "source": "s", "overrides": [{"hardware": "mi*", "nvidia_only": True}]})
    assert not validator.is_valid({"name": "x"})  # source required
    flag = {"name": "x", "source": "s", "max_running_requests_flag": "--mrr"}  # an option beside a cap only
    assert validator.is_valid({**flag, "max_running_requests_speculating": 8})
    assert validator.is_valid({**flag, "costs_from": "sglang"})
    assert not validator.is_valid({**flag, "costs_from": "sglang", "max_running_requests_speculating": None})


def test_the_schemas_refuse_a_cost_beside_costs_from_and_a_precision_the_model_loader_refuses(tmp_path):
    """qa403: the engine schema took `costs_from` beside a cost (the loader refuses any cost there) and the model schema
    took a bare `precision: {}` (the loader wants its source). Each sample: the schema and the loader agree."""
    from roofline.errors import RooflineError
    from roofline.schema import engine_schema
    from roofline.serving import load_engine

    engines = jsonschema.Draft202012Validator(engine_schema())
    for extra, loads in (({}, True), ({"graphs": False, "mixed_prefill": True}, True), ({"host_per_step": "1 ms"}, False),
                         ({"kernels_per_layer": {"mlp": 3}}, False), ({"overrides": [{"hardware": "mi*"}]}, False),
                         ({"fitted": {}}, False)):
        data = {"type": "engine", "name": "x", "source": "test", "costs_from": "vllm", **extra}
        path = tmp_path / "x.yaml"
        path.write_text(yaml.safe_dump(data))
        try:
            load_engine(str(path))
            loaded = True
        except RooflineError:
            loaded = False
        assert loaded == loads and engines.is_valid(data) == loads, (extra, loaded)
    models = jsonschema.Draft202012Validator(model_schema())
    llama = yaml.safe_load((ROOT / "model_profiles" / "llama-3.1-8b.yaml").read_text())
    for precision in ({}, {"default": "fp8"}, {"source": " "}, {"source": "s", "default": "fp7"},
                      {"source": "s", "mlp": "FP8", "default": "bfloat16"}, {"source": "s", "block": 128},
                      {"source": "s", "block": 0}, {"source": "s", "block": None}, {"source": "s", "colour": "red"},
                      {"source": "s", "lm_head": "int4"}, None, "fp8"):
        try:
            model_from_dict({**llama, "precision": precision}, "x.yaml")
            loads = True
        except RooflineError:
            loads = False
        assert models.is_valid({**llama, "precision": precision}) == loads, (precision, loads)
