"""The figures as table rows: a plain-text table for the terminal and Markdown for the docs."""

from __future__ import annotations

from collections.abc import Callable

Row = tuple[str, str, str, str, str]  # figure, what, result, inputs, runs

TITLES = {
    "1": "Acknowledgement latency",
    "2": "Orchestration overhead",
    "3": "Parallel speed-up",
    "4": "Throughput (RQ)",
    "5": "Checkpoint storage",
    "6": "Tokens",
    "7": "PDF build",
    "8": "Stores (PostgreSQL vs SQLite)",
    "9": "Start-up",
    "10": "Delivery",
}


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def _kib(n: float) -> str:
    return f"{n / 1024:,.0f} KiB"


def _mib(n: float) -> str:
    return f"{n / 1024 / 1024:,.1f} MiB"


def _latency(fig: dict) -> str:
    return f"model {_ms(fig['inputs']['model_latency_s'])}, search {_ms(fig['inputs']['search_latency_s'])}"


def _fig1(f: dict) -> list[Row]:
    rows = []
    for key, label in (("slack", "Slack /research"), ("teams", "Teams activity")):
        s = f.get(key)
        if not s:
            continue
        if s.get("not_measured"):
            rows.append(("1", label, f"not measured: {s['not_measured']}", "", "-"))
            continue
        limit = f"limit {s['limit_s']:g} s"
        result = (f"p50 {s['p50_ms']:.0f} ms · p99 {s['p99_ms']:.0f} ms · max {s['max_ms']:.0f} ms "
                  f"({limit}; {s['errors']} errors)")
        rows.append(("1", label, result, s["inputs_text"], f"1 × {s['requests']} requests"))
    return rows


def _fig2(f: dict) -> list[Row]:
    result = (f"wall {f['wall_s']:.2f} s · critical path {f['critical_path_s']:.2f} s · ratio {f['ratio']:.2f} "
              f"(before 1st call {f['before_first_call_s']:.2f} s, between calls {f['between_calls_s']:.2f} s, "
              f"after last call {f['after_last_call_s']:.2f} s: artifacts and PDF)")
    inputs = (f"5 topics, {_latency(f)}, 2 review rounds, 5 units at once; {f['calls']} calls, "
              f"{f['calls_on_path']} on the path")
    return [("2", "one full run, PDF included", result, inputs, f"median of {f['runs']}")]


def _fig3(f: dict) -> list[Row]:
    result = (f"research phase {f['research_phase_s_at_1']:.2f} s at 1 → {f['research_phase_s_at_5']:.2f} s at 5: "
              f"speed-up {f['speedup']:.2f}× (critical paths allow {f['ideal_speedup']:.2f}×, ceiling {f['ceiling']}); whole run {f['wall_s_at_1']:.2f} → "
              f"{f['wall_s_at_5']:.2f} s")
    inputs = f"MAX_CONCURRENT_RESEARCH_UNITS=1 and =5, 5 topics, {_latency(f)}"
    rows = [("3", "research phase, 1 vs 5 units", result, inputs, f"median of {f['runs']} each")]
    if "idle_gap_s_at_1" in f:
        idle = (f"idle time on the research phase's critical path (wall − path): {f['idle_gap_s_at_1']:.2f} s at 1, "
                f"{f['idle_gap_s_at_5']:.2f} s at 5; longest gap between two calls of the path "
                f"{_ms(f['largest_gap_on_path_s_at_1'])} at 1, {_ms(f['largest_gap_on_path_s_at_5'])} at 5; "
                f"peak concurrent model calls {f['peak_model_calls_at_1']} at 1 unit, {f['peak_model_calls_at_5']} at 5")
        rows.append(("3", "idle gaps and concurrency", idle, inputs, f"median of {f['runs']} each"))
    return rows


def _fig4(f: dict) -> list[Row]:
    one, two = f["one_worker"], f["two_workers"]
    result = (f"{one['jobs_per_minute']:.1f} jobs/min with 1 worker, {two['jobs_per_minute']:.1f} with 2: "
              f"ratio {f['ratio']:.2f}; median job {one['median_job_s']:.1f} s (1 worker, "
              f"{one['median_s_job_start_to_first_model_call']:.1f} s of it before the first model call), "
              f"{two['median_job_s']:.1f} s (2); peak RSS worker {two['peak_rss_mib_worker']:.0f} MiB, "
              f"work horse {max(one['peak_rss_mib_work_horse'], two['peak_rss_mib_work_horse']):.0f} MiB")
    inputs = (f"{f['inputs']['jobs']} jobs, `deepresearch worker --burst`, real Redis, {_latency(f)}, "
              "5 topics, PDF included")
    return [("4", "12 research jobs through RQ", result, inputs, f"{f['runs']} per worker count")]


