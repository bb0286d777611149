"""The public Python API: roofline.predict, roofline.sweep, load_* (what the CLI calls)."""

import dataclasses
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import roofline
from roofline.errors import RooflineError


@pytest.mark.slow
def test_predict_is_one_point_as_a_dict_naming_its_engine_and_layout():
    p = roofline.predict("H100", "llama-3.1-8b", batch=8, context=4096)
    assert p["hardware"] == "h100-sxm" and p["engine"] == "vllm" and p["layout"]["devices"] == 1
    assert p["tokens_per_s"] == pytest.approx(8 / p["step_time_s"])
    ideal = roofline.predict("h100-sxm", "llama-3.1-8b", batch=8, context=4096, engine="ideal")
    assert ideal["step_time_s"] < p["step_time_s"]  # the engine only adds cost to the silicon's bound


def test_predict_refuses_arrays_and_points_to_sweep():
    with pytest.raises(RooflineError, match="use roofline.sweep for arrays"):
        roofline.predict("h100-sxm", "llama-3.1-8b", batch=np.array([1, 2]))


@pytest.mark.parametrize("options, message", [
    ({"k": 2.5}, "predict: k: expected an integer in 0..64, found 2.5"),
    ({"alpha": np.array([0.6, 0.8])}, "predict: alpha: expected one number (use roofline.sweep for arrays), found [0.6, 0.8]"),
    ({"alpha": "0.8"}, "predict: alpha: expected a number, found '0.8'"),
    ({"acceptance": "0.8,0.7"}, "predict: acceptance: expected a flat list of rates in [0, 1], found '0.8,0.7'"),
    ({"acceptance": [[0.9, 0.8]]}, "predict: acceptance: expected a flat list of rates in [0, 1], found [[0.9, 0.8]]"),
    ({"overlap": "no"}, "predict: overlap: expected true or false, found 'no'"),
])
def test_predict_checks_the_type_of_every_option(options, message):
    with pytest.raises(RooflineError) as err:
        roofline.predict("h100-sxm", "llama-3.1-8b", method="eagle", **options)
    assert str(err.value) == message or str(err.value).startswith(message)


def test_a_negative_zero_alpha_is_said_as_0():
    """qa130: --alpha -0 printed 'alpha -0.0' in the text and the JSON."""
    assert roofline.predict("h100-sxm", "llama-3.1-8b", method="eagle", k=2, alpha=-0.0)["spec"]["alpha"] == 0.0
    assert str(roofline.predict("h100-sxm", "llama-3.1-8b", method="eagle", k=2, alpha=-0.0)["spec"]["alpha"]) == "0.0"


def test_one_profile_folder_may_be_given_as_a_string(tmp_path):
    with pytest.raises(RooflineError, match=f"^predict: profiles: {tmp_path / 'none'}: expected a folder of profiles, found no such file or folder$"):
        roofline.predict("h100-sxm", "llama-3.1-8b", profiles=str(tmp_path / "none"))
    assert roofline.load_hardware("h100-sxm", profiles=str(tmp_path)).name == "h100-sxm"


def test_a_missing_roofline_path_folder_is_named_as_the_variable_s(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_PATH", str(tmp_path / "gone"))
    with pytest.raises(RooflineError, match=f"^ROOFLINE_PATH: {tmp_path / 'gone'}: expected a folder of profiles, found no such file or folder$"):
        roofline.load_hardware("h100-sxm")


def test_a_speculation_call_without_acceptance_is_an_error_for_a_draft_model_not_alpha_0():
    with pytest.raises(RooflineError, match="alpha or acceptance"):
        roofline.predict("h100-sxm", "llama-3.1-8b", method="draft", draft="llama-3.2-1b")


@pytest.mark.slow
def test_sweep_takes_a_mapping_with_arrays_and_spec_objects():
    hw = dataclasses.replace(roofline.load_hardware("h100-sxm"), name="h100-fast", mem_bw_bytes_per_s=6e12)
    df = roofline.sweep({"hardware": [hw, "h100-sxm"], "model": roofline.load_model("llama-3.1-8b"), "engine": "ideal",
                         "method": "eagle", "axes": {"batch": np.array([1, 16]), "k": (1, 3), "alpha": [0.8]}})
    assert len(df) == 2 * 2 * 2 and set(df.hardware.astype(str)) == {"h100-fast", "h100-sxm"}
    fast = df[(df.hardware == "h100-fast") & (df.batch == 1) & (df.k == 1)].step_time_s.iloc[0]
    slow = df[(df.hardware == "h100-sxm") & (df.batch == 1) & (df.k == 1)].step_time_s.iloc[0]
    assert fast < slow


def test_sweep_refuses_two_spec_objects_of_one_name_and_a_spec_named_like_a_listed_profile():
    h100 = roofline.load_hardware("h100-sxm")
    fast, slow = (dataclasses.replace(h100, name="fast", mem_bw_bytes_per_s=bw) for bw in (6e12, 2e12))
    base = {"model": "llama-3.1-8b", "axes": {"batch": [1, 8]}}
    with pytest.raises(RooflineError, match="^sweep: hardware: expected HardwareSpec objects of distinct names .*found \"two different ones named 'fast'\""):
        roofline.sweep({**base, "hardware": [fast, slow]})
    with pytest.raises(RooflineError, match="^sweep: hardware: expected each profile once .*found \"'h100-sxm' as a spec object and again\""):
        roofline.sweep({**base, "hardware": [dataclasses.replace(h100, mem_bw_bytes_per_s=6e12), "h100-sxm"]})
    with pytest.raises(RooflineError, match="hardware: expected each profile once, under a name of its own .*the profile named 'h100-sxm' twice, as 'h100-sxm' and 'H100'"):
        roofline.sweep({**base, "hardware": ["h100-sxm", "H100"]})
    with pytest.raises(RooflineError, match="hardware: expected distinct names"):
        roofline.sweep({**base, "hardware": ["h100-sxm", "h100-sxm"]})
    assert len(roofline.sweep({**base, "hardware": fast})) == 2  # one object, once: fine
    fp8 = dataclasses.replace(fast, compute_efficiency_by_dtype={"fp8": 0.5})  # differs in a field dataclass == skips
    with pytest.raises(RooflineError, match="two different ones named 'fast'"):
        roofline.sweep({**base, "hardware": fast, "draft_hardware": fp8, "method": "eagle"})


@pytest.mark.slow
def test_sweep_by_name_equals_predict_at_the_same_point():
    df = roofline.sweep("eagle-on-hopper")
    row = df[(df.hardware == "h200") & (df.batch == 32) & (df.context == 8192) & (df.k == 3) & (df.alpha == 0.8)].iloc[0]
    p = roofline.predict("h200", "llama-3.1-8b", 32, 8192, method="eagle", k=3, alpha=0.8)
    assert row.speedup == pytest.approx(p["spec"]["speedup"]) and row.step_time_s == pytest.approx(p["step_time_s"])


def test_spec_objects_changed_in_python_are_checked_like_profiles():
    h100 = roofline.load_hardware("h100-sxm")
    with pytest.raises(RooflineError, match=r"^predict: hardware spec 'h100-sxm': mem_bw_bytes_per_s: expected a positive finite number"):
        roofline.predict(dataclasses.replace(h100, mem_bw_bytes_per_s=-1), "llama-3.1-8b")
    with pytest.raises(RooflineError, match=r"^predict: hardware spec 'h100-sxm': mem_efficiency: expected a fraction in \[0.01, 1\]"):
        roofline.predict(dataclasses.replace(h100, mem_efficiency=5.0), "llama-3.1-8b")
    bad_model = dataclasses.replace(roofline.load_model("llama-3.1-8b"), name="odd", layers=0)
    with pytest.raises(RooflineError, match=r"^sweep: model spec 'odd': "):
        roofline.sweep({"hardware": "h100-sxm", "model": bad_model})


@pytest.mark.slow
def test_numpy_numbers_and_arrays_are_taken_as_python_ones():
    plain = roofline.predict("h100-sxm", "llama-3.1-70b", 4, tp=2, method="eagle", draft_vocab=32000)
    numpy = roofline.predict("h100-sxm", "llama-3.1-70b", np.int64(4), tp=np.int64(2), method="eagle", draft_vocab=np.int32(32000))
    assert numpy["spec"]["speedup"] == plain["spec"]["speedup"] and numpy["tp"] == 2 and type(numpy["tp"]) is int
    scenario = {"hardware": "h100-sxm", "model": "llama-3.1-70b", "method": "eagle", "tp": [2, 4], "shared_prefix": 0,
                "axes": {"batch": [4, 16], "alpha": [0.5, 0.75]}}
    as_numpy = {**scenario, "tp": np.array([2, 4]), "shared_prefix": np.int64(0),
                "axes": {"batch": [np.int64(4), np.int64(16)], "alpha": np.array([0.5, 0.75], dtype=np.float32)}}
    assert roofline.sweep(as_numpy).equals(roofline.sweep(scenario))  # 0.5 and 0.75 are exact in float32


@pytest.mark.slow
def test_a_range_axis_holds_the_values_written_not_their_float_sums():
    df = roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                         "axes": {"batch": [8], "alpha": {"start": 0.5, "stop": 0.9, "step": 0.1}}})
    assert sorted(set(df["alpha"])) == [0.5, 0.6, 0.7, 0.8, 0.9]  # 0.5 + 3 x 0.1 is 0.7999999999999999
    linspace = roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                               "axes": {"batch": [8], "alpha": {"start": 0.3, "stop": 0.95, "num": 14}}})
    assert (linspace["alpha"] == 0.4).any() and (linspace["alpha"] == 0.9).any()


def test_a_spec_object_of_another_kind_is_one_short_line():
    model = roofline.load_model("llama-3.1-8b")
    for call, message in (
        (lambda: roofline.predict(model, "llama-3.1-8b"), "predict: hardware: expected a name or a HardwareSpec, found a ModelSpec ('llama-3.1-8b')"),
        (lambda: roofline.predict("h100-sxm", "llama-3.1-8b", engine=1), "predict: engine: expected a name or a ServingEngine, found 1"),
        (lambda: roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-70b", "method": "draft", "draft": roofline.load_hardware("l4")}),
         "sweep: draft: expected a name or a ModelSpec, found a HardwareSpec ('l4')"),
        (lambda: roofline.sweep(None), "sweep: scenario: expected a built-in scenario name, a YAML path or a mapping, found None"),
        (lambda: roofline.predict("h100-sxm", "llama-3.1-8b", profiles=1), "predict: profiles: expected a folder or a list of folders, found 1"),
        # qa185: these said neither the call nor (for a scenario) which argument
        (lambda: roofline.predict("", "llama-3.1-8b"), "predict: hardware: expected a non-empty name, found ''"),
        (lambda: roofline.sweep("/nonexistent/s.yaml"), "sweep: scenario: /nonexistent/s.yaml: scenario file not found"),
        (lambda: roofline.sweep("default", profiles=5), "sweep: profiles: expected a folder or a list of folders, found 5"),
        (lambda: roofline.predict("h100-sxm", "llama-3.1-8b", kv_dtype=None),
         "predict: kv_dtype: expected one of fp32, bf16, fp16, fp8, int8, found None"),  # None, not the text 'None'
    ):
        with pytest.raises(RooflineError) as error:
            call()
        assert str(error.value) == message
    # qa411: None for no folders, as a notebook's default argument passes it
    assert roofline.predict("h100-sxm", "llama-3.1-8b", profiles=None)["step_time_s"] == roofline.predict("h100-sxm", "llama-3.1-8b")["step_time_s"]


def test_a_name_beside_a_changed_spec_object_of_that_name_is_refused_and_the_same_object_is_not():
    changed = dataclasses.replace(roofline.load_hardware("h100-sxm"), mem_bw_bytes_per_s=6e12)  # name kept: h100-sxm
    with pytest.raises(RooflineError, match=r"^sweep: hardware: expected one profile per name \('h100-sxm' here is a name"):
        roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle", "draft_hardware": changed})
    from roofline.errors import RooflineWarning

    same = roofline.load_hardware("h100-sxm")
    with pytest.warns(RooflineWarning, match="the eagle head on h100-sxm needs the verified hidden states"):
        df = roofline.sweep({"hardware": same, "model": "llama-3.1-8b", "method": "eagle", "draft_hardware": "h100-sxm",
                             "axes": {"batch": [8]}})  # a head on devices of its own waits for the target's hidden states
    assert set(df["draft_hardware"]) == {"h100-sxm"}


def test_a_sweep_without_speculation_has_no_break_even_batch():
    df = roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "axes": {"batch": [1, 8, 64]}})
    assert (df["break_even_batch"] == 0).all() and (df["best_k"] == 0).all()


@pytest.mark.slow
def test_dp_attention_above_the_batch_is_warned_about_and_the_cli_says_it_once(request):
    roofline_cli = request.getfixturevalue("roofline")  # the CLI runner (this module's `roofline` is the package)
    idle = roofline.predict("h200", "deepseek-v3", batch=1, tp=8, dp_attention=2)
    assert [w for w in idle["warnings"] if w.startswith("dp_attention 2 at batch 1: 1 of the 2 attention groups")]
    busy = roofline.predict("h200", "deepseek-v3", batch=2, tp=8, dp_attention=2)
    assert not any("dp_attention" in w for w in busy["warnings"])
    code, out, err = roofline_cli("predict", "--hardware", "h200", "--model", "deepseek-v3", "--tp", "8", "--dp-attention", "2")
    assert code == 0 and (out + err).count("1 of the 2 attention groups") == 1 and err.startswith("warning: dp_attention 2")
    assert "warning" not in out.lower()  # the table on stdout pipes clean; warnings on stderr, as with --json
    code, out, err = roofline_cli("predict", "--hardware", "h200", "--model", "deepseek-v3", "--tp", "8", "--dp-attention", "2",
                                  "--json")
    assert err.startswith("warning: dp_attention 2") and json.loads(out)["warnings"][0].startswith("dp_attention 2")


@pytest.mark.slow
def test_a_draft_model_with_another_vocabulary_is_warned_about():
    other = roofline.predict("h100-sxm", "llama-3.1-8b", method="draft", draft="qwen3-0.6b", alpha=0.7)
    assert any("must share the target's tokenizer" in w for w in other["warnings"])
    same = roofline.predict("h100-sxm", "llama-3.1-8b", method="draft", draft="llama-3.2-1b", alpha=0.7)
    assert not any("tokenizer" in w for w in same["warnings"])


