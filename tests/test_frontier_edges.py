"""Edge cases of the cost frontier and cheapest's answer (frontier.py): which rows stay on the frontier, a speed asked
reached exactly, refine's points between swept batches, the notes on repriced picks and fleets and on the size of a
known miss that would reverse an answer (qa434: mutation testing of frontier.py, 50 mutants; these kill its
survivors)."""

import warnings

import pandas as pd
import pytest

import roofline as api
from roofline.frontier import (
    REFINE_GAIN_MIN,
    answer,
    cheapest,
    cost_frontier,
    frontier_notes,
    miss_margin_notes,
    prefill_share_note,
    refine,
    refused_layouts,
    repriced_pick_notes,
)
from roofline.hardware import load_hardware


def _rows(*rows, **extra):
    columns = ("tokens_per_s_per_user", "cost_usd_per_million_tokens", "fits_in_memory", "method", "k", "alpha", "batch")
    base = {"hardware": "h100-sxm", "model": "m", "engine": "vllm", "context": 4096, "tp": 1, "devices": 1,
            "tokens_per_s_per_device": 1.0, **extra}
    return pd.DataFrame([{**base, **dict(zip(columns, r))} for r in rows])


def test_a_slower_row_as_cheap_as_a_faster_one_is_not_on_the_frontier():
    """The module's rule: a row is kept where its cost is BELOW every faster row's; one that only ties a faster row's
    cost is dominated (as fast or slower for the same money)."""
    df = _rows((100, 5.0, True, "none", 0, None, 1), (80, 5.0, True, "none", 0, None, 2), (60, 4.0, True, "none", 0, None, 4))
    frontier = cost_frontier(df)
    assert list(frontier["batch"]) == [1, 4] and list(frontier["cost_usd_per_million_tokens"]) == [5.0, 4.0]


def test_of_two_rows_equally_fast_only_the_cheaper_is_on_the_frontier():
    df = _rows((100, 6.0, True, "none", 0, None, 1), (100, 5.0, True, "none", 0, None, 2), (50, 4.0, True, "none", 0, None, 4))
    frontier = cost_frontier(df)
    assert list(frontier["batch"]) == [2, 4] and list(frontier["cost_usd_per_million_tokens"]) == [5.0, 4.0]


def test_a_row_exactly_as_fast_as_asked_reaches_the_speed():
    """cheapest(df, speed): the cheapest row AT LEAST `speed` tokens/s per user (--min-tokens-per-user): a row at
    exactly 80 tokens/s per user reaches 80."""
    df = _rows((100, 5.0, True, "none", 0, None, 1), (80, 4.0, True, "none", 0, None, 2),
               (120, 3.0, True, "eagle", 3, 0.8, 1), (80, 2.0, True, "eagle", 3, 0.8, 4))
    picks = cheapest(df, 80)
    assert picks["plain"]["batch"] == 2 and picks["plain"]["cost_usd_per_million_tokens"] == 4.0
    assert picks["speculation"]["batch"] == 4 and picks["speculation"]["cost_usd_per_million_tokens"] == 2.0


@pytest.mark.slow
def test_a_plain_point_at_exactly_its_largest_batch_that_fits_is_priced():
    """A speculative row's plain point fits where its batch is at most baseline_max_batch (frontier.plain_fits): at
    batch 64 with baseline_max_batch 64 it fits, and is the plain pick."""
    df = _rows((200, 2.0, True, "eagle", 2, 0.8, 1), (150, 0.5, True, "eagle", 2, 0.8, 64))
    df = df.assign(baseline_tokens_per_s_per_user=[100, 60], baseline_cost_usd_per_million_tokens=[3.0, 1.0],
                   baseline_max_batch=[64, 64])
    frontier = cost_frontier(df)
    assert list(frontier.loc[frontier["decoding"] == "plain", "batch"]) == [1, 64]
    assert cheapest(df, 50)["plain"]["cost_usd_per_million_tokens"] == 1.0


