"""The standard plots of a sweep, drawn from the written tables only: nothing here recomputes physics.

Inputs are the tidy results table (one row per point, `roofline.grid` columns), the operators table
(FLOPs, bytes and time per operator of a decode step and a verify step, with each device's ceilings)
and the scenario meta (scenario.json). Each figure is written as PNG and SVG:

    roofline             FLOP/s vs arithmetic intensity (log-log): the attainable peak and derated ceilings,
                         their ridge points, and the achieved FLOP/s of the operators of a decode and a verify step
                         (flops / time_s, kernel latencies included; intensity = flops / bytes)
    step_time_vs_tokens  step time vs tokens in flight B x q: decode (q = 1, step_time_s) and verify
                         (q = k + 1, verify_time_s): the flat memory-bound floor and the compute knee
    speedup_heatmap      speedup over batch x alpha at the best k of each cell, break-even contour at 1
    throughput_vs_batch  tokens/s of the whole batch vs batch: per alpha at the best k, and without speculation
    pareto               tokens/s per device vs tokens/s per user: the non-dominated points (fitting in
                         memory only) per alpha with speculation, and without
    best_k_vs_batch      the throughput-best k vs batch, one line per alpha
    serving_vs_batch     a serving benchmark's time per output token vs batch, for the scenario's request (prompt,
                         output_len; drawn only then): per alpha at the k of least TPOT, and without speculation
    speedup_vs_context   speedup vs context at the best k of each point, one line per batch (up to five), at the
                         middle alpha swept (drawn only where two contexts or more are swept)

Several (hardware, model, context) in a table become small multiples, at most six panels, or a whole grid
of up to eight (hardware, model) (beyond that one context only, then one model only where hardware x model
alone are too many, then one value of each
varying config column, then one model only, then the first six
hardware; a value kept is the first under which every panel has a point that fits, else per panel the
first that fits, see `_panels`), and the title says which subset is shown; line plots draw at most six
alpha values. A plot the table cannot support is skipped, which is not an error: no speculation (no
heatmap, no best k), a single batch (no knee; no heatmap with a single alpha too), no operators table (no roofline), nothing fitting in
memory (no throughput, pareto, heatmap or best k).

Best k: the table's best_k. Where the k axis holds 0 and no k > 0 beats plain decoding, best_k = 0:
speculation does not pay there, drawn as speedup 1 at k = 0 (heatmap cell '1.00 k=0', best-k point at
0, throughput on the baseline), never as a point that does not fit. Points that do not fit in memory
are grey (heatmap cells; batches past the largest that fits under any k) or left out; the step-time
plot is timing alone and draws them faded with hollow markers, saying so in its legend and title; the
roofline draws the smallest batch and the largest that fits at the operators table's context, and
names that context.

Figures are drawn on matplotlib's Agg canvas directly (no pyplot, no global backend switch), so this
module works headless and leaves a caller's matplotlib state untouched.
"""

from __future__ import annotations

import math
import re
import textwrap
import weakref
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib import colormaps, rc_context
from matplotlib import colors as mcolors
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text
from matplotlib.ticker import Formatter, FuncFormatter, Locator, LogLocator, NullFormatter, NullLocator

from roofline.findings import alpha_values, same_alpha
from roofline.plot_jobs import (  # noqa: F401  (re-exported: the standard plots' names, columns and entry points)
    FORMATS,
    MAX_GRID_PANELS,
    MAX_PANELS,
    OPERATOR_COLUMNS,
    PANEL_CONFIG_COLUMNS,
    PLOT_NAMES,
    REQUIRED_COLUMNS,
    FigurePool,
    check_columns,
    check_formats,
    plot_from_table,
    standard_jobs,
    standard_plots,
)
from roofline.scenario import far_from_request, request_context
from roofline.serving import OPTIMISTIC, optimistic
from roofline.speculation import pays
from roofline.units import format_context, spoken_list

DPI = 120  # PNG resolution: sharp at README width, a third fewer pixels to draw and encode than 150
STYLE = {
    "font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9, "legend.fontsize": 8, "figure.titlesize": 11,
    "axes.grid": True, "grid.alpha": 0.3, "grid.linewidth": 0.5, "svg.hashsalt": "roofline",
    "svg.fonttype": "none",  # an SVG's labels as text, to edit and search for a paper (qa393: every glyph a path)
}
NBSP = "\u00a0"  # a space a wrapped title never breaks at: "TP 4", "PP 2", "engine vllm" stay on one line
METHOD_LABELS = {"none": "no speculation", "eagle": "EAGLE", "mtp": "MTP", "ngram": "n-gram lookup", "draft": "draft model", "medusa": "Medusa"}


# ---------------------------------------------------------------- labels and layout (edges only)

_ctx = format_context  # a context length as titles say it (units.format_context)


def _alpha_label(alpha: float, meta: dict | None = None) -> str:
    """An acceptance value as a legend says it: 'α = 0.8' ('α = 0.811 (from τ 3 at k = 3)' of a scenario's
    acceptance_length); no alpha (NaN): 'tree of N nodes, tau T' for a tree
    (meta's tree_nodes, tree_tau), else 'per-position rates 0.9, 0.8, 0.7' (meta's acceptance, up to four said; qa242:
    the rates were not said), or 'per-position rates' (a method's published ones)."""
    if alpha is not None and not (isinstance(alpha, float) and math.isnan(alpha)):
        measured = _measured_text(meta or {})
        return f"α = {alpha:.3g}" + (f" ({measured})" if measured else "")
    rates = [r for r in (meta or {}).get("acceptance") or [] if isinstance(r, (int, float))]
    said = (" " + ", ".join(f"{r:.3g}" for r in rates[:4]) + (", ..." if len(rates) > 4 else "")) if rates else ""
    return _tree_label(meta or {}) or f"per-position rates{said}"


def _measured_text(meta: dict) -> str:
    """'from τ 3 at k = 3': the acceptance length a scenario's alpha was solved from (meta's acceptance_length), else ''
    (qa433: the heatmap said α 0.811 alone)."""
    measured = meta.get("acceptance_length")
    return f"from τ {measured['tau']:g} at k = {int(measured['k'])}" if isinstance(measured, dict) else ""


def _tree_label(meta: dict) -> str:
    """'tree of 60 nodes, τ 4.5' for a tree-verification sweep (meta's tree_nodes, tree_tau), else ''."""
    if not meta.get("tree_nodes"):
        return ""
    tau = f", τ {meta['tree_tau']:g}" if meta.get("tree_tau") is not None else ""
    return f"tree of {int(meta['tree_nodes'])} node{'s' if int(meta['tree_nodes']) != 1 else ''}{tau}"


def _speculates(meta: dict, df: pd.DataFrame) -> bool:
    """Whether a figure's table speculates: a method other than none (meta's method, a list when an axis) and k > 0."""
    methods = meta.get("method", "none")
    methods = methods if isinstance(methods, (list, tuple)) else [methods]
    return any(m != "none" for m in methods) and bool((df["k"] > 0).any())


def _name(meta: dict, kind: str, key: str) -> str:
    return (meta.get(kind) or {}).get(key, key)


def _setup_line(meta: dict, models: list[str], with_method: bool = True) -> str:
    """The fixed parameters of a figure: model(s), method (not where the figure's quantity does not depend on it:
    `with_method` False), dtypes, tensor parallelism."""
    methods = meta.get("method", "none")
    labels = [f"draft model {_name(meta, 'model', meta['draft'])}" if m == "draft" and meta.get("draft") else METHOD_LABELS.get(m, m)
              for m in (methods if isinstance(methods, (list, tuple)) else [methods])]  # a list when methods are an axis
    label = " / ".join(labels)
    drafters = _drafter_names(meta.get("draft_hardware"), meta)
    if drafters:
        label += f" on {drafters}"
    parts = [", ".join(_name(meta, "model", m) for m in models), *([label] if with_method else [])]
    if meta.get("weight_dtype"):
        parts.append(dtypes_text(meta, models))
    layouts = [str(v) for v in meta.get("layouts") or []]
    if layouts:  # 'tp 1, dp-attention 8, ep 8' each: all of them, not only tp (which read "TP 8 / 1" beside EP 8)
        shown = [_layout_label(v) for v in layouts if v != "tp 1"]
        if len(layouts) > 3:
            parts.append(f"{len(layouts)} layouts")
        elif shown:
            parts.append(" / ".join(_layout_label(v) for v in layouts))
    else:
        if _one(meta.get("tp") or 1) not in (1, "1"):
            parts.append(f"TP{NBSP}{_one(meta['tp'])}")
        pp = _pp(meta)
        if pp:
            parts.append(f"PP{NBSP}{pp}")
    if engine_label(meta):
        parts.append(engine_label(meta).replace(" ", NBSP, 1))
    return " · ".join(parts)


def dtypes_text(meta: dict, models: list[str]) -> str:
    """'fp8 weights, mxfp4 experts, bf16 KV': the dtypes of the models a figure shows (each model's own where the
    meta has dtypes_by_model), not every one the sweep held."""
    weights, experts = meta.get("weight_dtype", "bf16"), meta.get("expert_dtype")
    by_model = meta.get("dtypes_by_model") or {}
    if models and all(m in by_model for m in models):  # the dtypes of the models this figure shows, not the sweep's
        shown = {key: {v for m in models for v in by_model[m][key]} for key in ("weight_dtype", "expert_dtype")}
        weights = [v for v in _as_list(weights) if v in shown["weight_dtype"]] or weights
        experts = [v for v in _as_list(experts) if v in shown["expert_dtype"]] if experts else experts
    with_experts = [m for m in models if by_model.get(m, {}).get("expert_dtype")]
    whose = (f" ({', '.join(_name(meta, 'model', m) for m in with_experts)})"  # qa467: 'fp4 experts' over three
             if experts and with_experts and len(with_experts) < len(models) else "")  # models, one with experts
    weights_text = _per_model_dtypes(meta, models, by_model, "weight_dtype", "weights") or f"{_one(weights)} weights"
    experts = (", " + (_per_model_dtypes(meta, models, by_model, "expert_dtype", "experts") or f"{_one(experts)} experts{whose}")
               if experts else "")
    return f"{weights_text}{experts}, {_one(meta.get('kv_dtype', 'bf16'))} KV"


def _per_model_dtypes(meta: dict, models: list[str], by_model: dict, key: str, noun: str) -> str:
    """'fp4 experts (gpt-oss-120b), bf16 experts (Qwen3 30B-A3B, Mixtral 8x7B)' where the models shown hold one dtype
    each of `key` and not all the same one (qa471: 'bf16 / fp4 experts (gpt-oss-120b, Qwen3 30B-A3B, Mixtral 8x7B)'
    read as all three holding both); '' otherwise (one dtype, or a model swept over several)."""
    held = {m: by_model[m][key] for m in models if (by_model.get(m) or {}).get(key)}
    if len(held) < 2 or any(len(v) != 1 for v in held.values()) or len({v[0] for v in held.values()}) < 2:
        return ""
    groups: dict[str, list[str]] = {}
    for m, (dtype,) in held.items():
        groups.setdefault(dtype, []).append(_name(meta, "model", m))
    return ", ".join(f"{dtype} {noun} ({', '.join(names)})" for dtype, names in groups.items())


def _layout_label(layout: str) -> str:
    """'tp 1, dp-attention 8, ep 8' as a setup line writes it: 'TP 1, DP-attention 8, EP 8' (no break inside a pair)."""
    return ", ".join(part.replace("tp ", "TP ").replace("dp-attention ", "DP-attention ").replace("ep ", "EP ")
                     .replace("pp ", "PP ").replace(" ", NBSP) for part in layout.split(", "))


def _as_list(value) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _drafter_names(value, meta: dict | None = None) -> str:
    """Where the drafter runs, as the setup line says it: '' on the target (None, NaN, ''), 'NVIDIA L4', 'the target /
    NVIDIA L4': each device by its display name where `meta` has it (qa120: 'l4', the profile's name)."""
    values = value if isinstance(value, (list, tuple)) else [value]
    names = ["the target" if v is None or v == "" or (isinstance(v, float) and math.isnan(v))  # a device's name kept on
             else _name(meta or {}, "hardware", str(v)).replace(" ", NBSP) for v in values]  # one line (qa291: 'NVIDIA / L4')
    return "" if set(names) <= {"the target"} else " / ".join(dict.fromkeys(names))


def _layout_degree(layout: object, column: str) -> str | None:
    """The degree a layout label gives `column` ('tp 2, dp-attention 8, pp 2': pp -> '2'), None where it names none
    (layout.describe_layout writes the degrees above 1 but tp's)."""
    match = re.search(rf"\b{column.replace('_', '-')} (\d+)", str(layout))
    return match.group(1) if match else None


def _pp(meta: dict) -> str:
    """The pipeline-parallel degree(s) of a figure's meta, '' when 1: its pp value (a panel column), else the
    'pp N' of its layouts."""
    pp = meta.get("pp")
    if pp is None:
        pp = [_layout_degree(layout, "pp") or 1 for layout in meta.get("layouts") or []] or [1]  # a layout naming
        # none is pp 1 (qa483: 'tp 8' beside 'tp 8, pp 2' read as pp 2 alone)
    values = list(dict.fromkeys(str(v) for v in (pp if isinstance(pp, (list, tuple)) else [pp])))
    return "" if values == ["1"] else " / ".join(values)


def engine_label(meta: dict) -> str:
    """'engine NAME[, NAME]' for the serving engine(s) a figure shows (meta['engine']), or '' when unknown."""
    engines = meta.get("engine")
    if not engines:
        return ""
    return "engine " + (", ".join(map(str, engines)) if isinstance(engines, (list, tuple)) else str(engines))


def _one(value):
    """A meta value that may be a list (a sweep axis): the value itself when one, else the values joined."""
    if isinstance(value, (list, tuple)):
        return value[0] if len(value) == 1 else " / ".join(map(str, value))
    return value


def _tp(meta: dict) -> int:
    """The tensor-parallel degree of a figure's meta (1 when several or unknown: per-device values are then
    read from the table's own devices column where there is one)."""
    tp = _one(meta.get("tp") or 1)
    return tp if isinstance(tp, int) else 1


def _devices(df: pd.DataFrame, meta: dict, hw: str | None = None) -> int:
    """The target's devices (on `hw` where given) as the table's devices column gives them, tp x dp_attention x pp
    (qa280: tp alone labelled an attention-DP 8 deployment '1 GPU'); meta's tp where the table has no such column."""
    rows = df[df["hardware"] == hw] if hw is not None and "hardware" in df else df
    return int(rows["devices"].max()) if "devices" in rows and len(rows) else _tp(meta)


def _config_label(meta: dict, column: str, value) -> str:
    """A config column's value as a panel title or a subset note says it: 'EAGLE', 'engine vllm', 'TP 2'."""
    if column == "method":
        return METHOD_LABELS.get(value, str(value))
    if column == "draft_hardware":
        return f"drafter on {_name(meta, 'hardware', value)}" if _drafter_names(value) else "drafter on the target"
    if column == "expert_dtype" and value == "":
        return ""  # a dense model
    if column == "shared_prefix":
        return f"shared prefix {int(value):,}"
    words = {"engine": "engine {}", "weight_dtype": "{} weights", "expert_dtype": "{} experts", "kv_dtype": "{} KV"}
    return words[column].format(value) if column in words else f"{_axis_name(column)} {value}"  # TP 2, DP-attention 4


LAYOUT_DEGREES = ("tp", "dp_attention", "ep", "pp")  # the degrees that together are one layout


def _panels(df: pd.DataFrame, by: tuple[str, ...], meta: dict,
            fitting: pd.DataFrame | None = None) -> tuple[tuple[str, ...], list[tuple], str]:
    """The panel columns (`by` and the config columns of PANEL_CONFIG_COLUMNS that vary within its panels), their distinct
    values in table order, at most MAX_PANELS (a (hardware, model) grid of up to MAX_GRID_PANELS is kept whole), and a
    note saying which subset is shown: first one context only, then one model only where the (hardware, model) panels
    alone are too many (so that a config value is chosen for the panels kept, not for a model dropped later), then one
    value of each varying config column, then one model only (hardware is what a sweep compares), then the first few.

    A column narrowed to one value keeps, in this order of preference (see `_narrow`): the first value (in table order)
    under which every remaining panel has a point that fits in memory ('TP 4 only'); else, per panel, the first value
    under which that panel has one ('TP: the first that fits, per panel', the value then in each panel's title); else the
    first value. What fits: the rows of `fitting` (default: the rows of `df` whose fits_in_memory is true, when it has
    that column; none given and no such column: the first value, as if everything fitted), less those at a layout
    meta's `refused` names (no setup of its engine runs it: plot_jobs.refused_meta). A panel where nothing fits beside one
    of the same device and context (another model or layout) where something does is left out, and said."""
    groups = len(df[list(by)].drop_duplicates())  # a column that only follows the model (expert_dtype) splits no panel
    extras = tuple(c for c in PANEL_CONFIG_COLUMNS if c in df.columns and df[c].nunique(dropna=False) > 1
                   and len(df[[*by, c]].drop_duplicates()) > groups)
    by = (*by, *extras)
    keys = list(df[list(by)].drop_duplicates().itertuples(index=False, name=None))
    if fitting is None and "fits_in_memory" in df.columns:
        fitting = df[df["fits_in_memory"].astype(bool)]
    refused = [e for e in meta.get("refused") or [] if isinstance(e, dict)]
    columns = [c for c in by if fitting is not None and c in fitting.columns]

    def fitting_keys(rows: pd.DataFrame | None) -> set:
        found = set(rows[columns].drop_duplicates().itertuples(index=False, name=None)) if rows is not None else None
        return {key for key in keys if found is None or tuple(key[by.index(c)] for c in columns) in found}

    unrun = set()  # panels whose points fit but no setup of their engine runs (qa466: said as 'nothing fits there')
    if fitting is not None and refused:  # a layout no setup of its engine runs is no point that fits (qa361: the
        from roofline.frontier import refused_rows  # figures kept one every panel titled 'not run by sglang-early')

        unrun = fitting_keys(fitting)
        fitting = fitting[~refused_rows(fitting, refused)]
    fits = fitting_keys(fitting)
    unrun -= fits
    notes = []
    # a report's generic figure put its headline point's values first (report_figures._report_generic): each column
    # narrowed keeps them where any panel has a point that fits, the panels without one grey, as its text says them
    # (qa415: the text quoted DP-attention 8, the figure dropped it for the layouts that fit on every device)
    headline_first = bool(meta.get("headline_first"))
    grid = len(by) - len(extras)  # (hardware, model, context): the panels before config columns split them
    most = MAX_PANELS
    # a layout's degrees are one layout, narrowed together (qa245: tp 8 kept of tp 8 / tp 8 pp 2 / tp 16 / tp 4 pp 4,
    # one degree at a time, dropped two of the layouts compared), and every layout kept where the panels, each with a
    # point that fits, make a grid of up to MAX_GRID_PANELS
    layout = tuple(axis for axis in extras if axis in LAYOUT_DEGREES)
    steps = ("context", "model", *(axis for axis in extras if axis not in LAYOUT_DEGREES), *((layout,) if layout else ()), "model")
    for step, axis in enumerate(steps):
        if isinstance(axis, tuple):  # the layout
            positions = tuple(by.index(a) for a in axis)
            if len(keys) <= most or len({_at(key, positions) for key in keys}) < 2:
                continue
            grid_only = all(a in (*by[:grid], *axis) for a in by if len({key[by.index(a)] for key in keys}) > 1)
            limit = MAX_GRID_PANELS if grid_only else most
            if len(keys) <= limit and all(key in fits for key in keys):
                most = len(keys)  # every layout of every device (and model), as a grid
                continue
            kept = _fitting_everywhere(keys, positions, fits)  # (qa247: one panel without a fit kept one layout only)
            if (1 < len(kept) and len(kept) * len({_without(key, positions) for key in keys}) <= limit
                    and (not headline_first or _at(keys[0], positions) in kept)):
                left = [v for v in dict.fromkeys(_at(key, positions) for key in keys) if v not in kept]
                notes.append(_left_out_note(meta, by, keys, positions, axis, left, fits, unrun))
                keys = [key for key in keys if _at(key, positions) in kept]
                most = max(most, len(keys))
                continue
            first = keys[0]  # the headline's value, put first (headline_first)
            keys, note = _narrow(keys, positions, fits, headline=headline_first)
            value = keys[0] if note != "headline per panel" else first
            named = _axis_name(axis[0]) if len(axis) == 1 else "layout"
            notes.append(_layout_value_label(meta, axis, tuple(value[p] for p in positions)) + " only" if note == "one" else
                         f"{_layout_value_label(meta, axis, tuple(value[p] for p in positions))} where it fits, else the "
                         f"first {named} that fits, per panel" if note == "headline per panel" else
                         f"{named}: the first that fits, per panel")
            continue
        if step == 1:  # one context left: a grid of up to MAX_GRID_PANELS (hardware, model) is kept whole
            cells = len({key[:grid] for key in keys})
            most = cells if MAX_PANELS < cells <= MAX_GRID_PANELS else MAX_PANELS
        count = len({key[:grid] for key in keys}) if step == 1 else len(keys)  # first: model only if the grid alone is too big
        if count > most and axis in by and len({key[by.index(axis)] for key in keys}) > 1:
            before = len(keys)
            if axis == "engine":  # a serving engine before ideal, the bound, as the report and cheapest lead with one
                keys = sorted(keys, key=lambda key: key[by.index(axis)] == "ideal")  # (qa379: a sweep of [ideal, vllm] drew ideal's)
            first = keys[0]  # a config column per panel only where no layout is narrowed after it (qa430: a dtype
            # chosen per (device, TP) panel left two dtypes of a device to the layout's step, which drew both)
            keys, note = _narrow(keys, (by.index(axis),), fits, one=axis == "engine", headline=headline_first,
                                 per_panel=not layout)
            if len(keys) == before:  # every panel had one value of it already (a `layouts:` list): nothing was left out
                continue
            if note == "one":
                value = keys[0][by.index(axis)]
                notes.append(f"{_axis_value_label(meta, axis, value)} only")
            elif note == "headline per panel":
                notes.append(f"{_axis_value_label(meta, axis, first[by.index(axis)])} where it fits, else the first "
                             f"{_axis_name(axis)} that fits, per panel")
            else:
                notes.append(f"{_axis_name(axis)}: the first that fits, per panel")
    if fitting is not None and not headline_first and "hardware" in by:
        # a panel where nothing fits beside one of the same device and context, another model or layout, where something
        # does: left out, said (qa441: DeepSeek-V3 at DP-attention 8 drawn empty on H100 beside Llama 3.1 70B at TP 8
        # there, the model chosen per device and layout before the layout per device and model); a context's panel
        # where nothing fits stays, saying so
        loose = tuple(i for i, c in enumerate(by) if c == "model" or c in LAYOUT_DEGREES)
        empty = [key for key in keys if key not in fits
                 and any(other in fits and _without(other, loose) == _without(key, loose) for other in keys)]
        if empty:
            keys = [key for key in keys if key not in empty]
            for why, chosen in (("nothing fits there", [key for key in empty if key not in unrun]),
                                ("what fits there no setup of its engine runs", [key for key in empty if key in unrun])):
                if chosen:
                    notes.append(", ".join(dict.fromkeys(_empty_panel_label(meta, by, key) for key in chosen))
                                 + f" not drawn ({why}; the device is drawn where something does)")
    if len(keys) > most:
        named = [axis for axis in by if len({key[by.index(axis)] for key in keys}) > 1]
        notes.append(f"first {most} of {len(keys)} panels ({' x '.join(_axis_name(axis) for axis in named) or 'hardware'})")
        keys = keys[:most]
    unordered = meta.get("table_order")  # the panels kept, in the table's order again (qa421: the headline's context
    if headline_first and isinstance(unordered, pd.DataFrame) and set(by) <= set(unordered.columns):  # first read
        order = {key: i for i, key in enumerate(unordered[list(by)].drop_duplicates().itertuples(index=False, name=None))}
        keys = sorted(keys, key=lambda key: order.get(key, len(order)))  # 128k, 4k, 16k, 64k)
    return by, keys, ", ".join(notes)


