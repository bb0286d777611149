import pytest

from roofline.units import format_seconds, format_si, parse_quantity


def test_decimal_and_binary_byte_prefixes_are_distinct():
    assert parse_quantity("80 GB", "bytes") == 80e9
    assert parse_quantity("1 GiB", "bytes") == 2**30
    assert parse_quantity("3.35 TB/s", "bytes_per_s") == 3.35e12


def test_compute_units_accept_flops_and_integer_ops():
    assert parse_quantity("989.4 TFLOP/s", "flops_per_s") == pytest.approx(989.4e12)
    assert parse_quantity("1978.9 TOP/s", "flops_per_s") == pytest.approx(1978.9e12)
    assert parse_quantity("20 us", "seconds") == pytest.approx(20e-6)


@pytest.mark.parametrize("text, kind", [("80", "bytes"), ("80 GB", "bytes_per_s"), ("3 TB/s", "bytes"), ("-1 GB", "bytes"),
                                        ("0 GB", "bytes"), ("nan GB", "bytes"), ("inf TB/s", "bytes_per_s"), ("fast", "seconds")])
def test_unreadable_or_wrong_unit_is_rejected(text, kind):
    with pytest.raises(ValueError):
        parse_quantity(text, kind)


def test_a_bare_number_is_not_a_quantity():
    with pytest.raises(ValueError):
        parse_quantity(80, "bytes")


def test_formatting_picks_a_readable_prefix():
    assert format_si(3.35e12, "B/s") == "3.35 TB/s"
    assert format_seconds(0.0123) == "12.3 ms"
