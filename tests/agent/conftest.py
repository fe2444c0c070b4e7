"""Agent fixtures: one real library (real embedder, embedded Qdrant, SQLite) with a small
Markdown corpus, shared by the module's tests; only the LLM is scripted."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from archivist.agent.policy import Policy
from archivist.agent.service import AgentService
from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.settings import Settings
from archivist.testing import ScriptedChatModel

CORPUS = {
    "postgres-guide.md": """# PostgreSQL administration

## Installing PostgreSQL

On Debian and Ubuntu, install PostgreSQL with `sudo apt install postgresql`. The package
creates a cluster and a `postgres` system user. Check the server with `pg_lsclusters`.
On macOS the Postgres.app bundle or Homebrew (`brew install postgresql@16`) both work.

## Updating PostgreSQL

Minor releases are updated in place: run `sudo apt update && sudo apt upgrade postgresql`
and restart the service. A major version upgrade needs `pg_upgradecluster`, which copies
the old cluster's data into the new version; take a backup with `pg_dumpall` first.
""",
    "javascript.md": """# JavaScript

JavaScript is a dynamic scripting language that runs in every web browser and, through
Node.js, on servers. It has first-class functions, prototype-based objects and an event
loop that runs callbacks and promises without threads.
""",
    "python.md": """# Python

Python is a general-purpose programming language known for its readable,
indentation-based syntax and its large standard library. It is interpreted, dynamically
typed and popular for data science, scripting and web back ends.
""",
    "espresso.md": """# Brewing espresso

Espresso is brewed by forcing hot water at about nine bars of pressure through finely
ground coffee. A double shot uses 18 grams of coffee and takes 25 to 30 seconds.
""",
}


@pytest.fixture(scope="session")
def corpus_library(
    tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder
) -> Iterator[Application]:
    """A library holding the corpus above, ingested once for all agent tests."""
    root = tmp_path_factory.mktemp("agent")
    docs = root / "docs"
    docs.mkdir()
    for name, text in CORPUS.items():
        (docs / name).write_text(text, encoding="utf-8")
    # the scripted model plays a capable one unless a test asks for the small-model policy
    library = Application(Settings(data_dir=root / "library", agent={"policy": "capable"}),
                          embedder=embedder)
    report = library.ingest.files([docs])
    assert report.counts["added"] == len(CORPUS), report
    yield library
    library.close()


ServiceFactory = Callable[..., AgentService]


@pytest.fixture
def make_service(corpus_library: Application, tmp_path: Path) -> Iterator[ServiceFactory]:
    """Build agent services over the corpus, each with its own conversation store."""
    made: list[AgentService] = []

    def factory(
        llm: ScriptedChatModel | None = None, library: Application | None = None,
        checks: Policy | None = None, **overrides: Any,
    ) -> AgentService:  # overrides: settings of the agent group (strategy=..., policy=...)
        lib = library or corpus_library
        settings = lib.settings.with_values(agent={"policy": "capable", **overrides})
        if library is None:
            settings = settings.model_copy(update={"data_dir": tmp_path / "conversations"})
        service = AgentService(lib.searcher, settings, llm=llm or ScriptedChatModel(),
                               policy=checks)
        made.append(service)
        return service

    yield factory
    for service in made:
        service.close()
