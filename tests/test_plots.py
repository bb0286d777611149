"""Tests for roofline.plots: the standard plots are drawn from the written tables, skip what a table
cannot support, and refuse bad input or an overwrite with one line."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from roofline import plot_jobs, plots
from roofline.errors import RooflineError
from roofline.grid import load_configs, operator_table, run_sweep, write_sweep
from roofline.plot_jobs import CONTEXT_PLOTS, REQUEST_PLOTS, FigurePool
from roofline.plots import PLOT_NAMES, PLOTTERS, _frontier, distinct_labels, plot_from_table, speedup_text, standard_plots
from roofline.scenario import scenario_from_dict

# panel tests sweep configs that fit nowhere on purpose (a 70B on one GPU beside an 8B); the sweep's warning of it is
# tested in test_grid
pytestmark = pytest.mark.filterwarnings("ignore:.*fits in device memory at no point of the sweep")
DECODE_PLOTS = tuple(n for n in PLOT_NAMES if n not in REQUEST_PLOTS + CONTEXT_PLOTS)  # a table without a request's
# serving columns, of one context

SMALL = {
    "name": "plots-test", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
    "axes": {"batch": [1, 8, 64, 512], "context": [1024], "k": [1, 2, 4], "alpha": [0.6, 0.9]},
}
META = {"scenario": "plots-test", "method": "eagle", "weight_dtype": "bf16", "kv_dtype": "bf16", "tp": 1,
        "hardware": {"h100-sxm": "NVIDIA H100 SXM5 80GB"}, "model": {"llama-3.1-8b": "Llama 3.1 8B"}}


def _tables(data: dict):
    sc = scenario_from_dict(data)
    pairs = load_configs(sc)
    return sc, pairs, run_sweep(sc, pairs), operator_table(sc, pairs)


@pytest.fixture(scope="module")
def small():
    return _tables(SMALL)


@pytest.fixture
def sweep_folder(small, tmp_path):
    sc, pairs, _, _ = small
    folder = tmp_path / "sweep"
    folder.mkdir()
    write_sweep(sc, pairs, folder, plots=False)
    return folder


def _assert_real_image(path):
    data = path.read_bytes()
    assert len(data) > 10_000, path
    if path.suffix == ".png":
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        assert b"<svg" in data[:2000] and data.rstrip().endswith(b"</svg>")


@pytest.mark.slow
def test_standard_plots_write_all_six_plots_as_png_and_svg(small, tmp_path):
    _, _, df, ops = small
    paths = standard_plots(df, ops, META, tmp_path, formats=("png", "svg"))
    assert [p.name for p in paths] == [f"{name}.{ext}" for name in DECODE_PLOTS for ext in ("png", "svg")]
    for path in paths:
        _assert_real_image(path)


@pytest.mark.slow
def test_plot_from_table_redraws_from_a_written_results_csv_into_another_folder_as_png_by_default(sweep_folder, tmp_path):
    out = tmp_path / "replot"
    paths = plot_from_table(sweep_folder / "results.csv", out)
    assert {p.name for p in paths} == {f"{name}.png" for name in DECODE_PLOTS}
    assert all(p.parent == out for p in paths)
    for path in paths:
        _assert_real_image(path)


def test_plot_from_table_refuses_to_overwrite_a_plot_without_force_and_writes_nothing(sweep_folder):
    existing = sweep_folder / "pareto.svg"
    existing.write_text("old")
    with pytest.raises(RooflineError) as err:
        plot_from_table(sweep_folder, formats=("png", "svg"))
    # no --out was given: the message names the table's folder, not an option the user did not pass
    assert str(err.value) == f"plot (into the table's folder): {existing} exists; pass --force to overwrite it or --out DIR for another folder"
    assert existing.read_text() == "old"
    assert not list(sweep_folder.glob("*.png"))


def test_a_results_table_missing_a_column_is_a_one_line_error_naming_file_and_column(sweep_folder, tmp_path):
    table = tmp_path / "broken.csv"
    pd.read_csv(sweep_folder / "results.csv").drop(columns=["speedup"]).to_csv(table, index=False)
    with pytest.raises(RooflineError) as err:
        plot_from_table(table, tmp_path / "out")
    message = str(err.value)
    assert "\n" not in message and str(table) in message and "speedup" in message and "found hardware" in message
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_missing_table_is_a_one_line_error(tmp_path):
    with pytest.raises(RooflineError, match="expected a sweep folder with results.csv or results.parquet, found neither"):
        plot_from_table(tmp_path)
    with pytest.raises(RooflineError, match="found nothing there"):
        plot_from_table(tmp_path / "nope.csv")
    with pytest.raises(RooflineError) as err:  # qa459: a README block run out of order named no way to make one
        plot_from_table(tmp_path / "out" / "eoh-serve")
    assert str(err.value).endswith(f"found nothing there (`roofline sweep SCENARIO --out {tmp_path / 'out' / 'eoh-serve'}` writes one)")


@pytest.mark.slow
def test_without_operators_csv_and_scenario_json_the_roofline_is_skipped_and_the_rest_drawn(small, tmp_path, monkeypatch):
    _, _, df, _ = small
    df.to_csv(tmp_path / "results.csv", index=False)
    seen = {}
    monkeypatch.setattr(plot_jobs, "standard_plots", lambda d, o, m, out, formats, pool=None: seen.update(df=d, ops=o, meta=m, out=out) or [])
    plot_from_table(tmp_path / "results.csv")
    assert seen["ops"] is None and seen["out"].parent == tmp_path  # drawn aside in the table's folder, then moved in
    assert seen["meta"]["method"] == "eagle" and seen["meta"]["hardware"] == {"h100-sxm": "h100-sxm"} and seen["meta"]["tp"] == 1
    assert _drawn(seen["df"], None, seen["meta"]) == set(DECODE_PLOTS) - {"roofline"}


def _drawn(df, ops, meta) -> set[str]:
    """The plots that would be drawn (figures built, not saved: fast)."""
    return {name for name in PLOT_NAMES if PLOTTERS[name](df, ops, meta) is not None}


@pytest.mark.slow
def test_method_none_skips_the_heatmap_and_best_k_without_error():
    _, _, df, ops = _tables({**SMALL, "method": "none", "axes": {"batch": [1, 16, 256], "context": [2048]}})
    assert _drawn(df, ops, {**META, "method": "none"}) == {"roofline", "step_time_vs_tokens", "throughput_vs_batch", "pareto"}


@pytest.mark.slow
def test_a_single_batch_value_skips_the_plots_along_the_batch():
    """One batch size: no step-time knee, and (qa190) no throughput, Pareto or best-k figure of a lone dot a panel; with
    one alpha too, no heatmap of a lone cell a panel (qa301)."""
    _, _, df, ops = _tables({**SMALL, "axes": {"batch": [4], "k": [1, 3], "alpha": [0.8]}})
    assert _drawn(df, ops, META) == {"roofline"}
    _, _, df, ops = _tables({**SMALL, "axes": {"batch": [4], "k": [1, 3], "alpha": [0.6, 0.8]}})
    assert _drawn(df, ops, META) == {"roofline", "speedup_heatmap"}  # a column of two cells


@pytest.mark.slow
def test_per_position_acceptance_rates_plot_as_one_alpha_row():
    _, _, df, ops = _tables({**{k: v for k, v in SMALL.items() if k != "axes"}, "acceptance": [0.8, 0.7, 0.6],
                             "axes": {"batch": [1, 64], "k": [1, 3]}})
    assert df["alpha"].isna().all()
    assert _drawn(df, ops, META) == set(DECODE_PLOTS)


def test_frontier_keeps_exactly_the_non_dominated_points_sorted_by_x():
    x = np.array([1.0, 2.0, 3.0, 2.0, 0.5])
    y = np.array([5.0, 4.0, 1.0, 3.0, 5.0])
    assert _frontier(x, y).tolist() == [0, 1, 2]
    # (10, 100), (20, 80), (30, 10) dominate nothing of each other; (15, 50) is dominated by (20, 80)
    assert _frontier(np.array([10.0, 20, 30, 15]), np.array([100.0, 80, 10, 50])).tolist() == [0, 1, 2]


@pytest.mark.slow
def test_parallel_and_serial_drawing_write_the_same_png_bytes(small, tmp_path):
    _, _, df, ops = small
    jobs = [(name, df, ops, META, tmp_path / mode / name, ("png",)) for mode in ("serial", "pool") for name in ("best_k_vs_batch", "speedup_heatmap")]
    for mode in ("serial", "pool"):
        (tmp_path / mode).mkdir()
    with FigurePool(2, workers=1) as serial, FigurePool(2, workers=2) as pool:
        serial.draw(jobs[:2])
        pool.draw(jobs[2:])
    for name in ("best_k_vs_batch", "speedup_heatmap"):
        assert (tmp_path / "serial" / f"{name}.png").read_bytes() == (tmp_path / "pool" / f"{name}.png").read_bytes()


def test_best_k_is_drawn_at_integer_heights_and_the_edge_of_the_k_range_is_marked(small):
    _, _, df, ops = small  # k swept 1, 2, 4: at alpha 0.9 and small batch the best k is 4, the largest swept
    from matplotlib import rc_context

    with rc_context(plots.STYLE):
        fig = PLOTTERS["best_k_vs_batch"](df, ops, META)
    ys = np.concatenate([line.get_ydata() for ax in fig.axes for line in ax.get_lines() if len(line.get_ydata())])
    assert np.all(ys == np.round(ys))  # no offsets along k
    edge = [line for ax in fig.axes for line in ax.get_lines() if line.get_marker() == "^" and len(line.get_ydata())]
    assert edge and all(np.all(np.asarray(line.get_ydata()) == 4) for line in edge)


def test_heatmap_break_even_runs_along_cell_edges_only():
    grid = np.array([[2.0, 1.5, 0.9], [2.5, 1.2, 1.1]]) >= 1.0
    from matplotlib.figure import Figure

    ax = Figure().subplots()
    plots._cell_boundary(ax, grid, np.ones_like(grid))
    (segments,) = [c.get_segments() for c in ax.collections]
    # one vertical edge between columns 1 and 2 of row 0, one horizontal edge above cell (0, 2): all at half-integers
    pts = np.concatenate(segments)
    assert len(segments) == 2 and np.all(np.abs(pts * 2 - np.round(pts * 2)) < 1e-12) and np.all(pts % 1 == 0.5)


def test_labels_placed_by_place_labels_do_not_overlap_each_other():
    from matplotlib import rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.text import Text

    with rc_context(plots.STYLE):
        fig = Figure(figsize=(4, 3))
        FigureCanvasAgg(fig)
        ax = fig.subplots()
        x = np.array([1.0, 1.05, 1.1, 3.0, 3.02])
        ax.plot(x, x, "o")
        plots.place_labels(fig, [(ax, v, v, f"operator {i}") for i, v in enumerate(x)])
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        boxes = [Text.get_window_extent(t, renderer) for t in ax.texts]  # the text alone, without its leader line
        leaders = [(ax.transData.transform(t.xy), box) for t, box in zip(ax.texts, boxes) if t.arrow_patch is not None]
    assert len(boxes) == 5
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    assert all(plots._leader_crossings(point, box, plots._extents([b for b in boxes if b is not box])) == 0 for point, box in leaders)


def test_a_log_axis_over_many_decades_has_no_minor_ticks_and_draws():
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure()
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.plot([1, 1e5], [1, 2])
    plots._log_axis(ax, "x")
    fig.canvas.draw()
    assert len(ax.xaxis.get_minorticklocs()) == 0 and len(ax.xaxis.get_majorticklocs()) >= 5


@pytest.mark.parametrize("name", ["roofline", "speedup_heatmap", "throughput_vs_batch"])
def test_arrange_keeps_every_text_inside_the_figure_and_off_the_other_panels(small, name):
    """The measured layout (`arrange`) leaves room for what each panel draws outside its frame: tick labels,
    axis labels and titles stay inside the figure and off every other panel, and the legend or colour bar
    sits right of the panels."""
    from matplotlib import rc_context

    _, _, df, ops = small
    two = pd.concat([df, df.assign(hardware="h200")])  # two panels side by side
    two_ops = pd.concat([ops, ops.assign(hardware="h200")])
    with rc_context(plots.STYLE):
        fig = PLOTTERS[name](two, two_ops, META)
        plots.arrange(fig)
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        frame = fig.bbox
        panels = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
        assert len(panels) == 2
        def drawn_ticks(axis):  # the labels of ticks inside the view: matplotlib keeps others but never draws them
            lo, hi = sorted(axis.get_view_interval())
            return [t.label1 for t in axis.get_major_ticks() if lo * (1 - 1e-9) <= t.get_loc() <= hi * (1 + 1e-9)]

        texts = [fig._suptitle] + [t for ax in fig.axes for t in
                                   (ax.title, ax.xaxis.label, ax.yaxis.label, *drawn_ticks(ax.xaxis), *drawn_ticks(ax.yaxis))]
        for t in texts:
            if not (t.get_visible() and t.get_text()):
                continue
            box = t.get_window_extent(renderer)
            assert frame.x0 - 1 <= box.x0 and box.x1 <= frame.x1 + 1 and frame.y0 - 1 <= box.y0 and box.y1 <= frame.y1 + 1, t.get_text()
            owner = t.axes
            assert not any(box.overlaps(ax.bbox) for ax in panels if ax is not owner and owner in panels), t.get_text()
        footer = [t for t in fig.texts if t.get_gid() == plots.FOOTER_GID]  # it overprinted the last panel's x label
        lowest = min(t.get_window_extent(renderer).y0 for ax in panels for t in (ax.xaxis.label, *drawn_ticks(ax.xaxis)))
        assert len(footer) == 1 and footer[0].get_window_extent(renderer).y1 <= lowest + 0.5  # below every x label
        right_edge = max(ax.bbox.x1 for ax in panels)
        extras = [legend.get_window_extent(renderer) for legend in fig.legends]
        extras += [ax.bbox for ax in fig.axes if ax.get_subplotspec() is None]
        assert extras and all(box.x0 >= right_edge and box.x1 <= frame.x1 + 1 for box in extras)


def test_arrange_rewraps_a_figure_title_wider_than_the_figure():
    from matplotlib import rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with rc_context(plots.STYLE):
        fig = Figure(figsize=(4, 3), dpi=plots.DPI)
        FigureCanvasAgg(fig)
        fig.subplots()
        fig.suptitle("a title far longer than a four-inch figure can hold on one line, " * 2 + "\nsecond line")
        plots.arrange(fig)
        box = fig._suptitle.get_window_extent(fig.canvas.get_renderer())
    assert fig.bbox.x0 <= box.x0 and box.x1 <= fig.bbox.x1
    assert fig._suptitle.get_text().count("\n") >= 2 and fig._suptitle.get_text().endswith("\nsecond line")


@pytest.mark.slow
def test_arrange_rewraps_a_panel_title_that_would_run_under_the_colour_bar_or_its_neighbour():
    """qa256: a report heatmap's last panel title ('... EAGLE, context 8k') ran under the colour bar: its wrap width was
    estimated from the figure's width, before the bar and the y tick labels took theirs."""
    from matplotlib import rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    title = "NVIDIA H200 SXM 141GB, EAGLE-3, context 128k"
    with rc_context(plots.STYLE):
        fig = Figure(figsize=(11, 4), dpi=plots.DPI)  # the report's width: 51 characters a panel estimated
        FigureCanvasAgg(fig)
        axes = fig.subplots(1, 2)
        for ax in axes:
            plots._set_panel_title(ax, title + "\npeak 989 TFLOP/s")  # a title's own second line is kept
            ax.set_yticks([0], ["rates 0.8, 0.6, 0.45, 0.3, 0.2, 0.1"])
            ax.set_ylabel("acceptance rate α (per token)")
        image = axes[1].imshow([[1.0, 2.0]])
        fig.colorbar(image, cax=fig.add_axes((0.0, 0.0, 0.01, 0.01)))
        plots.arrange(fig)
        renderer = fig.canvas.get_renderer()
        first, last = (ax.title.get_window_extent(renderer) for ax in axes)
        bar = next(ax for ax in fig.axes if ax.get_subplotspec() is None).get_window_extent(renderer)
    assert last.x1 <= bar.x0 and first.x1 <= last.x0
    assert axes[1].get_title() == "NVIDIA H200 SXM 141GB, EAGLE-3,\ncontext 128k\npeak 989 TFLOP/s"


