"""Memory: what a deployment needs, whether it fits, the largest batch (capacity.py, the one function every caller uses)."""

import numpy as np
import pytest

from roofline.capacity import capacity
from roofline.hardware import load_hardware
from roofline.layout import deployment
from roofline.model import load_model

H200 = load_hardware("h200")
LLAMA = load_model("llama-3.1-8b")


def test_max_batch_is_the_last_batch_that_fits():
    dep = deployment(LLAMA)
    cap = int(capacity(H200, LLAMA, 1, 8192, dep)["max_batch"])
    assert bool(capacity(H200, LLAMA, cap, 8192, dep)["fits_in_memory"])
    assert not bool(capacity(H200, LLAMA, cap + 1, 8192, dep)["fits_in_memory"])


def test_a_shared_prefix_is_stored_once():
    dep = deployment(LLAMA)
    plain = capacity(H200, LLAMA, 16, 34816, dep)
    shared = capacity(H200, LLAMA, 16, 34816, dep, shared_prefix=32768)
    per_token = 131072  # bytes of KV per token, bf16
    # 16 sequences x 34,816 tokens against one 32,768-token prefix + 16 x 2,048 own tokens
    assert float(plain["kv_bytes"]) == pytest.approx(16 * 34816 * per_token)
    assert float(shared["kv_bytes"]) == pytest.approx((32768 + 16 * 2048) * per_token)
    assert int(shared["max_batch"]) > 10 * int(plain["max_batch"])


def test_attention_dp_splits_the_batch_over_groups_and_caps_in_whole_groups():
    ds = load_model("deepseek-v3")
    dep = deployment(ds, dp_attention=8, ep=8)
    cap = capacity(H200, ds, np.array([1, 8, 9]), 4096, dep)
    assert int(cap["max_batch"][0]) % 8 == 0
    # batch 9 puts 2 sequences on the busiest group, batch 8 one each
    kv = cap["kv_bytes"]
    assert float(kv[2]) == pytest.approx(2 * float(kv[1])) and float(kv[0]) == pytest.approx(float(kv[1]))


def test_extra_drafter_bytes_lower_the_cap():
    dep = deployment(LLAMA)
    base = int(capacity(H200, LLAMA, 1, 8192, dep)["max_batch"])
    with_drafter = int(capacity(H200, LLAMA, 1, 8192, dep, extra_bytes=2.5e9, extra_bytes_per_seq=8192 * 8192)["max_batch"])
    assert with_drafter < base
