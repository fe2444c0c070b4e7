"""Document text never drives the terminal: every CLI command that prints it prints it
as plain text (no Rich markup, no emoji codes, no OSC-8 links, no control sequences).

A real terminal is simulated (``FORCE_COLOR``), so Rich emits its own colour codes; the
document's file name and text carry markup, emoji codes and raw escape sequences. The
commands run in one fresh interpreter on a real library with the scripted model.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

HOSTILE_NAME = "\x1b]8;;http:evil.example\x1b\\notes[bold]red[conceal] :x:\x1b[2J.md"
SHOWN_NAME = HOSTILE_NAME.replace("\x1b", "")  # as printed: the escapes gone, the rest literal
HOSTILE_TEXT = (
    "# [link=https://evil.example]Accounts[/link] :x: list\n\n"
    "root:x:0:0:root:/root:/bin/bash is the root account of the server. "
    "[conceal]hidden words[/conceal] follow here. Terminal \x1b[2J\x1b]8;;https://evil.example"
    "\x07clickme\x1b]8;;\x07 ends the line. :smile: \u202eeman\n"
)
COMMANDS = [
    ["ingest", "{docs}"],
    ["list"],
    ["show", "{doc_id}"],
    ["search", "root account server", "--mode", "bm25"],
    ["ask", "which is the root account of the server?"],
    ["chat"],
]
RUNNER = """
import sys
from archivist.app.cli.main import app
for args in {commands!r}:
    print("@@@", args[0], flush=True)
    try:
        app(args, standalone_mode=False)
    except SystemExit:
        pass
    sys.stdout.flush()
"""
# Rich's own: colours, and the progress bar's cursor hiding, line clearing and moving up
SGR = re.compile(r"\x1b\[(?:[0-9;]*m|\?25[lh]|2K|[0-9]*A)")


def test_every_command_prints_document_text_as_plain_text(tmp_path: Path) -> None:
    from archivist.ingest_progress import content_hash

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / HOSTILE_NAME).write_text(HOSTILE_TEXT)
    doc_id = content_hash(HOSTILE_TEXT.encode())[:12]
    commands = [[a.format(docs=docs, doc_id=doc_id) for a in c] + ["--data-dir", str(
        tmp_path / "lib")] for c in COMMANDS]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARCHIVIST_")}
    env.update(FORCE_COLOR="1", COLUMNS="400", TERM="xterm-256color", HF_HUB_OFFLINE="1",
               ARCHIVIST_LLM__MODEL="scripted", ARCHIVIST_CONFIG="")
    run = subprocess.run([sys.executable, "-c", RUNNER.format(commands=commands)],
                         input="which is the root account of the server?\n/exit\n",
                         capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    outputs = dict(part.split("\n", 1) for part in run.stdout.split("@@@ ")[1:])
    assert set(outputs) == {c[0] for c in COMMANDS}, run.stdout
    assert "\x1b[" in outputs["list"], "Rich should be colouring: the terminal is not simulated"
    for command, out in [*outputs.items(), ("(stderr)", run.stderr)]:
        text = SGR.sub("", out)
        assert "\x1b" not in text and "\x07" not in text, (command, text)
        assert "\u202e" not in text and "❌" not in text and "😄" not in text, (command, text)
    shown = {c: SGR.sub("", out) for c, out in outputs.items()}
    assert SHOWN_NAME in shown["list"]
    assert "[link=https://evil.example]Accounts[/link] :x:" in shown["show"]
    assert "root:x:0:0" in shown["show"]  # the chunk preview
    for command in ("search", "ask", "chat"):
        assert "root:x:0:0:root" in shown[command], (command, shown[command])
        assert SHOWN_NAME in shown[command], (command, shown[command])
    assert "[conceal]hidden words[/conceal]" in shown["search"]
