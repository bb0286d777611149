"""Reading YAML and JSON input within bounds, and writing files atomically.

Reading keeps `yaml.safe_load` semantics (plain data only: mappings, lists, strings, numbers,
booleans, null, dates) with limits that make every input cheap to read and to report on:

    file size        <= MAX_FILE_BYTES                (checked before reading)
    nesting depth    <= MAX_DEPTH                     (mappings and lists inside each other)
    aliases          <= MAX_ALIASES, and the document with every alias expanded <= MAX_EXPANDED_NODES
    keys             strings, each at most once per mapping (YAML itself keeps the last silently)

An alias bomb (`b: [*a, *a, ...]` nested ten deep) is small on disk but explodes as soon as
anything walks it, printing an error message included; the expanded-size bound refuses it first.
LibYAML parses when PyYAML has it (as its wheels do), the pure-Python parser otherwise; both apply
the same bounds and give the same values.

Writing: `write_text_atomic` writes a temporary file next to the target and renames it into place,
so a reader sees the old file or the new one, never half of one; an existing file is replaced only
with `force`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

import yaml

from roofline.errors import FIELD_LINES, RooflineError

MAX_FILE_BYTES = 1_000_000
MAX_DEPTH = 32
MAX_ALIASES = 64
MAX_EXPANDED_NODES = 100_000


class _StrictKeys:
    """Constructor part shared by both loaders: keys are strings, each at most once per mapping."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                if not isinstance(key, str):  # `on:` reads as True: name the key as written
                    written = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key)
                    raise yaml.constructor.ConstructorError(
                        None, None, f"key {written} is read as {key!r}, not a string (quote it: '{written}')"[:200],
                        key_node.start_mark)
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicated key {key!r} (first at line {seen[key] + 1})", key_node.start_mark)
                seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


class _BoundedSafeLoader(_StrictKeys, yaml.SafeLoader):
    """Pure-Python SafeLoader that refuses deep nesting and alias bombs while it composes (used without LibYAML)."""

    def __init__(self, stream):
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                mark = self.peek_event().start_mark
                raise yaml.composer.ComposerError(None, None, f"more than {MAX_ALIASES} aliases (*name)", mark)
            return super().compose_node(parent, index)
        if self.check_event(yaml.ScalarEvent):  # a scalar is no level, as _check_events counts them (qa452: 31 lists
            return super().compose_node(parent, index)  # holding a scalar refused here, read under LibYAML)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise yaml.composer.ComposerError(None, None, f"nesting deeper than {MAX_DEPTH} levels", mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


_CSafeLoader = getattr(yaml, "CSafeLoader", None)
if _CSafeLoader is not None:
    class _FastSafeLoader(_StrictKeys, _CSafeLoader):
        """LibYAML's parser and composer (about 10x faster than the pure-Python ones), keys checked as above.

        Its composer recurses in C (a 200,000-deep list crashes the process), so `_check_events` bounds
        the nesting and the aliases on the event stream first, which LibYAML produces without recursion.
        """


# YAML 1.2's floats without a dot (1e3, 5e-1, as ruamel writes and reads them; YAML 1.1, PyYAML's, reads them as text):
# a value `hw set` wrote must read back as the number it was
_EXPONENT_FLOAT = re.compile(r"^[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)[eE][-+]?[0-9]+$")
# Numbers YAML 1.1 (PyYAML's) and YAML 1.2 (ruamel's, an editor's schema) read differently: 010 is 8 or 10, 1:12 is 72
# or text, 1_000 and 0b11 are numbers or text; a profile means one of them, so the reader says which it cannot tell
_AMBIGUOUS_NUMBER = re.compile(r"^[-+]?(?:0[0-9_]+(?:\.[0-9_]*)?|0b[01_]+|[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?|[0-9.]*_[0-9._]*)$")


def comment_line(text: object) -> str:
    """`text` kept on one line of a YAML comment: the line breaks YAML knows (\\r, \\n, U+0085, U+2028, U+2029) written
    escaped (qa182: a display name's newline made the rest of the header a key; qa183; qa246: `models import`)."""
    return re.sub("[\r\n\x85\u2028\u2029]", lambda m: m.group().encode("unicode_escape").decode(), str(text))


def _unambiguous_number(kind: str):
    """The safe constructor of `kind` (int, float) refusing a scalar _AMBIGUOUS_NUMBER matches, at its line."""
    def construct(loader, node):
        if _AMBIGUOUS_NUMBER.match(node.value):
            raise yaml.constructor.ConstructorError(
                None, None, f"{node.value} reads differently in YAML 1.1 (010 is 8, 1:12 is 72) and YAML 1.2 (10, text): "
                "write it as a plain decimal, or quote it for text", node.start_mark)
        return getattr(yaml.constructor.SafeConstructor, f"construct_yaml_{kind}")(loader, node)
    return construct


