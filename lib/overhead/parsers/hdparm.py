"""``hdparm -t`` / ``-T`` (and ``--direct``) read timings.

Layout (hdparm 9.x; one block per device named on the command line)::

    /dev/loop0:
     Timing cached reads:   20756 MB in  2.00 seconds = 10391.64 MB/sec
     Timing buffered disk reads: 256 MB in  0.55 seconds = 465.75 MB/sec

With ``--direct`` the labels are "Timing O_DIRECT cached reads" and "Timing O_DIRECT disk
reads"; with ``--offset N`` the disk label carries "(offset N GB)". Web pages often flatten the
output into one line ("Timing cached reads: 11980 MB in 2.00 seconds = 5992.56 MB/sec Timing
buffered disk reads: ..."), possibly after the device name; every timing found on a line is
read, so both layouts parse.

Units, from hdparm.c: hdparm reads in blocks of TIMING_BUF_MB = 2 "MB" of
``TIMING_BUF_MB * 1024 * 1024`` bytes, so its MB is 2^20 bytes (MiB) and its MB/sec is MiB/s;
below 1 MB/s it prints kB/sec = MB/sec * 1024, i.e. KiB/s. The offset's GB is 2^30 bytes.

Rows per timing: ``<kind>_read_rate`` (B/s, higher is better), ``<kind>_read_bytes`` (B read)
and ``<kind>_read_time`` (s taken), where kind is ``cached`` (-T), ``buffered`` (-t) or
``direct`` (-t --direct, "O_DIRECT disk reads"). Parameters: p_device (from the "/dev/x:"
line, when printed), p_o_direct (True for the O_DIRECT variants), p_offset (bytes, from
"(offset N GB)"). Repeated blocks for one device are numbered with ``trial`` (1-based, per
device and kind).

A timing label without its result (hdparm prints the label first; an error message such as
"read() hit EOF - device too small" or the end of the file may follow it) gives no row; when
no timing of the file has a result, the run failed: RunFailed (``path:line: the run did not
finish: ...``) naming the first such label's line and quoting it. Text without any
"Timing ... reads" line raises ParseError, unless it is hdparm's own failure to open the
device (``/dev/vda: Operation not permitted``, as hdparm prints it without the privilege to
read the device; also "Permission denied", "No such file or directory"): RunFailed quoting it.
Text without any "Timing ... reads" line otherwise raises ParseError (without a line: none is wrong), as does a result
that starts with a number but is malformed.
"""

from __future__ import annotations

import re

import pandas as pd

from overhead.parsers._common import ParseError, Rows, RunFailed, end_cut_mid_line, number, numbered

TOOL = "hdparm"
BENCHMARK = "hdparm"

_MIB = 1024 * 1024
_LABEL = re.compile(
    r"Timing (?P<direct>O_DIRECT )?(?P<kind>cached|buffered disk|disk) reads"
    r"(?: \(offset (?P<offset>\d+) GB\))?:"
)
_RESULT = re.compile(
    r"^\s*(?P<mb>\d+) MB in\s+(?P<secs>\d+\.?\d*) seconds\s*=\s*(?P<rate>\d+\.?\d*) (?P<unit>[MmKk])B/sec"
)
_DEVICE = re.compile(r"^\s*(?P<dev>/\S+?):(?:\s*$|\s+(?=Timing ))")


#: hdparm's own failure to open a device ("/dev/vda: Operation not permitted", perror of the
#: device name): the run failed before any timing.
_REFUSED = re.compile(r"^\s*/dev/\S+: (?:Operation not permitted|Permission denied|No such file or "
                      r"directory|No such device(?: or address)?)\s*$")


def detect(text: str) -> float:
    """Tell whether ``text`` is hdparm timing output.

    Returns a confidence from 0 (not hdparm output) to 1.
    """
    head = text[:20000]
    lines = [line for line in head.splitlines() if line.strip()]
    if lines and all(_REFUSED.match(line) for line in lines):
        return 0.5  # only hdparm's perror of a device: a failed hdparm run, the likeliest
    if _LABEL.search(head):
        # a timing label without any result is a failed run of hdparm, still its output
        return 1.0 if "seconds =" in head else 0.8
    return 0.0


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse hdparm timing output into tidy rows.

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    ParseError
        When no timing is found or a timing result is malformed.
    """
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    device: str | None = None
    seen = False
    failed: tuple[int, str] | None = None  # the first label without its result
    trials: dict[tuple, int] = {}
    for lineno, line in numbered(text):
        d = _DEVICE.match(line)
        if d:
            device = d.group("dev")
        labels = list(_LABEL.finditer(line))
        for i, m in enumerate(labels):
            seen = True
            end = labels[i + 1].start() if i + 1 < len(labels) else len(line)
            rest = line[m.end():end]
            r = _RESULT.match(rest)
            if not r:
                if rest.strip()[:1].isdigit():
                    raise ParseError(path, lineno, f"expected '<n> MB in <s> seconds = <r> MB/sec', found {rest.strip()!r}")
                if failed is None:
                    said = " ".join((m.group(0) + " " + rest.strip()).split())
                    failed = (lineno, said if rest.strip() else f"{said} (no result after it)")
                continue  # label only: the timing failed or the output was cut here
            direct = bool(m.group("direct"))
            kind = {"cached": "cached", "buffered disk": "buffered", "disk": "direct"}[m.group("kind")]
            if kind == "direct" and not direct:
                raise ParseError(path, lineno, f"unexpected timing label {m.group(0)!r}")
            mb = number(r.group("mb"), path, lineno, "MB read")
            secs = number(r.group("secs"), path, lineno, "seconds")
            rate = number(r.group("rate"), path, lineno, "rate")
            scale = _MIB if r.group("unit") in "Mm" else 1024
            key = (device, kind, direct)
            trials[key] = trials.get(key, 0) + 1
            params: dict = {"p_o_direct": direct}
            if device is not None:
                params["p_device"] = device
            if m.group("offset") is not None:
                params["p_offset"] = int(m.group("offset")) * 1024**3
            params["trial"] = trials[key]
            unit_text = r.group("unit") + "B/sec"
            rows.add(lineno, f"{kind}_read_rate", rate * scale, "B/s", True,
                     f"{r.group('rate')} {unit_text}", params)
            rows.add(lineno, f"{kind}_read_bytes", mb * _MIB, "B", None, f"{r.group('mb')} MB", params)
            rows.add(lineno, f"{kind}_read_time", secs, "s", None, f"{r.group('secs')} seconds", params)
    if not len(rows) and failed is not None:
        raise RunFailed(path, *failed)
    if not seen:
        refused = next(((n, line.strip()) for n, line in numbered(text) if _REFUSED.match(line)), None)
        if refused is not None:
            raise RunFailed(path, *refused)
        raise ParseError(path, None, "no hdparm timing found (no 'Timing ... reads:' line)")
    df = rows.frame()
    cut = end_cut_mid_line(df, text, path)  # a last line cut while it was written
    return df if cut is None else cut
