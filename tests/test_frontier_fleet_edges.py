"""frontier.py behaviour the suite did not pin (qa458's mutation round) (mutation survivors): fleet rents that tie at a hundredth of a
cent, a plain point's own memory cap, refine's table prices across configs, the per-token pick a fleet is compared
with, tie prices that are no price, repricing a k = 0 row, a serving plain point's throughput, a drafter's rent read
back, notes that count a row once, and check_table's cells (each test gives the rule it pins and its hand computation)."""

from __future__ import annotations

import pandas as pd
import pytest


def _rows(*rows, **columns):
    """Plain rows (method none, k 0) of one model on h100-sxm: (tokens/s per user, USD per million tokens, batch)."""
    base = {"hardware": "h100-sxm", "model": "m", "engine": "vllm", "context": 4096, "tp": 1, "devices": 1,
            "fits_in_memory": True, "method": "none", "k": 0, "alpha": float("nan")}
    df = pd.DataFrame([{**base, "tokens_per_s_per_user": v, "cost_usd_per_million_tokens": c, "batch": b}
                       for v, c, b in rows])
    for name, values in columns.items():
        df[name] = values
    return df


@pytest.mark.slow
def test_fleet_rents_read_back_from_rounded_costs_tie_at_a_hundredth_of_a_cent():
    """Without the sweep's prices a rent is read back as cost x tokens/s x 3600 / 1e6: 0.55555561 x 1000 x 0.0036 =
    $2.0000002 an hour on 1 device, 0.55555550 x 1000 x 0.0036 = $1.9999998 on 2: one rent of $2.00, the cost digits
    apart. Rounded to a hundredth of a cent before it is multiplied the two tie at 1,000 replicas (100,000 users at
    batch 100: $2,000.00 an hour each, not $2,000.0002 and $1,999.9998), and the fewer devices win (fleet_picks' order)."""
    from roofline.frontier import fleet_picks

    df = _rows((10.0, 2.0000002 / 3.6, 100), (10.0, 1.9999998 / 3.6, 100), devices=[1, 2], tp=[1, 2],
               tokens_per_s=[1000.0, 1000.0])
    fleet = fleet_picks(df, 5.0, 100_000)["plain"]
    assert fleet["replicas"] == 1000 and fleet["devices"] == 1000
    assert round(fleet["usd_per_hour"], 2) == 2000.0  # said to the cent: the read-back rents' 1e-7 apart


def _spec_rows(*rows):
    """Speculative rows (eagle k 3 at alpha 0.8) with the plain point each carries: (tokens/s per user, cost, fits,
    batch, baseline tokens/s per user, baseline cost, baseline_max_batch)."""
    base = {"hardware": "h100-sxm", "model": "m", "engine": "vllm", "context": 4096, "tp": 1, "devices": 1,
            "method": "eagle", "k": 3, "alpha": 0.8}
    keys = ("tokens_per_s_per_user", "cost_usd_per_million_tokens", "fits_in_memory", "batch",
            "baseline_tokens_per_s_per_user", "baseline_cost_usd_per_million_tokens", "baseline_max_batch")
    return pd.DataFrame([{**base, **dict(zip(keys, r))} for r in rows])


def test_a_plain_point_fits_by_its_own_cap_where_its_speculative_row_does_not():
    """A speculative row at batch 8 that does not fit (the drafter's weights, k + 1 tokens a sequence) carries a plain
    point that does (8 <= baseline_max_batch 10): the plain frontier and pick hold it, at its baseline speed and
    cost; the speculative pick is the row that fits."""
    from roofline.frontier import cheapest, cost_frontier

    df = _spec_rows((90.0, 1.0, True, 4, 60.0, 1.5, 10), (70.0, 0.6, False, 8, 50.0, 0.9, 10))
    frontier = cost_frontier(df)
    plain = frontier[frontier["decoding"] == "plain"]
    assert list(plain["batch"]) == [4, 8] and list(plain["cost_usd_per_million_tokens"]) == [1.5, 0.9]
    picks = cheapest(df, 45.0)
    assert picks["plain"]["batch"] == 8 and picks["plain"]["tokens_per_s_per_user"] == 50.0
    assert picks["speculation"]["batch"] == 4 and picks["speculation"]["cost_usd_per_million_tokens"] == 1.0


