"""``python -m archivist`` is the ``archivist`` command."""

from archivist.app.cli import main

main()
