"""The bridge hop of a small model: an answer that said nothing searches the names its
passages state, and is written again from both hops (a real library, the model scripted)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import replace

import pytest
from langchain_core.messages import BaseMessage
from tests.agent.helpers import (
    done,
    ingested_library,
    on_subject_only,
    run,
    source_names,
    steps,
)

from archivist.agent.policy import SMALL
from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.testing import CallInfo, ScriptedChatModel

DOCS = {  # invented places and people: the founder's birth year is only in her own article
    "observatory.md": "# Zelmar Observatory\n\nThe Zelmar Observatory stands on the Korvath "
                      "plateau. It was founded by the astronomer Ilse Varga in 1968.\n",
    "varga.md": "# Ilse Varga\n\nIlse Varga was born in Tessendorf in 1931. She studied "
                "optics in Graz and built her first telescope at twenty.\n",
    "bakery.md": "# Rye bread\n\nRye bread is baked from a sourdough starter for an hour.\n",
}
QUESTION = "In what year was the founder of the Zelmar Observatory born?"
WRITE = "Answer the user's question from the numbered passages"


@pytest.fixture
def make_service(make_service):
    """The hop alone (see :func:`tests.agent.helpers.on_subject_only`)."""
    return on_subject_only(make_service)


def _writing(writes: list[str], reply: Callable[[dict[str, str]], str]):
    """A writer that records each writing prompt and replies ``reply(passages)``.

    ``passages`` maps each unit's number to its text.
    """
    def rule(messages: list[BaseMessage], info: CallInfo) -> str | None:
        if WRITE not in str(messages[0].content):
            return None
        prompt = str(messages[-1].content)
        writes.append(prompt)
        return reply(dict(re.findall(r'<passage n="(\d+)"[^>]*>\n(.*?)\n</passage>', prompt,
                                     re.DOTALL)))

    return rule


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory,
            embedder: SentenceTransformerEmbedder) -> Iterator[Application]:
    yield from ingested_library(tmp_path_factory, embedder, DOCS)


def _writer(second: str):
    """The writer answers "[1]" first (the 1.5B's non-answer), then ``second``'s rule."""
    writes: list[str] = []

    def rule(messages: list[BaseMessage], info: CallInfo) -> str | None:
        if WRITE not in str(messages[0].content):
            return None
        prompt = str(messages[-1].content)
        writes.append(prompt)
        if len(writes) == 1:
            return "[1]"
        if second == "abstain":
            return "The documents do not contain the founder's birth year."
        passages = dict(re.findall(r'<passage n="(\d+)"[^>]*>\n(.*?)\n</passage>', prompt,
                                   re.DOTALL))
        number = next(n for n, text in passages.items() if "1931" in text)
        if second == "point":  # the 1.5B's way: the number of the passage, and no words
            return f"[{number}]"
        return f"Ilse Varga was born in 1931 [{number}]."

    rule.writes = writes  # type: ignore[attr-defined]
    return rule


def test_a_non_answer_searches_the_names_its_passage_states_then_writes_again(
        make_service, library: Application) -> None:
    writer = _writer("answer")
    events = run(make_service(ScriptedChatModel(rules=[writer]), library=library,
                              checks=SMALL), QUESTION)
    (hop,) = steps(events, "next_hop")
    assert "Ilse Varga" in hop["detail"] and "Zelmar" not in hop["detail"]
    assert "1931" not in writer.writes[0] and "1931" in writer.writes[1]
    assert len(writer.writes) == 2 and not steps(events, "second_look")
    answer = done(events)["answer"]
    assert "1931" in answer, answer
    # the cited unit is Varga's own article; the observatory's, which names her, links it
    (sources,) = [e.data for e in events if e.type == "sources"]
    assert [c["supported"] for c in sources["claims"]] == [True]
    assert "varga.md" in {s["document_name"] for s in sources["sources"]}


def test_an_answer_that_only_points_at_a_passage_quotes_its_sentence(
        make_service, library: Application) -> None:
    writer = _writer("point")
    events = run(make_service(ScriptedChatModel(rules=[writer]), library=library,
                              checks=SMALL), QUESTION)
    (quoted,) = steps(events, "quoted")
    assert "only citations" in quoted["detail"]
    answer = done(events)["answer"]
    assert "Ilse Varga was born in Tessendorf in 1931." in answer, answer
    (sources,) = [e.data for e in events if e.type == "sources"]
    assert [c["supported"] for c in sources["claims"]] == [True]
    assert "varga.md" in {s["document_name"] for s in sources["sources"]}


def test_citations_alone_are_quoted_without_asking_the_model_again(
        make_service, library: Application) -> None:
    # asked again ("read them again"), the 1.5B abstained over the cited sentence
    asked_again: list[str] = []

    def writer(messages: list[BaseMessage], info: CallInfo) -> str | None:
        if WRITE not in str(messages[0].content):
            return None
        prompt = str(messages[-1].content)
        if "judged relevant" in prompt:
            asked_again.append(prompt)
            return "The documents do not contain how long it is baked."
        passages = dict(re.findall(r'<passage n="(\d+)"[^>]*>\n(.*?)\n</passage>', prompt,
                                   re.DOTALL))
        return "[{}]".format(next(n for n, text in passages.items() if "sourdough" in text))

    events = run(make_service(ScriptedChatModel(rules=[writer]), library=library,
                              checks=SMALL), "How long is rye bread baked?")
    assert steps(events, "quoted") and not steps(events, "second_look") and not asked_again
    answer = done(events)["answer"]
    assert "Rye bread is baked from a sourdough starter for an hour." in answer, answer


def test_a_capable_model_answer_of_citations_alone_is_not_rewritten(
        make_service, library: Application) -> None:
    writer = _writer("point")
    events = run(make_service(ScriptedChatModel(rules=[writer]), library=library), QUESTION)
    assert not steps(events, "quoted") and len(writer.writes) == 1


def test_the_hop_runs_once_and_the_answer_stays_honest(
        make_service, library: Application) -> None:
    writer = _writer("abstain")
    events = run(make_service(ScriptedChatModel(rules=[writer]), library=library,
                              checks=SMALL), QUESTION)
    assert len(steps(events, "next_hop")) == 1 and len(writer.writes) == 2
    assert done(events)["answer"].startswith("The documents do not contain")


def test_a_capable_model_takes_no_bridge_hop(make_service, library: Application) -> None:
    events = run(make_service(ScriptedChatModel(), library=library), QUESTION)
    assert not steps(events, "next_hop")


def test_a_sentence_the_writer_says_again_is_said_once(
        make_service, library: Application) -> None:
    def loops(messages: list[BaseMessage], info: CallInfo) -> str | None:
        if WRITE not in str(messages[0].content):
            return None
        said = "The Zelmar Observatory was founded by Ilse Varga in 1968 [1]."
        return " ".join([said] * 5)  # the 1.5B's loop, until its reply cap

    events = run(make_service(ScriptedChatModel(rules=[loops]), library=library),
                 "Who founded the Zelmar Observatory?")
    answer = done(events)["answer"]
    assert answer.count("founded by Ilse Varga") == 1, answer
    assert steps(events, "repeats")


def test_a_fact_the_cited_passage_lacks_is_searched_for_and_cited(
        make_service, library: Application) -> None:
    # the 1.5B's way: the right year from its own knowledge, cited to the bridge passage
    # (without the bridge hop, which would read Varga's page and write again first)
    writes: list[str] = []

    def writer(messages: list[BaseMessage], info: CallInfo) -> str | None:
        if WRITE not in str(messages[0].content):
            return None
        prompt = str(messages[-1].content)
        writes.append(prompt)
        passages = dict(re.findall(r'<passage n="(\d+)"[^>]*>\n(.*?)\n</passage>', prompt,
                                   re.DOTALL))
        number = next(n for n, text in passages.items() if "Zelmar" in text)
        return f"Ilse Varga, the founder, was born in 1931 [{number}]."

    events = run(make_service(ScriptedChatModel(rules=[writer]), library=library,
                              checks=replace(SMALL, bridge_hop=False)), QUESTION)
    assert len(writes) == 1 and "1931" not in writes[0]
    assert any("searching for it" in s.get("reason", "") for s in steps(events, "search"))
    (sources,) = [e.data for e in events if e.type == "sources"]
    assert [c["supported"] for c in sources["claims"]] == [True]
    assert "varga.md" in {s["document_name"] for s in sources["sources"]}
    assert "1931" in done(events)["answer"]


def test_a_wrong_fact_stays_unsupported_after_the_search(
        make_service, library: Application) -> None:
    def writer(messages: list[BaseMessage], info: CallInfo) -> str | None:
        if WRITE not in str(messages[0].content):
            return None
        passages = dict(re.findall(r'<passage n="(\d+)"[^>]*>\n(.*?)\n</passage>',
                                   str(messages[-1].content), re.DOTALL))
        number = next(n for n, text in passages.items() if "Zelmar" in text)
        return f"Ilse Varga, the founder, was born in 1935 [{number}]."

    events = run(make_service(ScriptedChatModel(rules=[writer]), library=library,
                              checks=SMALL), QUESTION)
    assert "1935" not in done(events)["answer"]  # no claim held: an honest abstention
    assert not [e.data for e in events if e.type == "sources"][0]["claims"]


def test_a_passage_tag_the_writer_copied_is_not_shown(
        make_service, library: Application) -> None:
    # the 1.5B opened an answer with the <passage n=".." section=".."> tag it was shown
    def writer(messages: list[BaseMessage], info: CallInfo) -> str | None:
        if WRITE not in str(messages[0].content):
            return None
        blocks = re.findall(r'(<passage n="\d+"[^>]*>)\n(.*?)\n</passage>',
                            str(messages[-1].content), re.DOTALL)
        tag, text = next((tag, text) for tag, text in blocks if "sourdough" in text)
        return f"{tag} {text} </passage>"

    events = run(make_service(ScriptedChatModel(rules=[writer]), library=library,
                              checks=SMALL), "How long is rye bread baked?")
    answer = done(events)["answer"]
    assert answer.startswith("Rye bread is baked from a sourdough starter for an hour"), answer
    assert "<passage" not in answer and "</passage>" not in answer


ALBUM_DOCS = {  # invented: the album's passage names the singer and a record with many names
    "lantern.md": "# Hollow Lantern\n\nHollow Lantern, released in 2004, is the third studio "
                  "album by singer-songwriter T. Maren. The title alludes to the 1961 record "
                  "\"The Ballad of Grey Orrin Pike\" by Wendel Ashcroft.\n",
    "maren.md": "# T. Maren\n\nTobias \"T.\" Maren (born 1970) is a singer-songwriter and "
                "guitarist from Velmora, Ostland. His solo work mixes folk and blues.\n",
    "copper.md": "# Copper Rain\n\nCopper Rain is the third studio album by the singer Ilka "
                 "Brandt, released in 1999.\n",
}
ALBUM_QUESTION = ("From what state is the singer-songwriter whose third studio album is "
                  "Hollow Lantern?")


@pytest.fixture(scope="module")
def albums(tmp_path_factory: pytest.TempPathFactory,
           embedder: SentenceTransformerEmbedder) -> Iterator[Application]:
    yield from ingested_library(tmp_path_factory, embedder, ALBUM_DOCS)


def test_the_hop_keeps_the_page_of_the_name_it_searched_for(
        make_service, albums: Application) -> None:
    # The hop's query carries the record's names too ("Ballad Grey Orrin Pike"): measured
    # against all of them, the singer's own page named too few and was dropped (a 1.5B
    # run on a two-hop question); its title is the name the hop searched for.
    writes: list[str] = []

    def reply(passages: dict[str, str]) -> str:
        number = next((n for n, text in passages.items() if "Ostland" in text), None)
        return "[1]" if number is None else f"T. Maren is from Ostland [{number}]."

    writer = _writing(writes, reply)
    events = run(make_service(ScriptedChatModel(rules=[writer]), library=albums, checks=SMALL),
                 ALBUM_QUESTION)
    (hop,) = steps(events, "next_hop")
    assert "Maren" in hop["detail"] and "Pike" in hop["detail"], hop
    assert len(writes) == 2, writes
    assert "Ostland" not in writes[0] and "Ostland" in writes[1], writes
    assert "Ostland" in done(events)["answer"]
    assert "maren.md" in source_names(events)


FILM_DOCS = {  # invented: the actress's page shares no subject with the question
    "caper.md": "# Jade Lantern Caper\n\nThe Jade Lantern Caper is a 2003 comedy film "
                "featuring the actress Mira Tolven as an insurance investigator.\n",
    "tolven.md": "# Mira Tolven\n\nMira Tolven (born 1966) led the cast of the sitcom Harbor "
                 "Lights from 1990 to 1997.\n",
    "gardens.md": "# Kew Gardens\n\nKew Gardens holds the largest collection of living plants.\n",
}
FILM_QUESTION = ("The Jade Lantern Caper is a 2003 comedy film with an actress who starred "
                 "for seven years in which sitcom?")


@pytest.fixture(scope="module")
def films(tmp_path_factory: pytest.TempPathFactory,
          embedder: SentenceTransformerEmbedder) -> Iterator[Application]:
    yield from ingested_library(tmp_path_factory, embedder, FILM_DOCS)


def _film_writer(writes: list[str]):
    """The 1.5B's way with a two-hop question: it names the bridge and stops there."""

    def reply(passages: dict[str, str]) -> str:
        number = next((n for n, text in passages.items() if "Harbor" in text), None)
        if number is None:
            return "Mira Tolven starred in The Jade Lantern Caper [1]."
        return f"Mira Tolven starred in the sitcom Harbor Lights [{number}]."

    return _writing(writes, reply)


def test_an_answer_that_names_a_bridge_reads_its_page_and_writes_again(
        make_service, films: Application) -> None:
    writes: list[str] = []
    events = run(make_service(ScriptedChatModel(rules=[_film_writer(writes)]), library=films,
                              checks=SMALL), FILM_QUESTION)
    assert "Harbor" not in writes[0]  # the question's search did not reach her page
    (hop,) = steps(events, "next_hop")
    assert hop["detail"].startswith("Mira Tolven") and hop["pages"] == ["Mira Tolven"], hop
    assert len(writes) == 2 and "Harbor Lights" in done(events)["answer"]
    assert "tolven.md" in source_names(events)


def test_an_answer_hop_needs_the_page_of_a_name_it_states(
        make_service, films: Application) -> None:
    # "Kew" names a page, but not one the answer names: searched, nothing is kept
    writes: list[str] = []
    writer = _writing(writes, lambda passages: "The Jade Lantern Caper features an insurance "
                      "investigator from Dorvan [1].")
    events = run(make_service(ScriptedChatModel(rules=[writer]), library=films, checks=SMALL),
                 FILM_QUESTION)
    assert len(writes) == 1 and not steps(events, "next_hop")
    assert any(s["detail"].startswith("Dorvan") for s in steps(events, "search"))


def test_a_capable_model_takes_no_answer_hop(make_service, films: Application) -> None:
    writes: list[str] = []
    run(make_service(ScriptedChatModel(rules=[_film_writer(writes)]), library=films),
        FILM_QUESTION)
    assert len(writes) == 1


TOWN_DOCS = {  # invented: the census year is only on the town's page
    "velt.md": "# Kerra Velt\n\nKerra Velt (born 1961 in Dunmoor, Ostland) is a retired race "
               "walker who won three national titles.\n",
    "dunmoor.md": "# Dunmoor, Ostland\n\nDunmoor is a market town on the Ilm river. At the "
                  "2011 census, Dunmoor had a population of 6,960.\n",
    "gardens.md": "# Kew Gardens\n\nKew Gardens holds the largest collection of living plants.\n",
}
TOWN_QUESTION = "At the 2011 census, what was the population of the town where Kerra Velt was born?"


@pytest.fixture(scope="module")
def towns(tmp_path_factory: pytest.TempPathFactory,
          embedder: SentenceTransformerEmbedder) -> Iterator[Application]:
    yield from ingested_library(tmp_path_factory, embedder, TOWN_DOCS)


def test_a_year_no_passage_names_is_looked_for_on_the_bridge_page_first(
        make_service, towns: Application) -> None:
    # the year check abstained with no call before any bridge was searched (HotpotQA: the
    # 1.5B had answered this one, 6,960, through the hop after a non-answer)
    writes: list[str] = []

    def reply(passages: dict[str, str]) -> str:
        number = next(n for n, text in passages.items() if "6,960" in text)
        return f"Dunmoor had a population of 6,960 at the 2011 census [{number}]."

    writer = _writing(writes, reply)
    events = run(make_service(ScriptedChatModel(rules=[writer]), library=towns, checks=SMALL),
                 TOWN_QUESTION)
    (hop,) = steps(events, "next_hop")
    assert hop["detail"].startswith("Dunmoor") and hop["pages"] == ["Dunmoor, Ostland"], hop
    assert len(writes) == 1 and "6,960" in done(events)["answer"]
    assert not steps(events, "years_not_covered")


def test_a_year_still_unnamed_after_the_hop_abstains_without_a_call(
        make_service, towns: Application) -> None:
    events = run(make_service(ScriptedChatModel(rules=[]), library=towns, checks=SMALL),
                 "At the 2015 census, what was the population of the town where Kerra Velt "
                 "was born?")
    (years,) = steps(events, "years_not_covered")
    assert "not asked of the model" in years["detail"]
    assert done(events)["answer"].startswith("The documents do not contain anything for 2015")


