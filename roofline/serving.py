"""Serving engines: the costs of a deployment that the silicon's roofline does not explain.

An engine profile (YAML in `engine_profiles/`, every number with its unit and a source or the fit
that produced it) adds physical terms to the roofline step of engine.py:

    kernel latency   every kernel pays a fixed `kernel_latency` (launch inside the graph, ramp-up, tail) on top
                     of its data time; operator o launches kernels_o kernels per layer (embedding and LM head:
                     per pass), so t_o = t_o(roofline) + n_o * kernels_o * kernel_latency, with
                     kernels_o = kernels_per_layer[o] (`kernels_per_layer_mla` for MLA models) plus
                     `quant_kernels_per_gemm` per activation-quantised GEMM (weights computing in fp8/fp4/int8)
    collectives      all-reduce and all-to-all pay the engine's measured small-message latency
                     (NCCL/RCCL) instead of the link's wire latency: latency + bytes / link bandwidth
    host work        scheduling, input preparation and sampling on the CPU per decode step:
                     t_host = host_per_step + host_per_sequence * B_a; overlapped with the device
                     (max) when the engine schedules asynchronously, else added
    speculation      per draft step: spec_per_draft_step + spec_per_draft_step_per_sequence * B_a;
                     per iteration (rejection sampling, KV bookkeeping):
                     spec_per_iteration + spec_per_iteration_per_sequence * B_a
    near the ridge   `overlap_exponent` p: the smooth form (t_c^p + t_m^p)^(1/p) of compute and memory
                     time; `gemm_tile_rows`: weight-GEMM rows padded to the tensor-core tile
    MoE kernels      `quantised_moe_efficiency`: the share of the device's ceilings the engine's routed-expert kernels
                     (grouped / fused MoE GEMMs) reach when the experts compute in fp8 / fp4 / int8; the expert
                     operator's time is divided by it (1: the roofline; bf16 experts are not affected)
    weight-only      `weight_only_efficiency`: the share of the device's ceilings a weight GEMM reaches when its
                     weights are narrower than the dtype it computes in (w8a16, int4, and fp8 / fp4 without
                     tensor cores for them: Marlin, Machete, AWQ, TensorRT-LLM int4_awq dequantise in the GEMM);
                     that operator's time is divided by it (1: the roofline)
    shared prefix    `prefix_read_once`: the attention kernel reads a prefix shared by the batch once
                     per pass (cascade / prefix-aware attention) instead of once per sequence

`ideal` sets every term to zero (the pure roofline bound). A profile may carry `overrides` per
hardware family (a list of {hardware: GLOB, FIELD: VALUE}), e.g. HIP graphs on AMD.
"""

from __future__ import annotations

import fnmatch
import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from roofline.errors import RooflineError, field_error
from roofline.profiles import find_profile, list_names, read_yaml
from roofline.units import parse_quantity

KERNEL_OPERATORS = ("embedding", "qkv_proj", "attention", "kv_write", "o_proj", "mlp", "router", "experts",
                    "shared_experts", "norms", "lm_head")
# weight GEMMs per layer of each operator that take a quantised activation when the weights compute in fp8 / fp4 /
# int8 (one quantisation kernel each, `quant_kernels_per_gemm`): GQA's fused QKV; MLA's fused q_a + kv_a projection
# and q_b projection (kv_b is absorbed into the attention's batched matmuls, which stay in bf16); the gate-up and
# down GEMMs of an MLP, of the routed experts and of the shared experts. Router and LM head run in bf16.
QUANTISED_GEMMS = {"qkv_proj": 1, "o_proj": 1, "mlp": 2, "experts": 2, "shared_experts": 2}
QUANTISED_GEMMS_MLA = {**QUANTISED_GEMMS, "qkv_proj": 2}
# YAML key -> (dataclass field, quantity kind or None for a plain number)
_SECONDS = {
    "kernel_latency": "kernel_latency_s",
    "allreduce_latency": "allreduce_latency_s",
    "all_to_all_latency": "all_to_all_latency_s",
    "host_per_step": "host_per_step_s",
    "host_per_sequence": "host_per_sequence_s",
    "spec_per_draft_step": "spec_per_draft_step_s",
    "spec_per_draft_step_per_sequence": "spec_per_draft_step_per_sequence_s",
    "spec_per_iteration": "spec_per_iteration_s",
    "spec_per_iteration_per_sequence": "spec_per_iteration_per_sequence_s",
}
DEFAULT_ENGINE = "vllm"


