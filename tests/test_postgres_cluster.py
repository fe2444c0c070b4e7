"""The throwaway PostgreSQL fixture: a real server with pgvector, unprivileged, removed after."""

from __future__ import annotations

import os
import socket

import psycopg

from archivist.testing.postgres import ThrowawayPostgres


def test_each_test_gets_a_fresh_database_with_pgvector(postgres_url: str) -> None:
    assert postgres_url.startswith("postgresql://")
    with psycopg.connect(postgres_url) as conn:
        tables = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchone()
        assert tables == (0,)
        conn.execute("CREATE TABLE marker (v vector(3))")
        conn.execute("INSERT INTO marker VALUES ('[1,0,0]'), ('[0,1,0]')")
        nearest = conn.execute(
            "SELECT v::text FROM marker ORDER BY v <=> '[0.9,0.1,0]' LIMIT 1"
        ).fetchone()
        assert nearest == ("[1,0,0]",)


def test_the_next_test_does_not_see_the_previous_database(postgres_url: str) -> None:
    with psycopg.connect(postgres_url) as conn:
        found = conn.execute("SELECT to_regclass('public.marker')").fetchone()
    assert found == (None,)


def test_the_cluster_runs_unprivileged_and_stop_removes_it() -> None:
    cluster = ThrowawayPostgres().start()
    folder, port = cluster.folder, cluster.port
    assert folder is not None and folder.exists()
    pid = int((folder / "data" / "postmaster.pid").read_text().split()[0])
    assert os.stat(f"/proc/{pid}").st_uid != 0
    cluster.stop()
    assert not folder.exists()
    assert not os.path.exists(f"/proc/{pid}")
    with socket.socket() as sock:
        assert sock.connect_ex(("127.0.0.1", port)) != 0
