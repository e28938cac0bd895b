"""Read a logfmt line back into its fields, as a log collector does: ``key=value`` pairs split at spaces,
a value in double quotes read as a JSON string (``\\"`` and ``\\\\`` inside)."""

from __future__ import annotations

import json
import re

_PAIR = re.compile(r'([A-Za-z_][\w.]*)=("(?:[^"\\]|\\.)*"|[^\s"]*)(?:\s+|$)')


def logfmt(line: str) -> dict[str, str]:
    """The fields of ``line`` by name. Raises AssertionError when some part of the line is no ``key=value``
    pair (an unquoted value with a space in it leaves such a part)."""
    fields: dict[str, str] = {}
    at = 0
    while at < len(line):
        pair = _PAIR.match(line, at)
        assert pair, f"not logfmt from {line[at:]!r} on: {line!r}"
        key, value = pair.groups()
        fields[key] = json.loads(value) if value.startswith('"') else value
        at = pair.end()
    return fields
