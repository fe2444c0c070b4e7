"""Does the writer read the answer? The share of questions whose reference answer is in the
evidence of the agent's first writing call, with no real model.

Usage::

    python bench/evidence_recall.py DATASET --data-dir DIR [--limit N] [SETTING=VALUE ...]

The agent runs on a scripted model (the small profile, so research is decided in code and
the first call that shows passages is the writer's), once per variant: the settings as
they are, then each variant of ``[agent]`` settings given, as for ``answers_compare.py``
(``evidence_floor=0,evidence_tokens=1400``). For each variant it prints the share of
questions whose writer prompt states a reference answer, and the prompt's mean size. It
measures the evidence stage alone: a run with a real model says what the writer makes of it.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

from archivist.agent.service import AgentService
from archivist.application import open_application
from archivist.evaluation.beir import collection_for, ingest_corpus, load_beir
from archivist.evaluation.qa_datasets import load_qa_dataset
from archivist.testing import ScriptedChatModel

sys.path.insert(0, str(Path(__file__).parent))
from answers_compare import _overrides  # noqa: E402

_WORDS = re.compile(r"[a-z0-9]+")


def _normal(text: str) -> str:
    return " " + " ".join(_WORDS.findall(text.lower())) + " "


def _writer_prompt(model: ScriptedChatModel, first: int) -> str:
    """The text of the first call from ``first`` on that shows passages, question lines out."""
    for call in model.calls[first:]:
        if "<passage" in call.text:
            return "\n".join(line for line in call.text.splitlines()
                             if not line.lower().startswith("question"))
    return ""


def main() -> None:
    """Print, per variant, the share of questions whose writer reads a reference answer."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("variants", nargs="*", help="SETTING=VALUE[,SETTING=VALUE]")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--collection", "-c", default=None)
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_intermixed_args()

    items = load_qa_dataset(args.dataset)[: args.limit]
    with open_application(data_dir=args.data_dir) as app:
        if args.dataset.is_dir():
            beir = load_beir(args.dataset)
            args.collection = args.collection or collection_for(beir)
            ingest_corpus(app, beir, args.collection)
        for variant in ["defaults", *args.variants]:
            changes = {} if variant == "defaults" else _overrides(variant)
            settings = app.settings.with_values(agent={**changes, "policy": "small"})
            found, chars, started = 0, 0, time.perf_counter()
            model = ScriptedChatModel()
            service = AgentService(app.searcher, settings, model, database=app.database)
            for item in items:
                first = len(model.calls)
                service.ask(item.question, thread_id=service.new_thread_id(),
                            collection=args.collection)
                prompt = _writer_prompt(model, first)
                chars += len(prompt)
                text = _normal(prompt)
                found += any(_normal(ref).strip() and _normal(ref) in text
                             for ref in item.references)
            print(f"{variant}: reference in the writer's evidence {found}/{len(items)}, "
                  f"prompt {chars / max(len(items), 1) / 4:.0f} tokens on average, "
                  f"{time.perf_counter() - started:.0f}s", flush=True)
            service.close()


if __name__ == "__main__":
    main()
