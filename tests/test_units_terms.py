"""Unit parsing and formatting (units.py) the suite did not pin, found by mutation testing (qa464): values worked out
by hand from the module's docstrings (decimal prefixes powers of 1000, binary ones of 1024; 3 significant digits;
rent = price x devices)."""

import math

import numpy as np
import pytest

from roofline.units import (
    format_binary,
    format_count,
    format_significant,
    format_usd_per_hour,
    is_finite,
    parse_quantity,
    rent_usd_per_hour,
    usd_per_million_tokens,
)


@pytest.mark.parametrize("text, kind, value", [
    ("1 kB", "bytes", 1000.0), ("1 KB", "bytes", 1000.0), ("2000 kB/s", "bytes_per_s", 2e6),  # k is 1000, never 1024
    ("1 TiB", "bytes", 2.0**40), ("1 PiB", "bytes", 2.0**50), ("1 TiB/s", "bytes_per_s", 2.0**40),
    ("0.000001 USD/h", "usd_per_hour", 1e-6), ("1000000 USD/h", "usd_per_hour", 1e6),  # the price range's ends, inclusive
    ("1 MB/s", "bytes_per_s", 1e6), ("10 PB", "bytes", 1e16)
])
def test_every_prefix_is_its_own_power_and_the_range_ends_are_inside(text, kind, value):
    assert parse_quantity(text, kind) == value


def test_a_size_of_exactly_1_kb_is_the_lowest_accepted_and_1_byte_less_is_refused():
    assert parse_quantity("1 kB", "bytes") == 1000.0
    with pytest.raises(ValueError, match="^a size in bytes between 1 kB and 10 PB"):
        parse_quantity("999 B", "bytes")


@pytest.mark.parametrize("text", ["400 Gbit/s", "400 Gbits/s", "100 Mbps", "8 Gb"])
def test_bits_in_any_spelling_are_refused_with_the_hint(text):
    with pytest.raises(ValueError, match=r"^bytes, not bits"):
        parse_quantity(text, "bytes_per_s" if "/s" in text or "ps" in text else "bytes")


def test_the_text_limit_is_64_characters_inclusive():
    text = "3.35 TB/s".ljust(64)
    assert len(text) == 64 and parse_quantity(text, "bytes_per_s") == 3.35e12
    with pytest.raises(ValueError, match="at most 64 characters"):
        parse_quantity(text + " ", "bytes_per_s")


def test_zero_is_refused_as_not_positive_not_as_out_of_range():
    with pytest.raises(ValueError, match=r"^a finite positive quantity like '80 GB'$"):
        parse_quantity("0 GB", "bytes")


def test_a_zero_price_a_month_gets_no_hourly_figure():
    """qa339's rule for negative and infinite prices: no hourly figure of a price that is none; the list of units."""
    with pytest.raises(ValueError, match=r"^a unit among USD/h, "):
        parse_quantity("0 USD/month", "usd_per_hour")


def test_an_integer_too_large_for_a_float_is_not_finite():
    assert is_finite(10**400) is False and is_finite(10**300) is True and is_finite(float("inf")) is False


def test_the_rent_is_the_price_times_the_devices_plus_a_drafter_while_it_drafts():
    assert rent_usd_per_hour(3.0, 8) == 24.0                                   # 3.00 USD/h x 8 devices
    assert rent_usd_per_hour(3.0, 8, 2.0, True) == 26.0                       # + the drafter's own device
    assert list(rent_usd_per_hour(3.0, 8, 2.0, np.array([True, False]))) == [26.0, 24.0]
    assert math.isnan(rent_usd_per_hour(None, 8))                             # no price: no rent
    assert math.isnan(rent_usd_per_hour(3.0, 8, None, True))                  # a drafter's price missing while it drafts
    assert rent_usd_per_hour(3.0, 8, None, False) == 24.0                     # ... but not while it does not
    assert usd_per_million_tokens(36.0, 1000.0) == pytest.approx(10.0)        # 36 USD/h / 3600 s / 1000 tokens/s x 1e6


def test_a_binary_size_takes_the_prefix_it_reaches():
    assert format_binary(2**30) == "1.00 GiB" and format_binary(2**20) == "1.00 MiB" and format_binary(1023) == "1,023 B"
    assert format_binary(2 * 2**40) == "2.00 TiB" and format_binary(1.5 * 2**40) == "1.50 TiB"


def test_small_figures_say_zero_counts_and_prices_as_documented():
    assert format_significant(0) == "0" and format_significant(0.0) == "0"
    assert format_count(12_345.6) == "12,346" and format_count(7.684) == "7.68" and format_count(100) == "100"
    assert format_usd_per_hour(0.0042) == "0.0042" and format_usd_per_hour(4.5) == "4.50" and format_usd_per_hour(2.125) == "2.125"
