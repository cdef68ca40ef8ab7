"""The human-motion must-shows (issue 32) on OpenSim's Gait2354 walking trial.

    python benchmarks/human_gait.py [--draws 50] [--workers 2] [--json FILE] [--figure FILE]

On ``tests/data/opensim`` (model, 73 frames of inverse-kinematics angles at 60 Hz, two force
plates, OpenSim's own inverse dynamics): prints and, with ``--json``, writes

- with the plates: each hip, knee and ankle moment's RMS difference to OpenSim's
  ``inverse_dynamics.sto`` as a % of its peak (target ≤ 5 %), the pelvis residuals' (≤ 10 %)
  and every other coordinate's; the wall time (target: the trial in ≤ 2 s);
- without (positions alone): total vertical and antero-posterior ground force RMSE and each
  foot's vertical, in % of body weight, against the plates (≤ 8, ≤ 3, ≤ 12 %); the largest
  shift of a contact phase's start or end against the plates' own (vertical force > 20 N),
  in frames (≤ 2); the wall time;
- the Monte-Carlo band (``--draws``, 1° angle and 2 mm translation noise): wall time
  serially and through a local Dask cluster of ``--workers`` processes, its start included
  (target ≤ 30 s); the band's median width;
- the messages for three bad files (a missing column, a model coordinate absent from the
  motion, motion times outside the plates');
- the .osim reader's load time, and the ``opensim`` package's (import + load) when it is
  installed (it is not a dependency);
- residual reduction: the pelvis residuals (RMS and largest norm, N and N·m) before and
  after fitting the mass distribution with the default options and two alternatives (the
  pelvis's centre of mass too; mass moved between bodies), the changes, the hip, knee and
  ankle moments of the adjusted model against OpenSim's; and a deliberately perturbed pelvis
  (+8 % mass, (2, −1, 1.5) cm) recovered from a trial made consistent with it;
- C3D: OpenSim's ``walking5.c3d`` read against OpenSim's reference exports (plates, centre of
  pressure, free moment, markers) and ezc3d's own plate computation, and the Gait2354 trial
  written as a C3D file run through the same inverse dynamics as its .mot/.xml files.

``--figure`` draws the moments beside OpenSim's and the estimated ground forces (with the
band) beside the plates.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

#: The synthetic trials (a perturbed model, plates consistent with it) are built as the tests
#: build them: the repository's root on the path makes ``tests`` importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tsid_py as tp
from tsid_py.offline.c3d import read_c3d
from tsid_py.offline.gait import human_inverse_dynamics
from tsid_py.offline.gait_uncertainty import ground_reaction_band
from tsid_py.offline.opensim_files import read_external_loads, read_storage, read_trc
from tsid_py.offline.residual_reduction import ResidualReductionOptions, residual_norms

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "opensim"
MODEL, MOTION = DATA / "subject01_simbody.osim", DATA / "subject01_walk1_ik.mot"
LOADS, OPENSIM_ID = DATA / "subject01_walk1_grf.xml", DATA / "inverse_dynamics.sto"
C3D = DATA.parent / "c3d"
JOINTS = [f"{joint}_{side}" for joint in ("hip_flexion", "hip_adduction", "hip_rotation", "knee_angle", "ankle_angle")
          for side in "rl"]


def _timed(function, *args, **kwargs):
    tic = time.perf_counter()
    value = function(*args, **kwargs)
    return value, time.perf_counter() - tic


def with_plates(robot) -> tuple[dict, object]:
    result, seconds = _timed(human_inverse_dynamics, robot, MOTION, external_loads=LOADS)
    opensim = read_storage(OPENSIM_ID)
    errors = {}
    for column, ours in zip(result.columns(), result.coordinate_forces.T):
        theirs = opensim.column(column)
        errors[column] = round(100 * float(np.sqrt(np.mean((ours - theirs) ** 2)) / np.abs(theirs).max()), 3)
    residual = np.linalg.norm(result.residuals[:, :3], axis=1)
    return {"seconds": round(seconds, 3), "frames": len(result.time), "error_percent_of_peak": errors,
            "max_joint_error_percent": max(errors[f"{j}_moment"] for j in JOINTS),
            "max_pelvis_error_percent": max(v for k, v in errors.items() if k.startswith("pelvis")),
            "residual_force_N_rms": round(float(np.sqrt(np.mean(residual ** 2))), 1),
            "residual_force_N_max": round(float(residual.max()), 1)}, result


def without_plates(robot) -> tuple[dict, object, np.ndarray]:
    result, seconds = _timed(human_inverse_dynamics, robot, MOTION)
    measured = np.array([w for _, w, _ in read_external_loads(LOADS).wrenches(result.time)])
    weight = robot.weight

    def rmse(a, b):
        return round(100 * float(np.sqrt(np.mean((a - b) ** 2))) / weight, 2)

    total, estimated = measured[:, :, :3].sum(axis=0), result.wrenches[:, :, :3].sum(axis=1)
    shifts = []
    for foot in range(2):
        truth = np.flatnonzero(np.diff((measured[foot, :, 1] > 20).astype(int)))
        ours = np.flatnonzero(np.diff(result.contact_schedule[:, foot].astype(int)))
        shifts.append(int(np.abs(truth - ours).max()) if len(truth) == len(ours) else None)
    return {"seconds": round(seconds, 3), "body_weight_N": round(weight, 1),
            "vertical_rmse_percent_bw": rmse(total[:, 1], estimated[:, 1]),
            "anteroposterior_rmse_percent_bw": rmse(total[:, 0], estimated[:, 0]),
            "mediolateral_rmse_percent_bw": rmse(total[:, 2], estimated[:, 2]),
            "right_vertical_rmse_percent_bw": rmse(measured[0, :, 1], result.wrenches[:, 0, 1]),
            "left_vertical_rmse_percent_bw": rmse(measured[1, :, 1], result.wrenches[:, 1, 1]),
            "contact_phase_shift_frames": shifts, "relaxed_frames": len(result.over_time.relaxed_frames)}, \
        result, measured


def monte_carlo(robot, draws: int, workers: int) -> tuple[dict, object]:
    band, serial = _timed(ground_reaction_band, robot, MOTION, draws=draws, workers=0)
    _, parallel = _timed(ground_reaction_band, robot, MOTION, draws=draws, workers=workers)
    width = band.high[:, :, 1] - band.low[:, :, 1]
    return {"draws": draws, "serial_seconds": round(serial, 2), "dask_workers": workers,
            "dask_seconds_with_cluster_start": round(parallel, 2), "failed_draws": len(band.failed),
            "vertical_band_width_N_median": round(float(np.median(width)), 1)}, band


def bad_files(robot) -> dict:
    lines = MOTION.read_text().splitlines()
    messages = {}
    with tempfile.TemporaryDirectory() as folder:
        header = lines.index(next(line for line in lines if line.startswith("time")))
        dropped = lines[header].split("\t").index("knee_angle_l")
        cases = {
            "missing_column": lines[:header] + ["\t".join(cell for k, cell in enumerate(line.split("\t"))
                                                          if k != dropped) for line in lines[header:]],
            "model_coordinate_absent": [line.replace("\tknee_angle_r\t", "\tknee_r\t") for line in lines],
            "times_outside_the_plates": [line if i < 11 else "\t".join([f"{float(line.split()[0]) + 2:.8f}",
                                                                         *line.split("\t")[1:]])
                                         for i, line in enumerate(lines)],
        }
        for name, content in cases.items():
            path = Path(folder) / f"{name}.mot"
            path.write_text("\n".join(content) + "\n")
            try:
                human_inverse_dynamics(robot, path, external_loads=LOADS)
                messages[name] = "no error"
            except (ValueError, KeyError) as error:
                messages[name] = str(error.args[0])
    return messages


def reader_timing() -> dict:
    _, ours = _timed(tp.Robot.from_osim, MODEL)
    timing = {"tsid_py_reader_seconds": round(ours, 4)}
    try:
        tic = time.perf_counter()
        import opensim

        model = opensim.Model(str(MODEL))
        model.initSystem()
        timing["opensim_import_and_load_seconds"] = round(time.perf_counter() - tic, 3)
    except ImportError:
        timing["opensim"] = "not installed"
    return timing


def _joint_errors(result) -> float:
    """The largest hip, knee or ankle moment RMS difference to OpenSim's, % of its peak."""
    opensim = read_storage(OPENSIM_ID)
    return max(100 * float(np.sqrt(np.mean((result.coordinate_forces[:, result.columns().index(f"{j}_moment")]
                                             - opensim.column(f"{j}_moment")) ** 2))
                           / np.abs(opensim.column(f"{j}_moment")).max()) for j in JOINTS)


