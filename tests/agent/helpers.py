"""Small helpers for reading a turn's events in agent tests."""

from __future__ import annotations

from typing import Any

from archivist.agent.service import AgentService
from archivist.events import Event


def run(service: AgentService, message: str, thread_id: str | None = None) -> list[Event]:
    """All events of one turn."""
    return list(service.stream(message, thread_id))


def steps(events: list[Event], kind: str) -> list[dict[str, Any]]:
    """The step events of one kind."""
    return [e.data for e in events if e.type == "step" and e.data["kind"] == kind]


def done(events: list[Event]) -> dict[str, Any]:
    """The final event's data."""
    assert events[-1].type == "done"
    return events[-1].data


def source_names(events: list[Event]) -> list[str]:
    """Document names in the sources event."""
    (sources,) = [e for e in events if e.type == "sources"]
    return [s["document_name"] for s in sources.data["sources"]]
