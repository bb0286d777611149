"""roofline.frontier and `roofline cheapest`: the cheapest reachable row for a speed per user, plain and speculative."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from roofline.frontier import cheapest, cost_frontier, frontier_notes
from roofline.units import format_significant

ROOT = Path(__file__).resolve().parent.parent


def _swept(tmp_path, roofline, text: str, *options):
    """A scenario of `text` written to tmp_path/scenario.yaml and swept into tmp_path/sw (no plots; `options` added):
    the scenario's path."""
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(text)
    assert roofline("sweep", scenario, "--out", tmp_path / "sw", "--no-plots", *options)[0] == 0
    return scenario


def _rows(*rows):
    columns = ("tokens_per_s_per_user", "cost_usd_per_million_tokens", "fits_in_memory", "method", "k", "alpha", "batch")
    base = {"hardware": "h100-sxm", "model": "m", "engine": "vllm", "context": 4096, "tp": 1, "devices": 1,
            "tokens_per_s_per_device": 1.0}
    return pd.DataFrame([{**base, **dict(zip(columns, r))} for r in rows])


@pytest.mark.slow
def test_the_frontier_keeps_a_row_only_where_no_faster_row_is_as_cheap_and_leaves_out_what_does_not_fit():
    df = _rows((100, 10.0, True, "none", 0, None, 1),
               (90, 12.0, True, "none", 0, None, 2),    # slower and dearer than the one above: not on it
               (80, 5.0, True, "none", 0, None, 4),
               (120, 1.0, False, "none", 0, None, 512),  # cheapest and fast, but does not fit: left out
               (70, None, True, "none", 0, None, 16),   # no price: left out
               (200, 20.0, True, "eagle", 3, 0.8, 1),
               (150, 4.0, True, "eagle", 3, 0.8, 4),
               (150, 11.0, True, "eagle", 0, 0.8, 8))   # k = 0 is plain decoding, whatever its method
    frontier = cost_frontier(df)
    plain = frontier[frontier["decoding"] == "plain"]
    spec = frontier[frontier["decoding"] == "speculation"]
    assert list(plain["batch"]) == [8, 1, 4] and list(plain["cost_usd_per_million_tokens"]) == [11.0, 10.0, 5.0]
    assert list(spec["batch"]) == [1, 4]
    picks = cheapest(df, 140)
    assert picks["plain"]["batch"] == 8 and picks["speculation"]["batch"] == 4
    assert cheapest(df, 95)["plain"]["batch"] == 1  # the cheapest at 95 or faster: $10, not $11
    assert cheapest(df, 210) == {"plain": None, "speculation": None}
    notes = frontier_notes(df)
    assert notes[0] == "1 of 8 rows do not fit in memory: left out" and notes[1].startswith("1 row has no cost")
    assert not any("one frontier over several" in n for n in notes)
    mixed = frontier_notes(df.assign(context=[4096] * 4 + [32768] * 4))
    assert any(n.startswith("one frontier over several values of context") and "--where context=VALUE" in n for n in mixed)
    assert not any("lower estimates" in n for n in notes)  # its speculative frontier rows are at batch 1 and 4
    large = frontier_notes(df.assign(batch=df["batch"] * 32))
    assert any(n.startswith("2 speculative frontier rows are at batch 32 or more under a serving engine") for n in large)
    assert not any("lower estimate" in n for n in frontier_notes(df.assign(batch=df["batch"] * 32, engine="ideal")))
    one = frontier_notes(df.assign(batch=df["batch"] * 16))  # batch 16 and 64: one row at 32 or more
    assert any(n.startswith("1 speculative frontier row is at batch 32") and n.endswith("its cost is a lower estimate") for n in one)


@pytest.mark.slow
def test_roofline_cheapest_reads_a_sweep_and_finds_the_cheapest_configuration_for_a_speed(tmp_path, roofline):
    """A planner sorting results.csv by cost picked a row that does not fit (h100-sxm tp 2, batch 512); the frontier
    of a sweep of two devices and three layouts is what `cheapest` prints, and --out writes it."""
    _swept(tmp_path, roofline, "name: plan\nhardware: [h100-sxm, h200]\nmodel: llama-3.1-70b\nmethod: eagle\n"
                        "layouts: [{tp: 2}, {tp: 4}, {tp: 8}]\naxes:\n  batch: [1, 16, 64, 512]\n  context: [4096]\n"
                        "  k: [0, 4]\n  alpha: [0.8]\n")
    df = pd.read_parquet(tmp_path / "sw" / "results.parquet")
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "60", "--out", tmp_path / "f.csv")
    assert code == 0, err
    fits = df[df["fits_in_memory"]]
    spec = fits[(fits["k"] > 0) & (fits["tokens_per_s_per_user"] >= 60)]
    best = spec.loc[spec["cost_usd_per_million_tokens"].idxmin()]
    picked = next(line for line in out.splitlines() if line.startswith("  speculation  $"))
    assert picked.startswith(f"  speculation  ${format_significant(best['cost_usd_per_million_tokens'])} at "
                             f"{format_significant(best['tokens_per_s_per_user'])} tokens/s per user: llama-3.1-70b on {best['hardware']}")
    assert not df.loc[df["cost_usd_per_million_tokens"].idxmin(), "fits_in_memory"]  # the trap a plain sort falls into
    written = pd.read_csv(tmp_path / "f.csv")
    assert set(written["decoding"]) == {"plain", "speculation"} and written["fits_in_memory"].all()
    code, _, err = roofline("cheapest", tmp_path / "sw", "--out", tmp_path / "f.csv")
    assert code == 2 and "exists; pass --force" in err
    code, _, err = roofline("cheapest", tmp_path / "sw", "--where", "alpha=0.5")
    assert code == 2 and "alpha" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_cheapest_without_a_speed_says_a_known_miss_of_the_frontier_rows_inside_it(tmp_path, roofline):
    """qa431: without --min-tokens-per-user, frontier rows inside sglang's MiniMax-M2.7 miss on MI300X (batch 1,024 and
    up at tp 8, ep 8) were listed with no note of it (a pick's notes said it, and there was no pick)."""
    _swept(tmp_path, roofline, "name: mm\nhardware: mi300x\nmodel: minimax-m2.7\nmethod: none\nengine: sglang\n"
                        "weight_dtype: fp8\nlayouts: [{tp: 8, ep: 8}]\naxes:\n  batch: [1, 64, 1024, 2048]\n"
                        "  context: [2048]\n")
    code, out, err = roofline("cheapest", tmp_path / "sw")
    assert code == 0, err
    said = [line for line in out.splitlines() if "a known miss of engine sglang: MiniMax-M2.7" in line]
    assert len(said) == 1 and said[0].startswith(
        "note: the frontier's plain rows at batch 1,024 and 2,048 (minimax-m2.7 on mi300x x 8 (tp 8, ep 8), sglang): "), out
    code, out, err = roofline("cheapest", tmp_path / "sw", "--where", "batch=64")  # no row inside it: none said
    assert code == 0 and "known miss" not in out, out


def test_a_table_without_the_columns_a_frontier_needs_is_one_line(tmp_path, roofline):
    path = tmp_path / "results.csv"
    pd.DataFrame({"hardware": ["h100-sxm"], "batch": [1]}).to_csv(path, index=False)
    code, _, err = roofline("cheapest", path)
    assert code == 2 and "expected a sweep results table with column(s) tokens_per_s_per_user" in err


@pytest.mark.slow
def test_a_table_of_speculative_rows_only_finds_its_plain_frontier_in_the_baseline_columns():
    """Eleven of the fifteen built-in scenarios sweep k from 1: `cheapest` found no plain decoding in them, though each
    row carries its plain point (baseline_tokens_per_s_per_user, baseline_cost_usd_per_million_tokens,
    baseline_max_batch). A plain point fits where the batch is at most baseline_max_batch; alphas and k repeat it."""
    df = _rows((200, 2.0, True, "eagle", 2, 0.8, 1), (210, 1.9, True, "eagle", 3, 0.8, 1), (150, 0.5, True, "eagle", 2, 0.8, 64),
               (160, 0.45, True, "eagle", 3, 0.8, 64), (100, 0.2, False, "eagle", 2, 0.8, 512))
    df = df.assign(baseline_tokens_per_s_per_user=[100, 100, 60, 60, 20], baseline_cost_usd_per_million_tokens=[3.0, 3.0, 1.0, 1.0, 0.1],
                   baseline_max_batch=[300, 300, 300, 300, 300])
    frontier = cost_frontier(df)
    plain = frontier[frontier["decoding"] == "plain"]
    assert list(plain["batch"]) == [1, 64] and list(plain["cost_usd_per_million_tokens"]) == [3.0, 1.0]  # batch 512 > 300
    assert (plain["method"] == "none").all() and (plain["k"] == 0).all()
    assert list(plain["tokens_per_s_per_device"]) == [100, 3840]  # the plain speed per user x batch / devices
    picks = cheapest(df, 90)
    assert picks["plain"]["batch"] == 1 and picks["speculation"]["batch"] == 64 and picks["speculation"]["k"] == 3
    partial = df.drop(columns="baseline_max_batch")  # the plain points need all three baseline columns: said
    assert "the table has no baseline_max_batch column: the plain points its speculative rows carry are left out" in frontier_notes(partial)


@pytest.mark.slow
def test_a_plain_point_drawn_from_a_speculative_row_carries_none_of_its_speculative_numbers(tmp_path, roofline):
    """--out wrote plain rows with the speculative row's tokens_per_s, speedup 0.927, tau 1.5, draft time and drafter
    device (draft-on-cheaper-gpu at batch 1)."""
    assert roofline("sweep", "draft-on-cheaper-gpu", "--out", tmp_path / "sw", "--no-plots")[0] == 0
    df = pd.read_parquet(tmp_path / "sw" / "results.parquet")
    plain = cost_frontier(df)
    plain = plain[plain["decoding"] == "plain"]
    assert len(plain) and (plain["speedup"] == 1).all() and (plain["tau"] == 1).all()
    assert (plain["draft_hardware"] == "").all() and plain["draft_time_s"].isna().all() and plain["memory_needed_bytes"].isna().all()
    assert (plain["tokens_per_s"] == plain["tokens_per_s_per_user"] * plain["batch"]).all()
    assert (plain["iteration_time_s"] == plain["step_time_s"]).all()


@pytest.mark.slow
def test_a_hand_edited_table_is_one_line_not_a_traceback(tmp_path, roofline):
    """A 'k' cell of 'x' gave a TypeError traceback; a blank fits_in_memory cell was read as fitting."""
    rows = _rows((100, 1.0, True, "none", 0, None, 1), (90, 2.0, True, "none", 0, None, 2))
    bad_k = rows.astype({"k": object})
    bad_k.loc[1, "k"] = "x"
    bad_k.to_csv(tmp_path / "k.csv", index=False)
    code, _, err = roofline("cheapest", tmp_path / "k.csv")
    assert code == 2 and err.strip() == f"error: {tmp_path / 'k.csv'}: k: expected numbers, found 'x' (line 3)"
    blank = rows.astype({"fits_in_memory": object})
    blank.loc[0, "fits_in_memory"] = None
    blank.to_csv(tmp_path / "f.csv", index=False)
    code, _, err = roofline("cheapest", tmp_path / "f.csv")
    assert code == 2 and "fits_in_memory: expected true or false, found nothing (line 2)" in err
    rows.to_csv(tmp_path / "ok.csv", index=False)
    code, _, err = roofline("cheapest", tmp_path / "ok.csv", "--min-tokens-per-user", "inf")
    assert code == 2 and "command line: --min-tokens-per-user: expected a finite number of at least 0 (tokens/s), found 'inf'" in err
    code, _, err = roofline("cheapest", tmp_path / "ok.csv", "--min-tokens-per-user", "1e400")  # qa336: said as parsed, inf
    assert code == 2 and err.strip().endswith("found '1e400'"), err


@pytest.mark.slow
def test_cheapest_names_a_drafters_device_and_keeps_its_out_file_off_a_sweeps_own_outputs(tmp_path, roofline):
    """The drafter's unpriced L40S was reported as h100-sxm and h200 having no price; a drafter on its own L4 did not
    show and its device was not counted; --out wrote CSV over scenario.json and results.parquet with --force, and a
    frontier.csv in the sweep folder blocked the next sweep --force."""
    scenario = _swept(tmp_path, roofline, "name: offload\nhardware: h100-sxm\nmodel: llama-3.1-70b\nmethod: draft\ndraft: llama-3.2-1b\n"
                        "draft_hardware: [l4, l40s]\ntp: 4\naxes:\n  batch: [1, 8, 64]\n  context: [2048]\n  k: [2, 4]\n"
                        "  alpha: [0.8]\n")
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "10")
    assert code == 0, err
    assert "swept without a price for l40s)" in out and "h100-sxm)" not in out.split("swept without a price for")[-1]
    assert "+ a drafter's l4" in out and re.search(r"h100-sxm \+l4 +5 ", out)  # 4 target devices and the drafter's
    for name in ("scenario.json", "results.parquet"):
        code, _, err = roofline("cheapest", tmp_path / "sw", "--out", tmp_path / "sw" / name, "--force")
        assert code == 2 and "expected a .csv file" in err
    code, _, err = roofline("cheapest", tmp_path / "sw", "--out", tmp_path / "sw" / "results.csv", "--force")
    assert code == 2 and "is a sweep's own table" in err
    assert roofline("cheapest", tmp_path / "sw", "--out", tmp_path / "sw" / "frontier.csv")[0] == 0
    assert roofline("sweep", scenario, "--out", tmp_path / "sw", "--no-plots", "--force")[0] == 0



@pytest.mark.parametrize("column, value, expected", [
    ("batch", float("nan"), "batch: expected a whole number in 1..2,147,483,647, found an empty or NaN cell (line 2)"),
    ("k", float("inf"), "k: expected a whole number in 0..2,147,483,647, found inf (line 2)"),
    ("devices", 1e308, "devices: expected a whole number in 1..2,147,483,647, found 1e+308 (line 2)"),
    ("cost_usd_per_million_tokens", 0.0, "cost_usd_per_million_tokens: expected a number above 0 up to 1e+15, or nothing, found 0 (line 2)"),
    ("fits_in_memory", -1, "fits_in_memory: expected true or false, found -1 (line 2)"),
    ("alpha", 2.0, "alpha: expected an acceptance rate in [0, 1], or nothing, found 2 (line 2)"),
    ("hardware", "", "hardware: expected a name, found an empty or NaN cell (line 2)"),
    ("tp", 0, "tp: expected a whole number in 1..2,147,483,647, found 0 (line 2)"),
    ("tokens_per_s_per_user", float("inf"), "tokens_per_s_per_user: expected a number above 0 up to 1e+15, found inf (line 2)"),
    # qa408: a blank speed (no sweep writes one) dropped its row in silence, and the pick changed
    ("tokens_per_s_per_user", float("nan"), "tokens_per_s_per_user: expected a number above 0 up to 1e+15, found an empty or NaN cell (line 2)"),
    ("break_even_at_memory_limit", "maybe", "break_even_at_memory_limit: expected true or false, found 'maybe' (line 2)"),
    ("cost_usd_per_million_tokens", -1.0, "cost_usd_per_million_tokens: expected a number above 0 up to 1e+15, or nothing, found -1 (line 2)"),
])
def test_a_cell_no_sweep_writes_is_one_line(tmp_path, roofline, column, value, expected):
    """A whole column of NaN or inf in batch, k or tp gave a traceback (cannot convert float NaN to integer); a
    negative batch or cost was ranked as if real."""
    rows = _rows((100, 1.0, True, "none", 0, None, 1), (90, 2.0, True, "none", 0, None, 2))
    rows[column] = value
    rows.to_csv(tmp_path / "t.csv", index=False)
    code, _, err = roofline("cheapest", tmp_path / "t.csv")
    assert code == 2 and err.strip().endswith(expected) and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_the_frontier_table_keeps_its_columns_in_line_and_names_the_values_it_mixes():
    """A layout of 'tp 1, dp-attention 8, ep 8' ran past its 22 columns and pushed its row out of line, and the note on
    mixed configs gave 'a 4k context's cost beside a 32k one's' for a table all at one context (qa61)."""
    import roofline
    from roofline.tables import frontier_table

    df = roofline.sweep({"name": "mix", "hardware": "h200", "model": "qwen3-30b-a3b", "method": "none", "engine": ["vllm", "sglang"],
                         "dp_attention": 8, "ep": 8, "axes": {"batch": [8, 64, 256], "context": [4096]}})
    frontier = cost_frontier(df)
    assert frontier["layout"].str.len().max() > 22
    notes = frontier_notes(df)
    assert any("(engine vllm's cost beside engine sglang's)" in n for n in notes), notes
    lines = frontier_table(frontier, notes).splitlines()
    header = next(line for line in lines if line.lstrip().startswith("tok/s/user"))
    rows = [line for line in lines if re.match(r"\s+[\d.,]+\s+[\d.,]+\s", line)]
    engine_at = header.index("engine")
    assert all(line[engine_at - 1] == " " and line[engine_at] != " " for line in rows), "\n".join([header, *rows])


@pytest.mark.slow
def test_cheapest_says_where_a_speculative_pick_runs_pipeline_parallel_and_mixes_only_rows_it_compares():
    """A speculative pick at pp 2 was named with no word that engines refuse speculation with pp; and a context of
    1,000,000 no row of which fit was named as compared with 4,096 (qa62)."""
    import roofline

    df = roofline.sweep({"name": "pp", "hardware": "h200", "model": "llama-3.1-70b", "method": "eagle", "engine": "vllm",
                         "layouts": [{"tp": 2, "pp": 2}], "axes": {"batch": [8, 64], "k": [0, 3], "alpha": [0.7],
                                                                   "context": [4096, 1000000]}})
    notes = frontier_notes(df)
    assert any("with pipeline parallelism (pp > 1)" in n and "issue 14117" in n for n in notes), notes
    assert not any("one frontier over several values of context" in n for n in notes), notes
    assert any("do not fit in memory: left out" in n for n in notes)


@pytest.mark.slow
def test_plain_frontier_rows_show_k_0_and_idle_attention_groups_are_noted():
    """A plain row of a method-none config swept over k printed 'none 1'; a frontier row at batch 8 on dp_attention 32
    paid for 24 idle groups without a word (qa66)."""
    import roofline
    from roofline.tables import frontier_table

    df = roofline.sweep({"name": "idle", "hardware": "h200", "model": "qwen3-30b-a3b", "method": ["none", "eagle"],
                         "engine": "ideal", "dp_attention": 4, "ep": 4, "axes": {"batch": [2, 64], "k": [1, 2],
                                                                                "alpha": [0.7], "context": [2048]}})
    frontier = cost_frontier(df)
    notes = frontier_notes(df)
    assert any("fewer sequences than attention data-parallel groups (batch < dp_attention)" in n for n in notes), notes
    plain_lines = frontier_table(frontier, notes).split("speculation:")[0].splitlines()
    rows = [line for line in plain_lines if re.match(r"\s+[\d.,]+\s+[\d.,]+\s", line)]
    assert rows and all(re.search(r" none +0 ", line) for line in rows), rows


@pytest.mark.slow
def test_the_mixed_alpha_note_says_which_alpha_the_speculative_frontier_holds():
    """'the table mixes acceptance rates' over alpha 0.3-0.9, where every speculative frontier row was at 0.9, the most
    favourable swept: the caveat that mattered went unsaid (qa68)."""
    import roofline

    df = roofline.sweep({"name": "a", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle", "engine": "ideal",
                         "axes": {"batch": [1, 16], "k": [0, 3], "alpha": [0.5, 0.9], "context": [1024]}})
    (note,) = [n for n in frontier_notes(df) if "several acceptance rates" in n]
    assert "every speculative frontier row is at alpha 0.9, the highest swept: the most favourable assumption" in note, note
    # the headline ratio names the alpha its speculative pick assumes (qa301: 0.0166x at alpha 0.9, said in a note alone)
    from roofline.frontier import cheapest
    from roofline.tables import frontier_table

    picks = cheapest(df, 50.0, set())
    head = next(line for line in frontier_table(cost_frontier(df), frontier_notes(df), picks, 50.0).splitlines()
                if "speculation costs" in line)
    assert head.endswith("the table mixes acceptance rates, and the speculative pick assumes alpha 0.9 (--where "
                         "alpha=VALUE compares at one)"), head


@pytest.mark.slow
def test_cheapest_leaves_out_rows_at_a_layout_the_engines_refuse_to_load(tmp_path, roofline):
    """DeepSeek-V3's fp8 checkpoint at tp 32 splits its 128 x 128 block scales (2,048 / 32 = 64 columns a device):
    vLLM and SGLang refuse it. The sweep warns; `cheapest` picked it at 100 tokens/s per user ($24.3 at 103, batch 16)
    and now leaves its rows out, saying why, from the table's own columns: a copy of the table elsewhere too (qa73)."""
    import shutil

    from roofline.frontier import refused_layouts

    scenario = tmp_path / "tp.yaml"
    scenario.write_text("name: tp\nhardware: h200\nmodel: deepseek-v3\nmethod: mtp\ntp: [8, 16, 32]\n"
                        "axes:\n  batch: [1, 4, 16, 64]\n  context: [2048]\n  k: [0, 3]\n")
    code, _, err = roofline("sweep", scenario, "--out", tmp_path / "sw", "--no-plots")
    assert code == 0 and "deepseek-v3 at tp 32" in err
    df = pd.read_parquet(tmp_path / "sw" / "results.parquet")
    refused, unchecked = refused_layouts(df)
    assert [(e["model"], e["tp"], e["expert_dtype"]) for e in refused] == [("deepseek-v3", 32, "fp8")] and unchecked == []
    assert cost_frontier(df)["tp"].eq(32).any()  # without the list, tp 32 is on the frontier
    (tmp_path / "copy").mkdir()
    shutil.copy(tmp_path / "sw" / "results.csv", tmp_path / "copy" / "results.csv")
    for table in (tmp_path / "sw", tmp_path / "copy" / "results.csv"):
        code, out, err = roofline("cheapest", table, "--min-tokens-per-user", "100", "--out", tmp_path / "f.csv", "--force")
        assert code == 0, err
        assert not pd.read_csv(tmp_path / "f.csv")["tp"].eq(32).any()
        assert "tp 32" not in out.split("note:")[0]
        kept = df[df["fits_in_memory"] & (df["tp"] != 32) & (df["k"] > 0) & (df["tokens_per_s_per_user"] >= 100)]
        best = kept.loc[kept["cost_usd_per_million_tokens"].idxmin()]  # the pick among the layouts the engines load
        assert f"(tp {int(best['tp'])}), {best['engine']}, batch {int(best['batch'])}" in out.splitlines()[2]
        assert (f"note: {int(df['tp'].eq(32).sum())} rows left out, at a layout, method or draft model their engine refuses to load or runs no setup of: deepseek-v3 at tp 32: the checkpoint's "
                "128 x 128 block scales") in out
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--where", "tp=32")
    assert code == 1 and "no row fits in memory with a cost at a layout the engines load and run" in out
    # the same model in bf16 loads at tp 32 (no block scales); fp8 experts beside it would not: the dense MLP in fp8 does not
    bf16 = df.assign(weight_dtype="bf16", expert_dtype="bf16")
    assert [e["tp"] for e in refused_layouts(df.assign(expert_dtype="bf16"))[0]] == [32]
    assert refused_layouts(bf16)[0] == [] and len(cost_frontier(bf16, refused)) == len(cost_frontier(bf16))
    # a model no profile on the search path describes is named, not silently passed
    assert refused_layouts(df.assign(model="my-private-model"))[1] == ["model my-private-model"]


