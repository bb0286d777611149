"""What `roofline predict` prints (tables.py) that the suite did not pin, found by mutation testing (qa496).
Every figure is worked from the JSON's own terms (or the profile's datasheet values) by the equations the lines say."""


import pytest

import roofline
from roofline.tables import predict_table

pytestmark = pytest.mark.slow  # each predict searches break-even and best k


def _line(text: str, start: str) -> str:
    (line,) = [line for line in text.splitlines() if line.startswith(start)]
    return line


def test_the_compute_bound_share_is_said_up_to_95_percent():
    """llama-3.1-70b, tp 4, batch 1,000 at context 16 under ideal: its GEMMs compute-bound, attention's KV reads a small
    part: 0.908 of the operators' time in compute-bound operators, inside 5%-95%, so the line says '91%'."""
    p = roofline.predict("h100-sxm", "llama-3.1-70b", 1000, 16, tp=4, engine="ideal")
    assert p["bound"] == "compute" and 0.9 < p["compute_bound_share"] < 0.95
    assert _line(predict_table(p), "  step time ").endswith(
        "(compute-bound: 91% of its operators' time in compute-bound operators)")


def test_mbu_and_mfu_are_said_to_a_tenth_of_a_percent():
    """llama-3.1-8b, h100-sxm, batch 256, context 1,024: MBU = bytes / step / 3.35 TB/s, MFU = FLOPs / step / 989.4
    TFLOP/s (bf16 dense): 51.3 GB and 3.98 TFLOP a step of 36.3 ms give 42.2% and 11.1%, not 11%."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 256, 1024)
    mbu = p["bytes"] / p["step_time_s"] / 3.35e12
    mfu = p["flops"] / p["step_time_s"] / 989.4e12
    assert abs(mbu - 0.422) < 0.0005 and abs(mfu - 0.111) < 0.0005
    assert _line(predict_table(p), "  MBU / MFU ") == f"  MBU / MFU            {mbu:.1%} / {mfu:.1%}" == (
        "  MBU / MFU            42.2% / 11.1%")


def test_the_ridge_is_said_to_one_decimal_and_a_weight_only_dtype_said_so():
    """h100-sxm bf16: 989.4 x 0.80 / (3.35 x 0.85) = 278.0 FLOP/B (not '278'); w8a16 weights are dequantised in the GEMM,
    which computes in bf16: 'run weight-only'. tpu-v5e has no fp16 units: fp16 weights compute in bf16, whose derated
    ridge is 197 x 0.70 / (0.819 x 0.80) = 210.5 FLOP/B, and they are not weight-only: 'compute in bf16'."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, weight_dtype="w8a16")
    assert round(989.4 * 0.80 / (3.35 * 0.85), 1) == 278.0
    assert _line(predict_table(p), "  intensity / ridge ").endswith(
        " / 278.0 FLOP/byte (derated; the ridge of bf16, the MLP's compute dtype: w8a16 weights run weight-only)")
    p = roofline.predict("tpu-v5e", "llama-3.2-1b", 1, 1024, weight_dtype="fp16")
    assert round(197 * 0.70 / (0.819 * 0.80), 1) == 210.5
    assert _line(predict_table(p), "  intensity / ridge ").endswith(
        " / 210.5 FLOP/byte (derated; the ridge of bf16, the MLP's compute dtype: fp16 weights compute in bf16)")


def test_ttft_with_a_cached_shared_prefix_prefills_the_rest_of_the_prompt(roofline):
    """A 1,000-token prompt whose first 400 tokens are a shared prefix vllm caches: the TTFT prefills 1,000 - 400 = 600."""
    code, out, _ = roofline("predict", "--model", "llama-3.1-8b", "--batch", "8", "--prompt", "1000", "--output-len", "200",
                            "--shared-prefix", "400")
    assert code == 0
    assert _line(out, "  TTFT ").endswith(
        "(prefill of 600 of its 1,000 tokens, one sequence: the shared prefix's 400 cached by vllm (prefix_cached))")


