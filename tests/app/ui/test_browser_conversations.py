"""Conversations that persist, citations that open the page, feedback, export, progress.

Walk-through in the system Chromium on a real server (scripted model): ask; reload and find
the conversation with its sources; open a source and see the passage and the highlighted
page; give a thumbs-down and export; upload a 70-page PDF and watch its pages and chunks
count up in one progress display; switch collection and back; rename and delete.
Screenshots go to ``test-artifacts/screenshots/conv-*.png`` (as ``test_browser.py``'s).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from tests.app.server_helpers import FILLER, SlowStreamingModel, make_pdf, served
from tests.app.ui.test_browser import (  # noqa: F401  (browser: a fixture)
    SHOTS,
    ask,
    browser,
    finished_steps,
    ready,
    shot,
    wait_text,
)

from archivist.app.api.app import create_app
from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.settings import Settings

pytestmark = [pytest.mark.browser, pytest.mark.timeout(1800)]  # a long walk on a busy machine
QUESTION = "How long does the Zephyr warranty last?"
TIMEOUT_MS = 90_000  # generous: the machine may be busy with other work
UPLOAD_TIMEOUT_MS = 600_000
LONG_PAGES = 70


@pytest.fixture(scope="module")
def served_library(tmp_path_factory: pytest.TempPathFactory,
                   embedder: SentenceTransformerEmbedder, corpus: dict[str, Path]
                   ) -> Iterator[tuple[str, Application]]:
    """A real server (API + UI) over the Zephyr manual, and the orchard notes in 'orchard'."""
    settings = Settings(data_dir=tmp_path_factory.mktemp("browser-conv"), llm={"model": "scripted"})
    library = Application(settings, embedder=embedder, llm=SlowStreamingModel())
    library.ingest.files([corpus["zephyr"]])
    library.ingest.files([corpus["orchard"]], collection="orchard")
    with served(create_app(library)) as url:
        yield url, library
    library.close()


@pytest.fixture(scope="module")
def long_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 70-page handbook, each page its own topic (several chunks per page)."""
    pages = [f"Chapter {n}: greenhouse section {n}\n\nSection {n} of the handbook covers bed "
             f"{n}, its valves and its pumps, numbered {n * 7}." + FILLER * 4
             for n in range(1, LONG_PAGES + 1)]
    return make_pdf(tmp_path_factory.mktemp("long") / "greenhouse-handbook.pdf", pages)


def yellow_pixels(png: bytes) -> int:
    """How many pixels of a PNG are highlighter yellow."""
    pixmap = pymupdf.Pixmap(png)
    samples, n = pixmap.samples, pixmap.n
    return sum(1 for i in range(0, len(samples), n)
               if samples[i] > 220 and samples[i + 1] > 180 and samples[i + 2] < 120)


def open_ui(browser: Any, url: str) -> Any:  # noqa: F811
    """A new browser session on the UI, once the page has loaded its conversations."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"{url}/ui/")
    ready(page)
    return page


def unfolded_steps(page: Any) -> str:
    """The latest answer's Steps box, unfolded: its title, time, figures and step lines."""
    box = finished_steps(page)
    line = box.get_by_text("search", exact=True).first
    line.wait_for(state="hidden")  # a finished turn's steps are folded
    box.get_by_text(re.compile(r"^Steps \(\d+\)$")).click()
    line.wait_for(state="visible")
    return str(box.inner_text())


def switch_collection(page: Any, name: str) -> None:
    """Pick a collection; wait until the switch has landed (a new, empty conversation)."""
    page.locator("#collection input").click()
    page.get_by_role("option", name=name).click()
    page.locator("#thread-id").filter(has_text="new conversation").wait_for()
    page.wait_for_function(
        "(name) => document.querySelector('#collection input').value === name"
        " && !document.querySelector('#chatbot').innerText.includes('five years')", arg=name)


def conversation_titles(page: Any) -> list[str]:
    """The titles in the sidebar, top to bottom."""
    return [t.strip() for t in page.locator("#conversations label").all_inner_texts()]


