"""The ``overhead`` command line.

Heavy libraries (pandas, pyarrow) are imported inside the commands, so that a no-op run such
as a warm ``ingest-ibm`` answers quickly. Every error a user's input can cause is an
:class:`~overhead.errors.OverheadError`; the command group catches that one class for every
command and prints its message on one line (``path:line: message`` for a file that does not
parse), without a traceback, with exit status 2.
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from typer._click import Context  # typer 0.2x vendors click: its exceptions are these
from typer._click import exceptions as click_errors
from typer.core import TyperGroup

from overhead.errors import InputError, OverheadError

#: Exit status of a user error (bad input, missing data): one line on stderr, no traceback.
EXIT_USER = 2


def _said(word: str, most: int = 120) -> str:
    """Quote a user's word for a one-line message: escaped, and cut to ``most`` characters."""
    shown = repr(word)[1:-1]
    return shown if len(shown) <= most else f"{shown[:most]}... ({len(word)} characters)"


class _Commands(TyperGroup):
    """The command group: turns an OverheadError from any command into one line and exit 2."""

    def invoke(self, ctx: Context):
        """Run the command; an OverheadError becomes its message on stderr and exit status 2.

        So does an OSError about a file the user named that the command's own checks did not
        turn into one (a name too long for the file system: ``Path.is_file`` raises it).
        """
        try:
            return super().invoke(ctx)
        except OverheadError as exc:
            typer.echo(str(exc), err=True)
            ctx.exit(EXIT_USER)
        except OSError as exc:
            if exc.filename is None:
                raise
            typer.echo(f"{_said(str(exc.filename))}: {exc.strerror or exc}", err=True)
            ctx.exit(EXIT_USER)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True,
             **extra):
        """Run the command line, with usage errors reported like every other user error.

        A missing argument or an unknown option is one line on stderr and exit status 2, not
        a usage panel.

        ``overhead`` alone still prints the help.
        """
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        # a control character in an argument (a newline in a file name) is no name or value
        # this tool takes, and would break its one-line messages
        for k, word in enumerate(sys.argv[1:] if args is None else args, start=1):
            bad = next((c for c in str(word) if ord(c) < 32 and c != "\t" or ord(c) == 127), None)
            if bad is not None:
                typer.echo(f"overhead: argument {k} ({_said(str(word))}) holds a control "
                           f"character ({bad!r}): not a file name or value overhead takes",
                           err=True)
                sys.exit(EXIT_USER)
        try:
            rv = super().main(args, prog_name, complete_var, False, **extra)
        except click_errors.NoArgsIsHelpError as exc:
            typer.echo(exc.ctx.get_help() if exc.ctx else str(exc), err=True)
            sys.exit(EXIT_USER)
        except click_errors.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx else "overhead"
            typer.echo(f"{where}: {exc.format_message()} (see '{where} --help')", err=True)
            sys.exit(EXIT_USER)
        except click_errors.ClickException as exc:
            typer.echo(exc.format_message(), err=True)
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


app = typer.Typer(
    cls=_Commands,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Measure what virtualization costs, and rebuild IBM RC25482 from raw data.",
)


def _read(path: Path) -> str:
    """Read an input file's text; a missing, unreadable or non-regular path is an InputError."""
    from overhead import parsers

    if not path.exists():
        raise InputError(f"{path}: no such file")
    if path.is_dir():
        raise InputError(f"{path}: is a directory; give the output files in it")
    if not path.is_file():  # /dev/zero grows forever, a FIFO blocks forever
        raise InputError(f"{path}: not a regular file (a device or FIFO is not read; save "
                         "the output to a file first)")
    try:
        return parsers.read_text(path)
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _json_value(v):
    """Turn a pandas scalar into something json.dumps writes faithfully (NA -> None)."""
    if v is None:
        return None
    try:
        import pandas as pd

        if v is pd.NA or v is pd.NaT:
            return None
        if isinstance(v, pd.Timestamp):
            return v.isoformat()
    except ImportError:  # pragma: no cover
        pass
    if isinstance(v, float) and math.isnan(v):
        return None
    if hasattr(v, "item"):
        return v.item()
    return v


