from pathlib import Path

import pymupdf
import pytest
from tests.index.corpus import write_corpus
from typer.testing import CliRunner

from archivist.app.cli.main import app

runner = CliRunner()


def cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture
def data_dir(tmp_path: Path) -> str:
    return str(tmp_path / "lib")


def make_bad_files(folder: Path) -> dict[str, str]:
    """Each bad-input kind, with a word its error line must contain."""
    folder.mkdir()
    (folder / "corrupt.pdf").write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 50)
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "secret text")
    doc.save(
        str(folder / "locked.pdf"),
        encryption=pymupdf.PDF_ENCRYPT_AES_256,
        user_pw="u",
        owner_pw="o",
    )
    (folder / "empty.md").write_text("")
    (folder / "latin1.txt").write_bytes("caf\xe9 cr\xe8me".encode("latin-1"))
    (folder / "notes.pdf").write_text("just some text, not a PDF at all\n")
    return {
        "corrupt.pdf": "corrupt",
        "locked.pdf": "encrypted",
        "empty.md": "empty",
        "latin1.txt": "UTF-8",
        "notes.pdf": "not a PDF",
    }


def test_bad_inputs_get_one_clear_line_and_the_rest_ingests(tmp_path: Path, data_dir: str) -> None:
    docs = write_corpus(tmp_path / "docs")
    expected = make_bad_files(docs / "bad")
    (docs / "image.xyz").write_bytes(b"\x89PNG")
    code, out = cli("ingest", str(docs), "--data-dir", data_dir)
    assert code == 3
    assert "Traceback" not in out
    assert "added 4" in out and "failed 5" in out and "skipped 1" in out
    failed_lines = [line for line in out.splitlines() if line.startswith("failed ")]
    assert len(failed_lines) == 5
    for name, reason in expected.items():
        line = next(line for line in failed_lines if name in line)
        assert reason in line, line
    assert any("image.xyz" in line and "unsupported" in line for line in out.splitlines())
    code, out = cli("list", "--data-dir", data_dir)
    assert code == 0 and "postgres.md" in out and "corrupt.pdf" not in out


def test_ingest_list_show_search_remove(tmp_path: Path, data_dir: str) -> None:
    docs = write_corpus(tmp_path / "docs")
    code, out = cli("ingest", str(docs), "--data-dir", data_dir)
    assert code == 0 and "added 4" in out
    code, out = cli("ingest", str(docs), "--data-dir", data_dir)
    assert code == 0 and "unchanged 4" in out

    code, out = cli("show", "postgres.md", "--data-dir", data_dir)
    assert code == 0
    assert "PostgreSQL administration" in out and "chars" in out and "-p0" in out and "-c0" in out

    code, out = cli("search", "XK-4471", "-k", "2", "--data-dir", data_dir)
    assert code == 0
    first = out.splitlines()[0]
    assert first.startswith("1.") and "errors.md" in first and "Troubleshooting" in first
    assert "score" in first

    code, out = cli("search", "anything", "--mode", "fuzzy", "--data-dir", data_dir)
    assert code == 2 and "unknown mode" in out

    code, out = cli("remove", "nosuchdoc", "--data-dir", data_dir)
    assert code == 2 and "no document matches" in out
    code, out = cli("remove", "cooking.md", "--data-dir", data_dir)
    assert code == 0 and "removed cooking.md" in out
    code, out = cli("list", "--data-dir", data_dir)
    assert "cooking.md" not in out and "astronomy.txt" in out


def test_collection_flag_keeps_knowledge_bases_apart(tmp_path: Path, data_dir: str) -> None:
    docs = write_corpus(tmp_path / "docs")
    assert cli("ingest", str(docs / "cooking.md"), "-c", "kitchen", "--data-dir", data_dir)[0] == 0
    code, out = cli("list", "--data-dir", data_dir)
    assert "no documents" in out
    code, out = cli("collections", "--data-dir", data_dir)
    assert "kitchen  1 document" in out


def test_missing_path_is_reported_not_raised(tmp_path: Path, data_dir: str) -> None:
    code, out = cli("ingest", str(tmp_path / "nope"), "--data-dir", data_dir)
    assert code == 3
    assert "nope" in out and "no such file" in out and "Traceback" not in out


def test_settings_precedence_flag_over_env_over_toml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from archivist.settings import load_settings

    toml = tmp_path / "archivist.toml"
    toml.write_text('collection = "from_toml"\n[index]\nsearch_k = 7\n')
    monkeypatch.setenv("ARCHIVIST_CONFIG", str(toml))
    assert load_settings().collection == "from_toml"
    assert load_settings().index.search_k == 7
    monkeypatch.setenv("ARCHIVIST_COLLECTION", "from_env")
    assert load_settings().collection == "from_env"
    assert load_settings(collection="from_flag").collection == "from_flag"
    monkeypatch.setenv("OLLAMA_HOST", "http://gpu-box:11434")
    assert load_settings().llm.ollama_base_url == "http://gpu-box:11434"


def test_invalid_setting_is_one_line_exit_2(monkeypatch: pytest.MonkeyPatch, data_dir: str) -> None:
    monkeypatch.setenv("ARCHIVIST_INDEX__SEARCH_K", "lots")
    code, out = cli("list", "--data-dir", data_dir)
    assert code == 2 and "invalid settings" in out and "search_k" in out