def residual_reduction(robot) -> dict:
    """The real trial's residuals before and after the fit, for three sets of parameters,
    and the perturbed-pelvis recovery (its consistent trial made as in the tests)."""
    from tests.test_residual_reduction import consistent_loads, perturbed

    variants = {"default (total mass, torso centre of mass)": ResidualReductionOptions(),
                "with the pelvis centre of mass": ResidualReductionOptions(com_bodies=("torso", "pelvis")),
                "with per-body masses (±20 %)": ResidualReductionOptions(per_body=True)}
    report = {}
    for label, options in variants.items():
        result, seconds = _timed(human_inverse_dynamics, robot, MOTION, external_loads=LOADS, reduce_residuals=options)
        fit = result.residual_reduction
        summary = fit.summary()
        report[label] = {"seconds_with_both_solves": round(seconds, 3),
                         "before": summary["residuals_before"], "after": summary["residuals_after"],
                         "reduction_percent": {key: round(100 * (1 - summary["residuals_after"][key]
                                                                 / summary["residuals_before"][key]), 1)
                                               for key in summary["residuals_before"]},
                         "mass_change_kg": summary["mass_change_kg"],
                         "mass_change_percent": summary["mass_change_percent"],
                         "com_offsets_m": summary["com_offsets_m"], "at_bounds": summary["at_bounds"],
                         "largest_body_mass_change_percent": max(abs(body["mass_change_percent"])
                                                                 for body in summary["bodies"].values()),
                         "max_joint_error_percent_vs_opensim": round(_joint_errors(result), 3)}
    offset = np.array([0.02, -0.01, 0.015])
    truth = perturbed(robot, changes={"pelvis": (1.08, offset)})
    result = human_inverse_dynamics(robot, MOTION, external_loads=consistent_loads(truth), reduce_residuals=(
        ResidualReductionOptions(com_bodies=("pelvis",), com_axes="all", per_body=True)))
    fit = result.residual_reduction
    pelvis = next(change for change in fit.changes if change.body == "pelvis")
    report["perturbed pelvis (+8 % mass, (2, -1, 1.5) cm)"] = {
        "true_mass_change_kg": round(0.08 * robot.opensim.inertias["pelvis"].mass, 4),
        "recovered_mass_change_kg": round(pelvis.mass_change, 4),
        "com_error_mm": np.round(1e3 * (pelvis.com_offset - offset), 3).tolist(),
        "other_bodies_largest_mass_error_kg": round(max(abs(c.mass_after - truth.opensim.inertias[c.body].mass)
                                                        for c in fit.changes if c.body != "pelvis"), 4),
        "residuals_before": {k: round(v, 3) for k, v in residual_norms(fit.residuals_before).items()},
        "residuals_after": {k: round(v, 4) for k, v in residual_norms(fit.residuals_after).items()}}
    return report


