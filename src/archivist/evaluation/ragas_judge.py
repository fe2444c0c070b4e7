"""Optional LLM-judged scores with RAGAS >= 0.4 (``pip install 'archivist[ragas]'``).

Only used when ``archivist eval answers --judge provider:model`` is given. Every answered
item is scored on the passages the agent actually read (the evidence of its tool calls, in
the order it read them):

- ``faithfulness``: the share of the answer's statements that the passages support;
- ``answer_relevancy``: the mean cosine similarity between the question and questions the
  judge derives from the answer (3 of them), 0 when the judge finds the answer
  noncommittal; the vectors come from the library's own embedder;
- ``context_precision``: rank-aware precision of the passages, each judged useful or not
  for reaching the reference answer; for an item without a reference, the passages are
  judged against the agent's own answer instead and the score is named
  ``context_precision_no_reference`` (a different quantity, so never averaged with it);
- ``context_recall`` (items with a reference): the share of the reference's statements
  the passages support.

RAGAS's metric collection is driven through two small adapters: the judge chat model
answers RAGAS's structured-output requests (the same structured-output path the agent's
grading uses), and the already loaded embedder serves the embeddings. A metric that fails
on one item (the judge's reply does not parse, an empty answer, no passages read) is
``None`` for that item, with a line in the record's ``judge_warnings``; a judge that
cannot be reached stops the run (finished items are kept for the next run).
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import math
import os
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from archivist.llm import (
    DEFAULT_PROFILE,
    ModelProfile,
    describe_llm,
    is_connection_error,
    make_chat_model,
    profile_for,
)
from archivist.types import ArchivistError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from archivist.evaluation.qa_datasets import QAItem
    from archivist.index.embeddings import Embedder
    from archivist.settings import Settings

__all__ = ["Judge", "JudgeOutputError", "make_ragas_judge", "passages_read"]

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)
_PYDANTIC_LINK = re.compile(r"\s*For further information visit \S+")
Judge = Callable[["QAItem", dict[str, Any]], dict[str, float | None]]


class JudgeOutputError(ArchivistError):
    """The judge's reply did not fit the structure RAGAS asked for."""


class ChatJudgeLLM:
    """RAGAS's structured-output LLM interface over a LangChain chat model.

    Calls go through the model's synchronous path in a worker thread, so one provider
    client serves every item (an async client would be tied to one item's event loop).
    """

    def __init__(self, chat: BaseChatModel, profile: ModelProfile = DEFAULT_PROFILE) -> None:
        self.chat = chat
        self.profile = profile

    def generate(self, prompt: str, response_model: type[M]) -> M:
        """Ask for ``response_model``; :class:`JudgeOutputError` when the reply does not fit."""
        from archivist.llm.structured import structured_output

        runnable = structured_output(self.chat, response_model, self.profile)
        result = runnable.invoke([HumanMessage(prompt)])
        return _parsed(result, response_model)

    async def agenerate(self, prompt: str, response_model: type[M]) -> M:
        """:meth:`generate` in a worker thread."""
        return await asyncio.to_thread(self.generate, prompt, response_model)


class EmbedderEmbeddings:
    """RAGAS's embeddings interface over an archivist embedder (no second model loaded).

    Questions and generated questions are embedded the same way (as documents), so the
    similarity RAGAS computes between them is symmetric.
    """

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def embed_text(self, text: str, **kwargs: Any) -> list[float]:
        """One vector."""
        return self.embedder.embed_documents([text])[0]

    def embed_texts(self, texts: Sequence[str], **kwargs: Any) -> list[list[float]]:
        """Vectors for several texts, batched."""
        return self.embedder.embed_documents(list(texts))

    async def aembed_text(self, text: str, **kwargs: Any) -> list[float]:
        """:meth:`embed_text` (the model is local and fast; no thread needed)."""
        return self.embed_text(text)

    async def aembed_texts(self, texts: Sequence[str], **kwargs: Any) -> list[list[float]]:
        """:meth:`embed_texts`."""
        return self.embed_texts(texts)


def _one_line(error: BaseException, limit: int = 300) -> str:
    """An error's text on one line, without pydantic's "further information" links."""
    text = _PYDANTIC_LINK.sub("", str(error))
    return " ".join(text.split())[:limit]


def _parsed(result: Any, schema: type[M]) -> M:
    """The parsed object of a ``with_structured_output(include_raw=True)`` result."""
    if isinstance(result, schema):
        return result
    found = result if isinstance(result, dict) else {}
    if isinstance(found.get("parsed"), schema):
        return found["parsed"]  # type: ignore[no-any-return]
    error = found.get("parsing_error")
    if error is not None:
        why = f"{type(error).__name__}: {_one_line(error)}"
    else:
        text = " ".join(str(getattr(found.get("raw"), "content", "") or "").split())
        why = f"no {schema.__name__} object in the reply (got text: {text[:120]!r})"
    raise JudgeOutputError(f"unparseable judge output for {schema.__name__}: {why}")


def passages_read(record: dict[str, Any]) -> list[str]:
    """The passages of the agent's tool calls, in reading order, each once.

    A tool result with evidence records gives their texts; one without (no artifact)
    gives its whole text.
    """
    passages: list[str] = []
    for context in record.get("contexts", []):
        evidence = [str(e.get("text", "")) for e in context.get("evidence", [])]
        for text in evidence if any(evidence) else [str(context.get("text", ""))]:
            if text.strip() and text not in passages:
                passages.append(text)
    return passages


