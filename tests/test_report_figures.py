"""roofline.report_figures: one figure per report question, drawn from that question's own results table.

Marked slow: it imports matplotlib and draws every report figure (the quick loop never imports matplotlib)."""

import numpy as np
import pytest

from roofline.findings import main_engine
from roofline.report import REPORT_SCENARIOS, run_scenario

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def plotters():
    from roofline.report_figures import REPORT_PLOTTERS

    return REPORT_PLOTTERS


@pytest.fixture(scope="module")
def results():
    return {name: run_scenario(name) for name in REPORT_SCENARIOS}


def _section_texts(plotters, tmp_path, name: str, body: str) -> tuple:
    """(the run, the texts drawn on its figure's axes) of a scenario `name` of YAML `body` (its name line added), drawn
    by that question's report figure."""
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\n{body}")
    r = run_scenario(str(path))
    fig = plotters[name](r.df, r.ops, r.meta)
    return r, [t.get_text() for ax in fig.axes for t in ax.texts]


def _drawn(ax) -> int:
    """Artists that show data in a panel: lines, markers, bars, images, filled regions."""
    return len(ax.lines) + len(ax.collections) + len(ax.images) + len(ax.patches)


def test_every_report_question_has_its_own_figure_and_an_unknown_one_the_generic(plotters):
    from roofline.plots import plotter

    assert set(plotters) == {*REPORT_SCENARIOS, "generic"}
    assert plotter("report:no-such-question") is plotters["generic"]
    assert plotter("report:fast-tier-premium") is plotters["fast-tier-premium"]


@pytest.mark.parametrize("name", REPORT_SCENARIOS)
def test_each_report_figure_draws_its_table_and_names_the_engine(plotters, results, name):
    from roofline.plots import arrange

    r = results[name]
    engine = main_engine(r.df)
    df, ops = r.df[r.df["engine"] == engine], r.ops[r.ops["engine"].astype(str) == engine]
    fig = plotters[name](df, ops, {**r.meta, "engine": [engine]})
    assert fig is not None, name
    arrange(fig)
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_subplotspec() is not None]
    assert panels and all(_drawn(ax) > 0 for ax in panels), name
    title = fig._suptitle.get_text().replace("\u00a0", " ") if fig._suptitle is not None else ""  # as read: NBSP keeps words together
    assert f"engine {engine}" in title, (name, title)
    assert not any(line.rstrip().endswith((" TP", " PP", " engine")) for line in title.split("\n")), title  # wrapped whole
    fig.canvas.draw()  # renders without error, inside the figure's bounds
    width, height = fig.canvas.get_width_height()
    assert width > 400 and height > 300
    # drawn as wide as the page shows it (report.PAGE_WIDTH_PX at the saved resolution): not shrunk, every figure alike
    from roofline.plots import DPI
    from roofline.report import PAGE_WIDTH_PX

    assert round(fig.get_figwidth() * DPI) == PAGE_WIDTH_PX, (name, fig.get_figwidth())


def test_the_generic_figure_draws_nothing_for_a_table_where_nothing_fits(plotters, results):
    r = results["flops-vs-time"]
    assert plotters["generic"](r.df, r.ops, r.meta) is not None
    nothing = r.df.assign(fits_in_memory=False)
    assert plotters["generic"](nothing, r.ops, r.meta) is None


def test_figures_leave_out_or_fade_points_that_do_not_fit(plotters, results):
    from roofline.report_figures import _fits_only

    r = results["kv-caps-batch"]
    assert (~r.df["fits_in_memory"].astype(bool)).any()  # the scenario runs past the KV cap
    kept = _fits_only(r.df)
    assert len(kept) < len(r.df) and kept["fits_in_memory"].astype(bool).all()
    assert np.isin(kept.index, r.df.index).all()


def test_the_generic_figure_leaves_plain_decoding_out_beside_a_drafting_method_as_the_sweep_does(plotters):
    """A user's scenario with method [none, eagle]: the report's generic heatmap drew the none rows ('speculation never
    pays', every cell 1.00 at k = 0) beside a finding of a 2x gain; the sweep's own heatmap left them out."""
    from roofline.report import _sweep

    df, ops, meta = _sweep({"name": "mix", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": ["none", "eagle"],
                            "axes": {"batch": [1, 8], "context": [4096], "k": [0, 2], "alpha": [0.8]}}, "mix", ())
    fig = plotters["generic"](df, ops, meta)
    title = fig._suptitle.get_text()
    assert "never pays" not in title and "EAGLE" in title and "no speculation" not in title
    cells = [t.get_text() for ax in fig.axes for t in ax.texts if "\nk" in t.get_text()]
    assert len(cells) == 2 and all(c.endswith(("k=2", "k≥2")) for c in cells), cells  # drafting at k = 2, never k = 0


@pytest.mark.slow
def test_the_generic_figure_draws_the_context_of_the_findings_headline_where_it_keeps_one(plotters):
    """qa256: the finding headlined 2.35x at context 8k; the figure, keeping one context of two, drew 2k (the first)."""
    from roofline.report import _sweep

    df, ops, meta = _sweep({"name": "ctx", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": ["ngram", "eagle"],
                            "layouts": [{"tp": 1}, {"tp": 2}], "acceptance": [0.8, 0.6, 0.45, 0.3],
                            "axes": {"batch": [1, 2, 4, 8, 16, 32, 64, 128, 256, 512], "context": [2048, 8192],
                                     "k": [0, 2, 4]}}, "ctx", ())
    drafting = df[df["fits_in_memory"].astype(bool) & (df["k"] > 0)]
    top = drafting.loc[drafting["speedup"].idxmax()]
    assert int(top["context"]) == 8192  # the headline's context is the second swept
    fig = plotters["generic"](df, ops, meta)
    titles = [ax.get_title().replace("\n", " ") for ax in fig.axes if ax.get_subplotspec() is not None]
    assert "context 8k only" in fig._suptitle.get_text().replace("\n", " ")
    assert titles and all("context 8k" in t for t in titles)
    label = {"ngram": "n-gram lookup", "eagle": "EAGLE"}[str(top["method"])]
    assert label in titles[0]  # the headline's method drawn first


