from archivist.index.sparse import BM25Encoder


def test_tokens_drop_stopwords_and_stem() -> None:
    enc = BM25Encoder()
    assert enc.tokens("The runners were running quickly to the stations") == [
        "runner",
        "run",
        "quick",
        "station",
    ]


def test_document_weights_saturate_and_normalise_length() -> None:
    enc = BM25Encoder()
    once = enc.encode_document("database")
    many = enc.encode_document("database " * 10)
    assert once.indices == many.indices
    assert many.values[0] > once.values[0]
    assert many.values[0] < enc.k1 + 1  # BM25 saturation bound
    long_doc = enc.encode_document("database " + "filler " * 200)
    idx = long_doc.indices.index(enc.term_id("databas"))
    assert long_doc.values[idx] < once.values[0]


def test_query_has_unit_weights_for_distinct_terms() -> None:
    vec = BM25Encoder().encode_query("install install PostgreSQL on Debian")
    assert sorted(vec.values) == [1.0, 1.0, 1.0]
    assert vec.indices == sorted(vec.indices)


def test_term_ids_are_stable_across_processes() -> None:
    # crc32 is deterministic, unlike Python's salted hash()
    assert BM25Encoder.term_id("postgresql") == BM25Encoder.term_id("postgresql")
    assert BM25Encoder.term_id("postgresql") == 309197153
