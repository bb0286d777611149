"""A known miss is matched per layout of a sweep (qa461: one group over two layouts took its first row's, so whether a
report said 'Published runs on H200 measured slower' hung on the order of the scenario's layouts)."""
import pytest

import roofline
from roofline.findings import measured_slower

pytestmark = pytest.mark.slow  # a DeepSeek-V3 sweep of two layouts: about 2 s


def test_a_known_miss_of_one_layout_is_found_whatever_the_order_of_the_layouts():
    # vllm-v0's DeepSeek-R1 on 8 H200 at tp 8 (batch 4-64, priced with vllm's costs) covers the tp 8 rows, not DP 8's
    df = roofline.sweep({"name": "two-layouts", "hardware": "h200", "model": "deepseek-v3", "method": "mtp", "engine": "vllm",
                         "layouts": [{"tp": 8}, {"dp_attention": 8, "ep": 8}],
                         "axes": {"batch": [4, 64, 2048], "context": [1024], "k": [0, 1], "alpha": [0.8]}})
    tp8, dp8 = df[df["dp_attention"] == 1], df[df["dp_attention"] == 8]
    assert len(tp8) and len(dp8)
    assert measured_slower(tp8, {}, "vllm", ["h200"]) == ["h200"] and measured_slower(dp8, {}, "vllm", ["h200"]) == []
    assert measured_slower(df, {}, "vllm", ["h200"]) == ["h200"]
    assert measured_slower(df.iloc[::-1], {}, "vllm", ["h200"]) == ["h200"]  # DP 8's rows first
