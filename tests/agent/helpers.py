"""Small helpers for agent tests: a library of a few documents, a turn's events read."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from archivist.agent.service import AgentService
from archivist.agent.state import RelevanceGrades
from archivist.application import Application
from archivist.events import Event
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.settings import Settings


def ingested_library(tmp_path_factory: pytest.TempPathFactory,
                     embedder: SentenceTransformerEmbedder,
                     docs: dict[str, str]) -> Iterator[Application]:
    """A library of ``docs`` (file name to text), ingested; closed when the caller is done."""
    root = tmp_path_factory.mktemp("library")
    (root / "docs").mkdir()
    for name, text in docs.items():
        (root / "docs" / name).write_text(text, encoding="utf-8")
    made = Application(Settings(data_dir=root / "library", agent={"policy": "capable"}),
                       embedder=embedder)
    assert made.ingest.files([root / "docs"]).counts["added"] == len(docs)
    yield made
    made.close()


def run(service: AgentService, message: str, thread_id: str | None = None) -> list[Event]:
    """All events of one turn."""
    return list(service.stream(message, thread_id))


def steps(events: list[Event], kind: str) -> list[dict[str, Any]]:
    """The step events of one kind."""
    return [e.data for e in events if e.type == "step" and e.data["kind"] == kind]


def done(events: list[Event]) -> dict[str, Any]:
    """The final event's data."""
    assert events[-1].type == "done"
    return events[-1].data


def source_names(events: list[Event]) -> list[str]:
    """Document names in the sources event."""
    (sources,) = [e for e in events if e.type == "sources"]
    return [s["document_name"] for s in sources.data["sources"]]


def unit_number(messages: list[Any], words: str) -> int | None:
    """The number of the writer's evidence unit holding ``words`` (None when it is not a
    writing call: no numbered passages, or none holds them)."""
    text = "\n".join(str(m.content) for m in messages)
    for n, body in re.findall(r'<passage n="(\d+)"[^>]*>\n?(.*?)</passage>', text, re.S):
        if words in body:
            return int(n)
    return None


def verifier_says(word: str, asked: list[str]):
    """A model that answers ``word`` to each verification call, recording the statement."""
    def rule(messages: list[Any], info: Any) -> str | None:
        text = str(messages[-1].content)
        if "Do the passages state the statement above?" not in text:
            return None
        asked.append(text.split("<statement>\n", 1)[1].split("\n</statement>", 1)[0])
        return word

    return rule


def grader_with_hop(hop: str):
    """A grader that keeps the first passage and proposes ``hop`` as the next search, once."""
    graded: list[int] = []

    def rule(messages: list[Any], info: Any) -> RelevanceGrades | None:
        if info.schema is not RelevanceGrades:
            return None
        graded.append(info.index)
        return RelevanceGrades(relevant=["P1"], next_query=hop if len(graded) == 1 else "")

    return rule


def numbered_passages(prompt: str) -> dict[str, str]:
    """The numbered passages of a writing prompt: unit number to text."""
    return dict(re.findall(r'<passage n="(\d+)"[^>]*>\n(.*?)\n</passage>', prompt, re.DOTALL))


def on_subject_only(make_service):
    """``make_service`` whose first write reads only the passages that name the question's
    subjects, not the search's first hits too: a hop tested on its own, whatever
    ``agent.search_hits_kept`` defaults to (that setting has its own tests)."""
    def factory(*args, **overrides):
        return make_service(*args, **{"search_hits_kept": 0, **overrides})
    return factory
