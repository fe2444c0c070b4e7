"""The real local model for tests: Qwen2.5-Coder-0.5B-Instruct (Q4_K_M) run in-process.

``make install-all`` installs xllamacpp and fetches the model into the cache
(``archivist model fetch 0.5b``). Without them the tests skip with the reason, except under
CI (``CI`` set), where they fail: there they must run.
"""

from __future__ import annotations

import importlib.util
import os

import pytest

from archivist.llm.models import MODELS, cached_path, is_cached

TEST_MODEL = "0.5b"
TEST_SPEC = f"local:{TEST_MODEL}"


def require_local_model() -> None:
    """Skip (fail under CI) unless xllamacpp is installed and the test model is fetched."""
    model = MODELS[TEST_MODEL]
    missing = []
    if importlib.util.find_spec("xllamacpp") is None:
        missing.append("xllamacpp (pip install 'archivist[local]')")
    if not is_cached(model):
        missing.append(f"{cached_path(model)} (archivist model fetch {TEST_MODEL})")
    if not missing:
        return
    message = "the local-model tests need " + " and ".join(missing) + "; make install-all does both"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
def local_model_ready() -> None:
    """Use in a test that needs the real local model."""
    require_local_model()
