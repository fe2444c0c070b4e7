"""Where settings come from, checked before they are read: the file and the environment.

``ARCHIVIST_CONFIG`` names the file (set but empty: no file is read); without it,
``archivist.toml`` in the working directory is read when it exists. A named file that is
missing, and a key that is no setting, are errors: either would otherwise be ignored in
silence, and a file holding ``api_keys`` that is not read starts an open server, while a
misspelt key (``chld_chars``) leaves the default in effect. ``ARCHIVIST_DATA_DIR`` set
but empty is an error too (it would put the library in the working directory).
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from pathlib import Path


class InvalidSettings(ValueError):
    """Settings that cannot be used: one line naming each setting and why, never a value."""


def config_file() -> Path | None:
    """The TOML file to read: ``ARCHIVIST_CONFIG``'s (empty: none), else ./archivist.toml."""
    named = os.environ.get("ARCHIVIST_CONFIG")
    if named is None:
        return Path("archivist.toml")
    return Path(named) if named.strip() else None


def check_sources(known: set[str]) -> None:
    """``InvalidSettings`` for a missing named file, a key not in ``known``, an empty data dir."""
    if os.environ.get("ARCHIVIST_DATA_DIR") is not None and not os.environ[
            "ARCHIVIST_DATA_DIR"].strip():
        raise InvalidSettings("data_dir: ARCHIVIST_DATA_DIR is empty; unset it for "
                              "./.archivist, or name a folder")
    named = os.environ.get("ARCHIVIST_CONFIG", "")
    if named.strip() and not Path(named).is_file():
        raise InvalidSettings(f"ARCHIVIST_CONFIG: {named} is not a file (set it empty to read "
                              "no configuration file)")
    path = config_file()
    if path is None or not path.is_file():
        return
    with path.open("rb") as handle:
        keys = list(tomllib.load(handle))
    for key in keys:
        if key not in known:
            shown = f"'{key}'" if re.fullmatch(r"[a-z][a-z0-9_]{0,40}", key) else "(a key)"
            close = difflib.get_close_matches(key, sorted(known), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise InvalidSettings(f"{path}: unknown setting {shown}{hint}")
