"""Strict priorities: a hand that must reach, a CoM that must not suffer for it, a posture last.

Talos stands on both feet. Level 1 asks the left hand to go 30 cm forward, level 2 holds the
CoM, level 3 the posture. The same tasks as one weighted cost trade them against each other;
as levels, the hand gets exactly what it asks, the CoM exactly what it asks within what the
hand leaves, and the posture gives way. See docs/priorities.md.
"""

import numpy as np

import tsid_py as tp

robot = tp.robots.load("talos")
hand = "arm_left_7_link"
q, v = robot.q_ref, robot.zero_velocity()
reach = robot.placement_at(q, robot.model.getFrameId(hand)).translation + [0.3, 0.0, 0.0]


def miss(task, ddq):
    """``‖J q̈ + J̇v − a*‖`` on the task's axes: how far the step lands from what the task asks."""
    _, jacobian, drift, first = task.kinematics(robot)
    rows = slice(first, first + task.dim)
    return np.linalg.norm(jacobian[rows] @ ddq + drift[rows] - task.desired_acceleration())


def solve(priorities):
    solver = tp.DynamicsSolver(robot)
    for foot in robot.feet:
        solver.add_contact(tp.PlanarContact(foot, length=0.2, width=0.1, mu=0.8))
    solver.add_constraint(tp.constraints.TorqueLimits())
    reach_task = solver.add_task(tp.tasks.PositionTask(hand, reach, kp=100.0, priority=priorities[0]))
    com_task = solver.add_task(tp.tasks.CoMTask(kp=100.0, priority=priorities[1]))
    solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=10.0, weight=1e-2, priority=priorities[2]))
    solution = solver.solve(q, v)
    return solution, [miss(task, solution.ddq) for task in (reach_task, com_task)]


weighted, (hand_miss, com_miss) = solve(("soft", "soft", "soft"))
print(f"one weighted cost: hand misses its acceleration by {hand_miss:.3g} m/s², CoM by {com_miss:.3g} m/s²")
levels, (hand_miss, com_miss) = solve((1, 2, 3))
print(f"three levels:      hand misses its acceleration by {hand_miss:.3g} m/s², CoM by {com_miss:.3g} m/s²")
print("levels that gave way:", levels.gave_way)
