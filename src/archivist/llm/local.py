"""The ``local`` provider: a LangChain chat model over a GGUF run in this process.

``local`` (the default 1.5B model), ``local:0.5b``, ``local:1.5b`` or ``local:/path/x.gguf``.
The model is loaded by :mod:`archivist.llm.local_runtime` on the first call (building the
chat model loads nothing). Messages go to llama.cpp's OpenAI-compatible chat handler, so
the model's own chat template applies; tools bind as OpenAI tools, structured output asks
for a JSON-schema-constrained reply, and every reply carries its token usage.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from operator import itemgetter
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    convert_to_openai_messages,
)
from langchain_core.messages.ai import UsageMetadata
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.output_parsers import JsonOutputParser, PydanticOutputParser
from langchain_core.output_parsers.openai_tools import make_invalid_tool_call, parse_tool_call
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableMap, RunnablePassthrough
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, Field

from archivist.llm.local_runtime import LocalServer, RuntimeOptions, local_server

#: Reply cap when ``llm.max_tokens`` is not set. llama.cpp's own default is no cap: a small
#: model that starts repeating itself then generates until its context is full (8,192
#: tokens, about five minutes at 26 tokens/s).
DEFAULT_REPLY_TOKENS = 1024


class LocalChatModel(BaseChatModel):
    """A GGUF model answering in-process (llama.cpp through xllamacpp)."""

    model_path: Path
    model_name: str = "local"
    temperature: float = 0.0
    max_tokens: int = DEFAULT_REPLY_TOKENS
    context_per_slot: int = 8192
    parallel: int = 2
    threads: int | None = None
    seed: int = 42
    #: Reuse the slot's matching prompt prefix (``local_prompt_cache``).
    prompt_cache: bool = True
    #: Seconds a call may take (``local_timeout_s``); None: sized from the measured speed.
    timeout_s: float | None = None
    #: Loads the server (tests may inject a stand-in); not part of the model's identity.
    server_factory: Callable[[Path, RuntimeOptions], LocalServer] = Field(
        default=local_server, exclude=True
    )

    @property
    def _llm_type(self) -> str:
        return "archivist-local"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model": self.model_name, "path": str(self.model_path)}

    def server(self) -> LocalServer:
        """The loaded model (loaded now if this is the first call in the process)."""
        options = RuntimeOptions(self.context_per_slot, self.parallel, self.threads)
        return self.server_factory(self.model_path, options)

    # --- requests ------------------------------------------------------------------

    def _request(
        self, messages: list[BaseMessage], stop: list[str] | None, **kwargs: Any
    ) -> dict[str, Any]:
        request: dict[str, Any] = {
            "messages": convert_to_openai_messages(messages),
            "temperature": self.temperature,
            "seed": self.seed,
            "max_tokens": self.max_tokens,
            "cache_prompt": self.prompt_cache,
        }
        if stop:
            request["stop"] = stop
        for key in ("tools", "tool_choice", "response_format", "max_tokens"):
            if kwargs.get(key) is not None:
                request[key] = kwargs[key]
        return request

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        response = self.server().chat(self._request(messages, stop, **kwargs), self.timeout_s)
        choice = (response.get("choices") or [{}])[0]
        message = choice.get("message") or {}
        tool_calls, invalid = [], []
        for raw in message.get("tool_calls") or []:
            try:
                tool_calls.append(parse_tool_call(raw, return_id=True))
            except Exception as exc:  # a malformed call is reported, not raised
                invalid.append(make_invalid_tool_call(raw, str(exc)))
        ai = AIMessage(
            content=message.get("content") or "",
            tool_calls=[call for call in tool_calls if call],
            invalid_tool_calls=invalid,
            usage_metadata=_usage(response.get("usage")),
            response_metadata=_metadata(response, choice),
        )
        return ChatResult(generations=[ChatGeneration(message=ai)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        chunks = self.server().stream(self._request(messages, stop, **kwargs), self.timeout_s)
        try:
            for chunk in chunks:
                generation = _chunk(chunk)
                if generation is None:
                    continue
                if run_manager and isinstance(generation.message.content, str):
                    run_manager.on_llm_new_token(generation.message.content, chunk=generation)
                yield generation
        finally:
            chunks.close()  # type: ignore[attr-defined]  # a generator: stops the server

    # --- tools and structured output ----------------------------------------------------

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind OpenAI-format tools (llama.cpp renders them with the model's template)."""
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        if tool_choice in ("any", True):
            tool_choice = "required"
        elif isinstance(tool_choice, str) and tool_choice not in ("auto", "none", "required"):
            tool_choice = {"type": "function", "function": {"name": tool_choice}}
        return super().bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    def with_structured_output(
        self,
        schema: dict[str, Any] | type,
        *,
        include_raw: bool = False,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, Any]:
        """A reply constrained to ``schema`` by llama.cpp's JSON-schema grammar."""
        if isinstance(schema, type) and issubclass(schema, BaseModel):
            json_schema = strict_schema(schema.model_json_schema())
            name = schema.__name__
            parser: Runnable[Any, Any] = PydanticOutputParser(pydantic_object=schema)
        else:
            json_schema = strict_schema(dict(schema))  # type: ignore[arg-type]
            name = str(json_schema.get("title", "reply"))
            parser = JsonOutputParser()
        bound = self.bind(
            response_format={
                "type": "json_schema",
                "json_schema": {"name": name, "schema": json_schema, "strict": True},
            },
            ls_structured_output_format={"kwargs": {"method": "json_schema"},
                                         "schema": json_schema},
        )
        if not include_raw:
            return bound | parser
        parsed = RunnablePassthrough.assign(
            parsed=itemgetter("raw") | parser, parsing_error=lambda _: None
        )
        failed = RunnablePassthrough.assign(parsed=lambda _: None)
        return RunnableMap(raw=bound) | parsed.with_fallbacks(
            [failed], exception_key="parsing_error"
        )