@dataclass(frozen=True)
class ServingEngine:
    """One serving engine's costs (SI units). Zero everywhere is the pure roofline (`ideal`)."""

    name: str = "ideal"
    display_name: str = "ideal roofline"
    version: str = ""
    kernel_latency_s: float = 0.0
    kernels_per_layer: dict = field(default_factory=dict, hash=False)
    kernels_per_layer_mla: dict = field(default_factory=dict, hash=False)  # replaces entries for MLA attention
    quant_kernels_per_gemm: float = 0.0
    allreduce_latency_s: float = 0.0     # 0: the hardware link latency
    all_to_all_latency_s: float = 0.0    # 0: the hardware link latency
    host_per_step_s: float = 0.0
    host_per_sequence_s: float = 0.0
    host_overlap: bool = True
    spec_per_draft_step_s: float = 0.0
    spec_per_draft_step_per_sequence_s: float = 0.0
    spec_per_iteration_s: float = 0.0
    spec_per_iteration_per_sequence_s: float = 0.0
    overlap_exponent: float | None = None
    gemm_tile_rows: int = 0
    prefix_read_once: bool = True
    quantised_moe_efficiency: float = 1.0
    weight_only_efficiency: float = 1.0
    overrides: tuple = ()
    fitted: dict = field(default_factory=dict, compare=False, hash=False)
    source: str = ""
    notes: str = ""
    path: str = ""
    costs_from: str = ""  # the path of the profile whose costs this one takes (load_engine), or "" for costs of its own

    def kernels(self, operator: str, mla: bool = False, quantised: bool = False) -> float:
        """Kernels operator `operator` launches per layer (per pass for embedding and LM head):

            kernels_per_layer[o]  (kernels_per_layer_mla[o] where the model's attention is MLA and the entry exists)
            + quant_kernels_per_gemm * QUANTISED_GEMMS[o]   when the operator's weights compute in fp8 / fp4 / int8
        """
        counts = self.kernels_per_layer_mla if mla and operator in self.kernels_per_layer_mla else self.kernels_per_layer
        n = float(counts.get(operator, 0))
        if quantised:
            n += self.quant_kernels_per_gemm * (QUANTISED_GEMMS_MLA if mla else QUANTISED_GEMMS).get(operator, 0)
        return n

    def for_hardware(self, hardware_name: str) -> ServingEngine:
        """This engine with the overrides whose `hardware` glob matches applied."""
        out = self
        for glob, changes in self.overrides:
            if fnmatch.fnmatch(hardware_name, glob):
                out = replace(out, **changes)
        return out

    def to_json(self) -> dict:
        keys = ("name", "display_name", "version", "kernel_latency_s", "allreduce_latency_s", "all_to_all_latency_s",
                "host_per_step_s", "host_per_sequence_s", "host_overlap", "spec_per_draft_step_s",
                "spec_per_draft_step_per_sequence_s", "spec_per_iteration_s", "spec_per_iteration_per_sequence_s",
                "overlap_exponent", "gemm_tile_rows", "prefix_read_once", "quantised_moe_efficiency", "weight_only_efficiency",
                "quant_kernels_per_gemm", "costs_from")
        out = {k: getattr(self, k) for k in keys}
        out["kernels_per_layer"] = dict(self.kernels_per_layer)
        out["kernels_per_layer_mla"] = dict(self.kernels_per_layer_mla)
        return out


