"""`hw edit` and `hw validate` behaviour the tests did not pin (mutation testing of roofline/editing.py: edit_profile's
rounds and its unchanged case, _sparse_peaks_held's bf16/fp16 check)."""

import sys

import pytest
from lab_gpu import lab_gpu


@pytest.fixture(autouse=True)
def _isolated_user_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user-profiles"))
    monkeypatch.delenv("ROOFLINE_PATH", raising=False)


LAB = lab_gpu()


def _counting_editor(tmp_path, invalid_rounds: int) -> str:
    """An editor command that writes a new invalid memory (-1 GB, -2 GB, ...) for `invalid_rounds` rounds, then 70 GB."""
    script = tmp_path / "editor.py"
    script.write_text(
        "import re, sys\n"
        f"count = {str(tmp_path / 'rounds')!r}\n"
        "try:\n    n = int(open(count).read())\nexcept OSError:\n    n = 0\n"
        "open(count, 'w').write(str(n + 1))\n"
        f"value = f'-{{n + 1}} GB' if n < {invalid_rounds} else '70 GB'\n"
        "p = sys.argv[1]\ntext = open(p).read()\n"
        "open(p, 'w').write(re.sub(r'(?m)^memory: .*$', 'memory: ' + value, text))\n")
    return f"{sys.executable} {script}"


def test_an_edit_is_reopened_until_valid_over_several_rounds(roofline, tmp_path, monkeypatch):
    path = tmp_path / "lab.yaml"
    path.write_text(LAB)
    monkeypatch.setenv("EDITOR", _counting_editor(tmp_path, invalid_rounds=5))
    code, out, err = roofline("--profiles", tmp_path, "hw", "edit", "lab")
    assert code == 0, err
    assert out.strip() == f"wrote {path}" and path.read_text() == LAB.replace("memory: 80 GB", "memory: 70 GB")
    assert (tmp_path / "rounds").read_text() == "6"  # five invalid saves, then the valid one


def test_an_edit_gives_up_after_20_invalid_rounds(roofline, tmp_path, monkeypatch):
    path = tmp_path / "lab.yaml"
    path.write_text(LAB)
    monkeypatch.setenv("EDITOR", _counting_editor(tmp_path, invalid_rounds=100))
    code, out, err = roofline("--profiles", tmp_path, "hw", "edit", "lab")
    assert code == 2 and f"error: {path}: unchanged after 20 invalid edits: " in err, err
    assert (tmp_path / "rounds").read_text() == "20" and path.read_text() == LAB


def test_an_editor_quit_without_a_change_writes_nothing(roofline, tmp_path, monkeypatch):
    path = tmp_path / "lab.yaml"
    path.write_text(LAB)
    stamp = path.stat().st_mtime_ns
    monkeypatch.setenv("EDITOR", "true")
    code, out, err = roofline("--profiles", tmp_path, "hw", "edit", "lab")
    assert code == 0 and out.strip() == f"unchanged {path}", (out, err)
    assert path.read_text() == LAB and path.stat().st_mtime_ns == stamp


def test_validate_says_a_bf16_peak_10_percent_off_the_fp16_one(roofline, tmp_path):
    path = tmp_path / "lab.yaml"
    path.write_text(LAB.replace("{bf16: 500 TFLOP/s}", "{bf16: 500 TFLOP/s, fp16: 550 TFLOP/s}"))
    code, out, err = roofline("hw", "validate", path)
    assert code == 0 and f"ok    {path}" in out, err
    assert ("peak_flops: bf16 500 TFLOP/s and fp16 550 TFLOP/s differ, where a GPU's tensor cores give them alike") in err, err
    path.write_text(LAB.replace("{bf16: 500 TFLOP/s}", "{bf16: 500 TFLOP/s, fp16: 504 TFLOP/s}"))  # within 1%: alike
    code, out, err = roofline("hw", "validate", path)
    assert code == 0 and "differ" not in err, err
