"""``--json`` on list, show, search and ask; ``list``/``show`` never load the embedding model.

One JSON document per command, each hit or source with its document id, name, pages,
heading path and score. The search defaults (k, mode) come from the settings.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.index.corpus import write_corpus
from typer.testing import CliRunner

from archivist.app.cli.main import app
from archivist.application import Application
from archivist.settings import Settings

runner = CliRunner()


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Path:
    root = tmp_path_factory.mktemp("json-cli")
    with Application(Settings(data_dir=root / "lib"), embedder=embedder) as application:
        report = application.ingest.files([write_corpus(root / "docs")])
        assert report.counts["added"] >= 3
    return root / "lib"


@pytest.fixture
def model_from_fixture(monkeypatch: pytest.MonkeyPatch, embedder: Any) -> None:
    """The CLI's embedder is the session's (same model, loaded once)."""
    monkeypatch.setattr(
        "archivist.index.store.make_embedder", lambda *a, **k: embedder
    )
    monkeypatch.setenv("ARCHIVIST_LLM__MODEL", "scripted")


def run_json(*args: str) -> Any:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def run_in_process_free_of_models(*args: str) -> tuple[Any, list[str]]:
    """Run the real entry point in a fresh interpreter; its JSON and the models it imported."""
    code = (
        "import atexit, json, sys\n"
        "atexit.register(lambda: sys.stderr.write('\\nIMPORTED ' + json.dumps(sorted("
        "{'torch', 'sentence_transformers'} & {m.split('.')[0] for m in sys.modules}))))\n"
        f"sys.argv = ['archivist', *{list(args)!r}]\n"
        "from archivist.app.cli import main\nmain()\n"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), json.loads(done.stderr.rsplit("IMPORTED ", 1)[1])


def test_list_and_show_read_the_catalog_without_the_embedding_model(data_dir: Path) -> None:
    listing, heavy = run_in_process_free_of_models("list", "--data-dir", str(data_dir), "--json")
    assert heavy == []
    names = {d["name"]: d for d in listing["documents"]}
    assert listing["collection"] == "default" and "postgres.md" in names
    doc = names["postgres.md"]
    assert doc["chunks"] >= 1 and len(doc["document_id"]) == 16
    shown, heavy = run_in_process_free_of_models(
        "show", doc["document_id"][:8], "--data-dir", str(data_dir), "--json"
    )
    assert heavy == []
    assert shown["document"]["document_id"] == doc["document_id"]
    parents = shown["parents"]
    assert len(parents) == doc["parents"]
    assert sum(len(p["children"]) for p in parents) == doc["chunks"]
    assert parents[0]["heading_path"][:1] == ["PostgreSQL administration"]
    first = parents[0]["children"][0]
    assert {"id", "pages", "heading_path", "chars", "text"} <= set(first)


def test_search_json_hits_and_defaults_from_settings(
    data_dir: Path, model_from_fixture: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = run_json("search", "knead the dough", "--data-dir", str(data_dir))
    assert body["k"] == 5 and body["mode"] == "hybrid"
    top = body["hits"][0]
    assert top["document_name"] == "cooking.md"
    assert top["heading_path"][:1] == ["Cooking notes"]
    assert {"document_id", "pages", "score", "text"} <= set(top)
    monkeypatch.setenv("ARCHIVIST_INDEX__SEARCH_K", "1")
    monkeypatch.setenv("ARCHIVIST_INDEX__SEARCH_MODE", "bm25")
    body = run_json("search", "knead the dough", "--data-dir", str(data_dir))
    assert body["k"] == 1 and body["mode"] == "bm25" and len(body["hits"]) == 1
    body = run_json("search", "knead the dough", "-k", "2", "--mode", "hybrid",
                    "--data-dir", str(data_dir))
    assert body["k"] == 2 and body["mode"] == "hybrid" and len(body["hits"]) == 2


def test_search_refuses_a_bad_mode_with_one_line(data_dir: Path) -> None:
    result = runner.invoke(app, ["search", "x", "--mode", "magic", "--data-dir", str(data_dir)])
    assert result.exit_code == 2
    assert "mode" in result.output and "Traceback" not in result.output


def test_ask_json_sources_carry_pages_headings_and_scores(
    data_dir: Path, model_from_fixture: None
) -> None:
    body = run_json("ask", "How do I install PostgreSQL?", "--data-dir", str(data_dir))
    assert body["status"] == "answered" and body["thread_id"]
    assert "apt install postgresql" in body["answer"]
    source = next(s for s in body["sources"] if s["document_name"] == "postgres.md")
    assert source["document_id"] and source["heading_path"]
    assert "pages" in source and "score" in source
