"""Sweeps: a scenario's configs x numeric axes, computed in one vectorised pass per config, returned as one
tidy table (one row per point, unit-suffixed columns) or streamed to CSV and Parquet.

A config is one combination of the scenario's list-valued keys (hardware, model, engine, dtypes, tp,
dp_attention, ep, pp). Inside a config the numeric grid has the axis order GRID_AXES = (context, alpha,
batch, k): best k is an argmax along the k axis and the break-even batch a reduction along the batch
axis, refined to the last batch that pays before the next swept one (that does not pay), or up to the largest batch
that fits where the next swept one does not fit, by evaluating every batch of those gaps at once where the axes keep that scan small (refines_break_even): both without a Python
loop over points. Large sweeps are cut into chunks along (context, alpha),
each chunk whole in batch and k, so memory stays bounded and `write_sweep` streams them to disk.
"""

from __future__ import annotations

import json
import os
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import product
from pathlib import Path

import numpy as np
import pandas as pd

from roofline.capacity import capacity, running_cap_note
from roofline.costs import sequences_per_group
from roofline.engine import (
    CROSS_DOMAIN_CAVEAT,
    dispatches,
    host_sets_step,
    host_time_s,
    operator_ceilings,
    operator_compute_dtypes,
    operator_peaks,
    parameters_used,
    step_metrics,
    unfitted_family_note,
    weight_only_note,
)
from roofline.errors import RooflineError, UnknownName, field_error, field_line, warn, with_line
from roofline.hardware import HardwareSpec, load_hardware
from roofline.layout import Deployment, deployment, describe_layout, dp_spelling_note, fp8_block_note, group_note, shard_note
from roofline.model import ModelSpec, context_note, drafter_context_note, load_model
from roofline.profiles import costs_shadow_note, differing_fields, is_profile_path, shadow_note
from roofline.scenario import CONFIG_KEYS, LAYOUT_KEYS, Scenario
from roofline.serving import (
    DEFAULT_ENGINE,
    HOST_PARAMETERS,
    HOST_SHARE_NOTED,
    OPTIMISTIC,
    ServingEngine,
    dispatch_latency_note,
    engine_layout_note,
    engine_on_a_cpu,
    fit_bound_note,
    fitted_batches_note,
    fitted_class_note,
    fitted_elsewhere_note,
    fitted_family_note,
    for_engine,
    host_carries_gain,
    host_terms_text,
    known_miss_notes,
    load_engine,
    optimistic,
    optimistic_found_for,
    running_cap_speculating,
    speculating_engine,
    speculation_caveat_note,
    speculation_engine_notes,
    stage_split_dense_note,
    undetermined_text,
)
from roofline.speculation import (
    acceptance_reach_note,
    best_k,
    break_even_batch,
    default_rates,
    draft_vocab_of,
    pays,
    speculates,
    speculative_metrics,
)
from roofline.units import format_seconds, rent_usd_per_hour, spoken_list, usd_per_million_tokens

GRID_AXES = ("context", "alpha", "batch", "k")
AXIS = {name: i for i, name in enumerate(GRID_AXES)}
LABEL_COLUMNS = ("hardware", "model", "engine", "method", "draft_hardware", "weight_dtype", "expert_dtype", "kv_dtype")
INT_COLUMNS = ("batch", "context", "k", "tp", "dp_attention", "ep", "pp", "devices", "shared_prefix", "max_batch",
               "baseline_max_batch", "best_k", "break_even_batch")
BOOL_COLUMNS = ("fits_in_memory", "verify_compute_bound", "drafter_overlaps", "break_even_at_memory_limit",
                "break_even_at_last_batch", "launch_bound", "verify_launch_bound", "draft_launch_bound", "engine_runs",
                "baseline_engine_runs")
OUTPUT_COLUMNS = (
    "step_time_s", "comm_time_s", "tokens_per_s", "tokens_per_s_per_user", "speedup", "tau", "iteration_time_s",
    "draft_time_s", "verify_time_s", "transfer_time_s", "overhead_time_s", "baseline_tokens_per_s",
    "baseline_tokens_per_s_per_user", "mbu", "mfu", "verify_compute_bound", "flops_per_token",
    "bytes_per_token", "baseline_flops_per_token", "wasted_flops_fraction", "weight_bytes", "kv_bytes",
    "memory_needed_bytes", "usable_memory_bytes", "fits_in_memory", "max_batch", "baseline_max_batch", "best_k", "break_even_batch", "break_even_at_memory_limit",
    "break_even_at_last_batch",
    "cost_usd_per_million_tokens", "baseline_cost_usd_per_million_tokens", "tokens_per_s_per_device", "drafter_overlaps",
    "launch_bound", "verify_launch_bound", "draft_launch_bound", "engine_runs", "baseline_engine_runs",
)
CONFIG_OUTPUT_COLUMNS = ("engine_runs", "baseline_engine_runs")  # worked out once a config (engine_runs), not a point
INPUT_COLUMNS = (*LABEL_COLUMNS, "tp", "dp_attention", "ep", "pp", "devices", "shared_prefix", "batch", "context", "k", "alpha")
COLUMNS = (*INPUT_COLUMNS, *OUTPUT_COLUMNS)
# a serving benchmark's figures, where a scenario gives a request (prompt and output_len): serving_columns
SERVING_COLUMNS = ("ttft_s", "serving_ttft_s", "baseline_serving_ttft_s", "serving_time_per_output_token_s",
                   "baseline_serving_time_per_output_token_s", "serving_speedup", "serving_cost_usd_per_million_tokens",
                   "baseline_serving_cost_usd_per_million_tokens", "serving_tokens_per_s", "baseline_serving_tokens_per_s")


def sweep_columns(sc: Scenario) -> tuple[str, ...]:
    """The columns of a sweep's table: COLUMNS, and SERVING_COLUMNS where the scenario gives a request."""
    return (*COLUMNS, *SERVING_COLUMNS) if sc.prompt is not None else COLUMNS


@dataclass(frozen=True)
class Config:
    """One combination of a scenario's list-valued keys, specs loaded and the layout checked."""

    hw: HardwareSpec
    model: ModelSpec
    dep: Deployment
    engine: ServingEngine
    method: str
    draft: ModelSpec | None
    draft_hw: HardwareSpec | None
    shared_prefix: int = 0
    acceptance: tuple[float, ...] | None = None   # per-position rates (given, or the method's defaults); None: the alpha axis


SHADOW_KINDS = {"HardwareSpec": "hardware", "ModelSpec": "model", "ServingEngine": "engine"}  # spec type: profile kind


def load_configs(sc: Scenario, extra_dirs: tuple = (), specs: dict | None = None) -> list[Config]:
    """Every config of the scenario (errors name the scenario file, the key and its line). `specs` maps
    (type name, profile name) to spec objects given directly (roofline.sweep with objects)."""
    try:
        return _load_configs(sc, extra_dirs, specs)
    except RooflineError as exc:  # a key's line where its check did not say it (qa242)
        raise with_line(sc.path or sc.name, exc) from None


def _takes_layout(model, c: dict, layout: tuple) -> bool:
    """Whether `model` takes `layout` (an entry of a scenario's layouts: tp, dp_attention, ep, pp) at config `c`'s
    dtypes (layout.deployment refuses nothing)."""
    try:
        deployment(model, c["weight_dtype"], c["kv_dtype"], *layout, c["expert_dtype"] if model.moe is not None else None)
    except RooflineError:
        return False
    return True