@app.command("parse")
def parse_cmd(
    tool: Annotated[str, typer.Argument(help="Tool name, or 'auto' to detect it from the content.")],
    files: Annotated[list[Path], typer.Argument(help="Raw output files.", exists=False)],
    unit: Annotated[str | None, typer.Option(
        "--unit", help="netperf: the unit of -P 0 result lines' rate when the file does not "
        "show the command line (netperf's -f: 10^6bits/s, KBytes/s, Trans/s, ... or the -f "
        "letter).")] = None,
    columns: Annotated[str | None, typer.Option(
        "--columns", help="netperf: the omni selectors of -o/-O/-k (comma-separated, in "
        "order) when the file has no header and no command line to name them (-P 0).")] = None,
) -> None:
    """Parse raw tool output and print one JSON object per tidy row.

    A run that failed after some results were complete (a server that died during a later
    test) prints those rows, and the failure on stderr; a run with no result exits 2. Values
    read but not kept (a netperf -P 0 rate of unknown unit) are named on stderr, with how to
    give what they lack.
    """
    from overhead import parsers

    if tool != "auto":
        parsers.module(tool)  # an unknown tool fails before any file is read
    if unit is not None:
        if tool not in ("netperf", "auto"):
            raise InputError(f"--unit applies to netperf output only, not {tool}")
        from overhead.parsers import netperf

        try:
            netperf.rate_unit(unit)
        except ValueError as exc:
            raise InputError(f"--unit {unit!r}: {exc}") from None
    if columns is not None:
        if tool not in ("netperf", "auto"):
            raise InputError(f"--columns applies to netperf output only, not {tool}")
        from overhead.parsers import netperf

        try:
            netperf.selectors(columns)
        except ValueError as exc:
            raise InputError(f"--columns {columns!r}: {exc}") from None
    out = sys.stdout
    for path in files:
        text = _read(path)
        name = tool
        try:
            if tool == "auto":
                name = parsers.detect(text)
                typer.echo(f"{path}: detected {name}", err=True)
            if unit is not None and name != "netperf":
                raise InputError(f"{path}: --unit applies to netperf output only, not {name}")
            if columns is not None and name != "netperf":
                raise InputError(f"{path}: --columns applies to netperf output only, not {name}")
            options = {k: v for k, v in (("unit", unit), ("columns", columns)) if v is not None}
            df = parsers.parse_text(name, text, str(path), **options)
        except parsers.ParseError as exc:
            if exc.path == "<input>":
                exc.path = str(path)
            raise
        cut = parsers.cut_short_of(df)
        if cut:
            # the complete part of a run that then failed: its rows, and the failure on stderr
            typer.echo(f"{cut} (the rows read follow)", err=True)
        for message in parsers.notes_of(df):
            typer.echo(message, err=True)
        _write_rows(df, out)


def _write_rows(df, out) -> None:
    """Write each row of ``df`` as one JSON object, leaving out parameters the row lacks."""
    for rec in df.to_dict(orient="records"):
        row = {}
        for k, v in rec.items():
            v = _json_value(v)
            if k.startswith("p_") and v is None:
                continue
            row[k] = v
        out.write(json.dumps(row) + "\n")


@app.command("read-trial")
def read_trial_cmd(
    trials: Annotated[list[Path], typer.Argument(help="Trial directories a runner wrote.")],
) -> None:
    """Parse runner trial directories (runners/*.sh) and print their tidy rows as JSON lines.

    A failed trial (the tool's exit status was not 0, or its output shows a run that did not
    finish) is reported on stderr with the end of its stderr and what its output shows; the
    command then exits 1 after printing the rows of the others.
    """
    from overhead import runners

    failed = 0
    for path in trials:
        if not (path / "meta").is_file():
            raise InputError(f"{path}: not a trial directory (no meta file)")
        trial = runners.read_trial(path)
        if not trial.ok:
            failed += 1
            if trial.exit_status != 0:
                tail = trial.stderr.strip().splitlines()[-3:]
                typer.echo(f"{path}: {trial.meta['tool']} exited with status {trial.exit_status}: "
                           + " / ".join(tail), err=True)
            if trial.failure:
                typer.echo(trial.failure, err=True)
            continue
        if trial.cut_short:
            typer.echo(f"{trial.cut_short} (the rows read follow)", err=True)
        from overhead.parsers import notes_of

        for message in notes_of(trial.measurements):  # values read but not kept, and why
            typer.echo(message, err=True)
        _write_rows(trial.measurements, sys.stdout)
    if failed:
        raise typer.Exit(1)


