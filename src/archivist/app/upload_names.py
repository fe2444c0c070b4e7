"""Names under which uploaded files are stored: Unicode kept, nothing unsafe, no collisions.

A name is NFC-normalised and keeps letters and digits of every script (``日本.md`` stays
``日本.md``). Folders, control and format characters (bidi overrides, zero-widths) and
characters that are special to shells or other file systems become ``_``; a hidden or
empty name is renamed. When anything had to change, a short digest of the original name is
added, so two different original names never end up as the same stored file, while the
same name uploaded again maps to the same file (a new version of it). Names that differ
only in case (``notes.MD``, ``notes.md``) or in spaces around them (``"report.md "``) are
different names, kept apart.
"""

from __future__ import annotations

import hashlib
import unicodedata

MAX_NAME_BYTES = 200  # file systems allow 255 bytes; leave room for " (2)" and the digest
_KEPT_PUNCTUATION = frozenset("._ ()+-,&'[]@")


def safe_name(original: str | None) -> str:
    """The stored name of an upload called ``original`` (see the module docstring)."""
    given = unicodedata.normalize("NFC", original or "")
    base = given.replace("\\", "/").rsplit("/", 1)[-1]
    cleaned = "".join(ch if _kept(ch) else "_" for ch in base).strip(" .")
    if not cleaned:
        cleaned = "upload"
    stem, dot, suffix = cleaned.rpartition(".")
    if not (dot and stem and 0 < len(suffix) <= 10 and suffix.isascii()):
        stem, suffix = cleaned, ""
    if cleaned != given or _too_long(stem, suffix):
        digest = hashlib.sha256(given.encode("utf-8")).hexdigest()[:8]
        stem = f"{_truncate(stem, MAX_NAME_BYTES - 20)}-{digest}"
    return f"{stem}.{suffix}" if suffix else stem


def _kept(ch: str) -> bool:
    if ch in _KEPT_PUNCTUATION:
        return True
    category = unicodedata.category(ch)
    return category[0] in "LNM"  # letters, numbers, combining marks


def _too_long(stem: str, suffix: str) -> bool:
    return len(f"{stem}.{suffix}".encode()) > MAX_NAME_BYTES


def _truncate(text: str, max_bytes: int) -> str:
    data = text.encode("utf-8")[:max_bytes]
    return data.decode("utf-8", errors="ignore")


def owner_folder(owner: str) -> str:
    """The uploads sub-folder of a document owner (``key:ab12...`` -> ``key-ab12...``)."""
    return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in owner) or "anonymous"
