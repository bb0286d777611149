"""roofline.yamlio: the bounded YAML and JSON readers, the parse cache, the UTF-8 table check and atomic writes."""

import re
from pathlib import Path

import pytest

from roofline.errors import RooflineError
from roofline.yamlio import (
    MAX_DEPTH,
    check_text_table,
    load_yaml_text,
    read_json_file,
    read_text,
    read_yaml_file,
    write_text_atomic,
)


@pytest.mark.parametrize("text, message", [
    ("a: 1\na: 2\n", "line 2: not valid YAML: duplicated key 'a' (first at line 1)"),
    ("1: x\n", "key 1 is read as 1, not a string (quote it: '1')"),
    ("on: x\n", "on is a boolean in YAML 1.1 and text in YAML 1.2: quote it for text ('on')"),
    ("a: " + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "\n", f"nesting deeper than {MAX_DEPTH} levels"),
    ("a: &a [x]\n" + "".join(f"b{i}: *a\n" for i in range(70)), "more than 64 aliases"),
])
def test_the_yaml_reader_refuses_what_safe_load_would_accept_silently(text, message):
    with pytest.raises(RooflineError) as err:
        load_yaml_text(text, "f.yaml")
    assert message in str(err.value) and str(err.value).startswith("f.yaml:")


def test_an_alias_bomb_is_refused_before_anything_walks_it():
    # Ten levels of nine aliases each expand to 9**10 = 3.5e9 values from a 500-byte file.
    lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 8):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 8) + "]")
    with pytest.raises(RooflineError, match="values once aliases are expanded"):
        load_yaml_text("\n".join(lines) + "\n", "bomb.yaml")


def test_a_document_nested_200000_deep_is_one_line_not_a_crash():
    # LibYAML's composer recurses in C: at this depth it would end the process with a segmentation fault.
    with pytest.raises(RooflineError, match=f"line 1: not valid YAML: nesting deeper than {MAX_DEPTH} levels"):
        load_yaml_text("[" * 200_000 + "]" * 200_000, "deep.yaml")


@pytest.mark.slow  # the pure-Python reads of 68 files take 0.4 s
def test_libyaml_and_the_pure_python_loader_read_every_shipped_file_and_tricky_scalars_alike(monkeypatch):
    import yaml

    from roofline import yamlio

    assert yamlio._CSafeLoader is yaml.CSafeLoader  # PyYAML's wheels carry LibYAML; the fast path is the one tested
    root = Path(__file__).resolve().parent.parent
    texts = [p.read_text() for folder in ("hardware_profiles", "model_profiles", "engine_profiles", "scenarios")
             for p in sorted((root / folder).glob("*.yaml"))]
    texts.append("a: 1e3\nb: 1.0e3\nc: 0x1F\nd: 2026-11-30\ne: true\nf: ~\ng: '08'\nh: '010'\ni: .inf\nj: 1000\n"
                 "k: &k {x: [1, 2]}\nl: *k\nm: {<<: *k, y: 3}\nn: |\n  two\n  lines\n")
    fast = [load_yaml_text(text, "f.yaml") for text in texts]
    monkeypatch.setattr(yamlio, "_CSafeLoader", None)
    slow = [load_yaml_text(text, "f.yaml") for text in texts]
    assert len(texts) > 40 and fast == slow


@pytest.mark.parametrize("written", ["010", "00", "1:12", "8:00", "1_000", "0b11", "1_000.5", "-010"])
def test_a_number_yaml_1_1_and_1_2_read_differently_is_refused_by_both_loaders(monkeypatch, written):
    """qa76: `hw set g scale_up_domain=010` wrote 8 (YAML 1.1's octal), `1:12` 72 (sexagesimal); an editor reading the
    file as YAML 1.2 (the schema's yaml-language-server) sees 10 and text. Both loaders refuse them in one line."""
    from roofline import yamlio

    for fast in (True, False):
        if not fast:
            monkeypatch.setattr(yamlio, "_CSafeLoader", None)
        with pytest.raises(RooflineError, match=rf"^f\.yaml: line 2: .*{re.escape(written)} reads differently in YAML 1\.1"):
            load_yaml_text(f"name: x\nv: {written}\n", "f.yaml")
    assert load_yaml_text("a: 0\nb: 0.80\nc: 0x10\nd: '010'\n", "f.yaml") == {"a": 0, "b": 0.8, "c": 16, "d": "010"}


