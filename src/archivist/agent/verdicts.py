"""Claims that judge between a question's subjects, checked subject by subject.

"Which band was formed first, The Marrows or Velvet Orchard?", "Are Brenmoor Regional
Airport and Calder Regional Airport both in the same state?": the question
offers its subjects, joined by "or" or "and" (:func:`offered_subjects`). A claim that
answers it states something of each subject it names, or a verdict among them, and word
or similarity checks over the cited units joined cannot tell whose fact is whose: "Lena
Farrow is Canadian" passed over Lena Farrow's unit ("a Scottish musician") joined with Dario
Quist's ("a Canadian singer"). :func:`verdict_problem` reads the cited units one subject
at a time:

- each subject the claim is about is named by a cited unit, and the property the claim
  states of it (its words past the subjects and the verdict) is held by that subject's
  units (a negated claim only needs its subjects named);
- a verdict in time ("formed first", "the oldest", "younger") agrees with the years the
  subjects' units give, the earliest year of each;
- "the same" names what they share (the property check then looks for it under each);
- any other verdict ("larger", "the most") needs each subject's unit cited; code cannot
  weigh two sizes written in words, so such a sentence, which spans sections, goes to the
  verification call where one is made (``verifier.py``; on the small policy always).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from archivist.agent.policy.subjects import NAME_WORD as _WORD
from archivist.agent.policy.subjects import mentions, offered_subjects, own_words

_YEAR = re.compile(r"(?<!\d)(1[0-9]\d\d|20\d\d)(?!\d)")
_NEGATION = re.compile(r"\b(not|no|neither|nor|never|none|\w+n't)\b", re.IGNORECASE)
#: Verdicts in time: the subject named first holds the earliest year (or the latest).
EARLIER = frozenset(["first", "earlier", "earliest", "older", "oldest", "elder", "eldest",
                     "before", "predates"])
LATER = frozenset(["later", "latest", "younger", "youngest", "newer", "newest", "after",
                   "recent"])
SAME = frozenset(["same", "both"])
#: Verdicts of size or amount, which code cannot check across two units.
WEIGHED = frozenset([
    "larger", "largest", "bigger", "biggest", "smaller", "smallest", "taller", "tallest",
    "longer", "longest", "shorter", "shortest", "higher", "highest", "lower", "lowest",
    "more", "most", "less", "least", "fewer", "fewest", "greater", "greatest", "heavier",
    "heaviest", "wider", "widest", "deeper", "deepest", "faster", "fastest", "better",
    "best", "worse", "worst", "different",
])
#: Words of a verdict's frame, never a property: "Yes, ...", "... than ...", "... of the two".
_FRAME = frozenset(["yes", "than", "two", "one", "each", "also", "too", "either", "was",
                    "were", "is", "are", "has", "have", "had", "both", "same"])


def _first_mention(text: str, words: set[str]) -> int:
    spots = [m.start() for w in words
             for m in re.finditer(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text, re.IGNORECASE)]
    return min(spots) if spots else len(text)


def _property(claim: str, subjects: Sequence[str]) -> str:
    """The claim's words past its subjects' names and its verdict's frame."""
    named = {w.strip("'’.!-").lower() for s in subjects for w in _WORD.findall(s)}
    kept = [w for w in _WORD.findall(claim) if w.lower().strip("'’") not in named
            and w.lower() not in _FRAME | EARLIER | LATER | WEIGHED]
    return " ".join(kept)


def judged_by_code(claim: str, question: str) -> bool:
    """Whether :func:`verdict_problem` reads ``claim`` subject by subject in full.

    So when the question offers subjects, the claim is about one of them (or all: "both",
    "the same"), and its verdict is not one of size or amount. Such a claim is not put to
    the verification call: asked whether "Orla Venn is the oldest" over Venn's "born 1939"
    and Castellan's "born 1976", the 1.5B answered no; code had read the years.
    """
    subjects = offered_subjects(question)
    own = own_words(subjects)
    if not subjects or any(not words for words in own.values()):
        return False
    words = {w.lower() for w in _WORD.findall(claim)}
    if words & WEIGHED:
        return False
    return bool(words & SAME) or any(mentions(claim, own[s]) for s in subjects)


def verdict_problem(
    claim: str, cited: Sequence[str], question: str, *,
    holds: Callable[[str, Sequence[str]], bool],
) -> str:
    """Why ``cited`` does not back ``claim`` subject by subject; "" when it does or cannot tell.

    ``holds(property, units)`` says whether units hold a property's names and words (the
    claim check's own tests, :func:`archivist.agent.claims.holds_property`).
    """
    subjects = offered_subjects(question)
    if not subjects or not cited:
        return ""
    own = own_words(subjects)
    if any(not words for words in own.values()):
        return ""  # two subjects that only differ by a stop word: no telling them apart
    words = {w.lower() for w in _WORD.findall(claim)}
    about = sorted((s for s in subjects if mentions(claim, own[s])),
                   key=lambda s: _first_mention(claim, own[s]))
    timed = words & (EARLIER | LATER)
    weighed = words & WEIGHED
    if not about and words & SAME and not timed and not weighed:
        about = list(subjects)  # "Yes, both are in the same state": said of every subject
    if not about:
        return ""
    if timed or weighed:
        about = about + [s for s in subjects if s not in about]  # judged against them all
    units_of = {s: [u for u in cited if mentions(u, own[s], every=True)] for s in about}
    unnamed = [s for s in about if not units_of[s]]
    if unnamed:
        return f"no cited passage names {', '.join(unnamed)}"
    if weighed:
        return ""  # each subject's passage cited; code cannot weigh sizes written in words
    if timed:
        return _time_problem(about, units_of, later=bool(words & LATER) and not words & EARLIER)
    if _NEGATION.search(claim):
        return ""
    stated = _property(claim, subjects)
    if "same" in words and not re.search(r"\d|(?<=\s)[A-Z]", stated):
        return "it does not say what they share"
    lacking = [s for s in about if not holds(stated, units_of[s])]
    if lacking:
        return f"the cited passages on {', '.join(lacking)} do not say this of it"
    return ""


def _time_problem(about: list[str], units_of: dict[str, list[str]], *, later: bool) -> str:
    """Why the years of each subject's units do not put the claim's first subject first."""
    years: dict[str, int] = {}
    for subject in about:
        found = [int(y) for u in units_of[subject] for y in _YEAR.findall(u)]
        if not found:
            return f"no cited passage gives a year for {subject}"
        years[subject] = min(found)
    first = years[about[0]]
    rivals = [years[s] for s in about[1:]]
    beaten = any(y >= first for y in rivals) if later else any(y <= first for y in rivals)
    if beaten:
        return (f"the cited passages' years ({', '.join(f'{s} {y}' for s, y in years.items())})"
                " do not bear this out")
    return ""