def _import_ragas() -> dict[str, Any]:
    """RAGAS's metric classes, or one clear :class:`ArchivistError`."""
    os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")  # no usage pings from a local tool
    try:
        from ragas.embeddings.base import BaseRagasEmbedding
        from ragas.llms.base import InstructorBaseRagasLLM
        from ragas.metrics.collections import (
            AnswerRelevancy,
            ContextPrecisionWithoutReference,
            ContextPrecisionWithReference,
            ContextRecall,
            Faithfulness,
        )
    except ModuleNotFoundError as exc:
        if exc.name == "ragas" or importlib.util.find_spec("ragas") is None:
            raise ArchivistError(
                "--judge needs RAGAS, which is not installed: pip install 'archivist[ragas]'"
            ) from exc
        hint = "ragas >= 0.4 is needed" if (exc.name or "").startswith("ragas.") else (
            "a dependency is missing or incompatible"
        )
        raise ArchivistError(
            f"RAGAS is installed but cannot be imported: no module {exc.name!r} ({hint}; "
            "reinstall with: pip install -U 'archivist[ragas]')"
        ) from exc
    except ImportError as exc:
        raise ArchivistError(
            f"RAGAS is installed but cannot be imported: {exc} "
            "(reinstall with: pip install -U 'archivist[ragas]')"
        ) from exc
    # RAGAS checks its components with isinstance against these abstract classes
    InstructorBaseRagasLLM.register(ChatJudgeLLM)
    BaseRagasEmbedding.register(EmbedderEmbeddings)
    return {
        "faithfulness": Faithfulness,
        "answer_relevancy": AnswerRelevancy,
        "precision_ref": ContextPrecisionWithReference,
        "precision_free": ContextPrecisionWithoutReference,
        "context_recall": ContextRecall,
    }


def make_ragas_judge(
    settings: Settings, spec: str, embedder: Embedder, chat: BaseChatModel | None = None
) -> Judge:
    """A judge scoring records with RAGAS and the chat model ``spec`` ("provider:model").

    ``embedder`` serves answer relevancy; ``chat`` replaces the model built from ``spec``.
    """
    metrics = _import_ragas()
    judge_settings = settings.with_values(llm={"model": spec, "fast_model": None})
    llm = ChatJudgeLLM(chat if chat is not None else make_chat_model(judge_settings),
                       profile_for(judge_settings))
    faithfulness = metrics["faithfulness"](llm=llm)
    relevancy = metrics["answer_relevancy"](llm=llm, embeddings=EmbedderEmbeddings(embedder))
    precision_ref = metrics["precision_ref"](llm=llm)
    precision_free = metrics["precision_free"](llm=llm)
    recall = metrics["context_recall"](llm=llm)

    async def score(
        item: QAItem, record: dict[str, Any], warnings: list[str]
    ) -> dict[str, float | None]:
        question, answer = item.question, str(record.get("answer") or "")
        reference = item.references[0] if item.references else ""
        passages = passages_read(record)
        jobs: dict[str, Callable[[], Awaitable[Any]]] = {
            "faithfulness": lambda: faithfulness.ascore(
                user_input=question, response=answer, retrieved_contexts=passages
            ),
            "answer_relevancy": lambda: relevancy.ascore(user_input=question, response=answer),
        }
        if reference:
            jobs["context_precision"] = lambda: precision_ref.ascore(
                user_input=question, reference=reference, retrieved_contexts=passages
            )
            jobs["context_recall"] = lambda: recall.ascore(
                user_input=question, reference=reference, retrieved_contexts=passages
            )
        else:
            jobs["context_precision_no_reference"] = lambda: precision_free.ascore(
                user_input=question, response=answer, retrieved_contexts=passages
            )
        if not passages:
            warnings.append("the agent read no passages: context-based metrics not computed")
        scores: dict[str, float | None] = {}
        for name, job in jobs.items():
            needs_passages = name != "answer_relevancy"
            skip = needs_passages and not passages
            scores[name] = None if skip else await _run_metric(name, job, warnings)
        return scores

    async def _run_metric(
        name: str, job: Callable[[], Awaitable[Any]], warnings: list[str]
    ) -> float | None:
        try:
            value = float((await job()).value)
        except Exception as exc:  # one metric failing never stops the run
            if is_connection_error(exc):
                raise ArchivistError(
                    f"cannot reach the judge, {describe_llm(judge_settings)}: {exc}"
                ) from exc
            warnings.append(f"{name}: {type(exc).__name__}: {_one_line(exc)}")
            return None
        if math.isnan(value):
            warnings.append(f"{name}: RAGAS found nothing to score (NaN)")
            return None
        return value

    def judge(item: QAItem, record: dict[str, Any]) -> dict[str, float | None]:
        warnings: list[str] = []
        scores = asyncio.run(score(item, record, warnings))
        if warnings:
            record["judge_warnings"] = warnings
            for line in warnings:
                log.warning("judge, item %s: %s", item.item_id, line)
        return scores

    return judge
