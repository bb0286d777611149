"""Creating, changing, checking and comparing profiles: the `roofline hw / models / engines new, set, edit, validate`
commands and `roofline hw diff`.

Reading is always the bounded safe loader (roofline.yamlio); ruamel.yaml's round-trip mode is used
only to write an edit back, so comments, key order and formatting of the user's file survive.
Every write is validated first and then made atomically (temporary file + rename): no command here
leaves an invalid or half-written profile behind, and none replaces an existing file without `force`.

    hw new NAME --from EXISTING [--set k=v ...]   copy EXISTING to the user folder (or --dir) as NAME
    hw set NAME k=v ...                           change fields in place (k may be dotted: peak_flops.bf16)
    hw edit NAME                                  $VISUAL/$EDITOR on a copy; reopened with the error on top
                                                  until valid or saved unchanged (then nothing is written)
    hw validate [PATHS]                           check files (all profiles on the search path without PATHS)
    hw diff A B                                   values side by side, ridge point, a reference decode point
    models new/set/edit/validate, engines new/set/edit/validate: the same for model and engine profiles

A value in `k=v` is read as YAML where it is a number, boolean, null, quoted string, or a list or mapping
in brackets (`0.8`, `[a, b]`); any other text is kept as written (`148 TFLOPS`, prose such as
`NVIDIA datasheet: 4.0 TB/s` or `...`); `k=null` removes an optional field.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path

from roofline.errors import (
    FIELD_LINES,
    RooflineError,
    RooflineWarning,
    UnreadableProfile,
    WrongKind,
    closest_names,
    field_error,
    warn,
    with_line,
)
from roofline.profiles import (
    FOLDERS,
    PROFILE_SUFFIXES,
    a_kind,
    builtin_dir,
    builtin_folder_of,
    builtin_shadowed,
    check_not_shadowing,
    check_profile_name,
    command_name,
    find_profile,
    is_profile_path,
    kind_of,
    list_names,
    problems,
    profile_paths,
    read_yaml,
    resolve_name,
    shadowed_paths,
    user_dir,
)
from roofline.units import parse_quantity, unit_kind
from roofline.yamlio import comment_line, load_yaml_text, read_text, write_text_atomic

SCHEMA_COMMENTS = {kind: f"# yaml-language-server: $schema=../docs/{kind}.schema.json" for kind in ("hardware", "engine")}
EDIT_MARK = "# roofline: "
BANNER_STARTS = (f"{EDIT_MARK}NOT SAVED: ", f"{EDIT_MARK}fix the file and save")  # the NOT SAVED banner's two lines
MAX_EDIT_ROUNDS = 20
EAGER_NAMED = ", run eagerly: graphs false"  # what an engine copy set eager says in its display name
TEXT_FIELDS = ("name", "display_name", "version", "source", "notes", "tokenizer", "description")  # text: a value that reads as a number stays text
SHAPE_FREE_FIELDS = ("precision", "max_context_tokens", "tokenizer", "published_params", "published_active_params")
# model fields that leave the parameter count as it is: setting one keeps the source's published counts


def _round_trip(indent: tuple[int, int] = (2, 2)):
    """ruamel's round-trip YAML, writing mappings `indent[0]` spaces in and a list's dash `indent[1]` spaces in under
    its key (the shipped profiles: 2 and 2; PyYAML's, as `models import` writes: 2 and 0)."""
    from ruamel.yaml import YAML

    rt = YAML(typ="rt")
    rt.preserve_quotes = True
    rt.width = 4096
    # a null written as `null`, as the profiles and docs spell it, not as an empty value (qa178: `key:` read as unfinished)
    rt.representer.add_representer(type(None), lambda rep, _: rep.represent_scalar("tag:yaml.org,2002:null", "null"))
    mapping, offset = indent
    rt.indent(mapping=mapping, sequence=offset + 2, offset=offset)
    return rt


def _indent_of(text: str) -> tuple[int, int]:
    """The file's own (mapping indent, list dash indent): how far the first nested key, and the first list's dash, sit
    in from a `key:` line above them; 2 and 2 (the shipped profiles') where the file has none. A line inside a block of
    text may mislead the guess: then more lines than the edit's differ, never the values (_splice checks them)."""
    rows = [(len(line) - len(line.lstrip(" ")), line.strip()) for line in text.splitlines()]
    rows = [(indent, body) for indent, body in rows if body and not body.startswith("#")]
    mapping = offset = None
    for (indent, body), (inner, below) in zip(rows, rows[1:]):
        if not body.endswith(":") or body.startswith("- ") or inner < indent:
            continue
        if below.startswith("- "):
            offset = inner - indent if offset is None else offset
        elif inner > indent and mapping is None:
            mapping = inner - indent
        if mapping is not None and offset is not None:
            break
    return (mapping if mapping and mapping <= 8 else 2, offset if offset is not None and offset <= 8 else 2)


EXAMPLE = {  # a field of each kind, for the messages of parse_assignments
    "hardware": ("memory_bandwidth='4.0 TB/s'", "memory or peak_flops.bf16"),
    "model": ("layers=32", "layers or moe.experts"),
    "engine": ("kernel_latency='5 us'", "kernel_latency or kernels_per_layer.mlp"),
    "scenario": ("engine=sglang", "engine or axes.batch"),
}


def _plain_value(text: str) -> object:
    """What the profile reader makes of `text` written plain (unquoted) as a value."""
    import yaml

    try:
        return yaml.safe_load(f"v: {text}")["v"]
    except yaml.YAMLError:
        return text


def _as_typed(text: str, value: float) -> float:
    """`value`, read from `text`, as a float that ruamel writes with the digits typed (0.80 stays 0.80, 1.0e+3 stays
    1.0e+3; qa358: `set memory_fraction=0.80` wrote 0.8), where ruamel's round-trip reading of `text` is that number."""
    from ruamel.yaml import YAML

    try:
        typed = YAML().load(f"v: {text}")["v"]
    except Exception:  # noqa: BLE001  ruamel's errors have no one base class; `value` as read is kept
        return value
    return typed if isinstance(typed, float) and float(typed) == value else value


def parse_assignments(assignments: list[str], what: str = "--set", kind: str = "hardware") -> list[tuple[list[str], object]]:
    """`key.sub=value` strings as (path, value) pairs; the value read as one YAML scalar or flow value, except
    that an unquoted value of a prose field (TEXT_FIELDS) is its text as written."""
    pairs = []
    assignment, field = EXAMPLE.get(kind, EXAMPLE["hardware"])
    for text in assignments:
        if "=" not in text:
            raise RooflineError(f"{what}: expected key=value (like {assignment}), found {text[:80]!r}")
        key, raw = text.split("=", 1)
        path = [part.strip() for part in key.strip().split(".")]
        if kind == "scenario" and path[0] == "method" and len(path) > 2:  # method.llama-3.1-8b: a model name holds dots
            path = [path[0], ".".join(path[1:])]  # (qa184: split into llama-3 and 1-8b)
        if not all(path) or len(path) > 3 + sum(part.isdigit() for part in path):  # a list index is one more part
            raise RooflineError(f"{what}: expected a field name like {field}, found {key[:80]!r}")
        text = raw.strip()
        if path[0] in TEXT_FIELDS and len(path) == 1 and text not in ("", "null", "Null", "NULL", "~") \
                and not text.startswith(("'", '"')):
            from ruamel.yaml.scalarstring import DoubleQuotedScalarString

            # `notes=0.8 # x` is the note "0.8 # x", not the number 0.8; null removes. Text the profile reader would take
            # for another type (`yes`, `on`, `0.8`: YAML 1.1) is written quoted, so it reads back as the text given
            pairs.append((path, text if isinstance(_plain_value(text), str) else DoubleQuotedScalarString(text)))
            continue
        flow = text.startswith(("{", "["))
        try:
            value = load_yaml_text(raw, f"{what} {key}") if text else None
        except RooflineError as exc:
            if flow or "in YAML 1.1" in str(exc):  # a list or mapping meant, and mistyped; or a number or boolean the
                # two YAMLs read apart (010, 1_0, yes), said as a file's is (it was refused as text, without why); no line
                raise RooflineError(str(exc).replace(f"{what} {key}: line 1: ", f"{what} {key}: ", 1)) from None
            value = text  # prose YAML cannot read ("...", "a: b: c", backquotes): the text as written
        if isinstance(value, str) and not text.startswith(("'", '"')):
            value = text  # an unquoted string as written (YAML would drop " #2, p. 3" as a comment)
        elif isinstance(value, str) and not isinstance(_plain_value(value), str):  # quoted text YAML would read as
            from ruamel.yaml.scalarstring import DoubleQuotedScalarString  # another type ('off', '"no"'): written

            value = DoubleQuotedScalarString(value)  # quoted, as given (qa298: refused with the hint to quote it)
        if (isinstance(value, (dict, list)) and not flow) or not isinstance(value, (str, int, float, bool, dict, list, type(None))):
            value = text  # prose with ': ' in it, or a date: the text as written
        if type(value) is float:
            value = _as_typed(text, value)
        if isinstance(value, (dict, list)) and len(str(value)) > 2000:
            raise RooflineError(f"{what} {key}: expected a short value, found {len(str(value))} characters")
        pairs.append((path, value))
    paths = [".".join(path) for path, _ in pairs]
    twice = next((p for p in paths if paths.count(p) > 1), None)
    if twice is not None:  # `price=1 USD/h price=2 USD/h` kept the last in silence (qa98)
        raise RooflineError(f"{what}: expected each field once, found {twice} set {paths.count(twice)} times")
    inside = next(((a, b) for a in paths for b in paths if b.startswith(a + ".")), None)
    if inside is not None:  # `kernels_per_layer={mlp: 3}` beside `kernels_per_layer.mlp=5` (qa102)
        raise RooflineError(f"{what}: expected each field once, found {inside[0]} set whole and {inside[1]} inside it")
    return pairs


def _apply(doc, pairs: list[tuple[list[str], object]], where: str, order: dict[tuple[str, ...], tuple[str, ...]] | None = None,
           keep_null: frozenset = frozenset()) -> None:
    """Set (or, for None, remove) each dotted path of `pairs` in `doc`; a field it adds to a mapping goes in its
    place in that mapping's key order (`order`, keyed by the mapping's path, () for the top level: after the last
    present key the order puts before it), else at the end. A top-level field of `keep_null` set to None is written
    as null, where removing it would take another profile's value (_kept_nulls)."""
    from ruamel.yaml.comments import CommentedMap

    order = order or {}

    def put(node, parents: tuple[str, ...], key: str, value) -> None:
        keys, place = list(node), order.get(parents, ())
        if key in node and isinstance(node[key], (list, dict)) != isinstance(value, (list, dict)):
            _drop_value_comment(node, key)  # qa231: its end-of-line comment, said of the old value, lost its first line
        if key in node or key not in place:
            tail = _tail_comment(node.get(key)) if key in node else None
            node[key] = value
            if tail is not None:
                _put_tail_comment(node, key, tail)
            return
        before = place[:place.index(key)]
        node.insert(max((keys.index(k) + 1 for k in before if k in node), default=0), key, value)

    for path, value in pairs:
        node = doc
        for depth, part in enumerate(path[:-1]):
            if isinstance(node, list):  # overrides.0.kernel_latency: an entry of a list by its index
                if not (part.isdigit() and int(part) < len(node)):
                    parent = ".".join(path[:depth])
                    raise RooflineError(f"{where}: {'.'.join(path)}: expected " + (
                        f"an index of {parent} (0 to {len(node) - 1})" if node else  # (qa452: '0 to -1')
                        f"{parent} set whole ({parent}=[...]: it is empty)") + f", found {part!r}")
                node = node[int(part)]
                continue
            child = node.get(part) if isinstance(node, dict) else None
            if child is None:
                child = CommentedMap()
                put(node, tuple(path[:depth]), part, child)
            if not isinstance(child, (dict, list)):
                raise RooflineError(f"{where}: {'.'.join(path)}: expected {part} to be a mapping, found {child!r}"[:300])
            node = child
        if not isinstance(node, dict):
            parent = ".".join(path[:-1])
            if not isinstance(node, list):  # qa141: an entry of a list of names (dp_attention_stage_split.0.x)
                raise RooflineError(f"{where}: {'.'.join(path)}: expected {parent} to be a mapping, found {node!r}"[:300])
            if not node:  # qa143: an empty list has no entry to edit
                raise RooflineError(f"{where}: {'.'.join(path)}: expected {parent} set whole ({parent}=[...]: it is empty), "
                                    "found an entry of it")
            if not all(isinstance(entry, dict) for entry in node):  # a list of names is set whole (qa141)
                raise RooflineError(f"{where}: {'.'.join(path)}: expected {parent} set whole, a list of values "
                                    f"({parent}=[A, B]), found an entry of it")  # names or numbers (qa184: axes)
            raise RooflineError(f"{where}: {'.'.join(path)}: expected a field of an entry ({'.'.join(path)}.FIELD), found "
                                "the entry itself (a list is edited entry by entry, or with `edit`)")
        if value is None and len(path) == 1 and path[0] in keep_null:
            put(node, (), path[0], None)
        elif value is None:
            if path[-1] not in node:  # a misspelled field to remove would be a silent no-op
                close = closest_names(path[-1], [str(k) for k in node], 1, 0.7)
                raise RooflineError(f"{where}: {'.'.join(path)}: expected a field the profile has, to remove"
                                    + (f" (did you mean {'.'.join([*path[:-1], close[0]])!r}?)" if close else "")
                                    + f", found none named {path[-1]!r}")
            if path == ["attention", "layer_groups"]:
                _drop_heading(node, path[-1])
            _pop_keeping_comments(node, path[-1])
        else:
            put(node, tuple(path[:-1]), path[-1], _flow_if_flat(value))


def _block(value) -> bool:
    """Whether `value` is a block (not flow) list or mapping with at least one entry, as ruamel read it."""
    return hasattr(value, "ca") and hasattr(value, "fa") and not value.fa.flow_style() and len(value) > 0


def _tail_slot(value) -> tuple[list, int] | None:
    """Where ruamel files the comment after the block value `value`'s last entry: (its comment slots, the index of the
    token) of that entry (a mapping's key: slot 2; a list's item: slot 0), followed into a last entry that is itself a
    block value; None where `value` is no block value. The token's text is the entry's end-of-line remark (or
    nothing), then the lines below it: those heading the next field (v4-flash's `# each layer's group ...`, under its
    last group's `# HCA ...`; a comment over the field after a block mapping)."""
    if not _block(value):
        return None
    last = list(value)[-1] if isinstance(value, dict) else len(value) - 1
    inner = value[last]
    if _block(inner):
        return _tail_slot(inner)
    slots = value.ca.items.setdefault(last, [None, None, None, None])
    while len(slots) < 4:
        slots.append(None)
    return slots, 2 if isinstance(value, dict) else 0


def _tail_comment(old):
    """The comment lines after a block value's last entry (below its end-of-line remark, which is the entry's: it goes
    with it), which a value set in its place would drop: ruamel files them in the last entry's slot (_tail_slot) or at
    the value's end (`ca.end`: gpt-oss's `# each layer's group ...` after its flow-style groups). As (text, mark),
    each line indented as written, blank lines kept; None where none."""
    slot = _tail_slot(old)
    token = slot[0][slot[1]] if slot else None
    rest = str(token.value).partition("\n")[2] if token is not None else ""
    end = getattr(getattr(old, "ca", None), "end", None) or []
    lines = rest.rstrip("\n").split("\n") if rest.strip() else []
    lines += [" " * t.column + str(t.value).strip("\n") if str(t.value).strip() else "" for t in end]
    while lines and not lines[-1].strip():
        lines.pop()
    mark = token.start_mark if token is not None and rest.strip() else end[0].start_mark if end else None
    return ("\n".join(lines), mark) if any(line.strip() for line in lines) else None


def _put_tail_comment(node, key: str, tail) -> None:
    """Put `tail` (_tail_comment of the value `key` had) after its new value: below its last entry's line (a block
    value), or below its own line (a flow value or a scalar)."""
    from ruamel.yaml.tokens import CommentToken

    text, mark = tail
    slot = _tail_slot(node[key])
    if slot is None:
        slots = node.ca.items.setdefault(key, [None, None, None, None])
        while len(slots) < 4:
            slots.append(None)
        slot = slots, 2
    slots, i = slot
    first = str(slots[i].value).partition("\n")[0] if slots[i] is not None else ""
    slots[i] = CommentToken(first + "\n" + text + "\n", mark, None)


def _drop_heading(node, key: str) -> None:
    """Drop the comment lines right above `key` (no blank line between), which ruamel files under the entry before it
    (_tail_slot, `ca.end`, or the entry's own slot for a scalar or flow value): the heading `models import` writes over
    attention.layer_groups ('# each layer's group, first to last ...'), which would be left over the next field once
    the order is removed. The entry's end-of-line remark stays."""
    keys = list(node)
    at = keys.index(key) if key in keys else 0
    if at == 0:
        return
    before = node[keys[at - 1]]
    end = getattr(getattr(before, "ca", None), "end", None) if _block(before) else None
    if end:  # lines at the block value's end: the last of them head `key`, down to a blank line
        while end and str(end[-1].value).strip() and "\n\n" not in str(end[-1].value):
            end.pop()
        if end:
            return
    slot = _tail_slot(before)
    if slot is None:
        items = node.ca.items.get(keys[at - 1]) if hasattr(node, "ca") else None
        slot = (items, 2) if items and len(items) > 2 else None
    token = slot[0][slot[1]] if slot else None
    if token is not None:  # the last entry's remark, then the lines below it down to the last blank line
        first, _, rest = str(token.value).partition("\n")
        kept = rest.rsplit("\n\n", 1)[0] + "\n\n" if "\n\n" in rest else ""
        token.value = first + "\n" + kept


def _drop_value_comment(node, key: str) -> None:
    """Drop the comment at the end of `key`'s line and its indented continuation lines (what it said of the value being
    replaced by one of another shape: ruamel dumps a flow list without its first line, qa231), keeping the comment
    lines at the margin after it, which head the next field."""
    items = node.ca.items if hasattr(node, "ca") else {}
    old = node[key]
    if isinstance(old, list) and hasattr(old, "ca") and old.ca.items and old:  # a block list replaced: its last entry's
        tail = old.ca.items.get(len(old) - 1, [None])[0]  # comment holds the next field's header (qa235)
        header = [line for line in str(tail.value).split("\n")[1:] if line and not line[0].isspace()] if tail else []
        if header:
            from ruamel.yaml.tokens import CommentToken

            items[key] = [None, None, CommentToken("\n" + "\n".join(header) + "\n", tail.start_mark, None), None]
        return
    token = items.get(key, [None, None, None])[2] if items else None
    if token is None or not str(token.value).lstrip().startswith("#"):
        return
    header = [line for line in str(token.value).split("\n")[1:] if line and not line[0].isspace()]
    if header:
        token.value = "\n" + "\n".join(header) + "\n"
    else:
        items[key][2] = None


WAS = "(was "  # how a remark _remark_old_values rewrote begins: "(was 3 us) measured ..."


def _written_value(text: str, node, key, remark: str) -> str | None:
    """The value of `key` in mapping `node` as the file `text` writes it, between its start and its end-of-line
    `remark` (None where it does not end on that line: a block scalar, a value over several lines)."""
    try:
        line, col = node.lc.value(key)
    except (AttributeError, KeyError, TypeError):
        return None
    lines = text.split("\n")
    if line >= len(lines) or not lines[line].endswith(remark):
        return None
    written = lines[line][col:len(lines[line]) - len(remark)].strip()
    if not written or written[0] in "|>" or (written[0] in "'\"" and (len(written) < 2 or written[-1] != written[0])):
        return None
    return written


def _same_scalar(written: str, value: object) -> bool:
    """Whether the scalar a file wrote as `written` is `value` (a set's): equal as YAML reads it, a number as a number
    (2048 and 2048.0), or one quantity in two units (_same_value)."""
    try:
        before = load_yaml_text(written, "the value as written")
    except RooflineError:
        before = written
    if isinstance(before, (int, float)) and isinstance(value, (int, float)) and not isinstance(before, bool) \
            and not isinstance(value, bool):
        return float(before) == float(value)
    return _same_value(before, value) or (isinstance(value, str) and value == written)


def _was_marker(remark: str) -> tuple[str, str] | None:
    """(the value, the remark after it) of a remark _remark_old_values rewrote, '(was VALUE) remark', None for any other:
    a quoted VALUE to its closing quote (qa360: a ') ' inside a value ended it there), a flow list or mapping to its
    closing bracket, a plain one to the first ') '."""
    if not remark.startswith(WAS):
        return None
    body = remark[len(WAS):]
    ends = {"'": "'", '"': '"', "[": "]", "{": "}"}
    if body[:1] in ends:
        close = body.find(ends[body[0]] + ") ", 1)
        return (body[:close + 1], body[close + 3:]) if close > 0 else None
    close = body.find(") ")
    return (body[:close], body[close + 2:]) if close > 0 else None


def _is_flow(node) -> bool:
    """Whether a ruamel list or mapping is written in flow style ([a, b], {k: v}) on its field's line."""
    return bool(getattr(getattr(node, "fa", None), "flow_style", lambda: False)())


def _made_from(text: str) -> str | None:
    """The profile a copy names in its header (MADE_FROM: `... new NAME --from SOURCE`), else None."""
    made = MADE_FROM.search(text.split("\ntype:", 1)[0])
    return made.group(1) if made else None


def _parents(doc, keys: list[str]) -> list | None:
    """The nodes from `doc` down to the one holding the last of `keys` (a list's entry by its index), or None where
    one of them is missing."""
    parents = [doc]
    for part in keys[:-1]:
        node = parents[-1]
        node = (node[int(part)] if part.isdigit() and int(part) < len(node) else None) if isinstance(node, list) \
            else node.get(part) if hasattr(node, "get") else None
        if node is None:
            return None
        parents.append(node)
    return parents


def _remark_old_values(doc, text: str, pairs: list, unchanged: set[str]) -> None:
    """The remark at the end of a field's line, said of the value a `set` replaces, begun with that value as the file
    wrote it (`prefix_cached_speculating: true  # (was false) off under EAGLE in these releases (source)`; it stood
    beside the new value as if said of it): a scalar's, or a flow list's or mapping's on one line, set whole or an
    entry of it (qa360: `speculation_refused=[medusa]` kept its remark, as did `memory_fraction_by_devices.8=0.8`). The
    first value is kept through later sets, and the remark given back bare where a set restores it. A comment on the
    lines below (the next field's) is no remark of this one."""
    for keys, value in pairs:
        if value is None or ".".join(keys) in unchanged:
            continue
        parents = _parents(doc, keys)
        if parents is None:
            continue
        node, key, new = parents[-1], keys[-1], value
        if _is_flow(node) and len(keys) > 1 and isinstance(node, dict):  # an entry of a flow mapping: its field's remark, of it whole
            new = {**{str(k): v for k, v in node.items()}, key: value}
            node, key = parents[-2], keys[-2]
        items = getattr(getattr(node, "ca", None), "items", None)
        token = items.get(key, [None, None, None])[2] if isinstance(items, dict) and hasattr(node, "get") else None
        if token is None:
            continue
        comment = str(token.value)
        first = comment.split("\n", 1)[0]  # the end of the field's own line: a remark, or nothing before the newline
        if "#" not in first or first[:first.index("#")].strip():
            continue
        at = first.index("#") + 1
        remark = first[at:].lstrip(" ")
        was = _was_marker(remark)
        old = was[0] if was else _written_value(text, node, key, first)
        if old is None:
            continue
        bare = was[1] if was else remark
        space = first[at:len(first) - len(remark)]  # as the file spaced it after '#' (qa360: '#stream' came back '# stream')
        token.value = first[:at] + space + (bare if _same_scalar(old, new) else f"{WAS}{old}) {bare}") + comment[len(first):]


def _anchored_pairs(kind: str, pairs: list, folder: Path) -> list:
    """`pairs` (keys, value) with each profile path given to a field that names a profile (_anchored_keys) made
    absolute from the working folder (_anchored, given)."""
    keys_anchored = _anchored_keys(kind)
    return [(keys, _anchored(value, folder, given=True)) if len(keys) == 1 and keys[0] in keys_anchored else (keys, value)
            for keys, value in pairs]


def _anchored_keys(kind: str) -> tuple[str, ...]:
    """The fields of a `kind` profile that may name another profile by its path: a scenario's configs and draft, an
    engine's costs_from."""
    from roofline.scenario import CONFIG_KEYS

    return (*CONFIG_KEYS, "draft") if kind == "scenario" else ("costs_from",) if kind == "engine" else ()


def _anchored(value, folder: Path, given: bool):
    """A profile path (or each of a list's) made absolute where it is relative and names a file: a copied profile's
    (`given` False) from the folder it was copied from (grid.load_configs and costs_from look beside the profile first;
    qa184, qa224: the copy failed, or found another file of that name); a path given on the command line (`given`
    True) from the working folder, where `folder`, the edited profile's own, holds no such file (qa279: `scenarios set
    S hardware=relA/hw/x.yaml` was written as given, and a sweep from another folder found no such file). Anything
    else as it is."""
    if isinstance(value, list):  # in place: a file's sequence keeps its style and comments
        for i, v in enumerate(value):
            value[i] = _anchored(v, folder, given)
        return value
    if not is_profile_path(value) or Path(value).is_absolute():
        return value
    if not given and (folder / value).is_file():  # (as written: ' x.yaml' names no file, and stays to be refused)
        return str((folder / value).resolve())
    if given and not (folder / value).is_file() and Path(value).is_file():
        return str(Path(value).resolve())
    return value


def _dtype_keys_as_written(kind: str, pairs: list, doc, where: str) -> list:
    """`pairs` with a hardware profile's `peak_flops.DTYPE` key spelt as the profile already spells that dtype (qa279:
    `peak_flops.BF16=900 TFLOP/s` beside `bf16:` was refused as bf16 given twice, where PROFILES.md says a dtype is read
    in any spelling)."""
    from roofline.profiles import DTYPE_ALIASES

    held = doc.get("peak_flops") if kind == "hardware" else None
    if not isinstance(held, dict):
        return pairs

    def canonical(key: str) -> str:
        return DTYPE_ALIASES.get(key.strip().lower().replace("-", "_"), key)

    given = {}  # each dtype once, in whichever spellings (qa477: bf16=11 beside bfloat16=12 kept the last in silence)
    for keys, _ in pairs:
        if len(keys) == 2 and keys[0] == "peak_flops":
            given.setdefault(canonical(keys[1]), []).append(keys[1])
    twice = next((names for names in given.values() if len(names) > 1), None)
    if twice is not None:
        raise RooflineError(f"{where}: expected each field once, found peak_flops.{canonical(twice[0])} set {len(twice)} times "
                            f"(as {' and '.join(f'peak_flops.{n}' for n in twice)})")
    out = []
    for keys, value in pairs:
        if len(keys) == 2 and keys[0] == "peak_flops" and keys[1] not in held:
            keys = ["peak_flops", next((str(k) for k in held if canonical(str(k)) == canonical(keys[1])), keys[1])]
        out.append((keys, value))
    return out


def _flow_if_flat(value):
    """A value set on the command line as the profiles write theirs: a list or mapping of scalars in flow style
    (`[1, 8, 64]`, `{start: 1, stop: 64, num: 7}`), and a list of such mappings too (`layouts: [{tp: 8}, {tp: 4}]`);
    a mapping holding those, block style with each of its values so (`axes={batch: [1, 8], k: [1, 2]}`). Block style
    gave one line an entry (qa184)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    def flat(v) -> bool:
        return not isinstance(v, (list, dict)) or (isinstance(v, dict) and not any(isinstance(x, (list, dict)) for x in v.values()))

    if isinstance(value, list) and all(flat(v) for v in value):
        seq = CommentedSeq([_flow_if_flat(v) if isinstance(v, dict) else _flow_scalar(v) for v in value])
        seq.fa.set_flow_style()
        return seq
    if isinstance(value, dict):
        node = CommentedMap((k, _flow_if_flat(v)) for k, v in value.items())
        if flat(value):
            node = CommentedMap((_flow_scalar(k), _flow_scalar(v)) for k, v in node.items())
            node.fa.set_flow_style()
        return node
    return value


def _flow_scalar(value):
    """A string inside a flow list or mapping quoted where its plain form would read back as something else: ruamel
    writes `? odd.yaml` and `: x` bare there, which read back as a mapping (qa184)."""
    from ruamel.yaml.scalarstring import ScalarString, SingleQuotedScalarString

    if not isinstance(value, str) or isinstance(value, ScalarString):
        return value
    try:
        plain = load_yaml_text(f"[{value}]", "<flow>") == [value] and load_yaml_text(f"{{{value}: {value}}}", "<flow>") == {value: value}
    except RooflineError:
        plain = False
    return value if plain else SingleQuotedScalarString(value)


GROUP = {"hardware": "hw", "model": "models", "engine": "engines", "scenario": "scenarios"}  # each editable kind's CLI group


def _field_order(kind: str) -> dict[tuple[str, ...], tuple[str, ...]]:
    """The key order of `kind`'s profiles by mapping path (hardware: hardware.FIELD_ORDER at the top level,
    NESTED_FIELD_ORDER inside peak_flops and efficiency), empty where there is none."""
    if kind != "hardware":
        return {}
    from roofline.hardware import FIELD_ORDER, NESTED_FIELD_ORDER

    return {(): FIELD_ORDER, **{(name,): keys for name, keys in NESTED_FIELD_ORDER.items()}}


def _last_entry(node, key):
    """The mapping and key whose trailing comment follows the whole entry `key` of `node` (the entry's
    own, or that of the last key inside its value, recursively)."""
    from ruamel.yaml.comments import CommentedMap

    value = node[key]
    if isinstance(value, CommentedMap) and len(value):
        return _last_entry(value, list(value)[-1])
    return node, key


def _pop_keeping_comments(node, key) -> None:
    """Remove `key` from `node`, keeping the comment lines that follow its entry.

    ruamel files the comment lines between two entries under the entry before them: removing that
    entry would drop the block comment above the next field. Its end-of-line comment goes with it;
    the lines after it move above the next key, or after the previous entry when it was the last."""
    from ruamel.yaml.error import CommentMark
    from ruamel.yaml.tokens import CommentToken

    if key not in node:
        return
    keys = list(node)
    at = keys.index(key)
    owner, last = _last_entry(node, key)
    token = (owner.ca.items.get(last) or [None, None, None, None])[2]
    kept = token.value.split("\n", 1)[1] if token is not None and "\n" in token.value else ""
    del node[key]
    if not kept.strip():
        return
    if at + 1 < len(keys):
        slots = node.ca.items.setdefault(keys[at + 1], [None, None, None, None])
        lines = [CommentToken(line + "\n", CommentMark(0)) for line in kept.rstrip("\n").split("\n")]
        slots[1] = lines + (slots[1] or [])
    elif at > 0:
        owner, last = _last_entry(node, keys[at - 1])
        slots = owner.ca.items.setdefault(last, [None, None, None, None])
        if slots[2] is None:
            slots[2] = CommentToken("\n" + kept, CommentMark(0))
        else:
            slots[2].value += kept


def _dump(doc, indent: tuple[int, int] = (2, 2)) -> str:
    stream = io.StringIO()
    _round_trip(indent).dump(doc, stream)
    return stream.getvalue()


def _splice(original: str, before: str, after: str) -> str:
    """`original` with only the lines that ruamel's dump changes from `before` (the unedited document) to `after` (the
    edited one): a file whose indentation, line wrapping or `null`s ruamel writes otherwise keeps them everywhere but
    in the lines an edit touches. An added field goes above the comment lines directly over the field after it (they
    describe that one). A change next to lines ruamel rewrites differently from the file (no line of the file to
    anchor it) takes `after` whole, as before."""
    import difflib

    orig, old, new = (t.splitlines(keepends=True) for t in (original.lstrip("\ufeff"), before, after))
    keep = original[:1] if original.startswith("\ufeff") else ""
    anchor = {}  # a line of `before` -> the same line of `original`
    for block in difflib.SequenceMatcher(None, old, orig, autojunk=False).get_matching_blocks():
        anchor.update({block.a + i: block.b + i for i in range(block.size)})
    out, at = [], 0  # lines of `original` copied up to `at`
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i1 < i2:  # lines of `before` replaced or deleted: each must be a line of the file
            if not all(i in anchor for i in range(i1, i2)) or anchor[i2 - 1] - anchor[i1] != i2 - i1 - 1:
                return after
            start, end = anchor[i1], anchor[i2 - 1] + 1
        else:  # an insertion before line i1 of `before` (after its last line: at the file's end), above the comment
            indent = len(new[j1]) - len(new[j1].lstrip()) if j1 < j2 else 0
            while i1 > 0 and old[i1 - 1].lstrip().startswith("#") and len(old[i1 - 1]) - len(old[i1 - 1].lstrip()) <= indent:
                i1 -= 1  # comment lines at the field's own indent sit on the next field, which they describe
            start = end = anchor[i1] if i1 in anchor else (len(orig) if i1 == len(old) else None)
            if start is None:
                return after
        if start < at:
            return after
        out += orig[at:start] + new[j1:j2]
        at = end
    out += orig[at:]
    spliced = keep + "".join(out)
    import yaml

    try:  # the file as spliced must read as the edited document does (a '#' line inside a block of text is no comment)
        same = yaml.safe_load(spliced.lstrip("\ufeff")) == yaml.safe_load(after)
    except yaml.YAMLError:
        same = False
    return spliced if same else after


def _load_rt(text: str, where: str):
    load_yaml_text(text, where, lines=True)  # bounds and duplicate keys first (safe loader); the file on disk: its lines
    try:
        return _round_trip().load(text)
    except Exception as exc:  # ruamel's own errors; the safe loader above already accepted the text
        raise RooflineError(f"{where}: cannot be edited: {str(exc).splitlines()[0][:200]}") from None


def validate_text(kind: str, text: str, path: Path, extra_dirs: tuple = (), sweep_notes: bool = True) -> object:
    """Validate profile text of `kind` as if it were the file `path` (profiles it names looked up with `extra_dirs`,
    as validate_data does): the spec, or a RooflineError."""
    return validate_data(kind, _top_mapping(load_yaml_text(text, str(path)), path), path, extra_dirs, sweep_notes)


def validate_data(kind: str, data: dict, path: Path, extra_dirs: tuple = (), sweep_notes: bool = True):
    """The loaded spec of `kind` for mapping `data` of file `path` (name must equal the file name; an engine's
    `costs_from` is looked up on the search path with `extra_dirs`; a scenario's configs are loaded, so that an
    unknown profile or a layout its model cannot take fails here as it would in a sweep). Without `sweep_notes`
    (`scenarios new` and `set`: a file written, nothing swept) the warnings loading a scenario's configs gives, of what
    it would sweep, are counted in one line, not said (qa372: 22 lines after a copy)."""
    if "type" in data and (data["type"].strip().lower() if isinstance(data["type"], str) else data["type"]) != kind:
        # `hw set type=model` would turn a hardware file into an unreadable model; 'Hardware' is read as profiles.kind_of reads it
        raise field_error(str(path), "type", f"{kind} (this is {'an' if kind[0] in 'aeiou' else 'a'} {kind} profile)",
                          data["type"])  # (qa279: `type: ~` said found 'None')
    if kind == "hardware":
        from roofline.hardware import hardware_from_dict as build
    elif kind == "model":
        from roofline.model import model_from_dict as build
    elif kind == "engine":
        from roofline.serving import engine_from_file_data

        def build(data, where):
            return engine_from_file_data(data, Path(where), extra_dirs)
    else:
        from roofline.scenario import scenario_from_dict as build
    spec = build(data, str(path))
    if kind in ("hardware", "model", "engine") and spec.name != Path(path).stem:
        raise RooflineError(f"{path}: name: expected the file name {Path(path).stem!r}, found {spec.name!r}")
    if kind == "hardware":
        from roofline.hardware import warn_of_unknown_family

        warn_of_unknown_family(spec, path, tuple(extra_dirs))
    if kind == "engine":
        from roofline.serving import check_overrides

        check_overrides(spec, path, tuple(extra_dirs))
    if kind == "model":  # a published count 3x the shape's passed `models set` and `validate` in silence (qa98)
        from roofline.hfimport import check_params

        check_params(data, str(path))
    if kind == "scenario" and spec.name.lower() != Path(path).stem.lower():  # (qa319: `scenarios list` said it, validate
        # 'ok'; names are found in any case: qa320)
        warn(f"{path}: name: {spec.name!r} is not the file's name {Path(path).stem!r}: commands find the scenario by the "
             f"file's name, and its sweep and report outputs take {spec.name!r}")
    if kind == "scenario":  # the profiles it names, and every layout and option against them, as a sweep checks them
        from roofline.grid import load_configs

        try:
            with warnings.catch_warnings(record=not sweep_notes) as notes:
                if not sweep_notes:
                    warnings.simplefilter("always", RooflineWarning)
                with warnings_named(path):  # the sweep's warnings (batch above a cap, gains optimistic) say which file
                    load_configs(spec, tuple(extra_dirs))
        except RooflineError as err:  # a profile lookup names no file: this one
            raise RooflineError(str(err) if str(err).startswith(str(path)) else f"{path}: {err}") from None
        said = list(dict.fromkeys(str(w.message) for w in notes or () if issubclass(w.category, RooflineWarning)))
        for w in notes or ():  # another kind of warning goes on as it came
            if not issubclass(w.category, RooflineWarning):
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        if said:
            warn(f"{path}: its sweep will say {len(said)} note{'s' if len(said) != 1 else ''} on what it sweeps "
                 f"(roofline scenarios validate {Path(path).stem} says {'them' if len(said) != 1 else 'it'} now)")
    return spec


def _unfit(kind: str, doc, set_here: set[str]) -> None:
    """An engine profile's fields set by hand leave its `fitted.parameters` list: the value is no longer the fit's."""
    fitted = doc.get("fitted") if kind == "engine" else None
    if isinstance(fitted, dict) and isinstance(fitted.get("parameters"), list):
        seq = fitted["parameters"]
        for name in [p for p in seq if p in set_here]:
            i = seq.index(name)
            token = getattr(seq, "ca", None) and seq.ca.items.get(i)
            del seq[i]
            comment = token[0] if token else None
            if comment is None or "\n" not in comment.value:
                continue
            block = comment.value[comment.value.index("\n") + 1:]  # lines below the item: above what follows it
            if not block.strip():
                continue
            indent = len(block) - len(block.lstrip(" "))
            text = "\n".join(line.strip().lstrip("#").strip() for line in block.splitlines() if line.strip())
            if i > 0:  # the item before now carries them
                before = seq.ca.items.get(i - 1)
                if before and before[0] is not None:
                    before[0].value += block
                else:
                    comment.value = "\n" + block
                    seq.ca.items[i - 1] = [comment, None, None, None]
            elif seq:  # above the list's new first item
                seq.yaml_set_start_comment(text, indent=indent)
            else:  # the list is empty now: above the key after it
                keys = list(fitted.keys())
                at = keys.index("parameters") + 1
                if at < len(keys):
                    fitted.yaml_set_comment_before_after_key(keys[at], before=text, indent=indent)
    if isinstance(fitted, dict) and isinstance(fitted.get("per_family"), list):
        _unfit_families(fitted["per_family"], doc.get("overrides"), set_here)


MISS_NEUTRAL_FIELDS = ("max_running_requests_speculating", "max_running_requests_flag")  # a running cap moves no step
# time a miss measured (qa382: a copy with its cap raised, as PROFILES.md suggests, lost its misses)
SPECULATION_ONLY_FIELDS = ("spec_per_draft_step", "spec_per_draft_step_per_sequence", "spec_per_iteration",
                           "spec_per_iteration_per_sequence", "host_overlap_speculating", "prefix_cached_speculating",
                           "speculation_refused", "speculation_refused_with_dp_attention", "speculation_refused_with_pp",
                           "speculation_caveats")  # what prices or rules speculation alone: plain decoding's steps keep


def _unknown_misses(kind: str, doc, set_here: set[str]) -> tuple[bool, bool]:
    """(dropped, narrowed): whether a copy (`engines new --set`) that sets a cost dropped `known_misses` it came with,
    and whether it kept some for plain decoding alone (the caller says so once the copy is written): a speed miss (with
    `measured`) was measured of the costs it changes (qa306: a copy with its kernel latency quadrupled said the
    original's '39-41% short' beside a step 90% long), kept where only memory_ fields change; where only speculation's
    own fields change (SPECULATION_ONLY_FIELDS), kept for plain decoding, whose steps they do not price (`methods:
    [none]`; qa485: a copy of sglang with its own spec_per_iteration lost DeepSeek's plain-step miss on MI300X), and
    dropped where it holds speculative points alone; a miss without a direction, of memory (vllm's gpt-oss weights,
    qa423), is kept unless a memory_ field is set. `engines set` and `edit` leave them to the user, as every line they
    are not asked to change. The fit record (`fitted`: removed with fitted=null) prices nothing (qa487)."""
    fields = {key.split(".")[0] for key in set_here}
    changed = fields - {"name", "display_name", "version", "source", "notes", "type", "fitted", *MISS_NEUTRAL_FIELDS}  # (qa307:
    if kind != "engine" or "known_misses" not in doc or "known_misses" in fields or not changed:  # known_misses.0.note)
        return False, False
    misses = doc["known_misses"]
    memory = {f for f in changed if f.startswith("memory_")}  # a miss with no step direction is of memory (vllm's gpt-oss
    # weights, qa423): kept where only costs change; a speed miss where only the memory shares do, which move what fits,
    # not a step's time (qa431: a copy of sglang given another memory_fraction lost MiniMax's miss on MI300X)
    costs = changed - memory
    speculation_only = bool(costs) and costs <= set(SPECULATION_ONLY_FIELDS)
    drop, narrowed = [], False
    for i, m in enumerate(misses):
        if not isinstance(m, dict) or ("measured" not in m and memory):
            drop.append(i)
        elif "measured" in m and costs:
            methods = list(m.get("methods") or ["none", "speculative"])  # none given: every method, plain decoding too
            if not speculation_only or "none" not in methods:
                drop.append(i)
            elif methods != ["none"]:
                m["methods"] = _flow_if_flat(["none"])  # as the profiles write it, `methods: [none]`
                narrowed = True
    for i in reversed(drop):
        del misses[i]
    if not len(misses):
        del doc["known_misses"]
    return bool(drop), narrowed


def _group_shape(kind: str, doc) -> tuple | None:
    """A model's layer count and its attention groups' kinds and layer counts in order, where it gives a layer order
    (attention.layer_groups, whose entries index those groups); None otherwise."""
    attention = doc.get("attention") if kind == "model" else None
    if not isinstance(attention, dict) or "layer_groups" not in attention:
        return None
    groups = attention.get("groups") if isinstance(attention.get("groups"), list) else []
    return doc.get("layers"), tuple((g.get("kind"), g.get("layers")) if isinstance(g, dict) else g for g in groups)


def _unordered(kind: str, doc, shape: tuple | None, set_here: set[str], where: str) -> str:
    """Take a model's attention.layer_groups out where the edit changed its groups' kinds, layer counts or order, or
    its layer count (`shape`: _group_shape before the edit), without setting the order too: its entries index the
    groups in order, and groups replaced or reordered would be counted by the old order (qa257: gpt-oss's full and
    sliding groups swapped, 18 layers each, passed every check and put the other kind on each stage). The note to say
    once the profile is written, or ''; a window set, or a value set to what it was, keeps it (qa260)."""
    if shape is None or "attention.layer_groups" in set_here or _group_shape(kind, doc) == shape:
        return ""
    attention = doc.get("attention")
    if isinstance(attention, dict) and "layer_groups" in attention:  # (attention set whole without it: gone already,
        _drop_heading(attention, "layer_groups")  # qa282's KeyError)
        del attention["layer_groups"]
    return (f"{where}: attention.layer_groups removed: it gave the order of the groups it was written for; without it "
            "each group takes its share of a pipeline stage's layers (set attention.layer_groups to the new order to "
            "count them)")


def _refit(doc, restored: set[str], parent: Mapping) -> None:
    """An engine copy's fields given the value of the profile it was made from again (`restored`) go back into its
    `fitted.parameters` and `per_family` lists where that profile's fit lists them, in its order: the value is the
    fit's again, and a fit refits it (qa373: a fit kept them fixed at the values set back)."""
    fitted, theirs = doc.get("fitted"), parent.get("fitted")
    if not (restored and isinstance(fitted, dict) and isinstance(theirs, Mapping)):
        return
    for key in ("parameters", "per_family"):
        mine, order = fitted.get(key), theirs.get(key)
        if not (isinstance(mine, list) and isinstance(order, list)):
            continue
        back = {p for p in order if p not in mine and (key == "parameters" and p in restored or key == "per_family"
                                                      and _family_entry_restored(str(p), restored, doc.get("overrides")))}
        for entry in (p for p in order if p in back):
            at = order.index(entry)
            mine.insert(sum(1 for p in mine if p in order[:at]), entry)


def _family_entry_restored(entry: str, restored: set[str], overrides) -> bool:
    """Whether a `fitted.per_family` entry ('kernel_latency on AMD Instinct (mi*; 32 rows)') is of an override field
    among `restored` (overrides.N.FIELD, entry N at that glob)."""
    parameter, _, family = entry.partition(" on ")
    globs = family[family.find("(") + 1:].split(";")[0].split(", ") if "(" in family else []
    for name in restored:
        parts = name.split(".")
        if (len(parts) == 3 and parts[0] == "overrides" and parts[1].isdigit() and isinstance(overrides, list)
                and int(parts[1]) < len(overrides) and isinstance(overrides[int(parts[1])], dict)
                and parts[2] == parameter and str(overrides[int(parts[1])].get("hardware")) in globs):
            return True
    return False


def _unfit_families(per_family: list, overrides, set_here: set[str]) -> None:
    """Take out of `fitted.per_family` ('kernel_latency on AMD Instinct (mi*; 10 rows)') the entries whose override
    value was set by hand (`overrides.0.kernel_latency` with overrides[0] at mi*, or `overrides` set whole): the value
    on that family is the user's now, not the fit's (qa141)."""
    hand, every = set(), "overrides" in set_here
    for name in set_here:
        parts = name.split(".")
        if (len(parts) == 3 and parts[0] == "overrides" and parts[1].isdigit() and isinstance(overrides, list)
                and int(parts[1]) < len(overrides) and isinstance(overrides[int(parts[1])], dict)):
            hand.add((parts[2], str(overrides[int(parts[1])].get("hardware"))))
    for i in reversed(range(len(per_family))):
        parameter, _, family = str(per_family[i]).partition(" on ")
        globs = family[family.find("(") + 1:].split(";")[0].split(", ") if "(" in family else []
        if every or any(p == parameter and glob in globs for p, glob in hand):
            del per_family[i]


NO_DEFAULT = {"price": "the device has no price (costs are left out)", "tokenizer": "the tokenizer is not given (a draft "
              "model is compared by vocabulary size only)", "max_context_tokens": "the trained context is not given "
              "(a longer context is not warned)", "source": "the profile cites no source for its values",
              "fitted": "no fit is recorded (predict and sweeps no longer name its rows, families or undetermined "
              "parameters)", "notes": "the profile has no notes",  # optional fields whose absence is no value at all
              "attention.layer_groups": "a pipeline stage holds each attention group in proportion to its layers, "
              "whatever their order",
              "scale_out_bandwidth": "the device has no scale-out link (every collective is priced on the scale-up link)",
              "scale_out_latency": "the device has no scale-out link (every collective is priced on the scale-up link)",
              "efficiency.scale_out": "a scale-out link, where the profile has one, is derated by efficiency.link's "
              "fraction"}


def _no_default(kind: str, dotted: str) -> str:
    """What a profile holds once FIELD=null removed `dotted`: NO_DEFAULT's words, a removed dtype's peak (no default
    peak: the dtype computes on another's, qa311), else the tool's default."""
    if kind == "hardware" and dotted.startswith("peak_flops."):
        return (f"the device has no {dotted.split('.', 1)[1]} peak (that dtype computes on another's: roofline predict "
                "names which)")
    return NO_DEFAULT.get(dotted, "the profile now takes the tool's default for it")


def _known_fields(kind: str) -> set[str]:
    """The top-level keys a profile of `kind` may have."""
    if kind == "hardware":
        from roofline.hardware import FIELD_ORDER

        return {"type", *FIELD_ORDER}
    if kind == "scenario":
        from roofline.scenario import _KEYS

        return {"type", *_KEYS}
    if kind == "model":
        from roofline.model import _KNOWN
    else:
        from roofline.serving import _KNOWN, _OWN_FIELDS
        return {"type", *_KNOWN, *_OWN_FIELDS}  # costs_from: a profile taking another's costs (qa141)
    return {"type", *_KNOWN}


def _kept_nulls(kind: str, doc, pairs=()) -> frozenset:
    """The fields whose null `--set` writes rather than removes: in an engine profile that takes another's costs
    (costs_from, in the file or set by the same command), max_running_requests_speculating and
    max_running_requests_flag, whose null (no cap, no option) would else be the other profile's value (qa177, qa178,
    qa183)."""
    sets = {keys[0]: value for keys, value in pairs if len(keys) == 1}
    takes = sets["costs_from"] is not None if "costs_from" in sets else "costs_from" in doc
    return (frozenset({"max_running_requests_speculating", "max_running_requests_flag"}) if kind == "engine" and takes
            else frozenset())


def _one_line(value) -> str:
    """A removed leaf's value on one line as YAML writes it (true, null, [a, b]; qa282: Python's True), a list of more
    than 80 characters by its length."""
    def yaml_text(v) -> str:
        if isinstance(v, bool) or v is None:
            return "null" if v is None else str(v).lower()
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(map(yaml_text, v)) + "]"
        return " ".join(str(v).split())

    text = yaml_text(value)
    return text if len(text) <= 80 else f"the {len(value)} values it had" if isinstance(value, tuple) else "the value it had"


def _removed_note(kind: str, doc_before: dict, pairs, where: str, source: str, keep_null: frozenset = frozenset(),
                  costs_from: str | None = None, leaves_before: dict | None = None) -> None:
    """Say where `FIELD=` (or null) removed a field the profile had: it now takes the tool's default for it, which
    need not be the value it had (sglang's host_overlap_speculating false became true). A nested field
    (attention.layer_groups, efficiency.memory) is looked up in `leaves_before`, the profile's _leaves before the edit."""
    for keys, value in pairs:
        dotted = ".".join(keys)
        if isinstance(value, Mapping) and leaves_before is not None:  # set whole: the fields it had and was not given
            given = _leaves(value, dotted)
            lost = sorted(path for path, v in leaves_before.items() if path.startswith(dotted + ".") and v is not None
                          and not any(path == g or path.startswith(g + ".") for g in given))
            if lost:
                shown = ", ".join(f"{path[len(dotted) + 1:]} ({_one_line(leaves_before[path])})" for path in lost)
                now = (f"the device has no {'such units' if len(lost) > 1 else 'such unit'} now (a dtype without a peak "
                       "computes in another)" if dotted == "peak_flops" and kind == "hardware" else
                       f"now the tool's default{'s' if len(lost) > 1 else ''}")  # qa282: no default peak
                warn(f"{where}: {dotted} set whole: {shown} removed, {now} (a field is set alone as {dotted}.FIELD=VALUE)")
            continue
        if value is None and len(keys) > 1 and leaves_before is not None:
            had = {path: v for path, v in leaves_before.items() if path == dotted or path.startswith(dotted + ".")}
            if had and any(v is not None for v in had.values()):
                shown = _one_line(had[dotted]) if dotted in had else "the values it had"
                warn(f"{where}: {dotted} removed: {_no_default(kind, dotted)}, not {shown} from {source}")
            continue
        if (value is None and len(keys) == 1 and keys[0] in doc_before and doc_before[keys[0]] is not None
                and keys[0] not in keep_null):
            old = doc_before[keys[0]]
            shown = str(old).lower() if isinstance(old, bool) else " ".join(str(old).split())  # one line (qa98: a
            nested = "mapping" if isinstance(old, Mapping) else "list" if isinstance(old, list) else ""
            if len(shown) > 80 or nested:  # multi-line source, a 2 KB fitted block)
                shown = f"the {nested or 'text'} it had"
            if keys[0] not in _known_fields(kind):  # a misspelt field a broken file had has no default (qa98)
                warn(f"{where}: {keys[0]} removed (not a field of {kind} profiles; it was {shown})")
                continue
            if kind == "scenario" and keys[0] == "question":  # qa189: said as 'the tool's default ... from' the source
                from roofline.scenario import REPORT_QUESTIONS, name_from_file

                renamed = [v for k, v in pairs if k == ["name"] and isinstance(v, str)]  # qa191: the name it has after
                own = (renamed[-1] if renamed else doc_before.get("name")) or name_from_file(where)  # this edit
                warn(f"{where}: question removed (it was {shown}): a report gives the scenario "
                     + (f"the {own} question's finding, its name's" if own in REPORT_QUESTIONS else "the generic finding"))
                continue
            if kind == "scenario" and keys[0] == "name":  # its file's name, not a default 'from' the source (qa184)
                from roofline.scenario import name_from_file

                warn(f"{where}: name removed (it was {shown}): the scenario takes its file's name, {name_from_file(where)}")
                continue
            if kind == "engine" and keys[0] == "costs_from":  # qa141: said as a misspelt field, and the profile became ideal
                warn(f"{where}: costs_from removed (it was {shown}): the profile now holds only the costs it sets itself, "
                     f"every other the ideal engine's (0 s, efficiency 1), not {shown}'s; a copy with its costs: "
                     f"roofline engines new NAME --from {shown}")
                continue
            now = _no_default(kind, keys[0])
            if kind == "engine" and costs_from:  # qa178: a costs_from profile takes the other's, not the tool's default
                from roofline.serving import BEHAVIOUR_FIELDS

                if keys[0] in BEHAVIOUR_FIELDS:
                    now = f"the profile now takes {costs_from}'s value for it (its costs_from)"
            if kind == "hardware" and keys[0] == "family":  # which engine values that is (qa123: an MI300X copy became
                from roofline.serving import family_label, family_of  # a Hopper to vllm, and TensorRT-LLM ran on it)

                name = Path(where).stem
                lost = f", no longer {family_label(str(old))}'s" if family_of(name) != family_of(str(old)) else ""
                warn(f"{where}: family removed (it was {shown}): the device is now of its own name's family, {name} "
                     f"({family_label(name)}), with that family's engine values and engine checks{lost}")
                continue
            warn(f"{where}: {keys[0]} removed: {now}, not {shown} from {source}")


def _drop_line_remarks(doc, paths: list[list[str]]) -> None:
    """The source profile's remark at the end of a line whose value `new` set (`moe_dispatch: per_pair  # SGLang's EP
    MoE without DeepEP ...`: it describes the old value); the comment lines below it stay."""
    for path in paths:
        parents = _parents(doc, path)
        if parents is None:
            continue
        node = parents[-1]
        if len(path) > 1 and _is_flow(node):
            node, path = parents[-2], path[:-1]  # an entry of a flow mapping on its field's line: that line's remark (qa363)
        items = getattr(getattr(node, "ca", None), "items", {})
        token = items.get(path[-1]) if isinstance(items, dict) else None
        if token and len(token) > 2 and token[2] is not None and token[2].value.lstrip().startswith("#"):
            text = token[2].value  # its continuation lines too, indented past the field's own key (qa287: half a
            margin = 2 * (len(path) - 1)  # sentence was left under `engine: vllm`); the lines at the key's margin or
            rest = text[text.index("\n") + 1:].split("\n") if "\n" in text else []  # left of it head the next field
            while rest and rest[0].strip() and len(rest[0]) - len(rest[0].lstrip()) > margin:
                rest.pop(0)
            token[2].value = "\n" + "\n".join(rest)


def _price_set_by_hand(kind: str, doc, set_here: set[str]) -> None:
    """A price set here replaces a hardware profile's 'No price: ...' sentence in its notes or source (hw show printed
    a price and, below it, that there is none)."""
    if kind != "hardware" or "price" not in set_here:
        return
    # a source or notes given in the same edit may be the price's (qa447: 'not from the source' beside a source that
    # gave it)
    said = ("Price set by hand (hw new / hw set) with the source or notes given in the same edit." if {"source", "notes"} & set_here
            else "Price set by hand (hw new / hw set), not from the source.")
    for key in ("notes", "source"):
        text = doc.get(key)
        if isinstance(text, str) and "No price" in text:
            changed = re.sub(r"No price\b.*?\.(?=\s|$)", said, text, count=1, flags=re.S)
            doc[key] = type(text)(changed) if type(text) is not str else changed  # a folded block stays folded


def _unsourced_note(kind: str, written: set[str], set_here: set[str], text: str, where: str, pairs=(),
                    leaves_before: dict | None = None, already: tuple = (), extended: frozenset = frozenset()) -> None:
    """Said after an edit: a hardware profile's numbers set with no source or notes given in the same edit (the header
    marks them; nothing said where they come from: every number of a hardware profile carries its source), and a
    copy's `source` replaced, which spoke for the values it keeps from the profile it came from (qa311: both silent).
    A mapping set whole (`pairs`' values) that gives no leaf a new value (`leaves_before`), only drops some, sets no
    number (qa314); `already`: the fields the file's header listed as set by hand before this edit; `extended`: the text
    fields an editor's edit added to, their old text kept, or wrote where there were none (not replaced)."""
    if kind == "scenario":
        return
    dropping = {".".join(keys) for keys, value in pairs if isinstance(value, Mapping) and leaves_before is not None
                and all(_same_leaves(leaves_before, path, v) for path, v in _leaves(value, ".".join(keys)).items())}
    numbers = sorted(written - dropping - set(TEXT_FIELDS) - {"type", "family", "kind", "precision"})
    if kind == "hardware" and numbers and not {"source", "notes"} & set_here:  # (a model's shape is its config's)
        group = GROUP[kind]
        one = len(numbers) == 1
        copy = bool(hand_set_fields(text)) or _made_from(text)  # a copy's header lists them (qa358:
        marked = (f"the header marks {'it' if one else 'them'} set by hand ({group} show lists {'it' if one else 'them'}); "
                  if copy else "")  # a file of the user's own has no such header)
        own = {"source", "notes"} & set(already)  # written by the user since: not the values' (qa373)
        origin = ("" if not copy or len(own) == 2 else "; the source and notes there are of the values it was made from"
                  if not own else "; the notes there are of the values it was made from" if own == {"source"}
                  else "; the source there is of the values it was made from")
        warn(f"{where}: {', '.join(numbers)} set with no source: {marked}add where {'it comes' if one else 'they come'} "
             f"from to the file's notes (roofline {group} edit {command_name(kind, where)}"
             f"{' --force' if builtin_folder_of(Path(where)) else ''}{origin})")  # a built-in's (qa422)
    made = _made_from(text)
    for field in ("source", "notes"):  # (removed: said by _removed_note; once replaced, the text is the user's own:
        if (field in written and made and field not in already and field not in extended  # qa316; qa422: notes)
                and (leaves_before is None or field in leaves_before)):  # none before: nothing replaced (qa427)
            it, now = ("it", "the new one now stands") if field == "source" else ("they", "the new notes now stand")
            warn(f"{where}: {field} replaced: {it} spoke for the values the copy keeps from {made} too (roofline "
                 f"{GROUP[kind]} show {made} gives the text), which {now} for; to add to the text instead, "
                 f"roofline {GROUP[kind]} edit {command_name(kind, where)}")  # (qa455: 26 lines of notes lost)


def _sparse_peak_note(kind: str, before, after, set_here: set[str], where: str) -> None:
    """A peak FLOP/s an edit set to twice the profile's before (or a bf16 peak set to the fp8 one beside it) is said: a
    datasheet's figure 'with sparsity' (2:4) is twice the dense one, and profiles take dense FLOP/s (qa108: H100's
    sparse 1,978.9 TFLOPS went in as bf16 without a word). `before`, `after`: the specs (None: the file did not read)."""
    from roofline.hardware import peak_unit

    if kind != "hardware" or before is None or after is None or after.kind != "gpu":  # 2:4 sparsity figures are GPU
        return  # datasheets' (qa123: Zen 5's doubled bf16 peak over Zen 4 is its own; qa124: an M-series, a TPU)
    old, new = before.peak_flops_per_s, after.peak_flops_per_s
    for dtype in sorted(new):
        if f"peak_flops.{dtype}" not in set_here and "peak_flops" not in set_here or dtype not in old:
            continue
        doubled = math.isclose(new[dtype], 2.0 * old[dtype], rel_tol=0.01)
        as_fp8 = (dtype in ("bf16", "fp16") and "fp8" in new and "fp8" in old and old[dtype] < 0.99 * old["fp8"]
                  and math.isclose(new[dtype], new["fp8"], rel_tol=0.001))
        if doubled or as_fp8:
            what = f"twice the {old[dtype] / 1e12:,.1f} TFLOP/s it was" if doubled else f"the fp8 figure ({new['fp8'] / 1e12:,.1f} TFLOP/s)"
            unit = "T" + peak_unit(dtype)  # TOP/s for an integer peak, as the profiles write it
            warn(f"{where}: peak_flops.{dtype}: {new[dtype] / 1e12:,.1f} {unit} is {what.replace('TFLOP/s', unit)}: if it is a "
                 f"datasheet's figure 'with sparsity', give the dense one (half of it); profiles take dense {peak_unit(dtype)}")


def _sparse_peaks_held(spec, extra_dirs: tuple, where: str) -> None:
    """What `validate` says of a GPU profile's peaks as they stand (qa340: a file edited by hand with every tensor peak
    doubled, a datasheet's 2:4 sparsity column, read 'ok'): a bf16 peak unequal to its fp16 one (the same tensor cores:
    one of them is likely a sparsity figure) and a peak twice its family's shipped profile's."""
    from roofline.hardware import load_hardware, peak_unit
    from roofline.units import format_si

    if spec is None or spec.kind != "gpu":  # 2:4 sparsity figures are GPU datasheets' (as _sparse_peak_note)
        return
    peaks = spec.peak_flops_per_s
    if "bf16" in peaks and "fp16" in peaks and not math.isclose(peaks["bf16"], peaks["fp16"], rel_tol=0.01):
        warn(f"{where}: peak_flops: bf16 {format_si(peaks['bf16'], 'FLOP/s')} and fp16 {format_si(peaks['fp16'], 'FLOP/s')} "
             "differ, where a GPU's tensor cores give them alike: if one is a datasheet's figure 'with sparsity', give the "
             "dense one (half of it)")
    family = getattr(spec, "engine_family", None)
    if not family or family == spec.name.lower():
        return
    try:
        base = load_hardware(family)  # the shipped device the copy was made from (its `family`)
    except RooflineError:
        return
    doubled = [d for d in peaks if d in base.peak_flops_per_s and math.isclose(peaks[d], 2.0 * base.peak_flops_per_s[d], rel_tol=0.01)]
    if doubled:
        warn(f"{where}: peak_flops: {', '.join(f'{d} {format_si(peaks[d], peak_unit(d))}' for d in doubled)} twice "
             f"{family}'s, its family: if a datasheet's figure 'with sparsity', give the dense one (half of it); profiles "
             "take dense FLOP/s")


# dtypes whose peaks a datasheet gives alike (the same tensor cores; tf32 at the fp32 rate where a GeForce part's
# datasheet quotes it so: rtx-4090's, qa477: a copy given fp32 126 TFLOP/s kept tf32 at 104.8, below it, unsaid)
PAIRED_PEAKS = (("bf16", "fp16"), ("fp8", "int8"), ("fp32", "tf32"))


def _paired_peak_note(kind: str, before, after, set_here: set[str], where: str) -> None:
    """A peak an edit set whose pair (PAIRED_PEAKS: bf16 and fp16, fp8 and int8, fp32 and tf32) the profile had equal to it, left as it
    was, is said: a copy of H100 given a new device's bf16 and fp8 kept H100's fp16 and int8 (and int8 then took the
    general efficiency, not fp8's), in silence (qa311). `before`, `after`: the specs (None: the file did not read)."""
    from roofline.hardware import peak_unit
    from roofline.units import format_si

    if kind != "hardware" or before is None or after is None:
        return
    old, new = before.peak_flops_per_s, after.peak_flops_per_s
    for a, b in PAIRED_PEAKS:
        for given, kept in ((a, b), (b, a)):
            if (f"peak_flops.{given}" in set_here and f"peak_flops.{kept}" not in set_here and "peak_flops" not in set_here
                    and given in old and kept in old and given in new and kept in new
                    and math.isclose(old[given], old[kept], rel_tol=1e-9) and not math.isclose(new[given], new[kept], rel_tol=1e-9)):
                digits = next((d for d in range(3, 10) if format_si(new[kept], "", d) != format_si(new[given], "", d)), 10)
                # as many digits as tell the two apart (qa389: 'still 989 TFLOP/s ... set bf16 to 989 TFLOP/s')
                warn(f"{where}: peak_flops.{kept} is still {format_si(new[kept], peak_unit(kept), digits)}, equal to {given}'s "
                     f"before this edit set {given} to {format_si(new[given], peak_unit(given), digits)}: set peak_flops.{kept} too "
                     f"(or remove it: {kept} then computes on another dtype's peak)")


DEVICE_FIELDS = ("memory", "memory_bandwidth", "peak_flops")  # what makes a copy another device, not another rental


def _kept_price_note(kind: str, source_spec, written: set[str], set_here: set[str], where: str, made: str) -> None:
    """A hardware copy given another device's memory, bandwidth or peaks that kept its source's price is said: `cheapest`
    ranks devices by it, and the source's notes speak for the other device's rental (qa422: acme-x1 at H100's $3.00,
    called a 'rental quote whose sources hw show gives')."""
    if kind != "hardware" or source_spec is None or "price" in set_here or source_spec.price_usd_per_hour is None:
        return
    if any(f == d or f.startswith(d + ".") for f in written for d in DEVICE_FIELDS):
        warn(f"{where}: price: still {made}'s {source_spec.price_usd_per_hour:,.2f} USD/h, that device's rental, though "
             f"this copy's memory, bandwidth or peaks are another device's: set its own (roofline hw set "
             f"{command_name(kind, where)} 'price=... USD/h'); cheapest ranks devices by it")


def _validated_quietly(kind: str, text: str, path: Path, extra_dirs: tuple, name: str | None = None, lines: bool = False):
    """The spec profile `text` of `kind` reads as (its `name:` taken as `name` where given: a copy's source, whose file
    name is not the copy's), its warnings silenced (they were said when it was written), or its RooflineError;
    `lines`: `text` is the file `path` on disk, whose fields' lines an error names."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = load_yaml_text(text, str(path), lines=lines)
        if isinstance(data, dict) and name is not None:
            data = {**data, "name": name}
        return validate_data(kind, data, path, extra_dirs) if isinstance(data, dict) else validate_text(kind, "", path)


def _hardware_or_none(kind: str, text: str, path: Path, extra_dirs: tuple, name: str | None = None):
    """The spec hardware profile text reads as (_validated_quietly); None for another kind or where it does not read."""
    if kind != "hardware":
        return None
    try:
        return _validated_quietly(kind, text, path, extra_dirs, name)
    except RooflineError:
        return None


def _shares_by_devices_kept(kind: str, doc, set_here: set[str], where: str) -> None:
    """A memory_fraction set (for every hardware, or a family's) where memory_fraction_by_devices gives the share at 2
    or more devices: it holds below the least N only, said (qa360: a copy set to 0.95 still ran 0.81 at 8 devices)."""
    shares = doc.get("memory_fraction_by_devices") if kind == "engine" else None
    if not shares or "memory_fraction_by_devices" in set_here:
        return
    fields = sorted(f for f in set_here if f == "memory_fraction" or re.fullmatch(r"overrides\.\d+\.memory_fraction", f))
    if fields:
        from roofline.serving import shares_text

        least = min(int(n) for n in shares)
        warn(f"{where}: {', '.join(fields)} set, but memory_fraction_by_devices ({shares_text(shares)}) "
             f"gives the share from {least} devices on, so it holds below {least} only: set memory_fraction_by_devices=null "
             "for it to hold at every layout")


def _family_values_kept(kind: str, doc, set_here: set[str], where: str) -> None:
    """An engine field set by hand that `overrides` entries also set keeps those families' values there: said, one
    warning a field naming every such entry (qa334: sglang's 17 memory_fraction entries were 17 lines), since the
    hand value does not reach that hardware."""
    overrides = doc.get("overrides") if kind == "engine" else None
    if not isinstance(overrides, list):
        return
    for path in sorted(set_here):
        key, rest = path.split(".")[0], path.split(".")[1:]  # kernels_per_layer_mla.qkv_proj: an entry's own replaces it
        if key == "overrides":
            continue
        kept = []
        for i, entry in enumerate(overrides):
            if isinstance(entry, dict) and key in entry and f"overrides.{i}.{path}" not in set_here:
                own = entry[key].get(rest[0], "none") if rest and isinstance(entry[key], dict) else entry[key]
                kept.append((i, entry.get("hardware"), own))
        if not kept:
            continue
        hint = ("=null drops that family's value" if not rest else
                f"the family's whole {key} stands in for the general one: =null there falls back to kernels_per_layer"
                if key == "kernels_per_layer_mla" else f"the family's whole {key} stands in for the general one")
        if len(kept) == 1:
            (i, hardware, own), = kept
            warn(f"{where}: {path}: set for every hardware but overrides[{i}] (hardware {hardware!r}) keeps "
                 f"its own {path}: {own}; set overrides.{i}.{path} too ({hint})")
        else:
            values = [own for _, _, own in kept]
            numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
            span = (f" ({min(values):g} to {max(values):g})" if numeric and min(values) != max(values) else
                    f" ({values[0]})" if len(set(map(str, values))) == 1 else "")  # qa335: 17 pairs made 746 characters
            entries = ", ".join(f"{i} {hardware!r}" for i, hardware, _ in kept)
            warn(f"{where}: {path}: set for every hardware but {len(kept)} overrides entries keep their own{span}: "
                 f"{entries}; set overrides.N.{path} too for those you mean ({hint}; `engines show` lists their values)")


def check_no_other_file(target: Path, force: bool, kind: str, command: str = "") -> None:
    """Refuse to write `kind`'s profile file `target` (FOLDER/NAME.yaml) where FOLDER holds another file of that name:
    a profile of another kind, --force or not (a user folder holds every kind: `models new x2 --force` replaced the
    hardware profile x2; qa98), one spelled otherwise (names are found case-insensitively, so one of the two would never
    be), or NAME.yml without --force (the new file would take its place in every command). `command` names the command
    in an error (default: `<group> new`; qa205: `models import` said 'models new')."""
    folder, name = target.parent, target.stem
    same = [p for p in (folder.glob("*.y*ml") if folder.is_dir() else []) if p.stem.lower() == name.lower()]
    for path in same:
        try:
            other, _ = kind_of(read_yaml(path))
        except RooflineError:
            continue  # unreadable: --force replaces it, as before
        if other is not None and other != kind:
            raise RooflineError(f"{path}: exists and is {a_kind(other)} profile; profiles of every kind share {folder}, so "
                                f"{a_kind(kind)} profile cannot take its name: choose another name")
    clash = [p for p in same if p != target]
    spelled = [p for p in clash if p.stem != name]
    if spelled:
        raise RooflineError(f"name: expected a name no profile in {folder} has (names are case-insensitive), found {name!r} "
                            f"beside {spelled[0].name}")
    if clash and not force:
        raise RooflineError(f"{clash[0]}: exists (profile {name!r}); pass --force to write {target.name} beside it, "
                            "which then takes its place")
    if target.exists() and not force:  # said before the copy is validated, not after its warnings (a scenario's sweep)
        raise RooflineError(f"{command or GROUP[kind] + ' new'}: {target} exists; pass --force to overwrite it")


def _source_fault(kind: str, source: Path, extra_dirs: tuple, error: RooflineError, target: Path) -> None:
    """Raise '--from: <the source file's own error>' where the profile a copy was made from fails by itself (its file
    name aside: a copy takes a name of its own) with the error the copy failed with (`error`, said of `target`): the
    value came from the source, so the source and its line are named; nothing where the copy's fault is its own (a
    value --set, or a source field --set has replaced: qa111)."""
    def body(message: str, where: str) -> str:  # 'FILE: line N: field: ...' as 'field: ...'
        return re.sub(r"^line \d+: ", "", message[len(where) + 2:] if message.startswith(f"{where}: ") else message)

    try:
        _validated_quietly(kind, read_text(source), source, extra_dirs, source.stem, lines=True)
    except RooflineError as exc:
        if body(str(exc), str(source)) == body(str(error), str(target)):
            raise RooflineError(f"--from: {exc}") from None


def new_profile(kind: str, name: str, source_name: str, assignments: list[str], out_dir: Path | None = None,
                force: bool = False, extra_dirs: tuple = ()) -> Path:
    """Copy profile `source_name` to OUT_DIR/NAME.yaml with `name` and the assignments applied; validated, atomic."""
    check_profile_name(name)
    try:
        source = find_profile(kind, source_name, extra_dirs)  # a file of another kind is said there, by its type: or keys
    except WrongKind as exc:
        raise RooflineError(f"--from: {exc}") from None
    folder = Path(out_dir) if out_dir is not None else user_dir()
    target = folder / f"{name}.yaml"
    check_not_shadowing(kind, target, force, f"{GROUP[kind]} new")
    check_no_other_file(target, force, kind)
    doc = _load_rt(read_text(source), str(source))
    doc["name"] = name
    for key in _anchored_keys(kind):  # a path beside its source, made absolute: the copy lives elsewhere
        if key in doc:  # (costs_from is read with its spaces stripped; a scenario's names as written)
            value = doc[key].strip() if key == "costs_from" and isinstance(doc[key], str) else doc[key]
            doc[key] = _anchored(value, source.parent, given=False)
    if kind == "scenario":
        from roofline.scenario import REPORT_QUESTIONS

        answered = doc.get("question") or (source.stem if source.stem in REPORT_QUESTIONS else None)
        if answered and "question" not in doc:  # a copy answers its source's report question too (qa188: it got the
            keys = list(doc.keys())  # generic section, while that question's finding told readers to make one)
            doc.insert(keys.index("name") + 1, "question", answered)
    if folder.resolve() != builtin_dir(kind).resolve() and "type" not in doc:  # a user folder holds every kind
        doc.insert(0, "type", kind)
    if kind == "hardware" and "family" not in doc and name != source.stem:  # a renamed copy of an MI300X still takes
        keys = list(doc.keys())  # AMD's engine values (engine overrides glob the family: mi*)
        doc.insert(keys.index("kind") + 1 if "kind" in keys else len(keys), "family", source.stem)
    pairs = _dtype_keys_as_written(kind, _anchored_pairs(kind, parse_assignments(assignments, kind=kind), folder), doc,
                                   "--set")
    if kind == "model" and any(keys[0] not in (*TEXT_FIELDS, *SHAPE_FREE_FIELDS) for keys, _ in pairs):
        for key in ("published_params", "published_active_params"):  # the source's counts are not the new shape's
            if key in doc and [key] not in [keys for keys, _ in pairs]:
                del doc[key]
    if "display_name" in doc and ["display_name"] not in [keys for keys, _ in pairs]:  # panels and tables tell the two apart
        graphs = [value for keys, value in pairs if keys == ["graphs"]] if kind == "engine" else []  # qa325: said
        shown = str(doc["display_name"])
        nested = re.fullmatch(r"\S+ \(copy of (.+)\)", shown)  # a copy of a copy names the first profile once, not
        if nested:  # 't95 (copy of t94 (copy of NVIDIA H100 ...))', which wrapped every figure title over two lines
            shown = nested.group(1)
        if graphs:  # set back to true, the copy's name no longer says eager (qa328)
            shown = shown.replace(EAGER_NAMED, "")
        costs = [value for keys, value in pairs if keys == ["costs_from"]] if kind == "engine" else []
        if costs:  # (qa403: 'costs of vllm' kept in the name of a copy whose costs are another's, or its own)
            shown = _costs_named(shown, costs[-1])
        doc["display_name"] = f"{name} (copy of {shown}" + (EAGER_NAMED if graphs and graphs[-1] is False else "") + ")"
    set_here = {".".join(keys) for keys, _ in pairs}
    source_leaves = _leaves(doc)  # a field given the source's own value changes nothing: the fit record, the misses and
    changed_here = set_here - {".".join(keys) for keys, value in pairs  # the family values stay, as `set` keeps them
                               if value is not None and _same_leaves(source_leaves, ".".join(keys), value)}  # (qa487)
    if kind == "scenario" and doc.get("description") and set_here and "description" not in set_here:
        # qa205: a report printed the source's 'H100 SXM vs H200, context 1k and 8k' over a sweep of four GPUs at 2k
        doc["description"] = _copy_description(name, source.stem, set_here, str(doc["description"]))
    _unfit(kind, doc, changed_here)
    misses_dropped = _unknown_misses(kind, doc, changed_here)
    _price_set_by_hand(kind, doc, set_here)
    had = {k: doc.get(k) for k in doc}
    leaves_before = _leaves(doc)
    kept = _kept_nulls(kind, doc, pairs)
    shape = _group_shape(kind, doc)
    try:
        _apply(doc, pairs, str(target), _field_order(kind), kept)
    except RooflineError as exc:  # (qa487: 'qy.yaml: fooo: expected a field ...' named a file never written)
        message = str(exc)
        if message.startswith(f"{target}: "):
            raise RooflineError(f"{target} (not written): {message[len(str(target)) + 2:]}") from None
        raise
    unordered = _unordered(kind, doc, shape, set_here, str(target))
    _drop_line_remarks(doc, [keys for keys, _ in pairs])
    doc.ca.comment = None
    header = [SCHEMA_COMMENTS[kind]] if kind in SCHEMA_COMMENTS and folder.resolve() == builtin_dir(kind).resolve() else []

    display = comment_line(doc.get("display_name", name))
    command = " ".join([f"roofline {GROUP[kind]} new {name} --from {source_name}",  # (qa422: a shadowing copy's
                        *(["--force"] if builtin_shadowed(kind, target) else []),  # command ran without --force)
                        *(comment_line(f"--set {shlex.quote(a)}") for a in assignments)])
    words = ("values" if any(a.split("=", 1)[0].strip() == "description" for a in assignments) else "values and description"
             ) if kind == "scenario" else "values, source, notes"  # a scenario has no source (qa423: its description set)
    header.append(f"# {display}: made with `{command}`; every field not set there is {source.stem}'s ({words}) until "
                  "edited.")
    # a copy of a copy: its source's hand-set values too (qa98), which no source or notes speak for; not a scenario's,
    # whose header says 'not from the scenario copied' and they are (qa423)
    inherited = set() if kind == "scenario" else set(hand_set_fields(read_text(source)))
    unchanged = {".".join(keys) for keys, value in pairs  # the source's own value (qa311: 3.35 TB/s over H100's 3.35 TB/s
                 if value is not None and _same_leaves(leaves_before, ".".join(keys), value)}  # marked)
    written = {".".join(keys) for keys, value in pairs if value is not None or ".".join(keys) in kept} - unchanged  # as `set`
    marked = written | (inherited - ({".".join(keys) for keys, _ in pairs} - written - unchanged))  # qa222: a field removed is
    #   not set
    if marked:  # which values are not the source profile's, whatever its source and notes say
        header.append(hand_set_line(sorted(marked), scenario=kind == "scenario"))
    described = _described(read_text(source))  # the source's own top comment (qa436, qa455: dropped by every copy)
    if described and not SOURCE_HEADER.match(described[0]):  # a copy of a copy keeps the first profile's, named
        described[0] = f"# {source.stem}'s header: {described[0][1:].strip()}"
    header += described
    text = "\n".join(header) + "\n" + _dump(doc)
    try:
        spec = validate_text(kind, text, target, extra_dirs, sweep_notes=False)
    except RooflineError as exc:
        _source_fault(kind, source, extra_dirs, exc, target)  # a broken --from file is named, with its line (qa108)
        message = str(exc)  # the copy is not written: said, so no one looks for the file the error names (qa114)
        if message.startswith(f"{target}: "):
            raise RooflineError(f"{target} (not written): {message[len(str(target)) + 2:]}") from None
        raise
    lineage = _lineage_line(spec, source, extra_dirs) if kind == "engine" else ""
    if lineage:  # the engine slot it descends from, said outright: found once the profiles between are gone
        text = "\n".join([*header, lineage]) + "\n" + _dump(doc)
    write_text_atomic(target, text, force, what=f"{GROUP[kind]} new")
    source_spec = _hardware_or_none(kind, read_text(source), source, extra_dirs, source.stem)
    _sparse_peak_note(kind, source_spec, spec, set_here, str(target))
    _paired_peak_note(kind, source_spec, spec, set_here, str(target))
    _kept_price_note(kind, source_spec, written, set_here, str(target), source.stem)
    _unsourced_note(kind, written, set_here, text, str(target), pairs, leaves_before, tuple(inherited))
    _family_values_kept(kind, doc, changed_here, str(target))  # said once the profile is written
    _shares_by_devices_kept(kind, doc, set_here, str(target))
    _removed_note(kind, had, pairs, str(target), source.stem, kept, doc.get("costs_from"), leaves_before)
    if unordered:
        warn(unordered)
    if misses_dropped[1]:
        warn(f"{target}: known_misses: kept for plain decoding alone (methods: [none]): the speculation costs the copy "
             "changes price none of its steps, and the speculating points they were measured at would be priced anew")
    if misses_dropped[0]:
        warn(f"{target}: known_misses: " + ("others " if misses_dropped[1] else "")
             + "dropped from the copy: they were measured with the settings it changes")
    return target


COPY_DESCRIPTION = re.compile(r"^(\S+): a copy of (\S+) with (.+?) set, whose description was: (.*)$", re.S)
SOURCE_HEADER = re.compile(r"# \S+'s header: ")  # a copy's line carrying the top comment of the profile it came from
MADE_FROM = re.compile(r"made with `roofline (?:hw|models|engines|scenarios) new \S+ --from (\S+?)[` ]")  # a copy's header
MADE_WITH_NEW = ": made with `roofline hw new "  # a hardware copy's header: its values are its source's until set


def _costs_named(shown: str, taken) -> str:
    """A copy's display name with its 'costs of NAME' following `taken` (costs_from's new value: a name or a path; None
    or '': its own costs, the words dropped)."""
    return re.sub(r"(;\s*)?costs of [^);,]+", (lambda m: f"{m.group(1) or ''}costs of {Path(str(taken)).stem}")
                  if taken else "", shown)


def _copy_description(name: str, source: str, fields: set[str], description: str) -> str:
    """'NAME: a copy of SOURCE with FIELDS set, whose description was: ...', a scenario copy's description once fields
    of it are set (new --set, or set since): the first source's description kept whole, the fields set since it added
    (qa209: a copy set after it was made kept the source's words; a copy of a copy nested them)."""
    m = COPY_DESCRIPTION.match(description.strip())
    if m:  # a copy already: its first source and description, every field set since
        source, fields, description = m.group(2), fields | set(m.group(3).split(", ")), m.group(4)
    return f"{name}: a copy of {source} with {', '.join(sorted(fields))} set, whose description was: {description.strip()}"


def _lineage_line(copy, source: Path, extra_dirs: tuple) -> str:
    """The header line (fit.lineage_comment) naming the engine slot an engine copy descends from: its source's (fit.
    copied_from); none where the copy sets a costs_from of its own (that profile names its lineage; one inherited from
    the source, as a copy of vllm-v0 has vllm's, does not: qa203), or where its source does not load as it is (a field
    the copy sets right, a name not its file's: qa111, qa198)."""
    import warnings

    from roofline.fit import copied_from, lineage_comment

    try:
        with warnings.catch_warnings():  # the source's warnings are not the copy's
            warnings.simplefilter("ignore")
            parent = validate_text("engine", read_text(source), source, extra_dirs)
    except RooflineError:
        return ""
    if copy.costs_from and copy.costs_from != parent.costs_from:
        return ""
    return lineage_comment(copied_from(parent, extra_dirs)).rstrip("\n")


def _without_lineage(text: str) -> str:
    """Profile text without its header's lineage line (fit.lineage_comment): an engine given a costs_from since, which
    names the profile it descends from instead (qa198: `set costs_from=trtllm` left 'descends from the sglang profile')."""
    from roofline.fit import LINEAGE

    lines = text.split("\n")
    header = 0
    while header < len(lines) and lines[header].startswith("#"):
        header += 1
    return "\n".join(line for i, line in enumerate(lines) if i >= header or not LINEAGE.match(line))


def _editable(kind: str, name: str, extra_dirs: tuple, force: bool) -> Path:
    path = find_profile(kind, name, extra_dirs)
    if path.resolve().parent == builtin_dir(kind).resolve() and not force:
        raise RooflineError(f"{path}: is a built-in profile; copy it first with `roofline {GROUP[kind]} new {path.stem}-mine --from {path.stem}`"
                            " (or pass --force to change the built-in file)")
    return path


def remove_profile(kind: str, name: str, extra_dirs: tuple = (), force: bool = False) -> tuple[Path, Path | None, str | None]:
    """Delete the user profile `name` names on the search path: (the file removed, the file the name finds now, a
    built-in it hid or an earlier copy, or None; where the file was a symbolic link, the file it pointed to, which is
    kept, else None). A built-in profile is refused; without `force`, so are a file that is no valid profile of `kind`
    and a hardware, model or engine profile that a scenario names, or an engine profile that another takes its costs
    from, where no other file would stand in for it (_takers)."""
    try:
        path, problem = find_profile(kind, name, extra_dirs), None
    except UnreadableProfile as exc:  # a broken file of the user's is removed too (qa189: it could not be), with --force
        path, problem = Path(exc.path), str(exc)
    builtins = os.path.realpath(builtin_dir(kind))
    # a built-in file, by its path or one through linked folders; a user's link to one is the user's (qa193), and
    # os.path.realpath, unlike Path.resolve, ends a loop of links without an exception
    if os.path.dirname(_canonical(path)) == builtins or (not os.path.islink(path) and
                                                          os.path.dirname(os.path.realpath(path)) == builtins):
        raise RooflineError(f"{path}: is a built-in profile; nothing removed")
    with warnings.catch_warnings():  # its validity checked, its warnings not said: the file is going (qa356: a removed
        warnings.simplefilter("ignore")  # scenario's four context notes printed)
        problem = problem or _error_of(kind, path, extra_dirs)
    if problem and not force:  # qa191: a broken file that says type: model went by `hw remove`, a YAML of notes by
        # `scenarios remove`: a file that is no valid profile of this kind is removed on --force alone
        raise RooflineError(f"{path}: is no valid {kind} profile ({problem.removeprefix(f'{path}: ')}); nothing "
                            "removed (pass --force to remove it anyway)")  # whole (qa389: cut at 160, 'axes' read 'ax')
    takers = _takers(kind, path, extra_dirs) if kind in SCENARIO_FIELDS else []
    if takers and not force:
        (first, does, why), more = takers[0], [str(file) for file, _, _ in takers[1:]]
        also = f" (and {len(more)} more: {', '.join(more[:3])}{', ...' if len(more) > 3 else ''})" if more else ""
        raise RooflineError(f"{path}: {first} {does}{why}{also}; nothing removed (pass --force to remove it anyway)")
    link = os.path.realpath(path) if path.is_symlink() else None  # the link goes, the file it points to stays
    try:
        path.unlink()
    except OSError as exc:
        raise RooflineError(f"{path}: cannot remove: {exc.strerror or exc}") from None
    for file, does, _ in takers:  # --force: what no longer loads, said (qa195)
        warn(f"{file} {does}: it no longer loads")
    try:
        now = find_profile(kind, path.stem, extra_dirs)
    except RooflineError:
        now = None
    return path, now, link


def _canonical(path) -> str:
    """`path` with its folders' links resolved and its own name kept (a link file is itself, not its target)."""
    path = os.path.abspath(path)
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))


