"""engine.py at its edges (qa448: mutation testing of engine.py and speculation.py, 100 mutants; these kill
the engine.py survivors that were not equivalent; no bug)."""

import dataclasses

import pytest

from roofline.engine import collective_times_s, embedding_reduce_time_s, lm_head_gather_time_s, step_metrics
from roofline.hardware import load_hardware
from roofline.layout import deployment
from roofline.model import load_model
from roofline.serving import for_engine, load_engine
from roofline.speculation import drafter_deployment, drafter_spec

H100, H200 = load_hardware("h100-sxm"), load_hardware("h200")
LLAMA8, LLAMA70, V3 = load_model("llama-3.1-8b"), load_model("llama-3.1-70b"), load_model("deepseek-v3")


@pytest.mark.parametrize("model, tp, pp, added_s", [(LLAMA8, 1, 1, 32 * 10e-6), (LLAMA70, 4, 2, 2 * 40 * 10e-6)])
def test_layer_overhead_adds_the_layers_of_the_term_that_sets_the_step(model, tp, pp, added_s):
    """layers_stage x layer_overhead in t_body (10 us a layer), batch 8: pp 1, 32 layers: +320 us; pp 2, m = 2 paced
    passes of the busiest stage's 40 layers: +800 us (the paced term sets the step: the head is paid m times)."""
    dep = deployment(model, tp=tp, pp=pp)
    base = float(step_metrics(H100, model, 8, 1, 8192, dep)["step_time_s"])
    more = float(step_metrics(dataclasses.replace(H100, layer_overhead_s=10e-6), model, 8, 1, 8192, dep)["step_time_s"])
    assert more - base == pytest.approx(added_s, rel=1e-9)


@pytest.mark.parametrize("tp, pp, batch", [(2, 1, 8), (2, 2, 1), (2, 2, 8), (4, 2, 3)])
def test_an_ideal_step_is_its_reported_operator_comm_and_overhead_times(tp, pp, batch):
    """t_device = max(round trip, paced) + t_p2p + step_overhead is exactly operator_time_s + comm_time_s + overhead_s
    where no host work or launch bounds it (IDEAL): the head's gathers and layer overheads on the term that sets it."""
    hw = dataclasses.replace(H100, layer_overhead_s=10e-6)
    m = step_metrics(hw, LLAMA70, batch, 1, 4096, deployment(LLAMA70, tp=tp, pp=pp))
    parts = float(m["operator_time_s"] + m["comm_time_s"] + m["overhead_s"])
    assert float(m["step_time_s"]) == pytest.approx(parts, rel=1e-12)
    assert float(m["host_time_s"]) == 0.0 and not bool(m["launch_bound"])


@pytest.mark.slow  # about 0.2 s in a fresh process: the first read of sglang.yaml
def test_an_lm_head_split_over_the_stage_pays_two_latencies_and_one_ring_of_hidden_states_and_logits():
    """t_head_gather = 2 lat + t_ring(D, R (h + V) 2) over the stage (SGLang's): DeepSeek-V3 at dp 8 on an H200, R = 72
    padded rows: 2 x 6 us + 72 x (7168 + 129280) x 2 B x 7/8 / 396 GB/s = 55.415 us."""
    sglang = load_engine("sglang").for_hardware(H200)
    dep = for_engine(deployment(V3, tp=1, dp_attention=8, ep=8), sglang, V3)
    assert "lm_head" in dep.stage_split
    got = float(lm_head_gather_time_s(H200, V3, dep, sglang, 72.0, 9.0))
    assert got == pytest.approx(2 * 6e-6 + 72 * (7168 + 129280) * 2 * 7 / 8 / 396e9, rel=1e-12)


def test_a_medusa_heads_pass_has_no_embedding_to_all_reduce():
    """t_embed_reduce is 0 for Medusa's heads (no embedding: they run on the target's last hidden state), so at tp 4 the
    pass's only tp collective is the LM head's logit gather."""
    vllm = load_engine("vllm").for_hardware(H100)
    heads = drafter_spec("medusa", LLAMA70)
    dep = drafter_deployment("medusa", heads, deployment(LLAMA70, tp=4), False)
    assert float(embedding_reduce_time_s(H100, heads, dep, vllm, 8.0)) == 0.0
    m = step_metrics(H100, heads, 8, 1, 1024, dep, engine=vllm)
    assert float(m["allreduce_time_s"]) == pytest.approx(float(lm_head_gather_time_s(H100, heads, dep, vllm, 8.0, 8.0)), rel=1e-12)


def test_routed_experts_whole_on_each_device_are_not_gathered():
    """t_moe_gather only where each routed expert is split over g = D / ep > 1 devices: Qwen3-30B-A3B at dp 8, ep 8
    (g = 1) under a DeepEP dispatch pays none; at ep 4 (g = 2) it pays one."""
    qwen = load_model("qwen3-30b-a3b")
    sglang = dataclasses.replace(load_engine("sglang").for_hardware(H200), moe_dispatch="per_rank")
    whole = deployment(qwen, tp=1, dp_attention=8, ep=8)
    assert float(collective_times_s(H200, qwen, whole, sglang, 64.0, 1.0)["moe_gather_time_s"]) == 0.0
    split = deployment(qwen, tp=1, dp_attention=8, ep=4)
    assert float(collective_times_s(H200, qwen, split, sglang, 64.0, 1.0)["moe_gather_time_s"]) > 0.0
