"""Controllers off the happy path (second round): impossible commands are refused where they
enter, derived state follows its inputs (dt, a lost contact, a heavy robot), and what the
step reports matches what it did. Each case is checked against the documented or physical
expectation, on the controller's own model (no simulator)."""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.contacts import DEFAULT_FORCE_FACTOR
from tsid_py.control import BalanceController
from tsid_py.control.capture_point import MIN_PUSH_DURATION, SupportPolygon, push_bounds, sole_corners
from tsid_py.control.contact_state import LOST, LOST_CHECK_PERIOD
from tsid_py.control.pipeline import Pipeline
from tsid_py.control.quadruped import QuadrupedController
from tsid_py.control.quadruped.body import VelocityCommand
from tsid_py.control.walking import Footstep, StepRecovery, WalkingController
from tsid_py.control.walking.footsteps import MAX_FOOTSTEPS, footsteps_from_velocity

from .conftest import check_contact_solution, load_robot, standing_solver


def rollout(controller, q, v, steps: int, on_step=None):
    """Integrate the controller's own q̈ (semi-implicit Euler on the manifold) for ``steps``
    control periods; ``on_step(k, solution)`` after each."""
    robot, dt = controller.robot, controller.dt
    for k in range(steps):
        solution = controller.step(q, v)
        assert solution.success, solution.status
        v = v + dt * solution.ddq
        q = pin.integrate(robot.model, q, dt * v)
        if on_step is not None:
            on_step(k, solution)
    return q, v


# ------------------------------------------------------------------------------ commands
def test_a_footstep_out_of_reach_is_refused_before_the_walk(talos):
    controller = WalkingController(talos)
    left, right = controller.feet().values()
    far = Footstep(left.foot, left.x + 300.0, left.y, left.yaw)
    with pytest.raises(ValueError, match=r"footstep 0 \('left_sole_link'\) is out of reach .* 300 m away"):
        controller.walk([far])
    with pytest.raises(ValueError, match=r"footstep 1 .* must be finite"):
        controller.walk([Footstep(left.foot, left.x + 0.1, left.y, 0.0), Footstep(right.foot, math.nan, 0.0, 0.0)])
    assert not controller.walking
    controller.walk([Footstep(left.foot, left.x + 0.1, left.y, left.yaw)])         # a real step is taken
    assert controller.walking


def test_a_walk_too_long_for_one_plan_is_refused_at_once(talos):
    controller = WalkingController(talos)
    with pytest.raises(ValueError, match=f"fewer than {MAX_FOOTSTEPS} steps"):
        controller.walk_distance(1e6)
    left, right = controller.feet().values()
    with pytest.raises(ValueError, match=r"steps must be an integer in \[1, 1000\)"):
        footsteps_from_velocity(left, right, [0.1, 0.0, 0.0], 10**6)
    with pytest.raises(ValueError, match="nothing to walk"):
        controller.walk_distance(0.0)
    assert not controller.walking


def test_stop_mid_walk_ends_at_the_landing_and_stands_over_the_feet(talos):
    """A walk of 1 m is stopped during its first swing: the swing lands, no further foot
    lifts, and the CoM comes to rest over the middle of the two feet."""
    controller = WalkingController(talos)
    q, v = rollout(controller, talos.q_ref.copy(), talos.zero_velocity(), 50)
    controller.walk_distance(1.0)
    with pytest.raises(RuntimeError, match=r"call stop\(\)"):
        controller.walk_distance(0.5)
    while controller.plan_stage.swinging is None:
        q, v = rollout(controller, q, v, 1)
    controller.stop()
    q, v = rollout(controller, q, v, int(round(0.6 / controller.dt)))
    assert not controller.walking and controller.steps_taken == 1
    assert sorted(controller.solver.contacts) == sorted(talos.feet)
    q, v = rollout(controller, q, v, int(round(1.5 / controller.dt)))
    talos.update(q, v)
    middle = np.mean([contact.anchor.translation for contact in controller.solver.contacts.values()], axis=0)
    np.testing.assert_allclose(talos.com[:2], middle[:2], atol=0.01)
    assert np.linalg.norm(talos.com_velocity) < 0.02
    with pytest.raises(ValueError, match="nothing to walk"):
        controller.walk_distance(0.0)


