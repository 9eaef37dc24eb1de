"""The values that exist only in the RC25482 authors' spreadsheets, as tidy reference rows.

The authors typed some numbers into spreadsheets and committed them nowhere else: nuttcp
goodput (Fig 2), netperf transaction rates (Fig 3), the fio figures' values (Figs 5-7).
:func:`ibm_spreadsheets` reads them as rows of the measurements table, marked ``tool =
"spreadsheet"``; ingest writes them to ``reference.parquet``.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd

from overhead.errors import DataError
from overhead.schema import frame

__all__ = ["SpreadsheetLayoutError", "ibm_spreadsheets"]


class SpreadsheetLayoutError(DataError):
    """A spreadsheet does not have the layout this module reads; the message names the cell."""


NUTTCP_XLSX = "nuttcp/results/nuttcp.xlsx"
NETPERF_XLSX = "netperf/results/netperf.xlsx"
FIO_XLSX = "fio/results/fio results.xlsx"

# Column labels of the sheets -> (environment, variant), in the names overhead.rc25482.files uses.
_ENVIRONMENTS = {
    "Native": ("native", "default"),
    "Docker": ("docker", "default"),
    "Docker NAT": ("docker", "net=nat"),
    "Docker Host": ("docker", "net=host"),
    "KVM": ("kvm", "default"),
}

# fio results.xlsx row labels -> the fio job of fio/results/{linux,docker}.log whose numbers
# they are (found by matching the Native and Docker cells to those logs; tests/rc25482/test_reference.py
# checks it) and the direction the number measures.
_FIO_JOBS = {
    "Sequential Read": ("seq-read-2", "read"),
    "Sequential Write": ("sequential-fill", "write"),
    "Random Read": ("random-read-16x8", "read"),
    "Random Write": ("random-write-16x8", "write"),
    "Random Mixed": ("mixed-random-rw-32x8", "read+write"),
}


def _load(root: Path, rel: str):
    """Open a workbook with formulas kept (a formula cell is derived, not a typed-in value)."""
    import openpyxl

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "Unknown extension is not supported"
        return openpyxl.load_workbook(root / rel, data_only=False)


def _typed_number(cell) -> bool:
    """Tell whether a cell holds a number typed in by hand (not empty, not text, not a formula)."""
    return cell.data_type == "n" and isinstance(cell.value, (int, float)) and not isinstance(cell.value, bool)


def _raw(value: float | int) -> str:
    """Return the cell's number as text, shortest form that reads back the same ("9348.1319")."""
    return str(value) if isinstance(value, int) else repr(float(value))


def _find(ws, text: str, rel: str):
    """Return the first cell of ``ws`` whose value is ``text``, or raise SpreadsheetLayoutError."""
    for row in ws.iter_rows():
        for cell in row:
            if cell.value == text:
                return cell
    raise SpreadsheetLayoutError(f"{rel}!{ws.title}: no cell reads {text!r}")


def _environment(label: object, where: str) -> tuple[str, str]:
    """Return (environment, variant) of a column label, or raise SpreadsheetLayoutError."""
    try:
        return _ENVIRONMENTS[str(label)]
    except KeyError:
        raise SpreadsheetLayoutError(f"{where}: unknown environment label {label!r}") from None


def _row(benchmark: str, rel: str, ws, cell, env: tuple[str, str], metric: str, value: float,
         unit: str, hib: bool | None, **params) -> dict:
    """Build one tidy row for a spreadsheet cell."""
    return {"benchmark": benchmark, "tool": "spreadsheet", "environment": env[0], "variant": env[1],
            "metric": metric, "value": value, "unit": unit, "higher_is_better": hib,
            "source": f"{rel}!{ws.title}!{cell.coordinate}", "raw": _raw(cell.value),
            "p_origin": "spreadsheet", **params}


