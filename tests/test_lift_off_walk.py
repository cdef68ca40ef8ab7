"""The lift-off re-timed from the measured capture point (:mod:`tsid_py.control.walking.liftoff`)
judged by the physics engine, on a robot it was not tuned for (iCub, example-robot-data)."""

import numpy as np
import pytest

import tsid_py as tp

pytest.importorskip("mujoco")

from tsid_py.robots import data_root  # noqa: E402
from tsid_py.scenarios.walk import SETTLE, run_walk  # noqa: E402


def test_icub_pushed_toward_the_foot_about_to_lift_waits_for_the_capture_point_in_mujoco():
    """iCub walking, pushed 70 N toward its stance foot for 0.1 s at mid-swing (the 5th swing;
    issue 28's walk push at 0.4 of its standing bound): the stance sole holds the capture
    point, and the plan lifts that foot next with the capture point still on it. On the
    plan's clock iCub falls within 0.9 s; with the lift-off re-timed it waits in the double
    support until the other sole can hold the capture point and is up 1.5 s after the push
    (and to the end of the 3 m walk: docs/walking.md)."""
    robot = tp.robots.load(data_root() / "icub_description/robots/icub.urdf")
    gait = robot.profile.gait
    at = SETTLE + gait.start_time + 4.5 * gait.step_period
    push, duration = [(at, np.array([0.0, -70.0, 0.0]), 0.1)], at + 1.5
    on_the_clock, _, _ = run_walk(robot, distance=3.0, duration=duration, pushes=push,
                                  controller_options={"lift_off_timing": False})
    assert on_the_clock["fell"] and on_the_clock["delayed_lift_offs"] == 0
    summary, _, _ = run_walk(robot, distance=3.0, duration=duration, pushes=push)
    assert not summary["fell"] and summary["delayed_lift_offs"] >= 1