@pytest.mark.slow
def test_the_reports_fast_tiers_price_no_layout_the_engines_refuse_to_load():
    """qa73: cheapest left tp 32 of DeepSeek-V3's fp8 checkpoint out, the report's fast tiers still priced it."""
    import roofline
    from roofline.findings import tier_prices

    df = roofline.sweep({"name": "ft", "hardware": "h200", "model": "deepseek-v3", "method": "mtp", "tp": [16, 32],
                         "axes": {"batch": [1, 8, 64, 256], "context": [2048], "k": [0, 1, 2], "alpha": [0.8]}})
    assert cost_frontier(df)["tp"].eq(32).any()  # tp 32 would price a tier
    pd.testing.assert_frame_equal(tier_prices(df), tier_prices(df[df["tp"] != 32]))


@pytest.mark.slow
def test_cheapest_and_the_fast_tiers_never_pick_an_engine_on_a_device_it_does_not_run_on(tmp_path, roofline):
    """TensorRT-LLM on an MI300X was cheapest's answer (its low price, trtllm's small host work), with no word; predict
    and sweeps warn that it describes no deployment (qa87)."""
    import roofline as api
    from roofline.frontier import loadable, refused_layouts

    df = api.sweep({"name": "t", "hardware": ["h100", "mi300x"], "model": "llama-3.1-8b", "engine": ["sglang", "trtllm"],
                    "axes": {"batch": [1, 8, 64], "context": [2048]}})
    on_amd = (df["engine"] == "trtllm") & (df["hardware"] == "mi300x")
    def amd_trtllm(frame):
        return bool(((frame["engine"] == "trtllm") & (frame["hardware"] == "mi300x")).any())

    assert amd_trtllm(cost_frontier(df))  # the trap
    refused = refused_layouts(df)[0]
    assert not amd_trtllm(cost_frontier(df, refused))
    assert len(loadable(df)) == len(df) - int(on_amd.sum())
    assert f"{int(on_amd.sum())} rows left out, an engine on a device it does not run on: trtllm on mi300x" in " ".join(
        frontier_notes(df, refused))
    df.to_csv(tmp_path / "t.csv", index=False)
    code, out, err = roofline("cheapest", tmp_path / "t.csv", "--min-tokens-per-user", "50")
    assert code == 0, err
    assert "trtllm" not in out.split("note:")[0].split("\n\n")[0]  # the picks


@pytest.mark.slow
def test_cheapest_says_what_predict_says_of_its_picks_engine(tmp_path, roofline):
    """predict warns that sglang's speculation costs are priors on a speculative point; cheapest's headline for the same
    point carried none of it (qa87)."""
    _swept(tmp_path, roofline, "name: s\nhardware: h100\nmodel: llama-3.1-8b\nmethod: eagle\nengine: sglang\n"
                        "axes:\n  batch: [1, 8, 64]\n  context: [2048]\n  k: [0, 3]\n  alpha: [0.8]\n")
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "50")
    assert code == 0, err
    assert "note: the speculation pick: no measured row determines sglang's host_per_step (1.5 ms)" in out
    assert "the plain pick: no measured row" not in out  # overlapped host work that does not set the step is not leaned on
    # the point computed between the swept batches says its own (qa145: said as the pick's, of another config), and
    # not again what the pick's says of the same engine and device (qa146)
    assert "computed now:" in out and "note: the speculation point computed now: no measured row" not in out
    assert "note: the speculation pick" not in roofline("cheapest", tmp_path / "sw")[1]  # no speed asked: no picks
    # an older or trimmed table (no step_time_s, no kv_dtype): no traceback, and the notes it can give (qa89)
    df = pd.read_parquet(tmp_path / "sw" / "results.parquet").drop(columns=["step_time_s", "verify_time_s", "kv_dtype"])
    df.to_csv(tmp_path / "old.csv", index=False)
    code, out, err = roofline("cheapest", tmp_path / "old.csv", "--min-tokens-per-user", "50")
    assert code == 0, err
    assert "note: the speculation pick: no measured row determines sglang's" in out
    df = pd.read_parquet(tmp_path / "sw" / "results.parquet").astype({"step_time_s": object})
    df.loc[df.index[0], "step_time_s"] = "-"  # a text cell the pick notes read as a number: a ValueError (qa90)
    df.to_csv(tmp_path / "text.csv", index=False)
    code, _, err = roofline("cheapest", tmp_path / "text.csv", "--min-tokens-per-user", "50")
    assert code == 2 and "step_time_s: expected numbers, found '-' (line 2)" in err


def test_an_engine_drafting_on_a_device_it_does_not_run_on_leaves_out_only_the_speculative_rows():
    """trtllm verifying on an H100 and drafting on an MI300X was cheapest's speculation pick (qa89)."""
    from roofline.frontier import refused_rows, unrunnable_engines

    df = pd.DataFrame({"engine": ["trtllm"] * 3 + ["vllm"], "hardware": ["h100-sxm"] * 4,
                       "draft_hardware": ["mi300x", "mi300x", "", "mi300x"], "k": [0, 3, 3, 3]})
    refused = unrunnable_engines(df)
    assert refused == [{"engine": "trtllm", "draft_hardware": "mi300x", "speculative_only": True,
                        "note": "trtllm drafting on mi300x (TensorRT-LLM runs on NVIDIA GPUs only)",
                        "why": "TensorRT-LLM runs on NVIDIA GPUs only"}]
    assert refused_rows(df, refused).tolist() == [False, True, False, False]


def test_an_engine_or_device_whose_profile_is_not_on_the_path_is_named_unchecked():
    """A table read without the --profiles folder that made it: its models were named unchecked, its engines and devices
    were passed over without a word (qa90), so trtllm's copy on an AMD device could be cheapest's pick unchecked."""
    from roofline.frontier import refused_layouts, unchecked_note

    df = pd.DataFrame({"model": ["llama-3.1-8b", "my-model"], "engine": ["mytrt", "vllm"], "hardware": ["mi300x", "my-gpu"],
                       "tp": [1, 1]})
    refused, unchecked = refused_layouts(df)
    assert refused == []
    assert unchecked == ["device my-gpu", "engine mytrt", "model my-model"]
    assert unchecked_note(unchecked) == ("no profile of device my-gpu, engine mytrt, model my-model on the search path "
                                         "(roofline --profiles DIR): whether the engines load those layouts and run on "
                                         "those devices is not checked")
    assert unchecked_note([]) == ""


def test_tensorrt_llm_on_a_cpu_is_left_out_and_vllm_on_a_cpu_is_not():
    """TensorRT-LLM on a CPU was a caveat only (qa90): it has no CPU backend, so its rows describe no deployment; vLLM
    and SGLang have CPU backends, and their GPU costs there stay a caveat (predict's warning)."""
    from roofline.frontier import unrunnable_engines
    from roofline.hardware import load_hardware
    from roofline.serving import engine_on_a_cpu, load_engine

    df = pd.DataFrame({"engine": ["trtllm", "vllm"], "hardware": ["epyc-9654", "epyc-9654"]})
    assert [(e["engine"], e["hardware"]) for e in unrunnable_engines(df)] == [("trtllm", "epyc-9654")]
    cpu = load_hardware("epyc-9654")
    assert engine_on_a_cpu(load_engine("trtllm"), cpu).startswith("engine trtllm: TensorRT-LLM runs on NVIDIA GPUs only, and epyc-9654")
    assert "is a CPU: engine ideal is the CPU's own roofline" in engine_on_a_cpu(load_engine("vllm"), cpu)


@pytest.mark.slow
def test_a_row_left_out_for_two_reasons_is_counted_once():
    """MI300X's 131k-token batch of 64 did not fit and ran trtllm: counted in both notes, 5 + 4 of 8 rows (qa90)."""
    import warnings

    import roofline
    from roofline.frontier import frontier_notes, refused_layouts

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = roofline.sweep({"name": "t", "hardware": ["h100", "mi300x"], "model": "llama-3.1-70b", "engine": "trtllm",
                             "tp": 1, "method": "none", "axes": {"batch": [1, 64], "context": [1024, 131072]}})
    assert int((~df["fits_in_memory"]).sum()) == 5 and int((df["hardware"] == "mi300x").sum()) == 4
    notes = frontier_notes(df, refused_layouts(df)[0])
    assert notes[:2] == ["5 of 8 rows do not fit in memory: left out",
                         "3 rows left out, an engine on a device it does not run on: trtllm on mi300x (TensorRT-LLM runs on "
                         "NVIDIA GPUs only)"]


def test_cheapest_says_where_a_profiles_price_changed_since_the_sweep(tmp_path):
    """`hw set h100-mkt price=1.50` after the sweep: cheapest priced at the sweep's $2.10 without a word (qa91)."""
    import json

    from roofline.frontier import price_notes
    from roofline.hardware import load_hardware

    h100 = load_hardware("h100-sxm").price_usd_per_hour
    (tmp_path / "scenario.json").write_text(json.dumps({"price_usd_per_hour": {"h100-sxm": 2.1, "h200": None, "nope": 1.0}}))
    table = tmp_path / "results.csv"
    notes = price_notes(table)
    assert notes[0] == (f"h100-sxm's profile now gives ${h100:.2f} a device-hour; the table was priced at $2.10 a device-hour "
                        "when swept: its costs are the table's; sweep again to price them at the profile's")
    assert len(notes) == 2 and notes[1].startswith("h200's profile now gives $") and "swept without a price for it" in notes[1]
    (tmp_path / "scenario.json").write_text(json.dumps({"price_usd_per_hour": {"h100-sxm": h100}}))
    assert price_notes(table) == [] and price_notes(tmp_path / "elsewhere" / "results.csv") == []


@pytest.mark.slow
def test_cheapest_prices_the_batches_between_the_swept_ones():
    """cheapest priced only the swept batches: DeepSeek-V3's plain pick at batch 4 of 1, 4, 16, where batch 15 reaches
    60 tokens/s per user at half the cost (qa91). refine sweeps the gap above each config's fastest-enough batch (here 140
    tokens/s per user: batch 8 reaches it, 16 does not)."""
    import warnings

    import roofline
    from roofline.frontier import cheapest, refine

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = roofline.sweep({"name": "t", "hardware": "h200", "model": "llama-3.1-8b", "method": "eagle",
                             "axes": {"batch": [1, 8, 64], "context": [1024], "k": [0, 3], "alpha": [0.8]}})
        picks, refined = cheapest(df, 140.0), refine(df, 140.0)
    plain = refined["plain"]["row"]
    assert plain is not None and plain["cost_usd_per_million_tokens"] < picks["plain"]["cost_usd_per_million_tokens"]
    assert 8 < plain["batch"] < 64 and plain["tokens_per_s_per_user"] >= 140.0
    b = int(plain["batch"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        at, next_one = (roofline.predict(plain["hardware"], "llama-3.1-8b", n, 1024) for n in (b, b + 1))
    assert at["cost_usd_per_million_tokens"] == pytest.approx(plain["cost_usd_per_million_tokens"], rel=1e-9)
    assert next_one["tokens_per_s_per_user"] < 140.0  # the largest batch of its config that reaches the speed
    spec = refined["speculation"]["row"]
    assert spec is not None and spec["k"] == 3 and spec["alpha"] == 0.8 and spec["batch"] not in (1, 8, 64)
    assert spec["cost_usd_per_million_tokens"] < picks["speculation"]["cost_usd_per_million_tokens"]


@pytest.mark.slow
def test_the_speculation_ratio_is_given_where_a_kinds_only_point_is_computed_now(tmp_path, roofline):
    """No swept plain batch reaches 150 tokens/s per user, batch 13 below them does: the ratio line was left out where
    only the computed point priced plain decoding (qa96), and its wording said 'between swept batches' of it."""
    _swept(tmp_path, roofline, "name: below\nhardware: [h100-sxm, h200]\nmodel: llama-3.1-8b\nmethod: eagle\n"
                        "axes:\n  batch: [16, 64, 256]\n  k: [0, 3]\n  alpha: [0.7]\n")
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "150")
    assert code == 0 and "no row that fits reaches it" in out and "below the smallest swept batch, computed now" in out
    ratio = re.search(r"speculation costs ([0-9.]+)x plain decoding's to reach this speed, with the points computed now", out)
    costs = [float(c) for c in re.findall(r"computed now: \$([0-9.]+)", out)]
    assert ratio and len(costs) == 2 and float(ratio.group(1)) == pytest.approx(costs[1] / costs[0], rel=0.01)


@pytest.mark.slow
def test_a_pick_names_the_dtypes_the_table_varies_even_where_its_frontier_holds_one(tmp_path, roofline):
    """A table of KV bf16 and fp8 whose frontier holds only fp8 rows named neither in its pick lines (qa96)."""
    _swept(tmp_path, roofline, "name: kv\nhardware: h100-sxm\nmodel: llama-3.1-8b\nkv_dtype: [bf16, fp8]\n"
                        "axes:\n  batch: [1, 64]\n  context: [32768]\n")
    table = pd.read_csv(tmp_path / "sw" / "results.csv")
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "20", "--out", tmp_path / "f.csv")
    assert code == 0 and set(pd.read_csv(tmp_path / "f.csv")["kv_dtype"]) == {"fp8"} and table["kv_dtype"].nunique() == 2
    assert re.search(r"plain +\$[0-9.]+ at .*, batch \d+, context [0-9,]+, weights bf16, KV fp8$", out, re.M)
    # the frontier table has a KV column (qa132: its rows looked alike whatever their dtype)
    head = next(line for line in out.splitlines() if line.startswith("tok/s/user"))
    rows = out.split(head)[1].strip().split("\n\n")[0].splitlines()
    assert head.endswith("      KV") and rows and all(line.endswith("     fp8") for line in rows), out


@pytest.mark.slow
def test_a_frontier_over_shared_prefixes_gives_each_row_its_prefix(tmp_path, roofline):
    """A sweep of two shared prefixes: its frontier rows (a prefix held once is cheaper) looked alike row by row, the
    prefix said in the pick line alone; the table gives it a column, each row's as the --out file has it."""
    _swept(tmp_path, roofline, "name: sp\nhardware: h100-sxm\nmodel: llama-3.1-8b\nshared_prefix: [0, 6000]\n"
                        "axes:\n  batch: [8, 64, 256]\n  context: [8192]\n")
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--out", tmp_path / "f.csv")
    frontier = pd.read_csv(tmp_path / "f.csv")
    head = next(line for line in out.splitlines() if line.startswith("tok/s/user"))
    rows = out.split(head)[1].strip("\n").split("\n\n")[0].splitlines()
    assert code == 0 and head.endswith("  prefix tokens") and len(rows) == len(frontier), out
    assert {len(line) for line in rows} == {len(head)}, out  # each row under its heads
    assert [line.split()[-1] for line in rows] == [f"{p:,}" for p in frontier["shared_prefix"]], out
    assert "6,000" in [line.split()[-1] for line in rows]
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--where", "shared_prefix=0")
    assert code == 0 and not next(line for line in out.splitlines() if line.startswith("tok/s/user")).endswith("tokens")


def test_a_draft_model_pick_is_refined_from_its_sweeps_scenario_json_and_said_where_it_cannot_be():
    from roofline.errors import RooflineError
    from roofline.frontier import _config_scenario

    row = pd.Series({"hardware": "h100-sxm", "model": "llama-3.1-70b", "engine": "vllm", "tp": 4, "dp_attention": 1, "ep": 1,
                     "pp": 1, "shared_prefix": 0, "weight_dtype": "bf16", "expert_dtype": "", "kv_dtype": "bf16",
                     "method": "draft", "draft_hardware": "", "k": 4, "alpha": 0.7, "context": 1024})
    with pytest.raises(RooflineError, match="a draft model, which the table does not name"):
        _config_scenario(row, True, None, [3])
    spec = _config_scenario(row, True, {"draft": "llama-3.2-1b", "overlap": True}, [3])
    assert spec["draft"] == "llama-3.2-1b" and spec["axes"] == {"batch": [3], "context": [1024], "k": [4], "alpha": [0.7]}
    assert "expert_dtype" not in spec and spec["method"] == "draft"
    eagle = row.copy()
    eagle["alpha"], eagle["method"] = float("nan"), "eagle"
    rates = _config_scenario(eagle, True, {"acceptance": [0.9, 0.7]}, [3])
    assert rates["acceptance"] == [0.9, 0.7] and "alpha" not in rates["axes"]


@pytest.mark.slow
def test_a_frontier_of_ngram_beside_a_drafter_at_one_alpha_says_they_are_unlike():
    """At alpha 0.8 n-gram lookup (no drafter cost) took every speculative frontier row from EAGLE, unremarked (qa91)."""
    import warnings

    import roofline
    from roofline.frontier import frontier_notes

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = roofline.sweep({"name": "t", "hardware": "h100", "model": "llama-3.1-8b", "method": ["eagle", "ngram"],
                             "axes": {"batch": [1, 8], "k": [0, 3], "alpha": [0.8]}})
    said = [n for n in frontier_notes(df) if n.startswith("n-gram lookup shares an alpha with eagle")]
    assert len(said) == 1 and "--where method=VALUE keeps one" in said[0]
    assert not any(n.startswith("n-gram") for n in frontier_notes(df[df["method"] == "eagle"]))
    unfit = df.assign(fits_in_memory=df["fits_in_memory"] & (df["method"] != "ngram"))  # qa362: every n-gram row left out
    assert not any(n.startswith("n-gram lookup shares an alpha") for n in frontier_notes(unfit))


@pytest.mark.slow
def test_refine_reproduces_the_tables_point_before_it_prices_between_batches():
    """qa94: DeepSeek-V4-Flash's native fp4 routed / fp8 shared experts were rebuilt as fp4 both (the expert label); an
    EAGLE sweep with a draft vocabulary, read without its scenario.json, was refined at the full vocabulary; a price
    changed since the sweep mixed today's price into the table's. The swept batch must come out as the table has it, and
    costs stay at the table's prices."""
    import warnings

    import roofline
    from roofline.frontier import refine

    def swept(spec):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return roofline.sweep(spec)

    def refined(df, speed, meta=None):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return refine(df, speed, meta=meta)

    flash = swept({"hardware": "b200", "model": "deepseek-v4-flash", "tp": 8, "axes": {"batch": [1, 16, 64]}})
    point = refined(flash, 80.0)["plain"]["row"]
    assert point is not None and 16 < point["batch"] < 64
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same = roofline.predict("b200", "deepseek-v4-flash", int(point["batch"]), int(point["context"]), tp=8)
    assert point["cost_usd_per_million_tokens"] == pytest.approx(same["cost_usd_per_million_tokens"], rel=1e-9)

    vocab = swept({"hardware": "h100", "model": "llama-3.1-8b", "method": "eagle", "draft_vocab": 32000,
                   "axes": {"batch": [1, 64, 256], "k": [3], "alpha": [0.8]}})
    alone = refined(vocab, 100.0)["speculation"]  # no scenario.json: the vocabulary is not in the columns
    assert alone["row"] is None and "its swept batch 64 comes out otherwise now" in alone["notes"][0]
    assert "llama-3.1-8b on h100-sxm (tp 1, vllm, context 1,024, eagle k 3 at alpha 0.8) batch 65-255: " in alone["notes"][0]  # every
    # part of a config (qa96, qa102: engine, alpha, model, context)
    assert refined(vocab, 100.0, {"draft_vocab": 32000})["speculation"]["row"] is not None

    doubled = flash.assign(cost_usd_per_million_tokens=flash["cost_usd_per_million_tokens"] * 2,
                           baseline_cost_usd_per_million_tokens=flash["baseline_cost_usd_per_million_tokens"] * 2)
    again = refined(doubled, 80.0)["plain"]["row"]  # swept at twice today's price: the table's prices kept
    assert again["cost_usd_per_million_tokens"] == pytest.approx(2 * point["cost_usd_per_million_tokens"], rel=1e-9)


def test_a_draft_model_pick_keeps_overlap_only_where_its_drafter_is_elsewhere():
    """overlap: false beside draft_hardware [null, l4]: the on-target config was refused on refining (qa94)."""
    from roofline.frontier import _config_scenario

    row = pd.Series({"hardware": "h100-sxm", "model": "llama-3.1-70b", "engine": "vllm", "tp": 4, "dp_attention": 1, "ep": 1,
                     "pp": 1, "shared_prefix": 0, "weight_dtype": "bf16", "expert_dtype": "", "kv_dtype": "bf16",
                     "method": "draft", "draft_hardware": "", "k": 4, "alpha": 0.7, "context": 1024})
    meta = {"draft": "llama-3.2-1b", "overlap": False}
    assert "overlap" not in _config_scenario(row, True, meta, [3])
    elsewhere = row.copy()
    elsewhere["draft_hardware"] = "l4"
    assert _config_scenario(elsewhere, True, meta, [3])["overlap"] is False


