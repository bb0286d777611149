"""Each report section's finding, computed from its results table: the numbers come from the table,
the sentence around them is the only fixed part.

`finding(name, df, ops, meta)` returns a `Finding`: a title (the question), one or two sentences
with the numbers, and `numbers`, the values the sentences quote (keyed for tests and for anyone
who wants them without parsing text). A scenario the report does not know gets the generic finding
(best speedup and where speculation stops paying).

Conventions shared by every finding:
- only points that fit in device memory count (`fits_in_memory`), unless the question is timing alone
  (verify-mini-prefill, where the caption says which points do not fit);
- "best k" is the table's `best_k`; a best k at the largest k swept is censored (the optimum may lie
  beyond) and the text says "at least";
- a break-even batch at the largest batch that fits (or the largest swept) is censored the same way:
  speculation still pays there, and the text says "at least".
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from roofline.errors import RooflineError
from roofline.frontier import REFINE_GAIN_MIN
from roofline.frontier import plain_fits as frontier_plain_fits
from roofline.scenario import LAYOUT_KEYS
from roofline.serving import HOST_SHARE_NOTED, IDEAL, OPTIMISTIC, OPTIMISTIC_BATCH, load_engine, optimistic
from roofline.speculation import DRAFTER_ON_TARGET, pays
from roofline.units import format_context, format_significant, format_usd_per_hour, spoken_list

TOLERANCE = 1.10         # verify-mini-prefill: a pass "costs about one decode step" within +10%
ANSWER_TOKENS = 256      # prefill-not-sped-up: the length of the answer in "time to a whole answer"
TIE = 1.03  # draft-offload: a placement that wins by less than this factor is said to tie (the model's own error is larger)
TIER_SPEEDS = (2.0, 3.0)  # fast-tier-premium: per-user speed multiples priced against the cheapest tier
# serving.OPTIMISTIC: the report's opening says it, and a finding quoting a speculative point in its range says so beside it


@dataclass(frozen=True)
class Finding:
    title: str
    text: str
    numbers: dict = field(default_factory=dict)
    headline: str = ""  # the answer in one short sentence, for the report's contents; "" for the text's first sentence


def headline(f: Finding) -> str:
    """The finding in one sentence, as the report's contents list it: its own headline, else its text's first sentence
    (up to the first full stop that ends one, i.e. and e.g. aside: "2.26× faster. k = 8 ..." -> "2.26× faster."; qa397:
    one split only before a capital ran on into 'k = 8, the largest swept, is ...')."""
    return f.headline or re.split(r"(?<!i\.e\.)(?<!e\.g\.)(?<=[^.]\.)\s+(?=[A-Za-z(])", f.text, maxsplit=1)[0]


# ---------------------------------------------------------------- formatting (edges only)

_n = format_significant  # a number for prose: 3 significant digits, thousands separated (21,507; 2.47; 0.0551)


class Unanswerable(ValueError):
    """A question's finding cannot be read from a sweep, in a sentence of its own (said in the fallback's note)."""


def _x(x: float) -> str:
    return f"{_n(x)}×"


def _pct(x: float) -> str:
    return f"{100 * float(x):.0f}%"


_ctx = format_context  # a context length as titles say it (units.format_context)


def _hw(meta: dict, name: str) -> str:
    """Short display name of a device: 'NVIDIA H100 SXM5 80GB' -> 'H100 SXM5 80GB'."""
    full = (meta.get("hardware") or {}).get(name, name)
    for vendor in ("NVIDIA ", "AMD Instinct ", "AMD ", "Google ", "Intel ", "Apple "):
        full = full.removeprefix(vendor)
    return re.sub(r"\s+\d+\s*GB$", "", re.sub(r"\s*\(.*\)", "", full)) or full


def _tp(meta: dict) -> int:
    tp = meta.get("tp") or 1
    tp = tp[0] if isinstance(tp, (list, tuple)) and len(tp) == 1 else tp
    return tp if isinstance(tp, int) else 1


def _row_devices(row: pd.Series, df: pd.DataFrame, meta: dict) -> int:
    """The devices of `row`'s own target layout, tp x dp_attention x pp (qa300: the largest layout swept on its device
    was said of a tp 4 row); _target_devices where the table has no layout columns."""
    if all(c in row.index for c in ("tp", "dp_attention", "pp")):
        return int(row["tp"]) * int(row["dp_attention"]) * int(row["pp"])
    return _target_devices(df, row["hardware"], meta)


def _target_devices(df: pd.DataFrame, hw: str, meta: dict) -> int:
    """The devices of the target's layout on `hw`, tp x dp_attention x pp (its drafter's own device apart; qa250: tp
    alone said '1 H100' of a pp 2 layout); meta's tp where the table has no layout columns."""
    rows = df[df["hardware"] == hw] if "hardware" in df else df
    if len(rows) and all(c in rows for c in ("tp", "dp_attention", "pp")):
        return int((rows["tp"].astype(int) * rows["dp_attention"].astype(int) * rows["pp"].astype(int)).max())
    return _tp(meta)


METHOD_NAMES = {"eagle": "EAGLE", "draft": "a draft model", "ngram": "n-gram lookup", "mtp": "MTP", "medusa": "Medusa"}  # as a sentence says them


def _model(meta: dict, name: str) -> str:
    return (meta.get("model") or {}).get(name, name)


_list = spoken_list  # 'a, b and c'


def _range(values, unit: str = "") -> str:
    """'1.01-1.12×' (min-max to two decimals), or one value where they agree."""
    lo, hi = f"{min(values):.2f}", f"{max(values):.2f}"
    return f"{lo}{unit}" if lo == hi else f"{lo}-{hi}{unit}"


def _batch_list(parts: list[str]) -> str:
    """'up to batch 270 on H100 SXM5 and at least 128 on L4 (...)', 'up to at least batch 91 on ...' where the first is a
    lower bound, or 'not at all on ...' where the first pays nowhere."""
    said = _list(parts)
    if said.startswith("not at all"):
        return said
    return f"up to at least batch {said[len('at least '):]}" if said.startswith("at least ") else f"up to batch {said}"


def _k_range(df: pd.DataFrame) -> str:
    """'1-6': the draft lengths k > 0 a table holds, '1, 3' where they skip one, or the one."""
    ks = sorted(int(k) for k in df.loc[df["k"] > 0, "k"].unique())
    if len(ks) > 2 and ks == list(range(ks[0], ks[-1] + 1)):
        return f"{ks[0]}-{ks[-1]}"
    return ", ".join(map(str, ks)) if ks else "none"  # qa135: '1-3' of k 1 and 3


def main_engine(df: pd.DataFrame) -> str:
    """The engine a section reports on: the first realistic one of the table (ideal only when alone)."""
    engines = list(dict.fromkeys(df["engine"].astype(str))) if "engine" in df else ["ideal"]
    return next((e for e in engines if e != "ideal"), engines[0])


def _fits(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["fits_in_memory"].astype(bool)]


plain_fits = frontier_plain_fits  # rows whose batch plain decoding fits in memory (frontier.plain_fits)


def _at_best_k(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["k"] == df["best_k"]]


def _main_gemm_rows(ops: pd.DataFrame) -> pd.DataFrame:
    """Each device's first row of the main weight GEMM (the routed experts of a MoE model, else the MLP:
    layout.main_gemm_dtype's operator) in the operators table: what ridge_points prices and ridge_named names."""
    return ops[ops["operator"] == ("experts" if (ops["operator"] == "experts").any() else "mlp")].drop_duplicates("hardware")


def ridge_points(ops: pd.DataFrame) -> pd.Series:
    """Derated ridge point (FLOP/byte) per hardware of the main weight GEMM (_main_gemm_rows), compute ceiling over
    memory ceiling, from the operators table (whose ceilings are each operator's own: the embedding's are bf16's beside
    fp8 GEMMs)."""
    main = _main_gemm_rows(ops)
    first = (main if len(main) else ops.drop_duplicates("hardware")).set_index("hardware")
    return first["compute_ceiling_flops_per_s"] / first["memory_ceiling_bytes_per_s"]


def ridge_named(ops: pd.DataFrame) -> str:
    """Whose ridge points ridge_points gives, where not the MLP's bf16 GEMMs: ' of the routed experts' fp8 GEMMs' (qa441:
    DeepSeek-V3's fp8 experts' ridges, 354 on H200, unnamed in brackets beside a sentence on its attention's bf16 ridge,
    194), '' for a dense bf16 model's MLP; the dtypes of the rows the brackets read (qa446)."""
    main = _main_gemm_rows(ops)
    experts = (main["operator"] == "experts").any()
    dtypes = list(dict.fromkeys(main["compute_dtype"].astype(str))) if "compute_dtype" in main and len(main) else []
    if not experts and dtypes in ([], ["bf16"]):
        return ""
    return f" of the {'routed experts' if experts else 'MLP'}'{'' if experts else 's'} {'/'.join(dtypes) or 'main'} GEMMs"


# ---------------------------------------------------------------- the nine questions

RATES_KEY = -1.0  # an alpha no row has, standing for NaN (per-position rates or a tree) where a groupby key needs a value


def alpha_values(alphas) -> list:
    """The distinct values of an alpha column, ascending, NaN kept as one value and put last (NaN: per-position rates
    or a tree stand for alpha: grouping or `==` on it drops those rows, qa127)."""
    s = pd.Series(alphas, dtype=float)
    return sorted(s.dropna().unique().tolist()) + ([float("nan")] if s.isna().any() else [])


def same_alpha(series: pd.Series, alpha: float) -> pd.Series:
    """The rows of `series` at `alpha`, NaN matching NaN (alpha_values)."""
    return series.isna() if alpha != alpha else series == alpha


def _acceptance_text(alpha: float, meta: dict) -> str:
    """How a row's drafts are accepted, as a sentence says it: 'α = 0.8', 'α = 0.726, from an acceptance length of 2.63 at k = 3',
    'the given per-position rates 0.9, 0.8', 'the method's per-position rates' or 'a tree of 8 nodes, τ = 3.1' (alpha
    NaN: rates or a tree stand for it)."""
    if alpha == alpha:
        measured = meta.get("acceptance_length")
        return (f"α = {alpha:.3g}, from an acceptance length of {measured['tau']:g} at k = {measured['k']}" if measured
                else f"α = {alpha:g}")
    tree = meta.get("tree_nodes")
    if tree:
        return f"a tree of {tree} node{'s' if tree != 1 else ''}, τ = {meta.get('tree_tau'):g}"
    given = meta.get("acceptance")  # per-position rates the scenario gave (None: the method's published ones)
    return f"the given per-position rates {', '.join(f'{a:g}' for a in given)}" if given else "the method's per-position rates"


def _alpha_short(alpha: float, meta: dict) -> str:
    """'α = 0.8', or, where rates or a tree stand for alpha, 'the per-position rates' / 'the tree' (a list's item)."""
    return f"α = {alpha:g}" if alpha == alpha else "the tree" if meta.get("tree_nodes") else "the per-position rates"


def _article(number: str) -> str:
    """'a' or 'an' before a number as it is read: an 8k, an 11,000, an 18k; a 1k, a 110k, a 512."""
    lead = re.match(r"\d+", number)
    group = lead.group(0) if lead else ""
    return "an" if group.startswith("8") or group in ("11", "18") else "a"


def _one_value(value) -> str:
    """A meta value that names one setting ('fp8'), else '' (several, or none)."""
    values = value if isinstance(value, (list, tuple)) else [value]
    return str(values[0]) if len(values) == 1 and values[0] else ""


def _largest_swept(row: pd.Series, rows: pd.DataFrame) -> str:
    """'; the largest swept batch that fits' (', memory holding up to N' where the table says more would fit: the next
    batch swept is beyond that, or none is) when `row` is at the largest batch of `rows`, else ''."""
    if int(row["batch"]) != int(rows["batch"].max()):
        return ""
    if bool(row.get("computed_now", False)):  # frontier.plain_at_largest_fit's point past the swept batches
        swept = rows.loc[~rows["computed_now"].fillna(False).astype(bool), "batch"] if "computed_now" in rows else rows["batch"]
        cap = row.get("sequence_cap", float("nan"))
        above = (f"; above the {int(cap):,} sequences {row['engine']} runs at once by default: it assumes that cap raised"
                 if pd.notna(cap) and int(row["batch"]) > cap else "")
        return (f"; the largest batch that fits, computed now: the largest swept batch that fits is {int(swept.max()):,}"
                if len(swept) else "; the largest batch that fits, computed now") + above
    cap = int(row["baseline_max_batch"]) if "baseline_max_batch" in row.index else 0
    return "; the largest swept batch that fits" + (f", memory holding up to {cap:,}" if cap > int(row["batch"]) else "")


def verify_mini_prefill(df: pd.DataFrame, ops: pd.DataFrame, meta: dict) -> Finding:
    """Largest q = k + 1 whose verify pass takes at most TOLERANCE x the decode step (q = 1), per
    (hardware, model, context, batch); censored when it is the largest q swept."""
    every = df.assign(q=df["k"] + 1, ratio=df["verify_time_s"] / df["step_time_s"])
    engine = main_engine(df)
    d = every[every["engine"].astype(str) == engine] if "engine" in every else every
    within = d[d["ratio"] <= TOLERANCE]
    if within.empty:  # a sentence for the fallback's warning, not a KeyError
        raise Unanswerable(f"no verify pass swept stays within +{_pct(TOLERANCE - 1)} of a decode step, the narrowest "
                           f"swept being q = {int(d['q'].min())}")
    q_max = within.groupby(["hardware", "model", "context", "batch"])["q"].max()
    q_swept = int(d["q"].max())
    # the model described: the first that fits somewhere; the batch: the largest it fits at (qa125, qa126: 'up to q = no
    # fit on L4 and no fit on H100' at a batch nothing, or not the model described, fits)
    fits_any = d[d["fits_in_memory"].astype(bool)]
    model0 = (fits_any if len(fits_any) else d)["model"].iloc[0]
    batch_hi = int((fits_any[fits_any["model"] == model0] if len(fits_any) else d)["batch"].max())
    batch_lo = int(d["batch"].min())
    ridge = ridge_points(ops)
    hws = sorted(d["hardware"].unique(), key=lambda h: -ridge.get(h, 0))
    contexts = sorted(d["context"].unique())
    narrow_hi = d[(d["k"] == d["k"].min()) & (d["batch"] == batch_hi) & d["fits_in_memory"].astype(bool)]
    fits_hi = set(narrow_hi[["hardware", "model", "context"]].itertuples(index=False, name=None))

    def width(hw: str, c) -> str:
        """q at (hw, the first model, context c, the largest batch): '≥16' where it is the widest swept, 'no fit'."""
        if (hw, model0, c) not in fits_hi:
            return "no fit"
        q = int(q_max.get((hw, model0, c, batch_hi), 0))
        return f"<{q_narrowest}" if q == 0 else f"≥{q}" if q >= q_swept else str(q)
    q_narrowest = int(d["q"].min())
    parts = [f"{'/'.join(width(hw, c) for c in contexts)} on {_hw(meta, hw)}" for hw in hws]
    legend = [text for mark, text in (("no fit", f"no fit: batch {batch_hi:,} does not fit in memory there"),
                                      ("≥", "≥: the widest q swept, the limit lies beyond"),
                                      ("<", f"<{q_narrowest}: even the narrowest pass swept costs more than +{_pct(TOLERANCE - 1)}"))
              if any(mark in part for part in parts)]
    legend_text = f" ({'; '.join(legend)})" if legend else ""
    models = list(dict.fromkeys(d["model"]))
    base = q_max.xs(model0, level="model")
    rest = [m for m in models if m != model0]  # the models beside the one described
    same = all(q_max.xs(m, level="model").reindex(base.index).equals(base) for m in rest)
    lo = q_max.xs(batch_lo, level="batch")
    narrowest = d[(d["k"] == d["k"].min()) & (d["batch"] == batch_lo) & d["fits_in_memory"].astype(bool)]  # narrowest pass
    fitting = set(narrowest[["hardware", "model", "context"]].itertuples(index=False, name=None))
    dropped = len(lo)
    lo = lo[[key in fitting for key in lo.index]] if fitting else lo  # a configuration that fits at no batch claims nothing
    dropped -= len(lo)
    left_out = f" that fits in memory ({dropped} that {'does' if dropped == 1 else 'do'} not fit, left out)" if dropped else ""
    lo_min, lo_max = int(lo.min()), int(lo.max())
    one_of_several = len(lo) == 1 and dropped > 0  # which one, where the others do not fit (qa125)
    censored = lo_max >= q_swept
    others = _list([_model(meta, m) for m in rest]) if rest else ""
    dtype = _one_value(meta.get("weight_dtype"))  # said beside the model: the width is the bytes' ratio, set by the dtype
    ridges = _list([f"{_n(ridge[hw])} on {_hw(meta, hw)}" for hw in hws])
    text = (
        f"At batch {batch_hi:,}, under {engine}, a pass of q tokens per sequence costs at most +{_pct(TOLERANCE - 1)} over a decode step "
        f"up to q = {_list(parts)} at {' / '.join(_ctx(c) for c in contexts)} context ({_model(meta, model0)}"
        f"{', ' + dtype + ' weights' if dtype else ''}{'; ' + others + ' the same' if others and same else ''}), "
        f"i.e. {batch_hi} × q tokens in flight{legend_text}. "
        f"At batch {batch_lo:,} a pass verifies {'at least ' if censored and lo_min == lo_max else ''}{lo_min}"
        f"{'' if lo_min == lo_max else f' to {lo_max}'} token{'' if lo_min == lo_max == 1 else 's'}"
        f"{(' (the largest q swept: the limit lies beyond)' if lo_min == lo_max else f' ({lo_max} is the largest q swept: there the limit lies beyond)') if censored else ''}"
        f" within the same +{_pct(TOLERANCE - 1)}{' over every model, GPU and context' if len(lo) > 1 else ''}"
        + (f" on the one configuration that fits in memory, {_model(meta, lo.index[0][1])} on {_hw(meta, lo.index[0][0])} "
           f"at {_ctx(lo.index[0][2])} context ({dropped} that {'does' if dropped == 1 else 'do'} not fit, left out)."
           if one_of_several else f"{left_out}.")
    )
    numbers = {"q_max": q_max, "q_swept": q_swept, "censored_at_smallest_batch": censored, "ridge": ridge, "engine": engine}
    if "engine" in every and engine != "ideal" and (every["engine"].astype(str) == "ideal").any():
        bound = every[(every["engine"].astype(str) == "ideal") & (every["ratio"] <= TOLERANCE)]
        q_ideal = bound.groupby(["hardware", "model", "context", "batch"])["q"].max()
        pairs = [(int(q_max.get((hw, model0, contexts[0], batch_hi), 0)), int(q_ideal.get((hw, model0, contexts[0], batch_hi), 0)))
                 for hw in hws]
        ideal_q = [i for _, i in pairs]
        at_width = pd.concat([every[(every["engine"].astype(str) == "ideal") & (every["hardware"] == hw) & (every["model"] == model0)
                                    & (every["batch"] == batch_hi) & (every["context"] == contexts[0]) & (every["q"] == q)]
                              for hw, q in zip(hws, ideal_q)])  # each GPU's own row at its own width
        memory_bound = not at_width.empty and not bool(at_width["verify_compute_bound"].any())  # no width: no claim
        shown = [f"<{q_narrowest}" if i == 0 else f"≥{i}" if i >= q_swept else str(i) for i in ideal_q]  # as width() marks
        widths = (f"q = {shown[0]} on every GPU" if len(set(shown)) == 1 else
                  f"q = {_list([f'{w} on {_hw(meta, hw)}' for hw, w in zip(hws, shown)])}")
        widths_of = [(hw, e, i) for hw, (e, i) in zip(hws, pairs) if 0 < e < q_swept and 0 < i < q_swept]  # both widths
        why = (" The pass is still memory-bound there: the width ends where the bytes each extra token adds (its "
               "activations through every GEMM and elementwise pass, its KV write) reach "
               f"+{_pct(TOLERANCE - 1)} of the step's weight and KV reads, a ratio the GPU's compute does not change."
               if memory_bound else "")
        compare = _list([f"{word} on {_list([_hw(meta, hw) for hw, e, i in widths_of if test(e, i)])}"
                         for word, test in (("wider", lambda e, i: e > i), ("narrower", lambda e, i: e < i),
                                            ("the same", lambda e, i: e == i)) if any(test(e, i) for _, e, i in widths_of)])
        text += (f" On the bare roofline (ideal, batch {batch_hi:,}, {_ctx(contexts[0])}; not drawn) it is {widths}.{why}"
                 + (f" The {engine} engine's width is {compare}: {_width_causes(engine, hws, meta)}, more where the ridge "
                    f"point is lower (derated {dtype + ' ' if dtype else ''}ridge points in FLOP/B: {ridges})." if compare else ""))
        numbers["q_max_ideal"] = q_ideal
    hi = [int(q_max.get((hw, model0, c, batch_hi), 0)) for hw in hws for c in contexts if (hw, model0, c) in fits_hi]
    at_hi = (f"; at batch {batch_hi:,}, {_q_span(hi, q_swept)} for {_model(meta, model0)}"
             if batch_hi != batch_lo and hi and min(hi) > 0 else "")  # (qa398: its bracket read as batch 1's too)
    short = (f"Under {engine}, one pass verifies {_q_span([lo_min, lo_max], q_swept)} "
             f"{'token' if lo_min == lo_max == 1 and q_swept > 1 else 'tokens'} a sequence for at most "  # (qa480: '1 tokens')
             f"+{_pct(TOLERANCE - 1)} over a decode step's time at batch {batch_lo:,}"
             f"{' (every model and GPU that fits)' if len(lo) > 1 else ''}{at_hi}.")
    return Finding("Verification is a mini-prefill", text, numbers, short)


def _q_span(values: list[int], q_swept: int) -> str:
    """'9 to 22', '64 or more' (the largest q swept: the limit lies beyond), '55 to 64 or more'."""
    lo, hi = min(values), max(values)
    return (str(lo) if lo == hi else f"{lo} to {hi}") + (" or more" if hi >= q_swept else "")


def _width_causes(engine: str, hws, meta: dict) -> str:
    """What moves `engine`'s verify width from the bare roofline's, as its profile has it (qa219: SGLang's width was
    said to widen with host work 'paid by the decode step too', where its decode step hides that work and its verify
    pass pays it): fixed costs a pass widen it; host work hidden behind a decode step but not behind a verify pass, and
    compute and memory time that do not fully overlap, narrow it."""
    try:
        hw = str(hws[0])
        eng = (meta.get("engine_values") or {}).get((engine, hw)) or load_engine(engine).for_hardware(hw)
    except RooflineError:  # a profile no longer on the search path: the general rule
        eng = None
    loses_host = eng is not None and eng.host_overlap and not eng.host_overlap_speculating
    widen = ("its fixed costs per pass (kernel latencies" + ("" if loses_host or (eng is not None and eng.host_overlap) else ", host work")
             + ") widen it, being paid by the decode step too")
    narrow = []
    if loses_host:
        narrow.append("its host work, hidden behind a decode step (host_overlap) but added to a verify pass "
                      "(host_overlap_speculating false), narrows it")
    p = None if eng is None else eng.overlap_exponent
    if eng is None or p is not None:
        narrow.append("its compute and memory times adding up (overlap_exponent 1: no overlap) narrows it" if p == 1 else
                      "its partial overlap of compute with memory traffic (the profile's overlap_exponent) narrows it")
    return "; ".join([widen, *narrow])


def _flops_when_nothing_pays(spec: pd.DataFrame, meta: dict) -> Finding:
    """flops-vs-time where every point's best k is 0 (speculation pays nowhere): the smallest k swept, at the alpha
    nearest 0.8, its most favourable point: what it computes, reads and takes against plain decoding."""
    k1 = int(spec["k"].min())
    at = spec[spec["k"] == k1]
    alphas = alpha_values(at["alpha"])
    numeric = [a for a in alphas if a == a]
    a_main = min(numeric, key=lambda a: abs(a - 0.8)) if numeric else alphas[0]
    row = at[same_alpha(at["alpha"], a_main)].sort_values("speedup").iloc[-1]
    text = (f"Speculation pays at no point of this sweep: every point's best k is 0 (plain decoding). At "
            f"{_acceptance_text(a_main, meta)} and the smallest k swept, {k1}, its most favourable point "
            f"({_model(meta, row['model'])} on {_hw(meta, row['hardware'])}, batch {int(row['batch']):,}) computes "
            f"{_x(row['flops_ratio'])} the FLOPs of plain decoding per generated token and reads {_x(row['bytes_ratio'])} "
            f"the bytes, and takes {_x(row['time_ratio'])} the time: the drafter's work and the rejected positions cost "
            "more than the tokens they add.")
    return Finding("More compute, more time", text, {  # the keys the paying case gives (qa220), and the k described
        "alpha": a_main, "best_k": 0, "k": k1, "flops_ratio": float(row["flops_ratio"]), "bytes_ratio": float(row["bytes_ratio"]),
        "time_ratio": float(row["time_ratio"]), "wasted_flops_fraction": float(row["wasted_flops_fraction"]),
        "every_point_more_flops": bool((spec["flops_ratio"] > 1).all())})


