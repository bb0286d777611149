"""Session 69's changes at their edges (qa456, mutation-testing this session's profile copies, shadow notes, the
report's engine versions, accuracy's family and the fast tiers' memory-miss sentence): behaviour the earlier tests
left open."""

import warnings

import pandas as pd
import pytest

pytestmark = pytest.mark.slow  # hw new / predict / a report of one scenario: 1-5 s a test


def test_a_profiles_copy_names_every_file_it_hides(roofline, tmp_path, monkeypatch):
    from roofline import predict
    from roofline.profiles import builtin_dir

    user, one, two = tmp_path / "user", tmp_path / "one", tmp_path / "two"
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(user))
    for folder in (user, one, two):
        assert roofline("hw", "new", "h100-sxm", "--from", "h100-sxm", "--dir", folder, "--force")[0] == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        said = predict(model="llama-3.1-8b", hardware="h100-sxm", batch=1, profiles=[one, two])["warnings"]
    assert (f"hardware h100-sxm is {one / 'h100-sxm.yaml'}, which shadows {two / 'h100-sxm.yaml'} and "
            f"{user / 'h100-sxm.yaml'} and the built-in {builtin_dir('hardware') / 'h100-sxm.yaml'}") in said, said


def test_a_copy_of_a_priced_copy_says_set_by_hand_once(roofline, tmp_path, monkeypatch):
    """t94's set-by-hand line is roofline's own: t95, a copy of it, writes its own, not t94's as well."""
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    assert roofline("hw", "new", "t94", "--from", "h100-sxm-94gb", "--set", "price=2 USD/h")[0] == 0
    assert roofline("hw", "new", "t95", "--from", "t94")[0] == 0
    lines = (tmp_path / "t95.yaml").read_text().splitlines()
    assert sum("set by hand" in line for line in lines if line.startswith("#")) == 1, lines[:6]
    assert lines[1].startswith("# set by hand") and lines[2].startswith("# h100-sxm-94gb's header: "), lines[:6]


def test_a_blank_line_inside_a_top_comment_does_not_end_it(roofline, tmp_path, monkeypatch):
    from roofline.profiles import builtin_dir

    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    body = [line for line in (builtin_dir("hardware") / "h100-sxm.yaml").read_text().splitlines() if not line.startswith("#")]
    (tmp_path / "mine.yaml").write_text("# Our rack's H100s.\n\n# Bought 2025; priced at our own rate.\n"
                                        + "\n".join(body).replace("name: h100-sxm", "name: mine", 1) + "\n")
    code, _, err = roofline("hw", "new", "copy", "--from", "mine")
    assert code == 0, err
    text = (tmp_path / "copy.yaml").read_text()
    assert "# mine's header: Our rack's H100s.\n# Bought 2025; priced at our own rate.\n" in text, text[:600]


def test_accuracy_reads_a_profiles_folders_copy_by_its_family(roofline, tmp_path, monkeypatch):
    from roofline.accuracy import accuracy_table
    from roofline.measurements import COLUMNS

    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user"))
    assert roofline("hw", "new", "my-accel", "--from", "mi300x", "--dir", tmp_path / "extra")[0] == 0
    row = {"source_id": "a", "source": "test", "engine": "vllm", "engine_version": "", "hardware": "my-accel",
           "gpus": "1", "tp": "1", "ep": "1", "dp_attention": "1", "model": "llama-3.1-8b", "weight_dtype": "bf16",
           "kv_dtype": "bf16", "batch": "1", "input_len": "500", "output_len": "200", "method": "none", "k": "0",
           "acceptance_length": "", "quantity": "tokens_per_s_per_user", "value": "120", "split": "heldout", "notes": ""}
    path = tmp_path / "m.csv"
    pd.DataFrame([row], columns=list(COLUMNS)).to_csv(path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = accuracy_table(path, profiles=(tmp_path / "extra",))
    assert df["family"].tolist() == ["AMD Instinct"]


def test_an_engine_of_a_profiles_folder_is_said_with_its_version(roofline, tmp_path, monkeypatch):
    from roofline.report import _with_version

    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user"))
    assert roofline("engines", "new", "e9", "--from", "vllm", "--set", "version=9.9", "--dir", tmp_path / "extra")[0] == 0
    assert _with_version("e9", (tmp_path / "extra",)) == "e9 (9.9)"


def test_a_reports_section_names_its_engine_with_the_versions_it_describes(tmp_path):
    from roofline.report import write_report
    from roofline.serving import load_engine

    (tmp_path / "s.yaml").write_text("name: s\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\nengine: vllm\n"
                                     "axes:\n  batch: [1, 8]\n  context: [512]\n  k: [0, 2]\n  alpha: [0.8]\n")
    write_report([str(tmp_path / "s.yaml")], tmp_path / "rep")
    text = (tmp_path / "rep" / "report.md").read_text()
    assert f"serving engine vllm ({load_engine('vllm').version})" in text, text[:2000]


def test_the_memory_miss_names_every_device_priced(tmp_path):
    """vllm's gpt-oss memory miss has no device of its own: on an H100 and an H200 priced side by side both are named,
    not the cheapest alone."""
    from roofline.findings import finding, question_rows
    from roofline.report import run_scenario

    path = tmp_path / "tiers.yaml"
    path.write_text("name: tiers\nquestion: fast-tier-premium\nhardware: [h100-sxm, h200]\nmodel: gpt-oss-120b\n"
                    "method: eagle\naxes:\n  batch: [1, 8, 32, 64, 128]\n  context: [2048]\n  k: [0, 2, 4]\n  alpha: [0.8]\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = run_scenario(str(path))
        df, ops, meta, _ = question_rows("fast-tier-premium", r.df, r.ops, r.meta)
        text = finding("fast-tier-premium", df, ops, meta, strict=False).text
    said = [s for s in text.split(". ") if "take more memory" in s]
    assert len(said) == 1 and ("on H100 SXM5 and H200 SXM the largest batch" in said[0]
                               or "on H200 SXM and H100 SXM5 the largest batch" in said[0]), text