def test_conversations_sources_feedback_progress(
    browser: Any, served_library: tuple[str, Application], long_pdf: Path,  # noqa: F811
) -> None:
    url, library = served_library
    page = open_ui(browser, url)
    messages: list[str] = []
    page.on("console", lambda m: messages.append(f"{m.type}: {m.text}"))
    try:
        walk(page, url, library, long_pdf)
    except Exception:
        shot(page, "conv-failure")
        (SHOTS / "conv-failure-console.txt").write_text("\n".join(messages))
        raise
    finally:
        page.context.close()


def walk(page: Any, url: str, library: Application, long_pdf: Path) -> None:
    """The walk-through itself."""
    # 1. ask; the conversation appears in the sidebar, titled from the question
    ask(page, QUESTION)
    wait_text(page, "#chatbot", "zephyr-manual.pdf, p. 3")
    page.locator("#conversations").filter(
        has_text="How long does the Zephyr warranty last").wait_for()
    live_steps = unfolded_steps(page)
    assert "LLM calls" in live_steps, live_steps
    shot(page, "conv-01-asked")

    # 2. reload: the conversation comes back with its answer, sources and the same steps
    page.reload()
    ready(page)
    wait_text(page, "#chatbot", "zephyr-manual.pdf, p. 3")
    assert unfolded_steps(page) == live_steps
    chat = page.locator("#chatbot").inner_text()
    assert QUESTION in chat and "five years" in chat
    assert conversation_titles(page) == ["How long does the Zephyr warranty last"]
    shot(page, "conv-02-reloaded")

    # 3. the inline marker opens the passage and the page with the passage highlighted
    marker = page.locator("#chatbot a").filter(has_text="[1]").first
    marker.click()
    wait_text(page, "#source-passage", "five years")
    image = page.locator("#source-page img")
    image.wait_for()
    source = image.get_attribute("src")
    assert source
    png = page.request.get(source if source.startswith("http") else url + source).body()
    assert yellow_pixels(png) > 500
    assert "zephyr-manual.pdf" in page.locator("#source-passage").inner_text()
    shot(page, "conv-03-source-page")

    # 4. thumbs down with a comment is stored with the turn; export it as Markdown and JSON
    page.locator("#feedback-comment textarea").fill("It should name the page.")
    page.locator("#thumbs-down").click()
    wait_text(page, "#feedback-status", "rated: not helpful")
    (record,) = library.turns.rated()
    assert record.question == QUESTION and "five years" in record.answer
    assert record.feedback is not None and record.feedback.rating == "down"
    assert record.feedback.comment == "It should name the page."
    assert record.sources[0]["document_name"] == "zephyr-manual.pdf"
    assert record.settings["llm.model"] == "scripted"
    page.locator("#export-md").click()
    link = page.locator("#export-file a").first
    link.wait_for()
    exported = page.request.get(_absolute(url, link.get_attribute("href"))).text()
    assert QUESTION in exported and "zephyr-manual.pdf, p. 3" in exported
    assert "👎: It should name the page." in exported
    page.locator("#export-json").click()
    page.locator("#export-file").filter(has_text=".json").wait_for()
    data = json.loads(page.request.get(
        _absolute(url, page.locator("#export-file a").first.get_attribute("href"))).text())
    assert data["turns"][0]["feedback"]["rating"] == "down"
    shot(page, "conv-04-feedback-export")

    # 5. upload a 70-page PDF: one progress display, its pages and chunks counting up
    upload_long_pdf(page, long_pdf)

    # 6. switch collection: a new conversation that searches the orchard notes
    page.get_by_role("tab", name="Chat").click()
    switch_collection(page, "orchard")
    ask(page, "When are Honeycrisp apples harvested?")
    wait_text(page, "#chatbot", "September")
    wait_text(page, "#chatbot", "orchard.md")
    page.locator("#conversations").filter(has_text="When are Honeycrisp apples harvested"
                                          ).wait_for()
    assert conversation_titles(page) == [  # newest first
        "When are Honeycrisp apples harvested", "How long does the Zephyr warranty last"]
    # the other conversation's source, rating and export are gone from the page
    assert "zephyr" not in page.locator("#source-passage").inner_text()
    assert page.locator("#feedback-status").inner_text().strip() == ""
    assert not page.locator("#export-file").is_visible()
    shot(page, "conv-06-other-collection")
    # a Markdown source (its line in the Sources list) opens its passage and section,
    # with no page picture
    page.locator("#chatbot a").filter(has_text="orchard.md").last.click()
    wait_text(page, "#source-passage", "orchard.md")
    assert "Section:" in page.locator("#source-passage").inner_text()
    assert not page.locator("#source-page").is_visible()

    # 7. back to the first conversation: its history and collection return
    page.locator("#conversations label").filter(has_text="Zephyr warranty").click()
    wait_text(page, "#chatbot", "five years")
    page.wait_for_function(
        "() => document.querySelector('#collection input').value === 'default'")

    # 8. rename, then delete
    page.locator("#manage").get_by_text("Rename or delete").click()
    page.locator("#rename-title textarea").fill("Pump warranty")
    page.locator("#rename").click()
    page.locator("#conversations").filter(has_text="Pump warranty").wait_for()
    shot(page, "conv-07-renamed")
    page.locator("#delete-conversation").click()
    page.wait_for_function("() => !document.querySelector('#conversations').innerText"
                           ".includes('Pump warranty')")
    assert conversation_titles(page) == ["When are Honeycrisp apples harvested"]
    page.reload()
    ready(page)
    page.locator("#conversations").filter(has_text="Honeycrisp").wait_for()
    assert conversation_titles(page) == ["When are Honeycrisp apples harvested"]
    shot(page, "conv-08-deleted")