def test_a_recovery_step_from_a_tandem_stance_steps_toward_the_capture_point():
    """Feet one behind the other on a line: neither foot is on the side the capture point
    leaves to, so both are candidates (the rule once had none and failed on an empty max)."""
    rule = StepRecovery((0.18, 0.11))
    front, back = Footstep("left", 0.3, 0.0, 0.0), Footstep("right", 0.0, 0.0, 0.0)
    step = rule.choose([0.15, 0.25], {"left": front, "right": back}, math.sqrt(9.81 / 0.87))
    assert step.footstep.y > 0.1                        # toward the capture point, sideways


# ------------------------------------------------------------------------------ contacts
def test_soles_tilted_ninety_degrees_are_released_and_the_step_says_so(talos):
    """The robot lies on its side (the base rolled by 90°): its soles are vertical. Within
    the monitor's check period the contacts are counted lost: no force at either, and the
    step is relaxed, not a success."""
    controller = BalanceController(talos)
    q = talos.q_ref.copy()
    q[3:7] = pin.Quaternion(pin.utils.rpyToMatrix(math.pi / 2, 0.0, 0.0)).coeffs()
    q[2] = 0.3
    controller.step(talos.q_ref, talos.zero_velocity())            # the contacts are made standing
    for _ in range(int(round(LOST_CHECK_PERIOD / controller.dt)) + 1):
        solution = controller.step(q, talos.zero_velocity())
    assert not solution.success and LOST in solution.relaxed
    assert controller.contact_state.lost == set(talos.feet)
    for foot in talos.feet:
        np.testing.assert_allclose(solution.wrenches[foot], 0.0, atol=1e-6)     # N and N·m, of ~900 N


def test_a_nan_measured_wrench_is_refused_naming_the_foot(talos):
    controller = BalanceController(talos)
    controller.step(talos.q_ref, talos.zero_velocity())
    wrenches = {foot: np.r_[0.0, 0.0, talos.weight / 2, 0.0, 0.0, 0.0] for foot in talos.feet}
    wrenches[talos.feet[0]] = np.full(6, np.nan)
    with pytest.raises(ValueError, match=rf"wrenches\['{talos.feet[0]}'\] must be finite"):
        controller.step(talos.q_ref, talos.zero_velocity(), wrenches)


def test_a_new_dt_moves_the_counts_that_depend_on_it(talos):
    """The monitor's settle time and the clock are in seconds: at dt = 2 ms the settle time
    of 0.05 s is 25 control periods (it was 50 at 1 ms), and each step advances 2 ms."""
    controller = BalanceController(talos)
    monitor = controller.contact_state
    assert monitor.settle_steps == 50
    controller.dt = 2e-3
    assert controller.solver.dt == 2e-3 and monitor.settle_steps == 25
    start = controller.time
    rollout(controller, talos.q_ref.copy(), talos.zero_velocity(), 10)
    assert controller.time == pytest.approx(start + 10 * 2e-3)


# ------------------------------------------------------------------------------ capture point
def test_push_bounds_stay_finite_for_long_and_short_pushes(talos):
    """The bound a push of duration T must stay under, ``m g d / z · 1 / (1 − e^{−ωT})`` (scaled
    by the push height), tends to the static ``m g d / z`` for a long push and to the impulse
    bound ``m ω d / T`` for a short one."""
    static = push_bounds(talos, 1e3)["+x"].cop_at_edge
    assert np.isfinite(static) and static > 0
    # one ω explains the bounds of every duration: r(T) = 1 / (1 − e^{−ωT})
    omegas = [-math.log(1.0 - static / push_bounds(talos, T)["+x"].cop_at_edge) / T for T in (0.05, 0.1, 0.5)]
    np.testing.assert_allclose(omegas, omegas[0], rtol=1e-9)
    short = push_bounds(talos, MIN_PUSH_DURATION)["+x"]
    assert np.isfinite(short.cop_at_edge) and short.cop_at_edge == pytest.approx(short.impulse, rel=1e-3)
    with pytest.raises(ValueError, match="duration must be at least"):
        push_bounds(talos, 1e-9)


