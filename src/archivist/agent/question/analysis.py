"""Question checks: what a question is made of, and a review of a small model's analysis.

Pure functions on text. :func:`review` applies them to the analysis call's output when the
policy says so (small models); a capable model's analysis is used as it is.

* :func:`looks_compound`: whether a question can be asking for separate things at all
  (two question marks, or a joining word). A one-part question is never split, whatever
  the analysing model proposes: a 1.5B model splits "How do I save a data frame as a CSV file in R?"
  into three sub-questions.
* :func:`subject_terms`: the named things a question asks about (capitalised words and
  acronyms past the first word: "Veldoria", "Blue Heron", "CSV", "R").
* :func:`may_be_ambiguous`: whether a question refers to something it does not name ("it",
  "that thing"). Only such a question is asked back: the 1.5B model asked "What is
  Brightwave?" back for "How many paying subscribers did Brightwave count in 2020?".
  Such a question that opens a conversation is asked back whatever the model says
  (:func:`clarifying_question`): there is nothing earlier for "it" to point to.
* :func:`is_small_talk`: whether a question is only greeting, thanks or talk about the
  assistant. Only such a question gets a direct reply: the 0.5B model routed "How hot
  should the water be for green tea?" to ``direct`` and answered "100°F" from nowhere.
* :func:`keeps_the_question`: whether a rewrite of a question still asks it.
* :func:`elliptical`: whether a follow-up leans on the question before it ("And in 2016?");
  left unrewritten by the model, it is searched with that question beside it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from archivist.agent.question.one_figure import asks_one_figure
from archivist.agent.state import QuestionAnalysis
from archivist.agent.steps import StepKind
from archivist.stopwords import DATE_WORDS, content_words

_JOINERS = re.compile(
    r"\b(and|as well as|also|plus|versus|vs\.?|compared? (to|with)|respectively)\b|;",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9+#]*")
_TOKENS = re.compile(r"[a-z0-9+#]+")
#: Capitalised words that name no subject (question words, pronouns, fillers).
_NOT_SUBJECTS = frozenset(
    ["please", "thanks", "hi", "hello", "ok", "okay", "could", "would", "should", "did",
     "has", "have", "had", "were", "give", "list", "explain", "describe", "show", "we", "our",
     "he", "she", "his", "her", "us", "any", "all", "some", "one", "i"]
) | DATE_WORDS


def looks_compound(question: str) -> bool:
    """Whether ``question`` may ask for more than one thing (else it is never split)."""
    return question.count("?") >= 2 or bool(_JOINERS.search(question))


_REFERENCES = frozenset(
    ["it", "its", "that", "this", "these", "those", "they", "them", "their", "he", "she",
     "him", "her", "one", "ones", "thing", "things", "stuff", "there", "same", "other",
     "former", "latter", "above"]
)


#: Words a greeting, thanks or a question about the assistant is made of.
_SMALL_TALK = frozenset(
    ["hello", "hi", "hey", "hiya", "howdy", "greetings", "good", "morning", "afternoon",
     "evening", "night", "day", "today", "thanks", "thank", "thx", "cheers", "bye", "goodbye",
     "see", "later", "ok", "okay", "great", "nice", "cool", "awesome", "perfect", "helpful",
     "help", "friend", "buddy", "there", "doing", "going", "fine", "well", "please", "much",
     "lot", "yourself", "name", "assistant", "archivist", "bot", "up", "sup", "again", "very",
     "just", "all", "everyone", "pleased", "meet", "glad", "welcome", "could", "would",
     "have", "has", "been", "here", "now", "yes", "no", "sure", "oh", "wow", "alright", "ya"]
)


def is_small_talk(question: str) -> bool:
    """Whether ``question`` is only greeting, thanks or talk about the assistant.

    Every content word must be small-talk vocabulary, and it names no subject but the
    assistant ("What is R?" asks about R): "Hello!", "How are you today?",
    "Who are you?" and "Thanks, that was helpful" are; "How hot should the water be for
    green tea?" is not, whatever a model routes it to.
    """
    named = subject_terms(question) - _SMALL_TALK  # "What is R?" names a subject
    return content_words(question) <= _SMALL_TALK and not named


def may_be_ambiguous(question: str) -> bool:
    """Whether ``question`` refers to something it does not name.

    That takes a reference word ("it", "that", "the other one") and no named subject: a
    question without reference words names everything it asks about, and in "What were
    Brightwave's sales and its operating profit?" the "its" is Brightwave (the 1.5B model
    asked "What is Brightwave?" back for both).
    """
    refers = bool(_REFERENCES & set(_TOKENS.findall(question.lower())))
    return refers and not subject_terms(question)


def word_kept(word: str, words: set[str]) -> bool:
    """Whether ``word`` is in ``words``, a shared five-letter stem counting (numbers exactly)."""
    if word.isdigit():
        return word in words
    stem = word[:5]
    return any(w.startswith(stem) or word.startswith(w[:5]) for w in words if len(w) > 2)


def keeps_the_question(question: str, rewrite: str) -> bool:
    """Whether a rewrite still asks what ``question`` asks.

    It must keep every number and at least two thirds of the content words (a shared
    five-letter stem counts: "postgres" is kept in "PostgreSQL"). The 1.5B model rewrote
    "How many paying domestic subscribers did Brightwave count at the close of 2020?"
    into "What is Brightwave?".
    """
    asked = content_words(question)
    if not asked:
        return True
    written = content_words(rewrite)
    if any(w.isdigit() and w not in written for w in asked):
        return False
    kept = sum(1 for word in asked if word_kept(word, written))
    return kept * 3 >= len(asked) * 2


#: Words that always point at something named before ("there", "that", "one" need not).
_POINTERS = frozenset(["it", "its", "they", "them", "their", "he", "she", "him", "his", "thing",
                       "things", "stuff"])
_EXPLETIVE_IT = re.compile(
    r"\b(is it|it is|it's|was it|it was) (possible|true|necessary|safe|ok|okay|worth|"
    r"better|best|a good idea)\b", re.IGNORECASE,
)


def dangling_reference(question: str) -> bool:
    """Whether ``question`` points at something it does not name.

    That takes a pronoun that cannot stand alone ("How much did it grow?"); such a question
    is asked back when nothing came before it.
    """
    if not may_be_ambiguous(question):
        return False
    words = set(_TOKENS.findall(_EXPLETIVE_IT.sub(" ", question).lower()))
    return bool(words & _POINTERS)


_CLAUSE_SPLIT = re.compile(
    r"\?\s+|,?\s+(?:and|also)\s+(?=(?:how|what|who|whom|when|where|which|why|is|are|was|"
    r"were|do|does|did|can|could|should|would)\b)", re.IGNORECASE,
)


def clause_parts(question: str) -> list[str]:
    """The separate questions of ``question`` when its parts each ask on their own.

    "How many ... in 2020, and how do I save a data frame as a CSV file?" has two (a joining word
    before a question word), as has "What is X? What is Y?"; "What were the revenues and
    the net income?" has one (its parts share the question word).
    """
    parts = [" ".join(p.split()).strip(" ,;") for p in _CLAUSE_SPLIT.split(question)]
    parts = [p for p in parts if len(content_words(p)) >= 1]
    if len(parts) < 2:
        return [question]
    return [p[0].upper() + p[1:] + ("" if p.endswith("?") else "?") for p in parts]


_FOLLOW_UP = re.compile(r"^\s*(and|but|also|what about|how about|same for|or)\b", re.IGNORECASE)


def elliptical(question: str) -> bool:
    """Whether ``question`` leans on the one before ("And in 2016?", "What about R?").

    It opens with "and", "what about" and the like, or has fewer than three content words
    and names nothing.
    """
    if _FOLLOW_UP.match(question):
        return True
    return len(content_words(question)) < 3 and not subject_terms(question)


def points_back(question: str) -> bool:
    """Whether ``question`` uses a pronoun that needs an earlier turn ("when are they cut?")."""
    words = set(_TOKENS.findall(_EXPLETIVE_IT.sub(" ", question).lower()))
    return bool(words & _POINTERS)


#: The longest question asked back (a small model repeated its question until its token cap).
CLARIFICATION_CHARS = 200


def first_question(text: str) -> str:
    """The first question of a model's ask-back, at most ``CLARIFICATION_CHARS`` long."""
    text = " ".join(text.split())
    end = text.find("?")
    text = text[: end + 1] if end >= 0 else text
    if len(text) <= CLARIFICATION_CHARS:
        return text
    return text[:CLARIFICATION_CHARS].rsplit(" ", 1)[0] + " …"


