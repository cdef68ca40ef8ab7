"""The MuJoCo harness runs the same robot, and the demos keep it up (short versions)."""

import json
import re
import time

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.cli import main as cli_main
from tsid_py.sim import Simulation
from tsid_py.scenarios import demos

from .conftest import load_robot, perturbed_state


@pytest.mark.parametrize("name", ["talos", "go2", "panda", "g1"])
def test_mujoco_and_pinocchio_agree_on_mass_matrix_and_bias(name, rng):
    robot = load_robot(name)
    sim = Simulation(robot)
    for _ in range(3):
        if robot.floating_base:
            q, v = perturbed_state(robot, rng, joint_spread=0.3, velocity_spread=1.0)
            q[3:7] = pin.Quaternion(pin.rpy.rpyToMatrix(*rng.uniform(-0.5, 0.5, 3))).coeffs()
        else:
            q, v = pin.randomConfiguration(robot.model), rng.normal(0, 1.0, robot.nv)
        sim.reset(q, v)
        q_back, v_back = sim.state()
        np.testing.assert_allclose(q_back, q, atol=1e-12)
        np.testing.assert_allclose(v_back, v, atol=1e-12)
        M_mj, h_mj = sim.mass_matrix_and_bias()
        data = robot.model.createData()
        M = pin.crba(robot.model, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        h = pin.rnea(robot.model, data, q, v, np.zeros(robot.nv))
        assert np.abs(M_mj - M).max() <= 1e-6 * np.abs(M).max()
        assert np.abs(h_mj - h).max() <= 1e-6 * np.abs(h).max()


def test_contact_wrenches_carry_the_weight_under_gravity_compensation():
    robot = load_robot("talos")
    sim = Simulation(robot)
    tau = tp.gravity_compensation(robot, robot.q_ref, robot.feet).tau[6:]
    totals = []
    for _ in range(150):   # open loop, so an unstable equilibrium: look once the contact settled
        sim.step(tau)
        totals.append(sum(w[2] for w in sim.contact_wrenches().values()))
    assert np.mean(totals[30:]) == pytest.approx(robot.weight, rel=0.02)
    assert sim.state()[0][2] == pytest.approx(robot.q_ref[2], abs=2e-3)


def test_uncontrolled_talos_falls():
    """The controller, not the simulator, is what keeps the robot up."""
    robot = load_robot("talos")
    sim = Simulation(robot)
    sim.step(np.zeros(robot.na), steps=600)
    assert sim.state()[0][2] < 0.8 * robot.q_ref[2]


def test_balance_survives_pushes_short():
    run = demos.balance(duration=1.5, push=100.0, push_times=(0.3, 0.8))
    assert not run.summary["fell"]
    assert run.summary["max_com_error"] < 0.05
    # MuJoCo's feet carry the weight the controller planned for, on average
    measured = run.log["normal_forces"].sum(axis=1)
    assert np.median(measured) == pytest.approx(load_robot("talos").weight, rel=0.05)


def test_quadruped_tracks_its_base_motion_short():
    run = demos.quadruped(duration=1.5)
    assert not run.summary["fell"]
    assert run.summary["max_com_error"] < 0.05


def test_arm_tracks_the_circle_short():
    run = demos.arm(duration=1.5)
    assert run.summary["max_tracking_error"] < 0.01


def test_single_leg_short_hold():
    run = demos.single_leg(duration=3.2, hold=0.5)
    assert not run.summary["fell"]
    assert run.summary["single_support_seconds"] >= 0.5


def test_reconstruct_recovers_ground_reaction_forces_short():
    """Per foot, not just in total: the total follows from the CoM acceleration alone, the
    split between the feet needs the soles' friction and centre-of-pressure bounds."""
    run = demos.reconstruct(duration=1.5)
    assert run.summary["grf_vertical_rms_error_total_pct_weight"] < 0.1
    assert run.summary["grf_vertical_rms_error_per_foot_pct_weight"] < 5.0


def test_cli_demo_writes_json_and_plot(tmp_path):
    out, png = tmp_path / "out.json", tmp_path / "out.png"
    code = cli_main(["demo", "arm", "--duration", "0.3", "--json", str(out), "--plot", str(png)])
    assert code == 0
    summary = json.loads(out.read_text())
    assert summary["demo"] == "arm" and summary["fell"] is False
    assert png.stat().st_size > 10_000


def test_cli_bench_reports_timings(tmp_path, capsys):
    out = tmp_path / "bench.json"
    cli_main(["bench", "--robot", "talos", "--steps", "50", "--warmup", "10", "--json", str(out)])
    (report,) = json.loads(out.read_text())
    assert report["robot"] == "talos" and report["nv"] == 38 and report["median_us"] > 0
    phases = [report["share"][key] for key in ("dynamics", "assembly", "qp", "extraction")]
    assert all(value > 0 for value in phases) and 0 <= report["share"]["other"] < 0.5
    assert 0 < report["computeAllTerms_us"] <= report["computeAllTerms_p99_us"]


def test_cli_bench_paces_its_steps_with_rate(tmp_path):
    """``--rate``: the timed steps start on their periods (the run takes at least steps − 1
    periods); a rate that is not a positive number is a usage error."""
    out = tmp_path / "bench.json"
    tic = time.perf_counter()
    cli_main(["bench", "--robot", "go2", "--steps", "20", "--warmup", "5", "--rate", "200", "--json", str(out)])
    (report,) = json.loads(out.read_text())
    assert time.perf_counter() - tic >= 19 / 200
    assert report["rate_hz"] == 200.0 and report["late_periods"] >= 0 and report["median_us"] > 0
    assert cli_main(["bench", "--rate", "0"]) == 2


def test_pace_waits_for_each_period_and_counts_late_ones():
    from tsid_py.loop import Pace

    pace, tic = Pace(500.0), time.perf_counter()
    for _ in range(5):
        pace.wait()
    assert time.perf_counter() - tic >= 4 / 500
    late = pace.late                            # (0 unless the OS switched this process out meanwhile)
    time.sleep(0.01)                            # a step that overran its 2 ms period
    tic = time.perf_counter()
    pace.wait()
    assert pace.late == late + 1
    pace.wait()                                 # the schedule restarted at the late wait: a whole period
    assert time.perf_counter() - tic >= 1 / 500
    with pytest.raises(ValueError, match="rate must be > 0"):
        Pace(0.0)
    Pace(None).wait()                           # back to back: returns at once


def test_bench_phase_shares_ignore_a_step_switched_out_by_the_os():
    """One 10 ms step among 49 of 30 µs (the OS switched the process out between two phases):
    the shares are those of the undisturbed steps, 'other' 10 % as in each of them."""
    from tsid_py.bench import _phase_shares

    totals = np.full(50, 30e-6)
    totals[7] = 10e-3
    phases = {key: np.full(50, 6.75e-6) for key in ("dynamics", "assembly", "qp", "extraction")}
    share = _phase_shares(totals, phases)
    assert share["other"] == pytest.approx(0.1) and share["qp"] == pytest.approx(0.225)


def test_short_soak_with_pushes_and_a_contact_switch():
    """The short version of benchmarks/soak.py: one 2 s cycle (a random push, then one foot
    unloaded, lifted 1 cm and put back) without a failure, a NaN or a fall."""
    from tsid_py.scenarios.soak import soak

    report = soak(2000, seed=3)
    assert report["steps"] == 2000 and not report["fell"]
    assert report["false_failures"] == 0 and report["infeasible_steps"] == 0 and report["nan_outputs"] == 0
    assert report["pushes"] >= 1 and report["contact_switches"] >= 1
    assert report["rss_mb_last"] - report["rss_mb_first"] < 5.0


@pytest.mark.parametrize("qp_solver", ["proxsuite", "proxqp", "osqp", "daqp", "quadprog"])
def test_every_backend_soaks_through_a_ramped_contact_switch(qp_solver):
    """The soak's first 1.2 s with each general-purpose backend: a push, the ramped removal of
    a foot (its last step bounds the normal force to [0, 0]), the foot lifted, without a false
    failure (OSQP had 3, quadprog 1 here before the presolve and the exact polish)."""
    from tsid_py.scenarios.soak import soak

    report = soak(1200, seed=3, qp_solver=qp_solver)
    assert report["steps"] == 1200 and not report["fell"] and report["contact_switches"] == 1
    assert report["false_failures"] == 0 and report["infeasible_steps"] == 0 and report["nan_outputs"] == 0


def test_harness_delays_torques_and_scales_trunk_mass():
    robot = load_robot("talos")
    plain = Simulation(robot)
    sim = Simulation(robot, actuation_delay=0.002, mass_scale={"base_link": 1.1})
    body = sim.mujoco.mj_name2id(sim.model, sim.mujoco.mjtObj.mjOBJ_BODY, "base_link")
    assert sim.model.body_mass[body] == pytest.approx(1.1 * plain.model.body_mass[body])
    np.testing.assert_allclose(sim.model.body_inertia[body], 1.1 * plain.model.body_inertia[body])
    commands = [np.full(robot.na, value) for value in (1.0, 2.0, 3.0)]
    applied = []
    for tau in commands:
        sim.step(tau)
        applied.append(sim.data.qfrc_applied[sim.joint_dofs].copy())
    np.testing.assert_array_equal(applied[0], 0.0)          # nothing sent yet 2 ms ago
    np.testing.assert_array_equal(applied[2], commands[0])  # the first command, two steps late
    with pytest.raises(KeyError, match="mass_scale"):
        Simulation(robot, mass_scale={"no_such_body": 1.1})


def test_balance_demo_one_push_recovers_cleanly_and_reports(tmp_path):
    """The CLI's single-push interface (a signed direction as its own word, ``-y``): a push
    well inside the bounds is recovered with the soles flat and in place, as MuJoCo measures
    them."""
    out = tmp_path / "balance.json"
    code = cli_main(["demo", "balance", "--push", "150", "--push-direction", "-y", "--push-at", "0.3",
                     "--duration", "1.5", "--json", str(out)])
    summary = json.loads(out.read_text())
    assert code == 0 and summary["fell"] is False and summary["recovered_cleanly"] is True
    assert summary["pushes"] == [{"at": 0.3, "direction": "-y", "newtons": 150.0}]
    assert summary["max_sole_tilt_deg"] < 2.0 and summary["max_sole_slip_m"] < 0.01
    assert summary["failure_policy_step_count"] == 0
    assert set(summary["failure_policy_steps"]) == {"contacts softened", "torque limits slackened", "damping command"}


def test_g1_survives_its_default_push_short():
    """The default push scales with the robot's mass (G1 fell under Talos's 150 N)."""
    run = demos.balance(robot="g1", push_direction="+x", push_at=0.3, duration=1.5)
    assert run.summary["push_newtons"] == pytest.approx(1.6 * load_robot("g1").mass)
    assert not run.summary["fell"]


def test_a_fall_is_judged_from_the_simulator():
    """Far beyond the capture-point bound the robot falls, and the run says so."""
    from tsid_py.control import push_bounds
    from tsid_py.scenarios.push_recovery import push_trial

    robot = load_robot("talos")
    bound = push_bounds(robot)["+x"].cop_at_edge
    summary = push_trial(robot, 2.5 * bound, "+x", push_at=0.2, duration=1.5)
    assert summary["fell"] and summary["fall_reason"]


def test_the_loop_never_stops_when_the_qp_fails():
    """Without the contact-state monitor, a robot knocked to the ground makes its hard
    contacts infeasible; the failure policy relaxes those steps and the loop runs on."""
    from tsid_py.scenarios.push_recovery import push_trial

    robot = load_robot("talos")
    summary = push_trial(robot, 900.0, "+x", push_at=0.2, duration=1.5, stop_at_fall=False,
                         controller_options={"contact_state": False})
    assert summary["fell"] and summary["simulated_time"] == pytest.approx(1.5)
    assert summary["failure_policy_step_count"] > 0


def test_harness_com_state_and_sole_corners_are_the_simulators():
    """The harness's CoM is MuJoCo's (subtree CoM of the world) and its sole corners span
    the collision boxes; reading them leaves the controller's pinocchio data alone."""
    robot = load_robot("talos")
    sim = Simulation(robot)
    sim.mujoco.mj_forward(sim.model, sim.data)
    robot.data.oMf[robot.frame_id(robot.feet[0])].translation[:] = 123.0     # a marker
    com, velocity = sim.com_state()
    np.testing.assert_allclose(com, sim.data.subtree_com[0], atol=1e-9)
    np.testing.assert_allclose(velocity, 0.0, atol=1e-12)
    corners = sim.sole_corners(robot.feet)
    length, width = robot.sole_size
    assert corners.shape == (8, 2)
    for foot, block in zip(robot.feet, (corners[:4], corners[4:])):
        # the bottom face's centre: below the box's centre (the soles stand all but flat)
        np.testing.assert_allclose(block.mean(axis=0), sim.sole_pose(foot)[1][:2], atol=1e-4)
        assert np.ptp(block[:, 0]) == pytest.approx(length, abs=1e-6)
        assert np.ptp(block[:, 1]) == pytest.approx(width, abs=1e-6)
    sim.contact_wrenches()
    assert robot.data.oMf[robot.frame_id(robot.feet[0])].translation[0] == 123.0


def test_a_slow_fall_after_the_window_is_not_survived():
    """Standing still (a 1 N push) comes to rest right after the hold; a push whose capture point ends
    beyond the soles is not survived even though the base is still up when ``duration``
    ends: the trial runs on until the robot falls."""
    from tsid_py.scenarios.push_recovery import REST_HOLD, push_trial

    robot = load_robot("talos")
    still = push_trial(robot, 1.0, "+x", push_at=0.2, duration=0.8)
    assert still["survived"] and still["came_to_rest"]
    assert still["rest_at"] == pytest.approx(0.2 + 0.1 + REST_HOLD, abs=2e-3)
    assert still["simulated_time"] == pytest.approx(0.8)
    slow = push_trial(robot, 320.0, "+x", push_at=0.2, duration=1.0)
    assert slow["fell"] and slow["fell_at"] > 1.0 and not slow["survived"] and not slow["came_to_rest"]


@pytest.mark.parametrize("name", ["talos", "go2"])
def test_contact_wrenches_match_mujocos_per_contact_forces(name):
    """The compiled pass equals summing ``mj_contactForce`` contact by contact (world force
    on the foot, moment about the foot frame's origin from pinocchio)."""
    robot = load_robot(name)
    sim = Simulation(robot)
    rng = np.random.default_rng(3)
    for _ in range(40):
        sim.step(rng.normal(0.0, 0.5, robot.na))
    model, data, mujoco = sim.model, sim.data, sim.mujoco
    mujoco.mj_forward(model, data)
    frames = robot.model.createData()
    pin.framesForwardKinematics(robot.model, frames, sim.state()[0])
    measured = sim.contact_wrenches()
    assert data.ncon > 0
    local = np.zeros(6)
    for foot in robot.feet:
        geom = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, foot + ("_sole" if robot.sole_size else "_sphere"))
        origin = frames.oMf[robot.frame_id(foot)].translation
        expected = np.zeros(6)
        for i in range(data.ncon):
            contact = data.contact[i]
            if geom not in (contact.geom1, contact.geom2):
                continue
            mujoco.mj_contactForce(model, data, i, local)
            force = contact.frame.reshape(3, 3).T @ local[:3] * (-1.0 if contact.geom1 == geom else 1.0)
            expected += np.r_[force, np.cross(contact.pos - origin, force)]
        np.testing.assert_allclose(measured[foot], expected, atol=1e-9 * max(1.0, np.abs(expected).max()))


