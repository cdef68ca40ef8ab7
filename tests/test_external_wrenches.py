"""Known external wrenches in the equation of motion, against pinocchio's RNEA and Jacobians."""

import copy
import pickle

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.control import BalanceController
from tsid_py.control.external import ExternalWrenchStage, attach_external_wrench

from .conftest import load_robot, perturbed_state, standing_solver

HAND, OTHER_HAND = "arm_right_7_link", "arm_left_7_link"


def _residual(robot, sol, q, v, known):
    """``RNEA(q, v, q̈) − Σ J_kᵀ w_k − Σ J_cᵀ f_c − τ`` with pinocchio's own Jacobians (world
    wrenches at each frame's origin: LOCAL_WORLD_ALIGNED; local ones: LOCAL; a moment about a
    point moved to the origin by ``m_o = m_p + (p − o) × f``)."""
    model, data = robot.model, robot.model.createData()
    residual = pin.rnea(model, data, q, v, sol.ddq)
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    for frame, wrench, local, point in known:
        frame_id = model.getFrameId(frame)
        wrench = np.array(wrench, dtype=float)
        if point is not None:
            wrench[3:] += np.cross(np.asarray(point) - data.oMf[frame_id].translation, wrench[:3])
        jacobian = pin.getFrameJacobian(model, data, frame_id, pin.LOCAL if local else pin.LOCAL_WORLD_ALIGNED)
        residual -= jacobian.T @ wrench
    for name, wrench in sol.wrenches.items():
        residual -= pin.getFrameJacobian(model, data, model.getFrameId(name), pin.LOCAL_WORLD_ALIGNED).T @ wrench
    return residual - sol.tau


def test_known_wrenches_satisfy_rnea_with_external_forces(talos, rng):
    """World, local and about-a-point wrenches on two hands: RNEA(q, v, q̈) − Jᵀw − Σ J_cᵀ f_c
    = Sᵀτ to 1e-9 at random states, with τ[:6] = 0."""
    solver = standing_solver(talos)
    right = solver.add_external_wrench(tp.ExternalWrench(HAND))
    left = solver.add_external_wrench(tp.ExternalWrench(OTHER_HAND, local=True))
    for trial in range(4):
        q, v = perturbed_state(talos, rng)
        w_right, w_left = rng.normal(0, 30, 6), rng.normal(0, 30, 6)
        point = rng.normal(0, 0.5, 3) if trial % 2 else None
        right.set_wrench(w_right, point)
        left.set_wrench(w_left)
        sol = solver.solve(q, v)
        residual = _residual(talos, sol, q, v, [(HAND, w_right, False, point), (OTHER_HAND, w_left, True, None)])
        assert np.abs(residual).max() < 1e-9
        assert np.abs(sol.tau[:6]).max() == 0.0


def test_fixed_base_torques_are_rnea_minus_the_wrench(rng):
    robot = load_robot("panda")
    solver = tp.DynamicsSolver(robot)
    task = solver.add_task(tp.tasks.JointTask(kp=0.0, kd=0.0, priority="hard"))
    wrench = solver.add_external_wrench(tp.ExternalWrench("panda_hand", [5.0, -3.0, -20.0, 0.5, 0.2, -0.1]))
    q, v, a = pin.randomConfiguration(robot.model), rng.normal(0, 1, robot.nv), rng.normal(0, 2, robot.nv)
    task.set_target(q, velocity=v, acceleration=a)
    sol = solver.solve(q, v)
    assert np.abs(_residual(robot, sol, q, v, [("panda_hand", wrench.wrench, False, None)])).max() < 1e-9
    np.testing.assert_allclose(wrench.generalized_force(), pin.rnea(robot.model, robot.model.createData(), q, v, a)
                               - sol.tau, atol=1e-9)


def test_a_carried_weight_is_borne_by_the_feet(talos):
    """Newton's law on the whole robot: Σ f_c + f_known = m (c̈ − g), so holding the CoM
    still the feet carry the weight plus the load's pull."""
    solver = standing_solver(talos)
    load = solver.add_external_wrench(tp.ExternalWrench(HAND, [0.0, 0.0, -98.1, 0.0, 0.0, 0.0]))
    q, v = talos.q_ref, talos.zero_velocity()
    sol = solver.solve(q, v)
    forces = sum(w[:3] for w in sol.wrenches.values()) + load.wrench[:3]
    com_acceleration = talos.com_jacobian @ sol.ddq + talos.com_drift
    np.testing.assert_allclose(forces, talos.mass * (com_acceleration - talos.model.gravity.linear), atol=1e-8)
    assert sol.total_normal_force > talos.weight + 90.0


