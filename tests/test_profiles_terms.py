"""Profile lookup (profiles.py), found by mutation testing (qa476): the aliases and dtype spellings docs/PROFILES.md lists, each resolving to
the profile or dtype it is listed with; the search order and the messages of lookups no test pinned."""

import re
from pathlib import Path

import pytest
import yaml

from roofline.errors import RooflineError, UnknownName
from roofline.profiles import (
    check_profile_name,
    find_profile,
    kind_of,
    list_names,
    normalize_dtype,
    read_yaml,
    resolve_name,
    shadowed_paths,
)

DOCS = Path(__file__).resolve().parent.parent / "docs" / "PROFILES.md"
BUILTIN_H100 = Path(__file__).resolve().parent.parent / "hardware_profiles" / "h100-sxm.yaml"


@pytest.fixture(autouse=True)
def _isolated_user_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user-profiles"))
    monkeypatch.delenv("ROOFLINE_PATH", raising=False)


def _h100(**changes) -> str:
    data = yaml.safe_load(BUILTIN_H100.read_text())
    data.update(changes)
    return yaml.safe_dump(data)


def _alias_rows():
    text = DOCS.read_text()
    table = text[text.index("| alias | profile |"):text.index("**Dtypes**")]
    for line in table.splitlines()[2:]:
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        for alias_cell, profile_cell in ((cells[0], cells[1]), (cells[3], cells[4])):
            aliases, profiles = re.findall(r"`([^`]+)`", alias_cell), re.findall(r"`([^`]+)`", profile_cell)
            kind = "engine" if "(engine)" in alias_cell else None
            pairs = zip(aliases, profiles) if len(profiles) == len(aliases) else ((a, profiles[0]) for a in aliases)
            yield from ((kind, a, p) for a, p in pairs)


def test_every_alias_profiles_md_lists_resolves_to_the_profile_it_is_listed_with():
    rows = list(_alias_rows())
    assert len(rows) >= 19 and (None, "v5e", "tpu-v5e") in rows
    for kind, alias, profile in rows:
        kinds = [kind] if kind else [k for k in ("hardware", "model") if profile in list_names(k)]
        assert len(kinds) == 1, (alias, profile)
        assert resolve_name(kinds[0], alias) == profile, (alias, profile)
        assert find_profile(kinds[0], alias).stem == profile


def _dtype_groups():
    text = DOCS.read_text()
    listed = text[text.index("these spellings:") + len("these spellings:"):text.index("(`roofline.profiles.normalize_dtype`")]
    for group in listed.split(";"):
        spellings = re.findall(r"`([^`]+)`", group)
        if spellings:
            yield spellings[0], spellings


def test_every_dtype_spelling_profiles_md_lists_is_the_dtype_it_is_listed_with():
    """`int8`/`w8a8` is int8 (not w8a16's int8 weights on bf16 compute); each group's first spelling is the dtype."""
    everything = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8", "w8a16", "int4", "fp4", "nvfp4")
    groups = list(_dtype_groups())
    assert [first for first, _ in groups] == ["bf16", "fp16", "fp32", "tf32", "fp8", "int8", "w8a16", "int4", "fp4", "nvfp4"]
    for first, spellings in groups:
        for spelling in spellings:
            assert normalize_dtype(spelling, everything, "x", "dtype") == first, spelling


def test_nvfp4_as_a_peaks_key_is_the_fp4_tensor_cores_it_runs_on():
    """docs/PROFILES.md: 'as a key of peak_flops it is fp4, the tensor cores both run on'."""
    assert normalize_dtype("nvfp4", ("bf16", "fp8", "fp4"), "x", "peak_flops") == "fp4"
    assert normalize_dtype("NVFP4", ("bf16", "fp4", "nvfp4"), "x", "weight_dtype") == "nvfp4"


def test_a_profiles_folder_is_searched_before_roofline_path_and_hides_both_later_copies(tmp_path, monkeypatch):
    """profiles.py: 1. --profiles folders, 2. ROOFLINE_PATH, ..., 4. the built-ins; shadowed_paths names every later copy."""
    from roofline.hardware import load_hardware

    given, on_path = tmp_path / "given", tmp_path / "on-path"
    for folder, memory in ((given, "10 GB"), (on_path, "20 GB")):
        folder.mkdir()
        (folder / "h100-sxm.yaml").write_text(_h100(type="hardware", memory=memory))
    monkeypatch.setenv("ROOFLINE_PATH", str(on_path))
    assert load_hardware("h100-sxm", (given,)).mem_bytes == 10e9
    assert find_profile("hardware", "h100", (given,)) == given / "h100-sxm.yaml"
    assert shadowed_paths("hardware", "h100-sxm", (given,)) == [on_path / "h100-sxm.yaml", BUILTIN_H100]


def test_a_file_of_two_kinds_keys_names_them_and_peak_flops_alone_tells_hardware():
    assert kind_of({"memory_bandwidth": "1 TB/s", "layers": 2}) == (None, "no `type:` and keys of several kinds (hardware, model)")
    assert kind_of({"name": "x", "peak_flops": {"bf16": "1 PFLOP/s"}}) == ("hardware", "")


