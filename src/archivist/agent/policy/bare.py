"""Bare answers: a name or figure given as the whole answer ("Old Norse [1]").

* :func:`bare_answer`: the name a claim gives as the whole answer, else "".
* :func:`answer_unlinked`: a bare answer whose cited sentences that name it state little
  of what the question asks. Every word of a bare answer is in the unit it cites, so the
  word checks pass it whatever that unit says of it; whether the unit says it *is* the
  answer is a judgement of meaning, put to the verification call (small policy
  ``verify_bare_answers``).
* :func:`as_answer`: the statement a bare answer makes, for that call: "The answer to
  the question is Old Norse." ("Old Norse" alone is stated by any passage that names it).
"""

from __future__ import annotations

from collections.abc import Sequence

from archivist.agent.claims import strip_citations
from archivist.agent.policy.question import asks_to_judge
from archivist.agent.state import Evidence
from archivist.agent.unit_split import is_list_item, text_sentences
from archivist.stopwords import content_words

#: Words of a bare answer ("Old Norse", "Harold "The Heron" Pike"), at most.
BARE_WORDS = 5
#: Words of the question, unstated by the cited passages, the bridge's sentence must state;
#: also what a bare answer's own sentence must state of the question (with half of them).
BRIDGE_OPEN_WORDS = 2


def bare_answer(claim: str, question: str) -> str:
    """The name or figure ``claim`` gives as the whole answer, without its citations; else "".

    Bare: not an item of a list, at most :data:`BARE_WORDS` words, not words of the question
    ("The Marrows" for "Which band was formed first, The Marrows or Velvet Orchard?" is a
    verdict), and at least half of its content words new to it ("Leela Varma" is, for a
    question on Kiran Varma; "Scrolls were copied into Old Norse" is a short sentence, not a
    name).
    """
    named = strip_citations(claim).strip(" .")
    if (not named or is_list_item(named)  # "- Old Norse [1]": one answer of a list, not the answer
            or len(named.split()) > BARE_WORDS or named.lower() in question.lower()):
        return ""
    own = content_words(named)
    return "" if 2 * len(own - content_words(question)) < len(own) else named


def states_enough(stated: int, wanted: int) -> bool:
    """Whether ``stated`` of ``wanted`` words is :data:`BRIDGE_OPEN_WORDS`, and half, of them."""
    return stated >= max(BRIDGE_OPEN_WORDS, wanted / 2)


def answer_unlinked(question: str, claim: str, cited: Sequence[Evidence]) -> bool:
    """Whether ``claim`` is a bare answer no cited sentence that names it links to the question.

    Linked: a sentence of a cited unit names the answer and states
    :data:`BRIDGE_OPEN_WORDS`, and half, of the question's words ("Halvard CEO Ines Moray
    said ..." for "Who is the CEO of Halvard?"). Asked what language scrolls were copied
    into in Odo of Wrenfield's time, the 1.5B answered "Old Norse [1]" from Odo's page,
    whose one sentence naming Old Norse glosses his epithet; asked for the pop band one of a
    film's stars founded, it named a star, from the film's cast list. A verdict between
    the question's own subjects is read by ``verdicts.py``, not here.
    """
    named = bare_answer(claim, question)
    if not named or asks_to_judge(question):
        return False
    wanted = content_words(question) - content_words(named)
    if not wanted:
        return False
    marks = content_words(named)
    best = 0
    for sentence in (s for item in cited for s in text_sentences(item.get("text", ""))):
        words = content_words(sentence)
        if marks & words or named.lower() in sentence.lower():
            best = max(best, len(wanted & words))
    return not states_enough(best, len(wanted))


def as_answer(claim: str, question: str) -> str:
    """The statement ``claim`` makes: a bare answer's is that it answers the question."""
    named = bare_answer(claim, question)
    return f"The answer to the question is {named}." if named else claim
