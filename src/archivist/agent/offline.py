"""When the LLM cannot be reached: one clear line, then a retrieval-only answer.

The retrieval-only answer is the best passages for the question, quoted with their
citations and labelled as such; no model is involved, so nothing is paraphrased.
"""

from __future__ import annotations

from archivist.events import Source
from archivist.index.retriever import Retriever
from archivist.settings import Settings
from archivist.types import SearchHit

RETRIEVAL_ONLY_LABEL = "Retrieval-only answer (no LLM)"
PASSAGES = 3
SNIPPET_CHARS = 400


def describe(settings: Settings) -> str:
    """Which LLM the settings point at, and where (``ollama model M at http://...``)."""
    from archivist.llm import describe_llm

    return describe_llm(settings)


def unreachable_message(settings: Settings) -> str:
    """The one line shown when the LLM cannot be reached: what, where, and what to do.

    With no LLM set and no local model fetched, the line names the one command that gets a
    model, and the other ways to have one.
    """
    from archivist.llm.spec import llm_is_set

    if not llm_is_set(settings):
        return no_model_message()
    what = describe(settings)
    if settings.llm.model.strip().lower().startswith("ollama:"):
        model = settings.llm.model.split(":", 1)[1]
        how = f"start it with `ollama serve` (and `ollama pull {model}`)"
    else:
        how = "check the server address and that it is running"
    return (
        f"cannot reach the LLM: {what}: {how}, or choose another with "
        "ARCHIVIST_LLM__MODEL=provider:model (e.g. ARCHIVIST_LLM__MODEL=scripted for a demo "
        "without an LLM)"
    )


def no_model_message() -> str:
    """What to do when no LLM is set, no local model is fetched and Ollama is not running."""
    from archivist.llm.models import DEFAULT_LOCAL_MODEL, MODELS, OLLAMA_FALLBACK_LLM

    model = MODELS[DEFAULT_LOCAL_MODEL]
    ollama_model = OLLAMA_FALLBACK_LLM.split(":", 1)[1]
    return (
        f"no LLM available: run `archivist model fetch` to get the local model "
        f"({model.size / 1e9:.1f} GB, runs inside Archivist); or run Ollama "
        f"(`ollama pull {ollama_model}`), or set a cloud model with its key, e.g. "
        "ARCHIVIST_LLM__MODEL=openai:gpt-4o-mini and OPENAI_API_KEY"
    )


def failure_message(settings: Settings, exc: BaseException) -> str:
    """The one line shown when the LLM failed: unreachable, an error status, a cut stream."""
    from archivist.llm.errors import exception_chain, is_connection_error, status_code_of

    if is_connection_error(exc):
        return unreachable_message(settings)
    reason = "failed"
    for error in exception_chain(exc):
        status = status_code_of(error)
        names = {cls.__name__ for cls in type(error).__mro__}
        if "LocalTimeout" in names:
            reason = "did not answer in time (local_timeout_s)"
        elif status is not None:
            reason = f"answered HTTP {status}"
        elif names & {"RemoteProtocolError", "ReadError", "NetworkError"}:
            reason = "dropped the connection in the middle of its reply"
        elif names & {"TimeoutException", "APITimeoutError", "TimeoutError"}:
            reason = "did not answer in time (llm.timeout_s)"
        else:
            continue
        break
    return (
        f"the LLM {reason}, also after retries: {describe(settings)}; "
        "here is a retrieval-only answer instead"
    )


def hit_source(hit: SearchHit) -> Source:
    """The citation of a search hit."""
    return Source(
        document_id=hit.document_id,
        document_name=hit.document_name,
        pages=hit.pages,
        page_start=hit.page_start,
        page_end=hit.page_end,
    )


def retrieval_only(retriever: Retriever, question: str) -> tuple[str, list[Source]]:
    """The best passages for ``question`` with their citations, labelled; and the sources."""
    hits = retriever.search(question, k=PASSAGES)
    if not hits:
        return f"{RETRIEVAL_ONLY_LABEL}: no passage in the documents matches this question.", []
    lines = [f"{RETRIEVAL_ONLY_LABEL}: the best passages for your question.", ""]
    sources: list[Source] = []
    for rank, hit in enumerate(hits, start=1):
        text = " ".join(hit.text.split())
        if len(text) > SNIPPET_CHARS:
            text = text[:SNIPPET_CHARS].rstrip() + " ..."
        source = hit_source(hit)
        lines.append(f'{rank}. "{text}" [{source.label()}]')
        if all((s.document_id, s.pages) != (source.document_id, source.pages) for s in sources):
            sources.append(source)
    return "\n".join(lines), sources
