"""roofline/tables.py at its edges (qa453's mutation round): the terminal tables of hw, models, scenarios, predict, cheapest.
Every figure below is worked by hand from the profile's datasheet values."""

import pytest


def _line(text: str, start: str) -> str:
    (line,) = [line for line in text.splitlines() if line.startswith(start)]
    return line


def test_hw_list_gives_bandwidth_in_tb_s_and_the_ridge_at_the_datasheet_peaks(roofline):
    """h100-sxm: 3.35 TB/s (3.35e12 B/s / 1e12, not TiB/s: 3.05), 989.4 TFLOP/s bf16 dense, peak ridge 989.4 / 3.35 =
    295 FLOP/B (the derated one, 278, is `hw show`'s and predict's), 80 GiB."""
    code, out, _ = roofline("hw", "list")
    assert code == 0
    cells = _line(out, "h100-sxm ").split()
    assert cells[:5] == ["h100-sxm", "80", "3.35", "989.4", "295"]


def test_hw_show_gives_memory_in_gib_a_meshs_links_and_a_toruss_ports(roofline):
    """mi300x: 192 GiB of HBM3 (206 GB), 448 GB/s over a mesh of 7 links, 448 / 7 = 64 GB/s each; tpu-v5e: a 16x16
    (2-D) torus, 2 x 2 = 4 ports sharing 200 GB/s, 50 GB/s each."""
    code, out, _ = roofline("hw", "show", "mi300x")
    assert code == 0
    assert _line(out, "  memory ").startswith("  memory            206 GB (192.0 GiB; 90% usable")
    assert _line(out, "  link ").endswith("8 devices per domain (a mesh: 7 links of 64 GB/s, one per peer)")
    code, out, _ = roofline("hw", "show", "tpu-v5e")
    assert code == 0
    assert "(a 16x16 torus: 4 ports of 50 GB/s; a group drives those its slice spans" in _line(out, "  link ")


def test_models_list_gives_kv_per_token_in_kib_at_4k_and_128k(roofline):
    """llama-3.1-8b: 32 layers x 8 KV heads x 128 x 2 (K and V) x 2 B = 131,072 B = 128.0 KiB a token at any context.
    gpt-oss-120b: 18 full layers x 8 x 64 x 2 x 2 B = 36,864 B, and 18 sliding layers of a 128-token window, 36,864 x
    128 / context: at 4,096 tokens 36,864 + 1,152 = 38,016 B = 37.1 KiB, at 131,072 36,864 + 36 = 36,900 B = 36.0 KiB."""
    code, out, _ = roofline("models", "list")
    assert code == 0
    assert _line(out, "llama-3.1-8b ").split()[3:5] == ["128.0KiB", "128.0KiB"]
    assert _line(out, "gpt-oss-120b ").split()[3:5] == ["37.1KiB", "36.0KiB"]


def test_models_show_counts_a_tied_embedding_once_and_an_untied_one_with_its_lm_head(roofline):
    """llama-3.2-1b ties them: 128,256 x 2,048 = 0.263 billion, counted once (0.26); gpt-oss-120b does not: 201,088 x
    2,880 = 0.579 billion each, 1.16 billion together, and 5.710 - 0.579 = 5.131 billion active without the input
    embedding."""
    code, out, _ = roofline("models", "show", "llama-3.2-1b")
    assert code == 0 and "; counts the tied embedding once (0.26 billion)" in _line(out, "  active ")
    code, out, _ = roofline("models", "show", "gpt-oss-120b")
    assert code == 0
    assert _line(out, "  active ") == ("  active           5.710 billion, 5.131 billion without the input embedding "
                                       "(published 5.100 billion); counts the embedding and LM head (1.16 billion)")