def _fig5(f: dict) -> list[Row]:
    inc = f["per_run_increments"]
    per_run = (f"{_kib(f['first_run_bytes'])} for the first run, {_kib(f['mean_bytes_per_run'])} per run over "
               f"{f['runs']} (per-run steps {_kib(inc['min'])}–{_kib(inc['max'])}: linear); "
               f"{f['checkpoints_per_run']:.0f} checkpoints and {f['writes_per_run']:.0f} pending writes per run; "
               f"the latest checkpoints alone hold {_kib(f['latest_only_payload_bytes_per_run'])}")
    after = (f"{_mib(f['bytes_after_runs'])} after {f['runs']} runs; {_mib(f['bytes_after_delete'])} after "
             f"adelete_thread() of {f['deleted_threads']} threads; {_mib(f['bytes_after_vacuum'])} after VACUUM; "
             f"artifacts {_kib(f['artifact_bytes_per_run'])} per run")
    inputs = "one SQLite file, 5 topics × 5 sources, 2 review rounds, WAL checkpointed before each size"
    return [("5", "bytes per completed run", per_run, inputs, f"{f['runs']} runs"),
            ("5", "growth and pruning", after, inputs, "1")]


def _fig6(f: dict) -> list[Row]:
    base = f["bounded_notes"]["at_5"]
    roles = " · ".join(f"{role} {v['input_tokens']:,}/{v['output_tokens']:,}" for role, v in base["by_role"].items())
    cache = base.get("summary_cache") or {}
    hits = (f"; page summaries: {cache.get('summarised', 0)} made, {cache.get('hits', 0)} cache hits, "
            f"{cache.get('kept_as_is', 0)} short pages kept as they are") if cache else ""
    total = f"prompt tokens {base['prompt_tokens']:,}; " if "prompt_tokens" in base else ""
    rows = [("6", "one run (usage.json)", f"{total}in/out per role: {roles}; largest prompt "
             f"{base['largest_prompt_tokens']:,}{hits}",
             f"5 topics × 5 results ({base['sources_found']} sources), 1 review round, tokens as the fake counts them (chars/4)", "1")]
    for key, label in (("bounded_notes", f"{f['inputs']['bounded_findings_per_topic']} findings a topic"),
                       ("notes_per_source", "a finding per source")):
        small, big, growth = f[key]["at_5"], f[key]["at_10"], f[key]["growth_when_doubled"]
        result = (f"final report {small['final_report_prompt_tokens']:,} → {big['final_report_prompt_tokens']:,} "
                  f"(×{growth['final_report_prompt_tokens']:.2f}: findings {small['findings_tokens']:,} → "
                  f"{big['findings_tokens']:,}, source list {small['sources_block_tokens']:,} → "
                  f"{big['sources_block_tokens']:,}, {small['sources_listed']} → {big['sources_listed']} cited of "
                  f"{small['sources_found']} → {big['sources_found']} found; listing every source found would take "
                  f"{small['every_source_list_tokens']:,} → {big['every_source_list_tokens']:,}); final synthesis "
                  f"×{growth['finalize_prompt_tokens']:.2f}; supervisor ×{growth['supervisor_prompt_tokens']:.2f}")
        rows.append(("6", f"report prompts, 5 → 10 results/query, {label}", result,
                     "search_max_results 5 and 10, 5 topics, 1 review round", "1 each"))
    return rows


def _fig7(f: dict) -> list[Row]:
    if f.get("error"):
        return [("7", "20-page report", f"not measured: {f['error']}", "", "-")]
    result = (f"{f['seconds']:.2f} s ({f['render_latex_s']:.2f} s render_latex + {f['build_pdf_s']:.2f} s "
              f"latexmk/XeLaTeX), {f['pages']} pages")
    inputs = f"{f['inputs']['sections']} sections with tables and lists, {f['inputs']['sources']} sources, 2 review rounds"
    return [("7", "20-page report", result, inputs, f"median of {f['runs']}")]