def test_serving_ttft_is_said_from_two_in_flight():
    """At batch 2 one other request decodes while a prompt arrives: serving TTFT = the step + the prefill's stall
    (7.25 ms + 14.3 ms = 21.6 ms for llama-3.1-8b on h100-sxm, a 1,000-token prompt); batch 1 has no such line."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 2, 1024, prompt=1000, output_len=200)
    assert abs(p["serving_ttft_s"] - (p["step_time_s"] + p["prefill_stall_s"])) < 1e-12
    line = _line(predict_table(p), "  serving TTFT ")
    assert line.startswith("  serving TTFT         21.6 ms   (at 2 in flight: its prefill mixed into a step of the others' "
                           "decode, the step 7.25 ms + the prefill's stall 14.3 ms)")
    one = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, prompt=1000, output_len=200)
    assert "serving TTFT" not in predict_table(one)


def test_serving_cost_says_each_users_pace_as_one_over_the_serving_tpot():
    """'each user sees N tokens/s after its first token': 1 / serving TPOT (prefills included), not the decode-only
    tokens/s per user. llama-3.1-70b, tp 4, 64 in flight, 1,000-token prompts, 200 output tokens: the step 27.0 ms +
    63 x 49.3 ms / 200 = 42.6 ms, 1 / 42.6 ms = 23.5 tokens/s (decode alone: 37.0)."""
    p = roofline.predict("h100-sxm", "llama-3.1-70b", 64, 2048, tp=4, prompt=1000, output_len=200)
    tpot = p["step_time_s"] + 63 * p["prefill_stall_s"] / 200
    assert abs(tpot - p["serving_time_per_output_token_s"]) < 1e-9 and f"{1 / tpot:.1f}" == "23.5"
    assert f"{p['tokens_per_s_per_user']:.1f}" == "37.0"
    assert "each user sees 23.5 tokens/s after its first token" in _line(predict_table(p), "  serving cost ")
    assert _line(predict_table(p), "  serving TPOT ") == (
        "  serving TPOT         42.6 ms   (a serving benchmark's time per output token at 64 in flight: + 63 arriving "
        "prefills of 1,000 tokens, each adding 49.3 ms to the batch's decode, over 200 tokens)")


def test_rows_padded_by_under_one_percent_are_still_listed():
    """Batch 127 under vllm's 16-row GEMM tile pads each GEMM to 128 rows, 0.79% more FLOPs: the padded intensities are
    listed all the same (qkv_proj: 120.8 x 128 / 127 = 121.7 FLOP/B)."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 127, 1024)
    op = p["operators"]["qkv_proj"]
    assert abs(op["padded_flops"] / op["flops"] - 128 / 127) < 1e-3
    line = _line(predict_table(p), "  bound with rows padded to the 16-row GEMM tile (FLOP/B): ")
    assert f"qkv_proj {op['flops'] * 128 / 127 / op['bytes']:.1f}" in line and "qkv_proj 121.7" in line


def test_an_acceptance_length_is_said_with_the_alpha_it_gives_to_four_digits():
    """An acceptance length of 2.5 at k 3 is tau = 1 + a + a^2 + a^3 = 2.5: a = 0.69141 (bisected here), said 0.6914."""
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if 1 + mid + mid**2 + mid**3 < 2.5 else (lo, mid)
    assert f"{lo:.4g}" == "0.6914"
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 4, 1024, method="ngram", k=3, acceptance_length=2.5)
    assert _line(predict_table(p), "  speculation: ") == "  speculation: ngram  k 3  alpha 0.6914 (acceptance length 2.5 at k 3)"


@pytest.fixture(scope="module")
def drafted():
    """llama-3.1-70b, tp 4, 64 in flight, a llama-3.2-1b drafter at k 4 and alpha 0.7, 1,000-token prompts."""
    return roofline.predict("h100-sxm", "llama-3.1-70b", 64, 2048, tp=4, method="draft", draft="llama-3.2-1b", k=4,
                            alpha=0.7, prompt=1000, output_len=200)


def test_tau_is_said_to_three_decimals(drafted):
    """alpha 0.7 at k 4: tau = 1 + 0.7 + 0.49 + 0.343 + 0.2401 = 2.7731, said 2.773."""
    assert abs(drafted["spec"]["tau"] - 2.7731) < 1e-9
    assert _line(predict_table(drafted), "    tau (tokens/iter) ") == "    tau (tokens/iter)  2.773"


