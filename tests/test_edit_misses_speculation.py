"""An engine copy that changes speculation's own costs keeps its known misses for plain decoding (editing._unknown_misses;
qa485: a copy of sglang with its own spec_per_iteration lost DeepSeek's plain-step miss on MI300X, the caveat its users
most need)."""
import pytest

from roofline.profiles import read_yaml
from roofline.serving import load_engine

pytestmark = pytest.mark.slow  # CLI runs and predicts: 0.1-0.6 s a test

POINT = ("--hardware", "mi300x", "--model", "deepseek-r1", "--engine", "{}", "--tp", "8", "--batch", "1")


@pytest.fixture(autouse=True)
def _isolated_user_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user-profiles"))
    monkeypatch.delenv("ROOFLINE_PATH", raising=False)


def _misses(tmp_path, name: str) -> list[dict]:
    return read_yaml(tmp_path / "user-profiles" / f"{name}.yaml").get("known_misses") or []


def _said(roofline, name: str, *extra) -> int:
    code, out, err = roofline("predict", *(p.format(name) for p in POINT), *extra)
    assert code == 0, err
    return (out + err).count("a known miss of engine")


def test_a_speculation_cost_changed_keeps_every_speed_miss_for_plain_decoding(roofline, tmp_path):
    code, _, err = roofline("engines", "new", "my-sgl", "--from", "sglang", "--set", "spec_per_iteration=150 us")
    assert code == 0, err
    assert "known_misses: kept for plain decoding alone (methods: [none])" in err and "dropped" not in err, err
    shipped = load_engine("sglang").known_misses
    kept = _misses(tmp_path, "my-sgl")
    assert len(kept) == len(shipped)  # every one of sglang's misses measured plain decoding somewhere
    assert all(list(m["methods"]) == ["none"] for m in kept), [m.get("methods") for m in kept]
    assert [m["note"] for m in kept] == [m["note"] for m in shipped]
    assert "methods: [none]" in (tmp_path / "user-profiles" / "my-sgl.yaml").read_text()  # as the profiles write it
    assert _said(roofline, "my-sgl") == _said(roofline, "sglang") == 1  # plain decoding: said as of sglang
    speculating = ("--method", "mtp", "--k", "3", "--alpha", "0.8")
    assert _said(roofline, "sglang", *speculating) == 1 and _said(roofline, "my-sgl", *speculating) == 0


def test_a_cost_plain_decoding_pays_still_drops_them(roofline, tmp_path):
    code, _, err = roofline("engines", "new", "my-sgl", "--from", "sglang", "--set", "spec_per_iteration=150 us",
                            "--set", "kernel_latency=5 us")
    assert code == 0, err
    assert "known_misses: dropped from the copy" in err and "kept for plain decoding" not in err, err
    assert not _misses(tmp_path, "my-sgl")


def test_a_miss_of_speculating_points_alone_is_dropped_beside_the_others_kept(roofline, tmp_path):
    code, _, err = roofline("engines", "new", "base", "--from", "sglang", "--set", "known_misses=[{hardware: 'h2*', "
                            "measured: slower, methods: [mtp], note: MTP slower}, {hardware: 'h1*', measured: faster, "
                            "note: plain faster}]")
    assert code == 0, err
    code, _, err = roofline("engines", "new", "copy", "--from", str(tmp_path / "user-profiles" / "base.yaml"),
                            "--set", "spec_per_draft_step=40 us")
    assert code == 0, err
    assert "kept for plain decoding alone" in err and "known_misses: others dropped from the copy" in err, err
    kept = _misses(tmp_path, "copy")
    assert [(m["note"], list(m["methods"])) for m in kept] == [("plain faster", ["none"])]
