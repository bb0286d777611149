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

from roofline.errors import field_error, unknown_key_error, warn
from roofline.profiles import find_profile, normalize_dtype, read_yaml
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
    "w8a16": ("bf16", "fp16", "fp32"),  # weight-only int8: dequantised to bf16 in the GEMM
    "int4": ("bf16", "fp16", "fp32"),
    # MXFP4 weights without fp4 tensor cores run as W4A16 (bf16 activations; vLLM's Marlin / Triton MXFP4 paths on Hopper)
    "fp4": ("fp4", "bf16", "fp16", "fp32"),
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
    compute_efficiency_by_dtype: dict = field(default_factory=dict, compare=False)  # fp8/fp4/int8 achievable fractions
    scale_up_domain: int = 1                     # devices joined by link_bandwidth (an NVLink / Infinity Fabric domain)
    scale_out_bw_bytes_per_s: float | None = None   # per device, between domains (InfiniBand / Ethernet NIC)
    scale_out_latency_s: float | None = None
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

    def compute_efficiency_for(self, dtype: str) -> float:
        """The achievable fraction of the compute dtype's peak: its own figure where the profile gives one."""
        return self.compute_efficiency_by_dtype.get(self.compute_dtype(dtype), self.compute_efficiency)

    def compute_ceiling_flops_per_s(self, dtype: str) -> float:
        """peak_flops_per_s[compute dtype] * compute efficiency of that dtype."""
        return self.peak_flops_per_s[self.compute_dtype(dtype)] * self.compute_efficiency_for(dtype)

    def link_for(self, devices: int) -> tuple[float, float]:
        """(bytes/s per device, latency s) of a collective over `devices`: the scale-up link inside one
        domain, the slower scale-out link when the group spans domains."""
        if devices <= self.scale_up_domain or self.scale_out_bw_bytes_per_s is None:
            return self.link_bw_bytes_per_s * self.link_efficiency, self.link_latency_s
        return self.scale_out_bw_bytes_per_s * self.link_efficiency, self.scale_out_latency_s or self.link_latency_s

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
            "compute_efficiency_by_dtype": dict(self.compute_efficiency_by_dtype),
            "scale_up_domain": self.scale_up_domain,
            "scale_out_bw_bytes_per_s": self.scale_out_bw_bytes_per_s,
            "scale_out_latency_s": self.scale_out_latency_s,
            "usable_memory_fraction": self.usable_memory_fraction,
            "price_usd_per_hour": self.price_usd_per_hour,
            "overlap_exponent": self.overlap_exponent,
            "layer_overhead_s": self.layer_overhead_s,
            "attention_compute_flops_per_s": self.attention_compute_flops_per_s,
            "attention_memory_bytes_per_s": self.attention_memory_bytes_per_s,
            "elementwise_memory_bytes_per_s": self.elementwise_memory_bytes_per_s,
            "ridge_point_flops_per_byte": {d: self.ridge_point_flops_per_byte(d) for d in self.peak_flops_per_s},
            "measured": self.measured,
            "source": self.source,
            "notes": self.notes,
        }


_REQUIRED = (
    "name", "display_name", "kind", "memory", "memory_bandwidth", "peak_flops", "on_chip_cache",
    "link_bandwidth", "link_latency", "efficiency", "step_overhead", "source", "notes",
)
_OPTIONAL = ("type", "usable_memory_fraction", "price", "measured", "overlap_exponent", "layer_overhead", "operator_ceilings",
             "scale_up_domain", "scale_out_bandwidth", "scale_out_latency")
_DTYPE_EFFICIENCIES = {"compute_fp8": "fp8", "compute_fp4": "fp4", "compute_int8": "int8"}
SUSPICIOUS_MEM_BW_BYTES_PER_S = 20e12  # above this per device a profile gets a warning (B300 is 8 TB/s)
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
    if not isinstance(data, dict):
        raise field_error(where, "(top level)", "a mapping of fields", type(data).__name__)
    extra = {k: v for k, v in data.items() if k not in _REQUIRED and k not in _OPTIONAL}
    unknown = [k for k in extra if not str(k).startswith("measured_") and not str(k).startswith("x_")]
    if unknown:
        raise unknown_key_error(where, unknown[0], (*_REQUIRED, *_OPTIONAL))
    missing = [k for k in _REQUIRED if k not in data]
    if missing:
        raise field_error(where, missing[0], "a required field", "nothing")
    for key in ("name", "display_name", "source", "notes"):
        if not isinstance(data[key], str) or not data[key].strip():
            raise field_error(where, key, "a non-empty string", data[key])
    if data["kind"] not in KINDS:
        raise field_error(where, "kind", "one of " + "|".join(KINDS), data["kind"])
    flops = data["peak_flops"]
    if not isinstance(flops, dict) or not flops:
        raise field_error(where, "peak_flops", "a mapping of dtype to FLOP/s", flops)
    peak_flops_per_s = {}
    for raw_dtype, value in flops.items():
        dtype = normalize_dtype(raw_dtype, DTYPES, where, f"peak_flops.{str(raw_dtype)[:40]}")
        if dtype in peak_flops_per_s:
            raise field_error(where, f"peak_flops.{raw_dtype}", f"one figure per dtype ({dtype} is given twice)", raw_dtype)
        peak_flops_per_s[dtype] = _quantity(where, f"peak_flops.{raw_dtype}", value, "flops_per_s")
    if "bf16" not in peak_flops_per_s and "fp32" not in peak_flops_per_s:
        raise field_error(where, "peak_flops", "at least a bf16 or fp32 peak", sorted(peak_flops_per_s))
    if "fp8" in peak_flops_per_s and peak_flops_per_s.get("bf16", 0.0) > peak_flops_per_s["fp8"]:
        raise field_error(where, "peak_flops.bf16", f"at most the fp8 figure ({flops.get('fp8')}; fp8 tensor cores are never slower)",
                          flops.get("bf16"))
    eff = data["efficiency"]
    if not isinstance(eff, dict):
        raise field_error(where, "efficiency", "a mapping with memory, compute, link", eff)
    for key in ("memory", "compute", "link"):
        if key not in eff:
            raise field_error(where, f"efficiency.{key}", "a required fraction", "nothing")
    for key in eff:
        if key not in ("memory", "compute", "link", *_DTYPE_EFFICIENCIES):
            raise field_error(where, f"efficiency.{key}", "memory, compute, link or " + ", ".join(_DTYPE_EFFICIENCIES), key)
    by_dtype = {d: _fraction(where, f"efficiency.{k}", eff[k]) for k, d in _DTYPE_EFFICIENCIES.items() if k in eff}
    domain = data.get("scale_up_domain", 1)
    if isinstance(domain, bool) or not isinstance(domain, int) or not 1 <= domain <= 100_000:
        raise field_error(where, "scale_up_domain", "a device count in 1..100000", domain)
    if ("scale_out_bandwidth" in data) != ("scale_out_latency" in data):
        raise field_error(where, "scale_out_latency" if "scale_out_bandwidth" in data else "scale_out_bandwidth",
                          "scale_out_bandwidth and scale_out_latency together", "only one of them")
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
    mem_bw_bytes_per_s = _quantity(where, "memory_bandwidth", data["memory_bandwidth"], "bytes_per_s")
    if mem_bw_bytes_per_s > SUSPICIOUS_MEM_BW_BYTES_PER_S:
        warn(f"{where}: memory_bandwidth: {data['memory_bandwidth']} is above 20 TB/s for one device; check the unit and that it is per device")
    return HardwareSpec(
        name=data["name"],
        display_name=data["display_name"],
        kind=data["kind"],
        mem_bytes=_quantity(where, "memory", data["memory"], "bytes"),
        mem_bw_bytes_per_s=mem_bw_bytes_per_s,
        peak_flops_per_s=peak_flops_per_s,
        on_chip_cache_bytes=_quantity(where, "on_chip_cache", data["on_chip_cache"], "bytes"),
        link_bw_bytes_per_s=_quantity(where, "link_bandwidth", data["link_bandwidth"], "bytes_per_s"),
        link_latency_s=_quantity(where, "link_latency", data["link_latency"], "seconds"),
        mem_efficiency=_fraction(where, "efficiency.memory", eff["memory"]),
        compute_efficiency=_fraction(where, "efficiency.compute", eff["compute"]),
        link_efficiency=_fraction(where, "efficiency.link", eff["link"]),
        step_overhead_s=_quantity(where, "step_overhead", data["step_overhead"], "seconds"),
        usable_memory_fraction=_fraction(where, "usable_memory_fraction", data.get("usable_memory_fraction", 0.9)),
        compute_efficiency_by_dtype=by_dtype,
        scale_up_domain=domain,
        scale_out_bw_bytes_per_s=_quantity(where, "scale_out_bandwidth", data["scale_out_bandwidth"], "bytes_per_s") if "scale_out_bandwidth" in data else None,
        scale_out_latency_s=_quantity(where, "scale_out_latency", data["scale_out_latency"], "seconds") if "scale_out_latency" in data else None,
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