@pytest.mark.slow
def test_a_gpu_engine_on_a_cpu_profile_is_warned_about_in_predict_and_once_in_a_sweep():
    import warnings

    from roofline.errors import RooflineWarning

    cpu = dataclasses.replace(roofline.load_hardware("h100-sxm"), name="my-cpu", kind="cpu")
    gpu_engine = roofline.predict(cpu, "llama-3.2-1b", engine="vllm")["warnings"]
    assert [w for w in gpu_engine if w.startswith("engine vllm holds a GPU serving engine's costs") and "my-cpu is a CPU" in w]
    assert not any("is a CPU" in w for w in roofline.predict(cpu, "llama-3.2-1b", engine="ideal")["warnings"])
    assert not any("is a CPU" in w for w in roofline.predict("h100-sxm", "llama-3.2-1b", engine="vllm")["warnings"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        roofline.sweep({"name": "cpu", "hardware": cpu, "model": "llama-3.2-1b", "engine": "vllm", "tp": [1, 2],
                        "axes": {"batch": [1, 2], "context": [512]}})
    notes = [w for w in caught if issubclass(w.category, RooflineWarning) and "is a CPU" in str(w.message)]
    assert len(notes) == 1  # once for the (engine, hardware) pair, not once per config


def test_a_dense_model_without_mtp_lists_neither_expert_nor_mtp_dtypes():
    dense = roofline.predict("h100-sxm", "llama-3.1-8b")
    assert dense["expert_dtype"] is None and set(dense["layout"]["weight_dtypes"]) == {"attention", "mlp", "embedding", "lm_head"}
    moe = roofline.predict("h200", "deepseek-v3", tp=8)
    assert moe["expert_dtype"] == "fp8" and {"experts", "shared_experts", "mtp"} <= set(moe["layout"]["weight_dtypes"])


@pytest.mark.slow
def test_k_without_a_method_is_refused_as_alpha_is_and_defaults_to_four_with_one():
    with pytest.raises(RooflineError, match="predict: k: expected only with a speculation method"):
        roofline.predict("h100-sxm", "llama-3.1-8b", k=4)
    assert "spec" not in roofline.predict("h100-sxm", "llama-3.1-8b", k=0)
    assert roofline.predict("h100-sxm", "llama-3.1-8b", method="eagle")["spec"]["k"] == 4


def test_sixteen_bit_weights_on_a_profile_without_sixteen_bit_units_are_warned_about():
    fp32_only = dataclasses.replace(roofline.load_hardware("h100-sxm"), name="my-cpu", kind="cpu", peak_flops_per_s={"fp32": 1.68e11})
    warned = [w for w in roofline.predict(fp32_only, "llama-3.2-1b", engine="ideal")["warnings"] if "has no bf16 peak" in w]
    assert warned == ["my-cpu has no bf16 peak: bf16 weights compute at its fp32 peak here (a profile measured in fp32: "
                      "weight dtype fp32 predicts what it measured)"]
    assert not any("has no" in w for w in roofline.predict(fp32_only, "llama-3.2-1b", engine="ideal", weight_dtype="fp32")["warnings"])
    #   (its ridge point, 0.05 FLOP/byte, is said as a likely slip since qa318: a CPU's FLOP/s beside H100's bandwidth)
    assert not any("has no" in w for w in roofline.predict("h100-sxm", "llama-3.2-1b")["warnings"])


@pytest.mark.slow
def test_a_drafter_that_does_not_fit_on_its_own_device_is_named_with_that_device_s_figures():
    p = roofline.predict("h200", "llama-3.1-70b", batch=400, context=2048, tp=4, method="draft", draft="llama-3.2-1b",
                         draft_hardware="l4", alpha=0.8, k=3)
    l4 = roofline.load_hardware("l4")
    (line,) = [w for w in p["warnings"] if "drafter does not fit" in w]  # (another names the drafter's device's engine values)
    # the drafter's device holds vllm's share of its memory (capacity.usable_bytes_for), less than the profile's 0.90
    usable = p["spec"]["drafter_usable_memory_bytes"]
    assert usable < l4.usable_mem_bytes
    assert p["spec"]["drafter_memory_bytes"] > usable and p["spec"]["memory_needed_bytes"] < p["usable_memory_bytes"]
    assert line.startswith(f"the drafter does not fit on l4: its weights and KV cache need {p['spec']['drafter_memory_bytes'] / 1e9:.1f} GB "
                           f"of {usable / 1e9:.1f} GB usable")


@pytest.mark.slow
def test_every_key_predict_returns_is_named_in_api_md():
    """A notebook user reads docs/API.md for what predict's dict holds: every key, and every key of `spec`."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "API.md").read_text()
    section = text[text.index("The keys of `predict`'s dict"):text.index("## A sweep")]
    named = set(re.findall(r"`([a-z_0-9]+)`", section))
    p = roofline.predict("h100", "llama-3.1-8b", method="draft", draft="llama-3.2-1b", alpha=0.7, prompt=1000,
                         draft_hardware="l4")
    assert set(p) - named == set() and set(p["spec"]) - named == set()


@pytest.mark.slow
def test_a_sweep_warns_of_idle_attention_groups_and_of_default_rates_on_another_model_as_predict_does():
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        roofline.sweep({"hardware": "h200", "model": "deepseek-v3", "dp_attention": 8, "ep": 8, "axes": {"batch": [1, 64]}})
        roofline.sweep({"hardware": "h100", "model": "gpt-oss-120b", "method": "eagle", "axes": {"batch": [1]}})
        roofline.sweep({"hardware": "h100", "model": "llama-3.1-8b", "method": "eagle", "axes": {"batch": [1]}})  # measured on it
    messages = [str(w.message) for w in seen]
    assert any(m.startswith("sweep: dp_attention 8: at batches below 8 (the sweep's smallest is 1)") for m in messages)
    assert [m for m in messages if m.startswith("sweep: no acceptance given")] == [
        "sweep: no acceptance given: eagle's published rates (0.72, 0.53, 0.5, measured on Llama-3.1-8B) stand in for gpt-oss-120b; "
        "give alpha, acceptance or an acceptance length measured on it"]
    p = roofline.predict("h100", "gpt-oss-120b", method="eagle")
    assert any(w.startswith("no acceptance given: eagle's published rates") for w in p["warnings"])
    assert not any(w.startswith("no acceptance given") for w in roofline.predict("h100", "gpt-oss-120b", method="eagle", alpha=0.7)["warnings"])


@pytest.mark.slow
def test_null_beside_a_models_native_dtype_is_swept_once_for_that_model_and_both_for_the_others():
    """A sweep of weight_dtype [null, fp8] over a bf16 and an fp8-native model: the fp8 model's two configs are one."""
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        df = roofline.sweep({"hardware": "h200", "model": ["llama-3.1-70b", "deepseek-v3"], "tp": 8,
                             "weight_dtype": [None, "fp8"], "axes": {"batch": [1]}})
    assert sorted(df[df["model"] == "llama-3.1-70b"]["weight_dtype"]) == ["bf16", "fp8"]
    assert list(df[df["model"] == "deepseek-v3"]["weight_dtype"]) == ["fp8"]
    assert [str(w.message) for w in seen if "swept once" in str(w.message)] == [
        "sweep: weight_dtype: null and fp8 are both deepseek-v3's fp8: its rows are swept once"]


@pytest.mark.slow
def test_predict_prices_a_drafters_prefill_on_another_device_with_that_devices_engine_values_as_the_report_does():
    """predict's draft_prefill_s took the target's engine values for a drafter on other hardware (sglang, a drafter on
    H100 for an A100 target: 29.7% over the report's draft_ttft_s for the same point)."""
    import roofline
    from roofline.report import _sweep

    for target_hw, draft_hw in (("a100-sxm-80gb", "h100-sxm"), ("h100-sxm", "mi300x")):
        p = roofline.predict(target_hw, "llama-3.1-70b", 8, 2048, tp=4, method="draft", draft="llama-3.2-1b",
                             draft_hardware=draft_hw, alpha=0.8, k=4, prompt=2048, engine="sglang")
        df, _, _ = _sweep({"name": "t", "hardware": target_hw, "model": "llama-3.1-70b", "tp": 4, "engine": "sglang",
                           "method": "draft", "draft": "llama-3.2-1b", "draft_hardware": draft_hw,
                           "axes": {"batch": [8], "context": [2048], "k": [4], "alpha": [0.8]}}, "t", ())
        assert p["draft_prefill_s"] == pytest.approx(float(df["draft_ttft_s"].iloc[0]), rel=1e-12)


@pytest.mark.slow
def test_weights_a_device_cannot_compute_in_are_said_to_run_weight_only_by_predict_and_by_a_sweep():
    """fp4 on an MI300X (no fp4 peak) or fp8 on an A100 was accepted without a word, though it is costed as weight-only
    dequantisation at the engine's weight_only_efficiency."""
    import roofline
    from roofline.errors import RooflineWarning

    p = roofline.predict("mi300x", "llama-3.1-70b", 8, 1024, weight_dtype="fp4")
    assert any(w.startswith("fp4 weights on mi300x: the device has no fp4 tensor / matrix cores") and "weight-only" in w
               for w in p["warnings"])
    a100 = roofline.predict("a100-sxm-80gb", "llama-3.1-8b", 8, 1024, weight_dtype="fp8")
    assert any(w.startswith("fp8 weights on a100-sxm-80gb") for w in a100["warnings"])
    for native in (roofline.predict("b200", "llama-3.1-70b", 8, 1024, weight_dtype="nvfp4"),
                   roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1024, weight_dtype="fp8"),
                   roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1024, weight_dtype="int4")):  # int4 is always weight-only
        assert not any("tensor cores" in w for w in native["warnings"])
    with pytest.warns(RooflineWarning, match=r"^sweep: fp8 weights on a100-sxm-80gb: the device has no fp8 tensor / matrix cores"):
        roofline.sweep({"hardware": ["h100-sxm", "a100-sxm-80gb"], "model": "llama-3.1-8b", "weight_dtype": "fp8",
                        "axes": {"batch": [1], "context": [1024]}})


@pytest.mark.slow
def test_a_tree_without_k_gets_the_same_default_depth_from_predict_and_from_a_sweep():
    """predict took min(4, nodes) where a scenario wrote k 4: a tree of 2 nodes predicted, and was refused as a sweep
    ('tree_nodes: expected at least the depth k = 4') though no k was given."""
    import roofline

    p = roofline.predict("h100-sxm", "llama-3.1-8b", batch=8, method="eagle", tree_nodes=2, tree_tau=1.8)
    df = roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle", "tree": {"nodes": 2, "tau": 1.8},
                         "axes": {"batch": [8]}})
    assert p["spec"]["k"] == 2 and list(df["k"].unique()) == [2]
    assert df["speedup"].iloc[0] == pytest.approx(p["spec"]["speedup"], rel=1e-9)
    assert list(roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                                "axes": {"batch": [8], "alpha": [0.8]}})["k"].unique()) == [4]


@pytest.mark.slow
def test_a_scenario_shadowing_a_built_in_is_said_and_mxfp4_beside_fp4_is_named_as_one_and_prices_are_plain_floats(tmp_path):
    """A user eagle-on-hopper.yaml was swept in the built-in's place without a word; ['nvfp4', 'mxfp4', 'fp4'] was
    refused as 'expected distinct values'; a numpy price came back as numpy (json.dumps failed)."""
    import dataclasses
    import json

    import roofline
    from roofline.errors import RooflineError, RooflineWarning
    from roofline.profiles import builtin_dir

    text = (builtin_dir("scenario") / "eagle-on-hopper.yaml").read_text()
    (tmp_path / "eagle-on-hopper.yaml").write_text(text.replace("hardware: [h100-sxm, h200]", "hardware: [h100-sxm]"))
    with pytest.warns(RooflineWarning, match=r"scenario eagle-on-hopper is .*eagle-on-hopper.yaml, which shadows the built-in"):
        df = roofline.sweep("eagle-on-hopper", profiles=tmp_path)
    assert set(df["hardware"]) == {"h100-sxm"}
    with pytest.raises(RooflineError, match=r"expected distinct values \(mxfp4 and fp4 are one: fp4\)"):
        roofline.sweep({"hardware": "b200", "model": "llama-3.1-8b", "weight_dtype": ["nvfp4", "mxfp4", "fp4"],
                        "axes": {"batch": [8]}})
    h = dataclasses.replace(roofline.load_hardware("h100"), name="x", price_usd_per_hour=np.float32(3))
    p = roofline.predict(h, "llama-3.1-8b", batch=4, method="eagle", alpha=0.8, draft_hardware=h)
    assert type(p["price_usd_per_hour_per_device"]) is float and type(p["spec"]["draft_price_usd_per_hour"]) is float
    json.dumps({k: v for k, v in p.items() if k != "operators"})