def test_speculative_serving_tpot_says_plains_as_a_multiple_of_it(drafted):
    """'plain's 42.6 ms is R x this': R = plain's serving TPOT / speculation's (42.6 / 34.3 = 1.24 > 1 where it pays),
    not its inverse."""
    plain, spec = drafted["serving_time_per_output_token_s"], drafted["spec"]["serving_time_per_output_token_s"]
    assert plain > spec
    line = _line(predict_table(drafted), "    serving TPOT ")
    assert f"plain's 42.6 ms is {plain / spec:.3f}x this)" in line and abs(plain / spec - 1.24) < 0.005


def test_a_break_even_dip_of_one_batch_is_said_alone(drafted):
    """A dip whose first and last losing batch are one (95, 95): 'speedup < 1 at batch 95 alone', and the curve dips
    and recovers (it does not start at batch 1); from 1 to 1: it starts below 1 and rises."""
    spec = {**drafted["spec"], "not_paying_below_break_even": [95, 95]}
    assert _line(predict_table({**drafted, "spec": spec}), "    below it ") == (
        "    below it           speedup < 1 at batch 95 alone: the curve dips and recovers")
    spec = {**drafted["spec"], "not_paying_below_break_even": [1, 1]}
    assert _line(predict_table({**drafted, "spec": spec}), "    below it ") == (
        "    below it           speedup < 1 at batch 1 alone: the curve starts below 1 and rises")


def test_a_drafter_on_its_own_device_says_the_memory_usable_there():
    """A llama-3.2-1b drafter on an l4: 'N on the draft device, of M usable there', M the drafter device's usable memory."""
    p = roofline.predict("h100-sxm", "llama-3.1-70b", 2, 1024, tp=4, method="draft", draft="llama-3.2-1b", k=1, alpha=0.8,
                         draft_hardware="l4")
    from roofline.units import format_si

    spec = p["spec"]
    assert spec["drafter_usable_memory_bytes"] > spec["drafter_memory_bytes"] > 0
    assert _line(predict_table(p), "    drafter memory ").startswith(
        f"    drafter memory     {format_si(spec['drafter_memory_bytes'], 'B')} on the draft device, of "
        f"{format_si(spec['drafter_usable_memory_bytes'], 'B')} usable there: its weights (bf16, the target's attention dtype)")


