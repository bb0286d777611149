"""qa446: fleet_picks' order at one rent (fewest devices before the fastest, as its docstring says) and check_table's
numbers stored as text in tokens_per_s (mutation survivors of frontier.py's qa434/qa440 changes)."""

from __future__ import annotations

import pandas as pd
import pytest


def _rows(*rows):
    columns = ("tokens_per_s_per_user", "cost_usd_per_million_tokens", "fits_in_memory", "method", "k", "alpha", "batch")
    base = {"hardware": "h100-sxm", "model": "m", "engine": "vllm", "context": 4096, "tp": 1, "devices": 1,
            "tokens_per_s_per_device": 1.0}
    return pd.DataFrame([{**base, **dict(zip(columns, r))} for r in rows])


def test_at_one_rent_the_fewer_devices_win_over_the_faster_row():
    """Both 21.6 $/h for 100 users (1.0 x 6000 x 0.0036 and 0.75 x 8000 x 0.0036): 1 device at 60 tokens/s beats 2 at
    80 (dollars, then devices, then speed)."""
    from roofline.frontier import fleet_picks

    df = _rows((60, 1.0, True, "none", 0, None, 100), (80, 0.75, True, "none", 0, None, 100))
    df["devices"], df["tp"] = [1, 2], [1, 2]
    df["tokens_per_s"] = df["tokens_per_s_per_user"] * df["batch"]
    fleet = fleet_picks(df, 50, 100)["plain"]
    assert fleet["usd_per_hour"] == pytest.approx(21.6) and fleet["devices"] == 1
    assert fleet["row"]["tokens_per_s_per_user"] == 60


def test_a_throughput_stored_as_text_is_read_as_numbers_and_a_word_named_as_such():
    """tokens_per_s as text ('1200', as a Parquet column of strings holds it) becomes numbers, as the other columns
    check_numeric reads; a word in it is 'expected numbers, found 'many''."""
    from roofline.errors import RooflineError
    from roofline.frontier import check_table

    df = _rows((60, 1.0, True, "none", 0, None, 20), (40, 0.75, True, "none", 0, None, 40)).assign(alpha=float("nan"))
    df["tokens_per_s"] = pd.Series(["1200", "1600"], dtype=object)
    check_table(df, "t")
    assert pd.api.types.is_numeric_dtype(df["tokens_per_s"]) and list(df["tokens_per_s"]) == [1200, 1600]
    df["tokens_per_s"] = pd.Series(["1200", "many"], dtype=object)
    with pytest.raises(RooflineError, match=r"^t: tokens_per_s: expected numbers, found 'many'$"):
        check_table(df, "t")
