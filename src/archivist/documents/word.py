"""Word ``.docx`` to Markdown, with an archive that cannot exhaust memory or time.

A ``.docx`` is a ZIP archive of XML parts. Before python-docx parses anything, the archive
is checked against limits that hold whatever its parts are called: the number of entries,
the bytes it unpacks to, the bytes of XML (every part whose declared content type is XML,
or whose name says so, so a main part renamed ``word/document.dat`` counts too), and the
number of XML elements, counted by streaming each XML part through a small buffer (a
62 KB file can hold 40 MB of ``<w:p/>``, millions of elements that python-docx would turn
into gigabytes of objects). A refused file never reaches the parser, so nothing is held
after the refusal.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import io
import re
import zipfile
from pathlib import Path
from typing import Any

from archivist.types import LoadedDocument, LoadError

# The sizes are those the archive declares; Python's zipfile never inflates past them.
MAX_DOCX_ENTRIES = 5000
MAX_DOCX_UNPACKED_BYTES = 256 * 1024 * 1024  # everything, images included
MAX_DOCX_XML_BYTES = 48 * 1024 * 1024  # the XML parts, whatever they are called
MAX_DOCX_XML_ELEMENTS = 1_000_000  # about 250 MB once parsed; a 1,000-page report has less
MAX_DOCX_INDEX_BYTES = 1024 * 1024  # [Content_Types].xml, read to find the XML parts
_MB = 1024 * 1024
_SCAN_CHUNK = 1024 * 1024
_CONTENT_TYPES = "[Content_Types].xml"


def load_docx(path: Path, data: bytes) -> LoadedDocument:
    """The Word document in ``data`` as Markdown; ``LoadError`` (one line) when refused."""
    check_archive(path, data)
    try:
        return _convert(path, data)
    finally:
        _release_memory()


def _convert(path: Path, data: bytes) -> LoadedDocument:
    import docx
    from docx.table import Table

    try:
        document = docx.Document(io.BytesIO(data))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        reason = (
            "corrupt ZIP archive"
            if isinstance(exc, zipfile.BadZipFile)
            else "a ZIP archive without a Word document"
        )
        raise LoadError(f"{path}: not a Word .docx file ({reason})") from None
    except Exception as exc:
        raise LoadError(f"{path}: corrupt or unreadable .docx ({type(exc).__name__})") from None

    blocks: list[tuple[str, str]] = []  # (kind, markdown); kind is "list" or "block"
    try:
        for item in document.iter_inner_content():
            if isinstance(item, Table):
                table = _docx_table(item)
                if table:
                    blocks.append(("block", table))
            else:
                block = _docx_paragraph(item)
                if block:
                    blocks.append(block)
        title = (document.core_properties.title or "").strip()
    except Exception as exc:
        raise LoadError(f"{path}: corrupt or unreadable .docx ({type(exc).__name__})") from None
    if not blocks:
        raise LoadError(f"{path}: no text in the Word document")
    markdown = blocks[0][1]
    for (prev_kind, _), (kind, text) in zip(blocks, blocks[1:], strict=False):
        markdown += ("\n" if prev_kind == kind == "list" else "\n\n") + text
    return LoadedDocument(path=str(path), markdown=markdown, title=title or path.stem)


def check_archive(path: Path, data: bytes) -> None:
    """``LoadError`` for a .docx over any limit: entries, bytes, XML bytes, XML elements."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            entries = archive.infolist()
            _check_sizes(path, entries)
            xml_parts = [e for e in entries if _is_xml(e.filename, _content_types(path, archive))]
            xml = sum(e.file_size for e in xml_parts)
            if xml > MAX_DOCX_XML_BYTES:
                raise LoadError(f"{path}: refused, the .docx holds {xml / _MB:.0f} MB of XML "
                                f"(the limit is {MAX_DOCX_XML_BYTES // _MB} MB)")
            elements = 0
            for entry in xml_parts:
                elements += _count_elements(archive, entry, MAX_DOCX_XML_ELEMENTS - elements)
                if elements > MAX_DOCX_XML_ELEMENTS:
                    raise LoadError(
                        f"{path}: refused, the .docx holds more than {MAX_DOCX_XML_ELEMENTS:,} "
                        f"XML elements (the limit; passed in {entry.filename})")
    except (zipfile.BadZipFile, ValueError, OSError, EOFError):
        raise LoadError(f"{path}: not a Word .docx file (corrupt ZIP archive)") from None


