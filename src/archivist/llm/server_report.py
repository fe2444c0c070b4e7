"""A served model's size as its server reports it.

llama.cpp's OpenAI-compatible server gives the parameter count in ``/v1/models``
(``meta.n_params``); vLLM gives the served model's name (``root``), LM Studio its ``id``,
whose stated size is used; Ollama gives ``details.parameter_size`` (``"1.5B"``) in
``/api/show``. Each server is asked once per process, with a short timeout; a server that is
down or reports no size gives ``None``, and the caller falls back to the configured name.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import httpx

log = logging.getLogger(__name__)

#: How long a server may take to report (seconds): it is asked before the first answer.
REPORT_TIMEOUT_S = 2.0

_STATED = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)b(?![a-z])", re.IGNORECASE)
_PARAMETER_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmbt])\s*$", re.IGNORECASE)
_BILLIONS_PER_UNIT = {"k": 1e-6, "m": 1e-3, "b": 1.0, "t": 1e3}


@dataclass(frozen=True)
class ReportedSize:
    """A model's size in billions of parameters, and what reported it."""

    billions: float
    source: str

    def describe(self) -> str:
        """``"meta.n_params of http://host/v1/models: 1.54B parameters"``."""
        return f"{self.source}: {self.billions:.2f}B parameters"


def stated_billions(name: str) -> float | None:
    """The size a model name states (``qwen2.5-1.5b-instruct`` -> 1.5), or ``None``.

    Only the last path segment counts, so a folder such as ``models-7b/`` says nothing.
    """
    size = _STATED.search(name.lower().rsplit("/", 1)[-1])
    return float(size.group(1)) if size else None


def parameter_billions(text: str) -> float | None:
    """Ollama's ``parameter_size`` in billions: ``"1.5B"`` -> 1.5, ``"270M"`` -> 0.27."""
    size = _PARAMETER_SIZE.match(text)
    if size is None:
        return None
    return float(size.group(1)) * _BILLIONS_PER_UNIT[size.group(2).lower()]


@lru_cache(maxsize=64)
def reported_size(provider: str, model: str, base_url: str) -> ReportedSize | None:
    """What the ``openai`` or ``ollama`` server at ``base_url`` reports of ``model``'s size.

    Asked once per process for each (provider, model, server); any failure (no server,
    an error status, no size in the reply) is logged at debug level and gives ``None``.
    """
    base = base_url.strip().rstrip("/")
    if "://" not in base:  # OLLAMA_HOST may be host:port
        base = f"http://{base}"
    try:
        if provider == "ollama":
            found = _ollama_size(base, model)
        elif provider == "openai":
            found = _openai_size(base, model)
        else:
            return None
    except (httpx.HTTPError, httpx.InvalidURL, ValueError) as exc:
        log.debug("%s at %s reported no size for %s: %s", provider, base, model, exc)
        return None
    if found is None:
        log.debug("%s at %s reported no size for %s", provider, base, model)
    return found


def _ollama_size(base: str, model: str) -> ReportedSize | None:
    url = f"{base}/api/show"
    reply = _json(httpx.post(url, json={"model": model}, timeout=REPORT_TIMEOUT_S))
    details = reply.get("details")
    stated = details.get("parameter_size") if isinstance(details, dict) else None
    if isinstance(stated, str) and (billions := parameter_billions(stated)) is not None:
        return ReportedSize(billions, f"details.parameter_size of {url}")
    info = reply.get("model_info")
    count = info.get("general.parameter_count") if isinstance(info, dict) else None
    return _counted(count, f"model_info of {url}")


def _openai_size(base: str, model: str) -> ReportedSize | None:
    url = f"{base}/models"
    key = os.environ.get("OPENAI_API_KEY")  # the key the chat calls send to this server
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    reply = _json(httpx.get(url, headers=headers, timeout=REPORT_TIMEOUT_S))
    entry = _served_entry(reply.get("data"), model)
    if entry is None:
        return None
    meta = entry.get("meta")
    counted = _counted(meta.get("n_params") if isinstance(meta, dict) else None,
                       f"meta.n_params of {url}")
    if counted is not None:
        return counted
    for field in ("root", "id"):  # vLLM's served model, LM Studio's model key
        name = entry.get(field)
        if isinstance(name, str) and (billions := stated_billions(name)) is not None:
            return ReportedSize(billions, f"the served model {name!r} at {url}")
    return None


def _served_entry(entries: Any, model: str) -> dict[str, Any] | None:
    """The ``/models`` entry of ``model``: by id or alias, else the only one listed.

    A single-model server (llama.cpp without a router) answers whatever name is asked for,
    so its one entry is the model; among several, only a matching name counts.
    """
    if not isinstance(entries, list):
        return None
    listed = [entry for entry in entries if isinstance(entry, dict)]
    for entry in listed:
        aliases = entry.get("aliases")
        if entry.get("id") == model or (isinstance(aliases, list) and model in aliases):
            return entry
    return listed[0] if len(listed) == 1 else None


def _counted(count: Any, source: str) -> ReportedSize | None:
    if isinstance(count, bool) or not isinstance(count, int | float) or count <= 0:
        return None
    return ReportedSize(count / 1e9, source)


def _json(response: httpx.Response) -> dict[str, Any]:
    response.raise_for_status()
    reply = response.json()
    if not isinstance(reply, dict):
        raise ValueError(f"{response.url} answered {type(reply).__name__}, not an object")
    return reply
