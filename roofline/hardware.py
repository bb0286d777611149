"""A device as the roofline model sees it: peaks, achievable fractions, overheads (SI units).

Read from a hardware profile (docs/PROFILES.md). Every peak is a datasheet figure; FLOP/s are
dense (no 2:4 sparsity). The achievable fractions (`*_efficiency`) scale the peaks into ceilings:

    compute ceiling  = peak_flops_per_s[dtype] * compute_efficiency        (FLOP/s)
    memory ceiling   = mem_bw_bytes_per_s * mem_efficiency                 (bytes/s)
    ridge point      = compute ceiling / memory ceiling                    (FLOP/byte)

An operator whose arithmetic intensity (FLOP/byte) is below the ridge point is memory-bound.

Optional refinements, which `roofline calibrate` measures on a real machine (datasheet profiles
leave them out): `operator_ceilings` gives attention and elementwise operators their own
achievable ceilings (on a CPU a fused attention kernel or an RMSNorm reaches a different fraction of
peak than a GEMM does); `layer_overhead` is a fixed cost per layer per pass (kernel dispatch in an
eager runtime); `overlap_exponent` replaces the max of compute and memory time by a p-norm.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from roofline.errors import field_error
from roofline.profiles import find_profile, read_yaml
from roofline.units import parse_quantity

DTYPES = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4")
KINDS = ("gpu", "tpu", "accelerator", "cpu", "soc")

# What a GEMM on weights of this dtype computes in, in order of preference (weight-only int4 is W4A16).
_COMPUTE_DTYPE_PREFERENCE = {
    "fp32": ("fp32",),
    "tf32": ("tf32", "fp32"),
    "bf16": ("bf16", "fp16", "fp32"),
    "fp16": ("fp16", "bf16", "fp32"),
    "fp8": ("fp8", "bf16", "fp16", "fp32"),
    "int8": ("int8", "bf16", "fp16", "fp32"),
    "int4": ("bf16", "fp16", "fp32"),
    "fp4": ("fp4", "fp8", "bf16", "fp16", "fp32"),
}


@dataclass(frozen=True)
class HardwareSpec:
    """One device. All fields in SI units; `peak_flops_per_s` is keyed by dtype, dense peaks."""

    name: str
    display_name: str
    kind: str
    mem_bytes: float
    mem_bw_bytes_per_s: float
    peak_flops_per_s: dict[str, float]
    on_chip_cache_bytes: float
    link_bw_bytes_per_s: float
    link_latency_s: float
    mem_efficiency: float
    compute_efficiency: float
    link_efficiency: float
    step_overhead_s: float
    usable_memory_fraction: float = 0.90
    price_usd_per_hour: float | None = None
    overlap_exponent: float | None = None
    layer_overhead_s: float = 0.0
    attention_compute_flops_per_s: float | None = None
    attention_memory_bytes_per_s: float | None = None
    elementwise_memory_bytes_per_s: float | None = None
    measured: bool = False
    source: str = ""
    notes: str = ""
    path: str = ""
    extra: dict = field(default_factory=dict, compare=False)

    def compute_dtype(self, dtype: str) -> str:
        """The dtype a GEMM on `dtype` operands runs in on this device (its fastest supported form)."""
        for candidate in _COMPUTE_DTYPE_PREFERENCE[dtype]:
            if candidate in self.peak_flops_per_s:
                return candidate
        return next(iter(self.peak_flops_per_s))

    def compute_ceiling_flops_per_s(self, dtype: str) -> float:
        """peak_flops_per_s[compute dtype] * compute_efficiency."""
        return self.peak_flops_per_s[self.compute_dtype(dtype)] * self.compute_efficiency

    @property
    def memory_ceiling_bytes_per_s(self) -> float:
        """mem_bw_bytes_per_s * mem_efficiency."""
        return self.mem_bw_bytes_per_s * self.mem_efficiency

    def ridge_point_flops_per_byte(self, dtype: str = "bf16", derated: bool = False) -> float:
        """peak FLOP/s / peak bytes/s (or the ratio of the derated ceilings when `derated`)."""
        if derated:
            return self.compute_ceiling_flops_per_s(dtype) / self.memory_ceiling_bytes_per_s
        return self.peak_flops_per_s[self.compute_dtype(dtype)] / self.mem_bw_bytes_per_s

    @property
    def usable_mem_bytes(self) -> float:
        """Memory available for weights and KV cache: mem_bytes * usable_memory_fraction."""
        return self.mem_bytes * self.usable_memory_fraction

    def to_json(self) -> dict:
        """The `roofline hw show --json` object (SI units)."""
        return {
            "name": self.name,
            "display_name": self.display_name,
            "kind": self.kind,
            "mem_bytes": self.mem_bytes,
            "mem_bw_bytes_per_s": self.mem_bw_bytes_per_s,
            "peak_flops_per_s": dict(self.peak_flops_per_s),
            "on_chip_cache_bytes": self.on_chip_cache_bytes,
            "link_bw_bytes_per_s": self.link_bw_bytes_per_s,
            "link_latency_s": self.link_latency_s,
            "mem_efficiency": self.mem_efficiency,
            "compute_efficiency": self.compute_efficiency,
            "link_efficiency": self.link_efficiency,
            "step_overhead_s": self.step_overhead_s,
            "usable_memory_fraction": self.usable_memory_fraction,
            "price_usd_per_hour": self.price_usd_per_hour,
            "overlap_exponent": self.overlap_exponent,
            "layer_overhead_s": self.layer_overhead_s,
            "attention_compute_flops_per_s": self.attention_compute_flops_per_s,
            "attention_memory_bytes_per_s": self.attention_memory_bytes_per_s,
            "elementwise_memory_bytes_per_s": self.elementwise_memory_bytes_per_s,
            "ridge_point_flops_per_byte": {d: self.peak_flops_per_s[d] / self.mem_bw_bytes_per_s for d in self.peak_flops_per_s},
            "measured": self.measured,
            "source": self.source,
            "notes": self.notes,
        }


_REQUIRED = (
    "name", "display_name", "kind", "memory", "memory_bandwidth", "peak_flops", "on_chip_cache",
    "link_bandwidth", "link_latency", "efficiency", "step_overhead", "source", "notes",
)
_OPTIONAL = ("type", "usable_memory_fraction", "price", "measured", "overlap_exponent", "layer_overhead", "operator_ceilings")
_OPERATOR_CEILINGS = {"attention_compute": "flops_per_s", "attention_memory": "bytes_per_s", "elementwise_memory": "bytes_per_s"}


def _fraction(where: str, key: str, value: object) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and 0 < value <= 1
    if not ok:
        raise field_error(where, key, "a fraction in (0, 1]", value)
    return float(value)


def _quantity(where: str, key: str, value: object, kind: str) -> float:
    try:
        return parse_quantity(value, kind)
    except ValueError as exc:
        raise field_error(where, key, str(exc), value) from None


def hardware_from_dict(data: dict, where: str = "<hardware>") -> HardwareSpec:
    """Validate a hardware profile mapping and convert it to SI units."""
    missing = [k for k in _REQUIRED if k not in data]
    if missing:
        raise field_error(where, missing[0], "a required field", "nothing")
    extra = {k: v for k, v in data.items() if k not in _REQUIRED and k not in _OPTIONAL}
    unknown = [k for k in extra if not k.startswith("measured_") and not k.startswith("x_")]
    if unknown:
        raise field_error(where, unknown[0], "a known field (see docs/PROFILES.md)", unknown[0])
    for key in ("name", "display_name", "source", "notes"):
        if not isinstance(data[key], str) or not data[key].strip():
            raise field_error(where, key, "a non-empty string", data[key])
    if data["kind"] not in KINDS:
        raise field_error(where, "kind", "one of " + "|".join(KINDS), data["kind"])
    flops = data["peak_flops"]
    if not isinstance(flops, dict) or not flops:
        raise field_error(where, "peak_flops", "a mapping of dtype to FLOP/s", flops)
    peak_flops_per_s = {}
    for dtype, value in flops.items():
        if dtype not in DTYPES:
            raise field_error(where, f"peak_flops.{dtype}", "a dtype among " + ", ".join(DTYPES), dtype)
        peak_flops_per_s[dtype] = _quantity(where, f"peak_flops.{dtype}", value, "flops_per_s")
    if "bf16" not in peak_flops_per_s and "fp32" not in peak_flops_per_s:
        raise field_error(where, "peak_flops", "at least a bf16 or fp32 peak", sorted(peak_flops_per_s))
    eff = data["efficiency"]
    if not isinstance(eff, dict):
        raise field_error(where, "efficiency", "a mapping with memory, compute, link", eff)
    for key in ("memory", "compute", "link"):
        if key not in eff:
            raise field_error(where, f"efficiency.{key}", "a required fraction", "nothing")
    price = data.get("price")
    overlap = data.get("overlap_exponent")
    if overlap is not None and (isinstance(overlap, bool) or not isinstance(overlap, (int, float)) or not math.isfinite(overlap) or overlap < 1):
        raise field_error(where, "overlap_exponent", "a number >= 1 (or absent for the pure max)", overlap)
    measured = data.get("measured", False)
    if not isinstance(measured, bool):
        raise field_error(where, "measured", "true or false", measured)
    ceilings = data.get("operator_ceilings") or {}
    if not isinstance(ceilings, dict):
        raise field_error(where, "operator_ceilings", "a mapping of " + ", ".join(_OPERATOR_CEILINGS), ceilings)
    for key in ceilings:
        if key not in _OPERATOR_CEILINGS:
            raise field_error(where, f"operator_ceilings.{key}", "one of " + ", ".join(_OPERATOR_CEILINGS), key)
    operator_ceilings = {k: _quantity(where, f"operator_ceilings.{k}", v, _OPERATOR_CEILINGS[k]) for k, v in ceilings.items()}
    layer_overhead = data.get("layer_overhead")
    return HardwareSpec(
        name=data["name"],
        display_name=data["display_name"],
        kind=data["kind"],
        mem_bytes=_quantity(where, "memory", data["memory"], "bytes"),
        mem_bw_bytes_per_s=_quantity(where, "memory_bandwidth", data["memory_bandwidth"], "bytes_per_s"),
        peak_flops_per_s=peak_flops_per_s,
        on_chip_cache_bytes=_quantity(where, "on_chip_cache", data["on_chip_cache"], "bytes"),
        link_bw_bytes_per_s=_quantity(where, "link_bandwidth", data["link_bandwidth"], "bytes_per_s"),
        link_latency_s=_quantity(where, "link_latency", data["link_latency"], "seconds"),
        mem_efficiency=_fraction(where, "efficiency.memory", eff["memory"]),
        compute_efficiency=_fraction(where, "efficiency.compute", eff["compute"]),
        link_efficiency=_fraction(where, "efficiency.link", eff["link"]),
        step_overhead_s=_quantity(where, "step_overhead", data["step_overhead"], "seconds"),
        usable_memory_fraction=_fraction(where, "usable_memory_fraction", data.get("usable_memory_fraction", 0.9)),
        price_usd_per_hour=None if price is None else _quantity(where, "price", price, "usd_per_hour"),
        overlap_exponent=None if overlap is None else float(overlap),
        layer_overhead_s=0.0 if layer_overhead is None else _quantity(where, "layer_overhead", layer_overhead, "seconds"),
        attention_compute_flops_per_s=operator_ceilings.get("attention_compute"),
        attention_memory_bytes_per_s=operator_ceilings.get("attention_memory"),
        elementwise_memory_bytes_per_s=operator_ceilings.get("elementwise_memory"),
        measured=measured,
        source=data["source"].strip(),
        notes=data["notes"].strip(),
        path=where,
        extra=extra,
    )


def load_hardware(name: str, extra_dirs: tuple[str | Path, ...] = ()) -> HardwareSpec:
    """Load hardware profile `name` (or a path to a YAML file) from the search path."""
    path = find_profile("hardware", name, extra_dirs)
    spec = hardware_from_dict(read_yaml(path), str(path))
    if Path(name).suffix not in (".yaml", ".yml") and spec.name != path.stem:
        raise field_error(str(path), "name", f"the file name {path.stem!r}", spec.name)
    return spec
