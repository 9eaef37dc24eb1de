"""The conda environment and the pip lock must carry the same pins."""

from __future__ import annotations

import re

import yaml
from conftest import ROOT


def _lock() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.fullmatch(r"([A-Za-z0-9_.\-\[\]]+)==([^\s;]+)", line)
        assert m, f"requirements.lock: not an exact pin: {line!r}"
        pins[m.group(1).lower().replace("_", "-")] = m.group(2)
    return pins


def _conda() -> tuple[dict[str, str], list]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    deps = env["dependencies"]
    pip = next(d["pip"] for d in deps if isinstance(d, dict) and "pip" in d)
    pins = {}
    for line in pip:
        if line.startswith("-e"):
            continue
        name, version = line.split("==")
        pins[name.lower().replace("_", "-")] = version
    return pins, deps


def test_environment_yml_and_lock_have_the_same_pins():
    lock = _lock()
    conda, deps = _conda()
    assert "python=3.11" in deps
    only_lock = sorted(set(lock) - set(conda))
    only_conda = sorted(set(conda) - set(lock))
    differ = sorted(n for n in set(lock) & set(conda) if lock[n] != conda[n])
    assert not (only_lock or only_conda or differ), (
        f"pins drifted: only in requirements.lock {only_lock}, only in environment.yml "
        f"{only_conda}, different versions {[(n, lock[n], conda[n]) for n in differ]}")


def test_lock_holds_the_named_dependencies():
    lock = _lock()
    for name in ("pandas", "numpy", "scipy", "seaborn", "matplotlib", "plotly", "papermill",
                 "fabric", "jupyterlab", "jupytext", "pyarrow", "openpyxl", "pydantic", "typer",
                 "tqdm", "pytest", "nbmake", "hypothesis", "ruff", "statsmodels"):
        assert name in lock, f"{name} is not pinned in requirements.lock"


def test_installed_versions_match_the_lock():
    from importlib.metadata import version

    lock = _lock()
    for name in ("pandas", "numpy", "scipy", "pyarrow", "matplotlib", "seaborn"):
        assert version(name) == lock[name], f"{name}: installed {version(name)}, lock {lock[name]}"
