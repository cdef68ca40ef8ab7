"""The compiled assembly (tsid_py.assembly_program) against the items' own writers: the same
rows, bit for bit, on problems with every kind it compiles and some it leaves to Python, while
targets, settings and anchors change between steps."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.closures import JointCoupling
from tsid_py.overrides import StepOverrides
from tsid_py.tasks.base import PDTask
from tsid_py.rows import PDKinematics


class HeightTask(PDTask):
    """A user's task (written by its own writer, after the program): the base height."""

    def __init__(self, **options):
        super().__init__(1, **options)

    def kinematics(self, robot):
        jacobian = robot.frame_jacobian(1)[2:3]
        return PDKinematics(self.position_ref - robot.q[2:3], jacobian, np.zeros(1), 0)


def buffers(layout) -> list[np.ndarray]:
    arrays = [layout.D, layout.A, layout.b, layout.A_soft, layout.b_soft, layout.cost_diagonal,
              layout.cost_diagonal_targets, layout.C, layout.l, layout.u]
    errors = [array for task in [*layout.hard_tasks, *layout.soft_tasks] if isinstance(task, PDTask)
              for array in (task.error, task.error_rate)]
    return [array.copy() for array in arrays + errors]


def assert_program_equals_writers(solver):
    """The last step's layout assembled by the program and by the items' own writers."""
    layout = solver.last_layout
    assert layout.program is not None
    layout.assemble()
    compiled = buffers(layout)
    layout._write_rows(layout.context, None, None)
    for got, expected in zip(compiled, buffers(layout)):
        np.testing.assert_array_equal(got, expected)


def humanoid(robot):
    solver = tp.DynamicsSolver(robot)
    length, width = robot.sole_size
    solver.add_contact(tp.PlanarContact(robot.feet[0], length=length, width=width, mu=0.8))
    solver.add_contact(tp.PlanarContact(robot.feet[1], length=length, width=width, mu=0.8, priority="soft",
                                        weight=2e3))
    tasks = dict(
        com=solver.add_task(tp.tasks.CoMTask(kp=100.0, weight=[1.0, 2.0, 3.0])),
        torso=solver.add_task(tp.tasks.OrientationTask("torso_2_link", kp=50.0, mask=[True, True, False])),
        hand=solver.add_task(tp.tasks.FrameTask("gripper_left_joint", kp=30.0, local=True, weight=0.5)),
        elbow=solver.add_task(tp.tasks.PositionTask("arm_right_4_link", kp=20.0, priority="hard")),
        posture=solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=30.0, weight=1e-2)),
        wrist=solver.add_task(tp.tasks.TorqueTask(joints=["arm_left_7_joint"], weight=1e-3)),
        height=solver.add_task(HeightTask(kp=10.0, weight=0.1)),
    )
    solver.add_constraint(tp.constraints.TorqueLimits())
    solver.add_constraint(tp.constraints.JointLimits())
    return solver, tasks


def test_the_program_writes_what_the_items_write():
    robot = tp.robots.load("talos")
    solver, tasks = humanoid(robot)
    q, v = robot.q_ref.copy(), robot.zero_velocity()
    robot.update(q, v)
    centre = robot.com.copy()
    for k in range(12):
        tasks["com"].set_target(centre + [0.0, 0.01 * k, 0.0], velocity=[0.0, 0.01, 0.0])
        if k == 3:
            tasks["posture"].weight = 2e-2                       # a setting
            tasks["torso"].set_gains(80.0)                       # gains set by a method
        if k == 5:
            solver.reanchor_contact(robot.feet[0])               # a contact anchored anew
            tasks["hand"].set_target(robot.frame_placement(robot.frame_id("gripper_left_joint")))
        if k == 7:
            tasks["wrist"].set_target([1.5])
        solution = solver.solve(q, v)
        assert_program_equals_writers(solver)
        v = v + 1e-3 * solution.ddq
        q = pin.integrate(robot.model, q, 1e-3 * v)
    layout = solver.last_layout
    assert [task for task, _, _ in layout.program.python.soft] == [tasks["height"]]
    assert layout.program.python.linear == []          # position limits are a box: the layout's own


def test_steps_with_overrides_take_the_writers_and_the_errors_stay_the_tasks_own():
    robot = tp.robots.load("go2")
    solver = tp.DynamicsSolver(robot)
    for foot in robot.feet:
        solver.add_contact(tp.PointContact(foot, mu=0.6))
    com = solver.add_task(tp.tasks.CoMTask(kp=50.0))
    solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=20.0, weight=1e-2))
    solver.add_constraint(tp.constraints.TorqueLimits())
    q, v = robot.q_ref, robot.zero_velocity()
    solver.solve(q, v)
    assert_program_equals_writers(solver)
    softened = StepOverrides()
    softened.soften(robot.feet[0], 1e3)
    solver.solve(q, v, softened)                            # another layout, without a program
    assert solver.last_layout.program is None
    np.testing.assert_array_equal(com.error, com.position_ref - robot.com)
    solver.solve(q, v)
    np.testing.assert_array_equal(com.error, com.position_ref - robot.com)
    assert_program_equals_writers(solver)


