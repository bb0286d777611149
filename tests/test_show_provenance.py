"""`engines show` and `models show` say whose a copy's source is once it was replaced by hand, as `hw show` does
(qa463: a user's own source, written with the values they measured, was said to be of the values the copy was made
from)."""
import pytest

pytestmark = pytest.mark.slow  # each writes a copy and shows it: 2-3 s


@pytest.fixture(autouse=True)
def _isolated_user_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user"))
    monkeypatch.delenv("ROOFLINE_PATH", raising=False)


def _line(out: str, start: str) -> str:
    import re

    return next(x.strip() for x in out.splitlines() if re.match(rf"\s*{start}\s\s", x))


def test_an_engine_copy_whose_source_was_replaced_says_it_was_written_with_its_values(roofline):
    code, _, err = roofline("engines", "new", "acme-vllm", "--from", "vllm", "--set", "host_per_sequence=45 us",
                            "--set", "source=measured on our H200 NVL fleet")
    assert code == 0, err
    _, out, _ = roofline("engines", "show", "acme-vllm")
    assert _line(out, "set by hand").endswith("(engines new --set / set / edit): the source below was written with them")
    roofline("engines", "new", "acme-two", "--from", "vllm", "--set", "host_per_sequence=45 us")
    _, out, _ = roofline("engines", "show", "acme-two")
    assert _line(out, "set by hand").endswith(": the source below is of the values the copy was made from")


def test_a_model_copy_says_which_of_its_source_and_notes_are_its_own(roofline):
    code, _, err = roofline("models", "new", "acme-8b", "--from", "llama-3.1-8b", "--set", "vocab_size=130000",
                            "--set", "source=our own variant")
    assert code == 0, err
    _, out, _ = roofline("models", "show", "acme-8b")
    assert _line(out, "set by hand").endswith(
        ": the notes below are of the values the copy was made from; the source was written with them")


def test_predict_says_a_copys_fitted_values_set_by_hand_beside_the_fit_it_names(roofline):
    """qa463: predict named 'engine fit ... 194 fit rows of engine vllm' under a copy whose kernel_latency and
    host_per_sequence the user set by hand, as `engines show` says of it."""
    import json

    roofline("engines", "new", "acme-k", "--from", "vllm", "--set", "kernel_latency=4.2 us", "--set", "host_per_sequence=45 us")
    _, out, _ = roofline("predict", "--engine", "acme-k")
    assert _line(out, "engine fit").split("   (")[0].endswith("; set by hand since, not the fit's: kernel_latency, host_per_sequence")
    fitted = json.loads(roofline("predict", "--engine", "acme-k", "--json")[1])["engine_fitted"]
    assert fitted["set_by_hand_since"] == ["kernel_latency", "host_per_sequence"]
    _, out, _ = roofline("predict")
    assert "set by hand since" not in _line(out, "engine fit")


def test_a_copys_own_source_and_notes_stay_its_own_after_its_set_by_hand_line_is_deleted(roofline, tmp_path):
    """qa463: PROFILES.md says to delete the 'set by hand' line once the source and notes speak for every value; a later
    set then said the user's own source and notes were of the values the copy was made from."""
    code, _, err = roofline("hw", "new", "nvl", "--from", "h200", "--set", "source=our brief", "--set", "notes=our rate card")
    assert code == 0, err
    path = tmp_path / "user" / "nvl.yaml"
    path.write_text("".join(x for x in path.read_text().splitlines(keepends=True) if not x.startswith("# set by hand")))
    code, _, err = roofline("hw", "set", "nvl", "link_latency=2.5 us")
    assert code == 0 and "link_latency set with no source" in err and "of the values it was made from" not in err, err
    _, out, _ = roofline("hw", "show", "nvl")
    assert _line(out, "set by hand").endswith("(hw new --set / set / edit): the source and notes below were written with them")
    # a copy whose notes are still its parent's says so
    roofline("hw", "new", "nvl2", "--from", "h200", "--set", "source=our brief")
    roofline("hw", "set", "nvl2", "link_latency=2.5 us")
    _, out, _ = roofline("hw", "show", "nvl2")
    assert _line(out, "set by hand").endswith(
        ": the notes below are of the values the copy was made from; the source was written with them")


def test_a_copy_of_a_copy_keeps_its_inherited_source_when_its_parent_is_rewritten(roofline):
    """qa470: a child made from a copy of H100 said its source 'was written with' its values once the parent's own
    source was rewritten by hand: the child's is still H100's, inherited through the parent."""
    assert roofline("hw", "new", "parent-x", "--from", "h100-sxm", "--set", "price=3 USD/h")[0] == 0
    assert roofline("hw", "new", "child-x", "--from", "parent-x", "--set", "price=4 USD/h")[0] == 0
    assert roofline("hw", "set", "parent-x", "source=re-measured by the parent's owner")[0] == 0
    _, out, _ = roofline("hw", "show", "child-x")
    assert _line(out, "set by hand").endswith("the source and notes below are of the values the copy was made from"), out
    assert roofline("hw", "set", "child-x", "source=our own bench")[0] == 0  # its own, written since: said as its own
    _, out, _ = roofline("hw", "show", "child-x")
    assert "written with them" in _line(out, "set by hand"), out