@pytest.mark.slow
def test_a_changed_spec_object_under_a_profiles_name_is_said_in_predict_and_sweep():
    """dataclasses.replace(h100, mem_bw_bytes_per_s=...) kept the name h100-sxm: every output labelled the changed
    device "h100-sxm", unwarned."""
    import dataclasses
    import warnings

    h100 = roofline.load_hardware("h100")
    faster = dataclasses.replace(h100, mem_bw_bytes_per_s=h100.mem_bw_bytes_per_s * 1.5)
    assert roofline.predict(h100, "llama-3.1-8b")["warnings"] == []
    assert roofline.predict(dataclasses.replace(faster, name="my-h100"), "llama-3.1-8b")["warnings"] == []
    said = roofline.predict(faster, "llama-3.1-8b")["warnings"]
    assert len(said) == 1 and "named 'h100-sxm' with a mem_bw_bytes_per_s other than the h100-sxm profile's" in said[0]
    for device in ("h100-sxm", "mi300x"):  # an engine made for the device it runs on by its profile is that profile's
        said = roofline.predict(device, "llama-3.1-8b", engine=roofline.load_engine("vllm").for_hardware(device))["warnings"]
        assert [w for w in said if not w.startswith("a known miss of engine vllm-v0, priced with vllm's costs, so the same prediction as here")] == []
    amd = roofline.load_engine("sglang").for_hardware("mi300x")  # AMD's values on an H100: not the profile's there
    assert any("named 'sglang' with a kernel_latency_s" in w for w in roofline.predict("h100", "llama-3.1-8b", engine=amd)["warnings"])
    engine = dataclasses.replace(roofline.load_engine("vllm"), kernel_latency_s=1e-6)
    assert any("named 'vllm' with a kernel_latency_s" in w for w in roofline.predict("h100", "llama-3.1-8b", engine=engine)["warnings"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        roofline.sweep({"name": "x", "hardware": [faster], "model": "llama-3.1-8b", "axes": {"batch": [1, 2]}})
    assert sum("named 'h100-sxm' with a mem_bw_bytes_per_s" in str(w.message) for w in caught) == 1
    for devices, said in ((["h100-sxm", "mi300x"], 1), (["mi300x"], 0)):  # sweep compared AMD's values with the profile's own
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            roofline.sweep({"hardware": devices, "model": "llama-3.1-8b", "engine": amd, "axes": {"batch": [8]}})
        assert sum("named 'sglang' with a kernel_latency_s" in str(w.message) for w in caught) == said
    assert caught == [] or all(w.filename == __file__ for w in caught)
    hopper = roofline.load_engine("vllm").for_hardware(roofline.load_hardware("h100"))  # run on MI300X, the grid applies mi*
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        roofline.sweep({"hardware": ["h100", "mi300x"], "model": "llama-3.1-8b", "engine": hopper, "axes": {"batch": [8]}})
    v0_miss = "a known miss of engine vllm-v0, priced with vllm's costs, so the same prediction as here"  # Llama 8B on MI300X: measured, said (qa365)
    assert all(str(w.message).startswith(f"sweep: {v0_miss}") for w in caught)
    assert [w for w in roofline.predict("mi300x", "llama-3.1-8b", engine=hopper)["warnings"] if not w.startswith(v0_miss)] == []
    made = roofline.load_engine("vllm").for_hardware(roofline.load_hardware("mi300x"))  # a hand change an override replaces
    said = roofline.predict("mi300x", "llama-3.1-8b", engine=dataclasses.replace(made, kernel_latency_s=50e-6))["warnings"]
    assert any("kernel_latency_s set on a ServingEngine made by for_hardware is replaced on mi300x" in w for w in said)
    said = roofline.predict("mi300x", "llama-3.1-8b", engine=dataclasses.replace(made, host_per_step_s=1e-3))["warnings"]
    assert any("host_per_step_s other than the vllm profile's" in w and "dataclasses.replace(spec, name=...)" in w for w in said)


def test_a_warning_is_attributed_to_the_callers_line_not_the_librarys():
    """Every sweep warning pointed at roofline/grid.py's `warn(note)`, not at the notebook cell that called sweep."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        roofline.predict("mi300x", "llama-3.1-8b", engine="trtllm")  # its warnings are in the result, not Python's
        roofline.sweep({"hardware": "mi300x", "model": "llama-3.1-8b", "engine": "trtllm", "axes": {"batch": [8]}})
    assert caught and all(w.filename == __file__ for w in caught)


@pytest.mark.slow
def test_a_tree_tau_above_the_default_depth_says_k_was_not_given():
    """predict(tree_nodes=8, tree_tau=6) was refused at "k + 1 = 5" though the caller never gave k."""
    with pytest.raises(RooflineError, match=r"k not given: the default depth, give k\), found 6.0"):
        roofline.predict("h100", "llama-3.1-8b", method="eagle", tree_nodes=8, tree_tau=6.0)
    with pytest.raises(RooflineError) as err:
        roofline.predict("h100", "llama-3.1-8b", method="eagle", tree_nodes=8, tree_tau=6.0, k=3)
    assert "k not given" not in str(err.value)
    assert roofline.predict("h100", "llama-3.1-8b", method="eagle", tree_nodes=8, tree_tau=6.0, k=5)["spec"]["k"] == 5


@pytest.mark.slow
def test_a_measured_acceptance_length_is_taken_as_the_alpha_that_gives_it_and_a_length_given_as_alpha_is_named():
    """vLLM prints 'Mean acceptance length: 2.635' at k = 3; there was no way in (alpha 2.635 was refused without a hint,
    and its unconditional per-position rates read as conditional gave another best k)."""
    point = roofline.predict("h100", "llama-3.1-8b", 8, method="eagle", k=3, acceptance_length=2.635)
    assert point["spec"]["tau"] == pytest.approx(2.635, rel=1e-9) and point["spec"]["acceptance_length_given"] == 2.635
    assert point["spec"]["alpha"] == pytest.approx(0.7258, abs=1e-4)
    said = re.match(r"best k (\d+) takes the acceptance length measured at k = 3", point["warnings"][0])
    assert said and int(said.group(1)) != 3  # said first; the rest are the break-even's and host work's (qa156)
    assert not [w for w in point["warnings"][1:] if "acceptance" in w]
    assert any("taken as measured at k = 4, the default" in w
               for w in roofline.predict("h100", "llama-3.1-8b", method="eagle", acceptance_length=2.635)["warnings"])
    for kw, says in ((dict(alpha=2.635), "found 2.635 (a number above 1 reads like an acceptance length"),
                     (dict(acceptance_length=5.0), "acceptance_length: expected tokens an iteration in [1, k + 1 = 4] at k = 3"),
                     (dict(acceptance_length=2.0, alpha=0.5), "acceptance_length: expected it alone")):
        with pytest.raises(RooflineError, match=re.escape(says)):
            roofline.predict("h100", "llama-3.1-8b", 8, method="eagle", k=3, **kw)


def test_a_sweep_mapping_takes_pathlib_paths_as_predict_does():
    from pathlib import Path

    from roofline.profiles import builtin_dir

    df = roofline.sweep({"hardware": builtin_dir("hardware") / "h200.yaml", "model": "llama-3.1-8b",
                         "engine": Path(builtin_dir("engine") / "sglang.yaml"), "axes": {"batch": [1, 2]}})
    assert list(df["hardware"].astype(str)) == ["h200", "h200"] and set(df["engine"].astype(str)) == {"sglang"}


def test_a_profile_of_another_kind_given_by_path_is_named_as_such_and_a_long_unknown_name_is_cut():
    from roofline.profiles import builtin_dir

    with pytest.raises(RooflineError, match=r"llama-3.1-8b.yaml: expected a hardware profile, found a model profile"):
        roofline.predict(str(builtin_dir("model") / "llama-3.1-8b.yaml"), "llama-3.1-8b")  # it said 'published_params: ...'
    with pytest.raises(RooflineError) as caught:
        roofline.predict("a" * 5000, "llama-3.1-8b")
    assert len(str(caught.value)) < 300 and "(5,000 characters)" in str(caught.value)


def test_predict_says_how_many_scale_up_domains_a_deployment_spans():
    """tp 8 on a device of 4 a domain crossed the scale-out link (all-reduce 2.24 -> 4.15 ms) without a word (qa91)."""
    import dataclasses

    import roofline
    from roofline.hardware import load_hardware
    from roofline.tables import predict_table

    nvl = dataclasses.replace(load_hardware("h200"), name="h200-nvl", scale_up_domain=4)
    four, eight = (roofline.predict(nvl, "llama-3.1-70b", 64, 32768, tp=tp) for tp in (4, 8))
    assert (four["scale_up_domains"], eight["scale_up_domains"]) == (1, 2)
    assert "(tp 8; 2 scale-up domains, linked by the scale-out link)" in predict_table(eight).splitlines()[0]
    assert "scale-up domains" not in predict_table(four).splitlines()[0]


@pytest.mark.slow
def test_predict_with_a_prompt_gives_every_ttft_key_and_an_empty_profiles_folder_is_refused():
    """ngram and plain decoding left draft_prefill_s and ttft_with_speculation_s out (a KeyError across methods), and
    profiles='' searched the working folder in silence (qa92)."""
    import roofline
    from roofline.errors import RooflineError

    plain, ngram, eagle = (roofline.predict("h100", "llama-3.1-8b", prompt=2048, method=m) for m in ("none", "ngram", "eagle"))
    assert (plain["draft_prefill_s"], plain["ttft_with_speculation_s"]) == (None, None)
    assert ngram["draft_prefill_s"] == 0.0 and ngram["ttft_with_speculation_s"] == ngram["ttft_s"]
    assert eagle["draft_prefill_s"] > 0 and eagle["ttft_with_speculation_s"] == eagle["ttft_s"] + eagle["draft_prefill_s"]
    with pytest.raises(RooflineError, match="profiles: expected a folder, found an empty string"):
        roofline.predict("h100", "llama-3.1-8b", profiles="")


def test_a_rate_given_as_none_is_named_none_not_nan():
    """acceptance=[0.9, None] was refused as 'found nan' (qa92)."""
    import roofline
    from roofline.errors import RooflineError

    with pytest.raises(RooflineError, match=r"^predict: acceptance: expected rates in \[0, 1\], found None$"):
        roofline.predict("h100", "llama-3.1-8b", method="eagle", acceptance=[0.9, None])


def test_predict_gives_what_kernel_latency_adds_to_the_operator_time():
    """A batch-1 DeepSeek-V3 step of 15.8 ms whose 12.9 ms are kernel floors showed only 'operators 14.5 ms' (qa97)."""
    import dataclasses
    import warnings

    import roofline
    from roofline.serving import load_engine

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vllm = load_engine("vllm")
        base = roofline.predict("h100-sxm", "llama-3.1-8b", 8, engine=vllm)
        doubled = roofline.predict("h100-sxm", "llama-3.1-8b", 8, engine=dataclasses.replace(
            vllm, name="x", kernel_latency_s=2 * vllm.kernel_latency_s))
        ideal = roofline.predict("h100-sxm", "llama-3.1-8b", 8, engine="ideal")
    assert ideal["kernel_latency_time_s"] == 0.0 and base["kernel_latency_time_s"] > 0
    assert doubled["kernel_latency_time_s"] == pytest.approx(2 * base["kernel_latency_time_s"], rel=1e-9)
    assert doubled["operator_time_s"] - base["operator_time_s"] == pytest.approx(base["kernel_latency_time_s"], rel=1e-9)
    # each operator's share of them (qa286: a row mostly kernel latency read 'memory' with nothing beside it)
    ops = base["operators"]
    assert sum(op["kernel_latency_s"] for op in ops.values()) == pytest.approx(base["kernel_latency_time_s"], rel=1e-9)
    for name, op in ops.items():
        assert doubled["operators"][name]["time_s"] - op["time_s"] == pytest.approx(op["kernel_latency_s"], rel=1e-9, abs=1e-15)
    assert all(op["kernel_latency_s"] == 0.0 for op in ideal["operators"].values())
    from roofline.tables import predict_table

    header = next(line for line in predict_table(base).splitlines() if line.strip().startswith("operator "))
    assert "latencies" in header and "latencies" not in next(
        line for line in predict_table(ideal).splitlines() if line.strip().startswith("operator "))


@pytest.mark.slow
def test_a_speculative_point_that_does_not_fit_says_so_first():
    """A drafter that does not fit on its L4 was said after the batch and fit notes, where the README says a point
    that does not fit says so first (qa101)."""
    import warnings

    import roofline

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        drafter = roofline.predict("h100", "llama-3.1-70b", 400, 2048, tp=8, method="draft", draft="llama-3.2-1b",
                                   draft_hardware="l4", alpha=0.8)
        target = roofline.predict("h100", "llama-3.1-8b", 415, 1024, method="eagle", k=4, alpha=0.8)  # plain: at most 425
    assert drafter["warnings"][0].startswith("the drafter does not fit on l4") and len(drafter["warnings"]) > 1
    assert target["warnings"][0].startswith("with its drafter, this point does not fit in memory") and len(target["warnings"]) > 1
    # qa315: a drafter on its own device that fits there: the target's devices hold only the KV of the k + 1 tokens
    elsewhere = roofline.predict("h100-sxm", "llama-3.1-70b", 445, tp=4, method="draft", draft="llama-3.2-1b",
                                 draft_hardware="l4", acceptance=[0.9, 0.8, 0.7], k=3)
    assert elsewhere["spec"]["drafting_fits"] and not elsewhere["spec"]["fits_in_memory"]
    assert elsewhere["warnings"][0].startswith("with the KV of the k + 1 tokens a pass verifies, this point does not fit "
                                               "in memory"), elsewhere["warnings"][0]
    from roofline.tables import predict_table

    caps = f": the target's devices hold 444 sequences, l4 holds the drafter's KV cache for {elsewhere['spec']['drafter_device_max_batch']:,})"
    assert elsewhere["spec"]["drafter_device_max_batch"] > 444 == elsewhere["spec"]["target_max_batch"]
    assert "fits in memory     NO  (max batch 444 with the KV of the k + 1 tokens a pass verifies" + caps in predict_table(elsewhere)
    # qa316: where the drafter's own device runs out, the table says so (the target holds 45 of 75 GB)
    short = roofline.predict("h100-sxm", "llama-2-70b", 64, 2048, tp=4, engine="trtllm", method="draft", draft="llama-2-7b",
                             draft_hardware="a100-sxm-80gb", k=3, alpha=0.7)
    assert not short["spec"]["drafting_fits"] and short["warnings"][0].startswith("the drafter does not fit on a100-sxm-80gb")
    assert short["spec"]["target_max_batch"] > 56 == short["spec"]["drafter_device_max_batch"]
    assert (f"fits in memory     NO  (max batch 56 with the drafter on a100-sxm-80gb: the target's devices hold "
            f"{short['spec']['target_max_batch']:,} sequences, a100-sxm-80gb holds the drafter's KV cache for 56)") in predict_table(short)


@pytest.mark.slow
def test_a_drafter_on_its_own_device_names_which_side_sets_the_max_batch():
    """qa343: 'max batch 62 with the drafter on l4' where the H100 target held 62 and the L4 71; 'max batch 71 with
    the KV of the k + 1 tokens' where the L4 set it; the L4's own cap said nowhere."""
    from roofline.tables import predict_table

    kw = dict(method="draft", draft="llama-3.2-1b", draft_hardware="l4", alpha=0.8, k=3, engine="ideal")
    target_sets = roofline.predict("h100-sxm", "llama-3.1-70b", 70, 8192, tp=4, **kw)
    spec = target_sets["spec"]
    assert spec["target_max_batch"] == spec["max_batch"] < 70 < spec["drafter_device_max_batch"]
    assert not any(w.startswith("the drafter does not fit") for w in target_sets["warnings"])
    assert (f"max batch {spec['max_batch']} with the KV of the k + 1 tokens a pass verifies: the target's devices hold "
            f"{spec['max_batch']} sequences, l4 holds the drafter's KV cache for {spec['drafter_device_max_batch']})") in predict_table(target_sets)
    drafter_sets = roofline.predict("h200", "llama-3.1-70b", 32, 8192, tp=8, **kw)
    spec = drafter_sets["spec"]
    assert spec["drafter_device_max_batch"] == spec["max_batch"] < spec["target_max_batch"]
    assert f"(max batch {spec['max_batch']} with the drafter on l4: the target's devices hold {spec['target_max_batch']}" in predict_table(drafter_sets)
    both = roofline.predict("h100-sxm", "llama-3.1-70b", 75, 8192, tp=4, **kw)
    (line,) = [w for w in both["warnings"] if w.startswith("the drafter does not fit on l4")]
    assert line.endswith(f"(it holds the drafter for {both['spec']['drafter_device_max_batch']} sequences; the target's "
                         f"devices {both['spec']['target_max_batch']})")
    plain = roofline.predict("h100-sxm", "llama-3.1-70b", 8, tp=4, method="eagle", alpha=0.8, k=3)["spec"]
    assert plain["drafter_device_max_batch"] is None and plain["target_max_batch"] == plain["max_batch"]


def test_a_whole_float_degree_is_taken_as_the_integer_it_is_as_batch_is():
    """predict took batch=8.0 and refused tp=2.0 (qa101); a scenario's tp: 2.0 likewise."""
    assert roofline.predict("h100-sxm", "llama-3.1-8b", 8.0, tp=2.0)["step_time_s"] == roofline.predict(
        "h100-sxm", "llama-3.1-8b", 8, tp=2)["step_time_s"]
    with pytest.raises(RooflineError, match=r"predict: tp: expected an integer in 1\.\.4096, found 2\.5"):
        roofline.predict("h100-sxm", "llama-3.1-8b", 8, tp=2.5)
    with pytest.raises(RooflineError, match="found True"):
        roofline.predict("h100-sxm", "llama-3.1-8b", 8, tp=True)
    df = roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "tp": 2.0, "axes": {"batch": [8]}})
    assert list(df["tp"]) == [2]


@pytest.mark.slow
def test_a_break_even_batch_says_what_it_rests_on():
    """A break-even batch of 216 came with no caveat at batch 1, though it lies where gains run optimistic, and though it
    turns on vllm's spec_per_iteration_per_sequence, which its fit left at the top of its range (qa105)."""
    from roofline.serving import load_engine
    from roofline.units import format_seconds

    # a 1B draft on a 70B target on 4 H100 (issue 9's check (b)): its break-even lies inside memory under vllm
    point_at = dict(hardware="h100-sxm", model="llama-3.1-70b", batch=1, context=1024, tp=4, method="draft",
                    draft="llama-3.2-1b", k=4, alpha=0.6)
    point = roofline.predict(**point_at)
    be = point["spec"]["break_even_batch"]
    assert be is not None and be >= 32 and not point["spec"]["break_even_at_memory_limit"]
    said = [w for w in point["warnings"] if w.startswith(f"the break-even batch {be:,}")]
    assert any("upper estimate" in w for w in said)  # alone, or with the host work there in one note (qa364)
    vllm = load_engine("vllm")
    value = vllm.spec_per_iteration_per_sequence_s
    side = "upper" if value > 0 else "lower"
    bound = f"spec_per_iteration_per_sequence ({format_seconds(value)}, the {side} bound of its fit range)"
    assert vllm.at_fit_bound("spec_per_iteration_per_sequence") == any(bound in w for w in said)
    ideal = roofline.predict(**{**point_at, "engine": "ideal"})
    assert not any(w.startswith("the break-even batch") for w in ideal["warnings"])
    # a value set by hand (or an override's) sits on no bound: not called one (qa106: 50 us was 'the upper bound')
    hand = dataclasses.replace(vllm, spec_per_iteration_per_sequence_s=50e-6)
    assert not any("bound of its fit range" in w for w in roofline.predict(**{**point_at, "engine": hand})["warnings"])
    v0 = roofline.predict(**{**point_at, "engine": "vllm-v0"})["warnings"]
    assert vllm.at_fit_bound("spec_per_iteration_per_sequence") == any(  # said only while the fit left it on a bound
        f"(vllm's costs: {format_seconds(value)}, the {side} bound" in w and "--from vllm --set" in w for w in v0)
    # qa161: with session 34's fit no break-even cost sits on a bound, so the branch is kept tested on an engine whose
    # fit left spec_per_iteration_per_sequence at its upper bound, as sessions 27-32's did
    fitted = {**vllm.fitted, "bounds_hit": ["spec_per_iteration_per_sequence"]}
    at_bound = dataclasses.replace(vllm, spec_per_iteration_per_sequence_s=100e-6, fitted=fitted)
    said_at_bound = roofline.predict(**{**point_at, "engine": at_bound})["warnings"]
    assert any("rests on vllm's spec_per_iteration_per_sequence (100 us, the upper bound of its fit range)" in w
               and "--set 'spec_per_iteration_per_sequence=...'" in w for w in said_at_bound), said_at_bound
    capped = roofline.predict("h100-sxm", "llama-3.1-8b", 1, method="eagle", alpha=0.7)  # memory ends its search
    cap = capped["spec"]["break_even_batch"]
    assert capped["spec"]["break_even_at_memory_limit"]  # said as such (qa156: a memory-limit break-even had no note)
    assert any(w.startswith(f"speculation paying up to batch {cap:,}, the largest that fits, lies where") for w in capped["warnings"])


def test_sweep_takes_pandas_extension_arrays_such_as_its_own_columns_unique():
    """qa110: a sweep's category column's unique(), pd.array and pd.Categorical were refused as 'expected a name or a
    non-empty list of names', though a Series or an Index of the same values was taken."""
    first = roofline.sweep({"hardware": ["h100-sxm", "h200"], "model": "llama-3.1-8b", "axes": {"batch": [1]}})
    again = roofline.sweep({"hardware": first["hardware"].unique(), "model": "llama-3.1-8b",
                            "method": pd.Categorical(["none", "eagle"]), "axes": {"batch": pd.array([1, 8]), "alpha": [0.7]}})
    assert sorted(again["hardware"].unique()) == ["h100-sxm", "h200"] and sorted(again["batch"].unique()) == [1, 8]
    assert set(again["method"]) == {"none", "eagle"}
    with pytest.raises(RooflineError, match=r"predict: batch: expected one integer \(use roofline.sweep for arrays\)"):
        roofline.predict("h100", "llama-3.1-8b", batch=pd.array([1, 8]))


def test_an_unknown_profile_name_says_which_option_gave_it_in_predict_as_in_sweep():
    """qa110: predict said 'unknown hardware h1000' for a drafter's device as for the target's, and sweep raised a plain
    RooflineError where predict raised UnknownName."""
    from roofline.errors import UnknownName

    with pytest.raises(UnknownName, match=r"^predict: draft_hardware: unknown hardware 'h1000'"):
        roofline.predict("h100", "llama-3.1-8b", method="eagle", alpha=0.7, draft_hardware="h1000")
    with pytest.raises(UnknownName, match=r"^predict: draft: unknown model 'llama-1b'"):
        roofline.predict("h100", "llama-3.1-70b", method="draft", draft="llama-1b", alpha=0.7)
    with pytest.raises(UnknownName, match=r"^predict: engine: unknown engine 'vlm'"):
        roofline.predict("h100", "llama-3.1-8b", engine="vlm")
    with pytest.raises(UnknownName, match=r"^sweep: draft_hardware: unknown hardware 'h1000'"):
        roofline.sweep({"hardware": "h100", "model": "llama-3.1-8b", "method": "eagle", "draft_hardware": "h1000"})


