"""The scripted chat model: a script, rules, then the built-in replies."""

from __future__ import annotations

import itertools
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, PrivateAttr

from archivist.testing.replies import CallInfo, Reply, default_reply, question_of


class ScriptExhausted(RuntimeError):
    """The script ran out and built-in behaviour is switched off."""


@dataclass
class CallRecord:
    """One recorded model call."""

    messages: list[BaseMessage]
    tools: list[str]
    schema: str | None
    started: float
    ended: float = 0.0
    thread: str = field(default_factory=lambda: threading.current_thread().name)
    reply: AIMessage | None = None

    @property
    def text(self) -> str:
        """All message contents of the call, joined (handy for assertions)."""
        return "\n".join(str(m.content) for m in self.messages)


def _tool_name(tool: Any) -> str:
    if isinstance(tool, BaseTool):
        return tool.name
    if isinstance(tool, type) and issubclass(tool, BaseModel):
        return tool.__name__
    return str(convert_to_openai_tool(tool)["function"]["name"])


class ScriptedChatModel(BaseChatModel):
    """A deterministic chat model driven by a script, rules, or built-in behaviour."""

    script: list[Any] = []
    rules: list[Any] = []
    delay_s: float = 0.0
    use_default: bool = True
    _calls: list[CallRecord] = PrivateAttr(default_factory=list)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)
    _cursor: int = PrivateAttr(default=0)
    _ids: Any = PrivateAttr(default_factory=itertools.count)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def calls(self) -> list[CallRecord]:
        """Every call so far, in the order they started."""
        return self._calls

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """A bound copy offering ``tools``; it shares this model's script and call log."""
        return self.bind(tools=list(tools), tool_choice=tool_choice, **kwargs)

    # --- replying ----------------------------------------------------------------------
    def _next_reply(self, messages: list[BaseMessage], info: CallInfo) -> Reply:
        with self._lock:
            entry = self.script[self._cursor] if self._cursor < len(self.script) else None
            if entry is not None and _fits(entry, info.schema):
                self._cursor += 1
            else:
                entry = None
        if isinstance(entry, BaseException):
            raise entry
        if entry is not None:
            return entry(messages, info) if callable(entry) else entry  # type: ignore[no-any-return]
        for rule in self.rules:
            reply = rule(messages, info)
            if reply is not None and not _wrong_schema(reply, info.schema):
                return reply  # type: ignore[no-any-return]
        if not self.use_default:
            raise ScriptExhausted(f"no scripted reply for call {info.index}")
        return default_reply(messages, info)

    def _respond(self, messages: list[BaseMessage], **kwargs: Any) -> tuple[AIMessage, CallRecord]:
        tools = list(kwargs.get("tools") or [])
        names = [_tool_name(t) for t in tools]
        schema = None
        if kwargs.get("tool_choice") == "any" and len(tools) == 1:
            only = tools[0]
            if isinstance(only, type) and issubclass(only, BaseModel):
                schema = only
        record = CallRecord(list(messages), names, schema.__name__ if schema else None,
                            time.perf_counter())
        with self._lock:
            index = len(self._calls)
            self._calls.append(record)
        if self.delay_s:
            time.sleep(self.delay_s)
        info = CallInfo(index, names, schema, question_of(messages))
        reply = self._next_reply(list(messages), info)
        message = self._to_message(reply, schema)
        record.ended = time.perf_counter()
        record.reply = message
        return message, record

    def _to_message(self, reply: Reply, schema: type[BaseModel] | None) -> AIMessage:
        if isinstance(reply, AIMessage):
            message = reply.model_copy()
        elif isinstance(reply, BaseModel):
            name = schema.__name__ if schema else type(reply).__name__
            message = AIMessage(content="", tool_calls=[
                {"name": name, "args": reply.model_dump(), "id": f"call-{next(self._ids)}"}
            ])
        else:
            message = AIMessage(content=str(reply))
        tokens_out = max(1, len(str(message.content)) // 4)
        message.usage_metadata = {"input_tokens": 0, "output_tokens": tokens_out,
                                  "total_tokens": tokens_out}
        return message

    def _usage(self, messages: list[BaseMessage], message: AIMessage) -> None:
        tokens_in = sum(len(str(m.content)) for m in messages) // 4
        out = message.usage_metadata["output_tokens"] if message.usage_metadata else 0
        message.usage_metadata = {"input_tokens": tokens_in, "output_tokens": out,
                                  "total_tokens": tokens_in + out}

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message, _ = self._respond(messages, **kwargs)
        self._usage(messages, message)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        message, _ = self._respond(messages, **kwargs)
        self._usage(messages, message)
        text = str(message.content)
        pieces = re.findall(r"\S+\s*|\s+", text)
        for piece in pieces:
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece, id=message.id))
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk
        chunks = [
            tool_call_chunk(name=c["name"], args=_json(c["args"]), id=c.get("id"), index=i)
            for i, c in enumerate(message.tool_calls)
        ]
        chunks += [  # malformed calls stay malformed: their raw argument text is streamed
            tool_call_chunk(name=c.get("name"), args=c.get("args"), id=c.get("id"),
                            index=len(chunks) + i)
            for i, c in enumerate(message.invalid_tool_calls)
        ]
        final = AIMessageChunk(
            content="",
            id=message.id,
            tool_call_chunks=chunks,
            usage_metadata=message.usage_metadata,
            chunk_position="last",
        )
        yield ChatGenerationChunk(message=final)


def _fits(entry: Any, schema: type[BaseModel] | None) -> bool:
    """Whether a script entry or rule reply can answer this call.

    A pydantic object answers only a structured call for its own schema, and a structured
    call takes nothing else from the script (use a rule to return bad output to it).
    Callables and exceptions fit any call.
    """
    if isinstance(entry, BaseMessage | str):
        return schema is None
    if isinstance(entry, BaseModel):
        return schema is not None and isinstance(entry, schema)
    return True  # a callable, or an exception to raise


def _wrong_schema(reply: Any, schema: type[BaseModel] | None) -> bool:
    """A rule's pydantic reply meant for another schema (a rule may return bad output)."""
    if isinstance(reply, BaseModel) and not isinstance(reply, BaseMessage):
        return schema is None or not isinstance(reply, schema)
    return False


def _json(value: Any) -> str:
    import json

    return json.dumps(value)
