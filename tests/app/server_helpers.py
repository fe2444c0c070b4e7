"""Helpers shared by the server tests (documents, the clarifying model, SSE parsing)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI
from uvicorn.config import Config

from archivist.agent.state import QuestionAnalysis
from archivist.testing import CallInfo, ScriptedChatModel
from archivist.testing.replies import quote_best_passage

FILLER = (
    " Keep this page with the device. Service notes are written in the log book after each "
    "visit, with the date and the name of the technician who did the work."
)
ZEPHYR_PAGES = [
    "Zephyr Pump Manual\n\nThis manual covers the Zephyr pump, a compact water pump for "
    "greenhouses. Read it before first use." + FILLER * 4,
    "Calibration\n\nThe Zephyr pump must be calibrated every 90 days. Calibration uses the "
    "blue valve on the left side and takes about ten minutes." + FILLER * 4,
    "Safety and warranty\n\nNever run the Zephyr pump dry. The Zephyr warranty lasts five "
    "years from the date of purchase." + FILLER * 4,
]
ORCHARD_MD = (
    "# Orchard notes\n\n## Pruning\n\nThe Honeycrisp apple trees are pruned in late February, "
    "before the buds open. Pruning removes crossing branches.\n\n## Harvest\n\nHoneycrisp "
    "apples are harvested in September when the seeds turn brown.\n"
)
CLARIFY_QUESTION = "Which device do you mean?"


def make_pdf(path: Path, pages: list[str]) -> Path:
    """A real PDF with one text block per page (reportlab)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=A4)
    for page in pages:
        title, _, body = page.partition("\n\n")
        pdf.setFont("Helvetica-Bold", 18)
        pdf.drawString(72, 770, title)
        pdf.setFont("Helvetica", 11)
        text = pdf.beginText(72, 740)
        words, line = body.split(), ""
        for word in words:
            if len(line) + len(word) > 85:
                text.textLine(line)
                line = ""
            line += word + " "
        text.textLine(line)
        pdf.drawText(text)
        pdf.showPage()
    pdf.save()
    return path


def clarifying_model() -> ScriptedChatModel:
    """The scripted model, told to ask back when a question says 'it' with no referent."""

    def ask_back(_messages: list[Any], info: CallInfo) -> QuestionAnalysis | None:
        if info.schema is QuestionAnalysis and "clarification:" not in info.question:
            words = info.question.lower().rstrip("?").split()
            if "it" in words:
                return QuestionAnalysis(is_clear=False, clarification_question=CLARIFY_QUESTION)
        return None

    return ScriptedChatModel(rules=[ask_back])


OVERCLAIM = "Each Zephyr pump also ships with 900 spare valves"


def overclaim(messages: list[Any], info: CallInfo) -> str | None:
    """The built-in cited answer, then a sentence no passage supports (it cites [1] too)."""
    if info.schema is not None or info.tools:
        return None
    quoted = quote_best_passage(messages, info.question)
    if quoted is None or not quoted.endswith("[1]."):
        return None
    return f"{quoted} {OVERCLAIM} [1]."


def parse_sse(text: str) -> list[tuple[str, dict[str, Any]]]:
    """``(event, data)`` pairs of an SSE body."""
    out = []
    for frame in text.strip().split("\n\n"):
        name, data = "message", ""
        for line in frame.splitlines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data += line[5:].strip()
        if data:
            out.append((name, json.loads(data)))
    return out


class SlowStreamingModel(ScriptedChatModel):
    """The scripted model streaming its answer a little slowly, so streaming is visible."""

    token_delay_s: float = 0.03

    def _stream(self, *args: Any, **kwargs: Any) -> Any:
        import time

        for chunk in super()._stream(*args, **kwargs):
            time.sleep(self.token_delay_s)
            yield chunk


def clarifying_slow_model() -> ScriptedChatModel:
    """The clarifying model, streaming slowly (for the browser)."""
    return SlowStreamingModel(rules=list(clarifying_model().rules))


@contextmanager
def served(app: FastAPI) -> Iterator[str]:
    """Run ``app`` in a real uvicorn server on a free localhost port; yield its base URL."""
    config = Config(app, host="127.0.0.1", port=0, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
