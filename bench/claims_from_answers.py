"""(claim, evidence) pairs from answers a real model already gave, for labelling by hand.

Usage::

    python bench/claims_from_answers.py OUT/agent/answers.jsonl [...] --out pairs.jsonl

Reads the records ``bench/answers_compare.py`` (or ``archivist eval answers --out``) wrote:
no model runs. Each sentence of an answer that cites a source (``[guide.pdf, p. 9]``) is
paired with the passages of the sources its citation names (``cited``), and with the best
passage the answer did not cite (``other``), both scored by the claim checker; the label is
left empty (``supported: null``) for a person to fill in. Abstentions give no pairs.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from archivist.agent.checks.claims import check_claim, split_claims, strip_citations
from archivist.evaluation.qa_metrics import abstained
from archivist.index.embeddings import SentenceTransformerEmbedder

LABEL = re.compile(r"\[([^\[\]]+?)\]")


def _sentences(answer: str) -> list[tuple[str, list[str]]]:
    """Each sentence with the source labels it cites (``guide.pdf, p. 9``, or ``#2``).

    Each label becomes a number first, so the claim checker's own splitter reads them.
    """
    labels: list[str] = []

    def number(match: re.Match[str]) -> str:
        labels.append(match.group(1))
        return f"[{len(labels)}]"

    if re.search(r"\[\d+\]", answer):  # written from units: [n] is its n-th source
        return [(strip_citations(sentence), [f"#{n}" for n in cited])
                for sentence, cited in split_claims(answer)]
    numbered = LABEL.sub(number, answer)
    return [(strip_citations(sentence), [labels[n - 1] for n in cited if 1 <= n <= len(labels)])
            for sentence, cited in split_claims(numbered)]


def _passages(record: dict[str, Any], labels: list[str]) -> list[str]:
    """The passages of the record's sources that the labels name (by document and pages)."""
    found: list[str] = []
    sources = list(record.get("sources") or [])
    for label in labels:  # "#n": the answer's n-th source
        if label.startswith("#") and label[1:].isdigit() and 0 < int(label[1:]) <= len(sources):
            passage = str(sources[int(label[1:]) - 1].get("passage") or "").strip()
            if passage and passage not in found:
                found.append(passage)
    for source in sources:
        name = str(source.get("document_name") or "")
        where = f"{name}, {source.get('pages')}" if source.get("pages") else name
        if any(label.startswith(where) or label == name for label in labels):
            passage = str(source.get("passage") or "").strip()
            if passage and passage not in found:
                found.append(passage)
    return found


def _retrieved(record: dict[str, Any]) -> list[str]:
    """Every passage the run retrieved (its search results), once each."""
    texts: list[str] = []
    for context in record.get("contexts") or []:
        for hit in context.get("evidence") or []:
            text = str(hit.get("text") or "").strip()
            if text and text not in texts:
                texts.append(text)
    return texts


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def _same(text: str, other: str) -> bool:
    """The same passage cut or formatted differently (most of the shorter one's words)."""
    a, b = _words(text), _words(other)
    return bool(a and b) and len(a & b) >= 0.8 * min(len(a), len(b))


def pairs(record: dict[str, Any], embedder: Any) -> list[dict[str, Any]]:
    """The record's pairs: each cited claim with what it cites and with the best other."""
    if abstained(record.get("answer") or ""):
        return []
    question = str(record.get("question") or "")
    out = []
    for claim, labels in _sentences(str(record.get("answer") or "")):
        cited = _passages(record, labels)
        if not cited:
            continue
        others = [t for t in _retrieved(record) if not any(_same(t, c) for c in cited)]
        groups = [("cited", cited)]
        if others:
            scored = [(check_claim(claim, [1], [t], embedder, question=question).score, t)
                      for t in others]
            groups.append(("other", [max(scored)[1]]))
        for kind, evidence in groups:
            checked = check_claim(claim, list(range(1, len(evidence) + 1)), evidence,
                                  embedder, question=question)
            out.append({"question": question, "source": record.get("item_id"),
                        "claim": claim, "evidence": evidence, "pair": kind,
                        "score": checked.score, "checker": checked.supported,
                        "reason": checked.reason, "supported": None})
    return out


def main() -> None:
    """Write the pairs of every record of the given answer files."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("answers", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    embedder = SentenceTransformerEmbedder("all-MiniLM-L6-v2")
    count = 0
    with args.out.open("w", encoding="utf-8") as out:
        for path in args.answers:
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    for pair in pairs(json.loads(line), embedder):
                        out.write(json.dumps(pair) + "\n")
                        count += 1
    print(f"{count} pairs -> {args.out}")


if __name__ == "__main__":
    main()
