"""The analysis call's reply is capped by the policy at what its structured output needs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from archivist.agent.nodes import ConversationNodes
from archivist.agent.policy import CAPABLE, SMALL
from archivist.agent.question.analysis import Asked
from archivist.agent.state import AgentState, QuestionAnalysis
from archivist.llm.capabilities import ModelProfile
from archivist.llm.local import DEFAULT_REPLY_TOKENS, LocalChatModel
from archivist.llm.local_runtime import RuntimeOptions
from archivist.llm.structured import reply_capped
from archivist.settings import Settings
from archivist.testing import ScriptedChatModel

FOLLOW_UP = [HumanMessage("What was Netflix's operating margin in 2017?"),
             AIMessage("It was 7.2% [1].")]


class StandIn:
    """The local model's server: records each request, replies with ``content``."""

    def __init__(self, content: str, finish: str = "stop") -> None:
        self.content, self.finish = content, finish
        self.requests: list[dict[str, Any]] = []

    def chat(self, request: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        self.requests.append(request)
        return {"choices": [{"index": 0, "finish_reason": self.finish,
                             "message": {"role": "assistant", "content": self.content}}],
                "usage": {"prompt_tokens": 300, "completion_tokens": 20}}


def _local(stand_in: StandIn, **fields: Any) -> LocalChatModel:
    def factory(path: Path, options: RuntimeOptions) -> Any:
        return stand_in

    return LocalChatModel(model_path=Path("m.gguf"), server_factory=factory, **fields)


def _analyse(stand_in: StandIn, policy: Any) -> QuestionAnalysis:
    nodes = ConversationNodes(_local(stand_in), Settings(llm={"model": "scripted"}), policy=policy,
                              fast_profile=ModelProfile(size="small"))
    state = AgentState(question="And in 2016?", messages=list(FOLLOW_UP))
    return nodes._analysis(state, Asked(question="And in 2016?", fresh=False, history=True))


def test_a_small_models_follow_up_analysis_is_capped_by_the_policy() -> None:
    reply = QuestionAnalysis(sub_questions=["What was Netflix's operating margin in 2016?"])
    stand_in = StandIn(reply.model_dump_json())
    assert _analyse(stand_in, SMALL) == reply
    (request,) = stand_in.requests
    assert request["max_tokens"] == SMALL.budgets.analysis_tokens
    analysis = SMALL.budgets.analysis_tokens
    assert analysis is not None and analysis < DEFAULT_REPLY_TOKENS
    # a full analysis (every field, three long sub-questions) is ~1,080 characters of JSON
    assert SMALL.budgets.analysis_tokens * 3.5 > 1080



def test_every_profiles_analysis_is_capped_at_what_a_full_analysis_needs() -> None:
    # a small model forced to the capable profile loops inside the JSON just the same
    reply = QuestionAnalysis(sub_questions=["What was Netflix's operating margin in 2016?"])
    capable = StandIn(reply.model_dump_json())
    assert _analyse(capable, CAPABLE) == reply
    cap = capable.requests[0]["max_tokens"]
    assert cap == CAPABLE.budgets.analysis_tokens and cap < DEFAULT_REPLY_TOKENS
    full = QuestionAnalysis(route="direct", direct_reply="Hello! " * 12, is_clear=False,
                            clarification_question="Which of the two reports do you mean?",
                            sub_questions=["What was the operating margin of the company "
                                           f"in fiscal {y}, as stated in its annual report?"
                                           for y in (2015, 2016, 2017)])
    assert cap * 3.5 > len(full.model_dump_json(indent=1))


def test_an_analysis_cut_at_the_cap_keeps_its_route_and_is_not_asked_again() -> None:
    looping = '{"route": "documents", "sub_questions": ["' + "margin, " * 400
    stand_in = StandIn(looping, finish="length")
    assert _analyse(stand_in, SMALL) == QuestionAnalysis(route="documents", sub_questions=[])
    assert [r["max_tokens"] for r in stand_in.requests] == [SMALL.budgets.analysis_tokens]


class OllamaLike(ScriptedChatModel):
    """A chat model with Ollama's cap field."""

    num_predict: int | None = None


class OpenAIServerLike(ScriptedChatModel):
    """A chat model with OpenAI's cap field, also sent in the body (older servers)."""

    max_tokens: int | None = None
    extra_body: dict[str, Any] | None = None


def test_each_provider_gets_the_cap_in_its_own_field_and_a_lower_cap_stays() -> None:
    assert reply_capped(OllamaLike(), 320).num_predict == 320  # type: ignore[attr-defined]
    server = OpenAIServerLike(max_tokens=1024, extra_body={"max_tokens": 1024})
    capped = reply_capped(server, 320)
    assert capped.max_tokens == 320 and capped.extra_body == {"max_tokens": 320}  # type: ignore[attr-defined]
    assert server.max_tokens == 1024  # the answering model keeps its own cap
    lower = _local(StandIn("{}"), max_tokens=200)
    assert reply_capped(lower, 320).max_tokens == 200  # type: ignore[attr-defined]
    scripted = ScriptedChatModel()
    assert reply_capped(scripted, 320) is scripted and reply_capped(server, None) is server


def test_a_small_models_writing_calls_are_capped_by_the_policy() -> None:
    # the 1.5B once wrote one sentence 36 times, until its reply cap: 1,051 tokens
    from archivist.agent.research.nodes import ResearchNodes

    settings = Settings(llm={"model": "scripted"})
    small = ResearchNodes(_local(StandIn("")), object(), settings,  # type: ignore[arg-type]
                          policy=SMALL)
    assert small.writer.max_tokens == SMALL.budgets.answer_tokens  # type: ignore[attr-defined]
    assert small.corrective.llm is small.writer
    answer = SMALL.budgets.answer_tokens
    assert answer is not None and answer < DEFAULT_REPLY_TOKENS
    capable = ResearchNodes(_local(StandIn("")), object(), settings,  # type: ignore[arg-type]
                            policy=CAPABLE)
    assert capable.writer.max_tokens == DEFAULT_REPLY_TOKENS  # type: ignore[attr-defined]
