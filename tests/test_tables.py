"""Terminal tables (tables.py): what `predict` prints, warnings first."""

import dataclasses
import re
from pathlib import Path

import pytest

import roofline
from roofline.serving import load_engine
from roofline.tables import predict_table
from roofline.units import format_seconds, format_si, format_significant


@pytest.mark.slow
def test_the_predict_table_names_engine_layout_and_weight_dtypes():
    p = roofline.predict("h200", "deepseek-v3", 4096, 32768, dp_attention=8, ep=8, method="mtp", k=2)
    text = predict_table(p)
    assert p["warnings"][0].startswith("does not fit in memory") and "does not fit" not in text  # warnings: the CLI's stderr
    assert "engine vllm" in text and "dp-attention 8, ep 8" in text and "experts fp8" in text and "embedding bf16" in text
    assert "expert dispatch" in text and "MTP module reused" in text


@pytest.mark.slow
def test_a_speculative_point_that_does_not_fit_says_what_it_needs_with_its_drafter():
    kw = dict(tp=8, method="mtp", k=2, alpha=0.9)
    both = roofline.predict("h200", "deepseek-v3", 256, 4096, **kw)  # plain needs 157.8 GB, with MTP 160.7 GB of 135.7
    (line,) = [w for w in both["warnings"] if "does not fit" in w]
    assert f"with its drafter it needs {both['spec']['memory_needed_bytes'] / 1e9:.1f} GB" in line
    assert f"(max batch {both['spec']['max_batch']:,} at this context); plain decoding {both['memory_needed_bytes'] / 1e9:.1f} GB" in line
    only = roofline.predict("h200", "deepseek-v3", both["spec"]["max_batch"] + 2, 4096, **kw)  # fits plain, not with MTP
    assert only["fits_in_memory"] and not only["spec"]["fits_in_memory"]
    assert [w for w in only["warnings"] if "upper estimate" not in w and "MTP module" not in w
            and not w.startswith("the break-even batch") and "fitted.fitted_on" not in w] == [f"with its drafter, this point does not fit in memory: needs {only['spec']['memory_needed_bytes'] / 1e9:.1f} "
                                f"GB per device of {only['usable_memory_bytes'] / 1e9:.1f} GB usable (max batch {only['spec']['max_batch']:,} at this context)"]
    text = predict_table(both)
    assert f"drafter memory     {format_si(both['spec']['drafter_memory_bytes'], 'B')} per device" in text  # on each target device
    assert "the last is reused, at the acceptance given" in text  # alpha given: not the default rates' fall


@pytest.mark.slow
def test_an_overlapped_iteration_is_written_as_the_larger_of_the_two_busy_times():
    p = roofline.predict("h100-sxm", "llama-3.1-70b", 64, 4096, tp=4, method="draft", draft="llama-3.2-1b",
                         draft_hardware="a100-sxm-80gb", k=4, alpha=0.8)
    (line,) = [x for x in predict_table(p).splitlines() if x.strip().startswith("iteration")]
    assert p["spec"]["drafter_overlaps"] and "= max(draft busy " in line and "(each device busy with two half batches" in line
    assert "drafter memory" in predict_table(p) and "on the draft device" in predict_table(p)


def test_engine_show_writes_override_fields_by_their_yaml_keys_and_kernel_counts_as_a_list():
    import dataclasses

    from roofline.serving import load_engine
    from roofline.tables import engine_table

    e = dataclasses.replace(load_engine("vllm"), overrides=(("mi*", {"kernel_latency_s": 8e-6, "kernels_per_layer_mla": {"attention": 10}}),))
    line = next(x for x in engine_table(e).splitlines() if x.strip().startswith("override"))
    assert line == "  override for mi*: kernel_latency 8 us, kernels_per_layer_mla (attention 10)"


def test_a_model_without_a_published_count_says_so_not_nan():
    from roofline.model import load_model
    from roofline.tables import model_table

    assert "(no published figure)" in model_table(load_model("validation-small")) and "nan" not in model_table(load_model("validation-small"))
    assert "(published 8.030 billion)" in model_table(load_model("llama-3.1-8b"))


def test_the_breakdown_says_when_host_work_overlaps_the_device_so_it_does_not_add():
    for engine, overlapped in (("sglang", True), ("vllm", False)):
        p = roofline.predict("h100-sxm", "llama-3.1-8b", engine=engine)
        parts = p["operator_time_s"] + p["overhead_s"]
        total = max(parts, p["host_time_s"]) if overlapped else parts + p["host_time_s"]
        assert p["host_overlapped"] is overlapped and p["step_time_s"] == pytest.approx(total, rel=1e-9)
        assert ("(overlapped:" in predict_table(p)) is overlapped


@pytest.mark.slow
def test_a_break_even_batch_that_is_the_memory_limit_says_so():
    capped = roofline.predict("h100-sxm", "llama-3.1-8b", method="eagle", alpha=0.7)["spec"]  # vllm: pays up to what fits
    assert capped["break_even_batch"] == capped["max_batch"] and capped["break_even_at_memory_limit"] is True
    inside = roofline.predict("h100-sxm", "llama-3.1-8b", method="eagle", engine="ideal", alpha=0.5)["spec"]
    assert inside["break_even_batch"] < inside["max_batch"] and inside["break_even_at_memory_limit"] is False
    text = predict_table(roofline.predict("h100-sxm", "llama-3.1-8b", method="eagle", alpha=0.7))
    # qa286: said 'at least', as the report says it: it still pays where memory ends the search
    assert f"break-even batch   at least {capped['break_even_batch']:,} at k " in text
    assert "(the largest batch that fits: memory ends the search, speculation still paying)" in text
    assert "at least" not in next(x for x in predict_table(roofline.predict(
        "h100-sxm", "llama-3.1-8b", method="eagle", engine="ideal", alpha=0.5)).splitlines() if "break-even batch" in x)


def test_operator_shares_of_a_pipelined_step_add_up_and_say_what_they_are_shares_of():
    from roofline.api import predict
    from roofline.tables import predict_table

    text = predict_table(predict("h100-sxm", "llama-3.1-405b", tp=8, pp=2, weight_dtype="fp8"))
    assert ("operators of the busiest pipeline stage's pass over one micro-batch; a step runs the longer of one micro-batch's "
            "round trip (every layer, the embedding and the LM head once) and min(batch, 2) passes of this stage") in text
    rows = [r for r in text.split("  bound\n", 1)[1].split("\n\n", 1)[0].splitlines() if "%" in r]  # (not the padding note)
    assert abs(sum(float(row.split("%")[0].split()[-1]) for row in rows) - 100) < 0.5  # was about 50% with pp 2


def test_hw_show_writes_integer_peaks_as_operations_and_float_peaks_as_flops():
    from roofline.hardware import load_hardware
    from roofline.tables import hardware_table

    lines = hardware_table(load_hardware("h100-sxm")).splitlines()
    (int8,) = [line for line in lines if line.strip().startswith("int8 ")]
    (bf16,) = [line for line in lines if line.strip().startswith("bf16 ")]
    assert "OP/s" in int8 and "FLOP" not in int8 and int8.endswith("OP/byte")
    assert "989 TFLOP/s" in bf16 and bf16.endswith("FLOP/byte")
    # qa337: the derated ridge a prediction uses beside the peak one, 989.4 x 0.80 / (3.35 x 0.85) = 278
    hw = load_hardware("h100-sxm")
    derated = hw.peak_flops_per_s["bf16"] * hw.compute_efficiency / (hw.mem_bw_bytes_per_s * hw.mem_efficiency)
    assert bf16.endswith(f"peak ridge 295, derated {derated:.0f} FLOP/byte") and round(derated) == 278


def test_hw_show_indents_every_further_line_of_a_profiles_source_and_notes_under_its_label():
    from roofline.hardware import load_hardware
    from roofline.tables import hardware_table

    text = hardware_table(load_hardware("h100-sxm"))
    tail = text[text.index("  source: "):].splitlines()
    assert tail[0].startswith("  source: ") and sum(line.startswith("  notes: ") for line in tail) == 1
    assert len(tail) > 10 and all(line.startswith(("  source: ", "  notes: ", "    ")) for line in tail)  # none at column 0


def test_scenarios_list_names_a_scenario_by_its_file_which_is_what_commands_take():
    from roofline.scenario import scenario_from_dict
    from roofline.tables import scenario_list

    data = {"name": "multi-qa", "hardware": "h100-sxm", "model": "llama-3.1-8b", "axes": {"batch": [1], "context": [1024]}}
    (line,) = scenario_list([scenario_from_dict(data, "/somewhere/multi.yaml")]).splitlines()[1:]
    assert line.startswith("multi ") and line.endswith("(its name: field says 'multi-qa')")
    (same,) = scenario_list([scenario_from_dict({**data, "name": "multi"}, "/somewhere/multi.yaml")]).splitlines()[1:]
    assert "its name: field" not in same


def test_hw_show_writes_the_fields_a_calibration_adds_and_hw_list_marks_a_profile_without_bf16():
    import dataclasses

    from roofline.hardware import load_hardware
    from roofline.tables import hardware_list, hardware_table

    h100 = load_hardware("h100-sxm")
    measured = dataclasses.replace(h100, layer_overhead_s=4e-4, overlap_exponent=1.0, attention_compute_flops_per_s=9.13e10,
                                   attention_memory_bytes_per_s=8.9e9, elementwise_memory_bytes_per_s=2.1e9)
    text = hardware_table(measured)
    assert "step overhead     20 us, 400 us per layer" in text and "overlap exponent  1 (" in text
    assert "attention compute 91.3 GFLOP/s (measured ceiling)" in text and "elementwise mem.  2.1 GB/s (measured ceiling)" in text
    assert "per layer" not in hardware_table(h100) and "overlap exponent" not in hardware_table(h100)
    fp32_only = dataclasses.replace(h100, name="cpu", peak_flops_per_s={"fp32": 1.68e11})
    assert hardware_list([fp32_only]).splitlines()[1].endswith("(no bf16 units: fp32 peak and ridge)")
    # qa279: a device with fp16 and no bf16 (a V100, a T4) computes bf16 weights in fp16, as predict does: not fp32's peak
    fp16 = dataclasses.replace(h100, name="v", peak_flops_per_s={k: v for k, v in h100.peak_flops_per_s.items() if k != "bf16"})
    line = hardware_list([fp16]).splitlines()[1]
    assert line.endswith("(no bf16 units: fp16 peak and ridge)") and " 989.4 " in line, line
    # qa406: a 3 ms link latency (a slip) was listed as 3e+03 us, 80 MB of memory as 0 GiB
    slipped = hardware_list([dataclasses.replace(h100, name="slip", link_latency_s=3e-3, mem_bytes=80e6)]).splitlines()[1]
    assert slipped.split()[1] == "0.075" and " 3,000 " in slipped and "e+" not in slipped, slipped
    # qa281: int8's fallback named: it takes fp8's 0.71, the same peak's, which the profile's notes had as bf16's 0.80
    assert "  compute achievable x 0.80, fp8 x 0.71, int8 x 0.71 (borrowed from fp8, whose peak it shares: no measurement of its own)\n" in hardware_table(h100)
    assert "int8 has no measurement and takes fp8's 0.71" in h100.notes
    # qa287: MI355X's fp8 and fp4 take the general 0.62 for want of a figure of their own, which hw show did not say
    line = next(x for x in hardware_table(load_hardware("mi355x")).splitlines() if "compute achievable" in x)
    assert line.strip() == "compute achievable x 0.62, fp8, int8 and fp4 x 0.62 (borrowed from the general figure: no measurement of their own)", line


def test_hw_list_values_sit_under_their_headers_with_the_unit_in_the_header():
    import dataclasses

    from roofline.hardware import load_hardware
    from roofline.tables import hardware_list

    header, *rows = hardware_list([load_hardware("h100-sxm"), load_hardware("gb200")]).splitlines()
    for title in ("memory GiB", "bandwidth TB/s", "bf16 dense TFLOP/s", "peak ridge FLOP/B", "2-device link GB/s achievable", "latency us",
                  "price USD/h"):
        right = header.index(title) + len(title)  # values right-aligned to their header's last character
        for row in rows:
            assert row[right - 1] != " " and row[right] == " ", (title, row)
    assert "GiB" not in "".join(rows) and "TB/s" not in "".join(rows)  # units once, in the header
    price = header.index("price USD/h") + len("price USD/h")
    assert rows[0][price - 4:price] == "3.00" and rows[1][price - 2:price] == " -"  # gb200 has no price: said, not blank
    # qa157: h100-pcie and its copy without GPU peer-to-peer read alike; the link two devices share tells them apart
    _, p2p, no_p2p = hardware_list([load_hardware("h100-pcie"), load_hardware("h100-pcie-no-p2p")]).splitlines()
    link = header.index("2-device link GB/s achievable") + len("2-device link GB/s achievable")
    assert p2p[link - 4:link] == "54.4" and no_p2p[link - 4:link] == "19.8" and p2p[link + 10:link + 12] == "10"
    calibrated = dataclasses.replace(load_hardware("h100-sxm"), measured=True, link_latency_s=4e-7)  # its link a placeholder
    assert hardware_list([calibrated]).splitlines()[1][link - 1:link + 12] == "-" + " " * 11 + "-"


@pytest.mark.slow
def test_predict_gives_the_cost_per_million_tokens_or_says_why_it_cannot():
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 128, 2048, method="eagle", alpha=0.8)
    assert p["cost_usd_per_million_tokens"] == pytest.approx(3.0 / 3600 / p["tokens_per_s"] * 1e6, rel=1e-12)
    assert p["spec"]["cost_usd_per_million_tokens"] == pytest.approx(3.0 / 3600 / p["spec"]["tokens_per_s"] * 1e6, rel=1e-12)
    a100 = roofline.load_hardware("a100-sxm-80gb").price_usd_per_hour  # a drafter's device is paid while it drafts
    d = roofline.predict("h100-sxm", "llama-3.1-70b", 32, 1024, tp=4, method="draft", draft="llama-3.2-1b",
                         draft_hardware="a100-sxm-80gb", k=3, alpha=0.8)
    assert d["spec"]["cost_usd_per_million_tokens"] == pytest.approx((4 * 3.0 + a100) / 3600 / d["spec"]["tokens_per_s"] * 1e6, rel=1e-12)
    text = predict_table(d)
    assert (f"cost               ${format_significant(d['spec']['cost_usd_per_million_tokens'])} per million tokens (the "
            f"drafter's device included: + ${a100:.2f}/h)") in text
    assert d["price_usd_per_hour_per_device"] == 3.0 and d["spec"]["draft_price_usd_per_hour"] == a100
    assert "  (4 x $3.00/h; decoding only)" in text  # which price the cost divides, and that prefill is not in it
    unpriced = roofline.predict("gb200", "llama-3.1-8b")
    assert unpriced["cost_usd_per_million_tokens"] is None
    assert "cost                 unknown: gb200 has no price in its profile (give one: roofline hw new NAME --from gb200" in predict_table(unpriced)
    # the drafter's device is named where it is the one without a price
    no_draft_price = roofline.predict("h100-sxm", "llama-3.1-8b", 1, method="eagle", k=3, draft_hardware="l40s")
    assert "cost               unknown: l40s has no price" in predict_table(no_draft_price)