def test_a_candidate_label_box_is_where_matplotlib_would_draw_the_annotation():
    import math

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from roofline.plots import DPI, _offset_box

    fig = Figure(figsize=(4, 3), dpi=DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.set_xscale("log")
    ax.set_xlim(1, 100)
    renderer = fig.canvas.get_renderer()
    probe = ax.annotate("attention, o_proj", (10, 0.5), xytext=(0, 0), textcoords="offset points", fontsize=6.5)
    size = (probe.get_window_extent(renderer).width, probe.get_window_extent(renderer).height)
    for radius, angle in ((5, 45), (28, -135), (55, 0), (18, 90), (40, 180), (11, -90)):
        dx, dy = radius * math.cos(math.radians(angle)), radius * math.sin(math.radians(angle))
        where = (dx, dy, "left" if dx > 1 else "right" if dx < -1 else "center", "bottom" if dy > 1 else "top" if dy < -1 else "center")
        note = ax.annotate("attention, o_proj", (10, 0.5), xytext=(dx, dy), textcoords="offset points", ha=where[2], va=where[3],
                           fontsize=6.5)
        drawn = note.get_window_extent(renderer)
        box = _offset_box(ax.transData.transform((10, 0.5)), size, where, fig.dpi / 72.0)
        assert np.allclose([box.x0, box.y0, box.x1, box.y1], [drawn.x0, drawn.y0, drawn.x1, drawn.y1], atol=0.01)


def test_the_vectorised_overlap_and_leader_checks_agree_with_matplotlibs_box_tests():
    from matplotlib.transforms import Bbox

    from roofline.plots import _extents, _leader_crossings, _overlaps

    rng = np.random.default_rng(7)
    boxes = [Bbox.from_extents(*rng.uniform(0, 100, 4)) for _ in range(60)]  # some with x1 < x0: inverted extents
    taken = _extents(boxes)
    for _ in range(40):
        box = Bbox.from_bounds(*rng.uniform(0, 90, 2), *rng.uniform(1, 20, 2))
        point = rng.uniform(0, 100, 2)
        assert _overlaps(box, taken) == sum(box.overlaps(b) for b in boxes)
        centre = ((box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2)
        samples = [point + f * (np.array(centre) - point) for f in np.linspace(0.15, 0.85, 8)]
        crossed = sum(any(b.contains(*s) for s in samples) for b in boxes if not b.contains(*point))
        assert _leader_crossings(point, box, taken) == crossed


def _panel_keys(data: dict):
    from roofline.grid import scenario_meta

    sc, pairs, df, ops = _tables(data)
    return plots._panels(df, ("hardware", "model", "context"), scenario_meta(sc, pairs, len(df))), df


def test_a_config_axis_gets_panels_of_its_own_or_its_first_value_with_a_note():
    methods = {**SMALL, "hardware": ["h100-sxm", "h200"], "method": ["ngram", "eagle", "draft"], "draft": "llama-3.2-1b"}
    (by, keys, note), df = _panel_keys(methods)
    assert by == ("hardware", "model", "context", "method") and len(keys) == 6 and note == ""
    for key in keys:  # each panel one config: no cell or curve mixes methods
        rows = plots._panel_rows(df, by, key)
        assert rows["method"].nunique() == 1 and len(rows) == len(df) // 6
    many = {**SMALL, "hardware": ["h100-sxm", "h200"], "method": "draft", "draft": "llama-3.2-1b",
            "draft_hardware": [None, "l4", "l40s", "a10g"]}
    (by, keys, note), df = _panel_keys(many)
    assert "draft_hardware" in by and len(keys) == 2 and note == "drafter on the target only"
    assert plots._panel_title({}, dict(zip(by, keys[1])), False) == "h200, drafter on the target, context 1k"


@pytest.mark.slow
def test_a_sweep_over_methods_draws_every_standard_plot(tmp_path):
    sc, pairs, df, ops = _tables({**SMALL, "method": ["eagle", "ngram"]})
    from roofline.grid import scenario_meta

    paths = standard_plots(df, ops, scenario_meta(sc, pairs, len(df)), tmp_path, workers=1)
    assert {p.stem for p in paths} == set(DECODE_PLOTS)


def test_every_builtin_scenarios_meta_makes_a_setup_line_and_panels():
    import dataclasses

    from roofline.grid import scenario_meta
    from roofline.profiles import list_names
    from roofline.scenario import load_scenario

    for name in list_names("scenario"):  # each scenario's configs as they are, at one point each
        sc = load_scenario(name)
        sc = dataclasses.replace(sc, axes={axis: values[-1:] for axis, values in sc.axes.items()})
        pairs = load_configs(sc)
        df = run_sweep(sc, pairs)
        meta = scenario_meta(sc, pairs, len(df))
        assert plots._setup_line(meta, list(sc.model)), name
        by, keys, _ = plots._panels(df, ("hardware", "model", "context"), meta)
        assert all(len(plots._panel_rows(df, by, key)) == 1 for key in keys), name  # one config per panel


# ---------------------------------------------------------------- best k = 0, points that do not fit, panel choice

K0 = {"name": "hm-k0", "hardware": "h100-sxm", "model": "llama-3.1-8b", "engine": "ideal", "method": "eagle",
      "axes": {"batch": [64, 128, 256, 512], "context": [512], "k": [0, 1, 2], "alpha": [0.3, 0.5]}}


@pytest.fixture(scope="module")
def k0():
    return _tables(K0)


def _figure(name, df, ops, meta):
    from matplotlib import rc_context

    with rc_context(plots.STYLE):
        fig = PLOTTERS[name](df, ops, meta)
        if fig is not None:
            plots.arrange(fig)
    return fig


def test_heatmap_draws_a_cell_whose_best_k_is_0_as_speedup_1_not_as_no_fit(k0):
    _, _, df, ops = k0
    best = df[df["k"] == df["best_k"]].sort_values(["alpha", "batch"])
    assert (best["best_k"] == 0).any() and best["fits_in_memory"].all()  # the tester's case: fits, best k 0
    fig = _figure("speedup_heatmap", df, ops, {**META, "method": "eagle"})
    (image,) = [im for ax in fig.axes for im in ax.images]
    shown = image.get_array()
    assert shown.shape == (2, 4) and not np.ma.getmaskarray(shown).any()  # every cell fits: none grey, batch 512 kept
    grid = best["speedup"].to_numpy().reshape(2, 4)  # rows alpha 0.3, 0.5; columns batch 64..512
    assert np.allclose(shown.filled(np.nan), grid) and np.allclose(grid[best["best_k"].to_numpy().reshape(2, 4) == 0], 1.0)
    texts = {t.get_text() for ax in fig.axes for t in ax.texts}
    assert "1.00\nk=0" in texts and "no fit" not in texts
    title = fig._suptitle.get_text().replace("\n", " ")
    assert "black line: break-even" in title and "no break-even" not in title and "k=0: speculation does not pay" in title
    assert "grey" not in title  # nothing shown is grey
    (edges,) = [c for ax in fig.axes if ax.get_subplotspec() is not None for c in ax.collections]  # k > 0 | k = 0 cells
    assert len(edges.get_segments()) >= 2


def test_heatmap_greys_only_the_cells_that_do_not_fit(k0):
    _, _, df, ops = k0
    tight = df.assign(fits_in_memory=df["fits_in_memory"] & (df["batch"] < 512))  # batch 512 fits under no k
    tight = tight.assign(best_k=np.where(tight["batch"] < 512, tight["best_k"], -1))
    fig = _figure("speedup_heatmap", tight, ops, META)
    (image,) = [im for ax in fig.axes for im in ax.images]
    assert np.ma.getmaskarray(image.get_array()).tolist() == [[False, False, False, True]] * 2
    assert "grey: does not fit in memory" in fig._suptitle.get_text().replace("\n", " ")


def test_best_k_and_throughput_keep_the_points_whose_best_k_is_0(k0):
    _, _, df, ops = k0
    fig = _figure("best_k_vs_batch", df, ops, META)
    (ax,) = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
    lines = [line for line in ax.get_lines() if line.get_label().startswith("α")]
    ys = {line.get_label(): np.asarray(line.get_ydata()).tolist() for line in lines}
    assert ys == {"α = 0.3": [1, 1, 0, 0], "α = 0.5": [2, 1, 1, 0]}  # the table's best_k at batch 64..512
    assert ax.get_ylim()[0] < 0 and ax.yaxis.get_major_formatter()(0, 0) == "0, none"
    fig = _figure("throughput_vs_batch", df, ops, META)
    (ax,) = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
    spec = {line.get_label(): line for line in ax.get_lines() if "best k" in line.get_label()}
    base = df[df["k"] == 0].drop_duplicates("batch").sort_values("batch")
    g = spec["α = 0.3, best k"]
    assert np.asarray(g.get_xdata()).tolist() == [64, 128, 256, 512]  # speculation does not pay at 256, 512: the baseline
    assert np.allclose(np.asarray(g.get_ydata())[2:], base["baseline_tokens_per_s"].to_numpy()[2:])


def test_throughput_names_the_one_k_swept_not_a_best_k():
    """qa421: a sweep of k = 3 alone labelled its lines 'best k' and titled them 'best k per point'."""
    df, ops, meta = _meta_of({**SMALL, "axes": {**SMALL["axes"], "k": [3]}})
    fig = _figure("throughput_vs_batch", df, ops, meta)
    labels = [line.get_label() for ax in fig.axes for line in ax.get_lines()]
    title = fig._suptitle.get_text().replace("\n", " ")
    assert "α = 0.6, k = 3" in labels and not any("best k" in x for x in labels) and "best k" not in title, (labels, title)
    assert "with speculation (k = 3) and without" in title, title


def test_speedup_vs_context_draws_each_batchs_best_speedup_until_it_no_longer_fits():
    """qa421: a context sweep had no figure against the context. One line per batch at the middle alpha, each point the
    table's best-k speedup, ending where no k >= 1 fits; a best k of 0 drawn hollow at 1; one context: not drawn."""
    data = {**SMALL, "model": "llama-3.1-70b", "tp": 8, "method": "draft", "draft": "llama-3.2-1b",
            "axes": {"batch": [1, 16, 64, 256, 512], "context": [1024, 8192, 32768], "k": [0, 2, 4],
                     "alpha": [0.3, 0.6, 0.9]}}
    df, ops, meta = _meta_of(data)
    fig = _figure("speedup_vs_context", df, ops, meta)
    (ax,) = _panel_axes(fig)
    title = fig._suptitle.get_text().replace("\n", " ")
    assert "α\u00a0=\u00a00.6, the middle of 3 swept" in title, title
    best = df[(df["k"] == df["best_k"]) & (df["alpha"] == 0.6)]
    drafting = df[(df["k"] > 0) & df["fits_in_memory"] & (df["alpha"] == 0.6)]
    lines = {line.get_label(): line for line in ax.get_lines() if line.get_label().startswith("batch")}
    assert list(lines) == ["batch 1", "batch 16", "batch 64", "batch 256", "batch 512"]
    for b, line in ((int(label.split()[1]), line) for label, line in lines.items()):
        want = best[(best["batch"] == b) & best["context"].isin(drafting.loc[drafting["batch"] == b, "context"])]
        want = want.sort_values("context")
        assert np.asarray(line.get_xdata()).tolist() == want["context"].tolist(), b
        assert np.allclose(line.get_ydata(), want["speedup"]), b
    assert len(lines["batch 512"].get_xdata()) < 3  # batch 512 at 32k does not fit: its line ends before
    low, _, _ = _meta_of({**data, "axes": {**data["axes"], "alpha": [0.3]}})
    off = low[(low["k"] == low["best_k"]) & (low["best_k"] == 0) & low["fits_in_memory"]]
    assert len(off)  # speculation does not pay somewhere: hollow markers at 1, said in the legend
    fig = _figure("speedup_vs_context", low, ops, {**meta, "axes": {**meta["axes"], "alpha": [0.3]}})
    (ax,) = _panel_axes(fig)
    hollow = [line for line in ax.get_lines() if line.get_marker() == "o" and line.get_markerfacecolor() == "white"
              and len(line.get_xdata())]
    assert sum(len(line.get_xdata()) for line in hollow) >= 1
    assert any("speculation\ndoes not pay" in line.get_label() for line in ax.get_lines())
    # qa425: several batches' hollow points on one spot hid each other: each batch's markers shifted sideways
    xs = [float(x) for line in hollow for x in line.get_xdata()]
    assert len(xs) >= 2 and len(set(xs)) == len(xs), xs
    assert "markers shifted" in fig.legends[0].get_title().get_text()
    fig = _figure("speedup_vs_context", df, ops, meta)  # nothing on one spot: no shift, nothing said
    assert not fig.legends[0].get_title().get_text()
    one = df[df["context"] == 1024]
    assert PLOTTERS["speedup_vs_context"](one, ops, meta) is None
    k4 = df[df["k"] == 4]  # one k swept: named, not 'best k'
    title = _figure("speedup_vs_context", k4, ops, meta)._suptitle.get_text().replace("\n", " ")
    assert title.startswith("Speedup vs context, k = 4 ") and "best k" not in title, title


def test_throughput_of_k_0_and_3_says_best_k():
    """qa424: k 0 and 3 swept is no one k (a point's best k may be 0): 'best k', not 'k = 3'."""
    df, ops, meta = _meta_of({**SMALL, "axes": {**SMALL["axes"], "k": [0, 3]}})
    fig = _figure("throughput_vs_batch", df, ops, meta)
    labels = [line.get_label() for ax in fig.axes for line in ax.get_lines()]
    assert any(x.endswith(", best k") for x in labels) and not any(x.endswith("k = 3") for x in labels), labels


def test_table_order_is_each_panels_first_row():
    """qa424: a panel's rows apart in the table keep the place of its first."""
    table = pd.DataFrame([("h", "x", c) for c in (4096, 16384, 4096)], columns=["hardware", "model", "context"])
    table = table.assign(fits_in_memory=True)
    by, keys, _ = plots._panels(table.iloc[[1, 0, 2]], ("hardware", "model", "context"),
                                {"headline_first": True, "table_order": table})
    assert [k[by.index("context")] for k in keys] == [4096, 16384]


def test_the_reports_generic_figure_draws_every_context_in_the_tables_order():
    """qa421 end to end (qa424: the report's side untested): the headline at a later context, all four drawn in order."""
    import warnings

    from roofline.report import _sweep
    from roofline.report_figures import REPORT_PLOTTERS

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df, ops, meta = _sweep({"name": "lc", "hardware": "h200", "model": "llama-3.1-8b", "method": "eagle",
                                "axes": {"batch": [1, 8, 32], "context": [4096, 16384, 65536, 131072], "k": [0, 3],
                                         "alpha": [0.8]}}, "lc", ())
    drafting = df[df["fits_in_memory"].astype(bool) & (df["k"] > 0)]
    assert int(drafting.loc[drafting["speedup"].idxmax(), "context"]) != 4096  # the headline's is not the first
    fig = REPORT_PLOTTERS["generic"](df, ops, meta)
    titles = [ax.get_title().replace("\n", " ") for ax in fig.axes if ax.get_subplotspec() is not None]
    assert [t.rsplit("context ", 1)[1] for t in titles] == ["4k", "16k", "64k", "128k"], titles


def test_a_heatmap_cell_where_only_plain_decoding_fits_says_plain_only():
    """qa423: a grey cell said 'no fit' where plain decoding fits and only speculation (its drafter and k + 1 tokens)
    does not: on one H200 at 8k, EAGLE fits 104 sequences, plain decoding 108."""
    data = {**SMALL, "hardware": "h200", "axes": {"batch": [1, 8, 106, 512], "context": [8192], "k": [0, 2],
                                                  "alpha": [0.6, 0.8]}}
    df, ops, meta = _meta_of(data)
    fig = _figure("speedup_heatmap", df, ops, meta)
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert texts.count("plain\nonly") == 2 and texts.count("no fit") == 2, texts  # 106: plain fits; 512: neither
    assert "plain only: plain decoding fits there, speculation does not" in fig._suptitle.get_text().replace("\n", " ")
    fig = _figure("speedup_heatmap", df[df["batch"] != 106], ops, meta)
    assert "plain only" not in fig._suptitle.get_text().replace("\n", " ")


def test_step_time_fades_and_hollows_the_passes_that_do_not_fit():
    _, _, df, ops = _tables({**SMALL, "axes": {"batch": [1, 32, 256], "context": [8192], "k": [1, 2], "alpha": [0.7]}})
    fits = df.groupby("batch")["fits_in_memory"].any()
    assert fits.tolist() == [True, True, False]  # batch 256 at 8k context does not fit an H100
    fig = _figure("step_time_vs_tokens", df, ops, META)
    (ax,) = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
    decode = [line for line in ax.get_lines() if line.get_color() == "k" and len(line.get_xdata()) == 3]
    solid = [line for line in decode if line.get_alpha() is None]
    faded = [line for line in decode if line.get_alpha() is not None and line.get_alpha() < 0.5]
    assert len(solid) == 1 and np.isnan(solid[0].get_ydata()[2]) and np.isfinite(solid[0].get_ydata()[:2]).all()
    assert faded and np.isfinite(faded[0].get_ydata()[1:]).all()  # the faded stretch runs from the last point that fits
    hollow = [line for line in ax.get_lines() if line.get_alpha() is not None and line.get_alpha() < 0.5
              and line.get_markerfacecolor() == "white" and line.get_linestyle() == "None"]
    assert sorted(x for line in hollow for x in line.get_xdata()) == [256.0, 512.0, 768.0]  # decode B=256, verify 256 x 2, x 3
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any("does not" in text and "fit in memory" in text for text in legend)
    assert "faded, hollow: does not fit in memory" in fig._suptitle.get_text()


def test_roofline_names_its_context_and_draws_the_largest_batch_that_fits(tmp_path):
    _, _, df, ops = _tables({**SMALL, "axes": {"batch": [1, 32, 256], "context": [8192], "k": [1, 2], "alpha": [0.7]}})
    # standard_jobs keeps the operators' context (it used to drop it); batch 256 does not fit an H100 at 8k
    (job,) = [job for job in plot_jobs.standard_jobs(df, ops, META, tmp_path) if job[0] == "roofline"]
    fig = _figure("roofline", *job[1:4])
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "decode step, B = 32, q = 1" in legend and not any("B = 256" in text for text in legend)
    assert fig._suptitle.get_text().startswith("Roofline at context 8k:")
    assert "the largest swept that fits in memory" in fig._suptitle.get_text()  # qa208: not the largest that fits
    for engine, said in (("vllm", True), ("ideal", False)):  # qa208: an engine's small operators sit far below
        fig = _figure("roofline", job[1], job[2], {**job[3], "engine": [engine]})
        assert any("kernel latencies" in t.get_text() for t in fig.legends[0].get_texts()) is said


def test_the_roofline_legend_lists_only_the_operators_of_the_panels_drawn():
    """qa431: a (hardware, model) grid too large to draw whole keeps one model, and the legend listed the router and
    experts of the MoE model its panels left out."""
    data = {**SMALL, "hardware": ["h100-sxm", "h200", "b200", "mi300x", "l40s"], "model": ["llama-3.1-8b", "qwen3-30b-a3b"],
            "method": "ngram", "axes": {"batch": [1, 8], "context": [1024], "k": [2], "alpha": [0.7]}}
    _, _, df, ops = _tables(data)
    assert {"router", "experts"} <= set(ops["operator"])  # the MoE model's operators are in the table
    fig = _figure("roofline", df, ops, META)
    titles = " ".join(ax.get_title() for ax in fig.axes)
    assert "Qwen3" not in titles and "qwen3" not in titles  # the case: its panels left out
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "mlp" in legend and "router" not in legend and "experts" not in legend, legend


def test_the_roofline_draws_the_verify_pass_at_a_batch_where_speculation_fits():
    """Plain decoding fit to batch 448 on an H100 at 1k, speculation to 432 (its KV cache for k + 1 tokens, and the
    drafter): the verify pass was drawn at 448, in a legend saying 'largest B that fits' (qa105). In vllm's own share
    of the memory (session 35) plain decoding fits to 426, speculation to 406."""
    _, _, df, ops = _tables({**SMALL, "axes": {"batch": [1, 64, 400, 420], "context": [1024], "k": [0, 8], "alpha": [0.7]}})
    at = df[df["fits_in_memory"].astype(bool)].groupby("k")["batch"].max()
    assert at[0] == 420 and at[8] == 400  # the case: plain fits further than speculation
    fig = _figure("roofline", df, ops, META)
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "verify pass, B = 400, q = 9" in legend and not any("B = 420" in text for text in legend)


def test_a_verify_pass_where_no_speculative_row_fits_is_said_not_to_fit():
    """Where speculation fits at no swept batch the plain rows choose the large batch, and the verify pass drawn there
    was labelled as if it fit (qa106)."""
    _, _, df, ops = _tables({**SMALL, "axes": {"batch": [412, 420], "context": [1024], "k": [0, 8], "alpha": [0.7]}})
    assert not df.loc[df["k"] > 0, "fits_in_memory"].any() and df.loc[df["k"] == 0, "fits_in_memory"].all()
    legend = [t.get_text() for t in _figure("roofline", df, ops, META).legends[0].get_texts()]
    assert "verify pass, B = 420, q = 9\n(does not fit in memory)" in legend and "decode step, B = 420, q = 1" in legend


def test_a_roofline_panel_where_nothing_fits_says_so_in_its_legend():
    _, _, df, ops = _tables({**SMALL, "axes": {"batch": [1, 32, 256], "context": [8192], "k": [1, 2], "alpha": [0.7]}})
    fig = _figure("roofline", df.assign(fits_in_memory=False), ops, META)
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "decode step, B = 256, q = 1\n(does not fit in memory)" in legend


def test_a_marker_that_fits_in_one_panel_and_not_in_another_is_one_legend_entry():
    """qa284: where one panel's rows fit at B = 1 and another's did not, the legend listed the verify pass at B = 1
    twice, once as fitting and once not; one entry now, saying it does not fit in some panels."""
    data = {**SMALL, "hardware": ["h100-sxm", "h200"], "axes": {"batch": [1, 32], "context": [1024], "k": [0, 2], "alpha": [0.7]}}
    _, _, df, ops = _tables(data)
    meta = {**META, "hardware": {"h100-sxm": "NVIDIA H100 SXM5 80GB", "h200": "NVIDIA H200 SXM 141GB"}}
    squeezed = df.assign(fits_in_memory=df["fits_in_memory"] & (df["hardware"] == "h200"))  # nothing fits on the H100
    legend = [t.get_text() for t in _figure("roofline", squeezed, ops, meta).legends[0].get_texts()]
    small = [text for text in legend if text.startswith("verify pass, B = 1,")]
    assert small == ["verify pass, B = 1, q = 3\n(does not fit in some panels)"], legend
    legend = [t.get_text() for t in _figure("roofline", df, ops, meta).legends[0].get_texts()]
    assert [text for text in legend if text.startswith("verify pass, B = 1,")] == ["verify pass, B = 1, q = 3"]


def test_memory_shading_writes_its_note_upwards_where_no_point_is_drawn(k0):
    _, _, df, ops = k0
    tight = df.assign(fits_in_memory=df["fits_in_memory"] & (df["batch"] <= 128), max_batch=200, baseline_max_batch=200)
    tight = tight.assign(best_k=np.where(tight["batch"] <= 128, tight["best_k"], -1))
    for name in ("best_k_vs_batch", "throughput_vs_batch"):
        fig = _figure(name, tight, ops, META)
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        (ax,) = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
        (note,) = [t for t in ax.texts if t.get_text().startswith("does not fit in memory")]
        box = note.get_window_extent(renderer)
        last_point = ax.transData.transform((128, 1))[0]
        band = ax.transData.transform((200, 1))[0]
        assert note.get_rotation() == 90 and box.x0 > last_point and box.x0 >= band - 1, name
        assert not any(box.overlaps(marker) for marker in plots._marker_boxes(ax)), name


def test_placed_labels_keep_clear_of_every_marker():
    from matplotlib import rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.text import Text

    with rc_context(plots.STYLE):
        fig = Figure(figsize=(4, 3), dpi=plots.DPI)
        FigureCanvasAgg(fig)
        ax = fig.subplots()
        x = np.array([1.0, 1.3, 2.0, 2.2, 3.0, 3.1])
        y = np.array([1.0, 1.1, 2.0, 1.8, 3.0, 2.7])
        for xi, yi in zip(x, y):
            ax.plot([xi], [yi], "o", ms=7, mew=1.4, mfc="white")
        ax.set_xlim(0, 4)
        ax.set_ylim(0, 4)
        plots.place_labels(fig, [(ax, xi, yi, f"operator {i}") for i, (xi, yi) in enumerate(zip(x, y))])
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        gap_px = 1.4 * fig.dpi / 72.0  # at least 1.4 pt between a label and any marker, its own point's included
        marks = plots._marker_boxes(ax)
        for text in ax.texts:
            box = Text.get_window_extent(text, renderer).padded(gap_px)
            assert not any(box.overlaps(m) for m in marks), text.get_text()


def test_a_one_panel_heatmap_title_is_a_few_balanced_lines(k0):
    _, _, df, ops = k0
    fig = _figure("speedup_heatmap", df, ops, META)
    lines = fig._suptitle.get_text().split("\n")
    assert len(lines) <= 4
    assert min(len(line) for line in lines) >= 20  # no line of an orphaned word or two
    text = "black line: break-even; k=0: speculation does not pay (speedup 1); k≥2: largest k swept, best may lie beyond"
    wrapped = plots._balanced_fill(text, 73).split("\n")
    assert len(wrapped) == 2 and abs(len(wrapped[0]) - len(wrapped[1])) <= 12 and " ".join(wrapped) == text


NONE_TP = {"name": "none-tp", "hardware": ["h100-sxm", "h200"], "model": ["llama-3.1-8b", "llama-3.1-70b"], "tp": [1, 4],
           "axes": {"batch": [1, 8, 64, 512], "context": [1024]}}


def test_too_many_panels_keep_a_config_value_under_which_every_panel_has_points():
    from roofline.grid import scenario_meta

    sc, pairs, df, ops = _tables(NONE_TP)
    meta = scenario_meta(sc, pairs, len(df))
    by, keys, note = plots._panels(df, ("hardware", "model", "context"), meta)
    assert len(keys) == 4 and {key[by.index("tp")] for key in keys} == {4} and note == "TP 4 only"
    fig = _figure("throughput_vs_batch", df, ops, meta)
    panels = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
    assert all(ax.get_lines() for ax in panels) and not any("nothing fits" in t.get_text() for ax in panels for t in ax.texts)
    title = fig._suptitle.get_text()
    assert title.startswith("Throughput vs batch size (no speculation)") and "with speculation" not in title
    roof = _figure("roofline", df, ops, meta)
    # TP 4 said once, by the title's note, not again in each panel's title (qa377)
    assert "TP 4 only" in roof._suptitle.get_text().replace("\n", " ")
    assert not any("TP 4" in title.get_text() for title in (ax.title for ax in roof.axes if ax.get_subplotspec()))


def test_without_a_shared_value_each_panel_keeps_its_first_config_that_fits():
    rows = pd.DataFrame([(hw, m, 1024, tp) for hw in ("a", "b") for m in ("x", "y") for tp in (1, 4)],
                        columns=["hardware", "model", "context", "tp"])
    rows["fits_in_memory"] = (rows["model"] == "x") == (rows["tp"] == 1)  # x fits at TP 1 only, y at TP 4 only
    by, keys, note = plots._panels(rows, ("hardware", "model", "context"), {})
    assert keys == [("a", "x", 1024, 1), ("a", "y", 1024, 4), ("b", "x", 1024, 1), ("b", "y", 1024, 4)]
    assert note == "TP: the first that fits, per panel"
    nothing = rows.assign(fits_in_memory=False)  # nothing fits anywhere: the first value, as before
    assert plots._panels(nothing, ("hardware", "model", "context"), {})[2] == "TP 1 only"


def test_a_tree_sweep_without_a_best_depth_draws_its_heatmap_and_speculative_throughput():
    tree = {**SMALL, "tree": {"nodes": 8, "tau": 3.0}, "axes": {"batch": [1, 64, 512], "context": [1024], "k": [3]}}
    _, _, df, ops = _tables(tree)
    assert (df["best_k"] == -1).all()  # a tree's best depth is unknown: no row is "at best k"
    fig = _figure("speedup_heatmap", df, ops, META)
    (image,) = [im for ax in fig.axes for im in ax.images]
    fits = df.sort_values("batch")["fits_in_memory"].to_numpy()
    assert (~np.ma.getmaskarray(image.get_array())[0]).tolist() == fits.tolist()
    assert np.allclose(image.get_array().compressed(), df.sort_values("batch").loc[fits, "speedup"])
    fig = _figure("throughput_vs_batch", df, ops, META)
    (ax,) = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
    (spec,) = [line for line in ax.get_lines() if line.get_label().endswith(", k = 3")]  # its one k (qa421: 'best k')
    assert np.asarray(spec.get_xdata()).tolist() == df.loc[df["fits_in_memory"], "batch"].tolist()
    df, ops, meta = _meta_of(tree)  # with the tree in the meta, its k axis is named as its depth
    fig = _figure("throughput_vs_batch", df, ops, meta)
    (ax,) = _panel_axes(fig)
    labels = [line.get_label() for line in ax.get_lines() if not line.get_label().startswith("_")]
    assert labels == ["tree of 8 nodes, τ 3, depth 3", "no speculation"]
    assert "(depth 3) and without" in fig._suptitle.get_text()


def test_roofline_panels_whose_largest_fitting_batch_differs_name_it_in_their_titles():
    _, _, df, ops = _tables({**SMALL, "hardware": ["h100-sxm", "h200"],
                             "axes": {"batch": [1, 32, 64, 256], "context": [8192], "k": [1, 2], "alpha": [0.7]}})
    fig = _figure("roofline", df, ops, META)
    titles = [ax.get_title() for ax in fig.axes if ax.get_subplotspec() is not None]
    assert [t.split("filled: ")[-1] for t in titles] == ["B = 32", "B = 64"]  # H100 fits ~54 sequences of 8k, H200 ~107
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "decode step, largest B that fits\n(in each panel's title), q = 1" in legend
    assert not any("B = 256" in text for text in legend + titles)
    # qa263: a title wrapped again (arrange's _fit_panel_titles, the report's page) kept its raw form without the suffix
    panels = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
    plots._fit_panel_titles(panels, 120.0)
    assert [ax.get_title().replace("\n", " ").split("filled: ")[-1] for ax in panels] == ["B = 32", "B = 64"]


# ---------------------------------------------------------------- the reviewer's figure defects (plain decoding's cap, trees, titles)

def _meta_of(data: dict):
    from roofline.grid import scenario_meta

    sc, pairs, df, ops = _tables(data)
    return df, ops, scenario_meta(sc, pairs, len(df))


def _panel_axes(fig) -> list:
    return [ax for ax in fig.axes if ax.get_subplotspec() is not None and ax.get_visible()]


def test_pareto_divides_plain_decoding_by_the_tables_devices_and_the_title_names_pp():
    df, ops, meta = _meta_of({**SMALL, "pp": 2, "axes": {"batch": [1, 8, 64], "context": [1024], "k": [1, 2], "alpha": [0.8]}})
    assert (df["devices"] == 2).all()  # pp 2: the meta's tp is 1
    fig = _figure("pareto", df, ops, meta)
    (ax,) = _panel_axes(fig)
    (base,) = [line for line in ax.get_lines() if line.get_label() == "frontier, no speculation"]
    rows = df.drop_duplicates("batch").set_index("baseline_tokens_per_s_per_user")
    xs, ys = np.asarray(base.get_xdata(), dtype=float), np.asarray(base.get_ydata(), dtype=float)
    assert np.allclose(ys, rows.loc[xs, "baseline_tokens_per_s"].to_numpy() / 2)
    assert "PP\u00a02" in fig._suptitle.get_text().replace("\n", " ")  # never split over two lines


def test_a_long_pareto_frontier_labels_some_of_its_points_as_its_title_promises():
    """qa269: moe-verify-cost's 18 batches made frontiers of more than 12 points, labelled not at all, under a title that
    promises 'B batch, k draft length'."""
    batches = [1, 2, 3, 4, 6, 8, 11, 16, 23, 32, 45, 64, 91, 128, 181, 256]
    df, ops, meta = _meta_of({**SMALL, "axes": {"batch": batches, "context": [1024], "k": [2], "alpha": [0.8]}})
    fig = _figure("pareto", df, ops, meta)
    assert "B batch, k draft length" in fig._suptitle.get_text().replace("\n", " ")
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    plain, spec = [s for s in texts if "k=" not in s and s.startswith("B=")], [s for s in texts if ", k=" in s]
    assert 2 <= len(plain) <= 12 and 2 <= len(spec) <= 12, texts  # some of each line's points, both ends among them
    assert "B=1" in plain and "B=1, k=2" in spec


DRAFT_L4 = {"name": "draft-l4", "hardware": "l4", "model": "llama-3.1-8b", "method": "draft", "draft": "llama-3.2-1b",
            "engine": "ideal", "axes": {"batch": [1, 16, 64, 128], "context": [256], "k": [4], "alpha": [0.8]}}


def test_plain_decoding_is_drawn_up_to_its_own_batch_cap_not_the_drafters():
    df, ops, meta = _meta_of(DRAFT_L4)
    assert df["fits_in_memory"].tolist() == [True, True, True, False] and (df["baseline_max_batch"] >= 128).all()
    jobs = {job[0]: job for job in plot_jobs.standard_jobs(df, ops, meta, "/tmp/unused-plots")}  # keeps baseline_max_batch
    fig = _figure("throughput_vs_batch", *jobs["throughput_vs_batch"][1:4])
    (ax,) = _panel_axes(fig)
    (base,) = [line for line in ax.get_lines() if line.get_label() == "no speculation"]
    assert np.asarray(base.get_xdata()).tolist() == [1, 16, 64, 128]
    (note,) = [t.get_text() for t in ax.texts if "fit" in t.get_text()]
    assert note.startswith("speculation does not fit") and "plain decoding fits to 168" in note.replace("\n", " ")
    fig = _figure("pareto", *jobs["pareto"][1:4])
    (ax,) = _panel_axes(fig)
    (base,) = [line for line in ax.get_lines() if line.get_label() == "frontier, no speculation"]
    assert 128 in df.set_index("baseline_tokens_per_s_per_user").loc[np.asarray(base.get_xdata(), dtype=float), "batch"].tolist()
    fig = _figure("step_time_vs_tokens", *jobs["step_time_vs_tokens"][1:4])
    (ax,) = _panel_axes(fig)
    (decode,) = [line for line in ax.get_lines() if line.get_label() == "decode step, q = 1"]
    assert np.isfinite(np.asarray(decode.get_ydata(), dtype=float)).all()  # batch 128 solid: plain decoding fits


def test_a_tree_verifies_its_nodes_plus_one_tokens_once_and_is_named_as_a_tree():
    df, ops, meta = _meta_of({**SMALL, "tree": {"nodes": 8, "tau": 3.0}, "axes": {"batch": [1, 8, 64], "context": [1024], "k": [0, 3]}})
    fig = _figure("step_time_vs_tokens", df, ops, meta)
    (ax,) = _panel_axes(fig)
    verify = [line for line in ax.get_lines() if str(line.get_label()).startswith("verify pass")]
    assert [line.get_label() for line in verify] == ["verify pass, tree of 8 nodes, τ 3 (q = 9)"]
    assert np.asarray(verify[0].get_xdata()).tolist() == [9, 72, 576]
    assert "tree of 8 nodes" in fig._suptitle.get_text().replace("\n", " ")
    fig = _figure("throughput_vs_batch", df, ops, meta)
    (tree,) = [line for line in _panel_axes(fig)[0].get_lines() if line.get_label() == "tree of 8 nodes, τ 3, depth 3"]
    drafted = df[df["k"] == 3].sort_values("batch")  # the tree's rows, where it loses too (qa345: drawn as the baseline)
    assert np.asarray(tree.get_ydata()).tolist() == drafted.loc[drafted["fits_in_memory"], "tokens_per_s"].tolist()
    assert "(depth 3) and without" in fig._suptitle.get_text().replace("\n", " ")


def test_step_time_draws_at_most_eight_k_lines_with_the_first_and_last_and_says_so():
    df, ops, meta = _meta_of({**SMALL, "method": "ngram", "axes": {"batch": [1, 8], "context": [1024], "k": list(range(1, 13)),
                                                                   "alpha": [0.8]}})
    fig = _figure("step_time_vs_tokens", df, ops, meta)
    labels = [t.get_text() for t in fig.legends[0].get_texts() if t.get_text().startswith("verify pass")]
    assert len(labels) == 8 and labels[0] == "verify pass, k = 1 (q = 2)" and labels[-1] == "verify pass, k = 12 (q = 13)"
    assert "8 of 12 k values" in fig._suptitle.get_text().replace("\n", " ")


def test_the_title_describes_the_drafter_hardware_and_engine_drawn_not_every_value():
    df, ops, meta = _meta_of({**SMALL, "hardware": ["h100-sxm", "h200"], "method": "draft", "draft": "llama-3.2-1b",
                              "draft_hardware": [None, "l4", "l40s", "a10g"]})
    title = _figure("throughput_vs_batch", df, ops, meta)._suptitle.get_text().replace("\n", " ")
    assert "drafter on the target only" in title and "l4" not in title and "l40s" not in title
    df, ops, meta = _meta_of({**SMALL, "hardware": ["h100-sxm", "h200", "b200", "mi300x"], "engine": ["ideal", "vllm"]})
    title = _figure("throughput_vs_batch", df, ops, meta)._suptitle.get_text().replace("\n", " ")
    assert "engine vllm only" in title and "ideal" not in title  # a serving engine before the bound (qa379)


def test_without_speculation_the_roofline_and_step_time_show_decode_steps_only():
    df, ops, meta = _meta_of({**SMALL, "method": "none", "axes": {"batch": [1, 8, 64], "context": [1024]}})
    fig = _figure("roofline", df, ops, meta)
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert not any("verify" in text for text in legend) and "verify" not in fig._suptitle.get_text()
    assert not any(line.get_marker() == "^" for ax in _panel_axes(fig) for line in ax.get_lines())
    fig = _figure("step_time_vs_tokens", df, ops, meta)
    assert "verify" not in fig._suptitle.get_text() and fig._suptitle.get_text().startswith("Time of one decode step")


def test_best_k_lines_move_aside_only_where_two_alphas_meet(k0):
    _, _, df, ops = k0  # best k at batch 64..512: alpha 0.3 [1, 1, 0, 0], alpha 0.5 [2, 1, 1, 0]: they meet at 128, 512

    titles = []

    def xs(frame):
        fig = _figure("best_k_vs_batch", frame, ops, META)
        (ax,) = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
        titles.append(" ".join(lg.get_title().get_text() for lg in fig.legends))
        return {line.get_label(): np.asarray(line.get_xdata()) for line in ax.get_lines() if line.get_label().startswith("α")}

    met = xs(df)
    assert all(not np.allclose(x, [64, 128, 256, 512]) for x in met.values())  # each moved aside, as one group
    apart = xs(df[df["batch"].isin([64, 256])])  # alpha 0.3 [1, 0], alpha 0.5 [2, 1]: no point shared
    assert len(apart) == 2 and all(np.array_equal(x, [64, 256]) for x in apart.values())
    # the legend says markers moved only where they did (qa190: said with two alphas whose lines never met)
    assert "markers shifted\nsideways: lines meet here" in titles[0] and "shifted" not in titles[1]  # (qa393: every marker moves)


def test_best_k_rings_a_best_k_that_still_loses_to_plain_decoding():
    _, _, df, ops = _tables({**K0, "axes": {"batch": [64, 256, 512], "context": [512], "k": [1, 2], "alpha": [0.3]}})
    loses = df[(df["k"] == df["best_k"]) & (df["speedup"] < 1)]
    assert len(loses)  # no k = 0 on the axis: the best k > 0 is still slower than plain decoding
    fig = _figure("best_k_vs_batch", df, ops, META)
    (ax,) = _panel_axes(fig)
    rings = [line for line in ax.get_lines() if line.get_markeredgecolor() == "red" and line.get_markerfacecolor() == "white"]
    assert sorted(np.round(x) for line in rings for x in np.asarray(line.get_xdata(), dtype=float)) == sorted(loses["batch"].tolist())
    assert any("best k still loses" in t.get_text() for t in fig.legends[0].get_texts())


def test_too_many_panels_choose_the_model_before_the_config_value_so_the_value_suits_the_panels_kept():
    data = {**SMALL, "hardware": ["h100-sxm", "h200", "b200", "mi300x", "a100-sxm-80gb"], "model": ["llama-3.1-8b", "llama-3.1-70b"],
            "tp": [1, 2], "axes": {"batch": [1, 8], "context": [1024], "k": [1], "alpha": [0.8]}}
    (by, keys, note), _ = _panel_keys(data)  # 5 hardware x 2 models: one model, then its TP
    assert len(keys) == 5 and {key[by.index("model")] for key in keys} == {"llama-3.1-8b"}
    assert {key[by.index("tp")] for key in keys} == {1} and note == "Llama 3.1 8B only, TP 1 only"


def test_a_grid_of_eight_hardware_and_model_panels_is_kept_whole():
    data = {**SMALL, "hardware": ["h100-sxm", "h200", "b200", "mi300x"], "model": ["llama-3.1-8b", "llama-3.1-70b"], "tp": [1, 2],
            "axes": {"batch": [1, 8], "context": [1024, 8192], "k": [1], "alpha": [0.8]}}
    (by, keys, note), df = _panel_keys(data)
    assert len(keys) == 8 and {key[by.index("model")] for key in keys} == {"llama-3.1-8b", "llama-3.1-70b"}
    assert {key[by.index("tp")] for key in keys} == {2} and note == "context 1k only, TP 2 only"  # the TP every panel fits
    fig = _figure("throughput_vs_batch", df, None, META)
    assert len(_panel_axes(fig)) == 8 and all(ax.get_lines() for ax in _panel_axes(fig))


def test_narrow_heatmap_cells_say_no_fit_in_grey_only_and_panel_titles_do_not_touch():
    _, _, df, ops = _tables({**SMALL, "hardware": ["h100-sxm", "h200", "b200"], "engine": "vllm",
                             "axes": {"batch": [2 ** i for i in range(14)], "context": [8192], "k": [1, 2], "alpha": [0.6, 0.9]}})
    assert (~df["fits_in_memory"]).any()
    meta = {**META, "hardware": {"h100-sxm": "NVIDIA H100 SXM5 80GB (a long display name)", "h200": "NVIDIA H200 SXM 141GB (long)",
                                 "b200": "NVIDIA B200 (HGX, 180 GB), a long name again"}}
    fig = _figure("speedup_heatmap", df, ops, meta)
    assert not any(t.get_text() == "no fit" for ax in fig.axes for t in ax.texts)
    assert "grey: does not fit in memory" in fig._suptitle.get_text().replace("\n", " ")
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [ax.title.get_window_extent(renderer) for ax in _panel_axes(fig)]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def test_a_quantised_roofline_draws_the_bf16_roof_of_the_unquantised_operators_it_draws():
    df, ops, meta = _meta_of({**SMALL, "weight_dtype": "fp8", "axes": {"batch": [1, 64], "context": [1024], "k": [1], "alpha": [0.8]}})
    fig = _figure("roofline", df, ops, meta)
    (ax,) = _panel_axes(fig)
    (roof,) = [line for line in ax.get_lines() if line.get_linestyle() == "-."]
    assert np.isclose(np.max(roof.get_ydata()), 989.4, rtol=0.01)  # the H100's dense bf16 peak, TFLOP/s
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "peak roof (fp8 operators)" in legend and any(text.startswith("bf16 peak roof") for text in legend)
    (wide,) = [text for text in legend if text.startswith("bf16 peak roof")]
    assert wide == "bf16 peak roof\n(attention, norms, lm_head)"  # the drawn operators only: no router on a dense model, no FLOP-less embedding
    # qa400: its derated roof and ridge too, which the bf16 operators are bound against, each ridge named by its dtype
    (derated,) = [line for line in ax.get_lines() if line.get_linestyle() == ":" and len(line.get_xdata()) > 2]
    h100 = ops.drop_duplicates("compute_dtype").set_index("compute_dtype")
    assert np.isclose(np.max(derated.get_ydata()), h100.loc["bf16", "compute_ceiling_flops_per_s"] / 1e12, rtol=1e-6)
    ridge = h100.loc["bf16", "compute_ceiling_flops_per_s"] / h100.loc["bf16", "memory_ceiling_bytes_per_s"]
    texts = [t.get_text() for t in ax.texts]
    assert f"bf16 derated ridge {ridge:,.0f} FLOP/B" in texts and any(t.startswith("fp8 derated ridge ") for t in texts)
    assert "bf16 derated roof" in legend
    df, ops, meta = _meta_of({**SMALL, "model": "qwen3-30b-a3b", "weight_dtype": "fp8",
                              "axes": {"batch": [1, 64], "context": [1024], "k": [1], "alpha": [0.8]}})
    legend = [t.get_text() for t in _figure("roofline", df, ops, meta).legends[0].get_texts()]
    assert "bf16 peak roof\n(attention, router, norms, lm_head)" in legend


def test_each_operator_of_a_roofline_is_under_the_roof_of_the_dtype_it_computes_in():
    """fp8 attention weights beside int4 experts (bf16 compute on H100): the figure drew one roof, the experts'
    bf16 peak, and qkv_proj and o_proj reached 1,100-1,300 TFLOP/s above it; operators.csv gave them that peak too."""
    df, ops, meta = _meta_of({**SMALL, "model": "qwen3-30b-a3b", "weight_dtype": "fp8", "expert_dtype": "int4",
                              "axes": {"batch": [512, 2048], "context": [1024], "k": [7], "alpha": [0.7]}})
    by_op = ops.drop_duplicates("operator").set_index("operator")
    assert by_op.loc["qkv_proj", "compute_dtype"] == "fp8" and by_op.loc["experts", "compute_dtype"] == "bf16"
    assert by_op.loc["qkv_proj", "peak_flops_per_s"] == pytest.approx(1978.9e12)
    achieved = ops["flops"] / ops["time_s"].where(ops["time_s"] > 0)
    assert (achieved.fillna(0) <= ops["compute_ceiling_flops_per_s"] * (1 + 1e-9)).all()
    fig = _figure("roofline", df, ops, meta)
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "peak roof (fp8 operators)" in legend and "bf16 peak roof\n(attention, router, experts, norms, lm_head)" in legend


def test_log_tick_labels_over_a_narrow_range_are_distinct_and_an_empty_panel_has_no_ticks():
    formatter = plots._PlainTicks()
    formatter.set_locs([33.0, 33.5, 34.0, 34.5])
    assert [formatter(v) for v in (33.0, 33.5, 34.0, 34.5)] == ["33.0", "33.5", "34.0", "34.5"]
    formatter.set_locs([33.25, 33.5, 33.75])
    assert [formatter(v) for v in (33.25, 33.5, 33.75)] == ["33.25", "33.50", "33.75"]
    formatter.set_locs([0.01, 0.1, 10.0, 20.0, 1000.0])
    assert [formatter(v) for v in (0.01, 0.1, 10.0, 20.0, 1000.0)] == ["0.01", "0.1", "10", "20", "1,000"]
    _, _, df, ops = _tables({**SMALL, "hardware": ["h100-sxm", "h200"], "axes": {"batch": [1, 8], "context": [1024], "k": [1], "alpha": [0.8]}})
    none_on_h100 = df.assign(fits_in_memory=df["fits_in_memory"] & (df["hardware"] == "h200"), baseline_max_batch=np.where(df["hardware"] == "h200", 10 ** 6, 0))
    fig = _figure("throughput_vs_batch", none_on_h100, ops, META)
    empty = _panel_axes(fig)[0]
    assert any("nothing fits" in t.get_text() for t in empty.texts)
    drawn = [label for label in plots._tick_labels(empty.xaxis) if label.get_visible() and label.get_text()]
    assert drawn == [] and not any(line.get_visible() for line in empty.get_xgridlines() + empty.get_ygridlines())
    assert any(label.get_visible() for label in plots._tick_labels(empty.yaxis))  # the y axis the row shares keeps its labels
    fig, (alone,) = plots._figure(1)  # a y axis of its own (best k): a bare frame
    plots._nothing_fits(alone)
    assert not [label for axis in (alone.xaxis, alone.yaxis) for label in plots._tick_labels(axis) if label.get_visible()]


def test_a_config_narrowed_to_one_value_is_named_once_in_the_title():
    df, ops, meta = _meta_of({**SMALL, "hardware": ["h100-sxm", "h200", "b200", "a100-sxm-80gb"], "engine": ["vllm", "ideal"],
                              "axes": {"batch": [1, 8], "context": [1024], "k": [1, 2], "alpha": [0.8]}})
    fig = _figure("roofline", df, ops, meta)
    title = fig._suptitle.get_text().replace("\n", " ").replace("\u00a0", " ")
    assert "engine vllm only" in title and title.count("engine vllm") == 1


def test_a_wrapped_title_leaves_no_separator_at_a_lines_end_or_start():
    assert plots._tidy_breaks("Llama 3.1 8B · EAGLE · engine vllm ·\nNVIDIA H100 · batches\n· dotted") == \
        "Llama 3.1 8B · EAGLE · engine vllm\nNVIDIA H100 · batches\ndotted"
    text = plots._balanced_fill("Llama 3.1 8B · EAGLE · bf16 weights, bf16 KV · engine vllm · NVIDIA H100 SXM5 80GB · batches", 60)
    assert all(not line.endswith("·") and not line.startswith("·") for line in text.split("\n")) and "\n" in text


def test_a_step_time_panel_without_a_compute_bound_verify_pass_says_so():
    df, ops, meta = _meta_of({**SMALL, "axes": {"batch": [1, 8], "context": [32768], "k": [1, 2], "alpha": [0.8]}})
    assert not df["verify_compute_bound"].astype(bool).any()
    fig = _figure("step_time_vs_tokens", df, ops, meta)
    (ax,) = _panel_axes(fig)
    assert any(t.get_text().startswith("verify memory-bound at every") for t in ax.texts)
    assert not [line for line in ax.get_lines() if line.get_linestyle() == ":" and line.get_color() == "firebrick"]
    assert not any("experts" in t.get_text() for t in ax.texts)  # a dense model's: no experts said
    # a MoE model's says its experts, until its tokens touch them all, and its FLOPs (qa433: at batch 128 the verify
    # pass's MLA attention FLOPs, not experts, made it longer)
    df, ops, meta = _meta_of({**SMALL, "model": "qwen3-30b-a3b", "axes": {"batch": [1, 8], "context": [32768], "k": [1, 2],
                                                                         "alpha": [0.8]}})
    assert not df["verify_compute_bound"].astype(bool).any()
    (ax,) = _panel_axes(_figure("step_time_vs_tokens", df, ops, meta))
    (note,) = [t.get_text() for t in ax.texts if t.get_text().startswith("verify memory-bound at every")]
    assert note.endswith("its time grows with the experts\nits tokens touch (until they\ntouch all) and with their FLOPs"), note


def test_method_none_beside_a_speculative_method_leaves_the_plots_to_the_speculative_rows(tmp_path):
    from roofline.plot_jobs import standard_jobs

    df, ops, meta = _meta_of({**SMALL, "method": ["none", "eagle"], "axes": {"batch": [1, 64], "context": [1024], "k": [0, 2], "alpha": [0.8]}})
    assert set(df["method"].astype(str)) == {"none", "eagle"}
    (job, *_) = standard_jobs(df, ops, meta, tmp_path)
    plotted, plotted_meta = job[1], job[3]
    assert set(plotted["method"]) == {"eagle"} and plotted_meta["method"] == "eagle"  # not narrowed to 'none', listed first
    fig = _figure("speedup_heatmap", plotted, ops, plotted_meta)
    assert "never pays" not in fig._suptitle.get_text()


def test_a_point_where_only_plain_decoding_fits_is_greyed_not_called_a_loss():
    # Llama-3.1-8B on one H200 at 8k: 107 sequences fit at k = 0, 104 with k = 4 (its k + 1 tokens each; 111 and 107
    # in the hardware profile's 0.90 of the memory, before vllm's own share: session 35)
    df, ops, meta = _meta_of({**SMALL, "hardware": "h200", "model": "llama-3.1-8b",
                              "axes": {"batch": [1, 16, 105, 107], "context": [8192], "k": [0, 4], "alpha": [0.8]}})
    point = df.groupby("batch")[["fits_in_memory"]].agg(list)
    only_plain = [b for b in df["batch"].unique()
                  if df[(df.batch == b) & (df.k == 0)]["fits_in_memory"].all() and not df[(df.batch == b) & (df.k == 4)]["fits_in_memory"].any()]
    assert only_plain and len(point) == 4, "the grid must hold a batch where only k = 0 fits"
    spec_fits = plots._speculation_fits(df)
    assert not spec_fits[df["batch"].isin(only_plain)].any() and spec_fits[df["batch"] == 1].all()
    fig = _figure("speedup_heatmap", df, ops, meta)
    (ax,) = _panel_axes(fig)
    texts = {round(t.get_position()[0]): t.get_text() for t in ax.texts}
    col = sorted(df["batch"].unique()).index(only_plain[0])
    assert texts[col] == "plain\nonly"  # grey, not '1.00 k=0' (speculation does not pay); plain fits (qa423)


def test_the_compute_bound_line_says_from_only_where_every_wider_verify_pass_is_compute_bound_too():
    # kv-caps-batch's Llama-3.1-70B panel at 4k: k = 3 at batch 256 and 512 is compute-bound, k = 1 at 512 (as wide as
    # k = 3 at 256) and every pass of batch 1024 and up are memory-bound: the KV reads grow with the batch
    df, ops, meta = _meta_of({**SMALL, "model": "llama-3.1-70b", "hardware": "h200", "tp": 8, "weight_dtype": "fp8", "engine": "vllm",
                              "axes": {"batch": [64, 256, 512, 1024, 2048], "context": [4096], "k": [1, 2, 3], "alpha": [0.8]}})
    fig = _figure("step_time_vs_tokens", df, ops, meta)
    texts = [t.get_text() for ax in _panel_axes(fig) for t in ax.texts if "compute-bound" in t.get_text()]
    ver = df[df["k"] > 0].assign(tokens=df["batch"] * (df["k"] + 1))
    first = ver.loc[ver["verify_compute_bound"].astype(bool), "tokens"].min()
    wider_memory = (ver.loc[~ver["verify_compute_bound"].astype(bool), "tokens"] > first).any()
    assert wider_memory and texts == [f"first compute-bound verify\npass: {first:,.0f} tokens\n(some wider passes of more\nsequences memory-bound again:\ntheir KV reads)"]


def test_a_roofline_of_bf16_and_fp8_panels_does_not_call_every_peak_roof_fp8():
    df, ops, meta = _meta_of({**SMALL, "weight_dtype": ["bf16", "fp8"], "axes": {"batch": [1, 64], "context": [1024], "k": [1], "alpha": [0.8]}})
    legend = [t.get_text() for t in _figure("roofline", df, ops, meta).legends[0].get_texts()]
    assert "peak roof (each panel's fastest dtype)" in legend and "peak roof (fp8 operators)" not in legend


def test_batch_ticks_closer_than_their_labels_allow_are_thinned():
    from matplotlib.figure import Figure

    ax = Figure().subplots()
    plots._log2_axis(ax, [1, 8, 64, 256, 384, 512])
    assert list(ax.get_xticks()) == [1, 8, 64, 256, 512]  # 384 beside 512 printed as one label, '384512'
    ax = Figure().subplots()
    plots._log2_axis(ax, [1, 2, 4, 8])
    assert list(ax.get_xticks()) == [1, 2, 4, 8]


def test_a_panel_where_no_drafting_point_fits_draws_and_ends_the_speculative_line_where_the_drafter_fits():
    """A 70B fp8 with a 1B draft model on one H100 (only plain batch 1 fits) crashed the pareto figure (a slice step
    of 0), and on one MI300X the best-k line fell onto the baseline past the drafter's cap, reading as 'stops paying'."""
    sc = scenario_from_dict({"name": "d70", "hardware": ["mi300x", "h100-sxm"], "model": "llama-3.1-70b", "method": "draft",
                             "draft": "llama-3.2-1b", "weight_dtype": "fp8",
                             "axes": {"batch": [1, 2, 4, 8, 16, 32, 40, 64], "context": [8192], "k": [0, 2, 4], "alpha": [0.8]}}, "d70")
    configs = load_configs(sc)
    df = run_sweep(sc, configs)
    meta = {"method": "draft", "hardware": {"mi300x": "MI300X", "h100-sxm": "H100"}, "model": {"llama-3.1-70b": "70B"}}
    assert PLOTTERS["pareto"](df, None, meta) is not None
    fig = PLOTTERS["throughput_vs_batch"](df, None, meta)
    mi = df[(df["hardware"] == "mi300x") & (df["k"] > 0) & df["fits_in_memory"]]
    line = next(ln for ln in fig.axes[0].get_lines() if ln.get_label().startswith("α = 0.8"))
    assert max(line.get_xdata()) == mi["batch"].max() < df[(df["hardware"] == "mi300x") & df["fits_in_memory"]]["batch"].max()


def test_every_standard_figure_says_it_is_a_prediction_and_what_ideal_means_when_drawn():
    """A figure shared on its own looked like a benchmark, and 'engine ideal' was read as a best case."""
    sc = scenario_from_dict({"name": "f", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                             "engine": ["ideal", "vllm"], "axes": {"batch": [1, 8], "k": [0, 2], "alpha": [0.8]}}, "f")
    df = run_sweep(sc, load_configs(sc))
    meta = {"method": "eagle", "engine": ["ideal", "vllm"], "hardware": {"h100-sxm": "H100"}, "model": {"llama-3.1-8b": "8B"}}
    fig = PLOTTERS["throughput_vs_batch"](df, None, meta)
    texts = [t.get_text() for t in fig.texts]
    assert any(t.startswith("predicted by roofline's model, not measured\nengine ideal: the roofline bound, no serving "
                            "engine's costs\n") for t in texts), texts  # (then the steady-decoding line, qa342)
    fig = PLOTTERS["throughput_vs_batch"](df[df["engine"] == "vllm"], None, {**meta, "engine": ["vllm"]})
    assert any(t.startswith("predicted by roofline's model, not measured") for t in [t.get_text() for t in fig.texts])


def test_a_figure_of_speculation_at_large_batches_under_a_serving_engine_says_its_gains_run_optimistic():
    """The sweep's warning (gains from batch 32 run optimistic under a serving engine) was said on the terminal only:
    a PNG shared on its own showed the speedups as they are (session 29)."""
    from roofline.serving import OPTIMISTIC

    sc = scenario_from_dict({"name": "o", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                             "engine": ["ideal", "vllm"], "axes": {"batch": [1, 8, 32], "k": [0, 2], "alpha": [0.8]}}, "o")
    df = run_sweep(sc, load_configs(sc))
    meta = {"method": "eagle", "engine": ["ideal", "vllm"], "hardware": {"h100-sxm": "H100"}, "model": {"llama-3.1-8b": "8B"},
            "axes": {"batch": [1, 8, 32]}}

    def footer_text(frame, meta, plot="speedup_heatmap"):
        fig = PLOTTERS[plot](frame, None, meta)
        return next(t.get_text() for t in fig.texts if t.get_text().startswith("predicted by"))

    assert f"\n{OPTIMISTIC} (under vllm: docs/ACCURACY.md)\nsteady decoding: " in footer_text(df, meta)
    # where to read a benchmark's figures: predict or a request's scenario, or this sweep's own serving columns
    assert footer_text(df, meta).endswith("(predict --prompt P --output-len O, or a scenario's prompt and output_len)")
    assert footer_text(df, {**meta, "prompt": 1024, "output_len": 256}).endswith("(this sweep's serving_* columns and serving figure; cheapest --serving)")
    plain = {**meta, "method": "none", "prompt": 1024, "output_len": 256}  # qa347: a plain request sweep said nothing
    assert footer_text(df[df["k"] == 0], plain, "throughput_vs_batch").endswith("(this sweep's serving_* columns and serving figure; cheapest --serving)")
    assert "steady decoding" not in footer_text(df[df["k"] == 0], {**plain, "prompt": None}, "throughput_vs_batch")
    # qa351: the serving figure named where one batch draws none; a table without its scenario.json (serving_columns)
    from matplotlib.figure import Figure

    bare = Figure()
    plots.footer(bare, {**meta, "prompt": 1024, "output_len": 256, "axes": {"batch": [8]}})
    assert bare.texts[0].get_text().endswith("(this sweep's serving_* columns; cheapest --serving)"), bare.texts[0].get_text()
    assert footer_text(df, {**meta, "serving_columns": True}).endswith("(this sweep's serving_* columns and serving figure; "
                                                                       "cheapest --serving)")
    assert OPTIMISTIC not in footer_text(df[df["engine"] == "ideal"], {**meta, "engine": ["ideal"]})  # the bare roofline
    small = df[df["batch"] < 32]
    assert OPTIMISTIC not in footer_text(small, {**meta, "engine": ["vllm"], "axes": {"batch": [1, 8]}})
    assert OPTIMISTIC not in footer_text(df[df["k"] == 0], {**meta, "method": "none"}, "throughput_vs_batch")
    assert OPTIMISTIC not in footer_text(df[df["k"] == 0], {**meta, "axes": {"batch": [1, 8, 32], "k": [0]}},
                                         "throughput_vs_batch")  # k 0 alone drafts nothing (qa111)


def test_each_operator_has_one_colour_in_every_roofline_figure():
    """Colours were handed out in the order a sweep's operators came: norms brown in one sweep, purple in another."""
    from roofline.costs import OPERATORS
    from roofline.plots import OPERATOR_COLORS

    assert set(OPERATOR_COLORS) == set(OPERATORS) and len(set(OPERATOR_COLORS.values())) == len(OPERATORS)


def test_the_setup_line_names_every_layout_not_only_its_tp():
    """layouts [{tp: 8}, {dp_attention: 8, ep: 8}] read 'TP 8 / 1' in the super-title: DP-attention and EP dropped."""
    nb = plots.NBSP
    meta = {"model": {"deepseek-v3": "DeepSeek-V3"}, "method": "none", "tp": [1, 8], "layouts": ["tp 1, dp-attention 8, ep 8", "tp 8"]}
    line = plots._setup_line(meta, ["deepseek-v3"]).replace(nb, " ")
    assert "TP 1, DP-attention 8, EP 8 / TP 8" in line and "TP 8 / 1" not in line
    assert "TP" not in plots._setup_line({**meta, "tp": [1], "layouts": ["tp 1"]}, ["deepseek-v3"])
    assert "5 layouts" in plots._setup_line({**meta, "layouts": [f"tp {t}" for t in (1, 2, 4, 8, 16)]}, ["deepseek-v3"])


def test_a_layouts_figure_names_the_panels_it_cuts_and_no_narrowing_that_left_nothing_out():
    """Two devices x four layouts drew 6 of 8 panels under "TP: the first that fits, per panel, ..., first 6 of 8
    hardware": nothing was narrowed, and there are two devices, not eight."""
    df, ops, meta = _meta_of({**SMALL, "hardware": ["h100-sxm", "h200"], "model": "llama-3.1-70b", "method": "none",
                              "layouts": [{"tp": 8}, {"tp": 4, "pp": 2}, {"tp": 2, "pp": 4}, {"tp": 1, "pp": 8}],
                              "axes": {"batch": [1, 8], "context": [1024], "k": [0]}})
    by, keys, note = plots._panels(df, ("hardware", "model"), meta)
    assert len(keys) == 8 and note == ""  # qa245: every layout of both devices, a grid of eight, as a layouts sweep compares
    three, _, meta3 = _meta_of({**SMALL, "hardware": ["h100-sxm", "h200", "b200"], "model": "llama-3.1-70b", "method": "none",
                                "layouts": [{"tp": 8}, {"tp": 4, "pp": 2}, {"tp": 2, "pp": 4}, {"tp": 1, "pp": 8}],
                                "axes": {"batch": [1, 8], "context": [1024], "k": [0]}})
    by, keys, note = plots._panels(three, ("hardware", "model"), meta3)  # 12 panels: one layout whole, not a degree
    assert len(keys) == 3 and note == "TP 8 only"  # as describe_layout writes it (qa381: 'TP 8, PP 1 only')


def test_an_operators_table_from_before_per_operator_ceilings_still_draws_the_bf16_roof():
    """`roofline plot` on an operators.csv written before today (one ceiling per config, no compute_dtype) drew one fp8
    roof, the LM head under it though it computes in bf16."""
    df, ops, meta = _meta_of({**SMALL, "weight_dtype": "fp8", "axes": {"batch": [1, 64], "context": [1024], "k": [1], "alpha": [0.8]}})
    mlp = ops[ops["operator"] == "mlp"].iloc[0]
    old = ops.drop(columns=["compute_dtype"]).assign(peak_flops_per_s=mlp["peak_flops_per_s"],
                                                     compute_ceiling_flops_per_s=mlp["compute_ceiling_flops_per_s"])
    legend = [t.get_text() for t in _figure("roofline", df, old, meta).legends[0].get_texts()]
    assert "peak roof (fp8 operators)" in legend and any(text.startswith("bf16 peak roof\n(") and "lm_head" in text for text in legend)


def test_a_heatmap_too_narrow_for_its_numbers_leaves_them_out_and_names_the_rates_it_shows():
    """26 batch columns a panel wrote their speedups and k over one another; a row of given per-position rates was
    labelled 'per-position rates' without them (qa99)."""
    from roofline.grid import scenario_meta

    def drawn(data):
        sc, pairs, df, ops = _tables(data)
        fig = _figure("speedup_heatmap", df, ops, scenario_meta(sc, pairs, len(df)))
        return {t.get_text() for ax in fig.axes for t in ax.texts}, [t.get_text() for ax in fig.axes for t in ax.get_yticklabels()]

    base = {"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle", "acceptance": [0.85, 0.63]}
    texts, labels = drawn({**base, "axes": {"batch": [1, 8, 64, 256], "k": [1, 2]}})
    assert any(t.endswith("\nk≥2") for t in texts) and "rates\n0.85, 0.63" in labels
    six = {**base, "acceptance": [0.8, 0.75, 0.7, 0.65, 0.6, 0.55], "axes": {"batch": [1, 8], "k": [1, 2]}}
    sc, pairs, df, ops = _tables(six)  # qa374: six rates said as 'rates 0.8, 0.75, 0.7, ...' under 'α (per token)'
    fig = _figure("speedup_heatmap", df, ops, scenario_meta(sc, pairs, len(df)))
    panel = next(ax for ax in fig.axes if ax.get_yticklabels())
    assert [t.get_text() for t in panel.get_yticklabels()] == ["rates\n0.8, 0.75, 0.7,\n0.65, 0.6, 0.55"]
    assert panel.get_ylabel() == "acceptance (a rate each draft position)"
    texts, _ = drawn({**base, "axes": {"batch": {"start": 1, "stop": 512, "num": 30, "log": True}, "k": [1, 2]}})
    assert not any("k≥" in t or "k=" in t for t in texts)


def test_a_heatmap_cell_that_is_not_exactly_1_never_reads_1_00():
    """qa117: a cell of speedup 0.998, below the break-even line, read '1.00' (k = 0's cell is exactly 1.00)."""
    assert [speedup_text(x) for x in (0.998, 1.0, 1.003, 1.2345, 0.99996, 1.00001, 0.994)] == [
        "0.998", "1.00", "1.003", "1.23", "0.999", "1.001", "0.99"]


def test_tick_labels_of_distinct_values_are_distinct():
    """qa122: the heatmap labelled alpha 0.999999 and 1 both '1'."""
    assert distinct_labels([0.6, 0.8, 0.9]) == {0.6: "0.6", 0.8: "0.8", 0.9: "0.9"}
    labels = distinct_labels([0.999999, 1.0])
    assert len(set(labels.values())) == 2 and labels[1.0] == "1" and labels[0.999999] == "0.999999"


@pytest.mark.slow
def test_a_log_axis_says_so_in_its_label():
    """qa188: the report's log axes were told only by their uneven ticks; a label gains 'log scale', inside its closing
    parenthesis where it has one, and a label that says it already, or a linear axis, is left as it is."""
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2)
    a.set_xscale("log")
    a.set_xlabel("tokens/s per user")
    a.set_yscale("log", base=2)
    a.set_ylabel("break-even batch\n(speedup ≥ 1 up to it)")
    b.set_yscale("log")
    b.set_ylabel("USD (log)")
    b.set_xlabel("batch")
    b.set_xscale("log")
    b.set_xlabel("logits a step")  # qa189: 'logits' is no 'log'
    plots.say_log_scales(fig)
    assert a.get_xlabel() == "tokens/s per user (log scale)"
    assert a.get_ylabel() == "break-even batch\n(speedup ≥ 1 up to it; log scale)"
    assert (b.get_ylabel(), b.get_xlabel()) == ("USD (log)", "logits a step (log scale)")
    plt.close(fig)


@pytest.mark.slow
def test_a_heatmap_explains_k_0_only_where_a_cell_says_it_and_its_colour_bar_clears_the_tick_labels():
    """qa190: fast-tier-premium's heatmap (111 batch columns, no cell labels) keyed 'k=0: speculation does not pay',
    said of cells where k = 0 was plain decoding beside a drafter that did not fit (grey); and the bar of a two-row
    heatmap covered the last x tick ('1024' read '102')."""
    batches = sorted({int(round(b)) for b in np.geomspace(1, 1024, 161)})
    _, _, df, ops = _tables({**SMALL, "hardware": ["h100-sxm", "h200", "mi300x", "a100-sxm-80gb"], "engine": "vllm",
                             "axes": {"batch": batches, "context": [2048], "k": [0, 1, 2, 3], "alpha": [0.8]}})
    fig = _figure("speedup_heatmap", df, ops, {**META, "method": "eagle"})
    assert not any(t.get_text() == "k=0" or "\nk=0" in t.get_text() for ax in fig.axes for t in ax.texts)  # no cell labels
    assert "k=0" not in fig._suptitle.get_text()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    bar = [ax for ax in fig.axes if ax.get_subplotspec() is None][0].get_window_extent(renderer)
    ticks = [t.get_window_extent(renderer) for ax in _panel_axes(fig) for t in ax.get_xticklabels() if t.get_text()]
    assert ticks and max(t.x1 for t in ticks) < bar.x0


@pytest.mark.slow
def test_the_roofline_figures_large_batch_fits_with_every_method_swept():
    """qa190: break-even-batch's L4 panel drew 'B = 128', where EAGLE and n-gram lookup fit and the draft model (its own
    weights and KV cache beside the target's) fits to 74 only: the large batch is one where every method fits."""
    data = {**SMALL, "hardware": "l4", "method": ["draft", "eagle"], "draft": "llama-3.2-1b", "engine": "ideal",
            "axes": {"batch": [1, 32, 64, 96, 128], "context": [256], "k": [2], "alpha": [0.8]}}
    _, _, df, ops = _tables(data)
    fits = df[df["fits_in_memory"] & (df["k"] == 2)].groupby("method")["batch"].max()
    assert fits["draft"] < fits["eagle"]  # the case: the draft model fits to a smaller batch
    fig = _figure("roofline", df, ops, {**META, "method": ["draft", "eagle"], "hardware": {"l4": "NVIDIA L4 24GB"}})
    labels = [t.get_text() for lg in fig.legends for t in lg.get_texts()]
    large = [label for label in labels if "(fits with every method swept)" in label]
    assert large and all(f"B = {fits['draft']:g}," in label for label in large), labels
    # qa191: where one method fits nowhere in a panel (the draft model beside Qwen3-8B on an L4), that panel's large
    # batch is the others', not one where nothing fits, and the legend does not say 'every method'
    data = {**SMALL, "hardware": ["h100-sxm", "l4"], "model": "qwen3-8b", "method": ["draft", "eagle"], "draft": "qwen3-4b",
            "engine": "ideal", "axes": {"batch": [1, 8, 32, 64], "context": [1024], "k": [2], "alpha": [0.8]}}
    _, _, df, ops = _tables(data)
    on_l4 = df[(df["hardware"] == "l4") & df["fits_in_memory"] & (df["k"] == 2)]
    assert set(on_l4["method"]) == {"eagle"} and on_l4["batch"].max() == 8  # the case
    meta = {**META, "method": ["draft", "eagle"], "model": {"qwen3-8b": "Qwen3 8B"},
            "hardware": {"h100-sxm": "NVIDIA H100 SXM5 80GB", "l4": "NVIDIA L4 24GB"}}
    fig = _figure("roofline", df, ops, meta)
    titles = [ax.get_title() for ax in _panel_axes(fig)]
    labels = " ".join(t.get_text() for lg in fig.legends for t in lg.get_texts())
    assert any("L4" in t and "filled: B = 8" in t for t in titles), titles
    assert "every method" not in labels and "does not fit" not in labels


def test_a_best_k_line_that_steps_back_and_forth_between_near_ties_is_said_to():
    """qa190: fast-tier-premium's best-k lines switched k 34 times between k within a fraction of a percent; a line
    that steps back and forth between near-ties is said to, a line that only steps down once is not."""
    from roofline.plots import _switches_between_near_ties

    def frame(best_ks, gap):
        rows = []
        for b, kb in zip([8, 16, 32, 64], best_ks):
            for k in (3, 4):
                rows.append({"alpha": 0.8, "batch": b, "k": k, "fits_in_memory": True,
                             "speedup": 2.0 * (1 + gap if k == kb else 1.0)})
        sub = pd.DataFrame(rows)
        best = sub.sort_values("speedup").drop_duplicates("batch", keep="last").assign(best_k=lambda d: d["k"])
        return sub, best.sort_values("batch")

    assert _switches_between_near_ties(*frame([4, 3, 4, 3], 0.002)) == ([0.8], [])  # back and forth, 0.2% apart
    assert _switches_between_near_ties(*frame([4, 4, 3, 3], 0.002)) == ([], [])  # one step down: a crossover
    # back and forth, 5% apart: what pays changes (qa333: said of a whole figure as a tie where one panel's was)
    assert _switches_between_near_ties(*frame([4, 3, 4, 3], 0.05)) == ([], [0.8])


def test_a_legend_taller_than_the_room_under_the_title_grows_the_figure_and_stays_under_the_title():
    """qa225: a one-panel roofline figure's legend (its passes and operators) ran over the title's last line."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 3), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.subplots(1, 1)
    for i in range(24):
        ax.plot([0, 1], [i, i + 1], label=f"series {i}\nsecond line")
    fig.suptitle("a title\nof four\nlines\nat the top")
    fig.legend(*ax.get_legend_handles_labels(), loc="outside right center")
    plots.arrange(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legend, title = fig.legends[0].get_window_extent(renderer), fig._suptitle.get_window_extent(renderer)
    assert fig.get_figheight() > 3 and legend.y1 <= title.y0 + 1 and legend.y0 >= 0


def test_per_position_rates_are_said_in_legends_and_the_heatmaps_tick():
    """qa242: five per-position rates were 'per-position rates' in every legend and on the heatmap's tick (four or
    fewer were said there)."""
    from roofline.plots import _alpha_label

    rates = {"acceptance": [0.9, 0.8, 0.7, 0.6, 0.5]}
    assert _alpha_label(float("nan"), rates) == "per-position rates 0.9, 0.8, 0.7, 0.6, ..."
    assert _alpha_label(float("nan"), {"acceptance": [0.9, 0.8]}) == "per-position rates 0.9, 0.8"
    assert _alpha_label(float("nan"), {}) == "per-position rates" and _alpha_label(0.8, rates) == "α = 0.8"


def test_an_alpha_solved_from_an_acceptance_length_says_so_in_legends_and_the_heatmap():
    """qa433: a scenario's acceptance_length {tau: 3, k: 3} swept alpha 0.811, said as 'α 0.811' alone."""
    from roofline.plots import _alpha_label

    data = {**SMALL, "acceptance_length": {"tau": 3.0, "k": 3}, "axes": {"batch": [1, 8], "context": [2048], "k": [1, 3]}}
    df, ops, meta = _meta_of(data)
    assert _alpha_label(float(df["alpha"].iloc[0]), meta) == f"α = {df['alpha'].iloc[0]:.3g} (from τ 3 at k = 3)"
    assert _alpha_label(0.8, {}) == "α = 0.8"
    (ax,) = _panel_axes(_figure("speedup_heatmap", df, ops, meta))
    assert ax.get_ylabel() == "acceptance rate α (per token),\nfrom τ 3 at k = 3"


