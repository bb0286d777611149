"""Memory: what a deployment needs, whether it fits, the largest batch (capacity.py, the one function every caller uses)."""

from dataclasses import replace

import numpy as np
import pytest

from roofline.capacity import capacity
from roofline.hardware import load_hardware
from roofline.layout import deployment
from roofline.model import load_model
from roofline.serving import for_engine, load_engine

H200 = load_hardware("h200")
LLAMA = load_model("llama-3.1-8b")


def test_max_batch_is_the_last_batch_that_fits():
    dep = deployment(LLAMA)
    cap = int(capacity(H200, LLAMA, 1, 8192, dep)["max_batch"])
    assert bool(capacity(H200, LLAMA, cap, 8192, dep)["fits_in_memory"])
    assert not bool(capacity(H200, LLAMA, cap + 1, 8192, dep)["fits_in_memory"])


def test_a_shared_prefix_is_stored_once():
    dep = deployment(LLAMA)
    plain = capacity(H200, LLAMA, 16, 34816, dep)
    shared = capacity(H200, LLAMA, 16, 34816, dep, shared_prefix=32768)
    per_token = 131072  # bytes of KV per token, bf16
    # 16 sequences x 34,816 tokens against one 32,768-token prefix + 16 x 2,048 own tokens
    assert float(plain["kv_bytes"]) == pytest.approx(16 * 34816 * per_token)
    assert float(shared["kv_bytes"]) == pytest.approx((32768 + 16 * 2048) * per_token)
    assert int(shared["max_batch"]) > 10 * int(plain["max_batch"])


def test_attention_dp_splits_the_batch_over_groups_and_caps_in_whole_groups():
    ds = load_model("deepseek-v3")
    dep = deployment(ds, dp_attention=8, ep=8)
    cap = capacity(H200, ds, np.array([1, 8, 9]), 4096, dep)
    assert int(cap["max_batch"][0]) % 8 == 0
    # batch 9 puts 2 sequences on the busiest group, batch 8 one each
    kv = cap["kv_bytes"]
    assert float(kv[2]) == pytest.approx(2 * float(kv[1])) and float(kv[0]) == pytest.approx(float(kv[1]))


def test_extra_drafter_bytes_lower_the_cap():
    dep = deployment(LLAMA)
    base = int(capacity(H200, LLAMA, 1, 8192, dep)["max_batch"])
    with_drafter = int(capacity(H200, LLAMA, 1, 8192, dep, extra_bytes=2.5e9, extra_bytes_per_seq=8192 * 8192)["max_batch"])
    assert with_drafter < base


def test_sglangs_hybrid_window_pool_charges_window_layers_for_every_token():
    """SGLang sizes a sliding-window pool of 0.8 x the full pool's tokens for a model with full and sliding layers
    (--swa-full-tokens-ratio), so a long sequence pays 0.8 of its window layers' entries per token: gpt-oss-120b on one
    H200 at 131,072 tokens admits 8 sequences there, not the 14 a window-capped cache holds, in the hardware profile's
    0.90 of the memory (qa82's pool arithmetic); in each engine's own share of it (0.907 of an H200 for SGLang, 0.90
    less a reserve for vLLM: capacity.usable_bytes_for) 8 and 13."""
    import roofline
    from roofline.costs import kv_cache_bytes

    gpt = load_model("gpt-oss-120b")
    dep = deployment(gpt)
    full = [g for g in gpt.groups if g.kind == "full"][0]
    window = [g for g in gpt.groups if g.kind == "sliding"][0]
    entry = {g.kind: gpt.cache_bytes_per_layer(g, 1.0, 1, "bf16") for g in (full, window)}
    for s in (100, 4096, 131072):  # below the window, the pool of window entries binds: m / r entries on a full layer
        m = min(s, window.window)
        expected = full.layers * entry["full"] * max(s, m / 0.8) + window.layers * entry["sliding"] * max(0.8 * s, m)
        assert float(kv_cache_bytes(gpt, 1, s, dep, window_pool_ratio=0.8)) == pytest.approx(expected, rel=1e-12)
    assert float(kv_cache_bytes(gpt, 1, 131072, dep)) < float(kv_cache_bytes(gpt, 1, 131072, dep, window_pool_ratio=0.8))
    points = {e: roofline.predict("h200", "gpt-oss-120b", context=131072, engine=e) for e in ("vllm", "sglang")}
    assert {e: p["max_batch"] for e, p in points.items()} == {"vllm": 13, "sglang": 8}
    h200 = load_hardware("h200")
    in_090 = {e: int(capacity(h200, gpt, 1, 131073, dep, engine=replace(load_engine(e), memory_fraction=None))["max_batch"])
              for e in ("vllm", "sglang")}
    assert in_090 == {"vllm": 14, "sglang": 8}
    # predict says which sized it (qa84): the KV line named no pool
    assert points["sglang"]["kv_window_pool_ratio"] == 0.8 and points["vllm"]["kv_window_pool_ratio"] is None
    from roofline.tables import predict_table
    assert "sglang's window pool holds the sliding layers at 0.8 x" in predict_table(points["sglang"])
    assert "window pool" not in predict_table(points["vllm"])
    assert roofline.predict("h200", "llama-3.1-8b", engine="sglang")["kv_window_pool_ratio"] is None  # full layers only
    # a model of full layers only is charged what it stores, whatever the engine
    assert float(kv_cache_bytes(LLAMA, 4, 8192, deployment(LLAMA), window_pool_ratio=0.8)) == float(kv_cache_bytes(LLAMA, 4, 8192, deployment(LLAMA)))


