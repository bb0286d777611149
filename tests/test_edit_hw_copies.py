"""`hw set` / `hw new --set` on a device copy: a dtype given twice in two spellings, a family set back to the copy's
own, a tf32 peak left below a new fp32 one (qa477, a user adding an RTX PRO 6000 from rtx-5090)."""

import pytest
import yaml

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def _isolated_user_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user-profiles"))
    monkeypatch.delenv("ROOFLINE_PATH", raising=False)


def _copy(roofline, tmp_path, name="g1", source="h100-sxm", *sets):
    code, _, err = roofline("hw", "new", name, "--from", source, *[a for s in sets for a in ("--set", s)])
    assert code == 0, err
    return tmp_path / "user-profiles" / f"{name}.yaml"


def test_a_dtype_peak_set_twice_in_two_spellings_is_refused(roofline, tmp_path):
    """bf16=11 beside bfloat16=12 wrote 12 in silence, where memory=... twice is refused."""
    path = _copy(roofline, tmp_path)
    before = path.read_text()
    code, _, err = roofline("hw", "set", "g1", "peak_flops.bf16=11 PFLOP/s", "peak_flops.bfloat16=12 PFLOP/s")
    assert code == 2 and err.strip() == ("error: hw set: expected each field once, found peak_flops.bf16 set 2 times (as "
                                         "peak_flops.bf16 and peak_flops.bfloat16)")
    code, _, err = roofline("hw", "set", "g1", "peak_flops.fp8=2 PFLOP/s", "peak_flops.FP8=2.5 PFLOP/s")
    assert code == 2 and "found peak_flops.fp8 set 2 times (as peak_flops.fp8 and peak_flops.FP8)" in err
    assert path.read_text() == before
    code, _, err = roofline("hw", "new", "g2", "--from", "h100-sxm", "--set", "peak_flops.fp8=2 PFLOP/s",
                            "--set", "peak_flops.float8_e4m3fn=2.5 PFLOP/s")
    assert code == 2 and err.strip() == ("error: --set: expected each field once, found peak_flops.fp8 set 2 times (as "
                                         "peak_flops.fp8 and peak_flops.float8_e4m3fn)")
    assert not (tmp_path / "user-profiles" / "g2.yaml").exists()
    code, _, err = roofline("hw", "set", "g1", "peak_flops.BF16=1 PFLOP/s", "peak_flops.fp16=1 PFLOP/s")  # two dtypes
    assert code == 0, err
    assert yaml.safe_load(path.read_text())["peak_flops"]["bf16"] == "1 PFLOP/s"


def test_a_family_set_back_to_the_copys_own_is_no_longer_set_by_hand(roofline, tmp_path):
    """rtx-5090's file writes no family (a device's is its own name): set back to it, family stayed listed."""
    path = _copy(roofline, tmp_path, "pro", "rtx-5090")
    assert roofline("hw", "set", "pro", "family=h100-sxm")[0] == 0
    assert "set by hand, not from the source or notes below: family" in path.read_text()
    code, _, err = roofline("hw", "set", "pro", "family=rtx-5090")
    assert code == 0, err
    assert "set by hand" not in path.read_text().split("\n", 2)[1]


def test_a_copy_given_a_new_fp32_peak_is_told_its_tf32_still_equals_the_old_one(roofline, tmp_path):
    """rtx-4090 quotes tf32 at its fp32 rate: a copy given fp32 126 TFLOP/s kept tf32 82.6, below it, unsaid; a copy
    of H100, whose tf32 (tensor cores) is its own, is not told."""
    code, _, err = roofline("hw", "new", "pro", "--from", "rtx-4090", "--set", "peak_flops.fp32=126 TFLOP/s")
    assert code == 0 and ("peak_flops.tf32 is still 82.6 TFLOP/s, equal to fp32's before this edit set fp32 to "
                          "126 TFLOP/s: set peak_flops.tf32 too") in err
    code, _, err = roofline("hw", "new", "h", "--from", "h100-sxm", "--set", "peak_flops.fp32=70 TFLOP/s")
    assert code == 0 and "peak_flops.tf32 is still" not in err
