"""Docker cannot run here: check the compose file and Dockerfile say what they should."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import typer
import yaml
from typer.testing import CliRunner

from archivist.app.cli.serve import register
from archivist.index.engines import vector_engine
from archivist.settings import Settings
from archivist.settings.names import FOREIGN_ENV, GROUPS, TOP_LEVEL, env_name

REPO = Path(__file__).resolve().parents[2]


def _env_names() -> dict[str, tuple[str, ...]]:
    """Every environment variable a setting reads (not the deprecated ones) -> its place."""
    names: dict[str, tuple[str, ...]] = {f"ARCHIVIST_{n.upper()}": (n,) for n in TOP_LEVEL}
    for group, model in GROUPS.items():
        names.update({env_name(group, field): (group, field) for field in model.model_fields})
    names.update(FOREIGN_ENV)
    return names


def _settings(env: dict[str, str]) -> Settings:
    """The settings the variables ``env`` give, as keywords."""
    keywords: dict[str, Any] = {}
    known = _env_names()
    for key, value in env.items():
        *group, name = known[key]
        (keywords.setdefault(group[0], {}) if group else keywords)[name] = value
    return Settings(**keywords)


def test_compose_parses_and_names_real_settings() -> None:
    compose = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    services = compose["services"]
    assert set(services) == {"archivist", "qdrant", "ollama", "postgres", "archivist-shared",
                             "gateway"}
    # `docker compose up` starts the one-server topology only
    assert [n for n, s in services.items() if "profiles" not in s] == [
        "archivist", "qdrant", "ollama"]
    archivist = services["archivist"]
    env = archivist["environment"]
    known = _env_names()
    for key in env:
        assert key in known, f"{key} is not an Archivist setting"
    assert env["ARCHIVIST_STORAGE__QDRANT_URL"] == "http://qdrant:6333"
    assert env["ARCHIVIST_LLM__OLLAMA_BASE_URL"] == "http://ollama:11434"
    assert env["ARCHIVIST_SERVER__HOST"] == "0.0.0.0"
    # the values are valid settings (compose's ${VAR:-default} resolved to its default)
    settings = _settings(_resolved(env))
    assert settings.storage.qdrant_url == "http://qdrant:6333" and settings.server.port == 8000
    assert settings.llm.model.startswith("ollama:")
    assert "build" in archivist and set(archivist["depends_on"]) == {"qdrant", "ollama"}
    assert services["qdrant"]["image"].startswith("qdrant/qdrant")
    assert services["ollama"]["image"].startswith("ollama/ollama")


def _resolved(env: dict[str, str]) -> dict[str, str]:
    """Compose's ``${VAR:-default}`` replaced by its default."""
    return {k: re.sub(r"\$\{[^:}]+:-([^}]*)\}", r"\1", str(v)) for k, v in env.items()}


def test_compose_postgres_topology_shares_one_database_among_replicas() -> None:
    compose = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    services = compose["services"]
    shared = [services[n] for n in ("postgres", "archivist-shared", "gateway")]
    assert all(s["profiles"] == ["postgres"] for s in shared)
    postgres, workers, gateway = shared
    assert postgres["image"].startswith("pgvector/pgvector:")
    assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])
    known = _env_names()
    assert all(key in known for key in workers["environment"])
    settings = _settings(_resolved(workers["environment"]))
    assert settings.storage.database_url == "postgresql://archivist:archivist@postgres:5432/archivist"
    assert vector_engine(settings) == "pgvector" and settings.storage.qdrant_url is None
    assert workers["deploy"]["replicas"] == "${ARCHIVIST_REPLICAS:-3}"
    assert workers["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert workers["image"] == services["archivist"]["image"]
    assert gateway["ports"] == services["archivist"]["ports"]
    config = compose["configs"][gateway["configs"][0]["source"]]["content"]
    assert "server archivist-shared:8000;" in config and "proxy_buffering off;" in config
    assert "$$host" in config  # compose would otherwise substitute nginx's own variables


def test_dockerfile_holds_archivist_alone() -> None:
    text = (REPO / "Dockerfile").read_text()
    instructions = [line.split()[0] for line in text.splitlines()
                    if line.strip() and not line.startswith((" ", "#"))]
    assert instructions[0] == "FROM" and instructions.count("FROM") == 1
    assert "postgres]" in text  # the image can use PostgreSQL and pgvector
    assert 'CMD ["serve"]' in text and 'ENTRYPOINT ["archivist"]' in text
    assert "EXPOSE 8000" in text and "/health" in text
    lowered = text.lower()
    for outsider in ("ollama pull", "ollama/ollama", "qdrant/qdrant", ".gguf"):
        assert outsider not in lowered, f"{outsider} belongs outside the image"
    for line in re.findall(r"ARCHIVIST_[A-Z_]+", text):
        assert line in _env_names(), line
    ignored = (REPO / ".dockerignore").read_text().split()
    assert ".venv" in ignored and ".git" in ignored


def test_cli_serve_and_mcp_commands() -> None:
    app = typer.Typer()
    register(app)
    runner = CliRunner()
    help_text = runner.invoke(app, ["serve", "--help"]).output
    assert "--host" in help_text and "--port" in help_text
    assert runner.invoke(app, ["mcp", "--help"]).exit_code == 0


def test_serve_binds_localhost_and_says_where(tmp_path: Path) -> None:
    """``serve --port 0`` in a real process: the line it prints, then /health answers."""
    import httpx

    code = ("import typer; from archivist.app.cli.serve import register; "
            "app = typer.Typer(); register(app); app()")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARCHIVIST_")}
    env.update({"ARCHIVIST_DATA_DIR": str(tmp_path / "lib"), "ARCHIVIST_LLM__MODEL": "scripted",
                "ARCHIVIST_CONFIG": "", "HF_HUB_OFFLINE": "1"})
    process = subprocess.Popen([sys.executable, "-c", code, "serve", "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = re.search(r"listening on (http://127\.0\.0\.1:(\d+))", line)
        assert match, line + (process.stderr.read() if process.poll() is not None else "")
        response = None
        for _ in range(100):
            try:
                response = httpx.get(match.group(1) + "/health", timeout=2)
                break
            except httpx.TransportError:
                import time

                time.sleep(0.1)
        assert response is not None and response.json()["status"] == "ok"
    finally:
        process.terminate()
        process.wait(timeout=15)
