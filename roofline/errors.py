"""The single error type for bad user input.

Anything a user can get wrong (a file, a field, a name, a flag value) raises `RooflineError` with
one line that names where (file and field), what was expected and what was found. The CLI prints
that line and exits with code 2; no traceback reaches the user.
"""

from __future__ import annotations

import datetime
import difflib
import math
import os
import re
from pathlib import Path

from roofline.units import is_finite


class RooflineError(ValueError):
    """Bad input, described in one line."""


MISSING = object()  # field_error's `found` for a field that is not there: "found nothing"

# where a file's fields are: {where (the file's path as read): {field ("efficiency.memory", "attention.groups[0].layers"):
# its 1-based line}}, filled by yamlio as it reads YAML files, so that field_error can say the line
FIELD_LINES: dict[str, dict[str, int]] = {}


def field_line(where: str, field: str) -> int | None:
    """The line of `field` in file `where` as last read (else of the nearest enclosing field), or None."""
    lines = FIELD_LINES.get(where)
    if not lines:
        return None
    name = field
    while name:
        if name in lines:
            return lines[name]
        cut = max(name.rfind("."), name.rfind("["))
        name = name[:cut] if cut > 0 else ""
    return None


def with_line(where: str, exc: RooflineError) -> RooflineError:
    """`exc`, 'FILE: FIELD: ...', with FIELD's line in FILE put after the file where it names one without it (qa242: a
    scenario's `method: mtp` on Llama, `ep: 2` on a dense model, `tp: 3` said no line; field_error says it already)."""
    import copy

    text, head = str(exc), f"{where}: "
    field = text[len(head):].split(": ", 1)[0] if text.startswith(head) else ""
    line = field_line(where, field) if field and not field.startswith("line ") and " " not in field else None
    if line is None:
        return exc
    lined = copy.copy(exc)
    lined.args = (f"{head}line {line}: {text[len(head):]}", *exc.args[1:])
    return lined


def shown_value(found: object) -> str:
    """A value as an error line shows it: dates and booleans as YAML writes them (2024-01-01, true), a value whose repr
    takes several lines (a pandas Series or DataFrame) by its type ('a Series': qa218, qa220), any other by its repr on
    one line, cut at 120 characters."""
    if isinstance(found, (datetime.date, datetime.time)):  # YAML reads 2024-01-01 as a date: show it as written
        found = found.isoformat()
    if isinstance(found, bool):  # YAML's and JSON's true / false, as written, not Python's True / False
        return str(found).lower()
    if type(found) is float and math.isfinite(found) and abs(found) >= 1e15:  # its shortest form: 1.2e+15 as typed
        return next(t for d in range(1, 18) if float(t := f"{found:.{d}g}") == found)  # 1.2e15, not 1200000000000000.0
    #   (qa311); smaller floats by their repr, 16.0 told from 16
    text = repr(found)
    if "\n" in text.strip():
        return f"a {type(found).__name__}"
    shown = " ".join(text.split()) if "\n" in text else text  # a string's spaces as given ('  ', not ' ': qa288)
    return shown[:117] + "..." if len(shown) > 120 else shown


PYTHON_CALLS = ("predict", "sweep", "load_hardware", "load_model", "load_engine")  # the public API's `where`s


def field_error(where: str, field: str, expected: str, found: object) -> RooflineError:
    """Build the standard message: `FILE: FIELD: expected EXPECTED, found FOUND` (MISSING: found nothing).

    Dates and booleans are shown as YAML writes them (2024-01-01, true), null as YAML and JSON write it where `where`
    names such a file (None from Python), other values by their repr.
    """
    in_file = re.search(r"\.(ya?ml|jsonl?)\b", where, re.IGNORECASE) is not None  # (qa435: .jsonl said None)
    shown = "nothing" if found is MISSING else "null" if found is None and in_file else shown_value(found)  # qa223: a
    # file's `key:` or JSON null read as Python's None
    if isinstance(found, bool) and where in PYTHON_CALLS:  # a library caller's True, as passed (qa344: 'found true')
        shown = repr(found)
    line = field_line(where, field)
    return RooflineError(f"{where}: {f'line {line}: ' if line else ''}{shown_field(field)}: expected {expected}, found {shown}")


