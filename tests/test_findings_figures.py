"""How the findings say their figures (findings.py): memory's hold at a comparison's batch, a compared device's
smallest layout, the flops-vs-time, draft-offload, fast-tier and break-even wordings at their edges (qa434: mutation
testing of findings.py, 45 mutants; these kill its survivors)."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pandas as pd
import pytest

import roofline as api
from roofline.findings import _n, break_even_table, finding, question_rows
from roofline.report import run_scenario


def _run(tmp_path, text: str):
    name = re.search(r"^name: (\S+)", text, re.M).group(1)
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / f"{name}.yaml").write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_scenario(str(tmp_path / f"{name}.yaml"))


def _generic(tmp_path, text: str):
    r = _run(tmp_path, text)
    return r, finding(r.name, r.df, r.ops, r.meta)


def _question(tmp_path, text: str):
    """A user's scenario named as a question, answered as the report answers it."""
    r = _run(tmp_path, text)
    df, ops, meta, _ = question_rows(r.name, r.df, r.ops, r.meta)
    return df, finding(r.name, df, ops, meta, strict=False)


def _h100_cap() -> int:
    """Plain decoding's largest batch that fits Llama 3.1 8B on one H100 at a 2,048-token context (baseline_max_batch)."""
    d = api.sweep({"name": "x", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                   "axes": {"batch": [1], "context": [2048], "k": [0, 2], "alpha": [0.8]}})
    cap = int(d["baseline_max_batch"].iloc[0])
    assert int(d.loc[d["k"] == 2, "max_batch"].iloc[0]) < cap  # the drafter takes memory: speculation fits fewer
    return cap


def test_the_hardware_comparison_at_exactly_the_batch_memory_holds(tmp_path):
    """Swept at batch 1 and at exactly the largest batch plain decoding fits on the H100 (`cap`): the comparison says
    plain decoding's batch where speculation's is another (the drafter does not fit at `cap`), and the caps that part
    them (qa441: unsaid where plain's swept batch was its cap); no 'memory holding' where each swept batch IS the most
    memory holds."""
    cap = _h100_cap()
    r, f = _generic(tmp_path / "spec", f"name: cmp\nhardware: [h100-sxm, h200]\nmodel: llama-3.1-8b\nmethod: eagle\n"
                                        f"axes: {{batch: [1, {cap}], context: [2048], k: [0, 2], alpha: [0.8]}}\n")
    h100 = re.search(r"1 × H100 SXM5: [^;]*", f.text).group(0)
    plain = r.df[(r.df["hardware"] == "h100-sxm") & (r.df["batch"] == cap)].iloc[0]
    assert h100.startswith(f"1 × H100 SXM5: {_n(plain['baseline_tokens_per_s'])} tokens/s plain at batch {cap} and "), h100
    spec_cap = int(r.df[(r.df["hardware"] == "h100-sxm") & (r.df["k"] == 2)]["max_batch"].min())
    assert spec_cap < cap and h100.endswith(f"with speculation at batch 1, memory holding {cap} plain and {spec_cap} with "
                                            "speculation ($" + h100.split("($")[1]), h100
    _, f = _generic(tmp_path / "plain", f"name: cmpplain\nhardware: [h100-sxm, h200]\nmodel: llama-3.1-8b\n"
                                        f"axes: {{batch: [1, {cap}], context: [2048]}}\n")
    assert f"1 × H100 SXM5: {_n(plain['baseline_tokens_per_s'])} tokens/s at batch {cap} ($" in f.text, f.text
    assert "memory holding" in f.text.split("1 × H200 SXM:")[1]  # H200 holds more than the batch swept: said there


def test_a_compared_device_is_said_at_its_smallest_layout_that_fits(tmp_path):
    """qa431's rule with three layouts: H100 fits Llama 3.1 70B at tp 4 and tp 8, not tp 1: the smallest, tp 4."""
    r, f = _generic(tmp_path, "name: cmp-test\nhardware: [h100-sxm, mi325x]\nmodel: llama-3.1-70b\nmethod: eagle\n"
                              "tp: [1, 4, 8]\naxes:\n  batch: [1, 16]\n  context: [2048]\n  k: [0, 2]\n  alpha: [0.8]\n")
    top = r.df[(r.df["k"] > 0) & r.df["fits_in_memory"]].sort_values("speedup").iloc[-1]
    assert (top["hardware"], int(top["tp"])) == ("mi325x", 1)
    assert "4 × H100 SXM5 (tp 4; tp 1 does not fit)" in f.text and "8 × H100 SXM5 (tp 8" not in f.text, f.text


