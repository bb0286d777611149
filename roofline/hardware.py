"""A device as the roofline model sees it: peaks, achievable fractions, overheads (SI units).

Read from a hardware profile (docs/PROFILES.md). Every peak is a datasheet figure; FLOP/s are
dense (no 2:4 sparsity). The achievable fractions (`*_efficiency`) scale the peaks into ceilings:

    compute ceiling  = peak_flops_per_s[dtype] * compute_efficiency        (FLOP/s)
    memory ceiling   = mem_bw_bytes_per_s * mem_efficiency                 (bytes/s)
    ridge point      = compute ceiling / memory ceiling                    (FLOP/byte, "derated")

An operator whose arithmetic intensity (FLOP/byte) is below the ridge point is memory-bound. The datasheet's
ratio, peak FLOP/s / peak bytes/s, is the "peak ridge" (`hw list`, `hw diff`); predictions use the derated one.

Optional refinements, which `roofline calibrate` measures on a real machine (datasheet profiles
leave them out): `operator_ceilings` gives attention and elementwise operators their own
achievable ceilings (on a CPU a fused attention kernel or an RMSNorm reaches a different fraction of
peak than a GEMM does); `layer_overhead` is a fixed cost per layer per pass (kernel dispatch in an
eager runtime); `overlap_exponent` replaces the max of compute and memory time by a p-norm.
"""

from __future__ import annotations

import itertools
import math
import numbers
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from roofline.errors import MISSING, RooflineError, check_flag, field_error, unknown_key_error, warn
from roofline.profiles import alias_of, find_profile, is_profile_path, list_names, normalize_dtype, read_yaml
from roofline.units import (
    PHYSICAL_RANGE,
    format_seconds,
    format_si,
    format_significant,
    is_finite,
    parse_quantity,
    parse_seconds_or_zero,
)

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
    "nvfp4": ("fp4", "bf16", "fp16", "fp32"),  # NVFP4: fp4 elements with finer scales, the same tensor cores
}


