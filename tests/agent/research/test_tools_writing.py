"""The tools strategy ends in the pipeline's writing step: the model gathers and says DONE;
the answer is written from numbered evidence units chosen in code, and every sentence is
checked against the units it cites."""

from __future__ import annotations

from langchain_core.messages import BaseMessage
from tests.agent.helpers import done, run, source_names, steps, unit_number

from archivist.agent import prompts
from archivist.testing import CallInfo, ScriptedChatModel, tool_call

QUESTION = "How do I install PostgreSQL?"
DRAFT = "PostgreSQL comes preinstalled with every system [secret-plans.pdf, p. 9]."


def searches_then_drafts(messages: list[BaseMessage], info: CallInfo):
    """A model that searches once more, then writes an answer of its own instead of DONE."""
    if "search_documents" not in info.tools:
        return None
    if sum(m.type == "tool" for m in messages) == 1:
        return tool_call("search_documents", query="postgresql major version upgrade")
    return DRAFT


def sources_of(events) -> dict:
    (sources,) = [e.data for e in events if e.type == "sources"]
    return sources


def test_the_answer_is_written_from_units_with_every_sentence_checked(service_for) -> None:
    llm = ScriptedChatModel(rules=[searches_then_drafts])
    events = run(service_for(llm, strategy="tools"), QUESTION)

    research = [c for c in llm.calls if "search_documents" in c.tools]
    assert len(research) == 2 and f'"{prompts.RESEARCH_DONE}"' in research[0].text
    assert [s["detail"] for s in steps(events, "search")] == [
        QUESTION, "postgresql major version upgrade"]
    writer = llm.calls[-1]  # no tools; numbered units, never a file name or a parent id
    assert writer.tools == [] and '<passage n="1"' in writer.text
    assert "postgres-guide.md" not in writer.text and "parent_id" not in writer.text
    assert steps(events, "evidence")
    answer = done(events)["answer"]
    assert "secret-plans" not in answer and "preinstalled" not in answer  # the draft: unused
    assert "apt install postgresql" in answer and answer.endswith("[1].")
    sources = sources_of(events)
    claims = sources["claims"]  # the unit's sentence and the one after it, each a claim
    assert claims and all(c["supported"] and c["citations"] == [1] and c["score"] > 0.5
                          for c in claims), claims
    (source,) = sources["sources"]  # the cited unit's place: document and section
    assert source["document_name"] == "postgres-guide.md"
    assert source["pages"] == "§ PostgreSQL administration › Installing PostgreSQL"
    assert "sudo apt install postgresql" in source["passage"]


def test_a_sentence_citing_a_unit_that_does_not_say_it_is_unsupported(service_for) -> None:
    def writes_one_true_one_false(messages: list[BaseMessage], info: CallInfo):
        n = None if info.tools else unit_number(messages, "sudo apt install postgresql")
        if n is None:
            return None
        return (f"Install it with `sudo apt install postgresql` [{n}]. "
                f"The installer uploads a backup to the cloud every night [{n}].")

    llm = ScriptedChatModel(rules=[writes_one_true_one_false])
    events = run(service_for(llm, strategy="tools"), QUESTION)

    claims = sources_of(events)["claims"]
    assert [c["supported"] for c in claims] == [True, False]
    assert claims[1]["citations"] == [1] and claims[1]["reason"]
    assert "uploads a backup" in claims[1]["text"]
    assert "uploads a backup" in done(events)["answer"]  # kept, and marked as unsupported
    assert source_names(events) == ["postgres-guide.md"]
    assert "1 of 2 sentences supported" in " ".join(s["detail"] for s in steps(events, "claims"))
