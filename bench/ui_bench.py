"""Web UI speed in the system Chromium: first paint, and a conversation of 50 turns.

Starts a real server (one key, scripted model) over one small PDF, runs a 50-turn
conversation through the API with that key, then logs in to the UI with the same key and
measures: the first contentful paint of the first visit (the login page, nothing cached)
and of the UI once logged in, and the time until the page has loaded its conversations;
opening the 50-turn conversation from the sidebar; and one more question in it (time
until its answer shows). Targets: first paint under 2 s; the 50-turn conversation opens
and answers without stalling.

    python bench/ui_bench.py [--turns 50] [--out bench/results/ui.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import httpx  # noqa: E402
import uvicorn  # noqa: E402

from archivist.app.api.app import create_app  # noqa: E402
from archivist.app.cli.serve import bind  # noqa: E402
from archivist.application import Application  # noqa: E402
from archivist.settings import Settings  # noqa: E402

KEY = "bench-key"
PAINT = "() => (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime"
CHROMIUM = "/usr/bin/chromium"
PAGES = [
    "Zephyr Pump Manual\n\nThe Zephyr pump is a compact water pump for greenhouses.",
    "Calibration\n\nThe Zephyr pump must be calibrated every 90 days with the blue valve.",
    "Warranty\n\nThe Zephyr warranty lasts five years from the date of purchase.",
]
QUESTIONS = ["How long does the Zephyr warranty last?", "How often is the pump calibrated?",
             "What is the Zephyr pump?"]


def make_pdf(path: Path) -> Path:
    """A three-page PDF (pymupdf)."""
    import pymupdf

    document = pymupdf.open()
    for text in PAGES:
        page = document.new_page()
        page.insert_textbox(pymupdf.Rect(72, 72, 520, 770), text, fontsize=12)
    document.save(str(path))
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="archivist-ui-bench-"))
    settings = Settings(data_dir=root / "lib", llm={"model": "scripted"}, server={"api_keys": KEY})
    library = Application(settings)
    library.ingest.files([make_pdf(root / "zephyr-manual.pdf")])
    sock = bind("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(create_app(library), log_level="warning"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    headers = {"Authorization": f"Bearer {KEY}"}
    with httpx.Client(base_url=url, headers=headers, timeout=120) as http:
        thread = http.post("/v1/conversations").json()["thread_id"]
        started = time.perf_counter()
        for turn in range(args.turns):
            reply = http.post(f"/v1/conversations/{thread}/messages",
                              json={"message": QUESTIONS[turn % len(QUESTIONS)]})
            reply.raise_for_status()
        api_turn_s = (time.perf_counter() - started) / args.turns
    figures = measure(url, args.turns)
    figures["api_seconds_per_turn"] = round(api_turn_s, 3)
    figures["load_average_1m"] = os.getloadavg()[0]
    print(json.dumps(figures, indent=2))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(figures, indent=2))
    server.should_exit = True
    library.close()
    slowest = max(figures["first_contentful_paint_cold_s"], figures["first_contentful_paint_s"])
    return 0 if slowest < 2.0 else 1


def measure(url: str, turns: int) -> dict[str, float]:
    """Timings of the UI in Chromium."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(120_000)
        page.goto(f"{url}/ui/")
        page.locator("input[type=password]").wait_for()
        cold = page.evaluate(PAINT)
        page.locator("input[type=password]").fill(KEY)
        page.locator("input[type=text]").first.fill("bench")
        page.keyboard.press("Enter")
        page.locator("#thread-id").wait_for(state="attached")
        started = time.perf_counter()
        page.goto(f"{url}/ui/")
        page.get_by_role("tab", name="Chat").wait_for()
        paint = page.evaluate(PAINT)
        page.locator("#thread-id.loaded").wait_for(state="attached")
        loaded_s = time.perf_counter() - started

        started = time.perf_counter()
        page.locator("#conversations label").first.click()
        page.wait_for_function(  # every answer shown, with its Sources (and its Steps box)
            "n => document.querySelector('#chatbot').innerText.split('Sources').length > n",
            arg=turns)
        open_s = time.perf_counter() - started

        started = time.perf_counter()
        page.locator("#question textarea").fill("Where is the blue valve?")
        page.locator("#send").click()
        page.wait_for_function(
            "n => document.querySelectorAll('#chatbot .bot').length >= n", arg=turns + 1)
        page.locator("#chatbot").filter(has_text="Where is the blue valve?").wait_for()
        page.wait_for_function("() => document.querySelectorAll('#chatbot .bot').length > 0 && "
                               "document.querySelector('#chatbot').innerText.split('Sources')"
                               f".length > {turns + 1}")
        answer_s = time.perf_counter() - started
        browser.close()
    return {
        "first_contentful_paint_cold_s": round((cold or 0) / 1000, 3),
        "first_contentful_paint_s": round((paint or 0) / 1000, 3),
        "page_loaded_with_conversations_s": round(loaded_s, 3),
        f"open_{turns}_turn_conversation_s": round(open_s, 3),
        f"answer_in_{turns}_turn_conversation_s": round(answer_s, 3),
    }


if __name__ == "__main__":
    sys.exit(main())
