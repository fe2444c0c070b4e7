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
    "[index]\nchild_chars = 0\n": "index.child_chars",
    "[index]\nembedding_batch_size = -1\n": "index.embedding_batch_size",
    "[index]\nchild_chars = 300\nchild_overlap = 300\n": "index.child_overlap",
    "[server]\nport = 99999\n": "server.port",
    f'[llm]\nmodel = "ollama:x\n[server]\napi_keys = "{SECRET}"\n':
        "archivist.toml: not valid TOML: Illegal character (at line 2",
    f'[server]\napi_keys = "{SECRET}"\nadmin_keys = "{SECRET}"\n': "server:",
    f'[server]\napi_keys = "{SECRET}"\n[server.key_collections]\n"{SECRET}" = [5]\n':
        "server.key_collections",
    f'[server]\napi_keys = "{SECRET}"\n[server.key_collections]\n"{SECRET}" = ["no such/name"]\n':
        "collection name",
    f'[llm]\ntemperature = "{SECRET}"\n': "llm.temperature",
}


def _run(args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    monkeypatch.chdir(tmp_path)
    toml = tmp_path / "archivist.toml"
    monkeypatch.setenv("ARCHIVIST_CONFIG", str(toml) if toml.exists() else "")
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
    monkeypatch.setenv("ARCHIVIST_SERVER__KEY_COLLECTIONS", f'{{"{SECRET}": ')
    code, out = _run(["list", "--data-dir", str(tmp_path / "lib")], tmp_path, monkeypatch)
    assert code == 2 and "key_collections" in out and SECRET not in out, out
    monkeypatch.setenv("ARCHIVIST_SERVER__KEY_COLLECTIONS", f'{{"{SECRET}": ["a"]}}')
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
    monkeypatch.setenv("ARCHIVIST_SERVER__PORT", "99999")
    code, out = _run(["serve", "--data-dir", str(tmp_path / "lib")], tmp_path, monkeypatch)
    assert code == 2 and out.strip().startswith("error: invalid settings: server.port:"), out


def test_a_named_config_file_that_is_missing_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "keys.toml"  # meant to hold api_keys: the server must not start open
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ARCHIVIST_CONFIG", str(missing))
    for command in (["list"], ["serve", "--port", "0"]):
        result = runner.invoke(app, [*command, "--data-dir", str(tmp_path / "lib")])
        assert result.exit_code == 2, result.output
        assert result.output.strip() == (
            f"error: invalid settings: ARCHIVIST_CONFIG: {missing} is not a file (set it "
            "empty to read no configuration file)")
    assert not (tmp_path / "lib").exists()


def test_an_unknown_key_is_refused_with_the_close_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "archivist.toml").write_text(f'[server]\napi_keys = "{SECRET}"\n'
                                             "[index]\nchld_chars = 300\n")
    code, out = _run(["list", "--data-dir", str(tmp_path / "lib")], tmp_path, monkeypatch)
    assert code == 2, out
    assert out.strip() == (f"error: invalid settings: {tmp_path / 'archivist.toml'}: unknown "
                           "setting 'index.chld_chars'; did you mean 'index.child_chars'?")
    (tmp_path / "archivist.toml").write_text(f'"{SECRET}" = 1\n')  # a key that is a secret
    code, out = _run(["list", "--data-dir", str(tmp_path / "lib")], tmp_path, monkeypatch)
    assert code == 2 and "unknown setting (a key)" in out and SECRET not in out, out
    assert not (tmp_path / "lib").exists()


def test_an_empty_data_dir_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARCHIVIST_DATA_DIR", "")
    code, out = _run(["list"], tmp_path, monkeypatch)
    assert code == 2, out
    assert out.strip() == ("error: invalid settings: data_dir: ARCHIVIST_DATA_DIR is empty; "
                           "unset it for ./.archivist, or name a folder")
    assert list(tmp_path.iterdir()) == []  # nothing written in the working directory
