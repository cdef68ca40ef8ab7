"""Every script of ``examples/`` runs as written, on a short horizon, and prints what its
docstring says good looks like: the printed results are asserted here (the walk's in
``tests/test_walk.py``)."""

import os
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
TESTS = Path(__file__).resolve().parent


def run_example(name: str, capsys, *argv: str) -> str:
    """Run ``examples/NAME`` in this process with the command-line arguments ``argv``; its
    printed output."""
    saved = sys.argv
    sys.argv = [str(EXAMPLES / name), *argv]
    try:
        runpy.run_path(str(EXAMPLES / name), run_name="__main__")
    finally:
        sys.argv = saved
    return capsys.readouterr().out


def numbers(pattern: str, text: str) -> list[float]:
    match = re.search(pattern, text)
    assert match, f"{pattern!r} not in:\n{text}"
    return [float(value) for value in match.groups()]


def test_every_example_is_run_by_a_test():
    tested = "\n".join(path.read_text() for path in TESTS.glob("test_*.py"))
    untested = [path.name for path in EXAMPLES.glob("*.py") if f'"{path.name}"' not in tested]
    assert not untested, f"examples no test runs: {untested}"


def test_first_loop_moves_the_com_three_centimetres_left(capsys):
    out = run_example("first_loop.py", capsys)
    left, forward, up, error = numbers(r"CoM moved (\S+) cm left, (\S+) cm forward, (\S+) cm up; error (\S+) mm",
                                       out)
    assert left == pytest.approx(3.0, abs=0.2) and abs(forward) < 0.2 and abs(up) < 0.2 and error < 2.0
    left_force, right_force, weight = numbers(r"left sole (\S+) N, right sole (\S+) N \(weight (\S+) N\)", out)
    assert left_force + right_force == pytest.approx(weight, rel=0.02)
    page = (EXAMPLES.parent / "docs" / "getting-started.md").read_text()
    shown = re.search(r"It prints.*?```text\n(.*?)```", page, flags=re.S).group(1)
    assert shown == out, "docs/getting-started.md shows another output than examples/first_loop.py prints"


def test_extending_example_enforces_its_constraint_through_its_backend(capsys):
    out = run_example("extending.py", capsys)
    acceleration, = numbers(r"vertical CoM acceleration (\S+) m/s²", out)
    assert abs(acceleration) == pytest.approx(0.1, abs=1e-3)       # the bound is active
    assert "backend calls: 1" in out


def test_the_coupling_example_follows_the_critically_damped_law(capsys):
    out = run_example("joint_coupling_task.py", capsys)
    measured, = numbers(r"(\S+) rad after 0.5 s", out)
    law, = numbers(r"predicts, (\S+) rad", out)
    assert measured == pytest.approx(law, rel=0.01) and abs(measured) > 0


def test_a_stage_of_your_own_filters_the_velocities_the_controller_reads(capsys):
    """The example's estimate stage runs first and cuts the velocity noise of finite-differenced
    encoders by more than five times; the profile override doubles the arms' posture weight;
    Talos stands through it."""
    out = run_example("custom_stage.py", capsys)
    assert "stages: FilteredJointVelocities → ContactStateStage" in out
    measured, filtered = numbers(r"measured (\S+), after the stage (\S+)", out)
    assert filtered < measured / 5
    weight, built_in = numbers(r"arm joint: (\S+) \(built-in (\S+)\)", out)
    assert weight == pytest.approx(2 * built_in)
    assert "relaxed steps: 0 of 1000" in out
    assert numbers(r"CoM drift after 1 s \(m\): (\S+)", out)[0] < 0.005


def test_the_arm_example_tracks_its_circle_within_two_millimetres(capsys):
    out = run_example("arm.py", capsys, "--duration", "1.5")
    rms, largest = numbers(r"RMS (\S+) mm, largest (\S+) mm", out)
    assert rms < 2.0 and largest < 6.0


def test_the_balance_example_stands_through_its_push(capsys):
    out = run_example("balance.py", capsys, "--duration", "2")
    push, bound = numbers(r"push \+y (\S+) N for 0.1 s at 1 s \(80 % of the (\S+) N", out)
    assert push == pytest.approx(0.8 * bound, abs=1)
    most, end = numbers(r"CoM: (\S+) cm sideways at most, (\S+) cm from its start", out)
    assert 1.0 < most < 15.0 and abs(end) < most
    height, standing = numbers(r"base height (\S+) m \(standing: (\S+) m\)", out)
    assert height == pytest.approx(standing, abs=0.03)
    assert "failure policy steps 0" in out


def test_the_sway_example_tracks_the_com_within_millimetres(capsys):
    out = run_example("com_sway.py", capsys, "--duration", "2")
    rms, largest = numbers(r"RMS (\S+) mm, largest (\S+) mm on a 40 mm sway", out)
    assert rms < 4.0 and largest < 10.0


