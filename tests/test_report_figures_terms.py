"""What each report figure draws (report_figures.py), checked against its table, found by mutation testing (qa472)."""

import warnings

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # imports matplotlib and draws report figures


def _run(body: str, tmp_path, name: str):
    from roofline.report import run_scenario

    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\n{body}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_scenario(str(path), echo=False)


def _plot(name, r):
    from roofline.report_figures import REPORT_PLOTTERS

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return REPORT_PLOTTERS[name](r.df, r.ops, r.meta)


def test_the_verify_figure_draws_each_pass_over_a_decode_step_solid_where_it_fits_pale_where_not(tmp_path):
    """Its lines are verify_time_s / step_time_s against q = k + 1 (a pass of q tokens over a decode step), solid where
    the row fits in memory and pale where it does not, with the +10% line (findings.TOLERANCE 1.10) said as '+10%'."""
    from roofline.findings import TOLERANCE

    r = _run("hardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: ngram\nengine: ideal\n"
             "axes:\n  batch: [1, 512]\n  context: [32768]\n  k: [0, 1, 3, 7, 15]\n  alpha: [0.8]\n", tmp_path, "verify-mini-prefill")
    fits = r.df["fits_in_memory"].astype(bool)
    assert fits.any() and (~fits).any()  # batch 512 at 32k does not fit one H100
    fig = _plot("verify-mini-prefill", r)
    ax = fig.axes[0]
    want = {}
    for batch, g in r.df.sort_values("k").groupby("batch"):
        ratio = (g["verify_time_s"] / g["step_time_s"]).to_numpy()
        want[batch] = (list(g["k"] + 1), np.where(g["fits_in_memory"].astype(bool), ratio, np.nan),
                       np.where(g["fits_in_memory"].astype(bool), np.nan, ratio))
    solid = [line for line in ax.lines if ", batch " in line.get_label()]
    pale = [line for line in ax.lines if line.get_alpha() == 0.3 and line.get_label().startswith("_")]
    assert len(solid) == 2 and len(pale) == 1  # batch 512 alone has rows that do not fit
    for line, batch in zip(solid, (1, 512)):
        assert line.get_label().endswith(f"batch {batch}")
        assert list(line.get_xdata()) == want[batch][0]
        np.testing.assert_allclose(np.asarray(line.get_ydata(), dtype=float), want[batch][1])
    np.testing.assert_allclose(np.asarray(pale[0].get_ydata(), dtype=float), want[512][2])
    assert TOLERANCE == 1.10 and any(t.get_text() == "+10% over a decode step" for t in ax.texts)
    assert any(list(line.get_ydata()) == [TOLERANCE, TOLERANCE] for line in ax.lines)  # the axhline


def test_the_flops_figure_draws_each_ratio_to_plain_decoding(tmp_path):
    """Its three panels: FLOPs and bytes per generated token over plain decoding's (k = 0), and time per generated token,
    1 / speedup; at k = 0 each is 1."""
    r = _run("hardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
             "axes:\n  batch: [1]\n  context: [4096]\n  k: [0, 1, 2, 4]\n  alpha: [0.6, 0.9]\n", tmp_path, "flops-vs-time")
    fig = _plot("flops-vs-time", r)
    for alpha, i in ((0.6, 0), (0.9, 1)):
        g = r.df[np.isclose(r.df["alpha"], alpha)].sort_values("k")
        base = g[g["k"] == 0].iloc[0]
        for ax, want in zip(fig.axes[:3], (g["flops_per_token"] / base["flops_per_token"],
                                           g["bytes_per_token"] / base["bytes_per_token"], 1.0 / g["speedup"])):
            line = [x for x in ax.lines if x.get_label().startswith("α")][i]
            assert line.get_label() == f"α = {alpha:g}"
            np.testing.assert_allclose(line.get_ydata(), want.to_numpy())
            assert line.get_ydata()[0] == pytest.approx(1.0)
    assert (r.df.loc[r.df["k"] > 0, "speedup"] > 1).all() and (r.df.loc[r.df["k"] > 0, "flops_per_token"]
                                                                > r.df.loc[r.df["k"] == 0, "flops_per_token"].iloc[0]).all()