# Booleans only YAML 1.1 has: yes / no / on / off are true / false to PyYAML and text to YAML 1.2 (qa108: `ffn_gated: yes`)
_YAML11_BOOL = re.compile(r"^(?:yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF)$")


def _construct_bool(loader, node):
    """The safe bool constructor refusing a YAML-1.1-only boolean (_YAML11_BOOL), at its line."""
    if _YAML11_BOOL.match(node.value):
        raise yaml.constructor.ConstructorError(
            None, None, f"{node.value} is a boolean in YAML 1.1 and text in YAML 1.2: quote it for text ('{node.value}'), or "
            "write true or false", node.start_mark)
    return yaml.constructor.SafeConstructor.construct_yaml_bool(loader, node)


for _loader in (_BoundedSafeLoader, *([_FastSafeLoader] if _CSafeLoader is not None else [])):
    _loader.add_implicit_resolver("tag:yaml.org,2002:float", _EXPONENT_FLOAT, list("-+0123456789."))
    _loader.add_constructor("tag:yaml.org,2002:int", _unambiguous_number("int"))
    _loader.add_constructor("tag:yaml.org,2002:float", _unambiguous_number("float"))
    _loader.add_constructor("tag:yaml.org,2002:bool", _construct_bool)


def _check_events(text: str) -> None:
    """Refuse nesting deeper than MAX_DEPTH and more than MAX_ALIASES aliases, reading LibYAML's flat event stream
    (lazily: a refused document is read only up to its first level too deep)."""
    depth = aliases = 0
    starts = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
    ends = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
    try:
        for event in yaml.parse(text, Loader=_CSafeLoader):
            if isinstance(event, starts):
                depth += 1
                if depth > MAX_DEPTH:
                    raise yaml.composer.ComposerError(None, None, f"nesting deeper than {MAX_DEPTH} levels", event.start_mark)
            elif isinstance(event, ends):
                depth -= 1
            elif isinstance(event, yaml.AliasEvent):
                aliases += 1
                if aliases > MAX_ALIASES:
                    raise yaml.composer.ComposerError(None, None, f"more than {MAX_ALIASES} aliases (*name)", event.start_mark)
    except yaml.composer.ComposerError:
        raise
    except yaml.YAMLError as exc:  # LibYAML 0.2.5+ stops at 1,000 levels itself, far beyond MAX_DEPTH: said as above
        if "nesting depth" not in str(getattr(exc, "problem", "") or ""):
            raise
        raise yaml.composer.ComposerError(None, None, f"nesting deeper than {MAX_DEPTH} levels", exc.problem_mark) from None


class _Recursive(Exception):
    """A node that contains itself through an alias (`&n [*n]`)."""


def _expanded_nodes(node, memo: dict) -> int:
    """Nodes of the document with every alias expanded (memoised per node, so linear in the file); a node met again
    while it is still being counted contains itself: _Recursive (no profile value is infinite)."""
    key = id(node)
    if key in memo:
        if memo[key] is None:
            raise _Recursive
        return memo[key]
    memo[key] = None  # being counted
    total = 1
    if isinstance(node, yaml.SequenceNode):
        total += sum(_expanded_nodes(child, memo) for child in node.value)
    elif isinstance(node, yaml.MappingNode):
        total += sum(_expanded_nodes(k, memo) + _expanded_nodes(v, memo) for k, v in node.value)
    total = min(total, MAX_EXPANDED_NODES + 1)
    memo[key] = total
    return total


# the parser's contexts whose start is where the mistake is (PyYAML's and LibYAML's wording alike)
STARTS_THE_MISTAKE = ("while scanning a quoted scalar", "while scanning a simple key", "while parsing a flow")


