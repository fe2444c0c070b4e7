"""The question stage: a question read once (:class:`ParsedQuestion`), instructions set apart."""

from archivist.agent.question.instructions import Split, split_instructions
from archivist.agent.question.parsed import ParsedQuestion, answer_kind, parse_question

__all__ = ["ParsedQuestion", "Split", "answer_kind", "parse_question", "split_instructions"]
