"""Markdown ATX headings: the line pattern and a heading's plain title (pure functions)."""

from __future__ import annotations

import re

__all__ = ["HEADING", "clean_title", "heading_title"]

HEADING = re.compile(r" {0,3}(#{1,3})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*")
"""An H1-H3 line (the levels that start a parent); group 2 is the raw title."""

_ANY_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*")
_STAR_EMPHASIS = re.compile(r"(\*{1,3}|~~)(?=\S)(.+?)(?<=\S)\1")
_UNDERSCORE_EMPHASIS = re.compile(r"(?<!\w)(_{1,3})(?=\S)(.+?)(?<=\S)\1(?!\w)")


def clean_title(title: str) -> str:
    """Strip Markdown emphasis markers and extra spaces from a heading's text."""
    previous = None
    while previous != title:
        previous = title
        title = _STAR_EMPHASIS.sub(r"\2", title)
        title = _UNDERSCORE_EMPHASIS.sub(r"\2", title)
    return " ".join(title.split())


def heading_title(text: str) -> str | None:
    """The clean title when ``text`` is one ATX heading line (H1-H6) and nothing else."""
    found = _ANY_HEADING.fullmatch(text.strip())
    return clean_title(found.group(1) or "") if found else None
