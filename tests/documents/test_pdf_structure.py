"""PDF structure on the real eval PDFs: headings, clean cells, tables, small chunks, indexes."""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest
from tests.eval_data import EVAL_DIR, require_eval
from typer.testing import CliRunner

from archivist.app.cli.main import app
from archivist.application import Application
from archivist.documents.chunked import ChunkSizes, chunk_document
from archivist.documents.chunking import MIN_TEXT, split_children, split_parents
from archivist.documents.loaders import load_file
from archivist.documents.pdf import structure_pages
from archivist.documents.tables import blocks, continued_header
from archivist.reindex import reindex
from archivist.settings import Settings
from archivist.types import LoadedDocument, format_location

PDFS = EVAL_DIR / "pdfs"


def _real_pdf(name: str) -> Path:
    path = PDFS / name
    require_eval(path)
    return path


@pytest.fixture(scope="module")
def netflix() -> LoadedDocument:
    return load_file(_real_pdf("NETFLIX_2017_10K.pdf"))


@pytest.fixture(scope="module")
def amcor() -> LoadedDocument:
    return load_file(_real_pdf("AMCOR_2023Q4_EARNINGS.pdf"))


@pytest.fixture(scope="module")
def r_data() -> LoadedDocument:
    return load_file(_real_pdf("R-data.pdf"))


def _children(doc: LoadedDocument) -> list:
    return [c for p in split_parents(doc) for c in split_children(p, doc=doc)]


@pytest.mark.slow
def test_10k_items_and_parts_become_parent_headings(netflix: LoadedDocument) -> None:
    paths = [" > ".join(p.heading_path) for p in split_parents(netflix)]
    assert "PART I > Item 1A. Risk Factors" in paths
    assert any(p.startswith("PART II > Item 7. Management") for p in paths)
    assert "PART II > Item 9A. Controls and Procedures" in paths
    with_item = [p for p in paths if "Item " in p]
    assert len(with_item) >= 0.6 * len(paths), paths
    assert "Netflix, Inc." not in paths


@pytest.mark.slow
def test_10k_table_of_contents_is_flagged_and_markup_is_clean(netflix: LoadedDocument) -> None:
    assert netflix.page_kinds.get(2) == "contents"
    assert "<u>" not in netflix.markdown
    assert not re.search(r"\w\*\*\w", netflix.markdown), "bold inside a word"
    assert not re.search(r"^\**_{8,}\**$", netflix.markdown, re.M), "a rule of underscores"


@pytest.mark.slow
def test_table_cells_carry_no_emphasis(amcor: LoadedDocument) -> None:
    rows = [line for line in amcor.markdown.split("\n") if line.startswith("|")]
    assert len(rows) > 20
    assert [row for row in rows if "**" in row or "<br>" in row or "<u>" in row] == []


@pytest.mark.slow
def test_no_child_under_the_minimum(netflix: LoadedDocument, r_data: LoadedDocument) -> None:
    for doc in (netflix, r_data):
        children = _children(doc)
        small = [c.text for c in children if len(c.text.strip()) < MIN_TEXT]
        assert small == [], small[:5]
        assert not [c.text for c in children if c.text.strip() in ("```", "~~~")]


@pytest.mark.slow
def test_a_real_table_split_by_rows_repeats_its_header(amcor: LoadedDocument) -> None:
    size = 300  # AMCOR's tables are small; a small child size makes them split
    parent = next(
        p
        for p in split_parents(amcor)
        if any(b.is_table and b.end - b.start > 2 * size for b in blocks(p.text))
    )
    table = next(b for b in blocks(parent.text) if b.is_table and b.end - b.start > 2 * size)
    rows = parent.text[table.start : table.end].split("\n")
    header = "\n".join(rows[:2])
    children = split_children(parent, size, 50, doc=amcor)
    pieces = [c.text[c.text.index(header) :] for c in children if header in c.text]
    assert len(pieces) >= 2
    seen: list[str] = []
    for piece in pieces:
        lines = piece.rstrip("\n").split("\n")
        assert all(line in rows for line in lines), "a row was cut"
        assert len(piece) <= size or len(lines) == 3  # only a lone long row may exceed
        seen += lines[2:]
    assert seen == rows[2:]


def test_a_table_larger_than_a_child_is_cut_between_rows() -> None:
    rows = [f"| item {i} | {i * 17} | note number {i} |" for i in range(60)]
    table = "| name | value | note |\n|---|---|---|\n" + "\n".join(rows)
    markdown = "# Figures\n\nThe table below lists every figure we measured.\n\n" + table + "\n"
    doc = LoadedDocument(path="t.md", markdown=markdown)
    [parent] = split_parents(doc, min_chars=0, max_chars=4000)
    children = split_children(parent, 500, 100, doc=doc)
    pieces = [c for c in children if c.text.startswith("| name | value | note |\n|---|")]
    assert len(pieces) >= 4
    assert all(len(p.text) <= 500 for p in pieces)
    body = [line for p in pieces for line in p.text.split("\n")[2:]]
    assert body == rows