def strict_schema(node: Any) -> Any:
    """``node`` with every object's properties required, in their declared order.

    llama.cpp's grammar then makes the model write every field, in order: without it, a
    small model skips a field with a default (say, the list of relevant passages) and
    spends its tokens on the next one.
    """
    if isinstance(node, list):
        return [strict_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    strict = {key: strict_schema(value) for key, value in node.items()}
    properties = strict.get("properties")
    if isinstance(properties, dict) and properties:
        strict["required"] = list(properties)
        strict["additionalProperties"] = False
    return strict


def _usage(usage: Any) -> UsageMetadata | None:
    if not isinstance(usage, dict):
        return None
    tokens_in = int(usage.get("prompt_tokens") or 0)
    tokens_out = int(usage.get("completion_tokens") or 0)
    return UsageMetadata(
        input_tokens=tokens_in, output_tokens=tokens_out, total_tokens=tokens_in + tokens_out
    )


def _metadata(response: dict[str, Any], choice: dict[str, Any]) -> dict[str, Any]:
    metadata: dict[str, Any] = {"model_name": "local"}
    if choice.get("finish_reason"):
        metadata["finish_reason"] = choice["finish_reason"]
    if isinstance(response.get("timings"), dict):
        metadata["timings"] = response["timings"]  # prompt/generation tokens per second
    return metadata


def _chunk(chunk: dict[str, Any]) -> ChatGenerationChunk | None:
    """One streamed chunk as a LangChain chunk (``None`` for an empty role-only delta)."""
    choices = chunk.get("choices") or []
    usage = _usage(chunk.get("usage"))
    if not choices:
        if usage is None:
            return None
        metadata = {"timings": chunk["timings"]} if isinstance(chunk.get("timings"), dict) else {}
        return ChatGenerationChunk(
            message=AIMessageChunk(content="", usage_metadata=usage, response_metadata=metadata)
        )
    choice = choices[0]
    delta = choice.get("delta") or {}
    calls = [
        tool_call_chunk(
            name=(call.get("function") or {}).get("name"),
            args=(call.get("function") or {}).get("arguments"),
            id=call.get("id"),
            index=call.get("index"),
        )
        for call in delta.get("tool_calls") or []
    ]
    content = delta.get("content") or ""
    finish = choice.get("finish_reason")
    if not content and not calls and not finish and usage is None:
        return None
    return ChatGenerationChunk(
        message=AIMessageChunk(
            content=content,
            tool_call_chunks=calls,
            usage_metadata=usage,
            response_metadata={"finish_reason": finish} if finish else {},
        )
    )
