"""A scripted chat model: run and test Archivist (and your own prompts) with no LLM at all.

``ScriptedChatModel`` is a real LangChain chat model. It supports ``bind_tools`` and
``with_structured_output``, streams token by token, and records every call in ``calls``
(the messages, the tools offered, the structured-output schema, start and end times).

Each call is answered by, in order:

1. the next entry of ``script`` (an ``AIMessage``, a string, a pydantic instance for
   structured output, a callable ``(messages, info) -> reply``, or an exception
   instance, which is raised: inject transient errors to test retries), when it fits
   the call: a pydantic instance answers only a structured call for its own schema, and
   a structured call takes no message or string from the script (so grading calls do
   not eat a script written for the research loop); an entry that does not fit waits;
   callables and exceptions fit any call;
2. the first of ``rules`` (callables ``(messages, info) -> reply | None``) that returns
   something other than ``None`` and other than a pydantic object of another schema (a
   rule may return a message or text to a structured call: that is how to test bad
   structured output);
3. the built-in deterministic behaviour (unless ``use_default=False``, which raises
   :class:`ScriptExhausted` instead):

   - structured output: ``schema.scripted_reply(messages, question)`` or
     ``schema.scripted_default(question)`` when the schema defines one (question analysis:
     "clear, one sub-question = the question", greetings routed to a direct reply;
     grading: passages sharing a word with the question are relevant), else the schema
     built from its defaults;
   - tools offered, including ``search_documents``, and no tool result yet: search with
     the question;
   - ``<sub_answer>`` blocks in the last message: join their texts;
   - ``<passage>`` blocks anywhere: quote the passage sharing most words with the question
     (ties: the earlier, better-ranked one) with its citation ``[document, pages]``; when no
     passage shares a word with it: "The documents do not contain ...";
   - otherwise: a short echo of the last message.

"The question" is the text after the latest ``Question:`` line of the user messages, or
the last user message.
Select it for the whole app with ``ARCHIVIST_LLM=scripted``.
"""

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
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, PrivateAttr

from archivist.agent.steps import content_words as words_of

ABSTAIN = "The documents do not contain"
_PASSAGE = re.compile(r"<passage ([^>]*)>\n?(.*?)\n?</passage>", re.S)
_ATTR = re.compile(r'(\w+)="([^"]*)"')
_QUOTED_NOTE = re.compile(r'^According to [^:\n]+: ".*" \[[^\]]+\]$', re.M)
_SUB_ANSWER = re.compile(r"<sub_answer[^>]*>\n?(.*?)\n?</sub_answer>", re.S)


class ScriptExhausted(RuntimeError):
    """The script ran out and built-in behaviour is switched off."""


@dataclass
class CallInfo:
    """What a reply function may look at besides the messages."""

    index: int
    tools: list[str]
    schema: type[BaseModel] | None
    question: str


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


Reply = AIMessage | str | BaseModel
ReplyFn = Callable[[list[BaseMessage], CallInfo], "Reply | None"]


def tool_call(name: str, **args: Any) -> AIMessage:
    """An ``AIMessage`` calling one tool, for scripts."""
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call-{name}"}])


def question_of(messages: Sequence[BaseMessage]) -> str:
    """The question: the latest ``Question:`` line of a user message, else the last one."""
    humans = [m for m in messages if isinstance(m, HumanMessage)]
    for message in reversed(humans):
        for line in str(message.content).splitlines():
            if line.startswith("Question:"):
                return line.removeprefix("Question:").strip()
    return str(humans[-1].content).strip() if humans else ""




def passages_in(messages: Sequence[BaseMessage]) -> list[tuple[dict[str, str], str]]:
    """Every ``<passage ...>`` block in the messages: (its attributes, its text)."""
    return [
        (dict(_ATTR.findall(attrs)), body)
        for message in messages
        for attrs, body in _PASSAGE.findall(str(message.content))
    ]


def quote_best_passage(messages: Sequence[BaseMessage], question: str) -> str | None:
    """The built-in answer: the best passage quoted with its citation; ``None`` if none."""
    passages = passages_in(messages)
    wanted = words_of(question)
    if not passages:  # compressed notes written by this model keep quoted, cited lines
        notes = [n for m in messages for n in _QUOTED_NOTE.findall(str(m.content))]
        scored_notes = [(len(wanted & words_of(n)), -i) for i, n in enumerate(notes)]
        if not notes or max(scored_notes)[0] == 0:
            return None
        return notes[-max(scored_notes)[1]]
    scored = [(len(wanted & words_of(body)), -i) for i, (_, body) in enumerate(passages)]
    best_score, neg_index = max(scored)
    if best_score == 0:
        return f"{ABSTAIN} anything about: {question}"
    attrs, body = passages[-neg_index]
    sentences = [
        s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", body)
        if s.strip() and not s.lstrip().startswith("#")
    ]
    ranked = max(range(len(sentences)), key=lambda i: (len(wanted & words_of(sentences[i])), -i),
                 default=None)
    quote = " ".join(sentences[ranked: ranked + 2]) if ranked is not None else body.strip()
    quote = quote if len(quote) <= 400 else quote[:400].rstrip() + "..."
    document = attrs.get("document", "unknown")
    cite = f"{document}, {attrs['pages']}" if attrs.get("pages") else document
    return f'According to {document}: "{quote}" [{cite}]'


def default_reply(messages: list[BaseMessage], info: CallInfo) -> Reply:
    """The built-in deterministic behaviour described in the module docstring."""
    if info.schema is not None:
        replier = getattr(info.schema, "scripted_reply", None)
        if replier is not None:
            return replier(messages, info.question)  # type: ignore[no-any-return]
        maker = getattr(info.schema, "scripted_default", None)
        return maker(info.question) if maker else info.schema()
    has_results = any(m.type == "tool" for m in messages)
    if "search_documents" in info.tools and not has_results:
        return tool_call("search_documents", query=info.question)
    last = str(messages[-1].content) if messages else ""
    parts = _SUB_ANSWER.findall(last)
    if parts:
        return "\n\n".join(p.strip() for p in parts)
    quoted = quote_best_passage(messages, info.question)
    if quoted is not None:
        return quoted
    return "Summary: " + " ".join(last.split())[:300]


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
