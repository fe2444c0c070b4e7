"""Hostile Word files: a real zip bomb (a small .docx whose XML inflates to gigabytes) and
an archive with too many entries."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
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


def _rewrite_main(path: Path, part: str, body_chunks: Iterator[bytes]) -> Path:
    """The seed .docx with its main part at ``part``, its body made of ``body_chunks``."""
    seed = _seed_docx()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in seed.infolist():
            data = seed.read(info.filename)
            if info.filename in ("[Content_Types].xml", "_rels/.rels"):
                out.writestr(info.filename, data.replace(b"/word/document.xml", f"/{part}".encode())
                             .replace(b"word/document.xml", part.encode()))
                continue
            if info.filename == "word/_rels/document.xml.rels":
                out.writestr(f"word/_rels/{part.rsplit('/', 1)[1]}.rels", data)
                continue
            if info.filename != "word/document.xml":
                out.writestr(info, data)
                continue
            head, _, tail = data.decode().partition("<w:body>")
            with out.open(part, "w", force_zip64=True) as member:
                member.write((head + "<w:body>").encode())
                for chunk in body_chunks:
                    member.write(chunk)
                member.write(tail.encode())
    return path


def docx_renamed_bomb(path: Path, inflated_mb: int) -> Path:
    """A .docx whose main part is ``word/document.dat`` (declared in ``[Content_Types].xml``
    and ``_rels/.rels``), holding ``inflated_mb`` MB of empty paragraphs."""
    block = b"<w:p/>" * (MB // 6)
    return _rewrite_main(path, "word/document.dat", (block for _ in range(inflated_mb)))


def docx_dense(path: Path, inflated_mb: int) -> Path:
    """A valid .docx within every byte limit whose document.xml is ``inflated_mb`` MB of
    empty ``<w:p/>`` elements (about 175,000 elements per MB)."""
    block = b"<w:p/>" * (MB // 6)
    return _rewrite_main(path, "word/document.xml", (block for _ in range(inflated_mb)))