def test_deepseek_v4s_compressor_state_is_held_per_sequence_whatever_its_length():
    """The compressors' fp32 kv_state and score_state (deepseek-ai inference/model.py Compressor: (coff x ratio,
    coff x head_dim) a sequence, coff 2 at ratio 4) were left out: 12.2 MB a sequence, 1.64x the cache at 4k (qa82)."""
    from roofline.costs import kv_cache_bytes

    v4 = load_model("deepseek-v4-flash")
    csa, hca = [g for g in v4.groups if g.kind == "compressed"]
    assert csa.state_bytes == 2 * 4 * (2 * 4) * (2 * 512) + 2 * 4 * (2 * 4) * (2 * 128) and hca.state_bytes == 2 * 4 * 128 * 512
    dep = deployment(v4, tp=8, kv_dtype="fp8")
    state = csa.layers * csa.state_bytes + hca.layers * hca.state_bytes
    assert state == 12_206_080
    one, two = (float(kv_cache_bytes(v4, b, 4096, dep)) for b in (1, 2))
    assert two - one == pytest.approx(one)  # per sequence, not shared
    shared = float(kv_cache_bytes(v4, 2, 4096, dep, shared_prefix=4000))
    assert shared > state * 2  # a shared prefix is stored once; each sequence keeps its own state


def test_a_layers_fixed_state_is_held_once_under_the_window_pool_not_per_token():
    """state_bytes on a sliding group was scaled by the sequence's length under SGLang's pool (1.89 GB at 131k; qa83)."""
    import dataclasses

    from roofline.costs import kv_cache_bytes

    gpt = load_model("gpt-oss-120b")
    groups = tuple(dataclasses.replace(g, state_bytes=1000) if g.kind == "sliding" else g for g in gpt.groups)
    stateful = dataclasses.replace(gpt, groups=groups)
    sliding = [g for g in gpt.groups if g.kind == "sliding"][0]
    for ratio in (None, 0.8):
        added = float(kv_cache_bytes(stateful, 1, 131072, deployment(stateful), window_pool_ratio=ratio)
                      - kv_cache_bytes(gpt, 1, 131072, deployment(gpt), window_pool_ratio=ratio))
        assert added == pytest.approx(sliding.layers * 1000)