def _yaml_problem(exc: yaml.YAMLError, text: str) -> str:
    """' line N: not valid YAML: problem'; N is at most the text's last line (LibYAML puts the end of input one past it).
    Where the parser names a construct that began on an earlier line and is the mistake (an unclosed quote, bracket
    or brace, a key without its colon: STARTS_THE_MISTAKE), N is that line and the problem's line follows (qa182: an
    unclosed quote on line 5 was said at line 34, where the parser gave up); not a block mapping or sequence, which
    begins at the file's first key whatever is wrong inside it (qa183)."""
    mark = getattr(exc, "problem_mark", None)
    last_line = max(1, len(text.splitlines()))
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    if mark is not None and 0 <= mark.index < len(text) and text[mark.index] == "\t":  # LibYAML: "cannot start any token"
        return f" line {mark.line + 1}, column {mark.column + 1}: not valid YAML: expected spaces (YAML indents with spaces), found a tab"
    if mark is None:
        return f" not valid YAML: {problem}"
    line = min(mark.line + 1, last_line)
    context, start = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context and start is not None and start.line + 1 < line and context.startswith(STARTS_THE_MISTAKE):
        return f" line {start.line + 1}: not valid YAML: {problem} at line {line} ({context} started on line {start.line + 1})"
    return f" line {line}: not valid YAML: {problem}"


def load_yaml_text(text: str, where: str, lines: bool = False):
    """Parse YAML text within the bounds above; any problem is one RooflineError naming `where`. `lines`: the text is
    the file `where` as it is on disk, whose fields' lines field_error may then name (errors.FIELD_LINES); text not
    on disk (an edit not yet saved, a profile about to be written) names none."""
    if len(text) > MAX_FILE_BYTES:
        raise RooflineError(f"{where}: expected at most {MAX_FILE_BYTES:,} characters of YAML, found {len(text):,}")
    try:
        yaml.reader.Reader(text)  # checks every character up front (NUL, other control characters)
        if _CSafeLoader is not None:
            _check_events(text)
            loader = _FastSafeLoader(text)
        else:
            loader = _BoundedSafeLoader(text)
    except yaml.YAMLError as exc:
        raise RooflineError(f"{where}:{_yaml_problem(exc, text)}") from None
    except RecursionError:
        raise RooflineError(f"{where}: not valid here: nested too deeply") from None
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        try:
            expanded = _expanded_nodes(node, {})
        except _Recursive:
            raise RooflineError(f"{where}: not valid here: an alias inside the value it names (a value that contains "
                                "itself)") from None
        if expanded > MAX_EXPANDED_NODES:
            raise RooflineError(f"{where}: not valid here: more than {MAX_EXPANDED_NODES:,} values once aliases are expanded")
        data = loader.construct_document(node)
        if lines:
            _record_lines(where, node)
        else:  # text that is not the file on disk: an earlier read's lines would name the wrong text
            FIELD_LINES.pop(where, None)
        return data
    except yaml.YAMLError as exc:
        raise RooflineError(f"{where}:{_yaml_problem(exc, text)}") from None
    except RecursionError:
        raise RooflineError(f"{where}: not valid here: nested too deeply") from None
    except ValueError as exc:  # an integer of more than 4,300 digits (Python's limit on int(str))
        if "integer string conversion" not in str(exc):
            raise
        raise RooflineError(f"{where}: not valid here: an integer of more than 4,300 digits") from None
    finally:
        loader.dispose()


def _record_lines(where: str, root) -> None:
    """errors.FIELD_LINES[where]: the line of every key of the document (dotted; list items as [i]), for field_error."""
    from collections import deque

    lines: dict[str, int] = {}
    todo = deque([("", root)])  # in the document's order: an anchored node is first met where it is written (qa452)
    seen: set[int] = set()
    while todo:
        prefix, node = todo.popleft()
        if id(node) in seen:  # a node an alias names again: its fields keep the lines where it is written, said under
            continue  # the path that writes it; the alias's path falls back to the alias's own key
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    name = f"{prefix}.{key_node.value}" if prefix else key_node.value
                    lines.setdefault(name, key_node.start_mark.line + 1)
                    todo.append((name, value_node))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                name = f"{prefix}[{i}]"
                lines.setdefault(name, item.start_mark.line + 1)
                todo.append((name, item))
    if len(FIELD_LINES) > 512:
        FIELD_LINES.clear()
    FIELD_LINES[where] = lines


def check_regular_file(path: Path) -> None:
    """Refuse a path that is not a regular file (a device such as /dev/zero, a FIFO, a socket; links followed): its size
    reads 0, so a size check passes it, and reading it would run until memory ran out or block for ever (qa114)."""
    import stat

    mode = Path(path).stat().st_mode  # OSError for a missing one: the caller's 'cannot read'
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        kind = "a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" \
            if stat.S_ISSOCK(mode) else "not a regular file"
        raise RooflineError(f"{path}: expected a regular file, found {kind}")


