"""MLA's prefill on a cached context: its non-absorbed form needs every cached token's K and V, and the cache holds the
latent alone, so the cached latents are up-projected by kv_b_proj (vLLM's MLACommonImpl._compute_prefill_context).
qa460: a 128-token prompt on DeepSeek-V3's 128k cached context priced 13 ms of attention and not the 33.5 TFLOP
expansion."""
import pytest

from roofline.costs import ACTIVATION_BYTES, operator_costs
from roofline.layout import deployment
from roofline.model import load_model

V3 = load_model("deepseek-v3")


def test_a_prefill_on_a_cached_context_up_projects_every_cached_latent_per_layer():
    dep = deployment(V3, tp=8)
    m = V3.mla
    cached, new = 131072, 128
    with_cache = operator_costs(V3, 1, new, cached, dep, logit_tokens=1, prefill=True)["qkv_proj"]
    without = operator_costs(V3, 1, new, 0, dep, logit_tokens=1, prefill=True)["qkv_proj"]
    per_entry = 128 / 8 * (m.qk_nope_head_dim + m.v_head_dim)  # the rank's 16 heads' K nope and V: 4,096 values
    assert per_entry == 4096 and m.kv_lora_rank == 512 and V3.layers == 61
    flops = 2 * 512 * 4096 * cached * 61  # 33.5 TFLOP a device
    assert float(with_cache[0] - without[0]) == pytest.approx(flops, rel=1e-12) and flops == pytest.approx(33.5e12, rel=2e-3)
    # the expanded K and V written, then read by attention: 2 x 131,072 x 4,096 x 2 B x 61 layers, 131 GB a device
    assert float(with_cache[1] - without[1]) == pytest.approx(2 * cached * 4096 * ACTIVATION_BYTES * 61, rel=1e-12)


def test_two_sequences_expand_their_own_caches_and_decode_and_gqa_expand_nothing():
    dep = deployment(V3, tp=8)
    one = operator_costs(V3, 1, 64, 4096, dep, logit_tokens=1, prefill=True)["qkv_proj"][0]
    two = operator_costs(V3, 2, 64, 4096, dep, logit_tokens=1, prefill=True)["qkv_proj"][0]
    none = operator_costs(V3, 1, 64, 0, dep, logit_tokens=1, prefill=True)["qkv_proj"][0]
    assert float(two - 2 * none) == pytest.approx(2 * float(one - none), rel=1e-12) and float(one - none) > 0
    # decode reads the latent in the absorbed form: no expansion, whatever the context
    decode = [float(operator_costs(V3, 1, 1, s, dep)["qkv_proj"][0]) for s in (0, 131072)]
    assert decode[0] == decode[1]
    llama = load_model("llama-3.1-8b")
    gqa = [float(operator_costs(llama, 1, 64, s, deployment(llama), logit_tokens=1, prefill=True)["qkv_proj"][0]) for s in (0, 8192)]
    assert gqa[0] == gqa[1]


@pytest.mark.slow
def test_predicts_ttft_on_a_cached_128k_prefix_pays_the_expansion():
    """The expansion's time, at least its FLOPs at the fp8 peak, is in the TTFT of a 128-token prompt on 128k cached."""
    from roofline import predict
    from roofline.hardware import load_hardware

    kw = dict(hardware="h200", model="deepseek-v3", batch=1, context=131200, tp=8, engine="ideal")
    cached = predict(prompt=131200, shared_prefix=131072, **kw)["ttft_s"]
    alone = predict(prompt=128, **kw)["ttft_s"]
    fp8_flops_per_s = load_hardware("h200").compute_ceiling_flops_per_s("fp8")
    assert cached - alone >= 33.5e12 / fp8_flops_per_s
