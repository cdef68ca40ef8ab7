"""OpenSim models and the Gait2354 trial: the .osim reader against OpenSim's own numbers,
the inverse dynamics against OpenSim's published result and the force plates."""

from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.loaders.osim_functions import CubicSpline
from tsid_py.offline.frames import KnownWrench
from tsid_py.offline.gait import human_inverse_dynamics
from tsid_py.offline.opensim_files import (
    read_external_loads,
    read_storage,
    read_trc,
    write_storage,
)

DATA = Path(__file__).parent / "data" / "opensim"
MODEL, MOTION = DATA / "subject01_simbody.osim", DATA / "subject01_walk1_ik.mot"
LOADS, OPENSIM_ID = DATA / "subject01_walk1_grf.xml", DATA / "inverse_dynamics.sto"


@pytest.fixture(scope="module")
def human():
    return tp.Robot.from_osim(MODEL)


@pytest.fixture(scope="module")
def reference():
    return np.load(DATA / "opensim_states.npz")


def test_reader_matches_opensim_kinematics_and_dynamics(human, reference):
    """Body placements and generalized forces at 20 random states, against OpenSim 4.6's own
    (benchmarks/opensim_reference.py): the coupled knee is reproduced, not approximated."""
    coordinates = human.opensim.coordinates
    assert coordinates.names == list(reference["names"])
    model, data = human.model, human.model.createData()
    for c, dc, ddc, tau, rotations, origins in zip(*(reference[k] for k in ("c", "dc", "ddc", "tau", "rotations",
                                                                             "origins"))):
        q = coordinates.configurations(c)
        pin.framesForwardKinematics(model, data, q)
        for body, rotation, origin in zip(reference["bodies"], rotations, origins):
            placement = data.oMf[model.getFrameId(str(body))]
            np.testing.assert_allclose(placement.translation, origin, atol=1e-12)
            np.testing.assert_allclose(placement.rotation, rotation, atol=1e-12)
        phi = coordinates.velocity_maps(c)
        h = 1e-6
        rate = (coordinates.velocity_maps(c + h * dc) - coordinates.velocity_maps(c - h * dc)) / (2 * h)
        generalized = phi.T @ pin.rnea(model, data, q, phi @ dc, phi @ ddc + rate @ dc)
        np.testing.assert_allclose(generalized, tau, atol=1e-6 * np.abs(tau).max())


def test_coordinates_round_trip_and_knee_is_coupled(human, reference):
    coordinates = human.opensim.coordinates
    np.testing.assert_allclose(coordinates.coordinates_of(coordinates.configurations(reference["c"])),
                               reference["c"], atol=1e-12)
    assert coordinates.dependent_joints == ["knee_r_translation1", "knee_r_translation2",
                                            "knee_l_translation1", "knee_l_translation2"]
    assert human.nq == 7 + 17 + 4 and human.nv == 6 + 17 + 4
    assert human.mass == pytest.approx(72.6, abs=0.01)


def test_simm_spline_is_the_fmm_spline():
    """SimmSpline's end conditions: the third derivative at each end is that of the cubic
    through the four end knots; so it reproduces any cubic exactly, and is linear outside."""
    x = np.array([-2.0, -1.2, -0.3, 0.4, 1.1, 2.0])
    cubic = np.poly1d([0.3, -0.5, 0.2, 1.0])
    spline = CubicSpline.simm(x, cubic(x))
    inside = np.linspace(-2, 2, 41)
    value, slope, curvature = spline.evaluate(inside)
    np.testing.assert_allclose(value, cubic(inside), atol=1e-12)
    np.testing.assert_allclose(slope, cubic.deriv()(inside), atol=1e-11)
    np.testing.assert_allclose(curvature, cubic.deriv(2)(inside), atol=1e-10)
    outside, outside_slope, _ = spline.evaluate(np.array([2.5]))
    assert outside_slope[0] == pytest.approx(cubic.deriv()(2.0))
    assert outside[0] == pytest.approx(cubic(2.0) + 0.5 * cubic.deriv()(2.0))
    natural = CubicSpline.natural(x, cubic(x))
    assert natural.evaluate(np.array([x[0]]))[2][0] == pytest.approx(0.0, abs=1e-12)


