"""Residual reduction (issue 32): the mass distribution fitted to a trial's root residuals.

Truth: a trial made consistent with a deliberately perturbed model (its plates carry
exactly the wrench that model needs) must give back that model's masses and centres of
mass; on OpenSim's Gait2354 trial the residuals must drop while the joint moments stay
within 5 % of OpenSim's own."""

from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.offline.gait import human_inverse_dynamics
from tsid_py.offline.opensim_files import (
    ExternalForce,
    ExternalLoads,
    Storage,
    read_external_loads,
    read_storage,
)
from tsid_py.offline.opensim_model_file import write_adjusted_model
from tsid_py.offline.residual_reduction import (
    ResidualReductionOptions,
    adjusted_robot,
    reduce_residuals,
    residual_norms,
)

DATA = Path(__file__).parent / "data" / "opensim"
MODEL, MOTION = DATA / "subject01_simbody.osim", DATA / "subject01_walk1_ik.mot"
LOADS, OPENSIM_ID = DATA / "subject01_walk1_grf.xml", DATA / "inverse_dynamics.sto"
JOINTS = [f"{joint}_{side}_moment" for joint in ("hip_flexion", "hip_adduction", "hip_rotation", "knee_angle",
                                                 "ankle_angle") for side in "rl"]


@pytest.fixture(scope="module")
def human():
    return tp.Robot.from_osim(MODEL)


def perturbed(human, scale=1.0, changes=None):
    """``human`` with every body's mass ×scale, then ``changes``: body → (mass factor, CoM offset)."""
    inertias = {}
    for body, inertia in human.opensim.inertias.items():
        factor, offset = (changes or {}).get(body, (1.0, np.zeros(3)))
        inertias[body] = pin.Inertia(inertia.mass * scale * factor, inertia.lever + np.asarray(offset),
                                     inertia.inertia * scale * factor)
    return adjusted_robot(human, inertias)


def consistent_loads(truth) -> ExternalLoads:
    """The trial's plates with the wrench ``truth`` still needs added to the right one, at the
    motion's frames: for ``truth`` every wrench is then measured and its residual is zero."""
    loads = read_external_loads(LOADS)
    result = human_inverse_dynamics(truth, MOTION, external_loads=loads)
    names, columns, forces = [], [], []
    for i, (body, wrench, points) in enumerate(loads.wrenches(result.time)):
        force, moment = wrench[:, :3].copy(), wrench[:, 3:].copy()
        if i == 0:                                   # the residual, about the root's origin, moved to the point
            missing_force, missing_moment = result.residuals[:, :3], result.residuals[:, 3:]
            force += missing_force
            moment += missing_moment + np.cross(result.over_time.positions[:, :3] - points, missing_force)
        prefix = f"plate{i}_"
        names += [f"{prefix}{kind}{axis}" for kind in ("f", "p", "m") for axis in "xyz"]
        columns += [force, points, moment]
        forces.append(ExternalForce(f"plate{i}", body, f"{prefix}f", f"{prefix}p", f"{prefix}m"))
    return ExternalLoads(forces, Storage(names, result.time, np.hstack(columns), path="consistent.mot"),
                         "consistent.xml")


def test_a_perturbed_pelvis_is_recovered(human):
    """Pelvis 8 % heavier (+0.91 kg) with its centre of mass moved (2, −1, 1.5) cm: fitting
    the nominal model (every body's mass, the pelvis's centre of mass in all axes) to the
    consistent trial gives the perturbed pelvis back to grams and tenths of a millimetre."""
    offset = np.array([0.02, -0.01, 0.015])
    truth = perturbed(human, changes={"pelvis": (1.08, offset)})
    loads = consistent_loads(truth)
    assert np.abs(human_inverse_dynamics(truth, MOTION, external_loads=loads).residuals).max() < 1e-8
    result = human_inverse_dynamics(human, MOTION, external_loads=loads, reduce_residuals=ResidualReductionOptions(
        com_bodies=("pelvis",), com_axes="all", per_body=True))
    report = result.residual_reduction
    assert residual_norms(report.residuals_before)["force_rms_N"] > 5.0            # the perturbation is seen
    changes = {change.body: change for change in report.changes}
    pelvis = changes["pelvis"]
    true_pelvis = truth.opensim.inertias["pelvis"]
    assert pelvis.mass_change == pytest.approx(0.08 * human.opensim.inertias["pelvis"].mass, abs=0.02)
    np.testing.assert_allclose(pelvis.com_after, true_pelvis.lever, atol=5e-4)
    for body, change in changes.items():
        assert change.mass_after == pytest.approx(truth.opensim.inertias[body].mass, abs=0.02), body
    assert report.mass_after == pytest.approx(truth.mass, abs=0.01)
    assert residual_norms(result.residuals)["force_rms_N"] < 0.05
    assert report.at_bounds == []


