"""How a model is deployed: the parallel layout over devices and the precision of each weight class.

Parallel layout of one model replica (the batch B is the replica's batch):

    devices per pipeline stage   D = tp * dp_attention
    devices                      N = D * pp
    attention (qkv, attention, KV write, o), dense MLP, shared experts, embedding, LM head:
        split over the tp devices of an attention group and replicated over the dp_attention groups (the MoE router
        whole on every device, as vLLM's ReplicatedLinear gate and SGLang's MoEGate hold it); but the classes of
        `stage_split` (an engine's dp_attention_stage_split, SGLang's by default) split over all D devices of the stage
        and run on its gathered B q tokens (Deployment.split_of, costs, engine.collective_times_s's dp_gather), and
        those of `whole` (its dp_attention_whole: SGLang's input embedding, early SGLang's LM head) held whole on every device,
        and those of `sequence_split` (vLLM's sequence-parallel MoE: shared experts, router) held whole, each tp rank
        running 1/tp of its group's tokens;
        each group decodes B / dp_attention sequences and holds and reads only their KV cache
        (GQA KV heads split over tp, one replicated on each rank once tp > kv_heads, its K and V weights too; an
        MLA latent is replicated over tp, and so are MLA's down-projections q_a and kv_a and a low-rank query's
        down-projection (DeepSeek-V4's wq_a), whole on every rank as vLLM and SGLang hold them:
        model.qkv_params_per_layer_per_device).
    routed experts: experts / ep experts per EP rank, each expert's matrices split over D / ep devices.
    pipeline: the layers split over pp stages as the engine splits them (Deployment.stage_counts: L // pp each, the
        remainder one each on stages of the engine's choosing, or all of it on the last stage in the engines' older
        versions), each kind of layer in its share where a MoE model's dense layers
        are interleaved, leading ones in the first stages; the time of a step is the busiest stage's, the one of most
        MoE layers (Deployment.stage_layers, busiest_stage), and memory is checked on every kind of stage, the first
        holding the embedding and the last the LM head (capacity.py); the batch is cut into min(B, pp) micro-batches.

Checks (one line each, exit code 2 from the CLI): heads % tp == 0; kv_heads % tp == 0 or tp % kv_heads
== 0 (KV heads replicated when tp > kv_heads; not for MLA, whose one latent KV is whole on every rank); D % ep == 0 and experts % ep == 0 (EP needs an MoE model);
pp <= layers. A checkpoint with block scales (`precision.block`, DeepSeek-V3's 128 x 128 fp8) is loaded by the
engines only where each rank's shard holds whole blocks: shard_note says where it does not, or where a width does not split evenly (a warning).

Precision: a model profile may declare the checkpoint's native dtype per weight class (`precision:`
in docs/PROFILES.md; gpt-oss-120b ships MXFP4 experts, DeepSeek-V3 fp8 blocks); `weight_dtype`
overrides every class (a quantised one all but the embedding, the LM head and the router, below),
`expert_dtype` the routed (and shared) experts only. Without either, a class the profile does not name is bf16.

A quantised `weight_dtype` (fp8, int8, w8a16, int4, fp4, nvfp4) leaves the embedding, the LM head and an MoE layer's
router at the model's native dtype, as quantised checkpoints ship them: vLLM's llm-compressor recipes quantise the
Linear layers with `ignore=["lm_head"]` (examples/big_models_with_accelerate/cpu_offloading_fp8.py; its
model_free_ptq example for an MoE model, examples/model_free_ptq/glm_4.6_fp8_block.py, ignores "re:.*gate$",
"lm_head" and "model.embed_tokens"), and DeepSeek-V3's and gpt-oss's own fp8 / MXFP4 checkpoints keep all three in
bf16 (their model profiles). A 16- or 32-bit `weight_dtype` (bf16, fp16, fp32) applies to every class.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field, replace

from roofline.errors import RooflineError
from roofline.limits import DEGREE_MAX
from roofline.model import KV_DTYPES, WEIGHT_CLASSES, WEIGHT_DTYPES
from roofline.profiles import normalize_dtype

QUANTISED_DTYPES = ("fp8", "int8", "w8a16", "int4", "fp4", "nvfp4")  # narrower than 16 bits: a quantised checkpoint
EXPERT_CLASSES = ("experts", "shared_experts")  # what expert_dtype sets; no weights in a dense model
MOE_CLASSES = (*EXPERT_CLASSES, "router")  # classes a dense model has no weights in
UNQUANTISED_CLASSES = ("embedding", "lm_head", "router")  # kept at the native dtype by a quantised weight_dtype (module docstring)
# which stages take an uneven pipeline split's extra layers, one each (Deployment.stage_counts; an engine's pp_remainder)
PP_REMAINDERS = {"last": "the last stages, one each", "before_last": "the stages before the last, one each",
                 "first": "the first stages, one each", "last_all": "the last stage, all of them",
                 "none": "no stage: the engine has no pipeline parallelism (pp > 1 priced as last, warned)"}
#   (SGLang's, vLLM's and TensorRT-LLM's splits in their current versions, and each one's before: Deployment.stage_counts)

# which weight class each operator of roofline.costs streams
OPERATOR_CLASS = {
    "qkv_proj": "attention", "o_proj": "attention", "mlp": "mlp", "router": "router",
    "experts": "experts", "shared_experts": "shared_experts", "embedding": "embedding", "input_proj": "embedding", "lm_head": "lm_head",
}


def describe_layout(tp: int, dp_attention: int = 1, ep: int = 1, pp: int = 1) -> str:
    """'tp 1, dp-attention 8, ep 8': tp always, each other degree where above 1 (tables, warnings, figure titles)."""
    parts = [f"tp {int(tp)}", *(f"{name} {int(v)}" for name, v in (("dp-attention", dp_attention), ("ep", ep), ("pp", pp)) if v > 1)]
    return ", ".join(parts)


def layouts_of_rows(df) -> list[str]:
    """The layouts (describe_layout) a results table's rows hold, in their order; a column the table lacks is 1."""
    keys = [c for c in ("tp", "dp_attention", "ep", "pp") if c in df]
    rows = df[keys].drop_duplicates().itertuples(index=False, name=None) if keys else []
    return list(dict.fromkeys(describe_layout(**dict(zip(keys, row))) for row in rows))


