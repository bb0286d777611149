"""roofline.errors: the one-line messages every bad input gets (file, field, expected, found)."""

import warnings
from pathlib import Path

import pytest

from roofline.errors import RooflineError, RooflineWarning, field_error, unknown_key_error, unknown_name_error, warn
from roofline.hardware import load_hardware

ROOT = Path(__file__).resolve().parent.parent


def test_a_field_error_names_file_field_expected_and_found_and_is_a_value_error():
    err = field_error("h100.yaml", "memory", "a size like '80 GB'", "eighty")
    assert isinstance(err, ValueError) and isinstance(err, RooflineError)
    assert str(err) == "h100.yaml: memory: expected a size like '80 GB', found 'eighty'"
    assert "\n" not in str(field_error("f", "k", "x", "two\nlines"))  # repr keeps a found value on one line


def test_a_boolean_found_is_shown_as_yaml_writes_it():
    # `--set scale_up_domain=true` said "found True", a word the user never typed (qa108)
    assert str(field_error("h.yaml", "scale_up_domain", "a device count", True)).endswith("found true")
    assert str(field_error("h.yaml", "nvidia_only", "a boolean", 0)).endswith("found 0")


def test_a_long_found_value_is_cut_to_120_characters():
    message = str(field_error("f.yaml", "notes", "a string", "x" * 500))
    found = message.split("found ", 1)[1]
    assert len(found) == 120 and found.endswith("...") and found.startswith("'xxx")


def test_an_unknown_name_suggests_the_closest_names_and_the_list_command():
    message = str(unknown_name_error("hardware", "h100-sx", ["h100-sxm", "h200", "a100-sxm-80gb", "mi300x"]))
    assert message.startswith("unknown hardware 'h100-sx'; closest: h100-sxm")
    assert message.endswith("(see `roofline hw list`)")
    far = str(unknown_name_error("engine", "zzz", ["vllm", "sglang"]))  # nothing close: the most similar anyway
    assert set(far.split("closest: ", 1)[1].split(" (see", 1)[0].split(", ")) == {"vllm", "sglang"}
    assert far.endswith("(see `roofline engines list`)")
    # shared words first, case aside: 'H100-PCIE-80' offered a100-sxm-80gb, a100-pcie-40gb, h100-sxm, never h100-pcie (qa88)
    pcie = str(unknown_name_error("hardware", "H100-PCIE-80", ["a100-sxm-80gb", "a100-pcie-40gb", "h100-sxm", "h100-pcie"]))
    assert pcie.startswith("unknown hardware 'H100-PCIE-80'; closest: h100-pcie, ")
    # case and separators aside, a name that starts alike first; shared numbers alone are no match (qa89: qwen-3-8b
    # offered llama-3.1-8b first, B300-SXM h100-sxm)
    from roofline.profiles import list_names

    models, devices = list_names("model"), list_names("hardware")
    for asked, kind, known, first in (("qwen-3-8b", "model", models, "qwen3-8b"), ("qwen-3-32b", "model", models, "qwen3-32b"),
                                      ("Llama-3.1-70B-Instruct", "model", models, "llama-3.1-70b"),
                                      ("B300-SXM", "hardware", devices, "b300"), ("h100-pcie-80gb", "hardware", devices, "h100-pcie")):
        assert str(unknown_name_error(kind, asked, known)).split("closest: ", 1)[1].startswith(first + ","), asked
    assert "none installed" in str(unknown_name_error("scenario", "x", []))


