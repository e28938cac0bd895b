"""`deepresearch` command lines read as a whole: ``--version`` with more after it, ``-h`` wherever it is,
and bytes that are not UTF-8 echoed in a refusal; each run as a real process or through Click's runner."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.bots.console_helpers import RUN_TIMEOUT, ask_env, cli, cli_commands, cli_here, no_traceback

#: Where the group's help is, as a refusal of a ``python -m bots.cli`` command line says it.
GROUP_HELP = "(see 'python -m bots.cli --help')"


@pytest.mark.parametrize("args", [["--version", "extra"], ["--version", "ask"], ["--version", "audit", "--json"], ["--version", "--bogus"], ["-V"]])
def test_version_with_anything_after_it_is_a_usage_error(tmp_path, args):
    """It printed the version, exit 0, and ignored the command after it: one line saying why, exit 2,
    as every other usage error; the version is not printed."""
    out = cli(tmp_path, *args)
    assert out.returncode == 2, (out.stdout, out.stderr)
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("deepresearch: ") and lines[0].endswith(GROUP_HELP), out.stderr
    assert not out.stdout, out.stdout
    no_traceback(out)


def test_version_after_its_words_says_what_it_takes(tmp_path):
    out = cli(tmp_path, "--version", "ask")
    assert out.stderr == f"deepresearch: --version takes no command or argument ('ask' after it) {GROUP_HELP}\n"


def test_version_alone_still_prints_it(tmp_path):
    out = cli(tmp_path, "--version")
    assert out.returncode == 0 and out.stdout.startswith("deepresearch ") and not out.stderr, out.stderr


def _help_anywhere() -> list[list[str]]:
    """Command lines Click cannot read with ``-h`` or ``--help`` in them: every option of every command
    that takes a value given ``-h`` in its place, an unknown option and an extra argument beside it."""
    cases = [["--bogus", "-h"], ["--help", "extra"], ["--version", "extra", "-h"], ["-h", "--version", "ask"],
             ["--version", "--help"], ["--version", "ask", "--help"]]
    for name, command in sorted(cli_commands().items()):
        cases += [[name, "-h", option.opts[0]] for option in command.params
                  if option.param_type_name == "option" and not option.is_flag and option.opts[0] != "--help"]
        arguments = [p for p in command.params if p.param_type_name == "argument"]
        cases += [[name, "--bogus", "--help"], [name, *(["x"] * (len(arguments) + 1)), "-h"], [name, "--help", "x"]]
    return cases


@pytest.mark.parametrize("args", _help_anywhere(), ids=" ".join)
def test_help_anywhere_on_the_line_is_the_help(monkeypatch, tmp_path, args):
    """``worker -h --queue`` refused ("option '--queue' requires an argument"): a line that asks for
    the help gets it, exit 0, whatever else on it Click could not read (as git and docker do)."""
    result = cli_here(monkeypatch, tmp_path, *args)
    assert result.exit_code == 0, result.output
    command = args[0] if args[0] in cli_commands() else ""
    assert result.output.startswith(f"Usage: deepresearch {command}".rstrip()), result.output
    assert "Options:" in result.output and "deepresearch: " not in result.output, result.output
    assert not (tmp_path / "data").exists()


def test_worker_h_queue_as_a_process(tmp_path):
    out = cli(tmp_path, "worker", "-h", "--queue")
    assert out.returncode == 0 and out.stdout.startswith("Usage: ") and "--burst" in out.stdout, out.stderr
    assert not out.stderr


def test_an_option_value_that_looks_like_help_is_still_the_value(monkeypatch, tmp_path):
    """Only a line Click cannot read is taken for a request of help: ``--user -h`` is a user named -h."""
    result = cli_here(monkeypatch, tmp_path, "audit", "--user", "-h")
    assert result.exit_code == 0 and "requester -h" in result.output, result.output


@pytest.mark.parametrize("args, code, said", [
    ([b"ask\xff"], 2, "no such command 'ask\\xff'. Did you mean 'ask'? " + GROUP_HELP),
    ([b"\xffsk"], 2, "no such command '\\xffsk'. Did you mean 'ask'? " + GROUP_HELP),
    ([b"\xff"], 2, "no such command '\\xff' " + GROUP_HELP),
    ([b"ask", b"--bog\xff", b"q"], 2, "no such option: --bog\\xff (see 'python -m bots.cli ask --help')"),
    ([b"ask", b"--ou\xfft", b"q"], 2, "no such option: --ou\\xfft. Did you mean --out?"),
    ([b"worker", b"--queue", b"r\xe9search"], 2, "--queue 'r\\xe9search' is not a queue the bot sends to"),
    ([b"worker", b"--queue=\xff\xfe"], 2, "--queue '\\xff\\xfe' is not a queue the bot sends to"),
    ([b"render", b"a.md", b"b\xff"], 2, "got unexpected extra argument(s) (b\\xff)"),
    ([b"render", b"nowhere-\xff.md"], 2, "nowhere-\\xff.md does not exist"),
    ([b"--version", b"\xff"], 2, "--version takes no command or argument ('\\xff' after it)"),
    ([b"ask", b"--offline", b"--resume", b"console:\xff"], 2, "there is no research with thread id console:\\xff"),
])
def test_bytes_that_are_not_utf8_are_echoed_as_escapes(tmp_path, args, code, said):
    """They were echoed as Python's surrogate escape (``'\\udcff'``) or as U+FFFD: now as ``\\xff``, the
    way ls and bash quote them, in every line that echoes the command line; the line is UTF-8."""
    out = subprocess.run([sys.executable, "-m", "bots.cli", *args], capture_output=True, env=ask_env(tmp_path),
                         cwd=tmp_path, timeout=RUN_TIMEOUT)
    stderr = out.stderr.decode("utf-8")  # strict: nothing undecodable is written either
    assert out.returncode == code, stderr
    [line] = [ln for ln in stderr.splitlines() if ln.startswith("deepresearch: ")]
    assert said in line, line
    assert "\\udc" not in stderr and "\ufffd" not in stderr, stderr


def test_a_requester_that_is_not_utf8_is_echoed_as_escapes(tmp_path):
    out = subprocess.run([sys.executable, "-m", "bots.cli", "audit", b"--user", b"\xffbob"], capture_output=True,
                         env=ask_env(tmp_path), cwd=tmp_path, timeout=RUN_TIMEOUT)
    assert out.returncode == 0, out.stderr
    assert "requester \\xffbob" in out.stdout.decode("utf-8"), out.stdout