def test_merge_keys_are_not_duplicates():
    assert load_yaml_text("base: &b {x: 1}\nthing:\n  <<: *b\n  x: 2\n", "m.yaml")["thing"] == {"x": 2}


def test_json_refuses_nan_and_deep_nesting(tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{"hidden_size": NaN}')
    with pytest.raises(RooflineError, match="NaN is not a JSON number"):
        read_json_file(path)
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(RooflineError, match="nested too deeply"):
        read_json_file(path)


def test_atomic_write_refuses_to_overwrite_and_to_write_under_a_file(tmp_path):
    target = tmp_path / "a.yaml"
    write_text_atomic(target, "x: 1\n")
    with pytest.raises(RooflineError, match="exists; pass --force"):
        write_text_atomic(target, "x: 2\n")
    write_text_atomic(target, "x: 2\n", force=True)
    assert target.read_text() == "x: 2\n"
    with pytest.raises(RooflineError, match="is a file, so"):
        write_text_atomic(target / "b.yaml", "x: 3\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.yaml"]  # no temporary file left behind


def test_a_parsed_file_is_cached_per_modification_and_every_caller_gets_its_own_copy(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("a: [1, 2]\n")
    first = read_yaml_file(path)
    first["a"].append(3)  # a caller editing its copy must not change what the next caller reads
    assert read_yaml_file(path) == {"a": [1, 2]}
    path.write_text("a: [1, 2, 3, 4]\n")  # a new size: parsed again, not served from the cache
    assert read_yaml_file(path) == {"a": [1, 2, 3, 4]}


@pytest.mark.parametrize("content, message", [
    (b"x" * 101, "expected at most 100 bytes, found 101"),
    (b"caf\xe9\n", "expected UTF-8 text, found bytes that are not (at byte 3)"),
])
def test_read_text_refuses_large_and_non_utf8_files_by_name(tmp_path, content, message):
    path = tmp_path / "f.txt"
    path.write_bytes(content)
    with pytest.raises(RooflineError) as err:
        read_text(path, limit_bytes=100)
    assert str(err.value) == f"{path}: {message}"


def test_read_text_refuses_a_folder_and_a_missing_file(tmp_path):
    with pytest.raises(RooflineError, match="expected a file, found a folder"):
        read_text(tmp_path)
    with pytest.raises(RooflineError, match="cannot read"):
        read_text(tmp_path / "missing.yaml")


@pytest.mark.parametrize("content, message", [
    (b"", "expected a sweep results table, found an empty file"),
    (b"a,b\n1,\xff\n", "found bytes that are not (at byte 6)"),
    (b"a,b\n1,\xc3", "found a truncated character at the end"),
])
def test_a_results_table_must_be_non_empty_utf8(tmp_path, content, message):
    path = tmp_path / "results.csv"
    path.write_bytes(content)
    with pytest.raises(RooflineError, match=re.escape(message)):
        check_text_table(path)


def test_a_utf8_table_passes_the_check(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text("hardware,model\nh100-sxm,café\n", encoding="utf-8")
    check_text_table(path)  # no error


def test_an_atomic_replace_keeps_the_files_permissions(tmp_path):
    target = tmp_path / "mine.yaml"
    target.write_text("x: 1\n")
    target.chmod(0o600)
    write_text_atomic(target, "x: 2\n", force=True)
    assert target.read_text() == "x: 2\n" and (target.stat().st_mode & 0o777) == 0o600
    fresh = tmp_path / "sub" / "new.yaml"
    write_text_atomic(fresh, "y: 1\n")
    assert (fresh.stat().st_mode & 0o777) == 0o644


def test_libyamls_own_depth_limit_is_said_as_the_readers(monkeypatch):
    # LibYAML 0.2.5+ refuses 1,000 levels itself ("exceeded maximum nesting depth"), before the reader counts to 33
    import yaml

    from roofline import yamlio

    def parse(text, Loader):
        yield yaml.StreamStartEvent()
        raise yaml.scanner.ScannerError(None, None, "exceeded maximum nesting depth", yaml.Mark("f", 0, 20, 5, None, None))

    monkeypatch.setattr(yaml, "parse", parse)
    if yamlio._CSafeLoader is None:
        pytest.skip("no LibYAML: the pure-Python reader has no event pass")
    with pytest.raises(RooflineError, match=f"^f.yaml: line 21: not valid YAML: nesting deeper than {MAX_DEPTH} levels$"):
        load_yaml_text("a: 1\n" * 30, "f.yaml")


def test_a_float_without_a_dot_reads_as_a_number_as_yaml_1_2_and_ruamel_write_it():
    """`hw set gpu efficiency.compute=5e-1` wrote 5e-1, which PyYAML (YAML 1.1) read back as the text '5e-1'."""
    from roofline.yamlio import load_yaml_text

    data = load_yaml_text("a: 5e-1\nb: 1e3\nc: -2.5E+2\nd: e5\ne: '1e3'\nf: 12\n", "t.yaml")
    assert data == {"a": 0.5, "b": 1000.0, "c": -250.0, "d": "e5", "e": "1e3", "f": 12}


def test_a_field_error_names_the_line_of_the_field_in_the_file_read(tmp_path):
    """Only YAML syntax errors said their line; `efficiency.memory: expected a fraction` left the user to find it."""
    from roofline.hardware import load_hardware
    from roofline.profiles import builtin_dir

    text = (builtin_dir("hardware") / "h100-sxm.yaml").read_text().replace("name: h100-sxm", "name: eff")
    line = next(i for i, row in enumerate(text.splitlines(), 1) if row.strip().startswith("memory: 0.85"))
    (tmp_path / "eff.yaml").write_text(text.replace("  memory: 0.85", "  memory: 1.5"))
    with pytest.raises(RooflineError, match=rf"eff.yaml: line {line}: efficiency.memory: expected a fraction in \[0.01, 1\], found 1.5$"):
        load_hardware(str(tmp_path / "eff.yaml"))
    (tmp_path / "sc.yaml").write_text("name: sc\nhardware: h100-sxm\nmodel: llama-3.1-8b\naxes:\n  batch: [1, 0]\n")
    from roofline.scenario import load_scenario

    with pytest.raises(RooflineError, match=r"sc.yaml: line 5: axes.batch: expected values >= 1, found 0$"):
        load_scenario(str(tmp_path / "sc.yaml"))


def test_a_recursive_alias_is_read_once_not_walked_forever(tmp_path):
    """`notes: &n [*n]` hung every command that read the file (gigabytes of memory) once field lines were recorded, and
    loading it as a profile ended in a RecursionError traceback (the cache's copy)."""
    from roofline.hardware import load_hardware

    (tmp_path / "rec.yaml").write_text("type: hardware\nname: rec\nnotes: &n [*n]\n")
    with pytest.raises(RooflineError, match=r"rec.yaml: not valid here: an alias inside the value it names"):
        load_hardware(str(tmp_path / "rec.yaml"))


def test_a_boolean_only_yaml_1_1_has_is_refused_at_its_line():
    """qa108: `ffn_gated: yes` loaded as true (PyYAML reads YAML 1.1), where YAML 1.2 and an editor's schema read text."""
    from roofline.yamlio import load_yaml_text

    for word in ("yes", "No", "on", "OFF"):
        with pytest.raises(RooflineError, match=rf"^f.yaml: line 2: not valid YAML: {word} is a boolean in YAML 1.1 and text in YAML 1.2: quote it for text \('{word}'\), or write true or false$"):
            load_yaml_text(f"a: 1\nflag: {word}\n", "f.yaml")
    assert load_yaml_text("flag: true\nother: false\ntext: 'yes'\n", "f.yaml") == {"flag": True, "other": False, "text": "yes"}


def test_both_loaders_refuse_a_yaml_1_1_boolean(monkeypatch):
    from roofline import yamlio
    from roofline.yamlio import load_yaml_text

    monkeypatch.setattr(yamlio, "_CSafeLoader", None)
    with pytest.raises(RooflineError, match=r"line 1: not valid YAML: Off is a boolean in YAML 1.1"):
        load_yaml_text("flag: Off\n", "f.yaml")


@pytest.mark.parametrize("text, start, end", [
    ("a: 1\nb: 2\nc: 3\nd: 4\nname: \"H100 fast HBM\ne: 5\nf: 6\n", 5, 7),  # an unclosed quote
    ("a: 1\nb: 2\nstep_overhead 20 us\nc: 3\nd: 4\n", 3, 4),  # a key without its colon
    ("a: 1\nb: [1, 2\nc: 3\nd: 4\n", 2, 3),  # an unclosed bracket
])
def test_a_yaml_syntax_error_names_the_line_where_the_broken_part_starts(text, start, end):
    """qa182: an unclosed quote on line 5 was said at line 34, where the parser gave up; now the line it starts on,
    then where the parser stopped."""
    with pytest.raises(RooflineError) as err:
        load_yaml_text(text, "f.yaml")
    said = str(err.value)
    assert said.startswith(f"f.yaml: line {start}: not valid YAML: ") and f" at line {end} (" in said
    assert said.endswith(f" started on line {start})"), said


@pytest.mark.parametrize("text, line", [
    ("name: x\nsource: a\nb: 1\n- x\nc: 2\n", 4),  # a stray list entry
    ("name: x\npeak:\n  bf16: 1\n bad: 2\nc: 3\n", 4),  # a dedented nested key
    ("name: x\nsource: \"a\nb: 1\nnotes: \"x\"\nc: 2\n", 4),  # an unclosed quote closed by a later one
])
def test_a_yaml_error_inside_the_top_mapping_is_not_said_at_its_first_key(text, line):
    """qa183: 'while parsing a block mapping' starts at the file's first key: the rule above named line 1 for these."""
    with pytest.raises(RooflineError) as err:
        load_yaml_text(text, "f.yaml")
    assert str(err.value).startswith(f"f.yaml: line {line}: not valid YAML: "), str(err.value)
    assert "started on line" not in str(err.value)


def test_a_file_output_at_a_link_to_no_file_is_refused_not_replaced(tmp_path):
    """qa246: `cheapest --out dangling.csv` (a link to a missing file) replaced the link with a plain file, no --force."""
    from roofline.yamlio import write_text_atomic

    link = tmp_path / "dangling.csv"
    link.symlink_to(tmp_path / "nothere.csv")
    with pytest.raises(RooflineError, match="is a symbolic link that leads to no file"):
        write_text_atomic(link, "x\n", force=True)
    assert link.is_symlink() and not (tmp_path / "nothere.csv").exists()


def test_checking_an_output_file_makes_no_folder(tmp_path):
    """qa288: `fit X.csv --out new/sub/x.yaml` that then failed on its rows left new/sub/ behind, empty (and cheapest
    likewise): the check tries writing in the nearest folder that exists and makes none."""
    from roofline.yamlio import check_file_out, write_text_atomic

    target = tmp_path / "new" / "sub" / "x.yaml"
    check_file_out(target)
    assert not (tmp_path / "new").exists() and list(tmp_path.iterdir()) == []
    write_text_atomic(target, "a: 1\n")  # the write makes them
    assert target.read_text() == "a: 1\n"


def test_a_file_edited_within_one_clock_tick_is_read_again(tmp_path):
    """qa311: parsed files were kept per (path, modification time, size), so `hw set price=2.0 USD/h` over `price: 1.0
    USD/h` (the same size) within one tick of a coarse file clock was read as the old price in the same process."""
    import os

    from roofline.yamlio import read_yaml_file

    path = tmp_path / "p.yaml"
    path.write_text("price: 1.0 USD/h\n")
    stamp = path.stat().st_mtime_ns
    assert read_yaml_file(path) == {"price": "1.0 USD/h"}
    path.write_text("price: 2.0 USD/h\n")
    os.utime(path, ns=(stamp, stamp))  # the same time and size as before
    assert read_yaml_file(path) == {"price": "2.0 USD/h"}
