"""Findings sentences (findings.py), found by mutation testing (qa480): each test names the mutant(s) it kills; the expected sentences are
worked out by hand from the functions' docstrings, not copied from the output."""

from __future__ import annotations

import re
import warnings

import pandas as pd
import pytest

from roofline.findings import _break_even_span, _largest_swept, _speculating_cap_text

pytestmark = pytest.mark.slow  # sweeps and findings: 50-400 ms a test


def test_a_point_computed_at_the_engines_cap_is_not_said_to_be_above_it():
    """_largest_swept: a computed-now point 'above the N sequences ... by default' only where its batch exceeds the
    cap; at the cap itself (48 of SGLang's 48) the engine runs it as it is (mutant m07: `batch >= cap`)."""
    rows = pd.DataFrame({"batch": [16, 32, 48], "computed_now": [False, False, True]})
    at_cap = pd.Series({"batch": 48, "computed_now": True, "sequence_cap": 48.0, "engine": "sglang"})
    assert _largest_swept(at_cap, rows) == ("; the largest batch that fits, computed now: the largest swept batch that "
                                            "fits is 32")
    above = rows.assign(batch=[16, 32, 49])
    over = at_cap.copy()
    over["batch"] = 49
    assert _largest_swept(over, above) == ("; the largest batch that fits, computed now: the largest swept batch that "
                                           "fits is 32; above the 48 sequences sglang runs at once by default: it "
                                           "assumes that cap raised")


def test_a_break_even_span_says_more_gpus_ended_by_the_sweep_as_lower_bounds():
    """_break_even_span: one GPU whose break-even (100) lies inside the sweep, three whose break-even the sweep's last
    batch ends (not memory: 512 of 512 swept, memory_limited false): those three are more than two, so unnamed, and
    'at least the largest batch swept' (the docstring: 'a break-even the sweep's last batch ends (not memory) said as at
    least that batch'; mutant m54 dropped the 'at least ')."""
    cells = pd.DataFrame({"hardware": ["l4", "h100-sxm", "h200", "b200"], "model": ["a"] * 4,
                          "break_even_batch": [100, 512, 512, 512], "censored": [False, True, True, True],
                          "memory_limited": [False] * 4, "largest_fitting_batch": [512.0] * 4})
    assert _break_even_span(cells, {}) == "up to batch 100 on 1 of the 4 GPUs; on 3 more to at least the largest batch swept"


