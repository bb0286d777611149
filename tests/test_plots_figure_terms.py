"""Figure-level marks and words (plots.py), found by mutation testing (qa483): the roofline's ridges and title,
the step-time figure's floor, compute-bound line and faded points, the suite drew but did not pin. Each test names the
mutant it kills; each sweeps a small scenario (about a second)."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib import rc_context

from roofline import plots
from roofline.grid import load_configs, operator_table, run_sweep, scenario_meta
from roofline.scenario import scenario_from_dict

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore")]

SMALL = {"name": "plots-test", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
         "axes": {"batch": [1, 8, 64, 512], "context": [1024], "k": [1, 2, 4], "alpha": [0.6, 0.9]}}


def _tables(data: dict):
    sc = scenario_from_dict(data)
    pairs = load_configs(sc)
    df = run_sweep(sc, pairs)
    return df, operator_table(sc, pairs), scenario_meta(sc, pairs, len(df))


def _figure(name, df, ops, meta):
    with rc_context(plots.STYLE):
        fig = plots.PLOTTERS[name](df, ops, meta)
        if fig is not None:
            plots.arrange(fig)
    return fig


def _panel_axes(fig) -> list:
    return [ax for ax in fig.axes if ax.get_subplotspec() is not None and ax.get_visible()]


def test_the_roofline_says_its_ridges_and_roofs_of_the_h100_profile():
    """H100 SXM (hardware_profiles/h100-sxm.yaml): bf16 989.4 TFLOP/s, 3.35 TB/s, efficiencies 0.80 and 0.85. Peak ridge
    989.4 / 3.35 = 295.3 FLOP/B, derated 791.52 / 2.8475 = 278.0 FLOP/B, both to the FLOP/B (mutant ',.1f': '295.3');
    the panel title 'peak 989 TFLOP/s, 3.35 TB/s' (mutant '.1f': '3.4' / '3.3')."""
    df, ops, meta = _tables({**SMALL, "axes": {"batch": [1, 64], "context": [1024], "k": [2], "alpha": [0.8]}})
    (ax,) = _panel_axes(_figure("roofline", df, ops, meta))
    ridges = sorted(t.get_text() for t in ax.texts if "ridge" in t.get_text())
    assert ridges == ["derated ridge 278 FLOP/B", "peak ridge 295 FLOP/B"], ridges
    assert ax.get_title().replace("\n", " ").endswith("peak 989 TFLOP/s, 3.35 TB/s"), ax.get_title()


def test_a_roofline_of_one_batch_says_the_one_drawn():
    """`--where batch=64` leaves one batch: the title says 'at batch 64, the one drawn', not 'the smallest batch and the
    largest swept that fits' (mutant: the two-batch words always)."""
    df, ops, meta = _tables({**SMALL, "axes": {"batch": [64], "context": [1024], "k": [2], "alpha": [0.8]}})
    title = _figure("roofline", df, ops, meta)._suptitle.get_text().replace("\n", " ")
    assert ", at batch 64, the one drawn" in title and "the smallest batch" not in title, title


def test_coincident_operators_share_one_label():
    """_clusters: operators within 0.08 decade on both axes are one label 'a, b' (mutant tolerance 0: one each)."""
    import pandas as pd

    g = pd.DataFrame({"operator": ["qkv_proj", "o_proj", "mlp"], "flops": [1e9, 1.05e9, 1e12],
                      "bytes": [1e9, 1e9, 1e9], "time_s": [1e-3, 1e-3, 1e-2]})
    out = plots._clusters(g)
    assert [text for _, _, text in out] == ["qkv_proj, o_proj", "mlp"], out


def test_the_step_time_floor_is_the_first_batchs_decode_step_to_the_hundredth_of_a_ms():
    """The dotted floor's note: 'batch-1 decode step X.XX ms', X the table's step_time_s at batch 1 in ms, 2 decimals
    (mutant: 1 decimal)."""
    df, ops, meta = _tables({**SMALL, "axes": {"batch": [1, 64, 256], "context": [1024], "k": [2, 4], "alpha": [0.8]}})
    (ax,) = _panel_axes(_figure("step_time_vs_tokens", df, ops, meta))
    floor_ms = df.loc[df["batch"] == 1, "step_time_s"].iloc[0] * 1e3
    assert f"batch-1 decode step {floor_ms:.2f} ms" in [t.get_text() for t in ax.texts]


