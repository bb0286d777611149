"""Serving measurements as rows, and the roofline's prediction of each row.

A measurements table (CSV; columns in measurements/README.md) holds one measured figure per row: the
deployment (hardware, gpus, tp, ep, dp_attention, model, dtypes), the workload (batch or concurrency,
input_len, output_len), the speculation (method, k, acceptance_length) and one `quantity` with its
`value`. `load_measurements` checks every cell and names file, row and column in one line when one is
wrong (row 1 is the first line under the header). `convert_benchmark` turns the result files of
`vllm bench serve` / vLLM's benchmark_serving.py (JSON) and SGLang's bench_serving (JSONL) into rows.

Prediction of a row (docs/ACCURACY.md), with B the row's batch, P = input_len, O = output_len:

    layout      N = tp * dp_attention * pp devices per replica (a row that counts SGLang's attention-DP ranks
                inside tp, tp = dp_attention * tp_layout on `gpus` = tp devices, is read that way);
                R = gpus / N replicas (data parallel), each decoding B_r = B / R sequences
    context     S = P + O / 2                                        (mid-decode)
    running     b = min(C_r, max_batch(P + O))                        the engine admits only the sequences whose KV
                                                                     cache fits (capacity.py, usable memory); the
                                                                     rest wait in its queue. Below, B_r stands for b.
                                                                     (An engine's cap while speculating,
                                                                     max_running_requests_speculating, is not applied:
                                                                     the harnesses that measure speculation at a large
                                                                     batch set the server's cap to it, SpecForge's
                                                                     bench_eagle3.py and SGLang's bench_speculative.py
                                                                     passing --max-running-requests; a row whose
                                                                     server ran fewer records them in C_r.)
                C_r = concurrency / R where the row gives the mean number of requests in flight over the run
                (`concurrency`, SGLang bench_serving's "Concurrency": the sum of request latencies over the
                duration, by Little's law what the engine ran on average; for a time-per-token row whose server
                queued requests, the mean of its log's running count: what it decoded at once), else C_r = B_r
    per token   t_tok = t_step(B_r, q = 1, S)                        without speculation
                t_tok = t_iter(B_r, k, S) / tau                      with it (a tree row, draft_tokens > 0: t_iter of
                                                                     a tree of draft_tokens - 1 nodes, tau = acceptance_length);
                                                                     for a chain, tau from acceptance_length through a
                                                                     scalar alpha, (1 - a^(k+1)) / (1 - a) = tau,
                                                                     else the method's default rates
    quantity    tokens_per_s_per_user = 1 / t_tok
                step_time_s  = t_tok + (B_r - 1) * t_stall / O                  (a serving benchmark's TPOT at
                               concurrency B_r: the prefills of the other B_r - 1 requests stall its decode
                               steps; 0 at B_r = 1), where
                     t_stall = t_prefill(1, P)                          an engine that runs a prefill as a pass of its
                                                                        own (vLLM V0, SGLang's default)
                     t_stall = t_pass(B_r q_v + P) - t_pass(B_r q_v)    an engine whose prefill joins a decode step
                                                                        (`mixed_prefill`: vLLM V1, TensorRT-LLM's
                                                                        in-flight batching): what P more tokens
                                                                        add to a pass of the B_r q_v tokens decoding
                                                                        (q_v = 1, k + 1 verifying a chain,
                                                                        draft_tokens a tree); t_pass(T) is one
                                                                        sequence of T tokens on an empty cache: the
                                                                        decode pass already pays the weights'
                                                                        streaming, the kernel latencies and the host
                                                                        work, so the stall is what the added tokens'
                                                                        compute and activations add beyond them
                                                                        (under the smooth roofline less than their
                                                                        compute alone while the pass streams weights
                                                                        anyway), less the attention between the
                                                                        prompt's and the decoding tokens, which one
                                                                        sequence of T tokens prices and no batch runs
                                                                        (engine.arrival_stall_s' t_cross, qa352); at
                                                                        most t_prefill(1, P) (qa103). All B_r q_v tokens count in
                                                                        one attention group: rows with dp_attention
                                                                        > 1 over-count the group's by that factor
                tokens_per_s = R * B_r * O / (t_prefill(B_r, P) + O * t_tok)   (end-to-end output throughput:
                               one prefill pass of the B_r prompts, then O tokens each), or where the row gives
                               its mean in flight (`concurrency`: requests arriving as others finish)
                tokens_per_s = R * min(C_r, B_r) * O / (t_prefill(1, P) + O * t_tok + (B_r - 1) * t_stall)
                               Little's law: B_r requests in flight, each living its own prefill and O decode
                               steps, stalled by the prefills of the B_r - 1 others that arrive meanwhile, as the
                               step_time_s row prices them (qa115: SGLang's throughput row ran up to 48% above
                               what its own predicted time per token allows); a mean in flight below 1 (a client
                               idle between requests) decodes one sequence at a time, B_r = 1, but completes
                               C_r of them at once (qa206: 0.49 in flight was priced as 1, 94% fast)
                speedup      = tau * t_step(B_r, 1, S) / t_iter                (decode speedup)

t_prefill(b, P) is one forward pass of b sequences x P tokens on an empty cache with logits for the last
token (engine.step_metrics with prefill=True; ttft_s at b = 1), paying the engine's costs like any pass.
Rows are predicted in groups that share hardware, model, layout, method and engine: one vectorised call
per group, so re-predicting the rows with another engine (the fit does it hundreds of times) is cheap.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd

from roofline.capacity import capacity
from roofline.engine import arrival_stall_s, step_metrics
from roofline.errors import MISSING, RooflineError, closest_names, field_error, said_as, warn
from roofline.hardware import HardwareSpec, load_hardware
from roofline.layout import Deployment, deployment
from roofline.limits import BATCH_MAX, CONTEXT_MAX, DEGREE_MAX, DRAFT_VOCAB_MAX, GPUS_MAX, K_MAX, TREE_NODES_MAX
from roofline.model import KV_DTYPES, WEIGHT_DTYPES, ModelSpec, load_model
from roofline.profiles import DTYPE_ALIASES, is_profile_path, normalize_dtype
from roofline.serving import (
    DEFAULT_ENGINE,
    IDEAL,
    ServingEngine,
    engine_refusals,
    for_engine,
    load_engine,
    speculation_engine_notes,
)
from roofline.speculation import (
    DEFAULT_RATES,
    METHODS,
    alpha_from_tau,
    check_draft_vocab,
    drafter_prefill_stall_s,
    drafter_warnings,
    speculative_metrics,
)
from roofline.units import PLAIN_NUMBER, format_count, is_finite

QUANTITIES = ("tokens_per_s_per_user", "step_time_s", "tokens_per_s", "speedup")
COLUMNS = ("source_id", "source", "engine", "engine_version", "hardware", "gpus", "tp", "ep", "dp_attention", "model",
           "weight_dtype", "kv_dtype", "batch", "concurrency", "input_len", "output_len", "method", "k", "acceptance_length",
           "draft_tokens", "quantity", "value", "split", "notes")
REQUIRED = ("hardware", "gpus", "tp", "model", "weight_dtype", "kv_dtype", "batch", "input_len", "output_len",
            "method", "k", "quantity", "value")
# optional columns and their value when absent or empty
DEFAULTS = {"source_id": "", "source": "", "engine": "", "engine_version": "", "ep": "1", "dp_attention": "1", "pp": "1",
            "concurrency": "", "acceptance_length": "", "draft_tokens": "0", "split": "fit", "notes": "", "draft": "",
            "draft_vocab": "", "graphs": ""}
OPTIONAL_WRITTEN = ("graphs",)  # optional columns write_measurements writes where rows fill them
ENGINE_SLOTS = ("vllm", "vllm-v0", "sglang", "sglang-early", "trtllm")
# the servers' own method names (vLLM's --speculative-config method, SGLang's --speculative-algorithm) as convert reads them
SERVER_METHODS = {"eagle3": "eagle", "eagle-3": "eagle", "draft_model": "draft", "standalone": "draft",
                  "deepseek_mtp": "mtp", "qwen3_next_mtp": "mtp", "nextn": "mtp", "[ngram]": "ngram"}
SPLITS = ("fit", "heldout")
METHOD_WITHOUT_RATES = {"draft": "a draft model has", "medusa": "Medusa's heads have"}  # methods DEFAULT_RATES lacks
MAX_ROWS = 100_000
MAX_FILE_BYTES = 64 * 1024 * 1024
_DRAFT_IN_NOTES = re.compile(r"(?:^|[\s;,(])draft=([A-Za-z0-9._\-]+)")
# draft_vocab=N (or draft_vocab_size=N, the heads' config key) in notes: the key in any case, not inside a longer word,
# spaces around '=' allowed; the value is what runs to a space, ';', ')' or ']' (a trailing ',', ':', '.' or quote of
# the prose dropped), checked whole: '32,000' is refused, never read as 32; the key without '=' is refused (qa161)
_DRAFT_VOCAB_IN_NOTES = re.compile(r"(?<![A-Za-z0-9_])draft_vocab(?:_size)?(?![A-Za-z0-9_])(\s*=\s*([^\s;)\]]*))?",
                                   re.IGNORECASE)


def default_measurements_path() -> Path:
    """measurements/published.csv of this checkout."""
    return Path(__file__).resolve().parent.parent / "measurements" / "published.csv"


VLLM_V1_FROM = (0, 8, 0)  # vLLM's V1 engine is the default from 0.8.0; up to 0.7 the V0 engine ran
SGLANG_CURRENT_FROM = (0, 4, 5)  # after SGLang switched its default attention backends per architecture (FA3 on
#   Hopper for GQA and MLA: sgl-project/sglang issue 5064, 2025-04-04); the dataset's rows are 0.4.2-0.4.3 or >= 0.5.3
_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")


def _version(text: str) -> tuple[int, int, int] | None:
    """The first major.minor[.patch] in `text` ("0.4.3.post2" -> (0, 4, 3)), or None."""
    m = _VERSION.search(str(text))
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)) if m else None


def _refused_method_warning(engines, method: str, engine_version: str) -> None:
    """convert's warning where the rows' engine has no drafter of `method` (its profile's speculation_refused: SGLang and
    TensorRT-LLM have no Medusa; qa223: converted, fitted and scored in silence): fit and accuracy leave them out."""
    from roofline.serving import load_engine

    for engine in engines:
        slot = engine_slot(engine, engine_version)
        try:
            refused = bool(slot) and method in load_engine(slot).speculation_refused
        except RooflineError:
            continue
        if refused:  # qa224: 'name the engine that did (--engine)' could not be done: convert's --engine names the slot
            warn(f"--method {method} under {engine}: its profile ({slot}) has no {method} drafter (speculation_refused), so "
                 f"fit and accuracy leave these rows out; if your server ran it, fit or score them with --engine NAME, a "
                 f"copy that has one: roofline engines new NAME --from {slot} --set 'speculation_refused=[]'")


def engine_slot(engine_text: str, engine_version: str = "") -> str | None:
    """The engine profile a row's `engine` text names: vllm (vllm-v0 when `engine_version` is below 0.8: the
    V0 engine), sglang (sglang-early below 0.4.5), trtllm (TensorRT-LLM, NIM on it), or None (gpt-fast, HF
    reference code, ...: predicted with the default engine unless --engine says otherwise). A version without a
    number reads as current."""
    text = str(engine_text).strip().lower()
    version = _version(engine_version)
    if "vllm" in text:
        return "vllm-v0" if version and version < VLLM_V1_FROM else "vllm"
    if "sglang" in text:
        return "sglang-early" if version and version < SGLANG_CURRENT_FROM else "sglang"
    if "tensorrt" in text or "trt-llm" in text or "trtllm" in text or "trt_llm" in text:
        return "trtllm"
    return None


# ---------------------------------------------------------------- loading and checking

def _cell_error(where: str, row: int, column: str, expected: str, found: object) -> RooflineError:
    shown = repr(found)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return RooflineError(f"{where}: row {row}: {column}: expected {expected}, found {shown}")


def _integers(df: pd.DataFrame, column: str, where: str, low: int, high: int) -> np.ndarray:
    out = np.zeros(len(df), dtype=np.int64)
    for i, text in enumerate(df[column]):
        t = text.strip()
        if not PLAIN_NUMBER.fullmatch(t):  # qa279: 1_33 and full-width digits were read
            raise _cell_error(where, i + 1, column, f"an integer in {low}..{high:,} (ASCII digits)", text)
        try:
            value = int(t)
        except ValueError:
            try:
                as_float = float(t)
                value = int(as_float) if is_finite(as_float) and as_float == int(as_float) else None
            except (ValueError, OverflowError):
                value = None
        if value is None or not low <= value <= high:
            raise _cell_error(where, i + 1, column, f"an integer in {low}..{high:,}", text)
        out[i] = value
    return out


def _floats(df: pd.DataFrame, column: str, where: str, expected: str, optional: bool = False) -> np.ndarray:
    out = np.full(len(df), np.nan)
    for i, text in enumerate(df[column]):
        t = text.strip()
        if optional and t == "":
            continue
        try:
            value = float(t) if PLAIN_NUMBER.fullmatch(t) else float("nan")
        except ValueError:
            value = float("nan")
        if not is_finite(value) or value <= 0:
            raise _cell_error(where, i + 1, column, expected, text)
        out[i] = value
    return out


def _choice(df: pd.DataFrame, column: str, where: str, allowed: tuple[str, ...], aliases: dict | None = None) -> list[str]:
    out = []
    for i, text in enumerate(df[column]):
        t = text.strip().lower()
        t = (aliases or {}).get(t.replace("-", "_"), t)
        if t not in allowed:
            hint = (f" ({t} is the server's name for `{SERVER_METHODS[t]}`, as `measurements convert --method {t}` reads "
                    "it" + ("; an EAGLE-3 head's reduced vocabulary goes in draft_vocab" if SERVER_METHODS[t] == "eagle"
                           else "") + ")" if column == "method" and t in SERVER_METHODS else "")  # (qa388: no hint)
            raise _cell_error(where, i + 1, column, "one of " + ", ".join(allowed) + hint, text)
        out.append(t)
    return out


def _graphs(raw: pd.DataFrame, where: str) -> list:
    """Each row's `graphs` cell: True, False (any case), or None where empty (the predicting engine's own)."""
    out = []
    for i, text in enumerate(raw["graphs"]):
        t = text.strip().lower()
        if t not in ("true", "false", ""):
            raise _cell_error(where, i + 1, "graphs", "true, false, or empty (the engine's own)", text)
        out.append(None if t == "" else t == "true")
    return out


def check_measurements(raw: pd.DataFrame, where: str) -> pd.DataFrame:
    """Check a table of text cells (every column a string) and return it typed; one line per problem."""
    missing = [c for c in REQUIRED if c not in raw.columns]
    if missing:
        hint = ("; a serving benchmark's result file? convert it first: roofline measurements convert"
                if str(where).lower().endswith((".json", ".jsonl")) else "")
        raise RooflineError(f"{where}: header: expected the columns {', '.join(REQUIRED)} (measurements/README.md), "
                            f"found no {', '.join(missing)}{hint}")
    header_again = np.flatnonzero(np.all([raw[c].astype(str).str.strip() == c for c in REQUIRED], axis=0))
    if header_again.size:  # qa115: two converted CSVs joined with `cat` read as 'gpus: found 'gpus''
        raise RooflineError(f"{where}: row {int(header_again[0]) + 1}: expected a measurement, found the header again "
                            "(CSV files joined with their headers? keep the first header line only)")
    known = set(COLUMNS) | set(DEFAULTS)
    unknown = [c for c in raw.columns if c not in known]
    for column in unknown:  # a misspelt optional column would be read as absent: its default, silently
        close = closest_names(column, sorted(known), 1, 0.85)  # EP for ep, num_draft_tokens for draft_tokens (qa94)
        if str(column).strip().lower() in ("eager", "enforce_eager"):  # qa329, qa331: its values the opposite of graphs'
            raise RooflineError(f"{where}: header: expected a column the tool reads, found {column!r} (the tool reads "
                                "graphs, its opposite: graphs false where the run was eager, true or empty where not)")
        close = ["graphs"] if str(column).strip().lower() == "cuda_graphs" else close
        if close and close[0] not in raw.columns:  # beside the column it resembles it is an annotation: warned below
            raise RooflineError(f"{where}: header: expected a column the tool reads, found {column!r} (did you mean {close[0]!r}? "
                                "measurements/README.md lists them)")
    if unknown:
        warn(f"{where}: columns not read: {', '.join(map(str, unknown))} (measurements/README.md lists the columns)")
    if len(raw) == 0:
        raise RooflineError(f"{where}: expected at least one measurement row under the header, found none")
    if len(raw) > MAX_ROWS:
        raise RooflineError(f"{where}: expected at most {MAX_ROWS:,} rows, found {len(raw):,}")
    raw = raw.copy()
    for column, default in DEFAULTS.items():
        if column not in raw.columns:
            raw[column] = default
        raw[column] = raw[column].where(raw[column].str.strip() != "", default)
    for column in REQUIRED + ("hardware", "model"):
        empty = np.nonzero((raw[column].str.strip() == "").to_numpy())[0]
        if empty.size:
            raise _cell_error(where, int(empty[0]) + 1, column, "a value", "")
    df = pd.DataFrame({"row": np.arange(1, len(raw) + 1)})
    for column in ("source_id", "source", "engine", "engine_version", "notes", "draft"):
        df[column] = raw[column].str.strip().to_numpy()
    spelled: dict[str, dict[str, str]] = {}  # the names as the file writes them, where lower-cased (written_name)
    for column in ("hardware", "model"):  # a name in any case, a profile's path as written (qa279: /Users/x lowercased)
        written = raw[column].str.strip()
        df[column] = [v if is_profile_path(v) else v.lower() for v in written]
        spelled[column] = {low: v for low, v in zip(df[column], written) if low != v}
    for column, high in (("gpus", GPUS_MAX), ("tp", DEGREE_MAX), ("ep", DEGREE_MAX), ("dp_attention", DEGREE_MAX), ("pp", DEGREE_MAX)):
        df[column] = _integers(raw, column, where, 1, high)
    df["weight_dtype"] = _choice(raw, "weight_dtype", where, WEIGHT_DTYPES, DTYPE_ALIASES)
    df["kv_dtype"] = _choice(raw, "kv_dtype", where, KV_DTYPES, DTYPE_ALIASES)
    df["batch"] = _integers(raw, "batch", where, 1, BATCH_MAX)
    df["concurrency"] = _floats(raw, "concurrency", where, "the mean requests in flight (> 0), or empty", optional=True)
    over = np.flatnonzero(df["concurrency"].to_numpy() > df["batch"].to_numpy() + 1e-9)
    if over.size:
        i = int(over[0])
        raise _cell_error(where, i + 1, "concurrency", f"at most the batch ({int(df['batch'].iloc[i])}: the client's cap)",
                          raw["concurrency"].iloc[i])
    df["input_len"] = _integers(raw, "input_len", where, 1, CONTEXT_MAX)
    df["output_len"] = _integers(raw, "output_len", where, 1, CONTEXT_MAX)
    df["method"] = _choice(raw, "method", where, METHODS)
    df["k"] = _integers(raw, "k", where, 0, K_MAX)
    df["acceptance_length"] = _floats(raw, "acceptance_length", where, "tokens per iteration >= 1 (tau), or empty", optional=True)
    df["draft_tokens"] = _integers(raw, "draft_tokens", where, 0, TREE_NODES_MAX + 1)  # a tree's nodes and its root
    df["quantity"] = _choice(raw, "quantity", where, QUANTITIES)
    df["value"] = _floats(raw, "value", where, "a finite positive number")
    df["split"] = _choice(raw, "split", where, SPLITS)
    # false: the run was eager; true: in graphs; empty: as the engine predicting it says (every shipped profile: graphs)
    df["graphs"] = _graphs(raw, where)
    for i, r in enumerate(df.itertuples()):
        n = i + 1
        if r.method == "none" and r.k != 0:
            raise _cell_error(where, n, "k", "0 with method none", str(r.k))
        if r.method != "none" and r.k == 0:
            raise _cell_error(where, n, "k", f"at least 1 draft token with method {r.method}", "0")
        if not np.isnan(r.acceptance_length):
            if r.method == "none":
                raise _cell_error(where, n, "acceptance_length", "empty with method none", r.acceptance_length)
            if not 1.0 <= r.acceptance_length <= r.k + 1:
                raise _cell_error(where, n, "acceptance_length", f"tokens per iteration in [1, k + 1 = {r.k + 1}]",
                                  r.acceptance_length)
        if r.draft_tokens:  # a tree: the target verifies draft_tokens per sequence, and tau is measured
            if r.method == "none":
                raise _cell_error(where, n, "draft_tokens", "empty or 0 with method none", str(r.draft_tokens))
            if r.draft_tokens < r.k + 1:
                raise _cell_error(where, n, "draft_tokens", f"at least k + 1 = {r.k + 1} tokens verified per sequence",
                                  str(r.draft_tokens))
            if np.isnan(r.acceptance_length):
                raise _cell_error(where, n, "acceptance_length", "the measured tau of the tree (draft_tokens given)", "")
        if r.quantity == "speedup" and r.method == "none":
            raise _cell_error(where, n, "quantity", "a speed (not speedup) with method none", r.quantity)
        if r.method == "draft" and not (r.draft or _DRAFT_IN_NOTES.search(r.notes)):
            raise _cell_error(where, n, "draft", "a draft model name (a draft column, or draft=NAME in notes) with method draft", "")
    df["draft"] = [r.draft or (m.group(1) if (m := _DRAFT_IN_NOTES.search(r.notes)) and r.method == "draft" else "")
                   for r in df.itertuples()]
    df["draft_vocab"] = _draft_vocab(raw, df, where)
    df["engine_slot"] = [engine_slot(e, v) or "" for e, v in zip(df["engine"], df["engine_version"])]
    df.attrs["spelled"] = spelled  # not a column: row fingerprints hash the columns, a name's case is not what it measured
    return df


def written_name(table: pd.DataFrame, column: str, name: str) -> str:
    """`name` (a lower-cased hardware or model of `table`) as its file wrote it, for a message that quotes it (qa426:
    'unknown hardware 'a100-sxm-80gb-x'' of an A100-SXM-80GB-X written)."""
    return (table.attrs.get("spelled") or {}).get(column, {}).get(name, name)


def name_error(where: str, row: int, column: str, name: str, table: pd.DataFrame, exc: Exception) -> RooflineError:
    """'FILE: row N: COLUMN: unknown ... 'NAME' ...': a profile's load error of a row's name, the name as written."""
    text = str(exc).replace(f"'{name}'", f"'{written_name(table, column, name)}'", 1)
    return RooflineError(f"{where}: row {row}: {column}: {text}")


def _draft_vocab(raw: pd.DataFrame, df: pd.DataFrame, where: str) -> np.ndarray:
    """Each row's EAGLE head vocabulary (a draft_vocab column, or draft_vocab=N in notes; 0: the target's): EAGLE-3
    heads draft over a reduced vocabulary (32,000 tokens in most), an LM head of that many rows a draft step."""
    out = np.zeros(len(df), dtype=np.int64)
    for i, (given, notes, method) in enumerate(zip(raw["draft_vocab"].str.strip(), df["notes"], df["method"])):
        found = list(_DRAFT_VOCAB_IN_NOTES.finditer(notes))
        bare = next((m for m in found if m.group(1) is None), None)
        if bare is not None:
            raise _cell_error(where, i + 1, "draft_vocab", "draft_vocab=N in notes (a number after '=')",
                              notes[bare.start():bare.end() + 12].strip())
        said = [m.group(2).rstrip(",:.'\"") for m in found]
        texts = list(dict.fromkeys(([given] if given else []) + said))
        if not texts:
            continue
        if method != "eagle":
            raise _cell_error(where, i + 1, "draft_vocab", f"none with method {method} (an EAGLE head's own vocabulary: a "
                              "draft_vocab column or draft_vocab=N in notes)", texts[0])
        for text in texts:
            if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= DRAFT_VOCAB_MAX:
                raise _cell_error(where, i + 1, "draft_vocab", f"a whole number of tokens in 1..{DRAFT_VOCAB_MAX:,} (digits "
                                  "only)", text)
        if len({int(t) for t in texts}) > 1:
            raise _cell_error(where, i + 1, "draft_vocab", "one value (the column and notes, or notes twice, differ)",
                              ", ".join(texts))
        out[i] = int(texts[0])
    return out


def _blank_line(record: list[str]) -> bool:
    """Whether a CSV record is a line pandas skips (skip_blank_lines): empty or blanks only, no comma in it (qa360,
    qa363: ' , ' and ',,,' are rows, of empty fields)."""
    return len(record) <= 1 and not "".join(record).strip()


def _rows_with_lines(path: Path):
    """(the file line it starts on, its fields) of each data row of a measurements CSV, as the loader numbers rows:
    below the header, blank lines skipped (_blank_line), a quoted note's line breaks inside its row."""
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as handle:
        records = csv.reader(handle)
        next(records, None)
        end = records.line_num
        for fields in records:
            start, end = end + 1, records.line_num
            if not _blank_line(fields):
                yield start, fields


