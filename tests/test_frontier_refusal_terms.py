"""Rows `roofline cheapest` leaves out as refused (frontier.py) that the suite did not pin, found by mutation testing (qa493).
Each test gives the rule it pins."""

from __future__ import annotations

import pandas as pd


def _spec_rows(**columns):
    """Speculative rows (k 3 at alpha 0.8) of one model, one a value of each column given."""
    n = len(next(iter(columns.values())))
    base = {"hardware": "h100-sxm", "model": "llama-3.1-8b", "engine": "sglang", "context": 4096, "tp": 1, "devices": 1,
            "dp_attention": 1, "ep": 1, "pp": 1, "fits_in_memory": True, "method": "eagle", "k": 3, "alpha": 0.8,
            "batch": 8, "tokens_per_s_per_user": 100.0, "cost_usd_per_million_tokens": 1.0}
    df = pd.DataFrame([base] * n)
    for name, values in columns.items():
        df[name] = values
    return df


def test_a_method_the_engine_has_no_drafter_for_is_refused_on_every_device():
    """SGLang has no Medusa drafter (engine_profiles/sglang.yaml: speculation_refused [medusa]), on any device: its
    Medusa rows on h100-sxm and on h200 are both refused, one entry a device (refused_methods keeps one entry a
    refusal and device; the note alone is the same text for both)."""
    from roofline.frontier import refused_methods, refused_rows

    df = _spec_rows(hardware=["h100-sxm", "h200"], method=["medusa", "medusa"])
    refused = refused_methods(df)
    assert sorted(e["hardware"] for e in refused) == ["h100-sxm", "h200"]
    assert list(refused_rows(df, refused)) == [True, True]


def test_a_layout_degree_read_as_a_float_matches_a_refusals_whole_number():
    """refused_rows: 'a layout degree: 32 and a CSV's 32.0 alike'. SGLang refuses draft-model drafting under attention
    DP (speculation_refused_with_dp_attention [draft, ngram]); refused_methods names dp_attention 2 (a whole number),
    and a table whose dp_attention column was read as floats (2.0, 1.0) has its row at dp_attention 2.0 refused, the
    one at 1.0 not."""
    from roofline.frontier import refused_methods, refused_rows

    df = _spec_rows(method=["draft", "draft"], dp_attention=[2.0, 1.0], tp=[2, 2], devices=[4, 2])
    entry = {"engine": "sglang", "hardware": "h100-sxm", "method": "draft", "dp_attention": 2, "speculative_only": True,
             "note": "draft speculation under sglang at dp_attention 2"}
    assert list(refused_rows(df, [entry])) == [True, False]
    refused = refused_methods(df)
    assert [e.get("dp_attention") for e in refused] == [2]
    assert list(refused_rows(df, refused)) == [True, False]


def test_a_k_0_row_of_a_method_the_engine_refuses_is_plain_decoding_and_no_refusal():
    """refused_methods reads 'the speculative rows' (k > 0)': Medusa at k 0 under SGLang drafts nothing (cheapest's
    _candidates reads it as a plain row, method none), so a table of such rows alone has no refusal to say (a figure's
    footer would name 'medusa speculation under sglang' for rows that run), and none of them is left out."""
    from roofline.frontier import refused_layouts, refused_methods, refused_rows

    df = _spec_rows(method=["medusa", "medusa"], k=[0, 0], batch=[8, 16])
    assert refused_methods(df) == []
    assert not refused_rows(df, refused_layouts(df)[0]).any()


def test_one_row_without_a_cost_is_said_in_the_singular():
    """frontier_notes counts the rows left out for no cost: one row of two unpriced reads '1 row has no cost', not
    '1 rows have' (qa458)."""
    from roofline.frontier import frontier_notes

    df = _spec_rows(method=["none", "none"], k=[0, 0], batch=[8, 16], cost_usd_per_million_tokens=[1.0, float("nan")])
    notes = [n for n in frontier_notes(df) if "no cost" in n]
    assert len(notes) == 1 and notes[0].startswith("1 row has no cost (swept without a price for h100-sxm): left out")
