"""One of several server processes (``archivist serve --workers N``), built from the environment.

``archivist serve`` checks the settings, binds the socket and puts its flags in the
environment; uvicorn then starts N processes, each calling :func:`worker_app`. Every
worker opens the same shared database (and vector engine), so any of them answers any
request and runs any queued ingest job.
"""

from __future__ import annotations

import os

from fastapi import FastAPI

from archivist.app.api.app import create_app
from archivist.application import Application
from archivist.settings import load_settings

WORKER_TOKEN = "_ARCHIVIST_WORKER_TOKEN"
"""The environment variable that hands each worker the local CLI's token."""
NO_INGEST = "_ARCHIVIST_NO_INGEST"
"""Set (non-empty) when the workers leave queued uploads to ``archivist worker`` processes."""


def worker_app() -> FastAPI:
    """The app of one worker process."""
    app = create_app(Application(load_settings()), close_application=True,
                     ingest=not os.environ.get(NO_INGEST))
    token = os.environ.get(WORKER_TOKEN)
    if token:
        app.state.keys.allow_local(token)
    return app