def test_the_quadruped_example_tracks_its_bob_within_millimetres(capsys):
    out = run_example("quadruped.py", capsys, "--duration", "1.5")
    rms, largest = numbers(r"RMS (\S+) mm, largest (\S+) mm on a 20 mm bob", out)
    assert rms < 3.0 and largest < 8.0


def test_the_single_leg_example_lifts_the_foot_and_puts_it_back(capsys):
    """Held up 0.2 s (4.3 s in all): the foot rises 5 cm, comes back, and both soles share
    the weight again."""
    out = run_example("single_leg.py", capsys, "--duration", "4.3")
    lifted, held = numbers(r"right foot lifted (\S+) cm, held up (\S+) s", out)
    assert lifted == pytest.approx(5.0, abs=0.3) and held == pytest.approx(0.2)
    left, right, half = numbers(r"left sole (\S+) N, right sole (\S+) N \(half the weight: (\S+) N\)", out)
    assert left == pytest.approx(half, rel=0.2) and right == pytest.approx(half, rel=0.2)
    assert numbers(r"base height (\S+) m", out)[0] > 0.95


def test_the_reconstruct_example_recovers_forces_and_torques_from_positions(capsys):
    out = run_example("reconstruct.py", capsys, "--duration", "1")
    assert "1000 frames, 0 with relaxed bounds" in out
    total, per_foot = numbers(r"the feet together (\S+) %, each foot (\S+) %", out)
    assert total < 1.0 and per_foot < 10.0
    error, torques = numbers(r"joint torque error: RMS (\S+) N·m \(the torques: (\S+) N·m RMS\)", out)
    assert error < 0.3 * torques


def test_the_trot_example_covers_its_metre_turning_and_stands(capsys):
    out = run_example("trot.py", capsys)
    rate, = numbers(r"\((\S+) Hz\)", out)
    assert 20 < rate < 40
    moved, turned, touchdowns, height = numbers(
        r"moved (\S+) m, turned (\S+)°, (\d+) touch-downs, base height (\S+) m", out)
    assert 1.0 <= moved < 1.2 and 25 < turned < 60 and touchdowns >= 16
    assert height == pytest.approx(0.334, abs=0.01)        # standing again at its posture's height


def test_an_example_draws_its_figure_and_films_its_run(tmp_path):
    """``--plot`` and ``--video`` (in a fresh process: MuJoCo picks its OpenGL on import);
    a bad ``--duration`` is a one-line usage error."""
    import imageio.v3 as iio

    figure, video = tmp_path / "arm.png", tmp_path / "arm.mp4"
    env = {key: value for key, value in os.environ.items() if key not in ("MUJOCO_GL", "PYOPENGL_PLATFORM", "DISPLAY")}
    result = subprocess.run([sys.executable, str(EXAMPLES / "arm.py"), "--duration", "0.5", "--plot", str(figure),
                             "--video", str(video)], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert iio.imread(video).shape == (15, 480, 640, 3)
    result = subprocess.run([sys.executable, str(EXAMPLES / "arm.py"), "--duration", "-1"], env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 2 and "--duration" in result.stderr and "Traceback" not in result.stderr


def test_the_home_page_example_runs_in_ten_lines_and_pushes_off_the_right_foot(capsys):
    """The first Python block of ``docs/index.md``: a dozen lines at most; to accelerate its
    CoM to the left the robot pushes off its right foot, the soles' vertical forces carrying
    its weight."""
    page = (EXAMPLES.parent / "docs" / "index.md").read_text()
    code = re.search(r"```python\n(.*?)```", page, flags=re.S).group(1)
    assert len([line for line in code.splitlines() if line.strip()]) <= 12
    namespace = {}
    exec(compile(code, "docs/index.md", "exec"), namespace)
    robot, sol = namespace["robot"], namespace["sol"]
    printed = capsys.readouterr().out
    assert sol.success and f"{robot.feet[1]} {sol.wrenches[robot.feet[1]][:3].round()}" in printed
    left, right = (sol.wrenches[foot] for foot in robot.feet)
    acceleration = robot.com_jacobian @ sol.ddq + robot.com_drift
    assert acceleration[1] > 0.5 and right[2] > left[2] + 100
    assert left[2] + right[2] == pytest.approx(robot.mass * (9.81 + acceleration[2]), rel=0.01)


def test_priorities_example_meets_the_first_two_levels_exactly(capsys):
    """As one weighted cost the hand and the CoM both miss what they ask; as levels 1 and 2
    both are met (to 1e-9 m/s²) and the posture, level 3, gives way."""
    out = run_example("priorities.py", capsys)
    weighted = [float(x) for x in re.search(r"one weighted cost: hand misses its acceleration by (\S+) m/s², "
                                            r"CoM by (\S+) m/s²", out).groups()]
    levelled = [float(x) for x in re.search(r"three levels: +hand misses its acceleration by (\S+) m/s², "
                                            r"CoM by (\S+) m/s²", out).groups()]
    assert min(weighted) > 0.1 and max(levelled) < 1e-9
    assert "levels that gave way: (3,)" in out
