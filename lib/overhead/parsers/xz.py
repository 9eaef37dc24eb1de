"""Multi-threaded compression (xz, pixz, pxz) timed by GNU time (``/usr/bin/time -v``).

One file may hold several timed runs. Each is GNU time's verbose report (GNU time 1.9, Debian
package ``time``), written to stderr after the command finished::

    Command exited with non-zero status 1            (only when the command failed)
    Command terminated by signal 9                   (only when a signal killed it)
        Command being timed: "xz -T2 -k -c /tmp/x"
        User time (seconds): 15.57
        System time (seconds): 0.15
        Percent of CPU this job got: 169%
        Elapsed (wall clock) time (h:mm:ss or m:ss): 0:09.25
        ...
        Maximum resident set size (kbytes): 227784
        ...
        Exit status: 0

Rows per run (``trial`` = 1-based run number in the file): ``elapsed_time``, ``user_time``,
``system_time`` (s), ``cpu_percent`` (%, can exceed 100 with several threads; "?%" gives no
row), ``max_rss`` (B; GNU time's "kbytes" are ru_maxrss in KiB on Linux, so x 1024),
``major_page_faults``, ``minor_page_faults``, ``voluntary_context_switches``,
``involuntary_context_switches`` (count). The "Average ... size" lines are always 0 on Linux
(the kernel does not fill those rusage fields) and are not read.

``throughput`` (B/s = input bytes / elapsed time) and ``p_input_bytes`` appear only when the
input size is known, because GNU time does not print it. It comes from the keyword argument
``parse(text, path, input_bytes=N)`` (applies to every run) or, overriding it for one run, from
a sidecar line ``input_bytes=<N>`` that our runner writes just before that run's report (the
line must be exactly that: the key, "=", a whole number of bytes). No throughput is computed for
a run that failed (non-zero exit status or killed by a signal).

**Outcomes** (the four of :mod:`overhead.parsers`): a report whose command exited 0 and was not
killed is a finished run. A run that failed (GNU time's "Command terminated by signal N" or
"Command exited with non-zero status N" above its report) measured no compression: its
report's rows are not kept. When no run in the file finished, that is :class:`RunFailed`
naming the failure's line and quoting the compressor's own message when it printed one ("xz:
/nonexistent: No such file or directory"); when other runs finished, their rows are returned
marked cut short with the failure. A report cut off before its "Exit status" line is the same:
RunFailed alone, cut short after finished runs.

Parameters: p_command (as GNU time quotes it: arguments joined by spaces), p_compressor
(xz, pixz or pxz: the first word of the command whose basename is one of them, so wrappers such
as ``numactl ... xz`` or ``taskset -c 0,1 pixz`` work; absent for other commands), p_threads
(xz/pxz ``-T N``/``-TN``/``--threads=N``, pixz ``-p N``; 0 is xz's "as many as there are cores"
and is kept as printed), p_level (``-0`` .. ``-9``), p_extreme (True for ``-e``/``--extreme``),
p_mode ("compress" or "decompress" for ``-d``/``--decompress``/unxz/xzcat), p_exit_status (GNU
time's "Exit status"; a failure is reported, not hidden), p_signal (when GNU time said "Command
terminated by signal N"), p_input_bytes. A report cut off before its "Exit status" line is
dropped: without it a failure could pass for a success. Lines the compressor itself printed
(e.g. "xz: x: No such file or directory") are skipped.
"""

from __future__ import annotations

import os
import re
import shlex

import pandas as pd

from overhead.parsers._common import (
    ParseError,
    Rows,
    RunFailed,
    cut_short,
    integer,
    number,
    numbered,
)

TOOL = "xz"
BENCHMARK = "compression"

_COMPRESSORS = ("xz", "pixz", "pxz", "unxz", "xzcat")
_CMD = re.compile(r'^Command being timed: "(.*)"$')
_EXITED = re.compile(r"^Command exited with non-zero status (\d+)$")
_SIGNAL = re.compile(r"^Command terminated by signal (\d+)$")
_SIDECAR = re.compile(r"^input_bytes=(\S*)$")
# whole numbers are checked on the line that prints them: one too large for the 64-bit parameter
# column is an error there, not on the first row of its report
_LIMIT = 2**63

# label -> (metric, unit, higher_is_better, kind)
_FIELDS = {
    "User time (seconds)": ("user_time", "s", False, "seconds"),
    "System time (seconds)": ("system_time", "s", False, "seconds"),
    "Percent of CPU this job got": ("cpu_percent", "%", None, "percent"),
    "Elapsed (wall clock) time (h:mm:ss or m:ss)": ("elapsed_time", "s", False, "clock"),
    "Maximum resident set size (kbytes)": ("max_rss", "B", False, "kbytes"),
    "Major (requiring I/O) page faults": ("major_page_faults", "count", False, "count"),
    "Minor (reclaiming a frame) page faults": ("minor_page_faults", "count", False, "count"),
    "Voluntary context switches": ("voluntary_context_switches", "count", None, "count"),
    "Involuntary context switches": ("involuntary_context_switches", "count", None, "count"),
}
_LABELS = (*_FIELDS, "Exit status")