def test_the_heatmaps_batch_axis_says_when_only_some_columns_are_labelled():
    """qa249: 18 batch columns labelled 1, 3, 6, 11, ... under 'a column each': a reader counted to find batch 2."""
    _, _, df, ops = _tables({**SMALL, "hardware": "h100-sxm", "engine": "vllm",
                             "axes": {"batch": [2 ** i for i in range(18)], "context": [1024], "k": [1, 2], "alpha": [0.8]}})
    fig = _figure("speedup_heatmap", df, ops, META)
    assert {ax.get_xlabel() for ax in _panel_axes(fig)} == {"batch size B (sequences; a column each, every other one labelled)"}


def test_the_roofline_figure_says_its_points_are_one_micro_batchs_pass_under_pp():
    """qa245: a TP 4 PP 2 panel filled at B = 256 drew one micro-batch's pass (the MLP at about half TP 8's
    intensity) labelled as the whole batch's."""
    _, _, df, ops = _tables({**SMALL, "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "none",
                             "layouts": [{"tp": 1}, {"tp": 1, "pp": 2}], "axes": {"batch": [1, 64], "context": [1024], "k": [0]}})
    fig = _figure("roofline", df, ops, META)
    assert "under pp, each point the busiest stage's pass over one micro-batch of B / min(B, pp) sequences" in fig._suptitle.get_text()


