"""`deepresearch` command-line surface: help text, --version, usage errors and interrupts, each with one line."""

from __future__ import annotations

import enum
import re
import signal
import subprocess
import sys
import threading
import time
import types
from typing import Annotated

import pytest
import typer

from tests.bots.console_helpers import RUN_TIMEOUT, ask, ask_cmd, ask_env, no_traceback, running, write_docs
from tests.bots.console_helpers import cli as _cli
from tests.bots.console_helpers import cli_commands as _commands
from tests.bots.console_helpers import cli_here as _run

QUESTION = "What is asyncio?"


def test_ask_help_lists_every_file_flags_without_values_and_one_exit_code_a_line(tmp_path):
    out = _cli(tmp_path, "ask", "--help")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    for name in ("report.md", "report.pdf", "report.tex", "report.docx", "review.md", "sources.json", "usage.json"):
        assert name in text, text
    assert "<bool>" not in text and "BOOLEAN" not in text, text
    for flag in ("--offline", "--no-clarify", "--queue"):
        line = next(ln for ln in text.splitlines() if flag in ln)
        assert re.search(re.escape(flag) + r"\s{2,}\S", line) or line.rstrip().endswith(flag), line
    for code in ("0", "1", "2", "3", "4", "5", "130"):
        assert re.search(rf"^\s+{code}\s+\S", text, re.MULTILINE), (code, text)
    assert "[QUESTION]" in text, text


def test_argument_names_are_spelt_alike_in_every_command(tmp_path):
    """Upper case as in the descriptions; [NAME] when it may be left out, {NAME} when required."""
    for command, shown in (("ask", "[QUESTION]"), ("render", "{REPORT}"), ("index", "{DIRECTORY}")):
        out = _cli(tmp_path, command, "--help")
        usage = next(ln for ln in out.stdout.splitlines() if ln.startswith("Usage:"))
        assert usage.rstrip().endswith(shown), usage
        assert shown.strip("[]{}") in out.stdout.split("Usage:", 1)[1].split("\n\n", 2)[1], out.stdout


def test_version_is_printed(tmp_path):
    out = _cli(tmp_path, "--version")
    assert out.returncode == 0 and re.match(r"deepresearch \S+", out.stdout), (out.stdout, out.stderr)


def test_index_of_a_missing_or_non_folder_is_bad_input(tmp_path):
    out = _cli(tmp_path, "index", str(tmp_path / "nonexistent"))
    assert out.returncode == 2 and "no such folder" in out.stderr, out.stderr
    (tmp_path / "a-file.md").write_text("text")
    out = _cli(tmp_path, "index", str(tmp_path / "a-file.md"))
    assert out.returncode == 2 and "is not a folder" in out.stderr, out.stderr
    no_traceback(out)


def test_an_empty_resume_id_is_named_as_such(tmp_path):
    for blank in ("", "  "):
        out = ask(tmp_path, "--resume", blank, "--offline")
        assert out.returncode == 2, out.stderr
        assert "thread id is empty" in out.stderr and "question is empty" not in out.stderr, out.stderr
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("folder", ["/proc/deepresearch-out", "/sys/deepresearch-out"])
def test_out_in_a_pseudo_file_system_is_refused_before_any_work(tmp_path, folder):
    docs = write_docs(tmp_path / "docs")
    out = ask(tmp_path, QUESTION, "--offline", "--no-clarify", "--corpus", str(docs), "--out", folder)
    assert out.returncode == 2 and f"--out {folder} cannot be written" in out.stderr, out.stderr
    assert "Indexing" not in out.stderr and "thread:" not in out.stderr
    no_traceback(out)
    assert not (tmp_path / "data").exists()