@pytest.mark.slow
def test_refine_finds_the_cheapest_point_a_sweep_of_every_batch_finds():
    """A cap of 8 configs, the cheapest at their swept edge first, missed a config whose gap held the cheapest point
    (qa95: MI300X at batch 3, $11.9, against B200's $15.0). The gaps are searched by the least cost each can reach."""
    import warnings

    import roofline
    from roofline.frontier import refine

    spec = {"hardware": ["h100", "h200", "mi300x", "l4", "a100"], "model": "llama-3.1-8b", "engine": ["vllm", "sglang"],
            "method": "eagle", "axes": {"k": [0, 3], "alpha": [0.7], "context": [2048]}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        coarse = roofline.sweep({**spec, "axes": {**spec["axes"], "batch": [1, 16, 64, 256]}})
        dense = roofline.sweep({**spec, "axes": {**spec["axes"], "batch": list(range(1, 257))}})
        for speed in (40.0, 120.0):
            found = refine(coarse, speed)
            for kind, plain in (("plain", True), ("speculation", False)):
                rows = dense[(dense["k"] == 0) == plain]
                rows = rows[rows["fits_in_memory"] & (rows["tokens_per_s_per_user"] >= speed) & rows["cost_usd_per_million_tokens"].notna()]
                truth = rows["cost_usd_per_million_tokens"].min()
                point = found[kind]["row"]
                assert point is not None, (speed, kind)
                if found[kind]["place"] == "above":  # above the largest swept batch (256): beyond the every-batch sweep, and cheaper
                    assert point["batch"] > 256 and point["cost_usd_per_million_tokens"] < truth
                else:
                    assert point["cost_usd_per_million_tokens"] == pytest.approx(truth, rel=1e-9), (speed, kind)


@pytest.mark.slow
def test_refine_sweeps_the_gap_likely_cheapest_first(monkeypatch):
    """Gaps ordered by the least cost each can reach (c B / B') put first those above configs that fit thousands, whose
    cost hardly falls there (qa96: 64 sweeps of a 1,728-point table missed MI300X's gap to batch 608, the cheapest).
    Ordered by the cost each likely reaches, two sweeps find what a sweep of every batch finds."""
    import warnings

    import roofline
    from roofline import frontier

    monkeypatch.setattr(frontier, "REFINE_CONFIGS_MAX", 2)
    spec = {"hardware": ["h100-sxm", "h200", "b200", "a100-sxm-80gb", "l40s", "mi300x"], "model": "llama-3.1-8b",
            "engine": ["vllm", "sglang"], "method": "eagle", "axes": {"k": [0, 3], "alpha": [0.8], "context": [2048]}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        coarse = roofline.sweep({**spec, "axes": {**spec["axes"], "batch": [1, 8, 64, 512]}})
        dense = roofline.sweep({**spec, "axes": {**spec["axes"], "batch": list(range(1, 512 + frontier.REFINE_POINTS_MAX + 1))}})
    for speed in (0.0, 18.0, 110.0):
        found = frontier.refine(coarse, speed)
        for kind, plain in (("plain", True), ("speculation", False)):
            rows = dense[(dense["k"] == 0) == plain]
            rows = rows[rows["fits_in_memory"] & (rows["tokens_per_s_per_user"] >= speed)]
            assert found[kind]["row"]["cost_usd_per_million_tokens"] == pytest.approx(
                rows["cost_usd_per_million_tokens"].min(), rel=1e-9), (speed, kind)
            assert "computed for at most 2 configs" in found[kind]["notes"][0]  # the cap said, with the gaps that could still win


@pytest.mark.slow
def test_refine_looks_below_the_smallest_swept_batch_where_none_is_fast_enough():
    """A sweep of batches 16, 64, 256 said 'no row reaches' 150 tokens/s per user, where batch 13 on an H200 does
    (qa95)."""
    import warnings

    import roofline
    from roofline.frontier import cheapest, refine

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = roofline.sweep({"hardware": ["h100", "h200"], "model": "llama-3.1-8b", "axes": {"batch": [16, 64, 256]}})
        found = refine(df, 150.0)["plain"]
        one, two = (roofline.predict("h200", "llama-3.1-8b", b) for b in (int(found["row"]["batch"]), int(found["row"]["batch"]) + 1))
    assert cheapest(df, 150.0)["plain"] is None and found["place"] == "below" and found["row"]["batch"] < 16
    assert one["tokens_per_s_per_user"] >= 150.0 > two["tokens_per_s_per_user"]
    assert found["row"]["cost_usd_per_million_tokens"] == pytest.approx(one["cost_usd_per_million_tokens"], rel=1e-9)


@pytest.mark.slow
def test_refine_reads_a_native_dtype_label_as_the_scenario_gave_it():
    """expert_dtype: [fp4, fp8] on DeepSeek-V4-Flash swept fp4 shared experts under the label its native mix also has
    (fp4 routed, fp8 shared): refine rebuilt the native mix, so the config did not reproduce and its gap went unpriced
    (qa96). Both readings are tried, the one that reproduces the swept row kept."""
    import warnings

    import roofline
    from roofline.frontier import refine

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = roofline.sweep({"hardware": "b200", "model": "deepseek-v4-flash", "tp": 4, "expert_dtype": "fp4",
                             "axes": {"batch": [16, 256], "context": [8192]}})
        found = refine(df, 30.0)["plain"]
        exact = roofline.predict("b200", "deepseek-v4-flash", int(found["row"]["batch"]), 8192, tp=4, expert_dtype="fp4")
    assert found["notes"] == [] and found["place"] in ("above", "between")  # where the speed is reached: the profile's say
    assert found["row"]["cost_usd_per_million_tokens"] == pytest.approx(exact["cost_usd_per_million_tokens"], rel=1e-9)


@pytest.mark.slow
def test_the_ratio_with_points_computed_now_is_left_out_where_refine_left_gaps_unpriced():
    """frontier_table told refine's unpriced gaps by the words of its note (qa102); it is told by a flag now."""
    import warnings

    import roofline
    from roofline.frontier import refine
    from roofline.tables import frontier_table

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = roofline.sweep({"name": "t", "hardware": "h200", "model": "llama-3.1-8b", "method": "eagle",
                             "axes": {"batch": [1, 8, 64], "context": [1024], "k": [0, 3], "alpha": [0.8]}})
        picks, refined = cheapest(df, 140.0), refine(df, 140.0)
    points = {kind: (r["row"], r["place"]) for kind, r in refined.items()}
    assert all(r["row"] is not None for r in refined.values())
    priced = frontier_table(cost_frontier(df), [], picks, 140.0, points)
    assert "x with the points computed now)" in priced
    unpriced = frontier_table(cost_frontier(df), [], picks, 140.0, points, unpriced=True)
    assert "x with the points computed now)" not in unpriced
    # qa423: the ratio said of the swept picks, beside points computed now it does not compare, is said to be theirs
    line = next(x for x in unpriced.splitlines() if x.startswith("  speculation costs "))
    assert ("(each kind's cheapest swept row at it or faster) (the points computed now above not compared: batches "
            "between the swept ones were not all priced, notes below)") in line, line
    assert "(each kind's cheapest swept row at it or faster) (" in priced
    alone = frontier_table(cost_frontier(df), [], picks, 140.0, {k: (None, "") for k in points})  # none computed now
    assert "(each kind's cheapest at it or faster)" in alone and "swept row" not in alone


@pytest.mark.slow
def test_what_the_table_mixes_is_read_from_the_notes_by_their_openings():
    """frontier_table told the notes' mixes by words inside them (qa102): the openings are constants of frontier.py,
    written and read by the same names."""
    import warnings

    import roofline
    from roofline.frontier import MIXED_ALPHAS, MIXED_CONFIGS, frontier_notes, mixes

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = roofline.sweep({"hardware": "h100-sxm", "model": ["llama-3.2-1b", "llama-3.1-8b"], "method": "eagle",
                             "axes": {"batch": [1, 8], "context": [1024], "k": [0, 3], "alpha": [0.6, 0.8]}})
    notes = frontier_notes(df)
    assert any(n.startswith(MIXED_CONFIGS) for n in notes) and any(n.startswith(MIXED_ALPHAS) for n in notes)
    assert mixes(notes) == ["acceptance rates", "configs"]
    assert mixes(["a note that quotes one frontier over several values of it in passing"]) == []


@pytest.mark.slow
def test_a_speculative_pick_at_a_large_batch_says_its_cost_is_a_lower_estimate(tmp_path, roofline):
    """cheapest's swept speculative pick at batch 128 carried no caveat of its own, only a count in the notes; the point
    computed now had a note of its own besides (qa105): each pick line says it, once."""
    _swept(tmp_path, roofline, "name: big\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                        "axes:\n  batch: [8, 128, 256]\n  k: [0, 3]\n  alpha: [0.9]\n")
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "60")
    assert code == 0
    pick = next(line for line in out.splitlines() if line.lstrip().startswith("speculation  $"))
    batch = int(re.search(r", batch (\d+),", pick).group(1))  # 128 to session 32, 256 since session 33's refit
    assert batch in (128, 256) and pick.endswith("(batch 32 or more under a serving engine: its cost is a lower estimate)")
    assert "the speculative point computed now is at batch" not in out


@pytest.mark.slow
def test_a_pick_names_its_context_draft_model_and_the_bound_and_says_a_plain_table_has_no_speculation(tmp_path, roofline):
    """qa112: a pick at context 32,768 did not say so (predict's default 1,024 gave another answer); a draft model's
    name was nowhere in the pick; engine ideal was picked as any other; a table of plain decoding said its speculative
    rows did not fit."""
    _swept(tmp_path, roofline, "name: d\nhardware: h100-sxm\nmodel: llama-3.1-70b\nmethod: draft\ndraft: llama-3.2-1b\ntp: 4\n"
                        "engine: [vllm, ideal]\naxes:\n  batch: [1, 8, 64]\n  context: [2048, 32768]\n  k: [2, 4]\n  alpha: [0.8]\n")
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "10")
    assert code == 0, err
    picks = [line for line in out.splitlines() if re.match(r"  (plain|speculation) +\$", line)]
    assert len(picks) == 2 and all(re.search(r", context (2,048|32,768)", line) for line in picks)
    assert ", draft llama-3.2-1b k " in picks[1]
    assert not any("ideal" in line for line in picks) and "rows of engine ideal left out" in out  # (qa371)
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "10", "--where", "engine=ideal")
    assert any(", ideal (the roofline bound: no serving engine's costs, a cost none reaches)" in line
               for line in out.splitlines() if re.match(r"  (plain|speculation) +\$", line))
    code, out, _ = roofline("cheapest", tmp_path / "sw")  # one model: no model column
    assert code == 0 and not re.search(r"alpha +model", out)
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "10", "--where", "engine=vllm",
                            "--where", "context=2048")
    # one context selected: still said (qa132: a table of one context at 128k named none, and predict from the line
    # took its default 1,024), as the weight and KV dtypes are, whether or not the table varies them
    assert code == 0 and "ideal" not in out.split("note:")[0]
    picks = [line for line in out.splitlines() if re.match(r"  (plain|speculation) +\$", line)]
    assert picks and all(", context 2,048, weights bf16, KV bf16" in line for line in picks), picks
    plain = tmp_path / "p.yaml"
    plain.write_text("name: p\nhardware: h100-sxm\nmodel: llama-3.1-8b\naxes:\n  batch: [1, 8]\n")
    assert roofline("sweep", plain, "--out", tmp_path / "psw", "--no-plots")[0] == 0
    code, out, _ = roofline("cheapest", tmp_path / "psw", "--min-tokens-per-user", "10")
    assert code == 0 and "speculation  the table has no speculative rows (method none, or k 0 alone)" in out
    two = tmp_path / "two.yaml"  # a table of two models whose frontier holds one still names it (qa112)
    two.write_text("name: two\nhardware: h100-sxm\nmodel: [llama-3.1-8b, llama-3.1-70b]\naxes:\n  batch: [1, 8]\n")
    assert roofline("sweep", two, "--out", tmp_path / "tsw", "--no-plots")[0] == 0
    code, out, _ = roofline("cheapest", tmp_path / "tsw")  # the 8B's rows are cheaper and faster: the 70B is on no frontier
    table = out.split("note:")[0]
    assert code == 0 and re.search(r"alpha +model", table) and "llama-3.1-8b" in table and "llama-3.1-70b" not in table


def test_a_speculative_pick_without_alpha_says_how_it_accepts():
    """qa116: a pick on a tree or on per-position rates named neither ('eagle k 4')."""
    from roofline.tables import speculation_text

    assert speculation_text({"tree_nodes": 15, "tree_tau": 3.2}) == "as a tree of 15 nodes, tau 3.2"
    assert speculation_text({"acceptance": [0.9, 0.7, 0.5]}) == "at rates 0.9, 0.7, 0.5"
    assert speculation_text({"default_rates": {"eagle": {}}}) == "at the method's published rates"
    assert speculation_text({}) == ""


@pytest.mark.slow
def test_cheapest_names_a_tree_pick(tmp_path, roofline):
    (tmp_path / "tr.yaml").write_text("name: tr\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                                      "tree: {nodes: 15, tau: 3.2}\naxes:\n  batch: [1, 8]\n")
    assert roofline("sweep", tmp_path / "tr.yaml", "--out", tmp_path / "sw", "--no-plots")[0] == 0
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "50")
    assert code == 0 and re.search(r"  speculation  .* eagle k 4 as a tree of 15 nodes, tau 3\.2", out)


@pytest.mark.slow
def test_cheapest_out_marks_the_picks(tmp_path, roofline):
    """qa112: the --out CSV held the frontier only; a script reading it could not find the answer printed."""
    (tmp_path / "s.yaml").write_text("name: s\nhardware: [h100-sxm, h200]\nmodel: llama-3.1-8b\nmethod: eagle\n"
                                     "axes:\n  batch: [1, 8, 64]\n  k: [0, 2]\n  alpha: [0.8]\n")
    assert roofline("sweep", tmp_path / "s.yaml", "--out", tmp_path / "sw", "--no-plots")[0] == 0
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "60", "--out", tmp_path / "f.csv")
    assert code == 0
    text = (tmp_path / "f.csv").read_text()  # spelled as results.csv is (qa408: True and 0.0 from pandas' writer)
    assert ",True," not in text and ",False," not in text and ",true," in text and not re.search(r",\d+\.0,", text), text[:400]
    frontier = pd.read_csv(tmp_path / "f.csv")
    picked = frontier[frontier["pick"]]
    assert sorted(picked["decoding"]) == ["plain", "speculation"]
    plain = frontier[frontier["decoding"] == "plain"]  # qa428: a plain row drawn from k = 0 carried the swept best k
    assert plain["best_k"].isna().all() and plain["break_even_batch"].isna().all(), plain[["k", "best_k"]]
    assert frontier.loc[frontier["decoding"] == "speculation", "best_k"].notna().any()
    for _, row in picked.iterrows():  # the printed pick line of each kind names the row marked
        line = next(ln for ln in out.splitlines() if re.match(rf"  {row['decoding']} +\$", ln))
        assert f"on {row['hardware']} x " in line and f", batch {int(row['batch'])}" in line
        assert (frontier[frontier["decoding"] == row["decoding"]]["tokens_per_s_per_user"] >= 60).any()
        swept_rows = frontier[~frontier["computed_now"]]  # the table's rows (a point computed now is its own row)
        assert row["cost_usd_per_million_tokens"] == swept_rows[(swept_rows["decoding"] == row["decoding"])
                                                                & (swept_rows["tokens_per_s_per_user"] >= 60)]["cost_usd_per_million_tokens"].min()


@pytest.mark.slow
def test_a_pick_names_the_context_dtypes_and_an_unoverlapped_drafter_the_table_holds_one_of(roofline, tmp_path):
    """qa132: a table of fp8 weights at 32k alone named neither in its pick line, nor a scenario's `overlap: false`;
    predict from the line (its defaults: 1,024 tokens, the model's weights, overlap) gave other answers."""
    _swept(tmp_path, roofline, "name: s\nhardware: h100-sxm\nmodel: llama-3.1-70b\ntp: 4\nweight_dtype: fp8\nmethod: draft\n"
                        "draft: llama-3.2-1b\ndraft_hardware: l4\noverlap: false\n"
                        "axes: {batch: [1, 8, 32], context: [32768], k: [0, 2], alpha: [0.8]}\n")
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "5")
    picks = [line for line in out.splitlines() if re.match(r"  (plain|speculation) +\$", line)]
    assert code == 0 and len(picks) == 2, (out, err)
    assert all(", context 32,768, weights fp8, KV bf16" in line for line in picks), picks
    assert "drafting not overlapped (--no-overlap)" in picks[1] and "overlapped" not in picks[0]


@pytest.mark.slow
def test_a_cost_frontier_cheapest_wrote_is_refused_by_plot_and_cheapest_in_one_line(tmp_path, roofline):
    """qa132: `plot` drew a frontier file's rows as a sweep's (every cell off the frontier grey, 'does not fit'), and
    `cheapest` read it as a table."""
    _swept(tmp_path, roofline, "name: s\nhardware: h100-sxm\nmodel: llama-3.1-8b\naxes:\n  batch: [1, 64]\n")
    assert roofline("cheapest", tmp_path / "sw", "--out", tmp_path / "f" / "f.csv")[0] == 0
    for command in (("plot", tmp_path / "f" / "f.csv", "--out", tmp_path / "p"), ("cheapest", tmp_path / "f" / "f.csv")):
        code, _, err = roofline(*command)
        assert code == 2 and err.strip().endswith("found a cost frontier `roofline cheapest --out` wrote (the frontier's rows "
                                                  "only): give the sweep's folder or its results table"), err
        assert len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_where_alpha_on_a_sweep_of_per_position_rates_says_alpha_is_empty_and_how_to_keep_those_rows(tmp_path, roofline):
    """qa130: '--where alpha=0.8 ... which no row has (values: '')' and no word why."""
    _swept(tmp_path, roofline, "name: rates\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\nacceptance: [0.8, 0.6]\n"
                        "axes: {batch: [1, 8], k: [0, 2]}\n")
    code, _, err = roofline("cheapest", tmp_path / "sw", "--where", "alpha=0.8")
    assert code == 2 and err.strip().endswith("alpha is empty where per-position rates, a tree or a method's published rates "
                                              "stand for it (--where alpha=nan keeps those rows)"), err
    assert roofline("cheapest", tmp_path / "sw", "--where", "alpha=nan")[0] == 0


@pytest.mark.slow
def test_a_frontier_read_from_csv_shows_no_nan_for_a_dense_model_s_experts(tmp_path, roofline):
    """qa133: a CSV table's dense model read its empty expert_dtype as NaN: 'nan' in the frontier's experts column."""
    _swept(tmp_path, roofline, "name: s\nhardware: h100-sxm\nmodel: [qwen3-30b-a3b, llama-3.1-8b]\nexpert_dtype: [fp8, int4]\n"
                        "axes:\n  batch: [1, 64]\n  context: [2048]\n", "--format", "csv")
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "100")
    assert code == 0 and "experts" in out and "nan" not in out, (out, err)


