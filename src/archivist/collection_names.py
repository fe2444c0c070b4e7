"""The one rule for collection names, used by the settings and by every interface.

A name is 1 to 64 ASCII letters, digits, ``-`` and ``_``: it is safe in a file name, a URL
and a database value. The HTTP API's parameters take :data:`COLLECTION_PATTERN`; everything
else calls :func:`check_collection_name`.
"""

from __future__ import annotations

import re

from archivist.types import ArchivistError

COLLECTION_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
COLLECTION_RULE = "a collection name uses letters, digits, '-' and '_' only (1 to 64, ASCII)"
_MAX_CHARS = 64


class InvalidCollectionName(ArchivistError, ValueError):
    """A collection name that breaks the rule (a ``ValueError`` too, for validators)."""


def check_collection_name(value: str) -> str:
    """``value`` if it is a valid collection name; :class:`InvalidCollectionName` otherwise."""
    if not isinstance(value, str) or not re.fullmatch(COLLECTION_PATTERN, value):
        raise InvalidCollectionName(COLLECTION_RULE)
    return value


def collection_name_from(text: str, prefix: str = "") -> str:
    """A valid collection name made from any ``text`` (a data set's name, say).

    Every run of other characters becomes one ``_``; the result is cut to the longest name
    allowed, and ``prefix`` is kept whole.
    """
    slug = re.sub(r"[^A-Za-z0-9_-]+", "_", text).strip("_") or "corpus"
    return check_collection_name((prefix + slug)[:_MAX_CHARS])
