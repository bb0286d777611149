"""Figure labels, titles, footers and axis rules (plots.py), found by mutation testing (qa483): what the suite
ran but did not pin. Each test names the mutant it kills; the expected values are worked out from the docstrings."""

from __future__ import annotations

import math

import pytest
from matplotlib.figure import Figure

from roofline import plots

pytestmark = pytest.mark.slow  # imports matplotlib, which the quick loop never does


def _labelled_ticks(lo: float, hi: float) -> list[float]:
    ax = Figure().add_subplot()
    ax.plot([1, 2], [lo, hi])
    ax.set_ylim(lo, hi)
    plots._log_axis(ax, "y")
    locs = [v for v in ax.yaxis.get_major_locator()() if lo <= v <= hi]
    return [float(v) for v in locs if ax.yaxis.get_major_formatter()(v)]


def test_exactly_four_per_position_rates_are_all_said_without_an_ellipsis():
    """_alpha_label says up to four rates, '...' only past four (mutant > 4 -> >= 4: '0.6, ...' of four rates)."""
    assert plots._alpha_label(math.nan, {"acceptance": [0.9, 0.8, 0.7, 0.6]}) == "per-position rates 0.9, 0.8, 0.7, 0.6"
    assert plots._alpha_label(math.nan, {"acceptance": [0.9, 0.8, 0.7, 0.6, 0.5]}) == \
        "per-position rates 0.9, 0.8, 0.7, 0.6, ..."


def test_the_setup_line_lists_three_layouts_and_counts_four():
    """_setup_line: up to three layouts named, more counted (mutant > 3 -> > 4: four listed)."""
    meta = {"model": {"m": "M"}, "method": "eagle"}
    three = plots._setup_line({**meta, "layouts": ["tp 1", "tp 2", "tp 4"]}, ["m"]).replace(plots.NBSP, " ")
    assert three == "M · EAGLE · TP 1 / TP 2 / TP 4"
    four = plots._setup_line({**meta, "layouts": ["tp 1", "tp 2", "tp 4", "tp 8"]}, ["m"])
    assert four == "M · EAGLE · 4 layouts"


def test_a_tp_of_one_written_as_text_is_not_said():
    """meta's tp '1' (text) is TP 1, not said (mutant: only the int 1 left out, 'TP 1' in the title)."""
    assert plots._setup_line({"model": {"m": "M"}, "method": "eagle", "tp": "1"}, ["m"]) == "M · EAGLE"
    assert plots._setup_line({"model": {"m": "M"}, "method": "eagle", "tp": 2}, ["m"]) == f"M · EAGLE · TP{plots.NBSP}2"


def test_a_shared_prefix_panel_value_has_a_thousands_separator():
    """_config_label writes a shared prefix as 'shared prefix 4,096' (mutant: '4096')."""
    assert plots._config_label({}, "shared_prefix", 4096) == "shared prefix 4,096"


def test_a_drafter_named_twice_is_said_once():
    """_drafter_names lists each placement once, the target's None and '' as one (mutant without dict.fromkeys:
    'NVIDIA L4 / NVIDIA L4')."""
    meta = {"hardware": {"l4": "NVIDIA L4"}}
    assert plots._drafter_names(["l4", "l4"], meta) == f"NVIDIA{plots.NBSP}L4"
    assert plots._drafter_names(["l4", None, ""], meta) == f"NVIDIA{plots.NBSP}L4 / the target"


def test_several_engines_are_joined_by_commas():
    """engine_label: 'engine NAME[, NAME]' (mutant: ' / ')."""
    assert plots.engine_label({"engine": ["vllm", "sglang"]}) == "engine vllm, sglang"
    assert plots.engine_label({"engine": "vllm"}) == "engine vllm"
    assert plots.engine_label({}) == ""


