"""A new task in one file: couple two joints, ``q_a − r q_b → c``.

The task's quantity is ``x = q_a − r q_b`` (1 axis): its Jacobian is a row with
1 in ``a``'s column and ``−r`` in ``b``'s, its drift ``J̇ v`` is 0 (the map is
linear in q), and the PD law ``ẍ* = c̈ + Kp (c − x) + Kd (ċ − ẋ)`` comes from the
base class. Writing it takes the one method the contract asks of a
:class:`~tsid_py.tasks.PDTask`, ``kinematics``, plus ``bind`` to resolve the
joint names once.

Run it to watch a UR5's wrist follow its elbow at half the angle (the solver's
own q̈ integrated, no physics engine). As a hard task its PD law holds exactly,
so its error decays as a critically damped one does, ``e(t) = e₀ (1 + ω t)
e^{−ω t}`` with ``ω = √kp``: good is the error the law predicts.
"""

from __future__ import annotations

import numpy as np

import tsid_py as tp
from tsid_py.rows import PDKinematics


class JointCouplingTask(tp.tasks.PDTask):
    """Drive ``q_a − ratio · q_b`` toward ``target`` (rad; default 0).

    ``a`` and ``b`` are 1-dof joint names; gains, weight and priority as for any
    task.
    """

    def __init__(self, a: str, b: str, ratio: float, target: float = 0.0,
                 **kwargs):
        kwargs.setdefault("name", f"JointCouplingTask({a} - {ratio} {b})")
        super().__init__(1, **kwargs)
        self.a, self.b, self.ratio = a, b, float(ratio)
        self.set_target([target])

    def bind(self, robot) -> None:
        self._q = [robot.joint_q_index(self.a), robot.joint_q_index(self.b)]
        self._jacobian = np.zeros((1, robot.nv))
        self._jacobian[0, robot.joint_v_index(self.a)] = 1.0
        self._jacobian[0, robot.joint_v_index(self.b)] = -self.ratio
        self._drift = np.zeros(1)

    def kinematics(self, robot) -> PDKinematics:
        value = robot.q[self._q[0]] - self.ratio * robot.q[self._q[1]]
        return PDKinematics(self.position_ref - value, self._jacobian,
                            self._drift)


def main() -> None:
    robot = tp.robots.load("ur5")
    solver = tp.DynamicsSolver(robot)
    coupling = solver.add_task(JointCouplingTask(
        "wrist_1_joint", "elbow_joint", 0.5, kp=50.0, priority="hard"))
    solver.add_task(tp.tasks.JointTask(
        kp=10.0, weight=1e-2, joints=["shoulder_pan_joint", "elbow_joint"]))
    q, v = robot.q_ref.copy(), robot.zero_velocity()
    for step in range(501):                 # 0.5 s
        sol = solver.solve(q, v)
        if step == 0:
            start = coupling.error[0]       # e₀, rad
        v = v + solver.dt * sol.ddq
        q = q + solver.dt * v
    omega, t = np.sqrt(50.0), 0.5
    law = start * (1 + omega * t) * np.exp(-omega * t)
    print(f"coupling error: {start:.3f} rad at the start, "
          f"{coupling.error[0]:.4f} rad after 0.5 s")
    print(f"good: what the critically damped law predicts, {law:.4f} rad")


if __name__ == "__main__":
    main()
