"""Errors say what they found: a JSON parse failure names what stands at the failing column (qa447: 'not valid JSON:
Expecting ...' alone), and a group's command typed at the top level ('roofline convert') is offered under its group."""

import json

import pytest

VLLM_RESULT = {"backend": "vllm", "completed": 100, "mean_tpot_ms": 7.5, "max_concurrency": 8,
               "total_input_tokens": 102400, "total_output_tokens": 12800, "output_throughput": 1000.0}


def test_a_stray_comma_in_benchmark_json_names_what_follows_it(roofline, tmp_path):
    (tmp_path / "comma.json").write_text('{"completed": 3,\n "mean_tpot_ms": 5,}\n')
    code, _, err = roofline("measurements", "convert", tmp_path / "comma.json", "--hardware", "h100-sxm", "--model",
                            "llama-3.1-8b", "--out", tmp_path / "comma.csv")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert err.strip().endswith("comma.json: line 2: not valid JSON: Expecting property name enclosed in double quotes "
                                "(column 20), found '}'"), err
    assert not (tmp_path / "comma.csv").exists()


def test_a_cut_json_lines_file_says_the_end_of_the_line(roofline, tmp_path):
    text = json.dumps(VLLM_RESULT)
    (tmp_path / "cut.jsonl").write_text(text[:-1] + "\n" + text + "\n")
    code, _, err = roofline("measurements", "convert", tmp_path / "cut.jsonl", "--hardware", "h100-sxm", "--model",
                            "llama-3.1-8b", "--out", tmp_path / "cut.csv")
    assert code == 2 and f"cut.jsonl: line 1: not valid JSON: Expecting ',' delimiter (column {len(text)}), found the end " \
        "of the line" in err, err


def test_a_truncated_model_config_says_the_end_of_the_text(roofline, tmp_path):
    (tmp_path / "config.json").write_text('{"model_type": "llama", "hidden_size": 4096,\n "num_attention_heads": ')
    code, _, err = roofline("models", "import", tmp_path / "config.json", "--name", "cut", "--dir", tmp_path)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "config.json: line 2: not valid JSON: Expecting value (column 25), found the end of the text" in err, err
    assert not (tmp_path / "cut.yaml").exists()


def test_a_long_bad_token_is_cut_at_twenty_characters(roofline, tmp_path):
    (tmp_path / "config.json").write_text('{"model_type": "llama", "hidden_size": abcdefghijklmnopqrstuvwxyz}')
    code, _, err = roofline("models", "import", tmp_path / "config.json", "--name", "bad", "--dir", tmp_path)
    assert code == 2 and err.strip().endswith("Expecting value (column 40), found 'abcdefghijklmnopqrst' ..."), err


@pytest.mark.slow
def test_a_broken_scenario_json_of_a_sweep_names_its_line_and_what_it_found(roofline, tmp_path):
    (tmp_path / "s.yaml").write_text("name: s\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                                     "axes:\n  batch: [1, 8]\n  k: [0, 2]\n  alpha: [0.8]\n")
    assert roofline("sweep", tmp_path / "s.yaml", "--out", tmp_path / "sw", "--no-plots")[0] == 0
    (tmp_path / "sw" / "scenario.json").write_text('{\n  "axes": {"batch": [1, 8]]\n}\n')
    code, _, err = roofline("plot", tmp_path / "sw", "--out", tmp_path / "p")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "scenario.json: line 2: not valid JSON: Expecting ',' delimiter (column 27), found ']'" in err, err


@pytest.mark.parametrize(("typed", "offered"), [
    ("convert", "(did you mean measurements convert?)"),  # a group's command at the top level
    ("hardwar", "(did you mean hw?)"),  # near an alias of hw, not only the alias itself
    ("modle", "(did you mean models?)"),
])
def test_an_unknown_command_is_offered_its_group_or_its_alias(roofline, typed, offered):
    code, _, err = roofline(typed, "x")
    assert code == 2 and err.strip().endswith(f"found none of that name {offered}"), err


def test_a_command_of_several_groups_is_offered_under_each(roofline):
    code, _, err = roofline("new", "x")
    assert code == 2 and "(did you mean hw new or models new or scenarios new or engines new?)" in err, err
