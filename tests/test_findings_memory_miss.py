"""The fast-tier finding says a known miss of the memory kind on the devices it prices (qa455: gpt-oss-120b's
cheapest tier at batch 73, the most that fits on an H100, where vLLM's start-up measured its weights 8.7% larger:
said in the sweep's warnings alone)."""

import pytest

from roofline.findings import finding, memory_missed, question_rows
from roofline.report import run_scenario

pytestmark = pytest.mark.slow  # two sweeps of a fast-tier scenario: 2-4 s

SAID = ("A known miss of vllm (in the warnings): the engine was measured to take more memory for this model than this "
        "tool counts, so on {} the largest batch that fits runs high, and with it the cheapest tier's batch; its price "
        "there runs low.")


def _tier(tmp_path, model: str):
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "tiers.yaml"
    path.write_text(f"name: tiers\nquestion: fast-tier-premium\nhardware: h100-sxm\nmodel: {model}\nmethod: eagle\n"
                    "axes:\n  batch: [1, 8, 32, 64, 128]\n  context: [2048]\n  k: [0, 2, 4]\n  alpha: [0.8]\n")
    r = run_scenario(str(path))
    df, ops, meta, _ = question_rows("fast-tier-premium", r.df, r.ops, r.meta)
    return df, meta, finding("fast-tier-premium", df, ops, meta, strict=False).text


def test_a_memory_miss_of_the_model_is_said_beside_its_tiers(tmp_path):
    df, meta, text = _tier(tmp_path / "oss", "gpt-oss-120b")
    assert memory_missed(df, meta, "vllm", ["h100-sxm"]) == ["h100-sxm"]
    assert memory_missed(df, meta, "ideal", ["h100-sxm"]) == []  # the bound has no known misses
    assert SAID.format("H100 SXM5") in text, text


def test_a_model_without_one_says_nothing_of_it(tmp_path):
    df, meta, text = _tier(tmp_path / "llama", "llama-3.1-8b")
    assert memory_missed(df, meta, "vllm", ["h100-sxm"]) == [] and "more memory" not in text, text
