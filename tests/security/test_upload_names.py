"""Item 5: upload names keep Unicode, stay safe, and two different names never collide."""

from __future__ import annotations

import unicodedata

import pytest

from archivist.app.upload_names import MAX_NAME_BYTES, safe_name


def test_unicode_names_are_kept() -> None:
    assert safe_name("日本.md") == "日本.md"
    assert safe_name("中文.md") == "中文.md"
    assert safe_name("Überblick – Kapitel 2.PDF").startswith("Überblick _ Kapitel 2")
    assert safe_name("notes (draft).txt") == "notes (draft).txt"


def test_names_are_nfc_normalised() -> None:
    decomposed = unicodedata.normalize("NFD", "café.md")
    assert decomposed != "café.md"
    assert safe_name(decomposed) == "café.md"


@pytest.mark.parametrize("hostile", [
    "../../etc/passwd.md", "..\\..\\boot.ini.txt", ".hidden.md", "a\x00b.md", "evil\u202egnp.md",
    "semi;colon|pipe`$(x).md", "   ", "", None, "x" * 400 + ".md", "日" * 200 + ".md",
])
def test_hostile_names_become_safe(hostile: str | None) -> None:
    name = safe_name(hostile)
    assert name and "/" not in name and "\\" not in name and not name.startswith(".")
    assert all(unicodedata.category(ch)[0] != "C" for ch in name)
    assert len(name.encode()) <= MAX_NAME_BYTES
    assert safe_name(hostile) == name  # the same name again: the same stored file


def test_different_names_never_collide() -> None:
    names = ["a?.md", "a_.md", "a*.md", "a/b.md", "b.md", "x\u202e.md", "x.md", ".md", "md",
             "日本.md", "中文.md", "CAFÉ.md", "café.md"]
    stored = [safe_name(n) for n in names]
    assert len(set(stored)) == len(names), stored
