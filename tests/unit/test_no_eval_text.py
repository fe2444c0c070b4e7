"""No evaluation item's text is written into ``src/`` or ``tests/``.

An evaluation item is a question (or an answer of three words or more past a leading article)
of a dev or validation set, a gold supporting passage of the HotpotQA or MuSiQue corpus, or a
FinanceBench evidence text. Text is compared normalised (lower case, punctuation to spaces):
any 8 consecutive words of a question or answer (a shorter one: all of it, as whole words; a
question under 4 words is not checked) and any 12 consecutive words of a passage count as a
copy. Code that reads the evaluation files at run time holds none of their text, so it never
matches.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from tests.eval_data import EVAL_DIR, require_eval

REPO = Path(__file__).resolve().parents[2]
SCANNED = ("src", "tests")
SUFFIXES = {".py", ".json", ".jsonl", ".md", ".txt", ".csv", ".html", ".yaml", ".yml", ".mako"}
DEV_SETS = ("pdf_questions.jsonl", "table_questions.jsonl", "wholedoc_questions.jsonl")
QUESTION_WORDS = 8  # a question or answer: any 8 consecutive words
SHORTEST = 4  # a question under 4 words is too common to check
ANSWER_SHORTEST = 3  # an answer of 3 words or more (past a leading article) is checked
ARTICLES = {"the", "a", "an"}
PASSAGE_WORDS = 12  # a passage or evidence text: any 12 consecutive words


Shingle = tuple[str, ...]
Source = tuple[str, str]  # (set, item id)

NOT_WORD = re.compile(r"[\W_]+")
UNICODE_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


def words(text: str) -> list[str]:
    """The text lower-cased, with every run of punctuation or space made one word break."""
    return NOT_WORD.sub(" ", text.lower()).split()


def jsonl(path: Path) -> Iterator[dict]:
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def gold_ids(qrels: Path) -> set[str]:
    with qrels.open(encoding="utf-8") as rows:
        return {row["corpus-id"] for row in csv.DictReader(rows, delimiter="\t")}


class Shingles:
    """One table of shingle -> evaluation item, by shingle length."""

    def __init__(self) -> None:
        self.table: dict[Shingle, Source] = {}
        self.lengths: set[int] = set()

    def add(self, text: str, source: Source, width: int, shortest: int) -> None:
        tokens = words(text)
        if len(tokens) < shortest:
            return
        if len(tokens) <= width:
            self._put(tuple(tokens), source)
            return
        for start in range(len(tokens) - width + 1):
            self._put(tuple(tokens[start : start + width]), source)

    def question(self, text: str, source: Source) -> None:
        self.add(text, source, QUESTION_WORDS, SHORTEST)

    def answers(self, answers: Iterable[str], source: Source) -> None:
        for answer in answers:
            tokens = words(answer)
            if tokens and tokens[0] in ARTICLES:  # "the United States" is two words of its own
                tokens = tokens[1:]
            self.add(" ".join(tokens), source, QUESTION_WORDS, ANSWER_SHORTEST)

    def passage(self, text: str, source: Source) -> None:
        self.add(text, source, PASSAGE_WORDS, PASSAGE_WORDS)

    def _put(self, shingle: Shingle, source: Source) -> None:
        self.table.setdefault(shingle, source)
        self.lengths.add(len(shingle))


def beir_set(shingles: Shingles, folder: Path, name: str) -> None:
    for item in jsonl(folder / "queries.jsonl"):
        shingles.question(item["text"], (name, item["_id"]))
        shingles.answers(item.get("answers", []), (name, item["_id"]))
    gold = gold_ids(folder / "qrels" / "test.tsv")
    for passage in jsonl(folder / "corpus.jsonl"):
        if passage["_id"] in gold:
            shingles.passage(passage["text"], (f"{name} passage", passage["_id"]))


def evaluation_shingles() -> Shingles:
    shingles = Shingles()
    shared = require_eval(EVAL_DIR)
    for name in ("hotpotqa_train100", "musique_train100"):
        beir_set(shingles, require_eval(shared / name), name)
    for item in jsonl(require_eval(shared / "scifact") / "queries.jsonl"):
        shingles.question(item["text"], ("scifact", item["_id"]))
    for item in jsonl(require_eval(shared / "financebench") / "questions.jsonl"):
        source = ("financebench", item["financebench_id"])
        shingles.question(item["question"], source)
        shingles.answers([item["answer"]], source)
        for evidence in item["evidence"]:
            shingles.passage(evidence["evidence_text"], ("financebench evidence", source[1]))
    for name in DEV_SETS:
        for item in jsonl(REPO / "bench" / "data" / name):
            source = (name.removesuffix(".jsonl"), item["id"])
            shingles.question(item["question"], source)
            if isinstance(item.get("reference"), str):
                shingles.answers([item["reference"]], source)
    return shingles


def scanned_files() -> Iterator[Path]:
    for top in SCANNED:
        for path in sorted((REPO / top).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file():
                yield path


def file_words(path: Path) -> tuple[list[str], list[int]]:
    """The file's words in order across lines, and the line number of each."""
    tokens: list[str] = []
    lines: list[int] = []
    text = path.read_text(encoding="utf-8", errors="replace")
    for number, line in enumerate(text.splitlines(), start=1):
        line = UNICODE_ESCAPE.sub(lambda hex_: chr(int(hex_.group(1), 16)), line)
        found = words(line)
        tokens.extend(found)
        lines.extend([number] * len(found))
    return tokens, lines