def test_a_spec_that_differs_only_in_its_words_is_the_same_profile():
    """qa110: a copy with notes of its own was refused beside its name ('a changed spec object of that name'), a source
    of its own was warned of as a change, and a real change was named by its display_name, the first field differing."""
    import warnings

    h100 = roofline.load_hardware("h100")
    worded = dataclasses.replace(h100, notes="my run", source="x", display_name="my H100")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = roofline.sweep({"hardware": worded, "draft_hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                             "axes": {"alpha": [0.7], "batch": [1]}})
    assert len(df) == 1
    assert not [w for w in roofline.predict(worded, "llama-3.1-8b")["warnings"] if "labelled" in w]
    changed = dataclasses.replace(h100, mem_bw_bytes_per_s=1e12, display_name="Z")
    said = [w for w in roofline.predict(changed, "llama-3.1-8b")["warnings"] if "labelled" in w]
    assert len(said) == 1 and "with a mem_bw_bytes_per_s other than the h100-sxm profile's" in said[0]
    with pytest.raises(RooflineError, match="one profile per name"):
        roofline.sweep({"hardware": changed, "draft_hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                        "axes": {"alpha": [0.7], "batch": [1]}})


def test_predict_and_scenario_json_name_the_file_of_every_profile(tmp_path):
    """qa108: no output said which file a profile came from (a user copy named like a built-in read as the built-in)."""
    from roofline.grid import load_configs, scenario_meta
    from roofline.scenario import scenario_from_dict

    root = Path(__file__).resolve().parent.parent
    p = roofline.predict("h100", "llama-3.1-70b", tp=4, method="draft", draft="llama-3.2-1b", alpha=0.7, draft_hardware="l4")
    assert p["profile_files"] == {"hardware": str(root / "hardware_profiles" / "h100-sxm.yaml"),
                                  "model": str(root / "model_profiles" / "llama-3.1-70b.yaml"),
                                  "engine": str(root / "engine_profiles" / "vllm.yaml"),
                                  "draft_hardware": str(root / "hardware_profiles" / "l4.yaml"),
                                  "draft": str(root / "model_profiles" / "llama-3.2-1b.yaml")}
    built = dataclasses.replace(roofline.load_hardware("h100"), path="")
    assert roofline.predict(built, "llama-3.1-8b")["profile_files"]["hardware"] is None
    # qa185: a spec changed with dataclasses.replace keeps the path of the one it copies, which does not describe it
    faster = dataclasses.replace(roofline.load_hardware("h100"), name="h100-hbm4", mem_bw_bytes_per_s=6e12)
    engine = dataclasses.replace(roofline.load_engine("sglang"), kernel_latency_s=1e-6)
    files = roofline.predict(faster, "llama-3.1-8b", engine=engine)["profile_files"]
    assert files["hardware"] is None and files["engine"] is None and files["model"].endswith("llama-3.1-8b.yaml")
    same = dataclasses.replace(roofline.load_hardware("h100"), notes="mine")  # words only: still that file's device
    files = roofline.predict(same, "llama-3.1-8b", engine=roofline.load_engine("sglang").for_hardware(same))["profile_files"]
    assert files["hardware"].endswith("h100-sxm.yaml") and files["engine"].endswith("sglang.yaml")
    (tmp_path / "base2.yaml").write_text("type: engine\nname: base2\nsource: s\nhost_per_step: 1 ms\n")
    (tmp_path / "kid.yaml").write_text("type: engine\nname: kid\nsource: s\ncosts_from: base2\n")  # qa189: its costs_from is
    kid = roofline.load_engine("kid", (tmp_path,))  # found in the caller's folder only, which the re-read left out
    assert roofline.predict("h100", "llama-3.1-8b", engine=kid, profiles=(tmp_path,))["profile_files"]["engine"] == str(tmp_path / "kid.yaml")
    (tmp_path / "broken.yaml").write_text("type: hardware\nname: broken\nmemory: [\n")
    from roofline.errors import UnreadableProfile

    with pytest.raises(UnreadableProfile) as unread:  # qa191: said as the call's, its class and path kept
        roofline.predict("broken", "llama-3.1-8b", profiles=(tmp_path,))
    assert str(unread.value).startswith("predict: hardware: ") and unread.value.path == tmp_path / "broken.yaml"
    with pytest.raises(RooflineError, match=r"hardware spec 'h100-sxm': path: expected a string, found 5"):  # not a TypeError
        roofline.predict(dataclasses.replace(roofline.load_hardware("h100"), path=5), "llama-3.1-8b")
    with pytest.raises(RooflineError, match=r"engine spec 'vllm': costs_from: expected a string, found 5"):
        roofline.predict("h100", "llama-3.1-8b", engine=dataclasses.replace(roofline.load_engine("vllm"), costs_from=5))
    sc = scenario_from_dict({"name": "t", "hardware": ["h100-sxm", "h200"], "model": "llama-3.1-8b", "engine": ["vllm", "ideal"]}, "t")
    meta = scenario_meta(sc, load_configs(sc), 1)
    assert meta["profile_files"]["hardware"] == {n: str(root / "hardware_profiles" / f"{n}.yaml") for n in ("h100-sxm", "h200")}
    assert meta["profile_files"]["engine"]["ideal"] == str(root / "engine_profiles" / "ideal.yaml")
    # qa411: a sweep of spec objects named the file a changed one was copied from, where predict says None
    swept = roofline.sweep({"name": "t", "hardware": [faster, same], "model": "llama-3.1-8b", "engine": engine,
                            "axes": {"batch": [1], "context": [1024]}}).attrs["scenario"]["profile_files"]
    assert swept["hardware"] == {"h100-hbm4": None, "h100-sxm": str(root / "hardware_profiles" / "h100-sxm.yaml")}
    assert swept["engine"] == {"sglang": None}


def test_extension_arrays_with_a_missing_value_or_float32_values_read_as_a_series_does():
    """qa111: pd.NA among names raised 'boolean value of NA is ambiguous'; a Float32 alpha of 0.7 swept 0.699999988."""
    import warnings

    with pytest.raises(RooflineError, match=r"^sweep: hardware: expected a name or a non-empty list of names"):
        roofline.sweep({"hardware": pd.array(["h100-sxm", None], dtype="string"), "model": "llama-3.1-8b"})
    for key in ("hardware", "model"):  # pd.NA in a plain list (qa411: its == raised TypeError)
        data = {"hardware": "h100-sxm", "model": "llama-3.1-8b"}
        with pytest.raises(RooflineError, match=rf"^sweep: {key}: expected a name or a non-empty list of names"):
            roofline.sweep({**data, key: [data[key], pd.NA]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = roofline.sweep({"hardware": "h100", "model": "llama-3.1-8b", "method": "eagle",
                             "axes": {"alpha": pd.array([0.7], dtype="Float32")}})
    assert list(df["alpha"].unique()) == [0.7]


@pytest.mark.slow
def test_a_sweep_whose_drafter_never_fits_its_own_device_names_that_device(recwarn):
    """qa118: a drafter too big for its 2 GB device was said as 'the drafter and its k + 1 tokens per sequence take the
    memory', though the target had room and the drafter's device ran out; predict named the device."""
    small = dataclasses.replace(roofline.load_hardware("l4"), name="small4", mem_bytes=2e9)
    roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-70b", "tp": 4, "method": "draft", "draft": "llama-3.2-1b",
                    "draft_hardware": small, "axes": {"batch": [1, 8], "context": [2048], "k": [0, 2], "alpha": [0.8]}})
    (line,) = [str(w.message) for w in recwarn if "does not fit" in str(w.message)]
    assert "the drafter does not fit on small4 at any point of the sweep: its weights and KV cache need at least" in line
    from roofline.capacity import usable_bytes_for
    from roofline.layout import deployment
    from roofline.speculation import drafter_deployment

    draft = roofline.load_model("llama-3.2-1b")
    engine = roofline.load_engine("vllm").for_hardware(small)
    usable = usable_bytes_for(small, draft, drafter_deployment("draft", draft, deployment(roofline.load_model("llama-3.1-70b"), tp=4),
                                                               True), engine)
    assert f"of {usable / 1e9:.1f} GB usable; plain decoding runs" in line and "k + 1" not in line


def test_a_layout_past_the_scale_up_domain_without_a_scale_out_link_says_how_it_is_priced():
    """qa119: tp 8 on a two-socket CPU (scale_up_domain 2, no scale-out link) was priced on its socket link in silence."""
    epyc = roofline.load_hardware("epyc-9654")
    assert epyc.scale_up_domain == 2 and epyc.scale_out_bw_bytes_per_s is None
    (line,) = [w for w in roofline.predict(epyc, "llama-3.1-8b", 16, tp=8, engine="ideal")["warnings"] if "scale-up domain" in w]
    assert line.startswith("epyc-9654: 8 devices exceed its scale-up domain of 2, and its profile gives no scale-out link")
    assert not any("scale-up domain" in w for w in roofline.predict(epyc, "llama-3.1-8b", 16, tp=2, engine="ideal")["warnings"])
    assert not any("exceed its scale-up domain" in w for w in roofline.predict("h100-sxm", "llama-3.1-70b", 16, tp=16)["warnings"])
    # a PCIe card's domain of one: its link is the one between cards, on purpose (qa123: 8 profiles warned, wrongly)
    assert not any("scale-up domain" in w for w in roofline.predict("l4", "llama-3.1-8b", 16, tp=2, engine="ideal")["warnings"])


def test_a_sweep_whose_break_even_is_its_last_batch_where_more_fit_says_it_is_a_lower_bound(recwarn):
    """qa119: a sweep to batch 64 wrote break_even_batch 64 in every row, without a word, where predict said 167."""
    sweep = {"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle", "engine": "ideal",
             "axes": {"batch": [1, 8], "context": [1024], "k": [0, 2], "alpha": [0.8]}}
    df = roofline.sweep(sweep)
    assert set(df.loc[df["k"] == 2, "break_even_batch"]) == {8} and (df["max_batch"] > 8).all()
    # qa337: the rows say it too, where the terminal's line is gone
    assert df.loc[df["k"] == 2, "break_even_at_last_batch"].all() and not df.loc[df["k"] == 0, "break_even_at_last_batch"].any()
    (line,) = [str(w.message) for w in recwarn if "lower bound" in str(w.message)]
    assert line == ("sweep: break_even_batch is the sweep's last batch, 8, in 1 (config, context, alpha, k) cell(s) where "
                    "speculation still pays there and larger batches fit: a lower bound (a batch axis reaching further, or "
                    "predict, gives it)")
    recwarn.clear()
    one = roofline.sweep({**sweep, "axes": {**sweep["axes"], "batch": [8]}})  # one batch: its break-even column is that
    # batch where it pays, a lower bound said as any other (qa301: 1 written, predict's 'at least 790' unsaid)
    assert set(one.loc[one["k"] == 2, "break_even_batch"]) == {8}
    (line,) = [str(w.message) for w in recwarn if "lower bound" in str(w.message)]
    assert line.startswith("sweep: break_even_batch is the sweep's last batch, 8, in 1 (config, context, alpha, k) cell(s)")
    # memory ends the search below the last batch, speculation still paying: said too (qa299: 148 = max_batch unsaid)
    recwarn.clear()
    capped = roofline.sweep({**sweep, "hardware": "l4", "axes": {**sweep["axes"], "batch": [1, 64, 4096], "context": [256]}})
    spec = capped[capped["k"] == 2]
    assert (spec["break_even_batch"] == spec["max_batch"]).all() and (spec["max_batch"] < 4096).all()
    assert spec["break_even_at_memory_limit"].all() and not spec["break_even_at_last_batch"].any()  # memory, not the sweep
    # qa339: a last batch that is the memory cap is memory's bound; a break-even inside the sweep is no bound at all
    base = {**sweep, "axes": {**sweep["axes"], "k": [0, 3]}}
    at_cap = roofline.sweep({**base, "axes": {**base["axes"], "batch": [1, 64, 434]}})
    at_cap = at_cap[at_cap["k"] == 3]
    assert (at_cap["max_batch"] == 434).all() and (at_cap["break_even_batch"] == 434).all()
    assert at_cap["break_even_at_memory_limit"].all() and not at_cap["break_even_at_last_batch"].any()
    inside = roofline.sweep({**base, "axes": {**base["axes"], "batch": [1, 8, 512], "context": [256], "alpha": [0.6]}})
    inside = inside[inside["k"] == 3]
    assert (inside["break_even_batch"] < 512).all() and (inside["break_even_batch"] > 8).all()
    assert not inside["break_even_at_last_batch"].any() and not inside["break_even_at_memory_limit"].any()
    lines = [str(w.message) for w in recwarn if "largest batch that fits (max_batch)" in str(w.message)]
    assert len(lines) == 2, lines  # the capped sweep's, and at_cap's: its last batch the cap (qa453: unsaid before)
    assert all(line.startswith("sweep: break_even_batch is the largest batch that fits (max_batch) in 1 (config, context, "
                               "alpha, k) cell(s)") for line in lines), lines


@pytest.mark.slow
def test_a_speculative_gain_carried_by_unoverlapped_host_work_is_said_in_predict_and_the_sweep():
    """qa156: under session 33's vllm (61.3 us of host work a sequence, not overlapped, and no speculative cost a
    sequence) an 8B model's EAGLE speedup at batch 512 beat the bare roofline's 1.3x to 0.8x, its break-even sat at the
    memory limit, and nothing said what carried it: host work paid once an iteration of tau tokens. qa157: not for an
    engine that overlaps host work in plain decoding (sglang: it lowers the gain there), the memory limit not called a
    break-even, and the sweep said once an engine at a batch that fits."""
    import dataclasses
    import warnings

    from roofline.serving import load_engine
    from roofline.units import format_seconds

    vllm = load_engine("vllm")
    big = roofline.predict("h100-sxm", "llama-3.1-8b", 512, 256, method="eagle", k=2, alpha=0.6)
    host = [w for w in big["warnings"] if "vllm's host work at batch 512" in w]
    share = float(big["host_time_s"]) / float(big["step_time_s"])
    per_sequence = format_seconds(vllm.host_per_sequence_s)  # the shipped profile's, as the note says it
    assert len(host) == 1 and f"{per_sequence} a sequence, fitted, not overlapped) is {share:.0%} of the plain step" in host[0]
    assert float(big["host_time_s"]) == pytest.approx(512 * vllm.host_per_sequence_s, rel=1e-9)
    for quiet in ({"engine": "ideal"}, {"engine": "sglang"}, {"engine": dataclasses.replace(vllm, host_overlap=True)}):
        point = roofline.predict(**{"hardware": "h100-sxm", "model": "llama-3.1-8b", "batch": 512, "context": 256,
                                    "method": "eagle", "k": 2, "alpha": 0.6, **quiet})
        assert not any("host work" in w and "once an iteration" in w for w in point["warnings"]), quiet
    one = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 256, method="eagle", k=2, alpha=0.6)
    cap = one["spec"]["break_even_batch"]
    assert one["spec"]["break_even_at_memory_limit"]
    # one note of that batch (qa364: two, each beginning 'speculation paying up to batch ...'): the range, and the host work
    of_cap = [w for w in one["warnings"] if w.startswith(f"speculation paying up to batch {cap:,}") and "max_num_seqs" not in w]
    assert len(of_cap) == 1 and of_cap[0].startswith(f"speculation paying up to batch {cap:,}, the largest that fits, lies where")
    assert ", and vllm's host work there (" in of_cap[0] and of_cap[0].endswith(": an upper estimate (docs/ACCURACY.md)")
    assert not any(w.startswith("the break-even batch") for w in one["warnings"])  # memory ends it, not the fit
    # the sweep: once an engine, at the largest swept batch that fits (8192 does not at 256 tokens on one H100)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        roofline.sweep({"hardware": ["h100-sxm", "h200"], "model": "llama-3.1-8b", "method": "eagle",
                        "axes": {"batch": [1, 512, 8192], "context": [256], "k": [2], "alpha": [0.6]}})
    said = [str(w.message) for w in caught if "speculation pays the engine's host work" in str(w.message)]
    assert len(said) == 1 and "in 2 configs (llama-3.1-8b on h100-sxm " in said[0] and "at batch 512;" in said[0]
    assert "8,192" not in said[0] and " KV)" not in said[0]  # one dtype each: none said
    # qa273: two KV dtypes of one model on one device said as two identical labels: each its dtypes where they vary
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle", "kv_dtype": ["bf16", "fp8"],
                        "axes": {"batch": [1, 512], "context": [256], "k": [2], "alpha": [0.6]}})
    said = [str(w.message) for w in caught if "speculation pays the engine's host work" in str(w.message)]
    assert len(said) == 1 and "in 2 configs (llama-3.1-8b on h100-sxm (bf16 weights, bf16 KV) " in said[0], said
    assert "; llama-3.1-8b on h100-sxm (bf16 weights, fp8 KV) " in said[0], said
    # qa332: two engines alike but their names (an eager copy beside vllm) said the same line twice: once, both named
    copy = dataclasses.replace(roofline.load_engine("vllm"), name="vllm-copy")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle", "engine": ["vllm", copy],
                        "axes": {"batch": [1, 512], "context": [256], "k": [2], "alpha": [0.6]}})
    said = [str(w.message) for w in caught if "host work (" in str(w.message) and "once an iteration" in str(w.message)]
    assert len(said) == 1 and said[0].startswith("sweep: under vllm and vllm-copy, speculation pays each engine's host work ("), said


@pytest.mark.slow
def test_a_sweep_of_drafting_k_alone_whose_drafter_never_fits_its_own_device_names_that_device(recwarn):
    """qa167: with only drafting k swept the sweep said 'speculation fits ... at no point (the drafter and its k + 1
    tokens per sequence take the memory)', where the drafter's own device ran out and the target had room."""
    small = dataclasses.replace(roofline.load_hardware("l4"), name="small4", mem_bytes=2e9)
    roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-70b", "tp": 4, "method": "draft", "draft": "llama-3.2-1b",
                    "draft_hardware": small, "axes": {"batch": [1, 8], "context": [2048], "k": [2], "alpha": [0.8]}})
    (line,) = [str(w.message) for w in recwarn if "does not fit" in str(w.message) or "at no point" in str(w.message)]
    assert "the drafter does not fit on small4 at any point of the sweep" in line
    assert line.endswith("plain decoding (k 0, not swept here) runs") and "k + 1" not in line


@pytest.mark.slow
def test_a_prompt_longer_than_the_context_is_said():
    """qa217: `predict --prompt 5000` at the default context of 1,024 priced the decode step at 1,024 in silence."""
    import roofline

    long = roofline.predict("h100-sxm", "llama-3.1-8b", batch=1, context=1024, prompt=5000)
    assert any(w.startswith("prompt 5,000 is longer than the context 1,024 the step is priced at") for w in long["warnings"])
    fits = roofline.predict("h100-sxm", "llama-3.1-8b", batch=1, context=5000, prompt=5000)
    assert not any(w.startswith("prompt ") for w in fits["warnings"])


