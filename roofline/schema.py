"""JSON Schemas of hardware, model and serving-engine profiles, for editors that check YAML as you type.

`roofline hw schema` prints the hardware schema; `docs/hardware.schema.json` is that output, and
every shipped hardware profile names it on its first line
(`# yaml-language-server: $schema=../docs/hardware.schema.json`), which the YAML language server
(VS Code, Neovim, ...) reads. The schema is built from the same tables the loaders use (field names,
dtypes, device kinds, unit spellings), so it cannot drift from them; the loaders stay the authority
(they also check meaning: bf16 not above fp8, kv_heads dividing heads, ...).
"""

from __future__ import annotations

import json
import re

from roofline import hardware, model, units

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

# Hardware fields that hold a quantity, and the quantity (a key of units._UNITS).
HARDWARE_QUANTITIES = {
    "memory": "bytes", "memory_bandwidth": "bytes_per_s", "on_chip_cache": "bytes", "link_bandwidth": "bytes_per_s",
    "link_latency": "seconds", "step_overhead": "seconds", "price": "usd_per_hour", "layer_overhead": "seconds",
    "scale_out_bandwidth": "bytes_per_s", "scale_out_latency": "seconds",
}


def quantity_schema(kind: str) -> dict:
    """A string "NUMBER UNIT" with a unit of `kind`, as a regular expression; the number has a non-zero digit
    (quantities are positive, as units.parse_quantity requires)."""
    alternatives = "|".join(re.escape(u) for u in sorted(units._UNITS[kind], key=len, reverse=True))
    return {
        "type": "string",
        "pattern": rf"^\s*[+]?(?=[\d.]*[1-9])(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*({alternatives})\s*$",
        "description": f"{units.KIND_WORDS[kind]}, like '{units.EXAMPLES[kind]}'",
    }


def time_or_zero_schema() -> dict:
    """A fixed cost that may be zero (units.parse_seconds_or_zero): a time like '20 us', or 0 in any time unit."""
    return {"anyOf": [quantity_schema("seconds"), {"type": "number", "const": 0},
                      {"type": "string", "pattern": units._ZERO_TIME.pattern}],
            "description": f"{units.KIND_WORDS['seconds']} or 0, like '{units.EXAMPLES['seconds']}'"}


