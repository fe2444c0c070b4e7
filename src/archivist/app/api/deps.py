"""Typed FastAPI dependencies: what a route may ask for, taken from the app's state.

``create_app`` puts one :class:`~archivist.application.Application`, the ingest jobs and
the chat runner on ``app.state``; routes declare ``app: AppDep``, ``jobs: JobsDep`` and so
on instead of reaching into the request.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from archivist.app.api.turns import ChatRunner
from archivist.app.jobs import IngestJobs
from archivist.application import Application
from archivist.settings import Settings


def get_application(request: Request) -> Application:
    """The application the server was built with."""
    application: Application = request.app.state.application
    return application


def get_settings(request: Request) -> Settings:
    """The server's settings."""
    return get_application(request).settings


def get_jobs(request: Request) -> IngestJobs:
    """The upload ingest jobs."""
    jobs: IngestJobs = request.app.state.jobs
    return jobs


def get_chat(request: Request) -> ChatRunner:
    """The conversation runner."""
    chat: ChatRunner = request.app.state.chat
    return chat


AppDep = Annotated[Application, Depends(get_application)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
JobsDep = Annotated[IngestJobs, Depends(get_jobs)]
ChatDep = Annotated[ChatRunner, Depends(get_chat)]