@dataclass(frozen=True)
class Deployment:
    """A layout and the dtype of every weight class and of the KV cache."""

    tp: int = 1
    dp_attention: int = 1
    ep: int = 1
    pp: int = 1
    dtypes: dict = field(default_factory=lambda: dict.fromkeys(WEIGHT_CLASSES, "bf16"), hash=False)  # compared, not hashed
    kv_dtype: str = "bf16"
    has_experts: bool = True  # False for a dense model: its expert classes hold no weights and are left out of labels
    has_mtp: bool = True      # False for a model without MTP modules: its mtp class is left out of labels
    has_mlp: bool = True      # False for a MoE model without dense layers: its mlp class holds no weights (qa465)
    stage: str | int = "busiest"  # the stage stage_layers and stage_group_layers describe: "busiest", "mean" (layers / pp
    #   each), or a stage's index (0 the first: at_stage)
    stage_split: tuple = ()   # classes split over the stage's D devices under attention DP, not a group's tp (for_engine)
    whole: tuple = ()         # classes held whole on every device under attention DP, not split over tp (for_engine)
    sequence_split: tuple = ()  # classes held whole, each tp rank running 1/tp of its group's tokens (for_engine)
    pp_remainder: str = "last"  # the stages that take an uneven split's extra layers (PP_REMAINDERS; for_engine)
    mla_absorbed_bf16: bool = False  # an MLA model's kv_b_proj also held, and read in decode, as 16-bit W_UK / W_UV
    #   (an engine's mla_absorbed_bf16: vLLM's; for_engine)

    def split_of(self, cls: str) -> int:
        """The devices a non-expert class `cls` is split over: D = tp * dp_attention for a class of stage_split (on
        the stage's gathered tokens), 1 for a class of `whole` or `sequence_split`, else tp (on its attention
        group's)."""
        if cls in self.stage_split:
            return self.devices_per_stage
        return 1 if cls in self.whole or cls in self.sequence_split else self.tp

    @property
    def devices_per_stage(self) -> int:
        """D = tp * dp_attention."""
        return self.tp * self.dp_attention

    @property
    def devices(self) -> int:
        """N = tp * dp_attention * pp."""
        return self.devices_per_stage * self.pp

    def stage_counts(self, layers: int) -> list[int]:
        """The layers of each pipeline stage, first to last, as the engine splits them: L // pp each, and the r = L % pp
        left over where pp_remainder (PP_REMAINDERS) puts them: "last", one more on each of the last r stages (SGLang
        since its PR 13977); "before_last", one more on each of the r before the last (vLLM since its PR 13839,
        partitions[-2] back to partitions[-(r+1)]); "first", one more on each of the first r (TensorRT-LLM since its PR
        4399, torch.tensor_split); "last_all", all r on the last stage (each engine before those: DeepSeek-V3's 61
        layers at pp 8 were 7 x 7 and 12)."""
        base, extra = divmod(layers, self.pp)  # "none" (an engine without pipeline parallelism) as "last"
        if self.pp_remainder == "last_all":
            return [base] * (self.pp - 1) + [base + extra]
        first = {"first": 0, "before_last": self.pp - 1 - extra}.get(self.pp_remainder, self.pp - extra)
        return [base + (first <= i < first + extra) for i in range(self.pp)]

    def stage_table(self, model) -> list[tuple[float, float, float]]:
        """(layers, MoE layers, dense layers) of each pipeline stage, first to last (stage_counts): leading dense layers
        (DeepSeek-V3's three) in the first stages' layers, interleaved ones (moe.dense_placement, Llama-4-Maverick's)
        and a dense model's layers in every stage in their share of its layers."""
        counts = self.stage_counts(model.layers)
        if model.moe is not None and model.moe.dense_placement == "leading":
            rows, start = [], 0
            for count in counts:
                dense = max(0, min(start + count, model.dense_layers) - start)
                rows.append((float(count), float(count - dense), float(dense)))
                start += count
            return rows
        return [(float(c), c * model.moe_layers / model.layers, c * model.dense_layers / model.layers) for c in counts]

    def busiest_stage(self, model) -> int:
        """The index of the stage stage_layers describes (`stage` an index: that one): the stage of most MoE layers,
        then most layers, then most attention that grows with the context (a full layer 1, a compressed one 1 / ratio,
        a sliding one 0, in the model's layer order: qa257, gpt-oss-120b at pp 8 was paced by a stage of 2 full layers
        beside one of 3), then the last (it holds the LM head), then the first (the embedding): DeepSeek-V3's 61 layers
        at pp 2 are 31/30 under vLLM and TensorRT-LLM (28 MoE and 3 dense, then 30 MoE: the second, 30) and 30/31
        under SGLang (the second, 31); at pp 4 vLLM's 15/15/16/15 put 16 MoE layers on the third, TensorRT-LLM's
        16/15/15/15 15 on the last."""
        if isinstance(self.stage, int):
            return self.stage
        rows = self.stage_table(model)
        last = len(rows) - 1
        counts = self.stage_counts(model.layers)
        growth = [0.0 if g.kind == "sliding" else 1.0 / g.ratio if g.kind == "compressed" else 1.0 for g in model.groups]

        def attention(i: int) -> float:
            return sum(n * w for n, w in zip(model.group_layers_between(sum(counts[:i]), counts[i]), growth))
        return max(range(len(rows)), key=lambda i: (rows[i][1], rows[i][0], attention(i), i == last, i == 0))

    def stage_group_layers(self, model) -> tuple[float, ...]:
        """Layers of each of the model's attention groups on the described stage: the model's own without pp, g.layers /
        pp on the mean stage, else those among the stage's layers (stage_counts; ModelSpec.group_layers_between: counted
        in the model's layer order where its profile gives one, layer_groups; qa255: gpt-oss-120b at pp 4 gave its last
        stage 4.5 full-attention layers, where it holds 5)."""
        if self.pp <= 1:
            return tuple(float(g.layers) for g in model.groups)
        if self.stage == "mean":
            return tuple(g.layers / self.pp for g in model.groups)
        counts = self.stage_counts(model.layers)
        index = self.busiest_stage(model)
        return model.group_layers_between(sum(counts[:index]), counts[index])

    def mean_stage(self) -> Deployment:
        """This deployment with stage_layers and stage_group_layers describing the mean stage (layers / pp of each kind):
        pp of its passes are one pass over every layer of the model, the round trip of a micro-batch (engine.py)."""
        return replace(self, stage="mean")

    def at_stage(self, index: int) -> Deployment:
        """This deployment with stage_layers, stage_group_layers and the head it holds describing stage `index` (0 the first):
        capacity.py checks every stage's memory."""
        return replace(self, stage=index)

    def holds_head(self, model) -> tuple[bool, bool]:
        """(embedding, LM head): whether the described stage holds them: the first stage the embedding, the last the LM
        head (both without pp); the mean stage, neither alone (weight_bytes_by_class gives it the larger)."""
        if self.pp <= 1:
            return True, True
        if self.stage == "mean":
            return False, False
        index = self.busiest_stage(model)
        return index == 0, index == self.pp - 1

    def stage_layers(self, model) -> tuple[float, float, float]:
        """(layers, MoE layers, dense layers) of the described stage: the busiest (busiest_stage) of stage_table, a
        given index's, or the mean stage's (mean_stage: layers / pp of each kind); the model's own counts without pp."""
        if self.pp <= 1:
            return float(model.layers), float(model.moe_layers), float(model.dense_layers)
        if self.stage == "mean":
            return model.layers / self.pp, model.moe_layers / self.pp, model.dense_layers / self.pp
        return self.stage_table(model)[self.busiest_stage(model)]

    @property
    def expert_tp(self) -> int:
        """Devices each routed expert's matrices are split over: D / ep."""
        return self.devices_per_stage // self.ep

    def dtype(self, weight_class: str) -> str:
        return self.dtypes[weight_class]

    @property
    def weight_dtype_label(self) -> str:
        """The dtype of the decoder blocks' weights other than the experts (attention, dense MLP, MTP), 'mixed' when
        they differ; the embedding, LM head and router of a quantised checkpoint stay in 16 bits and do not count, and the
        experts have a label of their own (expert_dtype_label), so the two tell a sweep's dtype configs apart."""
        used = {d for c, d in self.dtypes.items() if c not in UNQUANTISED_CLASSES and c not in EXPERT_CLASSES
                and self._holds(c)}  # (qa465: Qwen3-30B-A3B's empty mlp and mtp classes, bf16, made fp8 attention 'mixed')
        return used.pop() if len(used) == 1 else "mixed"

    def _holds(self, weight_class: str) -> bool:
        """Whether the model has weights of `weight_class` (a dense model no experts or router, a MoE model without
        dense layers no dense MLP, a model without MTP modules no mtp)."""
        return ((self.has_experts or weight_class not in MOE_CLASSES) and (self.has_mtp or weight_class != "mtp")
                and (self.has_mlp or weight_class != "mlp"))

    @property
    def expert_dtype_label(self) -> str:
        """The routed experts' dtype, '' for a dense model."""
        return self.dtypes["experts"] if self.has_experts else ""

    def describe(self) -> str:
        """'tp 1, dp-attention 8, ep 8' style label for tables (describe_layout)."""
        return describe_layout(self.tp, self.dp_attention, self.ep, self.pp)

    def to_json(self) -> dict:
        return {"tp": self.tp, "dp_attention": self.dp_attention, "ep": self.ep, "pp": self.pp, "devices": self.devices,
                "weight_dtypes": {c: d for c, d in self.dtypes.items() if self._holds(c)},
                "kv_dtype": self.kv_dtype}


