"""Conversation titles come from the first question, without an LLM."""

from __future__ import annotations

from archivist.conversations import title_from_question


def test_titles_drop_politeness_and_question_marks() -> None:
    assert title_from_question("How long does the warranty last?") == (
        "How long does the warranty last")
    assert title_from_question("hi, can you tell me   where the valve is?") == (
        "Where the valve is")
    assert title_from_question("???") == "???"


def test_long_questions_cut_at_a_word() -> None:
    question = "What does the manual say about calibrating the pump " + "again " * 20
    title = title_from_question(question)
    assert len(title) <= 61 and title.endswith("…")
    assert title.startswith("What does the manual say about calibrating the pump")
    assert not title[:-1].endswith(" ")
