"""An answer quotes a document's ``<`` as ``<``: the quoting that keeps document text inert
inside prompts (``<`` before something tag-like becomes ``&lt;``) never reaches the reader.
A real ``archivist serve`` with the scripted model, which answers by quoting the passage."""

from __future__ import annotations

from pathlib import Path

import httpx
from tests.security.attack import archivist_serve, wait_healthy

NOTE = ("# Keyboard\n\nTo run the macro, press <Ctrl> and <Enter> together; the <b> tag "
        "in the template makes the label bold, and x < 5 holds.\n")


def test_a_quoted_angle_bracket_reads_as_itself(tmp_path: Path) -> None:
    with archivist_serve(tmp_path / "srv") as server:
        wait_healthy(server.url)
        http = httpx.Client(base_url=server.url, timeout=300)
        upload = http.post("/v1/documents", params={"wait": "true"},
                           files=[("files", ("keyboard.md", NOTE.encode(), "text/markdown"))])
        assert upload.status_code == 200, upload.text
        model = http.get("/v1/models").json()["data"][0]["id"]
        reply = http.post("/v1/chat/completions", json={"model": model, "messages": [
            {"role": "user", "content": "Which keys run the macro together?"}]})
        assert reply.status_code == 200, reply.text
        answer = reply.json()["choices"][0]["message"]["content"]
    assert "<Ctrl>" in answer and "<Enter>" in answer, answer  # was &lt;Ctrl> and &lt;Enter>
    assert "&lt;" not in answer, answer
