"""Every compiled fast path equals its readable definition, in one parametrised test.

The items on the control loop's path write their rows into the solver's buffers in compiled
code; each also has a readable definition in numpy and pinocchio: a task's ``compute``
(for a PD task, the PD law on its ``kinematics``), a diagonal cost's rows, a constraint's
``rows``, a contact's ``compute``. The registry below holds one or more cases per class
that has a fast path, and a second test checks that every such class in the package is in it
— a new fast path without a case fails.
"""

from __future__ import annotations

import inspect

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.closures import Closure, FrameClosure, JointCoupling, PointClosure
from tsid_py.constraints.base import LinearConstraint
from tsid_py.contacts import Contact
from tsid_py.control.capture_point import SupportPolygon, sole_corners
from tsid_py.control.dcm import CapturePointTask
from tsid_py.control.quadruped import ForceTargets
from tsid_py.control.wrench_regularization import WrenchRegularization
from tsid_py.items import SolverItem
from tsid_py.tasks.base import DiagonalTask, PDTask, Task

from .conftest import load_robot


def _force_targets(robot):
    task = ForceTargets(2e-3)
    task.set_target({robot.feet[0]: [3.0, -2.0, 40.0], robot.feet[2]: [-1.0, 0.5, 35.0]})
    return task


def _capture_point(robot):
    task = CapturePointTask(0.87, gain=5.0, hip_ratio=0.5)
    return task


#: name -> (robot, factory(robot) -> item, (spread of the random state's velocities, the
#: base's forward velocity), m/s or rad/s)
CASES = {
    "com": ("talos", lambda r: tp.tasks.CoMTask(kp=100.0, weight=[1.0, 4.0, 9.0], mask=[1, 0, 1]), (0.5, 0.0)),
    "frame": ("talos", lambda r: tp.tasks.FrameTask("arm_left_7_link", kp=30.0, weight=[1, 1, 1, 4, 4, 4]),
              (0.5, 0.0)),
    "frame local masked": ("talos", lambda r: tp.tasks.FrameTask("arm_right_7_link", local=True, kp=20.0,
                                                                 weight=[1, 2, 3, 4, 5, 6], mask=[1, 1, 0, 1, 0, 1]),
                           (0.5, 0.0)),
    "position": ("talos", lambda r: tp.tasks.PositionTask("leg_left_6_link", kp=40.0, weight=3.0), (0.5, 0.0)),
    "orientation": ("talos", lambda r: tp.tasks.OrientationTask("torso_2_link", kp=50.0, kd=3.0, weight=2.0),
                    (0.5, 0.0)),
    "orientation local": ("talos", lambda r: tp.tasks.OrientationTask("arm_left_4_link", local=True, kp=25.0),
                          (0.5, 0.0)),
    "relative frame (PD rows through the dispatcher)": (
        "talos", lambda r: tp.tasks.RelativeFrameTask("gripper_left_base_link", "torso_2_link", kp=15.0), (0.5, 0.0)),
    "capture point, CoP inside": ("talos", _capture_point, (0.01, 0.0)),
    "capture point, CoP saturated": ("talos", _capture_point, (0.01, 0.8)),
    "torque": ("talos", lambda r: tp.tasks.TorqueTask([5.0, -3.0, 1.0], joints=["leg_left_4_joint", "arm_left_2_joint",
                                                                                 "torso_1_joint"], weight=[1, 2, 3]),
               (0.5, 0.0)),
    "posture (diagonal)": ("talos", lambda r: tp.tasks.JointTask(r.q_ref, kp=10.0, weight=np.linspace(1, 2, r.na)),
                           (0.5, 0.0)),
    "acceleration (diagonal)": ("go2", lambda r: tp.tasks.AccelerationTask(np.ones(r.nv), weight=2.0), (0.5, 0.0)),
    "force regularisation (diagonal)": ("go2", lambda r: tp.tasks.ForceRegularization(3.0), (0.5, 0.0)),
    "wrench regularisation (diagonal)": ("talos", lambda r: WrenchRegularization([1, 2, 3, 4, 5, 6]), (0.5, 0.0)),
    "force targets (diagonal)": ("go2", lambda r: _force_targets(r), (0.5, 0.0)),
    "momentum": ("talos", lambda r: tp.tasks.MomentumTask([1.0, -2.0, 0.5, 0.3, -0.2, 0.1], components="both",
                                                         kp=[1, 2, 3, 4, 5, 6], weight=[1, 2, 3, 4, 5, 6],
                                                         mask=[1, 1, 0, 1, 0, 1]), (0.5, 0.0)),
    "torque limits": ("talos", lambda r: tp.constraints.TorqueLimits(scale=0.7), (0.5, 0.0)),
    "self-collision (the forearms, one piece each)": (
        "talos", lambda r: tp.constraints.SelfCollisionAvoidance(activation_distance=2.0, max_pairs=2,
                                                                links=[("arm_left_5_link", "arm_right_5_link")]),
        (0.5, 0.0)),
    "planar contact": ("talos", lambda r: tp.PlanarContact("left_sole_link", kp=30.0, kd=9.0), (0.5, 0.0)),
    "point contact": ("go2", lambda r: tp.PointContact(r.feet[0], kp=50.0, kd=7.0), (0.5, 0.0)),
    "point closure": ("talos", lambda r: PointClosure("arm_left_7_link", "arm_right_7_link", (0.01, 0.02, -0.1),
                                                      (0.0, -0.03, 0.05), kp=30.0), (0.5, 0.0)),
    "frame closure": ("talos", lambda r: FrameClosure("gripper_left_base_link", "torso_2_link",
                                                      pin.SE3(pin.rpy.rpyToMatrix(0.2, 0.1, -0.3), np.array([0.1, 0, 0])),
                                                      kp=20.0, kd=3.0), (0.5, 0.0)),
    "joint coupling": ("talos", lambda r: JointCoupling({"arm_left_1_joint": 1.0, "arm_left_2_joint": 0.5},
                                                        {"arm_right_1_joint": 1.0}, (0.1, -0.7), (0.2, 0.3)),
                       (0.5, 0.0)),
    "joint coupling, quadratic (through the readable rows)": (
        "talos", lambda r: JointCoupling({"leg_left_4_joint": 1.0}, {"leg_right_4_joint": 1.0}, (0.0, 1.0, 0.4)),
        (0.5, 0.0)),
}


