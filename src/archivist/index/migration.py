"""Libraries made before Qdrant Edge: copy qdrant-client's local-mode store into Edge shards.

The copy is built beside the library in ``vectors.staging/``, checked point for point, and
only then swapped in; the old store is kept as ``qdrant.pre-edge/`` until the user deletes
it. A migration (or a reindex) interrupted at any step starts over, or finishes its swap,
on the next open. If the old store cannot be read, opening stops with one line that names
``archivist reindex``, which rebuilds the vectors from the catalog instead.
"""

from __future__ import annotations

import logging
import shutil
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import qdrant_edge as qe

from archivist.index.edge_config import edge_config
from archivist.index.vectors import DENSE, SPARSE, LibraryInUse, VectorStoreUnreadable
from archivist.types import ArchivistError

if TYPE_CHECKING:
    from qdrant_client import QdrantClient

log = logging.getLogger(__name__)

LEGACY_DIR = "qdrant"
BACKUP_DIR = "qdrant.pre-edge"
STAGING_DIR = "vectors.staging"
_COMPLETE_MARK = "vectors.staging.complete"
_OLD_SUFFIX = ".old"
_PREFIX = "archivist_"
_BATCH = 512


def legacy_store(data_dir: Path) -> Path | None:
    """The pre-Edge store of a library, if it still has one in use."""
    path = data_dir / LEGACY_DIR
    return path if path.is_dir() else None


def staging_path(data_dir: Path) -> Path:
    """Where a migration or a reindex builds the new vectors before they are swapped in."""
    return data_dir / STAGING_DIR


def swap_in_staged(data_dir: Path, target: Path) -> Path | None:
    """Make the complete staged vectors the library's own; the old store's backup, if any.

    Every step can be repeated, so ``recover_interrupted_swap`` finishes a swap that a
    crash cut short: the mark says the staged copy is whole.
    """
    mark = data_dir / _COMPLETE_MARK
    mark.touch()
    backup = None
    legacy = legacy_store(data_dir)
    if legacy is not None:
        backup = data_dir / BACKUP_DIR
        if backup.exists():
            shutil.rmtree(backup)
        legacy.rename(backup)
    staging = staging_path(data_dir)
    old = target.with_name(target.name + _OLD_SUFFIX)
    if staging.exists():
        if target.exists():
            target.rename(old)
        staging.rename(target)
    if old.exists():
        if target.exists():
            shutil.rmtree(old)
        else:  # the staged copy is gone: keep the vectors that were there
            old.rename(target)
    mark.unlink()
    return backup


def recover_interrupted_swap(data_dir: Path, target: Path) -> None:
    """Finish a swap whose staged copy was complete; drop one that was not."""
    staging = staging_path(data_dir)
    old = target.with_name(target.name + _OLD_SUFFIX)
    if (data_dir / _COMPLETE_MARK).exists():
        swap_in_staged(data_dir, target)
        return
    if staging.exists():
        shutil.rmtree(staging)
    if old.exists():
        if target.exists():
            shutil.rmtree(old)
        else:
            old.rename(target)


def migrate_legacy_store(data_dir: Path, target: Path) -> list[str]:
    """Move a pre-Edge library's vectors into Edge shards at ``target``; lines to tell the user.

    The caller holds the library lock.
    """
    recover_interrupted_swap(data_dir, target)
    legacy = legacy_store(data_dir)
    if legacy is None:
        return []
    if target.exists() and any(target.iterdir()):
        raise VectorStoreUnreadable(
            f"the library in {data_dir} holds vectors of both the old engine ({legacy}) and "
            f"the new one ({target}); run `archivist reindex` to rebuild them from the catalog"
        )
    staging = staging_path(data_dir)
    try:
        moved = _copy_collections(legacy, staging)
    except ArchivistError:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    except Exception as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise VectorStoreUnreadable(
            f"the library in {data_dir} was made by an older Archivist and its vectors could "
            f"not be migrated ({type(exc).__name__}: {exc}); run `archivist reindex` to "
            "rebuild them from the catalog"
        ) from exc
    staging.mkdir(parents=True, exist_ok=True)  # a library with no collection yet
    backup = swap_in_staged(data_dir, target)
    total = sum(moved.values())
    note = (
        f"migrated {total} vectors in {len(moved)} collection(s) to the embedded Qdrant Edge "
        f"engine; the old store is kept in {backup} (delete it once you are satisfied)"
    )
    log.warning("%s", note)
    return [note]


def _copy_collections(legacy: Path, staging: Path) -> dict[str, int]:
    try:
        with warnings.catch_warnings():  # the local mode's size advice
            warnings.simplefilter("ignore", UserWarning)
            from qdrant_client import QdrantClient  # only for a pre-Edge library

            client = QdrantClient(path=str(legacy))
    except RuntimeError as exc:
        if "already accessed" in str(exc):
            raise LibraryInUse(
                f"the library in {legacy.parent} is in use by an older Archivist process; "
                "stop it, then open the library again to migrate it"
            ) from exc
        raise
    moved: dict[str, int] = {}
    try:
        for description in client.get_collections().collections:
            if not description.name.startswith(_PREFIX):
                continue
            collection = description.name[len(_PREFIX) :]
            moved[collection] = _copy_collection(client, description.name, staging / collection)
    finally:
        client.close()
    return moved


def _copy_collection(client: QdrantClient, name: str, path: Path) -> int:
    vectors = client.get_collection(name).config.params.vectors
    if not isinstance(vectors, dict) or DENSE not in vectors:
        raise VectorStoreUnreadable(f"collection {name} has no '{DENSE}' vector")
    shard = qe.EdgeShard.create(str(path), edge_config(int(vectors[DENSE].size)))
    try:
        shard.update(
            qe.UpdateOperation.create_field_index("document_id", qe.PayloadSchemaType.Keyword)
        )
        offset = None
        copied = 0
        while True:
            points, offset = client.scroll(
                name, limit=_BATCH, offset=offset, with_payload=True, with_vectors=True
            )
            batch = []
            for point in points:
                stored = point.vector if isinstance(point.vector, dict) else {}
                vector: dict[str, object] = {DENSE: list(stored[DENSE])}  # type: ignore[arg-type]
                sparse = stored.get(SPARSE)
                if sparse is not None:
                    vector[SPARSE] = qe.SparseVector(
                        list(sparse.indices),  # type: ignore[union-attr]
                        list(sparse.values),  # type: ignore[union-attr]
                    )
                batch.append(qe.Point(str(point.id), vector, dict(point.payload or {})))  # type: ignore[arg-type]
            if batch:
                shard.update(qe.UpdateOperation.upsert_points(batch))
                copied += len(batch)
            if offset is None:
                break
        expected = int(client.count(name, exact=True).count)
        stored_count = int(shard.count(qe.CountRequest(exact=True)))
        if stored_count != expected or copied != expected:
            raise VectorStoreUnreadable(
                f"collection {name}: copied {stored_count} of {expected} points"
            )
        shard.flush()
        return copied
    finally:
        shard.close()