def test_money_is_written_with_its_significant_digits_never_in_exponent_form():
    """'$1.23e+03 per million tokens' (Llama-3.1-405B on 32 A100 at batch 1), '$1.6' for 1.60 and '$2.12/h' for a
    negotiated 2.125 were printed."""
    from roofline.units import format_usd_per_hour

    assert [format_significant(x) for x in (1226.4, 1.6, 11.0, 0.1754, 21507.2)] == ["1,226", "1.60", "11.0", "0.175", "21,507"]
    assert [format_usd_per_hour(x) for x in (2.125, 4.5, 3.0, 1.12345678, 0.0004, 1e-7)] == [
        "2.125", "4.50", "3.00", "1.123", "0.0004", "1e-07"]
    text = predict_table(roofline.predict("a100-sxm-80gb", "llama-3.1-405b", 1, tp=8, pp=4, engine="vllm-v0"))
    assert "e+0" not in text and re.search(r"cost +\$[\d,]+ per million tokens  \(32 x \$2\.00/h", text)


def test_a_memory_bound_step_set_by_its_other_costs_names_them():
    """'15 ms (memory-bound)' for a 70B fp8 on 8 B200 at batch 64, whose bytes take 3.3 ms: a planner read that more
    bandwidth helps."""
    from roofline.hardware import load_hardware

    p = roofline.predict("b200", "llama-3.1-70b", 64, 4096, tp=8, weight_dtype="fp8")
    assert p["bytes_time_s"] == pytest.approx(p["bytes"] / load_hardware("b200").memory_ceiling_bytes_per_s)
    assert p["bound"] == "memory" and p["bytes_time_s"] < 0.5 * p["step_time_s"]
    text = predict_table(p)
    assert "set the rest, more bandwidth buys little here" in text
    # the terms named, largest first: host work that grows with the batch is not a "fixed cost" (qa61)
    named = re.search(r"gives [\d.]+ ms: (.*) set the rest", text).group(1)
    assert named == (f"host work {format_seconds(p['host_time_s'])}, collectives {format_seconds(p['comm_time_s'])}, "
                     "kernel latencies and compute"), named
    assert p["step_time_s"] > p["step_time_at_2x_bandwidth_s"] > 0.8 * p["step_time_s"]
    # qa280: its headline said 'memory-bound', which one scanning the line reads as what sets the step
    assert re.search(r"step time +[\d.]+ ms +\(overhead-bound: its operators are memory-bound; its bytes set", text), text
    # DeepSeek-V3 on MI300X with SGLang: the experts run at half their ceilings, so the gap is memory time too, and
    # twice the bandwidth buys a third of the step; it said "fixed costs the rest: more bandwidth buys little here"
    amd = roofline.predict("mi300x", "deepseek-v3", 256, 4096, tp=8, engine="sglang")
    assert amd["bytes_time_s"] < 0.5 * amd["step_time_s"] and amd["step_time_at_2x_bandwidth_s"] < 0.7 * amd["step_time_s"]
    # qa333: its bytes were said at the derated bandwidth (39 ms), where twice it saved 29 ms: at the bandwidth the
    # experts' kernels reach they take 58 ms, over half the step, which twice the bandwidth halves: memory sets it
    assert amd["memory_efficiencies"] == {"experts": pytest.approx(load_engine("sglang").for_hardware("mi300x").quantised_moe_efficiency)}
    assert amd["memory_time_s"] > 0.5 * amd["step_time_s"]
    assert amd["step_time_s"] - amd["step_time_at_2x_bandwidth_s"] == pytest.approx(amd["memory_time_s"] / 2, rel=0.02)
    assert "buys little" not in predict_table(amd) and "twice the bandwidth gives" not in predict_table(amd)
    assert "overhead-bound" not in predict_table(amd)  # more bandwidth buys a third: memory sets it
    one = roofline.predict("h200", "deepseek-v3", 1, 4096, tp=8, engine="sglang")  # overhead-bound: the bytes said
    saved_s = one["step_time_s"] - one["step_time_at_2x_bandwidth_s"]
    assert saved_s == pytest.approx(one["memory_time_s"] / 2, rel=0.02) and one["memory_time_s"] > one["bytes_time_s"]
    share = format_significant(round(load_engine("sglang").for_hardware("h200").quantised_moe_efficiency, 4))
    assert (f"its bytes set {format_seconds(one['memory_time_s'])} of the step at the derated bandwidth (experts at {share} "
            "of that bandwidth: sglang's efficiency), and twice the bandwidth gives") in predict_table(one), predict_table(one)
    staged = roofline.predict("h200", "deepseek-v3", 1, 4096, tp=4, pp=2, engine="sglang")  # qa335: the round trip's too
    assert staged["memory_time_s"] > staged["bytes_time_s"]
    assert staged["step_time_s"] - staged["step_time_at_2x_bandwidth_s"] == pytest.approx(staged["memory_time_s"] / 2, rel=0.02)
    int4 = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, weight_dtype="int4", engine="vllm")  # three GEMMs: them
    eta = format_significant(round(load_engine("vllm").for_hardware("h100-sxm").weight_only_efficiency, 4))
    assert set(int4["memory_efficiencies"]) == {"qkv_proj", "o_proj", "mlp"} and not int4["memory_ceilings_measured"]
    # a hardware profile's measured operator ceilings are its own, not the engine's efficiency (qa335)
    calibrated = dataclasses.replace(load_hardware("h200"), attention_memory_bytes_per_s=1.5e12)
    cal = roofline.predict(calibrated, "qwen3-30b-a3b", 1, 4096, engine="vllm")
    assert set(cal["memory_ceilings_measured"]) == {"attention"} and not cal["memory_efficiencies"]
    assert cal["step_time_s"] - cal["step_time_at_2x_bandwidth_s"] == pytest.approx(cal["memory_time_s"] / 2, rel=0.02)
    # qa337: at batch 512 a third of the operators' time is compute-bound: their bytes are not what bandwidth buys
    wide = roofline.predict("h100-sxm", "llama-3.1-8b", 512, 1024)
    assert wide["memory_time_s"] < 0.9 * wide["bytes_time_s"]  # the compute-bound GEMMs' bytes set little of it (p = 3)
    assert wide["step_time_s"] - wide["step_time_at_2x_bandwidth_s"] == pytest.approx(wide["memory_time_s"] / 2, rel=0.1)
    # qa495: the whole bytes' time said beside their share, the division one does by hand (16.5 of 18.0 ms at batch 256)
    assert (f"its bytes set {format_seconds(wide['memory_time_s'])} of the step (of the {format_seconds(wide['bytes_time_s'])} "
            "they take at the derated bandwidth; the rest overlaps compute), and twice the bandwidth gives") in predict_table(wide)
    paced = roofline.predict("b200", "llama-3.2-1b", 2, 2048, pp=2, engine="trtllm")  # qa341: the path that sets the
    assert paced["step_time_s"] - paced["step_time_at_2x_bandwidth_s"] == pytest.approx(paced["memory_time_s"] / 2, rel=0.02)
    hosted = roofline.predict("h100-sxm", "llama-3.2-1b", 1, 2048, tp=8, engine="sglang")  # step, with its host work
    assert f"host-bound, the device's work memory-bound; its bytes take {format_seconds(hosted['memory_time_s'])} at the" in predict_table(hosted)
    for engine in ("sglang", "trtllm"):  # qa339: compute and memory add (overlap exponent 1): every byte's time halves
        added = roofline.predict("h200", "mixtral-8x7b", 1024, 2048, tp=2, engine=engine)
        assert added["step_time_s"] - added["step_time_at_2x_bandwidth_s"] == pytest.approx(added["memory_time_s"] / 2, rel=0.02)
    from roofline.tables import _efficiencies_text

    assert _efficiencies_text(int4) == f" (qkv proj, o proj and mlp at {eta} of that bandwidth: vllm's efficiency)"
    # qa337: a memory-bound step without the bytes' sentence still says its kernels' share; a compute-bound step whose
    # added host work is most of it says so
    assert (f"(memory-bound; its kernels reach less than the derated bandwidth (qkv proj, o proj and mlp at {eta} of that "
            "bandwidth: vllm's efficiency))") in predict_table(int4), predict_table(int4)
    busy = roofline.predict("h100-sxm", "llama-3.1-8b", 300, 256)
    assert busy["bound"] == "compute" and busy["host_on_path_s"] > 0.5 * busy["step_time_s"]  # (its verdict rests on the
    assert (f"; host work, added to the device's time, is {format_seconds(busy['host_on_path_s'])} of it "  # MLP's padded
            f"({busy['host_on_path_s'] / busy['step_time_s']:.0%}))") in predict_table(busy), predict_table(busy)  # rows)
    hosted = roofline.predict("b200", "llama-3.2-1b", 512, 128, engine="sglang")  # overlapped host work sets it: the
    assert hosted["host_overlapped"] and "host work, added" not in predict_table(hosted)  # line says host-bound (qa339)
    assert "(host-bound, the device's work compute-bound" in predict_table(hosted), predict_table(hosted)
    plain = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, engine="ideal")
    assert "its kernels reach" not in predict_table(plain) and "host work, added" not in predict_table(plain)
    assert _efficiencies_text(cal) == (f" (attention at {format_significant(cal['memory_ceilings_measured']['attention'])} "
                                       "of that bandwidth: the hardware profile's operator ceiling)")
    both = roofline.predict(calibrated, "deepseek-v3", 1, 4096, tp=8, engine="sglang")  # qa339: one separator for both
    text = _efficiencies_text(both)  # the groups and their items
    assert text.startswith(" (experts at ") and " of that bandwidth: sglang's efficiency; attention at " in text, text
    q = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, engine="ideal")  # bytes are nearly all of it
    assert q["bytes_time_s"] > 0.9 * q["step_time_s"] and "fixed costs" not in predict_table(q)
    assert "overhead-bound" not in predict_table(q)
    # qa286: DeepSeek-V3's MTP verify pass at batch 1 (1.05 decode steps) was 'memory-bound' beside its step's verdict;
    # its bytes are at most the step's and all the time it adds, under half of it: overhead-bound too
    m = roofline.predict("h200", "deepseek-v3", 1, 4096, tp=8, method="mtp", k=1, alpha=0.85)
    verify = next(x for x in predict_table(m).splitlines() if x.strip().startswith("verify pass"))
    assert m["bytes_time_s"] + m["spec"]["verify_time_s"] - m["step_time_s"] < 0.5 * m["spec"]["verify_time_s"]
    assert "(overhead-bound: its operators are memory-bound; 2 tokens a pass, 1.05x the decode step; " in verify, verify
    big = roofline.predict("h100-sxm", "llama-3.1-8b", 64, 1024, engine="ideal", method="eagle", k=3)  # bytes set it
    assert "overhead-bound" not in predict_table(big)
    for pp in (2, 3):  # qa202: under pp a step crosses every stage, and the note gave one stage's bytes (2.84 of 7.17 ms)
        staged = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, pp=pp, engine="ideal")
        assert staged["bytes_time_s"] == pytest.approx(q["bytes_time_s"], rel=0.01) and "its bytes set" not in predict_table(staged)


def test_the_cost_of_a_point_that_does_not_fit_says_it_is_not_reachable():
    p = roofline.predict("h100-sxm", "llama-3.1-70b", 1, 1024)  # 141 GB of bf16 weights on one 80 GB device
    assert not p["fits_in_memory"] and p["cost_usd_per_million_tokens"] is not None
    assert "(1 x $3.00/h; decoding only; not reachable: fits in memory NO, below)" in predict_table(p)
    assert "not reachable" not in predict_table(roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024))
    (line,) = [x for x in predict_table(p).splitlines() if x.startswith("  tokens/s per user ")]  # qa377: quoted bare
    assert line.endswith("   (not reachable: fits in memory NO, below)"), line


def test_a_compute_bound_step_says_how_much_of_its_time_is_in_compute_bound_operators():
    """'33.2 ms (compute-bound)' beside an intensity of 171 against a ridge of 278: the step is called compute-bound
    where over half its operators' time is in compute-bound operators (its GEMMs), which the line now says."""
    p = roofline.predict("h100-sxm", "llama-3.1-70b", 370, 1024, tp=4, engine="ideal")
    assert p["bound"] == "compute" and 0.5 < p["compute_bound_share"] < 0.95
    assert p["arithmetic_intensity_flops_per_byte"] < p["derated_ridge_point_flops_per_byte"]
    assert f"(compute-bound: {p['compute_bound_share']:.0%} of its operators' time in compute-bound operators)" in predict_table(p)
    plain = roofline.predict("h100-sxm", "llama-3.1-8b", 1)
    assert plain["compute_bound_share"] < 0.05 and "operators' time" not in predict_table(plain)


