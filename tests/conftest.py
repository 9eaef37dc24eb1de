"""Shared test fixtures: where the authors' reference data and our tool fixtures live."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from pathlib import Path

import pytest

from overhead.errors import DataNotFound
from overhead.rc25482 import data as ibm_data

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"


def _find_tree() -> Path | None:
    """The authors' tree where overhead.rc25482.data finds it, or None."""
    try:
        return ibm_data.find_tree()
    except DataNotFound:
        return None


# The authors' raw data is read in place (see overhead.rc25482.data for where it is looked for).
IBM = _find_tree()
# The folder the tree is in: this project's CI has ../shared/reference, which also holds the
# reference curator's files (README.md, paper_numbers.csv) that some cross-checks read.
REFERENCE = IBM.parent if IBM else ROOT.parent / "shared" / "reference"


def _require(path: Path | None, what: str) -> None:
    """Fail loudly (not skip) when reference data is missing, unless told it may be."""
    if path is not None and path.exists():
        return
    msg = (f"{what} not found (looked at {path}); set OVERHEAD_REFERENCE to the folder holding "
           "kvm-docker-comparison/, run scripts/get-ibm-data.sh, or set "
           "OVERHEAD_ALLOW_MISSING_REFERENCE=1 to skip these tests")
    if os.environ.get("OVERHEAD_ALLOW_MISSING_REFERENCE") == "1" and os.environ.get("CI") != "true":
        pytest.skip(msg)
    pytest.fail(msg)


@pytest.fixture(scope="session")
def ibm() -> Path:
    """Root of the authors' repository (thewmf/kvm-docker-comparison)."""
    _require(IBM, "the authors' raw data (kvm-docker-comparison)")
    return IBM


@pytest.fixture(scope="session")
def ibm_tidy(ibm, tmp_path_factory) -> Path:
    """The authors' data ingested once per test process, into a private temporary folder.

    Not into the checkout's data/tidy/ibm: two xdist workers ingesting into one folder at the
    same time would race on swapping its monitor/ directory."""
    from overhead.rc25482 import prepare

    return prepare(ibm, tmp_path_factory.mktemp("tidy-ibm"))


@pytest.fixture(scope="session")
def history(ibm) -> Path:
    """The authors' deleted or overwritten files (kvm-docker-comparison-history/), beside the tree."""
    path = ibm_data.find_history(ibm)
    _require(path, "the authors' history files (kvm-docker-comparison-history)")
    return path


@pytest.fixture(scope="session")
def curator() -> Path:
    """The reference curator's folder (README.md with the Table I values, paper_numbers.csv):
    independent cross-checks of what data/reference/rc25482.csv says."""
    _require(REFERENCE / "paper_numbers.csv", "the curator's paper_numbers.csv")
    return REFERENCE


@pytest.fixture(scope="session")
def fixtures() -> Path:
    """tests/fixtures, where genuine outputs produced on this machine are kept."""
    return FIXTURES


def value(df, metric: str, **where) -> float:
    """The single value of ``metric`` among rows matching ``where`` (p_ columns)."""
    sel = df[df.metric == metric]
    for k, v in where.items():
        sel = sel[sel[k] == v]
    assert len(sel) == 1, (metric, where, len(sel))
    return float(sel.value.iloc[0])


def unavailable(why: str) -> None:
    """Skip a test whose tool or service is missing here; fail it under CI=true (no hiding)."""
    if os.environ.get("CI") == "true":
        pytest.fail(why)
    pytest.skip(why)


def require(*tools: str, root: bool = False) -> None:
    """Skip (fail under CI=true) where a tool is not installed or root is needed and absent."""
    import shutil

    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        unavailable(f"not installed: {', '.join(missing)}")
    if root and os.geteuid() != 0:
        unavailable("needs root (loop devices, mount, the block devices)")