def _degree(value: object, what: str) -> int:
    """A parallel degree: an integer (Python's or numpy's) in 1..DEGREE_MAX, as a Python int; a whole float (2.0) is
    taken as one, as predict takes batch=8.0 (qa101)."""
    if isinstance(value, float) and not isinstance(value, bool) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= value <= DEGREE_MAX:
        raise RooflineError(f"{what}: expected an integer in 1..{DEGREE_MAX}, found {value!r}")
    return int(value)


def deployment(model, weight_dtype: str | None = None, kv_dtype: str = "bf16", tp: int = 1, dp_attention: int = 1,
               ep: int = 1, pp: int = 1, expert_dtype: str | None = None, where: str = "options") -> Deployment:
    """The checked Deployment of `model`: layout degrees against its shapes, dtypes resolved per class.

    Precedence per weight class: expert_dtype (experts and shared experts) > weight_dtype > the model's
    native precision for that class > bf16.
    """
    tp, dp_attention, ep, pp = (_degree(v, f"{where}: {n}") for v, n in
                                ((tp, "tp"), (dp_attention, "dp_attention"), (ep, "ep"), (pp, "pp")))
    if model.heads % tp:
        raise RooflineError(f"{where}: tp: expected a divisor of the model's {model.heads} attention heads ({model.name}), found {tp}")
    if model.kv_layout != "mla" and model.kv_heads % tp and tp % model.kv_heads:
        raise RooflineError(f"{where}: tp: expected a divisor or a multiple of the model's {model.kv_heads} KV heads ({model.name}), found {tp}")
    d = tp * dp_attention
    if ep > 1:
        if model.moe is None:
            raise RooflineError(f"{where}: ep: expected 1 for a dense model ({model.name} has no experts), found {ep}")
        if model.moe.experts % ep:
            raise RooflineError(f"{where}: ep: expected a divisor of the model's {model.moe.experts} experts, found {ep} "
                                f"(redundant experts, EPLB's, are not modelled: a divisor such as "
                                f"{max(d for d in range(1, ep) if model.moe.experts % d == 0)} is the nearest below)")
        if d % ep:
            raise RooflineError(f"{where}: ep: expected a divisor of tp x dp_attention = {d} device{'' if d == 1 else 's'} per stage, found {ep}")
    if pp > model.layers:
        raise RooflineError(f"{where}: pp: expected at most the model's {model.layers} layers, found {pp}")
    dtypes = dict.fromkeys(WEIGHT_CLASSES, "bf16")
    dtypes.update(dict(model.native_precision))
    if weight_dtype is not None:
        chosen = normalize_dtype(weight_dtype, WEIGHT_DTYPES, where, "weight_dtype")
        kept = UNQUANTISED_CLASSES if chosen in QUANTISED_DTYPES else ()
        dtypes = {c: dtypes[c] if c in kept else chosen for c in WEIGHT_CLASSES}
    if expert_dtype is not None:
        if model.moe is None:
            raise RooflineError(f"{where}: expert_dtype: expected only for a mixture-of-experts model ({model.name} has no "
                                f"experts), found {expert_dtype!r}")
        dtypes["experts"] = dtypes["shared_experts"] = normalize_dtype(expert_dtype, WEIGHT_DTYPES, where, "expert_dtype")
    return Deployment(tp=tp, dp_attention=dp_attention, ep=ep, pp=pp, dtypes=dtypes,
                      kv_dtype=normalize_dtype(kv_dtype, KV_DTYPES, where, "kv_dtype"), has_experts=model.moe is not None,
                      has_mtp=model.mtp_modules > 0, has_mlp=model.dense_layers > 0)


