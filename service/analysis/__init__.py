"""Post-game analysis: each decision of a finished game judged against the expert's search."""
