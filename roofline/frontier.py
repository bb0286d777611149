"""The cheapest way to serve a speed: a sweep's cost frontier (`roofline cheapest`).

Of a results table's rows that fit in memory, have a cost (every device they run on priced) and load (refused_layouts:
the layouts vLLM and SGLang refuse, layout.shard_note, and an engine on a device it does not run on, worked out from the
table's own columns), a row is on the frontier when no other row is at least as fast per user and cheaper:

    sorted by tokens_per_s_per_user, fastest first (the cheaper first among equals), a row is kept where its
    cost_usd_per_million_tokens is below the cost of every row before it

The frontier is taken twice, over plain decoding (k = 0 or method none, and the plain point every speculative row
carries in its baseline_* columns) and over speculation (k > 0), so the two can be read side by side;
cheapest(df, speed) is, for each, the cheapest row at least `speed` tokens/s per user. For a number of users served at
once (fleet_picks), the cheapest fleet instead: over every such row, not the frontier's alone,

    replicas = ceil(users / B),   fleet rent = replicas x the row's rent an hour (its devices x the sweep's price)

replicas of one configuration: the pick by cost per token can need more devices for those users than a slower row.
Costs are the tables' own: decoding only (no prefill), the profiles' prices a device-hour times the devices the row
runs on (a drafter's device included while it drafts). A speculative row's speed rests on its acceptance (alpha),
an input: a table of several alphas mixes assumptions, which frontier_notes says.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import re
from pathlib import Path

import numpy as np
import pandas as pd

from roofline.errors import RooflineError, UnknownName
from roofline.hardware import _is_number
from roofline.layout import describe_layout
from roofline.serving import (
    OPTIMISTIC,
    OPTIMISTIC_BATCH,
    PREFILL_SHARE_QUEUES,
    drafting_word,
    engine_layout_note,
    for_engine,
    optimistic,
    stage_split_dense_note,
)
from roofline.speculation import PP_SPECULATION, VOCAB_HEADS
from roofline.units import format_given, format_significant, is_finite, spoken_list

SPEED = "tokens_per_s_per_user"
COST = "cost_usd_per_million_tokens"
REQUIRED = (SPEED, COST, "fits_in_memory", "method", "k", "hardware", "model", "engine", "batch", "context", "tp")
KINDS = ("plain", "speculation")
CONFIG = ("hardware", "model", "engine", "weight_dtype", "expert_dtype", "kv_dtype", "tp", "dp_attention", "ep", "pp",
          "shared_prefix", "batch", "context")  # what one plain-decoding point is, whatever was swept beside it
BASELINE = ("baseline_tokens_per_s_per_user", "baseline_cost_usd_per_million_tokens", "baseline_max_batch")
SPECULATIVE_ONLY = ("draft_time_s", "verify_time_s", "transfer_time_s", "overhead_time_s", "bytes_per_token",
                    "wasted_flops_fraction", "memory_needed_bytes", "best_k", "break_even_batch", "verify_compute_bound",
                    "drafter_overlaps", "verify_launch_bound", "draft_launch_bound")  # a plain point drawn from a speculative row has none of these


SERVING_SOURCES = ("serving_time_per_output_token_s", "baseline_serving_time_per_output_token_s",
                   "serving_cost_usd_per_million_tokens", "baseline_serving_cost_usd_per_million_tokens",
                   "serving_tokens_per_s", "baseline_serving_tokens_per_s", "serving_speedup")


def serving_view(df: pd.DataFrame, where: str, flag: str = "--serving") -> pd.DataFrame:
    """A request's sweep (grid.SERVING_COLUMNS) as a serving benchmark reads it, for `cheapest --serving`: each speed
    and cost column a ranking reads replaced by its serving form, with t the time per output token with the other
    requests' prefills (serving_time_per_output_token_s, and the baseline's):

        tokens_per_s_per_user = 1 / t     tokens_per_s = the serving throughput     cost = the serving cost (at that pace)
        speedup = serving_speedup

    (tokens_per_s_per_device scaled alike; the throughput and the cost the same device time, so the price a table was
    swept at reads the same off either: swept_prices); a RooflineError naming `where` and `flag` (the option that asked for
    it: the CLI's --serving, the API's serving=True) for a table without them."""
    missing = [c for c in SERVING_SOURCES if c not in df]
    if missing:
        raise RooflineError(f"{where}: {flag}: expected a sweep of a scenario with prompt and output_len (its serving "
                            f"columns: {missing[0]}, ...), found a table without them")
    spec, plain = df["serving_time_per_output_token_s"], df["baseline_serving_time_per_output_token_s"]
    out = df.assign(tokens_per_s_per_user=1.0 / spec, baseline_tokens_per_s_per_user=1.0 / plain,
                    cost_usd_per_million_tokens=df["serving_cost_usd_per_million_tokens"],
                    baseline_cost_usd_per_million_tokens=df["baseline_serving_cost_usd_per_million_tokens"],
                    tokens_per_s=df["serving_tokens_per_s"], baseline_tokens_per_s=df["baseline_serving_tokens_per_s"],
                    speedup=df["serving_speedup"])  # (qa348: decoding's speedup beside serving speeds)
    if "tokens_per_s_per_device" in df and "tokens_per_s" in df:
        out["tokens_per_s_per_device"] = df["tokens_per_s_per_device"] * out["tokens_per_s"] / df["tokens_per_s"]
    for name in SERVED:  # decoding's own, for a table written out (as_written)
        if name in df:
            out[f"decoding_{name}"] = df[name]
    return out


# the columns serving_view replaces, and where a frontier written out puts their serving forms (as_written)
SERVED = {"tokens_per_s_per_user": "serving_tokens_per_s_per_user",
          "baseline_tokens_per_s_per_user": "baseline_serving_tokens_per_s_per_user",
          "cost_usd_per_million_tokens": "serving_cost_usd_per_million_tokens",
          "baseline_cost_usd_per_million_tokens": "baseline_serving_cost_usd_per_million_tokens",
          "tokens_per_s": "serving_tokens_per_s", "baseline_tokens_per_s": "baseline_serving_tokens_per_s",
          "speedup": "serving_speedup", "tokens_per_s_per_device": "serving_tokens_per_s_per_device"}


def prefill_share_note(picks: dict | None) -> str:
    """Where a pick of `cheapest --serving` spends over PREFILL_SHARE_QUEUES of its devices' time on arriving prompts'
    prefills, 1 - (serving tokens/s) / (decoding's tokens/s), that its serving TTFT is a lower bound, as predict says it
    (api._queueing_note; qa362: cheapest and the sweep said nothing where predict warned at 63%); '' else."""
    shares = []
    for kind, row in (picks or {}).items():
        if row is None or "decoding_tokens_per_s" not in row or not row["decoding_tokens_per_s"] > 0 or row.get("batch", 2) <= 1:
            continue  # one request in flight waits behind no other's prefill (predict says nothing there either; qa363)
        share = 1.0 - float(row["tokens_per_s"]) / float(row["decoding_tokens_per_s"])
        if share > PREFILL_SHARE_QUEUES:
            shares.append(f"{100 * share:.0f}% at the {kind} pick")  # (qa383: 'at the speculation pick 54%')
    if not shares:
        return ""
    return (f"arriving prompts' prefills take over half of the devices' time ({spoken_list(shares)}): a new prompt often "
            "waits behind another's prefill, which serving_ttft_s leaves out (read it as a lower bound; predict --prompt "
            "says the same)")


def as_written(frontier: pd.DataFrame) -> pd.DataFrame:
    """A frontier of serving_view's rows as a file holds it: each column under its documented meaning (decoding's, as a
    sweep's table has it), the serving forms under SERVED's names (qa362: `cheapest --serving --out` wrote serving
    costs and speeds as cost_usd_per_million_tokens, tokens_per_s_per_user, speedup, ..., decoding's gone); a frontier
    of decoding's rows as it is."""
    kept = [name for name in SERVED if f"decoding_{name}" in frontier]
    if not kept:
        return frontier
    out = frontier.assign(**{SERVED[name]: frontier[name] for name in kept})
    out = out.assign(**{name: frontier[f"decoding_{name}"] for name in kept})
    return out.drop(columns=[f"decoding_{name}" for name in kept])


def devices_in_use(df: pd.DataFrame) -> pd.Series:
    """The devices a frontier row rents: the target's (`devices`, else tp), and a drafter's own device while it drafts
    (a speculative row with draft_hardware set), as `cheapest`'s table counts them and tokens_per_s_per_device divides."""
    devices = (df["devices"] if "devices" in df else df["tp"]).astype(int)
    drafter = (df["draft_hardware"].astype(object).map(lambda v: isinstance(v, str) and v != "").astype(bool)
               if "draft_hardware" in df else False)  # (a sweep's own table: a categorical column)
    return devices + ((df["decoding"].astype(object) == "speculation") & drafter).astype(int)


def plain_fits(df: pd.DataFrame) -> pd.Series:
    """Rows whose batch plain decoding fits in memory (its own cap: the drafter's weights and k + 1 tokens may not), the
    one rule the frontier, the findings and the report's figures take."""
    return df["batch"] <= df["baseline_max_batch"] if "baseline_max_batch" in df else df["fits_in_memory"].astype(bool)


def _candidates(df: pd.DataFrame) -> pd.DataFrame:
    """Every row with a `decoding` column, plain or speculation: the speculative rows (k > 0), the plain rows the table
    has (k = 0 or method none), and the plain point each speculative row carries in its baseline columns (its speed and
    cost; it fits where the batch is at most baseline_max_batch), one row a plain point."""
    plain_given = (df["method"] == "none") | (df["k"] == 0)
    spec = df[~plain_given].assign(decoding="speculation")
    # at k = 0 the drafter does not run: its device neither counts nor costs (qa268: a plain pick said draft_hardware l4)
    # and a plain row is k 0 with no acceptance, as the printed table says it (qa280: the CSV gave the axes' k 1, alpha 0.8)
    given = df[plain_given].assign(method="none", k=0, alpha=float("nan"))
    for column in ("best_k", "break_even_batch"):  # a swept k's, or a method none row's 0: a plain point drafts no k, as
        if column in given:  # one drawn from a speculative row's baseline (qa428: the CSV's plain pick said best_k 5)
            given[column] = float("nan")
    plain = [given.assign(draft_hardware="") if "draft_hardware" in df else given]
    if all(c in df for c in BASELINE) and len(spec):
        # the plain point's own figures where the table has them; the speculative ones (drafting, verifying, the
        # drafter's memory and device) blank: a plain row must not carry its speculative row's numbers
        base = spec.drop(columns="decoding").assign(
            tokens_per_s_per_user=spec["baseline_tokens_per_s_per_user"], cost_usd_per_million_tokens=spec["baseline_cost_usd_per_million_tokens"],
            fits_in_memory=plain_fits(spec), method="none", k=0, alpha=float("nan"), speedup=1.0,
            tau=1.0, draft_hardware="", max_batch=spec["baseline_max_batch"])
        for column, plain_column in (("tokens_per_s", "baseline_tokens_per_s"), ("flops_per_token", "baseline_flops_per_token"),
                                     ("iteration_time_s", "step_time_s"), ("engine_runs", "baseline_engine_runs")):
            if column in base and plain_column in base:
                base[column] = base[plain_column]
        for name in ("tokens_per_s_per_user", "cost_usd_per_million_tokens", "tokens_per_s"):  # serving_view's decoding
            if f"decoding_{name}" in base and f"decoding_baseline_{name}" in base:  # figures: the plain point's own
                base[f"decoding_{name}"] = base[f"decoding_baseline_{name}"]
        if "decoding_speedup" in base:
            base["decoding_speedup"] = 1.0
        for name in ("time_per_output_token_s", "ttft_s", "cost_usd_per_million_tokens", "tokens_per_s"):  # a request's
            if f"serving_{name}" in base and f"baseline_serving_{name}" in base:  # serving figures: the plain point's own
                base[f"serving_{name}"] = base[f"baseline_serving_{name}"]  # (qa363: its speculative row's were written)
        if "serving_speedup" in base:
            base["serving_speedup"] = 1.0
        if "decoding_tokens_per_s_per_device" in base and "devices" in base:
            base["decoding_tokens_per_s_per_device"] = base["decoding_tokens_per_s"] / base["devices"]
        blank = [c for c in SPECULATIVE_ONLY if c in base]
        base[blank] = float("nan")
        if "devices" in base:  # its throughput, the one its cost is of (qa356: a serving view's per-user speed x batch,
            # which leaves out each request's own prefill, above its serving throughput)
            throughput = base["tokens_per_s"] if "tokens_per_s" in base else base["tokens_per_s_per_user"] * base["batch"]
            base = base.assign(tokens_per_s_per_device=throughput / base["devices"])
        plain.append(base)
    plain = pd.concat(plain).drop_duplicates(subset=[c for c in CONFIG if c in df]).assign(decoding="plain")
    return pd.concat([plain, spec], ignore_index=True)


def refused_layouts(df: pd.DataFrame, extra_dirs: tuple = ()) -> tuple[list[dict], list[str]]:
    """([{model, tp, dp_attention, ep, pp, weight_dtype, expert_dtype, note}, then refused_methods' and
    unrunnable_engines' entries], unchecked): the layouts of a results table's rows that vLLM and SGLang refuse to load
    (layout.shard_note, the rule the sweep warns by) or that no setup of their engine has (serving.engine_layout_note,
    and serving.stage_split_dense_note: a dense model under SGLang's attention DP),
    the speculative methods an engine refuses at their attention-DP or pipeline degree, and the engines on devices they do
    not run on, worked
    out from the table's own columns and each profile, so a table copied out of its folder is checked alike; a
    model, engine or device whose profile is not on the search path (`extra_dirs`: roofline --profiles) is named
    unchecked ('model my-model', 'engine mytrt', 'device my-gpu'). A dtype column holding 'mixed' leaves the model's
    native dtypes."""
    from roofline.layout import shard_note
    from roofline.model import load_model
    from roofline.serving import load_engine

    keys = [c for c in ("model", "engine", "hardware", "tp", "dp_attention", "ep", "pp", "weight_dtype", "expert_dtype")
            if c in df]  # the engine as on the hardware: its overrides (qa137)
    refused, unchecked = [], []
    for values in df[keys].drop_duplicates().itertuples(index=False, name=None):
        row = dict(zip(keys, values))
        try:
            model = load_model(str(row["model"]), extra_dirs)
        except RooflineError:
            unchecked.append(f"model {row['model']}")
            continue
        dep = row_deployment(row, model)
        engine = None
        if dep is not None and "engine" in row:  # as the engine lays it out (qa136: SGLang's dense MLP split 32 ways)
            try:
                engine = load_engine(str(row["engine"]), extra_dirs)
                if "hardware" in row:
                    from roofline.hardware import load_hardware

                    engine = engine.for_hardware(load_hardware(str(row["hardware"]), extra_dirs))
                dep = for_engine(dep, engine, model)
            except RooflineError:
                engine = None  # an engine or device not on the search path: unrunnable_engines names it
        if dep is not None and (note := shard_note(model, dep)):  # named with its engine where the table has one: vLLM
            refused.append({**row, "note": note + (f" (under {row['engine']})" if "engine" in row else "")})  # may load it
        elif dep is not None and engine is not None and (note := engine_layout_note(engine, model, dep)
                                                         or stage_split_dense_note(engine, model, dep)):
            refused.append({**row, "note": note})  # a layout no setup of the engine has (qa139; a dense model under
            # SGLang's attention DP, which the sweep warns of: qa283, picked by cheapest and the fast tiers)
    out = refused + refused_methods(df, extra_dirs, unchecked) + unrunnable_engines(df, extra_dirs, unchecked)
    return out + _marked_unrun(df, out, set(unchecked)), sorted(set(unchecked))


MARKED_KEYS = ("model", "engine", "hardware", "draft_hardware", "method", "tp", "dp_attention", "ep", "pp", "weight_dtype",
               "expert_dtype")


def _marked_unrun(df: pd.DataFrame, refused: list[dict], unchecked: set[str]) -> list[dict]:
    """refused_layouts' entries for the rows the table itself marks as run by no setup of their engine (engine_runs
    false, grid.engine_runs) that none of `refused` covers and whose profiles are not on the search path (`unchecked`:
    'model NAME', 'engine NAME', 'device NAME'), which would say why (qa489: trtllm on an AMD device renamed, priced and
    picked); where they are, they decide, as for a table edited since its sweep. One entry a config,
    `speculative_only` where its plain point runs (baseline_engine_runs)."""
    if "engine_runs" not in df or not unchecked:
        return []
    away = pd.Series(False, index=df.index)
    for column, kind in (("model", "model"), ("engine", "engine"), ("hardware", "device"), ("draft_hardware", "device")):
        if column in df:
            away |= df[column].astype(str).isin({entry.split(" ", 1)[1] for entry in unchecked if entry.startswith(f"{kind} ")})
    marked = ~df["engine_runs"].fillna(True).astype(bool) & ~refused_rows(df, refused) & away
    if not marked.any():
        return []
    keys = [c for c in MARKED_KEYS if c in df]
    rows = df.loc[marked, keys].astype(object).fillna("").astype(str).assign(
        plain_runs=df.loc[marked, "baseline_engine_runs"].fillna(True).astype(bool) if "baseline_engine_runs" in df else False)
    out = []
    for values, group in rows.groupby(keys, sort=False, dropna=False):
        row = dict(zip(keys, values))
        spec = bool(group["plain_runs"].all())  # its plain decoding runs: the drafting rows alone, by method and drafter
        entry = {k: (int(float(v)) if k in ("tp", "dp_attention", "ep", "pp") else v) for k, v in row.items()
                 if v not in ("", "nan") and (spec or k not in ("method", "draft_hardware"))}  # (a plain point drawn
        # from a speculative row is method none, no drafter: a layout's refusal holds it too)
        layout = describe_layout(*(entry.get(k, 1) for k in ("tp", "dp_attention", "ep", "pp")))
        if spec:
            entry["speculative_only"] = True
        entry["note"] = (f"{row.get('model', '')} on {row.get('hardware', '')} ({layout}) under {row.get('engine', '')}"
                         + (f", {row['method']} speculation" if spec and "method" in row else "")
                         + ": marked by its sweep as run by no setup of the engine (engine_runs false; the profiles "
                           "that say why are not on the search path here)")
        out.append(entry)
    return out


def refused_methods(df: pd.DataFrame, extra_dirs: tuple = (), unchecked: list | None = None) -> list[dict]:
    """[{engine, hardware, method, [dp_attention or pp,] speculative_only, note}]: the speculative rows' (k > 0) engine,
    method and layout that no setup of the engine runs: its speculation_refused at any layout (SGLang and TensorRT-LLM
    have no Medusa), its speculation_refused_with_dp_attention and speculation_refused_with_pp on the row's device
    (SGLang refuses draft-model and n-gram speculation under attention DP, and every method at pp > 1);
    serving.speculation_engine_notes, which predict and sweeps warn by. Cheapest, the report's findings and its fast
    tiers leave them out; the plain point such a row carries runs. An engine or device whose profile is not on the
    search path is named in `unchecked`."""
    from roofline.hardware import load_hardware
    from roofline.serving import load_engine

    if not {"engine", "method", "k"} <= set(df.columns):
        return []
    drafting = (df["method"] != "none") & (pd.to_numeric(df["k"], errors="coerce") > 0)
    keys = [c for c in ("engine", "hardware", "method", "dp_attention", "pp") if c in df]
    out = []
    for values in df.loc[drafting, keys].drop_duplicates().itertuples(index=False, name=None):
        row = dict(zip(keys, values))
        dp, pp = int(row.get("dp_attention", 1)), int(row.get("pp", 1))
        base = {k: row[k] for k in ("engine", "hardware", "method") if k in row}
        try:
            engine = load_engine(str(row["engine"]), extra_dirs)
        except UnknownName:
            if unchecked is not None:
                unchecked.append(f"engine {row['engine']}")
            continue
        if row["method"] in engine.speculation_refused:  # no drafter of the kind at all, on any device: said alone
            out.append({**base, "speculative_only": True,
                        "note": f"{row['method']} speculation under {row['engine']} (it has no {row['method']} drafter)"})
            continue
        if dp <= 1 and pp <= 1:  # nothing more a layout can refuse
            continue
        try:
            if "hardware" in row:
                engine = engine.for_hardware(load_hardware(str(row["hardware"]), extra_dirs))
        except RooflineError:  # qa220: a device's missing profile was named as its engine's
            if unchecked is not None:
                unchecked.append(f"device {row['hardware']}")
            continue
        if row["method"] in engine.speculation_refused_with_dp_attention and dp > 1:
            out.append({**base, "dp_attention": dp, "speculative_only": True,
                        "note": f"{row['method']} speculation under {row['engine']} at dp_attention {dp} "
                                f"(it refuses {drafting_word(str(row['method']))} drafting under attention DP)"})
        if engine.speculation_refused_with_pp and pp > 1:
            out.append({**base, "pp": pp, "speculative_only": True,
                        "note": f"{row['method']} speculation under {row['engine']} at pp {pp} "
                                "(it refuses speculative decoding with pipeline parallelism)"})
    return list({e["note"] + str(e.get("hardware")): e for e in out}.values())  # one entry a refusal and device


def _draft_of(meta: dict | None, extra_dirs: tuple = ()):
    """The draft model a table's scenario.json names (`draft`, as written: a name or a profile path; its profile name
    where the path does not resolve from here, as the recorded profile_files find it: qa329), or None."""
    from roofline.model import load_model

    name = (meta or {}).get("draft")
    if not isinstance(name, str):
        return None
    for candidate in dict.fromkeys((name, Path(name).stem)):
        try:
            return load_model(candidate, extra_dirs)
        except RooflineError:
            continue
    return None


def _draft_rows(df: pd.DataFrame) -> pd.Series:
    """The rows drafting with a draft model (method draft, k > 0)."""
    if not {"method", "k"} <= set(df.columns):
        return pd.Series(False, index=df.index)
    return (df["method"].astype(str) == "draft") & (pd.to_numeric(df["k"], errors="coerce") > 0)


def mismatched_drafts(df: pd.DataFrame, meta: dict | None, extra_dirs: tuple = ()) -> list[dict]:
    """[{model, method: draft, speculative_only, note}]: the targets of a table's draft-model rows whose draft model
    (its scenario.json's `draft`) has another vocabulary or tokenizer (speculation.tokenizer_mismatch): engines verify
    draft tokens by id, so none runs them; the sweep and predict warn, cheapest leaves them out (qa327: it picked one).
    What could not be checked draft_unchecked_note says."""
    from roofline.model import load_model
    from roofline.speculation import tokenizer_mismatch

    draft = _draft_of(meta, extra_dirs)
    if draft is None or "model" not in df:
        return []
    out = []
    for model in df.loc[_draft_rows(df), "model"].astype(str).unique():
        try:
            note = tokenizer_mismatch(load_model(model, extra_dirs), draft)
        except RooflineError:
            continue
        if note:
            out.append({"model": model, "method": "draft", "speculative_only": True, "note": note})
    return out


def draft_unchecked_note(df: pd.DataFrame, meta: dict | None, extra_dirs: tuple = ()) -> str:
    """cheapest's line where a table's draft-model rows could not be checked for the target's tokenizer (qa329: a
    results table copied away from its scenario.json, a draft profile not found), or ''."""
    if not _draft_rows(df).any():
        return ""
    name = (meta or {}).get("draft")
    if not isinstance(name, str):
        return ("the draft-model rows' draft is not named (no scenario.json beside the table): whether it shares the "
                "target's tokenizer, as the engines need, is not checked")
    if _draft_of(meta, extra_dirs) is None:
        return (f"draft model {name}: no profile of it found (roofline --profiles DIR): whether it shares the target's "
                "tokenizer, as the engines need, is not checked")
    return ""


def table_json(table: Path) -> tuple[Path | None, list[tuple[Path, str]]]:
    """(the JSON file that says what results table `table` was swept with, or None; the files beside it passed over,
    each with why): a report's NAME.json beside its tables/NAME.csv, naming that scenario, else the sweep's
    scenario.json beside it, unless that names another table beside it (qa257: a report scenario named `scenario` wrote
    tables/scenario.json, which every other table of the report then took as its own; qa263: plot still did). cheapest
    (scenario_json) and plot read it."""
    table = Path(table)
    own, why = _json_object(table.with_suffix(".json"))
    if own is not None and own.get("scenario") == table.stem:
        return table.with_suffix(".json"), []
    beside = table.parent / "scenario.json"
    meta, why_beside = _json_object(beside)
    name = str((meta or {}).get("scenario"))
    if beside.exists() and not why_beside and not (
            name != table.stem and any(p.is_file() and p != table for p in (table.parent / f"{name}.csv", table.parent / f"{name}.parquet"))):
        return beside, []
    skipped = [(table.with_suffix(".json"), why or (own is not None and f"it names scenario {str(own.get('scenario'))!r}")),
               (beside, why_beside or (meta is not None and f"it is {name!r}'s, whose table lies beside"))]
    return None, [(path, reason) for path, reason in skipped if path.exists() and reason]


def scenario_json(table: Path) -> dict | None:
    """What a results table was swept with (table_json's file), its fields of a type no sweep writes left out
    (checked_meta); None where there is none, with a warning for each file beside it passed over (qa262: in silence)."""
    from roofline.errors import warn

    path, skipped = table_json(table)
    for passed, reason in skipped:
        warn(f"{passed}: not read as what {Path(table).name} was swept with: {reason}")
    return None if path is None else checked_meta(_json_object(path)[0], path)


JSON_MAX_BYTES = 1 << 30  # a sweep writes every axis value into its scenario.json: 2 MB for 150,000 batches (qa116)


def _json_object(path: Path) -> tuple[dict | None, str]:
    """(the JSON object in file `path`, '') or (None, why not): not a plain UTF-8 file of at most JSON_MAX_BYTES
    (yamlio.read_text: a FIFO or device would block, qa116; 1.5 GB read whole, qa262), not JSON (nested past Python's
    recursion limit or an integer past its digits: qa262's tracebacks), or not an object; (None, '') where there is no
    file."""
    import json

    from roofline.yamlio import read_text

    if not path.exists():
        return None, ""
    try:
        meta = json.loads(read_text(path, JSON_MAX_BYTES))
    except RooflineError as exc:
        return None, str(exc).removeprefix(f"{path}: ")
    except (ValueError, RecursionError) as exc:
        return None, f"not readable as JSON ({type(exc).__name__})"
    return (meta, "") if isinstance(meta, dict) else (None, f"a JSON {type(meta).__name__}, not an object")


def _strings(v) -> bool:
    return isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v))


