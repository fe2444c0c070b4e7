"""Citations that open, feedback, export and rename, on a real uvicorn server with two keys.

One key never sees another's conversation turns, feedback or exports (404, as if absent).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pymupdf
import pytest
from tests.app.server_helpers import served
from typer.testing import CliRunner

from archivist.app.api.app import create_app
from archivist.app.api.auth import KeyChecker
from archivist.app.cli.main import app as cli_app
from archivist.application import Application
from archivist.evaluation.qa_datasets import load_qa_dataset

ALICE = {"Authorization": "Bearer key-alice"}
BOB = {"Authorization": "Bearer key-bob"}
QUESTION = "How long does the Zephyr warranty last?"


@pytest.fixture(scope="module")
def base_url(server_library: Application) -> Iterator[str]:
    """The server library behind a real server with two API keys."""
    keys = KeyChecker(["key-alice", "key-bob"])
    with served(create_app(server_library, ui=False, keys=keys)) as url:
        yield url


@pytest.fixture(scope="module")
def http(base_url: str) -> Iterator[httpx.Client]:
    """An HTTP client of that server."""
    with httpx.Client(base_url=base_url, timeout=60) as client:
        yield client


@pytest.fixture(scope="module")
def answered(http: httpx.Client) -> dict[str, object]:
    """Alice's conversation with one answered question."""
    thread = http.post("/v1/conversations", headers=ALICE).json()["thread_id"]
    reply = http.post(f"/v1/conversations/{thread}/messages", json={"message": QUESTION},
                      headers=ALICE)
    assert reply.status_code == 200, reply.text
    return {"thread": thread, "answer": reply.json()}


def yellow_pixels(png: bytes) -> int:
    """How many pixels of a PNG are highlighter yellow."""
    pixmap = pymupdf.Pixmap(png)
    samples, n = pixmap.samples, pixmap.n
    return sum(
        1 for i in range(0, len(samples), n)
        if samples[i] > 220 and samples[i + 1] > 180 and samples[i + 2] < 120
    )


def test_sources_name_the_section_and_passage(answered: dict[str, object]) -> None:
    answer = answered["answer"]
    assert isinstance(answer, dict)
    source = answer["sources"][0]
    assert source["document_name"] == "zephyr-manual.pdf"
    assert source["pages"] == "p. 3"
    assert source["parent_id"].startswith(source["document_id"])
    assert "five years" in source["passage"]


def test_turns_keep_the_steps_the_answer_showed(
    http: httpx.Client, answered: dict[str, object]
) -> None:
    answer = answered["answer"]
    assert isinstance(answer, dict)
    (turn,) = http.get(f"/v1/conversations/{answered['thread']}/turns",
                       headers=ALICE).json()["turns"]
    assert answer["steps"] and turn["steps"] == answer["steps"]
    assert turn["stats"] == answer["stats"] and turn["stats"]["llm_calls"] > 0


def test_passage_and_highlighted_page(http: httpx.Client, answered: dict[str, object]) -> None:
    answer = answered["answer"]
    assert isinstance(answer, dict)
    source = answer["sources"][0]
    doc = source["document_id"]
    passage = http.get(f"/v1/documents/{doc}/passages/{source['parent_id']}", headers=BOB)
    assert passage.status_code == 200, passage.text
    body = passage.json()
    assert "The Zephyr warranty lasts five years" in body["text"]
    assert body["document_name"] == "zephyr-manual.pdf"
    assert body["page_start"] is not None

    plain = http.get(f"/v1/documents/{doc}/pages/3", headers=ALICE)
    assert plain.status_code == 200 and plain.headers["content-type"] == "image/png"
    assert plain.headers["x-page-count"] == "3"
    marked = http.get(f"/v1/documents/{doc}/pages/3", headers=ALICE,
                      params={"highlight": source["passage"]})
    assert marked.status_code == 200
    assert int(marked.headers["x-highlights"]) >= 1
    assert yellow_pixels(plain.content) == 0
    assert yellow_pixels(marked.content) > 500

    assert http.get(f"/v1/documents/{doc}/pages/9", headers=ALICE).status_code == 404
    wrong = http.get(f"/v1/documents/{doc}/passages/0000000000000000-p0", headers=ALICE)
    assert wrong.status_code == 404 and "zephyr-manual.pdf" in wrong.json()["error"]["message"]
    docs = http.get("/v1/documents", headers=ALICE).json()["documents"]
    orchard = next(d for d in docs if d["name"] == "orchard.md")["document_id"]
    not_pdf = http.get(f"/v1/documents/{orchard}/pages/1", headers=ALICE)
    assert not_pdf.status_code == 422 and "orchard.md" in not_pdf.json()["error"]["message"]
    assert http.get(f"/v1/documents/{doc}/pages/1").status_code == 401