@app.command("ingest-ibm")
def ingest_ibm_cmd(
    path: Annotated[Path | None, typer.Argument(
        help="Root of thewmf/kvm-docker-comparison (default: found as overhead.rc25482.data says).")] = None,
    out: Annotated[Path, typer.Option("--out", help="Output folder for the Parquet tables.")] = Path(
        "data/tidy/ibm"
    ),
    force: Annotated[bool, typer.Option(help="Re-parse everything, ignoring the cache.")] = False,
) -> None:
    """Ingest the RC25482 authors' raw results into measurements/provenance/reference Parquet tables."""
    from overhead.rc25482 import find_tree, ingest_ibm

    tree = find_tree(path)
    result = ingest_ibm(tree, out, force=force)
    if not result.rows and not result.files:
        raise InputError(f"{tree}: no result file of the authors' tree found there (expected "
                         "folders such as linpack/, stream/, fio/ ...); nothing ingested")
    typer.echo(result.describe())


@app.command("summary")
def summary_cmd(
    tidy: Annotated[Path, typer.Argument(help="A folder written by ingest.")] = Path(
        "data/tidy/ibm"
    ),
) -> None:
    """Print rows per benchmark and environment of an ingested tidy folder."""
    from overhead import tidy as tidy_tables
    from overhead.rc25482 import ALIASES, CAMPAIGN

    # the authors' data is labelled in the paper's words
    aliases = ALIASES if tidy_tables.campaigns(tidy) == [CAMPAIGN] else None
    typer.echo(tidy_tables.summary_table(tidy, aliases))


@app.command("reproduce")
def reproduce_cmd(
    out: Annotated[Path | None, typer.Option(help="Output folder (default figures/rc25482).")] = None,
    tidy: Annotated[Path | None, typer.Option(help="Ingest folder (default data/tidy/ibm).")] = None,
    ibm_data: Annotated[Path | None, typer.Option("--ibm", help="The authors' tree.")] = None,
    published: Annotated[Path | None, typer.Option(
        help="CSV of published values (default data/reference/rc25482.csv).")] = None,
    workers: Annotated[int, typer.Option(help="Notebooks run at once.")] = 2,
    campaign: Annotated[str | None, typer.Option(
        help="Also rebuild them live from this campaign (name or YAML; ingested in data/tidy/<name>), "
             "into figures/<name>/ with its report.html.")] = None,
) -> None:
    """Rebuild every table and figure of RC25482: ingest, then run the notebooks with papermill."""
    import time

    from overhead.rc25482.run import reproduce

    started = time.perf_counter()
    runs = reproduce(out, tidy, ibm_data, published, workers=workers, campaign=campaign)
    for r in runs:
        status = "ok" if r.error is None else f"FAILED: {r.error.splitlines()[0][:200]}"
        typer.echo(f"{r.name:<28} {r.seconds:6.1f} s  {status}")
    typer.echo(f"total {time.perf_counter() - started:.1f} s")
    if any(r.error for r in runs):
        raise typer.Exit(1)


@app.command("publish")
def publish_cmd(
    out: Annotated[Path, typer.Option(help="Output folder: <out>/<study>/ and <out>/<study>.zip.")
                   ] = Path("dist"),
    figures: Annotated[Path | None, typer.Option(
        help="Folder of study folders the notebooks wrote (default figures).")] = None,
    data: Annotated[Path | None, typer.Option(
        help="Data folder with campaigns/, reference/, tidy/ and raw/ (default data).")] = None,
    tidy: Annotated[Path | None, typer.Option(
        help="Folder of tidy trees (default <data>/tidy).")] = None,
    raw: Annotated[Path | None, typer.Option(
        help="Folder of raw campaign trees (default <data>/raw).")] = None,
    only: Annotated[list[str] | None, typer.Option(
        "--only", help="Publish only this study (a folder name under figures; repeatable).")] = None,
    timeout: Annotated[float, typer.Option(
        help="Seconds chromium may take to print one report.")] = 180.0,
    paper: Annotated[str, typer.Option(
        help="Paper size of report.pdf: A4 or letter.")] = "A4",
) -> None:
    """Write a publishing bundle per study in figures/, as <out>/<study>/ and <out>/<study>.zip.

    Each holds figures (PDF, SVG), tables (LaTeX, Markdown, CSV), the report (HTML, and PDF
    printed by headless chromium) and manifest.json (git SHA, input hashes, tool versions).
    """
    from overhead.paths import DATA, FIGURES
    from overhead.publish import find_chromium, find_studies, publish

    data = data or DATA
    studies = find_studies(figures or FIGURES, data=data, tidy=tidy or data / "tidy",
                           raw=raw or data / "raw", only=only)
    chromium = find_chromium()
    for st in studies:
        bundle = publish(st, out, chromium=chromium, timeout=timeout, paper=paper)
        typer.echo(bundle.describe())
        for what in bundle.not_found:
            typer.echo(f"  not found: {what}")


