"""Capacity terms (capacity.py) the suite did not pin, found by mutation testing (qa465): the reserve a pipeline stage's
usable-memory line names, the memory an engine holds before it measures its share at a pure pipeline layout, and a
reserve exactly at the engine's share."""

from dataclasses import replace

import pytest

from roofline.capacity import held_before_share_bytes, reserved_bytes, usable_bytes_for, usable_memory_text
from roofline.hardware import load_hardware
from roofline.layout import deployment
from roofline.model import load_model
from roofline.serving import ServingEngine, load_engine

H100 = load_hardware("h100-sxm")


@pytest.mark.slow
def test_a_stage_without_the_lm_head_names_a_reserve_without_the_samplers_logits():
    """vLLM's reserve at tp 2: 0.12 GiB + 0.79 GiB (parallel) = 977 MB on every stage, and on the last the sampler's
    float32 logits too, 4 B x 151,936 x 6.2 copies x 1,024 sequences = 3.86 GB: 4.84 GB (capacity.reserved_bytes).
    The line of a stage before the last names the 977 MB it reserves (qa465 C36: every stage said 4.84 GB)."""
    model = load_model("qwen3-235b-a22b")
    vllm = load_engine("vllm").for_hardware(H100)
    dep = deployment(model, tp=2, pp=4)
    base = 0.12 * 2**30 + 0.79 * 2**30
    logits = 4 * 151936 * 6.2 * 1024
    assert reserved_bytes(vllm, H100, model.vocab_size, dep, sampler=False) == pytest.approx(base, rel=1e-12)
    for stage in (0, 1, 2):
        assert usable_memory_text(H100, model, dep.at_stage(stage), vllm) == "vllm's 0.9 of 85.5 GB less 977 MB reserved"
    assert base + logits == pytest.approx(4.8356e9, rel=1e-4)
    assert usable_memory_text(H100, model, dep.at_stage(3), vllm) == "vllm's 0.9 of 85.5 GB less 4.84 GB reserved"


def test_the_communicators_held_before_the_share_are_a_stage_of_several_devices_not_a_pipeline():
    """C = memory_before_share + memory_before_share_parallel [D > 1], D = tp x dp_attention the devices of a stage
    (module docstring), as the parallel reserve is: tp 1 x pp 2 holds no communicators' C (qa465 C14: counted on N)."""
    model = load_model("llama-3.1-8b")
    eng = ServingEngine(memory_fraction=0.8, memory_before_share_bytes=1e9, memory_before_share_parallel_bytes=0.5e9)
    assert held_before_share_bytes(eng, deployment(model)) == 1e9
    assert held_before_share_bytes(eng, deployment(model, pp=2)) == 1e9
    assert held_before_share_bytes(eng, deployment(model, tp=2)) == 1.5e9
    assert held_before_share_bytes(eng, deployment(model, dp_attention=2)) == 1.5e9
    m = H100.engine_mem_bytes
    # no reserve: usable = f (M - C), the same on each stage of tp 1 x pp 2 as on one device
    for stage in (0, 1):
        assert usable_bytes_for(H100, model, deployment(model, pp=2).at_stage(stage), eng) == pytest.approx(0.8 * (m - 1e9), rel=1e-12)
    assert usable_bytes_for(H100, model, deployment(model, tp=2), eng) == pytest.approx(0.8 * (m - 1.5e9), rel=1e-12)


def test_a_reserve_exactly_the_engines_share_leaves_no_memory_and_says_so():
    """(f M - R)(M - C)/M at R = f M is 0: the line says no memory is left (the R >= f M branch), not a share of 0.000
    'the share it logs' (qa465 C12: R > f M missed the equality)."""
    model = load_model("llama-3.1-8b")
    m = H100.engine_mem_bytes
    eng = ServingEngine(name="half", memory_fraction=0.5, memory_reserved_bytes=0.5 * m, memory_before_share_bytes=1e9)
    dep = deployment(model)
    assert reserved_bytes(eng, H100, model.vocab_size, dep) == 0.5 * m  # no sampler sequences: no logits
    assert usable_bytes_for(H100, model, dep, eng) == 0.0
    assert usable_memory_text(H100, model, dep, eng).startswith("no memory left: the layout's reserve")
    near = replace(eng, memory_reserved_bytes=0.25 * m)  # below the share: (0.5 - 0.25) of M - C
    assert usable_bytes_for(H100, model, dep, near) == pytest.approx(0.25 * (m - 1e9), rel=1e-12)
    assert usable_memory_text(H100, model, dep, near).startswith("half's 0.250, the share it logs")


def test_an_engine_holding_the_whole_device_before_its_share_says_no_memory_is_left():
    """M - C = 0 (the base_bytes <= 0 branch): nothing to take a share of, said as no memory left, usable 0 (qa465 C40:
    '< 0' printed 'ctx's 0.5 of 0 B (...)')."""
    model = load_model("llama-3.1-8b")
    m = H100.engine_mem_bytes
    eng = ServingEngine(name="ctx", memory_fraction=0.5, memory_before_share_bytes=m)
    dep = deployment(model)
    assert usable_bytes_for(H100, model, dep, eng) == 0.0
    assert usable_memory_text(H100, model, dep, eng).startswith("no memory left: 85.5 GB less the 85.5 GB held by its GPU context")


