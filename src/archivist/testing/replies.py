"""The scripted model's built-in replies: how it answers when the script does not.

It adapts to the agent's conventions (``Question:`` lines, ``<passage>`` and
``<sub_answer>`` blocks, structured-output schemas by name, the abstention wording the
prompt asks for) and imports nothing of the agent.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel

from archivist.stopwords import content_words

#: How the prompts tell a model to abstain: ``reply "<the abstention text> ..."``; the
#: scripted model abstains in the words the prompt of the call asks for.
_ABSTAIN_IN_PROMPT = re.compile(r'reply\s+"([^"]+?) \.\.\."')
_ABSTAIN_UNPROMPTED = "No passage answers"
#: How a research prompt asks the model to say it has gathered enough, instead of
#: answering: ``reply with the single word "<signal>"``.
_DONE_IN_PROMPT = re.compile(r'reply with the single word\s+"(\w+)"')
_GREETING = re.compile(
    r"^\s*(hi|hello|hey|hiya|good (morning|afternoon|evening)|thanks?( you)?|thank you|"
    r"how are you|bye|goodbye)\b[\s\w]{0,20}[!.?]*\s*$",
    re.IGNORECASE,
)


_PASSAGE = re.compile(r"<passage ([^>]*)>\n?(.*?)\n?</passage>", re.S)
_ATTR = re.compile(r'(\w+)="([^"]*)"')
_QUOTED_NOTE = re.compile(r'^According to [^:\n]+: ".*" \[[^\]]+\]$', re.M)
_SUB_ANSWER = re.compile(r"<sub_answer[^>]*>\n?(.*?)\n?</sub_answer>", re.S)
#: A yes/no check of one statement against passages: the ``<statement>`` block.
_STATEMENT = re.compile(r"<statement>\n?(.*?)\n?</statement>", re.S)


@dataclass
class CallInfo:
    """What a reply function may look at besides the messages."""

    index: int
    tools: list[str]
    schema: type[BaseModel] | None
    question: str


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


def abstention_of(messages: Sequence[BaseMessage]) -> str:
    """The abstention wording the call's prompt asks for (``reply "... ..."``)."""
    for message in messages:
        match = _ABSTAIN_IN_PROMPT.search(str(message.content))
        if match:
            return match.group(1)
    return _ABSTAIN_UNPROMPTED


def done_signal_of(messages: Sequence[BaseMessage]) -> str:
    """The word a research prompt asks for once enough is gathered ("" when none)."""
    for message in messages:
        match = _DONE_IN_PROMPT.search(str(message.content))
        if match:
            return match.group(1)
    return ""


def _analysis(messages: list[BaseMessage], info: CallInfo) -> dict[str, Any]:
    """Question analysis: clear, one sub-question (the question); greetings go direct."""
    if _GREETING.match(info.question):
        return {"route": "direct", "sub_questions": [info.question],
                "direct_reply": "Hello! Ask me anything about your documents."}
    return {"is_clear": True, "sub_questions": [info.question]}


def _grades(messages: list[BaseMessage], info: CallInfo) -> dict[str, Any]:
    """Grading: passages sharing a content word with the question; else a rewrite."""
    wanted = content_words(info.question)
    relevant = [
        attrs["id"] for attrs, body in passages_in(messages)
        if "id" in attrs and wanted & content_words(body)
    ]
    return {"relevant": relevant, "rewritten_query": "" if relevant else " ".join(sorted(wanted))}


#: Built-in structured replies, by schema name: the fields to fill (the schema's own
#: defaults fill the rest). A schema not listed here is built from its defaults.
STRUCTURED_REPLIES: dict[str, Callable[[list[BaseMessage], CallInfo], dict[str, Any]]] = {
    "QuestionAnalysis": _analysis,
    "RelevanceGrades": _grades,
}


def quote_best_passage(messages: Sequence[BaseMessage], question: str) -> str | None:
    """The built-in answer: the best passage quoted with its citation; ``None`` if none."""
    passages = passages_in(messages)
    wanted = content_words(question)
    if not passages:  # compressed notes written by this model keep quoted, cited lines
        notes = [n for m in messages for n in _QUOTED_NOTE.findall(str(m.content))]
        scored_notes = [(len(wanted & content_words(n)), -i) for i, n in enumerate(notes)]
        if not notes or max(scored_notes)[0] == 0:
            return None
        return notes[-max(scored_notes)[1]]
    scored = [(len(wanted & content_words(body)), -i) for i, (_, body) in enumerate(passages)]
    best_score, neg_index = max(scored)
    if best_score == 0:
        return f"{abstention_of(messages)} anything about: {question}"
    attrs, body = passages[-neg_index]
    sentences = [
        s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", body)
        if s.strip() and not s.lstrip().startswith("#")
    ]
    ranked = max(range(len(sentences)),
                 key=lambda i: (len(wanted & content_words(sentences[i])), -i), default=None)
    quote = " ".join(sentences[ranked: ranked + 2]) if ranked is not None else body.strip()
    quote = quote if len(quote) <= 400 else quote[:400].rstrip() + "..."
    if attrs.get("n"):  # numbered evidence units: the unit's words, cited by number
        return f"{quote.rstrip('.')} [{attrs['n']}]."
    document = attrs.get("document", "unknown")
    cite = f"{document}, {attrs['pages']}" if attrs.get("pages") else document
    return f'According to {document}: "{quote}" [{cite}]'


def default_reply(messages: list[BaseMessage], info: CallInfo) -> Reply:
    """The built-in deterministic behaviour described in the module docstring."""
    if info.schema is not None:
        reply = STRUCTURED_REPLIES.get(info.schema.__name__)
        fields = reply(messages, info) if reply is not None else {}
        return info.schema.model_validate(fields)
    has_results = any(m.type == "tool" for m in messages)
    if "search_documents" in info.tools and not has_results:
        return tool_call("search_documents", query=info.question)
    if "search_documents" in info.tools:
        done = done_signal_of(messages)
        if done:
            return done
    last = str(messages[-1].content) if messages else ""
    statement = _STATEMENT.search(last)
    if statement:  # yes when the passages hold at least half the statement's words
        wanted = content_words(statement.group(1))
        held = content_words(" ".join(body for _, body in passages_in(messages)))
        return "yes" if len(wanted & held) * 2 >= len(wanted) else "no"
    parts = _SUB_ANSWER.findall(last)
    if parts:
        return "\n\n".join(p.strip() for p in parts)
    quoted = quote_best_passage(messages, info.question)
    if quoted is not None:
        return quoted
    return "Summary: " + " ".join(last.split())[:300]


