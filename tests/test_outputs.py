"""Output files: written whole or not at all, CSV and Parquet holding the same rows (outputs.py)."""

import numpy as np
import pandas as pd
import pytest

from roofline.errors import RooflineError
from roofline.outputs import TableWriter, progress_bar, staged_dir, write_file_safely


def test_csv_and_parquet_hold_the_same_rows_and_csv_floats_keep_seven_digits(tmp_path):
    rng = np.random.default_rng(0)
    cols = {"batch": np.arange(110_000), "step_time_s": rng.random(110_000) * 1e-2, "fits": rng.random(110_000) > 0.5}
    with TableWriter(tmp_path / "results", ("hardware", "batch", "step_time_s", "fits"), "both") as w:
        w.write({"hardware": "h100-sxm"}, cols)
        w.write({"hardware": "h200"}, cols)
    assert w.files == ["results.csv", "results.parquet"]
    csv, parquet = pd.read_csv(tmp_path / "results.csv"), pd.read_parquet(tmp_path / "results.parquet")
    assert len(csv) == len(parquet) == 220_000 and list(csv["batch"][:3]) == [0, 1, 2]
    assert (csv["hardware"] == parquet["hardware"].astype(str)).all()
    np.testing.assert_array_equal(parquet["step_time_s"][:110_000], cols["step_time_s"])  # Parquet: exact
    np.testing.assert_allclose(csv["step_time_s"], parquet["step_time_s"], rtol=1e-6)  # CSV: float32 shortest form


def test_parquet_statistics_are_written_for_the_named_columns_only(tmp_path):
    import pyarrow.parquet as pq

    cols = {"batch": np.arange(1000), "step_time_s": np.linspace(1e-3, 2e-3, 1000)}
    with TableWriter(tmp_path / "some", ("hardware", "batch", "step_time_s"), "parquet", statistics=("hardware", "batch")) as w:
        w.write({"hardware": "h100-sxm"}, cols)
    with TableWriter(tmp_path / "all", ("hardware", "batch", "step_time_s"), "parquet") as w:
        w.write({"hardware": "h100-sxm"}, cols)
    some, every = (pq.ParquetFile(tmp_path / f"{name}.parquet").metadata.row_group(0) for name in ("some", "all"))
    assert some.column(1).statistics.max == 999 and every.column(2).statistics.min == 1e-3
    assert some.column(2).statistics is None  # the output column: no min/max


def test_a_failure_inside_a_staged_folder_leaves_nothing_behind(tmp_path):
    out = tmp_path / "o"
    with pytest.raises(RuntimeError), staged_dir(out, force=False) as tmp:
        (tmp / "half.csv").write_text("a,b\n")
        raise RuntimeError("the sweep failed half-way")
    assert list(tmp_path.iterdir()) == []


def test_an_existing_output_is_replaced_only_with_force(tmp_path):
    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "old.csv").write_text("x")
    with pytest.raises(RooflineError, match="pass --force"), staged_dir(tmp_path / "o", force=False):
        pass
    with staged_dir(tmp_path / "o", force=True) as tmp:
        (tmp / "new.csv").write_text("y")
    assert [p.name for p in (tmp_path / "o").iterdir()] == ["new.csv"]
    write_file_safely(tmp_path / "f.yaml", "a: 1\n", force=False)
    with pytest.raises(RooflineError, match="exists"):
        write_file_safely(tmp_path / "f.yaml", "a: 2\n", force=False)


def test_the_progress_bar_is_one_line_redrawn_in_place(capsys):
    progress_bar(5, 10, 1.25, "points")
    err = capsys.readouterr().err
    assert err.startswith("\r[###############") and "5/10" in err and "\n" not in err


def test_write_csv_round_trips_a_frame_and_quotes_only_when_a_value_needs_it(tmp_path):
    from roofline.outputs import write_csv

    df = pd.DataFrame({"hardware": pd.Categorical(["h100-sxm", "l4"]), "step_time_s": [0.005340445257945567, np.nan],
                       "fits": [True, False], "batch": [1, 2]})
    write_csv(df, tmp_path / "plain.csv")
    assert (tmp_path / "plain.csv").read_text().splitlines()[1] == "h100-sxm,0.0053404453,true,1"
    back = pd.read_csv(tmp_path / "plain.csv")
    assert back["fits"].tolist() == [True, False] and back["step_time_s"].isna().tolist() == [False, True]
    write_csv(df.assign(hardware=["a, b", "c"]), tmp_path / "quoted.csv")
    assert pd.read_csv(tmp_path / "quoted.csv")["hardware"].tolist() == ["a, b", "c"]