# scenario.json's keys the commands reading a table take, each with what a sweep writes there (grid.scenario_meta)
META_CHECKS = {
    "hardware": (lambda v: isinstance(v, dict), "an object of device names"),
    "model": (lambda v: isinstance(v, dict), "an object of model names"),
    "engine": (_strings, "engine names"),
    "method": (_strings, "method names"),
    "draft": (lambda v: v is None or isinstance(v, str), "a draft model's name or null"),
    "draft_hardware": (lambda v: v is None or (isinstance(v, list) and all(x is None or isinstance(x, str) for x in v)),
                       "a list of device names (null: on the target) or null"),
    "draft_vocab": (lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool) and v >= 1),
                    "a vocabulary size or null"),
    "acceptance": (lambda v: v is None or (isinstance(v, list) and v and all(_is_number(x) and 0 <= x <= 1 for x in v)),
                   "a list of rates in [0, 1] or null"),
    "acceptance_length": (lambda v: v is None or (isinstance(v, dict) and _is_number(v.get("tau"))
                                                  and isinstance(v.get("k"), int) and not isinstance(v.get("k"), bool)),
                          "{tau, k} or null"),
    "default_rates": (lambda v: v is None or (isinstance(v, dict) and all(
        isinstance(d, dict) and isinstance(d.get("rates"), list) and all(_is_number(x) for x in d["rates"]) for d in v.values())),
                      "an object of each method's {rates, source} or null"),
    "tree_nodes": (lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool)), "a node count or null"),
    "tree_tau": (lambda v: v is None or _is_number(v), "a number or null"),
    "overlap": (lambda v: v is None or isinstance(v, bool), "true, false or null"),
    "price_usd_per_hour": (lambda v: isinstance(v, dict) and all(p is None or _is_number(p) for p in v.values()),
                           "an object of prices (null: none)"),
    "speculating_caps": (lambda v: v is None or (isinstance(v, dict) and all(_is_number(c) for c in v.values())),
                         "an object of engines' caps or null"),
    "axes": (lambda v: isinstance(v, dict), "an object of the swept axes"),
    **{key: (lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool) and v >= 1), "a number of tokens or null")
       for key in ("prompt", "output_len")},  # a request's (the serving columns', grid.SERVING_COLUMNS)
}


def checked_meta(meta: dict, path: Path) -> dict:
    """`meta` (a scenario.json read from `path`) without the keys whose values are of a type no sweep writes there, said
    in one warning (qa262: a hand-edited draft_vocab "x" or acceptance 5 raised a traceback in cheapest and plot)."""
    from roofline.errors import warn

    bad = [key for key, (ok, _) in META_CHECKS.items() if key in meta and not ok(meta[key])]
    if bad:
        warn(f"{path}: " + "; ".join(f"{key}: expected {META_CHECKS[key][1]}, found {meta[key]!r:.40}" for key in bad)
             + ": left out (not what a sweep writes there)")
    return {k: v for k, v in meta.items() if k not in bad}


def swept_prices(df: pd.DataFrame) -> dict:
    """{hardware: the price a device-hour its sweep priced the table at, or None where its rows have no cost}, read off
    plain decoding's columns: baseline_cost_usd_per_million_tokens x baseline_tokens_per_s x 3600 / 1e6 / devices (the
    deployment's dollars an hour over its devices; a drafter's device is not in plain decoding's cost)."""
    need = {"hardware", "devices", "baseline_tokens_per_s", "baseline_" + COST}
    if not need <= set(df.columns):
        return {}
    per_device = df["baseline_" + COST] * df["baseline_tokens_per_s"] * 3600.0 / 1e6 / df["devices"]
    out = {}
    for name, values in per_device.groupby(df["hardware"].astype(str)):
        finite = values[np.isfinite(values)]
        out[name] = float(f"{finite.median():.6g}") if len(finite) else None  # the price, less the float rounding
    return out


_UNREAD = object()  # price_notes' `meta` where the caller has not read the table's scenario.json


def price_notes(table: Path, extra_dirs: tuple = (), df: pd.DataFrame | None = None, meta=_UNREAD) -> list[str]:
    """A line for each device whose profile's price differs from the one its sweep priced the table at (the sweep's
    scenario.json beside `table`, price_usd_per_hour; without one, as the table's plain-decoding costs give it:
    swept_prices of `df`): a price edited since (`hw set`) does not reach a written table (qa91: cheapest priced at
    $2.10/h a device set to $1.50/h since, in silence; qa214: said nothing of a results.csv copied out of its folder).
    None where a device's profile is not on the search path (unchecked_note names it). `meta`: the scenario.json the
    caller read (scenario_json), so that what it warns of is said once."""
    from roofline.hardware import load_hardware
    from roofline.units import format_usd_per_hour

    meta = scenario_json(table) if meta is _UNREAD else meta
    swept = (meta or {}).get("price_usd_per_hour") or {} if meta is not None or df is None else swept_prices(df)
    # a price read off the table's costs (6 significant digits in a CSV, rounded to 6 by swept_prices) compares loosely
    # (qa220: $2.73972602739726 read back as 2.73973 said 'changed since')
    tolerance = 1e-6 if meta is not None or df is None else 1e-4
    notes = []
    for name, then in swept.items() if isinstance(swept, dict) else ():
        try:
            now = load_hardware(str(name), extra_dirs).price_usd_per_hour
        except RooflineError:
            continue
        if then is not None and (isinstance(then, bool) or not isinstance(then, (int, float))):
            continue  # not a price a sweep wrote (a hand-edited scenario.json)
        if (now is None) != (then is None) or (now is not None and not math.isclose(float(now), float(then), rel_tol=tolerance)):
            gives = f"${format_usd_per_hour(float(now))} a device-hour" if now is not None else "no price"
            was = (f"the table was priced at ${format_usd_per_hour(float(then))} a device-hour when swept: its costs are the "
                   "table's" if then is not None else "the table was swept without a price for it: its rows have no cost")
            notes.append(f"{name}'s profile now gives {gives}; {was}; sweep again to price them at the profile's")
    return notes


def repriced(df: pd.DataFrame, meta: dict | None = None, extra_dirs: tuple = ()) -> tuple | None:
    """(the table's rows with each cost scaled by its rent at the profiles' prices now over its rent then, the prices
    now, '(NAME $P, ... a device-hour)' of those changed) where a device's profile prices it otherwise than the sweep
    did (price_notes; _rent_usd_per_hour: the target's devices, and a drafter's own while it drafts); None where no
    price changed, or a device has none now or then (price_notes says it)."""
    from roofline.units import format_usd_per_hour

    then = (meta or {}).get("price_usd_per_hour") if meta else swept_prices(df)
    if not isinstance(then, dict) or not then:
        return None
    names = {str(v) for column in ("hardware", "draft_hardware") if column in df
             for v in df[column].astype(object).dropna().unique() if str(v)}
    now = {name: _price_now(name, extra_dirs) for name in names}
    if any(now[name] is None or not _is_number(then.get(name)) for name in names):
        return None
    tolerance = 1e-6 if meta else 1e-4  # a price read off the table's costs compares loosely, as price_notes does
    changed = [name for name in sorted(names) if not math.isclose(float(now[name]), float(then[name]), rel_tol=tolerance)]
    if not changed:
        return None
    drafting = (df["method"].astype(object) != "none") & (df["k"] > 0)
    as_decoded = df.assign(decoding=np.where(drafting, "speculation", "plain"))  # a drafter's device while it drafts
    out = df.assign(**{COST: df[COST].astype(float) * _rent_usd_per_hour(as_decoded, now)
                       / _rent_usd_per_hour(as_decoded, then)})
    if "baseline_" + COST in df:  # a plain point rents the target's devices alone
        as_plain = df.assign(decoding="plain")
        out["baseline_" + COST] = (df["baseline_" + COST].astype(float) * _rent_usd_per_hour(as_plain, now)
                                   / _rent_usd_per_hour(as_plain, then))
    said = ", ".join(f"{name} ${format_usd_per_hour(float(now[name]))}" for name in changed)
    return out, now, f"({said} a device-hour)"


PRICE_MOVE_SAID = 0.01  # a pick that stays at the prices now is said where its cost moves more than this share


def repriced_pick_notes(df: pd.DataFrame, picks: dict | None, min_tokens_per_s_per_user: float | None,
                        refused: list[dict] | None = None, meta: dict | None = None, extra_dirs: tuple = ()) -> list[str]:
    """Where the table's rows repriced at the profiles' prices now (repriced) give another pick of a kind at the speed
    asked, that pick, one line a kind (qa415: MI300X set to $2.00 since, the pick still B200's at $1.15, where MI300X's
    is $0.97), or where the pick stays and its cost moves over PRICE_MOVE_SAID, its cost now. The table's batches only:
    a sweep again prices those between. [] where no price changed, a device has none now, or the picks and their costs
    stay."""
    speed = min_tokens_per_s_per_user
    if not picks or speed is None:
        return []
    got = repriced(df, meta, extra_dirs)
    if got is None:
        return []
    table, now, prices = got
    again = cheapest(table, speed, refused)
    notes = []
    for kind in KINDS:
        old, new = picks.get(kind), again.get(kind)
        if new is None:
            continue
        if old is not None and _row_named(old) == _row_named(new):  # the same pick: its cost, where it moves (qa420:
            # an L4 drafter from $0.75 to $20 a device-hour left the pick and put its cost 2.5x up, unsaid)
            if not math.isclose(float(new[COST]), float(old[COST]), rel_tol=PRICE_MOVE_SAID):
                notes.append(f"at the profiles' prices now {prices}, the {kind} pick of the table's batches stays, at "
                             f"${format_significant(float(new[COST]))} per million tokens (the table's "
                             f"${format_significant(float(old[COST]))}; a sweep again prices the batches between, where "
                             "another device's may come out cheaper)")  # (qa489: 'stays' beside a break-even price,
                # of points computed now, under the price it had)
            continue
        notes.append(f"at the profiles' prices now {prices}, the {kind} pick of the table's rows would be "
                     f"{_row_named(new)} at ${format_significant(float(new[COST]))} per million tokens "
                     f"({format_significant(float(new[SPEED]))} tokens/s per user; the table's costs repriced: a sweep again "
                     "prices the batches between)")
    return notes


