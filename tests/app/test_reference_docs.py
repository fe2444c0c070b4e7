"""The reference pages in docs/reference/ are what the code generates today."""

from __future__ import annotations

from archivist.app.reference import REFERENCE_DIR, render


def test_the_reference_pages_are_up_to_date() -> None:
    pages = render()
    assert set(pages) == {"settings.md", "cli.md", "api.md", "mcp.md"}
    stale = [name for name, text in pages.items()
             if not (REFERENCE_DIR / name).exists()
             or (REFERENCE_DIR / name).read_text(encoding="utf-8") != text]
    assert not stale, f"{stale} are stale: run `python -m archivist.app.reference` (make docs)"


def test_the_reference_names_every_command_setting_and_tool() -> None:
    pages = render()
    assert "## `archivist reindex`" in pages["cli.md"] and "## `archivist eval retrieval`" in \
        pages["cli.md"]
    assert "| `search_mode` | `ARCHIVIST_INDEX__SEARCH_MODE` |" in pages["settings.md"]
    assert "| `llm`, `ARCHIVIST_LLM` | `[llm] model`, `ARCHIVIST_LLM__MODEL` |" in \
        pages["settings.md"]  # the deprecated flat names and what replaced them
    assert "`/v1/chat/completions`" in pages["api.md"] and "`/health`" in pages["api.md"]
    assert "multihop or graph" in pages["mcp.md"]


def test_every_setting_says_what_it_does() -> None:
    """The settings reference is only as good as the descriptions in ``settings/``."""
    from archivist.settings import Settings
    from archivist.settings.names import GROUPS, TOP_LEVEL

    fields = [(name, Settings.model_fields[name]) for name in TOP_LEVEL]
    fields += [(f"{group}.{name}", field) for group, model in GROUPS.items()
               for name, field in model.model_fields.items()]
    bare = [name for name, field in fields if not field.description]
    assert len(fields) > 60 and not bare, f"settings without a description: {bare}"


def test_the_guides_settings_table_names_real_settings_and_their_variables() -> None:
    """The hand-written table in the configuration guide cannot drift from the code."""
    import re
    from pathlib import Path

    from archivist.settings import Settings
    from archivist.settings.names import FOREIGN_ENV, GROUPS, TOP_LEVEL, env_name

    guide = Path(__file__).resolve().parents[2] / "docs" / "guide" / "02-configuration.md"
    table = guide.read_text(encoding="utf-8").split("## The settings most often changed", 1)[1]
    rows = [line.split(" | ") for line in table.split("\n## ", 1)[0].splitlines()
            if line.startswith("| `")]
    assert len(rows) >= 20
    for cells in rows:
        names = re.findall(r"`([a-z_.]+)`", cells[0])
        variables = set(re.findall(r"`([A-Z][A-Z_]+)`", cells[1]))
        expected = set()
        for name in names:
            group, _, key = name.rpartition(".")
            if not group:
                assert name in TOP_LEVEL and name in Settings.model_fields, name
                expected.add(f"ARCHIVIST_{name.upper()}")
                continue
            assert key in GROUPS[group].model_fields, name
            foreign = [v for v, place in FOREIGN_ENV.items() if place == (group, key)]
            expected |= {env_name(group, key), *foreign}
        assert names and variables and variables <= expected, (cells[0], variables, expected)