@pytest.mark.slow
def test_predict_says_what_bounds_the_verify_pass_and_where_its_speculative_figures_are_estimates():
    """An engineer choosing k read 'speedup 0.917x' with no word that the verify pass had turned compute-bound, no
    caveat at batch 64 under vLLM (which report and cheapest give), a best k from one alpha at every position said
    without its caveat, and an expert dispatch of 7.7 ms of a 34.5 ms step resting on a prior, labelled all-to-all
    though the engine all-gathers (qa61)."""
    def notes(p, phrase):
        return [w for w in p["warnings"] if phrase in w]

    big = roofline.predict("h100-sxm", "llama-3.1-70b", 300, 512, tp=4, method="eagle", k=4, alpha=0.6)
    assert re.search(r"verify pass +[\d.]+ ms  \(compute-bound; 1,500 tokens a pass, [\d.]+x the decode step; compute-bound "
                     r"from batch \d+, [\d,]+ tokens a pass; its tp all-reduces of ", predict_table(big))
    small = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, method="eagle", k=4, alpha=0.6, engine="ideal")
    assert re.search(r"verify pass +[\d.]+ ms  \(memory-bound; 5 tokens a pass, 1\.0\dx the decode step; compute-bound from "
                     r"batch \d+, [\d,]+ tokens a pass\)", predict_table(small))
    assert notes(big, "run optimistic (docs/ACCURACY.md), so read this speedup as an upper estimate")
    assert not notes(small, "upper estimate")  # ideal, and batch 1
    at16 = roofline.predict("h100-sxm", "llama-3.1-70b", 16, 512, tp=4, method="eagle", k=4, alpha=0.6)
    assert not notes(at16, "so read this speedup as an upper estimate")  # the point's own speedup: batch 16 is below 32
    assert notes(at16, "the break-even batch")  # its break-even (above 32) is an estimate of that range, said as such
    one_alpha = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, method="eagle", k=2, alpha=0.8)
    assert one_alpha["spec"]["best_k"] > 2 and notes(one_alpha, f"best k {one_alpha['spec']['best_k']} takes alpha 0.8 at every draft position")
    rates = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, method="eagle", k=2, acceptance=[0.8, 0.7, 0.6])
    assert not notes(rates, "takes alpha")  # per-position rates: not the single alpha's note (its own past the rates)
    moe = roofline.predict("h200", "qwen3-235b-a22b", 64, 4096, dp_attention=8, ep=8, engine="sglang", method="eagle", k=3, alpha=0.7)
    assert moe["moe_dispatch"] == "allgather" and moe["all_to_all_time_s"] > 0
    assert not notes(moe, "a prior")  # an all-gather pays the engine's allreduce_latency, as at ep 1 (qa139)
    text = predict_table(moe)
    assert "expert dispatch " in text and "(all-gather + reduce-scatter: moe_dispatch allgather)" in text and "all-to-all" not in text
    assert "host work added: the engine does not overlap it while speculating" in text  # SGLang's spec V1
    deepep = dataclasses.replace(roofline.load_engine("sglang"), moe_dispatch="per_pair")  # DeepEP's kernels: the prior
    moe = roofline.predict("h200", "qwen3-235b-a22b", 64, 4096, dp_attention=8, ep=8, engine=deepep, method="eagle", k=3, alpha=0.7)
    assert moe["all_to_all_time_s"] > 0.1 * moe["step_time_s"]
    assert notes(moe, "step; it pays sglang's all_to_all_latency (40 us) twice a MoE layer, a prior no measured row determines")
    assert not notes(roofline.predict("h200", "qwen3-235b-a22b", 64, 4096, dp_attention=8, ep=8, engine="ideal"), "a prior")


def test_predict_prints_the_bytes_and_flops_of_a_step_and_what_a_moe_layer_reads_on_its_busiest_rank():
    """A student checking the step by hand summed the weights and the KV cache (5.83 ms) against the tool's 5.48 ms:
    the embedding is gathered, not streamed, and the step's bytes were only in --json; the experts a MoE layer reads
    on its busiest rank were printed nowhere (qa64)."""
    from roofline.costs import busiest_rank_experts

    dense = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 4096)
    assert "experts_busiest_rank" not in dense
    assert f"bytes / FLOPs        {format_si(dense['bytes'], 'B')} / {format_si(dense['flops'], 'FLOP')} a step" in predict_table(dense)
    moe = roofline.predict("h200", "deepseek-v3", 8, 1024, dp_attention=8, ep=8)
    touched, pairs = busiest_rank_experts(256, 8, 8, 8, 8, 4)
    assert moe["experts_busiest_rank"] == {"experts": 32, "touched": float(touched), "token_expert_pairs": float(pairs),
                                           "sequences_a_pass": 8.0}
    assert (f"experts a MoE layer  the busiest rank reads {float(touched):.3g} of its 32 ({float(pairs):.3g} token-expert "
            "pairs; 8 ranks)") in predict_table(moe)
    # qa266: ep 4 of 8 devices splits each expert over 2 (layout.expert_tp), said; ep over every device splits none
    half = predict_table(roofline.predict("h200", "deepseek-v3", 8, 1024, tp=8, ep=4, engine="ideal"))
    assert "4 ranks, each expert split over 2 devices)" in half and "each expert split" not in predict_table(moe)
    staged = roofline.predict("h200", "deepseek-v3", 8, 1024, tp=2, pp=4)  # a micro-batch of 2 sequences a stage pass
    assert staged["experts_busiest_rank"]["touched"] == pytest.approx(float(busiest_rank_experts(256, 8, 2, 1)[0]))


@pytest.mark.slow
def test_the_dispatch_prior_warning_is_gone_once_the_value_is_the_users_and_mtp_names_the_k_asked_for(request, tmp_path):
    """The warning told a user who had set all_to_all_latency in a copy (engines new --set) that its 20 us was an
    unmeasured prior and to make the copy again; and MTP at k 2 spoke only of best k 7 past its one trained module (qa63)."""
    roofline_cli = request.getfixturevalue("roofline")  # the CLI fixture, named like the module imported here
    code, _, err = roofline_cli("engines", "new", "deepep-sglang", "--from", "sglang", "--set", "moe_dispatch=per_pair",
                                "--dir", tmp_path)  # DeepEP's kernels pay all_to_all_latency (an all-gather does not: qa139)
    assert code == 0, err
    code, _, err = roofline_cli("engines", "new", "my-sglang", "--from", "sglang", "--set", "moe_dispatch=per_pair",
                                "--set", "all_to_all_latency=20 us", "--dir", tmp_path)
    assert code == 0, err
    args = dict(dp_attention=8, ep=8, method="eagle", k=3, alpha=0.7)
    built_in = roofline.predict("h200", "qwen3-235b-a22b", 64, 4096, engine="deepep-sglang", profiles=(tmp_path,), **args)
    assert [w for w in built_in["warnings"] if "a prior no measured row determines" in w]
    mine = roofline.predict("h200", "qwen3-235b-a22b", 64, 4096, engine="my-sglang", profiles=(tmp_path,), **args)
    assert mine["all_to_all_time_s"] > 0.1 * mine["step_time_s"]
    assert not [w for w in mine["warnings"] if "a prior" in w]
    mtp = roofline.predict("h200", "deepseek-v3", 1, 1024, tp=8, method="mtp", k=2, alpha=0.8)
    assert [w for w in mtp["warnings"] if f"k 2 and best k {mtp['spec']['best_k']} exceed its 1 trained MTP module" in w]


@pytest.mark.slow
def test_overlapped_host_work_is_not_named_as_a_cost_and_rates_past_the_list_get_the_best_k_caveat():
    """Under sglang (host work overlapped) the step line named 1.51 ms of host work first, though the step is the
    larger of the device's 2.63 ms and it; --acceptance 0.9 at k 1 gave best k 10 without the caveat --alpha 0.9 gets,
    its positions past the list taking its last rate (qa62)."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, tp=8, engine="sglang")
    assert p["host_overlapped"] and 0 < p["host_time_s"] < p["step_time_s"]
    text = predict_table(p)
    assert "set the rest" in text and "host work 1" not in text.splitlines()[2]
    r = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, method="eagle", k=1, acceptance=[0.9])
    (note,) = [w for w in r["warnings"] if "best k" in w]
    assert note.startswith(f"best k {r['spec']['best_k']} takes the one rate given (0.9) at every draft position past it")


def test_overlapped_host_work_that_outlasts_the_device_is_said_to_set_the_step():
    """'host work (1.51 ms, overlapped and longer than the device's time) set the rest': it sets the whole step; and
    where twice the bandwidth lands on the overlapped host work, that floor went unnamed (qa67)."""
    p = roofline.predict("h200", "llama-3.2-1b", 1, 256, engine="sglang")
    assert p["host_overlapped"] and p["host_time_s"] >= p["step_time_s"] * (1 - 1e-9)
    line = predict_table(p).splitlines()[2]
    assert "overlapped, longer than the device's time) sets the step, more bandwidth buys nothing here" in line, line
    q = roofline.predict("h200", "tinyllama-1.1b", 2, 256, tp=2, engine="sglang")
    assert q["host_time_s"] < q["step_time_s"] and q["host_time_s"] >= 0.98 * q["step_time_at_2x_bandwidth_s"]
    assert "is its floor" in predict_table(q).splitlines()[2]
    staged = predict_table(roofline.predict("h200", "deepseek-v3", 8, 1024, tp=2, pp=4))
    assert "micro-batches of 2 sequences on average, B / min(B, pp))" in staged


def test_engines_show_lists_as_undetermined_only_what_the_fit_still_holds():
    """A copy with host_per_step set by hand still listed it as 'determined by no row' (qa87): the value is the user's."""
    from roofline.tables import _fitted_lines

    fitted = {"rows": "3 rows", "file": "f.csv", "parameters": ["kernel_latency", "host_per_sequence"],
              "not_determined_by_rows": ["host_per_step", "host_per_sequence", "kernel_latency [AMD Instinct]"],
              "bounds_hit": ["host_per_step"]}
    lines = {line.split("  ")[2].strip(): line for line in _fitted_lines(fitted)[1:]}
    assert lines["determined by no row"].endswith("host_per_sequence, kernel_latency [AMD Instinct]")
    assert lines["at a bound"].endswith("none")
    assert _fitted_lines({}) == ["  fitted                    no (every value as its source gives it)"]


def test_a_k_0_point_says_no_drafter_is_held(roofline):
    """`predict --method eagle --k 0` printed 'drafter memory 0 B' and 'max batch 453 with the drafter' (qa101)."""
    code, out, _ = roofline("predict", "--method", "eagle", "--k", "0")
    assert code == 0 and "drafter memory" not in out and "(max batch 428: k 0 holds no drafter)" in out  # 425 with session 35's reserve
    # nor acceptance rates it does not use (qa105: 'k 0  acceptance [0.72, 0.53, 0.5]')
    assert "speculation: eagle  k 0  (nothing drafted: plain decoding)" in out and "acceptance [" not in out
    assert "= one decode step (k 0: nothing drafted or verified)" in out and "draft 0 s" not in out  # qa215
    code, out, _ = roofline("predict", "--method", "eagle", "--k", "3", "--alpha", "0.8")
    assert "drafter memory     508 MB per device" in out and "with the drafter)" in out


def test_a_cost_ratio_near_one_is_not_rounded_to_one():
    """'speculation costs 1x plain decoding's' where it cost $0.183 against $0.182 (qa105); 2.004 printed '2x' and
    0.3799 '0.38x' beside '0.384x', read as exact (qa241): three significant digits, zeros kept."""
    from roofline.tables import _ratio

    assert [_ratio(x) for x in (1.004, 0.9996, 1.0, 0.183 / 0.182, 0.471, 1.22)] == ["1.004", "0.9996", "1.00", "1.01", "0.471", "1.22"]
    assert [_ratio(x) for x in (2.004, 0.3799, 0.5, 123.4)] == ["2.00", "0.380", "0.500", "123"]


@pytest.mark.slow
def test_a_drafter_that_does_not_draft_at_k_0_is_not_said_to_be_paid():
    """qa118: at --k 0 the cost said '(the drafter's device included)' where only the target's devices are charged."""
    p = roofline.predict("h100-sxm", "llama-3.1-70b", 8, 2048, tp=4, method="draft", draft="llama-3.2-1b",
                         draft_hardware="l4", alpha=0.8, k=0)
    assert p["spec"]["cost_usd_per_million_tokens"] == pytest.approx(4 * 3.0 / 3600 / p["spec"]["tokens_per_s"] * 1e6, rel=1e-12)
    (line,) = [x for x in predict_table(p).splitlines() if x.startswith("    cost ")]
    assert line.endswith("per million tokens") and "drafter" not in line


@pytest.mark.slow
def test_a_moe_verify_pass_says_the_experts_it_reads_beside_the_decode_steps():
    """qa119: the verify pass of B (k + 1) tokens reads more experts than the decode step's, the number an EP user
    checks; predict gave the decode step's only."""
    from roofline.costs import busiest_rank_experts

    p = roofline.predict("h200", "deepseek-v3", 1, dp_attention=8, ep=8, method="mtp", k=2, alpha=0.8)
    v = p["spec"]["verify_experts_busiest_rank"]
    touched, pairs = busiest_rank_experts(256, 8, 3, 8, 8, 4)
    assert v == {"experts": 32, "touched": pytest.approx(float(touched)), "token_expert_pairs": pytest.approx(float(pairs)),
                 "tokens_a_pass": 3.0}
    assert v["touched"] > p["experts_busiest_rank"]["touched"]
    assert (f"    experts a layer    the busiest rank reads {format_significant(v['touched'])} of its 32 "
            f"({format_significant(v['token_expert_pairs'])} token-expert pairs of 3 tokens; "
            f"{format_significant(p['experts_busiest_rank']['touched'])} a decode step; each token routed on its own: an "
            "upper estimate where a sequence's tokens share experts)") in predict_table(p)  # (qa433: unsaid)
    assert "verify_experts_busiest_rank" not in roofline.predict("h200", "llama-3.1-8b", 1, method="eagle", k=2, alpha=0.8)["spec"]


def test_models_show_says_deepseek_v4_s_fixed_size_index_keys_once():
    """qa131: one fp8 key of 132 B was listed once per KV dtype: 'index keys of 132 B (fp32), ... (bf16), ... (int8)'."""
    from roofline.model import load_model
    from roofline.tables import model_table

    text = model_table(load_model("deepseek-v4-flash"))
    assert text.count("index keys of") == 1 and "index keys of 132 B (whatever the KV dtype)" in text


def test_an_mtp_drafter_of_fp4_experts_says_its_experts_dtype():
    """qa131: DeepSeek-V4-Flash's MTP module, its routed experts priced in fp4 as the target's, was labelled 'fp8 weights'."""
    import roofline
    from roofline.tables import predict_table

    out = roofline.predict("h200", "deepseek-v4-flash", tp=8, method="mtp", k=1, alpha=0.8)
    assert out["spec"]["drafter_expert_dtype"] == "fp4"
    # qa273: and its eh_proj, a plain linear layer held unquantised (205 MB of DeepSeek-V3's 1.67 GB at tp 8), said
    assert ": its weights (fp8, fp4 experts, as the target's; its input projection unquantised) and its KV cache" in predict_table(out)
    bf16 = roofline.predict("h200", "deepseek-v3", tp=8, method="mtp", k=1, alpha=0.8, weight_dtype="bf16")
    assert ": its weights (bf16, as the target's) and its KV cache" in predict_table(bf16)