def c3d_checks(robot) -> dict:
    """OpenSim's walking5.c3d against its reference exports and ezc3d; the Gait2354 trial as a
    C3D file through the inverse dynamics."""
    import ezc3d

    from tests.c3d_writer import gait_plates, write_c3d

    trial, seconds = _timed(read_c3d, C3D / "walking5.c3d")
    at_origin, at_cop = read_storage(C3D / "std_walking5_grfs.sto"), read_storage(C3D / "std_cop_walking5_grfs.sto")
    rows = np.rint(at_origin.time * trial.analog_rate).astype(int)
    platforms = ezc3d.c3d(str(C3D / "walking5.c3d"), extract_forceplat_data=True)["data"]["platform"]
    errors = {"force_N": 0.0, "moment_Nmm": 0.0, "centre_of_pressure_mm": 0.0, "free_moment_Nmm": 0.0}
    versus_ezc3d = dict(errors)

    def columns(storage, prefix):
        return np.column_stack([storage.column(f"{prefix}_{axis}") for axis in (1, 2, 3)])

    for plate, theirs in zip(trial.plates, platforms):
        n = plate.number
        pairs = {"force_N": (plate.force[rows], columns(at_origin, f"f{n}"), plate.force, theirs["force"].T),
                 "moment_Nmm": (1e3 * plate.moment[rows], columns(at_origin, f"m{n}"), 1e3 * plate.moment,
                                theirs["moment"].T),
                 "centre_of_pressure_mm": (1e3 * plate.centre_of_pressure[rows], columns(at_cop, f"p{n}"),
                                           1e3 * plate.centre_of_pressure, theirs["center_of_pressure"].T),
                 "free_moment_Nmm": (1e3 * plate.free_moment[rows], columns(at_cop, f"m{n}"), 1e3 * plate.free_moment,
                                     theirs["Tz"].T)}
        for key, (ours, reference, full, ezc3d_values) in pairs.items():
            errors[key] = max(errors[key], float(np.nanmax(np.abs(ours - reference))))
            versus_ezc3d[key] = max(versus_ezc3d[key], float(np.nanmax(np.abs(full - ezc3d_values))))
    exported = read_trc(C3D / "std_walking5_markers.trc")
    marker_rows = np.rint(exported.time * trial.point_rate).astype(int)
    markers = trial.markers.positions[marker_rows][:, [trial.markers.names.index(n) for n in exported.names]]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "gait2354.c3d"
        write_c3d(path, gait_plates())
        from_c3d, c3d_seconds = _timed(human_inverse_dynamics, robot, MOTION, external_loads=path)
    from_xml = human_inverse_dynamics(robot, MOTION, external_loads=LOADS)
    return {"walking5_read_seconds": round(seconds, 3), "plates": len(trial.plates),
            "plate_types": [plate.type for plate in trial.plates], "markers": len(trial.markers.names),
            "max_error_vs_opensim_reference": {k: float(f"{v:.3g}") for k, v in errors.items()},
            "max_marker_error_vs_mokka_mm": round(1e3 * float(np.nanmax(np.abs(markers - exported.positions))), 4),
            "max_difference_vs_ezc3d": {k: float(f"{v:.3g}") for k, v in versus_ezc3d.items()},
            "gait2354_as_c3d": {"plate_bodies": from_c3d.plate_bodies, "seconds": round(c3d_seconds, 3),
                                "max_moment_difference_vs_xml_Nm": float(
                                    f"{np.abs(from_c3d.coordinate_forces - from_xml.coordinate_forces).max():.3g}")}}