def repriced_fleet_notes(df: pd.DataFrame, fleet: dict, min_tokens_per_s_per_user: float, users: int,
                         refused: list[dict] | None = None, meta: dict | None = None, extra_dirs: tuple = (),
                         extra: dict | None = None) -> list[str]:
    """repriced_pick_notes' of the fleets of cheapest --users: where the table's rows repriced at the profiles' prices
    now give another fleet of a kind, that one (qa420: plain 8 H100 for $24 an hour said, where at H200's price now one
    8-H200 replica serves the 300 users for $16); the table's batches and `extra`'s, those computed now between them
    that the fleets were chosen from (fleet_picks' `extra`; qa436: a fleet of swept batches said at $166.40 an hour,
    where the batch computed now between them gives $93.60), each fleet rented at the prices now."""
    from roofline.tables import _devices, _usd_per_hour

    got = repriced(df, meta, extra_dirs)
    if got is None:
        return []
    table, now, prices = got
    notes = []
    for kind, f in fleet_picks(table, min_tokens_per_s_per_user, users, refused, extra, prices=now).items():
        old = fleet.get(kind)
        if f is None or (old is not None and (old["usd_per_hour"], old["devices"]) == (f["usd_per_hour"], f["devices"])
                         and _row_named(old["row"]) == _row_named(f["row"])):
            continue
        notes.append(f"at the profiles' prices now {prices}, the {kind} fleet would be "
                     f"{f['replicas']:,} x {_row_named(f['row'])}, {_devices(f['devices'])}, "
                     f"${_usd_per_hour(f['usd_per_hour'])} an hour (a sweep again prices every batch between the swept "
                     "ones)")
    return notes


def price_is_users(name: str, price: float, extra_dirs: tuple = (), rel_tol: float = 1e-6) -> bool:
    """Whether device `name`'s price of `price` a device-hour (as a table was priced at) is the user's, not a rental
    quote with sources: its profile on the search path (or the file the sweep recorded: profiles.recorded_files) gives
    that price, and either its header says the price was set by hand (hw new / hw set), or it is a profile of the
    user's own that is no copy of another (calibrated, or written by hand; qa284: said as a sourced quote)."""
    from roofline.editing import MADE_WITH_NEW
    from roofline.profiles import builtin_dir
    from roofline.tables import _set_by_hand

    hw = _hardware_now(name, extra_dirs)
    if hw is None or hw.price_usd_per_hour is None or not math.isclose(hw.price_usd_per_hour, float(price), rel_tol=rel_tol) or not hw.path:
        return False
    if "price" in _set_by_hand(hw.path):
        return True
    path = Path(hw.path)
    try:
        head = path.read_text(encoding="utf-8")[:2000]
    except (OSError, UnicodeDecodeError):
        return False
    return path.resolve().parent != builtin_dir("hardware").resolve() and MADE_WITH_NEW not in head


def prices_note(df: pd.DataFrame, meta: dict | None, extra_dirs: tuple = ()) -> str:
    """The prices a frontier's costs rest on, each device's a device-hour as swept (scenario.json's price_usd_per_hour),
    for the devices of `df`'s rows (a drafter's own included), and where their sources are: qa268, the pick moved from
    MI300X to B200 at 1.5x MI300X's undated quote, and cheapest never said what it priced at; a price that is the
    user's (price_is_users: set by hand, or in a profile of their own) is said so (qa283: said as a rental quote with
    sources). '' without the prices."""
    from roofline.units import format_usd_per_hour

    swept = (meta or {}).get("price_usd_per_hour")
    read_off = not isinstance(swept, dict)  # a table without its scenario.json: the prices its costs give (qa321: the
    if read_off:  # note was left out, where price_notes reads them so)
        swept = {n: v for n, v in swept_prices(df).items() if v is not None}
    if not swept or not len(df):
        return ""
    names = list(dict.fromkeys([*df["hardware"].astype(str), *(v for v in df.get("draft_hardware", pd.Series(dtype=object))
                                                               if isinstance(v, str) and v)]))
    priced = [n for n in names if _is_number(swept.get(n)) and not isinstance(swept.get(n), bool)]
    tolerance = 1e-4 if read_off else 1e-6  # a price read off a CSV's 6-digit costs compares loosely (as price_notes)
    in_code = {n for n in priced if isinstance(((meta or {}).get("profile_files") or {}).get("hardware"), dict)
               and n in meta["profile_files"]["hardware"] and meta["profile_files"]["hardware"][n] is None}  # (qa411: a
    yours = in_code | {n for n in priced if price_is_users(n, swept[n], extra_dirs, tolerance)}  # spec object's price
    #   was said as 'its profile gone')
    # a price the profile no longer gives (price_notes says so) is no quote its sources give (qa311: a price set by hand
    # and set again since was called a rental quote)
    changed = {n for n in set(priced) - yours if (now := _price_now(n, extra_dirs)) is None  # removed since, or its
               or not math.isclose(now, float(swept[n]), rel_tol=tolerance)}  # profile gone (qa312: still 'a quote')
    quotes = set(priced) - yours - changed
    gone = {n for n in changed if _hardware_now(n, extra_dirs) is None}  # its profile gone: no price changed (qa389)
    moved = changed - gone
    shown = [f"{n} ${format_usd_per_hour(float(swept[n]))}" + (  # marked where the others are not all alike
        " (yours)" if n in yours and quotes | changed else
        " (its profile gone)" if n in gone and set(priced) - gone else
        " (changed since)" if n in moved and set(priced) - moved else "") for n in priced]
    marked = " or ".join(m for m, some in (("yours", yours), ("changed since", moved), ("its profile gone", gone)) if some)
    sources = ("rental quotes whose sources `roofline hw show NAME` gives" + (f", but those marked {marked}" if marked else "")
               if quotes else "your own prices" + (", but those changed since (above)" if changed else "") if yours else
               "prices of profiles no longer on the search path (above)" if gone == changed else
               "prices the profiles no longer give (above)")
    how = "read off the table's costs" if read_off else "as swept"
    return f"priced at {', '.join(shown)} a device-hour ({how}): {sources}; a pick between devices moves with them" if shown else ""


def _rent_terms(row, device: str, usd_per_hour: dict) -> tuple[float, float] | None:
    """(a, b): a row's rent an hour as a + b P, P the price a device-hour of `device`: b its devices of that kind (the
    target's, and a drafter's own device while it drafts), a the rest at their prices. None where a device it rents has
    no price."""
    drafter = row.get("draft_hardware")
    parts = [(str(row["hardware"]), float(row.get("devices", row["tp"])))]
    parts += [(drafter, 1.0)] if isinstance(drafter, str) and drafter else []
    if not all(_is_number(usd_per_hour.get(name)) and not isinstance(usd_per_hour.get(name), bool) for name, _ in parts):
        return None
    return (sum(float(usd_per_hour[name]) * count for name, count in parts if name != device),
            sum(count for name, count in parts if name == device))


def tie_price_usd_per_hour(pick, rival, device: str, usd_per_hour: dict) -> float | None:
    """The price a device-hour of `device` at which rows `pick` and `rival` cost the same, every other price held
    (`usd_per_hour`: each device's price now)
    (qa369: a drafter on the device whose price moves was held at its old price). A row's cost is its rent over the
    tokens it makes an hour, T = rent / cost; its rent a + b P (_rent_terms); so the two tie at

        P = (a_r / T_r - a_p / T_p) / (b_p / T_p - b_r / T_r)

    None where no positive price ties them (neither rents that device, or the pick stays cheaper at every price)."""
    terms = []
    for row in (pick, rival):
        rent = _rent_terms(row, device, usd_per_hour)
        if rent is None or not _is_number(usd_per_hour.get(device)):
            return None
        a, b = rent
        now, cost = a + b * float(usd_per_hour[device]), float(row[COST])
        if not (now > 0 and cost > 0):
            return None
        terms.append((a, b, now / cost))
    (a_p, b_p, t_p), (a_r, b_r, t_r) = terms
    slope = b_p / t_p - b_r / t_r
    price = (a_r / t_r - a_p / t_p) / slope if slope else None
    return price if price is not None and price > 0 else None


def price_flip_notes(df: pd.DataFrame, picks: dict | None, min_tokens_per_s_per_user: float | None,
                     refused: list[dict] | None = None, meta: dict | None = None, refined: dict | None = None,
                     extra_dirs: tuple = (), serving: bool = False) -> list[str]:
    """Per pick, what a price would have to be for another device to win it (qa362: a pick between devices rests on
    rental quotes, and cheapest said only that it moves with them): the other device whose cheapest swept row of the
    pick's kind, at least as fast (of the rows that fit, load and are priced), costs least, and (tie_price_usd_per_hour) the pick's
    device's price at which the two tie, and the other device's. Each side is the cheaper of its swept row and its
    point computed now between the swept batches (the pick's from `refined`, refine's over the table; the other
    device's from refine over its rows, where `refined` is given: qa369, qa370: a cheaper point between the batches on
    either side moved the tie). None where no other device reaches the speed."""
    from roofline.units import format_usd_per_hour

    if not picks or min_tokens_per_s_per_user is None:
        return []
    swept = (meta or {}).get("price_usd_per_hour")
    prices = swept if isinstance(swept, dict) else swept_prices(df)
    rows = _reachable(df, refused)
    notes = []
    for kind, pick in picks.items():
        if pick is None:
            continue
        now = ((refined or {}).get(kind) or {}).get("row")
        computed = now is not None and float(now[COST]) < float(pick[COST])
        pick = now if computed else pick
        same = rows[(rows["decoding"] == kind) & (rows[SPEED] >= min_tokens_per_s_per_user)]
        others = same[same["hardware"].astype(str) != str(pick["hardware"])]
        if not len(others):
            continue
        rival = others.sort_values(COST, kind="stable").iloc[0]
        hw, other = str(pick["hardware"]), str(rival["hardware"])
        if refined:  # the other device's own point between its swept batches, as the pick's (qa370; none where --where chose the batches)
            theirs = refine(df[df["hardware"].astype(str) == other], min_tokens_per_s_per_user, refused, extra_dirs, meta,
                            serving).get(kind, {}).get("row")
            rival = theirs if theirs is not None and float(theirs[COST]) < float(rival[COST]) else rival
        flip_usd_per_hour, rival_flip_usd_per_hour = (tie_price_usd_per_hour(pick, rival, device, prices) for device in (hw, other))
        if flip_usd_per_hour is None or rival_flip_usd_per_hour is None:
            continue
        what = f"the {kind} point computed now" if computed else f"the {kind} pick"
        notes.append(f"{what} ({hw} at ${format_usd_per_hour(float(prices[hw]))} a device-hour) stays the cheapest at "
                     f"this speed up to ${format_usd_per_hour(flip_usd_per_hour)} a device-hour, or while {other} "
                     f"(${format_usd_per_hour(float(prices[other]))}) rents above ${format_usd_per_hour(rival_flip_usd_per_hour)}: "
                     f"{other}'s cheapest {kind} point as fast ({_row_named(_with_kind(rival, kind), pick)}) costs "
                     f"${format_significant(float(rival[COST]))} per million tokens ({format_significant(float(rival[SPEED]))} "
                     "tokens/s per user" + ("" if refined else "; among the swept rows") + "; the other prices held)")
    return notes


def _with_kind(row: pd.Series, kind: str) -> pd.Series:
    """`row` with its `decoding` kind (a point computed now carries no decoding column): _row_named reads it."""
    row = row.copy()
    row["decoding"] = kind
    return row


def unchecked_note(unchecked: list[str]) -> str:
    """cheapest's line for refused_layouts' unchecked profiles, or ''."""
    if not unchecked:
        return ""
    return (f"no profile of {', '.join(unchecked)} on the search path (roofline --profiles DIR): whether the engines load "
            "those layouts and run on those devices is not checked")


def row_dtypes(row, model) -> dict[str, str]:
    """The dtype options that rebuild a results row's deployment of `model`: its weight, expert and KV dtype columns,
    each left out where it holds the model's native label (a label names two classes where they differ: DeepSeek-V4-
    Flash's 'fp4' experts are fp4 routed and fp8 shared ones, which expert_dtype=fp4 would make fp4 both; qa94, qa95),
    'mixed', or is absent as in an older table."""
    from roofline.layout import deployment
    from roofline.model import KV_DTYPES, WEIGHT_DTYPES

    native = deployment(model)
    labels = {"weight_dtype": native.weight_dtype_label, "expert_dtype": native.expert_dtype_label, "kv_dtype": native.kv_dtype}
    allowed = {"weight_dtype": WEIGHT_DTYPES, "expert_dtype": WEIGHT_DTYPES, "kv_dtype": KV_DTYPES}
    return {k: row[k] for k in labels if isinstance(row.get(k), str) and row[k] in allowed[k] and row[k] != labels[k]}


def row_deployment(row, model):
    """The layout.Deployment a results row ran (its layout degrees and row_dtypes), or None where the profile does not
    take it (not a layout the sweep wrote)."""
    from roofline.layout import deployment

    dtypes = row_dtypes(row, model)
    try:
        return deployment(model, tp=int(row.get("tp", 1)), dp_attention=int(row.get("dp_attention", 1)), ep=int(row.get("ep", 1)),
                          pp=int(row.get("pp", 1)), **dtypes)
    except (RooflineError, TypeError, ValueError):
        return None


def unrunnable_engines(df: pd.DataFrame, extra_dirs: tuple = (), unchecked: list | None = None) -> list[dict]:
    """[{engine, hardware or draft_hardware, note, why}]: the table's engine and device pairs no deployment runs (TensorRT-LLM
    on an AMD device or a CPU: serving.runs_on, which predict and sweeps warn of), so that cheapest and the
    report's fast tiers never pick one (qa87: trtllm on MI300X was cheapest's answer); a drafter's device refuses only
    the speculative rows (`speculative_only`). An engine or device whose profile is not on the search path is not
    checked: 'engine NAME' / 'device NAME' is added to `unchecked` where given."""
    from roofline.hardware import load_hardware
    from roofline.serving import load_engine, nvidia_only_text, runs_on

    out = []
    if "engine" not in df:
        return out
    for column in ("hardware", "draft_hardware"):
        if column not in df:
            continue
        for engine_name, device in df[["engine", column]].drop_duplicates().itertuples(index=False, name=None):
            if not isinstance(device, str) or not device:
                continue
            loaded = []
            for kind, name, load in (("engine", str(engine_name), load_engine), ("device", device, load_hardware)):
                try:
                    loaded.append(load(name, extra_dirs))
                except UnknownName:
                    if unchecked is not None:
                        unchecked.append(f"{kind} {name}")
            if len(loaded) < 2:
                continue
            engine, hw = loaded
            if not runs_on(engine, hw):  # a GPU engine's costs on a CPU are a caveat (engine_on_a_cpu), TensorRT-LLM's a refusal
                drafter = column == "draft_hardware"
                out.append({"engine": engine_name, column: device, **({"speculative_only": True} if drafter else {}),
                            "note": f"{engine_name} {'drafting ' if drafter else ''}on {device} ({nvidia_only_text(engine)})",
                            "why": nvidia_only_text(engine)})
    return out


def refused_rows(df: pd.DataFrame, refused: list[dict]) -> pd.Series:
    """Whether each row is at one of the `refused` layouts (refused_layouts): its model, layout degrees and dtypes."""
    out = pd.Series(False, index=df.index)
    for entry in refused:
        match = pd.Series(True, index=df.index)
        if entry.get("speculative_only") and "k" in df:  # a drafter's device: the plain point runs without it
            match &= pd.to_numeric(df["k"], errors="coerce") > 0
        for column, value in entry.items():
            if column in ("note", "why", "speculative_only") or column not in df:
                continue
            if isinstance(value, numbers.Number):  # a layout degree: 32 and a CSV's 32.0 alike
                match &= pd.to_numeric(df[column], errors="coerce") == value
            else:
                match &= df[column].astype(str) == str(value)
        out |= match
    return out


def loadable(df: pd.DataFrame, extra_dirs: tuple = (), meta: dict | None = None) -> pd.DataFrame:
    """The rows of `df` a deployment runs (refused_layouts left out: layouts the engines refuse, engines on devices they
    do not run on; with the table's scenario `meta`, a draft model of another tokenizer, mismatched_drafts): what a
    price of a deployment compares (cheapest, the report's findings and fast tiers)."""
    refused = refused_layouts(df, extra_dirs)[0] + mismatched_drafts(df, meta, extra_dirs)
    return df[~refused_rows(df, refused)] if refused else df


def plain_runnable(df: pd.DataFrame, extra_dirs: tuple = ()) -> pd.DataFrame:
    """The rows of `df` whose plain point (k = 0, or the baseline columns of a speculative row) a deployment runs:
    loadable's, with the rows refused only as speculation kept (`speculative_only`: a drafter's device, a method its
    engine refuses at a layout), since their plain point runs (qa177: the report's fast tiers lost a plain tier)."""
    refused = [e for e in refused_layouts(df, extra_dirs)[0] if not e.get("speculative_only")]
    return df[~refused_rows(df, refused)] if refused else df


def _reachable(df: pd.DataFrame, refused: list[dict] | None = None) -> pd.DataFrame:
    """The candidates (_candidates) that fit in memory, have a cost and are not at a `refused` layout."""
    out = _candidates(df)
    return out[out["fits_in_memory"].astype(bool) & out[COST].notna() & out[SPEED].notna() & ~refused_rows(out, refused or [])]


