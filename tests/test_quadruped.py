"""The quadruped controller without a simulator: its geometry against pinocchio, the rolling
feet's frames, the terrain description's closed forms, a trot on the robot's own dynamics
(the controller's accelerations integrated), touch-down on a measured force, and its errors."""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.control.quadruped import QuadrupedController, QuadrupedGeometry, VelocityCommand
from tsid_py.control.quadruped.body import CommandFilter
from tsid_py.control.quadruped.ground import Ground, ground_frame
from tsid_py.control.quadruped.rolling import place_foot
from tsid_py.control.terrain import Ramp, Rough, Stairs, Terrain

from .conftest import load_robot


@pytest.mark.parametrize("name", ["go2", "solo12"])
def test_the_geometry_reads_the_model(name):
    robot = load_robot(name)
    geometry = QuadrupedGeometry.of(robot)
    data = robot.model.createData()
    q = robot.q_ref
    pin.framesForwardKinematics(robot.model, data, q)
    base = data.oMi[1]
    for leg in geometry.legs:
        local = base.actInv(data.oMf[robot.frame_id(leg.foot)].translation)
        assert (leg.role[0] == "F") == (local[0] > 0) and (leg.role[1] == "L") == (local[1] > 0)
    # the centroidal inertia by the parallel-axis theorem over the bodies
    com = pin.centerOfMass(robot.model, robot.model.createData(), q)
    inertia = np.zeros((3, 3))
    for joint in range(1, robot.model.njoints):
        body = robot.model.inertias[joint]
        placement = data.oMi[joint]
        r = placement.act(body.lever) - com
        R = placement.rotation
        inertia += R @ body.inertia @ R.T + body.mass * (r @ r * np.eye(3) - np.outer(r, r))
    np.testing.assert_allclose(geometry.inertia, base.rotation.T @ inertia @ base.rotation, atol=1e-9)
    assert geometry.mass == pytest.approx(sum(i.mass for i in robot.model.inertias))
    feet_height = np.mean([data.oMf[robot.frame_id(f)].translation[2] for f in geometry.feet])
    assert geometry.com_height == pytest.approx(com[2] - feet_height)
    # a foot's largest normal force: its leg's torques τ = J_zᵀ f reach a limit, none exceeds it
    pin.computeJointJacobians(robot.model, data, q)
    for leg in geometry.legs:
        J = pin.getFrameJacobian(robot.model, data, robot.frame_id(leg.foot), pin.LOCAL_WORLD_ALIGNED)
        columns = [robot.model.joints[robot.model.getJointId(j)].idx_v for j in leg.joints]
        torques = np.abs(J[2, columns]) * leg.max_force
        limits = robot.effort_limits[np.array(columns) - 6]
        assert np.all(torques <= limits + 1e-9)
        assert np.isclose(torques / limits, 1.0).any() or leg.max_force == pytest.approx(2 * robot.weight)


def test_rolling_feet_keep_each_frame_at_its_spheres_lowest_point(rng):
    robot = load_robot("go2")
    controller = QuadrupedController(robot)
    radius = robot.profile.foot_radius
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, robot.q_ref)
    centres = {f: data.oMf[robot.frame_id(f)].translation + [0, 0, radius] for f in controller.geometry.feet}
    local = {f: data.oMi[robot.model.frames[robot.frame_id(f)].parentJoint].actInv(c) for f, c in centres.items()}
    q = pin.integrate(robot.model, robot.q_ref, rng.normal(0, 0.3, robot.nv))
    robot.update(q, robot.zero_velocity())
    controller.rolling.update()
    robot.update(q, robot.zero_velocity())
    for foot in controller.geometry.feet:
        frame = robot.frame_placement(robot.frame_id(foot))
        joint = robot.data.oMi[robot.model.frames[robot.frame_id(foot)].parentJoint]
        centre = joint.act(local[foot])
        np.testing.assert_allclose(frame.translation, centre - [0, 0, radius], atol=1e-12)
        np.testing.assert_allclose(frame.rotation, np.eye(3), atol=1e-12)    # the flat ground's frame


