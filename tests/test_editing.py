"""The profile commands end to end through main(): hw new/set/edit/validate/diff/schema/show, models import."""

import difflib
import json
import os
import re
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

import cli
from roofline.errors import RooflineError, field_line
from roofline.hardware import load_hardware
from roofline.model import load_model

ROOT = Path(__file__).resolve().parent.parent
HF = ROOT / "tests" / "data" / "hf"


@pytest.fixture(autouse=True)
def _isolated_user_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user-profiles"))
    monkeypatch.delenv("ROOFLINE_PATH", raising=False)


def test_hw_new_writes_a_valid_typed_file_in_the_user_folder(roofline, tmp_path):
    code, out, err = roofline("hw", "new", "my-gpu", "--from", "h100", "--set", "memory=96 GB",
                              "--set", "peak_flops.bf16=148 TFLOPS", "--set", "price=null")
    assert code == 0, err
    path = tmp_path / "user-profiles" / "my-gpu.yaml"
    assert out.strip() == f"wrote {path}"
    data = yaml.safe_load(path.read_text())
    assert data["type"] == "hardware" and data["name"] == "my-gpu" and "price" not in data
    hw = load_hardware("my-gpu")
    assert hw.mem_bytes == 96e9 and hw.peak_flops_per_s["bf16"] == 148e12
    assert hw.peak_flops_per_s["fp8"] == load_hardware("h100-sxm").peak_flops_per_s["fp8"]  # untouched fields copied
    code, _, err = roofline("hw", "new", "my-gpu", "--from", "h100")
    assert code == 2 and "exists; pass --force" in err


def test_hw_new_refuses_an_invalid_result_and_writes_nothing(roofline, tmp_path):
    code, _, err = roofline("hw", "new", "bad-gpu", "--from", "h100-sxm", "--set", "memory_bandwidth=3 TB", "--dir", tmp_path)
    assert code == 2
    assert err.strip() == (f"error: {tmp_path / 'bad-gpu.yaml'} (not written): memory_bandwidth: expected a bandwidth like '3.35 TB/s' "
                           "('TB' is a size in bytes, not a bandwidth), found '3 TB'")
    assert list(tmp_path.iterdir()) == []


def test_a_new_profile_says_whose_values_it_holds_and_is_not_displayed_as_its_source(tmp_path):
    from roofline.editing import new_profile

    path = new_profile("hardware", "my-h20", "h100-sxm", ["memory_bandwidth=4.0 TB/s"], out_dir=tmp_path)
    text = path.read_text()
    assert text.startswith("# my-h20 (copy of NVIDIA H100 SXM5 80GB): made with `roofline hw new my-h20 --from h100-sxm "
                           "--set 'memory_bandwidth=4.0 TB/s'`; every field not set there is h100-sxm's")
    assert text.splitlines()[1] == "# set by hand, not from the source or notes below: memory_bandwidth."
    assert load_hardware("my-h20", (tmp_path,)).display_name == "my-h20 (copy of NVIDIA H100 SXM5 80GB)"
    aliased = new_profile("hardware", "my-h20c", "h100", [], out_dir=tmp_path)  # an alias: the profile it names is said
    assert "--from h100`; every field not set there is h100-sxm's" in aliased.read_text().splitlines()[0]
    named = new_profile("hardware", "my-h20b", "h100-sxm", ["display_name=My H20"], out_dir=tmp_path)
    assert load_hardware(named.stem, (tmp_path,)).display_name == "My H20"


def test_a_price_set_by_hand_replaces_the_no_price_sentence_it_contradicts(tmp_path):
    """`hw new l40s-neg --from l40s --set price=...` showed the price and, below it, 'No price: hardware-specs.md gives
    none.' from the copied notes."""
    from roofline.editing import new_profile, set_fields
    from roofline.tables import hardware_table

    assert "No price:" in load_hardware("l40s").notes
    path = new_profile("hardware", "l40s-neg", "l40s", ["price=0.95 USD/h"], out_dir=tmp_path)
    hw = load_hardware("l40s-neg", (tmp_path,))
    assert hw.price_usd_per_hour == 0.95 and "No price:" not in hw.notes and "Price set by hand" in hw.notes
    assert "No price" not in hardware_table(hw)
    unpriced = new_profile("hardware", "l40s-copy", "l40s", [], out_dir=tmp_path)  # no price set: the sentence stays
    assert "No price:" in load_hardware(unpriced.stem, (tmp_path,)).notes
    set_fields("hardware", "l40s-copy", ["price=1.1 USD/h"], (tmp_path,))
    assert "No price:" not in load_hardware("l40s-copy", (tmp_path,)).notes
    assert path.read_text().count("\n") > 10  # still a whole profile
    owned = new_profile("hardware", "m4-rented", "apple-m4-max", ["price=2 USD/h"], out_dir=tmp_path)  # 'No price (owned ...).'
    assert "No price" not in load_hardware(owned.stem, (tmp_path,)).notes
    # qa447: a source given with the price in the same edit is not said to be 'not' the price's
    quoted = new_profile("hardware", "l40s-quoted", "l40s", ["price=0.95 USD/h", "source=a neocloud's quote, 2026-12"],
                         out_dir=tmp_path)
    notes = load_hardware(quoted.stem, (tmp_path,)).notes
    assert "with the source or notes given in the same edit" in notes and "not from the source" not in notes, notes
    assert "not from the source" in hw.notes


def test_hw_show_marks_a_price_set_by_hand_beside_the_copied_sources_price_reasoning(tmp_path):
    """qa214: `hw set h100-cheap price=1.50 USD/h` then `hw show` printed the price and, below it, the copied source's
    reasoning for $3.00 with nothing marking the price as set by hand (the file's header comment said so, unprinted)."""
    from roofline.editing import new_profile, set_fields
    from roofline.tables import hardware_table

    new_profile("hardware", "h100-cheap", "h100-sxm", ["price=2.10 USD/h"], out_dir=tmp_path)
    set_fields("hardware", "h100-cheap", ["price=1.50 USD/h", "memory_bandwidth=3.0 TB/s"], (tmp_path,))
    text = hardware_table(load_hardware("h100-cheap", (tmp_path,)))
    assert "price             1.50 USD/h  (set by hand)" in text
    assert "set by hand       memory_bandwidth, price (hw new --set / set / edit)" in text, text
    assert "set by hand" not in hardware_table(load_hardware("h100-sxm"))  # a built-in: none


def test_the_shipped_h20_is_the_h100_with_the_h20_datasheet_numbers():
    h20, h100 = load_hardware("h20"), load_hardware("h100-sxm")
    assert (h20.mem_bw_bytes_per_s, h20.peak_flops_per_s["bf16"], h20.peak_flops_per_s["fp8"]) == (4.0e12, 148e12, 296e12)
    assert h20.mem_bytes == pytest.approx(96e9, rel=0.07)                  # "96 GB" on the datasheet
    assert h20.ridge_point_flops_per_byte("bf16") == pytest.approx(37.0)   # 148e12 / 4.0e12
    assert h20.mem_efficiency == h100.mem_efficiency and h20.price_usd_per_hour is None
    # bf16 measured on the H20 itself (141.86 of 148 TFLOP/s in PyTorch: 0.95); fp8 the H100's 0.71, as its source says
    assert h20.compute_efficiency == 0.95 and h20.compute_efficiency_by_dtype == h100.compute_efficiency_by_dtype
    assert "made with `roofline hw new h20 --from h100-sxm`" in (ROOT / "hardware_profiles" / "h20.yaml").read_text()


def test_hw_set_keeps_comments_order_and_formatting(roofline, tmp_path):
    original = LAB_GPU.format(name="lab-gpu")  # comments, order, flow mapping and spacing to keep
    path = tmp_path / "lab-gpu.yaml"
    path.write_text(original)
    code, _, err = roofline("--profiles", tmp_path, "hw", "set", "lab-gpu", "memory_bandwidth=1.1 TB/s", "efficiency.compute=0.75")
    assert code == 0, err
    expected = (original.replace("memory_bandwidth: 1.0 TB/s   # stream", "memory_bandwidth: 1.1 TB/s   # (was 1.0 TB/s) stream")
                        .replace("  compute: 0.7\n", "  compute: 0.75\n"))
    assert path.read_text() == expected
    code, _, err = roofline("hw", "set", "lab-gpu", "efficiency.compute=1.5", "--profiles", tmp_path)
    assert code == 2 and "efficiency.compute: expected a fraction in [0.01, 1], found 1.5" in err
    assert path.read_text() == expected  # an invalid change never reaches the file


def test_hw_set_refuses_a_builtin_without_force(roofline):
    code, _, err = roofline("hw", "set", "h100-sxm", "memory=1 GB")
    assert code == 2 and "is a built-in profile; copy it first with `roofline hw new" in err


def _fake_editor(tmp_path, rounds):
    """An $EDITOR that writes rounds[i] on its i-th call (None: leave the file as it is)."""
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"rounds": rounds, "calls": 0, "seen": []}))
    script = tmp_path / "editor.py"
    script.write_text(
        "import json, sys\n"
        f"plan_path = {str(plan)!r}\n"
        "plan = json.load(open(plan_path))\n"
        "text = open(sys.argv[1]).read()\n"
        "plan['seen'].append(text)\n"
        "new = plan['rounds'][plan['calls']]\n"
        "plan['calls'] += 1\n"
        "json.dump(plan, open(plan_path, 'w'))\n"
        "if new is not None:\n"
        "    open(sys.argv[1], 'w').write(new)\n")
    return f"{sys.executable} {script}", plan


LAB_GPU = (
    "# My lab's GPU: measured 2026-01-10.\n"
    "type: hardware\n"
    "name: {name}\n"
    "display_name: Lab GPU   # as the vendor names it\n"
    "kind: gpu\n"
    "memory: 24 GB\n"
    "memory_bandwidth: 1.0 TB/s   # stream triad, not the datasheet\n"
    "peak_flops: {{bf16: 100 TFLOP/s, fp32: 20 TFLOP/s}}\n"
    "on_chip_cache: 40 MB\n"
    "link_bandwidth: 32 GB/s\n"
    "link_latency: 10 us\n"
    "efficiency:\n"
    "  memory: 0.8     # measured\n"
    "  compute: 0.7\n"
    "  link: 0.8\n"
    "step_overhead: 30 us\n"
    "source: lab notebook p. 12\n"
    "notes: none\n"
)


