"""An unsupported sentence stays marked, with its reason, when the conversation is read back.

In the system Chromium on a real server: the scripted model answers from the Zephyr manual
and adds a sentence no passage supports. The answer shows ⚠ before that sentence and the
reason under it; after a reload the same answer shows the same marks. Screenshots go to
``test-artifacts/screenshots/claims-*.png``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.app.server_helpers import OVERCLAIM, overclaim, served
from tests.app.ui.test_browser import (  # noqa: F401  (browser: a fixture)
    bot_texts,
    browser,
    finished_steps,
    open_ui,
    ready,
    shot,
    wait_text,
)

from archivist.app.api.app import create_app
from archivist.application import Application
from archivist.events import UNSUPPORTED_HEADING
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.settings import Settings
from archivist.testing import ScriptedChatModel

pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]
QUESTION = "How long does the Zephyr warranty last?"


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder,
               corpus: dict[str, Path]) -> Iterator[str]:
    """A real server (API + UI) over the Zephyr manual; the model overclaims."""
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("browser-claims"),
        llm={"model": "scripted"},
        agent={"strategy": "pipeline"},
    )
    library = Application(settings, embedder=embedder,
                          llm=ScriptedChatModel(rules=[overclaim]))
    library.ingest.files([corpus["zephyr"]])
    with served(create_app(library)) as url:
        yield url
    library.close()


ANSWER_START = "The Zephyr warranty lasts"


def answer_text(page: Any) -> str:
    """The latest answer as the chat shows it, from its first word (not the Steps box)."""
    text = bot_texts(page)[-1]
    return text[text.index(ANSWER_START):]


def test_a_reloaded_answer_keeps_its_marks(browser: Any, server_url: str) -> None:  # noqa: F811
    page = open_ui(browser, server_url)
    try:
        page.locator("#question textarea").fill(QUESTION)
        page.locator("#send").click()
        finished_steps(page)
        wait_text(page, "#chatbot", UNSUPPORTED_HEADING)
        live = answer_text(page)
        assert f"⚠ {OVERCLAIM}" in live, live
        assert "do not state 900" in live, live
        assert "⚠" not in live.split(OVERCLAIM)[0].removesuffix("⚠ "), live  # only it is marked
        shot(page, "claims-01-live")

        page.reload()
        ready(page)
        wait_text(page, "#chatbot", UNSUPPORTED_HEADING)
        assert answer_text(page) == live
        shot(page, "claims-02-reloaded")
    except Exception:
        shot(page, "claims-failure")
        raise
    finally:
        page.context.close()
