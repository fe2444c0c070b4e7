"""The answer prompt puts the strongest evidence first and last ("lost in the middle")."""

from __future__ import annotations

from archivist.agent.research.corrective import strongest_at_the_edges


def test_ranks_alternate_between_the_start_and_the_end() -> None:
    assert strongest_at_the_edges([1, 2, 3, 4, 5, 6]) == [1, 3, 5, 6, 4, 2]
    assert strongest_at_the_edges([1, 2, 3]) == [1, 3, 2]
    assert strongest_at_the_edges([1]) == [1]
    assert strongest_at_the_edges([]) == []
