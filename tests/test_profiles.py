"""Profile search (folders, type:, shadowing, aliases, dtypes); the YAML reader itself is tested in test_yamlio."""

import os
from pathlib import Path

import pytest
import yaml

from roofline.errors import RooflineError
from roofline.hardware import load_hardware
from roofline.profiles import (
    find_profile,
    list_names,
    normalize_dtype,
    problems,
    resolve_name,
    shadowed_paths,
    user_dir,
)
from roofline.yamlio import read_yaml_file

BUILTIN_H100 = Path(__file__).resolve().parent.parent / "hardware_profiles" / "h100-sxm.yaml"


@pytest.fixture(autouse=True)
def _isolated_user_folder(tmp_path, monkeypatch):
    """No test here may see or touch the real user profile folder."""
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user-profiles"))
    monkeypatch.delenv("ROOFLINE_PATH", raising=False)


def h100_data(**changes):
    data = read_yaml_file(BUILTIN_H100)  # a fresh copy each call
    data.update(changes)
    return data


def test_names_are_case_insensitive_and_documented_aliases_resolve():
    assert resolve_name("hardware", "H100-SXM") == "h100-sxm"
    assert resolve_name("hardware", "H100") == "h100-sxm"
    assert load_hardware("H100").name == "h100-sxm"
    assert resolve_name("model", "Llama-3.1-8B") == "llama-3.1-8b"
    # engines as their projects spell them: `vllm-v1` suggested vllm-v0 first (qa90)
    assert resolve_name("engine", "vLLM-V1") == "vllm" and resolve_name("engine", "TensorRT-LLM") == "trtllm"


@pytest.mark.parametrize("text, canonical", [("BF16", "bf16"), ("bfloat16", "bf16"), ("FP8", "fp8"), ("float8_e4m3fn", "fp8"),
                                             ("half", "fp16"), ("MXFP4", "fp4"), (" int4 ", "int4")])
def test_dtypes_are_normalised_in_one_place(text, canonical):
    assert normalize_dtype(text, ("bf16", "fp16", "fp8", "fp4", "int4"), "x", "dtype") == canonical


def test_every_dtype_spelling_profiles_md_lists_resolves_as_written():
    import re

    text = (Path(__file__).parent.parent / "docs" / "PROFILES.md").read_text()
    listed = text[text.index("these spellings:"):text.index("(`roofline.profiles.normalize_dtype`")]
    spellings = re.findall(r"`([^`]+)`", listed)
    assert len(spellings) >= 20 and "int8-weight-only" in spellings  # it was refused: looked up as int8_weight_only
    everything = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8", "w8a16", "int4", "fp4", "nvfp4")
    for spelling in spellings:
        assert normalize_dtype(spelling, everything, "x", "dtype") in everything


def test_an_unknown_dtype_names_the_field_and_the_choices():
    with pytest.raises(RooflineError, match=r"^x: --kv-dtype: expected one of bf16, fp8, found 'fp9'$"):
        normalize_dtype("fp9", ("bf16", "fp8"), "x", "--kv-dtype")


def test_a_typed_user_file_shadows_the_builtin_and_says_so(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "h100-sxm.yaml").write_text(yaml.safe_dump(h100_data(type="hardware", memory_bandwidth="1 TB/s")))
    assert find_profile("hardware", "h100-sxm", (folder,)) == folder / "h100-sxm.yaml"
    assert shadowed_paths("hardware", "h100-sxm", (folder,)) == [BUILTIN_H100]
    assert load_hardware("h100-sxm", (folder,)).mem_bw_bytes_per_s == 1e12