# ---------------------------------------------------------------------------------------------
# campaigns: plan, run, status, ingest

def _raw_folder(value: Path | None) -> Path | None:
    """Check ``--raw``: a folder, or one that can be made; not a file, device or kernel tree.

    ``/dev/null``, ``/proc``, a path under a file: one line, exit 2 (not a traceback from the
    first write, nor an empty status read from nowhere).
    """
    if value is None:
        return None
    resolved = value.expanduser().resolve()
    if resolved.parts[1:2] in (("proc",), ("sys",)) or (
            resolved.parts[1:2] == ("dev",) and resolved.parts[2:3] != ("shm",)):
        raise typer.BadParameter(f"{value}: the kernel's /{resolved.parts[1]} holds no raw "
                                 "trees; give a folder of your own")
    if resolved.exists() and not resolved.is_dir():
        raise typer.BadParameter(f"{value}: not a folder")
    above = resolved
    while not above.exists():
        above = above.parent
    if not above.is_dir():
        raise typer.BadParameter(f"{value}: {above} is a file, not a folder")
    if not os.access(above, os.W_OK | os.X_OK):
        raise typer.BadParameter(f"{value}: {above} is not writable")
    return value


_RAW_OPT = typer.Option("--raw", help="Folder of raw campaign trees (default data/raw).",
                        callback=_raw_folder)


_SET_OPT = typer.Option("--set", help="Override a campaign field: trials=5, profile=paper, "
                                       "hosts.local.address=10.0.0.2 (repeatable).")


def _campaign(path: Path, sets: list[str] | None = None):
    """Load a campaign file with ``--set`` overrides (errors name file, line and field)."""
    from overhead.campaign import inventory

    if not path.is_file():
        raise InputError(f"{path}: no such campaign file")
    return inventory.load(path, inventory.overrides_from_sets(sets or []))


def _params(params: dict) -> str:
    """Parameters as name=value words."""
    return " ".join(f"{k}={v}" for k, v in params.items())


@app.command("plan")
def plan_cmd(
    campaign_file: Annotated[Path, typer.Argument(help="The campaign YAML.")],
    fmt: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
    sets: Annotated[list[str] | None, _SET_OPT] = None,
) -> None:
    """Print a campaign's plan: every trial in the order it runs (randomized interleaved rounds)."""
    from overhead.campaign.plan import make_plan

    campaign = _campaign(campaign_file, sets)
    plan = make_plan(campaign)
    if fmt == "json":
        typer.echo(json.dumps(plan.to_json(), indent=1, default=str))
        return
    if fmt != "text":
        raise InputError(f"--format {fmt!r}: use text or json")
    warm = sum(t.warmup for t in plan.trials)
    typer.echo(f"campaign {campaign.name}  seed {campaign.seed}  file hash {campaign.sha256[:12]}")
    typer.echo(f"{len(plan.cells)} cells x {plan.rounds} rounds = {len(plan.trials)} trials "
               f"({warm} warm-up), each round in a fresh seeded order")
    from overhead.campaign.stopping import rule_of

    rule = rule_of(campaign)
    if rule is not None:
        typer.echo(rule.describe())
    typer.echo(f"{'pos':>4} {'round':>5}  {'trial':<14} {'environment':<16} {'benchmark':<18} params")
    for t in plan.trials:
        flag = "  (warm-up)" if t.warmup else ""
        typer.echo(f"{t.position:>4} {t.round:>5}  {t.id:<14} {t.environment:<16} "
                   f"{t.benchmark:<18} {_params(t.params)}{flag}")


