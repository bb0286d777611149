"""Finding and reading YAML profiles: hardware, models and scenarios; names, aliases and dtypes.

Search path, first match wins:
  1. folders given by the caller (the CLI's `--profiles DIR`, repeatable, before or after the command),
  2. the folders in the `ROOFLINE_PATH` environment variable (separated by `:`),
  3. the user profile folder (`user_dir()`: `ROOFLINE_USER_DIR`, else `$XDG_CONFIG_HOME/roofline`,
     else `~/.config/roofline`; `%APPDATA%\\roofline` on Windows), where `roofline hw new` writes,
  4. the built-in folders (`hardware_profiles/`, `model_profiles/`, `scenarios/`).
A file earlier on the path shadows a built-in of the same name; `shadowed_paths` names what it hides.

In a user folder a file's top-level `type:` (hardware | model | scenario) says what it is. Without
it the kind is told by its keys (hardware: memory_bandwidth or peak_flops; model: layers or
hidden_size; scenario: axes, or hardware and model names); a file that matches none, or several,
cannot be told, and `problems()` reports it by name instead of hiding it. Built-in files are typed
by their folder. YAML is read with a bounded `yaml.safe_load` (roofline.yamlio).

Names are case-insensitive (`H100-SXM` is `h100-sxm`), and a few short aliases are documented in
`ALIASES` (`h100` is `h100-sxm`). Dtypes are normalised by `normalize_dtype` (`BF16`, `bfloat16`).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import os
import re
import sys
from pathlib import Path

from roofline.errors import RooflineError, UnknownName, UnreadableProfile, WrongKind, bare_name, unknown_name_error
from roofline.yamlio import read_yaml_file

PROFILE_SUFFIXES = (".yaml", ".yml")  # a profile file's: a reference ending in one is a path, not a name

FOLDERS = {"hardware": "hardware_profiles", "model": "model_profiles", "scenario": "scenarios", "engine": "engine_profiles"}
_TELL_KEYS = {
    "hardware": ({"memory_bandwidth"}, {"peak_flops"}),
    "model": ({"layers"}, {"hidden_size"}),
    "scenario": ({"axes"}, {"hardware", "model"}),
    "engine": ({"kernel_latency"}, {"kernels_per_layer"}, {"host_per_step"}),
}

# Short names people type, mapped to profile names (case-insensitive on the left).
ALIASES = {
    "hardware": {
        "h100": "h100-sxm", "h100-sxm5": "h100-sxm", "a100": "a100-sxm-80gb", "a100-80gb": "a100-sxm-80gb",
        "a100-40gb": "a100-pcie-40gb", "4090": "rtx-4090", "5090": "rtx-5090", "v5e": "tpu-v5e", "v6e": "tpu-v6e",
        "gaudi3": "gaudi-3", "m4-max": "apple-m4-max",
    },
    "model": {
        "llama3.1-8b": "llama-3.1-8b", "llama3.1-70b": "llama-3.1-70b",
        "deepseek-v3-671b": "deepseek-v3", "mixtral": "mixtral-8x7b",
    },
    # the engines as their projects spell them: vLLM's V1 engine is `vllm`, its V0 engine `vllm-v0`
    "engine": {"vllm-v1": "vllm", "tensorrt-llm": "trtllm", "trt-llm": "trtllm"},  # tensorrt_llm too: separators aside
    "scenario": {},
}

DTYPE_ALIASES = {
    "fp32": "fp32", "float32": "fp32", "float": "fp32", "f32": "fp32",
    "tf32": "tf32", "tensorfloat32": "tf32",
    "bf16": "bf16", "bfloat16": "bf16",
    "fp16": "fp16", "float16": "fp16", "half": "fp16", "f16": "fp16",
    "fp8": "fp8", "float8": "fp8", "e4m3": "fp8", "fp8_e4m3": "fp8", "float8_e4m3fn": "fp8",
    # MI300X's fp8 (torch.float8_e4m3fnuz: no negative zero, bias 8) and e5m2 (vLLM's --kv-cache-dtype fp8_e5m2): one byte
    "float8_e4m3fnuz": "fp8", "fp8_e4m3fnuz": "fp8", "e4m3fnuz": "fp8", "fp8_e5m2": "fp8", "float8_e5m2": "fp8", "e5m2": "fp8",
    "int8": "int8", "i8": "int8", "w8a8": "int8",
    "w8a16": "w8a16", "int8_weight_only": "w8a16", "int8wo": "w8a16",  # looked up with - read as _
    "int4": "int4", "i4": "int4", "w4a16": "int4",
    "fp4": "fp4", "mxfp4": "fp4", "float4": "fp4", "e2m1": "fp4",  # fp4 is MXFP4 as a weight dtype (one scale a 32)
    "nvfp4": "nvfp4",  # a weight dtype of its own (one scale a 16); as a peak's key, the fp4 tensor cores it runs on
}


def normalize_dtype(value: object, allowed: tuple[str, ...], where: str, field: str) -> str:
    """`value` as a canonical dtype name among `allowed` ("BF16", "bfloat16" -> "bf16"), else one-line error."""
    if isinstance(value, str):
        canonical = DTYPE_ALIASES.get(value.strip().lower().replace("-", "_"))
        if canonical == "nvfp4" and canonical not in allowed:  # a compute dtype (a peak's key): NVFP4 runs as fp4
            canonical = "fp4"
        if canonical in allowed:
            return canonical
    from roofline.errors import closest_names, field_error

    shown = value[:80] if isinstance(value, str) else value  # field_error shows any other on one line (qa218: a list
    # was 'list')
    # a spelling of no dtype (fp88) is offered the nearest allowed one; a dtype not allowed here (int4 KV) is not
    # bfloat is near bfloat16: bf16; a bit width is never guessed (qa94: fp6 -> fp16, int16 -> int8): a spelling is
    # offered only with the digits the value has (a doubled one once), or with any where it has none
    def bits(text: str) -> str:  # its digits, a doubled key collapsed (fp88 is fp8's)
        return re.sub(r"(\d)\1+", r"\1", re.sub(r"\D", "", text))

    digits = bits(value) if isinstance(value, str) else ""
    spellings = [k for k, v in DTYPE_ALIASES.items() if v in allowed and (not digits or bits(k) == digits)]
    close = closest_names(value, spellings, 1, 0.8) if isinstance(value, str) and canonical is None else []
    meant = f" (did you mean {DTYPE_ALIASES[close[0]]}?)" if close else ""
    raise field_error(where, field, f"one of {', '.join(allowed)}{meant}", shown)


@functools.lru_cache(maxsize=None)
def builtin_dir(kind: str) -> Path:
    """The built-in folder for `kind`: the checkout's top level, else the installed package data (found once: every
    profile lookup asks)."""
    here = Path(__file__).resolve().parent
    checkout = (here.parent / "pyproject.toml").is_file()  # else site-packages, where another package's folder may sit
    for base in ((here.parent,) if checkout else ()) + (here / "_data",):
        folder = base / FOLDERS[kind]
        if folder.is_dir():
            return folder
    return here / "_data" / FOLDERS[kind]


def user_dir() -> Path:
    """The user profile folder (may not exist yet): where `roofline hw new` writes by default."""
    if os.environ.get("ROOFLINE_USER_DIR"):
        return Path(os.environ["ROOFLINE_USER_DIR"])
    if sys.platform == "win32" and os.environ.get("APPDATA"):
        return Path(os.environ["APPDATA"]) / "roofline"
    base = os.environ.get("XDG_CONFIG_HOME") or str(home() / ".config")
    return Path(base) / "roofline"


def home() -> Path:
    """The user's home: HOME, or where HOME is set empty the account's own (qa394: `HOME= roofline hw new` wrote
    /.config/roofline, at the filesystem's root), as an unset HOME is read."""
    if os.environ.get("HOME") or sys.platform == "win32":
        return Path.home()
    import pwd

    return Path(pwd.getpwuid(os.getuid()).pw_dir)


def user_dirs(extra_dirs: tuple[str | Path, ...] = ()) -> list[Path]:
    """User folders in search order: explicit ones, then ROOFLINE_PATH, then the user folder if it exists."""
    env = [p for p in os.environ.get("ROOFLINE_PATH", "").split(os.pathsep) if p]
    folders = [Path(p) for p in (*extra_dirs, *env)]
    mine = user_dir()
    if mine.is_dir() and mine not in folders:
        folders.append(mine)
    return folders


def read_yaml(path: Path) -> dict:
    """Read one YAML mapping safely and within bounds; every problem is one line with the file."""
    data = read_yaml_file(Path(path))
    if not isinstance(data, dict):
        found = "an empty file" if data is None else type(data).__name__
        raise RooflineError(f"{path}: expected a YAML mapping at the top level, found {found}")
    return data


def kind_of(data: dict) -> tuple[str | None, str]:
    """(kind, reason): the `type:` if valid, else the kind its keys tell; (None, why) when they cannot."""
    if "type" in data:
        value = data["type"]
        if isinstance(value, str) and value.strip().lower() in FOLDERS:
            return value.strip().lower(), ""
        shown = "null" if value is None else repr(str(value)[:40])  # YAML's `~` or empty value (qa279: 'None')
        return None, f"type: expected one of {', '.join(FOLDERS)}, found {shown}"
    matches = [kind for kind, key_sets in _TELL_KEYS.items() if any(keys <= data.keys() for keys in key_sets)]
    if len(matches) == 1:
        return matches[0], ""
    if not matches:
        return None, "no `type:` and none of the keys that tell a kind (memory_bandwidth, layers, kernel_latency, axes)"
    return None, f"no `type:` and keys of several kinds ({', '.join(matches)})"


UNREADABLE = "cannot be read: "  # a user file's reason when it is not valid YAML (adding `type:` would not help)


def _scan(folder: Path) -> list[tuple[str, Path, str | None, str]]:
    """(stem, path, kind or None, reason) for every YAML file in a user folder."""
    found = []
    for path in sorted(folder.glob("*.y*ml")):
        if path.suffix not in PROFILE_SUFFIXES:
            continue
        try:
            data = read_yaml(path)
        except RooflineError as exc:
            found.append((path.stem, path, None, UNREADABLE + str(exc).removeprefix(f"{path}: ").removeprefix(f"{path}:").strip()))
            continue
        kind, reason = kind_of(data)
        found.append((path.stem, path, kind, reason))
    return found


def _candidates(kind: str, extra_dirs: tuple[str | Path, ...]) -> tuple[list[tuple[str, Path]], list[tuple[str, Path, str]]]:
    """All (stem, path) of `kind` in search order (duplicate names kept, each file once: a folder named twice, or the
    built-in folder named with --profiles, is one set of files), and (stem, path, reason) of untold files."""
    ordered: list[tuple[str, Path]] = []
    untold: list[tuple[str, Path, str]] = []
    given = {Path(d) for d in extra_dirs}
    for folder in user_dirs(extra_dirs):
        if not folder.is_dir():
            where = "profiles" if folder in given else "ROOFLINE_PATH"  # --profiles on the command line, profiles= in the API
            raise RooflineError(f"{where}: {folder}: expected a folder of profiles, found {'a file' if folder.exists() else 'no such file or folder'}")
        for stem, path, file_kind, reason in _scan(folder):
            if file_kind == kind:
                ordered.append((stem, path))
            elif file_kind is None:
                untold.append((stem, path, reason))
    if not ordered:  # the built-in folder alone: each file once already
        return [(path.stem, path) for path in _builtin_files(kind)], untold
    ordered.extend((path.stem, path) for path in _builtin_files(kind))
    seen: set[tuple[str, Path]] = set()
    unique = []
    for stem, path in ordered:  # the same file under the same name twice (a link under another name is another name)
        key = (stem.lower(), path.resolve())
        if key not in seen:
            seen.add(key)
            unique.append((stem, path))
    return unique, untold


_LISTED: dict = {}


def _builtin_files(kind: str) -> list[Path]:
    """The built-in folder's YAML files, sorted; listed again only when the folder changes (its modification time),
    since every profile lookup walks the search path."""
    folder = builtin_dir(kind)
    try:
        key = (str(folder), folder.stat().st_mtime_ns)
    except OSError:
        return []
    if key not in _LISTED:
        _LISTED[key] = sorted(folder.glob("*.yaml"))
    return list(_LISTED[key])


def profile_paths(kind: str, extra_dirs: tuple[str | Path, ...] = (), candidates=None, skip=None) -> dict[str, Path]:
    """Map name -> file for every profile of `kind` on the search path (earlier folders win); `candidates`: the
    search path's files as _candidates found them, where the caller has them already; `skip`: a test of a file's
    path that leaves it out (the search path as it will be once a file is removed: editing.remove_profile)."""
    found: dict[str, Path] = {}
    lowered: set[str] = set()
    for stem, path in (candidates or _candidates(kind, extra_dirs))[0]:
        if skip is not None and skip(path):
            continue
        if stem.lower() not in lowered:
            lowered.add(stem.lower())
            found[stem] = path
    return found


def builtin_folder_of(path: Path) -> Path | None:
    """The built-in profile folder `path` is, or lies inside (a file there becomes a built-in profile); else None."""
    resolved = Path(path).resolve()
    for kind in FOLDERS:
        folder = builtin_dir(kind).resolve()
        if resolved == folder or folder in resolved.parents:
            return folder
    return None


def builtin_shadowed(kind: str, path: Path, stem: str | None = None) -> str:
    """What a new profile file `path` would shadow where its folder is on the search path: 'the built-in FILE' when its
    stem (or `stem`, the name a file given by path carries) names one (or is one's short name, ALIASES) and `path` is
    not that file (a link to it is), else ''."""
    stem = Path(path).stem if stem is None else stem
    builtin = next((f for f in _builtin_files(kind) if f.stem.lower() == stem.lower()), None)  # .yaml or .yml
    if builtin is not None and builtin.resolve() != Path(path).resolve():
        return f"the built-in {builtin}"
    if builtin is not None:
        return ""
    alias = alias_of(kind, stem)  # `hw new h100` takes over the README's `--hardware h100`; h100_sxm5 (separators
    if alias is not None and alias.lower() != stem.lower():  # aside, as names are looked up) took over h100-sxm5
        # (qa98); a built-in whose own name is an alias's, separators aside (llama-3.1-8b, llama3.1-8b), is itself
        return f"the built-in {alias} (its alias)"
    return ""


def check_not_shadowing(kind: str, path: Path, force: bool, what: str) -> None:
    """Refuse to write a new profile that would take a built-in's name without `force`: every later use of that name
    (`--hardware h100`, a scenario's model) would mean the new file wherever its folder is on the search path."""
    hidden = builtin_shadowed(kind, path)
    if hidden and not force:
        raise RooflineError(f"{what}: {path.stem} is the name of {hidden}: where {path.parent} is on the search path, "
                            f"{path.stem} would mean the new file instead, in every later command; choose another name, "
                            "or pass --force to shadow it")


def shadow_note(kind: str, name: object, extra_dirs: tuple[str | Path, ...] = ()) -> str:
    """'model llama-3.1-8b is FILE, which shadows the built-in FILE' where profile name `name` resolves to a user file
    that takes a built-in's name or short name (builtin_shadowed); for a path, 'hardware FILE is named h100-sxm, as the
    built-in FILE is: ...' where the file's own `name:`, which labels every output, is a built-in's (qa108: rows read
    h100-sxm at twice its bandwidth); '' else (a spec object, a built-in, nothing hidden)."""
    if not isinstance(name, str):
        return ""
    if is_profile_path(name):
        try:
            inner = read_yaml(Path(name)).get("name")
        except (RooflineError, OSError):  # the loader said it already
            return ""
        hidden = builtin_shadowed(kind, Path(name), inner) if isinstance(inner, str) and inner else ""
        return (f"{kind} {name} is named {inner}, as {hidden} is: every output labels it {inner} (give it a name of its "
                "own to tell them apart)") if hidden else ""
    path = find_profile(kind, name, extra_dirs)
    builtin = builtin_shadowed(kind, path)
    if not builtin:
        return ""
    others = [str(p) for p in shadowed_paths(kind, name, extra_dirs)  # a user folder's copy a profiles= copy hides too
              if p.resolve() != path.resolve() and builtin_folder_of(p) is None]  # (qa440: only the built-in was named)
    return f"{kind} {name} is {path}, which shadows " + " and ".join([*others, builtin])


def costs_shadow_note(engine_name: str, costs_from: str | None) -> str:
    """'engine vllm-v0 takes its costs from FILE, which shadows the built-in FILE' where an engine profile's costs_from
    resolved to a user file standing in for a built-in (a fitted vllm.yaml changes vllm-v0 too); '' else."""
    if not costs_from:
        return ""
    hidden = builtin_shadowed("engine", Path(costs_from))
    return f"engine {engine_name} takes its costs from {costs_from}, which shadows {hidden}" if hidden else ""


def shadowed_paths(kind: str, name: str, extra_dirs: tuple[str | Path, ...] = ()) -> list[Path]:
    """Files of `kind` named `name` that the one in use hides (later on the search path), and the built-in whose short
    name the one in use took (qa406: `hw new h100 --from h200`, then `hw show h100` named no `shadows:`)."""
    target = resolve_name(kind, name, extra_dirs)
    same = [path for stem, path in _candidates(kind, extra_dirs)[0] if stem.lower() == target.lower()]
    alias = alias_of(kind, same[0].stem) if same else None
    if alias is not None and alias.lower() != same[0].stem.lower():  # the file the short name would mean without it: a
        same += [path for stem, path in _candidates(kind, extra_dirs)[0]  # user file of the built-in's name, else the
                 if stem.lower() == alias.lower() and path.resolve() != same[0].resolve()][:1]  # built-in (qa409)
    return same[1:]


def problems(kind: str | None = None, extra_dirs: tuple[str | Path, ...] = ()) -> list[str]:
    """One line per user file whose kind cannot be told, that cannot be read, or that a file of the same name beside
    it hides (dupe.yml beside dupe.yaml was passed over in silence; qa98)."""
    kinds = [kind] if kind else list(FOLDERS)
    seen: dict[Path, str] = {}
    for k in kinds:
        found, untold = _candidates(k, extra_dirs)
        for _, path, reason in untold:
            seen[path] = (f"{path}: {reason}" if reason.startswith(UNREADABLE) else
                          f"{path}: kind cannot be told ({reason}); add `type: hardware`, `type: model`, `type: engine` or `type: scenario`")
        first: dict[tuple[Path, str], Path] = {}
        for stem, path in found:
            other = first.setdefault((path.parent.resolve(), stem.lower()), path)
            if other != path:
                seen[path] = f"{path}: hidden by {other.name} beside it (one name, two files): remove or rename one"
    return list(seen.values())


# a spec's words: where it came from and how it is shown; no number of any prediction depends on them
PROSE_FIELDS = frozenset({"display_name", "source", "notes", "path", "version"})


def differing_fields(a, b) -> list[str]:
    """The fields of two spec objects of one type (hardware, model, engine) whose values differ, in field order: those a
    prediction reads, its prose (PROSE_FIELDS) and a for_hardware engine's `general` aside; fields that == leaves out
    (compare=False) are compared, as they hold numbers too (compute_efficiency_by_dtype). Two specs with none are the
    same profile to every output (a copy with notes of its own is not 'another device of that name': qa110)."""
    return [f.name for f in dataclasses.fields(a) if f.name not in PROSE_FIELDS and f.name != "general"
            and getattr(a, f.name) != getattr(b, f.name)]


def check_profile_name(name: object, what: str = "name") -> str:
    """A name for a new profile file NAME.yaml (hw new, models new, engines new, models import, calibrate --out): lower-case ASCII
    letters, digits, '.', '_' or '-', starting with a letter or digit, at most 80 characters, not itself ending in .yaml
    (docs/PROFILES.md: names are lower case; lookups are case-insensitive)."""
    if isinstance(name, str) and len(name) > 80:
        raise RooflineError(f"{what}: expected a name of at most 80 characters, found one of {len(name)} ({name[:40]!r}...)")
    ok = (isinstance(name, str) and 0 < len(name) <= 80 and name.isascii() and name[0].isalnum()
          and all(c.isalnum() or c in "._-" for c in name) and not name.lower().endswith(PROFILE_SUFFIXES))
    if not ok:
        raise RooflineError(f"{what}: expected ASCII letters, digits, '.', '_' or '-', starting with a letter or digit (like h20; no .yaml), "
                           f"found {str(name)[:80]!r}")
    if name != name.lower():
        raise RooflineError(f"{what}: expected a lower-case name (profile names are lower case: {name.lower()}), found {name!r}")
    return name


def alias_of(kind: str, name: str) -> str | None:
    """The profile a documented alias of `kind` stands for (ALIASES), case and separators aside (trt_llm as trt-llm;
    qa94), or None."""
    bare = {bare_name(k): v for k, v in ALIASES.get(kind, {}).items()}
    return bare.get(bare_name(name))


def resolve_name(kind: str, name: str, extra_dirs: tuple[str | Path, ...] = (), paths: dict | None = None) -> str:
    """The profile name `name` stands for: exact, else case-insensitive, else a documented alias (`paths`: the
    search path's profiles, where the caller has them already)."""
    paths = profile_paths(kind, extra_dirs) if paths is None else paths
    if name in paths:
        return name
    by_lower = {stem.lower(): stem for stem in paths}
    key = name.strip().lower()
    if key in by_lower:
        return by_lower[key]
    alias = alias_of(kind, key)
    if alias is not None and alias in paths:
        return alias
    return name


def a_kind(kind: str) -> str:
    """'a hardware', 'an engine': a profile kind with its article (every message that names one)."""
    return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind}"


