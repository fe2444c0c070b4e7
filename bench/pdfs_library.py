"""The shared PDFs library in the storage benchmarks: a copy of an embedded library, the
questions asked of it, and real ``archivist`` processes (``migrate``, ``serve``) on it.

Used by ``migrate_check.py`` and ``search_throughput.py``. The library itself is made by
``archivist ingest`` (e.g. the five PDFs of the shared evaluation folder into collection
``pdfs``); the benchmarks only ever work on a copy of it.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

API_KEY = "bench-key-0123456789abcdef"
REPO = Path(__file__).resolve().parents[1]
PDFS = Path(os.environ.get("ARCHIVIST_EVAL_DIR", REPO.parent / "shared" / "eval")) / "pdfs"

#: Plain questions about the five PDFs (Amcor's 2023 Q4 earnings release, Netflix's 2017
#: 10-K, R's FAQ, "R Data Import/Export" and "An Introduction to R").
QUESTIONS = [
    "What were Amcor's net sales for fiscal year 2023?",
    "What adjusted earnings per share does Amcor expect for fiscal 2024?",
    "How much free cash flow did Amcor generate in the year?",
    "How much did Amcor return to shareholders through dividends and share repurchases?",
    "How many paid streaming memberships did Netflix have at the end of 2017?",
    "What were Netflix's total revenues in 2017?",
    "How does Netflix amortize its content assets?",
    "What are Netflix's obligations for streaming content?",
    "Which competitors does Netflix name as risks to its business?",
    "How much senior notes debt did Netflix issue?",
    "What is R and how does it relate to the S language?",
    "How do I install add-on packages from CRAN?",
    "Why does R say that 0.1 + 0.2 is not equal to 0.3?",
    "How do I read a comma-separated file into a data frame?",
    "How can R read data from an Excel spreadsheet?",
    "How does R connect to a relational database through ODBC?",
    "What is a factor and how are its levels stored?",
    "How do I write my own function with default arguments?",
    "How are missing values represented and handled?",
    "How do I fit a linear regression model and look at its summary?",
]


def load() -> float:
    """The 1-minute load average (printed beside every figure)."""
    return round(os.getloadavg()[0], 2)


def copy_library(source: Path | None, into: Path, collection: str) -> Path:
    """A copy of the embedded library ``source`` in ``into/library`` (without its lock
    and server files, which belong to the processes using the original); without a
    ``source``, the PDFs of the evaluation folder ingested there into ``collection``."""
    target = into / "library"
    if source is None:
        code, output, seconds = archivist(environment(target, collection), "ingest", str(PDFS))
        if code != 0:
            raise SystemExit(f"archivist ingest {PDFS} failed:\n{output}")
        print(f"ingested {PDFS} in {seconds:.0f} s (load {load()})", flush=True)
        return target
    if not (source / "archivist.sqlite").is_file():
        raise SystemExit(f"{source}: not an embedded library (no archivist.sqlite)")
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("library.lock", "server.json"))
    return target


def environment(data_dir: Path, collection: str, **settings: str) -> dict[str, str]:
    """The environment of an ``archivist`` process on ``data_dir`` (no config file, no model
    download, the scripted LLM unless ``llm`` is given)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARCHIVIST_")}
    env.update({f"ARCHIVIST_{k.upper()}": v for k, v in settings.items()})
    env.update(ARCHIVIST_DATA_DIR=str(data_dir), ARCHIVIST_COLLECTION=collection,
               ARCHIVIST_CONFIG="", HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    env.setdefault("ARCHIVIST_LLM__MODEL", "scripted")
    return env


def archivist(env: dict[str, str], *args: str, timeout: float = 600) -> tuple[int, str, float]:
    """Run ``archivist <args>`` to the end: (exit code, output, seconds)."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "archivist", *args], env=env, timeout=timeout,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return done.returncode, done.stdout, time.perf_counter() - started


@dataclass
class Served:
    """A running ``archivist serve``: its URL, process and output so far."""

    url: str
    process: subprocess.Popen[str]
    output: list[str] = field(default_factory=list)

    def worker_pids(self) -> list[int]:
        """The uvicorn worker processes (the server's own pid when it runs alone); other
        children (multiprocessing's resource tracker) are not workers."""
        found = []
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            for pid in (task / "children").read_text().split():
                command = Path(f"/proc/{pid}/cmdline").read_bytes()
                if b"spawn_main" in command and b"resource_tracker" not in command:
                    found.append(int(pid))
        return found or [self.process.pid]


@contextmanager
def serving(env: dict[str, str], workers: int = 1, start_timeout: float = 180) -> Iterator[Served]:
    """``archivist serve --workers N`` on a free localhost port, stopped on the way out."""
    process = subprocess.Popen(
        [sys.executable, "-m", "archivist", "serve", "--port", "0", "--workers", str(workers)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )
    served = Served("", process)
    assert process.stdout is not None
    deadline = time.monotonic() + start_timeout
    try:
        while not served.url and time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            served.output.append(line)
            if match := re.search(r"listening on (http://\S+)", line):
                served.url = match.group(1)
        if not served.url:
            raise RuntimeError("archivist serve did not start:\n" + "".join(served.output))
        threading.Thread(target=_drain, args=(served,), daemon=True).start()
        yield served
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # the server and its workers
            process.wait()


def _drain(served: Served) -> None:
    assert served.process.stdout is not None
    for line in served.process.stdout:
        served.output.append(line)