@app.command("pilot")
def pilot_cmd(
    campaign_file: Annotated[Path, typer.Argument(help="The campaign YAML.")],
    rounds: Annotated[int, typer.Option(help="Measured rounds (after one warm-up round).",
                                        min=3, max=100)] = 4,
    environment: Annotated[list[str] | None, typer.Option(
        "--environment", help="An environment besides the baseline (repeatable; default: the "
        "first that is not a VM).")] = None,
    benchmark: Annotated[list[str] | None, typer.Option(
        "--benchmark", help="A benchmark to pilot (repeatable; default: every judged one).")] = None,
    raw: Annotated[Path | None, _RAW_OPT] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    sets: Annotated[list[str] | None, _SET_OPT] = None,
) -> None:
    """Measure where a campaign's variance lives and print the trial design it implies."""
    from overhead.campaign.pilot import run_pilot

    campaign = _campaign(campaign_file, sets)
    result = run_pilot(campaign, rounds=rounds, environments=environment or None,
                       benchmarks=benchmark or None, raw_root=raw, progress=progress)
    typer.echo(result.text())


@app.command("run")
def run_cmd(
    campaign_file: Annotated[Path, typer.Argument(help="The campaign YAML.")],
    retries: Annotated[int, typer.Option(min=0, max=10, help="Re-runs allowed for a failed trial (0 to 10).")] = 0,
    raw: Annotated[Path | None, _RAW_OPT] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    ingest: Annotated[bool, typer.Option(help="Ingest into data/tidy/<campaign> at the end.")] = True,
    sets: Annotated[list[str] | None, _SET_OPT] = None,
) -> None:
    """Start or resume a campaign: run every planned trial not yet done, then ingest it."""
    from overhead.campaign.execute import run_campaign
    from overhead.errors import HostBusy

    campaign = _campaign(campaign_file, sets)
    try:
        result = run_campaign(campaign, raw_root=raw, retries=retries, progress=progress)
    except HostBusy as busy:
        # said, not fought: what was measured is ingested (its verdicts hold: every look is
        # accounted for), and the exit status says the run stopped early
        typer.echo(f"overhead run: {busy}", err=True)
        if ingest:
            _ingest_campaign(campaign, raw)
        raise typer.Exit(3) from None
    typer.echo(f"{campaign.name}: {result.done} trials run now, {result.skipped_done} done "
               f"before, {len(result.failures)} failed, of {result.planned} planned; "
               f"{result.seconds:.1f} s")
    for tid, cause in sorted(result.failures.items()):
        typer.echo(f"  failed {tid}: {cause}")
    if result.failures and not result.interrupted:
        typer.echo(f"a failed trial stays failed when the run resumes: run the same command with "
                   f"--retries {min(retries + 1, 10)} to run the failed ones again")
    if result.interrupted:
        typer.echo("interrupted: run the same command again to resume")
        raise typer.Exit(130)
    if ingest:
        _ingest_campaign(campaign, raw)
    if result.failures:  # recorded and the campaign went on; the exit status still says so
        raise typer.Exit(1)


def _ingest_campaign(campaign, raw: Path | None, include_excluded: bool = False):
    """Ingest a campaign's raw tree into data/tidy/<campaign> (incremental); print counts."""
    from overhead.campaign.ingest import ingest_campaign
    from overhead.paths import DATA, TIDY

    src = (raw or DATA / "raw") / campaign.name
    if not src.is_dir():
        raise InputError(f"{src}: no raw data yet; run `overhead run` first")
    result = ingest_campaign(src, TIDY / campaign.name, include_excluded=include_excluded)
    typer.echo(f"ingested {result.trials_read} new trials ({result.rows} rows) into "
               f"{TIDY / campaign.name} in {result.seconds:.2f} s")
    return result


@app.command("ingest")
def ingest_cmd(
    campaign_file: Annotated[Path, typer.Argument(help="The campaign YAML.")],
    raw: Annotated[Path | None, _RAW_OPT] = None,
    sets: Annotated[list[str] | None, _SET_OPT] = None,
    include_excluded: Annotated[bool, typer.Option(
        "--include-excluded", help="Keep the rows of trials excluded for interference (left "
        "out by default; trials.parquet says what disturbed them).")] = False,
) -> None:
    """Ingest a campaign's raw tree into data/tidy/<campaign> (only new trials are read)."""
    _ingest_campaign(_campaign(campaign_file, sets), raw, include_excluded)


@app.command("check")
def check_cmd(
    campaign_file: Annotated[Path, typer.Argument(help="The campaign YAML.")],
    sets: Annotated[list[str] | None, _SET_OPT] = None,
) -> None:
    """Check a campaign without running it: files, runners and their parameters, the plan."""
    from overhead.campaign.check import check

    result = check(_campaign(campaign_file, sets))
    typer.echo(result.text())
    if not result.ok:
        raise typer.Exit(EXIT_USER)


