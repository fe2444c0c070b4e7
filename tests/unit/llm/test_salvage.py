"""The finished fields of a structured reply cut off or malformed."""

from __future__ import annotations

from langchain_core.messages import AIMessage
from pydantic import BaseModel, Field

from archivist.llm.salvage import finished_fields, reply_fields


class Shape(BaseModel):
    kind: str = "plain"
    ready: bool = True
    count: int = 0
    names: list[str] = Field(default_factory=list)


def test_fields_before_the_cut_are_kept_and_the_cut_one_is_not() -> None:
    text = 'Sure: ```json\n{"kind": "list", "ready": false, "names": ["Ada", "Bo'
    assert finished_fields(text) == {"kind": "list", "ready": False}
    assert finished_fields('{"kind": "list", "names": ["Ada", "Bo"]') == {
        "kind": "list", "names": ["Ada", "Bo"]}
    assert finished_fields('{"kind": "list", "names": ["Ada", "Bo"]}') == {
        "kind": "list", "names": ["Ada", "Bo"]}


def test_a_number_counts_only_when_it_is_closed() -> None:
    assert finished_fields('{"kind": "x", "count": 12') == {"kind": "x"}
    assert finished_fields('{"kind": "x", "count": 12 }') == {"kind": "x", "count": 12}
    assert finished_fields('{"count": 12, "kind"') == {"count": 12}


def test_malformed_text_keeps_what_came_before_the_break() -> None:
    assert finished_fields('{"kind": "x", ready: true}') == {"kind": "x"}
    assert finished_fields('{"kind": "x" "ready": true}') == {"kind": "x"}
    assert finished_fields("no object at all") == {}
    assert finished_fields('{"kind": "x", "ready": tru') == {"kind": "x"}


def test_a_reply_gives_its_fields_the_schema_accepts() -> None:
    cut = AIMessage(content="", invalid_tool_calls=[{
        "name": "Shape", "args": '{"kind": "list", "count": "many", "names": ["A"], "ready": t',
        "id": "1", "error": "cut", "type": "invalid_tool_call"}])
    assert reply_fields(cut, Shape) == {"kind": "list", "names": ["A"]}  # "many" is no int
    called = AIMessage(content="", tool_calls=[{
        "name": "Shape", "args": {"kind": 3, "ready": False, "other": 1}, "id": "2"}])
    assert reply_fields(called, Shape) == {"ready": False}
    text = AIMessage(content='{"count": 4, "names": ["x", "y"], "kind": "li')
    assert reply_fields(text, Shape) == {"count": 4, "names": ["x", "y"]}
    blocks = AIMessage(content=[{"type": "text", "text": '{"kind": "a",'},
                                {"type": "text", "text": ' "ready": false}'}])
    assert reply_fields(blocks, Shape) == {"kind": "a", "ready": False}
