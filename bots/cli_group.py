"""Click's group, context and help layout under the ``deepresearch`` command: help wrapped at spaces,
a Ctrl-C and a command line Click cannot read each said in one line, the help wherever it is asked
for, and an option that ends the command (``--version``) alone on its line."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import typer
from typer._click.exceptions import NoArgsIsHelpError, UsageError  # Typer carries its own copy of Click
from typer.core import TyperCommand, TyperGroup

from bots.cli_options import say, usage_error_line
from bots.terminal_signals import one_interrupt_per_command, say_interrupted


class HelpFormatter(typer.Context.formatter_class):  # Typer's own copy of Click's HelpFormatter
    """Click's help layout, wrapped at spaces only: a line never ends inside ``--older-than``.

    Click (which Typer carries a copy of) wraps with :class:`textwrap.TextWrapper`, whose
    ``break_on_hyphens`` it leaves on and does not expose; the text is wrapped with its hyphens
    standing in as another character, then given them back.
    """

    _STAND_IN = "\x00"

    def _unbroken(self, write, *args) -> None:
        start = len(self.buffer)
        write(*(arg.replace("-", self._STAND_IN) if isinstance(arg, str) else arg for arg in args))
        self.buffer[start:] = [part.replace(self._STAND_IN, "-") for part in self.buffer[start:]]

    def write_text(self, text: str) -> None:
        """A paragraph of ``text``, indented and wrapped at spaces."""
        self._unbroken(super().write_text, text)

    def write_dl(self, rows, col_max: int = 30, col_spacing: int = 2) -> None:
        """The option table: names and their help, wrapped at spaces."""
        rows = [tuple(col.replace("-", self._STAND_IN) for col in row) for row in rows]
        self._unbroken(super().write_dl, rows, col_max, col_spacing)


class Context(typer.Context):
    """Click's context, with the help wrapped at spaces only (:class:`HelpFormatter`)."""

    formatter_class = HelpFormatter


#: The help option's names in the group and every command: ``-h`` is ``--help``.
HELP_OPTION_NAMES = ["-h", "--help"]


#: Where in :attr:`typer.Context.meta` an option that ends the command (``--version``) leaves what
#: it does (:func:`end_with`).
_ENDING = "deepresearch.ending"


def end_with(ctx: typer.Context, option: str, action: Callable[[], None]) -> None:
    """Have ``option`` (``--version``), an option that does one thing and ends the command, run
    ``action`` (print the version) once the command line is read, and end it with exit 0; a command
    or an argument on the line with it is a usage error instead (exit 2, nothing printed on stdout),
    where Click would run ``action`` and ignore the rest of the line. Call it from the option's callback."""
    ctx.meta[_ENDING] = (option, action)


def _asks_for_help(ctx: typer.Context, args: list[str]) -> bool:
    """Whether ``args`` holds the help option (``-h``, ``--help``: :data:`HELP_OPTION_NAMES`) before any
    ``--``, which ends the options."""
    options = args[: args.index("--")] if "--" in args else args
    return any(arg in ctx.help_option_names for arg in options)


class _CommandLine:
    """What the group and every command share: ``-h`` as ``--help`` (:data:`HELP_OPTION_NAMES`), the
    help shown wherever it is asked for on the line, a command line Click cannot read reported with
    the command it was read for, and an option that ends the command alone on its line (:func:`end_with`)."""

    def __init__(self, *args, context_settings: dict | None = None, **kwargs) -> None:
        super().__init__(*args, context_settings={"help_option_names": HELP_OPTION_NAMES, **(context_settings or {})},
                         **kwargs)

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:
        """Click's reading of ``args``, then what an option that ends the command asked for
        (:func:`end_with`).

        A line that asks for the help (:func:`_asks_for_help`) and that Click cannot read gets the help
        and exit 0, as ``git`` and ``docker`` answer ``-h`` anywhere: Click reads the whole line before
        it looks at ``--help``, and ``worker -h --queue`` was refused for ``--queue``'s missing value.
        A line it can read keeps its meaning (``audit --user -h`` is a requester named ``-h``). Any
        other usage error raised without its context (an option without its value: Click's parser
        does not give it one) gets this command's, so that its line says where the command's help is
        (:func:`bots.cli_options.usage_error_line`).

        Raises:
            UsageError: Click's, for a line that does not ask for the help.
            typer.Exit: with 0, once the help is shown or the ending option has done its work.
        """
        typed = list(args)  # Click's parser consumes the list it reads
        try:
            rest = super().parse_args(ctx, args)
            if _ENDING in ctx.meta:
                option, action = ctx.meta.pop(_ENDING)
                # a group keeps its command apart from the command's arguments (Typer's own attribute)
                after = [*getattr(ctx, "_protected_args", []), *rest]
                if after:
                    raise UsageError(f"{option} takes no command or argument ({after[0]!r} after it)", ctx)
                action()
                ctx.exit(0)
            return rest
        except UsageError as err:
            if _asks_for_help(ctx, typed) and not isinstance(err, NoArgsIsHelpError):
                typer.echo(ctx.get_help(), color=ctx.color)
                ctx.exit(0)
            if err.ctx is None:
                err.ctx, err.cmd = ctx, ctx.command
            raise


@contextmanager
def _said_on_ctrl_c() -> Iterator[None]:
    """A Ctrl-C that nothing answered ends the command with exit 130 and one line: Typer would end
    it with 130 and no word."""
    try:
        yield
    except KeyboardInterrupt:
        raise typer.Exit(say_interrupted()) from None


class Group(_CommandLine, TyperGroup):
    """The ``deepresearch`` group: Click's, with a Ctrl-C while it reads the command line or runs a
    command said in one line (:func:`_said_on_ctrl_c`), and so is a command line Click cannot read
    (:meth:`main`)."""

    context_class = Context

    def make_context(self, *args, **kwargs) -> typer.Context:
        """Click's context of the command line, read under :func:`_said_on_ctrl_c`."""
        with _said_on_ctrl_c():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: typer.Context):
        """Run the command line's command under :func:`_said_on_ctrl_c`."""
        with _said_on_ctrl_c():
            return super().invoke(ctx)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode: bool = True, **extra):
        """Click's ``main``; as a program (``standalone_mode``, also under Click's ``CliRunner``) a
        command line Click cannot read (an unknown option or command, a value of the wrong type,
        a missing value) ends with one line, ``deepresearch: ...`` (:func:`bots.cli_options.usage_error_line`),
        and Click's exit code (2 for a usage error), where Click would print the usage block.
        ``--help`` and the bare command still print the help.

        Raises:
            SystemExit: as a program, with the command's exit code.
        """
        if not standalone_mode:
            with one_interrupt_per_command():
                return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:  # Click's API for handling its errors oneself: they are raised, an exit code returned
            with one_interrupt_per_command():
                code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except NoArgsIsHelpError as err:  # the bare command: the help, as Click shows it
            err.show()
            sys.exit(err.exit_code)
        except typer.TyperException as err:  # Click's ClickException (Typer's copy of it) and Typer's own
            say(usage_error_line(err))
            sys.exit(err.exit_code)
        except typer.Abort:
            say("aborted")
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


class Command(_CommandLine, TyperCommand):
    """A ``deepresearch`` command: Click's, its help wrapped at spaces only (:class:`HelpFormatter`),
    ``-h`` as ``--help``."""

    context_class = Context