def shown_field(field: str) -> str:
    """A field name as an error line shows it: as written, or by its repr where it holds a line break, a tab or other
    unprintable character (a YAML key of '\n\n  ' made a message of three lines; the fuzz tests)."""
    return field if str(field).isprintable() else repr(field)


def prose(where: str, field: str, value: object, default: str = "") -> str:
    """A text field (display_name, version, source, notes): a string, or what YAML read from unquoted digits as a
    finite number (`display_name: 4090`, as Python writes the number: 1.10 is '1.1'; a version's decimals refused, as
    0.10 is not 0.1) or a date (ISO); `default` where
    absent (None); anything else (a list, a mapping, a bool, inf) the standard one-line error."""

    if value is None:
        return default
    if isinstance(value, str):
        return value
    if isinstance(value, (datetime.date, datetime.time)):  # `version: 2025-06-01`: YAML reads a date
        return value.isoformat()
    if field == "version" and isinstance(value, float):  # `version: 0.10` reads 0.1, another release (qa108)
        raise field_error(where, field, "text in quotes (YAML reads an unquoted 0.10 as the number 0.1)", value)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and is_finite(value):
        return str(value)
    raise field_error(where, field, "text", value)


def check_choice(where: str, field: str, value: object, choices) -> str:
    """`value` if it is one of `choices` (strings), else one line naming them: 'expected gqa | shared_kv | mla'."""
    if not isinstance(value, str) or value not in choices:
        raise field_error(where, field, " | ".join(choices), value)
    return value


def check_flag(where: str, field: str, value: object) -> bool:
    """`value` if it is true or false (not 0, 1 or a string), else the standard one-line error."""
    if not isinstance(value, bool):
        raise field_error(where, field, "true or false", value)
    return value


class UnknownName(RooflineError):
    """A profile name that names no profile (a scenario adds its file and key in front)."""


class WrongKind(RooflineError):
    """A profile given by path whose `type:` or keys say it is of another kind (a model file given as hardware)."""


class UnreadableProfile(RooflineError):
    """A user file that would be the profile asked for, but cannot be read or told (`path` names it): `edit` opens it
    with this message on top, since an edit is how such a file gets fixed."""

    def __init__(self, message: str, path):
        super().__init__(message)
        self.path = path


def bare_name(name: object) -> str:
    """A name with case and separators ('-', '_', '.', spaces) aside, as names are compared: trt_llm and TRT-LLM alike."""
    return re.sub(r"[-_. ]+", "", str(name).strip().lower())


def closest_names(name: object, known, n: int = 3, cutoff: float = 0.6) -> list[str]:
    """The `n` names of `known` most like `name`, most alike first, those at least `cutoff` alike: the one rule every
    did-you-mean uses (profile names, fields, columns, methods, dtypes). Likeness is difflib's ratio with case and
    separators aside ('H100-PCIE-80' is h100pcie80, near h100pcie) plus half the share of `name` a like start covers
    (h100-pcie-80gb: h100-pcie before a100-pcie-40gb); a name of thousands of characters is read to its first 200."""
    score = {str(k): likeness(name, k) for k in known}
    return [k for k in sorted(score, key=score.__getitem__, reverse=True) if score[k] >= cutoff][:n]


def likeness(name: object, known_name: object) -> float:
    """closest_names' likeness of `name` to `known_name`: difflib's ratio of the two, separators and case aside, plus
    half the share of `name` a like start covers (0 to 1.5)."""
    asked, other = bare_name(str(name)[:200]), bare_name(str(known_name))
    start = len(os.path.commonprefix([asked, other])) / max(len(asked), 1)
    return difflib.SequenceMatcher(None, asked, other).ratio() + 0.5 * start