def test_under_pp_the_whole_steps_ring_counts_every_micro_batchs_pass():
    """qa250: the ring of a pp 2 step drew one micro-batch's FLOPs over the whole step's time, half the device's FLOP/s."""
    _, _, df, ops = _tables({**SMALL, "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "none",
                             "layouts": [{"tp": 1, "pp": 2}], "axes": {"batch": [1, 64], "context": [1024], "k": [0]}})
    fig = _figure("roofline", df, ops, META)
    rings = sorted(float(line.get_ydata()[0]) for ax in _panel_axes(fig) for line in ax.get_lines() if line.get_markersize() == 15)
    g = ops[(ops["pass"] == "decode") & (ops["batch"] == 64)]
    assert rings[-1] == pytest.approx(2 * g["flops"].sum() / g["step_time_s"].iloc[0] / 1e12, rel=1e-9)


def test_a_footer_says_a_speculating_batch_above_an_engines_cap_assumes_it_raised():
    """A leftover since session 45: SGLang's cap of 48 sequences while speculating was said by the sweep's warning and
    never on its figures, which are shared alone."""
    from matplotlib.figure import Figure

    def footer_text(meta):
        fig = Figure()
        plots.footer(fig, meta)
        return next(t.get_text() for t in fig.texts if t.get_gid() == plots.FOOTER_GID)

    meta = {"engine": ["sglang"], "method": "eagle", "speculating_caps": {"sglang": 48},
            "axes": {"batch": [1, 16, 256], "k": [0, 2]}}
    assert "under sglang a speculating batch above 48 assumes its cap raised (max_running_requests_speculating)" in footer_text(meta)
    for quiet in ({**meta, "axes": {"batch": [1, 16, 48], "k": [0, 2]}},  # no batch above the cap
                  {**meta, "method": "none"},  # nothing speculates
                  {**meta, "engine": ["vllm"]}):  # the engine drawn has no cap
        assert "assumes its cap raised" not in footer_text(quiet)