def test_a_panel_refused_outright_and_for_speculation_is_not_run_at_all():
    """Two refusals of one panel, one of its speculation only and one of the whole layout: the panel is 'not run by
    vllm', not 'speculation not run' (mutant all -> any)."""
    meta = {"hardware": {"h200": "NVIDIA H200"}, "engine": "vllm",
            "refused": [{"engine": "vllm", "pp": 2, "speculative_only": True, "note": "a"},
                        {"engine": "vllm", "pp": 2, "note": "b"}]}
    assert plots._panel_title(meta, {"hardware": "h200", "pp": 2}, False).endswith("PP 2, not run by vllm")
    only_spec = {**meta, "refused": meta["refused"][:1]}
    assert plots._panel_title(only_spec, {"hardware": "h200", "pp": 2}, False).endswith("PP 2, speculation not run by vllm")


def test_a_value_is_said_by_a_note_only_as_a_whole_item():
    """_said: 'X only' at the note's start or after ', ', and at its end or before ', ' (mutant without the start and end
    checks: 'fp4 weights' said by 'nvfp4 weights only', 'TP 2' by 'TP 2 only here')."""
    assert plots._said("fp4 weights", "fp4 weights only")
    assert plots._said("TP 2", "context 4k only, TP 2 only")
    assert not plots._said("fp4 weights", "nvfp4 weights only")
    assert not plots._said("TP 2", "TP 2 onlyx")


def test_a_title_line_holds_about_ten_and_a_half_characters_an_inch():
    """title_chars: 10.5 characters an inch, 40 at least (mutant: 13 an inch, lines that _fit_title must break again)."""
    assert plots.title_chars(Figure(figsize=(10, 4))) == 105
    assert plots.title_chars(Figure(figsize=(3, 4))) == 40


def test_the_footer_names_the_serving_figure_of_a_request_swept_at_two_batches():
    """The serving figure is drawn from two batches (plots._plot_serving): the footer's steady-decoding caveat names it
    there (mutant >= 2 -> > 2: unsaid at two batches); one batch, no serving figure, unnamed."""
    def text(batches):
        fig = Figure(figsize=(8, 4))
        plots.footer(fig, {"method": "eagle", "prompt": 1000, "output_len": 200, "axes": {"batch": batches, "k": [2]}})
        return fig.texts[0].get_text().replace("\n", " ")
    assert "(this sweep's serving_* columns and serving figure; cheapest --serving)" in text([1, 8])
    assert "(this sweep's serving_* columns; cheapest --serving)" in text([8])


def test_ten_batches_are_ticked_at_their_own_values_and_eleven_at_powers_of_two():
    """_log2_axis: up to ten values ticked at the values themselves (mutant <= 10 -> < 10: powers of 2 at ten)."""
    ax = Figure().add_subplot()
    plots._log2_axis(ax, [3 * 2 ** i for i in range(10)])
    assert [float(v) for v in ax.get_xticks()] == [3.0 * 2 ** i for i in range(10)]


def test_many_batches_over_ten_octaves_tick_every_power_of_two():
    """_log2_axis over more than ten values: every power of 2 where the range spans up to ten octaves (1 to 512: 9),
    every other beyond (mutant <= 10 -> <= 8: every other at 9)."""
    ax = Figure().add_subplot()
    plots._log2_axis(ax, [1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512])
    assert [float(v) for v in ax.get_xticks()] == [2.0 ** i for i in range(10)]
    ax = Figure().add_subplot()
    plots._log2_axis(ax, [2 ** i for i in range(12)])  # 11 octaves: every other
    assert [float(v) for v in ax.get_xticks()] == [2.0 ** i for i in range(0, 12, 2)]


def test_a_log_axis_of_one_and_a_half_decades_steps_1_2_3_5():
    """_log_axis: 1-2-3-5 up to 1.5 decades (10 to 250: 1.4), 1-2-5 beyond (mutant 1.5 -> 1.2: 30 unlabelled)."""
    assert _labelled_ticks(10, 250) == [10, 20, 30, 50, 100, 200]
    assert _labelled_ticks(10, 400) == [10, 20, 50, 100, 200]  # 1.6 decades


def test_tick_labels_keep_three_significant_digits():
    """distinct_labels: 3 significant digits, more only where two would read alike (mutant from 2: 0.555 as '0.56')."""
    assert plots.distinct_labels([0.555, 0.9]) == {0.555: "0.555", 0.9: "0.9"}


