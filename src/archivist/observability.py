"""Tracing hooks: OpenTelemetry spans mirroring the agent graph, and Langfuse when configured.

Nothing is sent anywhere unless configured: :func:`tracing_callbacks` returns an empty
list when neither ``settings.agent.otlp_endpoint`` nor the Langfuse keys and host are set.

* :class:`SpanCallbackHandler` is a LangChain callback handler that opens one span per
  run and closes it when the run ends, nested by ``parent_run_id``: the root chain (one
  answer) is the ``archivist.answer`` span; graph nodes (``node <name>``), chat-model
  calls (``llm <model>``) and tool calls (``tool <name>``) are its descendants. Other
  chains (edge routers, output parsers, LangGraph plumbing) get no span; their children
  attach to the nearest traced ancestor.
* :func:`attach_callbacks` adds handlers to every LangChain run started inside a
  ``with`` block (via LangChain's configure hooks), for code that cannot pass
  ``callbacks=`` down itself, e.g. an evaluation around ``AgentService.ask``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage
    from langchain_core.outputs import LLMResult
    from opentelemetry.trace import Span, Tracer

    from archivist.settings import Settings

log = logging.getLogger(__name__)

__all__ = ["SpanCallbackHandler", "attach_callbacks", "otlp_tracer", "tracing_callbacks"]

ROOT_SPAN = "archivist.answer"
_HIDDEN_TAG = "langsmith:hidden"


class SpanCallbackHandler(BaseCallbackHandler):
    """Opens and closes OpenTelemetry spans as LangChain runs start and end. Thread-safe."""

    raise_error = False

    def __init__(self, tracer: Tracer) -> None:
        self.tracer = tracer
        self._lock = threading.Lock()
        self._spans: dict[UUID, Span] = {}
        self._hidden: dict[UUID, UUID | None] = {}  # hidden run -> its parent run

    # --- bookkeeping -------------------------------------------------------------------
    def _parent_span(self, parent_run_id: UUID | None) -> Span | None:
        while parent_run_id is not None:
            if parent_run_id in self._spans:
                return self._spans[parent_run_id]
            parent_run_id = self._hidden.get(parent_run_id)
        return None

    def _open(
        self, run_id: UUID, parent_run_id: UUID | None, name: str, attributes: dict[str, Any]
    ) -> None:
        from opentelemetry import trace

        with self._lock:
            parent = self._parent_span(parent_run_id)
            context = trace.set_span_in_context(parent) if parent is not None else None
            span_name = name if parent is not None else ROOT_SPAN
            clean = {k: v for k, v in attributes.items() if v is not None}
            if parent is None:
                clean["archivist.kind"] = "answer"
            self._spans[run_id] = self.tracer.start_span(
                span_name, context=context, attributes=clean
            )

    def _close(
        self,
        run_id: UUID,
        error: BaseException | None = None,
        attributes: dict[str, Any] | None = None,
    ) -> None:
        from opentelemetry.trace import Status, StatusCode

        with self._lock:
            self._hidden.pop(run_id, None)
            span = self._spans.pop(run_id, None)
        if span is None:
            return
        for key, value in (attributes or {}).items():
            if value is not None:
                span.set_attribute(key, value)
        if error is not None:
            span.record_exception(error)
            span.set_status(Status(StatusCode.ERROR, f"{type(error).__name__}: {error}"))
        span.end()

    # --- chains (the graph and its nodes) ------------------------------------------------
    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """A graph or node run began (hidden plumbing runs are skipped)."""
        name = kwargs.get("name") or (serialized or {}).get("name") or "chain"
        node = (metadata or {}).get("langgraph_node")
        if parent_run_id is not None and (node != name or _HIDDEN_TAG in (tags or [])):
            with self._lock:
                self._hidden[run_id] = parent_run_id
            return
        self._open(
            run_id,
            parent_run_id,
            f"node {name}",
            {"archivist.kind": "node", "langgraph.node": node},
        )

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """A graph or node run ended."""
        self._close(run_id)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """A graph or node run failed (LangGraph's interrupt for clarification included)."""
        self._close(run_id, error)

    # --- chat models -------------------------------------------------------------------
    def on_chat_model_start(
        self,
        serialized: dict[str, Any] | None,
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """A chat-model call began."""
        meta = metadata or {}
        model = meta.get("ls_model_name") or kwargs.get("name") or (serialized or {}).get("name")
        self._open(
            run_id,
            parent_run_id,
            f"llm {model or 'chat_model'}",
            {
                "archivist.kind": "llm",
                "gen_ai.system": meta.get("ls_provider"),
                "gen_ai.request.model": model,
                "llm.messages": sum(len(batch) for batch in messages),
            },
        )

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        """A chat-model call ended: record token usage when the provider reports it."""
        tokens_in = tokens_out = 0
        for generations in response.generations:
            for generation in generations:
                usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
                if usage:
                    tokens_in += int(usage.get("input_tokens", 0))
                    tokens_out += int(usage.get("output_tokens", 0))
        usage = {"gen_ai.usage.input_tokens": tokens_in, "gen_ai.usage.output_tokens": tokens_out}
        self._close(run_id, attributes=usage)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """A chat-model call failed."""
        self._close(run_id, error)

    # --- tools -------------------------------------------------------------------------
    def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """A tool call began."""
        name = kwargs.get("name") or (serialized or {}).get("name") or "tool"
        self._open(
            run_id,
            parent_run_id,
            f"tool {name}",
            {"archivist.kind": "tool", "tool.name": name, "tool.input": str(input_str)[:500]},
        )

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """A tool call ended."""
        self._close(run_id)

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """A tool call failed."""
        self._close(run_id, error)


_PROVIDERS: dict[str, Any] = {}
_PROVIDERS_LOCK = threading.Lock()


def _traces_url(endpoint: str) -> str:
    """OTLP/HTTP wants the signal path; a bare collector URL gets ``/v1/traces``."""
    endpoint = endpoint.rstrip("/")
    return endpoint if endpoint.endswith("/v1/traces") else f"{endpoint}/v1/traces"


def otlp_tracer(endpoint: str) -> Tracer:
    """A tracer exporting over OTLP/HTTP to ``endpoint`` (one provider per endpoint)."""
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as exc:
        from archivist.types import ArchivistError

        raise ArchivistError(
            "OTLP tracing is configured but OpenTelemetry is not installed: "
            "pip install 'archivist[observability]'"
        ) from exc
    url = _traces_url(endpoint)
    with _PROVIDERS_LOCK:
        if url not in _PROVIDERS:
            provider = TracerProvider(resource=Resource.create({"service.name": "archivist"}))
            provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=url)))
            _PROVIDERS[url] = provider
        return _PROVIDERS[url].get_tracer("archivist")