def test_the_compute_bound_line_sits_at_the_narrowest_compute_bound_verify_pass():
    """Batches 1, 64, 256 at k 2 and 4: the compute-bound verify passes are B x (k + 1) = 320, 768 and 1,280 tokens (the
    table's verify_compute_bound), every wider pass compute-bound too: the red line at 320 and 'from 320 tokens'
    (mutants: bound.max(), 1,280, for the line or the text)."""
    df, ops, meta = _tables({**SMALL, "axes": {"batch": [1, 64, 256], "context": [1024], "k": [2, 4], "alpha": [0.8]}})
    ver = df[df["k"] > 0].drop_duplicates(["batch", "k"])
    bound = sorted((ver["batch"] * (ver["k"] + 1))[ver["verify_compute_bound"].astype(bool)])
    assert bound == [320, 768, 1280]  # the sweep this test reads; if the model moves, the test says so here
    (ax,) = _panel_axes(_figure("step_time_vs_tokens", df, ops, meta))
    assert [list(line.get_xdata()) for line in ax.get_lines() if line.get_color() == "firebrick"] == [[320, 320]]
    assert "verify compute-bound\nfrom 320 tokens" in [t.get_text() for t in ax.texts]


def test_without_a_plain_cap_column_a_decode_step_fits_where_any_row_of_its_batch_does():
    """A table without baseline_max_batch: a decode point is faded where no row of its batch fits. At batch 410 k = 1
    and 2 fit and k = 4 does not (max_batch 411, 410, 409): the decode point is drawn solid (mutant any -> all: faded)."""
    df, ops, meta = _tables({**SMALL, "axes": {"batch": [1, 410], "context": [1024], "k": [1, 2, 4], "alpha": [0.8]}})
    at = df[df["batch"] == 410].set_index("k")["fits_in_memory"].astype(bool)
    assert at.to_dict() == {1: True, 2: True, 4: False}
    (ax,) = _panel_axes(_figure("step_time_vs_tokens", df.drop(columns="baseline_max_batch"), ops, meta))
    (decode,) = [line for line in ax.get_lines() if line.get_label() == "decode step, q = 1"]
    assert not np.isnan(np.asarray(decode.get_ydata(), dtype=float)).any()


def test_a_dense_panel_beside_a_moe_panel_does_not_speak_of_experts():
    """Llama 3.1 8B beside Qwen3 30B-A3B, both verify passes memory-bound at 32k: only the MoE panel's note speaks of
    experts (mutant: any model's experts in the operators table, both panels)."""
    df, ops, meta = _tables({**SMALL, "model": ["llama-3.1-8b", "qwen3-30b-a3b"],
                             "axes": {"batch": [1, 8], "context": [32768], "k": [1, 2], "alpha": [0.8]}})
    assert not df["verify_compute_bound"].astype(bool).any()
    notes = {ax.get_title().split(",")[1].strip(): [t.get_text() for t in ax.texts if t.get_text().startswith("verify memory")]
             for ax in _panel_axes(_figure("step_time_vs_tokens", df, ops, meta))}
    assert notes["Llama 3.1 8B"] == ["verify memory-bound at every\nwidth swept (no compute-bound line)"], notes
    assert "experts" in notes["Qwen3 30B-A3B"][0], notes


def test_a_roofline_whose_large_batch_fits_in_one_panel_only_calls_it_the_large_b():
    """Nothing fits on the H100 panel, everything on the H200's: each panel titles its B = 32 (the H100's 'does not
    fit'), and the legend calls the filled marker 'the large B', not 'largest B that fits' (mutant all -> any)."""
    df, ops, meta = _tables({**SMALL, "hardware": ["h100-sxm", "h200"],
                             "axes": {"batch": [1, 32], "context": [1024], "k": [0, 2], "alpha": [0.7]}})
    squeezed = df.assign(fits_in_memory=df["fits_in_memory"] & (df["hardware"] == "h200"))
    fig = _figure("roofline", squeezed, ops, meta)
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "decode step, the large B\n(in each panel's title), q = 1" in legend, legend
    assert not any("largest B that fits" in text for text in legend), legend
    titles = [ax.get_title().replace("\n", " ") for ax in _panel_axes(fig)]
    assert titles[0].endswith("filled: B = 32 (does not fit)") and titles[1].endswith("filled: B = 32"), titles