def test_the_flops_figure_marks_a_best_k_at_the_edge_with_its_own_marker_and_says_more_time_where_none_pays(tmp_path):
    """The time panel marks each alpha's best k: a star where it lies inside the swept k, a triangle where it is the
    largest swept (it may lie beyond); the title says 'less time' where some k pays (speedup >= 1), 'more' where none."""
    r = _run("hardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
             "axes:\n  batch: [1]\n  context: [4096]\n  k: [0, 1, 2, 8]\n  alpha: [0.3, 0.95]\n", tmp_path, "flops-vs-time")
    best = r.df[r.df["k"] > 0].groupby("alpha")["best_k"].first()
    assert best[0.3] < 8 and best[0.95] == 8  # the case: one best k inside, one at the edge
    fig = _plot("flops-vs-time", r)
    marks = {int(line.get_xdata()[0]): line.get_marker() for line in fig.axes[2].lines
             if line.get_marker() in ("*", "^") and len(line.get_xdata())}
    assert marks == {int(best[0.3]): "*", 8: "^"}, marks
    assert fig._suptitle.get_text().startswith("More compute, less time")
    r = _run("hardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
             "axes:\n  batch: [512]\n  context: [512]\n  k: [0, 2, 4]\n  alpha: [0.05]\n", tmp_path, "flops-vs-time")
    assert (r.df.loc[r.df["k"] > 0, "speedup"] < 1).all()  # speculation loses at every k
    assert _plot("flops-vs-time", r)._suptitle.get_text().startswith("More compute, more time")


def test_the_break_even_bars_are_the_smallest_contexts_break_even_batches_and_never_stands_at_1(tmp_path):
    """Each bar is a GPU's break_even_batch at the smallest context (as the title and the finding's first sentence read
    it), drawn from batch 1 up: a bar where speculation never pays stands at 1 and says 'never'."""
    from roofline.findings import break_even_table

    r = _run("hardware: [h100-sxm, h200]\nmodel: llama-3.1-8b\nmethod: eagle\nengine: ideal\n"
             "axes:\n  batch: [1, 8, 64, 512]\n  context: [512, 65536]\n  k: [1, 2]\n  alpha: [0.02, 0.8]\n",
             tmp_path, "break-even-batch")
    table = break_even_table(r.df)
    small, large = (table[table["context"] == c] for c in (512, 65536))
    fig = _plot("break-even-batch", r)
    for ax, alpha in zip(fig.axes, (0.02, 0.8)):
        bars = sorted(p.get_height() for p in ax.patches if p.get_height() > 0)
        want = sorted(np.maximum(small.loc[np.isclose(small["alpha"], alpha), "break_even_batch"].to_numpy(dtype=float), 1.0))
        assert bars == pytest.approx(want), (alpha, bars, want)
        other = sorted(np.maximum(large.loc[np.isclose(large["alpha"], alpha), "break_even_batch"].to_numpy(dtype=float), 1.0))
        if alpha == 0.8:
            assert other != want  # the case: the larger context's bars differ
        else:
            assert want == [1.0, 1.0] and [t.get_text() for t in ax.texts].count("never") == 2


def test_a_break_even_bar_where_no_swept_batch_fits_says_never_and_a_short_bar_carries_no_gain_tag(tmp_path):
    """A GPU where no swept batch fits but smaller ones do (max_batch 13 at 32k) and speculation pays at none of them
    (alpha 0.02: tau 1.02 against a pass that costs more) reads 'never', not 'no fit'; a bar that still pays at the
    sweep's last batch 8 by a hair (1.01x) is too short (under batch 16) to carry its gain: no tag, no legend line."""
    from roofline.findings import break_even_table

    r = _run("hardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\nengine: ideal\n"
             "axes:\n  batch: [64, 512]\n  context: [32768]\n  k: [1]\n  alpha: [0.02]\n", tmp_path, "break-even-batch")
    t = break_even_table(r.df).iloc[0]
    assert t["break_even_batch"] == 0 and np.isnan(t["largest_fitting_batch"]) and t["max_batch"] >= 1
    texts = [x.get_text() for ax in _plot("break-even-batch", r).axes for x in ax.texts]
    assert texts == ["never"], texts
    r = _run("hardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\nengine: ideal\n"
             "axes:\n  batch: [1, 4, 8]\n  context: [512]\n  k: [1]\n  alpha: [0.12]\n", tmp_path, "break-even-batch")
    t = break_even_table(r.df).iloc[0]
    assert t["censored"] and t["break_even_batch"] == 8 and 1 < t["speedup_at_largest_fitting_batch"] < 1.03
    fig = _plot("break-even-batch", r)
    assert [x.get_text() for ax in fig.axes for x in ax.texts] == ["≥8"]
    assert "by less than" not in " ".join(t.get_text() for lg in fig.legends for t in lg.get_texts())