def _user_copy(roofline, name="ed-gpu"):
    folder = Path(__import__("os").environ["ROOFLINE_USER_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(LAB_GPU.format(name=name))
    return path


def test_hw_edit_reopens_with_the_error_on_top_until_valid(roofline, tmp_path, monkeypatch):
    path = _user_copy(roofline)
    good = path.read_text().replace("memory: 24 GB", "memory: 81 GB")
    bad = path.read_text().replace("memory: 24 GB", "memory: 81 GB/s")
    editor, plan = _fake_editor(tmp_path, [bad, good])
    monkeypatch.setenv("EDITOR", editor)
    monkeypatch.delenv("VISUAL", raising=False)
    code, out, err = roofline("hw", "edit", "ed-gpu")
    assert code == 0, err
    seen = json.loads(plan.read_text())["seen"]
    assert len(seen) == 2 and seen[1].startswith("# roofline: NOT SAVED: ") and "memory: expected a size in bytes" in seen[1]
    assert path.read_text() == good and load_hardware("ed-gpu").mem_bytes == 81e9


def test_hw_edit_does_not_overwrite_a_change_made_while_the_editor_was_open(roofline, tmp_path, monkeypatch):
    """A `set` run while `edit` had the file open was lost when the editor saved."""
    path = _user_copy(roofline)
    meanwhile = path.read_text().replace("memory: 24 GB", "memory: 48 GB")
    script = tmp_path / "editor.py"
    script.write_text("import sys\n"
                      f"open({str(path)!r}, 'w').write({meanwhile!r})  # another command, while the editor is open\n"
                      "text = open(sys.argv[1]).read()\n"
                      "open(sys.argv[1], 'w').write(text.replace('memory: 24 GB', 'memory: 81 GB'))\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    code, _, err = roofline("hw", "edit", "ed-gpu")
    assert code == 2 and "changed on disk while it was being edited, so your edit is not saved there: it is in" in err
    assert path.read_text() == meanwhile
    kept = [p for p in path.parent.glob("ed-gpu.yaml.*.edit")]
    assert len(kept) == 1 and "memory: 81 GB" in kept[0].read_text() and str(kept[0]) in err  # the edit, not lost


def test_hw_edit_opens_a_file_with_a_yaml_syntax_error_so_it_can_be_fixed(roofline, tmp_path, monkeypatch):
    """`hw edit` refused a user file it could not parse, the one command that could fix it."""
    path = _user_copy(roofline)
    good = path.read_text()
    path.write_text(good.replace("kind: gpu\n", "kind: gpu\nkind: cpu\n"))  # a duplicated key: not valid YAML
    editor, plan = _fake_editor(tmp_path, [good])
    monkeypatch.setenv("EDITOR", editor)
    monkeypatch.delenv("VISUAL", raising=False)
    code, out, err = roofline("hw", "edit", "ed-gpu")
    assert code == 0, err
    seen = json.loads(plan.read_text())["seen"]
    assert seen[0].startswith("# roofline: NOT SAVED: ") and "duplicated key 'kind'" in seen[0]
    assert path.read_text() == good


def test_hw_edit_never_leaves_an_invalid_file_behind(roofline, tmp_path, monkeypatch):
    path = _user_copy(roofline)
    before = path.read_text()
    editor, _ = _fake_editor(tmp_path, [before.replace("kind: gpu", "kind: gpv"), None])  # then gives up
    monkeypatch.setenv("EDITOR", editor)
    monkeypatch.delenv("VISUAL", raising=False)
    code, _, err = roofline("hw", "edit", "ed-gpu")
    assert code == 2 and "the edit was given up while invalid" in err and "kind: expected one of" in err
    assert path.read_text() == before


def test_hw_validate_reports_each_file_and_exits_2_on_any_failure(roofline, tmp_path):
    good = ROOT / "hardware_profiles" / "h20.yaml"
    bad = tmp_path / "x.yaml"
    bad.write_text(LAB_GPU.format(name="x").replace("memory: 24 GB", "memory: 24 GB\nmemory: 80 GB"))
    code, out, err = roofline("hw", "validate", good, bad)
    assert code == 2 and out.splitlines()[0] == f"ok    {good}"
    assert "duplicated key 'memory'" in out.splitlines()[1]
    assert "1 of 2 files failed validation: " in err and "duplicated key 'memory'" in err  # its cause on stderr too (qa340)
    code, out, _ = roofline("hw", "validate")
    assert code == 0 and out.count("ok    ") == len(list((ROOT / "hardware_profiles").glob("*.yaml")))
    code, out, _ = roofline("hw", "validate", "h100")  # a profile's name is found on the search path
    assert code == 0 and out == f"ok    {ROOT / 'hardware_profiles' / 'h100-sxm.yaml'}\n"
    code, out, _ = roofline("engines", "validate", "vllm", "no-such-engine")
    assert code == 2 and out.splitlines()[0].endswith("engine_profiles/vllm.yaml")
    assert out.splitlines()[1].startswith("FAIL  unknown engine 'no-such-engine'")
    code, out, _ = roofline("hw", "validate", "vllm")  # qa422: a name of another kind, checked as what it is, as its
    assert code == 0 and out == f"ok    {ROOT / 'engine_profiles' / 'vllm.yaml'} (an engine profile, checked as one)\n"  # path


def test_hw_diff_shows_values_side_by_side_with_ridge_point_and_a_reference_model(roofline):
    code, out, err = roofline("hw", "diff", "h100-sxm", "h20")
    assert code == 0, err
    lines = {line.split("  ")[0]: line for line in out.splitlines()}
    assert "3.35 TB/s" in lines["memory_bandwidth"] and "4 TB/s" in lines["memory_bandwidth"]
    ridge = lines["peak ridge bf16 (FLOP/B)"].split()
    assert ridge[-3:-1] == ["295.3", "37"] or ridge[-4:-2] == ["295.3", "37"]   # 989.4/3.35 and 148/4.0
    assert "278" in lines["derated ridge bf16 (FLOP/B)"]  # 989.4 x 0.80 / (3.35 x 0.85)
    heading = out.splitlines().index("llama-3.1-8b decoding on 1 x each, ideal engine:")
    assert out.splitlines()[heading + 1] == "  (tp 1; bf16 weights)"
    assert out.splitlines()[heading + 2].startswith("  B=1 S=1024 step time")
    assert max(map(len, out.splitlines()[2:])) <= 80  # the table (not the two file paths above it) fits 80 columns
    # the cost a planner compares (qa91), the devices' rent over the tokens, as predict prices it; '-' without a price
    import roofline as api

    cost = api.predict("h100-sxm", "llama-3.1-8b", 1, 1024, engine="ideal")["cost_usd_per_million_tokens"]
    from roofline.units import format_significant

    row = next(line for line in out.splitlines() if line.startswith("  B=1 S=1024 USD / M tokens"))
    assert row.split()[-4] == f"${format_significant(cost)}" and row.split()[-3] == "-"  # h20: no price
    peaks = [label for label in lines if label.startswith("peak_flops.")]
    assert peaks == ["peak_flops." + d for d in ("fp32", "tf32", "bf16", "fp16", "fp8", "int8")]  # the profiles' order
    assert "296 TOP/s" in lines["peak_flops.int8"] and "FLOP" not in lines["peak_flops.int8"]
    assert "fp4_formats" not in lines  # neither has fp4 units
    code, out, err = roofline("hw", "diff", "b200", "mi355x")  # NVFP4 runs natively on one only (qa85)
    row = [line for line in out.splitlines() if line.startswith("fp4_formats")]
    assert code == 0 and row and row[0].split()[1:] == ["mxfp4,", "nvfp4", "mxfp4", "-", "*"]
    # qa264: a dtype's share shown as each device takes it, its own or the one it falls back to, not '-' for none
    code, out, err = roofline("hw", "diff", "mi300x", "mi355x")
    row = next(line for line in out.splitlines() if line.startswith("efficiency.compute_fp8"))
    assert row.split()[1:3] == ["0.49", "0.62"], row


def test_hw_diff_marks_every_field_that_changes_a_prediction_and_points_that_do_not_fit(roofline):
    code, out, err = roofline("hw", "diff", "h100-sxm", "h200")
    assert code == 0, err
    marked = {line.split("  ")[0] for line in out.splitlines() if line.endswith("*")}
    assert {"efficiency.link", "efficiency.compute_fp8", "memory"} <= marked  # link 0.84 / 0.88, fp8 0.71 / 0.73
    assert "usable_memory_fraction" not in marked
    code, out, _ = roofline("hw", "diff", "l4", "h100-sxm")
    point = next(line for line in out.splitlines() if line.startswith("  B=64 S=4096 tokens/s"))
    assert "does not fit" in point  # an 8B model's 64 sequences of 4k tokens need more than an L4's 24 GB
    step = next(line for line in out.splitlines() if line.startswith("  B=64 S=4096 step time"))
    assert "does not fit" in step  # not a step time for a point that cannot run
    code, out, _ = roofline("hw", "diff", "h100-sxm", "h200", "--model", "deepseek-v3", "--tp", "8")
    assert "deepseek-v3 decoding on 8 x each" in out and "does not fit" in out and "ms" in out  # fits on 8 H200, not 8 H100
    code, out, err = roofline("hw", "diff", "h200", "mi300x", "--model", "deepseek-v3", "--dp-attention", "8", "--ep", "8")
    assert code == 0, err
    assert "  (tp 1, dp-attention 8, ep 8; fp8 weights, fp8 experts)" in out.splitlines()
    assert "354.1" in next(line for line in out.splitlines() if line.startswith("derated ridge fp8"))  # the experts' dtype too
    assert max(map(len, out.splitlines()[2:])) <= 80
    code, _, err = roofline("hw", "diff", "h100", "a100", "--ep", "2")
    assert code == 2 and err.strip() == "error: command line: --ep: expected 1 for a dense model (llama-3.1-8b has no experts), found 2"


def test_hw_schema_is_the_shipped_file_and_every_shipped_profile_satisfies_it(roofline):
    code, out, _ = roofline("hw", "schema")
    assert code == 0
    shipped = (ROOT / "docs" / "hardware.schema.json").read_text()
    assert out == shipped, "regenerate with: roofline hw schema > docs/hardware.schema.json"
    validator = jsonschema.Draft202012Validator(json.loads(out))
    for path in sorted((ROOT / "hardware_profiles").glob("*.yaml")):
        assert path.read_text().startswith("# yaml-language-server: $schema=../docs/hardware.schema.json\n"), path
        errors = [e.message for e in validator.iter_errors(yaml.safe_load(path.read_text()))]
        assert errors == [], (path, errors)
    bad = yaml.safe_load((ROOT / "hardware_profiles" / "h20.yaml").read_text())
    bad["memory_bandwidth"] = "4 TB"
    assert not validator.is_valid(bad)
    for text, valid in (("0 TB/s", False), ("0.0 TB/s", False), ("0e3 GB/s", False), (".5 TB/s", True), ("0.05 TB/s", True),
                        ("10 TB/s", True), ("1e-1 TB/s", True)):
        bad["memory_bandwidth"] = text  # the loader refuses zero quantities, so the schema does
        assert validator.is_valid(bad) is valid, text


def test_hw_show_names_the_file_it_read_and_the_file_it_shadows(roofline, tmp_path):
    data = yaml.safe_load((ROOT / "hardware_profiles" / "h100-sxm.yaml").read_text())
    data["type"] = "hardware"
    (tmp_path / "h100-sxm.yaml").write_text(yaml.safe_dump(data))
    code, out, _ = roofline("hw", "show", "H100", "--profiles", tmp_path)   # alias, and --profiles after the command
    assert code == 0
    assert f"file: {tmp_path / 'h100-sxm.yaml'}" in out and f"shadows: {ROOT / 'hardware_profiles' / 'h100-sxm.yaml'}" in out
    code, out, _ = roofline("hw", "show", "h100-sxm", "--json", f"--profiles={tmp_path}")
    assert json.loads(out)["shadows"] == [str(ROOT / "hardware_profiles" / "h100-sxm.yaml")]
    # qa406: a file named by a built-in's short name (h100.yaml: h100 is h100-sxm's alias) hides it too
    (tmp_path / "h100-sxm.yaml").unlink()
    (tmp_path / "h100.yaml").write_text(yaml.safe_dump({**data, "name": "h100"}))
    code, out, _ = roofline("hw", "show", "h100", "--profiles", tmp_path)
    assert code == 0 and out.rstrip().endswith(f"file: {tmp_path / 'h100.yaml'}\nshadows: {ROOT / 'hardware_profiles' / 'h100-sxm.yaml'}")
    (tmp_path / "h100-sxm.yaml").write_text(yaml.safe_dump(data))  # a user file of the built-in's name beside it: that is
    code, out, _ = roofline("hw", "show", "h100", "--profiles", tmp_path)  # what h100 would mean without h100.yaml (qa409)
    assert code == 0 and out.rstrip().endswith(f"file: {tmp_path / 'h100.yaml'}\nshadows: {tmp_path / 'h100-sxm.yaml'}"), out[-300:]
    (tmp_path / "h100-sxm.yaml").unlink()
    code, out, _ = roofline("hw", "show", "h100-sxm", "--profiles", tmp_path)  # the built-in by its own name: nothing hidden
    assert code == 0 and "shadows:" not in out and out.rstrip().endswith(f"file: {ROOT / 'hardware_profiles' / 'h100-sxm.yaml'}")


def test_hw_list_warns_about_a_user_file_whose_kind_cannot_be_told(roofline, tmp_path):
    (tmp_path / "mystery.yaml").write_text("name: mystery\ncolour: blue\n")
    code, out, err = roofline("hw", "list", "--profiles", tmp_path)
    assert code == 0 and "h100-sxm" in out
    assert err.strip() == (f"warning: {tmp_path / 'mystery.yaml'}: kind cannot be told (no `type:` and none of the keys that tell "
                           "a kind (memory_bandwidth, layers, kernel_latency, axes)); add `type: hardware`, `type: model`, `type: engine` or `type: scenario`")


def test_a_user_file_that_is_not_valid_yaml_is_named_as_unreadable_not_told_to_add_a_type(roofline, tmp_path):
    (tmp_path / "dup.yaml").write_text("type: hardware\nname: dup\nmemory: 80 GB\nmemory: 80 GB\n")
    code, _, err = roofline("hw", "list", "--profiles", tmp_path)
    assert code == 0 and err.strip() == (f"warning: {tmp_path / 'dup.yaml'}: cannot be read: line 4: not valid YAML: "
                                         "duplicated key 'memory' (first at line 3)")
    code, _, err = roofline("predict", "--hardware", "dup", "--profiles", tmp_path)
    assert code == 2 and "but it cannot be read: line 4" in err and "add `type" not in err


def test_hw_validate_checks_engine_profiles_with_their_costs_from(roofline, tmp_path):
    code, out, _ = roofline("hw", "validate", *sorted((ROOT / "engine_profiles").glob("*.yaml")))
    assert code == 0 and out.count("ok    ") == len(list((ROOT / "engine_profiles").glob("*.yaml")))
    (tmp_path / "my-engine.yaml").write_text("type: engine\nname: other\nsource: mine\nkernel_latency: 3 us\n")
    code, out, _ = roofline("hw", "validate", tmp_path / "my-engine.yaml")
    assert code == 2 and "name: expected the file name 'my-engine', found 'other'" in out


@pytest.mark.parametrize("name, published, active", [
    ("qwen3-30b-a3b", 30.5e9, 3.3e9), ("qwen3-235b-a22b", 235e9, 22e9),
    ("llama-4-scout", 109e9, 17e9), ("llama-4-maverick", 400e9, 17e9),
])
def test_shipped_imported_models_are_what_models_import_makes_from_their_config(roofline, tmp_path, monkeypatch, name,
                                                                                published, active):
    shipped = ROOT / "model_profiles" / f"{name}.yaml"
    source = yaml.safe_load(shipped.read_text())
    monkeypatch.chdir(HF)  # the header gives the config as typed: the shipped files were made beside it
    code, out, err = roofline("models", "import", f"{name}.json", "--name", name, "--display-name", source["display_name"],
                              "--published-params", published, "--published-active", active,
                              "--source", source["source"], "--tokenizer", source["tokenizer"],
                              "--dir", tmp_path, "--force")  # the built-in's own name
    assert code == 0, err
    assert (tmp_path / f"{name}.yaml").read_text() == shipped.read_text()
    code, _, err = roofline("models", "import", f"{name}.json", "--name", name, "--display-name", source["display_name"],
                            "--published-params", published, "--published-active-params", active,  # the older name
                            "--source", source["source"], "--tokenizer", source["tokenizer"], "--dir", tmp_path / "old", "--force")
    assert code == 0, err
    assert (tmp_path / "old" / f"{name}.yaml").read_text() == shipped.read_text()
    for _ in range(2 if name == "llama-4-scout" else 0):  # qa205: the second said 'models new: ... exists'
        code, _, err = roofline("models", "import", HF / f"{name}.json", "--name", "mine", "--dir", tmp_path / "mine")
    assert name != "llama-4-scout" or (code == 2 and f"models import: {tmp_path / 'mine' / 'mine'}.yaml exists; pass --force" in err), err
    model = load_model(name)
    assert model.params == pytest.approx(published, rel=0.02)          # vision tower excluded for Llama 4 Scout: -1.1%
    assert model.active_params == pytest.approx(active, rel=0.02)


def test_the_shipped_minimax_m27_has_its_configs_shapes_and_the_checkpoints_fp8(roofline, tmp_path):
    """qa429: tests/data/hf/minimax-m2.7.json backed the hand-written profile but no test read it: the shipped profile's
    shapes are what `models import` makes of it, its precision the FP8 checkpoint's (router, embedding, LM head bf16)."""
    code, _, err = roofline("models", "import", HF / "minimax-m2.7.json", "--name", "mm", "--dir", tmp_path)
    assert code == 0, err
    imported, shipped = load_model(str(tmp_path / "mm.yaml")), load_model("minimax-m2.7")
    for field in ("layers", "hidden_size", "heads", "kv_heads", "head_dim", "ffn_size", "ffn_gated", "vocab_size",
                  "tied_embeddings", "max_context_tokens", "moe"):
        assert getattr(shipped, field) == getattr(imported, field), field
    assert shipped.params == imported.params == pytest.approx(230e9, rel=0.01)
    assert shipped.active_params == pytest.approx(10e9, rel=0.15)
    precision = yaml.safe_load((ROOT / "model_profiles" / "minimax-m2.7.yaml").read_text())["precision"]
    assert (precision["default"], precision["block"], precision["router"], precision["lm_head"]) == ("fp8", 128, "bf16", "bf16")


def test_import_counts_qwen3_30b_a3b_by_hand():
    # per layer: q 2048*4096 + k, v 2*2048*512 + o 4096*2048 = 18,874,368; experts 128*3*2048*768 = 603,979,776;
    # router 2048*128 = 262,144; two norms 4,096 -> 623,120,384 * 48 = 29,909,778,432;
    # embedding + untied head 2*151936*2048 = 622,329,856; final norm 2,048 -> 30,532,110,336.
    # KerasHub's preset says 30,532,122,624: 12,288 more = the q/k norms (48 layers * 2 * 128), not counted here.
    assert load_model("qwen3-30b-a3b").params == 30_532_110_336


def test_import_warns_when_the_count_misses_the_published_figure(roofline, tmp_path):
    code, out, err = roofline("models", "import", HF / "qwen3-30b-a3b.json", "--name", "q", "--published-params", 40e9, "--dir", tmp_path)
    assert code == 0 and "params 30.53B (published 40.00B, -23.7%)" in out
    assert err.startswith("warning: ") and "-23.7% from published 40.00B" in err


def test_profiles_option_works_before_and_after_the_command():
    assert cli.hoist_profiles(["predict", "--profiles", "d", "--k", "2"]) == ["--profiles", "d", "predict", "--k", "2"]
    assert cli.hoist_profiles(["hw", "show", "x", "--profiles=d"]) == ["--profiles=d", "hw", "show", "x"]
    assert cli.hoist_profiles(["hw", "show", "--", "--profiles"]) == ["hw", "show", "--", "--profiles"]


@pytest.mark.parametrize("command", [["predict"], ["sweep"], ["hw", "set"], ["models", "import"], ["fit"], ["measurements", "convert"]])
def test_every_commands_help_names_the_profiles_option_it_takes(roofline, command):
    code, out, _ = roofline(*command, "--help")
    assert code == 0 and "--profiles DIR" in " ".join(out.split())


@pytest.mark.parametrize("args, message", [
    (["predict", "--k", "1000000000"], "command line: --k: expected a whole number from "),
    (["predict", "--tp", "1000000"], "command line: --tp: expected a whole number from "),
    (["predict", "--batch", "1000000000000"], "command line: --batch: expected a whole number from "),
    (["predict", "--context", "10000000000"], "command line: --context: expected a whole number from "),
    (["predict", "--weight-dtype", "fp9"], "command line: --weight-dtype: expected one of fp32, bf16, fp16, fp8, int8, w8a16, int4, fp4, nvfp4, found 'fp9'"),
    (["predict", "--method", "eagle", "--tree-nodes", "2", "--tree-tau", "12"],  # the body named the API field tree_nodes
     "command line: --tree-tau: expected a number in [1, --tree-nodes + 1 = 3], found 12.0"),
    # the tighter bound first: the depth's, k's default or given (qa433: 'in [1, 11]', then 'at most 4' of 8)
    (["predict", "--method", "eagle", "--tree-nodes", "8", "--tree-tau", "12"],
     "command line: --tree-tau: expected at most k + 1 = 5 (a tree of depth k = 4 emits at most k + 1 tokens an "
     "iteration; k not given: the default depth, give k), found 12.0"),
    (["predict", "--method", "eagle", "--k", "3", "--tree-nodes", "10", "--tree-tau", "12"],
     "command line: --tree-tau: expected at most k + 1 = 4 (a tree of depth k = 3 emits"),
    (["predict", "--method", "draft", "--draft", "llama-3.2-1b"],  # "alpha or acceptance": not flags
     "command line: --alpha or --acceptance: expected one of them, or an --acceptance-length, for method 'draft'"),
])
def test_predict_options_are_bounded_with_a_message(roofline, args, message):
    code, out, err = roofline(*args)
    assert code == 2 and message in err and out == ""


def test_predict_uses_the_h20_made_with_hw_new(roofline):
    code, out, err = roofline("predict", "--hardware", "H20", "--model", "llama-3.1-8b", "--batch", "1", "--json")
    assert code == 0, err
    point = json.loads(out)
    h20 = load_hardware("h20")
    # a decode step reads every weight byte at least once at the derated 4.0 TB/s: 16.06e9 B / 3.4e12 B/s = 4.7 ms
    floor_s = point["weight_bytes"] / (h20.mem_bw_bytes_per_s * h20.mem_efficiency)
    assert point["step_time_s"] >= floor_s > 4e-3


def test_the_h20_command_of_profiles_md_runs_as_written(roofline, tmp_path):
    import shlex

    doc = (ROOT / "docs" / "PROFILES.md").read_text()
    start = doc.index("roofline hw new h20 ")
    command = shlex.split(doc[start:doc.index("\nroofline predict", start)].replace("\\\n", " "))
    assert command[command.index("--dir") + 1] == "hardware_profiles"
    command[command.index("--dir") + 1] = str(tmp_path)  # never into the built-in folder
    code, out, err = roofline(*command[1:], "--force")  # h20 is a built-in's name now: shadowing it takes --force
    assert code == 0, err
    data = yaml.safe_load((tmp_path / "h20.yaml").read_text())
    assert data["source"].startswith("NVIDIA HGX H20 product brief: 96 GB HBM3, 4.0 TB/s")
    assert load_hardware(str(tmp_path / "h20.yaml")).mem_bw_bytes_per_s == 4.0e12


@pytest.mark.parametrize(("value", "read"), [
    ("NVIDIA datasheet: 4.0 TB/s", "NVIDIA datasheet: 4.0 TB/s"),   # prose YAML reads as a mapping
    ("...", "..."),                                                 # YAML's document end
    ("datasheet: table 2: 4.0 TB/s", "datasheet: table 2: 4.0 TB/s"),
    ("`nvidia-smi` says 97871 MiB", "`nvidia-smi` says 97871 MiB"),
    ("brief #2, p. 3", "brief #2, p. 3"),                           # not a YAML comment
    ('"dense" FLOPS, not "sparse"', '"dense" FLOPS, not "sparse"'),
    ("'quoted: kept as YAML'", "quoted: kept as YAML"),
    ("148 TFLOPS", "148 TFLOPS"), ("0.75", 0.75), ("true", True), ("null", None), ("[a, b]", ["a", "b"]),
    ("{bf16: 148 TFLOPS}", {"bf16": "148 TFLOPS"}),
])
def test_a_set_value_is_yaml_where_it_is_a_value_and_else_the_text_as_written(value, read):
    from roofline.editing import parse_assignments

    assert parse_assignments([f"x_lab={value}"]) == [(["x_lab"], read)]


def test_a_mistyped_list_or_mapping_is_still_refused_in_one_line():
    from roofline.editing import parse_assignments
    from roofline.errors import RooflineError

    for value in ("{bf16: 148 TFLOPS", "[a, b"):  # (no 'line 1': a value on the command line has none)
        with pytest.raises(RooflineError, match=r"^--set peak_flops: not valid YAML: "):
            parse_assignments([f"peak_flops={value}"])


def test_quoted_text_yaml_would_read_as_another_type_is_written_quoted():
    """qa298: `--set "display_name='off'"`, quoted as the YAML 1.1 hint asks, was written bare and refused with that hint."""
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    from roofline.editing import parse_assignments

    for given, text in (("display_name='off'", "off"), ('expert_parallel="no"', "no"), ("display_name='8'", "8")):
        ((_, value),) = parse_assignments([given], kind="engine")
        assert value == text and isinstance(value, DoubleQuotedScalarString), given
    ((_, value),) = parse_assignments(["display_name='plain text'"], kind="engine")
    assert value == "plain text" and not isinstance(value, DoubleQuotedScalarString)


def test_a_number_or_boolean_the_two_yamls_read_apart_is_refused_with_why():
    """A file's `scale_up_domain: 010` is refused with the YAML 1.1 / 1.2 hint; `hw set scale_up_domain=010` was read
    as the text '010' and refused as no device count, without why (1_0, 1:12 and yes alike)."""
    from roofline.editing import parse_assignments
    from roofline.errors import RooflineError

    for value, said in (("010", "010 reads differently in YAML 1.1"), ("1_0", "1_0 reads differently in YAML 1.1"),
                        ("1:12", "1:12 reads differently"), ("yes", "yes is a boolean in YAML 1.1 and text in YAML 1.2")):
        with pytest.raises(RooflineError, match=rf"^hw set scale_up_domain: not valid YAML: {said}"):
            parse_assignments([f"scale_up_domain={value}"], "hw set")
    assert parse_assignments(["scale_up_domain='010'", "notes=yes"]) == [(["scale_up_domain"], "010"), (["notes"], "yes")]


def test_hw_new_refuses_a_name_that_differs_only_in_case_from_a_profile_in_the_folder(roofline, tmp_path):
    code, _, err = roofline("hw", "new", "X7", "--from", "h100-sxm", "--dir", tmp_path)
    assert code == 2 and "expected a lower-case name (profile names are lower case: x7), found 'X7'" in err
    shipped = (ROOT / "hardware_profiles" / "h100-sxm.yaml").read_text()
    (tmp_path / "X7.yaml").write_text("type: hardware\n" + shipped.replace("name: h100-sxm", "name: X7"))  # made by hand
    for force in ((), ("--force",)):
        code, out, err = roofline("hw", "new", "x7", "--from", "h100-sxm", "--dir", tmp_path, *force)
        assert code == 2 and "names are case-insensitive" in err and "beside X7.yaml" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["X7.yaml"]


def test_hw_set_removing_a_field_keeps_the_comment_block_above_the_next_field(roofline, tmp_path):
    # ruamel files the lines between two entries under the entry before them: removing `price` or
    # `efficiency.compute_fp8` took the comment above `link_bandwidth` / `efficiency.link` with it
    original = (LAB_GPU.format(name="lab-gpu")
                .replace("on_chip_cache: 40 MB\n", "on_chip_cache: 40 MB\nprice: 1.20 USD/h   # list\n# links: measured with nccl-tests\n")
                .replace("  link: 0.8\n", "  compute_fp8: 0.6  # fp8 GEMMs\n  # p2p copies\n  link: 0.8\n"))
    path = tmp_path / "lab-gpu.yaml"
    path.write_text(original)
    code, _, err = roofline("--profiles", tmp_path, "hw", "set", "lab-gpu", "price=", "efficiency.compute_fp8=")
    assert code == 0, err
    assert path.read_text() == (original.replace("price: 1.20 USD/h   # list\n", "").replace("  compute_fp8: 0.6  # fp8 GEMMs\n", ""))
    code, _, err = roofline("--profiles", tmp_path, "hw", "set", "lab-gpu", "efficiency.compute=")
    assert code == 2 and "efficiency.compute" in err  # required: refused, the file unchanged


def test_removing_keeps_the_lines_after_the_entry_and_drops_its_own_end_of_line_comment():
    from roofline.editing import _dump, _load_rt, _pop_keeping_comments

    text = "a: 1\nb: 2  # b's own\n# above c\n\n# more\nc: 3\nd:\n  x: 1\n  # above y\n  y: 2\n# above e\ne: 5\n"
    cases = {
        ("b",): "a: 1\n# above c\n\n# more\nc: 3\nd:\n  x: 1\n  # above y\n  y: 2\n# above e\ne: 5\n",
        ("d",): "a: 1\nb: 2  # b's own\n# above c\n\n# more\nc: 3\n# above e\ne: 5\n",
        ("d", "y"): "a: 1\nb: 2  # b's own\n# above c\n\n# more\nc: 3\nd:\n  x: 1\n  # above y\n# above e\ne: 5\n",
        ("e",): "a: 1\nb: 2  # b's own\n# above c\n\n# more\nc: 3\nd:\n  x: 1\n  # above y\n  y: 2\n# above e\n",  # kept
    }
    for path, expected in cases.items():
        doc = _load_rt(text, "t.yaml")
        node = doc
        for part in path[:-1]:
            node = node[part]
        _pop_keeping_comments(node, path[-1])
        assert _dump(doc) == expected, path


def test_hw_set_writes_through_a_symbolic_link(roofline, tmp_path):
    real = tmp_path / "kept" / "lab-gpu.yaml"
    real.parent.mkdir()
    real.write_text(LAB_GPU.format(name="lab-gpu"))
    folder = tmp_path / "profiles"
    folder.mkdir()
    link = folder / "lab-gpu.yaml"
    link.symlink_to(real)
    code, _, err = roofline("--profiles", folder, "hw", "set", "lab-gpu", "memory=48 GB")
    assert code == 0, err
    assert link.is_symlink() and "memory: 48 GB\n" in real.read_text()


def test_an_unquoted_prose_field_is_its_text_even_where_it_reads_as_a_number(roofline, tmp_path):
    from roofline.editing import parse_assignments

    assert parse_assignments(["notes=0.8 # x", "display_name=4090", "source='a: b'", "memory=24 GB", "version=null"]) == [
        (["notes"], "0.8 # x"), (["display_name"], "4090"), (["source"], "a: b"), (["memory"], "24 GB"), (["version"], None)]
    path = tmp_path / "lab-gpu.yaml"
    path.write_text(LAB_GPU.format(name="lab-gpu"))
    code, _, err = roofline("--profiles", tmp_path, "hw", "set", "lab-gpu", "notes=0.8 # x")
    assert code == 0, err
    assert yaml.safe_load(path.read_text())["notes"] == "0.8 # x"


def test_a_new_profile_named_like_a_built_in_needs_force_and_says_it_shadows_it(roofline, tmp_path):
    """`models import ... --name llama-3.1-8b` wrote a Qwen3 MoE under the README's default model's name with one
    warning line, and every later predict of llama-3.1-8b gave the MoE's numbers."""
    code, out, err = roofline("hw", "new", "h100-sxm", "--from", "h100-sxm", "--dir", tmp_path)
    assert code == 2 and out == "" and not (tmp_path / "h100-sxm.yaml").exists()
    assert "h100-sxm is the name of the built-in" in err and "pass --force to shadow it" in err and len(err.splitlines()) == 1
    code, out, err = roofline("hw", "new", "h100-sxm", "--from", "h100-sxm", "--dir", tmp_path, "--force")
    assert code == 0 and out.startswith(f"wrote {tmp_path / 'h100-sxm.yaml'}")
    assert err.startswith(f"warning: {tmp_path / 'h100-sxm.yaml'} has the name of the built-in") and "means this file" in err
    code, _, err = roofline("hw", "new", "my-x", "--from", "h100-sxm", "--dir", tmp_path)
    assert code == 0 and err == (f"note: {tmp_path} is not on the profile search path: name it with --profiles {tmp_path} "
                                 "(or in ROOFLINE_PATH) for `my-x` to be found\n")  # qa98
    code, _, err = roofline("--profiles", tmp_path, "hw", "new", "my-y", "--from", "h100-sxm", "--dir", tmp_path)
    assert code == 0 and err == ""
    code, _, err = roofline("hw", "new", "h100", "--from", "h100-sxm", "--dir", tmp_path / "short")  # an alias: the same
    assert code == 2 and "h100 is the name of the built-in h100-sxm (its alias)" in err
    code, _, err = roofline("hw", "new", "h100", "--from", "h100-sxm", "--dir", tmp_path / "short", "--force")
    assert code == 0 and err.startswith(f"warning: {tmp_path / 'short' / 'h100.yaml'} has the name of the built-in h100-sxm")
    hf = Path(__file__).parent / "data" / "hf" / "qwen3-30b-a3b.json"
    code, _, err = roofline("models", "import", hf, "--name", "llama-3.1-8b", "--dir", tmp_path / "m")
    assert code == 2 and "llama-3.1-8b is the name of the built-in" in err and not (tmp_path / "m").exists()


def test_a_short_name_spelled_with_other_separators_is_a_built_ins_name_too(roofline, tmp_path):
    """`hw new h100_sxm5` was written without --force, and `--hardware h100_sxm5` (the built-in h100-sxm through its
    alias h100-sxm5 until then) meant the new file (qa98): names are looked up separators aside, so they are checked so."""
    code, _, err = roofline("hw", "new", "h100_sxm5", "--from", "h100-sxm", "--dir", tmp_path)
    assert code == 2 and "h100_sxm5 is the name of the built-in h100-sxm (its alias)" in err
    assert not (tmp_path / "h100_sxm5.yaml").exists()


def test_a_kernel_latency_no_operator_counts_a_kernel_for_is_said(roofline):
    """`engines new ideal2 --from ideal --set kernel_latency=1us` changed no step (ideal counts no kernels) and looked
    applied (qa98)."""
    code, _, err = roofline("engines", "new", "ideal2", "--from", "ideal", "--set", "kernel_latency=1 us")
    assert code == 0 and "kernel_latency: 1 us prices no kernel of a GQA or MHA model's step: kernels_per_layer counts none" in err
    # MLA counts alone price an MLA model's layers only; an override's latency is looked at too (qa102)
    code, _, err = roofline("engines", "new", "ideal4", "--from", "ideal", "--set", "kernel_latency=1 us",
                            "--set", "kernels_per_layer_mla.attention=7")
    assert code == 0 and "kernels_per_layer_mla's counts price an MLA model's layers only" in err
    from roofline.errors import RooflineWarning
    from roofline.serving import engine_from_dict

    with pytest.warns(RooflineWarning, match=r"overrides \(mi\*\): kernel_latency: 2 us prices no kernel"):
        engine_from_dict({"name": "e", "source": "t", "overrides": [{"hardware": "mi*", "kernel_latency": "2 us"}]})
    code, _, err = roofline("engines", "new", "ideal3", "--from", "ideal", "--set", "kernel_latency=1 us",
                            "--set", "kernels_per_layer.mlp=3")
    assert code == 0 and "prices no kernel" not in err
    assert all("prices no kernel" not in roofline("engines", "show", name)[2] for name in ("ideal", "vllm", "sglang", "trtllm"))
    # counts for some operators and not the rest leave the rest at 0 kernels: said, naming them (qa295: silent)
    assert "kernels_per_layer gives no count for embedding, qkv_proj, attention, kv_write, o_proj, router, experts, " \
           "shared_experts, norms and lm_head: they launch no kernel" in err
    with pytest.warns(RooflineWarning, match=r"overrides \(mi\*\): kernels_per_layer gives no count for norms: it launches"):
        engine_from_dict({"name": "e", "source": "t", "overrides": [{"hardware": "mi*", "kernel_latency": "2 us",
                          "kernels_per_layer": {op: 1 for op in ("embedding", "qkv_proj", "attention", "kv_write", "o_proj",
                                                                 "mlp", "router", "experts", "shared_experts", "lm_head")}}]})
    import warnings

    with warnings.catch_warnings(record=True) as caught:  # overrides taking the general counts: said once (qa304)
        warnings.simplefilter("always")
        engine_from_dict({"name": "e", "source": "t", "kernel_latency": "2 us", "kernels_per_layer": {"mlp": 3},
                          "overrides": [{"hardware": "h100*", "kernel_latency": "3 us"}, {"hardware": "mi*", "host_per_step": "1 ms"}]})
    assert [str(w.message)[:40] for w in caught if "gives no count" in str(w.message)] == ["<engine>: kernels_per_layer gives no cou"]
    shipped = [roofline("engines", "show", name)[2] for name in ("vllm", "vllm-v0", "sglang", "sglang-early", "trtllm")]
    assert all("gives no count" not in err for err in shipped)  # each counts every operator (the indexer and a
    #   drafter's input projection have their defaults)


def test_no_built_in_profile_shadows_itself():
    """A built-in whose name is an alias's, separators aside (llama-3.1-8b beside the alias llama3.1-8b), was said to
    shadow itself once aliases were matched separators aside."""
    from roofline.profiles import FOLDERS, _builtin_files, builtin_shadowed

    assert [(kind, f.name) for kind in FOLDERS for f in _builtin_files(kind) if builtin_shadowed(kind, f)] == []


def test_hw_diff_shows_a_changed_family(roofline):
    """A copy whose family was set to mi300x takes AMD's engine values under vllm; `hw diff` showed no difference
    (qa98)."""
    assert roofline("hw", "new", "h100-amdfam", "--from", "h100-sxm", "--set", "family=mi300x")[0] == 0
    code, out, _ = roofline("hw", "diff", "h100-sxm", "h100-amdfam")
    row = next(line for line in out.splitlines() if line.startswith("family (engine values)"))
    assert code == 0 and row.split()[-4:] == ["h100-sxm", "mi300x", "-", "*"]


def test_a_published_parameter_count_far_from_the_shape_is_said_by_new_set_and_validate(roofline):
    """`models set llama-64l published_params=0.4e9` passed, and `models show` printed the two side by side, while
    `models import` warns beyond 5% (qa98)."""
    code, _, err = roofline("models", "new", "m", "--from", "llama-3.1-8b", "--set", "published_params=0.4e9")
    assert code == 0 and "m.yaml: params: computed 8.03B is +1907.6% from published 0.40B" in err
    assert "published" in roofline("models", "validate")[2]
    code, _, err = roofline("models", "set", "m", "published_params=8.03e9")
    assert code == 0 and "published" not in err


def test_engines_show_names_fitted_values_set_by_hand_since_the_fit(roofline):
    """A copy with host_per_sequence set by hand still claimed the original's fit quality (qa98)."""
    assert roofline("engines", "new", "vslow", "--from", "vllm", "--set", "host_per_sequence=100 us")[0] == 0
    out = roofline("engines", "show", "vslow")[1]
    assert "    set by hand after fit   host_per_sequence (the RMS error above is of the fitted values" in out
    assert "set by hand after fit" not in roofline("engines", "show", "vllm")[1]
    assert roofline("engines", "set", "vslow", "overrides.0.kernel_latency=9 us")[0] == 0  # qa203: a family's value
    out = roofline("engines", "show", "vslow")[1]
    assert "    set by hand after fit   host_per_sequence, kernel_latency on mi* (the RMS error above" in out
    assert roofline("engines", "new", "vmf", "--from", "vllm", "--set", "overrides.0.memory_fraction=0.8")[0] == 0
    assert "set by hand after fit" not in roofline("engines", "show", "vmf")[1]  # qa212: no fit parameter


def test_a_removed_field_is_said_in_one_line_and_a_field_set_twice_is_refused(roofline):
    """qa98: `models set m source=null` printed the multi-line source, `engines set e fitted=null` a 2 KB dict, a
    misspelt field removed 'takes the tool's default', and `price=1 USD/h price=2 USD/h` kept the last in silence."""
    assert roofline("models", "new", "m", "--from", "llama-3.1-8b")[0] == 0
    code, _, err = roofline("models", "set", "m", "source=null")
    assert code == 0 and err == "warning: " + f"{_user('m')}: source removed: the profile cites no source for its values, " \
        "not the text it had from the file\n"
    assert roofline("engines", "new", "e", "--from", "vllm")[0] == 0
    code, _, err = roofline("engines", "set", "e", "fitted=null")
    assert code == 0 and len(err.splitlines()) == 1 and "fitted removed: no fit is recorded" in err and "the mapping it had" in err
    assert roofline("hw", "new", "g", "--from", "h100-sxm")[0] == 0
    with open(_user("g"), "a") as f:
        f.write("bandwith: 3 TB/s\n")
    code, _, err = roofline("hw", "set", "g", "bandwith=null")
    assert code == 0 and err == f"warning: {_user('g')}: bandwith removed (not a field of hardware profiles; it was 3 TB/s)\n"
    code, out, err = roofline("hw", "set", "g", "price=1 USD/h", "price=2 USD/h")
    assert code == 2 and err == "error: hw set: expected each field once, found price set 2 times\n"
    code, out, err = roofline("engines", "new", "e1", "--from", "vllm", "--set", "kernels_per_layer={mlp: 3}",
                              "--set", "kernels_per_layer.mlp=5")  # a mapping and a field inside it (qa102)
    assert code == 2 and err == ("error: --set: expected each field once, found kernels_per_layer set whole and "
                                 "kernels_per_layer.mlp inside it\n")


def test_a_profile_file_hidden_by_one_of_the_same_name_beside_it_is_said(roofline):
    """dupe.yml beside dupe.yaml was passed over by every command, `hw validate` and `hw list` included (qa98)."""
    assert roofline("hw", "new", "dupe", "--from", "h100-sxm")[0] == 0
    _user("dupe").with_suffix(".yml").write_text(_user("dupe").read_text())
    code, out, _ = roofline("hw", "validate")
    assert code == 2 and f"FAIL  {_user('dupe').with_suffix('.yml')}: hidden by dupe.yaml beside it" in out
    code, _, err = roofline("hw", "list")
    assert code == 0 and f"warning: {_user('dupe').with_suffix('.yml')}: hidden by dupe.yaml beside it" in err


def test_a_copys_header_lists_every_value_set_by_hand_since_and_a_copy_of_it_keeps_them():
    """`hw set` left a copy's 'set by hand' line stale, and a copy of a copy listed only its own --set: the parent's
    hand-set 9.6 TB/s read as backed by H200's source (qa98)."""
    from roofline.editing import new_profile, set_fields

    new_profile("hardware", "nvl", "h200", ["memory_bandwidth=9.6 TB/s"])
    set_fields("hardware", "nvl", ["price=2 USD/h", "efficiency.memory=0.8"])
    assert _user("nvl").read_text().splitlines()[1] == "# set by hand, not from the source or notes below: efficiency.memory, memory_bandwidth, price."
    new_profile("hardware", "nvl2", "nvl", ["memory=100 GB"])
    assert _user("nvl2").read_text().splitlines()[1] == (
        "# set by hand, not from the source or notes below: efficiency.memory, memory, memory_bandwidth, price.")
    new_profile("hardware", "plain", "h200", [])
    set_fields("hardware", "plain", ["price=2 USD/h"])
    assert _user("plain").read_text().splitlines()[1] == "# set by hand, not from the source or notes below: price."
    set_fields("hardware", "plain", ["price=null"])  # removed: no longer a value set by hand, and no empty line (qa102)
    assert "# set by hand" not in _user("plain").read_text()
    new_profile("hardware", "bare", "h200", [])
    set_fields("hardware", "bare", ["price=null"])
    assert "# set by hand" not in _user("bare").read_text()


def test_engines_diff_and_models_diff_show_every_field_and_reference_points_side_by_side(roofline):
    """`hw diff` was the only diff: two engine or model profiles could not be compared (qa98)."""
    import roofline as api

    code, out, err = roofline("engines", "diff", "vllm", "sglang", "--hardware", "mi300x")
    assert code == 0, err
    lines = {line.split("  ")[0]: line for line in out.splitlines()}
    vllm, sglang = (api.load_engine(e).for_hardware("mi300x") for e in ("vllm", "sglang"))
    assert lines["kernel_latency"].split()[1:5] == [f"{vllm.kernel_latency_s * 1e6:.3g}", "us",
                                                    f"{sglang.kernel_latency_s * 1e6:.3g}", "us"]  # mi300x's own values
    assert lines["kernel_latency"].endswith("*") and not lines["nvidia_only"].endswith("*")
    step = api.predict("mi300x", "llama-3.1-8b", 64, 4096, engine="sglang")["step_time_s"]
    assert f"{step * 1e3:.3g} ms" in next(line for line in out.splitlines() if line.startswith("  B=64 S=4096 step time"))
    code, out, err = roofline("models", "diff", "llama-3.1-8b", "deepseek-v3", "--hardware", "h200", "--tp", "8")
    assert code == 0, err
    lines = {line.split("  ")[0]: line for line in out.splitlines()}
    assert lines["parameters"].split()[1:5] == ["8.030", "billion", "671.026", "billion"] and lines["moe.experts"].split()[1:3] == ["-", "256"]
    assert "decoding on 8 x h200 (tp 8, native precision), ideal engine:" in out
    assert roofline("models", "diff", "llama-3.1-8b", "no-such-model")[0] == 2


def _user(name: str) -> Path:
    return Path(os.environ["ROOFLINE_USER_DIR"]) / f"{name}.yaml"


def test_a_new_profile_never_replaces_a_profile_of_another_kind(roofline, tmp_path):
    """A user folder holds every kind: `models new x2 --force` replaced the hardware profile x2, and the refusal before
    it offered --force without saying what x2 was (qa98)."""
    assert roofline("hw", "new", "x2", "--from", "h100-sxm")[0] == 0
    path = tmp_path / "user-profiles" / "x2.yaml"
    before = path.read_text()
    for args in (("models", "new", "x2", "--from", "llama-3.1-8b", "--force"), ("engines", "new", "x2", "--from", "vllm"),
                 ("fit", Path(__file__).parent.parent / "measurements" / "published.csv", "--engine", "vllm", "--out", path, "--force")):
        code, out, err = roofline(*args)
        assert code == 2 and out == "" and len(err.splitlines()) == 1, args
        assert f"{path}: exists and is a hardware profile" in err and "cannot take its name" in err, args
    assert path.read_text() == before
    assert roofline("hw", "new", "x2", "--from", "h200", "--force")[0] == 0  # the same kind: --force replaces it
    assert roofline("models", "new", "m1", "--from", "llama-3.1-8b")[0] == 0
    model = tmp_path / "user-profiles" / "m1.yaml"
    code, _, err = roofline("calibrate", "--dtype", "fp32", "--out", model, "--force")  # refused before measuring (qa102)
    assert code == 2 and f"{model}: exists and is a model profile" in err and "type: model" in model.read_text()


def test_a_field_hw_set_adds_goes_in_its_place_not_at_the_end(roofline, tmp_path):
    assert roofline("hw", "new", "lab", "--from", "h100-sxm", "--dir", tmp_path)[0] == 0
    for value in ("price=null", "price=2.5 USD/h", "usable_memory_fraction=0.9"):
        code, _, err = roofline("hw", "set", "lab", value, "--profiles", tmp_path)
        assert code == 0, err
    keys = [line.split(":")[0] for line in (tmp_path / "lab.yaml").read_text().splitlines() if line[:1].isalpha()]
    assert keys[keys.index("step_overhead") + 1] == "price" and keys[-1] == "notes"
    assert keys[keys.index("memory") + 1] == "usable_memory_fraction"


def test_a_key_hw_set_adds_inside_efficiency_or_peak_flops_goes_in_the_shipped_order(roofline, tmp_path):
    from roofline.hardware import NESTED_FIELD_ORDER

    assert roofline("hw", "new", "lab", "--from", "a100-sxm-80gb", "--dir", tmp_path)[0] == 0
    for value in ("efficiency.compute_fp8=0.7", "peak_flops.fp8=600 TFLOP/s", "peak_flops.fp4=1 PFLOP/s"):
        code, _, err = roofline("hw", "set", "lab", value, "--profiles", tmp_path)
        assert code == 0, err
    doc = yaml.safe_load((tmp_path / "lab.yaml").read_text())
    for name, order in NESTED_FIELD_ORDER.items():
        keys = list(doc[name])
        assert keys == sorted(keys, key=order.index), (name, keys)
    assert list(doc["efficiency"])[:3] == ["memory", "compute", "compute_fp8"]
    assert load_hardware("lab", (tmp_path,)).compute_efficiency_by_dtype["fp8"] == 0.7


def test_every_shipped_profile_writes_efficiency_and_peak_flops_in_the_shipped_order():
    from roofline.hardware import NESTED_FIELD_ORDER

    for path in sorted((ROOT / "hardware_profiles").glob("*.yaml")):
        doc = yaml.safe_load(path.read_text())
        for name, order in NESTED_FIELD_ORDER.items():
            keys = [k for k in doc.get(name) or {} if k in order]
            assert keys == sorted(keys, key=order.index), (path.name, name, keys)


def test_a_profile_cannot_be_set_to_another_kind(tmp_path, roofline):
    code, _, err = roofline("hw", "new", "myx", "--from", "h100-sxm", "--set", "type=model", "--dir", tmp_path)
    assert code == 2 and "type: expected hardware (this is a hardware profile), found 'model'" in err and not list(tmp_path.iterdir())
    assert roofline("hw", "new", "myx", "--from", "h100-sxm", "--dir", tmp_path)[0] == 0
    before = (tmp_path / "myx.yaml").read_text()
    code, _, err = roofline("--profiles", tmp_path, "hw", "set", "myx", "type=model")
    assert code == 2 and (tmp_path / "myx.yaml").read_text() == before


def test_models_and_engines_have_new_set_edit_and_validate_like_hw(roofline, tmp_path, monkeypatch):
    from roofline.model import load_model
    from roofline.serving import load_engine

    user = Path(__import__("os").environ["ROOFLINE_USER_DIR"])
    code, out, err = roofline("models", "new", "my-llama", "--from", "llama-3.1-8b", "--set", "ffn_size=16384")
    assert code == 0 and out.strip() == f"wrote {user / 'my-llama.yaml'}", err
    assert roofline("models", "set", "my-llama", "vocab_size=64000")[0] == 0
    model = load_model("my-llama")
    assert (model.ffn_size, model.vocab_size, model.layers) == (16384, 64000, 32)
    text = (user / "my-llama.yaml").read_text()
    assert text.startswith("# my-llama (copy of Llama 3.1 8B): made with `roofline models new my-llama --from llama-3.1-8b "
                           "--set ffn_size=16384`")
    assert "\ntype: model\n" in text  # a user folder holds every kind: the file says its own
    code, _, err = roofline("models", "set", "my-llama", "layers=0")  # invalid: refused, the file as it was
    assert code == 2 and re.search(r"my-llama.yaml: line \d+: layers:", err) and (user / "my-llama.yaml").read_text() == text
    code, _, err = roofline("models", "set", "my-llama", "layers")  # the example is a model's field
    assert code == 2 and err.strip() == "error: models set: expected key=value (like layers=32), found 'layers'"
    assert "published_params" not in text  # a new shape: the source's published counts do not describe it
    code, _, err = roofline("engines", "new", "x", "--from", ROOT / "hardware_profiles" / "h100-sxm.yaml")
    assert code == 2 and "--from: " in err and "h100-sxm.yaml: expected an engine profile, found a hardware profile" in err
    code, _, err = roofline("models", "set", "llama-3.1-8b", "layers=33")
    assert code == 2 and "copy it first with `roofline models new llama-3.1-8b-mine --from llama-3.1-8b`" in err

    assert roofline("engines", "new", "my-vllm", "--from", "vllm", "--set", "kernel_latency=6 us")[0] == 0
    assert roofline("engines", "set", "my-vllm", "host_per_sequence=40 us")[0] == 0
    engine = load_engine("my-vllm")
    assert engine.kernel_latency_s == pytest.approx(6e-6) and engine.host_per_sequence_s == pytest.approx(40e-6)
    code, _, err = roofline("engines", "set", "my-vllm", "host_per_step=-5 us")  # 0 is a valid time: the message says so
    assert code == 2 and "host_per_step: expected a finite time of 0 or more like" in err
    code, _, err = roofline("engines", "set", "my-vllm", "kernel_latency=6 parsecs")
    assert code == 2 and re.search(r"my-vllm.yaml: line \d+: kernel_latency: expected a unit", err)
    editor, _ = _fake_editor(tmp_path, [(user / "my-vllm.yaml").read_text().replace("host_per_sequence: 40 us", "host_per_sequence: 41 us")])
    monkeypatch.setenv("EDITOR", editor)
    monkeypatch.delenv("VISUAL", raising=False)
    assert roofline("engines", "edit", "my-vllm")[0] == 0 and load_engine("my-vllm").host_per_sequence_s == pytest.approx(41e-6)
    code, out, _ = roofline("engines", "validate", user / "my-vllm.yaml")
    assert code == 0 and out.startswith("ok")
    bad = tmp_path / "bad-engine.yaml"
    bad.write_text((user / "my-vllm.yaml").read_text().replace("name: my-vllm", "name: other"))
    code, out, err = roofline("engines", "validate", bad)
    assert code == 2 and "bad-engine.yaml" in out + err


def test_hw_set_keeps_a_windows_files_line_ends(roofline, tmp_path):
    """ruamel kept \\r only on the lines it did not rewrite: a CRLF file came back with mixed line ends."""
    code, _, err = roofline("hw", "new", "crlf-gpu", "--from", "h100-sxm", "--dir", tmp_path)
    assert code == 0, err
    path = tmp_path / "crlf-gpu.yaml"
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    code, _, err = roofline("--profiles", tmp_path, "hw", "set", "crlf-gpu", "memory=81 GB")
    assert code == 0, err
    data = path.read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n") > 10 and b"memory: 81 GB\r\n" in data


def test_a_profile_that_shadows_a_built_in_is_named_by_show_predict_and_sweep(roofline, tmp_path):
    """Once written (with --force), a model named like the README's default changed every later predict without a
    word: `models show` had no file line, predict and sweep said nothing."""
    code, _, err = roofline("models", "new", "llama-3.1-8b", "--from", "llama-3.1-8b", "--set", "display_name=Mine",
                            "--dir", tmp_path, "--force")
    assert code == 0, err
    code, out, _ = roofline("--profiles", tmp_path, "models", "show", "llama-3.1-8b")
    assert f"file: {tmp_path / 'llama-3.1-8b.yaml'}" in out and "shadows: " in out and "model_profiles" in out
    code, out, err = roofline("--profiles", tmp_path, "predict", "--batch", "2")
    assert code == 0 and err.startswith(f"warning: model llama-3.1-8b is {tmp_path / 'llama-3.1-8b.yaml'}, which shadows "
                                         "the built-in")
    code, out, err = roofline("predict", "--batch", "2")  # without the folder: the built-in, and no word
    assert code == 0 and "shadows" not in err
    code, out, err = roofline("--profiles", tmp_path, "sweep", "eagle-on-hopper", "--out", tmp_path / "sw", "--no-plots")
    assert code == 0 and err.count("which shadows the built-in") == 1 and "eagle-on-hopper.yaml: model llama-3.1-8b is" in err


@pytest.mark.parametrize("kind, folder, field", [("hardware", "hardware_profiles", "display_name=Changed"),
                                                  ("model", "model_profiles", "display_name=Changed"),
                                                  ("engine", "engine_profiles", "kernel_latency=1.5 us")])
def test_set_changes_only_the_lines_it_is_asked_to_in_every_shipped_profile(roofline, tmp_path, kind, folder, field):
    """set rewrote what it was not asked to touch: models import's wrapped source lines were joined, its lists
    re-indented (9-19 lines of Llama 4 and Qwen3), ideal.yaml's `null` dropped."""
    import difflib

    group = {"hardware": "hw", "model": "models", "engine": "engines"}[kind]
    for shipped in sorted((ROOT / folder).glob("*.yaml")):
        if kind == "engine" and "costs_from" in shipped.read_text():
            continue  # a profile that takes another's costs has no kernel_latency of its own to set
        text = shipped.read_text().replace(f"\nname: {shipped.stem}\n", f"\nname: x-{shipped.stem}\n")
        (tmp_path / f"x-{shipped.stem}.yaml").write_text(text)
        code, _, err = roofline(group, "set", f"x-{shipped.stem}", field, "--profiles", tmp_path)
        assert code == 0, (shipped.name, err)
        after = (tmp_path / f"x-{shipped.stem}.yaml").read_text()
        changed = [line for line in difflib.unified_diff(text.splitlines(), after.splitlines(), n=0, lineterm="")
                   if line[:1] in "+-" and not line.startswith(("+++", "---"))]
        key = field.split("=")[0]
        unfit = f"-    - {key}"  # an engine's value set by hand leaves fitted.parameters
        assert changed and all(line[1:].lstrip().startswith(f"{key}:") or line == unfit for line in changed), (shipped.name, changed)


def test_a_field_set_adds_goes_above_the_comment_of_the_field_after_it_and_a_bom_is_kept(roofline, tmp_path):
    text = (ROOT / "hardware_profiles" / "h100-sxm.yaml").read_text().replace("name: h100-sxm", "name: cm")
    text = "\ufeff" + text.replace("\nstep_overhead:", "\n# the step's fixed cost\nstep_overhead:", 1)
    (tmp_path / "cm.yaml").write_text(text, encoding="utf-8")
    code, _, err = roofline("hw", "set", "cm", "overlap_exponent=4", "--profiles", tmp_path)
    assert code == 0, err
    after = (tmp_path / "cm.yaml").read_text(encoding="utf-8")
    assert after.startswith("\ufeff") and "overlap_exponent: 4\n# the step's fixed cost\nstep_overhead:" in after
    assert after.replace("overlap_exponent: 4\n", "", 1) == text


def test_prose_set_to_a_word_yaml_reads_as_another_type_is_written_quoted_and_reads_back_as_given(roofline, tmp_path):
    """`hw set NAME display_name=yes` was refused ('found True'): ruamel wrote a plain yes, which the profile reader
    (YAML 1.1) takes for a boolean."""
    assert roofline("hw", "new", "lab", "--from", "h100-sxm", "--dir", tmp_path)[0] == 0
    for value in ("yes", "on", "0.8", "2026-12-01"):
        code, _, err = roofline("hw", "set", "lab", f"display_name={value}", "--profiles", tmp_path)
        assert code == 0, err
        assert load_hardware("lab", (tmp_path,)).display_name == value


def test_set_never_moves_a_field_into_a_block_of_text_whose_line_starts_with_a_hash(roofline, tmp_path):
    """An engine profile ending in `notes: |` with a line '# see issue 12' got the new field above that line: the
    rest of the notes became a comment, silently."""
    text = (ROOT / "engine_profiles" / "vllm.yaml").read_text().replace("\nname: vllm\n", "\nname: myeng\n")
    text = text[:text.index("\nnotes:")] + "\nnotes: |\n  My measured engine.\n  # see issue 12 for the host numbers\n"
    (tmp_path / "myeng.yaml").write_text(text)
    code, _, err = roofline("engines", "set", "myeng", "weight_only_efficiency=0.7", "--profiles", tmp_path)
    assert code == 0, err
    data = yaml.safe_load((tmp_path / "myeng.yaml").read_text())
    assert data["notes"] == "My measured engine.\n# see issue 12 for the host numbers\n" and data["weight_only_efficiency"] == 0.7


def test_an_engine_copied_with_a_value_set_by_hand_no_longer_calls_that_value_fitted(tmp_path):
    """`engines new my-vllm --from vllm --set 'host_per_sequence=40 us'` kept host_per_sequence in fitted.parameters,
    so the report called 40 us 'fitted', and the header did not say which values were set."""
    from roofline.editing import new_profile
    from roofline.serving import load_engine

    path = new_profile("engine", "my-vllm", "vllm", ["host_per_sequence=40 us"], out_dir=tmp_path)
    engine = load_engine("my-vllm", (tmp_path,))
    assert engine.host_per_sequence_s == pytest.approx(40e-6)
    assert "host_per_sequence" not in engine.fitted["parameters"] and "host_per_step" in engine.fitted["parameters"]
    assert "# set by hand, not from the source or notes below: host_per_sequence." in path.read_text().splitlines()[1]


def test_a_profile_folder_named_twice_is_not_its_own_shadow_and_an_engine_taking_shadowed_costs_says_so(roofline, tmp_path):
    """`--profiles hardware_profiles` reported h100-sxm.yaml as shadowing itself; a user vllm.yaml changed vllm-v0
    (costs_from: vllm) without a word."""
    code, out, err = roofline("--profiles", ROOT / "hardware_profiles", "predict", "--hardware", "h100")
    assert code == 0 and "shadows" not in err
    code, out, _ = roofline("--profiles", ROOT / "hardware_profiles", "hw", "show", "h100")
    assert "shadows:" not in out
    (tmp_path / "vllm.yaml").write_text((ROOT / "engine_profiles" / "vllm.yaml").read_text())
    code, _, err = roofline("--profiles", tmp_path, "predict", "--engine", "vllm-v0")
    assert code == 0 and f"engine vllm-v0 takes its costs from {tmp_path / 'vllm.yaml'}, which shadows the built-in" in err


def test_set_keeps_a_files_own_indentation_line_ends_and_the_comment_after_a_fitted_list(roofline, tmp_path):
    """A 4-space file, and the PyYAML style `models import` writes, were re-indented whole by one `set`; in a CRLF file
    a new field landed under the next field's comment; `engines set` dropped the comment after fitted.parameters."""
    import difflib

    def changed(before: str, after: str) -> list[str]:
        return [line for line in difflib.unified_diff(before.splitlines(), after.splitlines(), n=0, lineterm="")
                if line[:1] in "+-" and not line.startswith(("+++", "---"))]

    text = (ROOT / "hardware_profiles" / "h100-sxm.yaml").read_text().replace("name: h100-sxm", "name: four")
    four = "\n".join(("  " + line if line.startswith("  ") else line) for line in text.splitlines()) + "\n"  # 4 spaces
    (tmp_path / "four.yaml").write_text(four)
    assert roofline("hw", "set", "four", "efficiency.compute=0.75", "--profiles", tmp_path)[0] == 0
    assert changed(four, (tmp_path / "four.yaml").read_text()) == ["-    compute: 0.80", "+    compute: 0.75"]
    code, _, err = roofline("models", "import", ROOT / "tests" / "data" / "hf" / "llama-4-scout.json", "--name", "scout-mine",
                            "--dir", tmp_path)
    assert code == 0, err
    imported = (tmp_path / "scout-mine.yaml").read_text()
    assert roofline("models", "set", "scout-mine", "display_name=Mine", "--profiles", tmp_path)[0] == 0
    assert [line[0] for line in changed(imported, (tmp_path / "scout-mine.yaml").read_text())] == ["-", "+"]
    crlf = text.replace("name: four", "name: win").replace("\nstep_overhead:", "\n# the fixed cost\nstep_overhead:", 1)
    (tmp_path / "win.yaml").write_bytes(crlf.replace("\n", "\r\n").encode())
    assert roofline("hw", "set", "win", "overlap_exponent=3", "--profiles", tmp_path)[0] == 0
    written = (tmp_path / "win.yaml").read_bytes().decode()
    assert "overlap_exponent: 3\r\n# the fixed cost\r\nstep_overhead:" in written and "\n" not in written.replace("\r\n", "")
    engine = (ROOT / "engine_profiles" / "trtllm.yaml").read_text().replace("\nname: trtllm\n", "\nname: trt-mine\n")
    engine = engine.replace("\n  start:\n", "\n  # starting values of the fit\n  start:\n", 1)
    (tmp_path / "trt-mine.yaml").write_text(engine)
    assert roofline("engines", "set", "trt-mine", "overlap_exponent=2.5", "--profiles", tmp_path)[0] == 0
    after = (tmp_path / "trt-mine.yaml").read_text()
    assert "  # starting values of the fit\n  start:\n" in after
    assert sorted(changed(engine, after)) == ["+overlap_exponent: 2.5", "-    - overlap_exponent", "-overlap_exponent: 1.0"]


def test_engines_set_keeps_the_comments_around_a_fitted_parameter_it_removes_from_any_place_in_the_list(roofline, tmp_path):
    """A one-item list lost the comment after it; a comment above a middle item went with the item removed before it."""
    text = (ROOT / "engine_profiles" / "trtllm.yaml").read_text().replace("\nname: trtllm\n", "\nname: one\n")
    head, tail = text.split("\n  parameters:\n", 1)
    rest = tail[tail.index("\n  start:"):]
    one = head + "\n  parameters:\n    - overlap_exponent\n  # starting values of the fit" + rest
    (tmp_path / "one.yaml").write_text(one)
    assert roofline("engines", "set", "one", "overlap_exponent=2.5", "--profiles", tmp_path)[0] == 0
    assert "  parameters: []\n  # starting values of the fit\n  start:" in (tmp_path / "one.yaml").read_text()
    mid = (head + "\n  parameters:\n    - kernel_latency\n    # the host's costs\n    - host_per_step\n" + rest.lstrip("\n")
           ).replace("\nname: one\n", "\nname: mid\n")
    (tmp_path / "mid.yaml").write_text(mid)
    assert roofline("engines", "set", "mid", "kernel_latency=3 us", "--profiles", tmp_path)[0] == 0
    assert "  parameters:\n    # the host's costs\n    - host_per_step\n" in (tmp_path / "mid.yaml").read_text()


def test_a_failed_edit_names_the_line_of_the_text_being_fixed(roofline, tmp_path, monkeypatch):
    """The NOT SAVED banner named the line of the field in the file on disk, not in the text being fixed."""
    path = _user_copy(roofline)
    bad = "# a\n# b\n# c\n" + path.read_text().replace("memory: 24 GB", "memory: 24 GB/s")
    editor, plan = _fake_editor(tmp_path, [bad, None])
    monkeypatch.setenv("EDITOR", editor)
    monkeypatch.delenv("VISUAL", raising=False)
    roofline("hw", "show", "ed-gpu")  # the file read first: its lines are known
    code, _, err = roofline("hw", "edit", "ed-gpu")
    seen = json.loads(plan.read_text())["seen"]
    assert "NOT SAVED: " in seen[1] and ": memory: expected a size in bytes" in seen[1].splitlines()[0]
    # the line of the text being fixed as the editor shows it, under the banner (qa358: no line was named)
    shown = seen[1].splitlines()
    at = next(i for i, line in enumerate(shown, 1) if line.startswith("memory: 24 GB/s"))
    assert f"ed-gpu.yaml: line {at}: memory: expected" in shown[0] and at == bad.splitlines().index("memory: 24 GB/s") + 3
    assert field_line(str(path), "memory") is None  # and not kept as the lines of the file on disk


def test_a_failed_edit_s_yaml_error_names_the_line_the_editor_shows(roofline, tmp_path, monkeypatch):
    path = _user_copy(roofline)
    bad = path.read_text().replace("kind: gpu\n", "kind: gpu\nkind: cpu\n")  # a duplicated key
    editor, plan = _fake_editor(tmp_path, [bad, None])
    monkeypatch.setenv("EDITOR", editor)
    monkeypatch.delenv("VISUAL", raising=False)
    code, _, err = roofline("hw", "edit", "ed-gpu")
    shown = json.loads(plan.read_text())["seen"][1].splitlines()
    at = [i for i, line in enumerate(shown, 1) if line.startswith("kind: ")][1]
    assert "duplicated key 'kind'" in shown[0] and f"line {at}" in shown[0], shown[0]
    # given up: the line said as the editor's, the file named once (qa368: 'FILE: ... FILE: line 52' read as the file's)
    assert code == 2 and err.count(str(path)) == 1 and f"line {at} of the edited text as the editor showed it" in err, err


def test_an_engine_value_set_by_hand_says_which_family_keeps_its_own_and_a_list_entry_can_be_set(roofline, tmp_path):
    """`engines set my-vllm kernel_latency=3us` changed every device but MI300X (overrides[0] holds mi*'s fitted
    4.493 us) without a word, and `overrides.0.kernel_latency=null` was refused ("expected overrides to be a mapping")."""
    from roofline.serving import load_engine

    fitted_us = load_engine("vllm").for_hardware("mi300x").kernel_latency_s * 1e6  # whatever the last refit made it
    code, _, err = roofline("engines", "new", "my-vllm", "--from", "vllm", "--set", "kernel_latency=3us", "--dir", tmp_path)
    assert code == 0 and f"overrides[0] (hardware 'mi*') keeps its own kernel_latency: {fitted_us:g} us" in err
    assert load_engine("my-vllm", (tmp_path,)).for_hardware("mi300x").kernel_latency_s == pytest.approx(fitted_us * 1e-6)
    code, _, err = roofline("engines", "set", "my-vllm", "overrides.0.kernel_latency=null", "--profiles", tmp_path)
    assert code == 0, err
    assert load_engine("my-vllm", (tmp_path,)).for_hardware("mi300x").kernel_latency_s == pytest.approx(3e-6)
    code, _, err = roofline("engines", "set", "my-vllm", "kernel_latency=4us", "--profiles", tmp_path)
    assert code == 0 and "keeps its own" not in err
    code, _, err = roofline("engines", "set", "my-vllm", "overrides.0.allreduce_latency=11 us", "--profiles", tmp_path)
    assert code == 0 and load_engine("my-vllm", (tmp_path,)).for_hardware("mi300x").allreduce_latency_s == pytest.approx(11e-6)
    assert "    allreduce_latency: 11 us\n" in (tmp_path / "my-vllm.yaml").read_text()
    for bad, says in (("overrides.3.kernel_latency=1us", "expected an index of overrides (0 to 0), found '3'"),
                      ("overrides.0=1us", "found the entry itself")):
        code, _, err = roofline("engines", "set", "my-vllm", bad, "--profiles", tmp_path)
        assert code == 2 and says in err and len(err.strip().splitlines()) == 1


def test_the_family_warning_is_not_given_where_the_family_is_set_too_nor_before_an_error_and_reaches_nested_fields(roofline, tmp_path):
    """Setting kernel_latency and overrides.0.kernel_latency together still warned; a refused value warned first; a
    nested field (kernels_per_layer_mla.qkv_proj) that a family's entry replaces was not said; and the family's own
    nested field could not be set (4 dotted parts)."""
    from roofline.serving import load_engine

    code, _, err = roofline("engines", "new", "my-v", "--from", "vllm", "--set", "kernel_latency=3us",
                            "--set", "overrides.0.kernel_latency=3us", "--dir", tmp_path)
    assert code == 0 and "warning:" not in err  # vllm's one miss is of memory (qa423): kept where costs change
    assert [m["models"] for m in load_engine("my-v", (tmp_path,)).known_misses] == [["gpt-oss*"]]
    code, _, err = roofline("engines", "new", "my-vm", "--from", "vllm", "--set", "memory_fraction=0.8", "--dir", tmp_path)
    assert code == 0 and "known_misses: dropped from the copy" in err and not load_engine("my-vm", (tmp_path,)).known_misses
    code, _, err = roofline("engines", "new", "my-w", "--from", "sglang", "--set", "kernel_latency=-1us", "--dir", tmp_path)
    assert code == 2 and "warning:" not in err and len(err.strip().splitlines()) == 1
    code, _, err = roofline("engines", "new", "my-sg", "--from", "sglang", "--set", "kernels_per_layer_mla.qkv_proj=9", "--dir", tmp_path)
    assert code == 0 and "keep their own (5): 0 'mi*', 1 'b[0-9]*', 2 'gb*';" in err, err
    code, _, err = roofline("engines", "set", "my-sg", "overrides.1.kernels_per_layer_mla.qkv_proj=9", "--profiles", tmp_path)
    assert code == 0, err
    assert load_engine("my-sg", (tmp_path,)).for_hardware("b200").kernels_per_layer_mla["qkv_proj"] == 9
    # every family that keeps its own value in one line (qa334: sglang's memory_fraction entries were 17 lines)
    code, _, err = roofline("engines", "new", "my-mf", "--from", "sglang", "--set", "memory_fraction=0.9", "--dir", tmp_path)
    kept = [line for line in err.splitlines() if "memory_fraction: set for every hardware but" in line]
    assert code == 0 and len(kept) == 1, err
    assert "keep their own (0.833 to 0.911): 0 'mi*', 1 'b[0-9]*', " in kept[0] and ", 4 'h200', " in kept[0], kept
    assert "set overrides.N.memory_fraction too" in kept[0] and len(kept[0].split("my-mf.yaml: ", 1)[1]) < 450
    assert load_engine("my-mf", (tmp_path,)).for_hardware("h100-sxm").memory_fraction == pytest.approx(0.9)


def test_hw_diff_takes_pp_and_expert_dtype_and_notes_a_layout_engines_refuse(roofline):
    """PROFILES.md said hw diff takes any layout: --pp was 'No such option'; DeepSeek-V3 at tp 32 gave reference points
    for a shard vLLM and SGLang refuse to load, without a word."""
    code, out, err = roofline("hw", "diff", "h100-sxm", "h200", "--model", "llama-3.1-405b", "--tp", "8", "--pp", "2",
                              "--weight-dtype", "fp8")
    assert code == 0, err
    assert "llama-3.1-405b decoding on 16 x each" in out and "(tp 8, pp 2; fp8 weights)" in out
    code, out, err = roofline("hw", "diff", "h100-sxm", "h200", "--model", "deepseek-v3", "--tp", "32")
    assert code == 0 and "note: deepseek-v3 at tp 32: the checkpoint's 128 x 128 block scales do not divide" in out
    code, out, err = roofline("hw", "diff", "h200", "mi300x", "--model", "qwen3-30b-a3b", "--expert-dtype", "fp8")
    assert code == 0 and "fp8 experts" in out


def test_an_editor_command_that_cannot_be_parsed_is_one_line(roofline, tmp_path, monkeypatch):
    """VISUAL="'unterminated" made `hw edit` end in shlex's traceback."""
    code, _, err = roofline("hw", "new", "qa-h", "--from", "h100-sxm")
    assert code == 0, err
    monkeypatch.setenv("VISUAL", "'unterminated")
    code, out, err = roofline("hw", "edit", "qa-h")
    assert code == 2 and "cannot parse: No closing quotation (check $VISUAL and $EDITOR)" in err and "Traceback" not in err


def test_hw_diff_says_which_device_runs_a_dtype_in_another():
    """`--expert-dtype fp4` printed 'peak ridge fp4' with H100's bf16 values under it."""
    from roofline.editing import diff_hardware

    text = diff_hardware("h100-sxm", "b200", (), "deepseek-v3", 8, expert_dtype="fp4")
    assert "peak ridge fp4, A: as bf16 (FLOP/B)" in text


def test_scenarios_validate_names_the_file_a_warning_comes_from(roofline):
    """After fifteen 'ok' lines, 'warning: mtp on deepseek-v3: k up to 3 exceeds ...' named no file."""
    code, out, err = roofline("scenarios", "validate")
    assert code == 0
    assert any(line.startswith("warning: ") and "kv-caps-batch.yaml: mtp on deepseek-v3: k up to 3" in line for line in err.splitlines())


def test_a_copied_profiles_remark_on_a_line_it_sets_goes_the_lines_below_stay(tmp_path):
    """`engines new sglang-deepep --from sglang --set moe_dispatch=per_pair` kept 'moe_dispatch: per_pair  # SGLang's EP
    MoE without DeepEP (the default) ...', a remark on the old value."""
    from roofline.editing import new_profile

    path = new_profile("engine", "sglang-deepep", "sglang", ["moe_dispatch=per_pair"], out_dir=tmp_path)
    text = path.read_text()
    line = next(x for x in text.splitlines() if x.startswith("moe_dispatch:"))
    assert line.strip() == "moe_dispatch: per_pair"
    assert "host_overlap_speculating: false   # spec V1 turns the overlap scheduler off (source)" in text  # not set: kept
    kept = new_profile("engine", "sglang-same", "sglang", [], out_dir=tmp_path).read_text()
    assert "moe_dispatch: allgather         # SGLang's EP MoE without DeepEP" in kept


def test_removing_a_field_says_the_profile_now_takes_the_default_not_its_value(tmp_path):
    """`engines new h1 --from sglang --set host_overlap_speculating=` wrote the copy with exit 0 and the tool's default,
    true, where sglang has false: the speedup moved from 1.84x to 2.12x without a word."""
    from roofline.editing import new_profile
    from roofline.errors import RooflineWarning

    with pytest.warns(RooflineWarning, match="host_overlap_speculating removed: the profile now takes the tool's default "
                                             "for it, not false from sglang"):
        new_profile("engine", "h1", "sglang", ["host_overlap_speculating="], out_dir=tmp_path)


def test_editing_refuses_a_misspelled_removal_and_a_copy_over_a_yml_file_and_keeps_counts_a_tokenizer_leaves(roofline, tmp_path):
    """qa76: `hw set my-gpu prcie=null` wrote the file unchanged and said nothing; `hw new yy` wrote yy.yaml beside the
    user's yy.yml, taking its place without --force; `models new --set tokenizer=...` dropped the published counts;
    `models import --tokenizer ' '` blamed the config file."""
    user = tmp_path / "user"
    assert roofline("hw", "new", "my-gpu", "--from", "h100-sxm", "--dir", user)[0] == 0
    code, _, err = roofline("--profiles", user, "hw", "set", "my-gpu", "prcie=null")
    assert code == 2 and "prcie: expected a field the profile has, to remove (did you mean 'price'?)" in err
    code, _, err = roofline("--profiles", user, "hw", "set", "my-gpu", "price=null")
    assert code == 0 and "price removed: the device has no price" in err
    (user / "yy.yml").write_text((user / "my-gpu.yaml").read_text().replace("name: my-gpu", "name: yy"))
    code, _, err = roofline("hw", "new", "yy", "--from", "h100-sxm", "--dir", user)
    assert code == 2 and "yy.yml: exists (profile 'yy'); pass --force" in err and not (user / "yy.yaml").exists()
    assert roofline("models", "new", "tk1", "--from", "llama-3.1-8b", "--set", "tokenizer=llama-3-custom", "--dir", user)[0] == 0
    assert "published_params" in (user / "tk1.yaml").read_text()
    code, _, err = roofline("models", "import", HF / "qwen3-30b-a3b.json", "--name", "q31", "--tokenizer", " ", "--dir", user)
    assert code == 2 and err.strip() == "error: --tokenizer: expected a tokenizer family like 'llama-3', found ' '"


def test_an_engine_edit_that_changes_a_fitted_value_makes_it_the_users(roofline, tmp_path, monkeypatch):
    """`engines edit` to allreduce_latency 80 us left it in fitted.parameters, so `fit --fix allreduce_latency` started
    from the copied 10 us and wrote it back (qa94); `set` and `new --set` took it out already."""
    from roofline.fit import sourced_start
    from roofline.serving import load_engine

    code, _, err = roofline("engines", "new", "viaedit", "--from", "vllm")
    assert code == 0, err
    path = Path(os.environ["ROOFLINE_USER_DIR"]) / "viaedit.yaml"
    text = path.read_text()
    edited = re.sub(r"(?m)^allreduce_latency: .*$", "allreduce_latency: 80 us", text)
    editor, _ = _fake_editor(tmp_path, [edited])
    monkeypatch.setenv("EDITOR", editor)
    monkeypatch.delenv("VISUAL", raising=False)
    code, _, err = roofline("engines", "edit", "viaedit")
    assert code == 0, err
    engine = load_engine("viaedit")
    assert engine.allreduce_latency_s == pytest.approx(80e-6) and "allreduce_latency" not in engine.fitted["parameters"]
    assert sourced_start(engine)["allreduce_latency_s"] == pytest.approx(80e-6)
    assert "kernel_latency" in engine.fitted["parameters"]  # the values not edited stay the fit's
    changed = [line for line in difflib.unified_diff(text.splitlines(), path.read_text().splitlines(), lineterm="", n=0)
               if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert len(changed) == 4  # the edited line, the list entry taken out and the copy's set-by-hand line (qa222):
    assert changed[0] == "+# set by hand, not from the source or notes below: allreduce_latency."  # nothing else rewritten


def test_a_profile_given_by_path_under_a_built_ins_name_is_said_to_be_labelled_so(roofline, tmp_path):
    """qa108: a copy of h100-sxm at twice its bandwidth, given as --hardware /path/foo.yaml, labelled every row
    'h100-sxm' without a word (a user folder's shadow is said; a path's was not)."""
    code, _, err = roofline("hw", "new", "h100-sxm", "--from", "h100-sxm", "--set", "memory_bandwidth=6.7 TB/s",
                            "--dir", tmp_path, "--force")
    assert code == 0, err
    (tmp_path / "h100-sxm.yaml").rename(tmp_path / "foo.yaml")
    code, out, err = roofline("predict", "--hardware", tmp_path / "foo.yaml", "--engine", "ideal")
    assert code == 0 and err.startswith(f"warning: hardware {tmp_path / 'foo.yaml'} is named h100-sxm, as the built-in ")
    assert "every output labels it h100-sxm" in err
    code, out, err = roofline("predict", "--hardware", ROOT / "hardware_profiles" / "h100-sxm.yaml")  # the built-in itself
    assert code == 0 and "is named" not in err


def test_an_engine_version_keeps_its_digits(roofline, tmp_path):
    """qa108: `--set version=0.10` wrote `version: 0.1`, another vLLM release; a hand-written 0.10 read as 0.1 too."""
    code, _, err = roofline("engines", "new", "v2", "--from", "vllm", "--set", "version=0.10", "--dir", tmp_path)
    assert code == 0, err
    assert 'version: "0.10"' in (tmp_path / "v2.yaml").read_text()
    code, out, _ = roofline("--profiles", tmp_path, "engines", "show", "v2")
    assert code == 0 and "0.10)" in out.splitlines()[0]
    text = (tmp_path / "v2.yaml").read_text().replace('version: "0.10"', "version: 0.10")
    (tmp_path / "v2.yaml").write_text(text)
    code, out, err = roofline("--profiles", tmp_path, "engines", "show", "v2")
    assert code == 2 and "version: expected text in quotes (YAML reads an unquoted 0.10 as the number 0.1), found 0.1" in err


def test_a_copy_of_a_broken_profile_names_the_broken_file_and_its_line(roofline, tmp_path):
    """qa108: `hw new x1 --from BROKEN.yaml` blamed the new file, which did not exist, for the source's bad value."""
    text = (ROOT / "hardware_profiles" / "h100-sxm.yaml").read_text().replace("name: h100-sxm", "name: effbad", 1)
    lines = text.splitlines()
    line = next(i for i, s in enumerate(lines) if s.strip().startswith("memory: 0."))
    lines[line] = lines[line].split(":")[0] + ": 1.5"
    (tmp_path / "effbad.yaml").write_text("\n".join(lines) + "\n")
    code, out, err = roofline("hw", "new", "x1", "--from", tmp_path / "effbad.yaml", "--dir", tmp_path / "out")
    assert code == 2 and err.strip() == (f"error: --from: {tmp_path / 'effbad.yaml'}: line {line + 1}: efficiency.memory: "
                                         "expected a fraction in [0.01, 1], found 1.5")
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())
    code, out, err = roofline("hw", "new", "x1", "--from", "h100-sxm", "--set", "efficiency.memory=1.5", "--dir", tmp_path / "out")
    assert code == 2 and err.startswith(f"error: {tmp_path / 'out' / 'x1.yaml'} (not written): efficiency.memory: ")  # the new value's fault


def test_a_peak_set_to_a_sparsity_figure_is_said(roofline, tmp_path):
    """qa108: H100's sparse bf16 figure (1,978.9 TFLOPS, twice the dense) went in without a word; FLOP/s are dense."""
    code, _, err = roofline("hw", "new", "sp", "--from", "h100-sxm", "--dir", tmp_path)
    assert code == 0 and "'with sparsity'" not in err
    code, _, err = roofline("--profiles", tmp_path, "hw", "set", "sp", "peak_flops.bf16=1978.9 TFLOPS")
    assert code == 0 and "peak_flops.bf16: 1,978.9 TFLOP/s is twice the 989.4 TFLOP/s it was: if it is a datasheet's figure " \
                         "'with sparsity', give the dense one" in err
    code, _, err = roofline("--profiles", tmp_path, "hw", "set", "sp", "memory_bandwidth=3 TB/s")  # no peak set: no word
    assert code == 0 and "'with sparsity'" not in err
    code, _, err = roofline("hw", "new", "sp2", "--from", "h100-sxm", "--set", "peak_flops.bf16=1978.9 TFLOPS",
                            "--set", "peak_flops.fp8=3957.8 TFLOPS", "--dir", tmp_path)
    assert code == 0 and err.count("'with sparsity'") == 2
    code, _, err = roofline("hw", "new", "sp3", "--from", "h100-sxm", "--set", "peak_flops.bf16=900 TFLOPS", "--dir", tmp_path)
    assert code == 0 and "'with sparsity'" not in err
    # a CPU's datasheet quotes no sparse figure: its doubled peak is a new core's (qa123: Zen 5 over Zen 4)
    epyc = roofline("hw", "show", "epyc-9654", "--json")[1]
    bf16 = json.loads(epyc)["peak_flops_per_s"]["bf16"]
    code, _, err = roofline("hw", "new", "zen5", "--from", "epyc-9654", "--set", f"peak_flops.bf16={2 * bf16 / 1e12:.6g} TFLOPS",
                            "--dir", tmp_path)
    assert code == 0 and "'with sparsity'" not in err, err
    code, _, err = roofline("hw", "new", "mac2", "--from", "apple-m4-max", "--set", "peak_flops.fp16=34.4 TFLOPS", "--dir", tmp_path)
    assert code == 0 and "'with sparsity'" not in err, err  # nor an Apple chip's (qa124)


def test_a_moe_block_missing_a_count_is_said_whole_and_models_diff_shows_kv_in_kib(roofline, tmp_path):
    """qa108: `models set dense moe.top_k=2` said 'moe.experts: expected a positive integer, found None'; qa109: models
    diff showed a token's KV cache as 131 kB where models list shows 128.0KiB."""
    code, _, err = roofline("models", "new", "my-llama", "--from", "llama-3.1-8b", "--dir", tmp_path)
    assert code == 0, err
    code, _, err = roofline("--profiles", tmp_path, "models", "set", "my-llama", "moe.top_k=2")
    assert code == 2 and err.strip().endswith("moe: expected experts, top_k and expert_ffn_size together (a MoE block needs "
                                              "all three), found only top_k")
    code, out, _ = roofline("models", "diff", "llama-3.1-8b", "qwen3-8b")
    assert code == 0 and re.search(r"KV per token at 4k \(bf16\) +128\.0 KiB +144\.0 KiB", out)
    assert "a device" not in out  # tp 1: the whole model's is a device's


def test_models_diff_at_a_tp_says_the_kv_a_device_holds():
    """qa343: at --tp 8 `models diff llama-3.1-70b deepseek-v3` said only the whole model's KV a token (0.214x), where
    each device holds 40 KiB of Llama's (8 KV heads over 8 ranks) against DeepSeek's replicated 68.6 KiB latent: 1.7x."""
    from roofline.editing import diff_models

    text = diff_models("llama-3.1-70b", "deepseek-v3", hardware="h200", tp=8)
    assert re.search(r"KV per token a device at 4k \(bf16, tp 8\) +40\.0 KiB +68\.6 KiB +1\.7\dx", text), text
    assert re.search(r"KV per token at 4k \(bf16\) +320\.0 KiB +68\.6 KiB", text)


def test_a_path_profile_named_with_a_slash_or_linked_to_a_built_in_reads_as_before(roofline, tmp_path):
    """qa111: the by-path shadow check built a path from the profile's name (name: a/b crashed predict with a
    ValueError), and a link to the built-in file itself was said to be named like the built-in."""
    text = (ROOT / "hardware_profiles" / "h100-sxm.yaml").read_text()
    (tmp_path / "slash.yaml").write_text(text.replace("name: h100-sxm", "name: a/b", 1))
    code, out, err = roofline("predict", "--hardware", tmp_path / "slash.yaml", "--engine", "ideal")
    assert code == 0 and "1 x a/b" in out and "Traceback" not in err
    (tmp_path / "link.yaml").symlink_to(ROOT / "hardware_profiles" / "h100-sxm.yaml")
    code, out, err = roofline("predict", "--hardware", tmp_path / "link.yaml")
    assert code == 0 and "is named" not in err


def test_a_copy_blames_its_source_only_for_the_sources_own_fault(roofline, tmp_path):
    """qa111: with the source's bad value replaced by --set, a bad value of the copy's own was hidden behind the
    source's (already replaced) fault; an integer peak's sparsity note said TFLOP/s."""
    text = (ROOT / "hardware_profiles" / "h100-sxm.yaml").read_text().replace("name: h100-sxm", "name: effbad", 1)
    text = re.sub(r"(?m)^(  memory: )0\.\d+", r"\g<1>1.5", text, count=1)
    (tmp_path / "effbad.yaml").write_text(text)
    code, _, err = roofline("hw", "new", "x1", "--from", tmp_path / "effbad.yaml", "--set", "efficiency.memory=0.8",
                            "--set", "memory_bandwidth=-1 TB/s", "--dir", tmp_path / "out")
    assert code == 2 and err.startswith(f"error: {tmp_path / 'out' / 'x1.yaml'} (not written): memory_bandwidth: ") and "--from" not in err
    code, _, err = roofline("hw", "new", "x1", "--from", tmp_path / "effbad.yaml", "--set", "efficiency.memory=0.8",
                            "--dir", tmp_path / "out")
    assert code == 0, err
    code, _, err = roofline("--profiles", tmp_path / "out", "hw", "set", "x1", "peak_flops.int8=3957.8 TOP/s")
    assert code == 0 and "peak_flops.int8: 3,957.8 TOP/s is twice the 1,978.9 TOP/s it was" in err and "dense OP/s" in err


def test_removing_a_copys_family_says_which_family_and_engine_values_it_takes_now(tmp_path):
    """qa123: `hw set COPY family=null` on a copy of an MI300X said 'the tool's default', where the device became a
    Hopper to vllm (6.31 us kernels, not AMD's 4.66) and TensorRT-LLM ran on it without a word."""
    from roofline.editing import new_profile, set_fields
    from roofline.errors import RooflineWarning

    new_profile("hardware", "amd-node", "mi300x", [], out_dir=tmp_path)
    copy = new_profile("hardware", "amd-node2", "amd-node", [], out_dir=tmp_path, extra_dirs=(tmp_path,))
    with pytest.warns(RooflineWarning) as said:
        set_fields("hardware", str(copy), ["family=null"], extra_dirs=(tmp_path,))
    (line,) = [str(w.message) for w in said if "family removed" in str(w.message)]
    assert line.endswith("family removed (it was mi300x): the device is now of its own name's family, amd-node2 (NVIDIA "
                         "Hopper (or other)), with that family's engine values and engine checks, no longer AMD Instinct's")


@pytest.mark.slow
def test_removing_costs_from_says_the_profile_now_has_only_its_own_costs(tmp_path):
    """qa141: `--set costs_from=null` said 'not a field of engine profiles', and the copy became the ideal engine."""
    from roofline.editing import new_profile
    from roofline.errors import RooflineWarning

    with pytest.warns(RooflineWarning) as said:
        new_profile("engine", "v0e", "vllm-v0", ["costs_from=null"], out_dir=tmp_path)
    (line,) = [str(w.message) for w in said if "costs_from removed" in str(w.message)]
    assert "costs_from removed (it was vllm): the profile now holds only the costs it sets itself" in line
    assert "not a field" not in line


@pytest.mark.slow
def test_an_override_glob_matching_no_device_or_given_twice_is_said(tmp_path):
    """qa141: `overrides.0.hardware=H100*` (globs are case-sensitive; families lower case) applied nowhere in silence;
    qa388: warned, it still applied nowhere, where a known miss's upper-case glob is refused: refused alike now."""
    from roofline.editing import new_profile
    from roofline.errors import RooflineError, RooflineWarning

    with pytest.raises(RooflineError, match=r"overrides\[0\]\.hardware: expected an engine family or glob in lower case "
                                            r"like mi\*, found 'H100\*'"):
        new_profile("engine", "e10", "sglang", ["overrides.0.hardware=H100*"], out_dir=tmp_path)
    assert not (tmp_path / "e10.yaml").exists()
    with pytest.warns(RooflineWarning) as said:
        new_profile("engine", "e10", "sglang", ["overrides.0.hardware=h100-sxm5*"], out_dir=tmp_path)
    assert [w for w in said if "overrides[0].hardware: 'h100-sxm5*' matches no device's engine family" in str(w.message)]
    with pytest.warns(RooflineWarning) as said:
        new_profile("engine", "e11", "sglang", ['overrides=[{hardware: "h*", kernel_latency: 3 us}, '
                                                '{hardware: "h*", kernel_latency: 4 us}]'], out_dir=tmp_path)
    assert [w for w in said if "overrides[1].hardware: 'h*' is an earlier entry's glob too" in str(w.message)]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", RooflineWarning)
        new_profile("engine", "e12", "sglang", [], out_dir=tmp_path)  # its own globs each match a device


@pytest.mark.slow
def test_a_failed_write_names_the_profile_and_an_edit_that_cannot_be_written_is_kept(tmp_path, monkeypatch):
    """qa141: a profile that could not be replaced was named by the deleted temporary file, under '--out:', and `edit`
    lost the edit with its scratch file."""
    import os

    from roofline.editing import edit_profile, new_profile, set_fields

    path = new_profile("hardware", "hc", "h100-sxm", [], out_dir=tmp_path)

    def refuse(src, dst):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(RooflineError, match=rf"^hw set: cannot write {path}: Operation not permitted$"):
        set_fields("hardware", str(path), ["memory=90 GB"])
    script = tmp_path / "ed.sh"
    script.write_text('#!/bin/sh\nsed -i "s/^memory: .*/memory: 91 GB/" "$1"\n')
    script.chmod(0o755)
    with pytest.raises(RooflineError, match=rf"^hw edit: cannot write {path}: .*; your edit is kept in ") as caught:
        edit_profile("hardware", str(path), editor=str(script))
    kept = Path(str(caught.value).rsplit(" ", 1)[-1])
    assert "memory: 91 GB" in kept.read_text() and "memory: 91 GB" not in path.read_text()


@pytest.mark.slow
def test_an_entry_of_a_list_of_names_is_refused_as_such(tmp_path):
    """qa141: `dp_attention_stage_split.0=embedding` was told to set `dp_attention_stage_split.0.FIELD`."""
    from roofline.editing import new_profile, set_fields

    path = new_profile("engine", "e12", "sglang", [], out_dir=tmp_path)
    for assignment, says in (("dp_attention_stage_split.0=embedding", "expected dp_attention_stage_split set whole, a list "
                              "of values (dp_attention_stage_split=[A, B]), found an entry of it"),
                             ("dp_attention_stage_split.0.x=1", "expected dp_attention_stage_split.0 to be a mapping, "
                              "found 'mlp'")):
        with pytest.raises(RooflineError, match=re.escape(says)):
            set_fields("engine", str(path), [assignment])
    set_fields("engine", str(path), ["dp_attention_whole=[]"])  # qa143: an empty list's entry
    with pytest.raises(RooflineError, match=re.escape("expected dp_attention_whole set whole (dp_attention_whole=[...]: it is empty)")):
        set_fields("engine", str(path), ["dp_attention_whole.0=lm_head"])


@pytest.mark.slow
def test_a_familys_fitted_value_set_by_hand_leaves_the_fits_per_family_record(tmp_path):
    """qa141: `overrides.0.kernel_latency=9 us` (mi*) left 'kernel_latency on AMD Instinct (mi*; 10 rows)' claiming
    the fit set it; `edit` alike."""
    from roofline.editing import edit_profile, new_profile
    from roofline.serving import load_engine

    def per_family(path):
        return load_engine(str(path)).fitted["per_family"]

    assert any(e.startswith("kernel_latency on AMD Instinct (mi*;") for e in load_engine("sglang").fitted["per_family"])
    path = new_profile("engine", "e13", "sglang", ["overrides.0.kernel_latency=9 us"], out_dir=tmp_path)
    assert not any(e.startswith("kernel_latency on AMD Instinct") for e in per_family(path))
    assert any(e.startswith("kernel_latency on NVIDIA Blackwell") for e in per_family(path))
    path = new_profile("engine", "e14", "sglang", [], out_dir=tmp_path)
    script = tmp_path / "ed.sh"
    script.write_text('#!/bin/sh\nsed -i "s/^    kernel_latency: 5\\.[0-9]* us/    kernel_latency: 9 us/" "$1"\n')  # the mi* value
    script.chmod(0o755)
    assert edit_profile("engine", str(path), editor=str(script))[1]
    assert not any(e.startswith("kernel_latency on AMD Instinct") for e in per_family(path))


def test_a_sliding_group_without_a_window_and_a_name_starting_with_a_dot_say_what_is_wrong():
    """qa141: a window nobody wrote was 'found 0'; '.hidden' was told it needs letters, digits, '.', '_' or '-'."""
    from roofline.model import _group
    from roofline.profiles import check_profile_name

    with pytest.raises(RooflineError, match=r"groups\[0\]\.window: expected a positive integer \(a sliding group's window, in "
                                            r"tokens\), found none$"):
        _group("m.yaml", "groups[0]", "sliding", 32, None, 1, 0)
    assert _group("m.yaml", "groups[0]", "full", 32, None, 1, 0).window == 0
    with pytest.raises(RooflineError, match="starting with a letter or digit"):
        check_profile_name(".hidden")


@pytest.mark.slow
def test_engines_diff_sizes_each_engines_points_in_its_own_share_of_the_memory(roofline):
    """qa166: engines diff timed Qwen3-32B at batch 64, 4k on an H200 under vllm where predict said it does not fit (the
    reference points sized memory in the hardware profile's 0.90, not vllm's share less its reserve)."""
    code, out, _ = roofline("engines", "diff", "ideal", "vllm", "--model", "qwen3-32b", "--hardware", "h200")
    (line,) = [ln for ln in out.splitlines() if "B=64 S=4096 tokens/s" in ln]
    assert code == 0 and "does not fit" in line and "ktok/s" in line  # ideal's 0.90 holds it, vllm's share does not
    code, out, _ = roofline("predict", "--model", "qwen3-32b", "--hardware", "h200", "--batch", "64", "--context", "4096")
    assert "fits in memory       NO" in out


@pytest.mark.slow
def test_an_engines_memory_sizes_read_zero_in_any_unit_and_stop_at_a_pebibyte(roofline, tmp_path):
    code, out, _ = roofline("engines", "new", "z", "--from", "vllm", "--set", "memory_reserved=0 GiB", "--dir", tmp_path)
    assert code == 0 and "memory_reserved: 0 GiB" in (tmp_path / "z.yaml").read_text()
    code, _, err = roofline("engines", "new", "w", "--from", "vllm", "--set", "memory_reserved_parallel=2 PiB", "--dir", tmp_path)
    assert code == 2 and "memory_reserved_parallel: expected a memory size of at most 1 PiB, found '2 PiB'" in err


@pytest.mark.slow
def test_engines_diff_names_a_memory_size_override_by_its_profile_key(roofline):
    """qa169: `engines diff sglang vllm` printed 'overrides a100-pcie-40gb: memory_reserved_per_dp_group_bytes', the
    dataclass field, where every other row reads the profile's key; the value is a size with its unit."""
    code, out, _ = roofline("engines", "diff", "vllm", "sglang")
    (line,) = [ln for ln in out.splitlines() if ln.startswith("overrides a100-pcie-40gb: memory_reserved_per_dp_group")]
    assert code == 0 and "_bytes" not in line and "503 MB" in line
    # qa203: fit errors on different rows (194 published against a user's 8) were set against each other as a ratio
    (rms,) = [ln for ln in out.splitlines() if ln.startswith("fitted RMS log error")]
    assert rms.startswith("fitted RMS log error (each on its own rows: not compared)") and not re.search(r"\d+(\.\d+)?x\b", rms)
    (same,) = [ln for ln in roofline("engines", "diff", "vllm", "vllm")[1].splitlines() if ln.startswith("fitted RMS")]
    assert same.split()[-1] == "1x"
    lines = out.splitlines()
    (at,) = [i for i, ln in enumerate(lines) if ln.startswith("host_overlap_speculating")]  # qa202: vllm's true meant
    assert lines[at] == "host_overlap_speculating (A: no effect, host_overlap false)"  # nothing where its host work is
    assert lines[at + 1].split()[:2] == ["true", "false"]  # never overlapped; its values on the next line (qa403)
    both = roofline("engines", "diff", "vllm", "vllm")[1].splitlines()  # qa409: both sides, and neither
    assert "host_overlap_speculating (A and B: no effect, host_overlap false)" in both
    (row,) = [ln for ln in roofline("engines", "diff", "sglang", "trtllm")[1].splitlines() if ln.startswith("host_overlap_speculating")]
    assert row.split()[:3] == ["host_overlap_speculating", "false", "true"], row


def test_a_diff_s_long_label_is_a_line_of_its_own_not_a_wider_label_column():
    """qa403: `engines diff` rows were up to 269 characters wide, its label column as wide as its longest label (81
    characters, a copy's fit error set by hand since); such a label is now a line of its own, its values below it."""
    from roofline.editing import DIFF_LABEL_WIDTH, side_by_side

    long = "fitted RMS log error (of the fit's values; set by hand since: not this profile's)"
    lines = side_by_side(("a.yaml", "b.yaml"), ("a", "b"), [("kernel_latency", 3.4e-6, 5.4e-6, "s"), (long, 0.078, 0.19, "text")])
    header, first, label, values = lines[3:]
    assert len(long) > DIFF_LABEL_WIDTH and label == long and values.split() == ["0.078", "0.19", "-", "*"]
    assert values.startswith(" " * len("kernel_latency  ")) and first.split() == ["kernel_latency", "3.4", "us", "5.4", "us", "1.59x", "*"]
    assert len(header) == len(first.removesuffix("  *")) == len(values.removesuffix("  *")) < len(long), lines
    at_width = "x" * DIFF_LABEL_WIDTH  # a label of the width itself stays in its column (qa409)
    assert side_by_side(("a", "b"), ("a", "b"), [("k", 1.0, 2.0, ""), (at_width, 1.0, 2.0, "")])[-1].startswith(at_width + "  ")
    only_long = side_by_side(("a", "b"), ("a", "b"), [(long, 1.0, 2.0, "")])  # every label long: no column of labels
    assert only_long[-2:] == [long, "               1               2       2x  *"], only_long


def test_a_diff_s_value_columns_are_as_wide_as_its_longest_value():
    """qa183: `engines diff sglang vllm` let --max-running-requests and the stage-split list overflow their column, so
    the columns after them stood out of line; every row now ends where the header does."""
    from roofline.editing import side_by_side

    rows = [("heading", None, None, None), ("max_running_requests_flag", "--max-running-requests", None, "text"),
            ("dp_attention_stage_split", "mlp, shared_experts, lm_head", "-", "text"), ("kernel_latency", 3.4e-6, 5.4e-6, "s")]
    lines = side_by_side(("a.yaml", "b.yaml"), ("sglang", "vllm"), rows)
    header, body = lines[3], [ln for ln in lines[4:] if ln != "heading"]
    assert header.endswith("B / A") and len(body) == 3
    assert {len(ln.removesuffix("  *")) for ln in body} == {len(header)}, lines
    assert "mlp, shared_experts, lm_head  " in body[1]  # not cut


@pytest.mark.slow
def test_a_null_cap_set_on_a_profile_taking_anothers_costs_is_written_not_removed(tmp_path, roofline):
    """qa177: `--set max_running_requests_speculating=null` on a copy of a costs_from profile removed the key, so the
    copy took sglang's 48 while the warning said 'the tool's default'; it is written as null (no cap) now."""
    from roofline.serving import load_engine

    (tmp_path / "mysg.yaml").write_text("type: engine\nname: mysg\ncosts_from: sglang\nsource: s\nmax_running_requests_speculating: 256\n")
    code, _, err = roofline("--profiles", tmp_path, "engines", "new", "a2", "--from", "mysg", "--set",
                            "max_running_requests_speculating=null", "--dir", tmp_path)
    assert code == 0, err
    assert "removed" not in err and load_engine("a2", (tmp_path,)).max_running_requests_speculating is None
    code, _, err = roofline("--profiles", tmp_path, "engines", "set", "mysg", "max_running_requests_speculating=null")
    assert code == 0 and "removed" not in err, err
    assert load_engine("mysg", (tmp_path,)).max_running_requests_speculating is None
    # qa178: written `null`, not an empty value, and still listed as set by hand after `set ... =null`
    text = (tmp_path / "a2.yaml").read_text()
    assert "max_running_requests_speculating: null\n" in text and "set by hand" in text
    for value in ("100", "null"):
        assert roofline("--profiles", tmp_path, "engines", "set", "a2", f"max_running_requests_speculating={value}")[0] == 0
    text = (tmp_path / "a2.yaml").read_text()
    assert "max_running_requests_speculating: null\n" in text
    assert "# set by hand, not from the source or notes below: max_running_requests_speculating." in text
    # a field removed from a costs_from profile takes the other profile's value, which the warning names (qa178)
    (tmp_path / "mysg.yaml").write_text("type: engine\nname: mysg\ncosts_from: sglang\nsource: s\nspeculation_refused_with_pp: false\n")
    code, _, err = roofline("--profiles", tmp_path, "engines", "set", "mysg", "speculation_refused_with_pp=null")
    assert code == 0 and "speculation_refused_with_pp removed: the profile now takes sglang's value for it (its costs_from)" in err, err
    assert load_engine("mysg", (tmp_path,)).speculation_refused_with_pp is True


def test_engines_and_scenarios_list_name_a_file_that_is_not_valid_yaml(roofline, tmp_path):
    """qa182: `scenarios list` and `engines list` left such a file out unsaid (exit 0), where `hw list` and `models list`
    warn about the same file."""
    (tmp_path / "e1.yaml").write_text("type: engine\nname: e1\nsource: x\nhost_per_sequence: [35 us\n")
    (tmp_path / "s1.yaml").write_text("type: scenario\nname: s1\nhardware: h100-sxm\nmodel: llama-3.1-8b\naxes:\n  k: [1, 2\n")
    for group, name in (("engines", "e1.yaml"), ("scenarios", "s1.yaml")):
        code, out, err = roofline(group, "list", "--profiles", tmp_path)
        assert code == 0 and f"warning: {tmp_path / name}: cannot be read: line " in err, (group, err)


@pytest.mark.slow
def test_validate_without_arguments_names_the_line_as_validate_of_the_file_does(roofline, tmp_path):
    """qa182: `hw validate` (every profile) said 'link_latency: expected ...' where `hw validate h1` said 'line 20: ...'."""
    text = (ROOT / "hardware_profiles" / "h20.yaml").read_text().replace("\nname: h20\n", "\nname: h1\n")
    line = next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith("link_latency:"))
    lines = text.splitlines()
    lines[line - 1] = "link_latency: 3"
    (tmp_path / "h1.yaml").write_text("\n".join(lines) + "\n")
    _, out_all, err_all = roofline("--profiles", tmp_path, "hw", "validate")
    _, out_one, err_one = roofline("--profiles", tmp_path, "hw", "validate", "h1")
    said = [t for t in (out_all + err_all).splitlines() if "h1.yaml" in t]
    assert said and f"line {line}: link_latency: " in said[0], said
    assert f"line {line}: link_latency: " in out_one + err_one
    # qa279: errors not built with their line (a name that is not the file's, a scenario's tree.tau) said it in a sweep
    # or predict, not in validate
    (tmp_path / "h1.yaml").write_text(text.replace("\nname: h1\n", "\nname: other\n"))
    name_line = next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith("name:"))
    for args in (("hw", "validate", "h1"), ("hw", "validate", str(tmp_path / "h1.yaml")), ("hw", "validate")):
        _, out, err = roofline("--profiles", tmp_path, *args)
        assert f"h1.yaml: line {name_line}: name: expected the file name 'h1', found 'other'" in out + err, (args, out + err)
    (tmp_path / "s.yaml").write_text("type: scenario\nname: s\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                                     "tree:\n  nodes: 2\n  tau: 5\naxes: {batch: [1], context: [512], k: [2]}\n")
    _, out, err = roofline("scenarios", "validate", str(tmp_path / "s.yaml"))
    assert "s.yaml: line 8: tree.tau: expected" in out + err, out + err


def test_a_display_name_with_a_newline_keeps_the_header_comment_one_line(roofline, tmp_path):
    """qa182: `--set $'display_name=line1\\nline2'` broke the comment `new` writes: 'line2: expected a known field'."""
    code, _, err = roofline("hw", "new", "g", "--from", "h100-sxm", "--dir", tmp_path, "--set", "display_name=line1\nline2")
    assert code == 0, err
    first = (tmp_path / "g.yaml").read_text().splitlines()[0]
    assert first.startswith("# line1\\nline2: made with `roofline hw new g --from h100-sxm")


def test_new_says_when_a_file_earlier_on_the_search_path_hides_the_profile_it_wrote(roofline, tmp_path, monkeypatch):
    """qa182: `--profiles d6 hw new zz` wrote the user folder's zz.yaml, which d6's zz.yaml hides: exit 0, nothing said,
    and every later `--hardware zz` priced d6's."""
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user"))
    first = tmp_path / "d6"
    first.mkdir()
    assert roofline("hw", "new", "zz", "--from", "h100-sxm", "--dir", first, "--set", "price=1 USD/h")[0] == 0
    code, out, err = roofline("--profiles", first, "hw", "new", "zz", "--from", "h100-sxm", "--set", "price=7 USD/h")
    assert code == 0 and (tmp_path / "user" / "zz.yaml").exists()
    assert f"warning: {first / 'zz.yaml'} comes first on the search path: `zz` names that file, not " in err
    code, _, err = roofline("--profiles", first, "hw", "new", "yy", "--from", "h100-sxm")
    assert code == 0 and "comes first" not in err  # a new name: nothing to say


def test_a_string_in_a_flow_list_or_mapping_reads_back_as_itself():
    """qa184: ruamel wrote `? odd.yaml` and `: y` bare inside a flow list, which read back as mappings; such an entry is
    quoted now, and a plain one stays plain."""
    from roofline.editing import _dump, _flow_if_flat
    from roofline.yamlio import load_yaml_text

    value = {"hardware": ["h100-sxm", "? odd.yaml", ": y", "- z", "a: b", "#c", "8", "yes"],
             "axes": {"batch": [1, 8], "note": "? q", "k": ": r"}}
    text = _dump(_flow_if_flat(value))
    assert load_yaml_text(text, "t.yaml") == value, text
    assert text.startswith("hardware: [h100-sxm, '? odd.yaml', ': y', ") and "batch: [1, 8]" in text


@pytest.mark.slow
def test_scenarios_have_new_set_and_edit_as_the_profiles_do(roofline, tmp_path, monkeypatch):
    """qa182: `scenarios` offered list, show and validate only: a scenario was copied and changed by hand. A list set
    on the command line is written in flow style, as scenario files write theirs."""
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    code, _, err = roofline("scenarios", "new", "my-ft", "--from", "fast-tier", "--set", "engine=sglang",
                            "--set", "axes.batch=[1, 8, 64]")
    assert code == 0, err
    text = (tmp_path / "my-ft.yaml").read_text()
    assert "\nname: my-ft\n" in text and "\nengine: sglang\n" in text and "  batch: [1, 8, 64]\n" in text
    assert text.splitlines()[0].endswith("every field not set there is fast-tier's (values and description) until edited.")
    # qa415: 'not from the source or notes below' of a scenario, which has neither
    assert text.splitlines()[1] == "# set by hand, not from the scenario copied: axes.batch, engine."
    # qa205: a report printed the source's description over the changed sweep
    assert "\ndescription: 'my-ft: a copy of fast-tier with axes.batch, engine set, whose description was: " in text
    code, _, err = roofline("scenarios", "set", "my-ft", "hardware=[h100-sxm, b200]", "axes.k=[1, 2]")
    assert code == 0, err
    text = (tmp_path / "my-ft.yaml").read_text()
    assert text.splitlines()[1] == "# set by hand, not from the scenario copied: axes.batch, axes.k, engine, hardware."
    # qa209: fields set since are said too, and a copy of the copy names the first source, not a nest of copies
    assert "\ndescription: 'my-ft: a copy of fast-tier with axes.batch, axes.k, engine, hardware set, whose description was: " in text
    assert roofline("scenarios", "set", "my-ft", "description=My own words")[0] == 0  # qa211: kept, once written
    assert roofline("scenarios", "set", "my-ft", "axes.k=[1, 2]")[0] == 0
    assert yaml.safe_load((tmp_path / "my-ft.yaml").read_text())["description"] == "My own words"
    (tmp_path / "my-ft.yaml").write_text(text)  # the copy as it was before its description was written
    assert roofline("scenarios", "new", "my-ft2", "--from", "my-ft", "--set", "axes.k=[1]")[0] == 0
    assert "\ndescription: 'my-ft2: a copy of fast-tier with axes.batch, axes.k, engine, hardware set, whose description was: " in (
        tmp_path / "my-ft2.yaml").read_text()
    # qa423: the copy's header listed my-ft's fields as 'set by hand, not from the scenario copied', which they were from
    assert (tmp_path / "my-ft2.yaml").read_text().splitlines()[1] == "# set by hand, not from the scenario copied: axes.k."
    assert roofline("scenarios", "new", "my-ft3", "--from", "fast-tier", "--set", "description=Mine")[0] == 0
    assert (tmp_path / "my-ft3.yaml").read_text().splitlines()[0].endswith("is fast-tier's (values) until edited.")
    assert "\nhardware: [h100-sxm, b200]\n" in text and "  k: [1, 2]\n" in text and "  batch: [1, 8, 64]\n" in text
    code, out, _ = roofline("scenarios", "show", "my-ft")
    assert code == 0 and "h100-sxm, b200" in out
    before = (tmp_path / "my-ft.yaml").read_text()
    for args, says in ((("set", "my-ft", "engine=nope"), "engine: unknown engine 'nope'"),
                       (("set", "my-ft", "axes.batch=[0, 1]"), "axes.batch: expected values >= 1"),
                       (("set", "fast-tier", "engine=sglang"), "is a built-in profile"),
                       (("new", "my-ft", "--from", "fast-tier"), "my-ft.yaml exists; pass --force")):
        code, _, err = roofline("scenarios", *args)
        assert code == 2 and says in err and "Traceback" not in err, (args, err)
    assert (tmp_path / "my-ft.yaml").read_text() == before  # nothing written by a refused edit
    code, out, _ = roofline("scenarios", "new", "--help")
    shown = " ".join(out.split())
    assert code == 0 and "Create a scenario from an existing one" in shown and "Existing scenario to start from" in shown
    code, out, _ = roofline("scenarios", "remove", "--help")  # qa192: 'a user scenario file file'; hw's --force text
    shown = " ".join(out.split())
    assert code == 0 and "Delete a user scenario: the file NAME finds" in shown and "file file" not in shown
    assert "Remove it anyway: a file that is no valid scenario." in shown and "engine" not in shown


@pytest.mark.slow
def test_remove_deletes_a_user_profile_and_refuses_a_built_in_or_one_another_takes_costs_from(roofline, tmp_path, monkeypatch):
    """No group had a remove command (session 39's leftover): a user profile was deleted by hand, and a shadowing copy
    by hand too. A built-in is refused, and an engine another takes its costs from needs --force."""
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    code, out, err = roofline("hw", "remove", "h100-sxm")
    assert code == 2 and "hardware_profiles/h100-sxm.yaml: is a built-in profile; nothing removed" in err
    (tmp_path / "weird.yaml").write_text("name: weird\nfoo: 1\n")  # qa389: its problem was cut at 160 characters ('ax')
    code, _, err = roofline("hw", "remove", "weird")
    assert code == 2 and err.strip().endswith("(memory_bandwidth, layers, kernel_latency, axes)); nothing removed (pass "
                                              "--force to remove it anyway)"), err
    (tmp_path / "weird.yaml").unlink()
    assert (Path(__file__).resolve().parent.parent / "hardware_profiles" / "h100-sxm.yaml").is_file()
    assert roofline("hw", "new", "h100-sxm", "--from", "h100-sxm", "--force")[0] == 0  # shadows the built-in
    code, out, err = roofline("hw", "remove", "h100-sxm")
    assert code == 0 and out == f"removed {tmp_path / 'h100-sxm.yaml'}\n" and not (tmp_path / "h100-sxm.yaml").exists()
    assert "note: `h100-sxm` now names " in err and "hardware_profiles/h100-sxm.yaml" in err
    (tmp_path / "base1.yaml").write_text("type: engine\nname: base1\nsource: s\nhost_per_step: 1 ms\n")
    (tmp_path / "taker.yaml").write_text("type: engine\nname: taker\nsource: s\ncosts_from: BASE1\n")
    code, _, err = roofline("engines", "remove", "base1")
    assert code == 2 and f"{tmp_path / 'taker.yaml'} takes its costs from it (costs_from: BASE1)" in err, err
    assert (tmp_path / "base1.yaml").exists()
    assert roofline("engines", "remove", "base1", "--force")[0] == 0 and not (tmp_path / "base1.yaml").exists()
    assert roofline("scenarios", "new", "sc1", "--from", "kv-caps-batch")[0] == 0
    code, out, err = roofline("scenarios", "remove", "sc1")
    assert code == 0 and not (tmp_path / "sc1.yaml").exists() and "now names" not in err
    # a scenario whose sweep would warn (a context far from its request's mean): removed without its warnings (qa356)
    code, _, err = roofline("scenarios", "new", "sc2", "--from", "eagle-on-hopper", "--set", "prompt=1024",
                            "--set", "output_len=256")
    assert code == 0 and "axes.context" in err  # the copy's own note, said where it is made
    code, out, err = roofline("scenarios", "remove", "sc2")
    assert code == 0 and out == f"removed {tmp_path / 'sc2.yaml'}\n" and "warning" not in err, err
    code, _, err = roofline("models", "remove", "nope")
    assert code == 2 and "unknown model 'nope'" in err and "Traceback" not in err
    # qa189: a copy named vllm was refused for vllm-v0's sake, which then takes the built-in's; a broken file could not
    # be removed; a costs_from given as a path went unseen
    assert roofline("engines", "new", "vllm", "--from", "vllm", "--force")[0] == 0
    code, _, err = roofline("engines", "remove", "vllm")
    assert code == 0 and "now names" in err, err
    (tmp_path / "broken.yaml").write_text("type: model\nname: broken\nfoo: [\n")
    code, _, err = roofline("models", "remove", "broken")  # qa191: no valid profile: removed on --force alone
    assert code == 2 and "is no valid model profile" in err and "pass --force" in err and (tmp_path / "broken.yaml").exists()
    assert roofline("models", "remove", "broken", "--force")[0] == 0 and not (tmp_path / "broken.yaml").exists()
    (tmp_path / "notes.yaml").write_text("hello: world\n")
    code, _, err = roofline("scenarios", "remove", "notes")
    assert code == 2 and "is no valid scenario profile" in err and (tmp_path / "notes.yaml").exists()
    # qa191: a taker spelling the name otherwise (vLLM, an alias) loads the built-in once the copy is gone
    assert roofline("engines", "new", "vllm", "--from", "vllm", "--force")[0] == 0
    (tmp_path / "spelt.yaml").write_text("type: engine\nname: spelt\nsource: s\ncosts_from: vLLM\n")
    code, _, err = roofline("engines", "remove", "vllm")
    assert code == 0, err
    (tmp_path / "spelt.yaml").unlink()
    assert roofline("engines", "new", "myv", "--from", "vllm")[0] == 0
    (tmp_path / "bypath.yaml").write_text(f"type: engine\nname: bypath\nsource: s\ncosts_from: {tmp_path / 'myv.yaml'}\n")
    code, _, err = roofline("engines", "remove", "myv")
    assert code == 2 and f"bypath.yaml takes its costs from it (costs_from: {tmp_path / 'myv.yaml'})" in err, err
    if hasattr(os, "symlink"):  # a profile that is a link: the link goes, the file it points to stays
        target = tmp_path / "elsewhere" / "linked.yaml"
        target.parent.mkdir()
        target.write_text((tmp_path / "taker.yaml").read_text().replace("name: taker", "name: linked").replace("BASE1", "vllm"))
        os.symlink(target, tmp_path / "linked.yaml")
        (tmp_path / "bytarget.yaml").write_text(f"type: engine\nname: bytarget\nsource: s\ncosts_from: {target}\n")
        code, out, err = roofline("engines", "remove", "linked")  # qa191: a taker by the target's path still loads
        assert code == 0 and f"(a link: {os.path.realpath(target)}, where it pointed, is kept)" in out, (out, err)
        assert target.is_file() and not (tmp_path / "linked.yaml").exists()
        # qa193: a taker reaching the file through a linked folder; a loop of links (a traceback); a user's link to a
        # built-in (refused as a built-in); a dangling link's target said to be kept
        assert roofline("engines", "new", "base", "--from", "vllm")[0] == 0
        os.symlink(tmp_path, tmp_path / "elsewhere" / "ulink")
        (tmp_path / "viafolder.yaml").write_text("type: engine\nname: viafolder\nsource: s\n"
                                                 f"costs_from: {tmp_path / 'elsewhere' / 'ulink' / 'base.yaml'}\n")
        code, _, err = roofline("engines", "remove", "base")
        assert code == 2 and "viafolder.yaml takes its costs from it" in err and (tmp_path / "base.yaml").exists()
        os.symlink("loop.yaml", tmp_path / "loop.yaml")
        code, _, err = roofline("hw", "remove", "loop", "--force")
        assert code == 0 and "Traceback" not in err and not os.path.lexists(tmp_path / "loop.yaml")
        builtin = Path(__file__).resolve().parent.parent / "hardware_profiles" / "h100-sxm.yaml"
        os.symlink(builtin, tmp_path / "myh100.yaml")
        code, out, err = roofline("hw", "remove", "myh100", "--force")
        assert code == 0 and "where it pointed, is kept" in out and builtin.is_file(), err
        os.symlink(tmp_path / "gone.yaml", tmp_path / "dangling.yaml")
        code, out, _ = roofline("hw", "remove", "dangling", "--force")
        assert code == 0 and "which does not exist" in out and "is kept" not in out


@pytest.mark.slow
def test_remove_refuses_a_profile_a_scenario_names_unless_another_file_stands_in(roofline, tmp_path, monkeypatch):
    """qa189/qa193's leftover: `hw remove my-gpu` deleted a profile a user scenario named, which then no longer loaded.
    A hardware, model or engine profile a scenario names (in a list too, as a drafter, by a path from the scenario's
    folder) needs --force, unless another file answers to the name once it is gone (a copy shadowing a built-in)."""
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    for args in (("hw", "new", "my-gpu", "--from", "h100-sxm"), ("models", "new", "my-draft", "--from", "llama-3.2-1b"),
                 ("engines", "new", "my-eng", "--from", "vllm"), ("hw", "new", "h200", "--from", "h200", "--force")):
        assert roofline(*args)[0] == 0, args
    (tmp_path / "sc.yaml").write_text("type: scenario\nname: sc\nhardware: [h100-sxm, my-gpu, h200]\nmodel: llama-3.1-8b\n"
                                      "method: draft\ndraft: my-draft\nengine: [vllm, my-eng]\naxes:\n  alpha: [0.7]\n")
    assert roofline("scenarios", "validate", "sc")[0] == 0
    for group, name, said in (("hw", "my-gpu", "hardware: my-gpu"), ("models", "my-draft", "draft: my-draft"),
                              ("engines", "my-eng", "engine: my-eng")):
        code, _, err = roofline(group, "remove", name)
        assert code == 2 and f"{tmp_path / 'sc.yaml'} names it ({said}), and no other file takes its place; nothing" in err, err
        assert "pass --force" in err and (tmp_path / f"{name}.yaml").exists()
    code, _, err = roofline("hw", "remove", "h200")  # the built-in h200 stands in: the scenario still loads
    assert code == 0 and "now names" in err, err
    # qa195: a stand-in the scenario names already breaks it too (each profile once); every taker is named
    assert roofline("hw", "new", "h100", "--from", "h100-sxm", "--force")[0] == 0
    (tmp_path / "sc.yaml").write_text("type: scenario\nname: sc\nhardware: [h100, h100-sxm]\nmodel: llama-3.1-8b\n")
    (tmp_path / "sc2.yaml").write_text("type: scenario\nname: sc2\nhardware: H100\nmodel: llama-3.1-8b\n")
    code, _, err = roofline("hw", "remove", "h100")
    assert code == 2 and "names it (hardware: h100), and h100-sxm.yaml, which would take its place, is named there too" in err
    (tmp_path / "sc2.yaml").write_text("type: scenario\nname: sc2\nhardware: ./h100.yaml\nmodel: llama-3.1-8b\n")
    code, _, err = roofline("hw", "remove", "h100")
    assert code == 2 and "(and 1 more: " in err and "sc" in err, err
    code, _, err = roofline("hw", "remove", "h100", "--force")  # --force: what no longer loads is said
    assert code == 0 and f"{tmp_path / 'sc2.yaml'} names it (hardware: ./h100.yaml): it no longer loads" in err, err
    (tmp_path / "sc.yaml").write_text("type: scenario\nname: sc\nhardware: ./my-gpu.yaml\nmodel: llama-3.1-8b\n")
    (tmp_path / "sc2.yaml").unlink()
    code, _, err = roofline("hw", "remove", "my-gpu")  # a path from the scenario's folder
    assert code == 2 and "names it (hardware: ./my-gpu.yaml)" in err, err
    assert roofline("hw", "remove", "my-gpu", "--force")[0] == 0 and not (tmp_path / "my-gpu.yaml").exists()
    code, _, err = roofline("scenarios", "validate", "sc")
    assert code == 2  # what --force was for: the scenario names a file that is gone


@pytest.mark.slow
def test_a_scenario_s_name_removed_is_said_as_its_file_s_name(roofline, tmp_path, monkeypatch):
    """qa184: `scenarios new s6 --from fast-tier --set name=null` said 'the profile now takes the tool's default for it,
    not s6 from fast-tier': s6 was the copy's own name, and a scenario without one takes its file's."""
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    code, _, err = roofline("scenarios", "new", "my-s6", "--from", "fast-tier", "--set", "name=null")
    assert code == 0, err
    assert f"{tmp_path / 'my-s6.yaml'}: name removed (it was my-s6): the scenario takes its file's name, my-s6" in err, err
    assert "from fast-tier" not in err
    # qa189: a question removed was said as 'the tool's default ... from break-even-batch'
    code, _, err = roofline("scenarios", "new", "my-q", "--from", "break-even-batch", "--set", "question=null")
    assert code == 0 and "question removed (it was break-even-batch): a report gives the scenario the generic finding" in err, err
    code, _, err = roofline("scenarios", "new", "my-q2", "--from", "break-even-batch", "--set", "question=null",
                            "--set", "name=kv-caps-batch")  # qa191: said of its name before the edit
    assert code == 0 and "a report gives the scenario the kv-caps-batch question's finding, its name's" in err, err


@pytest.mark.slow
def test_the_sweep_warnings_a_scenario_edit_raises_name_its_file(roofline, tmp_path, monkeypatch):
    """qa184: `scenarios new` / `set` printed the sweep's warnings (a batch above the engine's cap while speculating)
    under no file name; qa372: 22 of them after a copy, a file written and nothing swept: counted in one line now, and
    `scenarios validate` says them, each under the file's name."""
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    code, _, err = roofline("scenarios", "new", "sg-ft", "--from", "fast-tier", "--set", "engine=sglang")
    assert code == 0, err
    said = [line for line in err.splitlines() if line.startswith("warning:")]
    count = re.fullmatch(rf"warning: {re.escape(str(tmp_path / 'sg-ft.yaml'))}: its sweep will say (\d+) notes on what "
                         r"it sweeps \(roofline scenarios validate sg-ft says them now\)", said[0]) if len(said) == 1 else None
    assert count, err
    code, _, err = roofline("scenarios", "validate", "sg-ft")
    said = [line for line in err.splitlines() if line.startswith("warning:")]
    assert code == 0 and len(said) == int(count.group(1)), err
    assert all(line.startswith(f"warning: {tmp_path / 'sg-ft.yaml'}: ") for line in said), err
    assert any("speculating under sglang: it runs at most 48" in line for line in said)


@pytest.mark.slow
def test_a_scenario_copy_keeps_its_profile_paths_text_descriptions_and_flow_style(roofline, tmp_path, monkeypatch):
    """qa184: a copy kept `hardware: hwx.yaml`, a path relative to the source's folder, and failed or found another
    file; `description=2026` was refused as not text; `axes={...}` and `layouts=[{...}]` were written one line an
    entry; `method.llama-3.1-8b=` split the model name at its dots."""
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user"))
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "hwx.yaml").write_text((ROOT / "hardware_profiles" / "mi355x.yaml").read_text().replace("\nname: mi355x\n", "\nname: hwx\n"))
    (mine / "scen.yaml").write_text("name: scen\nhardware: hwx.yaml\nmodel: llama-3.1-8b\nmethod: eagle\naxes:\n  batch: [1, 8]\n")
    code, _, err = roofline("scenarios", "new", "rel", "--from", mine / "scen.yaml", "--set", "description=2026",
                            "--set", "axes={batch: [1, 8], k: [1, 2], alpha: [0.8]}")
    assert code == 0, err
    text = (tmp_path / "user" / "rel.yaml").read_text()
    assert f"\nhardware: {(mine / 'hwx.yaml').resolve()}\n" in text and '\ndescription: "2026"\n' in text
    assert "  batch: [1, 8]\n  k: [1, 2]\n  alpha: [0.8]\n" in text
    code, _, err = roofline("scenarios", "set", "rel", "method.llama-3.1-8b=ngram", "layouts=[{tp: 1}]")
    assert code == 2 and "method.llama-3.1-8b: expected method to be a mapping" in err  # the whole model name
    code, _, err = roofline("scenarios", "set", "rel", "method={llama-3.1-8b: eagle}", "layouts=[{tp: 1}]")
    assert code == 0, err
    code, _, err = roofline("scenarios", "set", "rel", "method.llama-3.1-8b=ngram")
    assert code == 0, err
    text = (tmp_path / "user" / "rel.yaml").read_text()
    assert "method: {llama-3.1-8b: ngram}" in text and "\nlayouts: [" in text
    code, out, _ = roofline("scenarios", "show", "rel")
    assert code == 0 and "hwx.yaml" in out


def test_hw_diff_and_show_list_an_attention_stream(roofline, tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    assert roofline("hw", "new", "gpu", "--from", "h200", "--set", "operator_ceilings.attention_stream=25 GB/s")[0] == 0
    code, out, err = roofline("hw", "diff", "h200", "gpu")
    row = next(line for line in out.splitlines() if line.startswith("operator_ceilings.attention_stream"))
    assert code == 0 and row.split()[1:] == ["-", "25", "GB/s", "-", "*"], err
    assert "  attention stream  25 GB/s" in roofline("hw", "show", "gpu")[1]


def test_a_relative_costs_from_is_read_beside_the_profile_and_a_removed_field_is_not_set_by_hand(tmp_path, monkeypatch, roofline):
    """qa222: `engines set my-v0 costs_from=./team-vllm.yaml`, accepted in the profiles' folder, failed from any other
    (read from the working directory); `new --set price=null` listed price as set by hand; `scenarios list` listed a
    scenario naming a removed device as fine."""
    from roofline.editing import new_profile, set_fields
    from roofline.serving import load_engine

    new_profile("engine", "team-vllm", "vllm", [], out_dir=tmp_path)
    new_profile("engine", "my-v0", "vllm-v0", [], out_dir=tmp_path)
    monkeypatch.chdir(tmp_path)
    set_fields("engine", "my-v0", ["costs_from=./team-vllm.yaml"], (tmp_path,))
    monkeypatch.chdir(tmp_path.parent)
    assert load_engine("my-v0", (tmp_path,)).costs_from == str(tmp_path / "team-vllm.yaml")
    path = new_profile("hardware", "np2", "h100-sxm", ["price=null", "memory=96 GB"], out_dir=tmp_path)
    assert "# set by hand, not from the source or notes below: memory." in path.read_text()
    new_profile("hardware", "gone", "h100-sxm", [], out_dir=tmp_path)
    new_profile("scenario", "uses-gone", "eagle-on-hopper", ["hardware=GONE"], out_dir=tmp_path, extra_dirs=(tmp_path,))
    (tmp_path / "gone.yaml").unlink()
    code, out, err = roofline("--profiles", tmp_path, "scenarios", "list")
    assert code == 2 and "uses-gone.yaml: line" in err and "hardware: unknown hardware 'GONE'" in err, err


def test_an_edit_marks_a_list_as_one_field_and_an_override_by_its_entry_and_a_copy_keeps_a_relative_costs_from(
        roofline, tmp_path, monkeypatch):
    """qa224: adding one override entry before the others marked every family's fitted values as set by hand (entries
    compared by position), a list's change was marked as `speculation_refused.1`, and a copy of an engine whose
    costs_from is a path beside it was refused or broken elsewhere."""
    from roofline.editing import new_profile, set_fields

    code, _, err = roofline("engines", "new", "mysg5", "--from", "sglang")
    assert code == 0, err
    path = Path(os.environ["ROOFLINE_USER_DIR"]) / "mysg5.yaml"
    text = path.read_text()
    edited = (text.replace("overrides:\n", "overrides:\n  - hardware: h100-pcie\n    kernel_latency: 5 us\n", 1)
              .replace("speculation_refused: [medusa]", "speculation_refused: [medusa, draft]", 1))
    editor, _ = _fake_editor(tmp_path, [edited])
    monkeypatch.setenv("EDITOR", editor)
    monkeypatch.delenv("VISUAL", raising=False)
    code, _, err = roofline("engines", "edit", "mysg5")
    assert code == 0, err
    marked = next(line for line in path.read_text().splitlines() if line.startswith("# set by hand"))
    assert marked == ("# set by hand, not from the source or notes below: overrides.0.hardware, overrides.0.kernel_latency, "
                      "speculation_refused."), marked
    new_profile("engine", "team-vllm", "vllm", [], out_dir=tmp_path / "P")
    new_profile("engine", "my-v0", "vllm-v0", [], out_dir=tmp_path / "P")
    monkeypatch.chdir(tmp_path / "P")
    set_fields("engine", "my-v0", ["costs_from=./team-vllm.yaml"], (tmp_path / "P",))
    monkeypatch.chdir(tmp_path)
    copy = new_profile("engine", "cp-v0", "my-v0", [], out_dir=tmp_path / "elsewhere", extra_dirs=(tmp_path / "P",))
    assert f"costs_from: {tmp_path / 'P' / 'team-vllm.yaml'}" in copy.read_text()


def test_an_edit_moves_an_overrides_marks_with_its_entry_and_tells_two_entries_of_one_glob_apart():
    """qa226: an entry added first left b[0-9]*'s 'set by hand' mark on mi* (the index it had), and two entries of one
    glob collided (a change to the first marked nothing)."""
    from roofline.editing import HAND_SET, _hand_set_by_edit, hand_set_fields

    head = "# x: made with `roofline engines new x --from y`; every field not set there is y's (values, source, notes) until edited.\n"
    body = ("name: x\noverrides:\n  - hardware: \"mi*\"\n    kernel_latency: 5 us\n  - hardware: \"b[0-9]*\"\n"
            "    kernel_latency: 4 us\n")
    original = head + HAND_SET + "overrides.1.kernel_latency.\n" + body
    edited = original.replace("overrides:\n", "overrides:\n  - hardware: h100-pcie\n    kernel_latency: 5 us\n", 1)
    assert hand_set_fields(_hand_set_by_edit(original, edited, "engine")) == [
        "overrides.0.hardware", "overrides.0.kernel_latency", "overrides.2.kernel_latency"]
    twice = head + "name: x\noverrides:\n  - hardware: \"mi*\"\n    kernel_latency: 5 us\n  - hardware: \"mi*\"\n    kernel_latency: 6 us\n"
    assert hand_set_fields(_hand_set_by_edit(twice, twice.replace("5 us", "9 us"), "engine")) == ["overrides.0.kernel_latency"]


def test_scenarios_list_says_a_scenario_naming_a_profile_that_does_not_load(tmp_path, roofline):
    """qa226: finding each named file let a scenario naming an invalid one (memory_bandwidth: lots) pass, exit 0."""
    (tmp_path / "badhw.yaml").write_text("type: hardware\nname: badhw\nmemory_bandwidth: lots\n")
    (tmp_path / "s1.yaml").write_text("name: s1\nhardware: [./badhw.yaml]\nmodel: llama-3.1-8b\n")
    code, _, err = roofline("--profiles", tmp_path, "scenarios", "list")
    assert code == 2 and "s1.yaml: line 2: hardware: " in err and "badhw.yaml" in err, err


def test_scenarios_list_says_a_scenario_whose_configs_a_sweep_refuses(tmp_path, roofline):
    """qa242: mtp on a model without MTP modules (and ep on a dense model) listed with its points, exit 0, where sweep,
    show and validate refuse it."""
    (tmp_path / "s2.yaml").write_text("name: s2\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: mtp\n"
                                      "axes: {batch: [1], context: [1024], k: [1], alpha: [0.8]}\n")
    code, _, err = roofline("--profiles", tmp_path, "scenarios", "list")
    assert code == 2 and "s2.yaml: line 4: method: expected a model with MTP modules for mtp" in err, err


def test_models_and_engines_show_say_the_fields_a_copy_was_given(tmp_path):
    """qa222: `models show my-ds` printed layers 40 under DeepSeek's source text ('61 layers ...') unmarked, and `engines
    show` named only the fitted parameters set by hand."""
    from roofline.editing import new_profile
    from roofline.model import load_model
    from roofline.serving import load_engine
    from roofline.tables import engine_table, model_table

    new_profile("model", "my-ds", "deepseek-v3", ["layers=40", "attention.groups.0.layers=40"], out_dir=tmp_path)
    assert "  set by hand      attention.groups.0.layers, layers (models new --set / set / edit)" in model_table(load_model("my-ds", (tmp_path,)))
    new_profile("engine", "my-sg", "sglang", ["speculation_refused=[]", "kernels_per_layer.attention=4"], out_dir=tmp_path)
    text = engine_table(load_engine("my-sg", (tmp_path,)))
    assert "set by hand               kernels_per_layer.attention, speculation_refused (engines new" in text, text
    assert "set by hand" not in model_table(load_model("deepseek-v3"))


def test_models_diff_shows_the_shape_fields_a_copy_changes():
    """qa222: `models diff deepseek-v3 my-ds` showed no row for moe.dense_layers (3 -> 2) or groups_per_token, nor for
    windows, tying, gating or the trained context."""
    from roofline.editing import diff_models

    text = diff_models("deepseek-v3", "deepseek-v4-flash")
    rows = {line.split("  ")[0]: line for line in text.splitlines()}
    for key in ("moe.dense_layers", "moe.groups_per_token", "moe.dense_placement", "max_context_tokens", "ffn_gated",
                "tied_embeddings", "attention groups"):
        assert key in rows, key
    assert rows["moe.dense_layers"].rstrip().endswith("*") and not rows["ffn_gated"].rstrip().endswith("*")
    assert "2 sliding 128, 21 compressed 4x top 512, 20 compressed 128x" in rows["attention groups"]


def test_the_scale_out_efficiency_is_set_shown_and_diffed(roofline, tmp_path):
    code, _, err = roofline("hw", "new", "nic-gpu", "--from", "mi300x", "--set", "efficiency.scale_out=0.5", "--dir", tmp_path)
    assert code == 0, err
    assert "  link: 0.75\n  scale_out: 0.5\n" in (tmp_path / "nic-gpu.yaml").read_text()
    code, out, err = roofline("--profiles", tmp_path, "hw", "show", "nic-gpu")
    assert code == 0, err
    assert "scale-out link    50 GB/s one direction per device x 0.50, latency 20 us" in out
    code, out, err = roofline("--profiles", tmp_path, "hw", "diff", "mi300x", "nic-gpu")
    assert code == 0, err
    row = next(line for line in out.splitlines() if line.startswith("efficiency.scale_out"))
    assert row.split() == ["efficiency.scale_out", "0.96", "0.5", "0.521x", "*"]


def test_a_value_respelled_in_another_unit_is_not_set_by_hand(tmp_path, roofline):
    """qa224: `set link_latency=0.004 ms` over `4 us` (the same value) listed link_latency as set by hand."""
    from roofline.editing import new_profile, set_fields

    path = new_profile("hardware", "respelt", "mi300x", ["memory=96 GB"], out_dir=tmp_path)
    assert "link_latency: 6 us" in path.read_text()
    set_fields("hardware", "respelt", ["link_latency=0.006ms", "scale_out_bandwidth=50000 MB/s"], (tmp_path,))  # qa232: no space
    text = path.read_text()
    assert "link_latency: 0.006ms" in text and "scale_out_bandwidth: 50000 MB/s" in text
    assert "# set by hand, not from the source or notes below: memory." in text
    set_fields("hardware", "respelt", ["link_latency=7 us"], (tmp_path,))
    assert "# set by hand, not from the source or notes below: link_latency, memory." in path.read_text()
    set_fields("hardware", "respelt", ["link_latency=0.007 ms"], (tmp_path,))  # respelt again: still set by hand
    assert "# set by hand, not from the source or notes below: link_latency, memory." in path.read_text()
    from roofline.editing import _hand_set_by_edit

    text = path.read_text()
    respelt = _hand_set_by_edit(text, text.replace("memory_bandwidth: 5.3 TB/s", "memory_bandwidth: 5300 GB/s"), "hardware")
    assert "memory_bandwidth: 5300 GB/s" in respelt and "below: link_latency, memory.\n" in respelt  # `edit` alike
    moved = _hand_set_by_edit(text, text.replace("memory_bandwidth: 5.3 TB/s", "memory_bandwidth: 5.2 TB/s"), "hardware")
    assert "below: link_latency, memory, memory_bandwidth.\n" in moved
    # qa311: `hw new --set` of the source's own value (3.35 TB/s on a copy of H100) marked it set by hand, as `set` does not
    again = new_profile("hardware", "same", "h100-sxm", ["memory_bandwidth=3350 GB/s", "price=2.49 USD/h"], out_dir=tmp_path)
    assert "# set by hand, not from the source or notes below: price.\n" in again.read_text()
    copy = new_profile("hardware", "copy2", str(again), ["price=2.49 USD/h"], out_dir=tmp_path)  # a copy of a copy keeps it
    assert "# set by hand, not from the source or notes below: price.\n" in copy.read_text()
    for group, name in (("hw", copy), ("hw", "h100-sxm"), ("models", "llama-3.1-8b"), ("engines", "vllm")):  # qa311: said
        code, out, err = roofline(group, "show", name, "--json")  # by the text, absent from the JSON
        assert code == 0 and json.loads(out)["set_by_hand"] == (["price"] if name == copy else []), (name, err)


def test_a_value_set_to_another_shape_drops_the_comment_said_of_the_old_one(tmp_path):
    """qa231: `scenarios new be-qwen --from break-even-batch --set engine=[sglang, vllm]` left the second line of the
    comment explaining `engine: ideal` under the list, its first line gone."""
    from roofline.editing import new_profile, set_fields

    path = new_profile("scenario", "be-qwen", "break-even-batch", ["engine=[sglang, vllm]"], out_dir=tmp_path)
    text = path.read_text()
    assert "engine: [sglang, vllm]\ndraft: llama-3.2-1b    # the draft model of method draft\n" in text
    assert "host work, fitted on batches up to 256" not in text
    (tmp_path / "c.yaml").write_text("type: scenario\nname: c\nhardware: h100-sxm   # why one\n            # more why\n"
                                     "# the model's header\nmodel: llama-3.1-8b\n")
    set_fields("scenario", "c", ["hardware=[h100-sxm, h200]"], (tmp_path,))
    assert (tmp_path / "c.yaml").read_text().endswith("hardware: [h100-sxm, h200]\n# the model's header\nmodel: llama-3.1-8b\n")
    set_fields("scenario", "c", ["model=llama-3.1-70b"], (tmp_path,))  # a value of the same shape keeps its comment
    assert "# the model's header\nmodel: llama-3.1-70b\n" in (tmp_path / "c.yaml").read_text()
    (tmp_path / "d.yaml").write_text("type: scenario\nname: d\nhardware:\n  - h100-sxm # first\n  - h200 # second\n"
                                     "# the model's header\nmodel: llama-3.1-8b\n")
    set_fields("scenario", "d", ["hardware=h200"], (tmp_path,))  # qa235: a block list to one value kept the next header
    assert (tmp_path / "d.yaml").read_text().endswith("hardware: h200\n# the model's header\nmodel: llama-3.1-8b\n")


def test_a_memory_fraction_set_beside_shares_by_device_count_says_where_it_holds(tmp_path, recwarn):
    """qa360: a copy of sglang-early set to memory_fraction 0.95 (the tool's own advice for a memory-capped row) still
    ran 0.81 at 8 devices, unsaid."""
    from roofline.editing import new_profile, set_fields

    new_profile("engine", "e95", "sglang-early", [], out_dir=tmp_path)
    set_fields("engine", "e95", ["memory_fraction=0.95"], (tmp_path,))
    said = [str(w.message) for w in recwarn if "memory_fraction_by_devices" in str(w.message)]
    assert len(said) == 1 and "holds below 2 only: set memory_fraction_by_devices=null" in said[0], said
    recwarn.clear()
    set_fields("engine", "e95", ["memory_fraction_by_devices=null", "memory_fraction=0.9"], (tmp_path,))
    assert not [w for w in recwarn if "gives the share from" in str(w.message)]


def test_a_copys_field_set_back_to_its_sources_value_is_no_longer_listed_as_set_by_hand(tmp_path):
    """qa358: `engines set my-vllm mixed_prefill=true` gave vllm's value back and the header still listed it as set by
    hand, 'not from the source or notes below'."""
    from roofline.editing import HAND_SET, hand_set_fields, new_profile, set_fields

    path = new_profile("engine", "my-vllm", "vllm", ["mixed_prefill=false", "host_per_step=2 ms"], out_dir=tmp_path)
    assert hand_set_fields(path.read_text()) == ["host_per_step", "mixed_prefill"]
    set_fields("engine", "my-vllm", ["mixed_prefill=true", "host_per_sequence=70 us"], (tmp_path,))
    assert hand_set_fields(path.read_text()) == ["host_per_sequence", "host_per_step"]
    set_fields("engine", "my-vllm", ["host_per_step=0 ms", "host_per_sequence=71 us"], (tmp_path,))  # vllm's 0 s
    assert hand_set_fields(path.read_text()) == ["host_per_sequence"] and HAND_SET in path.read_text()
    early = new_profile("engine", "e2", "sglang-early", ["speculation_refused=[medusa]"], out_dir=tmp_path)
    set_fields("engine", "e2", ["speculation_refused=[medusa, draft, ngram]"], (tmp_path,))  # a list (qa363)
    assert hand_set_fields(early.read_text()) == []


def test_a_shadowing_copy_is_compared_with_what_it_shadows_and_a_hand_set_value_is_no_source(tmp_path):
    """qa422: an H100 copy under H100's own name, priced $3.50, given the built-in's $3.00 back kept 'set by hand'
    (compared with itself); and a copy made from H100 given that copy's $3.50, a price set by hand there, was taken
    as restored: no warning, off the header."""
    import warnings

    from roofline.editing import hand_set_fields, new_profile, set_fields

    new_profile("hardware", "acme-x1", "h100-sxm", ["memory_bandwidth=3.2 TB/s"], out_dir=tmp_path)  # at H100's $3.00
    shadow = new_profile("hardware", "h100-sxm", "h100-sxm", ["price=3.50 USD/h"], out_dir=tmp_path, force=True)
    assert hand_set_fields(shadow.read_text()) == ["price"] and "new h100-sxm --from h100-sxm --force --set" in shadow.read_text()
    acme = new_profile("hardware", "acme-x1", "h100-sxm", ["memory_bandwidth=3.2 TB/s"], out_dir=tmp_path, force=True)
    assert "new acme-x1 --from h100-sxm --set" in acme.read_text()  # --force replaced a file of its own: no shadow
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        set_fields("hardware", "acme-x1", ["price=3.50 USD/h"], (tmp_path,))
    assert hand_set_fields(acme.read_text()) == ["memory_bandwidth", "price"]
    assert any("price set with no source" in str(w.message) for w in caught), [str(w.message) for w in caught]
    set_fields("hardware", "h100-sxm", ["price=3.00 USD/h"], (tmp_path,))  # the built-in's sourced value
    assert hand_set_fields(shadow.read_text()) == []
    from roofline.editing import _unsourced_note
    from roofline.profiles import builtin_dir

    builtin = builtin_dir("hardware") / "a10g.yaml"  # `hw set a10g ... --force` pointed to `hw edit a10g`, refused
    with warnings.catch_warnings(record=True) as caught:  # without --force
        warnings.simplefilter("always")
        _unsourced_note("hardware", {"price"}, {"price"}, builtin.read_text(), str(builtin))
    assert [str(w.message) for w in caught][0].endswith("(roofline hw edit a10g --force)")


def _said(call) -> list[str]:
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught]


def test_a_hand_written_shadow_is_the_parent_a_copy_is_compared_with(tmp_path):
    """qa424 (mutants of _parent_text / _parent_data): a user's own H100 file at $3.50, no copy header, is the parent
    a copy made from it is compared with: $3.50 set back is no hand-set value."""
    from roofline.editing import hand_set_fields, new_profile, set_fields
    from roofline.profiles import builtin_dir

    text = (builtin_dir("hardware") / "h100-sxm.yaml").read_text().replace("price: 3.00 USD/h", "price: 3.50 USD/h")
    (tmp_path / "h100-sxm.yaml").write_text(text)
    acme = new_profile("hardware", "acme-x1", "h100-sxm", ["price=4 USD/h"], out_dir=tmp_path, extra_dirs=(tmp_path,))
    assert hand_set_fields(acme.read_text()) == ["price"]
    said = _said(lambda: set_fields("hardware", "acme-x1", ["price=3.50 USD/h"], (tmp_path,)))
    assert hand_set_fields(acme.read_text()) == [] and not any("price set with no source" in x for x in said), said


def test_every_field_set_by_hand_in_the_parent_is_no_restored_one_nor_one_inside_a_mapping_set_there(tmp_path):
    """qa424: only the parent's first hand-set field was counted by a mutant no test killed; and a peak set back to a
    value the parent set by hand as a whole mapping (peak_flops) was taken as restored, unwarned."""
    from roofline.editing import hand_set_fields, new_profile, set_fields

    new_profile("hardware", "acme-x1", "h100-sxm", ["memory_bandwidth=3.2 TB/s"], out_dir=tmp_path)
    shadow = new_profile("hardware", "h100-sxm", "h100-sxm", ["memory_bandwidth=3.0 TB/s", "price=3.50 USD/h",
                         "peak_flops={fp32: 67 TFLOP/s, tf32: 494.7 TFLOP/s, bf16: 900 TFLOP/s, fp16: 900 TFLOP/s, "
                         "fp8: 1978.9 TFLOP/s, int8: 1978.9 TOP/s}"], out_dir=tmp_path, force=True)
    assert hand_set_fields(shadow.read_text()) == ["memory_bandwidth", "peak_flops", "price"]
    said = _said(lambda: set_fields("hardware", "acme-x1", ["price=3.50 USD/h"], (tmp_path,)))
    assert "price" in hand_set_fields((tmp_path / "acme-x1.yaml").read_text())
    assert any("price set with no source" in x for x in said), said
    said = _said(lambda: set_fields("hardware", "acme-x1", ["peak_flops.bf16=900 TFLOP/s", "peak_flops.fp16=900 TFLOP/s"],
                                    (tmp_path,)))
    assert {"peak_flops.bf16", "peak_flops.fp16"} <= set(hand_set_fields((tmp_path / "acme-x1.yaml").read_text()))
    assert any("set with no source" in x for x in said), said


def test_a_shadowing_engine_copy_set_back_is_refitted_against_the_builtin(tmp_path):
    """qa424: _refit's parent read without the copy's path compared the shadow with itself."""
    import yaml

    from roofline.editing import new_profile, set_fields

    shadow = new_profile("engine", "vllm", "vllm", ["kernel_latency=7 us"], out_dir=tmp_path, force=True)
    assert "kernel_latency" not in yaml.safe_load(shadow.read_text())["fitted"]["parameters"]
    set_fields("engine", "vllm", ["kernel_latency=5.377 us"], (tmp_path,))
    assert "kernel_latency" in yaml.safe_load(shadow.read_text())["fitted"]["parameters"]


def test_a_copy_whose_parent_no_longer_parses_is_still_set(tmp_path):
    """qa424: a parent that no longer reads leaves the copy's set fields set by hand."""
    from roofline.editing import hand_set_fields, new_profile, set_fields

    new_profile("hardware", "base-x", "h100-sxm", ["price=4 USD/h"], out_dir=tmp_path)
    acme = new_profile("hardware", "acme-x1", "base-x", ["price=5 USD/h"], out_dir=tmp_path, extra_dirs=(tmp_path,))
    base = tmp_path / "base-x.yaml"
    base.write_text(base.read_text() + "\nmemory: [unclosed\n")
    set_fields("hardware", "acme-x1", ["price=4 USD/h"], (tmp_path,))
    assert hand_set_fields(acme.read_text()) == ["price"]


def test_a_copy_made_another_device_that_keeps_its_sources_price_is_told(tmp_path):
    """qa422: `hw new acme-x1 --from h100-sxm` with its own bandwidth and peaks kept H100's $3.00 an hour in silence,
    which cheapest then ranked it by, as a 'rental quote whose sources hw show gives'."""
    import warnings

    from roofline.editing import new_profile

    def said(name, assignments):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            new_profile("hardware", name, "h100-sxm", assignments, out_dir=tmp_path)
        return [str(w.message) for w in caught if "price: still" in str(w.message)]

    assert said("acme-x1", ["memory_bandwidth=3.2 TB/s", "peak_flops.fp8=1600 TFLOP/s"]) == [
        f"{tmp_path / 'acme-x1.yaml'}: price: still h100-sxm's 3.00 USD/h, that device's rental, though this copy's memory, "
        "bandwidth or peaks are another device's: set its own (roofline hw set "
        f"{tmp_path / 'acme-x1.yaml'} 'price=... USD/h'); cheapest ranks devices by it"]  # qa422: off the search path, by
    # its path (`hw set acme-x1` finds no such profile); on it, by its name
    on_path = tmp_path / "on-path"
    on_path.mkdir()
    with warnings.catch_warnings(record=True) as caught, pytest.MonkeyPatch.context() as mp:
        warnings.simplefilter("always")
        mp.setenv("ROOFLINE_PATH", str(on_path))
        new_profile("hardware", "acme-x9", "h100-sxm", ["memory=96 GB"], out_dir=on_path)
    assert any("(roofline hw set acme-x9 'price=... USD/h')" in str(w.message) for w in caught), [str(w.message) for w in caught]
    assert any("(roofline hw edit acme-x9;" in str(w.message) for w in caught), [str(w.message) for w in caught]
    assert said("acme-x2", ["memory_bandwidth=3.2 TB/s", "price=4 USD/h"]) == []  # its own price
    assert said("h100-cheap", ["price=2 USD/h"]) == [] and said("h100-eff", ["efficiency.memory=0.8"]) == []  # H100 still
    assert len(said("acme-a", ["peak_flops.fp8=1600 TFLOP/s"])) == 1 and len(said("acme-b", ["memory=141 GB"])) == 1
    assert said("h100-same", ["memory_bandwidth=3.35 TB/s"]) == []  # H100's own value: still H100 (qa424's mutants)
    from roofline.editing import set_fields

    with warnings.catch_warnings(record=True) as caught:  # reached in two steps, new then set (qa424)
        warnings.simplefilter("always")
        set_fields("hardware", "h100-cheap", ["memory_bandwidth=4.8 TB/s"], (tmp_path,))  # its own price: not said
        set_fields("hardware", "h100-eff", ["memory_bandwidth=4.8 TB/s"], (tmp_path,))
    kept = [str(w.message) for w in caught if "price: still" in str(w.message)]
    assert len(kept) == 1 and "h100-eff.yaml: price: still h100-sxm's 3.00 USD/h" in kept[0], kept


def test_a_set_value_begins_the_remark_said_of_the_old_one_with_it_and_a_set_back_restores_it(tmp_path):
    """qa353: `engines set` left "off under EAGLE in these releases" beside prefix_cached_speculating: true."""
    from roofline.editing import set_fields

    path = tmp_path / "e.yaml"
    path.write_text("type: scenario\nname: e\nhardware: h100-sxm   # the lab's GPU\nmodel: llama-3.1-8b\n"
                    "tp: 1    # as served\n")
    set_fields("scenario", "e", ["hardware=h200", "model=llama-3.1-70b"], (tmp_path,))
    def text():  # ruamel keeps a remark's column
        return re.sub(r" +#", " #", path.read_text())

    assert "hardware: h200 # (was h100-sxm) the lab's GPU\nmodel: llama-3.1-70b\n" in text()  # no remark: none added
    set_fields("scenario", "e", ["hardware=b200"], (tmp_path,))  # the first value stays the one the remark was said of
    assert "hardware: b200 # (was h100-sxm) the lab's GPU\n" in text()
    set_fields("scenario", "e", ["hardware=h100-sxm", "tp=1"], (tmp_path,))  # set back: the remark as it was
    assert path.read_text().endswith("hardware: h100-sxm   # the lab's GPU\nmodel: llama-3.1-70b\ntp: 1    # as served\n")
    # qa358: the comment heading the next field is no remark of this one; a value with ': ' in it, as the file wrote it,
    # and set back; a user's remark that starts with "was"; a number set back as a float
    hw = tmp_path / "lab.yaml"
    hw.write_text('type: hardware\nname: lab\ndisplay_name: "Lab: GPU 3"   # owner: ops\nkind: gpu\nmemory: 80 GiB\n'
                  "memory_bandwidth: 3.35 TB/s\npeak_flops:\n  bf16: 989.4 TFLOP/s\n  int8: 1978.9 TOP/s\n  # fp4: none\n"
                  "on_chip_cache: 50 MB\nlink_bandwidth: 450 GB/s\nlink_latency: 3 us   # was measured: nccl-tests\n"
                  "# ---- efficiencies ----\nefficiency: {memory: 0.80, compute: 0.8, link: 0.84}\nstep_overhead: 20 us\n"
                  "source: x\nnotes: y\n")
    original = hw.read_text()
    set_fields("hardware", "lab", ["peak_flops.int8=1900 TOP/s", "link_latency=4 us", "display_name=Lab GPU 4"], (tmp_path,))
    changed = re.sub(r"(?<=\S) +#", " #", hw.read_text())
    assert "  int8: 1900 TOP/s\n  # fp4: none\n" in changed and "\n# ---- efficiencies ----\n" in changed
    assert 'display_name: "Lab GPU 4" # (was "Lab: GPU 3") owner: ops\n' in changed
    assert "link_latency: 4 us # (was 3 us) was measured: nccl-tests\n" in changed
    set_fields("hardware", "lab", ["peak_flops.int8=1978.9 TOP/s", "link_latency=3000 ns", "display_name=Lab: GPU 3"], (tmp_path,))
    assert re.sub(r"(?<=\S) +#", " #", hw.read_text()) == re.sub(r"(?<=\S) +#", " #", original.replace("3 us ", "3000 ns "))
    set_fields("scenario", "e", ["tp=2"], (tmp_path,))
    set_fields("scenario", "e", ["tp=1.0"], (tmp_path,))
    assert text().endswith("tp: 1.0 # as served\n")
    # qa360: a flow list set whole and an entry of a flow mapping; a ') ' inside a quoted value; '#' spaced as written
    eng = tmp_path / "eng.yaml"
    eng.write_text('type: engine\nname: eng\nsource: s\nmemory_fraction: 0.88\nspeculation_refused: [medusa, ngram]   # none\n'
                   'memory_fraction_by_devices: {"2": 0.87, "8": 0.81}   # by tp\ndisplay_name: "H (SXM) x"   #mine\n')
    before = eng.read_text()
    set_fields("engine", "eng", ["speculation_refused=[medusa]", "memory_fraction_by_devices.8=0.8", "display_name=Y"], (tmp_path,))
    changed = re.sub(r"(?<=\S) +#", " #", eng.read_text())
    assert "speculation_refused: [medusa] # (was [medusa, ngram]) none\n" in changed, changed
    assert 'memory_fraction_by_devices: {"2": 0.87, "8": 0.8} # (was {"2": 0.87, "8": 0.81}) by tp\n' in changed, changed
    assert 'display_name: "Y" #(was "H (SXM) x") mine\n' in changed, changed
    set_fields("engine", "eng", ["speculation_refused=[medusa, ngram]", "memory_fraction_by_devices.8=0.81",
                                 "display_name=H (SXM) x"], (tmp_path,))
    assert re.sub(r"(?<=\S) +#", " #", eng.read_text()) == re.sub(r"(?<=\S) +#", " #", before)


@pytest.mark.slow
def test_a_models_layer_order_is_dropped_and_said_where_its_groups_are_set_without_it(roofline, tmp_path):
    """qa257: gpt-oss's full and sliding groups swapped (18 layers each) kept the old attention.layer_groups, which then
    put the other kind on every stage: max batch 44 at pp 4 where the model's own order gives 40."""
    groups = "attention.groups=[{kind: sliding, layers: 18, window: 128}, {kind: full, layers: 18}]"
    code, _, err = roofline("models", "new", "gswap", "--from", "gpt-oss-120b", "--set", groups, "--dir", tmp_path)
    assert code == 0 and "attention.layer_groups removed: it gave the order of the groups it was written for" in err, err
    assert "layer_groups" not in (tmp_path / "gswap.yaml").read_text()
    order = "attention.layer_groups=[" + ", ".join(["0, 1"] * 18) + "]"  # given anew: kept, no warning
    code, _, err = roofline("models", "new", "gkeep", "--from", "gpt-oss-120b", "--set", groups, "--set", order, "--dir", tmp_path)
    assert code == 0 and "layer_groups removed" not in err, err
    code, out, err = roofline("--profiles", tmp_path, "predict", "--hardware", "h100-sxm", "--model", "gkeep", "--pp", "4",
                              "--context", "131071", "--json")
    assert code == 0 and json.loads(out)["max_batch"] == 40, err  # the same layers as gpt-oss-120b's own order
    code, _, err = roofline("--profiles", tmp_path, "models", "set", "gkeep", "layers=36")  # unchanged: nothing said
    assert "layer_groups removed" not in err
    # qa260: a window set (or a value set to what it was) re-points nothing: the order is kept, nothing said
    for n, change in enumerate(("attention.groups.1.window=256", "attention.groups.1.window=128", "layers=36")):
        code, _, err = roofline("models", "new", f"w{n}", "--from", "gpt-oss-120b", "--set", change, "--dir", tmp_path)
        assert code == 0 and "layer_groups removed" not in err, (change, err)
        assert "layer_groups:" in (tmp_path / f"w{n}.yaml").read_text()
    code, _, err = roofline("models", "new", "bad", "--from", "gpt-oss-120b", "--set", groups, "--set", "layers=35",
                            "--dir", tmp_path)  # refused: not written, so nothing removed is said
    assert code == 2 and "layer_groups removed" not in err and "(not written)" in err, err


@pytest.mark.slow
def test_hw_show_says_a_source_and_notes_written_by_hand_are_not_the_copys(roofline, tmp_path):
    """qa265: `hw new --set source=... --set notes=...` showed 'the source and notes below are of the values the copy
    was made from' beside the user's own source and notes."""
    said = {}
    for name, extra in (("both", ["--set", "source=my datasheet", "--set", "notes=my notes"]),
                        ("one", ["--set", "source=my datasheet"]), ("none", [])):
        code, _, err = roofline("hw", "new", name, "--from", "h100-sxm", "--set", "price=2.5 USD/h", *extra, "--dir", tmp_path)
        assert code == 0, err
        code, out, err = roofline("--profiles", tmp_path, "hw", "show", name)
        said[name] = next(line for line in out.splitlines() if line.startswith("  set by hand"))
    assert said["both"].endswith(": the source and notes below were written with them")
    assert said["one"].endswith(": the notes below are of the values the copy was made from; the source was written with them")
    assert said["none"].endswith(": the source and notes below are of the values the copy was made from")


@pytest.mark.slow
def test_a_models_layer_order_removed_by_hand_is_said_and_takes_its_heading_and_a_groups_edit_keeps_it(tmp_path):
    """qa265's leftover: `models set attention.layer_groups=null` removed the order unsaid (a top-level field removed is
    said) and left `models import`'s heading over the next field; a groups list set whole dropped that heading, the
    comment after the list's last entry, while the order it heads stayed."""
    from roofline.editing import set_fields
    from roofline.errors import RooflineWarning

    shipped = (Path(__file__).resolve().parents[1] / "model_profiles" / "gpt-oss-120b.yaml").read_text()
    heading = "  # each layer's group, first to last"
    assert heading in shipped
    path = tmp_path / "mine.yaml"
    path.write_text(shipped.replace("name: gpt-oss-120b", "name: mine"))
    set_fields("model", "mine", ["attention.groups=[{kind: full, layers: 18}, {kind: sliding, layers: 18, window: 256}]"],
               (tmp_path,))
    text = path.read_text()
    assert "window: 256}]\n" + heading in text and "\n  layer_groups: [1, 0," in text, text
    with pytest.warns(RooflineWarning, match="attention.layer_groups removed: a pipeline stage holds each attention "
                                             "group in proportion to its layers, whatever their order, not the 36 values"):
        set_fields("model", "mine", ["attention.layer_groups=null"], (tmp_path,))
    text = path.read_text()
    assert "layer_groups" not in text and "each layer's group" not in text, text
    path.write_text(shipped.replace("name: gpt-oss-120b", "name: mine"))  # the block list's heading, removed by hand
    with pytest.warns(RooflineWarning, match="attention.layer_groups removed"):
        set_fields("model", "mine", ["attention.layer_groups=null"], (tmp_path,))
    assert path.read_text() == "".join(line for line in shipped.replace("name: gpt-oss-120b", "name: mine")
                                       .splitlines(keepends=True) if "layer_groups" not in line and heading not in line)


@pytest.mark.slow
def test_a_mapping_set_whole_says_the_fields_it_drops(tmp_path):
    """qa265's leftover: `hw set efficiency={...}` without compute_fp8 dropped H100's 0.71 unsaid (fp8 then took the
    tool's default); a field given in the new mapping, or none dropped, says nothing."""
    from roofline.editing import set_fields
    from roofline.errors import RooflineWarning

    shipped = (Path(__file__).resolve().parents[1] / "hardware_profiles" / "h100-sxm.yaml").read_text()
    (tmp_path / "hh.yaml").write_text(shipped.replace("name: h100-sxm\n", "name: hh\n"))
    with pytest.warns(RooflineWarning, match=r"efficiency set whole: compute_fp8 \(0.71\) removed, now the tool's default"):
        set_fields("hardware", "hh", ["efficiency={memory: 0.8, compute: 0.7, link: 0.84, scale_out: 0.96}"], (tmp_path,))
    assert "compute_fp8:" not in (tmp_path / "hh.yaml").read_text()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", RooflineWarning)
        set_fields("hardware", "hh", ["efficiency={memory: 0.8, compute: 0.7, link: 0.84, scale_out: 0.96}"], (tmp_path,))
    # qa282: a peak dropped has no default: the device no longer has that unit
    with pytest.warns(RooflineWarning, match=r"peak_flops set whole: fp16 \(989.4 TFLOP/s\), .* removed, the device has no "
                                             r"such units now \(a dtype without a peak computes in another\)"):
        set_fields("hardware", "hh", ["peak_flops={bf16: 900 TFLOP/s, fp32: 60 TFLOP/s}"], (tmp_path,))
    # qa282: a removed value said as YAML writes it (true, not Python's True)
    (tmp_path / "s1.yaml").write_text("type: scenario\nname: s1\nhardware: h100-sxm\nmodel: llama-3.1-8b\naxes:\n"
                                      "  batch: {start: 1, stop: 64, num: 7, log: true}\n  context: [512]\n")
    with pytest.warns(RooflineWarning, match="axes.batch.log removed: the profile now takes the tool's default for it, "
                                             "not true from the file"):
        set_fields("scenario", "s1", ["axes.batch.log=null"], (tmp_path,))


@pytest.mark.slow
def test_a_profile_path_given_to_set_or_new_from_the_working_folder_is_written_absolute(roofline, tmp_path, monkeypatch):
    """qa279: `scenarios new S --set hardware=relA/hw/myh.yaml` and `engines set E costs_from=rel/b.yaml` wrote the paths
    as given: the check passed (a path is looked for beside the profile, then in the working folder), and a sweep or
    predict from another folder found no such file. A path that names a file beside the profile stays as written."""
    work = tmp_path / "work"
    (work / "relA" / "hw").mkdir(parents=True)
    shipped = (Path(__file__).resolve().parents[1] / "hardware_profiles" / "h100-sxm.yaml").read_text()
    (work / "relA" / "hw" / "myh.yaml").write_text(shipped.replace("name: h100-sxm\n", "name: myh\n"))
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    monkeypatch.chdir(work)
    code, _, err = roofline("scenarios", "new", "rel2", "--from", "fast-tier-premium", "--set", "hardware=relA/hw/myh.yaml",
                            "--dir", profiles)
    assert code == 0, err
    assert f"hardware: {work / 'relA' / 'hw' / 'myh.yaml'}\n" in (profiles / "rel2.yaml").read_text()
    code, _, err = roofline("engines", "new", "beside", "--from", "vllm", "--dir", profiles)
    assert code == 0, err
    (work / "relE").mkdir()
    (work / "relE" / "b.yaml").write_text((profiles / "beside.yaml").read_text().replace("name: beside\n", "name: b\n"))
    code, _, err = roofline("engines", "new", "mine", "--from", "vllm-v0", "--dir", profiles)
    assert code == 0, err
    code, _, err = roofline("--profiles", profiles, "engines", "set", "mine", "costs_from=relE/b.yaml")
    assert code == 0 and f"costs_from: {work / 'relE' / 'b.yaml'}\n" in (profiles / "mine.yaml").read_text(), err
    code, _, err = roofline("--profiles", profiles, "engines", "set", "mine", "costs_from=beside.yaml")
    assert code == 0 and "costs_from: beside.yaml\n" in (profiles / "mine.yaml").read_text(), err  # found beside it
    monkeypatch.chdir(tmp_path)
    code, _, err = roofline("--profiles", profiles, "sweep", "rel2", "--out", tmp_path / "out", "--no-plots")
    assert code == 0, err


@pytest.mark.slow
def test_the_set_by_hand_line_names_an_entry_by_its_index_and_drops_the_fields_of_a_mapping_removed(tmp_path):
    """qa279: `models set mx attention.groups.000.layers=32` was listed as set by hand literally ('000'), and after
    `moe.top_k=1` then `moe=null` the header still named moe.top_k."""
    from roofline.editing import hand_set_fields, new_profile, set_fields

    new_profile("model", "mx", "mixtral-8x7b", [], tmp_path)
    set_fields("model", "mx", ["attention.groups.000.layers=32", "moe.top_k=1"], (tmp_path,))
    assert hand_set_fields((tmp_path / "mx.yaml").read_text()) == ["attention.groups.0.layers", "moe.top_k"]
    with pytest.warns(Warning):
        set_fields("model", "mx", ["moe=null"], (tmp_path,))
    assert hand_set_fields((tmp_path / "mx.yaml").read_text()) == ["attention.groups.0.layers"]


@pytest.mark.slow
def test_a_peak_set_under_another_spelling_of_its_dtype_replaces_the_one_the_profile_has(tmp_path):
    """qa279: `hw set g7 peak_flops.BF16=900 TFLOP/s` beside `bf16:` was refused as 'bf16 is given twice' (a dtype is
    read in any spelling, PROFILES.md says); e4m3 likewise for fp8."""
    from roofline.editing import new_profile, set_fields
    from roofline.hardware import load_hardware

    new_profile("hardware", "g7", "h100-sxm", [], tmp_path)
    set_fields("hardware", "g7", ["peak_flops.BF16=900 TFLOP/s", "peak_flops.e4m3=1800 TFLOP/s"], (tmp_path,))
    text = (tmp_path / "g7.yaml").read_text()
    assert "\n  bf16: 900 TFLOP/s\n" in text and "\n  fp8: 1800 TFLOP/s\n" in text and "BF16" not in text.split("source:")[0]
    hw = load_hardware(str(tmp_path / "g7.yaml"))
    assert hw.peak_flops_per_s["bf16"] == 900e12 and hw.peak_flops_per_s["fp8"] == 1800e12


@pytest.mark.slow
def test_comment_lines_after_a_block_values_last_entry_follow_a_set_and_a_heading_goes_with_its_field(roofline, tmp_path):
    """qa282: DeepSeek-V4-Flash's last group has an end-of-line remark, so ruamel files the heading over layer_groups
    inside that remark: `layer_groups=null` left the heading, and its groups set whole dropped it while the order it
    heads stayed; a block mapping set whole (efficiency) dropped the comment over the next field; `attention` set whole
    on a model with layer_groups was a traceback (KeyError)."""
    from roofline.editing import new_profile, set_fields

    new_profile("model", "v4c", "deepseek-v4-flash", [], tmp_path)
    path = tmp_path / "v4c.yaml"
    original = path.read_text()
    heading = "  # each layer's group, first to last"
    groups = ("attention.groups=[{kind: sliding, layers: 2, window: 256}, {kind: compressed, layers: 21, ratio: 4, window: 128, "
              "read_tokens: 512, index_dim: 128, index_heads: 64, state_bytes: 81920}, {kind: compressed, layers: 20, "
              "ratio: 128, window: 128, state_bytes: 524288}]")
    set_fields("model", "v4c", [groups], (tmp_path,))
    text = path.read_text()
    assert heading in text and text.index(heading) < text.index("  layer_groups:"), text
    path.write_text(original)
    with pytest.warns(Warning, match="attention.layer_groups removed"):
        set_fields("model", "v4c", ["attention.layer_groups=null"], (tmp_path,))
    text = path.read_text()
    assert heading not in text and "layer_groups" not in text and "# HCA; state_bytes: notes (3)" in text, text
    shipped = (ROOT / "hardware_profiles" / "h100-sxm.yaml").read_text()
    (tmp_path / "hh.yaml").write_text(shipped.replace("name: h100-sxm\n", "name: hh\n")
                                      .replace("\nstep_overhead:", "\n# fixed costs a step\nstep_overhead:"))
    set_fields("hardware", "hh", ["efficiency={memory: 0.8, compute: 0.7, compute_fp8: 0.71, link: 0.84, scale_out: 0.96}"],
               (tmp_path,))
    assert "scale_out: 0.96}\n# fixed costs a step\nstep_overhead:" in (tmp_path / "hh.yaml").read_text()
    code, _, err = roofline("models", "new", "g2", "--from", "gpt-oss-120b", "--dir", tmp_path, "--set",
                            "attention={kv_layout: gqa, groups: [{kind: full, layers: 18}, {kind: sliding, layers: 18, window: 128}]}")
    assert code == 0 and "Traceback" not in err and "attention set whole: layer_groups (the 36 values it had) removed" in err, err


@pytest.mark.slow
def test_a_copys_field_set_drops_its_remarks_continuation_lines_and_keeps_the_next_fields_heading(tmp_path):
    """qa287: `scenarios new be --from break-even-batch --set engine=vllm` dropped the first line of `engine: ideal`'s
    two-line remark and left the second, half a sentence, under `engine: vllm`."""
    from roofline.editing import new_profile

    new_profile("scenario", "be", "break-even-batch", ["engine=vllm"], tmp_path)
    text = (tmp_path / "be.yaml").read_text()
    assert "\nengine: vllm\ndraft: llama-3.2-1b" in text and "would decide the batches" not in text, text
    (tmp_path / "s.yaml").write_text("type: scenario\nname: s\nhardware: h100-sxm   # first line of a remark\n"
                                     "                   # its second line\n# the model's heading\nmodel: llama-3.1-8b\n"
                                     "axes: {batch: [1], context: [512]}\n")
    new_profile("scenario", "s2", str(tmp_path / "s.yaml"), ["hardware=h200"], tmp_path)
    text = (tmp_path / "s2.yaml").read_text()
    assert "\nhardware: h200\n# the model's heading\nmodel: llama-3.1-8b\n" in text, text
    # an entry of a flow mapping written on its field's line: that line's remark, said of the old values, goes (qa363;
    # qa368: a mutant keeping it survived)
    new_profile("engine", "m", "sglang-early", ["memory_fraction_by_devices.8=0.80"], tmp_path)
    line = next(x for x in (tmp_path / "m.yaml").read_text().splitlines() if x.startswith("memory_fraction_by_devices:"))
    assert line == 'memory_fraction_by_devices: {"2": 0.87, "4": 0.85, "8": 0.80, "16": 0.79}', line


def test_a_copy_that_changes_a_cost_drops_the_known_misses_measured_with_the_old_costs(roofline, tmp_path):
    """qa306: `engines new my-sg --from sglang --set kernel_latency=20us` kept sglang's '39-41% short at batch 1' note
    beside a step now 90% long: a cost set by hand drops them, said; a copy that changes only text keeps them."""
    code, _, err = roofline("engines", "new", "my-sg", "--from", "sglang", "--set", "kernel_latency=20 us", "--dir", tmp_path)
    assert code == 0 and "known_misses: dropped" in err and "known_misses" not in (tmp_path / "my-sg.yaml").read_text()
    code, _, err = roofline("engines", "new", "my-sg2", "--from", "sglang", "--set", "display_name=Mine", "--dir", tmp_path)
    assert code == 0 and "known_misses: dropped" not in err and "known_misses" in (tmp_path / "my-sg2.yaml").read_text()
    code, _, err = roofline("engines", "new", "my-sg3", "--from", "sglang", "--set", "known_misses.0.note=mine",  # an
                            "--dir", tmp_path)  # entry edited, as `engines set` edits it (qa307: the list was dropped)
    assert code == 0 and "known_misses: dropped" not in err and "mine" in (tmp_path / "my-sg3.yaml").read_text(), err
    from roofline.serving import load_engine

    assert load_engine(str(tmp_path / "my-sg3.yaml")).known_misses[0]["note"] == "mine"
    code, _, err = roofline("engines", "new", "my-sg4", "--from", "sglang", "--set", "max_running_requests_speculating=256",
                            "--dir", tmp_path)  # a running cap raised, as PROFILES.md suggests: no step moves (qa382)
    assert code == 0 and "known_misses: dropped" not in err and "known_misses" in (tmp_path / "my-sg4.yaml").read_text()
    code, _, err = roofline("engines", "new", "my-sg5", "--from", "sglang", "--set", "graphs=false", "--dir", tmp_path)
    assert code == 0 and "known_misses: dropped" in err  # eager: every step moves
    code, _, err = roofline("engines", "new", "my-sg6", "--from", "sglang", "--set", "memory_fraction=0.95", "--dir", tmp_path)
    assert code == 0 and "known_misses: dropped" not in err  # qa431: memory moves what fits, not a step's time
    assert len(load_engine(str(tmp_path / "my-sg6.yaml")).known_misses) == len(load_engine("sglang").known_misses)
    code, _, err = roofline("engines", "new", "my-sg7", "--from", "sglang", "--set", "memory_fraction=0.95", "--set",
                            "kernel_latency=9 us", "--dir", tmp_path)
    assert code == 0 and "known_misses: dropped" in err  # a cost beside it: the speed misses go


def test_removing_a_peak_or_the_scale_out_link_says_what_the_device_has_then(tmp_path):
    """qa311: `hw set NAME peak_flops.bf16=null` said the profile 'now takes the tool's default' (there is no default
    peak: bf16 then computes on fp16's), and `scale_out_latency=null` alike (there is then no scale-out link)."""
    from roofline.editing import new_profile, set_fields
    from roofline.errors import RooflineWarning

    new_profile("hardware", "nullme", "h100-sxm", ["price=2 USD/h"], out_dir=tmp_path)
    with pytest.warns(RooflineWarning, match=r"peak_flops\.bf16 removed: the device has no bf16 peak \(that dtype computes "
                                             r"on another's: roofline predict names which\), not 989\.4 TFLOP/s"):
        set_fields("hardware", "nullme", ["peak_flops.bf16=null"], (tmp_path,))
    with pytest.warns(RooflineWarning, match=r"scale_out_latency removed: the device has no scale-out link \(every "
                                             r"collective is priced on the scale-up link\), not 20 us"):
        set_fields("hardware", "nullme", ["scale_out_latency=null", "scale_out_bandwidth=null", "efficiency.scale_out=null"],
                   (tmp_path,))


def test_a_diff_shows_the_digits_that_tell_two_different_values_apart():
    """qa311: `hw diff acme-x1 b200` printed `memory  192 GB  192 GB  1x  *` (192e9 B against 183,359 MiB): starred, the
    difference invisible at three digits. Cells and ratio that print alike get the digits that tell them apart."""
    from roofline.editing import side_by_side

    lines = side_by_side(("a.yaml", "b.yaml"), ("a", "b"), [("memory", 192e9, 183359.0 * 2**20, "B"),
                                                            ("memory_bandwidth", 8e12, 8e12, "B/s"),
                                                            ("price", 2.0, 2.0004, "USD/h"),
                                                            ("step time", 0.0152, 0.01517, "s")])
    assert lines[4].split() == ["memory", "192", "GB", "192.3", "GB", "1.001x", "*"], lines[4]
    assert lines[5].split() == ["memory_bandwidth", "8", "TB/s", "8", "TB/s", "1x"], lines[5]  # equal: as they were
    assert lines[6].split() == ["price", "2", "USD/h", "2.0004", "USD/h", "1.0002x", "*"], lines[6]
    assert lines[7].split() == ["step", "time", "15.2", "ms", "15.17", "ms", "0.998x", "*"], lines[7]  # (qa406: '15.2 ms
    #   (0.0152)', the seconds unsaid)


def test_a_hardware_number_set_without_a_source_and_a_copys_source_replaced_are_said(tmp_path):
    """qa311: `hw set NAME on_chip_cache=128 MB` wrote a number no source speaks for, and `hw set NAME source=...`
    replaced the text that cited the values the copy keeps from H100, both in silence (every number of a hardware
    profile carries its source)."""
    import warnings

    from roofline.editing import new_profile, set_fields
    from roofline.errors import RooflineWarning

    def said(call) -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        return [str(w.message) for w in caught if issubclass(w.category, RooflineWarning)]

    lines = said(lambda: new_profile("hardware", "src", "h100-sxm", ["price=2 USD/h", "memory=90 GB"], out_dir=tmp_path))
    assert lines == [f"{tmp_path / 'src.yaml'}: memory, price set with no source: the header marks them set by hand (hw show "
                     f"lists them); add where they come from to the file's notes (roofline hw edit {tmp_path / 'src.yaml'}; "
                     "the source and notes there are of the values it was made from)"], lines
    lines = said(lambda: set_fields("hardware", "src", ["price=2.5 USD/h", "notes=Price: my cloud's list, 2026-12."],
                                    (tmp_path,)))  # qa422: the notes replaced were said of source only
    assert lines == [f"{tmp_path / 'src.yaml'}: notes replaced: they spoke for the values the copy keeps from h100-sxm too "
                     "(roofline hw show h100-sxm gives the text), which the new notes now stand for; to add to the text "
                     f"instead, roofline hw edit {tmp_path / 'src.yaml'}"], lines
    assert said(lambda: set_fields("hardware", "src", ["price=2.5 USD/h"], (tmp_path,))) == []  # the same value: nothing set
    assert not any("set with no source" in line for line in said(lambda: set_fields(  # a mapping that only drops
        "hardware", "src", ["peak_flops={bf16: 989.4 TFLOP/s, fp16: 989.4 TFLOP/s}"], (tmp_path,))))  # entries (qa314)
    lines = said(lambda: set_fields("hardware", "src", ["source=Acme's page"], (tmp_path,)))
    assert lines == [f"{tmp_path / 'src.yaml'}: source replaced: it spoke for the values the copy keeps from h100-sxm too "
                     "(roofline hw show h100-sxm gives the text), which the new one now stands for; to add to the text "
                     f"instead, roofline hw edit {tmp_path / 'src.yaml'}"], lines
    assert said(lambda: set_fields("hardware", "src", ["source=Acme's second page"], (tmp_path,))) == []  # the user's own
    #   text replaced again (qa316: said again)
    assert not any("no source" in line for line in said(lambda: new_profile("engine", "eng", "vllm", ["kernel_latency=3 us"],
                                                                            out_dir=tmp_path)))  # hardware's rule


def test_engines_diff_stars_known_misses_that_differ_with_the_same_count(tmp_path):
    """qa312: a copy whose known miss's `measured` changed (which changes cheapest's notes) showed `2 (engines show)` on
    both sides, unstarred: the diff compared the counts."""
    from roofline.editing import diff_engines, new_profile
    from roofline.serving import load_engine

    new_profile("engine", "sg2", "sglang", ["known_misses.0.measured=faster"], out_dir=tmp_path)
    new_profile("engine", "sg3", "sglang", ["display_name=SGLang again"], out_dir=tmp_path)
    row = next(line for line in diff_engines("sglang", "sg2", (tmp_path,)).splitlines() if line.startswith("known misses"))
    count = len(load_engine("sglang").known_misses)  # (3 since session 66's MiniMax-M2.7 miss on MI300X)
    assert row.split("  ")[0] == "known misses" and f"{count}, not A's (engines show)" in row and row.endswith("*"), row
    row = next(line for line in diff_engines("sglang", "sg3", (tmp_path,)).splitlines() if line.startswith("known misses"))
    assert "not A's" not in row and not row.endswith("*"), row


def test_a_peak_set_whose_pair_was_equal_to_it_says_the_pair_is_left_as_it_was(tmp_path):
    """qa311: a copy of H100 given a new device's bf16 and fp8 peaks kept H100's fp16 (989 TFLOP/s beside 1.2 PFLOP/s)
    and int8, in silence (and int8 then took the general efficiency, not fp8's)."""
    import warnings

    from roofline.editing import new_profile, set_fields
    from roofline.errors import RooflineWarning

    def said(call) -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        return [str(w.message) for w in caught if issubclass(w.category, RooflineWarning) and "is still" in str(w.message)]

    lines = said(lambda: new_profile("hardware", "acme", "h100-sxm", ["peak_flops.bf16=1.2 PFLOP/s"], out_dir=tmp_path))
    assert lines == [f"{tmp_path / 'acme.yaml'}: peak_flops.fp16 is still 989 TFLOP/s, equal to bf16's before this edit set "
                     "bf16 to 1.2 PFLOP/s: set peak_flops.fp16 too (or remove it: fp16 then computes on another dtype's "
                     "peak)"], lines
    assert said(lambda: set_fields("hardware", "acme", ["peak_flops.fp16=1.2 PFLOP/s"], (tmp_path,))) == []
    lines = said(lambda: new_profile("hardware", "acme2", "h100-sxm", ["peak_flops.bf16=989 TFLOP/s"], out_dir=tmp_path))
    assert lines and "fp16 is still 989.4 TFLOP/s, equal to bf16's before this edit set bf16 to 989 TFLOP/s" in lines[0], lines
    # (qa389: both said as 989: as many digits as tell them apart)
    lines = said(lambda: set_fields("hardware", "acme", ["peak_flops.fp8=2.4 PFLOP/s"], (tmp_path,)))
    assert len(lines) == 1 and lines[0].startswith(f"{tmp_path / 'acme.yaml'}: peak_flops.int8 is still 1.98 POP/s"), lines
    assert said(lambda: set_fields("hardware", "acme", ["peak_flops.fp8=2.4 PFLOP/s", "peak_flops.int8=2.4 POP/s"],
                                   (tmp_path,))) == []


def test_engines_diff_says_a_fit_error_is_not_a_copys_whose_fitted_values_were_set_by_hand(roofline, tmp_path):
    """qa340: a copy whose kernel latency and host work were set by hand showed its source's 'fitted RMS log error 0.0777
    0.0777 1x', read as its own accuracy; `overrides` set whole was not counted as set by hand either."""
    code, _, err = roofline("engines", "new", "my-v", "--from", "vllm", "--set", "kernel_latency=4us", "--set",
                            "overrides=[{hardware: 'rtx*', kernel_latency: 6 us}]", "--dir", tmp_path)
    assert code == 0, err
    code, out, err = roofline("--profiles", tmp_path, "engines", "diff", "vllm", "my-v", "--hardware", "h100-sxm")
    assert code == 0, err
    lines = out.splitlines()
    (at,) = [i for i, line in enumerate(lines) if line.startswith("fitted RMS log error")]
    assert lines[at] == "fitted RMS log error (of the fit's values; set by hand since: not this profile's)", lines[at]
    assert ", before kernel_latency, kernel_latency on rtx*" in lines[at + 1], lines[at + 1]  # the values below it
    code, out, _ = roofline("--profiles", tmp_path, "engines", "show", "my-v")
    assert "set by hand after fit   kernel_latency, kernel_latency on rtx* (the RMS error above" in out, out
    code, out, _ = roofline("engines", "diff", "vllm", "sglang", "--hardware", "h100-sxm")  # fits untouched: as before
    assert any(line.startswith("fitted RMS log error (each on its own rows") for line in out.splitlines())


def test_hw_validate_says_peaks_that_look_like_sparsity_figures(roofline, tmp_path):
    """qa340: a file edited by hand with a datasheet's 2:4 sparsity figures read 'ok' without a word: a bf16 peak
    unequal to its fp16 one, or a peak twice its family's shipped profile's, is said (a warning; the file still loads)."""
    code, _, err = roofline("hw", "new", "mine", "--from", "h100-sxm", "--dir", tmp_path)
    assert code == 0, err
    path = tmp_path / "mine.yaml"
    text = path.read_text()
    assert "bf16: 989.4 TFLOP/s" in text and "fp16: 989.4 TFLOP/s" in text
    path.write_text(text.replace("bf16: 989.4 TFLOP/s", "bf16: 1978.8 TFLOP/s"))
    code, out, err = roofline("hw", "validate", path)
    assert code == 0 and out.startswith("ok    "), out
    assert "peak_flops: bf16 1.98 PFLOP/s and fp16 989 TFLOP/s differ" in err, err
    assert "peak_flops: bf16 1.98 PFLOP/s twice h100-sxm's, its family" in err, err
    code, out, err = roofline("hw", "validate", "h100-sxm")  # a shipped dense profile: no word
    assert code == 0 and "peak_flops" not in err, err


def test_a_value_set_refuses_names_the_fields_line_in_the_file(roofline, tmp_path):
    """qa340: `hw set` refused '-5 GB' as 'x.yaml: memory: ...' where validate and predict say 'line 7: memory'; the file
    is left as it was."""
    code, _, err = roofline("hw", "new", "x", "--from", "h100-sxm", "--dir", tmp_path)
    assert code == 0, err
    path = tmp_path / "x.yaml"
    before = path.read_text()
    line = next(i for i, text in enumerate(before.splitlines(), 1) if text.startswith("memory:"))
    code, _, err = roofline("--profiles", tmp_path, "hw", "set", "x", "memory=-5 GB")
    assert code == 2 and err.strip() == (f"error: {path}: line {line}: memory: expected a finite positive quantity like "
                                         "'80 GB', found '-5 GB'"), err
    assert path.read_text() == before


def test_a_number_set_is_written_with_the_digits_typed(tmp_path):
    """qa358: `set memory_fraction=0.80` wrote 0.8 (and 1.0e+3 as 1000.0): the file says what was typed, and reads
    back as the same number."""
    from roofline.editing import parse_assignments, set_fields
    from roofline.serving import load_engine

    eng = tmp_path / "eng.yaml"
    eng.write_text("type: engine\nname: eng\nsource: s\nmemory_fraction: 0.88   # by hand\n"
                   'memory_fraction_by_devices: {"8": 0.81}\n')
    set_fields("engine", "eng", ["memory_fraction=0.80", "memory_fraction_by_devices.8=.850"], (tmp_path,))
    text = eng.read_text()
    assert re.search(r"\nmemory_fraction: 0\.80 +# \(was 0\.88\) by hand\n", text), text
    assert 'memory_fraction_by_devices: {"8": .850}' in text, text
    assert load_engine(str(eng)).memory_fraction == 0.8 and load_engine(str(eng)).memory_fraction_for(8) == 0.85
    (_, typed), = parse_assignments(["memory_fraction=1.0e+3"], kind="engine")
    assert typed == 1000.0 and isinstance(typed, float)
    (_, plain), = parse_assignments(["memory_fraction=2048"], kind="engine")  # an integer stays one
    assert plain == 2048 and type(plain) is int


def test_engines_diff_compares_an_unlisted_mla_kernel_count_as_the_general_one_it_takes(roofline):
    """qa365: `engines diff vllm sglang --hardware mi300x` showed vllm's MLA norms and shared experts as '-', starred
    against sglang's 2 and 0, where vllm runs its kernels_per_layer's 2 and 4 (predict's norms: 61 layers x 2)."""
    code, out, err = roofline("engines", "diff", "vllm", "sglang", "--hardware", "mi300x")
    assert code == 0, err
    lines = out.splitlines()  # a long label on a line of its own, its values on the next (qa403)
    rows = {line.split("  ")[0]: line if line.split("  ")[0] != line else lines[i + 1]
            for i, line in enumerate(lines) if line.startswith("kernels_per_layer_mla.")}
    norms = rows["kernels_per_layer_mla.norms (A's kernels_per_layer.norms)"]
    assert norms.split()[-2:] == ["2", "1x"] and not norms.rstrip().endswith("*"), norms
    shared = rows["kernels_per_layer_mla.shared_experts (A's kernels_per_layer.shared_experts)"]
    assert shared.split()[-4:] == ["4", "0", "-", "*"], shared
    assert not rows["kernels_per_layer_mla.qkv_proj"].rstrip().endswith("*")


def test_engines_diff_gives_each_engines_usable_memory_and_max_batch_at_its_reference_layout(roofline):
    """qa369: the diff showed sglang's memory_fraction 0.907 against vllm's 0.9 (0.992x), where at tp 8 on an H200
    sglang gives weights and KV cache more: each side's usable memory and max batch, as predict gives them."""
    import roofline as api

    code, out, err = roofline("engines", "diff", "sglang", "vllm", "--hardware", "h200", "--tp", "8", "--model", "llama-3.1-70b")
    assert code == 0, err
    p = [api.predict("h200", "llama-3.1-70b", tp=8, context=4096, engine=e) for e in ("sglang", "vllm")]
    batch = next(line for line in out.splitlines() if line.strip().startswith("max batch at S=4096"))
    assert batch.split()[4:6] == [f"{p[0]['max_batch']:,}", f"{p[1]['max_batch']:,}"], batch
    assert next(line for line in out.splitlines() if "usable memory per device (weights + KV)" in line)


@pytest.mark.slow
def test_engines_diff_takes_a_layout_and_each_engines_own_layout_of_the_model_as_predict_does(roofline):
    """qa365: `engines diff` had --tp only, where attention DP and EP are where vllm and sglang differ most for a MoE
    model; and its reference points used neither engine's layout of the model (sglang's stage split, vllm's 16-bit MLA
    up-projections), so they were not predict's."""
    import roofline as api
    from roofline.units import format_seconds

    code, out, err = roofline("engines", "diff", "vllm", "sglang", "--hardware", "h200", "--model", "deepseek-v3",
                              "--dp-attention", "8", "--ep", "8")
    assert code == 0, err
    assert "deepseek-v3 decoding on 8 x h200 (tp 1, dp-attention 8, ep 8, native precision):" in out
    lines = out.splitlines()
    for name, column in (("vllm", 0), ("sglang", 1)):
        at64 = api.predict("h200", "deepseek-v3", engine=name, dp_attention=8, ep=8, batch=64, context=4096)
        at1 = api.predict("h200", "deepseek-v3", engine=name, dp_attention=8, ep=8, batch=1, context=1024)
        cells = [next(x for x in lines if x.strip().startswith(label)).split("  ") for label in
                 ("max batch at S=4096", "B=1 S=1024 step time", "B=64 S=4096 step time")]
        cells = [[c.strip() for c in row if c.strip()][1:3] for row in cells]
        assert cells[0][column] == f"{at64['max_batch']:,}"
        assert cells[1][column] == format_seconds(at1["step_time_s"]) and cells[2][column] == format_seconds(at64["step_time_s"])
    code, out, err = roofline("engines", "diff", "vllm", "sglang", "--model", "llama-3.1-70b", "--tp", "2", "--pp", "2")
    at64 = api.predict("h100-sxm", "llama-3.1-70b", engine="sglang", tp=2, pp=2, batch=64, context=4096)
    assert code == 0 and "llama-3.1-70b decoding on 4 x h100-sxm (tp 2, pp 2, native precision):" in out
    row = [c.strip() for c in next(x for x in out.splitlines() if x.strip().startswith("max batch at S=4096")).split("  ") if c.strip()]
    assert row[2] == f"{at64['max_batch']:,}", row
    code, out, _ = roofline("engines", "diff", "vllm-v0", "trtllm", "--hardware", "h200", "--model", "deepseek-v3",
                            "--dp-attention", "8", "--ep", "8")  # a layout one of them runs no setup of: said (qa370)
    assert code == 0 and out.rstrip().splitlines()[-1].startswith("note: dp_attention 8 under vllm-v0: it has no attention data parallelism")
    # a device and a dense model's attention DP no setup runs, as predict says them (qa479: their figures unsaid)
    code, out, _ = roofline("engines", "diff", "vllm", "trtllm", "--hardware", "mi300x", "--model", "deepseek-v3", "--tp", "8",
                            "--ep", "8")
    assert code == 0 and out.rstrip().splitlines()[-1].startswith("note: engine trtllm: TensorRT-LLM runs on NVIDIA GPUs only")
    code, out, _ = roofline("engines", "diff", "vllm", "sglang", "--model", "llama-3.1-70b", "--tp", "1", "--dp-attention", "8")
    assert code == 0 and ("note: llama-3.1-70b with dp_attention 8 under sglang: its dp_attention_stage_split is SGLang's "
                          "DeepSeek-style layout") in out
    code, _, err = roofline("engines", "diff", "vllm", "sglang", "--ep", "3")
    assert code == 2 and err.startswith("error: ") and "--ep: expected 1 for a dense model" in err and len(err.splitlines()) == 1


@pytest.mark.slow
def test_a_value_set_back_is_unmarked_unwarned_and_the_fit_s_again(roofline, tmp_path):
    """qa373: a value given the copied profile's value again still warned 'set with no source: the header marks it';
    an override's value set back stayed marked (its path named by index, the profile's leaves by glob) and neither
    went back into the fit's lists."""
    user = tmp_path / "user-profiles"
    code, _, err = roofline("hw", "new", "g", "--from", "h100-sxm", "--set", "link_latency=8 us")
    assert code == 0, err
    original = load_hardware("h100-sxm")
    code, _, err = roofline("hw", "set", "g", f"link_latency={original.link_latency_s * 1e6:g} us")
    assert code == 0 and "set with no source" not in err, err
    assert "set by hand" not in (user / "g.yaml").read_text()
    shipped = (ROOT / "engine_profiles" / "vllm.yaml").read_text()
    code, _, err = roofline("engines", "new", "e", "--from", "vllm", "--set", "overrides.0.kernel_latency=6 us",
                            "--set", "host_per_sequence=50 us")
    assert code == 0, err
    copied = (user / "e.yaml").read_text()
    assert "- host_per_sequence" not in copied.split("fitted:")[1] and "kernel_latency on AMD" not in copied
    mi = re.search(r"overrides:\n  - hardware: \"mi\*\".*?\n    kernel_latency: ([0-9.]+ us)", shipped, re.S).group(1)
    per_seq = re.search(r"^host_per_sequence: (.+)$", shipped, re.M).group(1)
    code, _, err = roofline("engines", "set", "e", f"overrides.0.kernel_latency={mi}", f"host_per_sequence={per_seq}")
    assert code == 0, err
    text = (user / "e.yaml").read_text()
    assert "set by hand" not in text
    assert text.split("\ntype: engine\n", 1)[1].replace("name: e\n", "name: vllm\n", 1).split("source:")[0] == \
        shipped.split("\ntype: engine\n", 1)[1].split("source:")[0].replace(
            "display_name: ", "display_name: e (copy of ", 1).replace("graphs)\n", "graphs))\n", 1)
    fitted = text.split("\nfitted:\n")[1]  # the block (qa376's surviving mutant: "fitted:" is in the source's text too,
    assert fitted == shipped.split("\nfitted:\n")[1]  # and the first split compared a slice of it, not the fit's lists)
    assert "    - kernel_latency on AMD Instinct (mi*; 32 rows)\n" in fitted and "    - host_per_sequence\n" in fitted


@pytest.mark.slow
def test_a_field_set_whole_drops_the_marks_inside_it_and_a_copy_s_own_source_changes_the_header(roofline, tmp_path):
    """qa373: attention.groups set whole kept 'attention.groups.1.window' marked; a header listing the source itself
    read 'set by hand, not from the source or notes below: ..., source'; the hint kept saying the source was of the
    values the copy was made from after the user replaced it."""
    from roofline.editing import HAND_SET_WITH_TEXT, hand_set_fields

    user = tmp_path / "user-profiles"
    assert roofline("models", "new", "m", "--from", "llama-3.1-8b")[0] == 0
    code, _, err = roofline("models", "set", "m", "attention.groups=[{kind: full, layers: 16}, {kind: sliding, "
                            "layers: 16, window: 4096}]")
    assert code == 0, err
    assert roofline("models", "set", "m", "attention.groups.1.window=8192")[0] == 0
    assert hand_set_fields((user / "m.yaml").read_text()) == ["attention.groups", "attention.groups.1.window"]
    assert roofline("models", "set", "m", "attention.groups=[{kind: full, layers: 32}]")[0] == 0
    assert hand_set_fields((user / "m.yaml").read_text()) == ["attention.groups"]
    assert roofline("hw", "new", "g", "--from", "h100-sxm")[0] == 0
    code, _, err = roofline("hw", "set", "g", "source=my measurement")
    assert code == 0 and "source replaced" in err
    assert (user / "g.yaml").read_text().splitlines()[1] == HAND_SET_WITH_TEXT + "source."
    code, _, err = roofline("hw", "set", "g", "price=9 USD/h")
    assert code == 0 and err.rstrip().endswith("(roofline hw edit g; the notes there are of the values it was made from)")
    assert roofline("hw", "set", "g", "notes=mine")[0] == 0
    code, _, err = roofline("hw", "set", "g", "price=8 USD/h")
    assert code == 0 and err.rstrip().endswith("(roofline hw edit g)"), err
    assert hand_set_fields((user / "g.yaml").read_text()) == ["notes", "price", "source"]
    assert load_hardware("g").price_usd_per_hour == 8.0


@pytest.mark.slow
def test_a_hexadecimal_number_is_said_as_one_and_an_unreadable_file_s_line_is_the_editor_s(roofline, tmp_path,
                                                                                            monkeypatch):
    """qa373: '0x40 GB' was told its unit was unknown; `edit` of a file that did not read named its line in the file,
    2 above the line the editor showed under the banner."""
    assert roofline("hw", "new", "g", "--from", "h100-sxm")[0] == 0
    for typed in ("0x40 GB", "-0x40 GB", "0b1 GB", "0o7 GB"):  # (qa376: the -0x, 0b and 0o forms untested)
        code, _, err = roofline("hw", "set", "g", f"memory={typed}")
        assert code == 2 and "expected a decimal number with a unit, like '80 GB' (not hexadecimal" in err, (typed, err)
    path = tmp_path / "user-profiles" / "g.yaml"
    lines = path.read_text().splitlines()
    bad = next(i for i, line in enumerate(lines) if line.startswith("  bf16:"))
    lines[bad] = "  bf16: [400 TFLOP/s"
    path.write_text("\n".join(lines) + "\n")
    seen = tmp_path / "seen.txt"
    editor = tmp_path / "ed.sh"
    editor.write_text(f"#!/bin/sh\ncp \"$1\" {seen}\nexit 1\n")
    editor.chmod(0o755)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(editor))
    code, _, err = roofline("hw", "edit", "g")
    assert code == 2
    shown = seen.read_text().splitlines()
    said = int(re.search(r"line (\d+)", shown[0]).group(1))
    assert shown[said - 1] == "  bf16: [400 TFLOP/s", (said, shown[:14])


