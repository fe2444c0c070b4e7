"""Inline payloads (data URIs, SVG) are dropped before chunking: no base64 in the index."""

from __future__ import annotations

import base64
import os
from pathlib import Path

from archivist.application import Application


def test_a_data_uri_is_dropped_and_the_text_kept(library: Application, tmp_path: Path) -> None:
    payload = base64.b64encode(os.urandom(3_000_000)).decode()  # 4 MB of base64
    (tmp_path / "page.html").write_text(
        "<html><body><h1>Boiler notes</h1><p>The relief valve opens at 120 kPa.</p>"
        f'<img alt="gauge" src="data:image/png;base64,{payload}">'
        f'<a href="data:text/plain;base64,{payload[:5000]}">raw</a>'
        "<svg><text>svg label</text></svg></body></html>")
    (tmp_path / "notes.md").write_text(
        f"# Notes\n\nThe drum is checked daily.\n\n![plot](data:image/png;base64,{payload})\n")
    report = library.ingest.files([tmp_path])
    assert report.counts["added"] == 2, report
    hits = library.searcher.search("relief valve drum checked", k=20)
    texts = " ".join(h.text for h in hits)
    assert "120 kPa" in texts and "checked daily" in texts
    assert payload[:40] not in texts and "base64" not in texts
    total = sum(d.child_count for d in library.store.catalog.documents(
        library.settings.collection))
    assert total <= 4  # before: about 10,000 chunks of base64