def test_the_compiled_foot_placement_equals_numpy(rng):
    joint = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    axes = ground_frame(np.array([0.1, -0.2, 1.0]) / np.linalg.norm([0.1, -0.2, 1.0]), 0.4)
    centre = rng.normal(size=3)
    rotation, translation = np.asfortranarray(np.empty((3, 3))), np.empty(3)
    place_foot(joint, axes, centre, 0.02, rotation, translation)
    np.testing.assert_allclose(rotation, joint.T @ axes, atol=1e-15)
    np.testing.assert_allclose(translation, centre - 0.02 * (joint.T @ axes)[:, 2], atol=1e-15)
    np.testing.assert_allclose(axes.T @ axes, np.eye(3), atol=1e-15)
    assert np.linalg.det(axes) == pytest.approx(1.0)


def test_the_terrain_follows_its_closed_forms():
    ramp = Terrain.slope(10.0, start=1.0, length=2.0, plateau=1.0)
    slope = math.tan(math.radians(10.0))
    assert ramp.height(0.5, 0.0) == 0.0 and ramp.height(2.0, 0.3) == pytest.approx(slope)
    assert ramp.height(3.5, 0.0) == pytest.approx(2 * slope) and ramp.height(4.5, 0.0) == 0.0
    np.testing.assert_allclose(ramp.normal(2.0, 0.0), [-math.sin(math.radians(10)), 0, math.cos(math.radians(10))])
    stairs = Terrain.stairs(0.05, run=0.3, count=3, start=1.0)
    assert [stairs.height(x, 0) for x in (0.9, 1.1, 1.4, 1.7, 2.5)] == pytest.approx([0, 0.05, 0.1, 0.15, 0.15])
    rough = Rough(0.02, seed=3, start=0.5, length=2.0, width=1.0, cell=0.1)
    xs = np.linspace(0.4, 2.6, 221)
    heights = np.array([rough.height(x, 0.123) for x in xs])
    assert heights.min() >= 0.0 and heights.max() <= 0.04 and heights[0] == heights[-1] == 0.0
    assert np.abs(np.diff(heights)).max() < 0.04 * 0.01 / 0.1 + 1e-12       # continuous: bilinear in cells
    h = 1e-6
    for x, y in ((1.234, 0.111), (0.77, -0.31)):
        gradient = ((rough.height(x + h, y) - rough.height(x - h, y)) / (2 * h),
                    (rough.height(x, y + h) - rough.height(x, y - h)) / (2 * h))
        np.testing.assert_allclose(rough.gradient(x, y), gradient, atol=1e-6)
    with pytest.raises(ValueError, match="angle"):
        Ramp(math.radians(70))
    with pytest.raises(ValueError, match="count"):
        Stairs(0.05, count=0)
    with pytest.raises(ValueError, match="features"):
        Terrain(["slope"])


def test_blind_ground_is_the_plane_of_the_footholds():
    ground = Ground()
    points = {"a": (0, 0, 0.1), "b": (1, 0, 0.2), "c": (0, 1, 0.1), "d": (1, 1, 0.2)}
    for foot, point in points.items():
        ground.touchdown(foot, point)
    assert ground.height(0.5, 0.5) == pytest.approx(0.15)
    np.testing.assert_allclose(ground.normal(0, 0), np.array([-0.1, 0.0, 1.0]) / math.hypot(0.1, 1.0), atol=1e-12)
    height, roll, pitch = ground.local_plane([0.5, 0.5], 0.0, [[0.2, 0.1], [0.2, -0.1], [-0.2, 0.1], [-0.2, -0.1]])
    assert height == pytest.approx(0.15) and roll == pytest.approx(0.0) and pitch == pytest.approx(-math.atan(0.1))