def test_turns_feedback_export_rename(
    http: httpx.Client, answered: dict[str, object], tmp_path: Path, server_library: Application
) -> None:
    thread = answered["thread"]
    turns = http.get(f"/v1/conversations/{thread}/turns", headers=ALICE).json()["turns"]
    assert [t["question"] for t in turns] == [QUESTION]
    assert turns[0]["sources"][0]["pages"] == "p. 3"
    titles = {c["thread_id"]: c["title"]
              for c in http.get("/v1/conversations", headers=ALICE).json()["conversations"]}
    assert titles[thread] == "How long does the Zephyr warranty last"

    rated = http.post(f"/v1/conversations/{thread}/feedback", headers=ALICE,
                      json={"rating": "down", "comment": "Should say which page."})
    assert rated.status_code == 201, rated.text
    stored = rated.json()
    assert stored["turn"] == 1 and stored["question"] == QUESTION
    assert "five years" in stored["answer"]
    assert stored["sources"][0]["document_name"] == "zephyr-manual.pdf"
    assert stored["settings"]["llm.model"] == "scripted"
    assert stored["settings"]["collection"] == "default"
    missing = http.post(f"/v1/conversations/{thread}/feedback", headers=ALICE,
                        json={"rating": "up", "turn": 7})
    assert missing.status_code == 404

    markdown = http.get(f"/v1/conversations/{thread}/export", headers=ALICE)
    assert markdown.status_code == 200
    assert markdown.headers["content-type"].startswith("text/markdown")
    assert QUESTION in markdown.text and "five years" in markdown.text
    assert "zephyr-manual.pdf, p. 3" in markdown.text and "Should say which page." in markdown.text
    exported = http.get(f"/v1/conversations/{thread}/export", params={"format": "json"},
                        headers=ALICE).json()
    assert exported["turns"][0]["feedback"] == {"rating": "down",
                                                "comment": "Should say which page."}

    renamed = http.patch(f"/v1/conversations/{thread}", json={"title": "Warranty"},
                         headers=ALICE)
    assert renamed.status_code == 200 and renamed.json()["title"] == "Warranty"

    for method, path, body in [
        ("GET", f"/v1/conversations/{thread}/turns", None),
        ("POST", f"/v1/conversations/{thread}/feedback", {"rating": "up"}),
        ("GET", f"/v1/conversations/{thread}/export", None),
        ("GET", f"/v1/conversations/{thread}/export?format=json", None),
        ("PATCH", f"/v1/conversations/{thread}", {"title": "mine now"}),
    ]:
        reply = http.request(method, path, json=body, headers=BOB)
        assert reply.status_code == 404, (method, path, reply.text)
    assert http.get(f"/v1/conversations/{thread}/export").status_code == 401
    exported = http.get(f"/v1/conversations/{thread}/export", params={"format": "json"},
                        headers=ALICE).json()
    assert exported["title"] == "Warranty"
    assert exported["turns"][0]["feedback"]["rating"] == "down"  # Bob's rating was refused

    out = tmp_path / "regressions.json"
    result = CliRunner().invoke(cli_app, [
        "feedback", "export", "--out", str(out),
        "--data-dir", str(server_library.settings.data_dir)])
    assert result.exit_code == 0, result.output
    items = load_qa_dataset(out)
    raw = {i["question"]: i for i in json.loads(out.read_text())}
    assert QUESTION in [i.question for i in items]
    case = raw[QUESTION]
    assert case["regression"] is True and case["rating"] == "down"
    assert case["comment"] == "Should say which page." and case["reference"] == []
    assert "five years" in case["rejected_answer"]


def test_delete_forgets_turns(http: httpx.Client) -> None:
    thread = http.post("/v1/conversations", headers=ALICE).json()["thread_id"]
    http.post(f"/v1/conversations/{thread}/messages", json={"message": QUESTION},
              headers=ALICE)
    assert http.delete(f"/v1/conversations/{thread}", headers=BOB).status_code == 404
    assert http.delete(f"/v1/conversations/{thread}", headers=ALICE).status_code == 204
    assert http.get(f"/v1/conversations/{thread}/turns", headers=ALICE).status_code == 404
