"""The generated report: named scenarios run into tables, each section a finding, a plot and a command.

`write_report(names, out_dir)` runs each scenario (all nine questions by default), computes its finding
from the results table (`roofline.findings`), draws its figure (`roofline.plots.report_figure`, in
parallel over the machine's cores) and writes into `out_dir`:

    report.md      Markdown, one section per scenario, images beside it (img/<scenario>.png)
    report.html    the same as one self-contained page (images inlined as base64; opens offline)
    img/*.png      one figure per section (and .svg when asked)
    tables/*.csv   each scenario's results table, so every number of a finding can be looked up

Report axes. A scenario file of the report may give a list where a sweep takes one value, for the keys
in `LIST_KEYS` (`method`, `draft_hardware`, `shared_prefix`): the report runs one sweep per value and
stacks the tables, with a column naming the value (`method` is already one; `draft_placement` for the
drafter's device, `co-located` when on the target; `shared_prefix_tokens`). `method` may also map every
model to its own method (one sweep per model). `draft` applies to method `draft` only and is dropped
for the others.

Prefill columns. Every table gets `ttft_s`, the time to first token of one sequence whose prompt is the
row's `context` (one prefill pass of the target, `roofline.engine.ttft_s`), and `draft_ttft_s`, the
prefill the drafter needs as well before it can draft (a draft model or a head drafter reading the
target's prompt; 0 for n-gram lookup and plain decoding). They are computed once per (hardware, model,
context) with the engine's own function, vectorised over contexts.

Everything written is staged in a temporary folder and moved into place whole (`roofline.outputs`).
"""

from __future__ import annotations

import base64
import html
import itertools
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from roofline.errors import RooflineError, field_error

REPORT_SCENARIOS = (
    "verify-mini-prefill", "flops-vs-time", "break-even-batch", "batch-vs-speculation", "kv-caps-batch",
    "shared-prefix", "draft-offload", "fast-tier-premium", "prefill-not-sped-up",
)
LIST_KEYS = ("method", "draft_hardware", "shared_prefix")  # also `method` as a mapping model -> method


@dataclass
class ScenarioResult:
    """One scenario of the report: its name, the stacked results table, operators table and meta."""

    name: str
    path: str
    description: str
    df: pd.DataFrame
    ops: pd.DataFrame
    meta: dict
    variants: dict = field(default_factory=dict)  # report axis -> its values, in file order


def scenario_variants(data: dict, where: str) -> tuple[dict, list[dict]]:
    """Expand the list-valued report axes of a scenario mapping into one plain scenario mapping each.

    Returns ({axis: values}, [mapping, ...]) in product order of the axes as listed in LIST_KEYS."""
    axes = {}
    for key in LIST_KEYS:
        value = data.get(key)
        if isinstance(value, list):
            if not value:
                raise field_error(where, key, "a value or a non-empty list", value)
            axes[key] = value
    method = data.get("method")
    if isinstance(method, dict):  # model -> method: one sweep per model, each with its own method
        models = data.get("model") if isinstance(data.get("model"), list) else [data.get("model")]
        if sorted(method) != sorted(models) or not all(isinstance(v, str) for v in method.values()):
            raise field_error(where, "method", "a method, a list of methods or a mapping of every model to its method", method)
        axes["model"] = models
    variants = []
    for combo in itertools.product(*axes.values()):
        one = {**data, **dict(zip(axes, combo))}
        if isinstance(method, dict):
            one["method"] = method[one["model"]]
        if one.get("method", "none") != "draft":
            one.pop("draft", None)
        if one.get("draft_hardware") is None:
            one.pop("draft_hardware", None)
        if "shared_prefix" in axes and not one.get("shared_prefix"):
            one.pop("shared_prefix", None)
        variants.append(one)
    return axes, variants


