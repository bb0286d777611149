"""Fitting a serving engine's physical parameters to measurements: `roofline fit`.

Bounded least squares (scipy.optimize.least_squares, trust-region reflective) over the engine terms of
serving.py, on the `split = fit` rows of a measurements table (roofline.measurements):

    minimise  sum_rows rho( ln(predicted_i(theta) / measured_i) )  +  sum_params rho( w * (u_j - u_j,start) )
    subject to  low_j <= theta_j <= high_j                        (PARAMETERS: physical bounds)

rho is the robust loss (`--loss`, LOSSES) applied to every residual, the prior's included: cauchy (the
default) rho(r) = f^2 ln(1 + r^2 / f^2) with f = loss_scale (0.15: a row missed by more than about 15%
counts less than its square, so one source that disagrees with the rest does not pull the fit), soft_l1, or
linear rho(r) = r^2 (plain least squares).

Each parameter is searched on a unit scale u in [0, 1]: logarithmic between its bounds when the lower
bound is positive (kernel latency, collective latencies, the two efficiencies, overlap exponent), linear
from 0 otherwise (host and speculation times). The second sum is a weak pull (w = PRIOR_WEIGHT) toward the start value, the
sourced value of the profile (or, after a fit, the sourced value the `fitted:` block kept): a parameter
the rows do not determine stays where its source put it instead of drifting along a flat valley; after the search,
one the profile's own earlier fit determined on its rows takes that fit's value instead (fitted.kept_from_earlier_fit),
where moving every such parameter there leaves each row within 0.1%. A deviation of the whole bound range costs as
much as a row missed by a factor e^w.

Parameters named in `fixed` (`roofline fit --fix NAME`) stay at their start value and are left out of the
search: a quantity measured directly by a microbenchmark (a collective's latency) is not inferred again.

Rows: those of the engine named (`engine` column naming vllm / sglang / TensorRT-LLM), or all fit rows,
every one predicted with the candidate engine, when fewer than MIN_ENGINE_ROWS exist. Rows the model
cannot predict (a draft model without a measured acceptance) are left out and named.
Hardware-family overrides of the profile (`overrides:`, e.g. HIP graphs on AMD) stay as written: they
replace the fitted value on the hardware they match, so those rows do not inform that parameter.

Per family (`roofline fit --per-family NAME`): the engines pick kernels per GPU architecture (SGLang's
attention and MoE backends per SM version, sgl-project/sglang issue 5064; HIP graphs and AITER kernels on
AMD), so a parameter named in `per_family` gets one value per hardware family of FAMILIES with at least
MIN_FAMILY_ROWS usable rows, written as `overrides:` entries; the profile's own value serves NVIDIA Hopper
and every family with fewer rows. Each family value is pulled toward the profile's own fitted value
(partial pooling) instead of toward its start:

    + sum_(param, family) rho( w * (u_param,family - u_param) )
"""

from __future__ import annotations

import datetime as _dt
import fnmatch
import itertools
import math
import re
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from roofline.errors import RooflineError, warn
from roofline.measurements import (
    ENGINE_SLOTS,
    check_plausible,
    default_measurements_path,
    engine_slot,
    load_measurements,
    memory_capped,
    memory_capped_text,
    name_error,
    predict_rowset,
    prepare_rows,
    repeated_rows,
    row_fingerprints,
    warn_engine_shadows,
)
from roofline.outputs import progress_bar, progress_done
from roofline.profiles import PROFILE_SUFFIXES
from roofline.serving import (
    BEHAVIOUR_FIELDS,
    FAMILIES,
    FITTED_UNITS,
    IDEAL,
    OTHER_FAMILY,
    ServingEngine,
    engine_from_dict,
    family_label,
    family_of,
    load_engine,
    model_class,
)
from roofline.units import format_count, format_seconds, spoken_list
from roofline.yamlio import read_text as _read_text

MIN_ENGINE_ROWS = 5  # with the prior (PRIOR_WEIGHT), parameters a few rows cannot determine stay at their sources
MIN_FAMILY_ROWS = 5  # a hardware family gets its own value of a --per-family parameter from this many usable rows
PER_FAMILY = ("kernel_latency", "quantised_moe_efficiency", "weight_only_efficiency")  # the kernels' own parameters: may differ per family
LOSSES = ("cauchy", "soft_l1", "linear")
PRIOR_WEIGHT = 0.1
SCALE_S = {"us": FITTED_UNITS["us"], "ms": FITTED_UNITS["ms"], "": 1.0}  # seconds per display unit ("" a plain number)


@dataclass(frozen=True)
class Parameter:
    """One fitted engine field: its YAML key, meaning, physical bounds (SI) and display unit."""

    field: str
    key: str
    meaning: str
    low: float
    high: float
    unit: str  # us | ms | "" (a plain number)

    def to_unit(self, value: float) -> float:
        return value / SCALE_S[self.unit]

    def bound_at(self, value: float) -> str:
        """'lower' or 'upper' where `value` (SI) is at that bound as the fit counts it (within AT_BOUND_U of its range,
        on the scale it searches: fitted.bounds_hit; qa490: 99.7 us of a 100 us bound, or 0.502 of a 0.5 floor, was
        said at none), else ''."""
        u = float(self.to_u(value))
        return "lower" if u <= AT_BOUND_U else "upper" if u >= 1 - AT_BOUND_U else ""

    def on_bound(self, value: float) -> bool:
        """Whether `value` (SI) is a bound itself (to 0.1%), not only near one."""
        return any(math.isclose(value, bound, rel_tol=1e-3, abs_tol=1e-12) for bound in (self.low, self.high))

    def to_u(self, value):
        value = np.clip(value, self.low, self.high)
        if self.low > 0:
            return (np.log(value) - math.log(self.low)) / (math.log(self.high) - math.log(self.low))
        return value / self.high

    def from_u(self, u):
        u = np.clip(u, 0.0, 1.0)
        if self.low > 0:
            return float(np.exp(math.log(self.low) + u * (math.log(self.high) - math.log(self.low))))
        return float(u * self.high)


# a fitted parameter within this share of its range (u, 0-1) of a bound is at it: trust-region least squares keeps its
# iterates strictly inside the bounds, and a prior toward the start holds one wanted past a bound just short of it
# (qa359: 99.7 us of a 100 us bound, 109 us with the bound raised, said at no bound)
AT_BOUND_U = 0.01

PARAMETERS = (
    Parameter("kernel_latency_s", "kernel_latency", "fixed time of one GPU kernel inside a CUDA/HIP graph (launch, ramp-up, tail)", 0.5e-6, 20e-6, "us"),
    Parameter("host_per_step_s", "host_per_step", "CPU scheduling, input preparation and sampling per decode step", 0.0, 5e-3, "ms"),
    Parameter("host_per_sequence_s", "host_per_sequence", "host work per sequence of the batch per step", 0.0, 100e-6, "us"),
    Parameter("allreduce_latency_s", "allreduce_latency", "small-message all-reduce latency (custom one-shot / NCCL)", 1e-6, 50e-6, "us"),
    Parameter("all_to_all_latency_s", "all_to_all_latency", "small-message latency of DeepEP's MoE dispatch and combine, each (per_rank, per_pair)", 5e-6, 500e-6, "us"),
    Parameter("spec_per_draft_step_s", "spec_per_draft_step", "launch and draft sampling per draft step", 0.0, 2e-3, "us"),
    Parameter("spec_per_iteration_s", "spec_per_iteration", "rejection sampling and KV bookkeeping per speculative iteration", 0.0, 5e-3, "us"),
    Parameter("spec_per_iteration_per_sequence_s", "spec_per_iteration_per_sequence", "speculative bookkeeping per sequence per iteration", 0.0, 100e-6, "us"),
    # 0.5 at least: the share multiplies both ceilings, so below half an fp8 expert (half a bf16 one's bytes) would take
    # longer than the bf16 expert itself; a quantised fused-MoE kernel is never slower than the 16-bit one (ACCURACY.md)
    Parameter("quantised_moe_efficiency", "quantised_moe_efficiency", "share of the ceilings the engine's routed-expert kernels reach in fp8 / fp4 / int8 (quantised fused MoE; the lower of it and weight_only_efficiency where they dequantise)", 0.5, 1.0, ""),
    Parameter("weight_only_efficiency", "weight_only_efficiency", "share of the ceilings the engine's weight-only GEMMs reach (w8a16 / int4 weights dequantised in the GEMM)", 0.05, 1.0, ""),
    # p = 1 is the physical limit: compute and memory time add (no overlap); p -> infinity is the max form
    Parameter("overlap_exponent", "overlap_exponent", "p of the smooth roofline (t_c^p + t_m^p)^(1/p) near the ridge point", 1.0, 20.0, ""),
)
BY_FIELD = {p.field: p for p in PARAMETERS}
BY_KEY = {p.key: p for p in PARAMETERS}


def sourced_start(engine: ServingEngine, default_overlap_exponent: float = 3.0) -> dict[str, float]:
    """The start (and prior) value of each parameter in SI units: the sourced value a `fitted:` block kept
    (in the parameter's display unit) where a fit already rewrote the profile and the value is still the fit's (in
    `fitted.parameters`), else the profile's own value (one set by hand since, `engines new --set`, which takes it out
    of that list: qa93's fixed 80 us started from the copied profile's 10 us; an unset overlap exponent starts at 3)."""
    kept = (engine.fitted or {}).get("start") or {}  # numbers >= 0, checked where the profile is read (check_fitted)
    units = (engine.fitted or {}).get("start_units") or {}
    still = (engine.fitted or {}).get("parameters")
    out = {}
    for p in PARAMETERS:
        value = kept.get(p.key) if still is None or p.key in still else None
        if value is not None:
            out[p.field] = float(value) * FITTED_UNITS[units.get(p.key, p.unit or "number")]
        else:
            own = getattr(engine, p.field)
            out[p.field] = float(default_overlap_exponent if own is None else own)
    return out


def fittable_engine(engine: str, profiles: tuple = ()) -> ServingEngine:
    """The engine profile `engine` to fit; `ideal` is refused: it is the pure roofline bound, which no measurement
    enters (a fit would give it engine costs), so a fit of it would no longer be what its name says."""
    base = load_engine(engine, tuple(profiles))
    warn_engine_shadows(engine, profiles)  # a user file fitted in a built-in's place is said, as predict says it
    if base.name == "ideal":
        raise RooflineError("--engine: expected an engine with costs to fit (vllm, sglang, trtllm, or a copy of ideal "
                            "under another name), found ideal: the pure roofline bound, which no measurement enters")
    return base


