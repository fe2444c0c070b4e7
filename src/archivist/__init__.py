"""Archivist: agentic RAG over your documents, with citations down to the page."""

__version__ = "0.1.0"