def _check_kind_of_file(kind: str, path: Path) -> None:
    """A profile given by path that is plainly of another kind (its `type:` or its keys) is said to be, before its
    fields are read as `kind`'s ('published_params: expected a known field' for a model given as hardware)."""
    try:
        data = read_yaml(path)
    except RooflineError:
        return  # the loader says what is wrong with it
    if isinstance(data, dict):
        other, _ = kind_of(data)
        if other is not None and other != kind:
            raise WrongKind(f"{path}: expected {a_kind(kind)} profile, found {a_kind(other)} profile (by its type: or keys)")


def is_profile_path(value: object) -> bool:
    """Whether a profile reference names a file rather than a profile: a string whose path ends in .yaml or .yml (in any
    case, qa203: an existing `fit.YAML` given to --engine read as an unknown name; `x.yaml/` too), as find_profile tells a
    path from a name and as every caller given a reference string asks (code holding a Path checks its suffix against
    PROFILE_SUFFIXES)."""
    return isinstance(value, str) and Path(value).suffix.lower() in PROFILE_SUFFIXES


_RECORDED: contextvars.ContextVar[dict | None] = contextvars.ContextVar("recorded_profile_files", default=None)


@contextlib.contextmanager
def recorded_files(profile_files: dict | None):
    """Within: a profile name finds the file a sweep read it from, as its scenario.json's `profile_files` records it
    ({kind: {name: absolute path}}), where that file is still there and the search path holds only a built-in of that
    name, or none: `cheapest` prices a table with a profile its scenario named by path (qa205: the point computed
    between swept batches was another model's, this one 'unknown'), one of a built-in's name too (qa209: the built-in
    priced it); a user's file of the name on the search path still wins, so an edited price there is said (qa211)."""
    files = ({kind: {name: path for name, path in names.items() if isinstance(path, str)}
              for kind, names in profile_files.items() if isinstance(names, dict)}
             if isinstance(profile_files, dict) else {})  # a hand-edited scenario.json's list: nothing (qa209)
    token = _RECORDED.set(files)
    try:
        yield
    finally:
        _RECORDED.reset(token)


