"""What `hw set` and `hw new --set` say after a write, at the edges the tests did not pin (mutation testing of
roofline/editing.py: _was_marker, _sparse_peak_note, _paired_peak_note, _kept_price_note, _unsourced_note)."""

import pytest
from lab_gpu import lab_gpu


@pytest.fixture(autouse=True)
def _isolated_user_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user-profiles"))
    monkeypatch.delenv("ROOFLINE_PATH", raising=False)


def _copy(roofline, name="g1", *sets):
    code, _, err = roofline("hw", "new", name, "--from", "h100-sxm", *[a for s in sets for a in ("--set", s)])
    assert code == 0, err
    return err


LAB = lab_gpu(display="Lab GPU (rev 2)   # the name we use")


def test_a_remark_keeps_the_first_value_through_later_sets_where_that_value_holds_a_parenthesis(roofline, tmp_path):
    path = tmp_path / "lab.yaml"
    path.write_text(LAB)
    for value, line in (("A", "display_name: A                 # (was Lab GPU (rev 2)) the name we use"),
                        ("B", "display_name: B                 # (was Lab GPU (rev 2)) the name we use"),
                        ("Lab GPU (rev 2)", "display_name: Lab GPU (rev 2)   # the name we use")):
        code, _, err = roofline("--profiles", tmp_path, "hw", "set", "lab", f"display_name={value}")
        assert code == 0, err
        assert path.read_text().splitlines()[2] == line


def test_a_peak_set_to_1_9_times_its_old_value_is_not_called_a_sparsity_figure_and_twice_it_is(roofline):
    _copy(roofline)
    code, _, err = roofline("hw", "set", "g1", "peak_flops.bf16=900 TFLOP/s", "peak_flops.fp16=900 TFLOP/s")
    assert code == 0 and "sparsity" not in err, err
    code, _, err = roofline("hw", "set", "g1", "peak_flops.bf16=1710 TFLOP/s", "peak_flops.fp16=1710 TFLOP/s")  # 1.9x 900
    assert code == 0 and "sparsity" not in err, err
    code, _, err = roofline("hw", "set", "g1", "peak_flops.bf16=855 TFLOP/s", "peak_flops.fp16=855 TFLOP/s")  # half
    assert code == 0 and "sparsity" not in err, err
    code, _, err = roofline("hw", "set", "g1", "peak_flops.bf16=1710 TFLOP/s", "peak_flops.fp16=1710 TFLOP/s")  # 2x 855
    assert code == 0 and ("peak_flops.bf16: 1,710.0 TFLOP/s is twice the 855.0 TFLOP/s it was: if it is a datasheet's "
                          "figure 'with sparsity', give the dense one (half of it); profiles take dense FLOP/s") in err, err


def test_a_bf16_peak_near_but_not_at_the_fp8_one_is_not_said_to_be_the_fp8_figure(roofline):
    _copy(roofline)
    # H100: fp8 1978.9; 1800 is 0.91 of it and 1.82x the bf16 989.4: neither the fp8 figure nor twice the old one
    code, _, err = roofline("hw", "set", "g1", "peak_flops.bf16=1800 TFLOP/s", "peak_flops.fp16=1800 TFLOP/s")
    assert code == 0 and "sparsity" not in err and "fp8 figure" not in err, err
    code, _, err = roofline("hw", "set", "g1", "peak_flops.bf16=1978.9 TFLOP/s", "peak_flops.fp16=1978.9 TFLOP/s")
    assert code == 0 and "peak_flops.bf16: 1,978.9 TFLOP/s is the fp8 figure (1,978.9 TFLOP/s)" in err, err


def test_a_removed_field_is_shown_whole_up_to_80_characters_and_by_kind_past_them(roofline, tmp_path):
    code, _, err = roofline("engines", "new", "v3", "--from", "vllm")
    assert code == 0, err
    seventy = "measured on rack 7 with the lab's own stream benchmark, 2026-03-01 ok"
    assert len(seventy) == 69
    for text, shown in ((seventy, seventy), ("x" * 80, "x" * 80), ("x" * 81, "the text it had")):
        code, _, err = roofline("engines", "set", "v3", f"notes={text}")
        assert code == 0, err
        code, _, err = roofline("engines", "set", "v3", "notes=null")
        assert code == 0 and f"notes removed: the profile has no notes, not {shown} from the file" in err, err


def test_a_removed_nested_value_is_shown_whole_up_to_80_characters(roofline, tmp_path):
    code, _, err = roofline("engines", "new", "v2", "--from", "vllm")
    assert code == 0, err
    by = "fit by hand from the lab's 2026-03 runs on 8 H100s and 8 MI300Xs, v3"
    assert 60 < len(by) <= 80
    code, _, err = roofline("engines", "set", "v2", f"fitted.by={by}")
    assert code == 0, err
    code, _, err = roofline("engines", "set", "v2", "fitted.by=null")
    assert code == 0 and f"fitted.by removed: the profile now takes the tool's default for it, not {by} from the file" in err, err


def test_a_peak_set_beside_a_pair_that_was_not_equal_to_it_says_nothing_of_the_pair(roofline, tmp_path):
    path = tmp_path / "lab.yaml"
    path.write_text(LAB.replace("peak_flops: {bf16: 500 TFLOP/s}", "peak_flops: {bf16: 500 TFLOP/s, fp16: 250 TFLOP/s}"))
    code, _, err = roofline("--profiles", tmp_path, "hw", "set", "lab", "peak_flops.bf16=600 TFLOP/s", "source=lab run 2")
    assert code == 0, err
    assert "peak_flops.fp16 is still" not in err, err
    path.write_text(LAB.replace("peak_flops: {bf16: 500 TFLOP/s}", "peak_flops: {bf16: 500 TFLOP/s, fp16: 500 TFLOP/s}"))
    code, _, err = roofline("--profiles", tmp_path, "hw", "set", "lab", "peak_flops.bf16=600 TFLOP/s", "source=lab run 2")
    assert code == 0 and ("peak_flops.fp16 is still 500 TFLOP/s, equal to bf16's before this edit set bf16 to 600 TFLOP/s: "
                          "set peak_flops.fp16 too") in err, err


def test_a_price_set_replaces_a_no_price_sentence_in_the_source_too(roofline, tmp_path):
    path = tmp_path / "lab.yaml"
    path.write_text(LAB.replace("source: my lab\n", "source: my lab. No price is known for it.\n"))
    code, _, err = roofline("--profiles", tmp_path, "hw", "set", "lab", "price=2.0 USD/h")
    assert code == 0, err
    assert "\nsource: my lab. Price set by hand (hw new / hw set), not from the source.\n" in path.read_text()
