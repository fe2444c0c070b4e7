"""Shared fixtures: real embedder (loaded once), real libraries in temp dirs, eval data."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from tests.eval_data import EVAL_DIR, require_eval  # noqa: E402

from archivist.application import Application  # noqa: E402
from archivist.index.embeddings import SentenceTransformerEmbedder  # noqa: E402
from archivist.llm.models import OLLAMA_FALLBACK_LLM  # noqa: E402
from archivist.settings import Settings  # noqa: E402
from archivist.storage import Database  # noqa: E402
from archivist.testing.postgres import ThrowawayPostgres  # noqa: E402


@pytest.fixture(scope="session")
def eval_dir() -> Path:
    """The shared evaluation data (BEIR SciFact, HotpotQA-100, real PDFs); skipped if absent."""
    return require_eval(EVAL_DIR)


@pytest.fixture(scope="session")
def embedder() -> SentenceTransformerEmbedder:
    """The real default embedding model, loaded once per test session."""
    return SentenceTransformerEmbedder("all-MiniLM-L6-v2")


#: Variables that locate shared data, not behaviour: kept for every test.
_KEPT_VARIABLES = ("ARCHIVIST_EVAL_DIR", "ARCHIVIST_MODEL_DIR")


@pytest.fixture(scope="session", autouse=True)
def _default_llm_named() -> Iterator[None]:
    """Every test names the Ollama fallback as its LLM (see ``_isolated_env``) from the start.

    Module- and session-scoped libraries are built before any function-scoped fixture.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARCHIVIST_LLM__MODEL", OLLAMA_FALLBACK_LLM)
        yield


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test reads the developer's archivist.toml or ARCHIVIST_* variables.

    The default LLM depends on what the machine has fetched (the local model when it is
    cached): every test names the Ollama fallback, so that a test behaves the same on
    every machine; the tests of the default itself drop ``ARCHIVIST_LLM__MODEL``.
    """
    for key in list(os.environ):
        if key.startswith("ARCHIVIST_") and key not in _KEPT_VARIABLES:
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("ARCHIVIST_LLM__MODEL", OLLAMA_FALLBACK_LLM)
    monkeypatch.setenv("ARCHIVIST_CONFIG", "")  # empty: no file is read


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings for a fresh library in a temp dir."""
    return Settings(data_dir=tmp_path / "library")


@pytest.fixture
def library(settings: Settings, embedder: SentenceTransformerEmbedder) -> Iterator[Application]:
    """A real, empty library (embedded Qdrant + SQLite) in a temp dir."""
    lib = Application(settings, embedder=embedder)
    yield lib
    lib.close()


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[ThrowawayPostgres]:
    """A throwaway PostgreSQL 16 cluster with pgvector (from the pgserver wheel), per session.

    ``postgres_cluster.create_database()`` makes a fresh database and returns its URL.
    """
    with ThrowawayPostgres() as cluster:
        yield cluster


@pytest.fixture
def postgres_url(postgres_cluster: ThrowawayPostgres) -> Iterator[str]:
    """The ``postgresql://`` URL of a fresh, empty database (pgvector installed), dropped after."""
    url = postgres_cluster.create_database()
    yield url
    postgres_cluster.drop_database(url.rsplit("/", 1)[1])


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database on each backend: a SQLite file, then PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'state' / 'archivist.sqlite'}"
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    """The library database at ``database_url``, migrated to the newest schema."""
    db = Database(database_url)
    yield db
    db.close()
