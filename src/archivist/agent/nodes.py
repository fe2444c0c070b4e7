"""The conversation graph's nodes: memory, analysis, routing, clarification, answers.

The final answer carries its code-derived confidence (see ``confidence.py``); greetings
and small talk get a direct reply with no retrieval.
"""

from __future__ import annotations

from collections.abc import Callable
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
from archivist.agent.answer import STRICTNESS, Checker, Draft, Tools, decide, run_steps
from archivist.agent.answer.confidence import LOW, confidence
from archivist.agent.answer.decision import ANSWER
from archivist.agent.answer.grounding import cite_sources, gather_units, no_supported_answer
from archivist.agent.answer.shaping import without_markup
from archivist.agent.answer.sources import build_sources
from archivist.agent.checks.claims import CheckedAnswer
from archivist.agent.checks.verifier import model_verifier
from archivist.agent.evidence.units import QueryEmbedder
from archivist.agent.policy import CAPABLE, Policy
from archivist.agent.question import ParsedQuestion, parse_question
from archivist.agent.question.analysis import Asked, defined_by, review
from archivist.agent.question.depth import Depth, depth_of, plan_without_model
from archivist.agent.quoting import one_line, quote_attr, quote_data
from archivist.agent.research.state import ResearchInput
from archivist.agent.state import AgentState, QuestionAnalysis
from archivist.agent.steps import StepKind, emit_step, message_text, report_step, timed
from archivist.agent.strategy import StrategyChoice, choose_strategy, profile_note
from archivist.llm.capabilities import DEFAULT_PROFILE, ModelProfile
from archivist.llm.structured import invoke_structured, structured_output
from archivist.settings import Settings

HISTORY_ANSWER_CHARS = 800
#: The step kind each answer step reports under (the rest: ``claims``).
_STEP_KINDS = {"quote_pointed": StepKind.QUOTED, "without_repeats": StepKind.REPEATS}


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


