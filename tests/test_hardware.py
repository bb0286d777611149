import dataclasses
import math
from pathlib import Path

import pytest
import yaml

from roofline.errors import RooflineError, RooflineWarning
from roofline.hardware import check_hardware_spec, hardware_from_dict, load_hardware
from roofline.profiles import builtin_dir, list_names
from roofline.yamlio import read_yaml_file

REQUIRED_DEVICES = [
    "a100-sxm-80gb", "a100-pcie-40gb", "h100-sxm", "h100-pcie", "h200", "b200", "gb200", "b300", "l4", "l40s",
    "a10g", "rtx-4090", "rtx-5090", "mi300x", "mi325x", "mi355x", "tpu-v5e", "tpu-v6e", "gaudi-3",
    "apple-m4-max", "epyc-9654",
]


def base_profile():
    return read_yaml_file(builtin_dir("hardware") / "h100-sxm.yaml")  # a fresh copy each call


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
    with pytest.raises(RooflineError, match=r"efficiency.memory: expected a fraction in \[0.01, 1\]"):
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


def test_every_shipped_hardware_spec_passes_its_check_unchanged():
    for name in list_names("hardware"):
        spec = load_hardware(name)
        assert check_hardware_spec(spec) is spec


@pytest.mark.parametrize("change, message", [
    ({"mem_bw_bytes_per_s": -1}, "mem_bw_bytes_per_s: expected a positive finite number (bytes/s), found -1"),
    ({"mem_efficiency": 5.0}, "mem_efficiency: expected a fraction in [0.01, 1], found 5.0"),
    ({"peak_flops_per_s": {}}, "peak_flops_per_s: expected a mapping of dtype to FLOP/s (at least one dtype), found {}"),
    ({"peak_flops_per_s": {"bf16": float("nan")}}, "peak_flops_per_s.bf16: expected a positive finite number (FLOP/s), found nan"),
    ({"peak_flops_per_s": {"BF16": 1e15}}, "peak_flops_per_s.BF16: expected a dtype key among fp32, tf32, bf16"),
    ({"peak_flops_per_s": {"fp8": 1e15}}, "peak_flops_per_s: expected at least a bf16 or fp32 peak, found ['fp8']"),
    ({"peak_flops_per_s": {"bf16": 2e15, "fp8": 1e15}}, "peak_flops_per_s.bf16: expected at most the fp8 figure"),
    ({"mem_bytes": "80 GB"}, "mem_bytes: expected a positive finite number (bytes), found '80 GB'"),
    ({"link_latency_s": float("inf")}, "link_latency_s: expected a positive finite number (s), found inf"),
    ({"step_overhead_s": -1.0}, "step_overhead_s: expected a non-negative finite number (s), found -1.0"),  # 0: no fixed cost
    ({"layer_overhead_s": -1e-6}, "layer_overhead_s: expected a non-negative finite number (s), found -1e-06"),
    ({"price_usd_per_hour": True}, "price_usd_per_hour: expected a positive finite number (USD/h), found true"),
    ({"usable_memory_fraction": 0}, "usable_memory_fraction: expected a fraction in [0.01, 1], found 0"),
    ({"compute_efficiency_by_dtype": {"fp8": 1.2}}, "compute_efficiency_by_dtype.fp8: expected a fraction in [0.01, 1], found 1.2"),
    ({"compute_efficiency_by_dtype": {"bf16": 0.5}}, "compute_efficiency_by_dtype.bf16: expected one of fp8, fp4, int8"),
    ({"scale_up_domain": True}, "scale_up_domain: expected a device count in 1..100000, found true"),
    ({"scale_up_domain": 2.0}, "scale_up_domain: expected a device count in 1..100000, found 2.0"),
    ({"scale_out_latency_s": None}, "scale_out_latency_s: expected scale_out_bw_bytes_per_s and scale_out_latency_s together"),
    ({"overlap_exponent": 0.5}, "overlap_exponent: expected a number >= 1 (or absent for the pure max), found 0.5"),
    ({"kind": "fpga"}, "kind: expected one of gpu|tpu|accelerator|cpu|soc, found 'fpga'"),
    ({"measured": "no"}, "measured: expected true or false, found 'no'"),
    ({"display_name": ""}, "display_name: expected a non-empty string, found ''"),
])
def test_a_hardware_spec_built_in_python_is_checked_like_a_profile(h100, change, message):
    with pytest.raises(RooflineError) as err:
        check_hardware_spec(dataclasses.replace(h100, **change))
    assert str(err.value).startswith(f"hardware spec 'h100-sxm': {message}") and "\n" not in str(err.value)


def test_the_spec_check_and_the_profile_loader_share_their_rules(h100):
    data = base_profile()
    data["efficiency"]["link"] = 5.0
    with pytest.raises(RooflineError, match=r"^x.yaml: efficiency.link: expected a fraction in \[0.01, 1\], found 5.0$"):
        hardware_from_dict(data, "x.yaml")
    with pytest.raises(RooflineError, match=r"^hardware spec 'h100-sxm': link_efficiency: expected a fraction in \[0.01, 1\], found 5.0$"):
        check_hardware_spec(dataclasses.replace(h100, link_efficiency=5.0))
    data = base_profile()
    data["peak_flops"] = {"BF16": "2000 TFLOP/s", "fp8": "1000 TFLOP/s"}
    with pytest.raises(RooflineError, match=r"^x.yaml: peak_flops.bf16: expected at most the fp8 figure \(1000 TFLOP/s;"):
        hardware_from_dict(data, "x.yaml")
    data = base_profile()
    data["peak_flops"] = {}
    with pytest.raises(RooflineError, match=r"^x.yaml: peak_flops: expected a mapping of dtype to FLOP/s"):
        hardware_from_dict(data, "x.yaml")


def test_something_other_than_a_spec_is_one_line():
    with pytest.raises(RooflineError, match="^hardware: expected a HardwareSpec or a profile name, found dict$"):
        check_hardware_spec({"name": "h100-sxm"})


