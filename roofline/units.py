"""Quantities with units, as written in profiles: "3.35 TB/s" -> 3.35e12 (bytes per second).

Every dimensional number in a hardware profile is a string "NUMBER UNIT". Parsing checks the unit
belongs to the expected quantity (a bandwidth cannot be given in GB) and returns SI base units:
bytes, bytes/s, FLOP/s, seconds, USD/s is NOT used: prices stay in USD per hour.
Decimal prefixes are powers of 1000 (GB = 1e9 B); binary ones powers of 1024 (GiB = 2**30 B).
"""

from __future__ import annotations

import math
import re

_DECIMAL = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
_BINARY = {"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40}

_BYTE_UNITS = {f"{p}B": f for p, f in {**_DECIMAL, **_BINARY}.items() if p not in ("E",)}
_UNITS: dict[str, dict[str, float]] = {
    "bytes": _BYTE_UNITS,
    "bytes_per_s": {f"{u}/s": f for u, f in _BYTE_UNITS.items()},
    "flops_per_s": {
        **{f"{p}FLOP/s": f for p, f in _DECIMAL.items() if p != "K"},
        **{f"{p}OP/s": f for p, f in _DECIMAL.items() if p != "K"},
        **{f"{p}OPS": f for p, f in _DECIMAL.items() if p not in ("", "K")},
    },
    "seconds": {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9},
    "usd_per_hour": {"USD/h": 1.0, "USD/hr": 1.0, "$/h": 1.0, "$/hr": 1.0},
}

EXAMPLES = {
    "bytes": "80 GB",
    "bytes_per_s": "3.35 TB/s",
    "flops_per_s": "989.4 TFLOP/s",
    "seconds": "20 us",
    "usd_per_hour": "3.00 USD/h",
}

_QUANTITY = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([^\s\d].*?)\s*$")


def parse_quantity(text: object, kind: str) -> float:
    """Parse "NUMBER UNIT" into SI units of `kind` (a key of `_UNITS`).

    Raises ValueError with a short reason ("no unit", "unit 'GB' is not a bandwidth", ...); the
    caller adds file and field. The value must be finite and strictly positive.
    """
    if isinstance(text, bool) or not isinstance(text, str):
        raise ValueError(f"a string like '{EXAMPLES[kind]}'")
    match = _QUANTITY.match(text)
    if not match:
        raise ValueError(f"a number with a unit, like '{EXAMPLES[kind]}'")
    number, unit = float(match.group(1)), match.group(2)
    table = _UNITS[kind]
    if unit not in table:
        raise ValueError(f"a unit among {', '.join(sorted(table))} (like '{EXAMPLES[kind]}')")
    value = number * table[unit]
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"a finite positive quantity like '{EXAMPLES[kind]}'")
    return value


def format_si(value: float, unit: str, digits: int = 3) -> str:
    """Human-readable value with a decimal prefix: format_si(3.35e12, 'B/s') -> '3.35 TB/s'."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g} {unit}"
    for prefix, factor in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3), ("", 1.0)):
        if abs(value) >= factor:
            return f"{value / factor:.{digits}g} {prefix}{unit}"
    return f"{value:.{digits}g} {unit}"


def format_seconds(value_s: float) -> str:
    """Seconds at a readable scale: 0.0123 -> '12.3 ms'."""
    for unit, factor in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if abs(value_s) >= factor:
            return f"{value_s / factor:.3g} {unit}"
    return f"{value_s:.3g} s"
