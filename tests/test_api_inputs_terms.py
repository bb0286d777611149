"""roofline.predict's inputs and provenance that the suite did not pin (api.py), found by mutation testing (qa475)."""

import os
from pathlib import Path

import pytest

import roofline
from roofline.errors import RooflineError

pytestmark = pytest.mark.slow  # each predicts: 50-500 ms a test

ROOT = Path(__file__).resolve().parents[1]


def test_a_profile_found_in_a_relative_folder_is_named_by_its_absolute_path(tmp_path, monkeypatch):
    """profile_files names the file each profile was read from as an absolute path, so a result read elsewhere (another
    working folder) still traces to it: a profile folder given relative to the working folder included."""
    (tmp_path / "mine").mkdir()
    text = (ROOT / "hardware_profiles" / "h100-sxm.yaml").read_text()
    (tmp_path / "mine" / "my-h100.yaml").write_text(text.replace("\nname: h100-sxm\n", "\nname: my-h100\n", 1))
    monkeypatch.chdir(tmp_path)
    p = roofline.predict("my-h100", "llama-3.1-8b", profiles=("mine",))
    assert p["hardware"] == "my-h100"
    assert p["profile_files"]["hardware"] == os.path.join(str(tmp_path), "mine", "my-h100.yaml")
    assert all(os.path.isabs(f) for f in p["profile_files"].values())


def test_an_acceptance_length_beside_a_tree_is_refused_in_one_line():
    """A tree's tau is its measured acceptance: an acceptance length beside it is a second one, refused by name."""
    with pytest.raises(RooflineError) as err:
        roofline.predict("h100-sxm", "llama-3.1-8b", method="eagle", acceptance_length=2.5, tree_nodes=10, tree_tau=3.0)
    assert str(err.value) == "predict: acceptance_length: expected it alone (not beside alpha, acceptance or a tree), found 2.5"


def test_cheapest_says_the_fastest_row_of_a_kind_no_row_reaches():
    """cheapest at a speed no row reaches: a note a kind, naming the fastest row's tokens/s per user (plain: batch 1's
    1 / step, the largest of the baseline column; speculation: the largest of tokens_per_s_per_user), not the slowest."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                             "axes": {"alpha": [0.7], "batch": [1, 8, 64], "k": [2, 3]}})
        got = roofline.cheapest(df, 5000)
    plain, spec = df["baseline_tokens_per_s_per_user"].max(), df["tokens_per_s_per_user"].max()
    assert plain == pytest.approx(1 / df.loc[df["batch"] == 1, "step_time_s"].iloc[0], rel=1e-6)
    assert f"plain: no row that fits reaches 5000 tokens/s per user (the fastest: {plain:.4g})" in got["notes"]
    assert f"speculation: no row that fits reaches 5000 tokens/s per user (the fastest: {spec:.4g})" in got["notes"]


def test_cheapest_refuses_users_without_a_speed():
    """A fleet is sized for a speed: users without min_tokens_per_user is refused in one line, as the command's --users."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = roofline.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
                             "axes": {"alpha": [0.7], "batch": [1, 8], "k": [2]}})
    with pytest.raises(RooflineError) as err:
        roofline.cheapest(df, users=100)
    assert str(err.value) == ("cheapest: users: expected a min_tokens_per_user beside it (the speed each user gets), "
                              "found nothing")