def test_an_unknown_name_with_a_file_of_that_name_here_says_to_give_its_path(tmp_path, monkeypatch):
    """qa242: `roofline sweep s01` beside s01.yaml offered three unrelated built-in scenarios."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s01.yaml").write_text("name: s01\n")
    assert str(unknown_name_error("scenario", "s01", ["fast-tier"])) == (
        "unknown scenario 's01'; ./s01.yaml is a file here: give its path (./s01.yaml) to read it")
    assert "closest: fast-tier" in str(unknown_name_error("scenario", "s02", ["fast-tier"]))


def test_an_unknown_key_suggests_the_nearest_known_one_or_lists_them():
    assert str(unknown_key_error("s.yaml", "methd", {"method", "model", "hardware"})) == (
        "s.yaml: methd: expected a known field (did you mean 'method'?), found 'methd'")
    listed = str(unknown_key_error("s.yaml", "qqqq", {"b", "a"}))
    assert "expected a known field (one of a, b), found 'qqqq'" in listed
    assert len(str(unknown_key_error("s.yaml", "k" * 300, {"a"}))) < 300  # a huge key is cut to 80 characters


def test_warn_raises_a_roofline_warning_the_cli_can_print():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warn("efficiency.memory 0.99 is above what any GPU sustains")
    assert len(caught) == 1 and issubclass(caught[0].category, RooflineWarning)
    assert str(caught[0].message) == "efficiency.memory 0.99 is above what any GPU sustains"
    with pytest.warns(RooflineWarning, match="looks"):
        warn("looks odd")


def test_every_did_you_mean_takes_one_rule():
    """Suggestions were written five times, each differently: `--method eagel` and `--kv-dtype fp88` got none (qa93)."""
    from roofline.errors import closest_names
    from roofline.profiles import normalize_dtype
    from roofline.speculation import unknown_method

    assert closest_names("acceptance_len", ["acceptance_length", "k", "ep"], 1, 1.0) == ["acceptance_length"]
    assert closest_names("EP", ["ep", "tp"], 1, 1.0) == ["ep"]  # case aside
    assert closest_names("H100-PCIE-80", ["a100-pcie-40gb", "h100-pcie", "h100-sxm"], 1) == ["h100-pcie"]
    assert closest_names("zzz", ["ep", "tp"], 1, 0.8) == []
    assert str(unknown_method("x", "eagel")).endswith("found 'eagel' (did you mean eagle?)")
    assert str(unknown_method("x", "EAGEL")).endswith("found 'EAGEL' (did you mean eagle?)")  # case aside
    assert str(unknown_method("b.yaml", True)).endswith("found true")  # YAML's true, as written (qa120)
    # qa405: an engine's own name of a method (SGLang's NEXTN, vLLM's deepseek_mtp) is told which method it is here
    assert str(unknown_method("x", "NEXTN")).endswith("found 'NEXTN' (SGLang's NEXTN is DeepSeek's multi-token "
                                                      "prediction: method mtp here)")
    assert str(unknown_method("x", "draft-model")).endswith("(vLLM's draft_model is a draft model: method draft here)")
    assert str(unknown_method("x", "EAGLE-3")).endswith("acceptance_length: method eagle here)")  # as papers spell it
    assert str(unknown_method("x", "eagle3")).endswith("(EAGLE-3 is an EAGLE head, its acceptance given as alpha or "
                                                       "acceptance_length: method eagle here)")
    assert str(unknown_method("x", "deepseek_mtp")).endswith("(vLLM's deepseek_mtp is DeepSeek's multi-token prediction: "
                                                             "method mtp here)")
    for spelled, meant in (("fp88", "fp8"), ("bfloat", "bf16"), ("FP-8", "fp8")):
        with pytest.raises(RooflineError, match=rf"expected one of fp32, bf16, fp16, fp8, int8 \(did you mean {meant}\?\), found '{spelled}'"):
            normalize_dtype(spelled, ("fp32", "bf16", "fp16", "fp8", "int8"), "x", "kv_dtype")
    for other in ("int4", "fp6", "int16"):  # a dtype not allowed here, or another bit width: no guess (qa94)
        with pytest.raises(RooflineError, match=rf"expected one of fp32, bf16, fp16, fp8, int8, found '{other}'"):
            normalize_dtype(other, ("fp32", "bf16", "fp16", "fp8", "int8"), "x", "kv_dtype")


def test_an_unknown_field_offers_every_name_about_as_near():
    """`bandwith` offered link_bandwidth alone, where memory_bandwidth is as likely meant (qa98)."""
    from roofline.errors import unknown_key_error

    known = ["memory", "memory_bandwidth", "link_bandwidth", "link_latency", "scale_out_bandwidth", "name"]
    assert "(did you mean 'link_bandwidth' or 'memory_bandwidth'?)" in str(unknown_key_error("f.yaml", "bandwith", known))
    assert "(did you mean 'name'?)" in str(unknown_key_error("f.yaml", "anme", known))
    assert "one of link_bandwidth" in str(unknown_key_error("f.yaml", "zzz", known))


def test_a_null_found_in_a_file_is_shown_as_yaml_and_json_write_it_and_as_none_from_python(tmp_path):
    """qa223: `memory:` (or a JSON null) said 'found None', a word neither file format has."""
    assert str(field_error("x.yaml", "memory", "a size", None)) == "x.yaml: memory: expected a size, found null"
    assert str(field_error("bench.JSON", "ttft", "a time", None)).endswith("found null")
    assert str(field_error("runs.jsonl: result 1", "max_concurrency", "a count", None)).endswith("found null")  # qa435
    assert str(field_error("predict", "batch", "an integer", None)) == "predict: batch: expected an integer, found None"
    path = tmp_path / "nul.yaml"
    path.write_text((ROOT / "hardware_profiles" / "h100-sxm.yaml").read_text().replace("memory: 81559 MiB", "memory:"))
    with pytest.raises(RooflineError, match=r"nul.yaml: line \d+: memory: expected a string like '80 GB', found null$"):
        load_hardware(str(path))


def test_a_field_name_with_a_line_break_is_shown_by_its_repr_on_one_line():
    """The fuzz tests: a YAML key of '\\n\\n  ' made an unknown-key message of three lines."""
    assert str(field_error("x.yaml", "\n\n  ", "a known field", "v")) == "x.yaml: '\\n\\n  ': expected a known field, found 'v'"
    assert "\n" not in str(unknown_key_error("x.yaml", "\n\n  ", ["name", "memory"]))
    assert str(field_error("x.yaml", "memory", "a size", 1)).startswith("x.yaml: memory: ")  # a plain name as written


@pytest.mark.slow
def test_a_warning_from_a_callers_folder_named_like_the_package_is_attributed_to_the_caller(tmp_path):
    """qa318: `errors.warn` took every file whose path began with the package's folder for the package's own, so a
    caller in a folder named roofline_nb beside it was skipped and the warning attributed to its caller's caller."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    import roofline

    package = Path(roofline.__file__).resolve().parent
    sibling = package.parent / f"{package.name}_qa318_probe"  # beside the package, as a notebook folder would be
    sibling.mkdir(exist_ok=True)
    try:
        (sibling / "cell.py").write_text("from roofline.errors import warn\n\ndef run():\n    warn('probe')\n")
        (tmp_path / "main.py").write_text(f"import sys\nsys.path.insert(0, {str(sibling)!r})\nimport cell\n\ncell.run()\n")
        done = subprocess.run([sys.executable, str(tmp_path / "main.py")], capture_output=True, text=True, timeout=60)
        assert f"{sibling / 'cell.py'}:4: RooflineWarning: probe" in done.stderr, done.stderr
    finally:
        shutil.rmtree(sibling, ignore_errors=True)