def unknown_name_error(kind: str, name: str, known: list[str]) -> RooflineError:
    """An unknown profile name, with the closest known names (a name of thousands of characters shown cut to 80), and
    a file of that name in the working directory said first (qa242: `roofline sweep s01` beside s01.yaml was offered
    three unrelated built-ins)."""
    name = str(name)
    here = next((f"./{name}{suffix}" for suffix in (".yaml", ".yml")
                 if len(name) < 200 and "/" not in name and os.sep not in name and Path(name + suffix).is_file()), None)
    if here:
        return UnknownName(f"unknown {kind} {name!r}; {here} is a file here: give its path ({here}) to read it")
    close = closest_names(name, known, 3, 0.4) or closest_names(name, known, 3, 0.0)
    hint = ", ".join(close) if close else "none installed"
    listing = {"hardware": " (see `roofline hw list`)", "model": " (see `roofline models list`)",
               "engine": " (see `roofline engines list`)", "scenario": " (see `roofline scenarios list`)"}.get(kind, "")
    shown = repr(name) if len(name) <= 80 else f"{name[:80]!r}... ({len(name):,} characters)"
    return UnknownName(f"unknown {kind} {shown}; closest: {hint}{listing}")


class RooflineWarning(UserWarning):
    """A value that loads but looks suspicious (the CLI prints it as one `warning:` line)."""


def warn(message: str) -> None:
    """Report a suspicious but accepted value; the CLI prints it on stderr, tests can catch it. It is attributed to
    the first caller outside the package (a notebook cell's `roofline.sweep(...)` line), as Python's own warnings are."""
    import sys
    import warnings

    package = str(Path(__file__).resolve().parent) + os.sep  # (its separator: a caller's folder named roofline_nb is
    level, frame = 2, sys._getframe(1)  # not the package, qa318)
    while frame.f_back is not None and (str(Path(frame.f_code.co_filename).resolve()).startswith(package)
                                        or Path(frame.f_code.co_filename).name == "contextlib.py"):  # a with-block's exit
        frame, level = frame.f_back, level + 1
    warnings.warn(RooflineWarning(message), stacklevel=level)


def unknown_key_error(where: str, key: object, known, prefix: str = "") -> RooflineError:
    """An unknown key, with the nearest valid one: `FILE: KEY: expected a known field (did you mean X?), found KEY`;
    `prefix`: the mapping it is in (`moe.`), said before the key and not matched (qa182: moe.topk had no hint)."""
    text = str(key)[:80]
    close = closest_names(text, sorted(known), 3, 0.65)  # anme: name (qa94)
    # a name at least 0.7 alike, and those within 0.1 of it: `bandwith` is near link_bandwidth and memory_bandwidth (qa98)
    best = likeness(text, close[0]) if close else 0.0
    close = [c for c in close if best >= 0.7 and likeness(text, c) >= best - 0.1]
    # a field as the JSON outputs name it, its unit in the name (price_usd_per_hour: price; qa336): the field, whose
    # value carries its unit
    stem = re.sub(r"_(usd_per_hour|bytes_per_s|flops_per_s|bytes|s)$", "", text)
    if stem != text and stem in set(map(str, known)):
        hint = f"did you mean {stem!r}, its value a number with its unit?"
    else:
        hint = f"did you mean {' or '.join(repr(c) for c in close)}?" if close else "one of " + ", ".join(sorted(known))
    line = field_line(where, prefix + text)  # a file read with its lines: where the typo is (qa182: value errors said it)
    return RooflineError(f"{where}: {f'line {line}: ' if line else ''}{shown_field(prefix + text)}: expected a known field "
                         f"({hint}), found {text!r}")


def said_as(exc: RooflineError, text: str) -> RooflineError:
    """`exc` with message `text`, its class and fields kept (UnknownName, an UnreadableProfile's `path`: qa191)."""
    out = type(exc).__new__(type(exc))  # not copy.copy: it calls the class with args, which UnreadableProfile's refuses
    out.__dict__.update(exc.__dict__)
    out.args = (text,)
    return out