def _any_case(word: str) -> str:
    """`word` as a regular expression of any case, '-' or '_' alike (ECMA-262 has no inline (?i): editors read these)."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else "[-_]" if c in "-_" else re.escape(c) for c in word)


def dtype_key_schema() -> dict:
    """A peak's dtype key as profiles.normalize_dtype reads one: any spelling of DTYPE_ALIASES that names a compute
    dtype (nvfp4 as fp4), in any case, '-' or '_' alike, spaces around ignored."""

    return {"type": "string", "pattern": _spellings_pattern(lambda dtype: dtype in hardware.DTYPES or dtype == "nvfp4"),
            "description": "a dtype: " + ", ".join(dict.fromkeys(hardware.DTYPES)) + " (any spelling docs/PROFILES.md lists)"}


def fp4_key_schema() -> dict:
    """A peak key that names fp4 (fp4, FP4, mxfp4, nvfp4, e2m1 ...), as profiles.normalize_dtype reads it."""
    return {"pattern": _spellings_pattern(lambda dtype: dtype in ("fp4", "nvfp4"))}


def _spellings_pattern(names) -> str:
    """A regex matching, in any case and with spaces around, every DTYPE_ALIASES spelling of a dtype `names` takes
    (longest first, so that fp8_e4m3 is not read as fp8 and a rest)."""
    from roofline.profiles import DTYPE_ALIASES

    spellings = sorted((s for s, dtype in DTYPE_ALIASES.items() if names(dtype)), key=lambda s: (-len(s), s))
    return r"^\s*(" + "|".join(map(_any_case, spellings)) + r")\s*$"


def price_schema() -> dict:
    """A price as units.parse_quantity reads one: 'NUMBER UNIT' with USD in any case ('3 usd/h'), or '$3/hr'."""
    number = r"(?=[\d.]*[1-9])(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?"
    usd = "[Uu][Ss][Dd]"
    per_hour = r"/(h|hr|hour)"
    return {
        "type": ["string", "null"],  # null: no price, as leaving the field out
        "pattern": rf"^\s*([+]?{number}\s*({usd}|\$){per_hour}|\$\s*{number}\s*/\s*(h|hr|hour))\s*$",
        "description": f"{units.KIND_WORDS['usd_per_hour']}, like '{units.EXAMPLES['usd_per_hour']}' or '$3/hr'",
    }


def _fraction() -> dict:
    return {"type": "number", "minimum": 0.01, "maximum": 1}


def hardware_schema() -> dict:
    """The JSON Schema of a hardware profile (docs/PROFILES.md)."""
    props: dict = {name: {} for name in (*hardware._REQUIRED, *hardware._OPTIONAL)}
    for name, kind in HARDWARE_QUANTITIES.items():
        if name in props:
            props[name] = (price_schema() if kind == "usd_per_hour" else time_or_zero_schema()
                           if name in ("step_overhead", "layer_overhead") else quantity_schema(kind))
    for name in ("name", "display_name", "source", "notes"):
        props[name] = {"type": "string", "minLength": 1}
    props["name"]["pattern"] = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
    props["family"] = {"type": ["string", "null"], "minLength": 1, "pattern": r"^[A-Za-z0-9][A-Za-z0-9._-]*$",
                       "description": "the profile whose serving-engine overrides apply (default: the device's own name)"}
    props["type"] = {"type": "string", "pattern": r"^\s*" + _any_case("hardware") + r"\s*$"}  # any case, as the loader
    props["fp4_formats"] = {"type": ["array", "null"], "minItems": 1,  # null: the default, as absent
                            "items": {"type": "string", "pattern": r"^\s*(" + "|".join(map(_any_case, hardware.FP4_FORMATS)) + r")\s*$"},
                            "description": "the 4-bit weight formats the fp4 peak takes (default all: "
                                           + ", ".join(hardware.FP4_FORMATS) + ")"}
    props["kind"] = {"enum": list(hardware.KINDS)}
    props["peak_flops"] = {
        "type": "object", "minProperties": 1,
        "propertyNames": dtype_key_schema(),
        "additionalProperties": quantity_schema("flops_per_s"),
        "description": "dense peak per dtype (never with 2:4 sparsity)",
    }
    efficiency_keys = ["memory", "compute", "link", "scale_out", *getattr(hardware, "_DTYPE_EFFICIENCIES", {})]
    props["efficiency"] = {
        "type": "object", "required": ["memory", "compute", "link"],
        "properties": {k: _fraction() for k in efficiency_keys}, "additionalProperties": False,
    }
    props["usable_memory_fraction"] = _fraction()
    props["measured"] = {"type": "boolean"}
    props["overlap_exponent"] = {"type": "number", "minimum": 1}
    if "operator_ceilings" in props:
        props["operator_ceilings"] = {
            "type": ["object", "null"],  # null: none, as absent
            "properties": {k: quantity_schema(v) for k, v in hardware._OPERATOR_CEILINGS.items()},
            "additionalProperties": False,
        }
    if "scale_up_domain" in props:
        props["scale_up_domain"] = {"type": "integer", "minimum": 1, "maximum": 100000}
    if "mesh_links" in props:
        props["mesh_links"] = {"type": "integer", "minimum": 0}
    if "torus" in props:
        props["torus"] = {
            "oneOf": [{"type": "array", "minItems": 1, "maxItems": 3, "items": {"type": "integer", "minimum": 2, "maximum": 100000}},
                      {"type": "integer", "minimum": 2, "maximum": 100000},  # one axis: a ring
                      {"type": "string", "pattern": r"^\s*(?:[2-9]|[1-9][0-9]+)(\s*[xX]\s*(?:[2-9]|[1-9][0-9]+)){0,2}\s*$"},
                      {"type": "null"}],  # as absent: no torus
            "description": "a torus's axes (a TPU pod's ICI, [16, 16] or '16x16'), their product scale_up_domain",
        }
    return {
        "$schema": SCHEMA_DIALECT,
        "$id": "https://roofline.invalid/hardware.schema.json",
        "title": "roofline hardware profile",
        "type": "object",
        "required": list(hardware._REQUIRED),
        "properties": props,
        "patternProperties": {"^(measured_|x_)": {}},
        "additionalProperties": False,
        # a list of fp4_formats describes the fp4 peak: only beside one, under any of its spellings (some key of
        # peak_flops names fp4: not every key fails to)
        "if": {"required": ["fp4_formats"], "properties": {"fp4_formats": {"type": "array"}}},
        "then": {"properties": {"peak_flops": {"not": {"propertyNames": {"not": fp4_key_schema()}}}}},
        # qa265: rules the loader holds that the schema can say too: the scale-out link's two fields together, and a
        # torus only beside no mesh (mesh_links absent or 0)
        "dependentRequired": {"scale_out_bandwidth": ["scale_out_latency"], "scale_out_latency": ["scale_out_bandwidth"]},
        "allOf": [{"if": {"required": ["torus"], "properties": {"torus": {"not": {"type": "null"}}}},
                   "then": {"properties": {"mesh_links": {"const": 0}}}}],
    }


def model_schema() -> dict:
    """The JSON Schema of a model profile (shapes only; the loader checks their meaning)."""
    count = {"type": "integer", "minimum": 1, "maximum": model.MAX_COUNT}
    count0 = {"type": "integer", "minimum": 0, "maximum": model.MAX_COUNT}
    props: dict = {name: {} for name in model._KNOWN}
    props.update({name: count for name in model._INT_FIELDS})
    published = {"anyOf": [{"type": ["number", "null"], "minimum": model.PUBLISHED_PARAMS_MIN},  # (a count, not billions)
                           {"type": "string", "pattern": r"^\s*[+]?(?=[\d.]*[1-9])(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$"}]}
    props.update({
        "type": {"const": "model"},
        "name": {"type": "string", "minLength": 1},
        "display_name": {"type": "string"}, "source": {"type": "string"}, "notes": {"type": "string"},
        "ffn_gated": {"type": "boolean"}, "tied_embeddings": {"type": "boolean"}, "qk_norm_all_heads": {"type": "boolean"},
        "mtp_modules": count0,
        "mtp_window": count0,
        "max_context_tokens": {"anyOf": [count0, {"type": "null"}]},
        "tokenizer": {"anyOf": [{"type": "string", "pattern": "\\S"}, {"type": "null"}]},
        # YAML 1.1 reads 8.03e9 (no sign in the exponent) as text, which the tool takes as the number
        "published_params": published, "published_active_params": published,
        "precision": precision_schema(),
        "moe": {"type": ["object", "null"], "properties": {
            "experts": count, "top_k": count, "expert_ffn_size": count, "shared_experts": count0,
            "shared_expert_ffn_size": count0, "dense_layers": count0, "groups": count, "groups_per_token": count,
            "dense_placement": {"enum": list(model.DENSE_PLACEMENTS)}, "sequence_parallel": {"type": "boolean"}},
            "additionalProperties": False},
        "attention": {"type": "object", "properties": {
            "kv_layout": {"enum": ["gqa", "shared_kv", "mla"]},
            "groups": {"type": "array", "minItems": 1, "items": {"type": "object", "properties": {
                "kind": {"enum": list(model.GROUP_KINDS)}, "layers": count, "window": count0, "ratio": count,
                "read_tokens": count0, "index_dim": count0, "index_heads": count0, "state_bytes": count0}, "required": ["kind", "layers"],
                "additionalProperties": False}},
            "layer_groups": {"type": ["array", "null"], "items": {"type": "integer", "minimum": 0},
                             "description": "each layer's group (an index into groups), first to last"},
            "mla": {"type": "object"}, "q_lora_rank": count0, "o_lora_rank": count0, "o_groups": count,
            "kv_entry_bytes": {"type": "object", "additionalProperties": count},
            "index_key_bytes": {"type": "object", "additionalProperties": count},
        }, "additionalProperties": False},  # the loader's keys (model_from_dict): a typo is an unknown key
    })
    return {
        "$schema": SCHEMA_DIALECT,
        "$id": "https://roofline.invalid/model.schema.json",
        "title": "roofline model profile",
        "type": "object",
        "required": ["name", *model._INT_FIELDS],
        "properties": props,
        "additionalProperties": False,
    }


def precision_schema() -> dict:
    """`precision:` as model._precision reads it: a mapping with a non-empty `source`, a weight dtype for `default` and
    any weight class (any spelling of a weight dtype), a positive `block`; null as absent (qa403: {} was taken)."""
    dtype = {"type": "string", "pattern": _spellings_pattern(lambda name: name in model.WEIGHT_DTYPES),
             "description": "a weight dtype: " + ", ".join(model.WEIGHT_DTYPES)}
    count = {"type": ["integer", "null"], "minimum": 1, "maximum": model.MAX_COUNT}  # null: no block scales
    return {"type": ["object", "null"], "required": ["source"],
            "properties": {"source": {"type": "string", "pattern": r"\S"}, "block": count,
                           **{key: dtype for key in ("default", *model.WEIGHT_CLASSES)}},
            "additionalProperties": False}


def bytes_or_zero_schema() -> dict:
    """A memory size an engine reserves (serving._yaml_bytes): 'NUMBER UNIT' with a byte unit, or 0 (any unit)."""
    zero = r"^\s*[-+]?(0+\.?0*|\.0+)([eE][-+]?\d+)?\s*(" + "|".join(re.escape(u) for u in units.BYTE_UNITS) + r")?\s*$"
    return {"anyOf": [quantity_schema("bytes"), {"type": "number", "const": 0}, {"type": "string", "pattern": zero}],
            "description": f"{units.KIND_WORDS['bytes']} or 0, like '1.5 GiB'"}


def _range(kind: str, low: float, high: float, null: str = "") -> dict:
    """A number (or integer) in [low, high]; `null`: what null means, where the field takes one."""
    out = {"type": [kind, "null"] if null else kind, "minimum": low, "maximum": high}
    if null:
        out["description"] = f"null: {null}"
    return out


def _classes(choices) -> dict:
    """A list of `choices`, each once ([] for none), as serving._class_list reads one."""
    return {"type": "array", "items": {"enum": list(choices)}, "uniqueItems": True}


def engine_cost_schemas() -> dict:
    """{profile key: schema} of every engine cost field, the ones an `overrides` entry may change too (serving.py's
    _SECONDS, _BYTES and _VALUE_RULES; the ranges are those rules')."""
    from roofline import serving

    counts = {"type": "object", "propertyNames": {"enum": list(serving.OPERATORS)},
              "additionalProperties": {"type": "number", "minimum": 0, "maximum": 100},
              "description": "kernels per layer per operator (a mean where layers differ)"}
    flag = {"type": "boolean"}
    out = {key: time_or_zero_schema() for key in serving._SECONDS}
    out.update({key: bytes_or_zero_schema() for key in serving._BYTES})
    out.update({
        "kernels_per_layer": counts, "kernels_per_layer_mla": counts,
        "quant_kernels_per_gemm": _range("number", 0, 10),
        "host_overlap": flag, "host_overlap_speculating": flag, "dp_attention_tp1": flag, "ep_spans_stage": flag,
        "sequence_parallel_moe": flag, "prefix_read_once": flag, "attention_splits_keys": flag,
        "moe_dispatch": {"enum": list(serving.MOE_DISPATCH)}, "dp_gather": {"enum": list(serving.DP_GATHER)},
        "dp_attention_stage_split": _classes(serving.STAGE_SPLIT_CLASSES),
        "dp_attention_whole": _classes(serving.WHOLE_CLASSES),
        "overlap_exponent": _range("number", 1, 100, "the max of compute and memory time itself"),
        "quantised_moe_efficiency": _range("number", 0.01, 1), "weight_only_efficiency": _range("number", 0.01, 1),
        "gemm_tile_rows": _range("integer", 0, 1024),
        "window_kv_pool_ratio": _range("number", 0.01, 1, "every sliding-window layer window-capped"),
        "memory_fraction": _range("number", 0.05, 1, "the hardware profile's usable_memory_fraction"),
        "memory_fraction_by_devices": {"type": ["object", "null"], "propertyNames": {"pattern": "^([2-9]|[1-9][0-9]+)$"},
                                       "additionalProperties": {"type": "number", "minimum": 0.05, "maximum": 1},
                                       "description": "{N: f}: the memory share at a replica of N (2 or more) devices "
                                                      "or more; memory_fraction below the least N; null: none"},
        "memory_fraction_of": {"enum": ["device", "free"]},
        "sampler_sequences": _range("integer", 0, 1_000_000), "sampler_sequences_small": _range("integer", 0, 1_000_000),
        "sampler_logit_copies": _range("number", 0, 100),
    })
    assert set(out) == set(serving.COST_KEYS), set(out) ^ set(serving.COST_KEYS)  # every cost field, and no other
    return out


def engine_schema() -> dict:
    """The JSON Schema of a serving-engine profile (docs/PROFILES.md, "Serving-engine profiles"): the loader's fields
    and ranges; the loader stays the authority on meaning (a cost beside costs_from, a chain, lists that overlap)."""
    from roofline import serving
    from roofline.speculation import METHODS

    costs = engine_cost_schemas()
    text = {"type": ["string", "number", "null"]}  # digits alone read as a number, null as absent (errors.prose)
    props = {
        "type": {"type": "string", "pattern": rf"^\s*{_any_case('engine')}\s*$"},  # as profiles.kind_of reads it
        "name": {"type": "string", "pattern": r"\S"}, "source": {"type": "string", "pattern": r"\S"},
        "display_name": text, "version": {"type": ["string", "integer", "null"]}, "notes": text,
        "costs_from": {"type": "string", "pattern": r"\S", "description": "a profile whose costs this one takes"},
        **costs,
        "max_running_requests_speculating": _range("integer", 1, 1_000_000, "no cap"),
        "max_running_requests_flag": {"type": ["string", "null"], "pattern": f"^{serving.OPTION_PATTERN}$",
                                      "description": "the server option that raises that cap, like --max-running-requests"},
        "speculation_refused": _classes(serving.DRAFTING_METHODS),
        "speculation_refused_with_dp_attention": _classes(serving.DRAFTING_METHODS),
        "speculation_refused_with_pp": {"type": "boolean"}, "nvidia_only": {"type": "boolean"},
        "speculation_caveats": {"type": ["object", "null"], "description": "{method: note}: said where a point drafts so",
                                "propertyNames": {"pattern": r"^\s*(" + "|".join(map(_any_case, serving.DRAFTING_METHODS)) + r")\s*$"},
                                "additionalProperties": {"type": "string", "pattern": r"\S"}},
        "mixed_prefill": {"type": "boolean"}, "prefix_cached": {"type": "boolean"}, "prefix_cached_speculating": {"type": "boolean"}, "graphs": {"type": "boolean"}, "pp_remainder": {"enum": list(serving.PP_REMAINDERS)},
        "attention_dp": {"type": "boolean"}, "expert_parallel": {"type": "boolean"}, "mla_absorbed_bf16": {"type": "boolean"},
        "overrides": {"type": ["array", "null"], "items": {
            "type": "object", "required": ["hardware"],
            "properties": {"hardware": {"type": "string", "description": "a glob of hardware profile names, like mi*"},
                           **costs},
            "additionalProperties": False}},
        "fitted": {"type": ["object", "null"], "description": "what roofline fit wrote"},
        "known_misses": {"type": ["array", "null"], "description": "measured misses, said where a point matches one",
                         "items": {"type": "object", "required": ["note"], "additionalProperties": False, "properties": {
                             # each key but note may be null, read as absent (any), as the loader reads it (qa312)
                             "hardware": {"type": ["string", "null"], "pattern": r"^[^A-Z]*\S[^A-Z]*$"},
                             "models": {"type": ["array", "null"], "minItems": 1, "items": {"type": "string", "pattern": "^[^A-Z]*$"}},
                             "model_classes": {"type": ["array", "null"], "minItems": 1, "items": {"enum": list(serving.MODEL_CLASSES)}},
                             "methods": {"type": ["array", "null"], "minItems": 1, "items": {"enum": list(METHODS)}},
                             "layouts": {"type": ["array", "null"], "minItems": 1, "uniqueItems": True, "description": "the layouts measured, as "
                                         "predict writes them: 'tp 8', 'tp 1, dp-attention 8, ep 8'",
                                         "items": {"type": "string", "pattern": "^" + serving.LAYOUT_TEXT.pattern + "$"}},
                             "batch": {"type": ["array", "null"], "minItems": 2, "maxItems": 2, "description": "[LOW, HIGH or null], LOW <= HIGH",
                                       "prefixItems": [{"type": "integer", "minimum": 1}, {"type": ["integer", "null"], "minimum": 1}]},
                             "measured": {"enum": [*serving.MEASURED, None], "description": "the measured step against the predicted"},
                             "note": {"type": ["string", "number"], "pattern": r"\S"}}}},
    }
    known = serving._KNOWN | serving._OWN_FIELDS  # costs_from: a profile taking another's costs
    assert set(props) == known, set(props) ^ known  # the loader's fields exactly
    return {
        "$schema": SCHEMA_DIALECT,
        "$id": "https://roofline.invalid/engine.schema.json",
        "title": "roofline serving-engine profile",
        "type": "object",
        "required": ["name", "source"],
        "properties": props,
        "additionalProperties": False,
        # beside costs_from only what an engine does, not what it costs (serving._with_costs_from; qa403)
        "dependentSchemas": {"costs_from": {"propertyNames": {"enum": sorted(serving._OWN_FIELDS)}}},
        # the option that raises the running cap only beside a cap: the profile's own, or one its costs_from gives
        "if": {"required": ["max_running_requests_flag"], "properties": {"max_running_requests_flag": {"type": "string"}}},
        "then": {"properties": {"max_running_requests_speculating": {"type": "integer"}},
                 "anyOf": [{"required": ["max_running_requests_speculating"]}, {"required": ["costs_from"]}]},
    }


SCHEMAS = {"hardware": hardware_schema, "model": model_schema, "engine": engine_schema}


def schema_text(kind: str) -> str:
    """The schema as the `schema` commands print it (stable key order, trailing newline)."""
    return json.dumps(SCHEMAS[kind](), indent=2, ensure_ascii=False) + "\n"