def test_the_command_moves_at_its_acceleration_limit():
    command = CommandFilter(acceleration=1.0, yaw_acceleration=2.0)
    command.target = VelocityCommand(0.5, -0.2, 1.0)
    for _ in range(250):
        command.advance(1e-3, measured_yaw=command.heading)
    assert command.current.forward == pytest.approx(0.25) and command.current.lateral == pytest.approx(-0.2)
    assert command.current.yaw_rate == pytest.approx(0.5)
    with pytest.raises(ValueError, match="lateral"):
        VelocityCommand(0.0, float("nan"))


def _integrate(controller, state, steps, wrenches=None):
    """``steps`` control steps on the controller's own dynamics (semi-implicit Euler)."""
    robot, dt = controller.robot, controller.dt
    q, v = state
    for _ in range(steps):
        solution = controller.step(q, v, wrenches(controller) if wrenches else None)
        v = v + dt * solution.ddq
        q = pin.integrate(robot.model, q, dt * v)
    return q, v, solution


def test_a_trot_on_the_robots_own_dynamics_lifts_and_lands_its_feet_and_holds_its_weight():
    robot = load_robot("go2")
    controller = QuadrupedController(robot)
    q, v, standing = _integrate(controller, (robot.q_ref.copy(), robot.zero_velocity()), 50)
    assert len(standing.wrenches) == 4
    total = sum(w[:3] for w in standing.wrenches.values())
    np.testing.assert_allclose(total, [0, 0, robot.weight], atol=0.02 * robot.weight)
    controller.walk(0.3)
    q, v, solution = _integrate(controller, (q, v), 900)
    touchdowns = sum(foot.touchdowns for foot in controller.feet)
    assert touchdowns >= 8, "each foot lands about twice in 0.9 s of a trot (kinematic touch-down)"
    assert q[0] > 0.1 and abs(q[2] - robot.q_ref[2]) < 0.03
    assert not solution.relaxed and not any(controller.policy.counts.values())
    assert controller.plan.iterations >= 1 and controller.mpc_rate == pytest.approx(1 / controller.mpc.step)


@pytest.mark.parametrize("noise_share", [0.0, 0.025])
def test_a_measured_force_lands_a_swinging_foot_before_its_scheduled_touchdown(noise_share):
    """A normal force of 10 % of the weight lands a foot at once; from force sensors whose
    noise σ is 2.5 % of the weight, it does not (the threshold is 5σ)."""
    robot = load_robot("go2")
    controller = QuadrupedController(robot, force_noise=noise_share * robot.weight)
    assert controller.gait_stage.touchdown_force == pytest.approx(max(0.01, 5 * noise_share) * robot.weight)
    state = (robot.q_ref.copy(), robot.zero_velocity())
    controller.walk(0.0)
    q, v, _ = _integrate(controller, state, 5)
    swinging = [foot for foot in controller.feet if foot.swing is not None]
    assert len(swinging) == 2
    foot = swinging[0]
    early = foot.swing.lift_off + 0.6 * foot.swing.duration
    scheduled = foot.swing.touch_down

    def wrenches(c):
        force = 0.1 * robot.weight if c.time >= early else 0.0
        return {f.name: np.array([0, 0, force if f is foot else 0.0, 0, 0, 0]) for f in c.feet}

    _integrate(controller, (q, v), int((early - controller.time) / controller.dt) + 2, wrenches)
    if noise_share:
        assert foot.swing is not None and foot.name not in controller.solver.contacts
        return
    assert foot.swing is None and foot.name in controller.solver.contacts
    assert early - 1e-9 <= foot.since <= early + 2 * controller.dt          # at the first step it was felt
    assert foot.since < scheduled - 0.05
    with pytest.raises(ValueError, match="force_noise"):
        QuadrupedController(robot, force_noise=-1.0)


def test_no_quadruped_stage_assigns_an_item_setting_during_a_step(monkeypatch):
    from tsid_py.items import SolverItem

    from .test_architecture import _Watch

    watch = _Watch()
    monkeypatch.setattr(SolverItem, "__setattr__", watch.hook(), raising=False)
    robot = load_robot("go2")
    controller = QuadrupedController(robot)
    controller.walk(0.3, yaw_rate=0.2)
    watch.active = True
    _integrate(controller, (robot.q_ref.copy(), robot.zero_velocity()), 400)
    assert sum(foot.touchdowns for foot in controller.feet) >= 2
    assert not watch.found, watch.found


