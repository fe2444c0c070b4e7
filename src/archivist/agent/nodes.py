"""The conversation graph's nodes: memory, analysis, routing, clarification, answers.

The final answer carries its code-derived confidence (see ``confidence.py``); greetings
and small talk get a direct reply with no retrieval.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
)
from langgraph.types import Send, interrupt

from archivist.agent import prompts
from archivist.agent.confidence import LOW, confidence
from archivist.agent.quoting import one_line, quote_attr, quote_data
from archivist.agent.research.state import ResearchInput
from archivist.agent.sources import build_sources
from archivist.agent.state import AgentState, QuestionAnalysis
from archivist.agent.steps import answer_config, emit_step, message_text, timed
from archivist.agent.strategy import StrategyChoice, choose_strategy
from archivist.agent.subject import (
    clarifying_question,
    clause_parts,
    dangling_reference,
    elliptical,
    is_small_talk,
    keep_subjects,
    keeps_the_question,
    looks_compound,
    may_be_ambiguous,
)
from archivist.llm.capabilities import DEFAULT_PROFILE, ModelProfile
from archivist.llm.structured import invoke_structured, structured_output
from archivist.settings import Settings

HISTORY_ANSWER_CHARS = 800


def format_turns(messages: list[AnyMessage], answer_chars: int = HISTORY_ANSWER_CHARS) -> str:
    """Finished turns as ``User: ... / Assistant: ...`` lines, one line each, quoted."""
    lines = []
    for message in messages:
        text = quote_data(one_line(message_text(message.content)))
        if isinstance(message, HumanMessage):
            lines.append(f"User: {text}")
        elif isinstance(message, AIMessage):
            short = text if len(text) <= answer_chars else text[:answer_chars] + " [...]"
            lines.append(f"Assistant: {short}")
    return "\n".join(lines)


def last_question(messages: list[AnyMessage]) -> str:
    """The user's latest finished question in the conversation ("" when none)."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return " ".join(message_text(message.content).split())
    return ""


def _clean(questions: list[str], limit: int) -> list[str]:
    out: list[str] = []
    for question in questions:
        text = " ".join(str(question).split())
        if text and text.lower() not in {q.lower() for q in out}:
            out.append(text)
    return out[:limit]


