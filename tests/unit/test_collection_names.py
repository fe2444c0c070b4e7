"""Collection names: one rule, in one module, used by the settings and every interface."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from archivist.collection_names import (
    COLLECTION_PATTERN,
    InvalidCollectionName,
    check_collection_name,
    collection_name_from,
)
from archivist.settings import Settings
from archivist.types import ArchivistError

SRC = Path(__file__).resolve().parents[2] / "src" / "archivist"
BAD = ("", "日本", "a b", "x" * 65, "../etc")


def test_collection_names_follow_one_rule_in_settings_and_the_api() -> None:
    for name in ("default", "team-a_2", "x" * 64):
        assert check_collection_name(name) == name and re.fullmatch(COLLECTION_PATTERN, name)
    for name in BAD:
        with pytest.raises(InvalidCollectionName, match="collection name"):
            check_collection_name(name)
        assert not re.fullmatch(COLLECTION_PATTERN, name)
    assert issubclass(InvalidCollectionName, ArchivistError)  # interfaces show its message


def test_settings_refuse_a_bad_collection_name(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="collection name"):
        Settings(data_dir=tmp_path, collection="a b")
    with pytest.raises(ValidationError, match="collection name"):
        Settings(data_dir=tmp_path, server={"api_keys": "k", "key_collections": {"k": ["../x"]}})


def test_a_name_made_from_any_text_follows_the_rule() -> None:
    assert collection_name_from("SciFact (BEIR)", prefix="beir_") == "beir_SciFact_BEIR"
    assert collection_name_from("***") == "corpus"
    made = collection_name_from("a" * 200, prefix="beir_")
    assert made == check_collection_name(made) and len(made) == 64


def test_no_other_module_writes_its_own_collection_rule() -> None:
    rule = re.compile(r"A-Za-z0-9_-\]\{1,64\}|\[\^A-Za-z0-9_-\]")  # the rule, or its slugging
    own = SRC / "collection_names.py"
    elsewhere = [str(path.relative_to(SRC)) for path in SRC.rglob("*.py")
                 if path != own and rule.search(path.read_text(encoding="utf-8"))]
    assert elsewhere == []