def papermill_cli(src, dst, *, timeout: float = 1800, **params) -> subprocess.CompletedProcess:
    """Run papermill's own command line as a user types it, from the checkout's root.

    ``papermill SRC DST -p name value ...``: no ``-k``, no ``--language`` (the notebook's own
    metadata names the kernel). Values are written as a user would type them (papermill reads
    ``True``, ``None`` and numbers as such). A non-zero exit fails the test with papermill's
    stderr.
    """
    import sys

    argv = [str(Path(sys.executable).parent / "papermill"), str(src), str(dst)]
    for name, val in params.items():
        if isinstance(val, dict):  # a mapping: papermill's -y, YAML as a user types it
            import json

            argv += ["-y", f"{name}: {json.dumps(val)}"]
        else:
            argv += ["-p", name, str(val)]
    r = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{' '.join(argv)} -> exit {r.returncode}:\n{r.stderr[-4000:]}"
    return r


#: A campaign a test runs while the other pytest worker runs beside it would see that worker's
#: CPU time outside its trials, and flag and re-run them (the campaign's ``isolation``). Tests
#: that are not about isolation turn the judgement off with this line (a share of 1 of the
#: host's CPU time is never exceeded); pausing and placement stay on. The isolation test
#: itself (tests/hosts/test_isolation_hog.py) runs alone, after the parallel suite (make test).
SHARED_MACHINE = "isolation: {outside: 1, steal: 1}\n"
#: The same as the campaign notebook's ``isolation`` parameter (an override).
SHARED_ISOLATION = {"outside": 1, "steal": 1}


def shared_machine(campaign):
    """Return ``campaign`` with interference judging off (see :data:`SHARED_MACHINE`)."""
    from overhead.campaign.inventory import Isolation

    return campaign.model_copy(update={"isolation": Isolation(outside=1, steal=1)})


def free_ports(n: int) -> list[int]:
    """n distinct free TCP ports on loopback, for servers a live tool test starts itself.

    All n sockets are held open together before any is closed, so the kernel cannot hand the
    same port out twice (two separate calls can, and did: nuttcp then refused ctlport == data port).
    """
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def free_port() -> int:
    """A free TCP port on loopback, for a server a live tool test starts itself."""
    return free_ports(1)[0]


def wait_for_port(port: int, server, timeout: float = 10.0) -> None:
    """Block until something accepts TCP connections on 127.0.0.1:port, or fail the test.

    Fails at once if the server process has already exited (its port was taken, say)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if server.poll() is not None:
                pytest.fail(f"server {server.args!r} exited with {server.returncode} before listening on {port}")
            if time.monotonic() > deadline:
                pytest.fail(f"nothing listened on 127.0.0.1:{port} within {timeout} s")
            time.sleep(0.05)


@contextlib.contextmanager
def serving(argv: list[str], port: int, *, cwd=None, stop: list[str] | None = None):
    """Run a server for a live tool test: start ``argv``, wait until it listens on
    127.0.0.1:``port``, yield the process; afterwards run ``stop`` (a shutdown command) if
    given, else terminate it, and kill it if it is still there 10 s later."""
    server = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, server)
        yield server
    finally:
        if stop:
            subprocess.run(stop, capture_output=True, timeout=10)
        stop_process(server, terminate=not stop)


def stop_process(proc: subprocess.Popen, *, terminate: bool = True, timeout: float = 10) -> None:
    """Stop a server process: SIGTERM (unless it was already asked to shut down), then SIGKILL
    if it has not exited ``timeout`` seconds later."""
    if terminate:
        proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def netserver(port: int):
    """netperf's netserver on 127.0.0.1:port, in the foreground (-D)."""
    return serving(["netserver", "-D", "-L", "127.0.0.1", "-p", str(port)], port)


def nuttcp_server(ctl_port: int):
    """nuttcp's server, not forking, listening for control connections on ctl_port."""
    return serving(["nuttcp", "-S", "--nofork", f"-P{ctl_port}"], ctl_port)


def redis_server(port: int, workdir, *extra: str):
    """A throw-away redis-server on 127.0.0.1:port: no persistence, files in workdir; ``extra``
    options follow (``--maxmemory 1``)."""
    return serving(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                    "--appendonly", "no", "--dir", str(workdir), "--daemonize", "no", *extra], port,
                   stop=["redis-cli", "-p", str(port), "shutdown", "nosave"])


def pytest_sessionfinish(session):
    """Stop the local hosts at the end of the run if the tests started them (the controller's
    end with pytest-xdist: a worker done early must not stop them under the other's tests)."""
    if not hasattr(session.config, "workerinput"):
        import local_hosts

        local_hosts.down_if_started()


