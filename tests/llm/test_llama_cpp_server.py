"""The profile of a model behind llama.cpp's own OpenAI-compatible server, run for real.

xllamacpp serves Qwen2.5-Coder-0.5B under the alias ``assistant``; Archivist is configured
as ``openai:qwen``, so neither name states a size. The server's ``/v1/models`` reports the
parameter count, which must give the small profile.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.local_http import closed_port
from tests.local_model import TEST_MODEL, require_local_model

from archivist.llm import build_chat_model
from archivist.llm.capabilities import describe_profile, profile_for
from archivist.llm.models import MODELS, cached_path
from archivist.llm.server_report import reported_size
from archivist.settings import Settings

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def llama_server() -> Iterator[str]:
    """llama.cpp's HTTP server on a free port (one slot, a 512-token context): its /v1 URL."""
    require_local_model()
    import xllamacpp

    port = closed_port()
    params = xllamacpp.CommonParams()
    params.model.path = str(cached_path(MODELS[TEST_MODEL]))
    params.model_alias = {"assistant"}
    params.n_ctx = 512
    params.n_parallel = 1
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = 1
    params.port = port
    params.hostnames = ["127.0.0.1"]
    params.verbosity = -1
    server = xllamacpp.Server(params)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        del server  # stops the listener


def test_its_parameter_count_gives_the_small_profile(
    llama_server: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "none")
    settings = Settings(llm={"model": "openai:qwen", "openai_base_url": llama_server,
                             "max_tokens": 4, "temperature": 0.0})
    reported = reported_size("openai", "qwen", llama_server)
    assert reported is not None and 0.4 < reported.billions < 0.7  # Qwen2.5 0.5B: 0.63B
    assert reported.source == f"meta.n_params of {llama_server}/models"

    profile = profile_for(settings)
    assert profile.size == "small" and profile.size_from == reported.describe()
    assert describe_profile(settings).startswith("small (meta.n_params of ")
    # an explicit policy still wins
    assert profile_for(settings.with_values(agent={"policy": "capable"})).size == "capable"

    chat = build_chat_model(settings)
    assert chat.profile.small
    assert str(chat.model.invoke("Reply with the word yes.").content).strip()
