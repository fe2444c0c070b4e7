"""Financial filings: metadata from the cover page, statements as tables, metrics, scope."""
