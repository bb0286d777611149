"""Fleets and rents of `roofline cheapest` (frontier.py) the suite did not pin, found by mutation testing (qa493).
Each test gives the rule it pins and its hand computation."""

from __future__ import annotations

import pandas as pd
import pytest


def _rows(*rows, **columns):
    """Plain rows (method none, k 0) of one model on h100-sxm: (tokens/s per user, USD per million tokens, batch);
    tokens_per_s = tokens/s per user x batch."""
    base = {"hardware": "h100-sxm", "model": "m", "engine": "vllm", "context": 4096, "tp": 1, "devices": 1,
            "fits_in_memory": True, "method": "none", "k": 0, "alpha": float("nan")}
    df = pd.DataFrame([{**base, "tokens_per_s_per_user": v, "cost_usd_per_million_tokens": c, "batch": b,
                        "tokens_per_s": v * b} for v, c, b in rows])
    for name, values in columns.items():
        df[name] = values
    return df


def test_a_point_computed_now_slower_than_asked_makes_no_fleet():
    """fleet_picks' fleets are of rows 'each at least min_tokens_per_s_per_user' fast, `extra`'s points too: a point at
    40 tokens/s per user (batch 100, $0.10 per million: 4,000 tokens/s x 3600 / 1e6 x 0.10 = $1.44 an hour, one replica
    for 100 users) is too slow for 50 tokens/s, so the fleet is the swept row's: ceil(100 / 10) = 10 replicas of
    60 tokens/s x 10 = 600 tokens/s at $1.00 per million, 600 x 3600 / 1e6 x 1.00 = $2.16 an hour each, $21.60."""
    from roofline.frontier import fleet_picks

    df = _rows((60.0, 1.0, 10))
    slow = _rows((40.0, 0.10, 100)).iloc[0]
    fleet = fleet_picks(df, 50.0, 100, extra={"plain": [slow]})["plain"]
    assert fleet["row"]["batch"] == 10 and not fleet["computed_now"]
    assert fleet["replicas"] == 10 and fleet["usd_per_hour"] == pytest.approx(21.6)


def test_a_fleets_devices_count_every_pipeline_stage():
    """A replica rents devices = tp x dp_attention x pp (layout.Deployment.devices), not tp: tp 2 x pp 2 is 4 devices;
    100 users at batch 50 are ceil(100 / 50) = 2 replicas, 8 devices (a rent read back: 60 x 50 = 3,000 tokens/s at
    $1.00 per million, 3,000 x 3600 / 1e6 = $10.80 an hour a replica, $21.60)."""
    from roofline.frontier import devices_in_use, fleet_picks

    df = _rows((60.0, 1.0, 50), tp=[2], pp=[2], dp_attention=[1], devices=[4])
    fleet = fleet_picks(df, 50.0, 100)["plain"]
    assert fleet["replicas"] == 2 and fleet["devices"] == 8
    assert fleet["usd_per_hour"] == pytest.approx(21.6)
    assert list(devices_in_use(df.assign(decoding="plain"))) == [4]


def test_a_rent_at_the_sweeps_price_pays_for_every_pipeline_stages_devices():
    """At the sweep's prices a replica's rent is its devices x their price a device-hour (_rent_usd_per_hour): tp 2 x
    pp 2 is 4 h100-sxm at $2.00, $8.00 an hour; 2 replicas for 100 users at batch 50, $16.00 an hour."""
    from roofline.frontier import fleet_picks

    df = _rows((60.0, 1.0, 50), tp=[2], pp=[2], dp_attention=[1], devices=[4])
    fleet = fleet_picks(df, 50.0, 100, prices={"h100-sxm": 2.0})["plain"]
    assert fleet["replicas"] == 2 and fleet["devices"] == 8
    assert fleet["usd_per_hour"] == pytest.approx(16.0)


