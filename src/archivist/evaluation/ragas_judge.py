"""Optional LLM-judged scores with RAGAS (``pip install 'archivist[ragas]'``).

Only used when ``archivist eval answers --judge provider:model`` is given. Per item:
faithfulness (is the answer supported by the contexts the agent read) and, when the item
has a reference answer, LLM context recall (do those contexts hold the reference's claims).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from archivist.types import ArchivistError

if TYPE_CHECKING:
    from archivist.evaluation.qa_datasets import QAItem
    from archivist.settings import Settings

__all__ = ["make_ragas_judge"]

Judge = Callable[["QAItem", dict[str, Any]], dict[str, float]]


def make_ragas_judge(settings: Settings, spec: str) -> Judge:
    """A judge scoring records with RAGAS using the chat model ``spec`` ("provider:model")."""
    try:
        from ragas.dataset_schema import SingleTurnSample
        from ragas.llms import LangchainLLMWrapper
        from ragas.metrics import Faithfulness, LLMContextRecall
    except ImportError as exc:
        raise ArchivistError(
            "--judge needs RAGAS, which is not installed: pip install 'archivist[ragas]'"
        ) from exc
    from archivist.llm import make_chat_model

    chat = make_chat_model(settings.model_copy(update={"llm": spec, "llm_fast": None}))
    llm = LangchainLLMWrapper(chat)
    faithfulness = Faithfulness(llm=llm)
    context_recall = LLMContextRecall(llm=llm)

    def judge(item: QAItem, record: dict[str, Any]) -> dict[str, float]:
        contexts = [str(c.get("text", "")) for c in record.get("contexts", [])] or [""]
        sample = SingleTurnSample(
            user_input=item.question,
            response=str(record.get("answer", "")),
            retrieved_contexts=contexts,
            reference=item.references[0] if item.references else None,
        )
        scores = {"faithfulness": float(asyncio.run(faithfulness.single_turn_ascore(sample)))}
        if item.references:
            scores["context_recall"] = float(asyncio.run(context_recall.single_turn_ascore(sample)))
        return scores

    return judge