def single_device(dep: Deployment) -> Deployment:
    """The same precision on one device (a drafter placed on its own hardware): nothing split, nothing gathered."""
    return replace(dep, tp=1, dp_attention=1, ep=1, pp=1, stage_split=(), whole=(), sequence_split=(), pp_remainder="last")


def main_gemm_dtype(model, dep: Deployment) -> str:
    """The dtype of the GEMMs that stream most of a model's weights: the MLP's, an MoE model's routed experts'. A ridge
    point quoted for a whole step is this dtype's; an operator in another dtype has its own."""
    return dep.dtype("mlp" if model.moe is None else "experts")


def _shard_widths(model, dep: Deployment) -> list[tuple[str, str, int, int]]:
    """(weight class, what, width, ways) of every row-parallel GEMM's input a tensor-parallel shard splits: the dense
    MLP's ffn over tp, the shared experts' over tp (each over D where the engine splits it over the stage:
    Deployment.split_of), a routed expert's over D / ep, the attention output's heads x v_dim over tp."""
    v_dim = model.mla.v_head_dim if model.mla is not None else model.head_dim
    widths = ([("mlp", "the dense MLP", model.ffn_size, dep.split_of("mlp"))] if (model.moe is None or model.moe.dense_layers)
              else [])
    if model.moe is not None:
        widths.append(("experts", "a routed expert", model.moe.expert_ffn_size, dep.expert_tp))
        if model.moe.shared_experts:
            widths.append(("shared_experts", "the shared experts", model.moe.shared_ffn_width, dep.split_of("shared_experts")))
    widths.append(("attention", "the attention output", model.heads * v_dim, dep.tp))
    return widths