def test_a_mujoco_recording_is_recovered_from_positions_alone():
    """The balance controller sways over the left foot and squats in MuJoCo; the documented
    call recovers the vertical contact forces the physics engine applied from the base and
    joint positions alone (80 frames, mid-motion)."""
    from tsid_py.scenarios.recordings import sway_and_squat

    simulated = sway_and_squat("talos", duration=0.08, settle=0.9)
    robot = tp.robots.load("talos")
    recording = simulated.recording
    result = tp.multiple_contact_inverse_dynamics_over_time(robot, recording.positions, recording.dt,
                                                            list(recording.contacts))
    truth = simulated.wrenches[1:-1, :, 2]                 # frame t ↔ physics step t + 1
    error = result.wrenches[..., 2] - truth
    assert np.sqrt(np.mean(error**2)) < 0.05 * robot.weight
    assert np.sqrt(np.mean(error.sum(axis=1) ** 2)) < 0.005 * robot.weight
    assert np.ptp(truth[:, 0]) > 0.05 * robot.weight        # the split does change: not a static stance


def test_a_diverging_simulation_raises_instead_of_resetting(capfd):
    """Torques of 1e12 N·m blow the integration up. MuJoCo alone would print a warning, reset
    to the default pose and carry on from t = 0; the harness raises, names the time and the
    command, prints nothing and keeps the clock (a reset() is the way on)."""
    from tsid_py.sim import SimulationDiverged

    robot = load_robot("talos")
    sim = Simulation(robot)
    sim.step(np.zeros(robot.na), steps=5)
    with pytest.raises(SimulationDiverged, match=r"'talos' diverged at t = 0\.00[67]0 s .*accelerations.*1e\+12") as raised:
        sim.step(np.full(robot.na, 1e12))
    dof = int(re.search(r"DOF (\d+)", str(raised.value)).group(1))       # MuJoCo's, named by its joint
    assert f"at DOF {dof}. " in str(raised.value)
    assert f", joint {sim.model.joint(int(sim.model.dof_jntid[dof])).name!r})" in str(raised.value)
    assert f"tsid-py check-robot {robot.source.path}" in str(raised.value)
    assert sim.time > 0.005
    assert capfd.readouterr().out == ""
    sim.reset(robot.q_ref, robot.zero_velocity())
    sim.step(np.zeros(robot.na))
    assert sim.time == pytest.approx(1e-3)