def _rows_table(rows: int) -> tuple[str, list[str]]:
    lines = [f"| item {i} | {i * 17} | note number {i} |" for i in range(rows)]
    return "| name | value | note |\n|---|---|---|\n" + "\n".join(lines), lines


def test_a_table_larger_than_a_parent_repeats_its_header_in_every_parent() -> None:
    table, rows = _rows_table(120)
    markdown = "# Figures\n\nThe table below lists every figure we measured.\n\n" + table + "\n"
    doc = LoadedDocument(path="t.md", markdown=markdown)
    sizes = ChunkSizes(parent_min_chars=0, parent_max_chars=1200, child_chars=500)
    chunked = chunk_document(doc, "d", "c", sizes)
    header = "| name | value | note |\n|---|---|---|\n"
    assert len(chunked.parents) >= 4
    assert all(p.text.startswith(header) for p in chunked.parents[1:])
    table_children = [c for c in chunked.children if "| item " in c.text]
    assert all(c.text.startswith(header) for c in table_children)
    assert all(len(c.text) <= 500 for c in table_children)
    body = [line for c in table_children for line in c.text.split("\n")[2:]]
    assert body == rows  # every row once, none cut


@pytest.mark.slow
def test_a_real_table_split_across_parents_repeats_its_header(amcor: LoadedDocument) -> None:
    sizes = ChunkSizes(parent_min_chars=0, parent_max_chars=2000, child_chars=500)
    chunked = chunk_document(amcor, "d", "c", sizes)
    sections = split_parents(amcor, 0, 2000)
    tables = [b for b in blocks(amcor.markdown) if b.is_table]
    continued = 0
    for section, parent in zip(sections, chunked.parents, strict=True):
        header = continued_header(amcor.markdown, tables, section.start)
        assert parent.text == header + section.text
        if not header:
            continue
        continued += 1
        table = next(b for b in tables if b.start < section.start < b.end)
        rows = amcor.markdown[table.start : table.end].split("\n")
        kids = [c for c in chunked.children if c.parent_id == parent.parent_id]
        assert kids[0].text.startswith(header), kids[0].text[:200]
        for line in kids[0].text.split("\n"):
            if line.startswith("|"):
                assert line in rows, "a row was cut"
    assert continued >= 3  # AMCOR's largest tables (up to 2,953 characters) run over parents


@pytest.mark.slow
def test_a_real_row_longer_than_a_parent_is_a_parent_of_its_own(amcor: LoadedDocument) -> None:
    limit = 1000  # AMCOR's two longest table rows have 1,177 and 1,207 characters
    tables = [b for b in blocks(amcor.markdown) if b.is_table]
    rows = {line for b in tables for line in amcor.markdown[b.start : b.end].split("\n")}
    long_rows = sorted((r for r in rows if len(r) > limit), key=len)
    assert len(long_rows) >= 2
    sizes = ChunkSizes(parent_min_chars=0, parent_max_chars=limit, child_chars=500)
    chunked = chunk_document(amcor, "d", "c", sizes)
    for parent in chunked.parents:
        for line in parent.text.split("\n"):
            if line.lstrip().startswith("|"):
                assert line in rows, f"a row was cut: {line[:80]!r}"
    for row in long_rows:
        [parent] = [p for p in chunked.parents if row in p.text]
        table = next(b for b in tables if row in amcor.markdown[b.start : b.end])
        header = amcor.markdown[table.start : table.end].split("\n", 2)[:2]
        assert parent.text.split("\n")[:2] == header  # the header comes with the row
        assert parent.text.rstrip("\n").split("\n")[2:] == [row]  # and nothing else
        [child] = [c for c in chunked.children if row in c.text]
        assert child.text.split("\n")[:2] == header
    fitting = [p for p in chunked.parents if not any(row in p.text for row in long_rows)]
    assert fitting and all(len(p.text) <= limit + 200 for p in fitting)


@pytest.mark.slow
def test_outline_headings_and_index_pages(r_data: LoadedDocument) -> None:
    paths = {" > ".join(p.heading_path) for p in split_parents(r_data)}
    assert "7 Connections > 7.5 Binary connections" in paths
    assert r_data.page_kinds.get(3) == "contents"
    index_pages = [page for page, kind in r_data.page_kinds.items() if kind == "index"]
    assert index_pages and min(index_pages) > 30
    flagged = [p for p in split_parents(r_data) if p.kind != "body"]
    assert flagged and all(
        p.page_start in r_data.page_kinds and p.page_end in r_data.page_kinds for p in flagged
    )


def test_code_block_running_over_a_heading_is_closed() -> None:
    pages = [(1, "Intro text\n\n```\n  x <- 1\n\n### **2.1 Next part**\n\n```\n\nBody text.\n")]
    [text], _ = structure_pages(pages, [(1, "2 Part", 1), (2, "Next part", 1)])
    assert text.split("\n").count("```") == 2
    assert "## 2.1 Next part" in text
    assert text.index("```", text.index("x <- 1")) < text.index("## 2.1 Next part")


@pytest.mark.slow
def test_index_is_stored_but_not_searched(tmp_path: Path, embedder) -> None:
    settings = Settings(data_dir=tmp_path / "lib")
    with Application(settings, embedder=embedder) as library:
        report = library.ingest.files([_real_pdf("R-data.pdf")])
        assert report.counts["added"] == 1
        [record] = library.store.documents()
        children = library.store.children_of(record.document_id)
        assert any("read.csv" in c.text and (c.page_start or 0) >= 38 for c in children)
        _assert_not_searched(library)
        # the flag is in the catalog too, so show (and a reindex) can see it
        assert {c.kind for c in children if (c.page_start or 0) >= 38} == {"index"}
        assert {c.kind for c in children if 5 < (c.page_end or 0) < 38} == {"body"}
        parents = library.store.parents_of(record.document_id)
        assert {p.kind for p in parents} == {"body", "contents", "index"}
    result = CliRunner().invoke(app, ["show", "R-data.pdf", "--data-dir", str(settings.data_dir)])
    assert result.exit_code == 0, result.output
    flagged = [line for line in result.output.splitlines() if "stored, not searched" in line]
    assert any("back-of-book index" in line for line in flagged)
    assert any("table of contents" in line for line in flagged)
    assert len(flagged) == sum(p.kind != "body" for p in parents)
    reindex(settings, lambda _model: embedder)  # re-embeds from the catalog: flags survive
    with Application(settings, embedder=embedder) as library:
        _assert_not_searched(library)


def _assert_not_searched(library: Application) -> None:
    hits = library.searcher.search("read.csv", k=10)
    assert hits
    assert all((h.page_start or 0) < 38 for h in hits), [h.pages for h in hits]
    assert all((h.page_start or 0) > 4 for h in hits), [h.pages for h in hits]


def test_markdown_hits_name_their_section(tmp_path: Path, embedder) -> None:
    guide = tmp_path / "guide.md"
    guide.write_text(
        "# Installation\n\n## Linux\n\nRun the installer from the package manager and enable "
        "the service so that it starts at boot.\n\n## Windows\n\nDownload the signed MSI and "
        "double-click it; the wizard registers the service for you.\n",
        encoding="utf-8",
    )
    settings = Settings(data_dir=tmp_path / "lib")  # the default sizes: one parent for both
    with Application(settings, embedder=embedder) as library:
        assert library.ingest.files([guide]).counts["added"] == 1
        assert len(library.store.parents_of(library.store.documents()[0].document_id)) == 1
        [hit, *_] = library.searcher.search("package manager service at boot", k=3)
    assert hit.pages == "§ Installation › Linux"
    assert format_location(3, 4, ["Installation"]) == "pp. 3-4"  # PDFs name pages


@pytest.mark.slow
def test_layout_mode_finds_the_borderless_tables_of_a_10k(tmp_path: Path, embedder) -> None:
    path = tmp_path / "statements.pdf"
    with pymupdf.open(_real_pdf("NETFLIX_2017_10K.pdf")) as source, pymupdf.open() as out:
        out.insert_pdf(source, from_page=39, to_page=44)  # the consolidated statements
        out.save(path)
    plain = load_file(path)
    assert not [b for b in blocks(plain.markdown) if b.is_table]  # no ruling lines: no table
    laid = load_file(path, layout=True)
    tables = [laid.markdown[b.start : b.end] for b in blocks(laid.markdown) if b.is_table]
    revenues = [row for t in tables for row in t.split("\n") if row.startswith("|Revenues|")]
    assert revenues and "11,692,713" in revenues[0], tables[:1]
    assert not [t for t in tables if "<u>" in t or "**" in t]
    [span] = [s for s in laid.page_spans if revenues[0] in laid.markdown[s.start : s.end]]
    assert 1 <= span.page <= 6
    settings = Settings(data_dir=tmp_path / "lib", index={"pdf_layout": True})
    with Application(settings, embedder=embedder) as library:
        assert library.ingest.files([path]).counts["added"] == 1
        [record] = library.store.documents()
        rows = [c for c in library.store.children_of(record.document_id) if revenues[0] in c.text]
        header = next(t for t in tables if revenues[0] in t).split("\n")[0]
        assert rows and all(header in c.text for c in rows)  # the row stays in its table
