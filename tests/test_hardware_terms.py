"""Hardware profile behaviour (hardware.py) the suite did not pin, found by mutation testing (qa469), each figure worked
by hand from the profiles and the docstrings (hardware.py: compute_dtype, efficiency_dtype, link_for, two_link_transfer_s, torus_ports,
to_json, _check_peaks, _fraction, _overlap_exponent, _torus_shape, _warn_low_and_crossed)."""

import dataclasses
import warnings

import pytest

from roofline.errors import RooflineError, RooflineWarning
from roofline.hardware import hardware_from_dict, load_hardware, torus_ports, torus_slice
from roofline.profiles import builtin_dir
from roofline.yamlio import read_yaml_file


def profile(name):
    return read_yaml_file(builtin_dir("hardware") / f"{name}.yaml")


def silent(data, where="x.yaml"):
    """Load a profile mapping; fail on any RooflineWarning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RooflineWarning)
        return hardware_from_dict(data, where)


def test_a_quantised_dtype_borrows_an_efficiency_only_at_the_same_peak_not_a_higher_one():
    # int8 at 1000 TOP/s, below fp8's 1978.9: no dtype with a figure shares its peak, so bf16's 0.80 (docstring: "that of
    # another the profile gives one for at the same peak"); ceiling 1000e12 x 0.80 = 8.0e14
    h100 = load_hardware("h100-sxm")
    slower = dataclasses.replace(h100, peak_flops_per_s={**h100.peak_flops_per_s, "int8": 1000e12})
    assert slower.efficiency_dtype("int8") is None
    assert slower.compute_efficiency_for("int8") == 0.80
    assert slower.compute_ceiling_flops_per_s("int8") == pytest.approx(8.0e14, rel=1e-12)


def test_fp16_and_int8_and_fp32_weights_compute_in_the_dtype_the_preference_lists_name():
    gaudi, b300 = load_hardware("gaudi-3"), load_hardware("b300")
    # Gaudi 3: fp16 459 TFLOP/s, bf16 1835: fp16 weights run at fp16's own peak, 459e12 x 0.68 = 3.1212e14
    assert gaudi.compute_dtype("fp16") == "fp16"
    assert gaudi.compute_ceiling_flops_per_s("fp16") == pytest.approx(459e12 * 0.68, rel=1e-12)
    # B300 gives no int8 peak: int8 weights dequantise to bf16 (int8 -> int8, bf16, ...), not fp8's units
    assert b300.compute_dtype("int8") == "bf16"
    # Gaudi 3 gives no fp32 peak: fp32 falls back to the first peak its profile lists, tf32 (459), not bf16 (1835)
    assert gaudi.compute_dtype("fp32") == "tf32"


def test_a_group_past_a_torus_pod_without_a_scale_out_link_is_priced_on_the_whole_pods_ports():
    # tpu-v6e: no scale-out link, pod 16 x 16; 512 devices take the pod's 4 ports of 4: 400 GB/s x 4/4 x 0.75 = 300 GB/s
    v6e = load_hardware("tpu-v6e")
    assert v6e.scale_out_bw_bytes_per_s is None
    assert v6e.link_for(512)[0] == pytest.approx(400e9 * 0.75)


def test_a_cross_domain_transfers_inside_share_takes_the_whole_mesh_of_the_domain():
    # MI300X, 16 devices over two 8-GPU domains: the scale-up share rides all 7 xGMI links, 448 GB/s x 0.75 = 336 GB/s:
    # 336 MB inside alone takes 1 ms (one link of 64 GB/s would take 7 ms)
    mi300x = load_hardware("mi300x")
    seconds, latency = mi300x.two_link_transfer_s(16, 336e6, 0.0)
    assert seconds == pytest.approx(1e-3, rel=1e-12) and latency == pytest.approx(20e-6)


def test_hw_show_json_gives_the_scale_out_efficiency_used_and_no_fp4_formats_without_an_fp4_peak():
    v5e, h100, b200, l4 = (load_hardware(n) for n in ("tpu-v5e", "h100-sxm", "b200", "l4"))
    # tpu-v5e gives scale_out_bandwidth but no efficiency.scale_out: its NIC takes efficiency.link, 0.75
    assert v5e.scale_out_efficiency is None and v5e.to_json()["scale_out_efficiency"] == 0.75
    assert l4.to_json()["scale_out_efficiency"] is None  # no scale-out link at all
    assert h100.to_json()["fp4_formats"] is None and b200.to_json()["fp4_formats"] == ["mxfp4", "nvfp4"]
    # the peak ridge, dtype bf16 by default: 989.4e12 / 3.35e12 = 295.34 FLOP/byte
    assert h100.ridge_point_flops_per_byte() == pytest.approx(989.4e12 / 3.35e12, rel=1e-12)


def test_the_bounds_of_a_fraction_an_overlap_exponent_and_an_fp4_peak_are_inclusive():
    data = profile("h100-sxm")
    spec = silent({**data, "efficiency": {**data["efficiency"], "memory": 0.01, "compute": 1.0},
                   "usable_memory_fraction": 1.0, "overlap_exponent": 1})
    assert (spec.mem_efficiency, spec.compute_efficiency, spec.usable_memory_fraction, spec.overlap_exponent) == (0.01, 1.0, 1.0, 1.0)
    mi355x = profile("mi355x")  # fp4 equal to fp8 is "at least the fp8 figure"
    assert hardware_from_dict({**mi355x, "peak_flops": {**mi355x["peak_flops"], "fp4": "5033 TFLOP/s"}}, "m.yaml").peak_flops_per_s["fp4"] == 5033e12
    with pytest.raises(RooflineError, match=r"^m.yaml: peak_flops.fp4: expected at least the fp8 figure"):
        hardware_from_dict({**mi355x, "peak_flops": {**mi355x["peak_flops"], "fp4": "5032 TFLOP/s"}}, "m.yaml")


def test_a_torus_axis_of_two_has_no_wrap_around_and_the_tie_goes_to_the_slice_driving_more_ports():
    # (2, 8) whole: the 2-chip axis one port (a pair), the 8-chip ring two: 3
    assert torus_ports((2, 8), 16) == 3
    # 24 on 8 x 6: (4, 6) and (6, 4) are equally square (longest side 6); (4, 6) spans the 6-axis whole: 1 + 2 = 3 ports
    assert torus_slice((8, 6), 24) == (4, 6) and torus_ports((8, 6), 24) == 3
    data = profile("tpu-v5e")
    with pytest.raises(RooflineError, match=r"^t.yaml: torus: expected a torus's 1-3 axes"):
        hardware_from_dict({**data, "scale_up_domain": 16, "torus": "2x2x2x2"}, "t.yaml")


def test_fp32_at_or_above_bf16_is_warned_only_strictly_above_and_only_on_an_accelerator():
    data = profile("h100-sxm")
    silent({**data, "peak_flops": {**data["peak_flops"], "fp32": "989.4 TFLOP/s"}})  # equal: no word
    apple = profile("apple-m4-max")  # an Apple GPU may run fp32 faster than bf16 (qa412): no word
    silent({**apple, "peak_flops": {**apple["peak_flops"], "fp32": "20 TFLOP/s"}})


def test_inside_one_domain_both_shares_ride_the_scale_up_link():
    # h100-sxm, 8 devices (one domain): 1 GB + 1 GB over 450 GB/s x 0.84 = 378 GB/s: 2e9 / 378e9 = 5.291 ms
    h100 = load_hardware("h100-sxm")
    seconds, latency = h100.two_link_transfer_s(8, 1e9, 1e9)
    assert seconds == pytest.approx(2e9 / 378e9, rel=1e-12) and latency == pytest.approx(3e-6)


def test_a_ridge_point_just_below_half_a_flop_a_byte_is_warned_and_one_just_above_is_not():
    data = profile("h100-sxm")
    # fp32 1.3 TFLOP/s over 3.35 TB/s: 0.388 FLOP/byte, below SUSPICIOUS_RIDGE_FLOP_PER_BYTE's 0.5
    with pytest.warns(RooflineWarning, match=r"x.yaml: peak_flops.fp32 over memory_bandwidth \(3.35 TB/s\): ridge point of "
                                             r"0.388 FLOP/byte, outside 0.5-10,000"):
        hardware_from_dict({**data, "peak_flops": {**data["peak_flops"], "fp32": "1.3 TFLOP/s"}}, "x.yaml")
    silent({**data, "peak_flops": {**data["peak_flops"], "fp32": "1.7 TFLOP/s"}})  # 0.507: inside


def test_a_spec_built_in_python_is_held_to_the_physical_range_a_profile_is():
    h100 = load_hardware("h100-sxm")
    with pytest.raises(RooflineError, match=r"^hardware spec 'h100-sxm': mem_bw_bytes_per_s: expected a number between "
                                            r"1e\+06 and 1e\+18 \(bytes/s\), found 1e\+30$"):
        from roofline.hardware import check_hardware_spec

        check_hardware_spec(dataclasses.replace(h100, mem_bw_bytes_per_s=1e30))


def test_a_profiles_source_and_notes_are_read_without_the_block_scalars_trailing_newline():
    h100 = load_hardware("h100-sxm")
    assert h100.source == h100.source.strip() and h100.notes == h100.notes.strip() and h100.source


def test_a_three_axis_torus_shares_its_six_ports():
    # a 4 x 4 x 4 torus of 64: a group of 8 is a 2 x 2 x 2 cube, one port an axis, 3 of 6:
    # 200 GB/s x 3/6 x 0.75 = 75 GB/s; the whole torus all 6: 150 GB/s
    data = profile("tpu-v5e")
    cube = hardware_from_dict({**data, "scale_up_domain": 64, "torus": "4x4x4"}, "t.yaml")
    assert cube.link_for(8)[0] == pytest.approx(75e9, rel=1e-12) and cube.link_for(64)[0] == pytest.approx(150e9, rel=1e-12)


def test_a_scale_up_domain_past_100000_devices_is_refused():
    data = profile("h100-sxm")
    assert hardware_from_dict({**data, "scale_up_domain": 100_000}, "x.yaml").scale_up_domain == 100_000
    with pytest.raises(RooflineError, match=r"^x.yaml: scale_up_domain: expected a device count in 1..100000, found 100001$"):
        hardware_from_dict({**data, "scale_up_domain": 100_001}, "x.yaml")


def test_hw_show_json_gives_the_profiles_own_memory_and_link_figures():
    j = load_hardware("h100-sxm").to_json()
    assert j["mem_bytes"] == 81559 * 2**20 and j["mem_bw_bytes_per_s"] == 3.35e12  # the device's, not the usable 90%
    assert j["link_bw_bytes_per_s"] == 450e9 and j["link_efficiency"] == 0.84  # the line rate, not the derated 378 GB/s


def test_fp4_formats_are_read_in_any_case():
    data = profile("mi355x")
    assert hardware_from_dict({**data, "fp4_formats": [" MXFP4 "]}, "m.yaml").fp4_formats == ("mxfp4",)


@pytest.mark.slow
def test_a_copy_of_a_built_in_given_as_a_path_under_another_file_name_is_said_once(tmp_path, roofline):
    # the shadow note says it (named h100-sxm as the built-in is); check_file_name's "not the file's name" would be a second
    text = (builtin_dir("hardware") / "h100-sxm.yaml").read_text()
    (tmp_path / "my-copy.yaml").write_text(text)
    code, _, err = roofline("predict", "--model", "llama-3.1-8b", "--hardware", tmp_path / "my-copy.yaml")
    assert code == 0
    said = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(said) == 1 and "is named h100-sxm, as the built-in" in said[0], said


def test_a_spec_with_a_torus_given_as_a_list_is_refused_as_a_profile_check_would_say():
    from roofline.hardware import check_hardware_spec

    v5e = load_hardware("tpu-v5e")
    with pytest.raises(RooflineError, match=r"^hardware spec 'tpu-v5e': torus_shape: expected a tuple of a torus's axes"):
        check_hardware_spec(dataclasses.replace(v5e, torus_shape=[16, 16]))


def test_a_mesh_without_a_scale_out_link_drives_at_most_its_own_links_past_the_domain():
    # MI300X without its NIC: 16 devices are priced as one domain, at most its 7 links: 448 GB/s x 0.75 = 336 GB/s
    mi300x = dataclasses.replace(load_hardware("mi300x"), scale_out_bw_bytes_per_s=None, scale_out_latency_s=None,
                                 scale_out_efficiency=None)
    assert mi300x.link_for(16)[0] == pytest.approx(336e9, rel=1e-12)


def test_an_overhead_or_a_ceiling_at_its_bound_is_not_warned_of():
    data = profile("h100-sxm")
    silent({**data, "step_overhead": "10 ms", "layer_overhead": "5 ms"})  # "over 10 ms", "over 5 ms": not at them
    silent({**data, "operator_ceilings": {"attention_memory": "3.35 TB/s", "attention_compute": "1978.9 TFLOP/s"}})  # at the peaks


def test_a_torus_in_googles_notation_is_read_in_any_case_and_spacing():
    data = profile("tpu-v5e")
    assert hardware_from_dict({**data, "torus": "16X16"}, "t.yaml").torus_shape == (16, 16)
    assert hardware_from_dict({**data, "torus": "16 x 16"}, "t.yaml").torus_shape == (16, 16)


def test_a_scale_out_latency_without_its_bandwidth_is_one_line():
    data = profile("a100-pcie-40gb")  # no scale-out link
    with pytest.raises(RooflineError, match=r"^x.yaml: scale_out_bandwidth: expected scale_out_bandwidth and scale_out_latency "
                                            r"together"):
        hardware_from_dict({**data, "scale_out_latency": "20 us"}, "x.yaml")


def test_an_fp4_peak_a_thousandfold_slipped_is_warned_as_the_others_are():
    data = profile("b200")  # fp4 9000 TFLOP/s written 9 EFLOP/s: above 200 PFLOP/s, one line
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hardware_from_dict({**data, "peak_flops": {**data["peak_flops"], "fp4": "9 EFLOP/s"}}, "b.yaml")
    said = [str(w.message) for w in caught if issubclass(w.category, RooflineWarning)]
    assert said == ["b.yaml: peak_flops.fp4: 9 EFLOP/s is above 200 PFLOP/s (POP/s) dense for one device; check the unit "
                    "and that it is per device"], said
