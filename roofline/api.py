"""The public Python API: what the CLI calls, and what a notebook calls.

    import roofline
    point = roofline.predict("h100-sxm", "llama-3.1-8b", batch=8, context=4096, method="eagle", k=4, alpha=0.8)
    df = roofline.sweep("eagle-on-hopper")                     # a built-in scenario -> pandas.DataFrame
    df = roofline.sweep({"hardware": "h200", "model": "llama-3.1-8b", "method": "eagle",
                         "axes": {"batch": [1, 8, 64], "k": [1, 2, 3, 4]}})
    hw, model = roofline.load_hardware("H100"), roofline.load_model("deepseek-v3")

Names or spec objects are accepted wherever a profile is named. Every option is spelled out; each
is checked once (layout.deployment, speculation.check_options) whether it comes from here, the CLI
or a scenario file. Results are SI units (seconds, bytes, FLOPs, tokens/s).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import fnmatch
import math
import numbers
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from roofline.capacity import capacity, default_sequences, running_cap_note, usable_memory_text
from roofline.costs import busiest_rank_experts, mla_absorbed_copy_bytes, weight_bytes_by_class, window_pool_applies
from roofline.engine import (
    COMPUTE_BOUND_SEARCH_MAX_BATCH,
    CROSS_DOMAIN_SHARE_NOTED,
    compute_bound_batches,
    cross_domain_collectives_s,
    cross_domain_tp_note,
    domains_spanned,
    host_overlapped,
    host_sets_step,
    host_time_s,
    microbatches,
    operator_compute_dtypes,
    parameters_used,
    step_metrics,
    ttft_s,
    unfitted_family_note,
    weight_only,
    weight_only_note,
)
from roofline.errors import MISSING, RooflineError, RooflineWarning, check_flag, field_error, said_as, warn
from roofline.hardware import HardwareSpec, check_hardware_spec
from roofline.hardware import load_hardware as _load_hardware
from roofline.layout import (
    OPERATOR_CLASS,
    deployment,
    dp_spelling_note,
    fp8_block_note,
    group_note,
    main_gemm_dtype,
    shard_note,
)
from roofline.limits import BATCH_MAX, CONTEXT_MAX, K_MAX, USERS_MAX
from roofline.model import ModelSpec, check_model_spec, context_note, contexts_past, drafter_context_note
from roofline.model import load_model as _load_model
from roofline.profiles import costs_shadow_note, differing_fields, shadow_note
from roofline.scenario import check_draft_hardware, far_from_request, request_context
from roofline.serving import (
    DEFAULT_ENGINE,
    OPTIMISTIC,
    OPTIMISTIC_BATCH,
    PREFILL_SHARE_QUEUES,
    ServingEngine,
    check_engine_spec,
    dispatch_latency_note,
    dispatch_on_prior,
    engine_layout_note,
    engine_on_a_cpu,
    engine_refusals,
    fit_bound_note,
    fitted_batches_note,
    fitted_class_note,
    fitted_elsewhere_note,
    fitted_family_note,
    for_engine,
    host_amortised_note,
    host_carries_gain,
    known_miss_notes,
    optimistic,
    optimistic_found_for,
    running_cap_speculating,
    speculating_engine,
    speculation_caveat_note,
    speculation_engine_notes,
    stage_split_dense_note,
    undetermined_note,
)
from roofline.serving import load_engine as _load_engine
from roofline.speculation import (
    K_DEFAULT,
    METHODS,
    PAYS_LONGER_FACTOR,
    acceptance_reach_note,
    alpha_from_acceptance_length,
    check_draft_vocab,
    check_options,
    check_speculating,
    default_k,
    default_rates_note,
    draft_vocab_of,
    drafter_warnings,
    method_name,
    mtp_reuse_note,
    predict_speculation,
    rising_rates_note,
    speculates,
    tokenizer_mismatch,
    unknown_method,
)
from roofline.units import format_seconds, format_si, rent_usd_per_hour, usd_per_million_tokens


def load_hardware(hardware: str | HardwareSpec, profiles: tuple[str | Path, ...] = ()) -> HardwareSpec:
    """A hardware profile by name (case-insensitive, aliases like 'H100'), path, or the spec itself."""
    _check_profile_arg("load_hardware", "hardware", hardware, HardwareSpec)
    return _named_profile("load_hardware", "hardware", _hardware_of, hardware, _folders(profiles, "load_hardware"))


def load_model(model: str | ModelSpec, profiles: tuple[str | Path, ...] = ()) -> ModelSpec:
    """A model profile by name, path, or the spec itself."""
    _check_profile_arg("load_model", "model", model, ModelSpec)
    return _named_profile("load_model", "model", _model_of, model, _folders(profiles, "load_model"))


def load_engine(engine: str | ServingEngine | None = None, profiles: tuple[str | Path, ...] = ()) -> ServingEngine:
    """A serving-engine profile by name or path, or the spec itself (None: the default engine, vllm; `ideal` is the
    roofline bound, whose only fixed costs are the hardware's step overhead and link latency)."""
    if engine is not None:
        _check_profile_arg("load_engine", "engine", engine, ServingEngine)
    return _named_profile("load_engine", "engine", _engine_of, engine, _folders(profiles, "load_engine"))


# A profile argument (a name, a path or a spec object of its kind, checked by the caller: load_*, predict) loaded from
# `folders`, its errors unprefixed: _named_profile says them with the call and the argument (qa344: load_model('llama-9')
# said 'unknown model ...' bare where predict says 'predict: model: ...').
def _hardware_of(value, folders) -> HardwareSpec:
    return check_hardware_spec(value, folders) if isinstance(value, HardwareSpec) else _load_hardware(str(value), folders)


def _model_of(value, folders) -> ModelSpec:
    return check_model_spec(value) if isinstance(value, ModelSpec) else _load_model(str(value), folders)


def _engine_of(value, folders) -> ServingEngine:
    return _load_engine(str(value) if isinstance(value, Path) else value, folders)


def _check_profile_arg(where: str, field: str, value, kind: type) -> None:
    """A profile argument is a name, a path or a spec object of its own kind: a spec of another kind (a ModelSpec
    passed as hardware) is named in one short line, not printed whole."""
    if isinstance(value, (str, Path, kind)):
        return
    if isinstance(value, (HardwareSpec, ModelSpec, ServingEngine)):
        raise RooflineError(f"{where}: {field}: expected a name or a {kind.__name__}, found a {type(value).__name__} "
                            f"({str(value.name)[:60]!r})")
    raise field_error(where, field, f"a name or a {kind.__name__}", value)


def _engine_on_device(field: str, value: ServingEngine, named: ServingEngine, hardware: HardwareSpec) -> tuple:
    """An engine made by for_hardware, as it runs on `hardware` (the grid applies the overrides again), against the
    profile's for that device: (a note, and None), where a value set on it by hand (neither the profile's nor an
    override's) is replaced by the device's override; else (None, (the engine as applied, the profile's, the advice a
    difference takes: 'made for another device' where only another family's override values differ))."""
    applied = value.for_hardware(hardware)
    by_override: dict[str, list] = {}  # the values the profile's overrides set, a field's: what for_hardware may have put
    for _, changes in value.general.overrides:
        for key, v in changes.items():
            by_override.setdefault(key, []).append(v)
    by_hand = [name for name in differing_fields(value, value.general) if getattr(value, name) not in by_override.get(name, [])]
    lost = [name for name in by_hand if getattr(value, name) != getattr(applied, name)]
    if lost:
        return (f"{field}: {lost[0]} set on a ServingEngine made by for_hardware is replaced on {hardware.name} by the "
                f"{value.name} profile's override for its family; set it in the profile's overrides, or replace it on "
                f"load_engine({value.name!r}) before for_hardware"), None
    own_keys = {key for glob, changes in named.overrides if fnmatch.fnmatch(hardware.engine_family, glob) for key in changes}
    other_keys = {key for _, changes in named.overrides for key in changes} - own_keys
    expected = named.for_hardware(hardware)
    differ = set(differing_fields(applied, expected))
    advice = (f"it was made by for_hardware for another device; pass {value.name!r}, or "
              f"load_engine({value.name!r}).for_hardware({hardware.name!r})") if differ and differ <= other_keys else None
    return None, (applied, expected, advice)


SPEC_LOADERS = {HardwareSpec: _load_hardware, ModelSpec: _load_model, ServingEngine: _load_engine}  # a spec type's loader


def _changed_spec_note(field: str, value, profiles: tuple, hardware: HardwareSpec | None = None) -> str | None:
    """A spec object under the name of a profile it no longer matches (dataclasses.replace(h100, mem_bw...)) is
    labelled with that profile's name in every output: said, naming the first field that differs. An engine made for a
    device (for_hardware) is compared as it runs on `hardware` with the profile's for that device (_engine_on_device;
    without a device, its `general`, the profile's own values, with the profile's)."""
    if type(value) not in SPEC_LOADERS:
        return None
    try:
        named = SPEC_LOADERS[type(value)](value.name, profiles)
    except RooflineError:  # no profile of that name: the label is the object's own
        return None
    advice = None
    if isinstance(value, ServingEngine) and value.general is not None:  # made by for_hardware: its family's values
        if hardware is None:
            value = value.general
        else:
            note, compared = _engine_on_device(field, value, named, hardware)
            if note:
                return note
            value, named, advice = compared
    differ = differing_fields(value, named)
    if not differ:
        return None
    return (f"{field}: a {type(value).__name__} named {value.name!r} with a {differ[0]} other than the {value.name} profile's "
            f"is labelled {value.name} in every output ({advice or 'dataclasses.replace(spec, name=...) names it apart'})")


def _shadowed_note(value, hardware: HardwareSpec, profiles: tuple = ()) -> str | None:
    """An engine object changed in code (dataclasses.replace(load_engine("vllm"), kernel_latency_s=...)) whose changed
    field an `overrides` entry for `hardware`'s family sets again: the change does not apply on that device, said
    (qa303: tripling vllm's kernel latency moved an H100's step by 49% and an MI300X's not at all, unsaid). A field is
    said where its general value differs from the engine's file read again while its value on the device is the
    file's there (an entry changed to follow it is not said; qa306), naming the last entry that sets it (the one
    for_hardware applies). None for an engine built in code, or where nothing changed is shadowed."""
    if not isinstance(value, ServingEngine) or not value.path:
        return None
    from roofline.tables import _override_value  # a field's value as `engines show` writes an override's

    own = value.general or value  # its values before for_hardware applied a family's
    read = _read_again(ServingEngine, own.path, profiles)
    if read is None:
        return None
    mine, theirs = own.for_hardware(hardware), read.for_hardware(hardware)
    entries = [(glob, changes) for glob, changes in own.overrides if fnmatch.fnmatch(hardware.engine_family, glob)]
    said = []
    for key in dict.fromkeys(k for _, changes in entries for k in changes):
        if getattr(own, key) != getattr(read, key) and getattr(mine, key) == getattr(theirs, key) != getattr(own, key):
            glob = [g for g, changes in entries if key in changes][-1]
            said.append(f"{key.removesuffix('_s').removesuffix('_bytes')} was changed to {_override_value(key, getattr(own, key))}, "
                        f"and its overrides entry for {glob} sets it again on {hardware.name} "
                        f"({_override_value(key, getattr(mine, key))})")
    if not said:
        return None
    return (f"engine: {own.name}'s {'; its '.join(said)}: the change does not apply there (change that entry too: "
            "dataclasses.replace(engine, overrides=...))")


def _source_file(value, spec, profiles: tuple = ()) -> str | None:
    """The file `spec` (the profile argument `value` gave) was read from, as an absolute path; None for a spec object
    built in code or changed since it was read: dataclasses.replace keeps the `path` of the spec it copies, which then
    named a file that does not describe it (qa185). A spec object is compared with that file read again, with the
    caller's profile folders (qa189: an engine whose costs_from is a profile of those folders)."""
    if not spec.path:
        return None
    if type(value) in SPEC_LOADERS:
        read = _read_again(type(value), spec.path, profiles)  # a costs_from found as the caller's folders find it
        if read is None:  # gone or broken since: no longer the spec's source
            return None
        given = value.general if isinstance(value, ServingEngine) and value.general is not None else value
        if differing_fields(given, read):
            return None
    return os.path.abspath(spec.path)


def _read_again(kind: type, path: str, profiles: tuple = ()):
    """The profile file `path` read again as a `kind` spec (SPEC_LOADERS), with the caller's profile folders and its
    warnings unsaid (said when it was first read, or not about this spec); None where it no longer loads."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return SPEC_LOADERS[kind](path, profiles)
    except RooflineError:
        return None


def _shares_below(operators: dict, key: str, of) -> dict[str, float]:
    """{operator: its `key` ceiling over `of` (another key's ceiling, or a number)} where it is below 0.995 and the
    operator moves bytes: the shares of a bandwidth an operator's kernels reach."""
    out = {}
    for name, op in operators.items():
        whole = float(op[of]) if isinstance(of, str) else float(of)
        share = float(op[key]) / whole
        if float(op["bytes"]) > 0 and share < 0.995:
            out[name] = round(share, 4)
    return out


def _flops_time_s(hw: HardwareSpec, operators: dict, dtype_of: dict[str, str]) -> float:
    """sum over operators of padded FLOPs / the derated peak of the dtype the operator computes in (`dtype_of`:
    engine.operator_compute_dtypes; hw.compute_ceiling_flops_per_s): what the step's arithmetic alone takes, as if every
    operator were compute-bound."""
    return float(sum(float(np.asarray(op.get("padded_flops", op["flops"]))) / hw.compute_ceiling_flops_per_s(dtype_of[name])
                     for name, op in operators.items() if float(np.asarray(op["flops"])) > 0 and name in dtype_of))


def _gb(size_bytes: float) -> str:
    """A memory size in a warning: '73.2 GB' (one decimal, as the engines' logs give it), or with the prefix its size
    takes from 1 TB (qa372: 'needs 13434896.1 GB per device' beside the table's '13.4 PB')."""
    return f"{size_bytes / 1e9:.1f} GB" if size_bytes < 1e12 else format_si(size_bytes, "B")


SIXTEEN_BIT = ("bf16", "fp16", "fp32")  # weight dtypes that launch no quantisation kernels


def _sixteen_bit_note(hw, target, batch: int, context: int, dep, eng, step_s: float, shared_prefix: int,
                      tp: int, dp_attention: int, ep: int, pp: int) -> str:
    """Where weights the model ships in 16 bits are quantised (fp8, int8, fp4, ...) and the same point with bf16 weights takes a shorter
    step and fits in memory too: that said, with why (the kernels the engine launches to quantise a GEMM's activations
    and the quantised MoE's efficiency outweigh the bytes saved, at this batch); else ''."""
    experts = "bf16" if target.moe is not None else None  # (qa376: given for a dense model, refused, said nothing)
    try:
        native = deployment(target, None, dep.kv_dtype, tp, dp_attention, ep, pp)
        plain = for_engine(deployment(target, "bf16", dep.kv_dtype, tp, dp_attention, ep, pp, experts), eng, target)
    except RooflineError:
        return ""
    held = weight_bytes_by_class(target, dep)
    quantised = sorted({d for c, d in dep.dtypes.items() if d not in SIXTEEN_BIT and held.get(c)  # a choice made, not
                        and native.dtype(c) in SIXTEEN_BIT})  # the checkpoint's own (DeepSeek-V3's fp8)
    if not quantised:
        return ""
    bf16_s = float(step_metrics(hw, target, batch, 1, context, plain, engine=eng, shared_prefix=shared_prefix)["step_time_s"])
    if bf16_s >= step_s or not bool(capacity(hw, target, batch, context + 1, plain, shared_prefix=shared_prefix,
                                             engine=eng)["fits_in_memory"]):
        return ""
    dequantised = any(weight_only(hw, d) for d in quantised)  # w8a16, int4; fp8 on a device without fp8 cores
    activated = any(not weight_only(hw, d) for d in quantised)  # its activations quantised a GEMM: kernels launched
    moe = target.moe is not None and dep.dtype("experts") not in SIXTEEN_BIT
    causes = ([f"the kernels that quantise a GEMM's activations ({eng.quant_kernels_per_gemm:g} a GEMM, each at least "
               "its kernel latency)"] if activated and eng.quant_kernels_per_gemm else []) + (
              [f"its weight-only GEMMs' efficiency ({eng.weight_only_efficiency:g}: they dequantise as they read)"]
              if dequantised else []) + (
              [f"its quantised MoE's efficiency ({eng.quantised_moe_efficiency:g})"] if moe and activated else [])
    return (f"{' and '.join(quantised)} weights take a longer step here than bf16 ones, which fit too "
            f"({format_seconds(step_s)} against {format_seconds(bf16_s)}): under {eng.name} "
            + (" and ".join(causes) if causes else "their kernels' costs")
            + (" outweighs" if len(causes) == 1 and not activated else " outweigh") + f" the bytes they save at batch {batch:,}")


def _doubled_bandwidth(hw: HardwareSpec) -> HardwareSpec:
    """`hw` with every memory ceiling doubled (bandwidth and the measured attention / elementwise ceilings)."""
    return dataclasses.replace(hw, mem_bw_bytes_per_s=2 * hw.mem_bw_bytes_per_s, **{
        key: 2 * getattr(hw, key) for key in ("attention_memory_bytes_per_s", "attention_stream_bytes_per_s",
                                              "elementwise_memory_bytes_per_s")
        if getattr(hw, key) is not None})


def _folders(profiles, where: str = "") -> tuple:
    """`profiles` as a tuple of folders: one folder (a string or a Path) is a tuple of one, not of its characters.
    `where`: the call that was given them (`predict`, `sweep`), said first in an error."""
    said = f"{where}: " if where else ""
    if profiles is None:  # none given, as a notebook's default argument passes it (qa411: refused)
        return ()
    if isinstance(profiles, (str, Path)):
        profiles = (profiles,)
    if not isinstance(profiles, (list, tuple)) or not all(isinstance(p, (str, Path)) for p in profiles):
        raise RooflineError(f"{said}profiles: expected a folder or a list of folders, found {profiles!r}"[:200])
    if any(isinstance(p, str) and not p.strip() for p in profiles):  # '' is the working folder, searched in silence (qa92)
        raise RooflineError(f"{said}profiles: expected a folder, found an empty string (write '.' for the working folder)")
    return tuple(profiles)


_ARRAYS = (list, tuple, range, np.ndarray, pd.Series, pd.Index, pd.api.extensions.ExtensionArray)  # a Categorical, pd.array too


def _one(value, name: str, where: str, what: str):
    """`value` itself, a 0-d array as its item; an array, Series or list refused: predict takes one point."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value.item()
    if isinstance(value, _ARRAYS):
        shown = value.tolist() if hasattr(value, "tolist") else list(value)  # the value, not its type's name (qa130)
        raise field_error(where, name, f"{what} (use roofline.sweep for arrays)", shown)
    return value


DEFAULT_CONTEXT = 1024  # predict's context where none is given and no request sets it


def _scalar_float(value, name: str, where: str):
    """None, or one real number as a float (a rate is checked against [0, 1] by speculation.check_options); a float32
    as its shortest decimal (np.float32(0.8) is 0.8)."""
    if value is None:
        return None
    value = _one(value, name, where, "one number")
    if isinstance(value, np.floating) and value.dtype.itemsize < 8:
        value = float(str(value))
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise field_error(where, name, "a number", value)
    return float(value) + 0.0  # -0 as 0 (qa130: 'alpha -0.0' in the text and the JSON)


def _rates(value, name: str, where: str):
    """None, or per-position rates as a flat list of floats."""
    if value is None:
        return None
    if not isinstance(value, _ARRAYS) or np.asarray(value, dtype=object).ndim != 1:
        raise field_error(where, name, "a flat list of rates in [0, 1]", value)
    return [_scalar_float(v, name, where) for v in value]


def _scalar_int(value, name: str, low: int, high: int, where: str = "predict", high_is: str = "") -> int:
    """One integer in low..high; a whole float (8.0, 1e3) is taken as one, as a scenario's axis values are. `high_is`:
    what sets the bound, where another option does (qa344: 'shared_prefix: expected an integer in 0..100' of context 100)."""
    value = _one(value, name, where, "one integer")
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        value = int(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or not low <= int(value) <= high:
        raise field_error(where, name, f"an integer in {low}..{high:,}" + (f" ({high_is})" if high_is else ""), value)
    return int(value)


def _as_file_values(value):
    """`value` as a scenario file would hold it: numpy scalars as Python numbers; numpy arrays, pandas Series, Index
    and extension arrays (a Categorical), ranges and tuples as lists; mappings and lists item by item. Anything else (spec objects) as it is."""
    if isinstance(value, (np.floating, np.ndarray)) and value.dtype.kind == "f" and value.dtype.itemsize < 8 and np.ndim(value) == 0:
        return float(str(value))  # a float32 scalar: its shortest decimal
    if isinstance(value, np.generic) or (isinstance(value, np.ndarray) and value.ndim == 0):  # a scalar, 0-d array too
        return value.item()
    if (isinstance(value, (np.ndarray, pd.Series, pd.Index)) and value.dtype.kind == "f" and value.dtype.itemsize < 8
            and np.ndim(value) == 1):
        return [float(str(v)) for v in np.asarray(value)]  # float32 0.8 is the 0.8 meant, not 0.800000011920929
    if isinstance(value, (np.ndarray, pd.Series, pd.Index)) and value.dtype.kind in "biuf" and np.ndim(value) == 1:
        return value.tolist()  # Python numbers already, in one call (2 million of them took 6.6 s one by one)
    if isinstance(value, pd.api.extensions.ExtensionArray):  # a sweep's category column's unique(), pd.array([1, 8]) (qa110)
        numpy_dtype = getattr(value.dtype, "numpy_dtype", None)  # Float32's values as the decimals meant, as a Series's
        narrow = numpy_dtype is not None and numpy_dtype.kind == "f" and numpy_dtype.itemsize < 8
        return [None if v is None else float(str(np.float32(v))) if narrow else _as_file_values(v)
                for v in value.to_numpy(dtype=object, na_value=None)]  # pd.NA as None: refused as a missing value
    if isinstance(value, (np.ndarray, pd.Series, pd.Index, range, tuple, list)):
        return [_as_file_values(v) for v in (value.tolist() if isinstance(value, (np.ndarray, pd.Series, pd.Index)) else value)]
    if isinstance(value, dict):
        return {key: _as_file_values(v) for key, v in value.items()}
    if isinstance(value, Path):  # a profile's path, as predict and the loaders take it
        return str(value)
    return value


def _past(k: int, reached: int, k_past: bool, verb: str) -> str:
    """The subject and verb of a note on draft lengths past what was given: 'k 3 and best k 10 take' (both, `k_past`),
    'best k 10 takes' (best k alone) or 'k 3 takes' (k, best k no further)."""
    if reached > k:
        return f"k {k} and best k {reached} {verb}" if k_past else f"best k {reached} {verb}s"
    return f"k {k} {verb}s"


def _fit_edited(eng: ServingEngine) -> list[str]:
    """The fitted values of `eng` set by hand since its fit (tables.fit_edited, as `engines show` lists them)."""
    from roofline.tables import fit_edited

    return fit_edited(eng)


# the engine costs a break-even batch of speculation turns on: what a sequence costs per token with and without it
BREAK_EVEN_COSTS = ("spec_per_iteration_per_sequence", "spec_per_draft_step_per_sequence", "spec_per_iteration",
                    "spec_per_draft_step", "host_per_sequence")


def _paying_up_to(be: int, at_limit: bool) -> str:
    """'speculation paying up to batch 148' (', the largest that fits' where memory ends the search)."""
    return f"speculation paying up to batch {be:,}" + (", the largest that fits" if at_limit else "")


def _break_even_named(be: int, at_limit: bool) -> str:
    """'the break-even batch 72', or where memory ends the search 'speculation paying up to batch 148, the largest that
    fits,': a note's subject."""
    return f"{_paying_up_to(be, True)}," if at_limit else f"the break-even batch {be:,}"


def break_even_notes(spec: dict, eng: ServingEngine, batch: int) -> list[str]:
    """What a speculative point's break-even batch rests on (qa105): the range where gains run optimistic (a batch
    asked below it gets no caveat of its own), and an engine cost the fit left at a bound of its range (vllm's
    spec_per_iteration_per_sequence, at 100 us to session 32, where 50 us moved an 8B model's break-even on an H200
    from 216 to 857; at 0 in session 33, 10.1 us and on no bound since session 34)."""
    be = spec.get("break_even_batch")
    longest = spec.get("pays_longest")  # the k that pays further, where predict names it (tables._pays_longest_text)
    if longest and (longest["k"] == spec.get("k") or longest["batch"] <= (be or 0)
                    or longest["batch"] < PAYS_LONGER_FACTOR * (be or 0)):  # as predict's text names it
        longest = None
    if (be is None and longest is None) or str(eng.name) == "ideal":
        return []
    notes = []
    at_limit = bool(spec.get("break_even_at_memory_limit"))  # qa156: these were said nothing of
    named = ([(_break_even_named(be, at_limit), be)] if be is not None else []) + (
        [(f"k {longest['k']}'s {_paying_up_to(longest['batch'], True)}," if longest["at_memory_limit"] else
          f"k {longest['k']}'s break-even batch {longest['batch']:,}", longest["batch"])] if longest else [])
    said = [what for what, upto in named if optimistic(upto, eng.name)]
    if said and not optimistic(batch, eng.name):
        notes.append(f"{' and '.join(said)} {'lies' if len(said) == 1 else 'lie'} where, under {eng.name}, speculative "
                     f"gains run optimistic (batch {OPTIMISTIC_BATCH} and above, docs/ACCURACY.md){optimistic_found_for(eng)}: "
                     f"read {'it' if len(said) == 1 else 'them'} as {'an upper estimate' if len(said) == 1 else 'upper estimates'}")
        # (qa290: said flatly of a profile fitted to the user's own speculative rows)
    from roofline.fit import PARAMETERS

    bounds = {p.key: p for p in PARAMETERS}

    def side(key: str) -> str:  # the bound the value in use sits on ("" where it sits on none: set by hand, an override)
        return bounds[key].bound_at(getattr(eng, key + "_s"))

    bounded = [] if at_limit or be is None else [key for key in BREAK_EVEN_COSTS if key in bounds and eng.at_fit_bound(key) and side(key)]
    if bounded:
        base = Path(eng.costs_from).stem if eng.costs_from else eng.name  # a costs_from profile's copy is the other's
        owner = f"{base}'s costs: " if base != eng.name else ""
        shown = ", ".join(f"{key} ({owner}{format_seconds(getattr(eng, key + '_s'))}, "
                          f"{'the' if bounds[key].on_bound(getattr(eng, key + '_s')) else 'near the'} {side(key)} bound "
                          "of its fit range)" for key in bounded)
        notes.append(f"the break-even batch {be:,} rests on {eng.name}'s {shown}: the fit's rows would have taken it "
                     f"further, so a copy with another value moves the break-even (roofline engines new NAME --from "
                     f"{base} --set '{bounded[0]}=...')")
    return notes


# what predict's errors name as the caller: 'predict', or 'command line' for the CLI's (its fields then read as flags)
_CALLER = contextvars.ContextVar("roofline_predict_caller", default="predict")


@contextlib.contextmanager
def errors_named(caller: str):
    """Within it, predict's errors begin '<caller>: <field>: ' instead of 'predict: ...' (the CLI: 'command line')."""
    token = _CALLER.set(caller)
    try:
        yield
    finally:
        _CALLER.reset(token)


def _named_profile(where: str, field: str, loader, value, profiles):
    """loader(value, profiles), its errors said with the call and the option that gave it ('predict: draft_hardware:
    unknown hardware ...'), as a sweep names its key: the target's hardware and the drafter's read alike (qa110); a
    spec object's own check once ('predict: hardware spec ...'), a broken file with its path (qa189)."""
    if isinstance(value, str) and not value.strip():  # qa185: said without the call's name
        raise RooflineError(f"{where}: {field}: expected a non-empty name, found {value!r}")
    try:
        return loader(value, profiles)
    except RooflineError as exc:  # an unknown name, a broken file, a spec object that no profile check saw: the call's
        if str(exc).startswith((f"{where}: ", "ROOFLINE_PATH:")):  # the environment's search path: not the call's
            raise
        text = str(exc)  # 'hardware spec ...' under hardware, 'profiles: ...' under any: said once, not twice
        said = f"{where}: {text}" if text.startswith((f"{field} ", "profiles:")) else f"{where}: {field}: {text}"
        raise said_as(exc, said) from None


def _experts_a_pass(target, dep, batch, q: int, count_key: str) -> dict:
    """The routed experts one pass of q tokens a sequence reads on the busiest expert-parallel rank (costs'
    routing simulation), over a micro-batch's B / min(B, pp) sequences as engine.step_metrics cuts the batch; the
    tokens (or sequences, q = 1) a pass under `count_key`."""
    moe = target.moe
    tokens = batch / min(batch, dep.pp) * q
    touched, pairs = busiest_rank_experts(moe.experts, moe.top_k, tokens, dep.ep, moe.groups, moe.groups_per_token)
    return {"experts": moe.experts // dep.ep, "touched": float(touched), "token_expert_pairs": float(pairs),
            count_key: float(tokens)}


def predict(
    hardware: str | HardwareSpec,
    model: str | ModelSpec,
    batch: int = 1,
    context: int | None = None,
    *,
    tp: int = 1,
    dp_attention: int = 1,
    ep: int = 1,
    pp: int = 1,
    weight_dtype: str | None = None,
    expert_dtype: str | None = None,
    kv_dtype: str = "bf16",
    engine: str | ServingEngine | None = None,
    method: str = "none",
    k: int | None = None,
    alpha: float | None = None,
    acceptance: list[float] | None = None,
    acceptance_length: float | None = None,
    draft: str | ModelSpec | None = None,
    draft_hardware: str | HardwareSpec | None = None,
    overlap: bool = True,
    draft_vocab: int | None = None,
    tree_nodes: int | None = None,
    tree_tau: float | None = None,
    prompt: int | None = None,
    output_len: int | None = None,
    shared_prefix: int = 0,
    profiles: tuple[str | Path, ...] = (),
) -> dict:
    """One decode point: step time, tokens/s, MBU/MFU, bound, per-class weights, memory, collectives,
    per-operator table; with a speculation method, the `spec` object. SI units; docs/API.md lists every key.

    hardware, model     a profile name ("h100", "llama-3.1-8b"), a YAML path, or a spec object
    batch, context      sequences decoded together, and tokens already in each one's KV cache (None: 1,024, or with
                        prompt and output_len the request's mean context, prompt + output_len / 2)
    tp, dp_attention, ep, pp
                        tensor parallel, attention data-parallel groups, expert parallel, pipeline stages
    weight_dtype        every weight class's dtype (None: the checkpoint's native precision per class; a quantised
                        one leaves the embedding, LM head and router native); expert_dtype the experts' only
    kv_dtype            the KV cache's dtype
    engine              serving engine profile or spec (None: vllm, the default; "ideal": the roofline bound, with the hardware's step overhead)
    method              none, draft, mtp, eagle, medusa or ngram
    k                   draft tokens per iteration, bonus token excluded (None: 4 with a method; a tree's depth, at
                        most its node count)
    alpha, acceptance   per-token acceptance, or per-position conditional rates (positions past the list reuse its
                        last rate; rates past k weigh only best k); neither: the method's published rates (a draft
                        model and a Medusa head have none: give one). Conditional: the chance position i is accepted given that i - 1
                        was; vLLM's "per-position acceptance rate" is unconditional (divide each by the one before)
    acceptance_length   instead: a measured acceptance length (tokens an iteration, the bonus token included, at
                        this k), taken as the alpha that gives it (speculation.alpha_from_acceptance_length)
    draft               the draft model (method draft); draft_hardware the device a drafter runs on (None: the
                        target's); overlap: a draft model elsewhere drafts one half batch while the other is
                        verified, where that pays; draft_vocab an EAGLE or Medusa head's reduced vocabulary
    tree_nodes, tree_tau
                        tree verification: draft nodes per sequence and measured tokens per iteration (k the depth)
    prompt              prompt tokens: adds time to first token (and a drafter's own prefill)
    output_len          tokens each request generates, with `prompt`: adds the time per output token a serving
                        benchmark reads with `batch` requests in flight, the arriving requests' prefills included
                        (serving_time_per_output_token_s, engine.arrival_stall_s; a benchmark's mean context is
                        about prompt + output_len / 2, the context where none is given)
    shared_prefix       tokens of the context every sequence shares
    profiles            extra profile folders: one folder, or a tuple of them

    `warnings` lists what the caller must know (does not fit in memory, ...). Bad input raises RooflineError.
    """
    where = _CALLER.get()
    # a layout degree given as an array: the hint batch's gives (qa440: 'tp: expected an integer in 1..4096, found [2]')
    tp, dp_attention, ep, pp = (_one(v, n, where, "one integer") for v, n in ((tp, "tp"), (dp_attention, "dp_attention"), (ep, "ep"), (pp, "pp")))
    tp, dp_attention, ep, pp, draft_vocab, tree_nodes, tree_tau = map(_as_file_values, (tp, dp_attention, ep, pp, draft_vocab, tree_nodes, tree_tau))
    if method is not None and (not isinstance(method, str) or method_name(method) not in METHODS):  # as given (qa220);
        raise unknown_method(where, method)  # pd.NA, a numpy array, a Series: one line (qa218)
    method = method_name(method)  # any case, as profile names (qa217)
    batch = _scalar_int(batch, "batch", 1, BATCH_MAX, where)
    context_given = context is not None
    if context is None:  # 1,024, or a request's mean context, as a sweep of it defaults its context axis (qa347: a
        # request priced at 1,024 by predict and at 2,150 by the sweep)
        given = [v for v in (prompt, output_len) if isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
                 and float(v).is_integer()]  # 2000.0 is the 2,000 it is priced as (qa348)
        context = request_context(where, prompt, output_len) if len(given) == 2 else DEFAULT_CONTEXT
    context = _scalar_int(context, "context", 0, CONTEXT_MAX, where)
    k_given = k is not None
    k = _scalar_int(default_k("none" if method is None else method, tree_nodes) if k is None else k, "k", 0, K_MAX, where)
    alpha, acceptance = _scalar_float(alpha, "alpha", where), _rates(acceptance, "acceptance", where)
    acceptance_length = _scalar_float(acceptance_length, "acceptance_length", where)
    if acceptance_length is not None:
        if alpha is not None or acceptance is not None or tree_nodes is not None:
            raise field_error(where, "acceptance_length", "it alone (not beside alpha, acceptance or a tree)", acceptance_length)
        if method in (None, "none"):
            raise field_error(where, "acceptance_length", "a speculation method beside it", f"method {method}")
        alpha = alpha_from_acceptance_length(where, acceptance_length, k)
    if not isinstance(overlap, (bool, np.bool_)):
        raise field_error(where, "overlap", "true or false", overlap)
    overlap = bool(overlap)
    profiles = _folders(profiles, where)
    flag = (lambda name: f"--{name.replace('_', '-')}") if where == "command line" else (lambda name: name)
    if prompt is not None:
        prompt = _scalar_int(prompt, "prompt", 1, CONTEXT_MAX, where)
        # a prefix every sequence shares is part of each prompt (qa288: a 10-token prefill's TTFT beside a 1,000-token
        # prefix, unsaid; warned until qa354, whose numbers described no request)
        shared_prefix = _scalar_int(shared_prefix, "shared_prefix", 0, prompt, where, high_is=(
            f"the prompt's {prompt:,} tokens: a prefix every sequence shares is part of each prompt; give {flag('prompt')} "
            "as the whole prompt, the prefix included"))
    shared_prefix = _scalar_int(shared_prefix, "shared_prefix", 0, context, where, high_is=f"the context, {context:,}"
                                + ("" if context_given else f", the default: give {flag('context')}, or {flag('output_len')} "
                                   f"beside {flag('prompt')} for a request's mean context")  # (qa349: a default unsaid)
                                + ": a prefix is part of it")
    if output_len is not None:
        output_len = _scalar_int(output_len, "output_len", 1, CONTEXT_MAX, where)
        if prompt is None:
            raise field_error(where, "prompt", "a prompt length beside an output length (the prefill each arriving "
                              "request brings)", MISSING)
    for field, value, kind in (("hardware", hardware, HardwareSpec), ("model", model, ModelSpec), ("draft", draft, ModelSpec),
                               ("draft_hardware", draft_hardware, HardwareSpec), ("engine", engine, ServingEngine)):
        if value is not None or field in ("hardware", "model"):  # both required: None is named as predict's argument
            _check_profile_arg(where, field, value, kind)
    if isinstance(draft_hardware, str):
        check_draft_hardware(where, draft_hardware)  # 'none' is the target's devices, said as such
    check_options(where, method, draft=draft, draft_vocab=draft_vocab, alpha=alpha, acceptance=acceptance,
                  tree_nodes=tree_nodes, tree_tau=tree_tau, k=k, k_given=k_given)
    check_speculating(where, (method,), alpha=alpha, acceptance=acceptance, tree_nodes=tree_nodes, draft_hardware=draft_hardware,
                      k=k if k_given else None, overlap=overlap)
    import warnings

    with warnings.catch_warnings(record=True) as loaded:  # what reading the profiles warns of (a unit slip, a family
        warnings.simplefilter("always")  # named nowhere) is the point's too: in `warnings` (qa318: on stderr alone)
        hw = _named_profile(where, "hardware", _hardware_of, hardware, profiles)
        target = _named_profile(where, "model", _model_of, model, profiles)
        if method == "mtp" and target.mtp_modules < 1:
            raise RooflineError(f"{where}: method: expected a model with MTP modules for mtp, found {target.name!r} "
                                "(mtp_modules: 0); use eagle or draft")
        eng = _named_profile(where, "engine", _engine_of, engine, profiles).for_hardware(hw)
        draft_hw = (_named_profile(where, "draft_hardware", _hardware_of, draft_hardware, profiles)
                    if draft_hardware is not None and method != "none" else None)
        draft_spec = _named_profile(where, "draft", _model_of, draft, profiles) if draft is not None and method != "none" else None
    for w in loaded:  # another library's warning goes on as it came
        if not issubclass(w.category, RooflineWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    shadows = [str(w.message) for w in loaded if issubclass(w.category, RooflineWarning)]  # (API.md: predict's are its
    #   `warnings`, not Python warnings)
    shadows += [note for kind, name in (("hardware", hardware), ("model", model), ("engine", engine or DEFAULT_ENGINE), ("hardware", draft_hardware),
                                       ("model", draft)) for note in [shadow_note(kind, name, _folders(profiles))] if note]
    shadows += [note for note in [costs_shadow_note(eng.name, eng.costs_from)] if note]
    shadows += [note for field, value in (("hardware", hardware), ("model", model), ("engine", engine), ("draft_hardware", draft_hardware),
                                          ("draft", draft)) for note in [_changed_spec_note(field, value, profiles, hw)] if note]
    shadows += [note for note in [_shadowed_note(engine, hw, profiles)] if note]
    dep = for_engine(deployment(target, weight_dtype, kv_dtype, tp, dp_attention, ep, pp, expert_dtype, where=where), eng, target)
    check_draft_vocab(where, draft_vocab_of(method, draft_vocab), target)
    m = step_metrics(hw, target, batch, 1, context, dep, engine=eng, shared_prefix=shared_prefix, with_operators=True)
    mem = capacity(hw, target, batch, context + 1, dep, shared_prefix=shared_prefix, engine=eng)
    step = float(m["step_time_s"])
    # the weights of the stage whose memory binds (capacity: every stage checked under pp; the operators are the
    # busiest stage's, engine.py)
    shown = dep.at_stage(int(mem["stage"])) if dep.pp > 1 else dep  # the stage whose memory binds
    by_class = weight_bytes_by_class(target, shown)
    absorbed = mla_absorbed_copy_bytes(target, shown)
    fits = bool(mem["fits_in_memory"])
    out = {
        "hardware": hw.name,
        "hardware_family": hw.engine_family,  # the device whose engine values it takes (a copy's `family`)
        "model": target.name,
        "engine": eng.name,
        "engine_values": {k: v for k, v in eng.to_json().items() if k not in ("overrides", "fitted")},  # as applied on this device's family
        # the fit its cost terms come from (None: none recorded, or every fitted value since set by hand, qa427): file,
        # rows and date, as predict's text says them
        "engine_fitted": ({**{key: eng.fitted.get(key) for key in ("file", "rows", "date")},  # a family's fitted value
                           "set_by_hand_since": _fit_edited(eng)}  # qa463: a copy's hand-set values beside 'the fit'
                          if eng.fitted and (eng.fitted.get("parameters", True) or eng.fitted.get("per_family")) else None),
        # the sequences the engine runs at once while speculating by default, over its attention-DP groups (None: no cap)
        "speculating_cap": running_cap_speculating(eng, dep.dp_attention),
        # the sequences it runs at once by default whether or not it speculates (vLLM's max_num_seqs, in each
        # attention-DP group: capacity.default_sequences; None: the profile gives none)
        "sequence_cap": (default_sequences(eng, hw) * dep.dp_attention) or None,
        # the file each profile was read from (None: a spec object built in code), so a result can be traced to its inputs
        "profile_files": {key: _source_file(value, spec, profiles)
                          for key, value, spec in (("hardware", hardware, hw), ("model", model, target), ("engine", engine, eng),
                                                   ("draft_hardware", draft_hardware, draft_hw), ("draft", draft, draft_spec))
                          if spec is not None},
        "batch": batch,
        "context": context,
        "layout": dep.to_json(),
        # under pp: each stage's layers as the engine splits them, the stage whose memory binds (capacity: its weights
        # and KV cache are the ones shown) and the busiest, whose pass the operators describe (qa233); None without pp
        "pipeline": {"stage_layers": dep.stage_counts(target.layers), "memory_stage": int(mem["stage"]),
                     "busiest_stage": dep.busiest_stage(target), "pp_remainder": dep.pp_remainder} if dep.pp > 1 else None,
        "tp": dep.tp,
        "devices": dep.devices,
        # scale-up domains (NVLink / xGMI) the deployment spans: collectives between them take the scale-out link
        "scale_up_domains": domains_spanned(hw, dep.devices),
        # the achievable bytes/s a device of the tp group drives in its collectives inside a scale-up domain
        # (hw.link_for: a mesh's or a torus's links among the group's devices there), and across domains where the group
        # spans them (the scale-out link); None at tp 1 (qa258: said nowhere; qa264: a NIC's said as the group's link)
        "tp_link_bytes_per_s": hw.link_for(min(dep.tp, hw.scale_up_domain))[0] if dep.tp > 1 else None,
        "tp_scale_out_bytes_per_s": hw.link_for(dep.tp)[0] if domains_spanned(hw, dep.tp) > 1 else None,
        "tp_scale_out_latency_s": hw.cross_domain_latency_s(dep.tp) or None,  # what its collectives pay at least there
        # the scale-up link's own latency, which a collective inside a domain pays at least (engine.py's _latency;
        # qa417: an engine's 6 us said where a PCIe link's 15 us was paid); None at tp 1
        "tp_link_latency_s": hw.link_for(min(dep.tp, hw.scale_up_domain))[1] if dep.tp > 1 else None,
        # the tp collectives of a pass (of the busiest stage under pp), each priced as engine.collective_times_s says:
        # the layers' collectives (count, and bytes each), the embedding's all-reduce and each device's share of the LM
        # head's logit gather (bytes; absent where none); None at tp 1 (a reader's hand check: the sizes were said nowhere)
        "tp_collectives": ({"count": int(round(float(m["allreduce_count"]))),
                            # vLLM's sequence-parallel MoE: of them, one a MoE layer is its own (qa417): {'kind':
                            # 'reduce_scatter' (MLA: the layer's all-reduce split in two, one latency more, no bytes)
                            # or 'all_gather' (its output gathered, M each), 'count'}; None where it does not run
                            "sequence_parallel_moe": ({"kind": m["sequence_parallel_moe"][0],
                                                       "count": int(m["sequence_parallel_moe"][1])}
                                                      if m["sequence_parallel_moe"] else None),
                            # a QK norm over all heads: of them, its all-reduces a layer ({'count', 'message_bytes'});
                            # absent for a model without one
                            **({"qk_norm": {"count": int(round(float(m["qk_norm_allreduce_count"]))),
                                            "message_bytes": float(m["qk_norm_allreduce_message_bytes"])}}
                               if float(m["qk_norm_allreduce_count"]) else {}),
                            **{key: float(m[key]) for key in ("allreduce_message_bytes", "embedding_allreduce_message_bytes",
                                                             "lm_head_gather_message_bytes") if float(m[key])}}
                           if dep.tp > 1 else None),
        "weight_dtype": dep.weight_dtype_label,
        "expert_dtype": dep.expert_dtype_label or None,  # None for a dense model
        "kv_dtype": dep.kv_dtype,
        "shared_prefix": shared_prefix,
        # whether the engine's attention reads that prefix once a step (a cascade kernel) or each sequence (qa270)
        "shared_prefix_read_once": eng.reads_prefix_once if shared_prefix else None,
        "step_time_s": step,
        "tokens_per_s": batch / step,
        "tokens_per_s_per_user": 1.0 / step,
        "tokens_per_s_per_device": batch / step / dep.devices,
        # the devices' rent over the tokens they decode (the sweep's baseline_cost_usd_per_million_tokens; prefill not
        # charged); None unpriced. The price is the profile's, per device.
        "cost_usd_per_million_tokens": (None if hw.price_usd_per_hour is None else
                                        usd_per_million_tokens(float(rent_usd_per_hour(hw.price_usd_per_hour, dep.devices)), batch / step)),
        "price_usd_per_hour_per_device": None if hw.price_usd_per_hour is None else float(hw.price_usd_per_hour),
        "mbu": float(m["mbu"]),
        "mfu": float(m["mfu"]),
        "bound": "compute" if bool(m["compute_bound"]) else "memory",
        "compute_bound_share": float(m["compute_bound_share"]),  # of the operators' time: over half makes the step compute-bound
        "arithmetic_intensity_flops_per_byte": float(m["arithmetic_intensity_flops_per_byte"]),
        # the batches whose decode step at this context is compute-bound (qa302: unsaid, the ridge read as that batch;
        # engine.compute_bound_batches), searched to compute_bound_search_max_batch
        "compute_bound": compute_bound_batches(hw, target, context, dep, engine=eng, shared_prefix=shared_prefix),
        "compute_bound_search_max_batch": COMPUTE_BOUND_SEARCH_MAX_BATCH,
        "derated_ridge_point_flops_per_byte": hw.ridge_point_flops_per_byte(main_gemm_dtype(target, dep), derated=True),
        "ridge_point_dtype": hw.compute_dtype(main_gemm_dtype(target, dep)),  # the main GEMM's compute dtype (fp4 weights
        # on a device without fp4 units compute in bf16); an operator in another dtype has its own ridge and bound
        "main_gemm_weight_dtype": main_gemm_dtype(target, dep),
        "main_gemm_weight_only": bool(weight_only(hw, main_gemm_dtype(target, dep))),  # dequantised in the GEMM, at the
        # engine's weight_only_efficiency (narrower weights than the dtype they compute in)
        "flops": float(m["flops"]),
        "bytes": float(m["bytes"]),
        # the bytes on the step's critical path at the derated bandwidth (those bytes, or under pp every stage's on a
        # round trip): the step's data time, against which its fixed costs show
        "bytes_time_s": float(m["path_bytes"]) / hw.memory_ceiling_bytes_per_s,
        # the busiest device's FLOPs of a step (tile padding included) at the derated peak of the dtype each operator
        # computes in: the compute side of the roofline, beside bytes_time_s (qa386: no key gave it); the operators are
        # one micro-batch's pass, a step m = min(B, pp) of them (qa466: at pp 2 half the step's FLOPs' time was said)
        "flops_time_s": _flops_time_s(hw, m["operators"], operator_compute_dtypes(hw, dep)) * float(microbatches(batch, dep)),
        # the part of the step those bytes set (engine.bytes_set_time_s), at the bandwidth their kernels reach: each
        # operator's own ceiling x the engine's efficiency for it (a quantised MoE's, a weight-only GEMM's); about twice
        # what twice the bandwidth saves (qa333: 5.89 ms said of bytes whose doubled bandwidth saved 3.88 ms)
        "memory_time_s": float(m["path_memory_time_s"]),
        # the operators the engine's efficiencies put below their ceiling, and those a hardware profile's
        # operator_ceilings put below the derated bandwidth (qa335: a calibrated attention ceiling said as the engine's)
        "memory_efficiencies": _shares_below(m["operators"], "memory_ceiling_bytes_per_s", "device_memory_ceiling_bytes_per_s"),
        "memory_ceilings_measured": _shares_below(m["operators"], "device_memory_ceiling_bytes_per_s", hw.memory_ceiling_bytes_per_s),
        # the same step on a device of twice the memory bandwidth (every memory ceiling doubled): what bandwidth buys,
        # fixed costs and kernels below their ceilings (a quantised MoE's efficiency) included
        "step_time_at_2x_bandwidth_s": float(step_metrics(_doubled_bandwidth(hw), target, batch, 1, context, dep, engine=eng,
                                                          shared_prefix=shared_prefix)["step_time_s"]),
        "kv_read_bytes_per_device": float(m["kv_read_bytes"]),
        "weight_bytes": float(mem["weight_bytes"]),
        "weight_classes": {c: {"dtype": dep.dtype(c), "bytes_per_device": by_class[c],
                               # of attention's, a 16-bit copy of MLA's up-projections an engine holds (vLLM's W_UK, W_UV)
                               **({"bf16_copy_bytes_per_device": absorbed} if c == "attention" and absorbed else {})}
                           for c in by_class if by_class[c] > 0},
        "kv_bytes": float(mem["kv_bytes"]),
        # the engine's hybrid window pool where it sizes this model's cache (sliding layers held at r x the tokens)
        "kv_window_pool_ratio": eng.window_kv_pool_ratio if window_pool_applies(target, eng.window_kv_pool_ratio) else None,
        "memory_needed_bytes": float(mem["memory_needed_bytes"]),
        "usable_memory_bytes": float(mem["usable_memory_bytes"]),
        # the stage that sets memory's (its reserve: the sampler's logits on the last stage alone)
        "usable_memory_text": usable_memory_text(hw, target, dep.at_stage(int(mem["stage"])) if dep.pp > 1 else dep, eng),
        # the engine's share f of the device it applied (memory_fraction_for: by the replica's devices where the profile
        # gives shares by them; qa361: engine_values said sglang-early's tp-1 0.88 at tp 4), None: the hardware's
        "engine_memory_fraction": eng.memory_fraction_for(dep.devices),
        "fits_in_memory": fits,
        "max_batch": int(mem["max_batch"]),
        # the stage whose memory sets it, where another than the one the figures above are of (qa251)
        "max_batch_stage": int(mem["max_batch_stage"]) if "max_batch_stage" in mem else None,
        "operator_time_s": float(m["operator_time_s"]),
        # of it, what the engine's kernel_latency adds (its kernels x layers x latency; qa97: a batch-1 step of 15.8 ms
        # whose 12.9 ms are kernel floors showed only 'operators 14.5 ms'): the operator time less that at 0 latency
        "kernel_latency_time_s": float(m["operator_time_s"]) - float(step_metrics(
            hw, target, batch, 1, context, dep, engine=dataclasses.replace(eng, kernel_latency_s=0.0),
            shared_prefix=shared_prefix)["operator_time_s"]) if eng.kernel_latency_s > 0 else 0.0,
        "comm_time_s": float(m["comm_time_s"]),
        "allreduce_time_s": float(m["allreduce_time_s"]),
        "all_to_all_time_s": float(m["all_to_all_time_s"]),
        "moe_dispatch": eng.moe_dispatch,
        "dp_gather": eng.dp_gather,
        "moe_gather_time_s": float(m["moe_gather_time_s"]),
        "dp_gather_time_s": float(m["dp_gather_time_s"]),  # an engine's dense layers over the stage (dp_attention_stage_split)
        "p2p_time_s": float(m["p2p_time_s"]),
        "overhead_s": float(m["overhead_s"]),
        # eager passes (the engine's graphs false): the host's launch time of the step's kernels, their count (in graphs
        # too), and whether the launches (with the host's other work, where the engine overlaps it) outlast the device's
        # work and so set the step (engine.launch_floor_s); 0 s / false in graphs
        "graphs": bool(eng.graphs),
        "launch_time_s": float(m["launch_time_s"]),
        "launch_kernels": int(round(float(m["launch_kernels"]))),  # the step's kernels, graphs or not
        "eager_launch_s": float(eng.eager_launch_s),
        "launch_bound": bool(m["launch_bound"]),
        "host_time_s": float(m["host_time_s"]),
        # false where host work is added to the device time: at pp 1 the engine's host_overlap, at pp > 1 one micro-batch
        # (engine.host_overlapped; from two, a micro-batch's share lies on its round trip, the others' beside it)
        "host_overlapped": bool(m["host_overlapped"]),
        "host_on_path_s": float(m["host_on_path_s"]),  # what it adds to the device's time (engine.step_metrics)
        "host_microbatch_s": float(m["host_microbatch_s"]),  # under pp a micro-batch's own host work, on its round trip
        "host_overlapped_speculating": bool(host_overlapped(  # likewise, a verify pass (speculation.py's verify engine)
            dataclasses.replace(eng, host_overlap=eng.host_overlap and eng.host_overlap_speculating), batch, dep)),
        "operators": {
            name: {
                "weight_dtype": dep.dtype(OPERATOR_CLASS[name]) if name in OPERATOR_CLASS else None,
                "flops": float(op["flops"]),
                "bytes": float(op["bytes"]),
                "time_s": float(op["time_s"]),
                "bound": "compute" if bool(op["compute_bound"]) else "memory",
                # its FLOPs with its rows padded to the tensor-core tile (engine's pad_o), which its bound is read from
                "padded_flops": float(op.get("padded_flops", op["flops"])),
                # the engine's kernel latencies in its time: kernels x layers x kernel_latency (0 under ideal)
                "kernel_latency_s": float(op.get("kernel_latency_s", 0.0)),
            }
            for name, op in m["operators"].items()
            if float(op["bytes"]) > 0 or float(op["flops"]) > 0
        },
        "warnings": list(dict.fromkeys(shadows)),  # a user file that took a built-in's name: its numbers are that file's
    }
    # each compute dtype's derated ridge, of the dtypes the step's operators with FLOPs compute in (engine's dtype_o), and
    # those operators: a row is bound against its own dtype's (qa286: attention's 228 FLOP/B read 'compute' beside a
    # header of fp8's 354 alone)
    dtype_of = operator_compute_dtypes(hw, dep)
    by_dtype: dict[str, list[str]] = {}
    for name, op in out["operators"].items():
        op["compute_dtype"] = dtype_of.get(name) if op["flops"] > 0 else None  # the dtype its FLOPs run in, its bound's ridge
        if op["compute_dtype"] is not None:
            by_dtype.setdefault(op["compute_dtype"], []).append(name)
    out["derated_ridge_points_flops_per_byte"] = {d: hw.ridge_point_flops_per_byte(d, derated=True) for d in by_dtype}
    out["operators_by_compute_dtype"] = by_dtype
    if target.moe is not None:  # what a decode step's experts read and compute on the busiest expert-parallel rank
        out["experts_busiest_rank"] = _experts_a_pass(target, dep, batch, 1, "sequences_a_pass")
    if not fits:
        out["warnings"].append(
            f"does not fit in memory: needs {_gb(out['memory_needed_bytes'])} per device of "
            f"{_gb(out['usable_memory_bytes'])} usable (max batch {out['max_batch']:,} at this context)")
    memory_warning = len(out["warnings"]) - 1 if not fits else None  # a speculative point says what it needs with its drafter
    # the caveats on the engine's evidence (priors, fits, optimism) describe a deployment: none where it does not run on
    # the device (TensorRT-LLM on an MI300X said them beside saying so)
    deployable = not engine_on_a_cpu(eng, hw) and (not draft_hw or not speculates(method, k) or not engine_on_a_cpu(eng, draft_hw))
    used = parameters_used(hw, target, dep, eng, speculates(method, k),
                           bool(host_sets_step(m["host_overlapped"], m["host_time_s"] + m["launch_time_s"], m["step_time_s"])),
                           method)  # (qa326: with an eager pass's launches, on the host's one thread)
    for note in (engine_on_a_cpu(eng, hw), engine_on_a_cpu(eng, draft_hw) if draft_hw and speculates(method, k) else "",
                 weight_only_note(hw, dep, target), unfitted_family_note(hw, target, dep, eng) if deployable else "",
                 undetermined_note(eng, hw, used) if deployable else "", fit_bound_note(eng, hw, used) if deployable else "",
                 fitted_class_note(eng, target) if deployable else "",
                 fitted_family_note(eng, hw) if deployable else "", fitted_batches_note(eng, batch) if deployable else "",
                 fitted_elsewhere_note(eng, hw, target, method if speculates(method, k) else "none", used)  # (k 0: plain)
                 if deployable else "",
                 # (qa354: said of sglang-early while speculating, not of an engine that never caches)
                 (f"{eng.name} caches no prefix (prefix_cached false): the shared prefix of {shared_prefix:,} tokens is held "
                  "by each sequence (the memory and max batch here)" + (" and prefilled with every prompt" if prompt else "")
                  if shared_prefix and not eng.prefix_cached else ""),
                 fitted_elsewhere_note(eng, draft_hw, target, method, {"kernel_latency": True}, "the drafter's device ")
                 if deployable and draft_hw and speculates(method, k) else "",
                 fitted_family_note(eng, draft_hw, "the drafter's device ") if deployable and draft_hw and speculates(method, k) else "",
                 shard_note(target, dep), group_note(target, dep), fp8_block_note(target, dep), dp_spelling_note(dep), hw.one_domain_note(dep.devices),
                 stage_split_dense_note(eng, target, dep), engine_layout_note(eng, target, dep),
                 *(speculation_engine_notes(eng, method, batch, dep) if speculates(method, k) else ()),
                 speculation_caveat_note(eng, method) if speculates(method, k) else "",
                 running_cap_note(eng, hw, batch, dep) if fits else "",  # (memory binds first otherwise, said above)
                 context_note(target, prompt, "prompt") if (prompt or 0) > context else context_note(target, context),
                 # a request's prompt and output together (qa243: 130,000 + 5,000 on a 131,072-position model, unsaid)
                 _request_note(target, prompt, output_len) if prompt is not None and output_len is not None
                 and max(prompt, context) <= (target.max_context_tokens or CONTEXT_MAX) else "",
                 drafter_context_note(draft_spec, context) if method == "draft" and speculates(method, k) else ""):
        if note:
            out["warnings"].append(note)
    # what no setup of the engine runs, speculating or not: its device, or its layout (qa379: the plain cost said
    # nothing beside the speculative lines' note)
    out["engine_refuses"] = engine_refusals(eng, hw, target, dep)  # (qa381: a shard vLLM and SGLang refuse to load,
    # unmarked; cheapest leaves such rows out)
    refused = [w for w in out["warnings"] if f"no {eng.name} setup" in w]  # qa210: the 4th of 7, after notes on priors
    if refused:  # said first, after a memory refusal: what no engine of that name runs
        rest = [w for w in out["warnings"] if w not in refused]
        first = 1 if memory_warning is not None else 0
        out["warnings"] = rest[:first] + refused + rest[first:]
    narrow = sorted({d for d in dep.dtypes.values() if d in ("bf16", "fp16") and hw.compute_dtype(d) == "fp32"})
    if narrow:  # a profile calibrated in fp32 on a CPU without bf16 units: 16-bit weights are taken at the fp32 peak
        out["warnings"].append(f"{hw.name} has no {' or '.join(narrow)} peak: {' and '.join(narrow)} weights compute at its fp32 "
                               f"peak here (a profile measured in fp32: weight dtype fp32 predicts what it measured)")
    sixteen = _sixteen_bit_note(hw, target, batch, context, dep, eng, step, shared_prefix, tp, dp_attention, ep, pp)
    if sixteen:  # qa371: fp8 weights predicted slower than bf16 at batch 1, said only by the latencies column
        out["warnings"].append(sixteen)
    tp_note = cross_domain_tp_note(hw, dep, out["allreduce_time_s"], out["step_time_s"], out["all_to_all_time_s"])
    if tp_note:  # qa227: a fifth of a tp 16 step rested on it, unsaid
        out["warnings"].append(tp_note)
    link_s = hw.cross_domain_latency_s(dep.devices_per_stage)
    dispatch_note = dispatch_latency_note(eng, "it", link_s)
    on_link_s = cross_domain_collectives_s(hw, dep, out["allreduce_time_s"], out["all_to_all_time_s"])
    if dispatch_note and out["all_to_all_time_s"] > 0 and not engine_layout_note(eng, target, dep) and max(
            out["all_to_all_time_s"], on_link_s if link_s else 0.0) > CROSS_DOMAIN_SHARE_NOTED * out["step_time_s"]:  # qa229:
        # the all-reduces' and the dispatch's shares of the same link together
        field = "all_to_all_latency" if dispatch_on_prior(eng) else "allreduce_latency"
        own = getattr(eng, field + "_s")
        # a value that moves it: above the link's latency where that is what the collectives pay (qa227)
        example = f"{format_seconds(1.5 * link_s) if link_s > own else ('20 us' if field == 'all_to_all_latency' else '15 us')}"
        out["warnings"].append(
            f"the expert dispatch takes {format_seconds(out['all_to_all_time_s'])} of the {format_seconds(out['step_time_s'])} "
            f"step; {dispatch_note}: a copy with a value you measured moves it "
            f"(roofline engines new NAME --from {eng.name} --set '{field}={example}')")
    if dep.dp_attention > batch:
        idle = dep.dp_attention - batch
        out["warnings"].append(f"dp_attention {dep.dp_attention} at batch {batch:,}: {idle} of the {dep.dp_attention} attention "
                               f"groups {'has' if idle == 1 else 'have'} no sequence to decode, and {'its' if idle == 1 else 'their'} devices idle "
                               "through attention; "
                               f"DP-attention needs a batch of at least {dep.dp_attention}")
    if method != "none":
        out["spec"] = predict_speculation(
            hw, target, batch, context, k, alpha, method=method, draft=draft_spec, draft_hw=draft_hw,
            acceptance=acceptance, tree_nodes=tree_nodes, tree_tau=tree_tau, overlap=overlap,
            draft_vocab=draft_vocab, dep=dep, engine=eng, shared_prefix=shared_prefix,
        )
        drafter_notes = drafter_warnings(method, target, draft_spec, draft_hw, dep.pp, dep, eng)
        # at k 0 nothing is drafted: what a drafter does is the best-k search's (qa288: an overlap said not to apply)
        out["warnings"] += [f"at k 0 (for the best-k search): {n}" for n in drafter_notes] if k == 0 else drafter_notes
        out["spec"]["acceptance_length_given"] = acceptance_length  # alpha is the one that gives it at this k
        # Leviathan et al.'s c, as predict's iteration line prints it (qa402: in the text only): a draft pass over the
        # plain decode step, the engine's bookkeeping a draft step within it, and the drafter's pass alone; None where
        # nothing is drafted by a pass (k 0, n-gram lookup) or Medusa's heads run in one
        one_s = (out["spec"]["draft_time_s"] / k if speculates(method, k) and method != "medusa"
                 and out["spec"]["draft_busy_time_s"] > 0 else None)
        out["spec"]["draft_cost_ratio"] = None if one_s is None else one_s / out["step_time_s"]
        out["spec"]["draft_pass_cost_ratio"] = (None if one_s is None else
                                                (one_s - out["spec"]["draft_bookkeeping_time_s"] / k) / out["step_time_s"])
        # as a sweep's column of that name: over the target's devices and a drafter's own while it drafts (qa364: the
        # top level's, plain decoding's, was read beside the sweep's)
        out["spec"]["tokens_per_s_per_device"] = out["spec"]["tokens_per_s"] / (
            dep.devices + (1 if draft_hw is not None and speculates(method, k) else 0))
        # qa231: what no setup of the engine runs (its refusals, said first among the warnings), beside its speedup;
        # at k 0, what it refuses of the best k it names (qa236: k 0's best k 3 was a refused layout, unsaid)
        out["spec"]["engine_refuses"] = [w for w in refused if speculates(method, k)]
        mismatch = tokenizer_mismatch(target, draft_spec) if method == "draft" and draft_spec is not None else ""
        if speculates(method, k) and mismatch:  # no engine runs it (qa380: priced bare)
            out["spec"]["engine_refuses"] += [w for w in out["warnings"] if mismatch in w][:1] or [mismatch]
        if not speculates(method, k) and out["spec"]["best_k"]:
            named = [w.replace("this point", f"the best k ({out['spec']['best_k']}) named here", 1)
                     for w in speculation_engine_notes(eng, method, 1, dep)]  # not its cap
            out["spec"]["engine_refuses"] = refused + named  # a layout plain decoding shares, then the method's own (qa475:
            out["warnings"] += named  # the layout's dropped at k 0)
            out["spec"]["engine_refuses"] += [w for w in out["warnings"] if mismatch and mismatch in w][:1]  # its drafter's
            # tokenizer, which the best k named would draft with (qa381's note: at k 0, unsaid among them)
        if target.moe is not None and speculates(method, k):  # the verify pass's q = k + 1 (a tree's nodes + 1) tokens a
            q = (tree_nodes if tree_nodes is not None else k) + 1  # sequence read more experts than a decode step's one
            out["spec"]["verify_experts_busiest_rank"] = _experts_a_pass(target, dep, batch, q, "tokens_a_pass")  # (qa119)
        searched = max(k, out["spec"]["best_k"] or 0)  # best k too: its search runs the module past its training
        out["warnings"] += [note.replace(f"k up to {searched} exceeds", _past(k, searched, k > target.mtp_modules, "exceed"), 1)
                            for note in [mtp_reuse_note(method, target, searched, out["spec"]["acceptance_source"] not in (None, "given"))]
                            if note]
        best_k = out["spec"]["best_k"]
        short_rates = acceptance is not None and tree_nodes is None and speculates(method, k) and k > len(acceptance)
        if short_rates:  # k itself runs past the rates given (and best k with it, said in the same line)
            reach = max(k, best_k or 0)
            out["warnings"] += [note.replace(f"k up to {reach} takes", _past(k, reach, True, "take"), 1)
                                for note in [acceptance_reach_note(method, [reach], acceptance)] if note]  # qa288: ''
                                # (a rate of 0 past which nothing is accepted) was said as an empty warning
        measured = acceptance_length is not None and best_k != k  # one rate from a length measured at k: both ways off
        one_alpha = alpha is not None and acceptance is None and tree_nodes is None
        past_rates = (acceptance is not None and tree_nodes is None and best_k is not None and best_k > len(acceptance)
                      and not short_rates)
        # best k 0: nothing to measure; at k 0 the best k named is the search's over the rates given (qa475: its
        # caveats said at k 2, not at k 0)
        if best_k and method != "none" and (measured or (best_k > k and (one_alpha or past_rates))):
            taken = (f"the acceptance length measured at k = {k} as one rate, alpha {out['spec']['alpha']:.3g}, at every draft position"
                     if acceptance_length is not None else f"alpha {alpha:g} at every draft position" if one_alpha else
                     (f"the last of the {len(acceptance)} rates given" if len(acceptance) > 1 else "the one rate given")
                     + f" ({acceptance[-1]:g}) at every draft position past {'them' if len(acceptance) > 1 else 'it'}")
            effect = ("best k and its gain run optimistic" if best_k > k else
                      f"the gain at k = {best_k} runs low (its positions accept more than that alpha)")
            remedy = (f"measure at k = {best_k} to compare" if acceptance_length is not None else
                      f"per-position rates ({'--acceptance' if where == 'command line' else 'acceptance'}) place it better"
                      if one_alpha else  # the flag to a command line, the keyword to a library caller (qa344)
                      f"rates measured to position {best_k} place it better")
            out["warnings"].append(f"best k {best_k} takes {taken}; acceptance falls with the position in practice, so "
                                   f"{effect}: {remedy}")
        if speculates(method, k) and optimistic(batch, eng.name) and deployable:
            out["warnings"].append(f"batch {batch:,} under {eng.name}: {OPTIMISTIC}{optimistic_found_for(eng)} "
                                   "(docs/ACCURACY.md), so read this speedup as an upper estimate")
        out["warnings"] += break_even_notes(out["spec"], eng, batch) if deployable else []
        cap, be = out.get("sequence_cap"), out["spec"].get("break_even_batch")
        if deployable and cap and be is not None and be > cap and batch <= cap:  # qa295: the table said it, the JSON not
            what = _break_even_named(be, bool(out["spec"].get("break_even_at_memory_limit")))
            out["warnings"].append(f"{what} is above the {cap:,} sequences {eng.name} runs at once by default (its "
                                   "max_num_seqs): it assumes the cap raised")
        if speculates(method, k) and deployable:  # qa156: a gain carried by host work paid once an iteration, here or at the break-even
            at = {batch: float(out["step_time_s"])}
            be = out["spec"]["break_even_batch"]
            if be is not None and be > batch and host_carries_gain(eng, dep.pp):
                at[be] = float(step_metrics(hw, target, be, 1, context, dep, engine=eng, shared_prefix=shared_prefix)["step_time_s"])
            limit = out["spec"]["break_even_at_memory_limit"]
            for b_at, plain_s in at.items():
                here = b_at == batch
                note = host_amortised_note(eng, b_at, float(host_time_s(eng, b_at, dep)), plain_s, "" if here else "there", hw,
                                           dep.pp)
                if note:  # qa157: at the memory limit the batch is the largest that fits, no break-even
                    # one note of the break-even where it also lies where gains run optimistic (qa364: two of one batch)
                    said = None if here else f"{_break_even_named(be, limit)} lies where"
                    at_be = next((i for i, w in enumerate(out["warnings"]) if said and w.startswith(said)), None)
                    if here or at_be is None:
                        out["warnings"].append(note if here else f"{_paying_up_to(be, limit)}: {note}")
                    else:
                        out["warnings"][at_be] = out["warnings"][at_be].removesuffix(": read it as an upper estimate") + f", and {note}"
                    break
        if acceptance_length is not None and not k_given:
            out["warnings"].append(f"acceptance length {acceptance_length:g} taken as measured at k = {k}, the default: give k, "
                                   "the draft length it was measured at (the alpha it implies depends on it)")
        if tree_nodes is not None and not k_given:  # qa207: a 25-node tree of depth 5 ran at 4, in silence
            out["warnings"].append(
                f"tree of {tree_nodes} node{'s' if tree_nodes != 1 else ''} at {'k = ' + str(k) + ' heads' if method == 'medusa' else 'depth k = ' + str(k)}, "
                f"the default ({K_DEFAULT}, at most the nodes): " + (
                    "give k, Medusa's heads (its one draft pass runs every head: its cost and the drafter's memory depend "
                    "on them)" if method == "medusa" else  # (qa402: said as a depth)
                    "give k, the tree's depth (each draft step widens the tree, so its draft time and the drafter's "
                    "passes depend on it)"))
        if not speculates(method, k) and (tree_nodes is not None or alpha is not None or acceptance is not None):
            out["warnings"].append("k 0: nothing is drafted, so the point is plain decoding; " + (
                "the tree given is not used (a tree's tau holds at its depth alone: no best k is searched)"
                if tree_nodes is not None else  # qa345: said to serve a search a tree never gets
                "the acceptance given (alpha or rates) serves only the best-k search"))  # qa288: said unused beside
            # the best k it moved
        if acceptance is not None and (speculates(method, k) or out["spec"]["best_k"]):  # every rate given: best k reads
            # past k (qa138), at k 0 too where it names one (qa475)
            out["warnings"] += [note for note in [rising_rates_note(acceptance)] if note]
        if out["spec"]["acceptance_source"] not in (None, "given") and tree_nodes is None and speculates(method, k):
            out["warnings"] += [note for note in [default_rates_note(method, target.name, draft_vocab)] if note]
        spec = out["spec"]
        drafting = draft_hw is not None and speculates(method, k)  # the drafter's own device is paid while it drafts
        draft_price = (draft_hw.price_usd_per_hour if drafting else 0.0) if draft_hw is not None else None
        spec["draft_price_usd_per_hour"] = None if draft_price is None else float(draft_price)
        usd_per_hour = float(rent_usd_per_hour(hw.price_usd_per_hour, dep.devices,
                                               draft_hw.price_usd_per_hour if draft_hw is not None else 0.0, drafting))
        spec["cost_usd_per_million_tokens"] = (usd_per_million_tokens(usd_per_hour, spec["tokens_per_s"])
                                               if np.isfinite(usd_per_hour) else None)
        drafter_usable = spec["drafter_usable_memory_bytes"]  # the engine's share of the drafter's own device
        drafter_side = draft_hw is not None and spec["drafter_memory_bytes"] > drafter_usable
        if drafter_side:  # the drafter's own device is what runs out: name it and its figures
            out["warnings"].insert(0, f"the drafter does not fit on {draft_hw.name}: its weights and KV cache need "
                                   f"{_gb(spec['drafter_memory_bytes'])} of {_gb(drafter_usable)} usable "
                                   f"(it holds the drafter for {spec['drafter_device_max_batch']:,} sequences; the target's "
                                   f"devices {spec['target_max_batch']:,})")
        elif not spec["fits_in_memory"]:
            # a drafter on the target's devices is inside their usable memory: a share of the free memory moves with it
            usable = drafter_usable if draft_hw is None else out["usable_memory_bytes"]
            with_drafter = (f"{_gb(spec['memory_needed_bytes'])} per device of {_gb(usable)} "
                            f"usable (max batch {spec['max_batch']:,} at this context)")
            verified = f"N + 1 = {tree_nodes + 1}" if tree_nodes is not None else "k + 1"  # a tree's (qa346)
            what = (f"with the KV of the {verified} tokens a pass verifies" if draft_hw is not None or method == "ngram" else
                    "with its drafter")  # (qa315: a drafter on its own device was blamed for the target's memory)
            if memory_warning is None:
                out["warnings"].insert(0, f"{what}, this point does not fit in memory: needs {with_drafter}")  # first
                # (qa101: after the batch and fit notes, where the README says a point that does not fit says so first)
            else:
                out["warnings"][memory_warning] = (f"does not fit in memory: {what} it needs {with_drafter}; "
                                                   f"plain decoding {_gb(out['memory_needed_bytes'])} (max batch {out['max_batch']:,})")
    if prompt is not None:
        out["prompt"] = prompt
        out["ttft_s"] = float(ttft_s(hw, target, prompt, dep, eng, shared_prefix))  # a cached prefix not prefilled again
        from roofline.engine import cached_prefix_tokens

        out["prompt_cached_tokens"] = int(cached_prefix_tokens(eng, prompt, shared_prefix))  # (qa347: 2,000 prefilled whole)
        alone = capacity(hw, target, 1, prompt + (output_len or 0), dep, shared_prefix=0, engine=eng)  # one request
        if not bool(alone["fits_in_memory"]):  # qa246: a 120,000-token prompt on an L4 priced a TTFT of 65 s, unsaid
            tokens = f"{prompt:,} prompt" + (f" and {output_len:,} output tokens" if output_len else " tokens")
            out["warnings"].append(f"a request of {tokens} does not fit in memory even alone: its KV cache and the "
                                   f"weights need {_gb(float(alone['memory_needed_bytes']))} per device of "
                                   f"{_gb(float(alone['usable_memory_bytes']))} usable, so no engine runs it; the "
                                   "time to first token and the serving terms are priced as asked")
        if output_len is None and prompt > context:  # qa217: a 5,000-token prompt decoded at a context of 1,024, unsaid
            out["warnings"].append(f"prompt {prompt:,} is longer than the context {context:,} the step is priced at: a "
                                   "sequence decodes after its prompt, so its context is at least the prompt's length "
                                   f"(give context {prompt:,} or more: the prompt and the tokens generated so far)")
        from roofline.speculation import drafter_ttft_s

        # every key with a prompt (qa92: a notebook indexing them across methods met a KeyError): n-gram's drafter (a
        # lookup) and Medusa's heads (on the last hidden state) have no prefill of their own (0 s); plain decoding has
        # no speculation's TTFT (None)
        # an engine whose prefix cache is off while it speculates prefills it whole there (not at k = 0: qa353)
        spec_eng = speculating_engine(eng) if speculates(method, k) else eng
        draft_s = (drafter_ttft_s(method, target, draft_spec, draft_vocab, hw, draft_hw, dep, spec_eng, prompt, shared_prefix)
                   if speculates(method, k) else None)
        out["draft_prefill_s"] = None if not speculates(method, k) else 0.0 if draft_s is None else float(draft_s)
        spec_ttft_s = (float(ttft_s(hw, target, prompt, dep, spec_eng, shared_prefix)) if spec_eng is not eng
                       else out["ttft_s"])
        out["ttft_with_speculation_s"] = None if out["draft_prefill_s"] is None else spec_ttft_s + out["draft_prefill_s"]
        if "spec" in out and spec_eng is not eng:  # the prompt's tokens not prefilled while speculating (none here)
            out["spec"]["prompt_cached_tokens"] = int(cached_prefix_tokens(spec_eng, prompt, shared_prefix))
        if spec_eng is not eng and shared_prefix and speculates(method, k):
            out["warnings"].append(f"{eng.name} turns its prefix cache off while it speculates (prefix_cached_speculating "
                                   f"false): with speculation the shared prefix of {shared_prefix:,} tokens is prefilled "
                                   "with every prompt and held and read by each sequence (the memory, time to first token "
                                   "and serving figures of `spec`), without it held once and not prefilled again")
    if output_len is not None:
        _serving_terms(out, hw, target, dep, eng, batch, prompt, output_len, method, k, tree_nodes, shared_prefix,
                       (draft_spec, draft_vocab, draft_hw), spec_ttft_s)
    if deployable:  # last: measured misses of the engine that match this point (the profile's known_misses)
        out["warnings"] += known_miss_notes(eng, hw, target, method if speculates(method, k) else "none", batch,
                                            layout=dep.describe())
    return out


def _request_note(target: ModelSpec, prompt: int, output_len: int) -> str:
    """'a request of 130,000 prompt and 5,000 output tokens (135,000) is past llama-3.1-70b's 131,072 trained positions
    ...' where the two together are; '' else. vLLM's OpenAI server refuses such a request ("This model's maximum context
    length is ... However, you requested ... tokens"), its prompt and max_tokens counted together."""
    if not contexts_past(target, prompt + output_len):
        return ""
    return (f"a request of {prompt:,} prompt and {output_len:,} output tokens ({prompt + output_len:,}) is past "
            f"{target.name}'s {target.max_context_tokens:,} trained positions (max_context_tokens): vLLM's server refuses "
            "a request whose prompt and max_tokens together exceed its max_model_len; priced as asked")


def _serving_terms(out: dict, hw, target, dep, eng, batch: int, prompt: int, output_len: int, method, k: int, tree_nodes,
                   shared_prefix: int = 0, drafter: tuple = (None, None, None), spec_prefill_s: float | None = None) -> None:
    """Add what a serving benchmark with `batch` requests in flight reads per output token (qa203: a fit to one's own
    benchmark rows matched them within 5%, and predict at their batch gave the bare step, 30% faster):

        t_serving = t_token + (B - 1) t_stall / O       (t_token: the step, or speculating the iteration / tau;
                                                         t_stall: engine.arrival_stall_s of a prompt of P tokens, and
                                                         speculating the drafter model's own prefill stall beside it,
                                                         speculation.drafter_prefill_stall_s of `drafter`: its model,
                                                         draft vocabulary and device)

    as measurements.predict_rowset prices a measured time per output token (`spec_prefill_s`: the target's prefill of
    the prompt while it speculates, predict's, under serving.speculating_engine); and the cost of a token at that pace,
    the devices' rent over the time a token takes them, every request's prefill its own included (qa296: at batch 1 the
    serving cost was the decode cost):

        cost_serving = cost * (t_token + B t_stall / O) / t_token"""
    from roofline.engine import arrival_stall_s, serving_terms
    from roofline.speculation import drafter_prefill_stall_s

    def serving(part: dict, per_token_s: float, pass_s: float, verify_tokens: int, engine, prefill_s: float,
                drafter_s: float = 0.0) -> None:
        """The part's (the plain point's, or spec's) prefill stall and engine.serving_terms: time per output token, the
        first token at `batch` in flight (qa342: TTFT said alone, the same at every batch) and the cost at that pace
        (None beside a cost of None: qa294, qa295, qa296); under `engine` (spec's: serving.speculating_engine) and its
        lone prefill `prefill_s`, the drafter model's own prefill stall `drafter_s` added (spec's)."""
        stall = float(arrival_stall_s(hw, target, prompt, batch, dep, engine, verify_tokens, shared_prefix)) + drafter_s
        terms = serving_terms(per_token_s, pass_s, stall, prefill_s, batch, output_len, part.get("cost_usd_per_million_tokens"))
        part.update(prefill_stall_s=stall, serving_time_per_output_token_s=float(terms["time_per_output_token_s"]),
                    serving_ttft_s=float(terms["ttft_s"]), serving_cost_usd_per_million_tokens=(
                        float(terms["cost_usd_per_million_tokens"]) if "cost_usd_per_million_tokens" in terms else None))

    out["output_len"] = output_len
    out["prefill_mixed"] = bool(eng.mixed_prefill)  # how an arriving prefill meets the others' decode (qa349: said as mixed
    #   under every engine)
    serving(out, out["step_time_s"], out["step_time_s"], 1, eng, out["ttft_s"])
    mean = request_context(_CALLER.get(), prompt, output_len, sets_context=False)  # (measurements' rows are priced at it)
    if far_from_request(out["context"], mean):  # qa204: a prompt of 8,000 priced at the default context of 1,024
        out["warnings"].append(f"serving time per output token at context {out['context']:,}: a request of {prompt:,} prompt "
                               f"and {output_len:,} output tokens decodes at {mean:,} on average (leave "
                               f"{'--context' if _CALLER.get() == 'command line' else 'context'} out to price it at "
                               f"{mean:,}, a benchmark's mean context)")  # qa347: 'as accuracy does' meant nothing
    if "spec" in out:
        spec = out["spec"]
        verify = tree_nodes + 1 if tree_nodes is not None and k > 0 else k + 1
        spec_eng = speculating_engine(eng) if k > 0 else eng  # (not at k = 0, plain decoding: qa353)
        spec_prefill_s = out["ttft_s"] if spec_prefill_s is None else spec_prefill_s  # the target's, speculating
        draft_spec, draft_vocab, draft_hw = drafter
        draft_stall = (drafter_prefill_stall_s(method, target, draft_spec, draft_vocab, hw, draft_hw, dep, spec_eng, prompt,
                                               batch, shared_prefix) if k > 0 else None)  # it stalls the batch too
        draft_s = out.get("draft_prefill_s") or 0.0  # a drafter model's own prefill of the prompt, before its first draft:
        # at batch 1 after the target's, above it in the stall (qa354: added to a stall that held it)
        serving(spec, spec["iteration_time_s"] / spec["tau"], spec["iteration_time_s"], verify, spec_eng,
                spec_prefill_s + draft_s, float(draft_stall) if draft_stall is not None else 0.0)
        spec["prefill_stall_drafter_s"] = float(draft_stall) if draft_stall is not None else None
        if k == 0:
            spec["serving_ttft_s"] = out["serving_ttft_s"]
    note = _queueing_note(out, batch, output_len)
    if note:
        out["warnings"].append(note)


def _queueing_note(out: dict, batch: int, output_len: int) -> str:
    """Where the arriving prompts' prefills take more than PREFILL_SHARE_QUEUES of the device's time at `batch` in flight,
    (B t_stall / O) / (t_token + B t_stall / O), plain or speculating, that a new prompt often waits behind another's, so
    that the serving TTFT (one stall) is a lower bound (qa354: unsaid where prefills took 60% of a RAG service's time);
    '' else."""
    def share(part: dict, per_token_s: float) -> float:
        prefills = batch * part["prefill_stall_s"] / output_len
        return prefills / (per_token_s + prefills)

    plain = share(out, out["step_time_s"])
    spec = out.get("spec")
    speculating = (share(spec, spec["iteration_time_s"] / spec["tau"])
                   if spec and spec.get("prefill_stall_s") is not None and spec["k"] > 0 else None)
    if batch <= 1 or max(plain, speculating or 0.0) <= PREFILL_SHARE_QUEUES:
        return ""
    return (f"at {batch:,} in flight the arriving prompts' prefills take {100 * plain:.0f}% of the device's time"
            + (f" ({100 * speculating:.0f}% with speculation)" if speculating is not None else "")
            + ": a new prompt often waits behind another's prefill, which the serving TTFT (its own stall after one step) "
            "leaves out, so read it as a lower bound")


def sweep(scenario: str | dict | Path, profiles: tuple[str | Path, ...] = ()) -> pd.DataFrame:
    """A scenario (built-in name, YAML path, or a mapping in the scenario format of docs/PROFILES.md)
    swept into one tidy DataFrame, one row per point.

    In a mapping, axes may be numpy arrays; hardware, draft_hardware, model, draft and engine may be spec objects
    (HardwareSpec, ModelSpec, ServingEngine) or paths as well as names, and hardware, draft_hardware, model and engine
    lists of them (draft is one model, as in a scenario file).
    """
    try:
        return _sweep(scenario, profiles)
    except RooflineError as exc:  # every error said as the call's (qa189: a spec object's check, a profile's file)
        if str(exc).startswith("sweep: "):
            raise
        raise said_as(exc, f"sweep: {exc}") from None


def _sweep(scenario, profiles) -> pd.DataFrame:
    """sweep's work; its errors said by sweep."""
    from roofline.grid import load_configs, run_sweep, scenario_meta
    from roofline.scenario import load_scenario, scenario_from_dict

    if not isinstance(scenario, (str, Path, dict)):
        raise field_error("sweep", "scenario", "a built-in scenario name, a YAML path or a mapping", scenario)
    folders = _folders(profiles, "sweep")
    with warnings.catch_warnings(record=True) as held:  # said after, each named with the scenario, as the CLI says them
        warnings.simplefilter("always", RooflineWarning)
        if isinstance(scenario, dict):
            data, specs, named = _names_for_specs(scenario)
            _check_names_against_specs(specs, named, folders)
            made_for_a_device = [spec for spec in specs.values() if isinstance(spec, ServingEngine) and spec.general is not None]
            for (type_name, _name), spec in specs.items():
                if any(spec is other for other in made_for_a_device):  # compared below, on each device it runs on
                    continue
                note = _changed_spec_note({"HardwareSpec": "hardware", "ModelSpec": "model", "ServingEngine": "engine"}[type_name],
                                          spec, folders)
                if note:
                    warn(note)
            sc = scenario_from_dict(data, "sweep")
        else:
            specs, made_for_a_device = {}, []
            try:
                sc = load_scenario(str(scenario), folders)
            except RooflineError as exc:  # 'unknown scenario ...', 'PATH: line 3: ...': said as the call's (qa185)
                raise said_as(exc, f"sweep: scenario: {exc}") from None
        configs = load_configs(sc, folders, specs)
        devices = list({id(cfg.hw): cfg.hw for cfg in configs}.values())
        notes = [note for spec in made_for_a_device for hw in devices  # an engine made by for_hardware for another device
                 for note in [_changed_spec_note("engine", spec, folders, hw)] if note]
        notes += [note for spec in specs.values() for hw in devices for note in [_shadowed_note(spec, hw, folders)] if note]
        for note in dict.fromkeys(notes):
            warn(note)
    label = sc.path or "sweep"  # the file, or the call for a mapping: as the sweep's own warnings name it (qa385)
    said_of_specs: set[tuple] = set()  # a spec object's warning and its file's, read again by name: one (qa411)
    for w in held:
        text = str(w.message)
        where, _, fact = text.partition(": ")
        if issubclass(w.category, RooflineWarning) and (where.startswith(("hardware spec '", "model spec '", "engine spec '"))
                                                         or where.endswith((".yaml", ".yml"))):
            name = where.split("'")[1] if where.endswith("'") else Path(where).stem  # the profile, by its name
            if (name, fact) in said_of_specs:
                continue
            said_of_specs.add((name, fact))
        if issubclass(w.category, RooflineWarning) and not text.startswith(f"{label}: "):
            warnings.warn(RooflineWarning(f"{label}: {text}"), stacklevel=3)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    df = run_sweep(sc, configs, extra_dirs=folders)
    meta = scenario_meta(sc, configs, len(df))  # what a sweep's scenario.json holds: cheapest reads it
    kinds = {"HardwareSpec": "hardware", "ModelSpec": "model", "ServingEngine": "engine"}
    for (type_name, name), spec in specs.items():  # a spec object's file only where it still describes it, as predict's
        files = meta["profile_files"][kinds[type_name]]  # profile_files (qa411: a changed copy named its source's file)
        if name in files:
            files[name] = _source_file(spec, spec, folders)
    df.attrs["scenario"] = meta
    return df


def cheapest(table: pd.DataFrame, min_tokens_per_user: float | None = None, *, serving: bool = False,
             between_batches: bool = True, users: int | None = None, profiles: tuple[str | Path, ...] = ()) -> dict:
    """`roofline cheapest` of a sweep's table (sweep's DataFrame, or a results table read back with its scenario.json
    as `table.attrs['scenario']`): the cost frontier of plain and speculative rows that fit, are priced and that an
    engine runs (ideal's rows left out beside serving engines; layouts vLLM and SGLang refuse to load, an engine on a
    device it does not run on, a draft model of another tokenizer left out), the cheapest row of each kind at least
    `min_tokens_per_user` tokens/s per user fast, and the batches between the swept ones that reach it cheaper, swept
    now (`between_batches` false: the swept batches alone, as `roofline cheapest --where batch=B` prices them).
    `serving`: ranked at a serving benchmark's pace (the table of a scenario with prompt and output_len). `users` (with
    a speed): also the cheapest fleet of each kind for that many users at once, as `roofline cheapest --users` gives it.

    Returns {'frontier': DataFrame, 'picks': {'plain': row or None, 'speculation': row or None} (None without a speed),
    'fleet': {kind: {'row', 'replicas', 'devices', 'usd_per_hour', 'pick': the per-token pick's own for the same users}
    or None} (None without users),
    'refined': {kind: {'row': a point between the swept batches or None, 'place', 'notes'}} (both kinds), 'notes': the
    lines under cheapest's table (a kind no row reaches among them), 'table': the rows ranked, 'refused': the layouts, methods and drafts left out (what no engine
    runs), 'unchecked': the profiles not on the search path to check them by}; rows are pandas Series of the table's
    columns."""
    from roofline.frontier import KINDS, answer, check_table, serving_view

    if not isinstance(table, pd.DataFrame):
        raise field_error("cheapest", "table", "a pandas DataFrame (roofline.sweep's)", type(table).__name__)
    speed = None if min_tokens_per_user is None else _scalar_float(min_tokens_per_user, "min_tokens_per_user", "cheapest")
    if speed is not None and not (speed >= 0 and math.isfinite(speed)):  # as the command's --min-tokens-per-user (qa392:
        raise field_error("cheapest", "min_tokens_per_user", "a finite number of tokens/s per user of at least 0",  # 0 refused
                          min_tokens_per_user)  # here alone; qa411: inf taken here alone)
    serving = check_flag("cheapest", "serving", serving)  # true or false, as predict's flags (qa411: 'yes' read as true)
    between_batches = check_flag("cheapest", "between_batches", between_batches)
    if users is not None:
        users = _scalar_int(users, "users", 1, USERS_MAX, "cheapest")
        if speed is None:  # as the command's --users (a fleet is sized for a speed)
            raise field_error("cheapest", "users", "a min_tokens_per_user beside it (the speed each user gets)", MISSING)
    folders = _folders(profiles, "cheapest")
    meta = table.attrs.get("scenario")
    check_table(table, "cheapest: table")  # the command's check of its table (qa390: KeyError 'model' from deep inside)
    if table.empty:  # as the command refuses it (qa411: picks None and no note)
        raise RooflineError("cheapest: table: expected a sweep results table with at least one row, found none")
    try:
        df = serving_view(table, "cheapest: table", "serving=True") if serving else table
        got = answer(df, speed, meta, folders, serving, refine_batches=between_batches, users=users)
    except RooflineError as exc:
        if str(exc).startswith("cheapest: "):
            raise
        raise said_as(exc, f"cheapest: {exc}") from None
    # every kind keyed, whether or not a point between swept batches was computed (qa392: a KeyError on 'plain')
    got["refined"] = {kind: got["refined"].get(kind) or {"row": None, "place": "", "notes": []} for kind in KINDS}
    if speed is not None:  # the command's line for a kind no row reaches, said in the notes (qa392: picks None, unsaid)
        for kind, row in (got["picks"] or {}).items():
            rows = got["frontier"][got["frontier"]["decoding"] == kind]
            if row is None and got["refined"][kind]["row"] is None and len(rows):
                got["notes"].append(f"{kind}: no row that fits reaches {speed:g} tokens/s per user (the fastest: "
                                    f"{rows['tokens_per_s_per_user'].max():.4g})")
    return got


SPEC_KEYS = {"hardware": HardwareSpec, "draft_hardware": HardwareSpec, "model": ModelSpec, "draft": ModelSpec,
             "engine": ServingEngine}  # the keys of a scenario mapping that name profiles, and the spec type of each


def _names_for_specs(data: dict) -> tuple[dict, dict, dict]:
    """Replace spec objects by their names (remembering the objects), numpy values by Python's (_as_file_values).

    Returns (mapping, specs, named): specs maps (type name, profile name) to the spec object, named maps
    (type name, profile name) to the first key that gave that name as a string (`sweep` checks that such a name
    loads the same profile as the object given under it)."""
    specs: dict = {}
    named: dict = {}

    def name_of(key: str, value):
        kind = SPEC_KEYS[key]
        if isinstance(value, (HardwareSpec, ModelSpec, ServingEngine)):
            if not isinstance(value, kind):
                _check_profile_arg("sweep", key, value, kind)
            {HardwareSpec: check_hardware_spec, ModelSpec: check_model_spec, ServingEngine: check_engine_spec}[kind](value)
            slot = (kind.__name__, value.name)
            if differing_fields(specs.setdefault(slot, value), value):  # every field a number reads
                raise field_error("sweep", key, f"{slot[0]} objects of distinct names (dataclasses.replace(spec, name=...))",
                                  f"two different ones named {value.name!r}")
            return value.name
        if isinstance(value, str):
            named.setdefault((kind.__name__, value), key)
        return value

    out = {}
    for key, value in _as_file_values(data).items():
        if key in SPEC_KEYS:
            if isinstance(value, list):
                names = [name_of(key, v) for v in value]
                texts = [n for n in names if isinstance(n, str)]  # (qa411: pd.NA's == raised; the scenario refuses it)
                repeated = next((n for n in texts if texts.count(n) > 1), None)
                if repeated is not None and any(getattr(v, "name", None) == repeated for v in value if not isinstance(v, str)):
                    raise field_error("sweep", key, "each profile once (a spec object beside its own name is the same "
                                      "profile twice; a changed one takes a name of its own: dataclasses.replace(spec, "
                                      "name=...))", f"{repeated!r} as a spec object and again")
                out[key] = names
            else:
                out[key] = name_of(key, value)
        else:
            out[key] = value
    return out, specs, named


def _check_names_against_specs(specs: dict, named: dict, profiles: tuple) -> None:
    """A name given as a string where a spec object of that name is given too (`hardware="h100-sxm"` beside
    `draft_hardware=<a changed h100-sxm>`) must load the same profile: else one label would stand for two devices."""
    loaders = {kind.__name__: load for kind, load in SPEC_LOADERS.items()}
    for slot, key in named.items():
        if slot in specs:
            try:
                same = not differing_fields(loaders[slot[0]](slot[1], profiles), specs[slot])
            except RooflineError:  # no profile of that name: the string can only mean the object
                same = True
            if not same:
                raise field_error("sweep", key, f"one profile per name ({slot[1]!r} here is a name, and elsewhere a changed "
                                  "spec object of that name: pass the object in both places, or rename it with "
                                  "dataclasses.replace(spec, name=...))", slot[1])
