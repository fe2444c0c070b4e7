"""Where the shared evaluation data is, and what a test does when it is absent.

Outside CI a test that needs it is skipped with the reason; in CI (``CI=true``) it fails,
so a missing checkout of the data can never pass silently.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EVAL_DIR = Path(os.environ.get("ARCHIVIST_EVAL_DIR") or REPO.parent / "shared" / "eval")


def require_eval(path: Path = EVAL_DIR) -> Path:
    """``path`` (inside the eval data), or skip (fail in CI) when it is absent."""
    if path.exists():
        return path
    message = f"evaluation data not found: {path} (set ARCHIVIST_EVAL_DIR)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)
