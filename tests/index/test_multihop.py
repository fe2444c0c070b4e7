"""Multi-hop retrieval in code: bridges from hop-1 passages, hop-2 searches, fusion, a cap."""

from __future__ import annotations

from archivist.application import Application
from archivist.index.multihop import (
    bridge_candidates,
    capitalised_phrases,
    fuse,
    multihop_search,
    order,
)
from archivist.types import SearchHit

# Two facts in two documents: the second shares no content word with the question.
FILM = (
    "# Moonlit Harbor\n\nMoonlit Harbor is a 2003 drama film directed by Tamsin Orwell. "
    "It was shot on the coast of Brittany and premiered at a festival in Venice."
)
DIRECTOR = (
    "# Tamsin Orwell\n\nTamsin Orwell (born 1961) is a Welsh screenwriter. "
    "Orwell read philosophy at Aberystwyth before moving to London, where her plays ran "
    "for several seasons."
)
DISTRACTORS = [
    f"# {name}\n\n{name} is a university whose film school trains every director who "
    f"wants to attend a course. Students attend lectures about which films a director made."
    for name in ("Northgate University", "Eastbrook College", "Harbor Institute", "Westfield")
]
QUESTION = "Which university did the director of Moonlit Harbor attend?"


def _hit(child_id: str, text: str = "", title: str = "") -> SearchHit:
    return SearchHit(child_id, f"{child_id}-p", child_id, child_id, text, [title] if title else [],
                     None, None, 0.0)  # fmt: skip


def test_capitalised_phrases_are_names_not_sentence_starts() -> None:
    text = 'Moonlit Harbor is a film by Tamsin Orwell. It starred "The Long Tide" cast.'
    phrases = capitalised_phrases(text)
    assert "Moonlit Harbor" in phrases
    assert "Tamsin Orwell" in phrases
    assert "The Long Tide" in phrases
    assert "It" not in phrases


def test_bridges_skip_what_the_question_already_says() -> None:
    passages = [("Moonlit Harbor", "Moonlit Harbor is a film directed by Tamsin Orwell.")]
    phrases = [b.phrase for b in bridge_candidates(QUESTION, passages, limit=5)]
    assert phrases[0] == "Tamsin Orwell"
    assert "Moonlit Harbor" not in phrases


def test_fusion_rewards_agreement_and_weighs_the_first_hop_higher() -> None:
    first = [_hit("a"), _hit("b"), _hit("c")]
    second = [_hit("d"), _hit("b")]
    fused = [h.child_id for h in fuse([(1.0, first), (0.5, second)], k=4)]
    assert fused[0] == "b"  # found by both hops
    assert fused.index("a") < fused.index("d")  # same rank, the first hop weighs more
    assert set(fused) == {"a", "b", "c", "d"}


def _page(name: str, title: str, text: str = "") -> SearchHit:
    return SearchHit(f"{name}-c", name, name, name, text or title, [title], None, None, 0.0)


def test_the_page_the_best_passage_links_to_comes_second() -> None:
    question = "In what year was the man who resigned before the 1998 election born?"
    best = _page("election", "Korvath presidential election, 1998",
                 "It was held after the resignation of Edvin Halloran and won by Marek Osten.")
    first = [best, _page("tarrow", "Presidency of Ilse Tarrow"), _page("other", "Velmora"),
             _page("halloran", "Edvin Halloran (politician)")]  # fmt: skip
    ranked = list(dict.fromkeys(h.parent_id for h in order(question, first, [], [], 10)))
    # Halloran is mentioned in the best passage (its title without the disambiguation);
    # Marek Osten too, but it has no page here
    assert ranked[:2] == ["election", "halloran"]
    assert sorted(ranked) == sorted(h.parent_id for h in first)


