"""Scenario files: which hardware, model, layout, engine, method and axes a sweep covers (validated, one-line errors).

    name: eagle-on-hopper
    hardware: [h100-sxm, h200]          # one name or a list (a list is a sweep axis)
    model: llama-3.1-8b                 # one name or a list
    engine: vllm                        # serving engine profile (default: the realistic default; `ideal` is the pure roofline)
    method: eagle                       # none | draft | mtp | eagle | medusa | ngram
    draft: null                         # a model name when method is draft
    draft_hardware: null                # run the drafter on another device
    weight_dtype: bf16                  # overrides every weight class (default: the model's native precision)
    expert_dtype: null                  # overrides the routed and shared experts
    kv_dtype: bf16                      # bf16 | fp16 | fp32 | fp8 | int8
    tp: 1                               # tensor parallel; also dp_attention, ep, pp (layout.py)
    axes:                               # each a list or a range {start, stop, num, log}
      batch: {start: 1, stop: 256, num: 9, log: true}
      context: [1024, 8192]
      k: [1, 2, 3, 4, 5]
      alpha: [0.5, 0.6, 0.7, 0.8, 0.9]

Each of hardware, model, engine, weight_dtype, expert_dtype, kv_dtype, tp, dp_attention, ep and pp may
be a list: the sweep runs every combination (a "config"), each over the numeric axes in one vectorised
pass. Optional keys: description, overlap (default true), draft_vocab, acceptance (a list of
per-position rates used instead of the alpha axis), tree ({nodes: N, tau: T}: N draft nodes per
sequence, root excluded, verified as q = N + 1 tokens; the k axis is then the tree depth, one depth beside 0 at most),
shared_prefix (tokens of every sequence's context shared by the whole batch), type: scenario, and
layouts (a list of whole layouts, `[{tp: 8}, {dp_attention: 8, ep: 8}]`, swept side by side instead of every
combination of tp, dp_attention, ep and pp, which it replaces), acceptance_length ({tau: T, k: K}: a measured
acceptance length, tokens an iteration at draft length K, swept as the one alpha that gives it), and prompt and
output_len together (a request's tokens, as predict's --prompt and --output-len: the sweep adds a serving benchmark's
columns, grid.SERVING_COLUMNS, and the context axis defaults to the request's mean context, prompt + output_len / 2).
Missing axes default to batch [1], context [1024] (with a request, prompt + output_len / 2), k [0] with method none else
[4], alpha [0.8]; with
a method and no alpha axis or acceptance, the method's published default rates (speculation.py).
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from roofline.errors import (
    MISSING,
    RooflineError,
    UnknownName,
    closest_names,
    field_error,
    field_line,
    unknown_key_error,
    warn,
    with_line,
)
from roofline.limits import BATCH_MAX, CONTEXT_MAX, DEGREE_MAX, K_MAX
from roofline.model import KV_DTYPES, WEIGHT_DTYPES
from roofline.profiles import PROFILE_SUFFIXES, find_profile, is_profile_path, normalize_dtype, read_yaml
from roofline.speculation import (
    K_DEFAULT,
    METHODS,
    VOCAB_HEADS,
    alpha_from_acceptance_length,
    check_options,
    check_speculating,
    default_k,
    draft_vocab_of,
    method_name,
    unknown_method,
)
from roofline.units import PLAIN_NUMBER, count_spelling_hint, is_finite

AXES = ("batch", "context", "k", "alpha")
# the questions `roofline report` answers, each by the built-in scenario of its name (findings.FINDINGS)
REPORT_QUESTIONS = (
    "verify-mini-prefill", "flops-vs-time", "break-even-batch", "batch-vs-speculation", "kv-caps-batch",
    "shared-prefix", "draft-offload", "fast-tier-premium", "prefill-not-sped-up",
)
_KEYS = {
    "type", "name", "description", "question", "hardware", "model", "engine", "method", "draft", "draft_hardware",
    "weight_dtype", "expert_dtype", "kv_dtype", "tp", "dp_attention", "ep", "pp", "axes", "overlap",
    "draft_vocab", "acceptance", "tree", "shared_prefix", "layouts", "acceptance_length", "prompt", "output_len",
}
# keys that may be a list: every combination is one config of the sweep
CONFIG_KEYS = ("hardware", "model", "engine", "method", "draft_hardware", "weight_dtype", "expert_dtype", "kv_dtype",
               "tp", "dp_attention", "ep", "pp", "shared_prefix")
LAYOUT_KEYS = ("tp", "dp_attention", "ep", "pp")  # one layout; `layouts:` lists whole ones instead of crossing these


@dataclass(frozen=True)
class Scenario:
    name: str
    hardware: tuple[str, ...]
    model: tuple[str, ...]
    engine: tuple[str | None, ...] = (None,)
    method: tuple[str, ...] = ("none",)
    method_by_model: tuple[tuple[str, str], ...] = ()   # a mapping model -> method replaces the method axis
    draft: str | None = None
    draft_hardware: tuple[str | None, ...] = (None,)
    weight_dtype: tuple[str | None, ...] = (None,)
    expert_dtype: tuple[str | None, ...] = (None,)
    kv_dtype: tuple[str, ...] = ("bf16",)
    tp: tuple[int, ...] = (1,)
    dp_attention: tuple[int, ...] = (1,)
    ep: tuple[int, ...] = (1,)
    pp: tuple[int, ...] = (1,)
    overlap: bool = True
    draft_vocab: int | None = None
    acceptance: tuple[float, ...] | None = None
    tree_nodes: int | None = None
    tree_tau: float | None = None
    shared_prefix: tuple[int, ...] = (0,)
    layouts: tuple[tuple[int, int, int, int], ...] = ()  # (tp, dp_attention, ep, pp) each; () crosses the four keys
    acceptance_length: tuple[float, int] | None = None  # (tau, k) measured: the alpha axis is the alpha that gives it
    prompt: int | None = None       # a request's prompt and output tokens: the sweep adds a serving benchmark's columns
    output_len: int | None = None   # (time per output token and TTFT with the others' prefills; grid.SERVING_COLUMNS)
    description: str = ""
    question: str = ""  # the report question it answers (REPORT_QUESTIONS; '' : the one its name is, if any)
    axes: dict = field(default_factory=dict)
    path: str = ""

    @property
    def answers(self) -> str:
        """The report question whose finding and figure this scenario gets: its `question`, else its name where that
        is one (REPORT_QUESTIONS), else '' (the generic finding)."""
        return self.question or (self.name if self.name in REPORT_QUESTIONS else "")

    @property
    def layout_list(self) -> tuple[tuple[int, int, int, int], ...]:
        """Every (tp, dp_attention, ep, pp) the sweep runs: `layouts`, else every combination of the four keys."""
        return self.layouts or tuple(itertools.product(self.tp, self.dp_attention, self.ep, self.pp))

    @property
    def configs(self) -> int:
        return config_count({key: getattr(self, key) for key in CONFIG_KEYS if key not in LAYOUT_KEYS}, len(self.layout_list),
                            self.method_by_model)

    @property
    def methods(self) -> tuple[str, ...]:
        """Every method the scenario uses (the axis, or the values of the per-model mapping)."""
        return tuple(dict.fromkeys(m for _, m in self.method_by_model)) if self.method_by_model else self.method

    @property
    def points(self) -> int:
        return self.configs * int(np.prod([len(v) for v in self.axes.values()]))


def config_count(configs: dict, layouts: int, method_by_model: tuple = ()) -> int:
    """The configs a sweep runs of its CONFIG_KEYS' lists (`configs`; the layout keys counted in `layouts`): every
    combination, less those that are one config (grid.load_configs drops them): a model's method is its own under a
    per-model mapping, and a method that drafts on no device (none, ngram) runs once whatever draft_hardware lists
    (qa319, qa320: 'show' said 12 points of a sweep of 8). A dense model's expert dtype, one config too, is counted
    as given (the model is not loaded here): an upper bound there."""
    placed = len(configs.get("draft_hardware") or (None,))
    per_method = {m: 1 if m in ("none", "ngram") else placed for m in configs.get("method") or ("none",)}
    rest = math.prod(len(v) for k, v in configs.items() if k not in (*LAYOUT_KEYS, "model", "method", "draft_hardware"))
    if method_by_model:
        pairs = sum(per_method.get(m, placed) for _, m in method_by_model)
    else:
        pairs = len(configs.get("model") or (None,)) * sum(per_method.values())
    return rest * pairs * layouts


def _values(where: str, key: str, value: object, check) -> tuple:
    """A scalar or a non-empty list of distinct values, each passed through `check`."""
    items = value if isinstance(value, list) else [value]
    if not items or len(items) > 64:
        raise field_error(where, key, "a value or a list of 1..64 values", value)
    out = tuple(check(v) for v in items)
    if len(set(out)) != len(out):
        twice = next(v for v in out if out.count(v) > 1)
        spelled = [str(item) for item, v in zip(items, out) if v == twice]
        same = f" ({' and '.join(spelled)} are one: {twice})" if len(set(spelled)) > 1 else ""
        raise field_error(where, key, f"distinct values{same}", value)
    return out


def _degree(where: str, key: str):
    def check(v):
        if isinstance(v, float) and v.is_integer():  # tp: 2.0, as batch and context take whole floats (qa101)
            v = int(v)
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= DEGREE_MAX:
            raise field_error(where, key, f"an integer in 1..{DEGREE_MAX}", v)
        return v
    return check


def _prefix_tokens(where: str):
    """A shared prefix's tokens: a whole number in 0..CONTEXT_MAX, a whole float too (qa458: 1024.0 was refused as not
    'a number of tokens in 0..1,000,000,000', where tp: 2.0 and context 4096.0 are taken)."""
    def check(v):
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= AXIS_MAX["context"]:
            raise field_error(where, "shared_prefix", f"a whole number of tokens in 0..{CONTEXT_MAX:,}", v)
        return v
    return check


def _layouts(where: str, data: dict) -> tuple[tuple[int, int, int, int], ...]:
    """`layouts: [{tp: 8}, {dp_attention: 8, ep: 8}]`: whole layouts to sweep side by side (a missing degree is 1),
    instead of every combination of tp, dp_attention, ep and pp, some of which a model may not allow."""
    raw = data.get("layouts")
    if raw is None:
        return ()
    crossed = [key for key in LAYOUT_KEYS if key in data]
    if crossed:
        # (qa365: a copy's `--set layouts=...` beside its source's tp said no way out)
        raise field_error(where, "layouts", f"layouts or {', '.join(LAYOUT_KEYS)}, not both (an empty value removes one: "
                          f"--set {crossed[0]}=)", f"layouts and {crossed[0]}")
    if not isinstance(raw, list) or not raw:
        raise field_error(where, "layouts", "a non-empty list of mappings such as {tp: 8} or {dp_attention: 8, ep: 8}", raw)
    out = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or not item:
            raise field_error(where, f"layouts[{i}]", "a mapping of tp, dp_attention, ep and pp (each 1 where left out)", item)
        for key in item:
            if key not in LAYOUT_KEYS:
                close = {"dp": "dp_attention", "dp_attn": "dp_attention", "dp_attention_size": "dp_attention"}.get(str(key)) \
                    or next(iter(closest_names(str(key), list(LAYOUT_KEYS), 1, 0.7)), None)  # qa145: layouts: [{dp: 8}]
                raise field_error(where, f"layouts[{i}].{key}", "one of " + ", ".join(LAYOUT_KEYS)
                                  + (f" (did you mean {close!r}?)" if close else ""), key)
        layout = tuple(_degree(where, f"layouts[{i}].{key}")(item.get(key, 1)) for key in LAYOUT_KEYS)
        if layout in out:
            raise field_error(where, f"layouts[{i}]", "each layout once", item)
        out.append(layout)
    return tuple(out)


def _request(where: str, data: dict) -> tuple[int | None, int | None]:
    """A scenario's request, `prompt` and `output_len` (predict's --prompt and --output-len), both or neither: whole
    numbers of tokens in 1..CONTEXT_MAX, a whole float taken as one as the axes take it."""
    given = {key: data.get(key) for key in ("prompt", "output_len")}
    if (given["prompt"] is None) != (given["output_len"] is None):
        missing = "output_len" if given["output_len"] is None else "prompt"
        present = "prompt" if missing == "output_len" else "output_len"
        line = field_line(where, present)  # the line of the one given (qa354: said with no line)
        raise RooflineError(f"{where}: {f'line {line}: ' if line else ''}{missing}: expected a number of tokens beside "
                            f"{present} (a request's prompt and output tokens go together: the serving columns need both), "
                            "found nothing")
    for key, value in given.items():
        value = _number(value)  # a quoted "2000" or YAML 1.1's 2e3 (text) as the number, as the axes read them (qa347)
        if isinstance(value, float) and value.is_integer():
            given[key] = value = int(value)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= CONTEXT_MAX):
            error = field_error(where, key, f"a number of tokens in 1..{CONTEXT_MAX:,}" + (
                " (one request a scenario: a scenario for each prompt length)"
                if isinstance(value, list) else ""), data.get(key))  # (qa354: a list of prompts, refused unexplained)
            hint = count_spelling_hint(value, lambda n: 1 <= n <= CONTEXT_MAX) if isinstance(value, str) else ""
            raise RooflineError(f"{error}{hint}") if hint else error  # 2k (qa431), as --prompt says it
        given[key] = value
    return given["prompt"], given["output_len"]


FAR_CONTEXT_SHARE = 0.25  # a context further than this share of a request's mean context from it is said as far


def far_from_request(context, mean_context):
    """Whether a `context` (or each of an array) is far from a request's mean context: |c - mean| > FAR_CONTEXT_SHARE
    x mean (where a sweep, predict and the serving figure say that its steps are priced there, not at the mean)."""
    return np.abs(np.asarray(context, dtype=np.float64) - mean_context) > FAR_CONTEXT_SHARE * mean_context


def request_context(where: str, prompt: int, output_len: int, sets_context: bool = True) -> int:
    """A request's mean context over its life, prompt + output_len / 2 (rounded): the context a benchmark's steps decode
    at on average, where a sweep of it (its context axis' default) and predict (its context's) price it. Where it
    `sets_context` (none given), one line naming `where` if past CONTEXT_MAX (qa346, qa347: said of a context the user
    never gave)."""
    context = round(prompt + output_len / 2)
    if sets_context and context > CONTEXT_MAX:
        raise RooflineError(f"{where}: prompt and output_len: expected a request whose mean context, prompt + output_len / 2, "
                            f"is at most {CONTEXT_MAX:,} tokens (the context it sets where none is given), found {context:,}")
    return context


def _raise(error: Exception):
    """`raise` as an expression, for the value checks written as lambdas."""
    raise error


def _names(where: str, key: str, value: object) -> tuple[str, ...]:
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(v, str) and v for v in items):
        # (qa440: said to a library caller who may also give spec objects, unnamed)
        raise field_error(where, key, "a name or a non-empty list of names (a profile's name or its YAML file's path"
                          + ("; roofline.sweep also takes the spec objects load_hardware, load_model and load_engine "
                             "return)" if where == "sweep" else ")"), value)
    if len(set(items)) != len(items):
        raise field_error(where, key, "distinct names", value)
    return tuple(items)


def _number(value: object) -> object:
    """YAML 1.1 reads 1e3 (no dot, no exponent sign) as a string: accept it, and a quoted "8", as the number it is. Only
    a plain decimal in ASCII digits: float() also takes `1_000` (which the profiles refuse unquoted, YAML 1.1 and 1.2
    reading it apart), digits of other scripts and `nan` (qa185); those stay text, refused as such. A numpy number is
    the Python one (qa220: np.int32(4) refused as a range's num)."""
    if isinstance(value, str) and PLAIN_NUMBER.fullmatch(value.strip()):
        return float(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


AXIS_MAX = {"batch": BATCH_MAX, "context": CONTEXT_MAX, "k": K_MAX}
MAX_AXIS_VALUES = 1_000_000   # values in one axis (checked before the axis is allocated)
DEFAULT_MAX_POINTS = 50_000_000


def max_points() -> int:
    """The largest sweep accepted: ROOFLINE_MAX_POINTS if set (a positive integer), else 50 million."""
    import os

    text = os.environ.get("ROOFLINE_MAX_POINTS", "")
    if not text:
        return DEFAULT_MAX_POINTS
    try:
        value = int(float(text))
    except (ValueError, OverflowError):
        raise RooflineError(f"ROOFLINE_MAX_POINTS: expected a positive integer, found {text[:40]!r}") from None
    if value < 1:
        raise RooflineError(f"ROOFLINE_MAX_POINTS: expected a positive integer, found {text[:40]!r}")
    return value


SCENARIO_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$")


def name_from_file(path: str) -> str:
    """The name of a scenario that gives none: its file's, as SCENARIO_NAME allows it."""
    return re.sub(r"[^A-Za-z0-9._-]", "-", Path(path).stem).strip("-.")[:128].rstrip("-.") or "scenario"


RANGE_SYNONYMS = {"end": "stop", "max": "stop", "min": "start", "begin": "start", "count": "num", "n": "num",
                  "points": "num", "steps": "num", "logarithmic": "log", "geometric": "log"}  # a range's keys by other names


def _spelling_hint(name: str, value) -> str:
    """' (write 32768 for 32 x 1,024, or 32000 for 32 x 1,000)' for a count axis's value written '32k' or '1,024' (qa421:
    refused without the digits meant), each reading offered only inside the axis's bounds (qa427: batch 200M was offered
    209715200), '' otherwise."""
    if not isinstance(value, str) or name not in AXIS_MAX:
        return ""
    return count_spelling_hint(value, lambda n: (1 if name == "batch" else 0) <= n <= AXIS_MAX[name])


def _axis(where: str, name: str, spec: object) -> np.ndarray:
    key = f"axes.{name}"
    integer = name in ("batch", "context", "k")
    if isinstance(spec, dict):
        unknown = set(spec) - {"start", "stop", "num", "log", "step"}
        if unknown:  # the nearest key said, or the one a synonym means (qa242: `end` was told the five keys alone)
            first = sorted(unknown, key=str)[0]
            if str(first).lower() in RANGE_SYNONYMS:
                raise field_error(where, f"{key}.{first}", f"a known field (did you mean {RANGE_SYNONYMS[str(first).lower()]!r}?)",
                                  first)
            raise unknown_key_error(where, first, ("start", "stop", "num", "step", "log"), f"{key}.")
        if "step" in spec and "num" in spec:
            raise field_error(where, key, "either num or step, not both", f"num {spec['num']} and step {spec['step']}")
        if "step" not in spec and "num" not in spec:  # qa242: 'axes.k.num: expected a positive integer, found null'
            raise field_error(where, key, "a range with num (values) or step (spacing)", "neither")
        spec = {part: _number(v) for part, v in spec.items()}
        for part in ("start", "stop"):
            v = spec.get(part)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not is_finite(v):
                raise field_error(where, f"{key}.{part}", "a number", v)
        start, stop = float(spec["start"]), float(spec["stop"])
        if stop < start:
            raise field_error(where, key, "a range with stop >= start", f"start {spec['start']}, stop {spec['stop']}")
        log = spec.get("log", False)
        if not isinstance(log, bool):
            raise field_error(where, f"{key}.log", "true or false", log)
        if log and "step" in spec:  # qa218: a linear range of the step, the log ignored in silence
            raise field_error(where, f"{key}.log", "a log range with num ({start, stop, num, log: true}), not with step",
                              "log: true beside step")
        if "step" in spec:
            step = spec["step"]
            if isinstance(step, bool) or not isinstance(step, (int, float)) or not is_finite(step) or step <= 0:
                raise field_error(where, f"{key}.step", "a positive number", step)
            if integer and float(step) != int(step):
                raise field_error(where, f"{key}.step", "a whole number", step)
            if (stop - start) / step >= MAX_AXIS_VALUES:
                raise RooflineError(f"{where}: {key}.step: expected at most {MAX_AXIS_VALUES:,} values in the range, found "
                                    f"{math.floor((stop - start) / step) + 1:,} (step {step:g})")
            values = np.arange(start, stop + step * 1e-9, step)
        else:
            num = spec.get("num")
            if isinstance(num, float) and num.is_integer():  # 4.0, np.float64(4), YAML's "4": the whole number (qa218)
                num = int(num)
            if isinstance(num, bool) or not isinstance(num, int) or num < 1:
                raise field_error(where, f"{key}.num", "a positive integer", num)
            if num > MAX_AXIS_VALUES:
                raise field_error(where, f"{key}.num", f"at most {MAX_AXIS_VALUES:,} values per axis", num)
            if log and start <= 0:
                raise field_error(where, f"{key}.start", "a positive start for a log range", spec["start"])
            values = np.geomspace(start, stop, num) if log else np.linspace(start, stop, num)
            if num == 1 and stop != start:  # (qa319: stop dropped in silence)
                warn(f"{where}: {key}: num 1 sweeps the start alone ({spec['start']}); stop {spec['stop']} is not swept "
                     "(num 2 or more spans the range)")
    elif isinstance(spec, list):
        if not spec:
            raise field_error(where, key, "a non-empty list or a range", spec)
        if len(spec) > MAX_AXIS_VALUES:
            raise field_error(where, key, f"at most {MAX_AXIS_VALUES:,} values per axis", f"{len(spec):,} values")
        spec = [_number(v) for v in spec]
        for v in spec:
            if isinstance(v, list):  # a 2-D array or a nested list: say so, not just its first row
                raise RooflineError(f"{where}: {key}: expected a flat list of numbers (one axis), found a nested list "
                                    f"of {len(spec)} rows, the first {str(v)[:60]}")
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not is_finite(v):  # nan said as not finite (qa344)
                number = isinstance(v, (int, float)) and not isinstance(v, bool)
                error = field_error(where, key, "a list of finite numbers" if number else "a list of numbers", v)
                raise RooflineError(f"{error}{_spelling_hint(name, v)}")
        values = np.asarray(spec, dtype=np.float64)

    elif isinstance(_number(spec), (int, float)) and not isinstance(spec, bool):  # one value, read as a list's are
        value = _number(spec)
        if not is_finite(value):
            raise field_error(where, key, "a number", spec)
        values = np.asarray([value], dtype=np.float64)
    else:
        raise RooflineError(f"{field_error(where, key, 'a number, a list or a range {start, stop, num or step, log}', spec)}"
                            f"{_spelling_hint(name, spec)}")
    if name in AXIS_MAX and values.max() > AXIS_MAX[name]:
        top = float(values.max())
        raise field_error(where, key, f"values <= {AXIS_MAX[name]:,}",  # 1,000,000,000 as predict says it (qa421: 1e+09)
                          int(top) if top.is_integer() and top < 1e15 else top)  # as written: 100, not 100.0
    if integer:
        if isinstance(spec, list) and any(float(v) != int(v) for v in values):
            raise field_error(where, key, "whole numbers", spec)
        given = values
        values = np.unique(np.round(values).astype(np.int64))
        linear = isinstance(spec, dict) and not spec.get("log", False)  # a log range is rounded and merged by design
        if linear and not np.allclose(given, np.round(given), rtol=1e-9, atol=0):  # (1, 1.4, 2, 2.8 ...: docs/PROFILES.md)
            # qa99: {start: 1, stop: 10, num: 3} swept 1, 6, 10 without a word
            shown = ", ".join(f"{v:,}" for v in values[:8]) + (f", ... ({len(values):,} in all)" if len(values) > 8 else "")
            warn(f"{where}: {key}: a range of {len(given):,} values, not all whole, rounded to whole numbers: {shown}")
    else:  # 0.7999999999999999 from 0.5 + 3 x 0.1 (a range, or numpy's arange) is the 0.8 the user meant: `alpha == 0.8` must find it
        values = np.unique([float(f"{v:.12g}") for v in values])
    if isinstance(spec, list) and len(values) < len(spec):  # [4, 4, 2] swept 2, 4 without a word (qa99); 0.8 beside
        # 0.8000000000001 too (qa102: alike to 12 digits)
        warn(f"{where}: {key}: {len(spec):,} values given, {len(values):,} distinct: a value given twice (or two alike "
             "to 12 digits) is swept once")
    low = {"batch": 1, "context": 0, "k": 0}.get(name)
    # the first value given that is out of range, as written (qa365: [80, 85] said 85, [0, -3, 8] said -3)
    given_order = [float(v) for v in spec] if isinstance(spec, list) else [float(v) for v in values]
    if low is not None and values.min() < low:
        raise field_error(where, key, f"values >= {low}", int(next(v for v in given_order if v < low)))
    if name == "alpha" and (values.min() < 0 or values.max() > 1):
        raise field_error(where, key, "values in [0, 1]", next(v for v in given_order if not 0 <= v <= 1))
    return values


def check_draft_hardware(where: str, value: object) -> str | None:
    """A drafter's device: a hardware name, or None for the target's own devices; 'none' (or 'null', 'target') said as
    such, not looked up as a profile (qa112: "unknown hardware 'none'; closest: tpu-v5e")."""
    if value is None or (isinstance(value, str) and value.strip() and value.strip().lower() not in ("none", "null", "target")):
        return value
    if isinstance(value, str) and value.strip():
        raise RooflineError(f"{where}: draft_hardware: expected a hardware profile name, found {value!r}: the target's own "
                            "devices are null in a scenario file (- null in a list), None in Python, and no --draft-hardware "
                            "on the command line")
    raise field_error(where, "draft_hardware", "a hardware name or null", value)


def scenario_from_dict(data: dict, where: str = "<scenario>") -> Scenario:
    """Validate a scenario mapping; every problem is one line naming file, key, expected and found."""
    from roofline.profiles import kind_of

    kind = kind_of(data)[0]
    if kind not in (None, "scenario"):  # a profile of another kind given as a scenario: say so before its keys
        raise RooflineError(f"{where}: expected a scenario, found a {kind} profile"
                            + (f" (type: {data['type']})" if "type" in data else ""))
    for key in data:
        if key not in _KEYS:
            if str(key).startswith("tree_"):  # predict's tree_nodes / tree_tau: a scenario's `tree: {nodes, tau}` (qa140)
                raise field_error(where, key, "tree: {nodes: N, tau: T} (predict's tree_nodes and tree_tau, one mapping "
                                  "in a scenario)", key)
            if key in AXES:  # `context: 32k` beside prompt and output_len (qa431): an axis, under axes
                raise field_error(where, key, f"a known key ({key} is an axis: write it under axes, as axes.{key})", key)
            known = sorted(_KEYS - {"type"})
            close = closest_names(str(key), known, 1, 0.7)
            raise field_error(where, key, (f"a known key (did you mean {close[0]!r}?)" if close
                                           else "a known key (" + ", ".join(known) + ")"), key)
    for key in ("hardware", "model"):
        if key not in data:
            raise field_error(where, key, "a required key", MISSING)
    if data.get("type", "scenario") != "scenario":
        raise field_error(where, "type", "scenario (or no type)", data["type"])
    if not isinstance(data.get("description", ""), str):
        raise field_error(where, "description", "text", data["description"])
    raw_method = data.get("method", "none")
    method_by_model = ()
    if isinstance(raw_method, dict):  # each model speculates its own way
        models = _names(where, "model", data["model"])

        def key_of(name: object) -> str:  # a name in any case, as the model's profile is found (qa218); a path as written
            return str(name) if is_profile_path(str(name)) else str(name).strip().lower()
        given = {key_of(k): v for k, v in raw_method.items()}
        if len(given) != len(raw_method) or set(given) != {key_of(m) for m in models}:
            missing = [m for m in models if key_of(m) not in given]  # which side is off, said (qa319: a misspelt model in
            extra = [str(k) for k in raw_method if key_of(k) not in {key_of(m) for m in models}]  # the list read as a
            apart = "; ".join([*([f"no method for {', '.join(missing)}"] if missing else []),  # method fault)
                               *([f"{', '.join(extra)} not in model"] if extra else [])])
            raise field_error(where, "method", f"a method for each model ({', '.join(models)})" + (f": {apart}" if apart else ""),
                              sorted(map(str, raw_method)))
        by_model = {m: given[key_of(m)] for m in models}
        odd = next((m for m in models if not isinstance(by_model[m], str)), None)
        if odd is not None:  # qa145: a list or mapping here was hashed before any check (a traceback)
            raise field_error(where, f"method.{odd}", "one method name for the model (a list of methods sweeps every "
                              "model: method: [none, mtp])", by_model[odd])
        method_by_model = tuple((m, method_name(by_model[m])) for m in models)
        raw_method = list(dict.fromkeys(method_name(by_model[m]) for m in models))  # one method in two cases is one
        #   (qa320: eagle and EAGLE refused as 'expected distinct values')
    methods = tuple(dict.fromkeys(_values(where, "method", raw_method, lambda v: method_name(v) if isinstance(v, str) and method_name(v) in METHODS
                                          else _raise(unknown_method(where, v)))))
    draft = data.get("draft")
    if draft is not None and not isinstance(draft, str):
        raise field_error(where, "draft", "a draft model name", draft)
    configs = {
        "hardware": _names(where, "hardware", data["hardware"]),
        "model": _names(where, "model", data["model"]),
        "method": methods,
        "draft_hardware": _values(where, "draft_hardware", data.get("draft_hardware"), lambda v: check_draft_hardware(where, v)),
        "shared_prefix": _values(where, "shared_prefix", data.get("shared_prefix", 0), _prefix_tokens(where)),
        "engine": _values(where, "engine", data.get("engine"), lambda v: v if v is None or (isinstance(v, str) and v) else _raise(field_error(where, "engine", "an engine name", v))),
        "weight_dtype": _values(where, "weight_dtype", data.get("weight_dtype"), lambda v: None if v is None else normalize_dtype(v, WEIGHT_DTYPES, where, "weight_dtype")),
        "expert_dtype": _values(where, "expert_dtype", data.get("expert_dtype"), lambda v: None if v is None else normalize_dtype(v, WEIGHT_DTYPES, where, "expert_dtype")),
        "kv_dtype": _values(where, "kv_dtype", data.get("kv_dtype", "bf16"), lambda v: normalize_dtype(v, KV_DTYPES, where, "kv_dtype")),
        **{key: _values(where, key, data.get(key, 1), _degree(where, key)) for key in ("tp", "dp_attention", "ep", "pp")},
    }
    layouts = _layouts(where, data)
    overlap = data.get("overlap", True)
    if not isinstance(overlap, bool):
        raise field_error(where, "overlap", "true or false", overlap)
    raw_axes = data.get("axes")
    if "axes" in data and raw_axes is None:  # `axes:` with nothing under it (qa365: swept the defaults unsaid)
        warn(f"{where}: axes: empty: every axis takes its default (docs/PROFILES.md); leave the key out, or give an axis")
    raw_axes = {} if raw_axes is None else raw_axes
    if not isinstance(raw_axes, dict):  # checked before any truth test: a DataFrame has none
        raise field_error(where, "axes", "a mapping of axis name to list or range", raw_axes)
    for name in raw_axes:
        if name not in AXES:
            raise field_error(where, f"axes.{name}", "an axis among " + ", ".join(AXES), name)
    tree = data.get("tree")
    tree_nodes = tree_tau = None
    if tree is not None:
        if not isinstance(tree, dict) or set(tree) != {"nodes", "tau"}:
            raise field_error(where, "tree", "a mapping {nodes: N, tau: T}", tree)
        tree_nodes, tree_tau = tree["nodes"], tree["tau"]
    prompt, output_len = _request(where, data)
    mean_context = None if prompt is None else request_context(where, prompt, output_len, "context" not in raw_axes)
    defaults = {"batch": [1], "context": [1024 if mean_context is None else mean_context], "alpha": [0.8],
                "k": [0 if methods == ("none",) else default_k(next(m for m in methods if m != "none"), tree_nodes)]}
    import warnings

    with warnings.catch_warnings(record=True) as axis_notes:  # said once the scenario is valid: a rounding note
        warnings.simplefilter("always")  # before a refusal made two lines of one bad input
        axes = {name: _axis(where, name, raw_axes.get(name, defaults[name])) for name in AXES}
    points = (config_count(configs, len(layouts) or math.prod(len(configs[k]) for k in LAYOUT_KEYS), method_by_model)
              * math.prod(len(v) for v in axes.values()))  # as the sweep runs them (qa319, qa320: pairs counted it never runs)
    if points > max_points():
        raise field_error(where, "axes", f"at most {max_points():,} points (raise the limit with ROOFLINE_MAX_POINTS=N)",
                          f"{points:,} points")
    if prompt is not None and max(configs["shared_prefix"]) > prompt:  # as predict (qa349: a sweep did not say it;
        # qa354: warned, its serving columns described no request)
        raise field_error(where, "shared_prefix", f"at most the prompt's {prompt:,} tokens (a prefix every sequence "
                          "shares is part of each prompt: give prompt as the whole prompt, the prefix included)",
                          max(configs["shared_prefix"]))
    if max(configs["shared_prefix"]) > axes["context"].min():
        raise field_error(where, "shared_prefix", f"at most the smallest context of the sweep ({int(axes['context'].min()):,} "
                          f"tokens: a shared prefix is part of each sequence's context)", max(configs["shared_prefix"]))
    acceptance = data.get("acceptance")
    if acceptance is not None:
        if not isinstance(acceptance, list) or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in acceptance):
            raise field_error(where, "acceptance", "a non-empty list of rates in [0, 1]", acceptance)
        if "alpha" in raw_axes:
            raise field_error(where, "acceptance", "either acceptance or an alpha axis, not both", "an alpha axis too")
    draft_vocab = data.get("draft_vocab")
    measured = data.get("acceptance_length")
    if measured is not None:  # {tau: 2.635, k: 3}: the alpha that gives that acceptance length at that k
        if not isinstance(measured, dict) or set(measured) != {"tau", "k"}:
            raise field_error(where, "acceptance_length", "a mapping {tau: T, k: K} (tokens an iteration, bonus included, "
                              "measured at draft length K)", measured)
        if "alpha" in raw_axes or acceptance is not None or tree is not None:
            beside = "an alpha axis" if "alpha" in raw_axes else "acceptance" if acceptance is not None else "a tree"
            raise field_error(where, "acceptance_length", "it alone (not beside an alpha axis, acceptance or a tree)",
                              f"{beside} too")  # qa130: "found 'both'"
        if all(m == "none" for m in methods):
            raise field_error(where, "acceptance_length", "a speculation method beside it", "method none")
        k_measured = measured["k"]
        if isinstance(k_measured, float) and k_measured.is_integer():  # 3.0, as the axes take it
            k_measured = int(k_measured)
        if isinstance(k_measured, bool) or not isinstance(k_measured, int) or not 1 <= k_measured <= K_MAX:
            raise field_error(where, "acceptance_length.k", f"the draft length it was measured at, an integer in 1..{K_MAX}", k_measured)
        axes["alpha"] = np.asarray([alpha_from_acceptance_length(where, measured["tau"], k_measured)])
        if "k" not in raw_axes:  # swept at the k it was measured at, not the method's default (qa426: 2.6 at k = 3 ran at 4)
            axes["k"] = np.asarray([k_measured], dtype=axes["k"].dtype)
        measured = (float(measured["tau"]), k_measured)
    alpha_given = "alpha" in raw_axes or measured is not None
    if draft is not None and "draft" not in methods:
        raise field_error(where, "draft", "a draft model only with method draft", draft)
    if draft_vocab is not None and not set(VOCAB_HEADS) & set(methods):
        raise field_error(where, "draft_vocab", "a draft vocabulary only with method eagle or medusa", draft_vocab)
    try:  # errors name the file's own keys: tree.tau, tree.nodes, axes.k, axes.alpha (the API's tree_tau, k, alpha)
        check_speculating(where, methods, alpha=axes["alpha"] if alpha_given else None, acceptance=acceptance,
                          tree_nodes=tree_nodes, draft_hardware=next((d for d in configs["draft_hardware"] if d is not None), None),
                          k=axes["k"] if "k" in raw_axes else None, overlap=overlap)
        for method in methods:  # a draft model applies to method draft, a draft vocabulary to eagle
            check_options(where, method, draft=draft if method == "draft" else None,
                          draft_vocab=draft_vocab_of(method, draft_vocab),
                          alpha=axes["alpha"] if alpha_given else None, acceptance=acceptance,
                          tree_nodes=tree_nodes, tree_tau=tree_tau, k=axes["k"], k_given="k" in raw_axes)
    except RooflineError as err:
        text = str(err)
        for api, key in ((": tree_tau:", ": tree.tau:"), (": tree_nodes:", ": tree.nodes:"), (": k:", ": axes.k:"),
                         (": alpha:", ": axes.alpha:")):
            text = text.replace(api, key, 1)
        # the option names in the message's body too, as the file spells them (qa130: 'tree_nodes + 1 = 21')
        text = text.replace("tree_nodes + 1", "tree.nodes + 1").replace("its tau from tree_tau", "its tau from tree.tau")
        raise RooflineError(text) from None
    depths = [int(d) for d in axes["k"] if d > 0]
    if tree_nodes is not None and len(depths) > 1:  # qa345: figures, reports and cheapest took the fastest of several
        # depths, which under one tau is always the shallowest (only the draft steps change): an artefact
        raise field_error(where, "axes.k", "one tree depth (0, plain decoding, may stand beside it): a tree's tau is "
                          "measured at its depth, and at another depth it is unknown (a tree of another depth is a "
                          "scenario of its own, with its measured tau)", depths)
    if not alpha_given:
        axes["alpha"] = np.asarray([np.nan])  # acceptance given, a tree, or each method's published default rates
    name = data.get("name", name_from_file(where))
    if not isinstance(name, str) or not SCENARIO_NAME.match(name):  # a report names its files after it: no path in it
        raise field_error(where, "name", "a name of 1 to 128 ASCII letters, digits, '-', '_' and '.' (not starting with "
                          "'.' or '-'), as a file is named", name)
    question = data.get("question")
    if question is not None and question not in REPORT_QUESTIONS:
        raise field_error(where, "question", "one of the report's questions (" + ", ".join(REPORT_QUESTIONS) + ")", question)
    for note in axis_notes:
        warnings.warn_explicit(note.message, note.category, note.filename, note.lineno)
    if mean_context is not None and "context" in raw_axes:  # qa204's note, as predict says it, once the scenario is valid
        contexts = np.asarray(axes["context"])
        off = contexts[far_from_request(contexts, mean_context)][:5].astype(int).tolist()  # (qa346: a loop)
        if off:
            warn(f"{where}: axes.context: a request of {prompt:,} prompt and {output_len:,} output tokens decodes at "
                 f"{mean_context:,} on average, and the serving columns at context {', '.join(f'{c:,}' for c in off[:4])}"
                 f"{' ...' if len(off) > 4 else ''} price its steps there (leave axes.context out to sweep at {mean_context:,}, "
                 "a benchmark's mean context)")
    if tree_nodes is not None and "k" not in raw_axes:  # qa207: predict says it too
        medusa = tuple(methods) == ("medusa",)  # its k is its heads, one pass (qa402: said as a depth)
        warn(f"{where}: tree: {tree_nodes} nodes at {'k = ' if medusa else 'depth k = '}{int(axes['k'][0])}"
             f"{' heads' if medusa else ''}, the default ({K_DEFAULT}, at most the nodes): "
             + ("give axes.k, Medusa's heads (its one draft pass runs every head: its cost depends on them)" if medusa else
                "give axes.k, the tree's depth (each draft step widens the tree, so its draft time depends on it)"))
    repeats = len(axes["k"]) * len(axes["alpha"])
    if "none" in methods and len(methods) > 1 and not method_by_model and repeats > 1:  # qa205: 90 of 180 rows copies
        warn(f"{where}: method: none beside {', '.join(m for m in methods if m != 'none')}: plain decoding's rows repeat "
             f"for each of the {repeats} (k, alpha) values of the axes, which do not change them (its rows are every "
             "speculative row's baseline_* columns, and the k = 0 rows where axes.k holds 0: leave none out)")
    return Scenario(
        name=name,
        **configs,
        method_by_model=method_by_model,
        draft=draft,
        overlap=overlap,
        draft_vocab=draft_vocab,
        acceptance=None if acceptance is None else tuple(float(a) + 0.0 for a in acceptance),  # -0 as 0 (qa135)
        tree_nodes=tree_nodes,
        tree_tau=None if tree_tau is None else float(tree_tau),
        layouts=layouts,
        acceptance_length=measured,
        prompt=prompt,
        output_len=output_len,
        description=str(data.get("description", "")),
        question=question or "",
        axes=axes,
        path=where,
    )


def missing_scenario_file(path: Path, extra_dirs: tuple[str | Path, ...] = ()) -> RooflineError:
    """'PATH: scenario file not found', with the built-in of that name where one exists (a README command run outside
    the checkout: `scenarios/moe-verify-cost.yaml` is the built-in `moe-verify-cost`)."""
    try:
        builtin = find_profile("scenario", path.stem, extra_dirs)
    except RooflineError:
        return RooflineError(f"{path}: scenario file not found")
    return RooflineError(f"{path}: scenario file not found (a scenario of that name is on the search path, {builtin}: "
                         f"give its name, {path.stem})")


def load_scenario(name_or_path: str, extra_dirs: tuple[str | Path, ...] = ()) -> Scenario:
    """A scenario from a file path or a name on the search path."""
    path = scenario_file(name_or_path, extra_dirs)
    data = read_yaml(path)
    try:
        return scenario_from_dict(data, str(path))
    except RooflineError as exc:  # a key's line where its check did not say it
        raise with_line(str(path), exc) from None


def is_bare_name(name_or_path) -> bool:
    """Whether a scenario is given by a name, as the README gives it (no folder, no .yaml), not by a file's path."""
    path = Path(name_or_path)
    return str(name_or_path) == path.name and path.suffix not in PROFILE_SUFFIXES


def scenario_file(name_or_path: str, extra_dirs: tuple[str | Path, ...] = ()) -> Path:
    """The file a scenario's path or name gives (a name on the search path, a user file standing in for a built-in
    said), or one line: a folder, a device, a file not found. The one rule `sweep` and `report` take (qa126: report's
    copy said 'unknown scenario' for a folder or a device)."""
    path = Path(name_or_path)
    if not path.is_file():
        bare = is_bare_name(name_or_path)
        if path.is_dir() and not bare:  # a folder named like a scenario (its own sweep's --out) is not the name (qa113)
            raise RooflineError(f"{path}: expected a scenario file, found a folder")
        if path.exists() and not path.is_dir():  # a device or a FIFO: said so, not 'not found' (qa114)
            from roofline.yamlio import check_regular_file

            check_regular_file(path)
        if is_profile_path(str(path)):
            raise missing_scenario_file(path, extra_dirs)
        try:
            path = find_profile("scenario", name_or_path, extra_dirs)
        except UnknownName:
            if path.is_dir():  # a folder of that name, and no scenario: the folder is what was meant (qa116)
                raise RooflineError(f"{path}: expected a scenario file, found a folder") from None
            raise
        scenario_shadow_warning(name_or_path, extra_dirs)
    return path


def scenario_shadow_warning(name: str, extra_dirs: tuple[str | Path, ...] = ()) -> None:
    """Warn where scenario `name` (a name, not a path) is a user file standing in for a built-in scenario."""
    from roofline.profiles import shadow_note

    note = shadow_note("scenario", name, extra_dirs)
    if note:
        warn(note)
