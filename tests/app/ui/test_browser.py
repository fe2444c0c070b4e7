"""The web UI in headless Chromium (Debian's, never a downloaded one), against a real server.

Walk-through: upload a PDF, ask, watch the answer stream in with its steps and sources,
answer a clarification, check a second browser session has its own conversation, start a
new conversation, delete the document. Screenshots go to ``test-artifacts/screenshots``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.app.server_helpers import CLARIFY_QUESTION, clarifying_slow_model, served

from archivist.app.api.app import create_app
from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.settings import Settings

pytestmark = [pytest.mark.browser, pytest.mark.timeout(1800)]  # slow on a busy machine

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
SHOTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "screenshots"
TIMEOUT_MS = 90_000  # generous: the machine may be busy with other work


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder
               ) -> Iterator[str]:
    """A real uvicorn server (API + UI) on a free localhost port, scripted model behind it."""
    settings = Settings(data_dir=tmp_path_factory.mktemp("browser-lib"), llm={"model": "scripted"})
    library = Application(settings, embedder=embedder, llm=clarifying_slow_model())
    with served(create_app(library)) as url:
        yield url
    library.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Debian Chromium through Playwright."""
    if not CHROMIUM.exists():
        pytest.fail("Chromium is missing: apt-get install chromium (or make install-browser)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


def shot(page: Any, name: str) -> None:
    """Save a full-page screenshot as a test artefact."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def open_ui(browser: Any, url: str) -> Any:
    """A new browser session (its own context) on the UI."""
    context = browser.new_context(viewport={"width": 1200, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"{url}/ui/")
    ready(page)
    return page


def ready(page: Any) -> None:
    """Wait until the UI has finished loading (its load event filled the sidebar)."""
    page.get_by_role("tab", name="Chat").wait_for()
    page.locator("#thread-id.loaded").wait_for(state="attached")


def ask(page: Any, question: str) -> None:
    """Type a question and send it; wait until it shows in the chat."""
    page.locator("#question textarea").fill(question)
    page.locator("#send").click()
    page.locator("#chatbot").filter(has_text=question).first.wait_for()


def finished_steps(page: Any) -> Any:
    """The latest answer's Steps box, once the turn is over (its time is shown)."""
    box = page.locator("#chatbot .thought-group").last
    box.locator(".duration").filter(has_text=re.compile(r"\(\d[\d.]*m?s\)")).wait_for()
    return box


def bot_texts(page: Any) -> list[str]:
    """The text of every assistant message in the chat."""
    return [t.strip() for t in page.locator("#chatbot .bot").all_inner_texts()]


def wait_text(page: Any, selector: str, text: str) -> None:
    """Wait until an element holds ``text``."""
    page.locator(selector).filter(has_text=text).first.wait_for()


def test_walkthrough(browser: Any, server_url: str, corpus: dict[str, Path]) -> None:
    page = open_ui(browser, server_url)
    messages: list[str] = []
    page.on("console", lambda m: messages.append(f"{m.type}: {m.text}"))
    try:
        walk(page, browser, server_url, corpus)
    except Exception:
        shot(page, "failure")
        (SHOTS / "failure-console.txt").write_text("\n".join(messages))
        raise


def walk(page: Any, browser: Any, server_url: str, corpus: dict[str, Path]) -> None:
    """The walk-through itself."""
    # 1. upload a PDF (and a broken one, which is named with its reason)
    page.get_by_role("tab", name="Documents").click()
    page.locator("#upload-files input[type=file]").set_input_files(
        [str(corpus["zephyr"]), str(corpus["broken"])])
    page.locator("#upload-files").filter(has_text="broken").wait_for()
    page.locator("#upload").click()
    wait_text(page, "#upload-status", "zephyr-manual.pdf: added")
    assert "broken.pdf: failed" in page.locator("#upload-status").inner_text()
    wait_text(page, "#documents-table", "zephyr-manual.pdf")
    shot(page, "01-documents-uploaded")

    # 2. ask; the answer streams in, with collapsible steps and sources with pages
    page.get_by_role("tab", name="Chat").click()
    page.evaluate("""() => {
        window.__lengths = [];
        const observer = new MutationObserver(() => {
            const bots = document.querySelectorAll('#chatbot .bot');
            const last = bots[bots.length - 1];
            if (last) window.__lengths.push(last.innerText.length);
        });
        observer.observe(document.querySelector('#chatbot'),
                         {childList: true, subtree: true, characterData: true});
    }""")
    ask(page, "How long does the Zephyr warranty last?")
    wait_text(page, "#chatbot", "zephyr-manual.pdf, p. 3")
    lengths = page.evaluate("window.__lengths")
    assert len(set(lengths)) >= 5, f"the answer did not stream in: {lengths}"
    texts = bot_texts(page)
    assert any("five years" in t for t in texts), texts
    assert any("Sources" in t and "zephyr-manual.pdf, p. 3" in t for t in texts), texts
    box = finished_steps(page)
    header = box.locator(".duration").first.inner_text()
    assert len(re.findall(r"\d[\d.]*\s?m?s\b", header)) == 1, header  # the time, once
    steps = page.locator("#chatbot").get_by_text(re.compile(r"^Steps \(\d+\)$"))
    assert steps.count() == 1
    first_thread = page.locator("#thread-id").inner_text()
    step_line = box.get_by_text("search", exact=True).first
    step_line.wait_for(state="hidden")  # the finished steps fold away
    shot(page, "02-answer-with-sources")
    steps.first.click()  # unfold the steps
    step_line.wait_for(state="visible")
    shot(page, "03-steps-expanded")

    # 3. a clarification is a normal turn; the reply is just the next message
    ask(page, "How often do I calibrate it?")
    wait_text(page, "#chatbot", CLARIFY_QUESTION)
    shot(page, "04-clarification")
    ask(page, "the Zephyr pump")
    wait_text(page, "#chatbot", "90 days")
    assert page.locator("#thread-id").inner_text() == first_thread
    shot(page, "05-clarification-answered")

    # 4. another browser session has its own, empty conversation
    other = open_ui(browser, server_url)
    assert bot_texts(other) == []
    ask(other, "Where is the blue valve?")
    wait_text(other, "#chatbot", "zephyr-manual.pdf")
    assert other.locator("#thread-id").inner_text() != first_thread
    assert "Where is the blue valve?" not in page.locator("#chatbot").inner_text()
    shot(other, "06-second-session")
    other.context.close()

    # 5. a new conversation
    page.locator("#new-conversation").click()
    page.locator("#thread-id").filter(has_text="new conversation").wait_for()
    assert bot_texts(page) == []
    ask(page, "Can the Zephyr pump run dry?")
    wait_text(page, "#chatbot", "Never run the Zephyr pump dry")
    assert page.locator("#thread-id").inner_text() not in (first_thread, "new conversation")
    shot(page, "07-new-conversation")

    # 6. delete the document
    page.get_by_role("tab", name="Documents").click()
    page.locator("#delete-choice input").click()
    page.get_by_role("option", name="zephyr-manual.pdf", exact=False).first.click()
    page.locator("#delete").click()
    wait_text(page, "#delete-status", "Deleted zephyr-manual.pdf")
    page.wait_for_function(
        "() => !document.querySelector('#documents-table').innerText"
        ".includes('zephyr-manual.pdf')")
    shot(page, "08-document-deleted")
    page.context.close()