@pytest.mark.slow
def test_a_figure_narrowed_to_one_layout_keeps_one_its_engine_runs_and_names_no_refusal_it_does_not_draw():
    """qa361: eight panels narrowed to the first layout that fits everywhere kept tp 8 x DP-attention 2, which
    sglang-early refuses (one device an attention group), each panel 'not run by sglang-early', where tp 16 fits too."""
    from roofline.grid import scenario_meta
    from roofline.plot_jobs import refused_meta

    data = {"name": "cap", "hardware": ["h100-sxm", "h200", "b200", "mi300x"], "model": "deepseek-v3", "method": "none",
            "engine": "sglang-early", "layouts": [{"tp": 8, "dp_attention": 2, "ep": 16}, {"tp": 16}],
            "axes": {"batch": [1, 32], "context": [4096], "k": [0]}}
    sc, pairs, df, ops = _tables(data)
    meta = {**scenario_meta(sc, pairs, len(df)), **refused_meta(df)}
    assert meta["refused"] and meta["refused"][0]["dp_attention"] == 2
    fig = _figure("throughput_vs_batch", df, ops, meta)
    titles = [ax.get_title().replace("\n", " ") for ax in fig.axes if ax.get_visible() and ax.get_title()]
    assert len(titles) == 4 and all("not run by" not in t for t in titles), titles
    assert "TP 16 only" in fig._suptitle.get_text().replace("\n", " ")  # said once, by the title (qa377, qa381)
    footer = next(t.get_text() for t in fig.texts if t.get_gid() == plots.FOOTER_GID)
    assert "no setup of their engine runs them" not in footer, footer
    from roofline.plot_jobs import narrowed_columns  # the sweep's note names what the figures leave out (qa363)

    assert narrowed_columns(df, meta).get("tp") == [8], narrowed_columns(df, meta)


