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
  installed (it is not a dependency).

``--figure`` draws the moments beside OpenSim's and the estimated ground forces (with the
band) beside the plates.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

import tsid_py as tp
from tsid_py.offline.gait import human_inverse_dynamics
from tsid_py.offline.gait_uncertainty import ground_reaction_band
from tsid_py.offline.opensim_files import read_external_loads, read_storage

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "opensim"
MODEL, MOTION = DATA / "subject01_simbody.osim", DATA / "subject01_walk1_ik.mot"
LOADS, OPENSIM_ID = DATA / "subject01_walk1_grf.xml", DATA / "inverse_dynamics.sto"
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
                        label="5–95 % band (50 draws)")
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
    print(json.dumps(report, indent=2, ensure_ascii=False))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    if args.figure:
        figure(args.figure, plates_result, estimate, measured, band)


if __name__ == "__main__":
    main()