def _nuttcp(root: Path) -> list[dict]:
    """Read goodput per environment and direction from nuttcp.xlsx (Mbps typed in; stored as B/s).

    The sheet's "Direction" table has typed-in Mbps rows (C->S, S->C) each followed by a
    formula row (/1000, Gbps), which is derived and skipped. The unlabelled "Connections" table
    further down (and its copy in K:N) says neither what was measured nor its unit: not read.
    """
    ws = _load(root, NUTTCP_XLSX)["Sheet1"]
    head = _find(ws, "Direction", NUTTCP_XLSX)
    labels = {}
    for cell in ws[head.row][head.column:]:
        if cell.value is None:
            break
        labels[cell.column] = _environment(cell.value, f"{NUTTCP_XLSX}!{ws.title}!{cell.coordinate}")
    directions = {"C->S": "client_to_server", "S->C": "server_to_client"}
    rows = []
    r = head.row + 1
    while ws.cell(r, head.column).value in directions:
        direction = directions[ws.cell(r, head.column).value]
        for col, env in labels.items():
            cell = ws.cell(r, col)
            if _typed_number(cell):
                # nuttcp's Mbps are 10^6 bit/s; goodput is stored in bytes per second.
                rows.append(_row("nuttcp", NUTTCP_XLSX, ws, cell, env, "goodput", cell.value * 1e6 / 8,
                                 "B/s", True, p_direction=direction))
        r += 1
    if not rows:
        raise SpreadsheetLayoutError(f"{NUTTCP_XLSX}!{ws.title}: no typed-in goodput below {head.coordinate}")
    return rows


def _netperf(root: Path) -> list[dict]:
    """Read TCP_RR and UDP_RR transactions/s per environment from netperf.xlsx.

    Columns "<env> /s" hold the typed-in rates; the "<env>" columns next to them are formulas
    (1e6 / rate, the latency in us) and are skipped. The Docker NAT rate is empty: no row.
    """
    ws = _load(root, NETPERF_XLSX)["Sheet1"]
    first = _find(ws, "TCP_RR", NETPERF_XLSX)
    header = ws[first.row - 1]
    rate_cols = {}
    for cell in header:
        if isinstance(cell.value, str) and cell.value.endswith(" /s"):
            rate_cols[cell.column] = _environment(cell.value[:-3], f"{NETPERF_XLSX}!{ws.title}!{cell.coordinate}")
    rows = []
    r = first.row
    while ws.cell(r, first.column).value in ("TCP_RR", "UDP_RR"):
        test = ws.cell(r, first.column).value
        for col, env in rate_cols.items():
            cell = ws.cell(r, col)
            if _typed_number(cell):
                rows.append(_row("netperf", NETPERF_XLSX, ws, cell, env, "transaction_rate",
                                 float(cell.value), "tx/s", True, p_test=test))
        r += 1
    if not rows:
        raise SpreadsheetLayoutError(f"{NETPERF_XLSX}!{ws.title}: no typed-in rates")
    return rows