def test_a_heatmap_cell_at_plain_decodings_exact_cap_says_plain_only():
    """Llama 3.1 8B on one H100 at 1k: plain decoding fits to batch 428 (baseline_max_batch), EAGLE at k = 1 to 411.
    The cell at batch 428 says 'plain only' (428 <= 428), and the title explains it (mutant >= -> >: 'no fit')."""
    df, ops, meta = _tables({**SMALL, "axes": {"batch": [1, 64, 428], "context": [1024], "k": [1, 2], "alpha": [0.8]}})
    assert set(df["baseline_max_batch"]) == {428} and not df.loc[df["batch"] == 428, "fits_in_memory"].any()
    fig = _figure("speedup_heatmap", df, ops, meta)
    (ax,) = _panel_axes(fig)
    cells = {tuple(int(v) for v in t.get_position()): t.get_text() for t in ax.texts}
    assert cells[(2, 0)] == "plain\nonly", cells
    assert "plain only: plain decoding fits there, speculation does not" in fig._suptitle.get_text().replace("\n", " ")


def test_a_heatmap_of_small_gains_spans_its_own_speedups_with_fine_colour_bar_steps():
    """Alphas 0.2 and 0.36 at k = 1: every speedup within 1.4x of 1. The colour scale is diverging around 1 to the
    farthest cell, span = max |ln s| (ln 1.05 at least; mutant ln 1.2: vmax 1.2), and the colour bar steps 0.8, 0.9, 1.0,
    1.1, 1.25 inside it (mutant 0.8, 1.0, 1.25: 1× alone)."""
    df, ops, meta = _tables({**SMALL, "axes": {"batch": [64, 256], "context": [1024], "k": [1], "alpha": [0.2, 0.36]}})
    s = df["speedup"]
    assert df["fits_in_memory"].all() and s.max() < 1.2 and 1 / s.min() < s.max()
    fig = _figure("speedup_heatmap", df, ops, meta)
    (ax,) = _panel_axes(fig)
    assert ax.images[0].norm.vmax == pytest.approx(s.max()) and ax.images[0].norm.vmin == pytest.approx(1 / s.max())
    (bar,) = [a for a in fig.axes if a.get_subplotspec() is None]
    assert [t.get_text() for t in bar.get_yticklabels()] == ["0.9×", "1×", "1.1×"]


def test_a_heatmap_cell_half_an_inch_wide_says_no_fit_in_words():
    """One panel, 7 inches wide, ten batches: cells of (7 - 1.6) / 10 = 0.54 inch, at least NO_FIT_TEXT_IN (0.4): the
    cell of batch 1024, where nothing fits, says 'no fit' (mutant 0.6 inch: grey alone)."""
    batches = [1, 2, 4, 8, 16, 32, 64, 128, 256, 1024]
    df, ops, meta = _tables({**SMALL, "axes": {"batch": batches, "context": [1024], "k": [1, 2], "alpha": [0.8]}})
    assert not df.loc[df["batch"] == 1024, "fits_in_memory"].any() and (df["baseline_max_batch"] < 1024).all()
    fig = _figure("speedup_heatmap", df, ops, meta)
    (ax,) = _panel_axes(fig)
    assert fig.get_figwidth() == 7.0
    assert {tuple(int(v) for v in t.get_position()): t.get_text() for t in ax.texts}[(9, 0)] == "no fit"


def test_a_heatmap_row_of_eight_rates_says_all_eight_and_of_nine_the_first_seven():
    """The heatmap's NaN-alpha row: up to eight rates said, three a line; more: the first seven and ', ...' (mutant: six
    at most)."""
    base = {"name": "r", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
            "axes": {"batch": [1, 8], "k": [1, 2]}}
    eight = [0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55]
    for rates, label in ((eight, "rates\n0.9, 0.85, 0.8,\n0.75, 0.7, 0.65,\n0.6, 0.55"),
                         (eight + [0.5], "rates\n0.9, 0.85, 0.8,\n0.75, 0.7, 0.65,\n0.6, ...")):
        df, ops, meta = _tables({**base, "acceptance": rates})
        (ax,) = _panel_axes(_figure("speedup_heatmap", df, ops, meta))
        assert [t.get_text() for t in ax.get_yticklabels()] == [label]


