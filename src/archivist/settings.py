"""One settings tree: ``ARCHIVIST_*`` environment, an optional ``archivist.toml``, CLI flags.

Precedence, highest first: values passed to ``Settings(...)`` (the CLI's flags),
environment variables, ``archivist.toml`` in the working directory (or the file named by
``ARCHIVIST_CONFIG``), then the defaults below.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import AliasChoices, Field, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
    TomlConfigSettingsSource,
)

from archivist.llm.models import OLLAMA_FALLBACK_LLM, default_llm
from archivist.settings_sources import InvalidSettings as InvalidSettings
from archivist.settings_sources import check_sources, config_file

SearchMode = Literal["hybrid", "bm25", "dense", "multihop", "graph"]
SEARCH_MODES: tuple[str, ...] = get_args(SearchMode)
SEARCH_MODES_TEXT = ", ".join(SEARCH_MODES[:-1]) + " or " + SEARCH_MODES[-1]  # for help texts
MAX_SEARCH_K = 100
QUERY_MAX_CHARS = 2_000  # a search query, in every interface
COLLECTION_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
StrategySetting = Literal["auto", "tools", "pipeline"]

DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2"


class Settings(BaseSettings):
    """Every option Archivist reads. Field names are the ``archivist.toml`` keys."""

    model_config = SettingsConfigDict(
        env_prefix="ARCHIVIST_",
        extra="ignore",
        populate_by_name=True,
    )

    # --- storage -------------------------------------------------------------------
    data_dir: Path = Field(default=Path(".archivist"), description="Where a library lives.")
    collection: str = Field(default="default", description="The knowledge base to use.")
    qdrant_url: str | None = Field(
        default=None, description="A Qdrant server; empty means embedded Qdrant Edge in data_dir."
    )
    qdrant_api_key: str | None = Field(default=None, description="The Qdrant server's API key.")
    database_url: str | None = Field(default=None, description="Every table of the library: "
                                     "empty = data_dir/archivist.sqlite; or postgresql://...")
    vector_engine: Literal["auto", "qdrant", "pgvector"] = Field(default="auto", description=(
        "auto: pgvector if database_url is PostgreSQL and qdrant_url empty, else Qdrant"))

    # --- indexing ------------------------------------------------------------------
    embedding_model: str = Field(
        default=DEFAULT_EMBEDDING_MODEL,
        description="A sentence-transformers model name or folder.",
    )
    embedding_batch_size: int = Field(64, ge=1, le=4096, description="Texts per embedding batch.")
    embedding_backend: Literal["onnx", "onnx-int8", "torch"] = Field(
        default="onnx",
        description=(
            "onnx: the model on ONNX Runtime, same vectors as torch, about twice as fast on "
            "CPU; onnx-int8: quantised, faster still, slightly different vectors; torch: "
            "sentence-transformers."
        ),
    )
    parent_min_chars: int = Field(2000, ge=0, description="Shorter sections join a neighbour.")
    parent_max_chars: int = Field(4000, ge=100, description="Longer sections are split.")
    child_chars: int = Field(500, ge=50, le=100_000, description="Size of the searched chunks.")
    child_overlap: int = Field(100, ge=0, description="Characters neighbouring chunks share.")
    bm25_language: str = Field("english", description="BM25 stop words and Snowball stemmer.")
    ingest_workers: int = Field(
        default=0, ge=0, le=64, description="Processes converting PDFs; 0 = one per core, max 4."
    )
    pdf_layout: bool = Field(
        default=False,
        description=(
            "PyMuPDF layout analysis for PDFs: finds tables without ruling lines (financial "
            "statements) that the default misses; about 4x the conversion time."
        ),
    )
    ocr: Literal["auto", "off", "force"] = Field(
        default="auto",
        description="OCR for PDF pages: auto (pages without text), off, or force (every page).",
    )

    contextualize: Literal["off", "llm"] = Field(
        default="off",
        description=(
            "llm: the configured model writes one sentence placing each chunk in its "
            "document, indexed with it (cached by content hash); off: none."
        ),
    )

    # --- search --------------------------------------------------------------------
    search_mode: SearchMode = Field("hybrid", description=f"Default mode: {SEARCH_MODES_TEXT}.")
    search_k: int = Field(5, ge=1, le=MAX_SEARCH_K, description="Hits a search returns.")
    prefetch_k: int = Field(40, ge=1, le=1000, description="Candidates per list before fusion.")
    multihop_searches: int = Field(default=6, ge=1, le=10, description="Searches per "
                                   "question in multihop mode (hop 1 + bridges).")
    table_queries: bool = Field(default=True, description="Computations over the documents' "
                                "tables by one read-only SQL query the model writes.")
    sql_row_limit: int = Field(default=200, ge=1, le=10_000, description="Rows a query returns.")
    sql_seconds: float = Field(default=2.0, gt=0, le=60, description="Time a query may take.")
    rerank_model: str = Field(default="", description="CrossEncoder name/folder, 'llm', or off.")
    rerank_depth: int = Field(default=20, ge=2, le=100, description="Hits reranked.")
    entity_graph: bool = Field(
        default=False,
        description="Extract entities per chunk at ingest for graph search (the graph extra).",
    )

    # --- LLM -----------------------------------------------------------------------
    llm: str = Field(default_factory=default_llm, description='"provider:model", or '
                     f'"scripted". Unset: the fetched local model, else {OLLAMA_FALLBACK_LLM}.')
    llm_fast: str | None = Field(default=None, description="Model for rewriting and grading.")
    temperature: float = Field(default=0.0, ge=0.0, le=2.0, description="Sampling temperature.")
    llm_timeout_s: float = Field(default=120.0, gt=0, description="Seconds an LLM call may take.")
    llm_max_retries: int = Field(3, ge=0, le=20, description="Retries of a failed LLM call.")
    llm_max_tokens: int | None = Field(
        default=None,
        ge=1,
        description="Cap on reply tokens (also sent as max_tokens to OpenAI-compatible servers).",
    )
    ollama_base_url: str = Field(
        default="http://localhost:11434", description="Where Ollama listens.",
        validation_alias=AliasChoices("ARCHIVIST_OLLAMA_BASE_URL", "OLLAMA_HOST",
                                      "ollama_base_url"),
    )
    openai_base_url: str | None = Field(
        default=None, description="An OpenAI-compatible server instead of OpenAI.",
        validation_alias=AliasChoices(
            "ARCHIVIST_OPENAI_BASE_URL", "OPENAI_BASE_URL", "openai_base_url"
        ),
    )
    local_parallel: int = Field(
        default=2, ge=1, le=8,
        description="Requests the local model serves at once (llama.cpp slots); more wait.",
    )
    local_context: int = Field(
        default=8192, ge=1024, description="Context tokens per slot of the local model."
    )
    local_threads: int | None = Field(
        default=None, ge=1, description="CPU threads of the local model (default: all cores)."
    )
    local_timeout_s: float | None = Field(
        default=None, gt=0,
        description="Seconds a local model call may take before it fails like any LLM failure "
        "(default: sized from the model's measured speed, at least 60 s).",
    )
    strategy: StrategySetting = Field("auto", description="tools, pipeline, or auto (by model).")
    policy: Literal["auto", "small", "capable"] = Field(
        default="auto", description="Small-model checks (small) or none (capable); auto: "
        "small for the local provider and models under 7B.")

    # --- agent budgets -------------------------------------------------------------
    max_tool_calls: int = Field(default=8, ge=1, description="Tool calls per sub-question.")
    max_iterations: int = Field(default=6, ge=1, description="Model turns per sub-question.")
    max_sub_questions: int = Field(3, ge=1, le=3, description="Parts of a compound question.")
    compression_tokens: int = Field(6000, ge=200, description="Working memory compressed past it.")
    memory_turns: int = Field(default=4, ge=1, description="Turns kept verbatim.")
    memory_summary_tokens: int = Field(2000, ge=100, description="Size of the turns' summary.")
    tool_result_hits: int = Field(6, ge=1, le=20, description="Passages a search shows the model.")
    pipeline_read_chars: int = Field(
        default=4000, ge=0,
        description="pipeline strategy: characters of whole parent sections read for the "
        "answer, best passage's section first (0: answer from the passages only).",
    )
    max_clarifications: int = Field(default=2, ge=0, description="Ask-back rounds per question.")
    second_look: bool = Field(
        default=True,
        description="When an answer abstains although passages were graded relevant, read "
        "them once more with a find-the-row prompt (one more LLM call).",
    )

    # --- web search ----------------------------------------------------------------
    web_search: Literal["off", "wikipedia", "duckduckgo"] = Field("off", description="Web search.")
    web_search_url: str | None = Field(None, description="The web provider's URL (a mirror).")
    web_timeout_s: float = Field(default=8.0, description="Seconds a web search may take.")
    web_results: int = Field(default=3, ge=1, le=10, description="Web results per web search.")

    # --- server --------------------------------------------------------------------
    host: str = Field(default="127.0.0.1", description="Address the server listens on.")
    port: int = Field(default=8000, ge=0, le=65535, description="0 = any free port.")
    api_keys: str = Field(
        default="",
        description="Comma-separated bearer keys that read and change their own documents; "
        "with no key of any kind the server is open.",
    )
    admin_keys: str = Field(
        default="", description="Comma-separated bearer keys that may change every document."
    )
    read_only_keys: str = Field(
        default="", description="Comma-separated bearer keys that may search and ask only."
    )
    key_collections: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Key -> the collections it may use; a key not listed may use every one.",
    )
    trusted_hosts: str = Field(
        default="localhost,127.0.0.1,::1",
        description="Comma-separated host names the server answers to ('*' = any); the "
        "bind host is added when it is a specific address.",
    )
    max_upload_mb: int = Field(default=50, ge=1, description="The largest upload, in MB.")
    job_lease_s: float = Field(
        default=60.0, ge=1.0, description="Seconds an ingest job stays claimed by a worker "
        "that stopped renewing it (died) before another worker takes it over.")
    sync_folders: str = Field(
        default="", description="Comma-separated folders the server keeps its collection in "
        "step with (archivist sync --watch, run by the server).")
    sync_interval_s: float = Field(default=1.0, ge=0.2, description="Seconds between checks.")

    # --- observability -------------------------------------------------------------
    langfuse_public_key: str | None = Field(
        default=None, description="Langfuse tracing of LLM calls (with the secret key).",
        validation_alias=AliasChoices("LANGFUSE_PUBLIC_KEY", "ARCHIVIST_LANGFUSE_PUBLIC_KEY"),
    )
    langfuse_secret_key: str | None = Field(
        default=None, description="Langfuse's secret key.",
        validation_alias=AliasChoices("LANGFUSE_SECRET_KEY", "ARCHIVIST_LANGFUSE_SECRET_KEY"),
    )
    langfuse_host: str | None = Field(
        default=None, description="A self-hosted Langfuse.",
        validation_alias=AliasChoices("LANGFUSE_HOST", "ARCHIVIST_LANGFUSE_HOST"),
    )
    otlp_endpoint: str | None = Field(
        default=None, description="OpenTelemetry collector for the agent's spans.",
        validation_alias=AliasChoices(
            "OTEL_EXPORTER_OTLP_ENDPOINT", "ARCHIVIST_OTLP_ENDPOINT", "otlp_endpoint"
        ),
    )

    @field_validator("collection")
    @classmethod
    def _collection_name(cls, value: str) -> str:
        return check_collection_name(value)

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str | None) -> str | None:
        if value and not value.startswith(("sqlite:///", "postgresql://", "postgresql+")):
            raise ValueError("use sqlite:///path/to/file or postgresql://user:pass@host/db")
        return value or None

    @field_validator("data_dir")
    @classmethod
    def _writable(cls, value: Path) -> Path:
        return check_data_dir(value)

    @field_validator("parent_max_chars")
    @classmethod
    def _max_over_min(cls, value: int, info: Any) -> int:
        minimum = info.data.get("parent_min_chars", 0)
        if value < minimum:
            raise ValueError("parent_max_chars must be at least parent_min_chars")
        return value

    @field_validator("child_overlap")
    @classmethod
    def _overlap_under_child(cls, value: int, info: Any) -> int:
        if value >= info.data.get("child_chars", value + 1):
            raise ValueError("child_overlap must be smaller than child_chars")
        return value

    @model_validator(mode="after")
    def _keys_agree(self) -> Settings:
        roles = [self.admin_key_list, self.api_key_list, self.read_only_key_list]
        seen: set[str] = set()
        for keys in roles:
            if seen & set(keys):
                raise ValueError("admin_keys, api_keys, read_only_keys: a key is listed in "
                                 "more than one of them")
            seen |= set(keys)
        for key, collections in self.key_collections.items():
            if key not in seen:
                raise ValueError("key_collections: names a key that is not in admin_keys, "
                                 "api_keys or read_only_keys")
            for name in collections:
                check_collection_name(name)
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Flags beat the environment, which beats ``archivist.toml``."""
        path = config_file()
        toml = () if path is None else (TomlConfigSettingsSource(settings_cls, toml_file=path),)
        return (init_settings, env_settings, *toml)

    # --- derived paths -------------------------------------------------------------
    @property
    def vectors_path(self) -> Path:
        """The embedded engine's folder (one Qdrant Edge shard per collection)."""
        return self.data_dir / "vectors"

    @property
    def api_key_list(self) -> list[str]:
        """Configured normal API keys, blanks dropped."""
        return _split(self.api_keys)

    @property
    def admin_key_list(self) -> list[str]:
        """Configured admin keys."""
        return _split(self.admin_keys)

    @property
    def read_only_key_list(self) -> list[str]:
        """Configured read-only keys."""
        return _split(self.read_only_keys)

    @property
    def sync_folder_list(self) -> list[Path]:
        """The folders the server watches."""
        return [Path(f).expanduser() for f in _split(self.sync_folders)]

    @property
    def trusted_host_list(self) -> list[str]:
        """Host names the server answers to (lower case), with the bind host when specific."""
        hosts = [h.lower().strip("[]") for h in _split(self.trusted_hosts)]
        bind = self.host.lower().strip("[]")
        if bind not in ("0.0.0.0", "::", "") and bind not in hosts:
            hosts.append(bind)
        return hosts


