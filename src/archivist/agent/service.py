"""The runner every interface uses: conversations, streaming events, persistence.

The application builds one :class:`AgentService` per process. It keeps the
conversations in a LangGraph checkpointer on the library's database (one thread per
conversation, surviving restarts), builds a graph per collection, and turns a graph run into
the :mod:`archivist.events` stream: steps, then a clarification or the answer tokens,
sources and stats, then ``done``. Every finished turn is written to the turn log here, once,
whichever interface asked (CLI, API, web UI, OpenAI endpoint, MCP).

The answer streams once, when the graph has finished: every check that could change it
has run, so nothing shown is ever taken back. Its text goes out as word-sized ``token``
events.
"""

from __future__ import annotations

import logging
import re
import threading
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.types import Command

from archivist import events
from archivist.agent.answer.confidence import LOW
from archivist.agent.graph import build_graph
from archivist.agent.offline import failure_message, retrieval_only
from archivist.agent.policy import Policy, policy_for
from archivist.agent.quoting import unquote_answer
from archivist.agent.stats import TurnStats
from archivist.agent.steps import message_text
from archivist.collection_names import check_collection_name
from archivist.conversations import TurnLog, recorded, settings_used
from archivist.events import Event, Source
from archivist.llm.capabilities import ModelProfile, profile_for
from archivist.storage import Database, open_database
from archivist.storage.checkpoints import keep_latest
from archivist.types import ArchivistError

if TYPE_CHECKING:
    from archivist.index.retriever import Retrievers
    from archivist.settings import Settings
    from archivist.web import WebSearchProvider

log = logging.getLogger(__name__)


