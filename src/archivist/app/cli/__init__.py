"""The ``archivist`` command line; :func:`main` is the console script."""

from __future__ import annotations


def main() -> None:
    """Console-script entry point (imports the commands only when run)."""
    from archivist.app.cli.main import run

    run()