def _load_configs(sc: Scenario, extra_dirs: tuple = (), specs: dict | None = None) -> list[Config]:
    """load_configs' work."""
    from roofline.speculation import (
        check_draft_vocab,
        default_rates_note,
        drafter_placement_note,
        drafter_warnings,
        mtp_reuse_note,
        rising_rates_note,
    )

    specs = specs or {}
    where = sc.path or sc.name

    beside = Path(sc.path).parent if sc.path else None

    def get(key: str, kind: str, loader, name):
        if (kind, name) not in specs and beside is not None and is_profile_path(name) \
                and not Path(name).is_absolute() and (beside / name).is_file():  # the scenario's folder first
            name_or_path = str(beside / name)  # a profile file named relative to the scenario file, as a reader expects
        else:
            name_or_path = name
        try:
            spec = specs.get((kind, name)) or loader(name_or_path, extra_dirs)
        except UnknownName as exc:  # say which file, line and key named it (still an UnknownName, as predict's: qa110)
            line = field_line(where, key)
            raise UnknownName(f"{where}: {f'line {line}: ' if line else ''}{key}: {exc}") from None
        named = DEFAULT_ENGINE if name_or_path is None and kind == "ServingEngine" else name_or_path  # the default engine's
        note = "" if (kind, name) in specs else shadow_note(SHADOW_KINDS[kind], named, extra_dirs)
        if isinstance(spec, ServingEngine) and not note:  # a profile taking its costs from one that shadows a built-in
            note = costs_shadow_note(spec.name, spec.costs_from)
        if note:  # a user file that took a built-in's name: the sweep's numbers are that file's
            warn(f"{where}: {note}")
        return spec

    if sc.acceptance is not None and (np.asarray(sc.axes["k"]) > 0).any() and (
            note := rising_rates_note(sc.acceptance[: int(np.max(sc.axes["k"]))])):  # the positions drafted (qa137)
        warn(f"{where}: {note}")  # qa130: taken as given, said once
    drafting = [m for m in sc.methods if m != "none"]  # the file's order (qa257)
    if (sc.acceptance is not None or sc.acceptance_length is not None) and len(drafting) > 1 and (np.asarray(sc.axes["k"]) > 0).any():
        given = "list of per-position rates" if sc.acceptance is not None else "acceptance length"  # qa256: said nowhere
        warn(f"{where}: one {given} for every method swept ({spoken_list(drafting)}): they are compared at equal "
             "acceptance, which their drafters need not reach alike; to compare them at what each was measured to "
             "accept, sweep each in a scenario of its own with its own rates")
    if _acceptance_given(sc) and not (np.asarray(sc.axes["k"]) > 0).any():  # as predict says of its point (qa130)
        warn(f"{where}: k: only 0 swept: nothing is drafted, so every point is plain decoding and the acceptance given "
             "(alpha, rates or a tree's tau) is not used")
    draft = get("draft", "ModelSpec", load_model, sc.draft) if sc.draft else None
    hws = {h: get("hardware", "HardwareSpec", load_hardware, h) for h in sc.hardware}
    hws.update({d: get("draft_hardware", "HardwareSpec", load_hardware, d) for d in sc.draft_hardware if d and d not in hws})
    models = {m: get("model", "ModelSpec", load_model, m) for m in sc.model}
    engines = {e: get("engine", "ServingEngine", load_engine, e) for e in sc.engine}
    for key, entries, loaded in (("hardware", sc.hardware, hws), ("model", sc.model, models), ("engine", sc.engine, engines),
                                 ("draft_hardware", [d for d in sc.draft_hardware if d], hws)):
        _one_entry_per_profile(where, key, entries, loaded)
    _one_profile_per_name(where, "draft_hardware", [*sc.hardware, *(d for d in sc.draft_hardware if d)], hws)
    if any(sc.expert_dtype) and all(m.moe is None for m in models.values()):
        raise RooflineError(f"{where}: expert_dtype: expected a mixture-of-experts model among the models, found only dense "
                            f"ones ({', '.join(sorted(m.name for m in models.values()))})")
    by_model = dict(sc.method_by_model)
    alpha_axis = not np.isnan(sc.axes["alpha"]).all()
    out, seen, warned, resolved = [], set(), set(), {}
    layouts_left: dict[str, dict[int, str]] = {}  # model -> {entry of `layouts`: why it refuses it}, another model taking it
    undetermined: dict[str, tuple[ServingEngine, dict]] = {}  # engine name -> (engine, parameters no fit row determined)
    host_shares: dict[str, tuple] = {}  # engine name -> (engine, device, configs whose host work carries a gain)
    dispatch_notes: dict[tuple, list] = {}  # (engine name, its dispatch's latency note) -> the configs that dispatch
    elsewhere: dict[str, list] = {}  # a fitted-elsewhere note (CONFIGS where the configs go) -> the configs it holds for
    drafter_families: dict[str, list] = {}  # a drafter device's fitted-family note (DEVICES for its name) -> the devices
    missed: dict[str, list] = {}  # a known miss's note (MISSED where the configs go) -> the configs it matches
    placed: dict[str, list] = {}  # an engine's name -> the drafter devices priced under it (its what-if note)
    capped: dict[str, tuple] = {}  # engine name -> (engine, the configs whose batches that fit exceed its speculating cap)
    across: dict[str, list] = {}  # the scale-out link's latency -> the configs whose tp spans scale-up domains
    others = [key for key in CONFIG_KEYS if key not in LAYOUT_KEYS]
    for values in product(*(getattr(sc, key) for key in others), sc.layout_list):
        c = {**dict(zip(others, values[:-1])), **dict(zip(LAYOUT_KEYS, values[-1]))}
        if by_model:
            c["method"] = by_model[c["model"]]
        method = c["method"]
        draft_hw = c["draft_hardware"] = c["draft_hardware"] if method not in ("none", "ngram") else None
        model = models[c["model"]]
        if model.moe is None:
            c["expert_dtype"] = None  # the experts' dtype of a sweep with MoE models beside a dense one
        key = tuple(c.values())
        if key in seen:  # a per-model method, a draft device for a method without drafter, or an expert dtype for a dense
            continue     # model repeats a config
        seen.add(key)
        try:
            dep = deployment(model, c["weight_dtype"], c["kv_dtype"], c["tp"], c["dp_attention"], c["ep"], c["pp"],
                             c["expert_dtype"], where=sc.path or sc.name)
        except RooflineError as err:
            if sc.layouts:  # which entry of the list: `ep 16` alone does not say
                at = sc.layouts.index(tuple(c[key] for key in LAYOUT_KEYS))
                where_text = sc.path or sc.name
                text = str(err)[len(where_text) + 2:] if str(err).startswith(f"{where_text}: ") else str(err)
                if any(_takes_layout(other, c, sc.layouts[at]) for other in models.values() if other is not model):
                    # a layout for another model of the scenario (qa436: ep 8 for MiniMax refused the whole scenario for
                    # Llama, a dense model): left out for this one, said once; refused where the model takes none
                    layouts_left.setdefault(model.name, {}).setdefault(at, text)
                    continue
                later, other_reasons = [], []  # every other entry the model refuses, at once (qa339: layouts [tp 3, tp 8,
                # tp 5] named 3), each with its own reason where it is another (qa466: tp 3's said 'too' of ep 8's)
                for j, layout in enumerate(sc.layouts):
                    if j != at:
                        try:
                            deployment(model, c["weight_dtype"], c["kv_dtype"], *layout, c["expert_dtype"], where=where_text)
                        except RooflineError as other:
                            why = str(other).removeprefix(f"{where_text}: ")
                            if why.split(":")[0] == text.split(":")[0]:  # the same field's rule
                                later.append(f"layouts[{j}]")
                            else:
                                other_reasons.append(f"layouts[{j}] too, for {model.name}, by its own rule: {why}")
                said = [f"{spoken_list(later)} too, for {model.name}"] if later else []
                raise RooflineError(f"{where_text}: layouts[{at}]: {text}"
                                    + (f" ({'; '.join(said + other_reasons)})" if said or other_reasons else "")) from None
            if len(sc.layout_list) < 2:
                raise
            combo = ", ".join(f"{key} {c[key]}" for key in LAYOUT_KEYS)
            varied = [key for key in LAYOUT_KEYS if len(getattr(sc, key)) > 1]
            if len(varied) == 1:  # one list: every value of it the model refuses, in one line (qa336: tp 3, then 5, 6, 7)
                key = varied[0]
                refused = []
                for value in getattr(sc, key):
                    try:
                        deployment(model, c["weight_dtype"], c["kv_dtype"], **{k: (value if k == key else c[k]) for k in LAYOUT_KEYS},
                                   expert_dtype=c["expert_dtype"], where=sc.path or sc.name)
                    except RooflineError:
                        refused.append(value)
                others = [v for v in refused if v != c[key]]
                raise RooflineError(f"{err}" + (f" ({key} {spoken_list([str(v) for v in others])} too: drop them from "
                                                f"the {key} list)" if others else "")) from None
            raise RooflineError(f"{err} (the combination {combo} of the lists crossed; `layouts: [{{tp: 8}}, "
                                "{dp_attention: 8, ep: 8}]` sweeps chosen layouts side by side)") from None
        dep = for_engine(dep, engines[c["engine"]].for_hardware(hws[c["hardware"]]), model)  # as the engine lays it out on it
        labels = (c["hardware"], c["model"], c["engine"], method, draft_hw, dep.weight_dtype_label, dep.expert_dtype_label,
                  dep.kv_dtype, dep.tp, dep.dp_attention, dep.ep, dep.pp, c["shared_prefix"])
        if labels in resolved:  # null (the native dtype) beside that dtype spelled out: two configs, one set of labels
            key = next((k for k in ("weight_dtype", "expert_dtype") if resolved[labels][k] != c[k]), "weight_dtype")
            note = (f"{where}: {key}: {resolved[labels][key] or 'null'} and {c[key] or 'null'} are both {model.name}'s "
                    f"{getattr(dep, key + '_label')}: its rows are swept once")
            if note not in warned:
                warned.add(note)
                warn(note)
            continue
        resolved[labels] = c
        check_draft_vocab(where, draft_vocab_of(method, sc.draft_vocab), model)
        if method == "mtp" and model.mtp_modules < 1:  # before a sweep (and `scenarios validate`), with the file's name
            hint = ("; a method per model (method: {MODEL: mtp, OTHER: eagle}) gives each model its own" if len(sc.model) > 1
                    and not by_model else "; use eagle or draft")
            raise RooflineError(f"{where}: method: expected a model with MTP modules for mtp, found {model.name!r} "
                                f"(mtp_modules: 0){hint}")
        hw = hws[c["hardware"]]
        acceptance = sc.acceptance
        rates_note = ""
        if acceptance is None and not alpha_axis and sc.tree_nodes is None and method != "none":
            acceptance = default_rates(method)[0]
            rates_note = (default_rates_note(method, model.name, sc.draft_vocab if method == "eagle" else None)
                          if (np.asarray(sc.axes["k"]) > 0).any() else "")
        smallest = int(np.min(sc.axes["batch"]))
        idle = (f"dp_attention {dep.dp_attention}: at batches below {dep.dp_attention} (the sweep's smallest is {smallest}) "
                "some attention groups have no sequence to decode, and their devices idle through attention"
                if dep.dp_attention > smallest else "")
        reuse = mtp_reuse_note(method, model, int(np.max(sc.axes["k"])), not _acceptance_given(sc))
        reach = acceptance_reach_note(method, sc.axes["k"], sc.acceptance, sc.acceptance_length,
                                      float(sc.axes["alpha"][0]) if sc.acceptance_length is not None else None,
                                      flat_alpha=alpha_axis and sc.tree_nodes is None)
        longest = context_note(model, sc.axes["context"])
        drafter_longest = (drafter_context_note(draft, sc.axes["context"]) if method == "draft"
                           and (np.asarray(sc.axes["k"]) > 0).any() else "")
        engine = engines[c["engine"]]
        on_hw = engine.for_hardware(hw)  # the parameters no fit row determined that this config leans on, said once an engine
        # the caveats on the engine's evidence describe a deployment: none where it does not run on a device of the config
        deployable = not engine_on_a_cpu(engine, hw) and (not draft_hw or not engine_on_a_cpu(engine, hws[draft_hw]))
        # a layout the engine runs (not refused, as frontier.refused_layouts rules): the notes that list configs name
        # only such (qa436: the host-work note quoted minimax at tp 8, which another warning says vLLM refuses to load)
        runs = deployable and not shard_note(model, dep) and not engine_layout_note(on_hw, model, dep)
        used = parameters_used(hw, model, dep, on_hw, speculates(method, 1) and bool((np.asarray(sc.axes["k"]) > 0).any()),
                               _host_bound_somewhere(sc, hw, model, dep, on_hw), method) if deployable else {}
        undetermined.setdefault(engine.name, (engine, {}))[1].update(  # the profile's own values: no override set them
            dict.fromkeys(p for p, use in used.items() if use and on_hw.undetermined(p, hw)))
        dispatch_note = dispatch_latency_note(on_hw, "it", hw.cross_domain_latency_s(dep.devices_per_stage))  # the engine as on this device (qa143)
        # said once an engine and note after the loop (qa210: 8 near-copies); not of a layout no setup of it runs (qa240)
        if dispatches(model, dep) and dispatch_note and not engine_layout_note(on_hw, model, dep):
            labels = dispatch_notes.setdefault((engine.name, dispatch_note), [])
            label = (f"{model.name} dp_attention {dep.dp_attention} ep {dep.ep}{f' pp {dep.pp}' if dep.pp > 1 else ''} "
                     f"on {hw.name}")  # (qa245: pp 1 and pp 2 said as one config)
            if label not in labels:
                labels.append(label)
        gains = (f"under {engine.name}, {OPTIMISTIC}{optimistic_found_for(engine)} (docs/ACCURACY.md): read the sweep's "
                 "speedups there as upper estimates"  # predict says it of its point; a notebook's sweep said nothing (qa92)
                 if deployable and speculates(method, 1) and (np.asarray(sc.axes["k"]) > 0).any()
                 and optimistic(np.max(sc.axes["batch"]), engine.name) else "")
        top = _largest_fitting_batch(sc, hw, model, dep, c["shared_prefix"], on_hw)  # the notes' batch (0: none fits)
        if runs and speculates(method, 1) and (np.asarray(sc.axes["k"]) > 0).any() and host_carries_gain(on_hw, dep.pp):
            # qa156, qa157: said once an engine after the loop, at the largest swept batch plain decoding fits
            context = int(np.min(sc.axes["context"]))
            if top:
                plain_s = float(step_metrics(hw, model, top, 1, context, dep, engine=on_hw,
                                             shared_prefix=c["shared_prefix"])["step_time_s"])
                share = float(host_time_s(on_hw, top, dep)) / plain_s
                if share > HOST_SHARE_NOTED:
                    varied = [name for name in ("weight_dtype", "expert_dtype", "kv_dtype") if len(getattr(sc, name)) > 1]
                    label = f"{model.name} on {hw.name}" + "".join(  # qa261: its ep was left out
                        f" {name} {value}" for name, value in (("tp", dep.tp), ("dp_attention", dep.dp_attention),
                                                              ("ep", dep.ep), ("pp", dep.pp)) if value > 1) + (
                        f" with a {c['shared_prefix']:,}-token shared prefix" if c["shared_prefix"] else "") + (
                        # qa273: two expert dtypes said as two identical labels
                        f" ({dep.weight_dtype_label} weights" + (f", {dep.expert_dtype_label} experts" if dep.has_experts else "")
                        + f", {dep.kv_dtype} KV)" if varied else "")
                    said = host_shares.setdefault(engine.name, (on_hw, hw, []))[2]
                    shown = next(t for d in range(0, 6) if float((t := f"{share:.{d}%}")[:-1]) > 25 or d == 5)  # over a
                    #   quarter, never printed as 25% or 25.0% (qa313, qa316)
                    if f"{label} {shown} at batch {top:,}" not in said:  # configs differing only in the drafter's place
                        said.append(f"{label} {shown} at batch {top:,}")
        for note in [engine_on_a_cpu(engines[c["engine"]], hw), engine_on_a_cpu(engines[c["engine"]], hws[draft_hw]) if draft_hw else "",
                     weight_only_note(hw, dep, model), unfitted_family_note(hw, model, dep, on_hw) if deployable else "",
                     fit_bound_note(on_hw, hw, used, "the sweep's figures") if deployable else "",
                     fitted_class_note(engine, model) if deployable else "", fitted_family_note(engine, hw) if deployable else "",
                     fitted_batches_note(engine, sc.axes["batch"]) if deployable else "",
                     shard_note(model, dep) + (f" (under {engine.name})" if dep.stage_split and shard_note(model, dep) else ""),
                     group_note(model, dep), fp8_block_note(model, dep), dp_spelling_note(dep), hw.one_domain_note(dep.devices), stage_split_dense_note(engine, model, dep),
                     engine_layout_note(on_hw, model, dep),
                     *(speculation_engine_notes(on_hw, method, 1, dep)  # its refusals; its cap, said once below
                       if speculates(method, 1) and (np.asarray(sc.axes["k"]) > 0).any() else ()),
                     speculation_caveat_note(on_hw, method) if speculates(method, 1) and (np.asarray(sc.axes["k"]) > 0).any() else "",
                     running_cap_note(on_hw, hw, top, dep),
                     idle, rates_note, reuse, reach, longest, drafter_longest, gains,
                     *drafter_warnings(method, model, draft if method == "draft" else None, hws[draft_hw] if draft_hw else None,
                                       dep.pp, dep, on_hw)]:
            if draft_hw and note == drafter_placement_note([hws[draft_hw].name], on_hw.name):  # said once after the
                placed.setdefault(on_hw.name, []).append(hws[draft_hw].name)  # loop, every drafter device named (qa398)
                continue
            if note and note not in warned:
                warned.add(note)
                warn(note)
        drafter_family = fitted_family_note(engine, hws[draft_hw], "the drafter's device ") if deployable and draft_hw else ""
        if drafter_family:  # said once after the loop for the drafter devices of one family (qa398: a line each)
            name = hws[draft_hw].name
            key = drafter_family.replace(f"the drafter's device {name} is ", f"the drafter's device {DEVICES} is ", 1)
            if name not in drafter_families.setdefault(key, []):
                drafter_families[key].append(name)
        if runs:  # a miss matching several configs said once after the loop, naming them (qa398: its note and
            for note in known_miss_notes(engine, hw, model, _methods_swept(sc, method), sc.axes["batch"], MISSED,
                                         dep.describe()):  # the definition of its percentages twice in a report section)
                point = f"{model.name} on {hw.name} at {dep.describe()}"
                if point not in missed.setdefault(note, []):
                    missed[note].append(point)
        label = f"{model.name} on {hw.name}, {dep.describe()}"  # the config, in the notes said once after the loop
        # said once after the loop, naming the configs each holds for (qa292: 'this config' in a sweep of many, unnamed)
        drafting = method if method in _methods_swept(sc, method) else "none"  # (k 0 alone: plain)
        for note in (fitted_elsewhere_note(engine, hw, model, drafting, used, subject=CONFIGS, device_named=True) if runs else "",
                     fitted_elsewhere_note(engine, hws[draft_hw], model, method, {"kernel_latency": True},
                                           "the drafter's device ", CONFIGS, True) if runs and draft_hw else ""):
            if note and label not in elsewhere.setdefault(note, []):
                elsewhere[note].append(label)
        if hw.cross_domain_latency_s(dep.tp):  # qa229: predict said it of the pick, the sweep and cheapest did not
            spans = across.setdefault(format_seconds(hw.cross_domain_latency_s(dep.tp)), [])
            if label not in spans:
                spans.append(label)
        cap = running_cap_speculating(on_hw, dep.dp_attention)
        if (cap is not None and top > cap and speculates(method, 1) and (np.asarray(sc.axes["k"]) > 0).any()
                and not speculation_engine_notes(on_hw, method, 1, dep)):  # qa229, qa231: a line a config, or of a batch
            # that does not fit, each worded its own way
            groups = f": {cap // dep.dp_attention} in each of its {dep.dp_attention} attention-DP groups" if dep.dp_attention > 1 else ""
            caps = capped.setdefault(engine.name, (on_hw, []))[1]
            if f"{label}{groups}" not in caps:
                caps.append(f"{label}{groups}")
        out.append(Config(hw, model, dep, engines[c["engine"]].for_hardware(hw), method,
                          draft if method == "draft" else None, hws[draft_hw] if draft_hw else None,
                          c["shared_prefix"], acceptance))
    for name, left in layouts_left.items():
        if not any(cfg.model.name == name for cfg in out):  # every layout refused for it: the first refusal, as before
            at, text = next(iter(left.items()))
            raise RooflineError(f"{where}: layouts[{at}]: {text} (every layout of the list refused for {name}: give it one "
                                "it takes, or sweep it in a scenario of its own)")
        warn(f"{where}: " + "; ".join(f"layouts[{at}] ({describe_layout(*sc.layouts[at])}) left out for {name}, which "
                                      f"another model takes: {text}" for at, text in sorted(left.items())))
    if max(sc.shared_prefix) > 0:  # how each engine treats a shared prefix, which the table's figures depend on (qa349:
        # said by predict's header, by no sweep)
        treats = {}
        for cfg in out:
            e = cfg.engine
            treats.setdefault(e.name, (
                ("held once" + (" and not prefilled again" if sc.prompt is not None else "") if e.prefix_cached else
                 "held by each sequence" + (" and prefilled whole" if sc.prompt is not None else "")) + " (prefix_cached "
                + f"{str(e.prefix_cached).lower()}), read " + ("once a step" if e.reads_prefix_once else "by each sequence")
                + f" (prefix_read_once {str(e.prefix_read_once).lower()}"
                + ("; each sequence's own copy, which no kernel shares" if e.prefix_read_once and not e.prefix_cached else "") + ")"
                + (", and while speculating held and read by each sequence" + (" and prefilled whole" if sc.prompt is not None
                                                                               else "") + " (prefix_cached_speculating false)"
                   if speculating_engine(e) is not e and any(c.method != "none" for c in out) else "")))
        alike: dict[str, list[str]] = {}
        for name, how in treats.items():  # engines that treat it alike in one clause
            alike.setdefault(how, []).append(name)
        warn(f"{sc.path or sc.name}: shared_prefix: " + "; ".join(f"under {spoken_list(names)} the prefix is {how}"
                                                                  for how, names in alike.items()))
    for latency, labels in across.items():  # one line a latency (qa229)
        warn(f"tp spans scale-up domains in {_configs_text(labels)}: "
             f"their all-reduces pay the scale-out link's latency ({latency}), {CROSS_DOMAIN_CAVEAT}; predict and cheapest "
             "say their share of a decode step where the collectives on that link are a tenth of it or more")
    for name, (on_hw, labels) in capped.items():  # one line an engine (qa229: three, each worded its own way)
        flag = on_hw.max_running_requests_flag
        warn(f"speculating under {name}: it runs at most {on_hw.max_running_requests_speculating:,} sequences at once unless "
             f"its cap is raised (its profile's max_running_requests_speculating{f'; the server option {flag} raises it' if flag else ''}"
             f"), and the sweep's batches above that which fit assume the cap raised to them (left as it is, the rest wait "
             f"in its queue), in {_configs_text(labels)}")
    said_alike: dict[tuple[str, str], list[str]] = {}  # engines whose lines would differ in their name alone: one line
    for name, (on_hw, hw, shares) in host_shares.items():  # (qa157: a paragraph a config flooded; qa332: an eager copy
        said_alike.setdefault((host_terms_text(on_hw, hw), _configs_text(shares)), []).append(name)  # repeated vllm's)
    for (terms, configs), names in said_alike.items():
        engine_s = "the engine's" if len(names) == 1 else "each engine's"
        warn(f"under {spoken_list(names)}, speculation pays {engine_s} host work ({terms}, not overlapped) once "
             f"an iteration of tau tokens, and it is over a quarter of the plain step at the largest swept batch that "
             f"fits in {configs}: much of any speculative gain there rests on it; host work and GPU work a "
             "sequence (which speculation would not amortise) are not told apart by the fit: read those gains as upper "
             "estimates (docs/ACCURACY.md)")
    for note, labels in elsewhere.items():
        warn(note.replace(CONFIGS, labels[0] if len(labels) == 1 else f"each of {_configs_text(labels)}"))
    for note, names in drafter_families.items():
        warn(note.replace(f"the drafter's device {DEVICES} is ", f"the drafter's device {names[0]} is " if len(names) == 1
                          else f"the drafter's devices {spoken_list(names)} are ", 1))
    for note, points in missed.items():
        warn(note.replace(MISSED, f" for {points[0]}" if len(points) == 1 else f" for each of {_configs_text(points)}"))
    for name, devices in placed.items():
        warn(drafter_placement_note(devices, name))
    for (name, note), labels in sorted(dispatch_notes.items(), key=lambda item: item[0][0]):  # an engine's lines together
        warn(f"the expert dispatch under {name} in {_configs_text(labels)}: {note}; predict prints its time (expert dispatch) and warns where it is "
             "over a tenth of the step")
    for engine, lost in undetermined.values():
        note = undetermined_text(engine, list(lost), "the sweep's figures lean on them where a point uses them" if len(lost) > 1
                                 else "the sweep's figures lean on it where a point uses it")
        if note:
            warn(note)
    return out