def _langfuse_handler(settings: Settings) -> BaseCallbackHandler:
    try:
        from langfuse import Langfuse
        from langfuse.langchain import CallbackHandler
    except ImportError:
        try:  # Langfuse SDK v2
            from langfuse.callback import CallbackHandler as LegacyHandler
        except ImportError as exc:
            from archivist.types import ArchivistError

            raise ArchivistError(
                "Langfuse is configured but not installed: pip install 'archivist[observability]'"
            ) from exc
        handler: BaseCallbackHandler = LegacyHandler(
            public_key=settings.llm.langfuse_public_key,
            secret_key=settings.llm.langfuse_secret_key,
            host=settings.llm.langfuse_host,
        )
        return handler
    Langfuse(
        public_key=settings.llm.langfuse_public_key,
        secret_key=settings.llm.langfuse_secret_key,
        host=settings.llm.langfuse_host,
    )
    handler = CallbackHandler(public_key=settings.llm.langfuse_public_key)
    return handler


def tracing_callbacks(settings: Settings) -> list[BaseCallbackHandler]:
    """The handlers the configuration asks for; empty when nothing is configured."""
    handlers: list[BaseCallbackHandler] = []
    if settings.agent.otlp_endpoint:
        handlers.append(SpanCallbackHandler(otlp_tracer(settings.agent.otlp_endpoint)))
    llm = settings.llm
    if llm.langfuse_public_key and llm.langfuse_secret_key and llm.langfuse_host:
        handlers.append(_langfuse_handler(settings))
    return handlers


# --- handlers for every run inside a block -----------------------------------------------
_SLOTS: list[ContextVar[BaseCallbackHandler | None]] = []
_SLOTS_LOCK = threading.Lock()


def _slots(count: int) -> list[ContextVar[BaseCallbackHandler | None]]:
    from langchain_core.tracers.context import register_configure_hook

    with _SLOTS_LOCK:
        while len(_SLOTS) < count:
            var: ContextVar[BaseCallbackHandler | None] = ContextVar(
                f"archivist_callback_{len(_SLOTS)}", default=None
            )
            register_configure_hook(var, True)
            _SLOTS.append(var)
        return _SLOTS[:count]


@contextmanager
def attach_callbacks(handlers: Sequence[BaseCallbackHandler]) -> Iterator[None]:
    """Add ``handlers`` (inheritably) to every LangChain run started inside the block."""
    tokens = [var.set(h) for var, h in zip(_slots(len(handlers)), handlers, strict=True)]
    try:
        yield
    finally:
        for var, token in zip(_SLOTS, tokens, strict=False):
            var.reset(token)