def test_ctrl_c_while_indexing_says_so_and_started_nothing(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    text = "Solar panels convert sunlight into electricity with photovoltaic cells. " * 60
    for i in range(3000):
        (docs / f"d{i:04d}.md").write_text(f"# Document {i}\n\n{text}\n")
    proc = subprocess.Popen(ask_cmd(QUESTION, "--offline", "--no-clarify", "--corpus", str(docs)),
                            stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env=ask_env(tmp_path), cwd=tmp_path)
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.startswith("Indexing"):
            proc.send_signal(signal.SIGINT)
            break
    rest, _ = proc.communicate(timeout=RUN_TIMEOUT)[::-1]
    stderr = "".join(seen) + rest
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr, stderr
    last = [ln for ln in stderr.splitlines() if ln.strip()][-1]
    if "thread:" in stderr:  # the indexing won the race: the research was interrupted, and resumes
        assert "ask --resume console:" in last, stderr
    else:
        assert last == "deepresearch: interrupted while indexing the corpus; nothing was started.", stderr
        assert not (tmp_path / "data" / "console").exists() or not any((tmp_path / "data" / "console").iterdir())
        audit = tmp_path / "data" / "audit.jsonl"
        assert not audit.exists() or not audit.read_text().strip(), audit.read_text()  # no research began



@pytest.mark.parametrize("columns", ["80", "44"])
def test_help_never_breaks_an_option_name_across_lines(tmp_path, columns):
    env = {**ask_env(tmp_path), "COLUMNS": columns}
    for command in ("prune", "ask", "audit", "teams"):
        out = subprocess.run([sys.executable, "-m", "bots.cli", command, "--help"], capture_output=True, text=True,
                             env=env, cwd=tmp_path, timeout=RUN_TIMEOUT)
        assert out.returncode == 0, out.stderr
        assert not re.search(r"[\w-]-$", out.stdout, re.MULTILINE), out.stdout
        if command == "prune":
            assert "--older-than days" in " ".join(out.stdout.split()), out.stdout


class _Interrupted(types.ModuleType):
    """A module whose every name is reached by a Ctrl-C: the command is interrupted while importing."""

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise KeyboardInterrupt


@pytest.mark.parametrize("where, line", [
    ("importing", "deepresearch: interrupted before the research started; nothing was started."),
    ("running", "deepresearch: interrupted."),
])
def test_ctrl_c_anywhere_in_a_command_ends_130_with_a_line(monkeypatch, where, line):
    """Typer ends a command that a Ctrl-C reaches with exit 130 and no word; every command says so."""
    from typer.testing import CliRunner

    import bots.console
    from bots.cli import app

    if where == "importing":
        monkeypatch.setitem(sys.modules, "bots.console", _Interrupted("bots.console"))
    else:
        monkeypatch.setattr(bots.console, "run_ask", lambda **kwargs: (_ for _ in ()).throw(KeyboardInterrupt))
    result = CliRunner().invoke(app, ["ask", "--offline", "What is asyncio?"])
    assert result.exit_code == 130, result.output
    assert result.stderr.strip().splitlines()[-1] == line, result.stderr


@pytest.fixture
def signals_kept():
    """The test process's SIGINT and SIGTERM handlers (and the SIGTERMs noted) as they were after the
    test: the entry point takes SIGTERM as Ctrl-C and ignores both once it has said its line."""
    from bots import terminal_signals

    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    noted = terminal_signals._TERMINATED[:]
    yield
    for sig, handler in before.items():
        signal.signal(sig, handler)
    terminal_signals._TERMINATED[:] = noted


def test_ctrl_c_while_the_command_line_loads_ends_130_with_a_line(monkeypatch, capsys, signals_kept):
    from bots import entry

    monkeypatch.setitem(sys.modules, "bots.cli", _Interrupted("bots.cli"))
    with pytest.raises(SystemExit) as ended:
        entry.main()
    assert ended.value.code == 130
    assert capsys.readouterr().err.strip() == "deepresearch: interrupted."


def test_a_caller_that_runs_on_after_an_interrupted_main_is_not_ended(monkeypatch, capsys, signals_kept):
    """The bound on an interrupted process's shutdown (:data:`bots.entry.SHUTDOWN_BOUND`) counts from
    the interpreter's shutdown, not from main's return: a program that calls main and runs on (this
    test's process) is not ended by it (it ended pytest's worker after 10 s)."""
    from bots import entry

    monkeypatch.setattr(entry, "SHUTDOWN_BOUND", 0.05)
    monkeypatch.setitem(sys.modules, "bots.cli", _Interrupted("bots.cli"))
    with pytest.raises(SystemExit):
        entry.main()
    bounded = [t for t in threading.enumerate() if t.name == "bounded-shutdown"]
    assert bounded and all(t.is_alive() for t in bounded)  # still waiting for the shutdown
    time.sleep(0.5)  # ten bounds later: still here
    assert all(t.is_alive() for t in bounded)


#: How the terminal command is started: the console script (``bots.entry:main``, as pip writes it) and
#: ``python -m bots.cli``.
STARTS = {"script": ["-c", "import sys\nfrom bots.entry import main\nsys.argv[0] = 'deepresearch'\nsys.exit(main())"],
          "module": ["-m", "bots.cli"]}


def _mapped(pid: int, name: str) -> bool:
    """True once the process ``pid`` has the shared library ``name`` loaded (its /proc maps)."""
    try:
        with open(f"/proc/{pid}/maps") as maps:
            return name in maps.read()
    except OSError:  # it has ended
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("start", sorted(STARTS))
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_the_command_line_loads_ends_with_one_line_and_its_exit_code(tmp_path, start, sig):
    """SIGTERM in the first quarter second (the command line's imports) ended the process silently by
    the default action; a Ctrl-C then was one line from the script but a traceback from ``python -m
    bots.cli``. The signal is sent once the command line's imports are under way (SQLite's library,
    which `bots.cli` imports among its first, is loaded); wherever it lands (those imports, or the run
    they start), it ends with one line saying so and 143 for SIGTERM, 130 for Ctrl-C."""
    from tests.waiting import wait_for

    with running([sys.executable, *STARTS[start], "ask", "--offline", "--no-clarify", QUESTION],
                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                 env=ask_env(tmp_path), cwd=tmp_path) as proc:
        wait_for(lambda: _mapped(proc.pid, "_sqlite3"), what="the command line's imports to start", every=0.001)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=RUN_TIMEOUT)
    assert proc.returncode == {signal.SIGTERM: 143, signal.SIGINT: 130}[sig], err
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines and lines[-1].startswith("deepresearch: interrupted"), err


