"""Search back-ends: `tavily`, `corpus` (SQLite FTS5 over local files) and `none`."""
