"""The LLM when none is set: the fetched local model, else Ollama with a line on what to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from archivist.agent.offline import unreachable_message
from archivist.llm.models import MODELS, OLLAMA_FALLBACK_LLM
from archivist.llm.spec import llm_is_set
from archivist.settings import Settings, load_settings


def _fetched(folder: Path, *names: str) -> None:
    """``folder`` as a model cache holding ``names``: files of the catalog's size (sparse)."""
    folder.mkdir(exist_ok=True)
    for name in names:
        with (folder / MODELS[name].filename).open("wb") as handle:
            handle.truncate(MODELS[name].size)


@pytest.fixture
def model_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty model cache, and no LLM set anywhere."""
    folder = tmp_path / "models"
    folder.mkdir()
    monkeypatch.setenv("ARCHIVIST_MODEL_DIR", str(folder))
    monkeypatch.delenv("ARCHIVIST_LLM__MODEL")
    return folder


def test_the_fetched_1_5b_is_the_default(model_dir: Path, tmp_path: Path) -> None:
    _fetched(model_dir, "1.5b", "0.5b")
    settings = Settings(data_dir=tmp_path / "lib")
    assert settings.llm.model == "local" and not llm_is_set(settings)


def test_the_0_5b_is_the_default_when_only_it_is_fetched(model_dir: Path) -> None:
    _fetched(model_dir, "0.5b")
    assert load_settings().llm.model == "local:0.5b"


def test_a_partly_written_model_does_not_count(model_dir: Path) -> None:
    (model_dir / MODELS["1.5b"].filename).write_bytes(b"GGUF")
    assert load_settings().llm.model == OLLAMA_FALLBACK_LLM


def test_nothing_fetched_falls_back_to_ollama_with_the_command_that_gets_a_model(
    model_dir: Path,
) -> None:
    settings = load_settings()
    assert settings.llm.model == OLLAMA_FALLBACK_LLM and not llm_is_set(settings)
    line = unreachable_message(settings)
    assert "\n" not in line
    assert "`archivist model fetch`" in line and "Ollama" in line
    assert "OPENAI_API_KEY" in line


@pytest.mark.parametrize("spec", ["ollama:llama3.1:8b", "openai:gpt-4o-mini", "scripted"])
def test_a_configured_llm_always_wins(
    model_dir: Path, monkeypatch: pytest.MonkeyPatch, spec: str
) -> None:
    _fetched(model_dir, "1.5b")
    monkeypatch.setenv("ARCHIVIST_LLM__MODEL", spec)
    settings = load_settings()
    assert settings.llm.model == spec and llm_is_set(settings)
    monkeypatch.delenv("ARCHIVIST_LLM__MODEL")
    assert load_settings(llm={"model": spec}).llm.model == spec  # --llm


def test_archivist_toml_wins_too(
    model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fetched(model_dir, "1.5b")
    config = tmp_path / "archivist.toml"
    config.write_text("[llm]\nmodel = 'ollama:qwen3:8b'\n", encoding="utf-8")
    monkeypatch.setenv("ARCHIVIST_CONFIG", str(config))
    assert load_settings().llm.model == "ollama:qwen3:8b"


def test_a_configured_ollama_that_is_down_is_named_not_the_fetch_hint(
    model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARCHIVIST_LLM__MODEL", OLLAMA_FALLBACK_LLM)
    line = unreachable_message(load_settings())
    assert line.startswith("cannot reach the LLM: ollama model") and "model fetch" not in line
