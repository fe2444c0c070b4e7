"""``archivist ingest DIR`` never follows a symbolic link inside DIR: each is one skipped line."""

from __future__ import annotations

from pathlib import Path

from archivist.application import Application


def test_ingest_skips_symlinks_to_files_and_folders(library: Application, tmp_path: Path) -> None:
    folder, outside = tmp_path / "docs", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (folder / "kept.md").write_text("# Kept\n\nThe orchard gate is painted blue.\n")
    (outside / "secret.md").write_text("# Secret\n\nThe vault code is zebra-4471.\n")
    (folder / "notes.md").symlink_to(outside / "secret.md")
    (folder / "etcdir").symlink_to(outside, target_is_directory=True)
    (folder / "users.txt").symlink_to("/etc/passwd")
    report = library.ingest.files([folder])
    outcomes = {Path(r.path).name: (r.outcome.value, r.reason) for r in report.results}
    assert outcomes.pop("kept.md")[0] == "added"
    assert set(outcomes) == {"notes.md", "etcdir", "users.txt"}
    assert all(o == "skipped" and "symbolic link: not followed" in why
               for o, why in outcomes.values()), outcomes
    names = [d.name for d in library.store.catalog.documents(library.settings.collection)]
    assert names == ["kept.md"]
