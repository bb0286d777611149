"""Session 69's changes at their edges (qa456, mutation-testing this session's figure changes): the narrow log axis
switches at a 5x range (0.7 decade), and the heatmap itself writes each number in the colour of higher WCAG contrast
on its own cell's colour."""

import numpy as np
import pytest
from matplotlib.figure import Figure

from roofline.plots import _log_axis


def _labelled_ticks(lo: float, hi: float) -> list[float]:
    ax = Figure().add_subplot()
    ax.plot([1, 2], [lo, hi])
    ax.set_ylim(lo, hi)
    _log_axis(ax, "y")
    locs = [v for v in ax.yaxis.get_major_locator()() if lo <= v <= hi]
    return [v for v in locs if ax.yaxis.get_major_formatter()(v)]


def test_a_range_under_5x_gets_the_fine_steps_and_one_over_it_the_coarse():
    assert _labelled_ticks(10, 45) == [10, 15, 20, 25, 30, 40]  # 4.5x: log10 4.5 = 0.65 decade
    assert _labelled_ticks(10, 60) == [10, 20, 30, 50]  # 6x: 0.78 decade, 1-2-3-5


def _luminance(rgba) -> float:
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgba[:3]]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


@pytest.mark.slow
def test_each_heatmap_number_has_the_higher_contrast_on_its_cell():
    from roofline.grid import load_configs, operator_table, run_sweep
    from roofline.plots import _plot_speedup_heatmap
    from roofline.scenario import scenario_from_dict

    sc = scenario_from_dict({"name": "hm", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                             "axes": {"batch": [1, 8, 64, 512], "context": [1024], "k": [1, 2, 4],
                                      "alpha": [0.4, 0.6, 0.9]}})
    pairs = load_configs(sc)
    meta = {"scenario": "hm", "method": "eagle", "weight_dtype": "bf16", "kv_dtype": "bf16", "tp": 1,
            "hardware": {"h100-sxm": "NVIDIA H100 SXM5 80GB"}, "model": {"llama-3.1-8b": "Llama 3.1 8B"}}
    fig = _plot_speedup_heatmap(run_sweep(sc, pairs), operator_table(sc, pairs), meta)
    checked, colours = 0, set()
    for ax in fig.axes:
        if not ax.images:
            continue
        image = ax.images[0]
        values = image.get_array()
        for t in ax.texts:
            if "\n" not in t.get_text() or not t.get_text().split("\n")[1].startswith("k"):
                continue
            j, i = (int(round(v)) for v in t.get_position())
            lum = _luminance(image.to_rgba(np.ma.masked_array([[values[i, j]]]))[0, 0])
            white = 1.05 / (lum + 0.05) > (lum + 0.05) / 0.05
            colour = t.get_color()
            assert colour == ("white" if white else "black"), (t.get_text(), lum, colour)
            checked += 1
            colours.add(colour)
    assert checked >= 6 and colours == {"white", "black"}, (checked, colours)  # both rules at work