def _checked_rows(**cells):
    """Two plain rows and one speculative row cheapest accepts, with `cells` replacing the first row's."""
    df = _rows((60.0, 1.0, 1), (40.0, 0.75, 2), (80.0, 0.5, 4), tokens_per_s=[60.0, 80.0, 320.0],
               method=["none", "none", "eagle"], k=[0, 0, 3], alpha=[float("nan"), float("nan"), 0.8])
    for column, value in cells.items():
        df[column] = df[column].astype(object)
        df.loc[0, column] = value
    return df


def test_a_fractional_count_in_a_table_is_one_line():
    """batch 2.5 (a hand-edited table) is no count a sweep writes: 'expected a whole number', the cell as found."""
    from roofline.errors import RooflineError
    from roofline.frontier import check_table

    with pytest.raises(RooflineError, match=r"^t\.csv: batch: expected a whole number in 1\.\.2,147,483,647, found 2\.5 \(line 2\)$"):
        check_table(_checked_rows(batch=2.5), "t.csv")


def test_an_acceptance_rate_of_one_is_a_rate():
    """alpha in [0, 1]: 1.0 (every draft token accepted) is taken, 1.01 refused."""
    from roofline.errors import RooflineError
    from roofline.frontier import check_table

    df = _checked_rows()
    df.loc[2, "alpha"] = 1.0
    check_table(df, "t.csv")
    df.loc[2, "alpha"] = 1.01
    with pytest.raises(RooflineError, match=r"^t\.csv: alpha: expected an acceptance rate in \[0, 1\], or nothing, found 1\.01 \(line 4\)$"):
        check_table(df, "t.csv")


def test_refine_compares_points_of_two_configs_at_the_tables_prices(monkeypatch):
    """A point computed now is priced at the table's prices: its cost now x (the swept batch's table cost / its cost
    now). h200's gap point costs $3 now at an unchanged price (scale 9 / 9 = 1); h100-sxm's $2 now where its price
    has halved since the sweep (scale 10 / 5 = 2): $4 at the table's prices. The cheaper is h200's, $3, whatever the
    order the gaps are swept in."""
    import roofline.frontier as frontier

    df = pd.concat([_rows((100.0, 10.0, 1), (20.0, 3.0, 8)), _rows((100.0, 9.0, 1), (20.0, 2.5, 8), hardware="h200")],
                   ignore_index=True)
    now_cost = {"h100-sxm": {1: 5.0, 4: 2.0}, "h200": {1: 9.0, 4: 3.0}}

    def reproduced(row, kind, speculative, meta, batches, extra_dirs, order, serving=False):
        costs = now_cost[row["hardware"]]
        return pd.DataFrame([{**row.to_dict(), "batch": b, "tokens_per_s_per_user": {1: 100.0, 4: 60.0}[b],
                              "cost_usd_per_million_tokens": c, "fits_in_memory": True} for b, c in costs.items()])

    monkeypatch.setattr(frontier, "_reproduced", reproduced)
    for order in (df, df.iloc[::-1]):
        got = frontier.refine(order.reset_index(drop=True), 50.0)["plain"]["row"]
        assert got is not None and got["hardware"] == "h200" and got["batch"] == 4
        assert got["cost_usd_per_million_tokens"] == pytest.approx(3.0)


@pytest.mark.slow
def test_the_per_token_pick_a_fleet_is_compared_with_is_the_point_computed_now(tmp_path, roofline):
    """cheapest --users says what 'the pick by cost per token above' needs for the users where it differs from the
    fleet; where a point computed now between the swept batches is cheaper, that point is the pick said above it
    (frontier.answer's f['pick']). Here the plain point computed now is h200 at a batch of 50 or more (2 replicas for
    100 users, 2 x $4.50 = $9.00 an hour, 2 devices): the fleet's own rent and devices, so no such line; the swept
    pick, h100-sxm at batch 32, would need ceil(100 / 32) = 4 replicas, $12.00 an hour."""
    import json

    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: f\nhardware: [h100-sxm, h200]\nmodel: llama-3.1-8b\naxes:\n  batch: [1, 8, 32, 64]\n"
                        "  context: [4096]\n")
    assert roofline("sweep", scenario, "--out", tmp_path / "sw", "--no-plots")[0] == 0
    prices = json.loads((tmp_path / "sw" / "scenario.json").read_text())["price_usd_per_hour"]
    assert prices == {"h100-sxm": 3.0, "h200": 4.5}
    code, out, err = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "60", "--users", "100")
    assert code == 0, err
    assert "between swept batches, another configuration, computed now" in out and "on h200" in out
    assert "  plain        $9.00 an hour, 2 replicas, 2 devices, each:" in out
    assert "the pick by cost per token above" not in out, out


