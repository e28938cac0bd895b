"""The ``deepresearch`` console script's entry: it loads the command line (about a quarter of a
second of imports on a small machine) so that a Ctrl-C meanwhile ends with exit 130 and one line."""

from __future__ import annotations

import sys


def main() -> None:
    """Run :func:`bots.cli.main`; a Ctrl-C while it loads exits with 130 (128 + SIGINT, as shells
    report it) and one line on stderr, never a traceback.

    Raises:
        SystemExit: the command's exit code.
    """
    try:
        from bots.cli import main as run
    except KeyboardInterrupt:
        print("\ndeepresearch: interrupted.", file=sys.stderr, flush=True)
        raise SystemExit(130) from None
    run()