def test_a_namesake_is_no_comparison_and_no_link() -> None:
    question = "Dana Pruett, a consultant, has worked for the mayor of which city?"
    first = [
        _page("consultant", "Dana Pruett (political consultant)",
              "Dana Pruett has advised Marlon Vance's campaigns."),
        _page("footballer", "Dana Pruett (footballer)"),  # every word is in the question
        _page("vance", "Marlon Vance"),
    ]
    ranked = list(dict.fromkeys(h.parent_id for h in order(question, first, [], [], 10)))
    assert ranked[:2] == ["consultant", "vance"]
    # a different page the question names is a comparison: it keeps second place
    first[1] = _page("brown", "Hollis Brown")
    named = "Who is older, Dana Pruett or Hollis Brown?"
    ranked = list(dict.fromkeys(h.parent_id for h in order(named, first, [], [], 10)))
    assert ranked[:2] == ["consultant", "brown"]


def test_searches_per_question_are_capped() -> None:
    calls: list[str] = []
    passage = "Alpha Beta met Gamma Delta, Epsilon Zeta and Eta Theta in Iota Kappa."

    def search_many(queries: list[str], k: int) -> list[list[SearchHit]]:
        calls.extend(queries)
        return [[_hit(f"{q}-{i}", passage, f"Title {i}") for i in range(5)] for q in queries]

    multihop_search("Who met whom?", 5, search_many, max_searches=3)
    assert len(calls) == 3
    calls.clear()
    multihop_search("Who met whom?", 5, search_many, max_searches=1)
    assert calls == ["Who met whom?"]


def test_multihop_finds_the_passage_that_shares_no_word_with_the_question(
    library: Application,
) -> None:
    items = [("film", FILM), ("director", DIRECTOR)]
    items += [(f"d{i}", text) for i, text in enumerate(DISTRACTORS)]
    library.ingest.texts(items)
    hybrid = [h.document_name for h in library.searcher.search(QUESTION, 3, "hybrid")]
    multihop = [h.document_name for h in library.searcher.search(QUESTION, 3, "multihop")]
    assert "director" not in hybrid[:2]
    assert multihop[:2] == ["film", "director"] or set(multihop[:2]) == {"film", "director"}


def test_hop_two_searches_are_lexical_and_embed_nothing(library: Application, monkeypatch) -> None:
    items = [("film", FILM), ("director", DIRECTOR)]
    items += [(f"d{i}", text) for i, text in enumerate(DISTRACTORS)]
    library.ingest.texts(items)
    embedder = library.store.embedder
    embedded: list[str] = []
    for name in ("embed_query", "embed_queries", "embed_documents"):
        real = getattr(embedder, name)

        def counting(texts, _real=real):  # type: ignore[no-untyped-def]
            embedded.extend([texts] if isinstance(texts, str) else texts)
            return _real(texts)

        monkeypatch.setattr(embedder, name, counting)
    modes: list[str] = []
    search_many = library.searcher._search_many

    def recording(queries, k, mode, name, document_ids):  # type: ignore[no-untyped-def]
        modes.extend([mode] * len(queries))
        return search_many(queries, k, mode, name, document_ids)

    monkeypatch.setattr(library.searcher, "_search_many", recording)
    hits = library.searcher.search(QUESTION, 3, "multihop")
    assert "director" in [h.document_name for h in hits[:2]]
    assert set(embedded) == {QUESTION}  # hop 1 only: the bridges' searches are BM25
    assert modes[0] == "hybrid" and len(modes) > 1 and set(modes[1:]) == {"bm25"}


def test_search_and_eval_commands_name_every_mode(tmp_path) -> None:
    from typer.testing import CliRunner

    from archivist.app.cli.main import app

    runner = CliRunner()
    for command in (["search", "--help"], ["eval", "retrieval", "--help"]):
        output = " ".join(runner.invoke(app, command, terminal_width=200).output.split())
        for mode in ("hybrid", "bm25", "dense", "multihop", "graph"):
            assert mode in output, (command, mode)
    result = runner.invoke(app, ["search", "x", "--mode", "hops", "--data-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "multihop" in result.output and "graph" in result.output