@pytest.mark.slow
def test_a_parquet_table_whose_numbers_are_stored_as_text_is_read_as_numbers(tmp_path, roofline):
    """qa135: cheapest and plot died with a traceback (format code 'g' for a str) on a number column of strings."""
    _swept(tmp_path, roofline, "name: s\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                        "axes:\n  batch: [1, 64]\n  context: [2048]\n  k: [0, 2]\n  alpha: [0.8]\n")
    df = pd.read_parquet(tmp_path / "sw" / "results.parquet")
    for column in ("alpha", "speedup", "cost_usd_per_million_tokens", "shared_prefix", "baseline_max_batch"):  # qa137: the last two
        path = tmp_path / f"{column}.parquet"
        df.assign(**{column: df[column].astype(str)}).to_parquet(path)
        code, out, err = roofline("cheapest", path, "--min-tokens-per-user", "10")
        assert code == 0 and "Traceback" not in err, err
        code, _, err = roofline("plot", path, "--out", tmp_path / f"p-{column}")
        assert code == 0, err


@pytest.mark.slow
def test_a_results_table_cut_off_mid_row_is_refused_not_read_as_unpriced(tmp_path, roofline):
    """qa135: a CSV cut short in its last row read the missing cells as blanks: 'no price in the profile of h100-sxm'."""
    _swept(tmp_path, roofline, "name: s\nhardware: h100-sxm\nmodel: llama-3.1-8b\naxes:\n  batch: [1, 2, 4, 8, 16, 32, 64]\n", "--format", "csv")
    text = (tmp_path / "sw" / "results.csv").read_text()
    cut = tmp_path / "cut.csv"
    cut.write_text(text[: text.rindex(",", 0, len(text) - 40)])
    for command in (("cheapest", cut), ("plot", cut, "--out", tmp_path / "p")):
        code, _, err = roofline(*command)
        assert code == 2 and "fields as the header has, found" in err and "(a row cut short?)" in err, err


@pytest.mark.slow
def test_plot_refuses_every_number_cell_it_reads_that_is_not_one(tmp_path, roofline):
    """qa135: plot checked four of the number columns it reads: an inf tokens_per_s_per_device, a negative max_batch,
    alpha 1.5 were drawn in silence (cheapest refused them)."""
    _swept(tmp_path, roofline, "name: s\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                        "axes:\n  batch: [1, 8]\n  context: [2048]\n  k: [0, 2]\n  alpha: [0.8]\n", "--format", "csv")
    df = pd.read_csv(tmp_path / "sw" / "results.csv")
    for column, value, says in (("tokens_per_s_per_device", float("inf"), "found inf"), ("max_batch", -3, "found -3"),
                                ("alpha", 1.5, "found 1.5"),  # qa408: a negative or infinite cost, a flag of 'maybe'
                                ("cost_usd_per_million_tokens", -1.0, "found -1"), ("cost_usd_per_million_tokens", float("inf"), "found inf"),
                                ("break_even_at_memory_limit", "maybe", "found 'maybe'")):
        path = tmp_path / f"{column}-{value}.csv"
        edited = df.copy().astype({column: object})
        edited[column] = [value] + list(df[column])[1:]
        edited.to_csv(path, index=False)
        code, _, err = roofline("plot", path, "--out", tmp_path / f"p-{column}-{value}")
        assert code == 2 and f"{column}: expected" in err and says in err, err


@pytest.mark.slow
def test_a_layout_refused_under_one_engine_is_said_with_it_and_a_contradictory_profile_is_refused(tmp_path, roofline):
    """qa138: the note said 'vLLM and SGLang refuse' a dp 32 layout only SGLang's stage split refuses (vLLM's rows stayed
    on the frontier); a profile listing lm_head split over the stage and whole at once was accepted."""
    _swept(tmp_path, roofline, "name: s\nhardware: h200\nmodel: deepseek-v3\nengine: [sglang, vllm]\n"
           "layouts: [{dp_attention: 32, ep: 32}, {dp_attention: 8, ep: 8}]\naxes:\n  batch: [64, 512]\n  context: [4096]\n")
    code, out, _ = roofline("cheapest", tmp_path / "sw")
    assert code == 0 and "refuse to load such a shard (under sglang)" in out and "(under vllm)" not in out, out
    code, _, err = roofline("engines", "new", "both", "--from", "sglang", "--set", "dp_attention_whole=[embedding, lm_head]")
    assert code == 2 and "dp_attention_whole: expected classes not also in dp_attention_stage_split, found ['lm_head']" in err, err
    # qa141: an override could still list one in both, and the split silently won on the devices it matched
    code, _, err = roofline("engines", "new", "both", "--from", "sglang", "--set",
                            'overrides=[{hardware: "h*", dp_attention_whole: [lm_head, embedding]}]')
    assert code == 2 and "overrides[0].dp_attention_whole: expected classes not also in dp_attention_stage_split" in err, err
    import dataclasses

    import roofline as api
    from roofline.errors import RooflineError

    spec = dataclasses.replace(api.load_engine("sglang"), overrides=(("h*", {"dp_attention_whole": ("lm_head",)}),))
    with pytest.raises(RooflineError, match=r"overrides\[0\]\.dp_attention_whole"):
        api.predict("h200", "deepseek-v3", 8, 2048, engine=spec, dp_attention=8, ep=8)
    # qa143: two overrides, each consistent with the profile's lists, that one device matches both of
    two = '[{hardware: "h*", dp_attention_stage_split: [lm_head]}, {hardware: "h2*", dp_attention_whole: [lm_head]}]'
    code, _, err = roofline("engines", "new", "both2", "--from", "vllm", "--set", f"overrides={two}")
    assert code == 2 and "overrides: expected classes not both in dp_attention_stage_split and dp_attention_whole on h20" in err
    spec = dataclasses.replace(api.load_engine("vllm"), overrides=(("h*", {"dp_attention_stage_split": ("lm_head",)}),
                                                                   ("h2*", {"dp_attention_whole": ("lm_head",)})))
    with pytest.raises(RooflineError, match="on h200, found"):
        api.predict("h200", "deepseek-v3", 8, 2048, engine=spec, dp_attention=8, ep=8)
    # qa152: shared experts split over the stage by an engine whose sequence-parallel MoE holds them whole: both paths
    # applied, each its own way (their tile padding from one, their weights from the other)
    code, _, err = roofline("engines", "new", "spx", "--from", "sglang", "--set", "sequence_parallel_moe=true")
    assert code == 2 and ("sequence_parallel_moe: expected false where dp_attention_stage_split lists shared_experts "
                          "(held whole on 1/tp of the tokens, or split over the stage: one or the other), found true") in err, err
    code, _, err = roofline("engines", "new", "spx", "--from", "vllm", "--set",
                            'overrides=[{hardware: "h*", dp_attention_stage_split: [shared_experts]}]')
    assert code == 2 and "overrides[0].sequence_parallel_moe: expected false" in err, err
    # qa155: under DeepEP's dispatch the shared experts stay in the group (stage_split_classes): no clash
    code, _, err = roofline("engines", "new", "spx-deepep", "--from", "sglang", "--set", "sequence_parallel_moe=true", "--set",
                            "moe_dispatch=per_pair")
    assert code == 0, err
    spec = dataclasses.replace(api.load_engine("sglang"), overrides=(("h*", {"sequence_parallel_moe": True}),))
    with pytest.raises(RooflineError, match=r"overrides\[0\]\.sequence_parallel_moe: expected false"):
        api.predict("h200", "deepseek-v3", 8, 2048, engine=spec, tp=2, dp_attention=4, ep=8)


@pytest.mark.slow
def test_a_layout_no_setup_of_its_engine_has_is_warned_and_left_out_of_the_prices():
    """qa139: TensorRT-LLM's enable_attention_dp runs attention at tp 1 (tp_size 8 is tp 1, dp_attention 8), and vLLM's
    --enable-expert-parallel puts the experts on every device of a stage or none; tp 2 / dp 4 under trtllm and ep 4 of
    8 under vllm were priced without a word, and cheapest could pick them."""
    import warnings

    import roofline
    from roofline.frontier import refused_layouts

    layouts = [{"dp_attention": 8, "ep": 8}, {"tp": 2, "dp_attention": 4, "ep": 8}, {"dp_attention": 8, "ep": 4}, {"tp": 8}]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = roofline.sweep({"name": "l", "hardware": "h200", "model": "deepseek-v3", "method": "none",
                             "engine": ["vllm", "trtllm", "sglang"], "layouts": layouts,
                             "axes": {"batch": [8], "context": [2048]}})
    said = [str(w.message) for w in caught if "setup has this layout" in str(w.message)]
    assert len(said) == 2, said  # TensorRT-LLM sets its own ep; SGLang runs each of these
    assert any(s.startswith("sweep: tp 2 with dp_attention 4 under trtllm") for s in said)
    assert any(s.startswith("sweep: ep 4 of a stage's 8 devices under vllm") for s in said)
    refused = {(e["engine"], e["tp"], e["dp_attention"], e["ep"]) for e in refused_layouts(df)[0]}
    assert refused == {("trtllm", 2, 4, 8), ("vllm", 1, 8, 4)}
    p = roofline.predict("h200", "deepseek-v3", 8, 2048, engine="trtllm", dp_attention=8, ep=8)
    assert not [w for w in p["warnings"] if "setup has this layout" in w]
    assert not [w for w in roofline.predict("h200", "deepseek-v3", 8, 2048, engine="sglang", tp=2, dp_attention=4,
                                            ep=4)["warnings"] if "setup has this layout" in w]


@pytest.mark.slow
def test_cheapest_says_where_a_picks_published_rates_were_measured_on_another_model(tmp_path, roofline):
    """qa145: a Qwen3-235B pick 'at the method's published rates' rested on EAGLE's Llama-3.1-8B rates without a word
    (the sweep warned; cheapest, reading the table, did not)."""
    _swept(tmp_path, roofline, "name: qe\nhardware: h200\nmodel: qwen3-235b-a22b\nmethod: eagle\ntp: 8\n"
                               "axes:\n  batch: [1, 8, 64]\n  context: [2048]\n  k: [0, 3]\n")
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "30")
    assert code == 0, err
    assert ("note: the speculation pick: no acceptance given: eagle's published rates (0.72, 0.53, 0.5, measured on "
            "Llama-3.1-8B) stand in for qwen3-235b-a22b") in out
    (tmp_path / "8b").mkdir()
    _swept(tmp_path / "8b", roofline, "name: e8\nhardware: h200\nmodel: llama-3.1-8b\nmethod: eagle\n"
                                      "axes:\n  batch: [1, 8, 64]\n  context: [2048]\n  k: [0, 3]\n")
    assert "no acceptance given" not in roofline("cheapest", tmp_path / "8b" / "sw", "--min-tokens-per-user", "30")[1]


@pytest.mark.slow
def test_plot_says_where_it_draws_a_layout_no_setup_of_its_engine_runs(tmp_path, roofline):
    """qa145: plot drew trtllm's tp 2 / dp 4 (no TensorRT-LLM setup) without a word, where cheapest leaves it out."""
    _swept(tmp_path, roofline, "name: lt\nhardware: h200\nmodel: deepseek-v3\nengine: [trtllm, vllm]\n"
                               "layouts: [{tp: 2, dp_attention: 4, ep: 8}, {dp_attention: 8, ep: 8}]\n"
                               "axes:\n  batch: [8, 64]\n  context: [2048]\n")
    code, _, err = roofline("plot", tmp_path / "sw", "--out", tmp_path / "p")
    assert code == 0 and "the rows drawn include 1 layout, method or device no setup of their engine runs (tp 2 with " \
        "dp_attention 4 under trtllm" in err, err
    code, _, err = roofline("plot", tmp_path / "sw", "--out", tmp_path / "p2", "--where", "engine=vllm")
    assert code == 0 and "no setup of their engine runs" not in err, err


@pytest.mark.slow
def test_cheapest_says_what_a_picks_expert_dispatch_latency_rests_on_as_predict_does(tmp_path, roofline):
    """qa152: predict warned that an allgather dispatch's latency is a lower estimate (and a DeepEP one an unfitted
    prior); cheapest, at the same point, said nothing of either."""
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    _swept(tmp_path / "a", roofline, "name: s\nhardware: h200\nmodel: qwen3-235b-a22b\nengine: sglang\n"
           "layouts: [{dp_attention: 8, ep: 8}]\naxes:\n  batch: [512]\n  context: [2048]\n")
    code, out, _ = roofline("cheapest", tmp_path / "a" / "sw", "--min-tokens-per-user", "1")
    assert code == 0 and "its expert dispatch's two collectives a MoE layer pay sglang's allreduce_latency" in out, out
    _swept(tmp_path / "b", roofline, "name: s\nhardware: h200\nmodel: qwen3-235b-a22b\nengine: sglang\n"
           "layouts: [{tp: 8}]\naxes:\n  batch: [512]\n  context: [2048]\n")
    code, out, _ = roofline("cheapest", tmp_path / "b" / "sw", "--min-tokens-per-user", "1")
    assert code == 0 and "expert dispatch" not in out, out  # no dispatch at tp 8


@pytest.mark.slow
def test_cheapest_says_where_a_speculative_picks_gain_rests_on_host_work(tmp_path, roofline):
    """qa157: predict said a speculative point's gain rests on vllm's unoverlapped host work; cheapest, picking that
    point, said nothing."""
    _swept(tmp_path, roofline, "name: h\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
           "axes:\n  batch: [8, 192]\n  context: [2048]\n  k: [0, 4]\n  alpha: [0.8]\n")
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "1")
    assert code == 0
    assert "the speculation pick: vllm's host work at batch 192 (" in out and "once an iteration of tau tokens" in out, out
    assert "the plain pick: vllm's host work" not in out  # plain decoding pays it every step: nothing amortised


@pytest.mark.slow
def test_cheapest_leaves_out_a_method_the_engine_refuses_under_attention_dp():
    """sglang.yaml's speculation_refused_with_dp_attention: SGLang raises for n-gram (and draft-model) speculation under
    --enable-dp-attention. The frontier picked n-gram at dp_attention 8 (69.6 tokens/s per user, $2.25, batch 64); it now
    leaves those rows out and says why, and keeps their plain points and the same method at tp 8."""
    import roofline as api
    from roofline.frontier import refused_layouts, refused_methods

    df = api.sweep({"hardware": "h200", "model": "qwen3-235b-a22b", "engine": "sglang", "method": "ngram",
                    "layouts": [{"tp": 8}, {"dp_attention": 8, "ep": 8}],
                    "axes": {"batch": [8, 64], "context": [2048], "k": [0, 3], "alpha": [0.6]}})
    assert [(e["method"], e["dp_attention"]) for e in refused_methods(df)] == [("ngram", 8)]
    refused = refused_layouts(df)[0]
    unfiltered = cost_frontier(df)
    assert ((unfiltered["decoding"] == "speculation") & (unfiltered["dp_attention"] == 8)).any()  # picked before
    frontier = cost_frontier(df, refused)
    assert not ((frontier["decoding"] == "speculation") & (frontier["dp_attention"] == 8)).any()
    assert ((frontier["decoding"] == "speculation") & (frontier["tp"] == 8)).any()
    notes = frontier_notes(df, refused)
    assert any("2 rows left out" in n and "ngram speculation under sglang at dp_attention 8" in n for n in notes), notes
    assert refused_methods(df.assign(engine="vllm")) == []  # vllm.yaml refuses no method


@pytest.mark.slow
def test_cheapest_leaves_out_medusa_under_sglang_which_has_no_medusa_drafter():
    """sglang.yaml's speculation_refused: SGLang's SpeculativeAlgorithm has no Medusa. Its Medusa rows are left out at
    any layout, said once, and vllm's kept."""
    import roofline as api
    from roofline.frontier import refused_layouts, refused_methods

    df = api.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "engine": ["sglang", "vllm"], "method": "medusa",
                    "axes": {"batch": [1, 8], "context": [2048], "k": [0, 3], "alpha": [0.8]}})
    assert [(e["engine"], e["method"]) for e in refused_methods(df)] == [("sglang", "medusa")]
    refused = refused_layouts(df)[0]
    frontier = cost_frontier(df, refused)
    speculating = frontier[frontier["decoding"] == "speculation"]
    assert len(speculating) and set(speculating["engine"]) == {"vllm"}
    notes = frontier_notes(df, refused)
    assert any("2 rows left out, at a layout, method or draft model" in n and "medusa speculation under sglang (it has no medusa "
               "drafter)" in n for n in notes), notes


@pytest.mark.slow
def test_cheapest_says_a_speculative_pick_above_the_engines_cap_and_leaves_out_sglang_speculation_at_pp_2():
    """qa176: a sweep of EAGLE under sglang to batch 64 warned once, and cheapest then picked batch 64 without a word
    of SGLang's 48 sequences at once while speculating; SGLang refuses speculation at pp > 1 (speculation_refused_with_pp)."""
    import roofline as api
    from roofline.frontier import refused_layouts, refused_methods

    def table(engine):
        return api.sweep({"hardware": "h100-sxm", "model": "llama-3.1-70b", "engine": engine, "method": "eagle",
                          "layouts": [{"tp": 4}, {"tp": 4, "pp": 2}],
                          "axes": {"batch": [16, 64], "context": [1024], "k": [0, 3], "alpha": [0.8]}})

    df = table("sglang")
    assert {(e["engine"], e.get("pp")) for e in refused_methods(df)} == {("sglang", 2)}
    refused = refused_layouts(df)[0]
    assert ((cost_frontier(df)["decoding"] == "speculation") & (cost_frontier(df)["pp"] == 2)).any()  # picked before
    spec = cost_frontier(df, refused).query("decoding == 'speculation'")
    assert not (spec["pp"] == 2).any() and (spec["batch"] == 64).sum() == 1
    said = [n for n in frontier_notes(df, refused) if "more sequences than" in n]
    assert said == ["1 speculative frontier row runs more sequences than its engine decodes at once while speculating "
                    "with the cap left as it is (sglang: 48; max_running_requests_speculating): its cost assumes the cap raised"]
    # the pick itself says so, as predict would of that point (qa178: cheapest's pick and computed-now point did not)
    from roofline.frontier import pick_notes

    pick = cost_frontier(df, refused).query("decoding == 'speculation' and batch == 64").iloc[0]
    assert any(n.startswith("the speculation pick: batch 64 while speculating under sglang: it runs at most 48 sequences")
               for n in pick_notes({"speculation": pick}))
    vllm = table("vllm")  # qa229: vLLM (0.8-0.17) refuses speculation at pp > 1 too, and has no cap while speculating
    assert {(e["engine"], e.get("pp")) for e in refused_methods(vllm)} == {("vllm", 2)}
    assert not [n for n in frontier_notes(vllm, refused_layouts(vllm)[0]) if "more sequences" in n]
    assert not (cost_frontier(vllm, refused_layouts(vllm)[0]).query("decoding == 'speculation'")["pp"] == 2).any()


def test_the_cap_said_above_a_row_is_the_one_applied_at_its_attention_dp_degree():
    """qa183: the fast-tier legend and cheapest's note said 'sglang: 48' where dp_attention 32 makes SGLang's cap 32
    (each group floor(48 / 32) = 1 sequence); a row that does not draft is under no cap."""
    import pandas as pd

    from roofline.frontier import above_running_cap, cap_text

    rows = pd.DataFrame({"engine": ["sglang", "sglang", "sglang", "vllm"], "k": [2, 2, 0, 2],
                         "method": ["eagle", "eagle", "eagle", "eagle"], "dp_attention": [32, 1, 1, 1],
                         "batch": [37, 40, 64, 500]})
    over, caps = above_running_cap(rows)
    assert list(over) == [True, False, False, False] and caps == {"sglang": [32]} and cap_text(caps) == "sglang: 32"
    rows.loc[1, "batch"] = 64
    over, caps = above_running_cap(rows)
    assert list(over) == [True, True, False, False] and cap_text(caps) == "sglang: 32, 48"


@pytest.mark.slow
def test_cheapest_finds_a_profile_its_sweep_named_by_path(tmp_path, roofline):
    """qa205: a scenario naming a model by its file's path swept it, and cheapest, which loads profiles by name, called
    it unknown: the point between swept batches printed under its pick was another config's, and its checks were
    skipped. The sweep's scenario.json records each profile's file."""
    from roofline.profiles import builtin_dir

    (tmp_path / "mymodel.yaml").write_text((builtin_dir("model") / "llama-3.2-1b.yaml").read_text()
                                           .replace("name: llama-3.2-1b\n", "name: mymodel\n", 1))
    (tmp_path / "sc.yaml").write_text(f"name: sc\nhardware: h100-sxm\nmodel: [llama-3.1-8b, {tmp_path / 'mymodel.yaml'}]\n"
                                      "engine: vllm\naxes:\n  batch: [1, 8, 64]\n  context: [1024]\n")
    assert roofline("sweep", str(tmp_path / "sc.yaml"), "--out", str(tmp_path / "out"), "--no-plots")[0] == 0
    code, out, err = roofline("cheapest", str(tmp_path / "out"), "--min-tokens-per-user", "150")
    assert code == 0, err
    assert "unknown model" not in out and "no profile of model mymodel" not in out
    assert re.search(r"computed now: \$[\d.]+ at [\d.]+ tokens/s per user: mymodel on h100-sxm", out)
    (tmp_path / "h100-sxm.yaml").write_text((builtin_dir("hardware") / "h100-sxm.yaml").read_text()
                                            .replace("price: 3.00 USD/h", "price: 1.00 USD/h"))
    assert "price: 1.00 USD/h" in (tmp_path / "h100-sxm.yaml").read_text()
    (tmp_path / "sc2.yaml").write_text(f"name: sc2\nhardware: {tmp_path / 'h100-sxm.yaml'}\nmodel: llama-3.1-8b\n"
                                       "engine: vllm\naxes:\n  batch: [1, 8, 64]\n  context: [1024]\n")
    assert roofline("sweep", str(tmp_path / "sc2.yaml"), "--out", str(tmp_path / "out2"), "--no-plots")[0] == 0
    code, out, err = roofline("cheapest", str(tmp_path / "out2"), "--min-tokens-per-user", "100")
    assert code == 0 and "profile now gives $3.00" not in out and "comes out otherwise now" not in out, out  # qa209
    edited = tmp_path / "edited"  # qa211: a user's file of the name on the search path wins, its new price said
    edited.mkdir()
    (edited / "h100-sxm.yaml").write_text((tmp_path / "h100-sxm.yaml").read_text().replace("price: 1.00 USD/h", "price: 1.50 USD/h"))
    code, out, err = roofline("--profiles", str(edited), "cheapest", str(tmp_path / "out2"), "--min-tokens-per-user", "100")
    assert code == 0 and "h100-sxm's profile now gives $1.50 a device-hour; the table was priced at $1.00" in out, out


@pytest.mark.slow
def test_a_speculative_pick_past_the_trained_mtp_modules_says_the_last_is_reused(tmp_path, roofline):
    """qa210: predict warns that DeepSeek-V3's one MTP module runs again at k 3; cheapest's pick of that point did not."""
    (tmp_path / "sc.yaml").write_text("name: sc\nhardware: h200\nmodel: deepseek-v3\ntp: 8\nmethod: mtp\naxes:\n"
                                      "  batch: [1, 16]\n  context: [1024]\n  k: [3]\n")
    assert roofline("sweep", str(tmp_path / "sc.yaml"), "--out", str(tmp_path / "out"), "--no-plots")[0] == 0
    code, out, err = roofline("cheapest", str(tmp_path / "out"), "--min-tokens-per-user", "10")
    assert code == 0, err
    assert "mtp on deepseek-v3: k 3 exceeds its 1 trained MTP module: the last is reused" in out


@pytest.mark.slow
def test_a_table_copied_out_of_its_folder_still_says_a_price_changed_since_its_sweep(tmp_path):
    """qa214: cheapest on a results.csv moved away from its scenario.json said nothing of the profile's price set since
    ($1.50 now, $2.10 in the table's costs); the table's plain-decoding costs give the price it was swept at."""
    import roofline as api
    from roofline.editing import new_profile, set_fields
    from roofline.frontier import price_notes, swept_prices
    from roofline.hardware import load_hardware

    new_profile("hardware", "h100-cheap", "h100-sxm", ["price=2.10 USD/h"], out_dir=tmp_path)
    df = api.sweep({"hardware": ["h100-cheap", "h200"], "model": "llama-3.1-8b", "method": "eagle", "draft_hardware": [None, "l4"],
                    "axes": {"batch": [1, 8], "context": [1024], "k": [0, 3], "alpha": [0.8]}}, profiles=[tmp_path])
    assert swept_prices(df) == {"h100-cheap": 2.1, "h200": load_hardware("h200").price_usd_per_hour}
    table = tmp_path / "copy" / "results.csv"  # no scenario.json beside it
    assert price_notes(table, (tmp_path,), df) == []  # nothing changed
    set_fields("hardware", "h100-cheap", ["price=1.50 USD/h"], (tmp_path,))
    assert price_notes(table, (tmp_path,), df) == [
        "h100-cheap's profile now gives $1.50 a device-hour; the table was priced at $2.10 a device-hour when swept: its "
        "costs are the table's; sweep again to price them at the profile's"]


@pytest.mark.slow
def test_cheapest_exits_1_where_no_row_is_left_to_compare(tmp_path, roofline):
    """qa214: a sweep of a device without a price gave 'nothing to compare' and exit 0, so a script could not tell."""
    _swept(tmp_path, roofline, "name: n\nhardware: l40s\nmodel: llama-3.1-8b\naxes:\n  batch: [1, 8]\n  context: [1024]\n")
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "30", "--out", tmp_path / "f.csv")
    assert code == 1 and "nothing to compare" in out and "swept without a price for l40s" in out, out
    assert not (tmp_path / "f.csv").exists()