def test_a_serving_pick_at_batch_1_waits_behind_no_other_prefill():
    """prefill_share_note: one request in flight (batch 1) waits behind no other's prefill, so nothing is said
    however much of the device's time its own prefill takes (predict says nothing there either)."""
    one = {"plain": pd.Series({"tokens_per_s": 20.0, "decoding_tokens_per_s": 100.0, "batch": 1})}
    assert prefill_share_note(one) == ""
    two = {"plain": pd.Series({"tokens_per_s": 20.0, "decoding_tokens_per_s": 100.0, "batch": 2})}
    assert prefill_share_note(two).startswith("arriving prompts' prefills take over half of the devices' time (80% at the plain pick)")


@pytest.mark.slow
def test_the_idle_attention_group_note_counts_only_rows_below_their_dp_degree():
    """A frontier row at batch 8 under dp_attention 8 gives each group one sequence: no group idles."""
    full = _rows((100, 1.0, True, "none", 0, None, 8), dp_attention=8, devices=8)
    assert not any("idle groups" in n for n in frontier_notes(full))
    idle = _rows((100, 1.0, True, "none", 0, None, 4), dp_attention=8, devices=8)
    assert any(n.startswith("1 frontier row runs fewer sequences than attention data-parallel groups") for n in frontier_notes(idle))


@pytest.mark.slow
def test_a_table_of_ngram_alone_is_not_said_to_share_an_alpha_with_another_method():
    df = _rows((100, 3.0, True, "none", 0, None, 1), (150, 2.0, True, "ngram", 3, 0.6, 1))
    assert not any(n.startswith("n-gram lookup shares an alpha") for n in frontier_notes(df))
    both = pd.concat([df, _rows((160, 2.5, True, "eagle", 3, 0.6, 1))], ignore_index=True)
    assert any(n.startswith("n-gram lookup shares an alpha with eagle:") for n in frontier_notes(both))


@pytest.mark.slow
def test_a_hand_table_with_no_baseline_columns_is_not_told_it_lacks_some():
    """The note on missing baseline columns is for a table that has some of them (cut or edited), not a hand table
    with none."""
    df = _rows((100, 3.0, True, "none", 0, None, 1), (150, 2.0, True, "eagle", 3, 0.8, 1))
    assert not any(n.startswith("the table has no") for n in frontier_notes(df))
    partial = df.assign(baseline_tokens_per_s_per_user=[100, 100])
    assert any(n.startswith("the table has no baseline_cost_usd_per_million_tokens, baseline_max_batch column") for n in frontier_notes(partial))


@pytest.mark.slow
def test_a_plain_point_is_repriced_without_the_drafters_device():
    """A row drafting on an L4 (swept at $5.00, $0.75 now): its speculative cost moves with the L4's price, 1.1 x
    (3 + 0.75) / (3 + 5) = $0.516, and is said; its plain point runs on the H100 alone (the drafter idle, unrented),
    whose price has not moved: its cost stays $2.00 and nothing is said of the plain pick."""
    df = _rows((60, 1.1, True, "draft", 3, 0.8, 8), draft_hardware="l4", baseline_tokens_per_s_per_user=40.0,
               baseline_cost_usd_per_million_tokens=2.0, baseline_max_batch=100)
    meta = {"price_usd_per_hour": {"h100-sxm": 3.0, "l4": 5.0}}
    picks = cheapest(df, 30)
    assert picks["plain"]["cost_usd_per_million_tokens"] == 2.0
    notes = repriced_pick_notes(df, picks, 30, meta=meta)
    assert notes == ["at the profiles' prices now (l4 $0.75 a device-hour), the speculation pick of the table's batches stays, at $0.516 per "
                     "million tokens (the table's $1.10; a sweep again prices the batches between, "
                     "where another device's may come out cheaper)"], notes