def test_batching_alone_is_said_to_peak_at_the_batch_memory_holds_without_more_said_to_fit(tmp_path):
    cap = _h100_cap()
    _, f = _question(tmp_path, "name: batch-vs-speculation\nmodel: llama-3.1-8b\nmethod: eagle\nhardware: h100-sxm\n"
                               f"axes: {{batch: [1, 16, {cap}], context: [2048], k: [0, 1, 2], alpha: [0.8]}}\n")
    assert f"(batch {cap}, " in f.text and "; the largest swept batch that fits)" in f.text, f.text
    assert "memory holding up to" not in f.text, f.text


def test_batching_alone_wins_from_the_first_batch_where_speculation_loses(tmp_path):
    """TensorRT-LLM at alpha 0.2: speculation pays at batch 1 and loses at 16, 64, 128 and 200: batching alone wins
    from batch 16."""
    df, f = _question(tmp_path, "name: batch-vs-speculation\nmodel: llama-3.1-8b\nmethod: eagle\nhardware: h100-sxm\n"
                                "engine: trtllm\naxes: {batch: [1, 16, 64, 128, 200], context: [2048], k: [0, 1, 2], alpha: [0.2]}\n")
    best = df[(df["k"] > 0) & df["fits_in_memory"]].groupby("batch")["speedup"].max()
    assert best[1] > 1 and (best.drop(1) < 1).all()
    assert f.numbers["batching_wins_from"] == 16 and "batching alone wins from batch 16." in f.text, f.text


def test_flops_vs_time_reads_the_alpha_nearest_0_8_and_says_a_best_k_at_the_largest_swept_as_a_lower_bound():
    """The built-in flops-vs-time sweep (alpha 0.5-0.9, k 0-8): its figures at alpha 0.8; the best k at alpha 0.9 is
    k = 8, the largest swept, so 'at least 8'."""
    r = run_scenario("flops-vs-time")
    f = finding(r.name, r.df, r.ops, r.meta)
    assert f.numbers["alpha"] == 0.8 and f.text.startswith("At α = 0.8 and its best k = "), f.text
    assert int(r.df["k"].max()) == 8 and "to at least 8 at α = 0.9." in f.text, f.text


def test_flops_vs_time_with_one_best_k_at_both_alphas_says_no_trend(tmp_path):
    """k 0-2 at alpha 0.85 and 0.9: k = 2, the largest swept, is best at both: said as it is, not as growing with
    alpha, and the headline's k = 2 marked the largest swept."""
    df, f = _question(tmp_path, "name: flops-vs-time\nmodel: llama-3.1-8b\nmethod: eagle\nhardware: h100-sxm\n"
                                "axes: {batch: [1], context: [2048], k: [0, 1, 2], alpha: [0.85, 0.9]}\n")
    assert set(df.loc[df["k"] > 0, "best_k"]) == {2}
    assert f.text.startswith("At α = 0.85 and its best k = 2 (the largest swept) ("), f.text
    assert "the best k is 2 at α = 0.85 and at least 2 at α = 0.9." in f.text and "grows" not in f.text, f.text


def test_flops_vs_time_where_nothing_pays_reads_the_most_favourable_point(tmp_path):
    """SGLang at alpha 0.2: speculation loses everywhere; the finding reads k = 1's most favourable point (its
    largest speedup) and quotes its time ratio, 1 / speedup."""
    df, f = _question(tmp_path, "name: flops-vs-time\nmodel: llama-3.1-8b\nmethod: eagle\nhardware: h100-sxm\nengine: sglang\n"
                                "axes: {batch: [1, 16, 64, 128], context: [2048], k: [0, 1, 2], alpha: [0.2]}\n")
    k1 = df[(df["k"] == 1) & df["fits_in_memory"]]
    best = k1.loc[k1["speedup"].idxmax()]
    assert (df.loc[df["k"] > 0, "speedup"] < 1).all()
    assert f.numbers["time_ratio"] == pytest.approx(1 / best["speedup"])
    assert f"(Llama 3.1 8B on H100 SXM5, batch {int(best['batch']):,})" in f.text, f.text


