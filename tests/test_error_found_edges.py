"""Session 69's changes at their edges (qa456, mutation-testing this session's error wording): what a JSON failure says
it found, where a benchmark file's failure is said when blank lines or indentation come before it, a group's did-you-
mean, every missing field named."""

import pytest

CONVERT = ("--hardware", "h100-sxm", "--model", "llama-3.1-8b")


def _convert(roofline, path, tmp_path):
    code, _, err = roofline("measurements", "convert", path, *CONVERT, "--out", tmp_path / "out.csv")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out.csv").exists()
    return err.strip()


def test_blank_lines_before_a_document_count_in_its_line_number(roofline, tmp_path):
    # lines 1-2 blank, line 3 '{"completed": 3,', line 4 ' "mean_tpot_ms": 5,}': the '}' at column 1 + 14 + 1 + 3 + 1 = 20
    (tmp_path / "lead.json").write_text('\n\n{"completed": 3,\n "mean_tpot_ms": 5,}\n')
    assert _convert(roofline, tmp_path / "lead.json", tmp_path).endswith(
        "lead.json: line 4: not valid JSON: Expecting property name enclosed in double quotes (column 20), found '}'")


@pytest.mark.parametrize("gap", ["  ", "\n"])  # the next line indented, or a blank line between
def test_a_cut_json_line_before_an_indented_or_distant_one_is_said_at_its_own_line(roofline, tmp_path, gap):
    # line 1, '{"completed": 3, "mean_tpot_ms": 5', is 34 characters: cut at column 35, the end of the line
    (tmp_path / "cut.jsonl").write_text('{"completed": 3, "mean_tpot_ms": 5\n' + gap + '{"completed": 3}\n')
    assert _convert(roofline, tmp_path / "cut.jsonl", tmp_path).endswith(
        "cut.jsonl: line 1: not valid JSON: Expecting ',' delimiter (column 35), found the end of the line")


def test_a_document_after_many_blank_lines_is_said_where_the_whole_text_fails(roofline, tmp_path):
    # 10 blank lines; line 11 '{"a": 1,' (fails alone at its end); line 12 ' "b": }': the whole document reads past
    # line 11 and fails at line 12's '}', column 7
    (tmp_path / "far.json").write_text("\n" * 10 + '{"a": 1,\n "b": }\n')
    assert _convert(roofline, tmp_path / "far.json", tmp_path).endswith(
        "far.json: line 12: not valid JSON: Expecting value (column 7), found '}'")


def test_twenty_characters_left_are_said_whole(roofline, tmp_path):
    # 'abcdefghijklmnopqrst' is 20 characters, the text's last: said whole, without ' ...'
    (tmp_path / "config.json").write_text('{"model_type": "llama", "hidden_size": abcdefghijklmnopqrst')
    code, _, err = roofline("models", "import", tmp_path / "config.json", "--name", "bad", "--dir", tmp_path)
    assert code == 2 and err.strip().endswith("Expecting value (column 40), found 'abcdefghijklmnopqrst'"), err


def test_a_windows_line_end_is_not_part_of_what_was_found(roofline, tmp_path):
    (tmp_path / "config.json").write_bytes(b'{"model_type": "llama",\r\n "hidden_size": 4096 }x\r\n')
    code, _, err = roofline("models", "import", tmp_path / "config.json", "--name", "bad", "--dir", tmp_path)
    assert code == 2 and err.strip().endswith("line 2: not valid JSON: Extra data (column 23), found 'x'"), err


@pytest.mark.parametrize("typed", ["modle", "hardwar"])
def test_a_group_offers_no_top_level_alias_it_does_not_have(roofline, typed):
    # 'roofline hw modle': models is a command of roofline, not of hw; nothing of hw's is near
    code, _, err = roofline("hw", typed, "x")
    assert code == 2 and err.strip().endswith("found none of that name"), err


def test_one_missing_field_is_said_alone(roofline, tmp_path):
    path = tmp_path / "one.yaml"
    path.write_text("type: model\nname: one\nhidden_size: 4096\nlayers: 32\nheads: 32\nkv_heads: 8\nhead_dim: 128\nffn_size: 14336\n")
    code, out, err = roofline("models", "validate", path)
    assert code == 2 and "one.yaml: vocab_size: expected a required field, found nothing" in out + err, out + err


def test_a_model_without_a_name_is_one_line_naming_it(roofline, tmp_path):
    path = tmp_path / "noname.yaml"
    path.write_text("type: model\nhidden_size: 4096\n")
    code, out, err = roofline("models", "validate", path)
    assert code == 2 and "Traceback" not in out + err
    assert ("noname.yaml: name: expected a required field (missing too: layers, heads, kv_heads, head_dim, ffn_size, "
            "vocab_size), found nothing") in out + err, out + err


@pytest.mark.slow
def test_a_truncated_scenario_json_of_a_sweep_says_the_end_of_the_text(roofline, tmp_path):
    (tmp_path / "s.yaml").write_text("name: s\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                                     "axes:\n  batch: [1, 8]\n  k: [0, 2]\n  alpha: [0.8]\n")
    assert roofline("sweep", tmp_path / "s.yaml", "--out", tmp_path / "sw", "--no-plots")[0] == 0
    (tmp_path / "sw" / "scenario.json").write_text('{\n  "axes": {"batch": [1, 8],\n')  # cut after line 2
    code, _, err = roofline("plot", tmp_path / "sw", "--out", tmp_path / "p")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "scenario.json: line 3: not valid JSON: Expecting property name enclosed in double quotes (column 1), found " \
        "the end of the text" in err, err


def test_an_indented_first_line_is_said_at_its_own_column(roofline, tmp_path):
    """qa456: '  [,' was said at column 2, the column in the text stripped of its indent; blank lines before it too."""
    for name, text, line in (("ind.json", '  [,\n{"completed": 3}]\n', 1), ("ind2.json", '\n\n  [,\n{"completed": 3}]\n', 3)):
        (tmp_path / name).write_text(text)
        code, _, err = roofline("measurements", "convert", tmp_path / name, "--hardware", "h100-sxm", "--model",
                                "llama-3.1-8b", "--out", tmp_path / "i.csv")
        assert code == 2 and err.strip().endswith(f"{name}: line {line}: not valid JSON: Expecting value (column 4), "
                                                  "found ','"), err