IDEAL = ServingEngine()
_KNOWN = {"type", "name", "display_name", "version", "kernels_per_layer", "kernels_per_layer_mla", "quant_kernels_per_gemm",
          "host_overlap", "overlap_exponent",
          "gemm_tile_rows", "prefix_read_once", "quantised_moe_efficiency", "weight_only_efficiency", "overrides", "fitted", "source", "notes", *_SECONDS}


_ZERO_TIME = re.compile(r"^\s*0+(\.0*)?\s*(s|ms|us|µs|ns)?\s*$")


def _is_zero_time(value) -> bool:
    """0, 0.0, '0', '0 ms', '0.0 us': a time of zero, which parse_quantity (positive quantities only) refuses."""
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return value == 0
    return isinstance(value, str) and bool(_ZERO_TIME.match(value))


def _fields(data: dict, where: str, prefix: str = "") -> dict:
    """The dataclass fields a mapping sets (shared by the profile and its overrides)."""
    out = {}
    for key, name in _SECONDS.items():
        if key in data:
            value = data[key]
            if _is_zero_time(value):  # a cost the engine does not have: 0 in any unit
                out[name] = 0.0
                continue
            try:
                out[name] = parse_quantity(value, "seconds")
            except ValueError as exc:
                raise field_error(where, prefix + key, str(exc), value) from None
    for key in ("kernels_per_layer", "kernels_per_layer_mla"):
        if key not in data:
            continue
        raw = data[key]
        if not isinstance(raw, dict):
            raise field_error(where, prefix + key, "a mapping of operator to kernel count", raw)
        for op, n in raw.items():
            if op not in KERNEL_OPERATORS:
                raise field_error(where, f"{prefix}{key}.{op}", "one of " + ", ".join(KERNEL_OPERATORS), op)
            if isinstance(n, bool) or not isinstance(n, (int, float)) or not 0 <= n <= 100:
                raise field_error(where, f"{prefix}{key}.{op}", "a kernel count in 0..100", n)
        out[key] = dict(raw)
    if "quant_kernels_per_gemm" in data:
        n = data["quant_kernels_per_gemm"]
        if isinstance(n, bool) or not isinstance(n, (int, float)) or not 0 <= n <= 10:
            raise field_error(where, prefix + "quant_kernels_per_gemm", "a kernel count in 0..10", n)
        out["quant_kernels_per_gemm"] = float(n)
    for key in ("host_overlap", "prefix_read_once"):
        if key in data:
            if not isinstance(data[key], bool):
                raise field_error(where, prefix + key, "true or false", data[key])
            out[key] = data[key]
    if "overlap_exponent" in data:
        p = data["overlap_exponent"]
        if p is not None and (isinstance(p, bool) or not isinstance(p, (int, float)) or not math.isfinite(p) or not 1 <= p <= 100):
            raise field_error(where, prefix + "overlap_exponent", "a number in [1, 100] or null (pure max)", p)
        out["overlap_exponent"] = None if p is None else float(p)
    for key in ("quantised_moe_efficiency", "weight_only_efficiency"):
        if key in data:
            eff = data[key]
            if isinstance(eff, bool) or not isinstance(eff, (int, float)) or not math.isfinite(eff) or not 0.01 <= eff <= 1:
                raise field_error(where, prefix + key, "a fraction in [0.01, 1]", eff)
            out[key] = float(eff)
    if "gemm_tile_rows" in data:
        rows = data["gemm_tile_rows"]
        if isinstance(rows, bool) or not isinstance(rows, int) or not 0 <= rows <= 1024:
            raise field_error(where, prefix + "gemm_tile_rows", "an integer in 0..1024", rows)
        out["gemm_tile_rows"] = rows
    return out


