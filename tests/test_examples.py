"""The examples the documentation includes run as written and do what their pages say."""

import re
import runpy
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_example(name: str, capsys) -> str:
    runpy.run_path(str(EXAMPLES / name), run_name="__main__")
    return capsys.readouterr().out


def test_first_loop_moves_the_com_three_centimetres_left(capsys):
    out = run_example("first_loop.py", capsys)
    moved = [float(value) for value in re.search(r"CoM moved \(m\): \[([^\]]*)\]", out).group(1).split()]
    assert moved[1] == pytest.approx(0.03, abs=2e-3)
    assert abs(moved[0]) < 2e-3 and abs(moved[2]) < 2e-3
    assert float(re.search(r"CoM error \(m\): (\S+)", out).group(1)) < 2e-3


def test_extending_example_enforces_its_constraint_through_its_backend(capsys):
    out = run_example("extending.py", capsys)
    acceleration = float(re.search(r"vertical CoM acceleration (\S+) m/s²", out).group(1))
    assert abs(acceleration) == pytest.approx(0.1, abs=1e-6)       # the bound is active
    assert "backend calls: 1" in out


def test_a_stage_of_your_own_filters_the_velocities_the_controller_reads(capsys):
    """The example's estimate stage runs first and cuts the velocity noise of finite-differenced
    encoders by more than five times; the profile override doubles the arms' posture weight;
    Talos stands through it."""
    out = run_example("custom_stage.py", capsys)
    assert "stages: FilteredJointVelocities → ContactStateStage" in out
    measured, filtered = (float(x) for x in re.search(r"measured (\S+), after the stage (\S+)", out).groups())
    assert filtered < measured / 5
    weight, built_in = (float(x) for x in re.search(r"arm joint: (\S+) \(built-in (\S+)\)", out).groups())
    assert weight == pytest.approx(2 * built_in)
    assert "relaxed steps: 0 of 1000" in out
    assert float(re.search(r"CoM drift after 1 s \(m\): (\S+)", out).group(1)) < 0.005


def test_the_trot_example_covers_its_metre_turning_and_stands(capsys):
    out = run_example("trot.py", capsys)
    rate = float(re.search(r"\((\S+) Hz\)", out).group(1))
    assert 20 < rate < 40
    moved, turned, touchdowns, height = re.search(
        r"moved (\S+) m, turned (\S+)°, (\d+) touch-downs, base height (\S+) m", out).groups()
    assert 1.0 <= float(moved) < 1.2 and 25 < float(turned) < 60 and int(touchdowns) >= 16
    assert float(height) == pytest.approx(0.334, abs=0.01)        # standing again at its posture's height


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
