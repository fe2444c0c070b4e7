"""A page render is bounded: a huge page is scaled down, renders are cached and a few at a
time, and what cannot be rendered is a 4xx. A real ``archivist serve``, real PDFs."""

from __future__ import annotations

import struct
import threading
import time
from pathlib import Path

import httpx
from tests.security.attack import Server, archivist_serve, wait_healthy


def huge_page_pdf(path: Path, side_pt: float) -> Path:
    """A tiny PDF (about 1 KB) whose one page is ``side_pt`` points square."""
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=(side_pt, side_pt))
    pdf.setFont("Helvetica", 48)
    pdf.drawString(100, side_pt - 200, "A very large page about greenhouse pumps.")
    pdf.showPage()
    pdf.save()
    return path


def peak_rss_mb(server: Server) -> float:
    """The server process's peak resident memory so far."""
    status = Path(f"/proc/{server.process.pid}/status").read_text()
    return int(status.split("VmHWM:")[1].split()[0]) / 1024


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def upload(server: Server, path: Path) -> str:
    """Ingest ``path`` through the API; its document id."""
    with path.open("rb") as handle:
        response = httpx.post(f"{server.url}/v1/documents", params={"wait": "true"},
                              files=[("files", (path.name, handle, "application/pdf"))],
                              timeout=300)
    assert response.status_code == 200, response.text
    result = response.json()["results"][0]
    assert result["outcome"] == "added", result
    return str(result["document_id"])


def test_a_huge_page_is_scaled_down_bounded_and_cached(tmp_path: Path, figure) -> None:
    from archivist.documents.pages import MAX_PAGE_PIXELS

    with archivist_serve(tmp_path / "srv") as server:
        wait_healthy(server.url)
        big = upload(server, huge_page_pdf(tmp_path / "big.pdf", 10_000))
        bigger = upload(server, huge_page_pdf(tmp_path / "bigger.pdf", 14_400))
        peak_before = peak_rss_mb(server)
        started = time.perf_counter()
        first = httpx.get(f"{server.url}/v1/documents/{big}/pages/1", timeout=120)
        seconds = time.perf_counter() - started
        assert first.status_code == 200, first.text
        width, height = png_size(first.content)
        assert width * height <= MAX_PAGE_PIXELS and width > 1000
        grown = peak_rss_mb(server) - peak_before
        assert grown < 300, grown  # was +1,300 MB per request

        started = time.perf_counter()
        again = httpx.get(f"{server.url}/v1/documents/{big}/pages/1", timeout=120)
        cached_seconds = time.perf_counter() - started
        assert again.content == first.content and again.headers["X-Render-Cache"] == "hit"
        assert first.headers["X-Render-Cache"] == "miss"

        statuses: list[int] = []

        def fetch(highlight: str) -> None:
            response = httpx.get(f"{server.url}/v1/documents/{bigger}/pages/1",
                                 params={"highlight": highlight}, timeout=300)
            statuses.append(response.status_code)

        threads = [threading.Thread(target=fetch, args=(f"greenhouse pumps {n}",))
                   for n in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert statuses == [200, 200, 200]  # was 500 internal_error (FzErrorLimit)
        grown_three = peak_rss_mb(server) - peak_before
        assert grown_three < 400, grown_three

        stored = next(server.data_dir.rglob("big.pdf"))
        stored.write_bytes(b"%PDF-1.4\n" + b"\x00garbage" * 100)
        broken = httpx.get(f"{server.url}/v1/documents/{big}/pages/1",
                           params={"highlight": "x" * 20}, timeout=60)
        assert broken.status_code == 422, broken.text
        assert broken.json()["error"]["code"] == "unreadable"
    figure(f"10,000 pt page: {seconds:.2f} s, +{grown:.0f} MB peak RSS, {width}x{height} px; "
           f"cached {cached_seconds * 1000:.0f} ms; 3 at once of 14,400 pt: all 200, "
           f"+{grown_three:.0f} MB")
