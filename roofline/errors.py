"""The single error type for bad user input.

Anything a user can get wrong (a file, a field, a name, a flag value) raises `RooflineError` with
one line that names where (file and field), what was expected and what was found. The CLI prints
that line and exits with code 2; no traceback reaches the user.
"""

from __future__ import annotations

import difflib


class RooflineError(ValueError):
    """Bad input, described in one line."""


def field_error(where: str, field: str, expected: str, found: object) -> RooflineError:
    """Build the standard message: `FILE: FIELD: expected EXPECTED, found FOUND`."""
    return RooflineError(f"{where}: {field}: expected {expected}, found {found!r}")


def unknown_name_error(kind: str, name: str, known: list[str]) -> RooflineError:
    """An unknown profile name, with the closest known names."""
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.4)
    if not close:
        close = sorted(known, key=lambda k: -difflib.SequenceMatcher(None, name, k).ratio())[:3]
    hint = ", ".join(close) if close else "none installed"
    listing = {"hardware": " (see `roofline hw list`)", "model": " (see `roofline models list`)"}.get(kind, "")
    return RooflineError(f"unknown {kind} {name!r}; closest: {hint}{listing}")