def test_scenarios_show_counts_the_configs_the_sweep_runs_and_ends_a_long_axis_with_its_last_value(roofline, tmp_path):
    """Two models x two expert dtypes are 3 configs, not 4: the dense llama-3.1-8b has no experts (grid.load_configs);
    12 batch values show the first 8, then '... 16', the last."""
    path = tmp_path / "s.yaml"
    path.write_text("name: s\nhardware: h100-sxm\nmodel: [llama-3.1-8b, qwen3-30b-a3b]\nexpert_dtype: [bf16, fp8]\n"
                    "method: none\naxes:\n  batch: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16]\n  context: [2048]\n")
    code, out, _ = roofline("scenarios", "show", path)
    assert code == 0
    assert "  axis batch        12 values: 1, 2, 3, 4, 5, 6, 7, 8, ... 16\n" in out
    assert out.rstrip().endswith("3 configs x 12 grid points = 36 points")


def test_engines_list_keeps_a_long_engine_name_inside_its_column(roofline):
    """The name column is as wide as the longest name + 2 (sglang-early: 14), so the cost columns sit under their heads."""
    code, out, _ = roofline("engines", "list")
    assert code == 0
    header = out.splitlines()[0]
    end = header.index("kernel latency") + len("kernel latency")
    for name in ("sglang-early", "vllm", "ideal"):
        row = _line(out, name + " ")
        assert row[end - 1] != " " and row[end] == " " and row[:end - 14].rstrip() == name, row


def test_predicts_operator_intensity_is_the_flops_over_the_bytes_not_the_padded_flops(roofline):
    """At batch 8 a bf16 weight GEMM does 2 x 8 FLOP per weight read as 2 bytes: 8.0 FLOP/B in the table's column; the
    16-row GEMM tile's padded intensity (16.0) is said on its own line."""
    code, out, _ = roofline("predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--batch", "8", "--context", "2048")
    assert code == 0
    for op in ("qkv_proj", "mlp"):
        cells = _line(out, f"  {op} ").split()
        assert cells[-2:] == ["8.0", "memory"], cells
    assert "bound with rows padded to the 16-row GEMM tile (FLOP/B): qkv_proj 15.9, o_proj 15.9, mlp 16.0" in out


def test_predicts_verify_pass_gives_its_all_reduce_messages_k_plus_1_times_the_decode_steps(roofline):
    """llama-3.1-8b at tp 2, batch 8: a decode all-reduce carries 8 x 4,096 x 2 B = 65.5 kB; EAGLE's verify pass at k 3
    carries 4 tokens a sequence, 262 kB, for 8 x 4 = 32 tokens a pass."""
    code, out, _ = roofline("predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--batch", "8", "--context",
                            "2048", "--tp", "2", "--method", "eagle", "--k", "3", "--alpha", "0.7")
    assert code == 0
    assert "(64 all-reduces a pass of 65.5 kB each," in _line(out, "  tp collectives ")
    verify = _line(out, "    verify pass ")
    assert "32 tokens a pass" in verify and verify.endswith("; its tp all-reduces of 262 kB each, 4 x the decode step's)")


@pytest.mark.slow
def test_predicts_host_work_line_counts_the_busiest_attention_dp_groups_sequences(roofline):
    """15 sequences over dp_attention 2: the busiest group decodes ceil(15 / 2) = 8; vllm's 60.8 us a sequence x 8 =
    486 us; sglang's 1.5 ms + 8 x 10 us = 1.58 ms."""
    args = ("predict", "--hardware", "h100-sxm", "--model", "qwen3-30b-a3b", "--batch", "15", "--context", "2048",
            "--dp-attention", "2", "--ep", "2")
    code, out, _ = roofline(*args, "--engine", "vllm")
    assert code == 0
    assert _line(out, "  host work ").startswith("  host work            486 us   (added to the device time, not overlapped; "
                                                 "vllm: 0 s a step + 60.8 us a sequence x 8 (the busiest of 2 attention-DP groups))")
    code, out, _ = roofline(*args, "--engine", "sglang")
    assert code == 0
    assert _line(out, "  host work ").endswith("sglang: 1.5 ms a step + 10 us a sequence x 8 (the busiest of 2 attention-DP groups))")


