"""The ``overhead`` command line.

Heavy libraries (pandas, pyarrow) are imported inside the commands, so that a no-op run such
as a warm ``ingest-ibm`` answers quickly. A ParseError is printed as ``path:line: message``
without a traceback and exits with status 2.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Measure what virtualization costs, and rebuild IBM RC25482 from raw data.",
)

EXIT_PARSE = 2


def _fail(message: str, code: int = EXIT_PARSE) -> None:
    """Print ``message`` to stderr and exit with ``code``."""
    typer.echo(message, err=True)
    raise typer.Exit(code)


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
) -> None:
    """Parse raw tool output and print one JSON object per tidy row."""
    from overhead import parsers

    if tool != "auto" and tool not in parsers.PARSERS:
        _fail(str(parsers.UnknownTool(tool)))
    out = sys.stdout
    for path in files:
        try:
            text = parsers.read_text(path)
        except FileNotFoundError:
            _fail(f"{path}: no such file")
        except parsers.ParseError as exc:
            _fail(str(exc))
        name = tool
        try:
            if tool == "auto":
                name = parsers.detect(text)
                typer.echo(f"{path}: detected {name}", err=True)
            df = parsers.parse_text(name, text, str(path))
        except parsers.ParseError as exc:
            if exc.path == "<input>":
                exc.path = str(path)
            _fail(str(exc))
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

    A failed trial (the tool's exit status was not 0) is reported on stderr with the end of its
    stderr; the command then exits 1 after printing the rows of the others.
    """
    from overhead import runners

    failed = 0
    for path in trials:
        if not (path / "meta").is_file():
            _fail(f"{path}: not a trial directory (no meta file)")
        try:
            trial = runners.read_trial(path)
        except runners.ParseError as exc:
            _fail(str(exc))
        if not trial.ok:
            failed += 1
            tail = trial.stderr.strip().splitlines()[-3:]
            typer.echo(f"{path}: {trial.meta['tool']} exited with status {trial.exit_status}: "
                       + " / ".join(tail), err=True)
            continue
        _write_rows(trial.measurements, sys.stdout)
    if failed:
        raise typer.Exit(1)


@app.command("ingest-ibm")
def ingest_ibm_cmd(
    path: Annotated[Path, typer.Argument(help="Root of thewmf/kvm-docker-comparison.")],
    out: Annotated[Path, typer.Option("--out", help="Output folder for the Parquet tables.")] = Path(
        "data/tidy/ibm"
    ),
    force: Annotated[bool, typer.Option(help="Re-parse everything, ignoring the cache.")] = False,
) -> None:
    """Ingest the authors' raw results into measurements/provenance/reference Parquet tables."""
    from overhead import ingest

    if not path.is_dir():
        _fail(
            f"{path}: not a folder. Get the authors' data with\n"
            "  git clone https://github.com/thewmf/kvm-docker-comparison "
            "data/external/kvm-docker-comparison",
            1,
        )
    try:
        result = ingest.ingest_ibm(path, out, force=force)
    except ingest.ParseError as exc:
        _fail(str(exc))
    typer.echo(result.describe())


@app.command("summary")
def summary_cmd(
    tidy: Annotated[Path, typer.Argument(help="Folder with measurements.parquet.")] = Path(
        "data/tidy/ibm"
    ),
) -> None:
    """Print rows per benchmark and environment of an ingested tidy folder."""
    from overhead import ingest

    table = tidy / "measurements.parquet"
    if not table.exists():
        _fail(f"{table}: not found; run 'overhead ingest-ibm' first", 1)
    typer.echo(ingest.summary_table(table))


@app.command("reproduce")
def reproduce_cmd(
    out: Annotated[Path | None, typer.Option(help="Output folder (default figures/rc25482).")] = None,
    tidy: Annotated[Path | None, typer.Option(help="Ingest folder (default data/tidy/ibm).")] = None,
    ibm_data: Annotated[Path | None, typer.Option("--ibm", help="The authors' tree.")] = None,
    reference: Annotated[Path | None, typer.Option(help="Folder with paper_numbers.csv.")] = None,
    workers: Annotated[int, typer.Option(help="Notebooks run at once.")] = 2,
) -> None:
    """Rebuild every table and figure of RC25482: ingest, then run the notebooks with papermill."""
    import time

    from overhead.rc25482 import DataNotFound
    from overhead.rc25482.run import reproduce

    started = time.perf_counter()
    try:
        runs = reproduce(out, tidy, ibm_data, reference, workers=workers)
    except DataNotFound as exc:
        _fail(str(exc), 1)
    for r in runs:
        status = "ok" if r.error is None else f"FAILED: {r.error.splitlines()[0][:200]}"
        typer.echo(f"{r.name:<28} {r.seconds:6.1f} s  {status}")
    typer.echo(f"total {time.perf_counter() - started:.1f} s")
    if any(r.error for r in runs):
        raise typer.Exit(1)


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
