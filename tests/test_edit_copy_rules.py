"""What `hw / models / engines new --from` keeps and drops in a copy (editing.py), found by mutation testing (qa487)."""
import re
from pathlib import Path

import pytest

from roofline.profiles import read_yaml

pytestmark = pytest.mark.slow  # CLI runs: 0.1-0.5 s a test

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _isolated_user_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user-profiles"))
    monkeypatch.delenv("ROOFLINE_PATH", raising=False)


def _copy(tmp_path, name: str) -> tuple[str, dict]:
    path = tmp_path / "user-profiles" / f"{name}.yaml"
    return path.read_text(), read_yaml(path)


def _keys(text: str) -> list[str]:
    """The file's top-level keys in order."""
    return [m.group(1) for m in re.finditer(r"^([A-Za-z_][\w]*):", text, re.M)]


@pytest.mark.parametrize("field", ["max_context_tokens=8192", "precision={default: fp8, source: a test}"])
def test_a_model_copy_setting_a_shape_free_field_keeps_the_published_count(roofline, tmp_path, field):
    # llama-3.1-8b publishes 8.03e9 parameters; neither the trained context nor the weights' precision changes the count
    code, _, err = roofline("models", "new", "l8", "--from", "llama-3.1-8b", "--set", field)
    assert code == 0, err
    _, data = _copy(tmp_path, "l8")
    assert data["published_params"] == pytest.approx(8.03e9)


def test_a_model_copy_setting_its_shape_drops_the_published_count(roofline, tmp_path):
    code, _, err = roofline("models", "new", "l8", "--from", "llama-3.1-8b", "--set", "vocab_size=128000")
    assert code == 0, err
    _, data = _copy(tmp_path, "l8")
    assert "published_params" not in data  # 8.03e9 was counted for the source's vocabulary


def test_a_published_count_set_beside_a_shape_stays_in_its_place_and_is_not_marked_when_it_is_the_sources(roofline, tmp_path):
    code, _, err = roofline("models", "new", "l8", "--from", "llama-3.1-8b", "--set", "vocab_size=128000",
                            "--set", "published_params=8.03e9")
    assert code == 0, err
    text, data = _copy(tmp_path, "l8")
    assert data["published_params"] == pytest.approx(8.03e9)
    keys = _keys(text)
    assert keys.index("published_params") < keys.index("layers")  # where llama-3.1-8b writes it, not at the end
    hand = next(line for line in text.splitlines() if line.startswith("# set by hand"))
    assert "vocab_size" in hand and "published_params" not in hand  # the source's own value: not set by hand


def test_an_engine_copy_given_costs_from_as_a_path_names_that_profile_in_its_display_name(roofline, tmp_path):
    sglang = ROOT / "engine_profiles" / "sglang.yaml"
    code, _, err = roofline("engines", "new", "v0s", "--from", "vllm-v0", "--set", f"costs_from={sglang}")
    assert code == 0, err
    _, data = _copy(tmp_path, "v0s")
    assert data["display_name"] == "v0s (copy of vLLM V0 engine (up to 0.7, CUDA / HIP graphs; costs of sglang))"


def test_a_copy_under_its_sources_own_name_is_given_no_family_line(roofline, tmp_path):
    # a renamed copy is given `family: SOURCE` (engine overrides glob the family); one named as its source is that
    # family already by its name, and its file stays the source's fields
    code, _, err = roofline("hw", "new", "h100-sxm", "--from", "h100-sxm", "--force")
    assert code == 0, err
    text, data = _copy(tmp_path, "h100-sxm")
    assert "family" not in data and "\nfamily:" not in text
    code, _, err = roofline("hw", "new", "h100-mine", "--from", "h100-sxm")
    assert code == 0, err
    text, data = _copy(tmp_path, "h100-mine")
    assert data["family"] == "h100-sxm"
    keys = _keys(text)
    assert keys.index("family") == keys.index("kind") + 1  # beside kind, as hardware.FIELD_ORDER puts it