def test_draft_offload_says_its_largest_transfer_share_and_a_near_tie():
    """The built-in draft-offload sweep: 'at most X%' is the largest transfer share over the placements off the
    target (each point's fastest fitting k); a placement winning by less than 3% is said to tie."""
    r = run_scenario("draft-offload")
    f = finding(r.name, r.df, r.ops, r.meta)
    rows = r.df[r.df["fits_in_memory"].astype(bool) & (r.df["k"] > 0)]
    keys = ["hardware", "model", "context", "alpha", "batch", "draft_placement"]
    fastest = rows.loc[rows.groupby(keys, dropna=False)["speedup"].idxmax()]
    off = fastest[fastest["draft_placement"] != "co-located"]
    share = float((off["transfer_time_s"] / off["iteration_time_s"]).max())
    assert f.numbers["max_transfer_share"] == pytest.approx(share)
    assert f"at most {share * 100:.2g}% of an iteration" in f.text
    tie = re.search(r"\(([0-9.]+)× against ([0-9.]+)× co-located; within 3%, a tie at this model's accuracy\)", f.text)
    assert tie and float(tie[1]) < 1.03 * float(tie[2]), f.text


def test_the_context_sentence_says_one_batch_once_where_it_is_the_only_one_fitting_at_both(tmp_path):
    """Batch 64 fits at 4k and not at 128k: the gain is compared at batch 1 alone, said once."""
    _, f = _generic(tmp_path, "name: ctx\nhardware: h200\nmodel: llama-3.1-8b\nmethod: eagle\n"
                              "axes: {batch: [1, 64], context: [4096, 131072], k: [2, 4], alpha: [0.8]}\n")
    said = f.text[f.text.index("Over contexts"):]
    assert said.startswith("Over contexts 4k to 128k on the headline's config, the gain at batch 1 ") and "largest swept that fits at both" not in said, said


def test_a_request_at_batch_1_waits_behind_no_other_prefill(tmp_path):
    _, f = _generic(tmp_path, "name: req\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\nprompt: 1000\noutput_len: 200\n"
                              "axes: {batch: [1], context: [2048], k: [0, 2], alpha: [0.8]}\n")
    assert "no other request's prefill at batch 1" in f.text and "the other requests' prefills included" not in f.text, f.text


def test_a_verify_width_at_the_widest_q_swept_is_marked_as_a_lower_bound(tmp_path):
    _, f = _question(tmp_path, "name: verify-mini-prefill\nmodel: llama-3.1-8b\nmethod: eagle\nhardware: [h100-sxm]\n"
                               "axes: {batch: [1, 4], context: [2048], k: [0, 1, 2, 3], alpha: [0.8]}\n")
    assert "up to q = ≥4 on H100 SXM5" in f.text, f.text


def test_a_fast_tier_no_batch_reaches_is_out_of_reach_where_batch_1_was_swept(tmp_path):
    """Llama 3.1 70B on 4 H100 at a 32k context, swept from batch 1: plain decoding's 2x and 3x are out of reach (no
    batch is below 1), not 'not reached in the sweep ... a smaller one may'."""
    df, f = _question(tmp_path, "name: fast-tier-premium\nmodel: llama-3.1-70b\nmethod: eagle\nhardware: h100-sxm\ntp: 4\n"
                                "axes: {batch: [1, 4, 16], context: [32768], k: [0, 2, 4], alpha: [0.8]}\n")
    assert "2× that speed is out of reach without speculation" in f.text and "a smaller one may" not in f.text, f.text


def _be_rows(*rows, **extra):
    base = {"method": "eagle", "alpha": 0.8, "hardware": "h100-sxm", "model": "m", "context": 2048, "k": 2, **extra}
    return pd.DataFrame([{**base, **dict(zip(("batch", "speedup", "fits_in_memory"), r))} for r in rows])


def test_a_break_even_at_the_last_swept_batch_that_fits_is_a_lower_bound():
    """An unrefined sweep stops at the last swept batch that fits (8; 64 does not fit, memory holds 20): speculation
    still pays there, so the break-even of 8 is censored (said 'at least')."""
    df = _be_rows((1, 1.5, True), (8, 1.1, True), (64, 1.3, False), break_even_batch=8, max_batch=20)
    (row,) = break_even_table(df).itertuples()
    assert row.break_even_batch == 8 and bool(row.censored)


def test_the_first_losing_batch_below_the_break_even_is_the_smallest():
    df = _be_rows((1, 1.2, True), (2, 0.99, True), (4, 0.98, True), (8, 1.05, True), (16, 1.01, True),
                  break_even_batch=16, max_batch=100)
    (row,) = break_even_table(df).itertuples()
    assert row.first_losing_batch == 2 and row.speedup_at_first_losing_batch == pytest.approx(0.99)