@pytest.mark.slow
def test_a_hardware_number_changed_in_the_editor_without_a_source_is_said_as_set_says_it(roofline, tmp_path, monkeypatch):
    """qa389: `hw edit` changing step_overhead 20 us -> 15 us wrote in silence, where `hw set` says a number set with
    no source or notes beside it; an edit that adds to the notes too says nothing."""
    path = _user_copy(roofline)
    bare = path.read_text().replace("step_overhead: 30 us", "step_overhead: 15 us")
    sourced = bare.replace("step_overhead: 15 us", "step_overhead: 12 us").replace("notes: none", "notes: step overhead measured")
    editor, _ = _fake_editor(tmp_path, [bare, sourced])
    monkeypatch.setenv("EDITOR", editor)
    monkeypatch.delenv("VISUAL", raising=False)
    code, _, err = roofline("hw", "edit", "ed-gpu")
    assert code == 0 and f"warning: {path}: step_overhead set with no source: add where it comes from to the file's notes" in err, err
    code, _, err = roofline("hw", "edit", "ed-gpu")
    assert code == 0 and "set with no source" not in err and path.read_text() == sourced, err


@pytest.mark.slow
def test_a_copys_notes_replaced_in_the_editor_are_said_and_notes_added_to_are_not(roofline, tmp_path, monkeypatch):
    """qa422: a copy's notes, which spoke for the values it keeps from its source, were replaced in silence (its source
    was said); text added to them in the editor keeps them, and is not said."""
    assert roofline("hw", "new", "ed-copy", "--from", "h100-sxm")[0] == 0
    path = Path(__import__("os").environ["ROOFLINE_USER_DIR"]) / "ed-copy.yaml"
    import yaml

    text = path.read_text()
    lines = text.splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if line.startswith("notes:"))
    last = next((i for i in range(first + 1, len(lines)) if lines[i][:1] not in (" ", "\n", "")), len(lines))

    def with_notes(notes: str) -> str:  # the notes block replaced by one JSON-quoted line (YAML reads it)
        return "".join(lines[:first]) + f"notes: {json.dumps(notes)}\n" + "".join(lines[last:])

    old = yaml.safe_load(text)["notes"]
    added = with_notes(old.rstrip() + " Price checked 2026-12.")
    editor, _ = _fake_editor(tmp_path, [added, None])
    monkeypatch.setenv("EDITOR", editor)
    monkeypatch.delenv("VISUAL", raising=False)
    code, _, err = roofline("hw", "edit", "ed-copy")
    assert code == 0 and "Price checked 2026-12." in path.read_text() and "replaced" not in err, err
    editor, _ = _fake_editor(tmp_path, [with_notes("Mine: my lab's measurements.")])
    monkeypatch.setenv("EDITOR", editor)
    code, _, err = roofline("hw", "edit", "ed-copy")
    assert code == 0 and f"warning: {path}: notes replaced: they spoke for the values the copy keeps from h100-sxm" in err, err


