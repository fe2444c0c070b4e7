"""How the web UI writes answers: inline [n] markers that open their source, a numbered list.

A bracketed citation the model wrote (``[R-FAQ.pdf, p. 3]``) becomes a marker ``[1]``
linking to source 1 of that turn; every source line links too. The links point at
``#source-<turn>-<n>``; a click on one is caught in the page (see ``SOURCE_JS``) and opens
the passage and page beside the chat, without leaving the page.
"""

from __future__ import annotations

import re
import time
from typing import Any

from archivist.conversations import TurnRecord
from archivist.events import UNSUPPORTED, UNSUPPORTED_HEADING, Event, unsupported_lines
from archivist.types import source_label

_BRACKET = re.compile(r"\[([^\[\]\n]{1,300})\](?!\()")
_PAGES = re.compile(r"pp?\.\s*(\d+)")
_CODE = re.compile(r"(```.*?```|`[^`\n]*`)", re.S)  # code, where ``&lt;`` would show as is
_NUMBERS = re.compile(r"\d+(\s*,\s*\d+)*")

SOURCE_JS = """
<script>
document.addEventListener('click', (event) => {
  const link = event.target.closest && event.target.closest('a[href*="#source-"]');
  if (!link) return;
  event.preventDefault();
  event.stopPropagation();
  const ref = link.getAttribute('href').split('#source-')[1];
  const box = document.querySelector('#source-ref textarea, #source-ref input');
  if (!box) return;
  box.value = ref + '@' + Date.now();
  box.dispatchEvent(new Event('input', {bubbles: true}));
}, true);
</script>
"""

Message = dict[str, Any]

CSS = """
#thread-id { opacity: 0.6; font-size: 0.8em; }
#source-ref { display: none !important; }
#upload-status { min-height: 3em; }
#thumbs-up, #thumbs-down { min-width: 110px !important; flex-grow: 0 !important; }
footer { display: none !important; }
"""
NO_SOURCE = "_Click a source, or a [n] marker in an answer, to see the passage here._"


def thread_note(thread_id: str | None) -> str:
    """The small line naming the current conversation."""
    return f"conversation `{thread_id[:8]}`" if thread_id else "new conversation"


def source_link(turn: int, number: int) -> str:
    """The in-page address of source ``number`` of turn ``turn``."""
    return f"#source-{turn}-{number}"


def parse_source_ref(ref: str) -> tuple[int, int] | None:
    """``(turn, number)`` from what a source link put in the page (``3-1@<time>``)."""
    match = re.fullmatch(r"(\d+)-(\d+)(?:@\d+)?", ref.strip())
    return (int(match.group(1)), int(match.group(2))) if match else None


def _match(part: str, sources: list[dict[str, Any]]) -> int | None:
    if part.strip().isdigit():  # an answer cited by number: [n] is Sources line n
        number = int(part)
        return number if 1 <= number <= len(sources) else None
    name, _, rest = part.partition(",")
    name = name.strip().strip("\"'`").lower()
    page = _PAGES.search(rest)
    candidates = [i for i, s in enumerate(sources, start=1)
                  if str(s.get("document_name") or "").lower() == name]
    if page and len(candidates) > 1:
        wanted = int(page.group(1))
        for i in candidates:
            start, end = sources[i - 1].get("page_start"), sources[i - 1].get("page_end")
            if start is not None and start <= wanted <= (end or start):
                return i
    return candidates[0] if candidates else None


def with_markers(answer: str, sources: list[dict[str, Any]], turn: int) -> str:
    """The answer with each bracketed citation replaced by linked ``[n]`` markers."""
    if not sources:
        return answer

    def replace(match: re.Match[str]) -> str:
        numbers = [n for part in re.split(r"[;,]" if _NUMBERS.fullmatch(match.group(1))
                                          else ";", match.group(1))
                   if (n := _match(part, sources)) is not None]
        if not numbers:
            return match.group(0)
        return "".join(f"[\\[{n}\\]]({source_link(turn, n)})" for n in dict.fromkeys(numbers))

    return _BRACKET.sub(replace, answer)


def sources_block(sources: list[dict[str, Any]], confidence: str | None, turn: int) -> str:
    """The numbered Sources list under an answer; each line opens its source."""
    if not sources:
        return ""
    lines = [f"{n}. [{source_label(s)}]({source_link(turn, n)})"
             if s.get("kind", "document") == "document"
             else f"{n}. [{source_label(s)}]({s.get('url') or ''})"
             for n, s in enumerate(sources, start=1)]
    heading = "**Sources**" + (f" _(confidence: {confidence})_" if confidence else "")
    return heading + "\n\n" + "\n".join(lines)


def literal_angles(text: str) -> str:
    """``text`` with each ``<`` outside code written ``&lt;``, so ``<Ctrl>`` shows as itself.

    The chat's HTML sanitizer would drop it as an unknown tag.
    """
    parts = _CODE.split(text)
    return "".join(part if i % 2 else part.replace("<", "&lt;") for i, part in enumerate(parts))