def test_moments_and_residuals_match_opensim_with_the_force_plates(human):
    """OpenSim's inverse dynamics of the trial (6 Hz filter, plates on calcn): every
    generalized force within 1 % of its peak (RMS over the 73 frames), residuals included."""
    result = human_inverse_dynamics(human, MOTION, external_loads=LOADS)
    opensim = read_storage(OPENSIM_ID)
    assert len(result.time) == len(opensim.time) == 73
    for column, ours in zip(result.columns(), result.coordinate_forces.T):
        theirs = opensim.column(column)
        rms = np.sqrt(np.mean((ours - theirs) ** 2))
        assert rms < 0.01 * np.abs(theirs).max(), column
    assert np.abs(result.residuals[:, :3]).max() > 100        # OpenSim's ~150 N pelvis residual, reported


def test_known_wrenches_are_rnea_with_external_forces(human):
    """No unknown contact: τ is pinocchio's RNEA with the plates as external forces, and the
    reported residual is the root's part of it (world-aligned)."""
    storage = read_storage(MOTION)
    coordinates = human.opensim.coordinates
    c = storage.coordinates(coordinates.names, coordinates.rotational)[:6]
    positions = coordinates.configurations(c)
    rng = np.random.default_rng(1)
    v, a = rng.normal(size=(6, human.nv)), rng.normal(size=(6, human.nv))
    wrench = rng.normal(size=(6, 6)) * 100
    point = positions[:, :3] + rng.normal(size=(6, 3)) * 0.1
    result = tp.multiple_contact_inverse_dynamics_over_time(
        human, positions, 0.01, [], known_wrenches=[KnownWrench("calcn_r", wrench, point)], velocities=v,
        accelerations=a)
    model, data = human.model, human.model.createData()
    joint = model.frames[model.getFrameId("calcn_r")].parentJoint
    for t in range(6):
        pin.forwardKinematics(model, data, positions[t])
        forces = [pin.Force.Zero() for _ in range(model.njoints)]
        forces[joint] = data.oMi[joint].actInv(pin.Force(wrench[t, :3], wrench[t, 3:] + np.cross(point[t],
                                                                                                    wrench[t, :3])))
        expected = pin.rnea(model, data, positions[t], v[t], a[t], pin.StdVec_Force(forces))
        np.testing.assert_allclose(result.tau[t, 6:], expected[6:], atol=1e-8)
        R = pin.Quaternion(positions[t, 3:7]).matrix()
        np.testing.assert_allclose(result.residuals[t], np.r_[R @ expected[:3], R @ expected[3:6]], atol=1e-8)


def test_ground_reactions_without_plates(human):
    """Positions alone: contact phases within 2 frames of the plates' own (20 N), vertical
    ground force RMSE ≤ 8 % of body weight, antero-posterior ≤ 3 %, per foot ≤ 12 %."""
    result = human_inverse_dynamics(human, MOTION)
    plates = read_external_loads(LOADS).wrenches(result.time)
    measured = np.array([wrench for _, wrench, _ in plates])               # right (calcn_r), left
    assert result.contacts == ["calcn_r_sole", "calcn_l_sole"]
    for foot in range(2):
        truth = measured[foot, :, 1] > 20
        np.testing.assert_array_equal(np.flatnonzero(np.diff(truth.astype(int))).size,
                                      np.flatnonzero(np.diff(result.contact_schedule[:, foot].astype(int))).size)
        shift = np.abs(np.flatnonzero(np.diff(truth.astype(int)))
                       - np.flatnonzero(np.diff(result.contact_schedule[:, foot].astype(int))))
        assert shift.max() <= 2
    weight = human.weight

    def rmse(a, b):
        return np.sqrt(np.mean((a - b) ** 2)) / weight

    total, estimated = measured[:, :, :3].sum(axis=0), result.wrenches[:, :, :3].sum(axis=1)
    assert rmse(total[:, 1], estimated[:, 1]) <= 0.08
    assert rmse(total[:, 0], estimated[:, 0]) <= 0.03
    for foot in range(2):
        assert rmse(measured[foot, :, 1], result.wrenches[:, foot, 1]) <= 0.12


