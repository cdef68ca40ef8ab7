"""The flight recorder and its replay: a recorded step re-solves bit for bit, a changed
setting shows its effect, memory stays bounded, files are read with clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.control.dcm import CapturePointTask
from tsid_py.control.reference import humanoid_balance
from tsid_py.control.walking import WalkingController
from tsid_py.control.walking.plan import LIFT
from tsid_py.overrides import StepOverrides
from tsid_py.scenarios.recorder import FlightRecorder, _targets_complete
from tsid_py.tools.replay import Recording, replay


def _record(steps: int, capacity: int, tmp_path, *, switch_at: int | None = None, soften_at: int | None = None):
    """The reference balance problem (CoM sinusoid, the state following q̈) recorded; at
    ``switch_at`` the left foot is released with a ramp, at ``soften_at`` one step softens
    the right foot through the overrides."""
    robot = tp.robots.load(tp.robots.DEFAULT_HUMANOID)
    controller = humanoid_balance(robot, 1e-3)
    solver = controller.solver
    recorder = FlightRecorder(solver, capacity=capacity)
    robot.update(robot.q_ref, robot.zero_velocity())
    centre = robot.com.copy()
    q, v, xs = robot.q_ref.copy(), robot.zero_velocity(), []
    overrides = StepOverrides()
    for k in range(steps):
        s = np.sin(np.pi * k * 1e-3)
        controller.com.set_target(centre + [0, 0.03 * s, 0], velocity=[0, 0.03 * np.pi * np.cos(np.pi * k * 1e-3), 0])
        if k == switch_at:
            solver.remove_contact(robot.feet[0], transition=0.02)
        overrides.clear()
        if k == soften_at:
            overrides.soften(robot.feet[1], 1e4)
        sol = solver.solve(q, v, overrides)
        xs.append(sol.x.copy())
        v = v + 1e-3 * sol.ddq
        q = pin.integrate(robot.model, q, 1e-3 * v)
    path = recorder.save(tmp_path / "run.tsidrec")
    return Recording.load(path), xs, recorder


def test_a_recording_replays_bit_for_bit_and_a_changed_setting_differs(tmp_path):
    recording, xs, _ = _record(300, 1000, tmp_path, switch_at=120, soften_at=60)
    assert len(recording) == 300
    for i in (0, 60, 150, 299):                   # what was recorded is what the loop got
        assert np.array_equal(recording.x(i), xs[i])
    replayed = replay(recording)
    assert not replayed.errors
    assert replayed.identical_steps() == 300 and replayed.max_difference() == 0.0
    stiffer = replay(recording, change=lambda solver: setattr(solver.tasks[0], "kp", 400.0))
    differences = stiffer.differences()
    assert np.nanmax(differences) > 1e-3          # a stiffer CoM task asks other accelerations
    # one setting changed: every step differs, and the replay starts from the recorded states
    assert np.all(differences[1:] > 0)


class _UserPostureTask(tp.tasks.JointTask):
    """A task defined outside tsid_py.tasks: the recorder keeps its whole state each step."""


def test_a_changed_setting_of_a_users_task_stays_changed_in_the_replay(tmp_path):
    """A task the recorder keeps whole each step (a controller's or a user's, e.g. the walk's
    capture-point task) gets its recorded state back at every replayed step, but not its
    settings: ``weight = 100`` in the replay's change gives other steps."""
    robot = tp.robots.load(tp.robots.DEFAULT_HUMANOID)
    controller = humanoid_balance(robot, 1e-3)
    solver = controller.solver
    task = solver.add_task(_UserPostureTask(robot.q_ref, kp=10.0, weight=1e-3, name="user posture"))
    recorder = FlightRecorder(solver, capacity=100)
    q, v = robot.q_ref.copy(), robot.zero_velocity()
    for k in range(50):
        task.set_target(robot.q_ref + 0.05 * np.sin(0.1 * k) * (np.arange(robot.nq) >= 7))
        solution = solver.solve(q, v)
        v = v + 1e-3 * solution.ddq
        q = pin.integrate(robot.model, q, 1e-3 * v)
    recording = Recording.load(recorder.save(tmp_path / "user.tsidrec"))
    assert replay(recording).identical_steps() == 50
    index = next(i for i, item in enumerate(solver.tasks) if isinstance(item, _UserPostureTask))
    heavier = replay(recording, change=lambda replayed: setattr(replayed.tasks[index], "weight", 100.0))
    assert np.all(heavier.differences()[1:] > 1e-6)


