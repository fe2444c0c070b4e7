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