def clarifying_question(question: str) -> str:
    """What to ask back about a question whose reference points at nothing.

    It asks which thing the first reference word ("it", "that") means.
    """
    words = _TOKENS.findall(question.lower())
    word = next((w for w in words if w in _REFERENCES), "")
    if word:
        return f'What does "{word}" refer to in your question? Please name it.'
    return "What exactly do you mean? Please name the thing you are asking about."


_YES_NO = re.compile(r"^\W*(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|"
                     r"should)\b", re.IGNORECASE)
_CHOICE = re.compile(r"^\W*(?i:which|who|what)\b[^?]*\bor\s+(?:the\s+)?[A-Z\"“][^?]*\?\s*$")


def asks_to_judge(question: str) -> bool:
    """Whether a question asks for a verdict on its own words: yes or no, or a choice.

    "Are both magazines British publications?", "Which singer is Canadian, Lena Farrow or
    Dario Quist?": an answer that repeats such a question's words states exactly what needs
    evidence ("Lena Farrow is Canadian" over "Lena Farrow is a Scottish musician").
    """
    return bool(_YES_NO.match(question) or _CHOICE.match(question))


def defined_by(question: str, titles: list[str]) -> bool:
    """Whether the library's ``titles`` name what ``question`` asks about.

    A named subject of the question is a whole word of a document's title or file name:
    "What is R?" over a library holding "R FAQ". A question naming nothing is not.
    """
    wanted = subject_terms(question)
    named = {w for t in titles for w in _TOKENS.findall(t.lower())}
    return bool(wanted & named)