def _configs_text(labels: list[str], most: int = 6) -> str:
    """'3 configs (a; b; c)': the configs a note said once after the loop holds for, the first `most` named."""
    more = f"; and {len(labels) - most} more" if len(labels) > most else ""
    return f"{len(labels)} config{'s' if len(labels) > 1 else ''} ({'; '.join(labels[:most])}{more})"


DEVICES = "\x00devices\x00"  # the drafter devices of a fitted-family note, filled in once all are known
MISSED = "\x00for the configs\x00"  # a known miss's subject in a sweep, filled in once its configs are all known
CONFIGS = "\x00the configs\x00"  # a fitted-elsewhere note's subject, filled in once its configs are all known


def _host_bound_somewhere(sc: Scenario, hw: HardwareSpec, model: ModelSpec, dep: Deployment, engine: ServingEngine) -> bool:
    """Whether the engine's host work, overlapped but determined by no fit row, sets a plain step of the sweep: tried
    at the shortest context at both ends of the batch axis (host work and the device's step both grow about linearly
    with the batch, so their difference is largest at one end: a small model's smallest batch, qa90, or a large one)."""
    if not engine.host_overlap or not any(engine.undetermined(p, hw) for p in HOST_PARAMETERS):
        return False  # added to every step (parameters_used says so), or nothing to say
    batches = np.array([np.min(sc.axes["batch"]), np.max(sc.axes["batch"])])  # host work minus device time is linear in B
    m = step_metrics(hw, model, batches, 1, int(np.min(sc.axes["context"])), dep, engine=engine)
    return bool(np.any(host_sets_step(m["host_overlapped"], m["host_time_s"] + m["launch_time_s"], m["step_time_s"])))


