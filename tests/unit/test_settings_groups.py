"""Settings in groups: every spelling gives the same value; the flat names are flagged once."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from archivist.settings import InvalidSettings, Settings, UnknownSetting, load_settings

URL = "postgresql://archivist@db.example/library"

# (flat name, its group and field, a value, the value as the environment spells it)
CASES = [
    ("database_url", "storage", "database_url", URL, URL),
    ("llm", "llm", "model", "ollama:qwen3:8b", "ollama:qwen3:8b"),  # renamed in its group
    ("child_chars", "index", "child_chars", 300, "300"),
    ("policy", "agent", "policy", "small", "small"),
    ("max_upload_mb", "server", "max_upload_mb", 7, "7"),
]


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config file, read (empty until a test writes it)."""
    path = tmp_path / "archivist.toml"
    path.write_text("", encoding="utf-8")
    monkeypatch.setenv("ARCHIVIST_CONFIG", str(path))
    monkeypatch.delenv("ARCHIVIST_LLM__MODEL")
    return path


def _toml(value: object) -> str:
    return f'"{value}"' if isinstance(value, str) else str(value)


def _deprecations(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "deprecated setting" in r.getMessage()]


@pytest.mark.parametrize(("flat", "group", "field", "value", "text"), CASES,
                         ids=[case[0] for case in CASES])
def test_every_spelling_gives_the_same_value(
    flat: str, group: str, field: str, value: object, text: str, config: Path,
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path,
) -> None:
    caplog.set_level(logging.WARNING)
    env_new, env_old = f"ARCHIVIST_{group.upper()}__{field.upper()}", f"ARCHIVIST_{flat.upper()}"

    def read(**keywords: object) -> object:
        caplog.clear()
        return getattr(getattr(load_settings(data_dir=tmp_path, **keywords), group), field)

    spellings = {
        "keyword, grouped": (lambda: read(**{group: {field: value}}), None),
        "keyword, flat": (lambda: read(**{flat: value}), f"use {group}={{'{field}': ...}}"),
    }
    for name, (get, new) in spellings.items():
        assert get() == value, name
        assert _deprecations(caplog) == ([] if new is None else [
            f"deprecated setting: keyword {flat}=; use {group}={{'{field}': ...}}"]), name

    config.write_text(f"[{group}]\n{field} = {_toml(value)}\n", encoding="utf-8")
    assert read() == value and _deprecations(caplog) == []
    config.write_text(f"{flat} = {_toml(value)}\n", encoding="utf-8")
    assert read() == value
    assert _deprecations(caplog) == [f"deprecated setting: '{flat}' in {config}; "
                                     f"use {field} under [{group}]"]
    config.write_text("", encoding="utf-8")

    monkeypatch.setenv(env_new, text)
    assert read() == value and _deprecations(caplog) == []
    monkeypatch.delenv(env_new)
    monkeypatch.setenv(env_old, text)
    assert read() == value
    assert _deprecations(caplog) == [f"deprecated setting: {env_old}; use {env_new}"]


def test_sources_keep_their_order_whatever_the_spelling(
    config: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    config.write_text("child_chars = 300\n[index]\nchild_overlap = 20\n", encoding="utf-8")
    monkeypatch.setenv("ARCHIVIST_CHILD_CHARS", "400")  # the environment beats the file
    settings = load_settings(data_dir=tmp_path)
    assert (settings.index.child_chars, settings.index.child_overlap) == (400, 20)
    monkeypatch.setenv("ARCHIVIST_INDEX__CHILD_CHARS", "450")  # the group's spelling wins
    assert load_settings(data_dir=tmp_path).index.child_chars == 450
    flags = load_settings(data_dir=tmp_path, index={"child_chars": 600, "child_overlap": None})
    assert (flags.index.child_chars, flags.index.child_overlap) == (600, 20)  # None: unset
    monkeypatch.setenv("OLLAMA_HOST", "http://ollama.example:11434")  # another tool's name
    assert load_settings(data_dir=tmp_path).llm.ollama_base_url == "http://ollama.example:11434"


def test_an_unknown_name_is_refused_naming_it(
    config: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    with pytest.raises(UnknownSetting, match=r"unknown setting 'chld_chars'; did you mean "
                                             r"'index.child_chars'\?"):
        Settings(data_dir=tmp_path, chld_chars=300)
    with pytest.raises(UnknownSetting, match=r"'index.chld_chars'; did you mean "
                                             r"'index.child_chars'\?"):
        Settings(data_dir=tmp_path, index={"chld_chars": 300})
    config.write_text("[storage]\ndatabse_url = 'sqlite:///x'\n", encoding="utf-8")
    with pytest.raises(InvalidSettings, match=rf"{config.name}: unknown setting "
                                              r"'storage.databse_url'; did you mean "
                                              r"'storage.database_url'\?"):
        load_settings(data_dir=tmp_path)
    config.write_text("", encoding="utf-8")
    monkeypatch.setenv("ARCHIVIST_STORAGE__DATABSE_URL", "sqlite:///x")
    with pytest.raises(InvalidSettings, match=r"ARCHIVIST_STORAGE__DATABSE_URL: unknown "
                                              r"setting 'storage.databse_url'"):
        load_settings(data_dir=tmp_path)


def test_a_bad_value_names_the_group_and_the_setting(tmp_path: Path) -> None:
    with pytest.raises(InvalidSettings, match=r"^storage.database_url: use sqlite:///"):
        load_settings(data_dir=tmp_path, storage={"database_url": "mysql://x"})
    with pytest.raises(InvalidSettings, match=r"^server.port: "):
        load_settings(data_dir=tmp_path, server={"port": 99999})


def test_with_values_changes_one_group_and_refuses_unknown_names(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, agent={"strategy": "tools", "max_tool_calls": 3})
    changed = settings.with_values(agent={"strategy": "pipeline"}, collection="other")
    assert (changed.agent.strategy, changed.agent.max_tool_calls) == ("pipeline", 3)
    assert changed.collection == "other" and settings.agent.strategy == "tools"
    with pytest.raises(UnknownSetting, match="agent.strategi"):
        settings.with_values(agent={"strategi": "tools"})
    with pytest.raises(UnknownSetting, match="'strategy'; did you mean 'agent.strategy'"):
        settings.with_values(strategy="tools")