def _fig8(f: dict) -> list[Row]:
    rate = f["jobs_per_minute"]
    result = "; ".join(
        f"{w} worker{'s' if w != '1' else ''}: {rate['postgres'][w]:.1f} jobs/min on PostgreSQL, {rate['sqlite'][w]:.1f} on SQLite"
        for w in rate["sqlite"])
    size = f["postgres_bytes_per_run"]
    result += (f"; PostgreSQL keeps {size['all_tables'] / 1024:.0f} KiB per completed run "
               f"({size['checkpoints'] / 1024:.0f} KiB of it checkpoints)")
    inputs = (f"{f['inputs']['jobs']} jobs per measurement, `deepresearch worker --burst`, real Redis and PostgreSQL "
              f"on the same host, {_latency(f)}, 5 topics, PDF included")
    return [("8", "research jobs with 1, 2 and 4 workers", result, inputs, f"{f['runs']} per store and worker count")]


def _fig9(f: dict) -> list[Row]:
    cpu = f" ({f['warm_median_cpu_s']:.2f} s of CPU)" if "warm_median_cpu_s" in f else ""
    private = (f"; {f['warm_median_private_mb']:.0f} MB of private memory then"
               if "warm_median_private_mb" in f else "")
    result = (f"{f['warm_median_s']:.2f} s{cpu} from process start to the first model call (warm imports; "
              f"first run {f['first_run_s']:.2f} s){private}")
    return [("9", "process start to first model call", result, f"`{f['inputs']['command']}` in a new process",
             f"median of {f['runs'] - 1}")]


def _fig10(f: dict) -> list[Row]:
    steps = " · ".join(f"{label} {f[key]:.2f} s" for key, label in (
        ("summary_post_s", "summary posted"), ("md_written_s", "report.md"), ("pdf_written_s", "report.pdf"),
        ("docx_written_s", "report.docx"), ("upload_s", "files uploaded")))
    order = ("the summary before the PDF and Word files" if f["summary_before_typeset"]
             else "in some run the summary came after the PDF or Word file")
    result = f"after the final text: {steps} ({order})"
    inputs = (f"a chat turn through the job on {f['inputs']['runner']}, {f['inputs']['port']}, "
              f"{f['inputs']['topics']} topics, {_latency(f)}, PDF and Word included")
    return [("10", "final text to the chat", result, inputs, f"median of {f['runs']}")]


_ROWS: dict[str, Callable[[dict], list[Row]]] = {
    "1": _fig1, "2": _fig2, "3": _fig3, "4": _fig4, "5": _fig5, "6": _fig6, "7": _fig7, "8": _fig8, "9": _fig9,
    "10": _fig10,
}


def rows(figures: dict) -> list[Row]:
    """Table rows for every figure in ``figures`` (``{"1": {...}, ...}``), in figure order."""
    out: list[Row] = []
    for key in sorted(TITLES, key=int):
        fig = figures.get(key)
        if fig is None:
            continue
        if fig.get("not_measured"):
            out.append((key, "", f"not measured: {fig['not_measured']}", "", "-"))
        else:
            out += _ROWS[key](fig)
    return out


def text_table(table: list[Row]) -> str:
    """The rows as an indented plain-text listing: one block per row, inputs under the result."""
    lines = []
    for fig, what, result, inputs, runs in table:
        lines.append(f"[{fig}] {TITLES[fig]}" + (f": {what}" if what else "") + f"  ({runs})")
        lines.append(f"    {result}")
        if inputs:
            lines.append(f"    inputs: {inputs}")
    return "\n".join(lines)


def markdown_table(table: list[Row]) -> str:
    """The rows as a Markdown table."""
    lines = ["| # | figure | result | inputs | runs |", "|---|---|---|---|---|"]
    for fig, what, result, inputs, runs in table:
        cells = [fig, TITLES[fig] + (f": {what}" if what else ""), result, inputs, runs]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


