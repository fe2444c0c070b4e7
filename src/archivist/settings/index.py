"""``[index]``: how documents are converted, chunked, embedded and searched."""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

SearchMode = Literal["hybrid", "bm25", "dense", "multihop", "graph"]
SEARCH_MODES: tuple[str, ...] = get_args(SearchMode)
SEARCH_MODES_TEXT = ", ".join(SEARCH_MODES[:-1]) + " or " + SEARCH_MODES[-1]  # for help texts
MAX_SEARCH_K = 100
QUERY_MAX_CHARS = 2_000  # a search query, in every interface

DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2"


class IndexSettings(BaseModel):
    """Conversion, chunks, embeddings and search (``[index]``, ``ARCHIVIST_INDEX__*``)."""

    model_config = ConfigDict(extra="forbid")

    # --- conversion ----------------------------------------------------------------
    ingest_workers: int = Field(
        default=0, ge=0, le=64, description="Processes converting PDFs; 0 = one per core, max 4."
    )
    pdf_layout: bool = Field(
        default=False,
        description=(
            "PyMuPDF layout analysis for PDFs: finds tables without ruling lines (financial "
            "statements) that the default misses; about 4x the conversion time."
        ),
    )
    max_pdf_pages: int = Field(
        default=5_000, ge=1,
        description="The most pages a PDF may have; a longer one is refused before converting.",
    )
    ocr: Literal["auto", "off", "force"] = Field(
        default="auto",
        description="OCR for PDF pages: auto (pages without text), off, or force (every page).",
    )

    # --- chunks --------------------------------------------------------------------
    parent_min_chars: int = Field(default=2000, ge=0,
        description="Shorter sections join a neighbour.",
    )
    parent_max_chars: int = Field(default=4000, ge=100, description="Longer sections are split.")
    child_chars: int = Field(default=500, ge=50, le=100_000,
        description="Size of the searched chunks.",
    )
    child_overlap: int = Field(default=100, ge=0,
        description="Characters neighbouring chunks share.",
    )
    contextualize: Literal["off", "llm"] = Field(
        default="off",
        description=(
            "llm: the configured model writes one sentence placing each chunk in its "
            "document, indexed with it (cached by content hash); off: none."
        ),
    )
    entity_graph: bool = Field(
        default=False,
        description="Extract entities per chunk at ingest for graph search (the graph extra).",
    )

    # --- embeddings ----------------------------------------------------------------
    embedding_model: str = Field(
        default=DEFAULT_EMBEDDING_MODEL,
        description="A sentence-transformers model name or folder.",
    )
    embedding_batch_size: int = Field(default=64, ge=1, le=4096,
        description="Texts per embedding batch.",
    )
    embedding_backend: Literal["onnx", "onnx-int8", "torch"] = Field(
        default="onnx",
        description=(
            "onnx: the model on ONNX Runtime, same vectors as torch, about twice as fast on "
            "CPU; onnx-int8: quantised, faster still, slightly different vectors; torch: "
            "sentence-transformers."
        ),
    )
    bm25_language: str = Field(default="english",
        description="BM25 stop words and Snowball stemmer.",
    )

    # --- search --------------------------------------------------------------------
    search_mode: SearchMode = Field(default="hybrid",
        description=f"Default mode: {SEARCH_MODES_TEXT}.",
    )
    search_k: int = Field(default=5, ge=1, le=MAX_SEARCH_K, description="Hits a search returns.")
    prefetch_k: int = Field(default=40, ge=1, le=1000,
        description="Candidates per list before fusion.",
    )
    multihop_searches: int = Field(default=6, ge=1, le=10, description="Searches per "
                                   "question in multihop mode (hop 1 + bridges).")
    rerank_model: str = Field(default="", description="CrossEncoder name/folder, 'llm', or off.")
    rerank_depth: int = Field(default=20, ge=2, le=100, description="Hits reranked.")

    @field_validator("parent_max_chars")
    @classmethod
    def _max_over_min(cls, value: int, info: Any) -> int:
        minimum = info.data.get("parent_min_chars", 0)
        if value < minimum:
            raise ValueError("parent_max_chars must be at least parent_min_chars")
        return value

    @field_validator("child_overlap")
    @classmethod
    def _overlap_under_child(cls, value: int, info: Any) -> int:
        if value >= info.data.get("child_chars", value + 1):
            raise ValueError("child_overlap must be smaller than child_chars")
        return value
