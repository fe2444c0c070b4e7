"""The seam between the index and the agent: what the agent may ask of a library."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from archivist.index.table_sql import SqlResult
from archivist.index.table_store import StoredTable
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


@runtime_checkable
class TableSource(Protocol):
    """The tables stored from a collection's documents, and read-only SQL over them."""

    def tables(self, document_ids: set[str] | None = None) -> list[StoredTable]:
        """The stored tables of ready documents (all, or of these documents)."""
        ...

    def query_tables(self, tables: list[StoredTable], sql: str) -> SqlResult:
        """Run one read-only SELECT over ``tables``; raises ``SqlError``."""
        ...


@runtime_checkable
class DocumentSource(Protocol):
    """Whole documents of a collection: the catalog, sections in order, their summaries."""

    def documents(self) -> list[DocumentRecord]:
        """Every ready document of the collection."""
        ...

    def parents_of(self, document_id: str) -> list[Parent]:
        """A ready document's parents (its sections) in reading order."""
        ...

    def section_summaries(self, document_id: str, parents: list[Parent]) -> dict[str, str]:
        """The stored summaries of these parents whose text is unchanged, by parent id."""
        ...

    def save_section_summary(self, parent: Parent, summary: str) -> None:
        """Keep the model's summary of one parent for later questions."""
        ...


class Retrievers(Protocol):
    """Gives the :class:`Retriever` of a collection (the searcher does)."""

    def retriever(self, collection: str | None = None) -> Retriever:
        """The retriever of ``collection`` (the configured one when ``None``)."""
        ...