def test_a_drafter_on_its_own_device_is_charged_that_devices_window_pool():
    """The drafter's KV on another device took the target device's window_kv_pool_ratio (an engine override per
    hardware may differ; qa85): its own device's value sizes its memory."""
    from roofline.capacity import kv_shared_and_per_sequence_bytes
    from roofline.serving import ServingEngine
    from roofline.speculation import drafter_deployment, speculation_capacity

    target, draft = load_model("llama-3.1-70b"), load_model("gpt-oss-120b")  # a drafter with sliding layers
    dep = deployment(target, tp=8)
    d_dep = drafter_deployment("draft", draft, dep, True)
    h100 = load_hardware("h100-sxm")
    pool = {r: ServingEngine(window_kv_pool_ratio=r) for r in (None, 0.8)}
    out = {r: speculation_capacity(H200, target, 1, 131072, dep, "draft", draft, d_dep, h100, None, True,
                                   engine=pool[0.8], draft_engine=pool[r]) for r in (None, 0.8)}
    _, capped = kv_shared_and_per_sequence_bytes(draft, 131072, d_dep)
    _, pooled = kv_shared_and_per_sequence_bytes(draft, 131072, d_dep, window_pool_ratio=0.8)
    assert pooled > capped
    weights = float(out[None]["drafter_memory_bytes"]) - float(capped)
    assert float(out[0.8]["drafter_memory_bytes"]) - float(pooled) == pytest.approx(weights)