def _empty_panel_label(meta: dict, by: tuple, key: tuple) -> str:
    """'DeepSeek-V3 on NVIDIA H100 SXM5 80GB (TP 1, DP-attention 8, EP 8)': a panel a figure leaves out, by its model,
    device and layout where the sweep has them."""
    value = dict(zip(by, key))
    text = _name(meta, "hardware", value["hardware"])
    if "model" in value:
        text = f"{_name(meta, 'model', value['model'])} on {text}"
    layout = tuple(a for a in LAYOUT_DEGREES if a in value)
    return text + (f" ({_layout_value_label(meta, layout, tuple(value[a] for a in layout))})" if layout else "")


def _left_out_note(meta: dict, by: tuple, keys: list[tuple], positions: tuple[int, ...], axis: tuple, left: list,
                   fits: set, unrun: set = frozenset()) -> str:
    """'TP 8 left out (no point of it fits), DP-attention 8, EP 8 left out (none fits on NVIDIA H100 SXM5 80GB)': the
    layouts a figure leaves out as not fitting on every panel, each with the panels (by their hardware, where panels
    differ by it) where nothing of it fits (qa415: 'a panel of it would hold no point that fits' said of a layout that
    fit on three devices of four), then where it fits, not drawn ('; on MI325X it fits, not drawn': qa436); a layout
    whose points fit but no setup of their engine runs (`unrun` panels) 'left out (not run by its engine)' (qa466)."""
    panels = list(dict.fromkeys(_without(key, positions) for key in keys))
    rest = [c for i, c in enumerate(by) if i not in positions]
    notes = []
    for value in left:
        failing = [panel for panel in panels if tuple(_insert(panel, positions, value)) not in fits]
        label = _layout_value_label(meta, axis, value)
        if len(failing) == len(panels):
            unrun_all = all(tuple(_insert(panel, positions, value)) in unrun for panel in panels)
            notes.append(f"{label} left out ({'not run by its engine' if unrun_all else 'no point of it fits'})")
            continue
        fitting_on = ""
        named = [c for c in ("hardware", "model") if c in rest and len({p[rest.index(c)] for p in panels}) > 1]
        if named:
            where = _panels_named(meta, rest, panels, failing, named)
            where_text = ", ".join(where[:-1]) + " or " + where[-1] if len(where) > 1 else where[0]
            there = _panels_named(meta, rest, panels, [p for p in panels if p not in failing], named)
            fitting_on = f"; on {spoken_list(there)} it fits, not drawn"  # (qa436: unsaid)
        else:
            where_text = f"{len(failing)} of its {len(panels)} panels"
        notes.append(f"{label} left out (no point of it fits on {where_text}{fitting_on})")
    return ", ".join(notes)


def _panels_named(meta: dict, rest: list[str], panels: list[tuple], chosen: list[tuple], named: list[str]) -> list[str]:
    """The `chosen` panels (keys of `rest`'s columns) as _left_out_note names them: by the first of `named` (the
    hardware, else the model) where every panel of that value is chosen, else each chosen panel by both of `named`
    ('NVIDIA H100 SXM5 80GB with Llama 3.1 70B'), or by its value and a count ('NVIDIA H100 SXM5 80GB (1 of its 2
    panels)') where one alone names them (qa437: a device said to fit nothing of a layout that fit one of its models)."""
    first = rest.index(named[0])
    out = []
    for value in dict.fromkeys(p[first] for p in chosen):
        mine = [p for p in chosen if p[first] == value]
        of_value = [p for p in panels if p[first] == value]
        text = _name(meta, named[0], value)
        if len(mine) == len(of_value):
            out.append(text)
        elif len(named) > 1:
            out += list(dict.fromkeys(f"{text} with {_name(meta, named[1], p[rest.index(named[1])])}" for p in mine))
        else:
            out.append(f"{text} ({len(mine)} of its {len(of_value)} panels)")
    return out


def _insert(panel: tuple, positions: tuple[int, ...], value: tuple) -> list:
    """A panel key (a key less `positions`) with `value` put back at `positions`: the key of that panel at that value."""
    out, rest, values = [], iter(panel), iter(value)
    for p in range(len(panel) + len(positions)):
        out.append(next(values) if p in positions else next(rest))
    return out


def _without(key: tuple, positions: tuple[int, ...]) -> tuple:
    """A panel key less the values at `positions`: the panel a config column's value splits."""
    return tuple(v for p, v in enumerate(key) if p not in positions)


def _at(key: tuple, positions: tuple[int, ...]) -> tuple:
    """A panel key's values at `positions` (a config column's, or a layout's degrees)."""
    return tuple(key[p] for p in positions)


def _fitting_everywhere(keys: list[tuple], positions: tuple[int, ...], fits: set) -> list[tuple]:
    """The values at `positions` (a layout's degrees) under which every panel has a key in `fits`, in table order."""
    panels = {_without(key, positions) for key in keys}
    fitting: dict = {}
    for key in keys:
        if key in fits:
            fitting.setdefault(_at(key, positions), set()).add(_without(key, positions))
    return [v for v, where in fitting.items() if where == panels]


def _narrow(keys: list[tuple], positions: tuple[int, ...], fits: set, one: bool = False,
            headline: bool = False, per_panel: bool = True) -> tuple[list[tuple], str]:
    """Keep one value of `positions` of the panel `keys` (one column, or a layout's degrees together): the first value
    under which every panel (a key without those positions) has a key in `fits`; else per panel its first key in
    `fits` (or its first key where none fits), or with `one` the first value under which any panel has a key in
    `fits` (an engine: one engine drawn, panels of its layouts that fit nowhere left to the layout's step; qa371: a
    panel of trtllm beside vllm's read as a comparison of layouts); with `headline`, the first value itself where
    every panel has it and any has it in `fits` (a report's headline point's, put first: its panels without one drawn
    as not fitting; a column that moves with another, expert_dtype with weight_dtype, splits no panel to narrow). Returns the kept keys, in their order, and 'one' when they hold one value there, else 'per panel'."""
    rest = [_without(key, positions) for key in keys]
    panels = list(dict.fromkeys(rest))
    fitting = {(r, _at(key, positions)) for r, key in zip(rest, keys) if key in fits}
    values = list(dict.fromkeys(_at(key, positions) for key in keys))
    present = {(r, _at(key, positions)) for r, key in zip(rest, keys)}
    headline_kept = headline and all((r, values[0]) in present for r in panels) and any((r, values[0]) in fitting for r in panels)
    if headline_kept and per_panel and not one and not all((r, values[0]) in fitting for r in panels):
        # the headline's value where it fits, each other panel its first value that does (qa428: a report's Qwen3-235B
        # panels on MI300X and H200 drawn all grey at the headline's TP 1, which fits there at TP 8)
        chosen = {}
        for r, key in zip(rest, keys):  # a panel's first key that fits, else its first key
            if r not in chosen or (chosen[r] not in fits and key in fits):
                chosen[r] = key
        for r, key in zip(rest, keys):  # the headline's value before it where it fits there
            if _at(key, positions) == values[0] and key in fits:
                chosen[r] = key
        kept = [key for key in keys if chosen[_without(key, positions)] == key]
        return kept, "one" if len({_at(key, positions) for key in kept}) == 1 else "headline per panel"
    shared = (values[0] if headline_kept else
              next((v for v in values if all((r, v) in fitting for r in panels)), None))
    if shared is None and one:
        shared = next((v for v in values if any((r, v) in fitting for r in panels)), values[0])
    if shared is not None:
        return [key for key in keys if _at(key, positions) == shared], "one"
    chosen: dict = {}
    for r, key in zip(rest, keys):  # table order: a panel's first key that fits, else its first key
        if r not in chosen or (chosen[r] not in fits and key in fits):
            chosen[r] = key
    kept = [key for key in keys if chosen[_without(key, positions)] == key]
    return kept, "one" if len({_at(key, positions) for key in kept}) == 1 else "per panel"


def _axis_value_label(meta: dict, axis: str, value) -> str:
    """A panel axis's value as a subset note says it: 'context 8k', 'Llama 3.1 8B', 'TP 4'."""
    if axis == "context":
        return f"context {_ctx(value)}"
    return _name(meta, "model", value) if axis == "model" else _config_label(meta, axis, value)


def _layout_value_label(meta: dict, axes: tuple, values: tuple) -> str:
    """A layout as a subset note says it: 'TP 16', 'TP 1, DP-attention 8, EP 8' (its degrees as `axes` order them, tp
    always, the others where above 1, as describe_layout writes a layout; qa381: 'TP 16, DP-attention 1, EP 1 only'
    beside a title listing 'TP 16')."""
    said = {a: v for a, v in zip(axes, values) if a == "tp" or v != 1}
    swept = [{(name := part.rsplit(" ", 1))[0].replace("-", "_"): int(name[1]) for part in str(layout).split(", ")}
             for layout in meta.get("layouts") or []]  # 'tp 2, pp 2' -> {tp: 2, pp: 2}
    mine = dict(zip(axes, values))
    # a degree of 1 another swept layout of the same said degrees raises is said too (qa466: 'TP 2 only' beside a
    # sweep of tp 2 and tp 2, pp 2)
    said.update({a: v for a, v in mine.items() if a not in said and any(
        all(other.get(b, 1) == w for b, w in said.items()) and other.get(a, 1) != v for other in swept)})
    shown = [_axis_value_label(meta, a, v) for a, v in zip(axes, values) if a in said]
    return ", ".join(shown or [_axis_value_label(meta, a, v) for a, v in zip(axes, values)])  # (no tp among them: all 1)


def _axis_name(axis: str) -> str:
    """A panel axis as a subset note names it: 'TP', 'weight dtype', 'context'."""
    names = {"tp": "TP", "ep": "EP", "pp": "PP", "dp_attention": "DP-attention", "draft_hardware": "drafter hardware",
             "shared_prefix": "shared prefix", "kv_dtype": "KV dtype"}
    return names.get(axis, axis.replace("_", " "))


def _panel_rows(df: pd.DataFrame, by: tuple[str, ...], key: tuple) -> pd.DataFrame:
    """The rows of one panel: those whose `by` columns hold `key`."""
    mask = np.ones(len(df), dtype=bool)
    for column, value in zip(by, key):
        mask &= (df[column] == value).to_numpy()
    return df[mask]


def _panel_title(meta: dict, key: dict, several_models: bool, said: frozenset = frozenset()) -> str:
    """'NVIDIA H200 SXM 141GB, TP 2, context 2k': a panel's device, model (where several), config values and context;
    the config columns `said` by the figure's title (_said_once) left out."""
    parts = [_name(meta, "hardware", key["hardware"])]
    if several_models:
        parts.append(_name(meta, "model", key["model"]))
    parts += [label for c in PANEL_CONFIG_COLUMNS if c in key and c not in said and (label := _config_label(meta, c, key[c]))]
    if "context" in key:
        parts.append(f"context {_ctx(key['context'])}")
    refused = refusals_drawn(meta, key)  # qa231, qa237: a refused panel read as a gain
    if refused:
        parts.append(("speculation " if all(e.get("speculative_only") for e in refused) else "")
                     + f"not run by {refused[0]['engine']}")
    return ", ".join(parts)


def _said_once(meta: dict, by: tuple, keys: list[tuple], note: str) -> frozenset:
    """The config columns every panel holds one value of that the subset note says ('TP 2 only'; a layout's degrees
    together, as _panels narrows them: 'TP 1, DP-attention 2, EP 2 only'): said by the title, not again in each panel's
    (qa377: 'engine vllm, fp8 weights, TP 2' in four panels under 'engine vllm only, fp8 weights only, TP 2 only';
    qa381: a layout's EP alone taken as said, its panels reading TP 1, DP-attention 2)."""
    one = [c for i, c in enumerate(by) if c in PANEL_CONFIG_COLUMNS and len({key[i] for key in keys}) == 1]
    layout = [c for c in by if c in LAYOUT_DEGREES]
    said = {c for c in one if c not in LAYOUT_DEGREES and _said(_config_label(meta, c, keys[0][by.index(c)]), note)}
    if layout and set(layout) <= set(one) and _said(_layout_value_label(meta, tuple(layout),
                                                                        tuple(keys[0][by.index(a)] for a in layout)), note):
        said |= set(layout)
    return frozenset(said)


_DEGREE_LABEL = re.compile(r"(TP|DP-attention|EP|PP) \d+")  # one degree of a layout's label: never narrowed alone


def _said(value: str, note: str) -> bool:
    """Whether the subset note says '`value` only' as one of its items (at its start or after ', ', and at its end or
    before ', '), spaces as plain spaces."""
    note, text = note.replace(NBSP, " "), f"{value.replace(NBSP, ' ')} only"
    at = note.find(text)
    while at >= 0:
        end = at + len(text)
        if (at == 0 or note[at - 2:at] == ", ") and (end == len(note) or note[end:end + 2] == ", "):
            return True
        at = note.find(text, at + 1)
    return False


def _shown_values(meta: dict, key: dict, column: str) -> set[str] | None:
    """The values of `column` a panel (its `key`) or a figure (key {}) draws, as text: the panel's own, else the ones
    its meta holds (a list, one value, a device table's names, the degrees of its layouts: 'tp 2, pp 2'); None where
    the meta does not say."""
    if column in key:
        return {str(key[column])}
    by_model = (meta.get("dtypes_by_model") or {}).get(str(key.get("model")), {})  # a panel's model's own dtypes
    if column in ("weight_dtype", "expert_dtype") and by_model.get(column):
        return {str(v) for v in by_model[column]}
    if column in ("tp", "dp_attention", "ep", "pp"):
        layouts = meta.get("layouts") or []
        if not layouts:
            return None
        return {_layout_degree(layout, column) or "1" for layout in layouts}
    value = meta.get(column)
    if value is None:
        return None
    return {str(v) for v in (value if isinstance(value, (list, dict)) else [value])}


def refusals_drawn(meta: dict, key: dict | None = None) -> list[dict]:
    """The refusals (meta's `refused`: plot_jobs.refused_meta) among what a panel (`key`) or a whole figure (None)
    draws: each of an entry's values is one the panel or figure shows (a panel: its own one value; a figure: any of
    its values, or any value where its meta does not say, as an older table's scenario.json without `layouts`, qa239)."""
    out = []
    for entry in meta.get("refused") or []:
        if not isinstance(entry, dict):
            continue
        shown = [(_shown_values(meta, key or {}, c), str(v)) for c, v in entry.items() if c not in ("note", "speculative_only")]
        if key is None and all(values is None or v in values for values, v in shown):
            out.append(entry)
        elif key is not None and all(values is not None and len(values) == 1 and v in values for values, v in shown):
            out.append(entry)
    return out


def _figure(n: int, width: float = 5.6, height: float = 4.2, legend_in: float = 0.0, share_y: bool = False,
            share_x: bool = False) -> tuple[Figure, list]:
    """n panels of width x height inches (one row up to three, else two, three or, for eight, four columns), plus room for a
    side legend; `share_y` (`share_x`) puts every panel on the same y (x) scale so that hardware compare at a glance."""
    ncols = n if n <= 3 else 2 if n == 4 else 4 if n == 8 else 3
    nrows = math.ceil(n / ncols)
    fig = Figure(figsize=(width * ncols + legend_in, height * nrows + 0.8), dpi=DPI)  # laid out by `arrange`
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False, sharey=share_y, sharex=share_x).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, list(axes[:n])


# ---------------------------------------------------------------- layout: measured once, not searched

MARGIN_PAD_PT = 5.0  # space between blocks of the layout and around the figure's edge
COLORBAR_WIDTH_IN = 0.16
_ARRANGED: "weakref.WeakSet[Figure]" = weakref.WeakSet()


def _extent_px(texts, along: str) -> float:
    """The largest width ('x') or height ('y') in pixels of the visible, non-empty `texts`."""
    renderer = None
    sizes = []
    for t in texts:
        if t.get_visible() and t.get_text():
            renderer = renderer or t.figure.canvas.get_renderer()
            box = t.get_window_extent(renderer)
            sizes.append(box.width if along == "x" else box.height)
    return max(sizes, default=0.0)


class _InView(Locator):
    """The ticks of locator `base` that lie in the axis's view, no others. A log locator returns a decade or more
    beyond each side of the view, and matplotlib builds a Tick (two lines, two texts) for every location a
    locator returns, updates it and then drops the ones outside the view: on the standard plots that was about
    half of every tick built. The view test is matplotlib's own (in the axis's transformed coordinates), with a
    wider tolerance, so every tick matplotlib would draw is kept."""

    def __init__(self, base: Locator):
        self.base = base

    def set_axis(self, axis) -> None:
        super().set_axis(axis)
        self.base.set_axis(axis)

    def __call__(self):
        locs = np.asarray(self.base(), dtype=float)
        if locs.size == 0 or self.axis is None:
            return locs
        transform = self.axis.get_transform()
        lo, hi = sorted(transform.transform(np.asarray(self.axis.get_view_interval(), dtype=float)))
        with np.errstate(invalid="ignore", divide="ignore"):
            at = np.asarray(transform.transform(locs), dtype=float)
        tol = 1e-6 * max(hi - lo, 1e-300)
        return locs[~np.isfinite(at) | ((at >= lo - tol) & (at <= hi + tol))] if np.isfinite(lo + hi) else locs

    def tick_values(self, vmin, vmax):
        return self.base.tick_values(vmin, vmax)

    def nonsingular(self, v0, v1):
        return self.base.nonsingular(v0, v1)

    def view_limits(self, vmin, vmax):
        return self.base.view_limits(vmin, vmax)


def _ticks_in_view(ax) -> None:
    """Wrap both locators of both axes of `ax` in _InView (once)."""
    for axis in (ax.xaxis, ax.yaxis):
        if not isinstance(axis.get_major_locator(), _InView):
            axis.set_major_locator(_InView(axis.get_major_locator()))
        if not isinstance(axis.get_minor_locator(), _InView):
            axis.set_minor_locator(_InView(axis.get_minor_locator()))


