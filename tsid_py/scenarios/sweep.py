"""Push sweeps: per direction, the largest push a controller survives, on a force grid.

:func:`sweep_direction` runs :func:`~tsid_py.scenarios.push_recovery.push_trial` at ``step``,
``2 step``, … N and reports, beside the capture-point bounds
(:func:`tsid_py.control.push_bounds`):

* ``survived_up_to``: the largest grid force such that every push up to it was survived (not
  fallen, and come to rest: :mod:`tsid_py.scenarios.push_recovery`);
* ``clean_up_to``: the same for a clean recovery (soles within 2° and 1 cm);
* ``monotonic``: no push was survived above the first one that was not;
* ``first_fall``: the first grid force not survived;
* ``errors``: runs that raised (each one a bug: the controller must never raise).

A direction stops ``falls_to_stop`` grid points after its first fall (so that a survival
above it — non-monotonic — would still be seen), or at ``max_force``.

``checks``: forces off the grid to run as well (``check_runs``), e.g. a target such as
0.9 × the bound: "every push up to F survived" is shown by the grid up to F *and* F itself.

:func:`add_sweep_arguments` and :func:`swept_directions`: the command-line options the sweep
benchmarks share.
"""

from __future__ import annotations

import argparse
import traceback

from .. import robots
from ..control import push_bounds
from ..control.capture_point import DIRECTIONS
from .push_recovery import SingleLegStance, push_trial


def sweep_direction(robot, direction: str, *, step: float = 10.0, max_force: float | None = None,
                    falls_to_stop: int = 4, stance: str = "double", checks=(), **trial_options) -> dict:
    """Sweep one direction (see the module); ``trial_options`` go to ``push_trial``."""
    feet, com = (None, None)
    if stance == "single":
        feet, com = SingleLegStance(robot).bounds_geometry()
        trial_options.setdefault("push_at", 2.0)
        trial_options.setdefault("duration", 3.5)
    bound = push_bounds(robot, trial_options.get("push_duration", 0.1), feet=feet, com=com)[direction]
    max_force = 1.25 * bound.cop_at_edge if max_force is None else max_force
    runs, first_fall, errors = [], None, []

    def trial(force: float) -> dict:
        try:
            result = push_trial(robot, force, direction, stance=stance, **trial_options)
        except Exception:                     # noqa: BLE001 — counted and reported, never hidden
            errors.append({"force": force, "traceback": traceback.format_exc(limit=3)})
            result = {"fell": True, "survived": False, "came_to_rest": False, "recovered_cleanly": False,
                      "failure_policy_step_count": 0, "max_sole_tilt_deg": float("nan"),
                      "max_sole_slip_m": float("nan")}
        return {"force": force, "survived": result["survived"], "clean": result["recovered_cleanly"],
                "fell": result["fell"], "came_to_rest": result["came_to_rest"],
                "tilt_deg": result["max_sole_tilt_deg"], "slip_m": result["max_sole_slip_m"],
                "policy_steps": result["failure_policy_step_count"], "recovery_steps": result.get("recovery_steps", 0)}

    force = step
    while force <= max_force + 1e-9:
        runs.append(trial(force))
        if not runs[-1]["survived"] and first_fall is None:
            first_fall = force
        if first_fall is not None and force >= first_fall + falls_to_stop * step - 1e-9:
            break
        force += step
    return {
        "direction": direction,
        "stance": stance,
        "survived_up_to": _prefix_limit(runs, "survived", True),
        "clean_up_to": _prefix_limit(runs, "clean", True),
        "first_fall": first_fall,
        "monotonic": not any(run["survived"] for run in runs if first_fall is not None and run["force"] > first_fall),
        "bound_cop_at_edge": bound.cop_at_edge,
        "bound_impulse": bound.impulse,
        "margin_m": bound.margin,
        "policy_steps": int(sum(run["policy_steps"] for run in runs)),
        "errors": errors,
        "runs": runs,
        "check_runs": [trial(float(force)) for force in checks],
    }


def add_sweep_arguments(parser: argparse.ArgumentParser, *, step: float) -> None:
    """``--robot``, ``--directions`` (repeatable; a signed one as ``--directions=-y``, which
    argparse would otherwise read as an option), ``--step`` (N, default ``step``), ``--json``."""
    parser.add_argument("--robot", default=robots.DEFAULT_HUMANOID)
    parser.add_argument("--directions", action="extend", nargs="+", choices=list(DIRECTIONS),
                        help="directions to sweep (default: all); a signed one as --directions=-y")
    parser.add_argument("--step", type=float, default=step, help="force grid, N")
    parser.add_argument("--json")


def swept_directions(args: argparse.Namespace) -> list[str]:
    """The directions ``--directions`` chose, all of them when it was not given."""
    return args.directions or list(DIRECTIONS)


def _prefix_limit(runs: list[dict], key: str, wanted: bool) -> float:
    """The largest force of the leading runs whose ``key`` is ``wanted`` (0 if the first is not)."""
    limit = 0.0
    for run in runs:
        if run[key] != wanted:
            break
        limit = run["force"]
    return limit
