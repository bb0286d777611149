"""Bugs qa452 found mutation-testing roofline/editing.py: `hw edit` of a profile that starts with a byte-order mark
never saved; `hw edit` of nothing removed a user's own '# roofline: ' comment and wrote the file; an entry of an empty
list was said as an index '0 to -1'."""

import sys

import pytest
from lab_gpu import lab_gpu


@pytest.fixture(autouse=True)
def _isolated_user_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user-profiles"))
    monkeypatch.delenv("ROOFLINE_PATH", raising=False)


def test_hw_edit_saves_a_valid_change_to_a_file_that_starts_with_a_bom(roofline, tmp_path, monkeypatch):
    # `hw validate` and `hw set` take the file; `hw edit` refused every change: _edit_error puts the NOT SAVED banner's
    # two lines in front of the text, so the BOM is mid-stream ('line 4: not valid YAML: did not find expected
    # <document start>')
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + lab_gpu("bom").encode())
    assert roofline("--profiles", tmp_path, "hw", "validate", path)[0] == 0
    monkeypatch.setenv("EDITOR", f"{sys.executable} -c \"import sys; p = sys.argv[1]; t = open(p, encoding='utf-8').read(); "
                                 f"open(p, 'w', encoding='utf-8').write(t.replace('memory: 80 GB', 'memory: 70 GB'))\"")
    code, out, err = roofline("--profiles", tmp_path, "hw", "edit", "bom")
    assert code == 0, err
    assert "memory: 70 GB" in path.read_text(encoding="utf-8-sig")


def test_hw_edit_left_unchanged_keeps_a_users_comment_that_starts_like_the_banner(roofline, tmp_path, monkeypatch):
    # edit_profile drops every line starting '# roofline: ' from what the editor saved (its banner's mark), the user's
    # own comment lines too: an editor quit without a change rewrote the file without them and said 'wrote'
    text = lab_gpu("mine", extra="# roofline: calibrated 2026-03-01, see lab log\n")
    path = tmp_path / "mine.yaml"
    path.write_text(text)
    monkeypatch.setenv("EDITOR", "true")
    code, out, err = roofline("--profiles", tmp_path, "hw", "edit", "mine")
    assert code == 0, err
    assert out.strip() == f"unchanged {path}" and path.read_text() == text


def test_an_entry_of_an_empty_list_is_said_as_such_not_as_a_range_0_to_minus_1(roofline, tmp_path):
    code, _, err = roofline("engines", "new", "e0", "--from", "vllm", "--set", "overrides=[]")
    assert code == 0, err
    code, _, err = roofline("engines", "set", "e0", "overrides.0.kernel_latency=5 us")
    assert code == 2
    assert "(0 to -1)" not in err and "empty" in err, err  # said today: 'expected an index of overrides (0 to -1), found '0''