def command_name(kind: str, where: str | Path) -> str:
    """How a command names the profile file `where`: its name where the search path finds this file by it, else its
    path, quoted for a shell (qa422: `hw set` on a file of a `--dir` folder off the search path suggested `hw edit NAME`,
    which found none; qa427: predict's 'roofline engines show NAME' of an engine read from a path)."""
    import shlex

    path = Path(where)
    try:
        found = find_profile(kind, path.stem)
    except RooflineError:
        found = None
    return path.stem if found is not None and os.path.realpath(found) == os.path.realpath(path) else shlex.quote(str(path))


def find_profile(kind: str, name: str, extra_dirs: tuple[str | Path, ...] = ()) -> Path:
    """The file for profile `name`; a path to an existing file is accepted as is.

    An unknown name that matches a user file whose kind cannot be told (or of another kind) is
    reported with that file, instead of as merely unknown.
    """
    if not isinstance(name, str) or not name.strip():
        raise RooflineError(f"{kind} name: expected a non-empty name, found {name!r}")
    candidate = Path(name)
    if (is_profile_path(name) or "/" in name or os.sep in name) and candidate.is_dir():  # a path to a folder: said so
        raise UnknownName(f"{name}: expected a {kind} profile file, found a folder")  # (qa279: 'not found'; qa288: '/tmp'
    if is_profile_path(name):  # an unknown name, closest tpu-v5e)
        if candidate.is_file():
            _check_kind_of_file(kind, candidate)
            return candidate
        if candidate.exists() and not candidate.is_dir():  # a device or a FIFO: said so, not 'not found' (qa114)
            from roofline.yamlio import check_regular_file

            check_regular_file(candidate)
        if os.sep in name or "/" in name:  # UnknownName: a scenario names its own file and key in front
            raise UnknownName(f"{name}: {kind} file not found (a path is read from the working directory, or in a "
                              "scenario from the scenario file's folder first)")
    recorded = (_RECORDED.get() or {}).get(kind, {}).get(name.strip())  # a sweep's own file for it (recorded_files)
    recorded = Path(recorded) if recorded and Path(recorded).is_file() else None
    candidates = _candidates(kind, extra_dirs)  # the search path scanned once for the three questions below
    paths = profile_paths(kind, extra_dirs, candidates)
    resolved = resolve_name(kind, name, extra_dirs, paths)
    untold = candidates[1]
    for stem, path, reason in untold:  # a user file of this name that cannot be told: never hide it
        if stem.lower() in (name.strip().lower(), resolved.lower()):
            why = f"it {reason}" if reason.startswith(UNREADABLE) else f"its kind cannot be told: {reason}"
            raise UnreadableProfile(f"{path}: this file would be {kind} {name!r}, but {why}", path)
    if resolved in paths and (recorded is None or paths[resolved].parent.resolve() != builtin_dir(kind).resolve()):
        return paths[resolved]  # a user's file of the name wins (qa211: an edited price passed with --profiles)
    if recorded is not None:  # the sweep's file where only a built-in, or nothing, has the name on the search path
        _check_kind_of_file(kind, recorded)
        return recorded
    if resolved in paths:
        return paths[resolved]
    others = {o: _candidates(o, extra_dirs)[0] for o in FOLDERS if o != kind}  # the other kinds' files, walked once
    for other, files in others.items():
        for stem, path in files:
            if stem.lower() == name.strip().lower() and path.parent != builtin_dir(other):
                raise RooflineError(f"{path}: is {'an' if other[0] in 'aeiou' else 'a'} {other} profile (by its type: or keys), not {kind}; "
                                    f"set `type: {kind}` if it is meant as one")
    if is_profile_path(name):  # a file's name, no file of it here (qa385: said as an unknown profile, closest apple-m4-max)
        stem = Path(name.strip()).stem
        named = resolve_name(kind, stem, extra_dirs, paths) if stem else ""
        raise UnknownName(f"{name}: {kind} file not found (a path is read from the working directory, {Path.cwd()}, or in a "
                          "scenario from the scenario file's folder first)"
                          + (f"; the {kind} profile {named!r} is named without .yaml" if named in paths else ""))
    error = unknown_name_error(kind, name, list(paths))
    other = next((o for o, files in others.items() if any(stem.lower() == name.strip().lower() and path.parent == builtin_dir(o)
                                                          for stem, path in files)), None)
    if other is not None:  # a built-in of another kind (qa476: `--hardware llama-3.1-8b` was offered a100-sxm-80gb alone)
        raise UnknownName(f"{error}; {name.strip()} is a built-in {other} profile, not {'an' if kind[0] in 'aeiou' else 'a'} "
                          f"{kind} profile")
    raise error


def list_names(kind: str, extra_dirs: tuple[str | Path, ...] = ()) -> list[str]:
    """Sorted names of all profiles of `kind` on the search path."""
    return sorted(profile_paths(kind, extra_dirs))