def _reaches(path, gone: str, deleted: str | None) -> bool:
    """Whether file `path`, followed link by link, passes through `gone` (the name removed) or ends at `deleted` (the
    file removed with it: None where `gone` is a link, whose target stays)."""
    here = _canonical(path)
    for _ in range(40):  # a loop of links ends the walk
        if here == gone:
            return True
        if not os.path.islink(here):
            break
        here = _canonical(os.path.join(os.path.dirname(here), os.readlink(here)))
    return deleted is not None and os.path.realpath(path) == deleted


# the scenario fields that name a profile of each kind (scenario.load_scenario reads them)
SCENARIO_FIELDS = {"hardware": ("hardware", "draft_hardware"), "model": ("model", "draft"), "engine": ("engine",)}


def _takers(kind: str, path: Path, extra_dirs: tuple) -> list[tuple[Path, str, str]]:
    """(file, what it does with it, why that breaks) for each profile on the search path that would no longer load once
    file `path` (a profile of `kind`) is gone: an engine profile that takes its costs from it (costs_from, as
    load_engine finds it), a scenario that names it in a field of its kind (SCENARIO_FIELDS; a path from the scenario's
    folder first, as load_scenario reads it; qa189, qa193), where nothing takes its place (_field_breaks). The search
    path is scanned once for all of them (qa195: once a name, 54 s for 400 scenarios)."""
    gone = _canonical(path)
    deleted = None if os.path.islink(path) else os.path.realpath(path)
    now = profile_paths(kind, extra_dirs)
    after = profile_paths(kind, extra_dirs, skip=lambda p: _reaches(p, gone, deleted))  # the search path without it
    out = []
    for other_kind in ("engine", "scenario") if kind == "engine" else ("scenario",):
        fields = ("costs_from",) if other_kind == "engine" else SCENARIO_FIELDS[kind]
        for found in profile_paths(other_kind, extra_dirs).values():
            try:
                data = read_yaml(found)
            except RooflineError:  # unreadable: it names nothing this removal changes
                continue
            if not isinstance(data, dict) or _reaches(found, gone, deleted):
                continue
            for field in fields:
                values = data.get(field)
                folders = (found.parent,)  # a path beside the profile first, as load_scenario and load_engine read it (qa403)
                broken = _field_breaks(kind, extra_dirs, now, after, gone, deleted,
                                       values if isinstance(values, list) else [values], folders)
                if broken is not None:
                    taken, stand_in = broken
                    does = "takes its costs from it" if field == "costs_from" else "names it"
                    out.append((found, f"{does} ({field}: {taken})",
                                f", and {stand_in}, which would take its place, is named there too" if stand_in else
                                ", and no other file takes its place"))
                    break
    return out


