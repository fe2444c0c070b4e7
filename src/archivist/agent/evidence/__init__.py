"""The evidence stage: which passages count (the score gate), and the units the writer reads."""
