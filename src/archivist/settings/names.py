"""Every spelling of every setting: the groups' names, and the flat names they replace.

A setting lives in a group: ``[storage] database_url`` in ``archivist.toml``,
``ARCHIVIST_STORAGE__DATABASE_URL`` in the environment, ``storage={"database_url": ...}``
as a keyword. ``data_dir`` and ``collection`` stay at the top: every command takes them.
The flat names of earlier releases (``database_url = ...`` at the top of the file,
``ARCHIVIST_DATABASE_URL``, ``Settings(database_url=...)``) are still read, each use
logging one deprecation warning that names the new spelling.
"""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel

from archivist.settings.agent import AgentSettings
from archivist.settings.index import IndexSettings
from archivist.settings.llm import LLMSettings
from archivist.settings.server import ServerSettings
from archivist.settings.storage import StorageSettings

ENV_PREFIX = "ARCHIVIST_"
GROUPS: dict[str, type[BaseModel]] = {
    "storage": StorageSettings, "index": IndexSettings, "agent": AgentSettings,
    "llm": LLMSettings, "server": ServerSettings,
}
TOP_LEVEL = ("data_dir", "collection")

# A group's field whose flat name was not the field's own name.
_RENAMED = {("llm", "model"): "llm", ("llm", "fast_model"): "llm_fast",
            ("llm", "timeout_s"): "llm_timeout_s", ("llm", "max_retries"): "llm_max_retries",
            ("llm", "max_tokens"): "llm_max_tokens"}

# flat name -> (group, field), for every setting of a group
FLAT_NAMES: dict[str, tuple[str, str]] = {
    _RENAMED.get((group, field), field): (group, field)
    for group, model in GROUPS.items() for field in model.model_fields
}

# Variables of other tools that set the same thing; an ARCHIVIST_ variable wins over them.
FOREIGN_ENV: dict[str, tuple[str, str]] = {
    "OLLAMA_HOST": ("llm", "ollama_base_url"),
    "OPENAI_BASE_URL": ("llm", "openai_base_url"),
    "LANGFUSE_PUBLIC_KEY": ("llm", "langfuse_public_key"),
    "LANGFUSE_SECRET_KEY": ("llm", "langfuse_secret_key"),
    "LANGFUSE_HOST": ("llm", "langfuse_host"),
    "OTEL_EXPORTER_OTLP_ENDPOINT": ("agent", "otlp_endpoint"),
}

Origin = Literal["file", "keyword"]
logger = logging.getLogger("archivist.notice")


class InvalidSettings(ValueError):
    """Settings that cannot be used: one line naming each setting and why, never a value."""


class UnknownSetting(InvalidSettings):
    """A name that is no setting: one line naming it, with the closest real name."""


def env_name(group: str, field: str) -> str:
    """The environment variable of a group's setting: ``ARCHIVIST_STORAGE__DATABASE_URL``."""
    return f"{ENV_PREFIX}{group.upper()}__{field.upper()}"


def _suggestions() -> dict[str, str]:
    """A name someone may have meant -> the setting's name now (``storage.database_url``)."""
    names = {name: name for name in (*TOP_LEVEL, *GROUPS)}
    for group, model in GROUPS.items():
        for field in model.model_fields:
            names[f"{group}.{field}"] = names.setdefault(field, f"{group}.{field}")
    for flat, (group, field) in FLAT_NAMES.items():
        names.setdefault(flat, f"{group}.{field}")
    return names


def unknown(name: str, where: str) -> UnknownSetting:
    """The error for ``name`` found in ``where``, suggesting the closest real name."""
    shown = f"'{name}'" if re.fullmatch(r"[a-z][a-z0-9_.]{0,60}", name) else "(a key)"
    names = _suggestions()
    close = difflib.get_close_matches(name, list(names), n=1)
    hint = f"; did you mean '{names[close[0]]}'?" if close else ""
    return UnknownSetting(f"{where}: unknown setting {shown}{hint}")


def new_spelling(flat: str, origin: Origin | Literal["env"]) -> str:
    """How ``flat`` is written now, in the same place it was found."""
    group, field = FLAT_NAMES[flat]
    if origin == "env":
        return env_name(group, field)
    if origin == "file":
        return f"{field} under [{group}]"
    return f"{group}={{'{field}': ...}}"


def warn_deprecated(flat: str, origin: Origin | Literal["env"], where: str) -> None:
    """Log the one warning a use of the flat name ``flat`` gets."""
    old = {"env": ENV_PREFIX + flat.upper(), "file": f"'{flat}'"}.get(origin, f"keyword {flat}=")
    logger.warning("deprecated setting: %s%s; use %s", old, where, new_spelling(flat, origin))


def nest(values: Mapping[str, Any], origin: Origin, where: str = "") -> dict[str, Any]:
    """``values`` in the grouped shape, flat names moved into their group (and flagged).

    ``where`` names the source in messages (the file's path). A group's own spelling wins
    over a flat name for the same setting. An unknown name is :class:`UnknownSetting`.
    """
    place = f" in {where}" if where else ""
    nested: dict[str, Any] = {}
    flat: dict[str, dict[str, Any]] = {}
    for key, value in values.items():
        if key in TOP_LEVEL:
            nested[key] = value
        elif key in GROUPS and isinstance(value, Mapping | BaseModel):
            nested[key] = _group_values(key, value, where or "settings")
        elif key in FLAT_NAMES:
            warn_deprecated(key, origin, place)
            group, field = FLAT_NAMES[key]
            flat.setdefault(group, {})[field] = value
        else:
            raise unknown(key, where or "settings")
    for group, fields in flat.items():
        nested[group] = {**fields, **nested.get(group, {})}
    return nested


def _group_values(group: str, value: Mapping[str, Any] | BaseModel, where: str) -> dict[str, Any]:
    if isinstance(value, BaseModel):
        return value.model_dump(exclude_unset=True)
    fields = GROUPS[group].model_fields
    for field in value:
        if field not in fields:
            raise unknown(f"{group}.{field}", where)
    return dict(value)
