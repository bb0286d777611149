"""Every hand-written bad input in tests/bad_inputs/ gives its expected one-line message, exit code 2, no traceback.

Layout: hardware/, model/, scenario/ hold YAML files whose first line is `# expect: SUBSTRING`,
checked the way `roofline hw validate` / `models validate` check a file; hf/ holds config.json
files for `roofline models import` and tables/ results tables for `roofline plot`, each with a
sidecar `NAME.expect`; cli/ holds `NAME.args` (first line `# expect: ...`, second line the
arguments, `{tmp}` a fresh folder and `{file}` an existing regular file). Every case but the
YAML files runs through cli.main(); the YAML files too, once, through `hw/models validate`.
"""

import shlex
from pathlib import Path

import pytest

from roofline.editing import validate_text
from roofline.errors import RooflineError
from roofline.yamlio import read_text

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "bad_inputs"
YAML_CASES = sorted(p for kind in ("hardware", "model", "scenario") for p in (CORPUS / kind).glob("*.yaml"))
FILE_CASES = sorted([*(CORPUS / "hf").glob("*.json"), *(CORPUS / "tables").glob("*.csv"), *(CORPUS / "tables").glob("*.parquet")])
CLI_CASES = sorted((CORPUS / "cli").glob("*.args"))


def _expect_line(text: str) -> str:
    first = text.splitlines()[0] if text else ""
    assert first.startswith("# expect: ") or first.startswith("expect: "), "every case states its expected message"
    return first.split("expect: ", 1)[1].strip()


def test_the_corpus_has_at_least_60_cases():
    assert len(YAML_CASES) + len(FILE_CASES) + len(CLI_CASES) >= 60


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user-profiles"))
    monkeypatch.delenv("ROOFLINE_PATH", raising=False)
    monkeypatch.delenv("ROOFLINE_MAX_POINTS", raising=False)
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize("path", YAML_CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_bad_profile_file_gives_its_expected_message(path):
    expected = _expect_line(path.read_text(encoding="utf-8", errors="replace"))
    with pytest.raises(RooflineError) as err:
        validate_text(path.parent.name, read_text(path), path)
    message = str(err.value)
    assert expected in message
    assert message.startswith(str(path)) and "\n" not in message


@pytest.mark.parametrize("path", FILE_CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_bad_config_or_table_gives_its_expected_message(path, tmp_path, roofline):
    expected = _expect_line(Path(f"{path}.expect").read_text())
    if path.suffix == ".json":
        args = ["models", "import", str(path), "--name", "imported", "--dir", str(tmp_path / "out")]
    else:
        args = ["plot", str(path), "--out", str(tmp_path / "plots")]
    code, out, err = roofline(*args)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and expected in err, err
    assert not (tmp_path / "out").exists() and not (tmp_path / "plots").exists()


@pytest.mark.parametrize("path", CLI_CASES, ids=lambda p: p.name)
def test_a_bad_command_line_gives_its_expected_message(path, tmp_path, roofline):
    lines = path.read_text().splitlines()
    expected = _expect_line(lines[0])
    regular = tmp_path / "a-file"
    regular.write_text("not a folder, not JSON\n")
    args = shlex.split(lines[1].replace("{tmp}", str(tmp_path)).replace("{file}", str(regular)))
    before = sorted(p.name for p in tmp_path.iterdir())
    code, out, err = roofline(*args)
    assert code == 2 and expected in out + err and err.count("\n") == 1, err   # validate lists files on stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == before     # nothing half-written left behind


@pytest.mark.parametrize("kind", ["hardware", "model"])
def test_validate_reports_every_bad_file_of_a_folder_on_its_own_line(kind, roofline):
    paths = sorted((CORPUS / kind).glob("*.yaml"))
    code, out, err = roofline("hw" if kind == "hardware" else "models", "validate", *paths)
    assert code == 2 and f"{len(paths)} of {len(paths)} files failed validation" in err
    assert out.count("\n") == len(paths) and "Traceback" not in out + err


@pytest.mark.slow
@pytest.mark.parametrize("command", ["validate", "calibrate"])
def test_an_unknown_device_is_said_before_pytorch_is_looked_for(roofline, command):
    """qa372: `validate --device tpu` said PyTorch is not installed (where it is not), not that tpu is no device."""
    code, _, err = roofline(command, "--device", "tpu")
    assert code == 2 and err.strip() == "error: --device: expected cpu, cuda or cuda:N (a device index), found 'tpu'", err
