"""The agent's scenarios on a real model: a small corpus cut from the evaluation PDFs, one
library and one agent service on the local 1.5B model, shared by the module's tests.

The corpus is seven real pages: the Netflix 2017 10-K's pages 20-24 (the streaming
segments: memberships and revenue tables, contribution margins, for 2017, 2016 and 2015) and R Data
Import/Export's pages 13-14 (reading CSV files). Page numbers are those of the excerpts:
the 10-K's page 22 is page 3 of ``netflix_2017_10k_p20-24.pdf``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from langchain_core.callbacks import BaseCallbackHandler
from tests.eval_data import EVAL_DIR, require_eval
from tests.local_model import AGENT_SPEC, require_local_model

from archivist.agent.service import AgentService, AnswerResult
from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.llm import make_chat_model
from archivist.settings import Settings
from archivist.types import IngestOutcome

NETFLIX = "netflix_2017_10k_p20-24.pdf"
R_DATA = "r_data_p13-14.pdf"
#: (source PDF, first page, last page, excerpt name), pages numbered from 1
EXCERPTS = [
    ("NETFLIX_2017_10K.pdf", 20, 24, NETFLIX),
    ("R-data.pdf", 13, 14, R_DATA),
]
#: The excerpt page of the 10-K's domestic streaming segment (10-K page 22).
NETFLIX_TABLE_PAGE = 3


def write_excerpts(target: Path) -> Path:
    """The excerpt PDFs in ``target`` (pages copied as they are, text layer and all)."""
    pdfs = require_eval(EVAL_DIR / "pdfs")
    target.mkdir(parents=True, exist_ok=True)
    for source, first, last, name in EXCERPTS:
        with pymupdf.open(pdfs / source) as original, pymupdf.open() as excerpt:
            excerpt.insert_pdf(original, from_page=first - 1, to_page=last - 1)
            excerpt.save(target / name)
    return target


def scenario_settings(data_dir: Path) -> Settings:
    """The agent as the demo runs it on the 1.5B: pipeline strategy, replies capped."""
    return Settings(
        data_dir=data_dir,
        llm={"model": AGENT_SPEC, "temperature": 0.0, "max_tokens": 256, "max_retries": 1},
        agent={"strategy": "pipeline"},
    )


class CallTimes(BaseCallbackHandler):
    """When each LLM call ran, and for which question (its ``Question:`` line)."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self._open: dict[Any, dict[str, Any]] = {}

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: Any,
                            **kwargs: Any) -> None:
        import time

        text = "\n".join(str(m.content) for batch in messages for m in batch)
        question = ""
        for line in text.splitlines():
            if line.startswith("Question:"):
                question = line.removeprefix("Question:").strip()
        self._open[run_id] = {"question": question, "start": time.monotonic()}

    def on_llm_end(self, response: Any, *, run_id: Any, **kwargs: Any) -> None:
        import time

        call = self._open.pop(run_id, None)
        if call is not None:
            self.calls.append({**call, "end": time.monotonic()})


@dataclass
class Scenarios:
    """The shared library and agent service; ``ask`` runs a turn and keeps its LLM calls."""

    app: Application
    service: AgentService

    def ask(self, question: str, thread_id: str | None = None) -> tuple[AnswerResult, CallTimes]:
        from archivist.observability import attach_callbacks

        times = CallTimes()
        with attach_callbacks([times]):
            result = self.service.ask(question, thread_id)
        print(f"\n{question!r}: {result.status}, steps "
              f"{[(s['kind'], s.get('detail', '')[:60]) for s in result.steps]}, "
              f"sources {[(s.document_name, s.pages) for s in result.sources]}, "
              f"{result.stats.get('llm_calls')} LLM calls, answer {result.answer[:160]!r}")
        return result, times


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory: pytest.TempPathFactory,
              embedder: SentenceTransformerEmbedder) -> Iterator[Scenarios]:
    require_local_model("1.5b")
    root = tmp_path_factory.mktemp("scenarios")
    docs = write_excerpts(root / "docs")
    settings = scenario_settings(root / "lib")
    with Application(settings, embedder=embedder) as app:
        report = app.ingest.files([docs])
        assert len(report.of(IngestOutcome.ADDED)) == len(EXCERPTS), report.results
        service = AgentService(app.searcher, settings, llm=make_chat_model(settings))
        try:
            yield Scenarios(app, service)
        finally:
            service.close()