def subject_terms(question: str) -> set[str]:
    """Lower-cased named terms of ``question``: capitalised words after its first word."""
    terms: set[str] = set()
    for sentence in re.split(r"(?<=[.!?])\s+", question.strip()):
        for word in _WORD.findall(sentence)[1:]:
            lowered = word.lower()
            if not word[0].isupper() or lowered in _NOT_SUBJECTS:
                continue
            if lowered in content_words(lowered) or len(word) == 1:
                terms.add(lowered)
    return terms


def keep_subjects(question: str, sub_question: str) -> str:
    """``sub_question`` naming the question's subjects when it names none of them.

    The 1.5B model split "How many shares did Halvard buy back in fiscal 2022, and at what
    total cost?" into a first part naming Halvard and "What was the total cost?"; searched
    alone, the second found Brightwave's cost of revenues and the answer cited it.
    """
    terms = subject_terms(question)
    if not terms or terms & set(_TOKENS.findall(sub_question.lower())):
        return sub_question
    names = [w for w in dict.fromkeys(_WORD.findall(question)) if w.lower() in terms]
    return f"{sub_question.rstrip()} ({', '.join(names)})"




# --- the analysis call's output, reviewed ------------------------------------------------
Step = tuple[StepKind, str, dict[str, Any]]


@dataclass(frozen=True, kw_only=True)
class Asked:
    """A question and what surrounds it in the conversation."""

    question: str
    fresh: bool = True  # nothing earlier in the conversation (no turns, no summary)
    rounds: int = 0  # clarification rounds so far
    may_ask: bool = True  # whether one more ask-back is allowed
    history: bool = False  # earlier turns are kept verbatim
    previous: str = ""  # the user's latest finished question
    web_enabled: bool = False
    max_sub_questions: int = 3
    defined: bool = False  # the library's titles name what the question asks about


@dataclass(kw_only=True)
class Plan:
    """What a question becomes: a route and its sub-questions, or a question to ask back."""

    route: str = "documents"  # "documents", "web" or "direct"
    direct_reply: str = ""
    clarification: str = ""
    sub_questions: list[str] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)

    def note(self, kind: StepKind, detail: str, **extra: Any) -> None:
        """Record a step to show."""
        self.steps.append((kind, detail, extra))


def clean_questions(questions: list[str], limit: int) -> list[str]:
    """Questions with whitespace normalised, empty and repeated ones dropped, at most ``limit``."""
    out: list[str] = []
    for question in questions:
        text = " ".join(str(question).split())
        if text and text.lower() not in {q.lower() for q in out}:
            out.append(text)
    return out[:limit]