@pytest.mark.slow
def test_a_repriced_pick_names_its_layouts_devices_not_its_tp():
    """A pick under attention data parallelism (tp 1, dp-attention 8) runs on 8 devices, and is named 'x 8' (its
    `devices`, as the frontier's table counts them), not 'x 1'. H100 swept at $1.00, $3.00 now: its row's $1.20 becomes
    $3.60, above the B200 row's $1.50 (B200 at its profile's $6.00 then and now)."""
    df = _rows((60, 1.5, True, "none", 0, None, 64), (60, 1.2, True, "none", 0, None, 32), tp=1, dp_attention=8, devices=8)
    df["hardware"] = ["b200", "h100-sxm"]
    picks = cheapest(df, 50)
    assert picks["plain"]["hardware"] == "h100-sxm"
    notes = repriced_pick_notes(df, picks, 50, meta={"price_usd_per_hour": {"h100-sxm": 1.0, "b200": 6.0}})
    assert notes == ["at the profiles' prices now (h100-sxm $3.00 a device-hour), the plain pick of the table's rows would "
                     "be m on b200 x 8 (tp 1, dp-attention 8), vllm, batch 64 at $1.50 per million tokens (60.0 tokens/s "
                     "per user; the table's costs repriced: a sweep again prices the batches between)"], notes


@pytest.mark.slow
def test_a_point_between_swept_batches_is_shown_only_where_it_is_at_least_half_a_percent_cheaper():
    """refine's docstring: the point computed now is returned where it is at least REFINE_GAIN_MIN (0.5%) cheaper
    than the table's cheapest. Llama 3.1 8B on one H100 swept at batch 300 and 320: at batch 301's speed, batch 301, the largest
    batch that reaches it, is under 0.5% cheaper than batch 300 (not shown); swept at 30 and 40, batch 39 is far cheaper than 30
    (shown, at that batch)."""
    every = api.sweep({"name": "g", "hardware": "h100-sxm", "model": "llama-3.1-8b", "tp": 1,
                       "axes": {"batch": [30, 39, 40, 300, 301, 320], "context": [1024]}})
    cost = every.set_index("batch")["cost_usd_per_million_tokens"]
    speed = every.set_index("batch")["tokens_per_s_per_user"]
    assert 0 < 1 - cost[301] / cost[300] < REFINE_GAIN_MIN  # the case: cheaper, but by less than the gate
    near = refine(every[every["batch"].isin([300, 320])], float(speed[301]))["plain"]
    assert near["row"] is None and near["notes"] == []
    assert 1 - cost[39] / cost[30] > REFINE_GAIN_MIN
    far = refine(every[every["batch"].isin([30, 40])], float(speed[39]))["plain"]
    assert far["row"] is not None and int(far["row"]["batch"]) == 39 and far["place"] == "between"


def test_configs_refine_could_not_price_are_listed_three_and_counted_beyond():
    """Five configs whose hardware profile is gone: three named, 'and 2 more'."""
    rows = [{"hardware": f"gone{i}", "model": "llama-3.1-8b", "engine": "vllm", "context": 4096, "tp": 1, "devices": 1,
             "tokens_per_s_per_user": v, "cost_usd_per_million_tokens": c, "fits_in_memory": True, "method": "none",
             "k": 0, "alpha": None, "batch": b}
            for i in range(5) for b, v, c in ((1, 100.0, 5.0 + i), (4, 10.0, 1.0))]
    (note,) = refine(pd.DataFrame(rows), 50)["plain"]["notes"]
    assert note.startswith("plain points at unswept batches not priced: llama-3.1-8b on gone0 (tp 1, vllm, context 4,096) "
                           "batch 2-3: hardware: unknown hardware 'gone0'")
    assert note.count("unknown hardware") == 3 and note.endswith("; and 2 more"), note


def _sweep_refused(scenario):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = api.sweep(scenario)
    return df, refused_layouts(df)[0]


@pytest.mark.slow
def test_a_slower_miss_is_weighed_against_the_cheapest_other_deployment_fast_enough():
    """At 30 tokens/s per user the pick is MI300X (inside its slower miss); the other deployment it is weighed against
    is H200's CHEAPEST swept row at least that fast, and the note says how much more that costs."""
    df, refused = _sweep_refused({"name": "c", "hardware": ["mi300x", "h200"], "model": "deepseek-v3", "tp": 8, "engine": "sglang",
                          "axes": {"batch": [1, 2, 4, 8, 16, 32, 64], "context": [4096]}})
    picks = cheapest(df, 30.0, refused)
    pick = picks["plain"]
    assert pick["hardware"] == "mi300x"
    h200 = df[(df["hardware"] == "h200") & (df["tokens_per_s_per_user"] >= 30.0)]
    other = h200.loc[h200["cost_usd_per_million_tokens"].idxmin()]
    more = other["cost_usd_per_million_tokens"] / pick["cost_usd_per_million_tokens"] - 1
    (note,) = miss_margin_notes(df, picks, 30.0, refused, (), {})
    assert (f"(deepseek-v3 on h200 x 8 (tp 8), sglang, batch {int(other['batch'])}) costs {more:.1%} more than it"
            in note), note


