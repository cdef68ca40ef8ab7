"""Figures of a demo run (``tsid-py demo NAME --plot FILE.png``).

:func:`plot_run` picks the panels from what the run logged, so that every panel has data:

* a standing or moving robot on its feet (``balance``, ``com-sway``, ``single-leg``,
  ``quadruped``): the CoM against its reference, the zero-moment point inside the feet's
  outlines and their support polygon, each foot's normal force measured by MuJoCo against
  the one the controller planned, and the joint torques as a share of their limits;
* a walk (``walk``): from above, the planned footsteps and the measured footholds, the
  double-support polygons, the CoM path and the ZMP (planned and measured); the CoM against
  its reference; each foot's height; and the normal forces, measured against planned;
* an arm (``arm``): the end effector against its target, per axis and as a path, the
  tracking error, and the torques;
* a quadruped's gait (``trot``): :mod:`tsid_py.scenarios.trot_plot`;
* a reconstruction (``reconstruct``): the recovered against the simulator's normal forces,
  per foot and in total against the weight, and the recovered against the applied torques.

Pushes are shaded on every time axis; time axes are in seconds of simulated time. The figure
is drawn for a documentation page's width, each panel's legend below it, off the data
(:mod:`tsid_py.scenarios.figure_style`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._files import atomic_write
from .._geometry import convex_hull_2d
from .figure_style import DPI, STYLE, legend_below, new_figure

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .demos import DemoRun

Log = dict[str, np.ndarray]

#: Joints named in a torque panel's legend: the ones that come closest to their limits.
NAMED_JOINTS = 4
def plot_run(run: DemoRun) -> Figure:
    """A :class:`matplotlib.figure.Figure` of ``run`` (a :class:`~tsid_py.scenarios.demos.DemoRun`)
    with four panels; see the module's description for which."""
    import matplotlib

    if run.name == "trot":                 # its own panels (tsid_py.scenarios.trot_plot)
        from .trot_plot import plot_trot

        return plot_trot(run)
    figure, axes = new_figure(f"tsid-py demo {run.name} ({run.robot})")
    log, info = run.log, run.info
    with matplotlib.rc_context(STYLE):
        _panels(axes, log, info)
    for axis in figure.axes:
        axis.grid(alpha=0.3)
    return figure


def _panels(axes, log: Log, info: dict) -> None:
    if "effector" in log:
        _effector_axes(axes[0], log)
        _effector_path(axes[1], log)
        _effector_error(axes[2], log)
        _torques(axes[3], log["time"], log["tau"], info)
    elif "foot_heights" in log:
        _walk_top_view(axes[0], log, info)
        _com(axes[1], log, info)
        _foot_heights(axes[2], log, info)
        _forces(axes[3], log, info, ("normal_forces", "measured (MuJoCo)"), ("planned_normal_forces", "planned"))
    elif "recovered_normal_forces" in log:
        _forces(axes[0], log, info, ("normal_forces", "simulator"), ("recovered_normal_forces", "recovered"))
        _total_force(axes[1], log, info)
        _torques(axes[2], log["time"], log["tau"], info, reference=log.get("tau_applied"))
        _torque_agreement(axes[3], log)
    else:
        _com(axes[0], log, info)
        _support(axes[1], log, info)
        _forces(axes[2], log, info, ("normal_forces", "measured (MuJoCo)"), ("planned_normal_forces", "planned"))
        _torques(axes[3], log["time"], log["tau"], info)


def save_plot(run: DemoRun, path: str, dpi: int = DPI) -> None:
    """Write :func:`plot_run`'s figure of ``run`` to ``path`` (PNG, or any format matplotlib
    knows from the extension)."""
    save_figure(plot_run(run), path, dpi=dpi)


