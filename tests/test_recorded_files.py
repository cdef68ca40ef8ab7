"""Recorded files off the happy path (issue 30): encodings, line ends, headers, interrupted
writes, output paths checked before the solve, corrupt archives, batches with a bad entry,
custom robots named like built-in ones."""

import shutil

import numpy as np
import pytest

import tsid_py as tp
from tsid_py.cli import main as cli_main
from tsid_py.offline import over_time
from tsid_py.offline.batch import RobotSource, inverse_dynamics_over_time_batch
from tsid_py.offline.files import load_positions, save_result
from tsid_py.offline.opensim_files import read_storage

from .conftest import balance_rollout

TABLE = np.arange(12, dtype=float).reshape(4, 3) / 7.0


@pytest.fixture(scope="module")
def recorded():
    robot = tp.robots.load("talos")
    return robot, balance_rollout(robot, 12)[0]


def _csv(rows, header="q0,q1,q2", newline="\n"):
    lines = ([header] if header is not None else []) + [",".join(repr(float(x)) for x in row) for row in rows]
    return newline.join(lines) + newline


@pytest.mark.parametrize("encoding, newline, header", [
    ("utf-8-sig", "\n", "q0,q1,q2"),            # byte-order mark before a header
    ("utf-8-sig", "\n", None),                  # byte-order mark glued to the first number
    ("latin-1", "\r\n", "x (m),y (m),angle (°)"),   # Latin-1 header, Windows line ends
    ("utf-8", "\r", None),                      # old Mac line ends, no header
    ("utf-8", "\r\n", "q0,q1,q2"),
])
def test_csv_keeps_every_frame(tmp_path, encoding, newline, header):
    path = tmp_path / "motion.csv"
    path.write_bytes(_csv(TABLE, header, newline).encode(encoding))
    np.testing.assert_array_equal(load_positions(path), TABLE)          # first frame kept, in order


def test_csv_errors_name_line_and_column(tmp_path):
    path = tmp_path / "motion.csv"
    path.write_text("a,b,c\n1,2,3\n4,oops,6\n")
    with pytest.raises(ValueError, match=r"motion.csv, line 3, column 2: .*got 'oops'"):
        load_positions(path)
    path.write_text("1,2,3\n4,5\n")
    with pytest.raises(ValueError, match=r"motion.csv, line 2: expected 3 values, got 2"):
        load_positions(path)


def test_corrupt_npz_is_named(tmp_path):
    path = tmp_path / "broken.npz"
    path.write_bytes(b"PK\x03\x04 this is not a zip archive")
    with pytest.raises(ValueError, match=r"broken.npz: not a readable .npz archive"):
        load_positions(path)


