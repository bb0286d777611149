"""The YAML reader's refusals and bookkeeping the tests did not pin: every spelling of a YAML-1.1-only boolean, the
parse cache's copies to every caller, a list entry's line, and an output path under a file refused up front. (qa452's
mutation round)"""

import os

import pytest

from roofline.errors import FIELD_LINES, RooflineError, field_line
from roofline.yamlio import check_file_out, load_yaml_text, read_text, read_yaml_file


@pytest.mark.parametrize("word", ["yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF"])
def test_every_spelling_of_a_yaml_1_1_boolean_is_refused(word):
    with pytest.raises(RooflineError, match=rf"^f\.yaml: line 1: not valid YAML: {word} is a boolean in YAML 1\.1 and text"):
        load_yaml_text(f"flag: {word}\n", "f.yaml")


def test_every_read_of_a_cached_file_is_a_copy_of_its_own(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("a: [1, 2]\nb: {c: 3}\n")
    read_yaml_file(path)  # parsed and cached
    second = read_yaml_file(path)  # served from the cache
    second["a"].append(3)
    second["b"]["c"] = 4
    assert read_yaml_file(path) == {"a": [1, 2], "b": {"c": 3}}  # the cache itself was not handed out


def test_a_list_entry_and_a_field_inside_one_are_named_at_their_own_lines():
    load_yaml_text("name: x\nlayouts:\n  - {tp: 1}\n  - 5\n  -\n    tp: 2\n", "l.yaml", lines=True)
    try:
        assert [field_line("l.yaml", f) for f in ("layouts", "layouts[0]", "layouts[1]", "layouts[2]", "layouts[2].tp")] \
            == [2, 3, 4, 6, 6]
    finally:
        FIELD_LINES.pop("l.yaml", None)


def test_a_scenario_layout_that_is_no_mapping_is_named_at_its_line(tmp_path):
    from roofline.scenario import load_scenario

    (tmp_path / "s.yaml").write_text("name: s\nhardware: h100-sxm\nmodel: llama-3.1-8b\nlayouts:\n  - {tp: 1}\n  - 5\n")
    with pytest.raises(RooflineError, match=r"s\.yaml: line 6: layouts\[1\]: expected a mapping"):
        load_scenario(str(tmp_path / "s.yaml"))


def test_an_output_under_a_file_is_refused_before_any_work(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(RooflineError) as err:
        check_file_out(tmp_path / "f" / "sub" / "out.yaml")
    assert str(err.value) == f"--out: {tmp_path / 'f'} is a file, so {tmp_path / 'f' / 'sub' / 'out.yaml'} cannot be created under it"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_named_as_one(tmp_path):
    fifo = tmp_path / "p.yaml"
    os.mkfifo(fifo)
    with pytest.raises(RooflineError) as err:
        read_text(fifo)
    assert str(err.value) == f"{fifo}: expected a regular file, found a FIFO"


def test_a_files_field_lines_are_kept_while_another_file_is_read():
    # a scenario's field error is raised after the profiles it names are read: its own lines must still be known
    try:
        load_yaml_text("name: a\nx: 1\n", "a.yaml", lines=True)
        load_yaml_text("name: b\n\ny: 2\n", "b.yaml", lines=True)
        assert (field_line("a.yaml", "x"), field_line("b.yaml", "y")) == (2, 3)
    finally:
        FIELD_LINES.pop("a.yaml", None)
        FIELD_LINES.pop("b.yaml", None)


def test_a_missing_file_is_named_in_its_one_line(tmp_path):
    missing = tmp_path / "missing.yaml"
    with pytest.raises(RooflineError) as err:
        read_text(missing)
    assert str(err.value) == f"{missing}: cannot read: No such file or directory"


def test_an_integer_of_more_digits_than_python_reads_is_one_line():
    with pytest.raises(RooflineError) as err:
        load_yaml_text("a: " + "1" * 5000 + "\n", "f.yaml")
    assert str(err.value) == "f.yaml: not valid here: an integer of more than 4,300 digits"


def test_a_field_of_an_anchored_mapping_is_named_at_its_own_line_and_one_reached_by_an_alias_at_the_alias():
    """qa452: the fields were recorded under the last path that reached the anchored node (an alias below it): the
    anchor's own `a.f` fell back to `a`'s line 1, and `b.f` was said at line 2, under `a`."""
    load_yaml_text("a: &x\n  f: 1\n  g: 2\nb: *x\n", "anchor.yaml", lines=True)
    try:
        assert [field_line("anchor.yaml", f) for f in ("a", "a.f", "a.g", "b", "b.f")] == [1, 2, 3, 4, 4]
    finally:
        FIELD_LINES.pop("anchor.yaml", None)