class ConversationNodes:
    """Nodes of the outer graph; the research sub-agents are a separate subgraph."""

    def __init__(
        self, llm: BaseChatModel, settings: Settings, *, fast_llm: BaseChatModel | None = None,
        web_enabled: bool = False, strategy: StrategyChoice | None = None,
        fast_profile: ModelProfile = DEFAULT_PROFILE, policy: Policy = CAPABLE,
        embedder: QueryEmbedder | None = None,
        library: Callable[[], list[tuple[str, str]]] | None = None,
    ) -> None:
        self.llm = llm
        self.policy = policy
        # the library's documents as (file name, title), read once per question: a term a
        # title names is not asked back, and a question may ask about a whole document
        self.library = library or list
        self.document_questions = settings.agent.document_questions
        self.embedder = embedder
        self.fast_llm = fast_llm or llm
        self.analyzer = structured_output(self.fast_llm, QuestionAnalysis, fast_profile,
                                          max_tokens=policy.budgets.analysis_tokens)
        self.web_enabled = web_enabled
        self.strategy = strategy or choose_strategy(settings)
        self.profile_note = profile_note(settings, policy.name)
        self.memory_turns = settings.agent.memory_turns
        self.summary_words = max(50, settings.agent.memory_summary_tokens * 3 // 4)
        self.max_sub_questions = settings.agent.max_sub_questions
        self.max_clarifications = settings.agent.max_clarifications
        self.verify = model_verifier(llm) if "verify" in policy.answer_steps else None
        self.threshold = STRICTNESS[settings.agent.strictness]

    @timed("memory")
    def memory(self, state: AgentState) -> dict[str, Any]:
        """Start a turn: clear per-turn state; fold old turns into the summary if needed.

        History is folded only when it holds more than ``memory_turns`` finished turns,
        and then down to half the window, so the summary is not rewritten every turn.
        """
        update: dict[str, Any] = {
            "sub_questions": [], "sub_answers": None, "evidence": None, "answer": "",
            "sources": [], "confidence": "", "status": "running", "clarification": "",
            "clarification_rounds": 0, "route": "documents", "direct_reply": "", "depth": "",
            "parsed": {},
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
        emit_step(StepKind.MEMORY, f"folded {len(fold) // 2} older turns into the summary")
        return update

    @timed("analysis")
    def analyze(self, state: AgentState) -> dict[str, Any]:
        """Route the question; rewrite it into self-contained sub-questions, or ask back.

        On a small model a fresh question whose text settles its depth is planned in code
        with no LLM call (``question/depth.py``). Otherwise the analysis call decides, its
        output reviewed by code on a small model (``question/analysis.py``); output that
        cannot be parsed (after one retry showing the error; none after a reply cut at its
        cap) keeps its finished route and sub-questions, never asks back, and without
        them degrades to: clear, unsplit, answered from the documents.
        """
        parsed = parse_question(state.question)
        question = parsed.question  # instructions go to the writer, not to the search
        rounds = state.clarification_rounds
        if not rounds:
            emit_step(StepKind.STRATEGY, self.strategy.name, reason=self.strategy.reason)
            emit_step(StepKind.PROFILE, self.profile_note)
        if parsed.instructions:
            emit_step(StepKind.INSTRUCTIONS, f"{len(parsed.instructions)} instructions set "
                      "apart from the question", items=parsed.instructions)
        library = self.library()
        asked = Asked(
            question=question, fresh=not (state.messages or state.summary or rounds),
            rounds=rounds, may_ask=rounds < self.max_clarifications,
            history=bool(state.messages), previous=last_question(list(state.messages)),
            web_enabled=self.web_enabled, max_sub_questions=self.max_sub_questions,
            defined=defined_by(question, [f"{title} {name}" for name, title in library]),
        )
        plan = plan_without_model(asked) if self.policy.plan_in_code else None
        how = "planned in code: no analysis call"
        if plan is None:
            plan = review(asked, self._analysis(state, asked), checks=self.policy.review_analysis)
            how = "from the analysis call"
        for kind, detail, extra in plan.steps:
            emit_step(kind, detail, **extra)
        if plan.clarification:
            return {"clarification": plan.clarification, "sub_questions": [],
                    "route": plan.route, "parsed": parsed.to_dict()}
        names = [name for name, _ in library] if self.document_questions else []
        depth = depth_of(plan, question, names)
        if depth == Depth.DOCUMENT:
            how += "; asks about a whole document the library holds"
        emit_step(StepKind.DEPTH, depth, reason=how, policy=self.policy.name)
        if depth == Depth.DIRECT:
            return {"route": "direct", "direct_reply": plan.direct_reply, "clarification": "",
                    "sub_questions": [], "depth": depth.value, "parsed": parsed.to_dict()}
        # the state holds plain strings: a checkpoint must not carry this module's types
        return {"clarification": "", "sub_questions": plan.sub_questions, "route": plan.route,
                "depth": depth.value, "parsed": parsed.to_dict()}

    def _analysis(self, state: AgentState, asked: Asked) -> QuestionAnalysis:
        """The analysis call's output: salvaged, or degraded, when it cannot be parsed."""
        system = prompts.ANALYZE_SYSTEM + (prompts.ROUTE_WEB if self.web_enabled else "")
        system += "" if asked.may_ask else prompts.FORCE_CLEAR
        user = prompts.ANALYZE_USER.format(
            summary=quote_data(one_line(state.summary)) or "(none)",
            history=format_turns(list(state.messages)) or "(none)",
            question=asked.question,
        )
        messages = [SystemMessage(system), HumanMessage(user)]
        parsed = invoke_structured(self.analyzer, messages, QuestionAnalysis, "analysis",
                                   "question used as is: clear, unsplit, documents",
                                   report=report_step, salvage=QuestionAnalysis.salvaged)
        return parsed if parsed is not None else QuestionAnalysis.degraded(asked.question)

    def route(self, state: AgentState) -> str | list[Send]:
        """Ask back, reply directly, or fan out one research sub-agent per sub-question."""
        if state.clarification:
            return "clarify"
        if state.route == "direct":
            return "direct"
        parsed = ParsedQuestion.from_dict(state.parsed, state.question)
        subs = state.sub_questions or [parsed.question]
        route = state.route or "documents"
        return [
            Send("research", ResearchInput(sub_question=q, index=i, route=route,
                                           depth=state.depth or Depth.SINGLE.value,
                                           instructions=list(parsed.instructions),
                                           question=parsed.question))
            for i, q in enumerate(subs)
        ]

    @timed("answer")
    def direct(self, state: AgentState) -> dict[str, Any]:
        """Greetings and small talk: the analysis' reply (or one short call), no retrieval."""
        text = state.direct_reply.strip()
        if not text:
            reply = self.llm.invoke(
                [SystemMessage(prompts.DIRECT_SYSTEM), HumanMessage(state.question)]
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
        emit_step(StepKind.CLARIFICATION, text, asked=ask)
        return {
            "question": f"{state.question} (clarification: {text})",
            "clarification": "",
            "clarification_rounds": state.clarification_rounds + 1,
        }

    @timed("answer")
    def answer(self, state: AgentState) -> dict[str, Any]:
        """One answer: the lone sub-answer as is, or a composition; then the answer stage.

        An answer written from numbered units goes through the policy's answer steps and
        one decision (``answer/``): shown, with its Sources the cited units' places and
        any unsupported sentence marked, or replaced by an abstention that says what was
        found.
        Nothing has been shown to the user yet: the answer in the state when the graph
        ends is what streams (see ``service.py``).
        """
        subs = sorted(state.sub_answers, key=lambda s: s["index"])
        texts, units = gather_units(subs)
        if len(subs) == 1:
            text = texts[0]
        elif not any(s["found"] for s in subs) or self.policy.compose_in_code:
            # a small model rewriting cited sub-answers into one dropped their [n]s
            text = "\n\n".join(texts)
        else:
            blocks = "\n\n".join(
                prompts.SUB_ANSWER_BLOCK.format(
                    question=quote_attr(s["question"]), answer=quote_data(answer)
                )
                for s, answer in zip(subs, texts, strict=True)
            )
            reply = self.llm.invoke(
                [
                    SystemMessage(prompts.COMPOSE_SYSTEM),
                    HumanMessage(prompts.COMPOSE_USER.format(
                        question=state.question, sub_answers=blocks
                    )),
                ],
            )
            text = without_markup(message_text(reply.content).strip())
        evidence = list(state.evidence)
        claims: list[dict[str, Any]] = []
        on_subject = True
        if units and not prompts.abstains(text):
            parsed = ParsedQuestion.from_dict(state.parsed, state.question)
            draft = run_steps(Draft(parsed, text, units, passages=evidence),
                              self.policy.answer_steps,
                              Tools(Checker(self.embedder), self.verify),
                              report=lambda name, said: emit_step(_STEP_KINDS.get(
                                  name, StepKind.CLAIMS), said))
            decision = decide(draft, self.threshold)
            supported = len(draft.supported)
            emit_step(StepKind.CLAIMS, f"{supported} of {len(draft.claims)} sentences "
                      "supported by the passages they cite")
            emit_step(StepKind.DECISION, f"{decision.outcome}: score {decision.score:.2f} "
                      f"(threshold {self.threshold})", **decision.as_step(), draft=draft.text,
                      checked=[[c.supported, round(c.score, 3)] for c in draft.claims])
            on_subject = decision.addressing >= 1.0
            if decision.outcome == ANSWER:
                text, sources, claims = cite_sources(draft.text, CheckedAnswer(draft.claims),
                                                     units)
            else:
                text = no_supported_answer(parsed.question, units, draft.cited())
                sources, claims = [], []
            cited = bool(sources)
        else:
            report = build_sources(text, evidence)
            for name in report.invented:
                emit_step(StepKind.DROPPED_CITATION, name)
            sources, cited = report.sources, report.attribution == "cited"
        level = confidence(text, evidence, [s["index"] for s in subs], cited=cited,
                           on_subject=on_subject)
        return {
            "answer": text,
            "sources": [asdict(s) for s in sources],
            "claims": claims,
            "confidence": level,
            "status": "answered",
            "messages": [HumanMessage(state.question), AIMessage(text)],
        }