@pytest.mark.slow
def test_notebook_values_of_the_wrong_kind_are_one_line_and_ranges_take_what_the_docs_say():
    """qa218: pd.NA, a numpy array or a Series as `method` raised TypeError / ValueError; `log: true` beside `step` was
    ignored; `num: 4.0` (and YAML's "4") refused; a per-model method mapping compared its keys case and all; a list of
    dtypes said `found 'list'`; one alpha said 'expected rates'."""
    import numpy as np
    import pandas as pd

    import roofline
    from roofline.errors import RooflineError

    for bad, shown in ((pd.NA, "found <NA>"), (np.array("eagle"), "found array('eagle'"), (pd.Series(["eagle"]), "found a Series")):
        with pytest.raises(RooflineError, match=re.escape(shown)):
            roofline.predict("h100-sxm", "llama-3.1-8b", method=bad)
    with pytest.raises(RooflineError, match="sweep: method: expected one of .*, found <NA>"):
        roofline.sweep({"hardware": "h200", "model": "llama-3.1-8b", "method": pd.NA})
    with pytest.raises(RooflineError, match=r"axes\.batch\.log: expected a log range with num"):
        roofline.sweep({"hardware": "h200", "model": "llama-3.1-8b", "axes": {"batch": {"start": 1, "stop": 64, "step": 2, "log": True}}})
    for num in (4.0, np.float64(4), "4"):
        df = roofline.sweep({"hardware": "h200", "model": "llama-3.1-8b", "axes": {"batch": {"start": 1, "stop": 64, "num": num}}})
        assert sorted(df["batch"].unique()) == [1, 22, 43, 64]
    df = roofline.sweep({"hardware": "h200", "model": "Llama-3.1-8B", "method": {"LLAMA-3.1-8b": "EAGLE"},
                         "axes": {"batch": [1], "k": [0, 2]}})
    assert set(df["method"].astype(str)) == {"eagle"}
    with pytest.raises(RooflineError, match=re.escape("kv_dtype: expected one of fp32, bf16, fp16, fp8, int8, found ['fp8']")):
        roofline.predict("h100-sxm", "llama-3.1-8b", kv_dtype=["fp8"])
    with pytest.raises(RooflineError, match=re.escape("alpha: expected a rate in [0, 1], found 1.5")):
        roofline.predict("h100-sxm", "llama-3.1-8b", method="eagle", alpha=1.5)


@pytest.mark.slow
def test_library_callers_get_methods_in_any_case_and_their_own_spelling_back():
    """qa220: speculative_metrics(method='MEDUSA') failed ('method: method: ... found 'MEDUSA''), predict said a typo as
    its lower-case form, np.int32 was refused in a range, an engine's method list was case-sensitive, and a refused
    method still drew the pp and drafter-device notes."""
    import numpy as np

    import roofline
    from roofline.errors import RooflineError
    from roofline.hardware import load_hardware
    from roofline.model import load_model
    from roofline.serving import engine_from_dict, load_engine
    from roofline.speculation import drafter_warnings, speculative_metrics

    hw, target = load_hardware("h100-sxm"), load_model("llama-3.1-8b")
    upper = speculative_metrics(hw, target, 4, 1024, 3, 0.7, method="MEDUSA")
    assert float(upper["draft_time_s"]) == float(speculative_metrics(hw, target, 4, 1024, 3, 0.7, method="medusa")["draft_time_s"])
    with pytest.raises(RooflineError, match=re.escape("found 'MEDUSSA' (did you mean medusa?)")):
        roofline.predict("h100-sxm", "llama-3.1-8b", method="MEDUSSA")
    df = roofline.sweep({"hardware": "h200", "model": "llama-3.1-8b", "axes": {"batch": {"start": np.int32(1), "stop": 64, "num": np.int32(4)}}})
    assert sorted(df["batch"].unique()) == [1, 22, 43, 64]
    engine = engine_from_dict({"name": "x", "source": "s", "speculation_refused": ["Medusa "]}, "e.yaml")
    assert engine.speculation_refused == ("medusa",)
    from roofline.layout import deployment
    trt = load_engine("trtllm")
    assert drafter_warnings("medusa", target, None, load_hardware("l4"), 2, deployment(target, pp=2), trt) == []
    assert drafter_warnings("medusa", target, None, load_hardware("l4"), 2, deployment(target, pp=2), load_engine("vllm"))


@pytest.mark.slow
def test_a_dispatch_across_nodes_says_the_link_latency_it_pays_and_a_value_that_moves_it():
    """qa227: on two MI300X nodes the note said the dispatch pays vllm's allreduce_latency (10 us) and suggested 15 us,
    where the collectives pay the scale-out link's 20 us (the larger), so 15 us moved nothing."""
    import roofline

    # batch 1024: the dispatch a seventh of the step (at 256 a tenth since the NIC takes its own 0.96, not xGMI's 0.75)
    point = roofline.predict("mi300x", "deepseek-v3", batch=1024, context=4096, dp_attention=16, ep=16)
    (note,) = [w for w in point["warnings"] if w.startswith("the expert dispatch takes")]
    assert "and across nodes the scale-out link's 20 us, the larger, which the engine's value does not move" in note, note
    assert note.endswith("--set 'allreduce_latency=30 us')")
    one = roofline.predict("mi300x", "deepseek-v3", batch=1024, context=4096, dp_attention=8, ep=8)  # one node: as before
    assert not any("scale-out link" in w for w in one["warnings"])
    tp16 = roofline.predict("mi300x", "llama-3.1-405b", batch=1, context=4096, tp=16)  # qa227: a fifth of the step, unsaid
    assert any(w.startswith("tp 16 spans 2 scale-up domains: its all-reduces (") and "a lower estimate" in w
               for w in tp16["warnings"]), tp16["warnings"]
    assert not any("spans" in w for w in roofline.predict("mi300x", "llama-3.1-405b", batch=1, context=4096, tp=8)["warnings"])


@pytest.mark.slow
def test_all_reduces_and_a_dispatch_on_the_scale_out_link_are_said_by_their_shares_together():
    """qa229: at tp 16, dp-attention 2, ep 32 on two H200 nodes the all-reduces were 9.3% of the step and the dispatch
    8.9%, each under the 10% at which predict speaks: 18% of the step rested on the two-rank latency, unsaid; and the
    note said 'the step' of a decode step where cheapest also says it of a speculative pick."""
    import roofline
    from roofline.frontier import pick_notes

    p = roofline.predict("h200", "deepseek-v3", 32, 4096, tp=16, dp_attention=2, ep=32)
    assert p["allreduce_time_s"] < 0.1 * p["step_time_s"] and p["all_to_all_time_s"] < 0.1 * p["step_time_s"]
    assert any(w.startswith("tp 16 spans 2 scale-up domains: its all-reduces (") and "decode step) pay" in w for w in p["warnings"])
    assert any(w.startswith("the expert dispatch takes") for w in p["warnings"])
    row = {"engine": "vllm", "hardware": "h200", "model": "deepseek-v3", "tp": 16, "dp_attention": 2, "ep": 32, "pp": 1,
           "batch": 32, "context": 4096, "weight_dtype": "fp8", "expert_dtype": "fp8", "kv_dtype": "bf16"}
    assert any(n.startswith("the plain pick: tp 16 spans 2 scale-up domains") for n in pick_notes({"plain": row}))


def test_predict_says_host_work_is_overlapped_where_pipeline_micro_batches_hide_it():
    """vllm adds its host work at pp 1; at pp 2 two micro-batches in flight hide one's scheduling behind the other's
    device time (engine.host_overlapped), but one sequence is one micro-batch: nothing to hide it behind."""
    one = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, pp=2, engine="vllm")
    two = roofline.predict("h100-sxm", "llama-3.1-8b", 64, 1024, pp=2, engine="vllm")
    flat = roofline.predict("h100-sxm", "llama-3.1-8b", 64, 1024, engine="vllm")
    assert not one["host_overlapped"] and two["host_overlapped"] and not flat["host_overlapped"]
    assert two["host_overlapped_speculating"]  # a verify pass's micro-batches alike


def test_an_engine_on_a_device_it_does_not_run_on_gets_no_caveats_on_its_evidence():
    """TensorRT-LLM on an MI300X: predict said no deployment runs it, and beside it which of its priors no row measured
    and that its speculative gains there run optimistic."""
    kw = dict(method="eagle", k=3, alpha=0.7, engine="trtllm")
    amd = roofline.predict("mi300x", "llama-3.1-8b", 64, 1024, **kw)["warnings"]
    nvidia = roofline.predict("h100-sxm", "llama-3.1-8b", 64, 1024, **kw)["warnings"]
    assert len(amd) == 1 and "describe no deployment" in amd[0]
    assert any("run optimistic" in w for w in nvidia) and any("no measured row determines" in w for w in nvidia)


def test_a_context_past_the_draft_models_positions_and_a_request_past_the_targets_are_said():
    """qa243: TinyLlama (2,048 positions) drafting at context 3,500 (vLLM caps the drafter there: a longer sequence skips
    speculation), and 130,000 prompt + 5,000 output tokens on a 131,072-position model, were priced without a word."""
    kw = dict(tp=4, method="draft", draft="tinyllama-1.1b", k=3, alpha=0.7)
    past = roofline.predict("h100-sxm", "llama-2-70b", 1, 3500, **kw)["warnings"]
    within = roofline.predict("h100-sxm", "llama-2-70b", 1, 2000, **kw)["warnings"]
    assert any("context 3,500 is past the draft model tinyllama-1.1b's 2,048 trained positions" in w for w in past)
    assert not any("draft model tinyllama-1.1b's" in w for w in within)
    request = roofline.predict("h200", "llama-3.1-70b", 1, 131000, tp=8, prompt=130000, output_len=5000)["warnings"]
    assert any("a request of 130,000 prompt and 5,000 output tokens (135,000) is past llama-3.1-70b's 131,072" in w
               for w in request)
    fits = roofline.predict("h200", "llama-3.1-70b", 1, 131000, tp=8, prompt=120000, output_len=5000)["warnings"]
    assert not any("a request of" in w for w in fits)


def test_no_unoverlapped_host_work_note_under_pp_where_micro_batches_overlap_it():
    """qa244: a user's vllm copy speculating at pp 2 was told its host work, 'not overlapped', carried the gain, beside a
    host work line saying the micro-batches overlap it; parameters_used counts the host terms under pp (a micro-batch's
    share lies on its round trip)."""
    from roofline.engine import parameters_used
    from roofline.hardware import load_hardware
    from roofline.layout import deployment
    from roofline.model import load_model
    from roofline.serving import load_engine

    vllm = dataclasses.replace(load_engine("vllm"), speculation_refused_with_pp=False)
    out = roofline.predict("h100-sxm", "llama-3.1-8b", 256, 1024, pp=2, engine=vllm, method="eagle", k=3, alpha=0.8)
    assert not any("not overlapped" in w for w in out["warnings"]), out["warnings"]
    flat = roofline.predict("h100-sxm", "llama-3.1-8b", 256, 1024, engine=vllm, method="eagle", k=3, alpha=0.8)
    assert any("not overlapped" in w for w in flat["warnings"])  # pp 1: it is added, and said
    sglang, model = load_engine("sglang"), load_model("llama-3.1-70b")
    used = parameters_used(load_hardware("h100-sxm"), model, deployment(model, tp=4, pp=2), sglang, False, False)
    assert used["host_per_step"] and used["host_per_sequence"]
    assert not any(parameters_used(load_hardware("h100-sxm"), model, deployment(model, tp=4), sglang, False, False)[p]
                   for p in ("host_per_step", "host_per_sequence"))


def test_a_prompt_whose_kv_cache_fits_at_no_batch_is_said():
    """qa246: a 120,000-token prompt on an L4 printed a 65 s time to first token and 'fits in memory yes' (of the
    default context), where the request alone needs 31.8 GB of 20.8 usable."""
    big = roofline.predict("l4", "llama-3.1-8b", 1, 1024, prompt=120000, output_len=100)["warnings"]
    assert any(w.startswith("a request of 120,000 prompt and 100 output tokens does not fit in memory even alone") for w in big)
    small = roofline.predict("l4", "llama-3.1-8b", 1, 1024, prompt=1200, output_len=100)["warnings"]
    assert not any("even alone" in w for w in small)


def test_a_gpu_engine_on_a_cpu_apple_or_tpu_gets_no_caveat_on_its_gpu_evidence_beside_the_pairing_note():
    """qa253: sglang on an M4 Max said its figures assume a build no fit row measured, and beside it which priors no
    row determines and that its gains run optimistic; on a TPU a fit caveat called the TPU another GPU."""
    for hw in ("apple-m4-max", "epyc-9654", "tpu-v6e"):
        said = roofline.predict(hw, "llama-3.1-8b", 48, 1024, engine="sglang", method="eagle", k=3, alpha=0.7)["warnings"]
        assert any("holds a GPU serving engine's costs" in w for w in said), (hw, said)
        assert not any("no measured row determines" in w or "run optimistic" in w or "was fitted on rows" in w
                       for w in said), (hw, said)


@pytest.mark.slow
def test_a_shared_prefix_longer_than_the_prompt_is_refused():
    """qa288: `--shared-prefix 1000 --context 1024 --prompt 10` gave a 10-token prefill's TTFT unsaid; warned since,
    and qa354's numbers described no request: refused, before the context's bound (which named the wrong fault)."""
    import warnings

    from roofline.errors import RooflineWarning

    with pytest.raises(RooflineError, match=r"^predict: shared_prefix: expected an integer in 0\.\.10 \(the prompt's 10 "
                                            r"tokens: a prefix every sequence shares is part of each prompt; give prompt "
                                            r"as the whole prompt, the prefix included\), found 1000$"):
        roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1024, shared_prefix=1000, prompt=10)
    with pytest.raises(RooflineError, match="the prompt's 1,000 tokens"):  # past the mean context (1,100) too
        roofline.predict("h100-sxm", "llama-3.1-8b", 8, shared_prefix=4096, prompt=1000, output_len=200)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RooflineWarning)
        said = roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1024, shared_prefix=1000, prompt=1024)["warnings"]
        assert not any("prompt" in w and "prefix" in w for w in said)
    # vllm-v0 caches none: said (qa354: silent, its max batch halved beside vllm's)
    v0 = roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1024, shared_prefix=1000, prompt=1024, engine="vllm-v0")
    assert ("vllm-v0 caches no prefix (prefix_cached false): the shared prefix of 1,000 tokens is held by each sequence "
            "(the memory and max batch here) and prefilled with every prompt") in v0["warnings"]
    from roofline.tables import predict_table

    assert "shared prefix 1,000 (held by each sequence, read by each sequence)" in predict_table(v0).splitlines()[0]
    bare = roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1024, shared_prefix=1000, engine="vllm-v0")["warnings"]
    assert ("vllm-v0 caches no prefix (prefix_cached false): the shared prefix of 1,000 tokens is held by each sequence "
            "(the memory and max batch here)") in bare  # no prompt, nothing prefilled
    # the break-even past the engine's cap on sequences, said in the result as the table says it (qa295)
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 8, 256, method="eagle")
    assert p["spec"]["break_even_batch"] > p["sequence_cap"]
    what = (f"speculation paying up to batch {p['spec']['break_even_batch']:,}, the largest that fits," if p["spec"][
        "break_even_at_memory_limit"] else f"the break-even batch {p['spec']['break_even_batch']:,}")
    assert f"{what} is above the {p['sequence_cap']:,} sequences vllm runs" in " ".join(p["warnings"])
    import dataclasses  # a device without a price: the serving cost None, not absent (qa295: a KeyError)

    unpriced = dataclasses.replace(roofline.load_hardware("h100-sxm"), name="free", price_usd_per_hour=None)
    assert roofline.predict(unpriced, "llama-3.1-8b", prompt=100, output_len=100)["serving_cost_usd_per_million_tokens"] is None


@pytest.mark.slow
def test_predict_prices_the_serving_speed_beside_the_decode_only_cost():
    """qa294: a decode-only $0.505 per million tokens stood three lines below a serving TPOT of 71.9 ms (13.9 tokens/s
    per user, not 30.9): a budget sized on it was 2-3x short. The cost at the serving speed is the same rent over its
    tokens."""
    import roofline
    from roofline.tables import predict_table

    p = roofline.predict("mi300x", "llama-3.1-70b", 128, 2250, tp=4, prompt=2000, output_len=500, method="eagle", k=2, alpha=0.7)
    # every request's prefill over its output tokens, its own too (qa296: at batch 1 it was the decode cost)
    assert p["serving_cost_usd_per_million_tokens"] == pytest.approx(
        p["cost_usd_per_million_tokens"] * (p["step_time_s"] + 128 * p["prefill_stall_s"] / 500) / p["step_time_s"])
    spec = p["spec"]
    per_token = spec["iteration_time_s"] / spec["tau"]
    assert spec["serving_cost_usd_per_million_tokens"] == pytest.approx(
        spec["cost_usd_per_million_tokens"] * (per_token + 128 * spec["prefill_stall_s"] / 500) / per_token)
    one = roofline.predict("h100-sxm", "llama-3.1-70b", 1, 8050, tp=4, prompt=8000, output_len=100)
    assert one["serving_cost_usd_per_million_tokens"] > 1.2 * one["cost_usd_per_million_tokens"]  # its own prefill
    assert p["serving_cost_usd_per_million_tokens"] > 2 * p["cost_usd_per_million_tokens"]  # the case: prefills dominate
    text = predict_table(p)
    assert f"serving cost         ${p['serving_cost_usd_per_million_tokens']:.3g} per million tokens" in text
    assert "e+0" not in text  # speeds as the rows above print them (qa296: 2.49e+03 tokens/s)
    assert "serving_cost_usd_per_million_tokens" not in roofline.predict("mi300x", "llama-3.1-70b", 128, 2250, tp=4)
    # qa342: the first token at 128 in flight lands in a step of the others' decode, its prefill's stall added; alone
    # (batch 1) it is the prefill; a drafter's own prefill of it is in the stall (qa354: added twice, the stall holding it)
    assert p["serving_ttft_s"] == pytest.approx(p["step_time_s"] + p["prefill_stall_s"]) and p["serving_ttft_s"] > p["ttft_s"]
    assert spec["serving_ttft_s"] == pytest.approx(spec["iteration_time_s"] + spec["prefill_stall_s"])
    assert 0 < spec["prefill_stall_drafter_s"] < 0.2 * spec["prefill_stall_s"]  # an EAGLE head's, in the stall
    from roofline.units import format_seconds

    assert f"serving TTFT         {format_seconds(p['serving_ttft_s'])}   (at 128 in flight:" in text
    assert one["serving_ttft_s"] == one["ttft_s"] and "serving TTFT" not in predict_table(one)
    drafted = roofline.predict("h100-sxm", "llama-3.1-70b", 96, 1675, tp=4, prompt=1500, output_len=350, method="draft",
                               draft="llama-3.2-1b", k=3, alpha=0.8)
    assert drafted["spec"]["serving_ttft_s"] == pytest.approx(drafted["spec"]["iteration_time_s"] + drafted["spec"]["prefill_stall_s"])
    # the drafter's own stall: a 1B model's prefill of the 1,500 tokens mixed into a draft pass of 96 (vllm), below
    # its lone prefill (draft_prefill_s) and above nothing
    assert 0 < drafted["spec"]["prefill_stall_drafter_s"] <= drafted["draft_prefill_s"]
    alone = roofline.predict("h100-sxm", "llama-3.1-70b", 1, 1675, tp=4, prompt=1500, output_len=350, method="draft",
                             draft="llama-3.2-1b", k=3, alpha=0.8)
    assert alone["spec"]["serving_ttft_s"] == pytest.approx(alone["ttft_s"] + alone["draft_prefill_s"])  # lone: both