def test_speedup_vs_context_says_its_alpha_its_k_and_the_batches_it_draws():
    """Four alphas: the one drawn is alphas[(4 - 1) // 2] = 0.5 (mutant len // 2: 0.7); two alphas: 'the lower of 2'
    (mutant: 'middle'); the k axis holds 0 and one k > 0: 'best k per point' (best k may be 0; mutant: 'k = 2'); seven
    batches, five drawn at indices round(linspace(0, 6, 5)) = 0, 2, 3, 4, 6, said '5 of 7 batches' (mutant: unsaid)."""
    data = {**SMALL, "axes": {"batch": [1, 2, 4, 8, 16, 32, 64], "context": [1024, 8192], "k": [0, 2],
                              "alpha": [0.3, 0.5, 0.7, 0.9]}}
    df, ops, meta = _tables(data)
    fig = _figure("speedup_vs_context", df, ops, meta)
    title = fig._suptitle.get_text().replace("\n", " ").replace(plots.NBSP, " ")
    assert title.startswith("Speedup vs context, best k per point α = 0.5, the lower middle of 4 swept"), title
    assert title.endswith(" · 5 of 7 batches"), title
    (ax,) = _panel_axes(fig)
    assert [line.get_label() for line in ax.get_lines() if line.get_label().startswith("batch")] == \
        ["batch 1", "batch 4", "batch 8", "batch 16", "batch 64"]
    df, ops, meta = _tables({**data, "axes": {**data["axes"], "alpha": [0.5, 0.9]}})
    title = _figure("speedup_vs_context", df, ops, meta)._suptitle.get_text().replace("\n", " ").replace(plots.NBSP, " ")
    assert "α = 0.5, the lower of 2 swept" in title, title


REQUEST = {**SMALL, "prompt": 1024, "output_len": 256}


def _speedup_row(ax) -> list[tuple[float, str]]:
    return [(t.get_position()[0], t.get_ha()) for t in ax.texts if t.get_gid() == plots.SPEEDUP_ROW_GID]


def test_the_serving_speedup_row_labels_batches_a_fifth_of_the_axis_apart_and_keeps_its_ends_inside():
    """Batches 1 to 64, all fitting: labels at least ln 64 / 5 apart (1.2 octaves): 1, 4, 16, 64 (mutant 8 labels: every
    batch); the first label left-aligned at the axis's start, the last right-aligned at its end, the others centred
    (mutant: all centred, over the spines)."""
    df, ops, meta = _tables({**REQUEST, "axes": {"batch": [1, 2, 4, 8, 16, 32, 64], "k": [1, 4], "alpha": [0.6, 0.8]}})
    assert df["fits_in_memory"].all()
    (ax,) = _panel_axes(_figure("serving_vs_batch", df, ops, meta))
    assert _speedup_row(ax) == [(1, "left"), (4, "center"), (16, "center"), (64, "right")]


def test_the_serving_title_says_several_panels_far_from_the_request_decode_there():
    """Two devices at 32k, a request of 1,024 + 256 tokens (mean context 1,024 + 256 / 2 = 1,152): 'the 32k panels decode
    at that context' (mutant: 'decodes')."""
    df, ops, meta = _tables({**REQUEST, "hardware": ["h100-sxm", "h200"],
                             "axes": {"batch": [1, 8], "context": [32768], "k": [1], "alpha": [0.8]}})
    title = _figure("serving_vs_batch", df, ops, meta)._suptitle.get_text().replace("\n", " ")
    assert title.endswith("the 32k panels decode at that context, far from the request's mean context of 1,152"), title


def test_a_pareto_of_three_alphas_labels_the_top_alphas_points_and_says_so():
    """Three alphas: only the top one's frontier points carry 'B=..., k=...' labels, its legend entry '(labelled)'
    (mutant alphas[0]: the lowest's); each label sits on a point of alpha 0.9's frontier."""
    df, ops, meta = _tables({**SMALL, "axes": {"batch": [1, 8, 64], "context": [1024], "k": [1, 2], "alpha": [0.5, 0.7, 0.9]}})
    fig = _figure("pareto", df, ops, meta)
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "frontier, speculating (k ≥ 1), α = 0.9 (labelled)" in legend and \
        "frontier, speculating (k ≥ 1), α = 0.5" in legend, legend
    (ax,) = _panel_axes(fig)
    top = df[(df["alpha"] == 0.9) & (df["k"] > 0)]
    points = {(round(float(x), 6), round(float(y), 6)) for x, y in zip(top["tokens_per_s_per_user"], top["tokens_per_s_per_device"])}
    spec_labels = [t for t in ax.texts if ", k=" in t.get_text()]
    assert spec_labels and all((round(float(t.xy[0]), 6), round(float(t.xy[1]), 6)) in points for t in spec_labels)


def test_a_pareto_cloud_of_over_5000_points_is_called_a_sample():
    """46 batches x 10 k x 11 alphas = 5,060 speculative points that fit: the grey cloud draws every other one and its
    legend says 'sample of all (batch, k, α) that fit' (mutant: 'all')."""
    alphas = [round(0.4 + 0.05 * i, 2) for i in range(11)]
    df, ops, meta = _tables({**SMALL, "axes": {"batch": {"start": 1, "stop": 400, "num": 60, "log": True}, "context": [1024],
                                               "k": list(range(1, 11)), "alpha": alphas}})
    spec = df[(df["k"] > 0) & df["fits_in_memory"].astype(bool)]
    assert len(spec) > 5000
    legend = [t.get_text() for t in _figure("pareto", df, ops, meta).legends[0].get_texts()]
    assert legend[0] == "sample of all (batch, k, α) that fit", legend