def test_predict_under_pp_names_stages_from_1_and_splits_an_expert_over_a_stages_devices(roofline):
    """qwen3-30b-a3b at tp 2 x pp 2 (4 devices): 48 layers split 24 / 24, the last stage (with the LM head) stage 2 of 2;
    an expert split over the 2 devices of a stage, not the 4; micro-batches of 8 / 2 = 4 sequences x top-8 = 32
    token-expert pairs, touching 128 (1 - (120/128)^4) = 29.1 of the 128 experts."""
    code, out, _ = roofline("predict", "--hardware", "h100-sxm", "--model", "qwen3-30b-a3b", "--batch", "8", "--context",
                            "2048", "--pp", "2", "--tp", "2")
    assert code == 0
    assert _line(out, "  pipeline stages ").startswith(
        "  pipeline stages      24 / 24 layers (vllm's split, pp_remainder before_last); stage 2 of 2 sets memory and is the busiest")
    assert _line(out, "  experts a MoE layer ") == (
        "  experts a MoE layer  a pass reads 29.1 of the 128 routed experts (each split over the 2 devices of a stage; "
        "32.0 token-expert pairs; micro-batches of 4 sequences on average, B / min(B, pp))")


def _cb(runs, from_batch=None):
    return {"context": 512, "max_batch": 100_000, "compute_bound_search_max_batch": 65536,
            "compute_bound": {"first_batch": runs[0][0], "memory_bound_again": runs[0][1] + 1, "from_batch": from_batch,
                              "runs": runs, "intensity_at_first_flops_per_byte": 300.0, "intensity_at_end_flops_per_byte": 90.0}}


def test_the_compute_bound_line_names_the_memory_bound_batches_between_runs():
    """Runs 100-200 and 300-400: memory-bound at 201-299 (the batches strictly between) and past 400; five runs' four
    gaps are each named, six runs' five are 'the batches between them'; seven runs list five and '2 more runs'."""
    from roofline.tables import _compute_bound_text

    text = _compute_bound_text(_cb([[100, 200], [300, 400]]))
    assert text.endswith("memory-bound at 201-299 and past 400 to 65,536, the search's end"), text
    assert _compute_bound_text(_cb([[100, 200], [202, 300]], 202)).endswith("memory-bound at 201"), text
    five = _compute_bound_text(_cb([[10 * i, 10 * i + 5] for i in range(1, 6)]))
    assert "memory-bound at 16-19, 26-29, 36-39, 46-49 and past 55 to 65,536" in five, five
    six = _compute_bound_text(_cb([[10 * i, 10 * i + 5] for i in range(1, 7)]))
    assert "batches 10-15, 20-25, 30-35, 40-45, 50-55 and 60-65 at context 512" in six, six
    assert "memory-bound at the batches between them and past 65 to 65,536" in six, six
    seven = _compute_bound_text(_cb([[10 * i, 10 * i + 5] for i in range(1, 8)]))
    assert "batches 10-15, 20-25, 30-35, 40-45, 50-55 and 2 more runs at context 512" in seven, seven


def test_caps_are_said_only_of_a_batch_past_them():
    """A break-even or max batch of exactly the engine's cap runs within it: nothing said; one past it is said."""
    from roofline.tables import _capped_break_even_text, _sequence_cap_text

    sglang = {"engine": "sglang", "speculating_cap": 48}
    assert _capped_break_even_text(48, sglang) == ""
    assert _capped_break_even_text(49, sglang).startswith("; above the 48 sequences sglang runs at once while speculating")
    vllm = {"engine": "vllm", "sequence_cap": 1024}
    assert _sequence_cap_text(1024, vllm) == "" and _capped_break_even_text(1024, vllm) == ""
    assert _sequence_cap_text(1025, vllm).startswith("; above the 1,024 sequences vllm runs at once by default")