def _tick_labels(axis) -> list:
    """The tick labels (major and minor, both sides) that the axis draws: its ticks updated once, as drawing
    would (Axis._update_ticks returns the ticks inside the view)."""
    return [label for tick in axis._update_ticks() for label in (tick.label1, tick.label2)]


def _decorations_px(ax) -> dict:
    """What `ax` draws outside its frame, in pixels: left (y ticks, tick labels, y label), bottom (x ticks, tick
    labels, x label), top (title) and right (the half of an x tick label that overhangs the frame)."""
    pt = ax.figure.dpi / 72.0
    ytl, xtl = _tick_labels(ax.yaxis), _tick_labels(ax.xaxis)
    y_tick = (ax.yaxis.get_tick_params().get("length", 3.5) + 3.5) * pt if ytl else 0.0
    x_tick = (ax.xaxis.get_tick_params().get("length", 3.5) + 3.5) * pt if xtl else 0.0
    y_label = _extent_px([ax.yaxis.label], "x")
    x_label = _extent_px([ax.xaxis.label], "y")
    return {
        "left": y_tick + _extent_px(ytl, "x") + (y_label + 4 * pt if y_label else 0.0),
        "bottom": x_tick + _extent_px(xtl, "y") + (x_label + 4 * pt if x_label else 0.0),
        "top": _extent_px([ax.title], "y") + (6 * pt if ax.get_title() else 0.0),
        "right": _extent_px(xtl, "x") / 2,
    }


def _fit_title(fig: Figure, room_px: float) -> None:
    """Re-wrap the figure title, line by line, where a line is wider than `room_px`."""
    title = fig._suptitle
    if title is None or _extent_px([title], "x") <= room_px:
        return
    renderer = fig.canvas.get_renderer()

    def width_px(text: str) -> float:
        return Text(text=text, fontproperties=title.get_fontproperties(), figure=fig).get_window_extent(renderer).width

    lines = []
    for line in title.get_text().split("\n"):
        pieces = math.ceil(width_px(line) / room_px)  # as few lines as fit, of about equal length
        wrapped = line
        for more in range(8):  # a line of wide letters (capitals: 'NVIDIA H100 SXM5') wider than its share of characters
            chars = len(line) if pieces + more <= 1 else max(20, math.ceil(len(line) / (pieces + more) * 1.1))
            wrapped = _tidy_breaks(textwrap.fill(line, chars, break_on_hyphens=False))  # ran off both edges (qa375):
            if all(width_px(part) <= room_px for part in wrapped.split("\n")):  # one more line until each fits
                break
        lines.append(wrapped)
    title.set_text("\n".join(lines))


def _fit_panel_titles(panels: list, room_px: float) -> bool:
    """Re-wrap each panel title wider than `room_px` (its frame and the room beside it), between its comma-separated
    parts (_wrap_parts) at as many characters as fit; whether any was (qa256: a heatmap's last title ran under its
    colour bar, which `_wrap_panel_title`'s estimate from the figure's width does not see)."""
    changed = False
    for ax in panels:
        width = _extent_px([ax.title], "x")
        if not ax.get_title() or width <= room_px:
            continue
        text = _raw_title(ax)
        chars = max(12, int(len(max(ax.get_title().split("\n"), key=len)) * room_px / width))
        ax.set_title(_wrap_parts(text, chars))
        changed = True
    return changed


def _tidy_breaks(text: str) -> str:
    """Wrapped title lines without a separator left at a line's end or start ('... engine vllm ·' / '· NVIDIA ...'):
    the line break separates them already."""
    return "\n".join(line.removesuffix(" ·").removeprefix("· ") for line in text.split("\n"))


def arrange(fig: Figure) -> None:
    """Lay out a figure of a grid of panels (`Figure.subplots`), a figure title, legends at the right edge
    (`fig.legend(loc="outside right center")`) and colour bars in axes of their own (`fig.add_axes`):

        left   = max_panels(y ticks + y tick labels + y label) + pad
        wspace = max_panels(left decorations) + max_panels(x tick label overhang) + pad
        bottom = max_panels(x ticks + x tick labels + x label) + footer + pad
        hspace = max_panels(bottom decorations) + max_panels(panel title) + pad
        top    = figure title + max_panels(panel title) + 2 pad
        right  = max(legend width, colour bar with its labels) + x tick label overhang + 2 pad

    each text measured once on the figure's own renderer (whose cache the drawing then reuses), where
    constrained layout measures every artist of every panel over several passes: on the standard plots
    that layout was about 40% of a figure's drawing time. A figure title wider than the figure is re-wrapped
    first (`_fit_title`). Idempotent: a figure is arranged once."""
    if fig in _ARRANGED:
        return
    _ARRANGED.add(fig)
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_subplotspec() is not None]
    bars = [ax for ax in fig.axes if ax.get_visible() and ax.get_subplotspec() is None]
    if not panels:
        return
    nrows, ncols = panels[0].get_subplotspec().get_gridspec().get_geometry()
    width_px, height_px = fig.bbox.width, fig.bbox.height
    pad = MARGIN_PAD_PT * fig.dpi / 72.0
    for ax in panels:
        _ticks_in_view(ax)
    deco = [_decorations_px(ax) for ax in panels]
    most = {side: max(d[side] for d in deco) for side in ("left", "bottom", "right")}
    _fit_title(fig, width_px - 2 * pad)
    title_px = _extent_px([fig._suptitle], "y") if fig._suptitle is not None else 0.0
    footer_px = _extent_px([t for t in fig.texts if str(t.get_gid()).startswith(FOOTER_GID)], "y")  # under the x labels
    renderer = fig.canvas.get_renderer()
    strip_px = max((legend.get_window_extent(renderer).width for legend in fig.legends), default=0.0)
    legend_px = max((legend.get_window_extent(renderer).height for legend in fig.legends), default=0.0)
    if legend_px + title_px + footer_px + 2 * pad > height_px:  # a legend taller than the room under the title: the
        # figure grows to hold it (qa225: a one-panel roofline figure's legend ran over its title's last line)
        fig.set_size_inches(fig.get_figwidth(), (legend_px + title_px + footer_px + 2 * pad) / fig.dpi)
        width_px, height_px = fig.bbox.width, fig.bbox.height
    bar_px = []
    for bar in bars:
        d = _decorations_px(bar)
        bar_px.append(COLORBAR_WIDTH_IN * fig.dpi + d["left"])  # the bar's ticks and label sit on its right
        bar.yaxis.set_ticks_position("right")
        bar.yaxis.set_label_position("right")
    strip_px = max([strip_px, *bar_px])
    left = most["left"] + pad
    right = strip_px + most["right"] + 2 * pad
    gap_w = most["left"] + most["right"] + pad
    axes_w = max((width_px - left - right - (ncols - 1) * gap_w) / ncols, 1.0)
    # a centred panel title may overhang its frame by half a gap, and the last column's by the room before the strip
    edge_px = pad + most["right"] if (bars or fig.legends) else right
    if _fit_panel_titles(panels, axes_w + min(gap_w if ncols > 1 else math.inf, 2 * edge_px)):
        deco = [_decorations_px(ax) for ax in panels]
    most["top"] = max(d["top"] for d in deco)
    bottom = most["bottom"] + footer_px + pad
    top = title_px + most["top"] + (2 * pad if title_px else pad)
    gap_h = most["bottom"] + most["top"] + pad
    axes_h = max((height_px - top - bottom - (nrows - 1) * gap_h) / nrows, 1.0)
    fig.subplots_adjust(left=left / width_px, right=1 - right / width_px, bottom=bottom / height_px,
                        top=1 - top / height_px, wspace=gap_w / axes_w, hspace=gap_h / axes_h)
    if fig._suptitle is not None:
        fig._suptitle.set_y(1 - pad / height_px)
        fig._suptitle.set_verticalalignment("top")
    plot_top, plot_bottom = 1 - top / height_px, bottom / height_px
    for legend in fig.legends:  # centred on the room under the title, not on the figure (which holds the title too)
        room_top, room_bottom = 1 - (title_px + pad) / height_px, (footer_px + pad) / height_px
        legend.set_bbox_to_anchor((1.0, (room_top + room_bottom) / 2), transform=fig.transFigure)
    for bar in bars:  # in the right strip, 90% of the panels' height, centred
        h = (plot_top - plot_bottom) * 0.9
        x0 = 1 - (right - pad - most["right"]) / width_px  # past the panels' tick labels that overhang their right
        # edge (qa190: a two-row heatmap's last tick, '1024', ran under the bar)
        bar.set_position([x0, plot_bottom + (plot_top - plot_bottom - h) / 2, COLORBAR_WIDTH_IN * fig.dpi / width_px, h])


FOOTER_GID = "roofline-footer"  # the footer's artist id: `arrange` keeps the panels' x labels above it


def _title(fig: Figure, what: str, meta: dict, models: list[str], note: str, gains: bool = True) -> None:
    """Two-part title (what is shown, its lines split at newlines; the fixed parameters), each line wrapped to the
    figure's width in lines of about equal length (`_balanced_fill`). A setup part that the subset note names
    ('engine vllm' beside 'engine vllm only'), one of whose values it keeps or one of its items (_unsaid), is said once,
    by the note. `gains`: whether the figure shows speculative
    gains (the footer's caveat on them: not on a figure of pass times, qa337)."""
    parts = [part for part in (_unsaid(part, note) for part in _setup_line(meta, models).split(" · ")) if part]
    line = " · ".join([*parts, *([note] if note else [])])
    fig.suptitle("\n".join(_balanced_fill(part, title_chars(fig)) for part in (*what.split("\n"), line)))
    footer(fig, meta, gains)


def _unsaid(part: str, note: str) -> str:
    """A title's setup part less what the subset `note` says ('X only', _said): '' where it is the part, or one of its
    values ('TP 2 / TP 4 / TP 8' beside 'TP 2 only', qa377; a layout 'TP 1, DP-attention 2, EP 2' whole); else its
    items the note says ('fp8 weights, bf16 KV' beside 'fp8 weights only': 'bf16 KV'), a layout's degrees kept (never
    narrowed alone: qa381, 'EP 2' dropped)."""
    plain = part.replace(NBSP, " ")
    if any(_said(value, note) for value in (plain, *plain.split(" / "))):
        return ""
    return ", ".join(item for item in part.split(", ")
                     if _DEGREE_LABEL.fullmatch(item.replace(NBSP, " ")) or not _said(item, note))


def title_chars(fig: Figure) -> int:
    """Characters a title line of `fig` holds (about 10.5 an inch at the title's size; 40 at least)."""
    return max(40, int(fig.get_figwidth() * 10.5))


def wrapped_title(fig: Figure, text: str) -> None:
    """`text` as `fig`'s title, in lines of about equal length that fit its width (qa310: one line ran off both
    edges)."""
    fig.suptitle(_balanced_fill(text, title_chars(fig)))


def footer(fig: Figure, meta: dict, gains: bool = True, steady: bool = True) -> None:
    """'predicted by roofline's model, not measured' (and what engine ideal means, where drawn; that speculative gains
    run optimistic from OPTIMISTIC_BATCH, where a serving engine speculates that far; that a batch above an engine's
    speculating cap assumes it raised, meta's `speculating_caps`; the rows drawn that no setup of their engine runs,
    meta's `refused`) at the bottom right, once: a
    figure shared on its own still says what it is, as the sweep's warning says it on the terminal. `arrange` keeps
    the panels' x labels above it. `steady`: whether the figure shows steady decoding, which a serving benchmark's
    time per token exceeds by the prefills of arriving prompts (the caveat saying so; not on the serving figure)."""
    if any(t.get_gid() == FOOTER_GID for t in fig.texts):
        return
    engines = meta.get("engine") or []
    engines = engines if isinstance(engines, list) else [engines]
    ideal = "\nengine ideal: the roofline bound, no serving engine's costs" if "ideal" in engines else ""
    methods = meta.get("method") or []
    ks = [k for k in (meta.get("axes") or {}).get("k") or [1] if k is not None]  # k 0 alone drafts nothing (qa111)
    speculating = any(m != "none" for m in (methods if isinstance(methods, list) else [methods])) and any(k > 0 for k in ks)
    batches = [b for b in (meta.get("axes") or {}).get("batch") or [] if b is not None]
    late = [e for e in engines if batches and optimistic(max(batches), e)] if speculating and gains else []
    caveat = f"\n{OPTIMISTIC} (under {', '.join(late)}: docs/ACCURACY.md)" if late else ""
    request = meta.get("prompt") or meta.get("serving_columns")  # a request's sweep (serving_columns: its table, no
    # scenario.json beside it)
    if (speculating or request) and gains and steady:  # qa342: a chat workload's gains read at 2x where its serving
        # TPOT gives 1.3x; qa347: a plain request sweep's speeds read at 3x a benchmark's concurrency, unsaid
        figure = " and serving figure" if len(batches) >= 2 else ""  # drawn with two batches (qa351: named where not)
        caveat += ("\nsteady decoding: a serving benchmark's time per token adds arriving prompts' prefills "
                   + (f"(this sweep's serving_* columns{figure}; cheapest --serving)" if request else
                      "(predict --prompt P --output-len O, or a scenario's prompt and output_len)"))
    caps = {e: c for e, c in ((meta.get("speculating_caps") or {}).items()) if e in engines and batches and max(batches) > c}
    if speculating and caps:  # as the sweep's warning says it (qa229), on the figure shared alone too
        caveat += "\n" + "; ".join(f"under {e} a speculating batch above {c:,} assumes its cap raised "
                                   "(max_running_requests_speculating)" for e, c in caps.items())
    refused = list(dict.fromkeys(e["note"] for e in refusals_drawn(meta)))  # rows drawn no setup of their engine runs
    chars = max(60, int(fig.get_figwidth() * 17))  # a line's characters at 6.5 pt across the figure
    said = "\ndrawn as computed, though no setup of their engine runs them: " + "; ".join(refused) if refused else ""
    text = f"predicted by roofline's model, not measured{ideal}{caveat}{said}"
    text = "\n".join(_balanced_fill(line, chars) if len(line) > chars else line  # qa357: a long caveat ran off the
                     for line in text.split("\n"))  # figure's left edge on a narrow figure
    fig.text(0.995, 0.004, text, ha="right", va="bottom", fontsize=6.5, color="0.45", gid=FOOTER_GID)


def _balanced_fill(text: str, chars: int) -> str:
    """`text` wrapped at most `chars` a line, in as few lines as that allows, of about equal length: no line of one
    orphaned word. Width: the narrowest from ceil(len / lines) up to `chars` that needs no more lines."""
    lines = len(textwrap.wrap(text, chars, break_on_hyphens=False)) or 1
    for width in range(min(math.ceil(len(text) / lines), chars), chars + 1):
        wrapped = textwrap.wrap(text, width, break_on_hyphens=False)
        if len(wrapped) <= lines:
            return _tidy_breaks("\n".join(wrapped))
    return _tidy_breaks(textwrap.fill(text, chars, break_on_hyphens=False))


# each operator's colour, the same in every roofline figure whichever operators a sweep has (tab20's dark shades by
# costs.OPERATORS order, then light ones; a lightning indexer in attention's light green)
PASS_NAMES = {"decode": "decode step", "verify": "verify pass"}  # the glossary's names of the two passes
OPERATOR_COLORS = {op: colormaps["tab20"](i) for op, i in zip(
    ("embedding", "input_proj", "qkv_proj", "attention", "indexer", "kv_write", "o_proj", "mlp", "router", "experts",
     "shared_experts", "norms", "lm_head"), (14, 15, 0, 4, 5, 17, 2, 6, 8, 10, 12, 18, 16))}

MIN_TICK_OCTAVES = 0.6  # the closest two labelled batch ticks sit on a log-2 axis (384 -> 512 is 0.42)


def _log2_axis(ax, values) -> None:
    """Log-2 x axis with plain-number ticks: the values themselves when few (each at least MIN_TICK_OCTAVES from the
    last one kept, so 384 and 512 do not print as '384512'), else every (other) power of 2."""
    ax.set_xscale("log", base=2)
    vals = np.unique(np.asarray(values, dtype=float))
    vals = vals[vals > 0]  # a log axis has no 0 (qa486: a context of 0 divided by zero here, a numpy warning printed)
    if not len(vals):
        return
    if len(vals) <= 10:
        ticks = [vals[0]]
        for v in vals[1:]:
            if np.log2(v / ticks[-1]) >= MIN_TICK_OCTAVES:
                ticks.append(v)
    else:
        lo, hi = math.floor(np.log2(vals[0])), math.ceil(np.log2(vals[-1]))
        ticks = 2.0 ** np.arange(lo, hi + 1, 1 if hi - lo <= 10 else 2)
    ax.set_xticks(ticks)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def _plain(v: float, _=None) -> str:
    """Tick label as a plain number: 0.5, 20, 1,000."""
    return f"{v:,.0f}" if v >= 1 else f"{v:g}"


class _PlainTicks(Formatter):
    """Tick labels as plain numbers (`_plain`), with as many decimals (up to 3) as the ticks shown need to be written
    exactly, else as make their labels distinct: over a narrow range 33.25, 33.50, 33.75, not 33, 34, 34."""

    decimals = 0

    def set_locs(self, locs):
        super().set_locs(locs)
        vals = np.unique(np.asarray(locs, dtype=float))
        vals = vals[vals >= 1]  # below 1, `_plain` writes the value as it is (0.1, 0.01)
        exact = (d for d in range(4) if np.allclose(np.round(vals, d), vals, rtol=1e-6, atol=0))
        distinct = (d for d in range(4) if len(np.unique(np.round(vals, d))) == len(vals))
        self.decimals = next(exact, next(distinct, 3))

    def __call__(self, v, pos=None):
        return _plain(v) if self.decimals == 0 or v < 1 else f"{v:,.{self.decimals}f}"


def _log_axis(ax, which: str, stepped_decades: float = 3.0) -> None:
    """Log scale with plain-number ticks: 1-2-3-5 or 1-2-5 steps over up to `stepped_decades` decades (three: a narrower
    axis passes fewer, where wide labels like 10,000 would meet), decades beyond."""
    axis = ax.xaxis if which == "x" else ax.yaxis
    (ax.set_xscale if which == "x" else ax.set_yscale)("log")
    lo, hi = ax.get_xlim() if which == "x" else ax.get_ylim()
    decades = math.log10(hi / lo) if lo > 0 and hi > lo else 1.0
    subs = (1.0, 2.0, 3.0, 5.0) if decades <= min(1.5, stepped_decades) else (1.0, 2.0, 5.0) if decades <= stepped_decades else (1.0,)
    if decades <= 0.7:  # under a 5x range 1-2-3-5 labels two ticks (qa454: 14-45 ms read off 20 and 30 alone)
        subs = (1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(_PlainTicks())
    axis.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0)) if decades <= 3 else NullLocator())
    axis.set_minor_formatter(NullFormatter())


def _shared_legend(fig: Figure, axes: list, **kwargs) -> None:
    """One legend for all panels (they share their series), to the right of the figure."""
    handles, labels = max((ax.get_legend_handles_labels() for ax in axes), key=lambda hl: len(hl[0]))
    if handles:  # no series drawn (every panel says why): no empty legend box
        fig.legend(handles, labels, loc="outside right center", **kwargs)


def _memory_limits(sub: pd.DataFrame, drawn: pd.DataFrame, base: pd.DataFrame) -> tuple[float, float, float, float]:
    """The arguments of `_shade_memory_limit` for a panel's rows `sub`: the band starts past the largest batch that fits
    with speculation (max_batch) where a speculative line is drawn, else past plain decoding's (`base`: its rows that
    fit); the axis's largest batch; the largest batch `drawn`; plain decoding's batch cap (baseline_max_batch, else
    its largest batch drawn)."""
    plain = float(sub["baseline_max_batch"].max()) if "baseline_max_batch" in sub.columns else float(base["batch"].max()) if len(base) else 0.0
    drafting = sub[sub["k"] > 0] if (sub["k"] > 0).any() else sub  # with the drafter and its k + 1 tokens: k = 0 is plain's
    limit = float(drafting["max_batch"].max()) if drawn is not base else plain
    drawn_max = max(float(drawn["batch"].max()) if len(drawn) else 0.0, float(base["batch"].max()) if len(base) else 0.0)
    return limit, float(sub["batch"].max()), drawn_max, plain