def upload_long_pdf(page: Any, long_pdf: Path) -> None:
    """Upload the 70-page PDF; record every progress line the page shows meanwhile."""
    page.get_by_role("tab", name="Documents").click()
    page.locator("#upload-files input[type=file]").set_input_files(str(long_pdf))
    page.locator("#upload-files").filter(has_text=long_pdf.name).wait_for(
        timeout=UPLOAD_TIMEOUT_MS)
    page.evaluate("""() => {
        window.__progress = [];
        window.__displays = 0;
        const record = () => {
            const status = document.querySelector('#upload-status');
            const text = status ? status.innerText.replace(/\\s+/g, ' ').trim() : '';
            const last = window.__progress[window.__progress.length - 1];
            if (text && text !== last) window.__progress.push(text);
            window.__displays = Math.max(window.__displays,
                document.querySelectorAll('.progress-text, .eta-bar').length);
        };
        new MutationObserver(record).observe(document.body,
            {childList: true, subtree: true, characterData: true});
    }""")
    page.locator("#upload").click()
    # the screenshot is taken while the PDF converts, its pages part-way counted
    page.wait_for_function("""(total) => {
        const status = document.querySelector('#upload-status');
        const m = (status ? status.innerText : '').match(
            /converting \\S+ \\(page (\\d+) of (\\d+)\\)/);
        return m !== null && Number(m[1]) > 0 && Number(m[1]) < total;
    }""", arg=LONG_PAGES, timeout=UPLOAD_TIMEOUT_MS)
    shot(page, "conv-05a-upload-progress")
    page.locator("#upload-status").filter(has_text=f"{long_pdf.name}: added").wait_for(
        timeout=UPLOAD_TIMEOUT_MS)
    wait_text(page, "#documents-table", long_pdf.name)
    shot(page, "conv-05b-uploaded")
    progress: list[str] = page.evaluate("window.__progress")
    counts = [(int(m.group(1)), int(m.group(2))) for text in progress
              if (m := re.search(r"(\d+) pages converted, (\d+) chunks indexed", text))]
    pages = [p for p, _ in counts]
    chunks = [c for _, c in counts]
    # the pages count up while the PDF converts, then its chunks are embedded
    assert pages and min(pages) < LONG_PAGES and max(pages) == LONG_PAGES, progress
    assert pages == sorted(pages) and chunks == sorted(chunks), progress
    # while it converts, the file's own page count is shown beside its pages so far
    shown = [(int(m.group(1)), int(m.group(2))) for text in progress
             if (m := re.search(r"converting \S+ \(page (\d+) of (\d+)\)", text))]
    assert shown and {total for _, total in shown} == {LONG_PAGES}, progress
    assert any(0 < done < LONG_PAGES for done, _ in shown), progress
    assert any("embedding" in t for t in progress), progress
    assert page.evaluate("window.__displays") == 1, progress  # one progress display
    final = page.locator("#upload-status").inner_text()
    assert f"{long_pdf.name}: added ({LONG_PAGES} pages," in final, final


def _absolute(url: str, href: str | None) -> str:
    assert href, "no download link"
    return href if href.startswith("http") else url + href
