"""Safe output folders: written in full to a temporary sibling, then moved into place.

A failed run leaves nothing behind; an existing output is replaced only with `force`.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from roofline.errors import RooflineError


def check_writable(out: Path, force: bool) -> None:
    """Refuse to touch an existing non-empty folder (or a file) unless `force`."""
    if out.exists() and not out.is_dir():
        raise RooflineError(f"--out: expected a folder, found an existing file {out} (choose another path)")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise RooflineError(f"--out: {out} exists and is not empty; pass --force to replace it")


@contextlib.contextmanager
def staged_dir(out: Path, force: bool) -> Iterator[Path]:
    """Yield a temporary folder next to `out`; on success it replaces `out`, on error it is removed."""
    out = Path(out)
    check_writable(out, force)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if out.exists():
        old = out.with_name(f".{out.name}.old")
        shutil.rmtree(old, ignore_errors=True)
        out.rename(old)
        tmp.rename(out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        tmp.rename(out)


def write_file_safely(path: Path, text: str, force: bool) -> None:
    """Write `text` to `path` atomically; refuse to overwrite without `force`."""
    path = Path(path)
    if path.exists() and not force:
        raise RooflineError(f"--out: {path} exists; pass --force to overwrite it")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
