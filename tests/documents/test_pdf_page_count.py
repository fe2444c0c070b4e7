"""Long PDFs: a step of pages costs the same in a long file as in a short one, and a file
over the page limit is refused before it converts, with a reason naming it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pymupdf
import pytest

from archivist.application import Application
from archivist.documents.pdf import PAGE_STEP, load_pdf
from archivist.types import LoadError

STEPS = 12  # steps of PAGE_STEP pages counted in each file


WORDS = ["pump", "seal", "valve", "gauge", "boiler", "flange", "rotor", "filter", "nozzle", "drum"]


def many_pages(count: int) -> bytes:
    """A valid PDF of ``count`` small pages, each with a sentence of its own (built in ms)."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    for i in range(count):
        words = " ".join(WORDS[(i // 10**k) % 10] for k in range(4))
        text = b"BT /F1 10 Tf 20 60 Td (Page %d: the %s are checked.) Tj ET" % (
            i, words.encode())
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(text), text))
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents "
                       b"%d 0 R /Resources << /Font << /F1 3 0 R >> >> >>" % len(objects))
    kids = b" ".join(b"%d 0 R" % (5 + 2 * i) for i in range(count))
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, count)
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    return bytes(out)


class _Enough(Exception):
    """Stops a conversion once the steps to count are done."""


def _whole_file_reads_per_step(path: Path, monkeypatch: pytest.MonkeyPatch) -> float:
    """Pages checked for annotations, and outline reads, per step of ``PAGE_STEP`` pages.

    Counted over ``STEPS`` steps after the first, so what is done once per file is left out.
    """
    reads = {"annots": 0, "outline": 0}
    page_annots, get_toc = pymupdf.Document.page_annot_xrefs, pymupdf.Document.get_toc

    def counted_annots(doc: Any, number: int) -> Any:
        reads["annots"] += 1
        return page_annots(doc, number)

    def counted_toc(doc: Any, simple: bool = True) -> Any:
        reads["outline"] += 1
        return get_toc(doc, simple)

    monkeypatch.setattr(pymupdf.Document, "page_annot_xrefs", counted_annots)
    monkeypatch.setattr(pymupdf.Document, "get_toc", counted_toc)
    marks: list[int] = []

    def on_pages(done: int, _total: int) -> None:
        if done >= PAGE_STEP:
            marks.append(reads["annots"] + reads["outline"])
        if len(marks) > STEPS:
            raise _Enough

    with pytest.raises(LoadError):  # the conversion stopped by _Enough
        load_pdf(path, path.read_bytes(), ocr="off", on_pages=on_pages)
    monkeypatch.undo()
    return (marks[-1] - marks[0]) / STEPS


def test_a_step_of_pages_costs_the_same_in_a_long_file(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    short, long = tmp_path / "short.pdf", tmp_path / "long.pdf"
    short.write_bytes(many_pages(200))
    long.write_bytes(many_pages(4_000))
    base = _whole_file_reads_per_step(short, monkeypatch)
    step = _whole_file_reads_per_step(long, monkeypatch)
    # a step that checked every page of the file for annotations would read 4,000 here
    assert step == base, (step, base)
    assert step < PAGE_STEP, step


def test_a_pdf_over_the_page_limit_is_refused_by_name(library: Application,
                                                      tmp_path: Path) -> None:
    library.settings.index.max_pdf_pages = 50
    library.ingest.max_pdf_pages = 50
    (tmp_path / "long-manual.pdf").write_bytes(many_pages(60))
    (tmp_path / "short-manual.pdf").write_bytes(many_pages(40))
    report = library.ingest.files([tmp_path])
    outcomes = {Path(r.path).name: (r.outcome.value, r.reason) for r in report.results}
    assert outcomes["short-manual.pdf"][0] == "added"
    assert outcomes["long-manual.pdf"] == (
        "failed", "long-manual.pdf: 60 pages, more than the 50 a PDF may have "
        "(index.max_pdf_pages)")