def test_k_0_that_does_not_fit_blames_no_drafter():
    """At k 0 nothing is drafted and no drafter held (qa101): a point that does not fit (2,000 sequences of llama-3.1-8b
    need 285 GB of 73.6) says so on plain decoding's lines, never 'with the drafter'."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 2000, 1024, method="draft", draft="llama-3.2-1b", k=0, alpha=0.7)
    assert not p["fits_in_memory"] and not p["spec"]["fits_in_memory"]
    text = predict_table(p)
    assert "with the drafter" not in text
    assert _line(text, "    fits in memory ") == "    fits in memory     NO  (max batch 428: k 0 holds no drafter)"


def test_a_tree_on_a_drafter_device_says_the_n_plus_1_tokens_a_pass_verifies():
    """A tree of 8 nodes verifies N + 1 = 9 tokens a sequence: the target's memory holds their KV ('N + 1 = 9'), and a
    pass of 4 sequences verifies 4 x 9 = 36 tokens."""
    p = roofline.predict("h100-sxm", "llama-3.1-70b", 4, 1024, tp=4, method="draft", draft="llama-3.2-1b",
                         draft_hardware="l4", tree_nodes=8, tree_tau=2.5)
    text = predict_table(p)
    assert "with the KV of the N + 1 = 9 tokens a pass verifies" in _line(text, "    fits in memory ")
    assert "; 36 tokens a pass, " in _line(text, "    verify pass ")


def test_memory_needed_and_usable_are_said_with_digits_enough_to_tell_them_apart():
    """Needed 2e-6 above usable (73.6 GB): the figures agree to four digits and differ further on, which the line
    shows with the fewest digits that tell them apart rather than 'NO (73.58 GB of 73.58 GB usable'."""
    from roofline.units import format_si

    p = dict(roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1024))
    usable = p["usable_memory_bytes"]
    p["memory_needed_bytes"] = needed = usable * (1 + 2e-6)
    p["fits_in_memory"] = False
    digits = next(d for d in range(3, 8) if format_si(needed, "B", d) != format_si(usable, "B", d))
    assert digits > 4
    a, b = format_si(needed, "B", digits), format_si(usable, "B", digits)
    assert _line(predict_table(p), "  fits in memory ").startswith(f"  fits in memory       NO  ({a} of {b} usable, ")


def test_a_drafter_on_its_own_device_says_each_sides_cap_the_right_way_round():
    """llama-3.1-70b (tp 4) at context 550, a llama-3.2-1b drafter on an l4: its KV is 16 layers x 8 heads x 64 x 2 x 2 B =
    32,768 B a token, 552 tokens a sequence at k 1 (550 + 1 + k); its weights 2.47 GB; the l4 holds it for
    (20.79 GB - 2.47 GB) / 18.1 MB = 1,012 sequences, the target's devices hold 828: the fits line says the target's
    828, the l4's 1,012, not the other way round."""
    p = roofline.predict("h100-sxm", "llama-3.1-70b", 2, 550, tp=4, method="draft", draft="llama-3.2-1b", k=1, alpha=0.8,
                         draft_hardware="l4")
    spec = p["spec"]
    per_sequence = 32768 * 552
    weights = spec["drafter_memory_bytes"] - 2 * per_sequence
    assert abs(weights / 1e9 - 2.47) < 0.01
    assert int((spec["drafter_usable_memory_bytes"] - weights) // per_sequence) == spec["drafter_device_max_batch"] == 1012
    assert spec["target_max_batch"] == spec["max_batch"] == 828
    assert _line(predict_table(p), "    fits in memory ").endswith(
        "the target's devices hold 828 sequences, l4 holds the drafter's KV cache for 1,012)")


def test_same_decimals_pads_to_the_other_figures_decimals():
    """'77.1 GB' beside '77.12 GB' is said '77.10 GB' (one zero), '77 GB' beside '77.1 GB' '77.0 GB'; other units alone."""
    from roofline.tables import _same_decimals

    assert _same_decimals("77.1 GB", "77.12 GB") == "77.10 GB"
    assert _same_decimals("77 GB", "77.1 GB") == "77.0 GB"
    assert _same_decimals("77 GB", "77.1 MB") == "77 GB"


def test_a_kv_read_of_another_stage_than_the_memory_stage_says_whose():
    """qwen3-235b-a22b, tp 2, pp 4 (23 / 24 / 24 / 23 layers): memory is set by stage 4 (23 layers, its KV cache 6.18
    GB shown), the operators are stage 2's (24 layers), which reads 6.18 x 24 / 23 = 6.44 GB a step: said 'by the
    busiest stage'. A vllm-v0 shared prefix is held by each sequence (no prefix cache), which the header says."""
    p = roofline.predict("h100-sxm", "qwen3-235b-a22b", 64, 4096, tp=2, pp=4, engine="vllm")
    assert p["pipeline"]["memory_stage"] == 3 and p["pipeline"]["busiest_stage"] == 1
    assert abs(p["kv_read_bytes_per_device"] / p["kv_bytes"] - 24 / 23) < 1e-9
    assert _line(predict_table(p), "  KV cache per device ").endswith("(read per step: 6.44 GB by the busiest stage)")
    v0 = roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1024, engine="vllm-v0", shared_prefix=400)
    assert predict_table(v0).splitlines()[0].endswith("shared prefix 400 (held by each sequence, read by each sequence)")


def test_a_tp_group_past_the_scale_up_domain_says_its_domains():
    """tp 16 on h100-sxm (8 GPUs a domain) spans 16 / 8 = 2 scale-up domains, linked by the scale-out link (50 GB/s x
    0.96 = 48 GB/s), which the header and the tp collectives line say; tp 8 spans one."""
    p = roofline.predict("h100-sxm", "llama-3.1-405b", 8, 1024, tp=16)
    text = predict_table(p)
    assert text.splitlines()[0].startswith(
        "llama-3.1-405b on 16 x h100-sxm (tp 16; 2 scale-up domains, linked by the scale-out link)  engine vllm")
    assert "inside a domain and 48 GB/s across, the scale-out link" in _line(text, "  tp collectives ")
    one = roofline.predict("h100-sxm", "llama-3.1-405b", 8, 1024, tp=8)
    assert "scale-up domains" not in predict_table(one)


