"""Shared fixtures: profiles loaded once per session; whole suites that belong to the slow loop."""

import ast
import sys
from pathlib import Path

# Cache compiled modules and pytest's rewritten test modules in __pycache__ (ignored by git) even where the shell sets
# PYTHONDONTWRITEBYTECODE, as this project's machines do: without the cache every run recompiles and rewrites every test
# module, about 1 s of a 5 s quick loop on 2 cores. Set before roofline and the test modules are imported.
sys.dont_write_bytecode = False

# The suite never reads the profiles a person saved on this machine (`roofline hw new my-h100` writes into the user
# folder, ~/.config/roofline or ROOFLINE_USER_DIR, which every lookup searches): each run gets an empty one of its own,
# so a profile of the reader's cannot fail a test (qa107). Tests of the user folder point it elsewhere themselves.
import atexit  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402

_user_root = tempfile.mkdtemp(prefix="roofline-tests-")
atexit.register(shutil.rmtree, _user_root, True)  # removed when the run ends, whatever the tests wrote there
os.environ["ROOFLINE_USER_DIR"] = os.path.join(_user_root, "user")
os.environ["XDG_CONFIG_HOME"] = os.path.join(_user_root, "config")
os.environ.pop("ROOFLINE_PATH", None)

import pytest  # noqa: E402

from roofline.hardware import load_hardware  # noqa: E402
from roofline.model import load_model  # noqa: E402


def _typer_commands_built_once() -> None:
    """Typer's test runner (typer.testing.CliRunner.invoke) rebuilds the click command from the app's signatures on
    every call, about 80 ms for cli.app: keep one per app. Where typer.testing has no `_get_command` (another Typer
    version) nothing changes but the speed."""
    import typer.testing

    build = getattr(typer.testing, "_get_command", None)
    if build is None:
        return
    built: dict = {}

    def once(app):
        if id(app) not in built:
            built[id(app)] = (app, build(app))  # the app kept alive with its command, so its id is not reused
        return built[id(app)][1]

    typer.testing._get_command = once


_typer_commands_built_once()


@pytest.fixture
def roofline(capsys, monkeypatch):
    """Run `roofline ARGS...` through cli.main() in-process: (exit code, stdout, stderr)."""
    import cli

    def run(*args):
        monkeypatch.setattr(sys, "argv", ["roofline", *map(str, args)])
        try:
            cli.main()
            code = 0
        except SystemExit as exc:
            code = exc.code or 0
        out = capsys.readouterr()
        return code, out.out, out.err
    return run


@pytest.fixture(scope="session")
def h100():
    return load_hardware("h100-sxm")


@pytest.fixture(scope="session")
def h200():
    return load_hardware("h200")


@pytest.fixture(scope="session")
def llama8b():
    return load_model("llama-3.1-8b")


@pytest.fixture(scope="session")
def deepseek_v3():
    return load_model("deepseek-v3")


# Suites that exercise input handling and tooling broadly (generated and hand-written bad inputs, profile
# editing through the CLI, fitting, the accuracy report): CI runs them, `pytest -m "not slow"` (the quick
# loop of the analytical core) does not.
SLOW_SUITES = {"test_fuzz.py", "test_bad_inputs.py", "test_editing.py", "test_fit.py", "test_measurements.py", "test_properties.py",
               "test_findings_figures.py", "test_accuracy_edges.py", "test_measurements_edges.py", "test_accuracy_family.py",
               "test_edit_hw_diff.py", "test_edit_hw_edit.py", "test_edit_hw_notes.py", "test_edit_hw_set.py", "test_edit_mends.py",
               "test_accuracy.py", "test_report.py", "test_findings.py", "test_plots.py"}


# Harness modules that import torch at their top: slow as a whole.
TORCH_AT_IMPORT = {"test_decoder.py", "test_specloop.py"}
# The PyTorch harness's tests (tests/harness/, issue 7: "with a slow marker"), those that need no torch too: the
# quick loop is the analytical core's (they took 0.7 s of it, 2026-12-01)
HARNESS_DIR = Path(__file__).parent / "harness"


def is_slow_suite(path: Path) -> bool:
    """A test file (or folder) that is slow as a whole: SLOW_SUITES, TORCH_AT_IMPORT, or the harness's."""
    path = Path(path)
    return path.name in SLOW_SUITES | TORCH_AT_IMPORT or path == HARNESS_DIR or HARNESS_DIR in path.parents


def pytest_collection_modifyitems(config, items):
    for item in items:
        if is_slow_suite(Path(str(item.fspath))):
            item.add_marker(pytest.mark.slow)


def deselects_slow(markexpr: str) -> bool:
    """True when a test marked only `slow` fails the -m expression ('not slow': True; 'slow', '': False).

    The expression (and, or, not, parentheses, marker names) is evaluated with `slow` true and every
    other marker false; anything else is left to pytest (False: collect as usual).
    """
    if not markexpr.strip():
        return False
    try:
        tree = ast.parse(markexpr, mode="eval")
    except SyntaxError:
        return False

    def value(node) -> bool:
        if isinstance(node, ast.Name):
            return node.id == "slow"
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not value(node.operand)
        if isinstance(node, ast.BoolOp):
            parts = [value(v) for v in node.values]
            return all(parts) if isinstance(node.op, ast.And) else any(parts)
        raise ValueError(ast.dump(node))

    try:
        return not value(tree.body)
    except ValueError:
        return False


def pytest_ignore_collect(collection_path, config):
    """When slow tests are deselected (the quick loop), the slow suites are not even imported: the quick loop
    pays neither for torch nor for hypothesis, scipy and matplotlib's drawing stack."""
    if is_slow_suite(collection_path) and deselects_slow(config.getoption("markexpr") or ""):
        return True
    return None


def pytest_configure(config):
    """The quick loop collects no hypothesis test (they live in slow suites), so it drops hypothesis's pytest
    plugin, whose terminal summary alone imports hypothesis: about a second of the loop."""
    if deselects_slow(config.getoption("markexpr") or ""):
        plugin = config.pluginmanager.get_plugin("hypothesispytest")
        if plugin is not None:
            config.pluginmanager.unregister(plugin)
