"""Item 3 of the issue: DNS rebinding (foreign Host) and cross-site writes (foreign Origin)."""

from __future__ import annotations

import httpx
from tests.security.attack import Server, raw_upload


def test_a_foreign_host_header_is_refused(open_server: Server, figure) -> None:
    rebound = httpx.get(f"{open_server.url}/v1/search", params={"q": "pump"}, timeout=30,
                        headers={"Host": "attacker.rebind.example"})
    assert rebound.status_code == 400
    assert rebound.json()["error"]["type"] == "untrusted_host"
    local = httpx.get(f"{open_server.url}/v1/documents", timeout=30,
                      headers={"Host": f"localhost:{open_server.port}"})
    assert local.status_code == 200
    figure(f"search with Host: attacker.rebind.example: status {rebound.status_code}; "
           f"with Host: localhost: {local.status_code}")


def test_a_cross_site_upload_is_refused(open_server: Server, figure) -> None:
    evil = raw_upload(open_server, 1000, origin="http://evil.example", filename="evil.md")
    assert evil.status == 403, evil.body
    assert b"cross_site" in evil.body
    null = raw_upload(open_server, 1000, origin="null", filename="evil.md")
    assert null.status == 403
    listed = httpx.get(f"{open_server.url}/v1/documents", timeout=30).json()["documents"]
    assert "evil.md" not in [d["name"] for d in listed]
    deleted = httpx.delete(f"{open_server.url}/v1/documents/anything", timeout=30,
                           headers={"Origin": "http://evil.example"})
    assert deleted.status_code == 403
    figure(f"multipart upload with Origin: http://evil.example: status {evil.status}; "
           f"Origin: null: {null.status}; DELETE: {deleted.status_code}")


def test_same_origin_and_non_browser_writes_pass(open_server: Server) -> None:
    own = raw_upload(open_server, 1000, origin=f"http://127.0.0.1:{open_server.port}",
                     filename="own.txt")
    assert own.status == 202, own.body
    plain = raw_upload(open_server, 1000, filename="plain.txt")  # curl, SDKs: no Origin
    assert plain.status == 202, plain.body


def test_the_web_ui_answers_on_localhost_only(open_server: Server) -> None:
    page = httpx.get(f"{open_server.url}/ui/", timeout=60, follow_redirects=True)
    assert page.status_code == 200 and "gradio" in page.text.lower()
    rebound = httpx.get(f"{open_server.url}/ui/", timeout=60,
                        headers={"Host": "attacker.rebind.example"})
    assert rebound.status_code == 400


def test_serving_beyond_localhost_says_which_hosts_it_answers(tmp_path, figure) -> None:
    import time

    from tests.security.attack import KEYS, archivist_serve, wait_healthy

    with archivist_serve(tmp_path, "--host", "0.0.0.0", admin_keys=KEYS["admin"]) as server:
        wait_healthy(server.url.replace("0.0.0.0", "127.0.0.1"))
        time.sleep(0.5)
        output = "".join(server.output)
    assert "answers only to the host names localhost, 127.0.0.1, ::1" in output
    assert "no API keys" not in output  # an admin key is a key


def test_the_web_ui_sends_no_cors_headers(open_server: Server, figure) -> None:
    """Gradio reflects any localhost origin with credentials; the server strips that."""
    import httpx

    origin = "http://localhost:5555"  # another program's page on this machine
    simple = httpx.get(f"{open_server.url}/ui/config", headers={"Origin": origin}, timeout=30)
    preflight = httpx.options(
        f"{open_server.url}/ui/gradio_api/queue/join", timeout=30,
        headers={"Origin": origin, "Access-Control-Request-Method": "POST"})
    cors = {k: v for r in (simple, preflight) for k, v in r.headers.items()
            if k.lower().startswith("access-control-")}
    assert simple.status_code == 200, simple.status_code
    assert cors == {}, cors  # was: allow-origin http://localhost:5555, allow-credentials true
    figure(f"web UI with Origin {origin}: CORS headers {cors or 'none'}")
