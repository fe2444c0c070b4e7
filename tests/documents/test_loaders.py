"""Loaders: real files in, Markdown (with page maps for PDFs) or one clear error line out."""

from __future__ import annotations

from pathlib import Path

import docx
import pymupdf
import pytest
from tests.eval_data import EVAL_DIR, require_eval

from archivist.documents.loaders import SUPPORTED_SUFFIXES, iter_files, load_file
from archivist.types import LoadedDocument, LoadError, UnsupportedFile

PDFS = EVAL_DIR / "pdfs"


def _real_pdf(name: str) -> Path:
    return require_eval(PDFS / name)


@pytest.fixture(scope="module")
def r_faq() -> tuple[Path, LoadedDocument]:
    path = _real_pdf("R-FAQ.pdf")
    return path, load_file(path)


@pytest.fixture(scope="module")
def amcor() -> tuple[Path, LoadedDocument]:
    path = _real_pdf("AMCOR_2023Q4_EARNINGS.pdf")
    return path, load_file(path)


def _page_of(doc: LoadedDocument, offset: int) -> int:
    pages = [s.page for s in doc.page_spans if s.start <= offset < s.end]
    assert len(pages) == 1, f"offset {offset} is covered by {len(pages)} spans"
    return pages[0]


def _distinctive_phrase(pdf: pymupdf.Document, page_index: int, markdown: str) -> str:
    """Words from a line of the page's own text, found on no other page and once in the Markdown.

    Whole lines are tried first, then their first six or five words (line ends often carry
    hyphenation or links that the Markdown renders differently).
    """
    texts = [" ".join(page.get_text().split()) for page in pdf.pages()]
    for line in pdf[page_index].get_text().splitlines():
        words = line.split()
        for count in (len(words), 6, 5):
            phrase = " ".join(words[:count])
            if not 20 <= len(phrase) <= 120 or not phrase[0].isalpha():
                continue
            if any(phrase in text for i, text in enumerate(texts) if i != page_index):
                continue
            if markdown.count(phrase) == 1:
                return phrase
    raise AssertionError(f"no distinctive phrase found on page {page_index + 1}")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("fixture", "page_indexes"),
    [("r_faq", [0, 4, 25, 50]), ("amcor", [0, 6, 12])],
)
def test_pdf_phrases_map_to_their_pages(
    request: pytest.FixtureRequest, fixture: str, page_indexes: list[int]
) -> None:
    path, doc = request.getfixturevalue(fixture)
    with pymupdf.open(path) as pdf:
        for index in page_indexes:
            phrase = _distinctive_phrase(pdf, index, doc.markdown)
            assert _page_of(doc, doc.markdown.index(phrase)) == index + 1, phrase
            end = doc.markdown.index(phrase) + len(phrase)
            assert _page_of(doc, end - 1) == index + 1, phrase


@pytest.mark.slow
@pytest.mark.parametrize("fixture", ["r_faq", "amcor"])
def test_pdf_page_spans_tile_the_markdown(request: pytest.FixtureRequest, fixture: str) -> None:
    path, doc = request.getfixturevalue(fixture)
    with pymupdf.open(path) as pdf:
        assert doc.page_count == pdf.page_count
        title = (pdf.metadata or {}).get("title") or path.stem
    assert doc.title == title
    assert doc.path == str(path)
    spans = doc.page_spans
    assert spans, "a PDF with text has page spans"
    assert spans[0].start == 0
    assert spans[-1].end == len(doc.markdown)
    for span in spans:
        assert span.start < span.end
        assert 1 <= span.page <= doc.page_count
    for before, after in zip(spans, spans[1:], strict=False):
        assert before.page < after.page
        assert doc.markdown[before.end : after.start] == "\n\n"
    # every page of these PDFs has text, so every page has a span
    assert [s.page for s in spans] == list(range(1, doc.page_count + 1))


@pytest.mark.slow
def test_pdf_pages_between_uses_the_page_map(amcor: tuple[Path, LoadedDocument]) -> None:
    _, doc = amcor
    first, second = doc.page_spans[0], doc.page_spans[1]
    assert doc.pages_between(first.start, first.end) == (1, 1)
    assert doc.pages_between(first.end - 5, second.start + 5) == (1, 2)


# --- bad inputs --------------------------------------------------------------------------


def _assert_load_error(path: Path, reason: str, kind: type[LoadError] = LoadError) -> str:
    with pytest.raises(kind) as caught:
        load_file(path)
    message = str(caught.value)
    assert str(path) in message
    assert reason in message
    assert "Traceback" not in message
    assert "\n" not in message
    return message


def _text_pdf(path: Path, text: str = "Hello from a test PDF") -> pymupdf.Document:
    pdf = pymupdf.open()
    pdf.new_page().insert_text((72, 72), text)
    return pdf


