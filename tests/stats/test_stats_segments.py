"""overhead.stats.segment_runs on synthetic monitor series with known run boundaries (the real
dstat series of the authors' MySQL runs are cut in test_rc25482_mysql.py)."""

from __future__ import annotations

import numpy as np
import pytest

from overhead.stats import SegmentationError, segment_runs


def series(lengths, gap=5, busy=40.0, idle=99.0):
    """Idle percentages: ``gap`` idle samples, then a busy run of each length, then a gap..."""
    x = [idle] * gap
    for n in lengths:
        x += [busy] * n + [idle] * gap
    return np.array(x)


def test_runs_are_found_trimmed_and_gapped():
    seg = segment_runs(series([60, 61, 59]), 3, expected_length=60, tolerance=2, trim=1)
    assert seg["length"].tolist() == [60, 61, 59] and seg["first"].tolist() == [5, 70, 136]
    assert (seg["keep_first"] == seg["first"] + 1).all() and (seg["n_kept"] == seg["length"] - 2).all()
    assert np.isnan(seg["gap_before"][0]) and seg["gap_before"][1:].tolist() == [5.0, 5.0]


def test_a_session_break_splits_a_stretch_and_blips_are_dropped():
    x = series([60, 60])
    x[2] = 40.0  # a one-sample blip before the first run
    breaks = np.r_[np.zeros(40), np.ones(len(x) - 40)]  # a new session inside the first run
    seg = segment_runs(x, 3, min_length=10, breaks=breaks)
    assert seg["length"].tolist() == [35, 25, 60] and seg.attrs["dropped"] == [(2, 2)]
    assert np.isnan(seg["gap_before"][1])  # no gap across a session break


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"n_runs": 4}, "found 3 busy stretches"),
    ({"n_runs": 3, "expected_length": 30}, "differ from 30 samples"),
    ({"n_runs": 3, "trim": 40}, "leaves nothing"),
])
def test_every_mismatch_raises(kwargs, match):
    with pytest.raises(SegmentationError, match=match):
        segment_runs(series([60, 60, 60]), **kwargs)


def test_nan_samples_raise():
    x = series([60])
    x[10] = np.nan
    with pytest.raises(SegmentationError, match="NaN"):
        segment_runs(x, 1)