def test_a_mesh_device_reaches_each_peer_over_one_link():
    """MI300X's 448 GB/s is 7 xGMI links of 64 GB/s, one per peer: TP 2 priced its all-reduce on all seven (3x too fast)."""
    mi300x = load_hardware("mi300x")
    assert mi300x.mesh_links == 7
    for devices, links in ((1, 1), (2, 1), (4, 3), (8, 7)):
        assert mi300x.link_for(devices)[0] == pytest.approx(448e9 * links / 7 * mi300x.link_efficiency)
    h100 = load_hardware("h100-sxm")  # a switch: any group at the full link
    assert h100.mesh_links == 0 and h100.link_for(2) == h100.link_for(8)
    data = {**read_yaml_file(builtin_dir("hardware") / "mi300x.yaml"), "mesh_links": 3}
    with pytest.raises(RooflineError, match=r"mesh_links: expected scale_up_domain - 1 = 7 links \(a fully connected mesh; link_bandwidth"):
        hardware_from_dict(data, "m.yaml")


def test_int8_takes_the_achievable_share_of_the_dtype_at_its_peak_where_the_profile_gives_none_of_its_own():
    """qa253: W8A8 on an MI300X took bf16's 0.54 where fp8, at the same 2.6 POP/s on the same matrix cores, has AMD's
    own 0.49; a figure of int8's own is kept, and a device with no figure at that peak keeps bf16's."""
    mi300x, h100, l4 = load_hardware("mi300x"), load_hardware("h100-sxm"), load_hardware("l4")
    assert mi300x.compute_efficiency_for("int8") == mi300x.compute_efficiency_for("fp8") == 0.49
    assert h100.compute_efficiency_for("int8") == 0.71 and h100.compute_efficiency_for("bf16") == 0.80
    assert l4.compute_efficiency_for("int8") == l4.compute_efficiency == 0.70  # no fp8 figure: bf16's
    gaudi = load_hardware("gaudi-3")  # bf16 and fp8 at one 1835 TFLOP/s: bf16 keeps its own figure (qa257: it took fp8's)
    assert gaudi.compute_efficiency_for("bf16") == 0.68 and gaudi.compute_efficiency_for("fp8") == 0.70
    own = dataclasses.replace(mi300x, compute_efficiency_by_dtype={"fp8": 0.49, "int8": 0.6})
    assert own.compute_efficiency_for("int8") == 0.6
    assert mi300x.compute_ceiling_flops_per_s("int8") == pytest.approx(2614.9e12 * 0.49)


def test_a_torus_group_drives_the_ports_of_the_slice_it_is_cut():
    """qa253: a TPU's collectives were given all 4 ICI ports for any tp (link_bandwidth is their sum), 2-4x optimistic
    over a slice that spans an axis without its wrap-around link (jax-ml/scaling-book tpus.md: a v5e 4 x 4 slice uses
    "2 of the 4 ICI links"); a pair shares one port, the whole pod drives all four."""
    from roofline.hardware import torus_ports, torus_slice

    assert [tuple(sorted(torus_slice((16, 16), n))) for n in (2, 4, 8, 16, 128, 256, 12)] == [
        (1, 2), (2, 2), (2, 4), (4, 4), (8, 16), (16, 16), (3, 4)]
    assert torus_slice((16, 16), 17) is None and torus_ports((16, 16), 17) == 2
    assert [torus_ports((16, 16), n) for n in (1, 2, 4, 8, 64, 128, 256)] == [1, 1, 2, 2, 2, 3, 4]
    assert [torus_ports((4, 4, 4), n) for n in (8, 16, 64)] == [3, 4, 6]  # a 4x4x4 cube: 2x2x2 lines, 4x4x1 two rings
    # qa257: a greedy search missed the whole of a 4 x 6 torus, and its answer hung on the axes' order
    assert torus_slice((4, 6), 24) == (4, 6) and torus_slice((6, 4), 24) == (6, 4)
    assert torus_ports((4, 6), 24) == torus_ports((6, 4), 24) == 4 and torus_ports((8, 12), 96) == 4
    assert torus_ports((16, 16, 24), 16 * 16 * 24) == 6 and torus_slice((16, 16), 240) in ((16, 15), (15, 16))
    v5e = load_hardware("tpu-v5e")
    assert v5e.torus_shape == (16, 16)
    for devices, ports in ((1, 1), (2, 1), (4, 2), (16, 2), (128, 3), (256, 4)):
        assert v5e.link_for(devices)[0] == pytest.approx(200e9 * ports / 4 * v5e.link_efficiency)
    assert load_hardware("tpu-v6e").link_for(8)[0] == pytest.approx(400e9 / 2 * 0.75)
    data = read_yaml_file(builtin_dir("hardware") / "tpu-v5e.yaml")
    assert hardware_from_dict({**data, "torus": [16, 16.0]}, "t.yaml").torus_shape == (16, 16)
    for torus, expected in (("8x8", r"torus: expected axes whose product is scale_up_domain = 256 .*8x8 = 64 chips"),
                            ("16y16", r"torus: expected a torus's 1-3 axes of 2 to 100,000 chips, like \[16, 16\] or '16x16', found '16y16'"),
                            ([1, 256], r"torus: expected a torus's 1-3 axes")):
        with pytest.raises(RooflineError, match=r"^t.yaml: " + expected):
            hardware_from_dict({**data, "torus": torus}, "t.yaml")
    assert hardware_from_dict({**data, "scale_up_domain": 8, "torus": 8}, "t.yaml").torus_shape == (8,)  # one ring
    for bad in ([], "²x8", "16x１６", 1e300):  # qa258: [] dropped the torus unsaid; qa257: '²' raised a ValueError; qa262
        with pytest.raises(RooflineError, match=r"^t.yaml: torus: expected a torus's 1-3 axes"):
            hardware_from_dict({**data, "scale_up_domain": 16, "torus": bad}, "t.yaml")
    with pytest.raises(RooflineError, match=r"torus: expected it only without mesh_links"):
        hardware_from_dict({**data, "scale_up_domain": 8, "mesh_links": 7, "torus": "2x4"}, "t.yaml")