# ------------------------------------------------------------------------------ force bounds
def test_a_heavy_robot_gets_the_normal_force_it_needs():
    """Talos with every body 30 times heavier (2.8 t): each sole must carry about 14 kN, above
    the old fixed cap of 1e4 N. The default cap is now 20 × the robot's weight, and the
    static stance is the exact solution of the equation of motion with Σ f_z = m g."""
    robot = load_robot("talos")
    for inertia in robot.model.inertias:
        inertia.mass *= 30.0
        inertia.inertia = inertia.inertia * 30.0
    robot = tp.Robot(robot.model, name="heavy talos", feet=robot.feet, sole_size=robot.sole_size, q_ref=robot.q_ref)
    solver = standing_solver(robot)
    for contact in solver.contacts.values():
        assert contact.f_max == pytest.approx(DEFAULT_FORCE_FACTOR * robot.weight)
    q, v = robot.q_ref.copy(), robot.zero_velocity()
    solution = solver.solve(q, v)
    assert solution.success and not solution.relaxed
    check_contact_solution(robot, solver, solution, q, v)
    total = sum(solution.wrenches[foot][2] for foot in robot.feet)
    robot.update(q, v)
    assert total == pytest.approx(robot.weight + robot.mass * solution.ddq[2], rel=0.05)
    assert min(solution.wrenches[foot][2] for foot in robot.feet) > 1e4
    explicit = tp.PlanarContact(robot.feet[0], f_max=500.0)
    assert explicit.f_max == 500.0 and not explicit.f_max_from_weight


# ------------------------------------------------------------------------------ round two, found on the way
def test_a_resized_sole_moves_the_support_and_the_controllers_contact_model_is_a_setting(talos):
    """A sole's length assigned between steps moves the footprint the commanded centre of
    pressure is kept in (the hull of the sole rectangles at their anchors, from pinocchio's
    placements); the controller's ``sole_scale``, ``mu`` and ``contact_kp`` are validated
    settings that reach the contacts made now, not only those made later."""
    controller = BalanceController(talos)
    q, v = talos.q_ref, talos.zero_velocity()
    for _ in range(2):                          # the contacts anchored at the first solve, the support handed over
        controller.step(q, v)

    def hull(length, width):
        talos.update(q, v)
        return SupportPolygon(sole_corners(talos, talos.feet, (length, width))).vertices

    sole = controller.solver.contacts[talos.feet[0]]
    length, width = 0.8 * sole.length, sole.width
    for contact in controller.solver.contacts.values():
        contact.length = length                  # the CoP stays inside: nothing softened, nothing re-anchored
    assert controller.step(q, v).success and not controller.contact_state.softened
    np.testing.assert_allclose(np.sort(controller.com.support.vertices, axis=0), np.sort(hull(length, width), axis=0),
                               atol=1e-12)
    controller.sole_scale = 0.5
    controller.mu, controller.contact_kp = 0.3, 25.0
    controller.step(q, v)
    length, width = (0.5 * size for size in talos.sole_size)
    for contact in controller.solver.contacts.values():
        assert (contact.length, contact.width, contact.mu, contact.kp, contact.kd) == (length, width, 0.3, 25.0, 10.0)
    np.testing.assert_allclose(np.sort(controller.support.vertices, axis=0), np.sort(hull(length, width), axis=0),
                               atol=1e-12)
    for name, value in (("mu", -1.0), ("mu", math.nan), ("contact_kp", -1.0), ("sole_scale", 1.5)):
        with pytest.raises(ValueError, match=name):
            setattr(controller, name, value)
    assert controller.mu == 0.3 and controller.sole_scale == (0.5, 0.5)


def test_the_quadrupeds_period_is_its_solvers():
    """Assigning ``dt`` on the controller or on its solver changes both: the clock advances by
    it and the velocity command ramps at its acceleration limit per second, not per step."""
    robot = load_robot("go2")
    controller = QuadrupedController(robot)
    controller.dt = 2e-3
    assert controller.solver.dt == 2e-3
    controller.solver.dt = 4e-3
    assert controller.dt == 4e-3
    controller.walk(forward=0.5)
    q, v = robot.q_ref.copy(), robot.zero_velocity()
    for _ in range(5):
        controller.step(q, v)
    assert controller.time == pytest.approx(5 * 4e-3)
    filter_ = controller.command_filter
    assert filter_.current.forward == pytest.approx(5 * 4e-3 * filter_.acceleration)


