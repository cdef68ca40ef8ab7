"""A demo's summary as a person reads it: what happened, in rounded numbers with their units.

``tsid-py demo NAME`` prints :func:`format_summary` (the JSON, every number at full precision,
only with ``--json FILE``), and the gallery's tables are :func:`summary_rows`. Each row is one
measure the demos report, worded once here: lengths in mm below 1 cm, in cm below 1 m, else
in m; angles in degrees; times in s or µs; forces in N. A measure the summary does not hold
is left out, so each demo shows its own.
"""

from __future__ import annotations

from collections.abc import Callable


def length(metres: float) -> str:
    """``0.0021`` → ``"2.1 mm"``, ``0.0115`` → ``"1.2 cm"``, ``2.54`` → ``"2.54 m"``."""
    size = abs(metres)
    if size < 0.01:
        return f"{metres * 1e3:.1f} mm"
    if size < 1.0:
        return f"{metres * 1e2:.1f} cm"
    return f"{metres:.2f} m"


def _yes(value) -> str:
    return "yes" if value else "no"


def _pushes(summary: dict) -> str | None:
    pushes = summary.get("pushes")
    if not pushes:
        return None if pushes is None else "none"
    each = ", ".join(f"{push['direction']} {push['newtons']:.0f} N at {push['at']:g} s" for push in pushes)
    return f"{each} ({summary.get('push_duration', 0.1):g} s each)"


def _outcome(summary: dict) -> str | None:
    if not summary.get("fell") and "rms_tracking_error" in summary:
        return None                      # a fixed-base arm: nothing to fall
    if summary.get("fell"):
        at = summary.get("fell_at")
        reason = summary.get("fall_reason") or summary.get("controller_failure")
        return "fell" + (f" at {at:.2f} s" if at is not None else "") + (f": {reason}" if reason else "")
    if summary.get("survived") is False:
        return "did not fall, but did not come to rest"
    return "did not fall" + (", recovered cleanly" if summary.get("recovered_cleanly") else "")


def _soles(summary: dict) -> str | None:
    tilt, slip = summary.get("max_sole_tilt_deg"), summary.get("max_sole_slip_m")
    if tilt is None or slip is None:
        return None
    return f"tilted {tilt:.1f}° at most, slid {length(slip)} at most"


def _tracking(summary: dict) -> str | None:
    if "rms_tracking_error" not in summary:
        return None
    return f"RMS {length(summary['rms_tracking_error'])}, largest {length(summary['max_tracking_error'])}"


def _sway(summary: dict) -> str | None:
    if "amplitude" not in summary:
        return None
    return f"{length(summary['amplitude'])} at {summary['frequency']:g} Hz"


def _steps(summary: dict) -> str | None:
    if "steps" not in summary:
        return None
    planned = summary.get("planned_steps")
    return f"{summary['steps']}" + (f" of {planned} planned" if planned is not None else "")


def _command(summary: dict) -> str | None:
    command = summary.get("command")
    if not command:
        return None
    forward, lateral = command["forward"], command.get("lateral", 0.0)
    parts = [f"({forward:g}, {lateral:g}) m/s ahead, left" if lateral else f"{forward:g} m/s forward"]
    if command.get("yaw_rate"):
        parts.append(f"{command['yaw_rate']:g} rad/s")
    return f"{command.get('gait', 'trot')}, " + ", ".join(parts)


def _inverse_dynamics(summary: dict) -> str | None:
    if "id_solve_seconds" not in summary:
        return None
    return (f"{summary['frames']} frames in {summary['id_solve_seconds']:.2f} s, "
            f"{summary['id_relaxed_frames']} with relaxed bounds")


def _force_error(summary: dict) -> str | None:
    per_foot = summary.get("grf_vertical_rms_error_per_foot_pct_weight")
    if per_foot is None:
        return None
    total = summary["grf_vertical_rms_error_total_pct_weight"]
    return f"{per_foot:.1f} % of the weight per foot, {total:.1g} % in total"