def test_corrupt_pdf(tmp_path: Path) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 20)
    _assert_load_error(path, "corrupt or unreadable PDF")


def test_encrypted_pdf(tmp_path: Path) -> None:
    path = tmp_path / "secret.pdf"
    pdf = _text_pdf(path)
    pdf.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="x", owner_pw="y")
    _assert_load_error(path, "encrypted PDF (password-protected)")


def test_owner_password_only_pdf_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "restricted.pdf"
    pdf = _text_pdf(path, "Readable despite an owner password")
    pdf.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="y")
    doc = load_file(path)
    assert "Readable despite an owner password" in doc.markdown
    assert doc.page_count == 1
    assert doc.page_spans[0].page == 1


def test_pdf_without_text(tmp_path: Path) -> None:
    path = tmp_path / "scan.pdf"
    pdf = pymupdf.open()
    pdf.new_page().draw_rect(pymupdf.Rect(50, 50, 200, 200), color=(0, 0, 0), fill=(0.5, 0.5, 0.5))
    pdf.save(path)
    _assert_load_error(path, "no extractable text (nothing to read)")


@pytest.mark.parametrize("name", ["empty.txt", "empty.pdf", "empty.md", "empty.docx"])
def test_empty_file(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"")
    _assert_load_error(path, "empty file")


def test_whitespace_only_markdown_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "blank.md"
    path.write_text("  \n\n\t\n", encoding="utf-8")
    _assert_load_error(path, "empty file")