def test_the_quadrupeds_settings_reach_what_they_derive():
    """The ground's ``mu`` reaches the MPC's friction rows (cached per contact table: a
    periodic gait repeats them), ``contact_mu`` every foot's contact, ``swing_time`` the
    schedule, the MPC's interval and the default swing stiffness, ``step_height`` the
    swings; each checked like the constructor's argument. Physically: after ``mu = 0.05``
    every force of the next plans of a trot accelerating at 0.2 g lies in the new friction
    pyramid, and after ``contact_mu = 0.05`` every force the QP gives the feet does."""
    robot = load_robot("go2")
    controller = QuadrupedController(robot)
    state = robot.q_ref.copy(), robot.zero_velocity()
    state = rollout(controller, *state, 5)                 # plans with the profile's mu cached
    for name, value in (("mu", 0.0), ("contact_mu", math.nan), ("swing_time", -0.1), ("step_height", "high")):
        with pytest.raises(ValueError, match=name):
            setattr(controller, name, value)
    controller.swing_time = 0.2
    assert controller.mpc.step == pytest.approx(0.2 / 5)
    assert all(foot.task.kp == pytest.approx((6 / 0.2) ** 2) for foot in controller.gait_stage.feet)
    controller.step_height = 0.05
    assert controller.gait_stage.step_height == 0.05
    controller.mu, controller.contact_mu = 0.05, 0.05
    controller.walk(forward=0.3)

    def in_pyramid(forces, mu):
        forces = np.reshape(forces, (-1, 3))
        return np.all(np.abs(forces[:, :2]) <= mu / math.sqrt(2) * forces[:, 2:] + 1e-6)

    plans, feet = [], []

    def check(k, solution):
        if controller.plan is not None and (not plans or controller.plan is not plans[-1]):
            plans.append(controller.plan)
        feet.append(in_pyramid([w[:3] for w in solution.local_wrenches.values()], 0.05))

    rollout(controller, *state, 300, on_step=check)
    assert not controller.standing and len(plans) > 3
    assert all(in_pyramid(plan.forces, 0.05) for plan in plans[1:]) and all(feet)
    assert controller.gait_stage.swing_time == 0.2
    with pytest.raises(ValueError, match="swing_time can change only while standing"):
        controller.swing_time = 0.3
    assert controller.swing_time == 0.2 and controller.mpc.step == pytest.approx(0.04)


def test_a_quadruped_command_beyond_the_legs_reach_is_refused():
    """A foot on the ground travels ``|v + ω × r| T_st`` under its hip in a stance of
    ``T_st = duty · T_sw / (1 − duty)``; a stretched leg of length L at hip height h covers at
    most ``2 √(L² − h²)``. Go2's legs, measured from pinocchio's joint placements here: a
    trot at 0.99 of that bound is taken, at 1.01 refused (the command unchanged), and the walk
    gait's longer stance lowers the bound by its ratio."""
    robot = load_robot("go2")
    controller = QuadrupedController(robot)
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, robot.q_ref)
    lengths, hips = [], []
    for leg in controller.geometry.legs:
        frame = robot.model.getFrameId(leg.foot)
        chain = [j for j in robot.model.supports[robot.model.frames[frame].parentJoint] if j >= 2]
        points = [data.oMi[j].translation for j in chain] + [data.oMf[frame].translation]
        lengths.append(sum(np.linalg.norm(b - a) for a, b in zip(points[:-1], points[1:])))
        hips.append(points[0][2] - data.oMf[frame].translation[2])
    sweep = 2.0 * math.sqrt(np.mean(lengths) ** 2 - np.mean(hips) ** 2)
    trot_stance = controller.swing_time                       # duty 0.5
    top = sweep / trot_stance
    controller.walk(forward=0.99 * top)
    with pytest.raises(ValueError, match=r"out of reach of the legs with the trot gait.*at most"):
        controller.walk(forward=1.01 * top)
    assert controller.command.forward == pytest.approx(0.99 * top)
    with pytest.raises(ValueError, match="walk gait"):
        controller.walk(forward=0.99 * top, gait="walk")       # stance 3 swings long
    controller.walk(forward=0.99 * top / 3, gait="walk")
    with pytest.raises(ValueError, match="out of reach"):
        controller.command = VelocityCommand(lateral=1.01 * top / 3)
    with pytest.raises(ValueError, match="forward must be a number, got 'fast'"):
        controller.walk(forward="fast")


def test_a_nan_measured_wrench_is_refused_by_every_controller():
    robot = load_robot("go2")
    controller = QuadrupedController(robot)
    foot = controller.geometry.feet[0]
    wrenches = {name: np.r_[0.0, 0.0, robot.weight / 4, 0.0, 0.0, 0.0] for name in controller.geometry.feet}
    wrenches[foot] = np.full(6, np.nan)
    with pytest.raises(ValueError, match=rf"wrenches\['{foot}'\] must be finite"):
        controller.step(robot.q_ref, robot.zero_velocity(), wrenches)
    with pytest.raises(ValueError, match=r"wrenches\['x'\] must have shape \(6,\)"):
        controller.step(robot.q_ref, robot.zero_velocity(), {"x": np.zeros(3)})