def test_no_tie_price_where_the_pick_stays_cheaper_at_every_price():
    """tie_price_usd_per_hour: a pick on h100-sxm at $1 per million tokens ($3 a device-hour: 3 M tokens an hour)
    against h200 at $2 ($4.50: 2.25 M tokens an hour) ties where P / 3 = 2, at P = $6. Against an h200 row drafting on
    h100-sxm at $3 per million tokens ($7.50 an hour: 2.5 M tokens) the two tie at P / 3 = (4.5 + P) / 2.5, P = -$27,
    and on h200's price at -$0.50: no positive price ties them, None (the note is left out), never a negative price."""
    from roofline.frontier import tie_price_usd_per_hour

    prices = {"h100-sxm": 3.0, "h200": 4.5}
    pick = pd.Series({"hardware": "h100-sxm", "tp": 1, "devices": 1, "draft_hardware": "", "cost_usd_per_million_tokens": 1.0})
    rival = pd.Series({"hardware": "h200", "tp": 1, "devices": 1, "draft_hardware": "", "cost_usd_per_million_tokens": 2.0})
    assert tie_price_usd_per_hour(pick, rival, "h100-sxm", prices) == pytest.approx(6.0)
    drafting = rival.copy()
    drafting["draft_hardware"], drafting["cost_usd_per_million_tokens"] = "h100-sxm", 3.0
    assert tie_price_usd_per_hour(pick, drafting, "h100-sxm", prices) is None
    assert tie_price_usd_per_hour(pick, drafting, "h200", prices) is None


def test_a_k_0_row_of_a_drafting_method_is_repriced_without_the_drafters_device():
    """A sweep with k [0, 3] on an L4 drafter (swept at $5.00, $0.75 now; the H100 $3.00 then and now): the k = 3 row's
    cost moves as (3 + 0.75) / (3 + 5), $1.10 to $0.515625; the k = 0 row drafts nothing, rents the H100 alone, and
    stays $2.00 (repriced: a drafter's device counts while it drafts, k > 0)."""
    from roofline.frontier import repriced

    df = _rows((40.0, 2.0, 8), (60.0, 1.1, 8), method=["draft", "draft"], k=[0, 3], alpha=[float("nan"), 0.8],
               draft_hardware=["l4", "l4"])
    table, now, said = repriced(df, {"price_usd_per_hour": {"h100-sxm": 3.0, "l4": 5.0}})
    assert now == {"h100-sxm": 3.0, "l4": 0.75} and said == "(l4 $0.75 a device-hour)"
    assert table["cost_usd_per_million_tokens"].tolist() == pytest.approx([2.0, 1.1 * 3.75 / 8.0])


def test_a_serving_plain_points_throughput_a_device_is_its_serving_throughput():
    """In cheapest --serving's view a plain point drawn from a speculative row makes baseline_serving_tokens_per_s
    (300 tokens/s here: the prefills of arriving prompts take device time), not its per-user speed x batch (1 / 0.02 s x
    8 = 400): its tokens_per_s_per_device on 2 devices is 150 (qa356)."""
    from roofline.frontier import cost_frontier, serving_view

    df = _spec_rows((90.0, 1.0, True, 8, 60.0, 1.5, 10)).assign(
        tp=2, devices=2, tokens_per_s=720.0, baseline_tokens_per_s=480.0, tokens_per_s_per_device=360.0,
        serving_time_per_output_token_s=0.0125, baseline_serving_time_per_output_token_s=0.02,
        serving_cost_usd_per_million_tokens=1.2, baseline_serving_cost_usd_per_million_tokens=1.8,
        serving_tokens_per_s=500.0, baseline_serving_tokens_per_s=300.0, serving_speedup=1.6)
    frontier = cost_frontier(serving_view(df, "t"))
    plain = frontier[frontier["decoding"] == "plain"].iloc[0]
    assert plain["tokens_per_s_per_user"] == pytest.approx(50.0) and plain["tokens_per_s"] == pytest.approx(300.0)
    assert plain["tokens_per_s_per_device"] == pytest.approx(150.0)
    spec = frontier[frontier["decoding"] == "speculation"].iloc[0]
    assert spec["tokens_per_s_per_device"] == pytest.approx(360.0 * 500.0 / 720.0)  # scaled as the throughput


