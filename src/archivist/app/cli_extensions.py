"""The command groups that live outside ``cli.py`` (agent, evaluation, server, MCP)."""

from __future__ import annotations

from collections.abc import Callable

import typer


def registrars() -> list[Callable[[typer.Typer], None]]:
    """Each module's ``register(app)``, in the order their commands are listed."""
    from archivist.app import cli_agent, cli_eval

    return [cli_agent.register, cli_eval.register]