def mark_unsupported(answer: str, claims: list[dict[str, Any]]) -> str:
    """The answer with each unsupported sentence marked, then why, sentence by sentence."""
    unsupported = [c for c in claims if not c.get("supported")]
    for claim in unsupported:
        start = answer.find(str(claim["text"])[:40].rstrip(".!?"))
        if start >= 0:
            answer = f"{answer[:start]}{UNSUPPORTED} {answer[start:]}"
    if not unsupported:
        return answer
    why = "\n".join(f"- {line}" for line in unsupported_lines(unsupported))
    return f"{answer}\n\n**{UNSUPPORTED_HEADING}**\n{why}"


def answer_markdown(
    answer: str, sources: list[dict[str, Any]], confidence: str | None, turn: int,
    claims: list[dict[str, Any]] | None = None,
) -> str:
    """An answer as the chat shows it: markers, unsupported sentences marked, Sources."""
    block = sources_block(sources, confidence, turn)
    text = mark_unsupported(with_markers(literal_angles(answer), sources, turn), claims or [])
    return f"{text}\n\n{block}" if block else text


def step_line(step: dict[str, Any]) -> str:
    """One step as the Steps box lists it."""
    return f"**{step.get('kind')}**: {step.get('detail', '')}"


def steps_message(steps: list[dict[str, Any]], stats: dict[str, Any], finished: bool,
                  duration: float | None = None) -> Message:
    """The collapsible Steps box above an answer (live, or read back from the turn log)."""
    metadata: dict[str, Any] = {"title": f"Steps ({len(steps)})",
                                "status": "done" if finished else "pending"}
    if finished:
        seconds = stats.get("wall_seconds", duration)
        if seconds is not None:
            metadata["duration"] = round(float(seconds), 2)
    if stats:
        metadata["log"] = stats_line(stats)
    content = "\n".join(f"- {step_line(s)}" for s in steps) or "thinking…"
    return {"role": "assistant", "content": content, "metadata": metadata}


def notice(message: str) -> Message:
    """A warning the turn gave (a failed web search, an unreachable model)."""
    return {"role": "assistant", "content": f"**Warning:** {message}"}


def turn_messages(records: list[TurnRecord]) -> list[Message]:
    """A stored conversation as chat messages.

    Each answer comes with the steps it showed while it ran, its warnings, its sources and
    its unsupported sentences marked, as it showed live.
    """
    messages: list[Message] = []
    for record in records:
        messages.append({"role": "user", "content": record.question})
        if record.steps:
            messages.append(steps_message(record.steps, record.stats, finished=True))
        messages += [notice(m) for m in record.stats.get("errors") or []]
        if record.status == "clarification":
            messages.append({"role": "assistant", "content": record.answer})
        else:
            messages.append({"role": "assistant", "content": answer_markdown(
                record.answer, record.sources, record.confidence, record.turn, record.claims)})
    return messages


def stats_line(stats: dict[str, Any]) -> str:
    """Per-answer figures in one short line (the time is the Steps box's own duration)."""
    return f"{stats.get('llm_calls', 0)} LLM calls · {stats.get('tool_calls', 0)} tool calls"


class ChatTurn:
    """The chat messages of one turn, rebuilt from the agent's events as they arrive."""

    def __init__(self, history: list[Message], question: str, number: int) -> None:
        self.history = [*history, {"role": "user", "content": question}]
        self.number = number
        self.steps: list[dict[str, Any]] = []
        self.answer = ""
        self.sources: list[dict[str, Any]] = []
        self.confidence: str | None = None
        self.claims: list[dict[str, Any]] = []
        self.notices: list[str] = []
        self.stats: dict[str, Any] = {}
        self.clarification: str | None = None
        self.started = time.perf_counter()
        self.finished = False

    def apply(self, event: Event) -> None:
        """Fold one event into the turn."""
        data = event.data
        if event.type == "step":
            self.steps.append(dict(data))
        elif event.type == "token":
            self.answer += str(data["text"])
        elif event.type == "clarification":
            self.clarification = str(data["question"])
        elif event.type == "sources":
            self.sources = list(data.get("sources") or [])
            self.confidence = data.get("confidence")
            self.claims = list(data.get("claims") or [])
        elif event.type == "stats":
            self.stats = dict(data)
        elif event.type == "error":
            self.notices.append(str(data["message"]))
        elif event.type == "done":
            self.finished = True
            if not self.answer and not self.clarification and data.get("answer"):
                self.answer = str(data["answer"])

    def messages(self) -> list[Message]:
        """The chat as it should look now."""
        out = list(self.history)
        if self.steps or not self.finished:
            out.append(steps_message(self.steps, self.stats, self.finished,
                                     time.perf_counter() - self.started))
        out += [notice(message) for message in self.notices]
        if self.clarification:
            out.append({"role": "assistant", "content": self.clarification})
        elif self.answer:
            out.append({"role": "assistant", "content": answer_markdown(
                self.answer, self.sources, self.confidence, self.number, self.claims)})
        return out