def test_a_footer_line_longer_than_the_figure_is_wide_wraps():
    """qa357: the heatmap's 8.4-inch footer ran its steady-decoding caveat off the figure's left edge."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8.4, 5))
    plots.footer(fig, {"engine": ["vllm"], "method": "draft", "axes": {"batch": [1, 64, 128], "k": [0, 2]}})
    text = next(t.get_text() for t in fig.texts if t.get_gid() == plots.FOOTER_GID)
    assert "steady decoding: a serving benchmark's time per token adds arriving prompts'" in text
    assert max(len(line) for line in text.split("\n")) <= int(8.4 * 17), text

@pytest.mark.slow
def test_the_roofline_figure_reads_its_large_batch_at_the_first_drafter_placement_and_says_so():
    """qa283: with draft_hardware [null, l4] the H100 tp 2 panel filled B = 6 (which fits only with the drafter on the
    L4; on the target it fits to 2), where the other figures say 'drafter on the target only' (here 12 and 16)."""
    data = {**SMALL, "model": "llama-3.1-70b", "tp": 2, "method": "draft", "draft": "llama-3.2-1b", "engine": "ideal",
            "draft_hardware": [None, "l4"], "axes": {"batch": [1, 4, 12, 16], "context": [2048], "k": [2], "alpha": [0.8]}}
    _, _, df, ops = _tables(data)
    fits = df[df["fits_in_memory"] & (df["k"] == 2)].groupby(df["draft_hardware"].fillna("").astype(str))["batch"].max()
    assert fits[""] < fits["l4"]  # the case: the co-located drafter takes memory the L4's does not
    meta = {**META, "method": "draft", "tp": 2, "draft_hardware": ["", "l4"], "model": {"llama-3.1-70b": "Llama 3.1 70B"}}
    fig = _figure("roofline", df, ops, meta)
    labels = " ".join(t.get_text() for lg in fig.legends for t in lg.get_texts())
    assert f"B = {fits['']:g}" in labels and f"B = {fits['l4']:g}" not in labels, labels
    assert "the largest batch that fits with the drafter on the target" in fig._suptitle.get_text()


@pytest.mark.slow
def test_the_roofline_figures_large_batch_is_read_panel_by_panel():
    """qa284: where one panel's drafter fits no verify pass at its first placement (a 70B at tp 2 on an H100 with an 8B
    draft model beside it) and another panel's does, the first was drawn at the largest swept batch, 'does not fit',
    where plain decoding (or the drafter on an L4) fits to 16."""
    for placements in ([None, "l4"], [None]):
        data = {**SMALL, "hardware": ["h100-sxm", "h200"], "model": "llama-3.1-70b", "tp": 2, "method": "draft",
                "draft": "llama-3.1-8b", "engine": "ideal", "draft_hardware": placements,
                "axes": {"batch": [1, 4, 16, 64], "context": [2048], "k": [0, 2], "alpha": [0.8]}}
        _, _, df, ops = _tables(data)
        h100 = df[(df["hardware"] == "h100-sxm") & df["fits_in_memory"]]
        assert not len(h100[(h100["k"] == 2) & h100["draft_hardware"].isna()]) and h100["batch"].max() == 16  # the case
        meta = {**META, "method": "draft", "tp": 2, "draft_hardware": ["" if p is None else p for p in placements],
                "model": {"llama-3.1-70b": "Llama 3.1 70B"},
                "hardware": {"h100-sxm": "NVIDIA H100 SXM5 80GB", "h200": "NVIDIA H200 SXM 141GB"}}
        fig = _figure("roofline", df, ops, meta)
        titles = [ax.get_title() for ax in _panel_axes(fig)]
        assert any("H100" in t and "filled: B = 16" in t and "does not fit" not in t for t in titles), (placements, titles)
        assert any("H200" in t and "filled: B = 64" in t for t in titles), titles


def test_figures_say_what_a_drafter_device_and_a_reused_mtp_module_mean():
    """qa291: the pareto's 'tokens/s per device' counted an L4 drafter beside 4 H100s unsaid (speculation read as a
    loss); DeepSeek-V3's MTP cells at k = 3 read 'best may lie beyond' where predict warns the one trained module,
    reused, accepts less; a compute-bound verify width past the memory cap was marked as if a pass reached it."""
    data = {"name": "d", "hardware": "h100-sxm", "model": "llama-3.1-70b", "tp": 4, "method": "draft", "draft": "llama-3.2-1b",
            "draft_hardware": "l4", "axes": {"batch": [1, 16, 64], "context": [2048], "k": [0, 1, 2], "alpha": [0.8]}}
    sc, _, df, ops = _tables(data)
    meta = {**META, "method": "draft", "draft_hardware": ["l4"], "tp": 4,
            "model": {"llama-3.1-70b": "Llama 3.1 70B"}, "hardware": {"h100-sxm": "NVIDIA H100 SXM5 80GB", "l4": "NVIDIA L4 24GB"}}
    fig = _figure("pareto", df.drop(columns=["draft_hardware"]), ops, meta)  # as the sweep's jobs hand it: the column held
    assert "the drafter's devices counted" in fig.axes[0].get_ylabel()
    plain = _figure("pareto", *_tables({**SMALL, "axes": {"batch": [1, 8], "context": [1024], "k": [1], "alpha": [0.8]}})[2:], META)
    assert "drafter" not in plain.axes[0].get_ylabel()
    mtp = {"name": "m", "hardware": "h200", "model": "deepseek-v3", "tp": 8, "method": "mtp",
           "axes": {"batch": [1, 8], "context": [4096], "k": [1, 3], "alpha": [0.8]}}
    _, _, df, ops = _tables(mtp)
    meta = {**META, "method": "mtp", "tp": 8, "mtp_modules": {"deepseek-v3": 1}, "model": {"deepseek-v3": "DeepSeek-V3"},
            "hardware": {"h200": "NVIDIA H200 SXM 141GB"}}
    title = _figure("speedup_heatmap", df, ops, meta)._suptitle.get_text().replace("\n", " ")
    assert "past 1 MTP module the last is reused (it accepts less in practice)" in title
    legend = [t.get_text() for t in _figure("best_k_vs_batch", df, ops, meta).legends[0].get_texts()]
    assert any("past 1 MTP module" in text for text in legend)
    assert "MTP module" not in _figure("speedup_heatmap", df, ops, {**meta, "mtp_modules": {"deepseek-v3": 3}})._suptitle.get_text()


def test_a_compute_bound_verify_width_past_the_memory_cap_says_no_such_pass_fits():
    _, _, df, ops = _tables({**SMALL, "axes": {"batch": [1, 64, 512], "context": [1024], "k": [1, 8], "alpha": [0.7]}})
    first = df.loc[df["verify_compute_bound"].astype(bool)]
    assert first["batch"].min() == 64 and first["fits_in_memory"].astype(bool).any()  # the case: B = 64, k = 8 fits
    texts = [t.get_text() for ax in _figure("step_time_vs_tokens", df, ops, META).axes for t in ax.texts]
    assert "first compute-bound verify\npass: 576 tokens\n(some wider passes of more\nsequences memory-bound again:\ntheir KV reads)" in texts, texts
    squeezed = df.assign(fits_in_memory=df["batch"] <= 1, baseline_max_batch=1, max_batch=1)  # memory ends at batch 1
    texts = [t.get_text() for ax in _figure("step_time_vs_tokens", squeezed, ops, META).axes for t in ax.texts]
    assert "first compute-bound verify\npass: 576 tokens\n(some wider passes of more\nsequences memory-bound again:\ntheir KV reads)\n(past the memory cap:\nno such pass fits)" in texts, texts


@pytest.mark.slow
def test_the_step_time_figure_says_its_verify_passes_hold_host_work_a_decode_step_hides(tmp_path):
    """qa333: under sglang (host_overlap, not while speculating) the verify points stood above the decode line by the
    host work the decode step hides, read as the pass's own cost; vllm (overlapping neither) and ideal say nothing."""
    from roofline.grid import scenario_meta

    data = {**SMALL, "engine": ["sglang", "vllm", "ideal"], "axes": {**SMALL["axes"], "batch": [1, 8]}}
    sc, configs, df, ops = _tables(data)
    meta = {**META, **scenario_meta(sc, configs, len(df))}
    assert meta["verify_adds_host"] == ["sglang"]
    title = _figure("step_time_vs_tokens", df, ops, meta)._suptitle.get_text().replace("\n", " ")
    assert "verify passes under sglang hold the host work a decode step hides behind the device" in title, title
    plain = df[df["engine"] != "sglang"]
    title = _figure("step_time_vs_tokens", plain, ops, meta)._suptitle.get_text().replace("\n", " ")
    assert "host work" not in title, title
    # qa335: one engine swept (the panels' frame then has no engine column) still says it; under pp not (a micro-batch's
    # host work lies on its round trip in both passes); nor plain decoding alone
    spec_axes = {**SMALL["axes"], "batch": [1, 8]}
    for data, said in (({**SMALL, "engine": "sglang", "axes": spec_axes}, True),
                       ({**SMALL, "engine": "sglang", "method": "none", "axes": {"batch": [1, 8], "context": [1024]}}, False),
                       ({**SMALL, "engine": "sglang", "pp": 2, "axes": spec_axes}, False)):
        sc, configs, df, ops = _tables(data)
        meta = {**META, **scenario_meta(sc, configs, len(df))}
        (job,) = [job for job in plot_jobs.standard_jobs(df, ops, meta, tmp_path) if job[0] == "step_time_vs_tokens"]
        title = _figure("step_time_vs_tokens", *job[1:4])._suptitle.get_text().replace("\n", " ")
        assert ("verify passes under sglang hold the host work" in title) == said, (data, title)


@pytest.mark.slow
def test_the_best_k_subtitle_says_both_where_one_panels_reversal_is_a_tie_and_anothers_is_not():
    """qa333: 'a line that steps back and forth does so between k within 1%' was said of a whole figure whose ideal TP 8
    panel stepped 1 -> 4 at 8% apart; the first panels hold a near tie, the last none (qa335: a figure-level check)."""
    data = {"name": "t", "hardware": "h200", "model": "deepseek-v3", "engine": ["sglang", "ideal"], "method": "mtp",
            "layouts": [{"tp": 8}, {"tp": 1, "dp_attention": 8, "ep": 8}], "acceptance": [0.85, 0.65],
            "axes": {"batch": [1, 2, 4, 8, 16, 32, 64], "context": [4096], "k": [0, 1, 2, 3, 4]}}
    # (rates 0.85, 0.63 until session 68's refit of sglang, after which no line there stepped back and forth)
    sc, configs, df, ops = _tables(data)
    from roofline.grid import scenario_meta

    meta = {**META, **scenario_meta(sc, configs, len(df))}
    title = _figure("best_k_vs_batch", df, ops, meta)._suptitle.get_text().replace("\n", " ")
    # each named by its panel's own values (qa428: 'some lines' unnamed)
    said = re.search(r"some lines \((.*)\) step back and forth between k within 1% of each other in speedup, others "
                     r"\((.*)\) between k that differ more", title)
    assert said and "engine sglang, TP 8: per-position rates 0.85, 0.65" in said.group(1), title
    assert "engine ideal, TP 8: per-position rates 0.85, 0.65" in said.group(2) and "sglang" not in said.group(2), title
    tie_only = df[(df["engine"] == "sglang") & (df["tp"] == 8)]  # its steps back and forth within 1%
    title = _figure("best_k_vs_batch", tie_only, ops, meta)._suptitle.get_text().replace("\n", " ")
    assert "a line that steps back and forth does so between k within 1% of each other in speedup" in title, title


@pytest.mark.slow
def test_the_roofline_figure_reads_its_large_batch_off_methods_a_deployment_runs(tmp_path):
    """qa336: Qwen3-235B's panel read 'B = 64' where EAGLE fits 125: the draft model (Llama 3.2 1B, another tokenizer,
    which no engine runs) held the batch where every method's verify pass fits to its own memory cap."""
    from roofline.grid import scenario_meta

    data = {"name": "t", "hardware": "h100-sxm", "model": "qwen3-235b-a22b", "tp": 8, "method": ["eagle", "draft"],
            "draft": "llama-3.2-1b", "axes": {"batch": [1, 16, 125], "context": [2048], "k": [0, 3], "alpha": [0.8]}}
    sc, configs, df, ops = _tables(data)
    assert not df[(df["method"] == "draft") & (df["batch"] == 125) & (df["k"] == 3)]["fits_in_memory"].any()
    meta = {**META, **scenario_meta(sc, configs, len(df))}
    (job,) = [job for job in plot_jobs.standard_jobs(df, ops, meta, tmp_path) if job[0] == "roofline"]
    legend = [t.get_text() for t in _figure("roofline", *job[1:4]).legends[0].get_texts()]
    assert "decode step, B = 125, q = 1" in legend, legend


@pytest.mark.slow
def test_the_optimistic_gains_caveat_is_on_the_figures_of_gains_only(tmp_path):
    """qa337: 'speculative gains at batch 32 and above run optimistic' footed the roofline and the pass-time figures,
    which show no gains."""
    from roofline.grid import scenario_meta
    from roofline.serving import OPTIMISTIC

    sc, configs, df, ops = _tables({**SMALL, "engine": "vllm", "axes": {**SMALL["axes"], "batch": [1, 64]}})
    meta = {**META, **scenario_meta(sc, configs, len(df))}
    footers = {}
    for job in plot_jobs.standard_jobs(df, ops, meta, tmp_path):
        fig = _figure(job[0], *job[1:4])
        if fig is None:  # the serving figure: no request here
            continue
        footers[job[0]] = " ".join(t.get_text() for t in fig.texts if t.get_gid() == plots.FOOTER_GID).replace("\n", " ")
    assert OPTIMISTIC not in footers["roofline"] and OPTIMISTIC not in footers["step_time_vs_tokens"], footers
    assert OPTIMISTIC in footers["speedup_heatmap"] and OPTIMISTIC in footers["throughput_vs_batch"], footers
    # qa342: decode only, said where the gains are drawn
    assert "steady decoding: a serving benchmark's time per token adds arriving prompts' prefills" in footers["speedup_heatmap"]
    assert "steady decoding" not in footers["roofline"]


@pytest.mark.slow
def test_the_report_figures_of_pass_times_and_prefills_carry_no_gains_caveat(tmp_path, monkeypatch):
    """qa341: the report's verify-mini-prefill figure (pass time over the decode step's) was footed 'speculative gains at
    batch 32 and above run optimistic'."""
    from roofline.report import run_scenario

    said = {}
    real = plots.footer
    monkeypatch.setattr(plots, "footer", lambda fig, meta, gains=True: (said.__setitem__(current[0], gains), real(fig, meta, gains)))
    current = [""]
    for name, gains in (("verify-mini-prefill", False), ("batch-vs-speculation", True)):
        r = run_scenario(name)
        current[0] = name
        plots.draw_figure((f"report:{name}", r.df, r.ops, {**r.meta, "strict": True}, tmp_path / name, ("png",)))
        assert said[name] is gains, said


def test_a_losing_tree_is_drawn_at_its_depth_not_as_the_baseline():
    """qa346: a tree that loses (a 63-node tree at batch 64 and above) was ranked below plain decoding's k = 0 row of its
    point and drawn on the baseline; the tree's line is its own rows."""
    df, ops, meta = _meta_of({**SMALL, "engine": "sglang", "tree": {"nodes": 63, "tau": 3.2},
                              "axes": {"batch": [1, 64, 256], "context": [1024], "k": [0, 5]}})
    drafted = df[df["k"] == 5].sort_values("batch")
    assert (drafted["speedup"].iloc[1:] < 1).all()  # it loses at 64 and 256
    fig = _figure("throughput_vs_batch", df, ops, meta)
    (tree,) = [line for line in _panel_axes(fig)[0].get_lines() if str(line.get_label()).startswith("tree of 63 nodes")]
    assert np.asarray(tree.get_ydata()).tolist() == drafted.loc[drafted["fits_in_memory"], "tokens_per_s"].tolist()


@pytest.mark.slow
def test_a_step_time_figure_kept_to_one_engine_says_no_other_engine_s_host_work(tmp_path):
    """qa349: 'engine vllm only' beside 'verify passes under sglang hold the host work ...', no sglang panel drawn."""
    from roofline.grid import scenario_meta

    data = {**SMALL, "engine": ["vllm", "sglang", "trtllm", "vllm-v0"], "shared_prefix": [0, 512],
            "hardware": ["h100-sxm", "h200"], "axes": {**SMALL["axes"], "batch": [1, 8]}}
    sc, configs, df, ops = _tables(data)
    meta = {**META, **scenario_meta(sc, configs, len(df))}
    (job,) = [job for job in plot_jobs.standard_jobs(df, ops, meta, tmp_path) if job[0] == "step_time_vs_tokens"]
    title = _figure("step_time_vs_tokens", *job[1:4])._suptitle.get_text().replace("\n", " ")
    assert "engine vllm only" in title and "sglang" not in title, title


REQUEST = {**SMALL, "prompt": 1024, "output_len": 256, "axes": {"batch": [1, 8, 64, 512], "k": [0, 1, 4, 5], "alpha": [0.6, 0.8]}}


def _speedup_row(ax) -> list[tuple[float, str]]:
    """The serving figure's row of speedups at a panel's foot: (batch, text) each."""
    return [(t.get_position()[0], t.get_text()) for t in ax.texts if t.get_gid() == plots.SPEEDUP_ROW_GID]


@pytest.mark.slow
def test_a_request_sweep_draws_the_serving_figure_at_the_k_of_least_serving_tpot(tmp_path):
    """The serving figure's lines are the table's serving TPOT: per alpha the least over k > 0 of the points that fit
    (k = 0, plain decoding, never), which is not the decode-best k everywhere (ringed there); the dashed line plain
    decoding's; the row at the panel's foot the top alpha's serving speedup and k at the batches its ringed points
    mark (qa351: labels beside another line's points; the decode speedup or the decode-best k would survive)."""
    from roofline.grid import scenario_meta

    sc, configs, df, ops = _tables(REQUEST)
    meta = {**META, **scenario_meta(sc, configs, len(df))}
    assert _drawn(df, ops, meta) == set(PLOT_NAMES) - set(CONTEXT_PLOTS)  # one context: no figure against it
    fig = _figure("serving_vs_batch", df, ops, meta)
    ax = fig.axes[0]
    lines = {line.get_label(): line for line in ax.get_lines() if not line.get_label().startswith("_")}
    fit = df[df["fits_in_memory"] & (df["k"] > 0)]
    for alpha in (0.6, 0.8):
        least = fit[np.isclose(fit["alpha"], alpha)].groupby("batch")["serving_time_per_output_token_s"].min() * 1e3
        line = lines[f"α = {alpha:g}, k ≥ 1 of least TPOT"]
        assert list(line.get_xdata()) == list(least.index) and np.allclose(line.get_ydata(), least.to_numpy())
    top = fit[np.isclose(fit["alpha"], 0.8)]
    picked = top.loc[top.groupby("batch")["serving_time_per_output_token_s"].idxmin()].set_index("batch")
    assert picked.loc[64, ["k", "best_k"]].tolist() == [4, 5]  # a verify pass of 6 stalls more: ringed
    assert picked.loc[64, "serving_speedup"] < 0.8 * picked.loc[64, "speedup"]
    row = _speedup_row(ax)
    assert row == [(b, f"{speedup_text(r['serving_speedup'])}x\nk={r['k']:g}") for b, r in picked.iterrows()], row
    marked = [line for line in ax.get_lines() if line.get_marker() == "o" and line.get_linestyle() == "None"]
    ringed = [line for line in marked if line.get_markerfacecolor() == "none" and len(line.get_xdata())]  # (not the key's)
    shown = [line for line in marked if line.get_markeredgecolor() == "k"]
    assert len(ringed) == 1 and list(ringed[0].get_xdata()) == [64]  # alpha 0.6's k agrees with its decode-best
    assert "k below the decode-best k" in [line.get_label().split("\n")[0] for line in ax.get_lines()]
    assert list(shown[0].get_xdata()) == list(picked.index)  # the points the row speaks of, on the top line
    assert np.allclose(shown[0].get_ydata(), picked["serving_time_per_output_token_s"] * 1e3)
    plain = df[df["batch"] <= df["baseline_max_batch"]].drop_duplicates("batch").sort_values("batch")
    assert np.allclose(lines["no speculation"].get_ydata(), plain["baseline_serving_time_per_output_token_s"] * 1e3)
    title = fig._suptitle.get_text().replace("\n", " ")
    assert "1,024-token prompts, 256 output tokens" in title and "prefills included" in title
    lowest = min(float(np.nanmin(line.get_ydata())) for line in ax.get_lines() if len(line.get_ydata()))
    low, high = ax.get_ylim()  # a strip at the foot, below every line, holds the row (qa353: its set_ylim untested)
    assert low < lowest / (high / lowest) ** 0.1
    assert "the α = 0.8 line's serving speedup and k at the batch above it" in title and "far from" not in title
    footer = " ".join(t.get_text() for t in fig.texts if t.get_gid() == plots.FOOTER_GID)
    assert "steady decoding" not in footer and "predicted by roofline's model" in footer  # its times are a benchmark's
    # plain decoding alone: the dashed line only, and no row of speedups
    sc, configs, df, ops = _tables({**REQUEST, "method": "none", "axes": {"batch": [1, 8, 64]}})
    fig = _figure("serving_vs_batch", df, ops, {**META, **scenario_meta(sc, configs, len(df))})
    assert [line.get_label() for line in fig.axes[0].get_lines()] == ["no speculation"] and not _speedup_row(fig.axes[0])


@pytest.mark.slow
def test_the_serving_figure_of_per_position_rates_a_memory_limit_and_a_far_context():
    """qa351: per-position rates (alpha NaN) had no row of speedups (nan == nan is false); plain decoding is drawn as
    far as it fits, past speculation's limit, the band saying both; a context far from the request's mean is said."""
    from roofline.grid import scenario_meta

    spec = {"name": "t", "hardware": "h100-sxm", "model": "llama-3.1-70b", "tp": 2, "method": "draft", "draft": "llama-3.2-1b",
            "acceptance": [0.8, 0.7, 0.6], "prompt": 2000, "output_len": 300,
            "axes": {"batch": [1, 2, 4, 8], "k": [2, 3], "context": [2150, 8192]}}
    sc, configs, df, ops = _tables(spec)
    meta = {**META, **scenario_meta(sc, configs, len(df))}
    fig = _figure("serving_vs_batch", df, ops, meta)
    first = df[df["context"] == 2150]
    assert int(first["max_batch"].max()) < 4 <= int(first["baseline_max_batch"].max())  # the case asked for
    ax = fig.axes[0]
    base = next(line for line in ax.get_lines() if line.get_label() == "no speculation")
    assert list(base.get_xdata()) == [b for b in (1, 2, 4, 8) if b <= int(first["baseline_max_batch"].max())]
    assert [b for b, _ in _speedup_row(ax)] and all(text.endswith(("k=2", "k=3")) for _, text in _speedup_row(ax))
    assert any("speculation does not fit" in t.get_text() and "plain decoding fits to" in t.get_text() for t in ax.texts)
    title = fig._suptitle.get_text().replace("\n", " ")
    assert "the 8k panel decodes at that context, far from the request's mean context of 2,150" in title, title
    assert "its line's serving speedup and k" in title


