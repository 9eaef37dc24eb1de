"""`make test` prints where its time went: each worker's span, busy time and slowest folders."""

from __future__ import annotations

from conftest import timeline_summary


def test_summary_gives_each_workers_span_busy_time_and_folders():
    timeline = [("gw0", "tests/hosts/test_qemu.py::test_boot", "call", 0.0, 300.0),
                ("gw0", "tests/hosts/test_nfs.py::test_mount", "setup", 300.0, 360.0),
                ("gw1", "tests/stats/test_ci.py::test_t", "call", 10.0, 40.0),
                ("gw1", "tests/stats/test_ci.py::test_t", "teardown", 40.0, 41.0),
                ("gw1", "tests/parsers/test_fio.py::test_json", "call", 100.0, 130.0)]
    lines = timeline_summary(timeline)
    assert lines[1] == "  gw0: 2 tests, span 6.0 min, busy 6.0 min (tests/hosts 6.0 min)"
    # gw1: 2 tests over 120 s of wall clock, busy 61 s: idle between them
    assert lines[2] == ("  gw1: 2 tests, span 2.0 min, busy 1.0 min "
                        "(tests/stats 0.5 min, tests/parsers 0.5 min)")  # 31 s, 30 s
    assert timeline_summary([]) == []
