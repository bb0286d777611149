"""Found by mutation testing of session 72's diff (qa482): a dtype peak set twice is named by its canonical dtype whatever spelling came first (editing.py)."""
import pytest

pytestmark = pytest.mark.slow  # CLI runs, predicts and sweeps: 40-650 ms a test


@pytest.fixture(autouse=True)
def _isolated_user_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user-profiles"))
    monkeypatch.delenv("ROOFLINE_PATH", raising=False)


def test_a_dtype_given_twice_is_named_by_its_dtype_not_its_first_spelling(roofline, tmp_path):
    """kills edit_twice_canon: 'peak_flops.bfloat16 set 2 times' where the dtype is bf16 (PROFILES.md's spelling)."""
    code, _, err = roofline("hw", "new", "g1", "--from", "h100-sxm", "--set", "peak_flops.BFloat16=11 PFLOP/s",
                            "--set", "peak_flops.bf16=12 PFLOP/s")
    assert code == 2 and err.strip() == ("error: --set: expected each field once, found peak_flops.bf16 set 2 times (as "
                                         "peak_flops.BFloat16 and peak_flops.bf16)"), err
    assert not (tmp_path / "user-profiles" / "g1.yaml").exists()