def read_text(path: Path, limit_bytes: int = MAX_FILE_BYTES) -> str:
    """A UTF-8 text file of at most `limit_bytes`, or one RooflineError naming it."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if path.is_dir():
            raise RooflineError(f"{path}: expected a file, found a folder")
        check_regular_file(path)
        if size > limit_bytes:
            raise RooflineError(f"{path}: expected at most {limit_bytes:,} bytes, found {size:,}")
        raw = path.read_bytes()
    except OSError as exc:
        raise RooflineError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RooflineError(f"{path}: expected UTF-8 text, found bytes that are not (at byte {exc.start})") from None


_PARSED: dict = {}


def _copied(value):
    """A copy of safely loaded YAML: new mappings, lists and sets all the way down; the leaves (str, numbers, bool,
    None, dates, bytes) are immutable and shared. 2.4x faster than copy.deepcopy on vllm.yaml (30 against 73 us), which `fit` and
    the tests copy thousands of times."""
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copied(v) for v in value]
    if isinstance(value, set):
        return set(value)
    return value


def read_yaml_file(path: Path):
    """Any YAML document from a file (None for an empty one), within the bounds above.

    Parsed documents are kept per (path, text), and a copy is returned: sweeps, fits and tests load
    the same few files many times (about 0.5 ms a profile with LibYAML, 5 ms without; reading the
    text again is microseconds). An edited file is parsed again (qa311: keyed on modification time
    and size, `hw set price=2.0` over `price=1.0` within one clock tick kept the old price in-process).
    """
    text = read_text(path)
    key = (str(Path(path).resolve()), hashlib.sha1(text.encode("utf-8")).hexdigest())
    if key in _PARSED:
        return _copied(_PARSED[key])
    data = load_yaml_text(text, str(path), lines=True)
    if len(_PARSED) > 512:
        _PARSED.clear()
    _PARSED[key] = _copied(data)
    return data


def keys_once(pairs: list) -> dict:
    """json's object_pairs_hook refusing a key given twice (json keeps the last in silence: hidden_size 4096, then 8192;
    qa279: a benchmark's second mean_tpot_ms) with a ValueError naming it."""
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"key {key!r} given twice in one object")
        seen.add(key)
    return dict(pairs)


def json_found(exc: json.JSONDecodeError, end: str = "the end of the text") -> str:
    """What stands where a JSON parse failed, as an error's 'found' part: up to 20 characters of the line from the
    failing column, or the end of the line or of `exc.doc` (said as `end`: a JSON-lines file parses a line alone) ("a
    stray '}'" is clearer than a column number alone)."""
    rest = exc.doc[exc.pos:].split("\n", 1)[0].rstrip("\r")
    if not rest.strip():
        return f"found {end}" if not exc.doc[exc.pos:].strip() else "found the end of the line"
    return f"found {rest[:20]!r}" + (" ..." if len(rest) > 20 else "")


def read_json_file(path: Path, limit_bytes: int = 4 * MAX_FILE_BYTES):
    """A JSON document from a file: bounded size, no NaN/Infinity, bounded nesting."""
    text = read_text(path, limit_bytes)

    def _no_constant(name):
        raise ValueError(f"{name} is not a JSON number")

    try:
        data = json.loads(text, parse_constant=_no_constant, object_pairs_hook=keys_once)
    except json.JSONDecodeError as exc:
        raise RooflineError(f"{path}: line {exc.lineno}: not valid JSON: {exc.msg} (column {exc.colno}), "
                            f"{json_found(exc)}") from None
    except ValueError as exc:
        raise RooflineError(f"{path}: not valid JSON: {exc}") from None
    except RecursionError:
        raise RooflineError(f"{path}: not valid here: JSON nested too deeply") from None
    return data


def check_file_target(path: Path, force: bool = False, what: str = "--out") -> None:
    """Refuse a file target that is a folder, or an existing file without `force` (before any work is done for it), or
    a link that leads to no file (dangling or in a loop: qa246, replaced by a plain file, the link lost, without it)."""
    path = Path(path)
    if path.is_symlink() and not path.exists():
        raise RooflineError(f"{what}: {path} is a symbolic link that leads to no file (its target is missing, or the links "
                            "loop): name a file itself")
    if path.is_dir():
        raise RooflineError(f"{what}: expected a file path, found a folder {path}")
    if path.exists() and not force:
        raise RooflineError(f"{what}: {path} exists; pass --force to overwrite it")


def _check_not_builtin(path: Path, force: bool, what: str) -> None:
    """A new file in a built-in profile folder only with `force`: there it becomes a built-in profile (or, not being
    one, breaks the listing of them)."""
    from roofline.profiles import builtin_folder_of  # profiles reads through this module: imported when writing

    folder = builtin_folder_of(path.parent)
    if folder is not None and not force and not path.exists():
        raise RooflineError(f"{what}: {path} is in the built-in folder {folder}, where a new file becomes a built-in "
                            "profile (or breaks the listing of them): write to your own folder, or pass --force")


