"""The reference balance problem in a peer library (placo), timed step by step.

This file runs as a script under the peer's own interpreter (``python peer_workers.py
placo SPEC.json``): it imports neither tsid_py nor anything but numpy, pinocchio and the
peer, since a peer may need another pinocchio than ours (placo 0.10 pins pin 3.8). The
problem comes as a JSON spec written by :func:`tsid_py.bench.peer_spec` — the URDF, the
posture, the feet and soles, the gains and weights of ``tsid_py.control.reference.
humanoid_balance`` — and each worker builds its library's closest equivalent:

* two planar foot contacts (μ = 0.8, 0.9 × the soles, no stabilisation gains), a CoM task
  (kp 100, weight 1) following a 4 cm lateral sinusoid at 0.5 Hz with its velocity and
  acceleration feed-forward, a torso orientation task (kp 100, weight 1), a posture task
  (kp 30, weight 1e-2), the URDF's torque limits;
* the state follows the library's own q̈ (semi-implicit Euler with ``pinocchio.integrate``);
* a step is what a control loop calls: placo ``robot.update_kinematics(); solver.solve()``.

TSID is not here: its PyPI wheel (tsid 1.10.0) crashes while loading a robot on this
project's machines (``RobotWrapper``: a double free with pin 4.1 or 4.0, and no older pin
resolves with it), so it could not be measured.

It prints one JSON line: the per-step times in µs and a ``computeAllTerms`` yardstick in the
same process.
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np
import pinocchio as pin


def _targets(spec, centre, k):
    """The CoM target, velocity and acceleration at step ``k`` (the reference sinusoid)."""
    omega, amplitude = 2 * np.pi * spec["frequency"], spec["amplitude"]
    t = k * spec["dt"]
    s, c = np.sin(omega * t), np.cos(omega * t)
    return (centre + [0, amplitude * s, 0], np.array([0, amplitude * omega * c, 0]),
            np.array([0, -amplitude * omega**2 * s, 0]))


def _placo(spec):
    import placo

    with open(spec["urdf"]) as file:          # placo reads the meshes: resolve package:// first
        urdf = file.read()
    for directory in spec["package_dirs"]:
        urdf = urdf.replace("package://", directory.rstrip("/") + "/")
    robot = placo.RobotWrapper(os.path.dirname(spec["urdf"]), placo.Flags.ignore_collisions, urdf)
    q, v = np.array(spec["q_ref"]), np.zeros(robot.model.nv)
    robot.state.q, robot.state.qd = q.copy(), v.copy()
    robot.update_kinematics()
    solver = placo.DynamicsSolver(robot)
    solver.dt = spec["dt"]
    for foot in spec["feet"]:
        frame = solver.add_frame_task(foot, robot.get_T_world_frame(foot))
        frame.configure(foot, "hard", 1.0, 1.0)
        contact = solver.add_planar_contact(frame)
        contact.length, contact.width = spec["sole"]
        contact.mu = spec["mu"]
    com = solver.add_com_task(robot.com_world())
    com.configure("com", "soft", spec["com"]["weight"])
    com.kp = spec["com"]["kp"]
    torso = solver.add_orientation_task(spec["torso"], robot.get_T_world_frame(spec["torso"])[:3, :3])
    torso.configure("torso", "soft", spec["torso_task"]["weight"])
    torso.kp = spec["torso_task"]["kp"]
    posture = solver.add_joints_task()
    posture.set_joints({name: robot.get_joint(name) for name in robot.joint_names()})
    posture.configure("posture", "soft", spec["posture"]["weight"])
    posture.kp = spec["posture"]["kp"]
    solver.enable_torque_limits(True)
    centre = robot.com_world().copy()

    def step(k):
        target, velocity, acceleration = _targets(spec, centre, k)
        com.target_world, com.dtarget_world, com.ddtarget_world = target, velocity, acceleration
        robot.state.q, robot.state.qd = q, v
        tic = time.perf_counter()
        robot.update_kinematics()
        result = solver.solve(False)
        elapsed = time.perf_counter() - tic
        return elapsed, np.array(result.qdd)

    return robot.model, robot.model.createData(), step, (q, v)


def run(name, spec):
    """Time ``spec["steps"]`` steps after ``spec["warmup"]`` of peer ``name``; pinned to
    ``spec["core"]`` with one BLAS thread (set by the caller's environment)."""
    if spec.get("core") is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {spec["core"]})
    model, data, step, (q, v) = {"placo": _placo}[name](spec)
    times, dt = [], spec["dt"]
    for k in range(spec["warmup"] + spec["steps"]):
        elapsed, ddq = step(k)
        if not np.all(np.isfinite(ddq)):
            raise RuntimeError(f"{name} returned a non-finite q̈ at step {k}")
        v += dt * ddq
        q[:] = pin.integrate(model, q, dt * v)
        if k >= spec["warmup"]:
            times.append(elapsed * 1e6)
    yardstick, q0, v0 = [], np.array(spec["q_ref"]), np.zeros(model.nv)
    for _ in range(2000):
        tic = time.perf_counter()
        pin.computeAllTerms(model, data, q0, v0)
        yardstick.append((time.perf_counter() - tic) * 1e6)
    return {"peer": name, "times_us": times, "computeAllTerms_us": float(np.median(yardstick))}


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("placo",):
        print("usage: python peer_workers.py placo SPEC.json", file=sys.stderr)
        sys.exit(2)
    with open(sys.argv[2]) as file:
        print(json.dumps(run(sys.argv[1], json.load(file))))
