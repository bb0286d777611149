"""Scenario files: which hardware, model, method and axes a sweep covers (validated, one-line errors).

    name: eagle-on-hopper
    hardware: [h100-sxm, h200]          # one name or a list
    model: llama-3.1-8b                 # one name or a list
    method: eagle                       # none | draft | mtp | eagle | ngram
    draft: null                         # a model name when method is draft
    draft_hardware: null                # run the drafter on another device (overlapped with verify)
    weight_dtype: bf16                  # bf16 | fp16 | fp32 | fp8 | int8 | int4 | fp4
    kv_dtype: bf16                      # bf16 | fp16 | fp32 | fp8 | int8
    tp: 1
    axes:                               # each a list or a range {start, stop, num, log}
      batch: {start: 1, stop: 256, num: 9, log: true}
      context: [1024, 8192]
      k: [1, 2, 3, 4, 5]
      alpha: [0.5, 0.6, 0.7, 0.8, 0.9]

Optional keys: description, overlap (default true), bookkeeping_s, draft_vocab, acceptance (a list of
per-position rates used instead of the alpha axis), tree ({nodes: N, tau: T}: N draft nodes per
sequence, root excluded, verified as q = N + 1 tokens; the k axis is then the tree depth), type: scenario.
Missing axes default to batch [1], context [1024], k [0] with method none else [4], alpha [0.8].
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from roofline.errors import RooflineError, field_error
from roofline.model import KV_DTYPES, WEIGHT_DTYPES
from roofline.profiles import find_profile, read_yaml
from roofline.speculation import METHODS

AXES = ("batch", "context", "k", "alpha")
_KEYS = {
    "type", "name", "description", "hardware", "model", "method", "draft", "draft_hardware",
    "weight_dtype", "kv_dtype", "tp", "axes", "overlap", "bookkeeping_s", "draft_vocab", "acceptance", "tree",
}


@dataclass(frozen=True)
class Scenario:
    name: str
    hardware: tuple[str, ...]
    model: tuple[str, ...]
    method: str = "none"
    draft: str | None = None
    draft_hardware: str | None = None
    weight_dtype: str = "bf16"
    kv_dtype: str = "bf16"
    tp: int = 1
    overlap: bool = True
    bookkeeping_s: float = 0.0
    draft_vocab: int | None = None
    acceptance: tuple[float, ...] | None = None
    tree_nodes: int | None = None
    tree_tau: float | None = None
    description: str = ""
    axes: dict = field(default_factory=dict)
    path: str = ""

    @property
    def points(self) -> int:
        return len(self.hardware) * len(self.model) * int(np.prod([len(v) for v in self.axes.values()]))


def _names(where: str, key: str, value: object) -> tuple[str, ...]:
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(v, str) and v for v in items):
        raise field_error(where, key, "a name or a non-empty list of names", value)
    return tuple(items)


def _number(value: object) -> object:
    """YAML 1.1 reads 1e3 (no dot, no exponent sign) as a string: accept it as the number it is."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


AXIS_MAX = {"batch": 1e8, "context": 1e9, "k": 64}


