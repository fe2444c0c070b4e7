"""Hostile Word files: a real zip bomb (a small .docx whose XML inflates to gigabytes) and
an archive with too many entries."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

MB = 1024 * 1024


def _seed_docx() -> zipfile.ZipFile:
    import docx

    document = docx.Document()
    document.add_paragraph("seed")
    buffer = io.BytesIO()
    document.save(buffer)
    return zipfile.ZipFile(io.BytesIO(buffer.getvalue()))


def docx_bomb(path: Path, inflated_mb: int) -> Path:
    """A valid .docx whose document.xml holds ``inflated_mb`` MB of one repeated paragraph."""
    seed = _seed_docx()
    paragraph = "<w:p><w:r><w:t>" + "A" * 2000 + "</w:t></w:r></w:p>"
    block = (paragraph * 100).encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in seed.infolist():
            data = seed.read(info.filename)
            if info.filename != "word/document.xml":
                out.writestr(info, data)
                continue
            head, _, tail = data.decode().partition("<w:body>")
            with out.open("word/document.xml", "w", force_zip64=True) as member:
                member.write((head + "<w:body>").encode())
                for _ in range(inflated_mb * MB // len(block)):
                    member.write(block)
                member.write(tail.encode())
    return path


def docx_with_entries(path: Path, extra: int) -> Path:
    """A valid .docx padded with ``extra`` empty entries."""
    seed = _seed_docx()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in seed.infolist():
            out.writestr(info, seed.read(info.filename))
        for n in range(extra):
            out.writestr(f"customXml/pad{n}.xml", b"")
    return path