def _header(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("#")][:4]


def test_a_copy_of_a_copy_removing_a_field_its_source_set_by_hand_no_longer_lists_it(roofline, tmp_path):
    code, _, err = roofline("hw", "new", "a1", "--from", "h100-sxm", "--set", "price=5 USD/h", "--set", "source=my quote")
    assert code == 0, err
    code, _, err = roofline("hw", "new", "b1", "--from", "a1", "--set", "price=null")
    assert code == 0, err
    assert "price removed: the device has no price (costs are left out), not 5 USD/h from a1" in err, err
    text, data = _copy(tmp_path, "b1")
    assert "price" not in data
    assert "# set by hand since the copy was made: source." in _header(text)  # a1's source still the user's; price gone


def test_a_copy_of_a_copy_whose_source_was_written_by_hand_says_only_the_notes_are_the_first_profiles(roofline, tmp_path):
    code, _, err = roofline("hw", "new", "a1", "--from", "h100-sxm", "--set", "source=my quote")
    assert code == 0, err
    code, _, err = roofline("hw", "new", "c1", "--from", "a1", "--set", "memory=100 GB")
    assert code == 0, err
    assert "memory set with no source" in err, err
    assert "(roofline hw edit c1; the notes there are of the values it was made from)" in err, err
    # and a source given to that copy replaces a1's own words, not text that spoke for h100-sxm's values: nothing said
    code, _, err = roofline("hw", "new", "d1", "--from", "a1", "--set", "source=another")
    assert code == 0, err
    assert "source replaced" not in err, err


def test_a_miss_already_of_plain_decoding_alone_is_kept_without_a_word(roofline, tmp_path):
    code, _, err = roofline("engines", "new", "base", "--from", "sglang", "--set", "known_misses=[{hardware: 'h1*', "
                            "measured: faster, methods: [none], note: plain faster}]")
    assert code == 0, err
    code, _, err = roofline("engines", "new", "copy", "--from", "base", "--set", "spec_per_draft_step=40 us")
    assert code == 0, err
    assert "known_misses" not in err, err  # nothing narrowed, nothing dropped: nothing to say
    _, data = _copy(tmp_path, "copy")
    assert [(m["note"], list(m["methods"])) for m in data["known_misses"]] == [("plain faster", ["none"])]


@pytest.mark.parametrize("field", ["host_overlap_speculating=true", "speculation_refused=[]",
                                   "speculation_refused_with_pp=false"])
def test_a_speculation_only_field_other_than_a_cost_keeps_the_misses_for_plain_decoding(roofline, tmp_path, field):
    # SPECULATION_ONLY_FIELDS: what prices or rules speculation alone; plain decoding's steps are sglang's still
    from roofline.serving import load_engine

    code, _, err = roofline("engines", "new", "my-sgl", "--from", "sglang", "--set", field)
    assert code == 0, err
    assert "known_misses: kept for plain decoding alone (methods: [none])" in err and "dropped" not in err, err
    _, data = _copy(tmp_path, "my-sgl")
    assert len(data["known_misses"]) == len(load_engine("sglang").known_misses)
    assert all(list(m["methods"]) == ["none"] for m in data["known_misses"])


def test_a_price_set_replaces_the_no_price_sentence_alone_not_the_notes_after_it(roofline, tmp_path):
    # a100-pcie-40gb's notes: 'No price: ... (the AWS p4d $1.844/GPU-h figure is A100 40GB SXM).' then the memory note
    code, _, err = roofline("hw", "new", "a40", "--from", "a100-pcie-40gb", "--set", "price=1.50 USD/h")
    assert code == 0, err
    _, data = _copy(tmp_path, "a40")
    text = data["notes"] + data.get("source", "")
    assert "No price" not in text
    assert "Price set by hand (hw new / hw set), not from the source." in text
    assert "memory is the capacity the device exposes: 40960 MiB" in text  # the sentences after it stay
    assert "Older drivers report 40536 MiB" in text