def test_the_compute_bound_search_runs_past_what_fits_only_where_fewer_fit_than_it_searched():
    """llama-3.1-8b at context 1,024 is memory-bound to the search's end, 65,536; 480 fit: 'the search runs past what
    fits: 480 fit in memory'. Where as many fit as the search reaches, it runs past nothing and says so nowhere."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1024)
    end = p["compute_bound_search_max_batch"]
    assert p["compute_bound"]["first_batch"] is None and p["max_batch"] < end
    assert _line(predict_table(p), "  compute-bound at ").endswith(
        f"; the search runs past what fits: {p['max_batch']:,} fit in memory")
    assert "runs past what fits" not in predict_table({**p, "max_batch": end})


def test_bytes_partly_hidden_under_compute_say_their_whole_time_too():
    """llama-3.1-8b, batch 256: 51.3 GB at the derated 3.35 TB/s x 0.85 = 2.85 TB/s take 18.0 ms, of which the engine's
    smooth overlap leaves 16.5 ms setting the step (0.913 of it, below 0.98): both are said (qa495)."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 256, 1024)
    assert abs(p["bytes_time_s"] - p["bytes"] / (3.35e12 * 0.85)) < 1e-12
    assert 0.9 < p["memory_time_s"] / p["bytes_time_s"] < 0.98
    assert ("its bytes set 16.5 ms of the step (of the 18 ms they take at the derated bandwidth; the rest overlaps "
            "compute), and twice the bandwidth gives") in _line(predict_table(p), "  step time ")


def test_the_moe_line_says_a_split_over_devices_only_where_there_are_several_and_one_sequence_singular():
    """qwen3-30b-a3b on one device: 8 of 128 experts read, nothing split; tp 2: each expert split over the 2 devices;
    pp 2 at batch 2: micro-batches of 2 / min(2, 2) = 1 sequence (singular)."""
    text = predict_table(roofline.predict("h100-sxm", "qwen3-30b-a3b", 1, 1024))
    assert _line(text, "  experts a MoE layer ") == (
        "  experts a MoE layer  a pass reads 8.00 of the 128 routed experts (8.00 token-expert pairs)")
    text = predict_table(roofline.predict("h100-sxm", "qwen3-30b-a3b", 1, 1024, tp=2))
    assert "(each split over the 2 devices of a stage; 8.00 token-expert pairs)" in _line(text, "  experts a MoE layer ")
    text = predict_table(roofline.predict("h100-sxm", "qwen3-30b-a3b", 2, 1024, pp=2))
    assert _line(text, "  experts a MoE layer ").endswith("; micro-batches of 1 sequence on average, B / min(B, pp))")


def test_a_drafter_device_is_counted_in_tokens_per_device_and_a_priceless_target_is_named():
    """A drafter on an l4 beside 4 h100-sxm: 121 tokens/s over 5 devices, 24.2 a device, 'the drafter's included'.
    A b300 target has no price: the speculative cost names the b300, not the priced l4."""
    p = roofline.predict("h100-sxm", "llama-3.1-70b", 2, 550, tp=4, method="draft", draft="llama-3.2-1b", k=1, alpha=0.8,
                         draft_hardware="l4")
    spec = p["spec"]
    assert abs(spec["tokens_per_s_per_device"] - spec["tokens_per_s"] / 5) < 1e-9
    assert _line(predict_table(p), "    tokens/s (batch) ").endswith(
        f"({spec['tokens_per_s_per_device']:.1f} per device, the drafter's included)")
    p = roofline.predict("b300", "llama-3.1-70b", 8, 1024, tp=4, method="draft", draft="llama-3.2-1b", k=2, alpha=0.7,
                         draft_hardware="l4")
    assert _line(predict_table(p), "    cost ").startswith("    cost               unknown: b300 has no price in its profile")