def test_the_speculating_cap_is_said_where_any_break_even_is_above_it():
    """_speculating_cap_text: SGLang runs at most 48 sequences while it speculates (its profile's
    max_running_requests_speculating, raised by --max-running-requests); one GPU's break-even of 96 is above it, the
    other's 32 below: the sentence is said (mutant m56: only where every break-even is above it); none above: ''."""
    df = pd.DataFrame({"engine": ["sglang", "sglang"], "hardware": ["h100-sxm", "h200"], "dp_attention": [1, 1]})
    t = pd.DataFrame({"hardware": ["h100-sxm", "h200"], "break_even_batch": [96, 32]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = _speculating_cap_text(df, t, {})
        assert text == ("Under sglang a server runs at most 48 sequences at once while it speculates unless its cap is "
                        "raised (--max-running-requests raises it): a break-even above that is the batch's with the cap "
                        "raised; left as it is, the rest wait in its queue. ")
        assert _speculating_cap_text(df, t.assign(break_even_batch=[48, 32]), {}) == ""  # at the cap: not above it


def test_the_verify_widths_list_the_gpus_from_the_highest_ridge_point_down():
    """verify_mini_prefill orders its GPUs by derated ridge point, highest first, so the widths read beside the ridge
    points the sentence ends on ('more where the ridge point is lower'); mutant m10 ordered them lowest first."""
    from roofline.findings import finding
    from roofline.report import run_scenario

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = run_scenario("verify-mini-prefill")
        f = finding(r.name, r.df, r.ops, r.meta)
    ridge = f.numbers["ridge"]
    names = {"h100-sxm": "H100 SXM5", "h200": "H200 SXM", "b200": "B200"}
    expected = [names[h] for h in sorted(ridge.index, key=lambda h: -ridge[h])]
    assert expected == ["B200", "H100 SXM5", "H200 SXM"]  # 525 > 493 > 354 FLOP/B (fp8 GEMMs, derated)
    widths = re.search(r"up to q = (.*?) at 1k / 16k context", f.text).group(1)
    assert [n for n in re.findall(r" on ([A-Z0-9][\w ]*?)(?:,| and|$)", widths)] == expected
    listed = re.search(r"ridge points in FLOP/B: (.*?)\)", f.text).group(1)
    assert [n for n in re.findall(r"\d on ([A-Z0-9][\w ]*?)(?:,| and|$)", listed)] == expected


def _mla_ops(rows):
    """An operators table of DeepSeek-V3's attention at batch 64: (hardware, tp, dp_attention, kv_dtype, pass, FLOPs,
    bytes, compute ceiling, memory ceiling); q 1 (decode) and 4 (verify)."""
    return pd.DataFrame([{"model": "deepseek-v3", "operator": "attention", "hardware": h, "tp": tp, "dp_attention": dp,
                          "ep": 1, "pp": 1, "kv_dtype": kv, "pass": p, "batch": 64, "q": 1.0 if p == "decode" else 4.0,
                          "flops": f, "bytes": b, "compute_ceiling_flops_per_s": c, "memory_ceiling_bytes_per_s": m}
                         for h, tp, dp, kv, p, f, b, c, m in rows])


def test_a_memory_bound_mla_attention_under_tp_names_more_heads_a_device_as_the_way_past_the_ridge():
    """mla_attention_text, every device below its ridge: the same 1e9 bytes in both passes, so the cache's reads K = 1e9
    B and the verify pass does 120e9 / 1e9 = 120 FLOP/B against a ridge of 200e12 / 1e12 = 200: memory-bound. At tp 2
    a device holds 128 / 2 heads, so more heads a device (attention data parallelism) would take it higher; its cache
    is fp8 already, so no 'fp8 cache' way (mutant m49 named the heads only past tp 2)."""
    from roofline.findings import mla_attention_text

    rows = [("h200", 2, 1, "fp8", p, f, 1e9, 200e12, 1e12) for p, f in (("decode", 30e9), ("verify", 120e9))]
    text = mla_attention_text("deepseek-v3", _mla_ops(rows), {})
    assert " 120 FLOP/B, below its derated ridge on every device where it fits (h200 (200) FLOP/B): memory-bound (" in text, text
    assert text.endswith("memory-bound (more heads on a device (as under attention data parallelism) would take it "
                         "higher, past the ridge, where a verify pass's attention takes longer than a decode step's and a "
                         "longer context can narrow the margin)."), text
    one = [("h200", 1, 8, "fp8", p, f, 1e9, 200e12, 1e12) for p, f in (("decode", 30e9), ("verify", 120e9))]
    assert mla_attention_text("deepseek-v3", _mla_ops(one), {}).endswith("memory-bound.")  # tp 1, fp8: neither way


def _verify_table(ratios: dict) -> pd.DataFrame:
    """A results table for verify_mini_prefill on one device 'h' and model 'm' (no engine column: the bound), k 0, 1
    and 3 (q 1, 2, 4), every row fitting: `ratios` maps (context, batch) to the verify pass's time over the decode
    step's at q 2 and q 4 (q 1 is the decode step itself, 1.0)."""
    rows = []
    for (context, batch), (r2, r4) in ratios.items():
        for k, r in ((0, 1.0), (1, r2), (3, r4)):
            rows.append({"hardware": "h", "model": "m", "context": context, "batch": batch, "k": k,
                         "verify_time_s": r * 1.0, "step_time_s": 1.0, "fits_in_memory": True})
    return pd.DataFrame(rows)


_OPS = pd.DataFrame({"operator": ["mlp"], "hardware": ["h"], "compute_ceiling_flops_per_s": [1e15],
                     "memory_ceiling_bytes_per_s": [2e12]})


def test_a_verify_pass_of_one_token_is_said_in_the_singular_and_the_tolerance_is_inclusive():
    """verify_mini_prefill reads the largest q whose pass takes at most 1.10 x the decode step (its docstring: 'at
    most'). q 2 at 1.2 x: only q 1 is within, '1 token' (mutant m12: '1 tokens'); q 2 at exactly 1.1 x is within, '2
    tokens' (mutant m08, `ratio < TOLERANCE`: 1 token)."""
    from roofline.findings import verify_mini_prefill

    one = verify_mini_prefill(_verify_table({(1024, 1): (1.2, 1.5), (1024, 16): (1.2, 1.5)}), _OPS, {})
    assert one.text == ("At batch 16, under ideal, a pass of q tokens per sequence costs at most +10% over a decode step "
                        "up to q = 1 on h at 1k context (m), i.e. 16 × q tokens in flight. At batch 1 a pass verifies 1 "
                        "token within the same +10%.")
    assert one.headline.startswith("Under ideal, one pass verifies 1 token a sequence"), one.headline  # the headline too
    edge = verify_mini_prefill(_verify_table({(1024, 1): (1.1, 1.5), (1024, 16): (1.2, 1.5)}), _OPS, {})
    assert "At batch 1 a pass verifies 2 tokens within the same +10%." in edge.text, edge.text


def test_a_verify_width_reaching_the_largest_q_swept_at_one_context_is_said_as_a_lower_bound_over_both():
    """At batch 1 the 1k context's pass stays within +10% to q 4, the largest swept (1.05 x), the 4k one's to q 2 (q 4
    at 1.2 x): '2 to 4 tokens (4 is the largest q swept: there the limit lies beyond)', censored as its largest is (mutant
    m11: censored only where the smallest reaches q 4), 'over every model, GPU and context' where two configurations
    are read (mutant m13: only past two)."""
    from roofline.findings import verify_mini_prefill

    f = verify_mini_prefill(_verify_table({(1024, 1): (1.02, 1.05), (4096, 1): (1.05, 1.2),
                                           (1024, 16): (1.2, 1.5), (4096, 16): (1.2, 1.5)}), _OPS, {})
    assert f.text.endswith("At batch 1 a pass verifies 2 to 4 tokens (4 is the largest q swept: there the limit lies "
                           "beyond) within the same +10% over every model, GPU and context."), f.text
    assert f.numbers["censored_at_smallest_batch"] is True
    assert "up to q = 1/1 on h at 1k / 4k context (m)" in f.text


def test_the_host_share_is_named_above_a_quarter_of_the_plain_step():
    """_host_share with vllm's values at 50 us of host work a sequence, none a step, not overlapped: at batch 100, 5 ms.
    A plain step of 100 / 8,000 tokens/s = 12.5 ms: 40%, above HOST_SHARE_NOTED (25%), named (mutant m58: only above
    50%); a step of 100 / 4,000 = 25 ms: 20%, unnamed."""
    import dataclasses

    from roofline.findings import _host_share
    from roofline.serving import load_engine

    eng = dataclasses.replace(load_engine("vllm").for_hardware("h100-sxm"), host_overlap=False, host_per_step_s=0.0,
                              host_per_sequence_s=50e-6)
    meta = {"engine_values": {("vllm", "h100-sxm"): eng}}
    row = pd.Series({"hardware": "h100-sxm", "batch": 100, "baseline_tokens_per_s": 8000.0})
    assert _host_share(row, "vllm", meta) == (" At batch 100 the vllm engine's host work (5.00 ms, 50.0 us a sequence, "
                                              "fitted) is 40% of the plain step, so how far batching alone goes rests on "
                                              "that term.")
    assert _host_share(row.copy().replace({8000.0: 4000.0}), "vllm", meta) == ""


def test_speculation_matches_batching_alone_at_the_smallest_batch_that_does():
    """batch_vs_speculation: 'the smallest batch at which speculation matches batching's best throughput' (its comment).
    The built-in sweep: batching alone's best is 9,156 tokens/s at batch 512; speculation's fastest k that fits first
    reaches it at batch 64 (168 tokens/s a user x 64 = 10.7k), and at every larger batch swept too (mutant m62 took the
    largest matching batch)."""
    from roofline.findings import fastest_drafting, finding
    from roofline.report import run_scenario

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = run_scenario("batch-vs-speculation")
        f = finding(r.name, r.df, r.ops, r.meta)
    best = f.numbers["batching_best_tokens_per_s"]
    spec = fastest_drafting(r.df, ["hardware", "model", "context", "alpha", "batch"]).sort_values("batch")
    reaching = spec.loc[spec["tokens_per_s"] >= best, "batch"].astype(int).tolist()
    assert reaching[0] == 64 and len(reaching) > 1 and 32 not in reaching
    assert "speculation matches that at batch 64 while each user gets 168 tokens/s" in f.text, f.text


def test_the_bare_roofline_pass_is_called_memory_bound_only_where_no_gpus_pass_at_its_width_is_compute_bound():
    """verify_mini_prefill's bare-roofline sentence ('The pass is still memory-bound there') reads each GPU's ideal row
    at its own width: claimed only where none of them is compute-bound (mutant m15: unless all are). vllm and ideal
    rows alike, H100 and H200: at batch 16 q 2 is within +10% (1.05 x) and q 4 is not (1.2 x)."""
    from roofline.findings import verify_mini_prefill

    rows = []
    for hw in ("h100-sxm", "h200"):
        for engine in ("vllm", "ideal"):
            for batch, (r2, r4) in ((1, (1.02, 1.05)), (16, (1.05, 1.2))):
                for k, r in ((0, 1.0), (1, r2), (3, r4)):
                    rows.append({"hardware": hw, "model": "m", "engine": engine, "context": 1024, "batch": batch, "k": k,
                                 "verify_time_s": r, "step_time_s": 1.0, "fits_in_memory": True,
                                 "verify_compute_bound": engine == "ideal" and hw == "h100-sxm" and batch == 16 and k == 1})
    df = pd.DataFrame(rows)
    ops = pd.DataFrame({"operator": ["mlp", "mlp"], "hardware": ["h100-sxm", "h200"],
                        "compute_ceiling_flops_per_s": [1e15, 1e15], "memory_ceiling_bytes_per_s": [2e12, 4e12]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mixed = verify_mini_prefill(df, ops, {})
        bound = verify_mini_prefill(df.assign(verify_compute_bound=False), ops, {})
    assert "On the bare roofline (ideal, batch 16, 1k; not drawn) it is q = 2 on every GPU." in mixed.text, mixed.text
    assert "still memory-bound" not in mixed.text
    assert "On the bare roofline (ideal, batch 16, 1k; not drawn) it is q = 2 on every GPU. The pass is still memory-bound there" in bound.text


def _two_engine_table(ratios_vllm: dict, ratios_ideal: dict, ks=(0, 1, 3)) -> pd.DataFrame:
    """verify_mini_prefill's table on H100 and H200, model 'm', 1k context, vllm's and ideal's rows: each ratios maps a
    batch to the verify pass's time over the decode step's at each k of `ks` after the first (whose ratio is 1.0)."""
    rows = []
    for hw in ("h100-sxm", "h200"):
        for engine, ratios in (("vllm", ratios_vllm), ("ideal", ratios_ideal)):
            for batch, rs in ratios.items():
                for k, r in zip(ks, (1.0, *rs)):
                    rows.append({"hardware": hw, "model": "m", "engine": engine, "context": 1024, "batch": batch, "k": k,
                                 "verify_time_s": r, "step_time_s": 1.0, "fits_in_memory": True,
                                 "verify_compute_bound": False})
    return pd.DataFrame(rows)


_OPS2 = pd.DataFrame({"operator": ["mlp", "mlp"], "hardware": ["h100-sxm", "h200"],
                      "compute_ceiling_flops_per_s": [1e15, 1e15], "memory_ceiling_bytes_per_s": [2e12, 4e12]})


def test_the_engines_width_is_compared_with_the_bare_rooflines_only_where_both_are_inside_the_sweep():
    """verify_mini_prefill: vllm's width and the bound's, both q 2 (q 4 at 1.2 x): 'the same' on both GPUs, not also
    'wider' (mutant m17: `e >= i`); both at q 4, the widest swept (lower bounds, 1.05 x): no comparison is said (mutant
    m16 compared widths at the largest q swept, where neither limit is known)."""
    from roofline.findings import verify_mini_prefill

    two = {1: (1.02, 1.05), 16: (1.05, 1.2)}
    wide = {1: (1.02, 1.05), 16: (1.02, 1.05)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same = verify_mini_prefill(_two_engine_table(two, two), _OPS2, {})
        censored = verify_mini_prefill(_two_engine_table(wide, wide), _OPS2, {})
    assert "The vllm engine's width is the same on h100-sxm and h200: " in same.text, same.text
    assert "wider" not in same.text
    assert "it is q = ≥4 on every GPU." in censored.text, censored.text
    assert "The vllm engine's width is" not in censored.text


def test_the_short_answer_leaves_out_the_large_batch_width_where_no_swept_pass_stays_within_it():
    """k 1 and 3 swept (q 2 and 4, no q 1): at batch 16 neither stays within +10% (1.2 and 1.5 x), its width '<2', so
    the headline quotes batch 1's alone (mutant m18 added '; at batch 16, 0 for m')."""
    from roofline.findings import headline, verify_mini_prefill

    rows = [{"hardware": "h", "model": "m", "context": 1024, "batch": batch, "k": k, "verify_time_s": r,
             "step_time_s": 1.0, "fits_in_memory": True}
            for batch, rs in ((1, (1.02, 1.05)), (16, (1.2, 1.5))) for k, r in zip((1, 3), rs)]
    f = verify_mini_prefill(pd.DataFrame(rows), _OPS, {})
    assert "up to q = <2 on h at 1k context (m)" in f.text, f.text
    assert headline(f) == ("Under ideal, one pass verifies 4 or more tokens a sequence for at most +10% over a decode "
                           "step's time at batch 1.")


def test_the_fastest_user_at_the_largest_k_swept_is_said_as_a_lower_bound():
    """batch_vs_speculation, the built-in sweep: speculation's fastest user (315 tokens/s, batch 1) drafts at k = 6, the
    largest swept, so the speed is 'at least' that (mutant m65, `>`: 'up to 315')."""
    from roofline.findings import fastest_drafting, finding
    from roofline.report import run_scenario

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = run_scenario("batch-vs-speculation")
        f = finding(r.name, r.df, r.ops, r.meta)
    spec = fastest_drafting(r.df, ["hardware", "model", "context", "alpha", "batch"])
    fastest = spec.loc[spec["tokens_per_s_per_user"].idxmax()]
    assert int(fastest["k"]) == int(r.df["k"].max()) == 6
    assert "only speculation delivers (at least 315 tokens/s per user, at k = 6, the largest swept)" in f.text, f.text


def test_a_fastest_user_within_rounding_is_not_said_to_be_speculations_alone():
    """batch_vs_speculation: speculation's fastest user, 100.4 tokens/s, against batching's 100, both quoted '100' at
    three significant digits: not 'Above 100 tokens/s per user only speculation delivers (... 100 ...)', a sentence
    that contradicts itself (qa135; mutant m66 dropped the rounding check from the text, kept in the headline)."""
    from roofline.findings import batch_vs_speculation

    rows = []
    for batch, base, speedup in ((1, 100.0, 1.004), (8, 700.0, 0.9)):
        for k, s in ((0, 1.0), (1, speedup)):
            rows.append({"hardware": "h", "model": "m", "context": 1024, "alpha": 0.8, "batch": batch, "k": k,
                         "method": "eagle", "fits_in_memory": True, "baseline_max_batch": 8, "max_batch": 8,
                         "baseline_tokens_per_s": base, "baseline_tokens_per_s_per_user": base / batch,
                         "tokens_per_s": base * s, "tokens_per_s_per_user": base * s / batch, "speedup": s})
    f = batch_vs_speculation(pd.DataFrame(rows), _OPS, {})
    assert "only speculation delivers" not in f.text, f.text
    assert "Speculation's fastest user gets 100 tokens/s, batching's 100: it never serves a user faster; " in f.text, f.text


def test_flops_vs_time_says_some_points_compute_less_where_one_does():
    """flops_vs_time: 'Every speculative point computes more per token than plain decoding' only where each k > 0 point's
    FLOPs per token exceed plain decoding's; here batch 8's is 0.9 x (mutant m24: `.any()`, 'Every' said of it)."""
    from roofline.findings import flops_vs_time

    rows = []
    for batch, ratio, speedup in ((1, 1.2, 1.5), (8, 0.9, 1.1)):
        for k in (0, 1):
            rows.append({"hardware": "h", "model": "m", "context": 1024, "alpha": 0.8, "batch": batch, "k": k,
                         "fits_in_memory": True, "best_k": 1, "baseline_flops_per_token": 1e9,
                         "flops_per_token": 1e9 * (ratio if k else 1.0), "bytes_per_token": 1e6 * (0.5 if k else 1.0),
                         "speedup": speedup if k else 1.0, "wasted_flops_fraction": 0.1 if k else 0.0})
    f = flops_vs_time(pd.DataFrame(rows), _OPS, {})
    assert f.numbers["every_point_more_flops"] is False
    assert "Some speculative points compute less per token." in f.text, f.text
    assert "Every speculative point" not in f.text


def test_batching_against_speculation_says_the_eagle_caveat_of_a_modest_gain(tmp_path):
    """batch_vs_speculation: the caveat on EAGLE's gain at large batches is said where any of its points gains 1.01 x or
    more. Llama 3.2 1B on H100 under the bound at alpha 0.5: its best gain is 1.20 x (batch 64, k = 1), between 1.01 and
    1.5 (mutant m69 said it only from 1.5 x)."""
    from roofline.findings import finding, question_rows
    from roofline.report import run_scenario

    path = tmp_path / "bvs-small.yaml"
    path.write_text("name: bvs-small\nquestion: batch-vs-speculation\nhardware: h100-sxm\nmodel: llama-3.2-1b\n"
                    "method: eagle\nengine: ideal\naxes: {batch: [1, 64, 1024], context: [512], k: [0, 1, 2, 3], "
                    "alpha: [0.5]}\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = run_scenario(str(path), echo=False)
        df, ops, meta, _ = question_rows("batch-vs-speculation", r.df, r.ops, r.meta)
        f = finding("batch-vs-speculation", df, ops, meta, strict=False)
    best = df.loc[(df["k"] > 0) & df["fits_in_memory"].astype(bool), "speedup"].max()
    assert 1.01 <= best < 1.5
    assert "The speculative curve here keeps its gain to larger batches than published serving curves of EAGLE" in f.text


def test_the_matching_point_says_its_per_user_speed_as_a_multiple_of_batchings():
    """batch_vs_speculation, the built-in sweep: speculation matches batching's best at batch 64, where each user gets
    168 tokens/s against batching's 17.9 at batch 512: 168 / 17.9 = 9.39x the per-user speed (mutant m74 inverted it,
    0.106x)."""
    from roofline.findings import fastest_drafting, finding
    from roofline.report import run_scenario

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = run_scenario("batch-vs-speculation")
        f = finding(r.name, r.df, r.ops, r.meta)
    spec = fastest_drafting(r.df, ["hardware", "model", "context", "alpha", "batch"]).set_index("batch")
    plain = r.df[(r.df["batch"] == f.numbers["batching_best_batch"])]["baseline_tokens_per_s_per_user"].iloc[0]
    ratio = spec.loc[64, "tokens_per_s_per_user"] / plain
    assert 9.3 < ratio < 9.5  # 168 / 17.9
    assert f"while each user gets 168 tokens/s ({ratio:.2f}× the per-user speed)" in f.text, f.text


def _small_bvs(tmp_path, batches: str):
    from roofline.findings import finding, question_rows
    from roofline.report import run_scenario

    path = tmp_path / "bvs-small.yaml"
    path.write_text("name: bvs-small\nquestion: batch-vs-speculation\nhardware: h100-sxm\nmodel: llama-3.2-1b\n"
                    f"method: eagle\nengine: ideal\naxes: {{batch: {batches}, context: [512], k: [0, 1, 2, 3], "
                    "alpha: [0.5]}\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = run_scenario(str(path), echo=False)
        df, ops, meta, _ = question_rows("batch-vs-speculation", r.df, r.ops, r.meta)
        return df, finding("batch-vs-speculation", df, ops, meta, strict=False)


def test_the_headline_says_matches_where_speculation_beats_batchings_lower_bound_by_under_half_a_percent(tmp_path):
    """Llama 3.2 1B on H100 under the bound, alpha 0.5: plain decoding fits 4,431 sequences; batch 8,192 does not fit,
    so batching's best, 107,830 tokens/s at batch 4,096, is a lower bound (the largest swept that fits). Speculation at
    batch 1,024 gives 107,842: 0.01% more, under the 0.5% a 'passes' needs (mutant m70: 'passes' at any margin)."""
    df, f = _small_bvs(tmp_path, "[1, 64, 1024, 4096, 8192]")
    from roofline.findings import headline

    spec = df[(df["batch"] == 1024) & (df["k"] > 0)]["tokens_per_s"].max()
    assert 1.0 < spec / f.numbers["batching_best_tokens_per_s"] < 1.005
    assert ("at batch 1,024 matches plain batching's 107,830 tokens/s at batch 4,096 (the largest swept that fits; "
            "memory holds 4,431)") in headline(f), headline(f)


def test_the_headline_says_no_more_fits_where_batchings_best_is_at_memorys_own_cap(tmp_path):
    """As above with batch 4,431 swept, plain decoding's own cap: its best is at the cap, so nothing more fits and
    'memory holds 4,431' is not said beside it (mutant m71: said where the cap equals the batch)."""
    from roofline.findings import headline

    df, f = _small_bvs(tmp_path, "[1, 64, 1024, 4431, 8192]")
    assert int(df["baseline_max_batch"].max()) == f.numbers["batching_best_batch"] == 4431
    assert "plain batching's 107,834 tokens/s at batch 4,431 (the largest swept that fits)," in headline(f), headline(f)


def _question_finding(tmp_path, question: str, text: str):
    """A user's scenario file answering `question`, swept and answered as the report answers it (question_rows)."""
    from roofline.findings import finding, question_rows
    from roofline.report import run_scenario

    name = re.search(r"^name: (\S+)", text, re.M).group(1)
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = run_scenario(str(path), echo=False)
        df, ops, meta, _ = question_rows(question, r.df, r.ops, r.meta)
        return df, finding(question, df, ops, meta, strict=False)


def test_the_kv_caps_finding_says_one_trained_mtp_module_in_the_singular():
    """The built-in kv-caps sweep: DeepSeek-V3 ships one MTP module (its config's num_nextn_predict_layers 1), and k = 3,
    the largest swept, runs it past that: 'past its 1 trained MTP module' (mutant m80: 'modules')."""
    from roofline.findings import finding
    from roofline.report import run_scenario

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = run_scenario("kv-caps-batch")
        f = finding(r.name, r.df, r.ops, r.meta)
    assert r.meta["mtp_modules"]["deepseek-v3"] == 1
    assert "2.09× (MTP, batch 4; k = 3, the largest swept, past its 1 trained MTP module: reused" in f.text, f.text
    assert "trained MTP modules" not in f.text


def test_kv_caps_of_n_gram_lookup_alone_hold_no_drafter(tmp_path):
    """n-gram lookup drafts from the context and holds no drafter's weights or KV: the per-device figures are said at
    the k, without 'with the drafter' (qa131; mutant m83 said it of n-gram lookup alone)."""
    _, f = _question_finding(tmp_path, "kv-caps-batch", "name: kv-ngram\nquestion: kv-caps-batch\nhardware: h100-sxm\n"
                             "model: llama-3.1-8b\nmethod: ngram\naxes: {batch: [1, 8, 64], context: [8192], k: [1, 2], "
                             "alpha: [0.6]}\n")
    assert "which holds per device (at k = 1) " in f.text, f.text
    assert "with the drafter" not in f.text


def test_the_kv_caps_headline_under_attention_data_parallelism_does_not_offer_it_again(tmp_path):
    """DeepSeek-V3 (MLA) at tp 2 with dp_attention 4: each device already holds only its group's sequences, so the
    headline does not say '(attention data parallelism fits more)' (mutant m87 said it whatever dp_attention)."""
    from roofline.findings import headline

    _, f = _question_finding(tmp_path, "kv-caps-batch", "name: kv-dpa\nquestion: kv-caps-batch\nhardware: h200\n"
                             "model: deepseek-v3\nmethod: mtp\nweight_dtype: fp8\ntp: 2\ndp_attention: 4\nep: 8\n"
                             "axes: {batch: [1, 8, 64], context: [32768], k: [1, 2], alpha: [0.8]}\n")
    assert "under attention data parallelism (dp_attention 4)" in f.text, f.text
    assert "attention data parallelism fits more" not in headline(f), headline(f)


def test_the_draft_offload_steps_are_listed_fastest_first():
    """The built-in draft-offload sweep: one draft step (draft time / k) at batch 1 on H100, listed from the fastest
    placement to the slowest (mutant m107 listed them slowest first)."""
    from roofline.findings import finding
    from roofline.report import run_scenario

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = run_scenario("draft-offload")
        f = finding(r.name, r.df, r.ops, r.meta)
    steps = re.search(r"one draft step takes (.*?), against a verify pass", f.text).group(1)
    ms = [float(x) for x in re.findall(r"([\d.]+) ms", steps)]
    assert len(ms) == 4 and ms == sorted(ms), steps
    assert steps.startswith("1.55 ms co-located (k = 6)"), steps


def test_a_break_even_at_the_sweeps_last_batch_says_the_sweep_ends_it_not_memory(tmp_path):
    """Llama 3.1 8B on H100 at a 256-token context, alpha 0.9, batches 1-16: speculation still pays at 16, the last batch
    swept, where 1,635 sequences fit with the drafter: the sweep ends the search, not memory (mutant m39 swapped the
    two wordings)."""
    from roofline.findings import break_even_table

    df, f = _question_finding(tmp_path, "break-even-batch", "name: be-short\nquestion: break-even-batch\n"
                              "hardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                              "axes: {batch: [1, 8, 16], context: [256], k: [0, 1, 2], alpha: [0.9]}\n")
    row = break_even_table(df).iloc[0]
    assert row["break_even_batch"] == row["largest_fitting_batch"] == 16 and row["max_batch"] > 16
    assert not row["memory_limited"]
    assert re.search(r"up to at least batch 16 on H100 SXM5 \(\d+ FLOP/B; the sweep ends there, ", f.text), f.text
    assert "memory ends the sweep" not in f.text


def test_two_break_evens_inside_the_sweep_are_too_few_to_rank_against_the_ridge_points(tmp_path):
    """The built-in break-even sweep on two GPUs (A100 and H100, EAGLE alone, alpha 0.6): both break-evens lie inside
    the sweep, but a rank correlation over two points is +-1 whatever the order: the finding needs three
    (`len(free) >= 3`; mutant m35 quoted 'rank correlation 1.00 over the 2')."""
    _, f = _question_finding(tmp_path, "break-even-batch", "name: be-two\nquestion: break-even-batch\n"
                             "hardware: [a100-sxm-80gb, h100-sxm]\nmodel: llama-3.1-8b\nmethod: eagle\nengine: ideal\n"
                             "axes: {batch: {start: 1, stop: 4096, num: 25, log: true}, context: [256], "
                             "k: [1, 2, 3, 4, 5, 6], alpha: [0.6]}\n")
    assert f.numbers["rank_correlation"] != f.numbers["rank_correlation"]  # NaN
    assert "too few break-even batches inside the sweep, or too few distinct ones, to compare with the ridge points" in f.text, f.text
    assert "rank correlation" not in f.text and "The verify pass turns compute-bound" not in f.text


def test_a_gain_that_dips_and_comes_back_to_where_it_began_recovers_and_one_level_as_quoted_holds():
    """_course reads the gains as quoted (3 significant digits): 2.00x, 1.80x, 2.00x ends where it began: 'dips, then
    recovers' (mutant m91: only where it ends above, else 'falls, then partly recovers'); 2.001x and 2.004x are both
    '2.00x' as quoted: the gain holds, not 'grows' from 2.00x to 2.00x (mutant m92 compared the raw values)."""
    from roofline.findings import _course

    assert _course([2.0, 1.8, 2.0], [1, 8, 64]) == ("dips, then recovers",
                                                    "2.00× at batch 1, down to 1.80× at batch 8, up to 2.00× at batch 64")
    verb, path = _course([2.001, 2.004], [1, 64])
    assert verb == "holds" and path.startswith("2.00× from batch 1 to 64"), (verb, path)


def test_the_other_gpus_fast_tier_is_said_at_its_most_expensive():
    """fast_tier_premium, the built-in sweep: 'On the other 3 GPUs the 2x tier with speculation costs at most X their
    cheapest tier': X is the largest of their cheapest drafting points' premiums, an upper bound over them (mutant m127
    quoted the smallest)."""
    from roofline.findings import _x, finding
    from roofline.report import run_scenario

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = run_scenario("fast-tier-premium")
        f = finding(r.name, r.df, r.ops, r.meta)
        tiers = f.numbers["tiers"]
    head = re.match(r"On (.*?) \(", f.text).group(1)
    first = next(h for h in tiers.index if head.startswith({"h100-sxm": "H100"}.get(h, "?")))
    others = tiers.drop(index=first)["drafting_premium_2x"].dropna()
    assert len(others) == 3 and others.max() > others.min()
    assert f"On the other 3 GPUs the 2× tier with speculation costs at most {_x(others.max())} their cheapest tier" in f.text, f.text


def test_a_drafters_prefill_that_outweighs_the_decoding_gain_is_said_to_bring_the_answer_later(tmp_path):
    """prefill_not_sped_up: Llama 3.1 8B with Llama 3.2 1B drafting at alpha 0.4 on one H100, a 64k-token prompt:
    plain, 2.63 s of prefill + 256 / 120.3 tokens/s = 4.76 s; speculating, 2.63 + 0.530 s (the drafter's prefill) +
    256 / (120.3 x 1.169) = 4.98 s: decoding is faster but the answer later (mutant m140 said it 0.955x 'sooner')."""
    df, f = _question_finding(tmp_path, "prefill-not-sped-up", "name: pf-late\nquestion: prefill-not-sped-up\n"
                              "hardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: draft\ndraft: llama-3.2-1b\nengine: ideal\n"
                              "axes: {batch: [1], context: [65536], k: [0, 1], alpha: [0.4]}\n")
    spec = df[df["k"] == 1].iloc[0]
    plain_s = spec["baseline_ttft_s"] + 256 / spec["baseline_tokens_per_s_per_user"]
    spec_s = spec["ttft_s"] + spec["draft_ttft_s"] + 256 / spec["tokens_per_s_per_user"]
    assert spec["speedup"] > 1 and spec_s > plain_s
    assert f"but a 256-token answer arrives later with it ({spec_s:.2f} s against {plain_s:.2f} s): the prefills outweigh the gain." in f.text, f.text
    assert "sooner" not in f.text


def test_a_gpu_where_plain_decoding_fits_one_sequence_and_the_drafter_none_says_the_drafter(tmp_path):
    """Llama 3.1 8B on L4 at a 32k context: plain decoding fits 1 sequence (plain_max_batch 1), with EAGLE's head and
    its k + 1 tokens none (max_batch 0): 'not one batch fits with the drafter', not 'not one batch fits', which plain
    decoding's one sequence contradicts (mutant m36: `plain_max_batch > 1`)."""
    from roofline.findings import break_even_table

    df, f = _question_finding(tmp_path, "break-even-batch", "name: be-l4\nquestion: break-even-batch\nhardware: l4\n"
                              "model: llama-3.1-8b\nmethod: eagle\n"
                              "axes: {batch: [1, 8, 16, 64], context: [32768], k: [0, 1, 2], alpha: [0.9]}\n")
    row = break_even_table(df).iloc[0]
    assert row["plain_max_batch"] == 1 and row["max_batch"] == 0
    assert "speculation pays at no batch (at any k swept, 1, 2): L4 (not one batch fits with the drafter)." in f.text, f.text


def test_a_course_that_holds_gives_both_batches_with_thousands_separators():
    """qa480: '2.00× from batch 1 to 1024' where the rising case says 'at batch 1,024'."""
    from roofline.findings import _course

    assert _course([2.0, 2.0], [1, 1024])[1].endswith("from batch 1 to 1,024")


def test_a_gain_level_to_the_sweeps_end_says_so():
    """qa486: '2.04x at batch 1 to 2.09x at batch 32' where batch 64, the last, quotes 2.09x too: read as where it ended."""
    from roofline.findings import _course

    assert _course([2.04, 2.06, 2.0931, 2.0932], [1, 8, 32, 64]) == (
        "grows", "2.04× at batch 1 to 2.09× at batch 32, level from there to batch 64")
    assert _course([2.04, 2.06, 2.0931], [1, 8, 32]) == ("grows", "2.04× at batch 1 to 2.09× at batch 32")
    assert _course([2.0, 1.8, 2.2, 2.2], [1, 8, 32, 64])[1].endswith("up to 2.20× at batch 32, level from there to batch 64")
    assert _course([2.0, 2.0], [1, 8]) == ("holds", "2.00× from batch 1 to 8")
