"""Profile editing says what a planner needs (qa455): `hw edit` with no editor set and no terminal refuses in one line
(vi's screen of escape codes was printed); a copy's notes replaced by `set` say how to add to them instead; `hw show`
says 'the notes were written'."""

import pytest

pytestmark = pytest.mark.slow  # hw new / set / show in-process: 0.3-1 s a test


def test_edit_without_an_editor_or_a_terminal_is_one_line(roofline, tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    assert roofline("hw", "new", "my-h100", "--from", "h100-sxm")[0] == 0
    before = (tmp_path / "my-h100.yaml").read_text()
    for var in ("VISUAL", "EDITOR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr("sys.stdin.isatty", lambda: False, raising=False)
    code, _, err = roofline("hw", "edit", "my-h100")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert err.strip() == ("error: hw edit: expected $VISUAL or $EDITOR set, or a terminal for vi, found neither (stdin "
                           "is not a terminal): set EDITOR, or change fields with roofline hw set"), err
    assert (tmp_path / "my-h100.yaml").read_text() == before


def test_notes_replaced_on_a_copy_say_how_to_add_to_them(roofline, tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    code, _, err = roofline("hw", "new", "my-h100", "--from", "h100-sxm", "--set", "price=2 USD/h",
                            "--set", "notes=Price: our quote, 2026-06.")
    assert code == 0 and "notes replaced: they spoke for the values the copy keeps from h100-sxm too" in err, err
    assert err.rstrip().endswith("which the new notes now stand for; to add to the text instead, roofline hw edit my-h100"), err
    code, out, _ = roofline("hw", "show", "my-h100")
    assert code == 0 and ("the source below is of the values the copy was made from; the notes were written with them"
                          in out), out


def test_a_copy_keeps_the_top_comment_of_the_profile_it_came_from(roofline, tmp_path, monkeypatch):
    """qa436, qa455: every copy dropped its source's top comment (h100-sxm-94gb's 'six HBM2e stacks ... fully
    connected without NVSwitch'); a copy of a copy keeps the first profile's, named; roofline's own lines (the editor
    schema line, made-with, set-by-hand, an engine's lineage) are not carried twice."""
    from roofline.profiles import builtin_dir

    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    source = (builtin_dir("hardware") / "h100-sxm-94gb.yaml").read_text().splitlines()
    said = [line for line in source[:source.index(next(x for x in source if not x.startswith("#")))]
            if not line.startswith("# yaml-language-server")]
    assert said and said[0].startswith("# NVIDIA H100 SXM5 94GB")
    assert roofline("hw", "new", "t94", "--from", "h100-sxm-94gb")[0] == 0
    assert roofline("hw", "new", "t95", "--from", "t94", "--set", "price=2 USD/h")[0] == 0
    for name, at in (("t94", 1), ("t95", 2)):  # after the made-with line, and the set-by-hand one where there is one
        lines = (tmp_path / f"{name}.yaml").read_text().splitlines()
        assert lines[at] == "# h100-sxm-94gb's header: " + said[0][2:] and lines[at + 1:at + len(said)] == said[1:], lines[:6]
        assert not any(line.startswith("# yaml-language-server") for line in lines)
    assert sum("made with `roofline hw new" in line for line in (tmp_path / "t95.yaml").read_text().splitlines()) == 1
    assert roofline("engines", "new", "e1", "--from", "vllm")[0] == 0
    assert roofline("engines", "new", "e2", "--from", "e1")[0] == 0
    text = (tmp_path / "e2.yaml").read_text()
    assert text.count("# descends from the vllm profile:") == 1 and "# vllm's header: vLLM (V1 engine" in text, text[:800]
    code, out, _ = roofline("engines", "show", "e2")
    from roofline.serving import load_engine

    assert code == 0 and f"(e2, {load_engine('vllm').version})" in out.splitlines()[0], out.splitlines()[0]


def test_validate_names_every_missing_required_field_at_once(roofline, tmp_path):
    """qa455: a hand-written hardware profile took five runs of hw validate, one missing field each."""
    path = tmp_path / "partial.yaml"
    path.write_text("type: hardware\nname: partial\ndisplay_name: Partial GPU\nkind: gpu\nmemory: 96 GB\n"
                    "memory_bandwidth: 1.6 TB/s\npeak_flops: {bf16: 500 TFLOP/s}\nefficiency: {memory: 0.8}\n"
                    "link_bandwidth: 100 GB/s\nlink_latency: 5 us\n")
    code, out, err = roofline("hw", "validate", path)
    assert code == 2 and ("partial.yaml: on_chip_cache: expected a required field (missing too: step_overhead, source, "
                          "notes), found nothing") in out + err, out + err
    path.write_text(path.read_text() + "on_chip_cache: 50 MB\nstep_overhead: 20 us\nsource: me\nnotes: mine\n")
    code, out, err = roofline("hw", "validate", path)
    assert code == 2 and ("partial.yaml: line 8: efficiency.compute: expected a required fraction (missing too: "
                          "efficiency.link), found nothing") in out + err, out + err
    model = tmp_path / "m.yaml"
    model.write_text("type: model\nname: m\nhidden_size: 4096\n")
    code, out, err = roofline("models", "validate", model)
    assert code == 2 and ("m.yaml: layers: expected a required field (missing too: heads, kv_heads, head_dim, ffn_size, "
                          "vocab_size), found nothing") in out + err, out + err


def test_a_copy_of_a_copy_names_the_first_profile_once(roofline, tmp_path, monkeypatch):
    """'t95 (copy of t94 (copy of NVIDIA H100 SXM5 94GB (HBM2e, HGX 4-GPU)))' wrapped every figure title; an engine
    copy's eager mark follows its graphs."""
    import yaml

    from roofline.hardware import load_hardware

    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    first = load_hardware("h100-sxm-94gb").display_name
    for name, source, sets in (("t94", "h100-sxm-94gb", []), ("t95", "t94", []), ("e1", "vllm", ["graphs=false"]),
                               ("e2", "e1", []), ("e3", "e2", ["graphs=true"])):
        group = "hw" if name.startswith("t") else "engines"
        assert roofline(group, "new", name, "--from", source, *[a for s in sets for a in ("--set", s)])[0] == 0
    shown = {p.stem: yaml.safe_load(p.read_text())["display_name"] for p in tmp_path.glob("*.yaml")}
    assert shown["t94"] == f"t94 (copy of {first})" and shown["t95"] == f"t95 (copy of {first})", shown
    assert shown["e2"].startswith("e2 (copy of vLLM") and shown["e2"].endswith(", run eagerly: graphs false)"), shown
    assert shown["e2"].count("copy of") == 1 and "eagerly" not in shown["e3"], shown


def test_hw_diff_writes_prices_as_show_does_and_names_the_values_set_by_hand(roofline, tmp_path, monkeypatch):
    """qa455: hw diff wrote '3 USD/h' beside '1.95 USD/h' and said nothing of the copy's price having no source."""
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    assert roofline("hw", "new", "my-h100", "--from", "h100-sxm", "--set", "price=1.95 USD/h")[0] == 0
    code, out, _ = roofline("hw", "diff", "h100-sxm", "my-h100")
    price = next(line for line in out.splitlines() if line.startswith("price "))
    assert code == 0 and price.split()[1:5] == ["3.00", "USD/h", "1.95", "USD/h"], price
    assert "set by hand in B (my-h100), not from its source or notes: price" in out.splitlines(), out
    assert not any(line.startswith("set by hand in A") for line in out.splitlines())
    assert roofline("hw", "set", "my-h100", "notes=Price: our quote.")[0] == 0
    code, out, _ = roofline("hw", "diff", "h100-sxm", "my-h100")
    assert "set by hand in B (my-h100), since the copy was made: notes, price" in out.splitlines(), out