def test_the_break_even_finding_at_an_18k_context_and_one_gpu(tmp_path):
    """'an 18,000-token context' (read 'an eighteen thousand'); a range of one end speedup said as one value."""
    df, f = _question(tmp_path, "name: break-even-batch\nmodel: llama-3.1-8b\nmethod: eagle\nhardware: h100-sxm\nengine: ideal\n"
                                "axes: {batch: [1, 8, 64], context: [18000], k: [0, 1, 2, 3], alpha: [0.6, 0.9]}\n")
    assert "an 18,000-token context" in f.text and "a 18,000" not in f.text, f.text
    later = re.search(r"still pays at the largest batch that fits or was swept on 1 of 1 at α = 0.9 \(([^)]*)\)", f.text)
    assert later, f.text
    assert not re.search(r"(\d\.\d\d)-\1×", later[1]), later[1]  # never '1.23-1.23×'


def _mla_ops(rows):
    """An operators table of attention rows: (hardware, tp, dp_attention, pass, flops, bytes, compute ceiling, memory
    ceiling, compute_bound) at one batch."""
    return pd.DataFrame([{"model": "deepseek-v3", "operator": "attention", "hardware": h, "tp": tp, "dp_attention": dp,
                          "ep": 8, "pp": 1, "kv_dtype": "fp8", "pass": p, "batch": 64, "q": 1.0 if p == "decode" else 4.0,
                          "flops": f, "bytes": b, "compute_ceiling_flops_per_s": c, "memory_ceiling_bytes_per_s": m,
                          "compute_bound": f / b > c / m} for h, tp, dp, p, f, b, c, m in rows])


def test_the_mla_sentence_reads_its_attention_against_each_devices_ridge():
    """qa441: a fixed sentence said MLA's attention does 'about 240' FLOP/B, 'near the ridge (above some, below others)',
    where an fp8 cache doubles it past every ridge (476.5 at dp-attention 8) and tp 8 divides it below every one (30):
    the finding reads the verify pass's FLOP/B (flops / bytes) against each device's ridge (ceilings' ratio)."""
    from roofline.findings import mla_attention_text

    meta = {"display_names": {}}
    # dp-attention 8, fp8: decode 480 FLOP/B, verify 1,600, ridges 200 and 250: compute-bound on both
    high = _mla_ops([(h, 1, 8, p, f, 1e9, c, 1e12) for h, c in (("h200", 200e12), ("b200", 250e12))
                     for p, f in (("decode", 480e9), ("verify", 1600e9))])
    text = mla_attention_text("deepseek-v3", high, meta)
    assert "480 FLOP/B in a decode step" in text and "1,600 FLOP/B, above its derated ridge on every device" in text, text
    assert "(200), " in text and "(250) FLOP/B" in text, text
    # qa461: the direction hangs on tau against N, not on the ridge alone; qa467: N = 1,600 / max(480, ridge), the decode
    # step past both ridges too (1,600 / ridge said 6.40-8.00x)
    assert "a verify pass's attention takes 3.33x a decode step's, and the gain there tends to tau / 3.33" in text, text
    assert "narrows the margin where that is below the gain at short context, and widens it where it is above" in text, text
    # a decode step below both ridges (150 FLOP/B): N = 1,600 / ridge, 8 on h200 and 6.4 on b200
    mid = high.assign(flops=high["flops"].where(high["pass"] == "verify", 150e9))
    assert "takes 6.40-8.00x a decode step's, and the gain there tends to tau / 6.40-8.00" in mla_attention_text("deepseek-v3", mid, meta)
    # tp 8: decode 30, verify 120, below both ridges: the rule holds
    low = _mla_ops([(h, 8, 1, p, f, 1e9, c, 1e12) for h, c in (("h200", 200e12), ("b200", 250e12))
                    for p, f in (("decode", 30e9), ("verify", 120e9))])
    text = mla_attention_text("deepseek-v3", low, meta)
    assert text.startswith(" For ") and " it holds here: " in text and "120 FLOP/B, below its derated ridge on every" in text, text
    # both layouts: each device and layout said on its side of the ridge
    text = mla_attention_text("deepseek-v3", pd.concat([high, low]), meta)
    above, below = text.split(" and below it on ")
    assert above.count("dp-attention 8") == 2 and "tp 8" not in above and below.count("tp 8") == 2, text
    assert "30.0-480 FLOP/B in a decode step" in text and "120-1,600 FLOP/B, above" in text, text
    # a model without verify rows (no speculation swept) says nothing
    assert mla_attention_text("deepseek-v3", high[high["pass"] == "decode"], meta) == ""