def test_the_break_even_title_says_a_tree_is_read_at_its_depth_and_the_tallest_label_has_room(tmp_path):
    """A tree's break-even is at its one depth ('(at the tree's depth)'), a chain's at the best k per batch; the axis runs
    past the largest swept batch so the tallest bar's label (drawn above it) lies inside the panel."""
    r = _run("hardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\nengine: ideal\ntree: {nodes: 24, tau: 3.2}\n"
             "axes:\n  batch: [1, 8, 64]\n  context: [512]\n  k: [4]\n", tmp_path, "break-even-batch")
    fig = _plot("break-even-batch", r)
    assert "still pays (at the tree's depth)\n" in fig._suptitle.get_text()
    ax = fig.axes[0]
    # a bar as tall as the largest swept batch, 64, has its label at 1.08 x 64 and the text above it: an octave's room
    assert ax.get_ylim()[1] >= 2 * 1.08 * r.df["batch"].max(), ax.get_ylim()
    r = _run("hardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\nengine: ideal\n"
             "axes:\n  batch: [1, 8, 64]\n  context: [512]\n  k: [1, 2]\n  alpha: [0.8]\n", tmp_path, "break-even-batch")
    assert "still pays (best k per batch)\n" in _plot("break-even-batch", r)._suptitle.get_text()


def test_the_break_even_ticks_give_each_gpus_derated_ridge_point_as_predict_does(tmp_path):
    """Each GPU's tick reads its derated ridge point (FLOP/B), the GPUs ordered by it, as predict gives it."""
    import re

    import roofline

    r = _run("hardware: [h200, a100-sxm-80gb, h100-sxm]\nmodel: llama-3.1-8b\nmethod: eagle\nengine: ideal\n"
             "axes:\n  batch: [1, 8, 64]\n  context: [512]\n  k: [1, 2]\n  alpha: [0.8]\n", tmp_path, "break-even-batch")
    ax = _plot("break-even-batch", r).axes[0]
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    said = [float(re.search(r"ridge ([0-9,]+)$", t)[1].replace(",", "")) for t in ticks]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = {hw: roofline.predict(hw, "llama-3.1-8b", 1, context=512, engine="ideal")["derated_ridge_point_flops_per_byte"]
                for hw in ("h200", "a100-sxm-80gb", "h100-sxm")}
    assert said == sorted(said) and sorted(said) == pytest.approx(sorted(round(v) for v in want.values()), abs=0.51), (ticks, want)


def test_the_batch_vs_speculation_dotted_lines_are_batchings_fastest_user_and_best_throughput(tmp_path):
    """'dotted: batching's best throughput and fastest user': the vertical line at plain decoding's per-user speed at
    batch 1 (its fastest user), the horizontal at its largest throughput over the batches that fit."""
    import roofline

    r = _run("hardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
             "axes:\n  batch: [1, 8, 64]\n  context: [2048]\n  k: [0, 2]\n  alpha: [0.8]\n", tmp_path, "batch-vs-speculation")
    ax = _plot("batch-vs-speculation", r).axes[0]
    dotted = [line for line in ax.lines if line.get_linestyle() == ":" and line.get_color() == "0.5"]
    vertical = [line for line in dotted if line.get_xdata()[0] == line.get_xdata()[1]]
    horizontal = [line for line in dotted if line.get_ydata()[0] == line.get_ydata()[1]]
    assert len(vertical) == len(horizontal) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = roofline.predict("h100-sxm", "llama-3.1-8b", 1, context=2048)
    assert vertical[0].get_xdata()[0] == pytest.approx(one["tokens_per_s_per_user"], rel=1e-9)
    assert horizontal[0].get_ydata()[0] >= r.df["baseline_tokens_per_s"].max()


def test_the_batch_vs_speculation_figure_counts_one_gpu_and_says_batches_left_out(tmp_path):
    """One device is '1 GPU', not '1 GPUs'; a batch that does not fit is left out and the title says so, and a sweep
    where every batch fits says nothing of it."""
    body = ("hardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
            "axes:\n  batch: [1, 8, BIG]\n  context: [32768]\n  k: [0, 2]\n  alpha: [0.8]\n")
    r = _run(body.replace("BIG", "4096"), tmp_path, "batch-vs-speculation")
    assert not r.df["fits_in_memory"].astype(bool).all()  # 4,096 sequences of 32k do not fit one H100
    fig = _plot("batch-vs-speculation", r)
    assert fig.axes[0].get_ylabel() == "tokens/s, all users (1 GPU)"
    assert " · batches that do not fit left out" in fig._suptitle.get_text()
    r = _run(body.replace("BIG", "9").replace("32768", "512"), tmp_path, "batch-vs-speculation")
    assert r.df["fits_in_memory"].astype(bool).all()
    assert "do not fit" not in _plot("batch-vs-speculation", r)._suptitle.get_text()