def test_a_walks_controller_tasks_are_recorded_by_their_targets_and_replay_bit_for_bit(tmp_path):
    """The walk's capture-point task and wrench regularisation declare their targets
    complete: through a lift-off (a new support: a keyframe) no step keeps a task's whole
    state (a pickle each step made ``demo walk --record`` 2.3 times slower), and every step
    replays bit for bit. A user's subclass of the capture-point task is kept whole again."""
    robot = tp.robots.load(tp.robots.DEFAULT_HUMANOID)
    controller = WalkingController(robot)
    solver = controller.solver
    recorder = FlightRecorder(solver, capacity=1000)
    q, v = robot.q_ref.copy(), robot.zero_velocity()
    plan = controller.walk_distance(0.3)
    lift = next(time for time, kind, _, _ in plan.events if kind == LIFT)
    for _ in range(int(round(lift / solver.dt)) + 20):
        solution = controller.step(q, v)
        v = v + solver.dt * solution.ddq
        q = pin.integrate(robot.model, q, solver.dt * v)
    assert controller.plan_stage.swinging is not None           # the support changed
    assert len(recorder.keyframes) >= 2
    assert not any("items" in entry for entry in recorder.sparse.values())
    recording = Recording.load(recorder.save(tmp_path / "walk.tsidrec"))
    replayed = replay(recording)
    assert not replayed.errors and replayed.identical_steps() == len(recording)
    assert replayed.max_difference() == 0.0

    class UsersCapturePointTask(CapturePointTask):
        """A subclass elsewhere: state of its own is possible."""

    assert not _targets_complete(UsersCapturePointTask(0.8))
    assert _targets_complete(controller.com) and _targets_complete(tp.tasks.CoMTask())


def test_each_row_holds_the_targets_the_step_was_solved_with():
    """The rows against the tasks' own arrays at each step: targets replaced, one edited in
    place (read from the assembly's packed copy), across a layout change and an overridden
    step (read from the tasks)."""
    robot = tp.robots.load(tp.robots.DEFAULT_HUMANOID)
    controller = humanoid_balance(robot, 1e-3)
    solver = controller.solver
    recorder = FlightRecorder(solver, capacity=64)
    robot.update(robot.q_ref, robot.zero_velocity())
    centre, q, v = robot.com.copy(), robot.q_ref.copy(), robot.zero_velocity()
    posture = next(task for task in solver.tasks if isinstance(task, tp.tasks.JointTask))
    overrides, expected = StepOverrides(), []
    for k in range(40):
        controller.com.set_target(centre + [0, 1e-3 * k, 0])
        posture.position_ref[0] += 1e-4                  # in place: the same array
        if k == 20:
            solver.remove_contact(robot.feet[0], transition=0.01)
        overrides.clear()
        if k == 10:
            overrides.soften(robot.feet[1], 1e4)
        expected.append(np.concatenate([np.ravel(array) for task in solver.tasks for array in task.target_arrays()]))
        solver.solve(q, v, overrides)
    for k, row in enumerate(expected):
        assert np.array_equal(recorder.targets[k, :row.size], row), k


def test_the_recorder_keeps_the_last_steps_and_their_keyframes(tmp_path):
    recording, xs, recorder = _record(250, 100, tmp_path, switch_at=60)
    assert recording.steps[0] == 150 and len(recording) == 100
    assert len(recording.keyframes) <= 2 < len(recorder.keyframes) + 2
    assert np.array_equal(recording.x(99), xs[-1])
    assert replay(recording).identical_steps() == 100