def save_figure(figure, path, dpi: int = 90) -> None:
    """Write ``figure`` to ``path`` in the format its extension names, atomically (an
    interrupted write leaves the previous file whole: :func:`tsid_py._files.atomic_write`),
    and close it."""
    import matplotlib.pyplot as plt

    with atomic_write(path, "wb") as handle:
        figure.savefig(handle, format=Path(path).suffix[1:].lower(), dpi=dpi)
    plt.close(figure)


# ------------------------------------------------------------------------------ shared
def _time_axis(axis: Axes, info: dict) -> None:
    axis.set_xlabel("time (s)")
    for index, push in enumerate(info.get("pushes", ())):
        newtons = float(np.linalg.norm(push["force"]))
        axis.axvspan(push["at"], push["at"] + push["duration"], color="tab:red", alpha=0.2,
                     label="push" if index == 0 else None)
        axis.annotate(f"{push['direction']} {newtons:.0f} N", (push["at"], 1.0), xycoords=("data", "axes fraction"),
                      xytext=(3, -12), textcoords="offset points", fontsize=9, color="tab:red")


def _foot_colours(feet: list[str]) -> dict:
    import matplotlib

    cycle = matplotlib.colormaps["tab10"]
    return {foot: cycle(index % 10) for index, foot in enumerate(feet)}


# ------------------------------------------------------------------------------ feet and CoM
def _com(axis: Axes, log: Log, info: dict) -> None:
    time, start = log["time"], log["com_ref"][0]
    for index, (label, colour) in enumerate(zip("xyz", ("tab:blue", "tab:orange", "tab:green"))):
        axis.plot(time, 100 * (log["com"][:, index] - start[index]), color=colour, label=f"CoM {label}")
        axis.plot(time, 100 * (log["com_ref"][:, index] - start[index]), "--", color=colour,
                  label=f"reference {label}")
    axis.set_title("centre of mass − its initial reference")
    axis.set_ylabel("cm")
    _time_axis(axis, info)
    legend_below(axis, 3)


def _support(axis: Axes, log: Log, info: dict) -> None:
    """Each foot's outline, their convex hull (the support polygon at the start), the ZMP
    measured from MuJoCo's contact forces and the CoM's ground projection."""
    from matplotlib.patches import Polygon

    outlines = info["foot_outlines"]
    colours = _foot_colours(info["feet"])
    for foot, corners in outlines.items():
        if len(corners) > 2:
            axis.add_patch(Polygon(corners, closed=True, facecolor=colours[foot], alpha=0.25,
                                   edgecolor=colours[foot], label=f"{foot} sole"))
        else:
            axis.plot(*corners.T, "o", color=colours[foot], label=foot)
    hull = convex_hull_2d(np.vstack(list(outlines.values())))
    axis.add_patch(Polygon(hull, closed=True, fill=False, linestyle="--", edgecolor="k", label="support polygon"))
    _ground_paths(axis, log, "zero-moment point and support polygon (at the start)")


def _walk_top_view(axis: Axes, log: Log, info: dict) -> None:
    """The walk from above: planned footsteps (filled soles), measured footholds (crosses),
    the support polygon of each double support (dashed: the landed sole and the other foot's),
    the CoM's ground projection and the ZMP, planned and measured."""
    from matplotlib.patches import Polygon

    from ..control.capture_point import sole_outline

    colours, size = _foot_colours(info["feet"]), info["sole_size"]
    where = {foot: tuple(pose) for foot, pose in info["start_feet"].items()}
    for foot, (x, y, yaw) in where.items():
        axis.add_patch(Polygon(sole_outline(x, y, yaw, size), closed=True, fill=False, edgecolor=colours[foot]))
    for index, (foot, x, y, yaw) in enumerate(info["footsteps"]):
        where[foot] = (x, y, yaw)
        axis.add_patch(Polygon(sole_outline(x, y, yaw, size), closed=True, facecolor=colours[foot], alpha=0.2,
                               edgecolor=colours[foot], label=f"{foot} planned" if index < 2 else None))
        hull = convex_hull_2d(np.vstack([sole_outline(*pose, size) for pose in where.values()]))
        axis.add_patch(Polygon(hull, closed=True, fill=False, linestyle="--", linewidth=0.6, edgecolor="k",
                               label="double-support polygon" if index == 0 else None))
    for index, (foot, x, y) in enumerate(info["footholds"]):
        axis.plot(x, y, "x", color=colours[foot], label="measured footholds" if index == 0 else None)
    axis.plot(log["zmp_ref"][:, 0], log["zmp_ref"][:, 1], color="tab:red", linewidth=1, label="ZMP planned")
    _ground_paths(axis, log, "footsteps, CoM and ZMP from above")