FP4_FORMATS = ("mxfp4", "nvfp4")  # the 4-bit weight formats an fp4 peak may take: MXFP4 (an E8M0 scale a 32), NVFP4 (FP8 a 16)
_FP4_FORMAT_OF = {"fp4": "mxfp4", "nvfp4": "nvfp4"}  # a weight dtype's format


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
    mesh_links: int = 0                          # 0: a switch (each device reaches any peer at link_bandwidth); L: a
    #   fully connected mesh of L point-to-point links per device, each link_bandwidth / L (MI300X xGMI: 7 x 64 GB/s)
    torus_shape: tuple[int, ...] = ()            # (): not a torus; a TPU pod's ICI torus axes (16, 16): 2 ports an axis
    #   per chip, link_bandwidth their sum (torus_ports)
    scale_out_bw_bytes_per_s: float | None = None   # per device, between domains (InfiniBand / Ethernet NIC)
    scale_out_latency_s: float | None = None
    scale_out_efficiency: float | None = None     # the scale-out link's achievable fraction; None: link_efficiency
    price_usd_per_hour: float | None = None
    overlap_exponent: float | None = None
    layer_overhead_s: float = 0.0
    attention_compute_flops_per_s: float | None = None
    attention_memory_bytes_per_s: float | None = None
    attention_stream_bytes_per_s: float | None = None  # one (sequence, KV head)'s KV stream where the kernel gives it one
    #   unit and does not split its keys: S of them read at S x this, up to attention_memory (engine.attention_memory_ceiling)
    elementwise_memory_bytes_per_s: float | None = None
    measured: bool = False
    source: str = ""
    notes: str = ""
    path: str = ""
    extra: dict = field(default_factory=dict, compare=False)
    family: str = ""  # the profile whose engine values (an engine's `overrides` globs) this device takes; "": its name
    fp4_formats: tuple[str, ...] = FP4_FORMATS  # the formats its fp4 peak takes (CDNA4's MFMA: MXFP4's E8M0 scales only)

    @property
    def engine_family(self) -> str:
        """The name an engine profile's `overrides` globs match (mi*, b[0-9]*): `family`, else the device's own name. A
        copy made by `hw new --from mi300x` keeps family mi300x: renamed, it still takes AMD's engine values."""
        return (self.family or self.name).lower()

    def shares_scale_up(self, other: HardwareSpec) -> bool:
        """Whether `other` can be one more device on this one's scale-up link (NVLink, xGMI, ICI): the same kind (its
        engine_family: a copy made with `hw new` is its source's kind) on the same link (bandwidth, latency, domain,
        mesh or torus). A kind's other board is not: an H100 SXM5 94GB (HGX 4-GPU, family h100-sxm) is never on an
        8-GPU H100 board's NVSwitch (qa343)."""
        def link(hw: HardwareSpec) -> tuple:
            return (hw.engine_family, hw.link_bw_bytes_per_s, hw.link_latency_s, hw.scale_up_domain, hw.mesh_links,
                    hw.torus_shape)
        return link(self) == link(other)

    def compute_dtype(self, dtype: str) -> str:
        """The dtype a GEMM on `dtype` operands runs in on this device (its fastest supported form); 4-bit weights take
        the fp4 peak only in a format it takes (fp4_formats: an MI355X runs NVFP4 weight-only)."""
        for candidate in _COMPUTE_DTYPE_PREFERENCE[dtype]:
            if candidate == "fp4" and _FP4_FORMAT_OF.get(dtype, "mxfp4") not in self.fp4_formats:
                continue
            if candidate in self.peak_flops_per_s:
                return candidate
        return next(iter(self.peak_flops_per_s))

    def compute_efficiency_for(self, dtype: str) -> float:
        """The achievable fraction of the compute dtype's peak: its own figure where the profile gives one, else, for a
        quantised dtype (fp8, fp4, int8), that of another the profile gives one for at the same peak (int8 at fp8's
        rate on Hopper, Blackwell and CDNA3: the same tensor-core issue rate and operand bytes a cycle; qa253: W8A8 on an
        MI300X took bf16's 0.54 beside fp8's 0.49), else `compute_efficiency` (bf16's; qa257: Gaudi 3's bf16 took fp8's
        0.70 at the same 1835 TFLOP/s)."""
        source = self.efficiency_dtype(dtype)
        return self.compute_efficiency if source is None else self.compute_efficiency_by_dtype[source]

    def efficiency_dtype(self, dtype: str) -> str | None:
        """The dtype whose own compute efficiency `dtype` takes (compute_efficiency_for): its compute dtype where the
        profile gives that one a figure, else (a quantised dtype) the first one given a figure at the same peak; None
        where it takes the general `compute_efficiency`."""
        compute = self.compute_dtype(dtype)
        if compute in self.compute_efficiency_by_dtype:
            return compute
        if compute not in _DTYPE_EFFICIENCIES.values():
            return None
        peak = self.peak_flops_per_s[compute]
        return next((d for d in self.compute_efficiency_by_dtype if self.peak_flops_per_s.get(d) == peak), None)

    def compute_ceiling_flops_per_s(self, dtype: str) -> float:
        """peak_flops_per_s[compute dtype] * compute efficiency of that dtype."""
        return self.peak_flops_per_s[self.compute_dtype(dtype)] * self.compute_efficiency_for(dtype)

    @property
    def scale_out_link_efficiency(self) -> float:
        """The scale-out link's achievable fraction: `efficiency.scale_out` where the profile gives it (a NIC's, not the
        scale-up fabric's: MI300X's xGMI reaches 0.75 of its line rate, a 400 Gb/s NIC 0.96), else efficiency.link."""
        return self.link_efficiency if self.scale_out_efficiency is None else self.scale_out_efficiency

    def link_for(self, devices: int) -> tuple[float, float]:
        """(bytes/s per device, latency s) of a collective over `devices`: the scale-up link inside one
        domain, the slower scale-out link when the group spans domains. On a mesh (mesh_links L > 0) a device
        reaches its devices - 1 peers over one link each, so a group uses only

            bytes/s = link_bw_bytes_per_s * min(max(devices - 1, 1), L) / L * link_efficiency

        (on an 8-GPU MI300X: TP 2 one 64 GB/s link, TP 8 all seven); on a torus of D axes (torus_shape) a group
        uses the ports its slice spans (torus_ports: a pair one, a 4 x 4 slice of a 16 x 16 pod two, the pod four)

            bytes/s = link_bw_bytes_per_s * torus_ports(devices) / (2 D) * link_efficiency

        across domains

            bytes/s = scale_out_bw_bytes_per_s * scale_out_link_efficiency"""
        if devices <= self.scale_up_domain or self.scale_out_bw_bytes_per_s is None:
            if self.mesh_links:
                share = min(max(devices - 1, 1), self.mesh_links) / self.mesh_links
            elif self.torus_shape:
                share = torus_ports(self.torus_shape, min(devices, self.scale_up_domain)) / (2 * len(self.torus_shape))
            else:
                share = 1.0
            return self.link_bw_bytes_per_s * share * self.link_efficiency, self.link_latency_s
        return (self.scale_out_bw_bytes_per_s * self.scale_out_link_efficiency,
                self.scale_out_latency_s or self.link_latency_s)

    def cross_domain_latency_s(self, devices: int) -> float:
        """The scale-out link's latency where a group of `devices` spans scale-up domains and the profile gives that
        link (what its collectives' latency is at least: engine.py's _latency), else 0."""
        if devices <= self.scale_up_domain or self.scale_out_bw_bytes_per_s is None:
            return 0.0
        return self.link_for(devices)[1]

    def one_domain_note(self, devices: int) -> str:
        """'epyc-9654: 8 devices exceed its scale-up domain of 2 ...' where a group of `devices` is larger than one
        domain of more than one device and the profile gives no scale-out link, so link_for prices its collectives as
        one domain's ('' else; qa119: tp 8 on a two-socket CPU was priced on its socket link in silence). A domain of
        one device is not said: its link is the one between devices, a PCIe card's or a Mac's (their notes say so)."""
        if devices <= self.scale_up_domain or self.scale_out_bw_bytes_per_s is not None or self.scale_up_domain == 1:
            return ""  # a domain of one device: its link is the one between devices (PCIe cards, Macs over Thunderbolt, qa123)
        return (f"{self.name}: {devices} devices exceed its scale-up domain of {self.scale_up_domain}, and its profile gives "
                "no scale-out link: every collective is priced on the scale-up link as if one domain held them all (give "
                "scale_out_bandwidth and scale_out_latency to price the network between domains)")

    def spread_transfer_s(self, devices: int, nbytes):
        """(seconds, latency s) to send `nbytes` from one device spread evenly over its devices - 1 peers (an
        all-to-all's share): inside one domain nbytes / link_for(devices); across domains the share for the peers in
        its own domain, (S - 1) / (devices - 1), goes over the scale-up link while the rest goes over the scale-out
        link, at once, S the devices of the smallest domain the group fills (devices mod scale_up_domain where that
        is not 0: its devices reach the most peers over the scale-out link):
            seconds = max(in / (link_bw * link_efficiency), out / (scale_out_bw * scale_out_link_efficiency))"""
        inside = ((devices % self.scale_up_domain or self.scale_up_domain) - 1) / max(devices - 1, 1)
        return self.two_link_transfer_s(devices, nbytes * inside, nbytes * (1.0 - inside))

    def two_link_transfer_s(self, devices: int, inside_bytes, outside_bytes):
        """(seconds, latency s) of a collective moving `inside_bytes` over a device's scale-up link and `outside_bytes`
        over its scale-out link at once: max(inside / scale-up bytes/s, outside / scale-out bytes/s); inside one
        domain (or without a scale-out link) everything on link_for(devices)."""
        if devices <= self.scale_up_domain or self.scale_out_bw_bytes_per_s is None:
            bytes_per_s, latency_s = self.link_for(devices)
            return (inside_bytes + outside_bytes) / bytes_per_s, latency_s
        up_bytes_per_s, _ = self.link_for(self.scale_up_domain)
        out_bytes_per_s, latency_s = self.link_for(devices)
        return np.maximum(inside_bytes / up_bytes_per_s, outside_bytes / out_bytes_per_s), latency_s

    def link_outside_domain(self) -> tuple[float, float]:
        """(bytes/s, latency s) of this device's link to a device outside its scale-up domain (link_for a group
        one larger than the domain): the scale-out link; without one, the profile's only link (PCIe on a device without
        a scale-up fabric, the scale-up link where the profile names no other). A drafter's device of another kind
        than the target's is reached over the slower of the two devices' links out (speculation)."""
        return self.link_for(self.scale_up_domain + 1)

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

    @property
    def engine_mem_bytes(self) -> float:
        """The memory a serving engine takes its share of (capacity.usable_bytes_for): the device's, except on a
        system-on-chip (kind soc), whose GPU may wire only the operating system's share of the unified memory, its
        usable_memory_fraction (macOS: Metal's recommendedMaxWorkingSetSize, about 75% on large configurations), which
        is all a GPU serving engine sees as its device (qa253: vLLM's 0.9 was taken of an M4 Max's whole 128 GiB).

            engine_mem_bytes = mem_bytes * usable_memory_fraction  (soc),  mem_bytes  (else)"""
        return self.usable_mem_bytes if self.kind == "soc" else self.mem_bytes

    def to_json(self) -> dict:
        """The `roofline hw show --json` object (SI units)."""
        return {
            "name": self.name,
            "display_name": self.display_name,
            "kind": self.kind,
            "family": self.engine_family,
            "fp4_formats": list(self.fp4_formats) if "fp4" in self.peak_flops_per_s else None,  # none without an fp4 peak
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
            "mesh_links": self.mesh_links,
            "torus_shape": list(self.torus_shape),
            "scale_out_bw_bytes_per_s": self.scale_out_bw_bytes_per_s,
            "scale_out_latency_s": self.scale_out_latency_s,
            "scale_out_efficiency": self.scale_out_link_efficiency if self.scale_out_bw_bytes_per_s is not None else None,
            "usable_memory_fraction": self.usable_memory_fraction,
            "price_usd_per_hour": self.price_usd_per_hour,
            "overlap_exponent": self.overlap_exponent,
            "layer_overhead_s": self.layer_overhead_s,
            "attention_compute_flops_per_s": self.attention_compute_flops_per_s,
            "attention_memory_bytes_per_s": self.attention_memory_bytes_per_s,
            "attention_stream_bytes_per_s": self.attention_stream_bytes_per_s,
            "elementwise_memory_bytes_per_s": self.elementwise_memory_bytes_per_s,
            "ridge_point_flops_per_byte": {d: flops / self.mem_bw_bytes_per_s for d, flops in self.peak_flops_per_s.items()},
            # what predictions use, as `hw show` prints it beside the peak ridge (qa389: in the text only)
            "derated_ridge_point_flops_per_byte": {d: self.ridge_point_flops_per_byte(d, derated=True)
                                                   for d in self.peak_flops_per_s},
            "measured": self.measured,
            "source": self.source,
            "notes": self.notes,
        }