def test_the_console_script_is_the_light_entry():
    from importlib.metadata import entry_points

    [script] = [e for e in entry_points(group="console_scripts") if e.name == "deepresearch"]
    assert script.value == "bots.entry:main"


@pytest.mark.parametrize("args", [["ask", ""], ["ask", "What is asyncio?", "--corpus", "missing-folder"],
                                  ["ask", "What is asyncio?", "--queue", "--offline"],
                                  ["ask", "What is asyncio?", "--no-clarify", "--answer", "for web servers"]])
def test_bad_input_is_refused_before_the_research_code_is_loaded(tmp_path, args):
    """A refusal is one line at once: the model, graph and job code (langchain, langgraph, rq) is not loaded for it."""
    probe = ("import sys\nfrom bots.entry import main\nsys.argv = ['deepresearch', *sys.argv[1:]]\n"
             "try:\n    main()\nexcept SystemExit as end:\n"
             "    heavy = sorted(m for m in ('langgraph', 'langchain_core', 'rq', 'engine.graph') if m in sys.modules)\n"
             "    print(end.code, heavy)\n")
    out = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True,
                         env=ask_env(tmp_path), cwd=tmp_path, timeout=RUN_TIMEOUT)
    assert out.stdout.strip() == "2 []", (out.stdout, out.stderr)
    assert out.stderr.startswith("deepresearch: ") and len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_a_refused_ask_leaves_no_out_folder_behind(tmp_path):
    out = tmp_path / "new" / "reports"
    done = _cli(tmp_path, "ask", "What is asyncio?", "--out", str(out), "--file", str(tmp_path / "missing.pdf"))
    assert done.returncode == 2 and "--file" in done.stderr, done.stderr
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("args, said", [
    (["prune", "--older-than", "abc"], "--older-than must be a number of days from 0 to 36500"),
    (["prune", "--older-than"], "option '--older-than' requires an argument"),
    (["audit", "--since", "x"], "--since must be a number of days from 0 to 36500"),
    (["audit", "--json", "--bogus"], "no such option: --bogus"),
    (["ask", "--offline", "--bogus", "What is asyncio?"], "no such option: --bogus"),
    (["ask", "--file"], "option '--file' requires an argument"),
    (["slack", "--port", "abc"], "--port must be a whole number from 0 to 65535"),
    (["teams", "--port", "3.5"], "--port must be a whole number from 0 to 65535"),
    (["worker", "--queue"], "option '--queue' requires an argument"),
    (["index"], "missing argument 'DIRECTORY'"),
    (["render", "a.md", "b.md"], "got unexpected extra argument"),
    (["reserch"], "no such command 'reserch'"),
    (["--bogus"], "no such option: --bogus"),
])
def test_a_command_line_that_cannot_be_read_is_refused_in_one_line(tmp_path, args, said):
    """Click's own parse errors read as the command's own refusals: one line ``deepresearch: ...``
    naming the option and where its help is, exit 2 (bad input), no usage block; nothing is written."""
    out = _cli(tmp_path, *args)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"deepresearch: {said}"), out.stderr
    assert "Usage:" not in out.stderr and "Error:" not in out.stderr and not out.stdout, out.stderr
    assert not (tmp_path / "data").exists()
    no_traceback(out)