def _ground_paths(axis: Axes, log: Log, title: str) -> None:
    """The measured ZMP and the CoM's ground projection on a top view, its title and axes."""
    zmp = log["zmp"][np.all(np.isfinite(log["zmp"]), axis=1)]
    axis.plot(zmp[:, 0], zmp[:, 1], ".", markersize=1.5, color="tab:purple", alpha=0.5, label="ZMP (MuJoCo forces)")
    axis.plot(log["com"][:, 0], log["com"][:, 1], color="tab:gray", label="CoM ground projection")
    axis.set_title(title)
    axis.set_xlabel("x (m)")
    axis.set_ylabel("y (m)")
    axis.set_aspect("equal", adjustable="datalim")
    legend_below(axis, 2)


def _foot_heights(axis: Axes, log: Log, info: dict) -> None:
    colours = _foot_colours(info["feet"])
    for index, foot in enumerate(info["feet"]):
        axis.plot(log["time"], 100 * log["foot_heights"][:, index], color=colours[foot], label=foot)
    axis.set_title("sole height above the floor")
    axis.set_ylabel("cm")
    _time_axis(axis, info)
    legend_below(axis, 2)


def _forces(axis: Axes, log: Log, info: dict, solid: tuple[str, str], dashed: tuple[str, str]) -> None:
    """Normal force of each foot (a colour a foot): ``solid = (key, what)`` drawn solid,
    ``dashed`` dashed."""
    time, colours = log["time"], _foot_colours(info["feet"])
    for index, foot in enumerate(info["feet"]):
        for (key, what), style in ((solid, "-"), (dashed, "--")):
            if key in log:
                axis.plot(time[: len(log[key])], log[key][:, index], style, color=colours[foot],
                          label=foot if style == "-" else None)
    for (key, what), style in ((solid, "-"), (dashed, "--")):
        axis.plot([], [], style, color="0.3", label=what)
    axis.set_title("normal contact force per foot")
    axis.set_ylabel("N")
    _time_axis(axis, info)
    legend_below(axis, 2)


def _total_force(axis: Axes, log: Log, info: dict) -> None:
    time = log["time"]
    axis.plot(time, log["normal_forces"].sum(axis=1), label="simulator")
    axis.plot(time, log["recovered_normal_forces"].sum(axis=1), "--", label="recovered")
    if info.get("weight"):
        axis.axhline(info["weight"], color="k", linewidth=0.8, linestyle=":", label="weight")
    axis.set_title("total vertical ground-reaction force")
    axis.set_ylabel("N")
    _time_axis(axis, info)
    legend_below(axis, 2)


