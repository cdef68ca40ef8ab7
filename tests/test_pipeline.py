"""Controllers as pipelines of stages: per-step overrides instead of item changes, one layout
build per relaxed step, a re-anchored contact moving the support, user stages — checked
against the geometry (pinocchio's frame placements) and the solver's own items, without the
simulator."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.control import BalanceController
from tsid_py.control.capture_point import SupportPolygon, sole_corners
from tsid_py.control.failure import SLACKENED, SOFTENED, FailurePolicy
from tsid_py.control.pipeline import Stage
from tsid_py.overrides import StepOverrides

from .conftest import load_robot, standing_solver


def moved_foot(robot: tp.Robot, foot: str, shift) -> np.ndarray:
    """A configuration at which ``foot``'s frame is ``shift`` (3,) m from where it is at
    ``q_ref``, same orientation, the base and the other joints unchanged (Gauss-Newton on
    the foot's leg joints, checked to 1e-9 m)."""
    model, data = robot.model, robot.model.createData()
    frame = robot.frame_id(foot)
    pin.framesForwardKinematics(model, data, robot.q_ref)
    goal = pin.SE3(data.oMf[frame].rotation, data.oMf[frame].translation + np.asarray(shift, dtype=float))
    columns = [joint.idx_v for joint in (model.joints[j] for j in model.supports[model.frames[frame].parentJoint])
               if joint.idx_v >= 6]
    q = robot.q_ref.copy()
    for _ in range(50):
        pin.framesForwardKinematics(model, data, q)
        error = pin.log6(data.oMf[frame].actInv(goal)).vector
        if np.linalg.norm(error) < 1e-12:
            break
        jacobian = pin.computeFrameJacobian(model, data, q, frame, pin.LOCAL)[:, columns]
        step = np.zeros(robot.nv)
        step[columns] = np.linalg.lstsq(jacobian, error, rcond=None)[0]
        q = pin.integrate(model, q, step)
    pin.framesForwardKinematics(model, data, q)
    assert np.linalg.norm(data.oMf[frame].translation - goal.translation) < 1e-9
    return q


def test_a_re_anchored_sole_moves_the_support_the_commanded_cop_is_kept_in(talos):
    """The right sole slides 10 cm forward. The contact-state monitor softens it (no load
    measured) and re-anchors it where it now is; the commanded centre of pressure, saturated
    by a forward capture point, then lies in the support of the soles where they are now —
    the hull of the sole rectangles at that configuration (pinocchio's placements) — and
    beyond the front edge of the support they had left."""
    controller = BalanceController(talos)
    right, left = "right_sole_link", "left_sole_link"
    old_front = SupportPolygon(controller.support.vertices).vertices[:, 0].max()
    q_moved = moved_foot(talos, right, [0.10, 0.0, 0.0])
    v = talos.zero_velocity()
    loaded = {left: np.r_[0.0, 0.0, talos.weight, 0.0, 0.0, 0.0], right: np.r_[0.0, 0.0, talos.weight, 0.0, 0.0, 0.0]}
    controller.step(q_moved, v)
    controller.step(q_moved, v, {**loaded, right: np.zeros(6)})          # unloaded: softened, re-anchored
    assert right in controller.contact_state.softened
    for _ in range(int(round(controller.contact_state.settle_time / controller.dt)) + 2):
        controller.step(q_moved, v, loaded)                             # settled: hard again
    assert not controller.contact_state.softened
    rushing = v.copy()
    rushing[0] = 1.5                                                    # the base at 1.5 m/s forward
    controller.step(q_moved, rushing, loaded)
    assert controller.com.saturated
    talos.update(q_moved, v)
    contact = controller.solver.contacts[right]
    footprint = SupportPolygon(sole_corners(talos, [left, right], (contact.length, contact.width)))
    cop = controller.com.cop
    assert footprint.outside_xy(*cop) <= 1e-9
    assert cop[0] > old_front + 0.05
    np.testing.assert_allclose(contact.anchor.translation, talos.frame_placement(talos.frame_id(right)).translation,
                               atol=1e-9)


def test_a_relaxed_step_builds_at_most_one_layout_and_changes_no_item(talos):
    """A step the QP cannot solve (a hard task against the hard soles; then every joint held
    still under torque limits below gravity's torques): the failure policy softens the
    contacts, then slackens the torque limits, through per-step overrides — one new layout
    on the first relaxed step (the slack reuses it), none on the next, every item's
    settings as they were."""
    solver = standing_solver(talos, diagnose=False)
    limits = solver.add_constraint(tp.constraints.TorqueLimits(scale=1.0))
    foot = solver.add_task(tp.tasks.PositionTask(talos.feet[0], kp=0.0, priority="hard"))
    foot.set_target(np.zeros(3), acceleration=[0.0, 0.0, 5.0])
    policy = FailurePolicy(solver)
    q, v = talos.q_ref, talos.zero_velocity()

    def builds_of_a_relaxed_step(expected):
        with pytest.raises(tp.SolverError):
            solver.solve(q, v)                          # the configured layout, built once
        before = solver.layouts_built
        solution = policy.solve(q, v)
        assert solution.relaxed == expected and not solution.success
        first = solver.layouts_built - before
        policy.solve(q, v)
        return first, solver.layouts_built - before - first

    assert builds_of_a_relaxed_step((SOFTENED,)) == (1, 0)
    assert all(contact.priority == "hard" and contact.weight == 1e3 for contact in solver.contacts.values())
    solver.remove_task(foot)
    solver.add_task(tp.tasks.JointTask(kp=0.0, kd=0.0, priority="hard"))
    solver.add_task(tp.tasks.CoMTask(kp=0.0, kd=0.0, priority="hard"))
    held = solver.solve(q, v)                           # the torques that hold every joint still
    limits.scale = 0.8 * float(np.max(np.abs(held.tau_actuated) / talos.effort_limits))
    scale = limits.scale
    assert builds_of_a_relaxed_step((SOFTENED, SLACKENED)) == (1, 0)
    assert limits.scale == scale
    assert all(contact.priority == "hard" for contact in solver.contacts.values())


def test_overrides_soften_a_contact_for_one_step_and_name_what_is_wrong(talos):
    """Softened by an override, a contact's no-slip rows are a cost of the given weight for
    that step: the rows equal the hard rows times √weight; the next step is hard again.
    Overrides naming an inactive contact or a task not in the solver are refused."""
    solver = standing_solver(talos)
    q, v = talos.q_ref, talos.zero_velocity()
    v[3] = 0.5
    hard = solver.solve(q, v)
    hard_rows = solver.last_qp.A.copy()
    overrides = StepOverrides()
    overrides.soften(talos.feet[0], 4.0)
    soft = solver.solve(q, v, overrides)
    layout = solver.last_layout
    assert layout.softened == {talos.feet[0]}
    rows, _, _ = layout.soft_contact_rows[talos.feet[0]]
    np.testing.assert_allclose(rows, 2.0 * hard_rows[6:12, : talos.nv], rtol=1e-12, atol=1e-12)
    assert not np.allclose(soft.ddq, hard.ddq)
    np.testing.assert_allclose(solver.solve(q, v).ddq, hard.ddq, atol=1e-9)
    bad = StepOverrides()
    bad.soften("no_such_sole", 1.0)
    with pytest.raises(KeyError, match="no_such_sole"):
        solver.solve(q, v, bad)
    stray = StepOverrides()
    stray.weigh(tp.tasks.CoMTask(kp=1.0), 2.0)
    with pytest.raises(ValueError, match="not a soft task"):
        solver.solve(q, v, stray)
    with pytest.raises(ValueError, match="weight"):
        StepOverrides().soften(talos.feet[0], -1.0)


def test_overrides_built_before_a_removal_ramp_ends_do_not_stop_the_step(talos):
    """A step's overrides are built before its solve, and the solve first retires a contact
    whose removal ramp has ended (a failure policy's retry does too, within the step): an
    override that still names it changes nothing — the step is solved as without it, the
    contact gone — while a contact removed at once, or never added, is still refused."""
    solver = standing_solver(talos)
    q, v = talos.q_ref, talos.zero_velocity()
    left = talos.feet[0]
    solver.solve(q, v)
    solver.remove_contact(left, transition=0.003)
    solver.add_task(tp.tasks.FrameTask(left, kp=300.0, weight=10.0))
    for _ in range(3):                                   # the ramp's three steps: left still there
        overrides = StepOverrides()
        overrides.soften(left, 4.0)
        overrides.bound_normal_force(left, 0.0, 1.0)
        solver.solve(q, v, overrides)
        assert left in solver.contacts
    retired = solver.solve(q, v, overrides)              # the ramp ended: the solve retires it
    assert left not in solver.contacts and left not in retired.wrenches
    np.testing.assert_allclose(retired.ddq, solver.solve(q, v).ddq, atol=1e-12)
    solver.add_contact(tp.PlanarContact(left, length=0.2, width=0.13))
    solver.remove_contact(left)                          # at once: the caller knows it is gone
    with pytest.raises(KeyError, match=left):
        solver.solve(q, v, overrides)


def test_a_task_weight_override_is_the_solve_of_a_task_built_with_it(talos):
    """A step's weight override gives the solution of the same problem whose task was built
    with that weight (row tasks and diagonal tasks alike)."""
    q, v = talos.q_ref.copy(), talos.zero_velocity()
    v[6:] = 0.3
    for make in (lambda weight: tp.tasks.CoMTask(kp=100.0, weight=weight),
                 lambda weight: tp.tasks.JointTask(talos.q_ref, kp=10.0, weight=weight)):
        reference = standing_solver(talos)
        reference.add_task(make(5.0))
        expected = reference.solve(q, v)
        solver = standing_solver(talos)
        task = solver.add_task(make(1.0))
        overrides = StepOverrides()
        overrides.weigh(task, 5.0)
        got = solver.solve(q, v, overrides)
        np.testing.assert_allclose(got.x, expected.x, rtol=1e-7, atol=1e-8)
        assert np.all(task.weight == 1.0)


class _RecordingStage(Stage):
    """A user's stage: records the time and the previous solution's success each step."""

    def __init__(self):
        self.seen = []

    def step(self, state):
        self.seen.append((state.time, None if state.previous is None else state.previous.success))


def test_a_user_stage_runs_in_order_and_sees_the_step_state():
    robot = load_robot("talos")
    controller = BalanceController(robot)
    stage = controller.insert(_RecordingStage(), before=controller.solve_stage)
    assert controller.stages.index(stage) == controller.stages.index(controller.solve_stage) - 1
    for _ in range(3):
        controller.step(robot.q_ref, robot.zero_velocity())
    assert stage.seen == [(0.0, None), (pytest.approx(1e-3), True), (pytest.approx(2e-3), True)]
    with pytest.raises(KeyError, match="stages"):
        controller.insert(_RecordingStage(), after=object())
    with pytest.raises(ValueError, match="step"):
        controller.insert(object())


def test_assigning_a_scalar_override_is_its_method(talos):
    """``overrides.torque_limit_scale = f`` and ``overrides.levels_from = k`` do what
    ``scale_torque_limits(f)`` and ``drop_levels(k)`` do — checked and active, the same step —
    instead of being stored on an inactive object the solver ignores; ``clear()`` resets them."""
    q, v = talos.q_ref.copy(), talos.zero_velocity()
    by_method, assigned = StepOverrides(), StepOverrides()
    by_method.scale_torque_limits(0.6)
    assigned.torque_limit_scale = 0.6
    assert assigned.active and assigned.torque_limit_scale == 0.6


    def solved(overrides):
        solver = standing_solver(talos)
        solver.add_constraint(tp.constraints.TorqueLimits())
        return solver.solve(q, v, overrides).x

    assert np.array_equal(solved(assigned), solved(by_method))
    with pytest.raises(ValueError, match="factor"):
        assigned.torque_limit_scale = 0.0
    assigned.levels_from = 2
    assert assigned.levels_from == 2
    with pytest.raises(ValueError, match="first"):
        assigned.levels_from = "soft"
    assigned.clear()
    assert not assigned.active and assigned.torque_limit_scale == 1.0 and assigned.levels_from is None


def test_a_refilling_solve_stage_takes_the_steady_step_with_the_same_torques_through_a_relaxed_step():
    """Two balance controllers on Talos, one with ``refill`` (its solve stage's), recovering from a
    sideways base velocity (each integrating its own q̈), with a foot task the hard soles
    cannot satisfy for five steps (the failure policy softens the soles: new solutions, then
    refilled again): the same torques bit for bit every step, the refilling one in the
    steady step on most of them and returning one object between relaxations."""
    runs = []
    for refill in (False, True):
        robot = load_robot("talos")
        controller = BalanceController(robot)
        controller.refill = refill
        q, v = robot.q_ref.copy(), robot.zero_velocity()
        v[1] = 0.1
        torques, steady, objects = [], 0, set()
        for k in range(240):
            if k == 100:
                foot = controller.solver.add_task(tp.tasks.PositionTask(robot.feet[0], kp=0.0, priority="hard"))
                foot.set_target(np.zeros(3), acceleration=[0.0, 0.0, 5.0])
            if k == 105:
                controller.solver.remove_task(foot)
            solution = controller.step(q, v)
            assert (k in range(100, 105)) == (not solution.success)
            torques.append(solution.tau_actuated.copy())
            steady += controller.solver.last_step_steady
            if k >= 120:
                objects.add(id(solution))
            v = v + 1e-3 * solution.ddq
            q = pin.integrate(robot.model, q, 1e-3 * v)
        runs.append((np.array(torques), steady, len(objects)))
    (plain, plain_steady, _), (refilled, refill_steady, refill_objects) = runs
    np.testing.assert_array_equal(refilled, plain)
    assert plain_steady == 0 and refill_steady >= 200 and refill_objects == 1
    with pytest.raises(ValueError, match="refill must be True or False, got 'yes'"):
        controller.refill = "yes"
