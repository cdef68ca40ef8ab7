"""Joints that move no mass in MuJoCo: the harness holds them (Romeo's hands, thrown about
when free), and the failure policy's damping command on them is one MuJoCo integrates (the old
5 N·m·s/rad diverges it)."""

from __future__ import annotations

import numpy as np
import pytest

from tsid_py.control.failure import damping_gains
from tsid_py.models.held import joints_moving_no_mass
from tsid_py.sim import Simulation
from tsid_py.sim.simulation import SimulationDiverged

from .test_held_joints import _load_romeo, _v_indices


@pytest.fixture(scope="module")
def romeo():
    return _load_romeo()


def _swing_the_wrists(robot, seconds=0.15):
    """Romeo in MuJoCo, its wrists driven by ±their limit (0.6 N·m) at 10 Hz: the largest
    angle (rad) and speed (rad/s) of its hands' joints away from the posture."""
    sim = Simulation(robot)
    wrists = [robot.joint_v_index(name) - 6 for name in ("LWristPitch", "RWristPitch")]
    hands = _v_indices(robot, joints_moving_no_mass(robot))
    q_hands = [robot.joint_q_index(name) for name in joints_moving_no_mass(robot)]
    angle = speed = 0.0
    tau = np.zeros(robot.na)
    for k in range(int(seconds / sim.timestep)):
        tau[wrists] = 0.6 * np.sign(np.sin(2 * np.pi * 10 * k * sim.timestep) + 1e-9)
        sim.step(tau)
        q, v = sim.state()
        angle = max(angle, np.abs(q[q_hands] - robot.q_ref[q_hands]).max())
        speed = max(speed, np.abs(v[hands]).max())
    return angle, speed


def test_the_harness_holds_the_joints_that_move_no_mass(romeo):
    angle, speed = _swing_the_wrists(romeo)
    assert angle < 5e-3 and speed < 2.0                       # measured 1.9 mrad, 0.7 rad/s
    free = _load_romeo()
    free.profile = free.profile.with_(held_joints=())         # the harness before: the hands left free
    angle, speed = _swing_the_wrists(free)
    assert angle > 0.5 and speed > 10.0        # thrown about (measured 1.17 rad, past LHand's 1 rad; 23 rad/s)


def test_the_damping_command_is_one_mujoco_integrates(romeo):
    free = _load_romeo()
    free.profile = free.profile.with_(held_joints=())         # the hands swinging, as they did
    q, v = free.q_ref.copy(), free.zero_velocity()
    hands = _v_indices(free, joints_moving_no_mass(free))
    v[hands] = -4.0
    gains = damping_gains(free, q, 1e-3, 5.0)
    for command, diverges in ((-5.0 * v[6:], True), (-gains[6:] * v[6:], False)):
        sim = Simulation(free)
        sim.reset(q, v)
        if diverges:               # the rung's old command: 5 N·m·s/rad on a 1e-10 kg·m² link
            with pytest.raises(SimulationDiverged):
                for _ in range(5):
                    sim.step(command)
        else:
            for _ in range(5):
                sim.step(command)
            assert np.all(np.isfinite(sim.state()[1]))