def _axis(where: str, name: str, spec: object) -> np.ndarray:
    key = f"axes.{name}"
    integer = name in ("batch", "context", "k")
    if isinstance(spec, dict):
        unknown = set(spec) - {"start", "stop", "num", "log", "step"}
        if unknown:
            raise field_error(where, f"{key}.{sorted(unknown)[0]}", "start, stop, num or step, log", sorted(unknown)[0])
        if "step" in spec and "num" in spec:
            raise field_error(where, key, "either num or step, not both", "both")
        spec = {part: _number(v) for part, v in spec.items()}
        for part in ("start", "stop"):
            v = spec.get(part)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise field_error(where, f"{key}.{part}", "a number", v)
        start, stop = float(spec["start"]), float(spec["stop"])
        if stop < start:
            raise field_error(where, key, "a range with stop >= start", f"start {spec['start']}, stop {spec['stop']}")
        log = spec.get("log", False)
        if not isinstance(log, bool):
            raise field_error(where, f"{key}.log", "true or false", log)
        if "step" in spec:
            step = spec["step"]
            if isinstance(step, bool) or not isinstance(step, (int, float)) or not math.isfinite(step) or step <= 0:
                raise field_error(where, f"{key}.step", "a positive number", step)
            if integer and float(step) != int(step):
                raise field_error(where, f"{key}.step", "a whole number", step)
            if (stop - start) / step > 1e8:
                raise field_error(where, f"{key}.step", "at most 1e8 values in the range", step)
            values = np.arange(start, stop + step * 1e-9, step)
        else:
            num = spec.get("num")
            if isinstance(num, bool) or not isinstance(num, int) or num < 1:
                raise field_error(where, f"{key}.num", "a positive integer", num)
            if log and start <= 0:
                raise field_error(where, f"{key}.start", "a positive start for a log range", spec["start"])
            values = np.geomspace(start, stop, num) if log else np.linspace(start, stop, num)
    elif isinstance(spec, list):
        if not spec:
            raise field_error(where, key, "a non-empty list or a range", spec)
        spec = [_number(v) for v in spec]
        for v in spec:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise field_error(where, key, "a list of numbers", v)
        values = np.asarray(spec, dtype=np.float64)
    elif isinstance(spec, (int, float)) and not isinstance(spec, bool):
        values = np.asarray([spec], dtype=np.float64)
    else:
        raise field_error(where, key, "a list or a range {start, stop, num, log}", spec)
    if name in AXIS_MAX and values.max() > AXIS_MAX[name]:
        raise field_error(where, key, f"values <= {AXIS_MAX[name]:g}", float(values.max()))
    if integer:
        if isinstance(spec, list) and any(float(v) != int(v) for v in values):
            raise field_error(where, key, "whole numbers", spec)
        values = np.unique(np.round(values).astype(np.int64))
    else:
        values = np.unique(values)
    low = {"batch": 1, "context": 0, "k": 0}.get(name)
    if low is not None and values.min() < low:
        raise field_error(where, key, f"values >= {low}", int(values.min()))
    if name == "alpha" and (values.min() < 0 or values.max() > 1):
        raise field_error(where, key, "values in [0, 1]", float(values.min() if values.min() < 0 else values.max()))
    return values