def test_small_texts_of_predicts_lines():
    """Stages counted from 1 (the JSON's from 0); a dip from batch 1 starts below 1, one from batch 2 dips; a memory
    figure given to the digits that tell needed from usable (122.30 GB against 122.11 GB); one KV dtype's index key
    named by its dtype, two dtypes of one size said once."""
    from roofline.tables import _dip_shape, _index_keys_text, _max_batch_stage_text, _needed_of_usable

    pipeline = {"memory_stage": 1, "stage_layers": [40, 40]}
    assert _max_batch_stage_text({"max_batch_stage": 0, "pipeline": pipeline}) == ", set by stage 1 of 2"
    assert _max_batch_stage_text({"max_batch_stage": 1, "pipeline": pipeline}) == ""
    assert [_dip_shape((1, 4)), _dip_shape((2, 4))] == ["starts below 1 and rises", "dips and recovers"]
    assert _needed_of_usable({"memory_needed_bytes": 122.30e9, "usable_memory_bytes": 122.11e9}) == "122.3 GB of 122.1 GB"
    assert _needed_of_usable({"memory_needed_bytes": 19e9, "usable_memory_bytes": 69.3e9}) == "19.0 GB of 69.3 GB"  # to the same decimals (qa481)
    assert _index_keys_text([("fp8", 132)]) == ", index keys of 132 B (fp8)"
    assert _index_keys_text([("bf16", 132), ("fp8", 132)]) == ", index keys of 132 B (whatever the KV dtype)"


def test_a_memory_bound_step_is_overhead_bound_only_where_twice_the_bandwidth_leaves_over_80_percent():
    """_overhead_bound: bytes under half the step and twice the bandwidth leaving over OVERHEAD_LEFT_AT_2X = 0.8 of it;
    a step of 10 ms whose bytes take 4 ms, 7.5 ms at twice the bandwidth, is not; at 8.5 ms it is."""
    from roofline.tables import _overhead_bound

    p = {"bound": "memory", "step_time_s": 0.010, "memory_time_s": 0.004, "bytes_time_s": 0.004, "host_time_s": 0.0}
    assert not _overhead_bound({**p, "step_time_at_2x_bandwidth_s": 0.0075})
    assert _overhead_bound({**p, "step_time_at_2x_bandwidth_s": 0.0085})


def test_the_rest_of_a_memory_bound_step_names_costs_over_5_percent_of_it_largest_first():
    """_rest_text: collectives of 0.1 ms in a 10 ms step (1%) go unnamed; 0.6 ms (6%) are named, after 2 ms of host work
    added to the step (20%)."""
    from roofline.tables import _rest_text

    p = {"host_time_s": 0.0, "host_overlapped": False, "comm_time_s": 1e-4, "step_time_s": 0.01, "launch_time_s": 0.0,
         "step_time_at_2x_bandwidth_s": 0.009, "overhead_s": 0.0, "layout": {"pp": 1}}
    assert _rest_text(p) == "kernel latencies and compute set the rest, more bandwidth buys little here"
    assert _rest_text({**p, "comm_time_s": 6e-4, "host_time_s": 0.002}) == (
        "host work 2 ms, collectives 600 us, kernel latencies and compute set the rest, more bandwidth buys little here")


def test_a_break_even_paying_by_under_1_percent_is_said_not_sharp(roofline):
    """llama-3.1-8b + EAGLE k 3 at alpha 0.55, 256 tokens of context, under ideal: the break-even batch 139 pays
    1.003x, within 1% of 1."""
    code, out, _ = roofline("predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--batch", "64", "--context",
                            "256", "--method", "eagle", "--k", "3", "--alpha", "0.55", "--engine", "ideal")
    assert code == 0
    assert _line(out, "    break-even batch ") == ("    break-even batch   139 at k 3, 1.003x there (within 1% of 1: a tie at "
                                                   "the model's accuracy, the batch not sharp)")


def test_the_flops_time_names_padded_flops_only_past_1_percent():
    from roofline.tables import _padded_flops_text

    def p(padded):
        return {"flops": 100e9, "operators": {"mlp": {"flops": 100e9, "padded_flops": padded}}}

    assert _padded_flops_text(p(100.5e9)) == "the FLOPs"
    assert _padded_flops_text(p(102e9)) == "the step's FLOPs padded to the GEMM tile, 102 GFLOP,"