def _field_breaks(kind: str, extra_dirs: tuple, now: dict, after: dict, gone: str, deleted: str | None, values: list,
                  folders: tuple) -> tuple[str, str] | None:
    """(the value, the file that would stand in or '') of the first of a field's `values` (profile names, or paths read
    from `folders` first, then the working folder, as the loaders read them) that finds the file being removed (`gone`,
    `deleted`: _reaches) and, once it is gone (`after`: the search path without it), nothing, or a file another of the
    values finds (a scenario names each profile once: qa195, `hardware: [h100, h100-sxm]` with a user h100 removed);
    None where the field loads as before. `now`: the search path as it is."""
    values = [v.strip() for v in values if isinstance(v, str) and v.strip()]

    def source(value: str, paths: dict) -> Path | None:
        """The file `value` finds: a path's first candidate that is a file, or the name resolved on `paths`."""
        if is_profile_path(value):
            return next((p for p in [*(Path(f) / value for f in folders), Path(value)] if os.path.isfile(p)), None)
        return paths.get(resolve_name(kind, value.lower(), extra_dirs, paths))

    hit = [v for v in values if (file := source(v, now)) is not None and _reaches(file, gone, deleted)]
    if not hit:
        return None

    def later(value: str) -> str | None:
        file = source(value, after)
        return None if file is None or (is_profile_path(value) and _reaches(file, gone, deleted)) else os.path.realpath(file)

    files = {v: later(v) for v in values}
    for value in hit:
        if files[value] is None:
            return value, ""
        if any(files[other] == files[value] for other in values if other != value):
            return value, os.path.basename(files[value])
    return None


