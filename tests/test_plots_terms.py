"""Mutation testing (qa470) of plots.py's changes of the last two sessions (a layout left out as unrun, a degree of 1
said, the step-time title over several models, the hollow frontier points, the heatmap's type, the whole-verify ring):
each test names the mutant it kills."""

from __future__ import annotations

import pytest

from roofline import plots
from roofline.grid import load_configs, operator_table, run_sweep
from roofline.plots import PLOTTERS
from roofline.scenario import scenario_from_dict

pytestmark = [pytest.mark.slow,  # each sweeps or predicts: 0.3-1 s a test
              pytest.mark.filterwarnings("ignore:.*fits in device memory at no point of the sweep")]

SMALL = {"name": "plots-test", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
         "axes": {"batch": [1, 8, 64, 512], "context": [1024], "k": [1, 2, 4], "alpha": [0.6, 0.9]}}
META = {"scenario": "plots-test", "method": "eagle", "weight_dtype": "bf16", "kv_dtype": "bf16", "tp": 1,
        "hardware": {"h100-sxm": "NVIDIA H100 SXM5 80GB"}, "model": {"llama-3.1-8b": "Llama 3.1 8B"}}
BY = ("hardware", "model", "context", "tp")


def _tables(data: dict):
    sc = scenario_from_dict(data)
    pairs = load_configs(sc)
    return run_sweep(sc, pairs), operator_table(sc, pairs)


def _figure(name, df, ops, meta):
    from matplotlib import rc_context

    with rc_context(plots.STYLE):
        fig = PLOTTERS[name](df, ops, meta)
        if fig is not None:
            plots.arrange(fig)
    return fig


def _panel_axes(fig) -> list:
    return [ax for ax in fig.axes if ax.get_subplotspec() is not None and ax.get_visible()]


def test_a_layout_left_out_whose_every_panel_fits_but_is_not_run_says_so():
    """qa466: a layout whose points fit on every panel but no setup of its engine runs is 'not run by its engine'
    (mutant: always 'no point of it fits'); where one of its panels is unrun and the other fits nothing, it is
    'no point of it fits' (mutant all -> any: 'not run by its engine' of a panel where nothing fits)."""
    keys = [(hw, "x", 1024, tp) for tp in (1, 2) for hw in "ab"]
    fits = {key for key in keys if key[3] == 2}
    unrun_both = {("a", "x", 1024, 1), ("b", "x", 1024, 1)}
    assert plots._left_out_note({}, BY, keys, (3,), ("tp",), [(1,)], fits, unrun_both) == "TP 1 left out (not run by its engine)"
    unrun_one = {("a", "x", 1024, 1)}
    assert plots._left_out_note({}, BY, keys, (3,), ("tp",), [(1,)], fits, unrun_one) == "TP 1 left out (no point of it fits)"


def test_a_dp_attention_degree_of_1_is_said_where_a_swept_layout_raises_it():
    """meta's layouts say 'dp-attention 2' (describe_layout), the axis is dp_attention: tp 8 beside tp 8, dp-attention 2
    says its DP-attention 1 (mutant without the '-' -> '_' mapping: 'TP 8')."""
    meta = {"layouts": ["tp 8", "tp 8, dp-attention 2"]}
    assert plots._layout_value_label(meta, ("tp", "dp_attention"), (8, 1)) == "TP 8, DP-attention 1"
    assert plots._layout_value_label(meta, ("tp", "dp_attention"), (8, 2)) == "TP 8, DP-attention 2"


def test_a_point_equal_to_a_plain_one_is_not_beaten():
    """_dominated: another point at least as good on both axes and better on one; an equal point beats nothing
    (mutant without 'better on one': equal read as beaten)."""
    assert list(plots._dominated([1.0, 1.0, 2.0], [1.0, 0.5, 1.0], [1.0], [1.0])) == [False, True, False]