def test_resident_weights_given_replace_the_models_at_a_pipeline_layout_too():
    """`weights_bytes` replaces the model's resident weights (capacity's docstring) whatever the layout: at pp 2 the
    figures are the described stage's (busiest_stage: llama-3.1-8b's 16 / 16 layers tie, the last, index 1, holds the
    LM head) with the weights given (qa465 C44: pp 2 looped over the stages with the model's own weights; C41: stage 0
    named). No caller passes both today (a drafter on its own device is pp 1: layout.single_device)."""
    from roofline.capacity import capacity
    from roofline.costs import kv_cache_bytes

    model = load_model("llama-3.1-8b")
    dep = deployment(model, pp=2)
    out = capacity(H100, model, 4, 1024, dep, weights_bytes=3e9)
    assert float(out["weight_bytes"]) == 3e9
    assert int(out["stage"]) == 1
    assert float(out["memory_needed_bytes"]) == pytest.approx(3e9 + kv_cache_bytes(model, 4, 1024, dep), rel=1e-12)
    # llama-3.1-8b's KV: 16 layers of 8 KV heads x 128 x 2 (K, V) x 2 B = 64 KiB a token on a stage of 16 layers
    assert float(out["kv_bytes"]) == 4 * 1024 * 16 * 8 * 128 * 2 * 2


def test_a_share_by_device_count_counts_every_device_of_the_replica_pipeline_stages_too():
    """f = memory_fraction_by_devices' f_N of the largest N <= N, N = tp x dp_attention x pp the replica's devices
    (module docstring): sglang-early at tp 2 x pp 2 is 4 devices, f = 0.85 (not tp 2's 0.87), of M - C = 85.5 GB less
    its context's and communicators' 2.48 GB: 0.85 x (85,520,809,984 - 2,480,343,613.44) (qa465 C51, C52: N taken as
    the stage's 2 devices)."""
    model = load_model("llama-3.1-70b")
    eng = load_engine("sglang-early").for_hardware(H100)
    dep = deployment(model, tp=2, pp=2)
    c = held_before_share_bytes(eng, dep)
    assert c == pytest.approx(2_480_343_613.44, rel=1e-12)
    for stage in (0, 1):
        d = dep.at_stage(stage)
        assert usable_bytes_for(H100, model, d, eng) == pytest.approx(0.85 * (85_520_809_984 - c), rel=1e-12)
        assert usable_memory_text(H100, model, d, eng).startswith("sglang-early's 0.85 at 4 devices of 83 GB")


def test_a_drafters_bytes_a_sequence_count_the_busiest_groups_whole_sequences():
    """needed = ... + extra_per_sequence x B_a, B_a = ceil(B / dp_attention): 9 sequences over 8 attention-DP groups
    put 2 on the busiest, so 1 MB a sequence adds 2 MB (qa465 C55: 9 / 8 = 1.125 MB)."""
    from roofline.capacity import capacity

    model = load_model("llama-3.1-8b")
    dep = deployment(model, dp_attention=8)
    with_extra = capacity(H100, model, 9, 1024, dep, extra_bytes_per_seq=1e6)["memory_needed_bytes"]
    without = capacity(H100, model, 9, 1024, dep)["memory_needed_bytes"]
    assert float(with_extra - without) == 2e6


def test_memory_holding_no_bytes_a_sequence_caps_max_batch_at_no_cap_batch_not_an_overflow():
    """A Medusa head holds no KV cache (speculation.drafter_spec: no layers): on a device of its own its max batch is
    NO_CAP_BATCH, 2^62, the mark of no cap (speculation reads it so), not floor(usable / 1e-30) cast to int64
    (qa465 C60: the clamp dropped, -2^63)."""
    from roofline.capacity import NO_CAP_BATCH, capacity
    from roofline.layout import single_device
    from roofline.speculation import drafter_spec

    target = load_model("vicuna-7b-v1.3")
    head = drafter_spec("medusa", target)
    assert head.layers == 0 and float(head.kv_cache_bytes_per_sequence(1024)) == 0.0
    out = capacity(H100, head, 4, 1024, single_device(deployment(target)), weights_bytes=1e9)
    assert NO_CAP_BATCH == 2**62 and int(out["max_batch"]) == 2**62
    assert bool(out["fits_in_memory"]) and float(out["kv_bytes"]) == 0.0


def test_a_free_share_with_the_weights_and_reserve_filling_the_device_exactly_says_no_memory_is_left():
    """M - C - W - R = 0 exactly (R = M - W, llama-3.1-8b's 16,060,522,496 B of bf16 weights on 85,520,809,984 B):
    usable = min(W, M - R) + f x 0 = W, no byte for a KV cache; the line says no memory is left beside the weights
    (the free_bytes <= 0 branch; qa465 C39: '< 0' offered 0.9 of nothing)."""
    from roofline.costs import weight_bytes

    model = load_model("llama-3.1-8b")
    dep = deployment(model)
    w = weight_bytes(model, dep)
    assert w == 2 * 8_030_261_248 and H100.engine_mem_bytes == 85_520_809_984
    eng = ServingEngine(name="free", memory_fraction=0.9, memory_fraction_of="free", memory_reserved_bytes=H100.engine_mem_bytes - w)
    assert usable_bytes_for(H100, model, dep, eng, w) == w
    assert usable_memory_text(H100, model, dep, eng) == "no memory left beside the weights: 85.5 GB less free's 69.5 GB reserve"