def _fio(root: Path) -> list[dict]:
    """Read the Figs 5-7 values of "fio results.xlsx".

    Sheet1 left ("MB/s"): per row label, the mean bandwidth of each environment with its SD in
    the next column. The numbers are fio's per-interval "bw (KB/s)" avg and stdev divided by
    1000, and fio's KB is 1024 bytes, so B/s = cell * 1000 * 1024 (the SD is fio's variation
    between its sampling intervals inside one run, not between runs). Sheet1 right ("IOPS"):
    IOPS; "Random Mixed" is read + write IOPS. Sheet2 "Random read (QD 128) response time
    (us)": completion-latency percentiles in us (stored in s); its Native and Docker columns
    come from different fio jobs (see data/reference/rc25482.csv), so no job is claimed for them.
    The KVM numbers come from a run that is not in the authors' repository.
    """
    wb = _load(root, FIO_XLSX)
    rows: list[dict] = []
    ws = wb["Sheet1"]
    # Left table: "MB/s" above the environment labels; mean in the label's column, SD next to it.
    unit_cell = _find(ws, "MB/s", FIO_XLSX)
    env_row = unit_cell.row + 1
    envs = {c.column: _environment(c.value, f"{FIO_XLSX}!Sheet1!{c.coordinate}")
            for c in ws[env_row] if c.value is not None and c.column < _find(ws, "IOPS", FIO_XLSX).column - 1}
    label_col = unit_cell.column - 1
    r = env_row + 1
    while isinstance(ws.cell(r, label_col).value, str):
        label = ws.cell(r, label_col).value
        job, direction = _fio_job(label, f"{FIO_XLSX}!Sheet1!{ws.cell(r, label_col).coordinate}")
        for col, env in envs.items():
            mean, sd = ws.cell(r, col), ws.cell(r, col + 1)
            params = {"p_test": label, "p_job": job, "p_direction": direction}
            if _typed_number(mean):
                rows.append(_row("fio", FIO_XLSX, ws, mean, env, "bandwidth_mean",
                                 mean.value * 1000 * 1024, "B/s", True, **params))
            if _typed_number(sd):
                rows.append(_row("fio", FIO_XLSX, ws, sd, env, "bandwidth_sd",
                                 sd.value * 1000 * 1024, "B/s", None, **params))
        r += 1
    # Right table: "IOPS" above the environment labels; test labels one column to the left.
    iops = _find(ws, "IOPS", FIO_XLSX)
    env_row = iops.row + 1
    envs = {c.column: _environment(c.value, f"{FIO_XLSX}!Sheet1!{c.coordinate}")
            for c in ws[env_row] if c.value is not None and c.column >= iops.column}
    r = env_row + 1
    while isinstance(ws.cell(r, iops.column - 1).value, str):
        label = ws.cell(r, iops.column - 1).value
        job, direction = _fio_job(label, f"{FIO_XLSX}!Sheet1!{ws.cell(r, iops.column - 1).coordinate}")
        for col, env in envs.items():
            cell = ws.cell(r, col)
            if _typed_number(cell):
                rows.append(_row("fio", FIO_XLSX, ws, cell, env, "iops", float(cell.value), "op/s", True,
                                 p_test=label, p_job=job, p_direction=direction))
        r += 1
    # Sheet2: percentiles of the completion latency.
    ws = wb["Sheet2"]
    title = ws["A1"].value
    if not isinstance(title, str) or "response time (us)" not in title:
        raise SpreadsheetLayoutError(f"{FIO_XLSX}!Sheet2!A1: expected a '... response time (us)' title, found {title!r}")
    pct = _find(ws, "pct", FIO_XLSX)
    envs = {c.column: _environment(c.value, f"{FIO_XLSX}!Sheet2!{c.coordinate}")
            for c in ws[pct.row] if c.value is not None and c.column > pct.column}
    test = title.replace(" response time (us)", "")
    r = pct.row + 1
    while _typed_number(ws.cell(r, pct.column)):
        percentile = float(ws.cell(r, pct.column).value)
        for col, env in envs.items():
            cell = ws.cell(r, col)
            if _typed_number(cell):
                rows.append(_row("fio", FIO_XLSX, ws, cell, env, "completion_latency_percentile",
                                 cell.value * 1e-6, "s", False, p_test=test, p_direction="read",
                                 p_percentile=percentile))
        r += 1
    return rows


def _fio_job(label: str, where: str) -> tuple[str, str]:
    """Return the fio job and direction of a fio results.xlsx row label."""
    try:
        return _FIO_JOBS[label]
    except KeyError:
        raise SpreadsheetLayoutError(f"{where}: unknown fio row label {label!r}") from None


def ibm_spreadsheets(ibm_root: str | Path) -> pd.DataFrame:
    """Read the values that exist only in the authors' spreadsheets, as tidy measurement rows.

    Reads nuttcp/results/nuttcp.xlsx (goodput, B/s, per environment and direction),
    netperf/results/netperf.xlsx (TCP_RR/UDP_RR transaction_rate, tx/s) and
    "fio/results/fio results.xlsx" (Figs 5-7: bandwidth_mean/bandwidth_sd in B/s, iops in op/s,
    completion_latency_percentile in s). Only numbers typed into cells are read; formula cells
    (unit conversions, 1e6/rate) are derived and skipped, and an empty cell gives no row.

    Parameters
    ----------
    ibm_root : str or path
        The root of the authors' repository (kvm-docker-comparison).

    Returns
    -------
    pandas.DataFrame
        Conformed measurement rows. Every row has tool "spreadsheet", p_origin "spreadsheet",
        source "<relative path>!<sheet>!<cell>" and raw = the cell's number as text;
        environment is native/docker/kvm and variant "net=nat" where the sheet says Docker NAT,
        "net=host" where it says Docker Host, "default" otherwise. A workbook that is not in the tree (a partial checkout) gives
        no rows.

    Raises
    ------
    SpreadsheetLayoutError
        When a workbook does not have the layout described here.
    """
    root = Path(ibm_root)
    rows = []
    for read, rel in ((_nuttcp, NUTTCP_XLSX), (_netperf, NETPERF_XLSX), (_fio, FIO_XLSX)):
        if (root / rel).is_file():
            rows += read(root)
    return frame(rows)