def _shade_memory_limit(ax, limit: float, x_max: float, drawn_max: float, plain_max: float = 0.0,
                        two_lines: bool = False) -> bool:
    """Grey out batches past `limit` (the largest batch that fits in device memory) and say so, written upwards at
    mid-height where no point is drawn (the plots calling this draw only points that fit, up to batch `drawn_max`):
    centred in the grey band, on two lines, where the band is at least 8% of the axis wide; else on one line, in the
    band where it is at least 4% wide, else just left of it where the axis is free of points there (right of
    `drawn_max` by 4%), else in the band. Where plain decoding fits past the band's start (`plain_max`, its batch
    cap, > `limit`: the drafter and its k + 1 tokens take the memory), the note says speculation does not fit
    there and how far plain decoding does; `two_lines`: on two lines however narrow the band (half as tall: clear of a
    figure's labels at the panel's foot). Returns whether it shaded anything."""
    if limit >= x_max:
        return False
    lo, hi = ax.get_xlim()
    start = max(limit, lo)
    ax.axvspan(start, hi, color="0.85", alpha=0.6, zorder=0, lw=0)
    ax.set_xlim(lo, hi)
    to_axes = ax.transData + ax.transAxes.inverted()  # data -> axes fraction, whatever the scale
    x0, x1, last = to_axes.transform([(v, ax.get_ylim()[1]) for v in (start, hi, max(drawn_max, lo))])[:, 0]
    wide, beside = x1 - x0 >= 0.08 or two_lines, x1 - x0 < 0.04 and x0 - last >= 0.06
    text = f"does not fit in memory{chr(10) if wide else ' '}(batch > {limit:,.0f})"
    if plain_max > limit:
        text = (f"speculation fits at no batch{chr(10) if wide else ' '}(plain decoding fits to {plain_max:,.0f})"
                if limit < 1 else  # qa351: '(batch > 0; ...)'
                f"speculation does not fit{chr(10) if wide else ' '}(batch > {limit:,.0f}; plain decoding fits to {plain_max:,.0f})")
    ax.text(x0 - 0.01 if beside else (x0 + x1) / 2, 0.5, text, transform=ax.transAxes, rotation=90, ha="right" if beside else "center",
            va="center", fontsize=7, color="0.35", multialignment="center")
    return True


def _alpha_colors(alphas) -> dict:
    n = len(alphas)
    return {a: colormaps["viridis"](0.85 * i / max(n - 1, 1)) for i, a in enumerate(alphas)}


def _line_alphas(df: pd.DataFrame, most: int = 6) -> tuple[list, str]:
    """The alpha values to draw one line each for: all of them, or `most` spread evenly (and a note saying so)."""
    alphas = alpha_values(df["alpha"])  # NaN (rates, a tree) one value, last, as the report's figures (qa133)
    if len(alphas) <= most:
        return alphas, ""
    picked = [alphas[i] for i in np.unique(np.round(np.linspace(0, len(alphas) - 1, most)).astype(int))]
    return picked, f"{len(picked)} of {len(alphas)} α values"


def _join(*notes: str) -> str:
    return ", ".join(n for n in notes if n)


def _panel_frames(df: pd.DataFrame, meta: dict, fitting: pd.DataFrame | None = None,
                  panel_by: tuple[str, ...] = ("hardware", "model", "context"), **figure_kw) -> tuple[Figure, list, list[str], str, dict]:
    """A figure with one panel per (hardware, model, context) of `df` (`panel_by`: (hardware, model) where the context
    is the x axis; see `_panels`, `fitting` the rows that count as a point that fits there), each titled (wrapped to the
    panel's width, `_wrap_panel_title`): returns the figure, [(axes, that panel's rows)], the models shown, the subset
    note and the meta of what is drawn (`_shown_meta`)."""
    by, keys, note = _panels(df, panel_by, meta, fitting=fitting)
    models = list(dict.fromkeys(k[1] for k in keys))
    fig, axes = _figure(len(keys), **figure_kw)
    panels = []
    said = _said_once(meta, by, keys, note)
    for ax, key in zip(axes, keys):
        _set_panel_title(ax, _panel_title(meta, dict(zip(by, key)), len(models) > 1, said))
        panels.append((ax, _panel_rows(df, by, key)))
    return fig, panels, models, note, _drawn_meta(meta, by, keys, len(panel_by))


def _drawn_meta(meta: dict, by: tuple, keys: list[tuple], grid: int) -> dict:
    """_shown_meta of the panels `keys` (their config columns past the first `grid`), its `refused` only those of a
    panel drawn, which the footer names (qa361: every panel runnable, the footer named refusals of a mix of the values
    they show)."""
    shown = _shown_meta(meta, by[grid:], [key[grid:] for key in keys])
    if shown.get("refused"):
        shown = {**shown, "refused": [e for e in shown["refused"]
                                      if any(e in refusals_drawn(meta, dict(zip(by, key))) for key in keys)]}
    return shown


_RAW_TITLES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # a panel's title before wrapping (its own lines)


def _set_panel_title(ax, title: str) -> None:
    """`title` on panel `ax`, wrapped to the panel's estimated width (_wrap_panel_title); kept unwrapped for `arrange`
    to wrap again where the laid-out frame is narrower (_fit_panel_titles)."""
    ax.set_title(_wrap_panel_title(ax.figure, title))
    _RAW_TITLES[ax] = title


def _raw_title(ax) -> str:
    """Panel `ax`'s title before wrapping: as _set_panel_title kept it, else its text with the wraps undone."""
    return _RAW_TITLES.get(ax) or ax.get_title().replace(",\n", ", ").replace("\n", " ")


def _wrap_panel_title(fig: Figure, title: str) -> str:
    """A panel title wrapped to its panel's width (about 12 characters of the title font per inch of the panel's
    frame), between its comma-separated parts where it can, so that neighbouring panel titles never run into each
    other."""
    ncols = fig.axes[0].get_subplotspec().get_gridspec().ncols if fig.axes else 1
    return _wrap_parts(title, max(24, int((fig.get_figwidth() / ncols - 1.2) * 12)))


def _wrap_parts(title: str, chars: int) -> str:
    """`title` wrapped to `chars` a line, between its comma-separated parts where it can; a part longer than a line
    is wrapped between its words, and the next part goes on after its last line where that fits (qa477: 'NVIDIA RTX
    PRO 6000 Blackwell Server / Edition, / context 4k', a short line between two)."""
    lines = []
    for line in title.split("\n"):
        rows = [""]
        for part in line.split(", "):
            joined = f"{rows[-1]}, {part}" if rows[-1] else part
            if len(joined) <= chars or not rows[-1]:  # each row at most `chars`, and its comma after (qa482: a
                rows[-1:] = textwrap.wrap(joined, chars, break_on_hyphens=False) or [""]  # wrapped part's last row
            else:  # took the comma's room too)
                rows[-1:] = [rows[-1] + ",", *(textwrap.wrap(part, chars, break_on_hyphens=False) or [""])]
        lines += rows
    return "\n".join(lines)


def _shown_meta(meta: dict, columns: tuple[str, ...], keys: list[tuple]) -> dict:
    """The meta of what a figure draws: each panel config column in `columns` (its values in the panel `keys`) holds
    the values shown, not every value of the sweep, so that the title's setup line describes the drawn panels."""
    shown = {**meta, **{column: list(dict.fromkeys(key[i] for key in keys)) for i, column in enumerate(columns)}}
    degrees = [(i, column) for i, column in enumerate(columns) if column in LAYOUT_DEGREES]
    if degrees and meta.get("layouts"):  # the layouts drawn, not every one swept (qa428: a per-panel choice of two
        drawn = {tuple(str(key[i]) for i, _ in degrees) for key in keys}  # layouts listed the third, drawn nowhere)
        shown["layouts"] = [layout for layout in meta["layouts"]
                            if tuple(_layout_degree(layout, column) or "1" for _, column in degrees) in drawn]
    return shown


def _memory_note(df: pd.DataFrame, note: str) -> str:
    return note if _any_fit(df) else _join(note, "nothing in this sweep fits in device memory")


def _any_fit(df: pd.DataFrame) -> bool:
    """Whether any point fits in device memory: plots of achievable throughput need one."""
    return bool(df["fits_in_memory"].astype(bool).any())


def _fitting_panels(panels):
    """(ax, rows, the rows that fit, plain decoding's rows: _baseline_rows) of each panel where something fits; a panel
    where nothing does is said so (_nothing_fits) and skipped: the batch-line and Pareto figures' per-panel start."""
    for ax, sub in panels:
        fit = sub[sub["fits_in_memory"].astype(bool)]
        base = _baseline_rows(sub)
        if fit.empty and base.empty:
            _nothing_fits(ax)
            continue
        yield ax, sub, fit, base


def _nothing_fits(ax, plain_max: float = 0.0) -> None:
    """Say that nothing of a panel fits in memory, on a bare frame: no ticks, no grid (its axes would mean nothing),
    except a y axis shared with other panels, whose tick labels the row's other panels read. `plain_max` > 0: a panel
    of speculation where only plain decoding fits, up to that batch (the drafter and its k + 1 tokens take the rest)."""
    text = ("speculation fits in device memory\nat no batch of this panel\n"
            f"(plain decoding fits to batch {plain_max:,.0f})" if plain_max >= 1 else "nothing fits in device memory\nin this panel")
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center")
    shared_y = len(ax.get_shared_y_axes().get_siblings(ax)) > 1
    ax.tick_params(which="both", bottom=False, labelbottom=False)
    ax.tick_params(which="both", left=shared_y, labelleft=shared_y and ax.get_subplotspec().is_first_col())
    ax.grid(False)


def _baseline_rows(df: pd.DataFrame) -> pd.DataFrame:
    """One row per batch at which plain decoding fits in memory, sorted by batch: batch <= baseline_max_batch (plain
    decoding's cap, without the drafter and its k + 1 tokens), or, in a table without that column, a batch where some
    row fits."""
    fits = df["batch"] <= df["baseline_max_batch"] if "baseline_max_batch" in df.columns else df["fits_in_memory"].astype(bool)
    return df[fits].drop_duplicates("batch").sort_values("batch")


def _baseline_devices(df: pd.DataFrame, meta: dict):
    """The devices plain decoding runs on, per row: the table's devices column (the target's tp x pp; an offloaded
    drafter's own device is not plain decoding's), else the meta's tensor-parallel degree."""
    return df["devices"].to_numpy(dtype=float) if "devices" in df.columns else float(_tp(meta))