def test_the_kv_caps_figure_reads_speedups_at_the_longest_context_and_names_no_drafter_for_ngram(tmp_path):
    """The right panel: speculation's speedup at its fastest k > 0 at the longest context swept (as the finding's first
    sentence reads it), titled with it; n-gram lookup holds no drafter, so the caps' axis names none."""
    from roofline.findings import fastest_drafting

    r = _run("hardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
             "axes:\n  batch: [1, 4, 16]\n  context: [1024, 32768]\n  k: [1, 2]\n  alpha: [0.8]\n", tmp_path, "kv-caps-batch")
    fig = _plot("kv-caps-batch", r)
    right = fig.axes[1]
    assert right.get_title().startswith("Speedup at context 32k")
    want = fastest_drafting(r.df[r.df["context"] == 32768], ["hardware", "model", "batch"]).sort_values("batch")
    (line,) = [x for x in right.lines if len(x.get_xdata()) and x.get_linestyle() != ":"]
    np.testing.assert_allclose(line.get_ydata(), want["speedup"].to_numpy())
    r = _run("hardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: ngram\n"
             "axes:\n  batch: [1, 4, 16]\n  context: [1024, 32768]\n  k: [1, 2]\n  alpha: [0.8]\n", tmp_path, "kv-caps-batch")
    assert _plot("kv-caps-batch", r).axes[0].get_ylabel() == "largest batch that fits"


def test_the_shared_prefix_figure_stars_only_ends_computed_now_and_says_their_k(tmp_path):
    """A star marks an end the finding computed between the swept batches (computed_now), not one at a swept batch; its
    legend says the end's k, or 'no speculation' where the best there is plain decoding (k = 0)."""
    from roofline.findings import question_rows, shared_prefix_headline
    from roofline.frontier import fastest_at_largest_fit

    r = _run("hardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\nshared_prefix: [0, 8192]\n"
             "axes:\n  batch: [1, 8]\n  context: [10240]\n  k: [0, 2]\n  alpha: [0.8]\n", tmp_path, "shared-prefix")
    df, ops, meta, _ = question_rows("shared-prefix", r.df, r.ops, r.meta)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ends = {int(p): fastest_at_largest_fit(g, meta) for p, g in shared_prefix_headline(df).groupby("shared_prefix_tokens")}
    assert all(e["computed_now"] for e in ends.values()) and all(e["k"] == 2 for e in ends.values())
    ends = {0: {**ends[0], "computed_now": False}, 8192: {**ends[8192], "k": 0}}
    from roofline.report_figures import REPORT_PLOTTERS

    ax = REPORT_PLOTTERS["shared-prefix"](df, ops, {**meta, "shared_prefix_at_largest_fit": ends}).axes[1]
    stars = [line.get_label() for line in ax.lines if line.get_marker() == "*"]
    assert len(stars) == 1 and stars[0].startswith(f"8k shared: best at batch {ends[8192]['batch']:,}, the largest that fits")
    assert stars[0].endswith("quotes it; no speculation)"), stars


def test_the_draft_offload_figure_keeps_the_draft_models_colour_on_the_target_and_says_a_placement_that_never_fits(tmp_path):
    """Co-located drafting is drawn in the draft model's colour (METHOD_COLORS['draft'], as every other figure's draft;
    qa234), other placements in tab10 from green; a placement where no drafting k fits at any batch says so."""
    from matplotlib import colormaps

    from roofline.report_figures import METHOD_COLORS

    r = _run("hardware: h100-sxm\nmodel: llama-3.1-70b\ntp: 4\nmethod: draft\ndraft: llama-3.1-8b\n"
             "draft_hardware: [null, a10g]\naxes:\n  batch: [8, 16]\n  context: [32768]\n  k: [1, 2]\n  alpha: [0.8]\n",
             tmp_path, "draft-offload")
    fits = r.df[r.df["fits_in_memory"].astype(bool)]
    assert set(fits["draft_placement"]) == {"co-located"}  # the 8B drafter's 32k KV does not fit an A10G at batch 8
    ax = _plot("draft-offload", r).axes[0]
    lines = {line.get_label(): line for line in ax.lines if not line.get_label().startswith("_")}
    assert set(lines) == {"draft co-located on the target GPUs", "draft on A10G (no drafting k fits)"}, set(lines)
    assert lines["draft co-located on the target GPUs"].get_color() == METHOD_COLORS["draft"]
    assert lines["draft on A10G (no drafting k fits)"].get_color() == colormaps["tab10"](2)