def test_footsteps_that_cross_the_legs_are_refused(talos):
    """The left foot put down on the right sole (overlapping rectangles) or beyond it (the legs
    crossed) is refused before the walk; a step beside it, clear of it, is taken."""
    controller = WalkingController(talos)
    left, right = controller.feet().values()
    length, width = talos.sole_size
    with pytest.raises(ValueError, match=r"footstep 0 \('left_sole_link'\) would cross the legs: it lands on the "
                                         r"stance foot 'right_sole_link'"):
        controller.walk([Footstep(left.foot, right.x + 0.5 * length, right.y + 0.5 * width, 0.0)])
    with pytest.raises(ValueError, match="lands beyond the stance foot"):
        controller.walk([Footstep(left.foot, right.x, right.y - 2 * width, 0.0)])
    assert not controller.walking
    controller.walk([Footstep(left.foot, right.x + 0.1, right.y + 1.01 * width, 0.0)])
    assert controller.walking


def test_an_estimator_feeds_one_controller_of_its_robot_and_period(talos):
    from tsid_py.control.estimation import attach_estimator
    from tsid_py.estimation import StateEstimator
    from tsid_py.estimation.readings import SensorReadings

    controller = BalanceController(talos)
    with pytest.raises(ValueError, match=r"estimator.dt must be the controller's dt \(0.001 s\), got 0.002 s"):
        attach_estimator(controller, StateEstimator(talos, 2e-3))
    with pytest.raises(ValueError, match="made for the controller's robot 'talos'"):
        attach_estimator(controller, StateEstimator(load_robot("g1"), 1e-3))
    attach_estimator(controller, StateEstimator(talos, 1e-3))
    with pytest.raises(ValueError, match="already has an estimation stage"):
        attach_estimator(controller, StateEstimator(talos, 1e-3))
    with pytest.raises(ValueError, match=r"readings must hold 32 joint positions \(robot 'talos'\), got 5"):
        controller.step(sensors=SensorReadings(5))
    readings = SensorReadings(talos.na)
    readings.joint_positions, readings.accel = talos.q_ref[7:], [0.0, 0.0, 9.81]
    assert controller.step(sensors=readings).success
    controller.dt = 2e-3
    with pytest.raises(ValueError, match=r"controller's dt is 0.002 s but its estimator's is 0.001 s"):
        controller.step(sensors=readings)


def test_a_stage_runs_once_a_step(talos):
    controller = BalanceController(talos)
    with pytest.raises(ValueError, match="already in the pipeline"):
        controller.insert(controller.solve_stage)
    with pytest.raises(RuntimeError, match="no stage set state.solution"):
        Pipeline([], 1e-3).step(talos.q_ref, talos.zero_velocity())
    with pytest.raises(ValueError, match="not both"):
        Pipeline([], 1e-3, solver=controller.solver)


def test_a_walking_gait_is_a_setting_for_the_next_walk(talos):
    """The gait assigned between walks reaches what was derived from it (the plan stage's
    force ramps, the default touch-down's reach and speed); during a walk, or of another
    type, it is refused (the plan under way keeps its timing)."""
    from tsid_py.control.walking.touchdown import Touchdown

    controller = WalkingController(talos)
    slower = controller.gait.with_(single_support=2 * controller.gait.single_support, transition=0.05)
    controller.gait = slower
    assert controller.plan_stage.gait is slower
    assert controller.touchdown == controller.plan_stage.touchdown == Touchdown.for_robot(talos, slower)
    with pytest.raises(ValueError, match="gait must be a tsid_py.models.gait.Gait, got str"):
        controller.gait = "fast"
    controller.walk_distance(0.5)
    with pytest.raises(ValueError, match="gait cannot change during a walk"):
        controller.gait = controller.gait.with_(step_length=0.1)
    assert controller.gait is slower and controller.plan.gait is slower


def test_there_is_no_ground_at_nan():
    """The terrain's height and normal at a non-finite point are refused (the floor's height
    was returned: a wrong answer as a success)."""
    from tsid_py.control.terrain import Terrain

    ramp = Terrain.slope(10.0)
    assert ramp.height(2.0, 0.0) > 0
    for x, y in ((math.nan, 0.0), (0.0, math.inf)):
        with pytest.raises(ValueError, match="x and y must be finite"):
            ramp.height(x, y)
        with pytest.raises(ValueError, match="x and y must be finite"):
            ramp.normal(x, y)
    with pytest.raises(ValueError, match="x and y must be finite"):
        ramp.height(np.array([0.0, math.nan]), np.zeros(2))