def test_storage_round_trip_and_trc(tmp_path):
    storage = read_storage(MOTION)
    assert storage.in_degrees and storage.names[0] == "pelvis_tilt" and len(storage.time) == 73
    write_storage(tmp_path / "copy.sto", storage.names, storage.time, storage.values, in_degrees=True)
    again = read_storage(tmp_path / "copy.sto")
    np.testing.assert_allclose(again.values, storage.values, atol=1e-8)
    markers = read_trc(DATA / "subject01_walk1.trc")
    assert markers.positions.shape == (151, 41, 3) and markers.rate == 60.0
    assert 1.0 < np.nanmax(markers.positions[:, markers.names.index("R.ASIS"), 1]) < 1.2     # m, not mm


@pytest.mark.parametrize("edit, message", [
    (lambda lines: [line.replace("\tknee_angle_r\t", "\tknee_r\t") for line in lines],
     "coordinates ['knee_angle_r'] are not columns of the motion"),
    (lambda lines: lines[:20] + [lines[20].rsplit("\t", 1)[0]] + lines[21:], "line 21: expected 24 values"),
    (lambda lines: lines[:30] + [lines[30].replace("\t", "\tx", 1)] + lines[31:],
     "line 31, column 'pelvis_tilt': expected a number"),
    (lambda lines: [line for line in lines if line.strip() != "endheader"], "no 'endheader' line"),
])
def test_bad_motion_files_are_named(human, tmp_path, edit, message):
    lines = MOTION.read_text().splitlines()
    bad = tmp_path / "bad.mot"
    bad.write_text("\n".join(edit(lines)) + "\n")
    with pytest.raises((ValueError, KeyError), match=message.replace("[", r"\[").replace("]", r"\]")) as error:
        human_inverse_dynamics(human, bad, external_loads=LOADS)
    assert "bad.mot" in str(error.value)


def test_motion_outside_the_plates_is_named(human, tmp_path):
    lines = MOTION.read_text().splitlines()
    shifted = [line if i < 11 else "\t".join([f"{float(line.split()[0]) + 2.0:.8f}", *line.split("\t")[1:]])
               for i, line in enumerate(lines)]
    (tmp_path / "late.mot").write_text("\n".join(shifted) + "\n")
    with pytest.raises(ValueError, match=r"subject01_walk1_grf.xml: the force data \(subject01_walk1_grf.mot\) "
                                         r"span 0–2.5 s but the motion spans 2.4–3.6 s"):
        human_inverse_dynamics(human, tmp_path / "late.mot", external_loads=LOADS)


def test_monte_carlo_band_brackets_the_draws(human):
    from tsid_py.offline.gait_uncertainty import ground_reaction_band

    band = ground_reaction_band(human, MOTION, draws=4, seed=3)
    assert band.draws.shape == (4, 73, 2, 6) and not band.failed
    assert np.all(band.low <= band.median + 1e-9) and np.all(band.median <= band.high + 1e-9)
    assert np.ptp(band.draws[:, :, :, 1], axis=0).max() > 1.0             # the noise moves the estimate
    # Over about one gait cycle the vertical ground force averages the body's weight.
    assert abs(band.draws[:, :, :, 1].sum(axis=2).mean() - human.weight) < 0.1 * human.weight
    with pytest.raises(ValueError, match="draws must be a positive number"):
        ground_reaction_band(human, MOTION, draws=0)