def test_the_serving_figure_is_missed_only_where_a_table_gives_a_request(tmp_path):
    """not_drawn names the serving figure where the table has a request's columns and it was not drawn (one batch),
    and not where the scenario gave no request: it was not asked for."""
    from roofline.plot_jobs import not_drawn

    drawn = [tmp_path / f"{n}.png" for n in DECODE_PLOTS]
    assert not_drawn(drawn) == "" and not_drawn(drawn, request=False) == ""
    said = not_drawn(drawn, request=True)
    assert said == ("not drawn: serving_vs_batch (needs two batch sizes and a point that fits in memory (and a request's "
                    "serving_* columns))")
    assert not_drawn([*drawn, tmp_path / "serving_vs_batch.png"], request=True) == ""


def test_a_panel_where_speculation_fits_at_no_batch_says_so_not_batch_above_0():
    """qa351: '(batch > 0; plain decoding fits to 2)' over a panel where only plain decoding fits."""
    from matplotlib.figure import Figure

    ax = Figure().add_subplot()
    ax.set_xscale("log", base=2)
    ax.set_xlim(0.8, 600)
    assert plots._shade_memory_limit(ax, 0.0, 512.0, 2.0, 2.0)
    (text,) = [t.get_text().replace("\n", " ") for t in ax.texts]
    assert text == "speculation fits at no batch (plain decoding fits to 2)"
    ax = Figure().add_subplot()
    ax.set_xscale("log", base=2)
    ax.set_xlim(0.8, 600)
    plots._shade_memory_limit(ax, 64.0, 512.0, 64.0, 128.0)
    assert ax.texts[0].get_text().replace("\n", " ") == "speculation does not fit (batch > 64; plain decoding fits to 128)"


def test_the_serving_figures_speedup_labels_are_spread_along_the_log_axis():
    """qa362: five labels evenly by index on a dense line put three within an octave ('2.32x2.282.23x')."""
    x = np.array([1, 2, 4, 8, 16, 19, 23, 32, 64, 128], dtype=float)
    kept = plots._spread_on_log_axis(x, x, 5)
    assert kept[0] == 0 and kept[-1] == len(x) - 1
    assert (np.diff(np.log(x[kept])) >= np.log(128) / 5 - 1e-12).all()
    assert list(plots._spread_on_log_axis(np.array([16.0, 19.0, 23.0]), [1.0, 1024.0], 5)) == [0, 2]


def test_an_engine_narrowed_for_a_figure_is_one_engine_not_one_per_panel():
    """qa371: engine narrowed per panel drew vllm at one layout beside trtllm at another (vllm's did not fit there),
    read as a comparison of layouts; an engine is narrowed to one, the first with a point that fits anywhere."""
    from roofline.plots import _narrow

    keys = [("h100", "tp8", "vllm"), ("h100", "tp8", "trtllm"), ("h100", "dp8", "vllm"), ("h100", "dp8", "trtllm")]
    fits = {("h100", "tp8", "vllm"), ("h100", "dp8", "trtllm")}  # no engine fits in both panels
    assert _narrow(keys, (2,), fits) == ([keys[0], keys[3]], "per panel")  # a column other than engine: per panel
    assert _narrow(keys, (2,), fits, one=True) == ([keys[0], keys[2]], "one")
    assert _narrow(keys, (2,), {keys[1]}, one=True) == ([keys[1], keys[3]], "one")  # vllm fits nowhere: trtllm


def test_a_compute_bound_run_past_every_batch_that_fits_is_said_in_a_line():
    """qa371: 'compute-bound at batches 3,643-7,760, 7,762-7,768, 7,776, ...' listed runs all past the 3,160 batches
    that fit in memory."""
    from roofline.tables import _compute_bound_text

    p = {"context": 2048, "max_batch": 3160, "compute_bound_search_max_batch": 65536,
         "compute_bound": {"first_batch": 3643, "memory_bound_again": 7761, "from_batch": None,
                           "runs": [[3643, 7760], [7762, 7768], [7776, 7776], [7809, 7816], [7819, 7824], [7832, 7832]],
                           "intensity_at_first_flops_per_byte": 250.0, "intensity_at_end_flops_per_byte": 90.0}}
    text = _compute_bound_text(p)
    assert text.startswith("  compute-bound from   batch 3,643 at context 2,048, in runs apart to 7,832 (")
    assert text.endswith("; 3,160 fit in memory") and "7,762" not in text, text
    p["max_batch"] = 5000  # runs that fit are listed as before
    assert _compute_bound_text(p).startswith("  compute-bound at     batches 3,643-7,760, 7,762-7,768"), _compute_bound_text(p)


def test_a_placed_label_keeps_off_the_lines_drawn_across_its_point():
    """qa374: 'mlp, lm_head' was placed across the peak roof, struck through by it; lines are a label's obstacles too."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from roofline.plots import place_labels

    fig = Figure(figsize=(4, 3))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    xs = np.linspace(0.0, 1.0, 50)
    for offset in (0.0, -0.04):  # a peak roof through the point and a derated one below it
        ax.plot(xs, xs + offset, "-", lw=1.5)
    ax.plot([0.5], [0.5], "o")
    place_labels(fig, [(ax, 0.5, 0.5, "mlp, lm_head")])
    label = ax.texts[-1]
    box = label.get_window_extent(fig.canvas.get_renderer())
    for line in ax.get_lines()[:2]:
        xy = line.get_transform().transform(np.column_stack(line.get_data()))
        dense = np.concatenate([np.linspace(a, b, 20) for a, b in zip(xy[:-1], xy[1:])])
        inside = (box.x0 <= dense[:, 0]) & (dense[:, 0] <= box.x1) & (box.y0 <= dense[:, 1]) & (dense[:, 1] <= box.y1)
        assert not inside.any(), (label.get_text(), box)


def test_a_title_line_of_wide_letters_is_wrapped_until_each_line_fits():
    """qa375: 'ma 3.1 70B · draft model Llama 3.2 1B on the target / h100-sxm (copy of NVIDIA H100 SXM5 80GB) / NVIDIA
    L4 24GB · bf' ran off both edges: its share of characters measured from the average letter, capitals wider."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.text import Text

    from roofline.plots import _fit_title

    fig = Figure(figsize=(5, 3), dpi=100)
    FigureCanvasAgg(fig)
    fig.suptitle("Fast tiers\n" + " / ".join(["NVIDIA HGX H100 SXM5 80GB", "AMD MI300X OAM", "NVIDIA GB200 NVL72"] * 3))
    room = 0.95 * fig.bbox.width
    _fit_title(fig, room)
    renderer = fig.canvas.get_renderer()
    title = fig._suptitle
    widths = [Text(text=line, fontproperties=title.get_fontproperties(), figure=fig).get_window_extent(renderer).width
              for line in title.get_text().split("\n")]
    assert len(widths) > 2 and max(widths) <= room, (widths, room)


def test_a_title_says_a_value_its_note_keeps_once():
    """qa377: 'TP 2 / TP 4 / TP 8 · ... TP 2 only' and 'fp8 weights, bf16 KV · ... fp8 weights only' in one title."""
    from roofline.plots import NBSP, _unsaid

    said = "engine vllm only, fp8 weights only, TP 2 only"
    assert _unsaid(f"TP{NBSP}2 / TP{NBSP}4 / TP{NBSP}8", said) == ""
    assert _unsaid(f"engine{NBSP}vllm", said) == ""
    assert _unsaid("fp8 weights, bf16 KV", said) == "bf16 KV"
    assert _unsaid("Llama 3.1 70B", said) == "Llama 3.1 70B" and _unsaid(f"TP{NBSP}4 / TP{NBSP}8", said) == f"TP{NBSP}4 / TP{NBSP}8"
    # qa381: a layout's label holds commas; its note said whole, its EP never alone
    layout = "engine sglang only, TP 1, DP-attention 2, EP 2 only"
    assert _unsaid(f"TP{NBSP}1, DP-attention{NBSP}2, EP{NBSP}2 / TP{NBSP}2", layout) == ""
    assert _unsaid(f"TP{NBSP}2, EP{NBSP}2", layout) == f"TP{NBSP}2, EP{NBSP}2"  # another layout: its degrees kept


def test_a_layout_narrowed_to_one_is_left_out_of_every_panel_title_whole():
    """qa381: panels read 'TP 1, DP-attention 2' (EP 2 gone) under a title saying the layout 'TP 1, DP-attention 2,
    EP 2 only' and every layout besides."""
    from roofline.plots import _panel_title, _said_once

    rows = pd.DataFrame([(hw, "m", 1024, tp, dp, ep) for hw in ("a", "b", "c", "d", "e") for tp, dp, ep in ((1, 2, 2), (2, 1, 1))],
                        columns=["hardware", "model", "context", "tp", "dp_attention", "ep"])
    rows["fits_in_memory"] = True
    by, keys, note = plots._panels(rows, ("hardware", "model", "context"), {})
    assert note == "TP 1, DP-attention 2, EP 2 only", note
    said = _said_once({}, by, keys, note)
    assert said == {"tp", "dp_attention", "ep"}
    assert _panel_title({}, dict(zip(by, keys[0])), False, said) == "a, context 1k"


def test_a_figure_of_several_engines_draws_a_serving_engine_before_ideal():
    """qa379: a sweep of engine [ideal, vllm] drew ideal's figures, where report and cheapest lead with vllm."""
    rows = pd.DataFrame([(hw, "m", 1024, e, tp) for hw in ("a", "b") for e in ("ideal", "vllm") for tp in (1, 8)],
                        columns=["hardware", "model", "context", "engine", "tp"])
    rows["fits_in_memory"] = True
    by, keys, note = plots._panels(rows, ("hardware", "model", "context"), {})
    assert {key[by.index("engine")] for key in keys} == {"vllm"} and note.startswith("engine vllm only"), (keys, note)
    assert [key[0] for key in keys] == sorted(key[0] for key in keys)  # the panels in their order
    unfit = rows.assign(fits_in_memory=rows["engine"] == "ideal")  # vllm fitting nowhere: ideal's drawn
    by, keys, note = plots._panels(unfit, ("hardware", "model", "context"), {})
    assert {key[by.index("engine")] for key in keys} == {"ideal"}, (keys, note)


def test_a_throughput_line_on_the_no_speculation_line_where_its_best_k_is_0_is_said():
    """qa400: an alpha whose best k is 0 (speculation loses) lies on the dashed no-speculation line there, hidden, with
    no word; the title says which alpha, and nothing where every best k drafts."""
    data = {**SMALL, "model": "llama-3.1-70b", "tp": 4, "method": "draft", "draft": "llama-3.2-1b",
            "axes": {"batch": [1, 8, 64, 128], "context": [2048], "k": [0, 2, 4], "alpha": [0.2, 0.9]}}
    df, ops, meta = _meta_of(data)
    assert (df[df["alpha"] == 0.2]["best_k"] == 0).any() and (df[df["alpha"] == 0.9]["best_k"] > 0).all()
    title = _figure("throughput_vs_batch", df, ops, meta)._suptitle.get_text().replace("\n", " ")
    assert "α = 0.2 on the no-speculation line where best k is 0 (speculation does not pay there)" in title
    df, ops, meta = _meta_of({**data, "axes": {**data["axes"], "alpha": [0.9]}})
    assert "no-speculation line where" not in _figure("throughput_vs_batch", df, ops, meta)._suptitle.get_text()


def test_a_layout_left_out_is_said_with_the_devices_it_does_not_fit_and_a_headline_keeps_its_own():
    """qa415: 3 devices x 3 layouts (9 panels) where TP 1 fits on one device only: the note said 'a panel of it
    would hold no point that fits' of a layout that fits somewhere, and a report's generic figure, whose text quotes its
    headline point at TP 1 (its rows first, meta's headline_first), drew the layouts that fit everywhere instead."""
    rows = pd.DataFrame([(hw, "x", 1024, tp) for tp in (1, 2, 4) for hw in "abc"],
                        columns=["hardware", "model", "context", "tp"])
    rows["fits_in_memory"] = (rows["tp"] > 1) | (rows["hardware"] == "a")
    by, keys, note = plots._panels(rows, ("hardware", "model", "context"), {})
    assert {key[by.index("tp")] for key in keys} == {2, 4} and note == "TP 1 left out (no point of it fits on b or c; on a it fits, not drawn)"
    by, keys, note = plots._panels(rows, ("hardware", "model", "context"), {"headline_first": True})
    # qa428: the headline's TP 1 where it fits (a), each other panel its first layout that fits (b and c were drawn grey)
    assert [(key[0], key[by.index("tp")]) for key in keys] == [("a", 1), ("b", 2), ("c", 2)], keys
    assert note == "TP 1 where it fits, else the first TP that fits, per panel", note
    every = rows.assign(fits_in_memory=True)  # TP 1 fits on every device: it alone
    assert plots._panels(every, ("hardware", "model", "context"), {"headline_first": True})[2] == "TP 1 only"
    none = rows.assign(fits_in_memory=rows["tp"] > 1)  # TP 1 fits nowhere: not the headline's
    assert plots._panels(none, ("hardware", "model", "context"), {"headline_first": True})[2] == "TP 2 only"
    one = pd.DataFrame([(hw, "x", 1024, tp) for tp in (1, 2, 4) for hw in "a"], columns=["hardware", "model", "context", "tp"])
    assert plots._left_out_note({}, ("hardware", "model", "context", "tp"), list(one.itertuples(index=False, name=None)),
                                (3,), ("tp",), [(1,)], set()) == "TP 1 left out (no point of it fits)"


def test_a_headline_put_first_keeps_the_tables_order_where_every_panel_is_drawn():
    """qa421: a report's long-context figure drew its panels 128k, 4k, 16k, 64k: the headline point's context, put
    first so that a figure keeping one context keeps it, stayed first where all four were drawn."""
    table = pd.DataFrame([("h200", "x", context) for context in (4096, 16384, 65536, 131072)],
                         columns=["hardware", "model", "context"]).assign(fits_in_memory=True)
    first = pd.concat([table.iloc[[3]], table.iloc[:3]])  # as report_figures._report_generic reorders
    meta = {"headline_first": True, "table_order": table}
    by, keys, note = plots._panels(first, ("hardware", "model", "context"), meta)
    assert [key[by.index("context")] for key in keys] == [4096, 16384, 65536, 131072] and note == ""
    wide = pd.concat([table.assign(hardware=hw) for hw in ("a", "b", "c")], ignore_index=True)  # 12 panels: one context
    first = pd.concat([wide[wide["context"] == 131072], wide[wide["context"] != 131072]])
    by, keys, note = plots._panels(first, ("hardware", "model", "context"), {**meta, "table_order": wide})
    assert {key[by.index("context")] for key in keys} == {131072} and note == "context 128k only", (keys, note)


@pytest.mark.slow
def test_the_heatmap_keeps_no_layout_whose_speculative_rows_are_gone():
    """qa415: a report leaves out the speculative rows of a layout its engine refuses to speculate with (vLLM at pp 2),
    their plain rows kept; the heatmap counted those as points that fit and drew panels of grey cells titled 'does not
    fit in memory', leaving out layouts that did fit."""
    from roofline.grid import scenario_meta

    sc, pairs, df, ops = _tables({"name": "pp-spec", "hardware": ["h100-sxm", "h200", "b200", "mi300x"],
                                  "model": "llama-3.1-8b", "method": "eagle",
                                  "layouts": [{"tp": 1, "pp": 2}, {"tp": 1}, {"tp": 2}],
                                  "axes": {"batch": [1, 8], "context": [1024], "k": [0, 2], "alpha": [0.8]}})
    meta = scenario_meta(sc, pairs, len(df))
    left = df[~((df["pp"] == 2) & (df["k"] > 0))]  # as report._without_refused_speculation leaves them
    fig = _figure("speedup_heatmap", left, ops, meta)
    titles = " ".join(t.get_text() for t in [fig._suptitle, *(ax.title for ax in fig.axes)]).replace("\n", " ")
    assert "TP 1, PP 2 left out (no point of it fits)" in titles, titles
    assert not any("PP 2" in ax.title.get_text() for ax in fig.axes)  # 8 panels of TP 1 and TP 2, none grey throughout


def test_a_left_out_layout_on_panels_of_one_device_and_a_headline_dtype_are_said_and_kept():
    """qa416's survivors: panels of one device (two models) say which model a layout does not fit (qa437: by name, not
    'on 1 of its 2 panels'), not the device; and a report's headline keeps its own value of a config column (the KV
    dtype), not only of the layout."""
    keys = [("a", m, 1024, tp) for tp in (1, 2) for m in ("x", "y")]
    fits = {("a", "x", 1024, 1), ("a", "x", 1024, 2), ("a", "y", 1024, 2)}
    assert plots._left_out_note({}, ("hardware", "model", "context", "tp"), keys, (3,), ("tp",), [(1,)], fits) == (
        "TP 1 left out (no point of it fits on y; on x it fits, not drawn)")
    # panels of two devices and two models: a device named whole only where every panel of it fails (qa437: 'on a or
    # b' where TP 1 fits on a with x)
    keys = [(hw, m, 1024, tp) for tp in (1, 2) for hw in "ab" for m in "xy"]
    fits = {key for key in keys if key[3] == 2 or key[:2] == ("a", "x")}
    assert plots._left_out_note({}, ("hardware", "model", "context", "tp"), keys, (3,), ("tp",), [(1,)], fits) == (
        "TP 1 left out (no point of it fits on a with y or b; on a with x it fits, not drawn)")
    keys = [(hw, "x", c, tp) for tp in (1, 2) for hw in "ab" for c in (1024, 8192)]  # one model, two contexts
    fits = {key for key in keys if key[3] == 2 or key[:3] == ("a", "x", 1024)}
    assert plots._left_out_note({}, ("hardware", "model", "context", "tp"), keys, (3,), ("tp",), [(1,)], fits) == (
        "TP 1 left out (no point of it fits on a (1 of its 2 panels) or b; on a (1 of its 2 panels) it fits, not drawn)")
    rows = pd.DataFrame([(hw, "x", 1024, kv) for kv in ("bf16", "fp8") for hw in "abcd"],
                        columns=["hardware", "model", "context", "kv_dtype"])
    rows["fits_in_memory"] = (rows["kv_dtype"] == "fp8") | (rows["hardware"] == "a")  # bf16 KV fits on a alone
    assert plots._panels(rows, ("hardware", "model", "context"), {})[2] == "fp8 KV only"
    by, keys, note = plots._panels(rows, ("hardware", "model", "context"), {"headline_first": True})
    assert note == "bf16 KV where it fits, else the first KV dtype that fits, per panel" and len(keys) == 4  # (qa428)
    assert [key[3] for key in keys] == ["bf16", "fp8", "fp8", "fp8"], keys
    every = rows.assign(fits_in_memory=True)
    assert plots._panels(every, ("hardware", "model", "context"), {"headline_first": True})[2] == "bf16 KV only"


@pytest.mark.slow
def test_a_reports_generic_figure_draws_its_headlines_layout_where_it_fits_on_some_devices_only():
    """qa415 / qa416: the headline (Llama 3.1 70B at tp 1 on MI300X) fits at tp 1 on MI300X and B200 only; the
    figure drew tp 2, the one layout that fits on all four devices, beside a text about tp 1."""
    from matplotlib import rc_context

    from roofline.report import _sweep
    from roofline.report_figures import REPORT_PLOTTERS

    df, ops, meta = _sweep({"name": "hl", "hardware": ["h100-sxm", "h200", "mi300x", "b200"], "model": "llama-3.1-70b",
                            "method": "eagle", "tp": [2, 1], "axes": {"batch": [1, 8], "k": [0, 2], "alpha": [0.8]}}, "hl", ())
    drafting = df[df["fits_in_memory"].astype(bool) & (df["k"] > 0)]
    top = drafting.loc[drafting["speedup"].idxmax()]
    assert int(top["tp"]) == 1 and not df[df["tp"] == 1].groupby("hardware", observed=True)["fits_in_memory"].any().all()
    with rc_context(plots.STYLE):
        fig = REPORT_PLOTTERS["generic"](df, ops, meta)
    # qa428: the devices where the headline's TP 1 does not fit drawn at their first layout that does, not grey
    assert fig._suptitle.get_text().replace("\n", " ").endswith("TP 1 where it fits, else the first TP that fits, per panel")


