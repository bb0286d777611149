"""The harness runtime: quartiles, interleaved rounds in order, device strings checked before torch loads."""

import re
from types import SimpleNamespace

import pytest

from roofline.errors import RooflineError
from roofline.harness.runtime import interleave, median_time_s, quartiles, repeat_times_s, resolve_device

CPU = SimpleNamespace(type="cpu")  # all synchronize() looks at


def test_quartiles_of_one_to_five_are_two_three_four():
    # linear interpolation: the 25th percentile of 1..5 sits at index 1 (value 2), the 75th at index 3 (value 4)
    assert quartiles([5, 1, 4, 2, 3]) == (2.0, 3.0, 4.0)
    assert quartiles([1.0, 2.0]) == (1.25, 1.5, 1.75)


def test_interleave_runs_a_then_b_in_every_round_after_the_warm_up():
    calls = []
    rounds = interleave((lambda: calls.append("A") or "a", lambda: calls.append("B") or "b"), 3, CPU, warmup=1)
    assert calls == ["A", "B"] * 4
    assert [[result for _, result in pair] for pair in rounds] == [["a", "b"]] * 3
    assert all(seconds >= 0 for pair in rounds for seconds, _ in pair)


def test_repeats_are_timed_after_untimed_warm_up_calls():
    calls = []
    times = repeat_times_s(lambda: calls.append(1), CPU, repeats=4, warmup=2)
    assert len(calls) == 6 and len(times) == 4
    assert median_time_s(lambda: None, CPU, repeats=3, warmup=0) >= 0


def test_an_unknown_device_is_one_line_before_torch_is_imported(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "torch", None)  # the device string is checked without torch
    with pytest.raises(RooflineError, match="--device: expected cpu, cuda or cuda:N") as err:
        resolve_device("tpu")
    assert "\n" not in str(err.value)
    for name in ("cuda:x", "cuda:", "cuda:1 ", "cuda:-1"):  # qa376: 'cuda:x' passed, for PyTorch to refuse
        with pytest.raises(RooflineError, match=re.escape(f"(a device index), found {name!r}")):
            resolve_device(name)
    with pytest.raises(RooflineError, match="pip install"):
        resolve_device("cpu")


@pytest.mark.slow  # imports torch
def test_a_device_whose_bf16_gemms_crawl_is_refused_in_one_line_and_a_normal_one_passes(monkeypatch):
    torch = pytest.importorskip("torch")
    import roofline.harness.runtime as runtime

    def fake_times(seconds):
        calls = iter(seconds)  # the probe times fp32 first, then bf16
        return lambda fn, dev, repeats, warmup: next(calls)

    cpu = torch.device("cpu")
    # 256^3 GEMM: 2 * 256^3 = 33.6 MFLOP; 0.4 ms in fp32 (84 GFLOP/s), 50 ms in bf16 (0.67 GFLOP/s): 1/125 of fp32
    monkeypatch.setattr(runtime, "median_time_s", fake_times([0.4e-3, 50e-3]))
    with pytest.raises(RooflineError, match="bf16 units") as err:
        runtime.check_bf16_matmul(torch, cpu)
    assert "\n" not in str(err.value) and "671 MFLOP/s" in str(err.value)
    # bf16 at a third of fp32 is slow but usable (above the quarter)
    monkeypatch.setattr(runtime, "median_time_s", fake_times([1e-3, 3e-3]))
    runtime.check_bf16_matmul(torch, cpu)


def test_a_busy_machine_is_named_before_a_measurement_and_an_idle_one_is_not(monkeypatch):
    import os

    from roofline.harness.runtime import busy_machine_note

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (3.2, 3.0, 2.0))
    assert busy_machine_note().startswith("the load average is 3.2 on 2 cores before measuring")
    monkeypatch.setattr(os, "getloadavg", lambda: (0.4, 0.3, 0.2))
    assert busy_machine_note() == ""


@pytest.mark.parametrize("command", ["calibrate", "validate"])
def test_cuda_graphs_off_a_cuda_device_is_one_line_and_writes_nothing(roofline, tmp_path, command):
    out = ["--out", tmp_path / ("p.yaml" if command == "calibrate" else "v")]
    code, stdout, err = roofline(command, "--cuda-graphs", *out)
    assert code == 2 and stdout == ""
    assert err.strip() == "error: --cuda-graphs: expected --device cuda (CUDA graphs capture GPU work), found --device cpu"
    assert list(tmp_path.iterdir()) == []


def test_cuda_graphs_are_checked_against_the_device_name_or_object():
    from roofline.harness.runtime import check_cuda_graphs

    check_cuda_graphs(True, "cuda:1")
    class Device:  # a torch.device prints as its name
        def __str__(self):
            return "cuda"

    check_cuda_graphs(True, Device())
    check_cuda_graphs(False, "cpu")
    with pytest.raises(RooflineError, match="found --device cpu"):
        check_cuda_graphs(True, "cpu")
