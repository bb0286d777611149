"""Quantities with units, as written in profiles: "3.35 TB/s" -> 3.35e12 (bytes per second).

Every dimensional number in a hardware profile is a string "NUMBER UNIT". One strict parser turns
it into SI base units (bytes, bytes/s, FLOP/s, seconds; prices stay in USD per hour) and checks
that the unit belongs to the expected quantity: "80 GB" given as a bandwidth is refused with
"'GB' is a size in bytes, not a bandwidth".

Prefixes: decimal ones are powers of 1000 (GB = 1e9 B), binary ones powers of 1024 (GiB = 2**30 B);
the two are never mixed up. Accepted spellings (the datasheet ones included):
    bytes        B, kB/KB, MB, GB, TB, PB; KiB, MiB, GiB, TiB, PiB
    bandwidth    any byte unit + "/s" (GB/s, TB/s, GiB/s), or + "ps" (GBps)
    compute      FLOP/s, GFLOP/s, TFLOP/s, PFLOP/s; FLOPS, TFLOPS, TFLOPs (same); OP/s, TOP/s, TOPS (integer ops)
    time         s, ms, us, µs, μs, ns
    price        USD/h, USD/hr, USD/hour, $/h, $/hr, $/hour
Bits are refused with a hint ("Gb" is gigabits; write GB). The number must be finite and > 0.
"""

from __future__ import annotations

import decimal
import math
import re

# A number as a person or a CSV writes it: ASCII digits, a point, an exponent. Python's int() and float() also take
# 1_000 and digits of other scripts (full-width, Arabic-Indic), which YAML profiles refuse or read apart (qa279, qa289)
PLAIN_NUMBER = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def plain_float(text: str) -> float:
    """`text` (spaces around it aside) as a float where it is a PLAIN_NUMBER, or nan / inf in any case; else ValueError."""
    t = text.strip()
    if PLAIN_NUMBER.fullmatch(t) or t.lower().lstrip("+-") in ("nan", "inf", "infinity"):
        return float(t)
    raise ValueError(f"not a plain number: {text!r}")


