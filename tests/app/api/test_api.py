"""HTTP API against a real library and the scripted model: every endpoint, bad input, SSE."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests.app.server_helpers import CLARIFY_QUESTION, parse_sse


def _upload(client: TestClient, files: list[tuple[str, bytes]], **params: object
            ) -> tuple[int, dict]:
    response = client.post(
        "/v1/documents", params=params,
        files=[("files", (name, data, "application/octet-stream")) for name, data in files],
    )
    return response.status_code, response.json()


def test_health_is_open(client: TestClient, keyed_client: TestClient) -> None:
    assert client.get("/health").json()["status"] == "ok"
    response = keyed_client.get("/health")
    assert response.status_code == 200
    assert response.json()["auth"] is True


def test_list_documents(client: TestClient) -> None:
    body = client.get("/v1/documents").json()
    names = {d["name"]: d for d in body["documents"]}
    assert {"zephyr-manual.pdf", "orchard.md"} <= set(names)
    assert names["zephyr-manual.pdf"]["pages"] == 3


def test_upload_batch_with_a_bad_file_ingests_the_rest(
    client: TestClient, corpus: dict[str, Path]
) -> None:
    status, job = _upload(client, [
        ("notes.txt", b"The greenhouse door code is 4711. Visitors sign the blue book."),
        ("broken.pdf", corpus["broken"].read_bytes()),
        ("virus.exe", b"MZ\x90\x00"),
    ], wait="true")
    assert status == 200
    assert job["status"] == "done"
    outcomes = {r["file"]: r for r in job["results"]}
    assert outcomes["notes.txt"]["outcome"] == "added"
    assert outcomes["broken.pdf"]["outcome"] == "failed"
    assert "not a PDF" in outcomes["broken.pdf"]["reason"]
    assert outcomes["virus.exe"]["outcome"] == "skipped"
    assert "unsupported file type '.exe'" in outcomes["virus.exe"]["reason"]
    assert job["files_total"] == job["files_done"] == 3
    names = [d["name"] for d in client.get("/v1/documents").json()["documents"]]
    assert "notes.txt" in names and "broken.pdf" not in names
    hits = client.get("/v1/search", params={"q": "greenhouse door code"}).json()["hits"]
    assert hits[0]["document_name"] == "notes.txt"


def test_upload_job_progress_is_observable(client: TestClient) -> None:
    status, job = _upload(client, [("a-note.md", b"# Kiln\n\nThe kiln fires at 1240 degrees."),
                                   ("b-note.md", b"# Glaze\n\nThe celadon glaze is green.")])
    assert status == 202
    seen = []
    for _ in range(200):
        job = client.get(f"/v1/documents/jobs/{job['job_id']}").json()
        seen.append((job["status"], job["files_done"]))
        if job["status"] == "done":
            break
        time.sleep(0.05)
    assert job["status"] == "done", seen
    assert job["files_total"] == 2 and job["files_done"] == 2
    assert [r["outcome"] for r in job["results"]] == ["added", "added"]
    assert client.get("/v1/documents/jobs/nope").status_code == 404


def test_reupload_same_name_replaces(client: TestClient) -> None:
    _, first = _upload(client, [("version.md", b"# V\n\nThe release is called Aurora.")],
                       wait="true")
    _, second = _upload(client, [("version.md", b"# V\n\nThe release is called Borealis.")],
                        wait="true")
    assert first["results"][0]["outcome"] == "added"
    assert second["results"][0]["outcome"] == "replaced"
    names = [d["name"] for d in client.get("/v1/documents").json()["documents"]]
    assert names.count("version.md") == 1


def test_bad_uploads_are_4xx_json(client: TestClient, open_app: object) -> None:
    limit = client.app.state.application.settings.server.max_upload_mb  # type: ignore[attr-defined]
    big = b"x" * (limit * 1024 * 1024 + 200_000)
    response = client.post("/v1/documents", files=[("files", ("big.txt", big, "text/plain"))])
    assert response.status_code == 413
    assert "larger than" in response.json()["error"]["message"]
    status, body = _upload(client, [("a.exe", b"MZ"), ("b.zip", b"PK")])
    assert status == 415
    assert "a.exe" in body["error"]["message"]
    response = client.post("/v1/documents", data={"other": "x"})
    assert response.status_code == 422
    assert response.json()["error"]["type"] == "invalid_request"
    response = client.post("/v1/documents", content=b"garbage",
                           headers={"content-type": "multipart/form-data; boundary=zz"})
    assert 400 <= response.status_code < 500
    status, body = _upload(client, [("ok.md", b"# x\n\ny")], collection="bad name!")
    assert status == 422


def test_delete_document(client: TestClient) -> None:
    _, job = _upload(client, [("delete-me.md", b"# Temp\n\nThe temporary code is 99.")],
                     wait="true")
    document_id = job["results"][0]["document_id"]
    response = client.delete(f"/v1/documents/{document_id}")
    assert response.status_code == 200
    assert response.json()["name"] == "delete-me.md"
    names = [d["name"] for d in client.get("/v1/documents").json()["documents"]]
    assert "delete-me.md" not in names
    again = client.delete(f"/v1/documents/{document_id}")
    assert again.status_code == 404
    assert "no document matches" in again.json()["error"]["message"]


def test_search(client: TestClient) -> None:
    body = client.get("/v1/search", params={"q": "calibrated every 90 days", "k": 3}).json()
    assert 1 <= len(body["hits"]) <= 3
    top = body["hits"][0]
    assert top["document_name"] == "zephyr-manual.pdf"
    assert top["pages"] == "p. 2"
    for bad in ({"k": 3}, {"q": "", "k": 3}, {"q": "x", "k": 0}, {"q": "x", "mode": "magic"}):
        response = client.get("/v1/search", params=bad)
        assert response.status_code == 422, bad
        assert "error" in response.json()


def test_conversation_lifecycle(client: TestClient) -> None:
    created = client.post("/v1/conversations", json={})
    assert created.status_code == 201
    thread_id = created.json()["thread_id"]
    answer = client.post(f"/v1/conversations/{thread_id}/messages",
                         json={"message": "How often must the Zephyr pump be calibrated?"})
    assert answer.status_code == 200
    body = answer.json()
    assert body["status"] == "answered"
    assert "90 days" in body["answer"]
    assert body["sources"][0]["document_name"] == "zephyr-manual.pdf"
    assert body["sources"][0]["pages"] == "p. 2"
    assert body["stats"]["llm_calls"] >= 1
    assert any(step["kind"] == "search" for step in body["steps"])
    detail = client.get(f"/v1/conversations/{thread_id}").json()
    assert [m["role"] for m in detail["messages"]] == ["user", "assistant"]
    assert detail["title"].startswith("How often")
    listed = client.get("/v1/conversations").json()["conversations"]
    assert thread_id in [c["thread_id"] for c in listed]
    assert client.delete(f"/v1/conversations/{thread_id}").status_code == 204
    assert client.get(f"/v1/conversations/{thread_id}").status_code == 404


def test_conversation_bad_input(client: TestClient) -> None:
    thread_id = client.post("/v1/conversations").json()["thread_id"]
    for body in ({}, {"message": ""}, {"message": "   "}, {"msg": "hi"}):
        response = client.post(f"/v1/conversations/{thread_id}/messages", json=body)
        assert response.status_code == 422, body
    response = client.post(f"/v1/conversations/{thread_id}/messages", content=b"{not json",
                           headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert client.post("/v1/conversations/unknown-id/messages",
                       json={"message": "hi"}).status_code == 404
    assert client.get("/v1/conversations/bad%20id!").status_code == 422
    assert client.post("/v1/conversations", json={"collection": "../etc"}).status_code == 422


def test_sse_event_order(client: TestClient) -> None:
    thread_id = client.post("/v1/conversations").json()["thread_id"]
    with client.stream("POST", f"/v1/conversations/{thread_id}/stream",
                       json={"message": "How long does the Zephyr warranty last?"}) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        text = "".join(response.iter_text())
    frames = parse_sse(text)
    names = [name for name, _ in frames]
    first_token = names.index("token")
    assert all(n == "step" for n in names[:first_token]) and first_token >= 1
    assert names[-3:] == ["sources", "stats", "done"]
    assert set(names[first_token:-3]) == {"token"}
    streamed = "".join(data["text"] for name, data in frames if name == "token")
    done = frames[-1][1]
    assert done["thread_id"] == thread_id and done["status"] == "answered"
    assert streamed == done["answer"] and "five" in streamed
    sources = frames[-3][1]
    assert sources["sources"][0]["pages"] == "p. 3"
    assert sources["confidence"]
    searches = [data for name, data in frames if name == "step" and data["kind"] == "search"]
    assert searches and searches[0]["detail"]


def test_clarification_is_the_next_message(clarify_app: object) -> None:
    with TestClient(clarify_app, base_url="http://localhost",  # type: ignore[arg-type]
                    raise_server_exceptions=False) as client:
        thread_id = client.post("/v1/conversations").json()["thread_id"]
        with client.stream("POST", f"/v1/conversations/{thread_id}/stream",
                           json={"message": "How often do I calibrate it?"}) as response:
            frames = parse_sse("".join(response.iter_text()))
        names = [name for name, _ in frames]
        assert names[-2:] == ["clarification", "done"]
        assert "token" not in names
        assert frames[-2][1]["question"] == CLARIFY_QUESTION
        assert frames[-1][1]["status"] == "clarification"
        pending = client.get(f"/v1/conversations/{thread_id}").json()
        assert pending["pending_clarification"] == CLARIFY_QUESTION
        reply = client.post(f"/v1/conversations/{thread_id}/messages",
                            json={"message": "the Zephyr pump"}).json()
        assert reply["status"] == "answered"
        assert "90 days" in reply["answer"]
        assert any(s["kind"] == "clarification" for s in reply["steps"])


def test_auth_required_and_enforced(keyed_client: TestClient) -> None:
    alice = {"Authorization": "Bearer key-alice"}
    bob = {"Authorization": "Bearer key-bob"}
    for method, path in [("get", "/v1/documents"), ("get", "/v1/search?q=pump"),
                         ("post", "/v1/conversations"), ("get", "/v1/models"),
                         ("get", "/openapi.json"), ("post", "/v1/chat/completions")]:
        response = getattr(keyed_client, method)(path)
        assert response.status_code == 401, path
        assert response.json()["error"]["type"] == "unauthorized"
        assert response.headers["www-authenticate"] == "Bearer"
    wrong = keyed_client.get("/v1/documents", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401 and "invalid API key" in wrong.json()["error"]["message"]
    assert keyed_client.get("/v1/documents", headers=alice).status_code == 200

    thread_id = keyed_client.post("/v1/conversations", headers=alice).json()["thread_id"]
    said = keyed_client.post(f"/v1/conversations/{thread_id}/messages", headers=alice,
                             json={"message": "When are Honeycrisp trees pruned?"})
    assert said.status_code == 200 and "February" in said.json()["answer"]
    for method, path, body in [
        ("get", f"/v1/conversations/{thread_id}", None),
        ("post", f"/v1/conversations/{thread_id}/messages", {"message": "and harvest?"}),
        ("post", f"/v1/conversations/{thread_id}/stream", {"message": "and harvest?"}),
        ("delete", f"/v1/conversations/{thread_id}", None),
        ("post", "/v1/chat/completions", {"model": "archivist", "thread_id": thread_id,
                                          "messages": [{"role": "user", "content": "hi"}]}),
    ]:
        kwargs = {"headers": bob, **({"json": body} if body else {})}
        response = getattr(keyed_client, method)(path, **kwargs)
        assert response.status_code == 404, path
        assert "February" not in response.text
    bobs = keyed_client.get("/v1/conversations", headers=bob).json()["conversations"]
    assert thread_id not in [c["thread_id"] for c in bobs]
    history = keyed_client.get(f"/v1/conversations/{thread_id}", headers=alice).json()
    assert len(history["messages"]) == 2  # bob's attempts left no trace


def test_openapi_schema_and_examples(client: TestClient) -> None:
    from archivist.app.api import models as api_models
    from archivist.app.api.routes import openai as api_openai

    schema = client.get("/openapi.json").json()
    paths = schema["paths"]
    for path in ["/health", "/v1/documents", "/v1/documents/{ref}",
                 "/v1/documents/jobs/{job_id}", "/v1/search", "/v1/conversations",
                 "/v1/conversations/{thread_id}", "/v1/conversations/{thread_id}/messages",
                 "/v1/conversations/{thread_id}/stream", "/v1/chat/completions", "/v1/models"]:
        assert path in paths, path
    assert "text/event-stream" in (
        paths["/v1/conversations/{thread_id}/stream"]["post"]["responses"]["200"]["content"])
    assert "HTTPBearer" in schema["components"]["securitySchemes"]
    assert client.get("/docs").status_code == 200

    # every documented example validates against its model ...
    models = [getattr(api_models, n) for n in dir(api_models)]
    models += [api_openai.ChatCompletionRequest, api_openai.ModelList]
    checked = 0
    for model in models:
        extra = getattr(getattr(model, "model_config", {}), "get", lambda *_: None)(
            "json_schema_extra")
        for example in (extra or {}).get("examples", []) if isinstance(extra, dict) else []:
            model.model_validate(example)
            checked += 1
    assert checked >= 8
    # ... and the request examples work against the live server
    thread_id = client.post("/v1/conversations",
                            json=api_models.ConversationCreate.model_config["json_schema_extra"]
                            ["examples"][0]).json()["thread_id"]
    example = api_models.MessageIn.model_config["json_schema_extra"]["examples"][0]
    assert client.post(f"/v1/conversations/{thread_id}/messages", json=example
                       ).status_code == 200
    example = api_openai.ChatCompletionRequest.model_config["json_schema_extra"]["examples"][0]
    assert client.post("/v1/chat/completions", json=example).status_code == 200


def test_unknown_routes_and_methods_are_json(client: TestClient) -> None:
    response = client.get("/v1/nothing-here")
    assert response.status_code == 404 and response.json()["error"]["type"] == "not_found"
    response = client.put("/v1/documents")
    assert response.status_code == 405 and "error" in response.json()


@pytest.mark.parametrize("model", ["gpt-4", "archivist/no-such-collection"])
def test_unknown_model_is_404(client: TestClient, model: str) -> None:
    response = client.post("/v1/chat/completions", json={
        "model": model, "messages": [{"role": "user", "content": "hi"}]})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "model_not_found"
