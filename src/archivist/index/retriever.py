"""The seam between the index and the agent: what the agent may ask of a library."""

from __future__ import annotations

from typing import Protocol

from archivist.settings import SearchMode
from archivist.types import DocumentRecord, Parent, SearchHit


class Retriever(Protocol):
    """Search child chunks and read parents of one collection, by catalog ids only."""

    def search(
        self,
        query: str,
        k: int = 5,
        mode: SearchMode | None = None,
        document_ids: list[str] | None = None,
    ) -> list[SearchHit]:
        """The best ``k`` child chunks for ``query``, best first."""
        ...

    def get_parent(self, parent_id: str) -> Parent | None:
        """A whole parent section by its id, or ``None`` when the id is not in the catalog."""
        ...

    def get_document(self, document_id: str) -> DocumentRecord | None:
        """A catalog row by exact id, or ``None``."""
        ...


class Retrievers(Protocol):
    """Gives the :class:`Retriever` of a collection (the searcher does)."""

    def retriever(self, collection: str | None = None) -> Retriever:
        """The retriever of ``collection`` (the configured one when ``None``)."""
        ...