@pytest.mark.slow
def test_an_engine_whose_costs_another_takes_by_a_path_beside_it_is_not_removed_from_another_folder(roofline, tmp_path,
                                                                                                     monkeypatch):
    """qa403: `costs_from: my-vllm.yaml`, a path beside the taker, loads from the user folder; `engines remove my-vllm`
    run from any other folder removed it without --force (the path was looked for from the working folder only), and
    every later command failed on the taker."""
    user = tmp_path / "user"
    user.mkdir()
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(user))
    assert roofline("engines", "new", "my-vllm", "--from", "vllm")[0] == 0
    (user / "cf.yaml").write_text("type: engine\nname: cf\nsource: s\ncosts_from: my-vllm.yaml\n")
    elsewhere = tmp_path / "work"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert roofline("engines", "show", "cf")[0] == 0  # it loads: the path beside it
    code, _, err = roofline("engines", "remove", "my-vllm")
    assert code == 2 and "cf.yaml takes its costs from it (costs_from: my-vllm.yaml)" in err and (user / "my-vllm.yaml").exists(), err


@pytest.mark.slow
def test_a_copys_name_follows_the_costs_it_takes(roofline, tmp_path, monkeypatch):
    """qa403: `engines new cf --from vllm-v0 --set costs_from=my-vllm2` kept '... costs of vllm)' in its name, and a copy
    with costs_from=null (costs of its own, zero) too."""
    import yaml

    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    assert roofline("engines", "new", "myv", "--from", "vllm")[0] == 0
    assert roofline("engines", "new", "cf", "--from", "vllm-v0", "--set", "costs_from=myv")[0] == 0
    assert roofline("engines", "new", "cfn", "--from", "vllm-v0", "--set", "costs_from=null")[0] == 0
    named = {n: yaml.safe_load((tmp_path / f"{n}.yaml").read_text())["display_name"] for n in ("cf", "cfn")}
    assert named["cf"].endswith("graphs; costs of myv))") and "costs of vllm" not in named["cf"], named
    assert "costs of" not in named["cfn"] and named["cfn"].endswith("CUDA / HIP graphs))"), named


