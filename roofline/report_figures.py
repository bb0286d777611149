"""The report's figures, one per question (roofline.report): each draws what its finding (roofline.findings)
states, from the same results table; points that do not fit in device memory are left out or drawn faint, and
the title says which. Drawn like the standard plots (roofline.plots): Agg canvas, the library's STYLE,
`plot_jobs.FigurePool` in parallel; a job's name is `report:QUESTION` (`plot_jobs.report_job`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

from roofline.layout import layouts_of_rows
from roofline.plot_jobs import drafting_rows
from roofline.plots import (
    DPI,
    LABEL_HALO,
    METHOD_LABELS,
    NBSP,
    _alpha_colors,
    _alpha_label,
    _balanced_fill,
    _ctx,
    _devices,
    _frontier,
    _layout_label,
    _log2_axis,
    _log_axis,
    _name,
    _plot_speedup_heatmap,
    _plot_step_time,
    _plot_throughput,
    _setup_line,
    _shade_memory_limit,
    _shared_legend,
    dtypes_text,
    engine_label,
    footer,
    place_labels,
)
from roofline.report import PAGE_WIDTH_PX
from roofline.speculation import pays
from roofline.units import format_usd_per_hour

# Each draws what its finding (roofline.findings) states, from the same table; points that do not fit in
# device memory are left out or drawn faint, and the title says which.

def _short_hw(meta: dict, name: str) -> str:
    from roofline.findings import _hw

    return _hw(meta, name)


FIG_WIDTH_IN = PAGE_WIDTH_PX / DPI  # every report figure as wide as the page shows it (saved at DPI): its text at the size drawn


def _columns(n: int, min_panel_in: float, legend_in: float) -> int:
    """How many of `n` panels sit side by side on the page: as many as leave each at least `min_panel_in` wide beside
    a legend (or colour bar) of `legend_in`; the rest wrap into rows."""
    return max(1, min(n, int((FIG_WIDTH_IN - legend_in) // min_panel_in)))


AXIS_LABEL_PT = 9.0  # plots.STYLE's axes.labelsize
CHAR_WIDTH_EM = 0.55  # a character's mean width in DejaVu Sans, in ems (wrapping wide text by count, as plots' titles)
Y_LABEL_IN = 0.9  # what a panel's y label and tick labels take of its slot's width


def _axis_label_chars(n: int, min_panel_in: float, legend_in: float) -> int:
    """Characters of an x axis label that fit under one of `n` panels laid out as _plain_figure lays them out: its
    slot's width less the y label and ticks (qa485: 'GPU, by derated ridge point of the routed experts' fp8 GEMMs
    (FLOP/B)' ran into the next panel's and past the page's left edge)."""
    slot_in = (FIG_WIDTH_IN - legend_in) / _columns(n, min_panel_in, legend_in)
    return max(16, int((slot_in - Y_LABEL_IN) * 72 / (CHAR_WIDTH_EM * AXIS_LABEL_PT)))


def _drafter_prefill_label(fit) -> str:
    """The drafter's own prefill, named as the rows' method runs it (qa219: an MTP module's said 'draft model's')."""
    methods = set(fit.loc[fit["k"] > 0, "method"].astype(str)) if "method" in fit else set()
    own = {"draft": "draft model's", "mtp": "MTP module's", "eagle": "EAGLE head's"}
    return f"{own[methods.pop()]} own prefill" if len(methods) == 1 and methods <= set(own) else "drafter's own prefill"


def _plain_figure(n: int, min_panel_in: float = 3.0, height: float = 3.4, legend_in: float = 0.0, **kw) -> tuple[Figure, list]:
    """A figure of the page's width with `n` panels of `height` inches (`_columns` side by side, wrapped into rows; the
    slots left over hidden), laid out by roofline.plots.arrange: the figure and its n panels, row by row."""
    ncols = _columns(n, min_panel_in, legend_in)
    nrows = math.ceil(n / ncols)
    fig = Figure(figsize=(FIG_WIDTH_IN, height * nrows + 0.9), dpi=DPI)
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False, **kw).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, list(axes[:n])