def test_the_setup_line_lists_the_layouts_drawn_not_every_one_swept():
    """qa428: panels drawn at TP 1 and TP 8 (each panel its own) listed DP-attention 8, EP 8 too, drawn nowhere."""
    meta = {"layouts": ["tp 1", "tp 8", "tp 1, dp-attention 8, ep 8"]}
    keys = [("a", "x", 2048, 8, 1, 1), ("b", "x", 2048, 1, 1, 1)]
    shown = plots._shown_meta(meta, ("hardware", "model", "context", "tp", "dp_attention", "ep"), keys)
    assert shown["layouts"] == ["tp 1", "tp 8"] and meta["layouts"][2] == "tp 1, dp-attention 8, ep 8"
    assert plots._shown_meta(meta, ("hardware", "model", "context"), keys[:1])["layouts"] == meta["layouts"]  # not panels


def test_narrow_keeps_the_headlines_value_per_panel_only_where_it_should():
    """qa430's mutants of _narrow: an engine stays one under a headline (qa371); a panel where nothing fits drawn at the
    headline's value, then one value said 'only'; the headline's value before a panel's first where both fit; a
    headline value some panel lacks not kept per panel; the note names the headline's value, not the first panel's."""
    keys = [("h100", "tp8", "vllm"), ("h100", "tp8", "trtllm"), ("h100", "dp8", "vllm"), ("h100", "dp8", "trtllm")]
    assert plots._narrow(keys, (2,), {keys[0], keys[3]}, one=True, headline=True) == ([keys[0], keys[2]], "one")
    keys = [(hw, tp) for hw in "abc" for tp in (1, 2, 4)]
    assert plots._narrow(keys, (1,), {("a", 1), ("b", 1), ("a", 2), ("b", 4)}, headline=True) == (
        [("a", 1), ("b", 1), ("c", 1)], "one")
    keys = [("a", 1), ("a", 2), ("b", 2), ("b", 1), ("c", 1), ("c", 2)]
    assert plots._narrow(keys, (1,), set(keys) - {("c", 1)}, headline=True) == (
        [("a", 1), ("b", 1), ("c", 2)], "headline per panel")
    assert plots._narrow(keys, (1,), set(keys) - {("c", 1)}, headline=True, per_panel=False) == (  # a config column
        [("a", 1), ("b", 1), ("c", 1)], "one")  # before a layout: the headline's value whole
    keys = [("a", 1), ("a", 2), ("b", 2)]
    assert plots._narrow(keys, (1,), set(keys), headline=True) == ([("a", 2), ("b", 2)], "one")
    rows = pd.DataFrame([(hw, "x", 1024, tp) for hw in "abc" for tp in (1, 2, 4)], columns=["hardware", "model", "context", "tp"])
    rows["fits_in_memory"] = (rows["tp"] > 1) | (rows["hardware"] == "b")  # the first device fits TP 1 nowhere
    by, kept, note = plots._panels(rows, ("hardware", "model", "context"), {"headline_first": True})
    assert [(k[0], k[by.index("tp")]) for k in kept] == [("a", 2), ("b", 1), ("c", 2)], kept
    assert note == "TP 1 where it fits, else the first TP that fits, per panel", note
    assert plots._shown_meta({}, ("tp",), [(1,), (2,)]) == {"tp": [1, 2]}  # no layouts list: left as it is


def test_a_dtype_and_a_layout_both_narrowed_draw_each_device_once():
    """qa430: weight dtypes and TPs swept on four devices: the dtype chosen per (device, TP) panel left two dtypes of a
    device to the layout's step, which drew H100 and H200 twice and left L40S's second panel out."""
    rows = pd.DataFrame([(hw, "x", 1024, d, tp) for d in ("bf16", "fp8") for tp in (1, 2, 4) for hw in "abcd"],
                        columns=["hardware", "model", "context", "weight_dtype", "tp"])
    need = {"a": 1, "b": 2, "c": 4, "d": 4}  # the smallest TP that fits in bf16; fp8 half of it
    rows["fits_in_memory"] = [t >= (need[h] // 2 if d == "fp8" and need[h] > 1 else need[h])
                              for h, d, t in zip(rows["hardware"], rows["weight_dtype"], rows["tp"])]
    by, keys, note = plots._panels(rows, ("hardware", "model", "context"), {"headline_first": True})
    assert [(k[0], k[by.index("weight_dtype")], k[by.index("tp")]) for k in keys] == [
        ("a", "bf16", 1), ("b", "bf16", 2), ("c", "bf16", 4), ("d", "bf16", 4)], keys
    assert note == "bf16 weights only, TP 1 where it fits, else the first TP that fits, per panel", note


@pytest.mark.filterwarnings("ignore")
def test_pareto_shares_its_x_axis_with_every_panels_tick_labels_and_the_batch_lines_keep_their_own():
    """qa428: pareto's panels each had their own x range; qa430: shared, the panels above another lost their x tick
    labels; the batch-line figures keep their own axes (a replacement had shared them, bf125e3)."""
    from matplotlib import rc_context

    from roofline.grid import load_configs, operator_table, run_sweep
    from roofline.scenario import scenario_from_dict

    sc = scenario_from_dict({"name": "share", "hardware": ["h100-sxm", "l4", "h200", "a100-sxm-80gb"], "model": "llama-3.1-8b",
                             "method": "eagle", "axes": {"batch": [1, 8, 64], "context": [1024], "k": [0, 2], "alpha": [0.8]}})
    pairs = load_configs(sc)
    df, ops = run_sweep(sc, pairs), operator_table(sc, pairs)
    meta = {"scenario": "share", "method": "eagle", "weight_dtype": "bf16", "kv_dtype": "bf16", "tp": 1}
    with rc_context(plots.STYLE):
        pareto = plots.PLOTTERS["pareto"](df, ops, meta)
        lines = plots.PLOTTERS["throughput_vs_batch"](df, ops, meta)
    drawn = [ax for ax in pareto.axes if ax.get_visible() and ax.get_xlabel()]
    assert len(drawn) == 4 and all(drawn[0].get_shared_x_axes().joined(drawn[0], ax) for ax in drawn[1:])
    pareto.canvas.draw()
    assert all(any(t.get_text() for t in ax.get_xticklabels()) for ax in drawn)  # the top row's too
    c, d = [ax for ax in lines.axes if ax.get_visible()][:2]
    assert not c.get_shared_x_axes().joined(c, d)


def test_the_best_k_title_names_three_lines_and_a_step_back_to_a_k_that_does_not_fit_is_neither():
    """qa437's survivors of qa428's change: three lines named, then 'and N more'; a line that steps back only because
    the k it left does not fit at that batch is neither a near-tie's zigzag nor a change in what pays."""
    from roofline.plots import _lines_named, _switches_between_near_ties

    lines = ["H100 SXM5: α = 0.6", "H100 SXM5: α = 0.8", "B200: α = 0.6", "B200: α = 0.8", "B200: α = 0.9"]
    assert _lines_named(lines[:3]) == "H100 SXM5: α = 0.6; H100 SXM5: α = 0.8; B200: α = 0.6"
    assert _lines_named(lines) == "H100 SXM5: α = 0.6; H100 SXM5: α = 0.8; B200: α = 0.6 and 2 more"
    rows = []
    for batch, best in zip([8, 16, 32, 64], [4, 3, 4, 3]):
        for k in (3, 4):
            rows.append({"alpha": 0.8, "batch": batch, "k": k, "fits_in_memory": (batch, k) not in ((32, 3), (64, 4)),
                         "speedup": 2.0 * (1.05 if k == best else 1.0)})
    sub = pd.DataFrame(rows)
    fit = sub[sub["fits_in_memory"]]
    best = fit.sort_values("speedup").drop_duplicates("batch", keep="last").assign(best_k=lambda d: d["k"]).sort_values("batch")
    assert list(best["best_k"]) == [4, 3, 4, 3] and _switches_between_near_ties(sub, best) == ([], [])


@pytest.mark.slow
def test_a_panel_where_nothing_fits_is_left_out_where_its_device_is_drawn_with_something_that_does():
    """qa441: DeepSeek-V3 and Llama 3.1 70B over layouts [dp-attention 8 + ep 8, tp 8] on H200 and H100: the model was
    chosen per (device, layout) and then the layout per (device, model), leaving DeepSeek-V3 at dp-attention 8 on 8 H100
    (80 GB each: it fits nowhere there) drawn empty beside Llama's panel on H100. It is left out and said; a device where
    nothing fits at all keeps its empty panel."""
    from roofline import plots

    data = {"name": "t", "hardware": ["h200", "h100-sxm"], "model": ["deepseek-v3", "llama-3.1-70b"],
            "method": {"deepseek-v3": "mtp", "llama-3.1-70b": "eagle"}, "weight_dtype": "fp8", "kv_dtype": "fp8",
            "layouts": [{"dp_attention": 8, "ep": 8}, {"tp": 8}], "axes": {"batch": [1, 16], "context": [8192], "k": [0, 2], "alpha": [0.8]}}
    sc, configs, df, ops = _tables(data)
    h100 = df[(df["hardware"] == "h100-sxm") & (df["model"] == "deepseek-v3")]
    assert len(h100) and not h100["fits_in_memory"].any()
    by, keys, note = plots._panels(df, ("hardware", "model", "context"), META)
    on_h100 = [key for key in keys if key[by.index("hardware")] == "h100-sxm"]
    assert [key[by.index("model")] for key in on_h100] == ["llama-3.1-70b"], keys
    assert ("on NVIDIA H100 SXM5 80GB (TP 1, DP-attention 8, EP 8), " in note
            and "on NVIDIA H100 SXM5 80GB (TP 8) not drawn (nothing fits there" in note), note
    # the same figure with DeepSeek-V3 alone: H100's empty panel stays, the device otherwise not drawn at all
    by, keys, note = plots._panels(df[df["model"] == "deepseek-v3"], ("hardware", "model", "context"), META)
    assert any(key[by.index("hardware")] == "h100-sxm" for key in keys) and "not drawn (nothing fits" not in note


def test_each_whole_pass_marker_is_labelled_with_its_batch():
    """qa459: the whole pass is drawn large and open at every batch, where the legend reads open as the smallest B: a
    student read batch 64's ring as batch 1's. Each ring says its batch beside it."""
    _, _, df, ops = _tables({**SMALL, "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "none",
                             "axes": {"batch": [1, 64], "context": [1024], "k": [0]}})
    fig = _figure("roofline", df, ops, META)
    texts = [t for ax in _panel_axes(fig) for t in ax.texts if t.get_text().startswith("whole step")]
    rings = {float(line.get_ydata()[0]) for ax in _panel_axes(fig) for line in ax.get_lines() if line.get_markersize() == 15}
    assert sorted(t.get_text() for t in texts) == ["whole step, B=1", "whole step, B=64"]
    for t in texts:  # each label points at its own ring
        batch = int(t.get_text().rsplit("=", 1)[1])
        g = ops[(ops["pass"] == "decode") & (ops["batch"] == batch)]
        y = g["flops"].sum() / g["step_time_s"].iloc[0] / 1e12
        assert t.xy[1] == pytest.approx(y, rel=1e-9) and any(r == pytest.approx(y, rel=1e-9) for r in rings)


def test_a_speculating_frontier_point_plain_decoding_beats_on_both_axes_is_hollow():
    """qa459: alpha 0.3's frontier started at batch 1 with a 0.84x point, which plain decoding's batch 1 beats in speed
    and throughput alike, drawn as any other under the name 'frontier'. Such points are ringed hollow, and no other."""
    df, ops, meta = _meta_of({**SMALL, "method": "ngram", "model": "mixtral-8x7b", "hardware": "h200",
                              "axes": {"batch": [1, 2, 8, 64], "context": [2048], "k": [2, 8], "alpha": [0.3, 0.9]}})
    fig = _figure("pareto", df, ops, meta)
    (ax,) = _panel_axes(fig)
    hollow = [line for line in ax.get_lines() if line.get_marker() == "o" and line.get_markerfacecolor() == "white"
              and len(line.get_xdata())]
    plain = df.drop_duplicates("batch")
    px, py = plain["baseline_tokens_per_s_per_user"].to_numpy(), plain["baseline_tokens_per_s"].to_numpy()
    drawn = {(round(float(x), 6), round(float(y), 6)) for line in hollow for x, y in zip(line.get_xdata(), line.get_ydata())}
    beaten = set()
    for line in ax.get_lines():
        if line.get_label().startswith("frontier, speculating"):
            for x, y in zip(line.get_xdata(), line.get_ydata()):
                if ((px >= x) & (py >= y) & ((px > x) | (py > y))).any():
                    beaten.add((round(float(x), 6), round(float(y), 6)))
    assert beaten and drawn == beaten  # the case arises, and exactly those points are hollow
    assert any(t.get_text().startswith("hollow: a speculating point") for t in fig.legends[0].get_texts())


def test_heatmap_cell_text_grows_with_its_cells_and_stays_small_in_narrow_ones():
    """qa459: 6.5-point type in cells 0.7 inch wide, 'k≥5' misread as 'k=4' at the README's width; cells that hold more
    get larger type, up to 9 points, and narrow cells keep 6.5."""
    wide = _meta_of({**SMALL, "axes": {"batch": [1, 8, 64], "context": [1024], "k": [1, 2], "alpha": [0.6, 0.9]}})
    narrow = _meta_of({**SMALL, "axes": {"batch": [1, 2, 3, 4, 6, 8, 11, 16, 23, 32, 45, 64, 91, 128, 181, 256],
                                         "context": [1024], "k": [1, 2], "alpha": [0.6, 0.9]}})
    sizes = []
    for df, ops, meta in (wide, narrow):
        fig = _figure("speedup_heatmap", df, ops, meta)
        sizes.append({t.get_fontsize() for ax in _panel_axes(fig) for t in ax.texts if "k=" in t.get_text() or "k≥" in t.get_text()})
    assert sizes[0] == {plots.CELL_TEXT_MAX_PT} and sizes[1] == {plots.CELL_TEXT_PT}


def test_step_time_says_what_compute_bound_means_where_verify_passes_are_drawn():
    """qa459: 'verify compute-bound from 640 tokens' on H200, whose ridge is 194, read against the pass's mean intensity:
    the title says the verdict is of most of the operator time; a plain sweep draws no verify pass and says nothing."""
    _, _, df, ops = _tables({**SMALL, "axes": {"batch": [1, 32, 256], "context": [1024], "k": [1, 2], "alpha": [0.7]}})
    title = _figure("step_time_vs_tokens", df, ops, META)._suptitle.get_text().replace("\n", " ")
    assert "compute-bound: most of a pass's operator time in operators past their ridge" in title
    assert "(its GEMMs; attention's KV reads stay memory-bound here)" in title  # a GQA model's, k 1-2
    # qa467: an MLA model's verify pass at 128k is compute-bound by its attention, every GEMM memory-bound
    said = "and attention where the queries sharing each KV read take it past: MLA's many heads, a wide verify pass)"
    mla = _figure("step_time_vs_tokens", df, ops, {**META, "kv_layout": {m: "mla" for m in set(df["model"])}})
    assert said in mla._suptitle.get_text().replace("\n", " ")
    # qa470: a GQA verify pass wide enough (the operators table marks its attention compute-bound) says it too
    at_verify = (ops["operator"] == "attention") & (ops["pass"] == "verify")
    wide = ops.assign(flops=ops["flops"].where(~at_verify, 1e4 * ops["bytes"]))  # 10,000 FLOP/B: past any ridge
    assert said in _figure("step_time_vs_tokens", df, wide, META)._suptitle.get_text().replace("\n", " ")
    _, _, plain, ops = _tables({**SMALL, "method": "none", "axes": {"batch": [1, 32, 256], "context": [1024], "k": [0]}})
    assert "compute-bound:" not in _figure("step_time_vs_tokens", plain, ops, {**META, "method": "none"})._suptitle.get_text()


def test_a_title_over_several_models_says_whose_experts_and_which_attention_keeps_a_window():
    """qa467: 'GQA · TP 8, bf16 weights, fp4 experts' over Llama 3.1 70B, gpt-oss-120b and Gemma 3: two of the three
    keep sliding-window layers and one alone has experts."""
    from roofline.grid import attention_kind
    from roofline.model import load_model

    assert [attention_kind(load_model(m)) for m in ("llama-3.1-70b", "gpt-oss-120b", "deepseek-v3", "deepseek-v4-flash")] == [
        "GQA", "GQA with sliding-window layers", "MLA", "compressed attention"]
    meta = {"weight_dtype": "bf16", "expert_dtype": "fp4", "kv_dtype": "bf16",
            "model": {"llama-3.1-70b": "Llama 3.1 70B", "gpt-oss-120b": "gpt-oss-120b"},
            "dtypes_by_model": {"llama-3.1-70b": {"weight_dtype": ["bf16"], "expert_dtype": []},
                                "gpt-oss-120b": {"weight_dtype": ["bf16"], "expert_dtype": ["fp4"]}}}
    assert plots.dtypes_text(meta, ["llama-3.1-70b", "gpt-oss-120b"]) == "bf16 weights, fp4 experts (gpt-oss-120b), bf16 KV"
    assert plots.dtypes_text(meta, ["gpt-oss-120b"]) == "bf16 weights, fp4 experts, bf16 KV"  # one model: its own
    assert plots.dtypes_text(meta, ["llama-3.1-70b"]) == "bf16 weights, bf16 KV"


def test_a_layout_note_says_a_degree_of_1_another_swept_layout_raises():
    """qa466: 'TP 2 only' over a sweep of tp 2 and tp 2, pp 2 did not say which was drawn; a degree of 1 is said where
    another swept layout with the same other degrees raises it, and left unsaid elsewhere (qa381's 'TP 16')."""
    from roofline.plots import _layout_value_label

    meta = {"layouts": ["tp 2", "tp 4", "tp 8", "tp 4, pp 2", "tp 8, pp 2", "tp 2, pp 2"]}
    assert _layout_value_label(meta, ("tp", "pp"), (2, 1)) == "TP 2, PP 1"
    assert _layout_value_label(meta, ("tp", "pp"), (2, 2)) == "TP 2, PP 2"
    apart = {"layouts": ["tp 1, dp-attention 8, ep 8", "tp 8"]}
    assert _layout_value_label(apart, ("tp", "dp_attention", "ep"), (8, 1, 1)) == "TP 8"
    assert _layout_value_label(apart, ("tp", "dp_attention", "ep"), (1, 8, 8)) == "TP 1, DP-attention 8, EP 8"
    assert _layout_value_label({}, ("tp", "pp"), (2, 1)) == "TP 2"  # an older table's meta without layouts


def test_a_title_over_models_of_different_expert_and_weight_dtypes_says_whose_each_is():
    """qa471: 'bf16 / fp4 experts (gpt-oss-120b, Qwen3 30B-A3B, Mixtral 8x7B)' read as all three holding both: each
    dtype is said with its models; a model swept over two dtypes keeps the plain list."""
    meta = {"weight_dtype": ["bf16", "fp8"], "expert_dtype": ["bf16", "fp4"], "kv_dtype": "bf16",
            "model": {"gpt-oss-120b": "gpt-oss-120b", "qwen3-30b-a3b": "Qwen3 30B-A3B", "deepseek-v3": "DeepSeek-V3"},
            "dtypes_by_model": {"gpt-oss-120b": {"weight_dtype": ["bf16"], "expert_dtype": ["fp4"]},
                                "qwen3-30b-a3b": {"weight_dtype": ["bf16"], "expert_dtype": ["bf16"]},
                                "deepseek-v3": {"weight_dtype": ["fp8"], "expert_dtype": ["fp8"]}}}
    assert plots.dtypes_text({**meta, "expert_dtype": ["bf16", "fp4"]}, ["gpt-oss-120b", "qwen3-30b-a3b"]) == (
        "bf16 weights, fp4 experts (gpt-oss-120b), bf16 experts (Qwen3 30B-A3B), bf16 KV")
    assert plots.dtypes_text({**meta, "expert_dtype": ["bf16", "fp4", "fp8"]}, ["qwen3-30b-a3b", "deepseek-v3"]) == (
        "bf16 weights (Qwen3 30B-A3B), fp8 weights (DeepSeek-V3), bf16 experts (Qwen3 30B-A3B), fp8 experts (DeepSeek-V3), bf16 KV")
    swept = {**meta, "dtypes_by_model": {**meta["dtypes_by_model"], "qwen3-30b-a3b": {"weight_dtype": ["bf16", "fp8"],
                                                                                     "expert_dtype": ["bf16", "fp8"]}}}
    assert plots.dtypes_text({**swept, "expert_dtype": ["bf16", "fp8"]}, ["qwen3-30b-a3b"]) == "bf16 / fp8 weights, bf16 / fp8 experts, bf16 KV"
