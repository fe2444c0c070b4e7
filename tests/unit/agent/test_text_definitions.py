"""Years and section titles are defined once, in ``agent/text.py``, for the whole agent."""

from __future__ import annotations

import re
from pathlib import Path

AGENT = Path(__file__).resolve().parents[3] / "src" / "archivist" / "agent"
#: how a year or a title's qualifier is written inside a regex literal
_DEFINITIONS = re.compile(r"\(\?:19\|20\)|1\[0-9\]\|20|1\\d\\d\\d|\\\(\.\*\\\)\|,\.\*")


def test_only_the_text_module_writes_a_year_or_title_regex() -> None:
    found = {
        str(path.relative_to(AGENT)): _DEFINITIONS.findall(path.read_text(encoding="utf-8"))
        for path in AGENT.rglob("*.py")
    }
    assert found.pop("text.py"), "the definitions moved: update this test's pattern"
    assert {name: hits for name, hits in found.items() if hits} == {}
