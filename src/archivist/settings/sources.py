"""Where settings come from: keywords (the CLI's flags), the environment, the TOML file.

``ARCHIVIST_CONFIG`` names the file (set but empty: no file is read); without it,
``archivist.toml`` in the working directory is read when it exists. A named file that is
missing, and a key that is no setting, are errors: either would otherwise be ignored in
silence, and a file holding ``api_keys`` that is not read starts an open server, while a
misspelt key (``chld_chars``) leaves the default in effect. ``ARCHIVIST_DATA_DIR`` set
but empty is an error too (it would put the library in the working directory).

Each source hands pydantic-settings the grouped shape (see :mod:`archivist.settings.names`).
"""

from __future__ import annotations

import json
import os
import tomllib
import typing
from pathlib import Path
from typing import Any

from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource

from archivist.settings.names import (
    ENV_PREFIX,
    FLAT_NAMES,
    FOREIGN_ENV,
    GROUPS,
    TOP_LEVEL,
    InvalidSettings,
    nest,
    unknown,
    warn_deprecated,
)

__all__ = ["EnvironmentSource", "FileSource", "InvalidSettings", "KeywordSource",
           "check_sources", "config_file"]


def config_file() -> Path | None:
    """The TOML file to read: ``ARCHIVIST_CONFIG``'s (empty: none), else ./archivist.toml."""
    named = os.environ.get("ARCHIVIST_CONFIG")
    if named is None:
        return Path("archivist.toml")
    return Path(named) if named.strip() else None


def check_sources() -> None:
    """``InvalidSettings`` for a missing named file or an empty ``ARCHIVIST_DATA_DIR``."""
    if os.environ.get("ARCHIVIST_DATA_DIR") is not None and not os.environ[
            "ARCHIVIST_DATA_DIR"].strip():
        raise InvalidSettings("data_dir: ARCHIVIST_DATA_DIR is empty; unset it for "
                              "./.archivist, or name a folder")
    named = os.environ.get("ARCHIVIST_CONFIG", "")
    if named.strip() and not Path(named).is_file():
        raise InvalidSettings(f"ARCHIVIST_CONFIG: {named} is not a file (set it empty to read "
                              "no configuration file)")


class _Source(PydanticBaseSettingsSource):
    """A source that builds its whole dictionary at once (no per-field lookup)."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        """Unused: ``__call__`` returns every value."""
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:  # pragma: no cover - every subclass overrides it
        raise NotImplementedError


class KeywordSource(_Source):
    """The keywords given to ``Settings(...)``, flat names moved into their group."""

    def __init__(self, settings_cls: type[BaseSettings], keywords: dict[str, Any]) -> None:
        super().__init__(settings_cls)
        self.keywords = keywords

    def __call__(self) -> dict[str, Any]:
        """The keywords in the grouped shape."""
        return nest(self.keywords, "keyword")


class FileSource(_Source):
    """``archivist.toml``: ``[group]`` tables, ``data_dir`` and ``collection`` at the top."""

    def __init__(self, settings_cls: type[BaseSettings], path: Path) -> None:
        super().__init__(settings_cls)
        self.path = path

    def __call__(self) -> dict[str, Any]:
        """The file's settings in the grouped shape; nothing when there is no file."""
        if not self.path.is_file():
            return {}
        with self.path.open("rb") as handle:
            return nest(tomllib.load(handle), "file", str(self.path))


class EnvironmentSource(_Source):
    """``ARCHIVIST_GROUP__NAME`` variables, the top-level ones, flat and foreign names.

    Names are read in any case. A group's variable wins over a flat one, which wins over
    another tool's (``OLLAMA_HOST``). An ``ARCHIVIST_`` variable that is no setting is left
    alone (``ARCHIVIST_CONFIG`` is one), unless it names a group: then it is a misspelling.
    """

    def __call__(self) -> dict[str, Any]:
        """The environment's settings in the grouped shape."""
        environ = {key.upper(): value for key, value in os.environ.items()}
        found: dict[str, Any] = {}
        grouped: dict[str, dict[str, Any]] = {group: {} for group in GROUPS}
        for variable, (group, field) in FOREIGN_ENV.items():
            if variable in environ:
                grouped[group][field] = _parsed(variable, group, field, environ[variable])
        for flat, (group, field) in FLAT_NAMES.items():
            variable = ENV_PREFIX + flat.upper()
            if variable in environ:
                warn_deprecated(flat, "env", "")
                grouped[group][field] = _parsed(variable, group, field, environ[variable])
        for variable, value in environ.items():
            name = variable.removeprefix(ENV_PREFIX).lower()
            if not variable.startswith(ENV_PREFIX):
                continue
            if name in TOP_LEVEL:
                found[name] = value
            group, delimiter, field = name.partition("__")
            if not delimiter:
                continue
            if group not in GROUPS or field not in GROUPS[group].model_fields:
                raise unknown(f"{group}.{field}", variable)
            grouped[group][field] = _parsed(variable, group, field, value)
        return {**found, **{group: values for group, values in grouped.items() if values}}


def _parsed(variable: str, group: str, field: str, value: str) -> Any:
    """``value`` as the field takes it: JSON for a mapping or a list, else the text."""
    annotation = GROUPS[group].model_fields[field].annotation
    if typing.get_origin(annotation) not in (dict, list):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        raise InvalidSettings(f"{group}.{field} ({variable}): cannot be parsed (a JSON value "
                              "is expected)") from None