@pytest.mark.slow
def test_a_devices_fixed_costs_may_be_zero_as_their_defaults_are_and_the_schema_agrees(tmp_path):
    """layer_overhead (documented default 0) and step_overhead were refused at '0 us': a device with the pure roofline
    could not be described."""
    import json
    from pathlib import Path

    import jsonschema

    from roofline.schema import hardware_schema

    data = yaml.safe_load(Path(load_hardware("h100-sxm").path).read_text())
    for zero in ("0 us", "0", 0, "0.0 ms"):
        hw = hardware_from_dict({**data, "step_overhead": zero, "layer_overhead": zero}, "x.yaml")
        assert hw.step_overhead_s == 0.0 and hw.layer_overhead_s == 0.0
        jsonschema.validate(json.loads(json.dumps({**data, "step_overhead": zero, "layer_overhead": zero})), hardware_schema())
    with pytest.raises(RooflineError, match=r"^x.yaml: step_overhead: expected a finite time of 0 or more like '20 us', found '-1 us'$"):
        hardware_from_dict({**data, "step_overhead": "-1 us"}, "x.yaml")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**data, "step_overhead": "-1 us"}, hardware_schema())


def test_a_profiles_device_counts_written_as_whole_floats_are_read_as_the_schema_reads_them():
    """`mesh_links: 7.0` passed the JSON schema (7.0 is an integer there) and was refused by the tool."""
    data = read_yaml_file(builtin_dir("hardware") / "mi300x.yaml")
    hw = hardware_from_dict({**data, "mesh_links": 7.0, "scale_up_domain": 8.0}, "x.yaml")
    assert (hw.mesh_links, hw.scale_up_domain) == (7, 8) and isinstance(hw.mesh_links, int)
    with pytest.raises(RooflineError, match=r"^x.yaml: mesh_links: expected a link count >= 0"):
        hardware_from_dict({**data, "mesh_links": 7.5}, "x.yaml")


@pytest.mark.slow
def test_a_renamed_copy_of_a_device_keeps_its_engine_family(tmp_path):
    """`hw new amd-mi300x --from mi300x` took NVIDIA's engine values (the engines' overrides glob the name: mi*): 80.3
    ms became 62.7 ms for DeepSeek-V3 with SGLang, every hardware field equal."""
    import roofline
    from roofline.editing import new_profile

    new_profile("hardware", "amd-mi300x", "mi300x", [], out_dir=tmp_path)
    copy = load_hardware("amd-mi300x", (tmp_path,))
    assert copy.family == "mi300x" and copy.engine_family == "mi300x" and load_hardware("mi300x").engine_family == "mi300x"
    steps = [roofline.predict(h, "deepseek-v3", 256, 4096, tp=8, engine="sglang", profiles=(tmp_path,))["step_time_s"]
             for h in ("mi300x", "amd-mi300x")]
    assert steps[0] == pytest.approx(steps[1], rel=1e-12)
    assert roofline.load_engine("sglang").for_hardware(copy).kernel_latency_s == roofline.load_engine("sglang").for_hardware("mi300x").kernel_latency_s


def test_an_fp4_peak_below_the_8_or_16_bit_one_is_refused():
    """peak_flops.fp4 = 20 TFLOP/s on an MI355X copy loaded; only bf16 above fp8 was refused."""
    import yaml as _yaml

    from roofline.profiles import builtin_dir

    data = _yaml.safe_load((builtin_dir("hardware") / "mi355x.yaml").read_text())
    data["peak_flops"]["fp4"] = "20 TFLOP/s"
    with pytest.raises(RooflineError, match=r"peak_flops.fp4: expected at least the fp8 figure"):
        hardware_from_dict(data, "m.yaml")


@pytest.mark.slow
def test_a_spec_renamed_in_python_or_a_family_in_capitals_keeps_the_engine_values(tmp_path, roofline):
    """dataclasses.replace(mi300x, name='amd-6tb') took NVIDIA's engine values (family fell back to the new name);
    `family: MI300X` did too (the globs are lowercase); family=3 on a spec raised a TypeError."""
    import dataclasses

    import roofline as api

    mi = load_hardware("mi300x")
    steps = {api.predict(h, "llama-3.1-70b", tp=8)["step_time_s"] for h in (mi, dataclasses.replace(mi, name="amd-6tb"))}
    assert len(steps) == 1
    with pytest.raises(RooflineError, match=r"family: expected a string, found 3"):
        api.predict(dataclasses.replace(mi, name="amdz", family=3), "llama-3.1-8b")
    code, _, err = roofline("hw", "new", "my-amd", "--from", "mi300x", "--set", "family=MI300X", "--dir", tmp_path)
    assert code == 0, err
    assert load_hardware("my-amd", (tmp_path,)).engine_family == "mi300x"
    code, out, _ = roofline("hw", "show", "my-amd", "--profiles", tmp_path)
    assert "engine family mi300x" in out.splitlines()[0]


@pytest.mark.slow
def test_a_family_that_names_no_profile_is_warned(tmp_path):
    """`family: nvidia` loaded without a word and matched no engine glob: the device took the engine's general values."""
    from roofline.editing import new_profile
    from roofline.errors import RooflineWarning

    new_profile("hardware", "my-amd", "mi300x", ["family=nvidia"], out_dir=tmp_path)
    with pytest.warns(RooflineWarning, match=r"family: 'nvidia' names no hardware profile"):
        load_hardware("my-amd", (tmp_path,))
    new_profile("hardware", "my-amd2", "mi300x", [], out_dir=tmp_path)  # family mi300x: a profile's name, no word
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", RooflineWarning)
        assert load_hardware("my-amd2", (tmp_path,)).engine_family == "mi300x"
        # qa388: a documented alias, `family: H100`, was said to name no profile: it names h100-sxm
        new_profile("hardware", "my-h", "h100-sxm", ["family=H100"], out_dir=tmp_path)
        assert load_hardware("my-h", (tmp_path,)).engine_family == "h100-sxm"


def test_an_efficiency_too_small_to_be_one_is_refused():
    """efficiency.memory=1e-300 loaded and priced a step at 4.5e297 s; engine profiles bound theirs at 0.01 already."""
    data = read_yaml_file(builtin_dir("hardware") / "h100-sxm.yaml")
    data["efficiency"] = {**data["efficiency"], "memory": 1e-300}
    with pytest.raises(RooflineError, match=r"efficiency.memory: expected a fraction in \[0.01, 1\], found 1e-300"):
        hardware_from_dict(data, "h.yaml")


