"""Does the agent's search show the passage that answers? Gold passages or pages in its hits.

Usage::

    python bench/hits_recall.py DATASET --data-dir DIR [-c COLLECTION] [--mode MODE]
        [--hits 6] [--start N] [--limit N] [--renamed PDFS]

No model runs. Each question (its instructions set apart, as the agent does) is searched
the way the agent's ``search_documents`` searches: kept to the documents it names, else
the whole collection, in ``--mode`` (default the index's). Two ways of choosing the hits
shown are compared on the same candidates: the first ``--hits`` chunks (the default), and
the best chunk of each section (``agent.hits_per_section = 1``,
``agent.tools.at_most_per_section``). For a BEIR folder
it counts the judged passages among the hits; for a question file with gold pages (the
curated and table sets, FinanceBench) the questions with a gold page among them.
``--renamed`` maps FinanceBench's filings to the numbered copies in PDFS, as
``filings_bench.py`` ingests them. The library must hold the collection already.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from archivist.agent.question.instructions import split_instructions
from archivist.agent.tools import CANDIDATES_PER_HIT, at_most_per_section, search_candidates
from archivist.application import open_application
from archivist.evaluation.beir import collection_for, load_beir
from archivist.evaluation.qa_datasets import load_qa_dataset
from archivist.index.retriever import DocumentSource
from archivist.types import SearchHit

sys.path.insert(0, str(Path(__file__).parent))
from filings_bench import EVAL, as_renamed, renamed_filings  # noqa: E402


def _questions(dataset: Path, renamed: Path | None) -> tuple[list[tuple[str, set]], str]:
    """``(question, gold)`` pairs and what gold is: passage ids or ``(document, page)``."""
    if dataset.is_dir():
        beir = load_beir(dataset)
        return ([(q.text, set(beir.qrels[q.query_id])) for q in beir.judged_queries()],
                "passages")
    labels = Path(__file__).parent / "data" / "financebench_labels.jsonl"
    items = load_qa_dataset(dataset, labels if "financebench" in dataset.parts else None)
    if renamed is not None:
        names = renamed_filings(EVAL / "financebench" / "pdfs", renamed)
        items = [as_renamed(item, names) for item in items]
    return [(i.question, set(i.gold_pages)) for i in items if i.gold_pages], "pages"


def _found(hits: list[SearchHit], gold: set, names: dict[str, str], kind: str) -> int:
    if kind == "passages":
        return len(gold & {names[h.document_id].rsplit(".", 1)[0] for h in hits})
    pages = {(names[h.document_id], page) for h in hits if h.page_start is not None
             for page in range(h.page_start, (h.page_end or h.page_start) + 1)}
    return int(bool(gold & pages))


def main() -> None:
    """Print, for both ways of choosing the hits, how much gold they show."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--collection", "-c", default=None)
    parser.add_argument("--mode", default=None)
    parser.add_argument("--hits", type=int, default=6)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--renamed", type=Path, default=None)
    args = parser.parse_args()
    questions, kind = _questions(args.dataset, args.renamed)
    end = None if args.limit is None else args.start + args.limit
    questions = questions[args.start:end]
    collection = args.collection
    if collection is None and args.dataset.is_dir():
        collection = collection_for(load_beir(args.dataset))
    wanted = args.hits * CANDIDATES_PER_HIT
    with open_application(data_dir=args.data_dir) as app:
        retriever = app.searcher.retriever(collection)
        source = retriever if isinstance(retriever, DocumentSource) else None
        names = {d.document_id: d.name for d in app.store.documents(collection)}
        first = shown = total = 0
        for text, gold in questions:
            query = split_instructions(text).question
            hits = search_candidates(retriever, source, query, wanted, args.mode)
            first += _found(hits[: args.hits], gold, names, kind)
            shown += _found(at_most_per_section(hits, args.hits), gold, names, kind)
            total += len(gold) if kind == "passages" else 1
    what = "gold passages" if kind == "passages" else "questions with a gold page"
    print(f"{args.dataset.name}: {len(questions)} questions; {what} in {args.hits} hits: "
          f"first chunks {first} of {total}, one per section {shown} of {total}")


if __name__ == "__main__":
    main()