def test_the_tp_collectives_line_counts_the_qk_norms_all_reduces_apart_and_a_scale_out_links_latency(roofline):
    """minimax-m2.7 at tp 2: 62 layers x 2 all-reduces of 8 x 3,072 x 2 B = 49.2 kB, and 62 more of the QK norm's sums
    of squares (8 tokens x q and k x 4 B = 64 B); llama-3.1-405b at tp 16 spans two 8-GPU domains: each collective pays
    the scale-out link's 20 us, above vllm's 10 us."""
    code, out, _ = roofline("predict", "--hardware", "h100-sxm", "--model", "minimax-m2.7", "--batch", "8", "--context",
                            "2048", "--tp", "2")
    assert code == 0
    assert "(124 all-reduces a pass of 49.2 kB each, 62 more of the QK norm's sums of squares, 64 B each," in out
    code, out, _ = roofline("predict", "--hardware", "h100-sxm", "--model", "llama-3.1-405b", "--batch", "8", "--context",
                            "2048", "--tp", "16")
    assert code == 0
    assert _line(out, "  tp collectives ").endswith(
        "; each collective at least 20 us, the scale-out link's latency, the larger: vllm's allreduce_latency (10 us) does "
        "not move it)")


def test_a_collective_latency_equal_to_the_links_is_said_as_the_engines():
    from roofline.tables import _collective_latency_text

    p = {"engine": "eng", "engine_values": {"allreduce_latency_s": 5e-6}, "tp_link_latency_s": 5e-6}
    assert _collective_latency_text(p) == "; each collective at least 5 us, eng's allreduce_latency on this device"
    assert _collective_latency_text({**p, "tp_link_latency_s": 6e-6}) == (
        "; each collective at least 6 us, the link's latency, the larger: eng's allreduce_latency (5 us) does not move it")


def test_the_best_k_line_says_why_only_of_a_drafting_point_and_a_best_at_the_searchs_end_as_a_bound():
    """_best_k_text: at k 0 a best k of 0 needs no why; at k 3 it says none of k >= 1 is faster; a best k at the largest
    k searched (64) is '>= 64'."""
    from roofline.speculation import K_SEARCH
    from roofline.tables import _best_k_text

    base = {"k": 3, "best_k": 2, "best_k_speedup": 1.5, "best_k_tokens_per_s_per_user": 123.4, "tree_nodes": None}
    assert _best_k_text(base) == "2  (1.500x, 123 tokens/s per user, the best of k = 0-64)"
    plain = {**base, "best_k": 0, "best_k_speedup": 1.0}
    assert _best_k_text({**plain, "k": 0}) == "0  (1.000x, 123 tokens/s per user, the best of k = 0-64)"
    assert _best_k_text(plain).endswith("; no k >= 1 is faster than plain decoding)")
    assert int(K_SEARCH[-1]) == 64
    assert _best_k_text({**base, "best_k": 64}) == ">= 64 (the largest k searched; 1.500x, 123 tokens/s per user)"


def test_cheapests_hardware_column_widens_to_a_drafter_device_and_dollars_keep_their_separators():
    """h100-sxm-94gb with a drafter on h100-pcie-no-p2p is 'h100-sxm-94gb +h100-pcie-no-p2p', 31 characters wide; a fleet
    at $1,234.50 an hour is written with its thousands separator."""
    import pandas as pd

    from roofline.tables import _frontier_widths, _usd_per_hour

    df = pd.DataFrame([{"hardware": "h100-sxm-94gb", "draft_hardware": "h100-pcie-no-p2p", "decoding": "speculation",
                        "layout": "tp 1", "engine": "vllm"}])
    assert _frontier_widths(df) == {"hardware": 31, "layout": 22, "engine": 12}
    assert _usd_per_hour(1234.5) == "1,234.50" and _usd_per_hour(3.0) == "3.00"