@pytest.mark.slow
def test_at_k_0_a_drafters_notes_are_said_of_the_best_k_search():
    """qa288: at k 0, where nothing is drafted, predict warned that the EAGLE head on an L4 cannot overlap, as of the point."""
    said = roofline.predict("h100-sxm", "llama-3.1-8b", 8, method="eagle", k=0, draft_hardware="l4")["warnings"]
    assert any(w.startswith("at k 0 (for the best-k search): the eagle head on l4 needs the verified hidden states") for w in said)
    said = roofline.predict("h100-sxm", "llama-3.1-8b", 8, method="eagle", k=2, draft_hardware="l4")["warnings"]
    assert any(w.startswith("the eagle head on l4 needs the verified hidden states") for w in said)


@pytest.mark.slow
def test_predict_names_the_batch_where_the_decode_step_turns_compute_bound():
    """A student reads 'intensity / ridge 1.0 / 278.0' and asks at what batch decoding turns compute-bound: nothing said
    it, and the ridge read as that batch (qa302). predict now gives the smallest batch whose step is compute-bound
    (314 for an 8B on an H100 at context 256 under ideal, where the step's intensity is 170, not 278), none at 4k,
    where attention's KV reads grow with the batch, and where the flag zigzags (vllm's kernel latencies, tile padding:
    batches 305-309 compute-bound at context 512, then memory-bound again; qa304: a grid search said 'no batch') the
    first, the first memory-bound past it and whether it stays: each checked batch by batch against the step's bound."""
    import numpy as np

    import roofline
    from roofline.engine import step_metrics
    from roofline.tables import predict_table as predict_text

    every = np.arange(1, 65537)
    for hardware, engine, context in (("h100-sxm", "ideal", 256), ("h100-sxm", "vllm", 512), ("h100-sxm", "vllm", 448),
                                      ("h100-sxm", "ideal", 4096), ("mi300x", "vllm", 512), ("h100-sxm", "trtllm", 700)):
        p = roofline.predict(hardware, "llama-3.1-8b", engine=engine, batch=1, context=context)
        eng = roofline.load_engine(engine).for_hardware(roofline.load_hardware(hardware))
        flags = np.broadcast_to(np.asarray(step_metrics(roofline.load_hardware(hardware), roofline.load_model("llama-3.1-8b"),
                                                        every, 1, context, engine=eng)["compute_bound"]), every.shape)
        cb = p["compute_bound"]
        if not flags.any():
            assert cb["first_batch"] is None and f"compute-bound at     no batch to 65,536 at context {context:,}" in predict_text(p)
            continue
        first = int(np.argmax(flags))
        again = np.flatnonzero(~flags[first:])
        assert cb["first_batch"] == first + 1, (hardware, engine, context)
        assert cb["memory_bound_again"] == (first + 1 + int(again[0]) if len(again) else None)
        assert cb["from_batch"] == (None if not flags[-1] else int(np.flatnonzero(~flags)[-1]) + 2 if (~flags).any() else 1)
        assert roofline.predict(hardware, "llama-3.1-8b", engine=engine, batch=first + 1, context=context)["bound"] == "compute"
        edges = np.flatnonzero(np.diff(np.concatenate([[0], flags.astype(int), [0]])))  # every run, batch by batch
        assert cb["runs"] == [[int(a) + 1, int(b)] for a, b in zip(edges[::2], edges[1::2])], (hardware, engine, context)
        said = (f"compute-bound from   batch {first + 1:,} at context {context:,}" if cb["memory_bound_again"] is None else
                f"compute-bound at     batches {first + 1:,}-")  # (qa306: the runs past the first unsaid)
        assert said in predict_text(p)
    p = roofline.predict("h100-sxm", "llama-3.1-8b", engine="ideal", batch=1, context=256)
    assert p["compute_bound"]["intensity_at_first_flops_per_byte"] < p["derated_ridge_point_flops_per_byte"]  # not the ridge
    zig = roofline.predict("h100-sxm", "llama-3.1-8b", batch=1, context=512)  # vllm: an island of compute-bound batches
    runs = zig["compute_bound"]["runs"]  # qa327: the memory-bound batches between the runs named
    assert zig["compute_bound"]["memory_bound_again"] is not None and len(runs) == 2
    assert f"memory-bound at {runs[0][1] + 1:,}-{runs[1][0] - 1:,} and past {runs[1][1]:,}" in predict_text(zig)
    staged = roofline.predict("h100-sxm", "llama-3.1-405b", tp=8, pp=2, batch=64, context=4096)  # compute-bound to the end
    runs = staged["compute_bound"]["runs"]
    assert staged["compute_bound"]["from_batch"] == runs[-1][0] and len(runs) == 2
    assert staged["max_batch"] < runs[0][0]  # every run past what fits (qa371: listed as if served)
    assert (f"compute-bound from   batch {runs[0][0]:,} at context 4,096, for good from {runs[1][0]:,} ("
            in predict_text(staged))
    l4 = roofline.predict("l4", "llama-3.1-8b", engine="ideal", batch=1, context=256)  # past what memory holds: said
    assert l4["compute_bound"]["first_batch"] > l4["max_batch"] and "fit in memory" in predict_text(l4)


@pytest.mark.slow
def test_an_engine_change_an_override_sets_again_on_the_device_is_said():
    """qa303: tripling vllm's kernel_latency_s with dataclasses.replace moved an H100's step by 49% and an MI300X's not
    at all (vllm's overrides entry for mi* sets its own), with no warning: predict and sweep now say so."""
    import dataclasses
    import warnings

    import roofline

    vllm = roofline.load_engine("vllm")
    slow = dataclasses.replace(vllm, name="vllm-slow", kernel_latency_s=vllm.kernel_latency_s * 3, fitted={})

    def said(point):
        return [w for w in point["warnings"] if "overrides entry for mi* sets it again" in w]

    amd = roofline.predict("mi300x", "llama-3.1-8b", engine=slow)
    assert amd["step_time_s"] == roofline.predict("mi300x", "llama-3.1-8b", engine=vllm)["step_time_s"]  # the premise
    from roofline.units import format_seconds

    assert said(amd) == [f"engine: vllm-slow's kernel_latency was changed to {format_seconds(slow.kernel_latency_s)}, and its overrides entry for mi* sets "
                         "it again on mi300x (4.76 us): the change does not apply there (change that entry too: "
                         "dataclasses.replace(engine, overrides=...))"]
    assert not said(roofline.predict("h100-sxm", "llama-3.1-8b", engine=slow))  # it applies there
    assert not said(roofline.predict("mi300x", "llama-3.1-8b", engine=vllm))  # nothing changed
    followed = dataclasses.replace(slow, overrides=tuple((g, {**c, "kernel_latency_s": slow.kernel_latency_s})
                                                         for g, c in vllm.overrides))  # the note's advice taken (qa306)
    assert not said(roofline.predict("mi300x", "llama-3.1-8b", engine=followed))
    sglang = roofline.load_engine("sglang")  # two entries match an MI325X: the one applied last is named (qa306)
    (note,) = [w for w in roofline.predict("mi325x", "llama-3.1-8b", engine=dataclasses.replace(sglang, memory_fraction=0.5))[
        "warnings"] if "sets it again" in w]
    assert "overrides entry for mi325x sets it again on mi325x (0.9)" in note
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        roofline.sweep({"name": "s", "hardware": ["h100-sxm", "mi300x"], "model": "llama-3.1-8b", "engine": slow,
                        "axes": {"batch": [1, 8], "context": [1024]}})
    assert len([w for w in caught if "sets it again on mi300x" in str(w.message)]) == 1


def test_the_load_functions_say_their_call_and_argument_first_as_predict_does():
    """qa344: load_model('llama-9') said 'unknown model ...' bare, load_model('') 'model name: ...', a missing profiles
    folder 'profiles: ...', where predict says 'predict: model: ...' and load_hardware(3) 'load_hardware: hardware: ...'."""
    from roofline.errors import UnknownName

    with pytest.raises(UnknownName, match=r"^load_model: model: unknown model 'llama-9'; closest: "):
        roofline.load_model("llama-9")
    with pytest.raises(RooflineError, match=r"^load_model: model: expected a non-empty name, found ''$"):
        roofline.load_model("")
    with pytest.raises(RooflineError, match=r"^load_model: profiles: /nonexistent-qa344: expected a folder of profiles"):
        roofline.load_model("llama-3.1-8b", profiles="/nonexistent-qa344")
    with pytest.raises(UnknownName, match=r"^load_engine: engine: unknown engine 'vlm'; closest: vllm"):
        roofline.load_engine("vlm")
    with pytest.raises(UnknownName, match=r"^load_hardware: hardware: unknown hardware 'h1000'"):
        roofline.load_hardware("h1000")
    assert roofline.load_engine().name == "vllm" and roofline.load_hardware("H100").name == "h100-sxm"


def test_a_library_caller_is_told_of_the_acceptance_keyword_not_its_flag():
    """qa344: predict() told a notebook user that '(--acceptance)' places the best k better."""
    (note,) = [w for w in roofline.predict("h200", "llama-3.1-8b", batch=32, context=4096, method="eagle", k=4,
                                           alpha=0.8)["warnings"] if w.startswith("best k")]
    assert note.endswith("per-position rates (acceptance) place it better") and "--" not in note


def test_a_shared_prefix_past_the_context_is_told_the_bound_is_the_context_and_a_nan_axis_value_is_not_finite():
    """qa344: 'shared_prefix: expected an integer in 0..100, found 200' did not say the 100 is the context; a sweep's
    alpha of nan was 'expected a list of numbers', as if nan were text."""
    with pytest.raises(RooflineError, match=r"^predict: shared_prefix: expected an integer in 0\.\.100 \(the context, 100: "
                                            r"a prefix is part of it\), found 200$"):
        roofline.predict("h100", "llama-3.1-8b", context=100, shared_prefix=200)
    with pytest.raises(RooflineError, match=r"^sweep: axes\.alpha: expected a list of finite numbers, found nan$"):
        roofline.sweep({"hardware": "h100", "model": "llama-3.1-8b", "method": "eagle",
                        "axes": {"batch": [1], "alpha": [float("nan")]}})


def test_a_library_caller_s_boolean_is_said_as_python_writes_it():
    """qa344: predict(batch=True) said 'found true', YAML's spelling, to a Python caller; a file still says true."""
    with pytest.raises(RooflineError, match=r"^predict: batch: expected an integer in 1\.\.100,000,000, found True$"):
        roofline.predict("h100", "llama-3.1-8b", batch=True)
    from roofline.errors import field_error

    assert str(field_error("s.yaml", "batch", "a number", True)).endswith("found true")


def test_predict_prices_a_request_at_its_mean_context_where_no_context_is_given():
    """qa347: predict priced a request at context 1,024 where its sweep priced it at the request's mean, 2,150 (a 50 ms
    TPOT at batch 68 against 64)."""
    assert roofline.predict("h100", "llama-3.1-8b", prompt=2000, output_len=300)["context"] == 2150
    assert roofline.predict("h100", "llama-3.1-8b", prompt=2000)["context"] == 1024  # no request without output_len
    assert roofline.predict("h100", "llama-3.1-8b")["context"] == 1024
    assert roofline.predict("h100", "llama-3.1-8b", context=4096, prompt=2000, output_len=300)["context"] == 4096
    with pytest.raises(RooflineError, match=r"^predict: prompt and output_len: expected a request whose mean context"):
        roofline.predict("h100", "llama-3.1-8b", prompt=10**9, output_len=10**9)


def test_a_shared_prefix_the_engine_caches_is_not_prefilled_again():
    """qa347: a 2,000-token prompt sharing 1,000 (or 1,999) tokens with the batch was prefilled whole, where vLLM V1's
    prefix caching, SGLang's radix cache and TensorRT-LLM's block reuse (each on by default) prefill the rest; vLLM V0
    prefilled it whole (prefix caching opt-in)."""
    kw = dict(batch=40, context=2150, tp=4, prompt=2000, output_len=300)
    whole, half, all_but_one = (roofline.predict("h100-sxm", "llama-3.1-70b", shared_prefix=sp, **kw) for sp in (0, 1000, 1999))
    assert whole["prompt_cached_tokens"] == 0 and half["prompt_cached_tokens"] == 1000 and all_but_one["prompt_cached_tokens"] == 1999
    assert all_but_one["ttft_s"] < half["ttft_s"] < 0.6 * whole["ttft_s"]
    assert half["serving_time_per_output_token_s"] < whole["serving_time_per_output_token_s"]  # the stalls shorten too
    from roofline.engine import ttft_s
    from roofline.layout import deployment

    hw, model = roofline.load_hardware("h100-sxm"), roofline.load_model("llama-3.1-70b")
    engine = roofline.load_engine("vllm").for_hardware(hw)
    assert half["ttft_s"] == pytest.approx(float(ttft_s(hw, model, 2000, deployment(model, tp=4), engine, 1000)))
    v0 = roofline.predict("h100-sxm", "llama-3.1-70b", shared_prefix=1000, engine="vllm-v0", **kw)
    assert v0["prompt_cached_tokens"] == 0 and v0["ttft_s"] > 1.5 * half["ttft_s"]
    from roofline.tables import predict_table

    assert "(prefill of 1,000 of its 2,000 tokens, one sequence: the shared prefix's 1,000 cached by vllm (prefix_cached))" in predict_table(half)


@pytest.mark.slow
def test_an_engine_that_caches_no_prefix_holds_a_shared_prefix_per_sequence_and_the_stall_attends_to_a_cached_one():
    """qa349: vLLM V0 (prefix caching opt-in) held a shared prefix once (max batch 378 where 108 fit); a mixed prefill's
    stall left out its attention to the cached prefix, so a loaded first token came before a lone one; sglang's serving
    TTFT was said 'mixed into a step'; the arriving prefills were said of the whole prompt."""
    from roofline.tables import predict_table

    kw = dict(batch=64, tp=4, prompt=4000, output_len=400)
    v0 = [roofline.predict("h100-sxm", "llama-3.1-70b", shared_prefix=sp, engine="vllm-v0", **kw) for sp in (0, 3000)]
    assert v0[0]["max_batch"] == v0[1]["max_batch"] and v0[0]["kv_bytes"] == v0[1]["kv_bytes"]
    v1 = roofline.predict("h100-sxm", "llama-3.1-70b", shared_prefix=3000, **kw)
    assert v1["max_batch"] > 3 * v0[1]["max_batch"]  # held once where the engine caches it
    trt = roofline.predict("h100-sxm", "qwen3-30b-a3b", 16, tp=2, shared_prefix=3000, prompt=4000, output_len=400, engine="trtllm")
    assert trt["serving_ttft_s"] > trt["ttft_s"]
    sgl = roofline.predict("h100-sxm", "llama-3.1-70b", shared_prefix=3000, engine="sglang", **kw)
    text = predict_table(sgl)
    assert "its prefill a pass of its own between two of the others' decode steps" in text and sgl["prefill_mixed"] is False
    assert "+ 63 arriving prefills of 1,000 tokens (the 3,000 of the shared prefix cached)" in text
    assert "mixed into a step of the others' decode" in predict_table(v1)


@pytest.mark.slow
def test_a_drafter_prefills_only_the_prompt_past_a_cached_shared_prefix_too():
    """qa348: drafter_ttft_s without the shared prefix survived, co-located and on a device of its own."""
    for options in (dict(method="eagle", k=3, alpha=0.7), dict(method="draft", draft="llama-3.2-1b", draft_hardware="l4", k=3, alpha=0.7)):
        whole, rest = (roofline.predict("h100-sxm", "llama-3.1-70b", 16, tp=4, prompt=2000, output_len=300, shared_prefix=sp,
                                        **options)["draft_prefill_s"] for sp in (0, 1500))
        assert 0 < rest < 0.6 * whole, options