@pytest.mark.slow
def test_a_family_that_names_no_profile_is_said_where_the_profile_is_written_and_validated(tmp_path, roofline):
    """`hw new x4 --from mi300x --set family=amd` wrote the file and `hw validate` said ok, while the device had lost
    AMD's engine values; only predict warned (qa80)."""
    code, _, err = roofline("hw", "new", "x4", "--from", "mi300x", "--set", "family=amd", "--dir", tmp_path)
    assert code == 0 and "family: 'amd' names no hardware profile" in err
    code, out, err = roofline("hw", "validate", tmp_path / "x4.yaml")
    assert code == 0 and out.startswith("ok") and "family: 'amd' names no hardware profile" in err
    code, _, err = roofline("hw", "new", "x5", "--from", "mi300x", "--dir", tmp_path)
    assert code == 0 and "names no hardware profile" not in err  # a copy keeps family mi300x: nothing to say


def test_nvfp4_weights_take_the_fp4_peak_only_where_the_fp4_units_take_nvfp4():
    """NVFP4 on an MI355X was priced at its 10 PFLOP/s fp4 peak ('nvfp4 weights compute in fp4'), which CDNA4's scaled
    MFMA (MX E8M0 scales only) does not run: vLLM emulates it there (qa80). `fp4_formats: [mxfp4]` makes it weight-only."""
    import dataclasses

    import yaml as _yaml

    import roofline
    from roofline.hardware import FP4_FORMATS, check_hardware_spec, hardware_from_dict
    from roofline.profiles import builtin_dir

    mi355x, b200 = load_hardware("mi355x"), load_hardware("b200")
    assert mi355x.fp4_formats == ("mxfp4",) and b200.fp4_formats == FP4_FORMATS
    assert mi355x.compute_dtype("nvfp4") == "bf16" and mi355x.compute_dtype("fp4") == "fp4" and b200.compute_dtype("nvfp4") == "fp4"
    said = roofline.predict("mi355x", "llama-3.1-70b", tp=8, weight_dtype="nvfp4")["warnings"]
    assert any(w.startswith("nvfp4 weights on mi355x: its fp4 units take MXFP4 only") for w in said)
    data = _yaml.safe_load((builtin_dir("hardware") / "mi300x.yaml").read_text())
    for value, message in ((["mxfp4"], r"fp4_formats: expected an fp4 peak in peak_flops"), (["fp6"], r"fp4_formats: expected a list of mxfp4, nvfp4, found 'fp6'"),
                           ([], r"fp4_formats: expected a list of mxfp4, nvfp4")):
        with pytest.raises(RooflineError, match=message):
            hardware_from_dict({**data, "fp4_formats": value}, "x.yaml")
    with pytest.raises(RooflineError, match=r"fp4_formats: expected an fp4 peak"):
        check_hardware_spec(dataclasses.replace(load_hardware("mi300x"), fp4_formats=("mxfp4",)))
    with pytest.raises(RooflineError, match=r"fp4_formats: expected a tuple of mxfp4, nvfp4"):  # a spec's names are canonical (qa83)
        check_hardware_spec(dataclasses.replace(mi355x, fp4_formats=("MXFP4",)))
    nv_only = dataclasses.replace(b200, fp4_formats=("nvfp4",))  # its fp4 row's ridge is the fp4 peak's, not bf16's
    assert nv_only.to_json()["ridge_point_flops_per_byte"]["fp4"] == b200.peak_flops_per_s["fp4"] / b200.mem_bw_bytes_per_s
    # qa389: the derated ridges predictions use, as `hw show` prints them, in its JSON too
    derated = load_hardware("h100-sxm").to_json()["derated_ridge_point_flops_per_byte"]
    assert derated["bf16"] == pytest.approx(989.4e12 * 0.80 / (3.35e12 * 0.85), rel=1e-12)
    assert derated["fp8"] == load_hardware("h100-sxm").ridge_point_flops_per_byte("fp8", derated=True)


def test_a_fixed_overhead_far_beyond_any_devices_is_said_as_a_unit_slip():
    """`hw set ... step_overhead=20 s` (for 20 us) loaded in silence, and predict called a step of 20 s memory-bound
    (qa98)."""
    import warnings

    import yaml

    from roofline.errors import RooflineWarning
    from roofline.hardware import hardware_from_dict
    from roofline.profiles import builtin_dir

    data = yaml.safe_load((builtin_dir("hardware") / "h100-sxm.yaml").read_text())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hardware_from_dict({**data, "step_overhead": "20 s"}, "h.yaml")
        hardware_from_dict({**data, "step_overhead": "254 us", "layer_overhead": "344 us"}, "cpu.yaml")  # a CPU's, measured
    said = [str(w.message) for w in caught if issubclass(w.category, RooflineWarning)]
    assert said == ["h.yaml: step_overhead: 20 s is over 10 ms, where GPUs measure tens of microseconds and a CPU's eager "
                    "PyTorch hundreds: a unit slip?"]
    with warnings.catch_warnings(record=True) as caught:  # a calibration's own: a loaded machine, not a typing slip (qa113)
        warnings.simplefilter("always")
        hardware_from_dict({**data, "measured": True, "layer_overhead": "30.6 ms"}, "m.yaml")
    said = [str(w.message) for w in caught if issubclass(w.category, RooflineWarning)]
    assert said == ["m.yaml: layer_overhead: 30.6 ms is over 5 ms, where GPUs measure tens of microseconds and a CPU's eager "
                    "PyTorch hundreds: measured so: other work likely shared the machine while it was calibrated (calibrate "
                    "again on a quiet one)"]


def test_the_no_p2p_h100_pcie_profile_is_h100_pcie_but_for_its_link():
    """Session 33 (qa154): two H100 PCIe without GPU peer-to-peer run NCCL's all-reduces through host memory, about
    20 GB/s and 15 us where the P2P profile says 54.4 GB/s and 10 us; everything else, and its engine family, is
    h100-pcie's (an engine's overrides for h100-pcie apply to it)."""
    p2p, no_p2p = load_hardware("h100-pcie"), load_hardware("h100-pcie-no-p2p")
    assert no_p2p.engine_family == "h100-pcie"
    assert no_p2p.link_for(2)[0] == pytest.approx(64e9 * 0.31) and no_p2p.link_for(2)[1] == pytest.approx(15e-6)
    assert p2p.link_for(2)[0] == pytest.approx(64e9 * 0.85) and p2p.link_for(2)[1] == pytest.approx(10e-6)
    for field in ("mem_bytes", "mem_bw_bytes_per_s", "mem_efficiency", "peak_flops_per_s", "price_usd_per_hour", "step_overhead_s"):
        assert getattr(no_p2p, field) == getattr(p2p, field), field