def test_a_null_cap_beside_a_costs_from_set_in_the_same_command_is_written_as_null(roofline, tmp_path):
    # _kept_nulls: where the copy takes another's costs (costs_from set by this very command), a null cap is written,
    # since removing it would take vllm's cap; without costs_from, null removes, and a field it lacks is refused
    code, _, err = roofline("engines", "new", "base0", "--from", "vllm-v0", "--set", "costs_from=null")
    assert code == 0, err
    _, data = _copy(tmp_path, "base0")
    assert "costs_from" not in data and "max_running_requests_speculating" not in data
    code, _, err = roofline("engines", "new", "c2", "--from", "base0", "--set", "costs_from=vllm",
                            "--set", "max_running_requests_speculating=null")
    assert code == 0, err
    text, data = _copy(tmp_path, "c2")
    assert data["costs_from"] == "vllm"
    assert "max_running_requests_speculating" in data and data["max_running_requests_speculating"] is None
    assert "\nmax_running_requests_speculating: null" in text
    code, _, err = roofline("engines", "new", "c3", "--from", "vllm-v0", "--set", "costs_from=null",
                            "--set", "max_running_requests_speculating=null")
    assert code == 2
    assert "max_running_requests_speculating: expected a field the profile has, to remove" in err, err


def test_an_engine_copy_with_its_overrides_set_whole_keeps_no_per_family_fit_record(roofline, tmp_path):
    # sglang's fitted.per_family names four family values (kernel_latency on mi*, b[0-9]*/gb*, a[0-9]*, and
    # quantised_moe_efficiency on mi*): overrides set whole are the user's, none of them the fit's any more
    code, _, err = roofline("engines", "new", "ov", "--from", "sglang",
                            "--set", "overrides=[{hardware: 'mi*', kernel_latency: 5 us}]")
    assert code == 0, err
    _, data = _copy(tmp_path, "ov")
    assert not data["fitted"].get("per_family")
    assert "kernel_latency" in data["fitted"]["parameters"]  # the general value is still the fit's


def test_new_over_an_existing_copy_is_refused_for_that_before_its_values_are_checked(roofline, tmp_path):
    code, _, err = roofline("hw", "new", "qx", "--from", "h100-sxm")
    assert code == 0, err
    before = (tmp_path / "user-profiles" / "qx.yaml").read_text()
    code, _, err = roofline("hw", "new", "qx", "--from", "h100-sxm", "--set", "memory=abc")
    assert code == 2
    assert err.strip().splitlines() == [f"error: hw new: {tmp_path / 'user-profiles' / 'qx.yaml'} exists; pass --force to "
                                        "overwrite it"], err
    assert (tmp_path / "user-profiles" / "qx.yaml").read_text() == before


def test_engines_set_graphs_leaves_a_display_name_the_user_wrote(roofline, tmp_path):
    code, _, err = roofline("engines", "new", "e1", "--from", "sglang", "--set", "display_name=e1 (copy of my tuned sglang)")
    assert code == 0, err
    code, _, err = roofline("engines", "set", "e1", "graphs=false")
    assert code == 0, err
    _, data = _copy(tmp_path, "e1")
    assert data["display_name"] == "e1 (copy of my tuned sglang)" and data["graphs"] is False
    # one the copy was given, not the user, says eager
    code, _, err = roofline("engines", "new", "e2", "--from", "sglang")
    assert code == 0, err
    code, _, err = roofline("engines", "set", "e2", "graphs=false")
    assert code == 0, err
    _, data = _copy(tmp_path, "e2")
    assert data["display_name"] == "e2 (copy of SGLang (overlap scheduler, CUDA / HIP graphs), run eagerly: graphs false)"