def _torque_error(summary: dict) -> str | None:
    if "torque_rms_error" not in summary:
        return None
    return f"{summary['torque_rms_error']:.1f} N·m RMS (the torques: {summary['torque_rms']:.1f} N·m RMS)"


def _mpc(summary: dict) -> str | None:
    if "mpc_rate_hz" not in summary:
        return None
    return f"{summary['mpc_rate_hz']:.0f} Hz, median solve {summary['mpc_median_solve_us']:.0f} µs"


def _drift(summary: dict) -> str | None:
    drift = (summary.get("estimator_drift") or {}).get("max")
    if not drift:
        return None
    return (f"horizontal {length(drift['horizontal_m'])}, vertical {length(drift['vertical_m'])}, "
            f"yaw {drift['yaw_deg']:.2f}°")


def _feedback(summary: dict) -> str | None:
    conditions = summary.get("conditions")
    return None if not conditions else conditions.get("feedback")


def _step_time(summary: dict) -> str | None:
    if "median_step_us" not in summary:
        return None
    return f"median {summary['median_step_us']:.0f} µs, 99th percentile {summary['p99_step_us']:.0f} µs"


def _bounds(summary: dict) -> str | None:
    bounds = summary.get("push_bounds")
    if not bounds:
        return None
    return ", ".join(f"{direction} {newtons:.0f} N" for direction, newtons in bounds.items())


def _value(key: str, form: Callable) -> Callable[[dict], str | None]:
    return lambda summary: None if summary.get(key) is None else form(summary[key])


#: (label, the row's text from a summary, or None when the summary does not hold it), in order.
ROWS: tuple[tuple[str, Callable[[dict], str | None]], ...] = (
    ("outcome", _outcome),
    ("pushes", _pushes),
    ("command", _command),
    ("terrain", _value("terrain", str)),
    ("sway", _sway),
    ("distance", _value("distance_m", length)),
    ("speed", _value("speed_mps", lambda speed: f"{speed:.2f} m/s")),
    ("walking time", _value("walking_time_s", lambda seconds: f"{seconds:.1f} s")),
    ("steps", _steps),
    ("touch-downs", _value("touchdowns", str)),
    ("heading change", _value("yaw_change_deg", lambda degrees: f"{round(degrees, 1) + 0.0:.1f}°")),
    ("time on one foot", _value("single_support_seconds", lambda seconds: f"{seconds:.1f} s")),
    ("foot lifted by", _value("lift_height", length)),
    ("largest CoM error", _value("max_com_error", length)),
    ("hand tracking error", _tracking),
    ("largest foothold error", _value("max_foothold_error_m", length)),
    ("soles", _soles),
    ("largest foot slip", _value("max_foot_slip_m", length)),
    ("recovery steps", lambda s: str(s["recovery_steps"]) if s.get("step_recovery") or s.get("recovery_steps") else None),
    ("failure policy steps", _value("failure_policy_step_count", str)),
    ("inverse dynamics", _inverse_dynamics),
    ("vertical force error (RMS)", _force_error),
    ("joint torque error", _torque_error),
    ("MPC", _mpc),
    ("state feedback", _feedback),
    ("estimator's largest drift", _drift),
    ("control step", _step_time),
    ("no-step push bounds (0.1 s)", _bounds),
    ("simulated", _value("simulated_time", lambda seconds: f"{seconds:.1f} s")),
)


def summary_rows(summary: dict) -> list[tuple[str, str]]:
    """``(label, text)`` of each measure ``summary`` holds, rounded, in :data:`ROWS`' order."""
    rows = []
    for label, row in ROWS:
        text = row(summary)
        if text is not None:
            rows.append((label, text))
    return rows


def format_summary(summary: dict) -> str:
    """The text ``tsid-py demo`` prints: the demo and robot, then one aligned line a measure
    (within 80 columns, a fall's reason aside)."""
    rows = summary_rows(summary)
    width = max(len(label) for label, _ in rows)
    title = f"tsid-py demo {summary.get('demo', '')} ({summary.get('robot', '')})"
    return "\n".join([title, *(f"  {label:<{width}}  {text}" for label, text in rows)])