def test_the_drafter_memory_line_says_it_holds_the_kv_cache_too():
    """Session 36's note: 'drafter memory 1.37 GB per device (bf16 weights, ...)' named the weights alone, where the
    figure is the drafter's weights and its KV cache at this batch."""
    import roofline
    from roofline.tables import predict_table

    out = roofline.predict("h100-sxm", "llama-3.1-70b", tp=2, method="draft", draft="llama-3.2-1b", k=4, alpha=0.8, batch=8)
    line = next(row for row in predict_table(out).splitlines() if "drafter memory" in row)
    assert line.endswith("per device: its weights (bf16, the target's attention dtype) and its KV cache"), line


def test_an_overrides_flags_are_shown_as_yaml_writes_them():
    """qa143: `engines show` printed an override's flags as Python's False and True."""
    from roofline.tables import _override_value

    assert _override_value("ep_spans_stage", False) == "false" and _override_value("host_overlap", True) == "true"
    assert _override_value("kernel_latency_s", 3e-6) == "3 us" and _override_value("quantised_moe_efficiency", 0.5) == "0.5"


def test_a_frontier_speed_under_the_target_never_reads_as_reaching_it():
    """qa145: 149.957 tokens/s per user printed as 150 beside a pick at --min-tokens-per-user 150: the row looked fast
    enough and cheaper than the pick."""
    from roofline.tables import _speed_text

    assert [_speed_text(149.957, 150), _speed_text(99.95, 100), _speed_text(19.98, 20)] == ["149.96", "99.95", "19.98"]
    assert [_speed_text(150.2, 150), _speed_text(149.957, None), _speed_text(21.7, 50)] == ["150", "150", "21.7"]


@pytest.mark.slow
def test_an_all_reduce_dp_gather_is_not_said_as_an_all_gather():
    """qa146: under sglang-early (dp_gather allreduce) predict said the dispatch was an all-gather + reduce-scatter."""
    early = roofline.predict("h200", "deepseek-v3", 64, 2048, engine="sglang-early", dp_attention=8, ep=8)
    assert early["dp_gather"] == "allreduce"
    assert "(two all-reduces: moe_dispatch allgather, dp_gather allreduce)" in predict_table(early)
    now = roofline.predict("h200", "deepseek-v3", 64, 2048, engine="sglang", dp_attention=8, ep=8)
    assert "(all-gather + reduce-scatter: moe_dispatch allgather)" in predict_table(now)


@pytest.mark.slow
def test_an_allgather_dispatch_over_a_tenth_of_the_step_says_its_latency_is_a_lower_estimate():
    """qa149: the dispatch's all-gather and reduce-scatter pay the engine's allreduce_latency (a custom all-reduce's),
    a lower estimate for NCCL's; where it weighs, predict said nothing (the DeepEP prior's note covers DeepEP only)."""
    slow = dataclasses.replace(roofline.load_engine("vllm"), allreduce_latency_s=40e-6)
    p = roofline.predict("h200", "gpt-oss-120b", 512, 2048, engine=slow, dp_attention=8, ep=8)
    assert p["all_to_all_time_s"] > 0.1 * p["step_time_s"]
    # qa152: the latency is an all-reduce's as measured on the device (sglang's on MI300X is RCCL's), not "a custom one's"
    assert [w for w in p["warnings"] if "step; its two collectives a MoE layer pay vllm's allreduce_latency (40 us, a small all-reduce's as measured), a lower "
                                         "estimate for the all-gather and reduce-scatter it runs" in w]
    early = roofline.predict("h200", "gpt-oss-120b", 512, 2048, engine=dataclasses.replace(slow, dp_gather="allreduce"),
                             dp_attention=8, ep=8)  # two all-reduces, as allreduce_latency was measured (qa150)
    assert early["all_to_all_time_s"] > 0.1 * early["step_time_s"] and not [w for w in early["warnings"] if "lower estimate" in w]
    quick = roofline.predict("h200", "gpt-oss-120b", 512, 2048, engine="vllm", dp_attention=8, ep=8)
    assert quick["all_to_all_time_s"] < 0.1 * quick["step_time_s"] and not [w for w in quick["warnings"] if "lower estimate" in w]


def test_predict_says_where_its_usable_memory_comes_from(roofline):
    """Since session 35 the usable memory is the engine's share less its reserve; predict names it."""
    code, out, _ = roofline("predict")
    reserve = 0.12 * 2**30 + 6.2 * 1024 * 128256 * 4  # vllm.yaml's reserve for Llama 3.1 8B at tp 1 on an H100
    import roofline as api
    from roofline.units import format_binary

    usable = format_binary(api.predict("h100-sxm", "llama-3.1-8b")["usable_memory_bytes"])  # in GiB too, as engines log
    assert code == 0 and f" of {usable}: vllm's 0.9 of 85.5 GB less {reserve / 1e9:.3g} GB reserved;" in out
    code, out, _ = roofline("predict", "--engine", "ideal")
    assert code == 0 and " of 71.7 GiB: the hardware profile's 90% of 85.5 GB;" in out  # 0.9 x 81,559 MiB


@pytest.mark.slow
def test_what_an_engine_keeps_in_a_parallel_layout_is_said_in_engines_show():
    """sglang's share shrinks with the replica's devices and its attention-DP groups (server_args.py): `engines show`
    says by how much; an engine keeping none says nothing of it."""
    from roofline.serving import load_engine
    from roofline.tables import engine_table

    assert ("0.835 of (the memory less what it holds before measuring it: 999 MB (its GPU context), 1.48 GB (its "
            "communicators) more on a stage of more than one device); less 134 MB for each device of the replica past the "
            "first, 2.42 GB for each attention-DP group at dp_attention > 1") in engine_table(load_engine("sglang"))
    import dataclasses

    parallel_only = dataclasses.replace(load_engine("sglang"), memory_before_share_bytes=0.0)  # qa369: 'more' than nothing
    assert "(the memory less what it holds before measuring it: 1.48 GB (its communicators) on a stage of more than one device)" in engine_table(parallel_only)
    assert "for each device of the replica" not in engine_table(load_engine("vllm"))
    # a share of the free memory takes its reserve inside, 0.9 (M - W - R): not "less" after it (qa172)
    assert ("0.9 of the memory left beside the weights and a reserve (4.95 GB, 676 MB more on a stage of more than one "
            "device)") in engine_table(load_engine("trtllm"))


def test_engines_show_says_what_an_engine_runs_while_speculating():
    from roofline.serving import load_engine
    from roofline.tables import engine_table

    sglang = next(line for line in engine_table(load_engine("sglang")).splitlines() if "while speculating" in line)
    assert "at most 48 sequences at once, its own cap left as it is" in sglang and "no draft-model or ngram drafting under attention DP" in sglang
    assert "no speculation at pp > 1" in sglang
    vllm = next(line for line in engine_table(load_engine("vllm")).splitlines() if "while speculating" in line)
    assert "no speculation at pp > 1" in vllm and "48" not in vllm  # qa229
    assert "no cap of its own on the batch, and every method under any layout" in engine_table(load_engine("ideal"))


def test_an_ngram_point_says_it_holds_no_drafter():
    """qa176: n-gram printed 'drafter memory 0 B per device' and 'max batch ... with the drafter'."""
    import roofline
    from roofline.tables import predict_table

    text = predict_table(roofline.predict("h100-sxm", "llama-3.1-8b", method="ngram", k=2, alpha=0.5))
    assert "drafter memory     none (n-gram drafts by looking up the context)" in text and "0 B per device" not in text
    assert "with the drafter" not in text


@pytest.mark.slow
def test_the_iteration_line_names_each_part_of_its_sum():
    """qa186: the engine's bookkeeping an iteration (spec_per_iteration...) and the link round trip to a drafter on
    another device were one unnamed 'other'; each is named now, and left out where it is zero (the ideal engine)."""
    vllm = roofline.predict("h100-sxm", "llama-3.1-8b", batch=8, context=4096, method="draft", draft="llama-3.2-1b",
                            alpha=0.8, k=4, draft_hardware="l40s", overlap=False)
    line = re.search(r"iteration +(.*)", predict_table(vllm)).group(1)
    spec = vllm["spec"]
    one = spec["draft_time_s"] / 4  # a pass, and c over the plain step (qa374: a researcher divided by k)
    kept = spec["draft_bookkeeping_time_s"] / 4  # qa396: the engine's bookkeeping a draft step, said within the pass
    from roofline.serving import load_engine

    l40s = load_engine("vllm").for_other_hardware(roofline.load_hardware("l40s"))
    assert kept == pytest.approx(l40s.spec_per_draft_step_s + 8 * l40s.spec_per_draft_step_per_sequence_s, rel=1e-12)
    assert line == (f"{format_seconds(spec['iteration_time_s'])} = draft {format_seconds(spec['draft_busy_time_s'])} "
                    f"(4 passes of {format_seconds(one)}, each with {format_seconds(kept)} of the engine's bookkeeping, "
                    f"c = {one / vllm['step_time_s']:.3g} of a decode step, {(one - kept) / vllm['step_time_s']:.3g} for "
                    "the drafter's pass alone) + "
                    f"verify {format_seconds(spec['verify_busy_time_s'])} + link {format_seconds(spec['transfer_time_s'])} + "
                    f"bookkeeping {format_seconds(spec['overhead_time_s'])}")
    assert spec["transfer_time_s"] > 0 and spec["overhead_time_s"] > 0
    ideal = roofline.predict("h100-sxm", "llama-3.1-8b", batch=8, context=4096, method="draft", draft="llama-3.2-1b",
                             alpha=0.8, k=4, engine="ideal")
    line = re.search(r"iteration +(.*)", predict_table(ideal)).group(1)
    assert "link" not in line and "bookkeeping" not in line and "other" not in line and line.count(" + ") == 1
    one = roofline.predict("h100-sxm", "llama-3.1-8b", batch=8, method="eagle", alpha=0.8, k=1)  # qa378: '1 passes of'
    assert re.search(r"iteration +.* \(1 pass of [0-9.]+ [um]?s, with [0-9.]+ [um]?s of the engine's bookkeeping, c = ",
                     predict_table(one)), predict_table(one)
    two = roofline.predict("h100-sxm", "llama-3.1-8b", batch=8, method="eagle", alpha=0.8, k=2)
    assert re.search(r"iteration +.* \(2 passes of [0-9.]+ [um]?s, each with [0-9.]+ [um]?s of", predict_table(two)), predict_table(two)
    low = roofline.predict("h100-sxm", "llama-3.1-8b", batch=8, method="eagle", alpha=0.05, k=1)  # qa378: 'none', no why
    assert low["spec"]["break_even_batch"] is None and low["spec"]["speedup"] < 1
    assert "    break-even batch   none at k 1: speculation pays at no batch that fits\n" in predict_table(low)
    ngram = roofline.predict("h100-sxm", "llama-3.1-8b", batch=8, method="ngram", alpha=0.6, k=4)  # qa374: 'draft 0 s'
    line = re.search(r"iteration +(.*)", predict_table(ngram)).group(1)
    assert line == (f"{format_seconds(ngram['spec']['iteration_time_s'])} = verify "
                    f"{format_seconds(ngram['spec']['verify_busy_time_s'])} + bookkeeping "
                    f"{format_seconds(ngram['spec']['overhead_time_s'])}  (its drafts looked up in the context, no pass "
                    "of a drafter; the lookup's host time is in the bookkeeping, and a sequence whose context holds no "
                    "match drafts nothing: α stands for the workload's repetition on average)")


def test_the_best_k_line_gives_what_that_k_gives():
    """qa202: predict named the best k (3) but not its result: a second run with --k 3 told 1.810x."""
    p = roofline.predict("h100-sxm", "llama-3.1-70b", 32, 1024, tp=4, method="eagle", k=4, engine="vllm")
    best = p["spec"]["best_k"]
    at_best = roofline.predict("h100-sxm", "llama-3.1-70b", 32, 1024, tp=4, method="eagle", k=best, engine="vllm")["spec"]
    assert best != 4 and p["spec"]["best_k_speedup"] == pytest.approx(at_best["speedup"])
    assert p["spec"]["best_k_tokens_per_s_per_user"] == pytest.approx(at_best["tokens_per_s_per_user"])
    assert f"best k here        {best}  ({at_best['speedup']:.3f}x, " in predict_table(p)
    # qa273: the range searched, said (a sweep's best_k is of its swept k alone: 6 here against its 4)
    assert "tokens/s per user, the best of k = 0-64)" in predict_table(p)


@pytest.mark.slow
def test_the_optimistic_caveat_under_a_users_own_profile_says_whose_evidence_it_is(tmp_path):
    """qa203: 'batch 32 under my-vllm-fit: ... run optimistic' read as the user-fitted profile's own finding; the evidence
    is the shipped profiles' against published speculative curves."""
    from roofline.serving import load_engine

    (tmp_path / "mine.yaml").write_text(Path(load_engine("vllm").path).read_text().replace("name: vllm\n", "name: mine\n", 1))
    said = [w for w in roofline.predict("h100-sxm", "llama-3.1-8b", 32, 1024, method="eagle", engine=str(tmp_path / "mine.yaml"))["warnings"]
            if "run optimistic" in w]
    assert len(said) == 1 and "found for the shipped profiles against published speculative curves" in said[0]
    shipped = [w for w in roofline.predict("h100-sxm", "llama-3.1-8b", 32, 1024, method="eagle")["warnings"] if "run optimistic" in w]
    assert len(shipped) == 1 and "found for the shipped" not in shipped[0]
    import warnings

    from roofline.errors import RooflineWarning

    scenario = {"name": "mine", "hardware": "h100-sxm", "model": "llama-3.1-8b", "engine": str(tmp_path / "mine.yaml"),
                "method": "eagle", "axes": {"batch": [1, 64], "context": [1024], "k": [3]}}
    with warnings.catch_warnings(record=True) as caught:  # qa204: the sweep said it bare
        warnings.simplefilter("always")
        roofline.sweep(scenario)
    said = [str(w.message) for w in caught if issubclass(w.category, RooflineWarning) and "run optimistic" in str(w.message)]
    assert len(said) == 1 and "found for the shipped profiles" in said[0]
    (tmp_path / "vllm.yaml").write_text(Path(load_engine("vllm").path).read_text())  # a user's vllm, which vllm-v0 takes
    v0 = roofline.predict("h100-sxm", "llama-3.1-8b", 32, 1024, method="eagle", engine="vllm-v0", profiles=(str(tmp_path),))
    assert [w for w in v0["warnings"] if "run optimistic" in w and "found for the shipped profiles" in w]