def _best_k_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The rows at the throughput-best k of their (hardware, model, context, alpha, batch)."""
    return df[df["k"] == df["best_k"]]


def _speculation_fits(df: pd.DataFrame) -> pd.Series:
    """Per row: whether some row with k > 0 of its point (its panel's config, context, alpha and batch) fits in memory.
    Where none does, speculation does not fit there, whatever plain decoding (a k = 0 row) does: the heatmap greys
    such a cell and the best-k plot ends there, rather than showing 'k = 0, does not pay'."""
    keys = [c for c in ("hardware", "model", "context", *PANEL_CONFIG_COLUMNS) if c in df.columns]
    d = df.assign(alpha_key=df["alpha"].fillna(-1.0), spec_fit=df["fits_in_memory"].astype(bool) & (df["k"] > 0))
    return d.groupby([*keys, "alpha_key", "batch"], observed=True, dropna=False)["spec_fit"].transform("any")


def _ranked_points(df: pd.DataFrame) -> pd.DataFrame:
    """The rows of `df` ordered so that the first of each (alpha, batch) of a panel is that point's best row: the row
    at the table's best k (k = best_k; best_k = 0, when the k axis holds 0, is the k = 0 row: no speculation, speedup 1),
    else, where the table names no best k (best_k = -1: nothing fits, or a tree, whose best depth is unknown), the
    fitting row that drafts (k > 0: a tree's, at its one depth) of the highest tokens/s, else one that does not draft,
    else a row that does not fit. Only those candidates are kept (the rows at
    best k, and every row of a point without one), sorted by (at best k, fits, tokens/s), descending:
    `drop_duplicates(["alpha", "batch"])` then picks."""
    df = df[(df["k"] == df["best_k"]) | (df["best_k"] < 0)]
    # a point without a best k drafts where it can (a tree's row at its one depth, not plain decoding's beside it: qa345,
    # a losing tree drawn as the baseline)
    ranked = df.assign(at_best_k=(df["k"] == df["best_k"]), fits_rank=df["fits_in_memory"].astype(bool),
                       drafts=(df["best_k"] < 0) & (df["k"] > 0))
    return ranked.sort_values(["at_best_k", "fits_rank", "drafts", "tokens_per_s"], ascending=False, kind="stable").drop(
        columns=["at_best_k", "fits_rank", "drafts"])


# ---------------------------------------------------------------- the standard plots

def _legacy_operator_dtypes(sub: pd.DataFrame, hardware: str, weight: str) -> pd.DataFrame:
    """An operators table of a version before per-operator ceilings (one ceiling per config, the main GEMM's): its
    attention, elementwise and unquantised operators (embedding, LM head, router) given the device's bf16 peak and
    ceiling where the weights are quantised, as they run; the table's own values where the profile cannot be read."""
    sub = sub.assign(compute_dtype=weight if weight not in ("", "mixed") else "")
    from roofline.layout import QUANTISED_DTYPES, UNQUANTISED_CLASSES

    if weight not in QUANTISED_DTYPES:
        return sub
    from roofline.errors import RooflineError
    from roofline.hardware import load_hardware

    try:
        hw = load_hardware(hardware)
    except RooflineError:
        return sub
    wide = sub["operator"].isin([*UNQUANTISED_CLASSES, "attention", "norms", "kv_write"])
    return sub.assign(compute_dtype=np.where(wide, "bf16", sub["compute_dtype"]),
                      peak_flops_per_s=np.where(wide, hw.peak_flops_per_s["bf16"], sub["peak_flops_per_s"]),
                      compute_ceiling_flops_per_s=np.where(wide, hw.compute_ceiling_flops_per_s("bf16"),
                                                           sub["compute_ceiling_flops_per_s"]))


def _plot_roofline(df: pd.DataFrame, ops: pd.DataFrame | None, meta: dict) -> Figure | None:
    """Operators of a decode and a verify step (a decode step only without speculation) on each panel's roofs, at
    two batches of the operators table (which
    holds the sweep's first context): the smallest, and the largest swept that fits in memory at that context in the
    results table (the largest swept where none fits, its legend entry saying so), read panel by panel: where the
    verify pass drawn fits, at a batch it fits (plain rows choose it in a panel where it fits nowhere), and of the
    drafter placements swept, at the first where a drafting row fits in that panel (the title says which). Under a
    serving engine the legend says that an operator's time holds the engine's kernel latencies. Where that large batch
    differs between panels, each panel's title names it and the legend says 'largest B that fits'."""
    if ops is None or ops.empty:
        return None
    speculate = _speculates(meta, df)
    ops = ops[(ops["flops"] > 0) & (ops["bytes"] > 0) & (ops["time_s"] > 0) & (speculate | (ops["pass"] == "decode"))]
    context = ops["context"].iloc[0] if "context" in ops.columns else None
    fitting = df[df["fits_in_memory"].astype(bool)]
    if context is not None:
        fitting = fitting[fitting["context"] == context]
    panel = [c for c in ("hardware", "model") if c in fitting.columns]

    def panel_keys(rows: pd.DataFrame) -> list[tuple]:
        return list(rows[panel].astype(str).itertuples(index=False, name=None))

    placements = list(dict.fromkeys(fitting["draft_hardware"].fillna("").astype(str))) if "draft_hardware" in fitting else []
    placed = ""  # the drafter's placement each panel's large batch is read at: the first swept where a drafting row fits
    if len(placements) > 1 and "k" in fitting.columns:  # there, as the other figures hold the first (qa283: B = 6 fit
        where = fitting["draft_hardware"].fillna("").astype(str).tolist()  # only with the drafter on an L4; qa284: per
        keys = panel_keys(fitting)  # panel, a panel whose first placement fits no drafting row kept its batch)
        drafted_at = set(zip(keys, where, (fitting["k"] > 0).tolist()))
        chosen = {key: next((p for p in placements if (key, p, True) in drafted_at), placements[0])
                  for key in dict.fromkeys(keys)}
        fitting = fitting[[chosen[key] == p for key, p in zip(keys, where)]]
        placed = (f"the largest batch that fits with the {_config_label(meta, 'draft_hardware', placements[0])}"
                  + ("" if set(chosen.values()) == {placements[0]} else
                     ", else at the first placement where speculation fits"))
    spec_fitting = None  # the rows where the verify pass drawn fits (None: no verify pass)
    every_method = False  # several methods swept, each fitting somewhere in every panel (the legend says so)
    if speculate and "k" in fitting.columns and (ops["pass"] == "verify").any():
        # the large batch is one where the verify pass drawn fits too (its k's rows; a drafter needs memory of its
        # own): plain rows fit to larger batches, and the verify pass was drawn at one that does not fit (qa105);
        # where no speculative row fits, the plain rows choose it and the verify pass is said not to fit (qa106)
        k_drawn = int(ops.loc[ops["pass"] == "verify", "q"].iloc[0]) - 1
        spec_fitting = fitting[fitting["k"] == k_drawn] if (fitting["k"] == k_drawn).any() else fitting[fitting["k"] > 0]
        if "method" in spec_fitting:  # a method no deployment runs for a model (its draft model of another tokenizer,
            # a layout its engine refuses) sets no panel's batch (qa336: the refused drafter's memory held Qwen at 64)
            from roofline.frontier import loadable

            runnable = loadable(spec_fitting, tuple(meta.get("profiles") or ()), meta)
            spec_fitting = runnable if len(runnable) else spec_fitting
        methods = spec_fitting["method"].astype(str).unique() if "method" in spec_fitting else []
        if len(methods) > 1:  # qa190: L4's 'B = 128' was EAGLE's and n-gram's, where the draft model fits to 74: a batch
            # where the verify pass fits under every method that fits in that panel at all (each drafter takes memory
            # of its own; qa191: one that fits nowhere there would leave the panel none)
            text = spec_fitting["method"].astype(str)
            there = text.groupby([spec_fitting[c] for c in panel]).transform("nunique")
            at_batch = text.groupby([spec_fitting[c] for c in [*panel, "batch"]]).transform("nunique")
            every_method = bool((there == len(methods)).all())  # every method fits somewhere in every panel
            spec_fitting = spec_fitting[at_batch == there]
        # a panel without a fitting verify pass reads its large batch off plain rows (qa106), each panel on its own
        # (qa284: one panel's verify rows left another none, drawn at the largest swept, 'does not fit')
        drafted = set(panel_keys(spec_fitting))
        fitting = pd.concat([spec_fitting, fitting[[key not in drafted for key in panel_keys(fitting)]]])
    by, keys, note = _panels(ops, ("hardware", "model"), meta, fitting=fitting)
    models = list(dict.fromkeys(k[1] for k in keys))
    title_meta = _drawn_meta(meta, by, keys, 2)
    fig, axes = _figure(len(keys), width=6.0, height=4.6, legend_in=2.2)
    op_names = list(dict.fromkeys(ops["operator"]))
    op_color = {op: OPERATOR_COLORS.get(op, "0.5") for op in op_names}  # one colour per operator in every figure
    marker = {"decode": "o", "verify": "^"}
    shown, labels, larges = [], [], []
    top_dtypes, lower_roofs = set(), {}  # the dtype of each panel's highest roof; {dtype: operators} of the lower ones
    drawn_batches: set[int] = set()  # every panel's batches drawn: one where a selection (--where batch=) left one
    drawn_ops: set[str] = set()  # the operators drawn: the legend's (qa431: a MoE model's, its panels left out)
    for ax, key in zip(axes, keys):
        sub = _panel_rows(ops, by, key)
        if "compute_dtype" not in sub.columns:  # an operators table written before it had one: its ceilings were the main GEMM's
            sub = _legacy_operator_dtypes(sub, key[0], str(sub["weight_dtype"].iloc[0]) if "weight_dtype" in sub.columns
                                          else str(_one(meta.get("weight_dtype") or "bf16")))
        c = sub.loc[sub["peak_flops_per_s"].idxmax()]  # the highest roof: the fastest dtype any operator computes in
        peak, bw = c["peak_flops_per_s"], c["mem_bw_bytes_per_s"]
        ceil, mbw = c["compute_ceiling_flops_per_s"], c["memory_ceiling_bytes_per_s"]
        top_dtypes.add(c["compute_dtype"])
        batches = np.sort(sub["batch"].unique())
        shared = [column for column in by if column in fitting.columns]
        panel = tuple(key[by.index(col)] for col in shared)
        # this panel's batches at which the rows chosen above fit, and at which the verify pass drawn fits
        fit_batches, verify_fits = (batches[np.isin(batches, _panel_rows(rows, tuple(shared), panel)["batch"])]
                                    for rows in (fitting, fitting if spec_fitting is None else spec_fitting))
        large = fit_batches[-1] if len(fit_batches) else batches[-1]
        chosen = [batches[0]] + ([large] if large != batches[0] else [])
        drawn_batches.update(int(b) for b in chosen)
        larges += [(ax, large, bool(np.isin(large, fit_batches)))] if len(chosen) > 1 else []
        pts = sub[sub["batch"].isin(chosen)]
        intensity = pts["flops"] / pts["bytes"]
        x_lo = max(min(intensity.min(), 1.0) / 3, 1e-2)
        x_hi = max(intensity.max(), peak / bw) * 10
        x = np.logspace(np.log10(x_lo), np.log10(x_hi), 200)
        ax.plot(x, np.minimum(peak, bw * x) / 1e12, color="k", lw=1.8, label="peak roof")
        ax.plot(x, np.minimum(ceil, mbw * x) / 1e12, color="k", lw=1.2, ls="--", label="derated (achievable) roof")
        slower = pts[~np.isclose(pts["peak_flops_per_s"], peak, rtol=1e-6)]
        for lower, g in slower.groupby("peak_flops_per_s"):
            ax.plot(x, np.minimum(lower, bw * x) / 1e12, color="0.35", lw=1.0, ls="-.", zorder=2)  # operators of a slower dtype
            lower_roofs.setdefault(g["compute_dtype"].iloc[0], set()).update(g["operator"])
            # its derated roof and ridge, which its operators are bound against (qa400: an fp8 model's bf16 lm_head at
            # 240 FLOP/B, compute-bound past bf16's 194, read as memory-bound left of the fp8 ridge lines alone)
            low_ceil, low_mbw = g["compute_ceiling_flops_per_s"].iloc[0], g["memory_ceiling_bytes_per_s"].iloc[0]
            ax.plot(x, np.minimum(low_ceil, low_mbw * x) / 1e12, color="0.35", lw=0.9, ls=":", zorder=2)
            ax.plot([low_ceil / low_mbw] * 2, [1e-30, low_ceil / 1e12], color="0.55", lw=0.7, ls=":", zorder=2)
            ax.plot([low_ceil / low_mbw], [low_ceil / 1e12], "D", color="0.35", ms=3.5, zorder=5)
            ax.annotate(f"{g['compute_dtype'].iloc[0]} derated ridge {low_ceil / low_mbw:,.0f} FLOP/B",
                        (low_ceil / low_mbw, 0.03), xycoords=("data", "axes fraction"), xytext=(-3, 0),
                        textcoords="offset points", rotation=90, fontsize=7, color="0.35", ha="right", va="bottom")
        for ridge_x, ridge_y, ls, side, text in ((peak / bw, peak, "-", 1, "peak"), (ceil / mbw, ceil, "--", -1, "derated")):
            ax.plot([ridge_x, ridge_x], [1e-30, ridge_y / 1e12], color="0.4", lw=0.8, ls=ls, zorder=2)
            ax.plot([ridge_x], [ridge_y / 1e12], "D", color="k", ms=4, zorder=5)
            whose = f"{c['compute_dtype']} " if len(slower) and c["compute_dtype"] else ""  # beside another dtype's
            ax.annotate(f"{whose}{text} ridge {ridge_x:,.0f} FLOP/B", (ridge_x, 0.03), xycoords=("data", "axes fraction"),
                        xytext=(3 * side, 0), textcoords="offset points", rotation=90, fontsize=7, color="0.25",
                        ha="left" if side > 0 else "right", va="bottom")
        for (pass_name, batch), g in pts.groupby(["pass", "batch"], sort=True):
            filled = batch == chosen[-1] and len(chosen) > 1
            q = g["q"].iloc[0]
            for _, r in g.iterrows():
                col = op_color[r["operator"]]
                ax.plot(r["flops"] / r["bytes"], r["flops"] / r["time_s"] / 1e12, marker[pass_name], ms=7, mec=col,
                        mfc=col if filled else "white", mew=1.4, zorder=4, alpha=0.9)
            step_i = g["flops"].sum() / g["bytes"].sum()
            # the step holds min(B, pp) micro-batches' passes on the busiest stage (qa250: one's FLOPs over it, 1/m)
            passes = min(float(batch), float(g["pp"].iloc[0])) if "pp" in g and float(g["pp"].iloc[0]) > 1 else 1.0
            step_y = passes * g["flops"].sum() / g["step_time_s"].iloc[0] / 1e12
            ax.plot(step_i, step_y, marker[pass_name], ms=15, mec="k", mfc="none", mew=1.5, zorder=3)
            # the whole pass is open at every batch: its batch said beside it (qa459: the large open ring of batch 128
            # read as batch 1 by the legend's "open: the smallest B")
            labels.append((ax, step_i, step_y, f"whole {'verify' if pass_name == 'verify' else 'step'}, B={batch:g}"))
            shown.append((pass_name, batch, q, filled, bool(np.isin(batch, verify_fits if pass_name == "verify" else fit_batches))))
        labels += [(ax, *lab) for lab in _clusters(pts)]
        drawn_ops.update(pts["operator"])
        ax.set_xlim(x_lo, x_hi)
        y_lo = min((pts["flops"] / pts["time_s"]).min(), bw * x_lo) / 1e12 / 3
        ax.set_ylim(y_lo, peak / 1e12 * 2.5)
        _log_axis(ax, "x")
        _log_axis(ax, "y")
        ax.set_xlabel("arithmetic intensity (FLOP/byte)")
        ax.set_ylabel("performance (TFLOP/s): roofs attainable, points achieved")
        _set_panel_title(ax, _panel_title(meta, dict(zip(by, key)), len(models) > 1, _said_once(meta, by, keys, note))
                         + f"\npeak {peak / 1e12:,.0f} TFLOP/s, {bw / 1e12:.2f} TB/s")
    top = (f"{_one(sorted(top_dtypes))} operators" if len(top_dtypes) == 1 and "" not in top_dtypes
           else "each panel's fastest dtype")
    handles = [Line2D([], [], color="k", lw=1.8, label="peak roof" + (f" ({top})" if lower_roofs else "")),
               Line2D([], [], color="k", lw=1.2, ls="--", label="derated roof")]
    for dtype, names in sorted(lower_roofs.items()):  # each operator is drawn against the roof of the dtype it computes in
        shown_ops = [op for op in op_names if op in names]
        handles.append(Line2D([], [], color="0.35", lw=1.0, ls="-.",
                              label=f"{dtype or 'lower'} peak roof\n({', '.join(shown_ops)})"))
        handles.append(Line2D([], [], color="0.35", lw=0.9, ls=":", label=f"{dtype or 'lower'} derated roof"))
    if len({large for _, large, _ in larges}) > 1 or (len(larges) > 1 and len({fits for _, _, fits in larges}) > 1):  # differs
        # by panel, or in one it does not fit (qa225: an L4 panel where nothing fits drawn as one that does): each says
        for ax, large, fits in larges:
            _set_panel_title(ax, _raw_title(ax) + f" · filled: B = {large:,.0f}" + ("" if fits else " (does not fit)"))
        shown = [(p, None, q, True, True) if filled else (p, b, q, filled, fits) for p, b, q, filled, fits in shown]
    every_fits = all(fits for _, _, fits in larges)  # qa226: 'largest B that fits' beside a title saying it does not
    merged: dict[tuple, set] = {}  # one entry a marker: where it fits in one panel and not in another, said so (qa284:
    for pass_name, batch, q, filled, fits in shown:  # the verify pass at B = 1 was listed twice, fits and does not fit)
        merged.setdefault((pass_name, batch, q, filled), set()).add(fits)
    for (pass_name, batch, q, filled), fitting in merged.items():
        fits = all(fitting)
        label = (f"{PASS_NAMES[pass_name]}, {'largest B that fits' if every_fits else 'the large B'}\n(in each panel's "
                 f"title), q = {q:g}" if batch is None
                 else f"{PASS_NAMES[pass_name]}, B = {batch:g}, q = {q:g}" + ("" if fits else "\n(does not fit in memory)"
                                                                             if not any(fitting) else
                                                                             "\n(does not fit in some panels)"))
        if filled and every_method and (batch is None and every_fits or batch is not None and fits):  # the filled: the large batch, where every
            # method swept fits in every panel (else the batch is that of the methods that fit there)
            label += "\n(fits with every method swept)"
        handles.append(Line2D([], [], ls="", marker=marker[pass_name], ms=7, mec="0.2", mfc="0.2" if filled else "white",
                              label=label))
    passes = list(dict.fromkeys(p for p, *_ in shown))
    for pass_name in passes:  # the whole step is its pass's marker drawn large and open: a ring, a triangle for verify
        handles.append(Line2D([], [], ls="", marker=marker[pass_name], ms=13, mec="k", mfc="none", mew=1.5,
                              label=(f"whole {PASS_NAMES[pass_name]}" if len(passes) > 1 else "whole step")
                              + " (large, open,\nits B beside it): its FLOPs over\nall its time, host work and\ncollectives included, so it\nsits below the roofs"))
    handles += [Patch(color=op_color[op], label=op) for op in op_names if op in drawn_ops]
    if any(e != "ideal" for e in meta.get("engine") or []):  # qa208: norms at 0.015 TFLOP/s, unexplained
        handles.append(Line2D([], [], ls="", label="an operator's time holds its\nengine's kernel latencies: small\n"
                                                   "ones sit far below the roofs\n(engine ideal: on them)"))
    fig.legend(handles=handles, loc="outside right center", title="operators and passes")
    what = "Roofline" + (f" at context {_ctx(context)}" if context is not None else "")
    what += ": operators of one decode step" + (" and one verify pass" if speculate else " (no speculation)")
    what += (", at the smallest batch and the largest swept that fits in memory" if len(drawn_batches) != 1 else  # (qa208)
             f", at batch {int(next(iter(drawn_batches))):,}, the one drawn")  # (qa400: `--where batch=64` said both)
    if "pp" in ops and (pd.to_numeric(ops["pp"], errors="coerce") > 1).any():  # (qa245: read as the whole batch's)
        what += "\nunder pp, each point the busiest stage's pass over one micro-batch of B / min(B, pp) sequences"
    _title(fig, what, title_meta, models, _memory_note(df, _join(note, placed) if placed else note), gains=False)
    place_labels(fig, labels)
    return fig


def _clusters(g: pd.DataFrame, tol_decades: float = 0.08) -> list[tuple[float, float, str]]:
    """(intensity, TFLOP/s, 'name, name') per group of operators whose markers sit on top of each other
    (within `tol_decades` on both log axes): one label per visible marker."""
    x = np.log10((g["flops"] / g["bytes"]).to_numpy())
    y = np.log10((g["flops"] / g["time_s"]).to_numpy() / 1e12)  # the axis is in TFLOP/s
    names = g["operator"].tolist()
    done: set[int] = set()
    out = []
    for i in np.argsort(x):
        if i in done:
            continue
        group = [j for j in range(len(names)) if j not in done and abs(x[j] - x[i]) < tol_decades and abs(y[j] - y[i]) < tol_decades]
        done.update(group)
        out.append((10 ** x[i], 10 ** y[i], ", ".join(dict.fromkeys(names[j] for j in group))))
    return out


LINE_SAMPLE_PX = 3.0  # a drawn line is a label's obstacle as small boxes this far apart along it


def _line_boxes(line, px: float) -> list:
    """Display-space boxes along a drawn line (a roof, a curve): a label placed on one is struck through by it (qa374:
    'mlp, lm_head' across the peak roof; a frontier's label on another alpha's curve)."""
    from matplotlib.transforms import Bbox

    xy = line.get_transform().transform(np.column_stack(line.get_data()).astype(float))
    xy = xy[np.isfinite(xy).all(axis=1)]
    half = max(line.get_linewidth() * px / 2, 0.5)
    boxes = []
    for (x0, y0), (x1, y1) in zip(xy[:-1], xy[1:]):
        steps = max(1, int(math.hypot(x1 - x0, y1 - y0) / LINE_SAMPLE_PX))
        for t in np.linspace(0.0, 1.0, steps + 1):
            x, y = x0 + t * (x1 - x0), y0 + t * (y1 - y0)
            boxes.append(Bbox.from_extents(x - half, y - half, x + half, y + half))
    return boxes


def _marker_boxes(ax) -> list:
    """Display-space boxes of every marker drawn in `ax`, and along every line drawn there (the places a label must not
    cover)."""
    from matplotlib.transforms import Bbox

    boxes = []
    px = ax.figure.dpi / 72.0
    for line in ax.get_lines():
        if not line.get_visible():
            continue
        if line.get_linestyle() not in (None, "None", "", " ") and line.get_linewidth() > 0 and len(line.get_xdata()) > 1:
            boxes += _line_boxes(line, px)
        if line.get_marker() in (None, "None", "", " "):
            continue
        half = (line.get_markersize() + line.get_markeredgewidth()) * px / 2 + 1  # the edge is drawn centred on the outline
        xy = line.get_transform().transform(np.column_stack(line.get_data()).astype(float))
        boxes += [Bbox.from_extents(x - half, y - half, x + half, y + half) for x, y in xy if np.isfinite(x) and np.isfinite(y)]
    return boxes


def _scatter_boxes(ax) -> list:
    """Display-space boxes of the dots of every scatter drawn in `ax` (its PathCollections: pareto's background
    cloud), each a square of the dot's diameter, sqrt(s) points."""
    from matplotlib.collections import PathCollection
    from matplotlib.transforms import Bbox

    boxes = []
    px = ax.figure.dpi / 72.0
    for collection in ax.collections:
        if not isinstance(collection, PathCollection) or not collection.get_visible():
            continue
        xy = collection.get_offset_transform().transform(np.asarray(collection.get_offsets(), dtype=float).reshape(-1, 2))
        sizes = np.broadcast_to(np.asarray(collection.get_sizes(), dtype=float).reshape(-1) if len(collection.get_sizes())
                                else np.array([36.0]), (len(xy),))  # matplotlib's default s: 36 points squared
        half = np.sqrt(sizes) * px / 2
        boxes += [Bbox.from_extents(x - h, y - h, x + h, y + h) for (x, y), h in zip(xy, half) if np.isfinite(x) and np.isfinite(y)]
    return boxes


def _extents(boxes: list) -> np.ndarray:
    """(n, 4) array of x0, y0, x1, y1 of display boxes, each with x0 <= x1 and y0 <= y1."""
    e = np.array([b.extents for b in boxes], dtype=float).reshape(-1, 4)
    return np.column_stack([np.minimum(e[:, 0], e[:, 2]), np.minimum(e[:, 1], e[:, 3]),
                            np.maximum(e[:, 0], e[:, 2]), np.maximum(e[:, 1], e[:, 3])])


def _overlaps(box, taken: np.ndarray) -> int:
    """How many of the `taken` extents the box overlaps, edges included (Bbox.overlaps for each)."""
    x0, y0, x1, y1 = box.extents
    return int(np.count_nonzero((x0 <= taken[:, 2]) & (taken[:, 0] <= x1) & (y0 <= taken[:, 3]) & (taken[:, 1] <= y1)))


def _leader_crossings(point, box, taken: np.ndarray) -> int:
    """How many of the `taken` extents (other than those holding `point`) the straight leader from `point` to the
    centre of the label `box` passes through, sampled at eight places along its middle (edges included)."""
    start, end = np.asarray(point, dtype=float), np.array([(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2])
    samples = start + np.linspace(0.15, 0.85, 8)[:, None] * (end - start)

    def inside(x, y):  # (boxes, points) membership
        return ((taken[:, 0, None] <= x) & (x <= taken[:, 2, None]) & (taken[:, 1, None] <= y) & (y <= taken[:, 3, None]))

    others = ~inside(np.array([start[0]]), np.array([start[1]]))[:, 0]
    return int(np.count_nonzero(others & inside(samples[:, 0], samples[:, 1]).any(axis=1)))


def _offset_box(anchor_px, size_px, where, px_per_pt: float):
    """The display box a label of `size_px` (width, height) takes when annotated at `anchor_px` with offset
    (dx, dy) points and alignment (ha, va) `where`: the arithmetic of matplotlib's offset-points annotation."""
    from matplotlib.transforms import Bbox

    (dx, dy, ha, va), (w, h) = where[:4], size_px
    x = anchor_px[0] + dx * px_per_pt
    y = anchor_px[1] + dy * px_per_pt
    x0 = x if ha == "left" else x - w if ha == "right" else x - w / 2
    y0 = y if va == "bottom" else y - h if va == "top" else y - h / 2
    return Bbox.from_extents(x0, y0, x0 + w, y0 + h)


LABEL_CLEARANCE_PT = 1.5  # the least gap between a placed label and any marker or other text
LABEL_GAP_PT = 4.0  # and more beside another placed label, end to end: a word's space at 6.5 pt is about 1.8 pt
# behind a placed label: a line running under it (a roof) does not strike through the text; its pad (0.1 of the font
# size) stays inside the clearance
LABEL_HALO = {"boxstyle": "square,pad=0.1", "facecolor": "white", "edgecolor": "none", "alpha": 0.75}
# candidate directions of a label from its point, tried in this order at each distance: the diagonals, the sides,
# then the directions between them
ANGLES_DEG = (45, -45, 135, -135, 0, 180, 90, -90, 22.5, -22.5, 157.5, -157.5, 67.5, -67.5, 112.5, -112.5)


def place_labels(fig: Figure, labels: list, fontsize: float = 6.5) -> None:
    """Write each (axes, x, y, text) next to its point without covering another label, a marker or an
    existing text, and inside its axes. The figure is laid out first and the layout then frozen, so the
    places stay where they were checked. Candidates: sixteen directions (ANGLES_DEG) at growing distances;
    a label further than 11 pt from its point gets a thin leader line, which must not cross another label
    or marker either. A label is measured once; each candidate's box is that size moved to the candidate
    place (_offset_box). A candidate is taken when it keeps LABEL_CLEARANCE_PT from every marker (edge
    included) and text, its own point's markers too (box.padded(clearance) overlaps none); the nearest
    ring (7 pt) clears a 7-pt marker (half 4.2 pt with its edge) by that much straight to the side; of a ring's
    places taken so, the first that also clears the axes' scatter dots (a background, as pareto's grey cloud:
    _scatter_boxes), else the one covering fewest of them, so a label sits beside its own point, not a dot that
    reads as its. Where none does, the first that covers nothing; else the one of least 10 x (boxes covered) + (boxes its
    leader crosses): covering is worse than crossing. Each label is drawn on a faint white halo
    (LABEL_HALO), so that a line under it does not strike through it."""
    if not labels:
        return
    arrange(fig)
    renderer = fig.canvas.get_renderer()
    px_per_pt = fig.dpi / 72.0
    clearance_px = LABEL_CLEARANCE_PT * px_per_pt
    taken: dict = {}
    background: dict = {}  # each axes' scatter dots (pareto's grey cloud): a label may cover them where it must
    for ax, x, y, text in sorted(labels, key=lambda item: (id(item[0]), item[1])):
        if ax not in taken:
            taken[ax] = _extents(_marker_boxes(ax) + [t.get_window_extent(renderer) for t in ax.texts])
            background[ax] = _extents(_scatter_boxes(ax))
        frame = ax.get_window_extent(renderer)
        probe = ax.annotate(text, (x, y), xytext=(0, 0), textcoords="offset points", fontsize=fontsize, annotation_clip=False)
        extent = probe.get_window_extent(renderer)
        probe.remove()
        size = (extent.width, extent.height)
        anchor = ax.transData.transform((x, y))
        chosen, touching, fallback = None, None, None
        for radius in (7, 11, 18, 28, 40, 55, 75):
            clear = []  # (background dots covered, where, box) of this ring's places clear of everything else
            for angle in ANGLES_DEG:
                dx, dy = radius * math.cos(math.radians(angle)), radius * math.sin(math.radians(angle))
                where = (dx, dy, "left" if dx > 1 else "right" if dx < -1 else "center",
                         "bottom" if dy > 1 else "top" if dy < -1 else "center", radius)
                box = _offset_box(anchor, size, where, px_per_pt)
                inside = frame.contains(box.x0, box.y0) and frame.contains(box.x1, box.y1)
                score = 10 * _overlaps(box, taken[ax]) + (0 if inside else 1000)  # covering is worse than crossing
                if radius > 11:  # the leader line must not cross another label or marker either
                    score += _leader_crossings(anchor, box, taken[ax])
                if score == 0 and _overlaps(box.padded(clearance_px), taken[ax]) == 0:
                    clear.append((_overlaps(box.padded(clearance_px), background[ax]), where, box))
                    if clear[-1][0] == 0:
                        break
                if score == 0 and touching is None:
                    touching = (where, box)
                if fallback is None or score < fallback[0]:
                    fallback = (score, where, box)
            if clear:  # the ring's first place clear of the background dots too, else the one covering fewest
                chosen = min(clear, key=lambda c: c[0])[1:]  # (qa479: a pareto label beside a grey dot read as its)
                break
        chosen = chosen or touching  # crowded: a place that covers nothing, if short of the clearance
        where, box = chosen or fallback[1:]
        leader = {"arrowprops": {"arrowstyle": "-", "color": "0.55", "lw": 0.6, "shrinkA": 0, "shrinkB": 2}} if where[4] > 11 else {}
        ax.annotate(text, (x, y), xytext=where[:2], textcoords="offset points", ha=where[2], va=where[3], fontsize=fontsize,
                    color="0.15", annotation_clip=False, bbox=LABEL_HALO, **leader)
        # a later label keeps LABEL_GAP_PT from this one besides the clearance: two side by side read as one string
        # (qa259: 'mlp, lm_head mlp, lm_head')
        gap_px = LABEL_GAP_PT * px_per_pt
        taken[ax] = np.vstack([taken[ax], [[box.x0 - gap_px, box.y0, box.x1 + gap_px, box.y1]]])


FADED_ALPHA = 0.35  # points that do not fit in memory, on the timing-only plots


def _plot_fitting(ax, x, y, fits, marker: str, ls: str, **style) -> bool:
    """Plot a line through (x, y): the points that fit in memory (`fits`) as usual, the others faded (FADED_ALPHA)
    with hollow markers, the faded stretch running from the last point that fits. A point joins the faded line when
    it or a neighbour does not fit: fit | neighbour_not_fit draws the connecting segment. Returns whether any point
    does not fit."""
    x, y, fits = np.asarray(x, dtype=float), np.asarray(y, dtype=float), np.asarray(fits, dtype=bool)
    ax.plot(x, np.where(fits, y, np.nan), marker=marker, ls=ls, **style)
    out = ~fits
    if not out.any():
        return False
    near = out | np.concatenate([out[1:], [False]]) | np.concatenate([[False], out[:-1]])
    faded = {**style, "label": None, "alpha": FADED_ALPHA}
    ax.plot(x, np.where(near, y, np.nan), ls=ls, **faded)
    ax.plot(x[out], y[out], marker=marker, ls="", mfc="white", **faded)
    return True


MAX_K_LINES = 8  # verify-pass lines of the step-time plot: beyond that, evenly spread k values, first and last kept


def _plot_step_time(df: pd.DataFrame, ops, meta: dict) -> Figure | None:
    """Decode step time vs batch B (q = 1) and verify pass time vs tokens B x (k + 1), per k: at most MAX_K_LINES k
    values, evenly spread with the first and last, the title saying how many of how many. A tree (meta's tree_nodes)
    verifies nodes + 1 tokens per sequence whatever k: one verify curve at B x (nodes + 1). Without speculation,
    decode steps only. A point that does not fit in memory is drawn faded and hollow (timing only): a verify point
    where its (batch, k) fits under no alpha, a decode point past plain decoding's batch cap (baseline_max_batch;
    in a table without it, where no row of its batch fits)."""
    if df["batch"].nunique() < 2:
        return None
    fig, panels, models, note, meta = _panel_frames(df, meta, legend_in=2.0)
    speculate = _speculates(meta, df)
    all_ks = sorted(df.loc[df["k"] > 0, "k"].unique()) if speculate else []
    nodes = int(meta["tree_nodes"]) if speculate and meta.get("tree_nodes") else 0
    ks = all_ks[:1] if nodes else [all_ks[i] for i in np.unique(np.round(np.linspace(0, len(all_ks) - 1, min(len(all_ks), MAX_K_LINES))).astype(int))]
    k_note = f"{len(ks)} of {len(all_ks)} k values" if not nodes and len(ks) < len(all_ks) else ""
    k_color = {k: colormaps["plasma"](0.8 * i / max(len(ks) - 1, 1)) for i, k in enumerate(ks)}
    dots = df["batch"].nunique() <= 24
    faded = False
    for ax, sub in panels:
        fit = sub["fits_in_memory"].astype(bool)
        plain_fits = sub["batch"] <= sub["baseline_max_batch"] if "baseline_max_batch" in sub.columns else fit.groupby(sub["batch"]).transform("any")
        sub = sub.assign(batch_fits=plain_fits,
                         pass_fits=fit.groupby([sub["batch"], sub["k"]]).transform("any"))
        dec = sub.drop_duplicates("batch").sort_values("batch")
        faded |= _plot_fitting(ax, dec["batch"], dec["step_time_s"] * 1e3, dec["batch_fits"], "o" if dots else "", "-",
                               color="k", lw=2, ms=4, label="decode step, q = 1", zorder=5)
        ver = sub[sub["k"].isin(ks)].drop_duplicates(["batch", "k"])
        ver = ver.assign(q=nodes + 1 if nodes else ver["k"] + 1)  # a tree verifies its nodes + 1 tokens per sequence
        for k in ks:
            g = ver[ver["k"] == k].sort_values("batch")
            label = f"verify pass, {_tree_label(meta)} (q = {nodes + 1})" if nodes else f"verify pass, k = {k} (q = {k + 1})"
            faded |= _plot_fitting(ax, g["batch"] * g["q"], g["verify_time_s"] * 1e3, g["pass_fits"], "s" if dots else "", "--",
                                   color=k_color[k], lw=1, ms=4, label=label)
        tokens = (ver["batch"] * ver["q"]) if ks else pd.Series(dtype=float)
        # the compute-bound line is read from every k swept, not the drawn ones alone (qa495: H200's 'from 220 tokens'
        # of the drawn k where a pass of 196 was compute-bound in the table)
        swept = sub[sub["k"].isin(all_ks if not nodes else ks)].drop_duplicates(["batch", "k"])
        swept = swept.assign(tokens=swept["batch"] * (nodes + 1 if nodes else swept["k"] + 1),
                             compute_bound=swept["verify_compute_bound"].astype(bool))
        bound = swept.loc[swept["compute_bound"], "tokens"] if ks else tokens
        floor_ms = dec["step_time_s"].iloc[0] * 1e3
        ax.axhline(floor_ms, color="0.5", lw=0.8, ls=":")
        ax.annotate(f"batch-{dec['batch'].iloc[0]:g} decode step {floor_ms:.2f} ms", (0.98, floor_ms),
                    xycoords=("axes fraction", "data"), xytext=(0, 3), textcoords="offset points", ha="right",
                    fontsize=7, color="0.35")
        if len(bound):
            ax.axvline(bound.min(), color="firebrick", lw=1, ls=":")
            # "from N" only where every wider pass is compute-bound too: KV reads grow with the batch, and a wider
            # pass of more sequences can be memory-bound again
            wider_memory = bool((swept.loc[~swept["compute_bound"], "tokens"] > bound.min()).any())
            text = (f"first compute-bound verify\npass: {bound.min():,.0f} tokens\n(some wider passes of more\nsequences "
                    "memory-bound again:\ntheir KV reads)" if wider_memory  # (qa315: 'not every wider one', cryptic)
                    else f"verify compute-bound\nfrom {bound.min():,.0f} tokens")
            at_first = swept["compute_bound"] & (swept["tokens"] == bound.min())
            if not swept.loc[at_first, "pass_fits"].astype(bool).any():  # qa291: a width no fitting pass reaches, said
                text += "\n(past the memory cap:\nno such pass fits)"  # as if a layout compared reached it
            ax.annotate(text, (bound.min(), 0.97),
                        xycoords=("data", "axes fraction"), xytext=(-4, 0), textcoords="offset points",
                        ha="right", va="top", fontsize=7, color="firebrick", bbox=LABEL_HALO, zorder=6)  # over the
            # faded curves of passes that do not fit, which run up to it (qa485: struck through by them)
        elif ks:  # no compute-bound verify pass in the sweep: say so, or the missing line reads as an omission
            models_here = set(sub["model"])
            moe = ops is not None and bool(((ops["operator"] == "experts") & (ops["bytes"] > 0) & ops["model"].isin(models_here)).any())
            ax.annotate("verify memory-bound at every\nwidth swept (no compute-bound line)"
                        + (":\nits time grows with the experts\nits tokens touch (until they\ntouch all) and with their FLOPs"
                           if moe else ""), (0.03, 0.97),  # (qa433: at batch 128 MLA attention's FLOPs, not experts)
                        xycoords="axes fraction", ha="left", va="top", fontsize=7, color="firebrick", bbox=LABEL_HALO,
                        zorder=6)
        _log2_axis(ax, np.concatenate([dec["batch"].to_numpy(dtype=float), tokens.to_numpy(dtype=float)]))
        _log_axis(ax, "y")
        ax.set_xlabel("tokens in flight per pass, B × q")
        ax.set_ylabel("time of one pass (ms)")
    if faded:
        panels[0][0].plot([], [], "o", ls="-", color="0.3", mfc="white", alpha=FADED_ALPHA, label="faded, hollow: does not\nfit in memory (timing only)")
    _shared_legend(fig, [ax for ax, _ in panels])
    verify = f"verify passes of a {_tree_label(meta)} (q = {nodes + 1})" if nodes else "verify passes (q = k + 1)"
    what = f"Time of one forward pass vs tokens in flight B × q: decode steps (q = 1) and {verify}" if ks else \
        "Time of one decode step vs batch size B (q = 1, no speculation)"
    what += "\nfaded, hollow: does not fit in memory (timing only)" if faded else ""
    if ks:  # qa459: "compute-bound from 640 tokens" on H200, whose ridge is 194, read against the pass's mean intensity
        mla = any((meta.get("kv_layout") or {}).get(m) == "mla" for m in models)  # qa467: DeepSeek-V3's verify at 128k
        # compute-bound by its attention alone (241 FLOP/B over H200's 194), every GEMM memory-bound; qa470: a GQA verify
        # pass of 33 tokens past it too (519 FLOP/B, fp8 KV); the operators table is at the first context, where MLA's
        # attention reads below its long-context FLOP/B (findings.mla_attention_text)
        verify_attention = (ops[(ops["operator"] == "attention") & (ops["pass"] == "verify") & ops["model"].isin(models)]
                            if ops is not None and len(ops) else None)  # past its ridge: FLOP/B over the ceilings' ratio
        attention_past = verify_attention is not None and bool((
            verify_attention["flops"] / verify_attention["bytes"]
            > verify_attention["compute_ceiling_flops_per_s"] / verify_attention["memory_ceiling_bytes_per_s"]).any())
        what += ("\ncompute-bound: most of a pass's operator time in operators past their ridge (its GEMMs"
                 + (", and attention where the queries sharing each KV read take it past: MLA's many heads, a wide verify "
                    "pass)" if mla or attention_past else "; attention's KV reads stay memory-bound here)"))
    engines = meta.get("engine") or []  # one engine swept: no engine column in the panels' frame (qa335)
    drawn = (set().union(*(set(sub["engine"].astype(str)) for _, sub in panels)) if "engine" in df else  # the panels'
             set(engines if isinstance(engines, list) else [engines]))  # (qa349: sglang's note under 'engine vllm only')
    hosted = [e for e in meta.get("verify_adds_host") or [] if e in drawn] if ks else []
    host_note = (f"verify passes under {spoken_list(hosted)} hold the host work a decode step hides behind the device "
                 "(host_overlap_speculating false)") if hosted else ""  # qa333: read as the pass's own cost
    _title(fig, what, meta, models, _memory_note(df, _join(_join(note, k_note), host_note)), gains=False)
    return fig


def _thin_ticks(n: int, most: int = 12) -> range:
    """Every cell index when there are few, else every step-th so that at most `most` carry a label."""
    return range(0, n, math.ceil(n / most))


def _cell_boundary(ax, above: np.ndarray, valid: np.ndarray) -> None:
    """Draw the edges between neighbouring cells of an image grid (rows = y, columns = x) where one side
    has `above` true and the other false, both valid: the break-even line runs along cell edges, never
    through a cell's label."""
    segs = []
    rows, cols = above.shape
    for i, j in zip(*np.nonzero(valid[:, :-1] & valid[:, 1:] & (above[:, :-1] != above[:, 1:]))):
        segs.append([(j + 0.5, i - 0.5), (j + 0.5, i + 0.5)])
    for i, j in zip(*np.nonzero(valid[:-1, :] & valid[1:, :] & (above[:-1, :] != above[1:, :]))):
        segs.append([(j - 0.5, i + 0.5), (j + 0.5, i + 0.5)])
    if segs:
        from matplotlib.collections import LineCollection

        ax.add_collection(LineCollection(segs, colors="k", linewidths=2.2, capstyle="projecting", zorder=4))


def distinct_labels(values) -> dict[float, str]:
    """Each value as a tick says it: 3 significant digits, more where two would read alike (qa122: alpha 0.999999 and
    1 both read '1')."""
    values = sorted(set(float(v) for v in values))
    for digits in range(3, 17):
        labels = {v: f"{v:.{digits}g}" for v in values}
        if len(set(labels.values())) == len(values):
            return labels
    return {v: repr(v) for v in values}


def speedup_text(speedup: float) -> str:
    """A heatmap cell's speedup to 2 decimals, or 3 where 2 would round it to 1.00 though it is not 1 (qa117: 0.998, a
    cell that loses, read '1.00' beside the break-even line)."""
    text = f"{speedup:.2f}"
    if text != "1.00" or speedup == 1.0:
        return text
    return f"{min(speedup, 0.999):.3f}" if speedup < 1.0 else f"{max(speedup, 1.001):.3f}"  # never '1.000' for either side


NO_FIT_TEXT_IN = 0.4  # the narrowest heatmap cell (inches) that says 'no fit' in words
NUMBER_TEXT_IN = 0.25  # the narrowest heatmap cell (inches) that holds its speedup and k (qa99: 26 a panel overlapped)
CELL_TEXT_PT, CELL_TEXT_MAX_PT = 6.5, 9.0  # a heatmap cell's text: its size in the narrowest cells, and the most
CELL_TEXT_WIDE_IN, CELL_TEXT_TALL_IN = 0.4, 0.3  # the cell's width and height (inches) at which it starts to grow



def _dark(rgba) -> bool:
    """Whether white text reads better than black on a cell of colour `rgba`: the WCAG contrast of white against the
    colour's relative luminance L (sRGB channels linearised; 0.2126 R + 0.7152 G + 0.0722 B) beats black's, 1.05 / (L +
    0.05) > (L + 0.05) / 0.05, i.e. L below about 0.18 (qa454: a rule on the speedup's distance from 1 wrote 1.78 in
    black and 1.80 in white on blues the eye could not tell apart)."""
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgba[:3]]
    luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    return bool(1.05 / (luminance + 0.05) > (luminance + 0.05) / 0.05)

def _plot_speedup_heatmap(df: pd.DataFrame, ops, meta: dict) -> Figure | None:
    """Speedup over batch x alpha at the best k of each cell (`_ranked_points`). A cell whose best k is 0 (the k axis
    holds 0 and no k > 0 beats plain decoding) shows speedup 1 at 'k=0': speculation does not pay there. Grey:
    nothing of the cell fits in memory. Speculation pays in a cell where k > 0 and speedup >= 1; the break-even
    line runs along the edges between a cell where it pays and one where it does not."""
    if meta.get("method", "none") == "none" or not (df["k"] > 0).any() or not _any_fit(df):
        return None
    if df["batch"].nunique() < 2 and df["alpha"].fillna(-1.0).nunique() < 2:  # a map of one cell a panel (qa301: four
        return None  # panels of one cell each, its value in 7-point type)
    swept_k = np.sort(df["k"].unique())
    df = df.assign(alpha_key=df["alpha"].fillna(-1.0), spec_fits=_speculation_fits(df))
    batches = np.sort(df["batch"].unique())
    alphas = np.sort(df["alpha_key"].unique())
    width, height = min(max(4.8, 0.55 * len(batches) + 1.6), 6.5), min(max(3.2, 0.45 * len(alphas) + 1.6), 5.0)
    # a point of this map fits where speculation does: a layout whose rows that fit are plain decoding's alone (a
    # report's refused speculation left out) would be a panel of grey cells (qa415: four under 'does not fit in memory')
    drawn = df[df["fits_in_memory"].astype(bool) & (df["k"] > 0)]
    _, keys, _ = _panels(df, ("hardware", "model", "context"), meta, fitting=drawn)
    width = max(width, 7.0) if len(keys) == 1 else width  # one panel: room for the title on a few lines
    fig, panels, models, note, meta = _panel_frames(df, meta, fitting=drawn, width=width, height=height)
    panels = [(ax, _ranked_points(sub).drop_duplicates(["alpha_key", "batch"])) for ax, sub in panels]  # a cell's best row
    best = pd.concat([sub for _, sub in panels])
    vals = best.loc[best["fits_in_memory"].astype(bool) & best["spec_fits"], "speedup"]
    vals = vals if len(vals) else pd.Series([1.0])  # nothing fits in the panels shown
    span = max(abs(math.log(vals.min())), abs(math.log(vals.max())), math.log(1.05))
    norm = mcolors.LogNorm(vmin=math.exp(-span), vmax=math.exp(span))  # diverging around 1: 2x and 0.5x equally strong
    cmap = colormaps["RdBu"].with_extremes(bad="0.8")
    cell_in = (width - 1.6) / len(batches)  # about a cell's width in inches (the frame less the axis decorations)
    annotate = len(batches) * len(alphas) <= 150 and cell_in >= NUMBER_TEXT_IN
    k_top = swept_k.max() if len(swept_k) > 1 else np.inf  # a best k at the largest swept: the optimum may lie beyond
    k_top = np.inf if meta.get("tree_nodes") else k_top  # not a tree's: its one tau is known at no other depth (qa130)
    crossed, paying, grey, image, plain_only = False, [], False, None, False
    cells = pd.MultiIndex.from_product([alphas, batches])
    # the cell text grows with the cells (qa459: 6.5-point type in cells of 0.7 inch, 'k≥5' misread as 'k=4' at the
    # README's width): from CELL_TEXT_PT in the narrowest cells that hold it to 9 points, as wide and as tall as they allow
    cell_h_in = panels[0][0].get_position().height * fig.get_figheight() / max(len(alphas), 1)
    cell_pt = float(np.clip(min(CELL_TEXT_PT * cell_in / CELL_TEXT_WIDE_IN, CELL_TEXT_PT * cell_h_in / CELL_TEXT_TALL_IN),
                            CELL_TEXT_PT, CELL_TEXT_MAX_PT))
    for ax, sub in panels:
        table = sub.set_index(["alpha_key", "batch"]).reindex(cells)
        grid = table["speedup"].to_numpy(dtype=float).reshape(len(alphas), len(batches))
        kgrid = table["k"].to_numpy(dtype=float).reshape(grid.shape)
        fits = (table["fits_in_memory"].fillna(False).to_numpy(dtype=bool)  # grey: speculation does not fit, even where
                & table["spec_fits"].fillna(False).to_numpy(dtype=bool)).reshape(grid.shape)  # plain decoding (k = 0) does
        shown = np.ma.masked_where(~fits | np.isnan(grid), grid)
        valid = ~np.ma.getmaskarray(shown)
        pays_here = (kgrid > 0) & pays(grid)
        image = ax.imshow(shown, origin="lower", aspect="auto", cmap=cmap, norm=norm, interpolation="nearest")
        paying.append(pays_here[valid])
        grey |= bool((~fits).any())
        if pays_here[valid].any() and not pays_here[valid].all():
            _cell_boundary(ax, pays_here, valid)
            crossed = True
        plain_fits = (table["baseline_max_batch"].to_numpy(dtype=float) >= np.tile(batches, len(alphas))  # cells: alpha-major
                      ).reshape(grid.shape) if "baseline_max_batch" in table else np.zeros(grid.shape, dtype=bool)
        for i, j in np.ndindex(grid.shape) if annotate else ():
            if not fits[i, j]:
                if cell_in >= NO_FIT_TEXT_IN:  # narrower cells: the grey says it (title key), 'no fit' would run together
                    only = bool(plain_fits[i, j])  # qa423: 'no fit' where plain decoding fits, only speculation does not
                    plain_only |= only
                    ax.text(j, i, "plain\nonly" if only else "no fit", ha="center", va="center", fontsize=cell_pt - 0.5,
                            color="0.3", linespacing=1.1)
            elif not np.isnan(grid[i, j]):
                dark = _dark(cmap(norm(grid[i, j])))
                k_text = f"k≥{kgrid[i, j]:.0f}" if kgrid[i, j] >= k_top else f"k={kgrid[i, j]:.0f}"
                ax.text(j, i, f"{speedup_text(grid[i, j])}\n{k_text}", ha="center", va="center", fontsize=cell_pt,
                        color="white" if dark else "black", linespacing=1.1)
        xt, yt = _thin_ticks(len(batches)), _thin_ticks(len(alphas))
        ax.set_xticks(list(xt), [f"{batches[j]:g}" for j in xt])
        rates = meta.get("acceptance")  # the rates a scenario gave (qa99), three a line, eight at most (qa242, qa374:
        shown_rates = [f"{r:g}" for r in (rates if len(rates) <= 8 else rates[:7])] if isinstance(rates, (list, tuple)) else []
        nan_label = (_tree_label(meta).replace(", ", ",\n") if _tree_label(meta) else  # the first three of six said)
                     "rates\n" + ",\n".join(", ".join(shown_rates[i:i + 3]) for i in range(0, len(shown_rates), 3))
                     + (", ..." if len(rates) > 8 else "") if shown_rates
                     else "per-position\nrates")
        shown = distinct_labels([alphas[i] for i in yt if alphas[i] >= 0])
        ax.set_yticks(list(yt), [nan_label if alphas[i] < 0 else shown[alphas[i]] for i in yt])
        ax.grid(False)
        ax.set_xlabel("batch size B (sequences; a column each" + (", every other one labelled)" if xt.step == 2 else
                      f", one in {xt.step} labelled)" if xt.step > 2 else ")"))  # qa190: evenly spaced; qa249: thinned
        ax.set_ylabel("acceptance rate α (per token)" + (f",\n{_measured_text(meta)}" if _measured_text(meta) else "")
                      if (np.asarray(alphas) >= 0).any() else
                      "acceptance (a tree's)" if _tree_label(meta) else "acceptance (a rate each draft position)")
    cbar = fig.colorbar(image, cax=fig.add_axes((0.0, 0.0, 0.01, 0.01)), label="speedup over\nplain decoding (×)")  # placed by `arrange`; two
    # lines: one ran into the footer beside a heatmap of one row (qa466)
    steps = (0.8, 0.9, 1.0, 1.1, 1.25) if span < math.log(1.4) else (0.5, 0.67, 0.8, 1.0, 1.25, 1.5, 2) if span < math.log(2.5) \
        else (0.125, 0.25, 0.33, 0.5, 0.67, 1.0, 1.5, 2, 3, 4, 8)
    ticks = [t for t in steps if norm.vmin <= t <= norm.vmax]
    cbar.set_ticks(ticks, labels=[f"{t:g}×" for t in ticks])
    cbar.ax.minorticks_off()
    _title(fig, _heatmap_title(swept_k, np.concatenate(paying), crossed, grey, best, k_top, annotate, bool(meta.get("tree_nodes")),
                               _mtp_reused(meta, models, k_top), plain_only), meta, models, note)
    return fig


def _mtp_reused(meta: dict, models: list[str], k: float) -> str:
    """'; past 1 MTP module the last is reused (it accepts less in practice)' where the figure's MTP drafts to a k above
    the trained modules of a model it shows (meta's mtp_modules; qa291: DeepSeek-V3's k = 3 cells read 'best may lie
    beyond' where predict warns the reused module accepts less); '' otherwise."""
    if meta.get("method") != "mtp" or not np.isfinite(k):
        return ""
    modules = [n for m, n in (meta.get("mtp_modules") or {}).items() if m in models and 0 < n < k]
    if not modules:
        return ""
    n = min(modules)
    from roofline.speculation import mtp_reused_text

    return f"; past {n} MTP module{'s' if n != 1 else ''} {mtp_reused_text(n)} (it accepts less in practice)"


def _heatmap_title(swept_k: np.ndarray, pays: np.ndarray, crossed: bool, grey: bool, best: pd.DataFrame, k_top: float,
                   annotate: bool, tree: bool = False, reused: str = "", plain_only: bool = False) -> str:
    """The heatmap's title: what it shows, then a key line: where speculation pays (`pays`, one value per cell that
    fits, over all panels), what k=0 and k≥K mean where such cells are shown (`best`: the cells' rows), and grey
    where a cell shown does not fit in memory (`grey`; `plain_only`: a grey cell says 'plain only' where plain
    decoding fits)."""
    k_note = (f"k = {int(swept_k[0])}" if len(swept_k) == 1 else
              "the tree's depth k" if tree else "the best k per cell")  # qa130: a tree's tau is known at one depth
    if not pays.size:  # no cell where speculation fits: nothing to pay or not (plain decoding may fit: the sweep says)
        key = ["speculation fits in memory in no cell shown"]
    elif not pays.any():
        key = ["speculation never pays here (speedup < 1 or best k = 0 everywhere shown)"]
    elif pays.all():
        key = ["speculation pays everywhere shown: no break-even in range"]
    else:
        key = ["black line: break-even" if crossed else "break-even between cells that do not touch"]
    fit = best[best["fits_in_memory"].astype(bool)] if pays.size else best.iloc[:0]  # no cell shown: no k to explain
    # a k=0 label where cells carry labels, on a cell where speculation fits (qa190: said of unlabelled cells, and
    # where k = 0 was plain decoding beside a drafter that does not fit: a grey cell)
    spec_fits = fit["spec_fits"].fillna(False).astype(bool) if "spec_fits" in fit else pd.Series(True, index=fit.index)
    if annotate and ((fit["k"] == 0) & spec_fits).any():
        key.append("k=0: speculation does not pay (speedup 1)")
    if (fit["k"] >= k_top).any() and annotate:
        key.append(f"k≥{int(k_top)}: largest k swept, best may lie beyond{reused}")
    if grey:
        key.append("grey: does not fit in memory" + ("; plain only: plain decoding fits there, speculation does not"
                                                     if plain_only else ""))
    return f"Speedup of speculative decoding at {k_note}\n" + "; ".join(key)


def _batch_line_frames(df: pd.DataFrame, meta: dict) -> tuple:
    """The frame of a figure of lines against the batch, per alpha and without speculation (throughput, serving):
    (figure, panels, models, subset note, meta shown: _panel_frames, a legend beside and one y axis; whether it
    speculates; the alphas drawn, their note and colours; dots where the batches are few; a tree's depth, 'depth 3' or
    'its depth', None without a tree: a tree sweeps one depth, scenario's qa345)."""
    fig, panels, models, note, meta = _panel_frames(df, meta, legend_in=2.0, share_y=True)
    speculate = meta.get("method", "none") != "none" and (df["k"] > 0).any()
    alphas, alpha_note = _line_alphas(df)
    depths = [k for k in (meta.get("axes") or {}).get("k") or [] if k]
    depth = (f"depth {depths[0]}" if len(depths) == 1 else "its depth") if meta.get("tree_nodes") else None
    return (fig, panels, models, note, meta, speculate, alphas, alpha_note, _alpha_colors(alphas),
            df["batch"].nunique() <= 24, depth)


def _plot_throughput(df: pd.DataFrame, ops, meta: dict) -> Figure | None:
    """Tokens/s of the whole batch vs batch, of the points that fit in memory: per alpha at the best k of each point
    (`_ranked_points`; a best k of 0 is plain decoding, on the baseline; for a tree, its one depth), up to the largest
    batch where some k >= 1 fits, and without speculation. The title names speculation only when the sweep speculates; grey beyond the largest batch that fits
    under any k. Needs two batch sizes (qa190: one drew a lone dot a panel, between unreadable ticks)."""
    if not _any_fit(df) or df["batch"].nunique() < 2:
        return None
    fig, panels, models, note, meta, speculate, alphas, alpha_note, color, dots, depth = _batch_line_frames(df, meta)
    swept_k = sorted(df["k"].unique()) if "k" in df else []
    one_k = not depth and len(swept_k) == 1  # qa421: 'best k' said of the one k swept
    best_name = depth or (f"k = {int(swept_k[0])}" if one_k else "best k")
    on_base = []  # the alphas drawn at a best k of 0 somewhere: on the no-speculation line there, hidden (qa400)
    for ax, sub, fit, base in _fitting_panels(panels):
        best = _ranked_points(fit)
        drafts = fit[fit["k"] > 0]  # a batch where no k >= 1 fits ends the line: its best k 0 would sit on the baseline
        for a in alphas if speculate else ():
            g = best[same_alpha(best["alpha"], a)].drop_duplicates("batch").sort_values("batch")
            g = g[g["batch"].isin(drafts.loc[same_alpha(drafts["alpha"], a), "batch"])]
            if (g["k"] == 0).any() and a not in on_base:
                on_base.append(a)
            ax.plot(g["batch"], g["tokens_per_s"], "o-" if dots or len(g) == 1 else "-", color=color[a], ms=3.5, lw=1.5,
                    label=f"{_alpha_label(a, meta)}, {best_name}")
        ax.plot(base["batch"], base["baseline_tokens_per_s"], "s--" if dots or len(base) == 1 else "--", color="k", ms=3.5, lw=1.8,
                label="no speculation")
        _log2_axis(ax, sub["batch"])
        _log_axis(ax, "y")
        ax.set_xlabel("batch size B (sequences)")
        ax.set_ylabel("throughput, whole batch (tokens/s)")
        if (~sub["fits_in_memory"].astype(bool)).any():
            _shade_memory_limit(ax, *_memory_limits(sub, fit if speculate else base, base))
    _shared_legend(fig, [ax for ax, _ in panels])
    what = (f"Throughput vs batch size, with speculation ({best_name}{'' if meta.get('tree_nodes') or one_k else ' per point'}) and "
            "without") if speculate else \
        "Throughput vs batch size (no speculation)"
    hidden = (f"{', '.join(_alpha_label(a, meta) for a in on_base)} on the no-speculation line where {best_name} is 0 "
              "(speculation does not pay there)" if on_base and not depth else "")
    _title(fig, what, meta, models, _join(note, alpha_note if speculate else "", hidden))
    return fig


CONTEXT_LINE_BATCHES = 5  # batches speedup_vs_context draws a line each for, at most (spread over the swept ones)


MARKERS_MEET_SHARE = 0.02  # two markers closer than this share of a panel's y span (and 1, the break-even line, in it)
#   draw on one spot: a 3.5-5 point marker on a panel some 200 points tall covers about 2% of its height


def _points_meet(points: pd.DataFrame, x: str, y: str) -> bool:
    """Whether two of `points` at one `x` lie within MARKERS_MEET_SHARE of the y span (the break-even line at 1 in it)
    of each other: markers drawn over one another."""
    values = points[y].astype(float)
    if len(values) < 2:
        return False
    span = max(float(values.max()), 1.0) - min(float(values.min()), 1.0)
    gaps = points.assign(_y=values).sort_values([x, "_y"]).groupby(x)["_y"].diff()
    return bool((gaps <= MARKERS_MEET_SHARE * span).any())


def _plot_speedup_vs_context(df: pd.DataFrame, ops, meta: dict) -> Figure | None:
    """Speedup over plain decoding vs context, at the best k of each point, one line per batch (at most
    CONTEXT_LINE_BATCHES, spread over the swept batches where speculation fits), at one alpha (the middle one swept;
    the heatmap has them all): how a long context moves speculation's gain, a batch's line ending where it no longer
    fits in memory. Panels per (hardware, model), the context on the x axis. Needs a speculative method with k > 0,
    two contexts and a point that fits (qa421: a context sweep answered 'does speculation still pay at 128k' from
    results.csv alone). A context of 0 is left out, said (a log axis has no 0: qa486)."""
    zero = "context" in df and bool((df["context"] <= 0).any())
    if zero:
        df = df[df["context"] > 0]
    if (meta.get("method", "none") == "none" or "context" not in df or df["context"].nunique() < 2
            or not (df["k"] > 0).any() or not _any_fit(df)):
        return None
    alphas = alpha_values(df["alpha"])
    alpha = alphas[(len(alphas) - 1) // 2] if alphas[-1] == alphas[-1] else alphas[-1]  # a tree's (NaN) alone
    drafting = df[df["fits_in_memory"].astype(bool) & (df["k"] > 0) & same_alpha(df["alpha"], alpha)]
    if drafting.empty:
        return None
    swept = sorted(drafting["batch"].unique())
    batches = [swept[i] for i in np.unique(np.round(np.linspace(0, len(swept) - 1, min(CONTEXT_LINE_BATCHES, len(swept))))
                                                  .astype(int))]
    color = {b: colormaps["viridis"](0.85 * i / max(len(batches) - 1, 1)) for i, b in enumerate(batches)}
    drawn = df[df["fits_in_memory"].astype(bool) & (df["k"] > 0)]  # a panel holds a point where speculation fits
    fig, panels, models, note, meta = _panel_frames(df, meta, fitting=drawn, panel_by=("hardware", "model"), legend_in=2.0,
                                                    share_y=True)
    dodged = False
    for ax, sub, fit, _ in _fitting_panels(panels):
        at = fit[same_alpha(fit["alpha"], alpha)]
        best = _ranked_points(at).drop_duplicates(["context", "batch"])
        drafts = at.loc[at["k"] > 0, ["context", "batch"]].drop_duplicates()  # a point where no k >= 1 fits ends its
        best = best.merge(drafts, on=["context", "batch"])  # line; one whose best k is 0 sits at 1 (speculation off)
        shown = best[best["batch"].isin(batches)]
        # two batches' points on one spot (best k 0 at 1, or equal gains) stay visible: each batch's markers a little
        # to the side, as best_k_vs_batch's alphas are (qa425: batch 256 under 512's hollow point, in the legend only);
        # on one spot is within a marker of each other, not only equal (qa481: 1.0004 hid under 1.0006's point)
        shared = _points_meet(shown, "context", "speedup")
        dodged |= shared
        for i, b in enumerate(batches):
            g = best[best["batch"] == b].sort_values("context")
            dodge = 2.0 ** ((i - (len(batches) - 1) / 2) * min(0.12, 0.5 / len(batches))) if shared else 1.0
            if len(g):
                ax.plot(g["context"] * dodge, g["speedup"], "o-", color=color[b], ms=3.5, lw=1.5, label=f"batch {int(b):,}")
                off = g[g["k"] == 0]  # best k 0: speculation does not pay there, drawn hollow at 1
                ax.plot(off["context"] * dodge, off["speedup"], "o", color=color[b], mfc="white", ms=5, ls="")
        if (best["k"] == 0).any():
            ax.plot([], [], "o", color="0.3", mfc="white", ms=5, ls="", label="best k 0: speculation\ndoes not pay (off)")
        ax.axhline(1.0, color="k", ls=":", lw=1.0, label="speedup 1 (break-even)")
        _log2_axis(ax, sub["context"])
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: _ctx(v)))
        ax.set_xlabel("context (tokens in each sequence's KV cache)")
        ax.set_ylabel("speedup over plain decoding (×)")
    _shared_legend(fig, [ax for ax, _ in panels],
                   **({"title": "each batch's markers shifted\nsideways: lines meet here", "title_fontsize": 7} if dodged else {}))
    others = (f", the {'lower' if len(alphas) == 2 else 'lower middle' if len(alphas) % 2 == 0 else 'middle'} of "
              f"{len(alphas)} swept (speedup_heatmap has each)"  # (qa483: the second of 4 said 'the middle')
              if len(alphas) > 1 else "")
    fig_note = _join(note, f"{len(batches)} of {len(swept)} batches" if len(batches) < len(swept) else "",
                     "context 0 left out (a log axis has no 0)" if zero else "")
    swept_k = sorted(df.loc[df["k"] > 0, "k"].unique())
    k_text = "best k per point" if len(swept_k) > 1 or (df["k"] == 0).any() else f"k = {int(swept_k[0])}"  # (qa421)
    _title(fig, f"Speedup vs context, {k_text}\n"
                f"{_alpha_label(alpha, meta).replace(' ', NBSP)}{others}; a batch's line ends where it no longer fits in "
                "memory", meta, models, fig_note)
    return fig


SPEEDUP_ROW_GID = "roofline-serving-speedups"  # the serving figure's row of speedups at each panel's foot


def _least_tpot_rows(fit: pd.DataFrame) -> pd.DataFrame:
    """Per (alpha, batch) of a panel's rows that fit and draft (k > 0), the row of the least serving time per output
    token: the k a serving benchmark's TPOT favours, which need not be the decode-best k (best_k), since each verify
    pass of k + 1 tokens also stalls behind arriving prefills. Sorted by batch."""
    drafts = fit[fit["k"] > 0].assign(alpha_key=fit["alpha"].fillna(-1.0))
    return (drafts.sort_values(["alpha_key", "batch", "serving_time_per_output_token_s"], kind="stable")
            .drop_duplicates(["alpha_key", "batch"]).drop(columns="alpha_key").sort_values("batch", kind="stable"))


def _plot_serving(df: pd.DataFrame, ops, meta: dict) -> Figure | None:
    """A serving benchmark's time per output token against the batch (its concurrency), for the scenario's request
    (`prompt`, `output_len`: the serving_* columns of grid.SERVING_COLUMNS, arriving prompts' prefills included), at
    the points that fit: per alpha at the k of least serving TPOT (`_least_tpot_rows`; a tree's one depth), ringed
    where that k is below the decode-best k (best_k), and without speculation (baseline_serving_time_per_output_token_s);
    the top alpha's serving speedup and k at a few batches in a row at each panel's foot, those points edged black on
    its line. A panel's context far from the request's mean context is said (its decode priced there). Needs the
    serving columns, two batch sizes and a point that fits."""
    if ("serving_time_per_output_token_s" not in df or not _any_fit(df) or df["batch"].nunique() < 2):
        return None
    fig, panels, models, note, meta, speculate, alphas, alpha_note, color, dots, depth = _batch_line_frames(df, meta)
    tree = depth is not None
    k_name = depth or "k ≥ 1 of least TPOT"  # (qa354: a line above plain decoding's read as the best of every k, 0 among them)
    ringed = False
    for ax, sub, fit, base in _fitting_panels(panels):
        best = _least_tpot_rows(fit) if speculate else fit.iloc[:0]
        for i, a in enumerate(alphas if speculate else ()):
            g = best[same_alpha(best["alpha"], a)]
            y = g["serving_time_per_output_token_s"] * 1e3
            ax.plot(g["batch"], y, "o-" if dots or len(g) == 1 else "-", color=color[a], ms=3.5, lw=1.5,  # one point: a
                    label=f"{_alpha_label(a, meta)}, {k_name}")  # marker (qa362: a lone point of a line drew nothing)
            below = (g["best_k"] > 0) & (g["k"] < g["best_k"])  # serving's k below decode's (a tree has no best k: -1)
            if below.any():
                ringed = True
                ax.plot(g.loc[below, "batch"], y[below], "o", ms=8, mfc="none", mec=color[a], mew=1.2, ls="", zorder=4)
            if i == len(alphas) - 1:  # the top alpha's: its serving speedup and k at a few batches, in a row at the
                # panel's foot under each batch (qa351: beside the points, labels read as another line's)
                shown = g.iloc[_spread_on_log_axis(g["batch"].to_numpy(float), sub["batch"], 5)]
                ax.plot(shown["batch"], shown["serving_time_per_output_token_s"] * 1e3, "o", color=color[a], ms=5,
                        mec="k", mew=0.6, ls="", zorder=5)
                ends = (float(sub["batch"].min()), float(sub["batch"].max()))  # the axis's ends: inside it (qa354:
                for r in shown.itertuples():  # a first label over the spine and its tick)
                    side = "left" if r.batch <= ends[0] else "right" if r.batch >= ends[1] else "center"
                    ax.text(r.batch, 0.015, f"{speedup_text(r.serving_speedup)}x" + ("" if tree else f"\nk={r.k:g}"),
                            transform=ax.get_xaxis_transform(), ha=side, va="bottom", fontsize=6.5, color="0.15",
                            linespacing=1.0, multialignment=side, gid=SPEEDUP_ROW_GID)
        ax.plot(base["batch"], base["baseline_serving_time_per_output_token_s"] * 1e3, "s--" if dots or len(base) == 1 else "--", color="k",
                ms=3.5, lw=1.8, label="no speculation")
        _log2_axis(ax, sub["batch"])
        _log_axis(ax, "y")
        ax.set_xlabel("batch size B (concurrent requests)")
        ax.set_ylabel("serving time per output token (ms)\nlower is better")
        if (~sub["fits_in_memory"].astype(bool)).any():
            _shade_memory_limit(ax, *_memory_limits(sub, best if speculate else base, base),  # clear of the foot's
                                two_lines=speculate)  # speedup labels (qa362: the last one sat under its one line)
    if speculate:  # a strip at the foot for the row of speedups, below every line (the panels share their y axis)
        low, high = panels[0][0].get_ylim()
        panels[0][0].set_ylim(low / (high / low) ** 0.15, high)
    if ringed:
        keyed = max((ax for ax, _ in panels), key=lambda ax: len(ax.get_legend_handles_labels()[0]))
        keyed.plot([], [], "o", ms=8, mfc="none", mec="0.3", mew=1.2, ls="", label="k below the decode-best k\n(a wider "
                   "verify pass stalls\nlonger beside each prefill)")
    _shared_legend(fig, [ax for ax, _ in panels])
    if meta.get("prompt") and meta.get("output_len"):
        prompt, output_len = int(meta["prompt"]), int(meta["output_len"])
        request = f"{prompt:,}-token prompts, {output_len:,} output tokens"
        mean = request_context("scenario.json", prompt, output_len, sets_context=False)
        drawn = [int(sub["context"].iloc[0]) for _, sub in panels if len(sub)]  # the panels drawn (qa356: said of one
        far = sorted({c for c in drawn if far_from_request(c, mean)})  # not drawn, and read as every panel's context)
        several = sum(c in far for c in drawn) > 1
        far_note = (f"the {', '.join(format_context(c) for c in far)} panel{'s' if several else ''} "
                    f"decode{'' if several else 's'} at {'those contexts' if len(far) > 1 else 'that context'}, far from "
                    f"the request's mean context of {mean:,}" if far else "")
    else:  # a table without its scenario.json (plot of a bare results file): the columns hold a request, unnamed
        request, far_note = "its request, named in the sweep's scenario.json", ""
    top = f"the {_alpha_label(alphas[-1], meta)}" if speculate and len(alphas) > 1 else "its line's"
    what = (f"Serving time per output token vs batch size ({request}; arriving prompts' prefills included)"
            + (f"\nwith speculation ({k_name} per point) and without; at each panel's foot, {top}"
               f"{' line' + chr(39) + 's' if len(alphas) > 1 else ''} serving speedup" + ("" if tree else " and k")
               + " at the batch above it (its points edged black)" if speculate else ""))
    footer(fig, meta, steady=False)  # its times hold the prefills: not the steady-decoding caveat of the other figures
    _title(fig, what, meta, models, _join(note, far_note, alpha_note if speculate else ""))
    return fig


def _frontier(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Indices of the points not dominated in (x, y), both maximised, sorted by x (one vectorised pass)."""
    order = np.lexsort((-y, -x))  # x descending, ties by y descending
    ys = y[order]
    best_before = np.concatenate([[-np.inf], np.maximum.accumulate(ys)[:-1]])
    return order[ys > best_before][::-1]


def _spread_on_log_axis(x: np.ndarray, axis_values, most: int) -> np.ndarray:
    """Indices of up to `most` points of ascending `x` a log axis over `axis_values` shows at least 1/`most` of its width
    apart, the first and the last kept (qa362: five of a dense line's points evenly by index, three within one octave,
    wrote '2.32x2.282.23x')."""
    if len(x) == 0:
        return np.arange(0)
    lo, hi = np.log(np.min(axis_values)), np.log(np.max(axis_values))
    gap = (hi - lo) / most if hi > lo else 0.0
    kept = [0]
    for i in range(1, len(x)):
        if np.log(x[i]) - np.log(x[kept[-1]]) >= gap:
            kept.append(i)
    if kept[-1] != len(x) - 1:  # the last point: in place of the one before it where they are too close
        if len(kept) > 1 and np.log(x[-1]) - np.log(x[kept[-1]]) < gap:
            kept.pop()
        kept.append(len(x) - 1)
    return np.asarray(kept)


def _some(n: int, most: int = 12) -> np.ndarray:
    """Indices of up to `most` of n points along a line, evenly spaced, both ends kept: the ones a figure labels (qa269:
    a frontier of 18 points was labelled not at all, under a title that promised its B and k)."""
    return np.arange(n) if n <= most else np.unique(np.round(np.linspace(0, n - 1, most)).astype(int))


def _dominated(x, y, other_x, other_y) -> np.ndarray:
    """Per point (x, y): whether some other point is at least as good on both axes and better on one (up and right)."""
    x, y = np.asarray(x, dtype=float)[:, None], np.asarray(y, dtype=float)[:, None]
    ox, oy = np.asarray(other_x, dtype=float)[None, :], np.asarray(other_y, dtype=float)[None, :]
    return ((ox >= x) & (oy >= y) & ((ox > x) | (oy > y))).any(axis=1)


def _plot_pareto(df: pd.DataFrame, ops, meta: dict) -> Figure | None:
    """Throughput against per-user speed as the batch grows (a frontier per alpha, and without speculation): needs two
    batch sizes (one is a dot, not a trade-off: qa190) and a point that fits in memory."""
    if not _any_fit(df) or df["batch"].nunique() < 2:
        return None
    # both axes shared: each panel's per-user speed and throughput read against the others' (qa428: x was each panel's own)
    fig, panels, models, note, meta = _panel_frames(df, meta, legend_in=2.0, share_y=True, share_x=True)
    speculate = meta.get("method", "none") != "none" and (df["k"] > 0).any()
    alphas, alpha_note = _line_alphas(df)
    color = _alpha_colors(alphas)
    labels = []
    beaten_said = False  # one legend entry for the hollow points
    for ax, _, fit, base in _fitting_panels(panels):
        spec = fit[fit["k"] > 0]
        bx = base["baseline_tokens_per_s_per_user"].to_numpy()
        by = base["baseline_tokens_per_s"].to_numpy() / _baseline_devices(base, meta)
        if speculate:
            cloud = spec.iloc[:: max(1, math.ceil(len(spec) / 5000))]  # a background sample, not a million SVG markers
            ax.scatter(cloud["tokens_per_s_per_user"], cloud["tokens_per_s_per_device"], s=5, color="0.75", zorder=1,
                       label="all (batch, k, α) that fit" if len(cloud) == len(spec) else "sample of all (batch, k, α) that fit")
        for a in alphas if speculate else ():
            g = spec[same_alpha(spec["alpha"], a)]
            f = g.iloc[_frontier(g["tokens_per_s_per_user"].to_numpy(), g["tokens_per_s_per_device"].to_numpy())]
            named = len(alphas) <= 2 or a == alphas[-1]  # with many alphas, the top one's points say their batch
            ax.plot(f["tokens_per_s_per_user"], f["tokens_per_s_per_device"], "o-" if len(f) <= 30 else "-", color=color[a], ms=3, lw=1.5,
                    label=f"frontier, speculating (k ≥ 1), {_alpha_label(a, meta)}"  # the labelled one said (qa374)
                    + (" (labelled)" if named and len(alphas) > 2 else ""), zorder=3)
            # a speculating frontier point plain decoding beats on both axes (qa459: alpha 0.3's batch-1 point, 0.84x,
            # read as efficient under the name frontier): hollow
            beaten = _dominated(f["tokens_per_s_per_user"].to_numpy(), f["tokens_per_s_per_device"].to_numpy(), bx, by)
            if beaten.any():
                ax.plot(f["tokens_per_s_per_user"][beaten], f["tokens_per_s_per_device"][beaten], "o", ls="", ms=5,
                        mfc="white", mec=color[a], mew=1.2, zorder=4)
                beaten_said = True
            if named:
                labels += [(ax, r.tokens_per_s_per_user, r.tokens_per_s_per_device, f"B={r.batch:g}, k={r.k:g}")
                           for r in f.iloc[_some(len(f))].itertuples()]
        idx = _frontier(bx, by)
        ax.plot(bx[idx], by[idx], "s--" if len(idx) <= 30 else "--", color="k", ms=3.5, lw=1.8, label="frontier, no speculation", zorder=4)
        labels += [(ax, bx[i], by[i], f"B={base['batch'].iloc[i]:g}") for i in np.asarray(idx)[_some(len(idx))]]
        ax.margins(x=0.12, y=0.1)  # room for the batch labels
        _log_axis(ax, "x")
        _log_axis(ax, "y")
        ax.set_xlabel("interactivity, tokens/s per user")
        # a drafter on a device of its own is one more device in use (qa291: an L4 beside 4 H100s read as a loss)
        drafter_own = (fit["k"] > 0).any() and ((fit["draft_hardware"].fillna("").astype(str) != "").any() if "draft_hardware" in fit
                                                else any(_as_list(meta.get("draft_hardware") or [])))  # (a column held: meta's)
        ax.set_ylabel("throughput, tokens/s per device" + ("\n(speculating: the drafter's devices counted)" if drafter_own else ""))
    if beaten_said:  # the legend's key in grey, last: it holds for every alpha's line
        panels[0][0].plot([], [], "o", ls="", ms=5, mfc="white", mec="0.3", mew=1.2,
                          label="hollow: a speculating point\nplain decoding beats on both axes")
    for ax, _ in panels:  # a shared x axis shows its ticks on the bottom row alone: every panel its own (qa430: a panel
        ax.xaxis.set_tick_params(labelbottom=True)  # above an empty one had none)
    _shared_legend(fig, [ax for ax, _ in panels])
    _title(fig, "Throughput-interactivity frontier (up and right is better; points that do not fit excluded; B batch, k draft length)",
           meta, models, _join(note, alpha_note))
    place_labels(fig, labels)
    return fig


def _plot_best_k(df: pd.DataFrame, ops, meta: dict) -> Figure | None:
    """The table's best k (best_k) vs batch, per alpha, at the points that fit: with 0 on the k axis, a best k of 0
    (no k > 0 beats plain decoding: speculation does not pay) is drawn at k = 0, 'no speculation'; without 0 on the
    k axis, a best k whose speedup is below 1 (it still loses to plain decoding) is ringed hollow red. Grey beyond the
    largest batch that fits under any k. Needs two k values, two batch sizes and a best k somewhere (a tree has none)."""
    if (meta.get("method", "none") == "none" or df["k"].nunique() < 2 or df["batch"].nunique() < 2 or not _any_fit(df)
            or not (df["best_k"] >= 0).any()):
        return None
    fig, panels, models, note, meta = _panel_frames(df, meta, legend_in=1.4)
    alphas, alpha_note = _line_alphas(df)
    color = _alpha_colors(alphas)
    ks = sorted(df["k"].unique())
    dots = df["batch"].nunique() <= 24
    censored = shaded = losing = dodged = False
    names = _panel_names(panels, meta)
    tied_lines: list[str] = []  # the lines that step back and forth between near-ties
    untied_lines: list[str] = []  # and between k that differ more
    for ax, sub in panels:
        best = _best_k_rows(sub[sub["fits_in_memory"].astype(bool) & _speculation_fits(sub)])  # best_k = 0: the k = 0 row
        near, far = _switches_between_near_ties(sub, best)
        where = f"{names[ax]}: " if names[ax] else ""  # (qa428: the lines unnamed)
        tied_lines += [where + _alpha_label(a, meta) for a in near]
        untied_lines += [where + _alpha_label(a, meta) for a in far]
        if best.empty:
            plain = sub[sub["fits_in_memory"].astype(bool)]  # k = 0 rows that fit: plain decoding does, speculation not
            cap = float(sub["baseline_max_batch"].max()) if "baseline_max_batch" in sub and len(plain) else 0.0
            _nothing_fits(ax, cap or (float(plain["batch"].max()) if len(plain) else 0.0))  # its cap, not the largest swept
            continue
        lines = [best[same_alpha(best["alpha"], a)].drop_duplicates("batch").sort_values("batch") for a in alphas]
        shared = pd.concat(lines)[["batch", "best_k"]].duplicated().any()  # two alphas' lines meet at a point
        dodged |= bool(shared)
        for i, (a, g) in enumerate(zip(alphas, lines)):
            # in a panel where two lines meet they stay visible: each alpha's markers sit a little to the side (batch x
            # 2^dodge, a shift along the log batch axis, never along k, which stays an integer); where none meet, none moves
            dodge = 2.0 ** ((i - (len(alphas) - 1) / 2) * min(0.12, 0.5 / len(alphas))) if shared else 1.0
            ax.plot(g["batch"] * dodge, g["best_k"], "o-" if dots else "-", color=color[a], ms=4, lw=1.5, label=_alpha_label(a, meta),
                    drawstyle="default")
            edge = g[g["best_k"] >= max(ks)]
            if len(edge):  # an empty line still costs its artist at drawing time
                ax.plot(edge["batch"] * dodge, edge["best_k"], "^", color=color[a], ms=8, mec="k", mew=0.8, ls="")
            loses = g[(g["best_k"] > 0) & ~pays(g["speedup"])]  # the best k > 0 still slower than plain decoding
            if len(loses):
                ax.plot(loses["batch"] * dodge, loses["best_k"], "o", ms=7, mfc="white", mec="red", mew=1.4, ls="", zorder=5)
            losing |= len(loses) > 0
        if (best["best_k"] >= max(ks)).any():
            censored = True
        _log2_axis(ax, sub["batch"])
        ax.set_yticks(ks if len(ks) <= 12 else ks[:: math.ceil(len(ks) / 12)])
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "0, none" if v == 0 else f"{v:.0f}"))
        ax.set_ylim(min(ks) - 0.5, max(ks) + 0.5)
        ax.set_xlabel("batch size B (sequences)")
        ax.set_ylabel("best draft length k (tokens)" + ("\n0: speculation does not pay" if min(ks) == 0 else ""))
        if (~sub["fits_in_memory"].astype(bool)).any():  # beyond the largest batch a drafting k fits at (its best k is
            # drawn only there); where plain decoding fits further, the band says so, as the throughput figure does
            drafting = sub[sub["k"] > 0]
            limit = float((drafting if len(drafting) else sub)["max_batch"].max())
            plain = float(sub["baseline_max_batch"].max()) if "baseline_max_batch" in sub else 0.0
            shaded |= _shade_memory_limit(ax, limit, float(sub["batch"].max()), float(best["batch"].max()), plain)
    # said where a panel shifted its markers (qa190: said with several alphas whose lines never met)
    legend_title = {"title": "each α's markers shifted\nsideways: lines meet here", "title_fontsize": 7} if dodged else {}
    # (qa393: the whole line moves, not only where lines meet: said of the points that coincide, it read as those alone)
    # the keys go on the panel whose series the shared legend shows (qa225: on a first panel where nothing fits, lost)
    keyed = max((ax for ax, _ in panels), key=lambda ax: len(ax.get_legend_handles_labels()[0]))
    if censored:
        reused = _mtp_reused(meta, models, max(ks)).removeprefix("; ").replace(" the last", "\nthe last", 1).replace(" (it", "\n(it", 1)
        keyed.plot([], [], "^", color="0.6", mec="k", mew=0.8, ms=8, ls="", label=f"k = {max(ks)}: largest swept,\nbest may lie beyond"
                   + (f";\n{reused}" if reused else ""))
    if losing:
        keyed.plot([], [], "o", ms=7, mfc="white", mec="red", mew=1.4, ls="", label="speedup < 1:\nbest k still loses")
    _shared_legend(fig, [ax for ax, _ in panels], **legend_title)
    what = "Throughput-best draft length k vs batch size (integer k" + ("; grey: does not fit in memory)" if shaded else ")")
    if tied_lines:  # qa190: fast-tier-premium's lines switched k 34 times between k that differ by a fraction of a percent
        what += (f"\na line that steps back and forth does so between k within {NEAR_TIE - 1:.0%} of each other in speedup"
                 if not untied_lines else  # qa333: said of every line where one panel's reversal was a tie and another's 8%
                 "\n" + _zigzags_text(tied_lines, untied_lines))
    _title(fig, what, meta, models, _join(note, alpha_note))
    return fig


def _zigzags_text(tied: list[str], untied: list[str]) -> str:
    """'some lines (A) step back and forth between k within 1% of each other in speedup, others (B) between k that
    differ more, and some (C) both' (with no A: 'and some (C) between k that differ more and between k within 1% ...'):
    the best-k lines in three groups no line is in twice (qa485: a line whose one
    reversal was a 0.96% tie and another 1.7% apart was named among both the ones and the others)."""
    both = [line for line in dict.fromkeys(tied) if line in untied]
    tied_only = [line for line in dict.fromkeys(tied) if line not in both]
    untied_only = [line for line in dict.fromkeys(untied) if line not in both]
    near, far = f"between k within {NEAR_TIE - 1:.0%} of each other in speedup", "between k that differ more"
    parts = []
    if tied_only:
        parts.append(f"some lines ({_lines_named(tied_only)}) step back and forth {near}")
    if untied_only:
        parts.append(f"others ({_lines_named(untied_only)}) {far}" if parts else
                     f"some lines ({_lines_named(untied_only)}) step back and forth {far}")
    if both:
        parts.append(f"and some ({_lines_named(both)}) both" if tied_only else
                     f"and some ({_lines_named(both)}) {far} and {near}" if parts else
                     f"some lines ({_lines_named(both)}) step back and forth both {near} and {far}")
    return ", ".join(parts)


def _panel_names(panels: list, meta: dict) -> dict:
    """{axes: 'H200 SXM, engine sglang, TP 8'}: each panel named by the columns whose one value in it tells it from the
    others (the hardware and model by name, a layout as describe_layout writes it), '' where one panel is drawn."""
    subs = [sub for _, sub in panels]
    if len(subs) < 2:
        return {ax: "" for ax, _ in panels}
    columns = [c for c in ("hardware", "model", "context", "engine", "method", "weight_dtype", "expert_dtype", "kv_dtype",
                           "tp", "dp_attention", "ep", "pp", "shared_prefix", "draft_hardware")
               if c in subs[0] and all(sub[c].astype(str).nunique() == 1 for sub in subs)
               and len({str(sub[c].iloc[0]) for sub in subs}) > 1]
    layout = tuple(c for c in columns if c in ("tp", "dp_attention", "ep", "pp"))

    def name(sub) -> str:
        parts = [_name(meta, c, sub[c].iloc[0]) if c in ("hardware", "model") else _axis_value_label(meta, c, sub[c].iloc[0])
                 for c in columns if c not in layout]
        parts += [_layout_value_label(meta, layout, tuple(int(sub[c].iloc[0]) for c in layout))] if layout else []
        return ", ".join(p for p in parts if p)

    return {ax: name(sub) for ax, sub in panels}


def _lines_named(lines: list[str]) -> str:
    """'H100 SXM5: α = 0.6; B200: α = 0.8' (three said, then 'and N more'): the best-k figure's lines a title names."""
    return "; ".join(lines[:3]) + (f" and {len(lines) - 3} more" if len(lines) > 3 else "")


NEAR_TIE = 1.01  # two draft lengths whose speedups differ by less than this factor: the best k between them a near-tie


def _switches_between_near_ties(sub: pd.DataFrame, best: pd.DataFrame) -> tuple[list[float], list[float]]:
    """(near, far): the alphas (NaN for a line without one) of the lines of the best-k figure (per alpha, along the
    batch) that step back and forth, switching k and later back the other way, where the k it leaves is within NEAR_TIE
    of the new best's speedup at that batch (near: a tie's zigzag, a GEMM's rows padded to its tile making neighbouring
    k trade places, not a change in what pays), and of those that do so where it is not (far). A line that only steps
    down (a larger batch, a shorter k) crosses over once and is neither."""
    drafting = sub[sub["fits_in_memory"].astype(bool) & (sub["k"] > 0)]
    if drafting.empty or best.empty:
        return [], []
    speed = drafting.assign(alpha_key=drafting["alpha"].fillna(-1.0)).set_index(["alpha_key", "batch", "k"])["speedup"]
    speed = speed[~speed.index.duplicated()]
    rows = best[best["best_k"] > 0].assign(alpha_key=best["alpha"].fillna(-1.0)).sort_values(["alpha_key", "batch"])
    prev_k = rows.groupby("alpha_key")["best_k"].shift()
    step = (rows["best_k"] - prev_k).where(prev_k.notna(), 0.0)
    moves = rows.assign(step=np.sign(step))[step != 0]
    reverses = moves["step"] != moves.groupby("alpha_key")["step"].shift().fillna(moves["step"])  # against the last move
    if not reverses.any():
        return [], []
    at = moves[reverses]
    left = speed.reindex(list(zip(at["alpha_key"], at["batch"], prev_k[at.index]))).to_numpy(dtype=float)
    near = at["speedup"].to_numpy(dtype=float) < NEAR_TIE * left  # NaN (k not fitting) compares False: neither
    alphas = at["alpha_key"].to_numpy(dtype=float)

    def lines(mask) -> list[float]:
        return [float("nan") if a == -1.0 else float(a) for a in dict.fromkeys(alphas[mask])]

    return lines(near), lines(~near & np.isfinite(left))


PLOTTERS = {  # the standard plots of a sweep, in PLOT_NAMES order
    "roofline": _plot_roofline, "step_time_vs_tokens": _plot_step_time, "speedup_heatmap": _plot_speedup_heatmap,
    "throughput_vs_batch": _plot_throughput, "pareto": _plot_pareto, "best_k_vs_batch": _plot_best_k,
    "serving_vs_batch": _plot_serving, "speedup_vs_context": _plot_speedup_vs_context,
}


# ---------------------------------------------------------------- public API

def plotter(name: str):
    """The function drawing figure `name`: a standard plot, or `report:QUESTION` (roofline.report_figures)."""
    if name.startswith("report:"):
        from roofline.report_figures import REPORT_PLOTTERS

        return REPORT_PLOTTERS.get(name.split(":", 1)[1], REPORT_PLOTTERS["generic"])
    return PLOTTERS[name]


def say_log_scales(fig) -> None:
    """Each labelled log-scale axis says so in its label ('tokens/s (total; log scale)', 'batch (log scale)'), where
    the label does not already: the uneven ticks alone told it (qa188)."""
    for ax in fig.axes:
        for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
            label = axis.get_label_text()
            if scale != "log" or not label or re.search(r"\blog\b", label.lower()):  # 'logits' is no 'log' (qa189)
                continue
            axis.set_label_text(label[:-1] + "; log scale)" if label.endswith(")") else label + " (log scale)")


def draw_figure(job: tuple) -> list[Path]:
    """Draw one figure job (plotter name, results, operators, meta, path without suffix, formats) and save it in
    each format; [] when the table cannot support the plot. Agg canvas only, fixed metadata: the bytes written
    depend on the inputs alone, whichever process draws them."""
    name, df, ops, meta, stem, formats = job
    with rc_context(STYLE):
        try:
            fig = plotter(name)(df, ops, meta)
        except (IndexError, KeyError, ValueError, ZeroDivisionError, TypeError):
            # a user's scenario named like a report question but of another shape (meta "strict" false): the generic
            # figure, as its finding falls back to the generic one (findings.finding)
            if not name.startswith("report:") or meta.get("strict", True):
                raise
            fig = plotter("report:generic")(df, ops, meta)
            if fig is not None:  # the figure says what it is: its question's own could not be drawn from these axes
                fig.text(0.005, 0.004, f"the {name.split(':', 1)[1]} question's own figure needs other axes than this sweep's: "
                         "the generic figure", ha="left", va="bottom", fontsize=6.5, color="0.45", gid=FOOTER_GID + "-note")
        if fig is None:
            return []
        # the report's figures too (the standard ones have it from their title); the gains caveat not on the figures of
        # pass times and prefills (qa341)
        footer(fig, meta, gains=name not in ("report:verify-mini-prefill", "report:prefill-not-sped-up"))
        say_log_scales(fig)
        arrange(fig)
        written = []
        for ext in formats:
            path = Path(f"{stem}.{ext}")
            options = {"metadata": {"Software": None}, "pil_kwargs": {"compress_level": 1}} if ext == "png" else {"metadata": {"Date": None}}
            fig.savefig(path, dpi=DPI, **options)
            written.append(path)
    return written
