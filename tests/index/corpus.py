"""Small documents written for these tests (our own words)."""

from pathlib import Path

DOCS = {
    "postgres.md": """# PostgreSQL administration

## Installing PostgreSQL

On Debian, install the server with `apt install postgresql`. The service starts
automatically and listens on port 5432.

## Upgrading PostgreSQL

To move to a newer major version, run pg_upgradecluster after installing the new
packages. Minor versions are updated with the ordinary package upgrade.
""",
    "cooking.md": """# Cooking notes

## Bread

Knead the dough for ten minutes, let it rise for an hour, and bake it at 220 degrees.

## Soup

A good vegetable broth simmers slowly for at least forty minutes.
""",
    "astronomy.txt": """Planets of the solar system

Jupiter is the largest planet and has a great red spot, a storm bigger than Earth.
Mars is the red planet; its thin atmosphere is mostly carbon dioxide.
The Kuiper belt lies beyond Neptune and holds many icy bodies.
""",
    "errors.md": """# Troubleshooting

## Error codes

The tool exits with code XK-4471 when its configuration file cannot be parsed.
Fix the syntax and run it again.

## Slow start

When the program takes a long time to start, the cache folder may be on a slow disk.
""",
}


def write_corpus(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder
