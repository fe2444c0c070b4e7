"""The real local models for tests: Qwen2.5-Coder-0.5B-Instruct (Q4_K_M) for the provider
tests, the 1.5B for the agent's end-to-end scenarios, run in-process.

``make install-all`` installs xllamacpp and fetches both models into the cache
(``archivist model fetch 0.5b 1.5b``). Without them the tests skip with the reason, except under
CI (``CI`` set), where they fail: there they must run.
"""

from __future__ import annotations

import importlib.util
import os

import pytest

from archivist.llm.models import MODELS, cached_path, is_cached

TEST_MODEL = "0.5b"
TEST_SPEC = f"local:{TEST_MODEL}"
#: The model the agent scenarios run on (the 0.5B writes abstentions over right passages).
AGENT_MODEL = "1.5b"
AGENT_SPEC = f"local:{AGENT_MODEL}"


def require_local_model(name: str = TEST_MODEL) -> None:
    """Skip (fail under CI) unless xllamacpp is installed and model ``name`` is fetched."""
    model = MODELS[name]
    missing = []
    if importlib.util.find_spec("xllamacpp") is None:
        missing.append("xllamacpp (pip install 'archivist[local]')")
    if not is_cached(model):
        missing.append(f"{cached_path(model)} (archivist model fetch {name})")
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


@pytest.fixture
def agent_model_ready() -> None:
    """Use in a test that runs the agent on the real 1.5B model."""
    require_local_model(AGENT_MODEL)