def _faster_case():
    df, refused = _sweep_refused({"name": "g", "hardware": ["b200", "h200"], "model": "gpt-oss-120b", "engine": "sglang",
                          "layouts": [{"tp": 8}, {"tp": 4}], "axes": {"batch": [1, 2, 4, 8], "context": [4096]}})
    first = df[df["batch"] == 1]
    return first, refused, cheapest(first, 200.0, refused)


@pytest.mark.slow
def test_a_faster_miss_names_the_deployment_that_holds_longest_and_says_how_long_the_prediction_runs():
    """Both B200 layouts are dearer than the H200 pick and inside the faster miss. trade_ratio of each at batch 1:
    r = min(v / 200, c_pick / c). The note names the one with the HIGHEST r (the smallest miss that makes it cheaper),
    and says r and how much longer the predicted step is than one measured at r: 1 / r - 1."""
    first, refused, picks = _faster_case()
    pick = picks["plain"]
    assert pick["hardware"] == "h200"
    b200 = first[first["hardware"] == "b200"]
    ratios = {int(r["tp"]): min(r["tokens_per_s_per_user"] / 200.0, pick["cost_usd_per_million_tokens"] / r["cost_usd_per_million_tokens"])
              for _, r in b200.iterrows()}
    tp, r = max(ratios.items(), key=lambda kv: kv[1])
    assert 0.5 <= r < 1 and min(ratios.values()) < r  # two deployments in the miss, one holding longer
    (note,) = miss_margin_notes(first, picks, 200.0, refused, (), {})
    assert note.startswith(f"gpt-oss-120b on b200 x {tp} (tp {tp}), sglang is at points where a known miss"), note
    assert f"steps of that deployment measured {r:.3f}x the predicted or less (the predicted {1 / r - 1:.1%} long)" in note, note


@pytest.mark.slow
def test_a_faster_miss_over_several_batches_names_the_batch_that_holds_longest(tmp_path):
    """A user's copy of sglang whose gpt-oss faster miss on B200 covers batch 1-8 (the shipped one covers batch 1
    alone): at 240 tokens/s per user the H200 pick (at batch 8) is beaten by B200's points in the miss while
    r <= min(v / 240, c_pick / c) at each; the note names the batch where that is largest (batch 8 here), and its r."""
    from roofline.profiles import builtin_dir

    text = (builtin_dir("engine") / "sglang.yaml").read_text()
    text = text.replace("name: sglang", "name: sg-wide", 1)
    miss = text.index("models: [gpt-oss*]")
    assert text[miss:].index("batch: [1, 1]") < 200
    text = text[:miss] + text[miss:].replace("batch: [1, 1]", "batch: [1, 8]", 1)
    (tmp_path / "sg-wide.yaml").write_text(text)
    dirs = (str(tmp_path),)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = api.sweep({"name": "g", "hardware": ["b200", "h200"], "model": "gpt-oss-120b", "tp": 8, "engine": "sg-wide",
                        "axes": {"batch": [1, 2, 4, 8, 16], "context": [4096]}}, dirs)
    refused = refused_layouts(df, dirs)[0]
    picks = cheapest(df, 240.0, refused)
    pick = picks["plain"]
    assert pick["hardware"] == "h200"
    b200 = df[(df["hardware"] == "b200") & (df["batch"] <= 8)]
    holds = {int(r["batch"]): min(r["tokens_per_s_per_user"] / 240.0, pick["cost_usd_per_million_tokens"] / r["cost_usd_per_million_tokens"])
             for _, r in b200.iterrows()}
    batch, r = max(holds.items(), key=lambda kv: kv[1])
    assert batch != min(holds, key=holds.get)  # the case: the batch that holds longest is not the one that holds least
    (note,) = miss_margin_notes(df, picks, 240.0, refused, dirs, {})
    assert f"measured {r:.3f}x the predicted or less" in note and f"make it, at batch {batch:,}, cheaper than the plain pick" in note, note