def test_a_drafters_prefill_pays_no_host_work_of_its_own():
    """qa352: the drafter's prefill ran in the target's scheduler step but was priced with the engine's host work a
    second time (61 us on llama-3.1-8b under vllm); a copy of the engine without host work prices it alike."""
    from roofline.engine import ttft_s
    from roofline.hardware import load_hardware
    from roofline.layout import deployment
    from roofline.model import load_model
    from roofline.serving import load_engine
    from roofline.speculation import drafter_spec, drafter_ttft_s

    hw, target = load_hardware("h100-sxm"), load_model("llama-3.1-8b")
    vllm = load_engine("vllm").for_hardware(hw)
    assert vllm.host_per_sequence_s > 0
    dep = deployment(target)
    got = float(drafter_ttft_s("draft", target, load_model("llama-3.2-1b"), None, hw, None, dep, vllm, 2000))
    bare = dataclasses.replace(vllm, host_per_step_s=0.0, host_per_sequence_s=0.0)
    assert got == pytest.approx(float(ttft_s(hw, drafter_spec("draft", target, load_model("llama-3.2-1b")), 2000,
                                             deployment(load_model("llama-3.2-1b")), bare)))
    assert got < float(ttft_s(hw, load_model("llama-3.2-1b"), 2000, deployment(load_model("llama-3.2-1b")), vllm))


def test_predict_prices_speculation_uncached_where_the_engine_turns_its_prefix_cache_off_then():
    """sglang-early (prefix_cached_speculating false): predict's speculative figures (its memory, time to first token and
    serving time) are a copy's that caches no prefix, its plain ones a copy's that caches it while speculating too, and
    it says so."""
    import warnings

    from roofline.serving import load_engine

    early = load_engine("sglang-early")
    never, always = (dataclasses.replace(early, name=n, **kw) for n, kw in
                     (("never", {"prefix_cached": False}), ("always", {"prefix_cached_speculating": True})))
    point = {"batch": 16, "method": "eagle", "k": 3, "alpha": 0.7, "prompt": 3000, "output_len": 300, "shared_prefix": 2500}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, off, on = (roofline.predict("h100-sxm", "llama-3.1-8b", engine=e, **point) for e in (early, never, always))
    for key in ("ttft_with_speculation_s", "draft_prefill_s"):
        assert got[key] == pytest.approx(off[key]) and got[key] > on[key], key
    for key in ("serving_time_per_output_token_s", "serving_ttft_s", "max_batch", "memory_needed_bytes"):
        assert got["spec"][key] == pytest.approx(off["spec"][key]), key
        assert got[key] == pytest.approx(on[key]), key  # plain decoding caches it
    assert got["spec"]["max_batch"] < on["spec"]["max_batch"] and got["ttft_s"] == pytest.approx(on["ttft_s"])
    said = [w for w in got["warnings"] if "turns its prefix cache off while it speculates" in w]
    assert said == ["sglang-early turns its prefix cache off while it speculates (prefix_cached_speculating false): with "
                    "speculation the shared prefix of 2,500 tokens is prefilled with every prompt and held and read by "
                    "each sequence (the memory, time to first token and serving figures of `spec`), without it held once "
                    "and not prefilled again"]
    assert not [w for w in on["warnings"] if "turns its prefix cache off" in w]
    from roofline.tables import predict_table
    from roofline.units import format_seconds

    # the speculative memory line says what halved its batch (qa354: blamed on the drafter alone)
    assert ("with the drafter, and the shared prefix held by each sequence while speculating: "
            f"{got['spec']['memory_needed_bytes'] / 1e9:.1f} GB per device)") in predict_table(got)
    assert "held by each sequence while speculating" not in predict_table(on)
    assert "TTFT with drafter" in predict_table(got) and "the prompt prefilled whole while speculating" in predict_table(got)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # n-gram has no drafter's prefill: its speculating TTFT said on a line of its own
        lookup = roofline.predict("h100-sxm", "llama-3.1-8b", engine=dataclasses.replace(early, speculation_refused=()),
                                  **{**point, "method": "ngram"})
    assert (f"  TTFT speculating     {format_seconds(lookup['ttft_with_speculation_s'])}   (the prompt prefilled whole "
            "while speculating") in predict_table(lookup)
    # spec's arriving prefills are of the whole prompt (qa353: said as the cached 500 tokens)
    assert "+ 15 arriving prefills of 3,000 tokens, each adding" in predict_table(got).split("speculation:")[1]
    assert got["spec"]["prompt_cached_tokens"] == 0 and got["prompt_cached_tokens"] == 2500
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # a lone request: the whole prompt and the head's own prefill after it (qa353: the cached TTFT survived)
        lone, lone_off = (roofline.predict("h100-sxm", "llama-3.1-8b", engine=e, **{**point, "batch": 1}) for e in (early, never))
        assert lone["spec"]["serving_ttft_s"] == pytest.approx(lone_off["ttft_s"] + lone["draft_prefill_s"])
        # k = 0 drafts nothing: spec is plain decoding, cache and all, and nothing is said (qa353)
        plain = roofline.predict("h100-sxm", "llama-3.1-8b", engine=early, **{**point, "k": 0})
        assert plain["spec"]["serving_time_per_output_token_s"] == pytest.approx(plain["serving_time_per_output_token_s"])
        assert not [w for w in plain["warnings"] if "turns its prefix cache off" in w]
        # a draft model on a device of its own: its prefill and its device's memory uncached too (qa353: the cache came
        # back through the general engine the drafter's device is priced from)
        on_l4 = {**point, "method": "draft", "draft": "llama-3.2-1b", "draft_hardware": "l4", "model": "llama-3.1-70b"}
        on_l4.pop("model")
        far, far_off = (roofline.predict("h100-sxm", "llama-3.1-70b", tp=4, engine=dataclasses.replace(e, speculation_refused=()),
                                         **on_l4) for e in (early, never))
    assert far["draft_prefill_s"] == pytest.approx(far_off["draft_prefill_s"])
    assert far["spec"]["drafter_device_max_batch"] == far_off["spec"]["drafter_device_max_batch"]


def test_predict_says_the_serving_ttft_is_a_lower_bound_where_prefills_busy_the_device():
    """qa354: at 64 in flight a RAG service's prefills took 60% of the device's time with speculation, and the serving
    TTFT (one stall after one step) was said as the first token's time, unqualified."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 64, prompt=8192, output_len=300, shared_prefix=4096, method="eagle",
                         k=5, alpha=0.8)
    spec = p["spec"]
    plain = 64 * p["prefill_stall_s"] / 300 / (p["step_time_s"] + 64 * p["prefill_stall_s"] / 300)
    per_token = spec["iteration_time_s"] / spec["tau"]
    speculating = 64 * spec["prefill_stall_s"] / 300 / (per_token + 64 * spec["prefill_stall_s"] / 300)
    assert plain < 0.5 < speculating  # by hand: the case asked
    assert (f"at 64 in flight the arriving prompts' prefills take {100 * plain:.0f}% of the device's time "
            f"({100 * speculating:.0f}% with speculation): a new prompt often waits behind another's prefill, which the "
            "serving TTFT (its own stall after one step) leaves out, so read it as a lower bound") in p["warnings"]
    light = roofline.predict("h100-sxm", "llama-3.1-8b", 16, prompt=1024, output_len=256)
    assert not [w for w in light["warnings"] if "prefills take" in w]


def test_the_queueing_note_s_threshold_and_batch_one_and_a_far_context_s_bound():
    """qa355: the queueing note's threshold, its batch-1 guard and far_from_request's bound survived mutation."""
    from roofline.api import PREFILL_SHARE_QUEUES, _queueing_note
    from roofline.scenario import FAR_CONTEXT_SHARE, far_from_request

    def point(batch, share):  # a plain point whose prefills take `share` of the device's time: B s / O = share / (1 - share)
        stall = share / (1.0 - share) * 0.01 * 100 / batch
        return {"step_time_s": 0.01, "prefill_stall_s": stall}

    assert PREFILL_SHARE_QUEUES == 0.5
    assert _queueing_note(point(16, 0.5), 16, 100) == ""  # at the threshold: not said
    assert _queueing_note(point(16, 0.51), 16, 100).startswith("at 16 in flight the arriving prompts' prefills take 51%")
    assert _queueing_note(point(1, 0.9), 1, 100) == ""  # one request: nothing waits behind another
    assert FAR_CONTEXT_SHARE == 0.25
    assert not far_from_request(1250, 1000) and far_from_request(1251, 1000) and far_from_request(749, 1000)


@pytest.mark.slow
def test_one_idle_attention_group_is_said_in_the_singular():
    """qa357: '1 of the 8 attention groups have no sequence to decode, and their devices idle'."""
    import roofline

    one = roofline.predict("h200", "deepseek-v3", 7, 1024, dp_attention=8, ep=8, engine="ideal")
    assert any("7: 1 of the 8 attention groups has no sequence to decode, and its devices idle" in w for w in one["warnings"])
    two = roofline.predict("h200", "deepseek-v3", 6, 1024, dp_attention=8, ep=8, engine="ideal")
    assert any("2 of the 8 attention groups have no sequence to decode, and their devices idle" in w for w in two["warnings"])


@pytest.mark.slow
def test_spec_tokens_per_s_per_device_is_the_sweeps_column_of_that_name():
    """qa364: predict's top-level tokens_per_s_per_device (plain decoding's) was read beside a sweep's column of that
    name (the speculative throughput's, a drafter's own device counted while it drafts): spec gives the latter."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = roofline.sweep({"name": "d", "hardware": "h100-sxm", "model": "llama-3.1-70b", "method": "draft",
                             "draft": "llama-3.2-1b", "draft_hardware": "l4", "tp": 4,
                             "axes": {"batch": [8], "context": [2048], "k": [0, 3], "alpha": [0.8]}})
        for row in df.itertuples():
            p = roofline.predict("h100-sxm", "llama-3.1-70b", batch=8, context=2048, tp=4, method="draft",
                                 draft="llama-3.2-1b", draft_hardware="l4", k=int(row.k), alpha=0.8)
            assert p["spec"]["tokens_per_s_per_device"] == pytest.approx(row.tokens_per_s_per_device, rel=1e-12)
            assert p["spec"]["tokens_per_s_per_device"] == pytest.approx(p["spec"]["tokens_per_s"] / (4 + (row.k > 0)))
            from roofline.tables import predict_table

            said = next(x for x in predict_table(p).splitlines() if x.strip().startswith("tokens/s (batch)") and x.startswith("    "))
            assert said.endswith("per device, the drafter's included)" if row.k > 0 else "per device)"), said


@pytest.mark.slow
def test_quantised_weights_predicted_slower_than_bf16_ones_say_so():
    """qa371: fp8 weights on Qwen3-235B at batch 1 under vllm predicted 13.9 ms against bf16's 12.6 ms, said only by
    the latencies column; a precision choice acts on it."""
    from roofline.units import format_seconds

    fp8 = roofline.predict("h100-sxm", "qwen3-235b-a22b", tp=8, weight_dtype="fp8", batch=1)
    bf16 = roofline.predict("h100-sxm", "qwen3-235b-a22b", tp=8, weight_dtype="bf16", batch=1)
    assert bf16["step_time_s"] < fp8["step_time_s"] and bf16["fits_in_memory"]
    said = [w for w in fp8["warnings"] if "take a longer step here than bf16 ones" in w]
    assert len(said) == 1 and f"against {format_seconds(bf16['step_time_s'])})" in said[0], said
    assert "quantised MoE's efficiency" in said[0]
    assert not any("longer step here" in w for w in bf16["warnings"])
    dense = roofline.predict("h100-sxm", "llama-3.1-8b", weight_dtype="fp8", batch=8)  # faster than bf16: nothing said
    assert dense["step_time_s"] < roofline.predict("h100-sxm", "llama-3.1-8b", batch=8)["step_time_s"]
    assert not any("longer step here" in w for w in dense["warnings"])
    # qa376: a dense model's bf16 point was refused (an expert dtype given) and nothing said; on an A100 fp8 weights
    # are dequantised (no fp8 cores): the weight-only GEMMs' efficiency, not activation kernels, is why
    slow = roofline.predict("a100-sxm-80gb", "llama-3.1-8b", weight_dtype="fp8", batch=256)
    bf16 = roofline.predict("a100-sxm-80gb", "llama-3.1-8b", batch=256)
    assert bf16["step_time_s"] < slow["step_time_s"]
    said = [w for w in slow["warnings"] if "take a longer step here than bf16 ones" in w]
    assert len(said) == 1 and "weight-only GEMMs' efficiency" in said[0] and "quantise a GEMM's activations" not in said[0]
    assert "quantised MoE" not in said[0] and said[0].endswith("outweighs the bytes they save at batch 256"), said


@pytest.mark.slow
def test_a_memory_warning_gives_a_size_past_a_terabyte_its_prefix():
    """qa372: 'needs 13434896.1 GB per device' beside the table's 13.4 PB; sizes below 1 TB keep the engines' GB."""
    huge = roofline.predict("h100-sxm", "llama-3.1-8b", batch=100_000_000)
    assert any(w.startswith("does not fit in memory: needs 13.4 PB per device of 73.6 GB usable") for w in huge["warnings"])
    big = roofline.predict("h100-sxm", "llama-3.1-70b", batch=8)
    assert any(w.startswith("does not fit in memory: needs 143.8 GB per device of") for w in big["warnings"])
    tb = roofline.predict("h100-sxm", "llama-3.1-8b", batch=10_000)  # past 1 TB: its prefix (qa376: untested)
    needs = next(w for w in tb["warnings"] if w.startswith("does not fit in memory: needs "))
    assert needs.startswith(f"does not fit in memory: needs {tb['memory_needed_bytes'] / 1e12:.3g} TB per device"), needs


@pytest.mark.slow
def test_quantised_weights_as_fast_as_bf16_ones_say_nothing():
    """qa376's surviving mutant: the note is for a step longer than bf16's, not one as long (`>=`): at the bf16 step
    itself nothing is said, a hair above it the note is."""
    from roofline.api import _sixteen_bit_note
    from roofline.layout import deployment
    from roofline.serving import for_engine, load_engine

    hw, target = roofline.load_hardware("h100-sxm"), roofline.load_model("qwen3-235b-a22b")
    eng = load_engine("vllm").for_hardware(hw)
    dep = for_engine(deployment(target, "fp8", "bf16", 8, 1, 1, 1), eng, target)
    bf16_s = roofline.predict("h100-sxm", "qwen3-235b-a22b", tp=8, weight_dtype="bf16", batch=1, context=4096)["step_time_s"]
    args = (hw, target, 1, 4096, dep, eng)
    assert _sixteen_bit_note(*args, bf16_s, 0, 8, 1, 1, 1) == ""
    assert "take a longer step here than bf16 ones" in _sixteen_bit_note(*args, bf16_s * (1 + 1e-9), 0, 8, 1, 1, 1)


CHEAP = {"name": "cheap", "hardware": ["h100-sxm", "h200"], "model": "llama-3.1-8b", "engine": ["ideal", "vllm"],
         "method": "eagle", "axes": {"batch": [1, 8, 32, 64, 128], "context": [4096], "k": [0, 2, 4], "alpha": [0.8]}}


@pytest.mark.slow
def test_cheapest_answers_as_the_cli_does_on_the_same_table(roofline, tmp_path):
    """qa385: API.md's recipe (frontier.cheapest on a sweep) priced ideal's rows beside vllm's, every pick the bound,
    2-4x cheaper than any engine reaches; roofline.cheapest answers as `roofline cheapest` does."""
    import warnings

    import yaml

    import roofline as api

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = api.sweep(CHEAP)
    assert df.attrs["scenario"]["scenario"] == "cheap" and df.attrs["scenario"]["engine"] == ["ideal", "vllm"]
    got = api.cheapest(df, 100)
    picks = {kind: (row.engine, row.hardware, int(row.batch), int(row.k)) for kind, row in got["picks"].items()}
    assert picks == {"plain": ("vllm", "h100-sxm", 8, 0), "speculation": ("vllm", "h100-sxm", 64, 4)}
    assert set(got["frontier"]["engine"].astype(str)) == {"vllm"} and "ideal" not in set(got["table"]["engine"].astype(str))
    between = got["refined"]["plain"]["row"]
    assert (between.hardware, int(between.batch)) == ("h200", 23) and between.tokens_per_s_per_user >= 100
    (tmp_path / "cheap.yaml").write_text(yaml.safe_dump(CHEAP))
    assert roofline("sweep", tmp_path / "cheap.yaml", "--out", tmp_path / "out", "--no-plots")[0] == 0
    code, out, _ = roofline("cheapest", tmp_path / "out", "--min-tokens-per-user", "100")
    assert code == 0 and all(note in out for note in got["notes"][:2])  # ideal left out, the rows that do not fit
    assert f"${between.cost_usd_per_million_tokens:.3g} at {between.tokens_per_s_per_user:.3g} tokens/s per user: llama-3.1-8b on h200" in out
    assert "plain        $0.942 at 111 tokens/s per user: llama-3.1-8b on h100-sxm" in out  # the pick above, as printed
    assert f"{got['picks']['plain'].cost_usd_per_million_tokens:.3g}" == "0.942"
    for speed in (-1, float("inf")):  # inf as the command refuses it (qa411: taken here alone)
        with pytest.raises(RooflineError, match=r"^cheapest: min_tokens_per_user: expected a finite number of tokens/s per user of at least 0, found "):
            api.cheapest(df, speed)
    for option, value in (("serving", "yes"), ("between_batches", None)):  # true or false, as predict's (qa411)
        with pytest.raises(RooflineError, match=rf"^cheapest: {option}: expected true or false, found "):
            api.cheapest(df, 100, **{option: value})
    with pytest.raises(RooflineError, match=r"^cheapest: table: expected a pandas DataFrame \(roofline.sweep's\), found 'dict'$"):
        api.cheapest({}, 100)
    with pytest.raises(RooflineError, match=r"^cheapest: table: serving=True: expected a sweep of a scenario with prompt"):
        api.cheapest(df, 100, serving=True)
    for column in ("model", "engine", "k", "tp"):  # qa390: KeyError 'model', AttributeError 'tp' from deep inside
        with pytest.raises(RooflineError, match=rf"^cheapest: table: expected a sweep results table with column\(s\) {column}, "):
            api.cheapest(df.drop(columns=[column]), 100)
    with pytest.raises(RooflineError, match=r"^cheapest: table: fits_in_memory: expected true or false, found nothing"):
        api.cheapest(df.assign(fits_in_memory=None), 100)
    with pytest.raises(RooflineError, match=r"^cheapest: table: expected a sweep results table with at least one row, found none$"):
        api.cheapest(df.iloc[:0], 100)  # as the command refuses it (qa411: picks None, no note)
    assert api.cheapest(df, 0)["picks"]["plain"] is not None  # 0 taken, as --min-tokens-per-user 0 is (qa392)
    none = api.cheapest(df, 1e9)  # no row reaches it: said in the notes, every kind keyed (qa392: KeyError, unsaid)
    assert none["picks"] == {"plain": None, "speculation": None} and set(none["refined"]) == {"plain", "speculation"}
    assert any(n.startswith("plain: no row that fits reaches 1e+09 tokens/s per user (the fastest: ") for n in none["notes"])
    assert set(api.cheapest(df, 100, between_batches=False)["refined"]) == {"plain", "speculation"}