def _require_name_and_source(data: dict, where: str) -> None:
    for key in ("name", "source"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise field_error(where, key, "a non-empty string", data.get(key))


def engine_from_dict(data: dict, where: str = "<engine>") -> ServingEngine:
    """Validate an engine profile mapping (docs/ENGINES.md) and convert it to SI units."""
    for key in data:
        if key not in _KNOWN:
            raise field_error(where, key, "a known engine field (see docs/ACCURACY.md)", key)
    _require_name_and_source(data, where)
    overrides = []
    for i, item in enumerate(data.get("overrides") or []):
        if not isinstance(item, dict) or not isinstance(item.get("hardware"), str):
            raise field_error(where, f"overrides[{i}]", "a mapping with a hardware glob and fields to change", item)
        rest = {k: v for k, v in item.items() if k != "hardware"}
        for key in rest:
            if key not in _KNOWN - {"type", "name", "display_name", "version", "overrides", "fitted", "source", "notes"}:
                raise field_error(where, f"overrides[{i}].{key}", "an engine cost field", key)
        overrides.append((item["hardware"], _fields(rest, where, f"overrides[{i}].")))
    fitted = data.get("fitted") or {}
    if not isinstance(fitted, dict):
        raise field_error(where, "fitted", "a mapping (written by roofline fit)", fitted)
    return ServingEngine(
        name=data["name"], display_name=str(data.get("display_name", data["name"])), version=str(data.get("version", "")),
        **_fields(data, where), overrides=tuple(overrides), fitted=fitted,
        source=data["source"].strip(), notes=str(data.get("notes", "")).strip(), path=where,
    )


_OWN_FIELDS = {"type", "name", "display_name", "version", "source", "notes", "costs_from"}


def load_engine(name: str | ServingEngine | None, extra_dirs: tuple[str | Path, ...] = ()) -> ServingEngine:
    """An engine profile by name or path (None: the default realistic engine); `ideal` is built in.

    A profile with `costs_from: OTHER` takes every cost of profile OTHER (its values, kernel counts, overrides and
    `fitted` block) and keeps only its own name, display name, version, source and notes: an engine whose own fit
    does not carry to sources it was not fitted on (vllm-v0, docs/ACCURACY.md) says whose costs it uses instead
    of holding a copy that would drift. Such a file may set no cost itself, and OTHER may not use `costs_from`."""
    if isinstance(name, ServingEngine):
        return name
    name = DEFAULT_ENGINE if name is None else name
    if not isinstance(name, str):
        raise RooflineError(f"--engine: expected an engine name, found {name!r}")
    path = find_profile("engine", name.strip().lower() if not name.endswith((".yaml", ".yml")) else name, extra_dirs)
    data = read_yaml(path)
    if "costs_from" not in data:
        return engine_from_dict(data, str(path))
    where, other = str(path), data["costs_from"]
    for key in data:
        if key not in _OWN_FIELDS:
            raise field_error(where, key, "no cost field beside costs_from (the costs are those of the profile it names)", key)
    _require_name_and_source(data, where)
    if not isinstance(other, str) or not other.strip() or other.strip().lower() in (data["name"].strip().lower(), "ideal"):
        raise field_error(where, "costs_from", "the name of another engine profile (not itself, not ideal)", other)
    try:
        base_path = find_profile("engine", other.strip().lower(), extra_dirs)
    except RooflineError as exc:
        raise RooflineError(f"{where}: costs_from: {exc}") from None
    base_data = read_yaml(base_path)
    if "costs_from" in base_data:
        raise field_error(where, "costs_from", f"a profile with costs of its own ({base_path} takes them from another)", other)
    base = engine_from_dict(base_data, str(base_path))
    return replace(base, name=data["name"], display_name=str(data.get("display_name", data["name"])),
                   version=str(data.get("version", "")), source=data["source"].strip(),
                   notes=str(data.get("notes", "")).strip(), path=where, costs_from=str(base_path))


def engine_names(extra_dirs: tuple[str | Path, ...] = ()) -> list[str]:
    return list_names("engine", extra_dirs)
