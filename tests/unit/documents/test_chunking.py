"""Tests for parent/child chunking: boundaries, sizes, exact offsets and page ranges."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest

from archivist.documents.chunking import (
    MIN_TEXT,
    heading_path_text,
    split_children,
    split_parents,
)
from archivist.documents.headings import heading_title
from archivist.types import LoadedDocument, PageSpan, Section

# --- helpers -----------------------------------------------------------------------------


def doc_of(markdown: str, page_spans: list[PageSpan] | None = None) -> LoadedDocument:
    spans = page_spans or []
    return LoadedDocument(
        path="test.md", markdown=markdown, page_spans=spans, page_count=len(spans)
    )


def paragraphs(words: int, seed: int = 0, per_paragraph: int = 40) -> str:
    """Non-repeating prose: ``words`` words in sentences and paragraphs."""
    rng = random.Random(seed)
    vocabulary = [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "kappa",
        "lambda",
        "sigma",
        "omega",
        "index",
        "vector",
        "parent",
        "child",
        "page",
        "query",
        "answer",
    ]
    out = []
    for i in range(words):
        out.append(f"{rng.choice(vocabulary)}{i}")
        if i % 12 == 11:
            out[-1] += "."
        if i % per_paragraph == per_paragraph - 1:
            out[-1] += "\n\n"
    return " ".join(out).replace("\n\n ", "\n\n").rstrip() + "\n\n"


def sized(target: int, seed: int = 0) -> str:
    """Prose of roughly ``target`` characters (at most ``target``), ending in a blank line."""
    text = paragraphs(target // 4, seed)
    cut = text.rfind(" ", 0, target - 2)
    return text[:cut] + ".\n\n"


def check_parents(doc: LoadedDocument, sections: list[Section], max_chars: int) -> None:
    """The invariants every parent split must keep."""
    assert "".join(s.text for s in sections) == doc.markdown
    assert sections[0].start == 0
    assert sections[-1].end == len(doc.markdown)
    for before, after in pairwise(sections):
        assert after.start == before.end
    for s in sections:
        assert s.text == doc.markdown[s.start : s.end]
        assert 0 < len(s.text) <= max_chars
        assert (s.page_start, s.page_end) == doc.pages_between(s.start, s.end)


def check_children(
    doc: LoadedDocument, parent: Section, children: list[Section], size: int
) -> None:
    covered = [False] * len(parent.text)
    for child in children:
        # longer than size only when it absorbed a piece with under MIN_TEXT characters
        assert 0 < len(child.text) <= size + 2 * MIN_TEXT
        assert child.text.strip(), "whitespace-only child"
        assert child.text == doc.markdown[child.start : child.end]
        assert parent.start <= child.start < child.end <= parent.end
        assert child.heading_path == parent.heading_path
        for i in range(child.start - parent.start, child.end - parent.start):
            covered[i] = True
    # Only a short lone heading named in the heading path (the children's context) may be
    # left out.
    named = {title.casefold() for title in parent.heading_path}
    offset = 0
    for line in parent.text.split("\n"):
        missed = [c for i, c in enumerate(line, offset) if not c.isspace() and not covered[i]]
        if missed:
            assert len(line.strip()) < MIN_TEXT, f"not covered: {line!r}"
            assert (heading_title(line) or "").casefold() in named, f"not covered: {line!r}"
        offset += len(line) + 1


def section_with(sections: list[Section], needle: str) -> Section:
    [found] = [s for s in sections if needle in s.text]
    return found


# --- heading_path_text ---------------------------------------------------------------------


def test_heading_path_text_joins_with_arrows() -> None:
    assert heading_path_text(["Installation", "Linux", "Debian"]) == "Installation > Linux > Debian"
    assert heading_path_text(["Only"]) == "Only"
    assert heading_path_text([]) == ""


# --- parents: boundaries and heading paths -------------------------------------------------


STRUCTURED = (
    "Front matter before any heading.\n\n"
    + sized(300, 1)
    + "# **Installation**\n\n"
    + sized(300, 2)
    + "## Linux\n\n"
    + sized(300, 3)
    + "```bash\n# not a heading\n## nor this\n```\n\n"
    + "### _Debian_ ###\n\n"
    + sized(300, 4)
    + "#### Apt details\n\n"
    + sized(300, 5)
    + "~~~\n# tilde fence, not a heading\n~~~\n\n"
    + "## macOS\n\n"
    + sized(300, 6)
    + "# Usage\n\n"
    + sized(300, 7)
)


def test_parents_follow_h1_to_h3_with_heading_paths() -> None:
    doc = doc_of(STRUCTURED)
    sections = split_parents(doc, min_chars=100, max_chars=1000)
    check_parents(doc, sections, 1000)
    assert [s.heading_path for s in sections] == [
        [],
        ["Installation"],
        ["Installation", "Linux"],
        ["Installation", "Linux", "Debian"],
        ["Installation", "macOS"],
        ["Usage"],
    ]
    assert sections[0].text.startswith("Front matter")
    assert sections[3].text.startswith("### _Debian_ ###")


def test_h4_and_fenced_hashes_are_not_boundaries() -> None:
    sections = split_parents(doc_of(STRUCTURED), min_chars=100, max_chars=1000)
    debian = section_with(sections, "#### Apt details")
    assert debian.heading_path == ["Installation", "Linux", "Debian"]
    assert "# tilde fence, not a heading" in debian.text
    linux = section_with(sections, "# not a heading")
    assert linux.heading_path == ["Installation", "Linux"]
    assert "## nor this" in linux.text


def test_headings_need_a_space_and_at_most_three_indent_spaces() -> None:
    markdown = (
        "# A\n\n"
        + sized(200, 1)
        + "#hashtag is text\n\n    # indented code\n\n"
        + "   ## B\n\n"
        + sized(200, 2)
    )
    sections = split_parents(doc_of(markdown), min_chars=50, max_chars=1000)
    assert [s.heading_path for s in sections] == [["A"], ["A", "B"]]


def test_emphasis_is_stripped_from_titles_but_snake_case_survives() -> None:
    markdown = (
        "# ***Big*** and __strong__ _it_ ~~old~~\n\n"
        + sized(200, 1)
        + "## use snake_case_names *here*\n\n"
        + sized(200, 2)
    )
    sections = split_parents(doc_of(markdown), min_chars=50, max_chars=1000)
    assert sections[0].heading_path == ["Big and strong it old"]
    assert sections[1].heading_path[-1] == "use snake_case_names here"


def test_windows_line_endings_are_understood() -> None:
    markdown = "# One\r\n\r\n" + sized(200, 1).replace("\n", "\r\n") + "## Two #\r\n\r\ntext\r\n"
    sections = split_parents(doc_of(markdown), min_chars=0, max_chars=1000)
    check_parents(doc_of(markdown), sections, 1000)
    assert [s.heading_path for s in sections] == [["One"], ["One", "Two"]]


def test_unclosed_fence_hides_every_later_heading() -> None:
    markdown = "# A\n\n" + sized(200) + "```\n# B\n## C\n"
    sections = split_parents(doc_of(markdown), min_chars=0, max_chars=1000)
    assert [s.heading_path for s in sections] == [["A"]]


# --- parents: small and degenerate documents ---------------------------------------------


def test_empty_and_whitespace_documents_give_nothing() -> None:
    assert split_parents(doc_of("")) == []
    assert split_parents(doc_of(" \n\n\t\n")) == []


def test_document_shorter_than_min_is_one_section() -> None:
    markdown = "Preface.\n\n# A\n\nshort\n\n## A.1\n\nshort too\n\n# B\n\nlast bit\n"
    doc = doc_of(markdown)
    [only] = split_parents(doc)
    assert only.text == markdown
    assert (only.start, only.end) == (0, len(markdown))
    assert only.page_start is None and only.page_end is None


def test_leading_whitespace_merges_into_first_section_and_keeps_its_path() -> None:
    markdown = "\n\n\n# Title\n\n" + sized(300)
    sections = split_parents(doc_of(markdown), min_chars=0, max_chars=1000)
    assert len(sections) == 1
    assert sections[0].heading_path == ["Title"]


def test_whitespace_is_absorbed_even_next_to_a_full_section() -> None:
    body = sized(990)
    markdown = "\n\n\n" + "# T\n\n" + body[: 1000 - 5]
    doc = doc_of(markdown)
    sections = split_parents(doc, min_chars=0, max_chars=1000)
    check_parents(doc, sections, 1000)
    assert all(s.text.strip() for s in sections)


def test_bad_sizes_are_rejected() -> None:
    with pytest.raises(ValueError):
        split_parents(doc_of("x"), min_chars=500, max_chars=100)
    with pytest.raises(ValueError):
        split_parents(doc_of("x"), min_chars=0, max_chars=0)


# --- parents: merging ------------------------------------------------------------------------


def test_small_section_merges_forward_within_its_chapter() -> None:
    markdown = (
        "# Guide\n\nA short introduction.\n\n"
        + "## Setup\n\n"
        + sized(700, 1)
        + "## Usage\n\n"
        + sized(700, 2)
    )
    doc = doc_of(markdown)
    sections = split_parents(doc, min_chars=300, max_chars=1000)
    check_parents(doc, sections, 1000)
    assert len(sections) == 2
    assert sections[0].text.startswith("# Guide") and "## Setup" in sections[0].text
    # The merged section's path is the common prefix of its parts' paths.
    assert sections[0].heading_path == ["Guide"]
    assert sections[1].heading_path == ["Guide", "Usage"]


def test_small_last_section_of_a_chapter_merges_backward_not_into_next_chapter() -> None:
    markdown = (
        "# One\n\n"
        + sized(500, 1)
        + "## Tail\n\nA tiny closing note.\n\n"
        + "# Two\n\n"
        + sized(500, 2)
    )
    doc = doc_of(markdown)
    sections = split_parents(doc, min_chars=300, max_chars=1000)
    check_parents(doc, sections, 1000)
    assert len(sections) == 2
    assert "## Tail" in sections[0].text
    assert sections[0].heading_path == ["One"]
    assert sections[1].heading_path == ["Two"]


def test_small_front_matter_merges_forward() -> None:
    markdown = "My Document\n\n# Intro\n\n" + sized(800)
    sections = split_parents(doc_of(markdown), min_chars=300, max_chars=1000)
    assert len(sections) == 1
    assert sections[0].heading_path == []  # front matter lies outside "Intro"


def test_small_runs_merge_until_they_reach_min() -> None:
    markdown = "# Notes\n\n" + "".join(f"## N{i}\n\nshort note {i}.\n\n" for i in range(30))
    doc = doc_of(markdown)
    sections = split_parents(doc, min_chars=200, max_chars=400)
    check_parents(doc, sections, 400)
    assert len(sections) > 1
    assert all(len(s.text) >= 200 for s in sections[:-1])
    assert all(s.heading_path == ["Notes"] for s in sections)


def test_merging_never_exceeds_max() -> None:
    markdown = "# A\n\n" + sized(990, 1) + "# B\n\ntiny\n\n" + "# C\n\n" + sized(990, 2)
    doc = doc_of(markdown)
    sections = split_parents(doc, min_chars=300, max_chars=1000)
    check_parents(doc, sections, 1000)
    # "B" holds under MIN_TEXT characters: it joins "C", and the pair is re-split to fit
    assert [s.heading_path for s in sections] == [["A"], ["C"], ["C"]]
    assert sections[1].text.startswith("# B\n\ntiny\n\n# C")


# --- parents: splitting long sections -------------------------------------------------------


def pieces_of(markdown: str, max_chars: int) -> list[Section]:
    doc = doc_of(markdown)
    sections = split_parents(doc, min_chars=0, max_chars=max_chars)
    check_parents(doc, sections, max_chars)
    return sections


def test_long_section_splits_evenly_at_paragraphs() -> None:
    markdown = "# Long\n\n" + paragraphs(2000, per_paragraph=15)
    sections = pieces_of(markdown, 1000)
    assert len(sections) >= 10
    assert all(s.heading_path == ["Long"] for s in sections)
    for s in sections:
        assert len(s.text) >= 250
    for s in sections[:-1]:
        assert s.text.endswith("\n\n")


def test_just_over_max_gives_two_halves_not_a_tiny_tail() -> None:
    markdown = "# Long\n\n" + sized(1040)
    sections = pieces_of(markdown, 1000)
    assert len(sections) == 2
    assert min(len(s.text) for s in sections) >= 250


@pytest.mark.parametrize(
    ("body", "ending"),
    [
        (
            " ".join(f"line{i} has words" for i in range(1, 200)).replace(
                "words line", "words\nline"
            ),
            "\n",
        ),
        (" ".join(f"Sentence {i} is here." for i in range(300)), ". "),
        (" ".join(f"w{i}" for i in range(1000)), " "),
    ],
    ids=["line-breaks", "sentences", "spaces"],
)
def test_split_falls_back_to_weaker_boundaries(body: str, ending: str) -> None:
    sections = pieces_of(body, 1000)
    assert len(sections) > 2
    for s in sections[:-1]:
        assert s.text.endswith(ending)
        assert len(s.text) >= 250


def test_split_prefers_paragraph_over_nearer_line_break() -> None:
    first = "\n".join(f"line {i} of the first paragraph" for i in range(20))
    second = "\n".join(f"line {i} of the second paragraph" for i in range(20))
    sections = pieces_of(first + "\n\n" + second, 1000)
    assert [s.text for s in sections] == [first + "\n\n", second]


def test_unbroken_text_is_hard_cut_into_even_pieces() -> None:
    sections = pieces_of("x" * 2500, 1000)
    assert [len(s.text) for s in sections] == [834, 833, 833]


# --- defaults ----------------------------------------------------------------------------------


def test_parent_defaults_are_2000_to_4000() -> None:
    two_small = "# A\n\n" + sized(1500, 1) + "# B\n\n" + sized(1500, 2)
    assert len(split_parents(doc_of(two_small))) == 1

    two_big = "# A\n\n" + sized(2100, 1) + "# B\n\n" + sized(2100, 2)
    assert len(split_parents(doc_of(two_big))) == 2

    long_doc = doc_of("# A\n\n" + sized(4100))
    sections = split_parents(long_doc)
    check_parents(long_doc, sections, 4000)
    assert len(sections) == 2


def test_child_defaults_are_500_with_overlap() -> None:
    doc = doc_of(" ".join(f"word{i}" for i in range(300)))
    [parent] = split_parents(doc)
    children = split_children(parent)
    check_children(doc, parent, children, 500)
    assert max(len(c.text) for c in children) > 400
    overlaps = [a.end - b.start for a, b in pairwise(children)]
    assert all(0 < o <= 100 for o in overlaps)


# --- pages -----------------------------------------------------------------------------------


def three_pages() -> tuple[LoadedDocument, list[int]]:
    pages = [
        "# Chapter 1\n\n" + sized(600, 1),
        sized(400, 2) + "## Section 1.1\n\n" + sized(500, 3),
        "# Chapter 2\n\n" + sized(600, 4),
    ]
    spans, offset = [], 0
    for number, text in enumerate(pages, start=1):
        spans.append(PageSpan(offset, offset + len(text), number))
        offset += len(text)
    boundaries = [spans[0].end, spans[1].end]
    return doc_of("".join(pages), spans), boundaries


def test_parent_page_ranges_follow_page_spans() -> None:
    doc, _ = three_pages()
    sections = split_parents(doc, min_chars=100, max_chars=1200)
    check_parents(doc, sections, 1200)
    assert [(s.heading_path, s.page_start, s.page_end) for s in sections] == [
        (["Chapter 1"], 1, 2),
        (["Chapter 1", "Section 1.1"], 2, 2),
        (["Chapter 2"], 3, 3),
    ]


def test_child_page_ranges_at_page_boundary() -> None:
    doc, (end_of_page_1, _) = three_pages()
    [parent, *_] = split_parents(doc, min_chars=100, max_chars=1200)
    children = split_children(parent, 200, 40, doc=doc)
    check_children(doc, parent, children, 200)
    for child in children:
        expected = (
            (1, 1)
            if child.end <= end_of_page_1
            else ((2, 2) if child.start >= end_of_page_1 else (1, 2))
        )
        assert (child.page_start, child.page_end) == expected
    assert {(c.page_start, c.page_end) for c in children} >= {(1, 1), (2, 2)}


def test_children_without_doc_inherit_parent_pages() -> None:
    doc, _ = three_pages()
    parent = split_parents(doc, min_chars=100, max_chars=1200)[0]
    children = split_children(parent, 200, 40)
    assert all((c.page_start, c.page_end) == (1, 2) for c in children)


def test_pageless_documents_have_no_pages() -> None:
    doc = doc_of("# A\n\n" + sized(3000))
    for parent in split_parents(doc, 100, 1000):
        assert (parent.page_start, parent.page_end) == (None, None)
        for child in split_children(parent, 200, 40, doc=doc):
            assert (child.page_start, child.page_end) == (None, None)


# --- children ----------------------------------------------------------------------------


def test_children_cover_parent_and_keep_heading_path() -> None:
    doc = doc_of(STRUCTURED * 3)
    for parent in split_parents(doc, min_chars=100, max_chars=1000):
        children = split_children(parent, 120, 30, doc=doc)
        assert children
        check_children(doc, parent, children, 120)


def test_children_of_repetitive_text_still_cover_everything() -> None:
    doc = doc_of("# Same\n\n" + "word " * 400 + "\n\n" + "ab" * 300)
    [parent] = split_parents(doc, min_chars=0, max_chars=4000)
    children = split_children(parent, 100, 20, doc=doc)
    check_children(doc, parent, children, 100)
    assert all(len(c.text.strip()) >= MIN_TEXT for c in children)
    starts = [c.start for c in children]
    assert starts == sorted(starts)


def test_children_skip_whitespace_only_text() -> None:
    doc = doc_of("# A\n\n" + " \n" * 300 + "end\n")
    [parent] = split_parents(doc, min_chars=0, max_chars=4000)
    children = split_children(parent, 50, 10, doc=doc)
    assert [c.text for c in children] == ["end"]


def test_a_short_lone_heading_in_the_path_is_left_out_and_the_next_child_is_whole() -> None:
    body = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 12
    doc = doc_of(f"# A short title\n\n{body}")  # the title and body do not fit one child
    [parent] = split_parents(doc, min_chars=0, max_chars=4000)
    children = split_children(parent, 500, 100, doc=doc)
    assert all("A short title" not in c.text for c in children)
    assert children[0].text.startswith("Lorem ipsum")
    assert len(children[0].text) > 450  # a full child of body text, not a remainder
    assert children[0].heading_path == ["A short title"]
    check_children(doc, parent, children, 500)


def test_a_lone_heading_of_at_least_the_minimum_stays_a_child() -> None:
    body = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 12
    title = "A heading that is long enough to stand as a child of its own"
    doc = doc_of(f"# {title}\n\n{body}")
    [parent] = split_parents(doc, min_chars=0, max_chars=4000)
    children = split_children(parent, 500, 100, doc=doc)
    assert children[0].text == f"# {title}"
    check_children(doc, parent, children, 500)


def test_a_lone_heading_outside_the_path_joins_the_text_after_it() -> None:
    body = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 12
    intro = "Short intro words here. " * 20  # fills the first child, so the H4 stands alone
    doc = doc_of(f"# Chapter\n\n{intro}\n\n#### Detail\n\n{body}")
    [parent] = split_parents(doc, min_chars=0, max_chars=4000)
    children = split_children(parent, 500, 100, doc=doc)
    assert any(c.text.startswith("#### Detail\n\nLorem") for c in children)
    check_children(doc, parent, children, 500)


def test_a_section_that_is_only_its_heading_keeps_it() -> None:
    doc = doc_of("# Only a heading here\n")
    [parent] = split_parents(doc, min_chars=0, max_chars=4000)
    assert [c.text for c in split_children(parent, 500, 100, doc=doc)] == ["# Only a heading here"]


# --- randomized invariants ------------------------------------------------------------------


def random_markdown(rng: random.Random) -> str:
    parts: list[str] = []
    if rng.random() < 0.5:
        parts.append(rng.choice(["", "\n\n", "Preamble text.\n\n", "  \n"]))
    for _ in range(rng.randint(0, 25)):
        kind = rng.random()
        if kind < 0.35:
            level = rng.choice([1, 2, 3, 4])
            parts.append("#" * level + f" Heading {rng.randint(0, 99)}\n\n")
        elif kind < 0.45:
            parts.append("```\n# not a heading\n" + "code line\n" * rng.randint(0, 5) + "```\n\n")
        elif kind < 0.55:
            parts.append(rng.choice([" ", "\n", "\t"]) * rng.randint(1, 300))
        elif kind < 0.6:
            parts.append("z" * rng.randint(1, 900))
        else:
            parts.append(
                paragraphs(
                    rng.randint(1, 400), rng.randint(0, 10**6), per_paragraph=rng.randint(3, 60)
                )
            )
    return "".join(parts)


def random_pages(rng: random.Random, length: int) -> list[PageSpan]:
    if length == 0 or rng.random() < 0.3:
        return []
    cuts = sorted(rng.sample(range(1, length), min(2, length - 1))) if length > 1 else []
    bounds = [0, *cuts, length]
    return [PageSpan(a, b, n) for n, (a, b) in enumerate(pairwise(bounds), start=1)]


@pytest.mark.parametrize("seed", range(150))
def test_random_documents_keep_every_invariant(seed: int) -> None:
    rng = random.Random(seed)
    markdown = random_markdown(rng)
    doc = doc_of(markdown, random_pages(rng, len(markdown)))
    max_chars = rng.choice([300, 800, 1500, 4000])
    min_chars = rng.randint(0, max_chars)
    sections = split_parents(doc, min_chars, max_chars)
    if not markdown.strip():
        assert sections == []
        return
    check_parents(doc, sections, max_chars)
    # Whitespace runs here are at most 300 characters, so none can be left on its own.
    assert all(s.text.strip() for s in sections)
    size = rng.choice([60, 200, 500])
    overlap = rng.randint(0, size // 3)
    for parent in sections:
        check_children(doc, parent, split_children(parent, size, overlap, doc=doc), size)


@pytest.mark.parametrize("seed", range(40))
def test_random_long_sections_split_evenly(seed: int) -> None:
    rng = random.Random(seed)
    body = "".join(
        rng.choice(
            [
                paragraphs(rng.randint(5, 200), rng.randint(0, 10**6), rng.randint(3, 40)),
                "z" * rng.randint(1, 700),
                " ".join(f"line{i}" for i in range(rng.randint(1, 80))).replace(" ", "\n"),
            ]
        )
        for _ in range(rng.randint(5, 30))
    )
    max_chars = rng.choice([500, 1000, 4000])
    markdown = "# One section\n\n" + body
    sections = pieces_of(markdown, max_chars)
    if len(markdown) > max_chars:
        assert all(len(s.text) >= max_chars // 4 for s in sections)
        assert len(sections) <= 2 * -(-len(markdown) // max_chars)