def copies(path: Path, shingles: Shingles) -> list[tuple[int, Source]]:
    """(line, item) for each run of copied evaluation text, reported at the run's first line.

    Overlapping windows of one item are one run; a window inside a run already reported
    (an answer quoted within its passage) is not reported again.
    """
    tokens, lines = file_words(path)
    found: list[tuple[int, Source]] = []
    last: Source | None = None
    run_end = -1
    for start in range(len(tokens)):
        for width in shingles.lengths:
            source = shingles.table.get(tuple(tokens[start : start + width]))
            if source is None or start + width <= run_end:
                continue
            if source != last or start >= run_end:
                found.append((lines[start], source))
            last, run_end = source, start + width
            break
    return found


def test_no_evaluation_text_in_src_or_tests() -> None:
    shingles = evaluation_shingles()
    assert len(shingles.table) > 10_000  # the sets were read
    report = []
    for path in scanned_files():
        for line, (name, item) in copies(path, shingles):
            report.append(f"{path.relative_to(REPO)}:{line}: text of {name} item {item}")
    assert report == [], "evaluation text in src/ or tests/:\n" + "\n".join(report)


def test_copied_text_is_found_and_reworded_text_is_not(tmp_path: Path) -> None:
    shingles = Shingles()
    shingles.question("Which river runs past the old mill of Varnholt in 1874?", ("dev", "q1"))
    shingles.question("Who built Varnholt mill?", ("dev", "q2"))  # 4 words: whole-word match
    shingles.answers(["the Upper Varn", "Eda Quill Marrowby"], ("dev", "q2"))
    shingles.passage("Varnholt mill was built in 1874 by the miller Eda Quill Marrowby on the "
                     "east bank of the Upper Varn.", ("corpus", "p1"))
    copied = tmp_path / "copied.py"
    copied.write_text('ASK = (\n    "which river runs past the OLD MILL "\n    "of Varnholt?"\n)\n'
                      "# Varnholt mill, built in 1874 by the miller\n"
                      "# Eda Quill Marrowby on the east bank\n"
                      'NAME = "Eda Quill Marrowby"\n')
    assert copies(copied, shingles) == [(2, ("dev", "q1")), (5, ("corpus", "p1")),
                                        (7, ("dev", "q2"))]
    reworded = tmp_path / "reworded.py"
    reworded.write_text('ASK = "Which stream flows by the mill at Varnholt?"\n'
                        '"who built varnholt millstone" "the Upper Varn" "Eda Quill"\n'
                        "# The miller Eda Marrowby built a mill at Varnholt in 1874.\n")
    assert copies(reworded, shingles) == []
