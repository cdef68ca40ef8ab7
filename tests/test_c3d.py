"""C3D files: the reader against OpenSim's reference exports of a real trial (made with MATLAB
C3D scripts and Mokka, not ezc3d), against ezc3d's own force-plate computation, against
physics (the centre of pressure lies under the foot on the plate), and a C3D trial through
the same inverse dynamics as its .mot/.xml twin."""

from pathlib import Path

import ezc3d
import numpy as np
import pytest

import tsid_py as tp
from tsid_py.offline.c3d import read_c3d
from tsid_py.offline.gait import human_inverse_dynamics
from tsid_py.offline.opensim_files import read_storage, read_trc

from .c3d_writer import Y_UP_TO_Z_UP, gait_plates, write_c3d

DATA = Path(__file__).parent / "data"
WALKING = DATA / "c3d" / "walking5.c3d"
OPENSIM = DATA / "opensim"
MODEL, MOTION, LOADS = OPENSIM / "subject01_simbody.osim", OPENSIM / "subject01_walk1_ik.mot", \
    OPENSIM / "subject01_walk1_grf.xml"


@pytest.fixture(scope="module")
def walking():
    return read_c3d(WALKING)


@pytest.fixture(scope="module")
def human():
    return tp.Robot.from_osim(MODEL)


def _columns(storage, prefix: str, scale: float = 1.0) -> np.ndarray:
    return np.column_stack([storage.column(f"{prefix}_{axis}") for axis in (1, 2, 3)]) * scale


def test_plates_match_opensims_reference_exports(walking):
    """Every 100th sample of both type-2 plates: force, surface centre and moment about it,
    centre of pressure and free moment, as OpenSim's MATLAB-made references (mm → m)."""
    at_origin = read_storage(DATA / "c3d" / "std_walking5_grfs.sto")
    at_cop = read_storage(DATA / "c3d" / "std_cop_walking5_grfs.sto")
    assert walking.analog_rate == 2000 and walking.point_rate == 250 and len(walking.plates) == 2
    rows = np.rint(at_origin.time * walking.analog_rate).astype(int)
    for plate in walking.plates:
        n = plate.number
        assert plate.type == 2
        np.testing.assert_allclose(plate.force[rows], _columns(at_origin, f"f{n}"), atol=1e-7)
        np.testing.assert_allclose(np.broadcast_to(plate.centre, (len(rows), 3)), _columns(at_origin, f"p{n}", 1e-3),
                                   atol=1e-9)
        np.testing.assert_allclose(plate.moment[rows], _columns(at_origin, f"m{n}", 1e-3), atol=1e-9)
        np.testing.assert_allclose(plate.centre_of_pressure[rows], _columns(at_cop, f"p{n}", 1e-3), atol=1e-9)
        np.testing.assert_allclose(plate.free_moment[rows], _columns(at_cop, f"m{n}", 1e-3), atol=1e-9)
        assert plate.force[:, 2].max() > 700                          # a stance: the ground pushes up, N


def test_plates_match_ezc3ds_own_computation(walking):
    platforms = ezc3d.c3d(str(WALKING), extract_forceplat_data=True)["data"]["platform"]
    for plate, theirs in zip(walking.plates, platforms):
        np.testing.assert_allclose(plate.force, theirs["force"].T, atol=1e-9)
        np.testing.assert_allclose(plate.moment * 1e3, theirs["moment"].T, atol=1e-7)             # N·mm
        np.testing.assert_allclose(plate.centre_of_pressure * 1e3, theirs["center_of_pressure"].T, atol=1e-7)
        np.testing.assert_allclose(plate.free_moment * 1e3, theirs["Tz"].T, atol=1e-7)
        np.testing.assert_allclose(plate.corners * 1e3, theirs["corners"].T, atol=1e-9)


def test_markers_match_the_exported_trc(walking):
    """Mokka's export keeps 5 significant digits (mm; 2 of its 7209 values are off by just
    over half a digit from the file's float32, so one digit is allowed); times from frame 0
    at 250 Hz."""
    exported = read_trc(DATA / "c3d" / "std_walking5_markers.trc")
    rows = np.rint(exported.time * walking.point_rate).astype(int)
    np.testing.assert_allclose(walking.markers.time[rows], exported.time, atol=1e-12)
    columns = [walking.markers.names.index(name) for name in exported.names]
    ours = walking.markers.positions[rows][:, columns]
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(exported.positions))
    seen = ~np.isnan(ours)
    millimetres = np.abs(exported.positions[seen]) * 1e3
    digit = 10.0 ** (np.floor(np.log10(np.maximum(millimetres, 1e-3))) - 4) * 1e-3             # m
    assert np.all(np.abs(ours[seen] - exported.positions[seen]) <= digit)
    assert seen.sum() > 5000