HAND_SET = "# set by hand, not from the source or notes below: "  # a copy's header line: the fields it was given
HAND_SET_SCENARIO = "# set by hand, not from the scenario copied: "  # a scenario's: it has no source or notes (qa415)
HAND_SET_WITH_TEXT = "# set by hand since the copy was made: "  # the line where the source or notes are among them: not
#   'not from the source below' (qa373: it listed the source itself)


def _hand_set_prefix(line: str) -> str | None:
    """The HAND_SET, HAND_SET_SCENARIO or HAND_SET_WITH_TEXT prefix a header line starts with, None for another line."""
    return next((p for p in (HAND_SET, HAND_SET_SCENARIO, HAND_SET_WITH_TEXT) if line.startswith(p)), None)


def _described(text: str) -> list[str]:
    """The comment lines that open profile `text` before its first field, but those roofline writes itself (the
    editor schema line, a copy's made-with, set-by-hand and lineage lines): what its author said of it."""
    from roofline.fit import LINEAGE

    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            if line.strip():
                break
            continue
        if line.startswith("# yaml-language-server:") or MADE_FROM.search(line) or _hand_set_prefix(line) \
                or LINEAGE.match(line):  # (an engine copy's lineage line: its own is written again)
            continue
        lines.append(line)
    return lines


