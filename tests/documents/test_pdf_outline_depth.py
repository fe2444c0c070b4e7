"""A PDF whose outline nests 5,000 levels deep is ingested without its outline."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from archivist.documents.pdf import load_pdf


def test_an_outline_nested_5000_deep_costs_the_outline_not_the_text(tmp_path: Path) -> None:
    doc = pymupdf.open()
    doc.new_page().insert_text((50, 80), "The relief valve of boiler 7 opens at 120 kPa.")
    doc.set_toc([[level, f"Part {level}", 1] for level in range(1, 5_001)])
    path = tmp_path / "deep-outline.pdf"
    path.write_bytes(doc.tobytes())
    loaded = load_pdf(path, path.read_bytes(), ocr="off")
    assert "relief valve of boiler 7" in loaded.markdown
    assert "Part 4999" not in loaded.markdown