def test_a_push_trial_ends_as_a_failure_when_the_physics_diverge():
    """An absurd push (1e13 N) blows the simulation up: the trial reports a fall whose reason
    is the divergence, instead of carrying on from a reset robot."""
    from tsid_py.scenarios.push_recovery import run_pushes

    def absurd_push(t, controller, sim):
        if abs(t - 0.05) < 1e-9:
            sim.push([1e13, 0.0, 0.0], 0.01)

    summary, _ = run_pushes(load_robot("talos"), [], duration=0.2, on_step=absurd_push)
    assert summary["fell"] and summary["fall_reason"].startswith("the simulation diverged")
    assert 0.05 <= summary["fell_at"] < 0.07


def test_the_summary_lists_the_pushes_that_happened():
    """A run that ends first (here its physics diverge at ~0.06 s under an absurd push)
    reports none of the pushes scheduled after: they were listed as applied."""
    from tsid_py.scenarios.push_recovery import run_pushes

    def absurd_push(t, controller, sim):
        if abs(t - 0.05) < 1e-9:
            sim.push([1e13, 0.0, 0.0], 0.01)

    summary, _ = run_pushes(load_robot("talos"), [(0.02, "+y", 50.0), (0.15, "+x", 50.0)], duration=0.3,
                            on_step=absurd_push)
    assert summary["fell"] and summary["fell_at"] < 0.15
    assert summary["pushes"] == [{"at": 0.02, "direction": "+y", "newtons": 50.0}]


