"""Writing small C3D files for the tests (with ezc3d): force plates of types 1–4 built from a
known wrench, and the Gait2354 trial's plates and markers in a z-up lab."""

from pathlib import Path

import ezc3d
import numpy as np
from ezc3d import ezc3d as swig

from tsid_py.offline.opensim_files import read_external_loads

LOADS = Path(__file__).parent / "data" / "opensim" / "subject01_walk1_grf.xml"
Y_UP_TO_Z_UP = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])   # OpenSim ground → a z-up lab
PLATE_AXES = np.array([[0.0, -1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, -1.0]])  # plate → lab, z into the plate


def write_c3d(path, plates, *, kind=2, markers=None, point_rate=60.0, analog_rate=600.0, origin=(0.01, -0.005, 0.04),
              calibration=None, moment_unit="Nmm"):
    """A C3D file (written by ezc3d) in a z-up lab: ``plates`` a list of (force (T, 3) N,
    moment about the surface centre (T, 3) N·m, centre (3,) m) in lab axes, written as
    type-``kind`` channels; ``markers`` (names, (T_p, m, 3) m) or none."""
    channels, corners, labels, units = [], [], [], []
    origin = np.asarray(origin, dtype=float)
    for n, (force, moment, centre) in enumerate(plates, start=1):
        f, m = force @ PLATE_AXES, moment @ PLATE_AXES                       # plate axes (Rᵀ x)
        if kind == 1:
            cop = np.column_stack([-m[:, 1] / f[:, 2], m[:, 0] / f[:, 2]])
            tz = m[:, 2] - (cop[:, 0] * f[:, 1] - cop[:, 1] * f[:, 0])
            channels += [f, cop * 1e3, tz[:, None] * 1e3]
            units += ["N"] * 3 + ["mm"] * 2 + [moment_unit]
        elif kind == 3:
            a, b, height = np.abs(origin)
            sensor = m - np.cross([0.0, 0.0, height], f)                  # about the sensors' plane centre
            fz = (f[:, 2:3] + np.outer(sensor[:, 0] / b, [1, 1, -1, -1]) + np.outer(sensor[:, 1] / a, [-1, 1, 1, -1])) / 4
            fx12, fx34 = (f[:, 0] - sensor[:, 2] / b) / 2, (f[:, 0] + sensor[:, 2] / b) / 2
            channels.append(np.column_stack([fx12, fx34, f[:, 1] / 2, f[:, 1] / 2, fz]))
            units += ["N"] * 8
        else:
            sensor = m - np.cross(-origin if origin[2] < 0 else origin, f)   # about the sensors' origin
            if kind == 4:                                                   # raw volts, N·mm out of CAL_MATRIX
                channels.append(np.hstack([f, sensor * 1e3]) @ np.linalg.inv(calibration).T)
                units += ["V"] * 6
            else:
                channels.append(np.column_stack([f, sensor * (1e3 if moment_unit == "Nmm" else 1.0)]))
                units += ["N"] * 3 + [moment_unit] * 3
        half = np.array([0.3, 0.25])
        c = centre[:2]
        corners.append(np.array([[c[0] - half[0], c[1] - half[1], 0], [c[0] - half[0], c[1] + half[1], 0],
                                 [c[0] + half[0], c[1] + half[1], 0], [c[0] + half[0], c[1] - half[1], 0]]) * 1e3)
        labels += [f"ch{n}_{k}" for k in range(8 if kind == 3 else 6)]
    analogs = np.hstack(channels).T[None]
    c3d = ezc3d.c3d()
    names, positions = markers if markers is not None else (["M"], np.zeros((analogs.shape[2] // 10, 1, 3)))
    c3d["parameters"]["POINT"]["RATE"]["value"] = [point_rate]
    c3d["parameters"]["POINT"]["LABELS"]["value"] = tuple(names)
    c3d["parameters"]["POINT"]["UNITS"]["value"] = ["mm"]
    points = np.transpose(positions * 1e3, (2, 1, 0))
    c3d["data"]["points"] = np.concatenate([points, np.ones((1, *points.shape[1:]))])
    c3d["parameters"]["ANALOG"]["RATE"]["value"] = [analog_rate]
    c3d["parameters"]["ANALOG"]["LABELS"]["value"] = tuple(labels)
    c3d["parameters"]["ANALOG"]["UNITS"]["value"] = tuple(units)
    c3d["data"]["analogs"] = analogs
    count, per_plate = len(plates), 8 if kind == 3 else 6
    c3d.add_parameter("FORCE_PLATFORM", "USED", count)
    c3d.add_parameter("FORCE_PLATFORM", "TYPE", [kind] * count)
    c3d.add_parameter("FORCE_PLATFORM", "CHANNEL", np.arange(1.0, count * per_plate + 1).reshape(count, per_plate).T)
    c3d.add_parameter("FORCE_PLATFORM", "CORNERS", np.stack(corners, axis=2).transpose(1, 0, 2))
    c3d.add_parameter("FORCE_PLATFORM", "ORIGIN", np.tile(origin[:, None] * 1e3, (1, count)))
    if kind == 4:
        c3d.add_parameter("FORCE_PLATFORM", "CAL_MATRIX", np.stack([calibration] * count, axis=2))
    for key in ("USED", "TYPE", "CHANNEL"):                 # integer parameters, as ezc3d's plates want
        c3d["parameters"]["FORCE_PLATFORM"][key]["type"] = swig.INT
    c3d.write(str(path))


def gait_plates():
    """The Gait2354 trial's two plates in a z-up lab, 2.5 s at 600 Hz: (force, moment about the
    plate's centre, centre) each, the centre under the loaded centres of pressure."""
    plates = []
    for _, wrench, point in read_external_loads(LOADS).wrenches(np.arange(1500) / 600.0):
        force, torque, point = (x @ Y_UP_TO_Z_UP.T for x in (wrench[:, :3], wrench[:, 3:], point))
        centre = np.r_[np.median(point[np.linalg.norm(force, axis=1) > 20, :2], axis=0), 0.0]
        plates.append((force, torque + np.cross(point - centre, force), centre))
    return plates