def test_engines_set_costs_from_drops_the_lineage_line_the_copy_was_given(roofline, tmp_path):
    code, _, err = roofline("engines", "new", "v1", "--from", "vllm-v0")
    assert code == 0, err
    text, _ = _copy(tmp_path, "v1")
    assert "# descends from the vllm-v0 profile: " in text
    code, _, err = roofline("engines", "set", "v1", "costs_from=sglang")
    assert code == 0, err
    text, data = _copy(tmp_path, "v1")
    assert data["costs_from"] == "sglang" and "# descends from the" not in text  # sglang names its own lineage


def test_both_peaks_of_a_pair_set_apart_are_not_said_to_be_left_as_they_were(roofline, tmp_path):
    # h100-sxm: bf16 and fp16 both 989.4 TFLOP/s; both set here, so neither is 'still' the old figure
    code, _, err = roofline("hw", "new", "acme", "--from", "h100-sxm", "--set", "peak_flops.bf16=1000 TFLOP/s",
                            "--set", "peak_flops.fp16=900 TFLOP/s", "--set", "source=acme datasheet")
    assert code == 0, err
    assert "is still" not in err, err
    code, _, err = roofline("hw", "new", "acme2", "--from", "h100-sxm", "--set", "peak_flops.bf16=1000 TFLOP/s",
                            "--set", "source=acme datasheet")
    assert code == 0, err
    assert "peak_flops.fp16 is still 989 TFLOP/s, equal to bf16's before this edit set bf16 to 1 PFLOP/s" in err, err


def test_a_memory_fraction_set_with_its_shares_by_device_count_is_not_said_to_hold_below_them_only(roofline, tmp_path):
    # the user gave both: the shares are theirs, and saying 'set memory_fraction_by_devices=null' would undo their edit
    code, _, err = roofline("engines", "new", "se", "--from", "sglang-early", "--set", "memory_fraction=0.9",
                            "--set", "memory_fraction_by_devices={'2': 0.85, '8': 0.8}")
    assert code == 0, err
    assert "holds below" not in err, err
    code, _, err = roofline("engines", "new", "se2", "--from", "sglang-early", "--set", "memory_fraction=0.9")
    assert code == 0, err
    # sglang-early's shares: 0.87 from 2 devices, 0.85 from 4, 0.81 from 8, 0.79 from 16
    assert "gives the share from 2 devices on, so it holds below 2 only" in err, err


def test_an_axis_given_as_a_list_where_the_source_had_a_range_is_not_said_removed(roofline, tmp_path):
    # batch-vs-speculation's axes.batch is a range {start, stop, num, log}; a list in its place replaces it, loses none
    # of its fields to a default; an axis left out (context) is said
    code, _, err = roofline("scenarios", "new", "s3", "--from", "batch-vs-speculation",
                            "--set", "axes={batch: [1, 8], context: [512], k: [0, 1], alpha: [0.8]}")
    assert code == 0, err
    assert "removed" not in err, err
    code, _, err = roofline("scenarios", "new", "s4", "--from", "batch-vs-speculation",
                            "--set", "axes={batch: [1, 8], k: [0, 1], alpha: [0.8]}")
    assert code == 0, err
    assert "axes set whole: context ([512]) removed, now the tool's default" in err, err


@pytest.mark.parametrize("field", ["memory_reserved_per_device=256 MiB", "memory_before_share=1 GiB"])
def test_a_memory_share_field_set_keeps_the_speed_misses(roofline, tmp_path, field):
    # a memory_ field moves what fits, not a step's time: misses with a direction (measured) are kept (qa431)
    from roofline.serving import load_engine

    code, _, err = roofline("engines", "new", "my-sgl", "--from", "sglang", "--set", field)
    assert code == 0, err
    speed = [m for m in load_engine("sglang").known_misses if m.get("measured")]
    assert speed
    _, data = _copy(tmp_path, "my-sgl")
    assert len(data.get("known_misses") or []) == len(speed), err