@pytest.mark.slow
def test_a_tree_without_its_depth_says_the_depth_it_took():
    """qa207: --tree-nodes 25 --tree-tau 3.61 without --k ran at depth 4 (2.63x where depth 5 gives 2.51x), in silence."""
    said = [w for w in roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, method="eagle", tree_nodes=25, tree_tau=3.61)["warnings"]
            if w.startswith("tree of 25 nodes at depth k = 4, the default")]
    given = [w for w in roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, method="eagle", k=5, tree_nodes=25, tree_tau=3.61)["warnings"]
             if w.startswith("tree of")]
    assert len(said) == 1 and not given
    medusa = [w for w in roofline.predict("a100-sxm-80gb", "vicuna-7b-v1.3", 1, 512, method="medusa", tree_nodes=63,
                                          tree_tau=2.32)["warnings"] if w.startswith("tree of")]
    assert medusa == [w for w in medusa if w.startswith("tree of 63 nodes at k = 4 heads, the default") and "give k, Medusa's heads" in w]
    assert len(medusa) == 1  # qa402: Medusa's k is its heads, said as a depth


@pytest.mark.slow
def test_a_layout_no_engine_setup_runs_is_said_first_and_without_a_moot_cap():
    """qa210: 'no trtllm setup has this layout' came 4th of 7 warnings, after notes on priors; beside SGLang's refusal of
    speculation at pp 2, its cap of 48 sequences while speculating was said of a setup that never runs."""
    layout = roofline.predict("b200", "qwen3-235b-a22b", 1, 4096, tp=2, dp_attention=4, ep=8, engine="trtllm", method="eagle")
    assert "no trtllm setup has this layout" in layout["warnings"][0]
    pp = roofline.predict("h200", "deepseek-v3", 64, 1024, tp=4, pp=2, engine="sglang", method="mtp")
    assert "refuses speculative decoding with pipeline parallelism" in pp["warnings"][0]
    assert not [w for w in pp["warnings"] if "at most 48 sequences" in w]
    capped = roofline.predict("h200", "deepseek-v3", 64, 1024, tp=8, engine="sglang", method="mtp")
    assert [w for w in capped["warnings"] if "at most 48 sequences" in w]  # without the refusal, the cap is said


def test_cheapest_says_where_its_two_picks_run_on_different_layouts():
    """qa214: 'speculation costs 0.0359x plain decoding's' compared tp 8 at batch 8 with dp attention 8, ep 8 at batch 256
    without a word: the ratio is of two deployments."""
    import pandas as pd

    from roofline.tables import _picks_differ
    plain = pd.Series({"hardware": "h200", "engine": "vllm", "layout": "tp 8", "batch": 8})
    spec = pd.Series({"hardware": "h200", "engine": "vllm", "layout": "dp attention 8, ep 8", "batch": 256})
    assert _picks_differ(plain, spec) == ("; the picks differ in layout (plain tp 8, speculation dp attention 8, ep 8): the "
                                          "ratio is of the two, not of one deployment with and without speculation")
    assert _picks_differ(plain, pd.Series({**spec, "layout": "tp 8"})) == ""  # the batch differs anyway: not said
    assert "differ in hardware and layout (plain h200, tp 8, speculation b200, dp" in _picks_differ(plain, pd.Series({**spec, "hardware": "b200"}))
    # another model or dtype too (qa436: Llama 3.1 70B's plain pick against MiniMax-M2.7's speculative one, unsaid)
    llama = pd.Series({"model": "llama-3.1-70b", "hardware": "mi325x", "engine": "vllm", "layout": "tp 4",
                       "weight_dtype": "bf16", "expert_dtype": float("nan"), "kv_dtype": "bf16", "context": 4096})
    minimax = pd.Series({**llama, "model": "minimax-m2.7", "weight_dtype": "fp8", "expert_dtype": "fp8"})
    assert _picks_differ(llama, minimax).startswith("; the picks differ in model and weight dtype (plain llama-3.1-70b, "
                                                    "bf16, speculation minimax-m2.7, fp8): ")  # a dense model's experts: none
    assert "differ in KV dtype and context (plain bf16, 4096, speculation fp8, 8192)" in _picks_differ(
        llama, pd.Series({**llama, "kv_dtype": "fp8", "context": 8192}))


def test_the_host_work_line_says_what_it_is_made_of_and_a_best_k_of_0_says_why():
    """qa230: 'host work 7.7 ms' did not say it was 60.2 us a sequence x 128; 'best k here 0 (1.000x)' sat under a
    speedup of 1.98x with its reason (no drafter fits) further down."""
    import roofline

    p = roofline.predict("a100-sxm-80gb", "llama-3.1-8b", 128, 2048)
    line = next(x for x in predict_table(p).splitlines() if x.startswith("  host work"))
    from roofline.serving import load_engine

    per_sequence = format_seconds(load_engine("vllm").host_per_sequence_s)  # the shipped profile's (60.8 us, session 46)
    assert line.endswith(f"(added to the device time, not overlapped; vllm: 0 s a step + {per_sequence} a sequence x 128)"), line
    p = roofline.predict("l4", "llama-3.1-8b", 1, 32768, method="eagle", k=3, alpha=0.7)
    line = next(x for x in predict_table(p).splitlines() if "best k here" in x)
    assert line.endswith("; no k >= 1 fits in memory with the drafter)"), line
    p = roofline.predict("a10g", "vicuna-7b-v1.3", 46, 256, engine="vllm", method="medusa", k=8, alpha=0.05)
    line = next(x for x in predict_table(p).splitlines() if "best k here" in x)  # qa232: k 8 does not fit, k 1 does
    assert not p["spec"]["fits_in_memory"] and p["spec"]["drafting_fits"] and line.endswith("; no k >= 1 is faster than plain decoding)")


@pytest.mark.slow
def test_a_speculative_speedup_no_deployment_reaches_says_so_beside_it():
    """qa231: 'speedup 2.551x' and its cost where the drafter does not fit, and 1.969x for Medusa under sglang (which
    has no Medusa drafter), each read as a gain; the plain cost line already said 'not reachable'."""
    import roofline

    p = roofline.predict("h100-sxm", "llama-3.1-70b", 1, 4096, tp=2, engine="sglang", method="eagle", k=3, alpha=0.8)
    lines = predict_table(p).splitlines()
    assert not p["spec"]["fits_in_memory"] and p["spec"]["engine_refuses"] == []
    for label in ("    speedup ", "    cost  "):
        assert next(x for x in lines if x.startswith(label)).endswith("(not reachable: fits in memory NO with the drafter, below)")
    p = roofline.predict("h200", "llama-3.1-70b", 8, 4096, tp=2, engine="sglang", method="medusa", k=3, alpha=0.7)
    assert p["spec"]["engine_refuses"] and p["warnings"][0] == p["spec"]["engine_refuses"][0]
    assert next(x for x in predict_table(p).splitlines() if x.startswith("    speedup ")).endswith(
        "(no sglang setup runs it: the warning that says so tells why)")
    p = roofline.predict("h200", "llama-3.1-70b", 8, 4096, tp=2, engine="vllm", method="medusa", k=3, alpha=0.7)
    assert p["spec"]["engine_refuses"] == [] and "(" not in next(x for x in predict_table(p).splitlines() if x.startswith("    speedup "))


@pytest.mark.slow
def test_a_best_k_at_k_0_the_engine_refuses_is_said_and_sglang_early_refuses_what_it_had_no_drafter_for():
    """qa236: at k 0, 'best k here 3 (1.846x)' for EAGLE at pp 2 under vllm, which refuses it, without a warning; and
    sglang-early priced draft-model and n-gram speculation its SpeculativeAlgorithm (EAGLE alone) did not have."""
    import roofline

    p = roofline.predict("h100-sxm", "llama-3.1-405b", 64, 2048, tp=8, pp=2, engine="vllm", method="eagle", k=0)
    assert p["spec"]["best_k"] == 3 and len(p["spec"]["engine_refuses"]) == 1
    assert "so no vllm setup runs the best k (3) named here" in p["spec"]["engine_refuses"][0]
    assert p["spec"]["engine_refuses"][0] in p["warnings"]
    assert next(x for x in predict_table(p).splitlines() if "best k here" in x).endswith(
        "; no setup of the engine runs it: the warning says why)")
    for method, extra in (("draft", {"draft": "llama-3.2-1b"}), ("ngram", {})):
        q = roofline.predict("h200", "llama-3.1-70b", 8, 2048, tp=2, engine="sglang-early", method=method, alpha=0.7, **extra)
        assert q["spec"]["engine_refuses"] and "no sglang-early setup runs this point" in q["spec"]["engine_refuses"][0]
    q = roofline.predict("h200", "deepseek-v3", 64, 2048, dp_attention=8, ep=8, engine="sglang-early", method="mtp", k=1, alpha=0.8)
    assert q["spec"]["engine_refuses"]


def test_an_engine_without_attention_dp_says_so_of_what_it_would_do_under_it():
    """qa240: vllm-v0 (attention_dp false) listed vLLM V1's sequence-parallel MoE and DP gather as if it ran them."""
    from roofline.serving import load_engine
    from roofline.tables import engine_table

    v0, v1 = engine_table(load_engine("vllm-v0")), engine_table(load_engine("vllm"))
    for label in ("DP gather", "stage split under DP", "whole under DP", "sequence-parallel MoE"):
        assert re.search(rf"{label} +none: no attention DP \(attention_dp false\)", v0), label
    assert "running 1/tp of its group's tokens" in v1 and "running 1/tp" not in v0


def test_the_host_work_line_under_pp_counts_a_fixed_part_a_micro_batch_and_says_what_lies_on_the_path():
    """qa244: 'sglang: 1.5 ms a step + 10 us a sequence x 64' beside 3.64 ms (two micro-batches' fixed parts), and
    'overlapped' said of host work a micro-batch's share of which adds to its round trip."""
    import roofline
    from roofline.tables import predict_table

    p = roofline.predict("h100-sxm", "llama-3.1-70b", 64, 1024, tp=4, pp=2, engine="sglang")
    line = next(x for x in predict_table(p).splitlines() if x.strip().startswith("host work"))
    assert "sglang: 2 micro-batches x 1.5 ms a step + 10 us a sequence x 64" in line, line
    assert (f"at pp 2 a micro-batch's own share, {format_seconds(p['host_time_s'] / 2)}, lies on its round trip and the "
            f"others' beside it, the step at least the whole: {format_seconds(p['host_on_path_s'])} added") in line
    one = roofline.predict("h100-sxm", "llama-3.1-70b", 1, 1024, tp=4, pp=2, engine="sglang")
    line = next(x for x in predict_table(one).splitlines() if x.strip().startswith("host work"))
    assert "sglang: 1.5 ms a step + 10 us a sequence x 1)" in line and "overlapped" not in line and "round trip" not in line
    assert "at pp 2 one micro-batch, scheduled again once its tokens are back: all of it added" in line  # qa251


@pytest.mark.slow
def test_a_break_even_past_the_engines_speculating_cap_says_it_assumes_the_cap_raised():
    """qa264: SGLang's break-even batch 121 (Llama-3.1-70B, tp 4, EAGLE) was printed with no word of the 48 sequences it
    runs at once while speculating; only a --batch above 48 was warned."""
    import roofline
    from roofline.tables import predict_table as predict_text

    p = roofline.predict("h100-sxm", "llama-3.1-70b", 8, 1024, tp=4, engine="sglang", method="eagle")
    assert p["speculating_cap"] == 48 and p["spec"]["break_even_batch"] > 48
    line = next(x for x in predict_text(p).splitlines() if "break-even batch" in x)
    assert line.endswith("; above the 48 sequences sglang runs at once while speculating by default (its "
                         "max_running_requests_speculating: a batch past it assumes the cap raised)")
    v = roofline.predict("h100-sxm", "llama-3.1-70b", 8, 1024, tp=4, engine="vllm", method="eagle")
    assert v["speculating_cap"] is None and "runs at once while speculating" not in predict_text(v)


def test_predict_says_whether_the_engine_reads_a_shared_prefix_once_a_step_or_each_sequence():
    """qa270: vllm's prefix_read_once turned false (cascade attention opt-in, vllm-project/vllm PR 36318) and predict's
    header said only 'shared prefix 32,768', its step read as if the prefix were read once."""
    vllm = roofline.predict("h100-sxm", "llama-3.1-8b", 8, 34816, shared_prefix=32768)
    ideal = roofline.predict("h100-sxm", "llama-3.1-8b", 8, 34816, shared_prefix=32768, engine="ideal")
    assert (vllm["shared_prefix_read_once"], ideal["shared_prefix_read_once"]) == (False, True)
    assert "shared prefix 32,768 (read by each sequence)" in predict_table(vllm).splitlines()[0]
    assert "shared prefix 32,768 (read once a step)" in predict_table(ideal).splitlines()[0]
    assert roofline.predict("h100-sxm", "llama-3.1-8b", 8, 34816)["shared_prefix_read_once"] is None
    # each of the 8 sequences reads the 32k prefix (128 KiB of KV a token), against one read: 7 reads more
    assert vllm["bytes"] - ideal["bytes"] == 7 * 32768 * 128 * 1024


@pytest.mark.slow
def test_predict_says_a_curve_that_starts_below_1_rises_and_one_that_dips_recovers():
    """qa280: a draft model on an 8B (alpha 0.5, k 2) loses at batch 1 and 2 and pays from there: predict said 'the
    curve dips and recovers' of a curve that starts below 1 and rises."""
    import roofline
    from roofline.tables import predict_table as predict_text

    p = roofline.predict("mi300x", "llama-3.1-8b", 1, 2048, method="draft", draft="llama-3.2-1b", k=2, alpha=0.5)
    assert p["spec"]["not_paying_below_break_even"][0] == 1
    line = next(x for x in predict_text(p).splitlines() if x.strip().startswith("below it"))
    assert line.endswith(": the curve starts below 1 and rises"), line
    q = roofline.predict("h100-sxm", "llama-3.1-70b", 1, 2048, tp=4, method="draft", draft="llama-3.2-1b",
                         draft_hardware="l4", k=1, alpha=0.8)
    gap = q["spec"]["not_paying_below_break_even"]
    assert gap and gap[0] > 1
    assert next(x for x in predict_text(q).splitlines() if x.strip().startswith("below it")).endswith(
        ": the curve dips and recovers")


