"""One-line YAML errors the tests did not pin (a tab, an unclosed quote at the end, the character bound), and the mode a
replaced or new file keeps (yamlio.write_text_atomic). (qa452's mutation round)"""

import os

import pytest

from roofline.errors import RooflineError
from roofline.yamlio import MAX_FILE_BYTES, load_yaml_text, write_text_atomic


def _error(text: str) -> str:
    with pytest.raises(RooflineError) as err:
        load_yaml_text(text, "f.yaml")
    return str(err.value)


def test_a_tab_indent_is_said_as_a_tab_at_its_line_and_column():
    assert _error("a:\n\tb: 1\n") == ("f.yaml: line 2, column 1: not valid YAML: expected spaces (YAML indents with "
                                      "spaces), found a tab")
    assert _error("a: 1\nb: 2\n\tc: 3\n").startswith("f.yaml: line 3, column 1: not valid YAML: expected spaces")


def test_an_unclosed_quote_on_the_last_line_is_said_at_that_line_once():
    # the parser stops on the same line the quote opens on: no 'started on line 2' after 'line 2'
    assert _error('a: 1\nb: "x\n') == "f.yaml: line 2: not valid YAML: found unexpected end of stream"


def test_text_over_the_character_bound_is_refused_before_it_is_parsed():
    assert load_yaml_text("#" * MAX_FILE_BYTES, "f.yaml") is None  # exactly the bound: read (a comment: no document)
    assert _error("#" * (MAX_FILE_BYTES + 1)) == "f.yaml: expected at most 1,000,000 characters of YAML, found 1,000,001"


@pytest.mark.parametrize("mode", [0o640, 0o664, 0o600])
def test_a_replaced_file_keeps_its_own_mode(tmp_path, mode):
    target = tmp_path / "mine.yaml"
    target.write_text("x: 1\n")
    target.chmod(mode)
    write_text_atomic(target, "x: 2\n", force=True)
    assert target.read_text() == "x: 2\n" and (target.stat().st_mode & 0o777) == mode


def test_a_new_file_takes_the_mode_the_umask_gives():
    import tempfile

    old = os.umask(0o002)
    try:
        with tempfile.TemporaryDirectory() as folder:
            fresh = os.path.join(folder, "new.yaml")
            write_text_atomic(fresh, "y: 1\n")
            assert os.stat(fresh).st_mode & 0o777 == 0o664  # 0o666 less the umask, as any new file
    finally:
        os.umask(old)


def test_a_float_without_a_dot_reads_as_a_number_with_a_capital_e_too():
    # YAML 1.2's core schema: [eE]; PyYAML's own 1.1 resolver reads 2.5E+2 (it has a dot) but not 1E3 or 5E-1
    assert load_yaml_text("a: 1E3\nb: 5E-1\nc: -2E+2\n", "t.yaml") == {"a": 1000.0, "b": 0.5, "c": -200.0}