class ConversationNodes:
    """Nodes of the outer graph; the research sub-agents are a separate subgraph."""

    def __init__(
        self, llm: BaseChatModel, settings: Settings, *, fast_llm: BaseChatModel | None = None,
        web_enabled: bool = False, strategy: StrategyChoice | None = None,
        fast_profile: ModelProfile = DEFAULT_PROFILE,
    ) -> None:
        self.llm = llm
        self.fast_llm = fast_llm or llm
        self.analyzer = structured_output(self.fast_llm, QuestionAnalysis, fast_profile)
        self.web_enabled = web_enabled
        self.strategy = strategy or choose_strategy(settings)
        self.memory_turns = settings.memory_turns
        self.summary_words = max(50, settings.memory_summary_tokens * 3 // 4)
        self.max_sub_questions = settings.max_sub_questions
        self.max_clarifications = settings.max_clarifications

    @timed("memory")
    def memory(self, state: AgentState) -> dict[str, Any]:
        """Start a turn: clear per-turn state; fold old turns into the summary if needed.

        History is folded only when it holds more than ``memory_turns`` finished turns,
        and then down to half the window, so the summary is not rewritten every turn.
        """
        update: dict[str, Any] = {
            "sub_questions": [], "sub_answers": None, "evidence": None, "answer": "",
            "sources": [], "confidence": "", "status": "running", "clarification": "",
            "clarification_rounds": 0, "route": "documents", "direct_reply": "",
        }
        messages = list(state.messages)
        if len(messages) <= 2 * self.memory_turns:
            return update
        keep = 2 * max(1, self.memory_turns // 2)
        fold = messages[:-keep]
        reply = self.fast_llm.invoke([
            SystemMessage(prompts.SUMMARY_SYSTEM.format(max_words=self.summary_words)),
            HumanMessage(prompts.SUMMARY_USER.format(
                summary=quote_data(one_line(state.summary)) or "(none)",
                turns=format_turns(fold),
            )),
        ])
        words = message_text(reply.content).split()
        update["summary"] = " ".join(words[: self.summary_words])
        update["messages"] = [RemoveMessage(id=m.id) for m in fold if m.id]
        emit_step("memory", f"folded {len(fold) // 2} older turns into the summary")
        return update

    @timed("analysis")
    def analyze(self, state: AgentState) -> dict[str, Any]:
        """Route the question; rewrite it into self-contained sub-questions, or ask back.

        Output that cannot be parsed (after one retry showing the error) degrades to: clear,
        unsplit, answered from the documents.
        """
        question = state.question
        if not state.clarification_rounds:
            emit_step("strategy", self.strategy.name, reason=self.strategy.reason)
        rounds = state.clarification_rounds
        may_ask = rounds < self.max_clarifications
        system = prompts.ANALYZE_SYSTEM + (prompts.ROUTE_WEB if self.web_enabled else "")
        system += "" if may_ask else prompts.FORCE_CLEAR
        user = prompts.ANALYZE_USER.format(
            summary=quote_data(one_line(state.summary)) or "(none)",
            history=format_turns(list(state.messages)) or "(none)",
            question=question,
        )
        messages = [SystemMessage(system), HumanMessage(user)]
        parsed = invoke_structured(self.analyzer, messages, QuestionAnalysis, "analysis",
                                   "question used as is: clear, unsplit, documents",
                                   report=emit_step)
        if parsed is None:
            parsed = QuestionAnalysis.degraded(question)
        route = parsed.route
        if route == "direct" and not is_small_talk(question):
            # a small model routes real questions to "direct" and answers from nowhere
            emit_step("route", "documents", reason="not small talk: searched, not answered "
                      "directly")
        elif route == "direct":
            emit_step("route", "direct", reason="greeting or small talk: no retrieval")
            return {"route": "direct", "direct_reply": parsed.direct_reply.strip(),
                    "clarification": "", "sub_questions": []}
        if route == "web" and not self.web_enabled:
            emit_step("route", "documents", reason="web search is off")
            route = "documents"
        elif route != "direct":
            emit_step("route", route)
        route = "documents" if route == "direct" else route
        fresh = not (state.messages or state.summary or rounds)
        dangling = fresh and dangling_reference(question)
        if not parsed.is_clear and may_ask and not may_be_ambiguous(question):
            emit_step("clear", "nothing in the question to resolve: not asked back")
        elif (not parsed.is_clear or dangling) and may_ask:
            # a reference with nothing before it to point to is asked back whatever the
            # model said (the 1.5B model searched for "How much did it grow?")
            ask = parsed.clarification_question.strip() if not parsed.is_clear else ""
            ask = ask or clarifying_question(question)
            return {"clarification": ask, "sub_questions": [], "route": route}
        subs = _clean(parsed.sub_questions, self.max_sub_questions) or [question]
        if len(subs) > 1 and not looks_compound(question):
            # a one-part question is never split (small models split "How do I read a CSV
            # file into R?" in three); with history the first rewrite keeps the references
            emit_step("no_split", f"one-part question: {len(subs)} sub-questions dropped")
            subs = subs[:1] if state.messages else [question]
        parts = clause_parts(question) if not rounds else [question]
        if len(subs) > 1 and len(parts) > 1 and len(subs) != len(parts):
            # parts that each ask on their own are split by code: the 1.5B model split
            # "..., and how do I read a CSV file into R?" into "What is a CSV file?" and more
            emit_step("split_by_parts", f"{len(subs)} sub-questions replaced by {len(parts)}")
            subs = parts[: self.max_sub_questions]
        if len(subs) > 1:  # each part names what the question is about ("What did it cost?")
            subs = [keep_subjects(question, sub) for sub in subs]
        if len(subs) == 1 and not rounds and not keeps_the_question(question, subs[0]):
            # the 1.5B model rewrote "How many paid domestic streaming memberships did
            # Netflix have at the end of 2017?" into "What is Netflix?"
            emit_step("rewrite_dropped", subs[0], reason="it lost what the question asks")
            subs = [question]
        if subs == [question] and not fresh and not rounds and elliptical(question):
            # the 1.5B model left "And in 2016?" as it was after a question on 2017
            subs = [f"{question} (follow-up to: {last_question(state.messages)})"]
        if subs != [question]:
            emit_step("rewrite", " | ".join(subs), original=question)
        if len(subs) > 1:
            emit_step("sub_questions", f"{len(subs)} sub-questions", items=subs)
        return {"clarification": "", "sub_questions": subs, "route": route}

    def route(self, state: AgentState) -> str | list[Send]:
        """Ask back, reply directly, or fan out one research sub-agent per sub-question."""
        if state.clarification:
            return "clarify"
        if state.route == "direct":
            return "direct"
        subs = state.sub_questions or [state.question]
        single = len(subs) == 1
        route = state.route or "documents"
        return [
            Send("research", ResearchInput(sub_question=q, index=i, stream_answer=single,
                                           route=route))
            for i, q in enumerate(subs)
        ]

    @timed("answer")
    def direct(self, state: AgentState) -> dict[str, Any]:
        """Greetings and small talk: the analysis' reply (or one short call), no retrieval."""
        text = state.direct_reply.strip()
        if not text:
            reply = self.llm.invoke(
                [SystemMessage(prompts.DIRECT_SYSTEM), HumanMessage(state.question)],
                config=answer_config(True),
            )
            text = message_text(reply.content).strip()
        return {
            "answer": text, "sources": [], "confidence": LOW, "status": "answered",
            "messages": [HumanMessage(state.question), AIMessage(text)],
        }

    def clarify(self, state: AgentState) -> dict[str, Any]:
        """Pause for the user; their reply is combined with the pending question."""
        ask = state.clarification
        reply = interrupt({"question": ask, "pending": state.question})
        text = " ".join(str(reply).split())
        emit_step("clarification", text, asked=ask)
        return {
            "question": f"{state.question} (clarification: {text})",
            "clarification": "",
            "clarification_rounds": state.clarification_rounds + 1,
        }

    @timed("answer")
    def answer(self, state: AgentState) -> dict[str, Any]:
        """One answer: the lone sub-answer as is (already streamed), or a composition."""
        subs = sorted(state.sub_answers, key=lambda s: s["index"])
        if len(subs) == 1:
            text = subs[0]["answer"]
        elif not any(s["found"] for s in subs):
            text = "\n\n".join(s["answer"] for s in subs)
        else:
            blocks = "\n\n".join(
                prompts.SUB_ANSWER_BLOCK.format(
                    question=quote_attr(s["question"]), answer=quote_data(s["answer"])
                )
                for s in subs
            )
            reply = self.llm.invoke(
                [
                    SystemMessage(prompts.COMPOSE_SYSTEM),
                    HumanMessage(prompts.COMPOSE_USER.format(
                        question=state.question, sub_answers=blocks
                    )),
                ],
                config=answer_config(True),
            )
            text = message_text(reply.content).strip()
        evidence = list(state.evidence)
        report = build_sources(text, evidence)
        for name in report.invented:
            emit_step("dropped_citation", name)
        level = confidence(
            text, evidence, [s["index"] for s in subs], cited=report.attribution == "cited",
            question=state.question,
        )
        return {
            "answer": text,
            "sources": [asdict(s) for s in report.sources],
            "confidence": level,
            "status": "answered",
            "messages": [HumanMessage(state.question), AIMessage(text)],
        }