def detect(text: str) -> float:
    """Tell whether ``text`` is GNU ``time -v`` output of a compression run.

    Returns a confidence from 0 (not such output) to 1; 0.5 for a ``time -v`` report of
    another command.
    """
    head = text[:20000]
    if "Command being timed:" not in head or "Elapsed (wall clock) time" not in head:
        return 0.0
    m = re.search(r'Command being timed: "(.*)"', head)
    if m and _compressor(_words(m.group(1)))[0] is not None:
        return 1.0
    return 0.5


def _words(command: str) -> list[str]:
    """Split a command line like a shell (on blanks when its quoting is broken)."""
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def _compressor(words: list[str]) -> tuple[str | None, list[str]]:
    """Find the compressor's name and the arguments after it, or (None, [])."""
    for i, w in enumerate(words):
        if os.path.basename(w) in _COMPRESSORS:
            return os.path.basename(w), words[i + 1:]
    return None, []


def command_params(command: str) -> dict:
    """Read the parameters the compressor's command line states (see the module docstring).

    Parameters
    ----------
    command : str
        The command line GNU time quotes.

    Returns
    -------
    dict
        p_compressor, p_mode and, when stated, p_threads, p_level, p_extreme; empty when the
        command runs no known compressor.
    """
    name, args = _compressor(_words(command))
    if name is None:
        return {}
    params: dict = {"p_compressor": "xz" if name in ("unxz", "xzcat") else name,
                    "p_mode": "decompress" if name in ("unxz", "xzcat") else "compress"}
    thread_flag = "p" if name == "pixz" else "T"
    # short options that take a value: xz/pxz -C check, -F format, -M memlimit, -S suffix,
    # -T threads; pixz -p processes, -i/-o files, -f fraction
    value_flags = "piof" if name == "pixz" else "CFMST"
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            break
        if a.startswith("--"):
            key, _, val = a[2:].partition("=")
            if key == "threads" and name != "pixz":
                if not val and i < len(args):
                    val, i = args[i], i + 1
                if val.isdigit():
                    params["p_threads"] = int(val)
            elif key in ("decompress", "uncompress"):
                params["p_mode"] = "decompress"
            elif key == "extreme":
                params["p_extreme"] = True
            continue
        if not a.startswith("-") or a == "-":
            continue
        flags = a[1:]
        j = 0
        while j < len(flags):
            c = flags[j]
            j += 1
            if c in value_flags:  # the rest of the word, or the next word, is its value
                val = flags[j:]
                if not val and i < len(args):
                    val, i = args[i], i + 1
                if c == thread_flag and val.isdigit():
                    params["p_threads"] = int(val)
                break
            if c.isdigit():
                params["p_level"] = int(c)
            elif c == "d":
                params["p_mode"] = "decompress"
            elif c == "e":
                params["p_extreme"] = True
    return params


def _whole(token: str, path: str, lineno: int, what: str) -> float:
    """Read a whole number printed by GNU time, as a float (ParseError if it is not one)."""
    if not token.isdigit():
        raise ParseError(path, lineno, f"{what}: expected a whole number, found {token!r}")
    return number(token, path, lineno, what)


def _clock(token: str, path: str, lineno: int) -> float:
    """Read GNU time's elapsed time, ``m:ss.ss`` or ``h:mm:ss``, in seconds."""
    parts = token.split(":")
    if len(parts) not in (2, 3):
        raise ParseError(path, lineno, f"elapsed time: expected h:mm:ss or m:ss, found {token!r}")
    total = 0.0
    for p in parts[:-1]:
        total = total * 60 + _whole(p, path, lineno, "elapsed time")
    value = total * 60 + number(parts[-1], path, lineno, "elapsed time")
    if value == float("inf"):
        raise ParseError(path, lineno, f"elapsed time: {token!r} is out of range")
    return value


