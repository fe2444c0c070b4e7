"""``archivist ask`` and ``archivist chat`` with the scripted model (``ARCHIVIST_LLM__MODEL``)."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from tests.agent.conftest import CORPUS
from typer.testing import CliRunner

from archivist import events
from archivist.app.cli import agent as cli_agent
from archivist.application import Application
from archivist.settings import Settings

runner = CliRunner()


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:
    root = tmp_path_factory.mktemp("cli")
    docs = root / "docs"
    docs.mkdir()
    for name in ("postgres-guide.md", "python.md"):
        (docs / name).write_text(CORPUS[name], encoding="utf-8")
    with Application(Settings(data_dir=root / "lib"), embedder=embedder) as library:
        library.ingest.files([docs])
    return root / "lib"


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch, embedder) -> typer.Typer:
    monkeypatch.setattr(
        "archivist.index.store.make_embedder", lambda *a, **k: embedder
    )
    monkeypatch.setenv("ARCHIVIST_LLM__MODEL", "scripted")
    cli = typer.Typer()
    cli_agent.register(cli)
    return cli


def test_ask_streams_the_answer_sources_and_thread(app, data_dir: Path) -> None:
    args = ["ask", "How do I install PostgreSQL?", "--data-dir", str(data_dir)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "apt install postgresql" in result.output
    assert "Sources:\n  [1] postgres-guide.md, § PostgreSQL administration" in result.output
    assert "thread: " in result.output
    assert "search:" not in result.output


def test_ask_verbose_shows_steps_and_stats(app, data_dir: Path) -> None:
    result = runner.invoke(
        app, ["ask", "What is Python?", "--verbose", "--data-dir", str(data_dir)]
    )
    assert result.exit_code == 0, result.output
    assert "· search: What is Python?" in result.output
    assert "LLM calls" in result.output


def test_ask_continues_a_thread(app, data_dir: Path) -> None:
    first = runner.invoke(app, ["ask", "What is Python?", "--data-dir", str(data_dir)])
    thread = first.output.rsplit("thread: ", 1)[1].split()[0]
    second = runner.invoke(
        app, ["ask", "What is Python?", "--thread", thread, "--data-dir", str(data_dir)]
    )
    assert second.exit_code == 0 and f"thread: {thread}" in second.output


def test_unreachable_llm_is_one_line_then_retrieval_only_exit_3(
    app, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARCHIVIST_LLM__MODEL", "ollama:qwen3:4b")
    monkeypatch.setenv("ARCHIVIST_LLM__OLLAMA_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("ARCHIVIST_LLM__MAX_RETRIES", "0")
    args = ["ask", "How do I install PostgreSQL?", "--data-dir", str(data_dir)]
    result = runner.invoke(app, args)
    assert result.exit_code == 3, result.output
    assert "cannot reach the LLM" in result.output and "127.0.0.1:9" in result.output
    assert "Retrieval-only answer (no LLM)" in result.output
    assert "Traceback" not in result.output


def test_no_llm_and_no_local_model_is_one_line_naming_the_fetch_command(
    app, data_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("ARCHIVIST_LLM__MODEL")
    monkeypatch.setenv("ARCHIVIST_MODEL_DIR", str(tmp_path / "no-models"))
    monkeypatch.setenv("ARCHIVIST_LLM__OLLAMA_BASE_URL", "http://127.0.0.1:9")  # no Ollama
    monkeypatch.setenv("ARCHIVIST_LLM__MAX_RETRIES", "0")
    args = ["ask", "How do I install PostgreSQL?", "--data-dir", str(data_dir)]
    result = runner.invoke(app, args)
    assert result.exit_code == 3, result.output
    hints = [line for line in result.output.splitlines() if "archivist model fetch" in line]
    assert len(hints) == 1 and hints[0].startswith("no LLM available")
    assert "Retrieval-only answer (no LLM)" in result.output
    assert "Traceback" not in result.output


def test_chat_new_and_exit(app, data_dir: Path) -> None:
    script = "What is Python?\n/new\nHow do I install PostgreSQL?\n/exit\n"
    result = runner.invoke(app, ["chat", "--data-dir", str(data_dir)], input=script)
    assert result.exit_code == 0, result.output
    assert "readable" in result.output and "apt install postgresql" in result.output
    assert "new conversation" in result.output


def test_clarification_is_printed_as_a_question(capsys) -> None:
    status, thread = cli_agent.render(
        [events.clarification("Which thing do you mean?"),
         events.done("t1", "Which thing do you mean?", "clarification")]
    )
    assert (status, thread) == ("clarification", "t1")
    assert "? Which thing do you mean?" in capsys.readouterr().out


def test_ask_prints_the_confidence(app, data_dir: Path) -> None:
    result = runner.invoke(app, ["ask", "How do I install PostgreSQL?", "--data-dir",
                                 str(data_dir)])
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if x.startswith("confidence: "))
    assert line.split(": ")[1] in {"high", "medium", "low"}


def test_confidence_and_web_sources_are_rendered(capsys) -> None:
    web = events.Source(document_id="https://w/J", document_name="Jupiter", kind="web",
                        url="https://w/J")
    cli_agent.render([events.token("Jupiter. [Jupiter]\n"),
                      events.sources([web], confidence="medium"), events.done("t", "x")])
    out = capsys.readouterr().out
    assert "  - Jupiter (web: https://w/J)" in out and "confidence: medium" in out