def _to_page(fig: Figure, min_panel_in: float, legend_in: float) -> Figure:
    """A figure drawn by roofline.plots (its panels side by side, `plots._figure`'s width) re-gridded to the page's
    width: `_columns` panels a row, each as tall as before, their titles re-wrapped to the new width."""
    from roofline.plots import _balanced_fill, _raw_title, _set_panel_title

    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_subplotspec() is not None]
    if not panels:
        return fig
    for ax in [ax for ax in fig.axes if not ax.get_visible() and ax.get_subplotspec() is not None]:
        fig.delaxes(ax)  # plots._figure's spare slots
    nrows_drawn = panels[0].get_subplotspec().get_gridspec().get_geometry()[0]
    height = (fig.get_figheight() - 0.8) / nrows_drawn  # plots._figure: height x rows + 0.8
    ncols = _columns(len(panels), min_panel_in, legend_in)
    nrows = math.ceil(len(panels) / ncols)
    fig.set_size_inches(FIG_WIDTH_IN, height * nrows + 0.8)
    grid = fig.add_gridspec(nrows, ncols)
    shared_y = len(panels[0].get_shared_y_axes().get_siblings(panels[0])) > 1
    for i, ax in enumerate(panels):
        ax.set_subplotspec(grid[i // ncols, i % ncols])
        if shared_y:  # a shared y axis is labelled in the first column only
            ax.tick_params(axis="y", labelleft=ax.get_subplotspec().is_first_col())
    for ax in panels:
        _set_panel_title(ax, _raw_title(ax))  # its own lines, wrapped anew
    if fig._suptitle is not None:  # its lines re-balanced to the new width, as plots._title wraps them
        chars = max(40, int(FIG_WIDTH_IN * 10.5))
        fig._suptitle.set_text("\n".join(_balanced_fill(line, chars) for line in fig._suptitle.get_text().split("\n")))
    return fig


HW_COLORS = colormaps["tab10"]


def _hw_color(names: list[str]) -> dict:
    return {h: HW_COLORS(i % 10) for i, h in enumerate(names)}


def _report_verify(df: pd.DataFrame, ops, meta: dict) -> Figure:
    from roofline.findings import TOLERANCE

    d = df.assign(q=df["k"] + 1, ratio=df["verify_time_s"] / df["step_time_s"])
    models, contexts = list(dict.fromkeys(d["model"])), sorted(d["context"].unique())
    hws, batches = list(dict.fromkeys(d["hardware"])), sorted(d["batch"].unique())
    fig, axes = _plain_figure(len(models) * len(contexts), min_panel_in=3.2, height=3.2, legend_in=1.9, sharey=True)
    color, styles = _hw_color(hws), ["-", "--", ":", "-."]
    faint = False
    for ax, (model, context) in zip(axes, itertools.product(models, contexts)):
        for hw, (b, batch) in itertools.product(hws, enumerate(batches)):
            g = d[(d["model"] == model) & (d["context"] == context) & (d["hardware"] == hw) & (d["batch"] == batch)].sort_values("q")
            fits = g["fits_in_memory"].astype(bool)
            ax.plot(g["q"], g["ratio"].where(fits), styles[b % 4], color=color[hw], lw=1.6,
                    label=f"{_short_hw(meta, hw)}, batch {batch:g}")
            if (~fits).any():
                ax.plot(g["q"], g["ratio"].where(~fits), styles[b % 4], color=color[hw], lw=1.0, alpha=0.3)
                faint = True
        ax.axhline(TOLERANCE, color="firebrick", lw=0.9, ls="--")
        ax.annotate(f"+{(TOLERANCE - 1) * 100:.0f}% over a decode step", (0.02, TOLERANCE), xycoords=("axes fraction", "data"),
                    xytext=(0, 3), textcoords="offset points", fontsize=7, color="firebrick")
        _log2_axis(ax, [1, 2, 4, 8, 16, 32, 64][: int(np.log2(d["q"].max())) + 1])
        ax.set_yscale("log")
        ax.set_ylim(0.97, max(2.2, min(float(d["ratio"].max()) * 1.1, 8)))
        ax.yaxis.set_major_locator(FixedLocator([1, 1.1, 1.25, 1.5, 2, 3, 4, 6, 8]))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}×"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_title(f"{_name(meta, 'model', model)}, context {_ctx(context)}")
        ax.set_xlabel("q = k + 1 (tokens per sequence)")  # (qa202: a longer label ran into the next panel's)
        ax.set_ylabel("pass time / decode step time" if ax.get_subplotspec().is_first_col() else "")  # sharey
    if faint:  # a legend entry of its own (qa281: the title's "faint" had none)
        for ax in axes:
            ax.plot([], [], "-", color="0.45", lw=1.0, alpha=0.3, label="pale: does not fit in\nmemory (timing only)")
    _shared_legend(fig, axes)
    # the verify pass's cost depends on no drafter: the sweep's method (its n-gram lookup, drafting nothing on the GPU) unsaid
    fig.suptitle("Verify pass of q tokens per sequence against a decode step (q = 1): near-flat at small batch, rising with "
                 "each token's activations before compute binds\n" + _setup_line(meta, [], with_method=False).lstrip(" ·"))
    return fig


def _report_flops(df: pd.DataFrame, ops, meta: dict) -> Figure:
    from roofline.findings import alpha_values, same_alpha

    d = _fits_only(df)
    # one point (device, model, batch, context): the finding's, the table's first (qa341: two swept batches drawn as one
    # line against the first batch's plain decoding, the title saying that batch alone)
    point = ["hardware", "model", "batch", "context"]
    first = d[point].iloc[0]
    held = [f"{c} {_ctx(first[c]) if c == 'context' else f'{first[c]:g}'} (of {d[c].nunique()} swept)"
            for c in ("batch", "context") if d[c].nunique() > 1]
    d = d[(d[point] == first).all(axis=1)]
    base = d[d["k"] == 0].set_index("alpha")
    alphas = alpha_values(d["alpha"])
    color = _alpha_colors(alphas)
    fig, axes = _plain_figure(3, min_panel_in=2.6, height=3.0, legend_in=1.3, sharex=True)
    series = (("FLOPs per generated token", lambda g, b: g["flops_per_token"] / b["flops_per_token"]),
              ("bytes per generated token", lambda g, b: g["bytes_per_token"] / b["bytes_per_token"]),
              ("time per generated token", lambda g, b: 1.0 / g["speedup"]))
    ks = sorted(d["k"].unique())
    k_max = max(ks)
    at_edge = False  # a best k at the largest swept: its own marker and legend entry
    for ax, (label, ratio) in zip(axes, series):
        for a in alphas:
            g = d[same_alpha(d["alpha"], a)].sort_values("k")
            y = ratio(g, base[same_alpha(base.index.to_series(), a)].iloc[0])
            ax.plot(g["k"], y, "o-", color=color[a], ms=3.5, lw=1.5, label=_alpha_label(a, meta))
            if label.startswith("time"):
                b = g[g["k"] == g["best_k"]]
                yb = ratio(b, base[same_alpha(base.index.to_series(), a)].iloc[0])
                ax.plot(b["k"], yb, "*" if int(b["k"].iloc[0]) < k_max else "^", color=color[a], ms=11, mec="k", mew=0.7)
                at_edge |= int(b["k"].iloc[0]) >= k_max
        ax.axhline(1.0, color="k", lw=0.8, ls=":")
        ax.set_xticks(ks)
        ax.set_xlabel("draft length k (tokens)")
        ax.set_ylabel(f"{label}\n(× plain decoding)")
        ax.set_title(label)
    axes[2].plot([], [], "*", color="0.6", mec="k", ms=11, ls="", label="best k")
    if at_edge:  # qa130: in the legend of a figure with no such marker
        axes[2].plot([], [], "^", color="0.6", mec="k", ms=9, ls="", label=f"best k = {k_max}, the\nlargest swept (may\nlie beyond)")
    _shared_legend(fig, [axes[2]])
    hw, model = d["hardware"].iloc[0], d["model"].iloc[0]
    drafting = d.loc[d["k"] > 0, "method"].astype(str)  # the rows' own (qa133: meta's a list, held by question_rows)
    method = drafting.iloc[0] if len(drafting) else ""
    pays_somewhere = bool(pays(d.loc[d["k"] > 0, "speedup"]).any())  # qa219: 'less time' over a sweep where none pays
    fig.suptitle(f"More compute, {'less' if pays_somewhere else 'more'} time: per generated token, against plain decoding (k = 0)\n"
                 f"{_name(meta, 'model', model)} on {_name(meta, 'hardware', hw)}, batch {d['batch'].iloc[0]:g}, context "
                 f"{_ctx(d['context'].iloc[0])}, {METHOD_LABELS.get(method, method)} · {dtypes_text(meta, [model])} · {engine_label(meta)}"
                 + (f"\nthe table's first point: {', '.join(held)}" if held else ""))
    return fig


# each drafting method's colour in the report's figures, whichever methods a section compares (Set2 by method)
METHOD_COLORS = {m: colormaps["Set2"](i) for i, m in enumerate(("eagle", "draft", "ngram", "mtp", "medusa"))}


def _spec_color(df: pd.DataFrame):
    """The speculative line's colour: its method's (METHOD_COLORS) where the rows draft with one, else tab:blue."""
    methods = set(df["method"].astype(str)) - {"none"} if "method" in df else set()
    return METHOD_COLORS.get(methods.pop(), "tab:blue") if len(methods) == 1 else "tab:blue"


def _report_break_even(df: pd.DataFrame, ops, meta: dict) -> Figure:
    from roofline.findings import TIE, alpha_values, break_even_table, ridge_named, ridge_points, same_alpha

    table = break_even_table(df)
    table = table[table["context"] == table["context"].min()]  # the smallest context, as the finding's first sentence
    # and the title read it (qa127: two contexts gave each GPU two rows, a reindex error, the generic figure)
    ridge = ridge_points(ops).sort_values()
    hws = [h for h in ridge.index if h in set(table["hardware"])]
    methods = list(dict.fromkeys(table["method"]))
    alphas = alpha_values(table["alpha"])  # NaN: per-position rates or a tree, a panel of its own
    # each GPU's bars and label need about 0.6 inch: panels of many GPUs stack in rows
    panel_in = max(3.0, 0.6 * len(hws) + 1.0)
    fig, axes = _plain_figure(len(alphas), min_panel_in=panel_in, height=2.4, legend_in=1.6, sharey=True)
    xlabel = _balanced_fill(f"GPU, by derated ridge point{ridge_named(ops)} (FLOP/B)",
                            _axis_label_chars(len(alphas), panel_in, 1.6))
    mcolor = {m: METHOD_COLORS.get(m, colormaps["Set2"](7)) for m in methods}  # one colour a method in every section (qa231)
    width = 0.8 / len(methods)
    top = max(float(table["largest_batch"].max()), 2.0)
    label_octaves = 3.0  # the axis runs this many octaves above the largest swept batch: room for a bar's label over it,
    #   about half an octave a character of a 2.4-inch panel's rotated 6-point text (qa485: '≥4096' crossed the frame)
    tied = False  # a bar tagged with its gain at the largest batch (a tie: under TIE): said in the legend only then
    for ax, a in zip(axes, alphas):
        for i, m in enumerate(methods):
            t = table[same_alpha(table["alpha"], a) & (table["method"] == m)].set_index("hardware").reindex(hws)
            x = np.arange(len(hws)) + (i - (len(methods) - 1) / 2) * width
            heights = t["break_even_batch"].to_numpy(dtype=float)
            pays_below = (t["break_even_batch"] > 0).to_numpy()  # no swept batch fits, smaller ones do and pay
            censored = (t["censored"].fillna(False) & (t["largest_fitting_batch"].notna() | pays_below)).to_numpy(dtype=bool)
            if meta.get("break_even_refined") is False:  # the largest swept batch that pays, not refined: a lower bound
                censored = censored | pays_below  # (qa360: 'at least 64' in the finding, a plain 64 on its bar)
            drafted_by = f" ({_name(meta, 'model', meta['draft'])})" if m == "draft" and meta.get("draft") else ""  # the bars it applies to
            bars = ax.bar(x, np.maximum(heights, 1.0), width * 0.92, color=mcolor[m], edgecolor="k", lw=0.5)
            ax.bar([0], [0], color=mcolor[m], edgecolor="k", lw=0.5, label=METHOD_LABELS.get(m, m) + drafted_by)  # legend:
            # the method's colour alone (its first bar may carry the hatch that means "still pays at the largest batch")
            fits_none = t["largest_fitting_batch"].isna().to_numpy() & (t["break_even_batch"] == 0).to_numpy()
            end = t["speedup_at_largest_fitting_batch"].to_numpy(dtype=float)
            caps = t["max_batch"].to_numpy(dtype=float)
            for bar, h, cens, none, gain, cap in zip(bars, heights, censored, fits_none, end, caps):
                if cens:
                    bar.set_hatch("///")
                if cens and np.isfinite(gain) and gain < TIE and h >= 16:  # still pays, by a hair: a tie's height, not a gain's
                    # '1.00×' under 'still pays' read as no gain (qa101); '1.03×' of 1.0283 beside 'by less than 3%' (qa275)
                    shown = f"{gain:.3f}×" if gain < 1.005 or f"{gain:.2f}" == f"{TIE:.2f}" else f"{gain:.2f}×"
                    ax.text(bar.get_x() + bar.get_width() / 2, h / 1.3, shown, ha="center", va="top", fontsize=5.5,
                            rotation=90, bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none"})
                    tied = True
                text = "no fit" if none else "never" if h < 1 else (f"≥{h:g}" if cens else f"{h:g}")
                if none and cap >= 1:  # no swept batch fits, smaller ones do and do not pay
                    text = "never"
                if max(h, 1.0) >= top / 2:  # a label over one of the tallest bars
                    label_octaves = max(label_octaves, 1.0 + 0.5 * len(text))
                ax.text(bar.get_x() + bar.get_width() / 2, max(h, 1.0) * 1.08, text, ha="center", va="bottom", fontsize=6,
                        rotation=90)
        ax.set_yscale("log", base=2)
    for ax, a in zip(axes, alphas):  # (the labels of every panel measured first: the panels share y)
        ax.set_ylim(1, top * 2.0 ** label_octaves)  # batch 1 up; above the largest swept (no tick there), the tallest
        # bar's label
        octaves = int(np.log2(top))
        ax.yaxis.set_major_locator(FixedLocator(2.0 ** np.arange(0, octaves + 1, 1 if octaves <= 8 else 2)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xticks(range(len(hws)), [f"{_short_hw(meta, h)}\nridge {ridge[h]:,.0f}" for h in hws], fontsize=7)
        ax.set_title(_alpha_label(a, meta))
        ax.set_xlabel(xlabel)
        ax.set_ylabel("break-even batch\n(speedup ≥ 1 up to it)")
        ax.grid(axis="x", visible=False)
    axes[-1].bar([0], [0], color="white", edgecolor="k", hatch="///", label=("≥: a lower bound (the largest\nswept batch "
                 "that pays, not refined)" if meta.get("break_even_refined") is False else "≥: still pays at the largest\n"
                 "batch that fits or was swept")
                 + (f"\n(a gain on the bar, 1.01×:\nby less than {TIE - 1:.0%} there)" if tied else ""))  # qa188: said with no such bar
    _shared_legend(fig, [axes[-1]])
    limited = table["memory_limited"].astype(bool)
    head = ("Free until memory runs out" if len(limited) and limited.all() else "Free until compute-bound"
            if not limited.any() else "Free until compute-bound or memory runs out")  # as its bars end (qa380: the
    # section's heading said memory, the title compute-bound over bars ending on both)
    fig.suptitle(f"{head}: the largest batch at which speculation still pays "
                 + ("(at the tree's depth)\n" if meta.get("tree_nodes") else "(best k per batch)\n")
                 + f"{', '.join(_name(meta, 'model', m) for m in dict.fromkeys(df['model']))}, context {_ctx(df['context'].min())}"
                 + "".join(f" · {_layout_label(v)}" for v in (meta.get("layouts") or [])[:1] if len(meta["layouts"]) == 1)
                 + f" · {dtypes_text(meta, list(dict.fromkeys(df['model'])))}"  # qa273: the sweep's figures said them, this not
                 + f" · {engine_label(meta)}")  # the layout the rows hold (qa231: 'no fit' at TP 2 read as no fit at all)
    return fig


def _report_batch_vs_spec(df: pd.DataFrame, ops, meta: dict) -> Figure:
    from roofline.findings import fastest_drafting, plain_fits, with_plain_at_largest_fit

    fit = _fits_only(df)
    fig, axes = _plain_figure(1, height=4.6, legend_in=1.8)
    ax = axes[0]
    # as the finding reads them (qa127): plain decoding at every batch its own cap fits, speculation at the fastest
    # k > 0 that fits (a k = 0 row where the drafter does not fit is plain decoding, not speculation's point)
    # one pair of lines per context, each point of one context (qa129: the fastest k > 0 per batch over every context
    # drew a 32k point beside 512's), batch labels on the smallest context's
    contexts = sorted(df["context"].unique())
    plain = df[plain_fits(df)]
    alpha = _alpha_label(fit["alpha"].iloc[0], meta)
    labels = []
    for i, c in enumerate(contexts):
        base = plain[plain["context"] == c].drop_duplicates("batch").sort_values("batch")
        spec = fastest_drafting(df[df["context"] == c], ["batch"]).sort_values("batch")
        one = len(contexts) == 1
        at = "" if one else f", context {_ctx(c)}"
        plain_color, spec_color = ("k", _spec_color(df)) if one else (colormaps["tab10"](2 * i % 10),) * 2
        ax.plot(base["baseline_tokens_per_s_per_user"], base["baseline_tokens_per_s"], "s--", color=plain_color, ms=4, lw=1.6,
                label=f"growing the batch alone{at}" + ("" if len(spec) else " (no drafter fits at any batch)"))
        if len(spec):  # qa133: a legend entry for a line of no point
            ax.plot(spec["tokens_per_s_per_user"], spec["tokens_per_s"], "o-", color=spec_color, ms=4, lw=1.8,
                    label=f"with speculation (its fastest k > 0), {alpha}{at}")
        if i == 0:
            labels += [(ax, r.baseline_tokens_per_s_per_user, r.baseline_tokens_per_s, f"B={r.batch:g}") for r in base.itertuples()]
            labels += [(ax, r.tokens_per_s_per_user, r.tokens_per_s, f"B={r.batch:g}, k={r.k:g}") for r in spec.itertuples()]
    # batching alone's best where memory ends it, computed now past the swept batches as the finding quotes it (qa459:
    # the dotted line drew the swept 512's 9,156 tokens/s under a text quoting batch 855's 9,346)
    point = ["context", "batch"] + (["alpha"] if "alpha" in plain else [])
    grown = with_plain_at_largest_fit(plain.drop_duplicates(point), meta)
    now = grown[grown["computed_now"].astype(bool)] if "computed_now" in grown else grown.iloc[:0]
    said = False  # one legend entry for the stars
    for i, c in enumerate(contexts):
        for r in now[now["context"] == c].drop_duplicates("batch").itertuples():
            color = "k" if len(contexts) == 1 else colormaps["tab10"](2 * i % 10)
            ax.plot([r.baseline_tokens_per_s_per_user], [r.baseline_tokens_per_s], "*", color=color, ms=10, mec="black",
                    mew=0.6, zorder=4, label=None if said else "growing the batch alone: the largest batch that fits\n"
                                                               "(computed now, as the finding quotes it)")
            said = True
            if i == 0:
                labels.append((ax, r.baseline_tokens_per_s_per_user, r.baseline_tokens_per_s, f"B={r.batch:g}"))
    ax.axhline(grown["baseline_tokens_per_s"].max(), color="0.5", lw=0.8, ls=":")
    ax.axvline(plain["baseline_tokens_per_s_per_user"].max(), color="0.5", lw=0.8, ls=":")
    ax.margins(0.15)
    _log_axis(ax, "x")
    _log_axis(ax, "y")
    ax.set_xlabel("tokens/s per user")
    devices = _devices(df, meta, df["hardware"].iloc[0])
    ax.set_ylabel(f"tokens/s, all users ({devices} GPU{'s' if devices > 1 else ''})")
    _shared_legend(fig, [ax])
    dropped = (~df["fits_in_memory"].astype(bool)).any()
    fig.suptitle("Few users against many: throughput against per-user speed, batch B growing along each line\n"
                 + _setup_line(meta, list(dict.fromkeys(df["model"]))) + f" · {_name(meta, 'hardware', df['hardware'].iloc[0]).replace(' ', NBSP)}"
                 + (f" · context {_ctx(contexts[0])}" if len(contexts) == 1 else "")  # qa275: as the other titles
                 + (" · batches that do not fit left out" if dropped else "") + "\ndotted: batching's best throughput and fastest user"
                 + (f" · batch labels at context {_ctx(contexts[0])}" if len(contexts) > 1 else ""))
    footer(fig, meta)  # before the layout place_labels freezes (qa125: added after it, it ran into the x label)
    place_labels(fig, labels)
    return fig


def _report_kv_caps(df: pd.DataFrame, ops, meta: dict) -> Figure:
    from roofline.findings import fastest_drafting

    models, hws = list(dict.fromkeys(df["model"])), list(dict.fromkeys(df["hardware"]))
    mcolor = {m: colormaps["tab10"](i) for i, m in enumerate(models)}
    styles = {h: ["-", "--", ":", "-."][i % 4] for i, h in enumerate(hws)}  # (qa472: a fifth device's KeyError)
    fig, axes = _plain_figure(2, min_panel_in=3.2, height=3.6, legend_in=2.2)
    ax0, ax1 = axes
    # as the finding reads them (qa127): the caps with the drafter at the smallest k that drafts, speculation's speedup at
    # its fastest k > 0 that fits (best_k picked k = 0, plain decoding's 1.00x, where the drafter did not fit)
    drafting_k = df.loc[df["k"] > 0, "k"]
    k_caps = drafting_k.min() if len(drafting_k) else df["k"].min()
    caps = df[df["k"] == k_caps].groupby(["hardware", "model", "context"])["max_batch"].min().reset_index()
    c_hi = df["context"].max()
    fit = fastest_drafting(df[df["context"] == c_hi], ["hardware", "model", "batch"])
    hcolor = {h: colormaps["tab10"](i % 10) for i, h in enumerate(hws)}  # one model: a colour a device (qa472: five
    for h, m in itertools.product(hws, models):  # devices, four line styles, two lines alike)
        method = df.loc[df["model"] == m, "method"].iloc[0]
        g = caps[(caps["hardware"] == h) & (caps["model"] == m)].sort_values("context")
        label = f"{_name(meta, 'model', m)} ({METHOD_LABELS.get(method, method)}), {_short_hw(meta, h)}"
        colour = hcolor[h] if len(models) == 1 else mcolor[m]
        ax0.plot(g["context"], g["max_batch"].clip(lower=0.5), "o" + styles[h], color=colour, ms=4, lw=1.5, label=label)
        s = fit[(fit["hardware"] == h) & (fit["model"] == m)].drop_duplicates("batch").sort_values("batch")
        ax1.plot(s["batch"], s["speedup"], "o" + styles[h], color=colour, ms=4, lw=1.5)
    _log2_axis(ax0, sorted(df["context"].unique()))
    ax0.xaxis.set_major_formatter(FuncFormatter(lambda v, _: _ctx(v)))
    ax0.set_yscale("log", base=2)
    drawn = caps["max_batch"].clip(lower=0.5)  # a tick at or below the lowest cap (qa280: 18 sat under the lowest, 32)
    if len(drawn):
        lo, hi = math.floor(math.log2(drawn.min())), math.ceil(math.log2(drawn.max()))
        ticks = max(lo, 0)  # a tick from 1 up: no cap reads 0.5 (a cap of 0, nothing fits, is drawn there; qa282)
        values = 2.0 ** np.arange(ticks, max(hi, ticks) + 1, 1 if hi - ticks <= 8 else 2)
        if (caps["max_batch"] < 1).any():  # that row labelled as what it is (qa361: zeros below the lowest tick, unsaid)
            values = np.concatenate([[0.5], values])
        ax0.set_yticks(values)
        ax0.set_ylim(2.0 ** lo / 1.15, 2.0 ** max(hi, ticks) * 1.15)
    ax0.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "0: none" if v == 0.5 else f"{v:g}"))
    ax0.yaxis.set_minor_formatter(NullFormatter())
    ax0.set_xlabel("context (tokens)")
    drafters = set(df.loc[df["k"] > 0, "method"].astype(str)) - {"none", "ngram"}  # n-gram lookup holds no drafter
    # qa188: the finding leads with plain decoding's caps, and these are the drafter's (said, as the finding says it)
    ax0.set_ylabel("largest batch that fits" + (f"\n(with the drafter at k = {k_caps:g})" if k_caps > 0 and drafters else ""))
    ax0.set_title("The KV cache caps the batch")
    _log2_axis(ax1, sorted(fit["batch"].unique()))
    ax1.axhline(1.0, color="k", lw=0.8, ls=":")
    ax1.set_xlabel("batch size B (sequences)")  # (qa202: with "lines end where memory does" it ran into ax0's label)
    ax1.set_ylabel("speedup at its fastest k > 0 (×)")
    ax1.set_title(f"Speedup at context {_ctx(c_hi)}, up to the cap\n(lines end where memory does)")
    _shared_legend(fig, [ax0])
    kinds = meta.get("attention_kind") or {}
    by_kind: dict[str, list[str]] = {}
    for m in dict.fromkeys(df["model"].astype(str)):
        if kinds.get(m):
            by_kind.setdefault(kinds[m], []).append(_name(meta, "model", m))
    shown = (next(iter(by_kind), "") if len(by_kind) <= 1 else  # each kind its models where they differ (qa467)
             "; ".join(f"{kind} ({', '.join(names)})" for kind, names in by_kind.items()))
    layout = " / ".join(_layout_label(v) for v in meta.get("layouts") or layouts_of_rows(df)) or "TP 1"
    fig.suptitle(f"Max batch and speedup{': ' + shown if shown else ''} · {layout}, "
                 f"{dtypes_text(meta, models)}, {_alpha_label(df['alpha'].iloc[0], meta)} · {engine_label(meta)}")
    return fig


def _covered_note(mine: pd.Series, theirs: pd.Series) -> str:
    """'\n(hidden under no sharing's line to batch 8)' where series `mine` (by batch) equals `theirs`, drawn over it, at some batches."""
    under = [int(b) for b in mine.index.intersection(theirs.index) if np.isclose(mine[b], theirs[b], rtol=1e-9)]
    return f"\n(hidden under no sharing's line to batch {max(under):,})" if under else ""  # (qa391: "under no sharing's" read as cryptic)


def _report_shared_prefix(df: pd.DataFrame, ops, meta: dict) -> Figure:
    from roofline.findings import fastest_drafting, plain_fits, prefix_cached, prefix_read_once, shared_prefix_headline

    df = shared_prefix_headline(df)  # qa267: the bars took every context's smallest cap under the first one's title
    prefixes = sorted(df["shared_prefix_tokens"].unique())
    fig, axes = _plain_figure(2, min_panel_in=3.0, height=3.6, legend_in=1.8, width_ratios=[1, 1.7])  # room for a batch tick each
    ax0, ax1 = axes
    color = {p: (["0.3", "tab:orange", "tab:blue", "tab:green"][i] if i < 4 else colormaps["tab10"](i))  # (qa472: a
             for i, p in enumerate(prefixes)}  # fifth prefix's KeyError)
    caps = df.groupby("shared_prefix_tokens")["baseline_max_batch"].min()  # plain decoding's cap, as the finding says
    context = int(df["context"].iloc[0])
    names = [("no sharing" if p == 0 else f"{_ctx(p)} shared") for p in prefixes]
    bars = ax0.bar(range(len(prefixes)), [caps[p] for p in prefixes], color=[color[p] for p in prefixes])
    for bar, p in zip(bars, prefixes):
        ax0.text(bar.get_x() + bar.get_width() / 2, bar.get_height(), f"{caps[p]:,}", ha="center", va="bottom", fontsize=8)
    ax0.set_xticks(range(len(prefixes)), names)
    ax0.set_ylabel("largest batch that fits")
    ax0.set_title(f"Batch that fits, {_ctx(context)} context each\nwithout speculation")
    plain = df[plain_fits(df)]
    drawn: dict[int, tuple] = {}
    for p, name in zip(prefixes, names):
        base = plain[plain["shared_prefix_tokens"] == p].drop_duplicates("batch").sort_values("batch")
        # speculation's point as every other figure reads it (qa129: best-k rows dropped a batch whose best k is 0)
        best = fastest_drafting(df[df["shared_prefix_tokens"] == p], ["batch"]).sort_values("batch")
        drawn[p] = (base.set_index("batch")["baseline_tokens_per_s"], best.set_index("batch")["tokens_per_s"])
        # where a shared prefix's line equals no sharing's at some batches it lies under it there: said (qa291: it read
        # as starting at batch 16)
        hidden = [_covered_note(drawn[p][i], drawn[0][i]) if p != 0 and 0 in drawn else "" for i in (0, 1)]
        # no sharing drawn on top: where each sequence reads the prefix its line lies under the shared one's (qa267)
        z = 3 if p == 0 else 2
        ax1.plot(base["batch"], base["baseline_tokens_per_s"], "s--", color=color[p], ms=3.5, lw=1.2, zorder=z,
                 label=f"{name}, no speculation{hidden[0]}")
        ax1.plot(best["batch"], best["tokens_per_s"], "o-", color=color[p], ms=3.5, lw=1.6, zorder=z,
                 label=f"{name}, speculation (fastest k > 0){hidden[1]}")
    for p, name in zip(prefixes, names):  # each end's best at the largest batch that fits, where the finding computed it
        end = (meta.get("shared_prefix_at_largest_fit") or {}).get(int(p))  # between the swept ones (qa391: the figure
        if end and end["computed_now"]:  # drew 8 and 128, the finding quoted 12 and 189)
            ax1.plot([end["batch"]], [end["tokens_per_s"]], "*", color=color[p], ms=10, mec="black", mew=0.6, zorder=4,
                     label=f"{name}: best at batch {end['batch']:,}, the largest that fits\n(computed now, as the finding "
                           f"quotes it; {'k = ' + str(end['k']) if end['k'] else 'no speculation'})")
    _log2_axis(ax1, sorted(df["batch"].unique()))
    _log_axis(ax1, "y")
    # past the largest cap no line goes on: shaded and said (qa281: the axis ran on past the last line unexplained)
    _shade_memory_limit(ax1, float(caps.max()), float(df["batch"].max()), float(plain["batch"].max()) if len(plain) else 0.0)
    ax1.set_xlabel("batch size B (lines end where memory does)")
    ax1.set_ylabel("tokens/s, all sequences")
    ax1.set_title("Throughput")
    _shared_legend(fig, [ax1])
    once = prefix_read_once(df, meta)  # qa267: the engine's kernel (None: its profile not found)
    read = ", read once per step" if once else ", read by each sequence" if once is False else ""
    stored = "stored by each sequence (no prefix caching)" if prefix_cached(df, meta) is False else "stored once"  # qa349
    fig.suptitle(f"Shared prefix: {stored}{read}\n" + _setup_line(meta, list(dict.fromkeys(df["model"])))
                 + f" · {_name(meta, 'hardware', df['hardware'].iloc[0]).replace(' ', NBSP)}")
    return fig


def _report_draft_offload(df: pd.DataFrame, ops, meta: dict) -> Figure | None:
    from roofline.findings import best_drafting

    fit = best_drafting(df)  # each placement's fastest fitting k > 0 (below 1 where drafting loses), as the finding reads
    # a target where no drafter fits at any batch has no panel (qa125: its empty log axis was a traceback), said below
    hws = [h for h in dict.fromkeys(df["hardware"]) if (fit["hardware"] == h).any()]
    none_fit = [h for h in dict.fromkeys(df["hardware"]) if h not in hws]
    if not hws:
        return None
    places = list(dict.fromkeys(df["draft_placement"]))
    # co-located in the draft model's colour, as every other figure's draft (qa234: black squares were "no speculation"
    # in the sections beside it), the other placements in colours of their own
    elsewhere = [p for p in places if p != "co-located"]  # tab10 from green: its orange is near the draft model's
    pcolor = {"co-located": METHOD_COLORS["draft"], **{p: colormaps["tab10"]((2 + i) % 10) for i, p in enumerate(elsewhere)}}
    fig, axes = _plain_figure(len(hws), min_panel_in=3.2, height=3.4, legend_in=1.8, sharey=True)
    for ax, hw in zip(axes, hws):
        for p in places:
            g = fit[(fit["hardware"] == hw) & (fit["draft_placement"] == p)].drop_duplicates("batch").sort_values("batch")
            label = ("draft co-located on the target GPUs" if p == "co-located" else f"draft on {_short_hw(meta, p)}") + (
                "" if len(g) else " (no drafting k fits)")  # fits at no k > 0 anywhere: nothing to draw
            ax.plot(g["batch"], g["speedup"], "o-" if p == "co-located" else "^--", color=pcolor[p], ms=3.5, lw=1.5, label=label)
        ax.axhline(1.0, color="k", lw=0.8, ls=":")
        _log2_axis(ax, sorted(df["batch"].unique()))
        ax.set_xlabel("batch size B (sequences)")
        ax.set_ylabel("speedup at its fastest k > 0 (×)")
        ax.set_title(f"{_devices(df, meta, hw)} × {_short_hw(meta, hw)}")
    _shared_legend(fig, axes)
    dropped = (~df["fits_in_memory"].astype(bool)).any()
    draft = meta.get("draft")  # a draft model's name; none for a head drafter (EAGLE, MTP), which is never overlapped
    drafter = (f"draft model {_name(meta, 'model', draft)}" if draft else
               f"{METHOD_LABELS.get(str(df['method'].iloc[0]), str(df['method'].iloc[0]))} drafter")
    fig.suptitle("Draft on cheaper hardware: drafting elsewhere plus a transfer" + (" (overlapped over two\nmicro-batches "
                 "where that pays), against drafting on the target; " if draft else ", against drafting on the target;\n")
                 + "each at its fastest k > 0 that fits\n"
                 + f"{_name(meta, 'model', df['model'].iloc[0])} target, {drafter}, "
                 + f"{_alpha_label(df['alpha'].iloc[0], meta)}, context {' / '.join(_ctx(c) for c in sorted(df['context'].unique()))} · "  # qa275
                 + f"{dtypes_text(meta, list(dict.fromkeys(df['model'])))} · {engine_label(meta)}"
                 + "".join(f" · {_layout_label(v)}" for v in layouts_of_rows(df) if v != "tp 1")  # qa280: DP-attention 8 unsaid
                 + (" · batches that do not fit left out" if dropped else "")
                 + (f" · no drafter fits on {', '.join(f'{_devices(df, meta, h)} × {_short_hw(meta, h)}' for h in none_fit)}" if none_fit else ""))
    return fig


def _report_fast_tier(df: pd.DataFrame, ops, meta: dict) -> Figure | None:
    from roofline.findings import TIER_SPEEDS, tier_prices
    from roofline.frontier import above_running_cap, cap_text, loadable, plain_runnable

    tiers = tier_prices(df, meta=meta)  # on every row: it leaves out what no engine runs itself, and says why (qa331)
    dirs = tuple(meta.get("profiles") or ())
    plain_df = plain_runnable(df, dirs)  # as tier_prices: a row refused only as speculation still has a plain point
    df = loadable(df, dirs, meta)  # as tier_prices: a layout the engines refuse prices no tier
    hws = [h for h in dict.fromkeys(plain_df["hardware"]) if h in tiers.index]
    if not hws:  # no device with a price, or nothing fits: the finding says so, and there is no cost to draw
        return None
    fig, axes = _plain_figure(len(hws), min_panel_in=3.2, height=3.4, legend_in=1.9, sharey=True)
    from roofline.findings import plain_fits

    fit = _fits_only(df)
    for ax, hw in zip(axes, hws):
        g = fit[fit["hardware"] == hw]
        base = plain_df[plain_fits(plain_df) & (plain_df["hardware"] == hw)]  # every batch plain decoding fits: as tier_prices
        bx, by = base["baseline_tokens_per_s_per_user"].to_numpy(), base["baseline_cost_usd_per_million_tokens"].to_numpy()
        i = _frontier(bx, -by)
        ax.plot(bx[i], by[i], "s--", color="k", ms=3.5, lw=1.5, label="no speculation")
        if tiers.loc[hw, "drafter_fits"]:  # qa133: with k = 0 swept, its rows drew a 'with speculation' line on plain's
            sx, sy = g["tokens_per_s_per_user"].to_numpy(), g["cost_usd_per_million_tokens"].to_numpy()
            j = _frontier(sx, -sy)
            ax.plot(sx[j], sy[j], "o-", color=_spec_color(df), ms=3.5, lw=1.6,
                    label=f"with speculation (any k), {_alpha_label(g['alpha'].iloc[0], meta)}")
            over, caps = above_running_cap(g.iloc[j], tuple(meta.get("profiles") or ()))
            if over.any():  # priced at its batch, which the engine runs only with its cap raised (the finding says so)
                k = over.to_numpy()
                ax.plot(sx[j][k], sy[j][k], "o", ms=6, mfc="none", mec="darkorange", mew=1.0,
                        label="above the sequences its engine runs at once while speculating\n"
                              f"({cap_text(caps)}): priced with the cap raised")
        else:  # qa129: plain decoding alone fits here (an IndexError, the generic figure, before)
            from roofline.findings import NO_DRAFTER_REFUSED, NO_DRAFTER_RUNS

            said = ("no engine runs its draft\nmodel (another tokenizer):\nplain decoding only"  # qa331: said as no fit
                    if tiers.loc[hw, "no_drafter_why"] == NO_DRAFTER_RUNS else
                    "the drafter fits only in\nrows no deployment runs:\nplain decoding only"
                    if tiers.loc[hw, "no_drafter_why"] == NO_DRAFTER_REFUSED else  # (qa375)
                    "the drafter fits at\nno point swept here:\nplain decoding only")
            ax.text(0.97, 0.04, said, transform=ax.transAxes,  # the corner a cost curve rising to the right leaves
                    ha="right", va="bottom", fontsize=8, color="0.35", bbox=LABEL_HALO)  # (qa375: drawn across it)
        t = tiers.loc[hw]
        u0 = t["base_tokens_per_s_per_user"]
        for m, ls in zip((1.0, *TIER_SPEEDS), (":", "--", "-.")):
            ax.axvline(u0 * m, color="firebrick", lw=0.8, ls=ls)
            ax.annotate(f"{m:g}× speed", (u0 * m, 0.98), xycoords=("data", "axes fraction"), xytext=(2, 0), textcoords="offset points",
                        rotation=90, va="top", fontsize=7, color="firebrick")
        _log_axis(ax, "x")
        _log_axis(ax, "y")
        ax.set_xlabel("tokens/s per user")
        ax.set_ylabel("USD per million tokens")
        price = (meta.get("price_usd_per_hour") or {}).get(hw)  # the price it is priced at (qa375: a repriced copy's
        ax.set_title(_name(meta, "hardware", hw)  # figure read as the list price's)
                     + (f"\n${format_usd_per_hour(price)} a device-hour" if price else ""))
    _shared_legend(fig, axes[: len(hws)])
    fig.suptitle("Fast tiers: the cheapest price at each per-user speed (cost frontier; points that do not fit left out)\n"
                 + _setup_line(meta, list(dict.fromkeys(plain_df["model"])))
                 + f" · context {' / '.join(_ctx(c) for c in sorted(plain_df['context'].unique()))}"  # qa275
                 + " · red lines: 1×, 2×, 3× the cheapest tier's speed")
    return fig


def _report_prefill(df: pd.DataFrame, ops, meta: dict) -> Figure:
    from roofline.findings import ANSWER_TOKENS, prefill_point

    fit = _fits_only(df)
    best = prefill_point(df)
    if best is not None:  # the finding's point (qa137, qa138): its batch, model and device (qa135: each bar's first rows)
        fit = fit[(fit["batch"] == best["batch"]) & (fit["model"] == best["model"]) & (fit["hardware"] == best["hardware"])]
    contexts = sorted(fit["context"].unique())
    fig, axes = _plain_figure(1, height=0.55 * 2 * len(contexts) + 1.2, legend_in=1.8)
    ax = axes[0]
    labels, y = [], 0
    spec_k = fit[fit["k"] > 0].sort_values("speedup", kind="stable")["k"].iloc[-1] if (fit["k"] > 0).any() else 0
    for c in contexts:
        for k in (0, spec_k):
            r = fit[(fit["context"] == c) & (fit["k"] == spec_k)]  # plain decoding from the same row's baseline columns
            if r.empty:
                continue
            r = r.iloc[0]
            parts = ((r["ttft_s"], r["draft_ttft_s"], ANSWER_TOKENS / r["tokens_per_s_per_user"]) if k else
                     (r.get("baseline_ttft_s", r["ttft_s"]), 0.0, ANSWER_TOKENS / r["baseline_tokens_per_s_per_user"]))
            left = 0.0
            for part, colr, name in zip(parts, ("tab:gray", "tab:orange", "tab:blue" if k else "0.15"),
                                        ("prefill of the prompt (time to first token)", _drafter_prefill_label(fit),
                                         f"decoding {ANSWER_TOKENS} tokens, speculating (k = {spec_k:g})")):
                ax.barh(y, part, left=left, color=colr, edgecolor="white", lw=0.5,
                        label=name if (c == contexts[0] and (k if not name.startswith("prefill") else not k)) else None)
                left += part
            ax.text(left, y, f" {left:.2f} s", va="center", fontsize=7)
            labels.append(f"prompt {_ctx(c)}, " + ("no speculation" if k == 0 else f"k = {k:g}"))
            y += 1
        y += 0.5
    ax.set_yticks([i + 0.5 * (i // 2) for i in range(len(labels))], labels)
    ax.invert_yaxis()
    ax.set_xlabel("seconds for one request")
    ax.grid(axis="y", visible=False)
    ax.margins(x=0.12)
    handles, names = ax.get_legend_handles_labels()
    decode = Patch(color="0.15", label=f"decoding {ANSWER_TOKENS} tokens, no speculation")
    fig.legend([*handles, decode], [*names, decode.get_label()], loc="outside right center")
    fig.suptitle("Prefill is not sped up: time to a whole answer, with and without speculation\n"
                 + _setup_line(meta, list(dict.fromkeys(df["model"]))) + f" · {_name(meta, 'hardware', df['hardware'].iloc[0]).replace(' ', NBSP)}, "
                 + f"batch {fit['batch'].iloc[0]:g}, {_alpha_label(fit['alpha'].iloc[0], meta)}")
    return fig


def _report_generic(df: pd.DataFrame, ops, meta: dict) -> Figure | None:
    """The sweep's speedup heatmap (else its throughput, else its step-time figure), drawn as the sweep draws it; where
    it shows one of several methods, the one of the finding's headline point (its largest speedup that fits)."""
    df, meta = drafting_rows(df, meta)
    drafting = df[df["fits_in_memory"].astype(bool) & (df["k"] > 0)] if "method" in df else df.iloc[0:0]
    if len(drafting):  # the headline point's config first, where the figure keeps one of several: its context, method
        unordered = df
        top = drafting.loc[drafting["speedup"].idxmax()]  # (qa188: the prose spoke of n-gram, the figure of the draft
        # model; qa256: of context 8k, the figure drew 2k only), dtypes, drafter's device, prefix and layout (qa371:
        # the headline's 3.15x at ep 8, the figure's tp 8 alone and 2.92x)
        layout = [c for c in ("tp", "dp_attention", "ep", "pp") if c in df]
        for columns in (["context"], ["method"], ["draft_hardware"], ["shared_prefix"], ["weight_dtype"],
                        ["expert_dtype"], ["kv_dtype"], layout):
            columns = [c for c in columns if c in df and df[c].astype(str).nunique() > 1]
            if columns:
                first = (df[columns].astype(str) == top[columns].astype(str)).all(axis=1)
                df = pd.concat([df[first], df[~first]])
        # kept where any panel fits it (plots._panels; qa415), the panels kept drawn in the table's order (qa421)
        meta = {**meta, "headline_first": True, "table_order": unordered}
    cells = df["batch"].nunique()  # a heatmap cell's label needs about 0.3 inch, its axes' labels about 3 (qa349: four
    # panels of three cells ran their x labels into each other); a line plot's panel about 3.2
    for plotter, min_panel_in, legend_in in ((_plot_speedup_heatmap, max(0.3 * cells + 1.2, 3.0), 0.8), (_plot_throughput, 3.2, 2.0),
                                             (_plot_step_time, 3.2, 2.0)):
        fig = plotter(df, ops, meta)
        if fig is not None:
            return _to_page(fig, min_panel_in, legend_in)
    return None


def _fits_only(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["fits_in_memory"].astype(bool)]


REPORT_PLOTTERS = {
    "verify-mini-prefill": _report_verify, "flops-vs-time": _report_flops, "break-even-batch": _report_break_even,
    "batch-vs-speculation": _report_batch_vs_spec, "kv-caps-batch": _report_kv_caps, "shared-prefix": _report_shared_prefix,
    "draft-offload": _report_draft_offload, "fast-tier-premium": _report_fast_tier, "prefill-not-sped-up": _report_prefill,
    "generic": _report_generic,
}