def test_a_walk_whose_physics_diverge_before_it_sets_off_is_a_fall_not_a_crash():
    """The walk plan starts after the settling time; a divergence before it (here an absurd
    push at 0.05 s) ends the run with a summary of no steps, not an AttributeError."""
    from tsid_py.scenarios.walk import SETTLE, run_walk

    summary, _, info = run_walk(load_robot("talos"), distance=1.0, pushes=[(0.05, np.array([1e13, 0.0, 0.0]), 0.01)])
    assert 0.05 < SETTLE
    assert summary["fell"] and summary["fall_reason"].startswith("the simulation diverged")
    assert summary["planned_steps"] == 0 and summary["steps"] == 0 and info["footsteps"] == []


def test_levels_keep_the_com_while_the_hand_reaches_short():
    """Talos reaches 30 cm forward with its left hand over 0.6 s in MuJoCo. As one weighted
    cost (hand weight 10, CoM 1) the CoM drifts to serve the hand; with the hand at level 1
    and the CoM at level 2 the CoM holds (three times less drift at least) and the hand reaches
    no later.
    The long version, with pushes and noise over several seeds: benchmarks/levels_reach.py."""
    robot = load_robot("talos")
    hand = "arm_left_7_link"
    start = robot.placement_at(robot.q_ref, robot.model.getFrameId(hand)).translation.copy()
    goal = start + [0.3, 0.0, 0.1]
    results = {}
    for priorities in (("soft", "soft"), (1, 2)):
        sim = Simulation(robot)
        solver = tp.DynamicsSolver(robot)
        for foot in robot.feet:
            solver.add_contact(tp.PlanarContact(foot, length=robot.sole_size[0], width=robot.sole_size[1], mu=0.8))
        solver.add_constraint(tp.constraints.TorqueLimits())
        reach = solver.add_task(tp.tasks.PositionTask(hand, kp=100.0, weight=10.0, priority=priorities[0]))
        com = solver.add_task(tp.tasks.CoMTask(kp=100.0, priority=priorities[1]))
        solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=10.0, weight=1e-2))
        com_start, drift = com.position_ref.copy(), 0.0
        for k in range(800):
            ramp = min(k / 600, 1.0)
            reach.set_target(start + ramp * ramp * (3 - 2 * ramp) * (goal - start))
            sim.step(solver.solve(*sim.state()).tau_actuated)
            drift = max(drift, np.linalg.norm(sim.com_state()[0][:2] - com_start[:2]))
        q, _ = sim.state()
        assert q[2] > 0.9 * robot.q_ref[2]
        results[priorities] = drift, np.linalg.norm(robot.placement_at(q, robot.model.getFrameId(hand)).translation
                                                    - goal)
    (soft_drift, soft_miss), (level_drift, level_miss) = results[("soft", "soft")], results[(1, 2)]
    assert level_drift < soft_drift / 3                       # measured: 0.06 mm against 2.8 mm
    assert level_miss < 0.03 and level_miss <= soft_miss + 1e-3   # the hand no later than as one cost
