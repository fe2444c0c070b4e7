"""``make demo``: index Archivist's own user guide, search it, and ask it a question.

The guide is indexed as Markdown and as a PDF built from it, on embedded defaults with
no server running.
"""

from __future__ import annotations

import argparse
import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pymupdf

from archivist.app.cli.common import console

GUIDE = Path(__file__).resolve().parents[3] / "docs" / "guide"
#: The question ``make demo`` asks (a real-model scenario test asks it too).
QUESTION = "How does Archivist stay consistent if it is killed during an ingest?"

_CSS = (
    "body {font-family: sans-serif; font-size: 11px;} h1 {font-size: 22px;} h2 {font-size: 16px;}"
)


def markdown_to_html(markdown: str) -> str:
    """Just enough Markdown for the guide: headings, paragraphs, lists and code blocks."""
    out: list[str] = []
    for block in re.split(r"\n\s*\n", markdown.strip()):
        if block.startswith("```"):
            code = "\n".join(block.splitlines()[1:-1])
            out.append(f"<pre>{html.escape(code)}</pre>")
            continue
        heading = re.match(r"^(#{1,3}) (.*)$", block)
        if heading:
            level = len(heading.group(1))
            out.append(f"<h{level}>{html.escape(heading.group(2))}</h{level}>")
            continue
        text = html.escape(" ".join(line.strip() for line in block.splitlines()))
        text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
        out.append(f"<p>{text}</p>")
    return "\n".join(out)


def build_pdf(sources: list[Path], target: Path) -> Path:
    """Render Markdown files into one paged PDF (A5 pages, so it spans several)."""
    body = "\n".join(markdown_to_html(p.read_text(encoding="utf-8")) for p in sources)
    story = pymupdf.Story(html=body, user_css=_CSS)
    writer = pymupdf.DocumentWriter(str(target))
    page = pymupdf.paper_rect("a5")
    more = True
    while more:
        device = writer.begin_page(page)
        more, _ = story.place(page + (36, 36, -36, -36))
        story.draw(device)
        writer.end_page()
    writer.close()
    return target


def run(args: list[str], env: dict[str, str]) -> int:
    """Run an ``archivist`` command the way a user would, echoing it first."""
    console.print(f"\n$ archivist {' '.join(args)}", markup=False)
    return subprocess.call([sys.executable, "-m", "archivist", *args], env=env)


def main() -> int:
    """Build the demo library and exercise it."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workdir", type=Path, default=Path(".demo"))
    workdir = parser.parse_args().workdir
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    guide_pdf = build_pdf(sorted(GUIDE.glob("*.md")), workdir / "archivist-guide.pdf")
    env = {**os.environ, "ARCHIVIST_DATA_DIR": str(workdir / "library")}
    if "ARCHIVIST_LLM" not in env:  # the deprecated spelling, still honoured
        env.setdefault("ARCHIVIST_LLM__MODEL", "scripted")
    llm = env.get("ARCHIVIST_LLM__MODEL") or env["ARCHIVIST_LLM"]
    steps = [
        ["ingest", str(GUIDE), str(guide_pdf)],
        ["list"],
        ["search", "what happens when a PDF is password-protected", "-k", "3"],
        ["search", "keep the index in another folder", "-k", "3", "--mode", "hybrid"],
    ]
    for step in steps:
        code = run(step, env)
        if code != 0:
            return code
    if llm == "scripted":
        console.print(
            "\n(the question below uses the built-in scripted model, which needs no server; "
            "`make demo` without LLM= answers with a real local model)"
        )
    elif llm.startswith("local"):
        console.print(
            "\n(the question below is answered by a real model running inside Archivist on "
            "this CPU: Qwen2.5-Coder-1.5B-Instruct unless LLM names another; loading it and "
            "answering take a minute or more)"
        )
    code = run(
        ["ask", QUESTION, "--verbose"],
        env,
    )
    return 0 if code in (0, 3) else code


if __name__ == "__main__":
    sys.exit(main())