# the first comment line of a profile `roofline engines new` made, and of one `roofline fit --out` wrote: what it came from
_MADE_FROM = (re.compile(r"^# .*: made with `roofline engines new \S+ --from (\S+?)[` ]"),
              re.compile(r"^# .*: written by `roofline fit --engine (\S+?)`"))
LINEAGE = re.compile(r"^# descends from the (\S+) profile: ")  # lineage_comment's line, which names the slot itself


def lineage_comment(slot: str) -> str:
    """The comment line a copy (`engines new --from`) or a fitted profile (`fit --out`) carries when it descends from
    engine slot `slot`, so that copied_from finds the slot even once the profiles between are gone; '' for none."""
    if slot not in ENGINE_SLOTS:
        return ""
    return f"# descends from the {slot} profile: `roofline fit` takes the {slot} rows of a measurements file for it\n"


def copied_from(engine: ServingEngine, profiles: tuple = (), depth: int = 0) -> str:
    """The engine slot (measurements.ENGINE_SLOTS) profile `engine` descends from, or '': the one a lineage_comment line
    of its file's opening comment names outright (a copy of a copy whose middle profile was removed since); else the
    profile `engines new --from` copied (or `fit --engine` fitted), as the comment says, where the copy's costs_from
    is the one it inherited from that profile (qa203: a copy of vllm-v0, costs_from vllm, fitted vLLM V1's rows); else
    the profile its costs_from names (one set on the copy itself names what it is now: qa198); followed back through
    copies of copies (qa187: `engines new my-eng --from vllm` was fitted to every engine's rows of a file, its name
    naming none)."""
    if engine.name in ENGINE_SLOTS:
        return engine.name
    if depth > 8 or not engine.path:
        return ""
    try:
        lines = _read_text(Path(engine.path)).splitlines()
    except (RooflineError, OSError):
        lines = []
    header = list(itertools.takewhile(lambda line: line.startswith("#"), lines))  # the opening comment
    said = next((m.group(1) for m in map(LINEAGE.match, header) if m and m.group(1) in ENGINE_SLOTS), None)
    if said:  # the slot named outright wins over the profile the copy was made from
        return said
    made = next((m.group(1) for line in header for m in (rx.match(line) for rx in _MADE_FROM) if m), None)
    parent = _loaded(made, profiles) if made and engine.costs_from else None  # (the path load_engine found it at)
    if parent is not None and parent.path != engine.path and parent.costs_from == engine.costs_from:
        return copied_from(parent, profiles, depth + 1)  # costs_from as its source had it: the source's engine
    source = engine.costs_from or made  # (qa189: costs_from is the path load_engine found, not another of that name)
    if not source:
        return ""
    if source.lower() in ENGINE_SLOTS:
        return source.lower()
    parent = _loaded(source, profiles)  # gone since, or renamed: None (its own name may still say which engine it was)
    return "" if parent is None or parent.path == engine.path else copied_from(parent, profiles, depth + 1)


def _loaded(name: str, profiles: tuple) -> ServingEngine | None:
    """Engine profile `name` (a name or a path) as load_engine finds it, or None where it does not load."""
    try:
        return load_engine(name, tuple(profiles))
    except RooflineError:
        return None


def rows_slot(engine_name: str, table: pd.DataFrame, lineage: str = "") -> str:
    """The engine slot (measurements.ENGINE_SLOTS) whose rows a fit of profile `engine_name` takes: its own name where
    it is a slot (vllm, sglang, ...); else the one it descends from (`lineage`: copied_from); else the engine its name
    contains (`my-vllm`: vllm); else the one engine of the file's fit rows where every one has it (a user's own
    server)."""
    if engine_name in ENGINE_SLOTS:
        return engine_name
    if lineage in ENGINE_SLOTS:
        return lineage
    text = engine_name.lower()
    named = next((slot for slot in sorted(ENGINE_SLOTS, key=len, reverse=True) if slot in text), None)  # sglang-early
    if named:  # before sglang: a copy of a versioned profile fits that version's rows
        return named
    named = engine_slot(engine_name)
    if named:
        return named
    slots = set(table.loc[table["split"] == "fit", "engine_slot"])  # one engine's rows and nothing else (qa180: not
    return slots.pop() if len(slots) == 1 and "" not in slots else engine_name  # beside rows of no engine profile)


def own_rows(fit: pd.DataFrame, engine_name: str, table: pd.DataFrame, lineage: str = "") -> tuple[pd.Series, str]:
    """Which of the `fit` rows are profile `engine_name`'s own, and the label that names them: for a profile not named
    as an engine slot, the rows whose `engine` is its own name, where there are any (a user's server labelled with its
    copy's name: rows of engine `fast` for `engines new fast --from vllm`, or `my-vllm`; they alone, beside published
    rows of the engine it copies); else, for such a profile, every row of a file whose fit rows name no engine profile
    (one server's, labelled with a name of its own: `our-server` under `my-vllm`); else the rows of its engine slot
    (rows_slot; a row of `vLLM` 0.6 stays vllm-v0's under the profile named vllm)."""
    engine_text = (fit["engine"] if "engine" in fit else pd.Series("", index=fit.index)).astype(str).str.strip()
    named = (engine_text.str.casefold() == engine_name.strip().casefold()) & (engine_name not in ENGINE_SLOTS)
    if named.any():
        return named, engine_name
    slot = rows_slot(engine_name, table, lineage)
    unnamed = bool((fit["engine_slot"] == "").all())  # one server's rows, none of an engine profile
    if slot in ENGINE_SLOTS and not (unnamed and engine_name not in ENGINE_SLOTS):  # (qa203: under my-vllm they were
        return fit["engine_slot"] == slot, slot if slot == engine_name else f"{slot} (profile {engine_name})"  # others')
    mine = pd.Series(unnamed, index=fit.index)
    engines = sorted(set(engine_text[mine]) - {""})  # the server's own name(s)
    return mine, engine_name + (f" ({', '.join(engines)})" if engines else "")


def fit_rows(table: pd.DataFrame, engine_name: str, where: str = "measurements", fold: bool = False,
             predictable: pd.Series | None = None, lineage: str = "", say: bool = True) -> tuple[pd.DataFrame, str]:
    """The fit-split rows of `engine_name`'s engine (rows_slot), or all fit rows when fewer than MIN_ENGINE_ROWS of
    them are distinct rows the model can predict (`predictable`: a boolean Series over the fit rows' index, from
    prepare_rows; None: every row; a row repeated in every column counts once, measurements.repeated_rows), and a
    sentence saying which, said in a warning too where other engines' rows are taken (`say`; not in a fold). Fewer than
    MIN_ENGINE_ROWS distinct fit rows in all are refused: a fit of that few does not determine its parameters (each
    would trade off against the others at one point); run_fit counts the predictable ones again. A cross-validation
    `fold`, whose full fit passed these checks, takes what is left of them."""
    fit = table[table["split"] == "fit"]
    if fit.empty:
        raise RooflineError(f"{where}: split: expected at least one row with split = fit, found none")
    distinct = ~repeated_rows(fit)  # a row pasted twice is one measurement (qa203: 4 and a copy were fitted as 5)
    if distinct.sum() < MIN_ENGINE_ROWS and not fold:
        copies = f" and {len(fit) - distinct.sum()} repeated" if not distinct.all() else ""
        raise RooflineError(f"{where}: expected at least {MIN_ENGINE_ROWS} distinct fit rows to fit an engine's parameters to, "
                            f"found {distinct.sum()}{copies} (measure more batch sizes, or predict these rows with "
                            "`roofline accuracy --split all`)")
    mine, label = own_rows(fit, engine_name, table, lineage)
    own = fit[mine]
    usable = int((mine & distinct if predictable is None else
                  predictable.reindex(fit.index, fill_value=True) & mine & distinct).sum())
    if usable >= MIN_ENGINE_ROWS:
        return own, f"{len(own)} fit rows of engine {label}"
    others = len(fit) - len(own)
    if not others:  # all of this engine, fewer than MIN_ENGINE_ROWS of them predictable (or a cross-validation fold)
        return fit, f"all {len(fit)} fit rows, of engine {label}"
    repeats = int((mine & ~distinct).sum())  # a repeated row is one measurement, not one the model cannot predict
    once = f" ({repeats} repeating another)" if repeats else ""  # (qa451: said 'the model can predict' of a repeat)
    only = (f"none of engine {label}" + (" the model can predict" if len(own) - repeats else "") + once if not usable
            else f"only {usable}{' distinct' if repeats and usable == len(own) - repeats else ''} of engine {label}"
            + (" the model can predict" if usable < len(own) - repeats else "") + f"{once}, fewer than {MIN_ENGINE_ROWS}")
    engines = _other_engines(fit[~mine])  # by profile (qa279: vLLM 0.7's rows said 'vllm 5', read as the profile's own)
    named = ": " + ", ".join(f"{e} {c}" for e, c in engines.head(3).items()) + (", ..." if len(engines) > 3 else "")
    which = (f"all {len(fit)} fit rows ({only}), each predicted with {engine_name}: a profile fitted "
             f"{'partly ' if len(own) else ''}to other engines' measurements ({others} row{'s' if others > 1 else ''}"
             f"{named if len(engines) else ''})")
    if say and not fold:  # said where warnings are looked for, not only in the report's first line (qa203)
        warn(f"{where}: {which}")
    return fit, which


def predictable_rows(table: pd.DataFrame, profiles: tuple, where: str, base: ServingEngine) -> pd.Series | None:
    """Which fit rows the model can predict (a boolean Series over their index; None without fit rows): fit_rows
    counts those, a row it cannot predict being no row."""
    every = table[table["split"] == "fit"]
    if not len(every):
        return None
    return pd.Series(prepare_rows(every, profiles, where, slot_for_row=lambda r: "fit", engine_for=lambda s: base)
                     .table["skipped"].eq("").to_numpy(), index=every.index)


def check_profile_names(table: pd.DataFrame, profiles: tuple, where: str) -> None:
    """Every row's hardware, model and draft model names a profile, the rows a fit leaves out included (a typo there
    would otherwise pass until the row is predicted): one line naming the first row that does not."""
    from roofline.hardware import load_hardware
    from roofline.model import load_model

    for column, loader in (("hardware", load_hardware), ("model", load_model), ("draft", load_model)):
        if column not in table.columns:
            continue
        for name, row in table.drop_duplicates(column)[[column, "row"]].itertuples(index=False):
            if name:
                try:
                    loader(name, tuple(profiles))
                except RooflineError as exc:
                    raise name_error(where, row, column, name, table, exc) from None