def test_a_heatmap_of_150_cells_writes_each_and_of_165_none():
    """Cells carry their speedup and k up to 150 cells (and wide enough): 10 batches x 15 alphas, one panel of 7 inches,
    cells 0.54 inch, every cell written (mutant: 100 cells at most, none); 11 x 15 = 165: none written."""
    alphas = [round(0.2 + 0.05 * i, 2) for i in range(15)]
    batches = [1, 2, 4, 8, 16, 32, 64, 128, 192, 256]
    df, ops, meta = _tables({**SMALL, "axes": {"batch": batches, "context": [1024], "k": [1, 2], "alpha": alphas}})
    assert df["fits_in_memory"].all()
    (ax,) = _panel_axes(_figure("speedup_heatmap", df, ops, meta))
    assert len([t for t in ax.texts if "\nk" in t.get_text()]) == 150
    df, ops, meta = _tables({**SMALL, "axes": {"batch": batches + [320], "context": [1024], "k": [1, 2], "alpha": alphas}})
    (ax,) = _panel_axes(_figure("speedup_heatmap", df, ops, meta))
    assert not ax.texts


def test_the_best_k_axis_says_what_0_means_only_where_0_is_swept():
    """k axis 0, 1, 2: the y label adds '0: speculation does not pay' and the 0 tick reads '0, none' (mutant: the label
    line dropped); k axis 1, 2: neither."""
    data = {**SMALL, "axes": {"batch": [1, 64, 256], "context": [1024], "k": [0, 1, 2], "alpha": [0.3, 0.8]}}
    (ax,) = _panel_axes(_figure("best_k_vs_batch", *_tables(data)))
    assert ax.get_ylabel() == "best draft length k (tokens)\n0: speculation does not pay"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["0, none", "1", "2"]
    (ax,) = _panel_axes(_figure("best_k_vs_batch", *_tables({**data, "axes": {**data["axes"], "k": [1, 2]}})))
    assert ax.get_ylabel() == "best draft length k (tokens)"


def test_a_best_k_panel_where_only_plain_decoding_fits_gives_plain_decodings_cap():
    """Batches 412 and 420 at k 0 and 8: k = 8 fits to 408, plain decoding to 428 (baseline_max_batch). The panel says
    speculation fits at no batch and plain decoding fits to batch 428, its cap (mutant: 420, the largest swept)."""
    df, ops, meta = _tables({**SMALL, "axes": {"batch": [412, 420], "context": [1024], "k": [0, 8], "alpha": [0.7]}})
    assert set(df["baseline_max_batch"]) == {428} and not df.loc[df["k"] == 8, "fits_in_memory"].any()
    (ax,) = _panel_axes(_figure("best_k_vs_batch", df, ops, meta))
    assert [t.get_text() for t in ax.texts] == \
        ["speculation fits in device memory\nat no batch of this panel\n(plain decoding fits to batch 428)"]


def test_the_best_k_memory_band_starts_at_the_drafting_cap():
    """k 0, 1, 2 to batch 512: EAGLE fits to 411 (k = 1's max_batch), plain decoding to 428: the band says 'speculation
    does not fit (batch > 411; plain decoding fits to 428)' (mutant: every row's max_batch, 'does not fit in memory
    (batch > 428)')."""
    df, ops, meta = _tables({**SMALL, "axes": {"batch": [1, 64, 420, 512], "context": [1024], "k": [0, 1, 2], "alpha": [0.8]}})
    assert df.loc[df["k"] > 0, "max_batch"].max() == 411 and set(df["baseline_max_batch"]) == {428}
    (ax,) = _panel_axes(_figure("best_k_vs_batch", df, ops, meta))
    assert [t.get_text() for t in ax.texts] == ["speculation does not fit (batch > 411; plain decoding fits to 428)"]


def test_the_best_k_axis_ticks_every_k_up_to_twelve():
    """k 1 to 10 swept: each k a tick (up to 12; mutant 8: every other one)."""
    data = {**SMALL, "axes": {"batch": [1, 64], "context": [1024], "k": list(range(1, 11)), "alpha": [0.8]}}
    (ax,) = _panel_axes(_figure("best_k_vs_batch", *_tables(data)))
    assert [float(v) for v in ax.get_yticks()] == [float(k) for k in range(1, 11)]
