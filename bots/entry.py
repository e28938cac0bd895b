"""The ``deepresearch`` console script's entry (and ``python -m bots.cli``'s): it loads the command
line (about a quarter of a second of imports on a small machine) so that a Ctrl-C or a SIGTERM
meanwhile ends it with one line and exit 130 or 143, as later in a command."""

from __future__ import annotations

from bots.terminal_signals import (
    ctrl_c_deferred,
    forget_caught_interrupts,
    ignore_further_interrupts,
    raise_dropped_interrupts_again,
    say_interrupted,
    stop_on_sigterm_as_on_ctrl_c,
)


def main() -> None:
    """Run :func:`bots.cli.main`; a Ctrl-C while it loads exits with 130 (128 + SIGINT, as shells
    report it), a SIGTERM with 143 (taken as a Ctrl-C from here on:
    :func:`bots.terminal_signals.stop_on_sigterm_as_on_ctrl_c`; Python's default would end the
    process without a word), each with one line on stderr once the loading is done, never a traceback;
    one that lands where Python cannot raise is raised again
    (:func:`bots.terminal_signals.raise_dropped_interrupts_again`), and one caught in code run from
    source text does not make ``python -m`` end by SIGINT
    (:func:`bots.terminal_signals.forget_caught_interrupts`).

    Raises:
        SystemExit: the command's exit code.
    """
    stop_on_sigterm_as_on_ctrl_c()
    raise_dropped_interrupts_again()
    try:
        try:
            with ctrl_c_deferred():  # said once the imports are done: raised amid them, it could be lost
                from bots.cli import main as run
        except KeyboardInterrupt:
            ignore_further_interrupts()
            raise SystemExit(say_interrupted()) from None
        run()
    finally:  # the exit code is the command's, never CPython's SIGINT for an interrupt it caught
        forget_caught_interrupts()
