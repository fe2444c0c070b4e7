"""The composition root: one :class:`Application` per process, built from the settings.

It builds the parts once and hands each what it needs: the library's :class:`Database`
(every table, SQLite or PostgreSQL), the :class:`DocumentStore`
(catalog, parents, vectors), the :class:`HybridSearcher` over it, the
:class:`IngestPipeline` that writes into it and the :class:`AgentService`. The last two are
made on first use, so a command that only lists documents never imports the loaders or
the agent. The CLI, the HTTP API,
the web UI and the MCP server all receive an ``Application``; none builds its own parts.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from archivist.conversations import TurnLog
from archivist.index.rerank import RerankerSlot
from archivist.index.search import HybridSearcher
from archivist.index.store import DocumentStore
from archivist.settings import Settings, load_settings
from archivist.storage import open_database

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from archivist.agent.service import AgentService
    from archivist.contextualize import ContextCache
    from archivist.index.embeddings import Embedder
    from archivist.index.vectors import VectorStore
    from archivist.ingest import IngestPipeline
    from archivist.llm.capabilities import ModelProfile


class Application:
    """Settings, store, searcher, ingest pipeline and agent service of one data directory.

    ``embedder``, ``vectors`` and ``llm`` inject parts (tests, benchmarks); by default each
    is built from the settings. Use it as a context manager or call :meth:`close`.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        embedder: Embedder | None = None,
        vectors: VectorStore | None = None,
        llm: BaseChatModel | None = None,
    ) -> None:
        self.settings = settings
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        self.database = open_database(settings.storage.database_url, settings.data_dir)
        try:
            self.store = DocumentStore(settings, self.database, embedder=embedder,
                                       vectors=vectors)
        except BaseException:
            self.database.close()
            raise
        self.turns = TurnLog(self.database)
        self._llm = llm
        self._rerank_llm: BaseChatModel | None = None
        reranker = RerankerSlot(settings.index.rerank_model, self._fast_llm, self._fast_profile)
        self.searcher = HybridSearcher(self.store, reranker if reranker.enabled else None)
        self._ingest: IngestPipeline | None = None
        self._contexts: ContextCache | None = None
        self._agent: AgentService | None = None
        self._other_agents: list[AgentService] = []
        self._lock = threading.Lock()

    def __enter__(self) -> Application:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def ingest(self) -> IngestPipeline:
        """The ingest pipeline into the store (its loaders are imported on first use)."""
        with self._lock:
            if self._ingest is None:
                from archivist.ingest import IngestPipeline

                contextualizer = None
                if self.settings.index.contextualize == "llm":
                    from archivist.contextualize import ContextCache, Contextualizer

                    self._contexts = ContextCache(self.database)
                    contextualizer = Contextualizer(self._contexts, self._fast_llm)
                self._ingest = IngestPipeline(self.store, self.settings, contextualizer)
            return self._ingest

    @property
    def agent(self) -> AgentService:
        """The agent service (conversations, streaming), built on first use."""
        with self._lock:
            if self._agent is None:
                from archivist.agent.service import AgentService

                self._agent = AgentService(self.searcher, self.settings, self._llm,
                                           database=self.database)
            return self._agent

    def agent_with(self, **overrides: Any) -> AgentService:
        """An agent service whose settings differ by ``overrides`` (``agent={"strategy": ...}``).

        It shares the default service's model and is closed with the application; with no
        change it is the default service itself.
        """
        default = self.agent
        settings = self.settings.with_values(**overrides)
        if settings == self.settings:
            return default
        from archivist.agent.service import AgentService

        service = AgentService(self.searcher, settings, default.llm, database=self.database)
        with self._lock:
            self._other_agents.append(service)
        return service

    def _fast_llm(self) -> BaseChatModel:
        """The model for reranking: the injected one, else ``llm.fast_model`` or ``llm``."""
        with self._lock:
            if self._llm is not None:
                return self._llm
            if self._rerank_llm is None:
                from archivist.llm import make_chat_model

                self._rerank_llm = make_chat_model(self.settings, role="fast")
            return self._rerank_llm

    def _fast_profile(self) -> ModelProfile:
        from archivist.llm.capabilities import profile_for

        return profile_for(self.settings, role="fast")

    def close(self) -> None:
        """Close the agents, the document store, then the database."""
        with self._lock:
            if self._agent is not None:
                self._agent.close()
                self._agent = None
            for service in self._other_agents:
                service.close()
            self._other_agents.clear()

            if self._contexts is not None:
                self._contexts.close()
                self._contexts = None
        try:
            self.store.close()
        finally:
            self.database.close()


def open_application(settings: Settings | None = None, **overrides: Any) -> Application:
    """The application for the settings (loaded from the environment when not given)."""
    return Application(settings or load_settings(**overrides))