def _check_field_counts(path: Path, header_fields: int) -> None:
    """One line naming the first data row (numbered as every other message numbers them: _rows_with_lines, its file
    line beside it, qa360) whose field count is not the header's (qa100: pandas' 'Expected 24 fields in line 7, saw 25',
    and a row of 10 fields reported as its 11th column being empty); one of empty fields only (a spreadsheet's) is not
    checked here."""
    for row, (start, fields) in enumerate(_rows_with_lines(path), start=1):
        if len(fields) != header_fields and any(f.strip() for f in fields):
            raise RooflineError(f"{path}: row {row} (line {start}): expected {header_fields} fields, as the header has, found "
                                f"{len(fields)}" + (" (a value with a comma needs quotes)" if len(fields) > header_fields else ""))


def load_measurements(path: str | Path) -> pd.DataFrame:
    """Read and check a measurements CSV (measurements/README.md); typed columns plus `row` (1-based)
    and `engine_slot` (vllm | sglang | trtllm | '' for other code)."""
    from roofline.yamlio import check_text_table

    if not isinstance(path, (str, Path)):  # qa213: a number raised pathlib's TypeError
        raise field_error("load_measurements", "path", "a file path (str or Path)", path)
    path = Path(path)
    if not path.exists():
        shipped = default_measurements_path()
        hint = (f" (the shipped measurements are {shipped})" if path.name == shipped.name and shipped.is_file() else "")
        raise RooflineError(f"{path}: cannot read: no such file{hint}")
    if path.is_dir():
        raise RooflineError(f"{path}: expected a measurements CSV file, found a folder")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise RooflineError(f"{path}: expected at most {MAX_FILE_BYTES:,} bytes, found {path.stat().st_size:,}")
    check_text_table(path, "a measurements table (CSV)", whole_rows=False)  # written by hand: short rows are blanks
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        header = handle.readline()
    if header.count(";") > header.count(",") and "hardware" in header:  # a spreadsheet's export in a comma-decimal locale
        raise RooflineError(f"{path}: header: expected columns separated by commas, found them separated by ';' "
                            "(save it as 'CSV UTF-8 (comma delimited)', with '.' as the decimal point)")
    if header.count("\t") > header.count(",") and "hardware" in header:  # qa271: 13 columns said missing of a TSV
        raise RooflineError(f"{path}: header: expected columns separated by commas, found them separated by tabs "
                            "(a TSV: save it as CSV, comma delimited)")
    if header.lstrip().startswith(("{", "[")):  # qa115: a benchmark's JSON read as a header, a 25 KB line (qa116: by content)
        raise RooflineError(f"{path}: expected a measurements CSV, found JSON: a serving benchmark's result file? convert "
                            "it first: roofline measurements convert")
    if Path(path).suffix.lower() in (".yaml", ".yml") or ("," not in header and re.match(r"\s*[\w-]+:(\s|$)", header)):
        raise RooflineError(f"{path}: expected a measurements CSV, found YAML (a profile? an engine profile goes to "  # qa334
                            "--engine): the file's columns are in measurements/README.md")
    names = [n.strip() for n in next(csv.reader([header]), [])]
    twice = sorted({n for n in names if n and names.count(n) > 1})
    if twice:  # pandas would read the second as `k.1`, and the first silently
        shown = ", ".join(map(repr, twice[:5])) + (f" and {len(twice) - 5} more" if len(twice) > 5 else "")
        raise RooflineError(f"{path}: header: expected each column once, found {shown[:300]} twice")
    _check_field_counts(path, len(names))
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False, na_filter=False, skipinitialspace=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        raise RooflineError(f"{path}: not a valid CSV table: {str(exc).splitlines()[0][:160]}") from None
    filled = ~(raw.apply(lambda column: column.str.strip()) == "").all(axis=1).to_numpy()
    raw = raw.iloc[:int(np.flatnonzero(filled)[-1]) + 1 if filled.any() else 0]  # the empty rows a spreadsheet leaves at the end
    raw.columns = [str(c).strip() for c in raw.columns]
    duplicated = [c for c in raw.columns if list(raw.columns).count(c) > 1]
    if duplicated:
        raise RooflineError(f"{path}: header: expected each column once, found {duplicated[0]!r} twice")
    try:
        table = check_measurements(raw.astype(str), str(path))
    except RooflineError as exc:  # qa359: 'row 3' read as the file's line 3, the row above the one meant
        raise _with_file_line(exc, path) from None
    _warn_repeated_rows(table, str(path))
    return table