INT4_GROUP = 128  # int4's scale group along a GEMM's input (model.BYTES_PER_ELEMENT counts one fp16 scale a 128)


def group_note(model, dep: Deployment) -> str:
    """'llama-3.1-70b at tp 64: int4's groups of 128 ...' where a tensor-parallel shard of an int4 class holds part of a
    scale group along its input: vLLM's Marlin kernels refuse it ("Weight input_size_per_partition = ... is not
    divisible by group_size = 128. Consider reducing tensor_parallel_size or running with --quantization gptq",
    marlin_utils.verify_marlin_supports_shape), so it runs on the slower plain GPTQ kernel if at all: a warning, not a
    layout the frontier leaves out (shard_note's are). '' where every int4 shard holds whole groups (qa119)."""
    cut = [f"{what} {width:,} / {ways} = {width // ways:,}" for cls, what, width, ways in _shard_widths(model, dep)
           if ways > 1 and not width % ways and dep.dtype(cls) == "int4" and (width // ways) % INT4_GROUP]
    if not cut:
        return ""
    return (f"{model.name} at {dep.describe()}: int4's scale groups of {INT4_GROUP} do not divide the columns a device holds "
            f"({'; '.join(cut)}): vLLM's Marlin kernels refuse such a shard (its plain GPTQ kernel, slower than priced here, "
            "may run it); a smaller tp keeps the groups whole")


FP8_BLOCK = 128  # the block of a block-scaled FP8 checkpoint (weight_block_size [128, 128]: DeepSeek's, Qwen's -FP8)


def fp8_block_note(model, dep: Deployment) -> str:
    """'qwen3-235b-a22b at tp 8: fp8 weights of a model whose checkpoint is not fp8: ...' where the deployment quantises a class to
    fp8 that the model's own checkpoint holds in another dtype, and a tensor-parallel shard of it is not a whole
    number of 128-wide blocks: a block-scaled FP8 checkpoint (weight_block_size [128, 128], as the model makers' own
    FP8 releases are) cannot be split so, and vLLM and SGLang refuse to load it (vllm-project/vllm issue 17569:
    Qwen3-235B-A22B-FP8 at tp 8, "The output_size of gate's and up's weight = 192 is not divisible by weight
    quantization block_n = 128"); a per-channel or per-tensor FP8 checkpoint loads. A warning (which checkpoint is
    the user's is not known here); '' where every such shard holds whole blocks (qa423)."""
    native = dict(model.native_precision)
    cut = [f"{what} {width:,} / {ways} = {width // ways:,}" for cls, what, width, ways in _shard_widths(model, dep)
           if ways > 1 and not width % ways and dep.dtype(cls) == "fp8" and native.get(cls) != "fp8"
           and (width // ways) % FP8_BLOCK]
    if not cut:
        return ""
    return (f"{model.name} at {dep.describe()}: fp8 weights of a model whose checkpoint is not fp8: an FP8 checkpoint with "
            f"{FP8_BLOCK} x {FP8_BLOCK} block scales (as the model makers' own FP8 releases have) cannot be split so "
            f"({'; '.join(cut)}), and vLLM and SGLang refuse to load it (vLLM issue 17569); a per-channel or per-tensor "
            "FP8 checkpoint loads, as priced here")


def dp_spelling_note(dep: Deployment) -> str:
    """'tp 8, dp-attention 8 is 64 devices here ...' where tp and dp_attention are equal and above 1: SGLang spells its
    DP attention on 8 GPUs `--tp 8 --dp 8 --enable-dp-attention` (its tp counts every device), which is tp 1,
    dp_attention 8 here; written as SGLang writes it, the layout is tp x dp_attention devices (qa405: 64, said only by
    predict's header and a sweep's table). '' else."""
    if dep.tp <= 1 or dep.tp != dep.dp_attention:
        return ""
    n = dep.tp
    return (f"{dep.describe()} is {dep.devices:,} devices here (dp-attention groups of tp devices each), as meant if "
            f"{dep.devices:,} are; SGLang's --tp {n} --dp {n} --enable-dp-attention on {n} GPUs is tp 1, dp-attention {n} "
            f"here (ep {n} for its experts with --enable-ep-moe or DeepEP)")


def shard_note(model, dep: Deployment) -> str:
    """'deepseek-v3 at tp 32: ...' where a tensor-parallel shard would hold a fraction of a column (the width does not
    divide among the devices) or, in a block-quantised class (model.quant_block, in the checkpoint's own dtype), a part
    of a block: vLLM and SGLang refuse to load either ("... is not divisible by weight quantization block_n = 128").
    Widths a device holds: the dense MLP's ffn / tp, the shared experts' ffn / tp, a routed expert's ffn / (D / ep),
    the attention output's heads x v_dim / tp. '' where every shard is whole."""
    block = getattr(model, "quant_block", 0)
    native = dict(model.native_precision)
    widths = _shard_widths(model, dep)

    def blocked(cls: str) -> int:  # square block scales are fp8 / int8's (fp4's scales are groups along one dim)
        return block if block and native.get(cls) in ("fp8", "int8") and dep.dtype(cls) == native.get(cls) else 0

    uneven = [f"{what} {width:,} / {ways} = {width // ways:,} remainder {width % ways}" for cls, what, width, ways in widths
              if ways > 1 and width % ways]  # (qa387: '14,335 / 2 = 7168', a whole number, said not whole)
    cut = [f"{what} {width:,} / {ways} = {width // ways:,}" for cls, what, width, ways in widths
           if ways > 1 and not width % ways and blocked(cls) and (width // ways) % blocked(cls)]
    parts = ([f"the columns a device holds are not whole ({'; '.join(uneven)})"] if uneven else []) + (
        [f"the checkpoint's {block} x {block} block scales do not divide the columns a device holds ({'; '.join(cut)})"] if cut else [])
    if not parts:
        return ""
    return f"{model.name} at {dep.describe()}: {' and '.join(parts)}: vLLM and SGLang refuse to load such a shard"
