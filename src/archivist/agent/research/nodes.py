"""The research sub-agent's nodes: corrective retrieval, a tool loop, then a written answer.

``gather`` (see ``corrective.py``) searches with the sub-question, grades the passages,
retries once with a rewritten query and falls back to the web; nothing relevant means an
honest abstention with no further LLM call. In the ``tools`` strategy ``agent`` then
decides to search again or read parents, and replies ``DONE`` (no answer of its own) when
it has what it needs; ``tools`` runs its calls within budget, never repeats a search or a
parent read, grades every round's passages in one call, and answers malformed calls with a
one-line error; ``compress`` folds the working memory into notes when it grows past
``compression_tokens``; ``fallback`` stops the loop when a budget runs out. Whichever the
strategy, ``write`` answers from the evidence units code selects from everything gathered
(a draft the tool loop's model wrote anyway is not used), and ``finish`` hands the
sub-answer back.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.messages.utils import count_tokens_approximately
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from archivist.agent import prompts
from archivist.agent.answer.shaping import without_markup
from archivist.agent.checks.claims import parse_citations
from archivist.agent.evidence.gate import answer_query, bridge_query
from archivist.agent.evidence.units import QueryEmbedder
from archivist.agent.policy import CAPABLE, Policy
from archivist.agent.quoting import quote_attr, quote_data
from archivist.agent.research.answer_checks import needs_second_look, years_not_covered
from archivist.agent.research.corrective import Corrective
from archivist.agent.research.document import DocumentPath
from archivist.agent.research.grading import Gate, Grader, ScoreGate
from archivist.agent.research.metric_answer import MetricPath
from archivist.agent.research.state import ResearchState
from archivist.agent.research.support import search_support
from archivist.agent.research.tables import TablePath
from archivist.agent.research.toolround import ToolRound
from archivist.agent.state import SubAnswer
from archivist.agent.steps import StepKind, emit_step, message_text, timed
from archivist.agent.strategy import StrategyChoice, choose_strategy
from archivist.agent.tools import READ_PARENT, SEARCH, agent_search_mode, evidence_block, make_tools
from archivist.index.retriever import Retriever
from archivist.llm.capabilities import DEFAULT_PROFILE, ModelProfile
from archivist.llm.structured import reply_capped
from archivist.settings import Settings
from archivist.web import WebSearchProvider


def _memory_text(message: AnyMessage) -> str:
    """A working-memory message for the compressor: tool results are already quoted blocks."""
    text = message_text(message.content)
    return text if isinstance(message, ToolMessage) else quote_data(text)


class ResearchNodes:
    """The research loop's nodes, sharing one model, one retriever and the budgets."""

    def __init__(
        self, llm: BaseChatModel, retriever: Retriever, settings: Settings, *,
        fast_llm: BaseChatModel | None = None, web: WebSearchProvider | None = None,
        strategy: StrategyChoice | None = None, fast_profile: ModelProfile = DEFAULT_PROFILE,
        policy: Policy = CAPABLE, embedder: QueryEmbedder | None = None,
    ) -> None:
        self.llm = llm
        self.policy = policy
        #: bridge hops a sub-question may take (``agent.max_hops``; none without the policy's)
        self.max_hops = settings.agent.max_hops if policy.bridge_hop else 0
        self.fast_llm = fast_llm or llm
        self.strategy = strategy or choose_strategy(settings)
        tools = make_tools(retriever, settings.agent.tool_result_hits,
                           agent_search_mode(settings), settings.agent.hits_per_section)
        self.tools = {t.name: t for t in tools}
        self.llm_with_tools = (
            llm.bind_tools(list(self.tools.values())) if self.strategy.uses_tools else llm
        )
        self.grader: Gate = (ScoreGate(settings.agent.search_hits_kept) if policy.score_gate
                             else Grader(self.fast_llm, fast_profile))
        self.runner = ToolRound(self.tools, self.grader, settings.agent.max_tool_calls)
        # a small model looping on one sentence stops at the writing cap, not its own
        self.writer = reply_capped(llm, policy.budgets.answer_tokens)
        self.corrective = Corrective(
            self.writer, self.grader, self.tools[SEARCH], web, settings.agent.web_results,
            read_tool=self.tools[READ_PARENT], embedder=embedder,
            read_chars=0 if self.strategy.uses_tools else settings.agent.pipeline_read_chars,
            unit_tokens=settings.agent.evidence_tokens or policy.budgets.unit_tokens,
            unit_floor=(policy.budgets.unit_floor if settings.agent.evidence_floor is None
                        else settings.agent.evidence_floor),
            write_system=prompts.WRITE_UNITS_SMALL_SYSTEM if policy.abstain_in_code
            else prompts.WRITE_UNITS_SYSTEM,
        )
        attempts = settings.agent.sql_attempts
        attempts = policy.budgets.sql_attempts if attempts is None else attempts
        self.table_path = (TablePath(llm, retriever, embedder, attempts=attempts)
                           if settings.agent.table_queries and attempts else None)
        self.metric_path = MetricPath(retriever) if settings.agent.table_queries else None
        self.document_path = DocumentPath(llm, retriever, policy)
        self.max_tool_calls = settings.agent.max_tool_calls
        self.max_iterations = settings.agent.max_iterations
        self.compression_tokens = settings.agent.compression_tokens

    # --- nodes -------------------------------------------------------------------------
    def tables(self, state: ResearchState) -> dict[str, Any]:
        """The table path: one SQL query over the stored tables (``research/tables.py``)."""
        assert self.table_path is not None
        return self.table_path.run(state.sub_question, state.index, list(state.evidence),
                                   state.instructions)

    def metric(self, state: ResearchState) -> dict[str, Any]:
        """The metric path: a filing's metric computed in code (``research/metric_answer.py``)."""
        assert self.metric_path is not None
        return self.metric_path.run(state.sub_question, state.index, state.instructions)

    def document(self, state: ResearchState) -> dict[str, Any]:
        """The document path: a map-reduce over a named document (``research/document.py``)."""
        return self.document_path.run(state.sub_question, state.index)

    @timed("research")
    def agent(self, state: ResearchState) -> dict[str, Any]:
        """One reasoning step: call tools, or answer."""
        messages = [SystemMessage(prompts.RESEARCH_SYSTEM), *state.messages]
        reply = self.llm_with_tools.invoke(messages)
        return {"messages": [reply], "iterations": state.iterations + 1}

    @timed("research")
    def tools_node(self, state: ResearchState) -> dict[str, Any]:
        """Run the tool calls of the last model message."""
        last = state.messages[-1]
        calls = list(getattr(last, "tool_calls", []) or [])
        invalid = list(getattr(last, "invalid_tool_calls", []) or [])
        return self.runner.run(calls, state, invalid)

    @timed("compression")
    def compress(self, state: ResearchState) -> dict[str, Any]:
        """Fold the working memory into notes; keep the lists of searches and parents."""
        memory = "\n\n".join(
            f"[{m.type}] {_memory_text(m)}" for m in state.messages
        )
        words = max(100, self.compression_tokens // 6)
        reply = self.fast_llm.invoke(
            [
                SystemMessage(prompts.COMPRESS_SYSTEM.format(max_words=words)),
                HumanMessage(
                    prompts.COMPRESS_USER.format(
                        question=state.sub_question,
                        notes=quote_data(state.notes) or "(none)",
                        memory=memory,
                    )
                ),
            ]
        )
        notes = message_text(reply.content).strip()
        header = prompts.NOTES_HEADER.format(
            notes=quote_data(notes),
            queries="; ".join(quote_attr(q) for q in state.queries_run) or "(none)",
            parents=", ".join(quote_attr(p) for p in state.parents_read) or "(none)",
        )
        before = count_tokens_approximately(state.messages)
        emit_step(StepKind.COMPRESS, f"{before} tokens of working memory into notes",
                  sub_question=state.index)
        question = prompts.RESEARCH_USER.format(question=state.sub_question)
        return {
            "notes": notes,
            "compressions": state.compressions + 1,
            "messages": [
                RemoveMessage(id=REMOVE_ALL_MESSAGES),
                HumanMessage(f"{question}\n\n{header}"),
            ],
        }

    def fallback(self, state: ResearchState) -> dict[str, Any]:
        """Budget exhausted: no more tool calls; the answer is written from what was gathered."""
        emit_step(StepKind.BUDGET, "research budget used up; answering from what was gathered",
                  sub_question=state.index)
        return {"budget_exhausted": True}

    @timed("research")
    def second_look(self, state: ResearchState, first: str) -> str:
        """One more reading of passages graded relevant when the answer abstained or cited.

        Only a citation counts as no answer. The 1.5B model replied "the documents do not
        contain" with "Net sales of $8,412 million" in the second of five passages; asked
        to find the sentence or row that states it, it answers, or abstains again.

        After ``write`` the second look continues the writing call's conversation (its
        system prompt and passages, then the first answer and the request), so a model
        server with a prompt cache (llama.cpp) reads only the new turn.
        """
        what = "abstained" if prompts.abstains(first) else "gave only a citation"
        emit_step(StepKind.SECOND_LOOK, f"the answer {what} although passages were graded "
                  "relevant: reading them again", sub_question=state.index)
        if state.write_prompt:
            messages: list[AnyMessage] = [
                SystemMessage(self.corrective.write_system), HumanMessage(state.write_prompt),
                AIMessage(first), HumanMessage(prompts.SECOND_LOOK_UNITS_ASK),
            ]
        else:
            passages = "\n".join(evidence_block(e) for e in state.evidence)
            messages = [
                SystemMessage(prompts.SECOND_LOOK_SYSTEM),
                HumanMessage(prompts.write_user(passages, state.sub_question,
                                                state.instructions)),
            ]
        reply = self.writer.invoke(messages)
        return message_text(reply.content).strip()

    def hop(self, state: ResearchState) -> dict[str, Any]:
        """A bridge hop (``agent.max_hops`` at most): a search for names passages or answers state.

        * Before any writing, for a year no kept passage names: the names those passages
          state; only a page one of them names counts ("At the 2011 census, what was the
          population of the town where X was born?": the year is on the town's page).
        * After a non-answer: the names of the passages it pointed at.
        * After an answer: the names it states; only a page one of them names counts.
        """
        last = state.messages[-1] if state.messages else None
        if not isinstance(last, AIMessage):
            query = bridge_query(state.sub_question, state.evidence)
            return self.corrective.hop(state, query, named_only=True, reason=(
                "no passage names the year asked about: searching the names they state"
            )) if query else {"hops": self.max_hops}
        answer = message_text(last.content)
        if not needs_second_look(answer.strip(), state.evidence):
            query = answer_query(state.sub_question, without_markup(answer))
            return self.corrective.hop(state, query, named_only=True, reason=(
                "the answer names what the question does not, and the page of that name "
                "was not read: writing again with it")) if query else {"hops": self.max_hops}
        cited = [state.units[n - 1] for n in parse_citations(answer)
                 if 1 <= n <= len(state.units)] or state.units[:1]
        sections = {u["parent_id"] for u in cited}  # what the writer saw of their sections
        query = bridge_query(state.sub_question,
                             [u for u in state.units if u["parent_id"] in sections])
        if not query:
            return {"hops": self.max_hops}
        return self.corrective.hop(state, query, reason="the answer said nothing: searching "
                                   "the names its passages state")

    def finish(self, state: ResearchState) -> dict[str, Any]:
        """Package the sub-answer (an honest abstention when nothing relevant was kept).

        An answer that abstained over passages kept as relevant gets a second look (an
        answer of unit numbers alone does not, when the answer stage quotes what it cites);
        a sentence naming what its passages do not is searched for support; an answer for
        a year no passage names is replaced by an abstention that says which years they
        cover. Nothing has been shown to the user yet, so nothing shown is taken back.
        """
        question = state.sub_question
        found = bool(state.evidence)
        answer = ""
        last = state.messages[-1] if state.messages else None
        if found and isinstance(last, AIMessage):  # else no answer was written
            answer = without_markup(message_text(last.content).strip())
        quotes = "quote_pointed" in self.policy.answer_steps
        if (self.policy.second_look and not state.hop_found
                and needs_second_look(answer, state.evidence)
                and not (quotes and prompts.says_nothing(answer) and parse_citations(answer))):
            answer = without_markup(self.second_look(state, answer)) or answer
        units = list(state.units)
        if units and not state.web_only and not prompts.abstains(answer):
            answer, backing = search_support(question, answer, units,
                                           partial(self.corrective.find, state=state),
                                           self.corrective.embedder)
            if backing:
                emit_step(StepKind.CLAIMS, f"{len(backing)} passages found for sentences that "
                          "named what their passages did not", sub_question=state.index)
                units += backing
        asked, covered = years_not_covered(question, state.evidence)
        if asked and not prompts.abstains(answer):  # none written: the year was checked first
            span = covered[0] if len(covered) == 1 else f"{covered[0]}-{covered[-1]}"
            kept = "the answer is not kept" if answer else "not asked of the model"
            emit_step(StepKind.YEARS_NOT_COVERED, f"no passage names {', '.join(asked)}; "
                      f"they cover {span}: {kept}", sub_question=state.index)
            answer = prompts.YEARS_NOT_COVERED.format(asked=" and ".join(asked), covered=span,
                                                      question=question)
        if not answer and (state.hits_seen or state.web_tried):
            web = " and on the web" if state.web_tried else ""
            answer = prompts.NO_RELEVANT.format(question=question, web=web)
        elif not answer:
            answer = prompts.NO_HITS.format(question=question)
        sub = SubAnswer(
            index=state.index,
            question=question,
            answer=answer,
            found=found,
            budget_exhausted=state.budget_exhausted,
            units=units,
        )
        return {"sub_answers": [sub]}

    # --- routing -----------------------------------------------------------------------
    def _out_of_budget(self, state: ResearchState) -> bool:
        return (
            state.tool_calls >= self.max_tool_calls
            or state.iterations >= self.max_iterations
        )

    def start(self, state: ResearchState) -> Literal["document", "metric", "gather"]:
        """A whole-document question reads the document, a metric is computed; else search."""
        if state.depth == "document":
            return "document"
        if self.metric_path is not None and state.route != "web" and \
                self.metric_path.asks(state.sub_question, state.instructions):
            return "metric"
        return "gather"

    def after_metric(self, state: ResearchState) -> Literal["finish", "gather"]:
        """Computed: finish; else search as if the metric path had not run."""
        return "finish" if state.metric_answered else "gather"

    def after_document(self, state: ResearchState) -> Literal["finish", "gather"]:
        """Answered from the document's sections: finish; else search (within it first)."""
        return "finish" if state.document_answered else "gather"

    def after_gather(self, state: ResearchState) -> Literal["tables", "agent", "write", "hop",
                                                            "finish"]:
        """The table path first for a computation or a spreadsheet, then by strategy.

        The table path runs when it is on and not yet tried; with nothing relevant the
        sub-question abstains without asking the model, and so it does on a small model
        when the question asks for a year no passage names (``years_not_covered``: the
        answer would not be kept; the 1.5B spent three calls on 2020 over a 2017 10-K),
        unless a bridge hop finds a page, named by the passages, that names it.
        """
        if years_not_covered(state.sub_question, list(state.evidence))[0]:
            return "hop" if state.hops < self.max_hops else "finish"
        if (self.table_path is not None and not state.table_tried and not state.web_only
                and self.table_path.applies(state.sub_question, list(state.evidence))):
            return "tables"
        return self.after_tables(state)

    def after_tables(self, state: ResearchState) -> Literal["agent", "write", "finish"]:
        """Answered from a table: finish; else as if the table path had not run."""
        if state.table_answered or not state.evidence:
            return "finish"
        if state.web_only or not self.strategy.uses_tools:
            return "write"
        return "agent"

    def after_agent(self, state: ResearchState) -> Literal["tools", "fallback", "write",
                                                           "finish"]:
        """Tool calls go to ``tools`` unless the budget is spent; a reply without any: write.

        A reply with no tool call ends the tool loop, and the answer is written from the
        evidence units; a draft answer in that reply is not used.
        """
        last = state.messages[-1]
        if getattr(last, "tool_calls", None) or getattr(last, "invalid_tool_calls", None):
            return "fallback" if self._out_of_budget(state) else "tools"
        return self.after_fallback(state)

    def after_write(self, state: ResearchState) -> Literal["hop", "finish"]:
        """A bridge hop after an answer, while ``agent.max_hops`` allows.

        An answer that said nothing over relevant passages searches the names they state;
        one that answered, the names it states. An answer written again after a hop may hop
        once more (a third passage of a three-hop question); a hop that finds no new page
        ends the chain.
        """
        if state.hops >= self.max_hops or state.web_only or not state.units:
            return "finish"
        answer = message_text(state.messages[-1].content).strip()
        if needs_second_look(answer, state.evidence):
            return "hop"
        answered = bool(answer) and not prompts.abstains(answer)
        return "hop" if answered else "finish"

    def after_hop(self, state: ResearchState) -> Literal["write", "finish"]:
        """New passages from the hop: write (again) from everything; else finish as before.

        Not when the year asked about is still in no passage: the answer would not be kept.
        """
        if not state.hop_found or years_not_covered(state.sub_question,
                                                    list(state.evidence))[0]:
            return "finish"
        return "write"

    def after_fallback(self, state: ResearchState) -> Literal["write", "finish"]:
        """Write from the evidence units when anything was gathered; else abstain."""
        return "write" if state.evidence else "finish"

    def after_tools(self, state: ResearchState) -> Literal["agent", "compress", "fallback"]:
        """Continue, compress first, or stop on budget."""
        if self._out_of_budget(state):
            return "fallback"
        if count_tokens_approximately(state.messages) > self.compression_tokens:
            return "compress"
        return "agent"