def test_the_step_time_title_says_mla_attention_where_one_of_its_models_is_mla():
    """Two models drawn, one of them MLA: its verify pass's attention can be compute-bound, so the title says so
    (mutant any -> all: 'attention's KV reads stay memory-bound', every model's)."""
    df, ops = _tables({**SMALL, "model": ["llama-3.1-8b", "qwen3-8b"],
                       "axes": {"batch": [1, 32], "context": [1024], "k": [1, 2], "alpha": [0.7]}})
    meta = {**META, "model": {"llama-3.1-8b": "Llama 3.1 8B", "qwen3-8b": "Qwen3 8B"},
            "kv_layout": {"llama-3.1-8b": "mla", "qwen3-8b": "gqa"}}
    title = _figure("step_time_vs_tokens", df, ops, meta)._suptitle.get_text().replace("\n", " ")
    assert "and attention where the queries sharing each KV read take it past: MLA's many heads, a wide verify pass)" in title, title


def test_heatmap_cell_text_stays_small_in_wide_but_short_cells():
    """The type grows only as far as both the cell's width and its height allow: two batches (wide cells, 2.6 inches) over
    twenty alphas (short cells, 0.22 inch: 6.5 x 0.22 / 0.3 < 6.5) keep CELL_TEXT_PT where a wide cell alone would take 9 points (mutant: width alone)."""
    df, ops = _tables({**SMALL, "axes": {"batch": [1, 8], "context": [1024], "k": [1, 2],
                                         "alpha": [round(0.3 + 0.65 * i / 19, 3) for i in range(20)]}})
    fig = _figure("speedup_heatmap", df, ops, META)
    (ax,) = _panel_axes(fig)
    sizes = {t.get_fontsize() for t in ax.texts if "k=" in t.get_text() or "k≥" in t.get_text()}
    cell_w_in = ax.get_position().width * fig.get_figwidth() / 2
    cell_h_in = ax.get_position().height * fig.get_figheight() / 20
    assert cell_w_in >= plots.CELL_TEXT_WIDE_IN * plots.CELL_TEXT_MAX_PT / plots.CELL_TEXT_PT  # wide enough for 9 points
    assert cell_h_in < plots.CELL_TEXT_TALL_IN * plots.CELL_TEXT_MAX_PT / plots.CELL_TEXT_PT  # too short for them
    assert sizes == {plots.CELL_TEXT_PT}, sizes


def test_each_whole_verify_ring_is_labelled_with_its_batch():
    """qa459: speculation swept, the verify pass's whole-pass ring is labelled 'whole verify, B=N' (mutant: 'whole
    step' beside a verify triangle)."""
    df, ops = _tables({**SMALL, "axes": {"batch": [1, 64], "context": [1024], "k": [2], "alpha": [0.8]}})
    fig = _figure("roofline", df, ops, META)
    texts = sorted(t.get_text() for ax in _panel_axes(fig) for t in ax.texts if t.get_text().startswith("whole"))
    assert "whole verify, B=1" in texts and "whole verify, B=64" in texts, texts


def test_a_no_fit_cell_says_it_half_a_point_below_the_speedups_type():
    """Wide cells (three batches), the speedups at CELL_TEXT_MAX_PT, 9 points: 'no fit' (batch 4,096 does not fit Llama
    3.1 8B on one H100) takes 8.5 (mutant: the former fixed 6)."""
    df, ops = _tables({**SMALL, "axes": {"batch": [1, 8, 4096], "context": [1024], "k": [1, 2], "alpha": [0.6, 0.9]}})
    (ax,) = _panel_axes(_figure("speedup_heatmap", df, ops, META))
    sizes = {t.get_text(): t.get_fontsize() for t in ax.texts}
    assert sizes.pop("no fit") == plots.CELL_TEXT_MAX_PT - 0.5 and set(sizes.values()) == {plots.CELL_TEXT_MAX_PT}, sizes


def test_a_panel_title_part_longer_than_a_line_lets_the_next_part_follow_its_last_line():
    """qa477: 'NVIDIA RTX PRO 6000 Blackwell Server / Edition, / context 4k': a short line between two."""
    from roofline.plots import _wrap_parts

    assert _wrap_parts("NVIDIA RTX PRO 6000 Blackwell Server Edition, context 4k", 37) == \
        "NVIDIA RTX PRO 6000 Blackwell Server\nEdition, context 4k"
    assert _wrap_parts("H100 SXM, tp 8, context 4k, engine vllm", 20) == "H100 SXM, tp 8,\ncontext 4k,\nengine vllm"
    assert _wrap_parts("a, b\nc", 20) == "a, b\nc"
