"""Retries with exponential backoff and full jitter for transient LLM failures.

:func:`retry_call` is the primitive. :func:`with_backoff` gives any LangChain chat model
retries where the provider's request is made: it returns a copy of the model whose class
is the provider's own class with :class:`RetryingChatModel` mixed in, which retries
``_generate`` / ``_agenerate`` and, before their first chunk, ``_stream`` / ``_astream``.
The provider's own ``bind_tools`` and ``with_structured_output`` (every method) then bind
the retrying model itself, so tool calls and structured output are retried with no
runnable tree to rebuild. The provider SDK's own retries are turned off by the builders
(one policy, the classification of :mod:`archivist.llm.errors`).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from pydantic import Field

from archivist.llm.errors import is_transient
from archivist.llm.slots import aslot, slot

if TYPE_CHECKING:
    from archivist.settings import Settings

logger = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_BASE_DELAY = 0.5
DEFAULT_MAX_DELAY = 8.0

__all__ = [
    "RetryingChatModel",
    "aretry_call",
    "backoff_delay",
    "is_transient",
    "retry_call",
    "with_backoff",
]


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
    """Mixin: retries the provider's request hooks of the chat model class it precedes.

    Never instantiated alone: :func:`with_backoff` builds ``Retrying<Provider>`` classes.
    Streaming is retried only while no chunk has been yielded; once text has reached the
    caller a failure is raised, since replaying it would duplicate output.
    """

    retries: int = 3
    retry_base_delay: float = DEFAULT_BASE_DELAY
    retry_max_delay: float = DEFAULT_MAX_DELAY
    retry_sleep: Callable[[float], None] = Field(default=time.sleep, exclude=True)
    retry_async_sleep: Callable[[float], Awaitable[None]] = Field(
        default=asyncio.sleep, exclude=True
    )
    retry_rng: Callable[[], float] = Field(default=random.random, exclude=True)
    #: The server's request slots (see :mod:`archivist.llm.slots`): each attempt waits
    #: for one before its request, and so before its timeout, starts.
    slot_key: str | None = Field(default=None, exclude=True)
    slot_size: int | None = Field(default=None, exclude=True)

    def _attempts(self) -> int:
        return max(1, self.retries + 1)

    def _delay(self, retry_index: int) -> float:
        return backoff_delay(retry_index, base_delay=self.retry_base_delay,
                             max_delay=self.retry_max_delay, rng=self.retry_rng)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        def attempt() -> ChatResult:
            with slot(self.slot_key, self.slot_size):
                # the mixin always precedes a concrete provider class, whose _generate runs
                return super(RetryingChatModel, self)._generate(  # type: ignore[safe-super]
                    messages, stop=stop, run_manager=run_manager, **kwargs
                )

        return retry_call(
            attempt,
            attempts=self._attempts(), base_delay=self.retry_base_delay,
            max_delay=self.retry_max_delay, sleep=self.retry_sleep, rng=self.retry_rng,
        )

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        async def attempt() -> ChatResult:
            async with aslot(self.slot_key, self.slot_size):
                return await super(RetryingChatModel, self)._agenerate(
                    messages, stop=stop, run_manager=run_manager, **kwargs
                )

        return await aretry_call(
            attempt,
            attempts=self._attempts(), base_delay=self.retry_base_delay,
            max_delay=self.retry_max_delay, sleep=self.retry_async_sleep, rng=self.retry_rng,
        )

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        attempts = self._attempts()
        for attempt in range(attempts):
            yielded = False
            try:
                with slot(self.slot_key, self.slot_size):
                    for chunk in super()._stream(messages, stop=stop, run_manager=run_manager,
                                                 **kwargs):
                        yielded = True
                        yield chunk
                return
            except Exception as exc:
                if yielded or attempt + 1 >= attempts or not is_transient(exc):
                    raise
                delay = self._delay(attempt)
                _log_retry(exc, attempt, attempts, delay)
                self.retry_sleep(delay)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        attempts = self._attempts()
        for attempt in range(attempts):
            yielded = False
            try:
                async with aslot(self.slot_key, self.slot_size):
                    async for chunk in super()._astream(messages, stop=stop,
                                                        run_manager=run_manager, **kwargs):
                        yielded = True
                        yield chunk
                return
            except Exception as exc:
                if yielded or attempt + 1 >= attempts or not is_transient(exc):
                    raise
                delay = self._delay(attempt)
                _log_retry(exc, attempt, attempts, delay)
                await self.retry_async_sleep(delay)


_RETRYING_CLASSES: dict[type[BaseChatModel], type[RetryingChatModel]] = {}


def retrying_class(cls: type[BaseChatModel]) -> type[RetryingChatModel]:
    """``Retrying<cls>``: the provider class with :class:`RetryingChatModel` mixed in."""
    if issubclass(cls, RetryingChatModel):
        return cls
    if cls not in _RETRYING_CLASSES:
        _RETRYING_CLASSES[cls] = type(
            f"Retrying{cls.__name__}", (RetryingChatModel, cls), {"__module__": __name__}
        )
    return _RETRYING_CLASSES[cls]


def with_backoff(
    model: BaseChatModel,
    settings: Settings,
    *,
    sleep: Callable[[float], None] | None = None,
    async_sleep: Callable[[float], Awaitable[None]] | None = None,
    rng: Callable[[], float] | None = None,
    slots: tuple[str, int] | None = None,
) -> RetryingChatModel:
    """``model`` with transient failures retried ``settings.llm.max_retries`` times.

    ``slots`` (server key, size) limits the calls in flight to that server.

    The result is an instance of the model's own class (plus the mixin) with the same
    field values; its private state (clients, a scripted model's script and call log) is
    shared with ``model``.
    """
    cls = retrying_class(type(model))
    values = {name: getattr(model, name) for name in type(model).model_fields}
    values["retries"] = max(0, settings.llm.max_retries)
    if sleep is not None:
        values["retry_sleep"] = sleep
    if async_sleep is not None:
        values["retry_async_sleep"] = async_sleep
    if rng is not None:
        values["retry_rng"] = rng
    if slots is not None:
        values["slot_key"], values["slot_size"] = slots
    wrapped = cls.model_construct(_fields_set=set(model.model_fields_set), **values)
    object.__setattr__(wrapped, "__pydantic_private__", model.__pydantic_private__)
    return wrapped