def test_the_94gb_h100_sxm_is_h100_sxm_but_for_its_memory_and_its_mesh_of_four():
    """Session 34 (qa158): LRZ's lrz-hgx-h100-94x4 runs the HGX H100 4-GPU 94GB HBM2e SKU: 2.4 TB/s and 95,830 MiB, the
    SXM5 80GB's die and peaks, NVLink4 without NVSwitch (six links to each of three peers: 150 GB/s a pair, 450 for a
    collective over four); engine values as h100-sxm's."""
    sxm, gb94 = load_hardware("h100-sxm"), load_hardware("h100-sxm-94gb")
    assert gb94.engine_family == "h100-sxm"
    assert gb94.mem_bw_bytes_per_s == pytest.approx(2.4e12) and gb94.mem_bytes == 95830 * 2**20
    assert gb94.peak_flops_per_s == sxm.peak_flops_per_s and gb94.mem_efficiency == sxm.mem_efficiency
    assert gb94.link_for(2)[0] == pytest.approx(150e9 * 0.84) and gb94.link_for(4)[0] == pytest.approx(450e9 * 0.84)
    assert gb94.scale_up_domain == 4
    from roofline.tables import hardware_table

    assert "(h100-sxm-94gb, gpu, engine family h100-sxm: engine profiles give it that device's values)" in hardware_table(gb94)


def test_the_scale_out_link_takes_the_nics_own_efficiency_not_the_scale_up_fabrics():
    """qa227: efficiency.link (one figure for both links) derated MI300X's 400 Gb/s NIC by xGMI's 0.75 to 37.5 GB/s,
    where NCCL reaches 48-49 of 50 GB/s on such a NIC (NVIDIA/nccl-tests#267): efficiency.scale_out is its own."""
    mi300x, h100 = load_hardware("mi300x"), load_hardware("h100-sxm")
    assert mi300x.link_efficiency == 0.75 and mi300x.scale_out_efficiency == 0.96
    assert mi300x.link_for(16)[0] == pytest.approx(48e9) and h100.link_for(16)[0] == pytest.approx(48e9)
    assert mi300x.link_for(8)[0] == pytest.approx(448e9 * 0.75)  # inside the domain: xGMI's own figure
    assert mi300x.to_json()["scale_out_efficiency"] == 0.96
    # a profile without it: the scale-out link takes efficiency.link, as before
    data = base_profile()
    del data["efficiency"]["scale_out"]
    plain = hardware_from_dict(data, "x.yaml")
    assert plain.scale_out_efficiency is None and plain.link_for(16)[0] == pytest.approx(50e9 * plain.link_efficiency)
    seconds, _ = h100.two_link_transfer_s(16, 0.0, 48e6)  # a cross-domain all-to-all's outside share too
    assert seconds == pytest.approx(1e-3)


def test_a_scale_out_efficiency_without_a_scale_out_link_is_one_line(h100):
    data = base_profile()
    for key in ("scale_out_bandwidth", "scale_out_latency"):
        del data[key]
    with pytest.raises(RooflineError, match=r"^x.yaml: efficiency.scale_out: expected it only beside scale_out_bandwidth "
                                            r"\(the link it derates\), found 0.96$"):
        hardware_from_dict(data, "x.yaml")
    data["efficiency"]["scale_out"] = 1.5
    data["scale_out_bandwidth"], data["scale_out_latency"] = "50 GB/s", "20 us"
    with pytest.raises(RooflineError, match=r"^x.yaml: efficiency.scale_out: expected a fraction in \[0.01, 1\], found 1.5$"):
        hardware_from_dict(data, "x.yaml")
    with pytest.raises(RooflineError, match=r"^hardware spec 'h100-sxm': scale_out_efficiency: expected it only beside "
                                            r"scale_out_bw_bytes_per_s"):
        check_hardware_spec(dataclasses.replace(h100, scale_out_bw_bytes_per_s=None, scale_out_latency_s=None))


def test_a_profile_given_as_a_path_under_another_name_is_warned(tmp_path):
    """qa242: hardware: ./my-h100-80GB.yaml holding name my-h100 swept in silence, its rows said my-h100 (--where
    hardware=my-h100-80GB found none) while `hw validate` refused the file."""
    import warnings

    from roofline.errors import RooflineWarning

    text = (Path(__file__).resolve().parent.parent / "hardware_profiles" / "h100-sxm.yaml").read_text().replace("name: h100-sxm", "name: my-h100", 1)
    other, same = tmp_path / "my-h100-80GB.yaml", tmp_path / "my-h100.yaml"
    other.write_text(text)
    same.write_text(text)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RooflineWarning)
        assert load_hardware(str(other)).name == "my-h100"
        load_hardware(str(same))
    said = [str(w.message) for w in caught if issubclass(w.category, RooflineWarning)]
    assert len(said) == 1 and "name 'my-h100' is not the file's name 'my-h100-80GB'" in said[0]


