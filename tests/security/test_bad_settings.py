"""Bad settings are caught at load: exit 2, one line naming the setting, no secret echoed.

Each case once failed later and worse: ``child_chars = 0`` and ``embedding_batch_size = -1``
passed and then failed every file; malformed TOML, an unwritable ``data_dir`` and port
99999 gave "internal error"; pydantic's messages could quote a key.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from archivist.app.cli.main import app

SECRET = "sk-archivist-TOPSECRET-0123456789"
runner = CliRunner()

CASES = {
    "child_chars = 0\n": "child_chars",
    "embedding_batch_size = -1\n": "embedding_batch_size",
    "child_chars = 300\nchild_overlap = 300\n": "child_overlap",
    "port = 99999\n": "port",
    f'llm = "ollama:x\napi_keys = "{SECRET}"\n':
        "archivist.toml: not valid TOML: Illegal character (at line 1",
    f'api_keys = "{SECRET}"\nadmin_keys = "{SECRET}"\n': "api_keys",
    f'api_keys = "{SECRET}"\n[key_collections]\n"{SECRET}" = [5]\n': "key_collections",
    f'api_keys = "{SECRET}"\n[key_collections]\n"{SECRET}" = ["no such/name"]\n':
        "collection name",
    f'temperature = "{SECRET}"\n': "temperature",
}


def _run(args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ARCHIVIST_CONFIG", str(tmp_path / "archivist.toml"))
    result = runner.invoke(app, args)
    return result.exit_code, result.output


@pytest.mark.parametrize("toml", list(CASES), ids=[v.split(":")[0] for v in CASES.values()])
def test_bad_setting_is_a_usage_error_naming_it(
    toml: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "archivist.toml").write_text(toml, encoding="utf-8")
    code, out = _run(["list", "--data-dir", str(tmp_path / "lib")], tmp_path, monkeypatch)
    lines = out.strip().splitlines()
    assert code == 2, out
    assert len(lines) == 1 and lines[0].startswith("error: invalid settings:"), out
    assert CASES[toml] in lines[0]
    assert SECRET not in out and "TOPSECRET" not in out
    assert "internal error" not in out and "Traceback" not in out
    assert not (tmp_path / "lib").exists()  # refused before anything was made


def test_secret_in_environment_is_not_echoed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARCHIVIST_KEY_COLLECTIONS", f'{{"{SECRET}": ')
    code, out = _run(["list", "--data-dir", str(tmp_path / "lib")], tmp_path, monkeypatch)
    assert code == 2 and "key_collections" in out and SECRET not in out, out
    monkeypatch.setenv("ARCHIVIST_KEY_COLLECTIONS", f'{{"{SECRET}": ["a"]}}')
    code, out = _run(["list", "--data-dir", str(tmp_path / "lib")], tmp_path, monkeypatch)
    assert code == 2 and "key_collections" in out and SECRET not in out, out


def test_unusable_data_dir_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    for command in (["list"], ["ingest", str(blocker)], ["serve", "--port", "0"]):
        code, out = _run([*command, "--data-dir", str(blocker / "lib")], tmp_path, monkeypatch)
        assert code == 2, (command, out)
        assert out.strip() == f"error: invalid settings: data_dir: {blocker} is not a folder"


def test_port_out_of_range_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARCHIVIST_PORT", "99999")
    code, out = _run(["serve", "--data-dir", str(tmp_path / "lib")], tmp_path, monkeypatch)
    assert code == 2 and out.strip().startswith("error: invalid settings: port:"), out