@pytest.mark.slow
def test_cheapest_leaves_out_a_draft_model_of_another_tokenizer_read_off_the_sweeps_attrs():
    """qa385: the API recipe picked TinyLlama drafting for Llama-3.1-70B, which no engine runs (the CLI: no such row)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-70b", "tp": 4, "method": "draft",
                             "draft": "tinyllama-1.1b", "axes": {"batch": [1, 16, 64], "k": [0, 4], "alpha": [0.8]}})
    got = roofline.cheapest(df, 30)
    assert got["picks"]["speculation"] is None and got["picks"]["plain"] is not None
    assert any(r.get("method") == "draft" for r in got["refused"])
    df.attrs.clear()  # without what was swept, the draft model is not known: it is not left out
    assert roofline.cheapest(df, 30)["picks"]["speculation"] is not None


@pytest.mark.slow
def test_every_sweep_warning_opens_with_the_scenario_as_the_cli_says_it(tmp_path):
    """qa385: of four warnings the CLI named with the scenario's file, the API named one (the break-even one)."""
    import warnings

    path = tmp_path / "named.yaml"
    path.write_text("name: named\nhardware: h200\nmodel: deepseek-v3\ndp_attention: 8\nep: 8\naxes:\n  batch: [1, 64]\n")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        roofline.sweep(str(path))
        roofline.sweep({"name": "mapped", "hardware": "h200", "model": "deepseek-v3", "dp_attention": 8, "ep": 8,
                        "axes": {"batch": [1, 64]}})
    said = [str(w.message) for w in seen if issubclass(w.category, roofline.errors.RooflineWarning)]
    assert any(m.startswith(f"{path}: dp_attention 8: at batches below 8") for m in said), said
    assert any(m.startswith("sweep: dp_attention 8: at batches below 8") for m in said), said
    assert all(m.startswith((f"{path}: ", "sweep: ")) for m in said) and len(said) == 4, said
    twice = tmp_path / "sc6.yaml"  # qa390's surviving mutant A3: a warning naming its file already, named again
    twice.write_text("name: sc6\nhardware: h100-sxm\nmodel: llama-3.1-8b\naxes:\n  batch: [1, 1, 8]\n")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        roofline.sweep(str(twice))
    said = [str(w.message) for w in seen if issubclass(w.category, roofline.errors.RooflineWarning)]
    assert said and all(m.startswith(f"{twice}: ") and not m.startswith(f"{twice}: {twice}") for m in said), said


def test_a_missing_yaml_file_given_by_its_name_is_said_not_found_not_an_unknown_profile(tmp_path, monkeypatch):
    """qa385: predict('nope.yaml', ...) said "unknown hardware 'nope.yaml'; closest: apple-m4-max, ..."."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RooflineError) as err:
        roofline.predict("nope.yaml", "llama-3.1-8b")
    assert str(err.value) == (f"predict: hardware: nope.yaml: hardware file not found (a path is read from the working "
                              f"directory, {tmp_path}, or in a scenario from the scenario file's folder first)")
    with pytest.raises(RooflineError, match=r"h100-sxm.yaml: hardware file not found .*; the hardware profile 'h100-sxm' is "
                                            r"named without .yaml$"):
        roofline.predict("h100-sxm.yaml", "llama-3.1-8b")


@pytest.mark.slow
def test_flops_time_is_the_steps_flops_at_the_derated_peak_of_their_dtype():
    """qa386: predict gave bytes_time_s and memory_time_s but no compute-side time: 'memory vs compute time' read the
    memory-bound operators' share (0.162 s) as the whole memory time and had no compute time to set beside it."""
    hw = roofline.load_hardware("h100-sxm")
    p = roofline.predict(hw, "llama-3.1-8b", batch=1024, context=128, engine="ideal")
    padded = sum(op["padded_flops"] for op in p["operators"].values())  # every operator bf16 here
    assert p["flops_time_s"] == pytest.approx(padded / (hw.peak_flops_per_s["bf16"] * hw.compute_efficiency_for("bf16")))
    assert p["bytes_time_s"] < p["flops_time_s"] < p["step_time_s"] and p["bound"] == "compute"
    small = roofline.predict(hw, "llama-3.1-8b", batch=1, context=128, engine="ideal")
    assert small["flops_time_s"] < 0.01 * small["bytes_time_s"]  # batch 1: the bytes set the step


@pytest.mark.slow
def test_flops_time_under_pp_is_the_steps_micro_batches_not_one():
    """qa466: at tp 4 pp 2 predict said '1.22 TFLOP a step ... the FLOPs alone take 768 us', one micro-batch's pass
    (1.22e12 / (989.4e12 x 0.8) = 1.54 ms); the busiest device runs m = min(B, pp) passes a step; at pp 61 with batch
    64 the micro-batches' mean was said as '1.04918 sequences'."""
    from roofline.tables import predict_table

    hw = roofline.load_hardware("h100-sxm")
    p = roofline.predict(hw, "llama-3.1-70b", batch=64, context=4096, tp=4, pp=2, engine="ideal")
    padded = 2 * sum(op["padded_flops"] for op in p["operators"].values())  # every operator bf16; two micro-batches
    assert p["flops_time_s"] == pytest.approx(padded / (989.4e12 * 0.8), rel=1e-9)
    assert p["flops_time_s"] == pytest.approx(p["flops"] / (989.4e12 * 0.8), rel=0.02)  # padding adds under 2% here
    one = roofline.predict(hw, "llama-3.1-70b", batch=1, context=4096, tp=4, pp=2, engine="ideal")  # m = min(1, 2) = 1
    assert one["flops_time_s"] == pytest.approx(sum(op["padded_flops"] for op in one["operators"].values()) / (989.4e12 * 0.8))
    deep = roofline.predict("h200", "deepseek-v3", batch=64, context=4096, tp=8, pp=61)
    assert "micro-batches of 1.05 sequences on average" in predict_table(deep)


@pytest.mark.slow
def test_a_drafter_on_a_device_of_its_own_is_said_a_what_if_under_a_serving_engine():
    """qa391: 'engine vllm' priced a Llama-3.2-1B drafter on an L4 beside 4 H100s, a placement vLLM, SGLang and
    TensorRT-LLM do not offer (their drafters run in the target's worker, on its GPUs), with no word."""
    args = dict(tp=4, method="draft", draft="llama-3.2-1b", alpha=0.8, batch=8)
    for engine in ("vllm", "sglang", "trtllm"):
        said = [w for w in roofline.predict("h100-sxm", "llama-3.1-70b", draft_hardware="l4", engine=engine, **args)["warnings"]
                if "what-if" in w]
        assert said == [f"a drafter on a device of its own (l4) is a what-if under {engine}: vLLM, SGLang and TensorRT-LLM run "
                        "a drafter on the target's own devices, in the target's worker (vLLM's proposer in its GPU model "
                        "runner, SGLang's draft worker on the scheduler's GPU), so no shipped engine runs this placement: the "
                        f"figures price what such a split would buy, with {engine}'s costs"], said
    assert not any("what-if" in w for w in roofline.predict("h100-sxm", "llama-3.1-70b", draft_hardware="l4",
                                                            engine="ideal", **args)["warnings"])  # the bound: no engine
    assert not any("what-if" in w for w in roofline.predict("h100-sxm", "llama-3.1-70b", **args)["warnings"])  # co-located


@pytest.mark.slow
def test_cheapest_between_batches_false_prices_the_swept_batches_alone():
    """qa390's surviving mutant R1: the CLI's --where batch=B turns refinement off; the API had no way to."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = roofline.sweep(CHEAP)
    assert roofline.cheapest(df, 100)["refined"]["plain"]["row"] is not None
    assert all(r["row"] is None for r in roofline.cheapest(df, 100, between_batches=False)["refined"].values())


@pytest.mark.slow
def test_cheapest_of_a_sweep_of_spec_objects_says_them_given_in_code_not_gone():
    """qa411: a sweep of renamed H100 spec objects (API.md's own recipe) was answered with 'unknown hardware
    'h100-fast'; closest: h100-sxm' for the batches between swept ones, and its prices marked '(its profile gone)'."""
    import warnings

    cheap = dataclasses.replace(roofline.load_hardware("h100-sxm"), name="h100-cheap", price_usd_per_hour=1.5)
    fast = dataclasses.replace(roofline.load_hardware("h100-sxm"), name="h100-fast", mem_bw_bytes_per_s=6e12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = roofline.sweep({"name": "t", "hardware": [cheap, fast, "h200"], "model": "llama-3.1-8b",
                             "axes": {"batch": [1, 8, 64], "context": [2048]}})
        got = roofline.cheapest(df, 100)
    text = " ".join(got["notes"])
    assert "unknown hardware" not in text and "its profile gone" not in text, text
    assert "its hardware h100-cheap is a spec object given in code, which no profile describes" in text, text
    assert "h100-cheap $1.50 (yours)" in text, text


def test_a_sweep_says_a_spec_objects_warning_once_not_again_for_its_file(tmp_path):
    """qa411: a spec object read from a copy with an unknown family was warned twice by one sweep, as the object
    ('hardware spec ...') and as its file read again by name; API.md says each distinct warning once."""
    import warnings

    text = (Path(__file__).resolve().parents[1] / "hardware_profiles" / "h100-sxm.yaml").read_text()
    (tmp_path / "myh100.yaml").write_text(text.replace("name: h100-sxm", "name: myh100") + "family: zzz-unknown\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hw = roofline.load_hardware(str(tmp_path / "myh100.yaml"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        roofline.sweep({"name": "t", "hardware": hw, "model": "llama-3.1-8b", "axes": {"batch": [1], "context": [1024]}},
                       profiles=(tmp_path,))
    said = [str(w.message) for w in caught if "zzz-unknown" in str(w.message)]
    assert len(said) == 1, said


@pytest.mark.slow
def test_predict_gives_the_tp_collectives_message_sizes_a_hand_check_takes():
    """Session 64 (session 62's leftover "collective message sizes not printed"): predict priced the tp collectives
    and said neither how many nor how large. Llama 3.1 70B (80 layers, h 8192, V 128256) at tp 4, batch 8: two
    all-reduces a layer of M = 8 x 8192 x 2 B, the embedding's of M, and each device's quarter of the logits; under
    ideal (each collective the link's latency + 2 M (tp - 1) / tp over its bytes/s) they add up to the priced time."""
    from roofline.hardware import load_hardware

    p = roofline.predict("h100-sxm", "llama-3.1-70b", batch=8, tp=4, engine="ideal")
    c = p["tp_collectives"]
    m_bytes = 8 * 8192 * 2
    assert c == {"count": 160, "sequence_parallel_moe": None, "allreduce_message_bytes": m_bytes,
                 "embedding_allreduce_message_bytes": m_bytes, "lm_head_gather_message_bytes": 8 * 128256 * 2 / 4}
    hw = load_hardware("h100-sxm")
    link_bytes_per_s, latency_s = p["tp_link_bytes_per_s"], hw.link_latency_s
    allreduce_s = latency_s + 2 * m_bytes * 3 / 4 / link_bytes_per_s
    gather_s = latency_s + 8 * 128256 * 2 * 3 / 4 / link_bytes_per_s  # one ring pass of the whole logits
    assert p["allreduce_time_s"] == pytest.approx(161 * allreduce_s + gather_s, rel=1e-6)
    assert roofline.predict("h100-sxm", "llama-3.1-70b", batch=8)["tp_collectives"] is None  # tp 1: none
    # qa417: vLLM's sequence-parallel MoE on DeepSeek-V3 (61 layers, 58 MoE, h 7168) at tp 2, dp-attention 8: two
    # all-reduces a layer less the MoE layers' second (64), each MoE layer's first split in two, one latency more
    # (58): priced as 64 all-reduces of M = 8 x 7168 x 2 and 58 latencies
    p = roofline.predict("h200", "deepseek-v3", batch=64, tp=2, dp_attention=8, ep=8)
    c = p["tp_collectives"]
    assert c["count"] == 122 and c["sequence_parallel_moe"] == {"kind": "reduce_scatter", "count": 58}
    assert c["allreduce_message_bytes"] == 8 * 7168 * 2
    allreduce_s = 10e-6 + 2 * 8 * 7168 * 2 / 2 / p["tp_link_bytes_per_s"]  # vllm's 10 us, half the bytes each way
    head_s = 10e-6 + 8 * 129280 * 2 / 2 / p["tp_link_bytes_per_s"]  # the logits' gather, one ring pass
    assert p["allreduce_time_s"] == pytest.approx(65 * allreduce_s + 58 * 10e-6 + head_s, rel=1e-6)
    # qa416: under SGLang's attention DP (tp 2, 4 groups) an MoE layer's second all-reduce is its gather's
    # reduce-scatter and a dense layer's the stage-split MLP's: 2 x 61 - 58 - 3 = 61; the embedding held whole and the
    # LM head split over the stage, so neither is a tp collective (absent, not 0); M = ceil(16 / 4) x 7168 x 2
    assert roofline.predict("h200", "deepseek-v3", batch=16, tp=2, dp_attention=4, ep=8, engine="sglang")[
        "tp_collectives"] == {"count": 61, "sequence_parallel_moe": None, "allreduce_message_bytes": 4 * 7168 * 2}
    # vLLM's sequence-parallel MoE on a GQA MoE (Qwen3-30B-A3B, 48 MoE layers): an all-gather more a MoE layer
    c = roofline.predict("h100-sxm", "qwen3-30b-a3b", batch=16, tp=2, dp_attention=2, ep=4)["tp_collectives"]
    assert c["count"] == 96 and c["sequence_parallel_moe"] == {"kind": "all_gather", "count": 48}
    assert c["allreduce_message_bytes"] == 8 * 2048 * 2


def test_a_layout_degree_given_as_an_array_says_to_sweep_it():
    """qa440: predict(tp=np.array([2])) said 'expected an integer in 1..4096, found [2]', without the hint batch's
    refusal gives; one integer, a numpy one or a 0-d array, is still taken."""
    for name, value in (("tp", np.array([2])), ("ep", [2]), ("pp", (2,)), ("dp_attention", pd.Series([2])), ("tp", range(2, 3))):
        with pytest.raises(RooflineError, match=rf"^predict: {name}: expected one integer \(use roofline.sweep for arrays\), found \[2\]$"):
            roofline.predict("h100-sxm", "llama-3.1-8b", 1, **{name: value})
    assert roofline.predict("h100-sxm", "llama-3.1-70b", 1, tp=np.array(2))["step_time_s"] == roofline.predict(
        "h100-sxm", "llama-3.1-70b", 1, tp=np.int64(2))["step_time_s"] == roofline.predict("h100-sxm", "llama-3.1-70b", 1, tp=2)["step_time_s"]


def test_predict_says_a_qk_norm_over_all_heads_apart_from_the_layers_all_reduces():
    """qa447: MiniMax-M2.7 at tp 8, batch 1: 124 all-reduces of M = 3072 x 2 bytes and 62 of its QK norm's q and k sums
    of squares, 2 x 4 bytes a token: predict's tp_collectives and text say them apart (186 'of 6.14 kB each' before)."""
    from roofline.tables import predict_table

    p = roofline.predict("h100-sxm", "minimax-m2.7", batch=1, tp=8, ep=8, engine="sglang")
    c = p["tp_collectives"]
    assert c["count"] == 186 and c["qk_norm"] == {"count": 62, "message_bytes": 8.0} and c["allreduce_message_bytes"] == 6144
    assert "124 all-reduces a pass of 6.14 kB each, 62 more of the QK norm's sums of squares, 8 B each" in predict_table(p)
    assert "qk_norm" not in roofline.predict("h100-sxm", "llama-3.1-70b", batch=1, tp=4)["tp_collectives"]
