"""`engines new --set FIELD=<the source's own value>` changes nothing, so it says nothing of the family values the
copy keeps (editing.new_profile's changed_here into _family_values_kept, qa487; qa490 mutant: set_here there warned of
sglang's kernel_latency overrides for a value the copy did not change)."""
import pytest

pytestmark = pytest.mark.slow  # CLI runs: about 0.5 s


@pytest.fixture(autouse=True)
def _isolated_user_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user-profiles"))
    monkeypatch.delenv("ROOFLINE_PATH", raising=False)


def test_the_sources_own_value_says_nothing_of_the_families_and_another_value_does(roofline):
    # sglang.yaml: `kernel_latency: 3.442 us`, with overrides of its own on AMD Instinct, Blackwell and Ampere
    code, _, err = roofline("engines", "new", "same", "--from", "sglang", "--set", "kernel_latency=3.442 us")
    assert code == 0, err
    assert "set for every hardware but" not in err, err
    code, _, err = roofline("engines", "new", "other", "--from", "sglang", "--set", "kernel_latency=5 us")
    assert code == 0, err
    assert "kernel_latency: set for every hardware but" in err, err