def review(asked: Asked, parsed: QuestionAnalysis, *, checks: bool) -> Plan:
    """The plan from an analysis call's output; with ``checks``, corrected by code.

    On every profile a web route while web search is off goes to the documents, and a
    one-part question is not split. Without ``checks`` (a capable model) the analysis is
    otherwise used as it is. With them, each correction is a step and answers a failure
    of a real small model: a real question routed to ``direct``, a clear question asked
    back, a dangling "it" searched, a split that drops the subject, a rewrite that loses
    the question, a follow-up left as is.
    """
    question = asked.question
    plan = Plan()
    route = parsed.route
    if route == "direct" and checks and not is_small_talk(question):
        plan.note(StepKind.ROUTE, "documents",
                  reason="not small talk: searched, not answered directly")
        route = "documents"
    elif route == "direct":
        plan.note(StepKind.ROUTE, "direct", reason="greeting or small talk: no retrieval")
        plan.route, plan.direct_reply = "direct", parsed.direct_reply.strip()
        return plan
    elif route == "web" and not asked.web_enabled:
        plan.note(StepKind.ROUTE, "documents", reason="web search is off")
        route = "documents"
    else:
        plan.note(StepKind.ROUTE, route)
    plan.route = route
    dangling = checks and asked.fresh and dangling_reference(question)
    if not parsed.is_clear and asked.defined and not dangling_reference(question):
        plan.note(StepKind.CLEAR, "the library's titles name what it asks about: not asked back")
    elif checks and not parsed.is_clear and not asked.fresh:
        # a small model asked back about "they" in "And when are they harvested?" after a
        # question on apple trees, instead of reading the conversation
        plan.note(StepKind.CLEAR, "a follow-up: read with the question before it, not asked back")
    elif checks and not parsed.is_clear and asked.may_ask and not may_be_ambiguous(question):
        plan.note(StepKind.CLEAR, "nothing in the question to resolve: not asked back")
    elif (not parsed.is_clear or dangling) and asked.may_ask:
        # a reference with nothing before it to point to is asked back whatever the
        # model said (the 1.5B model searched for "How much did it grow?")
        ask = first_question(parsed.clarification_question) if not parsed.is_clear else ""
        plan.clarification = ask or clarifying_question(question)
        return plan
    subs = clean_questions(parsed.sub_questions, asked.max_sub_questions) or [question]
    if len(subs) > 1 and not looks_compound(question):
        # a one-part question is never split, on any profile: sub-questions are researched
        # side by side, so a split of one ask only adds calls; with history the first
        # rewrite keeps the references the model resolved
        plan.note(StepKind.NO_SPLIT, f"one-part question: {len(subs)} sub-questions dropped")
        subs = subs[:1] if asked.history else [question]
    if checks:
        subs = _corrected(asked, subs, plan)
    plan.sub_questions = subs
    if subs != [question]:
        plan.note(StepKind.REWRITE, " | ".join(subs), original=question)
    if len(subs) > 1:
        plan.note(StepKind.SUB_QUESTIONS, f"{len(subs)} sub-questions", items=subs)
    return plan


def _corrected(asked: Asked, subs: list[str], plan: Plan) -> list[str]:
    question, rounds = asked.question, asked.rounds
    parts = clause_parts(question) if not rounds else [question]
    if len(subs) > 1 and asks_one_figure(question, parts):
        plan.note(StepKind.NO_SPLIT, "one figure over what the question joins: kept whole")
        subs = [question]
    if len(subs) > 1 and len(parts) > 1 and len(subs) != len(parts):
        # parts that each ask on their own are split by code: the 1.5B model split
        # "..., and how do I save a data frame as a CSV file?" into "What is a CSV file?" and more
        plan.note(StepKind.SPLIT_BY_PARTS, f"{len(subs)} sub-questions replaced by {len(parts)}")
        subs = parts[: asked.max_sub_questions]
    if len(subs) > 1:  # each part names what the question is about ("What did it cost?")
        subs = [keep_subjects(question, sub) for sub in subs]
    if len(subs) == 1 and not rounds and not keeps_the_question(question, subs[0]):
        # the 1.5B model rewrote "How many paying domestic subscribers did Brightwave
        # count at the close of 2020?" into "What is Brightwave?"
        plan.note(StepKind.REWRITE_DROPPED, subs[0], reason="it lost what the question asks")
        subs = [question]
    if (subs == [question] and not asked.fresh and not rounds and asked.previous
            and (elliptical(question) or points_back(question))):
        # the 1.5B model left "And in 2016?" as it was after a question on 2017
        subs = [f"{question} (follow-up to: {asked.previous})"]
    return subs
