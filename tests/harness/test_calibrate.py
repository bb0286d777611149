"""Calibration: the profile it writes loads like any other; the fits recover known ceilings; errors are one line."""

import dataclasses
import datetime
import math
import sys

import numpy as np
import pytest
import yaml

from roofline.engine import op_time_s
from roofline.errors import RooflineError
from roofline.hardware import hardware_from_dict, load_hardware
from roofline.harness.calibrate import Calibration, build_profile, fit_overlap, profile_to_yaml, run_calibrate
from roofline.harness.runtime import require_torch


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def calibration() -> Calibration:
    """What `measure` returns on a made-up 2-core CPU (SI units)."""
    return Calibration(
        device_name="Test CPU (2 cores)", kind="cpu", device_type="cpu", memory_bytes=24e9,
        last_level_cache_bytes=480 * 2**20, stream_buffer_bytes=2**30, stream_bw_bytes_per_s=27.5e9,
        copy_bw_bytes_per_s=25e9, cache_sweep_bw_bytes_per_s={2**20: 56e9, 2**30: 27.5e9},
        effective_cache_bytes=64 * 2**20, square_gemm_sizes=(1024, 2048), dtype="bf16",
        peak_flops_per_s={"fp32": 300e9, "bf16": 1.8e12}, gemm_hidden_size=2048, gemm_weight_bytes=1e9,
        gemm_sweep_s={1: 0.047, 512: 0.5}, gemv_bw_bytes_per_s=21e9, gemm_flops_per_s=1.35e12,
        overlap_exponent=1.3, attention_memory_bytes_per_s=8.5e9, attention_compute_flops_per_s=300e9,
        elementwise_memory_bytes_per_s=2.5e9, step_overhead_s=3e-4, layer_overhead_s=2e-4, cuda_graphs=False,
        threads=2, rounds=2, torch_version="2.13.0+cpu", elapsed_s=80.0, load_average="0.10",
        date=datetime.datetime(2026, 1, 2, tzinfo=datetime.timezone.utc),
    )


def test_calibrated_profile_loads_like_any_other_with_si_values():
    hw = hardware_from_dict(build_profile(calibration()), "<calibration>")
    assert hw.measured and hw.kind == "cpu"
    assert hw.mem_bw_bytes_per_s == pytest.approx(27.5e9)
    assert hw.mem_efficiency == pytest.approx(21 / 27.5, abs=1e-4)          # GEMV / stream
    assert hw.compute_efficiency == pytest.approx(1.35 / 1.8, abs=1e-4)     # weight shapes / square GEMM
    assert hw.memory_ceiling_bytes_per_s == pytest.approx(21e9, rel=1e-3)
    assert hw.compute_ceiling_flops_per_s("bf16") == pytest.approx(1.35e12, rel=1e-3)
    assert hw.step_overhead_s == pytest.approx(3e-4)
    assert hw.overlap_exponent == pytest.approx(1.3)
    assert hw.layer_overhead_s == pytest.approx(2e-4)
    assert hw.attention_memory_bytes_per_s == pytest.approx(8.5e9)
    assert hw.attention_compute_flops_per_s == pytest.approx(300e9)
    assert hw.elementwise_memory_bytes_per_s == pytest.approx(2.5e9)
    assert hw.extra["measured_torch"] == "2.13.0+cpu" and hw.extra["measured_device"] == "Test CPU (2 cores)"
    assert hw.extra["measured_date"].startswith("2026-01-02")


def test_an_fp32_calibration_gives_its_compute_efficiency_against_the_fp32_peak():
    # fp32 run: square fp32 GEMMs peak at 80 GFLOP/s, the weight GEMMs' fitted ceiling is 60 GFLOP/s,
    # so efficiency.compute = 60 / 80 = 0.75 and the fp32 compute ceiling is 80e9 * 0.75 = 60e9 again;
    # no bf16 was timed, so the profile has no bf16 peak to fall back on
    c = dataclasses.replace(calibration(), dtype="fp32", peak_flops_per_s={"fp32": 80e9}, gemm_flops_per_s=60e9)
    profile = build_profile(c)
    assert profile["peak_flops"] == {"fp32": "80 GFLOP/s"}
    assert profile["efficiency"]["compute"] == pytest.approx(0.75)
    assert profile["measured_dtype"] == "fp32" and "Measured in fp32" in profile["source"]
    hw = hardware_from_dict(profile, "<calibration>")
    assert hw.compute_ceiling_flops_per_s("fp32") == pytest.approx(60e9, rel=1e-3)
    assert hw.compute_dtype("fp32") == "fp32"