def test_serving_lines_with_a_cached_prefix_and_at_k_0():
    """8 in flight, 1,000-token prompts of which 400 are a cached shared prefix: each arriving prefill is of 600 tokens.
    At k 0 nothing is drafted: the speculation block has no serving TTFT of its own."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1100, prompt=1000, output_len=200, shared_prefix=400)
    assert "+ 7 arriving prefills of 600 tokens (the 400 of the shared prefix cached), each adding" in _line(
        predict_table(p), "  serving TPOT ")
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1100, prompt=1000, output_len=200, method="draft",
                         draft="llama-3.2-1b", k=0, alpha=0.7)
    assert [x for x in predict_table(p).splitlines() if x.startswith("    serving TTFT ")] == []


def test_a_verify_pass_of_a_fractional_micro_batch_says_its_mean_tokens():
    """qwen3-30b-a3b, pp 2, batch 3, n-gram k 2: micro-batches of 3 / min(3, 2) = 1.5 sequences x 3 tokens = 4.5 tokens,
    x 8 experts a token = 36.0 token-expert pairs; said '4.5 tokens', not rounded to a whole token."""
    p = roofline.predict("h100-sxm", "qwen3-30b-a3b", 3, 1024, pp=2, method="ngram", k=2, alpha=0.5)
    assert "(36.0 token-expert pairs of 4.5 tokens a micro-batch, B / min(B, pp) sequences x q;" in _line(
        predict_table(p), "    experts a layer ")


def test_an_engine_whose_prefix_cache_is_off_while_speculating_says_ttft_speculating():
    """sglang-early keeps no prefix cache while it speculates (prefix_cached_speculating false): an n-gram point (no
    drafter prefill) prefills the whole 1,000-token prompt then, a line of its own, 'TTFT speculating'."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 4, 1100, engine="sglang-early", method="ngram", k=3, alpha=0.5,
                         prompt=1000, output_len=200, shared_prefix=400)
    from roofline.units import format_seconds

    whole = format_seconds(p["ttft_with_speculation_s"])
    assert _line(predict_table(p), "  TTFT speculating ") == (
        f"  TTFT speculating     {whole}   (the prompt prefilled whole while speculating, {whole}: sglang-early's cache "
        "is off then, prefix_cached_speculating false)")


def test_the_pipeline_line_names_the_engines_split_or_says_it_has_none():
    """32 layers over pp 3 under sglang's `last` remainder: 10 / 11 / 11, the extra layers on the last stages;
    sglang-early had no pipeline parallelism, priced as split `last`, which its line says."""
    text = predict_table(roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1024, pp=3, engine="sglang"))
    assert _line(text, "  pipeline stages ").startswith(
        "  pipeline stages      10 / 11 / 11 layers (sglang's split, pp_remainder last); stage 3 of 3 sets memory")
    text = predict_table(roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1024, pp=3, engine="sglang-early"))
    assert _line(text, "  pipeline stages ").startswith(
        "  pipeline stages      10 / 11 / 11 layers (sglang-early has no pipeline parallelism: split as `last`);")


def test_a_verify_pass_compute_bound_for_a_run_says_its_last_batch():
    """Medusa k 1 on llama-3.1-8b: the verify pass is compute-bound at batches 153-154 and 161-163, memory-bound again
    from 164 (its KV reads): each run's last batch said, 153 x 2 = 306 tokens a pass at the first."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 4, 1024, method="medusa", k=1, alpha=0.5)
    edge = p["spec"]["verify_compute_bound"]
    assert edge["first_batch"] == 153 and edge["memory_bound_again"] == 155 and edge["runs"] == [[153, 154], [161, 163]]
    assert ("; compute-bound at batches 153-154 and 161-163 (from 306 tokens a pass), memory-bound again from 164 (its KV "
            "reads grow with the batch)" in _line(predict_table(p), "    verify pass "))


def test_a_verify_edge_is_past_what_fits_only_above_the_max_batch(drafted):
    """The verify pass turns compute-bound at batch 58 (x 5 = 290 tokens); where 58 fit it is not past them, where 57
    fit it is: ', past the 57 that fit'."""
    spec = drafted["spec"]
    assert spec["verify_compute_bound"]["first_batch"] == 58
    at = predict_table({**drafted, "spec": {**spec, "max_batch": 58}})
    assert _line(at, "    verify pass ").count("; compute-bound from batch 58, 290 tokens a pass;") == 1
    assert "that fit" not in _line(at, "    verify pass ")
    below = predict_table({**drafted, "spec": {**spec, "max_batch": 57}})
    assert "; compute-bound from batch 58, 290 tokens a pass, past the 57 that fit;" in _line(below, "    verify pass ")


def test_the_tp_collectives_of_a_pipelined_step_are_the_busiest_stages():
    """llama-3.1-8b, tp 2, pp 3 (10 / 11 / 11 layers): 11 x 2 = 22 all-reduces a pass of the busiest stage, each of a
    micro-batch of 8 / 3 sequences x 4,096 x 2 B = 21.8 kB."""
    text = predict_table(roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1024, tp=2, pp=3))
    assert "(22 all-reduces a pass of the busiest stage of 21.8 kB each, " in _line(text, "  tp collectives ")


def test_overlapped_host_work_is_the_floor_only_near_what_twice_the_bandwidth_gives():
    """llama-3.1-8b, tp 8, batch 4 under sglang: host work 1.5 ms + 4 x 10 us = 1.54 ms, overlapped, 0.68 of the 2.25 ms
    twice the bandwidth gives, not 0.98 of it: it is no floor there, and the line names collectives (408 us, over 5% of
    the 2.6 ms step) and the kernel latencies and compute."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 4, 1024, engine="sglang", tp=8)
    assert abs(p["host_time_s"] - 1.54e-3) < 1e-9
    assert 0.5 < p["host_time_s"] / p["step_time_at_2x_bandwidth_s"] < 0.98
    assert _line(predict_table(p), "  step time ").endswith(
        "twice the bandwidth gives 2.25 ms: collectives 408 us, kernel latencies and compute set the rest, more "
        "bandwidth buys little here)")


