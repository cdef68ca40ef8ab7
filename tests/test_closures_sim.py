"""Closed chains in MuJoCo: the MJCF loader reads each equality as MuJoCo simulates it, and
the parallel-ankle biped balances under a push with its ankles driven through their rods."""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pytest

import tsid_py as tp
from tsid_py.control import BalanceController
from tsid_py.sim import Simulation

DATA = Path(__file__).parent / "data"
ANKLES = DATA / "parallel_ankles.xml"

#: A fixed-base chain with one equality of every kind the loader reads (a mechanism that could
#: not move with all of them: only the residuals and velocities are compared).
EQUALITIES = """<mujoco model="equalities">
  <compiler angle="radian"/>
  <default><geom type="capsule" size="0.02" mass="0.1"/></default>
  <worldbody>
    <body name="base" pos="0 0 1">
      <body name="a">
        <joint name="j1" axis="0 1 0"/><geom fromto="0 0 0 0.3 0 0"/>
        <body name="b" pos="0.3 0 0" quat="0.9 0.1 0.3 0.2">
          <joint name="j2" axis="1 0 0"/><joint name="j3" axis="0 0 1"/><geom fromto="0 0 0 0 0 -0.3"/>
          <site name="s1" pos="0.05 0.02 -0.3" quat="0.8 0.2 0.1 0.3"/>
        </body>
      </body>
      <body name="c" pos="0.5 0.1 0">
        <joint name="j4" axis="0 1 0"/><geom fromto="0 0 0 0 0 -0.3"/>
        <body name="d" pos="0 0 -0.3">
          <joint name="j5" type="slide" axis="1 0 0"/><geom fromto="0 0 0 0.1 0 0"/>
          <site name="s2" pos="0.1 0 0" quat="0.7 0.1 -0.5 0.2"/>
        </body>
      </body>
    </body>
    <body name="other" pos="2 0 1"><joint name="j6" axis="0 0 1"/><geom fromto="0 0 0 0.1 0 0"/></body>
  </worldbody>
  <tendon>
    <fixed name="t1"><joint joint="j1" coef="0.5"/><joint joint="j4" coef="-1.5"/></fixed>
    <fixed name="t2"><joint joint="j3" coef="2"/></fixed>
  </tendon>
  <equality>
    <connect name="connect bodies" body1="b" body2="d" anchor="0.01 0.02 -0.25"/>
    <connect name="connect sites" site1="s1" site2="s2"/>
    <weld name="weld bodies" body1="b" body2="c" relpose="0.1 0.2 -0.1 0.9 0.1 -0.2 0.3" anchor="0.02 0 -0.1"/>
    <weld name="weld sites" site1="s1" site2="s2"/>
    <joint name="joint quartic" joint1="j5" joint2="j2" polycoef="0.01 0.5 0.2 -0.1 0.05"/>
    <joint name="joint alone" joint1="j4" polycoef="0.2 0 0 0 0"/>
    <tendon name="tendons" tendon1="t1" tendon2="t2" polycoef="0.1 -0.3 0 0 0"/>
    <connect name="elsewhere" body1="other" body2="d" anchor="0 0 0"/>
  </equality>
</mujoco>
"""