def flops_vs_time(df: pd.DataFrame, ops: pd.DataFrame, meta: dict) -> Finding:
    """FLOPs, bytes and time per generated token relative to plain decoding, at each alpha's best k."""
    d = _fits(df).assign(
        flops_ratio=lambda t: t["flops_per_token"] / t["baseline_flops_per_token"],
        time_ratio=lambda t: 1.0 / t["speedup"],
        alpha_key=lambda t: t["alpha"].fillna(RATES_KEY),  # per-position rates or a tree: a key, not a dropped NaN
    )
    point = ["hardware", "model", "batch", "context", "alpha_key"]
    base_bytes = d[d["k"] == 0].set_index(point)["bytes_per_token"]
    d = d.assign(bytes_ratio=d["bytes_per_token"].to_numpy() / base_bytes.reindex(pd.MultiIndex.from_frame(d[point])).to_numpy())
    best = _at_best_k(d[d["k"] > 0]).drop_duplicates(point)
    if best.empty and (d["k"] > 0).any():  # qa219: an IndexError, said as the axes' fault
        return _flops_when_nothing_pays(d[d["k"] > 0], meta)
    alphas = alpha_values(best["alpha"])
    numeric = [a for a in alphas if a == a]
    a_main = min(numeric, key=lambda a: abs(a - 0.8)) if numeric else alphas[0]
    row = best[same_alpha(best["alpha"], a_main)].iloc[0]
    k_max = int(d["k"].max())
    hw, model = row["hardware"], row["model"]
    more_flops_all = bool((d.loc[d["k"] > 0, "flops_ratio"] > 1).all())
    at_context = f", context {_ctx(row['context'])}" if d["context"].nunique() > 1 else ""  # qa133: which one, of several
    # the best k at the lowest and highest alpha at the row's own point (qa135: the lowest over every batch and context)
    same = best[(best["hardware"] == hw) & (best["model"] == model) & (best["batch"] == row["batch"])
                & (best["context"] == row["context"])]
    ends = [same[same["alpha"] == a] for a in (numeric[:1] + numeric[-1:] if len(numeric) > 1 else [])]
    trend = ""
    if len(ends) == 2 and len(ends[0]) and len(ends[1]):
        k_lo, k_hi = int(ends[0]["k"].iloc[0]), int(ends[1]["k"].iloc[0])
        at_least = "at least " if k_hi >= k_max else ""
        trend = (f"the best k grows with α, from {k_lo} at α = {numeric[0]:g} to {at_least}{k_hi} at α = {numeric[-1]:g}"
                 if k_hi > k_lo else f"the best k is {k_lo} at α = {numeric[0]:g} and {at_least}{k_hi} at α = {numeric[-1]:g}")
    text = (
        f"At {_acceptance_text(a_main, meta)} and its best k = {int(row['k'])}{' (the largest swept)' if row['k'] >= k_max else ''} "
        f"({_model(meta, model)} on {_hw(meta, hw)}, batch {int(row['batch']):,}"
        f"{at_context}), "
        f"speculation computes {_x(row['flops_ratio'])} "
        f"the FLOPs of plain decoding per generated token, {_pct(row['wasted_flops_fraction'])} of them beyond plain decoding's (the drafter's work and the rejected positions), "
        f"yet reads {_x(row['bytes_ratio'])} the bytes and takes {_x(row['time_ratio'])} the time ({_x(row['speedup'])} faster). "
        f"{'Every speculative point computes more per token than plain decoding' if more_flops_all else 'Some speculative points compute less per token'}"
        + (f"; {trend}." if trend else ".")
    )
    short = (f"Speculation computes {_x(row['flops_ratio'])} the FLOPs of plain decoding per generated token, yet takes "
             f"{_x(row['time_ratio'])} the time, {_x(row['speedup'])} faster ({_alpha_short(a_main, meta)}, k = {int(row['k'])}, batch {int(row['batch']):,}).")
    return Finding("More compute, less time", text, {
        "alpha": a_main, "best_k": int(row["k"]), "flops_ratio": float(row["flops_ratio"]),
        "bytes_ratio": float(row["bytes_ratio"]), "time_ratio": float(row["time_ratio"]),
        "wasted_flops_fraction": float(row["wasted_flops_fraction"]), "every_point_more_flops": more_flops_all,
    }, short)