def figure(path: str, plates_result, estimate, measured, band) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    opensim = read_storage(OPENSIM_ID)
    fig, axes = plt.subplots(2, 3, figsize=(13, 6.5), constrained_layout=True)
    columns = plates_result.columns()
    for ax, name in zip(axes[0], ("hip_flexion_r_moment", "knee_angle_r_moment", "ankle_angle_r_moment")):
        ax.plot(opensim.time, opensim.column(name), color="0.6", lw=4, label="OpenSim")
        ax.plot(plates_result.time, plates_result.coordinate_forces[:, columns.index(name)], color="C0",
                label="tsid_py (plates)")
        ax.set_title(name.replace("_", " "), fontsize=10)
        ax.set_ylabel("N·m")
    axes[0, 0].legend(fontsize=8)
    for ax, (foot, side) in zip(axes[1], ((0, "right"), (1, "left"))):
        ax.plot(estimate.time, measured[foot, :, 1], color="0.6", lw=4, label="force plate")
        ax.fill_between(band.time, band.low[:, foot, 1], band.high[:, foot, 1], color="C1", alpha=0.3,
                        label=f"5–95 % band ({len(band.draws)} draws)")
        ax.plot(estimate.time, estimate.wrenches[:, foot, 1], color="C1", label="positions alone")
        ax.set_title(f"vertical ground force, {side} foot", fontsize=10)
        ax.set_ylabel("N")
    axes[1, 0].legend(fontsize=8)
    ax = axes[1, 2]
    ax.plot(estimate.time, measured[:, :, 0].sum(axis=0), color="0.6", lw=4, label="force plates")
    ax.plot(estimate.time, estimate.wrenches[:, :, 0].sum(axis=1), color="C1", label="positions alone")
    ax.set_title("antero-posterior ground force, both feet", fontsize=10)
    ax.set_ylabel("N")
    for ax in axes.flat:
        ax.set_xlabel("time (s)")
    fig.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--figure", metavar="FILE")
    args = parser.parse_args()
    robot = tp.Robot.from_osim(MODEL)
    report = {"reader": reader_timing()}
    report["with_plates"], plates_result = with_plates(robot)
    report["without_plates"], estimate, measured = without_plates(robot)
    report["monte_carlo"], band = monte_carlo(robot, args.draws, args.workers)
    report["bad_files"] = bad_files(robot)
    report["residual_reduction"] = residual_reduction(robot)
    report["c3d"] = c3d_checks(robot)
    print(json.dumps(report, indent=2, ensure_ascii=False))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    if args.figure:
        figure(args.figure, plates_result, estimate, measured, band)


if __name__ == "__main__":
    main()