def _check_sizes(path: Path, entries: list[zipfile.ZipInfo]) -> None:
    if len(entries) > MAX_DOCX_ENTRIES:
        raise LoadError(f"{path}: refused, the .docx archive holds {len(entries)} entries "
                        f"(the limit is {MAX_DOCX_ENTRIES})")
    unpacked = sum(entry.file_size for entry in entries)
    if unpacked > MAX_DOCX_UNPACKED_BYTES:
        raise LoadError(f"{path}: refused, the .docx unpacks to {unpacked / _MB:.0f} MB "
                        f"(the limit is {MAX_DOCX_UNPACKED_BYTES // _MB} MB)")


def _content_types(path: Path, archive: zipfile.ZipFile) -> dict[str, str]:
    """Declared content types: ``.ext`` for defaults, ``/part/name`` for overrides."""
    from lxml import etree

    try:
        info = archive.getinfo(_CONTENT_TYPES)
    except KeyError:
        return {}  # python-docx will say it is not a Word file
    if info.file_size > MAX_DOCX_INDEX_BYTES:
        raise LoadError(f"{path}: refused, its {_CONTENT_TYPES} is {info.file_size / _MB:.0f} "
                        f"MB (the limit is {MAX_DOCX_INDEX_BYTES // _MB} MB)")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    try:
        root = etree.fromstring(archive.read(info), parser)
    except etree.XMLSyntaxError:
        raise LoadError(f"{path}: not a Word .docx file (unreadable {_CONTENT_TYPES})") from None
    types: dict[str, str] = {}
    for element in root:
        tag = etree.QName(element).localname
        if tag == "Default":
            types["." + element.get("Extension", "").lower()] = element.get("ContentType", "")
        elif tag == "Override":
            types[element.get("PartName", "").lower()] = element.get("ContentType", "")
    return types


def _is_xml(name: str, types: dict[str, str]) -> bool:
    """Whether a part is XML: its name says so, or its declared type does, or none is declared."""
    lower = name.lower()
    if lower.endswith((".xml", ".rels")):
        return True
    declared = types.get("/" + lower) or types.get("." + lower.rsplit(".", 1)[-1], "")
    return not declared or declared.endswith("xml")


def _count_elements(archive: zipfile.ZipFile, entry: zipfile.ZipInfo, budget: int) -> int:
    """About how many elements a part holds (start tags; never fewer), streaming.

    Stops counting once past ``budget``. In well-formed XML a ``<`` opens a tag, a comment,
    a processing instruction or CDATA, so ``<`` minus ``</`` bounds the elements from above.
    """
    count = 0
    previous = b""
    with archive.open(entry) as stream:
        while chunk := stream.read(_SCAN_CHUNK):
            count += chunk.count(b"<") - chunk.count(b"</")
            if previous == b"<" and chunk[:1] == b"/":
                count -= 1
            previous = chunk[-1:]
            if count > budget:
                break
    return count


def _release_memory() -> None:
    """Give the freed parse trees back to the system (glibc keeps them otherwise)."""
    name = ctypes.util.find_library("c")
    if name is None:
        return
    trim = getattr(ctypes.CDLL(name), "malloc_trim", None)
    if trim is not None:
        trim(0)


def _docx_paragraph(paragraph: object) -> tuple[str, str] | None:
    from docx.text.paragraph import Paragraph

    assert isinstance(paragraph, Paragraph)
    text = " ".join(paragraph.text.split())
    if not text:
        return None
    style = (paragraph.style.name if paragraph.style is not None else "") or ""
    if style == "Title":
        return ("block", f"# {text}")
    if match := re.fullmatch(r"Heading ([1-9])", style):
        return ("block", "#" * min(int(match.group(1)), 6) + " " + text)
    p_pr = paragraph._p.pPr
    num_pr: Any = p_pr.numPr if p_pr is not None else None
    if style.startswith("List") or num_pr is not None:
        level = 0
        if num_pr is not None and num_pr.ilvl is not None and num_pr.ilvl.val is not None:
            level = int(num_pr.ilvl.val)
        return ("list", "  " * level + "- " + text)
    return ("block", text)


def _docx_table(table: object) -> str:
    from docx.table import Table

    assert isinstance(table, Table)
    rows = [
        [" ".join(cell.text.split()).replace("|", "\\|") for cell in row.cells]
        for row in table.rows
    ]
    rows = [row for row in rows if any(row)]
    if not rows:
        return ""
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * width]
    lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
    return "\n".join(lines)
