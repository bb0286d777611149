"""`hw diff` figures checked by hand (mutation testing of roofline/editing.py: diff_hardware, side_by_side, _shown_to)."""

import re

import pytest


@pytest.fixture(autouse=True)
def _isolated_user_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user-profiles"))
    monkeypatch.delenv("ROOFLINE_PATH", raising=False)


SCALE = {"": 1.0, "k": 1e3, "M": 1e6, "m": 1e-3, "u": 1e-6}


def _row(out: str, label: str) -> list[str]:
    line = next(x for x in out.splitlines() if x.strip().startswith(label))
    return re.split(r"\s{2,}", line.strip())


def _number(cell: str) -> float:
    """'17.5 ms' -> 0.0175, '3.65 ktok/s' -> 3650, '$4.80' -> 4.8."""
    m = re.fullmatch(r"\$?([0-9.]+)(?: ([kMmu]?)(?:s|tok/s))?", cell)
    assert m, cell
    return float(m.group(1)) * SCALE[m.group(2) or ""]


def test_hw_diff_tokens_per_second_at_batch_64_are_64_over_the_step_time(roofline):
    code, out, err = roofline("hw", "diff", "h100-sxm", "h200")
    assert code == 0, err
    step = _row(out, "B=64 S=4096 step time")
    tokens = _row(out, "B=64 S=4096 tokens/s")
    for side in (1, 2):
        t, rate = _number(step[side]), _number(tokens[side])
        assert rate == pytest.approx(64 / t, rel=0.01)  # the cells are rounded to 3 digits
    # by hand, H100: 64 x 4,096 tokens x 131,072 B of KV (32 layers x K, V x 8 heads x 128 x 2 B) = 34.4 GB, plus
    # about 15.0 GB of bf16 weights read, over 3.35 TB/s x 0.85: about 17.4 ms, so about 3.7 k tokens/s
    assert 3.4e3 < _number(tokens[1]) < 3.8e3


def test_hw_diff_prices_a_million_tokens_at_every_device_of_the_layout(roofline):
    code, out, err = roofline("hw", "diff", "h100-sxm", "h200", "--tp", "2")
    assert code == 0, err
    for batch, context in ((1, 1024), (64, 4096)):
        rate = _row(out, f"B={batch} S={context} tokens/s")
        usd = _row(out, f"B={batch} S={context} USD / M tokens")
        for side, price in ((1, 3.00), (2, 4.50)):  # h100-sxm, h200 USD/h a device; tp 2: two devices rented
            expected = 2 * price / 3600 / _number(rate[side]) * 1e6
            assert _number(usd[side]) == pytest.approx(expected, rel=0.01)


def test_hw_diff_shows_the_microseconds_that_tell_two_latencies_apart(roofline, tmp_path):
    for name, latency in (("lat-a", "3 us"), ("lat-b", "3.001 us")):
        code, _, err = roofline("hw", "new", name, "--from", "h100-sxm", "--set", f"link_latency={latency}")
        assert code == 0, err
    code, out, err = roofline("hw", "diff", "lat-a", "lat-b")
    assert code == 0, err
    assert _row(out, "link_latency") == ["link_latency", "3 us", "3.001 us", "1.0003x", "*"]


def test_hw_diff_ridge_points_by_hand(roofline):
    code, out, err = roofline("hw", "diff", "h100-sxm", "h200")
    assert code == 0, err
    # peak: 989.4 TFLOP/s over 3.35 and 4.8 TB/s = 295.3 and 206.1 FLOP/B; derated: 989.4 x 0.80 over 3.35 x 0.85 and
    # 4.8 x 0.85 = 278.0 and 194.0 (both devices compute at 0.80, stream at 0.85)
    assert _row(out, "peak ridge bf16") == ["peak ridge bf16 (FLOP/B)", "295.3", "206.1", "0.698x", "*"]
    assert _row(out, "derated ridge bf16") == ["derated ridge bf16 (FLOP/B)", "278", "194", "0.698x", "*"]


def test_hw_diff_rows_of_the_scale_out_link_efficiencies_and_price(roofline):
    code, out, err = roofline("hw", "diff", "h100-sxm", "a100-sxm-80gb")
    assert code == 0, err
    # h100-sxm.yaml: scale_out_latency 20 us, link_latency 3 us, price 3.00 USD/h; a100-sxm-80gb.yaml: 20 us, 2.00 USD/h
    # (written as hw show writes a price, qa455)
    assert _row(out, "scale_out_latency") == ["scale_out_latency", "20 us", "20 us", "1x"]
    assert _row(out, "price") == ["price", "3.00 USD/h", "2.00 USD/h", "0.667x", "*"]
    # an A100 has no fp8 peak: no fp8 efficiency of its own to show
    assert _row(out, "efficiency.compute_fp8") == ["efficiency.compute_fp8", "0.71", "-", "-", "*"]


def test_hw_diff_shows_the_scale_out_efficiency_where_one_device_has_a_scale_out_link(roofline):
    code, out, err = roofline("hw", "diff", "h100-sxm", "l4")  # l4: no scale-out link
    assert code == 0, err
    assert _row(out, "efficiency.scale_out") == ["efficiency.scale_out", "0.96", "-", "-", "*"]
    assert _row(out, "scale_out_bandwidth") == ["scale_out_bandwidth", "50 GB/s", "-", "-", "*"]


def test_models_diff_writes_counts_with_thousands_separators(roofline):
    code, out, err = roofline("models", "diff", "llama-3.1-8b", "llama-3.1-70b")
    assert code == 0, err
    # config.json of each: hidden_size 4096 / 8192, intermediate (ffn) 14336 / 28672, vocab 128256 for both
    assert _row(out, "hidden_size") == ["hidden_size", "4,096", "8,192", "2x", "*"]
    assert _row(out, "vocab_size") == ["vocab_size", "128,256", "128,256", "1x"]


def test_models_diff_reads_a_shared_expert_size_of_0_as_the_routed_experts_size(roofline):
    """qa460: DeepSeek-V3's shared_expert_ffn_size 2,048 against an import's 0 (the routed expert's 2,048 in use) was
    starred as a difference, the two models' parameters equal."""
    code, _, err = roofline("models", "new", "dsv3-zero", "--from", "deepseek-v3", "--set", "moe.shared_expert_ffn_size=0")
    assert code == 0, err
    code, out, err = roofline("models", "diff", "deepseek-v3", "dsv3-zero")
    assert code == 0, err
    assert _row(out, "moe.shared_expert_ffn_size") == ["moe.shared_expert_ffn_size", "2,048", "2,048", "1x"]
    code, _, err = roofline("models", "new", "dsv3-wide", "--from", "deepseek-v3", "--set", "moe.shared_expert_ffn_size=4096")
    code, out, err = roofline("models", "diff", "deepseek-v3", "dsv3-wide")
    assert _row(out, "moe.shared_expert_ffn_size") == ["moe.shared_expert_ffn_size", "2,048", "4,096", "2x", "*"]