def test_a_rent_read_back_without_a_throughput_column_is_the_speed_per_user_times_the_batch():
    """A hand table without tokens_per_s and without prices: a replica's rent is read back as cost x tokens/s x 3600 /
    1e6, its tokens/s the speed per user x the batch: $1.00 per million x 60 x 50 = 3,000 tokens/s, $10.80 an hour;
    ceil(100 / 50) = 2 replicas, $21.60 (not $1.00 x 60 x 0.0036 = $0.216 a replica, the speed of one user alone)."""
    from roofline.frontier import fleet_picks

    df = _rows((60.0, 1.0, 50)).drop(columns="tokens_per_s")
    fleet = fleet_picks(df, 50.0, 100)["plain"]
    assert fleet["replicas"] == 2 and fleet["usd_per_hour"] == pytest.approx(21.6)


@pytest.mark.slow
def test_a_note_said_of_the_pick_is_not_said_again_of_a_fleet_that_is_the_picks_row(tmp_path, roofline):
    """256 users at 10 tokens/s on one H100 under SGLang with EAGLE: the speculation fleet is the pick's own row (batch
    256, one replica), so SGLang's cap of 48 sequences while speculating is said once, of the pick, not again as 'the
    speculation fleet: ...' (qa493's survivor M67: the fleet's notes without the pick's left out)."""
    scenario = tmp_path / "fn.yaml"
    scenario.write_text("name: fn\nhardware: h100-sxm\nmodel: llama-3.1-8b\nengine: sglang\nmethod: eagle\n"
                        "axes:\n  batch: [8, 64, 256, 1024]\n  context: [1024]\n  k: [0, 2]\n  alpha: [0.8]\n")
    code, _, err = roofline("sweep", str(scenario), "--out", str(tmp_path / "sw"), "--no-plots")
    assert code == 0, err
    code, out, _ = roofline("cheapest", str(tmp_path / "sw"), "--min-tokens-per-user", "10", "--users", "256")
    fleet = next(x for x in out.splitlines() if x.startswith("  speculation  $") and "an hour" in x)
    assert code == 0 and "1 replica" in fleet and "sglang, batch 256," in fleet, fleet
    assert out.count("batch 256 while speculating under sglang: it runs at most 48 sequences") == 1, out
    assert "note: the speculation pick: batch 256 while speculating under sglang" in out


@pytest.mark.slow
def test_a_fleet_computed_now_after_a_price_change_is_costed_at_the_tables_prices(tmp_path, roofline, monkeypatch):
    """A copy of MI325X swept at $1.85 a device-hour, then set to $2.60: the fleet for 1,000 users at 30 tokens/s is a
    batch computed now (9 replicas of batch 112 by the model today), and its line costs it at the table's price, as every
    row of the table: 4 devices x $1.85 / (S tokens/s per user x B x 3,600 s) x 1e6 a million tokens, $0.580 at 31.6
    tokens/s per user, not $2.60's $0.815 (qa493's survivor M60: refine_fleet's points left at the price now)."""
    import re

    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user"))
    assert roofline("hw", "new", "mi3c", "--from", "mi325x", "--set", "price=1.85 USD/h")[0] == 0
    scenario = tmp_path / "fl.yaml"
    scenario.write_text("name: fl\nhardware: [h200, mi3c]\nmodel: llama-3.1-70b\nmethod: none\ntp: 4\n"
                        "axes:\n  batch: [16, 64, 256]\n  context: [4096]\n")
    assert roofline("sweep", str(scenario), "--out", str(tmp_path / "sw"), "--no-plots")[0] == 0
    assert roofline("hw", "set", "mi3c", "price=2.60 USD/h")[0] == 0
    code, out, _ = roofline("cheapest", str(tmp_path / "sw"), "--min-tokens-per-user", "30", "--users", "1000")
    fleet = re.search(r"  plain +\$([\d,.]+) an hour, (\d+) replicas, (\d+) devices, each: \$([\d.]+) at ([\d.]+) tokens/s "
                      r"per user: llama-3.1-70b on mi3c x 4 \(tp 4\), vllm, batch (\d+),", out)
    assert code == 0 and fleet, out
    rent, replicas, devices, cost, speed, batch = (float(g.replace(",", "")) for g in fleet.groups())
    assert batch not in (16, 64, 256) and devices == 4 * replicas and rent == pytest.approx(devices * 1.85)
    assert cost == pytest.approx(4 * 1.85 / (speed * batch * 3600) * 1e6, rel=0.005)