def is_finite(value) -> bool:
    """math.isfinite, and False for an integer too large for a float (a YAML 10**400 raised OverflowError: the
    fuzzer found it in scenarios and engine profiles)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


_DECIMAL = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
_BINARY = {"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50}

_BYTE_UNITS = {f"{p}B": f for p, f in {**_DECIMAL, **_BINARY}.items()}  # EB too: the range check names it
BYTE_UNITS = tuple(_BYTE_UNITS)  # every spelling of a size unit (B, kB, GiB, ...)
_FLOP_UNITS: dict[str, float] = {}
for _p, _f in _DECIMAL.items():
    if _p == "K":
        continue
    for _suffix in ("FLOP/s", "FLOPS", "FLOPs", "Flops", "FLOP/S", "OP/s", "OPS", "OPs"):
        if _suffix in ("OPS", "OPs") and _p == "":
            continue  # a bare "OPS" reads as a word, not a unit
        _FLOP_UNITS[f"{_p}{_suffix}"] = _f

_UNITS: dict[str, dict[str, float]] = {
    "bytes": _BYTE_UNITS,
    "bytes_per_s": {**{f"{u}/s": f for u, f in _BYTE_UNITS.items()}, **{f"{u}ps": f for u, f in _BYTE_UNITS.items()}},
    "flops_per_s": _FLOP_UNITS,
    "seconds": {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ns": 1e-9},
    "usd_per_hour": {"USD/h": 1.0, "USD/hr": 1.0, "USD/hour": 1.0, "$/h": 1.0, "$/hr": 1.0, "$/hour": 1.0},
}
TIME_UNITS = tuple(_UNITS["seconds"])  # every spelling of a time unit

KIND_WORDS = {
    "bytes": "a size in bytes",
    "bytes_per_s": "a bandwidth",
    "flops_per_s": "a compute rate",
    "seconds": "a time",
    "usd_per_hour": "a price per hour",
}

EXAMPLES = {
    "bytes": "80 GB",
    "bytes_per_s": "3.35 TB/s",
    "flops_per_s": "989.4 TFLOP/s",
    "seconds": "20 us",
    "usd_per_hour": "3.00 USD/h",
}

# The physical range a quantity of each kind may take (SI): a value outside it is a wrong unit or a typo, not a device
# (1e-300 B/s made every time infinite and printed nan). Wide on purpose: a microcontroller to a rack, a ns to an hour.
PHYSICAL_RANGE = {
    "bytes": (1e3, 1e16),              # 1 kB .. 10 PB
    "bytes_per_s": (1e6, 1e18),        # 1 MB/s .. 1 EB/s (a wafer-scale chip's on-chip memory: about 21 PB/s)
    "flops_per_s": (1e6, 1e19),        # 1 MFLOP/s .. 10 EFLOP/s (per device; a wafer-scale chip: about 0.1 EFLOP/s)
    "seconds": (1e-12, 3600.0),        # 1 ps .. 1 h
    "usd_per_hour": (1e-6, 1e6),
}

_QUANTITY = re.compile(r"^\s*([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)\s*([^\s0-9].*?)\s*$")  # ASCII digits only
_BITS = re.compile(r"^[kKMGTP]?i?(b|bit|bits)(/s|ps)?$")
MAX_TEXT = 64


def count_spelling_hint(text: str, accepts, binary: bool = True) -> str:
    """' (write 32768 for 32 x 1,024, or 32000 for 32 x 1,000)' for a count written '32k' (or 'M'), ' (write 1024: no
    separators)' for '1,024', each value offered only where `accepts(value)`; '' otherwise (qa421: refused without the
    digits meant). A k is not guessed binary or decimal: a context's 32k is usually 32,768, a batch's 2k often 2,000;
    `binary` False: a count of people or devices, read decimal alone (qa431: 500k users offered 512000)."""
    t = str(text).strip()
    if re.fullmatch(r"[0-9]{1,3}(,[0-9]{3})+", t) and accepts(int(t.replace(",", ""))):
        return f" (write {t.replace(',', '')}: no separators)"
    scaled = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)\s*([kKmM])", t)
    if not scaled:
        return ""
    count = decimal.Decimal(scaled.group(1))
    binary_unit, metric = (1024, 1000) if scaled.group(2) in "kK" else (1024**2, 1000**2)
    ways = [int(count * unit) for unit in ((binary_unit, metric) if binary else (metric,))
            if count * unit == (count * unit).to_integral_value() and accepts(int(count * unit))]
    if len(ways) == 2 and ways[0] != ways[1]:  # (0k is 0 both ways: said once, qa427)
        return f" (write {ways[0]} for {scaled.group(1)} x {binary_unit:,}, or {ways[1]} for {scaled.group(1)} x {metric:,})"
    return f" (write {ways[0]})" if ways else ""


def unit_kind(unit: str) -> str | None:
    """The quantity a unit measures (a key of `_UNITS`), or None if it is not a known unit."""
    for kind, table in _UNITS.items():
        if unit in table:
            return kind
    return None


def rent_usd_per_hour(price_usd_per_hour: float | None, devices, draft_price_usd_per_hour: float | None = 0.0, drafting=False):
    """The devices' rent while they decode: price x devices, plus a drafter's own device's price while it drafts
    (`drafting`, a bool or an array); NaN where a price it needs is missing (None)."""
    import numpy as np

    base = np.nan if price_usd_per_hour is None else price_usd_per_hour * devices
    draft = np.nan if draft_price_usd_per_hour is None else draft_price_usd_per_hour
    return base + np.where(drafting, draft, 0.0)


def usd_per_million_tokens(usd_per_hour, tokens_per_s):
    """Cost of a million tokens: usd_per_hour / 3600 / tokens_per_s * 1e6 (arrays broadcast)."""
    return usd_per_hour / 3600.0 / tokens_per_s * 1e6


_DOLLARS = re.compile(r"^\s*\$\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*/\s*(?:h|hr|hour)\s*$")


PRICE_SPANS = {"month": ("month", 730), "mo": ("month", 730), "day": ("day", 24), "d": ("day", 24),
               "year": ("year", 8760), "yr": ("year", 8760),
               "s": ("second", 1 / 3600), "sec": ("second", 1 / 3600), "second": ("second", 1 / 3600),
               "min": ("minute", 1 / 60), "minute": ("minute", 1 / 60)}  # a price a span, said once divided by its hours


def parse_quantity(text: object, kind: str) -> float:
    """Parse "NUMBER UNIT" into SI units of `kind` (a key of `_UNITS`).

    Raises ValueError with a short reason ("a unit among ...", "'GB' is a size in bytes, not a
    bandwidth", ...); the caller adds file and field. The value must be finite, strictly positive, and within
    its kind's PHYSICAL_RANGE.
    """
    example = EXAMPLES[kind]
    if isinstance(text, bool) or not isinstance(text, str):
        raise ValueError(f"a string like '{example}'")
    if len(text) > MAX_TEXT:
        raise ValueError(f"a short quantity like '{example}' (at most {MAX_TEXT} characters)")
    if kind == "usd_per_hour":  # a price as people write one: '$2.50/hr', '2 usd/h' (currency units have no case to keep)
        dollars = _DOLLARS.match(text)
        text = f"{dollars.group(1)} USD/h" if dollars else re.sub(r"(?i)usd", "USD", text.strip())
    if re.match(r"\s*[0-9]+[,_][0-9]+(\s|$)", text):  # qa98: '2,10 USD/h' (and qa102: '1_000 GB') was told its unit was
        raise ValueError(f"a number without a comma or '_' ('.' for the decimal point, no thousands separator), like "  # unknown
                         f"'{example}'")
    if re.match(r"\s*[+-]?0[xXoObB][0-9a-fA-F]", text):  # qa373: '0x40 GB' was told its unit ('x40 GB') was unknown
        raise ValueError(f"a decimal number with a unit, like '{example}' (not hexadecimal, octal or binary)")
    match = _QUANTITY.match(text)
    if not match:
        raise ValueError(f"a number with a unit, like '{example}'")
    number_text, unit = match.group(1), match.group(2)
    table = _UNITS[kind]
    if unit not in table:
        other = unit_kind(unit)
        if other is not None:
            raise ValueError(f"{KIND_WORDS[kind]} like '{example}' ('{unit}' is {KIND_WORDS[other]}, not {KIND_WORDS[kind]})")
        if _BITS.match(unit):
            raise ValueError(f"bytes, not bits, like '{example}' ('{unit}' is in bits: divide by 8 and write B)")
        words = unit.split()
        if len(words) > 1 and words[0] in table:  # '4.8 PFLOP/s sparse' (qa311): one unit, nothing after it
            raise ValueError(f"a number and one unit with nothing after it, like '{example}'"
                             + (" (peaks are dense: a sparsity figure is not taken)" if "spars" in unit.lower() else ""))  # (qa389: sparsity)
        by_size: dict[float, str] = {}  # one spelling a size, smallest first (qa311: an alphabetical cut hid TFLOP/s)
        for u in sorted(table, key=lambda u: (table[u], not u[0].isalnum(), "/" in u and not u.endswith(("/s", "/h")),
                                              u.upper() == u, u)):
            by_size.setdefault(table[u], u)
        shown = list(by_size.values())
        if kind == "usd_per_hour":  # one spelling a size hid the others (qa336), and a price a month or a day is one
            shown = list(table)  # an hour's once divided (730 hours a month)
            per = re.fullmatch(r"(USD|\$)\s*/\s*(month|mo|day|d|year|yr|second|sec|s|minute|min)", unit.strip(),
                               re.IGNORECASE)  # dollars only (qa415: '0.001 USD/s' got the list of units alone)
            # (qa339: '1800 EUR/month' was told a figure in USD)
            span, hours = PRICE_SPANS[per.group(2).lower()] if per else (None, 0)
            number = float(decimal.Decimal(number_text.strip())) if span else 0.0
            if span and is_finite(number) and number > 0:
                how = (f"divided by {hours:,}" if hours >= 1 else f"multiplied by {round(1 / hours):,}")
                raise ValueError(f"a price an hour, like '{example}' (a price a {span} is one an hour once {how}: "
                                 f"{number / hours:.4g} USD/h)")
        cased = sorted({u for u in table if u.lower() == unit.lower()})  # '96 gb', '19.6 tb/s' (qa477: the list alone)
        cased = [u for u in cased if u in shown] or cased[:1]  # the spelling the list gives
        raise ValueError(f"a unit among {', '.join(shown[:16])}{' ...' if len(shown) > 16 else ''} (like '{example}'"
                         + ("; OP/s alike for integer dtypes: TOP/s" if kind == "flops_per_s" else "")  # (qa316)
                         + (f"; units are read in their case: {' or '.join(repr(u) for u in cased)}?" if cased else "") + ")")
    # in decimal, rounded once: 66.9 TFLOP/s is 66900000000000.0, where 66.9 * 1e12 gave 66900000000000.01 (qa301: in
    # `hw show --json`), and a fraction divides by its whole inverse: 20 us is 2e-05 s, where 20 * 1e-6 gave
    # 1.9999999999999998e-05
    factor = table[unit]
    number = decimal.Decimal(number_text.strip())
    try:
        value = float(number * decimal.Decimal(repr(factor)) if factor >= 1 else number / round(1.0 / factor))
    except ArithmeticError:  # decimal's Overflow past its exponent range (1e999999 TB/s; qa304: a traceback)
        value = math.inf
    if not is_finite(value) or value <= 0:
        raise ValueError(f"a finite positive quantity like '{example}'")
    low, high = PHYSICAL_RANGE[kind]
    if not low <= value <= high:
        raise ValueError(f"{KIND_WORDS[kind]} between {format_quantity(low, kind)} and {format_quantity(high, kind)}, "
                         f"like '{example}'")
    return value


def format_quantity(value: float, kind: str) -> str:
    """A quantity of `kind` as a profile would write it: format_quantity(1e6, 'bytes_per_s') -> '1 MB/s'."""
    unit = {"bytes": "B", "bytes_per_s": "B/s", "flops_per_s": "FLOP/s", "seconds": "s", "usd_per_hour": "USD/h"}[kind]
    if kind in ("seconds", "usd_per_hour"):
        return f"{value:g} {unit}"
    return format_si(value, unit)


def format_si(value: float, unit: str, digits: int = 3) -> str:
    """Human-readable value with a decimal prefix: format_si(3.35e12, 'B/s') -> '3.35 TB/s'."""
    if value == 0 or not is_finite(value):
        return f"{value:g} {unit}"
    shown = float(f"{value:.{digits}g}")  # the prefix of the value as rounded (qa464: 999.9 GB/s said '1e+03 GB/s')
    for prefix, factor in (("E", 1e18), ("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3), ("", 1.0)):
        if abs(shown) >= factor:
            return f"{shown / factor:.{digits}g} {prefix}{unit}"
    return f"{value:.{digits}g} {unit}"


def format_binary(value_bytes: float) -> str:
    """A size with a binary prefix, 3 significant digits: '16.4 GiB', '23.7 MiB', as the serving engines' start-up logs
    give weights and KV cache (vLLM's 'GiB', SGLang's 'GB' of 2**30 B; qa369: predict's decimal GB read 7% off them)."""
    for prefix, factor in (("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        text = format_significant(value_bytes / factor)
        if abs(float(text.replace(",", ""))) >= 1:  # as rounded (qa464: 1023.9 MiB said '1,024 MiB', not '1.00 GiB')
            return f"{text} {prefix}B"
    return f"{format_significant(value_bytes)} B"


def format_significant(x: float, digits: int = 3) -> str:
    """A number for prose and tables: `digits` significant digits, trailing zeros kept, thousands separated, never in
    exponent form: 21,507; 1,230; 1.60; 0.0551."""
    x = float(x)
    if not is_finite(x):
        return "n/a"
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(float(f"{x:.{digits - 1}e}"))))  # of x as rounded (qa464: 9.996 said '10.00')
    if mag >= digits - 1:
        return f"{round(x):,.0f}"
    return f"{x:.{max(digits - 1 - mag, 0)}f}"


def format_given(x: float) -> str:
    """A number a user gave, as they would write it: up to 7 significant digits, thousands separated, in exponent form
    only from 10^15: 60, 60.5, 1,000,000,000 (qa433: 'cheapest at 1e+09 tokens/s per user'), 1e+30 (qa288: not as 31
    digits)."""
    text = f"{float(x):.7g}"  # as rounded: 999999999999999.9 is 1e+15 (qa437)
    return text if abs(float(text)) >= 1e15 else format(decimal.Decimal(text), ",f")


def format_count(x: float) -> str:
    """A count of sequences (a mean in flight, a batch) as notes and tables say it: '64', '12,346', '7.68' (qa314:
    1.235e+04)."""
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def spoken_list(items) -> str:
    """A list as prose says it: 'a', 'a and b', 'a, b and c' ('' for none)."""
    items = [str(i) for i in items]
    return "" if not items else items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def format_usd_per_hour(price: float) -> str:
    """A price to the cent at least, a tenth of a cent at most: 4.50, 3.00, 2.125 (a negotiated rate keeps its digits),
    1.123 for 1.12345678."""
    if 0 < price < 0.01:
        return f"{price:.2g}"
    if round(price, 2) == price:
        return f"{price:,.2f}"
    return f"{round(price, 3):,.3f}"


def format_context(tokens: float) -> str:
    """A context length as titles and findings say it: 8192 -> '8k', 1048576 -> '1M', 1000 -> '1,000'."""
    t = int(tokens)
    if t >= 1024 ** 2 and t % 1024 ** 2 == 0:  # qa117: '1024k' for a million-token context
        return f"{t // 1024 ** 2}M"
    return f"{t // 1024}k" if t >= 1024 and t % 1024 == 0 else f"{t:,}"


def format_seconds(value_s: float) -> str:
    """Seconds at a readable scale: 0.0123 -> '12.3 ms', '58,912 s' from a thousand; below a nanosecond in ns (9e-10 -> '0.9 ns', qa395: '9e-10 s'
    beside '3.86 ns'), zero (and what is not a finite number) in s."""
    if abs(float(f"{value_s:.3g}")) >= 1000:  # never in exponent form (qa433: 'iteration 5.89e+04 s')
        return f"{format_significant(value_s)} s"
    for unit, factor in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if abs(float(f"{value_s:.3g}")) >= factor:  # as printed: 0.99996 s is 1 s, not 1e+03 ms (qa397)
            return f"{value_s / factor:.3g} {unit}"
    return f"{value_s / 1e-9:.3g} ns" if value_s != 0 and value_s == value_s else f"{value_s:.3g} s"


_ZERO_TIME = re.compile(r"^\s*[+-]?(0+(\.0*)?|\.0+)([eE][+-]?\d+)?\s*(" + "|".join(map(re.escape, TIME_UNITS))
                        + r")?\s*$")  # any time unit; '.0 ms', '0e0 s', '+0 us' too (qa464: refused as 'expected 0 or more')


def parse_seconds_or_zero(value: object) -> float:
    """A profile's time that may be zero (a cost a device or an engine does not have): 0, '0', '0 ms', '0.0 us' give
    0.0; anything else parse_quantity(value, 'seconds'), whose refusal says 'a finite time of 0 or more'."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if (number and value == 0) or (isinstance(value, str) and _ZERO_TIME.match(value)):
        return 0.0
    try:
        return parse_quantity(value, "seconds")
    except ValueError as exc:
        raise ValueError(str(exc).replace("a finite positive quantity", "a finite time of 0 or more")) from None