@app.command("status")
def status_cmd(
    campaign_file: Annotated[Path, typer.Argument(help="The campaign YAML.")],
    raw: Annotated[Path | None, _RAW_OPT] = None,
    analysis: Annotated[bool, typer.Option(
        "--analysis", help="Also test for order effects, report noise flags and the "
                           "verdict of every judged comparison.")] = False,
    sets: Annotated[list[str] | None, _SET_OPT] = None,
) -> None:
    """Print how far a campaign is: trials done, failed, running and left."""
    from overhead.campaign.status import status

    campaign = _campaign(campaign_file, sets)
    typer.echo(status(campaign, raw).text())
    if analysis:
        from overhead.campaign.analysis import report
        from overhead.paths import TIDY
        from overhead.tidy import load

        _ingest_campaign(campaign, raw)
        tidy = TIDY / campaign.name
        import json

        import pandas as pd

        saved = tidy / "plan.json"
        plan = json.loads(saved.read_text()) if saved.exists() else None
        typer.echo(report(load(tidy), pd.read_parquet(tidy / "trials.parquet"), campaign=campaign,
                          plan=plan))


@app.command("compare")
def compare_cmd(
    campaigns: Annotated[list[str], typer.Argument(help="Two or more ingested campaigns (names "
                                                        "under data/tidy); the first is the reference.")],
    baseline: Annotated[str, typer.Option(help="The environment each overhead is measured "
                                               "against.")] = "native",
    benchmark: Annotated[list[str] | None, typer.Option(
        "--benchmark", help="Only this benchmark (repeatable).")] = None,
    quantity: Annotated[list[str] | None, typer.Option(
        "--quantity", help="Compare benchmark:metric (repeatable; default: every quantity the "
                           "campaigns judge).")] = None,
    tidy: Annotated[Path | None, typer.Option(help="The tidy root (default data/tidy).")] = None,
    out: Annotated[Path | None, typer.Option(help="The report's folder (default "
                                                  "figures/compare-<A>-vs-<B>).")] = None,
) -> None:
    """Compare campaigns' overheads: each against its own native, and how each moved."""
    from overhead import compare as cmp

    c, path = cmp.run(campaigns, root=tidy, out=out, baseline=baseline, benchmarks=benchmark,
                      quantities=quantity)
    shown = cmp.table(c)
    if not shown.empty:
        typer.echo(shown.to_string(index=False))
    for paragraph in cmp.summary_words(c):
        typer.echo(paragraph)
    for line in c.refused:
        typer.echo(f"not compared: {line}")
    if not c.differences.empty:
        typer.echo(f"{len(c.differences)} facts or settings differ (see the report)")
    typer.echo(f"report: {path}")


@app.command("history")
def history_cmd(
    campaigns: Annotated[list[str] | None, typer.Argument(
        help="Three or more ingested campaigns (default: every campaign under the tidy root).")] = None,
    by: Annotated[str, typer.Option(help="Order by 'started' (first trial) or a fact of the "
                                         "baseline environment: kernel, docker_version, ...")] = "started",
    baseline: Annotated[str, typer.Option(help="The environment each overhead is measured "
                                               "against.")] = "native",
    benchmark: Annotated[list[str] | None, typer.Option(
        "--benchmark", help="Only this benchmark (repeatable).")] = None,
    quantity: Annotated[list[str] | None, typer.Option(
        "--quantity", help="Follow benchmark:metric (repeatable; default: every judged one).")] = None,
    tidy: Annotated[Path | None, typer.Option(help="The tidy root (default data/tidy).")] = None,
    out: Annotated[Path | None, typer.Option(help="The report's folder (default "
                                                  "figures/history).")] = None,
) -> None:
    """Follow every overhead through campaigns in order and find the steps (ruptures + verdicts)."""
    from overhead import history as hist

    h, path = hist.run(campaigns or None, root=tidy, out=out, by=by, baseline=baseline,
                       benchmarks=benchmark, quantities=quantity)
    typer.echo("campaigns in order: " + ", ".join(f"{n} ({k})" for n, k in h.campaigns))
    for line in hist.step_words(h):
        typer.echo(line)
    typer.echo(f"report: {path}")


def main() -> None:
    """Run the command line (the console-script entry point)."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