def parse(text: str, path: str = "<string>", input_bytes: int | None = None) -> pd.DataFrame:
    """Parse GNU ``time -v`` reports of compression runs into tidy rows.

    Parameters
    ----------
    text : str
        The whole file.
    path : str
        Its name, used in ``source`` and in errors.
    input_bytes : int, optional
        The size of the compressed input in bytes, when known (a sidecar ``input_bytes=<N>``
        line before a report overrides it for that report).

    Returns
    -------
    pandas.DataFrame
        Conformed tidy rows (see the module docstring).

    Raises
    ------
    ParseError
        When no complete report is found, a known field is malformed, or a whole-number
        parameter is out of the 64-bit range.
    """
    if input_bytes is not None and (isinstance(input_bytes, bool) or int(input_bytes) != input_bytes
                                    or input_bytes < 0):
        raise ParseError(path, None, f"input_bytes must be a whole number of bytes, not {input_bytes!r}")
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    pending: dict = {}  # what was said before the next report: sidecar, non-zero status, signal
    failures: list[tuple[int, str]] = []  # (line, what) of each run that failed
    said: tuple[int, str] | None = None  # the last line the compressor printed itself
    run: dict | None = None
    trial = 0
    seen_cmd = False

    for lineno, line in numbered(text):
        stripped = line.strip()
        m = _SIDECAR.match(stripped)
        if m:
            if not m.group(1).isdigit():
                raise ParseError(path, lineno, "sidecar line: expected input_bytes=<whole number "
                                 f"of bytes>, found {stripped!r}")
            pending["input_bytes"] = (integer(m.group(1), path, lineno, "input_bytes", limit=_LIMIT), lineno)
            continue
        m = _EXITED.match(stripped)
        if m:
            pending["status"] = integer(m.group(1), path, lineno, "exit status", limit=_LIMIT)
            pending["failed"] = (lineno, stripped)
            continue
        m = _SIGNAL.match(stripped)
        if m:
            pending["signal"] = integer(m.group(1), path, lineno, "signal", limit=_LIMIT)
            pending["failed"] = (lineno, stripped)
            continue
        m = _CMD.match(stripped)
        if m:
            seen_cmd = True
            trial += 1
            threads = command_params(m.group(1)).get("p_threads")
            if threads is not None:  # checked here, on the line that states it
                integer(threads, path, lineno, "threads", limit=_LIMIT)
            run = {"trial": trial, "command": m.group(1), "rows": [], "pending": pending,
                   "line": lineno, "said": said}
            pending, said = {}, None
            continue
        if stripped.startswith("Command being timed:"):
            raise ParseError(path, lineno, f"malformed 'Command being timed' line: {stripped!r}")
        if run is None:
            if stripped:
                said = (lineno, stripped)  # the compressor's own message, before GNU time's
            continue
        label = next((k for k in _LABELS if stripped.startswith(k + ":")), None)
        if label is None:
            continue
        token = stripped[len(label) + 1:].strip()
        if label == "Exit status":
            status = integer(token, path, lineno, "Exit status", limit=_LIMIT)
            failure = _failure(run, status, lineno)
            if failure is None:
                _finish(rows, run, status, input_bytes)
            else:
                failures.append(failure)
            run = None
            continue
        metric, unit, hib, kind = _FIELDS[label]
        if kind == "percent":
            if token == "?%":
                continue
            if not token.endswith("%"):
                raise ParseError(path, lineno, f"{label}: expected a percentage, found {token!r}")
            value = number(token[:-1], path, lineno, label)
        elif kind == "clock":
            value = _clock(token, path, lineno)
        elif kind == "kbytes":
            value = _whole(token, path, lineno, label) * 1024.0
        elif kind == "count":
            value = _whole(token, path, lineno, label)
        else:
            value = number(token, path, lineno, label)
        raw = f"{token} s" if kind == "seconds" else f"{token} kbytes" if kind == "kbytes" else token
        run["rows"].append((lineno, metric, value, unit, hib, raw))
    if not seen_cmd:
        raise ParseError(path, None, "no GNU time -v report found (no 'Command being timed:' line)")
    if run is not None:
        failures.append((run["line"], f"the GNU time -v report of {run['command']!r} is cut off "
                         "before its 'Exit status' line"))
    if not len(rows):
        line, what = failures[0]  # a run begun and not finished, or failed
        raise RunFailed(path, line, what)
    df = rows.frame()
    if failures:
        line, what = failures[0]
        more = f" (and {len(failures) - 1} more failed run{'s' if len(failures) > 2 else ''})" \
            if len(failures) > 1 else ""
        return cut_short(df, path, line, what + more)
    return df


def _failure(run: dict, status: int, exit_line: int) -> tuple[int, str] | None:
    """Say why a complete report's run failed, as (line, what); None when it finished.

    A signal ("Command terminated by signal 9": GNU time still prints "Exit status: 0") or a
    non-zero status; the compressor's own message printed before GNU time's report is quoted.
    """
    pend = run["pending"]
    if "signal" not in pend and status == 0:
        return None
    line, said = pend.get("failed", (exit_line, f"Exit status: {status}"))
    what = f"{run['command']!r}: {said}"
    if run["said"] is not None:
        line, what = run["said"][0], f"{run['said'][1]} ({run['command']!r}: {said})"
    return line, what


def _finish(rows: Rows, run: dict, status: int, input_bytes: int | None) -> None:
    """Add the rows of one complete report, with its parameters and the derived throughput."""
    pend = run["pending"]
    params = {"p_command": run["command"], **command_params(run["command"]), "p_exit_status": status}
    if "signal" in pend:
        params["p_signal"] = pend["signal"]
    nbytes, bytes_line = (pend["input_bytes"] if "input_bytes" in pend
                          else (int(input_bytes), None) if input_bytes is not None else (None, None))
    if nbytes is not None:
        params["p_input_bytes"] = nbytes
    params["trial"] = run["trial"]
    for row in run["rows"]:
        rows.add(*row, params)
    elapsed = next((r for r in run["rows"] if r[1] == "elapsed_time"), None)
    failed = status != 0 or "signal" in pend
    if nbytes is not None and elapsed is not None and elapsed[2] > 0 and not failed:
        where = elapsed[0] if bytes_line is None else bytes_line
        rows.add(where, "throughput", nbytes / elapsed[2], "B/s", True,
                 f"{nbytes} B / {elapsed[5]}", params)
