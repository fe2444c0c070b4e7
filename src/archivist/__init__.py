"""Archivist: agentic RAG over your documents, with citations down to the page."""

from importlib.metadata import PackageNotFoundError, version

__version__ = "0.1.0"


def package_version() -> str:
    """Archivist's installed version (``__version__`` when it is not installed)."""
    try:
        return version("archivist")
    except PackageNotFoundError:
        return __version__