def test_recording_files_are_checked(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        Recording.load(tmp_path / "missing.tsidrec")
    bad = tmp_path / "bad.tsidrec"
    bad.write_text("not an archive")
    with pytest.raises(ValueError, match="bad.tsidrec"):
        Recording.load(bad)
    robot = tp.robots.load(tp.robots.DEFAULT_HUMANOID)
    solver = humanoid_balance(robot).solver
    with pytest.raises(ValueError, match="capacity"):
        FlightRecorder(solver, capacity=0)
    FlightRecorder(solver, capacity=10)
    with pytest.raises(ValueError, match="already has a recorder"):
        FlightRecorder(solver)


def test_replay_command_reports_plots_and_refuses_bad_arguments(tmp_path, capsys):
    from tsid_py.cli import main

    recording, _, _ = _record(60, 100, tmp_path)
    path = str(tmp_path / "run.tsidrec")
    assert main(["replay", path, "--json", str(tmp_path / "r.json")]) == 0
    report = __import__("json").loads((tmp_path / "r.json").read_text())
    assert report["identical_steps"] == 60 and report["max_difference"] == 0.0
    assert main(["replay", path, "--set", "CoMTask.kp=400", "--plot", str(tmp_path / "p.png"),
                 "--signal", "x[3]", "--signal", "tau[7]"]) == 0
    assert (tmp_path / "p.png").stat().st_size > 1000
    assert main(["replay", str(tmp_path / "missing.tsidrec")]) == 2
    assert main(["replay", path, "--set", "nonsense"]) == 2
    assert main(["replay", path, "--set", "NoSuchTask.kp=1"]) == 2
    assert "error" in capsys.readouterr().err


def test_a_rerun_file_holds_the_robot_the_contacts_and_the_plots(tmp_path):
    from rerun.chunk import RrdReader

    from tsid_py.tools.viewer import RerunView

    robot = tp.robots.load(tp.robots.DEFAULT_HUMANOID)
    controller = humanoid_balance(robot, 1e-3)
    view = RerunView(controller.solver, str(tmp_path / "run.rrd"), every=5)
    q, v = robot.q_ref.copy(), robot.zero_velocity()
    for _ in range(20):
        sol = controller.solver.solve(q, v)
        v = v + 1e-3 * sol.ddq
        q = pin.integrate(robot.model, q, 1e-3 * v)
    view.close()
    paths = {str(chunk.entity_path) for chunk in RrdReader(tmp_path / "run.rrd").stream()}
    for entity in ("/world/com", "/world/capture_point", "/world/cop", "/world/support_polygon", "/world/footsteps",
                   "/plots/step_us", "/plots/task_error/CoMTask"):
        assert entity in paths, (entity, sorted(paths))
    assert {f"/world/wrenches/{foot}" for foot in robot.feet} <= paths
    assert sum(path.startswith("/robot/visual/") for path in paths) > 10
    with pytest.raises(ValueError, match="target"):
        RerunView(controller.solver, "nowhere", attach=False)


def test_the_entries_of_overridden_steps_leave_with_their_steps():
    """Every step softens a foot (an entry of the step's overrides each step): the entries
    of the steps no longer in the ring are dropped at the next warm start kept (every
    capacity / 4 steps here), so memory stays bounded."""
    robot = tp.robots.load(tp.robots.DEFAULT_HUMANOID)
    solver = humanoid_balance(robot, 1e-3).solver
    recorder = FlightRecorder(solver, capacity=20)
    q, v = robot.q_ref.copy(), robot.zero_velocity()
    overrides = StepOverrides()
    overrides.soften(robot.feet[1], 1e4)
    for _ in range(120):
        solver.solve(q, v, overrides)
    assert min(recorder.sparse) >= 120 - 20 - 5 and len(recorder.sparse) <= 20 + 5
    assert all("overrides" in recorder.sparse[step] for step in range(100, 120))


def test_weighted_and_failed_steps_are_recorded_and_replayed(tmp_path):
    """A step that weighs a task and one that weighs the regularisation replay as recorded; a
    step that raised is recorded with its error and raises again in the replay."""
    robot = tp.robots.load(tp.robots.DEFAULT_HUMANOID)
    solver = humanoid_balance(robot, 1e-3).solver
    recorder = FlightRecorder(solver, capacity=50)
    q, v = robot.q_ref.copy(), robot.zero_velocity()
    overrides = StepOverrides()
    for k in range(12):
        overrides.clear()
        if k == 4:
            overrides.weigh(solver.tasks[0], 50.0)
        if k == 6:
            overrides.weigh(solver.regularization_tasks[0], 1e-2)
        if k == 8:
            with pytest.raises(ValueError):
                solver.solve(q * np.nan, v)
            continue
        solver.solve(q, v, overrides)
    recording = Recording.load(recorder.save(tmp_path / "w.tsidrec"))
    assert len(recording) == 12 and recording.x(8) is None
    replayed = replay(recording)
    assert replayed.identical_steps() == 11 and list(replayed.errors) == [8]


def test_a_refused_state_is_recorded_and_leaves_the_solver_usable(tmp_path):
    robot = tp.robots.load(tp.robots.DEFAULT_HUMANOID)
    solver = humanoid_balance(robot, 1e-3).solver
    recorder = FlightRecorder(solver, capacity=10)
    with pytest.raises(ValueError, match="q"):
        solver.solve(np.zeros(3), robot.zero_velocity())
    with pytest.raises(ValueError, match="v"):
        solver.solve(robot.q_ref, "not a velocity")
    assert solver.solve(robot.q_ref, robot.zero_velocity()).success      # not locked by the refusals
    assert recorder.count == 3 and np.all(np.isnan(recorder.q[0]))


def test_replay_refuses_what_the_recording_cannot_give(tmp_path, capsys):
    """A recording cut short (a truncated archive) or not a recording at all, steps outside
    it, a setting the item does not have (it used to be set as a new attribute and change
    nothing), a signal index past its vector: exit 2 naming the option or file, no traceback."""
    from tsid_py.cli import main

    _record(20, 100, tmp_path)
    path = tmp_path / "run.tsidrec"
    cut = tmp_path / "cut.tsidrec"
    cut.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    (tmp_path / "table.tsidrec").write_text("1,2,3\n")
    cases = [
        ([str(cut)], "cut.tsidrec' is not a tsid_py recording (not an .npz archive, or one cut short)"),
        ([str(tmp_path / "table.tsidrec")], "table.tsidrec' is not a tsid_py recording"),
        ([str(path), "--steps", "30:40"], "argument --steps: must select kept steps A:B with 0 ≤ A < B ≤ 20"),
        ([str(path), "--steps", "5:3"], "argument --steps"),
        ([str(path), "--set", "JointTask.kpp=3"], "--set JointTask.kpp: 'kpp' is not a setting of 'JointTask'; its "
                                                  "settings: kd, kp, mask, priority, weight"),
        ([str(path), "--set", "solver.qp_solver=\"osqp\""], "'qp_solver' is not a setting of 'solver'"),
        ([str(path), "--set", "JointTask.kp=-1"], "--set JointTask.kp=-1: kp must be >= 0.0"),
        ([str(path), "--plot", str(tmp_path / "p.png"), "--signal", "tau[38]"],
         "argument --signal: tau[38] is out of range (tau has 38 entries)"),
    ]
    for argv, message in cases:
        assert main(["replay", *argv]) == 2, argv
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err, (argv, err)
    assert not (tmp_path / "p.png").exists()


def test_steady_steps_are_written_by_the_step_log_without_the_hooks():
    """Once armed, the solver writes a steady step's row itself (one compiled call): the
    recorder's hooks see only the first step, a configuration change, a step with overrides,
    a checkpoint and a step that raised; the rows are the same either way (the first test
    replays them), and a covered step that raises is recorded as raised."""
    robot = tp.robots.load(tp.robots.DEFAULT_HUMANOID)
    controller = humanoid_balance(robot, 1e-3)
    solver = controller.solver
    recorder = FlightRecorder(solver, capacity=40)          # a checkpoint every 10 steps
    hooked = []
    before = recorder.before_step
    recorder.before_step = lambda solver, q, v, overrides: (hooked.append(recorder.count),
                                                           before(solver, q, v, overrides))
    robot.update(robot.q_ref, robot.zero_velocity())
    q, v, overrides = robot.q_ref.copy(), robot.zero_velocity(), StepOverrides()
    for k in range(35):
        overrides.clear()
        if k == 13:
            overrides.soften(robot.feet[1], 1e4)
        if k == 24:
            solver.tasks[0].kp = 50.0                        # a setting: a new keyframe
        solver.solve(q, v, overrides)
    # hooks: the first two steps (the first anchors the contacts: a new configuration), the
    # checkpoints (10, 20, 30), the overridden step and the one after (re-armed there), the
    # step after the setting
    assert hooked == [0, 1, 10, 13, 14, 20, 24, 30]
    assert recorder.log.armed and recorder.count == 35
    bad = q.copy()
    bad[7] = np.nan
    with pytest.raises(ValueError, match="q"):
        solver.solve(bad, v)                                 # a covered step that raises
    assert hooked[-1] == 35 and recorder.status[35] == -1 and np.isnan(recorder.q[35, 7])
    assert "ValueError" in recorder.sparse[35]["error"]
    solver.solve(q, v)
    assert recorder.x_size[36] > 0 and recorder.status[36] >= 0
    recorder.detach()
    assert solver.recorder is None and solver.step_log is None
    solver.solve(q, v)
    assert recorder.count == 37
    recorder.attach()
    solver.solve(q, v)
    assert recorder.count == 38


def test_a_recorded_steady_step_allocates_nothing_that_outlives_it():
    """:func:`tests.test_realtime.measure_steady_steps` with a flight recorder attached (its
    ring large enough that no checkpoint falls in the measured steps)."""
    probe = ("import json; from tests.test_realtime import measure_steady_steps as m; "
             "from tsid_py.scenarios.recorder import FlightRecorder, _targets_complete; "
             f"print(json.dumps(m({tp.robots.DEFAULT_HUMANOID!r}, lambda solver: FlightRecorder(solver, 4000))))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=600,
                            cwd=Path(__file__).parent.parent)
    assert result.returncode == 0, result.stderr
    counted = json.loads(result.stdout.strip().splitlines()[-1])
    assert counted["retained"] == 0, f"{counted['retained']} bytes retained over {counted['steps']} steps"
    assert counted["kept"] == [] and counted["collections"] == [] and counted["numba_blocks"] == 0


def test_steady_steps_write_their_rows_with_the_refill_and_replay_bit_for_bit(tmp_path):
    """The control loop's refilled steps (``out=``): once the log is armed, each steady step
    writes its row in the refill's compiled call, its time pending until the next step; the
    rows hold the state as given (a list too), the loop's ``x`` and each step's own time
    (the solver's phases), whichever way the next step went (steady, a checkpoint's hooks, a
    general step, a setting, a detach), and replay bit for bit."""
    robot = tp.robots.load(tp.robots.DEFAULT_HUMANOID)
    controller = humanoid_balance(robot, 1e-3)
    solver = controller.solver
    recorder = FlightRecorder(solver, capacity=400)               # a checkpoint every 100 steps
    robot.update(robot.q_ref, robot.zero_velocity())
    centre, q, v, sol = robot.com.copy(), robot.q_ref.copy(), robot.zero_velocity(), None
    given, xs, seconds, steady = [], [], [], 0
    for k in range(260):
        controller.com.set_target(centre + [0, 0.03 * np.sin(np.pi * k * 1e-3), 0])
        if k == 170:
            controller.com.kp = 80.0                              # a setting: hooked, then steady again
        state = (list(q), list(v)) if k == 120 else (q, v)        # a steady step's list state: copied
        if k == 230:                                              # a covered step the general way
            solution = solver.solve(*state)
        else:
            solution = sol = solver.solve(*state, out=sol)
        steady += solver.last_step_steady and recorder.log.armed
        given.append(q.copy())
        xs.append(solution.x.copy())
        seconds.append(1e6 * sum(solver.timings.values()))
        if k == 200:
            assert recorder.step_us[k] == pytest.approx(seconds[k], rel=1e-9)   # read while pending
        v = v + 1e-3 * solution.ddq
        q = pin.integrate(robot.model, q, 1e-3 * v)
    recorder.detach()
    solver.solve(q, v, out=sol)                                   # unrecorded: the last row keeps its time
    assert steady > 200
    assert np.allclose(recorder.step_us[:260], seconds, rtol=1e-9, atol=0)
    for k in range(260):
        assert np.array_equal(recorder.q[k], given[k]) and np.array_equal(recorder.x[k, :xs[k].size], xs[k]), k
    replayed = replay(Recording.load(recorder.save(tmp_path / "steady.tsidrec")))
    assert not replayed.errors and replayed.identical_steps() == 260 and replayed.max_difference() == 0.0


def test_a_steady_step_that_falls_back_to_the_general_path_writes_its_own_row(tmp_path):
    """A steady step whose kept QP step cannot repair its active set (a CoM target thrown 3 m
    away) finishes on the backend's general path inside the steady step: its row is still
    written (the log's own record, not the refill's), with the state, ``x`` and time of that
    step, and the recording replays bit for bit."""
    robot = tp.robots.load(tp.robots.DEFAULT_HUMANOID)
    controller = humanoid_balance(robot, 1e-3)
    solver = controller.solver
    recorder = FlightRecorder(solver, capacity=400)
    robot.update(robot.q_ref, robot.zero_velocity())
    centre, q, v, sol = robot.com.copy(), robot.q_ref.copy(), robot.zero_velocity(), None
    steady, xs, seconds = [], [], []
    for k in range(124):
        jump = 0.0 if k < 120 else 3.0 * (-1) ** k
        controller.com.set_target(centre + [jump, jump, -abs(jump) / 3])
        armed = recorder.log.armed
        sol = solver.solve(q, v, out=sol)
        steady.append(solver.last_step_steady and armed)
        xs.append(sol.x.copy())
        seconds.append(1e6 * sum(solver.timings.values()))
        v = v + 1e-3 * sol.ddq
        q = pin.integrate(robot.model, q, 1e-3 * v)
    recorder.detach()
    # one step after the throw ran steady and left it (the next, configured alike, went the general way)
    fallen = [k for k in range(120, 123) if steady[k] and not steady[k + 1]]
    assert all(steady[101:120]) and len(fallen) == 1 and not any(steady[fallen[0] + 1:])
    for k in range(fallen[0] - 1, 124):
        assert np.array_equal(recorder.x[k, :xs[k].size], xs[k]), k
    assert np.allclose(recorder.step_us[:124], seconds, rtol=1e-9, atol=0)
    replayed = replay(Recording.load(recorder.save(tmp_path / "fallback.tsidrec")))
    assert not replayed.errors and replayed.identical_steps() == 124 and replayed.max_difference() == 0.0


def test_the_refill_and_row_kernel_is_the_refill_then_the_row():
    """:func:`tsid_py.step_log.refill_and_write_row` against its definition, on random
    data: :func:`tsid_py.refill.refill` then :func:`tsid_py.step_log.write_row` with the time
    pending (NaN), the previous pending time filled in."""
    from tsid_py.refill import refill
    from tsid_py.step_log import MICROSECONDS, StepLog, refill_and_write_row, write_row

    rng = np.random.default_rng(7)
    nx, nv, nq = 14, 9, 10
    logs, refilled = [], []
    for fused in (False, True):
        log = StepLog(None, 4, nq, nv, 16, 5, 1000)
        program = type("Program", (), {"floats": rng.standard_normal(8)})() if not fused else logs[0].program
        log.map(program, np.array([1, 2, 3, 6]), np.array([log.extra_column + c for c in (0, 1, 2, 4)]))
        logs.append(log)
        local = np.random.default_rng(11)
        arguments = (local.standard_normal(nx), np.zeros(nx), local.standard_normal((nv, nx)),
                     local.standard_normal(nv), 6, np.zeros(nv), local.standard_normal(12), np.array([3, 1, 7], dtype=np.intp), np.zeros(3),
                     np.array([2, 5], dtype=np.intp), np.array([0, 1], dtype=np.intp), np.zeros(6))
        q, v = local.standard_normal(nq), local.standard_normal(nv)
        for step in range(3):
            if fused:
                refill_and_write_row(arguments, log.row_arrays, q, v, 2, step, 1e-5 * (step + 1))
            else:
                refill(*arguments)
                write_row(log.rows, log.ints, q, v, log.program.floats, arguments[1], 2, step,
                          np.nan if step == 2 else 1e-5 * (step + 2), np.nan)
        refilled.append([array.copy() for array in arguments[1:] if isinstance(array, np.ndarray)])
    assert all(np.array_equal(a, b) for a, b in zip(*refilled))
    assert np.array_equal(logs[0].rows, logs[1].rows, equal_nan=True)
    assert np.isnan(logs[1].rows[2, MICROSECONDS]) and logs[1].rows[1, MICROSECONDS] == 1e6 * (1e-5 * 3)
    logs[1].settle(4e-5)
    assert logs[1].rows[2, MICROSECONDS] == 1e6 * 4e-5
