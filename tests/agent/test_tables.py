"""Year columns named in table rows: the 1.5B model could not line a value up with its year.

Shown ``Paid memberships at end of period 52,810 47,905 43,401`` under a header
``2017 2016 2015``, Qwen2.5-1.5B replied that the documents do not say how many paid
memberships there were at the end of 2017 (issue 10). The answering model now reads
``Paid memberships at end of period [2017: 52,810; 2016: 47,905; 2015: 43,401]``.
"""

from __future__ import annotations

from tests.agent.helpers import done, run

from archivist.agent.tables import label_year_columns
from archivist.agent.tools import passage_block
from archivist.application import Application
from archivist.testing import ScriptedChatModel

TABLE = """**Segment Results**

**As of / Year Ended December 31, Change**

**2017 2016 2015 2017 vs. 2016 2016 vs. 2015**

**(in thousands)**

Net additions 5,319 4,693 5,624 626 13% (931) (17)%

Paid memberships at end of period 52,810 47,905 43,401 4,905 10% 4,504 10 %

Revenues $ 11,692,713 $ 8,830,669 $ 6,779,511 32% 30 %

Members can cancel at any time; in 2017 churn was lower than in 2016."""


def test_rows_under_a_header_of_years_name_their_columns() -> None:
    out = label_year_columns(TABLE)
    assert "Paid memberships at end of period [2017: 52,810; 2016: 47,905; 2015: 43,401] " \
           "4,905 10% 4,504 10%" in out
    assert "Net additions [2017: 5,319; 2016: 4,693; 2015: 5,624] 626 13% (931) (17)%" in out
    assert "Revenues [2017: $11,692,713; 2016: $8,830,669; 2015: $6,779,511] 32% 30%" in out
    assert "in 2017 churn was lower than in 2016." in out  # prose is left alone
    assert "**2017 2016 2015 2017 vs. 2016 2016 vs. 2015**" in out  # so is the header
    plain = "Version 4.2 came out in 2022 and 4.3 in 2023.\nSee pages 12 14 16."
    assert label_year_columns(plain) == plain
    short = "**2017 2016 2015**\nTotal 12 13"  # fewer values than years: not a row of it
    assert label_year_columns(short) == short
    assert "[2017: 52,810;" in passage_block("p1", "10-K.pdf", "p. 22", TABLE, 8000)


def test_the_answering_model_reads_the_year_of_each_value(
    make_service, library: Application
) -> None:
    library.ingest.texts([("annual-report.md", "# Annual report\n\n" + TABLE)])
    llm = ScriptedChatModel()
    question = "How many paid memberships were there at the end of 2017?"
    events = run(make_service(llm, library=library, strategy="pipeline"), question)
    (write_call,) = [c for c in llm.calls if not c.schema]
    assert "Paid memberships at end of period [2017: 52,810;" in write_call.text
    assert done(events)["status"] == "answered"