_REQUIRED = (
    "name", "display_name", "kind", "memory", "memory_bandwidth", "peak_flops", "on_chip_cache",
    "link_bandwidth", "link_latency", "efficiency", "step_overhead", "source", "notes",
)
_OPTIONAL = ("type", "usable_memory_fraction", "price", "measured", "overlap_exponent", "layer_overhead", "operator_ceilings",
             "scale_up_domain", "mesh_links", "torus", "scale_out_bandwidth", "scale_out_latency", "family", "fp4_formats")
# the order of a profile's top-level fields as the shipped files write them: `hw set` puts a field it adds in its place
FIELD_ORDER = (
    "type", "name", "display_name", "kind", "family", "memory", "usable_memory_fraction", "memory_bandwidth", "peak_flops",
    "fp4_formats", "on_chip_cache", "link_bandwidth", "link_latency", "scale_up_domain", "mesh_links", "torus", "scale_out_bandwidth", "scale_out_latency",
    "efficiency", "overlap_exponent", "step_overhead", "layer_overhead", "operator_ceilings", "price", "measured",
    "source", "notes",
)
NESTED_FIELD_ORDER = {  # the key order inside a mapping field, as the shipped profiles write it
    "peak_flops": ("fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4"),
    "efficiency": ("memory", "compute", "compute_fp8", "compute_fp4", "compute_int8", "link", "scale_out"),
}
_DTYPE_EFFICIENCIES = {"compute_fp8": "fp8", "compute_fp4": "fp4", "compute_int8": "int8"}


def peak_unit(dtype: str) -> str:
    """The unit of a peak rate in `dtype`, as the profiles write it: 'OP/s' for integer dtypes, 'FLOP/s' otherwise."""
    return "OP/s" if dtype.startswith("int") else "FLOP/s"


def peak_dtypes_in_order(*specs) -> list[str]:
    """The dtypes with a peak in any of `specs`, in the shipped profiles' order (NESTED_FIELD_ORDER), others after."""
    names = {d for spec in specs for d in spec.peak_flops_per_s}
    order = NESTED_FIELD_ORDER["peak_flops"]
    return sorted(names, key=lambda d: (order.index(d) if d in order else len(order), d))
SUSPICIOUS_MEM_BW_BYTES_PER_S = 20e12  # above this per device a profile gets a warning (B300 is 8 TB/s)
# above these a device's figures load with a warning (a unit slip: `memory=192 TB`, `1.2 EFLOP/s`; qa311): the shipped
# profiles reach 825 GB (a CPU socket's), 900 GB/s a link one way, 15 PFLOP/s, 6 USD/h, ridge points of 9.4-1,875 FLOP/B
SUSPICIOUS_MEM_BYTES = 8e12  # (said as "8 TB" below, as the next)
SUSPICIOUS_LINK_BW_BYTES_PER_S = 5e12
SUSPICIOUS_PEAK_FLOPS_PER_S = 200e15
SUSPICIOUS_PRICE_USD_PER_HOUR = 500.0
SUSPICIOUS_LATENCY_S = 1e-3  # a link's latency above this (the shipped: 3-50 us; NCCL's inter-node all-reduce tens of us)
SUSPICIOUS_LOW_MEM_BYTES = 1e8  # a device's memory below this (the shipped: 17-288 GB; an SRAM-only chip: 230 MB): `memory=80 MB` for 80 GB
SUSPICIOUS_LOW_PRICE_USD_PER_HOUR = 0.01  # a device's rent below this (the shipped: 0.75-6 USD/h)
SUSPICIOUS_RIDGE_FLOP_PER_BYTE = (0.5, 10_000.0)  # a dtype's peak over the memory bandwidth outside this: one is slipped
_OPERATOR_CEILINGS = {"attention_compute": "flops_per_s", "attention_memory": "bytes_per_s", "attention_stream": "bytes_per_s",
                      "elementwise_memory": "bytes_per_s"}


def spec_where(kind: str, name: object) -> str:
    """Where a spec object built in Python is wrong, for messages: `hardware spec 'h100-sxm'`."""
    shown = name if isinstance(name, str) else repr(name)
    return f"{kind} spec {shown[:80]!r}"


def check_file_name(path: Path, asked: str, name: object, kind: str = "hardware") -> None:
    """A profile found by name (not given as a path) must carry its file's name: `name:` equals the file stem. One
    given as a path loads under its own `name:`, warned where that is not the file's (qa242: rows said my-h100 of a
    file my-h100-80GB.yaml, and --where hardware=my-h100-80GB found none)."""
    if not is_profile_path(asked) and name != path.stem:
        raise field_error(str(path), "name", f"the file name {path.stem!r}", name)
    if is_profile_path(asked) and isinstance(name, str) and name != path.stem and name not in list_names(kind):
        # (a built-in's name: profiles.shadow_note says that, and more)
        warn(f"{path}: name {name!r} is not the file's name {path.stem!r}: its results, --where and figures say {name} "
             "(`validate` refuses such a file; name it as the file)")


