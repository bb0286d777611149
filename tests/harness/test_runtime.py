"""The harness runtime: quartiles, interleaved rounds in order, device strings checked before torch loads."""

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
    with pytest.raises(RooflineError, match="--device: expected cpu or cuda") as err:
        resolve_device("tpu")
    assert "\n" not in str(err.value)
    with pytest.raises(RooflineError, match="pip install"):
        resolve_device("cpu")
