"""The local model as the claim checker, on the labelled set, beside the code's checks.

Usage (the model comes from the settings, as for the CLI)::

    ARCHIVIST_LLM__MODEL=local:1.5b python bench/claims_verify.py [LABELLED] [--out VERDICTS.jsonl]

Every pair (with ``--passed-only``, every pair the code's checks pass, as the agent's
``verify_claims`` setting does) is put to the model as that setting puts a sentence
(``agent/checks/verifier.py``); a "no" flags it. Each verdict is appended to ``--out`` as it
comes (with its seconds), and pairs already there are not asked again, so a stopped run
resumes and its partial figures can be reported. Precision and recall for "unsupported",
per corpus, are printed for three checkers: the code's checks alone, the model alone, and
the code then the model on what the code passed (what ``verify_claims`` does; a pair the
code flags needs no call), with the calls made and their median time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import time
from pathlib import Path
from typing import Any

from claims_calibrate import DEFAULT, by_corpus, load, scored

from archivist.agent.checks.claims import BARE_ANSWER_RULE, SUPPORT_THRESHOLD
from archivist.agent.checks.verifier import model_verifier
from archivist.agent.state import Evidence
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.llm import make_chat_model
from archivist.settings import load_settings


def key(pair: dict[str, Any]) -> str:
    """A pair's identity in the verdicts file: its claim and evidence."""
    text = json.dumps([pair.get("question", ""), pair["claim"], pair["evidence"]])
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def ask_all(pairs: list[dict[str, Any]], out: Path) -> dict[str, dict[str, Any]]:
    """The model's verdict on every pair, read from ``out`` or asked and appended there."""
    done: dict[str, dict[str, Any]] = {}
    if out.exists():
        for line in out.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                done[record["key"]] = record
    missing = [p for p in pairs if key(p) not in done]
    if not missing:
        return done
    verify = model_verifier(make_chat_model(load_settings()))
    with out.open("a", encoding="utf-8") as sink:
        for number, pair in enumerate(missing, start=1):
            units = [Evidence(text=text, heading_path=[], document_name="passage")  # type: ignore[typeddict-item]
                     for text in pair["evidence"]]
            started = time.perf_counter()
            says_yes = verify(pair.get("question", ""), pair["claim"], units)
            record = {"key": key(pair), "yes": says_yes,
                      "seconds": round(time.perf_counter() - started, 2)}
            sink.write(json.dumps(record) + "\n")
            sink.flush()
            done[record["key"]] = record
            print(f"{number}/{len(missing)} {'yes' if says_yes else 'NO '} (labelled "
                  f"{pair['supported']}, {record['seconds']} s): {pair['claim'][:80]}", flush=True)
    return done


def cited_held(pairs: list[dict[str, Any]], passes: list[bool],
               verdicts: dict[str, dict[str, Any]]) -> list[str]:
    """Per corpus, of the cited pairs each checker passes, how many hold (labelled supported).

    This is the share of shown citations that hold their sentence, as the hand count of
    cited units holding their sentence measures it, had each checker decided what is shown.
    """
    lines = []
    for corpus in [*sorted({p["corpus"] for p in pairs}), "all"]:
        cited = [(p, ok) for p, ok in zip(pairs, passes, strict=True)
                 if p.get("pair") == "cited" and corpus in ("all", p["corpus"])
                 and key(p) in verdicts]
        said_yes = [(p, ok) for p, ok in cited if verdicts[key(p)]["yes"]]
        checkers = {"none": cited, "code": [(p, ok) for p, ok in cited if ok],
                    "model": said_yes, "code then model": [(p, ok) for p, ok in said_yes if ok]}
        lines.append(f"  {corpus:<22} " + "; ".join(
            f"{name} {sum(p['supported'] for p, _ in kept)}/{len(kept)}"
            for name, kept in checkers.items()))
    return lines


def main() -> None:
    """Check every pair by code and by the model; report the three checkers per corpus."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("labelled", type=Path, nargs="?", default=DEFAULT)
    parser.add_argument("--out", type=Path, default=Path("claims_verdicts.jsonl"),
                        help="the model's verdicts, one per pair (read back on a rerun)")
    parser.add_argument("--passed-only", action="store_true",
                        help="ask the model only on the pairs the code passes (the agent's "
                             "verify_claims does so); 'the model alone' is then not reported")
    parser.add_argument("--report-only", action="store_true",
                        help="ask nothing: report on the pairs already in --out")
    args = parser.parse_args()
    pairs = load(args.labelled)
    # the code's checks as the agent runs them: the bare-answer rule in use
    rows = scored(pairs, SentenceTransformerEmbedder("all-MiniLM-L6-v2"))[BARE_ANSWER_RULE]
    if args.report_only:
        verdicts = {}
        if args.out.exists():
            verdicts = {r["key"]: r for r in map(json.loads, args.out.read_text().splitlines())}
    else:
        asked = [p for p, r in zip(pairs, rows, strict=True)
                 if not args.passed_only or (r[1] and r[0] >= SUPPORT_THRESHOLD)]
        verdicts = ask_all(asked, args.out)
    passes = [r[1] and r[0] >= SUPPORT_THRESHOLD for r in rows]
    print("code checks alone:")
    print("\n".join(by_corpus(pairs, rows, SUPPORT_THRESHOLD)))
    # precision_recall's shape: flagged when facts are missing or the score is under threshold
    both = [(p, (r[0] if verdicts[key(p)]["yes"] else 0.0, r[1], r[2]) if ok else r)
            for p, r, ok in zip(pairs, rows, passes, strict=True) if not ok or key(p) in verdicts]
    print(f"code, then the model on what the code passed ({len(both)} of {len(pairs)} pairs "
          f"covered; {sum(passes)} passed by the code):")
    print("\n".join(by_corpus([p for p, _ in both], [r for _, r in both], SUPPORT_THRESHOLD)))
    alone = [(p, (1.0 if verdicts[key(p)]["yes"] else 0.0, True, r[2]))
             for p, r in zip(pairs, rows, strict=True) if key(p) in verdicts]
    print(f"the model alone ({len(alone)} pairs with its verdict"
          f"{', only those the code passed' if args.passed_only else ''}):")
    print("\n".join(by_corpus([p for p, _ in alone], [r for _, r in alone], SUPPORT_THRESHOLD)))
    print("the claims against the units they cite: held / passed, by each checker")
    print("\n".join(cited_held(pairs, passes, verdicts)))
    seconds = [verdicts[key(p)]["seconds"] for p, _ in alone]
    if seconds:
        print(f"calls: {len(seconds)}, median {statistics.median(seconds):.1f} s, "
              f"mean {statistics.fmean(seconds):.1f} s")

if __name__ == "__main__":
    main()
