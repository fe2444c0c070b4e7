"""Retries with exponential backoff and full jitter for transient LLM failures.

A transient failure is one that may pass if we wait: the server refused or dropped the
connection, a request timed out, or it answered HTTP 408, 429 or 5xx. Anything else (400,
401, 403, 404, a bad schema, a parsing error) is raised at once.

:func:`retry_call` is the primitive; :class:`RetryingChatModel` wraps any LangChain chat
model so that every call (``invoke``, ``stream``, their async twins, ``bind_tools`` and
``with_structured_output``) goes through it. :func:`with_backoff` builds one from settings.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.runnables import (
    Runnable,
    RunnableBinding,
    RunnableParallel,
    RunnableSequence,
    RunnableWithFallbacks,
)
from pydantic import ConfigDict, Field

if TYPE_CHECKING:
    from archivist.settings import Settings

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: HTTP statuses worth another try: request timeout, rate limit, and every server error.
TRANSIENT_STATUSES = frozenset({408, 429})

#: Exception class names (anywhere in the MRO) that mean "try again later".
_TRANSIENT_TYPE_NAMES = frozenset(
    {
        "TimeoutException",  # httpx / httpx2: connect, read, write and pool timeouts
        "NetworkError",  # httpx / httpx2: connect, read, write, close errors
        "RemoteProtocolError",  # httpx / httpx2: the server dropped the connection
        "APIConnectionError",  # openai / anthropic: could not reach the server
        "APITimeoutError",  # openai / anthropic
        "InternalServerError",  # openai / anthropic 5xx
        "RateLimitError",  # openai / anthropic 429
        "ServiceUnavailable",  # google.api_core 503
        "TooManyRequests",  # google.api_core 429
        "ResourceExhausted",  # google.api_core 429
        "DeadlineExceeded",  # google.api_core 504
    }
)

DEFAULT_BASE_DELAY = 0.5
DEFAULT_MAX_DELAY = 8.0


def exception_chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc``, then its ``__cause__`` / ``__context__`` ancestors, each once."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def status_code_of(exc: BaseException) -> int | None:
    """Return the HTTP status an exception carries (``status_code`` or ``response.status_code``)."""
    for candidate in (exc, getattr(exc, "response", None)):
        code = getattr(candidate, "status_code", None)
        if isinstance(code, int) and 100 <= code <= 599:
            return code
    return None


def is_transient(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) is a failure that a later retry may get past.

    An HTTP status decides first: 408, 429 and 5xx are transient, any other 4xx is
    not (even when a transient error appears further down the chain).
    """
    for error in exception_chain(exc):
        status = status_code_of(error)
        if status is not None:
            return status in TRANSIENT_STATUSES or status >= 500
        if isinstance(error, ConnectionError | TimeoutError):
            return True
        if any(cls.__name__ in _TRANSIENT_TYPE_NAMES for cls in type(error).__mro__):
            return True
    return False


def backoff_delay(
    retry_index: int, *, base_delay: float, max_delay: float, rng: Callable[[], float]
) -> float:
    """Full jitter: uniform in ``[0, min(max_delay, base_delay * 2**retry_index)]``."""
    cap = min(max_delay, base_delay * (2**retry_index))
    return rng() * cap


def retry_call(
    fn: Callable[[], T],
    *,
    attempts: int,
    base_delay: float = DEFAULT_BASE_DELAY,
    max_delay: float = DEFAULT_MAX_DELAY,
    sleep: Callable[[float], None] = time.sleep,
    is_transient: Callable[[BaseException], bool] = is_transient,
    rng: Callable[[], float] = random.random,
) -> T:
    """Call ``fn`` up to ``attempts`` times, sleeping with jittered backoff between tries.

    Non-transient errors, and the last transient one, are re-raised unchanged.
    """
    attempts = max(1, attempts)
    for attempt in range(attempts):
        try:
            return fn()
        except Exception as exc:
            if attempt + 1 >= attempts or not is_transient(exc):
                raise
            delay = backoff_delay(attempt, base_delay=base_delay, max_delay=max_delay, rng=rng)
            _log_retry(exc, attempt, attempts, delay)
            sleep(delay)
    raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover


async def aretry_call(
    fn: Callable[[], Awaitable[T]],
    *,
    attempts: int,
    base_delay: float = DEFAULT_BASE_DELAY,
    max_delay: float = DEFAULT_MAX_DELAY,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    is_transient: Callable[[BaseException], bool] = is_transient,
    rng: Callable[[], float] = random.random,
) -> T:
    """Await ``fn`` with retries: the async twin of :func:`retry_call`."""
    attempts = max(1, attempts)
    for attempt in range(attempts):
        try:
            return await fn()
        except Exception as exc:
            if attempt + 1 >= attempts or not is_transient(exc):
                raise
            delay = backoff_delay(attempt, base_delay=base_delay, max_delay=max_delay, rng=rng)
            _log_retry(exc, attempt, attempts, delay)
            await sleep(delay)
    raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover


def _log_retry(exc: BaseException, attempt: int, attempts: int, delay: float) -> None:
    logger.warning(
        "transient LLM error (attempt %d of %d), retrying in %.2fs: %s: %s",
        attempt + 1,
        attempts,
        delay,
        type(exc).__name__,
        exc,
    )


class RetryingChatModel(BaseChatModel):
    """A chat model that retries its ``inner`` model's transient failures.

    Streaming is retried only while no chunk has been yielded; once text has reached the
    caller a failure is raised, since replaying it would duplicate output.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    inner: BaseChatModel
    max_retries: int = 3
    base_delay: float = DEFAULT_BASE_DELAY
    max_delay: float = DEFAULT_MAX_DELAY
    sleep: Callable[[float], None] = Field(default=time.sleep, exclude=True)
    async_sleep: Callable[[float], Awaitable[None]] = Field(default=asyncio.sleep, exclude=True)
    rng: Callable[[], float] = Field(default=random.random, exclude=True)

    @property
    def _llm_type(self) -> str:
        return self.inner._llm_type

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return dict(self.inner._identifying_params)

    # --- the retry loop ----------------------------------------------------------------
    def _retry(self, fn: Callable[[], T]) -> T:
        return retry_call(
            fn,
            attempts=self.max_retries + 1,
            base_delay=self.base_delay,
            max_delay=self.max_delay,
            sleep=self.sleep,
            rng=self.rng,
        )

    async def _aretry(self, fn: Callable[[], Awaitable[T]]) -> T:
        return await aretry_call(
            fn,
            attempts=self.max_retries + 1,
            base_delay=self.base_delay,
            max_delay=self.max_delay,
            sleep=self.async_sleep,
            rng=self.rng,
        )

    def _delay(self, retry_index: int) -> float:
        return backoff_delay(
            retry_index, base_delay=self.base_delay, max_delay=self.max_delay, rng=self.rng
        )

    # --- BaseChatModel hooks -------------------------------------------------------------
    def _inner_streams(self) -> bool:
        return type(self.inner)._stream is not BaseChatModel._stream

    def _inner_astreams(self) -> bool:
        return type(self.inner)._astream is not BaseChatModel._astream

    def _should_stream(
        self,
        *,
        async_api: bool,
        run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> bool:
        """Stream only when the inner model can; otherwise follow the usual rules."""
        if not self._inner_streams() and not (async_api and self._inner_astreams()):
            return False
        return super()._should_stream(async_api=async_api, run_manager=run_manager, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._retry(
            lambda: self.inner._generate(messages, stop=stop, run_manager=run_manager, **kwargs)
        )

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return await self._aretry(
            lambda: self.inner._agenerate(messages, stop=stop, run_manager=run_manager, **kwargs)
        )

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        attempts = max(1, self.max_retries + 1)
        for attempt in range(attempts):
            yielded = False
            try:
                # run_manager stays here: BaseChatModel.stream reports each chunk we yield,
                # so passing it down would report every token twice.
                for chunk in self.inner._stream(messages, stop=stop, **kwargs):
                    yielded = True
                    yield chunk
                return
            except Exception as exc:
                if yielded or attempt + 1 >= attempts or not is_transient(exc):
                    raise
                delay = self._delay(attempt)
                _log_retry(exc, attempt, attempts, delay)
                self.sleep(delay)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        attempts = max(1, self.max_retries + 1)
        for attempt in range(attempts):
            yielded = False
            try:
                async for chunk in self.inner._astream(messages, stop=stop, **kwargs):
                    yielded = True
                    yield chunk
                return
            except Exception as exc:
                if yielded or attempt + 1 >= attempts or not is_transient(exc):
                    raise
                delay = self._delay(attempt)
                _log_retry(exc, attempt, attempts, delay)
                await self.async_sleep(delay)

    # --- tools and structured output ------------------------------------------------
    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[Any, Any]:
        """Bind tools on the inner model, with its calls routed through this wrapper."""
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self._reroute(self.inner.bind_tools(tools, **kwargs), "bind_tools")

    def with_structured_output(  # type: ignore[override]
        self, schema: Any, *, include_raw: bool = False, **kwargs: Any
    ) -> Runnable[Any, Any]:
        """Use the inner model's own structured output (its best method), retried here."""
        structured = self.inner.with_structured_output(schema, include_raw=include_raw, **kwargs)
        return self._reroute(structured, "with_structured_output")

    def _reroute(self, runnable: Runnable[Any, Any], what: str) -> Runnable[Any, Any]:
        rerouted, replaced = _replace_model(runnable, self.inner, self)
        if not replaced:
            logger.warning(
                "%s of %s returned a runnable this wrapper cannot reach into; "
                "its calls are not retried",
                what,
                type(self.inner).__name__,
            )
        return rerouted