def _solver_with(robot, item, rng, velocities):
    """A solver with the robot's feet in contact (planar soles or points) and ``item``, its
    QP assembled once at a random state near the reference posture (the contacts anchored
    there, then displaced: their drift terms are not zero)."""
    solver = tp.DynamicsSolver(robot)
    feet = [foot for foot in robot.feet if not (isinstance(item, Contact) and item.frame == foot)]
    for foot in feet:
        contact = (tp.PlanarContact(foot, *robot.sole_size) if robot.sole_size else tp.PointContact(foot))
        solver.add_contact(contact)
    added = (solver.add_contact(item) if isinstance(item, Contact) else solver.add_closure(item)
             if isinstance(item, Closure) else solver.add_constraint(item) if isinstance(item, LinearConstraint)
             else solver.add_task(item))
    spread, base_velocity = velocities
    q = pin.integrate(robot.model, robot.q_ref, rng.normal(0, 0.1 * spread, robot.nv))
    v = rng.normal(0, spread, robot.nv)
    v[0] += base_velocity
    robot.update(robot.q_ref, robot.zero_velocity())
    for contact in solver.contacts.values():
        contact.anchor_at(robot.frame_placement(contact.frame_id))
    if isinstance(item, CapturePointTask):
        item.set_support(SupportPolygon(sole_corners(robot)))
    if isinstance(item, PDTask):             # the target at q_ref, moving: the state is elsewhere
        item.set_target(item.default_target(robot), velocity=spread * rng.normal(size=item.dim),
                        acceleration=spread * rng.normal(size=item.dim))
    robot.update(q, v)
    layout = solver.layout
    layout.assemble()
    return solver, layout.context, added


def _dense_cost(matrix, vector, n):
    """``(Aᵀ A, Aᵀ b)`` of the cost ``||A x − b||²`` over ``n`` variables."""
    full = np.zeros((matrix.shape[0], n))
    full[:, : matrix.shape[1]] = matrix
    return full.T @ full, full.T @ vector


