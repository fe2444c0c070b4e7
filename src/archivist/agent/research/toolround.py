"""One round of the model's tool calls: run them within budget, then grade what they found.

Repeated searches and parent reads are skipped; malformed calls (arguments that are not
JSON, an unknown tool, a missing argument) get a one-line error; a failing tool says what
failed in one line. Every passage the round retrieved is graded in ONE call, and the
model is shown only the relevant ones.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.messages import ToolCall, ToolMessage
from langchain_core.tools import BaseTool

from archivist.agent.research.corrective import screen
from archivist.agent.research.grading import Gate
from archivist.agent.research.state import ResearchState
from archivist.agent.steps import StepKind, emit_step, message_text
from archivist.agent.tools import READ_PARENT, SEARCH, call_problem, render_kept, tool_args_text

log = logging.getLogger(__name__)


def _key(name: str, arg: str) -> str:
    return f"{name}:{arg.lower()}"


class ToolRound:
    """Runs the research tools for the model, within the tool-call budget."""

    def __init__(self, tools: dict[str, BaseTool], grader: Gate, max_tool_calls: int) -> None:
        self.tools = tools
        self.grader = grader
        self.max_tool_calls = max_tool_calls

    def run(
        self, calls: list[ToolCall], state: ResearchState, invalid: list[Any] | None = None
    ) -> dict[str, Any]:
        """Run a round of tool calls within budget, skipping repeats; grade what they found.

        Malformed calls (arguments that are not JSON, an unknown tool, a missing argument)
        are answered with a one-line error so the model can correct itself.
        """
        used = state.tool_calls
        done = {_key(SEARCH, q) for q in state.queries_run}
        done |= {_key(READ_PARENT, p) for p in state.parents_read}
        index = state.index
        update: dict[str, Any] = {
            "messages": [], "evidence": [], "queries_run": [], "parents_read": [],
            "graded": [], "rejected": [],
        }
        results: list[tuple[str, str, str, str, list[Any] | None]] = []
        for bad in invalid or []:
            used += 1
            name = str(bad.get("name") or "unknown")
            text = (f"invalid tool call: the arguments of {name} are not valid JSON; "
                    "call it again with a JSON object")
            emit_step(StepKind.INVALID_TOOL_CALL, text, sub_question=index)
            results.append((bad.get("id") or f"call-{used}", name, "", text, None))
        hits = 0
        for call in calls:
            artifact: list[Any] | None = None
            name, args = call["name"], call.get("args", {})
            arg = tool_args_text(args) if isinstance(args, dict) else ""
            call_id = call.get("id") or f"call-{used}"
            used += 1
            problem = call_problem(name, args, set(self.tools))
            if used > self.max_tool_calls:
                text = "Not run: the tool-call budget is used up. Answer now."
            elif problem:
                text = problem
                emit_step(StepKind.INVALID_TOOL_CALL, problem, sub_question=index)
            elif _key(name, arg) in done:
                text = (
                    f"Already done: {name}({arg!r}). Its results are above or in your notes; "
                    "use a different query, or answer."
                )
                emit_step(StepKind.REPEAT_SKIPPED, f"{name}: {arg}", sub_question=index)
            else:
                done.add(_key(name, arg))
                text, artifact = self._invoke(name, _scoped(call, state), arg)
                for item in artifact:
                    item["sub_question"] = index
                kind = StepKind.SEARCH if name == SEARCH else StepKind.READ_PARENT
                emit_step(kind, arg, results=len(artifact), sub_question=index)
                if name == SEARCH:
                    update["queries_run"].append(arg)
                    hits += len(artifact)
                else:
                    update["parents_read"].append(arg)
            results.append((call_id, name, arg, text, artifact))
        found = [item for *_, artifact in results for item in artifact or []]
        screened = screen(self.grader, state.sub_question, found, index, graded=set(state.graded),
                          rejected=set(state.rejected), evidence=state.evidence)
        new_keys = {id(e) for e in screened.new}
        for call_id, name, arg, text, artifact in results:
            kept = screened.kept_of(artifact or [])
            if artifact and name == SEARCH:
                text = render_kept(arg, kept, len(artifact) - len(kept))
            elif artifact and not kept:
                text = f"Section {arg} is not relevant to the question; it is not shown."
            update["messages"].append(ToolMessage(
                content=text, tool_call_id=call_id, name=name,
                artifact=[e for e in kept if id(e) in new_keys],
            ))
        update["evidence"] = screened.new
        update["graded"] = screened.graded_keys
        update["rejected"] = screened.rejected_keys
        update["tool_calls"] = used
        update["hits_seen"] = state.hits_seen + hits
        return update

    def _invoke(self, name: str, call: ToolCall, arg: str) -> tuple[str, list[Any]]:
        try:
            message = self.tools[name].invoke(call)
        except Exception as exc:  # a failing tool tells the agent what failed, in one line
            log.warning("tool %s(%r) failed: %s", name, arg, exc, exc_info=True)
            return f"{name} failed: {type(exc).__name__}: {exc}", []
        return message_text(message.content), list(message.artifact or [])


def _scoped(call: ToolCall, state: ResearchState) -> ToolCall:
    """A search call kept to the filings the whole question names (``search_documents``' scope)."""
    if call["name"] != SEARCH or not state.question or not isinstance(call.get("args"), dict):
        return call
    return {**call, "args": {**call["args"], "scope": state.question}}