def _with_file_line(exc: RooflineError, path: Path) -> RooflineError:
    """`exc` with the file line a 'row N:' it names starts on ('row 3 (line 4):'; rows count from 1 below the header,
    blank lines skipped, a quoted cell over several lines counted whole), as an editor shows it."""
    found = re.match(r"(.*?: row )(\d+)(: .*)", str(exc), re.S)
    if not found:
        return exc
    starts = [start for start, _ in _rows_with_lines(path)]
    row = int(found.group(2))
    if not 1 <= row <= len(starts):
        return exc
    return RooflineError(f"{found.group(1)}{row} (line {starts[row - 1]}){found.group(3)}")


def repeated_rows(table: pd.DataFrame) -> pd.Series:
    """Whether each row repeats an earlier one in every column but its row number, notes, source text and source id (a
    boolean Series over table's index): one measurement pasted twice, which a fit would weigh twice."""
    return table.duplicated(_compared_columns(table), keep="first")


def row_fingerprints(table: pd.DataFrame) -> pd.Series:
    """A 10-hex digest of each row's measurement (a string Series over table's index): the columns repeated_rows
    compares but `split`, so that a row a fit took is known again in the file rewritten, reordered or split anew, by
    what it measured, not its row number (qa359: a file converted again with --force marked rows never fitted as in
    sample, and the fitted ones as not)."""
    columns = [c for c in _compared_columns(table) if c != "split"]

    def cell(value) -> str:
        if value is None or (isinstance(value, float) and not math.isfinite(value)):
            return ""
        if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
            return repr(float(value))  # 2048 and 2048.0 alike, whichever dtype the column took
        return str(value)

    return pd.Series([hashlib.sha1("\x1f".join(cell(v) for v in values).encode()).hexdigest()[:10]
                      for values in table[columns].itertuples(index=False, name=None)], index=table.index, dtype=object)


def _compared_columns(table: pd.DataFrame) -> list[str]:
    """The columns two rows are compared on for repeating one another: all but the row number, notes, source text and
    source id and engine version (its engine_slot stays: qa223, one result appended again under another --source-id,
    without its --engine-version, counted twice)."""
    return [c for c in table.columns if c not in ("row", "notes", "source", "source_id", "engine_version")]


def _warn_repeated_rows(table: pd.DataFrame, where: str) -> None:
    """Say where rows repeat an earlier row (repeated_rows), and which: each counts again, in a fit's weight and in
    accuracy's shares (qa100: rows 1-5 pasted twice were fitted as 22 rows in silence; qa203: the first not named)."""
    again = repeated_rows(table).to_numpy()
    if again.any():
        from roofline.errors import warn

        first = table.groupby(_compared_columns(table), sort=False, dropna=False)["row"].transform("first").to_numpy()
        copies: dict = {}  # each first row and the rows that repeat it, in order (qa204: 'repeat rows 1, 1, 1, 1')
        for row, earlier in zip(table["row"].to_numpy()[again], first[again]):
            copies.setdefault(earlier, []).append(row)
        parts = [f"row{'s' if len(r) > 1 else ''} {', '.join(map(str, r[:8]))}"
                 + (f" and {len(r) - 8} more" if len(r) > 8 else "") + f" repeat{'' if len(r) > 1 else 's'} row {e}"
                 for e, r in list(copies.items())[:8]]
        more = f"; and {len(copies) - 8} more rows repeated" if len(copies) > 8 else ""
        # every column _compared_columns leaves out (qa271: said as source and engine version alone)
        warn(f"{where}: {'; '.join(parts)}{more}, in every column but source, source_id, notes and engine version: each is "
             "counted again (delete the copies if they are one measurement)")


# ---------------------------------------------------------------- rows resolved for prediction

@dataclass(frozen=True)
class _Group:
    """Rows that share hardware, model, layout, method, draft and engine slot: predicted in one call."""

    index: np.ndarray            # positions in the table
    hw: HardwareSpec
    model: ModelSpec
    dep: Deployment
    method: str
    draft: ModelSpec | None
    slot: str                    # engine slot name (a key of the engines mapping)
    tree_tokens: int             # tokens verified per sequence for tree drafting (its root included); 0: a chain
    tree_tau: float              # the tree's measured tau (rows of one group share it)
    draft_vocab: int | None      # an EAGLE head's own vocabulary; None: the target's
    graphs: bool | None          # False: the run launched its passes eagerly, True: from graphs; None: the engine's
    batch: np.ndarray            # sequences per replica B_r
    concurrency: np.ndarray      # mean requests in flight per replica C_r where the row gives one, else NaN
    replicas: np.ndarray
    context: np.ndarray
    k: np.ndarray
    alpha: np.ndarray | None     # None: the method's default rates
    input_len: np.ndarray
    output_len: np.ndarray


@dataclass(frozen=True)
class RowSet:
    """A checked measurements table with every row resolved to specs, layouts and acceptance."""

    table: pd.DataFrame
    groups: tuple[_Group, ...]

    @property
    def slots(self) -> tuple[str, ...]:
        return tuple(sorted({g.slot for g in self.groups}))


def checkpoint_dtype(model: ModelSpec) -> str:
    """The dtype of most of `model`'s published weight bytes, what a row's weight_dtype names for the checkpoint as
    published: its routed experts' for a MoE model, else its blocks' ('fp4' for gpt-oss's MXFP4 experts)."""
    native = deployment(model)
    return native.expert_dtype_label or native.weight_dtype_label


def _layout(model: ModelSpec, r, where: str) -> Deployment:
    """The deployment of a row (or of `convert_benchmark`'s options; `where` names which): tp, ep, dp_attention,
    pp as given, or SGLang's convention where tp counts the attention-DP ranks (tp = dp_attention x tp_layout on
    gpus = tp devices); `gpus` must hold whole replicas of it."""
    tp, dp, pp = int(r.tp), int(r.dp_attention), int(r.pp)
    if tp * dp * pp > r.gpus and dp > 1 and tp % dp == 0 and tp * pp <= r.gpus:
        tp //= dp
    if tp * dp * pp > r.gpus:
        raise RooflineError(f"{where}: gpus: expected at least tp x dp_attention x pp = {tp * dp * pp} devices, found {r.gpus}")
    # the checkpoint as published where the row's dtype is that of most of its weight bytes (a MoE model's experts);
    # any other dtype is every weight in it (qa176: gpt-oss's BF16 re-export was read as its MXFP4 checkpoint, whose
    # attention is bf16)
    weight = None if DTYPE_ALIASES.get(str(r.weight_dtype).lower(), r.weight_dtype) == checkpoint_dtype(model) else r.weight_dtype
    try:
        dep = deployment(model, weight, r.kv_dtype, tp, dp, int(r.ep), pp, where=where)
    except RooflineError as exc:
        raise RooflineError(str(exc)) from None
    if r.gpus % dep.devices:
        raise RooflineError(f"{where}: gpus: expected a multiple of the {dep.devices} devices of one replica, found {r.gpus}")
    return dep


def engine_refusal(engine: ServingEngine, hw: HardwareSpec, model: ModelSpec, dep: Deployment, method: str, k: int) -> str:
    """Why no setup of `engine` runs a row, as predict's engine_refuses says it of a point ('' where one does): its
    device (TensorRT-LLM off NVIDIA), its layout (an ep between 1 and a stage's devices under vLLM, a dense model at
    SGLang's attention-DP split), a shard vLLM and SGLang refuse to load, a speculative method it refuses at the row's
    attention-DP or pipeline degree (qa388: such rows, a typo of ep 2 for 4 most likely, were fitted in silence)."""
    if engine.name == IDEAL.name:
        return ""
    notes = engine_refusals(engine, hw, model, dep)
    if method != "none" and k > 0:  # its refusals only, not a running cap (the row ran what it ran)
        notes += [n for n in speculation_engine_notes(engine, method, 1, dep) if "so no " in n]
    return next((n for n in notes if n), "")