@pytest.mark.parametrize("args", [["--help"], ["prune", "--help"], ["audit", "--since", "x", "--help"], []])
def test_help_is_still_the_usage_block(tmp_path, args):
    """``--help`` prints the usage and options and exits 0; the bare command prints them too (exit 2)."""
    out = _cli(tmp_path, *args)
    text = out.stdout + out.stderr
    assert out.returncode == (2 if not args else 0), text
    assert text.startswith("Usage: ") and "Options:" in text and "--help" in text, text


_DAYS = "must be a number of days from 0 to 36500 (such as 30 or 0.5)"
_PORT = "--port must be a whole number from 0 to 65535 (0: any free port)"


@pytest.mark.parametrize("args, said", [
    *((["prune", "--older-than", value], f"--older-than {_DAYS}") for value in ("abc", "5d", "", "1,5", "nan", "-1")),
    *((["audit", "--since", value], f"--since {_DAYS}") for value in ("x", "7 days", "", "inf")),
    *(([command, "--port", value], _PORT) for command in ("slack", "teams") for value in ("abc", "3.5", "", "0x50")),
    (["ask", "--corpus", "", "What is asyncio?"], "--corpus must be a folder's path, not empty"),
    (["ask", "--out", "", "What is asyncio?"], "--out must be a folder's path, not empty"),
    (["ask", "--file", "", "What is asyncio?"], "--file must be a file's path, not empty"),
    (["render", "--out", "", "report.md"], "--out must be a folder's path, not empty"),
    (["render", ""], "REPORT must be a report.md's path, not empty"),
    (["index", ""], "DIRECTORY must be a folder's path, not empty"),
])
def test_a_bad_value_of_a_typed_option_says_what_the_option_takes(tmp_path, monkeypatch, args, said):
    """One line in the command's words, naming the option and what it takes (its unit and range),
    exit 2, before anything is done: never the parsing library's wording."""
    from typer.testing import CliRunner

    from bots.cli import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(tmp_path / "data"))
    result = CliRunner().invoke(app, args, prog_name="deepresearch")
    assert result.exit_code == 2, result.output
    assert [line for line in result.output.splitlines() if line.strip()] == [
        f"deepresearch: {said} (see 'deepresearch {args[0]} --help')"]
    assert not (tmp_path / "data").exists()


def test_a_value_of_the_wrong_type_is_said_without_the_librarys_words(tmp_path):
    out = _cli(tmp_path, "prune", "--older-than", "abc")
    assert out.returncode == 2 and out.stderr == (
        f"deepresearch: --older-than {_DAYS} (see 'python -m bots.cli prune --help')\n"), out.stderr
    no_traceback(out)


def test_a_parse_error_of_any_other_value_names_the_option_and_what_it_takes():
    """A value the parsing library refuses in its own words (Typer's pydantic message) is said as
    what the option takes (its metavar), not as that message."""
    import typer

    from bots.cli_options import usage_error_line

    option = types.SimpleNamespace(opts=["--limit"], metavar="COUNT", param_type_name="option")
    err = typer.BadParameter("Input should be a valid integer, unable to parse string as an integer",
                             ctx=types.SimpleNamespace(command_path="deepresearch audit", command=None), param=option)
    assert usage_error_line(err) == "--limit takes COUNT (see 'deepresearch audit --help')"


@pytest.mark.parametrize("args", [["-h"], *([name, "-h"] for name in sorted(_commands()))])
def test_h_is_help_in_the_group_and_every_command(monkeypatch, tmp_path, args):
    """``-h`` is ``--help``: the usage block and exit 0, listed in the help as ``-h, --help``."""
    result = _run(monkeypatch, tmp_path, *args)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Usage: deepresearch") and "-h, --help" in result.output, result.output
    assert not (tmp_path / "data").exists()


def test_ask_h_as_a_process(tmp_path):
    out = _cli(tmp_path, "ask", "-h")
    assert out.returncode == 0 and out.stdout.startswith("Usage: ") and "--resume" in out.stdout, out.stderr


def _usage_errors() -> list[tuple[str, list[str]]]:
    """One command line per kind of usage error of every command: an unknown option, each option
    that takes a value given without it, an argument too many, a command that does not exist."""
    cases = [("", ["--bogus"]), ("", ["reserch"])]
    for name, command in sorted(_commands().items()):
        cases.append((name, [name, "--bogus"]))
        arguments = [p for p in command.params if p.param_type_name == "argument"]
        cases.append((name, [name, *(["x"] * (len(arguments) + 1))]))
        cases += [(name, [name, option.opts[0]]) for option in command.params
                  if option.param_type_name == "option" and not option.is_flag and option.opts[0] != "--help"]
    # values the command line's own parsers refuse (cli_options.days, port, path, queue)
    cases += [("audit", ["audit", "--since", "abc"]), ("prune", ["prune", "--older-than", "x"]),
              ("slack", ["slack", "--port", "x"]), ("teams", ["teams", "--port", "70000"]),
              ("worker", ["worker", "--queue", "bogus"]), ("ask", ["ask", "--out=", "q"])]
    return cases