def _other_engines(rest: pd.DataFrame) -> pd.Series:
    """Rows of `rest` counted by engine: a row of an engine profile by its slot (a `vLLM` 0.6 row: vllm-v0), else by
    its own engine text (our-server 3; 'no engine' where the column is empty), one server however its rows spell it
    (as own_rows reads them: qa183)."""
    text = (rest["engine"] if "engine" in rest else pd.Series("", index=rest.index)).astype(str).str.strip()
    spelled = dict(zip(text.str.casefold(), text))
    named = text.str.casefold().map(spelled).replace("", "no engine")
    slots = rest["engine_slot"] if "engine_slot" in rest else pd.Series("", index=rest.index)
    return slots.where(slots != "", named).value_counts()


def left_out_note(table: pd.DataFrame, engine_name: str, lineage: str = "") -> str:
    """' (N rows of other engines left out: sglang-early 6, vllm 1)' for the fit rows of other engines that a fit of
    `engine_name` on its own rows leaves out, '' when there are none or the fit falls back to every row."""
    fit = table[table["split"] == "fit"]
    mine, _ = own_rows(fit, engine_name, table, lineage)
    others = _other_engines(fit[~mine])
    if not len(others) or mine.sum() < MIN_ENGINE_ROWS:
        return ""
    n = int(others.sum())
    return (f" ({n} row{'s' if n != 1 else ''} of other engines left out: "
            + ", ".join(f"{e} {c}" for e, c in others.items()) + ")")


def _starts(u0: np.ndarray) -> list[np.ndarray]:
    """Where the search begins: the start values, and the same with the kernel latency moved to the upper half of
    its range. Kernel latency, collective latency and host work all add time per step and trade against each
    other where the rows span few models; a second start guards against the local minimum of the first."""
    out = [u0]
    for name in ("kernel_latency_s",):
        j = [p.field for p in PARAMETERS].index(name)
        moved = u0.copy()
        moved[j] = max(u0[j], 0.75)
        out.append(moved)
    return out


def check_loss(loss: object) -> None:
    """One of LOSSES (the CLI's --loss, a library caller's loss=)."""
    if loss not in LOSSES:
        raise RooflineError(f"--loss: expected one of {', '.join(LOSSES)}, found {loss!r}")