def scenario_from_dict(data: dict, where: str = "<scenario>") -> Scenario:
    """Validate a scenario mapping; every problem is one line naming file, key, expected and found."""
    for key in data:
        if key not in _KEYS:
            raise field_error(where, key, "a known key (" + ", ".join(sorted(_KEYS - {"type"})) + ")", key)
    for key in ("hardware", "model"):
        if key not in data:
            raise field_error(where, key, "a required key", "nothing")
    method = data.get("method", "none")
    if method not in METHODS:
        raise field_error(where, "method", " | ".join(METHODS), method)
    draft = data.get("draft")
    if method == "draft" and not isinstance(draft, str):
        raise field_error(where, "draft", "a draft model name when method is draft", draft)
    if draft is not None and (method != "draft" or not isinstance(draft, str)):
        raise field_error(where, "draft", "null unless method is draft", draft)
    draft_hardware = data.get("draft_hardware")
    if draft_hardware is not None and not isinstance(draft_hardware, str):
        raise field_error(where, "draft_hardware", "a hardware name", draft_hardware)
    for key, allowed in (("weight_dtype", WEIGHT_DTYPES), ("kv_dtype", KV_DTYPES)):
        if data.get(key, "bf16") not in allowed:
            raise field_error(where, key, " | ".join(allowed), data.get(key))
    tp = data.get("tp", 1)
    if isinstance(tp, bool) or not isinstance(tp, int) or tp < 1:
        raise field_error(where, "tp", "a positive integer", tp)
    overlap = data.get("overlap", True)
    if not isinstance(overlap, bool):
        raise field_error(where, "overlap", "true or false", overlap)
    bookkeeping = data.get("bookkeeping_s", 0.0)
    if isinstance(bookkeeping, bool) or not isinstance(bookkeeping, (int, float)) or not math.isfinite(bookkeeping) or bookkeeping < 0:
        raise field_error(where, "bookkeeping_s", "a non-negative number of seconds", bookkeeping)
    raw_axes = data.get("axes") or {}
    if not isinstance(raw_axes, dict):
        raise field_error(where, "axes", "a mapping of axis name to list or range", raw_axes)
    for name in raw_axes:
        if name not in AXES:
            raise field_error(where, f"axes.{name}", "an axis among " + ", ".join(AXES), name)
    defaults = {"batch": [1], "context": [1024], "k": [0 if method == "none" else 4], "alpha": [0.8]}
    axes = {name: _axis(where, name, raw_axes.get(name, defaults[name])) for name in AXES}
    acceptance = data.get("acceptance")
    if acceptance is not None:
        if not isinstance(acceptance, list) or not acceptance or not all(
            isinstance(a, (int, float)) and not isinstance(a, bool) and 0 <= a <= 1 for a in acceptance
        ):
            raise field_error(where, "acceptance", "a non-empty list of rates in [0, 1]", acceptance)
        if "alpha" in raw_axes:
            raise field_error(where, "acceptance", "either acceptance or an alpha axis, not both", "both")
        axes["alpha"] = np.asarray([np.nan])
    tree = data.get("tree")
    tree_nodes = tree_tau = None
    if tree is not None:
        if not isinstance(tree, dict) or set(tree) != {"nodes", "tau"}:
            raise field_error(where, "tree", "a mapping {nodes: N, tau: T}", tree)
        tree_nodes, tree_tau = tree["nodes"], tree["tau"]
        if isinstance(tree_nodes, bool) or not isinstance(tree_nodes, int) or tree_nodes < 1:
            raise field_error(where, "tree.nodes", "a positive integer", tree_nodes)
        if isinstance(tree_tau, bool) or not isinstance(tree_tau, (int, float)) or not 1 <= tree_tau <= tree_nodes + 1:
            raise field_error(where, "tree.tau", f"a number in [1, nodes + 1 = {tree_nodes + 1}]", tree_tau)
    draft_vocab = data.get("draft_vocab")
    if draft_vocab is not None and (isinstance(draft_vocab, bool) or not isinstance(draft_vocab, int) or draft_vocab < 1):
        raise field_error(where, "draft_vocab", "a positive integer", draft_vocab)
    name = data.get("name", Path(where).stem)
    if not isinstance(name, str) or not name:
        raise field_error(where, "name", "a non-empty string", name)
    return Scenario(
        name=name,
        hardware=_names(where, "hardware", data["hardware"]),
        model=_names(where, "model", data["model"]),
        method=method,
        draft=draft,
        draft_hardware=draft_hardware,
        weight_dtype=data.get("weight_dtype", "bf16"),
        kv_dtype=data.get("kv_dtype", "bf16"),
        tp=tp,
        overlap=overlap,
        bookkeeping_s=float(bookkeeping),
        draft_vocab=draft_vocab,
        acceptance=None if acceptance is None else tuple(float(a) for a in acceptance),
        tree_nodes=tree_nodes,
        tree_tau=None if tree_tau is None else float(tree_tau),
        description=str(data.get("description", "")),
        axes=axes,
        path=where,
    )


def load_scenario(name_or_path: str, extra_dirs: tuple[str | Path, ...] = ()) -> Scenario:
    """A scenario from a file path or a name on the search path."""
    path = Path(name_or_path)
    if not path.is_file():
        if path.suffix in (".yaml", ".yml"):
            raise RooflineError(f"{path}: scenario file not found")
        path = find_profile("scenario", name_or_path, extra_dirs)
    return scenario_from_dict(read_yaml(path), str(path))
