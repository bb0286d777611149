"""A model profile from a Hugging Face `config.json`: `roofline models import CONFIG --name NAME`.

Reads the architecture keys transformers configs use and writes the profile fields they map to
(docs/PROFILES.md); everything else in the config (RoPE but for its scaling, dropout, token ids) is ignored.

    layers            num_hidden_layers                        (n_layer refused: not a decoder config we read)
    hidden_size       hidden_size
    heads, kv_heads   num_attention_heads, num_key_value_heads (absent: = heads, plain multi-head)
    head_dim          head_dim, else hidden_size / heads; MLA: qk_nope_head_dim + qk_rope_head_dim
    ffn_size          intermediate_size (Llama 4: intermediate_size_mlp, the dense layers' size)
    vocab_size        vocab_size;  tied_embeddings: tie_word_embeddings (absent: the model_type's transformers default,
                      TYPE_DEFAULTS: true for gemma, gemma2, gemma3, gemma3_text; else false)
    MoE               num_experts | num_local_experts | n_routed_experts; num_experts_per_tok;
                      moe_intermediate_size (Mixtral, Llama 4: intermediate_size); n_shared_experts
                      (Llama 4: one shared expert; Qwen2-MoE: shared_expert_intermediate_size); sequence_parallel
                      false for a model_type of NO_SEQUENCE_PARALLEL_MOE (Mixtral: vLLM's block has no such path);
                      dense layers: first_k_dense_replace, mlp_only_layers, decoder_sparse_step,
                      interleave_moe_layer_step; dense_placement leading where they are the first layers
                      (first_k_dense_replace: a pipeline's first stage holds them), else interleaved;
                      group-limited routing: n_group, topk_group (unless topk_method is greedy)
    MLA               kv_lora_rank, q_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim
    max_context_tokens  the length vLLM serves without an override (_trained_context): the smallest of
                      max_position_embeddings and its kin, times a RoPE scaling factor (but su, longrope, llama3 and
                      Gemma 3's), raised to model_max_length where that is larger
    sparse attention  DeepSeek Sparse Attention (index_topk set: deepseek_v32, glm_moe_dsa) on the full-attention groups:
                      index_topk -> read_tokens, index_head_dim -> index_dim, index_n_heads -> index_heads;
                      attention.index_key_bytes index_head_dim + 4 B a 128 in every KV dtype (fp8 keys with a
                      4 B scale, as vLLM and SGLang store them); with MLA, kv_entry_bytes fp8 = kv_lora_rank + 4 B a
                      128 + 2 qk_rope_head_dim (vLLM's fp8_ds_mla: 656 B); the indexer's weights are not counted
    sliding window    layer_types ("sliding_attention" layers keep `sliding_window` tokens); Llama 4 chunked
                      attention (attention_chunk_size on the RoPE layers) as a window of one chunk, an
                      upper bound on what a chunked layer reads; else, with a sliding_window:
                      Gemma 3 / Cohere 2 style sliding_window_pattern P (every P-th layer global; gemma3 absent: 6);
                      Gemma 2 (model_type gemma2) alternates, its even layers sliding; Qwen2/3 (QWEN_WINDOW_TYPES) with
                      use_sliding_window true: layers max_window_layers and up; Mistral, Mixtral, Phi-3, StarCoder2
                      (EVERY_LAYER_WINDOW_TYPES): every layer unless use_sliding_window is false; another
                      model_type: every layer full, with a warning
    MTP               num_nextn_predict_layers
    precision         quantization_config (the checkpoint's dtypes; none: bf16 throughout):
                        fp8, fbgemm_fp8, modelopt FP8, compressed-tensors 8-bit float: fp8, embedding,
                          LM head and router bf16;
                        mxfp4 (gpt-oss): the experts fp4, the rest bf16; modelopt NVFP4: nvfp4, embedding, LM
                          head and router bf16;
                        awq, gptq: weight-only int4 (4 bits) or w8a16 (8 bits); quark (AMD) by global_quant_config's
                          weight dtype (fp8, int8 with int8 inputs W8A8 else w8a16, int4 / uint4, fp4); compressed-tensors by its config
                          groups (which must quantise the weights alike): 8-bit float fp8, 8-bit int with
                          activations int8 (W8A8), 4-bit float nvfp4 (group size 16) or fp4, weight-only int int4 / w8a16; embedding, LM
                          head and router bf16 throughout;
                        integer group_size (AWQ / GPTQ group_size, compressed-tensors weights.group_size) other than
                          the dtype's (int4: 16-bit scales a 128; w8a16, int8: per channel): a warning with the bytes a
                          weight it misses;
                        modules_to_not_convert / ignored_layers / ignore / exclude_modules naming the attention,
                          router, shared experts, dense MLP (a regex over its gate/up/down projections), embedding or
                          LM head keep those bf16; any other method is refused
    refused           DeepSeek-V4 (compress_ratios, o_lora_rank, o_groups, num_hash_layers or model_type deepseek_v4):
                          the built-in deepseek-v4-flash profile is written by hand; hybrid decoders whose layers are
                          not all attention (HYBRID_KEYS: Qwen3-Next's and Qwen3.5's Gated DeltaNet, Jamba's and
                          Nemotron-H's Mamba, MiniMax-M1's lightning attention; a model_type of
                          NOT_ALL_ATTENTION_TYPES, Mamba's or RWKV's, whatever its keys; an encoder-decoder
                          (is_encoder_decoder, or a model_type of ENCODER_DECODER_TYPES: T5, BART); layer_types other than
                          ATTENTION_LAYER_TYPES, Llama 4's chunked_attention read as sliding groups of one chunk)
Multimodal configs are read from their `text_config`; the vision tower is not counted. Gemma 3's text_config leaves
keys to Gemma3TextConfig's defaults (GEMMA3_TEXT_DEFAULTS), applied where it does.

The parameter count computed from the profile (roofline.model) is compared with `published_params`
when given, the active count with `published_active_params` without or with the input embedding, whichever is
nearer (check_params); more than 5% apart is a warning (the import still writes the file).
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from roofline.errors import MISSING, RooflineError, field_error, warn
from roofline.model import BYTES_PER_ELEMENT, KV_DTYPES, MAX_COUNT, model_from_dict
from roofline.profiles import check_not_shadowing, check_profile_name
from roofline.yamlio import comment_line, read_json_file, write_text_atomic

PARAM_TOLERANCE = 0.05


# transformers model types whose MLP is up and down projections with an activation between them (no gate):
# GPT-NeoX / Pythia, Phi-1/2, Falcon, GPT-J, OPT, BLOOM, StarCoder (gpt_bigcode), MPT. Every other type read here
# (Llama, Mistral, Mixtral, Qwen, Gemma, DeepSeek, Phi-3 ...) gates its MLP: three matrices.
UNGATED_MODEL_TYPES = ("gpt_neox", "phi", "falcon", "gptj", "opt", "bloom", "gpt_bigcode", "mpt")


NO_SEQUENCE_PARALLEL_MOE = ("mixtral",)  # model_types whose vLLM MoE block has no sequence-parallel path (models/mixtral.py)
# transformers' defaults for keys a config.json may leave out, by model_type (configuration_gemma*.py,
# configuration_deepseek_v3.py): Gemma, Gemma 2 and Gemma 3 tie the LM head to the embedding; Gemma 3 makes every 6th
# layer global; DeepSeek-V3 routes within 4 of 8 groups. Applied where neither the config nor
# its text_config gives the key (a note lists them).
# Gemma3TextConfig's defaults, which the multimodal Gemma 3 configs' text_config leaves to it (qa121: gemma-3-4b-it's
# gives no num_attention_heads, gemma-3-27b-it's no vocab_size; transformers' configuration_gemma3.py)
GEMMA3_TEXT_DEFAULTS = {"tie_word_embeddings": True, "sliding_window_pattern": 6, "num_attention_heads": 8,
                        "num_key_value_heads": 4, "head_dim": 256, "vocab_size": 262208, "max_position_embeddings": 131072,
                        "sliding_window": 4096}
TYPE_DEFAULTS = {
    "gemma": {"tie_word_embeddings": True},
    "gemma2": {"tie_word_embeddings": True},
    "gemma3": GEMMA3_TEXT_DEFAULTS,
    "gemma3_text": GEMMA3_TEXT_DEFAULTS,
    "deepseek_v3": {"n_group": 8, "topk_group": 4},  # configuration_deepseek_v3.py; its gate always routes by groups
}
MAX_LAYERS = 100_000  # far above any published decoder (DeepSeek-V3 61, Llama 3.1 405B 126)
ATTENTION_LAYER_TYPES = ("sliding_attention", "full_attention", "chunked_attention", "attention")  # layer_types an
# importer reads: "attention" a full-attention layer as Granite-4.0-H's hybrid config names it (qa260)
# layer_types of layers that are not softmax attention (Qwen3-Next's linear attention, hybrids' state-space blocks)
NOT_ATTENTION_LAYER_TYPES = ("linear_attention", "mamba", "mamba2", "ssm", "recurrent", "rwkv", "conv", "gated_deltanet")
# keys of hybrid decoders whose layers are not all attention: Qwen3-Next's Gated DeltaNet (full_attention_interval,
# linear_*), Jamba's Mamba layers (attn_layer_period), Nemotron-H's pattern, MiniMax-M1's lightning attention
# (attn_type_list, where 0 marks it; all 1 is MiniMax-M2, attention throughout), Zamba's layers_block_type, and Mamba
# state keys
HYBRID_KEYS = ("full_attention_interval", "linear_num_value_heads", "linear_key_head_dim", "attn_layer_period",
               "attn_layer_offset", "hybrid_override_pattern", "attn_type_list", "layers_block_type", "mamba_d_state",
               "mamba_expand", "ssm_state_size", "mamba_n_heads")
# transformers' model_types of state-space, recurrent and hybrid decoders: refused by their type too, whatever keys the
# config holds (qa205: model_type mamba with attention keys was imported as a GQA transformer, in silence)
NOT_ALL_ATTENTION_TYPES = ("mamba", "mamba2", "falcon_mamba", "rwkv", "recurrent_gemma", "xlstm", "jamba", "zamba",
                           "zamba2", "bamba", "falcon_h1", "nemotron_h", "granitemoehybrid", "qwen3_next", "lfm2")
ENCODER_DECODER_TYPES = ("t5", "mt5", "umt5", "bart", "mbart", "pegasus", "marian", "whisper", "longt5", "switch_transformers")
TOPK_METHODS = ("greedy", "group_limited_greedy", "noaux_tc")  # DeepSeek's gates (topk_method; absent: by groups)

# Where transformers applies a config's one `sliding_window` without per-layer keys: on every layer (Mistral, Mixtral,
# Phi-3, StarCoder2), or, in the Qwen family, on layers max_window_layers and up, and only with use_sliding_window
# (default false). Another model_type's window is not placed: its layers are imported full, with a warning.
EVERY_LAYER_WINDOW_TYPES = ("mistral", "mixtral", "phi3", "starcoder2")
QWEN_WINDOW_TYPES = ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe")

# DeepSeek-V4's config keys (compressed attention, grouped low-rank output, hash routing): not mapped, refused
V4_KEYS = ("compress_ratios", "o_lora_rank", "o_groups", "num_hash_layers")

INDEX_SCALE_GROUP = 128  # DeepSeek Sparse Attention's indexer keys: fp8 values with one 4 B scale a 128 (vLLM, SGLang)
GROUP_TOLERANCE = 0.01   # an integer quantisation's scales a weight further than this from its dtype's: a warning


def _ffn_gated(cfg: dict) -> bool:
    """Whether the config's MLP is gated (gate, up, down) or two matrices, by its model_type."""
    return str(cfg.get("model_type", "")) not in UNGATED_MODEL_TYPES