def check_file_out(path: Path, force: bool = False, what: str = "--out") -> None:
    """check_file_target, and the folder it goes into created and writable: a path the result cannot be written to is
    refused before the minutes of work (a fit, a calibration) that make the result, not after them."""
    path = Path(path)
    check_file_target(path, force, what)
    _check_not_builtin(path, force, what)
    blocker = next((q for q in path.parents if q.exists() and not q.is_dir()), None)
    if blocker is not None:
        raise RooflineError(f"{what}: {blocker} is a file, so {path} cannot be created under it")
    # the nearest folder that exists is tried, not the one to make: a command that fails later leaves no empty folder
    # behind (qa288: fit and cheapest did); write_text_atomic makes the rest
    base = next((q for q in path.parents if q.is_dir()), Path("."))
    probe = None
    try:  # os.access says yes to root on a read-only mount or an immutable folder: try it
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".probe", dir=base)
        os.close(fd)
    except OSError as exc:
        raise RooflineError(f"{what}: cannot write into {base}: {exc.strerror or exc}" if base == path.parent else
                            f"{what}: cannot create the folder {path.parent}: {exc.strerror or exc}") from None
    finally:
        if probe is not None:
            os.unlink(probe)


def umask() -> int:
    """The process's file-creation mask (read by setting it, then restored)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_text_atomic(path: Path, text: str, force: bool = False, what: str = "--out") -> None:
    """Write `text` to `path` via a temporary sibling and a rename; refuse to replace a file without `force`.
    A symbolic link is written through: its target file is replaced, the link stays."""
    path = Path(path)
    check_file_target(path, force, what)
    _check_not_builtin(path, force, what)
    if path.is_symlink() and path.exists():
        path = path.resolve()
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise RooflineError(f"{what}: {parent} is a file, so {path} cannot be created under it")
            break
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise RooflineError(f"{what}: cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        else:
            os.chmod(tmp, 0o666 & ~umask())  # a new file gets the mode any new file would
        os.replace(tmp, path)
    except OSError as exc:  # qa141: named the deleted temporary file, not the one it was for
        Path(tmp).unlink(missing_ok=True)
        raise RooflineError(f"{what}: cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _check_last_row(path: Path, first: bytes, tail: bytes, newlines: int) -> None:
    """A table's last row holds as many fields as its header (qa135: a file cut off mid-row read its missing cells as
    blanks, 'no price in the profile'); a row that spans lines (a quoted newline) is not judged."""
    import csv

    header = first.split(b"\n", 1)[0].decode("utf-8", "replace").lstrip("\ufeff").rstrip("\r")
    rows = tail.rstrip(b"\r\n").rsplit(b"\n", 1)
    last = rows[-1].decode("utf-8", "replace").rstrip("\r")
    if newlines < 1 or not last or last.count('"') % 2:
        return
    want, got = len(next(csv.reader([header]))), len(next(csv.reader([last])))
    if got < want:
        line = newlines + (0 if tail.endswith(b"\n") else 1)
        raise RooflineError(f"{path}: line {line}: expected {want} fields as the header has, found {got} (a row cut short?)")


def check_text_table(path: Path, what: str = "a sweep results table", whole_rows: bool = True) -> None:
    """A CSV table must be non-empty UTF-8: checked in 1 MiB chunks (bounded memory) before pandas reads it; with
    `whole_rows` (a table this tool wrote: every row has every field) its last row as many fields as its header."""
    import codecs

    path = Path(path)
    try:
        check_regular_file(path)
        if path.stat().st_size == 0:
            raise RooflineError(f"{path}: expected {what}, found an empty file")
        decoder = codecs.getincrementaldecoder("utf-8")()
        offset, lines, first, tail = 0, 0, b"", b""
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                try:
                    decoder.decode(chunk)
                except UnicodeDecodeError as exc:
                    raise RooflineError(f"{path}: expected UTF-8 text, found bytes that are not (at byte {offset + exc.start})") from None
                offset += len(chunk)
                lines += chunk.count(b"\n")
                first = first or chunk
                tail = (tail + chunk)[-(1 << 16):]
            try:
                decoder.decode(b"", final=True)
            except UnicodeDecodeError:
                raise RooflineError(f"{path}: expected UTF-8 text, found a truncated character at the end") from None
        if whole_rows:
            _check_last_row(path, first, tail, lines)
    except OSError as exc:
        raise RooflineError(f"{path}: cannot read: {exc.strerror or exc}") from None
