"""Rounding that crosses a prefix or a power of ten, zero times in any spelling, and config keys named as the file has
them (qa464, found while mutation-testing units.py and hfimport.py); each expectation is the docstring's rule by hand."""

import pytest

from roofline.errors import RooflineError
from roofline.hfimport import profile_from_hf_config
from roofline.units import format_binary, format_si, format_significant, parse_seconds_or_zero


@pytest.mark.parametrize("value, unit, said", [
    (999.9e9, "B/s", "1 TB/s"),         # was '1e+03 GB/s' (hw show of a 999.9 GB/s device)
    (999.5e12, "FLOP/s", "1 PFLOP/s"),  # was '1e+03 TFLOP/s'
    (999.96, "B", "1 kB"),              # was '1e+03 B'
])
def test_format_si_takes_the_next_prefix_where_3_significant_digits_round_up_to_it(value, unit, said):
    """format_si(3.35e12, 'B/s') -> '3.35 TB/s': a prefix and 3 significant digits, never exponent form (qa397 fixed
    the same rounding-up in format_seconds)."""
    assert format_si(value, unit) == said


def test_format_binary_takes_the_next_prefix_where_rounding_reaches_it():
    assert format_binary(1023.9 * 2**20) == "1.00 GiB"  # was '1,024 MiB'


@pytest.mark.parametrize("x, said", [(9.996, "10.0"), (99.96, "100"), (0.000999999, "0.00100"), (0.09996, "0.100")])
def test_format_significant_keeps_3_significant_digits_where_rounding_crosses_a_power_of_ten(x, said):
    """Docstring: `digits` significant digits, trailing zeros kept. 9.996 -> '10.0' (was '10.00', 4 digits)."""
    assert format_significant(x) == said


@pytest.mark.parametrize("text", [".0 ms", "0e0 s", "+0 us", "0.0e-3 s"])
def test_a_zero_time_in_any_plain_spelling_is_zero_not_refused_as_below_zero(text):
    """'.0 ms' was refused with 'expected a finite time of 0 or more' (it is 0): `kernel_latency: .0 ms` failed
    `hw validate`, while '0.0 ms' and '0. us' pass."""
    assert parse_seconds_or_zero(text) == 0.0


def test_a_gpt2_style_key_is_named_as_the_file_has_it():
    """A config with n_embd (and no n_layer) was told 'n_layer: ... found 'n_layer'', a key it does not have."""
    tiny = {"model_type": "llama", "num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 8,
            "intermediate_size": 128, "vocab_size": 1000, "n_embd": 64}
    with pytest.raises(RooflineError, match=r"^x\.json: n_embd: "):
        profile_from_hf_config(tiny, "x", "x.json")


def test_a_sliding_window_flag_given_as_text_is_refused_not_read_as_true():
    """qa464: `"use_sliding_window": "false"` (text) imported a qwen2 config with every layer sliding, in silence."""
    qwen = {"model_type": "qwen2", "num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 8,
            "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 1000, "sliding_window": 32,
            "max_window_layers": 0, "use_sliding_window": "false"}
    with pytest.raises(RooflineError, match=r"^x\.json: use_sliding_window: expected true or false \(a JSON boolean\), "
                                            r"found 'false'$"):
        profile_from_hf_config(qwen, "x", "x.json")
    assert profile_from_hf_config({**qwen, "use_sliding_window": False}, "x", "x.json")