# ------------------------------------------------------------------------------ torques
def _torques(axis: Axes, time: np.ndarray, tau: np.ndarray, info: dict,
             reference: np.ndarray | None = None) -> None:
    """Torques as a share of each joint's limit (%), ±100 % drawn; the joints that come
    closest to their limits are named. With ``reference`` (the applied torques), those
    joints' reference is drawn dashed."""
    names, limits = info["joint_names"], np.asarray(info["torque_limits"], dtype=float)
    limited = np.isfinite(limits) & (limits > 0)
    share = np.full(tau.shape, np.nan)
    share[:, limited] = 100 * tau[:, limited] / limits[limited]
    time = time[: len(tau)]
    peak = np.nanmax(np.abs(share), axis=0, initial=0.0)
    named = [joint for joint in np.argsort(-peak)[:NAMED_JOINTS] if peak[joint] > 0]
    for joint in np.flatnonzero(limited):
        if joint not in named:
            axis.plot(time, share[:, joint], color="0.75", linewidth=0.6)
    for joint in named:
        line, = axis.plot(time, share[:, joint], linewidth=1.2, label=f"{names[joint]}, {limits[joint]:.0f} N·m")
        if reference is not None:
            axis.plot(time, 100 * reference[: len(tau), joint] / limits[joint], "--", color=line.get_color(),
                      linewidth=0.9)
    if reference is not None:
        axis.plot([], [], "--", color="0.3", label="applied in MuJoCo")
    axis.axhline(100, color="tab:red", linewidth=0.8, label="torque limit")
    axis.axhline(-100, color="tab:red", linewidth=0.8)
    hidden = int((~limited).sum())
    axis.set_title("joint torques / their limits" + (f" ({hidden} without a limit not shown)" if hidden else "")
                   + ("; recovered solid" if reference is not None else ""))
    axis.set_ylabel("% of the torque limit")
    axis.set_ylim(-110, 110)
    _time_axis(axis, info)
    legend_below(axis, 2)


def _torque_agreement(axis: Axes, log: Log) -> None:
    """Recovered against applied torque, every joint and step, with the line y = x."""
    applied, recovered = log["tau_applied"].ravel(), log["tau"][: len(log["tau_applied"])].ravel()
    axis.plot(applied, recovered, ".", markersize=1, alpha=0.4, label="one joint at one step")
    ends = [min(applied.min(), recovered.min()), max(applied.max(), recovered.max())]
    axis.plot(ends, ends, "k", linewidth=0.8, label="recovered = applied")
    rms = float(np.sqrt(np.mean((recovered - applied) ** 2)))
    axis.set_title(f"recovered vs applied joint torques\n(RMS difference {rms:.2f} N·m)")
    axis.set_xlabel("applied by the controller (N·m)")
    axis.set_ylabel("recovered from positions (N·m)")
    legend_below(axis, 2)


# ------------------------------------------------------------------------------ arm
def _effector_axes(axis: Axes, log: Log) -> None:
    time, actual, target = log["time"], log["effector"], log["effector_ref"]
    start = target[0]
    for index, (label, colour) in enumerate(zip("xyz", ("tab:blue", "tab:orange", "tab:green"))):
        axis.plot(time, 100 * (actual[:, index] - start[index]), color=colour, label=f"actual {label}")
        axis.plot(time, 100 * (target[:, index] - start[index]), "--", color=colour, label=f"target {label}")
    axis.set_title("end effector − its initial target")
    axis.set_xlabel("time (s)")
    axis.set_ylabel("cm")
    legend_below(axis, 2)


def _effector_path(axis: Axes, log: Log) -> None:
    actual, target = log["effector"], log["effector_ref"]
    axis.plot(target[:, 1], target[:, 2], "--", color="k", label="target")
    axis.plot(actual[:, 1], actual[:, 2], color="tab:blue", label="actual")
    axis.set_title("end-effector path in the y–z plane")
    axis.set_xlabel("y (m)")
    axis.set_ylabel("z (m)")
    axis.set_aspect("equal", adjustable="datalim")
    legend_below(axis, 2)


def _effector_error(axis: Axes, log: Log) -> None:
    error = 1e3 * np.linalg.norm(log["effector"] - log["effector_ref"], axis=1)
    axis.plot(log["time"], error, color="tab:red", label="|target − actual|")
    axis.set_title("end-effector tracking error")
    axis.set_xlabel("time (s)")
    axis.set_ylabel("mm")
    legend_below(axis, 2)