def fast_and_readable(item, context):
    """The item's rows from its compiled fast path and from its readable definition, in one
    comparable form: a task as its weighted cost ``(H, g)``, a constraint as
    ``(C, lower, upper)``, a contact or a closure as ``(force block, A, b)``."""
    robot, n = context.robot, context.n
    if isinstance(item, Closure):
        block, matrix, vector = (np.full((robot.nv, item.size), np.nan), np.full((item.size, robot.nv), np.nan),
                                 np.full(item.size, np.nan))
        item.write_rows(robot, block, matrix, vector)
        jacobian, drift, error = item.compute(robot)
        return (block, matrix, vector), (-jacobian.T, jacobian, -drift - item.kd * jacobian @ robot.v - item.kp * error)
    if isinstance(item, Contact):
        rows = item.motion_rows.stop - item.motion_rows.start if item.kinematic else 0
        block, root, matrix, vector = (np.full((robot.nv, item.size), np.nan), np.full((6, item.size), np.nan),
                                       np.full((rows, robot.nv), np.nan), np.full(rows, np.nan))
        item.write_rows(robot, block, root, matrix, vector)
        np.testing.assert_array_equal(root, block[:6])
        return (block, matrix, vector), item.compute(robot)
    if isinstance(item, LinearConstraint):
        size = item.row_count(context)
        matrix, lower, upper = np.full((size, n), np.nan), np.full(size, np.nan), np.full(size, np.nan)
        item.write_rows(context, matrix, lower, upper)
        return (matrix, lower, upper), tuple(item.rows(context))
    readable = _dense_cost(*item.weighted_rows(context), n)
    if isinstance(item, DiagonalTask):
        targets = np.zeros(n)
        columns, weights = item.diagonal(context, targets)
        hessian = np.zeros((n, n))
        hessian[np.arange(n)[columns], np.arange(n)[columns]] = weights
        return (hessian, targets), readable
    width = n if item.acts_on == "x" else context.nv
    matrix, vector = np.full((item.size, width), np.nan), np.full(item.size, np.nan)
    item.write_rows(context, matrix, vector, weighted=True)
    return _dense_cost(matrix, vector, n), readable


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_compiled_fast_path_equals_its_readable_definition(case, rng):
    robot_name, make, velocities = CASES[case]
    for trial in range(3):
        robot = load_robot(robot_name)
        item = make(robot)
        solver, context, item = _solver_with(robot, item, rng, velocities)
        fast, readable = fast_and_readable(item, context)
        for got, expected in zip(fast, readable, strict=True):
            np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-10, err_msg=f"{case}, trial {trial}")
        if isinstance(item, CapturePointTask):
            assert item.saturated == (velocities[1] > 0), "the case exercises the path it is named for"


def _fast_path_classes():
    """Every class of the package that defines a compiled fast path: its own ``write_rows``
    or ``diagonal`` (the base classes' ``write_rows`` that go through the readable ``compute``
    and ``rows`` are not fast paths)."""
    import tsid_py.control  # noqa: F401 (its items are the package's too)

    found, pending = set(), [SolverItem]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if not cls.__module__.startswith("tsid_py") or inspect.isabstract(cls) and cls is not PDTask:
            continue
        if ("write_rows" in vars(cls) and cls not in (Task, LinearConstraint, Closure)) or "diagonal" in vars(cls):
            found.add(cls)
    return found


def test_every_fast_path_class_has_a_case():
    covered = set()
    for robot_name, make, _ in CASES.values():
        covered.update(type(make(load_robot(robot_name))).__mro__)
    classes = _fast_path_classes()
    assert {tp.tasks.FrameTask, tp.PlanarContact.__mro__[1], tp.constraints.TorqueLimits} <= classes
    missing = sorted(cls.__qualname__ for cls in classes if cls not in covered)
    assert not missing, f"compiled fast paths without a case in CASES: {missing}"


class _UncoveredTask(tp.tasks.CoMTask):
    """A fast path no case covers (defined here: the check must see it)."""

    def write_rows(self, context, matrix, vector, weighted):
        super().write_rows(context, matrix, vector, weighted)


def test_the_coverage_check_sees_a_fast_path_without_a_case(monkeypatch):
    monkeypatch.setattr(_UncoveredTask, "__module__", "tsid_py.tasks.uncovered")
    assert _UncoveredTask in _fast_path_classes()