@pytest.mark.slow
def test_predict_says_the_link_a_tp_group_drives(roofline):
    """qa258: predict's tp collectives gave a time and no link: a TPU pair's one ICI port, a mesh's links, were
    nowhere to be read."""
    import json

    code, out, err = roofline("predict", "--model", "llama-3.1-8b", "--hardware", "tpu-v5e", "--tp", "4", "--json")
    assert code == 0 and json.loads(out)["tp_link_bytes_per_s"] == pytest.approx(2 * 50e9 * 0.75), err  # 2 of 4 ports
    code, out, _ = roofline("predict", "--model", "llama-3.1-70b", "--hardware", "mi300x", "--tp", "2")
    assert "tp collectives" in out and "tp 2 over 48 GB/s a device, achievable; each collective at least 10 us, vllm's " \
        "allreduce_latency on this device)" in out  # one xGMI link of seven; qa395: the latency each pays, and whose
    # session 64: how many and how large (batch 1: M = 8192 x 2 B; each device's half of 128256 logits x 2 B)
    assert ("(160 all-reduces a pass of 16.4 kB each, the embedding's of 16.4 kB, the LM head's logit gather 128 kB a "
            "device; tp 2 over") in out
    code, out, _ = roofline("predict", "--model", "llama-3.1-70b", "--tp", "4", "--pp", "2", "--batch", "8")
    assert "(80 all-reduces a pass of the busiest stage of 65.5 kB each" in out and "the time: every pass of the step" in out
    code, out, _ = roofline("predict", "--model", "llama-3.1-70b", "--tp", "8", "--batch", "16", "--method", "eagle",
                            "--k", "3", "--alpha", "0.8")  # qa417: the verify pass's messages, 16 x 4 x 8192 x 2 B
    assert "; its tp all-reduces of 1.05 MB each, 4 x the decode step's)" in out, out
    code, out, _ = roofline("predict", "--model", "llama-3.1-70b", "--hardware", "mi300x", "--tp", "2", "--engine", "sglang")
    assert "each collective at least 7.5 us, sglang's allreduce_latency on this device)" in out  # its mi* entry's, RCCL's
    code, out, _ = roofline("predict", "--model", "llama-3.1-70b", "--hardware", "mi300x", "--tp", "2", "--engine", "ideal")
    assert "tp 2 over 48 GB/s a device, achievable; each collective at least 6 us, the link's latency)" in out  # the
    # bare roofline: the link's own latency, no engine's (qa417: said nowhere)
    code, out, _ = roofline("predict", "--model", "llama-3.1-8b", "--tp", "2", "--batch", "16", "--hardware",
                            "h100-pcie-no-p2p", "--engine", "sglang")  # qa417: 'at least 6 us' said where 15 us was paid
    assert ("each collective at least 15 us, the link's latency, the larger: sglang's allreduce_latency (6 us) does not "
            "move it)") in out, out
    # qa397: a group over two nodes pays the scale-out link's latency where it is the larger: that one said
    code, out, _ = roofline("predict", "--hardware", "h100-sxm", "--engine", "trtllm", "--model", "llama-3.1-405b", "--tp",
                            "16", "--weight-dtype", "fp8", "--batch", "8", "--context", "2048")
    assert ("each collective at least 20 us, the scale-out link's latency, the larger: trtllm's allreduce_latency (5 us) "
            "does not move it)") in out
    code, out, _ = roofline("predict", "--hardware", "h100-sxm", "--engine", "ideal", "--model", "llama-3.1-405b", "--tp",
                            "16", "--weight-dtype", "fp8", "--batch", "8", "--context", "2048")
    assert code == 0 and "allreduce_latency" not in out  # the bare roofline: no engine's latency to name (qa401)
    code, out, _ = roofline("predict", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--json")
    assert json.loads(out)["tp_link_bytes_per_s"] is None
    # qa264: a group over two nodes said the NIC's 48 GB/s as its link; inside a node it drives seven xGMI links
    code, out, _ = roofline("predict", "--model", "llama-3.1-405b", "--hardware", "mi300x", "--tp", "16", "--json")
    p = json.loads(out)
    assert p["tp_link_bytes_per_s"] == pytest.approx(448e9 * 0.75) and p["tp_scale_out_bytes_per_s"] == pytest.approx(50e9 * 0.96)


@pytest.mark.slow
def test_a_thousandfold_unit_slip_in_any_figure_loads_with_one_warning_naming_it(tmp_path):
    """qa311: `memory=192 TB`, `link_bandwidth=900 TB/s`, `peak_flops.bf16=1.2 EFLOP/s`, `price=3100 USD/h` and
    `memory_bandwidth=6 GB/s` loaded in silence (only a bandwidth above 20 TB/s was said). Each figure beyond every
    device's now warns, naming the field as written; a ridge point beyond every device's says a slip in either."""
    import warnings

    from roofline.hardware import load_hardware
    from roofline.profiles import profile_paths

    def said(text: str) -> list[str]:
        path = tmp_path / "slip.yaml"
        path.write_text(text.replace("name: h100-sxm", "name: slip"))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            load_hardware(str(path))
        return [str(w.message) for w in caught]

    with warnings.catch_warnings(record=True) as caught:  # no shipped profile is near a bound
        warnings.simplefilter("always")
        for name in profile_paths("hardware"):
            load_hardware(name)
    assert not caught, [str(w.message) for w in caught]
    text = (Path(__file__).resolve().parents[1] / "hardware_profiles" / "h100-sxm.yaml").read_text()
    assert said(text) == []
    for old, new, message in (
            ("memory: 81559 MiB", "memory: 192 TB", "memory: 192 TB is above 8 TB for one device; check the unit"),
            ("link_bandwidth: 450 GB/s", "link_bandwidth: 900 TB/s", "link_bandwidth: 900 TB/s is above 5 TB/s one way"),
            ("price: 3.00 USD/h", "price: 3100 USD/h", "price: 3100 USD/h is above 500 USD/h for one device"),
            ("memory_bandwidth: 3.35 TB/s", "memory_bandwidth: 6 GB/s",
             "peak_flops.fp32, tf32, bf16, fp16, fp8, int8 over memory_bandwidth (6 GB/s): ridge points of "),
            ("memory_bandwidth: 3.35 TB/s", "memory_bandwidth: 3350 TB/s",  # one slip, one line (qa312: two)
             "memory_bandwidth: 3350 TB/s is above 20 TB/s for one device"),
            # qa406: a latency 1000x too long, a memory or price 1000x too small, a cache past the memory, fp32 past bf16
            ("link_latency: 3 us", "link_latency: 3 ms", "link_latency: 3 ms is above 1 ms, where a collective's latency is"),
            ("scale_out_latency: 20 us", "scale_out_latency: 20 s", "scale_out_latency: 20 s is above 1 ms"),
            ("memory: 81559 MiB", "memory: 80 MB", "memory: 80 MB is below 100 MB for one device; check the unit"),
            ("price: 3.00 USD/h", "price: 0.003 USD/h", "price: 0.003 USD/h is below 0.01 USD/h for one device"),
            ("on_chip_cache: 50 MiB", "on_chip_cache: 50 TB", "on_chip_cache: 50 TB is larger than the memory (81559 MiB)"),
            ("fp32: 66.9 TFLOP/s", "fp32: 5000 TFLOP/s", "peak_flops.fp32: 5000 TFLOP/s is above peak_flops.bf16 (989.4 TFLOP/s)")):
        assert old in text
        lines = said(text.replace(old, new))
        assert len(lines) == 1 and message in lines[0], (new, lines)
    for old, new in (("link_latency: 3 us", "link_latency: 1 ms"), ("memory: 81559 MiB", "memory: 100 MB"),  # at each bound:
                     ("price: 3.00 USD/h", "price: 0.01 USD/h"), ("on_chip_cache: 50 MiB", "on_chip_cache: 81559 MiB")):
        assert old in text and said(text.replace(old, new)) == [], new  # nothing (qa409)
    cpu = (Path(__file__).resolve().parents[1] / "hardware_profiles" / "epyc-9654.yaml").read_text()
    cpu = cpu.replace("name: epyc-9654", "name: h100-sxm").replace("fp32: 7.4 TFLOP/s", "fp32: 20 TFLOP/s")  # said() names
    # it slip; its fp32 past its bf16
    assert "kind: cpu" in cpu and said(cpu) == [] and said(cpu.replace("kind: cpu", "kind: gpu")) != []  # a CPU's fp32 may pass its bf16
    lines = said(text.replace("bf16: 989.4 TFLOP/s", "bf16: 0.99 EFLOP/s").replace("fp16: 989.4 TFLOP/s", "fp16: 0.99 EFLOP/s")
                 .replace("fp8: 1978.9 TFLOP/s", "fp8: 1.98 EFLOP/s").replace("int8: 1978.9 TOP/s", "int8: 1.98 EOP/s"))
    assert lines == [f"{tmp_path / 'slip.yaml'}: peak_flops.bf16, fp16, fp8, int8: 0.99 EFLOP/s, 0.99 EFLOP/s, 1.98 EFLOP/s, "
                     "1.98 EOP/s are above 200 PFLOP/s (POP/s) dense for one device; check the unit and that it is per device"], lines


@pytest.mark.slow
def test_a_warning_is_said_once_a_command(tmp_path, roofline):
    """qa312: `roofline cheapest` on a sweep of a profile with a slipped unit said its warning six times (the profile is
    loaded once a note); a command says each warning once."""
    text = (Path(__file__).resolve().parents[1] / "hardware_profiles" / "h100-sxm.yaml").read_text()
    (tmp_path / "bwhi.yaml").write_text(text.replace("name: h100-sxm", "name: bwhi")
                                        .replace("memory_bandwidth: 3.35 TB/s", "memory_bandwidth: 3350 TB/s"))
    (tmp_path / "s.yaml").write_text(f"name: s\nhardware: [{tmp_path / 'bwhi.yaml'}, h200]\nmodel: llama-3.1-8b\n"
                                     "axes: {batch: [1, 8], context: [1024]}\n")
    code, _, err = roofline("sweep", tmp_path / "s.yaml", "--out", tmp_path / "sw", "--no-plots")
    assert code == 0 and err.count("is above 20 TB/s") == 1, err
    code, _, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "10")
    assert err.count("is above 20 TB/s") == 1, err