def test_a_file_with_a_typo_in_the_telling_key_is_reported_with_its_name(tmp_path):
    data = h100_data(name="h21")
    data["memory_bandwith"] = data.pop("memory_bandwidth")   # the typo that used to hide the file
    del data["peak_flops"]
    (tmp_path / "h21.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(RooflineError) as err:
        load_hardware("h21", (tmp_path,))
    message = str(err.value)
    assert str(tmp_path / "h21.yaml") in message and "kind cannot be told" in message
    assert any("h21.yaml" in line for line in problems("hardware", (tmp_path,)))
    assert "h21" not in list_names("hardware", (tmp_path,))


def test_a_wrong_type_value_is_reported_not_hidden(tmp_path):
    (tmp_path / "h21.yaml").write_text(yaml.safe_dump(h100_data(name="h21", type="hardwre")))
    with pytest.raises(RooflineError, match=r"h21.yaml: this file would be hardware 'h21', but its kind cannot be told: type: expected one of"):
        load_hardware("h21", (tmp_path,))


def test_a_model_file_asked_for_as_hardware_says_what_it_is(tmp_path):
    (tmp_path / "mini.yaml").write_text("type: model\nname: mini\nlayers: 2\n")
    with pytest.raises(RooflineError, match=r"mini.yaml: is a model profile"):
        load_hardware("mini", (tmp_path,))


@pytest.mark.slow
def test_the_user_folder_is_searched_after_roofline_path(tmp_path, monkeypatch):
    mine = Path(os.environ["ROOFLINE_USER_DIR"])
    assert user_dir() == mine
    mine.mkdir()
    (mine / "my-gpu.yaml").write_text(yaml.safe_dump(h100_data(name="my-gpu", type="hardware")))
    assert "my-gpu" in list_names("hardware")
    other = tmp_path / "path"
    other.mkdir()
    (other / "my-gpu.yaml").write_text(yaml.safe_dump(h100_data(name="my-gpu", type="hardware", memory="1 GB")))
    monkeypatch.setenv("ROOFLINE_PATH", str(other))
    assert load_hardware("my-gpu").mem_bytes == 1e9
    assert shadowed_paths("hardware", "my-gpu") == [mine / "my-gpu.yaml"]


@pytest.mark.slow
def test_every_whole_profile_example_of_profiles_md_validates(roofline, tmp_path):
    """qa75: the model profile example failed validation (index_key_bytes without the indexer it needs), so a newcomer
    copying it got exit code 2. Every example that is a whole profile (it has a name) is validated as its kind."""
    import re

    text = (Path(__file__).parent.parent / "docs" / "PROFILES.md").read_text()
    blocks = [b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if re.search(r"^name: ", b, re.M)]
    assert len(blocks) >= 4  # hardware, model, engine (costs_from), scenario
    for i, block in enumerate(blocks):
        name = re.search(r"^name: (\S+)", block, re.M).group(1)
        folder = tmp_path / str(i)
        folder.mkdir()
        (folder / f"{name}.yaml").write_text(block)
        code, out, err = roofline("hw", "validate", folder / f"{name}.yaml")
        assert code == 0, f"example {i} ({name}): {err or out}"


def test_mi300xs_fp8_and_vllms_e5m2_kv_spellings_are_one_byte_fp8():
    """`--weight-dtype float8_e4m3fnuz` (torch's dtype on an MI300X) and `--kv-dtype fp8_e5m2` (one of vLLM's
    --kv-cache-dtype choices) were refused (qa80)."""
    from roofline.model import KV_DTYPES, WEIGHT_DTYPES
    from roofline.profiles import normalize_dtype

    for spelling in ("float8_e4m3fnuz", "FP8_E4M3FNUZ", "e4m3fnuz", "fp8_e5m2", "float8-e5m2", "E5M2"):
        assert normalize_dtype(spelling, KV_DTYPES, "t", "kv_dtype") == "fp8"
        assert normalize_dtype(spelling, WEIGHT_DTYPES, "t", "weight_dtype") == "fp8"


def test_an_alias_is_found_whatever_its_separators():
    """trt-llm resolved, trt_llm and tensorrtllm did not (qa94)."""
    for spelled in ("trt_llm", "TensorRTLLM", "tensorrt llm", "vllm_v1"):
        assert resolve_name("engine", spelled) in ("trtllm", "vllm"), spelled
    assert resolve_name("hardware", "H100_SXM5") == "h100-sxm"


def test_a_profile_of_another_kind_is_said_with_its_article(tmp_path):
    """qa128: '.../my-vllm.yaml: is a engine profile (by its type: or keys), not hardware'."""
    import shutil

    from roofline.errors import RooflineError
    from roofline.profiles import builtin_dir, find_profile

    shutil.copy(builtin_dir("engine") / "vllm.yaml", tmp_path / "my-vllm.yaml")
    text = (tmp_path / "my-vllm.yaml").read_text().replace("name: vllm", "name: my-vllm", 1)
    (tmp_path / "my-vllm.yaml").write_text(text)
    with pytest.raises(RooflineError, match=r"my-vllm.yaml: is an engine profile \(by its type: or keys\), not hardware"):
        find_profile("hardware", "my-vllm", (tmp_path,))


def test_a_costs_from_path_in_upper_case_names_nothing_rather_than_its_lower_case_namesake(tmp_path):
    """qa198: costs_from /x/SG.YAML was lower-cased as a name into /x/sg.yaml, a path, and loaded that other file; since
    qa203 it is a path (a suffix in any case), and the file it names is not there."""
    from roofline.errors import RooflineError
    from roofline.profiles import builtin_dir
    from roofline.serving import load_engine

    (tmp_path / "sg.yaml").write_text((builtin_dir("engine") / "trtllm.yaml").read_text().replace("name: trtllm\n", "name: sg\n"))
    (tmp_path / "eb.yaml").write_text(f"type: engine\nname: eb\nsource: s\ncosts_from: {tmp_path / 'SG.YAML'}\n")
    with pytest.raises(RooflineError, match=r"costs_from: .*SG\.YAML: engine file not found"):
        load_engine(str(tmp_path / "eb.yaml"))
    (tmp_path / "UP.YAML").write_text((tmp_path / "sg.yaml").read_text().replace("name: sg\n", "name: UP\n"))
    assert load_engine(str(tmp_path / "UP.YAML")).name == "UP"  # qa203: an existing file read as an unknown name
    (tmp_path / "eb.yaml").write_text(f"type: engine\nname: eb\nsource: s\ncosts_from: {tmp_path / 'sg.yaml'}\n")
    assert load_engine(str(tmp_path / "eb.yaml")).costs_from == str(tmp_path / "sg.yaml")


def test_a_profile_path_with_a_trailing_slash_is_still_a_path(tmp_path):
    from roofline.hardware import load_hardware
    from roofline.profiles import builtin_dir, is_profile_path

    copy = tmp_path / "h200s.yaml"
    copy.write_text((builtin_dir("hardware") / "h200.yaml").read_text().replace("name: h200\n", "name: h200s\n"))
    assert is_profile_path(f"{copy}/") and is_profile_path("x.yml") and is_profile_path("X.YAML")  # any case (qa203)
    assert not is_profile_path("h200") and not is_profile_path(None)
    assert load_hardware(f"{copy}/").name == "h200s"


def test_a_null_type_is_said_as_yaml_writes_it():
    """qa279: `type: ~` was said "found 'None'" (Python's word), where every other null is said null."""
    from roofline.profiles import kind_of

    assert kind_of({"type": None, "name": "x"}) == (None, "type: expected one of hardware, model, scenario, engine, found null")
    assert kind_of({"type": "gpu"})[1].endswith("found 'gpu'")


def test_a_profile_path_that_is_a_folder_is_said_so(tmp_path):
    """qa279: `predict --hardware DIR.yaml` on a folder said 'hardware file not found' where sweep said a folder."""
    from roofline.errors import RooflineError
    from roofline.profiles import find_profile

    (tmp_path / "dirx.yaml").mkdir()
    with pytest.raises(RooflineError, match=r"dirx.yaml: expected a hardware profile file, found a folder$"):
        find_profile("hardware", str(tmp_path / "dirx.yaml"))


def test_a_profile_name_that_is_a_folder_is_said_so(tmp_path):
    """qa288: `hw show /tmp` said "unknown hardware '/tmp'; closest: tpu-v5e, tpu-v6e"."""
    from roofline.errors import RooflineError
    from roofline.profiles import find_profile

    with pytest.raises(RooflineError, match=r": expected a model profile file, found a folder$"):
        find_profile("model", str(tmp_path))


def test_an_empty_home_is_read_as_an_unset_one_not_the_filesystems_root(monkeypatch):
    """qa394: `HOME= roofline hw new zz --from h100-sxm` wrote /.config/roofline/zz.yaml."""
    import pwd

    monkeypatch.delenv("ROOFLINE_USER_DIR", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("HOME", "")
    assert user_dir() == Path(pwd.getpwuid(os.getuid()).pw_dir) / ".config" / "roofline"  # the account's, as unset
    monkeypatch.setenv("HOME", "/somewhere/else")
    assert user_dir() == Path("/somewhere/else/.config/roofline")