def prepare_rows(df: pd.DataFrame, profiles: tuple = (), where: str = "measurements", slot_for_row=None,
                 engine_for=None) -> RowSet:
    """Resolve every row (profiles loaded once per name) and group rows for vectorised prediction. A row that
    cannot be predicted (a draft model without a measured acceptance length; a deployment that holds not one
    sequence of input_len + output_len tokens beside its weights, under the window pool of the engine that predicts
    it) keeps NaN predictions and says why in the `skipped` column.

    `slot_for_row(row) -> str` names the engine slot a row is predicted with (default: the row's own
    engine_slot, '' for code that is none of vllm/sglang/trtllm); `engine_for(slot) -> ServingEngine` the engine of a
    slot, whose window_kv_pool_ratio sizes the cache (None: no window pool, each sequence's window).
    """
    hw_cache: dict[str, HardwareSpec] = {}
    model_cache: dict[str, ModelSpec] = {}

    def get(cache, loader, name, column, row):
        if name not in cache:
            try:
                cache[name] = loader(name, tuple(profiles))
            except RooflineError as exc:
                raise name_error(where, row, column, name, df, exc) from None
        return cache[name]

    keys: dict[tuple, list[int]] = {}
    info: dict[tuple, tuple] = {}
    past: dict[str, tuple] = {}  # a model's name -> (model, its rows past its trained positions: (row, tokens))
    cap_cache: dict[tuple, int] = {}
    extra = {"replicas": np.zeros(len(df), dtype=np.int64), "alpha": np.full(len(df), np.nan)}
    batch_r = np.zeros(len(df))
    skipped = [""] * len(df)
    measured_tau = df["acceptance_length"].to_numpy(dtype=np.float64)  # each row's alpha from its acceptance length,
    alpha_of_row = alpha_from_tau(np.nan_to_num(measured_tau, nan=1.0), df["k"].to_numpy(dtype=np.float64))  # at once
    # (qa100: one bisection a row took 8.7 s of 9.9 s on 10,000 rows)
    for i, r in enumerate(df.itertuples()):
        hw = get(hw_cache, load_hardware, r.hardware, "hardware", r.row)
        model = get(model_cache, load_model, r.model, "model", r.row)
        dep = _layout(model, r, f"{where}: row {r.row}")
        replicas = r.gpus // dep.devices
        if r.batch < replicas:
            raise RooflineError(f"{where}: row {r.row}: batch: expected at least one sequence per replica ({replicas} replicas), found {r.batch}")
        if r.method == "mtp" and model.mtp_modules < 1:  # predict refuses it up front; so do the rows, with file and row
            raise field_error(f"{where}: row {r.row}", "method", "a model with MTP modules for mtp (use eagle or draft)",
                              f"{model.name} (mtp_modules: 0)")
        draft = get(model_cache, load_model, r.draft, "draft", r.row) if r.method == "draft" else None
        extra["replicas"][i] = replicas
        if r.method not in ("none", *DEFAULT_RATES) and np.isnan(r.acceptance_length):  # qa223: Medusa's rows failed the file
            skipped[i] = f"no acceptance_length: {METHOD_WITHOUT_RATES[r.method]} no default acceptance rates"
            continue
        tokens = int(r.input_len + r.output_len)
        if model.max_context_tokens and tokens > model.max_context_tokens:  # said once below (qa407: in silence)
            past.setdefault(model.name, (model, []))[1].append((r.row, tokens))
        slot = slot_for_row(r) if slot_for_row else r.engine_slot
        if engine_for and r.k > 0 and r.method in engine_for(slot).speculation_refused:  # qa223: scored in silence
            skipped[i] = (f"the {engine_for(slot).name} profile has no {r.method} drafter (its speculation_refused; a copy "
                          "setting speculation_refused=[] prices it: --engine NAME)")  # qa224: TensorRT's engine flow has
            continue
        refusal = engine_refusal(engine_for(slot).for_hardware(hw), hw, model, dep, r.method, int(r.k)) if engine_for else ""
        if refusal:
            skipped[i] = f"no {engine_for(slot).name} setup runs it: {refusal}"
            continue
        on_hw = memory_bound(engine_for(slot).for_hardware(hw)) if engine_for else None  # as running_batch (qa93)
        laid = for_engine(dep, on_hw, model) if engine_for else dep  # as the engine lays it out
        fit_key = (hw.name, model.name, dep.tp, dep.dp_attention, dep.ep, dep.pp, tuple(sorted(dep.dtypes.items())), dep.kv_dtype,
                   tokens, on_hw.memory_terms() if on_hw else None, laid.stage_split, laid.whole, laid.sequence_split,  # qa143
                   laid.pp_remainder)  # qa228: the stages' layers as the engine splits them
        if fit_key not in cap_cache:
            cap_cache[fit_key] = int(capacity(hw, model, 1, tokens, laid, engine=on_hw)["max_batch"])
        if cap_cache[fit_key] < 1:  # its prediction would run a batch of 1 that the device cannot hold
            skipped[i] = (f"does not fit in memory: not one sequence of {tokens:,} tokens fits beside {model.name}'s weights on "
                          f"{dep.devices} x {hw.name} (tp {dep.tp}, {dep.weight_dtype_label} weights)")
            continue
        batch_r[i] = r.batch / replicas
        if not np.isnan(r.acceptance_length) and not r.draft_tokens:
            extra["alpha"][i] = float(alpha_of_row[i])
        dtypes = tuple(sorted(dep.dtypes.items()))
        tree = (int(r.draft_tokens), float(r.acceptance_length)) if r.draft_tokens else (0, 0.0)
        if r.draft_vocab:
            check_draft_vocab(f"{where}: row {r.row}", int(r.draft_vocab), model)
        key = (hw.name, model.name, dep.tp, dep.dp_attention, dep.ep, dep.pp, dtypes, dep.kv_dtype, r.method,
               r.draft if r.method == "draft" else "", slot, bool(np.isnan(extra["alpha"][i])), tree, int(r.draft_vocab),
               r.graphs)
        keys.setdefault(key, []).append(i)
        info[key] = (hw, model, dep, draft)
    for model, rows_past in past.values():
        shown = ", ".join(str(row) for row, _ in rows_past[:8]) + (f" and {len(rows_past) - 8} more" if len(rows_past) > 8 else "")
        warn(f"{where}: row{'s' if len(rows_past) > 1 else ''} {shown}: input_len + output_len (up to "
             f"{max(t for _, t in rows_past):,}) is past {model.name}'s {model.max_context_tokens:,} trained positions "
             "(max_context_tokens), which vLLM and SGLang refuse unless told to: a run's total tokens where one request's "
             "belong (divide by the requests completed)?")
    groups = []
    for key, rows in keys.items():
        idx = np.asarray(rows)
        hw, model, dep, draft = info[key]
        sub = df.iloc[idx]
        groups.append(_Group(
            index=idx, hw=hw, model=model, dep=dep, method=key[8], draft=draft, slot=key[10], tree_tokens=key[12][0],
            tree_tau=key[12][1], draft_vocab=key[13] or None, graphs=key[14],
            batch=batch_r[idx], replicas=extra["replicas"][idx].astype(np.float64),
            concurrency=sub["concurrency"].to_numpy(dtype=np.float64) / extra["replicas"][idx],
            context=(sub["input_len"] + sub["output_len"] / 2.0).to_numpy(dtype=np.float64),
            k=sub["k"].to_numpy(dtype=np.int64), alpha=None if key[11] else extra["alpha"][idx],
            input_len=sub["input_len"].to_numpy(dtype=np.float64), output_len=sub["output_len"].to_numpy(dtype=np.float64),
        ))
    table = df.reset_index(drop=True).assign(replicas=extra["replicas"], alpha=extra["alpha"], skipped=skipped)
    return RowSet(table=table, groups=tuple(groups))


# ---------------------------------------------------------------- prediction

PREDICTION_COLUMNS = ("predicted", "running_batch", "per_token_time_s", "decode_step_time_s", "prefill_time_s", "tau", "speedup_predicted")


def memory_bound(engine: ServingEngine | None) -> ServingEngine | None:
    """`engine` without its fitted reserve (memory_reserved, memory_reserved_parallel, the sampler's logits): its share
    of the memory as the engine sets it (vLLM's --gpu-memory-utilization, SGLang's --mem-fraction-static), the most a
    row's run can have held. A row's batch is capped by it, not by the estimate, so that the reserve's error (about
    1 GiB a device, more on some: docs/ACCURACY.md) does not cut a batch the row's engine ran. The reserves a source
    gives as the engine's own arithmetic (SGLang's per device and per attention-DP group) stay; trtllm's fitted one goes
    (0.9 of the free memory without it is more than TensorRT-LLM can have held)."""
    if engine is None:
        return None
    return replace(engine, memory_reserved_bytes=0.0, memory_reserved_parallel_bytes=0.0, sampler_logit_copies=0.0)


def running_batch(g: _Group, engine: ServingEngine | None = None) -> np.ndarray:
    """Sequences per replica the engine runs at once: the row's mean requests in flight C_r where it gives them,
    else its B_r, capped by the largest batch whose KV cache of P + O tokens each fits beside the weights
    (capacity.max_batch, in the memory `engine` (made for the row's device) can at most give weights and KV cache:
    memory_bound; under its window pool; at least 1). A mean in flight below 1 (a run idle between
    requests, or 0.999 of a concurrency-1 run) runs one sequence while it runs."""
    cap = capacity(g.hw, g.model, 1, g.input_len + g.output_len, g.dep, engine=memory_bound(engine))["max_batch"]
    asked = np.maximum(np.where(np.isnan(g.concurrency), g.batch, g.concurrency), 1.0)
    return np.minimum(asked, np.maximum(cap, 1).astype(np.float64))


def memory_capped(table: pd.DataFrame, running) -> np.ndarray:
    """Rows their engine runs at fewer sequences than they asked: `running` (a replica's, running_batch) below the
    row's mean in flight where it gives one, else its batch, over its replicas; the rest wait in the engine's queue
    (qa271, qa274). Skipped rows are never capped."""
    asked = table["concurrency"].fillna(table["batch"]) if "concurrency" in table else table["batch"]
    replicas = np.maximum(table["replicas"].to_numpy(float), 1.0)
    skipped = table["skipped"].to_numpy() != "" if "skipped" in table else np.zeros(len(table), bool)
    return (np.asarray(running, float) < np.maximum(asked.to_numpy(float) / replicas, 1.0) - 1e-9) & ~skipped


def memory_capped_text(rows: pd.DataFrame, most: int = 8) -> str:
    """The line `fit` and `accuracy` print under their tables where rows are memory_capped: `rows` holds those rows'
    `row`, `running_batch` (every replica's) and `asked_sequences`. Their cap is the most memory the engine can have
    held (memory_bound: without the profile's fitted reserve), so predict, which keeps the reserve, fits fewer (qa334)."""
    if rows.empty:
        return ""
    shown = "; ".join(f"row {r.row} at {r.running_batch:,.0f} of its {r.asked_sequences:,.0f}" for r in rows.head(most).itertuples())
    return (f"memory: {len(rows)} row{'s' if len(rows) > 1 else ''} predicted at the batch whose KV cache fits beside the "
            f"weights, the rest waiting in the engine's queue ({shown}{'; ...' if len(rows) > most else ''}): a batch the "
            "row's server ran whole says its memory is larger than the profile's (this cap leaves out the profile's "
            "memory reserve, the most its engine can have held; predict keeps the reserve and fits fewer: raise "
            "memory_fraction, `roofline engines set NAME memory_fraction=...`, to the share the server was given; where the "
            "profile gives shares by device count, set memory_fraction_by_devices too, or drop them with "
            "memory_fraction_by_devices=null)")


def prefill_stall_s(g, eng: ServingEngine, running):
    """t_stall of the module docstring (engine.arrival_stall_s) for group `g`: the time one arriving request's prefill of
    P tokens adds to the decode of the B_r = `running` sequences under engine `eng` (its own pass, or its tokens in a
    shared one, never more than its own pass)."""
    verify = 1 if g.method == "none" else g.tree_tokens if g.tree_tokens else g.k + 1
    stall = arrival_stall_s(g.hw, g.model, g.input_len, running, g.dep, eng, verify)
    drafter = (drafter_prefill_stall_s(g.method, g.model, g.draft, g.draft_vocab, g.hw, None, g.dep, eng, g.input_len, running)
               if g.method != "none" else None)  # the drafter model's own prefill of the prompt stalls the batch too
    return stall if drafter is None else stall + drafter


def predict_rowset(rows: RowSet, engines: dict[str, ServingEngine]) -> pd.DataFrame:
    """Predict every row of `rows` (module docstring); `engines` maps each group's slot to an engine
    (overrides per hardware family are applied here). Returns one row per measurement: `predicted` in the
    unit of the row's quantity, and the terms behind it."""
    n = len(rows.table)
    out = {name: np.full(n, np.nan) for name in PREDICTION_COLUMNS}
    quantity = rows.table["quantity"].to_numpy()
    for g in rows.groups:
        eng = engines[g.slot].for_hardware(g.hw)
        if g.graphs is not None and g.graphs != eng.graphs:  # the run's own: eager (vLLM's --enforce-eager) or graphs
            if not g.graphs and not eng.eager_launch_s and eng.name != IDEAL.name:  # qa324: priced as graphs in silence
                # (ideal, the bare roofline beside every engine in accuracy, has no launch cost by design: qa326)
                warn(f"engine {eng.name}: rows with graphs false are priced as in graphs: the profile gives no "
                     "eager_launch (vllm's and sglang's: 15.6 us a kernel)")
            eng = replace(eng, graphs=g.graphs)
        g = replace(g, dep=for_engine(g.dep, eng, g.model))  # the layout as the engine runs it (SGLang's dense layers over the stage)
        running = running_batch(g, eng)
        if g.method == "none":
            step = step_metrics(g.hw, g.model, running, 1, g.context, g.dep, engine=eng)["step_time_s"]
            per_token, tau, speedup = step, np.ones_like(step), np.ones_like(step)
        else:
            tree = {"tree_nodes": g.tree_tokens - 1, "tree_tau": g.tree_tau} if g.tree_tokens else {}
            spec = speculative_metrics(g.hw, g.model, running, g.context, g.k, g.alpha, method=g.method, draft=g.draft,
                                       draft_vocab=g.draft_vocab, dep=g.dep, engine=eng, **tree)
            step, tau, speedup = spec["baseline_step_time_s"], spec["tau"], spec["speedup"]
            per_token = spec["iteration_time_s"] / tau
        q = quantity[g.index]
        prefill = np.zeros_like(per_token)
        need_batch = q == "tokens_per_s"
        need_one = q == "step_time_s"
        arriving = need_batch & ~np.isnan(g.concurrency)  # a mean in flight: requests arrive as others finish
        static = need_batch & ~arriving
        if static.any():
            prefill = np.where(static, step_metrics(g.hw, g.model, running, g.input_len, 0, g.dep, engine=eng,
                                                    logit_tokens=1, prefill=True)["step_time_s"], prefill)
        if need_one.any() or arriving.any():
            stall = prefill_stall_s(g, eng, running)
            prefill = np.where(need_one, stall, prefill)
            if arriving.any():  # a request's own prefill, and the B_r - 1 others' stalls over its life (Little's law)
                own = step_metrics(g.hw, g.model, 1, g.input_len, 0, g.dep, engine=eng, logit_tokens=1, prefill=True)["step_time_s"]
                prefill = np.where(arriving, own + (running - 1.0) * stall, prefill)
        o = g.output_len
        in_flight = np.where(np.isnan(g.concurrency), running, np.minimum(g.concurrency, running))  # Little's law's
        predicted = np.select(  # mean: below 1 where the client idled between requests (qa206)
            [q == "tokens_per_s_per_user", q == "step_time_s", q == "tokens_per_s", q == "speedup"],
            [1.0 / per_token, per_token + (running - 1.0) * prefill / o,
             g.replicas * in_flight * o / (prefill + o * per_token), speedup],
        )
        for name, values in zip(PREDICTION_COLUMNS, (predicted, running, per_token, step, prefill, tau, speedup)):
            out[name][g.index] = np.broadcast_to(values, g.index.shape)
    return pd.DataFrame(out)


IMPLAUSIBLE_SLOWER = 100.0  # a measurement this many times slower than the roofline bound is refused as a unit slip
IMPLAUSIBLE_FASTER = 10.0  # ... or this many times faster (the published rows run 0.92-11.6 x the bound's time)
TIME_QUANTITIES = ("step_time_s",)