def hand_set_line(fields, scenario: bool = False) -> str:
    """A copy's header line listing `fields` as set by hand (`scenario`: a scenario's, which has no source or notes)."""
    prefix = (HAND_SET_SCENARIO if scenario else HAND_SET_WITH_TEXT if {"source", "notes"} & set(fields) else HAND_SET)
    return prefix + ", ".join(fields) + "."


def hand_set_fields(text: str) -> list[str]:
    """The fields the header line HAND_SET (or HAND_SET_WITH_TEXT) of profile text lists (none where it has no such
    line)."""
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        prefix = _hand_set_prefix(line)
        if prefix:
            return [f.strip() for f in line[len(prefix):].rstrip(". ").split(",") if f.strip()]
    return []


def _with_hand_set(text: str, fields: set[str], removed: set[str] = frozenset()) -> str:
    """Profile text whose header lists `fields` too as set by hand: its HAND_SET line widened, or one added below the
    line saying what made the copy (qa98: `set` left the list stale, so a value set since read as the source's). A
    file without that header (not a copy) is left as it is."""
    lines = text.split("\n")
    header = 0
    while header < len(lines) and lines[header].startswith("#"):
        header += 1
    def plain(field: str) -> str:  # an entry's index as a number reads it (qa279: attention.groups.000.layers)
        return ".".join(str(int(p)) if p.isdigit() else p for p in field.split("."))

    gone = {plain(f) for f in removed}  # a field removed since is no value set (qa102), nor any field inside it (qa279:
    whole = {plain(f) for f in fields}  # moe.top_k after moe=null); a field set whole is marked whole: a mark inside
    kept = sorted(f for f in {*hand_set_fields(text), *whole}  # it goes (qa373: attention.groups.1.window stayed after
                  if not any(f == g or f.startswith(g + ".") for g in gone)  # attention.groups=[one entry])
                  and not any(f.startswith(g + ".") for g in whole))
    line = hand_set_line(kept, scenario=any(x.startswith("type: scenario") for x in lines))
    for i in range(header):
        if _hand_set_prefix(lines[i]):
            lines[i] = line if kept else None
            return "\n".join(x for x in lines if x is not None)
    made = next((i for i in range(header) if "`; every field not set there is " in lines[i]), None)
    if made is None or not kept:
        return text
    return "\n".join([*lines[:made + 1], line, *lines[made + 1:]])