@pytest.mark.slow
def test_cheapest_exits_1_where_no_row_of_either_kind_reaches_the_speed(tmp_path, roofline):
    """qa241: 'no row that fits reaches it' exited 0, so a script could not tell it from a pick; --out still gets the
    frontier, no row marked."""
    _swept(tmp_path, roofline, "name: n\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\naxes:\n  batch: [1, 8]\n"
           "  context: [1024]\n  k: [0, 2]\n  alpha: [0.8]\n")
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "10000", "--out", tmp_path / "f.csv")
    assert code == 1 and "reaches it" in out, out
    assert not pd.read_csv(tmp_path / "f.csv")["pick"].any()
    code, _, _ = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "50")
    assert code == 0


@pytest.mark.slow
def test_prices_read_off_a_copied_csv_compare_at_its_precision_and_a_missing_device_is_named_as_such(tmp_path):
    """qa220: a price of $2.73972602739726 (a month's over 730 h) read back from a copied results.csv said 'changed
    since'; refused_methods named a device whose profile had gone as its engine."""
    import roofline as api
    from roofline.editing import new_profile
    from roofline.frontier import price_notes, refused_methods

    new_profile("hardware", "hx", "h100-sxm", ["price=2.73972602739726 USD/h"], out_dir=tmp_path / "p")
    df = api.sweep({"hardware": "hx", "model": "llama-3.1-8b", "method": "eagle",
                    "axes": {"batch": [1, 8], "context": [1024], "k": [0, 2], "alpha": [0.8]}}, profiles=[tmp_path / "p"])
    (tmp_path / "copy").mkdir()
    df.to_csv(tmp_path / "copy" / "results.csv", index=False, float_format="%.6g")
    back = pd.read_csv(tmp_path / "copy" / "results.csv")
    assert price_notes(tmp_path / "copy" / "results.csv", (tmp_path / "p",), back) == []
    unchecked = []
    dp = df.assign(dp_attention=2)  # a layout a device's engine values decide
    assert refused_methods(dp, (), unchecked) == [] and unchecked == ["device hx"]


@pytest.mark.slow
def test_a_scenario_json_no_sweep_writes_is_said_and_left_out_never_a_traceback(roofline, tmp_path):
    """qa262: JSON nested past the recursion limit, or a hand-edited field of another type (draft_vocab "x",
    acceptance 5), raised a traceback in cheapest and plot; an unreadable one was passed over in silence."""
    import json

    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: s\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\naxes:\n  batch: [1, 8]\n  k: [0, 2]\n")
    code, _, err = roofline("sweep", scenario, "--out", tmp_path / "S", "--no-plots", "--format", "csv")
    assert code == 0, err
    meta_path = tmp_path / "S" / "scenario.json"
    good = json.loads(meta_path.read_text())
    meta_path.write_text("[" * 3000 + "]" * 3000)
    code, out, err = roofline("cheapest", tmp_path / "S", "--min-tokens-per-user", "100")
    assert code in (0, 1) and "Traceback" not in err and err.count("not read as what results.csv was swept with: not "
                                                                     "readable as JSON (RecursionError)") == 1, err
    code, _, err = roofline("plot", tmp_path / "S", "--out", tmp_path / "P")
    assert code == 2 and err.strip().endswith("found JSON Python cannot read (RecursionError)"), err
    meta_path.write_text(json.dumps({**good, "draft_vocab": "x", "acceptance": 5}))
    code, out, err = roofline("cheapest", tmp_path / "S", "--min-tokens-per-user", "100")
    assert "Traceback" not in err and err.count("draft_vocab: expected a vocabulary size or null, found 'x'; acceptance: "
                                                "expected a list of rates in [0, 1] or null, found 5: left out") == 1, err
    code, _, err = roofline("plot", tmp_path / "S", "--out", tmp_path / "P2")
    assert code == 0 and "draft_vocab: expected a vocabulary size or null" in err, err


@pytest.mark.slow
def test_the_frontier_csv_counts_a_drafters_own_device_and_a_plain_row_names_none(tmp_path, roofline):
    """qa268: the table said 5 devices (4 MI300X + the drafter's L4) where the CSV's devices said 4 beside a
    tokens_per_s_per_device over 5, and a k = 0 plain pick carried draft_hardware l4, which it neither uses nor pays."""
    _swept(tmp_path, roofline, "name: sd70\nhardware: mi300x\nmodel: llama-3.1-70b\nmethod: draft\ndraft: llama-3.2-1b\n"
           "draft_hardware: l4\ntp: 4\naxes: {batch: [1, 8, 32], context: [2048], k: [0, 3], alpha: [0.8]}\n")
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "40", "--out", tmp_path / "f.csv")
    assert code == 0, err
    df = pd.read_csv(tmp_path / "f.csv", keep_default_na=False)
    spec, plain = df[df["decoding"] == "speculation"], df[df["decoding"] == "plain"]
    assert len(spec) and len(plain) and (spec["devices_in_use"] == 5).all() and (plain["devices_in_use"] == 4).all()
    assert (df["tokens_per_s_per_device"] * df["devices_in_use"] / df["tokens_per_s"] - 1).abs().max() < 1e-5
    assert (plain["draft_hardware"] == "").all() and (spec["draft_hardware"] == "l4").all()
    # qa280: a plain row is k 0 of method none with no acceptance, as the printed table says it, not the axes' k 3 and 0.8
    assert (plain["k"].astype(int) == 0).all() and (plain["alpha"] == "").all() and (plain["method"] == "none").all()
    assert re.search(r"mi300x \+l4\s+5 ", out), out  # the table's count, the same
    # qa268: the prices the costs rest on, said (a pick between devices moves with an undated quote)
    assert "priced at mi300x $1.80, l4 $0.75 a device-hour (as swept)" in out, out
    # qa269: the two picks run at different speeds, each the cheapest at 40 tokens/s per user or faster: said so
    assert re.search(r"x plain decoding's to reach this speed \(each kind's cheapest (swept row )?at it or faster\)", out), out


@pytest.mark.slow
def test_cheapest_says_a_kind_with_rows_but_none_on_the_frontier(tmp_path, roofline):
    """qa268: every speculative row refused (TensorRT-LLM speculates at no pp > 1) and the speculation section was
    left out, the reason only among the notes."""
    _swept(tmp_path, roofline, "name: pp2\nhardware: h100-sxm\nmodel: llama-3.1-70b\nmethod: eagle\nengine: trtllm\n"
           "tp: 2\npp: 2\naxes: {batch: [1, 8], context: [2048], k: [0, 3], alpha: [0.8]}\n")
    code, out, err = roofline("cheapest", tmp_path / "sw")
    assert code == 0 and "plain: 2 rows on the frontier" in out, err
    assert "speculation: no row on the frontier (none of its 2 rows fits, is priced and loads: the notes below say why)" in out
    assert "eagle speculation under trtllm at pp 2 (it refuses speculative decoding with pipeline parallelism)" in out


@pytest.mark.slow
def test_cheapest_leaves_out_a_dense_model_under_sglangs_attention_dp(tmp_path, roofline):
    """qa283: Llama-3.1-70B at tp 2, dp_attention 2 under sglang (which the sweep warns SGLang runs for DeepSeek-style
    MoE models only) was cheapest's speculation pick, and the fast-tier report's (0.944x where tp 4 gives 1.013x)."""
    _swept(tmp_path, roofline, "name: dpdense\nhardware: h200\nmodel: llama-3.1-70b\nengine: sglang\nmethod: eagle\n"
           "layouts: [{tp: 4}, {tp: 2, dp_attention: 2}]\naxes: {batch: [8, 64, 256], context: [2048], k: [0, 3], alpha: [0.8]}\n")
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "30")
    assert code == 0, err
    assert "dp-attention 2" not in out.split("\nnote:")[0], out
    assert "rows left out, at a layout, method or draft model their engine refuses to load or runs no setup of: llama-3.1-70b with " \
           "dp_attention 2 under sglang" in out, out


@pytest.mark.slow
def test_rows_swept_without_a_drafters_price_say_sweep_again_once_its_profile_has_one(tmp_path, roofline):
    """qa283: with an L40S priced since the sweep, cheapest said both 'give one with roofline hw new ... then sweep again'
    and "l40s's profile now gives $1.10 a device-hour ... sweep again"."""
    from roofline.hardware import load_hardware

    assert load_hardware("l40s").price_usd_per_hour is None
    _swept(tmp_path, roofline, "name: d\nhardware: h100-sxm\nmodel: llama-3.1-70b\ntp: 4\nmethod: draft\ndraft: llama-3.2-1b\n"
           "draft_hardware: l40s\naxes: {batch: [1, 8], context: [2048], k: [0, 2], alpha: [0.8]}\n")
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "20")
    assert "(swept without a price for l40s): left out; give one with roofline hw new" in out, out
    code, _, err = roofline("hw", "new", "l40s", "--from", "l40s", "--set", "price=1.1 USD/h", "--dir", tmp_path / "p", "--force")
    assert code == 0, err
    code, out, _ = roofline("--profiles", tmp_path / "p", "cheapest", tmp_path / "sw", "--min-tokens-per-user", "20")
    assert "(swept without a price for l40s): left out; priced since the sweep (below)" in out, out
    assert "give one with roofline hw new" not in out and "l40s's profile now gives $1.10 a device-hour" in out
    assert out.count("sweep again") == 1, out  # qa284: said once, by the price's own note


@pytest.mark.slow
def test_a_price_set_by_hand_is_said_so_by_cheapest_and_the_reports_assumptions(tmp_path, roofline):
    """qa283: `hw new h100-cheap --from h100-sxm --set price=1.0 USD/h` was priced in cheapest's note as a 'rental quote
    whose sources hw show gives', and in the report's assumptions as a market rate."""
    code, _, err = roofline("hw", "new", "h100-cheap", "--from", "h100-sxm", "--set", "price=1.0 USD/h", "--dir", tmp_path / "p")
    assert code == 0, err
    body = ("type: scenario\nname: cg\nhardware: [h100-cheap, h200]\nmodel: llama-3.1-8b\nmethod: eagle\n"
            "axes: {batch: [1, 8, 64], context: [2048], k: [0, 2], alpha: [0.8]}\n")
    (tmp_path / "p" / "cg.yaml").write_text(body)
    code, _, err = roofline("--profiles", tmp_path / "p", "sweep", "cg", "--out", tmp_path / "sw", "--no-plots")
    assert code == 0, err
    code, out, _ = roofline("--profiles", tmp_path / "p", "cheapest", tmp_path / "sw", "--min-tokens-per-user", "50")
    assert ("priced at h200 $4.50, h100-cheap $1.00 (yours) a device-hour (as swept): rental quotes whose sources "
            "`roofline hw show NAME` gives, but those marked yours;") in out, out
    # qa311: a hand-set price set again since the sweep was called a rental quote with sources
    code, _, err = roofline("--profiles", tmp_path / "p", "hw", "set", "h100-cheap", "price=2.0 USD/h")
    assert code == 0, err
    code, out, _ = roofline("--profiles", tmp_path / "p", "cheapest", tmp_path / "sw", "--min-tokens-per-user", "50")
    assert ("priced at h200 $4.50, h100-cheap $1.00 (changed since) a device-hour (as swept): rental quotes whose sources "
            "`roofline hw show NAME` gives, but those marked changed since;") in out, out
    code, out, _ = roofline("--profiles", tmp_path / "p", "cheapest", tmp_path / "sw", "--min-tokens-per-user", "50",
                            "--where", "hardware=h100-cheap")
    assert "priced at h100-cheap $1.00 a device-hour (as swept): prices the profiles no longer give (above);" in out, out
    code, _, err = roofline("--profiles", tmp_path / "p", "hw", "set", "h100-cheap", "price=")  # removed: no quote either
    assert code == 0, err
    code, out, _ = roofline("--profiles", tmp_path / "p", "cheapest", tmp_path / "sw", "--min-tokens-per-user", "50")
    assert "h100-cheap $1.00 (changed since) a device-hour (as swept): rental quotes whose sources" in out, out
    code, _, err = roofline("--profiles", tmp_path / "p", "hw", "set", "h100-cheap", "price=1.0 USD/h")
    assert code == 0, err
    (tmp_path / "lone").mkdir()  # qa321: a table read without its scenario.json gave no 'priced at' note at all
    (tmp_path / "lone" / "t.csv").write_bytes((tmp_path / "sw" / "results.csv").read_bytes())
    code, out, _ = roofline("--profiles", tmp_path / "p", "cheapest", tmp_path / "lone" / "t.csv", "--min-tokens-per-user", "50")
    assert "priced at h200 $4.50, h100-cheap $1.00 (yours) a device-hour (read off the table's costs):" in out, out
    code, _, err = roofline("--profiles", tmp_path / "p", "report", "cg", "--out", tmp_path / "r")
    assert code == 0, err
    md = (tmp_path / "r" / "report.md").read_text()
    assert "$1.00 (yours), NVIDIA H200 SXM 141GB $4.50;" in md and "Those marked yours are your own;" in md
    # qa284: a calibrated or hand-written profile's price is the user's too, however named (here by its path)
    text = (ROOT / "hardware_profiles" / "h100-sxm.yaml").read_text().replace("name: h100-sxm\n", "name: mycal\n")
    (tmp_path / "mycal.yaml").write_text(text.replace("price: 3.00 USD/h", "price: 2.00 USD/h"))
    (tmp_path / "c.yaml").write_text(body.replace("[h100-cheap, h200]", str(tmp_path / "mycal.yaml")).replace("cg", "c"))
    code, _, err = roofline("sweep", tmp_path / "c.yaml", "--out", tmp_path / "sw2", "--no-plots")
    assert code == 0, err
    code, out, _ = roofline("cheapest", tmp_path / "sw2", "--min-tokens-per-user", "50")
    assert "priced at mycal $2.00 a device-hour (as swept): your own prices;" in out, out
    code, _, err = roofline("report", tmp_path / "c.yaml", "--out", tmp_path / "r2")
    assert code == 0 and "$2.00; a cost pays" in (tmp_path / "r2" / "report.md").read_text() \
        and "The prices are your own;" in (tmp_path / "r2" / "report.md").read_text(), err


@pytest.mark.slow
def test_cheapest_says_the_speed_asked_as_asked(tmp_path, roofline):
    """qa288: `--min-tokens-per-user 191.449` was said 'cheapest at 191 tokens/s per user', beside a fastest row of
    191.4489 said as 191 that does not reach it; 1e30 as a 31-digit number."""
    _swept(tmp_path, roofline, "name: s\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
           "axes: {batch: [1, 8], context: [1024], k: [0, 2], alpha: [0.8]}\n")
    for asked, said in (("191.449", "cheapest at 191.449 tokens/s"), ("1e30", "cheapest at 1e+30 tokens/s"),
                        ("50", "cheapest at 50 tokens/s")):
        code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", asked)
        assert out.startswith(said), (asked, out + err)


@pytest.mark.slow
def test_a_note_that_holds_for_both_picks_is_said_once_naming_both():
    """qa290: cheapest printed the same notes under 'the plain pick:' and again under 'the speculation pick:' where both
    picks were one config."""
    import warnings

    import roofline
    from roofline.frontier import cheapest, pick_notes

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = roofline.sweep({"name": "n", "hardware": "mi300x", "model": "llama-3.1-8b", "method": "eagle", "engine": "sglang",
                             "axes": {"batch": [1, 8], "context": [1024], "k": [0, 2], "alpha": [0.8]}})
    notes = pick_notes(cheapest(df, 50.0, set()))
    both = [n for n in notes if n.startswith("the plain and speculation picks: ")]
    assert len(both) == 1 and "kernel_latency" in both[0]  # sglang's AMD kernel latency, fitted on MoE rows alone
    bodies = [n.split(": ", 1)[1] for n in notes]
    assert len(bodies) == len(set(bodies))  # no note said twice
    assert any(n.startswith("the speculation pick: no measured row determines") for n in notes)  # one pick's own


def test_a_pick_at_the_largest_batch_that_fits_says_memory_caps_it():
    """qa294: a pick at 37.7 tokens/s per user where 30 were asked did not say memory stopped its batch (predict did)."""
    from roofline.tables import _pick_text

    row = pd.Series({"cost_usd_per_million_tokens": 0.282, "tokens_per_s_per_user": 37.7, "model": "llama-3.1-70b",
                     "hardware": "mi300x", "devices": 1, "tp": 1, "layout": "tp 1", "engine": "vllm", "batch": 47,
                     "context": 2500, "weight_dtype": "bf16", "kv_dtype": "bf16", "method": "eagle", "k": 3, "alpha": 0.7,
                     "max_batch": 47, "baseline_max_batch": 55})
    assert _pick_text("speculation", row, pd.DataFrame([row])).endswith("(the largest batch that fits with the drafter: memory caps it)")
    smaller = row.copy()
    smaller["batch"] = 40
    assert "memory caps" not in _pick_text("speculation", smaller, pd.DataFrame([row]))
    plain = row.copy()
    plain["batch"] = 55
    assert _pick_text("plain", plain, pd.DataFrame([plain])).endswith("(the largest batch that fits: memory caps it)")


@pytest.mark.slow
def test_cheapest_refuses_a_table_whose_engine_profile_on_the_search_path_is_invalid(tmp_path, roofline):
    """qa306: an invalid trtllm.yaml on --profiles was read as 'no profile of engine trtllm on the search path', exit 0
    (the loaders' RooflineError swallowed), where predict and sweep give its one error line and exit 2; a profile that
    is absent is still said in a note."""
    scenario = tmp_path / "trt.yaml"
    scenario.write_text("name: trt\nhardware: h100-sxm\nmodel: llama-3.1-8b\nengine: trtllm\nmethod: eagle\n"
                        "axes: {batch: [1, 8], context: [512], k: [0, 2], alpha: [0.8]}\n")
    assert roofline("sweep", scenario, "--out", tmp_path / "sw", "--no-plots")[0] == 0
    bad = tmp_path / "bad"
    bad.mkdir()
    text = (Path(__file__).parents[1] / "engine_profiles" / "trtllm.yaml").read_text()
    (bad / "trtllm.yaml").write_text(text.replace("batch: [64, null]", "batch: [64, 1]", 1))
    code, out, err = roofline("--profiles", bad, "cheapest", tmp_path / "sw", "--min-tokens-per-user", "50")
    assert code == 2 and err.startswith("error: ") and "known_misses[0].batch: expected [LOW, HIGH]" in err and not out, err


@pytest.mark.slow
def test_cheapest_leaves_out_a_draft_model_of_another_tokenizer(tmp_path, roofline):
    """qa327: a draft model with another vocabulary (no engine verifies its tokens) was picked as the cheapest
    speculation, the sweep's warning forgotten."""
    (tmp_path / "m.yaml").write_text("name: m\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: draft\ndraft: qwen3-0.6b\n"
                                     "axes: {batch: [1, 16], context: [1024], k: [2], alpha: [0.7]}\n")
    assert roofline("sweep", tmp_path / "m.yaml", "--out", tmp_path / "sw", "--no-plots")[0] == 0
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "100")
    assert code == 0
    assert "speculation  no row of this kind fits, is priced and loads" in out
    assert "2 rows left out" in out and "draft model qwen3-0.6b has a vocabulary of 151,936 tokens" in out
    (tmp_path / "ok.yaml").write_text("name: ok\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: draft\ndraft: llama-3.2-1b\n"
                                      "axes: {batch: [1, 16], context: [1024], k: [2], alpha: [0.7]}\n")
    assert roofline("sweep", tmp_path / "ok.yaml", "--out", tmp_path / "ok", "--no-plots")[0] == 0
    code, out, _ = roofline("cheapest", tmp_path / "ok", "--min-tokens-per-user", "100")
    assert code == 0 and "draft llama-3.2-1b k 2" in out and "must share the target's tokenizer" not in out


SERVING_PLAN = """name: plan
hardware: h100-sxm
model: llama-3.1-70b
tp: 4
method: [none, eagle]
prompt: 2000
output_len: 300
axes:
  batch: [1, 16, 64, 96, 128, 192]
  k: [0, 2]
"""


@pytest.mark.slow
def test_cheapest_serving_ranks_a_request_s_sweep_as_a_benchmark_reads_it(tmp_path, roofline):
    """qa347: cheapest ranked a request's sweep by decode speed, so a 50 ms TPOT budget (20 tokens/s per user) picked
    batch 192 where a benchmark reads 117 ms; --serving ranks by the serving columns, and its batch between the swept
    ones is computed now as a serving benchmark reads it too."""
    import roofline as api

    (tmp_path / "plan.yaml").write_text(SERVING_PLAN)
    code, _, err = roofline("sweep", tmp_path / "plan.yaml", "--out", tmp_path / "out", "--no-plots")
    assert code == 0, err
    code, decode, _ = roofline("cheapest", tmp_path / "out", "--min-tokens-per-user", "20")
    assert "--serving ranks by this table's serving columns (2,000-token prompts and 300 output tokens each)" in decode
    assert "batch 192," in decode.splitlines()[1]  # decode speed: 21.6 tokens/s per user at the largest swept batch
    code, served, err = roofline("cheapest", tmp_path / "out", "--min-tokens-per-user", "20", "--serving",
                                 "--out", tmp_path / "out" / "f.csv")
    assert code == 0, err
    assert served.startswith("cheapest at 20 tokens/s per user or faster (a serving benchmark's: tokens/s per user 1 / the "
                             "time per output token with the other requests' prefills (2,000-token prompts and 300 output "
                             "tokens each), costs at that pace")
    plain = served.splitlines()[1]
    assert "batch 64," in plain  # the largest swept batch whose serving TPOT is under 50 ms
    p = api.predict("h100-sxm", "llama-3.1-70b", 64, 2150, tp=4, prompt=2000, output_len=300)
    assert 1 / p["serving_time_per_output_token_s"] >= 20 > 1 / api.predict(
        "h100-sxm", "llama-3.1-70b", 96, 2150, tp=4, prompt=2000, output_len=300)["serving_time_per_output_token_s"]
    assert f"${format_significant(p['serving_cost_usd_per_million_tokens'])} at" in plain
    refined = [line for line in served.splitlines() if "computed now: $" in line]
    assert refined
    for line in refined:  # a point computed now meets the speed as a benchmark reads it
        batch = int(line.split(", batch ")[1].split(",")[0])
        k = 2 if "eagle" in line else 0
        q = api.predict("h100-sxm", "llama-3.1-70b", batch, 2150, tp=4, prompt=2000, output_len=300,
                        **({"method": "eagle", "k": k} if k else {}))
        tpot = q["spec"]["serving_time_per_output_token_s"] if k else q["serving_time_per_output_token_s"]
        assert 1 / tpot >= 20
    frontier = pd.read_csv(tmp_path / "out" / "f.csv")
    assert set(frontier["ranked_by"]) == {"serving"}
    # one throughput a row, the one its cost is of (qa356: plain rows' per device was per-user speed x batch, above it),
    # a serving benchmark's under serving_* names, decoding's under the table's own (qa362: replaced under their names)
    for prefix in ("serving_", ""):
        assert np.allclose(frontier[f"{prefix}tokens_per_s_per_device"] * frontier["devices_in_use"], frontier[f"{prefix}tokens_per_s"])
        rent = (frontier[f"{prefix}cost_usd_per_million_tokens"] * frontier[f"{prefix}tokens_per_s"] * 3600 / 1e6
                / frontier["devices_in_use"])
        assert np.allclose(rent, 3.0, rtol=1e-4)  # h100-sxm's $3.00 a device-hour, over that throughput
    assert (frontier["serving_cost_usd_per_million_tokens"] > frontier["cost_usd_per_million_tokens"]).all()  # prefills
    assert np.allclose(frontier["serving_tokens_per_s_per_user"] * frontier["serving_time_per_output_token_s"], 1.0)
    swept = pd.read_parquet(tmp_path / "out" / "results.parquet")
    spec = frontier[(frontier["decoding"] == "speculation") & ~frontier["computed_now"]]  # the table's rows
    assert len(spec) and np.isin(spec["cost_usd_per_million_tokens"].round(4), swept["cost_usd_per_million_tokens"].round(4)).all()
    assert not np.isin(spec["cost_usd_per_million_tokens"].round(4), swept["serving_cost_usd_per_million_tokens"].round(4)).any()
    assert not any(c.startswith("decoding_") for c in frontier)
    plain = frontier[(frontier["decoding"] == "plain") & ~frontier["computed_now"]]  # a plain point's own figures
    assert len(plain) and np.isin(plain["cost_usd_per_million_tokens"].round(4),
                                  swept["baseline_cost_usd_per_million_tokens"].round(4)).all()
    assert (plain["speedup"] == 1.0).all()
    code, _, err = roofline("cheapest", tmp_path / "out" / "results.parquet", "--serving")
    assert code == 0, err


