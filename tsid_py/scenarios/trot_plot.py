"""The figure of a trot run (``tsid-py demo trot --plot FILE.png``), four panels:

* **from above**: the base's path, the footholds of every touch-down (one colour a foot) and
  the feet where they stood at the start;
* **contact schedule**: when each foot is on the ground (the controller's contacts), over a
  window of :data:`WINDOW` s of steady walking;
* **normal forces** over the same window: measured by MuJoCo, and planned by the MPC
  (dashed), as a share of the robot's weight;
* **speed**: the CoM's horizontal speed and the base's yaw rate (over 50 ms) against time,
  with the commanded ones.

Pushes are shaded on the time axes. Time is simulated time, s.
"""

from __future__ import annotations

import numpy as np

from .figure_style import STYLE, legend_below, new_figure


#: Seconds of walking the schedule and force panels show.
WINDOW = 1.5


def plot_trot(run):
    """A :class:`matplotlib.figure.Figure` of a trot :class:`~tsid_py.scenarios.demos.DemoRun`."""
    import matplotlib

    log, info = run.log, run.info
    feet = info["feet"]
    cycle = matplotlib.colormaps["tab10"]
    colours = {foot: cycle(index % 10) for index, foot in enumerate(feet)}
    command = run.summary.get("command", {})
    figure, axes = new_figure(f"tsid-py demo trot ({run.robot}): {command.get('gait', 'trot')} at "
                              f"{command.get('forward', 0):g} m/s forward, {command.get('lateral', 0):g} m/s "
                              f"lateral, {command.get('yaw_rate', 0):g} rad/s; {run.summary.get('terrain', 'flat')}")
    with matplotlib.rc_context(STYLE):
        _top_view(axes[0], log, info, colours)
        window = _window(log, info)
        _schedule(axes[1], log, feet, colours, window)
        _forces(axes[2], log, info, feet, colours, window)
        _speed(axes[3], log, info, run.summary)
    for axis in figure.axes:
        axis.grid(alpha=0.3)
    return figure


def _window(log, info) -> tuple[float, float]:
    """A window of steady walking: from the middle of the walk, :data:`WINDOW` s long."""
    time = log["time"]
    end = info.get("stop_at") or time[-1]
    start = max(time[0], 0.5 * (time[0] + end) - 0.5 * WINDOW)
    return start, min(start + WINDOW, time[-1])


def _top_view(axis, log, info, colours) -> None:
    base = log["base"]
    axis.plot(base[:, 0], base[:, 1], color="k", linewidth=1.2, label="base path")
    for foot, colour in colours.items():
        points = np.array([(x, y) for name, x, y, _ in info["footholds"] if name == foot]).reshape(-1, 2)
        axis.plot(points[:, 0], points[:, 1], "o", markersize=3.5, color=colour, label=f"{foot} footholds")
        start = info["foot_outlines"][foot][0]
        axis.plot(*start, "s", markersize=6, markerfacecolor="none", color=colour)
    axis.set_aspect("equal", adjustable="datalim")
    axis.set_title("from above: base path and footholds (squares: the start)")
    axis.set_xlabel("x (m)")
    axis.set_ylabel("y (m)")
    legend_below(axis, 2)


def _schedule(axis, log, feet, colours, window) -> None:
    time, contacts = log["time"], log["contacts"].astype(bool)
    step = time[1] - time[0] if len(time) > 1 else 1e-3
    inside = (time >= window[0]) & (time <= window[1])
    for row, foot in enumerate(feet):
        on = contacts[inside, row]
        t = time[inside]
        edges = np.flatnonzero(np.diff(np.r_[0, on.astype(int), 0]))
        bars = [(t[a], (t[min(b, len(t)) - 1] - t[a]) + step) for a, b in zip(edges[::2], edges[1::2])]
        axis.broken_barh(bars, (row - 0.35, 0.7), color=colours[foot])
    axis.set_yticks(range(len(feet)))
    axis.set_yticklabels(feet)
    axis.set_ylim(-0.6, len(feet) - 0.4)
    axis.set_xlim(*window)
    axis.set_title("contact schedule (feet on the ground)")
    axis.set_xlabel("time (s)")
    axis.set_ylabel("foot")



def _forces(axis, log, info, feet, colours, window) -> None:
    time = log["time"]
    inside = (time >= window[0]) & (time <= window[1])
    weight = info.get("weight") or 1.0
    for index, foot in enumerate(feet):
        axis.plot(time[inside], log["normal_forces"][inside, index] / weight, color=colours[foot], label=foot)
        axis.plot(time[inside], log["planned_normal_forces"][inside, index] / weight, "--", color=colours[foot],
                  linewidth=0.9)
    axis.set_title("normal forces / weight (MuJoCo; dashed: the MPC's plan)")
    axis.set_xlabel("time (s)")
    axis.set_ylabel("share of the weight")
    legend_below(axis, 2)


def _speed(axis, log, info, summary) -> None:
    time = log["time"]
    command = summary.get("command", {})
    axis.plot(time, log["speed"], color="tab:blue", label="CoM speed (m/s)")
    commanded = float(np.hypot(command.get("forward", 0.0), command.get("lateral", 0.0)))
    if commanded:
        axis.axhline(commanded, color="tab:blue", linestyle="--", linewidth=0.9, label="commanded speed")
    if len(time) > 2:
        span = max(1, int(round(0.05 / (time[1] - time[0]))))          # over 50 ms: the gait's sway averaged
        rate = (log["yaw"][span:] - log["yaw"][:-span]) / (time[span:] - time[:-span])
        axis.plot(time[span:], rate, color="tab:orange", label="yaw rate (rad/s)")
    if command.get("yaw_rate"):
        axis.axhline(command["yaw_rate"], color="tab:orange", linestyle="--", linewidth=0.9,
                     label="commanded yaw rate")
    axis.set_ylabel("m/s, rad/s")
    axis.set_title("speed and yaw rate")
    axis.set_xlabel("time (s)")
    for index, push in enumerate(info.get("pushes", ())):
        axis.axvspan(push["at"], push["at"] + push["duration"], color="tab:red", alpha=0.2,
                     label=f"push {np.linalg.norm(push['force']):.0f} N" if index == 0 else None)
    legend_below(axis, 2)
