import math

import pytest
import yaml

from roofline.errors import RooflineError
from roofline.hardware import hardware_from_dict, load_hardware
from roofline.profiles import builtin_dir, list_names

REQUIRED_DEVICES = [
    "a100-sxm-80gb", "a100-pcie-40gb", "h100-sxm", "h100-pcie", "h200", "b200", "gb200", "b300", "l4", "l40s",
    "a10g", "rtx-4090", "rtx-5090", "mi300x", "mi325x", "mi355x", "tpu-v5e", "tpu-v6e", "gaudi-3",
    "apple-m4-max", "epyc-9654",
]


def base_profile():
    return yaml.safe_load((builtin_dir("hardware") / "h100-sxm.yaml").read_text())


def test_every_required_device_has_a_profile_that_loads():
    names = list_names("hardware")
    for device in REQUIRED_DEVICES:
        assert device in names
        hw = load_hardware(device)
        assert hw.source and hw.notes
        assert all(math.isfinite(v) and v > 0 for v in hw.peak_flops_per_s.values())


def test_h100_bf16_ridge_point_is_about_295_flop_per_byte(h100):
    # 989.4 TFLOP/s dense bf16 / 3.35 TB/s = 295.3 FLOP/byte
    assert h100.ridge_point_flops_per_byte("bf16") == pytest.approx(295.3, abs=0.1)


def test_h100_profile_holds_dense_not_sparse_peaks(h100):
    assert h100.peak_flops_per_s["bf16"] == pytest.approx(989.4e12)
    assert h100.peak_flops_per_s["fp8"] == pytest.approx(1978.9e12)


def test_int4_weights_compute_in_bf16_and_missing_fp8_falls_back(h100):
    a100 = load_hardware("a100-sxm-80gb")
    assert h100.compute_dtype("int4") == "bf16"
    assert a100.compute_dtype("fp8") == "bf16"
    assert h100.compute_dtype("fp8") == "fp8"


@pytest.mark.parametrize("field, value, expected", [
    ("memory_bandwidth", "3.35 TB", "memory_bandwidth"),
    ("memory", -80, "memory"),
    ("memory", "0 GB", "memory"),
    ("step_overhead", ".nan us", "step_overhead"),
    ("kind", "fpga", "kind"),
])
def test_a_bad_field_is_one_line_naming_file_and_field(field, value, expected):
    data = base_profile()
    data[field] = value
    with pytest.raises(RooflineError) as err:
        hardware_from_dict(data, "my.yaml")
    message = str(err.value)
    assert message.startswith(f"my.yaml: {expected}: expected") and "\n" not in message


def test_a_missing_field_and_an_efficiency_above_one_are_rejected():
    data = base_profile()
    del data["source"]
    with pytest.raises(RooflineError, match="source: expected a required field"):
        hardware_from_dict(data, "x.yaml")
    data = base_profile()
    data["efficiency"]["memory"] = 1.5
    with pytest.raises(RooflineError, match=r"efficiency.memory: expected a fraction in \(0, 1\]"):
        hardware_from_dict(data, "x.yaml")


def test_an_unknown_name_suggests_the_closest_profiles():
    with pytest.raises(RooflineError) as err:
        load_hardware("h100-sxn")
    assert "h100-sxm" in str(err.value)


def test_a_user_folder_profile_is_found_and_wins_over_builtin(tmp_path, monkeypatch):
    data = base_profile()
    data["name"] = "my-gpu"
    data["memory_bandwidth"] = "1 TB/s"
    (tmp_path / "my-gpu.yaml").write_text(yaml.safe_dump(data))
    monkeypatch.setenv("ROOFLINE_PATH", str(tmp_path))
    assert load_hardware("my-gpu").mem_bw_bytes_per_s == 1e12
    assert "my-gpu" in list_names("hardware")