@pytest.mark.slow
def test_a_break_even_or_max_batch_past_vllms_max_num_seqs_says_it_assumes_the_cap_raised():
    """qa285: gpt-oss-120b on 8 H200 under vllm broke even at batch 21,713 (memory's end), 'max batch 22,854', with no
    word of the 1,024 sequences vLLM runs at once by default, which a --batch above it was warned of."""
    import roofline
    from roofline.tables import predict_table as predict_text

    p = roofline.predict("h200", "gpt-oss-120b", 8, 1024, tp=8, engine="vllm", method="eagle", k=3)
    assert p["sequence_cap"] == 1024 and p["speculating_cap"] is None and p["spec"]["break_even_batch"] > 1024
    text = predict_text(p)
    said = "; above the 1,024 sequences vllm runs at once by default (its max_num_seqs: a batch past it assumes the cap raised)"
    assert next(x for x in text.splitlines() if "break-even batch" in x).endswith(said)
    assert said + ")" in next(x for x in text.splitlines() if x.startswith("  fits in memory"))
    q = roofline.predict("h200", "gpt-oss-120b", 8, 1024, tp=8, engine="ideal", method="eagle", k=3)
    assert q["sequence_cap"] is None and "max_num_seqs" not in predict_text(q)


@pytest.mark.slow
def test_an_eagle_head_on_a_moe_target_is_a_dense_drafter_in_its_label_and_json():
    """qa285: EAGLE on gpt-oss-120b said 'its weights (bf16, fp4 experts, as the target's)' and drafter_expert_dtype
    'fp4', where the head has no experts (API.md: None for a dense drafter); its bytes were right."""
    import roofline
    from roofline.tables import predict_table as predict_text

    p = roofline.predict("h200", "gpt-oss-120b", 1, 4096, tp=8, engine="ideal", method="eagle", k=3, alpha=0.7)
    assert p["spec"]["drafter_expert_dtype"] is None and p["spec"]["drafter_weight_dtype"] == "bf16"
    line = next(x for x in predict_text(p).splitlines() if "drafter memory" in x)
    assert "its weights (bf16, as the target's)" in line and "experts" not in line, line
    m = roofline.predict("h200", "deepseek-v3", 1, 4096, tp=8, method="mtp", k=1)  # an MTP module has experts
    assert m["spec"]["drafter_expert_dtype"] == "fp8"


@pytest.mark.slow
def test_predict_gives_the_ridge_of_each_dtype_its_operators_compute_in():
    """qa286: DeepSeek-V3's attention at 228 FLOP/B read 'compute' beside a header giving fp8's ridge, 354, alone:
    attention computes in bf16, whose derated ridge on an H200 is 194."""
    import roofline
    from roofline.hardware import load_hardware
    from roofline.tables import predict_table as predict_text

    p = roofline.predict("h200", "deepseek-v3", 256, 4096, dp_attention=8, ep=8, method="mtp", k=2)
    bf16 = load_hardware("h200").ridge_point_flops_per_byte("bf16", derated=True)
    assert p["derated_ridge_points_flops_per_byte"]["bf16"] == pytest.approx(bf16)
    assert "attention" in p["operators_by_compute_dtype"]["bf16"] and "experts" in p["operators_by_compute_dtype"]["fp8"]
    line = next(x for x in predict_text(p).splitlines() if "intensity / ridge" in x)
    assert line.endswith(f"the experts' dtype); bf16's {bf16:.1f} for attention, router, norms, lm_head"), line
    attention = p["operators"]["attention"]
    assert (attention["flops"] / attention["bytes"] > bf16) == (attention["bound"] == "compute")
    one = roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1024)  # every operator in bf16: the headline's ridge alone
    assert next(x for x in predict_text(one).splitlines() if "intensity / ridge" in x).endswith("the MLP's dtype)")
    # and each row bound against another dtype's ridge says so (qa302: attention's dtype cell blank, 228 'compute')
    table = predict_text(p).split("  bound\n", 1)[1].split("\n\n", 1)[0].splitlines()  # the operator table's rows
    rows = {x.split()[0]: x for x in table if x.split() and x.split()[0] in p["operators"]}
    assert rows["attention"].endswith("compute (bf16's ridge)") and p["operators"]["attention"]["compute_dtype"] == "bf16"
    assert rows["experts"].endswith("memory") and p["operators"]["experts"]["compute_dtype"] == "fp8"
    assert "ridge)" not in predict_text(one).split("bound\n", 1)[1]  # every operator in the headline's dtype


@pytest.mark.slow
def test_predict_says_the_padded_intensity_an_operators_bound_is_read_from():
    """qa286: at batch 289 the MLP's 266.6 FLOP/B read 'compute' below a ridge of 278: vllm pads 289 rows to the 16-row
    tile (304), 280.4 FLOP/B, which the table did not say."""
    import roofline
    from roofline.tables import predict_table as predict_text

    p = roofline.predict("h100-sxm", "llama-3.1-8b", 289, 256)
    mlp = p["operators"]["mlp"]
    assert mlp["padded_flops"] == pytest.approx(mlp["flops"] * 304 / 289) and mlp["bound"] == "compute"
    assert mlp["flops"] / mlp["bytes"] < p["derated_ridge_point_flops_per_byte"] < mlp["padded_flops"] / mlp["bytes"]
    line = next(x for x in predict_text(p).splitlines() if x.strip().startswith("bound with rows padded"))
    assert line.strip().startswith("bound with rows padded to the 16-row GEMM tile (FLOP/B): ")
    assert f"mlp {mlp['padded_flops'] / mlp['bytes']:.1f}" in line
    q = roofline.predict("h100-sxm", "llama-3.1-8b", 288, 256)  # a multiple of the tile: nothing padded
    assert "bound with rows padded" not in predict_text(q)


@pytest.mark.slow
def test_the_bf16_mla_copy_on_an_amd_device_says_rocms_path_may_keep_it_quantised():
    """qa287: vLLM's 16-bit copy of MLA's up-projections was charged on MI300X unsaid, where vllm.yaml's own source says
    ROCm's AITER fp8 / fp4 bmm keeps them quantised (not modelled)."""
    import roofline
    from roofline.tables import predict_table as predict_text

    said = "on ROCm vLLM's AITER fp8 / fp4 bmm may keep them quantised: not modelled"
    amd = roofline.predict("mi300x", "deepseek-r1", 64, 4096, tp=8)
    assert amd["hardware_family"] == "mi300x" and said in predict_text(amd)
    assert said not in predict_text(roofline.predict("h200", "deepseek-r1", 64, 4096, tp=8))


@pytest.mark.slow
def test_predicts_odd_points_say_their_rates_warnings_and_acceptance_rightly():
    """qa288: a billion-token context printed 'tokens/s 0.0' (the JSON 0.0217); an acceptance rate of 0 with k past
    the rates printed an empty 'warning: '; k 0 with an alpha said the acceptance was not used beside a best k it moved."""
    import roofline
    from roofline.tables import predict_table as predict_text

    slow = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1_000_000_000)
    assert 0 < slow["tokens_per_s_per_user"] < 1
    assert f"tokens/s per user    {format_significant(slow['tokens_per_s_per_user'])}" in predict_text(slow)
    zero = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, method="eagle", acceptance=[0.6, 0.0], k=3)
    assert "" not in zero["warnings"] and all(w.strip() for w in zero["warnings"])
    plain = [roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, method="eagle", k=0, alpha=a) for a in (0.3, 0.9)]
    assert plain[0]["spec"]["best_k"] != plain[1]["spec"]["best_k"]  # the alpha moves the best k
    assert all("serves only the best-k search" in " ".join(p["warnings"]) for p in plain)
    tree0 = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, method="eagle", k=0, tree_nodes=15, tree_tau=3.5)
    assert "k 0: nothing is drafted, so the point is plain decoding; the tree given is not used" in " ".join(tree0["warnings"])
    assert "best-k search" not in " ".join(tree0["warnings"])  # qa345: a tree gets none
    one = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, method="eagle", tree_nodes=1, tree_tau=2)
    assert "tree of 1 node, tau 2 (given)" in predict_text(one) and "tree of 1 nodes" not in " ".join(one["warnings"])


@pytest.mark.slow
def test_a_break_even_by_a_hair_or_where_no_batch_fits_says_so():
    """qa299: a break-even of 72 paid by 0.12% read as 'pays up to 72' (its neighbours lose); 'none' where no batch fits
    with the drafter read as a drafter that never pays (Medusa at 3.63x)."""
    hair = roofline.predict("h200", "llama-3.1-70b", 64, 2048, tp=4, method="draft", draft="llama-3.2-1b", draft_hardware="l4",
                            alpha=0.8, k=1)
    line = next(x for x in predict_table(hair).splitlines() if "break-even batch" in x)
    assert hair["spec"]["break_even_speedup"] < 1.01 and "within 1% of 1" in line
    nowhere = roofline.predict("l4", "llama-3.1-8b", 1, 256, method="medusa", k=6, alpha=0.9, engine="ideal")
    assert nowhere["spec"]["break_even_batch"] is None and nowhere["spec"]["max_batch"] == 0
    line = next(x for x in predict_table(nowhere).splitlines() if "break-even batch" in x)
    assert line.strip() == "break-even batch   none at k 6: no batch fits with the drafter (max batch 0), whatever the speedup"
    clear = roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1024, method="eagle", k=2, alpha=0.8)
    assert "within 1%" not in next(x for x in predict_table(clear).splitlines() if "break-even batch" in x)



@pytest.mark.slow
def test_a_speculative_serving_time_no_engine_setup_runs_says_so():
    """qa299: speedup, cost and serving cost carried '(no sglang setup runs it: ...)', the serving TPOT beside them not."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1100, engine="sglang", method="medusa", alpha=0.7, k=3,
                         prompt=1000, output_len=200)
    assert p["spec"].get("engine_refuses")
    line = [x for x in predict_table(p).splitlines() if x.strip().startswith("serving TPOT")][-1]
    assert line.endswith("(no sglang setup runs it: the warning that says so tells why)")


def test_a_rate_below_ten_tokens_a_second_has_three_significant_digits():
    """qa303: 3.864 and 1.932 tokens/s printed 3.9 and 1.9 (2 digits, 1-2% off), where 0.0715 and 19.5 have 3."""
    from roofline.tables import _rate

    assert [_rate(x) for x in (3.864, 1.932, 9.996, 19.54, 0.07154, 4930.2)] == ["3.86", "1.93", "10.0", "19.5", "0.0715", "4,930"]
    assert [_rate(x) for x in (0.99951, 1.0, 99.96, 100.4, 0.0)] == ["1.00", "1.00", "100", "100", "0.00"]  # (qa306)


def test_one_run_of_compute_bound_batches_ending_memory_bound_reads_as_one_sentence():
    """qa308: 'compute-bound at     batches  and 100-200 ...' where one run of batches is compute-bound and the step is
    memory-bound again past it."""
    from roofline.tables import _compute_bound_text

    p = {"context": 512, "max_batch": 1000, "compute_bound_search_max_batch": 65536,
         "compute_bound": {"first_batch": 100, "memory_bound_again": 201, "from_batch": None, "runs": [[100, 200]],
                           "intensity_at_first_flops_per_byte": 150.0, "intensity_at_end_flops_per_byte": 90.0}}
    text = _compute_bound_text(p)
    assert text.startswith("  compute-bound at     batches 100-200 at context 512 (") and " and 100" not in text, text
    assert text.endswith("memory-bound past 200 to 65,536, the search's end"), text


def test_a_speedup_next_to_one_is_printed_on_its_side_of_it():
    """qa313: a point that loses (0.99958) printed 'speedup 1.000x' above 'speedup < 1'."""
    from roofline.tables import _speedup_text

    assert [_speedup_text(x) for x in (0.99958, 1.00004, 1.0, 1.5843, 0.5)] == [
        "0.9996x", "1.00004x", "1.000x", "1.584x", "0.500x"]


def test_hw_show_gives_an_efficiency_to_the_digits_the_profile_does():
    """qa315: `hw show b200` printed compute x 0.78 and fp8 x 0.76 where the profile holds 0.776 and 0.763, so a
    derated ridge recomputed from the shown values came out 268 against predict's 266.8."""
    from roofline.hardware import load_hardware
    from roofline.tables import hardware_table

    line = next(x for x in hardware_table(load_hardware("b200")).splitlines() if x.startswith("  compute achievable"))
    assert line.startswith("  compute achievable x 0.776, fp8 x 0.763"), line
    assert "compute achievable x 0.80, fp8 x 0.71" in hardware_table(load_hardware("h100-sxm"))


def test_the_break_even_line_at_k_0_says_nothing_is_drafted():
    """qa317: 'break-even batch none at k 0' beside a speedup of 1.000x read as 'never pays'."""
    import warnings

    import roofline
    from roofline.tables import predict_table

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        point = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, method="eagle", k=0, alpha=0.8, engine="ideal")
    assert "    break-even batch   n/a at k 0 (nothing drafted)" in predict_table(point).splitlines()


def test_the_compute_bound_line_says_when_its_intensity_is_below_the_ridge():
    """qa317: 'compute-bound from batch 303 (... intensity at batch 303 262.7 FLOP/byte)' under 'intensity / ridge
    1.0 / 278.0' read as a contradiction: the step's mean intensity, its GEMMs already past the ridge."""
    import roofline
    from roofline.tables import predict_table

    point = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 0, engine="ideal")
    line = next(x for x in predict_table(point).splitlines() if x.startswith("  compute-bound from"))
    assert point["compute_bound"]["intensity_at_first_flops_per_byte"] < point["derated_ridge_point_flops_per_byte"]
    assert point["compute_bound"]["compute_bound_operators_at_first"] == ["mlp", "lm_head"]  # the rows above the ridge
    assert line.endswith("FLOP/byte, the step's mean, below the ridge where mlp and lm_head are above it)"), line