def run_fit(path: str | Path, engine: str = "vllm", profiles: tuple = (), max_evaluations: int = 400,
            loss: str = "cauchy", loss_scale: float = 0.15, fixed: tuple[str, ...] = (),
            per_family: tuple[str, ...] = (), table: pd.DataFrame | None = None, fold: bool = False) -> dict:
    """Fit `engine`'s PARAMETERS to the fit rows of the measurements file `path` (module docstring); `fold`: a
    cross-validation fold (fit_rows).
    Parameters named in `fixed` (YAML keys) stay at their start value: a quantity measured directly (a
    collective's latency in a microbenchmark) need not be inferred again from end-to-end rows. Parameters
    named in `per_family` (among PER_FAMILY) get a value per hardware family with enough rows. `table`: the
    measurements already loaded from `path` (a subset of them, for `cross_validate`). The override values an
    earlier `--per-family` fit wrote for a parameter this fit frees are dropped first (`stale_overrides`): they
    were fitted on other rows, and left in place they would replace this fit's value on their hardware (a
    server's own mi300x rows could not inform kernel_latency; a source left out by `cross_validate` would
    be predicted with values fitted on itself); those of a parameter no row moves, kept at the earlier fit's value
    (`kept`), are put back with it (qa435). Overrides written by hand (sourced) stay, and shadow the
    fitted value on their hardware: `shadowed` names those that match rows of this fit.

    Returns {engine (fitted ServingEngine), base (the profile as loaded), parameters: [rows of the
    parameter table], rows: DataFrame of fitted rows with measured, start and fitted predictions and
    log residuals, rows_used (sentence), rms_log_error (start, fitted, loaded: the profile as it was loaded, its
    fitted values and overrides in place), evaluations}.
    """
    from scipy.optimize import least_squares

    check_loss(loss)
    keys = [p.key for p in PARAMETERS]
    unknown = [k for k in fixed if k not in keys]
    if unknown:
        raise RooflineError(f"--fix: expected parameters among {', '.join(keys)}, found "
                            f"{', '.join(map(repr, unknown))}")  # quoted (qa315: 'found nothing' read as none given)
    free = np.array([k not in fixed for k in keys])
    if not free.any():
        raise RooflineError("--fix: expected at least one parameter left to fit, found every one fixed")
    bad = [k for k in per_family if k not in PER_FAMILY or k in fixed]
    if bad:
        raise RooflineError(f"--per-family: expected parameters among {', '.join(PER_FAMILY)} and not fixed, "
                            f"found {', '.join(map(repr, bad))}")
    loaded = fittable_engine(engine, profiles)
    stale = stale_overrides(loaded, fixed)
    kept = tuple((glob, {f: v for f, v in changes.items() if (glob, f) not in stale}) for glob, changes in loaded.overrides)
    base = replace(loaded, overrides=tuple((glob, changes) for glob, changes in kept if changes))
    table = load_measurements(path) if table is None else table
    check_profile_names(table, profiles, str(path))
    every = table[table["split"] == "fit"]
    predictable = predictable_rows(table, profiles, str(path), base)
    lineage = copied_from(loaded, profiles)
    chosen, which = fit_rows(table, base.name, str(path), fold=fold, predictable=predictable, lineage=lineage)
    rows = prepare_rows(chosen, profiles, str(path), slot_for_row=lambda r: "fit", engine_for=lambda s: base)
    usable = rows.table["skipped"] == ""
    left = rows.table.loc[~usable]
    left_text = (f"left out: row{'s' if len(left) > 1 else ''} {', '.join(str(r) for r in left['row'].head(8))}"
                 + (f" and {len(left) - 8} more" if len(left) > 8 else "") + f" ({left['skipped'].iloc[0].split(': ')[0]}"
                 + (", and others" if left["skipped"].str.split(": ").str[0].nunique() > 1 else "") + ")") if len(left) else ""
    counted = int((usable.to_numpy() & ~repeated_rows(chosen).to_numpy()).sum())  # a repeated row is one (qa204)
    if usable.sum() == 0 or (counted < MIN_ENGINE_ROWS and not fold):  # rows it cannot predict do not count
        repeated = f" ({int(usable.sum()) - counted} of them repeated)" if counted < usable.sum() else ""
        raise RooflineError(f"{path}: expected at least {MIN_ENGINE_ROWS} distinct fit rows the model can predict, found "
                            f"{counted}{repeated} of the {len(usable)} it took; " + (f"{left_text}; " if left_text else "")
                            + f"it took {which}")
    if len(left):  # qa100: 'fitted on 17 fit rows' where one did not fit in memory and 16 were fitted
        which = f"{int(usable.sum())} of {which}; {left_text}"
    check_plausible(rows.table, predict_rowset(rows, {"fit": IDEAL})["predicted"].to_numpy(), str(path))  # a unit slip
    measured = rows.table["value"].to_numpy()
    start = sourced_start(base)
    n_base = len(PARAMETERS)
    from roofline.errors import warn

    for p, is_free in zip(PARAMETERS, free):  # a start outside the fit's physical bounds: the fit starts at the bound
        if is_free and not p.low <= start[p.field] <= p.high:  # (a fixed one keeps its value: engine_at) (qa93)
            shown = [format_seconds(v) if p.unit in ("us", "ms") else f"{v:g}" for v in (start[p.field], p.low, p.high)]
            warn(f"{base.name}: {p.key}: the profile's {shown[0]} is outside the fit's bounds [{shown[1]}, {shown[2]}]: the fit "
                 f"starts from the nearer bound")
    engine_family = rows.table["hardware"].astype(str).str.lower()  # each row's device as the engine globs see it:
    for g in rows.groups:  # its family (a renamed MI300X is mi300x), as for_hardware matches the overrides
        engine_family.iloc[g.index] = g.hw.engine_family
    families = engine_family[usable].map(family_of).value_counts()
    own = [f for f, _ in FAMILIES if families.get(f, 0) >= MIN_FAMILY_ROWS]
    extra = [(keys.index(k), f) for k in dict.fromkeys(per_family) for f in own]  # (base parameter index, family)
    u0 = np.array([float(p.to_u(start[p.field])) for p in PARAMETERS] + [0.0] * len(extra))
    for i, (j, _) in enumerate(extra):
        u0[n_base + i] = u0[j]
    free = np.concatenate([free, np.ones(len(extra), dtype=bool)])
    globs = dict(FAMILIES)

    def engine_at(u) -> ServingEngine:
        # a fixed parameter at its start value exactly, bounds aside (moved only by the sensitivity check below)
        eng = replace(base, **{p.field: start[p.field] if not free[i] and x == u0[i] else p.from_u(x)
                               for i, (p, x) in enumerate(zip(PARAMETERS, u))})
        if not extra:
            return eng
        added = tuple((g, {PARAMETERS[j].field: PARAMETERS[j].from_u(u[n_base + i])})
                      for i, (j, family) in enumerate(extra) for g in globs[family])
        return replace(eng, overrides=tuple(base.overrides) + added)

    def log_residuals(eng: ServingEngine) -> np.ndarray:
        predicted = predict_rowset(rows, {"fit": eng})["predicted"].to_numpy()
        return np.log(predicted[usable] / measured[usable])

    evaluations = [0]

    def full(u_free) -> np.ndarray:
        u = u0.copy()
        u[free] = u_free
        return u

    pooled = np.array([j for j, _ in extra], dtype=int)

    def residuals(u_free) -> np.ndarray:
        evaluations[0] += 1
        u = full(u_free)
        prior = (u[:n_base] - u0[:n_base])[free[:n_base]]  # each free parameter pulled toward its start
        pool = u[n_base:] - u[pooled]  # each family value pulled toward the profile's own value
        return np.concatenate([log_residuals(engine_at(u)), PRIOR_WEIGHT * prior, PRIOR_WEIGHT * pool])

    result = None
    for begin in _starts(u0):
        trial = least_squares(residuals, begin[free], bounds=(0.0, 1.0), method="trf", diff_step=1e-3, x_scale=1.0,
                              max_nfev=max_evaluations, loss=loss, f_scale=loss_scale)
        if result is None or trial.cost < result.cost - 1e-12:
            result = trial
    result.x = full(result.x)
    start_engine = engine_at(u0)

    def sensitivities(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The log residuals at `x`, and for each parameter: whether moving u_j by 0.05 (toward the inside) changes
        any row by more than 0.1% (its largest change), and how every row moves with it (the Jacobian, in u)."""
        at = log_residuals(engine_at(x))
        largest, jacobian = np.zeros(len(x)), np.zeros((len(at), len(x)))
        for j in range(len(x)):
            moved = x.copy()
            step = 0.05 if moved[j] < 0.5 else -0.05
            moved[j] = moved[j] + step
            change = log_residuals(engine_at(moved)) - at
            largest[j], jacobian[:, j] = float(np.max(np.abs(change))), change / step
        return at, largest, jacobian

    at_fit, sensitivity, columns = sensitivities(result.x)
    kept = _kept_from_earlier_fit(loaded, start, [p for j, p in enumerate(PARAMETERS) if free[j] and sensitivity[j] <= 1e-3])
    if kept:  # no row here determines them: the earlier fit's values (on its own rows) stay, where moving them to it
        # leaves every row within 0.1% (qa382: a bf16 dense user's fit wrote sglang's fitted fp8 MoE efficiency back
        # to its start, 1.0, un-derating every fp8 MoE point)
        moved = result.x.copy()
        for p in kept:
            moved[keys.index(p.key)] = p.to_u(getattr(loaded, p.field))
        if np.max(np.abs(log_residuals(engine_at(moved)) - at_fit), initial=0.0) <= 1e-3:
            result.x = moved
            at_fit, sensitivity, columns = sensitivities(result.x)
        else:
            kept = []
    kept_keys = {p.key for p in kept}
    fitted = engine_at(result.x)
    # a parameter kept at the earlier fit's value keeps that fit's per-family values too (qa435: sglang's 0.5 on mi*
    # dropped by a fit of dense H100 rows that left quantised_moe_efficiency at its 0.704, MI300X's MoE step 22% faster)
    refitted = {(glob, PARAMETERS[j].field) for i, (j, family) in enumerate(extra) if sensitivity[n_base + i] > 1e-3
                for glob in globs[family]}  # a family value this fit determines replaces the earlier one
    restored = {(glob, f) for glob, f in stale if BY_FIELD[f].key in kept_keys and (glob, f) not in refitted}
    if restored:
        fitted = replace(fitted, overrides=_with_overrides(fitted.overrides, loaded.overrides, restored))
        stale = stale - restored
    together = _determined_together(columns, [j for j in range(len(result.x)) if free[j] and sensitivity[j] > 1e-3])
    fitted_on = _fitted_on(rows, usable.to_numpy(), engine_family, columns,
                           {_free_name(j, extra): j for j in range(len(result.x)) if free[j] and sensitivity[j] > 1e-3})
    params = []
    for j, p in enumerate(PARAMETERS):
        at_low, at_high = result.x[j] <= AT_BOUND_U, result.x[j] >= 1 - AT_BOUND_U
        params.append({
            "parameter": p.key, "meaning": p.meaning, "unit": p.unit or "-",
            "low": p.to_unit(p.low), "high": p.to_unit(p.high),
            # a free parameter starts at the nearer bound where the profile's value lies outside them (warned above)
            "start": p.to_unit(start[p.field] if not free[j] else min(max(start[p.field], p.low), p.high)),
            "fitted": p.to_unit(getattr(fitted, p.field)),
            # the profile's value where it is an earlier fit's (in its fitted.parameters; qa189: a hand-set 30 us and
            # ideal's 0 were called an earlier fit's)
            "loaded": (p.to_unit(getattr(loaded, p.field)) if getattr(loaded, p.field) is not None
                       and p.key in ((loaded.fitted or {}).get("parameters") or ()) else None),
            # at a bound the fit took it to: not one it started at and no row moved it from (qa290: weight_only_efficiency
            # at its start of 1 read 'at high bound')
            "bound": "" if not free[j] or sensitivity[j] <= 1e-3 else "low" if at_low else ("high" if at_high else ""),
            "fixed": not free[j],
            "kept": p.key in kept_keys,  # the profile's value from its earlier fit, on that fit's rows
            "determined": bool(sensitivity[j] > 1e-3),
            "sensitivity": round(float(sensitivity[j]), 5),
            "together_with": [_free_name(k, extra) for k in together.get(j, [])],
        })
    family_values = []
    written = _with_overrides(base.overrides, loaded.overrides, restored)  # the overrides the profile keeps on its own
    for i, (j, family) in enumerate(extra):
        p, x = PARAMETERS[j], result.x[n_base + i]
        value = p.from_u(x)
        # a family value no row determines is not written: the value that applies there is shown (the fitted one, or
        # an override kept on its hardware; qa435: 'fitted 1', the prior's pull, beside a kept 0.761)
        applies = next((changes[p.field] for glob, changes in written if glob in globs[family] and p.field in changes),
                       getattr(fitted, p.field))
        family_values.append({"parameter": p.key, "family": family, "globs": globs[family], "value": value,
                              "rows": int(families[family]), "determined": bool(sensitivity[n_base + i] > 1e-3)})
        params.append({
            "parameter": f"{p.key} [{family}]", "meaning": f"the same on {family} ({', '.join(globs[family])}: "
                                                          f"{int(families[family])} rows)",
            "unit": p.unit or "-", "low": p.to_unit(p.low), "high": p.to_unit(p.high),
            "start": p.to_unit(min(max(start[p.field], p.low), p.high)),  # where the search starts, as the shared row's
            "fitted": p.to_unit(value if sensitivity[n_base + i] > 1e-3 else applies),  # (qa451: an unclipped 50 us)
            "bound": "" if sensitivity[n_base + i] <= 1e-3 else "low" if x <= AT_BOUND_U else ("high" if x >= 1 - AT_BOUND_U else ""),
            "fixed": False, "family": family,
            "determined": bool(sensitivity[n_base + i] > 1e-3), "sensitivity": round(float(sensitivity[n_base + i]), 5),
            "together_with": [_free_name(k, extra) for k in together.get(n_base + i, [])],
        })
    pred_start = predict_rowset(rows, {"fit": start_engine})["predicted"].to_numpy()
    fitted_frame = predict_rowset(rows, {"fit": fitted})
    pred_fit = fitted_frame["predicted"].to_numpy()
    pred_loaded = predict_rowset(rows, {"fit": loaded})["predicted"].to_numpy()  # the profile as the user has it (qa115)
    out_rows = rows.table[["row", "source_id", "engine", "hardware", "model", "batch", "method", "k", "quantity", "value", "skipped",
                           "graphs", "replicas"]].copy()
    out_rows["start_predicted"] = pred_start
    out_rows["fitted_predicted"] = pred_fit
    out_rows["log_residual"] = np.log(pred_fit / measured)
    # the sequences the engine runs at once (measurements.running_batch): below the row's batch or mean in flight where
    # their KV cache does not fit beside the weights, the rest waiting (qa271: batch 4096 predicted at 9, unsaid)
    # running_batch is a replica's (B / R: qa274, every row of R > 1 read as capped); a row's own figure is all replicas'
    asked = rows.table["concurrency"].fillna(rows.table["batch"]) if "concurrency" in rows.table else rows.table["batch"]
    replicas = np.maximum(rows.table["replicas"].to_numpy(float), 1.0)
    out_rows["asked_sequences"] = asked.to_numpy(float)
    out_rows["running_batch"] = fitted_frame["running_batch"].to_numpy() * replicas  # every replica's, as the row's batch
    out_rows["memory_capped"] = memory_capped(rows.table, fitted_frame["running_batch"].to_numpy())

    def rms(pred):
        return float(np.sqrt(np.mean(np.log(pred[usable] / measured[usable]) ** 2)))

    return {
        "engine": fitted, "base": base, "parameters": params, "rows": out_rows, "rows_used": which, "lineage": lineage,
        "left_out": left_out_note(table, base.name, lineage) if len(chosen) < len(every) else "",  # all rows taken: none left out
        "rms_log_error": {"start": rms(pred_start), "fitted": rms(pred_fit), "loaded": rms(pred_loaded)},
        "evaluations": evaluations[0], "status": result.message, "file": str(path), "start": start,
        "fingerprints": dict(zip(table["row"].astype(int), row_fingerprints(table))),  # {row: what it measured}
        "loss": loss, "loss_scale": loss_scale, "per_family": family_values,
        "per_family_none": _per_family_none(per_family, own, engine_family[usable]),
        "dropped_overrides": sorted((glob, BY_FIELD[f].key) for glob, f in stale),
        # the earlier fit's per-family items of the values restored, which the written profile lists again
        "kept_per_family": [str(item) for item in (loaded.fitted or {}).get("per_family") or []
                            if (m := _FAMILY_ENTRY.match(str(item))) and m.group(1) in kept_keys
                            and any((glob.strip(), BY_KEY[m.group(1)].field) in restored for glob in m.group(2).split(","))],
        "shadowed": _shadowed(base, fixed, engine_family[usable]),
        "fitted_on": fitted_on,
        # each parameter kept at the earlier fit's value: where that fit's rows were (its fitted_on entry, if recorded)
        "kept": {p.key: ((loaded.fitted or {}).get("fitted_on") or {}).get(p.key) for p in kept},  # PARAMETERS' order
        "model_classes": sorted({model_class(g.model) for g in rows.groups if usable.to_numpy()[g.index].any()}),
        "hardware_families": sorted(set(engine_family[usable].map(family_label))),
        # the sequences a replica ran at once over the rows fitted: predict warns of a batch far outside them (qa407)
        "batches": [float(f(fitted_frame["running_batch"].to_numpy()[usable.to_numpy()])) for f in (np.min, np.max)],
    }


def _kept_from_earlier_fit(loaded: ServingEngine, start: dict[str, float], undetermined: list[Parameter]) -> list[Parameter]:
    """Of the parameters `undetermined` (no row of this fit moves them), those whose value in the profile `loaded` its
    own earlier fit determined on its rows (in fitted.parameters, not in its not_determined_by_rows or fixed; one that
    fit kept from a fit before it is not in its not_determined_by_rows either), within this fit's bounds and away from the start value: a measurement, which this
    fit keeps instead of writing the start back."""
    fitted = loaded.fitted or {}
    earlier = set(fitted.get("parameters") or ()) - set(fitted.get("fixed") or ())
    moved = earlier - set(fitted.get("not_determined_by_rows") or ())
    out = []
    for p in undetermined:
        value = getattr(loaded, p.field)
        if (p.key in moved and value is not None and p.low <= value <= p.high
                and not math.isclose(value, start[p.field], rel_tol=1e-6, abs_tol=1e-12)):
            out.append(p)
    return out


_FAMILY_ENTRY = re.compile(r"^(\w+) on .+ \(([^;()]+); \d+ rows\)$")  # an item of `fitted.per_family`, as written below


def _with_overrides(overrides: tuple, loaded: tuple, restored: set[tuple[str, str]]) -> tuple:
    """`overrides` (an engine's: (glob, {field: value})) with the values `restored` ((glob, field)) put back from
    `loaded`'s, into the entry of the same glob, else a new one."""
    out: dict[str, dict] = {}
    for glob, changes in overrides:  # a glob given twice (a fit's family entry beside the profile's own) merged, the
        out.setdefault(glob, {}).update(changes)  # later's values over the earlier's (qa451: the later replaced the
    for glob, changes in loaded:  # whole earlier entry, sglang's sourced 7.5 us all-reduce on MI300X with it)
        for field_name, value in changes.items():
            if (glob, field_name) in restored:
                out.setdefault(glob, {})[field_name] = value
    return tuple(out.items())


def _fitted_on(rows, usable: np.ndarray, engine_family: pd.Series, columns: np.ndarray, moving: dict[str, int]) -> dict:
    """{parameter (or 'parameter [family]'): {devices, models, methods}}: the devices (each row's engine family, a
    hardware profile name), model classes (serving.model_class) and speculation methods of the rows that determine
    it, those whose prediction moves by more than 0.1% when it moves by 0.05 of its bounds (as `sensitivity`), for
    the `moving` parameters (name -> column of `columns`, the Jacobian over the usable rows). What predict compares a
    point with (serving.fitted_elsewhere_note): vllm's kernel latency on AMD fitted on MI300X rows alone, its
    speculation costs on EAGLE and draft-model rows of dense models (qa287: both applied elsewhere unsaid)."""
    classes = np.empty(len(rows.table), dtype=object)
    for g in rows.groups:
        classes[g.index] = model_class(g.model)
    kept = np.flatnonzero(usable)
    devices, methods = engine_family.to_numpy()[kept], rows.table["method"].to_numpy()[kept]
    out = {}
    for name, j in moving.items():
        moved = np.abs(columns[:, j]) * 0.05 > 1e-3
        out[name] = {"devices": sorted(set(devices[moved])), "models": sorted(set(classes[kept][moved])),
                     "methods": sorted(set(methods[moved]))}
    return out


def _determined_together(columns: np.ndarray, moving: list[int], share: float = 0.05) -> dict[int, list[int]]:
    """{j: the parameters whose effects on the rows reproduce j's}: j moves the rows, but a combination of the others
    moves them the same way to within `share` of its own effect (least squares over the rows), so the rows fix only
    that combination (a per-step and a per-kernel time on rows of one layout and batch, say). The partners named are
    those carrying at least a tenth of the reproduction."""
    out = {}
    for j in moving:
        others = [k for k in moving if k != j]
        own = columns[:, j]
        if not others or not np.linalg.norm(own):
            continue
        coef, *_ = np.linalg.lstsq(columns[:, others], own, rcond=None)
        if np.linalg.norm(own - columns[:, others] @ coef) < share * np.linalg.norm(own):
            weight = {k: abs(c) * np.linalg.norm(columns[:, k]) for k, c in zip(others, coef)}
            out[j] = sorted((k for k in others if weight[k] >= 0.1 * np.linalg.norm(own)), key=lambda k: -weight[k])
    return out


def _free_name(j: int, extra: list) -> str:
    """The name a fit report gives parameter j: a profile parameter's key, or 'key [family]' for a family's value."""
    n_base = len(PARAMETERS)
    if j < n_base:
        return PARAMETERS[j].key
    k, family = extra[j - n_base]
    return f"{PARAMETERS[k].key} [{family}]"


def stale_overrides(engine: ServingEngine, fixed: tuple[str, ...] = ()) -> set[tuple[str, str]]:
    """(hardware glob, field) of the override values an earlier `fit --per-family` wrote (its `fitted.per_family`
    list, items "kernel_latency on AMD Instinct (mi*; 32 rows)") for parameters not in `fixed`."""
    out = set()
    for item in (engine.fitted or {}).get("per_family") or []:
        match = _FAMILY_ENTRY.match(str(item))
        if match and match.group(1) in BY_KEY and match.group(1) not in fixed:
            out |= {(glob.strip(), BY_KEY[match.group(1)].field) for glob in match.group(2).split(",")}
    return out


def _shadowed(engine: ServingEngine, fixed: tuple[str, ...], hardware: pd.Series) -> list[str]:
    """'kernel_latency on mi* (3 rows)' for each override value of a free parameter that replaces the fitted
    value on hardware of these rows: those rows do not inform that parameter."""
    counts = hardware.astype(str).value_counts()
    out = []
    for glob, changes in engine.overrides:  # matched as ServingEngine.for_hardware matches them
        hits = int(sum(n for name, n in counts.items() if fnmatch.fnmatch(name, glob)))
        out += [f"{BY_FIELD[f].key} on {glob} ({hits} rows)" for f in changes
                if hits and f in BY_FIELD and BY_FIELD[f].key not in fixed]
    return out


def cross_validate(path: str | Path, engine: str = "vllm", profiles: tuple = (), loss: str = "cauchy",
                   fixed: tuple[str, ...] = (), per_family: tuple[str, ...] = (), max_evaluations: int = 400) -> dict:
    """Leave one source out: for each source of the rows `run_fit` would fit, fit on the other fit rows (same
    options) and predict that source's rows, which the fit never saw; beside it, the same rows' error when
    every source is fitted (in sample). The gap between the two says how far a fitted profile carries to a
    source it was not fitted on, which is what the held-out half asks of it, measured on the fit half alone.

    Returns {rows: DataFrame (source, row, measured, loso and in-sample predictions and errors), sources:
    DataFrame (per source: rows, median absolute errors), overall: dict, rows_used, widened: the sources whose fold
    did not fit the full fit's rows less that source: fewer than MIN_ENGINE_ROWS of them left (fit_rows took what was
    left, or every engine's fit rows), or another rule's rows (the source held all of a copy's own rows)}.
    """
    check_loss(loss)  # before minutes of fitting
    base = fittable_engine(engine, profiles)
    table = load_measurements(path)
    chosen, which = fit_rows(table, base.name, str(path), predictable=predictable_rows(table, profiles, str(path), base),
                             lineage=copied_from(base, profiles), say=False)  # the full fit below says it (qa204: twice)
    # every fit, the one to all sources included, starts from the profile without the per-family values an
    # earlier fit wrote (run_fit drops them: fitted on every source, a left-out source must not reach its prediction so)
    options = {"loss": loss, "fixed": tuple(fixed), "per_family": tuple(per_family), "max_evaluations": max_evaluations}
    prepared = prepare_rows(chosen, profiles, str(path), slot_for_row=lambda r: "fit", engine_for=lambda s: base).table
    for source in dict.fromkeys(chosen["source_id"]):  # before minutes of fitting: a source the model cannot predict
        skipped = prepared.loc[prepared["source_id"] == source, "skipped"]
        if (skipped != "").all():
            raise RooflineError(f"--cv: source {source!r} has no fit row the model can predict ({len(skipped)} rows; the first: "
                                f"{skipped.iloc[0]}): fix its rows or leave them out of the file")
    sources_to_leave_out = list(dict.fromkeys(chosen["source_id"]))
    if len(sources_to_leave_out) < 2:  # before minutes of fitting: a fold needs a source left to fit on
        raise RooflineError(f"--cv: expected fit rows from at least 2 sources (source_id) to leave one out at a time, "
                            f"found {len(sources_to_leave_out)} ({which})")
    began = time.perf_counter()
    progress_bar(0, len(sources_to_leave_out) + 1, 0.0, "fits: all sources")  # a fit a source: minutes, not silence
    full = run_fit(path, engine, profiles, table=table, **options)
    everything, full_rows = full["engine"], set(full["rows"]["row"])
    parts, widened = [], []
    for done, source in enumerate(sources_to_leave_out, 1):
        progress_bar(done, len(sources_to_leave_out) + 1, time.perf_counter() - began, f"fits: without {source[:40]}")
        others = table[~((table["split"] == "fit") & (table["source_id"] == source))]
        fold = run_fit(path, engine, profiles, table=others, fold=True, **options)
        left_out = fold["engine"]
        expected = full_rows - set(chosen.loc[chosen["source_id"] == source, "row"])
        # qa180, qa181: a fold whose rows are not the full fit's less this source (fit_rows took every engine's, or a copy's
        # rows gone, another rule's), or too few of them to fit on
        if set(fold["rows"]["row"]) != expected or len(expected) < MIN_ENGINE_ROWS:
            widened.append(source)
        rows = prepare_rows(chosen[chosen["source_id"] == source], profiles, str(path), slot_for_row=lambda r: "fit",
                            engine_for=lambda s, engine=left_out: engine)
        usable = (rows.table["skipped"] == "").to_numpy()
        measured = rows.table["value"].to_numpy()[usable]
        parts.append(pd.DataFrame({
            "source_id": source, "row": rows.table["row"].to_numpy()[usable], "measured": measured,
            "loso_predicted": predict_rowset(rows, {"fit": left_out})["predicted"].to_numpy()[usable],
            "in_sample_predicted": predict_rowset(rows, {"fit": everything})["predicted"].to_numpy()[usable],
        }))
    progress_done()
    rows = pd.concat(parts, ignore_index=True)
    rows["loso_error"] = rows["loso_predicted"] / rows["measured"] - 1
    rows["in_sample_error"] = rows["in_sample_predicted"] / rows["measured"] - 1

    def stats(frame: pd.DataFrame) -> dict:
        loso, inside = frame["loso_error"].abs(), frame["in_sample_error"].abs()
        return {"rows": len(frame), "loso_median_abs_error": float(loso.median()), "loso_within_15pct": float((loso <= 0.15).mean()),
                "in_sample_median_abs_error": float(inside.median()), "in_sample_within_15pct": float((inside <= 0.15).mean())}

    sources = pd.DataFrame([{"source_id": source, **stats(part)} for source, part in rows.groupby("source_id", sort=False)])
    overall = {k: (v if k == "rows" else round(v, 4)) for k, v in stats(rows).items()}
    return {"rows": rows, "sources": sources, "overall": {"engine": base.name, "sources": len(sources), **overall},
            "rows_used": which, "widened": widened}


def cross_validation_report(cv: dict) -> str:
    """The per-source table of `cross_validate`, as text for the terminal (the caller prints the JSON line)."""
    lines = [f"engine {cv['overall']['engine']}: leave one source out over {cv['rows_used']}",
             "each source predicted by a fit to the other sources (loso) and by the fit to all (in sample)", "",
             f"{'source':<40} {'rows':>5} {'loso median':>12} {'within 15%':>11} {'in-sample median':>17} {'within 15%':>11}",
             "-" * 101]
    for r in cv["sources"].itertuples():
        lines.append(f"{r.source_id[:40]:<40} {int(r.rows):>5} {r.loso_median_abs_error:>11.1%} {r.loso_within_15pct:>11.0%} "
                     f"{r.in_sample_median_abs_error:>16.1%} {r.in_sample_within_15pct:>11.0%}")
    o = cv["overall"]
    lines.append(f"{'all rows':<40} {o['rows']:>5} {o['loso_median_abs_error']:>11.1%} {o['loso_within_15pct']:>11.0%} "
                 f"{o['in_sample_median_abs_error']:>16.1%} {o['in_sample_within_15pct']:>11.0%}")
    if cv.get("widened"):
        lines.append(f"left out, these folds did not fit the full fit's rows less that source (fewer than {MIN_ENGINE_ROWS} "
                     f"of those left; the fold took what was left, or other rows): {', '.join(cv['widened'])}")
    return "\n".join(lines)


def _at_low_bound(value: float, low: float, high: float) -> float:
    """`value`, or `low` where it sits at the lower bound: the bound itself, not the optimiser's residue (1.777e-13)."""
    return low if value - low < 1e-6 * (high - low) else value


def _quantity_text(p: Parameter, value: float) -> str | float:
    value = _at_low_bound(value, p.low, p.high)
    if not p.unit:
        return round(float(value), 3)
    return f"{p.to_unit(value):.4g} {p.unit}"


def _shown_path(path: str) -> str:
    """`path` relative to the repository where it lies in it (measurements/published.csv: a shipped profile names its
    data portably), else absolute (a user's file, found again from any working directory)."""
    resolved = Path(path).resolve()
    try:
        return str(resolved.relative_to(Path(__file__).resolve().parent.parent))
    except ValueError:
        return str(resolved)


def _yaml_value_text(value) -> str:
    """A YAML scalar or flow list as a profile writes it ([draft, ngram], true, null), not as Python's repr (qa178)."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_yaml_value_text(v) for v in value) + "]"
    if isinstance(value, dict):  # speculation_caveats: its methods, the notes the file holds (qa412: a repr 370 wide)
        return "{" + ", ".join(f"{m}: ..." for m in value) + "}" if value else "{}"
    return "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def _costs_from_text(doc, own, base: ServingEngine, name: str, fit: dict) -> str:
    """For a fit of a profile that took another's costs (`costs_from`, serving.load_engine): put this profile's
    version, display name, source and notes into `doc` (the other's file, which the fit started from) where
    they do not speak of taking the other's costs (name it, or `costs_from`), since the file written holds
    costs of its own; where they do, or are absent, text saying what the file now is, never the other's
    display name or notes. Returns the header comment that replaces the other's."""
    other = str(doc.get("name", Path(base.costs_from).stem))
    speaks_of_other = re.compile(rf"(?<![\w-]){re.escape(other)}(?![\w-])|costs_from")
    path = _shown_path(base.costs_from)
    written = {
        "display_name": f"{name} (fitted; start values from {other})",
        "source": (f"The start values, kernel counts and hardware overrides of {other} ({path}), with their sources "
                   f"below; the fitted values are this file's own (`fitted:` block). {str(doc.get('source', '')).strip()}"),
        "notes": (f"{base.name} took every cost of {other} (costs_from) until `roofline fit --engine {base.name}` gave it "
                  f"costs of its own, fitted on {fit['rows_used']} of {_shown_path(fit['file'])} from {other}'s start "
                  f"values: the `fitted:` block records the rows, the start values and the result."),
    }
    for key in BEHAVIOUR_FIELDS:  # not costs: the profile's own where it sets them (qa103: a fit of vllm-v0 wrote vllm's
        if key in own and own[key] != doc.get(key):  # mixed_prefill: true, with vllm's comment; qa177: sglang's cap of 48)
            said = (_yaml_value_text(doc[key]) if key in doc else
                    f"nothing: {str(getattr(IDEAL, key)).lower()}" if isinstance(getattr(IDEAL, key, None), bool)
                    else "nothing")  # a flag left out: its default, the ServingEngine's (qa353: a tuple kept by hand)
            doc[key] = own[key]
            doc.yaml_add_eol_comment(f"# {base.name}'s own ({other}'s file says {said})", key)
    doc.pop("known_misses", None)  # measured of the other's costs (and its own of those costs): not of this fit (qa305)
    for key in ("version", "display_name", "source", "notes"):
        if key in own and not speaks_of_other.search(str(own[key])):
            doc[key] = own[key]
        elif key in written:
            doc[key] = written[key]
        elif key in doc:
            del doc[key]
    return (f"# {name}: written by `roofline fit --engine {base.name}`, which took the costs of {other} ({path}):\n"
            f"# {other}'s file, its comments kept, with the fitted values of {base.name}.\n")


def _flow(values: list):
    """A list YAML writes on one line ([a, b, c])."""
    from ruamel.yaml.comments import CommentedSeq

    seq = CommentedSeq(values)
    seq.fa.set_flow_style()
    return seq


def _folded(text: str, width: int = 110):
    """`text` as a folded block scalar (`notes: >-`) of lines at most `width` long, as the shipped profiles write their
    notes (a plain scalar would be one line of 1,500 characters)."""
    from ruamel.yaml.scalarstring import FoldedScalarString

    folded, line_start, last_space = FoldedScalarString(text), 0, None
    folded.fold_pos = []
    for i, char in enumerate(text):
        if char == " ":
            if i - line_start > width and last_space is not None:
                folded.fold_pos.append(last_space)
                line_start = last_space + 1
            last_space = i
    if len(text) - line_start > width and last_space is not None and last_space > line_start:
        folded.fold_pos.append(last_space)
    return folded


_NOTES_PREFIX = re.compile(r"^Fitted by `roofline fit` to .*? describe (\S+), the profile .*?, and its own "
                           r"fit: its figures are not this file's\. ", re.S)
_SOURCE_PREFIX = re.compile(r"^.*?: fitted by `roofline fit` to .*? What follows is (\S+)'s source, the start of this fit: ", re.S)


def _after_fit_prefix(text: str, prefix: re.Pattern, name: str) -> tuple[str, str]:
    """(`text` on one line without the words an earlier fit of a user's file put before it, the profile that fit started
    from), or (`text`, `name`) where no earlier fit wrote any."""
    text = " ".join(text.split())
    match = prefix.match(text)
    return (text[match.end():], match.group(1)) if match else (text, name)


def fitted_profile_text(fit: dict, name: str | None = None) -> str:
    """The engine profile file with the fitted values and a `fitted:` block, comments and sources kept
    (ruamel.yaml round trip of the profile the fit started from), named `name` (default: the profile's own
    name; `write_fitted_profile` gives the file's stem)."""
    import io

    from roofline.editing import _round_trip
    from roofline.yamlio import read_text

    base: ServingEngine = fit["base"]
    engine: ServingEngine = fit["engine"]
    name = name or base.name
    rt = _round_trip()
    doc = rt.load(read_text(Path(base.costs_from or base.path)))
    header = ""
    if base.costs_from:  # the other's file, fitted, under this profile's own text where it is still true
        header = _costs_from_text(doc, rt.load(read_text(Path(base.path))), base, name, fit)
        doc.ca.comment = None
    elif name != base.name or Path(fit["file"]).resolve() != default_measurements_path().resolve():
        # a copy beside the profile it came from, or one fitted to other rows (a user's own server) under the same
        # name: `engines list` must tell it from the built-in, and the notes must not describe the built-in's fit
        # a refit of a profile fitted before replaces that fit's words rather than nesting them (qa81)
        doc.pop("known_misses", None)  # measured of the profile it came from, not of this fit (a refit in place keeps them)
        notes, origin = _after_fit_prefix(str(doc.get("notes", "")), _NOTES_PREFIX, base.name)
        source, _ = _after_fit_prefix(str(doc.get("source", "")), _SOURCE_PREFIX, base.name)
        doc["display_name"] = (f"{str(doc.get('display_name', base.name)).split(', fitted to ')[0]}, "
                               f"fitted to {Path(fit['file']).name}")
        started = ("the profile this fit started from" if origin == base.name else
                   f"the profile {base.name}, this fit's start, was itself fitted from")
        doc["notes"] = _folded(f"Fitted by `roofline fit` to {Path(fit['file']).name} (the `fitted:` block below says on which "
                               f"rows, with which parameters fixed, and how well). The rest of these notes and the source "
                               f"describe {origin}, {started}, and its own fit: its figures are not this file's. " + notes)
        fixed = {row["parameter"] for row in fit["parameters"] if row["fixed"]}
        kept = set(fit.get("kept", {}))
        loose = {row["parameter"] for row in fit["parameters"] if not row["fixed"] and not row["determined"]} - kept  # qa310:
        # listed as fitted, where they held their start values
        # an undetermined value the rows still pulled, within the prior, off its start (qa478: overlap_exponent 3.299
        # written as 'held at its sourced start value' 3)
        drifted = [f"{row['parameter']} to {row['fitted']:.4g} from {row['start']:.4g}" for row in fit["parameters"]
                   if row["parameter"] in loose and not math.isclose(row["fitted"], row["start"], rel_tol=1e-6, abs_tol=1e-9)]
        inherited = kept & set((base.fitted or {}).get("kept_from_earlier_fit") or ())  # base kept them too (qa468:
        # said as determined by base's own fit, whose rows could not determine them)
        doc["source"] = _folded(f"{', '.join(p.key for p in PARAMETERS if p.key not in fixed | loose | kept)}: fitted by `roofline "
                                f"fit` to {_shown_path(fit['file'])} ({fit['rows_used']}; the `fitted:` block says how well). "
                                + "".join(f"{', '.join(p.key for p in PARAMETERS if p.key in keys)}: no row of it determined "
                                          f"{'them' if len(keys) > 1 else 'it'}: kept at {base.name}'s value{'s' if len(keys) > 1 else ''}, "
                                          + (f"which {base.name}'s own fit determined on its rows" if own else
                                             f"which {base.name} kept from an earlier fit ({origin}'s), determined on that fit's "
                                             "rows")
                                          + " (fitted.kept_from_earlier_fit; fitted.fitted_on says where). "
                                          for keys, own in ((kept - inherited, True), (inherited, False)) if keys)
                                + (f"{', '.join(p.key for p in PARAMETERS if p.key in loose)}: no row determined "
                                   f"{'them' if len(loose) > 1 else 'it'}: held {'near' if drifted else 'at'} "
                                   f"{'their' if len(loose) > 1 else 'its'} sourced start value{'s' if len(loose) > 1 else ''} "
                                   f"(the `fitted:` block's start)"
                                   + (f" by the fit's prior, the rows' pull below what determines a value moving "
                                      f"{spoken_list(drifted)}" if drifted else "") + ". "
                                   if loose else "")
                                + (f"{', '.join(sorted(fixed))}: held at {'their' if len(fixed) > 1 else 'its'} sourced start "
                                   f"value{'s' if len(fixed) > 1 else ''} (--fix). " if fixed else "")
                                + f"What follows is {origin}'s source, the start of this fit: " + source)
        # the file's opening comment spoke of the profile it came from (vllm.yaml's: how to refit it on the published
        # rows; a copy's: 'every field not set there is sglang's until edited'): this file's own instead (qa104)
        header = (f"# {name}: written by `roofline fit --engine {base.name}` on {_shown_path(fit['file'])}: the file of "
                  f"{base.name} it started from, its comments kept, with the fitted values.\n")
        doc.ca.comment = None
    doc["name"] = name
    for p in PARAMETERS:
        doc[p.key] = _quantity_text(p, getattr(engine, p.field))
    entries = doc.get("overrides") or []
    for glob, key in fit.get("dropped_overrides", []):  # fitted on other rows by an earlier --per-family fit
        for entry in [e for e in entries if e.get("hardware") == glob and key in e]:
            del entry[key]
    determined = [i for i in fit.get("per_family", []) if i["determined"]]
    refilled = {glob for item in determined for glob in item["globs"]}
    for i in reversed(range(len(entries))):  # in place: the sequence keeps its comments, an entry refilled below its place
        if not set(entries[i]) - {"hardware"} and entries[i].get("hardware") not in refilled:
            del entries[i]
    if "overrides" in doc and not entries:
        del doc["overrides"]
    for item in determined:  # into the entry of the same glob, else a new one
        p = PARAMETERS[[q.key for q in PARAMETERS].index(item["parameter"])]
        entries = doc.setdefault("overrides", [])
        for glob in item["globs"]:
            entry = next((e for e in entries if e.get("hardware") == glob), None)
            if entry is None:
                entries.append({"hardware": glob})
                entry = entries[-1]
            entry[p.key] = _quantity_text(p, item["value"])
    used = fit["rows"][fit["rows"]["skipped"] == ""]
    doc["fitted"] = {
        "by": "roofline fit",
        "file": _shown_path(fit["file"]),
        "rows": fit["rows_used"],
        "row_numbers": " ".join(str(int(r)) for r in used["row"]),
        # what each measured, in the same order (measurements.row_fingerprints): accuracy knows a fitted row by it
        "row_fingerprints": " ".join(fit["fingerprints"][int(r)] for r in used["row"]),
        "date": _dt.date.today().isoformat(),
        "rms_log_error": round(fit["rms_log_error"]["fitted"], 4),
        "rms_log_error_at_start": round(fit["rms_log_error"]["start"], 4),
        "parameters": [p.key for p in PARAMETERS],
        "start": {p.key: round(p.to_unit(fit["start"][p.field]), 6) for p in PARAMETERS},
        "start_units": {p.key: p.unit or "number" for p in PARAMETERS},
        "bounds_hit": [row["parameter"] for row in fit["parameters"] if row["bound"]],
        "fixed": [row["parameter"] for row in fit["parameters"] if row["fixed"]],
        "not_determined_by_rows": [row["parameter"] for row in fit["parameters"] if not row["determined"] and not row.get("kept")],
        # the model classes its rows hold (serving.model_class): predict warns where a model of another class is priced
        "model_classes": fit["model_classes"],
        # the GPU families of its rows (fit.family_label): predict warns on a device of another family
        "hardware_families": fit["hardware_families"],
        # the sequences at once a replica of its rows ran (fewest, most): predict and sweeps warn far outside them
        "batches": _flow([round(b, 2) for b in fit["batches"]]),
    }
    if fit.get("kept"):  # determined by the earlier fit's rows, not these: its value and where its rows were, kept
        doc["fitted"]["kept_from_earlier_fit"] = [p.key for p in PARAMETERS if p.key in fit["kept"]]
    fitted_on = {**fit.get("fitted_on", {}), **{key: entry for key, entry in fit.get("kept", {}).items() if entry}}
    if fitted_on:  # the rows that determine each parameter: predict warns where a point is none of them
        doc["fitted"]["fitted_on"] = {name: {key: _flow(values) for key, values in entry.items()}
                                      for name, entry in fitted_on.items()}
    if fit.get("per_family") or fit.get("kept_per_family"):  # this fit's, and the earlier fit's values it kept
        doc["fitted"]["per_family"] = [f"{i['parameter']} on {i['family']} ({', '.join(i['globs'])}; {i['rows']} rows)"
                                       + ("" if i["determined"] else ": not determined, not written")
                                       for i in fit.get("per_family", [])] + list(fit.get("kept_per_family", []))
    if header and base.name not in ENGINE_SLOTS:  # a fitted copy: which engine it descends from, whatever is removed later
        header += lineage_comment(fit.get("lineage", ""))
    stream = io.StringIO()
    rt.dump(doc, stream)
    return header + stream.getvalue()


def check_fit_out(out: str | Path | None, force: bool = False) -> None:
    """Refuse, before anything is fitted, an `--out` the fitted profile would not be written to: a folder, an
    existing file without force, a name other than NAME.yaml / NAME.yml (the profile is named by the file's
    stem, as engine profiles are found), ideal.yaml (the pure roofline's name), or a folder it cannot create or write.
    None (no --out) passes."""
    if out is None:
        return
    from roofline.yamlio import check_file_out, check_file_target

    out = Path(out)
    check_file_target(out, force)  # a folder, or an existing file without force: said first
    if out.suffix not in PROFILE_SUFFIXES or not out.stem:
        raise RooflineError(f"--out: expected an engine profile file NAME.yaml (NAME becomes its name), found {out}")
    if out.stem.lower() == "ideal":
        raise RooflineError(f"--out: expected a name other than ideal (the pure roofline bound, which no measurement "
                            f"enters), found {out}")
    from roofline.profiles import check_not_shadowing, check_profile_name

    check_profile_name(out.stem, "--out")  # the rule `engines new` names profiles by: 'my vllm' would be one no command names

    check_not_shadowing("engine", out, force, "--out")  # a fitted vllm.yaml in a user folder replaces the built-in vllm
    from roofline.editing import check_no_other_file

    check_no_other_file(out, force, "engine")  # a hardware or model profile of that name is not replaced, --force or not
    check_file_out(out, force)  # last: it tries writing where the profile goes (no folder made yet)


def write_fitted_profile(fit: dict, out: str | Path, force: bool = False) -> Path:
    """Validate the fitted profile text as an engine profile named after the file (`out`'s stem), then write it
    atomically (`check_fit_out` first: the CLI calls it before fitting too)."""
    from roofline.yamlio import load_yaml_text, write_text_atomic

    check_fit_out(out, force)
    text = fitted_profile_text(fit, Path(out).stem)
    written = engine_from_dict(load_yaml_text(text, str(out)), str(out))
    write_text_atomic(Path(out), text, force)
    base = fit["base"]
    if base.known_misses and not written.known_misses:  # qa388: a team's own misses deleted without a word
        n = len(base.known_misses)
        warn(f"{out}: known_misses: {base.name}'s {n} known miss{'es' if n > 1 else ''} not written: measured against "
             f"{base.name}'s predictions, not this fit's (`roofline engines show {base.name}` lists them; check each against "
             "the fitted profile before copying it in)")
    return Path(out)


def _eager_rows(fit: dict) -> list[str]:
    """A line where rows ran eagerly (their graphs column false): their passes floored by the engine's eager_launch, a
    sourced value the fit does not move (qa329: the fitted costs read as those of runs in graphs)."""
    used = fit["rows"][fit["rows"]["skipped"] == ""]
    eager = used[used["graphs"].eq(False)] if "graphs" in used else used.iloc[:0]
    if eager.empty:
        return []
    launch = fit["base"].eager_launch_s
    return [f"{len(eager)} of {len(used)} rows ran eagerly (graphs false): each pass no faster than its kernels x "
            f"eager_launch ({format_seconds(launch)}, sourced, not fitted), so the costs below are fitted on top of those "
            "launches" if launch else
            f"{len(eager)} of {len(used)} rows ran eagerly (graphs false), but {fit['base'].name} gives no eager_launch: "
            "they are predicted as in graphs, and the costs below take up their launches"]


def _faded_rows(fit: dict) -> list[str]:
    """A line naming the rows a robust loss weighs little (missed by more than 3 loss scales: the fit gave up on them
    to fit the rest), with the RMS log error over the others; none for the linear loss or where no row is that far."""
    if fit.get("loss", "linear") == "linear":
        return []
    used = fit["rows"][fit["rows"]["skipped"] == ""]
    far = used[np.abs(used["log_residual"]) > 3 * fit["loss_scale"]]
    if far.empty:
        return []
    rest = used.drop(far.index)["log_residual"]
    shown = ", ".join(str(int(r)) for r in far["row"][:12]) + (", ..." if len(far) > 12 else "")
    return [f"the {fit['loss']} loss weighs {len(far)} of {len(used)} rows little (predicted more than "
            f"{np.expm1(3 * fit['loss_scale']):.0%} above or {-np.expm1(-3 * fit['loss_scale']):.0%} below: rows {shown}); "
            f"RMS log error over the other rows "
            f"{float(np.sqrt(np.mean(rest ** 2))) if len(rest) else float('nan'):.3f}"]


def _per_family_none(per_family: tuple[str, ...], own: list[str], families: pd.Series) -> str:
    """Where --per-family was asked and no family has MIN_FAMILY_ROWS usable rows of its own (rows of one family, or of
    Hopper, whose value is the profile's): the line fit_report prints, which names the rows' families and counts (qa100);
    "" otherwise."""
    if not per_family or own:
        return ""
    counts = families.map(family_label).value_counts()
    held = ", ".join(f"{name} {n}" for name, n in counts.items())
    return (f"--per-family {', '.join(dict.fromkeys(per_family))}: no family beside {OTHER_FAMILY}, whose value is the "
            f"profile's own, has {MIN_FAMILY_ROWS} usable rows here (rows: {held}): one value fitted for all")


def _shown(value: float) -> str:
    """`value` to 4 significant digits, written out in full from 0.001 to 10^6 (bounds read 0-2000 us, not 0-2e+03)."""
    if value == 0 or 1e-3 <= abs(value) < 1e6:
        return np.format_float_positional(value, precision=4, unique=False, fractional=False, trim="-")
    return f"{value:.4g}"


def _worse_than_loaded(fit: dict) -> list[str]:
    """A line where the fitted values describe the rows worse than the profile as it is (qa407: `--fix
    overlap_exponent` held sglang's fitted 1 at its start, 3, and the written profile's 0.051 stood against the
    profile's own 0.023, unsaid), the parameters it held fixed named."""
    rms = fit["rms_log_error"]
    if "loaded" not in rms or not rms["fitted"] > 1.05 * rms["loaded"]:
        return []
    fixed = [row["parameter"] for row in fit["parameters"] if row.get("fixed") and row.get("loaded") is not None
             and abs(row["loaded"] - row["start"]) > 1e-9 * max(abs(row["loaded"]), 1.0)]  # held away from its value
    causes = ([f"the parameters held at a start other than the profile's value ({', '.join(fixed)})"] if fixed else []) + (
        ["the per-family values it dropped (listed below; --per-family NAME fits them again, as the profile's header "
         "says)"] if fit.get("dropped_overrides") else [])  # (qa412: the dropped overrides, the likelier cause, unsaid)
    return [f"worse than {fit['base'].name} as it is on these rows ({rms['fitted']:.3f} against {rms['loaded']:.3f}): "
            + (f"{' and '.join(causes)} keep the fit from the profile's values; " if causes else "")
            + f"{fit['base'].name} as it is describes them better"]


# the parameters whose larger value makes a step faster: an efficiency reached, the smooth roofline's exponent (its
# larger p the sharper max(); the rest are times, whose larger value makes it slower)
_FASTER_WHEN_LARGER = ("quantised_moe_efficiency", "weight_only_efficiency", "overlap_exponent")


def _pinned(fit: dict) -> list[str]:
    """A line where two or more parameters end at the bound that makes a step slowest, or fastest (qa407: rows 3x slower
    than any setup left kernel_latency, host_per_step and host_per_sequence at their high bounds, written with exit 0
    and nothing more said): the rows ask for more (or less) time than these costs can give. A bound is read by what it
    does to the step (an efficiency at its low bound asks for more time, a latency at its low bound for less), and a
    time at its floor of 0 (host work, speculation's costs) says only that the rows need none of it: not a device or
    dtype slip (qa426: speculation costs at 0 were blamed on them), so it is said on its own where nothing else is."""
    slowest, fastest, unneeded = [], [], []
    for row in fit["parameters"]:
        side, name = row.get("bound"), row["parameter"]
        if not side:
            continue
        larger_faster = name.split(" [")[0] in _FASTER_WHEN_LARGER  # 'quantised_moe_efficiency [AMD Instinct]' too
        if (side == "high") != larger_faster:
            slowest.append(name)
        elif side == "low" and row.get("low") == 0:
            unneeded.append(name)
        else:
            fastest.append(name)
    if len(slowest) >= 2:
        return [f"{len(slowest)} parameters at the bounds that make a step slowest ({', '.join(slowest)}): the rows ask "
                "for more time than these costs allow; check for a run without graphs (graphs false: --enforce-eager), "
                "another device than its hardware column, or a throughput per user written as tokens_per_s"]
    if fastest and len(fastest) + len(unneeded) >= 2:
        return [f"{len(fastest) + len(unneeded)} parameters at the bounds that make a step fastest "
                f"({', '.join(fastest + unneeded)}): the rows ask for less time than the device allows; check for "
                "another device than its hardware column, or weights in a smaller dtype than its weight_dtype column says"]
    if len(unneeded) >= 2:
        speculative = [name for name in unneeded if name.startswith("spec_")]
        return [f"{len(unneeded)} costs at 0, their floor ({', '.join(unneeded)}): the rows need none of them"
                + ("; a speculative row faster than its acceptance_length and k allow pins speculation's costs there: "
                   "check that they are the run's" if speculative else "")]
    return []


def fit_report(fit: dict) -> str:
    """The parameter table and the residual of every fitted row, as text for the terminal."""
    w = max([32] + [len(row["parameter"]) for row in fit["parameters"]])
    lines = [f"engine {fit['base'].name}: fitted on {fit['rows_used']}{fit.get('left_out', '')} of {fit['file']}",
             f"RMS log error {fit['rms_log_error']['start']:.3f} at the start values"
             + (f" ({fit['rms_log_error']['loaded']:.3f} with {fit['base'].name} as it is)" if "loaded" in fit["rms_log_error"] else "")
             + f" -> {fit['rms_log_error']['fitted']:.3f} fitted ({fit['evaluations']} evaluations; {fit['status']})"
             # qa334: a rise read as a fit that made things worse, where a robust loss gave up on a few rows (next line)
             + (f"; the {fit['loss']} loss minimises its own sum, not this RMS, which its far rows can raise"
                if fit.get("loss", "linear") != "linear" and fit["rms_log_error"]["fitted"] > fit["rms_log_error"]["start"] else ""),
             *_worse_than_loaded(fit), *_pinned(fit), *_faded_rows(fit), *_eager_rows(fit), ""]
    if fit.get("dropped_overrides"):  # said above the table, not inside it (qa187)
        lines.append("dropped: " + ", ".join(f"{key} on {glob}" for glob, key in fit["dropped_overrides"])
                     + " (override values an earlier --per-family fit wrote; --per-family NAME fits them again)")
    if fit.get("shadowed"):
        lines.append("kept: " + ", ".join(fit["shadowed"]) + " (sourced override values: on that hardware they replace the "
                     "fitted value, so those rows do not inform it)")
    if fit.get("per_family_none"):
        lines.append(fit["per_family_none"])
    if fit.get("dropped_overrides") or fit.get("shadowed") or fit.get("per_family_none"):
        lines.append("")
    lines += [f"{'parameter':<{w}} {'unit':>4} {'bounds':>15} {'start':>9} {'fitted':>9}  note", "-" * (w + 68)]
    for row in fit["parameters"]:
        note = ["fixed at its start value (--fix)"] if row["fixed"] else []
        had = row.get("loaded")  # qa223: --fix overlap_exponent moved sglang's fitted 1.0 to its start, 3, unsaid
        if row["fixed"] and had is not None and not row.get("family") and abs(had - row["fitted"]) > 1e-9 * max(abs(had), 1.0):
            note.append(f"the profile had {_shown(had)} (its earlier fit's): --fix keeps the sourced start, not that")
        if row["bound"]:
            edge = row[row["bound"]]  # within AT_BOUND_U of its range: 'near' where the value shown is not the bound's
            # (qa435: 0.8 us beside 'at low bound' and bounds 0-100)
            at = "at" if _shown(_at_low_bound(row["fitted"], row["low"], row["high"])) == _shown(edge) else "near"
            note.append(f"{at} {row['bound']} bound" + (  # qa271: the docs' fits hold it; the output did not say so
                ": --fix overlap_exponent holds it at its sourced start, as vllm.yaml's fit does"
                if row["parameter"] == "overlap_exponent" and not row["fixed"] else ""))
        if row.get("kept"):
            note.append("not determined by these rows: kept at the profile's value, its earlier fit's on other rows")
        elif not row["determined"] and not row["fixed"]:  # a family's value is pooled toward the profile's own fitted value
            span = row["high"] - row["low"]
            moved = abs(row["fitted"] - row["start"]) / span if span else 0.0  # against its range: a start of 0 too
            note.append("not determined by these rows (" + (f"moved from {_shown(row['start'])} to {_shown(row['fitted'])} by the other "
                        "parameters' fit, not by rows of its own" if moved > 0.02 and not row.get("family") else
                        "not written: the value shown applies there" if row.get("family") else "kept near start") + ")")
            had = row.get("loaded")  # the profile's value where an earlier fit set it (not a hand's, not a default's)
            if had is not None and not row.get("family") and abs(had - row["fitted"]) > 0.02 * span:  # qa187: said, not
                note.append(f"the profile had {_shown(had)} (its earlier fit's, on other rows; copy it into the fitted block's start: to keep it)")
        if row.get("together_with"):  # the rows fix a combination: --fix one of them to read the other (a family's value
            # cannot be fixed, qa100: rows of that family that move one and not the other would part them)
            how = ("rows of that family at other batches or models would part them" if row.get("family")
                   else "--fix one to read the other")
            note.append(f"determined only together with {', '.join(row['together_with'])} ({how})")
        fitted = _at_low_bound(row["fitted"], row["low"], row["high"])  # as the file writes it
        lines.append(f"{row['parameter']:<{w}} {row['unit']:>4} {_shown(row['low']):>7}-{_shown(row['high']):<7} "
                     f"{_shown(row['start']):>9} {_shown(fitted):>9}  {'; '.join(note)}")
        lines.append(f"    {row['meaning']}")
    lines += ["", "start, fitted: the row's quantity predicted at the start and the fitted values, in its unit (step_time_s "
                  "in seconds, tokens_per_s... in tokens/s, speedup a ratio); ln(p/m): the fitted prediction's log residual "
                  "(+0.262: 30% high, -0.223: 20% low); run at: the sequences decoded at once the row is predicted at (its "
                  "mean in flight where recorded, else its batch; at least 1, a throughput row's mean in flight below 1 "
                  "(a client idle between requests) scaling its tokens/s; capped by memory; predict --batch takes it rounded; "
                  "1.33x3: 1.33 in each of 3 replicas, where the row's gpus hold several: predict --batch takes a "
                  "replica's)",  # (qa310; qa388: a replica's batch of 1.33 was said as 4, which predict put 3% off)
              f"{'row':>4} {'source':<30} {'hardware':<14} {'model':<16} {'batch':>5} {'run at':>7} {'method':<6} {'quantity':<22} "
              f"{'measured':>10} {'start':>10} {'fitted':>10} {'ln(p/m)':>7}", "-" * 148]
    for r in fit["rows"].itertuples():
        if r.skipped:
            lines.append(f"{r.row:>4} {r.source_id[:30]:<30} skipped: {r.skipped}")
            continue
        replicas = int(getattr(r, "replicas", 1) or 1)
        run_at = format_count(r.running_batch) if replicas <= 1 else f"{format_count(r.running_batch / replicas)}x{replicas}"
        lines.append(f"{r.row:>4} {r.source_id[:30]:<30} {r.hardware:<14} {r.model[:16]:<16} {r.batch:>5} "
                     f"{run_at:>7} {r.method:<6} {r.quantity:<22} {r.value:>10.4g} {r.start_predicted:>10.4g} "
                     f"{r.fitted_predicted:>10.4g} {r.log_residual:>+7.3f}")
    capped = fit["rows"][fit["rows"]["memory_capped"]] if "memory_capped" in fit["rows"] else fit["rows"].iloc[:0]
    if len(capped):
        lines += ["", memory_capped_text(capped)]
    return "\n".join(lines)
