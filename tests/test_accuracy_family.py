"""accuracy's per-family groups name a row's GPU family from its profile's engine family, as fit and the prediction do
(qa450, mutation-testing accuracy.py: an alias, 4090 for rtx-4090, or a copy of an MI300X made with hw new, was grouped
as NVIDIA Hopper (or other) though predicted with its family's engine values)."""

import pandas as pd

from roofline.accuracy import accuracy_table
from roofline.measurements import COLUMNS

ROW = {
    "source_id": "a", "source": "test", "engine": "vllm", "engine_version": "", "hardware": "rtx-4090", "gpus": "1",
    "tp": "1", "ep": "1", "dp_attention": "1", "model": "llama-3.1-8b", "weight_dtype": "bf16", "kv_dtype": "bf16",
    "batch": "1", "input_len": "500", "output_len": "200", "method": "none", "k": "0", "acceptance_length": "",
    "quantity": "tokens_per_s_per_user", "value": "50", "split": "heldout", "notes": "",
}


def test_a_rows_family_is_its_profiles_engine_family_as_fit_names_it(tmp_path, roofline, monkeypatch):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user"))
    code, _, err = roofline("hw", "new", "my-accel", "--from", "mi300x")
    assert code == 0, err
    rows = [ROW, {**ROW, "hardware": "4090"}, {**ROW, "hardware": "mi300x", "value": "120"},
            {**ROW, "hardware": "my-accel", "value": "120"}]
    path = tmp_path / "m.csv"
    pd.DataFrame(rows, columns=list(COLUMNS)).to_csv(path, index=False)
    df = accuracy_table(path)
    assert df["predicted"].iloc[0] == df["predicted"].iloc[1] and df["predicted"].iloc[2] == df["predicted"].iloc[3]
    assert df["family"].tolist() == ["NVIDIA Ada", "NVIDIA Ada", "AMD Instinct", "AMD Instinct"]
