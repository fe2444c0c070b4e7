"""Section summaries kept in the database, on SQLite and PostgreSQL alike."""

from __future__ import annotations

from archivist.index.summaries import SummaryStore
from archivist.storage import Database
from archivist.types import Parent


def test_a_summary_is_kept_for_its_text_and_goes_with_its_document(database_url: str) -> None:
    database = Database(database_url)
    store = SummaryStore(database)
    first = Parent("d1-p0", "d1", 0, "Water twice a day.", ["Watering"], 1, 1)
    second = Parent("d1-p1", "d1", 1, "Pick when red.", ["Harvest"], 2, 2)
    store.save("c", first, "Watering: twice a day.")
    store.save("c", first, "Watering: twice daily.")  # written again: replaced
    store.save("c", second, "Harvest when red.")
    assert store.summaries("c", "d1", [first, second]) == {
        "d1-p0": "Watering: twice daily.", "d1-p1": "Harvest when red."}
    changed = Parent("d1-p1", "d1", 1, "Pick when orange.", ["Harvest"], 2, 2)
    assert store.summaries("c", "d1", [first, changed]) == {"d1-p0": "Watering: twice daily."}
    assert store.summaries("other", "d1", [first]) == {}
    assert store.document_ids("c") == {"d1"}
    store.delete_document("c", "d1")
    assert store.summaries("c", "d1", [first, second]) == {} and store.document_ids("c") == set()
    database.close()