@pytest.mark.parametrize("name", ["latin1.txt", "latin1.md", "latin1.html"])
def test_non_utf8_text(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes("Café au lait".encode("latin-1"))
    _assert_load_error(path, "not UTF-8 text (invalid byte 0xe9 at offset 3)")


def test_utf8_bom_is_accepted_and_offsets_count_it(tmp_path: Path) -> None:
    good = tmp_path / "bom.txt"
    good.write_bytes(b"\xef\xbb\xbfCaf\xc3\xa9")
    assert load_file(good).markdown == "Café"
    bad = tmp_path / "bom-bad.txt"
    bad.write_bytes(b"\xef\xbb\xbfab\xff")
    _assert_load_error(bad, "invalid byte 0xff at offset 5")


def test_text_named_pdf(tmp_path: Path) -> None:
    path = tmp_path / "notes.pdf"
    path.write_text("just some notes\n", encoding="utf-8")
    _assert_load_error(path, "not a PDF (it looks like text)")


def test_text_named_docx(tmp_path: Path) -> None:
    path = tmp_path / "notes.docx"
    path.write_text("just some notes\n", encoding="utf-8")
    _assert_load_error(path, "not a Word .docx file")


def test_zip_that_is_not_a_word_file(tmp_path: Path) -> None:
    import zipfile

    path = tmp_path / "archive.docx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("readme.txt", "not word")
    _assert_load_error(path, "not a Word .docx file")


def test_unsupported_suffix(tmp_path: Path) -> None:
    path = tmp_path / "data.xyz"
    path.write_text("whatever", encoding="utf-8")
    message = _assert_load_error(path, "unsupported file type '.xyz'", UnsupportedFile)
    assert message == f"{path}: unsupported file type '.xyz'"


def test_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "folder.txt"
    path.mkdir()
    _assert_load_error(path, "cannot read file")


def test_missing_file(tmp_path: Path) -> None:
    _assert_load_error(tmp_path / "gone.md", "no such file or directory")


# --- good inputs -------------------------------------------------------------------------


def test_supported_suffixes() -> None:
    expected = {".pdf", ".md", ".markdown", ".txt", ".html", ".htm", ".docx", ".csv", ".tsv",
                ".xlsx"}
    assert isinstance(SUPPORTED_SUFFIXES, frozenset)
    assert set(SUPPORTED_SUFFIXES) == expected


@pytest.mark.parametrize("name", ["notes.md", "notes.markdown", "notes.txt", "NOTES.MD"])
def test_markdown_and_text_round_trip(tmp_path: Path, name: str) -> None:
    text = "# Notes\n\nSome *text* with ünïcode.\n\n- a\n- b\n"
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    doc = load_file(path)
    assert doc.markdown == text
    assert doc.page_spans == []
    assert doc.page_count == 0
    assert doc.path == str(path)


def test_html_becomes_markdown(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text(
        "<html><head><title>The  Page</title><style>.x { color: red }</style>"
        "<script>var secretToken = 1;</script></head><body>"
        "<h1>Main heading</h1><p>Some <b>bold</b> text.</p>"
        "<script>alert('inline script')</script>"
        "<h2>Second heading</h2><ul><li>one</li><li>two</li></ul></body></html>",
        encoding="utf-8",
    )
    doc = load_file(path)
    assert doc.title == "The Page"
    assert "# Main heading" in doc.markdown.splitlines()
    assert "## Second heading" in doc.markdown.splitlines()
    assert "**bold**" in doc.markdown
    for absent in ("secretToken", "inline script", "color: red", "<"):
        assert absent not in doc.markdown
    assert doc.page_spans == []


def test_htm_without_title_uses_stem(tmp_path: Path) -> None:
    path = tmp_path / "fragment.htm"
    path.write_text("<h3>Deep</h3><p>Body</p>", encoding="utf-8")
    doc = load_file(path)
    assert doc.title == "fragment"
    assert doc.markdown == "### Deep\n\nBody"


def test_html_without_text(tmp_path: Path) -> None:
    path = tmp_path / "scripts.html"
    path.write_text("<html><script>only()</script></html>", encoding="utf-8")
    _assert_load_error(path, "no text")


def test_docx_headings_lists_and_tables(tmp_path: Path) -> None:
    path = tmp_path / "report.docx"
    document = docx.Document()
    document.add_heading("Quarterly Report", level=0)
    document.add_heading("Results", level=1)
    document.add_paragraph("Revenue grew.")
    document.add_paragraph("first point", style="List Bullet")
    document.add_paragraph("second point", style="List Bullet")
    document.add_heading("Details", level=2)
    document.add_heading("Fine print", level=3)
    table = document.add_table(rows=3, cols=2)
    for row, cells in enumerate([("Region", "Sales"), ("North", "10"), ("South", "a|b")]):
        for col, text in enumerate(cells):
            table.cell(row, col).text = text
    document.add_paragraph("After the table.")
    document.save(path)

    doc = load_file(path)
    lines = doc.markdown.splitlines()
    for heading in ("# Quarterly Report", "# Results", "## Details", "### Fine print"):
        assert heading in lines
    assert "- first point\n- second point" in doc.markdown
    assert "| Region | Sales |\n| --- | --- |\n| North | 10 |\n| South | a\\|b |" in doc.markdown
    assert doc.markdown.index("Fine print") < doc.markdown.index("Region")
    assert doc.markdown.index("Region") < doc.markdown.index("After the table.")
    assert doc.page_spans == []
    assert doc.title == "report"


def test_empty_docx(tmp_path: Path) -> None:
    path = tmp_path / "blank.docx"
    docx.Document().save(path)
    _assert_load_error(path, "no text")


# --- iter_files --------------------------------------------------------------------------


def test_iter_files_walks_sorted_and_skips_hidden(tmp_path: Path) -> None:
    for rel in [
        "b.txt",
        "c.xyz",
        "a/z.md",
        "a/.hidden.md",
        "a/sub/y.pdf",
        ".git/config",
        ".cache/x.md",
    ]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x", encoding="utf-8")
    found = [p.relative_to(tmp_path).as_posix() for p in iter_files([tmp_path])]
    assert found == ["a/sub/y.pdf", "a/z.md", "b.txt", "c.xyz"]


def test_iter_files_passes_named_files_through_once(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    inner = tmp_path / "d" / "one.md"
    inner.write_text("x", encoding="utf-8")
    hidden = tmp_path / ".named.txt"
    hidden.write_text("x", encoding="utf-8")
    assert list(iter_files([hidden, tmp_path / "d", inner])) == [hidden, inner]


def test_iter_files_missing_path(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(LoadError, match="no such file or directory") as caught:
        list(iter_files([missing]))
    assert str(missing) in str(caught.value)


def test_pdf_conversion_reports_pages_and_converts_as_one_call_would() -> None:
    """Pages are converted a few at a time (for progress) with the whole document's headers."""
    import pymupdf4llm

    from archivist.documents.pdf import PAGE_STEP

    path = _real_pdf("R-data.pdf")
    seen: list[tuple[int, int]] = []
    loaded = load_file(path, on_pages=lambda done, total: seen.append((done, total)))
    with pymupdf.open(path) as pdf:
        # the page count comes first (0 converted), then every PAGE_STEP pages
        assert {total for _, total in seen} == {pdf.page_count}, seen
        done = [d for d, _ in seen]
        assert done == sorted(done) and done[0] == 0 and done[-1] == pdf.page_count, seen
        assert len(done) == 1 + -(-pdf.page_count // PAGE_STEP), seen
        pymupdf4llm.use_layout(False)
        whole = pymupdf4llm.to_markdown(pdf, page_chunks=True, show_progress=False)
    from archivist.documents.pdf import _to_page_chunks

    with pymupdf.open(path) as pdf:
        stepwise = _to_page_chunks(path, pdf, list(range(pdf.page_count)), lambda _n: None)
    assert [c["text"] for c in stepwise] == [c["text"] for c in whole]
    assert loaded.page_count == len(whole)