def test_predict_gives_its_profiles_warnings_in_its_warnings(tmp_path):
    """qa318: a profile's unit slip reached stderr while predict's `warnings` (API.md: 'what the caller must know') held
    none, in the library and in `predict --json`."""
    import warnings

    import roofline
    from roofline.errors import RooflineWarning

    text = (Path(__file__).resolve().parents[1] / "hardware_profiles" / "h100-sxm.yaml").read_text()
    path = tmp_path / "typo.yaml"
    path.write_text(text.replace("name: h100-sxm", "name: typo").replace("memory_bandwidth: 3.35 TB/s",
                                                                         "memory_bandwidth: 3350 TB/s"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        point = roofline.predict(str(path), "llama-3.1-8b", 1, 1024)
    assert [w for w in point["warnings"] if "3350 TB/s is above 20 TB/s" in w], point["warnings"]
    assert not [w for w in caught if issubclass(w.category, RooflineWarning)]  # its warnings are the dict's (API.md)


def test_a_spec_built_in_code_is_warned_of_what_its_file_would_be():
    """qa318: `dataclasses.replace(h100, mem_bw_bytes_per_s=3.35e15)` and `replace(mi300x, family="amd")` ran in silence,
    where the same values in a file are warned of (a unit slip; a family that names no profile)."""
    import dataclasses

    import roofline

    slip = roofline.predict(dataclasses.replace(roofline.load_hardware("h100"), name="h100-slip", mem_bw_bytes_per_s=3.35e15),
                            "llama-3.1-8b", 1, 1024)
    assert "hardware spec 'h100-slip': memory_bandwidth: 3.35 PB/s is above 20 TB/s for one device; check the unit and " \
           "that it is per device" in slip["warnings"]
    odd = roofline.predict(dataclasses.replace(roofline.load_hardware("mi300x"), name="mi300x-oc", family="amd"),
                           "llama-3.1-8b", 1, 1024)
    assert any("family: 'amd' names no hardware profile" in w for w in odd["warnings"]), odd["warnings"]
    assert roofline.predict(roofline.load_hardware("h100"), "llama-3.1-8b", 1, 1024)["warnings"] == []
    slow = roofline.predict(dataclasses.replace(roofline.load_hardware("h100"), name="h100-slow", link_latency_s=3e-3,
                                                on_chip_cache_bytes=200e9), "llama-3.1-8b", 1, 1024, tp=2)["warnings"]
    assert any(w.startswith("hardware spec 'h100-slow': link_latency: 3 ms is above 1 ms") for w in slow), slow  # qa412:
    assert any(w.startswith("hardware spec 'h100-slow': on_chip_cache: 200 GB is larger than the memory") for w in slow)  # None


def test_a_spec_built_in_code_is_warned_of_an_overhead_slip_and_finds_its_family_where_its_caller_looks(tmp_path):
    """qa320: a spec of step_overhead_s 20 s ran without a word (its file would be warned), and one whose family is a
    profile given by `profiles=` was said to name none."""
    import dataclasses

    import roofline

    h100 = roofline.load_hardware("h100")
    slow = roofline.predict(dataclasses.replace(h100, name="so", step_overhead_s=20.0), "llama-3.1-8b", 1, 1024, engine="ideal")
    assert any(w.startswith("hardware spec 'so': step_overhead: 20 s is over 10 ms") for w in slow["warnings"]), slow["warnings"]
    text = (Path(__file__).resolve().parents[1] / "hardware_profiles" / "h100-sxm.yaml").read_text()
    (tmp_path / "my-gpu.yaml").write_text(text.replace("name: h100-sxm", "name: my-gpu"))
    spec = dataclasses.replace(roofline.load_hardware("my-gpu", profiles=(tmp_path,)), name="my-gpu-oc", family="my-gpu")
    point = roofline.predict(spec, "llama-3.1-8b", 1, 1024, profiles=(tmp_path,), engine="ideal")
    assert not [w for w in point["warnings"] if "names no hardware profile" in w], point["warnings"]


def test_a_device_shares_the_scale_up_link_only_with_its_kind_on_the_same_link():
    """qa343: an H100 SXM5 94GB board (family h100-sxm) was put on an 8-GPU H100's NVSwitch; qa346: each field the rule
    compares, alone, tells two devices apart."""
    import dataclasses

    h100 = load_hardware("h100-sxm")
    assert h100.shares_scale_up(dataclasses.replace(h100, name="copy", family="h100-sxm", price_usd_per_hour=9.0))
    for change in ({"family": "h200"}, {"link_bw_bytes_per_s": h100.link_bw_bytes_per_s / 2}, {"link_latency_s": 9e-6},
                   {"scale_up_domain": 4}, {"mesh_links": 3}, {"torus_shape": (2, 4)}):
        other = dataclasses.replace(h100, name="other", **({"family": "h100-sxm"} | change))
        assert not h100.shares_scale_up(other), change


def test_an_operator_ceiling_above_the_devices_peak_is_warned_of_unless_measured():
    """qa389: operator_ceilings.attention_memory 40 TB/s on a 16 TB/s device loaded in silence, and predict printed MBU
    226%; a ceiling is what an operator reaches, at most the peak."""
    import dataclasses

    data = read_yaml_file(builtin_dir("hardware") / "h100-sxm.yaml")
    data["operator_ceilings"] = {"attention_memory": "40 TB/s", "attention_compute": "1500 TFLOP/s"}
    with pytest.warns(RooflineWarning) as said:
        hardware_from_dict(data, "x.yaml")
    lines = [str(w.message) for w in said]
    assert any(line.startswith("x.yaml: operator_ceilings.attention_memory: 40 TB/s is above the device's memory_bandwidth, "
                               "3.35 TB/s: a ceiling is what the operator reaches") for line in lines), lines
    assert not any("attention_compute" in line for line in lines)  # 1.5 PFLOP/s, below fp8's dense 1.98: taken
    with pytest.warns(RooflineWarning, match=r"operator_ceilings.attention_compute: 3.96 PFLOP/s is above the device's "
                                             r"largest peak_flops, 1.98 PFLOP/s: .* \(past it, MFU passes 100%\): a unit "
                                             r"slip, or a sparse figure \(peaks are dense\)\?$"):
        hardware_from_dict({**data, "operator_ceilings": {"attention_compute": "3958 TFLOP/s"}}, "x.yaml")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", RooflineWarning)
        hardware_from_dict({**data, "operator_ceilings": {"attention_memory": "3 TB/s"}}, "x.yaml")  # below: no word
        hardware_from_dict({**data, "measured": True}, "x.yaml")  # a calibration's: from cache, as measured
    spec = hardware_from_dict({**data, "operator_ceilings": {"attention_memory": "3 TB/s"}}, "x.yaml")
    with pytest.warns(RooflineWarning, match=r"operator_ceilings.elementwise_memory: 5 TB/s is above"):
        check_hardware_spec(dataclasses.replace(spec, elementwise_memory_bytes_per_s=5e12))  # a spec built in code


def test_a_ceiling_just_above_the_peak_is_warned_of():
    """qa390's surviving mutant H3: a tolerance above the peak (x 1.05) passed the tests; 3.36 TB/s on 3.35 is above."""
    data = read_yaml_file(builtin_dir("hardware") / "h100-sxm.yaml")
    with pytest.warns(RooflineWarning, match=r"operator_ceilings.elementwise_memory: 3.36 TB/s is above the device's "
                                             r"memory_bandwidth, 3.35 TB/s"):
        hardware_from_dict({**data, "operator_ceilings": {"elementwise_memory": "3.36 TB/s"}}, "x.yaml")


def test_a_peak_in_the_other_kind_of_unit_than_its_dtype_is_warned_not_refused():
    """qa389: 'fp8: 3958 TOPS' (a datasheet's int8 row) and 'int8: 1979 TFLOPS' loaded in silence; the shipped profiles'
    units match their dtypes and say nothing."""
    import warnings

    from roofline.profiles import read_yaml

    data = read_yaml(load_hardware("h100-sxm").path)
    for dtype, value, said in (("fp8", "1979 TOPS", "counts integer operations for a floating-point dtype"),
                               ("int8", "1979 TFLOPS", "counts floating-point operations for an integer dtype"),
                               ("bf16", "989.4 TOP/s", "counts integer operations")):
        with pytest.warns(RooflineWarning, match=rf"x.yaml: peak_flops.{dtype}: '{value}' {said}"):
            spec = hardware_from_dict({**data, "peak_flops": {**data["peak_flops"], dtype: value}}, "x.yaml")
        assert spec.peak_flops_per_s[dtype] == pytest.approx(float(value.split()[0]) * 1e12)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RooflineWarning)
        for value in ("1978.9 TOP/s", "1978.9 TOPS", "1978.9e12 OP/s"):
            hardware_from_dict({**data, "peak_flops": {**data["peak_flops"], "int8": value}}, "x.yaml")
        hardware_from_dict({**data, "peak_flops": {**data["peak_flops"], "fp8": "1978.9 TFLOP/s"}}, "x.yaml")
