"""The results table's engine_runs and baseline_engine_runs (grid.engine_runs): a row its engine runs no setup of says
so in its own columns, by the rules cheapest leaves rows out by (qa479: only the warnings and cheapest knew)."""
import warnings

import pandas as pd
import pytest

from roofline.frontier import _candidates, mismatched_drafts, refused_layouts, refused_rows
from roofline.grid import load_configs, run_sweep, scenario_meta
from roofline.scenario import scenario_from_dict

pytestmark = pytest.mark.slow


def _sweep(data: dict) -> pd.DataFrame:
    sc = scenario_from_dict({"name": "t", **data}, "t.yaml")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        configs = load_configs(sc)
        df = run_sweep(sc, configs)
    df.attrs["scenario"] = scenario_meta(sc, configs, len(df))
    return df


def _by(df: pd.DataFrame, **where) -> pd.DataFrame:
    mask = pd.Series(True, index=df.index)
    for column, value in where.items():
        mask &= df[column].astype(type(value)) == value
    return df[mask]


def test_an_engine_on_a_device_it_does_not_run_on_runs_none_of_its_rows():
    df = _sweep({"hardware": ["h100-sxm", "mi300x"], "model": "llama-3.1-8b", "engine": ["vllm", "trtllm"],
                 "method": "eagle", "axes": {"k": [0, 3], "alpha": 0.7, "batch": [1, 8], "context": 2048}})
    refused = _by(df, hardware="mi300x", engine="trtllm")
    assert len(refused) == 4 and not refused["engine_runs"].any() and not refused["baseline_engine_runs"].any()
    others = df.drop(refused.index)
    assert len(others) == 12 and others["engine_runs"].all() and others["baseline_engine_runs"].all()


def test_a_method_the_engine_refuses_leaves_its_plain_decoding_running():
    df = _sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "engine": ["vllm", "sglang"], "method": "medusa",
                 "axes": {"k": [0, 2], "alpha": 0.7, "batch": [1, 4], "context": 2048}})
    sglang = _by(df, engine="sglang")
    assert not _by(sglang, k=2)["engine_runs"].any()  # SGLang has no Medusa drafter
    assert _by(sglang, k=0)["engine_runs"].all()  # plain decoding runs
    assert sglang["baseline_engine_runs"].all()
    assert _by(df, engine="vllm")["engine_runs"].all()


def test_the_columns_agree_with_what_cheapest_leaves_out():
    df = _sweep({"hardware": ["h200", "mi300x"], "model": "deepseek-v3", "engine": ["sglang", "trtllm"], "method": "draft",
                 "draft": "llama-3.2-1b", "layouts": [{"tp": 8}, {"tp": 1, "dp_attention": 8, "ep": 8}],
                 "axes": {"k": [0, 3], "alpha": 0.7, "batch": [8, 64], "context": 4096}})
    refused = refused_layouts(df)[0] + mismatched_drafts(df, df.attrs["scenario"])
    expected = ~refused_rows(df, refused)
    assert (~expected).any() and expected.any()  # both kinds of row are here
    assert (df["engine_runs"] == expected).all()
    # a draft model of another tokenizer (Llama 3.2 under DeepSeek-V3): no drafting row runs, plain decoding may
    drafting = df["k"] > 0
    assert not df.loc[drafting, "engine_runs"].any()
    plain_rows = df[~drafting]
    plain_refused = [e for e in refused_layouts(plain_rows)[0] if not e.get("speculative_only")]
    assert (plain_rows["engine_runs"] == ~refused_rows(plain_rows, plain_refused)).all()
    keys = ["hardware", "engine", "tp", "dp_attention", "ep", "batch"]  # each row's plain twin, k 0
    twins = df.merge(plain_rows[keys + ["engine_runs"]].astype({"hardware": str, "engine": str}).rename(
        columns={"engine_runs": "twin_runs"}), on=keys)
    assert len(twins) == len(df) and (twins["baseline_engine_runs"] == twins["twin_runs"]).all()
    assert not plain_rows["engine_runs"].all()  # trtllm on mi300x


def test_a_plain_point_drawn_from_a_refused_speculative_row_runs():
    df = _sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "engine": "sglang", "method": "medusa",
                 "axes": {"k": [2], "alpha": 0.7, "batch": [1, 4], "context": 2048}})
    assert not df["engine_runs"].any()
    candidates = _candidates(df)
    plain = candidates[candidates["decoding"] == "plain"]
    assert len(plain) == 2 and plain["engine_runs"].astype(bool).all()
    assert not candidates.loc[candidates["decoding"] == "speculation", "engine_runs"].astype(bool).any()
