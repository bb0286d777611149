"""Copies and sets that changed nothing the rules hang on (editing.py), found by mutation testing (qa487): the fit
record removed, a source's own value given, costs_from set since, and --set errors of a copy never written."""
import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def _isolated_user_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user-profiles"))
    monkeypatch.delenv("ROOFLINE_PATH", raising=False)


def test_a_copy_that_only_removes_the_fit_record_keeps_its_known_misses(roofline, tmp_path):
    # `fitted` records which parameters a fit set; removing it changes no step (predict gives sglang's 15 ms step at
    # mi300x / deepseek-r1 / tp 8 / batch 1 for both), so the misses measured of those steps still hold
    code, _, err = roofline("engines", "new", "xf", "--from", "sglang", "--set", "fitted=null")
    assert code == 0, err
    assert "known_misses: dropped" not in err, err
    point = ("--hardware", "mi300x", "--model", "deepseek-r1", "--tp", "8", "--batch", "1")
    _, out_s, err_s = roofline("predict", *point, "--engine", "sglang")
    _, out_x, err_x = roofline("predict", *point, "--engine", "xf")
    assert (out_s + err_s).count("a known miss of engine") == (out_x + err_x).count("a known miss of engine") == 1


def test_a_set_new_cannot_apply_says_the_copy_was_not_written(roofline, tmp_path):
    code, _, err = roofline("hw", "new", "qy", "--from", "h100-sxm", "--set", "fooo=null")
    assert code == 2
    assert "qy.yaml (not written): fooo" in err, err
    assert not (tmp_path / "user-profiles" / "qy.yaml").exists()


def test_a_copy_given_its_sources_own_value_keeps_the_fit_record_and_the_misses(roofline, tmp_path):
    # sglang.yaml: `kernel_latency: 3.442 us`, listed in fitted.parameters; the header rightly does not mark it set by
    # hand (the source's value, qa311), and `engines set` leaves fit and misses alone for such a value: `new` should too
    from roofline.profiles import read_yaml

    code, _, err = roofline("engines", "new", "xk", "--from", "sglang", "--set", "kernel_latency=3.442 us")
    assert code == 0, err
    text = (tmp_path / "user-profiles" / "xk.yaml").read_text()
    assert "# set by hand" not in text
    data = read_yaml(tmp_path / "user-profiles" / "xk.yaml")
    assert "kernel_latency" in data["fitted"]["parameters"]
    assert "known_misses: dropped" not in err and data.get("known_misses"), err


def test_a_copys_name_follows_a_costs_from_set_since(roofline, tmp_path):
    from roofline.profiles import read_yaml

    code, _, err = roofline("engines", "new", "v1", "--from", "vllm-v0")
    assert code == 0, err
    code, _, err = roofline("engines", "set", "v1", "costs_from=sglang")
    assert code == 0, err
    name = read_yaml(tmp_path / "user-profiles" / "v1.yaml")["display_name"]
    assert "costs of sglang" in name and "costs of vllm" not in name, name  # `engines new --set costs_from` does so