def test_layouts_the_program_leaves_to_the_writers():
    """An external wrench changes the bias the rows are written with; levels, passive joints
    and closures have rows and columns of their own: those layouts have no program; without
    them the program is back, with the same answer as before."""
    robot = tp.robots.load("go2")
    solver = tp.DynamicsSolver(robot)
    for foot in robot.feet:
        solver.add_contact(tp.PointContact(foot, mu=0.6))
    solver.add_task(tp.tasks.CoMTask(kp=50.0))
    solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=20.0, weight=1e-2))
    q, v = robot.q_ref, robot.zero_velocity()
    plain = solver.solve(q, v).x.copy()
    assert solver.last_layout.program is not None
    wrench = solver.add_external_wrench(tp.ExternalWrench(robot.feet[0], [0.0, 0.0, -30.0, 0.0, 0.0, 0.0]))
    loaded = solver.solve(q, v).x.copy()
    assert solver.last_layout.program is None and np.abs(loaded - plain).max() > 1.0
    solver.remove_external_wrench(wrench)
    height = solver.add_task(tp.tasks.CoMTask(kp=10.0, priority=1))
    solver.solve(q, v)
    assert solver.last_layout.program is None
    solver.remove_task(height)
    np.testing.assert_array_equal(solver.solve(q, v).x, plain)
    assert_program_equals_writers(solver)
    joint = robot.joint_names[-1]
    solver.passive_joints = (joint,)                         # held at τ = 0: rows of their own
    assert solver.solve(q, v).tau[robot.joint_v_index(joint)] == pytest.approx(0.0, abs=1e-9)
    assert solver.last_layout.program is None
    solver.passive_joints = ()
    solver.add_closure(JointCoupling({joint: 1.0}, reference=(float(q[robot.joint_q_index(joint)]), 0.0),
                                     name="held"))
    solver.solve(q, v)
    assert solver.last_layout.program is None                # the closure's force column and row


def test_solvers_stepped_in_turn_keep_their_packs(monkeypatch):
    """Two controllers stepped in turn in one process (a comparison, a batch): each program
    packs once, then only the targets that changed; each task's error is its own step's."""
    from tsid_py.assembly_program import StepProgram

    solvers = []
    for gain in (50.0, 80.0):
        robot = tp.robots.load("go2")
        solver = tp.DynamicsSolver(robot)
        for foot in robot.feet:
            solver.add_contact(tp.PointContact(foot, mu=0.6))
        com = solver.add_task(tp.tasks.CoMTask(kp=gain))
        solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=20.0, weight=1e-2))
        solvers.append((solver, com, robot))
    for solver, com, robot in solvers:
        solver.solve(robot.q_ref, robot.zero_velocity())
    packs = []
    original = StepProgram._pack_all
    monkeypatch.setattr(StepProgram, "_pack_all", lambda self: packs.append(self) or original(self))
    for k in range(4):
        for solver, com, robot in solvers:
            com.set_target(com.position_ref + [0.0, 0.002, 0.0])
            solver.solve(robot.q_ref, robot.zero_velocity())
            np.testing.assert_array_equal(com.error, com.position_ref - robot.com)
            assert_program_equals_writers(solver)
    assert packs == []


@pytest.mark.parametrize("name", ["talos", "go2"])
def test_reference_problems_are_compiled_whole(name):
    from tsid_py.bench import ReferenceProblem

    problem = ReferenceProblem(name)
    for _ in range(3):
        problem.step()
    program = problem.solver.last_layout.program
    assert program is not None and not (program.python.hard or program.python.soft or program.python.linear)
    assert_program_equals_writers(problem.solver)


def test_a_target_edited_in_place_is_seen():
    """A CoM task's and a posture task's references edited in place give the step a solver
    whose targets were set with ``set_target`` gives (the program reads them every step)."""
    robot = tp.robots.load("talos")
    q, v = robot.q_ref.copy(), robot.zero_velocity()

    def solver_with_tasks():
        solver = tp.DynamicsSolver(tp.robots.load("talos"))
        for name in ("left_sole_link", "right_sole_link"):
            solver.add_contact(tp.contacts.PlanarContact(name, 0.2, 0.1))
        com = solver.add_task(tp.tasks.CoMTask(weight=1.0))
        posture = solver.add_task(tp.tasks.JointTask(weight=1e-2))
        solver.solve(q, v)
        return solver, com, posture

    edited, com_a, posture_a = solver_with_tasks()
    assigned, com_b, posture_b = solver_with_tasks()
    shift = np.array([0.02, -0.01, -0.03])
    com_a.position_ref += shift                               # in place
    posture_a.position_ref[-1] += 0.1
    com_b.set_target(com_b.position_ref + shift)
    target = posture_b.position_ref.copy()
    target[-1] += 0.1
    posture_b.set_target(target)
    moved = edited.solve(q, v).ddq
    np.testing.assert_array_equal(moved, assigned.solve(q, v).ddq)
    assert np.abs(moved - solver_with_tasks()[0].solve(q, v).ddq).max() > 1e-3     # the edit moved it


def test_a_target_assigned_as_a_list_or_integers_is_read_as_numbers():
    """A CoM target assigned as a list or an integer array gives the step the float array
    gives (the compiled copy reads float64 only: they are converted, not reinterpreted); a
    target of another size is refused naming the attribute."""
    robot = tp.robots.load("talos")
    solver = tp.DynamicsSolver(robot)
    for name in ("left_sole_link", "right_sole_link"):
        solver.add_contact(tp.contacts.PlanarContact(name, 0.2, 0.1))
    com = solver.add_task(tp.tasks.CoMTask(weight=1.0))
    q, v = robot.q_ref.copy(), robot.zero_velocity()
    solver.solve(q, v)
    com.position_ref = np.array([0.0, 0.0, 1.0])
    expected = solver.solve(q, v).ddq.copy()
    for given in ([0, 0, 1], np.array([0, 0, 1]), np.array([0, 0, 1], dtype=np.float32)):
        com.position_ref = given
        np.testing.assert_array_equal(solver.solve(q, v).ddq, expected)
    com.position_ref = np.zeros(2)
    with pytest.raises(ValueError, match=r"position_ref must have shape \(3,\), got \(2,\)"):
        solver.solve(q, v)