def without_bound(df: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """(the rows, a note): a table that holds ideal (the roofline bound) beside serving engines less ideal's rows, said;
    else as it is and ''. The bound is a cost no serving engine reaches, so a frontier over both is ideal's alone
    (qa371: every pick ideal, where the report, which leaves it out, qa333, named vllm's); `--where engine=ideal`
    keeps it."""
    from roofline.serving import IDEAL

    if "engine" not in df:
        return df, ""
    bound = df["engine"].astype(str) == IDEAL.name
    if not bound.any() or bound.all():
        return df, ""
    others = spoken_list(sorted(df.loc[~bound, "engine"].astype(str).unique()))
    return df[~bound], (f"{int(bound.sum()):,} rows of engine {IDEAL.name} left out: the roofline bound, a cost no "
                        f"serving engine reaches, beside {others}'s (--where engine={IDEAL.name} compares it alone)")


def cost_frontier(df: pd.DataFrame, refused: list[dict] | None = None) -> pd.DataFrame:
    """The frontier rows of each decoding kind (module docstring), fastest first, with `decoding` and `layout`; rows at
    `refused` layouts (refused_layouts) left out."""
    parts = []
    for _, rows in _reachable(df, refused).groupby("decoding", sort=False):
        rows = rows.sort_values([SPEED, COST], ascending=[False, True], kind="stable")
        before = rows[COST].cummin().shift(1, fill_value=float("inf"))
        parts.append(rows[rows[COST] < before])
    if not parts:
        return df.iloc[0:0].assign(decoding=pd.Series(dtype=str), layout=pd.Series(dtype=str))
    out = pd.concat(parts).sort_values(["decoding", SPEED], ascending=[True, False], kind="stable")
    return out.assign(layout=[_layout(row) for row in out.itertuples(index=False)])


def _layout(row) -> str:
    return describe_layout(row.tp, getattr(row, "dp_attention", 1), getattr(row, "ep", 1), getattr(row, "pp", 1))


def cheapest(df: pd.DataFrame, min_tokens_per_s_per_user: float, refused: list[dict] | None = None) -> dict[str, pd.Series | None]:
    """{'plain': row, 'speculation': row}: the cheapest reachable row of each kind at least this fast per user (None
    where no row is)."""
    frontier = cost_frontier(df, refused)
    out: dict[str, pd.Series | None] = {}
    for kind in KINDS:
        rows = frontier[(frontier["decoding"] == kind) & (frontier[SPEED] >= min_tokens_per_s_per_user)]
        out[kind] = rows.sort_values(COST, kind="stable").iloc[0] if len(rows) else None
    return out


def _rent_usd_per_hour(rows: pd.DataFrame, prices: dict | None = None) -> np.ndarray:
    """Each row's dollars an hour: its target's devices x their price, and a drafter's own device's price while it drafts
    (devices_in_use), at `prices` (the sweep's, its scenario.json's price_usd_per_hour: exact); without them, or a
    device they do not price, read back as cost x tokens/s x 3600 / 1e6 (a CSV's six digits: qa418, $12,000,000.56 an
    hour for 250,000 x 8 x $6)."""
    throughput = (rows["tokens_per_s"] if "tokens_per_s" in rows else rows[SPEED] * rows["batch"]).astype(float)
    read_back = (rows[COST].astype(float) * throughput * 3600.0 / 1e6).to_numpy(dtype=float)
    if not isinstance(prices, dict) or not prices:
        return read_back
    def price(name) -> float:
        value = prices.get(str(name)) if isinstance(name, str) and name else None
        return float(value) if _is_number(value) and not isinstance(value, bool) else math.nan
    devices = (rows["devices"] if "devices" in rows else rows["tp"]).astype(float).to_numpy()
    own = devices * rows["hardware"].astype(object).map(price).to_numpy(dtype=float)
    drafter = (rows["draft_hardware"].astype(object).map(lambda n: price(n) if isinstance(n, str) and n else 0.0)
               .to_numpy(dtype=float) if "draft_hardware" in rows else np.zeros(len(rows)))
    drafting = (rows["decoding"].astype(object) == "speculation").to_numpy() if "decoding" in rows else np.zeros(len(rows), bool)
    exact = own + np.where(drafting, drafter, 0.0)
    return np.where(np.isfinite(exact), exact, read_back)


def _fleet_of(rows: pd.DataFrame, users: int, prices: dict | None = None) -> tuple[np.ndarray, ...]:
    """(replicas, devices, USD an hour to rank by, USD an hour) of a fleet of each row of `rows` for `users` at once
    (fleet_picks' terms). The first total takes a replica's rent to a hundredth of a cent before it is multiplied: one
    read back from a table's rounded costs and speeds differs by 1e-7 between rows of one rent, which would decide ties
    the fewest devices should (qa417, qa419); the second, said, multiplies the rent itself (qa458: 23,365 replicas at
    $2.1234567 said $49,615.58 an hour, the rent rounded to $2.1235 first, where they cost $49,614.57)."""
    rent_usd_per_hour = _rent_usd_per_hour(rows, prices)
    replicas = np.ceil(users / rows["batch"].astype(float).to_numpy())
    return (replicas, replicas * devices_in_use(rows).to_numpy(dtype=float),
            np.round(replicas * np.round(rent_usd_per_hour, 4), 4), replicas * rent_usd_per_hour)


def fleet_picks(df: pd.DataFrame, min_tokens_per_s_per_user: float, users: int, refused: list[dict] | None = None,
                extra: dict | None = None, prices: dict | None = None) -> dict[str, dict | None]:
    """{'plain': fleet, 'speculation': fleet} (None where no row of that kind reaches the speed): the cheapest fleet that
    decodes `users` sequences at once, each at least `min_tokens_per_s_per_user` tokens/s, of the reachable rows
    (_reachable: fitting, priced, loading; every one, not the frontier's alone) and of `extra`'s points ({kind: [rows
    computed at batches not swept]}: refine's, refine_fleet's), each fleet {'row', 'replicas', 'devices',
    'usd_per_hour', 'computed_now' (its row one of `extra`'s, not the table's)}:

        replicas = ceil(users / B)      devices = replicas x devices_in_use      usd_per_hour = replicas x rent

    rent = its devices x their price a device-hour (`prices`, the sweep's; else read back as cost_usd_per_million_tokens
    x tokens_per_s x 3600 / 1e6), a drafter's own device's too. The least usd_per_hour, then the fewest devices, then
    the fastest for its users (the row's tokens/s per user: at one rent, the least cost per token of these users; qa434:
    a row's own cost per token, at its batch, took 40 tokens/s at batch 40 over 60 at batch 20 for 20 users at one
    price), then the least cost per token; replicas of one configuration, each running B sequences but the last, which runs fewer,
    no slower (a mix of configurations, the remainder on a smaller one, is not sought)."""
    rows = _reachable(df, refused)
    out: dict[str, dict | None] = {}
    for kind in KINDS:
        r = rows[(rows["decoding"] == kind) & (rows[SPEED] >= min_tokens_per_s_per_user)]
        points = [p for p in (extra or {}).get(kind) or [] if p is not None and float(p[SPEED]) >= min_tokens_per_s_per_user]
        computed_now = np.zeros(len(r), dtype=bool)
        if points:
            r = pd.concat([r, *(p.to_frame().T.assign(decoding=kind) for p in points)], ignore_index=True)
            computed_now = np.r_[computed_now, np.ones(len(points), dtype=bool)]
        if not len(r):
            out[kind] = None
            continue
        replicas, devices, usd, exact_usd = _fleet_of(r, users, prices)
        usable = np.isfinite(usd)
        if not usable.any():
            out[kind] = None
            continue
        i = int(np.lexsort((r[COST].astype(float).to_numpy(), -r[SPEED].astype(float).to_numpy(), devices,
                            np.where(usable, usd, np.inf)))[0])
        row = r.iloc[i].copy()
        row["layout"] = _layout(row)
        out[kind] = {"row": row, "replicas": int(replicas[i]), "devices": int(devices[i]), "usd_per_hour": float(exact_usd[i]),
                     "computed_now": bool(computed_now[i])}
    return out


def refine_fleet(df: pd.DataFrame, min_tokens_per_s_per_user: float, users: int, refused: list[dict] | None = None,
                 extra_dirs: tuple = (), meta: dict | None = None, serving: bool = False,
                 found: dict | None = None, prices: dict | None = None) -> tuple[dict[str, list], list[str]]:
    """({kind: [the rows computed now at batches not swept that could make a cheaper fleet]}, notes): refine's gaps
    (_gaps: a config's batches above its largest swept one fast enough, to the next swept one or the most that fit),
    each swept now (_reproduced, at the table's prices) where its least fleet, ceil(users / min(users, its last batch))
    x the config's rent, is at most the cheapest fleet found (`found`: fleet_picks' of the swept rows; qa417: 2 x 4
    H100 at batch 32 where 1 x 4 H200 at batch 50, between the swept 32 and 64, serves the same 50 users for 25% less;
    at most, so a tie goes to the least cost per token, qa418); the batches below a config's smallest swept one where
    none of its swept ones is fast enough, and a config none of whose swept batches fits, from 1 to the most that fit
    (qa418: 10 users at 60 tokens/s on 8 H200 at batch 10, the sweep's smallest batch 64); REFINE_CONFIGS_MAX sweeps a
    kind at most, the most promising first. The notes say the configs that could have been cheaper and were not swept
    (the cap reached, or a config its profiles no longer reproduce; qa419: said nowhere)."""
    candidates = _candidates(df)
    out: dict[str, list] = {}
    notes: list[str] = []
    for kind in KINDS:
        speculative = kind == "speculation"
        keys = [c for c in (*CONFIG, *(("method", "draft_hardware", "k", "alpha") if speculative else ())) if c in df and c != "batch"]
        rows = candidates[candidates["decoding"] == kind]
        rows = rows[~refused_rows(rows, refused or [])]  # a layout no engine runs is no fleet (qa419: it took a sweep)
        usable = rows[rows["fits_in_memory"].astype(bool) & rows[COST].notna()]
        best = (found or {}).get(kind)  # its total as fleets are ranked (_fleet_of's rounded rent), not as said
        best_usd_per_hour = (float(_fleet_of(best["row"].to_frame().T.assign(decoding=kind), users, prices)[2][0])
                             if best else math.inf)
        spans = [(label, batches, place) for _, _, label, batches, place in
                 _gaps(rows, keys, usable.index, min_tokens_per_s_per_user)]
        spans += _unfitted_spans(rows, keys, usable.index, speculative)
        spans = [(label, batches, place) for label, batches, place in spans  # one replica of the swept batch already
                 if place == "below" or int(rows.at[label, "batch"]) < users]
        if not spans:
            out[kind] = []
            continue
        last_batches = np.array([min(max(batches), users) for _, batches, _ in spans])
        heads = rows.loc[[label for label, _, _ in spans]].assign(batch=last_batches, decoding=kind)
        bounds_usd_per_hour = _fleet_of(heads, users, prices)[2]  # each span's least fleet, at once (qa419)
        order = [i for i in np.argsort(bounds_usd_per_hour, kind="stable") if bounds_usd_per_hour[i] <= best_usd_per_hour]
        points, reading, skipped = [], {}, []
        for n, i in enumerate(order):
            if bounds_usd_per_hour[i] > best_usd_per_hour:
                break
            if n == REFINE_CONFIGS_MAX:
                left = sum(bounds_usd_per_hour[j] <= best_usd_per_hour for j in order[n:])
                skipped.append(f"{left} more configs' batches that could serve them for less (a fleet sweeps at most "
                               f"{REFINE_CONFIGS_MAX} configs' batches)")
                break
            label, batches, _ = spans[i]
            row = rows.loc[label]
            wanted = [b for b in batches if b <= last_batches[i]]
            if _given_in_code(row, meta):
                skipped.append(f"{_deployment_named(row)}: a spec object given in code")
                continue
            try:
                now = _reproduced(row, kind, speculative, meta, sorted({*wanted, int(row["batch"])}), extra_dirs, reading, serving)
            except RooflineError as exc:
                skipped.append(f"{_deployment_named(row)}: {str(exc).removeprefix('sweep: ')}")
                continue
            if now is None:
                skipped.append(f"{_deployment_named(row)}: its swept batch {int(row['batch'])} comes out otherwise now")
                continue
            at = now[now["batch"] == int(row["batch"])]
            scale = float(row[COST]) / float(at[COST].iloc[0]) if float(at[COST].iloc[0]) > 0 else float("nan")
            now = now[(now["batch"] != int(row["batch"])) & now["fits_in_memory"].astype(bool)
                      & (now[SPEED] >= min_tokens_per_s_per_user) & now[COST].notna() & ~refused_rows(now, refused or [])]
            if not len(now) or not is_finite(scale):
                continue
            now = now.assign(**{COST: now[COST] * scale}, decoding=kind)
            fleet_usd_per_hour = _fleet_of(now, users, prices)[2]
            j = int(np.argmin(fleet_usd_per_hour))
            if fleet_usd_per_hour[j] <= best_usd_per_hour:
                best_usd_per_hour = float(fleet_usd_per_hour[j])
                points.extend(now.iloc[m].drop(labels="decoding")
                              for m in np.flatnonzero(fleet_usd_per_hour == fleet_usd_per_hour[j]))
        out[kind] = points
        if skipped:
            notes.append(f"the {kind} fleet: batches not swept that could serve these users for less were not priced: "
                         + "; ".join(skipped[:3]) + (f"; and {len(skipped) - 3} more" if len(skipped) > 3 else ""))
    return out, notes


def _unfitted_spans(rows: pd.DataFrame, keys: list[str], usable: pd.Index, speculative: bool) -> list[tuple]:
    """(label, batches, 'below') of each config of `rows` none of whose swept batches is usable (none fits) but whose
    max_batch (baseline_max_batch for a plain point) says a smaller one fits: its batches from 1 to that one (qa418:
    TP 2 with a draft model, swept from batch 16, fits at batch 1 and reaches 86 tokens/s per user there)."""
    cap_column = "max_batch" if speculative or "baseline_max_batch" not in rows else "baseline_max_batch"
    if cap_column not in rows or not len(rows):
        return []
    marked = rows.assign(_usable=rows.index.isin(usable), _cap=pd.to_numeric(rows[cap_column], errors="coerce"),
                         _batch=rows["batch"].astype(int))
    groups = marked.groupby(keys, dropna=False, sort=False, observed=True)  # one row a config, at once (qa419)
    configs = groups.agg(usable=("_usable", "any"), cap=("_cap", "max"), smallest=("_batch", "min"),
                         first=("_batch", "idxmin"))
    kept = configs[~configs["usable"] & (configs["cap"] >= 1) & (configs["cap"] < configs["smallest"])]
    return [(first, range(1, min(int(cap), REFINE_POINTS_MAX) + 1), "below")
            for first, cap in zip(kept["first"], kept["cap"])]


def answer(df: pd.DataFrame, min_tokens_per_s_per_user: float | None = None, meta: dict | None = None,
           extra_dirs: tuple = (), serving: bool = False, path=None, refine_batches: bool = True,
           users: int | None = None) -> dict:
    """What `roofline cheapest` answers of a results table (`roofline.cheapest` returns it): ideal's rows left out
    beside serving engines (without_bound), the rows no engine runs left out (refused_layouts, and mismatched_drafts:
    a draft model of another tokenizer, read off `meta`, the sweep's scenario.json), the cost frontier, the cheapest
    row of each kind at least `min_tokens_per_s_per_user` fast, and the points between the swept batches that reach it
    cheaper (refine; not where `refine_batches` is false: a --where that chose the batches).

    With `users` (and a speed), also the cheapest fleet of each kind for that many users at once (fleet_picks).

    Returns {'table': the rows ranked, 'frontier', 'picks' ({kind: row or None}; None without a speed), 'refined'
    ({kind: {'row', 'place', 'notes'}}), 'fleet' ({kind: fleet or None}; None without users), 'refused', 'unchecked',
    'notes' (the lines under cheapest's table)}."""
    df, bound_note = without_bound(df)  # the roofline bound beside serving engines: left out, as the report leaves it
    refused, unchecked = refused_layouts(df, extra_dirs)
    refused += mismatched_drafts(df, meta, extra_dirs)  # a draft model of another tokenizer: no engine runs it
    frontier = cost_frontier(df, refused)
    speed = min_tokens_per_s_per_user
    picks = cheapest(df, speed, refused) if speed is not None else None
    refined = refine(df, speed, refused, extra_dirs, meta, serving) if picks and refine_batches else {}
    notes = ([bound_note] if bound_note else []) + cheapest_notes(df, frontier, picks, refined, refused, unchecked, path,
                                                                   meta, extra_dirs, speed, serving)
    if serving:
        notes += [note for note in [prefill_share_note(picks)] if note]
    fleet = None
    if users is not None and speed is not None:
        extra = {kind: [r["row"]] for kind, r in refined.items()}
        # the sweep's prices: a fleet's rent exact (qa418), else as the table's plain costs give them (qa419)
        prices = (meta or {}).get("price_usd_per_hour") or swept_prices(df)
        fleet = fleet_picks(df, speed, users, refused, extra, prices)
        if refine_batches:  # the batches a fleet needs between the swept ones (qa417), where they could be cheaper
            more, skipped = refine_fleet(df, speed, users, refused, extra_dirs, meta, serving, fleet, prices)
            extra = {kind: extra.get(kind, []) + more.get(kind, []) for kind in KINDS}
            fleet = fleet_picks(df, speed, users, refused, extra, prices)
            notes += skipped
        for kind, f in fleet.items():  # the per-token pick (or its point computed now) for the same users (qa419: the
            # text priced it from the table's rounded costs)
            point = (refined.get(kind) or {}).get("row")
            pick = point if point is not None else (picks or {}).get(kind)
            if f is not None and pick is not None:
                replicas, devices, _, usd_per_hour = _fleet_of(pick.to_frame().T.assign(decoding=kind), users, prices)
                f["pick"] = {"row": pick, "replicas": int(replicas[0]), "devices": int(devices[0]),
                             "usd_per_hour": float(usd_per_hour[0])}
        # what is said of a pick, said of a fleet's row where it is another point (qa418: SGLang's cap of 48 sequences
        # said of the pick's batch 1,024, not of the fleet's 300)
        said = pick_note_kinds(picks, extra_dirs, meta) if picks else {}
        rows = {kind: f["row"] for kind, f in fleet.items() if f is not None}
        new = pick_note_kinds(rows, extra_dirs, meta) if rows else {}
        notes += said_of({note: kinds for note, kinds in new.items() if not set(kinds) <= set(said.get(note, ()))}, "fleet")
        notes += repriced_fleet_notes(df, fleet, speed, users, refused, meta, extra_dirs, extra)
    return {"table": df, "frontier": frontier, "picks": picks, "refined": refined, "fleet": fleet, "refused": refused,
            "unchecked": unchecked, "notes": notes}


REFINE_POINTS_MAX = 4096  # batches a refinement prices at most (between two swept batches, or above the largest)
REFINE_CONFIGS_MAX = 64   # configs a refinement sweeps at most (each tens of ms), the most promising first
REFINE_GAIN_MIN = 0.005   # a point at a batch not swept is shown where it is at least this much cheaper


def refine(df: pd.DataFrame, min_tokens_per_s_per_user: float, refused: list[dict] | None = None, extra_dirs: tuple = (),
           meta: dict | None = None, serving: bool = False) -> dict[str, dict]:
    """{kind: {'row': the cheapest point of that kind at a batch not swept, as fast, or None; 'place': where it lies,
    'between' swept batches, 'above' the config's largest or 'below' its smallest; 'notes': what could not be priced}}.

    A table prices only its swept batches, and the batch that just reaches a speed is usually between two of them (qa91:
    DeepSeek-V3's plain pick at batch 4 of 1, 4, 16, ..., where batch 15 on another GPU reaches 60 tokens/s per user at
    half its cost). For each config of the table (hardware, model, engine, layout, dtypes, context, shared prefix; a
    speculative one's method, drafter's device, k and alpha) whose largest swept batch that is fast enough fits, is
    priced and loads, that batch and those above it up to the next swept batch of the config (or, above the largest, up
    to the most that fit; REFINE_POINTS_MAX at most), and for a config whose every swept batch is too slow the batches
    below its smallest (cost can only rise there: the least is the smallest's), are swept now with the profiles on the
    search path. A gap can beat the cheapest found only where the least cost it can reach, c B / B', is below it (a step
    never shortens as the batch grows, so tokens/s grow at most as the batch: c the edge's cost, B its batch, B' the
    gap's last); those are swept in order of the cost they are likely to reach (_likely_cost: the step carried along
    its secants to the swept batches either side of the edge), REFINE_CONFIGS_MAX sweeps at most (where reached,
    said with the number of gaps left that could still win). The swept batch itself must come out as
    the table has it (_reproduced): a config the table's columns and its scenario.json (`meta`: a draft model, a tree,
    per-position rates, a draft vocabulary, overlap, a request; `serving`: `df` is serving_view's, and so is each sweep
    now) do not reproduce, or whose profiles are not on the search path, is
    not priced, and said. Costs are the table's: where a price changed since, a point's cost now is scaled by the swept
    batch's table cost over its cost now (the same config's rent). The cheapest point as fast, fitting and at a layout
    the engines load is returned where it is at least REFINE_GAIN_MIN cheaper than the table's cheapest."""
    from roofline.tables import DTYPE_LABELS, varied_dtypes

    out: dict[str, dict] = {}
    candidates = _candidates(df)
    varied = varied_dtypes(df)
    for kind in KINDS:
        speculative = kind == "speculation"
        keys = [c for c in (*CONFIG, *(("method", "draft_hardware", "k", "alpha") if speculative else ())) if c in df and c != "batch"]
        rows = candidates[candidates["decoding"] == kind]
        usable = rows[rows["fits_in_memory"].astype(bool) & rows[COST].notna() & ~refused_rows(rows, refused or [])]
        fast = usable[usable[SPEED] >= min_tokens_per_s_per_user]
        table_best = float(fast[COST].min()) if len(fast) else math.inf
        gaps = _gaps(rows, keys, usable.index, min_tokens_per_s_per_user)
        gaps.sort(key=lambda g: (g[0], g[1]))  # qa96: ordered by c B / B' alone, 64 sweeps of gaps above configs that
        # fit thousands (a small bound, a cost that hardly falls) missed MI300X's gap to batch 608, the cheapest
        tried, best, place_best, failed, reading = 0, None, "", [], {}
        for n, (_, bound, label, batches, place) in enumerate(gaps):
            bar = (best[COST] if best is not None else table_best) * (1 - REFINE_GAIN_MIN)
            if bound >= bar:
                continue  # it cannot beat what is found (qa95: a cap of 8 configs missed a cheaper one)
            if tried == REFINE_CONFIGS_MAX:
                left = sum(g[1] < bar for g in gaps[n:])
                failed.append((bound, f"{left} more configs' gaps that could be cheaper (the batches between swept ones "
                               f"are computed for at most {REFINE_CONFIGS_MAX} configs)"))  # (qa354: 'swept' read as the sweep's)
                break
            tried += 1
            row = rows.loc[label]  # the swept row the gap starts from
            batch = int(row["batch"])
            where = f"{row['model']} on {row['hardware']} ({_layout(row)}, {row['engine']}, context {int(row['context']):,}" + "".join(
                f", {label} {row[c]}" for c, label in DTYPE_LABELS if c in varied and str(row.get(c, ""))) + (  # qa102
                # model, context, dtypes, engine, alpha and drafter too: configs
                f", {row['method']} k {int(row['k'])}" + (f" at alpha {row['alpha']:g}" if pd.notna(row.get("alpha")) else "")  # named
                + (f", drafter on {row['draft_hardware']}" if isinstance(row.get("draft_hardware"), str) and row["draft_hardware"]
                   else "") if speculative else "") + f") batch {batches[0]}-{batches[-1]}"  # alike merged (qa96)
            in_code = _given_in_code(row, meta)
            if in_code:  # no profile to compute it from (qa411: 'unknown hardware ...; closest: h100-sxm')
                failed.append((bound, f"{where}: {in_code} a spec object given in code, which no profile describes"))
                continue
            try:
                now = _reproduced(row, kind, speculative, meta, sorted({*batches, batch}), extra_dirs, reading, serving)
            except RooflineError as exc:
                failed.append((bound, f"{where}: {str(exc).removeprefix('sweep: ')}"))
                continue
            if now is None:
                failed.append((bound, f"{where}: its swept batch {batch} comes out otherwise now (swept with something "
                               "the table's columns do not hold, or profiles changed since; scenario.json beside the table "
                               "holds the rest)"))
                continue
            at = now[now["batch"] == batch]
            scale = float(row[COST]) / float(at[COST].iloc[0]) if float(at[COST].iloc[0]) > 0 else float("nan")  # the table's prices
            if not is_finite(scale):  # a device priced when swept has no price now (qa96: skipped in silence)
                failed.append((bound, f"{where}: a device of it has no price in its profile now"))
                continue
            now = now[(now["batch"] != batch) & now["fits_in_memory"].astype(bool) & (now[SPEED] >= min_tokens_per_s_per_user)
                      & now[COST].notna() & ~refused_rows(now, refused or [])]
            if len(now) and is_finite(scale) and (best is None or now[COST].min() * scale < best[COST]):
                best = now.loc[now[COST].idxmin()].copy()
                best[COST] = best[COST] * scale
                best["layout"] = _layout(best)
                place_best = place
        cheaper = best is not None and best[COST] < table_best * (1 - REFINE_GAIN_MIN)
        # a config not priced is said where the least it could cost is below what was found (it might have beaten it)
        bar = best[COST] if cheaper else table_best
        notes = list(dict.fromkeys(text for bound, text in failed if bound < bar))
        out[kind] = {"row": best if cheaper else None, "place": place_best if cheaper else "",
                     "notes": [f"{kind} points at unswept batches not priced: " + "; ".join(notes[:3])
                               + (f"; and {len(notes) - 3} more" if len(notes) > 3 else "")] if notes else []}
    return out


def _given_in_code(row, meta: dict | None) -> str:
    """'its hardware h100-fast is' where a profile of `row` was a spec object roofline.sweep was given, which no file
    describes (its scenario.json's profile_files: None), '' else."""
    files = (meta or {}).get("profile_files")
    if not isinstance(files, dict):
        return ""
    found = [f"{kind} {name}" for kind, column in (("hardware", "hardware"), ("model", "model"), ("engine", "engine"),
                                                   ("hardware", "draft_hardware"))
             for name in [row.get(column)] if isinstance(name, str) and name and isinstance(files.get(kind), dict)
             and name in files[kind] and files[kind][name] is None]
    return f"its {', '.join(found)} {'is' if len(found) == 1 else 'are'}" if found else ""


def _gaps(rows: pd.DataFrame, keys: list[str], usable: pd.Index, min_tokens_per_s_per_user: float) -> list[tuple]:
    """refine's gaps of one kind's `rows`, one a config at most: (the cost it likely reaches, the least it can, the
    label of the swept row it starts from, its batches, where: 'between' | 'above' | 'below'). Each config's rows are
    read as numpy slices of the table sorted by config and batch (qa371: a Series a row, 20,736 rows, 57 s a call):
    above its largest usable batch fast enough, B, to the next swept batch less one (or the most that fit, max_batch),
    REFINE_POINTS_MAX at most; or, where no usable batch is fast enough and none is swept below the smallest usable
    one, the REFINE_POINTS_MAX batches below that."""
    if not len(rows):
        return []
    config = rows.groupby(keys, dropna=False, sort=False, observed=True).ngroup().to_numpy()
    batch_all = rows["batch"].to_numpy(dtype=np.int64)
    order = np.lexsort((batch_all, config))  # by config, then batch (stable: a tie keeps the table's order)
    config, batch_all = config[order], batch_all[order]
    speed = rows[SPEED].to_numpy(dtype=float)[order]
    cost = rows[COST].to_numpy(dtype=float)[order]
    ok = rows.index.isin(usable)[order]
    ceiling_all = (rows["max_batch"].to_numpy(dtype=float)[order] if "max_batch" in rows
                   else np.full(len(rows), np.nan))
    labels = rows.index.to_numpy()[order]
    cuts = np.flatnonzero(np.diff(config)) + 1
    gaps = []
    for start, end in zip(np.r_[0, cuts], np.r_[cuts, len(config)]):
        every = batch_all[start:end]  # every swept batch of the config, usable or not: where its gaps end
        mine = np.flatnonzero(ok[start:end]) + start
        if not len(mine):
            continue
        fast = mine[speed[mine] >= min_tokens_per_s_per_user]
        if len(fast):  # above the largest fast-enough batch, to the next swept one (or the most that fit)
            at = int(fast[-1])
            batch = int(batch_all[at])
            higher = every[every > batch]
            ceiling = int(ceiling_all[at]) if not np.isnan(ceiling_all[at]) else batch
            upper = min(int(higher.min()) - 1 if len(higher) else ceiling, batch + REFINE_POINTS_MAX)
            if upper > batch:  # a step never shortens with the batch: tokens/s grow at most as it, cost >= c B / B'
                below = mine[batch_all[mine] < batch]
                above = np.flatnonzero(every > batch) + start
                near = [(int(batch_all[i]), float(speed[i])) for i in (*below[-1:], *above[:1])]
                likely = _likely_cost(batch, float(speed[at]), float(cost[at]), near, upper, min_tokens_per_s_per_user)
                gaps.append((likely, float(cost[at]) * batch / upper, labels[at], range(batch + 1, upper + 1),
                             "between" if len(higher) else "above"))
        elif int(batch_all[mine[0]]) > 1 and not (every < int(batch_all[mine[0]])).any():
            at = int(mine[0])  # every swept batch too slow: the smaller ones below the smallest (qa95: 16, 64, 256
            # said 'no row reaches' 120 tokens/s, where batch 8 reaches 121); tokens/s fall with the batch, cost rises
            gaps.append((float(cost[at]), float(cost[at]), labels[at],
                         range(max(1, int(batch_all[at]) - REFINE_POINTS_MAX), int(batch_all[at])), "below"))
    return gaps


def _likely_cost(batch: int, speed: float, cost: float, near: list[tuple[int, float]], upper: int,
                 min_tokens_per_s_per_user: float) -> float:
    """The cost a gap above a swept row (batch B, cost c, tokens/s per user v) likely reaches by batch `upper`, the
    order refine sweeps gaps in (an estimate, not a bound). A sequence's step u = 1 / v is carried along the mean slope
    s of its secants to the swept batches `near` ((batch, tokens/s per user) of the config's next usable batch below B
    and next swept batch above it, where there is one; s >= 0, 0 without one): u(b) = u + s (b - B); speed holds while u(b) <= 1 / X, to
    b' = min(upper, B + (1 / X - u) / s); cost per token goes as u(b) / b, so the likely least is c B u(b') / (u b'),
    or c where that is more (the cost rising with the batch)."""
    u = 1.0 / speed
    slopes = [(u - 1.0 / v) / (batch - b) for b, v in near if v > 0]
    slope = max(0.0, float(np.mean(slopes))) if slopes else 0.0
    reach = float(upper)
    if slope > 0 and min_tokens_per_s_per_user > 0:
        reach = min(reach, batch + max(0.0, (1.0 / min_tokens_per_s_per_user - u) / slope))
    reach = max(reach, batch + 1.0)
    return cost * min(1.0, batch * (u + slope * (reach - batch)) / (u * reach))


def _reproduced(row: pd.Series, kind: str, speculative: bool, meta: dict | None, batches: list[int],
                extra_dirs: tuple, order: dict, serving: bool = False) -> pd.DataFrame | None:
    """The rows of `kind` of row's config swept over `batches` (its own among them), where that sweep gives the row's
    own batch the table's speed (to 1e-6), else None. A dtype label that is the model's native one is tried as the
    native dtypes and as given (`order`: the model's reading that reproduced a row before, tried first): DeepSeek-V4-
    Flash's 'fp4' experts are fp4 routed and fp8 shared ones natively, fp4 both where the scenario said expert_dtype fp4
    (qa96), and the table cannot tell which."""
    import warnings

    from roofline.api import sweep

    tried = []
    for explicit in order.get(str(row["model"]), (False, True)):
        spec = _config_scenario(row, speculative, meta, batches, extra_dirs, explicit, serving)
        if spec in tried:
            continue
        tried.append(spec)
        with warnings.catch_warnings():  # the sweep's own notes were said when the table was swept
            warnings.simplefilter("ignore")
            now = sweep(spec, extra_dirs)
        now = serving_view(now, "refine") if serving else now  # as the table was read (cheapest --serving)
        now = now[(now["method"] != "none") & (now["k"] > 0)] if speculative else now  # a plain sweep: method none
        at = now[now["batch"] == int(row["batch"])]
        if len(at) == 1 and math.isclose(float(at[SPEED].iloc[0]), float(row[SPEED]), rel_tol=1e-6):
            order[str(row["model"])] = (explicit, not explicit)
            return now
    return None


def plain_at_largest_fit(df: pd.DataFrame, meta: dict | None, extra_dirs: tuple = ()) -> pd.DataFrame:
    """`df` with, for each plain-decoding config (CONFIG but the batch) whose swept batches stop short of the most that
    fit (its largest swept batch that fits is below baseline_max_batch, and no swept batch lies between), that config's
    plain point at baseline_max_batch swept now (method none, k 0; `computed_now` true), where the sweep reproduces the
    swept batch (_reproduced): the cheapest tier is the largest batch that fits (README's glossary), which a batch axis
    stopping at 1,024 priced 24-51% above it (qa375: DeepSeek-V3's fast tiers, against `cheapest`'s)."""
    plain = _candidates(df)
    plain = plain[plain["decoding"] == "plain"]
    keys = [c for c in CONFIG if c in plain and c != "batch"]
    if not len(plain) or "baseline_max_batch" not in df:
        return df
    added = []
    for _, rows in plain.groupby(keys, dropna=False, sort=False, observed=True):
        fitting = rows[rows["fits_in_memory"].astype(bool)]
        if not len(fitting):
            continue
        row = fitting.loc[fitting["batch"].idxmax()]
        largest, cap = int(row["batch"]), int(row["max_batch"]) if pd.notna(row["max_batch"]) else 0
        if cap <= largest or ((rows["batch"] > largest) & (rows["batch"] <= cap)).any():
            continue
        try:
            now = _reproduced(row, "plain", False, meta, [largest, cap], extra_dirs, {})
        except RooflineError:
            continue  # not reproducible from the table (a profile gone): the swept batch stays the tier
        if now is None:
            continue
        added.append(now[now["batch"] == cap].assign(computed_now=True, sequence_cap=_sequence_cap(row, extra_dirs),
                                                       **_config_labels(df, keys, row)))
    return pd.concat([df.assign(computed_now=False), *added], ignore_index=True) if added else df


def fastest_at_largest_fit(rows: pd.DataFrame, meta: dict | None, extra_dirs: tuple = ()) -> dict | None:
    """The most tokens/s of `rows` (one config but k and alpha: one device, model, context, engine, layout and shared
    prefix) with each (k, alpha)'s largest batch that fits priced too where the swept batches stop short of it
    (max_batch, or plain decoding's baseline_max_batch at k = 0; swept now by _reproduced, as plain_at_largest_fit):
    {'tokens_per_s', 'batch', 'k', 'computed_now'}; None where no row fits. Throughput grows at most as the batch (a
    step never shortens with it), so a cap whose c B' / B cannot beat the best found is not swept."""
    fitting = rows[rows["fits_in_memory"].astype(bool)]
    if not len(fitting):
        return None
    top = fitting.loc[fitting["tokens_per_s"].idxmax()]
    best = {"tokens_per_s": float(top["tokens_per_s"]), "batch": int(top["batch"]), "k": int(top["k"]), "computed_now": False}
    gaps = []
    for _, group in fitting.groupby(["k", "alpha"], dropna=False, sort=False):
        row = group.loc[group["batch"].idxmax()]
        largest = int(row["batch"])
        plain = int(row["k"]) == 0 or str(row["method"]) == "none"
        cap_value = row["baseline_max_batch"] if plain else row["max_batch"]
        cap = int(cap_value) if pd.notna(cap_value) else largest
        alpha = rows["alpha"].isna() if pd.isna(row["alpha"]) else rows["alpha"] == row["alpha"]  # NaN matching NaN
        swept = rows.loc[(rows["k"] == row["k"]) & alpha, "batch"]
        if cap > largest and not ((swept > largest) & (swept <= cap)).any():
            gaps.append((float(row["tokens_per_s"]) * cap / largest, row, largest, cap, plain))
    for bound, row, largest, cap, plain in sorted(gaps, key=lambda g: -g[0]):
        if bound <= best["tokens_per_s"]:
            break  # the rest cannot beat it either
        try:
            now = _reproduced(row, "plain" if plain else "speculation", not plain, meta, [largest, cap], extra_dirs, {})
        except RooflineError:
            continue  # not reproducible from the table (a profile gone): its swept batches stand
        at = now[(now["batch"] == cap) & now["fits_in_memory"].astype(bool)] if now is not None else now
        if at is not None and len(at) and float(at["tokens_per_s"].iloc[0]) > best["tokens_per_s"]:
            best = {"tokens_per_s": float(at["tokens_per_s"].iloc[0]), "batch": cap, "k": int(row["k"]), "computed_now": True}
    return best


def points_between_for_speeds(df: pd.DataFrame, speeds: dict, meta: dict | None, extra_dirs: tuple = ()) -> pd.DataFrame:
    """`df` with, for each device of `speeds` ({hardware: [tokens/s per user, ...]}) and each speed, refine's cheapest
    point of each kind that reaches it at a batch not swept (plain decoding's, labelled as the table labels its config's
    plain rows, as plain_at_largest_fit's; speculation's, a drafting row), `computed_now` true: the fast tiers' 2x and 3x
    points, which the swept batches priced at the largest swept batch fast enough (qa375's leftover: the batch that
    just reaches a speed lies between two swept ones). A point refine cannot price is left to the swept rows."""
    refused, _ = refused_layouts(df, extra_dirs)
    keys = [c for c in CONFIG if c in df and c != "batch"]
    added = []
    for hw, targets in speeds.items():
        rows = df[df["hardware"].astype(str) == str(hw)]
        for speed in targets:
            for kind, found in refine(rows, float(speed), refused, extra_dirs, meta).items():
                point = found["row"]
                if point is None:
                    continue
                point = point.drop(labels=["layout", "decoding"], errors="ignore")
                if kind == "plain":  # a plain sweep's row: its config's labels as the table has them (method, alpha)
                    point = point.copy()
                    for column, label in _config_labels(df, keys, point).items():
                        point[column] = label
                added.append(point.to_frame().T.assign(computed_now=True))
    if not added:
        return df
    out = pd.concat([df.assign(computed_now=df["computed_now"] if "computed_now" in df else False), *added], ignore_index=True)
    return out.infer_objects()


def _config_labels(df: pd.DataFrame, keys: list[str], row: pd.Series) -> dict:
    """The labels `df`'s rows of `row`'s config (its `keys`) carry, of its first k: a plain point swept now as plain
    decoding (method none, no alpha) keeps them (method eagle at k 0, the alpha swept), so a sweep of eagle reads as one
    of eagle (qa375's fix said 'method eagle')."""
    same = df[(df[keys].astype(str) == row[keys].astype(str)).all(axis=1)].sort_values("k", kind="stable")
    return {c: same[c].iloc[0] for c in ("method", "alpha", "draft_hardware", "draft_placement") if c in df and len(same)}


def _sequence_cap(row: pd.Series, extra_dirs: tuple = ()) -> float:
    """The sequences a row's engine runs at once by default on its device (capacity.default_sequences in each
    attention-DP group; NaN where the profile gives none or a profile does not load): a point computed above it assumes
    that cap raised (qa376: the cheapest tier at batch 2,435 under vllm's 1,024, unsaid)."""
    from roofline.capacity import default_sequences
    from roofline.hardware import load_hardware
    from roofline.serving import load_engine

    try:
        hw = load_hardware(str(row["hardware"]), extra_dirs)
        sequences = default_sequences(load_engine(str(row["engine"]), extra_dirs).for_hardware(hw), hw)
    except RooflineError:
        return float("nan")
    return float(sequences * int(row.get("dp_attention", 1) or 1)) if sequences else float("nan")


def _config_scenario(row: pd.Series, speculative: bool, meta: dict | None, batches: list[int], extra_dirs: tuple = (),
                     explicit: bool = False, serving: bool = False) -> dict:
    """The scenario mapping of one results row's config over `batches` (refine): its columns, and from its sweep's
    scenario.json (`meta`) what they do not hold; a RooflineError where neither holds what the row needs. A dtype label
    that is the model's native one is left out (the model's own dtypes: a label names two classes where they differ),
    or with `explicit` given as it is."""
    from roofline.model import KV_DTYPES, WEIGHT_DTYPES, load_model

    meta = meta or {}
    allowed = {"weight_dtype": WEIGHT_DTYPES, "expert_dtype": WEIGHT_DTYPES, "kv_dtype": KV_DTYPES}
    dtypes = ({c: str(row[c]) for c in allowed if isinstance(row.get(c), str) and row[c] in allowed[c]} if explicit
              else row_dtypes(row, load_model(str(row["model"]), extra_dirs)))
    if serving and not (meta.get("prompt") and meta.get("output_len")):  # (qa348: said as a table without serving columns)
        raise RooflineError("a request (prompt and output_len), which the table does not name (no scenario.json, nor a "
                            "report's NAME.json, beside it to read)")
    spec = {"hardware": str(row["hardware"]), "model": str(row["model"]), "engine": str(row["engine"]),
            **{c: int(row[c]) for c in ("tp", "dp_attention", "ep", "pp", "shared_prefix") if c in row and pd.notna(row[c])},
            **dtypes,
            "method": str(row["method"]) if speculative else "none",
            "axes": {"batch": batches, "context": [int(row["context"])]},
            **{key: meta[key] for key in ("prompt", "output_len") if meta.get(key) is not None}}  # a request's sweep
    if not speculative:
        return spec
    spec["axes"]["k"] = [int(row["k"])]
    drafter_device = isinstance(row.get("draft_hardware"), str) and bool(row["draft_hardware"])
    if drafter_device:
        spec["draft_hardware"] = row["draft_hardware"]
    if meta.get("overlap") is not None and drafter_device and row["method"] == "draft":  # only a drafter elsewhere overlaps
        spec["overlap"] = meta["overlap"]
    if meta.get("draft_vocab") is not None and row["method"] in VOCAB_HEADS:
        spec["draft_vocab"] = meta["draft_vocab"]
    if row["method"] == "draft":
        if not isinstance(meta.get("draft"), str):
            raise RooflineError("a draft model, which the table does not name (no readable scenario.json, nor a report's NAME.json, beside it)")
        spec["draft"] = meta["draft"]
    if meta.get("tree_nodes") is not None:
        spec["tree"] = {"nodes": meta["tree_nodes"], "tau": meta.get("tree_tau")}  # a tau missing: the scenario check says so
    elif pd.notna(row.get("alpha")):
        spec["axes"]["alpha"] = [float(row["alpha"])]
    elif meta.get("acceptance") is not None:
        spec["acceptance"] = list(meta["acceptance"])
    elif not (meta.get("default_rates") or {}).get(str(row["method"])):
        raise RooflineError("a tree, per-position acceptance rates or a method's published default rates, which the table "
                            "does not hold (no readable scenario.json, nor a report's NAME.json, beside it; from Python, an "
                            "alpha axis in the scenario gives each row its own alpha)")  # (qa295: default rates unsaid)
    return spec


def pick_notes(picks: dict, extra_dirs: tuple = (), what: str = "pick", meta: dict | None = None) -> list[str]:
    """pick_note_kinds' notes said as the table says them: 'the plain and speculation picks: NOTE' (a note that holds
    for both picks said once, naming both: qa290, a pick of one config said twice over)."""
    return said_of(pick_note_kinds(picks, extra_dirs, meta), what)


def said_of(kinds_of: dict[str, list[str]], what: str = "pick") -> list[str]:
    """{note: the picks it holds for} as lines naming them: 'the plain pick: ...', 'the plain and speculation picks: ...'."""
    plural = (what.replace("pick", "picks", 1) if what.startswith("pick") else what.replace("fleet", "fleets", 1)
              if what.startswith("fleet") else what.replace("point", "points", 1))
    return [f"the {' and '.join(kinds)} {plural if len(kinds) > 1 else what}: {note}" for note, kinds in kinds_of.items()]


def pick_note_kinds(picks: dict, extra_dirs: tuple = (), meta: dict | None = None) -> dict[str, list[str]]:
    """{note: the picks (kinds, 'plain' / 'speculation') it holds for}: what predict says of a picked row's engine on
    its devices and model that the table cannot carry (qa87: the headline a planner acts on was the one line without
    them): the engine parameters no fit row determined that the point leans on (speculation costs where it
    speculates, host work where the engine adds it or it sets the step), a parameter whose value on the device's
    family no fit row of that family determined, and a device family (the drafter's too) or model class the engine
    was fitted on no row of. Rows whose profiles are not on the search path, or whose table lacks the columns, say
    what they can. pick_notes names the row: the table's "pick", or the "point computed now" between the swept
    batches (qa145: its notes were said as the pick's, another config's). A speculative row at its method's published rates (the sweep's scenario.json `meta`: default_rates) says where they were measured on
    another model (speculation.default_rates_note; qa145: EAGLE's Llama-3.1-8B rates priced a Qwen3-235B pick), and one
    above its engine's cap while speculating says so (serving.speculation_engine_notes)."""
    from roofline.capacity import running_cap_note
    from roofline.engine import (
        dispatches,
        host_overlapped,
        host_sets_step,
        host_time_s,
        parameters_used,
        step_metrics,
        unfitted_family_note,
    )
    from roofline.hardware import load_hardware
    from roofline.model import load_model
    from roofline.serving import (
        dispatch_latency_note,
        engine_on_a_cpu,
        fit_bound_note,
        fitted_class_note,
        fitted_elsewhere_note,
        fitted_family_note,
        host_amortised_note,
        known_miss_notes,
        load_engine,
        speculation_caveat_note,
        speculation_engine_notes,
        undetermined_note,
    )

    kinds_of: dict[str, list[str]] = {}  # note -> the picks it is said of
    for kind, row in (picks or {}).items():
        if row is None:
            continue
        try:
            engine, hw, model = (load_engine(str(row["engine"]), extra_dirs), load_hardware(str(row["hardware"]), extra_dirs),
                                 load_model(str(row["model"]), extra_dirs))
        except (UnknownName, KeyError):
            continue
        dep = row_deployment(row, model)
        if dep is None:
            continue
        on_hw = engine.for_hardware(hw)
        dep = for_engine(dep, on_hw, model)  # as the sweep laid it out
        speculative = kind == "speculation"
        step = row.get("verify_time_s" if speculative else "step_time_s")  # the pass the host work overlaps, if any
        # a verify pass overlaps host work only where the engine does so while speculating (speculation.py's verify engine)
        overlaps = on_hw if not speculative or on_hw.host_overlap_speculating else dataclasses.replace(on_hw, host_overlap=False)
        # an eager step's host does its launches too (qa326): its pass's, beside its host work
        launches_s = (float(step_metrics(hw, model, int(row["batch"]), 1, int(row["context"]), dep, engine=on_hw)["launch_time_s"])
                      if not on_hw.graphs and "batch" in row and "context" in row else 0.0)
        host_bound = step is not None and step == step and "batch" in row and bool(host_sets_step(
            host_overlapped(overlaps, int(row["batch"]), dep), float(host_time_s(on_hw, int(row["batch"]), dep)) + launches_s,
            float(step)))
        used = parameters_used(hw, model, dep, on_hw, speculative, host_bound, str(row.get("method", "")))
        notes = [engine_on_a_cpu(engine, hw), undetermined_note(on_hw, hw, used), fit_bound_note(on_hw, hw, used, "the config's figures"),
                 unfitted_family_note(hw, model, dep, on_hw), fitted_family_note(engine, hw), fitted_class_note(engine, model),
                 fitted_elsewhere_note(engine, hw, model, str(row.get("method", "none")) if speculative else "none", used,
                                       subject="the config"),  # (said of both picks where they share it: qa293)
                 dispatch_latency_note(on_hw, link_latency_s=hw.cross_domain_latency_s(dep.devices_per_stage))
                 if dispatches(model, dep) else ""]  # qa152: as predict and the sweep say it
        plain_s = row.get("baseline_step_time_s", row.get("step_time_s"))
        if speculative and "batch" in row and plain_s is not None and plain_s == plain_s:  # qa157: predict says it of this point
            notes.append(host_amortised_note(on_hw, int(row["batch"]), float(host_time_s(on_hw, int(row["batch"]), dep)),
                                             float(plain_s), "", hw, dep.pp))
        if speculative and "batch" in row and "method" in row:  # its engine's cap while speculating (qa177, qa178)
            notes += speculation_engine_notes(on_hw, str(row["method"]), int(row["batch"]), dep)
            notes.append(speculation_caveat_note(on_hw, str(row["method"])))
        if "batch" in row:  # its engine's cap on sequences at once (vLLM's max_num_seqs), as predict says it
            notes.append(running_cap_note(on_hw, hw, int(row["batch"]), dep))
            notes += known_miss_notes(engine, hw, model, str(row.get("method", "none")) if speculative else "none",
                                      int(row["batch"]), layout=dep.describe())
            # a measured miss at such a point, as predict says it
        if "batch" in row and "context" in row and hw.cross_domain_latency_s(dep.tp):  # qa229: predict's, of this point
            from roofline.engine import cross_domain_tp_note, step_metrics

            m = step_metrics(hw, model, int(row["batch"]), 1, int(row["context"]), dep, engine=on_hw)
            notes.append(cross_domain_tp_note(hw, dep, float(m["allreduce_time_s"]), float(m["step_time_s"]),
                                              float(m["all_to_all_time_s"])))
        if speculative and (meta or {}).get("default_rates") and "method" in row:
            from roofline.speculation import default_rates_note

            method = str(row["method"])
            notes.append(default_rates_note(method, model.name, meta.get("draft_vocab") if method == "eagle" else None))
        if speculative and "method" in row and "k" in row:  # qa210: predict says it of the same point
            from roofline.speculation import mtp_reuse_note

            notes.append(mtp_reuse_note(str(row["method"]), model, int(row["k"]), bool((meta or {}).get("default_rates")),
                                        one_point=True))
        drafter = row.get("draft_hardware") if speculative else None
        if isinstance(drafter, str) and drafter:
            from roofline.speculation import drafter_placement_note

            notes.append(drafter_placement_note([drafter], engine.name))  # as the sweep warns it (qa466: cheapest said nothing)
            try:
                drafter_hw = load_hardware(drafter, extra_dirs)
                notes.append(fitted_family_note(engine, drafter_hw, "the drafter's device "))
                notes.append(fitted_elsewhere_note(engine, drafter_hw, model, str(row.get("method", "none")),
                                                   {"kernel_latency": True}, "the drafter's device ", "the config"))
            except RooflineError:
                pass
        for note in notes:
            if note:
                kinds_of.setdefault(note, []).append(kind)
    return kinds_of


def _misses_of(row, extra_dirs: tuple, cache: dict) -> list[dict]:
    """The known misses (serving.known_misses_at) of a frontier row's engine, and of the shipped profiles priced with its
    costs (serving.cost_sharers: the same prediction, whose misses its notes list too; qa377: vllm-v0's on MI300X said
    under vllm, the margin that reverses the pick not), that its device, model, method (none for a plain row) and batch
    (or any batch of a range) match; [] where a profile does not load. `cache` holds them by that key."""
    from roofline.hardware import load_hardware
    from roofline.model import load_model
    from roofline.serving import cost_sharers, known_misses_at, load_engine

    batch = row["batch"]
    layout = _layout(pd.Series(row)) if "tp" in row else None  # (a deployment's dict without one: any layout)
    key = (str(row["engine"]), str(row["hardware"]), str(row["model"]), str(row["method"]) if row["decoding"] ==
           "speculation" else "none", batch if isinstance(batch, range) else int(batch), layout)
    if key not in cache:
        try:
            engine, hw, model = load_engine(key[0], extra_dirs), load_hardware(key[1], extra_dirs), load_model(key[2], extra_dirs)
            cache[key] = [miss for owner in (engine, *(other for other, _ in cost_sharers(engine)))
                          for miss in known_misses_at(owner, hw, model, key[3], key[4], layout)]
        except RooflineError:
            cache[key] = []
    return cache[key]


def _row_named(row, versus=None) -> str:
    """'deepseek-v3 on h200 x 8 (tp 8), sglang, batch 13' (+ ', mtp k 2' where it speculates, and a drafter's own device,
    whose price is in its cost; the dtypes and shared prefix where they differ from `versus`'s: qa314, two deployments
    read alike), a frontier row, short
    (the context is the compared row's: miss_margin_notes compares rows of one context)."""
    from roofline.tables import DTYPE_LABELS

    layout = describe_layout(int(row["tp"]), int(row.get("dp_attention", 1)), int(row.get("ep", 1)), int(row.get("pp", 1)))
    text = (f"{row['model']} on {row['hardware']} x {int(row.get('devices', row['tp']))} ({layout}), {row['engine']}, "
            f"batch {int(row['batch'])}")
    if versus is not None:
        for column, label in (*DTYPE_LABELS, ("shared_prefix", "shared prefix")):
            if str(row.get(column, "")) != str(versus.get(column, "")) and str(row.get(column, "")) not in ("", "nan"):
                text += f", {label} {row[column]}"
    drafter = str(row.get("draft_hardware", "")) if row["decoding"] == "speculation" else ""
    if drafter not in ("", "nan"):  # its device and price in the figure said (qa489: a rival's $0.312 with an L40S
        text += f", drafter on {drafter}"  # drafter, unsaid where the pick's drafter was the same)
    return text + (f", {row['method']} k {int(row['k'])}" if row["decoding"] == "speculation" else "")


def _deployment_named(row, versus=None) -> str:
    """_row_named without the batch: a deployment, not one of its points."""
    return re.sub(r", batch \d+(?:,\d{3})*", "", _row_named(row, versus), count=1)  # (qa322: the comma after it too)


def _more(ratio: float, than: str) -> str:
    """'17.5% more than the pick' of a cost ratio under 2, '11.7x as much as the pick' from 2."""
    return f"{ratio - 1:.1%} more than {than}" if ratio < 2 else f"{ratio:.3g}x as much as {than}"


# what makes a row another deployment than the answer's (its batch aside): miss_margin_notes compares only such rows
DEPLOYMENT = ("hardware", "model", "engine", "weight_dtype", "expert_dtype", "kv_dtype", "tp", "dp_attention", "ep", "pp",
              "shared_prefix", "method", "draft_hardware")
FASTER_RATIO_MIN = 0.5  # a miss measured faster is said where the step it takes is at least this share of the predicted


def miss_margin_notes(df: pd.DataFrame, picks: dict | None, min_tokens_per_s_per_user: float | None,
                      refused: list[dict] | None = None, extra_dirs: tuple = (), refined: dict | None = None,
                      meta: dict | None = None, serving: bool = False) -> list[str]:
    """What size of a known miss (serving.known_misses_at, its `measured` direction given) would reverse cheapest's
    answer of a kind (qa309: DeepSeek-V3 on 8 MI300X under sglang at batch 16 led 8 H200 by 5%, inside its 11-35%
    miss, said nowhere). The answer is the point computed now between swept batches where `refined` has one (cheaper
    than the pick by construction), else the table's pick. A row's cost per token is its step time x its devices' price
    / its batch and its speed per user tau / its step, so a step r times the predicted costs r times as much and runs
    1 / r as fast; each deployment (DEPLOYMENT: its batch aside) at the answer's context is taken at every batch
    (_deployment_points; its swept ones where it cannot be computed again, said):

        an answer at a miss measured slower, against the cheapest point of its kind as fast of another deployment that
        no such miss matches (its swept rows, and between them where `refined` says batches were computed; cost
        c_other): reversed by steps of the answer's deployment measured trade_ratio(its points, c_other) x the
        predicted or more
        of the other deployments at a miss measured faster (at any speed at the predicted step: qa321), the one whose
        trade_ratio(its points in the miss's batches, c_answer) is highest: it is the cheaper from steps of that
        deployment measured that x the predicted or less (said from FASTER_RATIO_MIN)

    Where the batches between swept ones could not be priced (refine's notes), the other deployment's point is its
    cheapest swept one, said so, and the ratio may be less (qa321).

    Rows are the table's reachable ones (_reachable) as selected; a miss without `measured` says no direction and is
    passed."""
    if not picks or min_tokens_per_s_per_user is None:
        return []
    cache: dict = {}
    reachable = _reachable(df, refused)
    keys = [c for c in DEPLOYMENT if c in reachable]
    speed = f"{format_given(min_tokens_per_s_per_user)} tokens/s per user"  # as the headline says it
    notes = []
    for kind, pick in picks.items():
        now = ((refined or {}).get(kind) or {}).get("row")
        answer, named = (now, "point computed now") if now is not None else (pick, "pick")
        if answer is None:
            continue
        answer = _with_kind(answer, kind)
        fast = reachable[(reachable["decoding"] == kind) & (reachable[SPEED] >= min_tokens_per_s_per_user)]
        if "context" in fast:
            fast = fast[fast["context"] == answer["context"]]
        same = _same_deployment(fast, answer, keys)
        rows = fast[~same & (fast[COST] > answer[COST])].sort_values(COST, kind="stable")
        own = fast[same & _same_deployment(fast, answer, [c for c in ("k", "alpha") if c in fast and kind == "speculation"])]
        # (its k and alpha too: the points computed again are of them alone, qa316)
        if _missed(answer, "slower", extra_dirs, cache):
            other = next((row for _, row in rows.iterrows() if not _missed(row, "slower", extra_dirs, cache)), None)
            alternative = (_refined_alternative(df, answer, kind, min_tokens_per_s_per_user, refused, extra_dirs, meta, cache,
                                                serving)
                           if refined else None)  # (no batch computed now where --where chose the batches: qa314)
            unpriced = alternative is not None and bool(alternative.get("unpriced", False))
            if alternative is not None and not unpriced and (other is None or alternative[COST] < other[COST]):
                other = alternative  # between swept batches, computed now (qa312: the table's batches overstated it)
            ratio = float("nan")
            if other is not None:
                batches, costs, speeds, every = _deployment_points(answer, kind, own, meta, extra_dirs, refused, serving,
                                                                   int(answer["batch"]), bool(refined))
                reach = speeds >= min_tokens_per_s_per_user
                inside = _in_miss(answer, batches, "slower", extra_dirs, cache)  # a point outside the miss's batches
                held = reach & ~inside & (costs < other[COST])  # holds its predicted cost: the miss cannot reverse it
                if not held.any():
                    ratio = trade_ratio(costs[reach & inside], speeds[reach & inside], min_tokens_per_s_per_user,
                                        other[COST])
            if ratio == ratio:
                notes.append(f"the {kind} {named} ({_row_named(answer)}) is at a point where a known miss of its engine's "
                             f"prediction (said in its note) measured steps slower than predicted; the cheapest {kind} "
                             + ("swept " if unpriced else "") + f"point at {speed} "
                             f"of another deployment that no such miss matches ({_row_named(other, answer)}) costs "
                             f"{_more(other[COST] / answer[COST], 'it')}: steps of the answer's deployment measured "
                             f"{_times(ratio)} the predicted or " + ("more" if not unpriced else "more, or less where a "
                             "cheaper point lies between the swept batches (not priced: its note)")
                             + f" ({1 - 1 / ratio:.1%} short) make that one the cheaper at this speed"
                             + ("" if every else " (taken at its swept batches: between them higher)"))
        # every other deployment at a point a miss measured faster, whatever its speed at predicted steps (qa321: one
        # just too slow at the predicted step was passed, though the miss makes it fast enough and the cheaper)
        any_speed = reachable[reachable["decoding"] == kind]
        if "context" in any_speed:
            any_speed = any_speed[any_speed["context"] == answer["context"]]
        deploy_keys = [*keys, *(c for c in ("k", "alpha") if c in any_speed and kind == "speculation")]
        best = None  # (ratio, a row of that deployment, every)
        others = any_speed[~_same_deployment(any_speed, answer, keys)]
        for _, group in others.groupby([others[c].map(_key_text) for c in deploy_keys], sort=False):  # (hardware: always)
            first = group.iloc[0]
            if not _missed({**first.to_dict(), "batch": range(1, REFINE_POINTS_MAX + 1)}, "faster", extra_dirs, cache):
                continue
            batches, costs, speeds, every = _deployment_points(first, kind, group, meta, extra_dirs, refused, serving, None,
                                                               bool(refined))
            inside = _in_miss(first, batches, "faster", extra_dirs, cache)  # the batches the miss was measured at
            ratio = trade_ratio(costs[inside], speeds[inside], min_tokens_per_s_per_user, answer[COST])
            if ratio == ratio and ratio < 1 and (best is None or ratio > best[0]):
                holds = np.minimum(speeds[inside] / min_tokens_per_s_per_user, answer[COST] / costs[inside])
                best = (ratio, first, every, int(batches[inside][np.argmax(holds)]))  # the batch that holds longest
        if best is not None and best[0] >= FASTER_RATIO_MIN:
            ratio, first, every, at = best
            notes.append(f"{_deployment_named(first, answer)} is at points where a known miss of its engine's prediction "
                         f"(roofline engines show {first['engine']}) measured steps faster than predicted: steps of that deployment measured "
                         f"{_times(ratio)} the predicted or less (the predicted {1 / ratio - 1:.1%} long) make it, at batch "
                         f"{at:,}, cheaper than the {kind} {named} (${format_significant(float(answer[COST]))} per million "
                         f"tokens) at {speed}" + ("" if every else " (taken at its swept batches: between them higher)"))
    return notes


def _missed(row, measured: str, extra_dirs: tuple, cache: dict) -> bool:
    """Whether a known miss measured `measured` (slower | faster) matches `row` (_misses_of: its batch, or any of a
    range)."""
    return any(m.get("measured") == measured for m in _misses_of(row, extra_dirs, cache))


def _in_miss(row: pd.Series, batches: np.ndarray, measured: str, extra_dirs: tuple, cache: dict) -> np.ndarray:
    """Per batch of `row`'s deployment: a known miss measured `measured` matches it there (a miss says nothing of the
    batches outside its own: qa314, gpt-oss's batch-1 miss carried to batch 8)."""
    batches = np.asarray(batches, dtype=np.int64)
    entries = _misses_of({**row.to_dict(), "batch": range(1, int(batches.max(initial=1)) + 1)}, extra_dirs, cache)
    inside = np.zeros(len(batches), bool)  # each entry's batch range, at once (qa322: a lookup a batch took a minute)
    for miss in entries:
        if miss.get("measured") == measured:
            low, high = miss.get("batch") or (1, None)
            inside |= (batches >= low) & (batches <= (high if high is not None else np.iinfo(np.int64).max))
    return inside


def _deployment_points(row: pd.Series, kind: str, swept: pd.DataFrame, meta: dict | None, extra_dirs: tuple, refused,
                       serving: bool, upto: int | None, between: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """(batches, costs, speeds, every) of `row`'s deployment at its context: at every batch from 1 to `upto` (None: the most
    that fit; REFINE_POINTS_MAX at most) computed again as refine does (_reproduced; costs at the table's prices, scaled
    by the row's), every True; not `between` (--where chose the batches: none computed between them, qa314), its
    `swept` rows (and the row), every True (the selection is all there is); where it cannot be computed again, its
    swept rows, every False. Points that do not fit, have no cost or are at a refused layout are left out."""
    speculative = kind == "speculation"
    if not between:
        return (*_swept_points(row, swept), True)
    top = upto
    if top is None:
        cap = row.get("max_batch" if speculative else "baseline_max_batch", row.get("max_batch"))
        top = int(cap) if _is_number(cap) and cap == cap and cap > 0 else int(row["batch"])
    batches = sorted({*range(1, min(top, REFINE_POINTS_MAX) + 1), int(row["batch"])})
    try:
        now = _reproduced(row, kind, speculative, meta, batches, extra_dirs, {}, serving)  # (qa399: --serving's rows
    except RooflineError:  # compared with decoding's, every serving config said not computed again)
        now = None
    if now is not None:
        at = now[now["batch"] == int(row["batch"])]
        scale = float(row[COST]) / float(at[COST].iloc[0]) if len(at) and float(at[COST].iloc[0]) > 0 else float("nan")
        now = now[now["fits_in_memory"].astype(bool) & now[COST].notna() & ~refused_rows(now, refused or [])]
        if is_finite(scale) and len(now):
            return now["batch"].to_numpy(int), now[COST].to_numpy() * scale, now[SPEED].to_numpy(), True
    return (*_swept_points(row, swept), False)


def _swept_points(row: pd.Series, swept: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(batches, costs, speeds) of a deployment's `swept` rows and `row` (a point computed now among them)."""
    rows = pd.concat([swept[["batch", COST, SPEED]], row[["batch", COST, SPEED]].to_frame().T])
    return rows["batch"].to_numpy(int), rows[COST].to_numpy(float), rows[SPEED].to_numpy(float)


def _refined_alternative(df: pd.DataFrame, answer: pd.Series, kind: str, min_tokens_per_s_per_user: float, refused,
                         extra_dirs: tuple, meta: dict | None, cache: dict, serving: bool = False) -> pd.Series | None:
    """The cheapest point of `kind` at a batch not swept (refine) among the table's rows of other deployments than the
    answer's (its hardware, model, engine, dtypes and layout), at its context, that no known miss measured slower
    matches; None where refine finds none cheaper than their swept rows; a Series of `unpriced` True where refine could
    not price some gaps (the cheapest other point is then unknown)."""
    rows = df[~_same_deployment(df, answer, [c for c in DEPLOYMENT if c in df and c not in ("method", "draft_hardware")])]
    if "context" in rows:
        rows = rows[rows["context"] == answer["context"]]
    method = (rows["method"].astype(str) if kind == "speculation" else pd.Series("none", index=rows.index))
    # a deployment a miss measured slower matches at any batch is left out whole: refine would walk from its swept rows
    # outside the miss into batches inside it (qa314), and dropping its point left the next best unsought (qa316)
    everywhere = range(1, REFINE_POINTS_MAX + 1)
    degrees = [c for c in ("tp", "dp_attention", "ep", "pp") if c in rows]  # its layout: a miss's layouts (qa382: none
    # given, every layout of the device, model and engine was left out)
    slower = [_missed({"engine": e, "hardware": h, "model": mo, "method": me, "decoding": kind, "batch": everywhere,
                       **dict(zip(degrees, layout))}, "slower", extra_dirs, cache)
              for e, h, mo, me, *layout in zip(rows["engine"], rows["hardware"], rows["model"], method,
                                               *(rows[c] for c in degrees))]
    rows = rows[~np.asarray(slower, bool)] if len(rows) else rows
    if rows.empty:
        return None
    result = refine(rows, min_tokens_per_s_per_user, refused, extra_dirs, meta, serving).get(kind, {})
    found = result.get("row")
    if result.get("notes"):  # some gaps could not be priced: the cheapest other point is unknown (qa321, qa322: said
        return pd.Series({"unpriced": True})  # so even where refine found one among the rest)
    return None if found is None else pd.concat([found, pd.Series({"decoding": kind})])


def _same_deployment(rows: pd.DataFrame, row, keys: list[str]) -> np.ndarray:
    """Per row of `rows`: it has `row`'s value of every column of `keys` (compared as _key_text: a CSV's NaN and a point
    computed now's '' alike, qa316); all False without keys."""
    if not keys:
        return np.zeros(len(rows), bool)
    return np.logical_and.reduce([np.array([_key_text(v) for v in rows[c]], dtype=object) == _key_text(row.get(c))
                                  for c in keys])


def _key_text(value) -> str:
    """A deployment column's value as text: '' for none (NaN, None, ''), a whole float as its integer (16.0 as 16)."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


def trade_ratio(costs: np.ndarray, speeds: np.ndarray, min_speed: float, target_cost: float) -> float:
    """The step ratio r (measured / predicted, every point of one deployment alike) up to which that deployment's
    cheapest point reaching `min_speed` costs under `target_cost`: its points (costs c_i, speeds v_i) become r c_i and
    v_i / r, so point i reaches the speed while r <= v_i / min_speed and costs under the target while r < target / c_i:

        r* = max_i min(v_i / min_speed, target_cost / c_i)

    Of an answer's deployment against another's cost (each of its points at least as fast at r = 1): the ratio from
    which it is the dearer (r* >= 1); of a dearer deployment against the answer's cost (every point, those too slow at
    r = 1 included): the ratio up to which it is the cheaper (r* < 1). Exact at the points given (every batch, or the
    swept ones: _deployment_points)."""
    costs, speeds = np.asarray(costs, float), np.asarray(speeds, float)
    if not len(costs):
        return float("nan")
    return float(np.max(np.minimum(speeds / min_speed, target_cost / costs)))


def _times(ratio: float) -> str:
    """A step ratio as the miss notes say it: '1.103x' (three decimals: 1.1x read as 9.1% short, 1.1034 is 9.4%)."""
    return f"{ratio:.3f}x" if ratio < 10 else f"{ratio:,.0f}x"


SPEED_NUDGE = 0.05  # speed_sensitivity_note asks again this much slower and faster
SENSITIVE_RATIO = 1.5  # and says so where the ratio moves more than this between the three


def speed_sensitivity_note(df: pd.DataFrame, picks: dict | None, min_tokens_per_s_per_user: float | None,
                           refused: list[dict] | None = None) -> str:
    """Where the ratio of the picks' costs (speculation over plain decoding) moves over SENSITIVE_RATIO when the speed
    asked is SPEED_NUDGE slower or faster (the swept rows' picks, cheapest()): the ratios there and the kind whose
    cost moves the most (qa415: 0.0419x at 30 tokens/s per user was 0.102x at 28.5 and 0.0373x at 31.5, plain
    decoding's speed nearly flat with the batch just there); '' where it does not, or a kind has no pick."""
    speed = min_tokens_per_s_per_user
    if not picks or speed is None or speed <= 0 or any(picks.get(kind) is None for kind in KINDS):
        return ""
    at = {speed: picks}
    for nudged in (speed * (1 - SPEED_NUDGE), speed * (1 + SPEED_NUDGE)):
        other = cheapest(df, nudged, refused)
        if all(other.get(kind) is not None for kind in KINDS):
            at[nudged] = other
    ratios = {s: float(p["speculation"][COST]) / float(p["plain"][COST]) for s, p in at.items()}
    if len(ratios) < 2 or max(ratios.values()) <= SENSITIVE_RATIO * min(ratios.values()):
        return ""
    low, high = min(at), max(at)
    moves = {kind: float(at[high][kind][COST]) / float(at[low][kind][COST]) for kind in KINDS}
    kind = max(moves, key=lambda k: moves[k])
    from roofline.tables import _ratio

    said = ", ".join(f"{_ratio(r)}x at {format_significant(s)}" + (" (asked)" if s == speed else "")
                     for s, r in sorted(ratios.items()))
    return (f"the speculation-to-plain cost ratio moves steeply with the speed asked (the swept rows' picks): {said} "
            f"tokens/s per user; {kind} decoding's cheapest cost changes {_ratio(moves[kind])}x from {format_significant(low)} "
            f"to {format_significant(high)} (its cheap rows' speeds crowd near the one asked): read the ratio at the speed "
            "you need, not at this one alone")


def cheapest_notes(df: pd.DataFrame, frontier: pd.DataFrame, picks: dict | None, refined: dict, refused: set,
                   unchecked: set, path, meta: dict | None, extra_dirs: tuple = (),
                   min_tokens_per_s_per_user: float | None = None, serving: bool = False) -> list[str]:
    """The notes under `roofline cheapest`'s table, each once: the frontier's (frontier_notes; layouts it could not
    check; prices), the picks' (pick_note_kinds; the size of a known miss that would reverse an answer,
    miss_margin_notes), the prices', then those of the points computed now between the swept batches (`refined`:
    refine's), less a note already said of the picks it holds for (qa146: a point computed now at the pick's engine and
    device said each note twice, the subject aside)."""
    notes = frontier_notes(df, refused, extra_dirs) + ([unchecked_note(unchecked)] if unchecked else [])
    notes += [n for n in [draft_unchecked_note(df, meta, extra_dirs)] if n]
    notes += price_notes(path, extra_dirs, df, meta)
    said = pick_note_kinds(picks, extra_dirs, meta) if picks else {}
    notes += said_of(said)
    notes += [] if picks else frontier_miss_notes(frontier, extra_dirs)  # no pick to say a known miss of (qa431)
    notes += miss_margin_notes(df, picks, min_tokens_per_s_per_user, refused, extra_dirs, refined, meta, serving)
    notes += [note] if (note := speed_sensitivity_note(df, picks, min_tokens_per_s_per_user, refused)) else []
    notes += [note] if (note := prices_note(pd.concat([frontier, _reachable(df, refused)]), meta, extra_dirs)) else []
    # (the devices of every reachable row: the price flip notes compare with them; qa377: h200 named there, not here)
    notes += price_flip_notes(df, picks, min_tokens_per_s_per_user, refused, meta, refined, extra_dirs, serving)
    notes += repriced_pick_notes(df, picks, min_tokens_per_s_per_user, refused, meta, extra_dirs)
    notes += [n for r in refined.values() for n in r["notes"]]
    found = {kind: r["row"] for kind, r in refined.items() if r["row"] is not None}
    now = pick_note_kinds(found, extra_dirs, meta) if found else {}
    notes += said_of({note: kinds for note, kinds in now.items() if not set(kinds) <= set(said.get(note, ()))},
                     "point computed now")
    return list(dict.fromkeys(notes))


def frontier_miss_notes(frontier: pd.DataFrame, extra_dirs: tuple = ()) -> list[str]:
    """Each known miss (serving.known_miss_notes) that rows of the frontier sit in, once, with the rows it is said of:
    'the frontier's plain rows at batch 1,024 and 2,048 (minimax-m2.7 on mi300x x 8 (tp 8, ep 8), sglang): a known miss
    of engine sglang: ...' (cheapest without a speed: no pick to say it of; qa431: rows inside sglang's MiniMax miss
    listed unsaid). A row whose profiles do not load says none."""
    from roofline.hardware import load_hardware
    from roofline.model import load_model
    from roofline.serving import known_miss_notes, load_engine

    profiles: dict[tuple, tuple | None] = {}
    rows_of: dict[str, dict[tuple, list[int]]] = {}  # note -> {(kind, deployment named): batches}
    for _, row in frontier.iterrows():
        names = (str(row["engine"]), str(row["hardware"]), str(row["model"]))
        if names not in profiles:
            try:
                profiles[names] = (load_engine(names[0], extra_dirs), load_hardware(names[1], extra_dirs),
                                   load_model(names[2], extra_dirs))
            except RooflineError:
                profiles[names] = None
        if profiles[names] is None:
            continue
        kind = str(row["decoding"])
        method = str(row["method"]) if kind == "speculation" else "none"
        for note in known_miss_notes(*profiles[names], method, int(row["batch"]), layout=_layout(row)):
            rows_of.setdefault(note, {}).setdefault((kind, _deployment_named(row)), []).append(int(row["batch"]))
    out = []
    for note, groups in rows_of.items():
        said = "; ".join(f"{kind} {'row' if len(batches) == 1 else 'rows'} at batch "
                         f"{spoken_list([f'{b:,}' for b in sorted(set(batches))])} ({named})"
                         for (kind, named), batches in groups.items())
        out.append(f"the frontier's {said}: {note}")
    return out


# the openings of the two frontier notes that say the table mixes what a pick compares (frontier_table reads them back)
MIXED_CONFIGS = "one frontier over several values of"
MIXED_ALPHAS = "speculative rows at several acceptance rates"


def running_caps(rows: pd.DataFrame, extra_dirs: tuple = ()) -> pd.Series:
    """Per row of `rows`, the sequences its engine runs at once while speculating with its cap as it is
    (serving.running_cap_speculating at the row's attention-DP degree: SGLang's 48, 32 at dp_attention 32) where the row
    drafts (k > 0, a method), else NaN (no cap, no drafting, or an engine not on the search path: refused_layouts
    names it)."""
    from roofline.serving import load_engine, running_cap_speculating

    caps = pd.Series(np.nan, index=rows.index)
    if not len(rows) or "engine" not in rows:
        return caps
    drafts = pd.to_numeric(rows["k"], errors="coerce") > 0
    if "method" in rows:
        drafts &= rows["method"].astype(str) != "none"
    dp = (pd.to_numeric(rows["dp_attention"], errors="coerce").fillna(1).astype(int) if "dp_attention" in rows
          else pd.Series(1, index=rows.index))
    for name in rows.loc[drafts, "engine"].astype(str).unique():
        try:
            engine = load_engine(name, extra_dirs)
        except UnknownName:
            continue
        if engine.max_running_requests_speculating is None:
            continue
        mine = drafts & (rows["engine"].astype(str) == name)
        caps[mine] = dp[mine].map(lambda d, e=engine: running_cap_speculating(e, int(d))).astype(float)
    return caps


def above_running_cap(rows: pd.DataFrame, extra_dirs: tuple = ()) -> tuple[pd.Series, dict]:
    """(a boolean per row of `rows`: it drafts at a batch above its engine's cap while speculating (running_caps),
    {engine: the caps applied to its rows above them, ascending}) (qa183: the legend said 48 where dp_attention 32 made
    it 32)."""
    caps = running_caps(rows, extra_dirs)
    over = pd.to_numeric(rows["batch"], errors="coerce") > caps if len(rows) else caps.astype(bool)  # NaN cap: False
    applied = {name: sorted({int(c) for c in caps[over & (rows["engine"].astype(str) == name)]})
               for name in dict.fromkeys(rows.loc[over, "engine"].astype(str))} if over.any() else {}
    return over, applied


def _above_running_cap(rows: pd.DataFrame, extra_dirs: tuple = ()) -> tuple[int, str] | None:
    """(count, 'sglang: 48, ...') of the speculative `rows` above their engine's cap (above_running_cap), or None."""
    over, caps = above_running_cap(rows, extra_dirs)
    return (int(over.sum()), cap_text(caps)) if over.any() else None


def cap_text(caps: dict) -> str:
    """'sglang: 48' (or 'sglang: 32, 48') of above_running_cap's caps, as notes and legends say them."""
    return "; ".join(f"{name}: {', '.join(map(str, values))}" for name, values in caps.items())


def mixes(notes: list[str]) -> list[str]:
    """What frontier_notes says the table mixes ('acceptance rates', 'configs'), read from its notes' openings."""
    return [what for what, opening in (("acceptance rates", MIXED_ALPHAS), ("configs", MIXED_CONFIGS))
            if any(n.startswith(opening) for n in notes)]


def frontier_notes(df: pd.DataFrame, refused: list[dict] | None = None, extra_dirs: tuple = ()) -> list[str]:
    """What a reader of the frontier must know about the table: rows left out (each counted once, for the first of: not
    fitting in memory, a refused layout, an engine on a device it does not run on, no cost), speculative rows in the
    range whose gains run optimistic (findings.OPTIMISTIC) or above the batch their engine runs at once while
    speculating with its cap as it is (serving.running_cap_speculating), and acceptance mixed across alphas."""
    notes = []
    said = ~df["fits_in_memory"].astype(bool)  # each row left out counted once, for the first reason below (qa90)
    if said.any():
        notes.append(f"{int(said.sum()):,} of {len(df):,} rows do not fit in memory: left out")
    for by_engine, why in ((False, "at a layout, method or draft model their engine refuses to load or runs no setup of"),  # qa143: both
                           (True, "an engine on a device it does not run on")):
        entries = [e for e in refused or [] if ("why" in e) == by_engine]  # unrunnable_engines' say why; a layout's, its note
        rows = refused_rows(df, entries) & ~said
        if rows.any():
            named = list(dict.fromkeys(e["note"] for e in entries if (refused_rows(df, [e]) & rows).any()))
            notes.append(f"{int(rows.sum()):,} rows left out, {why}: " + "; ".join(named))
        said |= rows
    unpriced = int((df[COST].isna() & ~said).sum())
    if unpriced:
        devices = sorted(_unpriced_devices(df[df[COST].isna() & ~said]))
        # the table's prices are those its sweep read (qa214: a price added to the profile since is said by price_notes)
        still = [d for d in devices if _price_now(d, extra_dirs) is None]  # qa283: told to give a price it has; the
        advice = ("priced since the sweep (below)" if not still else  # sweep again said once, below (qa284)
                  "give one with roofline hw new NAME --from DEVICE --set price='2.5 USD/h' (or hw set), then sweep again"
                  + (f" ({', '.join(still)}; the others priced since, below)" if len(still) < len(devices) else ""))
        notes.append(f"{unpriced:,} {'row has' if unpriced == 1 else 'rows have'} no cost (swept without a price for "
                     f"{', '.join(devices)}): left out; {advice}")  # (qa458: '1 rows have')
    speculative = df[(df["method"] != "none") & (df["k"] > 0)]
    every = cost_frontier(df, refused)
    on_frontier = every[every["decoding"] == "speculation"]
    large = [optimistic(b, e) for b, e in zip(on_frontier["batch"], on_frontier["engine"])]
    if any(large):
        found_for = next((said for e in dict.fromkeys(on_frontier.loc[large, "engine"].astype(str))
                          if (said := _optimistic_found_for(e, extra_dirs))), "")  # qa204: a user's profile among them
        notes.append(f"{sum(large)} speculative frontier {'row is' if sum(large) == 1 else 'rows are'} at batch {OPTIMISTIC_BATCH} or more under a serving "
                     f"engine: {OPTIMISTIC}{found_for} (docs/ACCURACY.md), so {'its cost is a lower estimate' if sum(large) == 1 else 'their costs are lower estimates'}")
    capped = _above_running_cap(on_frontier, extra_dirs)
    if capped:
        count, names = capped
        notes.append(f"{count} speculative frontier {'row runs' if count == 1 else 'rows run'} more sequences than "
                     f"{'its engine decodes' if count == 1 else 'their engines decode'} at once while speculating with "
                     f"the cap left as it is ({names}; max_running_requests_speculating): "
                     f"{'its cost assumes' if count == 1 else 'their costs assume'} the cap raised")
    idle = every[every["batch"] < every["dp_attention"]] if "dp_attention" in every else every.iloc[:0]
    if len(idle):
        notes.append(f"{len(idle)} frontier {'row runs' if len(idle) == 1 else 'rows run'} fewer sequences than attention "
                     "data-parallel groups (batch < dp_attention): the idle groups' devices are paid for")
    staged = on_frontier[on_frontier["pp"] > 1] if "pp" in on_frontier else on_frontier.iloc[:0]
    if len(staged):
        notes.append(f"{len(staged)} speculative frontier {'row runs' if len(staged) == 1 else 'rows run'} with pipeline "
                     f"parallelism (pp > 1): {PP_SPECULATION}; --where pp=1 keeps the layouts engines run")
    compared = _reachable(df, refused)  # the rows a frontier compares: those that fit, are priced and load
    mixed = [c for c in ("model", "context", "engine", "weight_dtype", "expert_dtype", "kv_dtype", "shared_prefix")
             if c in compared and compared[c].nunique() > 1]
    if mixed:
        first, second = list(dict.fromkeys(compared[mixed[0]].astype(str)))[:2]
        notes.append(f"{MIXED_CONFIGS} {', '.join(mixed)}: a row of one is compared with rows of "
                     f"another ({mixed[0]} {first}'s cost beside {mixed[0]} {second}'s); --where {mixed[0]}=VALUE keeps one")
    partial = [c for c in BASELINE if c not in df]
    if partial and len(partial) < len(BASELINE) and len(speculative):
        notes.append(f"the table has no {', '.join(partial)} column: the plain points its speculative rows carry are left out")
    reachable = compared[(compared["method"] != "none") & (compared["k"] > 0)]  # of the rows compared (qa362: said of
    methods = set(reachable["method"].astype(str)) if "method" in reachable else set()  # n-gram rows all left out)
    if "ngram" in methods and len(methods) > 1 and "alpha" in reachable and reachable["alpha"].notna().any():
        notes.append(f"n-gram lookup shares an alpha with {spoken_list(sorted(methods - {'ngram'}))}: its acceptance is the "
                     "workload's repetition (prompts the output copies), not a drafter's skill, so one alpha for both "
                     "compares unlike things; --where method=VALUE keeps one")  # qa91: ngram took the whole frontier
    if "alpha" in df and speculative["alpha"].nunique() > 1:
        swept = sorted(speculative["alpha"].dropna().unique())
        kept = sorted(on_frontier["alpha"].dropna().unique()) if "alpha" in on_frontier else []
        alphas = ", ".join(f"{a:g}" for a in swept)
        at = (f"; every speculative frontier row is at alpha {kept[0]:g}, the highest swept: the most favourable assumption"
              if len(kept) == 1 and kept[0] == swept[-1] else
              f"; its speculative rows are at alpha {', '.join(f'{a:g}' for a in kept)}" if kept else "")
        notes.append(f"{MIXED_ALPHAS} (alpha {alphas}) share one frontier{at}: "
                     "--where alpha=VALUE keeps one assumption")
    return notes


def _hardware_now(name: str, extra_dirs: tuple = ()):
    """Device `name`'s profile on the search path now (a file the sweep recorded first), or None where none loads."""
    from roofline.hardware import load_hardware

    try:
        return load_hardware(name, extra_dirs)
    except RooflineError:
        return None


def _price_now(name: str, extra_dirs: tuple = ()) -> float | None:
    """Device `name`'s price a device-hour in its profile on the search path now; None: none, or no such profile."""
    hw = _hardware_now(name, extra_dirs)
    return None if hw is None else hw.price_usd_per_hour


def _unpriced_devices(rows: pd.DataFrame) -> set[str]:
    """The devices rows without a cost are unpriced for: a drafter's own where a target's is priced (its rows' plain
    baseline cost is there), else the target's."""
    from roofline.hardware import load_hardware

    out = set()
    for name in rows["hardware"].astype(str).unique():
        try:
            priced = load_hardware(name).price_usd_per_hour is not None
        except RooflineError:  # a device of a user folder not on this search path: the table cannot say
            priced = False
        if not priced:
            out.add(name)
    if "draft_hardware" in rows:
        drafted = rows[rows["draft_hardware"].fillna("").astype(str) != ""]
        for name in drafted["draft_hardware"].astype(str).unique():
            try:
                if load_hardware(name).price_usd_per_hour is None:
                    out.add(name)
            except RooflineError:
                out.add(name)
    return out or set(rows["hardware"].astype(str).unique())


def check_table(df: pd.DataFrame, where: str) -> None:
    """One line naming the columns a results table lacks for a frontier, or the first cell of them that is not a
    number (true / false for fits_in_memory: a blank one is refused, not read as fitting)."""
    from roofline.plot_jobs import check_numeric

    missing = [c for c in REQUIRED if c not in df]
    if missing:
        raise RooflineError(f"{where}: expected a sweep results table with column(s) {', '.join(missing)}, found "
                            f"{', '.join(map(str, df.columns[:8]))}{' ...' if len(df.columns) > 8 else ''}")
    numeric = [c for c in (*REQUIRED, *BASELINE, "alpha", "devices", "dp_attention", "ep", "pp", "step_time_s", "verify_time_s",
                           "shared_prefix", "baseline_max_batch",  # qa137: read as numbers, unchecked
                           "tokens_per_s_per_device", "tokens_per_s") if c in df  # qa440: text read as a rent
               and c not in ("method", "hardware", "model", "engine")]
    check_numeric(df, tuple(numeric), where)
    if df["fits_in_memory"].isna().any():
        line = f" (line {int(df.index[df['fits_in_memory'].isna()][0]) + 2})" if where.endswith(".csv") else ""
        raise RooflineError(f"{where}: fits_in_memory: expected true or false, found nothing{line}")
    _check_counts(df, where)
    for column in (SPEED, COST, "tokens_per_s", "tokens_per_s_per_device", "baseline_tokens_per_s_per_user",
                   "baseline_cost_usd_per_million_tokens"):  # figures: above 0; a cost may be blank (a device without a
        if column in df:  # price), a speed not (qa408: a blank speed was a row dropped in silence, the pick changed)
            values = pd.to_numeric(df[column], errors="coerce")
            priced = column in (COST, "baseline_cost_usd_per_million_tokens")
            bad = (values.notna() | (not priced)) & ~((values > 0) & (values <= MAX_FIGURE))
            _refuse_cell(df, column, bad, where, f"a number above 0 up to {MAX_FIGURE:g}" + (", or nothing" if priced else ""))
    for column in ("fits_in_memory", "break_even_at_memory_limit"):  # (qa408: 'maybe' in the second taken)
        if column in df:
            _refuse_cell(df, column, ~df[column].isin([True, False, 0, 1]), where, "true or false")
    if "alpha" in df:
        alpha = pd.to_numeric(df["alpha"], errors="coerce")
        _refuse_cell(df, "alpha", alpha.notna() & ~((alpha >= 0) & (alpha <= 1)), where, "an acceptance rate in [0, 1], or nothing")
    _check_names(df, where)


def _check_counts(df: pd.DataFrame, where: str) -> None:
    """Every cell of the COUNT_COLUMNS a table holds a whole number in range."""
    for column, least in COUNT_COLUMNS.items():
        if column in df:
            values = pd.to_numeric(df[column], errors="coerce")
            bad = ~(values.notna() & (values >= least) & (values <= MAX_COUNT) & (values % 1 == 0))
            _refuse_cell(df, column, bad, where, f"a whole number in {least}..{MAX_COUNT:,}")


def _check_names(df: pd.DataFrame, where: str) -> None:
    """Every cell of the label columns a table holds a name, not blank."""
    for column in ("hardware", "model", "engine", "method"):
        if column in df:
            _refuse_cell(df, column, df[column].isna() | (df[column].astype(str).str.strip() == ""), where, "a name")


def check_plot_cells(df: pd.DataFrame, where: str) -> None:
    """The cells a figure reads, as check_table checks them for a frontier: names not blank, counts whole and in range,
    speedups numbers (qa114: a blank hardware cell, batch 0 or speedups of nothing crashed `plot` with a traceback)."""
    _check_names(df, where)
    _check_counts(df, where)
    for column in ("speedup", "tokens_per_s", "tokens_per_s_per_user", "step_time_s", "tokens_per_s_per_device",
                   "baseline_tokens_per_s", "baseline_tokens_per_s_per_user", "verify_time_s"):  # qa135: the rest unchecked
        if column in df:
            values = pd.to_numeric(df[column], errors="coerce")
            _refuse_cell(df, column, ~(values.notna() & (values > 0) & (values <= MAX_FIGURE)), where,
                         f"a number above 0 up to {MAX_FIGURE:g}")
    for column, low in (("max_batch", 0), ("best_k", -1)):  # whole numbers: a count, or -1 for a tree's best k
        if column in df:
            values = pd.to_numeric(df[column], errors="coerce")
            _refuse_cell(df, column, ~(values.notna() & (values >= low) & (values <= MAX_COUNT) & (values == values.round())),
                         where, f"a whole number from {low} to {MAX_COUNT:,}")
    if "alpha" in df:  # blank where rates or a tree stand for it
        values = pd.to_numeric(df["alpha"], errors="coerce")
        _refuse_cell(df, "alpha", ~(values.isna() | ((values >= 0) & (values <= 1))), where, "a rate in [0, 1], or blank")
    for column in ("cost_usd_per_million_tokens", "baseline_cost_usd_per_million_tokens"):  # blank: a device without a
        if column in df:  # price (qa408: -1 and inf drawn, where cheapest refused them)
            values = pd.to_numeric(df[column], errors="coerce")
            _refuse_cell(df, column, values.notna() & ~((values > 0) & (values <= MAX_FIGURE)), where,
                         f"a number above 0 up to {MAX_FIGURE:g}, or blank")
    for column in ("fits_in_memory", "break_even_at_memory_limit"):  # flags a sweep writes true or false
        if column in df:  # (qa408: 'maybe' taken)
            _refuse_cell(df, column, ~df[column].isin([True, False, 0, 1]), where, "true or false")


MAX_COUNT, MAX_FIGURE = 2**31 - 1, 1e15  # no sweep writes more: a batch, context or degree; tokens/s or USD
COUNT_COLUMNS = {"batch": 1, "context": 0, "k": 0, "tp": 1, "devices": 1, "dp_attention": 1, "ep": 1, "pp": 1}


def _refuse_cell(df: pd.DataFrame, column: str, bad, where: str, expected: str) -> None:
    """One line naming the first cell of `column` that `bad` marks (its CSV line: the header is line 1)."""
    if bad.any():
        index = bad.to_numpy().nonzero()[0][0]
        line = f" (line {index + 2})" if where.endswith(".csv") else ""
        value = df[column].iloc[index]
        # an empty cell or one reading NaN (nan, NA, ...: pandas reads both as missing; qa246: 'nan' said as nothing)
        found = ("an empty or NaN cell" if pd.isna(value) else f"{float(value):g}" if isinstance(value, numbers.Real)
                 else repr(value))
        raise RooflineError(f"{where}: {column}: expected {expected}, found {found}{line}")


# the tables each kind of output folder writes of its own (outputs' marker `kind:`), which a frontier must not replace;
# a folder whose marker names no kind (an older version's) is taken for a sweep's
OWN_TABLES = {"sweep": ("results.csv", "operators.csv"), "plot": ("results.csv", "operators.csv"),
              "accuracy": ("accuracy.csv",), "validation": ("validation.csv",), "report": ()}  # (a report's: tables/)


def _article_of(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def check_frontier_out(out: Path, force: bool, table: Path | None = None) -> None:
    """`cheapest --out`: a .csv file, never the table read nor a sweep folder's own results or operators table (a
    frontier written over them broke the folder: scenario.json and results.parquet took CSV text with --force),
    checked before anything is read."""
    from roofline.outputs import MARKER
    from roofline.yamlio import check_file_out

    out = Path(out)
    if out.suffix.lower() != ".csv":
        raise RooflineError(f"--out: expected a .csv file for the frontier's rows, found {out.name!r}")
    from roofline.outputs import marker_kind

    marked = (out.parent / MARKER).is_file()
    kind = marker_kind(out.parent) if marked else None
    own = marked and out.name in OWN_TABLES.get(kind or "sweep", OWN_TABLES["sweep"])  # (qa394: an accuracy run's own)
    # a report's tables/NAME.csv beside its NAME.json, in a folder a report wrote (qa262: `--out tables/results.csv
    # --force` replaced the table of the report's scenario named `results`)
    reported = out.parent.name == "tables" and (out.parent.parent / MARKER).is_file() and out.with_suffix(".json").is_file()
    if own or reported or (table is not None and out.resolve() == Path(table).resolve()):
        whose = "report" if reported else {"accuracy": "accuracy run", "validation": "validation run"}.get(kind, "sweep")
        raise RooflineError(f"--out: {out} is {_article_of(whose)} {whose}'s own table: give the frontier another name")
    check_file_out(out, force)


def _optimistic_found_for(engine: str, extra_dirs: tuple) -> str:
    """serving.optimistic_found_for of the engine profile a table names ('' where it no longer loads)."""
    from roofline.serving import load_engine, optimistic_found_for

    try:
        return optimistic_found_for(load_engine(engine, extra_dirs))
    except UnknownName:
        return ""
