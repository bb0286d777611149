"""The analytical core never imports torch or the harness; the harness imports without torch until it runs a model."""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = sorted(p for p in (ROOT / "roofline").glob("*.py"))


def imported_modules(path: Path, top_level_only: bool = False) -> set[str]:
    """Every module an `import` or `from ... import` names in the file: anywhere (inside functions too),
    or only in the module's own body."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in tree.body if top_level_only else ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def forbidden(names: set[str]) -> set[str]:
    return {m for m in names if m == "torch" or m.startswith(("torch.", "roofline.harness"))}


IMPORT_LINE = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import\s+\(?([\w., ]*)|import\s+([\w., ]+))", re.MULTILINE)


def imported_anywhere(path: Path) -> set[str]:
    """Modules named by the import statements of a file, at any depth (a scan of its lines: fast)."""
    names = set()
    for module, imported, plain in IMPORT_LINE.findall(path.read_text(encoding="utf-8")):
        if module:
            names.add(module)
            names.update(f"{module}.{n.strip()}" for n in imported.split(",") if n.strip())
        else:
            names.update(n.split(" as ")[0].strip() for n in plain.split(","))
    return names


def test_no_core_module_names_torch_or_the_harness_in_any_import():
    assert len(CORE) >= 10  # the core modules were found
    assert forbidden(imported_anywhere(ROOT / "roofline" / "harness" / "specloop.py"))  # the scan sees torch where it is
    for path in CORE:
        assert not forbidden(imported_anywhere(path)), path.name


def test_the_cli_imports_the_harness_only_inside_the_calibrate_and_validate_commands():
    cli = ROOT / "cli.py"
    assert not forbidden(imported_modules(cli, top_level_only=True))
    assert {"roofline.harness.calibrate", "roofline.harness.validate"} <= imported_modules(cli)


BLOCKED = """
import importlib, pkgutil, sys
sys.modules["torch"] = None  # any `import torch` now raises ImportError
import roofline
core = sorted(m.name for m in pkgutil.iter_modules(roofline.__path__) if m.name != "harness" and not m.name.startswith("_"))
for name in core:
    importlib.import_module(f"roofline.{name}")
import cli
leaked = sorted(m for m in sys.modules if m.startswith("roofline.harness"))
assert not leaked, leaked
import roofline.harness.calibrate, roofline.harness.runtime, roofline.harness.validate  # no torch needed to import
print(len(core), "core modules")
"""


@pytest.mark.slow  # a fresh interpreter importing numpy, pandas and matplotlib: over a second here
def test_the_core_and_the_cli_import_with_torch_blocked_and_pull_in_no_harness_module():
    result = subprocess.run([sys.executable, "-c", BLOCKED], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.split()[0]) >= 10