def _int(cfg: dict, where: str, *keys: str, default=None, allow_zero: bool = False):
    for key in keys:
        if key in cfg and cfg[key] is not None:
            value = cfg[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < (0 if allow_zero else 1):
                raise field_error(where, key, "a non-negative integer" if allow_zero else "a positive integer", value)
            return value
    if default is None:
        raise field_error(where, keys[0], "a required config key", MISSING)
    return default


def _layer_windows(cfg: dict, where: str, layers: int) -> list[int]:
    """Each layer's window, first to last: 0 for full attention, else the tokens it keeps (a sliding window, or Llama
    4's chunk read as one)."""
    types = cfg.get("layer_types")
    window = cfg.get("sliding_window")
    if isinstance(types, list) and types:
        if len(types) != layers:
            raise field_error(where, "layer_types", f"as many entries as layers ({layers})", len(types))
        # every type an attention layer's: profile_from_hf_config refused the others before
        sliding = _int(cfg, where, "sliding_window") if "sliding_attention" in types else 0
        chunk = _int(cfg, where, "attention_chunk_size") if "chunked_attention" in types else 0  # Llama 4's (qa124)
        return [{"sliding_attention": sliding, "chunked_attention": chunk}.get(t, 0) for t in types]
    chunk = cfg.get("attention_chunk_size")
    if chunk:
        chunk = _int(cfg, where, "attention_chunk_size")
        flags = cfg.get("no_rope_layers")
        if isinstance(flags, list) and len(flags) == layers:
            return [chunk if f else 0 for f in flags]
        interval = _int(cfg, where, "no_rope_layer_interval", default=4)
        return [chunk if (i + 1) % interval != 0 else 0 for i in range(layers)]
    model_type = str(cfg.get("model_type", ""))
    flag = cfg.get("use_sliding_window")
    if flag is not None and not isinstance(flag, bool):  # (qa464: the text "false" read as true, every layer sliding)
        raise field_error(where, "use_sliding_window", "true or false (a JSON boolean)", flag)
    if window and cfg.get("use_sliding_window", model_type not in QWEN_WINDOW_TYPES):
        window = _int(cfg, where, "sliding_window")
        if cfg.get("sliding_window_pattern") is not None:  # Gemma 3, Cohere 2: layer i is global where (i + 1) % P == 0
            pattern = _int(cfg, where, "sliding_window_pattern")
            return [window if (i + 1) % pattern != 0 else 0 for i in range(layers)]
        if model_type == "gemma2":  # transformers' Gemma2: layer i slides where i % 2 == 0
            return [window if i % 2 == 0 else 0 for i in range(layers)]
        if model_type in QWEN_WINDOW_TYPES:  # Qwen2/3: layer i slides where i >= max_window_layers (default 28)
            first = _int(cfg, where, "max_window_layers", default=28, allow_zero=True)
            return [window if i >= first else 0 for i in range(layers)]
        if model_type in EVERY_LAYER_WINDOW_TYPES:  # Mistral: every layer
            return [window] * layers
        warn(f"{where}: sliding_window {window}: model_type {model_type or 'unknown'} gives no layer_types or "
             "sliding_window_pattern saying which layers slide; every layer imported as full attention (an upper "
             "bound on the KV it holds and reads)")
    return [0] * layers


def _sliding_groups(cfg: dict, where: str, layers: int) -> tuple[list[dict], list[int]]:
    """(attention groups, each layer's group index): one sliding group a window, in the order the config first gives
    it, then the full layers; the order [] where there is one group (every layer the same)."""
    windows = _layer_windows(cfg, where, layers)
    longest = cfg.get("max_position_embeddings")
    if isinstance(longest, int) and not isinstance(longest, bool) and longest > 0 and any(w >= longest for w in windows):
        wide = sorted({w for w in windows if w >= longest})  # (qa486: 99,999,999 imported as a sliding group, 'gqa
        warn(f"{where}: {'sliding_window' if 'sliding_window' in cfg else 'attention_chunk_size'} "  # sliding')
             f"{', '.join(f'{w:,}' for w in wide)}: at least max_position_embeddings ({longest:,}), so no sequence "
             "outgrows it: those layers imported as full attention")
        windows = [0 if w >= longest else w for w in windows]
    order = [w for w in dict.fromkeys(windows) if w] + ([0] if 0 in windows else [])
    groups = [{"kind": "sliding", "layers": windows.count(w), "window": w} if w else {"kind": "full", "layers": windows.count(0)}
              for w in order]
    return groups, ([order.index(w) for w in windows] if len(groups) > 1 else [])


# quantization_config.quant_method -> the dtype of the quantised linears, and which classes it covers
_FP8_METHODS = ("fp8", "fbgemm_fp8")
_WEIGHT_ONLY_METHODS = ("awq", "gptq", "awq_marlin", "gptq_marlin")
_KEPT_BF16 = ("embedding", "lm_head", "router")  # what quantised checkpoints leave in 16 bits unless they say otherwise
_SKIP_KEYS = ("modules_to_not_convert", "ignored_layers", "ignore", "exclude_modules", "exclude")  # exclude: Quark's


def _skip_class(name: str) -> tuple[str | None, int | None]:
    """(the weight class a skip-list entry keeps 16-bit, or None; its layer index where it names one layer's module).
    A name counts where it ends at a whole module of a class ('model.layers.*.self_attn', 'mlp.router', 'lm_head',
    're:.*mlp.gate$', 're:.*embed.*'), or, for the dense MLP, at a regex alternation naming all its projections (down
    and gate and up, or gate_up: 're:.*mlp\\.(gate|up|gate_up|down)_proj.*'); one projection inside a module
    ('linear_attn.in_proj_ba', 'mlp.down_proj') counts for none."""
    text = name.lower().removeprefix("re:").removesuffix("$").removesuffix(".weight")
    raw = [p for p in re.split(r"[.:/]|\\\.", text) if re.sub(r"[^a-z0-9_]", "", p)]
    parts = [re.sub(r"[^a-z0-9_]", "", p) for p in raw]
    layer = next((int(p) for p in parts if p.isdigit()), None)
    last, before = (parts[-1] if parts else ""), (parts[-2] if len(parts) > 1 else "")
    proj = re.fullmatch(r"\((?:\?:)?([a-z_|]+)\)_proj|([a-z_]+)_proj", raw[-1]) if raw else None
    projections = set((proj.group(1) or proj.group(2)).split("|")) if proj else set()
    if before == "mlp" and "down" in projections and ({"gate", "up"} <= projections or "gate_up" in projections):
        return "mlp", layer
    if last in ("embed_tokens", "wte", "embeddings", "embedding", "embed"):
        return "embedding", layer
    if last == "lm_head":
        return "lm_head", layer
    if last in ("self_attn", "attn", "attention"):
        return "attention", layer
    if last in ("router", "shared_expert_gate") or (last == "gate" and before in ("mlp", "block_sparse_moe", "feed_forward")):
        return "router", layer
    if last in ("shared_expert", "shared_experts"):
        return "shared_experts", layer
    return None, layer


def _skipped_classes(qc: dict, layers: int = 0) -> set[str]:
    """The weight classes a quantization_config's skip list keeps in 16 bits (_skip_class): a class named for one
    layer's module counts only where the list names it in every layer (a router, in the MoE layers only: where it is
    named in as many layers as the most-named class, at least two)."""
    names = [str(n) for key in _SKIP_KEYS if isinstance(qc.get(key), list) for n in qc[key]]
    classes, per_layer = set(), {}
    for name in names:
        cls, layer = _skip_class(name)
        if cls is None:
            continue
        if layer is None:
            classes.add(cls)
        else:
            per_layer.setdefault(cls, set()).add(layer)
    most = max((len(v) for v in per_layer.values()), default=0)
    for cls, indices in per_layer.items():  # every layer listed (a router lives in the MoE layers only: as many as most)
        if (layers and len(indices) >= layers) or (len(indices) == most and most > 1 and cls == "router"):
            classes.add(cls)
    return classes


def _bits_and_kind(qc: dict, where: str) -> tuple[int, str, object]:
    """compressed-tensors: the weights' (num_bits, type, group_size) of its first config group."""
    groups = qc.get("config_groups")
    group = next(iter(groups.values()), None) if isinstance(groups, dict) and groups else None
    if isinstance(groups, dict) and len(groups) > 1:  # one precision per weight class: groups must agree on the weights
        def kind_of(g):  # what sets the bytes and the GEMM: bits, type, and whether activations are quantised too
            w = g.get("weights") if isinstance(g, dict) else None
            return (w.get("num_bits"), w.get("type"), bool(g.get("input_activations"))) if isinstance(w, dict) else repr(g)
        kinds = {kind_of(g) for g in groups.values()}
        if len(kinds) > 1:
            raise field_error(where, "quantization_config.config_groups", "groups that quantise the weights alike (write "
                              "the profile's precision: per weight class by hand, docs/PROFILES.md)",
                              "; ".join(f"{k[0]}-bit {k[1]}{' with activations' if k[2] else ''}" if isinstance(k, tuple) else k
                                        for k in sorted(kinds, key=str)))
    weights = group.get("weights") if isinstance(group, dict) else None
    if not isinstance(weights, dict):
        raise field_error(where, "quantization_config.config_groups", "a group with a weights entry (num_bits, type)", groups)
    bits, kind = weights.get("num_bits"), str(weights.get("type", "int"))
    if bits not in (4, 8):
        raise field_error(where, "quantization_config.config_groups.weights.num_bits", "4 or 8", bits)
    activations = group.get("input_activations")
    return bits, (kind if activations else "weight_only_float" if kind == "float" else "weight_only"), weights.get("group_size")


def _check_group_size(where: str, key: str, dtype: str, group_size: object) -> str:
    """Warn where an integer quantisation's group size gives its weights other bytes than `dtype` counts: one 16-bit
    scale a group_size weights (-1: one an output channel, about none), against the scales in BYTES_PER_ELEMENT (int4:
    one a 128; w8a16 and int8: per channel, none). Zero points are counted in neither (the dtypes count none).
    Returns what it warned ('' for nothing), which the profile's precision source keeps (qa121: said once at import,
    then lost)."""
    if group_size is None or dtype not in ("int4", "w8a16", "int8"):
        return ""
    if isinstance(group_size, bool) or not isinstance(group_size, int) or not (group_size > 0 or group_size == -1):
        raise field_error(where, key, "a positive integer or -1 (one scale per output channel)", group_size)
    values = 0.5 if dtype == "int4" else 1.0
    scales = 2.0 / group_size if group_size > 0 else 0.0
    off = (values + scales) / BYTES_PER_ELEMENT[dtype] - 1
    if abs(off) <= GROUP_TOLERANCE:
        return ""
    said = (f"{dtype} group_size {group_size}: scales take {scales:.4f} B a weight, the {dtype} dtype assumes "
            f"{BYTES_PER_ELEMENT[dtype] - values:.4f} (weights about {abs(off):.0%} {'light' if off > 0 else 'heavy'})")
    warn(f"{where}: quantization_config: {said}")
    return said


def _precision(config: dict, cfg: dict, where: str, layers: int = 0) -> dict | None:
    """The profile's `precision:` block from the checkpoint's quantization_config (None: bf16 throughout)."""
    qc = config.get("quantization_config", cfg.get("quantization_config"))
    if qc is None:
        return None
    if not isinstance(qc, dict):
        raise field_error(where, "quantization_config", "a JSON object", type(qc).__name__)
    for key in _SKIP_KEYS:
        if qc.get(key) is not None and not isinstance(qc[key], list):
            raise field_error(where, f"quantization_config.{key}", "a list of module names", qc[key])
    method = str(qc.get("quant_method", "")).lower().strip()
    algo = str(qc.get("quant_algo", "")).upper()
    bits = qc.get("bits", qc.get("w_bit", MISSING))  # absent: 'found nothing' (qa121: it said 'found None')
    group_key = "quantization_config." + ("q_group_size" if "group_size" not in qc and "q_group_size" in qc else "group_size")
    group_size = qc.get("group_size", qc.get("q_group_size"))  # AWQ / GPTQ; compressed-tensors: its weights' own
    if method in _FP8_METHODS or (method == "modelopt" and algo.startswith("FP8")):
        quantised, dtype = None, "fp8"
    elif method == "mxfp4":  # gpt-oss: the MoE experts' projections only
        quantised, dtype = ("experts",), "fp4"
    elif method == "modelopt" and "FP4" in algo:  # NVFP4: every linear of the decoder blocks but those excluded
        quantised, dtype = None, "nvfp4"  # one FP8 scale a 16 weights
    elif method in _WEIGHT_ONLY_METHODS:
        if bits not in (4, 8):
            raise field_error(where, "quantization_config.bits", "4 or 8 (weight bits)", bits)
        quantised, dtype = None, "int4" if bits == 4 else "w8a16"
    elif method == "compressed-tensors":
        n, kind, group_size = _bits_and_kind(qc, where)
        group_key = "quantization_config.config_groups.weights.group_size"
        if kind == "float" and n == 8:
            quantised, dtype = None, "fp8"
        elif kind == "int" and n == 8:
            quantised, dtype = None, "int8"
        elif kind in ("float", "weight_only_float") and n == 4:
            # 4-bit float weights (W4A4, or with 16-bit activations): NVFP4 with a scale a 16 weights, else MXFP4 (a 32)
            quantised, dtype = None, "nvfp4" if group_size == 16 else "fp4"
        elif kind == "weight_only":
            quantised, dtype = None, "int4" if n == 4 else "w8a16"
        else:
            raise field_error(where, "quantization_config.config_groups", "8-bit float or int, 4-bit float, or weight-only "
                              "4/8-bit int weights", f"{n}-bit {kind}")
    elif method == "quark":  # AMD Quark: global_quant_config.weight / input_tensors (quark.torch.quantization.config)
        dtype = _quark_dtype(qc, where)
        quantised = None
    elif method == "modelopt":
        raise field_error(where, "quantization_config.quant_algo", "FP8 or NVFP4 (or write the profile's precision: by hand, "
                          "docs/PROFILES.md)", qc.get("quant_algo", MISSING))
    else:
        raise field_error(where, "quantization_config.quant_method", "fp8, fbgemm_fp8, mxfp4, modelopt (FP8, NVFP4), awq, gptq, "
                          "quark or compressed-tensors (or write the profile's precision: by hand, docs/PROFILES.md)", method or MISSING)
    group_said = _check_group_size(where, group_key, dtype, group_size)
    skipped = _skipped_classes(qc, layers)
    kept = set(_KEPT_BF16) | skipped
    if quantised is None:
        block: dict = {"default": dtype, **{c: "bf16" for c in ("attention", "mlp", "embedding", "lm_head", "router", "shared_experts")
                                            if c in kept}}
    else:
        block = {"default": "bf16", **{c: dtype for c in quantised if c not in kept}}
    sides = qc.get("weight_block_size")
    if sides is None and method == "compressed-tensors":  # its block strategy's block_structure (qa121: dropped)
        weights = [g.get("weights") for g in (qc.get("config_groups") or {}).values() if isinstance(g, dict)]
        sides = next((w.get("block_structure") for w in weights if isinstance(w, dict) and w.get("strategy") == "block"), None)
    if (dtype in ("fp8", "int8") and isinstance(sides, list) and len(sides) == 2 and len(set(sides)) == 1
            and isinstance(sides[0], int) and not isinstance(sides[0], bool) and sides[0] > 0):
        block["block"] = sides[0]  # square block scales: a tensor-parallel shard must hold whole blocks
    detail = ", ".join(f"{k} {qc[k]}" for k in ("quant_algo", "bits", "fmt", "weight_block_size") if qc.get(k) is not None)
    block["source"] = (f"quantization_config of the imported config.json: quant_method {method}" + (f", {detail}" if detail else "")
                       + "; embedding, LM head and router kept in 16 bits"
                       + (" with the modules it leaves unconverted" if skipped else "")
                       + (f"; {group_said}" if group_said else "") + " (roofline/hfimport.py)")
    return block


def _quark_dtype(qc: dict, where: str) -> str:
    """A Quark checkpoint's weight dtype from global_quant_config: weight fp8_e4m3 (or e5m2) with fp8 input tensors fp8,
    without them w8a16 (8-bit weights computing in 16 bits); int8 with int8 input tensors int8 (W8A8), without them
    w8a16; int4 / uint4 int4; fp4 (MX: an E8M0 scale a 32) with fp4 input tensors fp4, without them int4 (4-bit
    weights computing in 16 bits: the bytes of int4's 1/128 scales, 3% under MXFP4's 1/32), with 8-bit ones (W4A8) int4
    too, with a warning (no roofline dtype computes 4-bit weights in 8 bits)."""
    gqc = qc.get("global_quant_config")
    weight = gqc.get("weight") if isinstance(gqc, dict) else None
    if isinstance(weight, list) and weight:  # a list of specs (a weight quantised twice over): the first is the storage
        weight = weight[0]
    if not isinstance(weight, dict):
        raise field_error(where, "quantization_config.global_quant_config.weight", "a quantisation spec with a dtype", weight)
    inputs = gqc.get("input_tensors")
    inputs = inputs[0] if isinstance(inputs, list) and inputs else inputs
    w = str(weight.get("dtype", "")).lower().strip()
    a = str(inputs.get("dtype", "")).lower().strip() if isinstance(inputs, dict) else ""
    if w.startswith("fp8"):  # without fp8 input tensors the weights are dequantised to 16 bits: 8-bit weight-only
        return "fp8" if a.startswith("fp8") else "w8a16"
    if w == "int8":
        return "int8" if a == "int8" else "w8a16"
    if w in ("int4", "uint4"):
        return "int4"
    fp4 = ("fp4", "mx_fp4", "mxfp4", "fp4_e2m1")  # Quark's spellings of MXFP4
    if w in fp4:  # without 4-bit inputs: 4-bit weight-only, as int4 (W4A16)
        if a.startswith("fp8") or a == "int8":  # W4A8: no dtype of roofline's computes 4-bit weights in 8 bits (qa90)
            warn(f"{where}: quantization_config: fp4 weights with {a} input tensors (W4A8) are read as int4: their bytes "
                 "are 4-bit, their GEMMs priced at the 16-bit peak, a lower bound where they are compute-bound (no roofline "
                 "dtype computes 4-bit weights in 8 bits)")
        return "fp4" if a in fp4 else "int4"
    raise field_error(where, "quantization_config.global_quant_config.weight.dtype", "fp8_e4m3, int8, int4, uint4 or fp4",
                      weight.get("dtype", MISSING))


def _positive(value) -> bool:
    """A count above 0 (an int, not a bool), or a list holding one: a MoE config's trace."""
    if isinstance(value, list):
        return any(_positive(v) for v in value)
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _moe(cfg: dict, where: str, layers: int, hidden: int) -> dict | None:
    read = ("num_experts", "num_local_experts", "n_routed_experts")
    experts_key = next((k for k in read if cfg.get(k)), None)
    if experts_key is None:
        # an expert count under a name not read here (ERNIE's moe_num_experts) is no dense model (qa447: 21B imported
        # as 3.35B, exit 0); a config that gives one of the read keys as 0 says it is dense (qa449: refused)
        other = next((k for k in cfg if isinstance(k, str) and "expert" in k.lower() and _positive(cfg[k])), None)
        if other is not None and not any(k in cfg for k in read):
            raise field_error(where, other, "a dense model's config, or a MoE one whose expert count is num_experts, "
                              "num_local_experts or n_routed_experts (keys the importer reads)", cfg[other])
        return None
    model_type = str(cfg.get("model_type", ""))
    experts = _int(cfg, where, experts_key)
    top_k = _int(cfg, where, "num_experts_per_tok", "moe_topk")
    llama4 = model_type.startswith("llama4")
    expert_ffn = _int(cfg, where, "intermediate_size") if llama4 else _int(cfg, where, "moe_intermediate_size", "intermediate_size")
    moe = {"experts": experts, "top_k": top_k, "expert_ffn_size": expert_ffn}
    shared, shared_ffn = _int(cfg, where, "n_shared_experts", default=0, allow_zero=True), 0
    if llama4:
        shared = 1
    elif cfg.get("shared_expert_intermediate_size"):
        shared, shared_ffn = 1, _int(cfg, where, "shared_expert_intermediate_size")
    moe["shared_experts"] = shared
    if model_type in NO_SEQUENCE_PARALLEL_MOE:  # vLLM's block for it has no sequence-parallel path (qa149)
        moe["sequence_parallel"] = False
    if shared_ffn and shared_ffn != expert_ffn:
        moe["shared_expert_ffn_size"] = shared_ffn
    if isinstance(cfg.get("moe_layers"), list) and cfg["moe_layers"]:
        sparse = set(cfg["moe_layers"])
    elif cfg.get("interleave_moe_layer_step"):
        step = _int(cfg, where, "interleave_moe_layer_step")  # transformers' Llama 4: every step-th layer, from step - 1
        sparse = set(range(step - 1, layers, step))
    else:
        dense = _int(cfg, where, "first_k_dense_replace", default=0, allow_zero=True)
        only = cfg.get("mlp_only_layers") or []
        step = _int(cfg, where, "decoder_sparse_step", default=1)
        sparse = {i for i in range(layers) if i >= dense and i not in only and (i + 1) % step == 0}
    dense_at = [i for i in range(layers) if i not in sparse]
    moe["dense_layers"] = len(dense_at)
    if dense_at and dense_at == list(range(len(dense_at))):  # DeepSeek's first_k_dense_replace: they lead
        moe["dense_placement"] = "leading"
    n_group = _int(cfg, where, "n_group", default=1)
    topk_group = _int(cfg, where, "topk_group", default=n_group)
    method = cfg.get("topk_method")
    if method is not None and method not in TOPK_METHODS:
        raise field_error(where, "topk_method", f"one of {', '.join(TOPK_METHODS)}", method)
    greedy = method == "greedy"  # a plain top-k: the group keys are not read
    if topk_group > n_group and not greedy:
        raise field_error(where, "topk_group", f"at most n_group={n_group} (groups a token keeps of n_group)", topk_group)
    if topk_group < n_group and not greedy:  # group-limited routing (DeepSeek's noaux_tc,
        # group_limited_greedy); 1 of 1 groups, or a plain greedy top-k, is none
        if experts % n_group:
            raise field_error(where, "n_group", f"a divisor of {experts_key}={experts} (equal groups of experts)", n_group)
        if topk_group * (experts // n_group) < top_k:
            raise field_error(where, "topk_group", f"groups enough to hold num_experts_per_tok={top_k} experts "
                              f"({experts // n_group} a group)", topk_group)
        moe["groups"], moe["groups_per_token"] = n_group, topk_group
        if cfg.get("topk_method") == "group_limited_greedy":  # DeepSeek-V2: a group scored by its best expert
            warn(f"{where}: topk_method group_limited_greedy scores a group by its best expert; the routing simulation "
                 "scores it by its top two, as DeepSeek-V3's noaux_tc gate does (one token's busiest rank about 8% light)")
    if len(dense_at) >= layers:
        raise field_error(where, experts_key, "at least one MoE layer", 0)
    return moe


UNSCALED_ROPE = (None, "default", "su", "longrope", "llama3")  # RoPE types whose factor vLLM does not apply to the length
LENGTH_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
               "max_sequence_length", "max_seq_length", "seq_len")  # vLLM's possible_keys: it takes the smallest


def _trained_context(cfg: dict, where: str) -> int | None:
    """The longest sequence vLLM serves without an override (vLLM's _get_and_verify_max_len, as KServe's copy of vLLM
    commit 2ac6d0e has it): the smallest of LENGTH_KEYS, times a rope_scaling (or rope_parameters) factor unless its
    type is su, longrope or llama3 or the model is Gemma 3, whose length is scaled already (yarn: its
    original_max_position_embeddings times the factor), raised to model_max_length where that is larger (vLLM lets a
    max_model_len up to it through). None where the config gives none; an unusable value is left out with a warning
    naming its key (the field is optional)."""
    found = {key: cfg[key] for key in LENGTH_KEYS if cfg.get(key) is not None}
    for key, value in found.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= MAX_COUNT or value != int(value):
            warn(f"{where}: {key}: expected a whole number of tokens up to {MAX_COUNT:,}, found {value!r}: "
                 "max_context_tokens left out")
            return None
    if not found:
        return None
    length = int(min(found.values()))
    scaling = cfg.get("rope_scaling") or cfg.get("rope_parameters")
    if isinstance(scaling, dict) and "gemma3" not in str(cfg.get("model_type", "")):
        kind, factor = scaling.get("rope_type", scaling.get("type")), scaling.get("factor")
        if kind not in UNSCALED_ROPE and isinstance(factor, (int, float)) and not isinstance(factor, bool) and factor > 0:
            base = scaling.get("original_max_position_embeddings", length) if kind == "yarn" else length
            if isinstance(base, (int, float)) and not isinstance(base, bool) and 0 < base * factor <= MAX_COUNT:
                length = int(base * factor)
    return max(length, int(found.get("model_max_length", 0)))


def profile_from_hf_config(config: object, name: str, where: str, published_params: float | None = None,
                           published_active_params: float | None = None, source: str = "",
                           display_name: str | None = None, tokenizer: str = "") -> dict:
    """The model profile mapping for a transformers config dict (validated by model_from_dict); `tokenizer` the
    family a user names (config.json does not say it)."""
    if not isinstance(config, dict):
        raise field_error(where, "(top level)", "a JSON object (a transformers config.json)", type(config).__name__)
    cfg = config.get("text_config") if isinstance(config.get("text_config"), dict) else config
    cfg = {**cfg, "model_type": cfg.get("model_type", config.get("model_type", ""))}
    model_type = str(cfg["model_type"])
    gpt2_key = next((key for key in ("n_layer", "n_embd") if key in cfg), None)
    if gpt2_key:  # the key the file has (qa464: an n_embd-only config was told of n_layer)
        raise field_error(where, gpt2_key, "a decoder config with num_hidden_layers (GPT-2 style configs are not read)",
                          gpt2_key)
    flagged = next((c["is_encoder_decoder"] for c in (cfg, config) if c.get("is_encoder_decoder") is True
                    or str(c.get("is_encoder_decoder")).strip().lower() == "true"), None)  # (qa211: "false" as text)
    if flagged is not None or model_type.lower() in ENCODER_DECODER_TYPES or model_type.lower().startswith("t5"):
        # qa207: T5 was refused for a missing num_hidden_layers, then, given one, imported as a decoder of half its size;
        # qa209: the key that refuses it is named, a model_type in any case ('T5'), t5gemma, and a flag given as text
        raise field_error(where, "is_encoder_decoder" if flagged is not None else "model_type",
                          "a decoder-only model (an encoder and cross-attention are not modelled)",
                          flagged if flagged is not None else model_type)
    v4 = next((k for k in V4_KEYS if cfg.get(k) is not None), "model_type" if model_type == "deepseek_v4" else None)
    if v4:
        raise field_error(where, v4, "no DeepSeek-V4 key (its compressed attention, grouped low-rank output and hash routing "
                          "are not read: use the hand-written built-in profile deepseek-v4-flash, or `roofline models new "
                          "NAME --from deepseek-v4-flash`)", cfg[v4])
    shared = cfg.get("num_kv_shared_layers")
    if shared not in (None, 0):  # Gemma 3n: the last layers reuse earlier layers' KV; read as their own, the KV ran 1.75x high
        raise field_error(where, "num_kv_shared_layers", "0 (layers that reuse another layer's KV cache are not read: write "
                          "the profile's attention groups by hand, docs/PROFILES.md)", shared)
    # MiniMax's attn_type_list marks softmax attention 1 and lightning attention 0: all 1 is M2, every layer attention
    # (qa124); Llama 4's layer_types name its chunked layers, which are attention
    hybrid = next((k for k in HYBRID_KEYS if cfg.get(k) is not None
                   and not (k == "attn_type_list" and isinstance(cfg[k], list) and 0 not in cfg[k])), None)
    if cfg.get("layer_types") is not None and not isinstance(cfg.get("layer_types"), list):  # qa258: a string imported
        raise field_error(where, "layer_types", "a list of each layer's type", cfg["layer_types"])  # all full, warned
    layer_types = cfg.get("layer_types") or []
    unknown = next((t for t in layer_types if t not in (*ATTENTION_LAYER_TYPES, *NOT_ATTENTION_LAYER_TYPES)), None)
    if unknown is not None:  # qa258: 'weird_attention' was said to be a layer that is not attention
        raise field_error(where, "layer_types", "each a layer type this import knows: " + ", ".join(ATTENTION_LAYER_TYPES)
                          + " (attention, read) or " + ", ".join(NOT_ATTENTION_LAYER_TYPES) + " (not attention, refused)",
                          unknown)
    other = next((t for t in layer_types if t not in ATTENTION_LAYER_TYPES), None)
    if model_type.lower() in NOT_ALL_ATTENTION_TYPES and not hybrid:  # by its type where no key said it (qa209: Jamba's key
        hybrid = "model_type"  # is the one named)
    if hybrid or other:  # qa121: Qwen3-Next, Jamba, Nemotron-H and MiniMax-M1 imported as all attention, in silence
        raise field_error(where, hybrid or "layer_types", "a decoder whose every layer is attention (linear-attention and "
                          "state-space layers, and the fixed state they keep, are not modelled)", cfg[hybrid] if hybrid else other)
    defaults = {k: v for k, v in TYPE_DEFAULTS.get(model_type, {}).items() if k not in cfg and k not in config
                # a list of layer types says which layers slide: the pattern's default plays no part (qa463: noted)
                and not (k == "sliding_window_pattern" and isinstance(cfg.get("layer_types"), list) and cfg["layer_types"])}
    cfg = {**defaults, **cfg}
    layers = _int(cfg, where, "num_hidden_layers")
    if layers > MAX_LAYERS:  # the per-layer patterns below walk every layer (the fuzz's 1e300 hung; 2026-12-03)
        raise field_error(where, "num_hidden_layers", f"at most {MAX_LAYERS:,} layers", layers)
    hidden = _int(cfg, where, "hidden_size")
    heads = _int(cfg, where, "num_attention_heads")
    kv_heads = _int(cfg, where, "num_key_value_heads", default=heads)
    profile: dict = {"type": "model", "name": name, "display_name": display_name or name}
    mla = None
    if cfg.get("kv_lora_rank"):
        mla = {
            "q_lora_rank": _int(cfg, where, "q_lora_rank", default=0, allow_zero=True),
            "kv_lora_rank": _int(cfg, where, "kv_lora_rank"),
            "qk_nope_head_dim": _int(cfg, where, "qk_nope_head_dim"),
            "qk_rope_head_dim": _int(cfg, where, "qk_rope_head_dim"),
            "v_head_dim": _int(cfg, where, "v_head_dim"),
        }
        head_dim = mla["qk_nope_head_dim"] + mla["qk_rope_head_dim"]
    else:
        head_dim = _int(cfg, where, "head_dim", default=max(1, hidden // heads))
        if cfg.get("head_dim") is None and hidden % heads:  # transformers' hidden // heads: said (qa477: 5120 / 48
            warn(f"{where}: head_dim: not given, and hidden_size {hidden} is no whole number of its {heads} heads: "  # in silence)
                 f"taken as {hidden} // {heads} = {head_dim}, as transformers does; give head_dim if the model says another")
    ffn = _int(cfg, where, "intermediate_size_mlp", "intermediate_size") if str(cfg["model_type"]).startswith("llama4") \
        else _int(cfg, where, "intermediate_size")
    tied = cfg.get("tie_word_embeddings", config.get("tie_word_embeddings", False))
    if not isinstance(tied, bool):
        raise field_error(where, "tie_word_embeddings", "true or false", tied)
    profile.update({
        "source": source or f"transformers config.json imported with `roofline models import` from {Path(where).name}",
        "layers": layers, "hidden_size": hidden, "heads": heads, "kv_heads": kv_heads, "head_dim": head_dim,
        "ffn_size": ffn, "ffn_gated": _ffn_gated(cfg), "vocab_size": _int(cfg, where, "vocab_size"),
        **({"tokenizer": tokenizer} if tokenizer else {}), "tied_embeddings": tied,
    })
    if cfg.get("use_qk_norm") and str(cfg.get("qk_norm_type", "")).lower() == "per_layer":  # MiniMax-M2's: over all heads
        profile["qk_norm_all_heads"] = True
    if published_params is not None:
        profile["published_params"] = float(published_params)
    if published_active_params is not None:
        profile["published_active_params"] = float(published_active_params)
    groups, layer_groups = _sliding_groups(cfg, where, layers)
    attention: dict = {"kv_layout": "mla" if mla else "gqa", "groups": groups}
    if layer_groups:  # the order a pipeline stage's share is counted in (a stage of gpt-oss's alternating layers)
        attention["layer_groups"] = layer_groups
    if mla:
        attention["mla"] = mla
    sparse = None
    if cfg.get("index_topk") is not None:  # DeepSeek Sparse Attention: a lightning indexer picks each query's entries
        sparse = {"read_tokens": _int(cfg, where, "index_topk"), "index_dim": _int(cfg, where, "index_head_dim"),
                  "index_heads": _int(cfg, where, "index_n_heads")}
        attention["groups"] = [{**g, **sparse} if g["kind"] == "full" else g for g in attention["groups"]]
        key_bytes = sparse["index_dim"] + 4 * -(-sparse["index_dim"] // INDEX_SCALE_GROUP)  # fp8 values + 4 B scales
        attention["index_key_bytes"] = dict.fromkeys(KV_DTYPES, key_bytes)
        if mla:  # fp8 KV in FlashMLA's sparse layout (vLLM's fp8_ds_mla): the latent in fp8 with a 4 B scale a 128, RoPE
            # dims in bf16: 512 + 16 + 128 = 656 B for DeepSeek-V3.2 (FlashMLASparseBackend.get_kv_cache_shape)
            latent, rope = mla["kv_lora_rank"], mla["qk_rope_head_dim"]
            attention["kv_entry_bytes"] = {"fp8": latent + 4 * -(-latent // INDEX_SCALE_GROUP) + 2 * rope}
    profile["attention"] = attention
    moe = _moe(cfg, where, layers, hidden)
    if moe:
        profile["moe"] = moe
    precision = _precision(config, cfg, where, layers)
    if precision:
        profile["precision"] = precision
    longest = _trained_context(cfg, where)
    if longest:
        profile["max_context_tokens"] = longest
    mtp = _int(cfg, where, "num_nextn_predict_layers", default=0, allow_zero=True)
    if mtp:
        profile["mtp_modules"] = mtp
    elif cfg.get("num_mtp_modules") and cfg.get("use_mtp", True):  # MiniMax-M2's keys (qa121): said, not guessed
        warn(f"{where}: num_mtp_modules {cfg['num_mtp_modules']}: not imported (whether the checkpoint ships those "
             "modules' weights is not in config.json); set mtp_modules by hand where it does, for method mtp")
    notes = [f"Imported from a transformers config (model_type {cfg['model_type'] or 'unknown'})."]
    if not profile["ffn_gated"]:
        notes.append(f"Its MLP is two matrices (up, down; {cfg['model_type']} with {cfg.get('hidden_act', 'gelu')}), not a gated three.")
    if moe and moe["dense_layers"]:
        notes.append(f"{moe['dense_layers']} of {layers} layers have a dense MLP of ffn_size, "
                     + ("leading: a pipeline's first stage holds them." if moe.get("dense_placement") == "leading"
                        else "interleaved with the MoE layers: every pipeline stage holds its share."))
    if cfg.get("attention_chunk_size"):
        notes.append("Chunked local attention is modelled as a sliding window of one chunk: an upper bound on the KV a chunked layer holds and reads.")
    if mla:
        notes.append("head_dim = qk_nope_head_dim + qk_rope_head_dim; MLA weights and KV come from attention.mla.")
    if sparse:
        d, h = sparse["index_dim"], sparse["index_heads"]
        q_in = (mla or {}).get("q_lora_rank") or hidden
        notes.append(f"DeepSeek Sparse Attention: index_topk {sparse['read_tokens']} -> read_tokens (entries each query reads), "
                     f"index_head_dim {d} -> index_dim, index_n_heads {h} -> index_heads on the full-attention layers. Indexer "
                     f"keys are taken as vLLM (DeepseekV32IndexerCache) and SGLang (NSA pool) store them: {d} fp8 values and a "
                     f"4 B scale a {INDEX_SCALE_GROUP}, {attention['index_key_bytes']['fp8']} B a token and layer whatever "
                     f"the KV dtype (attention.index_key_bytes); an fp8 KV entry is FlashMLA's sparse layout (kv_entry_bytes: fp8 latent "
                     f"with a 4 B scale a {INDEX_SCALE_GROUP}, RoPE dims in bf16). The indexer's weights (wq_b, wk, weights_proj: "
                     f"{layers * (q_in * h * d + hidden * (d + h)) / 1e9:.2f}B) are not counted.")
    if isinstance(config.get("vision_config"), dict):  # a multimodal checkpoint's tower (qa447: Gemma 3's, unsaid)
        notes.append("The checkpoint's vision encoder (vision_config) is not counted: its weights, which an engine loads, "
                     "are left out of memory, so the largest batch that fits runs a little high.")
        warn(f"{where}: vision_config: the vision encoder's weights are not counted (the text decoder alone is imported)")
    if profile.get("qk_norm_all_heads"):  # (qa447: dropped unsaid)
        notes.append("Its QK norm spans all heads (qk_norm_type per_layer -> qk_norm_all_heads): split over tp, each "
                     "layer all-reduces the norm's sums of squares (vLLM's MiniMaxText01RMSNormTP, SGLang's "
                     "MiniMaxM2QKRMSNorm), a small collective a layer, priced.")
    if defaults:
        notes.append(f"Keys the config leaves out, given transformers' {model_type} defaults: "
                     + ", ".join(f"{k} {str(v).lower()}" for k, v in defaults.items()) + ".")
    profile["notes"] = " ".join(notes)
    return profile


def check_params(profile: dict, where: str) -> str:
    """One line comparing computed and published parameter counts; a warning when more than 5% apart.

    Publishers count active parameters with or without the input embedding (OpenAI's 5.13B for gpt-oss-120b and
    DeepSeek's 36.6B, "including 0.9B for the output head", leave it out; Qwen's 3.3B for Qwen3-30B-A3B and Meta's 17B
    for Llama 4 count it): the computed active count is compared in the convention nearer the published figure, which
    the line names; the warning, where neither is within 5%, gives both. A tied embedding is the LM head, which every
    token uses: there the two are one count."""
    spec = model_from_dict({k: v for k, v in profile.items()}, where)
    conventions = [("", spec.active_params)] if spec.tied_embeddings else [
        (" without the input embedding", spec.active_params - spec.embedding_params), (" with the input embedding", spec.active_params)]
    parts = []
    for label, counts, published in (("params", [("", spec.params)], spec.published_params),
                                     ("active", conventions, spec.published_active_params)):
        if published:
            said, computed = min(counts, key=lambda c: abs(c[1] / published - 1))
            off = computed / published - 1
            parts.append(f"{label} {computed / 1e9:.2f}B{said} (published {published / 1e9:.2f}B, {off:+.1%})")
            if all(abs(n / published - 1) > PARAM_TOLERANCE for _, n in counts):
                both = f" ({counts[1][1] / 1e9:.2f}B with it)" if len(counts) > 1 else ""
                warn(f"{where}: {label}: computed {counts[0][1] / 1e9:.2f}B{counts[0][0]}{both} is "
                     f"{counts[0][1] / published - 1:+.1%} from published {published / 1e9:.2f}B")
        else:
            parts.append(f"{label} {counts[-1][1] / 1e9:.2f}B")  # active: with the input embedding, as before
    return ", ".join(parts)


class _FlowList(list):
    """A list written on one line (flow style): a profile's layer_groups, one number a layer."""


yaml.SafeDumper.add_representer(_FlowList, lambda dumper, data: dumper.represent_sequence(
    "tag:yaml.org,2002:seq", data, flow_style=True))


def profile_to_yaml(profile: dict, command: str) -> str:
    """The profile as YAML with a header naming the command that made it (attention.layer_groups in flow style: a
    number a layer, wrapped at 100 columns, not a line each)."""
    header = f"# {comment_line(profile['display_name'])}: made with `{comment_line(command)}`\n"  # one line (qa246)
    attention = profile.get("attention") or {}
    if attention.get("layer_groups"):
        profile = {**profile, "attention": {**attention, "layer_groups": _FlowList(attention["layer_groups"])}}
    return header + yaml.safe_dump(profile, sort_keys=False, width=100, allow_unicode=True)



def import_hf_config(config_path: Path, name: str, out_dir: Path, force: bool = False, command: str = "",
                     **kwargs) -> tuple[Path, str]:
    """Read CONFIG, build and validate the profile, write OUT_DIR/NAME.yaml atomically; (path, params line)."""
    check_profile_name(name, "--name")
    check_not_shadowing("model", Path(out_dir) / f"{name}.yaml", force, "models import")
    from roofline.editing import check_no_other_file

    check_no_other_file(Path(out_dir) / f"{name}.yaml", force, "model", "models import")
    tokenizer = kwargs.get("tokenizer")
    if tokenizer is not None and (not isinstance(tokenizer, str) or (tokenizer and not tokenizer.strip())):
        raise RooflineError(f"--tokenizer: expected a tokenizer family like 'llama-3', found {tokenizer!r}")
    config = read_json_file(Path(config_path))
    profile = profile_from_hf_config(config, name, str(config_path), **kwargs)
    line = check_params(profile, str(config_path))
    text = profile_to_yaml(profile, command or f"roofline models import {config_path} --name {name}")
    path = Path(out_dir) / f"{name}.yaml"
    write_text_atomic(path, text, force, what="models import")
    return path, line