def test_centre_of_pressure_lies_under_one_foot(walking):
    """Physics: while a plate carries over 50 N its centre of pressure is, in every frame
    where the markers are seen, inside the heel–metatarsal box (5 cm margin) of one foot and
    not of the other; each plate has its own foot."""
    markers, feet = walking.markers, []
    for plate in walking.plates:
        loaded = np.flatnonzero(plate.force @ plate.normal > 50)
        inside = {}
        for side in "RL":
            box = [markers.names.index(side + name) for name in ("CAL", "MT1", "MT2")]
            hits = []
            for sample in loaded[::20]:
                frame = int(np.rint((plate.time[sample] - markers.time[0]) * walking.point_rate))
                points = markers.positions[frame, box, :2]
                if not np.isnan(points).any():
                    cop = plate.centre_of_pressure[sample, :2]
                    hits.append(np.all((cop > points.min(axis=0) - 0.05) & (cop < points.max(axis=0) + 0.05)))
            inside[side] = np.mean(hits)
            assert len(hits) > 10
        assert sorted(inside.values()) == [0.0, 1.0], inside
        feet.append(max(inside, key=inside.get))
    assert sorted(feet) == ["L", "R"]


@pytest.mark.parametrize("kind, origin, unit", [(1, (0.0, 0.0, 0.0), "Nmm"), (2, (0.002, -0.001, -0.04), "Nmm"),
                                                (2, (0.0, 0.0, 0.04), "Nm"), (3, (0.12, 0.2, -0.045), "Nmm"),
                                                (4, (0.0, 0.0, 0.035), "Nmm")])
def test_plate_types_agree_with_ezc3d(tmp_path, kind, origin, unit):
    """Plates of types 1–4 built from one known wrench: the reader gives the wrench back and
    agrees with ezc3d's own computation (force, centre of pressure, free moment) — except
    for moments labelled N·m in a millimetre file, which ezc3d takes as N·mm."""
    rng = np.random.default_rng(kind)
    count = 200
    force = np.column_stack([rng.normal(0, 50, count), rng.normal(0, 50, count), rng.uniform(200, 900, count)])
    cop = np.column_stack([rng.uniform(-0.1, 0.1, (count, 2)), np.zeros(count)])
    twist = rng.normal(0, 5, count)
    moment = np.cross(cop, force) + np.column_stack([np.zeros((count, 2)), twist])
    calibration = np.eye(6) + 0.05 * rng.normal(size=(6, 6)) if kind == 4 else None
    path, centre = tmp_path / f"type{kind}.c3d", np.array([0.6, 0.3, 0.0])
    write_c3d(path, [(force, moment, centre)], kind=kind, origin=np.array(origin), calibration=calibration,
              moment_unit=unit)
    plate = read_c3d(path).plates[0]
    assert plate.type == kind
    np.testing.assert_allclose(plate.force, force, rtol=1e-5, atol=1e-3)          # float32 in the file
    np.testing.assert_allclose(plate.moment, moment, rtol=1e-5, atol=1e-3)
    np.testing.assert_allclose(plate.centre_of_pressure, centre + cop, atol=1e-5)
    np.testing.assert_allclose(plate.free_moment[:, 2], twist, atol=1e-3)
    if unit == "Nmm":
        theirs = ezc3d.c3d(str(path), extract_forceplat_data=True)["data"]["platform"][0]
        np.testing.assert_allclose(plate.force, theirs["force"].T, rtol=1e-9, atol=1e-6)
        np.testing.assert_allclose(plate.centre_of_pressure * 1e3, theirs["center_of_pressure"].T, rtol=1e-9,
                                   atol=1e-6)
        np.testing.assert_allclose(plate.free_moment * 1e3, theirs["Tz"].T, rtol=1e-9, atol=1e-6)