def test_a_wrench_is_owned_by_one_solver_and_validated(talos):
    solver = standing_solver(talos)
    item = solver.add_external_wrench(tp.ExternalWrench(HAND))
    with pytest.raises(ValueError, match="already added"):
        solver.add_external_wrench(item)
    with pytest.raises(ValueError, match="belongs to another solver"):
        standing_solver(load_robot("talos")).add_external_wrench(item)
    with pytest.raises(ValueError, match="already in the solver"):
        solver.add_external_wrench(tp.ExternalWrench(HAND))
    with pytest.raises(KeyError, match="no_such_link"):
        solver.add_external_wrench(tp.ExternalWrench("no_such_link"))
    assert [w.name for w in solver.external_wrenches] == [HAND]
    with pytest.raises(ValueError, match=r"wrench of 'arm_right_7_link' must have shape \(6,\)"):
        item.set_wrench([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="must be finite"):
        item.set_wrench([np.nan, 0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="point of"):
        item.set_wrench(np.zeros(6), point=[0.0, 1.0])
    with pytest.raises(ValueError, match="local must be True or False"):
        item.local = "yes"
    with pytest.raises(ValueError, match="frame must be a frame name"):
        tp.ExternalWrench(3)
    with pytest.raises(ValueError, match="must be a tsid_py.ExternalWrench"):
        solver.add_external_wrench([0.0] * 6)
    with pytest.raises(KeyError, match="gripper"):
        solver.remove_external_wrench("gripper")
    solver.remove_external_wrench(HAND)
    assert item.owner is None and solver.external_wrenches == []


def test_the_wrench_is_read_at_each_solve_and_copies_are_independent(talos):
    """set_wrench takes effect at the next solve without rebuilding the QP; a pickled or
    deep-copied solver has its own wrench."""
    solver = standing_solver(talos)
    item = solver.add_external_wrench(tp.ExternalWrench(HAND))
    q, v = talos.q_ref, talos.zero_velocity()
    unloaded = solver.solve(q, v).total_normal_force
    built = solver.layouts_built
    weight = np.array([0.0, 0.0, -50.0, 0.0, 0.0, 0.0])
    item.set_wrench(weight)
    weight[2] = 0.0                               # the item keeps its own copy
    loaded = solver.solve(q, v)
    assert solver.layouts_built == built
    assert loaded.total_normal_force == pytest.approx(unloaded + 50.0, abs=0.5)
    for other in (pickle.loads(pickle.dumps(solver)), copy.deepcopy(solver)):
        copied = other.external_wrenches[0]
        np.testing.assert_array_equal(copied.wrench, item.wrench)
        np.testing.assert_allclose(other.solve(q, v).tau, loaded.tau, atol=1e-9)
        copied.set_wrench(np.zeros(6))
        assert other.solve(q, v).total_normal_force == pytest.approx(unloaded, abs=0.5)
    assert solver.solve(q, v).total_normal_force == pytest.approx(loaded.total_normal_force)


def test_a_controller_stage_hands_the_measured_wrench_to_the_solver(talos):
    controller = BalanceController(talos)
    stage = attach_external_wrench(controller, HAND)
    assert isinstance(controller.stages[controller.index(ExternalWrenchStage) + 1], type(controller.solve_stage))
    measured = np.array([0.0, 0.0, -98.1, 0.0, 0.0, 0.0])
    q, v = talos.q_ref, talos.zero_velocity()
    free = controller.step(q, v).total_normal_force
    loaded = controller.step(q, v, wrenches={HAND: measured})
    np.testing.assert_array_equal(stage.wrench.wrench, measured)
    assert loaded.total_normal_force == pytest.approx(free + 98.1, abs=1.0)
    controller.step(q, v)                         # no reading this step: the last value holds
    np.testing.assert_array_equal(stage.wrench.wrench, measured)
    with pytest.raises(ValueError, match="source must be a callable"):
        ExternalWrenchStage(stage.wrench, source=[0.0] * 6)