def check_collection_name(value: str) -> str:
    """``value`` if it is a valid collection name; ``ValueError`` otherwise."""
    if not re.fullmatch(COLLECTION_PATTERN, value):  # the rule the API's parameters use too
        raise ValueError("a collection name uses letters, digits, '-' and '_' only "
                         "(1 to 64, ASCII)")
    return value


def _split(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def check_data_dir(path: Path) -> Path:
    """``path`` if a library can live there (it exists, or can be made, and is writable)."""
    probe = Path(os.path.abspath(os.path.expanduser(path)))
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise ValueError(f"{probe} is not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise ValueError(f"{probe} is not writable")
    return path


def settings_problems(exc: ValidationError) -> str:
    """A pydantic error as one line, ``setting: problem; ...``, without any input value.

    Only the top-level setting is named: deeper parts of the location can be secrets (the
    keys of ``key_collections`` are API keys).
    """
    problems = []
    for error in exc.errors(include_input=False, include_url=False):
        message = str(error["msg"]).removeprefix("Value error, ")
        name = str(error["loc"][0]) if error["loc"] else ""
        problems.append(f"{name}: {message}" if name else message)
    return "; ".join(problems)


def load_settings(**overrides: Any) -> Settings:
    """Settings from every source, with ``overrides`` (CLI flags) on top; ``None`` is ignored.

    Any problem (a bad value, a malformed ``archivist.toml``, an unusable ``data_dir``) is
    :class:`InvalidSettings`.
    """
    try:
        check_sources(set(Settings.model_fields))
        return Settings(**{key: value for key, value in overrides.items() if value is not None})
    except ValidationError as exc:
        raise InvalidSettings(settings_problems(exc)) from None
    except tomllib.TOMLDecodeError as exc:  # the message quotes one character at most
        where = re.sub(r"'[^']*'\s*", "", str(exc))
        raise InvalidSettings(f"{config_file()}: not valid TOML: {where}") from None
    except SettingsError as exc:
        field = re.search(r'field "([^"]+)"', str(exc))
        name = field.group(1) if field else "a setting"
        raise InvalidSettings(f"{name}: cannot be parsed (a JSON value is expected)") from None
    except OSError as exc:
        raise InvalidSettings(f"{config_file()}: cannot be read: {exc.strerror}") from None