def test_the_controller_refuses_a_robot_that_is_not_a_quadruped():
    with pytest.raises(ValueError, match="four feet"):
        QuadrupedController(load_robot("talos"))
    with pytest.raises(ValueError, match="floating base"):
        QuadrupedGeometry.of(load_robot("panda"))
    with pytest.raises(ValueError, match="gait"):
        QuadrupedController(load_robot("go2")).walk(0.2, gait="gallop")
    with pytest.raises(ValueError, match="command"):
        QuadrupedController(load_robot("go2")).command = (0.2, 0.0, 0.0)
    with pytest.raises(ValueError, match="terrain"):
        QuadrupedController(load_robot("go2"), terrain="slope")


def test_a_narrower_gait_starts_after_a_trot_that_brings_the_feet_in():
    robot = load_robot("go2")
    controller = QuadrupedController(robot)
    controller.walk(0.2, gait="pace")
    state = (robot.q_ref.copy(), robot.zero_velocity())
    q, v, _ = _integrate(controller, state, 10)
    schedule = controller.gait_stage.schedule
    assert schedule.pattern.name == "trot to pace" and schedule.pattern.width == controller.gait.width < 1
    q, v, _ = _integrate(controller, (q, v), int(schedule.period / controller.dt) + 5)
    assert controller.gait_stage.schedule.pattern is controller.gait
    neutral = {f.name: f.neutral for f in controller.feet}
    for foot in controller.feet:            # the feet the approach trot landed stand nearer the midline
        if foot.swing is None:
            lateral = abs(foot.foothold[1] - controller.body.com[1])
            assert lateral < 0.6 * abs(neutral[foot.name][1])
    with pytest.raises(ValueError, match="width"):
        tp.control.quadruped.GaitPattern("wide", (0, 0.5, 0.5, 0), 0.5, width=1.5)


def test_a_swing_reaches_over_its_foothold_then_comes_straight_down():
    from tsid_py.control.quadruped.swing import SETTLE_SHARE, FootSwing

    start, end = np.array([0.0, 0.1, 0.02]), np.array([0.25, 0.05, 0.0])
    swing = FootSwing(start, end, 1.0, 1.2, 0.06)
    at = swing.point(1.0)
    np.testing.assert_allclose(at, [start, np.zeros(3), np.zeros(3)], atol=1e-12)     # leaves at rest
    over = swing.point(1.0 + (1 - SETTLE_SHARE) * 0.2)
    np.testing.assert_allclose(over[:, :2], [end[:2], [0, 0], [0, 0]], atol=1e-12)       # above it, still
    assert over[0, 2] > end[2] + 0.01                                                    # and above the ground
    for t in np.linspace(1.0 + (1 - SETTLE_SHARE) * 0.2, 1.2, 9):                       # then straight down
        np.testing.assert_allclose(swing.point(t)[:, :2], over[:, :2], atol=1e-12)
    np.testing.assert_allclose(swing.point(1.2), [end, np.zeros(3), np.zeros(3)], atol=1e-12)
    assert swing.point(1.1)[0, 2] == pytest.approx(0.01 + 0.06, abs=0.005)              # the clearance
    before = swing.point(1.08)
    swing.retarget([0.3, 0.0, 0.01], 1.08)
    np.testing.assert_allclose(swing.point(1.08), before, atol=1e-12)   # position, velocity, acceleration go on
    for t in np.linspace(0.95, 1.25, 61):                      # the compiled point is the definition
        np.testing.assert_allclose(swing.point(t), swing.readable_point(t), atol=1e-13)
    np.testing.assert_allclose(swing.point(1.2)[0], [0.3, 0.0, 0.01], atol=1e-12)