@pytest.mark.parametrize("engine, model, tp, pp, k, prefix", [
    # t_b + (t_v - t_s) = 0.21 t_v < half, t_v less half of it 0.90 t_v > 0.8: overhead-bound like its step
    ("vllm", "llama-3.1-8b", 8, 1, 1, "overhead-bound: its operators are memory-bound; "),
    # sglang does not overlap host work while speculating: the pass adds 1.56 ms, the bound 0.54 t_v, over half
    ("sglang", "llama-3.1-8b", 8, 1, 1, "memory-bound; "),
    # 0.487 t_v, under half, but t_v less half of it is 0.756 t_v, not over 0.8: memory-bound
    ("trtllm", "gpt-oss-120b", 8, 1, 4, "memory-bound; "),
    # under pp the step's bytes are one stage's: never said overhead-bound, though the step is
    ("vllm", "llama-3.1-8b", 8, 2, 1, "memory-bound; "),
])
def test_the_verify_pass_is_overhead_bound_by_the_steps_rule(engine, model, tp, pp, k, prefix):
    """_verify_overhead_bound: the verify pass is said overhead-bound where the step is and its bytes' time, bounded by
    t_b + (t_v - t_s), is under half of t_v with t_v less half of it over 80% of t_v (n-gram at batch 4)."""
    from roofline.tables import _overhead_bound

    p = roofline.predict("h100-sxm", model, 4, 1024, engine=engine, tp=tp, pp=pp, method="ngram", k=k, alpha=0.5)
    spec = p["spec"]
    assert _overhead_bound(p) and spec["verify_bound"] == "memory"
    t_v = spec["verify_time_s"]
    bound = p["memory_time_s"] + max(t_v - p["step_time_s"], 0.0)
    said = pp == 1 and bound < 0.5 * t_v and t_v - bound / 2 > 0.8 * t_v
    assert said == prefix.startswith("overhead")
    assert _line(predict_table(p), "    verify pass ").split("  (", 1)[1].startswith(prefix)


def test_rates_change_form_where_the_next_forms_rounding_starts():
    """Three significant digits below 0.9995 (0.9992: '0.999'), two decimals to 9.995, one to 99.95 (99.7: '99.7', 99.94:
    '99.9'), whole tokens from there (99.96: '100', 1,234.4: '1,234')."""
    from roofline.tables import _rate

    assert [_rate(x) for x in (0.9992, 0.99951, 9.994, 9.996, 99.7, 99.94, 99.96, 1234.4)] == [
        "0.999", "1.00", "9.99", "10.0", "99.7", "99.9", "100", "1,234"]


def test_an_eagle_head_in_fp32_has_no_unquantised_projection_to_name():
    """An EAGLE head takes the target's weight dtype; its input projection (fc) stays unquantised, which is said only
    where the dtype is a quantised one: fp8, not fp32 (itself unquantised)."""
    text = predict_table(roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, weight_dtype="fp32", method="eagle", k=2,
                                          alpha=0.7))
    assert _line(text, "    drafter memory ").endswith(": its weights (fp32, as the target's) and its KV cache")
    text = predict_table(roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, weight_dtype="fp8", method="eagle", k=2,
                                          alpha=0.7))
    assert _line(text, "    drafter memory ").endswith(
        ": its weights (fp8, as the target's; its input projection unquantised) and its KV cache")