@pytest.mark.parametrize("command, args", _usage_errors(), ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_every_usage_error_of_every_command_says_where_its_help_is(monkeypatch, tmp_path, command, args):
    result = _run(monkeypatch, tmp_path, *args)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    where = f"deepresearch {command}".strip()
    assert len(lines) == 1 and lines[0].startswith("deepresearch: "), result.output
    assert lines[0].endswith(f" (see '{where} --help')"), lines[0]


class Colour(enum.Enum):
    """A choice, for a command of a group made as the bot's is."""

    red = "red"
    blue = "blue"


def test_a_bad_choice_says_where_the_help_is():
    """A value a Click choice refuses (no command of the bot's takes one yet: a group made as the
    bot's is), in one line with the help's place."""
    from typer.testing import CliRunner

    from bots.cli_group import Command, Group

    demo = typer.Typer(cls=Group)

    @demo.command(cls=Command)
    def paint(colour: Annotated[Colour, typer.Option()] = Colour.red) -> None:
        """Paint."""

    @demo.command(cls=Command)
    def other() -> None:
        """Another."""

    result = CliRunner().invoke(demo, ["paint", "--colour", "green"], prog_name="deepresearch")
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines == ["deepresearch: --colour takes red or blue (see 'deepresearch paint --help')"], result.output


@pytest.mark.parametrize("args", [["ask", "--bogus", "x"], ["ask", "--q", "x"], ["audit", "--idle", "x"],
                                  ["prune", "--nothing"], ["--bogus"], ["ask", "--x"]])
def test_an_unknown_option_suggests_nothing_unlike_what_was_typed(monkeypatch, tmp_path, args):
    result = _run(monkeypatch, tmp_path, *args)
    assert result.exit_code == 2, result.output
    assert "possible" not in result.output.lower() and "did you mean" not in result.output.lower(), result.output


@pytest.mark.parametrize("args, meant", [
    (["ask", "--outt", "x", "q"], "--out"),
    (["ask", "--resum", "x"], "--resume"),
    (["ask", "--ans", "x", "q"], "--answer"),
    (["ask", "--no-clarfy", "q"], "--no-clarify"),
    (["audit", "--jsn"], "--json"),
    (["audit", "--usr", "x"], "--user"),
    (["prune", "--older-then", "3"], "--older-than"),
    (["serch"], "'search'"),  # no such command: none close, nothing suggested (checked below)
])
def test_an_unknown_option_close_to_one_suggests_it_in_the_same_line(monkeypatch, tmp_path, args, meant):
    result = _run(monkeypatch, tmp_path, *args)
    assert result.exit_code == 2, result.output
    [line] = [line for line in result.output.splitlines() if line.strip()]
    if meant == "'search'":
        assert "did you mean" not in line.lower(), line
        return
    assert f"did you mean {meant}?" in line.lower(), line
    assert line.endswith("--help')"), line


def test_render_says_how_many_pdf_warnings_it_did_not_print(tmp_path, monkeypatch):
    """The first three warnings are printed, and a line says how many more the PDF has: none is lost unsaid."""
    from typer.testing import CliRunner

    import engine.render.outputs
    import engine.render.reread
    from bots.cli import app

    warnings = [f"Overfull \\hbox ({k}0.5pt too wide) in paragraph at lines {k}--{k}" for k in range(1, 6)]
    report = tmp_path / "report.md"
    report.write_text("# T\n", encoding="utf-8")
    monkeypatch.setattr(engine.render.reread, "read_report", lambda path: object())
    monkeypatch.setattr(engine.render.outputs, "render_outputs",
                        lambda doc, target: {"pdf": str(target / "report.pdf"), "pdf_warnings": warnings})
    result = CliRunner().invoke(app, ["render", str(report)], prog_name="deepresearch")
    assert result.exit_code == 0, result.output
    lines = result.stderr.strip().splitlines()
    assert lines[:3] == [f"deepresearch: warning: {w}" for w in warnings[:3]], lines
    assert len(lines) == 4 and "2 more" in lines[3], lines
