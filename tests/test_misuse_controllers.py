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
from tsid_py.control.capture_point import MIN_PUSH_DURATION, push_bounds
from tsid_py.control.contact_state import LOST, LOST_CHECK_PERIOD
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