def _grid(fig):
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_subplotspec() is not None]
    return panels, panels[0].get_subplotspec().get_gridspec().get_geometry()


def test_a_wide_generic_figure_wraps_its_panels_into_rows_at_the_page_width(plotters):
    """Three heatmaps of nine batches side by side were drawn 2,340 px wide and shown at 1,120: their cell labels
    came out about 4 px tall."""
    from roofline.plots import DPI, arrange
    from roofline.report import PAGE_WIDTH_PX, _sweep

    df, ops, meta = _sweep({"name": "wide", "hardware": "b200", "model": "llama-3.1-70b", "tp": 8, "weight_dtype": "fp8",
                            "method": "eagle", "axes": {"batch": [1, 2, 4, 8, 16, 32, 64, 128, 256],
                                                        "context": [8192, 32768, 131072], "k": [0, 2, 4], "alpha": [0.6, 0.8]}},
                           "wide", ())
    fig = plotters["generic"](df, ops, meta)
    arrange(fig)
    panels, (nrows, ncols) = _grid(fig)
    assert len(panels) == 3 and ncols < 3 and nrows * ncols >= 3
    assert round(fig.get_figwidth() * DPI) == PAGE_WIDTH_PX
    cells = [t for ax in panels for t in ax.texts if "\nk" in t.get_text()]
    assert cells and min(t.get_fontsize() for t in cells) >= 6.5  # points at 1:1 on the page: about 11 px tall
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in panels:  # each cell label inside its cell: the cells are wide enough for their numbers
        width = ax.get_window_extent(renderer).width / 9
        assert max(t.get_window_extent(renderer).width for t in ax.texts if "\nk" in t.get_text()) < width


def test_the_break_even_axis_starts_at_batch_1_and_ends_near_the_largest_batch_swept(plotters, results):
    """Its log axis ran from 0.5 to 32,768 on a sweep that ends at batch 4,096."""
    r = results["break-even-batch"]
    fig = plotters["break-even-batch"](r.df, r.ops, {**r.meta, "engine": ["ideal"]})
    from roofline.plots import arrange

    arrange(fig)
    fig.canvas.draw()
    top = r.df["batch"].max()
    for ax in _grid(fig)[0]:
        assert ax.get_ylim()[0] == 1
        ticks = [v for v in ax.get_yticks() if ax.get_ylim()[0] <= v <= ax.get_ylim()[1]]
        assert min(ticks) == 1 and max(ticks) <= top, ticks


def test_a_break_even_bar_that_pays_only_by_a_hair_says_its_speedup(plotters, results):
    """EAGLE at alpha 0.8 pays to >= 3415 on an H200 by 1.01x and stops at 172 on an MI300X at 0.99x: two bars 20x apart
    for a difference of 2% (qa80). A censored bar within TIE of 1 carries its speedup there; one that pays clearly does not."""
    from roofline.findings import TIE, break_even_table

    r = results["break-even-batch"]
    fig = plotters["break-even-batch"](r.df, r.ops, {**r.meta, "engine": ["ideal"]})
    marks = [t.get_text() for ax in fig.axes for t in ax.texts if t.get_text().endswith("×")]
    table = break_even_table(r.df)
    hair = table[table["censored"] & (table["speedup_at_largest_fitting_batch"] < TIE) & (table["break_even_batch"] >= 16)]
    # never '1.00×' (qa101), nor '1.03×' of a gain under TIE beside 'by less than 3%' (qa275: A100's 1.0283)
    assert len(hair) >= 1 and sorted(marks) == sorted(f"{g:.3f}×" if g < 1.005 or f"{g:.2f}" == f"{TIE:.2f}" else f"{g:.2f}×"
                                                      for g in hair["speedup_at_largest_fitting_batch"])
    assert "1.00×" not in marks and f"{TIE:.2f}×" not in marks
    assert any(f"{g:.2f}" == f"{TIE:.2f}" for g in hair["speedup_at_largest_fitting_batch"])  # the case is in this sweep
    assert "1.01×" in marks  # H200, EAGLE, alpha 0.8
    legend = " ".join(t.get_text() for lg in fig.legends for t in lg.get_texts())
    assert "by less than 3% there" in legend
    # qa188: the legend explained the tag on a figure whose bars carried none (every gain 1.5x: none by a hair)
    fig = plotters["break-even-batch"](r.df[r.df["engine"] == "ideal"].assign(speedup=r.df["speedup"] * 1.5), r.ops,
                                       {**r.meta, "engine": ["ideal"]})
    marks = [t.get_text() for ax in fig.axes for t in ax.texts if t.get_text().endswith("×")]
    legend = " ".join(t.get_text() for lg in fig.legends for t in lg.get_texts())
    assert marks == [] and "by less than" not in legend and "still pays at the largest" in legend