def test_the_largest_fit_clause_says_memory_where_plain_fills_it_and_speculation_stops_a_swept_batch_short(tmp_path):
    """qa441: Llama 3.1 70B fp8 at a 128k context on 8 MI300X holds 64 plain and 63 with the EAGLE head: plain at batch
    64 (its cap exactly) beside speculation at batch 32 was said without the caps that part them."""
    r, f = _generic(tmp_path, "name: t441\nhardware: [mi300x, h200]\nmodel: llama-3.1-70b\nmethod: eagle\ntp: 8\n"
                              "weight_dtype: fp8\nkv_dtype: fp8\n"
                              "axes: {batch: [16, 32, 64], context: [131072], k: [0, 3], alpha: [0.8]}\n")
    mi = r.df[r.df["hardware"] == "mi300x"]
    plain_cap, spec_cap = int(mi["baseline_max_batch"].min()), int(mi["max_batch"].min())
    assert (plain_cap, spec_cap) == (64, 63)
    assert (f"at batch 64 and {_n(float(mi[(mi['batch'] == 32) & (mi['k'] == 3)]['tokens_per_s'].iloc[0]))} with speculation "
            f"at batch 32, memory holding 64 plain and 63 with speculation") in f.text, f.text


@pytest.mark.slow
def test_a_sparse_mla_models_verify_attention_is_said_to_read_its_own_entries_a_query(tmp_path):
    """qa467: DeepSeek-V3.2's sparse attention (index_topk 2,048) was read as a dense latent cache: the cache's bytes,
    taken out of a decode and a verify pass whose queries share nothing, came to 0, and the finding said 54.1 FLOP/B
    and a verify pass at 1.11x a decode step's, where each query reads its own 2,048 entries (4x at q = 4)."""
    from roofline.findings import break_even_batch
    from roofline.report import run_scenario

    profile = (Path(__file__).parent.parent / "model_profiles" / "deepseek-v3.yaml").read_text()
    sparse = profile.replace("name: deepseek-v3\n", "name: dsv32-test\n").replace("display_name: DeepSeek-V3\n",
                                                                                 "display_name: DSV32-test\n").replace(
        "    - {kind: full, layers: 61}\n",
        "    - {kind: full, layers: 61, read_tokens: 2048, index_dim: 128, index_heads: 64}\n"
        "  index_key_bytes: {fp8: 132, bf16: 132}\n")
    assert sparse.count("read_tokens: 2048") == 1 and "display_name: DSV32-test" in sparse
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "dsv32-test.yaml").write_text(sparse)
    scenario = tmp_path / "dsa.yaml"
    scenario.write_text("name: dsa\nhardware: h200\nmodel: [dsv32-test, deepseek-v3]\nmethod: mtp\nengine: ideal\n"
                        "dp_attention: 8\nep: 8\naxes: {batch: [8, 64], context: [32768], k: [0, 3], alpha: [0.8]}\n")
    r = run_scenario(str(scenario), extra_dirs=(tmp_path / "p",), echo=False)
    assert r.meta["read_tokens"] == {"dsv32-test": 2048, "deepseek-v3": 0}
    finding = break_even_batch(r.df, r.ops, r.meta)
    text = finding.text
    # two models on one GPU: each break-even says whose it is (it said 'on H200 SXM' twice)
    assert text.count("on H200 SXM for DSV32-test (") == 1 and text.count("on H200 SXM for DeepSeek-V3 (") == 1, text
    assert "pays on H200 SXM for DeepSeek-V3 and H200 SXM for DSV32-test to at least 64" in finding.headline, finding.headline
    sparse_text = text.split("For DSV32-test")[1].split(" For ")[0]
    assert sparse_text.startswith(" it does not hold for its attention, which is sparse: each query reads its own 2,048 "
                                  "cached entries (picked by its indexer), so past 8,192 tokens of context a verify pass of "
                                  "4 tokens a sequence reads 4 times a decode step's entries at the same FLOP/B"), sparse_text
    # the operators table agrees: at 32k (past 8,192) the verify pass's attention reads 4x the decode step's bytes
    a = r.ops[(r.ops["model"] == "dsv32-test") & (r.ops["operator"] == "attention") & (r.ops["batch"] == 64)]
    ratio = float(a[a["pass"] == "verify"]["bytes"].iloc[0] / a[a["pass"] == "decode"]["bytes"].iloc[0])
    assert ratio == pytest.approx(4.0, rel=0.02)
    assert "For DeepSeek-V3 " in text and "whose queries share each read of the cache" in text.split("For DeepSeek-V3 ")[1]
