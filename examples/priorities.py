"""Strict priorities: a hand's reach first, then the CoM, then the posture.

Talos stands on both feet. Level 1 asks the left hand to go 30 cm forward, level
2 holds the CoM, level 3 the posture. The same tasks as one weighted cost trade
them against each other; as levels, the hand gets exactly what it asks, the CoM
exactly what it asks within what the hand leaves, and the posture gives way. See
docs/priorities.md. Good: as levels, the hand and the CoM miss by nothing (round
off, 1e-13 m/s²) and level 3 gives way.
"""

import numpy as np

import tsid_py as tp

robot = tp.robots.load("talos")
hand = "arm_left_7_link"
q, v = robot.q_ref, robot.zero_velocity()
start = robot.placement_at(q, robot.model.getFrameId(hand)).translation
reach = start + [0.3, 0.0, 0.0]


def miss(task, ddq):
    """``‖J q̈ + J̇v − a*‖`` on the task's axes: how far the step lands from
    what the task asks."""
    _, jacobian, drift, first = task.kinematics(robot)
    rows = slice(first, first + task.dim)
    asked = task.desired_acceleration()
    return np.linalg.norm(jacobian[rows] @ ddq + drift[rows] - asked)


def solve(priorities):
    hand_level, com_level, posture_level = priorities
    solver = tp.DynamicsSolver(robot)
    for foot in robot.feet:
        solver.add_contact(tp.PlanarContact(foot, length=0.2, width=0.1,
                                            mu=0.8))
    solver.add_constraint(tp.constraints.TorqueLimits())
    reach_task = solver.add_task(
        tp.tasks.PositionTask(hand, reach, kp=100.0, priority=hand_level))
    com_task = solver.add_task(tp.tasks.CoMTask(kp=100.0, priority=com_level))
    solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=10.0, weight=1e-2,
                                       priority=posture_level))
    solution = solver.solve(q, v)
    misses = [miss(task, solution.ddq) for task in (reach_task, com_task)]
    return solution, misses


weighted, (hand_miss, com_miss) = solve(("soft", "soft", "soft"))
print(f"one weighted cost: hand misses its acceleration by {hand_miss:.3g} "
      f"m/s², CoM by {com_miss:.3g} m/s²")
levels, (hand_miss, com_miss) = solve((1, 2, 3))
print(f"three levels:      hand misses its acceleration by {hand_miss:.3g} "
      f"m/s², CoM by {com_miss:.3g} m/s²")
print("levels that gave way:", levels.gave_way)