def test_an_unknown_dtype_is_one_line_before_torch_is_imported(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # would raise the install hint if it were reached
    with pytest.raises(RooflineError, match=r"--dtype: expected bf16 or fp32, found 'fp16'") as err:
        run_calibrate("cpu", dtype="fp16")
    assert "\n" not in str(err.value)


def test_calibration_is_frozen_and_its_mappings_are_read_only():
    c = calibration()
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.stream_bw_bytes_per_s = 1.0
    with pytest.raises(TypeError):
        c.peak_flops_per_s["bf16"] = 1.0
    assert build_profile(c) == build_profile(calibration())  # building a profile changes nothing


def test_every_measured_quantity_carries_its_unit_in_its_name():
    units = ("_bytes", "_bytes_per_s", "_flops_per_s", "_s", "_exponent", "_size", "_sizes")
    unitless = {"device_name", "kind", "device_type", "dtype", "threads", "rounds", "torch_version", "load_average", "date",
                "cuda_graphs"}
    for f in dataclasses.fields(Calibration):
        assert f.name in unitless or f.name.endswith(units), f.name


def test_profile_yaml_round_trips_and_loads_as_a_profile_file(tmp_path):
    profile = build_profile(calibration())
    text = profile_to_yaml(profile)
    assert text.startswith("# Measured by `roofline calibrate`")
    assert yaml.safe_load(text) == profile
    path = tmp_path / "cal.yaml"
    path.write_text(text)
    load_hardware(str(path))  # the project's reader refuses keys that are not text (the GEMM sweep's M once was)


def test_overlap_fit_recovers_a_known_compute_ceiling_and_exponent():
    params, weight_bytes, bw, flops, p = 5e8, 1e9, 20e9, 1.2e12, 1.4
    ms = (1, 4, 16, 32, 64, 128, 256, 512)
    act = lambda m: 0.0  # noqa: E731
    times = {m: float(op_time_s(2 * params * m, weight_bytes, flops, bw, p)) for m in ms}
    got_bw, got_flops, got_p = fit_overlap(params, weight_bytes, times, act)
    assert got_bw == pytest.approx(bw, rel=1e-3)
    assert got_flops == pytest.approx(flops, rel=0.03)
    assert got_p == pytest.approx(p, abs=0.1)


def test_the_overlap_form_calibration_fits_is_the_sum_at_p_1_and_tends_to_the_max():
    # op_time_s(flops, bytes, C, bw, p) with t_compute = 2 s and t_memory = 3 s
    assert op_time_s(2.0, 3.0, 1.0, 1.0, 1.0) == pytest.approx(5.0)
    assert op_time_s(2.0, 3.0, 1.0, 1.0, 50.0) == pytest.approx(3.0, rel=1e-2)


def test_missing_torch_says_how_to_install_in_one_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(RooflineError, match=r"pip install '\.\[torch\]'") as err:
        require_torch()
    assert "\n" not in str(err.value)
    with pytest.raises(RooflineError, match="pip install"):
        run_calibrate("cpu")


@pytest.mark.slow
def test_absent_cuda_device_is_a_one_line_error(torch):
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(RooflineError, match="cuda") as err:
        run_calibrate("cuda")
    assert "\n" not in str(err.value)


@pytest.mark.slow
def test_unknown_device_is_rejected(torch):
    with pytest.raises(RooflineError, match="--device"):
        run_calibrate("tpu")


@pytest.mark.slow
def test_small_real_measurements_are_positive(torch):
    from roofline.harness.calibrate import forward_step_times, stream_bandwidth

    dev = torch.device("cpu")
    read, copy = stream_bandwidth(torch, dev, 8 * 2**20, repeats=3)
    assert read > 1e8 and copy > 1e8
    shallow, deep = forward_step_times(torch, dev, 1, 3, repeats=3)
    assert 0 < shallow < 1 and 0 < deep < 1 and math.isfinite(deep)
    assert np.isfinite(read)


@pytest.mark.slow
def test_fp32_measurements_run_and_count_fp32_bytes(torch):
    from roofline.harness.calibrate import attention_timings, forward_step_times, weight_gemm_sweep

    dev = torch.device("cpu")
    # attention at q = 1: 1 layer, batch 1, 32 cached + 1 new = 33 positions, K and V of 4 heads x 128:
    # 33 * 2 * 4 * 128 = 33792 elements, 4 bytes each in fp32 (135168 B), 2 in bf16
    fp32 = attention_timings(torch, dev, batch=1, context=32, layers=1, repeats=1, dtype="fp32")
    assert fp32[1][2] == 33 * 2 * 4 * 128 * 4
    # weight stack at hidden 64: block shapes (64, 96), (64, 64), (64, 352), (176, 64): 6144 + 4096 + 22528 + 11264 = 44032 weights, 4 bytes each (one block)
    weight_bytes, params, times = weight_gemm_sweep(torch, dev, torch.float32, 64, 1.0, (1, 4), repeats=1)
    assert params == 44032 and weight_bytes == 4 * 44032 and set(times) == {1, 4}
    shallow, deep = forward_step_times(torch, dev, 1, 3, repeats=3, dtype="fp32")
    assert 0 < shallow < 1 and 0 < deep < 1


def test_the_effective_cache_ends_the_run_of_buffers_read_over_a_quarter_faster_than_the_median_dram_read():
    from roofline.harness.calibrate import effective_cache_bytes

    sweep = {2**20: 80e9, 2**24: 40e9, 2**28: 21e9, 2**29: 20e9}  # medians over the rounds
    assert effective_cache_bytes(sweep, 20e9) == 2**24
    assert effective_cache_bytes(sweep, 9.5e9) == 2**29  # a stalled DRAM read: every buffer looks cache-fast
    assert effective_cache_bytes({2**20: 10e9}, 20e9) == 0
    noisy = {2**20: 80e9, 2**24: 40e9, 2**26: 22e9, 2**28: 32e9, 2**29: 31.7e9}  # fast again after a slow buffer: noise
    assert effective_cache_bytes(noisy, 25e9) == 2**24


def test_a_calibration_without_a_cache_effect_says_so_rather_than_one_byte():
    """measured_effective_cache read '1 B' where no buffer read faster than DRAM."""
    import dataclasses

    assert build_profile(calibration())["measured_effective_cache"] == "67.11 MB"
    none = build_profile(dataclasses.replace(calibration(), effective_cache_bytes=0))
    assert none["measured_effective_cache"] == "none found"
    hardware_from_dict(none, "<calibration>")  # loads as any other


def test_calibration_rounds_that_disagree_are_said():
    """GEMV 2.76, 18.6 and 2.79 GB/s in three rounds on a busy machine: the median was kept in silence (qa101)."""
    import warnings

    from roofline.errors import RooflineWarning
    from roofline.harness.calibrate import _warn_rounds_disagree

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _warn_rounds_disagree({"GEMV (raw)": ([2.76e9, 18.6e9, 2.79e9], "B/s"), "stream read": ([10e9, 11e9, 10.5e9], "B/s")})
        _warn_rounds_disagree({"stream read": ([10e9, 11e9, 10.5e9], "B/s")})
    said = [str(w.message) for w in caught if issubclass(w.category, RooflineWarning)]
    assert len(said) == 1 and said[0].startswith("calibration rounds disagree: GEMV (raw) 2.76 GB/s to 18.6 GB/s: ")


def test_a_profile_calibrated_on_cuda_graphs_says_what_its_overheads_are():
    graphed = build_profile(dataclasses.replace(calibration(), device_type="cuda", kind="gpu", cuda_graphs=True))
    eager = build_profile(calibration())
    assert graphed["display_name"].endswith("measured (CUDA graphs)") and eager["display_name"].endswith("measured")
    assert "each replayed from a CUDA graph" in graphed["source"] and ", eager." in eager["source"]
    assert "replayed in a CUDA graph" in graphed["notes"] and "dispatch per block in eager PyTorch" in eager["notes"]
    hardware_from_dict(graphed, "<calibration>")


def test_graph_costs_take_a_gemms_latency_past_its_bytes_and_the_tiny_floor_and_one_streams_rate():
    from roofline.harness.calibrate import graph_costs

    bw = 4e12
    gemv = {2**21: 5e-6 + 2**21 / bw, 2**23: 5.5e-6 + 2**23 / bw, 2**25: 6e-6 + 2**25 / bw}  # latencies 5, 5.5, 6 us
    attention = {512: 10e-6 + 512 * 40e-9, 4096: 10e-6 + 4096 * 40e-9}  # 40 ns a token
    latency, stream = graph_costs(gemv, 1.5e-6, attention, bw, elem_bytes=2)
    assert latency == pytest.approx(4e-6)  # the median latency, 5.5 us, less the tiny GEMV's 1.5 us
    assert stream == pytest.approx(2 * 128 * 2 / 40e-9)  # a token's K and V of one head, 512 bytes, each 40 ns
    assert graph_costs(gemv, 9e-6, attention, bw, elem_bytes=2)[0] == 0.0  # never below 0


def test_a_graphed_calibration_adds_the_gemm_latency_to_the_overheads_and_writes_the_stream_ceiling():
    graphed = dataclasses.replace(calibration(), device_type="cuda", kind="gpu", cuda_graphs=True, gemm_latency_s=4e-6,
                                  attention_stream_bytes_per_s=14e9, graph_gemv_s={2**21: 6e-6}, graph_tiny_gemv_s=1.5e-6,
                                  graph_attention_s={512: 20e-6, 4096: 150e-6})
    profile, hw = build_profile(graphed), hardware_from_dict(build_profile(graphed), "<calibration>")
    assert hw.layer_overhead_s == pytest.approx(2e-4 + 4 * 4e-6) and hw.step_overhead_s == pytest.approx(3e-4 + 4e-6)
    assert hw.attention_stream_bytes_per_s == pytest.approx(14e9)
    assert "each weight GEMM pays 4 us" in profile["source"] and "150 us a layer over 4096 tokens" in profile["source"]
    assert "attention_splits_keys is false" in profile["notes"] and "vector unit" not in profile["notes"]  # a GPU's
    eager = hardware_from_dict(build_profile(calibration()), "<calibration>")
    assert eager.attention_stream_bytes_per_s is None and eager.layer_overhead_s == pytest.approx(2e-4)
    assert "vector unit" in eager.notes and "attention_splits_keys" not in eager.notes  # a CPU's


def test_an_attention_kernel_no_slower_over_more_tokens_writes_no_stream_ceiling():
    """qa200: noise that made the longer context no slower gave a stream of 5e17 B/s (a floor of 1e-15 s a token)."""
    from roofline.harness.calibrate import graph_costs

    latency, stream = graph_costs({2**21: 1e-5}, 1e-6, {512: 2e-5, 4096: 2e-5}, 4e12, elem_bytes=2)
    assert stream is None and latency == pytest.approx(1e-5 - 2**21 / 4e12 - 1e-6)
    profile = build_profile(dataclasses.replace(calibration(), device_type="cuda", kind="gpu", cuda_graphs=True,
                                                gemm_latency_s=latency, attention_stream_bytes_per_s=None,
                                                graph_gemv_s={2**21: 1e-5}, graph_tiny_gemv_s=1e-6,
                                                graph_attention_s={512: 2e-5, 4096: 2e-5}))
    assert "attention_stream" not in profile["operator_ceilings"] and "no attention_stream was written" in profile["source"]
    assert profile["measured_cuda_graphs"] is True and build_profile(calibration())["measured_cuda_graphs"] is False