def break_even_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per (method, alpha, hardware, model, context): the break-even batch at the best k (the largest over k of
    the table's `break_even_batch`), the largest swept batch that fits, the largest batch that fits at that k
    (`max_batch`, which a refined break-even may reach between swept batches), whether the break-even is censored
    (a lower bound: speculation still pays at the largest batch that fits, at the sweep's last batch, or at the last
    swept batch that fits, where a sweep too large to refine stops) and the best speedup over k > 0 at the largest swept
    batch that fits; "fits" here is speculation's, some k > 0 fitting (a batch only plain decoding fits pays nothing),
    and the break-even, its k and max_batch are read among the k > 0 rows where the table has any; plain_max_batch is
    plain decoding's own cap (whether anything fits where the drafter does not); first_losing_batch and
    speedup_at_first_losing_batch the first swept batch below the break-even where its k does not pay (NaN: none)."""
    keys = ["method", "alpha", "hardware", "model", "context"]
    df = df.assign(alpha=df["alpha"].fillna(RATES_KEY))  # per-position rates or a tree: one group, NaN again below
    fit = _fits(df)
    drafting = df[df["k"] > 0]  # the break-even, its k and max_batch among the k that draft (qa126: where none pays, the
    drafting = drafting if len(drafting) else df  # first row, k = 0's, gave plain decoding's cap as speculation's)
    grouped = drafting.groupby(keys, observed=True)
    be = grouped["break_even_batch"].max()
    at_best = drafting.loc[grouped["break_even_batch"].idxmax(), keys + ["max_batch", "k"]].set_index(keys).reindex(be.index)
    cap = at_best["max_batch"]
    # where speculation fits (k > 0: the drafter and its k + 1 tokens a sequence held; qa125: a batch only plain decoding
    # fits was taken, and its speedup over k > 0, of no row, read 'nan×')
    fit_max = fit[fit["k"] > 0].groupby(keys, observed=True)["batch"].max().reindex(be.index)
    swept_max = df.groupby(keys, observed=True)["batch"].max().reindex(be.index)
    plain_cap = (df.groupby(keys, observed=True)["baseline_max_batch"].min().reindex(be.index) if "baseline_max_batch" in df
                 else cap)  # plain decoding's: where the drafter fits at no batch, whether anything does
    out = pd.DataFrame({"break_even_batch": be, "largest_fitting_batch": fit_max, "max_batch": cap, "largest_batch": swept_max,
                        "k_at_break_even": at_best["k"], "plain_max_batch": plain_cap})  # the k the break-even is at
    # a lower bound where it pays at max_batch or at the sweep's last batch, or stops at the last swept batch that fits
    # (a sweep too large to refine keeps that one); one refined to a crossing between them and max_batch is exact
    out["censored"] = (be >= cap) | (be >= swept_max) | (be == fit_max)
    out["memory_limited"] = out["censored"] & ~(out["largest_fitting_batch"] >= out["largest_batch"])  # NaN: none fits
    # how much it pays where the search ends: a censored break-even may rest on a speedup of 1.01
    end = fit[fit["k"] > 0].merge(out["largest_fitting_batch"].reset_index(), on=keys)
    end = end[end["batch"] == end["largest_fitting_batch"]]
    out["speedup_at_largest_fitting_batch"] = end.groupby(keys, observed=True)["speedup"].max().reindex(out.index)
    best = end.loc[end.groupby(keys, observed=True)["speedup"].idxmax()].set_index(keys)["k"] if len(end) else pd.Series(dtype=float)
    out["k_at_largest_fitting_batch"] = best.reindex(out.index)  # that speedup's k: not the k the break-even is at
    # a swept batch below the break-even where the k it is at does not pay (qa273: 0.991x at batch 8 under a break-even
    # of 167, said by predict, not by the sweep's column or this finding): the curve dips and recovers
    every = fit.drop(columns=["break_even_batch"]).merge(out[["break_even_batch", "k_at_break_even"]].reset_index(), on=keys)
    every = every[every["k"] == every["k_at_break_even"]]
    losing = every[(every["batch"] < every["break_even_batch"]) & (every["speedup"] < 1.0 - 1e-12)]
    first = losing.loc[losing.groupby(keys, observed=True)["batch"].idxmin()].set_index(keys) if len(losing) else None
    out["first_losing_batch"] = first["batch"].reindex(out.index) if first is not None else np.nan
    out["speedup_at_first_losing_batch"] = first["speedup"].reindex(out.index) if first is not None else np.nan
    out = out.reset_index()
    return out.assign(alpha=out["alpha"].where(out["alpha"] != RATES_KEY))


def _at_k(r, column: str = "k_at_largest_fitting_batch", word: str = " with") -> str:
    """' with k = 2': the k of a censored break-even's end speedup (the best there; or of `column`), '' where it is not
    known."""
    k = getattr(r, column, float("nan"))
    return f"{word} k = {int(k)}" if k == k else ""


def _other_methods_text(methods: list, method: str, at_c0: pd.DataFrame, a0: float, gpus_said) -> str:
    """'At the same acceptance and context, a draft model pays up to batch 119 on A100 SXM4 ... ' for the methods of the
    sweep the finding's first sentences do not describe (qa219: its figure drew three methods, its text one), each GPU
    as the first sentence says it (`gpus_said`: break_even_batch's own `pays`), without the ridge points."""
    said = []
    for m in methods:
        rows = at_c0[(at_c0["method"] == m) & same_alpha(at_c0["alpha"], a0)]
        if m != method and len(rows):
            said.append(f"{METHOD_NAMES.get(m, m)} pays {_batch_list(gpus_said(rows, False)[0])}")
    return f"At the same acceptance and context, {_list(said)}. " if said else ""


def break_even_batch(df: pd.DataFrame, ops: pd.DataFrame, meta: dict) -> Finding:
    """Up to which batch speculation pays per GPU (the drafting method's break-even at its lowest alpha, at the
    smallest context swept), against the GPUs' derated ridge points; then at higher alpha, and at each longer context."""
    table = break_even_table(df)
    ridge = ridge_points(ops)
    methods = list(dict.fromkeys(table["method"]))
    method = "eagle" if "eagle" in methods else methods[0]
    alphas = alpha_values(table["alpha"])
    a0 = alphas[0]
    contexts = sorted(table["context"].unique())
    c0 = contexts[0]
    at_c0 = table[table["context"] == c0]

    several_models = table["model"].nunique() > 1

    def on(h: str, r) -> str:
        """'H100 SXM5', or 'H100 SXM5 for Llama-3.1-8B' where the table holds several models (qa467: 'at least 64 on H200
        SXM (...) and at least 64 on H200 SXM (...)', two models on one GPU)."""
        return _hw(meta, h) + (f" for {_model(meta, r.model)}" if several_models else "")

    def pays(t: pd.DataFrame, ridges: bool) -> tuple[list[str], pd.DataFrame]:
        """'256 on H100 SXM5 (278)' per GPU of `t` (one method, alpha and context), largest first; and its free rows."""
        t = t.set_index("hardware")
        t = t.assign(ridge=ridge.reindex(t.index)).sort_values(["break_even_batch", "ridge"], ascending=False)
        none_swept = t["largest_fitting_batch"].isna()  # not one swept batch fits: smaller ones may, and pay
        never = t["break_even_batch"] == 0  # no batch that fits pays (swept, or below the sweep where none swept fits)
        free = t[~t["censored"] & ~none_swept & ~never]
        unrefined = "at least " if meta.get("break_even_refined") is False else ""  # the largest swept batch that pays
        parts = [f"{unrefined}{int(r.break_even_batch):,} on {on(h, r)}" + (f" ({_n(r.ridge)})" if ridges else "")
                 for h, r in free.iterrows()]
        fitting = t["censored"] & (~none_swept | (t["break_even_batch"] > 0))
        capped = [f"at least {int(r.break_even_batch):,} on {on(h, r)} (" + (f"{_n(r.ridge)} FLOP/B; " if ridges else "")
                  + ("the largest batch that fits, below the sweep's first" if np.isnan(r.largest_fitting_batch) else
                     f"the largest batch that fits{_at_k(r, 'k_at_break_even', ' at')}; {r.speedup_at_largest_fitting_batch:.2f}× at "
                     f"batch {int(r.largest_fitting_batch):,}, the largest swept that fits{_at_k(r, word=', with')}"  # qa101: 148 was k 1's,
                     if r.break_even_batch > r.largest_fitting_batch else  # read as the k = 2 named after it
                     f"{'memory ends the sweep' if r.memory_limited else 'the sweep ends there'}, "
                     f"{r.speedup_at_largest_fitting_batch:.2f}× there{_at_k(r)}") + ")" for h, r in t[fitting].iterrows()]
        nowhere = [f"not at all on {on(h, r)} (" + (("not one batch fits with the drafter" if r.plain_max_batch >= 1 else
                                                          "not one batch fits") if r.max_batch < 1 else
                   f"no swept batch fits; {'batch 1 fits' if r.max_batch == 1 else f'batches 1-{int(r.max_batch)} fit'} and do not pay"
                   if np.isnan(r.largest_fitting_batch) else "no batch that fits pays")
                   + ")" for h, r in t[never].iterrows()]
        return parts + capped + nowhere, free

    said, free = pays(at_c0[(at_c0["method"] == method) & same_alpha(at_c0["alpha"], a0)], True)
    rho = float(free["break_even_batch"].rank().corr(free["ridge"].rank())) if len(free) >= 3 else float("nan")
    n_hw = len(at_c0[["hardware", "model"]].drop_duplicates())  # GPUs, or GPU and model pairs
    later = []
    for a in alphas[1:]:
        ta = at_c0[(at_c0["method"] == method) & same_alpha(at_c0["alpha"], a)
                   & (at_c0["largest_fitting_batch"].notna() | (at_c0["break_even_batch"] > 0))]  # pays below the sweep too
        by_memory = int(ta["memory_limited"].sum())  # a GPU where not one batch fits is said in the first sentence
        gain = ta.loc[ta["censored"], "speedup_at_largest_fitting_batch"].dropna()  # none where no swept batch fits
        there = f"; {_range(gain, '×')} at the largest swept batch that fits" if len(gain) else ""  # qa231: not the limit
        later.append(f"{int(ta['censored'].sum())} of {n_hw} at {_alpha_short(a, meta)} ({by_memory} where memory ends it{there})")
    longer = [f"at {_article(f'{int(c):,}')} {int(c):,}-token context "
              + _batch_list(pays(table[(table["method"] == method) & same_alpha(table["alpha"], a0) & (table["context"] == c)], False)[0])
              for c in contexts[1:]]
    label = METHOD_NAMES.get(method, method)
    mla = [m for m in dict.fromkeys(df["model"].astype(str)) if (meta.get("kv_layout") or {}).get(m) == "mla"]
    drafted_k = sorted({int(k) for k in df.loc[df["k"] > 0, "k"]})  # a tree's depth: one tau, no best among depths (qa133)
    tree_depth = (f"at its depth, k = {drafted_k[0]}" if len(drafted_k) == 1 else  # qa137: several depths, one tau each
                  f"at the depth that pays longest, of k = {_k_range(df)}")
    nowhere = all(part.startswith("not at all") for part in said)  # qa219: 'in brackets:' with none, on a sweep where
    # nothing pays, and the longer-context sentence said of speculation that pays
    engine = main_engine(df)  # named first (qa391: the bound's batches read as a serving engine's, 'ideal' 6 sentences on)
    under = "the roofline bound (engine ideal)" if engine == "ideal" else f"{engine}"
    opening = (f"With {label} {'drafting' if a0 != a0 and meta.get('tree_nodes') else 'at'} {_acceptance_text(a0, meta)} and "
               f"{_article(f'{int(c0):,}')} {int(c0):,}-token context, under {under}, speculation pays ")
    text = (
        (opening + f"at no batch ({tree_depth if meta.get('tree_nodes') else f'at any k swept, {_k_range(df)}'}): "
         + _list([part.removeprefix("not at all on ") for part in said]) + ". " if nowhere else
         opening + f"({tree_depth if meta.get('tree_nodes') else f'at the k that pays longest, of {_k_range(df)}'}) {_batch_list(said)}"
         f", derated ridge points{ridge_named(ops)} in FLOP/B in brackets: {_ridge_order(rho, free, on)}"
         f"{f' (rank correlation {rho:.2f} over the {len(free)} whose break-even lies inside the sweep)' if np.isfinite(rho) else ''}. ")
        + (ridge_why(meta) if ridge_ordered(rho, free) else "")
        + _dips_text(at_c0[(at_c0["method"] == method) & same_alpha(at_c0["alpha"], a0)], meta)
        + _speculating_cap_text(df, at_c0[(at_c0["method"] == method) & same_alpha(at_c0["alpha"], a0)], meta)
        + _other_methods_text(methods, method, at_c0, a0, pays)
        + (f"At {'higher acceptance' if alphas[-1] == alphas[-1] else 'the other acceptance given'} "
           f"{label if len(methods) > 1 else 'it'} still pays at the "
           f"largest batch that fits or was swept on {_list(later)}. " if later else "")
        + (f"At {_alpha_short(a0, meta)} it pays {'; '.join(longer)}. " if longer else "")
        + ("" if nowhere else "At longer contexts each sequence's KV-cache reads keep the verify pass memory-bound to larger "
           "batches, and memory caps the batch sooner: speculation then pays up to the largest batch that fits, more often "
           "than here.")
        + (" These are the derated roofline's batches (engine ideal: the silicon's answer to when speculation stops "
           "paying); a serving engine's costs move them, each engine its own: where it adds host work a sequence to every "
           "step that speculation pays once an iteration of tau tokens (vllm's, not overlapped), speculation pays to far "
           "larger batches, a gain resting on host work the fit does not tell from GPU work (docs/ACCURACY.md) "
           f"(a copy of this scenario with `engine: vllm` gives that engine's: `roofline scenarios new be-vllm --from "
           f"{_copied_from(meta)} --set engine=vllm`, then `roofline report be-vllm --out out/be-vllm`), with gains that run "
           f"optimistic from batch "
           f"{OPTIMISTIC_BATCH} on."
           if main_engine(df) == "ideal" else "")
        + ("" if nowhere else "".join(mla_attention_text(m, ops, meta, _fitting_pairs(df)) for m in mla))
    )
    cells = at_c0[(at_c0["method"] == method) & same_alpha(at_c0["alpha"], a0)]
    # memory ended every cell's search (qa313: 'Free until compute-bound' over bars all '>= the largest that fits')
    title = ("Free until memory runs out (compute-bound beyond it)" if len(cells) and not nowhere
             and cells["memory_limited"].astype(bool).all() else "Free until compute-bound")
    cell_models = list(dict.fromkeys(cells["model"].astype(str))) if "model" in cells else []
    lead = (f"With {label} {'drafting' if a0 != a0 and meta.get('tree_nodes') else 'at'} {_acceptance_text(a0, meta)}"
            + (f" on {_model(meta, cell_models[0])}" if len(cell_models) == 1 else "")
            + f" at {_article(f'{int(c0):,}')} {int(c0):,}-token context, under {under}, speculation pays")
    moved = ("; a serving engine's costs move these batches, each engine its own" if engine == "ideal" else "")  # (qa398:
    short = (f"{lead} at no batch that fits." if nowhere else  # read as vLLM's break-even)
             f"{lead} {_break_even_span(cells, meta, ordered=ridge_ordered(rho, free))}{moved}.")
    text = text.replace(".  ", ". ")  # (qa446: 'pays at no batch ... (no batch that fits pays).  These are', two spaces)
    return Finding(title, text.rstrip(), {"table": table, "ridge": ridge, "rank_correlation": rho, "method": method}, short)


def _fitting_pairs(df: pd.DataFrame) -> set:
    """The (hardware, model) pairs of a results table where some row fits in memory."""
    fits = df[df["fits_in_memory"].astype(bool)]
    return set(zip(fits["hardware"].astype(str), fits["model"].astype(str)))


def mla_attention_text(model: str, ops: pd.DataFrame, meta: dict, fitting: set | None = None) -> str:
    """' For DeepSeek-V3 that holds only while ...': whether the longer-context rule holds for an MLA model, read from the
    operators table's decode and verify passes (q = the largest k swept + 1) at its largest batch, per device, layout
    and KV dtype, at long contexts: the table is at the sweep's first context, where each query's own activations
    (q x the attention's bytes a query, a) weigh beside the cache's reads (K), so K is taken out of the two passes:

        a = (bytes_verify - bytes_decode) / (q - 1)      K = bytes_decode - a      intensity = FLOPs x S / (E x K)

    (S the context, the entries K holds; E the entries a query reads, S + 1 in a decode step, S + (q + 1) / 2 in a
    verify pass)
        ridge = the attention's compute ceiling / its memory ceiling

    MLA's absorbed attention does about 2 (576 + 512) FLOP per latent-cache entry and head of a device for each query, 576
    bytes an entry in fp8 (1,152 in bf16): 3.8 FLOP/B a head in fp8, 1.9 in bf16, times the heads a device holds (128
    under attention data parallelism, 128 / tp under tensor parallelism), times the k + 1 queries a sequence (qa441: a
    fixed sentence said 'about 240, near the ridge of today's GPUs' where fp8 doubles it past every ridge and tp 8 divides
    it below every one; qa446: read at a 256-token context it said 125 FLOP/B, memory-bound, where 32k gives 240, past
    H200's 194). Compute-bound, the gain at long contexts tends to tau / N (_long_context_limit); memory-bound, the rule holds. `fitting`:
    the (hardware, model) pairs where something fits; the devices where the model fits nowhere are not said."""
    a = ops[(ops["model"].astype(str) == model) & (ops["operator"] == "attention")]
    if fitting is not None:
        a = a[[(h, model) in fitting for h in a["hardware"].astype(str)]]
    if not (a["pass"] == "verify").any() or not (a["pass"] == "decode").any():
        return ""
    keys = ["hardware", *[c for c in (*LAYOUT_KEYS, "kv_dtype") if c in a]]
    largest = a.sort_values("batch", kind="stable").groupby([*keys, "pass"], sort=False).tail(1)
    decode = largest[largest["pass"] == "decode"].set_index(keys)
    last = largest[largest["pass"] == "verify"].set_index(keys)
    decode = decode.reindex(last.index)
    width = last["q"].astype(float)
    cache_bytes = decode["bytes"] - (last["bytes"] - decode["bytes"]) / (width - 1.0)  # K: the cache's reads alone
    cache_bytes = cache_bytes.where(cache_bytes > 0, last["bytes"])
    # K holds the S entries cached before the pass; its FLOPs read S + 1 (a decode step) and S + (q + 1) / 2 a query
    # (a verify pass's causal mean, Model.mean_entries_read): each read per entry, as long contexts tend to (qa481:
    # 243 and 486 FLOP/B said at a 256-token context, where the limit is 242 and 484)
    s = last["context"].astype(float) if "context" in last else None
    per_entry_v = 1.0 if s is None else s / (s + (width + 1.0) / 2.0)
    per_entry_d = 1.0 if s is None else s / (s + 1.0)
    last = last.assign(intensity=last["flops"] * per_entry_v / cache_bytes,
                       decode_intensity=decode["flops"] * per_entry_d / cache_bytes,
                       ridge=last["compute_ceiling_flops_per_s"] / last["memory_ceiling_bytes_per_s"]).reset_index()
    last = last[np.isfinite(last["intensity"]) & np.isfinite(last["decode_intensity"])]
    if not len(last):
        return ""
    last = last.assign(above=last["intensity"] > last["ridge"])
    several = last[[c for c in keys if c != "hardware"]].drop_duplicates().shape[0] > 1
    q = int(last["q"].iloc[0])
    who = _model(meta, model)
    if picked := int((meta.get("read_tokens") or {}).get(model) or 0):  # sparse attention (grid's meta)
        return _sparse_attention_text(who, picked, q)

    def named(rows: pd.DataFrame) -> list[str]:
        return [f"{_hw(meta, r['hardware'])} (" + (f"{_layout_text(r)}, {r['kv_dtype']} KV cache: " if several else "")
                + f"{_n(r['ridge'])})" for _, r in rows.iterrows()]

    def span(values: pd.Series) -> str:
        lo, hi = _n(values.min()), _n(values.max())
        return lo if lo == hi else f"{lo}-{hi}"

    above, below = last[last["above"]], last[~last["above"]]
    what = (f"at long contexts its attention does {span(last['decode_intensity'])} FLOP/B in a decode step (MLA's absorbed "
            "attention: about 3.8 FLOP a byte of an fp8 latent cache for each head on a device, 1.9 of a bf16 one) and, in "
            f"a verify pass of {q} tokens a sequence, whose queries share each read of the cache,")
    if not len(below):
        return (f" For {who} that holds only while its attention stays memory-bound, and here it does not: {what} "
                f"{span(above['intensity'])} FLOP/B, above its derated ridge on every device where it fits "
                f"({', '.join(named(above))} FLOP/B): compute-bound, {_long_context_limit(above)}.")
    if not len(above):
        ways = [w for w, ok in (("more heads on a device (as under attention data parallelism)",
                                 (below["tp"] > 1).any() if "tp" in below else False),
                                ("an fp8 cache", (below["kv_dtype"].astype(str) != "fp8").any())) if ok]
        return (f" For {who} it holds here: {what} {span(below['intensity'])} FLOP/B, below its derated ridge on "
                f"every device where it fits ({', '.join(named(below))} FLOP/B): memory-bound"
                + (f" ({' or '.join(ways)} would take it higher, past the ridge, where a verify pass's attention takes "
                   "longer than a decode step's and a longer context can narrow the margin)." if ways else "."))
    return (f" For {who} it holds where its attention stays memory-bound: {what} {span(last['intensity'])} FLOP/B, "
            f"above its derated ridge (in FLOP/B in brackets) on {_list(named(above))} (compute-bound: "
            f"{_long_context_limit(above)}) and below it on {_list(named(below))}.")  # (qa486: the unit after a bracket)


def _sparse_attention_text(who: str, read_tokens: int, q: int) -> str:
    """The longer-context rule for an MLA model whose attention is sparse (qa467: DeepSeek-V3.2's 2,048 entries a query
    were read as a dense cache, its verify pass said to take 1.11x a decode step's where it takes 4x): each query reads
    its own `read_tokens` entries, so past q x read_tokens cached tokens a verify pass of q tokens a sequence reads q times
    a decode step's entries at the same FLOP/B, and its attention takes q times as long whatever the ridge; only the
    indexer, which scores every cached key for each query, shares its reads among the queries."""
    return (f" For {who} it does not hold for its attention, which is sparse: each query reads its own {read_tokens:,} "
            f"cached entries (picked by its indexer), so past {q * read_tokens:,} tokens of context a verify pass of {q} "
            f"tokens a sequence reads {q} times a decode step's entries at the same FLOP/B, and its attention takes about {q} "
            "times as long whatever the ridge; only the indexer, which scores every cached key for each query, shares each "
            "read among the queries.")


def _long_context_limit(above: pd.DataFrame) -> str:
    """What a compute-bound verify pass's attention does to the gain at long contexts, where attention is most of a step:
    it takes N times a decode step's attention time, for the tau tokens an iteration emits, so the gain tends to tau / N;
    with I_v the verify pass's FLOP/B, I_d the decode step's and R the ridge,

        N = max(I_v, R) / max(I_d, R) = I_v / max(I_d, R)      (I_v > R here)

    the decode step memory-bound (I_d < R) or itself compute-bound (qa467: 968 FLOP/B over a ridge of 194 said 4.99x where
    the decode step's 242 FLOP/B is past it too: 4.0x); a longer context narrows the margin only where that is below
    the gain at short context (qa461: 'narrows' said of DeepSeek-V3 at tp 8, k 6, N = 1.09, whose gain rose with context
    from 2.16x to 2.29x under vllm)."""
    ratio = above["intensity"] / np.maximum(above["decode_intensity"], above["ridge"])
    lo, hi = _n(ratio.min()), _n(ratio.max())
    n = lo if lo == hi else f"{lo}-{hi}"
    return (f"so where attention is most of the step, at long contexts, a verify pass's attention takes {n}x a decode "
            f"step's, and the gain there tends to tau / {n} (tau the tokens an iteration emits): a longer context narrows "
            "the margin where that is below the gain at short context, and widens it where it is above")


def _break_even_span(cells: pd.DataFrame, meta: dict, ordered: bool = False) -> str:
    """Where speculation stops paying over the GPUs of `cells` (break_even_table's rows of one method, alpha and
    context), short: 'up to batch 131-270 on 5 of the 6 GPUs; on L4 to at least 148, the largest batch that fits';
    a break-even the sweep's last batch ends (not memory) said as at least that batch, the largest swept (qa397: said
    as memory's); `ordered`: the batches inside the sweep follow the GPUs' ridge points (ridge_ordered)."""
    none_swept = cells["largest_fitting_batch"].isna()
    never = cells["break_even_batch"] == 0
    inside = cells[~cells["censored"] & ~none_swept & ~never]["break_even_batch"]
    censored = cells["censored"] & (~none_swept | (cells["break_even_batch"] > 0))
    by_memory = censored & (cells["memory_limited"].astype(bool) if "memory_limited" in cells else True)
    n, unrefined = len(cells), ("at least " if meta.get("break_even_refined") is False else "")
    several_models = "model" in cells and cells["model"].nunique() > 1  # (qa467: two models on one GPU, 'of the 2 GPUs')
    gpus = "GPU and model pairs" if several_models else "GPUs"
    on_all = ("for every GPU and model" if several_models else "on every GPU") if n > 1 else "on the GPU"
    parts = []
    if len(inside):
        lo, hi = int(inside.min()), int(inside.max())
        parts.append(f"up to {unrefined}batch {lo:,}" + (f"-{hi:,}" if hi > lo else "")
                     + (f" on {len(inside)} of the {n} {gpus}" if len(inside) < n else f" {on_all}")
                     + (", the larger the higher the GPU's derated ridge point" if ordered else ""))
    for mask, end in ((by_memory, "the largest batch that fits"), (censored & ~by_memory, "the largest batch swept")):
        where = cells[mask]
        count = len(where)
        if not count:
            continue
        named = count <= 2 and "hardware" in where and bool((where["break_even_batch"] > 0).all())  # (qa398: unnamed)
        if named:
            batches = _list(list(dict.fromkeys(f"{int(b):,}" for b in where["break_even_batch"])))  # one where alike
            ends = {"the largest batch that fits": "the largest batches that fit",
                    "the largest batch swept": "the largest batches swept"}[end] if count > 1 else end
            names = ([f"{_hw(meta, h)} for {_model(meta, m)}" for h, m in zip(where["hardware"], where["model"])]
                     if several_models else [_hw(meta, h) for h in where["hardware"]])
            parts.append(f"on {_list(names)} to at least {batches}, {ends}")
        elif parts:
            parts.append(f"on {count} more to {'at least ' if end.endswith('swept') else ''}{end}")
        else:
            parts.append(f"to {'at least ' if end.endswith('swept') else ''}{end} "
                         f"{on_all if count == n else f'on {count} of the {n} {gpus}'}")
    if int(never.sum()):
        parts.append(f"on {int(never.sum())} at no batch that fits")
    return "; ".join(parts)


def _copied_from(meta: dict) -> str:
    """What `scenarios new --from` takes to copy the scenario a finding reads: its name where it is a shipped one, else
    its file (qa319: a user's break-even scenario was told to copy the shipped one)."""
    from roofline.profiles import builtin_dir

    name, path = str(meta.get("scenario") or "break-even-batch"), meta.get("scenario_file")
    if not path or Path(path).resolve().parent == builtin_dir("scenario").resolve():
        return name
    return shlex.quote(str(path))


def _speculating_cap_text(df: pd.DataFrame, t: pd.DataFrame, meta: dict) -> str:
    """' Under sglang a server runs at most 48 sequences at once while it speculates ...' where the main engine caps its
    running requests while speculating (serving.running_cap_speculating, on the first device of `t`: a cap is the
    engine's, the same on every device) below a break-even of `t` (rows of break_even_table), or '' (qa273: predict
    said it on its break-even line, this finding only in the warnings under it)."""
    from roofline.serving import running_cap_speculating

    engine = main_engine(df)
    if engine == "ideal" or not len(t):
        return ""
    dp = int(df["dp_attention"].max()) if "dp_attention" in df else 1
    try:
        hw = str(t["hardware"].iloc[0])
        eng = (meta.get("engine_values") or {}).get((engine, hw)) or load_engine(engine).for_hardware(hw)
    except RooflineError:  # a profile no longer on the search path: its warnings said it when swept
        return ""
    cap = running_cap_speculating(eng, dp)
    if cap is None or not (t["break_even_batch"] > cap).any():
        return ""
    flag = f" ({eng.max_running_requests_flag} raises it)" if eng.max_running_requests_flag else ""
    return (f"Under {engine} a server runs at most {cap:,} sequences at once while it speculates unless its cap is raised{flag}: a "
            "break-even above that is the batch's with the cap raised; left as it is, the rest wait in its queue. ")


def _above_cap_text(row: pd.Series, meta: dict) -> str:
    """"sglang's cap of 48 sequences while speculating" where the speculative point `row` (a results row) drafts at a
    batch above its engine's cap (frontier.above_running_cap), else ''."""
    from roofline.frontier import above_running_cap

    if "engine" not in row.index or int(row.get("k", 0)) <= 0:
        return ""
    over, caps = above_running_cap(row.to_frame().T, tuple(meta.get("profiles") or ()))
    engine = str(row["engine"])
    return f"{engine}'s cap of {', '.join(map(str, caps[engine]))} sequences while speculating" if over.any() else ""


def _dips_text(t: pd.DataFrame, meta: dict) -> str:
    """' Below the break-even it dips under 1 on H200 SXM first at batch 8 (0.991×), ...' for rows of break_even_table
    with a swept batch below the break-even where the k it is at does not pay (its first_losing_batch), or ''."""
    dips = t[t["first_losing_batch"].notna()] if "first_losing_batch" in t else t.iloc[:0]
    if not len(dips):
        return ""
    parts = [f"{_hw(meta, r.hardware)} first at batch {int(r.first_losing_batch):,} ({r.speedup_at_first_losing_batch:.3f}×)"
             for r in dips.itertuples()]
    return (f"Below the break-even it dips under 1 on {_list(parts)}, and pays again at larger batches: the break-even "
            "is the largest batch that pays, not every batch below it (predict names the batches that lose). ")


def _host_share(row: pd.Series, engine: str, meta: dict) -> str:
    """' At batch B the ENGINE engine's host work ... is X of the plain step: ...' where an engine that does not overlap
    its host work with the device spends more than HOST_SHARE_NOTED of plain decoding's step on it at `row`'s batch:
    t_host from engine.host_time_s with the engine values the sweep ran with (meta's engine_values; without them, the
    profile on the search path), the step B / baseline tokens/s; under pp the share on a micro-batch's round trip,
    t_host_mb (engine.microbatch_host_time_s), from m = 2 micro-batches whatever the engine (engine.step_metrics;
    qa244), or all of it where it sets the step (the host busy with every micro-batch's: qa247)."""
    if engine == "ideal":
        return ""
    from roofline.engine import host_time_s, microbatch_host_time_s, microbatches
    from roofline.layout import Deployment

    hw = str(row["hardware"])
    eng = (meta.get("engine_values") or {}).get((engine, hw)) or load_engine(engine).for_hardware(hw)
    batch = int(row["batch"])
    dp = int(row["dp_attention"]) if "dp_attention" in row.index else 1
    dep = Deployment(dp_attention=dp, pp=int(row["pp"]) if "pp" in row.index else 1)
    if (eng.host_overlap and dep.pp == 1) or not eng.host_per_sequence_s:
        return ""
    host_total_s = float(host_time_s(eng, batch, dep))
    step_s = batch / float(row["baseline_tokens_per_s"])
    host_s = host_total_s if host_total_s >= step_s * (1 - 1e-6) or microbatches(batch, dep) == 1 else float(
        microbatch_host_time_s(eng, batch, dep))
    if host_s / step_s <= HOST_SHARE_NOTED:
        return ""
    fitted = ", fitted" if "host_per_sequence" in (eng.fitted.get("parameters") or ()) else ""  # as its profile says
    return (f" At batch {batch} the {engine} engine's host work ({_n(host_s * 1e3)} ms, {_n(eng.host_per_sequence_s * 1e6)} us a "
            f"sequence{fitted}) is {_pct(host_s / step_s)} of the plain step, so how far batching alone goes rests on that term.")


def with_plain_at_largest_fit(base: pd.DataFrame, meta: dict) -> pd.DataFrame:
    """`base` (plain decoding's fitting rows) with the report's plain points at the most that fit of its configs where
    the swept batches stop short of it (meta's `plain_at_largest_fit`: frontier.plain_at_largest_fit's computed_now
    rows, as the fast tiers' cheapest tier), so batching alone's best is said where memory ends it, not where the batch
    axis does (qa445: 'at least 9,156 tokens/s' at the swept 512 where 855 fit, 9,346); `base` as it is without them."""
    extra = pd.DataFrame((meta or {}).get("plain_at_largest_fit") or [])
    if extra.empty:
        return base
    keys = [c for c in ("hardware", "model", "context", "engine") if c in base and c in extra]
    ours = set(base[keys].astype(str).itertuples(index=False, name=None))
    extra = extra[[tuple(r) in ours for r in extra[keys].astype(str).itertuples(index=False, name=None)]]
    return pd.concat([base.assign(computed_now=False), extra], ignore_index=True) if len(extra) else base


def batch_vs_speculation(df: pd.DataFrame, ops: pd.DataFrame, meta: dict) -> Finding:
    point = ["hardware", "model", "context", "alpha", "batch"]
    # plain decoding where its own cap fits the batch; speculation the fastest k > 0 that fits (qa126: a k = 0 row at a
    # batch the drafter does not fit read as speculation matching batching there, and a batch plain decoding fits but
    # the drafter does not as the largest that fits)
    base = df[plain_fits(df)].drop_duplicates(point)
    grown = with_plain_at_largest_fit(base, meta)  # batching alone's best at the most that fits too
    b_best = grown.loc[grown["baseline_tokens_per_s"].idxmax()]
    spec = fastest_drafting(df, point).sort_values("batch")  # NaN alpha kept (qa127: every point dropped before)
    if spec.empty:
        raise Unanswerable("speculation fits at no batch swept")
    s_best = spec.loc[spec["tokens_per_s"].idxmax()]
    # the smallest batch at which speculation matches batching's best throughput, and what a user gets there
    match = spec[spec["tokens_per_s"] >= b_best["baseline_tokens_per_s"]].sort_values("batch")
    m = match.iloc[0] if len(match) else None
    fastest_base = float(base["baseline_tokens_per_s_per_user"].max())
    fastest_spec = float(spec["tokens_per_s_per_user"].max())
    loses = spec[~pays(spec["speedup"])]
    def points_of(rows: pd.DataFrame) -> set:  # (hardware, model, context, alpha, batch), NaN alpha as one value
        return set(rows[point].assign(alpha=rows["alpha"].fillna(-1.0)).astype(str).itertuples(index=False, name=None))
    # the batches of points plain decoding fits and no drafter does: batching alone there (qa127: compared by batch
    # alone, one context's batch 2 masked another's)
    missing = points_of(base) - points_of(spec)
    no_drafter = sorted({int(float(p[-1])) for p in missing})

    def contexts_of(batch: int) -> list[int]:  # the contexts where plain decoding alone fits at `batch`
        return sorted({int(float(p[2])) for p in missing if int(float(p[-1])) == batch})
    # per context (qa127: one context's batch 2 masked another's where the drafter does not fit), the batch from which
    # batching alone wins at every larger batch swept, and the batches below it where it wins though speculation pays
    # again above (qa434: 'wins from batch 1' said where speculation lost at 1 and 16 and paid from 64)
    dip_context, wins_before, paying, froms = None, [], set(), []
    for ctx in sorted({int(c) for c in base["context"]} | {int(c) for c in spec["context"]}):
        mine = spec[spec["context"] == ctx]
        paid = {int(b) for b in mine.loc[pays(mine["speedup"]), "batch"]}
        swept = sorted({int(b) for b in mine["batch"]} | {int(float(p[-1])) for p in missing if int(float(p[2])) == ctx})
        start = next((b for i, b in enumerate(swept) if all(x not in paid for x in swept[i:])), None)
        froms += [start] if start is not None else []
        below = [b for b in swept if b not in paid and (start is None or b < start)]
        if below and not wins_before:
            dip_context, wins_before, paying = ctx, below, paid
    wins_from = min(froms) if froms else None
    devices = _target_devices(df, b_best["hardware"], meta)
    at_context = f", context {_ctx(b_best['context'])}" if base["context"].nunique() > 1 else ""  # qa133: which one
    def peak(row, throughput: str, rows: pd.DataFrame) -> str:
        # the curve's last point: memory or the sweep ends it, not the curve, and a larger batch that fits may give more
        # (qa480: 'peaks at' said at the sweep's last batch, still rising, 4,155 fitting); at the most that fits,
        # nothing is above (qa480: 'at least' said at plain decoding's own cap of 4,431)
        cap = pd.to_numeric(pd.Series([row.get("baseline_max_batch" if throughput.startswith("baseline") else "max_batch")]),
                            errors="coerce").iloc[0]
        last = int(row["batch"]) == int(rows["batch"].max())
        if bool(row.get("computed_now", False)) or (last and np.isfinite(cap) and int(row["batch"]) >= cap):
            return f"reaches {_n(row[throughput])} tokens/s"  # at the most that fits: memory ends it there
        return f"{'reaches at least' if last else 'peaks at'} {_n(row[throughput])} tokens/s"  # its unit (qa297)

    def capped(row) -> str:  # qa280: SGLang's batch 64 quoted with its cap of 48 said in the warnings alone
        text = _above_cap_text(row, meta)
        return f" (batch {int(row['batch']):,}: its figures assume {text} raised)" if text else ""

    text = (
        f"On {devices} {_hw(meta, b_best['hardware'])}, growing the batch alone {peak(b_best, 'baseline_tokens_per_s', grown)} "
        f"(batch {int(b_best['batch']):,}{at_context}, {_n(b_best['baseline_tokens_per_s_per_user'])} tokens/s per user"
        f"{_largest_swept(b_best, grown)}); "
        + (f"speculation matches that at batch {int(m['batch']):,} while each user gets {_n(m['tokens_per_s_per_user'])} tokens/s "
           f"({_x(m['tokens_per_s_per_user'] / b_best['baseline_tokens_per_s_per_user'])} the per-user speed){capped(m)}, and {peak(s_best, 'tokens_per_s', spec)}{capped(s_best)}. "
           if m is not None else f"speculation stays lower and {peak(s_best, 'tokens_per_s', spec)}{capped(s_best)}. ")
        + ((f"Above {_n(fastest_base)} tokens/s per user only speculation delivers ("
            + (f"at least {_n(fastest_spec)} tokens/s per user, at k = {int(df['k'].max())}, the largest swept"
               if int(spec.loc[spec["tokens_per_s_per_user"].idxmax(), "k"]) >= int(df["k"].max()) and not meta.get("tree_nodes")
               else f"up to {_n(fastest_spec)} tokens/s per user") + "); ")
           if fastest_spec > fastest_base and _n(fastest_spec) != _n(fastest_base) else  # qa135: 'Above 133 ... only speculation delivers (up to 122)'
           f"Speculation's fastest user gets {_n(fastest_spec)} tokens/s, batching's {_n(fastest_base)}: it never serves a "
           "user faster; ")  # a tree's tau is known at its own depth only: nothing beyond (qa130)
        + (f"batching alone wins at batch {_list([f'{b:,}' for b in wins_before])}"
           + (f" at {_ctx(dip_context)} context" if base["context"].nunique() > 1 else "")
           + f", speculation paying again above (from batch {min(b for b in paying if b > wins_before[-1]):,})"
           + ("; " if wins_from is not None else ".") if wins_before else "")
        + (f"batching alone wins from batch {wins_from:,}" + (
            (f" (at {_list([_ctx(c) for c in contexts_of(wins_from)])} context, where from there the drafter does not fit)"
             if base["context"].nunique() > 1 else " (from there the drafter does not fit)")
            if wins_from in no_drafter and not len(loses) else "") + "." if wins_from is not None
           else "" if wins_before else "at no batch that fits does batching alone win.")
        + _host_share(b_best, str(b_best["engine"]) if "engine" in b_best.index else "ideal", meta)
        + (" The speculative curve here keeps its gain to larger batches than published serving curves of EAGLE on an "
           "8B model do (they fall over batch 2-48): a known miss of this model (docs/ACCURACY.md, \"The two speculation "
           "checks\"), so read its gain at large batches as optimistic."
           if len(spec) and set(spec["method"]) == {"eagle"} and (spec["speedup"] >= 1.01).any() else "")  # qa135, qa137
    )
    edge = int(b_best["batch"]) == int(base["batch"].max()) < int(df["batch"].max())  # as peak() says it
    cap = int(b_best["baseline_max_batch"]) if "baseline_max_batch" in b_best.index else 0
    best = (f"plain batching's {_n(b_best['baseline_tokens_per_s'])} tokens/s at batch {int(b_best['batch']):,} (the largest "
            "swept that fits" + (f"; memory holds {cap:,})" if cap > int(b_best["batch"]) else ")") if edge else  # (qa398: a lower
            # bound said 'reached'; qa445: 'the largest swept; more fit' where 1,024 and 2,048 were swept and did not fit)
            f"plain batching's best, {_n(b_best['baseline_tokens_per_s'])} tokens/s at batch {int(b_best['batch']):,}"
            + (" (the most that fits, computed now)" if bool(b_best.get("computed_now", False)) else ""))
    passes = m is not None and edge and m["tokens_per_s"] > b_best["baseline_tokens_per_s"] * 1.005  # (qa397: at a tie)
    short = (f"On {devices} {_hw(meta, b_best['hardware'])}, speculation ({METHOD_NAMES.get(m['method'], m['method'])} at "
             f"{_alpha_short(m['alpha'], meta)}) at batch {int(m['batch']):,} {'passes' if passes else 'matches'} {best}, "
             f"each user getting {_n(m['tokens_per_s_per_user'])} tokens/s against "
             f"{_n(b_best['baseline_tokens_per_s_per_user'])}"  # (qa398: '9.39x' read as speculation's speedup)
             + ("; speculation's figures there upper estimates" if optimistic(m["batch"], m["engine"] if "engine" in m.index
                                                                             else "ideal") else "") + "."
             if m is not None else
             f"On {devices} {_hw(meta, b_best['hardware'])}, speculation stays below {best}"
             + (f", but serves one user up to {_n(fastest_spec)} tokens/s against {_n(fastest_base)}"
                if fastest_spec > fastest_base and _n(fastest_spec) != _n(fastest_base) else "") + ".")
    return Finding("Few users against many", text, {
        "batching_best_tokens_per_s": float(b_best["baseline_tokens_per_s"]), "batching_best_batch": int(b_best["batch"]),
        "speculation_best_tokens_per_s": float(s_best["tokens_per_s"]), "speculation_best_batch": int(s_best["batch"]),
        "fastest_user_batching": fastest_base, "fastest_user_speculation": fastest_spec,
        "batching_wins_from": wins_from,
    }, short)


def kv_caps_batch(df: pd.DataFrame, ops: pd.DataFrame, meta: dict) -> Finding:
    keys = ["hardware", "model", "context"]
    drafting_k = df.loc[df["k"] > 0, "k"]
    k_min = int(drafting_k.min()) if len(drafting_k) else 0  # the smallest k that drafts (a swept k = 0 holds no drafter)
    plain_caps = df.groupby(keys)["baseline_max_batch"].min()  # plain decoding's
    caps = df[df["k"] == k_min].groupby(keys)["max_batch"].min()  # with the drafter at the smallest drafting k swept
    # speculation's points: the fastest k > 0 that fits at each batch (qa125: best_k picked k = 0, plain decoding's
    # 1.00x, at a batch where the drafter does not fit, and that was said as speculation's gain)
    fit = fastest_drafting(df, [*keys, "batch"])
    at_cap = fit.sort_values("batch").groupby(keys).tail(1).set_index(keys)
    unswept = {m for m, g in df.groupby("model", observed=True) if (g["method"].astype(str) == "none").all()}
    c_hi = int(df["context"].max())
    hw0 = df["hardware"].iloc[0]
    models = list(dict.fromkeys(df["model"]))
    engine = main_engine(df)

    def cap(m: str) -> str:
        plain, drafted = int(plain_caps.get((hw0, m, c_hi), 0)), int(caps.get((hw0, m, c_hi), 0))
        if plain == 0:
            return f"0 for {_model(meta, m)} (not one sequence fits beside its weights)"
        return f"{plain:,} for {_model(meta, m)}" + (f" ({drafted:,} with its drafter)" if drafted != plain else "")
    caps_txt = [cap(m) for m in models]
    k_top = int(df["k"].max())

    def gain(m: str) -> str:
        if m in unswept:  # a compared model swept without a drafting method
            return f"nothing for {_model(meta, m)} (no speculation swept)"
        if (hw0, m, c_hi) not in at_cap.index:  # plain decoding's cap says whether anything fits (qa126: not _fits,
            plain = int(plain_caps.get((hw0, m, c_hi), 0)) > 0  # speculation's alone where no k = 0 is swept)
            return f"no point for {_model(meta, m)} ({'speculation fits at no batch' if plain else 'nothing fits'})"
        row = at_cap.loc[(hw0, m, c_hi)]
        trained = int((meta.get("mtp_modules") or {}).get(m, 0)) if row["method"] == "mtp" else 0
        past = trained and int(row["k"]) > trained  # qa234: a larger k runs its MTP module further past its training
        capped = ("" if int(row["k"]) < k_top or meta.get("tree_nodes") else  # qa130: a tree's depth is given
                  f"; k = {k_top}, the largest swept, past its {trained} trained MTP module{'s' if trained > 1 else ''}: "
                  "reused, so optimistic at the rates given" if past else
                  f"; k = {k_top}, the largest swept: a larger k may give more")
        slower = "; slower than plain decoding" if not pays(row["speedup"]) else ""  # qa219: a 0.916x 'gain'
        late = (f"; an upper estimate: {OPTIMISTIC}" if pays(row["speedup"]) and optimistic(row["batch"], engine)
                else "")  # (qa248: DeepSeek-V4-Flash's 2.11x at batch 64 said bare)
        return (f"{_x(row['speedup'])} ({METHOD_NAMES.get(row['method'], row['method'])}, batch {int(row['batch']):,}{capped}"
                f"{slower}{late})")
    sp_txt = [gain(m) for m in models]
    trend = {}  # each model's course over the batch at this context: (verb, path)
    losing = True  # whether speculation loses at every batch traced: then its 'gain' is a speedup below 1 (qa219)
    for m in models:
        g = fit[(fit["hardware"] == hw0) & (fit["model"] == m) & (fit["context"] == c_hi)].sort_values("batch").drop_duplicates("batch")
        if len(g) >= 2 and (g["method"].astype(str) != "none").any():  # a compared model without drafting: no gain to trace
            trend[m] = _course(g["speedup"].to_numpy(), g["batch"].to_numpy())
            losing &= not pays(g["speedup"]).any()
    rising = [m for m, (verb, _) in trend.items() if verb == "grows"]
    courses: dict[str, list[str]] = {}
    for m, (verb, path) in trend.items():
        courses.setdefault(verb, []).append(f"{_model(meta, m)} ({path})")
    clauses = [f"{verb} for {_list(items)}" for verb, items in courses.items()]
    tp = _tp(meta)
    where = _devices_of_models(df, hw0, meta)  # the layouts' devices, each model's own (qa361: 8 said of a tp 4 one)
    split = memory_split(df)
    per_dev = [f"{_n(split.loc[(hw0, m), 'kv_bytes_per_token'] / 1024)} KiB per token and {_n(split.loc[(hw0, m), 'fixed_bytes'] / 1e9)} GB of weights"
               for m in models if (hw0, m) in split.index]
    drafting = set(df.loc[df["k"] > 0, "method"].astype(str)) - {"none"} if "method" in df else set()
    held = ("with the drafter, " if drafting and not drafting <= {"ngram"} else "")  # qa131: n-gram lookup holds none
    held = "with the drafter where one runs, " if held and "ngram" in drafting else held
    drafter = f" ({held}at k = {k_min})" if k_min > 0 else ""
    layout, heads = meta.get("kv_layout") or {}, meta.get("kv_heads") or {}
    whole = [m for m in models if layout.get(m) in ("mla", "shared_kv")]  # one latent / one K = V head: whole on every rank
    copied = [m for m in models if layout.get(m) == "gqa" and 0 < heads.get(m, tp) < tp]  # fewer KV heads than ranks
    replicated = ""
    dpa = int(df.loc[df["model"].isin(whole), "dp_attention"].max()) if whole and "dp_attention" in df else 1
    if whole and dpa > 1:  # qa131: said as tp alone ('each of the 2 devices ... dp_attention gives ... instead') under it
        replicated += (f" {_list([_model(meta, m) for m in whole])} {'cache' if len(whole) > 1 else 'caches'} one latent (or one "
                       "shared K = V head) per layer, which tensor parallelism cannot split: under attention data parallelism "
                       f"(dp_attention {dpa}) each device holds the whole cache of its own group's sequences, 1/{dpa} of the "
                       "batch" + (f", on each of the group's {tp} devices." if tp > 1 else "."))
    elif tp > 1 and whole:
        replicated += (f" {_list([_model(meta, m) for m in whole])} {'cache' if len(whole) > 1 else 'caches'} one latent (or one "
                       f"shared K = V head) per layer, which tensor parallelism cannot split: each of the {tp} devices holds every "
                       "sequence's whole cache, where GQA's heads split; attention data parallelism (dp_attention, with ep for "
                       "the experts) gives each device its own share of the sequences instead.")
    if tp > 1 and copied:
        replicated += "".join(f" {_model(meta, m)}'s {heads[m]} KV heads split {heads[m]} ways, each copied on {tp // heads[m]} "
                              f"of the {tp} devices." for m in copied)
    text = (
        f"At {_ctx(c_hi)} context on {where}, the KV cache caps the batch at {_list(caps_txt)}, "
        f"which {'hold' if len(models) > 1 else 'holds'} per device{drafter} {_list(per_dev)}; "
        f"speculation at the largest swept batch where it fits gives {_list(sp_txt)}."
        + (f" At this context, over the batch sizes that fit, the {'speedup (below 1 at every batch)' if losing else 'gain'} "
           f"{'; '.join(clauses[:-1])}{'; and ' if len(clauses) > 1 else ''}{clauses[-1]}." if clauses else "")
        + replicated
        + _other_caps(df, plain_caps, caps, hw0, c_hi, models, meta)
        + _not_as_released(df, models, meta)
    )
    def cap_short(m: str) -> str:  # (qa397: a 0 of weights that fill the devices said as the KV cache's cap)
        plain = int(plain_caps.get((hw0, m, c_hi), 0))
        return f"{plain:,} for {_model(meta, m)}" + ("" if plain else " (not one sequence fits beside its weights)")
    whole_fitting = [m for m in whole if int(plain_caps.get((hw0, m, c_hi), 0)) > 0]
    short = (f"At {_ctx(c_hi)} context on {where}, the KV cache caps the batch at "
             f"{_list([cap_short(m) for m in models])} (without speculation)"
             + (f"; {_list([_model(meta, m) for m in whole_fitting])} {'hold' if len(whole_fitting) > 1 else 'holds'} each "
                f"sequence's whole cache on all {tp} devices at tp {tp} (attention data parallelism fits more)"
                if tp > 1 and whole_fitting and dpa <= 1 else "") + ".")  # (qa398: DeepSeek-V3's 4 read as the GPUs' limit)
    return Finding("The KV cache caps the batch", text, {"max_batch": caps, "at_cap": at_cap, "rising": rising, "memory_split": split},
                   short)


def _not_as_released(df: pd.DataFrame, models: list, meta: dict) -> str:
    """' Each model is priced at the sweep's dtypes, not as released: the experts of DeepSeek-V4-Flash in fp8 (released
    fp4); ...' for the models whose swept weight or expert dtype is not their checkpoint's (qa275: V4-Flash's caps read
    as its own, its fp4 experts cast up to fp8 by the scenario's weight_dtype, 17-20% fewer sequences than as
    released), or ''."""
    from roofline.layout import deployment
    from roofline.model import load_model

    said = []
    for m in models:
        rows = df[df["model"] == m]
        try:
            native = deployment(load_model(m))
        except RooflineError:  # a model no longer on the search path: its labels stand
            continue
        for column, label, what in (("weight_dtype", native.weight_dtype_label, "weights"),
                                    ("expert_dtype", native.expert_dtype_label, "experts")):
            swept = list(dict.fromkeys(rows[column].astype(str))) if column in rows else []
            if label and swept and swept != [label]:
                said.append(f"the {what} of {_model(meta, m)} in {' / '.join(swept)} (released {label})")
    return (f" Each model is priced at the sweep's dtypes, not as released: {_list(said)}; predict at a model's own dtypes "
            "sizes it as released." if said else "")


def _devices_of_models(df: pd.DataFrame, hw: str, meta: dict) -> str:
    """'8 × H200 SXM', or where the models run on layouts of their own there, 'H200 SXM (1 device for Llama 3.1 8B and 4
    for Llama 3.1 70B)' (qa361, qa363: the largest layout's count said of every model)."""
    by_model = (df[df["hardware"] == hw].groupby(df["model"].astype(str), sort=False)["devices"].max()
                if "devices" in df else pd.Series(dtype=float))
    if by_model.nunique() <= 1:
        return f"{_target_devices(df, hw, meta)} × {_hw(meta, hw)}"
    said = [f"{int(n)}{(' device' if int(n) == 1 else ' devices') if i == 0 else ''} for {_model(meta, m)}"
            for i, (m, n) in enumerate(by_model.items())]
    return f"{_hw(meta, hw)} ({_list(said)})"


def _other_caps(df: pd.DataFrame, plain_caps: pd.Series, drafted_caps: pd.Series, hw0: str, context: int, models: list,
                meta: dict) -> str:
    """' On 8 × B200 the caps are 29, 9 (8 with its drafter) and 159 (158), in the same order.' for the other devices a
    kv-caps sweep holds (qa248: the finding spoke of its first device alone, a second swept and drawn unsaid; qa275: the
    drafter's caps, which its figure draws, said of the first device alone)."""
    parts = []
    for hw in dict.fromkeys(df["hardware"]):
        if hw == hw0:
            continue
        caps = []
        for m in models:
            plain, drafted = int(plain_caps.get((hw, m, context), 0)), int(drafted_caps.get((hw, m, context), 0))
            caps.append(f"{plain:,}" + (f" ({drafted:,} with its drafter)" if drafted != plain and plain else ""))
        parts.append(f"{_devices_of_models(df, hw, meta)} {'the caps are ' + _list(caps) if len(caps) > 1 else 'the cap is ' + caps[0]}")
    return f" On {'; on '.join(parts)}, in the same order." if parts and len(models) > 1 else (
        f" On {'; on '.join(parts)}." if parts else "")


def _course(values, batches) -> tuple[str, str]:
    """How a gain moves as the batch grows, as its quoted numbers (`_x`) show it: a verb ('grows' only where it never
    falls; 'dips, then recovers' where it falls and ends at least where it began; 'falls' where it only falls, ...) and
    its path through the turning points ('2.18× at batch 1, down to 1.83× at batch 8, up to 2.26× at batch 64'), and
    where the last of them holds, as quoted, to the last batch, ', level from there to batch 128'."""
    quoted = [float(_n(v).replace(",", "")) for v in values]
    turns, last, direction = [0], 0, 0  # turning points; the extreme of the current run; its direction
    for i in range(1, len(quoted)):
        step = np.sign(quoted[i] - quoted[last])
        if step == 0:  # level, as quoted: the run goes on from its first point at that value
            continue
        if direction and step != direction:
            turns.append(last)
        direction, last = step, i
    if last != turns[-1]:
        turns.append(last)
    ups = [quoted[b] > quoted[a] for a, b in zip(turns, turns[1:])]
    if not ups:
        return "holds", f"{_x(values[0])} from batch {int(batches[0]):,} to {int(batches[-1]):,}"
    if len(ups) == 1:
        verb = "grows" if ups[0] else "falls"
    elif len(ups) == 2:
        verb = ("rises, then falls" if ups[0] else "dips, then recovers" if quoted[turns[-1]] >= quoted[0]
                else "falls, then partly recovers")
    else:
        verb = "rises and falls"
    steps = [f"{' to' if len(ups) == 1 else ', up to' if up else ', down to'} {_x(values[t])} at batch {int(batches[t]):,}"
             for up, t in zip(ups, turns[1:])]
    level = (f", level from there to batch {int(batches[-1]):,}" if turns[-1] < len(quoted) - 1 else "")  # its last run
    # level to the sweep's end, as quoted (qa486: '2.09x at batch 32' read as where it ended, batch 64 quoting the same)
    return verb, f"{_x(values[0])} at batch {int(batches[0]):,}" + "".join(steps) + level


def memory_split(df: pd.DataFrame) -> pd.DataFrame:
    """Per (hardware, model) at the longest context: the memory one device needs, split into a fixed part (weights,
    drafter weights) and KV bytes per token of context, read off the table as the intercept and slope of
    memory_needed_bytes over the sequences a device holds, B_a = ceil(B / dp_attention) (memory is linear in them at a
    fixed context; qa131: a line over B itself, a staircase under attention data parallelism, gave the slope over
    dp_attention and 1.3 GB more weights), the slope divided by the tokens each sequence caches (context + k + 1), at
    the smallest k that drafts where one is swept (the drafter held: qa126, a swept k = 0 gave plain decoding's figures
    under kv-caps' "with the drafter" label), else the smallest k."""
    drafting = df.loc[(df["k"] > 0) & (df["method"].astype(str) != "none"), "k"] if "method" in df else df.loc[df["k"] > 0, "k"]
    k = drafting.min() if len(drafting) else df["k"].min()
    d = df[(df["k"] == k) & (df["context"] == df["context"].max())]
    rows = []
    for (hw, model), g in d.groupby(["hardware", "model"]):
        dp = g["dp_attention"].to_numpy(float) if "dp_attention" in g else 1.0
        b, m = np.ceil(g["batch"].to_numpy(float) / dp), g["memory_needed_bytes"].to_numpy(float)
        slope, intercept = np.polyfit(b, m, 1) if np.ptp(b) > 0 else (np.nan, np.nan)
        cached = float(g["context"].iloc[0] + g["k"].iloc[0] + 1)
        rows.append({"hardware": hw, "model": model, "kv_bytes_per_token": slope / cached, "fixed_bytes": intercept})
    return pd.DataFrame(rows).set_index(["hardware", "model"])


def shared_prefix_headline(df: pd.DataFrame) -> pd.DataFrame:
    """The rows the shared-prefix finding and figure read: the first hardware, model and context, the main engine's."""
    keep = df["hardware"].eq(df["hardware"].iloc[0]) & df["model"].eq(df["model"].iloc[0]) & df["context"].eq(df["context"].iloc[0])
    if "engine" in df:
        keep &= df["engine"].astype(str).eq(main_engine(df))
    return df[keep]


def prefix_read_once(df: pd.DataFrame, meta: dict) -> bool | None:
    """Whether the main engine reads a prefix the batch shares once a step (ideal: the bound, yes); None where its
    profile is neither in the sweep's values nor on the search path (qa274: said as read once)."""
    return _main_engine_flag(df, meta, "reads_prefix_once")


def prefix_cached(df: pd.DataFrame, meta: dict) -> bool | None:
    """Whether the main engine caches a prefix the batch shares: holds it once and does not prefill it again (its
    `prefix_cached`; ideal: yes); None where its profile is not found (qa349: 'held once' said of vLLM V0)."""
    return _main_engine_flag(df, meta, "prefix_cached")


def _main_engine_flag(df: pd.DataFrame, meta: dict, field: str) -> bool | None:
    """The main engine's `field` on the first hardware (ideal's: true); None where its profile is not found."""
    engine, hw = main_engine(df), str(df["hardware"].iloc[0])
    if engine == "ideal":
        return True
    try:  # the values the sweep ran with; without them (a results table alone), the profile's (qa270)
        eng = (meta.get("engine_values") or {}).get((engine, hw)) or load_engine(engine).for_hardware(hw)
    except RooflineError:  # a profile no longer on the search path: unknown
        return None
    return bool(getattr(eng, field))


def shared_prefix(df: pd.DataFrame, ops: pd.DataFrame, meta: dict) -> Finding:
    df = shared_prefix_headline(df)  # qa267: one engine's rows (several engines' caps and peaks mixed)
    keys = ["hardware", "model", "context", "shared_prefix_tokens"]
    caps = df.groupby(keys)["baseline_max_batch"].min()  # without speculation (plain decoding's cap, whatever k is swept)
    spec_caps = df[df["k"] == df["k"].max()].groupby(keys)["max_batch"].min()  # with the drafter's weights and KV
    best = _fits(df).groupby(keys)["tokens_per_s"].max()
    at_batch = _fits(df).loc[_fits(df).groupby(keys)["tokens_per_s"].idxmax()].set_index(keys)["batch"]  # where each peaks
    largest = _fits(df).groupby([*keys, "k"])["batch"].max()  # the largest swept batch that fits at each k (qa380: at any
    # k, plain decoding's 16 where the peak's drafter fit 15, and the batch grid's caveat was dropped)
    hw, model, context = df["hardware"].iloc[0], df["model"].iloc[0], int(df["context"].iloc[0])
    prefixes = sorted(df["shared_prefix_tokens"].unique())
    p0, p1 = prefixes[0], prefixes[-1]
    c0, c1 = int(caps[(hw, model, context, p0)]), int(caps[(hw, model, context, p1)])
    s0, s1 = int(spec_caps[(hw, model, context, p0)]), int(spec_caps[(hw, model, context, p1)])
    t0, t1 = best.get((hw, model, context, p0), np.nan), best.get((hw, model, context, p1), np.nan)
    b_at0, b_at1 = int(at_batch[(hw, model, context, p0)]), int(at_batch[(hw, model, context, p1)])
    peaks = _fits(df).loc[_fits(df).groupby(keys)["tokens_per_s"].idxmax()]
    k_top = int(df["k"].max())
    ends = peaks[peaks["hardware"].eq(hw) & peaks["model"].eq(model) & peaks["context"].eq(context)
                 & peaks["shared_prefix_tokens"].isin([p0, p1])]  # the two throughputs quoted (qa250: any prefix's)
    computed = {}  # each end's best at the most that fits, computed now where the swept batches stop short (report:
    # frontier.fastest_at_largest_fit; qa391: 1.62x read off the batch grid, 1.40x at the batches that fit)
    for p, tag in ((p0, 0), (p1, 1)):
        got = (meta.get("shared_prefix_at_largest_fit") or {}).get(int(p))
        if got and got["computed_now"] and got["tokens_per_s"] > (t0, t1)[tag]:
            computed[tag] = got
    if 0 in computed:
        t0, b_at0 = computed[0]["tokens_per_s"], computed[0]["batch"]
    if 1 in computed:
        t1, b_at1 = computed[1]["tokens_per_s"], computed[1]["batch"]
    engine = main_engine(df)
    read_once = prefix_read_once(df, meta)  # qa248's leftover: said of every engine, a copy with false too
    cached = prefix_cached(df, meta)  # held once and not prefilled again, or per sequence (qa349: vLLM V0)
    held = "held once (prefix caching)"
    uncached = cached is False  # neither held once nor read once: no gain to explain (qa350: 'the gain is memory's' at 1.00x)
    k0, k1 = (int(computed[tag]["k"]) if tag in computed else int(ends.loc[ends["shared_prefix_tokens"] == p, "k"].iloc[0])
              for p, tag in ((p0, 0), (p1, 1)))
    widest = (f" Each throughput is at k = {k_top}, the largest swept, at one end or both: a larger k may give more, "
              "and move the ratio." if k_top > 0 and not meta.get("tree_nodes") and k_top in (k0, k1) else "")
    at_b0 = df[df["shared_prefix_tokens"].eq(p0) & df["batch"].eq(b_at0) & df["k"].eq(k1)]
    k1_fit_alone = bool(at_b0["fits_in_memory"].astype(bool).any())  # the larger k without the prefix shared
    same_batch = (  # qa270: at one batch the gain is a larger k that fits with the prefix stored once, or its read
        # (qa274: only a larger k that did not fit without sharing is the memory's)
        f"both at batch {b_at0:,}: no gain at that batch)." if not t1 > t0 * 1.001 else
        f"both at batch {b_at0:,}: the drafter fits a larger k there with the prefix stored once, k = {k1} against {k0}"
        + (", and the prefix is read once a pass)." if read_once else ")." ) if k1 > k0 and not k1_fit_alone else
        f"both at batch {b_at0:,}: the gain is the prefix read once a pass, not a larger batch)." if read_once else
        f"both at batch {b_at0:,})."
    )
    text = (
        f"With {_ctx(p1)} of each {_ctx(context)}-token context shared by every sequence ({_model(meta, model)}, {_hw(meta, hw)}"
        + (f"; against {_ctx(p0)} shared, the smallest swept" if p0 else "") + "), "  # (qa350: 8k read as none)
        f"the batch that fits grows from {c0:,} to {c1:,} ({_x(c1 / max(c0, 1))}) without speculation and from {s0:,} to {s1:,} with its "
        f"drafter (at k = {int(df['k'].max())}), and the best throughput, speculating where it pays, from {_n(t0)} to {_n(t1)} tokens/s ({_x(t1 / t0)}; "
        + (f"at batch {b_at0:,} and {b_at1:,}, " + ("each the largest that fits, computed now" if len(computed) == 2 else
                                                     f"{b_at0 if 0 in computed else b_at1:,} the largest that fits, "
                                                     "computed now") + ")." if computed else
           same_batch if b_at0 == b_at1 else
           # qa219: 'at batch 16 and 16, ... follows the batch grid as much as the memory' where the batch did not move
           f"at batch {b_at0:,} and {b_at1:,}, the largest swept that fit, so the gain follows the batch grid as much as the memory)."
           if (b_at0, b_at1) == (largest.get((hw, model, context, p0, k0)), largest.get((hw, model, context, p1, k1)))
           else f"at batch {b_at0:,} and {b_at1:,}).")
        + (f" {engine} holds the prefix in each sequence (it caches no prefix: prefix_cached false) and each sequence "
           f"reads its own copy, so the prefix gains nothing here; `roofline engines new NAME --from {engine} --set "
           "prefix_cached=true` prices the engine with prefix caching." if uncached else
           f" It takes the prefix {held} and read once a step by a prefix-aware (cascade) attention "
           f"kernel ({engine}'s prefix_read_once; vLLM runs one only where cascade attention is turned on, and then where "
           "a heuristic picks it each step; SGLang and TensorRT-LLM decode without one)." if read_once else
           f" It takes the prefix {held}; whether {engine} reads it once a step is not known here (its "
           "profile is not on the search path)." if read_once is None else
           f" It takes the prefix {held}, each sequence still reading it a step ({engine}'s "
           "prefix_read_once false: no prefix-aware attention kernel by default in the release its profile describes; "
           f"`roofline engines show {engine}` gives the source), so the gain is memory's, not bandwidth's; `roofline "
           f"engines new NAME --from {engine} --set prefix_read_once=true` prices one"
           + (" (vLLM's V1 releases before its PR 36318, March 2026, ran cascade attention by default where a heuristic "
              "picked it)" if engine.startswith("vllm") and engine != "vllm-v0" else "") + ".")  # (qa391: said of every
        # release the profile's version range covers)
        + (f" While it speculates {engine} turns that cache off (prefix_cached_speculating false): each speculating "
           "sequence holds and prefills the prefix itself (the batch with its drafter above)."
           if cached and _main_engine_flag(df, meta, "prefix_cached_speculating") is False else "")
        + _prefix_prefill_text(df, hw, model, context, p0, p1, cached, engine, meta.get("prompt"))
        + widest
    )
    grows = (f"grows the batch that fits {_x(c1 / max(c0, 1))} ({c0:,} to {c1:,})" if c1 > c0 else
             f"leaves the batch that fits at {c0:,}" if c1 == c0 else f"shrinks the batch that fits from {c0:,} to {c1:,}")
    end1 = computed.get(1) or {"batch": b_at1, "k": k1}  # the shared end's best: an upper estimate where it speculates
    upper = int(end1["k"]) > 0 and optimistic(end1["batch"], engine)  # at a batch past OPTIMISTIC_BATCH (qa398)
    short = (f"Sharing {_ctx(p1)} of each {_ctx(context)}-token context ({_model(meta, model)}, {_hw(meta, hw)}"
             + (f"; against {_ctx(p0)} shared" if p0 else "") + ")"
             + f" {grows} and " + (f"raises the best throughput, speculating where it pays, {_x(t1 / t0)}"
                                   + (", an upper estimate" if upper else "") if t1 > t0 * 1.001 else
                                   "leaves the best throughput as it is" if t1 >= t0 / 1.001 else
                                   f"lowers the best throughput to {_x(t1 / t0)}") + ".")
    return Finding("Shared prefix", text, {"max_batch": caps, "max_batch_speculating": spec_caps, "best_tokens_per_s": best},
                   short)


def _prefix_prefill_text(df: pd.DataFrame, hw: str, model: str, context: int, p0: int, p1: int, cached: bool | None,
                         engine: str, prompt: int | None = None) -> str:
    """What the shared prefix does to a request's prefill (the report's ttft_s, the target's pass, of the row's context
    or the scenario's `prompt`): its time at the smallest prefix swept against the largest, cached (qa349: a 3.6x faster
    TTFT unsaid, the finding calling the gain memory's alone; qa350: a smallest prefix of 8k said as none, a prefix
    past the prompt as 'prefilled past' it); '' where the table has no ttft_s or the engine caches no prefix."""
    if "ttft_s" not in df or not cached:
        return ""
    rows = df[df["hardware"].eq(hw) & df["model"].eq(model) & df["context"].eq(context)]
    t0, t1 = (rows.loc[rows["shared_prefix_tokens"].eq(p), "ttft_s"] for p in (p0, p1))
    if not len(t0) or not len(t1) or not float(t1.iloc[0]) < float(t0.iloc[0]):
        return ""
    length = prompt or context  # the tokens the report's ttft_s prefills: the request's prompt, else the context
    rest = ("all but the last token of it cached" if p1 >= length else
            f"prefilled past the {_ctx(p1)} of the prefix {engine} holds cached")
    return (f" Its prefill gains too: the target's prefill of a request's {int(length):,}-token prompt takes "  # (qa356:
            f"{_n(t1.iloc[0])} s against "  # its length unsaid)
            f"{_n(t0.iloc[0])} s {'unshared' if p0 == 0 else f'with {_ctx(p0)} of it shared'} "
            f"({_x(t0.iloc[0] / t1.iloc[0])} sooner), {rest} (prefix_cached; the `ttft_s` column; a drafter's own "
            "prefill, `draft_ttft_s`, comes beside it).")


DRAFT_KEYS = ["hardware", "model", "context", "alpha", "batch"]  # a point of the draft-offload question


def fastest_drafting(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per group of `keys` (a point: hardware, model, context, alpha, batch, ...), the row of its fastest draft length
    k > 0 that fits in memory under a drafting method, whether or not it beats plain decoding (best_k would be 0 where it
    does not; a k = 0 row is plain decoding, never speculation's point: qa125-qa127); none where no such row fits. NaN
    keys are kept (alpha, where per-position rates or a tree stand in for it)."""
    rows = _fits(df)
    rows = rows[(rows["k"] > 0) & (rows["method"].astype(str) != "none")] if "method" in rows else rows[rows["k"] > 0]
    if rows.empty:
        return rows
    return rows.loc[rows.groupby(keys, observed=True, dropna=False)["speedup"].idxmax().to_numpy()]


def best_drafting(df: pd.DataFrame) -> pd.DataFrame:
    """Per point and drafter placement, its fastest_drafting row: what that placement's drafting gives there. A
    placement absent at a point has no k > 0 that fits there."""
    return fastest_drafting(df, [*DRAFT_KEYS, "draft_placement"])


def draft_offload(df: pd.DataFrame, ops: pd.DataFrame, meta: dict) -> Finding:
    """Per target GPU and batch, which drafter placement gives the largest speedup at its fastest fitting k > 0
    (best_drafting; below 1 where drafting loses to plain decoding, which is said). A placement whose drafter fits at
    no k > 0 there (its weights and KV beside the target's, or on its own device) competes as "no drafting k fits",
    never as plain decoding's 1.00x; a point where no placement fits is won by plain decoding ("none" in `winner`)."""
    keys = DRAFT_KEYS
    fitting = df[df["fits_in_memory"].astype(bool) | plain_fits(df)]  # where plain decoding fits too (qa126: a target
    placements = list(dict.fromkeys(df["draft_placement"]))  # where no drafter fits read 'nothing fits, plain included')
    points = pd.MultiIndex.from_frame(fitting[keys].drop_duplicates())
    drafting = best_drafting(df)
    pivot = (drafting.groupby([*keys, "draft_placement"], observed=True, dropna=False)["speedup"].max()  # NaN alpha (rates,
             .unstack("draft_placement").reindex(index=points, columns=placements))  # a tree) kept: qa127
    drafts = pivot.notna().any(axis=1)
    winner = pivot.fillna(-np.inf).idxmax(axis=1).where(drafts, "none")
    # the first target where anything fits (qa125: a first one where nothing does was a KeyError, the generic finding)
    targets = list(dict.fromkeys(df["hardware"]))
    hw0 = next((h for h in targets if h in set(winner.index.get_level_values("hardware"))), None)
    nothing = [h for h in targets if h not in set(winner.index.get_level_values("hardware"))]
    if hw0 is None:
        return Finding("Draft on cheaper hardware", f"Nothing of this sweep fits in device memory, plain decoding included, "
                       f"on {_list([f'{_target_devices(df, h, meta)} × {_hw(meta, h)}' for h in nothing])}.", {})
    w0 = winner.xs(hw0, level="hardware")
    p0 = pivot.xs(hw0, level="hardware")
    batches = w0.index.get_level_values("batch")
    colo = w0 == "co-located"

    def place(p: str) -> str:
        return "co-located" if p == "co-located" else f"on {_hw(meta, p)}"

    def against(speedup: float, p: str) -> str:
        return f"{_x(speedup)} {place(p)}" if np.isfinite(speedup) else f"{place(p)}, where no drafting k fits"

    sentences = []
    runs = []  # contiguous runs of the same winner over batch, within one (model, context, alpha) (qa135: across them)
    curve_of = [tuple(RATES_KEY if isinstance(v, float) and v != v else v for v in key[:-1])  # the index less its batch,
                for key in w0.index]  # NaN alpha (rates, a tree) one value (qa137: NaN != NaN split every run)
    for curve, b, w in zip(curve_of, batches, w0):
        if runs and runs[-1][0] == w and runs[-1][3] == curve:
            runs[-1][2] = b
        else:
            runs.append([w, b, b, curve])
    names = list(w0.index.names[:-1])
    varied = [i for i, n in enumerate(names) if len({c[i] for c in curve_of}) > 1]

    def curve_text(curve) -> str:
        """'a 32k context, at ' where the (model, context, alpha) curves differ, naming what differs, else ''."""
        said = [(_model(meta, curve[i]) if names[i] == "model" else f"{_article(_ctx(curve[i]))} {_ctx(curve[i])} context"
                 if names[i] == "context" else _alpha_short(float("nan") if curve[i] == RATES_KEY else curve[i], meta))
                for i in varied]
        return f"{_list(said)}, at " if said else ""
    parts = []
    for w, b_lo, b_hi, curve in runs:
        where = curve_text(curve) + (f"batch {int(b_lo):,}" if b_lo == b_hi else f"batch {int(b_lo):,}–{int(b_hi):,}")  # said after 'at'
        if w == "none":
            parts.append(f"no drafter fits at {where}, co-located or on another device (plain decoding only)")
            continue
        at_curve = np.ones(len(p0), dtype=bool)  # the run's (model, context, alpha) rows, NaN alpha matching NaN
        for i, name in enumerate(names):
            level = pd.Series(p0.index.get_level_values(name))
            at_curve &= (same_alpha(level, float("nan") if curve[i] == RATES_KEY else curve[i]) if name == "alpha"
                         else level == curve[i]).to_numpy()
        row = p0[at_curve & (p0.index.get_level_values("batch") == b_lo)].iloc[0]
        rest = row.drop(w)
        runner = rest.fillna(-np.inf).idxmax() if len(rest) else None
        at = "" if b_lo == b_hi else f"at batch {int(b_lo):,}: "  # the run's first batch
        vs = f" against {against(row[runner], runner)}" if runner is not None else ""
        loses = "; plain decoding is faster still" if row[w] < 1 else ""
        if runner is not None and row[w] < TIE * row[runner]:
            loses += f"; within {TIE - 1:.0%}, a tie at this model's accuracy"
        parts.append(f"{'co-location' if w == 'co-located' else 'a drafter on ' + _hw(meta, w)} wins at {where} "
                     f"({at}{_x(row[w])}{vs}{loses})")
    sentences.append(f"On {_target_devices(df, hw0, meta)} × {_hw(meta, hw0)}, {'; '.join(parts)}.")
    if nothing:  # not even plain decoding fits there, at any batch
        sentences.append(f"On {_list([f'{_target_devices(df, h, meta)} × {_hw(meta, h)}' for h in nothing])} nothing fits, plain decoding "
                         "included, at any batch swept.")
    others = []  # the other targets: where, if anywhere, an offloaded drafter wins
    for hw in dict.fromkeys(winner.index.get_level_values("hardware")):
        if hw == hw0:
            continue
        w_hw, p_hw = winner.xs(hw, level="hardware"), pivot.xs(hw, level="hardware")
        off_wins = w_hw[~w_hw.isin(["co-located", "none"])]
        if off_wins.empty:
            on = f"on {_target_devices(df, hw, meta)} × {_hw(meta, hw)}"  # as the first target is said (qa126)
            others.append(f"{on} co-location wins at every batch that fits" if (w_hw == "co-located").all() else
                          f"{on} no drafter fits at any batch swept (plain decoding only)" if (w_hw == "none").all()
                          else f"{on} no offloaded drafter wins at a batch that fits")
        else:
            key, w = off_wins.index[0], off_wins.iloc[0]
            rest = p_hw.loc[key].drop(w)  # co-location where swept, else the next placement
            runner = "co-located" if "co-located" in rest.index else rest.fillna(-np.inf).idxmax() if len(rest) else None
            vs = f" against {against(p_hw.loc[key, runner], runner)}" if runner is not None else ""
            loses = "; plain decoding is faster still" if p_hw.loc[key, w] < 1 else ""
            if runner is not None and p_hw.loc[key, w] < TIE * p_hw.loc[key, runner]:
                loses += f"; within {TIE - 1:.0%}, a tie at this model's accuracy"
            # (qa248: unsaid beside the offload; qa250: as a range over every curve it ran past the offload's batch)
            colo_points = int((w_hw == "co-located").sum())
            colo_text = (f"co-location wins at {colo_points} of its {int((w_hw != 'none').sum())} points that fit and "
                         if colo_points else "")
            others.append(f"on {_target_devices(df, hw, meta)} × {_hw(meta, hw)} {colo_text}a drafter on {_hw(meta, w)} wins at batch {key[-1]} "
                          f"({_x(p_hw.loc[key, w])}{vs}{loses})"
                          + (f" and {len(off_wins) - 1} more batch{'es' if len(off_wins) > 2 else ''}" if len(off_wins) > 1 else ""))
    if others:
        said = "; ".join(others)
        sentences.append(f"{said[0].upper()}{said[1:]}.")
    off = drafting[drafting["draft_placement"] != "co-located"]
    share = float((off["transfer_time_s"] / off["iteration_time_s"]).max()) if len(off) else 0.0
    at0 = fitting[fitting["hardware"] == hw0]
    b_min = int(at0["batch"].min())
    c_min = int(at0["context"].min())  # one context's figures (qa135: the first row of each placement, of any context)
    b1 = drafting[(drafting["hardware"] == hw0) & (drafting["batch"] == b_min)
                  & (drafting["context"] == c_min)].drop_duplicates("draft_placement")
    missing = [place(p) for p in placements if p not in set(b1["draft_placement"])]
    per_step = (b1["draft_time_s"] / b1["k"]).to_numpy()
    order = np.argsort(per_step)
    steps = [f"{_n(per_step[i] * 1e3)} ms {place(p)} (k = {int(k)})"
             for i, p, k in zip(order, b1["draft_placement"].to_numpy()[order], b1["k"].to_numpy()[order])]
    not_fitting = f"; no drafting k fits {_list(missing)}" if missing else ""  # inside the steps' own brackets' sentence
    k_top = int(df["k"].max())
    if not meta.get("tree_nodes") and len(b1) and ((b1["k"] == k_top) & pays(b1["speedup"])).any():  # qa248, qa250
        not_fitting += f"; k = {k_top} is the largest swept: a larger k may give more"
    verify = [_n(b1["verify_time_s"].min() * 1e3), _n(b1["verify_time_s"].max() * 1e3)]  # each at its placement's k
    on0 = (f" on {_hw(meta, hw0)}" if fitting["hardware"].nunique() > 1 else "") + (  # qa118: whose figures these are
        f" and {_article(_ctx(c_min))} {_ctx(c_min)} context" if fitting["context"].nunique() > 1 else "")
    transfer = (f"The transfer between the devices is at most {share * 100:.2g}% of an iteration at each placement's "
                "fastest k; the drafter's own speed decides: " if len(off) else "")  # qa126: 'at most 0%' of no transfer
    sentences.append(
        f"{transfer}{'a' if transfer else 'A'}t batch {b_min:,}{on0} one draft step takes {_list(steps)}, against a verify pass of "
        f"{'-'.join(dict.fromkeys(verify))} ms at {'those k' if len(b1) > 1 else 'that k'}{not_fitting}." if len(b1) else
        "" if w0.iloc[0] == "none" else  # the first sentence said no drafter fits there (qa126: said twice)
        f"At batch {b_min:,}{on0} no drafter fits, co-located or on another device: only plain decoding runs there.")
    sentences = [x for x in sentences if x]
    # what each placement costs there, the drafter's device paid while it drafts (at each placement's fastest k)
    costs = [(place(pl), c) for pl, c in zip(b1["draft_placement"], b1["cost_usd_per_million_tokens"])]
    priced = sorted((c, name) for name, c in costs if np.isfinite(c))
    unpriced = [name for name, c in costs if not np.isfinite(c)]
    plain = float(at0.loc[(at0["batch"] == b_min) & (at0["context"] == c_min), "baseline_cost_usd_per_million_tokens"].iloc[0])
    alphas = alpha_values(drafting["alpha"])  # the acceptance the speedups and costs hold (qa294: unsaid with one swept)
    if len(alphas) == 1 and sentences:  # 'With α = 0.8, on 4 × H100 SXM5, co-location wins ...'
        sentences[0] = f"With {_acceptance_text(float(alphas[0]), meta)}, {sentences[0][0].lower()}{sentences[0][1:]}"
    if priced and np.isfinite(plain):
        sentences.append(
            f"Per million tokens at batch {b_min:,}{on0}, each at its fastest k: {_list([f'${_n(c)} {name}' for c, name in priced])}, against "
            f"${_n(plain)} without speculation" + (f" (drafting {_list(unpriced)}: no price in the profile)" if unpriced else "") + ".")
    engine = main_engine(df)
    if engine != "ideal" and len(off) and sentences:  # qa391: '$44.7 on A10G' read as what vLLM delivers
        sentences.append(f"No shipped engine runs a drafter on a device of its own ({DRAFTER_ON_TARGET}): the placements "
                         f"off the target's devices are what-ifs, priced with {engine}'s costs.")
    return Finding("Draft on cheaper hardware", " ".join(sentences), {
        "winner": winner, "colocated_wins": int(colo.sum()), "points": len(colo), "max_transfer_share": share,
    })


def _against_ridge(free: pd.DataFrame) -> tuple[int, int] | None:
    """(the position of the row that pays to the larger batch, of the one with the higher ridge point) of the first
    pair of `free`'s rows (largest break-even first) whose order goes against their ridge points' (a larger break-even
    on a strictly lower ridge point), or None where every pair follows them (ties either way follow)."""
    rows = list(free[["break_even_batch", "ridge"]].itertuples(index=False, name=None))
    for i, (batch_i, ridge_i) in enumerate(rows):
        for j in range(i + 1, len(rows)):
            batch_j, ridge_j = rows[j]
            if (batch_i - batch_j) * (ridge_i - ridge_j) < 0:
                return (i, j) if batch_i > batch_j else (j, i)
    return None


def ridge_ordered(rho: float, free: pd.DataFrame) -> bool:
    """Whether the break-even batches inside the sweep follow the ridge points: a positive rank correlation and no pair
    against it (qa485: rho 0.5 over three GPUs said 'the higher the ridge point, the larger the batch' where MI300X, the
    lower ridge, paid to the larger batch)."""
    return bool(np.isfinite(rho) and rho > 0 and _against_ridge(free) is None)


def _ridge_order(rho: float, free: pd.DataFrame, name=str) -> str:
    """What the break-even batches say about the ridge points: in their order (ridge_ordered), in part (a positive
    rank correlation with a pair against it, named by `name` of a row's index), against or across them, or too few
    distinct break-evens inside the sweep to tell (ties everywhere leave the correlation undefined)."""
    if not np.isfinite(rho):
        return ("too few break-even batches inside the sweep, or too few distinct ones, to compare with the ridge "
                "points" if free["break_even_batch"].nunique() < 2 or len(free) < 3 else "no order to compare")
    if ridge_ordered(rho, free):
        return "the higher the ridge point, the larger the batch it pays to"  # (qa208: 'the later the verify pass
        # turns compute-bound' read as the break-even batch being where the verify pass turns compute-bound)
    if rho > 0:
        larger, higher = _against_ridge(free)
        return (f"the order follows the ridge points only in part ({name(free.index[larger], free.iloc[larger])} pays to a "
                f"larger batch than {name(free.index[higher], free.iloc[higher])}, whose ridge point is higher)")
    return "the order does not follow the ridge points"


def ridge_why(meta: dict) -> str:
    """Why the break-even follows the ridge point, said where the order follows it: the verify pass's tokens, B(k + 1)
    for a chain and B(N + 1) for a tree of N nodes (qa345: a tree's 944 tokens at batch 59 said as B(k + 1) = 236)."""
    nodes = meta.get("tree_nodes")
    tokens = f"B(N + 1) tokens (a tree of N = {nodes} nodes)" if nodes else "B(k + 1) tokens"
    return (f"The verify pass turns compute-bound once its {tokens} near the ridge, and the gain shrinks from there; "
            + ("a tree's wider pass gets there at a smaller batch than the one whose decode step nears the ridge. " if nodes else
               "it ends near the batch whose own decode step nears the ridge. "))


def _smallest_batch(rows: pd.DataFrame, speed: str) -> tuple[int, float] | None:
    """(the smallest batch of `rows`, the fastest tokens/s per user there) where that batch is above 1, else None."""
    if not len(rows) or int(rows["batch"].min()) <= 1:
        return None
    smallest = int(rows["batch"].min())
    return smallest, float(rows.loc[rows["batch"] == smallest, speed].max())


NO_DRAFTER_FITS = "the drafter fits at no point swept"
NO_DRAFTER_RUNS = "no engine runs its draft model (another tokenizer than the target's: the warnings say which)"
NO_DRAFTER_REFUSED = ("the drafter fits only in rows no deployment runs (a layout or device its engine runs no "
                      "speculation at: left out)")  # qa375: said as fitting nowhere; qa376: a device too


def _drafting(rows: pd.DataFrame) -> pd.Series:
    """The rows that draft: k > 0 with a method."""
    return (rows["k"] > 0) & (rows["method"].astype(str) != "none") if "method" in rows else rows["k"] > 0


def tier_prices(df: pd.DataFrame, speeds=TIER_SPEEDS, meta: dict | None = None) -> pd.DataFrame:
    """Per hardware: the cheapest tier without speculation (lowest cost per million tokens among the points that fit,
    plain decoding) and, for each multiple m of its tokens/s per user, the cheapest point reaching m times that speed
    without speculation (k = 0 columns) and with it (any k: k = 0 where drafting does not pay), as a premium over the
    cheapest tier's price, with the batch, k, layout and engine of the speculative point priced; and the cheapest point
    that drafts (k > 0, a method) reaching it (`drafting_*`: what `roofline cheapest` picks, said where the any-k point
    is k = 0). A layout names the drafter's placement and the method where the sweep varies them."""
    from roofline.frontier import loadable, mismatched_drafts, plain_runnable, running_caps

    dirs = tuple((meta or {}).get("profiles") or ())

    def over_cap(point: pd.Series | None) -> float:
        """The sequences the drafting `point`'s engine runs at once while speculating with its cap at its default
        (frontier.running_caps: SGLang's 48) where the point's batch is above it, else NaN."""
        if point is None:
            return np.nan
        cap = running_caps(point.to_frame().T, dirs).iloc[0]
        return float(cap) if pd.notna(cap) and point["batch"] > cap else np.nan

    plain_df = plain_runnable(df, dirs)  # a speculative row its engine refuses still carries a plain point that runs
    # a draft model of another tokenizer no engine runs (qa331: its rows gone, said as a drafter fitting nowhere)
    mismatched = {e["model"] for e in mismatched_drafts(df, meta, dirs)}
    swept = _fits(df)  # before loadable: a drafter that fits only where its engine refuses it (qa375), or whose rows
    left_out = set((meta or {}).get("speculation_left_out_on") or ())  # the report left out already
    df = loadable(df, dirs, meta)  # a layout vLLM and SGLang refuse to load prices no tier, a mismatched draft neither
    rows = []
    plain_ok = plain_fits(plain_df)
    fits = _fits(df)
    for hw in dict.fromkeys(plain_df.loc[plain_ok, "hardware"]):  # every device plain decoding fits on (qa127)
        g = fits[fits["hardware"] == hw]
        # plain decoding's columns repeat on every k of a point: the cheapest over every config of this GPU, at every
        # batch plain decoding fits (a batch where only the drafter's k + 1 tokens overflow still has a plain tier)
        base = plain_df[plain_ok & (plain_df["hardware"] == hw)]
        if base["baseline_cost_usd_per_million_tokens"].isna().all():  # a device without a price: no tier to compare
            continue
        ref = base.loc[base["baseline_cost_usd_per_million_tokens"].idxmin()]
        u0, c0 = float(ref["baseline_tokens_per_s_per_user"]), float(ref["baseline_cost_usd_per_million_tokens"])
        varying = _varying(pd.concat([g, base]))  # the plain tier's layouts too (qa177; base fits plain decoding already)
        layout = [c for c in varying if c not in ("method", "draft_hardware")]  # tp, ep, ... where the sweep varies them
        spec_layout = layout + [c for c in ("method", "draft_hardware") if c in varying]  # qa118: where the drafter ran
        drafts = g[_drafting(g)]
        base_devices = int(ref["devices"]) if "devices" in ref.index else 1

        def config(point: pd.Series, columns: list[str], base_devices: int = base_devices) -> str:
            """_config_text of `point`, with its devices where they are not the cheapest tier's (qa466: a tier on 16
            devices said after '8 × $4.50 a device-hour')."""
            devices = int(point["devices"]) if "devices" in point.index else base_devices
            return _config_text(point, columns, meta) + (f", {devices} devices" if devices != base_devices else "")

        row = {"hardware": hw, "base_batch": int(ref["batch"]), "base_tokens_per_s_per_user": u0, "base_cost_usd_per_million_tokens": c0,
               "base_devices": base_devices,  # the devices its cost pays for
               # the cheapest at its own layout's edge: more may fit (qa283: said only of the layout holding most)
               "base_batch_note": _largest_swept(ref, _same_config(base, ref, [c for c in layout if c in base])),
               "base_config": _config_text(ref, layout, meta),
               "drafter_fits": bool(len(drafts)),  # some point that drafts fits here (qa129: none, said as out of reach)
               # why none does: the drafter's memory, or a draft model no engine runs beside this GPU's models
               "no_drafter_why": (NO_DRAFTER_RUNS if set(base["model"].astype(str)) <= mismatched and mismatched
                                  else NO_DRAFTER_REFUSED if hw in left_out or _drafting(swept[swept["hardware"] == hw]).any()
                                  else NO_DRAFTER_FITS),
               # the fastest of each kind at the sweep's smallest batch, where that is above 1: a speed no row reaches
               # may be reached below it, not out of reach (qa241: batches from 48, plain decoding's 3x reached at 38)
               "smallest_batch_plain": _smallest_batch(base, "baseline_tokens_per_s_per_user"),
               "smallest_batch_speculation": _smallest_batch(g, "tokens_per_s_per_user")}
        for m in speeds:
            plain = base.loc[base["baseline_tokens_per_s_per_user"] >= m * u0, "baseline_cost_usd_per_million_tokens"]
            spec = g.loc[g["tokens_per_s_per_user"] >= m * u0, "cost_usd_per_million_tokens"]
            row[f"premium_{m:g}x_plain"] = float(plain.min()) / c0 if len(plain) else np.nan
            # the layout of the plain m× point where it is not the cheapest tier's (a tp 8 tier, tp 4 at 2×)
            plain_config = config(base.loc[plain.idxmin()], layout) if len(plain) else ""
            row[f"config_{m:g}x_plain"] = plain_config if plain_config != row["base_config"] else ""
            row[f"premium_{m:g}x_speculation"] = float(spec.min()) / c0 if spec.notna().any() else np.nan
            cheapest = g.loc[spec.idxmin()] if spec.notna().any() else None  # the speculative point that price is of
            row[f"batch_{m:g}x_speculation"] = int(cheapest["batch"]) if cheapest is not None else np.nan
            # its layout, said as the cheapest tier's is (qa91: a tp 4 point read as the tp 8 tier's)
            row[f"config_{m:g}x_speculation"] = (config(cheapest, spec_layout if cheapest["k"] > 0 else layout)
                                                  if cheapest is not None else "")
            row[f"k_{m:g}x_speculation"] = int(cheapest["k"]) if cheapest is not None else np.nan
            row[f"engine_{m:g}x_speculation"] = str(cheapest["engine"]) if cheapest is not None and "engine" in g else "ideal"
            row[f"cap_{m:g}x_speculation"] = over_cap(cheapest)  # above the engine's cap while speculating: its value
            # reached, but only where a drafter's device has no price: the premium is unknown, not out of reach
            row[f"unpriced_{m:g}x_speculation"] = bool(len(spec) and spec.isna().all())
            # the cheapest point that drafts: where the any-k point is k = 0, what drafting would cost (qa118)
            drafting = drafts.loc[drafts["tokens_per_s_per_user"] >= m * u0, "cost_usd_per_million_tokens"]
            drafted = drafts.loc[drafting.idxmin()] if drafting.notna().any() else None
            row[f"drafting_premium_{m:g}x"] = float(drafting.min()) / c0 if drafted is not None else np.nan
            row[f"drafting_batch_{m:g}x"] = int(drafted["batch"]) if drafted is not None else np.nan
            row[f"drafting_k_{m:g}x"] = int(drafted["k"]) if drafted is not None else np.nan
            row[f"drafting_config_{m:g}x"] = config(drafted, spec_layout) if drafted is not None else ""
            row[f"drafting_engine_{m:g}x"] = str(drafted["engine"]) if drafted is not None and "engine" in g else "ideal"
            row[f"drafting_cap_{m:g}x"] = over_cap(drafted)
            row[f"drafting_unpriced_{m:g}x"] = bool(len(drafting) and drafting.isna().all())
            # a point between the swept batches (frontier.points_between_for_speeds) among those this tier quotes
            row[f"computed_{m:g}x"] = any(bool(p.get("computed_now", False)) is True for p in (
                base.loc[plain.idxmin()] if len(plain) else None, cheapest, drafted) if p is not None)
        rows.append(row)
    return pd.DataFrame(rows, columns=list(rows[0]) if rows else ["hardware"]).set_index("hardware")


def base_tier_costs(df: pd.DataFrame, meta: dict) -> dict[str, tuple[float, float, int]]:
    """{hardware: (the cheapest tier without speculation's cost per million tokens, its tokens/s per user, its batch)}
    of `df` (tier_prices), for the devices that price one: a report gives the fast-tier finding other engines'
    (`other_engine_base_costs`)."""
    tiers = tier_prices(df, meta=meta)
    if "base_cost_usd_per_million_tokens" not in tiers:  # no device prices one (an engine it does not run on, no price:
        return {}  # qa381, a KeyError and no report)
    return {str(h): (float(t["base_cost_usd_per_million_tokens"]), float(t["base_tokens_per_s_per_user"]), int(t["base_batch"]))
            for h, t in tiers.iterrows() if np.isfinite(float(t["base_cost_usd_per_million_tokens"]))}


def _other_engines_tier(meta: dict, hw: str, cost: float) -> str:
    """' Under sglang the cheapest tier without speculation on H100 SXM5 costs $0.105 per million tokens, 35% less.':
    each other engine a report's sweep holds (meta's `other_engine_base_costs`, base_tier_costs of its rows) that
    prices one on `hw`, against this finding's `cost` there (qa375: SGLang's tier 35% cheaper than the vllm one the
    finding priced, unsaid)."""
    said = []
    for other, tiers in ((meta or {}).get("other_engine_base_costs") or {}).items():
        if hw not in tiers:
            continue
        theirs, speed, batch = tiers[hw]
        change = theirs / cost - 1
        said.append(f"under {other} the cheapest tier without speculation on {_hw(meta, hw)} costs ${_n(theirs)} per "
                    f"million tokens at {_n(speed)} tokens/s per user (batch {batch:,}, the largest that fits), "  # (qa384:
                    + (f"{-change:.0%} less" if change < -0.005 else f"{change:.0%} more"  # its point and speed unsaid)
                       if change > 0.005 else "the same"))
    text = "; ".join(said)  # each with its own commas: a list of them reads apart by semicolons
    return f" {text[0].upper()}{text[1:]}." if said else ""


def fast_tier_premium(df: pd.DataFrame, ops: pd.DataFrame, meta: dict) -> Finding:
    engine = main_engine(df)  # the figure's engine: prices of two engines are not tiers of one service
    engines = sorted(set(df["engine"].astype(str))) if "engine" in df else []
    df = df[df["engine"].astype(str) == engine] if "engine" in df else df
    tiers = tier_prices(df, meta=meta)
    order = [h for h in dict.fromkeys(df["hardware"]) if h in tiers.index]
    order = sorted(order, key=lambda h: not tiers.loc[h, "drafter_fits"])  # a device speculation runs on first (qa129)
    from roofline.frontier import unrunnable_engines

    # devices the engine does not run on (TensorRT-LLM on an AMD one): left out of the tiers for that, not for a price
    unrunnable = [e for e in unrunnable_engines(df, tuple((meta or {}).get("profiles") or ())) if "hardware" in e]
    unrun = list(dict.fromkeys(e["hardware"] for e in unrunnable))
    why_unrun = "; ".join(dict.fromkeys(e["why"] for e in unrunnable))  # TensorRT-LLM runs on NVIDIA GPUs only
    if not order:
        from roofline.frontier import plain_runnable

        plain = df[plain_fits(df)]
        loaded = set(plain_runnable(plain, tuple((meta or {}).get("profiles") or ()))["hardware"])
        others = [h for h in dict.fromkeys(plain["hardware"]) if h not in unrun]
        refused = [h for h in others if h not in loaded]  # qa137: a priced device at a layout engines refuse, not unpriced
        unpriced_hw = [h for h in others if h not in refused]
        give = "give one with `roofline hw new NAME --from DEVICE --set price='2.5 USD/h'`"
        reasons = ([f"it does not run on {_list([_hw(meta, h) for h in unrun])} ({why_unrun})"] if unrun else []) + (
            [f"{_list([_hw(meta, h) for h in refused])} only at a layout the engines refuse to load or run no setup of"]
            if refused else []) + (
            [f"{_list([_hw(meta, h) for h in unpriced_hw])} {'has' if len(unpriced_hw) == 1 else 'have'} no price ({give})"]
            if unpriced_hw else [])
        why = ("Nothing of this sweep fits in memory" if plain.empty else
               f"Engine {engine} runs on none of this sweep's devices ({_list([_hw(meta, h) for h in unrun])}: {why_unrun})"
               if unrun and not others else  # qa129: "none (: )" where no k > 0 fits
               f"No device of this sweep has a price at a layout engine {engine} runs: {_list(reasons)}" if len(reasons) > 1
               else f"No device of this sweep is priced at a layout the engines run: {reasons[0]}" if refused
               else f"No hardware of this sweep has a price where its points fit ({give})")
        return Finding("Fast tiers", f"{why}: no cost to compare.", {"tiers": tiers})
    h0 = order[0]
    t = tiers.loc[h0]
    m1, m2 = TIER_SPEEDS

    cautioned = []  # the caveat of OPTIMISTIC is said in full once, then referred to
    named_by_caveat = []  # the other GPUs the last caveat named (qa181: the cap clause named them again)

    def caveat(points: pd.DataFrame, others: bool = False) -> str:
        """'; a lower estimate: with a serving engine, ...' where a speculative point priced is in OPTIMISTIC's range (its
        gain optimistic, its price too low), shorter once said; `others`: the other GPUs' points, indexed by device, said
        of all or named where only some are in that range (qa180: a batch-9 price was called a lower estimate)."""
        over = [h for h, (b, e) in zip(points.index, points.itertuples(index=False)) if optimistic(b, e)]
        if not over:
            return ""
        cautioned.append(True)
        on = f" on {_list([_hw(meta, h) for h in over])}" if others and len(over) < len(points) else ""
        named_by_caveat[:] = over if on else []  # the devices named, which the cap clause after it may refer to
        plural = "s" if len(over) > 1 else ""
        what = f"{'a ' if not plural else ''}lower estimate{plural}"
        return f"; likewise {what}{on}" if len(cautioned) > 1 else f"; {what}{on}: {OPTIMISTIC}"

    capped_said = []  # the caps said in full, then referred to (qa178, qa179)

    def capped(caps: pd.Series, others: bool = False) -> str:
        """'; sglang runs at most 48 sequences at once while speculating unless its cap is raised: its price assumes it
        raised to the batch' where a speculative point priced runs a batch above its engine's cap (tier_prices' cap
        columns: the cap, NaN where under it), shorter once said; `others`: the other GPUs' points, indexed by device,
        said of all or named where only some are over."""
        caps = caps.astype(float)
        over = caps[np.isfinite(caps)]
        if over.empty:
            return ""
        some = others and len(over) < len(caps)
        on = (" there" if list(over.index) == named_by_caveat else f" on {_list([_hw(meta, h) for h in over.index])}") if some else ""
        values = sorted({int(c) for c in over})
        if all(v in capped_said for v in values):
            return f"; likewise above that cap{on}" if len(values) == 1 else f"; likewise above their caps{on}"
        capped_said.extend(values)
        whose = ("its price assumes" if not others else f"the prices{on} assume" if some else "their prices assume")
        return (f"; {engine} runs at most {' or '.join(f'{v:,}' for v in values)} sequences at once while speculating "
                f"unless its cap is raised: {whose} it raised to the batch")

    def where(m: float) -> str:
        """' (batch 128, k = 5; a lower estimate: ...)': the speculative point the m× tier's price is of; for a k = 0
        point, what the cheapest point that drafts costs instead (or why none is priced), the caveat on that one."""
        k = int(t[f"k_{m:g}x_speculation"])
        if k > 0 and m == m2 and all(t[f"{c}_{m1:g}x_speculation"] == t[f"{c}_{m2:g}x_speculation"]
                                     for c in ("k", "batch", "config")):  # (qa384: one point quoted twice, read as
            return " (the same point, fast enough for both)"  # a copy error)
        if k > 0:
            point = pd.DataFrame({"batch": [t[f"batch_{m:g}x_speculation"]], "engine": [t[f"engine_{m:g}x_speculation"]]})
            return (f" (batch {int(t[f'batch_{m:g}x_speculation']):,}{t[f'config_{m:g}x_speculation']}, k = {k}{caveat(point)}"
                    f"{capped(pd.Series([t[f'cap_{m:g}x_speculation']]))})")
        plain_point = f"batch {int(t[f'batch_{m:g}x_speculation']):,}{t[f'config_{m:g}x_speculation']}, k = 0"
        if np.isfinite(t[f"drafting_premium_{m:g}x"]):
            point = pd.DataFrame({"batch": [t[f"drafting_batch_{m:g}x"]], "engine": [t[f"drafting_engine_{m:g}x"]]})
            return (f" ({plain_point}: drafting does not pay there; the cheapest point that drafts, batch "
                    f"{int(t[f'drafting_batch_{m:g}x'])}{t[f'drafting_config_{m:g}x']}, k = {int(t[f'drafting_k_{m:g}x'])}, "
                    f"costs {_x(t[f'drafting_premium_{m:g}x'])}{caveat(point)}{capped(pd.Series([t[f'drafting_cap_{m:g}x']]))})")
        return (f" ({plain_point}: " + ("the points that draft there have no price, their drafter's device none"
                                         if t[f"drafting_unpriced_{m:g}x"] else "no point that drafts reaches it"
                                         if t["drafter_fits"] else t["no_drafter_why"]) + ")")

    def plain_at(m: float) -> str:
        """' (tp 4)': the plain m× point's layout where it is not the cheapest tier's."""
        config = t[f"config_{m:g}x_plain"]
        return f" ({config.removeprefix(', ')})" if config else ""

    def unreached(m: float, kind: str, how: str) -> str:
        """'out of reach without speculation', or where the sweep's batches start above 1 'not reached without
        speculation in the sweep (its smallest batch, 48, gives 68.6 tokens/s per user; a smaller one may)' (qa241:
        `cheapest` prices it below the smallest batch)."""
        smallest = t[f"smallest_batch_{kind}"]
        if smallest is None:
            return f"out of reach {how}"
        return (f"not reached {how} in the sweep (its smallest batch, {smallest[0]:,}, gives {smallest[1]:.3g} tokens/s "
                "per user; a smaller one may)")

    drafting = df[df["k"] > 0]
    methods, alphas = drafting["method"].astype(str).unique(), alpha_values(drafting["alpha"]) if len(drafting) else []
    # the acceptance the prices with speculation hold, said with them (qa294: '0.480× with it' named no α, one being
    # swept; qa296: not before the plain price, which holds none, and with several methods too)
    a0 = float(alphas[0]) if len(alphas) == 1 else None
    how = (("" if a0 != a0 and meta.get("tree_nodes") else "at ") + _acceptance_text(a0, meta)) if a0 is not None else ""
    with_what = (f"with {METHOD_NAMES.get(methods[0], methods[0])} {'drafting ' if a0 != a0 and meta.get('tree_nodes') else ''}"
                 f"{how}" if how and len(methods) == 1 else f"with it ({how})" if how else "with it")  # 'with EAGLE drafting a tree

    def tier(m: float, first: bool) -> str:
        """'costs A× the price without speculation and B× with it (batch, k)' (the second tier shorter), or where a
        price is missing what is known: out of reach, or reached at an unknown price."""
        plain, spec = t[f"premium_{m:g}x_plain"], t[f"premium_{m:g}x_speculation"]
        if not t["drafter_fits"]:  # said once, after both tiers (qa133: a swept k = 0 priced 'with it' at plain's price)
            return (f"costs {_x(plain)} the price without speculation{plain_at(m)}" if first else
                    f"costs {_x(plain)} without it{plain_at(m)}") if np.isfinite(plain) else f"is {unreached(m, 'plain', 'without speculation')}"
        if np.isfinite(plain) and np.isfinite(spec):
            return (f"costs {_x(plain)} the price without speculation{plain_at(m)} and {_x(spec)} {with_what}{where(m)}" if first
                    else f"costs {_x(plain)} without{plain_at(m)} and {_x(spec)} with{where(m)}")
        without = (f"costs {_x(plain)} the price without speculation{plain_at(m)}" if np.isfinite(plain)
                   else f"is {unreached(m, 'plain', 'without speculation')}")

        with_it = (f"costs {_x(spec)} the price {with_what if first else 'with it'}{where(m)}" if np.isfinite(spec) else
                   "is reached with it only where the drafter's device has no price (cost unknown)"
                   if t[f"unpriced_{m:g}x_speculation"] else f"is {unreached(m, 'speculation', 'with it')}")
        return f"{without} and {with_it}"

    # the other GPUs: their m1× tier's cheapest point that drafts (qa120: a k = 0 point, plain decoding, was read as
    # speculation's), and where plain decoding reaches the speed for less, said
    others = tiers.drop(index=h0)
    no_drafter = [h for h in order if h != h0 and not tiers.loc[h, "drafter_fits"]]  # said, not counted among the others
    others = others.drop(index=no_drafter)
    worst = others[f"drafting_premium_{m1:g}x"].max() if len(others) else np.nan
    priced = others[others[f"drafting_premium_{m1:g}x"].notna()]
    batches = sorted({int(b) for b in priced[f"drafting_batch_{m1:g}x"]})
    at = (f"batch {batches[0]}" if len(batches) == 1 else f"batch {batches[0]}-{batches[-1]}") if batches else ""
    plainer = [h for h in priced.index if priced.loc[h, f"k_{m1:g}x_speculation"] == 0]
    cheaper = (f"; plain decoding reaches it for less on {_list([_hw(meta, h) for h in plainer])}" if len(priced) > 1 and plainer
               else "; plain decoding reaches it for less" if plainer else "")
    price = (meta.get("price_usd_per_hour") or {}).get(h0)
    first_tiers = f"{m1:g}× that speed {tier(m1, True)}; {m2:g}× {tier(m2, False)}."  # before the others': the caveat's order
    if not t["drafter_fits"]:  # qa129: said as 'out of reach with it', as if speculation had run and fallen short
        first_tiers += f" Speculation does not run there: {t['no_drafter_why']}."
    others_caveat = (caveat(priced[[f"drafting_batch_{m1:g}x", f"drafting_engine_{m1:g}x"]], others=True)
                     + capped(priced[f"drafting_cap_{m1:g}x"], others=len(priced) > 1)) if len(priced) else ""
    contexts = df["context"].unique()
    context_text = (f" at {_article(f'{int(contexts[0]):,}')} {int(contexts[0]):,}-token context" if len(contexts) == 1
                    else "")  # prices and batches rest on it
    text = (
        f"On {_hw(meta, h0)}{f' ({int(t.base_devices)} × ${format_usd_per_hour(price)} a device-hour)' if price else ''}"
        f"{context_text}, the cheapest tier without speculation costs ${_n(t['base_cost_usd_per_million_tokens'])} per million tokens at "
        f"{_n(t['base_tokens_per_s_per_user'])} tokens/s per user (batch {int(t['base_batch']):,}{t['base_config']}, no speculation"
        f"{t['base_batch_note']}). "
        f"{first_tiers}"
        + ((f" On the other {len(others)} GPUs the {m1:g}× tier with speculation costs at most {_x(worst)} their cheapest tier "
            f"({at}{others_caveat}{cheaper})." if len(others) > 1 else
            f" On {_hw(meta, others.index[0])} the {m1:g}× tier with speculation costs {_x(worst)} its cheapest tier "
            f"({at}{others_caveat}{cheaper}).")
           if len(others) and np.isfinite(worst) else "")
        + "".join(f" On {_list([_hw(meta, h) for h in no_drafter if tiers.loc[h, 'no_drafter_why'] == why])} {why}: plain "
                  "decoding only." for why in dict.fromkeys(tiers.loc[no_drafter, "no_drafter_why"]))
    )
    plain_hw = set(df.loc[plain_fits(df), "hardware"])  # qa129: a device where only plain decoding fits is left out too
    unpriced = [h for h in dict.fromkeys(df["hardware"]) if h not in tiers.index and h not in unrun and h in plain_hw]
    if unpriced:
        text += f" Left out, without a price in their profiles: {', '.join(_hw(meta, h) for h in unpriced)}."
    if unrun:
        text += (f" Left out, as engine {engine} does not run on them ({why_unrun}): "
                 f"{', '.join(_hw(meta, h) for h in unrun)}.")
    unfit = [h for h in dict.fromkeys(df["hardware"]) if h not in tiers.index and h not in unrun and h not in plain_hw]
    if unfit:  # qa362: swept and said nowhere but the warnings
        text += f" Left out, nothing fitting in memory there: {', '.join(_hw(meta, h) for h in unfit)}."
    if len(engines) > 1:
        text += f" (Engine {engine}, as in the figure; the table also holds {_list([e for e in engines if e != engine])}.)"
    text += _other_engines_tier(meta, h0, float(t["base_cost_usd_per_million_tokens"]))
    quoted = [m1] if len(others) else []  # the tiers this text quotes: h0's two, the others' first
    if any(bool(t.get(f"computed_{m:g}x", False)) for m in TIER_SPEEDS) or any(
            bool(tiers.loc[h, f"computed_{m:g}x"]) for h in others.index for m in quoted if f"computed_{m:g}x" in tiers):
        text += (" Points at batches between the swept ones are computed now (the batch that just reaches a speed "
                 "usually lies between two swept ones), as `roofline cheapest` prices them; one less than "
                 f"{REFINE_GAIN_MIN:.1%} cheaper than a swept point leaves that point quoted.")  # (qa391: batch 205's
        # $0.0771 beside the quoted 197's $0.0774, said nowhere)
    text += (" The tiers with speculation are priced against a standard tier that does not speculate: a standard tier "
             "that speculates too costs its own cheapest point (`roofline cheapest`), and its 2× tier more.")  # (qa362)
    slow = measured_slower(df, meta, engine, [h0, *others.index])
    if slow:  # qa398: MI300X's $0.04 read as a buy, the Argonne rows' 69-308% said in the warnings alone
        text += (f" Published runs on {_list([_hw(meta, h) for h in slow])} measured slower than this model predicts (a "
                 f"known miss of {engine} or a profile priced with its costs, in the warnings): the prices there run low.")
    short_of_memory = memory_missed(df, meta, engine, [h0, *others.index])
    if short_of_memory:  # qa455: gpt-oss-120b's tier at batch 73, the most that fits, where vLLM's start-up measured
        text += (f" A known miss of {engine} (in the warnings): the engine was measured to take more memory for this "
                 f"model than this tool counts, so on {_list([_hw(meta, h) for h in short_of_memory])} the largest batch "
                 "that fits runs high, and with it the cheapest tier's batch; its price there runs low.")
    if "ngram" in set(methods) and len(set(methods)) > 1 and a0 is not None:  # as cheapest says it (qa362)
        text += (" N-gram lookup shares an alpha with the drafters here: its acceptance is the workload's repetition, "
                 "not a drafter's skill, and it pays no drafter, so one alpha for both favours it.")
    if meta.get("prompt") and meta.get("output_len"):  # qa362: the scenario's request, unsaid
        text += (f" These are steady decoding's prices: the scenario's request ({int(meta['prompt']):,}-token prompts, "
                 f"{int(meta['output_len']):,} output tokens) adds its prefills in the table's serving columns, by which "
                 "`roofline cheapest DIR --serving --min-tokens-per-user S` ranks.")
    plain1, spec1, k1 = t[f"premium_{m1:g}x_plain"], t[f"premium_{m1:g}x_speculation"], t[f"k_{m1:g}x_speculation"]
    drafts = bool(t["drafter_fits"]) and np.isfinite(spec1) and k1 == k1 and k1 > 0  # the 2× tier's price is a drafting point
    lower = drafts and optimistic(t[f"batch_{m1:g}x_speculation"], t[f"engine_{m1:g}x_speculation"])
    short = (f"On {_hw(meta, h0)}, a tier {m1:g}× as fast as the cheapest "
             + (f"costs {_x(plain1)} the cheapest's price without speculation and {_x(spec1)}" if np.isfinite(plain1) else
                f"is {unreached(m1, 'plain', 'without speculation')} and costs {_x(spec1)} the cheapest's price")  # (qa397)
             + f" {with_what} (batch {int(t[f'batch_{m1:g}x_speculation']):,}"
             + f"{', a lower estimate' if lower else ''})."
             if drafts else "")
    return Finding("Fast tiers", text, {"tiers": tiers}, short)


def _measured_slower_text(rows: pd.DataFrame, meta: dict, engine: str) -> str:
    """' Published runs on 8 × MI300X measured slower than this model predicts (...): its speeds there run high and its
    prices low.' where a config of `rows` (the finding's engine's) matches a known miss measured slower
    (measured_slower), as the fast tiers say it (qa454: MI300X compared with H200, and named cheapest, where vllm's known
    misses put its measured steps 33-62% above the predicted ones, said in the warnings alone); '' under the bound."""
    if engine == IDEAL.name:
        return ""
    slow = measured_slower(_fits(rows), meta, engine, list(dict.fromkeys(rows["hardware"].astype(str))))
    return (f" Published runs on {_list([_hw(meta, h) for h in slow])} measured slower than this model predicts (a known "
            f"miss of {engine} or a profile priced with its costs, in the warnings): its speeds there run high and its "
            "prices low." if slow else "")


def _devices_missed(df: pd.DataFrame, meta: dict, engine: str, hardware: list, by: list[str], matches) -> list:
    """The devices of `hardware` where a config of `df` (grouped `by` and by layout, at its batches: a range from its
    smallest to its largest) is one `matches(row, profiles, cache)` says a known miss holds, under `engine`
    (frontier._misses_of); each layout apart (qa461: one group over two layouts took the first row's, so whether the
    sentence was said hung on the order of the scenario's layouts)."""
    profiles, cache, out = tuple((meta or {}).get("profiles") or ()), {}, []
    keys = [*by, *(c for c in LAYOUT_KEYS if c in df)]
    for h in hardware:
        for _, g in df[df["hardware"] == h].groupby(keys, observed=True):
            row = {**g.iloc[0].to_dict(), "engine": engine, "batch": range(int(g["batch"].min()), int(g["batch"].max()) + 1)}
            if matches(row, profiles, cache):
                out.append(h)
                break
    return out


def memory_missed(df: pd.DataFrame, meta: dict, engine: str, hardware: list) -> list:
    """The devices of `hardware` where a model of `df` (plain decoding, at its batches) matches a known miss with no
    `measured` direction, the memory kind (docs/PROFILES.md: vllm's gpt-oss-120b weights as vLLM loads them), of
    `engine` or a profile priced with its costs."""
    from roofline.frontier import _misses_of

    return _devices_missed(df, meta, engine, hardware, ["model"], lambda row, profiles, cache: any(
        "measured" not in miss for miss in _misses_of({**row, "decoding": "plain"}, profiles, cache)))


def measured_slower(df: pd.DataFrame, meta: dict, engine: str, hardware: list) -> list:
    """The devices of `hardware` where a config of `df` (its model, method and layout, at its batches) matches a known
    miss measured slower than predicted, of `engine` or of a shipped profile priced with its costs (frontier._missed,
    as cheapest's notes read them)."""
    from roofline.frontier import _missed

    return _devices_missed(df, meta, engine, hardware, ["model", "method"], lambda row, profiles, cache: any(
        _missed({**row, "decoding": kind}, "slower", profiles, cache) for kind in ("plain", "speculation")))


def prefill_point(df: pd.DataFrame) -> pd.Series | None:
    """The row prefill-not-sped-up reads (and its figure draws): the fastest drafting row that fits at the longest prompt
    one fits at (qa138: the longest of any k, where only plain decoding fit); None where none fits."""
    drafting = _fits(df)
    drafting = drafting[drafting["k"] > 0]
    drafting = drafting[drafting["context"] == drafting["context"].max()]
    return drafting.sort_values("speedup", kind="stable").iloc[-1] if len(drafting) else None


def prefill_not_sped_up(df: pd.DataFrame, ops: pd.DataFrame, meta: dict) -> Finding:
    fit = _fits(df)
    spec = prefill_point(df)
    if spec is None:
        raise Unanswerable("no drafting row fits in memory")
    c_hi = spec["context"]
    g = fit[fit["context"] == c_hi]
    plain = spec  # plain decoding at the same point: its baseline columns (qa135: the first k = 0 row, another batch)
    plain_ttft_s = float(spec.get("baseline_ttft_s", spec["ttft_s"]))  # its own prefill (qa472: a cache the engine turns
    # off while speculating made the speculating prefill plain decoding's too)
    answer_plain = plain_ttft_s + ANSWER_TOKENS / plain["baseline_tokens_per_s_per_user"]
    answer_spec = spec["ttft_s"] + spec["draft_ttft_s"] + ANSWER_TOKENS / spec["tokens_per_s_per_user"]
    drafter_prefill = (f", plus {_n(spec['draft_ttft_s'])} s for the drafter's own prefill" if spec["draft_ttft_s"] > 0
                       else " (the drafter has no prefill of its own)")
    alpha = _acceptance_text(spec["alpha"], meta)
    ctx = _ctx(c_hi)
    batch_text = f", batch {int(spec['batch']):,}" if g["batch"].nunique() > 1 else ""  # which one, of several (qa135)
    text = (
        f"For {_article(ctx)} {ctx}-token prompt ({_model(meta, plain['model'])}, "
        f"{_row_devices(plain, fit, meta)} × {_hw(meta, plain['hardware'])}{batch_text}), "  # qa297: 4 ×, its own
        + (f"the target's prefill takes {_n(spec['ttft_s'])} s with or without speculation{drafter_prefill}; "
           if np.isclose(plain_ttft_s, spec["ttft_s"], rtol=1e-9) else
           f"the target's prefill takes {_n(plain_ttft_s)} s without speculation and {_n(spec['ttft_s'])} s with it (its "
           f"engine's prefix cache off while speculating){drafter_prefill}; ")
        + (f"decoding runs {_x(spec['speedup'])} faster (k = {int(spec['k'])}, {alpha}), so a {ANSWER_TOKENS}-token answer "
           f"arrives {_x(answer_plain / answer_spec)} sooner ({_n(answer_spec)} s against {_n(answer_plain)} s)."
           if pays(spec["speedup"]) and answer_spec < answer_plain else
           f"decoding runs {_x(spec['speedup'])} faster (k = {int(spec['k'])}, {alpha}), but a {ANSWER_TOKENS}-token answer "
           f"arrives later with it ({_n(answer_spec)} s against {_n(answer_plain)} s): the prefills outweigh the gain."
           if pays(spec["speedup"]) else
           f"decoding does not gain: at best {_x(spec['speedup'])} plain decoding's speed (k = {int(spec['k'])}, {alpha}), so a "
           f"{ANSWER_TOKENS}-token answer takes {_n(answer_spec)} s against {_n(answer_plain)} s without speculation.")
    )
    short = (f"{_article(ctx).capitalize()} {ctx}-token prompt's prefill ({_model(meta, plain['model'])}, "
             f"{_row_devices(plain, fit, meta)} × {_hw(meta, plain['hardware'])}) takes {_n(plain_ttft_s)} s "
             + ("with or without speculation" if np.isclose(plain_ttft_s, spec["ttft_s"], rtol=1e-9) else
                f"without speculation, {_n(spec['ttft_s'])} s with it")
             + (f" (+{_n(spec['draft_ttft_s'])} s for the drafter's own)" if spec["draft_ttft_s"] > 0 else "") + ": "
             + (f"decoding {_x(spec['speedup'])} faster brings a {ANSWER_TOKENS}-token answer "
                f"{_x(answer_plain / answer_spec)} sooner." if pays(spec["speedup"]) and answer_spec < answer_plain else
                f"decoding {_x(spec['speedup'])} faster, the answer still later ({_n(answer_spec)} s against "
                f"{_n(answer_plain)} s)." if pays(spec["speedup"]) else
                f"decoding does not gain ({_x(spec['speedup'])} at best)."))
    return Finding("Prefill is not sped up", text, {
        "ttft_s": plain_ttft_s, "ttft_speculating_s": float(spec["ttft_s"]), "draft_ttft_s": float(spec["draft_ttft_s"]),
        "decode_speedup": float(spec["speedup"]),
        "answer_speedup": float(answer_plain / answer_spec),
    }, short)


CONFIG_COLUMNS = ("engine", "method", "tp", "dp_attention", "ep", "pp", "weight_dtype", "expert_dtype", "kv_dtype",
                  "draft_hardware", "shared_prefix")  # what a sweep may vary besides hardware, model and its axes
POINT_COLUMNS = ("hardware", "model", "context", "alpha", "batch")


def _varying(df: pd.DataFrame) -> list[str]:
    """The config columns of CONFIG_COLUMNS that take more than one value in `df`."""
    return [c for c in CONFIG_COLUMNS if c in df and df[c].astype(str).nunique() > 1]


def _config_text(row: pd.Series, columns: list[str], meta: dict | None = None) -> str:
    """', tp 4, drafter on L4' for the config columns given ('' for none)."""
    def one(c: str) -> str:
        if c == "draft_hardware":
            return f", drafter on {_hw(meta or {}, str(row[c]))}" if str(row[c]) else ", drafter on the target's devices"
        if c == "shared_prefix":  # a count of tokens, as the other counts are said (qa350: 'shared prefix 16384')
            return f", shared prefix {int(row[c]):,} tokens"
        return f", {c.replace('_', ' ')} {row[c]}" if str(row[c]) else ""  # a dense model's empty expert dtype: none
    return "".join(one(c) for c in columns)


def _engine_said(df: pd.DataFrame, engine: str) -> str:
    """' (Engine vllm, as in the figure; the table also holds my-vllm.)' where a table holds more engines than the one
    a finding reads (main_engine), else ''."""
    others = sorted(set(df["engine"].astype(str)) - {engine}) if "engine" in df else []
    return f" (Engine {engine}, as in the figure; the table also holds {_list(others)}.)" if others else ""


def generic(df: pd.DataFrame, ops: pd.DataFrame, meta: dict) -> Finding:
    """The generic finding of a sweep no built-in question reads, on the rows a deployment runs (frontier.loadable:
    qa145, a trtllm tp 2 / dp 4 layout, no setup of it, headlined the finding), said where rows were left out."""
    from roofline.frontier import loadable, plain_runnable

    engine = main_engine(df)  # the figure's engine (report.py draws main_engine(df)): the finding's too (qa146)
    mine = df[df["engine"].astype(str) == engine] if "engine" in df else df
    runs = loadable(mine, tuple((meta or {}).get("profiles") or ()), meta)
    others = _others_left_out(df, engine, meta)
    if len(runs) == len(mine):
        found = _generic(df, ops, meta)
        return replace(found, text=found.text + f" (The cheapest figure leaves out {others} at a layout, on a device or "
                       "with a draft model that engine does not run: the sweep's warnings say which.)") if others else found
    if runs.empty:  # qa146: every row refused, the finding headlined a layout no setup runs, in silence
        found = _generic(df, ops, meta)
        if len(plain_runnable(mine, tuple((meta or {}).get("profiles") or ()))) == len(mine):  # speculation alone refused
            return replace(found, text=found.text + f" (Every speculative row of engine {engine} speculates in a way it "
                           "runs no setup of, so its figures with speculation describe no setup of it, its plain ones do: "
                           "the sweep's warnings say why: a method or draft model, a layout or a device.)")  # (qa379: a
            # pp 2 refusal said as 'a draft model of another tokenizer or a method it refuses there')
        return replace(found, text=found.text + f" (Every row of engine {engine} is at a layout, on a device or with a "
                       "draft model it does not run, so these figures describe no setup of it: the sweep's warnings say "
                       "which.)")
    rest = df[df["engine"].astype(str) != engine] if "engine" in df else df.iloc[0:0]
    found = _generic(pd.concat([runs, rest]), ops, meta)  # its rows first: still the main engine
    return replace(found, text=found.text + f" ({len(mine) - len(runs):,} rows of engine {engine} at a layout, on a "
                   "device or with a draft model it does not run are left out"
                   + (f"; the cheapest figure leaves out such rows of other engines too, {others}" if others else "")
                   + ": the sweep's warnings say which.)")


def _others_left_out(df: pd.DataFrame, engine: str, meta: dict) -> str:
    """'18 rows of engine trtllm' (and of each other engine): those at a layout, on a device or with a draft model that
    engine does not run, which the cheapest figure (frontier.loadable) leaves out beside the finding's own engine's
    (qa479: said of vllm alone, trtllm's tp 2 / dp 4 rows left out unsaid), '' where none."""
    from roofline.frontier import loadable

    if "engine" not in df:
        return ""
    counts = []
    for other in dict.fromkeys(df["engine"].astype(str)):
        if other == engine:
            continue
        theirs = df[df["engine"].astype(str) == other]
        n = len(theirs) - len(loadable(theirs, tuple((meta or {}).get("profiles") or ()), meta))
        if n:
            counts.append(f"{n:,} row{'s' if n != 1 else ''} of engine {other}")
    return _list(counts)


def _generic(df: pd.DataFrame, ops: pd.DataFrame, meta: dict) -> Finding:
    engine = main_engine(df)  # the figure's engine
    mine = df[df["engine"].astype(str) == engine] if "engine" in df else df
    fit = _fits(mine)
    title = meta.get("scenario", "scenario")
    plain = mine[plain_fits(mine)]
    if fit.empty and len(plain):  # no drafter fits anywhere, plain decoding does (qa127: 'no point fits', k = 0 unswept)
        b = plain.loc[plain["baseline_tokens_per_s"].idxmax()]
        return Finding(title, f"Speculation fits in device memory at no point of this sweep (engine {engine}); plain "
                       f"decoding peaks at {_n(b['baseline_tokens_per_s'])} tokens/s ({_hw(meta, b['hardware'])}, "
                       f"{_model(meta, b['model'])}, batch {int(b['batch']):,}).", {})
    if fit.empty:
        return Finding(title, f"No point of this sweep fits in device memory (engine {engine}).", {})
    drafting = fit[(fit["k"] > 0) & (fit["method"].astype(str) != "none")] if "method" in fit else fit[fit["k"] > 0]
    if drafting.empty:  # plain decoding's rows repeat over a k axis swept for another method: not speculation
        b = fit.loc[fit["tokens_per_s"].idxmax()]
        return Finding(title, f"Throughput peaks at {_n(b['tokens_per_s'])} tokens/s "
                       f"({_hw(meta, b['hardware'])}, {_model(meta, b['model'])}, batch {int(b['batch']):,})."
                       + _serving_text(b, meta, plain=True)
                       + _compared_plain(mine, b, meta) + _engine_said(df, engine), {})  # qa108: my-vllm's peak unsaid
    varying = _varying(drafting)
    keys = [*POINT_COLUMNS, *varying]
    # each point of each config at its best drafting k (the largest speedup over k > 0; a tree has one k, best_k -1)
    points = drafting.sort_values("speedup", kind="stable").drop_duplicates(keys, keep="last")
    top = points.loc[points["speedup"].idxmax()]
    losing = points[~pays(points["speedup"])]

    def span(column: str, fmt) -> str:
        values = losing[column].dropna()  # alpha is NaN where per-position rates (or a tree's tau) stand for it
        if values.empty:
            return fmt(float("nan"))
        lo, hi = values.min(), values.max()
        text = fmt(lo) if lo == hi else f"{fmt(lo)} to {fmt(hi)}"
        return text + (" and per-position rates" if len(values) < len(losing) else "")

    tree = meta.get("tree_nodes")
    at_best = "" if tree else "at its best k "  # a tree has one k, its depth: no best among several (qa130)
    # what every losing point shares where the sweep varied it: the cause a reader looks for
    shared = [c for c in (*varying, "hardware", "model") if c in points and points[c].astype(str).nunique() > 1
              and losing[c].astype(str).nunique() == 1] if len(losing) > 1 else []  # one point shares everything
    cause = ""
    if len(losing) and shared:
        first = losing.iloc[0]
        parts = [_config_text(first, [c], meta)[2:] for c in shared if c in varying]
        parts += [_hw(meta, first["hardware"])] if "hardware" in shared else []
        parts += [_model(meta, first["model"])] if "model" in shared else []
        cause = f", all with {_list(parts)}"
    never = [m for m in dict.fromkeys(df["model"].astype(str)) if not fit["model"].astype(str).eq(m).any()]
    # the engine named first where the table holds several (qa365: a 2.55x of sglang read beside vllm's 2.67x)
    under = f"Under {engine}, speculation" if "engine" in df and df["engine"].astype(str).nunique() > 1 else "Speculation"
    gains = (f"{under} gains up to {_x(top['speedup'])}" if pays(top["speedup"]) else
             f"{under} loses at every point that fits{'' if tree else ', even at its best k'}: at best {_x(top['speedup'])}")
    caveat = f"; an upper estimate: {OPTIMISTIC}" if optimistic(top["batch"], engine) else ""
    caveat += f"; it assumes {capped} raised" if (capped := _above_cap_text(top, meta)) else ""
    held = _same_config(points, top, ["hardware", "model", "context", "alpha", *varying])  # the top point's curve over batch
    low = held.loc[held["batch"].idxmin()]
    smallest = ("" if int(low["batch"]) == int(top["batch"]) else
                f" and {_x(low['speedup'])} at batch {int(low['batch']):,} on the same config, "  # not a general batch-1 figure
                f"{'the smallest swept' if int(low['batch']) == int(df['batch'].min()) else 'the smallest that fits there'}"
                + ("" if tree else f" (k = {int(low['k'])})"))
    text = (f"{gains} ({_hw(meta, top['hardware'])}, {_model(meta, top['model'])}"
            f"{_config_text(top, varying, meta)}, batch {int(top['batch']):,}, context {_ctx(top['context'])}, "
            f"{_acceptance_text(top['alpha'], meta)}, k = {int(top['k'])}{caveat}){smallest}; "
            + (f"{at_best}it still loses (speedup below 1) at {len(losing)} of the {len(points)} points that fit"
               # the count spans every config swept, not the one named above (qa105: tp 4 and 8 read as tp 4's)
               + (" across every config swept" if varying else "") + f"{cause}, "
               f"at batch {span('batch', lambda v: f'{int(v):,}')}"
               + ("." if tree or losing["alpha"].isna().all()  # the rates are named above (qa127: "and α per-position rates")
                  else f" and α {span('alpha', lambda v: 'per-position rates' if v != v else f'{v:.3g}')}.")
               if len(losing) and pays(top["speedup"])
               else (f"{len(points)} points fit." if len(points) != 1 else "1 point fits.") if len(losing)
               else f"{at_best}it pays at every point that fits.")
            + _serving_text(top, meta, largest=held.loc[held["batch"].idxmax()])  # the headline's point, named there
            + _compared(df[df["engine"].astype(str) == engine] if "engine" in df else df, points, top, varying, meta,
                        engine, said=bool(caveat))
            + (f" {_list([_model(meta, m) for m in never])} fit{'s' if len(never) == 1 else ''} in memory at no point of the sweep."
               if never else "")
            + _each_method_text(points, top, varying)
            + _other_models_text(points, top, varying, meta, engine, bool(caveat))
            + _cheapest_text(df, top, meta)
            + _measured_slower_text(mine, meta, engine)
            + _mla_contexts_text(_contexts_text(points, mine, top, varying, meta), points, mine, top, ops, meta)
            + _largest_k_text(points, mine, top, varying, meta)
            + _engine_said(df, engine))
    return Finding(title, text, {"best_speedup": float(top["speedup"])})


def _mla_contexts_text(contexts: str, points: pd.DataFrame, rows: pd.DataFrame, top: pd.Series, ops: pd.DataFrame,
                       meta: dict) -> str:
    """`contexts` (_contexts_text), and where it gave the GQA rule for the headline's model (a longer context, more of a
    step speculation's tokens share) and the sweep holds MLA models beside it, whether the rule holds for each
    (mla_attention_text; qa441: DeepSeek-V3's gain fell 2.43x -> 1.62x from 8k to 128k under a sentence saying the
    longer the context the better)."""
    if not contexts.endswith(CONTEXT_RULE) or not len(ops):
        return contexts
    mla = [m for m in dict.fromkeys(points["model"].astype(str))
           if m != str(top["model"]) and (meta.get("kv_layout") or {}).get(m) == "mla"]
    return contexts + "".join(mla_attention_text(m, ops, meta, _fitting_pairs(rows)) for m in mla)


def _serving_text(row: pd.Series, meta: dict, plain: bool = False, largest: pd.Series | None = None) -> str:
    """Where the scenario gives a request (grid.SERVING_COLUMNS), what a serving benchmark reads at `row`, the finding's
    point (qa347: a request's report quoted decode figures alone, 2,846 tokens/s where a benchmark reads 1,028): its
    throughput (plain), or the gain and both times per output token with the other requests' prefills, at its batch
    named, and at the largest batch of its curve that fits (`largest`; qa354: a gain at batch 8 read as the loaded
    one's, said after a sentence of other batches); '' otherwise."""
    if not meta.get("prompt") or "serving_time_per_output_token_s" not in row:
        return ""
    request = f"{int(meta['prompt']):,}-token prompts and {int(meta['output_len']):,} output tokens each"
    plain_s = float(row["baseline_serving_time_per_output_token_s"])
    if plain:
        return (f" A serving benchmark ({request}) reads {_n(row['batch'] / plain_s)} tokens/s there: a time per output "
                f"token of {_n(1e3 * plain_s)} ms with the other requests' prefills, {_n(1e3 * row['step_time_s'])} ms "
                "decoding alone (`roofline cheapest --serving` ranks by it).")
    spec_s = float(row["serving_time_per_output_token_s"])
    loaded = (f"; at batch {int(largest['batch']):,}, the largest swept of that config that fits, "
              f"{_x(largest['serving_speedup'])} (k = {int(largest['k'])}"
              + (f"; an upper estimate: {OPTIMISTIC}" if optimistic(largest["batch"], largest.get("engine", "")) else "") + ")"
              if largest is not None and int(largest["batch"]) > int(row["batch"]) else "")  # (qa355: the caveat unsaid)
    others = ("no other request's prefill at batch 1" if int(row["batch"]) <= 1 else  # (qa355: 'the others' at batch 1;
              "the other requests' prefills included")  # qa356: 'its own prefill', which a time per token leaves out)
    return (f" As a serving benchmark reads that point, at batch {int(row['batch']):,} ({request}), the gain is "
            f"{_x(row['serving_speedup'])}: a time per output token of {_n(1e3 * spec_s)} ms with speculation against "
            f"{_n(1e3 * plain_s)} ms without, {others}{loaded} (`roofline cheapest --serving` ranks by it).")


CONFIG_KEYS_COMPARED = ("hardware", "engine", "tp", "dp_attention", "ep", "pp", "draft_hardware", "weight_dtype",
                        "expert_dtype", "kv_dtype", "shared_prefix")  # (qa349: the cheapest's prefix unnamed, 2x apart)  # (the dtypes: qa319, an fp4-expert pick unnamed beside fp8's gain)


def _cheapest_text(df: pd.DataFrame, top: pd.Series, meta: dict) -> str:
    """' The cheapest per million tokens for that model, context and acceptance, of every engine and layout swept: $0.389 with
    speculation (B200, engine vllm, dp attention 8, ep 8, MTP k = 2, batch 1,024: 20.5 tokens/s per user) and $0.608
    plain (...); each at a large batch, so slow per user: at a speed per user, `roofline cheapest` on the table gives the
    cheapest that reaches it.' where the sweep compares engines, layouts or drafter placements (qa261: a plan over
    layouts and engines was answered of the fastest speedup's layout alone, the cheapest never named); '' where it
    compares none of them (hardware and models alone: _compared gives each one's cost) or has no prices."""
    same_model = df[df["model"].astype(str) == str(top["model"])] if "model" in df else df  # a dtype varies within the
    compared = [c for c in CONFIG_KEYS_COMPARED if c in df and (same_model if c.endswith("_dtype") else df)[c].astype(str)
                .nunique() > 1]  # headline's model (qa320: a dense model's empty expert dtype beside a MoE's read as swept)
    shown = [c for c in compared if c != "hardware"]
    if not shown or "cost_usd_per_million_tokens" not in df:
        return ""
    from roofline.frontier import loadable

    # the headline's model and context (qa263: an 8B model's price was said beside a 70B headline)
    rows = loadable(_same_config(df, top, ["model", "context"]), tuple(meta.get("profiles") or ()), meta)
    # the roofline bound is no deployment's price beside an engine's (qa333: ideal's $1.74 said as the cheapest, where
    # `cheapest` calls it a cost none reaches)
    engines = rows["engine"].astype(str) if "engine" in rows else pd.Series("", index=rows.index)
    bound_left = bool((engines == IDEAL.name).any() and (engines != IDEAL.name).any())
    rows = rows[engines != IDEAL.name] if bound_left else rows
    spec = _same_config(_fits(rows[(rows["k"] > 0) & (rows["method"].astype(str) != "none")]), top, ["alpha"])
    spec = spec[np.isfinite(spec["cost_usd_per_million_tokens"])]
    plain = rows[plain_fits(rows)]
    plain = plain[np.isfinite(plain["baseline_cost_usd_per_million_tokens"])]
    if spec.empty or plain.empty:
        return ""

    def config(r: pd.Series, speculating: bool) -> str:
        method = f", {METHOD_NAMES.get(str(r['method']), r['method'])} k = {int(r['k'])}" if speculating else ""
        return f"{_hw(meta, r['hardware'])}{_config_text(r, shown, meta)}{method}, batch {int(r['batch']):,}"
    s = spec.loc[spec["cost_usd_per_million_tokens"].idxmin()]
    p = plain.loc[plain["baseline_cost_usd_per_million_tokens"].idxmin()]
    cap = _above_cap_text(s, meta)
    caveats = ([f"its cost assumes {cap} raised"] if cap else []) + (
        ["a lower estimate: " + OPTIMISTIC] if optimistic(s["batch"], s["engine"]) else [])  # qa280: cheapest said them
    swept = _list([c.replace("_", " ") + (" (but ideal, the roofline bound, a cost no serving engine reaches)"
                                          if c == "engine" and bound_left else "") for c in compared])
    return (f" The cheapest per million tokens for that model, context and acceptance, of every {swept} "
            f"swept: ${_n(s['cost_usd_per_million_tokens'])} with speculation ({config(s, True)}: "
            f"{_n(s['tokens_per_s_per_user'])} tokens/s per user{''.join('; ' + c for c in caveats)}) and ${_n(p['baseline_cost_usd_per_million_tokens'])} plain "
            f"({config(p, False)}: {_n(p['baseline_tokens_per_s_per_user'])} tokens/s per user); each at a large batch, so "
            "slow per user: at a "
            "speed per user, `roofline cheapest` on the table gives the cheapest that reaches it."
            + _serving_cheapest_text(spec, plain, config, meta))


def _serving_cheapest_text(spec: pd.DataFrame, plain: pd.DataFrame, config, meta: dict) -> str:
    """' Those are steady decoding's; as a serving benchmark prices them (every request's prefill, its own included),
    the cheapest are $X with speculation (config: speed) and $Y plain (...)', each kind's cheapest by its serving cost
    (qa349: the decode-cheapest points unpriced; qa354: priced at serving's costs but not its cheapest, a plain point
    $0.841 where another was $0.709); '' without a request."""
    if not meta.get("prompt") or "serving_cost_usd_per_million_tokens" not in spec:
        return ""
    spec = spec[np.isfinite(spec["serving_cost_usd_per_million_tokens"])]
    plain = plain[np.isfinite(plain["baseline_serving_cost_usd_per_million_tokens"])]
    if spec.empty or plain.empty:
        return ""
    s = spec.loc[spec["serving_cost_usd_per_million_tokens"].idxmin()]
    p = plain.loc[plain["baseline_serving_cost_usd_per_million_tokens"].idxmin()]
    cap = _above_cap_text(s, meta)  # as the decode-cheapest sentence says them (qa355, qa356: unsaid here)
    caveat = (f"; its cost assumes {cap} raised" if cap else "") + (
        f"; a lower estimate: {OPTIMISTIC}" if optimistic(s["batch"], s["engine"]) else "")
    return (f" Those are steady decoding's; priced as a serving benchmark reads each kind (every request's prefill, its "
            f"own included), the cheapest are ${_n(s['serving_cost_usd_per_million_tokens'])} with speculation ({config(s, True)}: "
            f"{_n(1 / s['serving_time_per_output_token_s'])} tokens/s per user{caveat}) and "
            f"${_n(p['baseline_serving_cost_usd_per_million_tokens'])} plain ({config(p, False)}: "
            f"{_n(1 / p['baseline_serving_time_per_output_token_s'])} tokens/s per user; `roofline cheapest --serving` "
            "ranks by them).")


def _each_method_text(points: pd.DataFrame, top: pd.Series, varying: list[str]) -> str:
    """' On the same config and context, EAGLE gains up to 2.12x (batch 1, k = 3).' for each other drafting method the
    sweep compares, at its best point there (qa256: a scenario of n-gram against EAGLE was answered of n-gram alone);
    '' where one method is swept."""
    if "method" not in varying:
        return ""
    same = _same_config(points, top, ["hardware", "model", "context", "alpha", *(c for c in varying if c != "method")])
    parts = []
    for method, rows in same.groupby(same["method"].astype(str), sort=False):
        if method != str(top["method"]):
            best = rows.loc[rows["speedup"].idxmax()]
            parts.append(f"{METHOD_NAMES.get(method, method)} {'gains up to' if pays(best['speedup']) else 'at best'} "
                         f"{_x(best['speedup'])} (batch {int(best['batch']):,}"
                         + ("" if best["k"] < 0 else f", k = {int(best['k'])}") + ")")  # a tree: no best k (-1)
    methods = set(same["method"].astype(str))
    shared = ("ngram" in methods and len(methods) > 1 and "alpha" in same and same["alpha"].notna().any())
    unlike = (" N-gram lookup shares an alpha with the drafters here: its acceptance is the workload's repetition "
              "(prompts the output copies), not a drafter's skill, so one alpha for both compares unlike things."
              if shared else "")  # qa342: n-gram crowned at alpha 0.9 in a chat plan, as cheapest says it (qa91)
    return f" On the same config and context, {_list(parts)}.{unlike}" if parts else ""


def _other_models_text(points: pd.DataFrame, top: pd.Series, varying: list[str], meta: dict, engine: str,
                       caveat_said: bool) -> str:
    """' Llama 3.1 70B (EAGLE): up to 1.62× (H200 SXM, batch 1, k = 3); it loses at 12 of its 80 points that fit.' for
    each other model the sweep speculates on, at its best point (qa309: a plan of DeepSeek-V3 with MTP and Llama 3.1
    70B with EAGLE was answered of DeepSeek alone, the 70B named nowhere); '' where one model is. `points` are each
    config's points at their best k, as the headline's count."""
    parts = []
    for model, rows in points.groupby(points["model"].astype(str), sort=False):
        if model == str(top["model"]):
            continue
        best = rows.loc[rows["speedup"].idxmax()]
        losing = int((~pays(rows["speedup"])).sum())
        methods = _list([METHOD_NAMES.get(m, m) for m in dict.fromkeys(rows["method"].astype(str))])
        several = rows["method"].astype(str).nunique() > 1  # its best point's method, context and acceptance where the
        # model's points have several (qa312: n-gram's 1.95x said under 'EAGLE and n-gram lookup', alpha unnamed)
        where = (f"{_hw(meta, best['hardware'])}{_config_text(best, [c for c in varying if c != 'method'], meta)}"
                 + (f", {METHOD_NAMES.get(str(best['method']), best['method'])}" if several else "")
                 + f", batch {int(best['batch']):,}"
                 + (f", context {_ctx(best['context'])}" if rows["context"].nunique() > 1 else "")
                 + (f", {_acceptance_text(best['alpha'], meta)}" if rows["alpha"].nunique() > 1 else "")
                 + ("" if best["k"] < 0 else f", k = {int(best['k'])}"))  # a tree: no k
        if optimistic(best["batch"], engine):
            where += "; an upper estimate" + (", as above" if caveat_said else f": {OPTIMISTIC}")
        if not pays(best["speedup"]):
            parts.append(f"{_model(meta, model)} ({methods}) loses at every point that fits: at best {_x(best['speedup'])} ({where}).")
            continue
        parts.append(f"{_model(meta, model)} ({methods}): up to {_x(best['speedup'])} ({where}); "
                     + (f"it loses at {losing:,} of its {len(rows):,} points that fit." if losing else
                        "it pays at every point that fits."))
    return "".join(" " + p for p in parts)


CONTEXT_RULE = ("each verify pass reads a sequence's cache once for its k + 1 tokens, so the longer the context, the more "
                "of a step speculation's tokens share.")


def _contexts_text(points: pd.DataFrame, rows: pd.DataFrame, top: pd.Series, varying: list[str], meta: dict) -> str:
    """Where the sweep varies the context, how the top point's config moves with it (qa243: the long-context scenario's
    finding never spoke of context): ' Over contexts 4k to 128k on the headline's config, the gain at batch 1 rises from 2.2x to
    2.41x and at batch 8, the largest swept that fits at both, from 2.31x to 2.92x, while the KV cache takes the largest
    batch memory holds from 432 to 13 (plain decoding): each verify pass reads a sequence's cache once for its k + 1
    tokens, so the longer the context, the more of a step speculation's tokens share.' Each clause compares one batch
    (qa423: 2.42x at batch 256 against 3.16x at batch 64 read as the context's doing, the batch's mostly). '' where one
    context is swept."""
    held = _same_config(points, top, ["hardware", "model", "alpha", *varying])
    contexts = sorted(held["context"].unique())
    if len(contexts) < 2:
        return ""
    lo, hi = held[held["context"] == contexts[0]], held[held["context"] == contexts[-1]]
    b0 = int(held["batch"].min())
    first, last = lo[lo["batch"] == b0], hi[hi["batch"] == b0]
    gain, rises = "", False
    word = "gain" if pays(held["speedup"]).any() else "speedup"  # (qa250: a 0.75x 'gain')

    def moves(a: float, b: float) -> str:
        return "holds at" if _n(a) == _n(b) else "rises from" if b > a else "falls from"

    if len(first) and len(last):
        a, b = float(first["speedup"].iloc[0]), float(last["speedup"].iloc[0])
        verb = moves(a, b)
        gain = f"the {word} at batch {b0:,} {verb} {_x(a)}" + ("" if verb == "holds at" else f" to {_x(b)}")
        rises = verb == "rises from" and pays(b)
    both = sorted(set(lo["batch"].astype(int)) & set(hi["batch"].astype(int)))  # a batch that fits at both contexts
    if both and both[-1] != b0:  # its own verb (qa301: 2.75x to 2.31x said to rise, after a batch-1 gain's 2.63x to
        # 2.64x, and explained as one)
        bc = both[-1]
        a = float(lo.loc[lo["batch"] == bc, "speedup"].iloc[0])
        b = float(hi.loc[hi["batch"] == bc, "speedup"].iloc[0])
        verb = moves(a, b)
        rises = rises and verb != "falls from"
        gain += ((" and " if gain else f"the {word} ") + f"at batch {bc:,}, the largest swept that fits at both, "
                 + (f"holds at {_x(a)}" if verb == "holds at" else f"{verb.split()[0]} from {_x(a)} to {_x(b)}"))
    same = _same_config(rows, top, ["hardware", "model", "alpha", *varying])
    caps = same.groupby("context")["baseline_max_batch"].min()
    return (f" Over contexts {_ctx(contexts[0])} to {_ctx(contexts[-1])} on the headline's config, {gain}, while the KV cache takes the "
            f"largest batch memory holds from {int(caps.get(contexts[0], 0)):,} to {int(caps.get(contexts[-1], 0)):,} (plain "
            "decoding)" + (f": {CONTEXT_RULE}" if rises else "."))


def _largest_k_text(points: pd.DataFrame, rows: pd.DataFrame, top: pd.Series, varying: list[str], meta: dict) -> str:
    """' k = 6, the largest swept, is the best k at 21 of the 25 points that fit on the headline's config: a larger k may give
    more.' where the top point's k is the largest swept (a chain of a method other than MTP, whose k past its trained
    modules is said elsewhere); '' else (qa248: fast-tier's k = 6 at every point went unsaid, and the count read as the
    sweep's)."""
    held = _same_config(points, top, ["hardware", "model", "alpha", *varying])
    k_top = int(rows["k"].max())
    at_top = int((held["k"] == k_top).sum())
    if (meta.get("tree_nodes") or not at_top or int(top["k"]) != k_top or str(top.get("method", "")) == "mtp"
            or not pays(top["speedup"])):  # where it loses, a larger k drafts more tokens that are thrown away
        return ""
    where = "its best k" if len(held) == 1 else f"the best k at {at_top:,} of the {len(held):,} points that fit on the headline's config"
    return f" k = {k_top}, the largest swept, is {where}: a larger k may give more."


def _same_config(rows: pd.DataFrame, row: pd.Series, columns: list[str]) -> pd.DataFrame:
    """The `rows` of `row`'s values in `columns` (alpha NaN, where rates stand for it, matches NaN)."""
    keep = np.ones(len(rows), dtype=bool)
    for c in columns:
        keep &= (rows[c].isna() if c == "alpha" and row[c] != row[c] else
                 rows[c] == row[c] if c == "alpha" else rows[c].astype(str) == str(row[c])).to_numpy()
    return rows[keep]


def _layout_text(row: pd.Series) -> str:
    """'tp 8' or 'tp 1, dp-attention 8, ep 8': a row's layout, as predict writes it (layout.describe_layout)."""
    from roofline.layout import describe_layout

    return describe_layout(**{c: int(row[c]) for c in LAYOUT_KEYS if c in row.index})


def _layout_instead_text(row: pd.Series, top: pd.Series, layout: list[str]) -> str:
    """'tp 4; tp 1 does not fit' or 'tp 1, pp 2; pp 1 does not fit': the layout a side takes (_layout_text), then the
    peak's degrees it differs in (all of them were 'tp 1' of a pp 1 peak, describe_layout leaving pp 1 out)."""
    differ = [f"{c.replace('_', '-')} {int(top[c])}" for c in layout if int(row[c]) != int(top[c])]
    return f"{_layout_text(row)}; {', '.join(differ)} does not fit"


def _smallest_layout(rows: pd.DataFrame, top: pd.Series, layout: list[str], compared: list[str], meta: dict):
    """(which of `rows` are at its smallest layout where plain decoding fits, by devices: a boolean Series; its label
    '4 × H100 SXM5 (tp 4; tp 1 does not fit)') for a compared side where `top`'s layout fits nowhere (qa431)."""
    fitting = rows[plain_fits(rows)]
    smallest = fitting.loc[fitting["devices"].idxmin()] if "devices" in fitting else fitting.iloc[0]
    at = (rows[layout].astype(str) == smallest[layout].astype(str).to_numpy()).all(axis=1)
    return at, f"{_deployment_label(smallest, compared, meta)} ({_layout_instead_text(smallest, top, layout)})"


def _deployment_label(row: pd.Series, compared: list[str], meta: dict) -> str:
    """'8 × H200 SXM' (with the model where models are compared): one side of a comparison of hardware or models."""
    devices = int(row["devices"]) if "devices" in row.index else _tp(meta)
    return f"{devices} × {_hw(meta, row['hardware'])}" + (f" with {_model(meta, row['model'])}" if "model" in compared else "")


def _compared_plain(mine: pd.DataFrame, top: pd.Series, meta: dict) -> str:
    """' At the largest swept batch that fits on each (context 4,096, tp 8): 8 × H100 SXM5: 5,400 tokens/s at batch 256 ($1.20
    per million tokens); ...' where a sweep without speculation compares hardware or models (`mine`: the engine's rows,
    fitting or not), at the peak's context and config (its other varying columns held, as _compared holds them); a side
    where that layout fits nowhere takes its smallest layout that fits ('4 × H100 SXM5 (tp 4; tp 1 does not fit)'),
    one where nothing fits says so (qa431: dropped unsaid); '' where it compares neither."""
    compared = [c for c in ("hardware", "model") if mine[c].astype(str).nunique() > 1]
    if not compared:
        return ""
    # plain decoding is the same under any method and drafter placement: a model swept with another method is compared
    # (qa437: Llama 405B with EAGLE beside 8B with none, fitting nowhere, dropped unsaid as 'method none' was held)
    held = [c for c in _varying(mine) if c not in ("hardware", "model", "method", "draft_hardware")]
    layout = [c for c in LAYOUT_KEYS if c in held]
    loose = [c for c in held if c not in layout]
    at_context = [c for c in ("context",) if c in mine]
    rows = _same_config(mine, top, [*at_context, *held])
    wide = _same_config(mine, top, [*at_context, *loose]) if layout else rows
    parts = []
    for key in dict.fromkeys(wide[compared].astype(str).itertuples(index=False, name=None)):
        group = rows[(rows[compared].astype(str) == list(key)).all(axis=1)]
        group = group[plain_fits(group)]
        others = wide[(wide[compared].astype(str) == list(key)).all(axis=1)]
        label = _deployment_label((group if len(group) else others).iloc[0], compared, meta)
        if group.empty and layout and plain_fits(others).any():  # its smallest layout that fits, said with the peak's
            at, label = _smallest_layout(others, top, layout, compared, meta)
            group = others[at & plain_fits(others)]
        if group.empty:
            parts.append(f"{label}: nothing fits")
            continue
        r = group.loc[group["batch"].idxmax()]
        cost = r.get("baseline_cost_usd_per_million_tokens")
        price = f" (${_n(cost)} per million tokens)" if cost is not None and cost == cost else " (no price)"
        cap = int(r["baseline_max_batch"]) if "baseline_max_batch" in r.index else 0
        held_by = f", memory holding {cap:,}" if cap > int(r["batch"]) else ""
        parts.append(f"{label}: {_n(r['baseline_tokens_per_s'])} tokens/s at batch {int(r['batch']):,}{held_by}{price}")
    at = ", ".join([f"context {int(top['context']):,}"] * bool(at_context) + [_config_text(top, held, meta).lstrip(", ")] * bool(held))
    return f" At the largest swept batch that fits on each ({at}): " + "; ".join(parts) + "."


def _compared(d: pd.DataFrame, points: pd.DataFrame, top: pd.Series, varying: list[str], meta: dict, engine: str,
              said: bool) -> str:
    """' At the largest swept batch that fits on each: 8 × H200 SXM: 9,870 tokens/s plain and 12,300 with speculation at
    batch 256, memory holding 432 ($0.91 and $0.73 per million tokens); 8 × MI300X ...' where the sweep compares
    hardware or models (`d`: the
    engine's rows; `points`: each drafting point at its best k), at the top point's context, alpha and config; '' where
    it compares neither. `said`: OPTIMISTIC was said already (the headline), so a large batch here only refers to it."""
    compared = [c for c in ("hardware", "model") if d[c].astype(str).nunique() > 1]
    if not compared:
        return ""
    # a layout only plain decoding runs (speculation refused at pp > 1) varies among the plain rows alone: held too
    # (qa466: tp 2 pp 2's 1,583 tokens/s on 4 devices said beside tp 2's speculation on 2, as '2 x H100 SXM5')
    varying = [*varying, *[c for c in LAYOUT_KEYS if c in d and c not in varying and d[c].astype(str).nunique() > 1]]
    rows = _same_config(d, top, ["context", *varying])  # plain decoding's columns: any alpha and k
    spec = _same_config(points, top, ["context", "alpha", *varying])
    layout = [c for c in LAYOUT_KEYS if c in varying]  # a side where the headline's layout fits nowhere takes its
    loose = [c for c in varying if c not in layout]  # smallest layout that fits (qa431: 'nothing fits' of H100 and H200
    wide_rows = _same_config(d, top, ["context", *loose]) if layout else rows  # at the headline's tp 1, which fit at 2-8)
    wide_spec = _same_config(points, top, ["context", "alpha", *loose]) if layout else spec
    parts, late = [], False
    for key in dict.fromkeys(rows[compared].astype(str).itertuples(index=False, name=None)):
        mine = rows[(rows[compared].astype(str) == list(key)).all(axis=1)]
        drafts = spec[(spec[compared].astype(str) == list(key)).all(axis=1)]
        plain = mine[plain_fits(mine)]
        label = _deployment_label(mine.iloc[0], compared, meta)
        others = wide_rows[(wide_rows[compared].astype(str) == list(key)).all(axis=1)]
        if plain.empty and layout and plain_fits(others).any():  # its smallest layout that fits, said with the
            at, label = _smallest_layout(others, top, layout, compared, meta)  # headline's that does not
            mine = others[at]
            smallest_layout = mine[layout].iloc[0].astype(str).to_numpy()
            drafts = wide_spec[(wide_spec[compared].astype(str) == list(key)).all(axis=1)
                               & (wide_spec[layout].astype(str) == smallest_layout).all(axis=1)]
            plain = mine[plain_fits(mine)]
        if plain.empty:
            parts.append(f"{label}: nothing fits")
            continue
        p = plain.loc[plain["batch"].idxmax()]
        if drafts.empty:  # no k > 0 fits, or (qa431) none swept: a model whose method is none beside drafting ones
            drafting = ((mine["method"].astype(str) != "none") & (mine["k"] > 0)).any()
            cost = p["baseline_cost_usd_per_million_tokens"]
            parts.append(f"{label}: {_n(p['baseline_tokens_per_s'])} tokens/s plain at batch {int(p['batch']):,} ("
                         + ("no drafting k fits" if drafting else "no speculation swept")
                         + (f"; ${_n(cost)} per million tokens" if np.isfinite(cost) else "") + ")")
            continue
        sp = drafts.loc[drafts["batch"].idxmax()]
        late |= optimistic(sp["batch"], engine)
        capped = _above_cap_text(sp, meta)  # (qa365: sglang's batch 256 with speculation, its cap of 48 unsaid)
        b_plain, b_spec = int(p["batch"]), int(sp["batch"])  # each at its own largest where the drafter takes memory
        cap = int(p["baseline_max_batch"]) if "baseline_max_batch" in p.index else 0  # (qa248: read as memory's limit)
        spec_cap = int(sp["max_batch"]) if "max_batch" in sp.index else cap  # with the drafter (qa281: 108 was plain's)
        held = (f", memory holding {cap:,}" if spec_cap == cap else
                f", memory holding {cap:,} plain and {spec_cap:,} with speculation")
        text = (f"{label}: {_n(p['baseline_tokens_per_s'])} tokens/s plain{'' if b_plain == b_spec else f' at batch {b_plain:,}'} and "
                f"{_n(sp['tokens_per_s'])} with speculation at batch {b_spec:,}" + (f", {capped} raised" if capped else "")
                + (held if cap > b_plain or spec_cap > b_spec else ""))  # (qa441: plain at 64, its cap, beside speculation
        # at 32, capped at 63, said no cap)
        costs = [p["baseline_cost_usd_per_million_tokens"], sp["cost_usd_per_million_tokens"]]
        text += (f" (${_n(costs[0])} and ${_n(costs[1])} per million tokens)" if all(np.isfinite(costs)) else
                 f" (${_n(costs[0])} per million tokens plain; the drafter's device has no price)" if np.isfinite(costs[0]) else
                 " (no price in its profile)")
        parts.append(text)
    held = [f"context {_ctx(top['context'])}"] if d["context"].nunique() > 1 else []
    held += [f"α = {top['alpha']:g}"] if d["alpha"].nunique() > 1 and top["alpha"] == top["alpha"] else []
    config = [c for c in varying if c not in ("hardware", "model")]  # the layout, engine, dtypes the figures hold
    held += [_config_text(top, config, meta).lstrip(", ")] if config else []
    caveat = ("; the figures with speculation are optimistic, as above" if said else
              f"; read the figures with speculation as favourable: {OPTIMISTIC}") if late else ""
    return f" At the largest swept batch that fits on each{' (' + ', '.join(held) + ')' if held else ''}: {'; '.join(parts)}{caveat}."


# the config columns each question compares by design (its built-in scenario's lists); a user's scenario of that name
# that varies another is answered on its first value of it (question_rows), the figure likewise
QUESTION_CONFIGS = {
    "verify-mini-prefill": ("hardware", "model", "engine"), "flops-vs-time": (), "break-even-batch": ("hardware", "method"),
    "batch-vs-speculation": (), "kv-caps-batch": ("hardware", "model", "method", "expert_dtype"),
    "shared-prefix": ("shared_prefix",), "draft-offload": ("hardware", "draft_hardware"),
    # a tier is the cheapest way to a speed on a GPU: over every layout, dtype, method and drafter placement swept
    "fast-tier-premium": ("hardware", "method", "tp", "dp_attention", "ep", "pp", "weight_dtype", "expert_dtype", "kv_dtype",
                          "draft_hardware"),
    "prefill-not-sped-up": (),
}


QUESTION_ALPHAS = ("flops-vs-time", "break-even-batch")  # the questions that compare acceptance rates; the others
ALPHA_HELD = 0.8  # read at one: the swept one nearest this (the built-in questions' own), the lower of two as near
QUESTION_ONE_CONTEXT = ("fast-tier-premium",)  # a tier's price at one workload: its first swept context (qa283: tiers
#   mixed 2k's cheapest with 8k's, the context unsaid)


# what each question's finding reads from its sweep beyond its columns (its built-in scenario has each); a user's
# scenario of that name without one gets the generic finding and figure, saying which (shape_problem)
QUESTION_NEEDS = {
    "verify-mini-prefill": ("chain", "widths"), "flops-vs-time": ("chain", "plain", "drafting"),
    "break-even-batch": ("drafting", "batches"), "batch-vs-speculation": ("drafting", "batches"),
    "kv-caps-batch": ("drafting", "batches"), "shared-prefix": ("drafting", "prefixes"), "draft-offload": ("drafting", "placements"),
    "fast-tier-premium": ("drafting",), "prefill-not-sped-up": ("chain", "plain", "drafting"),
}
NEEDS = {  # name: (test of the question's rows and meta, what it asks for)
    "chain": (lambda df, meta: not meta.get("tree_nodes"), "a chain of drafts, each pass k + 1 tokens wide, not a tree"),
    "widths": (lambda df, meta: df["k"].nunique() >= 2, "at least two draft lengths k"),
    "plain": (lambda df, meta: bool((df["k"] == 0).any()), "k = 0 among the draft lengths, for plain decoding's own rows"),
    "drafting": (lambda df, meta: bool((df["k"] > 0).any()), "a drafting method with a draft length k > 0"),
    "batches": (lambda df, meta: df["batch"].nunique() >= 2, "at least two batch sizes"),
    "prefixes": (lambda df, meta: "shared_prefix_tokens" in df and df["shared_prefix_tokens"].nunique() >= 2,
                 "at least two shared_prefix lengths, e.g. shared_prefix: [0, 32768]"),
    "placements": (lambda df, meta: "draft_placement" in df and df["draft_placement"].nunique() >= 2,
                   "at least two drafter placements, e.g. draft_hardware: [null, l4]"),
}


def shape_problem(name: str, df: pd.DataFrame, meta: dict) -> str:
    """What question `name` needs that its rows (question_rows) lack, as one clause ('it needs at least two batch
    sizes and ...'), or '' where it has all of QUESTION_NEEDS[name] (or is no question)."""
    missing = [what for need in QUESTION_NEEDS.get(name, ()) for test, what in [NEEDS[need]] if not test(df, meta)]
    return f"it needs {_list(missing)}" if missing else ""


def _first_fitting(df: pd.DataFrame, text: pd.Series, values: list, compared: tuple = ()):
    """The value a question holds of a column (`values`, `text` its rows' values as text): the first under which a row
    of every `compared` value (each device a question compares) fits in memory at every context swept, else at some
    context, else the first under which some row fits, else the first (qa361: tp 1 held, where a 70B model fits on no H100 or H200, over tp 4 where it fits on all)."""
    if "fits_in_memory" not in df:
        return values[0]
    fits = df["fits_in_memory"].astype(bool)
    compared = [c for c in compared if c in df]
    tiers = ([[*compared, "context"]] if "context" in df and "context" not in compared else []) + [compared]
    for columns in (c for c in tiers if c):  # every device at every context first (qa363: tp 2 held, fitting at 4k,
        every = len(df[columns].drop_duplicates())  # where the finding reads 32k), then every device at some context
        for v in values:
            if len(df.loc[fits & (text == str(v)), columns].drop_duplicates()) == every:
                return v
    return next((v for v in values if (fits & (text == str(v))).any()), values[0])


def question_rows(name: str, df: pd.DataFrame, ops: pd.DataFrame, meta: dict) -> tuple[pd.DataFrame, pd.DataFrame, dict, str]:
    """The rows a report question answers on, its operators' rows, its meta, and a sentence naming what was set aside:
    for a question of QUESTION_CONFIGS, every other config column the sweep varies (hardware, model, engine, tp,
    dtypes, ...) held at its first value under which a batch fits in memory (_first_fitting; the engine at main_engine),
    in the meta as in the rows, so that its finding
    and figure describe one config each, not an average of several; a column whose value follows the compared ones
    (each model's native dtype, where the question compares models) is not held, and a question that does not
    compare acceptance rates reads one alpha (the swept one nearest ALPHA_HELD), one of QUESTION_ONE_CONTEXT its first
    swept context. Any other name: everything, ''."""
    if name not in QUESTION_CONFIGS:
        return df, ops, meta, ""
    kept, meta = [], dict(meta)
    by_model = "model" in QUESTION_CONFIGS[name] and "model" in df and df["model"].nunique() > 1  # each keeps its own rows
    models_before = list(dict.fromkeys(df["model"].astype(str))) if "model" in df else []
    from roofline.layout import layouts_of_rows

    layouts_before = layouts_of_rows(df) if "tp" in df else []
    methods = set(df["method"].astype(str)) if "method" in df else set()
    if "method" in QUESTION_CONFIGS[name] and "none" in methods and len(methods) > 1:  # it compares drafting methods:
        drafting = df["method"].astype(str) != "none"  # plain decoding is their k = 0 rows and baseline columns, but for
        if by_model:  # a compared model that does not draft: its plain rows are its answer
            drafting |= ~df["model"].astype(str).isin(set(df.loc[drafting, "model"].astype(str)))
        df = df[drafting]
        kept.append("the drafting methods (plain decoding as their baseline)")
    held_layout, layout_said = False, []  # a layout column held, and what kept says of each
    for column in ("hardware", "model", *CONFIG_COLUMNS):
        if column in QUESTION_CONFIGS[name] or column not in df or df[column].astype(str).nunique() < 2:
            continue
        text = df[column].astype(str)
        values = list(dict.fromkeys(df[column].tolist()))
        if by_model and column not in ("hardware", "model", "engine"):  # each model its own first value: none is dropped
            # (the engine is the table's main one, as every other section reads it: qa99 found ideal here, vllm there)
            if (df.assign(_v=text).groupby(df["model"].astype(str))["_v"].nunique() < 2).all():
                continue  # it follows the compared models (each one's native weight dtype): nothing to hold
            firsts = pd.Series({m: _first_fitting(rows, rows[column].astype(str), list(dict.fromkeys(rows[column].tolist())),
                                                  tuple(c for c in QUESTION_CONFIGS[name] if c != "model"))
                                for m, rows in df.groupby(df["model"].astype(str), sort=False)}).astype(str)
            df = df[text == df["model"].astype(str).map(firsts)]
            if column in meta:  # qa267: a figure's title named every value, the ones set aside too
                meta[column] = [v for v in values if str(v) in set(firsts)]
            kept.append(f"{column.replace('_', ' ')}: each model's first where it fits in memory (of "
                        f"{', '.join(str(v) if str(v) else 'none' for v in values)})")
            if column in ("tp", "dp_attention", "ep", "pp"):
                held_layout, layout_said = True, [*layout_said, kept[-1]]
            continue
        first = (main_engine(df) if column == "engine" else
                 next((v for v in values if v != "none"), values[0]) if column == "method" else  # a drafting one
                 _first_fitting(df, text, values, QUESTION_CONFIGS[name]))  # qa361: tp 1 of a 70B model held
        df = df[text == str(first)]
        if column in ops:
            ops = ops[ops[column].astype(str) == str(first)]
        if column in meta and column not in ("hardware", "model"):  # those two map names to display names
            meta[column] = [first]
        kept.append(f"{column.replace('_', ' ')} {first if str(first) else 'none'} "
                    + ("the first where it fits in memory " if column not in ("engine", "method") and str(first) != str(values[0])
                       else "")
                    + f"(of {', '.join(str(v) if str(v) else 'none' for v in values)})")
        if column in ("tp", "dp_attention", "ep", "pp"):
            held_layout, layout_said = True, [*layout_said, kept[-1]]
    if "layouts" in meta and "tp" in df:  # the layouts the held rows keep (a figure's title names them)
        meta["layouts"] = layouts_of_rows(df)
        if held_layout and any("," in layout for layout in layouts_before):  # the layout as a whole, not its tp alone
            # ('tp 1' of DP-attention 8 + EP 8), said once (qa280: 'tp 8 (of 8, 1) and the layout tp 8')
            kept = [k for k in kept if k not in layout_said]
            kept.append(f"the layout {' / '.join(meta['layouts'])} (of {' / '.join(layouts_before)})")
    lost = [m for m in models_before if by_model and m not in set(df["model"].astype(str))]
    if lost:  # a compared model without rows at the values held: said, not dropped in silence
        kept.append(f"no row of {_list(lost)}")
    alphas = sorted(df["alpha"].dropna().unique()) if "alpha" in df and name not in QUESTION_ALPHAS else []
    if len(alphas) > 1:  # one acceptance rate: a sentence (and the figure) about one, not numbers of several mixed
        # the swept one nearest ALPHA_HELD; of two as near the lower, the less favourable, said (qa336: 0.7 and 0.9
        # read at 0.9 by a rounding, unsaid)
        held = min(alphas, key=lambda a: (round(abs(a - ALPHA_HELD), 9), a))
        tied = [a for a in alphas if a != held and round(abs(a - ALPHA_HELD), 9) == round(abs(held - ALPHA_HELD), 9)]
        df = df[(df["alpha"] == held) | df["alpha"].isna()]
        kept.append(f"α = {held:g} (of {', '.join(f'{a:g}' for a in alphas)}"
                    + (f"; {held:g} and {tied[0]:g} as near {ALPHA_HELD:g}: the lower, the less favourable" if tied else "") + ")")
    contexts = list(dict.fromkeys(df["context"])) if "context" in df and name in QUESTION_ONE_CONTEXT else []
    if len(contexts) > 1:
        df = df[df["context"] == contexts[0]]
        if "context" in ops:
            ops = ops[ops["context"] == contexts[0]]
        kept.append(f"context {int(contexts[0]):,} (of {', '.join(f'{int(c):,}' for c in contexts)})")
    def varied(c: str) -> bool:  # qa267, qa270: by the sweep, not only by following the compared models (their dtypes)
        text = df[c].astype(str)
        return text.nunique() > 1 and (c == "model" or not by_model or (text.groupby(df["model"].astype(str)).nunique() > 1).any())

    compared = _list([c.replace('_', ' ') for c in QUESTION_CONFIGS[name] if c in df and varied(c)])
    note = ((f" This question compares {compared}; its answer" if compared else " This question reads one config: its answer")
            + f" and figure hold {_list(kept)}, and the table holds every row." if kept else "")
    others = [m for m in models_before if not by_model and m not in set(df["model"].astype(str))] if "model" in df else []
    if note and others and meta.get("scenario"):  # qa336: the other model's answer is a copy's report, named
        scenario = str(meta["scenario"])
        source = _scenario_source(scenario, meta.get("scenario_file"))
        by_model = meta.get("method_by_model") or {}  # a per-model method map: the copy's one model's method (qa339)
        method = f" --set method={shlex.quote(str(by_model[others[0]]))}" if others[0] in by_model else ""
        note += (f" Another model's answer: `roofline scenarios new {shlex.quote(scenario + '-2')} --from {shlex.quote(source)} "
                 f"--set model={shlex.quote(others[0])}{method}`, then `roofline report {shlex.quote(scenario + '-2')}`.")  # (qa341:
        #   a path with a space, unquoted)
    return df, ops, meta, note


def _scenario_source(name: str, file: str | None) -> str:
    """How `scenarios new --from` finds the scenario a report read: its name where that finds this file (a shipped or
    user scenario), else the file's path (qa339: a scenario run from a file was suggested by name, refused)."""
    from roofline.scenario import load_scenario

    if not file:
        return name
    try:
        found = load_scenario(name).path
    except RooflineError:
        found = None
    return name if found and Path(found).resolve() == Path(file).resolve() else file


FINDINGS = {
    "verify-mini-prefill": verify_mini_prefill, "flops-vs-time": flops_vs_time, "break-even-batch": break_even_batch,
    "batch-vs-speculation": batch_vs_speculation, "kv-caps-batch": kv_caps_batch, "shared-prefix": shared_prefix,
    "draft-offload": draft_offload, "fast-tier-premium": fast_tier_premium, "prefill-not-sped-up": prefill_not_sped_up,
}


def finding(name: str, df: pd.DataFrame, ops: pd.DataFrame, meta: dict, strict: bool = True) -> Finding:
    """The finding of scenario `name` (the generic one for a scenario the report has no question for). Not `strict`
    (a user's scenario named like a question, of another shape than the question's own), a question whose sweep
    lacks what it reads (shape_problem), or whose finding cannot be computed from it, gives the generic finding and
    says so, instead of a poor answer or a failed report."""
    question = FINDINGS.get(name)
    if question is None:
        return generic(df, ops, meta)
    if strict:
        return question(df, ops, meta)
    problem = shape_problem(name, df, meta)
    if _fits(df).empty and not plain_fits(df).any():  # nothing to read, plain decoding included, whatever the axes
        # (qa125: said as the axes' fault, with numpy's words; qa126: not where plain decoding fits and k = 0 is unswept)
        f = generic(df, ops, meta)
        return replace(f, numbers={**f.numbers, "fallback": "nothing of this sweep fits in device memory"})
    try:
        if problem:
            raise Unanswerable(problem)
        return question(df, ops, meta)
    except (IndexError, KeyError, ValueError, ZeroDivisionError, TypeError) as exc:
        f = generic(df, ops, meta)  # numbers["fallback"]: the report draws the generic figure beside it, and warns
        why = f": {exc}" if isinstance(exc, Unanswerable) else ""  # a finding's own sentence; not numpy's or pandas' words
        return Finding(f.title, f.text + f" (The {name} question's own finding could not be read from this sweep{why}, so "
                                         "it is the generic finding.)",
                       {**f.numbers, "fallback": str(exc) if isinstance(exc, Unanswerable) else "its finding could not be "
                        "read from this sweep's rows", "error": f"{type(exc).__name__}: {exc}"})
