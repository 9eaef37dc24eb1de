"""`make test` runs pytest with ``-n 2 --dist loadgroup``: every test marked
``xdist_group("hosts")`` must run on one worker, one after the other, because they share the
local hosts (sshd on 127.0.0.1:2222, dockerd, the VM's forwarded port 10022). pytest 9.2 broke
that silently (pytest-dev/pytest-xdist#1386: xdist's group suffix on the node id no longer takes
effect, so grouped tests are spread over both workers): two live campaigns then ran at once and
collided on the VM's ports. This test runs pytest the way `make test` does on a small grouped
module and fails if the group is split, so a dependency update cannot bring that back unseen.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_loadgroup_keeps_a_group_on_one_worker(tmp_path):
    (tmp_path / "test_grouped.py").write_text(textwrap.dedent("""
        import os
        import pytest

        pytestmark = pytest.mark.xdist_group("hosts")

        @pytest.mark.parametrize("i", range(6))
        def test_grouped(i):
            with open("workers.txt", "a") as f:
                f.write("grouped " + os.environ["PYTEST_XDIST_WORKER"] + "\\n")
        """))
    (tmp_path / "test_free.py").write_text(textwrap.dedent("""
        import os
        import pytest

        @pytest.mark.parametrize("i", range(6))
        def test_free(i):
            with open("workers.txt", "a") as f:
                f.write("free " + os.environ["PYTEST_XDIST_WORKER"] + "\\n")
        """))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup",
                           "-p", "no:cacheprovider", str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = (tmp_path / "workers.txt").read_text().split("\n")
    grouped = {line.split()[1] for line in lines if line.startswith("grouped")}
    assert len([line for line in lines if line.startswith("grouped")]) == 6
    assert len(grouped) == 1, f"the group ran on {sorted(grouped)}: loadgroup does not group"