def test_sglangs_window_pool_is_said_with_its_ratio_as_given():
    """gpt-oss-120b under sglang, batch 8, context 1,024 (1,025 tokens held): 18 full layers x 8 KV heads x 64 x 2 x 2 B
    = 36,864 B a token, x 1,025 x 8 = 302 MB; 18 sliding layers held at 0.8 x 1,025 = 820 tokens, 242 MB: 544 MB, of
    which a step reads the full layers' 302 MB and the sliding ones' 128-token windows, 37.7 MB: 340 MB. A ratio of 0.75
    is said 0.75, not rounded."""
    p = roofline.predict("h100-sxm", "gpt-oss-120b", 8, 1024, engine="sglang")
    per_token = 18 * 8 * 64 * 2 * 2
    assert abs(p["kv_bytes"] / 1e6 - (per_token * 1025 * 8 + per_token * 820 * 8) / 1e6) < 1
    assert abs(p["kv_read_bytes_per_device"] / 1e6 - (per_token * 1025 * 8 + per_token * 128 * 8) / 1e6) < 1
    assert _line(predict_table(p), "  KV cache per device ").endswith(
        "(read per step: 340 MB; sglang's window pool holds the sliding layers at 0.8 x a sequence's tokens, not their window)")
    assert "the sliding layers at 0.75 x a sequence's tokens" in predict_table({**p, "kv_window_pool_ratio": 0.75})


def test_a_launch_bound_step_names_host_work_over_5_percent_beside_its_launches():
    """vllm run eagerly at 50 us a launch: 323 kernels x 50 us = 16.2 ms of launches, + host work 32 x 60.8 us = 1.94 ms
    (not overlapped, 11% of the 18.1 ms step, over 5%) + 20 us: both named as what sets the step."""
    from dataclasses import replace

    from roofline.serving import load_engine

    engine = replace(load_engine("vllm"), graphs=False, eager_launch_s=50e-6)
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 32, 1024, engine=engine)
    assert p["launch_bound"] and abs(p["launch_time_s"] - p["launch_kernels"] * 50e-6) < 1e-12
    assert abs(p["step_time_s"] - (p["launch_time_s"] + p["host_time_s"] + 20e-6)) < 1e-9
    assert 0.05 < p["host_time_s"] / p["step_time_s"] < 0.2
    assert _line(predict_table(p), "  step time ").endswith(
        ": host work 1.94 ms, the host's eager launches (16.2 ms) set the step, more bandwidth buys nothing here)")


def test_one_uncached_prompt_token_is_said_in_the_singular():
    """A 401-token prompt whose first 400 are the cached shared prefix prefills 401 - 400 = 1 token: '1 token'."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1100, prompt=401, output_len=200, shared_prefix=400)
    assert "arriving prefills of 1 token (the 400 of the shared prefix cached), each adding" in _line(
        predict_table(p), "  serving TPOT ")


def test_the_header_names_every_layout_degree_from_2():
    """dp-attention 2, ep 2 and pp 2 are each named: 1 x 2 x 2 = 4 devices."""
    p = roofline.predict("h100-sxm", "qwen3-30b-a3b", 8, 1024, dp_attention=2, ep=2, pp=2)
    assert predict_table(p).splitlines()[0].startswith("qwen3-30b-a3b on 4 x h100-sxm (tp 1, dp-attention 2, ep 2, pp 2)  ")


def test_a_best_k_below_the_largest_searched_is_said_as_itself(drafted):
    """K_SEARCH ends at 64: a best k of 63 is the best of k = 0-64, not '>= 63 (the largest k searched)'; 64 is."""
    from roofline.speculation import K_SEARCH

    assert int(K_SEARCH[-1]) == 64 and int(K_SEARCH[-2]) == 63
    at = predict_table({**drafted, "spec": {**drafted["spec"], "best_k": 63}})
    assert _line(at, "    best k here ").startswith("    best k here        63  (") and "the best of k = 0-64" in at
    top = predict_table({**drafted, "spec": {**drafted["spec"], "best_k": 64}})
    assert _line(top, "    best k here ").startswith("    best k here        >= 64 (the largest k searched; ")
