"""What the figures mark (plots.py), found by mutation testing (qa483): memory bands, best k, losing points,
frontier labels and break-even, where the suite drew the figure but did not pin the mark. Each test names the mutant
it kills."""

from __future__ import annotations

import pytest
from matplotlib.figure import Figure

from roofline import plots

pytestmark = pytest.mark.slow  # imports matplotlib, which the quick loop never does


def _log2_frame():
    ax = Figure().add_subplot()
    ax.set_xscale("log", base=2)
    ax.set_xlim(1, 1024)  # ten octaves: a band from 2^9 is 10% of the axis
    return ax


def test_the_memory_band_note_is_on_two_lines_from_8_percent_of_the_axis():
    """_shade_memory_limit: a band 10% of the axis wide (batch 512 to 1024 of 1 to 1024) holds its note on two lines,
    centred (mutant 0.08 -> 0.12: one line); at 5% (724 to 1024) on one line in the band; at 3% (832 to 1024), with the
    points ending at 256, just left of it (ha right)."""
    ax = _log2_frame()
    assert plots._shade_memory_limit(ax, 512, 1024, 256)
    (text,) = ax.texts
    assert text.get_text() == "does not fit in memory\n(batch > 512)" and text.get_ha() == "center"
    ax = _log2_frame()
    plots._shade_memory_limit(ax, 2 ** 9.5, 1024, 256)
    assert [(t.get_text(), t.get_ha()) for t in ax.texts] == [("does not fit in memory (batch > 724)", "center")]
    ax = _log2_frame()
    plots._shade_memory_limit(ax, 2 ** 9.7, 1024, 256)
    assert [(t.get_text(), t.get_ha()) for t in ax.texts] == [("does not fit in memory (batch > 832)", "right")]


def test_the_memory_band_says_where_plain_decoding_fits_past_speculation():
    """Plain decoding's cap past the band's start: the note says speculation does not fit and how far plain decoding
    does (mutant: the plain branch dropped); a cap of 0 for speculation is 'fits at no batch', never 'batch > 0'
    (mutant limit < 1 -> < 0)."""
    ax = _log2_frame()
    plots._shade_memory_limit(ax, 128, 1024, 128, 512)
    assert [t.get_text() for t in ax.texts] == ["speculation does not fit\n(batch > 128; plain decoding fits to 512)"]
    ax = _log2_frame()
    plots._shade_memory_limit(ax, 0, 1024, 256, 64)
    assert [t.get_text() for t in ax.texts] == ["speculation fits at no batch\n(plain decoding fits to 64)"]
    ax = _log2_frame()
    assert not plots._shade_memory_limit(ax, 1024, 1024, 1024) and not ax.texts  # everything fits: no band


def _capped_panel():
    import pandas as pd

    # plain decoding (k = 0) fits to batch 600, the drafter with k = 2 to 400; batch 1024 fits neither
    return pd.DataFrame({"k": [0, 2, 0, 2], "max_batch": [600, 400, 600, 400], "baseline_max_batch": [600] * 4,
                         "batch": [256, 256, 1024, 1024], "fits_in_memory": [True, True, False, False]})


def test_the_speculative_memory_band_starts_at_the_drafters_cap_not_plain_decodings():
    """_memory_limits: where a speculative line is drawn the band starts past max_batch of the drafting rows (400), and
    plain decoding's cap (600) is the note's (mutant: every row's max_batch, 600, the band starting at plain's cap)."""
    sub = _capped_panel()
    base = plots._baseline_rows(sub)
    drawn = sub[sub["fits_in_memory"] & (sub["k"] > 0)]
    assert plots._memory_limits(sub, drawn, base) == (400.0, 1024.0, 256.0, 600.0)
    assert plots._memory_limits(sub, base, base) == (600.0, 1024.0, 256.0, 600.0)  # no speculation drawn: plain's cap


def test_plain_decoding_is_drawn_at_a_batch_equal_to_its_cap():
    """_baseline_rows: batch <= baseline_max_batch (mutant <: the batch at the cap, which fits, left out)."""
    import pandas as pd

    df = pd.DataFrame({"batch": [64, 128, 256], "baseline_max_batch": [128] * 3, "fits_in_memory": [True, False, False]})
    assert list(plots._baseline_rows(df)["batch"]) == [64, 128]


def test_six_alphas_are_all_drawn_and_seven_are_thinned_to_six_evenly():
    """_line_alphas: at most six lines (mutant: five); of seven, indices round(linspace(0, 6, 6)) = 0, 1, 2, 4, 5, 6."""
    import pandas as pd

    df = pd.DataFrame({"alpha": [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]})
    assert plots._line_alphas(df.iloc[:6]) == ([0.3, 0.4, 0.5, 0.6, 0.7, 0.8], "")
    assert plots._line_alphas(df) == ([0.3, 0.4, 0.5, 0.7, 0.8, 0.9], "6 of 7 α values")


def test_a_panel_where_plain_decoding_fits_at_batch_1_alone_says_so():
    """_nothing_fits: plain_max >= 1 names plain decoding's cap, batch 1 included (mutant > 1: 'nothing fits')."""
    ax = Figure().add_subplot()
    plots._nothing_fits(ax, 1.0)
    assert [t.get_text() for t in ax.texts] == \
        ["speculation fits in device memory\nat no batch of this panel\n(plain decoding fits to batch 1)"]
    ax = Figure().add_subplot()
    plots._nothing_fits(ax)
    assert [t.get_text() for t in ax.texts] == ["nothing fits in device memory\nin this panel"]
