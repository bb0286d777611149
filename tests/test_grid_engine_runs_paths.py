"""engine_runs is worked out from the profiles on the search path the sweep was given (roofline --profiles), not only
the built-in ones (grid._write_sweep passes extra_dirs to iter_blocks; qa490 mutation: dropping it marked an engine copy
in a --profiles folder as running on a device its source, trtllm, does not run on)."""
import shutil

import pandas as pd
import pytest

pytestmark = pytest.mark.slow  # a copy, a sweep through the CLI: about 1 s


@pytest.fixture(autouse=True)
def _isolated_user_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user-profiles"))
    monkeypatch.delenv("ROOFLINE_PATH", raising=False)


def test_a_copy_found_through_profiles_marks_its_rows_by_its_own_rules(roofline, tmp_path):
    code, _, err = roofline("engines", "new", "my-trt", "--from", "trtllm")
    assert code == 0, err
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    shutil.move(str(tmp_path / "user-profiles" / "my-trt.yaml"), str(folder / "my-trt.yaml"))  # off the user folder
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: s\nhardware: [h100-sxm, mi300x]\nmodel: llama-3.1-8b\nengine: my-trt\n"
                        "axes:\n  batch: [1, 8]\n  context: 2048\n")
    code, _, err = roofline("--profiles", str(folder), "sweep", str(scenario), "--out", str(tmp_path / "out"), "--no-plots")
    assert code == 0, err
    table = pd.read_csv(tmp_path / "out" / "results.csv")
    on_amd = table["hardware"] == "mi300x"
    assert on_amd.sum() == 2 and (~on_amd).sum() == 2
    assert not table.loc[on_amd, "engine_runs"].any() and not table.loc[on_amd, "baseline_engine_runs"].any()
    assert table.loc[~on_amd, "engine_runs"].all() and table.loc[~on_amd, "baseline_engine_runs"].all()