def test_the_fast_tier_figure_draws_plain_decodings_cost_frontier_the_tier_speeds_and_the_price(tmp_path):
    """Each panel: plain decoding's cost frontier (no point drawn that another plain point beats on both speed and
    cost), red lines at 1x, 2x and 3x the cheapest tier's per-user speed (findings.TIER_SPEEDS), and the device-hour
    price it is priced at in the title (H100 SXM5's profile: $3.00)."""
    from roofline.findings import TIER_SPEEDS, tier_prices

    r = _run("hardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
             "axes:\n  batch: [1, 2, 8, 64, 256]\n  context: [2048]\n  k: [0, 3]\n  alpha: [0.8]\n", tmp_path, "fast-tier-premium")
    fig = _plot("fast-tier-premium", r)
    ax = fig.axes[0]
    assert ax.get_title() == "NVIDIA H100 SXM5 80GB\n$3.00 a device-hour"
    (plain,) = [line for line in ax.lines if line.get_label() == "no speculation"]
    points = r.df[(r.df["k"] == 0) & r.df["fits_in_memory"].astype(bool)]
    every = list(zip(points["baseline_tokens_per_s_per_user"], points["baseline_cost_usd_per_million_tokens"]))
    drawn = list(zip(plain.get_xdata(), plain.get_ydata()))
    beaten = [(x, y) for x, y in every if any(u >= x and c <= y and (u, c) != (x, y) for u, c in every)]
    assert drawn and not set(drawn) & set(beaten) and set(drawn) | set(beaten) == set(every), (drawn, beaten)
    u0 = float(tier_prices(r.df, meta=r.meta).loc["h100-sxm", "base_tokens_per_s_per_user"])
    red = sorted(line.get_xdata()[0] for line in ax.lines if line.get_color() == "firebrick")
    assert TIER_SPEEDS == (2.0, 3.0) and red == pytest.approx([u0, 2 * u0, 3 * u0])
    assert sorted(t.get_text() for t in ax.texts if t.get_text().endswith("speed")) == ["1× speed", "2× speed", "3× speed"]


def test_the_prefill_figure_adds_prefill_drafter_prefill_and_decoding_of_256_tokens_at_the_fastest_k(tmp_path):
    """Each prompt's two bars: plain decoding's ttft_s + 256 / baseline_tokens_per_s_per_user, and speculation's at its
    fastest k (the largest speedup) ttft_s + draft_ttft_s + 256 / tokens_per_s_per_user, each total written beside it
    (findings.ANSWER_TOKENS = 256)."""
    from roofline.findings import ANSWER_TOKENS

    r = _run("hardware: h100-sxm\nmodel: llama-3.1-70b\ntp: 4\nmethod: draft\ndraft: llama-3.2-1b\n"
             "axes:\n  batch: [1]\n  context: [512, 8192]\n  k: [0, 1, 4]\n  alpha: [0.8]\n", tmp_path, "prefill-not-sped-up")
    spec = r.df[r.df["k"] > 0]
    k = int(spec.sort_values("speedup").iloc[-1]["k"])
    assert ANSWER_TOKENS == 256 and k == 4 and (spec.groupby("context")["speedup"].idxmax().map(r.df["k"]) == 4).all()
    fig = _plot("prefill-not-sped-up", r)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["prompt 512, no speculation", "prompt 512, k = 4", "prompt 8k, no speculation", "prompt 8k, k = 4"]
    totals = [t.get_text() for t in ax.texts]
    want = []
    for c in (512, 8192):
        row = r.df[(r.df["context"] == c) & (r.df["k"] == k)].iloc[0]
        want += [row["ttft_s"] + 256 / row["baseline_tokens_per_s_per_user"],
                 row["ttft_s"] + row["draft_ttft_s"] + 256 / row["tokens_per_s_per_user"]]
        assert row["draft_ttft_s"] > 0
    assert totals == [f" {w:.2f} s" for w in want], (totals, want)
    widths = [p.get_width() for p in ax.patches]  # three parts a bar: prefill, drafter's prefill, decoding
    row = r.df[(r.df["context"] == 512) & (r.df["k"] == k)].iloc[0]
    assert widths[:6] == pytest.approx([row["ttft_s"], 0.0, 256 / row["baseline_tokens_per_s_per_user"],
                                        row["ttft_s"], row["draft_ttft_s"], 256 / row["tokens_per_s_per_user"]])