def test_twelve_heatmap_columns_are_all_labelled_and_thirteen_every_other():
    """_thin_ticks: at most 12 labelled (mutant: 10, every other one of 12)."""
    assert list(plots._thin_ticks(12)) == list(range(12))
    assert list(plots._thin_ticks(13)) == list(range(0, 13, 2))


def _best(**spec):
    import pandas as pd

    return pd.DataFrame({"k": [0, 2, 4], "fits_in_memory": [True, True, True], "spec_fits": [False, True, True]}).assign(**spec)


def test_the_heatmap_key_says_where_speculation_never_pays_and_where_break_even_cells_do_not_touch():
    """_heatmap_title's key: no cell pays -> 'never pays' (mutant: 'pays everywhere'); some pay, no shared edge ->
    'break-even between cells that do not touch' (mutant: 'black line' always)."""
    import numpy as np

    ks = np.array([0, 2, 4])
    never = plots._heatmap_title(ks, np.array([False, False]), False, False, _best(), 4, True)
    assert never.split("\n")[1].startswith("speculation never pays here (speedup < 1 or best k = 0 everywhere shown)")
    apart = plots._heatmap_title(ks, np.array([True, False]), False, False, _best(), 4, True)
    assert apart.split("\n")[1].startswith("break-even between cells that do not touch;"), apart
    touching = plots._heatmap_title(ks, np.array([True, False]), True, False, _best(), 4, True)
    assert touching.split("\n")[1].startswith("black line: break-even;"), touching


def test_the_heatmap_key_explains_k0_and_the_largest_k_only_of_labelled_cells_where_speculation_fits():
    """'k=0: ...' only where a k = 0 cell has speculation fitting (its spec_fits; mutant: any k = 0 row), and neither
    k note where the cells carry no labels (annotate false; mutant: the k≥ note regardless)."""
    import numpy as np

    ks, pays = np.array([0, 2, 4]), np.array([True, False])
    assert "k=0:" not in plots._heatmap_title(ks, pays, True, False, _best(), 4, True)
    assert "k=0: speculation does not pay (speedup 1)" in plots._heatmap_title(ks, pays, True, False, _best(spec_fits=True), 4, True)
    unlabelled = plots._heatmap_title(ks, pays, True, False, _best(spec_fits=True), 4, False)
    assert unlabelled == "Speedup of speculative decoding at the best k per cell\nblack line: break-even", unlabelled


def test_the_heatmap_of_one_k_names_it():
    """One k swept: 'at k = 2', not 'the best k per cell' (mutant)."""
    import numpy as np

    best = _best(spec_fits=True).iloc[[1]]
    assert plots._heatmap_title(np.array([2]), np.array([True, True]), False, False, best, np.inf, True) == \
        "Speedup of speculative decoding at k = 2\nspeculation pays everywhere shown: no break-even in range"


def test_the_mtp_reuse_note_names_the_fewest_trained_modules_of_the_models_shown():
    """_mtp_reused: models of 1 and 2 MTP modules drafting to k = 4: reuse starts past the fewest, 1 (mutant max: 'past 2
    MTP modules', said of a model that reuses its one module from position 2); a model not shown is not counted."""
    meta = {"method": "mtp", "mtp_modules": {"a": 1, "b": 2}}
    assert plots._mtp_reused(meta, ["a", "b"], 4) == "; past 1 MTP module the last is reused (it accepts less in practice)"
    assert plots._mtp_reused(meta, ["b"], 4).startswith("; past 2 MTP modules they are reused in turn")


def test_a_frontier_of_twelve_points_labels_each_and_of_thirteen_twelve_with_both_ends():
    """_some: up to 12 labelled (mutant: 10), evenly spread, both ends kept."""
    assert list(plots._some(12)) == list(range(12))
    thirteen = list(plots._some(13))
    assert len(thirteen) == 12 and thirteen[0] == 0 and thirteen[-1] == 12