def test_frame_indices_follow_the_input(tmp_path, recorded):
    _, positions = recorded
    text = "\ufeff" + "\n".join(",".join(repr(float(x)) for x in row) for row in positions) + "\n"
    (tmp_path / "motion.csv").write_text(text, encoding="utf-8")
    assert cli_main(["inverse-dynamics", str(tmp_path / "motion.csv"), "--robot", "talos", "--dt", "2e-3",
                     "--out", str(tmp_path / "RESULT.NPZ"), "--quiet"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["RESULT.NPZ", "motion.csv"]     # the name given
    with np.load(tmp_path / "RESULT.NPZ") as saved:
        np.testing.assert_array_equal(saved["frame_indices"], np.arange(1, len(positions) - 1))
        np.testing.assert_allclose(saved["positions"][0], positions[1], atol=1e-12)


def test_interrupted_write_keeps_the_previous_result(tmp_path, recorded, monkeypatch):
    robot, positions = recorded
    assert robot.feet
    result = tp.multiple_contact_inverse_dynamics_over_time(robot, positions, 2e-3, robot.feet)
    path = tmp_path / "result.npz"
    save_result(path, result, contacts=robot.feet, dt=2e-3, robot="talos")
    before = path.read_bytes()

    def interrupted(handle, **arrays):
        handle.write(b"PK\x03\x04 half an archive")
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez", interrupted)
    with pytest.raises(KeyboardInterrupt):
        save_result(path, result, contacts=robot.feet, dt=2e-3, robot="talos")
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["result.npz"]        # no temporary file left


@pytest.mark.parametrize("out, message", [
    ("missing/result.npz", "folder '{folder}/missing' does not exist"),
    (".", "is a folder"),
])
def test_output_path_is_checked_before_the_solve(tmp_path, recorded, capsys, monkeypatch, out, message):
    _, positions = recorded
    np.savez(tmp_path / "motion.npz", positions=positions)

    def never(*args, **kwargs):
        raise AssertionError("the solve ran before the output path was checked")

    monkeypatch.setattr(over_time, "solve_stacked", never)
    out = tmp_path / out if out != "." else tmp_path / "dir.npz"
    if out.name == "dir.npz":
        out.mkdir()
    code = cli_main(["inverse-dynamics", str(tmp_path / "motion.npz"), "--robot", "talos", "--dt", "2e-3",
                     "--out", str(out), "--quiet"])
    assert code == 2
    assert message.format(folder=tmp_path) in capsys.readouterr().err


def test_opensim_output_checked_before_the_solve(tmp_path, capsys, monkeypatch):
    from pathlib import Path

    data = Path(__file__).parent / "data" / "opensim"
    monkeypatch.setattr(over_time, "frame_data", lambda *a, **k: pytest.fail("solved before checking --out-grf"))
    code = cli_main(["inverse-dynamics", str(data / "subject01_walk1_ik.mot"), "--robot",
                     str(data / "subject01_simbody.osim"), "--out", str(tmp_path / "id.sto"),
                     "--out-grf", str(tmp_path / "nowhere" / "grf.mot")])
    assert code == 2
    assert "argument --out-grf: folder" in capsys.readouterr().err


def test_storage_reads_bom_latin1_and_crlf(tmp_path):
    text = ("Coordinates\r\nversion=1\r\nnRows=2\r\nnColumns=3\r\ninDegrees=yes\r\nCommentaire: données\r\n"
            "endheader\r\ntime\tknee\thip\r\n0.0\t10\t20\r\n0.01\t11\t21\r\n")
    path = tmp_path / "motion.mot"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("latin-1"))
    storage = read_storage(path)
    assert storage.names == ["knee", "hip"] and storage.in_degrees
    np.testing.assert_array_equal(storage.time, [0.0, 0.01])
    np.testing.assert_array_equal(storage.values, [[10, 20], [11, 21]])


def test_a_batch_entry_without_contacts_fails_alone(recorded):
    robot, positions = recorded
    batch = inverse_dynamics_over_time_batch(
        robot, [(positions, 2e-3, robot.feet), {"positions": positions, "dt": 2e-3},
                (positions, 2e-3, None), (positions, 2e-3, robot.feet)], workers=0, progress=False)
    assert batch.succeeded == [0, 3]
    assert set(batch.errors) == {1, 2}
    assert all("contacts must name at least one contact frame" in message for message in batch.errors.values())
    np.testing.assert_allclose(batch.results[3].tau, batch.results[0].tau)


def test_custom_urdf_named_like_a_builtin_is_built_from_its_urdf(tmp_path, recorded):
    robot, _ = recorded
    custom = tmp_path / "my_talos.urdf"
    shutil.copy(robot.urdf_path, custom)
    mine = tp.Robot.from_urdf(custom, name="talos", feet=["left_sole_link", "right_sole_link"], sole_size=(0.3, 0.2))
    source = RobotSource.of(mine)
    assert source.name is None and source.urdf == str(custom) and source.sole_size == (0.3, 0.2)
    assert RobotSource.of(robot) == RobotSource(name="talos")


def _opensim_data():
    from pathlib import Path

    return Path(__file__).parent / "data" / "opensim"


def test_cli_reduces_residuals_and_writes_the_adjusted_model(tmp_path, capsys):
    """``--reduce-residuals``: the summary reports the changes and the residuals before and
    after, the .npz keeps both, ``--out-model`` writes a model whose mass is the adjusted one."""
    import json

    data = _opensim_data()
    code = cli_main(["inverse-dynamics", str(data / "subject01_walk1_ik.mot"), "--robot",
                     str(data / "subject01_simbody.osim"), "--external-loads", str(data / "subject01_walk1_grf.xml"),
                     "--reduce-residuals", "--max-mass-change", "0.01", "--out", str(tmp_path / "id.npz"),
                     "--out-model", str(tmp_path / "adjusted.osim")])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    report = summary["residual_reduction"]
    assert abs(report["mass_change_percent"]) <= 1.0 + 1e-9 and "total mass" in report["at_bounds"]
    assert report["residuals_after"]["moment_rms_Nm"] < report["residuals_before"]["moment_rms_Nm"]
    saved = np.load(tmp_path / "id.npz")
    assert saved["residuals_before"].shape == saved["residuals"].shape == (73, 6)
    adjusted = tp.Robot.from_osim(tmp_path / "adjusted.osim")
    assert adjusted.mass == pytest.approx(report["mass_after_kg"], abs=1e-4)


@pytest.mark.parametrize("extra, message", [
    (["--reduce-residuals"], "--reduce-residuals needs the force plates (--external-loads)"),
    (["--out-model", "m.osim"], "--out-model applies with --reduce-residuals only"),
    (["--external-loads", "{data}/subject01_walk1_grf.xml", "--reduce-residuals", "--max-mass-change", "2"],
     "argument --max-mass-change: must be a fraction of the mass in [0, 1), got '2'"),
    (["--external-loads", "{data}/subject01_walk1_grf.xml", "--reduce-residuals", "--residual-bodies", "trunk"],
     "--residual-bodies: ['trunk'] are not bodies of subject01_simbody.osim"),
    (["--external-loads", "{data}/subject01_walk1_grf.xml", "--plate-bodies", "calcn_r", "calcn_l"],
     "--plate-bodies applies to the force plates of a .c3d file"),
    (["--external-loads", "{data}/nowhere.c3d"], "argument --external-loads: file '{data}/nowhere.c3d' does not exist"),
])
def test_cli_bad_plate_and_reduction_options_are_named(tmp_path, capsys, extra, message):
    data = _opensim_data()
    code = cli_main(["inverse-dynamics", str(data / "subject01_walk1_ik.mot"), "--robot",
                     str(data / "subject01_simbody.osim"), "--out", str(tmp_path / "id.sto"),
                     *[argument.format(data=data) for argument in extra]])
    assert code == 2
    err = capsys.readouterr().err
    assert message.format(data=data) in err and "Traceback" not in err


def test_cli_reads_force_plates_from_a_c3d_file(tmp_path, capsys):
    """The Gait2354 plates written as a C3D file: the command puts them on the feet and gives
    the moments of the .xml files; a real C3D trial whose plates nobody stands on during this
    motion is refused by name."""
    import json

    from .c3d_writer import gait_plates, write_c3d

    data = _opensim_data()
    write_c3d(tmp_path / "walk.c3d", gait_plates())
    common = ["inverse-dynamics", str(data / "subject01_walk1_ik.mot"), "--robot", str(data / "subject01_simbody.osim")]
    assert cli_main([*common, "--external-loads", str(tmp_path / "walk.c3d"), "--out", str(tmp_path / "c3d.sto")]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["plate_bodies"] == ["calcn_r", "calcn_l"]
    assert cli_main([*common, "--external-loads", str(data / "subject01_walk1_grf.xml"),
                     "--out", str(tmp_path / "xml.sto")]) == 0
    capsys.readouterr()
    ours, theirs = read_storage(tmp_path / "c3d.sto"), read_storage(tmp_path / "xml.sto")
    np.testing.assert_allclose(ours.values, theirs.values, atol=1e-6 * np.abs(theirs.values).max())
    walking = data.parent / "c3d" / "walking5.c3d"
    assert cli_main([*common, "--external-loads", str(walking), "--out", str(tmp_path / "w.sto")]) == 2
    assert "walking5.c3d: no force plate is loaded (normal force > 20 N) during the motion (0.4–1.6 s)" \
        in capsys.readouterr().err


def test_an_interrupted_figure_keeps_the_previous_one(tmp_path, monkeypatch):
    """``--plot`` figures are written through a temporary file too (a run's plot overwritten
    half-way used to be lost with the previous one)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    from tsid_py.scenarios.plots import save_figure

    path = tmp_path / "run.png"
    save_figure(plt.figure(), path)
    before = path.read_bytes()
    assert before.startswith(b"\x89PNG")

    def interrupted(self, handle, **options):
        handle.write(b"\x89PNG half a figure")
        raise KeyboardInterrupt

    monkeypatch.setattr(Figure, "savefig", interrupted)
    with pytest.raises(KeyboardInterrupt):
        save_figure(plt.figure(), path)
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["run.png"]
