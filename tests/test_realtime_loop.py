"""The two-process loop harness: it runs, counts every tick, and attributes every miss."""

from __future__ import annotations

import numpy as np
import pytest

import tsid_py as tp
from tsid_py.scenarios.realtime import _report, run_realtime


def test_the_harness_counts_ticks_and_attributes_every_miss():
    report = run_realtime(tp.robots.DEFAULT_HUMANOID, duration=0.5, rate=500.0, push_every=0.25)
    assert report["ticks"] == 250
    assert sum(report["misses_by_cause"].values()) == report["deadline_misses"] <= report["ticks"]
    assert sum(report["miss_episodes_by_first_cause"].values()) <= report["deadline_misses"]
    assert report["compute_us"]["median"] > 0 and report["latency_us"]["median"] >= report["compute_us"]["median"]
    assert report["gc_frozen_objects"] > 0 and not report["fell"]
    for slow in report["slow_computes"]:          # computes over half a period, with their context
        assert slow["compute_us"] > 0.5 * 2000 and set(slow["phases_us"]) == {"dynamics", "assembly", "qp", "extraction"}
        assert isinstance(slow["general_step"], bool) and slow["collections"] >= 0 and slow["page_faults"] >= 0
        assert 0 <= slow["cpu_us"] and slow["voluntary_switches"] >= 0 and slow["layouts_built"] >= 0
        assert slow["compilations"] >= 0 and slow["outside_solver_us"] <= slow["compute_us"]
    assert report["layouts_prepared"] >= 0 and report["layouts_built_in_loop"] == 0


def test_a_compute_over_the_period_is_ours_unless_the_os_switched_the_controller_out():
    """Misses attributed from the ticks' records: tick 2's compute (1.5 periods) made ticks 2
    and 3 miss, on the CPU throughout, but its dynamics pass took 5 × its median (a slow core);
    tick 6's too, but its thread was switched out meanwhile; tick 9 began late; tick 11's
    compute (1.5 periods) ran on the CPU for 0.7 of a period only (off the CPU the rest,
    without a switch: the hypervisor's); tick 14's ran 1.2 periods on the CPU with a usual
    dynamics pass (ours)."""
    period, ticks = 1e-3, 16
    compute = np.full(ticks, 2e-4)
    compute[[3, 7]] = np.nan                             # the controller was busy: no state served
    compute[[2, 6, 11, 14]] = 1.5e-3
    compute[[12, 15]] = np.nan
    off_cpu = np.zeros(ticks)
    off_cpu[11], off_cpu[14] = 0.8e-3, 0.3e-3
    preempted = np.zeros(ticks, dtype=bool)
    preempted[6] = True
    missed = np.zeros(ticks, dtype=bool)
    missed[[2, 3, 6, 7, 9, 11, 12, 14, 15]] = True
    late_start = np.zeros(ticks)
    late_start[9] = 0.8 * period
    latency = np.where(missed, np.nan, 3e-4)
    dynamics = np.where(np.isnan(compute), np.nan, 1.2e-5)
    dynamics[2], dynamics[14] = 6e-5, 1.5e-5
    report = _report("talos", 1000.0, ticks, latency, compute, preempted, missed, late_start, np.full(ticks, 1e-4),
                     period, fell=False, controller={}, core=1, off_cpu=off_cpu, dynamics=dynamics)
    assert report["misses_by_cause"] == {"controller": 2, "controller_preempted": 2, "controller_off_cpu": 2,
                                         "controller_slow_core": 2, "transport": 0, "simulator": 1}
    assert report["miss_episodes_by_first_cause"] == {"controller": 1, "controller_preempted": 1,
                                                      "controller_off_cpu": 1, "controller_slow_core": 1,
                                                      "transport": 0, "simulator": 1}
    assert report["controller_over_period"] == 4 and report["controller_over_period_preempted"] == 1


def test_the_harness_refuses_a_priority_outside_sched_fifo_range():
    with pytest.raises(ValueError, match=r"realtime_priority must be in 1\.\.99 \(SCHED_FIFO\), got 0"):
        run_realtime(tp.robots.DEFAULT_HUMANOID, duration=0.1, realtime_priority=0)