def test_a_panel_title_is_wrapped_at_twelve_characters_an_inch_of_its_frame():
    """_wrap_panel_title: (figure width / columns - 1.2 inch) x 12 characters, 24 at least: 5.6 inches a column hold
    (5.6 - 1.2) x 12 = 52, so a 60-character title breaks before its last part (mutant 14 an inch: 61, one line)."""
    title = "NVIDIA H100 SXM5 80GB, Llama 3.1 8B, context 1k, engine vllm"
    for size, cols in (((5.6, 4), 1), ((11.2, 4), 2)):
        fig = Figure(figsize=size)
        fig.subplots(1, cols)
        assert plots._wrap_panel_title(fig, title) == "NVIDIA H100 SXM5 80GB, Llama 3.1 8B, context 1k,\nengine vllm"


def test_panels_are_laid_out_one_row_to_three_then_two_three_or_four_columns():
    """_figure: one row up to three panels, 2 x 2 for four, three columns for five and six, 2 x 4 for eight (mutant:
    eight in three columns, 3 rows, one cell empty)."""
    for n, geometry in ((1, (1, 1)), (3, (1, 3)), (4, (2, 2)), (5, (2, 3)), (6, (2, 3)), (8, (2, 4))):
        _, axes = plots._figure(n)
        assert len(axes) == n and axes[0].get_subplotspec().get_gridspec().get_geometry() == geometry, n


def test_nine_devices_draw_the_first_six_panels_and_say_so_eight_are_kept_whole():
    """_panels: a (hardware) grid of up to MAX_GRID_PANELS (8) is kept whole; nine are cut to MAX_PANELS (6), the note
    'first 6 of 9 panels (hardware)' (mutant: 'first 9 of 9')."""
    import pandas as pd

    def table(n):
        return pd.DataFrame({"hardware": [f"h{i}" for i in range(n)], "model": "m", "context": 4096, "batch": 1,
                             "fits_in_memory": True})

    _, keys, note = plots._panels(table(9), ("hardware", "model", "context"), {})
    assert [key[0] for key in keys] == [f"h{i}" for i in range(6)] and note == "first 6 of 9 panels (hardware)"
    _, keys, note = plots._panels(table(8), ("hardware", "model", "context"), {})
    assert len(keys) == 8 and note == ""


def test_a_pipeline_degree_of_1_is_not_said():
    """_pp: '' where pp is 1 (mutant: '1', the setup line reading 'PP 1'); several values joined."""
    assert plots._pp({}) == "" and plots._pp({"pp": 1}) == "" and plots._pp({"pp": [1, 2]}) == "1 / 2"
    assert plots._setup_line({"model": {"m": "M"}, "method": "eagle", "pp": 1}, ["m"]) == "M · EAGLE"
    assert plots._setup_line({"model": {"m": "M"}, "method": "eagle", "pp": 2}, ["m"]) == f"M · EAGLE · PP{plots.NBSP}2"


def test_a_refusal_is_a_panels_only_where_the_panel_shows_one_value_of_each_of_its_columns():
    """refusals_drawn of a panel: each of the entry's values the panel's one value (its key's, else its meta's); a meta
    of two engines is no panel's one engine (mutant without len == 1: vllm's refusal titled on a panel of both)."""
    entry = {"engine": "vllm", "pp": 2, "note": "x"}
    assert plots.refusals_drawn({"engine": ["vllm", "sglang"], "refused": [entry]}, {"hardware": "h", "pp": 2}) == []
    assert plots.refusals_drawn({"engine": "vllm", "refused": [entry]}, {"hardware": "h", "pp": 2}) == [entry]
    assert plots.refusals_drawn({"engine": ["vllm", "sglang"], "refused": [entry]},
                                {"hardware": "h", "pp": 2, "engine": "vllm"}) == [entry]


def test_a_layout_naming_no_pp_is_pp_1_beside_one_that_names_it():
    """qa483: _pp's layouts branch skipped a layout without 'pp N', so 'tp 8' beside 'tp 8, pp 2' read as pp 2 alone."""
    assert plots._pp({"layouts": ["tp 8", "tp 8, pp 2"]}) == "1 / 2"
    assert plots._pp({"layouts": ["tp 8", "tp 4"]}) == ""
    assert plots._pp({"layouts": ["tp 4, pp 2"]}) == "2"