def test_an_engines_share_of_the_memory_and_its_reserve_by_hand():
    """capacity.py's usable memory: f M - R on the device (vLLM, SGLang), W + f (M - W - R) of the free memory
    (TensorRT-LLM's kind), R = reserved + parallel on a stage of more than one device (tp x dp_attention) + 4 B x
    vocabulary x copies x sequences (1024, or 256 on a device under 70 GiB or an A100: vLLM's default max_num_seqs);
    none of it without memory_fraction (ideal)."""
    from roofline.capacity import reserved_bytes, usable_bytes_for
    from roofline.serving import ServingEngine

    h100, a100, l4 = load_hardware("h100-sxm"), load_hardware("a100-sxm-80gb"), load_hardware("l4")
    model = load_model("llama-3.1-8b")
    eng = ServingEngine(memory_fraction=0.9, memory_reserved_bytes=1e9, memory_reserved_parallel_bytes=0.5e9,
                        sampler_sequences=1024, sampler_sequences_small=256, sampler_logit_copies=2.0)
    logits = 4 * 128256 * 2.0
    one, two = deployment(model), deployment(model, tp=2)
    assert reserved_bytes(eng, h100, model.vocab_size, one) == pytest.approx(1e9 + logits * 1024, rel=1e-12)
    assert reserved_bytes(eng, h100, model.vocab_size, two) == pytest.approx(1.5e9 + logits * 1024, rel=1e-12)
    assert reserved_bytes(eng, a100, model.vocab_size, one) == pytest.approx(1e9 + logits * 256, rel=1e-12)  # an A100
    assert reserved_bytes(eng, l4, model.vocab_size, one) == pytest.approx(1e9 + logits * 256, rel=1e-12)  # 24 GB
    layout = replace(eng, memory_reserved_per_device_bytes=0.1e9, memory_reserved_per_dp_group_bytes=2e9)  # SGLang's kind
    assert reserved_bytes(layout, h100, model.vocab_size, one) == reserved_bytes(eng, h100, model.vocab_size, one)  # one device
    assert reserved_bytes(layout, h100, model.vocab_size, deployment(model, dp_attention=8)) == pytest.approx(
        1.5e9 + logits * 1024 + 7 * 0.1e9 + 8 * 2e9, rel=1e-12)  # 8 devices of a stage (qa172: parallel at tp 1 too), 8 groups
    assert reserved_bytes(eng, h100, model.vocab_size, deployment(model, pp=2)) == reserved_bytes(eng, h100, model.vocab_size, one)
    assert reserved_bytes(layout, h100, model.vocab_size, deployment(model, tp=4, pp=4)) == pytest.approx(
        1.5e9 + logits * 1024 + 15 * 0.1e9, rel=1e-12)  # tp 4 x pp 4: no DP attention
    dep = deployment(model, tp=2)
    r = 1.5e9 + logits * 1024
    assert usable_bytes_for(h100, model, dep, eng, 8e9) == pytest.approx(0.9 * h100.mem_bytes - r, rel=1e-12)
    free = replace(eng, memory_fraction_of="free")
    assert usable_bytes_for(h100, model, dep, free, 8e9) == pytest.approx(8e9 + 0.9 * (h100.mem_bytes - 8e9 - r), rel=1e-12)
    # weights past the free memory leave none: the device's memory less R, never above it (qa172: 86.6 GB of 85.5)
    assert usable_bytes_for(h100, model, dep, free, 2 * h100.mem_bytes) == pytest.approx(h100.mem_bytes - r, rel=1e-12)
    # a reserve past the device leaves nothing usable, not a negative size (qa173: "-129.2 GB usable")
    huge = replace(eng, memory_reserved_bytes=2 * h100.mem_bytes)
    assert usable_bytes_for(h100, model, dep, huge, 8e9) == 0.0
    assert usable_bytes_for(h100, model, dep, replace(huge, memory_fraction_of="free"), 8e9) == 0.0
    assert usable_bytes_for(h100, model, dep, replace(eng, memory_fraction=None), 8e9) == h100.usable_mem_bytes
    # capacity sizes the batch in it: the KV cache of one 1024-token sequence a device at tp 2 is 64 KiB a token
    cap = capacity(h100, model, 1, 1024, dep, engine=eng)
    per_seq = 1024 * 64 * 1024
    assert int(cap["max_batch"]) == int((0.9 * h100.mem_bytes - r - float(cap["weight_bytes"])) // per_seq)


@pytest.mark.slow
def test_a_serving_engines_share_on_a_system_on_chip_is_of_the_memory_its_gpu_may_wire():
    """qa253: vLLM's 0.9 was taken of an M4 Max's whole 128 GiB of unified memory (120 GB usable), past macOS's cap on
    what its GPU may wire (the profile's usable_memory_fraction 0.70); a GPU's share stays of its whole memory."""
    from roofline.capacity import reserved_bytes, usable_bytes_for, usable_memory_text

    mac, h100, model = load_hardware("apple-m4-max"), load_hardware("h100-sxm"), load_model("llama-3.1-8b")
    assert mac.engine_mem_bytes == pytest.approx(0.70 * mac.mem_bytes) and h100.engine_mem_bytes == h100.mem_bytes
    dep, vllm, trtllm = deployment(model), load_engine("vllm"), load_engine("trtllm")
    r = reserved_bytes(vllm, mac, model.vocab_size, dep)
    assert usable_bytes_for(mac, model, dep, vllm) == pytest.approx(0.9 * 0.70 * mac.mem_bytes - r, rel=1e-12)
    w, rt = 16e9, reserved_bytes(trtllm, mac, model.vocab_size, dep)
    assert usable_bytes_for(mac, model, dep, trtllm, w) == pytest.approx(w + 0.9 * (0.70 * mac.mem_bytes - w - rt), rel=1e-12)
    assert usable_bytes_for(mac, model, dep, None) == mac.usable_mem_bytes  # ideal: the profile's share, as before
    assert usable_memory_text(mac, model, dep, vllm).startswith(
        "vllm's 0.9 of 96.2 GB (the GPU's 70% of 137 GB unified memory) less")
    assert usable_bytes_for(h100, model, dep, vllm) == pytest.approx(0.9 * h100.mem_bytes - reserved_bytes(vllm, h100, model.vocab_size, dep))


@pytest.mark.slow
def test_a_pipeline_stage_holds_the_kv_cache_of_the_attention_layers_it_holds_in_the_models_order():
    """qa255: each stage was charged its flat share of every group's KV; gpt-oss-120b's last stage of 9 layers at pp 4
    (layers 27-35, sliding and full alternating from a sliding layer 0) holds 5 full layers, not 4.5: max batch 45 at
    131,071 tokens where 40 fit."""
    from roofline.costs import kv_cache_bytes

    gpt = load_model("gpt-oss-120b")
    assert gpt.layer_groups[:4] == (1, 0, 1, 0) and gpt.groups[0].kind == "full"  # layer 0 sliding (groups[1])
    dep = deployment(gpt, pp=4)
    per_token_layer = 8 * 64 * 2 * 2  # 8 KV heads x 64 x K and V x bf16
    for stage, full in ((0, 4), (3, 5)):
        at = dep.at_stage(stage)
        assert at.stage_group_layers(gpt) == (full, 9 - full)
        assert float(kv_cache_bytes(gpt, 1, 131071, at)) == pytest.approx(
            (full * 131071 + (9 - full) * 128) * per_token_layer, rel=1e-12)
    assert deployment(gpt, pp=4).mean_stage().stage_group_layers(gpt) == (4.5, 4.5)
    h100 = load_hardware("h100-sxm")
    cap = capacity(h100, gpt, 1, 131071, dep, engine=load_engine("vllm"))
    assert int(cap["max_batch"]) == 40
    unordered = replace(gpt, layer_groups=())  # no order given: each group's share, as before
    assert unordered.group_layers_between(27, 9) == (4.5, 4.5)


@pytest.mark.slow
def test_every_stage_of_another_mix_of_attention_layers_is_checked_and_the_heaviest_paces_the_step():
    """qa257, qa258: stages of one layer count were taken as one kind whatever attention layers they held: gpt-oss-120b
    at pp 8 (stages of 5 layers with 2 and with 3 full ones) gave max batch 118 where the 3's hold 84, and its step
    was the 2's; DeepSeek-V4-Flash at pp 4 gave 185 from stage 1 (5 CSA layers) where stage 3 (6) holds 159."""
    import roofline

    gpt = roofline.predict("h100-sxm", "gpt-oss-120b", 8, 131071, engine="vllm", pp=8)
    assert (gpt["max_batch"], gpt["max_batch_stage"]) == (84, 4)  # index 4: stage 5 of 8
    gpt_model = load_model("gpt-oss-120b")
    dep = for_engine(deployment(gpt_model, pp=8), load_engine("vllm"), gpt_model)
    assert dep.stage_counts(36) == [4, 4, 4, 5, 5, 5, 5, 4] and dep.at_stage(3).stage_group_layers(gpt_model) == (2, 3)
    assert dep.busiest_stage(gpt_model) == 4 and dep.at_stage(4).stage_group_layers(gpt_model) == (3, 2)  # 3 full
    v4 = roofline.predict("h100-sxm", "deepseek-v4-flash", 8, 131072, engine="vllm", pp=4)
    assert (v4["max_batch"], v4["max_batch_stage"]) == (159, 2)  # stage 3 of 4


@pytest.mark.slow
def test_a_drafter_on_the_targets_devices_is_said_against_the_usable_memory_it_has_under_a_free_share():
    """qa172: under trtllm's share of the free memory a co-located draft model's weights move the usable memory (its
    0.1 stays with them); predict's 'with its drafter ... does not fit' line gave plain decoding's 79.0 GB, not 79.1."""
    import roofline

    p = roofline.predict("h100-sxm", "llama-3.1-70b", 64, 4096, engine="trtllm", tp=2, method="draft", draft="llama-3.2-1b",
                         alpha=0.7)
    usable = p["spec"]["drafter_usable_memory_bytes"]
    assert usable > p["usable_memory_bytes"] + 0.05e9  # 0.1 of the drafter's 1.2 GB of weights a device and more
    (line,) = [w for w in p["warnings"] if w.startswith("does not fit in memory: with its drafter")]
    assert f"of {usable / 1e9:.1f} GB usable" in line


@pytest.mark.slow
def test_a_free_share_with_no_memory_beside_the_weights_says_so():
    """qa173: trtllm's usable memory on four L4 for a 70B model was the device less the reserve, said as '0.9 of what
    24.2 GB leaves beside them': a formula that does not give it."""
    import roofline

    p = roofline.predict("l4", "llama-3.1-70b", 1, 1024, engine="trtllm", tp=4)
    assert not p["fits_in_memory"] and p["usable_memory_text"].startswith("no memory left beside the weights: 24.2 GB less")


@pytest.mark.slow
def test_a_reserve_above_the_engines_share_is_said_as_no_memory_not_a_negative_share():
    """qa402: SGLang at attention DP 64 printed 'sglang's -1.373, the share it logs' (its reserve, 189 GB, past 0.835 of
    85.5 GB): no server logs a negative share; said as no memory left, and how to give the layout a larger one."""
    import roofline

    p = roofline.predict("h100-sxm", "deepseek-v3", 2048, 1024, tp=4, dp_attention=64, ep=256, engine="sglang")
    assert not p["fits_in_memory"] and p["usable_memory_bytes"] == 0
    assert p["usable_memory_text"].startswith("no memory left: the layout's reserve, ") and "-1." not in p["usable_memory_text"]
    assert "is at least sglang's 0.835 of 85.5 GB" in p["usable_memory_text"] and "--set memory_fraction=" in p["usable_memory_text"]


@pytest.mark.slow
def test_a_batch_above_vllms_default_max_num_seqs_is_said():
    """vLLM runs at most max_num_seqs sequences at once (1024 by default, 256 on a device under 70 GiB or an A100:
    the profile's sampler_sequences); a batch above it was priced as if it ran, without a word."""
    import roofline

    def said(**kw):
        return [w for w in roofline.predict(**kw)["warnings"] if "sequences at once" in w and "max_num_seqs" in w]

    (a100,) = said(hardware="a100-sxm-80gb", model="llama-3.1-8b", batch=400, context=512)
    assert "at most 256 sequences at once on a100-sxm-80gb" in a100 and "sampler_sequences_small" in a100
    assert not said(hardware="h100-sxm", model="llama-3.1-8b", batch=400, context=512)  # 1,024 there
    assert said(hardware="h100-sxm", model="llama-3.2-1b", batch=2000, context=256)
    assert not said(hardware="a100-sxm-80gb", model="llama-3.1-8b", batch=400, context=512, engine="sglang")  # no S
    assert not said(hardware="a100-sxm-80gb", model="llama-3.1-8b", batch=4000, context=512)  # memory binds: said so
    dp = dict(hardware="h200", model="deepseek-v3", context=256, tp=1, dp_attention=8, ep=8)  # an engine core a DP group
    assert not said(batch=1500, **dp) and "at most 8,192 sequences at once on h200 by default (1,024 in each of its 8" in said(batch=9000, **dp)[0]


def test_the_samplers_logits_are_reserved_on_the_last_pipeline_stage_alone():
    """qa245: vLLM runs its dummy sampler on the last pipeline rank only (profile_run: `if get_pp_group().is_last_rank`);
    every stage was charged its 3.86 GB of logits, so Qwen3-235B at tp 2 pp 4 on H100 fitted 123 sequences, a middle
    stage named as setting memory."""
    from roofline.capacity import usable_bytes_for
    from roofline.serving import load_engine

    h100, model = load_hardware("h100-sxm"), load_model("qwen3-235b-a22b")
    vllm = load_engine("vllm").for_hardware(h100)
    dep = deployment(model, tp=2, pp=4)
    logits = 4 * model.vocab_size * vllm.sampler_logit_copies * 1024
    first, last = dep.at_stage(0), dep.at_stage(3)
    assert usable_bytes_for(h100, model, first, vllm) - usable_bytes_for(h100, model, last, vllm) == pytest.approx(logits)
    import roofline

    p = roofline.predict("h100-sxm", "qwen3-235b-a22b", 64, 4096, tp=2, pp=4, engine="vllm")
    assert p["pipeline"]["memory_stage"] == 3 and p["max_batch"] == 147  # the last stage, its LM head and logits, binds
    assert "less 4.84 GB reserved" in p["usable_memory_text"]  # that stage's reserve, the logits in it


def test_a_max_batch_set_by_another_stage_than_the_one_shown_says_which():
    """qa251: Qwen3-235B tp 2 pp 4 on H200 printed stage 4's figures (which hold 756) beside max batch 744, stage 2's."""
    import roofline
    from roofline.tables import predict_table

    p = roofline.predict("h200", "qwen3-235b-a22b", 64, 4096, tp=2, pp=4, engine="vllm")
    assert p["pipeline"]["memory_stage"] == 3 and p["max_batch_stage"] == 1
    line = next(x for x in predict_table(p).splitlines() if x.strip().startswith("fits in memory"))
    assert f"max batch {p['max_batch']:,}, set by stage 2 of 4)" in line
    flat = roofline.predict("h200", "llama-3.1-8b", 64, 4096)
    assert "set by stage" not in predict_table(flat)


def test_no_other_stage_is_named_for_a_max_batch_the_shown_stage_holds_too():
    """qa252: 'max batch 0, set by stage 1 of 2' where no stage fits one sequence (a tie argmin settled on the first)."""
    import roofline
    from roofline.tables import predict_table

    p = roofline.predict("h200", "qwen3-235b-a22b", 64, 4096, tp=1, pp=2, engine="vllm")
    assert p["max_batch"] == 0 and p["max_batch_stage"] == p["pipeline"]["memory_stage"]
    assert "set by stage" not in predict_table(p)


# qa387's surviving mutants of capacity.py
def test_a_drafters_bytes_per_sequence_count_each_attention_groups_sequences():
    """extra_per_sequence x B_a: 16 sequences over 8 attention-DP groups hold 2 each (C17: x B, 16 each)."""
    h200, ds = load_hardware("h200"), load_model("deepseek-v3")
    dep = deployment(ds, tp=1, dp_attention=8, ep=8)
    bare = capacity(h200, ds, 16, 4096, dep)["memory_needed_bytes"]
    drafter = capacity(h200, ds, 16, 4096, dep, extra_bytes_per_seq=1e9)["memory_needed_bytes"]
    assert float(drafter - bare) == pytest.approx(2e9)


def test_memory_needed_equal_to_usable_fits():
    """fits = needed <= usable (C23: <, where max_batch still said 3 fit)."""
    h200, m = load_hardware("h200"), load_model("llama-3.1-8b")
    dep = deployment(m)
    usable = float(capacity(h200, m, 1, 8192, dep)["usable_memory_bytes"])
    kv_per_sequence = 8192 * 131072  # the context_len tokens it is given (callers add the pass's own), 128 KiB a token
    exact = capacity(h200, m, 3, 8192, dep, weights_bytes=usable - 3 * kv_per_sequence)
    assert float(exact["memory_needed_bytes"]) == pytest.approx(usable, rel=1e-12)
    assert bool(exact["fits_in_memory"]) and int(exact["max_batch"]) == 3


def test_the_running_cap_is_said_only_past_it_and_a_device_of_68_gib_takes_vllms_small_default():
    """C4: vLLM's 1,024 at batch 1,024 is no warning; C1: vLLM's 256 sequences below 70 GiB (its default for a device
    of less memory: a user profile of 68 GiB)."""
    from roofline.capacity import default_sequences, running_cap_note

    h200, m, vllm = load_hardware("h200"), load_model("llama-3.1-8b"), load_engine("vllm")
    assert running_cap_note(vllm, h200, 1024, deployment(m)) == ""
    assert running_cap_note(vllm, h200, 1025, deployment(m)).startswith("batch 1,025 under vllm: it runs at most 1,024")
    h100 = load_hardware("h100-sxm")
    assert default_sequences(vllm, replace(h100, mem_bytes=68 * 2**30)) == 256
    assert default_sequences(vllm, replace(h100, mem_bytes=71 * 2**30)) == 1024


def test_a_shared_prefix_is_held_once_when_the_batch_is_counted():
    """C14: max batch of Llama-3.1-8B on an H200 at 34,816 tokens, 32,768 of them a prefix held once: the rest, 2,048 of
    128 KiB a sequence, divide what the weights and the prefix leave."""
    h200, m = load_hardware("h200"), load_model("llama-3.1-8b")
    dep = deployment(m)
    got = capacity(h200, m, 1, 34816, dep, shared_prefix=32768)
    usable, weights = float(got["usable_memory_bytes"]), float(got["weight_bytes"])
    per_sequence = (34816 + 1 - 32768) * 131072
    assert int(got["max_batch"]) == int((usable - weights - 32768 * 131072) // per_sequence) == 429