def _one_entry_per_profile(where: str, key: str, entries, loaded: dict) -> None:
    """Refuse two entries of a list-valued key that load profiles of the same name ("h100-sxm" and its alias "H100",
    or a user file named like a built-in profile): their rows would carry the same label and could not be told apart."""
    first: dict[str, str] = {}
    for entry in entries:
        name = loaded[entry].name
        if name in first and first[name] != entry:
            raise field_error(where, key, "each profile once, under a name of its own (rows are labelled by name)",
                              f"the profile named {name!r} twice, as {first[name]!r} and {entry!r}")
        first.setdefault(name, entry)


def _one_profile_per_name(where: str, key: str, entries, loaded: dict) -> None:
    """Refuse entries of different keys (hardware and draft_hardware) that load different profiles of one name (a user
    file named like a built-in): the same name in both columns would stand for two devices."""
    first: dict[str, str] = {}
    for entry in entries:
        spec = loaded[entry]
        other = first.setdefault(spec.name, entry)
        if differing_fields(loaded[other], spec):
            raise field_error(where, key, "one profile per name across hardware and draft_hardware (rows are labelled by name)",
                              f"two profiles named {spec.name!r}: {other!r} and {entry!r}")


def _chunk_slices(n_context: int, n_alpha: int, per_slice: int, chunk_points: int) -> Iterator[tuple[slice, slice]]:
    alpha_step = max(1, min(n_alpha, chunk_points // max(per_slice, 1)))
    context_step = max(1, chunk_points // max(per_slice * n_alpha, 1)) if alpha_step == n_alpha else 1
    for c0 in range(0, n_context, context_step):
        for a0 in range(0, n_alpha, alpha_step):
            yield slice(c0, c0 + context_step), slice(a0, a0 + alpha_step)


def compute_block(sc: Scenario, cfg: Config, context, alpha, batch, k, refine: bool = True) -> dict[str, np.ndarray]:
    """All outputs on the grid context x alpha x batch x k (4-D arrays in GRID_AXES order); the break-even batch
    refined between the swept batches where `refine` (refines_break_even)."""
    grid = {name: np.asarray(v)[tuple(slice(None) if i == AXIS[name] else None for i in range(4))]
            for name, v in zip(GRID_AXES, (context, alpha, batch, k))}
    c, a = grid["context"].astype(np.float64), grid["alpha"].astype(np.float64)
    b, kk = grid["batch"].astype(np.float64), grid["k"].astype(np.int64)
    alpha_arg = None if (cfg.acceptance is not None or sc.tree_nodes is not None or cfg.method == "none") else a

    def metrics(batches, contexts=c, ks=kk, alphas=alpha_arg):
        return speculative_metrics(
            cfg.hw, cfg.model, batches, contexts, ks, alphas, method=cfg.method, draft=cfg.draft, draft_hw=cfg.draft_hw,
            acceptance=cfg.acceptance, tree_nodes=sc.tree_nodes, tree_tau=sc.tree_tau, overlap=sc.overlap,
            draft_vocab=draft_vocab_of(cfg.method, sc.draft_vocab), dep=cfg.dep, engine=cfg.engine,
            shared_prefix=cfg.shared_prefix,
        )

    spec = metrics(b)
    shape = np.broadcast(c, a, b, kk).shape
    out = {name: np.broadcast_to(v, shape) for name, v in spec.items()}
    out["step_time_s"] = out["baseline_step_time_s"]
    out["mbu"], out["mfu"] = out["baseline_mbu"], out["baseline_mfu"]
    out["comm_time_s"] = out["baseline_comm_time_s"]
    out["launch_bound"] = out["baseline_launch_bound"]
    out["baseline_tokens_per_s_per_user"] = 1.0 / out["step_time_s"]
    fits = out["fits_in_memory"]
    best = best_k(out["tokens_per_s"], fits, np.asarray(k), axis=AXIS["k"])  # -1: no k of the axis fits
    if sc.tree_nodes is not None:
        best = np.full_like(best, -1)  # a tree's tau at another depth is unknown: no best depth
    elif cfg.method == "none":  # nothing drafts: every k is plain decoding, so 0 (qa277: the first swept k, argmax's tie)
        best = np.where(best >= 0, 0, best)
    out["best_k"] = np.broadcast_to(np.expand_dims(best, AXIS["k"]), shape)
    be = break_even_batch(batch, np.where(fits, out["speedup"], 0.0), axis=AXIS["batch"])
    drafting = speculates(cfg.method, kk)  # none, or k = 0: nothing pays (a batch axis of length 1, as be's)
    be = np.where(drafting, np.expand_dims(be, AXIS["batch"]), 0)
    cap = np.take(out["max_batch"], [0], axis=AXIS["batch"])  # the largest batch that fits: one per cell
    if refine:
        be = _refined_break_even(be, np.asarray(batch), fits, cap, metrics, c, kk, alpha_arg, np.broadcast_to(drafting, be.shape))
    out["break_even_batch"] = np.broadcast_to(be, shape)
    # still paying where memory ends the search: a lower bound, as predict's spec.break_even_at_memory_limit (qa299)
    out["break_even_at_memory_limit"] = np.broadcast_to((be > 0) & (be == cap), shape)
    # still paying at the sweep's last batch where larger ones fit: a lower bound too (qa337: 256 read as where it stops,
    # said on the terminal only)
    last = float(np.max(batch))
    out["break_even_at_last_batch"] = np.broadcast_to((be > 0) & (be == last) & (cap > last), shape)
    # the drafter's device counts (and costs) only when there is a drafter and it drafts
    uses_draft_device = (cfg.draft_hw is not None) & speculates(cfg.method, kk)
    devices = cfg.dep.devices + uses_draft_device.astype(np.float64)
    out["tokens_per_s_per_device"] = out["tokens_per_s"] / devices
    price = cfg.hw.price_usd_per_hour
    draft_price = cfg.draft_hw.price_usd_per_hour if cfg.draft_hw is not None else 0.0
    # an unpriced drafter device blanks only the rows that pay for it: plain decoding never does
    usd_per_hour = rent_usd_per_hour(price, cfg.dep.devices, draft_price, uses_draft_device)
    out["cost_usd_per_million_tokens"] = np.broadcast_to(usd_per_million_tokens(usd_per_hour, out["tokens_per_s"]), shape)
    out["baseline_cost_usd_per_million_tokens"] = np.broadcast_to(
        usd_per_million_tokens(rent_usd_per_hour(price, cfg.dep.devices), out["baseline_tokens_per_s"]), shape)
    if sc.prompt is not None:
        out.update(serving_columns(sc, cfg, out, b, kk, shape))
    return out


def serving_columns(sc: Scenario, cfg: Config, out: dict, b: np.ndarray, k: np.ndarray, shape: tuple) -> dict:
    """What a serving benchmark with B requests in flight, each of P = sc.prompt tokens and O = sc.output_len, reads
    (predict's --prompt and --output-len, api._serving_terms, term by term), with and without speculation:

        ttft_s                                   t_prefill(P), the request's own prefill pass (engine.ttft_s: of the
                                                 tokens past a shared prefix the engine caches, prefix_cached)
        baseline_serving_ttft_s   = t_prefill(P)                 at B = 1, else t_step + t_stall(1)
        serving_ttft_s            = t_prefill(P) + t_draft_prefill(P) at B = 1, else t_iter + t_stall(q_v)   (k > 0)
        baseline_serving_time_per_output_token_s = t_step + (B - 1) t_stall(1) / O
        serving_time_per_output_token_s          = t_iter / tau + (B - 1) t_stall(q_v) / O
        serving_speedup = baseline_serving_time_per_output_token_s / serving_time_per_output_token_s
        baseline_serving_cost_usd_per_million_tokens = cost_plain (t_step + B t_stall(1) / O) / t_step
        serving_cost_usd_per_million_tokens          = cost (t_iter / tau + B t_stall(q_v) / O) / (t_iter / tau)
        baseline_serving_tokens_per_s = B / (t_step + B t_stall(1) / O)
        serving_tokens_per_s          = B / (t_iter / tau + B t_stall(q_v) / O)

    the costs the devices' rent over the device time a token takes with every request's prefill, its own included
    (api._serving_terms' serving_cost_usd_per_million_tokens; NaN where a device has no price), and the throughputs the
    tokens that time gives: B requests in flight, each O tokens over O t_token + B t_stall (Little's law; the rent
    over them is the cost). At B = 1 no other sequence decodes while a prompt is prefilled, so t_stall is the request's
    own prefill there, t_prefill(P) (+ t_draft_prefill(P) speculating; engine.serving_terms, qa359).

    t_stall(q_v) = engine.arrival_stall_s: what one arriving prompt's prefill adds to the decode of B sequences of q_v
    tokens a pass (1 plain; k + 1 verifying a chain, a tree's nodes + 1), speculating with the drafter model's own
    prefill of it beside (speculation.drafter_prefill_stall_s); t_draft_prefill that prefill alone
    (speculation.drafter_ttft_s; none for n-gram and Medusa). At k = 0 the speculative columns are the baseline's. The
    speculative terms are the engine's as it speculates (serving.speculating_engine: an engine that turns its prefix
    cache off then prefills a shared prefix with every prompt); `ttft_s` is plain decoding's."""
    from roofline.engine import arrival_stall_s, serving_terms, ttft_s
    from roofline.speculation import drafter_prefill_stall_s, drafter_ttft_s

    prompt, output_len = sc.prompt, sc.output_len
    hw, model, dep, engine = cfg.hw, cfg.model, cfg.dep, cfg.engine
    drafting = speculates(cfg.method, k)
    q_v = np.where(drafting, (sc.tree_nodes + 1) if sc.tree_nodes is not None else k + 1, 1)
    prefix = cfg.shared_prefix  # held cached where the engine caches prefixes: not prefilled again (prefix_cached)
    spec_engine = speculating_engine(engine)  # and while it speculates where it keeps its cache then
    prefill_s = float(ttft_s(hw, model, prompt, dep, engine, prefix))
    spec_prefill_s = float(ttft_s(hw, model, prompt, dep, spec_engine, prefix)) if spec_engine is not engine else prefill_s
    draft_s = drafter_ttft_s(cfg.method, model, cfg.draft, draft_vocab_of(cfg.method, sc.draft_vocab), hw, cfg.draft_hw,
                             dep, spec_engine, prompt, prefix) if speculates(cfg.method, 1) else None
    stall_plain_s = arrival_stall_s(hw, model, prompt, b, dep, engine, 1, prefix)
    stall_s = arrival_stall_s(hw, model, prompt, b, dep, spec_engine, q_v, prefix)
    draft_stall_s = drafter_prefill_stall_s(cfg.method, model, cfg.draft, draft_vocab_of(cfg.method, sc.draft_vocab), hw,
                                            cfg.draft_hw, dep, spec_engine, prompt, b, prefix) if speculates(cfg.method, 1) else None
    stall_s = stall_s + (draft_stall_s if draft_stall_s is not None else 0.0)  # the drafter's own prefill stalls it too
    step, iteration = out["step_time_s"], out["iteration_time_s"]
    plain = serving_terms(step, step, stall_plain_s, prefill_s, b, output_len, out["baseline_cost_usd_per_million_tokens"])
    alone_s = spec_prefill_s + (float(draft_s) if draft_s is not None else 0.0)  # a lone request: the drafter's own next
    spec = serving_terms(iteration / out["tau"], iteration, stall_s, alone_s, b, output_len,  # (above B = 1, its stall
                         out["cost_usd_per_million_tokens"])  # holds it: qa354)
    columns = {"ttft_s": np.full(shape, prefill_s),
               **{f"baseline_serving_{name}": value for name, value in plain.items()},
               **{f"serving_{name}": np.where(drafting, spec[name], plain[name]) for name in plain}}
    columns["serving_speedup"] = columns["baseline_serving_time_per_output_token_s"] / columns["serving_time_per_output_token_s"]
    return {name: np.broadcast_to(value, shape) for name, value in columns.items()}


def config_labels(cfg: Config) -> dict[str, str]:
    """The LABEL_COLUMNS values of one config's rows, each the same on every row of it."""
    dep = cfg.dep
    return {"hardware": cfg.hw.name, "model": cfg.model.name, "engine": cfg.engine.name, "method": cfg.method,
            "draft_hardware": cfg.draft_hw.name if cfg.draft_hw else "", "weight_dtype": dep.weight_dtype_label,
            "expert_dtype": dep.expert_dtype_label, "kv_dtype": dep.kv_dtype}


def config_values(cfg: Config) -> dict:
    """A config's labels, layout degrees and shared prefix: the columns a figure's panels may split on."""
    dep = cfg.dep
    return {**config_labels(cfg), "tp": dep.tp, "dp_attention": dep.dp_attention, "ep": dep.ep, "pp": dep.pp,
            "shared_prefix": cfg.shared_prefix}


BREAK_EVEN_BUDGET_MIN = 50_000  # batches a config's break-even refinement may scan: at least this many, or 5% of the
BREAK_EVEN_BUDGET_SHARE = 0.05  # config's points (a batch of a gap costs about five grid points: no axis to broadcast over)


def refines_break_even(sc: Scenario, configs: tuple | list = ()) -> tuple[bool, int]:
    """(whether a sweep's configs refine their break-even batches, the batches that refining could scan): its (context, alpha,
    k) cells times the widest gap between swept batches, at most max(BREAK_EVEN_BUDGET_MIN, BREAK_EVEN_BUDGET_SHARE x
    the points of a config). A gap is scanned no further than the largest batch that fits (_refined_break_even stops at
    a cell's max_batch), so with the sweep's `configs` the widest gap is taken at most the most any of them fits
    (_most_that_fit: qa380, a batch axis to 16,384 was not refined where 717 fit, 16 x 8,191 batches estimated, and its
    break-even stayed a swept batch, unflagged). From the axes and configs alone, so every chunk of a config
    (--chunk-points) decides alike: a 10^6-point sweep of eleven batches keeps the swept values (a lower bound, said
    once), a report's sweep of a few thousand points is refined whole."""
    ax = sc.axes
    batches = np.asarray(ax["batch"])
    widest = max(int(np.diff(batches).max()) - 1 if batches.size > 1 else 0, int(batches.min()) - 1)  # below the first too
    if configs:
        widest = min(widest, _most_that_fit(sc, configs))
    cells = len(ax["context"]) * len(ax["alpha"]) * len(ax["k"])
    scan = cells * max(widest, 0)
    return scan <= max(BREAK_EVEN_BUDGET_MIN, BREAK_EVEN_BUDGET_SHARE * cells * batches.size), scan


def _most_that_fit(sc: Scenario, configs) -> int:
    """The most sequences any of `configs` fits without a drafter at the sweep's shortest context (capacity's max_batch
    with the KV of context + 1 tokens a sequence): no cell of theirs fits more, speculating or at a longer context."""
    shortest = int(np.min(sc.axes["context"])) + 1
    return max(int(np.max(capacity(c.hw, c.model, 1, shortest, c.dep, shared_prefix=c.shared_prefix,
                                   engine=c.engine)["max_batch"])) for c in configs)


def _refined_break_even(be, batch, fits, cap, metrics, context, k, alpha, drafting):
    """The break-even batch of each cell: `be`, the largest swept batch that pays (on a batch axis of length 1), moved
    to the last batch that pays before the next swept batch, or up to the largest batch that fits (`cap`, the cell's
    max_batch) where the next swept batch does not fit, every batch of each such gap evaluated in one call of `metrics`
    (speculative_metrics at flat arrays of batches, contexts, k and alphas), as predict's search evaluates every batch
    past its last crossing: near speedup 1 a curve can zigzag a few batches wide (a GEMM's rows padded to the engine's
    tile), and the last batch that pays is the break-even, not the first crossing a bisection meets. A break-even at
    `cap` (speculation pays wherever the batch fits) or at the sweep's last batch is a lower bound. A drafting cell
    (`drafting`) where no swept batch pays scans the batches below the first swept one, up to `cap` (no swept batch
    may fit where smaller ones do and pay); without a batch that pays it keeps 0. A curve that dips below 1 and
    recovers where no swept batch pays is not seen, where predict's search over every batch is
    (not_paying_below_break_even)."""
    axis = AXIS["batch"]
    nxt = np.searchsorted(batch, be, side="right")  # the swept batch after the break-even (len(batch): none)
    inside = (be > 0) & (nxt < batch.size)
    nxt_fits = np.take_along_axis(fits, np.broadcast_to(np.minimum(nxt, batch.size - 1), be.shape[:axis] + (1,) + fits.shape[axis + 1:]), axis)
    lo = be.astype(np.int64)
    nxt_batch = batch[np.minimum(nxt, batch.size - 1)]
    hi = np.where(inside, np.where(nxt_fits, nxt_batch, np.minimum(nxt_batch, cap + 1)), be).astype(np.int64)
    below = (be == 0) & drafting  # none swept pays: the batches below the first swept one, as far as they fit
    hi = np.where(below, np.minimum(batch[0], cap + 1), hi).astype(np.int64)
    open_ = hi - lo > 1
    widths = (hi - lo - 1)[open_]
    if not widths.size:
        return lo
    cell = np.repeat(np.arange(widths.size), widths)  # each open cell's batches lo + 1 .. hi - 1, one after another
    starts = np.concatenate([[0], np.cumsum(widths)[:-1]])
    batches = lo[open_][cell] + 1 + np.arange(widths.sum()) - starts[cell]
    cells = {"contexts": np.broadcast_to(context, be.shape), "ks": np.broadcast_to(k, be.shape)}
    if alpha is not None:
        cells["alphas"] = np.broadcast_to(alpha, be.shape)
    m = metrics(batches.astype(np.float64), **{name: v[open_][cell] for name, v in cells.items()})
    paying = pays(m["speedup"]) & np.asarray(m["fits_in_memory"])
    last = np.maximum.reduceat(np.where(paying, batches, 0), starts)  # the last batch of each gap that pays (0: none)
    lo[open_] = np.maximum(lo[open_], last)
    return lo


def _columns(sc: Scenario, cfg: Config, block: dict, context, alpha, batch, k,
             runs: tuple[bool, bool] = (True, True)) -> tuple[dict[str, str], dict[str, np.ndarray]]:
    """(labels, flat numeric columns) of one block: labels are constant over the block; `runs`: engine_runs's
    (plain, speculative) of its config, engine_runs the speculative one on a drafting row (k > 0 of a method that
    drafts), baseline_engine_runs the plain one on every row."""
    grid = dict(zip(GRID_AXES, np.meshgrid(context, alpha, batch, k, indexing="ij")))
    n = grid["context"].size
    dep = cfg.dep
    labels = config_labels(cfg)
    cols = {}
    for name, value in (("tp", dep.tp), ("dp_attention", dep.dp_attention), ("ep", dep.ep), ("pp", dep.pp), ("devices", dep.devices),
                        ("shared_prefix", cfg.shared_prefix)):
        cols[name] = np.full(n, value, dtype=np.int64)
    for name in ("batch", "context", "k", "alpha"):
        cols[name] = np.ravel(grid[name])
    for name in OUTPUT_COLUMNS + (SERVING_COLUMNS if sc.prompt is not None else ()):
        if name not in CONFIG_OUTPUT_COLUMNS:
            cols[name] = np.ravel(block[name])
    drafting = (cols["k"] > 0) & speculates(cfg.method, 1)
    cols["engine_runs"] = np.where(drafting, runs[1], runs[0])
    cols["baseline_engine_runs"] = np.full(n, runs[0])
    for name in INT_COLUMNS:
        cols[name] = cols[name].astype(np.int64, copy=False)
    for name in BOOL_COLUMNS:
        cols[name] = cols[name].astype(np.bool_, copy=False)
    return labels, cols


def engine_runs(configs: list[Config], extra_dirs: tuple = ()) -> list[tuple[bool, bool]]:
    """(plain, speculative) of each config: whether a setup of its engine runs its plain decoding, and its drafting
    (k > 0), by the rules cheapest and the report leave rows out by, worked out from the rows' columns as they do
    (frontier.refused_layouts: a layout the engine refuses to load or has no setup of, an engine on a device it does
    not run on, a method it refuses, or refuses at the layout's attention-DP or pipeline degree, a drafter's device
    the engine does not run on) and a draft model of another tokenizer (speculation.tokenizer_mismatch, as
    frontier.mismatched_drafts). A profile not on the search path (`extra_dirs`: roofline --profiles) is not checked:
    true, as cheapest, which names it unchecked."""
    from roofline.frontier import refused_layouts, refused_rows
    from roofline.speculation import tokenizer_mismatch

    if not configs:
        return []
    rows = pd.DataFrame([{**config_values(cfg), "k": k} for cfg in configs for k in (0, 1)])
    with warnings.catch_warnings():  # the profiles read again by name: what they warn of, loading them for the sweep said
        warnings.simplefilter("ignore")
        refused = refused_layouts(rows, extra_dirs)[0]
    runs = ~refused_rows(rows, refused).to_numpy() if refused else np.ones(len(rows), dtype=bool)
    return [(bool(runs[2 * i]), bool(runs[2 * i + 1]) and not (cfg.method == "draft" and cfg.draft is not None
                                                               and tokenizer_mismatch(cfg.model, cfg.draft)))
            for i, cfg in enumerate(configs)]


def iter_blocks(sc: Scenario, configs: list[Config], chunk_points: int = 1_000_000,
                lower_bounds_said: bool = True, extra_dirs: tuple = ()) -> Iterator[tuple[dict, dict]]:
    """Yield the sweep as (labels, columns) blocks of at most about `chunk_points` rows each. Said once the sweep ends
    (with `lower_bounds_said`): cells whose refined break-even is the last swept batch while larger batches fit, a
    lower bound (qa119). `extra_dirs`: where engine_runs finds the profiles by name (roofline --profiles)."""
    ax = sc.axes
    runs = engine_runs(configs, extra_dirs)
    per_slice = len(ax["batch"]) * len(ax["k"])
    drafting_k = np.asarray(ax["k"]) > 0
    said: set[str] = set()
    refine, scan = refines_break_even(sc, configs)
    if not refine and any(speculates(cfg.method, 1) for cfg in configs) and drafting_k.any():
        warn(f"{sc.path or sc.name}: break_even_batch is the largest swept batch that pays, a lower bound: refining it would "
             f"scan up to {scan:,} batches between the swept ones, more than max({BREAK_EVEN_BUDGET_MIN:,}, "
             f"{BREAK_EVEN_BUDGET_SHARE:.0%} of a config's points); a denser batch axis, or predict, gives it exactly")
    last = float(np.max(ax["batch"]))
    at_last = 0  # (context, alpha, k) cells whose break-even is the sweep's last batch though larger ones fit: lower bounds
    at_cap = 0  # cells whose break-even is the largest batch that fits, still paying: memory ends the search (qa299)
    dipped = 0  # (context, alpha, k) cells with a swept batch below the break-even that loses (qa275: unsaid by the table)
    dip_causes: dict[str, None] = {}  # why, of those that apply to a config that dips (qa280: a dense co-located
    #   draft model was told of offload and MoE experts)
    batch_col = np.asarray(ax["batch"], dtype=np.float64).reshape([-1 if i == AXIS["batch"] else 1 for i in range(len(GRID_AXES))])
    drafting_col = drafting_k.reshape([-1 if i == AXIS["k"] else 1 for i in range(len(GRID_AXES))])
    for cfg, cfg_runs in zip(configs, runs):
        fits_somewhere = drafts_somewhere = plain_somewhere = False
        drafter_least_bytes = np.inf  # the least memory the drafter takes on its own device at a drafting point
        drafter_usable_bytes = np.inf  # what the engine gives weights and KV cache on the drafter's own device
        for cs, asl in _chunk_slices(len(ax["context"]), len(ax["alpha"]), per_slice, chunk_points):
            context, alpha = ax["context"][cs], ax["alpha"][asl]
            block = compute_block(sc, cfg, context, alpha, ax["batch"], ax["k"], refine)
            fits = np.asarray(block["fits_in_memory"])  # (context, alpha, batch, k): GRID_AXES
            fits_somewhere = fits_somewhere or bool(np.any(fits))
            plain_somewhere = plain_somewhere or bool(np.any(np.asarray(block["baseline_max_batch"]) >= np.min(ax["batch"])))
            drafts_somewhere = drafts_somewhere or bool(np.any(np.take(fits, np.flatnonzero(drafting_k), axis=AXIS["k"])))
            if lower_bounds_said and refine and speculates(cfg.method, 1):  # (unrefined: the warning above says every
                # one is a lower bound; qa301: a sweep of one batch wrote 1 where predict said at least 790, unsaid)
                be = np.take(np.asarray(block["break_even_batch"]), [0], axis=AXIS["batch"])
                cap = np.take(np.asarray(block["max_batch"]), [0], axis=AXIS["batch"])
                at_last += int(np.count_nonzero((be == last) & (cap > last)))
                at_limit = np.take(np.asarray(block["break_even_at_memory_limit"]), [0], axis=AXIS["batch"])
                at_cap += int(np.count_nonzero(at_limit & (cap <= last)))  # the rows' own flag (compute_block); a cap
                # that is the last swept batch too is memory's (qa453: neither note where the axis ended at max_batch)
            if lower_bounds_said and len(ax["batch"]) > 1 and speculates(cfg.method, 1):
                speedup = np.asarray(block["speedup"])
                below = np.broadcast_to(np.asarray(block["break_even_batch"]), speedup.shape) > batch_col
                losing = fits & drafting_col & below & (speedup < 1.0 - 1e-12)
                dips = int(np.count_nonzero(np.any(losing, axis=AXIS["batch"])))
                dipped += dips
                if dips and np.any(np.take(losing, [0], axis=AXIS["batch"])):
                    dip_causes["at the smallest batches the drafter's fixed cost an iteration outweighs what it saves; as "
                               "the batch grows, the costs a sequence that plain decoding pays every token, speculation "
                               "pays once an iteration"] = None
                if dips and cfg.draft_hw is not None:
                    dip_causes["a drafter on its own device overlaps only where that pays"] = None
                if dips and cfg.model.moe is not None:
                    dip_causes["a MoE verify pass touches more experts"] = None
            if cfg.draft_hw is not None and drafting_k.any():
                drafter_least_bytes = min(drafter_least_bytes, float(np.min(np.take(
                    block["drafter_memory_bytes"], np.flatnonzero(drafting_k), axis=AXIS["k"]))))
                drafter_usable_bytes = float(np.min(block["drafter_usable_memory_bytes"]))
            yield _columns(sc, cfg, block, context, alpha, ax["batch"], ax["k"], cfg_runs)
        # its rows are all there, each fits_in_memory false: said once, where filtering would hide it
        # memory depends on the engine's share of it (capacity.py) and, with its drafter, on the method: said once for
        # the configs alike in those
        holds_drafter = speculates(cfg.method, 1) and not (~drafting_k).any()  # only drafting k swept: every point holds it
        drafter_side = (speculates(cfg.method, 1) and drafting_k.any() and not drafts_somewhere and cfg.draft_hw is not None
                        and drafter_least_bytes > drafter_usable_bytes)  # qa118: the drafter's own device runs out
        if drafter_side and (fits_somewhere or plain_somewhere):  # named first, k 0 swept or not (qa167)
            note = (f"{sc.path or sc.name}: {_config_text(cfg, memory_only=True, drafter=True)}: the drafter does not fit on "
                    f"{cfg.draft_hw.name} at any point of the sweep: its weights and KV cache need at least "
                    f"{drafter_least_bytes / 1e9:.1f} GB of {drafter_usable_bytes / 1e9:.1f} GB usable; plain "
                    f"decoding{' (k 0, not swept here)' if holds_drafter else ''} runs")
        elif not fits_somewhere and holds_drafter and plain_somewhere:  # qa129: said as if nothing fit, plain decoding
            verified = "its tree's nodes + 1" if sc.tree_nodes else "its k + 1"  # (k 0, unswept) fitting
            note = (f"{sc.path or sc.name}: {_config_text(cfg, memory_only=True, drafter=True)}: speculation fits in device "
                    f"memory at no point of the sweep (the drafter and {verified} tokens per sequence take the memory); "
                    "plain decoding (k 0, not swept here) does")
        elif not fits_somewhere:
            note = (f"{sc.path or sc.name}: {_config_text(cfg, memory_only=True, drafter=holds_drafter)} fits in device "
                    "memory at no point of the sweep, not even at its smallest batch and context")
        elif speculates(cfg.method, 1) and drafting_k.any() and not drafts_somewhere:
            verified = "its tree's nodes + 1" if sc.tree_nodes else "its k + 1"
            note = (f"{sc.path or sc.name}: {_config_text(cfg, memory_only=True, drafter=True)}: speculation fits in device "
                    f"memory at no point of the sweep (the drafter and {verified} tokens per sequence take the memory); "
                    "plain decoding does")
        else:
            continue
        if note not in said:
            said.add(note)
            warn(note)
    if dipped:  # qa275: 0.947x at batch 32 under a break_even_batch of 223 in every row, the column read as 'pays to 223'
        warn(f"{sc.path or sc.name}: break_even_batch is the largest batch that pays, not the first that loses: in {dipped:,} "
             "(config, context, alpha, k) cell(s) a swept batch below it loses (speedup < 1) and a larger one pays again"
             + (f" ({'; '.join(dip_causes)})" if dip_causes else "") + "; predict names the batches that lose")
    if at_cap:  # qa299: 148 = max_batch in every cell, read as where speculation stops paying; predict says 'at least'
        warn(f"{sc.path or sc.name}: break_even_batch is the largest batch that fits (max_batch) in {at_cap:,} (config, "
             "context, alpha, k) cell(s) where speculation still pays there: memory ends the search, a lower bound on where "
             "it would stop paying (those rows' break_even_at_memory_limit)")
    if at_last:  # qa119: break_even_batch 64 in every row of a sweep to batch 64, where predict said 167 and more
        warn(f"{sc.path or sc.name}: break_even_batch is the sweep's last batch, {last:g}, in {at_last:,} (config, context, "
             "alpha, k) cell(s) where speculation still pays there and larger batches fit: a lower bound (a batch axis "
             "reaching further, or predict, gives it)")


def _methods_swept(sc: Scenario, method: str) -> set[str]:
    """The methods a config's rows run: `method` where it drafts at a swept k > 0, and none (plain decoding) where it
    does not or k 0 is swept (its rows, and every row's baseline columns, are plain decoding's)."""
    k = np.asarray(sc.axes["k"])
    drafts = speculates(method, 1) and bool((k > 0).any())
    return ({method} if drafts else set()) | ({"none"} if not drafts or bool((k == 0).any()) else set())


def _config_text(cfg: Config, memory_only: bool = False, drafter: bool = False) -> str:
    """'llama-3.1-8b on 1 x l4 (tp 1, bf16 weights, fp8 KV, engine vllm, method eagle)': a config as a warning names it, with
    every label that tells it from the sweep's other configs; `memory_only`: those its memory depends on (the engine,
    whose share of the memory capacity.py takes; the method and drafter only with `drafter`)."""
    dep, labels = cfg.dep, dict(config_labels(cfg))
    if memory_only:
        labels.update(**({} if drafter else {"method": "none", "draft_hardware": None}))
    parts = [f"tp {dep.tp}", *(f"{name.replace('_', ' ')} {value}" for name, value in
                               (("dp_attention", dep.dp_attention), ("ep", dep.ep), ("pp", dep.pp)) if value > 1),
             f"{labels['weight_dtype']} weights", *([f"{labels['expert_dtype']} experts"] if labels["expert_dtype"] else []),
             f"{labels['kv_dtype']} KV", *([f"engine {labels['engine']}"] if labels["engine"] else []),
             *([f"method {labels['method']}"] if labels["method"] != "none" else []),
             *([f"drafter on {labels['draft_hardware']}"] if labels["draft_hardware"] else
               ["drafter on the target"] if labels["method"] == "draft" else []),
             *([f"shared prefix {cfg.shared_prefix}"] if cfg.shared_prefix else [])]
    return f"{cfg.model.name} on {dep.devices} x {cfg.hw.name} ({', '.join(parts)})"


def blocks_frame(blocks: list[tuple[dict, dict]], categorical: bool) -> pd.DataFrame:
    """Blocks of iter_blocks as one DataFrame in COLUMNS order, built once: each numeric column one np.concatenate,
    each label column (constant over a block) its blocks' values repeated, as a categorical of sorted categories or
    as text: built once, not as a categorical per block and column, their union and conversions (pandas' per-call
    costs were most of a small sweep's time)."""
    counts = np.array([len(cols["batch"]) for _, cols in blocks], dtype=np.int64)
    data = {}
    serving = SERVING_COLUMNS if blocks and SERVING_COLUMNS[0] in blocks[0][1] else ()  # a request's sweep (sweep_columns)
    for name in (*COLUMNS, *serving):
        if name in LABEL_COLUMNS:
            values = [labels[name] for labels, _ in blocks]
            if categorical:
                categories = sorted(set(values))
                codes = np.repeat(np.array([categories.index(v) for v in values], dtype=np.int64), counts)
                data[name] = pd.Categorical.from_codes(codes, categories=pd.Index(categories, dtype=str))
            else:
                data[name] = pd.array(np.repeat(np.array(values, dtype=object), counts), dtype=str)
        else:
            data[name] = np.concatenate([cols[name] for _, cols in blocks])
    return pd.DataFrame(data, copy=False)


def run_sweep(sc: Scenario, configs: list[Config], lower_bounds_said: bool = True, extra_dirs: tuple = ()) -> pd.DataFrame:
    """The whole sweep in memory as one DataFrame (label columns categorical across configs); `lower_bounds_said` and
    `extra_dirs`: iter_blocks's (a report's finding says its own)."""
    return blocks_frame(list(iter_blocks(sc, configs, lower_bounds_said=lower_bounds_said, extra_dirs=extra_dirs)),
                        categorical=True)


OPERATOR_BATCHES_MAX = 1024  # batches operators.csv holds at most: a sweep of 1,000,000 batch values made 16 rows of
#   each (qa99: 16 GB, then the kernel killed it); a larger axis is thinned to this many, evenly on a log scale


def operator_batches(batches) -> np.ndarray:
    """The swept batches operators.csv holds: all of them up to OPERATOR_BATCHES_MAX, else that many of them (the
    smallest and the largest among them) at indices evenly spaced on a log scale of the batch."""
    batch = np.asarray(batches, dtype=np.float64)
    if len(batch) <= OPERATOR_BATCHES_MAX:
        return batch
    ordered = np.sort(batch)
    targets = np.geomspace(ordered[0], ordered[-1], OPERATOR_BATCHES_MAX)
    picked = np.unique(np.clip(np.searchsorted(ordered, targets), 0, len(ordered) - 1))
    if len(picked) < OPERATOR_BATCHES_MAX:  # dense small batches: fill with the rest evenly by index
        free = np.ones(len(ordered), dtype=bool)
        free[picked] = False
        rest = np.flatnonzero(free)  # (np.setdiff1d took 0.7 s on a million)
        extra = rest[np.linspace(0, len(rest) - 1, OPERATOR_BATCHES_MAX - len(picked)).astype(int)]
        picked = np.unique(np.concatenate([picked, extra]))
    return ordered[picked]


def operator_table(sc: Scenario, configs: list[Config]) -> pd.DataFrame:
    """Per-operator FLOPs, bytes and time of a decode step (q = 1) and a verify step (q = max k + 1),
    at every batch of the sweep (OPERATOR_BATCHES_MAX of them at most: operator_batches) and its first context, with
    each device's ceilings: the roofline chart's data."""
    batch = operator_batches(sc.axes["batch"])
    if len(batch) < len(sc.axes["batch"]):
        from roofline.errors import warn

        warn(f"{sc.path or sc.name}: the operator table (a sweep's operators.csv) holds {len(batch):,} of the "  # qa135:
             f"{len(sc.axes['batch']):,} swept batches (evenly on a log scale, the smallest and largest among them): the "
             "roofline figure's data, 16-odd rows a batch")  # the report strips its path and names it once
    context = float(sc.axes["context"][0])
    q_verify = float(sc.tree_nodes + 1 if sc.tree_nodes else max(int(np.max(sc.axes["k"])), 1) + 1)
    columns: dict[str, list] = {}  # one list of arrays (or of values, each the same on its rows) per column, one DataFrame at the end
    counts: list[int] = []  # rows of each operator kept
    seen = set()
    for cfg in configs:
        dep = cfg.dep
        labels = {"hardware": cfg.hw.name, "model": cfg.model.name, "engine": cfg.engine.name, "tp": dep.tp,
                  "dp_attention": dep.dp_attention, "ep": dep.ep, "pp": dep.pp, "weight_dtype": dep.weight_dtype_label,
                  "expert_dtype": dep.expert_dtype_label, "kv_dtype": dep.kv_dtype, "shared_prefix": cfg.shared_prefix}
        key = (*labels.values(), tuple(sorted(dep.dtypes.items())))
        if key in seen:  # configs that differ only in method or drafter run the same target passes
            continue
        seen.add(key)
        microbatch = batch / np.minimum(batch, dep.pp)  # step_metrics' micro-batch: attention's ceiling may depend on it
        peaks, dtypes = operator_peaks(cfg.hw, dep), operator_compute_dtypes(cfg.hw, dep)
        ceilings = operator_ceilings(cfg.hw, dep, cfg.model, sequences_per_group(microbatch, dep), cfg.engine)
        for pass_name, q in (("decode", 1.0), ("verify", q_verify)):
            m = step_metrics(cfg.hw, cfg.model, batch, q, context, cfg.dep, engine=cfg.engine,
                             shared_prefix=cfg.shared_prefix, with_operators=True)
            for op, v in m["operators"].items():
                keep = np.broadcast_to((v["bytes"] > 0) | (v["flops"] > 0), batch.shape)
                row = {
                    **labels, "pass": pass_name, "batch": batch, "context": context, "q": q, "operator": op, "flops": v["flops"], "bytes": v["bytes"],
                    "time_s": v["time_s"], "compute_bound": v["compute_bound"], "step_time_s": m["step_time_s"],
                    "compute_dtype": dtypes[op], "peak_flops_per_s": peaks[op], "compute_ceiling_flops_per_s": ceilings[op][0],
                    "mem_bw_bytes_per_s": cfg.hw.mem_bw_bytes_per_s, "memory_ceiling_bytes_per_s": ceilings[op][1],
                }
                n = int(np.count_nonzero(keep))
                counts.append(n)
                for name, value in row.items():  # a value the same on every row: kept once, repeated at the end
                    if isinstance(value, np.ndarray) and value.ndim:
                        columns.setdefault(name, []).append(value[keep] if value.shape == batch.shape else np.broadcast_to(value, batch.shape)[keep])
                    else:
                        columns.setdefault(name, []).append(value)
    out = {}
    for name, parts in columns.items():
        if any(isinstance(part, np.ndarray) for part in parts):
            out[name] = np.concatenate([part if isinstance(part, np.ndarray) else np.full(n, part, dtype=object if isinstance(part, str) else None)
                                        for part, n in zip(parts, counts)])
        else:
            out[name] = np.repeat(np.array(parts, dtype=object if isinstance(parts[0], str) else None), counts)
    return pd.DataFrame(out)


def scenario_meta(sc: Scenario, configs: list[Config], points: int) -> dict:
    """scenario.json: what was swept (configs, axes and options, enough to run it again), with display names (the
    plots' and report's titles). `draft_hardware` lists null for a drafter on the target beside other placements."""
    from roofline import __version__

    methods = list(dict.fromkeys(c.method for c in configs))  # the file's order, as the table's (qa256: sorted here alone)
    drafting = [c for c in configs if c.method in ("draft", "mtp", "eagle", "medusa")]
    placements = list(dict.fromkeys(c.draft_hw.name if c.draft_hw else None for c in drafting))  # the file's order, as
    elsewhere = [p for p in placements if p is not None]  # the table's and the panels' (qa242: sorted here alone)
    draft_hardware = ([None] if None in placements else []) + elsewhere if elsewhere else None
    axes = {name: [None if v != v else (int(v) if float(v).is_integer() and name != "alpha" else float(v)) for v in values]
            for name, values in sc.axes.items()}  # NaN alpha (per-position rates, a tree): null
    return {
        "scenario": sc.name,  # and the file it was read from, absolute (None: a mapping given in code; qa320: as typed)
        "scenario_file": str(Path(sc.path).resolve()) if sc.path and Path(sc.path).is_file() else None,
        "description": sc.description, "roofline_version": __version__,
        "question": sc.answers or None,  # the report question it answers (its `question:`, or its name where it is one)
        "method": methods[0] if len(methods) == 1 else methods,
        "method_by_model": dict(sc.method_by_model) or None,
        "draft": sc.draft, "draft_hardware": draft_hardware, "overlap": sc.overlap, "draft_vocab": sc.draft_vocab,
        "engine": list(dict.fromkeys(c.engine.name for c in configs)),
        # the sequences an engine runs at once while speculating unless its cap is raised (SGLang's 48), for the
        # figures' footers, as the sweep's warning says it (None: no cap)
        "speculating_caps": {c.engine.name: c.engine.max_running_requests_speculating for c in configs
                             if c.engine.max_running_requests_speculating is not None} or None,
        # engines whose host work a decode step hides (host_overlap) and a verify pass pays (host_overlap_speculating
        # false): the step-time figure's verify points hold it (qa333: read as the pass's own cost)
        #   at pp 1: under pp a micro-batch's host work lies on its round trip in both passes (qa335)
        "verify_adds_host": list(dict.fromkeys(c.engine.name for c in configs if c.engine.host_overlap and c.dep.pp == 1
                                               and not c.engine.host_overlap_speculating and c.method != "none")) or None,
        "weight_dtype": sorted({c.dep.weight_dtype_label for c in configs}),
        "expert_dtype": sorted({c.dep.expert_dtype_label for c in configs if c.dep.has_experts}),
        "kv_dtype": sorted({c.dep.kv_dtype for c in configs}),
        "tp": sorted({c.dep.tp for c in configs}), "layouts": list(dict.fromkeys(c.dep.describe() for c in configs)),  # as swept (qa237)
        "hardware": {**{c.hw.name: c.hw.display_name for c in configs}, **{c.draft_hw.name: c.draft_hw.display_name for c in configs if c.draft_hw}},
        # the file each profile was read from (null: a spec object built in code), by kind and name: results traced to inputs
        "profile_files": {
            "hardware": {s.name: os.path.abspath(s.path) if s.path else None for c in configs for s in (c.hw, c.draft_hw) if s is not None},
            "model": {s.name: os.path.abspath(s.path) if s.path else None for c in configs for s in (c.model, c.draft) if s is not None},
            "engine": {c.engine.name: os.path.abspath(c.engine.path) if c.engine.path else None for c in configs}},
        "model": {**{c.model.name: c.model.display_name for c in configs}, **{c.draft.name: c.draft.display_name for c in configs if c.draft}},
        # the price per device-hour every cost column divides (None: no price in the profile)
        "price_usd_per_hour": {**{c.hw.name: c.hw.price_usd_per_hour for c in configs},
                               **{c.draft_hw.name: c.draft_hw.price_usd_per_hour for c in configs if c.draft_hw}},
        # how a layer caches a token: MLA's one latent, a shared K = V head, or GQA's kv_heads (whole per rank once tp > kv_heads)
        "kv_layout": {c.model.name: c.model.kv_layout for c in configs},
        "kv_heads": {c.model.name: c.model.kv_heads for c in configs},
        # the cached entries a query of sparse attention reads (its groups' largest read_tokens; 0: dense)
        "read_tokens": {c.model.name: max((g.read_tokens for g in c.model.groups), default=0) for c in configs},
        "mtp_modules": {c.model.name: c.model.mtp_modules for c in configs},  # an MTP k past them reuses the last
        "attention_kind": {c.model.name: attention_kind(c.model) for c in configs},
        # each model's dtypes over the sweep: a figure that shows some models names only theirs
        "dtypes_by_model": {m: {key: sorted({getattr(c.dep, key + "_label") for c in configs if c.model.name == m and
                                             (key != "expert_dtype" or c.dep.has_experts)}) for key in ("weight_dtype", "expert_dtype")}
                            for m in dict.fromkeys(c.model.name for c in configs)},
        "tree_nodes": sc.tree_nodes, "tree_tau": sc.tree_tau, "acceptance": sc.acceptance, "shared_prefix": sorted({c.shared_prefix for c in configs}),
        "acceptance_length": None if sc.acceptance_length is None else dict(zip(("tau", "k"), sc.acceptance_length)),
        "prompt": sc.prompt, "output_len": sc.output_len,  # a request's tokens: the serving columns' (SERVING_COLUMNS)
        # whether break_even_batch was refined between swept batches (else the largest swept batch that pays: a lower
        # bound, which the report's findings say; qa357: 'up to batch 5793' of an unrefined one)
        "break_even_refined": refines_break_even(sc, configs)[0],
        # the published per-position rates a method ran with where the scenario gave no acceptance (the alpha column is
        # empty on those rows), with where they come from
        "default_rates": {m: {"rates": list(rates), "source": source} for m in sorted({c.method for c in configs})
                          if m != "none" and not _acceptance_given(sc) for rates, source in [default_rates(m)]} or None,
        "axes": axes, "points": points,
    }


def attention_kind(model: ModelSpec) -> str:
    """How a model's attention caches, as a figure names it: MLA, compressed attention (layers that keep one entry per
    `ratio` tokens), shared-KV attention, or GQA (multi-head attention included); ' with sliding-window layers' where
    some layers keep a window alone (qa467: gpt-oss and Gemma 3 said 'GQA' beside Llama's full cache)."""
    if model.kv_layout == "mla":
        return "MLA"
    if any(g.kind == "compressed" for g in model.groups):
        return "compressed attention"
    kind = "shared-KV attention" if model.kv_layout == "shared_kv" else "GQA"
    return kind + (" with sliding-window layers" if any(g.kind == "sliding" for g in model.groups) else "")


def _acceptance_given(sc: Scenario) -> bool:
    """Whether a scenario says how its drafts are accepted (an alpha axis, rates, a tree's tau, a measured length)."""
    return not np.isnan(sc.axes["alpha"]).all() or sc.acceptance is not None or sc.tree_nodes is not None


FORMATS = ("csv", "parquet", "both")
PLOT_POINTS_MAX = 2_000_000  # write_sweep holds a sweep of at most this many points in memory to draw its plots


def write_sweep(sc: Scenario, configs: list[Config], out_dir: Path, plots: bool = True, chunk_points: int = 1_000_000,
                progress: bool = False, keep_in_memory_max: int | None = None, fmt: str = "both", svg: bool = False,
                pool=None, extra_dirs: tuple = ()) -> dict:
    """Compute the sweep chunk by chunk, streaming results.csv and/or results.parquet into `out_dir`
    (outputs.TableWriter), then operators.csv, scenario.json and the plots, drawn on `pool` (a started
    plot_jobs.FigurePool, which the caller closes; by default one of this call's own). Returns a summary with
    the files written, the seconds spent computing, writing and plotting, and `plots_skipped` (plots asked for
    a sweep of more than `keep_in_memory_max` points, default PLOT_POINTS_MAX, which is not held in memory to
    draw) and `narrowed` (plot_jobs.narrowed_columns of a drawn sweep: what its figures' panels cut)."""
    from roofline.plot_jobs import PLOT_NAMES, FigurePool

    out_dir = Path(out_dir)
    keep_in_memory_max = PLOT_POINTS_MAX if keep_in_memory_max is None else keep_in_memory_max
    if pool is None and plots and sc.points <= keep_in_memory_max:
        # figure workers start now: they import matplotlib while this process computes and writes the tables
        with FigurePool(len(PLOT_NAMES)) as pool:
            return _write_sweep(sc, configs, out_dir, plots, chunk_points, progress, keep_in_memory_max, fmt, svg, pool,
                                extra_dirs)
    return _write_sweep(sc, configs, out_dir, plots, chunk_points, progress, keep_in_memory_max, fmt, svg, pool, extra_dirs)


def _timed(blocks, timings: dict) -> Iterator[tuple[dict, dict]]:
    """The blocks of `blocks` (a generator that computes them, or a list already computed), the seconds spent
    getting each added to timings["compute_s"]."""
    blocks = iter(blocks)
    while True:
        t = time.perf_counter()
        item = next(blocks, None)
        timings["compute_s"] += time.perf_counter() - t
        if item is None:
            return
        yield item


def _write_sweep(sc: Scenario, configs: list[Config], out_dir: Path, plots: bool, chunk_points: int, progress: bool,
                 keep_in_memory_max: int, fmt: str, svg: bool, pool, extra_dirs: tuple = ()) -> dict:
    """write_sweep's work, the figure pool already started (None without plots). A sweep small enough to plot is
    computed whole first and its figures handed to the drawers before any table is written, so they draw while
    this process writes; a larger one streams block by block into the tables."""
    from roofline.outputs import TableWriter, progress_bar, progress_done, write_csv
    from roofline.plot_jobs import narrowed_columns, refused_meta, standard_jobs

    total = sc.points
    drawn_here = plots and total <= keep_in_memory_max
    timings = {"compute_s": 0.0, "write_s": 0.0, "plot_s": 0.0}
    t0 = time.perf_counter()
    ops = operator_table(sc, configs)
    blocks = iter_blocks(sc, configs, chunk_points, extra_dirs=extra_dirs)
    meta, narrowed = None, {}
    if drawn_here:
        blocks = list(blocks)
        timings["compute_s"] += time.perf_counter() - t0
        t = time.perf_counter()
        frame = blocks_frame(blocks, categorical=False)
        meta = scenario_meta(sc, configs, len(frame))
        drawn_meta = {**meta, **refused_meta(frame, extra_dirs)}  # the figures name them (qa231), as `roofline plot`'s
        for job in standard_jobs(frame, ops, drawn_meta, out_dir, formats=("png", "svg") if svg else ("png",)):
            pool.submit(job)
        narrowed = narrowed_columns(frame, drawn_meta)  # what a figure of too many panels cuts, for the sweep's note
        timings["plot_s"] += time.perf_counter() - t
    done = 0
    t, computed_s = time.perf_counter(), timings["compute_s"]
    try:
        with TableWriter(out_dir / "results", sweep_columns(sc), fmt, rows=total) as writer:
            for labels, cols in _timed(blocks, timings):
                writer.write(labels, cols)
                done += len(cols["batch"])
                if progress:
                    progress_bar(done, total, time.perf_counter() - t0)
    finally:  # the bar's line ends here, also when the sweep is stopped (its message goes on a line of its own)
        if progress:
            progress_done()
    # the writer's whole time, closing included (a Parquet sink finishes its file then), less the computing
    timings["write_s"] += time.perf_counter() - t - (timings["compute_s"] - computed_s)
    files = list(writer.files)
    t = time.perf_counter()
    write_csv(ops, out_dir / "operators.csv", exact=True)  # float64 exactly: `roofline plot` redraws the same figure
    meta = meta or scenario_meta(sc, configs, done)  # a plotted sweep's, built for its figures, is the same
    (out_dir / "scenario.json").write_text(json.dumps(meta, indent=2))
    timings["write_s"] += time.perf_counter() - t
    files += ["operators.csv", "scenario.json"]
    if drawn_here:
        t = time.perf_counter()
        files += [p.name for paths in pool.collect() for p in paths]
        timings["plot_s"] += time.perf_counter() - t
    return {"points": done, **timings, "files": files, "plots_skipped": plots and not drawn_here, "narrowed": narrowed}


def _largest_fitting_batch(sc, hw, model, dep, shared_prefix: int, engine) -> int:
    """The largest batch of scenario `sc` that plain decoding fits at its shortest context (0: none fits): where the
    notes said once a config (host work's share, the engine's cap on sequences at once) take their batch."""
    context = int(np.min(sc.axes["context"]))
    cap = int(capacity(hw, model, 1, context + 1, dep, shared_prefix=shared_prefix, engine=engine)["max_batch"])
    return max([int(x) for x in np.asarray(sc.axes["batch"]).ravel() if int(x) <= cap], default=0)
