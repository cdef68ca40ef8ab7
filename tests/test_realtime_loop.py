"""The two-process loop harness: it runs, counts every tick, and attributes every miss."""

from __future__ import annotations

import tsid_py as tp
from tsid_py.scenarios.realtime import run_realtime


def test_the_harness_counts_ticks_and_attributes_every_miss():
    report = run_realtime(tp.robots.DEFAULT_HUMANOID, duration=0.5, rate=500.0, push_every=0.25)
    assert report["ticks"] == 250
    assert sum(report["misses_by_cause"].values()) == report["deadline_misses"] <= report["ticks"]
    assert sum(report["miss_episodes_by_first_cause"].values()) <= report["deadline_misses"]
    assert report["compute_us"]["median"] > 0 and report["latency_us"]["median"] >= report["compute_us"]["median"]
    assert report["gc_frozen_objects"] > 0 and not report["fell"]