def test_a_compute_bound_step_is_overhead_bound_from_over_half_host_work_added():
    """The rule _overhead_bound states for a compute-bound step (qa357), at its threshold (qa360: 0.6 survived)."""
    from roofline.tables import BYTES_SHARE_SAID, _overhead_bound

    step = {"bound": "compute", "step_time_s": 1.0, "host_overlap": False, "host_time_s": 0.0}
    assert BYTES_SHARE_SAID == 0.5
    assert _overhead_bound({**step, "host_on_path_s": 0.55}) and not _overhead_bound({**step, "host_on_path_s": 0.5})
    assert not _overhead_bound({**step, "host_on_path_s": 0.9, "launch_bound": True})  # the launches set it instead


@pytest.mark.slow
def test_a_compute_bound_step_mostly_host_work_is_said_overhead_bound():
    """qa357: vllm's batch-512 step of an 8B model, 62% host work added to the device's, was 'compute-bound', where at
    batch 256 (57%) it was 'overhead-bound'; both now say what sets them, the operators' verdict after it."""
    import roofline
    from roofline.tables import predict_table

    point = roofline.predict("h100-sxm", "llama-3.1-8b", 512, 256, engine="vllm")
    line = next(x for x in predict_table(point).splitlines() if x.startswith("  step time"))
    assert point["bound"] == "compute" and point["host_on_path_s"] > 0.5 * point["step_time_s"]
    assert "(overhead-bound: its operators are compute-bound: " in line and "host work, added to the device's time" in line
    ideal = roofline.predict("h100-sxm", "llama-3.1-8b", 512, 256, engine="ideal")
    assert "(compute-bound" in next(x for x in predict_table(ideal).splitlines() if x.startswith("  step time"))


@pytest.mark.slow
def test_the_compute_bound_line_names_mla_attention_where_it_alone_is_above_the_ridge():
    """qa357: DeepSeek-V3 at a 32k context turns compute-bound at batch 273 on H200 by its absorbed attention alone,
    every GEMM below the ridge; the line said its GEMMs were above it."""
    import roofline
    from roofline.tables import predict_table

    point = roofline.predict("h200", "deepseek-v3", 273, 32768, engine="ideal", dp_attention=8, ep=8)
    line = next(x for x in predict_table(point).splitlines() if x.startswith("  compute-bound from"))
    assert [name for name, op in point["operators"].items() if op["bound"] == "compute"] == ["attention"]
    assert line.endswith("the step's mean, below the ridge where attention is above bf16's 194.0); 120 fit in memory"), line


def test_scenarios_show_lists_the_keys_that_change_what_a_sweep_gives():
    """qa319: `scenarios show` left out overlap: false, draft_vocab and question."""
    from roofline.scenario import scenario_from_dict
    from roofline.tables import scenario_table

    sc = scenario_from_dict({"name": "s", "hardware": "h100-sxm", "model": "llama-3.1-70b", "tp": 4, "method": "eagle",
                             "draft_vocab": 32000, "question": "shared-prefix", "axes": {"batch": [1], "k": [2]}}, "s.yaml")
    text = scenario_table(sc)
    assert "  draft vocab     32,000 tokens" in text and "  question        shared-prefix" in text and "overlap" not in text
    sc = scenario_from_dict({"name": "d", "hardware": "h100-sxm", "model": "llama-3.1-70b", "tp": 4, "method": "draft",
                             "draft": "llama-3.2-1b", "draft_hardware": "l4", "overlap": False,
                             "axes": {"batch": [1], "k": [2], "alpha": [0.7]}},
                            "d.yaml")
    assert "  overlap         false (a drafter on its own device drafts in series with the verify pass)" in scenario_table(sc)


def test_a_lone_request_s_serving_tpot_says_no_other_prefill_lands_in_it():
    """qa347: batch 1 said '+ 0 arriving prefills of 2,000 tokens, each adding 106 ms'."""
    import roofline

    text = predict_table(roofline.predict("h100-sxm", "llama-3.1-8b", 1, prompt=2000, output_len=300))
    assert "(a serving benchmark's time per output token at 1 in flight: its decode alone, no other request's prefill)" in text
    assert "+ 0 arriving" not in text


def test_engines_show_and_scenarios_show_say_the_prefix_cache_and_a_request():
    """qa348: the prefix text of engines show, inverted, and the mean context of scenarios show, miscomputed, survived."""
    from roofline.scenario import scenario_from_dict
    from roofline.serving import load_engine
    from roofline.tables import engine_table, scenario_table

    assert "shared prefix's prefill   skipped: an arriving request prefills the rest" in engine_table(load_engine("vllm"))
    assert "shared prefix's prefill   recomputed: every prompt prefilled whole (prefix_cached: false)" in engine_table(load_engine("vllm-v0"))
    assert ("(prefix_cached); but not while speculating, when its cache is off and each sequence holds the prefix "
            "(prefix_cached_speculating: false)") in engine_table(load_engine("sglang-early"))
    assert "prefix_cached_speculating" not in engine_table(load_engine("sglang"))
    sc = scenario_from_dict({"name": "s", "hardware": "h100", "model": "llama-3.1-8b", "prompt": 2000, "output_len": 300}, "s.yaml")
    assert "request         prompt 2,000 and output_len 300 tokens: the serving columns (mean context 2,150)" in scenario_table(sc)


@pytest.mark.slow
def test_engines_show_counts_the_known_misses_of_a_shipped_profile_priced_with_its_costs():
    """qa368: predict says vllm-v0's measured misses under vllm (the same prediction), and `engines show vllm` listed
    none of them."""
    from roofline.serving import load_engine
    from roofline.tables import engine_table

    count = len(load_engine("vllm-v0").known_misses)
    assert count and (f"known misses of vllm-v0, priced with vllm's costs, so the same prediction as here: {count} (said under vllm too; engines show "
                      "vllm-v0)") in engine_table(load_engine("vllm"))
    assert "known misses of" not in engine_table(load_engine("sglang"))
    assert "known misses of vllm, whose costs vllm-v0 takes, so the same prediction as here: 1 (said under vllm-v0 too; " \
           "engines show vllm)" in engine_table(load_engine("vllm-v0"))  # vllm's own (qa423: gpt-oss's weights) said


@pytest.mark.slow
def test_predicts_memory_lines_give_each_size_with_a_binary_prefix_too():
    """qa369: the engines' start-up logs give weights and KV cache in GiB; predict's lines give both (qa370: the weights
    and KV lines' were untested, a mutant swapping them survived)."""
    import roofline
    from roofline.tables import predict_table
    from roofline.units import format_binary, format_si

    p = roofline.predict("h100-sxm", "llama-3.1-70b", batch=64, context=4096, tp=8)
    text = predict_table(p)
    assert f"weights per device   {format_si(p['weight_bytes'], 'B')} ({format_binary(p['weight_bytes'])})" in text
    assert f"KV cache per device  {format_si(p['kv_bytes'], 'B')} ({format_binary(p['kv_bytes'])})" in text
    assert f"usable, {format_binary(p['memory_needed_bytes'])} of {format_binary(p['usable_memory_bytes'])}: " in text
    assert format_binary(16.4 * 2**30) == "16.4 GiB" and format_binary(3.16 * 2**20) == "3.16 MiB" and format_binary(512) == "512 B"


@pytest.mark.slow
def test_a_drafter_s_own_prefill_on_its_own_device_is_said_an_upper_estimate():
    """qa374: with the drafter on an L4, TTFT with drafter added its prefill after the target's, where that device could
    prefill beside the target's: said an upper estimate there (on the target's devices it waits its turn: not said)."""
    own = roofline.predict("h100-sxm", "llama-3.1-70b", batch=8, tp=4, method="draft", draft="tinyllama-1.1b", k=3,
                           alpha=0.7, draft_hardware="l4", prompt=512, output_len=256)
    line = re.search(r"TTFT with drafter +(.*)", predict_table(own)).group(1)
    assert line.endswith("on l4: an upper estimate, as that device could prefill beside the target's)"), line
    shared = roofline.predict("h100-sxm", "llama-3.1-70b", batch=8, tp=4, method="draft", draft="tinyllama-1.1b", k=3,
                              alpha=0.7, prompt=512, output_len=256)
    line = re.search(r"TTFT with drafter +(.*)", predict_table(shared)).group(1)
    assert line.endswith(f"(+ the drafter's own prefill {format_seconds(shared['draft_prefill_s'])})"), line


@pytest.mark.slow
def test_a_point_no_setup_of_its_engine_runs_is_marked_on_its_plain_lines_too():
    """qa379: trtllm at tp 2 / dp_attention 4 / ep 8 (no trtllm setup has it) marked its speculative speedup and cost,
    its plain cost not; on an MI300X (trtllm runs on NVIDIA only) no line was marked."""
    said = "no trtllm setup runs it: the warning that says so tells why"
    for p in (roofline.predict("h200", "deepseek-v3", tp=2, dp_attention=4, ep=8, engine="trtllm", method="mtp", k=2),
              roofline.predict("mi300x", "llama-3.1-8b", engine="trtllm", method="eagle", alpha=0.7, k=2)):
        assert p["engine_refuses"] and all(w in p["warnings"] for w in p["engine_refuses"])
        lines = predict_table(p).splitlines()
        for label in ("  tokens/s per user ", "  cost ", "    speedup ", "    cost "):
            assert said in next(x for x in lines if x.startswith(label)), label
    served = roofline.predict("mi300x", "llama-3.1-8b", 8, engine="trtllm", method="eagle", alpha=0.7, k=2, prompt=1024,
                              output_len=256)  # qa381: its serving lines and speculative tokens/s per user untagged
    lines = predict_table(served).splitlines()
    for label in ("  serving cost ", "    tokens/s per user ", "    serving TPOT ", "    serving cost "):
        assert "no trtllm setup runs it" in next(x for x in lines if x.startswith(label)), label
    runs = roofline.predict("h100-sxm", "llama-3.1-8b", method="eagle", alpha=0.7, k=2)
    assert runs["engine_refuses"] == [] and "setup runs it" not in predict_table(runs)
    cpu = roofline.predict("epyc-9654", "llama-3.2-1b")  # vLLM runs on CPUs: its caveat is no refusal (qa381's mutant)
    assert cpu["engine_refuses"] == [] and any("epyc-9654" in w for w in cpu["warnings"])
    shard = roofline.predict("h200", "deepseek-v3", 8, tp=32)  # qa381: a shard vLLM refuses to load, unmarked
    assert shard["engine_refuses"] and "refuse to load such a shard" in shard["engine_refuses"][0]
    assert roofline.predict("h200", "deepseek-v3", 8, tp=32, engine="ideal")["engine_refuses"] == []  # the bound: any
    assert roofline.predict("b200", "llama-3.1-8b", engine="sglang", dp_attention=2)["engine_refuses"]  # a dense model
    #   at SGLang's attention DP
    other = roofline.predict("h100-sxm", "qwen3-32b", method="draft", draft="llama-3.2-1b", alpha=0.7, k=4)  # qa380: a
    assert other["engine_refuses"] == [] and len(other["spec"]["engine_refuses"]) == 1  # draft of another tokenizer
    assert "must share the target's tokenizer" in other["spec"]["engine_refuses"][0]
    lines = predict_table(other).splitlines()
    assert all(said.replace("trtllm", "vllm") in next(x for x in lines if x.startswith(label)) for label in ("    speedup ", "    cost "))
    at_0 = roofline.predict("h100-sxm", "qwen3-32b", method="draft", draft="llama-3.2-1b", alpha=0.7, k=0)  # its best k
    assert at_0["spec"]["best_k"] > 0 and any("must share the target's tokenizer" in w  # named with that drafter (qa381)
                                              for w in at_0["spec"]["engine_refuses"])


def test_the_flops_time_says_it_prices_the_flops_padded_to_the_gemm_tile():
    """qa390: '127 GFLOP ... the FLOPs alone take 312 us', where 312 us is the padded 247 GFLOP's (batch 8 padded to the
    tile); a step the tile does not pad says 'the FLOPs'."""
    import roofline
    from roofline.tables import _padded_flops_text

    small = roofline.predict("h100-sxm", "llama-3.1-8b", batch=8, context=1536)
    padded = sum(op["padded_flops"] for op in small["operators"].values())
    assert padded > 1.5 * small["flops"]
    assert _padded_flops_text(small) == f"the step's FLOPs padded to the GEMM tile, {padded / 1e9:.3g} GFLOP,"
    assert small["flops_time_s"] > small["flops"] / (989.4e12 * 0.8)  # the padded FLOPs' time, not the step's own
    assert _padded_flops_text(roofline.predict("h100-sxm", "llama-3.1-8b", batch=1024, context=128, engine="ideal")) == "the FLOPs"


@pytest.mark.slow
def test_predicts_json_gives_the_c_its_iteration_line_prints():
    """qa402: the text printed c = 0.0643 of a decode step; the JSON had draft and step times but no c."""
    import roofline

    p = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, method="eagle", alpha=0.7, k=3)
    spec = p["spec"]
    assert spec["draft_cost_ratio"] == pytest.approx(spec["draft_time_s"] / 3 / p["step_time_s"], rel=1e-12)
    assert spec["draft_pass_cost_ratio"] == pytest.approx(
        (spec["draft_time_s"] - spec["draft_bookkeeping_time_s"]) / 3 / p["step_time_s"], rel=1e-12)
    assert f"c = {spec['draft_cost_ratio']:.3g} of a decode step" in predict_table(p)
    assert roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, method="ngram", alpha=0.7, k=3)["spec"]["draft_cost_ratio"] is None