def test_cheapest_serving_needs_a_request_s_sweep(tmp_path, roofline):
    import roofline as api

    table = api.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "axes": {"batch": [1, 8]}})
    table.to_csv(tmp_path / "results.csv", index=False)
    code, _, err = roofline("cheapest", tmp_path / "results.csv", "--serving")
    assert code == 2 and err.strip() == (f"error: {tmp_path / 'results.csv'}: --serving: expected a sweep of a scenario with "
                                         "prompt and output_len (its serving columns: serving_time_per_output_token_s, ...), "
                                         "found a table without them")


def test_a_hand_edited_request_in_scenario_json_is_left_out_and_said():
    """qa346: the prompt / output_len checks of scenario.json (what cheapest --serving and the figures' footer read)."""
    from roofline.frontier import checked_meta

    with pytest.warns(UserWarning, match=r"prompt: expected a number of tokens or null, found 'x'.*output_len: expected a "
                                         r"number of tokens or null, found 0"):
        kept = checked_meta({"prompt": "x", "output_len": 0, "draft": None}, Path("s.json"))
    assert kept == {"draft": None}
    assert checked_meta({"prompt": 1024, "output_len": 256}, Path("s.json")) == {"prompt": 1024, "output_len": 256}


def test_the_serving_view_takes_each_ranked_column_from_its_serving_form():
    """qa348: a mutant leaving baseline_tokens_per_s_per_user, a cost, tokens_per_s or tokens_per_s_per_device decoding's
    survived; the price a table was swept at reads the same off the serving view (it read $3.036 for $3.00)."""
    import numpy as np

    import roofline
    from roofline.frontier import serving_view, swept_prices

    df = roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle", "prompt": 2000, "output_len": 300,
                         "axes": {"batch": [1, 16, 64], "k": [2], "alpha": [0.7]}})
    view = serving_view(df, "t")
    pairs = {"tokens_per_s_per_user": 1 / df["serving_time_per_output_token_s"],
             "baseline_tokens_per_s_per_user": 1 / df["baseline_serving_time_per_output_token_s"],
             "cost_usd_per_million_tokens": df["serving_cost_usd_per_million_tokens"],
             "baseline_cost_usd_per_million_tokens": df["baseline_serving_cost_usd_per_million_tokens"],
             "tokens_per_s": df["serving_tokens_per_s"], "baseline_tokens_per_s": df["baseline_serving_tokens_per_s"],
             "speedup": df["serving_speedup"],
             "tokens_per_s_per_device": df["tokens_per_s_per_device"] * df["serving_tokens_per_s"] / df["tokens_per_s"]}
    for column, expected in pairs.items():
        assert np.allclose(view[column], expected, rtol=1e-12), column
    assert not np.allclose(view["tokens_per_s"], df["tokens_per_s"])
    assert swept_prices(view) == pytest.approx(swept_prices(df)) and swept_prices(df)["h100-sxm"] == pytest.approx(3.0)


def test_a_serving_pick_mostly_prefills_says_its_ttft_is_a_lower_bound():
    """qa362: predict warned at 63% of the device's time in prefills; cheapest --serving, at its picks, said nothing."""
    from roofline.frontier import prefill_share_note

    picks = {"plain": pd.Series({"tokens_per_s": 41.0, "decoding_tokens_per_s": 100.0}),
             "speculation": pd.Series({"tokens_per_s": 60.0, "decoding_tokens_per_s": 100.0})}
    note = prefill_share_note(picks)
    assert note.startswith("arriving prompts' prefills take over half of the devices' time (59% at the plain pick):")
    assert "speculation" not in note and "serving_ttft_s leaves out" in note
    assert prefill_share_note({"plain": None, "speculation": picks["speculation"]}) == ""
    assert prefill_share_note({"plain": pd.Series({"tokens_per_s": 41.0})}) == ""  # a decoding table: nothing to say


@pytest.mark.slow
def test_a_plain_point_drawn_from_a_speculative_row_carries_its_own_figures_every_column():
    """qa363: with no k = 0 rows in the sweep, the plain points cheapest draws from the speculative rows' baseline
    columns wrote those rows' serving cost, speedup and TPOT, and (under --serving) their decoding cost."""
    import warnings

    import roofline
    from roofline.frontier import _candidates, as_written, serving_view

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = roofline.sweep({"name": "t", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle", "prompt": 4000,
                             "output_len": 200, "axes": {"batch": [1, 8, 64], "k": [4], "alpha": [0.8]}})
    for table in (df, serving_view(df, "t")):
        plain = as_written(_candidates(table))
        plain = plain[plain["decoding"] == "plain"]
        assert len(plain) == 3 and (plain["speedup"] == 1.0).all() and (plain["serving_speedup"] == 1.0).all()
        for name in ("cost_usd_per_million_tokens", "tokens_per_s", "tokens_per_s_per_user"):
            assert np.allclose(plain[name], plain[f"baseline_{name}"] if name in df else plain[name]), name
        for name in ("serving_cost_usd_per_million_tokens", "serving_time_per_output_token_s", "serving_ttft_s",
                     "serving_tokens_per_s"):
            assert np.allclose(plain[name], plain[f"baseline_{name}"]), name
        assert np.allclose(plain["cost_usd_per_million_tokens"], df["baseline_cost_usd_per_million_tokens"])  # decoding's


@pytest.mark.slow
@pytest.mark.parametrize("drafters", ["l4", ["l4", "h100-sxm"]])
def test_the_price_at_which_a_pick_flips_to_another_device_is_where_the_two_cost_the_same(drafters):
    """qa362: a pick between devices rests on rental quotes, and cheapest said only that it moves with them. Each
    pick's note gives its device's price at which another device's cheapest row as fast costs the same, and that
    device's price at which it does; swept again at either price, those two rows cost the same (a drafter on an L4 of
    its own in the rent; qa369: a drafter on the device whose price moves, held at its old price, put the tie at $3.91
    where it was $3.89)."""
    import dataclasses
    import warnings

    import roofline
    from roofline.frontier import _candidates, price_flip_notes

    scenario = {"name": "f", "hardware": ["h100-sxm", "h200"], "model": "llama-3.1-70b", "method": "draft",
                "draft": "llama-3.2-1b", "draft_hardware": drafters, "tp": 4,
                "axes": {"batch": [1, 8, 32, 128], "context": [2048], "k": [0, 3], "alpha": [0.8]}}
    key = ["hardware", "draft_hardware", "batch", "k"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = roofline.sweep(scenario)
        prices = {name: roofline.load_hardware(name).price_usd_per_hour for name in ("h100-sxm", "h200", "l4")}
        picks = cheapest(df, 40)
        notes = price_flip_notes(df, picks, 40, meta={"price_usd_per_hour": prices})
        assert len(notes) == 2 and [n.split()[1] for n in notes] == ["plain", "speculation"], notes
        for kind, note in zip(("plain", "speculation"), notes):
            pick = picks[kind]
            found = re.match(r"the \w+ pick \(([\w-]+) at \$[\d.]+ a device-hour\) stays the cheapest at this speed up to "
                             r"\$([\d.]+) a device-hour, or while ([\w-]+) \(\$[\d.]+\) rents above \$([\d.]+): [\w-]+'s "
                             r"cheapest \w+ point as fast \(llama-3\.1-70b on [\w-]+ x \d+ \(tp 4\), vllm, batch ([\d,]+)[^)]*\) "
                             r"costs \$[\d.]+ per million tokens \([\d.]+ tokens/s per user;", note)  # (qa377: its deployment named)
            assert found and found[1] == pick["hardware"], note
            rows = _candidates(df)
            rivals = rows[(rows["decoding"] == kind) & rows["fits_in_memory"] & (rows["hardware"] == found[3])
                          & (rows["tokens_per_s_per_user"] >= 40)]
            rival = rivals.loc[rivals["cost_usd_per_million_tokens"].idxmin()]
            assert int(rival["batch"]) == int(found[5].replace(",", ""))
            for name, price in ((found[1], float(found[2])), (found[3], float(found[4]))):
                hw = dataclasses.replace(roofline.load_hardware(name), price_usd_per_hour=price)
                swap = {f: ([hw if h == name else h for h in v] if isinstance(v, list) else hw if v == name else v)
                        for f, v in scenario.items() if f in ("hardware", "draft_hardware")}
                again = _candidates(roofline.sweep({**scenario, **swap}))
                again = again[again["decoding"] == kind]
                cost = [float(again[(again[key].astype(str) == pd.Series(row[key]).astype(str).values).all(axis=1)]
                              ["cost_usd_per_million_tokens"].iloc[0]) for row in (pick, rival)]
                assert cost[0] == pytest.approx(cost[1], rel=2e-3), (kind, name, cost)
        assert price_flip_notes(df[df["hardware"] == "h200"], cheapest(df[df["hardware"] == "h200"], 40), 40,
                                meta={"price_usd_per_hour": prices}) == []  # one device: nothing to flip to


@pytest.mark.slow
def test_the_price_flip_note_reads_the_point_computed_now_where_it_is_cheaper_than_the_swept_pick(tmp_path, roofline):
    """qa369: the note called the swept pick ($0.412) the cheapest below a point computed now at $0.339, and gave the
    tie from the swept one: it reads the cheaper point, as the table does (P_p x c_rival / c_point, no drafter)."""
    _swept(tmp_path, roofline, "name: c2\nhardware: [h100-sxm, b200]\nmodel: qwen3-32b\nengine: sglang\ntp: [1, 2, 4]\n"
                               "axes:\n  batch: {start: 1, stop: 512, num: 10, log: true}\n  context: [2048]\n")
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "45")
    assert code == 0, err
    now = re.search(r"between swept batches, computed now: \$([\d.]+) at [\d.]+ tokens/s per user: qwen3-32b on (\S+) ", out)
    note = re.search(r"note: the plain point computed now \((\S+) at \$([\d.]+) a device-hour\) stays the cheapest at this "
                     r"speed up to \$([\d.]+) a device-hour, or while (\S+) \(\$([\d.]+)\) rents above \$([\d.]+): \S+ "
                     r"cheapest plain point as fast \(qwen3-32b on \S+ x \d \(tp \d\), sglang, batch [\d,]+\) costs \$([\d.]+) per "
                     r"million tokens", out)
    assert now and note and note[1] == now[2], out
    (priced,) = [line for line in out.splitlines() if line.startswith("note: priced at ")]  # both devices the note
    assert all(f"{note[i]} ${note[j]}" in priced for i, j in ((1, 2), (4, 5))), priced  # compares (qa377: not its rival)
    point, rival = float(now[1]), float(note[7])
    assert float(note[3]) == pytest.approx(float(note[2]) * rival / point, rel=5e-3)  # 3-digit costs printed
    assert float(note[6]) == pytest.approx(float(note[5]) * point / rival, rel=5e-3)
    # the other device's side is its own cheapest, its point between the swept batches too (qa370: its swept row's)
    from roofline.frontier import refine

    df = pd.read_parquet(tmp_path / "sw" / "results.parquet")
    theirs = df[df["hardware"] == note[4]]
    swept = theirs[theirs["fits_in_memory"] & (theirs["tokens_per_s_per_user"] >= 45)]["cost_usd_per_million_tokens"].min()
    between = refine(theirs, 45)["plain"]["row"]
    assert between is not None and float(between["cost_usd_per_million_tokens"]) < swept  # the case at hand
    assert rival == pytest.approx(float(between["cost_usd_per_million_tokens"]), rel=5e-3)


def test_tie_price_counts_every_device_of_the_kind_whose_price_moves_and_the_layouts_devices_not_its_tp():
    """tie_price_usd_per_hour on rows of known rent and tokens: the pick's 4 devices (tp 2, pp 2) and its drafter on the same kind,
    the rival's drafter on the pick's kind too; at the price it gives, both rows' rents over their tokens are equal
    (qa368: the devices read as tp survived, and a drafter on the repriced kind was held)."""
    from roofline.frontier import tie_price_usd_per_hour as tie_price

    prices = {"a": 3.0, "b": 4.5, "l4": 0.8}
    tokens = {"pick": 20.0, "rival": 24.0}  # million tokens an hour

    def row(name, hw, devices, tp, drafter):
        rent = prices[hw] * devices + (prices[drafter] if drafter else 0.0)
        return pd.Series({"hardware": hw, "devices": devices, "tp": tp, "draft_hardware": drafter,
                          "cost_usd_per_million_tokens": rent / tokens[name]})

    pick, rival = row("pick", "a", 4, 2, "l4"), row("rival", "b", 4, 4, "a")  # qa370: an L4 drafter keeps devices and
    # tp apart (on the repriced kind alone they cancel)
    for device in ("a", "b", "l4"):
        price = tie_price(pick, rival, device, prices)
        moved = {**prices, device: price}
        rents = [moved[r["hardware"]] * r["devices"] + (moved[r["draft_hardware"]] if r["draft_hardware"] else 0.0)
                 for r in (pick, rival)]
        assert rents[0] / tokens["pick"] == pytest.approx(rents[1] / tokens["rival"], rel=1e-12), device
    assert tie_price(pick, rival, "mi300x", {**prices, "mi300x": 1.8}) is None  # neither rents it: no price ties them
    assert tie_price(pick, rival, "a", {**prices, "b": None}) is None  # an unpriced device: no figure


@pytest.mark.slow
def test_cheapest_leaves_ideal_out_beside_serving_engines_and_says_so(tmp_path, roofline):
    """qa371: a table of vllm, sglang and ideal gave ideal's rows every pick (the bound, a cost no engine reaches),
    where the report, which leaves it out, named vllm's; `--where engine=ideal` compares it alone."""
    from roofline.frontier import without_bound

    _swept(tmp_path, roofline, "name: s\nhardware: h100-sxm\nmodel: llama-3.1-8b\nengine: [ideal, vllm]\nmethod: eagle\n"
                               "axes: {batch: [1, 8, 64], k: [0, 2], alpha: [0.7]}\n")
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "60")
    assert code == 0, err
    assert "note: 6 rows of engine ideal left out: the roofline bound, a cost no serving engine reaches, beside vllm's" in out
    picks = [line for line in out.splitlines() if line.startswith(("  plain  ", "  speculation  "))]
    assert len(picks) == 2 and all(", vllm, " in line for line in picks), picks
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "60", "--where", "engine=ideal")
    assert code == 0 and "left out: the roofline bound" not in out and ", ideal (the roofline bound" in out
    df = pd.DataFrame({"engine": ["ideal", "ideal"]})
    assert without_bound(df)[1] == "" and len(without_bound(df)[0]) == 2  # ideal alone: kept


def test_a_gaps_neighbours_are_the_usable_batch_below_and_the_first_swept_above_and_below_needs_nothing_swept_under():
    """qa376's surviving mutants of _gaps: the likely cost's neighbour below is the config's next usable batch (not a
    swept row that does not fit or has no price), its neighbour above the next swept batch (not the last); a 'below'
    gap is swept only where no batch, usable or not, is swept under the smallest usable one, and that one is above 1.
    The table's rows are shuffled: each config's are read in batch order."""
    from roofline.frontier import COST, SPEED, _gaps, _likely_cost

    rows = pd.DataFrame([  # (config, batch, tokens/s per user, cost, usable, max_batch)
        ("a", 1, 100.0, 9.0, True, 64), ("a", 2, 1.0, 1.0, False, 64), ("a", 4, 80.0, 3.0, True, 64),
        ("a", 8, 40.0, 2.0, True, 64), ("a", 16, 25.0, 1.5, True, 64),
        ("b", 1, 90.0, 8.0, True, 20), ("b", 4, 70.0, 4.0, True, 20),  # every batch fast: above, to max_batch
        ("c", 4, 30.0, 5.0, True, 64), ("c", 8, 20.0, 4.0, True, 64),  # every batch slow, none under 4: below
        ("d", 2, 99.0, 1.0, False, 64), ("d", 4, 30.0, 5.0, True, 64),  # batch 2 swept (unusable): no gap below
        ("e", 1, 30.0, 5.0, True, 64), ("e", 2, 20.0, 4.0, True, 64),  # the smallest usable is 1: nothing below
    ], columns=["hardware", "batch", SPEED, COST, "usable", "max_batch"]).sample(frac=1.0, random_state=3)
    rows.index = [f"r{i}" for i in range(len(rows))]
    label = {(h, b): i for i, h, b in zip(rows.index, rows["hardware"], rows["batch"])}
    gaps = {rows.loc[g[2], "hardware"]: g for g in _gaps(rows, ["hardware"], rows.index[rows["usable"]], 50.0)}
    assert sorted(gaps) == ["a", "b", "c"]
    likely, bound, at, batches, place = gaps["a"]
    assert (at, list(batches), place) == (label["a", 4], [5, 6, 7], "between") and bound == pytest.approx(3.0 * 4 / 7)
    assert likely == _likely_cost(4, 80.0, 3.0, [(1, 100.0), (8, 40.0)], 7, 50.0)
    assert likely not in (_likely_cost(4, 80.0, 3.0, [(2, 1.0), (8, 40.0)], 7, 50.0),  # the neighbours a mutant reads
                          _likely_cost(4, 80.0, 3.0, [(1, 100.0), (16, 25.0)], 7, 50.0))
    likely, bound, at, batches, place = gaps["b"]
    assert (at, batches, place) == (label["b", 4], range(5, 21), "above") and bound == pytest.approx(4.0 * 4 / 20)
    assert likely == _likely_cost(4, 70.0, 4.0, [(1, 90.0)], 20, 50.0)
    assert gaps["c"] == (5.0, 5.0, label["c", 4], range(1, 4), "below")


@pytest.mark.slow
def test_the_plain_point_at_the_largest_batch_that_fits_keeps_the_tables_labels_and_is_not_added_over_a_swept_batch():
    """qa376's surviving mutants of plain_at_largest_fit: the point computed at max_batch carries its config's labels as
    the table has them (a sweep of eagle: method eagle at k 0 and the alpha swept, not the plain sweep's 'none'), and
    no point is computed where a swept batch lies between the largest that fits and max_batch."""
    import warnings

    import roofline
    from roofline.frontier import plain_at_largest_fit

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                             "axes": {"batch": [1, 8], "context": [2048], "k": [0, 3], "alpha": [0.8]}})
        out = plain_at_largest_fit(df, None)
    (added,) = [row for _, row in out[out["computed_now"]].iterrows()]
    cap = int(df[df["k"] == 0]["max_batch"].iloc[0])
    assert cap > 8 and int(added["batch"]) == cap and bool(added["fits_in_memory"])
    assert (added["method"], int(added["k"]), added["alpha"]) == ("eagle", 0, 0.8)
    assert len(out) == len(df) + 1 and not out.loc[: len(df) - 1, "computed_now"].any()
    unfit = df.assign(fits_in_memory=df["fits_in_memory"] & (df["batch"] < 8))  # batch 8 swept between 1 and the cap
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert "computed_now" not in plain_at_largest_fit(unfit, None)


@pytest.mark.slow
def test_the_frontier_without_a_speed_says_its_speeds_once(tmp_path, roofline):
    """qa383: 'speeds and costs: steady decoding: speeds and costs count decode steps only, ...' headed cheapest's
    frontier where no speed was asked."""
    _swept(tmp_path, roofline, "name: f1\nhardware: h100-sxm\nmodel: llama-3.1-8b\naxes:\n  batch: [1, 8]\n  context: [1024]\n")
    code, out, err = roofline("cheapest", tmp_path / "sw")
    assert code == 0, err
    assert out.splitlines()[0].startswith("Steady decoding: speeds and costs count decode steps only"), out[:300]
    assert "speeds and costs: steady" not in out


