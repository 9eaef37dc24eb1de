"""scripts/get-ibm-data.sh against a local bare mirror standing in for GitHub.

The mirror is built in a temporary folder from the authors' files (the shared reference tree):
a first commit with the old versions the history folder is made of, a second with the later
nuttcp.xlsx, and a third with the tree the project reads (the stand-in for commit 6820500b).
The script is pointed at it with OVERHEAD_IBM_URL=file://... and OVERHEAD_IBM_COMMIT=<third
commit>. The authors' files come from conftest's ``ibm`` and ``history`` fixtures.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

# One worker builds the mirror once for all of this module's tests (pytest -n ... --dist loadgroup).
pytestmark = pytest.mark.xdist_group("get_ibm_data")

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "get-ibm-data.sh"
SUMS = ROOT / "data" / "reference" / "kvm-docker-comparison.sha256"
HISTORY_SUMS = ROOT / "data" / "reference" / "kvm-docker-comparison-history.sha256"
HISTORY = "kvm-docker-comparison-history"

# Where each history file lives in the authors' repository (the script's own list says the same).
HISTORY_PATHS = {
    "fio_results.xlsx@77d69a2": "fio/results/fio results.xlsx",
    "gups.xlsx@5c086ae": "RandomAccess/results/gups.xlsx",
    "linpack.xlsx@f9a6e63": "linpack/results/linpack.xlsx",
    "mysql_perfgov_MYSQL.png@d925ec3": "mysql/results/performance-governor/MYSQL.png",
    "mysql_perfgov_results-latency.csv@d925ec3": "mysql/results/performance-governor/results-latency.csv",
    "mysql_perfgov_results-latency95.csv@d925ec3": "mysql/results/performance-governor/results-latency95.csv",
    "mysql_perfgov_results-percentage.csv@d925ec3": "mysql/results/performance-governor/results-percentage.csv",
    "mysql_perfgov_results-reqs.csv@d925ec3": "mysql/results/performance-governor/results-reqs.csv",
    "mysql_perfgov_results-total.csv@d925ec3": "mysql/results/performance-governor/results-total.csv",
    "nuttcp.xlsx@ee8dd2d": "nuttcp/results/nuttcp.xlsx",
    "nuttcp.xlsx@f2b940f": "nuttcp/results/nuttcp.xlsx",
}
ALTERED = "fio/results/fio results.xlsx"  # a listed file with a space in its name


def _sums(path: Path) -> dict[str, str]:
    """{relative path: sha256} of a sha256sum file."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        digest, name = line[:64], line[66:]
        out[name] = digest
    return out


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _git_env(home: Path) -> dict[str, str]:
    """An environment where no user or system git configuration gets in the way."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "OVERHEAD_IBM_"))}
    env.update(HOME=str(home), GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull,
               GIT_AUTHOR_NAME="test", GIT_AUTHOR_EMAIL="test@example.invalid",
               GIT_COMMITTER_NAME="test", GIT_COMMITTER_EMAIL="test@example.invalid",
               GIT_AUTHOR_DATE="2014-08-21T12:00:00Z", GIT_COMMITTER_DATE="2014-08-21T12:00:00Z")
    return env


def _git(env: dict[str, str], *args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


def _commit_all(env, work: Path, message: str) -> str:
    _git(env, "add", "-A", cwd=work)
    _git(env, "commit", "-q", "--no-gpg-sign", "-m", message, cwd=work)
    return _git(env, "rev-parse", "HEAD", cwd=work)


class Mirror:
    """The bare mirrors and the commits the tests point the script at."""

    def __init__(self, base: Path, url: str, commit: str, altered_url: str, altered_commit: str, env):
        self.base, self.url, self.commit = base, url, commit
        self.altered_url, self.altered_commit, self.env = altered_url, altered_commit, env


@pytest.fixture(scope="module")
def mirror(ibm, history, tmp_path_factory):
    """Bare mirrors built from the authors' files (conftest's ``ibm`` and ``history`` fixtures)."""
    assert shutil.which("git"), "git is not installed"
    base = tmp_path_factory.mktemp("ibm-mirror")
    env = _git_env(base)
    work = base / "work"
    work.mkdir()
    _git(env, "-c", "init.defaultBranch=master", "init", "-q", cwd=work)
    # Speed: store objects uncompressed and skip delta search (the mirror serves 25 MB).
    for key, value in (("core.compression", "0"), ("pack.window", "0")):
        _git(env, "config", key, value, cwd=work)

    def put(rel: str, src: Path) -> None:
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, work / rel)

    # 1: the old versions (later overwritten or deleted), 2: the later nuttcp.xlsx,
    # 3: the tree the project reads, without the deleted MySQL plot files.
    for name, rel in HISTORY_PATHS.items():
        if name != "nuttcp.xlsx@f2b940f":
            put(rel, history / name)
    _commit_all(env, work, "old versions")
    put(HISTORY_PATHS["nuttcp.xlsx@f2b940f"], history / "nuttcp.xlsx@f2b940f")
    _commit_all(env, work, "nuttcp update")
    for rel in _sums(SUMS):
        put(rel, ibm / rel)
    for name, rel in HISTORY_PATHS.items():
        if name.startswith("mysql_perfgov_"):
            (work / rel).unlink()
    commit = _commit_all(env, work, "the tree at the pinned commit")
    # A second mirror whose tree has one listed file altered.
    _git(env, "checkout", "-q", "-b", "altered", cwd=work)
    with (work / ALTERED).open("ab") as fh:
        fh.write(b"\0")
    altered_commit = _commit_all(env, work, "one file altered")
    _git(env, "repack", "-adq", cwd=work)  # one pack, whose objects the fetches reuse as they are
    for name, branch in (("mirror.git", "master"), ("altered.git", "altered")):
        _git(env, "clone", "-q", "--bare", "--branch", branch, str(work), str(base / name))
        for key, value in (("core.compression", "0"), ("pack.window", "0")):
            _git(env, "config", key, value, cwd=base / name)
    shutil.rmtree(work)
    yield Mirror(base, (base / "mirror.git").as_uri(), commit, (base / "altered.git").as_uri(),
                 altered_commit, env)
    shutil.rmtree(base, ignore_errors=True)


def run(mirror: Mirror, dest: Path, url: str, commit: str | None) -> subprocess.CompletedProcess:
    env = dict(mirror.env, OVERHEAD_IBM_URL=url)
    if commit:
        env["OVERHEAD_IBM_COMMIT"] = commit
    return subprocess.run(["sh", str(SCRIPT), str(dest)], env=env, capture_output=True, text=True,
                          timeout=120)


def leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.glob("*.partial.*")) if parent.is_dir() else []


@pytest.fixture(scope="module")
def fetched(mirror, tmp_path_factory):
    """One successful fetch, shared by the tests that look at its result."""
    top = tmp_path_factory.mktemp("fetched")
    dest = top / "data" / "kvm-docker-comparison"
    result = run(mirror, dest, mirror.url, mirror.commit)
    yield dest, result
    shutil.rmtree(top, ignore_errors=True)


def test_fetch_succeeds_and_verifies(fetched):
    dest, result = fetched
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "fetched and verified" in result.stdout
    expected = _sums(SUMS)
    got = {str(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file() and ".git" not in p.relative_to(dest).parts}
    assert got == set(expected), "exactly the listed files are checked out"
    bad = [rel for rel, digest in expected.items() if _sha256(dest / rel) != digest]
    assert not bad
    history = dest.parent / HISTORY
    hist_expected = _sums(HISTORY_SUMS)
    assert sorted(p.name for p in history.iterdir()) == sorted(hist_expected)
    assert all(_sha256(history / n) == d for n, d in hist_expected.items())
    assert leftovers(dest.parent) == []


def test_second_call_is_a_no_op_without_network(fetched, mirror, tmp_path):
    dest, first = fetched
    assert first.returncode == 0, first.stderr
    before = {p: p.stat().st_mtime_ns for p in dest.parent.rglob("*")}
    nowhere = (tmp_path / "no-such-mirror.git").as_uri()
    result = run(mirror, dest, nowhere, None)  # the URL leads nowhere, the default commit
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "already present and verified" in result.stdout
    assert "fetching" not in result.stdout
    assert {p: p.stat().st_mtime_ns for p in dest.parent.rglob("*")} == before


def test_altered_file_fails_and_leaves_no_dest(mirror, tmp_path):
    dest = tmp_path / "data" / "kvm-docker-comparison"
    result = run(mirror, dest, mirror.altered_url, mirror.altered_commit)
    assert result.returncode == 4, result.stderr
    assert ALTERED in result.stderr
    assert "verification failed" in result.stderr
    assert not dest.exists()
    assert not (dest.parent / HISTORY).exists()
    assert leftovers(dest.parent) == []


def test_existing_dest_that_does_not_verify_is_left_alone(mirror, tmp_path):
    dest = tmp_path / "kvm-docker-comparison"
    dest.mkdir()
    (dest / "mine.txt").write_text("not the authors' data\n")
    result = run(mirror, dest, mirror.url, mirror.commit)
    assert result.returncode == 4
    assert "exists but is not the pinned data" in result.stderr
    assert sorted(p.name for p in dest.iterdir()) == ["mine.txt"]
    assert leftovers(tmp_path) == []


def test_unreachable_url_says_what_to_run(mirror, tmp_path):
    dest = tmp_path / "data" / "kvm-docker-comparison"
    nowhere = (tmp_path / "no-such-mirror.git").as_uri()
    result = run(mirror, dest, nowhere, None)
    assert result.returncode == 3
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert "could not fetch" in line
    assert f"sh {SCRIPT} {dest}" in line  # the exact command, runnable as printed
    assert f"OVERHEAD_IBM_URL={nowhere}" in line
    assert "OVERHEAD_REFERENCE" in line
    assert not dest.exists()
    assert leftovers(dest.parent) == []
    assert not (dest.parent / HISTORY).exists()


def _fresh_project(top: Path) -> Path:
    """The parts of a fresh clone that `make data` uses, in a folder with no ../shared beside it."""
    proj = top / "clone"
    for rel in ("Makefile", "requirements.lock", "pyproject.toml", "scripts/get-ibm-data.sh",
                "scripts/lab-overrides.json",
                "data/reference/kvm-docker-comparison.sha256",
                "data/reference/kvm-docker-comparison-history.sha256"):
        (proj / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, proj / rel)
    assert not (proj.parent / "shared").exists()
    return proj


def _make(mirror: Mirror, proj: Path, target: str, url: str, commit: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in mirror.env.items() if k != "OVERHEAD_REFERENCE"}
    env.update(OVERHEAD_IBM_URL=url, PATH=os.environ["PATH"])
    if commit:
        env["OVERHEAD_IBM_COMMIT"] = commit
    return subprocess.run(["make", "-s", "--no-print-directory", target], cwd=proj, env=env,
                          capture_output=True, text=True, timeout=180)


def test_make_demo_in_a_fresh_clone_fetches_the_pinned_data(mirror, tmp_path):
    """`make demo` with no data anywhere clones it (here from the stand-in mirror) and verifies it."""
    proj = _fresh_project(tmp_path)
    plan = subprocess.run(["make", "-n", "demo"], cwd=proj, capture_output=True, text=True,
                          env={"PATH": os.environ["PATH"], "HOME": str(tmp_path)}).stdout
    assert plan.index("get-ibm-data.sh") < plan.index("overhead ingest-ibm"), plan
    result = _make(mirror, proj, "data", mirror.url, mirror.commit)
    assert result.returncode == 0, result.stderr
    dest = proj / "data" / "external" / "kvm-docker-comparison"
    assert all(_sha256(dest / rel) == digest for rel, digest in _sums(SUMS).items())
    again = _make(mirror, proj, "data", (tmp_path / "nowhere.git").as_uri(), None)
    assert again.returncode == 0 and again.stdout == "" and again.stderr == ""  # found: nothing to do


def test_make_demo_offline_says_what_to_run(mirror, tmp_path):
    proj = _fresh_project(tmp_path)
    nowhere = (tmp_path / "nowhere.git").as_uri()
    result = _make(mirror, proj, "demo", nowhere, None)
    assert result.returncode != 0
    ours = [line for line in result.stderr.splitlines() if not re.match(r"make(\[\d+\])?: ", line)]
    assert len(ours) == 1, result.stderr  # one line of ours; make adds its own "Error 3" line
    assert "could not fetch" in ours[0] and "get-ibm-data.sh" in ours[0]
    assert not (proj / "data" / "external" / "kvm-docker-comparison").exists()
    assert not (proj / ".venv").exists()  # nothing else was attempted
