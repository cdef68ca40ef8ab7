"""The trot in MuJoCo: the terrain the harness builds is the one described, a short trot
is judged by the physics engine, and ``tsid-py demo trot`` runs, writes its summary and
refuses bad options in one line (a simulation test: declared in test_architecture)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree

import mujoco
import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.cli import main as cli_main
from tsid_py.control.terrain import Terrain
from tsid_py.robots import data_root
from tsid_py.scenarios.conditions import Conditions
from tsid_py.scenarios.trot import run_trot
from tsid_py.sim import Simulation


@pytest.mark.parametrize("terrain", [Terrain.slope(10.0), Terrain.stairs(0.05), Terrain.rough(0.02, seed=4)],
                         ids=["slope", "stairs", "rough"])
def test_the_simulated_ground_is_the_described_terrain(terrain, rng):
    sim = Simulation(tp.robots.load("go2"), terrain=terrain)
    errors = []
    for x, y in zip(rng.uniform(0.3, 6.0, 200), rng.uniform(-1.5, 1.5, 200)):
        geom = np.zeros(1, dtype=np.int32)
        distance = mujoco.mj_ray(sim.model, sim.data, np.array([x, y, 2.0]), np.array([0.0, 0.0, -1.0]), None, 1, -1,
                                 geom)
        errors.append(2.0 - distance - terrain.height(x, y))
    assert np.abs(errors).max() < 1e-3       # MuJoCo triangulates the rough ground's 2 cm samples


def test_a_short_trot_moves_forward_on_its_feet_without_slipping():
    summary, log, info = run_trot(tp.robots.load("go2"), speed=0.5, duration=1.5)
    assert not summary["fell"]
    assert summary["distance_m"] > 0.4
    assert summary["max_foot_slip_m"] < 0.003
    assert summary["touchdowns"] >= 12 and len(info["footholds"]) == summary["touchdowns"]
    # touch-down on contact: the contacts in the log start when MuJoCo's forces are there
    made = np.diff(log["contacts"].astype(int), axis=0) == 1
    assert made.any() and np.all(log["normal_forces"][1:][made] > 0.0)


@pytest.mark.parametrize("gait", ["walk", "pace", "bound"])
def test_every_gait_walks_in_mujoco(gait):
    summary, log, _ = run_trot(tp.robots.load("go2"), speed=0.3, duration=2.0, gait=gait)
    assert not summary["fell"] and summary["distance_m"] > 0.3 and summary["max_foot_slip_m"] < 0.003
    on_ground = log["contacts"].sum(axis=1)[log["time"] > 1.5]
    assert on_ground.min() >= (3 if gait == "walk" else 1)       # a crawl keeps three feet down


def test_the_feet_of_a_quadruped_file_are_its_srdf_end_effectors():
    """The profile of example-robot-data's A1 (feet from its collision spheres) puts a foot
    on each leg the SRDF names an end effector of, at the bottom of its sphere."""
    root = data_root()
    srdf = root / "a1_description/srdf/a1.srdf"
    robot = tp.robots.load(root / "a1_description/urdf/a1.urdf", srdf=srdf)
    declared = [element.get("parent_link") for element in ElementTree.parse(srdf).getroot().iter("end_effector")]
    model = robot.model
    data = model.createData()
    pin.framesForwardKinematics(model, data, robot.q_ref)
    by_joint = {model.frames[model.getFrameId(link)].parentJoint: link for link in declared}
    assert sorted(model.frames[robot.frame_id(foot)].parentJoint for foot in robot.feet) == sorted(by_joint)
    for foot in robot.feet:
        link = by_joint[model.frames[robot.frame_id(foot)].parentJoint]
        below = data.oMf[model.getFrameId(link)].translation - data.oMf[robot.frame_id(foot)].translation
        np.testing.assert_allclose(below, [0.0, 0.0, robot.foot_radius], atol=2e-3)   # the sphere's centre above
        assert data.oMf[robot.frame_id(foot)].translation[2] == pytest.approx(0.0, abs=1e-9)


def _leg(name: str, x: float, y: float, friction: float, priority: int) -> str:
    return f"""
      <body name="{name}_hip" pos="{x} {y} 0">
        <inertial pos="0 0 -0.05" mass="0.5" diaginertia="0.001 0.001 0.001"/>
        <joint name="{name}_hip_joint" axis="1 0 0" range="-1 1"/>
        <body name="{name}_thigh" pos="0 0 -0.1">
          <inertial pos="0 0 -0.05" mass="0.5" diaginertia="0.001 0.001 0.001"/>
          <joint name="{name}_knee_joint" axis="0 1 0" range="-2 2"/>
          <geom type="sphere" size="0.02" pos="0 0 -0.1" friction="{friction} 0.005 0.0001" priority="{priority}"/>
        </body>
      </body>"""


@pytest.mark.parametrize("priority, mu", [(1, 0.6), (0, 0.5)])
def test_an_mjcf_quadrupeds_feet_are_its_spheres_and_their_priority_friction_the_profiles(tmp_path, priority, mu):
    """MuJoCo takes a contact's friction from its geom of higher priority: feet of priority 1
    set it (the smallest of theirs becomes the profile's mu); feet of the floor's priority do
    not (the generic 0.5 stays)."""
    legs = "".join(_leg(name, x, y, friction, priority) for name, x, y, friction in
                   (("FL", 0.2, 0.1, 0.7), ("FR", 0.2, -0.1, 0.6), ("HL", -0.2, 0.1, 0.7), ("HR", -0.2, -0.1, 0.7)))
    path = tmp_path / "toy.xml"
    path.write_text(f"""<mujoco model="toy">
  <worldbody>
    <body name="trunk" pos="0 0 0.4">
      <freejoint/>
      <inertial pos="0 0 0" mass="5" diaginertia="0.05 0.1 0.1"/>
      <geom type="sphere" size="0.03" pos="0.25 0 0.05"/>{legs}
    </body>
  </worldbody>
  <actuator>{"".join(f'<motor joint="{n}_{j}_joint" gear="1" ctrlrange="-20 20"/>'
                     for n in ("FL", "FR", "HL", "HR") for j in ("hip", "knee"))}</actuator>
</mujoco>""")
    robot = tp.robots.load(path)
    assert sorted(robot.feet) == sorted(f"{n}_thigh_contact" for n in ("FL", "FR", "HL", "HR"))
    assert robot.foot_radius == pytest.approx(0.02) and robot.profile.balance.mu == pytest.approx(mu)
    robot.update(robot.q_ref, robot.zero_velocity())
    for foot in robot.feet:              # the sphere's bottom: 0.1 + 0.1 + 0.02 below the trunk
        assert robot.frame_placement(robot.frame_id(foot)).translation[2] == pytest.approx(0.0, abs=1e-9)
    assert robot.q_ref[2] == pytest.approx(0.22, abs=1e-6)


def test_a_realistic_trot_on_the_estimator_keeps_with_mujocos_truth():
    """Go2 under the realistic preset (noisy encoders and IMU, no force sensors, the drives'
    friction, masses ±15 %, 2 ms delay) trots on the state estimator: the estimate stays
    within millimetres of MuJoCo's state, the feet put down on the schedule do not raise the
    body (the blind ground is where they stood) and barely slide."""
    robot = tp.robots.load("go2")
    summary, log, _ = run_trot(robot, speed=0.5, duration=1.5, conditions=Conditions.realistic(seed=3))
    assert not summary["fell"] and summary["distance_m"] > 0.5
    drift = summary["estimator_drift"]["max"]
    assert drift["horizontal_m"] < 0.005 and drift["vertical_m"] < 0.005
    assert drift["yaw_deg"] < 0.3 and drift["tilt_deg"] < 0.3
    assert summary["max_foot_slip_m"] < 0.01
    assert abs(log["base"][-1, 2] - log["base"][0, 2]) < 0.01
    assert summary["conditions"]["feedback"] == "estimator"


def test_the_trot_demo_writes_its_summary_and_figure(tmp_path):
    out, figure = tmp_path / "trot.json", tmp_path / "trot.png"
    assert cli_main(["demo", "trot", "--speed", "0.3", "--duration", "0.6", "--json", str(out),
                     "--plot", str(figure)]) == 0
    summary = json.loads(out.read_text())
    for key in ("fell", "distance_m", "speed_mps", "yaw_change_deg", "max_foot_slip_m", "median_step_us"):
        assert key in summary
    assert summary["demo"] == "trot" and summary["fell"] is False and figure.stat().st_size > 20_000
    assert summary["conditions"]["feedback"] == "estimator" and "estimator_drift" in summary    # by default


def test_the_trot_demo_takes_the_conditions_options(tmp_path):
    out = tmp_path / "trot.json"
    assert cli_main(["demo", "trot", "--duration", "0.5", "--realistic", "--seed", "2", "--force-noise", "1",
                     "--json", str(out)]) == 0
    summary = json.loads(out.read_text())
    assert summary["conditions"]["seed"] == 2 and summary["conditions"]["sensors"]["force_noise"] == 1.0
    assert summary["conditions"]["plant"]["delay"] == 0.002 and not summary["fell"]
    assert cli_main(["demo", "trot", "--duration", "0.5", "--ground-truth", "--json", str(out)]) == 0
    summary = json.loads(out.read_text())
    assert summary["conditions"]["feedback"] == "ground-truth" and "estimator_drift" not in summary


@pytest.mark.parametrize("argv, words", [
    (["demo", "trot", "--distance", "1", "--duration", "2"], ["--distance", "--duration"]),
    (["demo", "trot", "--terrain", "bumpy"], ["--terrain", "slope:DEG"]),
    (["demo", "trot", "--robot", "nowhere.urdf"], ["--robot", "'nowhere.urdf'"]),
    (["demo", "trot", "--speed", "0", "--distance", "2"], ["--distance", "--speed"]),
    (["demo", "balance", "--yaw-rate", "1"], ["--yaw-rate", "trot"]),
])
def test_a_bad_trot_option_is_a_one_line_error_with_status_2(argv, words, capsys):
    assert cli_main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    for word in words:
        assert word in captured.err