def test_a_price_whose_profile_is_gone_is_not_said_changed_since():
    """qa389: a device's profile moved out of the user folder: cheapest said 'no profile of device my-b200 on the search
    path' and then 'my-b200 $5.20 (changed since)', though no price changed."""
    import pandas as pd

    from roofline.frontier import prices_note
    from roofline.hardware import load_hardware

    h100 = load_hardware("h100-sxm").price_usd_per_hour
    df = pd.DataFrame({"hardware": ["h100-sxm", "gone-gpu", "h200"]})
    assert prices_note(df, {"price_usd_per_hour": {"h100-sxm": h100, "gone-gpu": 5.2, "h200": 9.0}}) == (
        "priced at h100-sxm $3.00, gone-gpu $5.20 (its profile gone), h200 $9.00 (changed since) a device-hour (as swept): "
        "rental quotes whose sources `roofline hw show NAME` gives, but those marked changed since or its profile gone; a "
        "pick between devices moves with them")
    assert prices_note(df.iloc[1:2], {"price_usd_per_hour": {"gone-gpu": 5.2}}) == (
        "priced at gone-gpu $5.20 a device-hour (as swept): prices of profiles no longer on the search path (above); a "
        "pick between devices moves with them")


def test_a_frontier_may_not_replace_an_accuracy_or_validation_runs_own_table(tmp_path):
    """qa394: `cheapest --out 'acc/accuracy.csv' --force` wrote frontier rows over an accuracy run's table, its
    summary.json and marker left saying accuracy; refused as a sweep's own tables are. A new file there is fine."""
    from roofline.errors import RooflineError
    from roofline.frontier import check_frontier_out
    from roofline.outputs import write_marker

    for kind, table in (("accuracy", "accuracy.csv"), ("validation", "validation.csv"), ("sweep", "results.csv"),
                        (None, "operators.csv")):  # a marker of a version before `kind:`: a sweep's
        folder = tmp_path / str(kind)
        folder.mkdir()
        (folder / table).write_text("x\n1\n")
        write_marker(folder, {table}, kind)
        whose = {"accuracy": "an accuracy run", "validation": "a validation run"}.get(kind, "a sweep")  # (qa401: 'a accuracy')
        with pytest.raises(RooflineError, match=rf"{table} is {whose}'s own table: give the frontier another name"):
            check_frontier_out(folder / table, force=True)
        check_frontier_out(folder / "frontier.csv", force=True)  # beside them: joins the folder's list


@pytest.mark.slow
def test_serving_miss_margins_price_the_other_deployment_between_its_swept_batches(tmp_path, roofline):
    """qa399: under --serving the known-miss note took the other deployment at its swept batch 64 ('30.1% more ...
    taken at its swept batches: between them higher'): its points between swept batches were computed as decoding's,
    read as not reproducing the table, where the same command without --serving priced them."""
    _swept(tmp_path, roofline, "name: pserve\nhardware: mi300x\nmodel: llama-3.1-8b\nengine: [vllm, sglang]\nmethod: eagle\n"
                               "prompt: 1024\noutput_len: 256\naxes:\n  batch: [1, 8, 16, 32, 64, 128, 256]\n  k: [0, 4]\n"
                               "  alpha: [0.8]\n")
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "60", "--serving")
    assert code == 0, err
    notes = [line for line in (out + err).splitlines() if "of another deployment" in line]
    assert notes and not any("taken at its swept batches" in line for line in notes), notes
    batches = {int(b) for line in notes for b in re.findall(r"sglang, batch (\d+)", line)}
    assert batches - {1, 8, 16, 32, 64, 128, 256}, notes  # a batch between the swept ones, computed as --serving reads it
    # qa399: the exported frontier holds the point the command answered with (computed now), marked, not only the pick
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "60", "--serving", "--out",
                              tmp_path / "sw" / "plan.csv")
    plan = pd.read_csv(tmp_path / "sw" / "plan.csv")
    now = plan[plan["computed_now"]]
    assert code == 0 and len(now) >= 1 and now["answer"].all() and not now["pick"].any(), err
    assert now["best_k"].isna().all() and now["break_even_batch"].isna().all()  # a short sweep's axis figures: none
    printed = re.search(r"between swept batches, computed now: \$([\d.]+) at [\d.]+ tokens/s per user: .*?, batch (\d+),", out)
    row = now[now["batch"] == int(printed.group(2))]
    assert len(row) == 1 and f"{row['serving_cost_usd_per_million_tokens'].iloc[0]:.3g}" == printed.group(1)
    assert plan.groupby("decoding")["answer"].sum().le(1).all()  # one answer a kind


@pytest.mark.slow
def test_a_table_cut_short_of_the_points_its_scenario_records_is_said(tmp_path, roofline):
    """qa408: a results.csv cut at a line's end (199 of its 540 rows: an interrupted copy) was answered from in
    silence; its scenario.json records the points swept, and a table of another number of rows is said."""
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: s\nhardware: [h100-sxm, h200]\nmodel: llama-3.1-8b\nengine: vllm\nmethod: eagle\n"
                        "axes: {batch: [1, 8, 64], context: [2048], k: [0, 2], alpha: [0.8]}\n")
    assert roofline("sweep", scenario, "--out", tmp_path / "sw", "--no-plots", "--format", "csv")[0] == 0
    code, _, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "10")
    assert code == 0 and "rows where" not in err, err
    lines = (tmp_path / "sw" / "results.csv").read_text().splitlines(keepends=True)
    (tmp_path / "sw" / "results.csv").write_text("".join(lines[:8]))  # the header and 7 of its 12 rows
    code, _, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "10")
    assert code == 0 and (f"warning: {tmp_path / 'sw' / 'results.csv'}: 7 rows where scenario.json records 12 points "
                          "swept: a table cut short or edited") in err, err
    code, _, err = roofline("plot", tmp_path / "sw", "--out", tmp_path / "p")  # plot too (qa412: in silence)
    assert code == 0 and "7 rows where scenario.json records 12 points swept" in err, err


def test_a_fleet_for_a_number_of_users_is_priced_by_its_replicas_not_by_its_cost_per_token():
    """qa415: for 2,000 users at 30 tokens/s each, the pick by cost per token served each user 56 tokens/s at batch 28
    (72 devices) where a row it beats per token, 32 tokens/s at batch 91, serves them on 44. Hand-made rows: at 50
    tokens/s, 1,000 users need ceil(1000 / B) replicas of each row's rent (cost x tokens/s x 3600 / 1e6)."""
    from roofline.frontier import fleet_picks

    df = _rows((200, 1.0, True, "eagle", 3, 0.8, 20),   # cheapest a token; rent 1.0 x 4000 x 3600 / 1e6 = 14.4 $/h
               (60, 1.2, True, "eagle", 3, 0.8, 100),   # dearer a token; rent 1.2 x 6000 x 0.0036 = 25.92 $/h
               (40, 0.5, True, "eagle", 3, 0.8, 400),   # too slow for 50 tokens/s
               (80, 3.0, True, "none", 0, None, 10),    # plain: rent 3.0 x 800 x 0.0036 = 8.64 $/h
               (55, 4.0, True, "none", 0, None, 50),    # rent 4.0 x 2750 x 0.0036 = 39.6 $/h
               (90, 0.1, False, "none", 0, None, 500))  # does not fit
    df["tokens_per_s"] = df["tokens_per_s_per_user"] * df["batch"]
    assert cheapest(df, 50)["speculation"]["batch"] == 20  # by cost per token
    fleet = fleet_picks(df, 50, 1000)
    spec, plain = fleet["speculation"], fleet["plain"]
    assert spec["row"]["batch"] == 100 and spec["replicas"] == 10 and spec["devices"] == 10  # 10 x 25.92 against 50 x 14.4
    assert spec["usd_per_hour"] == pytest.approx(10 * 1.2 * 6000 * 3600 / 1e6)
    assert plain["row"]["batch"] == 50 and plain["replicas"] == 20  # 20 x 39.6 = 792 against 100 x 8.64 = 864
    assert plain["usd_per_hour"] == pytest.approx(20 * 4.0 * 2750 * 3600 / 1e6)
    assert fleet_picks(df, 100, 1000)["plain"] is None and fleet_picks(df, 100, 1000)["speculation"]["row"]["batch"] == 20
    assert fleet_picks(df, 50, 20)["speculation"]["row"]["batch"] == 20  # 20 users: one replica of either, 14.4 < 25.92
    assert fleet_picks(df, 50, 30)["speculation"]["row"]["batch"] == 100  # 30: two of batch 20, 28.8 > 25.92
    # qa417: one rent read back from rounded costs differs by 1e-7 between rows; to a hundredth of a cent it ties, and
    # the fewest devices, then the least cost per token, decide (a batch 2 at $25.6 a million shown over batch 4's $13)
    tie = _rows((100, 2.0, True, "none", 0, None, 10), (100, 1.0000001, True, "none", 0, None, 20))
    tie["tokens_per_s"] = tie["tokens_per_s_per_user"] * tie["batch"]  # rents 7.2 and 7.20000072 $/h
    assert fleet_picks(tie, 50, 1)["plain"]["row"]["batch"] == 20 and round(fleet_picks(tie, 50, 1)["plain"]["usd_per_hour"], 2) == 7.2  # said to the cent


def test_a_table_whose_throughput_is_not_a_positive_number_is_refused_in_one_line():
    """qa440: tokens_per_s, which prices a fleet's rent, was read unchecked (a -1 or a word in it taken)."""
    from roofline.errors import RooflineError
    from roofline.frontier import check_table

    df = _rows((60, 1.0, True, "none", 0, None, 20), (40, 0.75, True, "none", 0, None, 40)).assign(alpha=np.nan)
    df["tokens_per_s"] = [1200.0, -1.0]
    with pytest.raises(RooflineError, match=r"^t: tokens_per_s: expected a number above 0 up to 1e\+15, found -1"):
        check_table(df, "t")
    df["tokens_per_s"] = [1200.0, "many"]
    with pytest.raises(RooflineError, match=r"^t: tokens_per_s: "):
        check_table(df, "t")
    df["tokens_per_s"] = [1200.0, 1600.0]
    check_table(df, "t")


def test_fleets_of_one_rent_and_devices_go_to_the_faster_row_not_to_the_cheaper_per_token_at_its_own_batch():
    """qa434: for 20 users at 30 tokens/s, one replica of either row serves them at $4.32 an hour on one device (rents
    1.0 x 60 x 20 x 0.0036 and 0.75 x 40 x 40 x 0.0036); batch 40 is the cheaper a token at its own batch, but its
    users get 40 tokens/s where batch 20's get 60 for the same dollars: 60's is the fleet."""
    from roofline.frontier import fleet_picks

    df = _rows((60, 1.0, True, "none", 0, None, 20), (40, 0.75, True, "none", 0, None, 40))
    df["tokens_per_s"] = df["tokens_per_s_per_user"] * df["batch"]
    fleet = fleet_picks(df, 30, 20)["plain"]
    assert fleet["usd_per_hour"] == pytest.approx(4.32) and fleet["replicas"] == 1 and fleet["devices"] == 1
    assert fleet["row"]["batch"] == 20 and fleet["row"]["tokens_per_s_per_user"] == 60


@pytest.mark.slow
def test_cheapest_users_prints_the_fleet_and_what_the_per_token_pick_would_need(tmp_path, roofline):
    """The command's --users: each kind's fleet, its replicas, devices and dollars an hour, and where the pick by cost
    per token is another row, what it needs for the same users; refused without a speed, and from the API alike."""
    import json

    import roofline as api

    _swept(tmp_path, roofline, "name: f\nhardware: [h100-sxm, a100-sxm-80gb]\nmodel: llama-3.1-8b\nmethod: eagle\n"
           "axes:\n  batch: [8, 16, 32, 64, 128]\n  k: [0, 2]\n  alpha: [0.8]\n")
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "60", "--users", "1000")
    assert code == 0, err
    table = pd.read_csv(tmp_path / "sw" / "results.csv")
    table.attrs["scenario"] = json.loads((tmp_path / "sw" / "scenario.json").read_text())
    got = api.cheapest(table, 60, users=1000)  # the batches between the swept ones too, as the command
    for kind in ("plain", "speculation"):
        f = got["fleet"][kind]
        line = next(x for x in out.splitlines() if x.startswith(f"  {kind:<12} $") and "an hour" in x)
        assert f"${f['usd_per_hour']:,.2f} an hour, {f['replicas']:,} replicas, {f['devices']:,} devices" in line, line
        assert f["replicas"] == -(-1000 // int(f["row"]["batch"]))
    assert "cheapest fleet for 1,000 users at once at 60 tokens/s per user or faster" in out
    # qa418: sized from the sweep's prices, exact (a CSV's six digits read $12,000,000.56 for 250,000 x 8 x $6)
    for kind in ("plain", "speculation"):
        f = got["fleet"][kind]
        price = table.attrs["scenario"]["price_usd_per_hour"][str(f["row"]["hardware"])]
        assert f["usd_per_hour"] == pytest.approx(f["devices"] * price, abs=1e-9)
    code, _, err = roofline("cheapest", tmp_path / "sw", "--users", "1000")
    assert code == 2 and err == ("error: command line: --users: expected with --min-tokens-per-user SPEED (the speed each "
                                 "user gets), found --users 1000 alone\n")
    with pytest.raises(Exception, match="cheapest: users: expected a min_tokens_per_user beside it"):
        api.cheapest(pd.read_csv(tmp_path / "sw" / "results.csv"), users=1000)


@pytest.mark.slow
def test_cheapest_out_writes_each_kinds_fleet_and_the_answers_fleet(tmp_path, roofline):
    """qa418: --out wrote the frontier and its picks, the --users fleet in the text alone. Each kind's fleet is a row of
    its own (fleet true) with its replicas, devices and rent for the users, as the API answers; each answer row carries
    what it needs for the same users; without --users no fleet column."""
    import json

    import roofline as api

    _swept(tmp_path, roofline, "name: f\nhardware: [h100-sxm, a100-sxm-80gb]\nmodel: llama-3.1-8b\nmethod: eagle\n"
           "axes:\n  batch: [8, 16, 32, 64, 128]\n  k: [0, 2]\n  alpha: [0.8]\n")
    code, _, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "60", "--users", "1000",
                            "--out", tmp_path / "f.csv")
    assert code == 0, err
    written = pd.read_csv(tmp_path / "f.csv")
    table = pd.read_csv(tmp_path / "sw" / "results.csv")
    table.attrs["scenario"] = json.loads((tmp_path / "sw" / "scenario.json").read_text())
    got = api.cheapest(table, 60, users=1000)["fleet"]
    fleets = written[written["fleet"]]
    assert sorted(fleets["decoding"]) == ["plain", "speculation"]
    for kind in ("plain", "speculation"):
        f, row = got[kind], fleets[fleets["decoding"] == kind].iloc[0]
        assert (row["batch"], row["hardware"], row["k"]) == (f["row"]["batch"], f["row"]["hardware"], f["row"]["k"])
        assert (row["fleet_users"], row["fleet_replicas"], row["fleet_devices"]) == (1000, f["replicas"], f["devices"])
        assert row["fleet_usd_per_hour"] == pytest.approx(f["usd_per_hour"]) and row["computed_now"] == f["computed_now"]
        answer = written[written["answer"] & (written["decoding"] == kind)].iloc[0]
        assert (answer["fleet_replicas"], answer["fleet_usd_per_hour"]) == (f["pick"]["replicas"],
                                                                          pytest.approx(f["pick"]["usd_per_hour"]))
        assert not row["pick"] and not row["answer"]
    assert written.loc[~written["fleet"] & ~written["answer"], "fleet_replicas"].isna().all()
    code, _, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "60", "--out", tmp_path / "g.csv")
    assert code == 0 and not any(c.startswith("fleet") for c in pd.read_csv(tmp_path / "g.csv").columns), err
    # qa424: a fleet row computed now carried the short sweep's best_k and break-even (410 beside the table's 128); a
    # kind without a fleet, the users written and an answer row whose per-token fleet is not the fleet's: untested
    for _, row in written[written["fleet"]].iterrows():
        assert bool(row["computed_now"]) == (int(row["batch"]) not in (8, 16, 32, 64, 128)), row
    now = written[written["computed_now"]]
    assert len(now) and now[["best_k", "break_even_batch"]].isna().all().all(), now[["best_k", "break_even_batch"]]
    raw = pd.read_csv(tmp_path / "f.csv", dtype=str)  # counts written as integers
    assert all(v.isdigit() for v in raw.loc[raw["fleet"] == "true", "fleet_replicas"])
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "150", "--users", "500",
                              "--out", tmp_path / "g2.csv")  # plain reaches no 150 tokens/s per user: one kind's fleet
    assert code == 0, (out, err)
    g = pd.read_csv(tmp_path / "g2.csv")
    assert list(g.loc[g["fleet"], "decoding"]) == ["speculation"] and (g.loc[g["fleet"], "fleet_users"] == 500).all()
    (tmp_path / "b").mkdir()
    _swept(tmp_path / "b", roofline, "name: rf\nhardware: [h100-sxm, h200]\nmodel: llama-3.1-70b\nmethod: eagle\n"
           "tp: [4]\naxes:\n  batch: [16, 32, 64]\n  context: [2048]\n  k: [0, 3]\n  alpha: [0.8]\n")
    code, _, err = roofline("cheapest", tmp_path / "b" / "sw", "--min-tokens-per-user", "100", "--users", "50",
                            "--out", tmp_path / "h.csv")  # qa417's: the fleet (H200, batch 50) is not the pick's
    assert code == 0, err
    table = pd.read_csv(tmp_path / "b" / "sw" / "results.csv")
    table.attrs["scenario"] = json.loads((tmp_path / "b" / "sw" / "scenario.json").read_text())
    got = api.cheapest(table, 100, users=50)["fleet"]["speculation"]
    assert (got["pick"]["replicas"], got["pick"]["usd_per_hour"]) != (got["replicas"], got["usd_per_hour"]), got
    h = pd.read_csv(tmp_path / "h.csv")
    answer = h[h["answer"] & (h["decoding"] == "speculation")].iloc[0]
    assert (answer["fleet_replicas"], answer["fleet_usd_per_hour"]) == (got["pick"]["replicas"],
                                                                      pytest.approx(got["pick"]["usd_per_hour"]))


def test_fleet_picks_says_whether_its_row_was_computed_now():
    """qa424: fleet_picks' computed_now was checked only against itself (the API and the file both read it)."""
    from roofline.frontier import fleet_picks

    df = _rows((200, 1.0, True, "eagle", 3, 0.8, 20), (60, 1.2, True, "eagle", 3, 0.8, 100),
               (80, 3.0, True, "none", 0, None, 10), (55, 4.0, True, "none", 0, None, 50))
    df["tokens_per_s"] = df["tokens_per_s_per_user"] * df["batch"]
    assert fleet_picks(df, 50, 1000)["speculation"]["computed_now"] is False
    extra = df.iloc[1].copy()
    extra["batch"], extra["tokens_per_s"], extra[COST_COLUMN] = 1000, 60_000.0, 1.2
    got = fleet_picks(df, 50, 1000, extra={"speculation": [extra]})["speculation"]
    assert got["row"]["batch"] == 1000 and got["computed_now"] is True
    dear = df.iloc[1].copy()
    dear["batch"], dear["tokens_per_s"] = 40, 2400.0  # reaches the speed, 25 replicas: not the fleet
    got = fleet_picks(df, 50, 1000, extra={"speculation": [dear]})["speculation"]
    assert got["row"]["batch"] == 100 and got["computed_now"] is False


def test_a_ratio_that_moves_steeply_with_the_speed_asked_is_said_with_its_neighbours():
    """qa415: 'speculation costs 0.0419x plain decoding's' at 30 tokens/s per user, where plain decoding's cheap rows
    sat at 28.8-29.9: 0.102x at 28.5 and 0.0373x at 31.5, unsaid. Hand-made rows: plain reaches 30 only at $10, 28.5
    at $1; speculation $0.5 at 60."""
    from roofline.frontier import speed_sensitivity_note

    df = _rows((31, 10.0, True, "none", 0, None, 4), (29.5, 1.0, True, "none", 0, None, 64),
               (60, 0.5, True, "eagle", 3, 0.8, 32))
    note = speed_sensitivity_note(df, cheapest(df, 30), 30)
    assert note == ("the speculation-to-plain cost ratio moves steeply with the speed asked (the swept rows' picks): "
                    "0.500x at 28.5, 0.0500x at 30.0 (asked) tokens/s per user; plain decoding's cheapest cost changes "
                    "10.0x from 28.5 to 30.0 (its cheap rows' speeds crowd near the one asked): read the ratio at the speed "
                    "you need, not at this one alone"), note  # 31.5: no plain row reaches it, that side left out
    steady = _rows((31, 10.0, True, "none", 0, None, 4), (29.5, 9.0, True, "none", 0, None, 64),
                   (60, 0.5, True, "eagle", 3, 0.8, 32))
    assert speed_sensitivity_note(steady, cheapest(steady, 30), 30) == ""  # 0.0556x against 0.0500x: not said


@pytest.mark.slow
def test_a_fleet_takes_the_batch_it_needs_between_the_swept_ones(tmp_path, roofline):
    """qa417: 50 users at 100 tokens/s on Llama 3.1 70B at tp 4, batches 16, 32, 64 swept: at 32 two replicas of 4
    H100 ($24 an hour); 4 H200 at batch 50, between the swept 32 and 64, reach 104 tokens/s per user: one replica,
    4 x $4.50 = $18 an hour. The fleet sweeps the batches a fleet needs, not only the per-token pick's."""
    _swept(tmp_path, roofline, "name: rf\nhardware: [h100-sxm, h200]\nmodel: llama-3.1-70b\nmethod: eagle\ntp: [4]\n"
           "axes:\n  batch: [16, 32, 64]\n  context: [2048]\n  k: [0, 3]\n  alpha: [0.8]\n")
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "100", "--users", "50")
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.startswith("  speculation  $") and "an hour" in x)
    assert line.startswith("  speculation  $18.00 an hour, 1 replica, 4 devices, each: ") and "h200 x 4 (tp 4), vllm, batch 50," in line, line


