"""What an interrupted upload can leave in ``uploads/``, found and removed when a server starts.

A request that died while it streamed leaves its ``.staging/<id>`` folder; a worker killed
between moving a file into place and recording its document leaves a file no document
names. Anything a queued or running job still needs is kept, and so is anything younger
than ``min_age_s`` (on a shared database another worker may be writing it right now).
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from pathlib import Path

log = logging.getLogger(__name__)
STAGING = ".staging"


def _newest(path: Path) -> float:
    """The latest modification time of a folder or anything in it."""
    newest = path.lstat().st_mtime
    for root, _dirs, files in os.walk(path):
        for name in files:
            newest = max(newest, (Path(root) / name).lstat().st_mtime)
    return newest


def remove_leftovers(uploads: Path, needed: set[Path], documents: set[Path],
                     min_age_s: float = 0.0) -> list[str]:
    """Delete staging folders and files that no job (``needed``) and no document names.

    Returns one line per removal. ``needed`` and ``documents`` are resolved paths.
    """
    if not uploads.is_dir():
        return []
    cutoff = time.time() - min_age_s
    removed: list[str] = []
    staging = uploads / STAGING
    if staging.is_dir():
        for folder in staging.iterdir():
            inside = {p.resolve() for p in folder.iterdir()} if folder.is_dir() else set()
            if inside & needed or _newest(folder) > cutoff:
                continue
            if folder.is_dir() and not folder.is_symlink():
                shutil.rmtree(folder)
            else:
                folder.unlink()
            removed.append(f"removed an unfinished upload's staging folder {folder.name}")
    for root, dirs, files in os.walk(uploads, topdown=False):  # never follows links
        here = Path(root)
        if here == uploads:
            dirs[:] = []
        if here.is_relative_to(staging):
            continue
        for name in files:
            path = here / name
            if path.resolve() in needed or path.resolve() in documents:
                continue
            if path.lstat().st_mtime > cutoff:
                continue
            path.unlink()
            removed.append(f"removed {path.relative_to(uploads)}: no document or job names it")
        if here != uploads and not any(here.iterdir()):
            here.rmdir()
    for line in removed:
        log.warning("upload cleanup: %s", line)
    return removed
