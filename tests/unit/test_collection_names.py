"""Collection names: one rule, in the settings and in every API parameter."""

from __future__ import annotations

import re

import pytest

from archivist.settings import COLLECTION_PATTERN, check_collection_name


def test_collection_names_follow_one_rule_in_settings_and_the_api() -> None:
    for name in ("default", "team-a_2", "x" * 64):
        assert check_collection_name(name) == name and re.fullmatch(COLLECTION_PATTERN, name)
    for name in ("", "日本", "a b", "x" * 65, "../etc"):
        with pytest.raises(ValueError, match="collection name"):
            check_collection_name(name)
        assert not re.fullmatch(COLLECTION_PATTERN, name)