@pytest.mark.slow
def test_the_kernel_latencies_line_and_engines_show_say_the_activation_quantisation_kernels(roofline):
    """qa405: predict's 'kernel latencies 5.54 ms: sglang's kernels x layers x its kernel_latency' for DeepSeek-V3 in
    fp8 could not be rebuilt from the counts `engines show sglang` listed: its one activation-quantisation kernel a
    quantised GEMM (quant_kernels_per_gemm, 1.43 ms there) was in the JSON only. Both say it now; a bf16 model not.
    And the header names the releases the engine profile describes."""
    code, out, _ = roofline("predict", "--hardware", "h200", "--model", "deepseek-v3", "--engine", "sglang",
                            "--dp-attention", "8", "--ep", "8", "--batch", "64")
    (line,) = [ln for ln in out.splitlines() if ln.lstrip().startswith("operators")]
    assert code == 0 and line.endswith("its kernel_latency, with 1 kernel quantising the activations of each fp8 GEMM "
                                       "(its quant_kernels_per_gemm))"), line
    code, out, _ = roofline("predict", "--hardware", "h200", "--model", "llama-3.1-8b", "--engine", "sglang")
    assert "  engine sglang (0.4.5-0.5)  batch 1  " in out.splitlines()[0], out  # qa405: its releases, as engines show
    (line,) = [ln for ln in out.splitlines() if ln.lstrip().startswith("operators")]
    assert code == 0 and line.endswith("its kernel_latency)"), line
    code, out, _ = roofline("engines", "show", "sglang")
    assert code == 0 and "  quantisation kernels      1 per GEMM whose weights compute in fp8 / fp4 / int8" in out, out[:800]
    for args in (("--hardware", "h200", "--model", "deepseek-v3", "--engine", "trtllm", "--tp", "8"),  # none a GEMM
                 ("--hardware", "a100-sxm-80gb", "--model", "llama-3.1-8b", "--engine", "sglang", "--weight-dtype", "fp8")):
        code, out, _ = roofline("predict", *args)  # qa409: an A100's fp8 weights compute in bf16 (weight-only)
        (line,) = [ln for ln in out.splitlines() if ln.lstrip().startswith("operators")]
        assert code == 0 and line.endswith("its kernel_latency)"), (args, line)
    from roofline.tables import _engine_version

    assert _engine_version({"engine_values": {"version": ""}}) == "" == _engine_version({})


@pytest.mark.slow
def test_predict_says_which_fit_the_engines_costs_come_from():
    """qa426: predict's header named a fitted copy, the file and rows it was fitted to only `engines show` said."""
    vllm = load_engine("vllm")
    p = roofline.predict("h100-sxm", "llama-3.1-8b", batch=8)
    assert p["engine_fitted"] == {**{key: vllm.fitted[key] for key in ("file", "rows", "date")}, "set_by_hand_since": []}
    (line,) = [ln for ln in predict_table(p).splitlines() if ln.startswith("  engine fit ")]
    assert line == (f"  engine fit           measurements/published.csv: {vllm.fitted['rows']} ({vllm.fitted['date']})"
                    "   (roofline engines show vllm)")
    ideal = roofline.predict("h100-sxm", "llama-3.1-8b", batch=8, engine="ideal")
    assert ideal["engine_fitted"] is None and "engine fit" not in predict_table(ideal)
    unrecorded = {**p, "engine_fitted": {"file": None, "rows": None, "date": None}}  # qa427's mutants
    (line,) = [x for x in predict_table(unrecorded).splitlines() if x.startswith("  engine fit ")]
    assert line == "  engine fit           a file not recorded: rows not recorded   (roofline engines show vllm)", line
    # every fitted value since set by hand: no fit of it left to name (qa427: the copy's fit was still said)
    by_hand = dataclasses.replace(vllm, name="by-hand", fitted={**vllm.fitted, "parameters": [], "per_family": []})
    assert roofline.predict("h100-sxm", "llama-3.1-8b", batch=8, engine=by_hand)["engine_fitted"] is None
    families = dataclasses.replace(vllm, name="families", fitted={**vllm.fitted, "parameters": []})  # qa430: a family's
    assert roofline.predict("h100-sxm", "llama-3.1-8b", batch=8, engine=families)["engine_fitted"]  # fitted values stay
    bare = dataclasses.replace(vllm, name="bare", fitted={"file": "mine.csv", "rows": "12 rows", "date": "2026-01-01"})
    assert roofline.predict("h100-sxm", "llama-3.1-8b", batch=8, engine=bare)["engine_fitted"] == {  # no list: a fit
        "file": "mine.csv", "rows": "12 rows", "date": "2026-01-01", "set_by_hand_since": []}


@pytest.mark.slow
def test_the_engine_fit_line_names_an_engine_off_the_search_path_by_its_path(roofline, tmp_path):
    """qa427: `--engine off/off-vllm.yaml` printed '(roofline engines show off-vllm)', which found no such engine."""
    assert roofline("engines", "new", "off-vllm", "--from", "vllm", "--dir", tmp_path / "off")[0] == 0
    code, out, _ = roofline("predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--engine",
                            tmp_path / "off" / "off-vllm.yaml")
    (line,) = [x for x in out.splitlines() if x.startswith("  engine fit ")]
    assert code == 0 and line.endswith(f"(roofline engines show {tmp_path / 'off' / 'off-vllm.yaml'})"), line


def _operator_rows(p):
    lines = predict_table(p).splitlines()
    i = next(i for i, x in enumerate(lines) if x.startswith("  operator "))
    rows = []
    for x in lines[i + 1:]:
        if not x.strip() or not x.startswith("  ") or x.split()[0] not in p["operators"]:
            break
        rows.append(x)
    return lines[i], rows


OPERATOR_CELL = r"[\d.,e+]+ [mun]?s"
OPERATOR_ROW = re.compile(rf"  \S+ +(\S+ +)?{OPERATOR_CELL} +[\d.]+% +{OPERATOR_CELL} +[\d.e+]+ [kMGTPE]?FLOP "
                          rf"+[\d.e+]+ [kMGTPE]?B +[\d.]+  (memory|compute).*")


@pytest.mark.slow
def test_the_operator_tables_cells_end_under_their_headers_and_stay_apart_at_absurd_sizes():
    """qa421: '4.6e+09 s 100.0%5.24e+04 EFLOP', cells run together; qa424: the spacing untested at any size. Each cell
    right-aligned under its header with a space after it; at absurd sizes a space between every cell."""
    header, rows = _operator_rows(roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1024))
    assert "latencies" in header and rows
    for name in ("dtype", "time", "share", "latencies", "FLOPs", "bytes", "FLOP/B"):
        end = header.index(name) + len(name)
        for row in rows:
            assert row[end] == " " and (name == "dtype" or row[end - 1] != " "), (name, header, row)
    _, rows = _operator_rows(roofline.predict("a10g", "llama-3.1-405b", 100000, 10_000_000))
    for row in rows:
        assert OPERATOR_ROW.fullmatch(row), row


def test_models_lists_kv_header_spans_both_kv_columns():
    """qa421: the KV column's dtype said; qa424: its header placed over both columns."""
    from roofline.model import load_model
    from roofline.tables import model_list

    lines = model_list([load_model("llama-3.1-8b")]).splitlines()
    title = "KV per token, bf16"
    assert lines[0].index(title) + len(title) == len(lines[1]) == lines[2].index("  gqa")


def test_a_fleet_whose_replicas_run_fewer_users_than_its_batch_says_how_many_each_runs():
    """qa428: six replicas of batch 38 for 200 users run 33 or 34 each, faster and dearer a token than the row, where
    only one replica's fewer users were said (qa418)."""
    from roofline.tables import _fewer_than_batch_text

    assert _fewer_than_batch_text(200, 6, 38) == (" (each replica runs 33 or 34 of the 200 users, fewer than this batch: "
                                                  "faster a user than this row)")
    assert _fewer_than_batch_text(9, 1, 16) == " (the replica runs the 9 users, fewer than this batch: faster a user than this row)"
    assert _fewer_than_batch_text(1, 1, 4).startswith(" (the replica runs the 1 user, ")
    assert _fewer_than_batch_text(60, 2, 32) == " (each replica runs 30 of the 60 users, fewer than this batch: faster a user than this row)"
    assert "(each replica runs 28 or 29 of the 200 users," in _fewer_than_batch_text(200, 7, 32)
    assert _fewer_than_batch_text(64, 2, 32) == ""  # every replica runs the batch
    # the busiest run the batch, the others one fewer (qa431: unsaid)
    assert _fewer_than_batch_text(65, 3, 22) == " (2 of the 3 replicas run this batch, 1 runs 21: a little faster a user there)"
    assert _fewer_than_batch_text(67, 4, 17) == " (3 of the 4 replicas run this batch, 1 runs 16: a little faster a user there)"
    assert _fewer_than_batch_text(61, 3, 21) == " (1 of the 3 replicas runs this batch, 2 run 20: a little faster a user there)"


def test_fleet_and_efficiency_texts_keep_thousands_separators_and_the_plural():
    """qa430's mutants: the users each replica runs written with separators; two efficiencies said in the plural."""
    from roofline.tables import _efficiencies_text, _fewer_than_batch_text

    assert _fewer_than_batch_text(2000, 1, 4096).startswith(" (the replica runs the 2,000 users, ")
    assert _fewer_than_batch_text(5001, 2, 4096).startswith(" (each replica runs 2,500 or 2,501 of the 5,001 users, ")
    text = _efficiencies_text({"engine": "eng", "memory_efficiencies": {"mlp": 0.7, "experts": 0.5}})
    assert text.endswith(" of that bandwidth: eng's efficiencies)") and "experts at 0.5" in text, text
    one = _efficiencies_text({"engine": "eng", "memory_efficiencies": {"mlp": 0.7, "qkv_proj": 0.7}})
    assert one.endswith(" of that bandwidth: eng's efficiency)") and "mlp and qkv proj at 0.7" in one, one


@pytest.mark.slow
def test_cheapest_users_says_how_many_users_each_of_several_replicas_runs(roofline, tmp_path):
    """qa430 (the fleet's replica count passed through): 100 users on two replicas of batch 64."""
    scenario = tmp_path / "f.yaml"
    scenario.write_text("name: f\nhardware: [h100-sxm]\nmodel: llama-3.1-8b\nmethod: eagle\n"
                        "axes:\n  batch: [8, 16, 32, 64, 128]\n  k: [0, 2]\n  alpha: [0.8]\n")
    assert roofline("sweep", scenario, "--out", tmp_path / "sw", "--no-plots")[0] == 0
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "60", "--users", "100", "--where", "batch=64")
    line = next(x for x in out.splitlines() if x.startswith("  plain        $") and " an hour, " in x)
    assert code == 0 and "2 replicas" in line and line.endswith(
        "(each replica runs 50 of the 100 users, fewer than this batch: faster a user than this row)"), line


def test_hw_show_says_a_dtypes_efficiency_without_its_peak_is_unused():
    """qa447: `hw new ... --set peak_flops.fp8=null` kept efficiency.compute_fp8, and `hw show` printed 'fp8 x 0.49'
    beside no fp8 peak (`hw diff` showed it as the copy's): said unused."""
    from roofline.hardware import load_hardware
    from roofline.tables import hardware_table

    hw = load_hardware("mi300x")
    assert "fp8 x 0.49, " in hardware_table(hw) and "unused" not in hardware_table(hw)
    bare = dataclasses.replace(hw, peak_flops_per_s={d: f for d, f in hw.peak_flops_per_s.items() if d not in ("fp8", "int8")})
    assert "fp8 x 0.49 (unused: no fp8 peak)" in hardware_table(bare)


def test_models_show_says_the_entry_bytes_a_profile_gives_apart_from_the_fp8_figure():
    """qa460: 'fp8 35,136 B at 128k: entries of 100 B (bf16)' tied a bf16 entry's bytes to the fp8 figure."""
    from roofline.model import load_model
    from roofline.tables import model_table

    v4 = load_model("deepseek-v4-flash")
    line = next(x for x in model_table(v4).splitlines() if "KV per token" in x)
    fp8 = f"fp8 {v4.kv_bytes_per_token_at(131072, 'fp8'):,.0f} B at 128k; a layer's entry as the profile gives it: 584 B (fp8)"
    assert fp8 in line and dict(v4.kv_entry_bytes) == {"fp8": 584}


@pytest.mark.slow
def test_the_verify_experts_line_under_pp_says_its_tokens_are_a_micro_batchs():
    """qa471: '16 tokens a pass' beside '64.0 token-expert pairs of 8 tokens' at pp 2, the 8 unexplained."""
    p = roofline.predict("h200", "qwen3-235b-a22b", 4, 1024, tp=4, pp=2, method="eagle", k=3, alpha=0.8, engine="ideal")
    line = next(x for x in predict_table(p).splitlines() if x.strip().startswith("experts a layer"))
    assert "64.0 token-expert pairs of 8 tokens a micro-batch, B / min(B, pp) sequences x q;" in line, line
    flat = roofline.predict("h200", "qwen3-235b-a22b", 4, 1024, tp=8, method="eagle", k=3, alpha=0.8, engine="ideal")
    assert "micro-batch" not in next(x for x in predict_table(flat).splitlines() if x.strip().startswith("experts a layer"))


@pytest.mark.slow
def test_a_point_its_engine_refuses_tags_its_throughput_best_k_and_break_even_too():
    """qa479: a Medusa point under trtllm (no Medusa drafter) tagged its speedup, per-user rate and cost but printed
    its batch throughput, best k and break-even batch bare."""
    from roofline.api import predict

    p = predict("h100-sxm", "llama-3.1-70b", 8, 1024, tp=8, engine="trtllm", method="medusa", k=3, alpha=0.6)
    lines = predict_table(p).splitlines()
    spec = lines[next(i for i, x in enumerate(lines) if x.startswith("  speculation: medusa")):]
    for label in ("tokens/s (batch)", "best k here", "break-even batch"):
        assert "no trtllm setup runs it" in next(x for x in spec if x.strip().startswith(label)), label
    plain = predict("h100-sxm", "llama-3.1-70b", 8, 1024, tp=8, engine="trtllm", method="eagle", k=3)
    assert not any("setup runs it" in x for x in predict_table(plain).splitlines())


def test_memory_needed_and_usable_are_said_to_the_same_decimals():
    """qa481: 'NO (77.1 GB of 77 GB usable' beside the warning's '77.0 GB'."""
    from roofline.tables import _needed_of_usable

    assert _needed_of_usable({"memory_needed_bytes": 77.1e9, "usable_memory_bytes": 77.0e9}) == "77.1 GB of 77.0 GB"
    assert _needed_of_usable({"memory_needed_bytes": 17.1e9, "usable_memory_bytes": 73.6e9}) == "17.1 GB of 73.6 GB"
    assert _needed_of_usable({"memory_needed_bytes": 19e9, "usable_memory_bytes": 69.3e9}) == "19.0 GB of 69.3 GB"
    assert _needed_of_usable({"memory_needed_bytes": 999e6, "usable_memory_bytes": 69.3e9}) == "999 MB of 69.3 GB"