def _parent_text(kind: str, text: str, path: Path | None = None, extra_dirs: tuple = ()) -> str | None:
    """The text of the profile a copy (its header's MADE_FROM) was made from: the file that name finds, or, where that
    is the copy itself (a copy of a built-in under the built-in's name, shadowing it), the file it shadows (qa422: an
    H100 copy at a price of its own compared a price set back with itself, and kept it 'set by hand'); None for a
    file that is no copy or whose source no longer loads."""
    made = _made_from(text)
    if not made:
        return None
    try:
        found = [find_profile(kind, made, extra_dirs), *shadowed_paths(kind, made, extra_dirs)]
        own = path.resolve() if path is not None else None
        return next((read_text(f) for f in found if f.resolve() != own), None)
    except (RooflineError, OSError):
        return None


def _parent_data(kind: str, text: str, path: Path | None = None, extra_dirs: tuple = (),
                 parent: str | None = None) -> Mapping | None:
    """The parsed profile a copy was made from (`parent`, its text, else _parent_text's), None where there is none."""
    parent = parent if parent is not None else _parent_text(kind, text, path, extra_dirs)
    try:
        data = load_yaml_text(parent, _made_from(text)) if parent is not None else None
    except RooflineError:
        return None
    return data if isinstance(data, Mapping) else None


def rewritten_texts(kind: str, text: str, path: Path | None = None, extra_dirs: tuple = ()) -> list[str]:
    """The source and notes of a copy (`text`, its header's MADE_FROM) that differ from those of the profile it was
    made from: written by the user, whether or not its header still lists them as set by hand (qa463: the 'set by
    hand' line deleted, as PROFILES.md suggests once they speak for every value, and a later set said the user's own
    source and notes were of the values the copy was made from); [] for a file that is no copy or whose source no longer
    loads."""
    parent_text = _parent_text(kind, text, path, extra_dirs)
    parent = _parent_data(kind, text, parent=parent_text) if parent_text is not None else None
    if parent is None:
        return []
    try:
        data = load_yaml_text(text, "the copy") or {}
    except RooflineError:
        return []
    if not isinstance(data, Mapping):
        return []
    ancestors = [parent]  # and the profiles the parent was made from in turn: a copy's text inherited from one of them
    # is not the user's after its parent's was rewritten (qa470: a child of a rewritten parent said written by hand)
    for _ in range(ANCESTORS_READ):
        grand_text = _parent_text(kind, parent_text, None, extra_dirs)
        grand = _parent_data(kind, parent_text, parent=grand_text) if grand_text is not None else None
        if grand is None or grand_text == parent_text:
            break
        ancestors.append(grand)
        parent_text = grand_text
    return [k for k in ("source", "notes")
            if all(str(data.get(k) or "").strip() != str(a.get(k) or "").strip() for a in ancestors)]


ANCESTORS_READ = 8  # the copies of copies rewritten_texts reads back (a cycle of names ends there)


def _restored_fields(kind: str, text: str, pairs: list, written: set[str], path: Path | None = None,
                     extra_dirs: tuple = ()) -> set[str]:
    """The fields of a copy (its header's MADE_FROM names the profile it was made from) that `set` gives that
    profile's value again: no longer set by hand (qa358: the header kept listing them), where that profile still
    loads and the value is not one set by hand there too (qa422: $3.50 an hour, an H100 copy's own price, given to a
    copy made from H100 went unflagged)."""
    parent_text = _parent_text(kind, text, path, extra_dirs)
    parent_data = _parent_data(kind, text, parent=parent_text) if parent_text is not None else None
    if parent_data is None:
        return set()
    if kind == "hardware" and "family" not in parent_data and isinstance(parent_data.get("name"), str):
        parent_data = {**parent_data, "family": parent_data["name"]}  # a device's family, unwritten, is its own name
        # (qa477: family set back to the copy's rtx-5090 stayed listed as set by hand)
    parent, data = _leaves(parent_data), load_yaml_text(text, "the copy") or {}
    theirs = set(hand_set_fields(parent_text))

    def by_hand(field: str) -> bool:  # a field, a mapping holding it or one inside it set by hand there (qa424:
        return any(field == t or field.startswith(t + ".") or t.startswith(field + ".") for t in theirs)  # peak_flops)

    return {".".join(keys) for keys, value in pairs if ".".join(keys) in written and value is not None  # a list as _leaves
            and not by_hand(".".join(keys))
            and _same_leaves(parent, _leaf_path(data, ".".join(keys)),  # holds it (qa363)
                             tuple(value) if isinstance(value, list) else value)}


def set_fields(kind: str, name: str, assignments: list[str], extra_dirs: tuple = (), force: bool = False) -> Path:
    """Change fields of profile `name` in place, keeping comments, order and formatting; validated, atomic."""
    if not assignments:
        raise RooflineError(f"{GROUP[kind]} set: expected at least one key=value, found none")
    path = _editable(kind, name, extra_dirs, force)
    original = read_text(path)
    unix = original.replace("\r\n", "\n")  # ruamel keeps a \r in comments: read and dumped as \n, put back below
    doc = _load_rt(unix, str(path))
    indent = _indent_of(unix)  # dumped as the file is written, so that only the edited lines differ
    before = _dump(doc, indent)
    pairs = _anchored_pairs(kind, parse_assignments(assignments, f"{GROUP[kind]} set", kind), path.parent)
    pairs = _dtype_keys_as_written(kind, pairs, doc, f"{GROUP[kind]} set")
    data = load_yaml_text(unix, str(path)) or {}
    leaves = _leaves(data)
    unchanged = {".".join(keys) for keys, value in pairs  # a value written in another unit of its kind (qa224), a
                 if value is not None and _same_leaves(leaves, _leaf_path(data, ".".join(keys)), value)}  # mapping of
    #   the same leaves
    set_here = {".".join(keys) for keys, _ in pairs} - unchanged
    made = _made_from(unix) if kind == "scenario" else None
    if kind == "scenario" and doc.get("description") and "description" not in {*set_here, *hand_set_fields(unix)} and (
            made or COPY_DESCRIPTION.match(str(doc["description"]).strip())):  # a copy's fields set since (qa209), not
        # over a description the user wrote (qa211)
        doc["description"] = _copy_description(str(doc.get("name", path.stem)), made or "",
                                                set_here, str(doc["description"]))
    restored = _restored_fields(kind, unix, pairs, {".".join(keys) for keys, value in pairs if value is not None}
                                - unchanged, path, extra_dirs)  # given the value of the profile it was made from
    _unfit(kind, doc, set_here - restored)  # again: not set by hand, nor a number without a source; the fit's again
    if kind == "engine" and restored:
        _refit(doc, restored, _parent_data(kind, unix, path, extra_dirs) or {})
    _price_set_by_hand(kind, doc, set_here)
    graphs = [value for keys, value in pairs if keys == ["graphs"]] if kind == "engine" else []
    shown = str(doc.get("display_name", ""))  # a copy's name that says eager follows graphs set since (qa340: stale)
    hand_named = "display_name" in set_here or "display_name" in hand_set_fields(unix)  # a name the user wrote: theirs
    if graphs and not hand_named and shown.endswith(")") and (EAGER_NAMED in shown) != (graphs[-1] is False):  # (qa341)
        doc["display_name"] = shown = (shown.replace(EAGER_NAMED, "") if graphs[-1] is not False
                                       else shown[:-1] + EAGER_NAMED + ")") if " (copy of " in shown else shown
    costs = [value for keys, value in pairs if keys == ["costs_from"]] if kind == "engine" else []
    if costs and not hand_named and " (copy of " in shown and "costs of " in shown:  # the name follows it too (qa487: 'costs
        doc["display_name"] = _costs_named(shown, costs[-1])  # of vllm' in the name, show said 'costs of sglang')
    had = {k: doc.get(k) for k in doc}
    kept = _kept_nulls(kind, doc, pairs)
    shape = _group_shape(kind, doc)
    _remark_old_values(doc, unix, pairs, unchanged)
    _apply(doc, pairs, str(path), _field_order(kind), kept)
    unordered = _unordered(kind, doc, shape, set_here, str(path))
    text = _splice(unix, before, _dump(doc, indent))  # only the lines the edit changes
    written = {".".join(keys) for keys, value in pairs  # a kept null is set
               if (value is not None or ".".join(keys) in kept) and ".".join(keys) not in unchanged}
    nulled = {".".join(keys) for keys, value in pairs if value is None} - written  # a field removed is no value set
    text = _with_hand_set(text, written, nulled | restored)
    if kind == "engine" and doc.get("costs_from"):
        text = _without_lineage(text)
    if "\r\n" in original:  # a Windows file keeps its line ends (ruamel keeps \r only on lines it did not rewrite)
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    try:
        spec = validate_text(kind, text, path, extra_dirs, sweep_notes=False)
    except RooflineError as exc:  # the field's line in the file on disk, as validate says it (qa340; a field the edit
        load_yaml_text(unix, str(path), lines=True)  # adds: its enclosing one's, else none)
        raise with_line(str(path), exc) from None
    write_text_atomic(path, text, force=True, what=f"{GROUP[kind]} set")
    before_spec = _hardware_or_none(kind, original, path, extra_dirs)
    _sparse_peak_note(kind, before_spec, spec, set_here, str(path))
    _paired_peak_note(kind, before_spec, spec, set_here, str(path))
    copy_of = _made_from(unix)
    if copy_of and "price" not in hand_set_fields(unix):  # a copy still at its source's price (qa424: said by new, not set)
        _kept_price_note(kind, before_spec, written, set_here, str(path), copy_of)
    _unsourced_note(kind, written - restored, set_here, text, str(path), pairs, leaves,
                    tuple(dict.fromkeys([*hand_set_fields(unix), *rewritten_texts(kind, unix, path, extra_dirs)])))
    _family_values_kept(kind, doc, set_here, str(path))
    _shares_by_devices_kept(kind, doc, set_here, str(path))
    _removed_note(kind, had, pairs, str(path), "the file", kept, doc.get("costs_from"), leaves)
    if unordered:
        warn(unordered)
    return path


NOT_SAVED_LINES = 2  # the lines edit_profile's NOT SAVED banner puts above an invalid edit in the editor


def _edit_error(kind: str, edited: str, path: Path, extra_dirs: tuple) -> str | None:
    """Why `edited` is not a valid profile (None where it is), naming the line of the field at fault as the editor
    shows it next, under the NOT SAVED banner's lines (qa358: these errors named no line, as `set`'s do)."""
    shown = "#\n" * NOT_SAVED_LINES + edited.removeprefix("\ufeff")  # comments: read as `edited` is, a line per
    # banner line (a byte-order mark left before them, not mid-text: qa452, a BOM profile's edit never saved)
    try:
        validate_text(kind, shown, path, extra_dirs)
    except RooflineError as exc:
        try:
            load_yaml_text(shown, str(path), lines=True)
        except RooflineError:
            return str(exc)  # not YAML: the parser's message names its line already
        try:
            return str(with_line(str(path), exc))
        finally:
            FIELD_LINES.pop(str(path), None)  # those lines are not the file on disk's
    return None


def _edited_text_error(path: Path, error: str) -> str:
    """`error` of an edit given up, said after the file's name: without the name again, and its line said as the
    editor's (qa368: 'FILE: ... FILE: line 52', a line of the edited text under the banner, not of the file)."""
    error = error.removeprefix(f"{path}: ")
    return re.sub(r"^line (\d+)", r"line \1 of the edited text as the editor showed it", error)


def edit_profile(kind: str, name: str, extra_dirs: tuple = (), force: bool = False, editor: str | None = None) -> tuple[Path, bool]:
    """Open the profile in an editor until it validates; (path, changed). An invalid result is never written. A user
    file of that name that cannot be read as a profile (a YAML syntax error) opens with its error on top."""
    try:
        path, error = _editable(kind, name, extra_dirs, force), None
    except UnreadableProfile as exc:
        path, error = Path(exc.path), str(exc)
    chosen = editor or os.environ.get("VISUAL") or os.environ.get("EDITOR")
    command = chosen or "vi"
    if not chosen and not sys.stdin.isatty():  # vi on no terminal prints a screen of escape codes (qa455)
        raise RooflineError(f"{GROUP[kind]} edit: expected $VISUAL or $EDITOR set, or a terminal for vi, found neither "
                            f"(stdin is not a terminal): set EDITOR, or change fields with roofline {GROUP[kind]} set")
    original = read_text(path)
    text = original
    if error:  # its line as the editor shows it, under the banner (qa373: the file's own line, 2 above)
        error = _edit_error(kind, text, path, extra_dirs) or error

    with tempfile.TemporaryDirectory(prefix="roofline-edit-") as tmp:
        scratch = Path(tmp) / path.name
        for _ in range(MAX_EDIT_ROUNDS):
            banner = ""
            if error:
                banner = (f"{EDIT_MARK}NOT SAVED: {error}\n"  # NOT_SAVED_LINES lines
                          f"{EDIT_MARK}fix the file and save, or quit without saving to give up (these lines are removed)\n")
            scratch.write_text(banner + text, encoding="utf-8")
            try:
                status = subprocess.call([*shlex.split(command), str(scratch)])
            except ValueError as exc:  # an unclosed quote in $VISUAL / $EDITOR
                raise RooflineError(f"editor {command!r}: cannot parse: {exc} (check $VISUAL and $EDITOR)") from None
            except OSError as exc:
                raise RooflineError(f"editor {command!r}: cannot run: {exc.strerror or exc} (set $EDITOR)") from None
            if status != 0:
                raise RooflineError(f"editor {command!r} exited with status {status}; {path} is unchanged")
            lines = read_text(scratch).splitlines(keepends=True)
            while lines and lines[0].startswith(BANNER_STARTS):  # the banner alone, not a line of the user's own
                lines.pop(0)  # that begins '# roofline: ' (qa452: removed, and the file written, on an edit of nothing)
            edited = "".join(lines)
            if edited == original:
                return path, False
            if error and edited == text:
                raise RooflineError(f"{path}: unchanged, the edit was given up while invalid: {_edited_text_error(path, error)}")
            error = _edit_error(kind, edited, path, extra_dirs)
            if error:
                text = edited
                continue
            if read_text(path) != original:  # changed while the editor was open (a `set`, another editor): neither lost
                raise RooflineError(f"{path}: changed on disk while it was being edited, so your edit is not saved there: "
                                    f"it is in {_keep_edit(path, edited)} (merge it by hand, or run the edit again)")
            try:
                final = _hand_set_by_edit(original, _unfit_edited(kind, original, edited, path), kind)
                if kind == "engine" and "costs_from" in (load_yaml_text(final, "edit") or {}):  # as `set` does (qa224)
                    final = _without_lineage(final)
                if "\r\n" in final:  # a Windows file: the header line added in its line ends too (qa224)
                    final = final.replace("\r\n", "\n").replace("\n", "\r\n")
                write_text_atomic(path, final, force=True, what=f"{GROUP[kind]} edit")
            except RooflineError as exc:  # qa141: a file that cannot be replaced lost the edit with the scratch file
                raise RooflineError(f"{exc}; your edit is kept in {_keep_edit(path, edited)}") from None
            _edit_notes(kind, original, final, path)
            return path, True
    raise RooflineError(f"{path}: unchanged after {MAX_EDIT_ROUNDS} invalid edits: {_edited_text_error(path, error)}")


def _edit_notes(kind: str, original: str, final: str, path: Path) -> None:
    """What `set` says of the fields an edit changed, said of an editor's edit too (qa389: a hardware number changed in
    the editor with no source or notes beside it was said by `set`, not by `edit`): _unsourced_note's."""
    try:
        before, after = (_leaves(load_yaml_text(t, "edit") or {}) for t in (original, final))
    except RooflineError:  # validated already
        return
    changed = {k for k, v in after.items() if not _same_value(before.get(k, object()), v)}
    set_here = {k.split(".")[0] for k in changed}
    extended = frozenset(k for k in changed & {"source", "notes"} if not isinstance(before.get(k), str)  # none before, or
                         or " ".join(before[k].split()) in " ".join(str(after[k]).split()))  # added to in the editor
    _unsourced_note(kind, changed, set_here, final, str(path), already=tuple(hand_set_fields(original)), extended=extended)


def _keep_edit(path: Path, edited: str) -> Path:
    """A file holding an edit `path` could not take (PATH.XXXX.edit beside it, or in the temporary folder where its
    folder cannot take one)."""
    try:
        fd, name = tempfile.mkstemp(prefix=f"{path.name}.", suffix=".edit", dir=path.parent)
    except OSError:
        fd, name = tempfile.mkstemp(prefix=f"{path.name}.", suffix=".edit")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(edited)
    return Path(name)


def _leaves(value, prefix: str = "") -> dict:
    """{dotted field path: value} of a parsed profile's leaves as `set` names them: a list of plain values is one field
    (speculation_refused, axes.k), a list of mappings by its entries' indexes, an engine's `overrides` entry by its
    hardware glob (`overrides[GLOB].FIELD`, qa224: one entry added before the others marked every family's fitted
    values)."""
    if isinstance(value, Mapping):
        items = value.items()
    elif isinstance(value, list) and any(isinstance(item, (Mapping, list)) for item in value):
        items = enumerate(value)
    else:
        return {prefix: tuple(value) if isinstance(value, list) else value}
    out, seen = {}, {}
    for key, item in items:
        if prefix == "overrides" and isinstance(item, Mapping) and "hardware" in item:
            key = _override_key(item["hardware"], seen)
        out.update(_leaves(item, f"{prefix}.{key}" if prefix else str(key)))
    return out


def _leaf_path(data: object, dotted: str) -> str:
    """`set`'s field path as _leaves names it in the parsed profile `data`: overrides.N.FIELD by entry N's hardware
    glob (overrides.[mi*]#0.FIELD); any other path as it is (qa373: overrides.0.kernel_latency set back to the value of
    the profile it was copied from stayed marked set by hand)."""
    parts = dotted.split(".")
    entries = data.get("overrides") if isinstance(data, Mapping) else None
    if not (parts[0] == "overrides" and len(parts) > 1 and parts[1].isdigit() and isinstance(entries, list)
            and int(parts[1]) < len(entries) and isinstance(entries[int(parts[1])], Mapping)
            and "hardware" in entries[int(parts[1])]):
        return dotted
    seen: dict = {}
    key = [_override_key(e["hardware"], seen) for e in entries[:int(parts[1]) + 1]
           if isinstance(e, Mapping) and "hardware" in e][-1]
    return ".".join([parts[0], key, *parts[2:]])