def test_the_draft_offload_figure_names_a_head_drafter_and_a_draft_model_by_their_display_names(plotters, tmp_path):
    """qa118: an EAGLE sweep was titled 'draft model , alpha = 0.8' with a micro-batch overlap a head drafter never
    has, and a draft model by its profile name (llama-3.2-1b) where every other figure says Llama 3.2 1B."""
    for method, said, unsaid in (("eagle", "Llama 3.1 70B target, EAGLE drafter, ", "overlapped"),
                                 ("draft\ndraft: llama-3.2-1b", "Llama 3.1 70B target, draft model Llama 3.2 1B, ", "draft model ,")):
        path = tmp_path / "draft-offload.yaml"
        path.write_text(f"name: draft-offload\nhardware: h100-sxm\nmodel: llama-3.1-70b\ntp: 4\nmethod: {method}\n"
                        "draft_hardware: [null, a10g]\naxes:\n  batch: [1, 8]\n  context: [2048]\n  k: [0, 2]\n  alpha: [0.8]\n")
        r = run_scenario(str(path))
        title = plotters["draft-offload"](r.df, r.ops, r.meta)._suptitle.get_text()
        assert said in title and unsaid not in title, title


def test_a_draft_offload_target_where_nothing_fits_is_said_not_a_traceback(plotters, tmp_path):
    """qa125: a 70B on 4 L4s (nothing fits) beside 4 H100s: the figure's empty log-scaled L4 panel was a traceback
    (exit 1, no report), and listed first it sent the finding to the generic one."""
    from roofline.findings import finding
    from roofline.plots import arrange

    path = tmp_path / "draft-offload.yaml"
    path.write_text("name: draft-offload\nhardware: [l4, h100-sxm]\nmodel: llama-3.1-70b\ntp: 4\nmethod: draft\n"
                    "draft: llama-3.2-1b\ndraft_hardware: [null, l40s]\naxes:\n  batch: [1, 8, 64]\n  context: [2048]\n"
                    "  k: [1, 4]\n  alpha: [0.8]\n")
    r = run_scenario(str(path))
    fig = plotters["draft-offload"](r.df, r.ops, r.meta)
    arrange(fig)
    fig.canvas.draw()
    assert [ax.get_title() for ax in fig.axes if ax.get_title()] == ["4 × H100 SXM5"]
    assert fig._suptitle.get_text().endswith("no drafter fits on 4 × L4")
    text = finding("draft-offload", r.df, r.ops, r.meta).text
    assert text.startswith("With α = 0.8, on 4 × H100 SXM5, ")  # its acceptance first (qa294)
    assert "On 4 × L4 nothing fits, plain decoding included, at any batch swept." in text


@pytest.mark.parametrize("name", REPORT_SCENARIOS)
def test_no_report_figures_footer_runs_into_a_panels_x_label(plotters, results, name):
    """qa125: batch-vs-speculation laid itself out (place_labels) before draw_figure added the footer, whose second
    line then ran into 'tokens/s per user'. As draw_figure draws it: the plotter, the footer, the log scales said, the
    layout. qa202: verify-mini-prefill's x label ran into the next panel's."""
    from roofline.plots import FOOTER_GID, arrange, footer, say_log_scales

    r = results[name]
    engine = main_engine(r.df)
    df, ops = r.df[r.df["engine"] == engine], r.ops[r.ops["engine"].astype(str) == engine]
    meta = {**r.meta, "engine": [engine]}
    fig = plotters[name](df, ops, meta)
    footer(fig, meta)
    say_log_scales(fig)
    arrange(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    (foot,) = [t.get_window_extent(renderer) for t in fig.texts if t.get_gid() == FOOTER_GID]
    labels = []
    for ax in fig.axes:
        if ax.get_visible() and ax.xaxis.label.get_text():
            label = ax.xaxis.label.get_window_extent(renderer)  # the footer wholly below it, whatever their x
            assert foot.y1 <= label.y0 + 0.5, (name, ax.xaxis.label.get_text(), foot, label)
            labels.append(label)
    titles = [ax.title.get_window_extent(renderer) for ax in fig.axes if ax.get_visible() and ax.get_title()]
    for boxes in (labels, titles):  # side by side
        assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:]), name


def test_the_batch_vs_speculation_figure_draws_what_its_finding_reads(plotters, tmp_path):
    """qa127: the figure's speculation line ran to 'B=2, k=0' (plain decoding where the drafter does not fit), and its
    batching line stopped at batch 1 where plain decoding fits batch 2, while the finding read them apart."""
    r, texts = _section_texts(plotters, tmp_path, "batch-vs-speculation",
                              "hardware: h200\nmodel: llama-3.1-70b\nweight_dtype: fp8\nmethod: draft\ndraft: llama-3.1-8b\n"
                              "axes:\n  batch: [1, 2, 4]\n  context: [65536]\n  k: [0, 1, 2]\n  alpha: [0.8]\n")
    plain = r.df[r.df["batch"] <= r.df["baseline_max_batch"]]["batch"].unique()
    assert not any("k=0" in t for t in texts), texts
    assert {f"B={b:g}" for b in plain} <= set(texts), texts