def test_the_prefill_figure_draws_the_findings_batch(tmp_path):
    """qa135/qa137: the figure draws the finding's point (findings.prefill_point: the fastest drafting row at the
    longest prompt), here batch 8 of [1, 8], not the table's first rows."""
    from roofline.findings import prefill_point

    r = _run("hardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
             "axes:\n  batch: [1, 8]\n  context: [2048, 8192]\n  k: [0, 3]\n  alpha: [0.8]\n", tmp_path, "prefill-not-sped-up")
    point = prefill_point(r.df)
    assert int(point["batch"]) == 8  # the case: not the first batch
    fig = _plot("prefill-not-sped-up", r)
    assert ", batch 8, α = 0.8" in fig._suptitle.get_text()
    want = []
    for c in (2048, 8192):
        row = r.df[(r.df["context"] == c) & (r.df["k"] == 3) & (r.df["batch"] == 8)].iloc[0]
        want += [row["ttft_s"] + 256 / row["baseline_tokens_per_s_per_user"],
                 row["ttft_s"] + row["draft_ttft_s"] + 256 / row["tokens_per_s_per_user"]]
    assert [t.get_text() for t in fig.axes[0].texts] == [f" {w:.2f} s" for w in want]


def test_speculations_line_takes_its_methods_colour(tmp_path):
    """One colour a method in every section (qa231): an EAGLE sweep's speculation line is METHOD_COLORS['eagle'],
    plain decoding's black."""
    from roofline.report_figures import METHOD_COLORS

    r = _run("hardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
             "axes:\n  batch: [1, 8]\n  context: [2048]\n  k: [0, 2]\n  alpha: [0.8]\n", tmp_path, "batch-vs-speculation")
    ax = _plot("batch-vs-speculation", r).axes[0]
    colours = {line.get_label().split(",")[0]: line.get_color() for line in ax.lines if not line.get_label().startswith("_")}
    assert colours["with speculation (its fastest k > 0)"] == METHOD_COLORS["eagle"] != "tab:blue"
    assert colours["growing the batch alone"] == "k"


def test_the_kv_caps_legend_names_each_models_method_and_the_draft_offload_title_a_draft_models_overlap(tmp_path):
    """The caps' legend: 'model (method), device'; a draft model's offload is overlapped over two micro-batches where that
    pays, which the title says (a head drafter's never is: qa118)."""
    r = _run("hardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
             "axes:\n  batch: [1, 4]\n  context: [1024, 8192]\n  k: [1, 2]\n  alpha: [0.8]\n", tmp_path, "kv-caps-batch")
    fig = _plot("kv-caps-batch", r)
    labels = [t.get_text() for lg in fig.legends for t in lg.get_texts()]
    assert labels == ["Llama 3.1 8B (EAGLE), H100 SXM5"], labels
    r = _run("hardware: h100-sxm\nmodel: llama-3.1-70b\ntp: 4\nmethod: draft\ndraft: llama-3.2-1b\n"
             "draft_hardware: [null, a10g]\naxes:\n  batch: [1, 8]\n  context: [2048]\n  k: [1, 2]\n  alpha: [0.8]\n",
             tmp_path, "draft-offload")
    title = _plot("draft-offload", r)._suptitle.get_text()
    assert title.startswith("Draft on cheaper hardware: drafting elsewhere plus a transfer (overlapped over two\n"
                            "micro-batches where that pays), against drafting on the target; "), title


def test_the_prefill_figure_names_the_drafters_own_prefill_by_its_method():
    """qa219: an MTP module's prefill was said 'draft model's': each method's drafter by its name, several by none."""
    import pandas as pd

    from roofline.report_figures import _drafter_prefill_label

    def label(*methods):
        return _drafter_prefill_label(pd.DataFrame({"k": [0] + [2] * len(methods), "method": ["none", *methods]}))

    assert label("draft") == "draft model's own prefill" and label("mtp") == "MTP module's own prefill"
    assert label("eagle") == "EAGLE head's own prefill" and label("eagle", "mtp") == "drafter's own prefill"
    assert label("ngram") == "drafter's own prefill"