def test_total_mass_and_torso_centre_of_mass_are_recovered_by_default(human):
    """The default fit (total mass, the torso's horizontal centre of mass): a subject 3 %
    heavier with the torso's centre of mass (1.5, 0, −1) cm off."""
    truth = perturbed(human, scale=1.03, changes={"torso": (1.0, [0.015, 0.0, -0.01])})
    result = human_inverse_dynamics(human, MOTION, external_loads=consistent_loads(truth), reduce_residuals=True)
    report = result.residual_reduction
    assert report.mass_scale == pytest.approx(1.03, abs=1e-4)
    assert list(report.com_offsets) == ["torso"]
    np.testing.assert_allclose(report.com_offsets["torso"], [0.015, 0.0, -0.01], atol=5e-4)
    assert report.mass_after - report.mass_before == pytest.approx(0.03 * human.mass, abs=0.01)


def test_the_bounds_hold(human):
    """A subject 10 % heavier than the model: the fit stops at the 5 % bound and says so."""
    truth = perturbed(human, scale=1.10)
    result = human_inverse_dynamics(human, MOTION, external_loads=consistent_loads(truth), reduce_residuals=True)
    report = result.residual_reduction
    assert report.mass_after == pytest.approx(1.05 * human.mass, rel=1e-9)
    assert "total mass" in report.at_bounds
    assert residual_norms(report.residuals_after)["force_rms_N"] > 10           # the rest is left, not hidden
    tight = ResidualReductionOptions(total_mass=0.01, com_offset=0.002)
    report = reduce_residuals(human, human_inverse_dynamics(human, MOTION, external_loads=LOADS), tight)
    assert abs(report.mass_scale - 1) <= 0.01 + 1e-12
    assert max(np.abs(offset).max() for offset in report.com_offsets.values()) <= 0.002 + 1e-12


def test_real_trial_residuals_drop_and_moments_stay_with_opensim(human):
    """OpenSim's Gait2354 trial: the residual moment RMS drops by over 15 % and the largest
    residual force by over 3 %; the model changes within its bounds; every hip, knee and
    ankle moment of the adjusted model stays within 5 % of its peak (RMS) of OpenSim's."""
    result = human_inverse_dynamics(human, MOTION, external_loads=LOADS, reduce_residuals=True)
    report = result.residual_reduction
    before, after = residual_norms(report.residuals_before), residual_norms(report.residuals_after)
    assert after["moment_rms_Nm"] < 0.85 * before["moment_rms_Nm"]
    assert after["force_max_N"] < 0.97 * before["force_max_N"]
    assert after["force_rms_N"] <= before["force_rms_N"]
    np.testing.assert_allclose(result.residuals, report.residuals_after, atol=1e-9)   # the adjusted model's own
    assert abs(report.mass_after / report.mass_before - 1) <= 0.05
    assert np.abs(report.com_offsets["torso"]).max() <= 0.05
    opensim = read_storage(OPENSIM_ID)
    for column, ours in zip(result.columns(), result.coordinate_forces.T):
        if column in JOINTS:
            theirs = opensim.column(column)
            assert np.sqrt(np.mean((ours - theirs) ** 2)) < 0.05 * np.abs(theirs).max(), column
    summary = report.summary()
    assert summary["mass_change_kg"] == pytest.approx(report.mass_after - report.mass_before, abs=1e-3)
    assert set(summary["bodies"]) == set(human.opensim.bodies)


def test_adjusted_model_file_round_trips(human, tmp_path):
    result = human_inverse_dynamics(human, MOTION, external_loads=LOADS, reduce_residuals=True)
    adjusted = result.residual_reduction.robot
    write_adjusted_model(MODEL, tmp_path / "adjusted.osim", adjusted.opensim.inertias)
    again = tp.Robot.from_osim(tmp_path / "adjusted.osim")
    assert again.mass == pytest.approx(adjusted.mass, abs=1e-12)
    for body, inertia in adjusted.opensim.inertias.items():
        np.testing.assert_allclose(again.opensim.inertias[body].toDynamicParameters(), inertia.toDynamicParameters(),
                                   atol=1e-12)
    assert human.mass == pytest.approx(72.6, abs=0.01)                              # the input is untouched
    with pytest.raises(KeyError, match=r"subject01_simbody.osim: no bodies \['arm'\]"):
        write_adjusted_model(MODEL, tmp_path / "bad.osim", {"arm": pin.Inertia.Random()})


def test_bad_requests_are_named(human):
    with pytest.raises(ValueError, match="reduce_residuals needs the force plates"):
        human_inverse_dynamics(human, MOTION, reduce_residuals=True)
    plates = human_inverse_dynamics(human, MOTION, external_loads=LOADS)
    with pytest.raises(KeyError, match=r"com_bodies \['trunk'\] are not bodies"):
        reduce_residuals(human, plates, ResidualReductionOptions(com_bodies=("trunk",)))
    with pytest.raises(ValueError, match="total_mass and body_mass are fractions below 1"):
        ResidualReductionOptions(total_mass=1.5)
    with pytest.raises(ValueError, match="com_axes must be 'horizontal' or 'all'"):
        ResidualReductionOptions(com_axes="vertical")
    with pytest.raises(ValueError, match="moment_length must be a finite number > 0"):
        ResidualReductionOptions(moment_length=0.0)
    with pytest.raises(ValueError, match="needs every external wrench measured"):
        reduce_residuals(human, human_inverse_dynamics(human, MOTION))
