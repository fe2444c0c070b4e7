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
             "日本.md", "中文.md", "CAFÉ.md", "café.md", "notes.md", "notes.MD", "report.md",
             "report.md ", " report.md"]
    stored = [safe_name(n) for n in names]
    assert len(set(stored)) == len(names), stored


def test_unicode_uploads_stay_apart_and_unchanged_files_are_removed(keyed_server) -> None:
    import httpx
    from tests.security.attack import KEYS

    def upload(name: str, text: str) -> dict:
        response = httpx.post(
            f"{keyed_server.url}/v1/documents", params={"wait": "true"}, timeout=300,
            headers={"Authorization": f"Bearer {KEYS['bob']}"},
            files=[("files", (name, text.encode(), "text/markdown"))])
        assert response.status_code == 200, response.text
        return dict(response.json()["results"][0])

    japan = upload("日本.md", "# 日本\n\nThe Japan notes mention Mount Fuji.")
    china = upload("中文.md", "# 中文\n\nThe Chinese notes mention the Yangtze.")
    assert japan["outcome"] == china["outcome"] == "added"
    assert (japan["file"], china["file"]) == ("日本.md", "中文.md")
    listed = httpx.get(f"{keyed_server.url}/v1/documents", timeout=60,
                       headers={"Authorization": f"Bearer {KEYS['bob']}"}).json()["documents"]
    assert {"日本.md", "中文.md"} <= {d["name"] for d in listed}
    copy = upload("copy of japan.md", "# 日本\n\nThe Japan notes mention Mount Fuji.")
    assert copy["outcome"] == "unchanged"
    stored = {p.name for p in (keyed_server.data_dir / "uploads").rglob("*") if p.is_file()}
    assert {"日本.md", "中文.md"} <= stored
    assert "copy of japan.md" not in stored


def test_names_differing_in_case_or_spaces_stay_apart(keyed_server) -> None:
    import httpx
    from tests.security.attack import KEYS

    texts = {"notes.md": "The lower-case notes mention the walnut tree.",
             "notes.MD": "The upper-case notes mention the chestnut tree.",
             "report.md": "The report covers the spring harvest.",
             "report.md ": "The spaced report covers the autumn frost."}
    stored: dict[str, str] = {}
    for name, text in texts.items():
        response = httpx.post(
            f"{keyed_server.url}/v1/documents", params={"wait": "true"}, timeout=300,
            headers={"Authorization": f"Bearer {KEYS['alice']}"},
            files=[("files", (name, f"# {name}\n\n{text}".encode(), "text/markdown"))])
        assert response.status_code == 200, response.text
        result = response.json()["results"][0]
        assert result["outcome"] == "added", (name, result)  # never "replaced"
        stored[name] = result["document_id"]
    assert len(set(stored.values())) == 4
    listed = httpx.get(f"{keyed_server.url}/v1/documents", timeout=60,
                       headers={"Authorization": f"Bearer {KEYS['alice']}"}).json()["documents"]
    ids = {d["document_id"] for d in listed}
    assert set(stored.values()) <= ids
    names = {d["document_id"]: d["name"] for d in listed}
    assert names[stored["notes.MD"]] == "notes.MD" and names[stored["notes.md"]] == "notes.md"
    assert names[stored["report.md"]] == "report.md"
    assert names[stored["report.md "]].startswith("report-")  # changed: it gets a digest