def _quiet_sweep(scenario):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return api.sweep(scenario)


@pytest.mark.slow
def test_a_fleet_computed_now_that_ties_the_swept_one_wins_on_cost_per_token():
    """Llama 3.1 8B at an 8k context, 10 users at 75 tokens/s each. On one H200, bf16 KV swept at batch 10 (fast
    enough) and fp8 KV swept at batch 64 (too slow); on one B200, fp8 KV at batch 64 (fast enough, the cheapest per
    token: the per-token pick, and nothing between swept batches beats it). For 10 users one H200 (its price an hour)
    beats one B200; bf16's batch 10 and fp8's batch 10 (below its swept 64, computed now) each serve them on that one
    H200: a tie, which the least cost per token settles: fp8's (its smaller KV reads)."""
    h200 = _quiet_sweep({"name": "t", "hardware": "h200", "model": "llama-3.1-8b", "kv_dtype": ["bf16", "fp8"],
                   "axes": {"batch": [10, 64], "context": [8192]}})
    b200 = _quiet_sweep({"name": "t", "hardware": "b200", "model": "llama-3.1-8b", "kv_dtype": "fp8",
                   "axes": {"batch": [64], "context": [8192]}})
    df = pd.concat([h200[((h200["kv_dtype"] == "bf16") & (h200["batch"] == 10))
                         | ((h200["kv_dtype"] == "fp8") & (h200["batch"] == 64))], b200], ignore_index=True)
    bf16 = df[(df["hardware"] == "h200") & (df["kv_dtype"] == "bf16")].iloc[0]
    slow = df[(df["hardware"] == "h200") & (df["kv_dtype"] == "fp8")].iloc[0]
    speed = 75.0
    assert slow["tokens_per_s_per_user"] < speed < min(bf16["tokens_per_s_per_user"], b200["tokens_per_s_per_user"].iloc[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = answer(df, speed, users=10)
    assert got["picks"]["plain"]["hardware"] == "b200" and got["refined"]["plain"]["row"] is None
    fleet = got["fleet"]["plain"]
    price = load_hardware("h200").price_usd_per_hour
    assert fleet["replicas"] == 1 and fleet["devices"] == 1 and fleet["usd_per_hour"] == price  # one H200
    row = fleet["row"]
    assert fleet["computed_now"] and row["hardware"] == "h200" and row["kv_dtype"] == "fp8" and int(row["batch"]) == 10
    assert row["tokens_per_s_per_user"] >= speed and row["cost_usd_per_million_tokens"] < bf16["cost_usd_per_million_tokens"]


@pytest.mark.slow
def test_a_config_whose_swept_batch_already_serves_every_user_in_one_replica_is_not_said_unpriced():
    """10 users, a config swept at batch 10 (fast enough; memory holds 100): one replica of it serves them all, so its
    batches above 10 cannot make a cheaper fleet: nothing is said of them not being priced for the fleet (its
    hardware profile gone, they could not be), though the per-token search says so of its own."""
    from roofline.frontier import answer as cheapest_answer

    df = pd.DataFrame([{"hardware": "gone0", "model": "llama-3.1-8b", "engine": "vllm", "context": 4096, "tp": 1,
                        "devices": 1, "tokens_per_s_per_user": 100.0, "cost_usd_per_million_tokens": 2.0,
                        "tokens_per_s": 1000.0, "fits_in_memory": True, "method": "none", "k": 0, "alpha": None,
                        "batch": 10, "max_batch": 100, "baseline_max_batch": 100}])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = cheapest_answer(df, 50.0, users=10)
    assert got["fleet"]["plain"]["replicas"] == 1
    assert any(n.startswith("plain points at unswept batches not priced: llama-3.1-8b on gone0") for n in got["notes"])
    assert not any(n.startswith("the plain fleet: batches not swept") for n in got["notes"]), got["notes"]