def test_the_fleet_lines_and_ranking_by_hand():
    """qa416's survivors: the pick line's replicas, devices and rent, no pick line where the pick is the fleet's row,
    the ratio's direction, a row exactly at the speed, dollars before devices before cost per token, a drafter's
    device counted, and an extra point taken."""
    from roofline.frontier import cost_frontier, fleet_picks
    from roofline.tables import frontier_table

    df = _rows((200, 1.0, True, "eagle", 3, 0.8, 20),   # rent 14.4 $/h
               (60, 1.2, True, "eagle", 3, 0.8, 100),   # rent 25.92 $/h
               (80, 3.0, True, "none", 0, None, 10),    # rent 8.64 $/h
               (55, 4.0, True, "none", 0, None, 50))    # rent 39.6 $/h
    df["tokens_per_s"] = df["tokens_per_s_per_user"] * df["batch"]
    from roofline.frontier import answer

    got = answer(df, 50, users=1000, refine_batches=False)  # the fleets, each with its per-token pick priced
    fleet, picks = got["fleet"], got["picks"]
    assert {k: f["usd_per_hour"] for k, f in fleet.items()} == {k: f["usd_per_hour"] for k, f in fleet_picks(df, 50, 1000).items()}
    assert fleet["speculation"]["pick"]["usd_per_hour"] == 720.0 and fleet["speculation"]["pick"]["devices"] == 50
    text = frontier_table(cost_frontier(df), [], picks, 50, fleet=fleet, users=1000)
    lines = text.splitlines()
    spec = next(i for i, x in enumerate(lines) if x.startswith("  speculation  $") and "an hour" in x)
    assert lines[spec].startswith("  speculation  $259.20 an hour, 10 replicas, 10 devices, each: $1.20 at 60.0 tokens/s")
    assert lines[spec + 1].strip() == ("the pick by cost per token above (200 tokens/s per user) needs 50 replicas of batch "
                                      "20, 50 devices, $720.00 an hour for these users")
    plain = next(i for i, x in enumerate(lines) if x.startswith("  plain        $") and "an hour" in x)
    assert "20 replicas, 20 devices" in lines[plain] and "the pick by cost" in lines[plain + 1]  # per token: batch 10
    assert "  speculation costs 0.327x plain decoding's for these users" in lines  # 259.20 / 792
    one = frontier_table(cost_frontier(df), [], picks, 50, fleet=answer(df, 50, users=20, refine_batches=False)["fleet"], users=20)
    assert "1 replica, 1 device, each" in one and "the pick by cost per token" not in one  # each pick is its fleet
    at = _rows((50, 1.0, True, "none", 0, None, 10))  # exactly the speed asked: it reaches it
    at["tokens_per_s"] = 500.0
    assert fleet_picks(at, 50, 10)["plain"]["row"]["batch"] == 10
    wide = _rows((60, 1.0, True, "none", 0, None, 100), (60, 1.2, True, "none", 0, None, 100))
    wide["devices"], wide["tp"] = [10, 20], [10, 20]
    wide["tokens_per_s"] = 6000.0  # rents 21.6 and 25.92 $/h: dollars first, whatever the devices
    assert fleet_picks(wide, 50, 100)["plain"]["usd_per_hour"] == 21.6
    tie = _rows((60, 1.0, True, "none", 0, None, 100), (60, 0.5, True, "none", 0, None, 100))
    tie["devices"], tie["tp"] = [1, 2], [1, 2]
    tie["tokens_per_s"] = [6000.0, 12000.0]  # both 21.6 $/h: the fewer devices, though dearer a token
    assert fleet_picks(tie, 50, 100)["plain"]["devices"] == 1
    drafted = _rows((60, 1.0, True, "draft", 3, 0.8, 100))
    drafted["draft_hardware"], drafted["tokens_per_s"] = "l4", 6000.0
    assert fleet_picks(drafted, 50, 300)["speculation"]["devices"] == 6  # 3 replicas of the target's and the L4
    extra = df.iloc[1].copy()
    extra["batch"], extra["tokens_per_s"] = 1000, 60_000.0  # one replica of 25.92 x 10 $/h: cheaper than 10 of 25.92
    extra[COST_COLUMN] = 1.2
    assert fleet_picks(df, 50, 1000, extra={"speculation": [extra]})["speculation"]["row"]["batch"] == 1000


COST_COLUMN = "cost_usd_per_million_tokens"


@pytest.mark.slow
def test_a_repriced_fleet_takes_the_batches_computed_now_its_fleet_was_chosen_from(tmp_path, roofline, monkeypatch):
    """qa436: a copy of MI325X repriced from $1.85 to $2.60 after the sweep: the fleet note said 16 replicas at the swept
    batch 64 for $166.40 an hour, where the fleet above it (9 replicas at batch 121, computed now) costs $93.60 at the
    price now."""
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user"))
    assert roofline("hw", "new", "mi3c", "--from", "mi325x", "--set", "price=1.85 USD/h")[0] == 0
    _swept(tmp_path, roofline, "name: fl\nhardware: [h200, mi3c]\nmodel: llama-3.1-70b\nmethod: none\ntp: 4\n"
                               "axes:\n  batch: [16, 64, 256]\n  context: [4096]\n")
    assert roofline("hw", "set", "mi3c", "price=2.60 USD/h")[0] == 0
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "30", "--users", "1000")
    fleet = re.search(r"  plain +\$[\d,.]+ an hour, (\d+) replicas, (\d+) devices, .* batch (\d+), ", out)
    assert code == 0 and fleet and int(fleet.group(3)) not in (16, 64, 256), out  # the case: a batch computed now
    replicas, devices, batch = (int(g) for g in fleet.groups())
    said = next(x for x in out.splitlines() if "at the profiles' prices now (mi3c $2.60 a device-hour), the plain fleet" in x)
    assert (f"would be {replicas} x llama-3.1-70b on mi3c x 4 (tp 4), vllm, batch {batch}, {devices} devices, "
            f"${devices * 2.60:,.2f} an hour") in said, said


@pytest.mark.slow
def test_a_price_changed_since_the_sweep_gives_the_pick_at_the_price_now(tmp_path, roofline, monkeypatch):
    """qa415: MI300X set from $3.50 to $2.00 a device-hour after the sweep: cheapest said the price had changed and kept
    B200's pick, where at $2.00 MI300X's is cheaper. The table's costs repriced at the profiles' prices now give the
    pick a sweep at them gives (its rows' costs alike: each is rent over tokens)."""
    import json

    import roofline as api

    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user"))
    assert roofline("hw", "new", "mi300x-cloud", "--from", "mi300x", "--set", "price=3.50 USD/h")[0] == 0
    text = ("name: p\nhardware: [b200, mi300x-cloud]\nmodel: llama-3.1-70b\nmethod: eagle\ntp: [4]\n"
            "axes:\n  batch: [16, 64, 128]\n  context: [4096]\n  k: [0, 3]\n  alpha: [0.8]\n")
    _swept(tmp_path, roofline, text)
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "30")
    assert code == 0 and "prices now" not in out and " on b200 x 4 " in next(x for x in out.splitlines() if x.startswith("  plain "))
    assert roofline("hw", "set", "mi300x-cloud", "price=2.00 USD/h")[0] == 0
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "30")
    said = [x for x in out.splitlines() if "at the profiles' prices now (mi300x-cloud $2.00 a device-hour)" in x]
    assert code == 0 and said, out
    (tmp_path / "again").mkdir()
    again = tmp_path / "again" / "scenario.yaml"
    again.write_text(text)
    assert roofline("sweep", again, "--out", tmp_path / "sw2", "--no-plots")[0] == 0
    table = pd.read_csv(tmp_path / "sw2" / "results.csv")
    table.attrs["scenario"] = json.loads((tmp_path / "sw2" / "scenario.json").read_text())
    picks = api.cheapest(table, 30, between_batches=False)["picks"]
    for kind, pick in picks.items():
        line = next((x for x in said if f"the {kind} pick" in x), None)
        if line is not None:  # the pick it names is the pick a sweep at the prices now makes, at the same cost
            assert f"on {pick['hardware']} x 4 (tp 4), vllm, batch {int(pick['batch'])}" in line, (line, pick)
            assert f"at ${format_significant(pick['cost_usd_per_million_tokens'])} per million tokens" in line, (line, pick)
    assert any("the plain pick" in x for x in said)
    # qa420: the fleets of --users too, against the fleets a sweep at the prices now gives: no dearer than of its swept
    # batches alone, no cheaper than with every batch between computed (qa436: the batches computed now between the
    # swept ones, which the fleets were chosen from, were left out: $166.40 said where $93.60 was the answer)
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "30", "--users", "100")
    fleets = [x for x in out.splitlines() if "at the profiles' prices now (mi300x-cloud $2.00 a device-hour)" in x
              and " fleet would be " in x]
    swept = api.cheapest(table, 30, users=100, between_batches=False)["fleet"]
    every = api.cheapest(table, 30, users=100)["fleet"]
    assert code == 0 and fleets, out
    for line in fleets:
        kind = "plain" if "the plain fleet" in line else "speculation"
        said = float(re.search(r"\$([\d,.]+) an hour", line).group(1).replace(",", ""))
        assert every[kind]["usd_per_hour"] - 0.005 <= said <= swept[kind]["usd_per_hour"] + 0.005, (line, every, swept)


@pytest.mark.slow
def test_a_fleet_looks_below_the_smallest_swept_batch_and_at_configs_none_of_whose_swept_batches_fit(tmp_path, roofline):
    """qa418: Llama 3.1 70B on H100 at tp 2, 4, 8 with a 1B draft model, batches 16, 64, 256: 9 users at 50 tokens/s
    took 8 devices (tp 8), where tp 4 at batch 9 reaches 50.2 on 4; one user at 80 took 4 devices, where tp 2, none
    of whose swept batches fits with its drafter, fits at batch 1 and reaches 86 on 2."""
    _swept(tmp_path, roofline, "name: a2\nhardware: h100-sxm\nmodel: llama-3.1-70b\ntp: [2, 4, 8]\nmethod: draft\n"
           "draft: llama-3.2-1b\naxes:\n  batch: [16, 64, 256]\n  context: [4096]\n  k: [0, 4]\n  alpha: [0.8]\n")
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "50", "--users", "9")
    line = next(x for x in out.splitlines() if x.startswith("  plain        $") and "an hour" in x)
    assert code == 0 and line.startswith("  plain        $12.00 an hour, 1 replica, 4 devices") and "(tp 4), vllm, batch 9," in line, line
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "80", "--users", "1")
    line = next(x for x in out.splitlines() if x.startswith("  speculation  $") and "an hour" in x)
    assert code == 0 and line.startswith("  speculation  $6.00 an hour, 1 replica, 2 devices") and "(tp 2), vllm, batch 1," in line, line
    assert "cheapest fleet for 1 user at once" in out


@pytest.mark.slow
def test_what_is_said_of_a_pick_is_said_of_a_fleet_row_that_is_another_point(tmp_path, roofline):
    """qa418: SGLang's cap of 48 sequences while speculating was said of the per-token pick's batch, not of the fleet's
    own: 300 users on one H100 with EAGLE run at a batch of their own (389 fits; the pick is the swept 256)."""
    _swept(tmp_path, roofline, "name: fn\nhardware: h100-sxm\nmodel: llama-3.1-8b\nengine: sglang\nmethod: eagle\n"
           "axes:\n  batch: [8, 64, 256, 1024]\n  context: [1024]\n  k: [0, 2]\n  alpha: [0.8]\n")
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "10", "--users", "300")
    fleet = next(x for x in out.splitlines() if x.startswith("  speculation  $") and "an hour" in x)
    batch = int(re.search(r"sglang, batch (\d+),", fleet).group(1))
    assert code == 0 and batch > 256, fleet
    assert f"note: the speculation fleet: batch {batch} while speculating under sglang: it runs at most 48 sequences" in out


@pytest.mark.slow
def test_a_fleet_is_priced_exactly_without_its_scenario_json_and_says_what_it_did_not_sweep(tmp_path, roofline, monkeypatch):
    """qa419: results.csv copied out of its folder priced a fleet from its rounded costs ($50,000,002.30 for 16,666,667
    x $3); --where batch=... said batches 'computed now' that were not; a cap on the configs swept for a fleet left
    cheaper ones unswept in silence."""
    import shutil

    from roofline import frontier

    _swept(tmp_path, roofline, "name: rf\nhardware: [h100-sxm, h200]\nmodel: llama-3.1-70b\nmethod: eagle\ntp: [4]\n"
           "axes:\n  batch: [16, 32, 64]\n  context: [2048]\n  k: [0, 3]\n  alpha: [0.8]\n")
    (tmp_path / "lone").mkdir()
    shutil.copy(tmp_path / "sw" / "results.csv", tmp_path / "lone" / "results.csv")
    code, out, err = roofline("cheapest", tmp_path / "lone" / "results.csv", "--min-tokens-per-user", "30",
                              "--users", "1000000000")
    lines = [x for x in out.splitlines() if "an hour," in x and x.startswith("  ")]
    for line in lines:  # each an exact multiple of its devices' price: $3.00 or $4.50 a device-hour
        usd = float(re.search(r"\$([\d,]+\.\d\d) an hour", line).group(1).replace(",", ""))
        devices = int(re.search(r"([\d,]+) devices", line).group(1).replace(",", ""))
        assert usd in (devices * 3.0, devices * 4.5), line
    assert code == 0 and lines, out
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "100", "--users", "50", "--where", "batch=32")
    assert code == 0 and "at the swept batches alone (--where chose them)" in out and "computed now" not in out.split("cheapest fleet")[1]
    monkeypatch.setattr(frontier, "REFINE_CONFIGS_MAX", 0)
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "100", "--users", "50")
    assert code == 0 and ("note: the speculation fleet: batches not swept that could serve these users for less were not "
                          "priced: ") in out and "configs' batches that could serve them for less" in out, out


def test_a_repriced_pick_counts_a_drafters_device():
    """qa419: no test priced a drafter's device anew. Swept with the L4 at $5.00 a device-hour, its profile's $0.75
    now: the row drafting on it costs 1.1 x (3 + 0.75) / (3 + 5) = $0.516 a million tokens, below the row drafting on
    the H100 ($1.00), so the pick at the prices now is it; counted without the drafter it would stay $1.10."""
    from roofline.frontier import repriced_pick_notes

    df = _rows((60, 1.0, True, "eagle", 3, 0.8, 8), (60, 1.1, True, "draft", 3, 0.8, 8))
    df["draft_hardware"] = ["", "l4"]
    meta = {"price_usd_per_hour": {"h100-sxm": 3.0, "l4": 5.0}}
    notes = repriced_pick_notes(df, cheapest(df, 50), 50, meta=meta)
    assert len(notes) == 1 and notes[0].startswith("at the profiles' prices now (l4 $0.75 a device-hour), the speculation "
                                                   "pick of the table's rows would be m on h100-sxm x 1 (tp 1), vllm, "
                                                   "batch 8, drafter on l4, draft k 3 at $0.516 per million tokens"), notes
    assert repriced_pick_notes(df, cheapest(df, 50), 50, meta={"price_usd_per_hour": {"h100-sxm": 3.0, "l4": 0.75}}) == []
    # qa420: the pick stays where its cost alone moves; said (H100 swept at $2.00, $3.00 now: 1.0 x 3 / 2)
    moved = _rows((60, 1.0, True, "eagle", 3, 0.8, 8), (60, 1.2, True, "draft", 3, 0.8, 8))
    moved["draft_hardware"] = ["", "l4"]  # the drafted row: 1.2 x 3.75 / 2.75 = 1.64, still dearer
    assert repriced_pick_notes(moved, cheapest(moved, 50), 50, meta={"price_usd_per_hour": {"h100-sxm": 2.0, "l4": 0.75}}) == [
        "at the profiles' prices now (h100-sxm $3.00 a device-hour), the speculation pick of the table's batches stays, at $1.50 per million "
        "tokens (the table's $1.00; a sweep again prices the batches between, where "
        "another device's may come out cheaper)"]


@pytest.mark.slow
def test_a_point_computed_now_on_another_configuration_than_the_pick_says_so(tmp_path, roofline):
    """qa431: 'between swept batches, computed now: ... on mi300x' under a plain pick on mi325x read as that pick
    refined at another batch."""
    _swept(tmp_path, roofline, "name: c3\nhardware: [mi300x, mi325x]\nmodel: minimax-m2.7\ntp: 4\nprompt: 2000\n"
                               "output_len: 500\naxes:\n  batch: {start: 1, stop: 2048, num: 45, log: true}\n")
    # (35 tokens/s since session 68's QK-norm all-reduce of MiniMax: at 25 the pick and the point between batches were
    # both on mi325x)
    code, out, err = roofline("cheapest", tmp_path / "sw", "--serving", "--min-tokens-per-user", "35")
    lines = out.splitlines()
    i = next(i for i, line in enumerate(lines) if line.startswith("  plain        $"))
    pick, now = (re.search(r"on (\S+) x \d", line)[1] for line in lines[i:i + 2])
    assert code == 0 and pick != now and ", another configuration, computed now: $" in lines[i + 1], lines[i:i + 2]
    code, out, err = roofline("cheapest", tmp_path / "sw", "--serving", "--min-tokens-per-user", "35", "--where",
                              f"hardware={pick}")  # one configuration: its own point between batches
    line = next(x for x in out.splitlines() if "computed now: $" in x)
    assert code == 0 and "another configuration" not in line and line.lstrip().startswith("between swept batches, computed now"), line
    # the same read from results.csv, a dense model's expert dtype NaN there (qa436: 'another configuration' of the pick's own)
    (tmp_path / "dense").mkdir()
    _swept(tmp_path / "dense", roofline, "name: csvp\nhardware: [h200, mi325x]\nmodel: llama-3.1-70b\nmethod: none\ntp: 4\n"
                                         "axes:\n  batch: [16, 64, 256]\n  context: [4096]\n")
    code, out, err = roofline("cheapest", tmp_path / "dense" / "sw" / "results.csv", "--min-tokens-per-user", "30")
    line = next(x for x in out.splitlines() if "computed now: $" in x)
    assert code == 0 and line.lstrip().startswith("between swept batches, computed now: $"), line


MM_SCENARIO = ("name: mm\nhardware: mi300x\nmodel: minimax-m2.7\nmethod: none\nengine: sglang\nweight_dtype: bf16\n"
               "layouts: [{tp: 8, ep: 8}, {tp: 8}]\naxes:\n  batch: [1, 64, 1024, 2048]\n  context: [256]\n")


@pytest.mark.slow
def test_speeds_asked_are_written_as_given_and_the_frontiers_miss_is_of_the_layout_it_names(tmp_path, roofline):
    """qa437's survivors: MiniMax-M2.7 on 8 MI300X under sglang at tp 8, ep 8 (inside sglang's known miss from batch
    1,024) and at tp 8 alone (outside it). A speed asked is written as given (0.00001, not 1e-05; 1e+15 from 10^15) in
    every line that says it; the frontier's known-miss note is of the rows at the layout the miss names, and only
    where there is no pick."""
    _swept(tmp_path, roofline, MM_SCENARIO)
    swept = tmp_path / "sw"
    code, out, err = roofline("cheapest", swept)
    said = [line for line in out.splitlines() if "a known miss of engine sglang" in line]
    assert code == 0 and len(said) == 1 and said[0].startswith(
        "note: the frontier's plain rows at batch 1,024 and 2,048 (minimax-m2.7 on mi300x x 8 (tp 8, ep 8), sglang): "), out
    code, out, err = roofline("cheapest", swept, "--where", "ep=1")  # tp 8 alone: its rows are outside it
    assert code == 0 and "tp 8 " in out and "known miss" not in out, out
    code, out, err = roofline("cheapest", swept, "--min-tokens-per-user", "0.00001", "--users", "3000")
    assert code == 0 and out.startswith("cheapest at 0.00001 tokens/s per user or faster ("), out + err
    assert "\ncheapest fleet for 3,000 users at once at 0.00001 tokens/s per user or faster (" in out
    assert "the cheapest plain point at 0.00001 tokens/s per user of another deployment that no such miss matches" in out
    assert "1e-05" not in out and "note: the plain pick: a known miss of engine sglang" in out
    assert not [line for line in out.splitlines() if line.startswith("note: the frontier's")], out  # a pick says it
    code, out, err = roofline("cheapest", swept, "--min-tokens-per-user", "1000000000000000", "--users", "10")
    assert code == 1 and out.startswith("cheapest at 1e+15 tokens/s per user or faster ("), out + err
    assert "\ncheapest fleet for 10 users at once at 1e+15 tokens/s per user or faster (" in out


@pytest.mark.slow
def test_a_tp_written_as_4_0_is_the_same_configuration_as_a_point_computed_at_tp_4(tmp_path, roofline):
    """qa437's survivor of qa436's change: a results.csv whose tp reads 4.0 (re-saved by pandas or a spreadsheet) still
    says the point computed now between swept batches is the pick's own configuration."""
    _swept(tmp_path, roofline, "name: csvp\nhardware: [h200, mi325x]\nmodel: llama-3.1-70b\nmethod: none\ntp: 4\n"
                               "axes:\n  batch: [16, 64, 256]\n  context: [4096]\n")
    path = tmp_path / "sw" / "results.csv"
    pd.read_csv(path).astype({"tp": float, "pp": float}).to_csv(path, index=False)
    assert "4.0" in path.read_text().splitlines()[1]
    code, out, err = roofline("cheapest", path, "--min-tokens-per-user", "30")
    line = next(x for x in out.splitlines() if "computed now: $" in x)
    assert code == 0 and line.lstrip().startswith("between swept batches, computed now: $"), line
    assert "another configuration" not in line and "on mi325x x 4 (tp 4), vllm" in line, line


@pytest.mark.slow
def test_a_pick_with_its_drafter_on_a_device_of_its_own_says_no_engine_runs_that_placement():
    """qa466: cheapest picked a 70B target on 4 H100 with its 1B draft on an H100 of its own, which the sweep warns no
    shipped engine runs (each runs a drafter in the target's worker), and said nothing of it."""
    from roofline.frontier import pick_notes
    from roofline.grid import load_configs, run_sweep
    from roofline.scenario import scenario_from_dict

    sc = scenario_from_dict({"name": "drafthw", "hardware": "h100-sxm", "model": "llama-3.1-70b", "tp": 4, "method": "draft",
                             "draft": "llama-3.2-1b", "draft_hardware": ["l4", None],
                             "axes": {"batch": [8, 32], "context": [4096], "k": [3], "alpha": [0.8]}}, "d.yaml")
    df = run_sweep(sc, load_configs(sc))
    on_l4 = df[df["draft_hardware"] == "l4"].iloc[0]
    (said,) = [n for n in pick_notes({"speculation": on_l4}) if "what-if" in n]
    assert said.startswith("the speculation pick: a drafter on a device of its own (l4) is a what-if under vllm: vLLM, "
                           "SGLang and TensorRT-LLM run a drafter on the target's own devices"), said
    on_target = df[df["draft_hardware"] == ""].iloc[0]
    assert not [n for n in pick_notes({"speculation": on_target}) if "what-if" in n]