def test_an_untold_user_file_is_named_when_asked_for_by_its_alias(tmp_path):
    """A user's h100-sxm.yaml whose kind cannot be told is never hidden: asked for as `h100` (its alias) too, not the
    built-in read in its place."""
    (tmp_path / "h100-sxm.yaml").write_text("name: h100-sxm\nsource: mine\n")
    with pytest.raises(RooflineError, match=r"h100-sxm\.yaml: this file would be hardware 'h100', but its kind cannot be told"):
        find_profile("hardware", "h100", (tmp_path,))


def test_a_builtin_of_another_kind_asked_for_by_name_is_an_unknown_name_not_a_type_hint():
    """'set `type: hardware` if it is meant as one' is for a user's file; a built-in model asked for as hardware is unknown."""
    with pytest.raises(UnknownName, match=r"^unknown hardware 'llama-3.1-8b'.*; llama-3\.1-8b is a built-in model profile, "
                                          r"not a hardware profile$"):  # said what it is (qa476: a device suggested alone)
        find_profile("hardware", "llama-3.1-8b")
    with pytest.raises(UnknownName, match=r"^unknown model 'vllm'.*; vllm is a built-in engine profile, not a model profile$"):
        find_profile("model", "vllm")
    with pytest.raises(UnknownName, match=r"^unknown model 'h100-sxmx'; closest: [^;]*$"):  # no profile of any kind
        find_profile("model", "h100-sxmx")


def test_names_are_listed_in_order_with_a_users_profiles_among_the_builtins(tmp_path):
    (tmp_path / "zz-gpu.yaml").write_text(_h100(type="hardware", name="zz-gpu"))
    (tmp_path / "aa-gpu.yaml").write_text(_h100(type="hardware", name="aa-gpu"))
    names = list_names("hardware", (tmp_path,))
    assert names == sorted(names) and names[0] == "a100-pcie-40gb" and names[1] == "a100-sxm-80gb" and "aa-gpu" in names
    assert names[-1] == "zz-gpu"


def test_a_file_given_by_path_of_another_kind_is_said_before_its_fields_are_read(tmp_path):
    (tmp_path / "m.yaml").write_text("type: model\nname: m\nlayers: 2\n")
    (tmp_path / "e.yaml").write_text("type: engine\nname: e\nsource: s\n")
    with pytest.raises(RooflineError, match=r"m\.yaml: expected a hardware profile, found a model profile \(by its type: or keys\)$"):
        find_profile("hardware", str(tmp_path / "m.yaml"))
    with pytest.raises(RooflineError, match=r"e\.yaml: expected a model profile, found an engine profile \(by its type: or keys\)$"):
        find_profile("model", str(tmp_path / "e.yaml"))
    with pytest.raises(RooflineError, match=r"h200\.yaml: hardware file not found .*; the hardware profile 'h200' is named without \.yaml$"):
        find_profile("hardware", "h200.yaml")


def test_a_new_profiles_name_is_checked_at_its_bounds(tmp_path):
    assert check_profile_name("a" * 80) == "a" * 80 and check_profile_name("llama-3.1-x") == "llama-3.1-x"
    with pytest.raises(RooflineError, match=r"^name: expected a name of at most 80 characters, found one of 81 "):
        check_profile_name("a" * 81)
    for bad in ("-x", ".x", "_x"):
        with pytest.raises(RooflineError, match=r"starting with a letter or digit"):
            check_profile_name(bad)


def test_an_empty_profile_file_is_said_to_be_empty(tmp_path):
    (tmp_path / "e.yaml").write_text("")
    with pytest.raises(RooflineError, match=r"e\.yaml: expected a YAML mapping at the top level, found an empty file$"):
        read_yaml(tmp_path / "e.yaml")


def test_the_user_folder_follows_xdg_config_home(monkeypatch, tmp_path):
    from roofline.profiles import user_dir

    monkeypatch.delenv("ROOFLINE_USER_DIR")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    assert user_dir() == tmp_path / "cfg" / "roofline"


def test_only_yaml_and_yml_files_of_a_user_folder_are_read_as_profiles(tmp_path):
    """The folder is globbed as *.y*ml, which also matches notes.yaml.html or x.y.xml: those are no profiles, and no
    problem (problems() lists a user file that cannot be read)."""
    from roofline.profiles import problems

    (tmp_path / "notes.yaml.html").write_text("<html>{{ not yaml: [</html>")
    (tmp_path / "h100-sxm.y.xml").write_text("<xml/>")
    (tmp_path / "mine.yml").write_text(_h100(type="hardware", name="mine"))
    assert problems("hardware", (tmp_path,)) == []
    assert "mine" in list_names("hardware", (tmp_path,)) and find_profile("hardware", "h100", (tmp_path,)) == BUILTIN_H100