def _replace_model(
    runnable: Runnable[Any, Any], old: BaseChatModel, new: BaseChatModel
) -> tuple[Runnable[Any, Any], bool]:
    """Copy ``runnable`` with every use of the model ``old`` pointing at ``new``.

    Providers build ``bind_tools`` / ``with_structured_output`` from bindings, sequences,
    parallel maps and fallbacks around the model itself; those are rebuilt, the rest kept.
    """
    if runnable is old:
        return new, True
    if isinstance(runnable, RunnableBinding):
        bound, replaced = _replace_model(runnable.bound, old, new)
        return (
            (runnable.model_copy(update={"bound": bound}), True)
            if replaced
            else (
                runnable,
                False,
            )
        )
    if isinstance(runnable, RunnableSequence):
        steps = [_replace_model(step, old, new) for step in runnable.steps]
        if any(replaced for _, replaced in steps):
            return RunnableSequence(*(step for step, _ in steps), name=runnable.name), True
        return runnable, False
    if isinstance(runnable, RunnableParallel):
        branches = {key: _replace_model(step, old, new) for key, step in runnable.steps__.items()}
        if any(replaced for _, replaced in branches.values()):
            return RunnableParallel(steps__={k: s for k, (s, _) in branches.items()}), True
        return runnable, False
    if isinstance(runnable, RunnableWithFallbacks):
        main, main_replaced = _replace_model(runnable.runnable, old, new)
        fallbacks = [_replace_model(f, old, new) for f in runnable.fallbacks]
        if main_replaced or any(replaced for _, replaced in fallbacks):
            update = {"runnable": main, "fallbacks": [f for f, _ in fallbacks]}
            return runnable.model_copy(update=update), True
        return runnable, False
    return runnable, False


def with_backoff(
    model: BaseChatModel,
    settings: Settings,
    *,
    sleep: Callable[[float], None] | None = None,
    async_sleep: Callable[[float], Awaitable[None]] | None = None,
    rng: Callable[[], float] | None = None,
) -> RetryingChatModel:
    """Wrap ``model`` so transient failures are retried ``settings.llm_max_retries`` times."""
    extra: dict[str, Any] = {}
    if sleep is not None:
        extra["sleep"] = sleep
    if async_sleep is not None:
        extra["async_sleep"] = async_sleep
    if rng is not None:
        extra["rng"] = rng
    return RetryingChatModel(inner=model, max_retries=max(0, settings.llm_max_retries), **extra)