def test_mjcf_equalities_are_read_as_mujoco_simulates_them(tmp_path, rng):
    """At random states: each closure's error equals MuJoCo's equality residual (``efc_pos``;
    a weld's rotation, MuJoCo's ``vec(q₂⁻¹ q₁ q_rel)`` in body 2's axes, is ``sin(θ/2) n`` of
    ours, ``θ n`` in world axes), and ``J_c v`` MuJoCo's ``efc_J v`` (the weld's translation)."""
    path = tmp_path / "equalities.xml"
    path.write_text(EQUALITIES)
    with pytest.warns(UserWarning, match=r"equality 'elsewhere' involves \['other'\], outside the robot's model"):
        robot = tp.Robot.from_mjcf(path)
    assert robot.passive_joints == ()                 # the file has no actuator: nothing is known to be passive
    solver = tp.DynamicsSolver(robot)
    assert list(solver.closures) == ["connect bodies", "connect sites", "weld bodies", "weld sites", "joint quartic",
                                     "joint alone", "tendons"]
    model = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(model)
    for _ in range(3):
        data.qpos[:] = rng.uniform(-0.5, 0.5, model.nq)
        data.qvel[:] = rng.normal(size=model.nv)
        mujoco.mj_forward(model, data)
        equality = data.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY
        sizes = np.cumsum([3, 3, 6, 6, 1, 1, 1])       # the last: the connect outside the robot's tree
        residuals = np.split(data.efc_pos[equality], sizes)
        rates = np.split(data.efc_J.reshape(data.nefc, model.nv)[equality] @ data.qvel, sizes)
        robot.update(data.qpos[:robot.nq].copy(), data.qvel[:robot.nv].copy())   # hinges and a slide: same coordinates
        for closure, residual, rate in zip(solver.closures.values(), residuals, rates):
            rows = closure.compute(robot)
            if closure.size == 6:
                rotation2 = (robot.data.oMf[robot.frame_id(closure.frame2)] * closure._placements[1]).rotation
                angle = rotation2.T @ rows.error[3:]
                half_sine = np.sin(np.linalg.norm(angle) / 2) * angle / np.linalg.norm(angle)
                np.testing.assert_allclose(half_sine, residual[3:], atol=1e-10, err_msg=closure.name)
                np.testing.assert_allclose(rows.error[:3], residual[:3], atol=1e-10, err_msg=closure.name)
                np.testing.assert_allclose((rows.jacobian @ robot.v)[:3], rate[:3], atol=1e-10, err_msg=closure.name)
            else:
                np.testing.assert_allclose(rows.error, residual, atol=1e-10, err_msg=closure.name)
                np.testing.assert_allclose(rows.jacobian @ robot.v, rate, atol=1e-10, err_msg=closure.name)


def test_the_parallel_ankle_biped_balances_through_its_rods_in_mujoco():
    """The balance controller on the parallel-ankle biped, a 40 N push forward at 0.3 s (0.1 s
    long), 1 s simulated: it stands; every step's QP holds the loops' acceleration rows to
    1e-9 and gives the passive joints (rods, ankles) no torque, which MuJoCo's motors cannot
    deliver anyway (no actuator there: ``qfrc_actuator`` 0); the ankles are held by the rods'
    forces, MuJoCo's connect equalities (stiff: solref 2 ms, solimp 0.9999) closed within 1e-6 m."""
    robot = tp.robots.load(ANKLES)
    sim = Simulation(robot)
    controller = BalanceController(robot, sim.timestep)
    passive = [robot.joint_v_index(joint) for joint in robot.passive_joints]
    mujoco_passive = [int(sim.model.joint(joint).dofadr[0]) for joint in robot.passive_joints]
    ankles = [int(sim.model.joint(f"{side}_ankle_pitch").dofadr[0]) for side in ("left", "right")]
    start = sim.state()[0][2]
    worst_rows, worst_gap, ankle_torque = 0.0, 0.0, 0.0
    for k in range(1000):
        if k == 300:
            sim.push([40.0, 0.0, 0.0], 0.1)
        q, v = sim.state()
        solution = controller.step(q, v)
        assert solution.success, solution.status
        assert np.all(solution.tau[passive] == 0.0)
        layout, qp = controller.solver.last_layout, controller.solver.last_qp
        rows = [i for i, label in enumerate(layout.labels["equalities"]) if label.startswith("closure ")]
        assert len(rows) == 12
        worst_rows = max(worst_rows, np.abs(qp.A[rows] @ solution.x - qp.b[rows]).max())
        sim.step(solution.tau_actuated)
        assert np.all(sim.data.qfrc_actuator[mujoco_passive] == 0.0)
        equality = sim.data.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY
        worst_gap = max(worst_gap, np.abs(sim.data.efc_pos[equality]).max())
        rods = sim.data.efc_J.reshape(sim.data.nefc, sim.model.nv)[equality].T @ sim.data.efc_force[equality]
        ankle_torque = max(ankle_torque, np.abs(rods[ankles]).max())
    q, _ = sim.state()
    assert q[2] > 0.9 * start and abs(q[0]) < 0.05
    assert worst_rows < 1e-9
    assert worst_gap < 1e-6
    assert ankle_torque > 5.0                   # the rods' forces hold the ankles (N·m)