def test_the_batch_vs_speculation_figure_draws_each_context_s_points_on_its_own_lines(plotters, tmp_path):
    """qa129: the fastest k > 0 per batch over every context drew a 32k point (a larger speedup, fewer tokens/s) on the
    512-token line, against a plain line of 512's points."""
    from roofline.findings import fastest_drafting

    path = tmp_path / "batch-vs-speculation.yaml"
    path.write_text("name: batch-vs-speculation\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                    "axes: {batch: [1, 8, 64], context: [512, 32768], k: [0, 1, 2, 4], alpha: [0.8]}\n")
    r = run_scenario(str(path))
    ax = plotters["batch-vs-speculation"](r.df, r.ops, r.meta).axes[0]
    lines = {line.get_label(): line.get_ydata() for line in ax.lines if not line.get_label().startswith("_")}
    for context, said in ((512, "512"), (32768, "32k")):
        spec = fastest_drafting(r.df[r.df["context"] == context], ["batch"]).sort_values("batch")
        drawn = lines[f"with speculation (its fastest k > 0), α = 0.8, context {said}"]
        np.testing.assert_allclose(drawn, spec["tokens_per_s"].to_numpy())


def test_the_shared_prefix_figure_draws_speculation_where_it_loses_too(plotters, tmp_path):
    """qa129: its speculation line took the best-k rows of k > 0, so a batch where drafting loses (best k 0) was left
    out, where every other figure draws the fastest k > 0 that fits."""
    from roofline.findings import fastest_drafting

    path = tmp_path / "shared-prefix.yaml"
    path.write_text("name: shared-prefix\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\nshared_prefix: [0, 4096]\n"
                    "axes: {batch: [1, 16, 64], context: [8192], k: [0, 1, 2], alpha: [0.05]}\n")
    r = run_scenario(str(path))
    ax = plotters["shared-prefix"](r.df, r.ops, r.meta).axes[1]
    drawn = {line.get_label().split("\n")[0]: list(line.get_xdata()) for line in ax.lines}  # (a note under it: qa291)
    spec = fastest_drafting(r.df[r.df["shared_prefix_tokens"] == 4096], ["batch"])
    assert (spec["speedup"] < 1).any()  # a batch where drafting loses: drawn all the same
    assert drawn["4k shared, speculation (fastest k > 0)"] == sorted(spec["batch"])


def test_the_heatmap_of_a_tree_claims_no_better_k_beyond_its_depth(tmp_path):
    """qa130: a tree's cells read 'k≥4' under 'largest k swept, best may lie beyond', a tree's tau known at no other depth."""
    from roofline.plots import _plot_speedup_heatmap

    path = tmp_path / "tree.yaml"
    path.write_text("name: tree\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\ntree: {nodes: 24, tau: 3.2}\n"
                    "axes: {batch: [1, 8], context: [4096], k: [0, 4]}\n")
    r = run_scenario(str(path))
    fig = _plot_speedup_heatmap(r.df, r.ops, r.meta)
    texts = [t.get_text() for ax in fig.axes for t in ax.texts] + [fig._suptitle.get_text() if fig._suptitle else ""]
    assert not any("≥" in t or "beyond" in t for t in texts), texts
    assert "the tree's depth k" in texts[-1]


def test_the_flops_figure_keys_a_best_k_at_the_largest_swept_only_where_one_is_drawn(plotters, tmp_path):
    """qa130: 'best k = 8, the largest swept (may lie beyond)' stood in the legend of a figure whose best k was 3."""
    path = tmp_path / "flops-vs-time.yaml"
    path.write_text("name: flops-vs-time\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                    "acceptance: [0.8, 0.6, 0.4]\naxes: {batch: [1], context: [4096], k: [0, 1, 2, 3, 4, 5, 6, 7, 8]}\n")
    r = run_scenario(str(path))
    assert r.df.loc[r.df["k"] > 0, "best_k"].max() < 8
    fig = plotters["flops-vs-time"](r.df, r.ops, r.meta)
    labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert labels and not any("largest swept" in t for t in labels), labels


def test_the_flops_figure_of_a_sweep_of_several_methods_is_its_own_not_the_generic(tmp_path):
    """qa133: question_rows holds meta's method as a list; the figure looked it up as a dict key (TypeError), and the
    report drew the generic heatmap saying the question's figure needs other axes."""
    from roofline.findings import question_rows
    from roofline.report_figures import REPORT_PLOTTERS

    path = tmp_path / "flops-vs-time.yaml"
    path.write_text("name: flops-vs-time\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: [none, eagle]\n"
                    "axes: {batch: [1], context: [4096], k: [0, 1, 2, 4], alpha: [0.6, 0.9]}\n")
    r = run_scenario(str(path))
    df, ops, meta, _ = question_rows(r.name, r.df, r.ops, r.meta)
    fig = REPORT_PLOTTERS["flops-vs-time"](df, ops, meta)
    assert "EAGLE" in fig._suptitle.get_text()


def test_the_kv_caps_figure_draws_the_drafters_caps_and_speculations_points_whether_or_not_k_0_is_swept(plotters, tmp_path):
    """qa127: with k = 0 swept the left panel drew plain decoding's caps (the smallest k swept), and the right panel
    k = 0's 1.00x at a batch where the drafter did not fit."""
    drawn = {}
    for ks in ("0, 1, 2", "1, 2"):
        path = tmp_path / ks.replace(", ", "-") / "kv-caps-batch.yaml"
        path.parent.mkdir()
        path.write_text("name: kv-caps-batch\nhardware: h200\nmodel: llama-3.1-70b\nweight_dtype: fp8\nmethod: draft\n"
                        f"draft: llama-3.1-8b\naxes:\n  batch: [1, 2, 4]\n  context: [4096, 65536]\n  k: [{ks}]\n  alpha: [0.8]\n")
        r = run_scenario(str(path))
        fig = plotters["kv-caps-batch"](r.df, r.ops, r.meta)
        left, right = fig.axes[0], fig.axes[1]
        drawn[ks] = ([list(line.get_ydata()) for line in left.lines], [list(line.get_ydata()) for line in right.lines])
        # qa188: the finding leads with plain decoding's caps; the panel's are the drafter's, and its label says so
        assert left.get_ylabel() == "largest batch that fits\n(with the drafter at k = 1)"
    assert drawn["0, 1, 2"] == drawn["1, 2"]


def test_the_break_even_figure_of_a_sweep_of_two_contexts_draws_the_first(plotters, tmp_path):
    """qa127: two contexts gave each GPU two rows, 'cannot reindex on an axis with duplicate labels': the generic
    figure for a user's file, a traceback for a built-in of that shape."""
    path = tmp_path / "break-even-batch.yaml"
    path.write_text("name: break-even-batch\nhardware: [h100-sxm, h200]\nmodel: llama-3.1-8b\nmethod: eagle\nengine: ideal\n"
                    "axes:\n  batch: [1, 8, 64]\n  context: [4096, 32768]\n  k: [1, 2]\n  alpha: [0.8]\n")
    r = run_scenario(str(path))
    fig = plotters["break-even-batch"](r.df, r.ops, r.meta)
    assert "context 4k" in fig._suptitle.get_text()
    assert len([p for p in fig.axes[0].patches if p.get_height() > 0]) >= 2  # a bar a GPU


def test_the_generic_figure_of_several_methods_shows_the_one_its_finding_headlines(plotters, tmp_path):
    """qa188: the generic finding spoke of its largest speedup's method (n-gram lookup) while its heatmap, too many
    panels for both methods (4 devices x 2), showed the first method in table order (the draft model), titled 'draft
    model only'."""
    from roofline.findings import generic

    path = tmp_path / "two-methods.yaml"
    path.write_text("name: two-methods\nhardware: [h100-sxm, h200, a100-sxm-80gb, b200]\nmodel: llama-3.1-8b\nmethod: [draft, ngram]\n"
                    "draft: llama-3.2-1b\nengine: ideal\naxes:\n  batch: [1, 8, 64]\n  k: [2]\n  alpha: [0.6, 0.9]\n")
    r = run_scenario(str(path))
    text = generic(r.df, r.ops, r.meta).text
    top = r.df[r.df["fits_in_memory"] & (r.df["k"] > 0)].sort_values("speedup").iloc[-1]["method"]
    assert f"method {top}" in text and top != r.df["method"].iloc[0]  # the headline's method is not the table's first
    fig = plotters["generic"](r.df, r.ops, r.meta)
    title = fig._suptitle.get_text()
    assert {"ngram": "n-gram lookup only", "draft": "draft model only"}[top] in title, title


def test_the_shared_prefix_figure_reads_its_headline_context_and_says_how_the_engine_reads_the_prefix(plotters, tmp_path):
    """qa267: the bars took the smallest cap over every context under the first context's title, and the title said
    'read once per step' under vllm, whose cascade attention is opt-in (vllm-project/vllm PR 36318)."""
    from roofline.findings import question_rows

    scenario = ("name: shared-prefix\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\nengine: ENGINE\n"
                "shared_prefix: [0, 8192]\naxes: {batch: [1, 8, 64], context: [10240, 65536], k: [0, 2], alpha: [0.8]}\n")
    path = tmp_path / "shared-prefix.yaml"
    for engine, read in (("vllm", "read by each sequence"), ("ideal", "read once per step")):
        path.write_text(scenario.replace("ENGINE", engine))
        r = run_scenario(str(path))
        df, ops, meta, _ = question_rows(r.name, r.df, r.ops, r.meta)
        fig = plotters["shared-prefix"](df, ops, meta)
        assert f"stored once, {read}" in fig._suptitle.get_text(), fig._suptitle.get_text()
        first = df[df["context"] == 10240].groupby("shared_prefix_tokens")["baseline_max_batch"].min()
        bars = [round(p.get_height()) for p in fig.axes[0].patches]
        assert bars == [int(first[0]), int(first[8192])], (bars, first)  # the 10k context's caps, not the 64k's


def test_the_kv_caps_title_names_the_dtypes_its_answer_holds(plotters, tmp_path):
    """qa267: the title named both KV dtypes where the answer held each model's first, and gpt-oss's 'bf16 weights'
    without its fp4 experts."""
    from roofline.findings import question_rows

    path = tmp_path / "kv-caps-batch.yaml"
    path.write_text("name: kv-caps-batch\nhardware: h200\nmodel: [llama-3.1-70b, gpt-oss-120b]\n"
                    "method: {llama-3.1-70b: eagle, gpt-oss-120b: eagle}\nkv_dtype: [bf16, fp8]\ntp: 8\n"
                    "axes: {batch: [1, 16, 256], context: [4096, 32768], k: [1, 2], alpha: [0.8]}\n")
    r = run_scenario(str(path))
    df, ops, meta, note = question_rows(r.name, r.df, r.ops, r.meta)
    assert "kv dtype: each model's first where it fits in memory (of bf16, fp8)" in note and set(df["kv_dtype"]) == {"bf16"}
    assert note.startswith(" This question compares model;"), note  # what this sweep varies (expert dtype follows the model)
    title = plotters["kv-caps-batch"](df, ops, meta)._suptitle.get_text()
    assert "bf16 weights, fp4 experts (gpt-oss-120b), bf16 KV," in title, title  # qa467: whose experts
    assert "Max batch and speedup: GQA (Llama 3.1 70B); GQA with sliding-window layers (gpt-oss-120b) · " in title, title


def test_the_break_even_title_names_the_dtypes(plotters, results):
    """qa273: the sweep's figures named 'fp8 weights, fp8 experts, bf16 KV', the break-even figure no dtype at all."""
    from roofline.findings import question_rows

    r = results["break-even-batch"]
    df, ops, meta, _ = question_rows(r.name, r.df, r.ops, r.meta)
    title = plotters["break-even-batch"](df, ops, meta)._suptitle.get_text().replace("\n", " ")
    assert f" · {meta['weight_dtype'][0] if isinstance(meta['weight_dtype'], list) else meta['weight_dtype']} weights" in title
    assert " KV · engine " in title, title


@pytest.mark.parametrize("name", [n for n in REPORT_SCENARIOS if n != "prefill-not-sped-up"])  # its x axis is the prompt
def test_every_report_title_names_its_context_and_dtypes(plotters, results, name):
    """qa275: draft-offload's title named neither context nor dtypes, fast-tier's and batch-vs-speculation's no context,
    flops-vs-time's no dtype, where the other titles name them."""
    from roofline.findings import question_rows

    r = results[name]
    df, ops, meta, _ = question_rows(name, r.df, r.ops, r.meta)
    fig = plotters[name](df, ops, meta)
    said = (fig._suptitle.get_text() + " " + " ".join(ax.get_title() for ax in fig.axes)).replace("\n", " ").replace("\u00a0", " ")
    assert "context" in said and " weights" in said and " KV" in said, (name, said)


def test_report_figures_count_an_attention_dp_deployments_devices_and_give_its_layout(plotters, tmp_path):
    """qa280: DeepSeek-V3 at dp-attention 8, ep 8 on 8 H200s was labelled '1 GPU' (batch-vs-speculation's y axis) and
    '1 × H200 SXM' (draft-offload's panel), tp alone, and the draft-offload title did not give the layout; the KV-caps
    panel's lowest cap (18 sequences at 32k) sat under its lowest tick."""
    from roofline.plots import arrange

    common = "hardware: h200\nmodel: deepseek-v3\nmethod: mtp\ndp_attention: 8\nep: 8\n"
    path = tmp_path / "batch-vs-speculation.yaml"
    path.write_text("name: batch-vs-speculation\n" + common + "axes:\n  batch: [1, 8, 64]\n  context: [4096]\n  k: [0, 2]\n"
                    "  alpha: [0.8]\n")
    r = run_scenario(str(path))
    fig = plotters["batch-vs-speculation"](r.df, r.ops, r.meta)
    assert [ax.get_ylabel() for ax in fig.axes if ax.get_ylabel().startswith("tokens/s, all users")] \
        == ["tokens/s, all users (8 GPUs)"]
    assert "NVIDIA\u00a0H200\u00a0SXM" in fig._suptitle.get_text()  # qa281: a title wrapped inside a device's name
    path = tmp_path / "draft-offload.yaml"
    path.write_text("name: draft-offload\n" + common + "draft_hardware: [null, h200]\naxes:\n  batch: [8, 64]\n"
                    "  context: [4096]\n  k: [1, 2]\n  alpha: [0.8]\n")
    r = run_scenario(str(path))
    fig = plotters["draft-offload"](r.df, r.ops, r.meta)
    arrange(fig)
    assert [ax.get_title() for ax in fig.axes if ax.get_title()] == ["8 × H200 SXM"]
    assert "DP-attention\u00a08, EP\u00a08" in fig._suptitle.get_text()
    path = tmp_path / "kv-caps-batch.yaml"
    path.write_text("name: kv-caps-batch\nhardware: h200\nmodel: deepseek-v3\nmethod: mtp\ntp: 8\n"
                    "axes:\n  batch: [1, 4, 16]\n  context: [4096, 32768]\n  k: [1]\n  alpha: [0.8]\n")
    r = run_scenario(str(path))
    fig = plotters["kv-caps-batch"](r.df, r.ops, r.meta)
    caps_axis = next(ax for ax in fig.axes if ax.get_title() == "The KV cache caps the batch")
    lowest = r.df.loc[r.df["k"] == 1, "max_batch"].min()
    assert min(caps_axis.get_yticks()) <= lowest <= max(caps_axis.get_yticks())
    assert caps_axis.get_ylim()[0] <= min(caps_axis.get_yticks())
    # qa282: a cap of 0 (nothing fits on an L4 at 128k) is drawn at 0.5, and no tick reads 0.5; qa361: its row says 0
    path.write_text("name: kv-caps-batch\nhardware: [h200, l4]\nmodel: llama-3.1-8b\nmethod: eagle\n"
                    "axes:\n  batch: [1, 4]\n  context: [1024, 131072]\n  k: [1]\n  alpha: [0.8]\n")
    r = run_scenario(str(path))
    assert (r.df["max_batch"] == 0).any()
    fig = plotters["kv-caps-batch"](r.df, r.ops, r.meta)
    caps_axis = next(ax for ax in fig.axes if ax.get_title() == "The KV cache caps the batch")
    fig.canvas.draw()
    labels = [t.get_text() for t in caps_axis.get_yticklabels()]
    assert min(caps_axis.get_yticks()) == 0.5 and labels[0] == "0: none" and "0.5" not in labels, labels
    assert sorted(caps_axis.get_yticks())[1] == 1 and caps_axis.get_ylim()[0] < 0.5


def test_the_verify_figure_keys_its_faint_lines_and_names_no_method(plotters, results):
    """qa281: the verify-mini-prefill title said "faint: does not fit" with no legend entry for it, and named the
    sweep's method (n-gram lookup), on which the verify pass's cost does not depend."""
    r = results["verify-mini-prefill"]
    assert (~r.df["fits_in_memory"].astype(bool)).any() and r.meta["method"] == "ngram"  # faint lines are drawn
    fig = plotters["verify-mini-prefill"](r.df, r.ops, r.meta)
    labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert labels.count("pale: does not fit in\nmemory (timing only)") == 1
    title = fig._suptitle.get_text()
    assert "faint" not in title and "n-gram" not in title and "engine" in title.replace("\u00a0", " ")


def test_the_shared_prefix_figure_shades_the_batches_past_every_cap(plotters, results):
    """qa281: the throughput axis ran on to batch 512 past its last line (the largest cap, 198) without a word."""
    r = results["shared-prefix"]
    cap = int(r.df["baseline_max_batch"].max())
    assert cap < r.df["batch"].max()  # the sweep runs past every prefix's cap
    ax = plotters["shared-prefix"](r.df, r.ops, r.meta).axes[1]
    assert any("does not fit in memory" in t.get_text() and f"(batch > {cap:,})" in t.get_text() for t in ax.texts)
    assert len(ax.patches) == 1 and ax.patches[0].get_x() == cap  # the band from the cap on



def test_a_shared_prefix_line_under_no_sharings_says_so(plotters, results):
    """qa291: the 32k-shared lines lay under no sharing's to batch 8 (the same throughput: each sequence reads the
    prefix) and read as starting at batch 16."""
    r = results["shared-prefix"]
    ax = plotters["shared-prefix"](r.df, r.ops, r.meta).axes[1]
    labels = [line.get_label() for line in ax.lines]
    assert "32k shared, no speculation\n(hidden under no sharing's line to batch 8)" in labels, labels
    assert "32k shared, speculation (fastest k > 0)\n(hidden under no sharing's line to batch 8)" in labels
    assert not any("under" in label for label in labels if label.startswith("no sharing"))


def test_the_fast_tier_figure_says_no_engine_runs_a_draft_model_of_another_tokenizer(plotters, tmp_path):
    """qa331: its panels said 'the drafter fits at no point swept' of a draft model no engine runs (another vocabulary)."""
    _, texts = _section_texts(plotters, tmp_path, "fast-tier-premium",
                              "hardware: [h100-sxm, h200]\nmodel: llama-3.1-8b\nmethod: draft\ndraft: qwen3-0.6b\n"
                              "axes:\n  batch: [1, 8, 64]\n  context: [1024]\n  k: [2]\n  alpha: [0.7]\n")
    assert sum("no engine runs its draft\nmodel (another tokenizer)" in t for t in texts) == 2, texts
    assert not any("the drafter fits at" in t for t in texts), texts


@pytest.mark.slow
def test_the_flops_figure_draws_one_point_of_a_sweep_of_several_batches(plotters, tmp_path):
    """qa341: a flops-vs-time scenario over batch [1, 64] drew both batches as one zigzagging line against batch 1's plain
    decoding, the title saying batch 1 alone."""
    path = tmp_path / "flops-vs-time.yaml"
    path.write_text("name: flops-vs-time\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                    "axes: {batch: [1, 64], context: [1024], k: [0, 1, 2, 3], alpha: [0.6, 0.8]}\n")
    r = run_scenario(str(path))
    fig = plotters["flops-vs-time"](r.df, r.ops, r.meta)
    lines = [line for line in fig.axes[1].lines if line.get_label().startswith("α")]
    assert len(lines) == 2 and all(len(line.get_xdata()) == 4 for line in lines)  # one point a k, each alpha
    b1 = r.df[(r.df["batch"] == 1) & (r.df["alpha"] == 0.6)].sort_values("k")
    expected = (b1["bytes_per_token"] / b1["bytes_per_token"].iloc[0]).to_numpy()
    assert np.allclose(lines[0].get_ydata(), expected)
    assert "the table's first point: batch 1 (of 2 swept)" in fig._suptitle.get_text()


def test_a_generic_heatmap_of_narrow_panels_keeps_each_wide_enough_for_its_axis_labels(tmp_path):
    """qa349: four heatmaps of three batches each sat in one row, their x labels run into each other; a panel is at
    least 3 inches wide (two a row on the page), and no two panels' x labels overlap once drawn."""
    from roofline.plots import arrange
    from roofline.report import run_scenario
    from roofline.report_figures import REPORT_PLOTTERS

    path = tmp_path / "four.yaml"
    path.write_text("name: four\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: [eagle, ngram]\nshared_prefix: [0, 512]\n"
                    "axes:\n  batch: [1, 16, 64]\n  context: [2048]\n  k: [0, 2]\n")
    r = run_scenario(str(path), echo=False)
    fig = REPORT_PLOTTERS["generic"](r.df, r.ops, r.meta)
    arrange(fig)
    panels = [ax for ax in fig.axes if ax.get_subplotspec() is not None and ax.get_visible()]
    assert len(panels) == 4 and panels[0].get_subplotspec().get_gridspec().get_geometry() == (2, 2)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [ax.xaxis.label.get_window_extent(renderer) for ax in panels]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


@pytest.mark.slow
def test_the_shared_prefix_figure_says_an_engine_without_prefix_caching_stores_it_in_each_sequence(tmp_path):
    """qa349: 'Shared prefix: stored once' over vLLM V0, which stores it per sequence (qa350: untested)."""
    from roofline.report import run_scenario
    from roofline.report_figures import REPORT_PLOTTERS

    titles = {}
    for engine in ("vllm", "vllm-v0"):
        path = tmp_path / f"{engine}.yaml"
        path.write_text(f"name: sp\nquestion: shared-prefix\nhardware: h100-sxm\nmodel: llama-3.1-8b\nengine: {engine}\n"
                        "method: eagle\nshared_prefix: [0, 2048]\naxes:\n  batch: [16, 64]\n  context: [4096]\n  k: [0, 3]\n"
                        "  alpha: [0.8]\n")
        r = run_scenario(str(path), echo=False)
        titles[engine] = REPORT_PLOTTERS["shared-prefix"](r.df, r.ops, r.meta)._suptitle.get_text()
    assert titles["vllm"].startswith("Shared prefix: stored once, read by each sequence")
    assert titles["vllm-v0"].startswith("Shared prefix: stored by each sequence (no prefix caching), read by each sequence")



def test_an_unrefined_break_even_bar_says_it_is_a_lower_bound(plotters, tmp_path):
    """qa360: the finding said 'at least 64' where the sweep was too large to refine; its bar read a plain 64."""
    path = tmp_path / "bewide.yaml"
    path.write_text("name: bewide\nquestion: break-even-batch\nhardware: h100-sxm\nmodel: llama-3.1-8b\nengine: ideal\n"
                    "method: eagle\naxes:\n  batch: [1, 8, 64, 2048]\n  context: [128]\n  k: [0, 1, 2, 3, 4, 5]\n"
                    "  alpha: [0.6, 0.62, 0.64, 0.66, 0.68, 0.7, 0.72, 0.74, 0.76, 0.78]\n")
    r = run_scenario(str(path))
    assert r.meta["break_even_refined"] is False
    fig = plotters["break-even-batch"](r.df, r.ops, r.meta)
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert "≥64" in texts and "64" not in texts, texts
    labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert any(label.startswith("≥: a lower bound (the largest") for label in labels), labels


def test_the_generic_figure_draws_the_layout_and_dtypes_of_the_findings_headline(plotters):
    """qa371: the finding headlined 3.15x at tp 8 ep 8; the figure, keeping one of six layouts, drew tp 8 alone
    (2.92x in its cell): the headline's layout and dtypes are drawn first now."""
    from roofline.report import _sweep

    df, ops, meta = _sweep({"name": "lay", "hardware": ["h100-sxm", "h200"], "model": "qwen3-30b-a3b",
                            "method": "eagle", "weight_dtype": ["bf16", "fp8"],
                            "layouts": [{"tp": 4}, {"tp": 4, "ep": 4}, {"dp_attention": 4, "ep": 4}],
                            "axes": {"batch": [1, 8, 32, 128], "k": [0, 2, 4], "alpha": [0.6, 0.8]}}, "lay", ())
    drafting = df[df["fits_in_memory"].astype(bool) & (df["k"] > 0)]
    top = drafting.loc[drafting["speedup"].idxmax()]
    layouts = list(dict.fromkeys(zip(df["tp"], df["dp_attention"], df["ep"])))
    headline = (top["tp"], top["dp_attention"], top["ep"])
    assert headline != layouts[0], (headline, layouts)  # the case: the headline's layout is not the first swept
    fig = plotters["generic"](df, ops, meta)
    drawn = [t.get_text() for ax in fig.axes for t in ax.texts if "\nk" in t.get_text()]
    assert f"{top['speedup']:.2f}" in {c.split()[0] for c in drawn}, (top["speedup"], drawn[:8])
    title = fig._suptitle.get_text().replace("\n", " ")
    assert f"EP {int(top['ep'])}" in title and f"TP {int(top['tp'])}" in title, title


def test_the_shared_prefix_figure_marks_each_end_the_finding_computed_between_the_swept_batches(plotters, tmp_path):
    """qa391: the figure drew the swept batches 8 and 128 while the finding quoted 1.40x at 12 and 189, the largest that
    fit, computed; each such end is a star at its batch and throughput, said in the legend, and none where none is."""
    from roofline.findings import question_rows, shared_prefix_headline
    from roofline.frontier import fastest_at_largest_fit

    r = run_scenario("shared-prefix")
    df, ops, meta, _ = question_rows("shared-prefix", r.df, r.ops, r.meta)
    ends = {int(p): fastest_at_largest_fit(g, meta) for p, g in shared_prefix_headline(df).groupby("shared_prefix_tokens")}
    assert all(end["computed_now"] for end in ends.values())  # the shipped scenario: both ends between swept batches
    ax = plotters["shared-prefix"](df, ops, {**meta, "shared_prefix_at_largest_fit": ends}).axes[1]
    stars = {line.get_label().split(":")[0]: (line.get_xdata()[0], line.get_ydata()[0]) for line in ax.lines
             if line.get_marker() == "*"}
    assert stars == {"no sharing": (ends[0]["batch"], ends[0]["tokens_per_s"]),
                     "32k shared": (ends[32768]["batch"], ends[32768]["tokens_per_s"])}
    ax = plotters["shared-prefix"](df, ops, meta).axes[1]  # without the finding's ends (a plain `plot`): no star
    assert not [line for line in ax.lines if line.get_marker() == "*"]