@pytest.mark.slow
def test_hints_name_a_file_by_its_name_only_where_the_search_path_finds_that_file(tmp_path, monkeypatch):
    """qa427's mutants of the hints' profile name (qa422): a file named as a profile elsewhere on the path is told by its
    path; one on the path through a link by its name; a path with a space quoted for the shell."""
    import warnings

    from roofline.editing import new_profile

    def said(call) -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        return [str(w.message) for w in caught]

    user = tmp_path / "user"
    user.mkdir()
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(user))
    new_profile("hardware", "acme-x1", "h100-sxm", ["memory=96 GB"])  # acme-x1 on the search path (the user folder)
    off = tmp_path / "my gpus"
    off.mkdir()
    lines = said(lambda: new_profile("hardware", "acme-x1", "h100-sxm", ["memory_bandwidth=3.2 TB/s"], out_dir=off))
    assert any(f"(roofline hw set '{off / 'acme-x1.yaml'}' 'price=... USD/h')" in x for x in lines), lines
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    monkeypatch.setenv("ROOFLINE_PATH", str(tmp_path / "link"))
    lines = said(lambda: new_profile("hardware", "acme-x9", "h100-sxm", ["memory_bandwidth=3.2 TB/s"], out_dir=real))
    assert any("(roofline hw set acme-x9 'price=... USD/h')" in x for x in lines), lines


