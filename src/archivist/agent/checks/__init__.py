"""The checks stage: every sentence against the units it cites, citations mended, a verifier."""
