"""The command groups that live outside ``cli.py`` (agent, evaluation, server, MCP)."""

from __future__ import annotations

from collections.abc import Callable

import typer


def registrars() -> list[Callable[[typer.Typer], None]]:
    """Each module's ``register(app)``, in the order their commands are listed."""
    from archivist.app import cli_agent, cli_eval, cli_model, cli_reindex, cli_serve

    return [
        cli_agent.register, cli_serve.register, cli_eval.register, cli_reindex.register,
        cli_model.register,
    ]
