"""One settings tree: ``ARCHIVIST_*`` environment, an optional ``archivist.toml``, CLI flags.

Settings come in groups -- ``storage``, ``index``, ``agent``, ``llm``, ``server`` -- and
code reads them as ``settings.storage.database_url``. ``data_dir`` and ``collection``, which
every command takes, stay at the top. Precedence, highest first: values passed to
``Settings(...)`` (the CLI's flags), environment variables, ``archivist.toml`` in the
working directory (or the file named by ``ARCHIVIST_CONFIG``), then the defaults. The flat
names of earlier releases are still read, with a deprecation warning (see ``names``).
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
)

from archivist.collection_names import check_collection_name
from archivist.settings.agent import AgentSettings, StrategySetting
from archivist.settings.index import (
    DEFAULT_EMBEDDING_MODEL,
    MAX_SEARCH_K,
    QUERY_MAX_CHARS,
    SEARCH_MODES,
    SEARCH_MODES_TEXT,
    IndexSettings,
    SearchMode,
)
from archivist.settings.llm import LLMSettings
from archivist.settings.names import GROUPS, InvalidSettings, UnknownSetting, unknown
from archivist.settings.server import ServerSettings
from archivist.settings.sources import (
    EnvironmentSource,
    FileSource,
    KeywordSource,
    check_sources,
    config_file,
)
from archivist.settings.storage import StorageSettings

__all__ = [
    "DEFAULT_EMBEDDING_MODEL", "MAX_SEARCH_K", "QUERY_MAX_CHARS", "SEARCH_MODES",
    "SEARCH_MODES_TEXT", "AgentSettings", "IndexSettings", "InvalidSettings", "LLMSettings",
    "SearchMode", "ServerSettings", "Settings", "StorageSettings", "StrategySetting",
    "UnknownSetting", "check_data_dir", "load_settings", "settings_problems",
]


class Settings(BaseSettings):
    """Every option Archivist reads, in groups; the field names are ``archivist.toml``'s."""

    model_config = SettingsConfigDict(env_prefix="ARCHIVIST_", extra="forbid")

    data_dir: Path = Field(default=Path(".archivist"), description="Where a library lives.")
    collection: str = Field(default="default", description="The knowledge base to use.")
    storage: StorageSettings = Field(default_factory=StorageSettings)
    index: IndexSettings = Field(default_factory=IndexSettings)
    agent: AgentSettings = Field(default_factory=AgentSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)

    @field_validator("collection")
    @classmethod
    def _collection_name(cls, value: str) -> str:
        return check_collection_name(value)

    @field_validator("data_dir")
    @classmethod
    def _writable(cls, value: Path) -> Path:
        return check_data_dir(value)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Flags beat the environment, which beats ``archivist.toml``."""
        keywords = dict(getattr(init_settings, "init_kwargs", {}))
        path = config_file()
        file = () if path is None else (FileSource(settings_cls, path),)
        return (KeywordSource(settings_cls, keywords), EnvironmentSource(settings_cls), *file)

    def with_values(self, **changes: Any) -> Settings:
        """A copy with ``changes``: a group's as a mapping (``agent={"strategy": "tools"}``).

        Nothing is validated again, as with ``model_copy``; a name that is no setting of
        its group is :class:`UnknownSetting`.
        """
        update: dict[str, Any] = {}
        for name, value in changes.items():
            if name in GROUPS:
                group = getattr(self, name)
                for field in value:
                    if field not in type(group).model_fields:
                        raise unknown(f"{name}.{field}", "with_values")
                update[name] = group.model_copy(update=dict(value))
            elif name in type(self).model_fields:
                update[name] = value
            else:
                raise unknown(name, "with_values")
        return self.model_copy(update=update)

    # --- derived paths -------------------------------------------------------------
    @property
    def vectors_path(self) -> Path:
        """The embedded engine's folder (one Qdrant Edge shard per collection)."""
        return self.data_dir / "vectors"


def check_data_dir(path: Path) -> Path:
    """``path`` if a library can live there (it exists, or can be made, and is writable)."""
    probe = Path(os.path.abspath(os.path.expanduser(path)))
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise ValueError(f"{probe} is not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise ValueError(f"{probe} is not writable")
    return path


def settings_problems(exc: ValidationError) -> str:
    """A pydantic error as one line, ``setting: problem; ...``, without any input value.

    A group's setting is named ``group.setting``, and no deeper: deeper parts of the
    location can be secrets (the keys of ``server.key_collections`` are API keys).
    """
    problems = []
    for error in exc.errors(include_input=False, include_url=False):
        message = str(error["msg"]).removeprefix("Value error, ")
        where = [str(part) for part in error["loc"]]
        name = ".".join(where[:2] if where and where[0] in GROUPS else where[:1])
        problems.append(f"{name}: {message}" if name else message)
    return "; ".join(problems)


def load_settings(**overrides: Any) -> Settings:
    """Settings from every source, with ``overrides`` (CLI flags) on top; ``None`` is ignored.

    An override is a top-level setting (``data_dir=...``) or a group's mapping
    (``llm={"model": ...}``), whose ``None`` values are ignored too. Any problem (a bad
    value, a malformed ``archivist.toml``, an unusable ``data_dir``) is
    :class:`InvalidSettings`.
    """
    given: dict[str, Any] = {}
    for key, value in overrides.items():
        if isinstance(value, dict) and key in GROUPS:
            value = {name: item for name, item in value.items() if item is not None} or None
        if value is not None:
            given[key] = value
    try:
        check_sources()
        return Settings(**given)
    except ValidationError as exc:
        raise InvalidSettings(settings_problems(exc)) from None
    except tomllib.TOMLDecodeError as exc:  # the message quotes one character at most
        where = re.sub(r"'[^']*'\s*", "", str(exc))
        raise InvalidSettings(f"{config_file()}: not valid TOML: {where}") from None
    except SettingsError as exc:
        raise InvalidSettings(f"settings: {exc}") from None
    except OSError as exc:
        raise InvalidSettings(f"{config_file()}: cannot be read: {exc.strerror}") from None