def _sweep(data: dict, where: str, extra_dirs: tuple):
    """(results, operators, meta) of one plain scenario mapping."""
    from roofline.scenario import scenario_from_dict
    from roofline.sweep import load_pairs, operator_table, run_sweep

    sc = scenario_from_dict(data, where)
    pairs = load_pairs(sc, extra_dirs)
    df = run_sweep(sc, pairs)
    df = _with_prefill(df, sc, pairs)
    meta = {
        "scenario": sc.name, "description": sc.description, "method": sc.method, "draft": sc.draft,
        "draft_hardware": sc.draft_hardware, "weight_dtype": sc.weight_dtype, "kv_dtype": sc.kv_dtype, "tp": sc.tp,
        "hardware": {p.hw.name: p.hw.display_name for p in pairs}, "model": {p.model.name: p.model.display_name for p in pairs},
        "tree_nodes": sc.tree_nodes, "tree_tau": sc.tree_tau, "acceptance": sc.acceptance, "points": len(df),
    }
    if sc.draft:
        from roofline.model import load_model

        meta["model"][sc.draft] = load_model(sc.draft, extra_dirs).display_name
    if sc.draft_hardware:
        from roofline.hardware import load_hardware

        meta["hardware"][sc.draft_hardware] = load_hardware(sc.draft_hardware, extra_dirs).display_name
    return df, operator_table(sc, pairs), meta


def _with_prefill(df: pd.DataFrame, sc, pairs) -> pd.DataFrame:
    """Add ttft_s and draft_ttft_s (prefill of `context` prompt tokens, one sequence) per row."""
    from roofline.engine import ttft_s
    from roofline.speculation import drafter_spec

    contexts = np.asarray(sc.axes["context"], dtype=np.float64)
    target = np.zeros(len(df))
    draft = np.zeros(len(df))
    for pair in pairs:
        rows = ((df["hardware"].astype(str) == pair.hw.name) & (df["model"].astype(str) == pair.model.name)).to_numpy()
        idx = np.searchsorted(contexts, df.loc[rows, "context"].to_numpy(dtype=np.float64))
        t = np.atleast_1d(ttft_s(pair.hw, pair.model, contexts, sc.weight_dtype, sc.kv_dtype, sc.tp))
        target[rows] = np.broadcast_to(t, contexts.shape)[idx]
        drafter = drafter_spec(sc.method, pair.model, pair.draft, sc.draft_vocab)
        if drafter is not None:
            dhw = pair.draft_hw or pair.hw
            d_tp = 1 if pair.draft_hw is not None else sc.tp
            d = np.atleast_1d(ttft_s(dhw, drafter, contexts, sc.weight_dtype, sc.kv_dtype, d_tp))
            draft[rows] = np.broadcast_to(d, contexts.shape)[idx]
    return df.assign(ttft_s=target, draft_ttft_s=np.where(df["k"].to_numpy() > 0, draft, 0.0))


def run_scenario(name_or_path: str, extra_dirs: tuple = ()) -> ScenarioResult:
    """Run one report scenario (a name on the search path or a YAML file), report axes expanded."""
    from roofline.profiles import find_profile, read_yaml

    path = Path(name_or_path)
    if not path.is_file():
        if path.suffix in (".yaml", ".yml"):
            raise RooflineError(f"{path}: scenario file not found")
        path = find_profile("scenario", name_or_path, extra_dirs)
    data = read_yaml(path)
    where = str(path)
    axes, variants = scenario_variants(data, where)
    frames, op_frames, meta = [], [], None
    for one in variants:
        df, ops, m = _sweep(one, where, extra_dirs)
        placement = one.get("draft_hardware") or "co-located"
        prefix = int(one.get("shared_prefix") or 0)
        df = df.assign(draft_placement=placement, shared_prefix_tokens=prefix)
        ops = ops.assign(method=one.get("method", "none"), draft_placement=placement, shared_prefix_tokens=prefix)
        frames.append(df)
        op_frames.append(ops)
        if meta is None:
            meta = m
        else:
            meta["hardware"].update(m["hardware"])
            meta["model"].update(m["model"])
    df = pd.concat(frames, ignore_index=True)
    for col in ("hardware", "model", "method", "draft_placement"):
        df[col] = df[col].astype(str)
    ops = pd.concat(op_frames, ignore_index=True)
    if "method" in axes:
        meta["method"] = "mixed"
        meta["methods"] = list(axes["method"])
    if "draft_hardware" in axes:
        meta["draft_hardware"] = None
    meta["variants"] = {k: [v if v is not None else "co-located" for v in vals] for k, vals in axes.items()}
    meta["points"] = len(df)
    name = str(data.get("name", path.stem))
    return ScenarioResult(name, where, str(data.get("description", "")), df, ops, meta, axes)
