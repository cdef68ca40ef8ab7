"""``tsid-py inverse-dynamics``: files in, files out, and bad input named."""

import numpy as np
import pytest

import tsid_py as tp
from tsid_py.cli import main as cli_main
from tsid_py.offline.files import load_positions

from .conftest import balance_rollout


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    robot = tp.robots.load("talos")
    positions = balance_rollout(robot, 24)[0]
    folder = tmp_path_factory.mktemp("recordings")
    return robot, positions, folder


def _run(capsys, *args):
    code = cli_main(["inverse-dynamics", *map(str, args), "--quiet"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_npz_and_csv_give_the_library_result(recorded, capsys):
    robot, positions, folder = recorded
    flipped = positions.copy()
    flipped[10:, 3:7] *= -1                     # the same orientations, another sign
    np.savez(folder / "motion.npz", positions=flipped)
    header = ",".join(f"q{i}" for i in range(robot.nq))
    np.savetxt(folder / "motion.csv", flipped, delimiter=",", header=header, comments="")
    expected = tp.multiple_contact_inverse_dynamics_over_time(robot, positions, 2e-3, robot.feet, friction=0.8)
    for name in ("motion.npz", "motion.csv"):
        out = folder / f"{name}.result.npz"
        code, stdout, _ = _run(capsys, folder / name, "--robot", "talos", "--dt", 2e-3, "--friction", 0.8,
                               "--contacts", *robot.feet, "--out", out)
        assert code == 0 and '"quaternion_sign_flips_fixed": [\n    10\n  ]' in stdout
        saved = np.load(out)
        np.testing.assert_allclose(saved["tau"], expected.tau, rtol=0, atol=1e-9 * np.abs(expected.tau).max())
        np.testing.assert_allclose(saved["wrenches"], expected.wrenches, rtol=0, atol=1e-9 * robot.weight)
        assert list(saved["contacts"]) == robot.feet and saved["dt"] == 2e-3
        np.testing.assert_array_equal(saved["frame_indices"], np.arange(1, len(positions) - 1))


@pytest.mark.parametrize("problem, arguments, message", [
    ("nan", {}, "frames [7] hold NaN"),
    ("narrow", {}, "must have 39 columns per frame for robot 'talos'"),
    ("ok", {"--dt": -0.01}, "argument --dt: must be a positive number of seconds, got '-0.01'"),
    ("ok", {"--contacts": "left_foot"}, "--contacts: frame 'left_foot' is not in robot 'talos'"),
    ("ok", {"--robot": "robbie"}, "robot must be one of"),
    ("text", {}, "not a table of numbers"),
    ("ok", {"--out": "result.txt"}, "argument --out: must be a .sto or .mot or .npz file, got 'result.txt'"),
    ("ok", {"--out": "result.sto"}, "--out must be an .npz file"),
])
def test_bad_input_is_named(recorded, capsys, problem, arguments, message):
    _, positions, folder = recorded
    files = {"ok": positions, "nan": positions.copy(), "narrow": positions[:, :-1]}
    files["nan"][7, 20] = np.nan
    if problem == "text":
        path = folder / "text.csv"
        path.write_text("a,b\n1,x\n")
    else:
        path = folder / f"{problem}.npz"
        np.savez(path, positions=files[problem])
    options = {"--robot": "talos", "--dt": 2e-3, "--out": folder / "out.npz", **arguments}
    flat = [item for pair in options.items() for item in pair]
    code, _, stderr = _run(capsys, path, *flat)
    assert code == 2
    assert message in stderr


def test_npz_needs_a_positions_array(tmp_path):
    np.savez(tmp_path / "two.npz", a=np.zeros((3, 39)), b=np.zeros(3))
    with pytest.raises(ValueError, match="expected an array named 'positions'"):
        load_positions(tmp_path / "two.npz")
    (tmp_path / "motion.txt").write_text("0,0,0\n")
    with pytest.raises(ValueError, match="must be .npz or .csv"):
        load_positions(tmp_path / "motion.txt")
    with pytest.raises(ValueError, match="does not exist"):
        load_positions(tmp_path / "missing.npz")
