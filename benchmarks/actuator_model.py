"""The controller's actuator model in MuJoCo: the armature it is told of, and its impedance
output against its torque output.

    python benchmarks/actuator_model.py [--robots talos g1] [--json FILE]

**Armature.** The plant's drives have the model's armature
(``tsid_py.models.actuators.drive_parameters``: Talos's SRDF rotor inertia, 0.1 kg·m²; G1's
typical drive, 2e-4 s² × its torque limits). The balance controller stands and is pushed
(0.1 s at 0.5 s, sideways, :data:`PUSH_SHARE` of the model's standing bound
``tsid_py.control.push_bounds``: Talos 147 N, G1 64 N) for 1.5 s, once unaware of the armature
and once told (``set_armature``). Reported, per step's commanded ``(q̈, f)``: the torque error
``S (M_plant q̈ + h_plant − Σ Jᵀ f) − τ`` (what the plant needs for the commanded motion, from
MuJoCo's own mass matrix and bias, against what the controller applied) and the joints'
acceleration error ``q̈_plant − q̈`` (MuJoCo's realised acceleration, by finite differences of
its velocities), RMS over the run and the joints that move some mass (a joint whose links have
none, as Romeo's 24 finger joints, moves in the simulator on the tiny inertia MuJoCo needs in
their place: 10–70 rad/s² of noise).

**Impedance against torque.** Control every ``n`` ms (n = 2, 4), physics every 1 ms; a torque
drive holds the QP's torque over the period, an impedance drive of bandwidth ``B`` Hz
(``drive_gains``) applies ``tau_ff + kp (q_des − q) + kd (v_des − v)`` each millisecond from
its own encoders. The robot is pushed as above; reported: the largest difference of the CoM
(mm) and of any joint (rad) between the two closed loops.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pinocchio as pin

import tsid_py as tp
from tsid_py.control import BalanceController, push_bounds
from tsid_py.control.actuators import DriveStage, drive_gains
from tsid_py.scenarios.conditions import Conditions
from tsid_py.scenarios.feedback import Feedback, simulation
from tsid_py.scenarios.push_recovery import push_force
from tsid_py.scenarios.reports import write_json
from tsid_py.sim import Simulation
from tsid_py.sim.plant import PlantModel

#: The push, a share of the robot's standing bound sideways by its model (the capture point
#: reaching the soles' edge): well inside what the controller holds.
PUSH_SHARE = 0.3


def push(robot) -> float:
    """The benchmark's sideways push on ``robot``, N (see the module)."""
    return PUSH_SHARE * float(push_bounds(robot, 0.1)["+y"].cop_at_edge)


def armature_errors(name: str, aware: bool) -> dict:
    """RMS torque and acceleration errors of a pushed stand (see the module)."""
    robot = tp.robots.load(name)
    force = push(robot)                       # (its kinematics at the reference posture: before the run)
    conditions = Conditions(plant=PlantModel(armature="model"), feedback="ground-truth", actuator_model=aware)
    sim = simulation(robot, conditions)
    controller = BalanceController(robot, sim.timestep)
    feedback = Feedback(sim, controller, conditions)
    torque, acceleration = [], []
    for k in range(1500):
        if k == 500:
            sim.push(push_force(force, "+y"), 0.1)
        before = sim.state()[1]
        solution, _ = feedback.step()
        M, h = sim.mass_matrix_and_bias()
        needed = M @ solution.ddq + h
        for foot, wrench in solution.wrenches.items():
            needed -= pin.getFrameJacobian(robot.model, robot.data, robot.frame_id(foot),
                                           pin.LOCAL_WORLD_ALIGNED).T @ wrench
        torque.append(needed[6:] - solution.tau_actuated)
        sim.step(feedback.torque(solution))
        acceleration.append((sim.state()[1][6:] - before[6:]) / sim.timestep - solution.ddq[6:])
    moving = np.diag(pin.crba(robot.model, robot.model.createData(), robot.q_ref))[robot.nv - robot.na:] > 0.0
    acceleration = np.array(acceleration)[:, moving]
    return {"torque_rms_nm": float(np.sqrt(np.mean(np.square(torque)))),
            "acceleration_rms": float(np.sqrt(np.mean(np.square(acceleration))))}


def drive_paths(name: str, mode: str, steps: int, bandwidth: float = 0.0):
    """CoM (T × 3) and joint (T × na) paths of a pushed stand with a torque or impedance drive."""
    robot = tp.robots.load(name)
    force = push(robot)
    sim = Simulation(robot, timestep=1e-3)
    period = steps * 1e-3
    controller = BalanceController(robot, period)
    gains = drive_gains(robot, bandwidth) if mode == "impedance" else None
    stage = controller.insert(DriveStage(robot, period, friction_scale=0.0, drive_steps=steps, impedance=gains))
    coms, joints = [], []
    for k in range(1500):
        if k % steps == 0:
            controller.step(*sim.state())
        if k == 500:
            sim.push(push_force(force, "+y"), 0.1)
        q, v = sim.state()
        sim.step(stage.command.tau if mode == "torque" else stage.command.impedance_torque(q[7:], v[6:]))
        coms.append(sim.com_state()[0])
        joints.append(sim.state()[0][7:])
    return np.array(coms), np.array(joints)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robots", nargs="+", default=["talos", "g1"])
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    report = {"armature": {}, "impedance": {}}
    print(f"{'robot':6s} {'controller':8s} {'torque err N·m':>14s} {'accel err rad/s²':>16s}")
    for name in args.robots:
        for aware in (False, True):
            errors = armature_errors(name, aware)
            report["armature"][f"{name} {'aware' if aware else 'unaware'}"] = errors
            print(f"{Path(name).stem:6s} {'aware' if aware else 'unaware':8s} {errors['torque_rms_nm']:14.3f}"
                  f" {errors['acceleration_rms']:16.3f}", flush=True)
    print(f"\n{'robot':6s} {'period':>6s} {'bandwidth':>9s} {'kp median':>10s} {'CoM mm':>7s} {'joint rad':>9s}")
    for name in args.robots:
        robot = tp.robots.load(name)
        for steps in (2, 4):
            reference = drive_paths(name, "torque", steps)
            for bandwidth in (5.0, 10.0, 15.0):
                com, joints = drive_paths(name, "impedance", steps, bandwidth)
                row = {"com_mm": float(np.abs(com - reference[0]).max() * 1e3),
                       "joint_rad": float(np.abs(joints - reference[1]).max()),
                       "kp_median": float(np.median(drive_gains(robot, bandwidth)[0]))}
                report["impedance"][f"{name} {steps}ms {bandwidth:.0f}Hz"] = row
                print(f"{Path(name).stem:6s} {steps:4d}ms {bandwidth:7.0f}Hz {row['kp_median']:10.0f} {row['com_mm']:7.2f}"
                      f" {row['joint_rad']:9.3f}", flush=True)
    write_json(args.json, report)
    return report


if __name__ == "__main__":
    main()