def _override_key(glob: object, seen: dict) -> str:
    """An override entry's key by its hardware glob and how many entries of that glob came before it ('[mi*]#0'), dots
    hidden (a field path splits on them; qa226: two entries of one glob collided)."""
    n = seen[glob] = seen.get(glob, -1) + 1
    return f"[{str(glob).replace('.', '%2E')}]#{n}"


def _override_index(doc: Mapping) -> dict:
    """{override key (_override_key): its index in `doc`'s overrides}."""
    seen: dict = {}
    return {_override_key(o.get("hardware"), seen): str(i) for i, o in enumerate(doc.get("overrides") or [])
            if isinstance(o, Mapping)}


def _same_leaves(leaves: dict, dotted: str, value: object) -> bool:
    """Whether setting `dotted` to `value` leaves a profile (its _leaves) as it was: _same_value of a leaf; of a
    mapping set whole, the same fields at the same values (qa311: the same `efficiency={...}` set again was a change)."""
    if not isinstance(value, Mapping):
        return _same_value(leaves.get(dotted, object()), value)
    given = _leaves(value, dotted)
    had = {path: v for path, v in leaves.items() if path.startswith(dotted + ".")}
    return set(given) == set(had) and all(_same_value(had[path], v) for path, v in given.items())


def _same_value(before: object, after: object) -> bool:
    """Whether an edit left a leaf's value as it was: equal, or one quantity written in another unit of its kind
    (qa224: `link_latency=0.4 ms` over `400 us` marked the field set by hand)."""
    if before == after:
        return True
    if not (isinstance(before, str) and isinstance(after, str)):
        return False
    kinds = {unit_kind(m.group(1)) for m in (re.match(r"\s*[-+]?[0-9.]+(?:[eE][-+]?[0-9]+)?\s*(\S+)\s*$", s)
                                               for s in (before, after)) if m}  # qa232: '0.003ms' as '0.003 ms'
    if len(kinds) != 1 or None in kinds:
        return False
    kind = kinds.pop()
    try:
        return math.isclose(parse_quantity(before, kind), parse_quantity(after, kind), rel_tol=1e-12)
    except ValueError:
        return False


def _hand_set_by_edit(original: str, edited: str, kind: str) -> str:
    """`edited` with a copy's HAND_SET line widened by the fields the edit changed or added, and narrowed by those it
    removed (qa222: an edit of a copy left its 'set by hand' list as it was, under a source that describes the old
    values); text fields (source, notes, display name, a hardware or model's description) and a fit's block are not
    values, a scenario's description is (scenarios set keeps one written by hand). An override is named by its index in
    the edited file. A file without that header (not a copy) is left as it is."""
    try:
        docs = [load_yaml_text(t, "edit") or {} for t in (original, edited)]
        before, after = (_leaves(d) for d in docs)
    except Exception:  # validated already; a parse this helper cannot do leaves the header as it is
        return edited
    text_fields = {"source", "notes", "display_name", "fitted"} | ({"description"} if kind != "scenario" else set())
    new_index = _override_index(docs[1])
    old_key = {i: key for key, i in _override_index(docs[0]).items()}

    def named(key: str) -> str:  # overrides.[GLOB]#N.FIELD as the edited file's index: overrides.I.FIELD
        parts = key.split(".")
        if parts[0] == "overrides" and len(parts) > 1 and parts[1] in new_index:
            parts[1] = new_index[parts[1]]
        return ".".join(parts)
    changed = {named(k) for k, v in after.items()
               if not _same_value(before.get(k, object()), v) and k.split(".")[0] not in text_fields}
    removed = {k for k in before if k not in after and k.split(".")[0] not in text_fields and not k.startswith("overrides.")}
    # the marks already there on an override follow its entry to its new index, or go with it (qa226: an entry added
    # first left b[0-9]*'s mark on mi*)
    marks = hand_set_fields(edited)
    moved = {}
    for mark in marks:
        parts = mark.split(".")
        if parts[0] == "overrides" and len(parts) > 2 and parts[1].isdigit():
            entry = old_key.get(parts[1])
            moved[mark] = ".".join([parts[0], new_index[entry], *parts[2:]]) if entry in new_index else None
    if any(old != new for old, new in moved.items()):
        edited = _with_hand_set(edited, {new for new in moved.values() if new}, set(moved) - set(moved.values()))
    return _with_hand_set(edited, changed, removed) if changed or removed else edited


def _unfit_edited(kind: str, original: str, edited: str, path: Path) -> str:
    """An engine profile's edit with the fitted parameters whose values it changed taken out of `fitted.parameters`
    (as `set` and `new --set` do: the value is the user's now, and a fit starts from it; qa94: an edit to 80 us was
    fitted back to the copied start's 10 us), only those lines of the file changed; any other edit as it is."""
    if kind != "engine" or "fitted" not in edited:
        return edited
    import warnings

    from roofline.fit import PARAMETERS
    from roofline.serving import engine_from_dict
    from roofline.yamlio import load_yaml_text

    try:
        with warnings.catch_warnings():  # said when the edit was checked
            warnings.simplefilter("ignore")
            before, after = (engine_from_dict(load_yaml_text(t, str(path)), str(path)) for t in (original, edited))
    except (RooflineError, TypeError, AttributeError):  # not a profile before (an unreadable one being fixed), or one
        return edited  # with costs_from (no costs of its own): nothing to compare
    changed = {p.key for p in PARAMETERS if getattr(before, p.field) != getattr(after, p.field)}
    still = set((after.fitted or {}).get("parameters") or ())
    old_overrides = dict(before.overrides)
    by_family = {f"overrides.{i}.{p.key}" for i, (glob, changes) in enumerate(after.overrides) for p in PARAMETERS
                 if changes.get(p.field) != old_overrides.get(glob, {}).get(p.field)}  # a family's value (qa141)
    if not changed & still and not (by_family and (after.fitted or {}).get("per_family")):
        return edited
    unix = edited.replace("\r\n", "\n")
    doc = _load_rt(unix, str(path))
    indent = _indent_of(unix)
    dumped = _dump(doc, indent)
    _unfit(kind, doc, (changed & still) | by_family)
    text = _splice(unix, dumped, _dump(doc, indent))
    return text.replace("\n", "\r\n") if "\r\n" in edited else text


@contextlib.contextmanager
def warnings_named(path) -> Iterator[None]:
    """Warnings raised while `path` is checked, said again with the file in front (a list of files checked in turn
    otherwise shows them under no name)."""
    import warnings

    from roofline.errors import RooflineWarning

    found: list = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RooflineWarning)
            try:
                yield
            finally:
                found = list(caught)
    finally:  # said after the filters are restored, and where the check then fails too
        for w in found:
            text = str(w.message)
            if issubclass(w.category, RooflineWarning):
                warn(text if text.startswith(str(path)) else f"{path}: {text}")
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def validate_paths(kind: str, paths: list[Path], extra_dirs: tuple = ()) -> list[tuple[str, str | None]]:
    """[(file, None if valid else the one-line error)] for PATHS (files, or names of `kind` profiles), or for every
    `kind` profile on the search path; a warning a file raises is said with its name."""
    results: list[tuple[str, str | None]] = []
    if not paths:
        for line in problems(kind, extra_dirs):
            results.append((line.split(": ", 1)[0], line))
        for name in list_names(kind, extra_dirs):
            path = find_profile(kind, name, extra_dirs)
            with warnings_named(path):
                results.append((str(path), _error_of(kind, path, extra_dirs)))
        return results
    for path in paths:
        path = Path(path)
        try:
            if not path.exists() and path.suffix not in PROFILE_SUFFIXES and len(path.parts) == 1:
                path = _named_profile(kind, str(path), extra_dirs)  # a profile's name (`hw validate h100`)
            data = _file_mapping(path)
            file_kind = _folder_kind(path) or kind_of(data)[0]
            if file_kind is None:
                raise RooflineError(f"{path}: kind cannot be told: {kind_of(data)[1]}; add `type: {kind}`")
            with warnings_named(path):
                spec = validate_data(file_kind, data, path, extra_dirs)
                if file_kind == "hardware":
                    _sparse_peaks_held(spec, extra_dirs, str(path))
            # a file of another kind is checked as what it is, and says so (`scenarios validate h100.yaml`)
            results.append((str(path) if file_kind == kind else f"{path} ({a_kind(file_kind)} profile, checked as one)", None))
        except RooflineError as exc:  # its field's line where the message names one without it (qa279: tree.tau,
            results.append((str(path), str(with_line(str(path), exc))))  # name: said with a line by sweep and predict)
    return results


def _named_profile(kind: str, name: str, extra_dirs: tuple) -> Path:
    """The file of profile `name`: of `kind`, else of the one other kind that has it (qa422: `hw validate vllm` said
    'unknown hardware' where `hw validate engine_profiles/vllm.yaml` checks the file as the engine it is); unknown in
    every kind, or known in several others, `kind`'s unknown-name error."""
    try:
        return find_profile(kind, name, extra_dirs)
    except RooflineError as exc:
        found = []
        for other in (k for k in FOLDERS if k != kind):
            try:
                found.append(find_profile(other, name, extra_dirs))
            except RooflineError:
                continue
        if len(found) == 1:
            return found[0]
        raise exc from None


def _folder_kind(path: Path) -> str | None:
    for kind in FOLDERS:
        if path.resolve().parent == builtin_dir(kind).resolve():
            return kind
    return None


def _error_of(kind: str, path: Path, extra_dirs: tuple = ()) -> str | None:
    """The error of profile file `path` as it is on disk, its lines named (qa182: `hw validate` with no argument said
    'link_latency: ...' where `hw validate NAME` said 'line 20: link_latency: ...'), or None."""
    try:
        validate_data(kind, _file_mapping(path), path, extra_dirs)
    except RooflineError as exc:
        return str(with_line(str(path), exc))
    return None


def _file_mapping(path: Path) -> dict:
    """Profile file `path` read as a mapping, its fields' lines known to the errors that name them."""
    return _top_mapping(load_yaml_text(read_text(path), str(path), lines=True), path)


def _top_mapping(data: object, path: Path) -> dict:
    """`data` if a profile's text read as a mapping, else the one-line error naming `path`."""
    if not isinstance(data, dict):
        found = "an empty file" if data is None else type(data).__name__
        raise RooflineError(f"{path}: expected a YAML mapping at the top level, found {found}")
    return data


NO_FIT = "does not fit"  # a reference point of a diff that does not fit in the device's memory


def _shown(value, unit: str) -> str:
    """A diff's cell: '-' for no value, text as it is, seconds, counts (B of parameters), KiB, prices and SI quantities."""
    from roofline.units import format_seconds, format_si, format_significant

    if value is None:
        return "-"
    if value is NO_FIT:
        return NO_FIT
    if unit == "text":
        return str(value) if str(value) else "-"
    if isinstance(value, (tuple, list)):  # a list field (an engine's dp_attention_stage_split): its names, or none
        return ", ".join(map(str, value)) or "-"
    if isinstance(value, dict):  # an engine's memory_fraction_by_devices: {N: f}
        from roofline.serving import shares_text

        return shares_text(value) or "-"
    if unit == "s":
        return format_seconds(value)
    if unit == "params":  # billions spelled out beside byte units (qa403: '8.030 B' over '16.1 GB')
        return f"{value / 1e9:.3f} billion"
    if unit == "KiB":  # as `models list` shows a token's KV cache (qa109: 128.0KiB there, 131 kB here)
        return f"{value / 1024:,.1f} KiB"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    if unit == "USD/h":  # as hw show and hw list write a price (qa455: '3 USD/h' beside '1.95 USD/h')
        from roofline.units import format_usd_per_hour

        return f"{format_usd_per_hour(value)} USD/h"
    if unit == "":
        return f"{value:.4g}"
    if unit == "USD/Mtok":
        return f"${format_significant(value)}"
    return format_si(value, unit)


def _shown_to(value: float, unit: str, digits: int) -> str:
    """_shown's cell of an SI quantity or plain number at `digits` significant digits (seconds, counts and prices as
    _shown gives them: other units there)."""
    from roofline.units import format_si

    if unit in ("", "USD/h"):
        return f"{value:.{digits}g}" + (f" {unit}" if unit else "")
    if unit == "s":  # in the unit _shown chose, more digits (qa406: '15.2 ms (0.0152)', seconds unsaid)
        scale = _shown(value, unit).split()[-1]
        return f"{value / {'s': 1.0, 'ms': 1e-3, 'us': 1e-6, 'ns': 1e-9}[scale]:.{digits}g} {scale}"
    if unit in ("params", "KiB", "USD/Mtok"):
        return f"{_shown(value, unit)} ({value:.{digits}g})"
    return format_si(value, unit, digits)


DIFF_LABEL_WIDTH = 56  # side_by_side's label column (an override's key fits): a longer label is a line of its own


def _alike(a: str, b: str, unit: str | None) -> bool:
    """Whether two cells of a diff read as the same value: the same text, or prices of the same number to the cents
    shown ('2.00 USD/h' and '2.000 USD/h', format_usd_per_hour's cents and tenths of a cent)."""
    if a == b:
        return True
    if unit == "USD/h" and a.endswith(" USD/h") and b.endswith(" USD/h"):  # ('-': no price)
        return float(a.split()[0].replace(",", "")) == float(b.split()[0].replace(",", ""))
    return False


def side_by_side(paths: tuple, names: tuple[str, str], rows: list[tuple]) -> list[str]:
    """The lines of a two-profile diff (`hw diff`, `models diff`, `engines diff`): the two files, then one line a row
    (label, A's value, B's value, unit; unit None: a heading) with B / A where both are numbers and a `*` where the two
    differ; a label longer than DIFF_LABEL_WIDTH on a line of its own above its values."""
    width = max((len(r[0]) for r in rows if r[3] is not None and len(r[0]) <= DIFF_LABEL_WIDTH), default=0)  # a longer label: a line of
    # its own, its values on the next (qa403: a label of 81 characters made every row of `engines diff` 269 wide)
    shown = [(_shown(va, unit), _shown(vb, unit)) if unit is not None else None for _, va, vb, unit in rows]
    for i, (_, va, vb, unit) in enumerate(rows):  # two values that differ but print alike get the digits that tell them
        if shown[i] and _alike(*shown[i], unit) and va != vb and unit not in (None, "text") and all(  # apart (qa311:
                isinstance(v, float) for v in (va, vb)):  # 192 GB against 183,359 MiB, both '192 GB', starred)
            shown[i] = next(((a, b) for d in range(4, 10) if (a := _shown_to(va, unit, d)) != (b := _shown_to(vb, unit, d))),
                            shown[i])
    # a long user profile name, or a long value (an option, a list of classes), widens the value columns (qa183)
    col = max(14, *(len(n) for n in names), *(len(v) for row in shown if row for v in row))
    lines = [f"A  {paths[0]}", f"B  {paths[1]}", "", f"{'':{width}}  {names[0]:>{col}}  {names[1]:>{col}}  {'B / A':>7}"]
    for (label, va, vb, unit), row in zip(rows, shown):
        if unit is None:
            lines.append(label)
            continue
        numbers = unit != "text" and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (va, vb))
        ratio = f"{vb / va:.3g}x" if numbers and va and vb else "-"
        if ratio == "1x" and va != vb:  # as the cells: a difference the digits hide is shown (qa311)
            ratio = next((r for d in range(4, 10) if (r := f"{vb / va:.{d}g}x") != "1x"), ratio)
        marker = "" if va == vb else "  *"
        if len(label) > width:
            lines.append(label)
            label = ""
        lines.append(f"{label:{width}}  {row[0]:>{col}}  {row[1]:>{col}}  {ratio:>7}{marker}")
    return lines


DIFF_POINTS = ((1, 1024), (64, 4096))  # (batch, context) of `hw diff` and `models diff`'s reference points (cli.py's
#   docstrings of the two commands say them: change both)


