"""Finding and reading YAML profiles: hardware, models and scenarios.

Search path, first match wins: folders given by the caller (the CLI's `--profiles DIR`), then the
folders in the `ROOFLINE_PATH` environment variable (separated by `:`), then the built-in folders
(`hardware_profiles/`, `model_profiles/`, `scenarios/` in a checkout, or their copies inside the
installed package). In a user folder, a file's top-level `type:` (hardware, model, scenario) says
what it is; without it the kind is told by its keys. YAML is read with `yaml.safe_load` only.
"""

from __future__ import annotations

import os
from pathlib import Path

import yaml

from roofline.errors import RooflineError, unknown_name_error

FOLDERS = {"hardware": "hardware_profiles", "model": "model_profiles", "scenario": "scenarios"}
_TELL_KEYS = {"hardware": "memory_bandwidth", "model": "layers", "scenario": "axes"}


def builtin_dir(kind: str) -> Path:
    """The built-in folder for `kind`: the checkout's top level, else the installed package data."""
    here = Path(__file__).resolve().parent
    for base in (here.parent, here / "_data"):
        folder = base / FOLDERS[kind]
        if folder.is_dir():
            return folder
    return here / "_data" / FOLDERS[kind]


def user_dirs(extra_dirs: tuple[str | Path, ...] = ()) -> list[Path]:
    """User folders in search order: explicit ones, then ROOFLINE_PATH."""
    env = [p for p in os.environ.get("ROOFLINE_PATH", "").split(os.pathsep) if p]
    return [Path(p) for p in (*extra_dirs, *env)]


def read_yaml(path: Path) -> dict:
    """Read one YAML mapping safely; a syntax error becomes one line with file and line number."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise RooflineError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise RooflineError(f"{path}: expected UTF-8 text, found bytes that are not") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise RooflineError(f"{path}:{line}: not valid YAML: {problem}") from None
    if not isinstance(data, dict):
        raise RooflineError(f"{path}: expected a YAML mapping at the top level, found {type(data).__name__}")
    return data


def _kind_of(data: dict) -> str | None:
    if data.get("type") in FOLDERS:
        return data["type"]
    for kind, key in _TELL_KEYS.items():
        if key in data:
            return kind
    return None


def profile_paths(kind: str, extra_dirs: tuple[str | Path, ...] = ()) -> dict[str, Path]:
    """Map name -> file for every profile of `kind` on the search path (earlier folders win)."""
    found: dict[str, Path] = {}
    for folder in user_dirs(extra_dirs):
        if not folder.is_dir():
            raise RooflineError(f"{folder}: profile folder does not exist")
        for path in sorted(folder.glob("*.y*ml")):
            if path.stem in found:
                continue
            try:
                data = yaml.safe_load(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, yaml.YAMLError):
                data = None  # reported when the file is actually asked for
            if data is None or (isinstance(data, dict) and _kind_of(data) == kind):
                found.setdefault(path.stem, path)
    for path in sorted(builtin_dir(kind).glob("*.yaml")):
        found.setdefault(path.stem, path)
    return found


def find_profile(kind: str, name: str, extra_dirs: tuple[str | Path, ...] = ()) -> Path:
    """The file for profile `name`; a path to an existing file is accepted as is."""
    candidate = Path(name)
    if candidate.suffix in (".yaml", ".yml") and candidate.is_file():
        return candidate
    paths = profile_paths(kind, extra_dirs)
    if name not in paths:
        raise unknown_name_error(kind, name, list(paths))
    return paths[name]


def list_names(kind: str, extra_dirs: tuple[str | Path, ...] = ()) -> list[str]:
    """Sorted names of all profiles of `kind` on the search path."""
    return sorted(profile_paths(kind, extra_dirs))
