"""The generic finding says where published runs measured slower than the model predicts on a device it compares, as
the fast tiers do (qa454: 8 MI300X compared with 8 H200 and named cheapest, vllm's known misses on both said in the
warnings alone)."""

import pytest

from roofline.findings import finding, question_rows
from roofline.report import run_scenario

pytestmark = pytest.mark.slow  # a DeepSeek-V3 sweep on two devices: 1-3 s

SLOW = ("Published runs on {} measured slower than this model predicts (a known miss of {} or a profile priced with "
        "its costs, in the warnings): its speeds there run high and its prices low.")


def _generic_text(tmp_path, body: str) -> str:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "cmp.yaml"
    path.write_text("name: cmp\n" + body)
    r = run_scenario(str(path))
    df, ops, meta, _ = question_rows("generic", r.df, r.ops, r.meta)
    return finding("generic", df, ops, meta, strict=False).text


DSV3 = ("hardware: [h200, mi300x]\nmodel: deepseek-v3\nmethod: mtp\nlayouts: [{{tp: 8}}]\nengine: {}\n"
        "axes:\n  batch: [1, 32]\n  context: [4096]\n  k: [0, 1, 2]\n  alpha: [0.8]\n")


def test_known_misses_on_the_compared_devices_are_said_in_the_finding(tmp_path):
    from roofline.frontier import _missed

    for hw in ("h200", "mi300x"):  # the premise: vllm's shipped known misses cover DeepSeek-V3 at tp 8 on both
        row = {"hardware": hw, "model": "deepseek-v3", "method": "mtp", "engine": "vllm", "tp": 8, "dp_attention": 1,
               "ep": 1, "pp": 1, "batch": range(1, 33), "decoding": "plain"}
        assert _missed(row, "slower", (), {}), hw
    text = _generic_text(tmp_path, DSV3.format("vllm"))
    assert SLOW.format("H200 SXM and MI300X", "vllm") in text, text


def test_the_bound_and_a_device_without_a_known_miss_say_nothing_of_it(tmp_path):
    assert "measured slower" not in _generic_text(tmp_path / "a", DSV3.format("ideal"))
    text = _generic_text(tmp_path / "b", "hardware: [h100-sxm, h200]\nmodel: llama-3.1-8b\nmethod: eagle\nengine: vllm\n"
                         "axes:\n  batch: [1, 32]\n  context: [1024]\n  k: [0, 2]\n  alpha: [0.8]\n")
    assert "measured slower" not in text, text