@dataclass
class AnswerResult:
    """A whole turn, collected: what ``ask`` returns."""

    answer: str
    sources: list[Source]
    status: str  # "answered", "clarification" or "retrieval_only"
    thread_id: str
    steps: list[dict[str, Any]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    clarification: str | None = None
    confidence: str | None = None
    claims: list[dict[str, Any]] = field(default_factory=list)  # each sentence, checked
    error: str | None = None  # the last error message
    errors: list[str] = field(default_factory=list)  # every error message, in order


class AgentService:
    """Answers questions about one library, one conversation thread at a time.

    ``retrievers`` gives each collection's retriever (the application's searcher);
    ``database`` is the library's (the application's; opened from the settings if not
    given, and then closed with the service); ``policy`` (default: chosen by the model's
    profile) which checks by code apply.
    """

    def __init__(
        self,
        retrievers: Retrievers,
        settings: Settings,
        llm: BaseChatModel | None = None,
        *,
        fast_llm: BaseChatModel | None = None,
        web: WebSearchProvider | None = None,
        database: Database | None = None,
        policy: Policy | None = None,
    ) -> None:
        self.retrievers = retrievers
        self._policy = policy
        self.settings = settings
        self._llm = llm
        self._fast_llm = fast_llm if fast_llm is not None else llm
        self._web = web
        self._web_built = web is not None
        self._lock = threading.Lock()
        self._graphs: dict[str, Any] = {}
        self._owned = database is None
        self.database = database or open_database(settings.storage.database_url, settings.data_dir)
        self.checkpointer = self.database.checkpointer()
        self.turns = TurnLog(self.database)
        self._tracing = _tracing_callbacks(self.settings)

    # --- wiring ------------------------------------------------------------------------
    @property
    def llm(self) -> BaseChatModel:
        """The chat model (built from ``settings.llm.model`` on first use unless injected)."""
        with self._lock:
            if self._llm is None:
                from archivist.llm import make_chat_model

                self._llm = make_chat_model(self.settings)
            return self._llm

    @property
    def fast_llm(self) -> BaseChatModel:
        """The model for analysis and grading: ``llm.fast_model`` when set, else :attr:`llm`."""
        llm = self.llm
        with self._lock:
            if self._fast_llm is None:
                if self.settings.llm.fast_model:
                    from archivist.llm import make_chat_model

                    self._fast_llm = make_chat_model(self.settings, role="fast")
                else:
                    self._fast_llm = llm
            return self._fast_llm

    @property
    def fast_profile(self) -> ModelProfile:
        """What the fast model can do (from the settings that built it)."""
        return profile_for(self.settings, role="fast")

    @property
    def policy(self) -> Policy:
        """Which checks by code the agent applies.

        Unless injected: from the answering model's profile and the ``policy`` setting.
        """
        if self._policy is not None:
            return self._policy
        agent = self.settings.agent
        return policy_for(profile_for(self.settings), second_look=agent.second_look,
                          verify_claims=agent.verify_claims, disabled=agent.disabled_checks)

    @property
    def web(self) -> WebSearchProvider | None:
        """The web search provider (``web_search`` setting), or ``None`` when it is off."""
        with self._lock:
            if not self._web_built:
                from archivist.web import make_web_search

                self._web = make_web_search(self.settings)
                self._web_built = True
            return self._web

    def graph(self, collection: str | None = None) -> Any:
        """The compiled agent graph for a collection."""
        name = check_collection_name(collection) if collection else self.settings.collection
        llm, fast_llm, web = self.llm, self.fast_llm, self.web
        with self._lock:
            if name not in self._graphs:
                self._graphs[name] = build_graph(
                    llm, self.retrievers.retriever(name), self.settings, self.checkpointer,
                    fast_llm=fast_llm, web=web, fast_profile=self.fast_profile,
                    policy=self.policy,
                )
            return self._graphs[name]

    @staticmethod
    def new_thread_id() -> str:
        """A fresh conversation id."""
        return uuid.uuid4().hex

    def _config(self, thread_id: str, stats: TurnStats | None = None) -> dict[str, Any]:
        config: dict[str, Any] = {"configurable": {"thread_id": thread_id}, "recursion_limit": 200}
        if stats is not None:
            config["callbacks"] = [stats.counter, *self._tracing]
        return config

    def pending_clarification(self, thread_id: str, collection: str | None = None) -> str | None:
        """The question the thread is waiting on the user for, if any."""
        state = self.graph(collection).get_state(self._config(thread_id))
        for pending in state.interrupts:
            value = pending.value
            return str(value.get("question")) if isinstance(value, dict) else str(value)
        return None

    # --- a turn ------------------------------------------------------------------------
    def stream(
        self, message: str, thread_id: str | None = None, collection: str | None = None
    ) -> Iterator[Event]:
        """Run one turn; yields events (see :mod:`archivist.events`), ending with ``done``.

        A thread paused on a clarification is resumed with ``message`` as the reply. The
        finished turn is stored in the turn log (:attr:`turns`).
        """
        text = message.strip()
        if not text:
            raise ArchivistError("the question is empty")
        thread_id = thread_id or self.new_thread_id()
        used = settings_used(self.settings, collection or self.settings.collection)
        yield from recorded(self._turn(text, thread_id, collection), self.turns, thread_id,
                            text, used)

    def _turn(self, text: str, thread_id: str, collection: str | None) -> Iterator[Event]:
        stats = TurnStats()
        config = self._config(thread_id, stats)
        try:
            graph = self.graph(collection)
            waiting = self.pending_clarification(thread_id, collection)
            payload: Any = Command(resume=text) if waiting else {"question": text}
            yield from self._run(graph, payload, config, stats)
        except Exception as exc:
            from archivist.llm import is_connection_error, is_transient

            # unreachable, 5xx, a cut stream or a timeout, after the retries: degrade
            if not (is_connection_error(exc) or is_transient(exc)):
                raise
            log.warning("LLM failed (%s): %s", type(exc).__name__, exc)
            yield from self._retrieval_only(text, thread_id, collection, stats,
                                            failure_message(self.settings, exc))
            return
        state = graph.get_state(self._config(thread_id))
        keep_latest(self.checkpointer, thread_id, paused=bool(state.interrupts))
        if state.interrupts:
            value = state.interrupts[0].value
            ask = str(value.get("question")) if isinstance(value, dict) else str(value)
            yield events.clarification(ask)
            yield events.done(thread_id, ask, status="clarification")
            return
        values = state.values
        answer = unquote_answer(str(values.get("answer", "")))  # final: every check has run
        for piece in answer_pieces(answer):
            yield events.token(piece)
        sources = [Source(**s) for s in values.get("sources", [])]
        yield events.sources(sources, confidence=values.get("confidence") or None,
                             claims=list(values.get("claims") or []))
        yield events.stats(stats.as_dict())
        yield events.done(thread_id, answer, status=str(values.get("status") or "answered"))

    def _run(
        self, graph: Any, payload: Any, config: dict[str, Any], stats: TurnStats
    ) -> Iterator[Event]:
        """Translate LangGraph's custom stream into step events (and stage timings)."""
        for _namespace, chunk in graph.stream(
            payload, config, stream_mode="custom", subgraphs=True
        ):
            if not isinstance(chunk, dict):
                continue
            if "timing" in chunk:
                stats.timing(chunk["timing"], chunk["start"], chunk["end"])
            elif "step" in chunk:
                data = dict(chunk)
                kind = str(data.pop("step"))
                stats.step(kind)
                yield events.step(kind, str(data.pop("detail", "")), **data)

    def _retrieval_only(
        self, question: str, thread_id: str, collection: str | None, stats: TurnStats,
        message: str,
    ) -> Iterator[Event]:
        yield events.error(message)
        answer, sources = retrieval_only(self.retrievers.retriever(collection), question)
        yield events.token(answer)
        yield events.sources(sources, confidence=LOW)
        yield events.stats(stats.as_dict())
        yield events.done(thread_id, answer, status="retrieval_only")

    def ask(
        self, message: str, thread_id: str | None = None, collection: str | None = None
    ) -> AnswerResult:
        """Run one turn and collect it."""
        return collect_turn(self.stream(message, thread_id, collection))

    # --- conversations -------------------------------------------------------------------
    def history(self, thread_id: str) -> list[dict[str, str]]:
        """A conversation's turns (``user`` / ``assistant``), after its rolling summary."""
        state = self.graph().get_state(self._config(thread_id))
        values = state.values or {}
        turns: list[dict[str, str]] = []
        if values.get("summary"):
            turns.append({"role": "summary", "content": str(values["summary"])})
        for message in values.get("messages", []):
            if isinstance(message, HumanMessage | AIMessage):
                role = "user" if isinstance(message, HumanMessage) else "assistant"
                turns.append({"role": role, "content": message_text(message.content)})
        return turns

    def threads(self) -> list[str]:
        """Every conversation id stored."""
        return self.database.thread_ids()

    def close(self) -> None:
        """Forget the graphs (and close the database when the service opened it)."""
        with self._lock:
            self._graphs.clear()
            if self._owned:
                self.database.close()


def _tracing_callbacks(settings: Settings) -> list[Any]:
    """Tracing handlers (OpenTelemetry, Langfuse) when configured; none otherwise."""
    try:
        from archivist.observability import tracing_callbacks
    except ImportError:  # the observability module is optional
        return []
    return list(tracing_callbacks(settings))


_PIECE = re.compile(r"\s*\S+")


def answer_pieces(answer: str) -> list[str]:
    """The answer cut into word-sized pieces (leading whitespace kept) that join back to it."""
    pieces = _PIECE.findall(answer)
    tail = answer[len("".join(pieces)):]
    if tail:
        pieces.append(tail)
    return pieces


def collect_turn(stream: Iterable[Event]) -> AnswerResult:
    """A turn's events (from ``stream``, here or over HTTP) collected into one result."""
    result = AnswerResult(answer="", sources=[], status="answered", thread_id="")
    tokens: list[str] = []
    for event in stream:
        data = event.data
        if event.type == "step":
            result.steps.append(data)
        elif event.type == "token":
            tokens.append(data["text"])
        elif event.type == "clarification":
            result.clarification = data["question"]
        elif event.type == "sources":
            result.sources = [Source(**s) for s in data["sources"]]
            result.confidence = data.get("confidence")
            result.claims = list(data.get("claims") or [])
        elif event.type == "stats":
            result.stats = data
        elif event.type == "error":
            result.error = str(data["message"])
            result.errors.append(result.error)
        elif event.type == "done":
            result.thread_id = data["thread_id"]
            result.status = data["status"]
            result.answer = str(data.get("answer") or "".join(tokens))
    return result