def diff_hardware(a: str, b: str, extra_dirs: tuple = (), model_name: str = "llama-3.1-8b", tp: int = 1,
                  dp_attention: int = 1, ep: int = 1, weight_dtype: str | None = None, pp: int = 1,
                  expert_dtype: str | None = None) -> str:
    """Two hardware profiles side by side: every field that changes a prediction (a `*` where they differ), the
    ridge points (peak and derated; bf16's and the reference model's main GEMM dtype's), and two reference decode
    points each on the ideal engine (the silicon's bound: step time, tokens/s and, where priced, USD per million
    tokens), the model in the layout `tp`, `dp_attention`, `ep` and
    `weight_dtype` (None: its native precision); a point that does not fit in memory is said so, not timed."""
    from roofline.capacity import capacity
    from roofline.engine import step_time_s
    from roofline.hardware import load_hardware, peak_dtypes_in_order, peak_unit
    from roofline.layout import deployment, main_gemm_dtype, shard_note
    from roofline.model import load_model
    from roofline.units import rent_usd_per_hour, usd_per_million_tokens

    hw_a, hw_b = load_hardware(a, extra_dirs), load_hardware(b, extra_dirs)
    ref = load_model(model_name, extra_dirs)
    rows: list[tuple[str, float | str | None, float | str | None, str]] = [
        ("kind", hw_a.kind, hw_b.kind, "text"),  # qa98: a changed family (the engine values a device takes, under a
        # serving engine) showed no difference
        ("family (engine values)", hw_a.engine_family, hw_b.engine_family, "text"),
        ("memory", hw_a.mem_bytes, hw_b.mem_bytes, "B"),
        ("memory_bandwidth", hw_a.mem_bw_bytes_per_s, hw_b.mem_bw_bytes_per_s, "B/s"),
    ]
    for dtype in peak_dtypes_in_order(hw_a, hw_b):
        rows.append((f"peak_flops.{dtype}", hw_a.peak_flops_per_s.get(dtype), hw_b.peak_flops_per_s.get(dtype), peak_unit(dtype)))
    if "fp4" in hw_a.peak_flops_per_s or "fp4" in hw_b.peak_flops_per_s:  # which fp4 formats those units take natively
        rows.append(("fp4_formats", *(", ".join(hw.fp4_formats) if "fp4" in hw.peak_flops_per_s else None
                                      for hw in (hw_a, hw_b)), "text"))
    rows += [
        ("on_chip_cache", hw_a.on_chip_cache_bytes, hw_b.on_chip_cache_bytes, "B"),
        ("link_bandwidth", hw_a.link_bw_bytes_per_s, hw_b.link_bw_bytes_per_s, "B/s"),
        ("link_latency", hw_a.link_latency_s, hw_b.link_latency_s, "s"),
        ("efficiency.memory", hw_a.mem_efficiency, hw_b.mem_efficiency, ""),
        ("efficiency.compute", hw_a.compute_efficiency, hw_b.compute_efficiency, ""),
        ("efficiency.link", hw_a.link_efficiency, hw_b.link_efficiency, ""),
    ]
    for dtype in sorted(set(hw_a.compute_efficiency_by_dtype) | set(hw_b.compute_efficiency_by_dtype)):
        # the share each device's GEMMs of that dtype take: its own figure, else the one it falls back to (qa264: an
        # MI355X's fp8 shown as '-' beside an MI300X's 0.49, where it takes 0.62); '-' where it has no such peak
        rows.append((f"efficiency.compute_{dtype}", *(hw.compute_efficiency_for(dtype) if dtype in hw.peak_flops_per_s
                                                      else None for hw in (hw_a, hw_b)), ""))
    if hw_a.scale_out_bw_bytes_per_s is not None or hw_b.scale_out_bw_bytes_per_s is not None:
        rows.append(("efficiency.scale_out", *(hw.scale_out_link_efficiency if hw.scale_out_bw_bytes_per_s is not None else None
                                               for hw in (hw_a, hw_b)), ""))
    if hw_a.torus_shape or hw_b.torus_shape:  # a TPU pod's ICI axes: the ports a group's collectives drive
        rows.append(("torus", *("x".join(map(str, hw.torus_shape)) or None for hw in (hw_a, hw_b)), "text"))
    rows += [(label, getattr(hw_a, attr), getattr(hw_b, attr), unit) for label, attr, unit in (
        ("usable_memory_fraction", "usable_memory_fraction", ""), ("scale_up_domain", "scale_up_domain", ""), ("mesh_links", "mesh_links", ""),
        ("scale_out_bandwidth", "scale_out_bw_bytes_per_s", "B/s"), ("scale_out_latency", "scale_out_latency_s", "s"),
        ("step_overhead", "step_overhead_s", "s"), ("layer_overhead", "layer_overhead_s", "s"),
        ("overlap_exponent", "overlap_exponent", ""), ("operator_ceilings.attention_compute", "attention_compute_flops_per_s", "FLOP/s"),
        ("operator_ceilings.attention_memory", "attention_memory_bytes_per_s", "B/s"),
        ("operator_ceilings.attention_stream", "attention_stream_bytes_per_s", "B/s"),
        ("operator_ceilings.elementwise_memory", "elementwise_memory_bytes_per_s", "B/s"),
        ("price", "price_usd_per_hour", "USD/h"))]
    dep = deployment(ref, weight_dtype, tp=tp, dp_attention=dp_attention, ep=ep, pp=pp, expert_dtype=expert_dtype,
                     where="command line")
    main = main_gemm_dtype(ref, dep)
    for dtype in dict.fromkeys(("bf16", main)):
        runs = [f"{side}: as {hw.compute_dtype(dtype)}" for side, hw in (("A", hw_a), ("B", hw_b)) if hw.compute_dtype(dtype) != dtype]
        shown = f"{dtype}, {', '.join(runs)}" if runs else dtype  # fp4 weights on Hopper: the ridge of the bf16 they run in
        rows.append((f"peak ridge {shown} (FLOP/B)", hw_a.ridge_point_flops_per_byte(dtype), hw_b.ridge_point_flops_per_byte(dtype), ""))
        rows.append((f"derated ridge {shown} (FLOP/B)", hw_a.ridge_point_flops_per_byte(dtype, derated=True),
                     hw_b.ridge_point_flops_per_byte(dtype, derated=True), ""))
    dtypes = f"{dep.weight_dtype_label} weights" + (f", {dep.expert_dtype_label} experts" if dep.expert_dtype_label else "")
    rows.append((f"{model_name} decoding on {dep.devices} x each, ideal engine:", None, None, None))  # headings over its rows
    rows.append((f"  ({dep.describe()}; {dtypes})", None, None, None))
    for batch, context in DIFF_POINTS:
        ta, tb = (float(step_time_s(hw, ref, batch, 1, context, dep)) for hw in (hw_a, hw_b))
        fits = [bool(capacity(hw, ref, batch, context + 1, dep)["fits_in_memory"]) for hw in (hw_a, hw_b)]
        label = f"  B={batch} S={context}"
        rows.append((f"{label} step time", *(t if fit else NO_FIT for t, fit in ((ta, fits[0]), (tb, fits[1]))), "s"))
        rows.append((f"{label} tokens/s", *(batch / t if fit else NO_FIT for t, fit in ((ta, fits[0]), (tb, fits[1]))), "tok/s"))
        # what a planner compares: the devices' rent over the tokens they decode (qa91), '-' where a profile has no price
        rows.append((f"{label} USD / M tokens", *(
            NO_FIT if not fit else None if hw.price_usd_per_hour is None else
            float(usd_per_million_tokens(rent_usd_per_hour(hw.price_usd_per_hour, dep.devices), batch / t))
            for hw, t, fit in ((hw_a, ta, fits[0]), (hw_b, tb, fits[1]))), "USD/Mtok"))

    lines = side_by_side((hw_a.path, hw_b.path), (hw_a.name, hw_b.name), rows)
    for side, hw in (("A", hw_a), ("B", hw_b)):  # a copy's values no source or notes speak for (qa455: a price of
        hand = hand_set_fields(read_text(hw.path)) if hw.path else []  # 1.95 USD/h beside 3, its source unsaid)
        if hand:  # as its header says it (hand_set_line): since the copy was made, once its source or notes are among them
            how = "since the copy was made" if {"source", "notes"} & set(hand) else "not from its source or notes"
            lines.append(f"set by hand in {side} ({hw.name}), {how}: {', '.join(hand)}")
    note = shard_note(ref, dep)
    if note:  # a layout the engines refuse to load: the reference points above are the silicon's, not a deployment's
        lines.append(f"note: {note}")
    return "\n".join(lines)


def _reference_points(sides: tuple, label: str) -> list[tuple]:
    """Rows under heading `label` of a diff's reference decode points (B=1 S=1024 and B=64 S=4096: step time and
    tokens/s), one value for each of the two `sides`, (hardware, model, deployment, engine or None for ideal); a point
    that does not fit in memory is said so, not timed."""
    from roofline.capacity import capacity
    from roofline.engine import step_time_s

    rows: list[tuple] = [(label, None, None, None)]
    # what each side gives weights and KV cache, and the batch that holds at the longer point's context (qa369: a diff
    # showed sglang's 0.907 against vllm's 0.9, 0.992x, where sglang's usable memory is the larger)
    context = max(c for _, c in DIFF_POINTS)
    caps = [capacity(h, m, 1, context + 1, d, engine=e) for h, m, d, e in sides]
    rows.append(("  usable memory per device (weights + KV)", *(float(c["usable_memory_bytes"]) for c in caps), "B"))
    rows.append((f"  max batch at S={context}", *(int(c["max_batch"]) for c in caps), ""))
    for batch, context in DIFF_POINTS:
        times, fits = [], []
        for h, m, d, e in sides:
            times.append(float(step_time_s(h, m, batch, 1, context, d, engine=e)))
            fits.append(bool(capacity(h, m, batch, context + 1, d, engine=e)["fits_in_memory"]))  # its share (qa166)
        rows.append((f"  B={batch} S={context} step time", *(t if f else NO_FIT for t, f in zip(times, fits)), "s"))
        rows.append((f"  B={batch} S={context} tokens/s", *(batch / t if f else NO_FIT for t, f in zip(times, fits)), "tok/s"))
    return rows


def _groups_text(m) -> str:
    """A model's attention groups as one short line: '61 full', '18 sliding 128, 18 full', '21 compressed 4x top 512'
    (layers, kind, and a sliding group's window, a compressed group's ratio and the entries sparse attention reads)."""
    def one(g) -> str:
        if g.kind == "sliding":
            return f"{g.layers} sliding {g.window:,}"
        if g.kind == "compressed":
            return f"{g.layers} compressed {g.ratio}x" + (f" top {g.read_tokens:,}" if g.read_tokens else "")
        return f"{g.layers} {g.kind}" + (f" top {g.read_tokens:,}" if g.read_tokens else "")
    return ", ".join(one(g) for g in m.groups)


def diff_models(a: str, b: str, extra_dirs: tuple = (), hardware: str = "h100-sxm", tp: int = 1) -> str:
    """Two model profiles side by side (`models diff`): shape, parameter counts, KV bytes a token (the whole model's, and
    a device's at tp > 1), weights as released,
    and each model's two reference decode points on `hardware` (tp `tp`, native precision) under the ideal engine
    (the silicon's bound); a `*` where they differ."""
    from roofline.hardware import load_hardware
    from roofline.layout import deployment
    from roofline.model import load_model
    from roofline.tables import _precision_text

    ma, mb = load_model(a, extra_dirs), load_model(b, extra_dirs)
    hw = load_hardware(hardware, extra_dirs)
    rows: list[tuple] = [("kv_layout", ma.kv_layout, mb.kv_layout, "text")]
    rows += [(key, getattr(ma, key), getattr(mb, key), "") for key in
             ("layers", "hidden_size", "heads", "kv_heads", "head_dim", "ffn_size", "vocab_size")]
    rows += [(key, str(getattr(ma, key)).lower(), str(getattr(mb, key)).lower(), "text")  # qa222: shapes a diff left out
             for key in ("ffn_gated", "tied_embeddings")]
    rows.append(("attention groups", _groups_text(ma), _groups_text(mb), "text"))  # windows, compressed, sparse
    for key in ("experts", "top_k", "expert_ffn_size", "shared_experts", "shared_expert_ffn_size", "dense_layers",
                "dense_placement", "groups", "groups_per_token") if ma.moe or mb.moe else ():
        values = [getattr(m.moe, key) if m.moe else None for m in (ma, mb)]
        if key == "shared_expert_ffn_size":  # 0 stands for a routed expert's size (MoESpec.shared_ffn_width): the size
            # in use (qa460: DeepSeek-V3's 2,048 and an import's 0 starred as differing, their parameters equal)
            values = [(m.moe.shared_expert_ffn_size or m.moe.expert_ffn_size) if m.moe else None for m in (ma, mb)]
        rows.append((f"moe.{key}", *values, "text" if key == "dense_placement" else ""))
    rows += [("max_context_tokens", ma.max_context_tokens, mb.max_context_tokens, ""),
             ("mtp_modules", ma.mtp_modules, mb.mtp_modules, ""),
             ("parameters", float(ma.params), float(mb.params), "params"),
             ("active parameters", float(ma.active_params), float(mb.active_params), "params"),
             ("KV per token at 4k (bf16)", ma.kv_bytes_per_token_at(4096), mb.kv_bytes_per_token_at(4096), "KiB"),
             ("KV per token at 128k (bf16)", ma.kv_bytes_per_token_at(131072), mb.kv_bytes_per_token_at(131072), "KiB"),
             ("native precision", _precision_text(ma), _precision_text(mb), "text"),
             ("weights as released", ma.weight_bytes_as_released, mb.weight_bytes_as_released, "B")]
    if tp > 1:  # what one device holds at the tp asked for, which sets the batch that fits (qa343: 0.214x whole-model
        # where each device of tp 8 holds 1.71x: GQA's KV heads split over tp, an MLA latent replicated)
        index = next(i for i, row in enumerate(rows) if row[0] == "native precision")
        rows.insert(index, (f"KV per token a device at 4k (bf16, tp {tp})",
                            *(float(m.kv_cache_bytes_per_sequence(4096, "bf16", tp)) / 4096 for m in (ma, mb)), "KiB"))
    deps = [deployment(m, tp=tp, where="command line") for m in (ma, mb)]
    rows += _reference_points(tuple((hw, m, d, None) for m, d in zip((ma, mb), deps)),
                              f"decoding on {deps[0].devices} x {hw.name} (tp {tp}, native precision), ideal engine:")
    paths = tuple(find_profile("model", m, extra_dirs) if isinstance(m, str) else "(a spec)" for m in (a, b))
    return "\n".join(side_by_side(paths, (ma.name, mb.name), rows))


def diff_engines(a: str, b: str, extra_dirs: tuple = (), model_name: str = "llama-3.1-8b", hardware: str = "h100-sxm",
                 tp: int = 1, dp_attention: int = 1, ep: int = 1, pp: int = 1) -> str:
    """Two engine profiles side by side (`engines diff`): every cost field as it applies on `hardware` (its family's
    overrides applied; the general values where they differ), kernel counts, the fits' rows and RMS error, and
    `model_name`'s two reference decode points on `hardware` (in the layout `tp`, `dp_attention`, `ep`, `pp`) under
    each; a `*` where they differ."""
    from roofline.hardware import load_hardware
    from roofline.layout import deployment, describe_layout
    from roofline.model import load_model
    from roofline.serving import cost_sharers, load_engine
    from roofline.tables import _override_value

    ea, eb = load_engine(a, extra_dirs), load_engine(b, extra_dirs)
    hw = load_hardware(hardware, extra_dirs)
    ref = load_model(model_name, extra_dirs)
    on = [e.for_hardware(hw) for e in (ea, eb)]
    ja, jb = (e.to_json() for e in on)
    rows: list[tuple] = [(f"on {hw.name} (family {hw.engine_family}: overrides applied):", None, None, None)]
    for key in ja:
        if key in ("name", "display_name", "version", "overrides", "fitted", "kernels_per_layer", "kernels_per_layer_mla"):
            continue
        if key == "known_misses":  # a count here (qa306: a repr a row wide); `engines show` says each; B's marked where
            cells = [f"{len(j[key])} (engines show)" if j[key] else "0" for j in (ja, jb)]  # they differ, the count alike
            if ja[key] != jb[key] and len(ja[key]) == len(jb[key]):  # (qa312: a `measured` changed, unstarred)
                cells[1] = f"{len(jb[key])}, not A's (engines show)"
            shared = [sum(len(o.known_misses) for o, _ in cost_sharers(e)) for e in (ea, eb)]  # said under it too
            cells = [c + (f" + {n} of profiles priced alike" if n else "") for c, n in zip(cells, shared)]  # (qa382: 0 and
            rows.append(("known misses", *cells, "text"))  # 5 beside a predict saying vllm-v0's 5 under vllm)
            continue
        va, vb = ja[key], jb[key]
        if key == "speculation_caveats":  # the methods it has a caveat for (engines show says each): a row a repr wide else
            va, vb = (", ".join(v) if v else "-" for v in (va, vb))
        unit = ("s" if key.endswith("_s") else "B" if key.endswith("_bytes") else "text"
                if isinstance(va, (str, bool)) or va is None or isinstance(vb, (str, bool)) else "")
        shown = (lambda v: "-" if v is None else str(v).lower() if isinstance(v, bool) else v) if unit == "text" else (lambda v: v)
        va, vb = shown(va), shown(vb)
        label = key.removesuffix("_s").removesuffix("_bytes")
        if key == "host_overlap_speculating":  # qa202: it gives up an overlap that host_overlap false never had
            idle = [side for side, j in (("A", ja), ("B", jb)) if not j["host_overlap"]]
            label += f" ({' and '.join(idle)}: no effect, host_overlap false)" if idle else ""
        rows.append((label, va, vb, unit))
    dep = deployment(ref, tp=tp, dp_attention=dp_attention, ep=ep, pp=pp, where="command line")
    if any(e.memory_fraction_by_devices for e in on):  # the share applied at this layout (qa361: the tp-1 share said)
        rows.append((f"memory_fraction at {dep.devices} device{'s' if dep.devices > 1 else ''} (applied)",
                     *(e.memory_fraction_for(dep.devices) for e in on), ""))
    for group in ("kernels_per_layer", "kernels_per_layer_mla"):
        for op in dict.fromkeys([*ja[group], *jb[group]]):
            # an MLA count a profile does not list is its kernels_per_layer's (ServingEngine.kernels): that one is
            # compared (qa365: '-' against 2, starred, where both ran 2)
            va, vb = (j[group].get(op, j["kernels_per_layer"].get(op) if group == "kernels_per_layer_mla" else None)
                      for j in (ja, jb))
            unlisted = [side for side, j in (("A's", ja), ("B's", jb)) if op not in j[group]] if group == "kernels_per_layer_mla" else []
            rows.append((f"{group}.{op}" + (f" ({' and '.join(unlisted)} kernels_per_layer.{op})" if unlisted else ""), va, vb, ""))
    for glob in dict.fromkeys(g for e in (ea, eb) for g, _ in e.overrides):  # each family's own values, a row each
        sets = [dict(dict(e.overrides).get(glob, {})) for e in (ea, eb)]
        for key in dict.fromkeys([*sets[0], *sets[1]]):
            if any(isinstance(x.get(key), dict) for x in sets):  # kernel counts: a row an operator
                for op in dict.fromkeys([*(sets[0].get(key) or {}), *(sets[1].get(key) or {})]):
                    rows.append((f"overrides {glob}: {key}.{op}", *((x.get(key) or {}).get(op) for x in sets), ""))
            else:
                rows.append((f"overrides {glob}: {key.removesuffix('_s').removesuffix('_bytes')}",
                             *(_override_value(key, x[key]) if key in x else "-" for x in sets), "text"))
    fits = [(e.fitted or {}) for e in (ea, eb)]
    rows.append(("fitted rows", *(str(f.get("rows", "-")).split(" of engine")[0] for f in fits), "text"))
    both = all(fits)
    prints = [set(str(f.get("row_fingerprints") or "").split()) for f in fits]  # rows by what they measured (qa360)
    same_rows = both and (prints[0] == prints[1] if all(prints) else
                          all(f.get("file") == fits[0].get("file") and f.get("row_numbers") == fits[0].get("row_numbers")
                              for f in fits))  # qa203: 0.078 on 194 published rows against 0.021 on 8 read as 0.27x
    from roofline.tables import fit_edited

    edited = [fit_edited(e) for e in (ea, eb)]  # qa340: a copy's hand-set costs reported with its source's fit error
    if any(edited):
        rows.append(("fitted RMS log error (of the fit's values; set by hand since: not this profile's)",
                     *(f"{f.get('rms_log_error', '-')}" + (f", before {', '.join(x)}" if x else "") for f, x in zip(fits, edited)),
                     "text"))
    else:
        rows.append(("fitted RMS log error" if same_rows or not both else "fitted RMS log error (each on its own rows: not compared)",
                     *((f.get("rms_log_error") if same_rows else str(f.get("rms_log_error", "-"))) for f in fits),
                     "" if same_rows else "text"))
    from roofline.serving import for_engine

    # each engine's own layout of the model (its stage split under attention DP: qa365's layouts), as predict's
    rows += _reference_points(tuple((hw, ref, for_engine(dep, e, ref), e) for e in on),
                              f"{model_name} decoding on {dep.devices} x {hw.name} ({describe_layout(tp, dp_attention, ep, pp)}, "
                              "native precision):")
    from roofline.serving import engine_refusals

    # a device, layout or shard an engine runs no setup of, as predict says it (qa370: the diff gave a layout's figures
    # unsaid; qa479: trtllm's on an MI300X, sglang's of a dense model under attention DP)
    notes = [f"note: {n}" for n in dict.fromkeys(n for e in on for n in engine_refusals(e, hw, ref, for_engine(dep, e, ref)))]
    return "\n".join([*side_by_side((ea.path or "(built in)", eb.path or "(built in)"), (ea.name, eb.name), rows), *notes])