def check_plausible(table: pd.DataFrame, ideal_predicted, where: str, converted: bool = False) -> None:
    """One line naming the first row whose measurement is more than IMPLAUSIBLE_SLOWER times slower, or
    IMPLAUSIBLE_FASTER times faster, than `ideal`'s prediction of it (the silicon's bound): a unit slip (milliseconds
    written as seconds, qa100: 9.0 for 0.009 was fitted and a profile written), not a measurement. Speedups and rows
    not predicted (NaN) pass."""
    value = table["value"].to_numpy(dtype=np.float64)
    bound = np.asarray(ideal_predicted, dtype=np.float64)
    timed = table["quantity"].isin(TIME_QUANTITIES).to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        slower = np.where(timed, value / bound, bound / value)  # > 1: the measurement is slower than the bound
    bad = (table["quantity"] != "speedup").to_numpy() & np.isfinite(bound) & (bound > 0) & (
        (slower > IMPLAUSIBLE_SLOWER) | (slower < 1.0 / IMPLAUSIBLE_FASTER))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        r = table.iloc[i]
        how = (f"{slower[i]:.3g} times slower than" if slower[i] > 1 else f"{1.0 / slower[i]:.3g} times faster than")
        hint = " (milliseconds written as seconds?)" if timed[i] and slower[i] > 1 else ""
        if converted:  # rows not written yet: the result file and the field they came from (qa106: 'row 5')
            field = "mean_tpot_ms (read as step_time_s = it / 1000)" if timed[i] else "output_throughput"
            where, what = re.sub(r" \(result (\d+)\)$", r": result \1", str(r["source"])), field  # as convert's others (qa359)
            hint = f" (a unit slip in the result file?{_read_at(r)})"
        else:
            where, what = f"{where}: row {r['row']}", "value"
        raise RooflineError(f"{where}: {what}: expected a measurement at most {IMPLAUSIBLE_SLOWER:g}x slower "
                            f"and {IMPLAUSIBLE_FASTER:g}x faster than the roofline bound ({bound[i]:.4g} {r['quantity']}), "
                            f"found {r['value']:.4g}, {how} it{hint}"
                            + (f"; {int(bad.sum()) - 1} more {'row' if bad.sum() == 2 else 'rows'} like it"
                               if bad.sum() > 1 else ""))  # (qa450: '1 more rows')


def _read_at(row) -> str:
    """What a converted row's bound is read at beside its own field: the requests in flight and how the result gave
    them, and the tokens a request, over which prefills are spread (qa468: a duration in milliseconds made 0.0319 in
    flight, or a short total_output_tokens 5 tokens a request, and only output_throughput or mean_tpot_ms was named)."""
    conc = pd.to_numeric(pd.Series([row.get("concurrency")]), errors="coerce").iloc[0]
    how = re.search(r"concurrency = ([^;]*)", str(row.get("notes", "")))
    flight = (f"{conc:.4g} requests in flight ({how.group(1)})" if how else f"{conc:.4g} requests in flight"
              ) if is_finite(conc) else f"{row.get('batch')} requests in flight (the batch)"
    return f" the bound is read at {flight}, {row.get('output_len')} output tokens a request"


def warn_engine_shadows(name: str | ServingEngine, profiles: tuple = ()) -> None:
    """Say where engine `name` is a user file standing in for a built-in, or takes its costs from one (accuracy, fit)."""
    from roofline.profiles import costs_shadow_note, shadow_note

    loaded = load_engine(name, tuple(profiles))
    for note in (shadow_note("engine", name, tuple(profiles)), costs_shadow_note(loaded.name, loaded.costs_from)):
        if note:
            warn(note)


def resolve_engines(slots, engine: str | ServingEngine | None, profiles: tuple = ()) -> dict[str, ServingEngine]:
    """One engine per slot: every slot `engine` when given; else each named slot its own profile and the
    unnamed slot '' the default engine."""
    names = [engine] if engine is not None else sorted({s or DEFAULT_ENGINE for s in slots})
    for name in names:  # a user file standing in for a built-in engine is said, as predict and sweep say it
        warn_engine_shadows(name, profiles)
    if engine is not None:
        fixed = load_engine(engine, tuple(profiles))
        return dict.fromkeys(slots, fixed)
    return {s: load_engine(s or DEFAULT_ENGINE, tuple(profiles)) for s in slots}


def predict_measurements(df: pd.DataFrame, engine: str | ServingEngine | None = None, profiles: tuple = (),
                         where: str = "measurements") -> pd.DataFrame:
    """The table with its predictions: `engine` None predicts each row with its own engine's profile (the
    default engine for other code), a name or spec predicts every row with that engine."""
    if not isinstance(df, pd.DataFrame) or "engine_slot" not in df:  # qa213: a raw read_csv raised KeyError in pandas
        raise RooflineError(f"{where}: expected a table from load_measurements (checked, with its engine_slot and row "
                            f"columns), found {type(df).__name__}" + (" without them: pass it through load_measurements"
                                                                      if isinstance(df, pd.DataFrame) else ""))
    engines = resolve_engines(sorted(set(df["engine_slot"])), engine, profiles)
    rows = prepare_rows(df, profiles, where, engine_for=engines.__getitem__)
    pred = predict_rowset(rows, engines)
    used = [engines[s].name for s in rows.table["engine_slot"]]
    return pd.concat([rows.table, pred], axis=1).assign(engine_used=used)


# ---------------------------------------------------------------- converting benchmark output

def _concurrency_text(mean: float, cap: float) -> str:
    """The mean in flight, at most the client's cap, in 4 significant figures that do not round above the cap (qa193:
    12,346 of 12,346 was written 1.235e+04, which convert's own check then refused)."""
    text = f"{min(mean, cap):.4g}"
    return text if float(text) <= cap else str(int(round(cap)))


def _benchmark_results(path: Path) -> tuple[list[dict], bool]:
    """The result objects of a benchmark output file, and whether it is JSON lines: one JSON object or an array of them
    (vLLM), or one object per line (SGLang JSONL)."""
    from roofline.yamlio import json_found, read_text

    text = read_text(path, MAX_FILE_BYTES).removeprefix("\ufeff")  # a byte-order mark an editor on Windows writes
    stripped = text.strip()
    if not stripped:
        raise RooflineError(f"{path}: expected benchmark results (JSON or JSON lines), found an empty file")
    first = stripped.splitlines()[0]
    if not first.lstrip().startswith(("{", "[")) and "," in first and {"quantity", "value"} <= {c.strip() for c in first.split(",")}:
        raise RooflineError(f"{path}: expected benchmark results (JSON or JSON lines), found a measurements CSV: fit and "
                            "accuracy read it as it is")  # qa187: said as 'not valid JSON'
    if not stripped.startswith(("{", "[")) and "Serving Benchmark Result" in text[:20_000]:  # qa426: 'not valid JSON'
        raise RooflineError(f"{path}: expected benchmark results (JSON or JSON lines), found the benchmark's printed "
                            "summary: save its results as JSON (vLLM: vllm bench serve --save-result --save-detailed; "
                            "SGLang: bench_serving --output-file FILE.jsonl) and convert that")
    lines = False
    try:
        data = _json(stripped, f"{path}")
        results = data if isinstance(data, list) else [data]
    except json.JSONDecodeError as whole:
        results, lines = [], True
        lead = len(text) - len(text.lstrip())  # stripped's offset in text
        line_end = 0  # text's offset after the line read
        for n, line in enumerate(text.splitlines(keepends=True), 1):
            line_end += len(line)
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            try:
                results.append(_json(line, f"{path}: line {n}"))
            except json.JSONDecodeError as exc:  # where on the line: a truncated file's last string, a stray comma
                bad, column = exc, exc.colno
                next_start = line_end + len(text[line_end:]) - len(text[line_end:].lstrip())
                if not results and (":" not in line or lead + whole.pos > next_start):  # a document's opening line
                    bad = whole  # ('{', '[{', or one the whole document reads past: one over many lines, said at its
                    # own position (qa206: a stray comma on line 10 was said at line 1; qa209: after '[{' too). A JSON
                    # line of its own keys cut short is said at its own line (qa211): the whole text stops at the next
                    # line's first character
                    n = whole.lineno + text[:lead].count("\n")  # stripped's blank lines back, and on its first
                    column = whole.colno + (lead - text[:lead].rfind("\n") - 1 if whole.lineno == 1 else 0)  # line
                    # the indent stripped (qa456: '  [,' said at column 2)
                again = " (a second JSON document: one a file, or a result a line)" if bad.msg == "Extra data" else ""
                raise RooflineError(f"{path}: line {n}: not valid JSON: {bad.msg} (column {column}), "
                                    f"{json_found(bad, 'the end of the line' if bad is exc else 'the end of the text')}"
                                    f"{again}") from None
    for n, item in enumerate(results, 1):
        if not isinstance(item, dict):
            raise RooflineError(f"{path}: result {n}: expected a JSON object of benchmark results, found {type(item).__name__}")
    return results, lines or path.suffix == ".jsonl"


def _json(text: str, where: str):
    """json.loads, its other failures (nesting deeper than Python's recursion, an integer of more than 4,300 digits)
    as one RooflineError; a JSONDecodeError is the caller's (a JSON-lines file is tried line by line)."""
    from roofline.yamlio import keys_once

    try:
        return json.loads(text, object_pairs_hook=keys_once)
    except RecursionError:
        raise RooflineError(f"{where}: not valid JSON: nested too deeply") from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        raise RooflineError(f"{where}: not valid JSON: {str(exc).split(';')[0]}") from None


