"""Run an ingest in this process and SIGKILL it right after the Nth document's vectors land.

Used by test_consistency.py: ``python kill_during_ingest.py DATA_DIR DOCS_DIR N``.
The kill happens after Qdrant has the vectors but before the catalog marks the document
ready, the worst moment for consistency.
"""

import os
import signal
import sys
from pathlib import Path

from archivist.application import Application
from archivist.index.edge_store import EdgeVectorStore
from archivist.settings import Settings

data_dir, docs_dir, kill_after = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
real_upsert = EdgeVectorStore.upsert
calls = {"n": 0}


def upsert_then_die(self, *args, **kwargs):  # type: ignore[no-untyped-def]
    real_upsert(self, *args, **kwargs)
    calls["n"] += 1
    if calls["n"] == kill_after:
        os.kill(os.getpid(), signal.SIGKILL)


EdgeVectorStore.upsert = upsert_then_die  # type: ignore[method-assign]
library = Application(Settings(data_dir=data_dir))
library.ingest.files([docs_dir])
