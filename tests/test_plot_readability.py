"""Figures a reader can read off (qa454): the heatmap's numbers white or black by the contrast each has on its cell's
colour (WCAG's ratio on relative luminance), not by the speedup's distance from 1 (1.78 in black beside 1.80 in white
on like blues); a log axis of under half a decade labels more than two ticks (14-45 ms read off 20 and 30 alone)."""

import numpy as np
from matplotlib import colormaps

from roofline.plots import _dark, _log_axis


def _luminance(rgb) -> float:
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def test_white_on_the_ends_of_the_diverging_map_and_black_on_its_middle():
    cmap = colormaps["RdBu"]
    assert _dark(cmap(0.0)) and _dark(cmap(1.0))  # deep red, deep blue
    assert not _dark(cmap(0.5))  # near white
    assert _dark((0.0, 0.0, 0.0, 1.0)) and not _dark((1.0, 1.0, 1.0, 1.0))


def test_the_chosen_text_has_the_higher_contrast_on_every_colour_of_the_map():
    for x in np.linspace(0, 1, 101):
        rgba = colormaps["RdBu"](x)
        lum = _luminance(rgba[:3])
        on_white, on_black = 1.05 / (lum + 0.05), (lum + 0.05) / 0.05
        assert _dark(rgba) == (on_white > on_black), (x, rgba)


def test_colours_alike_get_the_same_text_but_at_the_crossing():
    cmap = colormaps["RdBu"]
    said = [_dark(cmap(x)) for x in np.linspace(0.5, 1.0, 51)]  # from the middle to deep blue: one switch, black to white
    assert said[0] is False and said[-1] is True and sum(a != b for a, b in zip(said, said[1:])) == 1


def _labelled_ticks(lo: float, hi: float) -> list[float]:
    from matplotlib.figure import Figure

    ax = Figure().add_subplot()
    ax.plot([1, 2], [lo, hi])
    ax.set_ylim(lo, hi)
    _log_axis(ax, "y")
    ax.figure.canvas.draw() if hasattr(ax.figure.canvas, "draw") else None
    locs = [v for v in ax.yaxis.get_major_locator()() if lo <= v <= hi]
    return [v for v in locs if ax.yaxis.get_major_formatter()(v)]


def test_a_narrow_log_axis_labels_enough_ticks_to_read_a_value_off():
    assert _labelled_ticks(14, 45) == [15, 20, 25, 30, 40]
    assert _labelled_ticks(6.5, 21) == [7, 8, 9, 10, 15, 20]
    assert _labelled_ticks(1, 1000) == [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]  # wider axes keep their steps