def _is_number(value: object) -> bool:
    """A finite int or float (a bool is not a number here)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and is_finite(value)


def _fraction(where: str, key: str, value: object) -> float:
    """An achievable fraction in [0.01, 1] (efficiencies, usable_memory_fraction; as engine profiles bound theirs): a
    1e-300 memory efficiency priced a step at 4.5e297 s."""
    if not (_is_number(value) and FRACTION_MIN <= value <= 1):
        raise field_error(where, key, f"a fraction in [{FRACTION_MIN}, 1]", value)
    return float(value)


FRACTION_MIN = 0.01


def _positive(where: str, key: str, value: object, unit: str, zero_ok: bool = False) -> float:
    """A spec's quantity in SI `unit`: finite and positive (or 0 where 0 means absent). A profile's quantities are
    strings with units, checked by units.parse_quantity."""
    if not (_is_number(value) and (value > 0 or (zero_ok and value == 0))):
        raise field_error(where, key, f"a {'non-negative' if zero_ok else 'positive'} finite number ({unit})", value)
    kind = _UNIT_KINDS.get(unit)
    if kind is not None and value > 0 and not PHYSICAL_RANGE[kind][0] <= value <= PHYSICAL_RANGE[kind][1]:
        low, high = PHYSICAL_RANGE[kind]  # the range a profile's quantity is held to (units.parse_quantity)
        raise field_error(where, key, f"a number between {low:g} and {high:g} ({unit})", value)
    return float(value)


_UNIT_KINDS = {"bytes": "bytes", "bytes/s": "bytes_per_s", "FLOP/s": "flops_per_s", "s": "seconds", "USD/h": "usd_per_hour"}


def _quantity(where: str, key: str, value: object, kind: str) -> float:
    try:
        return parse_quantity(value, kind)
    except ValueError as exc:
        raise field_error(where, key, str(exc), value) from None


def _seconds_or_zero(where: str, key: str, value: object) -> float:
    """A fixed cost that a device may not have: '20 us', or 0 in any unit."""
    try:
        return parse_seconds_or_zero(value)
    except ValueError as exc:
        raise field_error(where, key, str(exc), value) from None


def _text(where: str, key: str, value: object, empty_ok: bool = False) -> str:
    """A string; non-empty unless `empty_ok` (a spec's source and notes default to "")."""
    if not isinstance(value, str) or not (empty_ok or value.strip()):
        raise field_error(where, key, "a string" if empty_ok else "a non-empty string", value)
    return value


def _kind(where: str, key: str, value: object) -> str:
    if not isinstance(value, str) or value not in KINDS:
        raise field_error(where, key, "one of " + "|".join(KINDS), value)
    return value



def _whole(value: object) -> object:
    """A count a profile writes 8.0 as the 8 it is (JSON Schema's integer takes 8.0 too); anything else as it is. A spec
    built in Python keeps its types: there 8.0 is refused."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _domain(where: str, key: str, value: object) -> int:
    """Devices in one scale-up domain."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= value <= 100_000:
        raise field_error(where, key, "a device count in 1..100000", value)
    return int(value)


def _mesh_links(where: str, key: str, value: object, domain: int) -> int:
    """Point-to-point links per device of a fully connected mesh (0: a switch); a mesh of D devices has D - 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise field_error(where, key, "a link count >= 0 (0: a switched fabric)", value)
    if value and value != domain - 1:
        raise field_error(where, key, f"scale_up_domain - 1 = {domain - 1} links (a fully connected mesh; link_bandwidth is "
                          "then their sum: the per-link rate x links), or 0", value)
    return int(value)


def torus_slice(torus_shape: tuple[int, ...], devices: int) -> tuple[int, ...] | None:
    """The slice of a torus a group of `devices` is given, one size an axis (in the torus's axis order): of every
    rectangle of exactly `devices` chips that fits, the squarest (its longest side shortest: the slices a TPU v5e or
    v6e pod is cut into, 2 x 2, 2 x 4, 4 x 4, 4 x 8, 8 x 8, 8 x 16, 16 x 16), then the one whose collectives drive the
    most ports (_ports_of: an axis spanned whole wraps around); None where no rectangle holds exactly `devices`
    (qa257: a greedy search missed 4 x 6 whole, and its answer hung on the axes' order)."""
    options = [shape for shape in itertools.product(*(_divisors(devices, axis) for axis in torus_shape))
               if math.prod(shape) == devices]
    if not options:
        return None
    return max(options, key=lambda shape: (-max(shape), _ports_of(torus_shape, shape), shape))


def _divisors(n: int, most: int) -> list[int]:
    """The divisors of n up to `most`."""
    return [d for d in range(1, min(n, most) + 1) if n % d == 0]


def _ports_of(torus_shape: tuple[int, ...], sizes: tuple[int, ...]) -> int:
    """Ports a chip of a slice of `sizes` drives: two on an axis the slice spans whole (more than 2 chips: a ring with
    its wrap-around link), one on another axis it spans."""
    return sum(2 if size == axis and size > 2 else 1 for size, axis in zip(sizes, torus_shape) if size > 1)


def torus_ports(torus_shape: tuple[int, ...], devices: int) -> int:
    """ICI ports a chip of a group of `devices` drives in a collective on a torus: on each axis its slice spans, two (a
    ring in both directions) where the slice spans the whole axis and so has its wrap-around link, one where it does
    not (a line of chips, or a pair joined by one link: "no wraparounds ... typically doubles the time of most
    communication", jax-ml/scaling-book tpus.md; a TPU v5e 4 x 4 slice uses "2 of the 4 ICI links"). A group no
    rectangle holds (a prime count past an axis) is given one port an axis. A lone device: one port (its hand-off to a
    neighbour)."""
    if devices <= 1:
        return 1
    sizes = torus_slice(torus_shape, devices)
    return len(torus_shape) if sizes is None else _ports_of(torus_shape, sizes)


def _torus_shape(where: str, key: str, value: object, domain: int, mesh_links: int) -> tuple[int, ...]:
    """A torus's axes, [16, 16] or '16x16' (Google's topology notation); () where absent."""
    if value is None or value == ():  # absent (null), or a spec's () for none; [] is refused: a torus has axes
        return ()
    axes = [value] if isinstance(_whole(value), numbers.Integral) and not isinstance(value, bool) else value  # `torus: 8`
    if isinstance(value, str):  # ASCII digits only (qa257: '²' passed isdigit and int() raised)
        axes = [int(part) if part.isascii() and part.isdigit() else part for part in "".join(value.lower().split()).split("x")]
    if (not isinstance(axes, (list, tuple)) or not 1 <= len(axes) <= 3
            or any(isinstance(v, bool) or not isinstance(_whole(v), numbers.Integral) or not 2 <= _whole(v) <= 100_000
                   for v in axes)):  # a domain holds at most 100,000 devices (qa262: 1e300 said as 301 digits twice)
        raise field_error(where, key, "a torus's 1-3 axes of 2 to 100,000 chips, like [16, 16] or '16x16'", value)
    shape = tuple(int(_whole(v)) for v in axes)
    chips = math.prod(shape)
    if chips != domain:
        raise field_error(where, key, f"axes whose product is scale_up_domain = {domain} (the torus is the scale-up "
                          f"domain), {'x'.join(map(str, shape))} = {chips} chips", value)
    if mesh_links:
        raise field_error(where, key, "it only without mesh_links (a device's links form a mesh or a torus, not both)", value)
    return shape


def _overlap_exponent(where: str, key: str, value: object) -> float | None:
    """p of the p-norm overlap of compute and memory time; None: the pure max."""
    if value is None:
        return None
    if not (_is_number(value) and value >= 1):
        raise field_error(where, key, "a number >= 1 (or absent for the pure max)", value)
    return float(value)


def _peak_mapping(where: str, key: str, value: object) -> dict:
    if not isinstance(value, dict) or not value:
        raise field_error(where, key, "a mapping of dtype to FLOP/s (at least one dtype)", value)
    return value


def _check_peaks(where: str, key: str, peaks: dict[str, float], shown: dict) -> None:
    """Peaks keyed by canonical dtype: a bf16 or fp32 one, and bf16 not above fp8 (`shown`: the values as given)."""
    if "bf16" not in peaks and "fp32" not in peaks:
        raise field_error(where, key, "at least a bf16 or fp32 peak", sorted(peaks))
    if "fp8" in peaks and peaks.get("bf16", 0.0) > peaks["fp8"]:
        raise field_error(where, f"{key}.bf16", f"at most the fp8 figure ({shown['fp8']}; fp8 tensor cores are never slower)",
                          shown["bf16"])
    for narrow in ("fp4",):  # 4-bit units are never slower than the 8-bit or 16-bit ones beside them
        wider = max((w for w in ("fp8", "bf16") if w in peaks), key=lambda w: peaks[w], default=None)
        if narrow in peaks and wider is not None and peaks[narrow] < peaks[wider]:
            raise field_error(where, f"{key}.{narrow}", f"at least the {wider} figure ({shown[wider]}; 4-bit tensor cores are "
                              "never slower)", shown[narrow])


def _check_scale_out_pair(where: str, bw_key: str, has_bw: bool, latency_key: str, has_latency: bool) -> None:
    if has_bw != has_latency:
        raise field_error(where, latency_key if has_bw else bw_key, f"{bw_key} and {latency_key} together", "only one of them")


def _peaks_from_profile(where: str, flops: object) -> dict[str, float]:
    """`peak_flops:` ({dtype: "989.4 TFLOP/s"}, any dtype spelling) -> {canonical dtype: FLOP/s}."""
    peak_flops_per_s, shown = {}, {}
    for raw_dtype, value in _peak_mapping(where, "peak_flops", flops).items():
        dtype = normalize_dtype(raw_dtype, DTYPES, where, f"peak_flops.{str(raw_dtype)[:40]}")
        if dtype in peak_flops_per_s:
            raise field_error(where, f"peak_flops.{raw_dtype}", f"one figure per dtype ({dtype} is given twice)", raw_dtype)
        peak_flops_per_s[dtype] = _quantity(where, f"peak_flops.{raw_dtype}", value, "flops_per_s")
        shown[dtype] = value
        _check_ops_unit(where, raw_dtype, dtype, value)
    _check_peaks(where, "peak_flops", peak_flops_per_s, shown)
    return peak_flops_per_s


_INTEGER_OPS = re.compile(r"(?<![Ff][Ll])OP[Ss/]?")  # TOPS, TOP/s, OP/s: integer operations, not FLOPS or TFLOP/s


def _check_ops_unit(where: str, raw_dtype: object, dtype: str, value: object) -> None:
    """Warn where a peak's unit is of the other kind of number than its dtype (qa389: 'fp8: 3958 TOPS', a datasheet's
    int8 row copied, and 'int8: 1979 TFLOPS' loaded in silence): both parse alike, so the figure may be another dtype's."""
    if not isinstance(value, str):
        return
    integer_unit = _INTEGER_OPS.search(value) is not None
    if integer_unit == (dtype == "int8"):
        return
    unit, kind, other = (("integer operations", "a floating-point dtype", "int8's") if integer_unit else
                         ("floating-point operations", "an integer dtype", "a floating-point dtype's"))
    warn(f"{where}: peak_flops.{raw_dtype}: {value!r} counts {unit} for {kind}, taken as {dtype}'s peak: check it is not "
         f"{other} figure (datasheets give int8 in TOPS, the floating-point dtypes in TFLOPS)")


def _also_missing(missing: list[str]) -> str:
    """' (missing too: step_overhead, source)': the other required fields a profile lacks, said with the first so that
    one run of `hw validate` names them all (qa455: a hand-written profile took five runs, one field each)."""
    return f" (missing too: {', '.join(missing[1:])})" if len(missing) > 1 else ""


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
        raise field_error(where, missing[0], "a required field" + _also_missing(missing), MISSING)
    for key in ("name", "display_name", "source", "notes"):
        _text(where, key, data[key])
    _kind(where, "kind", data["kind"])
    # the engine family, lowercase as profile names are matched; the device's own name where none is given, so that a
    # spec renamed in Python (dataclasses.replace(spec, name=...)) keeps its engine values
    family = (_text(where, "family", data["family"]).strip() if data.get("family") is not None else str(data["name"])).lower()
    if data.get("family") is not None:  # a documented alias (h100) as the profile it stands for (qa388: said to name none)
        family = alias_of("hardware", family) or family
    peak_flops_per_s = _peaks_from_profile(where, data["peak_flops"])
    fp4_formats = _fp4_formats(where, "fp4_formats", data.get("fp4_formats"), "fp4" in peak_flops_per_s)
    eff = data["efficiency"]
    if not isinstance(eff, dict):
        raise field_error(where, "efficiency", "a mapping with memory, compute, link", eff)
    absent = [f"efficiency.{key}" for key in ("memory", "compute", "link") if key not in eff]
    if absent:
        raise field_error(where, absent[0], "a required fraction" + _also_missing(absent), MISSING)
    for key in eff:
        if key not in ("memory", "compute", "link", "scale_out", *_DTYPE_EFFICIENCIES):
            raise field_error(where, f"efficiency.{key}", "memory, compute, link, scale_out or " + ", ".join(_DTYPE_EFFICIENCIES), key)
    if "scale_out" in eff and "scale_out_bandwidth" not in data:
        raise field_error(where, "efficiency.scale_out", "it only beside scale_out_bandwidth (the link it derates)", eff["scale_out"])
    by_dtype = {d: _fraction(where, f"efficiency.{k}", eff[k]) for k, d in _DTYPE_EFFICIENCIES.items() if k in eff}
    domain = _domain(where, "scale_up_domain", _whole(data.get("scale_up_domain", 1)))
    mesh_links = _mesh_links(where, "mesh_links", _whole(data.get("mesh_links", 0)), domain)
    torus_shape = _torus_shape(where, "torus", data.get("torus"), domain, mesh_links)
    _check_scale_out_pair(where, "scale_out_bandwidth", "scale_out_bandwidth" in data, "scale_out_latency", "scale_out_latency" in data)
    price = data.get("price")
    overlap = _overlap_exponent(where, "overlap_exponent", data.get("overlap_exponent"))
    measured = check_flag(where, "measured", data.get("measured", False))
    ceilings = data.get("operator_ceilings") or {}
    if not isinstance(ceilings, dict):
        raise field_error(where, "operator_ceilings", "a mapping of " + ", ".join(_OPERATOR_CEILINGS), ceilings)
    for key in ceilings:
        if key not in _OPERATOR_CEILINGS:
            raise field_error(where, f"operator_ceilings.{key}", "one of " + ", ".join(_OPERATOR_CEILINGS), key)
    operator_ceilings = {k: _quantity(where, f"operator_ceilings.{k}", v, _OPERATOR_CEILINGS[k]) for k, v in ceilings.items()}
    layer_overhead = data.get("layer_overhead")
    mem_bw_bytes_per_s = _quantity(where, "memory_bandwidth", data["memory_bandwidth"], "bytes_per_s")
    spec = HardwareSpec(
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
        step_overhead_s=_seconds_or_zero(where, "step_overhead", data["step_overhead"]),
        usable_memory_fraction=_fraction(where, "usable_memory_fraction", data.get("usable_memory_fraction", 0.9)),
        compute_efficiency_by_dtype=by_dtype,
        scale_up_domain=domain,
        mesh_links=mesh_links,
        torus_shape=torus_shape,
        scale_out_bw_bytes_per_s=_quantity(where, "scale_out_bandwidth", data["scale_out_bandwidth"], "bytes_per_s") if "scale_out_bandwidth" in data else None,
        scale_out_latency_s=_quantity(where, "scale_out_latency", data["scale_out_latency"], "seconds") if "scale_out_latency" in data else None,
        scale_out_efficiency=_fraction(where, "efficiency.scale_out", eff["scale_out"]) if "scale_out" in eff else None,
        price_usd_per_hour=None if price is None else _quantity(where, "price", price, "usd_per_hour"),
        overlap_exponent=overlap,
        layer_overhead_s=0.0 if layer_overhead is None else _seconds_or_zero(where, "layer_overhead", layer_overhead),
        attention_compute_flops_per_s=operator_ceilings.get("attention_compute"),
        attention_memory_bytes_per_s=operator_ceilings.get("attention_memory"),
        attention_stream_bytes_per_s=operator_ceilings.get("attention_stream"),
        elementwise_memory_bytes_per_s=operator_ceilings.get("elementwise_memory"),
        measured=measured,
        source=data["source"].strip(),
        notes=data["notes"].strip(),
        path=where,
        extra=extra,
        family=family,
        fp4_formats=fp4_formats,
    )
    _warn_overhead_slip(spec, where)
    _warn_unit_slips(spec, data, where)
    _warn_ceilings_above_peaks(spec, where)
    return spec


def _warn_unit_slips(spec: HardwareSpec, data: dict, where: str) -> None:
    """Figures beyond every device's (the SUSPICIOUS_* bounds) load, with a warning naming the field as written: a
    1000x unit slip (`memory=192 TB`, `link_bandwidth=900 TB/s`, `peak_flops.bf16=1.2 EFLOP/s`, `price=3100 USD/h`)
    was taken in silence, where only a memory bandwidth above 20 TB/s was said (qa311). A dtype's ridge point (its peak
    over the memory bandwidth) outside SUSPICIOUS_RIDGE_FLOP_PER_BYTE says a slip in either."""
    peaks = [d for d, v in spec.peak_flops_per_s.items() if v > SUSPICIOUS_PEAK_FLOPS_PER_S]
    said = [(name, _as_written(data, name), limit) for name, value, bound, limit in (
        ("memory_bandwidth", spec.mem_bw_bytes_per_s, SUSPICIOUS_MEM_BW_BYTES_PER_S, format_si(SUSPICIOUS_MEM_BW_BYTES_PER_S, "B/s")),
        ("memory", spec.mem_bytes, SUSPICIOUS_MEM_BYTES, format_si(SUSPICIOUS_MEM_BYTES, "B")),
        ("link_bandwidth", spec.link_bw_bytes_per_s, SUSPICIOUS_LINK_BW_BYTES_PER_S,
         format_si(SUSPICIOUS_LINK_BW_BYTES_PER_S, "B/s") + " one way"),
        ("price", spec.price_usd_per_hour, SUSPICIOUS_PRICE_USD_PER_HOUR, f"{SUSPICIOUS_PRICE_USD_PER_HOUR:g} USD/h"))
        if value is not None and value > bound]
    if peaks:  # one line for the dtypes (qa311's 1.2 EFLOP/s bf16, fp16 and fp8: three); OP/s for integer dtypes
        said.append(("peak_flops." + ", ".join(peaks), ", ".join(_as_written(data, f"peak_flops.{d}") for d in peaks),
                     format_si(SUSPICIOUS_PEAK_FLOPS_PER_S, "FLOP/s") + " (POP/s) dense"))
    for name, written, limit in said:
        warn(f"{where}: {name}: {written} {'are' if ', ' in written else 'is'} above {limit} for one device; check the "
             "unit and that it is per device")
    _warn_low_and_crossed(spec, data, where)
    slipped = {f"peak_flops.{d}" for d in peaks}
    low, high = SUSPICIOUS_RIDGE_FLOP_PER_BYTE
    if spec.mem_bw_bytes_per_s > SUSPICIOUS_MEM_BW_BYTES_PER_S:  # said already (qa312: twice for one slip)
        return
    ridges = {d: f / spec.mem_bw_bytes_per_s for d, f in spec.peak_flops_per_s.items() if f"peak_flops.{d}" not in slipped}
    out = {d: r for d, r in ridges.items() if not low <= r <= high}
    if out:  # one line for every dtype (qa311's 6 GB/s for 6 TB/s: six)
        def shown(r: float) -> str:  # the digits that tell a ridge just past a bound from it (qa312: '10,000, outside')
            return f"{r:,.10g}" if format_significant(r) in (format_significant(low), format_significant(high)) else \
                format_significant(r)
        span = "{} FLOP/byte".format("-".join(dict.fromkeys(shown(r) for r in (min(out.values()), max(out.values())))))
        warn(f"{where}: peak_flops.{', '.join(out)} over memory_bandwidth ({_as_written(data, 'memory_bandwidth')}): "
             f"ridge point{'s' if len(out) > 1 else ''} of {span}, outside {low:g}-{high:,.0f} (the shipped devices "
             "span 9.4-1,875): check the units")


def _warn_low_and_crossed(spec: HardwareSpec, data: dict, where: str) -> None:
    """The slips _warn_unit_slips's bounds above do not catch (qa406): a link latency above SUSPICIOUS_LATENCY_S
    (`link_latency=3 ms` for 3 us priced every collective 1000x, its step 252 ms at tp 2), a memory or a price 1000x
    too small (`memory=80 MB`), an on-chip cache larger than the memory, and on an accelerator an fp32 peak above its
    bf16 one (its matrix units' dtype: only a CPU's vector units or an SoC's GPU without bf16 may run fp32 as fast)."""
    for name, value in (("link_latency", spec.link_latency_s), ("scale_out_latency", spec.scale_out_latency_s)):
        if value is not None and value > SUSPICIOUS_LATENCY_S:
            warn(f"{where}: {name}: {_as_written(data, name)} is above {format_seconds(SUSPICIOUS_LATENCY_S)}, where a "
                 "collective's latency is a few to a few tens of microseconds: a unit slip?")
    for name, value, bound, limit in (("memory", spec.mem_bytes, SUSPICIOUS_LOW_MEM_BYTES, format_si(SUSPICIOUS_LOW_MEM_BYTES, "B")),
                                      ("price", spec.price_usd_per_hour, SUSPICIOUS_LOW_PRICE_USD_PER_HOUR,
                                       f"{SUSPICIOUS_LOW_PRICE_USD_PER_HOUR:g} USD/h")):
        if value is not None and value < bound:
            warn(f"{where}: {name}: {_as_written(data, name)} is below {limit} for one device; check the unit")
    if spec.on_chip_cache_bytes > spec.mem_bytes:
        warn(f"{where}: on_chip_cache: {_as_written(data, 'on_chip_cache')} is larger than the memory "
             f"({_as_written(data, 'memory')}): check the units")
    fp32, bf16 = spec.peak_flops_per_s.get("fp32"), spec.peak_flops_per_s.get("bf16")
    if spec.kind not in ("cpu", "soc") and fp32 and bf16 and fp32 > bf16:  # (a CPU's or an Apple GPU's may: qa412)
        warn(f"{where}: peak_flops.fp32: {_as_written(data, 'peak_flops.fp32')} is above peak_flops.bf16 "
             f"({_as_written(data, 'peak_flops.bf16')}): an accelerator runs bf16 on its matrix units, faster than fp32; "
             "a slip, or a sparse figure (peaks are dense)?")


def _as_written(data: dict, field: str) -> str:
    """A profile field's value as its file gives it ('peak_flops.bf16' reads data['peak_flops']['bf16'])."""
    value: object = data
    for part in field.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return str(value)


OVERHEAD_WARN_S = {"step_overhead": 10e-3, "layer_overhead": 5e-3}  # fixed device costs above these are said: a unit slip?
#   (the shipped GPU profiles: 20-50 us a step, none a layer; a calibrated CPU's eager PyTorch: 254 us and 344 us)


def _warn_ceilings_above_peaks(spec: HardwareSpec, where: str) -> None:
    """An operator ceiling (already derated: what the operator reaches) above the device's own peak, memory_bandwidth
    or its largest FLOP/s peak, loads with a warning: a memory ceiling past the bandwidth reads from a cache, not memory,
    and MBU then passes 100% (qa389: 40 TB/s on a 16 TB/s device printed MBU 226%). Not of a measured profile: a
    calibration's small working sets can run from cache."""
    if spec.measured:
        return
    peak_flops = max(spec.peak_flops_per_s.values(), default=0.0)
    for key, value, peak, unit in (
            ("attention_compute", spec.attention_compute_flops_per_s, peak_flops, "FLOP/s"),
            ("attention_memory", spec.attention_memory_bytes_per_s, spec.mem_bw_bytes_per_s, "B/s"),
            ("attention_stream", spec.attention_stream_bytes_per_s, spec.mem_bw_bytes_per_s, "B/s"),
            ("elementwise_memory", spec.elementwise_memory_bytes_per_s, spec.mem_bw_bytes_per_s, "B/s")):
        if value and peak and value > peak:
            of = "memory_bandwidth" if unit == "B/s" else "largest peak_flops"
            warn(f"{where}: operator_ceilings.{key}: {format_si(value, unit)} is above the device's {of}, "
                 f"{format_si(peak, unit)}: a ceiling is what the operator reaches, at most the peak (past it, "
                 + ("MBU passes 100%): a unit slip, or a figure of a cache rather than of memory?" if unit == "B/s" else
                    "MFU passes 100%): a unit slip, or a sparse figure (peaks are dense)?"))


def _warn_overhead_slip(spec: HardwareSpec, where: str) -> None:
    """A step or layer overhead above OVERHEAD_WARN_S loads, with a warning (qa98: `step_overhead=20 s` for 20 us made
    predict call a step of 20 s memory-bound); of a measured profile, as a loaded machine's."""
    from roofline.units import format_seconds

    for key, value in (("step_overhead", spec.step_overhead_s), ("layer_overhead", spec.layer_overhead_s)):
        if value > OVERHEAD_WARN_S[key]:
            cause = ("measured so: other work likely shared the machine while it was calibrated (calibrate again on a quiet "
                     "one)" if spec.measured else "a unit slip?")  # qa113: a loaded calibration read as a typing slip
            warn(f"{where}: {key}: {format_seconds(value)} is over {format_seconds(OVERHEAD_WARN_S[key])}, where GPUs measure "
                 f"tens of microseconds and a CPU's eager PyTorch hundreds: {cause}")


def _fp4_formats(where: str, field: str, value, has_fp4_peak: bool) -> tuple[str, ...]:
    """The 4-bit formats a device's fp4 peak takes: FP4_FORMATS where not given; else a non-empty list of them (any case),
    only beside an fp4 peak."""
    if value is None:
        return FP4_FORMATS
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(v, str) for v in value):
        raise field_error(where, field, "a list of " + ", ".join(FP4_FORMATS), value)
    formats = tuple(dict.fromkeys(v.strip().lower() for v in value))
    for v in formats:
        if v not in FP4_FORMATS:
            raise field_error(where, field, "a list of " + ", ".join(FP4_FORMATS), v)
    if not has_fp4_peak:
        raise field_error(where, field, "an fp4 peak in peak_flops for it to describe", "none")
    return formats


# A spec's quantities (SI units): required ones, then those that may be None (absent from the profile).
_SPEC_QUANTITIES = {"mem_bytes": "bytes", "mem_bw_bytes_per_s": "bytes/s", "on_chip_cache_bytes": "bytes",
                    "link_bw_bytes_per_s": "bytes/s", "link_latency_s": "s"}
_SPEC_OPTIONAL_QUANTITIES = {"scale_out_bw_bytes_per_s": "bytes/s", "scale_out_latency_s": "s", "price_usd_per_hour": "USD/h",
                             "attention_compute_flops_per_s": "FLOP/s", "attention_memory_bytes_per_s": "bytes/s",
                             "attention_stream_bytes_per_s": "bytes/s", "elementwise_memory_bytes_per_s": "bytes/s"}
_SPEC_FRACTIONS = ("mem_efficiency", "compute_efficiency", "link_efficiency", "usable_memory_fraction")


def _check_spec_peaks(where: str, peaks: object) -> None:
    """peak_flops_per_s of a spec: canonical dtype names, positive finite FLOP/s, a bf16 or fp32 peak."""
    for dtype, value in _peak_mapping(where, "peak_flops_per_s", peaks).items():
        if dtype not in DTYPES:
            raise field_error(where, f"peak_flops_per_s.{str(dtype)[:40]}", "a dtype key among " + ", ".join(DTYPES), dtype)
        _positive(where, f"peak_flops_per_s.{dtype}", value, "FLOP/s")
    _check_peaks(where, "peak_flops_per_s", peaks, peaks)


def _check_spec_dtype_efficiencies(where: str, by_dtype: object) -> None:
    """compute_efficiency_by_dtype of a spec: fractions keyed by fp8, fp4 or int8."""
    allowed = tuple(_DTYPE_EFFICIENCIES.values())
    if not isinstance(by_dtype, dict):
        raise field_error(where, "compute_efficiency_by_dtype", "a mapping of " + ", ".join(allowed) + " to a fraction", by_dtype)
    for dtype, value in by_dtype.items():
        if dtype not in allowed:
            raise field_error(where, f"compute_efficiency_by_dtype.{str(dtype)[:40]}", "one of " + ", ".join(allowed), dtype)
        _fraction(where, f"compute_efficiency_by_dtype.{dtype}", value)


def check_hardware_spec(spec: object, extra_dirs: tuple = ()) -> HardwareSpec:
    """`spec` itself if it is a HardwareSpec that hardware_from_dict could have produced, else one RooflineError
    naming the spec and field: `hardware spec 'h100-sxm': mem_bw_bytes_per_s: expected a positive finite number
    (bytes/s), found -1`. For specs built or changed in Python (dataclasses.replace), which no profile check saw; it is
    warned of what its file would be (qa318: a unit slip, an overhead slip, a family that names no profile on the
    search path with `extra_dirs`)."""
    if not isinstance(spec, HardwareSpec):
        raise RooflineError(f"hardware: expected a HardwareSpec or a profile name, found {type(spec).__name__}")
    where = spec_where("hardware", spec.name)
    for key in ("name", "display_name"):
        _text(where, key, getattr(spec, key))
    _text(where, "family", spec.family, empty_ok=True)
    _text(where, "path", spec.path, empty_ok=True)  # the file it was read from, or '' (qa185: path=5 a TypeError)
    _kind(where, "kind", spec.kind)
    for key, unit in _SPEC_QUANTITIES.items():
        _positive(where, key, getattr(spec, key), unit)
    for key, unit in _SPEC_OPTIONAL_QUANTITIES.items():
        if getattr(spec, key) is not None:
            _positive(where, key, getattr(spec, key), unit)
    for key in ("step_overhead_s", "layer_overhead_s"):  # fixed costs a device may not have
        _positive(where, key, getattr(spec, key), "s", zero_ok=True)
    _check_spec_peaks(where, spec.peak_flops_per_s)
    for key in _SPEC_FRACTIONS:
        _fraction(where, key, getattr(spec, key))
    if spec.scale_out_efficiency is not None:
        _fraction(where, "scale_out_efficiency", spec.scale_out_efficiency)
        if spec.scale_out_bw_bytes_per_s is None:
            raise field_error(where, "scale_out_efficiency", "it only beside scale_out_bw_bytes_per_s (the link it derates)",
                              spec.scale_out_efficiency)
    _check_spec_dtype_efficiencies(where, spec.compute_efficiency_by_dtype)
    _domain(where, "scale_up_domain", spec.scale_up_domain)
    _mesh_links(where, "mesh_links", spec.mesh_links, spec.scale_up_domain)
    if not isinstance(spec.torus_shape, tuple):
        raise field_error(where, "torus_shape", "a tuple of a torus's axes, like (16, 16), or ()", spec.torus_shape)
    _torus_shape(where, "torus_shape", spec.torus_shape, spec.scale_up_domain, spec.mesh_links)
    _check_scale_out_pair(where, "scale_out_bw_bytes_per_s", spec.scale_out_bw_bytes_per_s is not None,
                          "scale_out_latency_s", spec.scale_out_latency_s is not None)
    _overlap_exponent(where, "overlap_exponent", spec.overlap_exponent)
    if not isinstance(spec.fp4_formats, tuple) or tuple(spec.fp4_formats) != FP4_FORMATS:  # canonical names on a spec
        if not isinstance(spec.fp4_formats, tuple) or not spec.fp4_formats or any(f not in FP4_FORMATS for f in spec.fp4_formats):
            raise field_error(where, "fp4_formats", "a tuple of " + ", ".join(FP4_FORMATS), spec.fp4_formats)
        _fp4_formats(where, "fp4_formats", list(spec.fp4_formats), "fp4" in spec.peak_flops_per_s)
    check_flag(where, "measured", spec.measured)
    for key in ("source", "notes"):
        _text(where, key, getattr(spec, key), empty_ok=True)
    _warn_unit_slips(spec, _spec_as_written(spec), where)  # what a file of these values is warned of, a spec built in
    _warn_overhead_slip(spec, where)  # code is too (qa318: dataclasses.replace, in silence; qa320: its overheads)
    _warn_ceilings_above_peaks(spec, where)
    warn_of_unknown_family(spec, where, extra_dirs)
    return spec


def _spec_as_written(spec: HardwareSpec) -> dict:
    """A spec's figures as a profile would write them, for _warn_unit_slips' messages."""
    return {"memory": format_si(spec.mem_bytes, "B"), "memory_bandwidth": format_si(spec.mem_bw_bytes_per_s, "B/s"),
            "link_bandwidth": format_si(spec.link_bw_bytes_per_s, "B/s"),
            "price": None if spec.price_usd_per_hour is None else f"{spec.price_usd_per_hour:g} USD/h",
            "on_chip_cache": format_si(spec.on_chip_cache_bytes, "B"), "link_latency": format_seconds(spec.link_latency_s),
            "scale_out_latency": None if spec.scale_out_latency_s is None else format_seconds(spec.scale_out_latency_s),
            "peak_flops": {d: format_si(v, peak_unit(d)) for d, v in spec.peak_flops_per_s.items()}}  # (qa412: 'None is above')


def load_hardware(name: str, extra_dirs: tuple[str | Path, ...] = ()) -> HardwareSpec:
    """Load hardware profile `name` (or a path to a YAML file) from the search path."""
    path = find_profile("hardware", name, extra_dirs)
    spec = hardware_from_dict(read_yaml(path), str(path))
    check_file_name(path, name, spec.name)
    warn_of_unknown_family(spec, path, extra_dirs)
    return spec


def warn_of_unknown_family(spec: HardwareSpec, path, extra_dirs: tuple[str | Path, ...] = ()) -> None:
    """A family is a profile's name: one that names none on the search path is likely a slip (`family: amd` takes no
    engine's AMD values), said where the profile is loaded, written (hw new, hw set) and validated."""
    if spec.engine_family != spec.name.lower() and spec.engine_family not in {n.lower() for n in list_names("hardware", extra_dirs)}:
        warn(f"{path}: family: {spec.family!r} names no hardware profile: engine overrides (mi*, b[0-9]*, ...) glob it "
             "as written; a profile's name (mi300x, b200, h100-sxm) picks that device's engine values")
