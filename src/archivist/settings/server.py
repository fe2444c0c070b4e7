"""``[server]``: what ``archivist serve`` listens on, whom it lets in, what it runs."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from archivist.collection_names import check_collection_name


class ServerSettings(BaseModel):
    """Address, keys, limits, jobs and watched folders (``[server]``, ``ARCHIVIST_SERVER__*``)."""

    model_config = ConfigDict(extra="forbid")

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
    max_upload_files: int = Field(default=1_000, ge=1,
                                  description="The most files one upload may hold.")
    job_lease_s: float = Field(
        default=60.0, ge=1.0, description="Seconds an ingest job stays claimed by a worker "
        "that stopped renewing it (died) before another worker takes it over.")
    sync_folders: str = Field(
        default="", description="Comma-separated folders the server keeps its collection in "
        "step with (archivist sync --watch, run by the server).")
    sync_interval_s: float = Field(default=1.0, ge=0.2, description="Seconds between checks.")

    @model_validator(mode="after")
    def _keys_agree(self) -> ServerSettings:
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


def _split(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]
