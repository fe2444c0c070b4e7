"""One upload holds at most ``server.max_upload_files`` files: more is a 413, nothing staged."""

from __future__ import annotations

from pathlib import Path

import httpx
from tests.security.attack import KEYS, archivist_serve, wait_healthy


def test_an_upload_of_too_many_files_is_refused(tmp_path: Path) -> None:
    with archivist_serve(tmp_path, api_keys=KEYS["alice"], max_upload_files="5") as server:
        wait_healthy(server.url)
        auth = {"Authorization": f"Bearer {KEYS['alice']}"}
        files = [("files", (f"note-{i}.md", f"# Note {i}\n\nValve {i} is shut.\n".encode(),
                            "text/markdown")) for i in range(6)]
        refused = httpx.post(f"{server.url}/v1/documents", headers=auth, files=files,
                             timeout=60)
        assert refused.status_code == 413, refused.text
        assert "at most 5 files" in refused.json()["error"]["message"]
        staging = server.data_dir / "uploads" / ".staging"
        assert not staging.exists() or not any(staging.rglob("*.md"))
        accepted = httpx.post(f"{server.url}/v1/documents?wait=true", headers=auth,
                              files=files[:5], timeout=120)
        assert accepted.status_code == 200 and accepted.json()["counts"]["added"] == 5


def test_the_web_ui_refuses_too_many_files_whole(tmp_path: Path) -> None:
    from archivist.app.ui.session import stage_files

    chosen = []
    for i in range(6):
        (tmp_path / f"note-{i}.md").write_text(f"# Note {i}\n")
        chosen.append(str(tmp_path / f"note-{i}.md"))
    staging, staged = tmp_path / "staging", []
    staging.mkdir()
    lines = stage_files(chosen, staging, staged, max_files=5)
    assert lines == ["- refused: an upload holds at most 5 files (6 chosen)"]
    assert staged == [] and not staging.exists()
    staging.mkdir()
    assert stage_files(chosen[:5], staging, staged, max_files=5) == [] and len(staged) == 5