def test_a_fleet_drafting_on_a_device_the_prices_leave_out_reads_its_rent_back():
    """fleet_picks at the prices a table's plain costs give (swept_prices: the targets' devices alone) prices a row
    drafting on an L4 from its own cost: $0.5 per million tokens x 2,083.33 tokens/s x 0.0036 = $3.75 an hour, 2 replicas
    for 100 users at batch 50: $7.50 an hour, 4 devices (2 H100 and 2 L4s)."""
    from roofline.frontier import fleet_picks

    df = _spec_rows((60.0, 0.5, True, 50, 40.0, 0.6, 64)).assign(draft_hardware="l4", tokens_per_s=3.75 / 0.5 / 0.0036)
    fleet = fleet_picks(df, 50.0, 100, prices={"h100-sxm": 3.0})["speculation"]
    assert fleet is not None and fleet["replicas"] == 2 and fleet["devices"] == 4
    assert fleet["usd_per_hour"] == pytest.approx(7.5)


def test_a_row_left_out_for_not_fitting_is_not_counted_again_as_unpriced():
    """Each row left out is counted once, for its first reason (qa90): of two unpriced rows one does not fit, so one
    row is said not to fit and one to have no cost."""
    import re

    from roofline.frontier import frontier_notes

    df = _rows((60.0, float("nan"), 1), (50.0, float("nan"), 2), (40.0, 1.0, 4), fits_in_memory=[False, True, True],
               model="llama-3.1-8b")
    notes = frontier_notes(df)
    assert notes[0] == "1 of 3 rows do not fit in memory: left out", notes
    assert re.match(r"^1 rows? ha(s|ve) no cost \(swept without a price for h100-sxm\): left out", notes[1]), notes


def test_a_blank_fits_cell_is_said_as_nothing_and_an_upper_case_csv_out_is_a_csv(tmp_path):
    """check_table: a blank fits_in_memory is 'found nothing' on its CSV line, not read as fitting; cheapest --out takes
    F.CSV as a .csv file (the suffix in any case)."""
    from roofline.errors import RooflineError
    from roofline.frontier import check_frontier_out, check_table

    df = _checked_rows()
    df["fits_in_memory"] = df["fits_in_memory"].astype(object)
    df.loc[1, "fits_in_memory"] = None
    with pytest.raises(RooflineError, match=r"^t\.csv: fits_in_memory: expected true or false, found nothing \(line 3\)$"):
        check_table(df, "t.csv")
    check_frontier_out(tmp_path / "frontier.CSV", force=False)
    with pytest.raises(RooflineError, match=r"^--out: expected a \.csv file for the frontier's rows, found 'frontier\.txt'$"):
        check_frontier_out(tmp_path / "frontier.txt", force=False)


def test_plain_fits_reads_fits_in_memory_where_a_table_has_no_plain_cap():
    """plain_fits: batch <= baseline_max_batch where the table has it; else (an older table) its fits_in_memory."""
    from roofline.frontier import plain_fits

    df = _rows((60.0, 1.0, 8), (40.0, 0.5, 16), fits_in_memory=[True, False])
    assert plain_fits(df).tolist() == [True, False]
    assert plain_fits(df.assign(baseline_max_batch=16)).tolist() == [True, True]


def test_a_fleets_rent_is_its_devices_times_their_price_to_the_cent():
    """100,000 replicas of one device at $2.1234567 a device-hour rent $212,345.67 an hour (100,000 x 2.1234567), which
    `cheapest --users` prints to the cent; rounding the replica's rent to $2.1235 first gives $212,350.00."""
    from roofline.frontier import fleet_picks

    df = pd.DataFrame([{"hardware": "h100-sxm", "model": "m", "engine": "vllm", "context": 1024, "tp": 1, "devices": 1,
                        "method": "none", "k": 0, "alpha": float("nan"), "fits_in_memory": True, "batch": 100,
                        "tokens_per_s_per_user": 20.0, "tokens_per_s": 2000.0,
                        "cost_usd_per_million_tokens": 2.1234567 / (2000.0 * 3600) * 1e6}])
    fleet = fleet_picks(df, 10.0, 10_000_000, prices={"h100-sxm": 2.1234567})["plain"]
    assert fleet["replicas"] == 100_000
    assert round(fleet["usd_per_hour"], 2) == 212_345.67