METHOD = """\
How the figures are made:

- Outside services are the loopback fakes of `tests/fakes/` (the ones the tests use): an
  OpenAI-compatible server playing every role of the graph from a script
  (`ScriptedResearch`, five research topics), a Tavily server, the Slack Web API and the Bot
  Framework connector. Each answers after a fixed latency (inputs column). The fakes' sockets get
  `TCP_NODELAY`, so the only delay is that latency (otherwise every answer waits about 40 ms
  for a delayed ACK). Redis is real.
- Figure 1: the real `deepresearch slack` (HTTP mode) and `deepresearch teams` processes, with
  `REDIS_URL` set (turns go to the RQ queue; no worker runs), get signed `/research` slash
  commands (Slack) or messages in new 1:1 conversations (Teams) from 20 concurrent clients; the
  latency is from sending the request to reading the whole response. A first request after
  start-up is sent alone and kept apart (`first_request_ms` in the JSON). Teams answers the HTTP
  request after its turn handler, which sends a typing indicator through the connector first.
- Figure 2: the fakes record every call's start and end. The critical path is the longest chain
  of calls in which each call starts after the previous one ended (a longest path in the
  interval DAG, weighted by call duration); no run with these latencies can be faster. The ratio
  wall / critical path is what the project adds on top of waiting for models and searches.
- Figure 3: the research phase runs from the supervisor's first model call to its last.
- Figure 4: 12 turns are queued, then 1 (or 2) `deepresearch worker --burst` processes drain
  the queue; jobs per minute count from the first job's start to the last job's end (RQ's
  timestamps). Peak RSS is `VmHWM` from `/proc`, sampled every 50 ms, for each worker process
  and for the work horses RQ forks per job.
- Figure 5: 20 runs into one SQLite checkpoint file (zero latency: sizes do not depend on it),
  the WAL checkpointed before each size is taken; then `adelete_thread()` on 10 threads, then
  `VACUUM`. Pruning: LangGraph's `AsyncSqliteSaver.adelete_thread(thread_id)` removes a
  thread's checkpoints and pending writes; the file keeps its size (later runs reuse the freed
  pages) until `VACUUM`. The SQLite checkpointer does not implement `aprune(keep_latest)`; "the
  latest checkpoints alone" is what keeping only the last checkpoint of each namespace of a
  finished thread would retain.
- Figure 6: tokens are what the fake reports (characters / 4 per message), summed per role in
  each run's `usage.json`; the largest final-report, final-synthesis and supervisor prompts
  come from the recorded requests. Two pairs of runs at 5 and 10 search results per query: in
  one, the compressor keeps a bounded number of findings a topic (a real compressor's notes
  have a bounded length, and the findings budget caps them); in the other, it writes one
  finding per source, so the findings double with the results. The report prompts list only
  the sources the findings cite (at most 60); "listing every source found" is what the list
  of every source found, as the prompts held it before, would take.
- Figure 8: figure 4's measurement with 6 turns, for 1, 2 and 4 burst workers, first on SQLite
  (one data dir), then on PostgreSQL (`DATABASE_URL` on a fresh database of the local server:
  checkpoints with LangGraph's `AsyncPostgresSaver`, report files and usage in the product's
  tables). Bytes per run are `pg_total_relation_size` (rows, TOAST and indexes) of those tables
  after the 1-worker measurement, over its 6 completed runs.
- Figure 10: a research turn runs through the chat job (`jobs.run.run_job` on the in-process
  runner, as a bot without Redis runs it) with the tests' recording chat port, model 100 ms and
  search 50 ms. The final text exists when the run's last model call (the executive summary) has
  answered; the figure is the seconds from then to the post carrying the summary (the port's
  timestamp), to each report file written (its modification time) and to the upload of the
  files. The fakes time calls with `time.monotonic`, the port and the files with `time.time`;
  one offset taken before each run converts between them.
"""


def performance_page(results: dict, table: list[Row]) -> str:
    """docs/performance.md: the latest table, the machine, the method and how to run it."""
    m = results["machine"]
    load = " ".join(f"{x:g}" for x in m["load_average_at_start"])
    return f"""# Performance

Measured by `make bench` (`.venv/bin/python -m bench`) on {results['finished_at'][:10]}; the whole
run took {results['runtime_s']:.0f} s. Raw numbers: `bench/results.json`.

Machine: {m['nproc']} CPUs ({m['cpu_model']}), {m['memory_gib']:g} GiB memory, {m['os']},
Python {m['python']}; load average {load} at the start and
{" ".join(f"{x:g}" for x in m.get("load_average_at_end", []))} at the end (other processes may share the CPUs).

{markdown_table(table)}

## Running it

```sh
make bench                                   # or: .venv/bin/python -m bench
.venv/bin/python -m bench --only 2,3,7       # some figures only
.venv/bin/python -m bench --markdown docs/performance.md   # also rewrite this page
```

It needs the test fakes (`tests/fakes/`), TeX (`latexmk`, `xelatex`) and Redis on
127.0.0.1:6379; it uses database 14 (`BENCH_REDIS_URL` to change it) and flushes only that one.
Figure 8 also needs PostgreSQL: a fresh database on the local server (`tests/pg_db.py`), or an
empty one at `BENCH_DATABASE_URL`.
It prints the table, writes `bench/results.json`, and takes about 10 minutes on 2 CPUs.

## Method

{METHOD}"""