def test_a_c3d_trial_runs_through_the_same_inverse_dynamics(tmp_path, human):
    """The Gait2354 trial's plates and markers written as a C3D file (z-up lab, type 2, N·mm):
    the lab is turned into OpenSim's ground, the plates found under the right feet, and the
    moments are those of the .mot/.xml files."""
    markers = read_trc(OPENSIM / "subject01_walk1.trc")
    path = tmp_path / "walk.c3d"
    write_c3d(path, gait_plates(), markers=(markers.names, markers.positions[:150] @ Y_UP_TO_Z_UP.T))
    trial = read_c3d(path)
    np.testing.assert_allclose(trial.rotated(Y_UP_TO_Z_UP.T).markers.positions, markers.positions[:150], atol=1e-6)
    ours = human_inverse_dynamics(human, MOTION, external_loads=path)
    reference = human_inverse_dynamics(human, MOTION, external_loads=LOADS)
    assert ours.plate_bodies == ["calcn_r", "calcn_l"]
    np.testing.assert_allclose(ours.lab_to_ground, Y_UP_TO_Z_UP.T, atol=1e-12)
    np.testing.assert_allclose(ours.coordinate_forces, reference.coordinate_forces,
                               atol=1e-6 * np.abs(reference.coordinate_forces).max())      # float32 in the file
    swapped = human_inverse_dynamics(human, MOTION, external_loads=path, plate_bodies=["calcn_l", "calcn_r"])
    np.testing.assert_allclose(swapped.residuals, ours.residuals, atol=1e-9)      # the total is the same …
    knee = ours.columns().index("knee_angle_r_moment")                        # … but not who carries it
    assert np.abs(swapped.coordinate_forces[:, knee] - ours.coordinate_forces[:, knee]).max() > 20.0
    one_foot = human_inverse_dynamics(human, MOTION, external_loads=path, plate_bodies=["calcn_r", "calcn_r"])
    np.testing.assert_allclose(one_foot.residuals, ours.residuals, atol=1e-9)     # two plates on one foot add up


def test_bad_c3d_files_are_named(tmp_path, human):
    corrupt = tmp_path / "corrupt.c3d"
    corrupt.write_bytes(WALKING.read_bytes()[:3000])
    with pytest.raises(ValueError, match="corrupt.c3d: not a readable C3D file"):
        read_c3d(corrupt)
    truncated = tmp_path / "truncated.c3d"
    truncated.write_bytes(WALKING.read_bytes()[:600_000])
    with pytest.raises(ValueError, match="truncated.c3d: truncated: its header announces 1103 frames but it holds 579"):
        read_c3d(truncated)
    with pytest.raises(ValueError, match="C3D file .*missing.c3d' does not exist"):
        read_c3d(tmp_path / "missing.c3d")
    plates = gait_plates()
    unsupported = tmp_path / "type5.c3d"
    write_c3d(unsupported, plates, kind=2)
    content = ezc3d.c3d(str(unsupported))
    content["parameters"]["FORCE_PLATFORM"]["TYPE"]["value"] = np.array([2, 5])
    content.write(str(unsupported))
    with pytest.raises(ValueError, match=r"type5.c3d, force plate 2: type 5 is not supported \(supported: \[1, 2, 3, "
                                         r"4\]\)"):
        read_c3d(unsupported)
    units = tmp_path / "units.c3d"
    write_c3d(units, plates, moment_unit="lbf")
    with pytest.raises(ValueError, match=r"units.c3d, force plate 1: analog channel 4 \('ch1_3'\), a moment channel, "
                                         r"has unit 'lbf'"):
        read_c3d(units)
    markers_only = tmp_path / "markers.c3d"
    write_c3d(markers_only, plates)
    content = ezc3d.c3d(str(markers_only))
    content["parameters"]["FORCE_PLATFORM"]["USED"]["value"] = np.array([0])
    content.write(str(markers_only))
    assert read_c3d(markers_only).plates == []
    with pytest.raises(ValueError, match="markers.c3d: the file has no force plates"):
        human_inverse_dynamics(human, MOTION, external_loads=markers_only)


def test_plates_that_do_not_line_up_are_named(tmp_path, human):
    """Plates 1 m away from where the feet are (a wrong lab origin) are refused by name; so
    are plate_bodies of the wrong length or without a C3D file."""
    plates = gait_plates()
    path = tmp_path / "shifted.c3d"
    write_c3d(path, plates)
    trial = read_c3d(path)
    shifted = trial.rotated(np.eye(3))
    for plate in shifted.plates:
        plate.centre = plate.centre + np.array([1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"shifted.c3d, force plate 1: its centre of pressure is 1\.\d\d m on average "
                                         r"from the nearest foot"):
        human_inverse_dynamics(human, MOTION, external_loads=shifted)
    with pytest.raises(ValueError, match="shifted.c3d: 2 force plates but 1 bodies given"):
        human_inverse_dynamics(human, MOTION, external_loads=path, plate_bodies=["calcn_r"])
    with pytest.raises(ValueError, match="plate_bodies applies to the force plates of a C3D file"):
        human_inverse_dynamics(human, MOTION, external_loads=LOADS, plate_bodies=["calcn_r", "calcn_l"])
