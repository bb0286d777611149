"""YAML and text-table reading edges (yamlio.py) the suite did not pin, found by mutation testing (qa474) (a JSON error at a line's end, a table's second
1 MiB chunk, a single short row without a final newline, a failed atomic write's temporary file)."""

import errno
import os

import pytest

from roofline.errors import RooflineError
from roofline.yamlio import check_text_table, read_json_file, write_text_atomic


def test_a_json_error_at_the_end_of_a_line_with_more_text_after_it_says_the_end_of_the_line(tmp_path):
    # a raw newline inside a string: json stops at the newline (line 1, column 10), and text follows on line 2
    path = tmp_path / "m.json"
    path.write_text('{"a": "ab\ncd"}\n')
    with pytest.raises(RooflineError) as err:
        read_json_file(path)
    assert str(err.value) == (f"{path}: line 1: not valid JSON: Invalid control character at (column 10), "
                              "found the end of the line")


def test_a_bad_byte_in_a_tables_second_chunk_is_said_at_its_offset_in_the_file(tmp_path):
    # 1 MiB of ASCII (the first chunk), then 5 more bytes, then 0xff: byte 1,048,576 + 5 = 1,048,581 (0-based)
    path = tmp_path / "results.csv"
    path.write_bytes(b"a\n" + b"1\n" * ((1 << 20) // 2 - 1) + b"12345" + b"\xff\n")
    with pytest.raises(RooflineError) as err:
        check_text_table(path)
    assert str(err.value) == f"{path}: expected UTF-8 text, found bytes that are not (at byte 1048581)"


def test_a_single_short_row_without_a_final_newline_is_refused_at_line_2(tmp_path):
    path = tmp_path / "results.csv"
    path.write_bytes(b"a,b,c\n1,2")  # one newline: the header's; the row on line 2 holds 2 of 3 fields
    with pytest.raises(RooflineError) as err:
        check_text_table(path)
    assert str(err.value) == f"{path}: line 2: expected 3 fields as the header has, found 2 (a row cut short?)"


def test_a_failed_atomic_write_leaves_no_temporary_file_and_the_old_file_whole(tmp_path, monkeypatch):
    path = tmp_path / "p.yaml"
    path.write_text("x: 1\n")

    def no_space(src, dst):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "replace", no_space)
    with pytest.raises(RooflineError) as err:
        write_text_atomic(path, "x: 2\n", force=True)
    assert str(err.value) == f"--out: cannot write {path}: No space left on device"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.yaml"] and path.read_text() == "x: 1\n"


def test_an_atomic_write_interrupted_by_a_non_os_error_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "p.yaml"
    with pytest.raises(UnicodeEncodeError):  # a lone surrogate cannot be written as UTF-8
        write_text_atomic(path, "x: \udcff\n")
    assert list(tmp_path.iterdir()) == []


def test_a_json_file_may_be_four_times_a_yaml_files_size(tmp_path):
    from roofline.yamlio import MAX_FILE_BYTES

    path = tmp_path / "config.json"
    path.write_text('{"a": "' + "x" * 2_000_000 + '"}')  # 2,000,009 bytes: over YAML's 1,000,000, within JSON's 4,000,000
    assert len(read_json_file(path)["a"]) == 2_000_000
    path.write_text('{"a": "' + "x" * (4 * MAX_FILE_BYTES - 8) + '"}')  # 4,000,001 bytes
    with pytest.raises(RooflineError) as err:
        read_json_file(path)
    assert str(err.value) == f"{path}: expected at most 4,000,000 bytes, found 4,000,001"


@pytest.mark.parametrize("relative, said", [("f.yaml", "--out: cannot write into {d}: Permission denied"),
                                            ("new/f.yaml", "--out: cannot create the folder {d}/new: Permission denied")])
def test_an_output_file_that_cannot_be_written_names_the_folder_it_goes_into(tmp_path, monkeypatch, relative, said):
    import tempfile

    from roofline.yamlio import check_file_out

    def denied(*args, **kwargs):  # a read-only folder (root writes into one anyway: the refusal is simulated)
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr(tempfile, "mkstemp", denied)
    with pytest.raises(RooflineError) as err:
        check_file_out(tmp_path / relative)
    assert str(err.value) == said.format(d=tmp_path)