def _positive(value) -> float | None:
    """`value` as a float if it is a finite number > 0 (an integer too large for a float is not), else None."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if is_finite(number) and number > 0 else None


_SGLANG_ONLY_FIELDS = ("random_range_ratio", "accept_length", "concurrency", "sharegpt_output_len")  # bench_serving.py
_VLLM_ONLY_FIELDS = ("date", "burstiness", "endpoint_type", "spec_decode_acceptance_length")  # vllm bench serve


def _engine_of_backend(backend: str, lines: bool, result: dict | None = None) -> str:
    """The `engine` of a benchmark result from its `backend`: the engine profile it names (SGLang's `trt` is
    TensorRT-LLM); one no profile covers (lmdeploy, ...) as named, predicted with the default engine; none, or a
    generic client (openai, openai-chat), the benchmark that wrote it, told by the fields only it writes
    (_SGLANG_ONLY_FIELDS, _VLLM_ONLY_FIELDS), else by the layout: vllm for a JSON document, sglang for JSON lines
    (vLLM's --append-result writes JSON lines too)."""
    named = backend.strip()
    if engine_slot(named) or named.lower() == "trt":
        return engine_slot(named) or "trtllm"
    if named and not named.lower().startswith("openai"):
        return named
    fields = set(result or ())
    if fields & set(_SGLANG_ONLY_FIELDS) and not fields & set(_VLLM_ONLY_FIELDS):
        return "sglang"
    if fields & set(_VLLM_ONLY_FIELDS) and not fields & set(_SGLANG_ONLY_FIELDS):
        return "vllm"
    return "sglang" if lines else "vllm"


def _number(result: dict, keys: tuple[str, ...], path: Path, n: int, what: str, required: bool = True):
    for key in keys:
        value = _positive(result.get(key))
        if value is not None:
            return value
    if required:
        raise field_error(f"{path}: result {n}", keys[0], what, result.get(keys[0], MISSING))
    return None


# a run of fewer requests than this many per slot of its client's cap, without records of its mean in flight, is said
# to run fewer at once than the cap (its last wave's drain: 10% or more below the cap for requests of one length)
DRAIN_SLOTS = 5


def _mean_in_flight(result: dict) -> tuple[float, str] | None:
    """Mean requests in flight by Little's law from vLLM's per-request records: the sum of request latencies over the
    run's duration, a request's latency being its time to first token plus its inter-token gaps (`--save-detailed`),
    else its recorded `latencies`; with the sum it was taken from, as a row's notes say it. None without those records."""
    ttfts, itls, duration = result.get("ttfts"), result.get("itls"), result.get("duration")
    latencies = result.get("latencies")  # kept by current vllm bench serve without --save-detailed too
    duration = _positive(duration)
    detailed = isinstance(ttfts, list) and isinstance(itls, list) and ttfts and len(ttfts) == len(itls)
    if not duration or not (detailed or (isinstance(latencies, list) and latencies)):
        return None
    try:
        busy_s = (float(np.sum(np.asarray(ttfts, dtype=float))) + sum(float(np.sum(np.asarray(g, dtype=float))) for g in itls)
                  if detailed else float(np.sum(np.asarray(latencies, dtype=float))))
    except (TypeError, ValueError, OverflowError):
        return None
    how = "(sum of ttfts and itls) / duration" if detailed else "(sum of latencies) / duration"
    return (busy_s / duration, how) if is_finite(busy_s) and busy_s > 0 else None


def _mean_in_flight_of_means(result: dict, completed: float, output_len: float) -> tuple[float, str] | None:
    """Mean requests in flight by Little's law from vLLM's run-level means where no per-request record is kept: the
    requests' mean latency, `mean_e2el_ms` (with --percentile-metrics e2el), else a request's TTFT plus its inter-token
    gaps at their means, mean_ttft_ms + mean_tpot_ms x (output_len - 1), times the completed requests over the run's
    duration (qa468: a rate-limited run, 1,000 requests at 2 a second for 4.42 s each, 8.84 in flight, was priced at
    its cap of 64). None where the means are not there."""
    duration = _positive(result.get("duration"))
    e2el_ms = _positive(result.get("mean_e2el_ms"))
    ttft_ms, tpot_ms = _positive(result.get("mean_ttft_ms")), _positive(result.get("mean_tpot_ms"))
    if not duration:
        return None
    if e2el_ms:
        return completed * e2el_ms / 1000.0 / duration, "completed x mean_e2el_ms / duration"
    if ttft_ms and tpot_ms:
        latency_s = (ttft_ms + tpot_ms * max(output_len - 1.0, 0.0)) / 1000.0
        return completed * latency_s / duration, "completed x (mean_ttft_ms + mean_tpot_ms x (output_len - 1)) / duration"
    return None


def option_profile(option: str, loader, name: str, profiles: tuple):
    """loader(name), an unknown name or a broken file said with the option that gave it (qa310: `--draft foo` was said
    as 'unknown model', the option unnamed, where predict names it)."""
    try:
        return loader(name, tuple(profiles))
    except RooflineError as exc:
        if str(exc).startswith("ROOFLINE_PATH:"):  # the environment's search path: not the option's
            raise
        raise said_as(exc, f"command line: {option}: {exc}") from None


def _model_key(text: str) -> str:
    """A model's name as letters and digits, lower case: 'meta-llama/Llama-3.1-8B-Instruct' -> 'llama318binstruct'
    (its repository's last part), 'llama-3.1-8b' -> 'llama318b'."""
    return re.sub(r"[^a-z0-9]", "", str(text).strip().rstrip("/").rsplit("/", 1)[-1].lower())


def _check_model_id(result: dict, path: Path, n: int, model_spec: ModelSpec, profiles: tuple, told: set) -> set:
    """A result's recorded model (vLLM's model_id: the repository or folder the server loaded) against --model: refused
    where it names another model profile on the search path and not --model's (qa497: a Qwen3-30B-A3B run converted as
    Llama-3.1-8B in silence, its costs then fitted to the wrong model), said once where it names none (a fine-tune, a
    local folder, a model of the same architecture without a profile: written as --model's). A name names a profile
    whose name, as letters and digits (_model_key), is in it; of several, the longest."""
    recorded = result.get("model_id")
    if not isinstance(recorded, str) or not recorded.strip():
        return told
    from roofline.profiles import profile_paths

    key = _model_key(recorded).rsplit("distill", 1)[-1]  # a distilled model is its student's architecture, not its
    # teacher's (qa498: DeepSeek-R1-Distill-Llama-8B refused as deepseek-r1)
    named = [name for name in profile_paths("model", tuple(profiles)) if _model_key(name) and _model_key(name) in key]
    if _model_key(model_spec.name) in key:
        return told
    if named:
        other = max(named, key=lambda name: len(_model_key(name)))
        raise RooflineError(f"{path}: result {n}: model_id: expected a run of {model_spec.name} (--model), found "
                            f"{recorded!r}, a run of {other}: pass --model {other}, or convert each model's results apart")
    if recorded not in told:
        warn(f"{path}: result {n}: model_id {recorded!r} names no model profile: its rows are written as "
             f"{model_spec.name}'s (--model), whose architecture they are priced with")
    return told | {recorded}


def convert_benchmark(paths, *, hardware: str, model: str, tp: int = 1, ep: int = 1, dp_attention: int = 1,
                      gpus: int | None = None, weight_dtype: str | None = None, kv_dtype: str = "bf16", method: str = "none",
                      k: int = 0, engine: str | None = None, engine_version: str = "", split: str = "fit",
                      batch: int | None = None, quantities: tuple[str, ...] = ("step_time_s", "tokens_per_s"),
                      source_id: str | None = None, draft_tokens: int = 0, draft: str = "", draft_vocab: int | None = None,
                      graphs: bool = True, profiles: tuple = ()) -> pd.DataFrame:
    """Rows (the columns of measurements/README.md, checked) from serving-benchmark result files.

    Each result gives: batch = max_concurrency (or `batch`), concurrency = the mean requests in flight where
    recorded (SGLang's `concurrency`; for vLLM, Little's law over its `--save-detailed` per-request records,
    `_mean_in_flight`, else over its run-level means, `_mean_in_flight_of_means`), input_len / output_len = total_input_tokens / completed and total_output_tokens /
    completed (the tokens the run measured), else random_input_len / random_output_len (SGLang records these
    settings whatever the dataset, and its random lengths average below them); step_time_s = mean_tpot_ms / 1000;
    tokens_per_s = output_throughput; acceptance_length = accept_length (SGLang) or spec_decode_acceptance_length /
    acceptance_length where present. The deployment (hardware, model, layout, dtypes, method, k, and `draft_tokens`
    for a tree: SGLang's --speculative-num-draft-tokens with --speculative-eagle-topk > 1) is what the server was
    launched with (`weight_dtype` None: the checkpoint as published, checkpoint_dtype); `draft` names the draft model
    of method draft (written as draft=NAME in the notes), `draft_vocab` the vocabulary an EAGLE head drafts over
    (EAGLE-3's 32,000; written as draft_vocab=N in the notes); `graphs` False: the server ran eagerly (vLLM's
    --enforce-eager, SGLang's --disable-cuda-graph; the rows' graphs column false). `batch` stands in for a result that records no
    max_concurrency, and is refused beside one that records another. A result that
    records an acceptance length above 1 with method none is refused (a speculative run read as plain decoding).
    `engine` defaults to the one the result's `backend` names (`_engine_of_backend`); given, it must name an engine
    profile (vllm, sglang, trtllm, with a version where it picks one). The layout
    options are checked first by the rule rows are read with (`_layout`, the error naming the option), and the rows written by the rules `roofline accuracy` and `fit` apply
    (`prepare_rows`): what they would refuse is never written. `profiles`: folders to find the model in.
    """
    given = method
    method = SERVER_METHODS.get(str(method).strip().lower(), str(method).strip().lower())
    if method not in METHODS:  # the option as typed, not a converted row
        raise field_error("command line", "--method", f"one of {', '.join(METHODS)}, or the server's own name for one ("
                          f"{', '.join(SERVER_METHODS)})", given)
    degrees = [(f"--{name.replace('_', '-')}", value) for name, value in (("tp", tp), ("ep", ep), ("dp_attention", dp_attention),
                                                                          ("gpus", gpus)) if value is not None]
    for option, value in degrees:  # a library caller's tp="2" raised a TypeError deep in the layout check (qa213)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise field_error("command line", option, "an integer", value)
    for option, value, ok, expected in (("--k", k, isinstance(k, int) and 0 <= k <= K_MAX, f"an integer in 0..{K_MAX}"),
                                        ("--split", split, split in SPLITS, " or ".join(SPLITS)),
                                        ("--batch", batch, batch is None or (isinstance(batch, int) and batch >= 1), "an integer >= 1"),
                                        ("--k", k, method == "none" or k >= 1, f"at least 1 draft token with method {method}"),
                                        # (qa468: --k 3 without --method was blamed on the result file's row)
                                        ("--k", k, method != "none" or k == 0, "0 with --method none (a speculative run: pass "
                                         "its --method too)")):
        if not ok:  # the option, named as the user typed it (the rows' own check would name a converted row)
            raise field_error("command line", option, expected, value)
    if engine is not None:  # written as the slot it names, so that fit and accuracy read it back as that engine
        text = str(engine).strip().lower()
        slot = "trtllm" if text == "trt" else engine_slot(text)
        if slot not in ("vllm", "sglang", "trtllm") or _version(text) or text.endswith(("-v0", "-early")):
            raise field_error("command line", "--engine", "vllm, sglang or trtllm (the version goes in --engine-version: vLLM "
                              "below 0.8 is predicted with vllm-v0, SGLang below 0.4.5 with sglang-early)", engine)
        engine = slot
    if engine_version and not _version(engine_version) and engine != "trtllm":  # 'x.y', 'nightly': read as the current
        # engine, said (a version picks no other trtllm profile)
        warn(f"command line: --engine-version {engine_version!r} holds no version number (like 0.10.1): its rows are "
             "predicted with the current engine's profile (vllm, not vllm-v0; sglang, not sglang-early)")
    for option, text in (("--source-id", source_id), ("--engine-version", engine_version)):  # a value read from a file
        if text and re.search(r"[\r\n\x85\u2028\u2029]", str(text)):  # saved on Windows (qa193: a CSV fit refused)
            raise field_error("command line", option, "text on one line", text)
    if source_id is not None and not source_id.strip():  # qa288: "  " was written as every row's source
        raise field_error("command line", "--source-id", "a source's name (or leave it out: each file's name)", source_id)
    if draft_tokens and method == "none":
        raise field_error("command line", "--draft-tokens", "0 with --method none (a tree is drafted by a method)", draft_tokens)
    if draft_tokens and draft_tokens < k + 1:
        raise field_error("command line", "--draft-tokens", f"at least k + 1 = {k + 1} tokens verified per sequence (or 0: a "
                          "chain)", draft_tokens)
    model_spec = option_profile("--model", load_model, model, profiles)
    if method == "mtp" and model_spec.mtp_modules < 1:  # rows fit and accuracy would refuse
        raise field_error("command line", "--method", "a model with MTP modules for mtp (use eagle or draft)",
                          f"{model} (mtp_modules: 0)")
    if (method == "draft") != bool(draft):
        raise field_error("command line", "--draft", "the draft model's profile name, with --method draft only", draft or MISSING)
    draft_spec = option_profile("--draft", load_model, draft, profiles) if draft else None
    if draft_vocab is not None:
        if method != "eagle":
            raise field_error("command line", "--draft-vocab", "an EAGLE head's vocabulary, with --method eagle only", draft_vocab)
        if not isinstance(draft_vocab, int) or not 1 <= draft_vocab <= DRAFT_VOCAB_MAX:
            raise field_error("command line", "--draft-vocab", f"a whole number of tokens in 1..{DRAFT_VOCAB_MAX:,}", draft_vocab)
        if draft_vocab > model_spec.vocab_size:  # named as typed (qa161: the rows' own check named a converted row)
            raise field_error("command line", "--draft-vocab", f"at most the vocabulary of {model_spec.name} "
                              f"({model_spec.vocab_size:,} tokens: a head drafter's LM head covers part of it)", draft_vocab)
    elif str(given).strip().lower() in ("eagle3", "eagle-3"):  # qa310: README's command left it out, priced in silence
        warn(f"command line: --method {given} without --draft-vocab: its rows are priced with the head drafting over "
             f"{model_spec.name}'s whole vocabulary ({model_spec.vocab_size:,} tokens), where EAGLE-3 heads draft over "
             "their own (draft_vocab_size in the head's config: 32,000 for Llama 3.1 8B's published head); give "
             "--draft-vocab N")
    hw_spec = option_profile("--hardware", load_hardware, hardware, profiles)
    if weight_dtype is None:  # the checkpoint as published (qa177: bf16 made gpt-oss's MXFP4 experts bf16)
        weight_dtype = checkpoint_dtype(model_spec)
    if DTYPE_ALIASES.get(str(weight_dtype).lower(), weight_dtype) == "fp4":  # the format by name, as published.csv spells it
        weight_dtype = "mxfp4"
    if isinstance(kv_dtype, str) and kv_dtype.strip().lower() == "auto":  # vLLM's and SGLang's default: the model's own
        kv_dtype = "bf16"  # dtype, bf16 for a bf16 checkpoint (qa407: refused; --dtype float16 runs are fp16, 2 bytes too)
    # an alias (h100) as the profile's name (h100-sxm), the model's too (qa334: Llama3.1-8B written as typed); a profile
    # file given by its path stays as given (is_profile_path: Llama3.1-8B's '.1-8B' is no profile suffix)
    hardware, model = (ref if is_profile_path(ref) else spec.name for ref, spec in ((hardware, hw_spec), (model, model_spec)))
    if draft_spec is not None and not is_profile_path(draft):
        draft = draft_spec.name
    # SGLang counts its attention groups inside --tp: said once, where a result's engine is sglang (below)
    sglang_tp = gpus is None and dp_attention > 1 and tp > 1 and tp % dp_attention == 0
    gpus = tp * dp_attention if gpus is None else gpus
    options = SimpleNamespace(tp=tp, ep=ep, dp_attention=dp_attention, pp=1, gpus=gpus, weight_dtype=weight_dtype, kv_dtype=kv_dtype)
    try:
        _layout(model_spec, options, "command line")
    except RooflineError as exc:  # name the option as typed: --tp, --dp-attention, --weight-dtype
        raise RooflineError(re.sub(r"^command line: (tp|ep|dp_attention|gpus|weight_dtype|kv_dtype):",
                                   lambda m: f"command line: --{m.group(1).replace('_', '-')}:", str(exc))) from None
    # each dtype as the README lists it (qa407: bfloat16 and fp8_e4m3 written as typed; _layout took them), a 4-bit
    # weight format by its own name (mxfp4, nvfp4), as published.csv spells it
    kv_dtype = normalize_dtype(kv_dtype, KV_DTYPES, "command line", "--kv-dtype")
    if normalize_dtype(weight_dtype, WEIGHT_DTYPES, "command line", "--weight-dtype") not in ("fp4", "nvfp4"):
        weight_dtype = normalize_dtype(weight_dtype, WEIGHT_DTYPES, "command line", "--weight-dtype")
    rows, seen, results_seen = [], set(), {}
    told_backend: set[Path] = set()  # files whose backend names another engine than --engine, said
    told_in_flight: set[Path] = set()  # files whose mean in flight no record gives, said
    told_model_id: set[str] = set()  # model ids that name no model profile, said once each
    taus_recorded: list[tuple[Path, int, bool]] = []  # over every file: plain and speculative runs of one call are one method
    for path in [Path(p) for p in (paths if isinstance(paths, (list, tuple)) else [paths])]:
        try:  # one file under two names (a link, a hard link) is the same file
            identity = (path.stat().st_dev, path.stat().st_ino)
        except OSError:
            identity = path.resolve()  # unreadable: _benchmark_results says why
        if identity in seen:  # its rows would be written twice, and weigh twice in a fit
            raise field_error("command line", "FILES", "each result file once", str(path))
        seen.add(identity)
        results, lines = _benchmark_results(path)
        for n, result in enumerate(results, 1):
            said = json.dumps(result, sort_keys=True, default=str)  # a copy of a file, or a result pasted twice (qa206:
            if said in results_seen:  # refused by --append, written twice when given twice in one call)
                raise RooflineError(f"command line: FILES: expected each result once, found {path}: result {n}, which "
                                    f"repeats {results_seen[said]} (one measurement, which a fit would weigh twice)")
            results_seen[said] = f"{path}: result {n}"
            if (not {"completed", "mean_tpot_ms", "output_throughput"} & set(result)  # another tool's file (qa187), or
                    or not {"completed", "mean_tpot_ms"} & set(result)):  # one with a throughput alone (qa435: SGLang's
                # bench_offline_throughput, told 'completed: expected ...')
                keys = ", ".join(list(result)[:5]) + (", ..." if len(result) > 5 else "")
                some = "output_throughput alone" if "output_throughput" in result else "none"
                raise RooflineError(f"{path}: result {n}: expected a result of vllm bench serve / benchmark_serving.py or "
                                    f"SGLang's bench_serving (completed, mean_tpot_ms, output_throughput), found {some} of "
                                    f"their fields ({keys or 'an empty object'})"
                                    + ("; vLLM writes this .pytorch.json beside its result file: convert the result file"
                                       if path.name.endswith(".pytorch.json") else
                                       "; an offline throughput run (no requests timed one by one): run the serving "
                                       "benchmark against a server" if "output_throughput" in result else ""))
            told_model_id = _check_model_id(result, path, n, model_spec, profiles, told_model_id)
            completed = _number(result, ("completed",), path, n, "the number of completed requests")
            duration = result.get("duration")
            if duration is not None and _positive(duration) is None:  # qa497: 0 s read as no duration, a warning only
                raise field_error(f"{path}: result {n}", "duration", "the run's length in seconds, above 0", duration)
            if completed != round(completed):  # (qa468: 7.5 requests read, lengths divided by it)
                raise field_error(f"{path}: result {n}", "completed", "a whole number of completed requests", result["completed"])
            original_cap = result.get("max_concurrency")  # as the file gives it (0, or 0.0)
            no_cap = result.get("max_concurrency") == 0 and not isinstance(result.get("max_concurrency"), bool)
            if no_cap:
                result = {**result, "max_concurrency": None}  # vLLM's "no cap" (its semaphore takes 0 as none)
            recorded = _number(result, ("max_concurrency",), path, n, "", required=False)
            if result.get("max_concurrency") is not None and (recorded is None or recorded != round(recorded)
                                                              or recorded > BATCH_MAX):
                raise field_error(f"{path}: result {n}", "max_concurrency", f"a whole number of requests, 1 to {BATCH_MAX:,} "
                                  "(or null: then pass --batch)", result.get("max_concurrency"))
            if batch is not None and recorded is not None and round(recorded) != batch:
                raise field_error(f"{path}: result {n}", "max_concurrency", f"no recorded concurrency beside --batch {batch} "
                                  "(--batch is for results that record none; leave it out)", result.get("max_concurrency"))
            if no_cap and recorded is None and batch is None:  # found as the file gives it (qa279: said as null)
                raise field_error(f"{path}: result {n}", "max_concurrency", "the client's concurrency (run the benchmark "
                                  "with --max-concurrency, or pass --batch N / batch=N); 0 is the benchmark's 'no cap'",
                                  original_cap)
            conc = recorded if recorded is not None else batch if batch is not None else _number(
                result, ("max_concurrency",), path, n,
                "the client's concurrency (run the benchmark with --max-concurrency, or pass --batch N / batch=N)"
                + ("; 0 is the benchmark's 'no cap'" if no_cap else ""))
            # the tokens the run measured: SGLang writes random_input_len / random_output_len whatever the dataset
            # (its 1024 defaults for ShareGPT) and draws random lengths from [ratio * len, len], so they are settings
            lengths = []
            for side in ("input", "output"):  # neither field: the total is named, the setting beside it (qa334)
                total, setting = f"total_{side}_tokens", f"random_{side}_len"
                key = total if total in result or setting not in result else setting
                value = _number(result, (key,), path, n, f"total {side} tokens (or {setting})")
                lengths.append(value / completed if key == total else value)
            in_len, out_len = lengths
            tau_keys = [key for key in ("accept_length", "spec_decode_acceptance_length", "acceptance_length")
                        if result.get(key) is not None]
            tau = _number(result, tuple(tau_keys), path, n, "", required=False) if tau_keys else None
            if tau_keys and (tau is None or tau < 1.0):  # a measured tau dropped in silence stood in for the default rates
                raise field_error(f"{path}: result {n}", tau_keys[0], "tokens per iteration, a number >= 1",
                                  result.get(tau_keys[0]))
            taus = {key: _positive(result.get(key)) for key in tau_keys}
            if len(set(taus.values())) > 1:  # two benchmarks' fields that disagree: which one measured it is unknown
                raise field_error(f"{path}: result {n}", " / ".join(taus), "one acceptance length",
                                  ", ".join(f"{key} {value:g}" for key, value in taus.items() if value is not None))
            taus_recorded.append((path, n, bool(tau_keys)))
            drafts, drafted = (_positive(result.get(key)) for key in ("spec_decode_num_drafts", "spec_decode_draft_tokens"))
            if method != "none" and not draft_tokens and drafts and drafted:
                # vLLM records the draft tokens its drafting steps proposed: at most k a step (n-gram proposes fewer
                # where it matches less, and the scheduler trims drafts to its token budget)
                if drafted / drafts > k + 0.01:
                    raise field_error(f"{path}: result {n}", "spec_decode_draft_tokens / spec_decode_num_drafts",
                                      f"at most the --k given ({k}): the server's num_speculative_tokens", f"{drafted / drafts:g}")
                if drafted / drafts < k - 0.5:
                    warn(f"{path}: result {n}: its drafts held {drafted / drafts:.2f} tokens on average against --k {k} (n-gram "
                         "matches, or drafts trimmed to the token budget; a larger --k than the server's reads this way too)")
            if method != "none" and tau is not None and not draft_tokens and tau > k + 1 + 1e-9:  # a chain emits at most k + 1
                raise field_error(f"{path}: result {n}", tau_keys[0], f"at most k + 1 = {k + 1} tokens per iteration "
                                  "(pass the server's --k: num_speculative_tokens / --speculative-num-steps)", f"{tau:g}")
            if method == "none" and tau is not None and tau > 1.0 + 1e-9:
                raise field_error(f"{path}: result {n}", next(key for key in ("accept_length", "spec_decode_acceptance_length",
                                                                              "acceptance_length") if _positive(result.get(key))),
                                  "a plain run with --method none (this one speculated: pass its --method and --k)", f"{tau:g}")
            printed = _number(result, ("concurrency",), path, n, "", required=False)  # SGLang's mean in flight
            if printed is None and result.get("concurrency") is not None:  # 0, NaN, text: a corrupt field (qa407: read
                raise field_error(f"{path}: result {n}", "concurrency", "the mean requests in flight, above 0 (SGLang's "  # as
                                  "bench_serving writes it)", result["concurrency"])  # none, its rows at the client's cap)
            little = None if printed else _mean_in_flight(result)
            records = any(result.get(key) is not None for key in ("ttfts", "itls", "latencies"))
            if not printed and little is None and not records:  # the run's means, where no record is kept
                little = _mean_in_flight_of_means(result, completed, out_len)
                if little is not None and little[0] > conc:  # the means' estimate past the cap: at most the cap ran
                    little = (conc, little[1] + ", at most the client's cap")
            if not printed and little is None and records:
                warn(f"{path}: result {n}: per-request records (ttfts / itls / latencies) that give no mean in flight (a "
                     "null among them, ttfts and itls of different lengths, or no duration): its rows run at the client's "
                     f"cap, batch {conc:g}")
            elif not printed and little is None and completed < DRAIN_SLOTS * conc and path not in told_in_flight:
                # (qa426: 100 requests under a cap of 256 were priced at 256, unsaid) a run of N requests under a cap of C
                # drains its last wave over about a request's life: its mean in flight near C (1 - C / 2N) for requests
                # of one length, and at most N
                told_in_flight.add(path)
                warn(f"{path}: result {n}: no per-request records give its mean in flight (vllm bench serve keeps "
                     "latencies, and ttfts and itls with --save-detailed; SGLang's bench_serving writes concurrency): "
                     + (f"its rows run at its {completed:g} completed requests, fewer than the client's cap {conc:g}, all "
                        "at once, the most that can be" if completed < conc else
                        f"its rows run at the client's cap, batch {conc:g}, where {completed:g} requests, "
                        f"{completed / conc:.2g} a slot, drain their last wave with fewer")
                     + ": its rows are priced at more sequences at once than ran on average (run more requests a "
                       "slot, or keep the records)")
            if not printed and little is None and completed < conc:  # at most the requests there were ran at once
                little = (completed, "completed requests, fewer than the cap and no per-request records: at most the "
                                     "mean in flight")
            mean_conc = printed or (little[0] if little else None)
            if printed and printed > completed * 1.02 + 0.05:  # (qa468: 7.77 in flight of 3 requests, written)
                raise field_error(f"{path}: result {n}", "concurrency", f"at most the {completed:g} completed requests (a "
                                  "run cannot keep more in flight than it ran)", result["concurrency"])
            if mean_conc and mean_conc > conc * 1.02 + 0.05:  # a client cap below the requests measured in flight
                raise field_error(f"{path}: result {n}", "concurrency" if printed else little[1],  # as the notes say it (qa310)
                                  f"at most the batch {conc:g} ({'max_concurrency' if recorded is not None else '--batch'}): "
                                  "a run cannot keep more requests in flight than its client allows", f"{mean_conc:.4g}")
            backend = engine or _engine_of_backend(str(result.get("backend") or ""), lines, result)
            named = str(result.get("backend") or "").strip().lower()
            own = "trtllm" if named == "trt" else engine_slot(named)
            if engine and own and own != engine and path not in told_backend:  # said once a file (qa114)
                told_backend.add(path)
                warn(f"{path}: result {n}: backend {result.get('backend')!r} names {own}, --engine {engine}: its rows are "
                     f"written as {engine}'s (a client's backend sets only its request format; where the server was "
                     f"{own}, leave --engine out)")
            elif not engine and not engine_slot(backend) and path not in told_backend:  # qa206: tgi written, in silence
                told_backend.add(path)
                warn(f"{path}: result {n}: backend {result.get('backend')!r} names no engine profile: its rows are written "
                     f"as engine {backend!r}, which accuracy predicts with the default engine ({DEFAULT_ENGINE}) and fit "
                     "takes as a server of its own (--engine vllm, sglang or trtllm writes them as that engine's)")
            if sglang_tp and backend == "sglang":
                sglang_tp = False
                warn(f"command line: --tp {tp} --dp-attention {dp_attention} is {tp * dp_attention} GPUs (tp is each attention "
                     f"group's); SGLang's --tp {tp} --dp {dp_attention} --enable-dp-attention runs on {tp}: --tp {tp // dp_attention} "
                     f"--dp-attention {dp_attention} (measurements/README.md)")
            values = {}
            if "step_time_s" in quantities:
                values["step_time_s"] = _number(result, ("mean_tpot_ms",), path, n, "the mean time per output token in ms") / 1000.0
            if "tokens_per_s" in quantities:
                values["tokens_per_s"] = _number(result, ("output_throughput",), path, n, "the output throughput in tokens/s")
            for quantity, value in values.items():
                rows.append({
                    "source_id": source_id or path.stem, "source": f"{path} (result {n})", "engine": backend,
                    "engine_version": engine_version, "hardware": hardware, "gpus": str(gpus), "tp": str(tp),
                    "ep": str(ep), "dp_attention": str(dp_attention), "model": model, "weight_dtype": weight_dtype,
                    "kv_dtype": kv_dtype, "batch": str(int(round(conc))),
                    "concurrency": _concurrency_text(mean_conc, conc) if mean_conc else "", "input_len": str(int(round(in_len))),
                    "output_len": str(int(round(out_len))), "method": method, "k": str(k),
                    "acceptance_length": "" if tau is None or method == "none" else f"{tau:.4g}", "draft_tokens": str(draft_tokens) if draft_tokens else "",
                    "quantity": quantity, "value": f"{value:.6g}", "split": split, "graphs": "" if graphs else "false",
                    "notes": f"converted from {path.name}: {'mean_tpot_ms / 1000' if quantity == 'step_time_s' else 'output_throughput'}"
                             + (f"; concurrency = {little[1]}" if little else "")
                             + (f"; draft={draft}" if draft else "") + (f"; draft_vocab={draft_vocab}" if draft_vocab else ""),
                })
    recorded_taus = [(path, n) for path, n, has in taus_recorded if has]
    if method != "none" and recorded_taus and len(recorded_taus) < len(taus_recorded):  # a plain run among speculative ones
        plain_path, plain_n = next((path, n) for path, n, has in taus_recorded if not has)
        shown = ", ".join(f"{path.name} result {n}" for path, n in recorded_taus[:3]) + (", ..." if len(recorded_taus) > 3 else "")
        raise field_error(f"{plain_path}: result {plain_n}", "acceptance length", f"one, as {shown} record (a plain run among "
                          f"speculative ones? convert plain runs with --method none)", MISSING)
    if method != "none" and taus_recorded and not recorded_taus and not draft_tokens:  # a plain run converted as
        # speculative, most likely (a tree's rows need their tau: refused below, unwarned first: qa298)
        fate = (f"{METHOD_WITHOUT_RATES[method]} no default acceptance rates, so fit and accuracy leave its rows out"
                if method not in DEFAULT_RATES else "so its rows will be predicted with the method's default rates")
        warn(f"--method {method}: no result records an acceptance length (vLLM's spec_decode_acceptance_length, SGLang's "
             f"accept_length): {fate}; a run without speculation records none (convert it with --method none), and so "
             "may an older benchmark's speculative run")
    engines = sorted({row["engine"] for row in rows})
    _refused_method_warning(engines, method, engine_version)
    if engine_version and len(engines) > 1:  # one version stamped on two engines' rows picks the wrong profile for one
        raise field_error("command line", "--engine-version", "results of one engine (--engine picks it)", ", ".join(engines))
    if not rows:  # every file an empty list: said as the files, not as this function (qa187)
        names = [str(p) for p in (paths if isinstance(paths, (list, tuple)) else [paths])]
        raise field_error("command line", "FILES", "result files holding at least one result", ", ".join(names)[:200] + " (no results)")
    raw = pd.DataFrame(rows, columns=[*COLUMNS, *(() if graphs else ("graphs",))])  # the column where it says eager
    try:
        checked = check_measurements(raw.astype(str), "converted benchmark output")
        prepared = prepare_rows(checked, profiles, "converted benchmark output")
    except RooflineError as exc:  # a row's fault said of the result it came from (qa279: 'converted benchmark output:
        found = re.match(r"converted benchmark output: row (\d+): (.*)", str(exc), re.S)  # row 1: batch' named no file)
        if found is None:
            raise
        source = re.sub(r" \(result (\d+)\)$", r": result \1", rows[int(found.group(1)) - 1]["source"])  # as the others
        raise RooflineError(f"{source}: {found.group(2)}") from None
    unfit = prepared.table[prepared.table["skipped"].str.startswith("does not fit")]
    if len(unfit):  # a row fit and accuracy could only leave out: a layout option left at its default, most likely
        raise RooflineError(f"{unfit.iloc[0]['source']}: {unfit.iloc[0]['skipped']}: give the layout the server ran "
                            "(--tp, --gpus, --weight-dtype)")
    # a unit slip fit and accuracy refuse is refused here too, before a file is written (qa104: mean_tpot_ms x 1000)
    ideal = predict_rowset(prepared, {slot: IDEAL for slot in set(prepared.table["engine_slot"])})["predicted"].to_numpy()
    check_plausible(prepared.table, ideal, "converted benchmark output", converted=True)
    _above_speculating_cap_warning(prepared.table, method, dp_attention, profiles)
    _refused_layout_warning(prepared, profiles)
    _draft_model_warning(prepared)
    return raw


def _draft_model_warning(prepared: RowSet) -> None:
    """convert's warnings of a draft model that predict says of a point (speculation.drafter_warnings: one no smaller
    than its target, one of another tokenizer; qa468: a 70B draft of an 8B target converted in silence), each once."""
    said = set()
    for g in prepared.groups:
        if g.method != "draft" or g.draft is None:
            continue
        for line in drafter_warnings(g.method, g.model, g.draft, None):
            if line not in said:
                said.add(line)
                source = str(prepared.table["source"].iloc[int(g.index[0])]).split(" (result ")[0]  # the file it came from
                warn(f"{source}: {line}")


def _refused_layout_warning(prepared: RowSet, profiles: tuple) -> None:
    """convert's warning where no setup of the rows' engine runs them (engine_refusal: a layout, a device, a method at
    a degree it refuses; qa388: --tp 4 --ep 2 under vllm converted in silence): fit and accuracy leave them out."""
    for g in prepared.groups:
        slot = str(prepared.table["engine_slot"].iloc[int(g.index[0])] or "")
        if not slot:
            continue
        engine = load_engine(slot, tuple(profiles)).for_hardware(g.hw)
        refusal = engine_refusal(engine, g.hw, g.model, g.dep, g.method, int(g.k.max()))
        if refusal:
            source = str(prepared.table["source"].iloc[int(g.index[0])]).split(" (result ")[0]  # the file it came from
            warn(f"{source}: {refusal}: fit and accuracy leave these rows out (give the layout the server ran: --tp, --ep, "
                 "--dp-attention, --gpus)")
            return


def _above_speculating_cap_warning(table: pd.DataFrame, method: str, dp_attention: int, profiles: tuple) -> None:
    """Said where converted speculative rows run more sequences than their engine decodes at once while speculating with
    its cap at its default (serving.running_cap_speculating: SGLang's 48), as predict says it of a point (qa310: a run
    of 63 in flight was converted and fitted at 63 in silence). The rows stay at their concurrency: a server launched
    with --max-running-requests raised ran them so (SpecForge's benchmark passes it), one with the default did not."""
    if method == "none" or table.empty:
        return
    from roofline.serving import load_engine, running_cap_speculating

    running = pd.to_numeric(table["concurrency"], errors="coerce").fillna(pd.to_numeric(table["batch"], errors="coerce"))
    for slot in dict.fromkeys(table["engine_slot"].astype(str)):
        try:
            cap = running_cap_speculating(load_engine(slot, tuple(profiles)), dp_attention)
        except RooflineError:
            continue
        mine = (table["engine_slot"].astype(str) == slot).to_numpy() & (running > (cap or np.inf)).to_numpy()
        over, runs = running[mine], table.loc[mine, "source"].nunique()  # a run's rows: its step time, its throughput
        if len(over):
            warn(f"{runs} converted run{'s run' if runs > 1 else ' runs'} more sequences at once ({format_count(over.max())} "
                 f"at most) than {slot} decodes while speculating with its cap at its default ({cap}; "
                 "--max-running-requests raises it): written at the run's concurrency, as a server with the cap raised runs "
                 "them; if yours ran with the default, the rest waited in its queue and the rows overstate the batch")


def _check_as_fit_reads(out: Path, text: str, what: str) -> None:
    """`text`, the file `out` is to become, read as fit reads it before it replaces anything: one line saying why not
    (qa193: a source id holding a carriage return made a file fit refused). Its scratch folder is made and removed with
    SIGTERM, SIGHUP and Ctrl-C held (qa193: a signal inside left a copy of the table in /tmp)."""
    import tempfile
    import warnings

    from roofline.launch import signals_held

    with signals_held(), tempfile.TemporaryDirectory() as tmp:
        check = Path(tmp) / out.name
        check.write_text(text, encoding="utf-8", newline="")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                load_measurements(check)
            except RooflineError as exc:
                raise RooflineError(f"{out}: {what}" + str(exc).replace(f"{check}: ", "") + "; nothing written") from None


def _rows_held_already(old: pd.DataFrame, new: pd.DataFrame, mine: pd.DataFrame) -> int:
    """How many of the rows `new` (convert's columns; `mine`: the same in the file's columns) file `old` holds already:
    alike in every column but source id, engine version, source and notes (qa223: a renamed copy under another
    --source-id and without its --engine-version), or the same
    result (its file's name and index, quantity and value: qa191, under another --source-id or another spelling of its
    path)."""
    if not len(old):
        return 0
    same = [c for c in mine.columns if c and c not in ("notes", "source", "source_id", "engine_version")]
    seen = set(map(tuple, old.reindex(columns=same).fillna("").to_numpy().tolist()))

    def results(frame: pd.DataFrame) -> list[tuple]:
        cells = frame.reindex(columns=["source", "quantity", "value"]).fillna("").astype(str)
        return list(zip(cells["source"].str.replace(r"^.*[\\/]", "", regex=True), cells["quantity"], cells["value"]))

    known = {r for r in results(old) if r[0]}
    pairs = zip(mine[same].to_numpy().tolist(), results(new))
    return sum(1 for row, result in pairs if tuple(row) in seen or (result[0] and result in known))


def write_measurements(raw: pd.DataFrame, out: str | Path, force: bool = False, append: bool = False) -> Path:
    """Write rows (text cells in the columns of COLUMNS, and of OPTIONAL_WRITTEN where rows fill them) as CSV,
    atomically, once the whole reads as fit reads it; refuses to replace a file without force, and a file of the shipped measurements folder (fit's and accuracy's
    default input, qa193) whatever it is told.
    `append`: after the rows of an existing measurements file `out` (checked first, as fit reads it), in its own
    columns (names read as fit reads them, spaces around them aside) and line ends (its header's), so that plain and
    speculative runs converted apart make one file to fit (qa187). Refused, before anything is written: a file without
    a column these rows fill (their values would be lost), rows the file holds already (the same results converted
    before: the same source, quantity and value, or every column alike), a file that cannot be written (qa189)."""
    import os
    import warnings

    from roofline.yamlio import read_text, write_text_atomic

    out = Path(out)
    if out.suffix.lower() != ".csv":  # qa115: --out c4.json --force replaced a benchmark result with CSV
        raise RooflineError(f"--out: expected a .csv file (measurements are CSV), found {str(out)!r}")
    shipped = default_measurements_path().parent
    if os.path.realpath(out.parent) == os.path.realpath(shipped):
        raise RooflineError(f"--out: expected a file outside {shipped} (the shipped measurements, fit's and accuracy's "
                            f"default input), found {out}: "
                            + ("copy it elsewhere first" if out.exists() else "write it elsewhere (--out my-runs.csv)"))
    # COLUMNS, and the optional columns the rows fill (graphs: an eager run's false)
    columns = [*COLUMNS, *(c for c in OPTIONAL_WRITTEN if c in raw.columns and (raw[c].astype(str).str.strip() != "").any())]
    new = raw.reindex(columns=columns).fillna("").astype(str)
    if not (append and out.exists()):
        text = new.to_csv(index=False, lineterminator="\n")
        _check_as_fit_reads(out, text, "")
        write_text_atomic(out, text, force)
        return out
    top = read_text(out, MAX_FILE_BYTES).lstrip("\ufeff").split("\n", 1)[0]
    if {"predicted", "error", "predicted_ideal"} <= {n.strip() for n in next(csv.reader([top.rstrip("\r")]), [])}:
        raise RooflineError(f"{out}: --append: expected a measurements file, found roofline accuracy's output (its "  # qa223:
                            "predicted, error and predicted_ideal columns); nothing appended: append to the measurements "  # it was
                            "file it was made from")  # told to add a column
    with warnings.catch_warnings():  # said of the file as written, below
        warnings.simplefilter("ignore")
        load_measurements(out)  # a file fit can read, or one line saying why not
    if not os.access(out, os.W_OK) or not out.stat().st_mode & 0o200:  # the atomic rename would replace a read-only
        # file (qa189), even as root, whom access() lets write anything
        raise RooflineError(f"{out}: --append: cannot write: the file is read-only; nothing appended")
    # rows of nothing but commas and spaces at its end (a spreadsheet's export), which fit reads past, are not kept
    # between the file's rows and these (qa191); read within fit's own size limit (qa193: 1 MB refused a larger file)
    before = re.sub(r"(?:\r?\n[ \t,]*)+\Z", "", read_text(out, MAX_FILE_BYTES))
    first = before.lstrip("\ufeff").split("\n", 1)[0]  # the header line (qa193: splitlines broke it at a form feed)
    header = next(csv.reader([first.rstrip("\r")]))
    names = [n.strip() for n in header]  # a column of its own (a run id) stays, empty in these rows, as fit reads it

    # a column the file lacks is lost only where a row holds other than its value when absent (qa191: ep 1, split fit)
    lost = [c for c in columns if c not in names and (new[c] != DEFAULTS.get(c, "")).any() and (new[c] != "").any()]
    if lost:  # qa189: a file of the required columns alone took rows whose acceptance length and engine went missing
        value = new.loc[new[lost[0]] != "", lost[0]].iloc[0]
        raise RooflineError(f"{out}: --append: expected a column {lost[0]!r}, which these rows fill ({lost[0]} {value}), "
                            f"found none{f' (nor {len(lost) - 1} more)' if len(lost) > 1 else ''}: add it to the file (its "
                            "name at the header's end and a comma at the end of every row), or convert to a file of its own; "
                            "nothing appended")
    old = pd.read_csv(out, dtype=str, keep_default_na=False, encoding="utf-8-sig").rename(columns=str.strip)
    mine = new.reindex(columns=names, fill_value="")  # the file's columns in its order (one convert leaves empty stays so)
    again = _rows_held_already(old, new, mine)
    if again:  # the same results converted before (under another --source-id or --engine-version too): counted twice
        raise RooflineError(f"{out}: --append: expected rows not in the file yet, found {again} of the {len(new)} "
                            "converted there already (the same results converted before); nothing appended")
    end = "\r\n" if first.endswith("\r") else "\n"  # the header's (qa193: not a CRLF inside a quoted note's)
    text = before + end + mine.to_csv(index=False, header=False, lineterminator=end)
    _check_as_fit_reads(out, text, "--append: with these rows: ")
    write_text_atomic(out, text, force=True)
    load_measurements(out)  # says rows that repeat earlier ones in other words
    return out