@pytest.fixture(autouse=True)
def _hosts_in_use(request):
    """Tests of tests/hosts/ use the local hosts while they run: a shared lock; one marked
    ``hosts_exclusive`` (it stops them) waits for the others and makes them wait."""
    if request.node.get_closest_marker("hosts") is None:
        yield
        return
    import local_hosts

    exclusive = request.node.get_closest_marker("hosts_exclusive") is not None
    with local_hosts.in_use(exclusive=exclusive):
        yield


@pytest.fixture(scope="module")
def hosts() -> Path:
    """The local hosts of `make hosts-up` (sshd on loopback, dockerd, the Debian image), up and
    answering; asked again per module, so a test that stopped them cannot starve the next."""
    import local_hosts

    return local_hosts.up()


@pytest.fixture(scope="module")
def paper():
    """RC25482's published values (data/reference/rc25482.csv), as the section notebooks read them."""
    from overhead.rc25482.published import published

    return published()


@pytest.fixture(scope="module")
def fio(ibm_tidy):
    """The authors' fio runs (one per environment and job), ingested."""
    from overhead.rc25482 import load

    return load(ibm_tidy, "fio")


@pytest.fixture(scope="module")
def sheet(ibm_tidy):
    """The authors' fio spreadsheet values, ingested."""
    from overhead.rc25482 import load

    return load(ibm_tidy, "fio", table="reference")


#: Folders of tests/ whose tests carry a marker of the same name, so that they can be chosen
#: or left out (``pytest -m "not hosts"``: everything that runs without the local hosts).
FOLDER_MARKERS = ("hosts", "repo")


def pytest_collection_modifyitems(config, items):
    """Mark each test of tests/hosts/ ``hosts`` and each of tests/repo/ ``repo``."""
    tests = Path(__file__).resolve().parent
    for item in items:
        try:
            folder = Path(str(item.path)).resolve().relative_to(tests).parts[0]
        except ValueError:
            continue
        if folder in FOLDER_MARKERS:
            item.add_marker(getattr(pytest.mark, folder))



# --- where the time of a run goes (printed at its end) ------------------------------------------

#: (worker, test id, phase, start, stop) of every phase run, as the controller hears of them.
_TIMELINE: list[tuple[str, str, str, float, float]] = []


def pytest_runtest_logreport(report):
    """Keep when each test phase ran and on which xdist worker ("main" without xdist)."""
    node = getattr(report, "node", None)  # the worker's controller, in the xdist controller
    worker = node.gateway.id if node is not None else "main"
    start, stop = getattr(report, "start", None), getattr(report, "stop", None)
    if start is not None and stop is not None:
        _TIMELINE.append((worker, report.nodeid, report.when, start, stop))


def timeline_summary(timeline) -> list[str]:
    """Say where a run's wall time went: each worker's span and busy time, the slowest folders.

    A worker's span runs from its first test's start to its last test's end; its busy time is the
    sum of its tests' phases. The run takes as long as the longest span: a worker much shorter
    than the other waited idle at the end.
    """
    if not timeline:
        return []
    lines = ["where the time went (wall clock of each worker; busy = sum of its tests' phases):"]
    for worker in sorted({w for w, *_ in timeline}):
        mine = [t for t in timeline if t[0] == worker]
        span = max(t[4] for t in mine) - min(t[3] for t in mine)
        busy = sum(t[4] - t[3] for t in mine)
        tests = len({t[1] for t in mine})
        folders: dict[str, float] = {}
        for _, nodeid, _, start, stop in mine:
            parts = nodeid.split("::")[0].split("/")
            key = "/".join(parts[:2]) if parts[0] == "tests" and len(parts) > 2 else parts[0]
            folders[key] = folders.get(key, 0.0) + stop - start
        top = ", ".join(f"{k} {v / 60:.1f} min" for k, v in
                        sorted(folders.items(), key=lambda kv: -kv[1])[:4])
        lines.append(f"  {worker}: {tests} tests, span {span / 60:.1f} min, busy {busy / 60:.1f} min "
                     f"({top})")
    return lines


def pytest_terminal_summary(terminalreporter, config):
    """Print :func:`timeline_summary` at the end of a run (in the controller only)."""
    if hasattr(config, "workerinput"):
        return
    for line in timeline_summary(_TIMELINE):
        terminalreporter.write_line(line)