@pytest.mark.slow
def test_a_copys_text_added_to_or_written_where_it_had_none_is_not_said_replaced(tmp_path):
    """qa427: a source added to in the editor, and notes written on a copy of ideal (which has none), by `set` or in
    the editor, were said 'replaced' (the editor's case failed on the missing text)."""
    import json
    import warnings

    import yaml

    from roofline.editing import _edit_notes, new_profile, set_fields

    def said(call) -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        return [str(w.message) for w in caught]

    path = new_profile("hardware", "ed-src", "h100-sxm", [], out_dir=tmp_path)
    original = path.read_text()
    lines = original.splitlines(keepends=True)
    first = next(i for i, x in enumerate(lines) if x.startswith("source:"))
    last = next((i for i in range(first + 1, len(lines)) if lines[i][:1] not in (" ", "\n", "")), len(lines))
    added = ("".join(lines[:first]) + f"source: {json.dumps(yaml.safe_load(original)['source'].rstrip() + ' Checked.')}\n"
             + "".join(lines[last:]))
    assert not any("replaced" in x for x in said(lambda: _edit_notes("hardware", original, added, path)))
    ideal = new_profile("engine", "my-ideal", "ideal", [], out_dir=tmp_path)
    before = ideal.read_text()
    assert "\nnotes:" not in before
    assert not any("replaced" in x for x in said(lambda: _edit_notes("engine", before, before + "notes: Mine.\n", ideal)))
    assert not any("replaced" in x for x in said(lambda: set_fields("engine", "my-ideal", ["notes=Mine, 2026."], (tmp_path,))))
    assert any("notes replaced" in x for x in said(lambda: set_fields("hardware", "ed-src", ["notes=Mine."], (tmp_path,))))


@pytest.mark.slow
def test_validate_guesses_no_kind_for_a_name_two_other_kinds_have(roofline, tmp_path, monkeypatch):
    """qa427: `hw validate NAME` checks a profile of another kind as what it is only where one other kind has that name."""
    other = tmp_path / "on-path"
    other.mkdir()
    monkeypatch.setenv("ROOFLINE_PATH", str(other))
    assert roofline("engines", "new", "dup", "--from", "vllm")[0] == 0
    assert roofline("models", "new", "dup", "--from", "llama-3.1-8b", "--dir", other)[0] == 0
    code, out, _ = roofline("hw", "validate", "dup")
    assert code == 2 and out.startswith("FAIL ") and "checked as one" not in out, out
