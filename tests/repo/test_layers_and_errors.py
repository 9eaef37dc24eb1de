"""The two layers (import-linter contracts), the one error root, and the CLI's one-line errors."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import overhead
from overhead.cli import app
from overhead.errors import OverheadError

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
OVERHEAD = [sys.executable, "-m", "overhead.cli"]


def _modules():
    for info in pkgutil.walk_packages(overhead.__path__, "overhead."):
        yield importlib.import_module(info.name)


def test_every_exception_of_the_package_is_an_overhead_error():
    found = {}
    for mod in _modules():
        for name, obj in vars(mod).items():
            if inspect.isclass(obj) and issubclass(obj, Exception) and obj.__module__ == mod.__name__:
                found[f"{mod.__name__}.{name}"] = obj
    assert len(found) >= 15, sorted(found)
    outside = sorted(n for n, cls in found.items() if not issubclass(cls, OverheadError))
    assert outside == [], outside


def test_contracts_hold():
    r = subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 kept, 0 broken" in r.stdout


def test_a_toolkit_module_importing_the_study_breaks_the_contracts(tmp_path):
    """A copy of the package where stats imports the RC25482 study: lint-imports must fail and
    name both contracts (this is what `make lint`, and so `make test`, runs)."""
    shutil.copytree(ROOT / "lib", tmp_path / "lib", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    bad = tmp_path / "lib" / "overhead" / "stats" / "summary.py"
    bad.write_text(bad.read_text().replace("import numpy as np\n", "import numpy as np\n\nfrom overhead.rc25482 import mysql  # noqa: F401\n", 1))
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path / "lib")}
    r = subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert r.returncode != 0, r.stdout
    assert "0 kept, 2 broken" in r.stdout
    assert "overhead.stats.summary -> overhead.rc25482.mysql" in r.stdout


@pytest.mark.parametrize("args", [["parse", "auto", "{dir}"], ["parse", "fio", "{dir}"],
                                  ["parse", "fio", "{missing}"], ["parse", "fio", "{link}"],
                                  ["read-trial", "{dir}"], ["ingest-ibm", "{missing}"],
                                  ["summary", "{dir}"], ["parse", "no-such-tool", "{dir}"]])
def test_user_errors_are_one_line_and_exit_2(tmp_path, args):
    (tmp_path / "link").symlink_to(tmp_path / "gone")
    values = {"dir": str(tmp_path), "missing": str(tmp_path / "missing.txt"), "link": str(tmp_path / "link")}
    r = subprocess.run([*OVERHEAD, *(a.format(**values) for a in args)], capture_output=True, text=True)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert str(tmp_path) in r.stderr or "no-such-tool" in r.stderr


def test_an_unreadable_file_is_one_line(tmp_path, monkeypatch):
    """As root every file is readable, so the operating system's refusal is simulated."""
    from overhead import parsers

    f = tmp_path / "out.txt"
    f.write_text("x\n")

    def refuse(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(parsers, "read_text", refuse)
    r = CliRunner().invoke(app, ["parse", "fio", str(f)])
    assert r.exit_code == 2 and r.output.strip() == f"{f}: cannot read (Permission denied)"
