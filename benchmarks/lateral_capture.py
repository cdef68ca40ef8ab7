"""The largest 0.1 s sideways push toward the stance foot a walk can catch, by the linear
inverted pendulum: with the stance sole alone, the two-step capture, or a crossover step
(:mod:`tsid_py.control.walking.capture_bounds`), and how far the legs can cross
(:mod:`tsid_py.models.crossing`).

    python benchmarks/lateral_capture.py [--robot g1 talos] [--phases 0 0.5] [--json FILE]

Everything from the model and the walking controller's defaults: ``ω`` and the CoM height,
the mass and the push's height (the base's CoM, where the harness pushes), the contact sole,
the step adjustment's narrowest stance and reach, the two-step capture's timing, the gait's
swing; the capture point at the push from the walk's own plan (3 m, the 5th swing, as
``benchmarks/walk_push.py`` pushes: at ``phase`` × the step period after its lift-off). The
crossing reach is the largest over the feet ``--splits`` m apart along the walk (either foot
ahead), fitted with the joint ranges as the posture fits keep them (0.02 rad inside) and with
the whole ranges.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from dataclasses import replace

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from walk_push import standing_bound  # noqa: E402

from tsid_py.scenarios.reports import write_json  # noqa: E402


def crossing(robot, splits, whole_ranges: bool):
    """The largest crossed stance over ``splits`` (the stance foot the second of the robot's
    feet), and the one just past it."""
    from tsid_py.collision_geometry import collision_model
    from tsid_py.models import posture
    from tsid_py.models.crossing import crossing_reach

    geometry = collision_model(robot)
    margin = posture.LIMIT_MARGIN
    try:
        if whole_ranges:
            posture.LIMIT_MARGIN = 0.0
        results = [crossing_reach(robot.model, robot.q_ref, geometry, robot.feet[1], robot.feet[0], split)
                   for split in splits]
    finally:
        posture.LIMIT_MARGIN = margin
    return max(results, key=lambda pair: (pair[0].feasible, pair[0].cross))


def first_touch_down(walker, plan, start: float) -> float:
    """The two-step's earliest first touch-down (s after the push) for a push ``start`` s
    after the 5th lift-off: as early as the swing foot, from the plan's swing there, reaches
    the first landing within step adjustment's acceleration bound
    (:meth:`~tsid_py.control.walking.sequence.StepSequence.earliest`), from the plan's capture
    point."""
    adjustment, sequence, omega = walker.adjustment, walker.sequence, walker.com.omega
    swing = plan.swings[4]
    t = swing.lift_off + start
    sample = swing.sample(t)
    state = plan.com_state(t)
    dcm = np.array(state[:2]) + np.array(state[3:5]) / omega

    def feasible(landing, duration):
        return adjustment.feasible(sample.placement.translation[:2], sample.velocity[:2], sample.acceleration[:2],
                                   landing, duration)

    return sequence.earliest(adjustment, dcm, omega, t, swing.touch_down, plan.footsteps[3], plan.footsteps[2],
                             plan.footsteps[4], feasible) - t


class PhaseError(ValueError):
    """A push instant the model does not cover (not during the swing)."""


def analyse(name: str, phases, splits) -> dict:
    import tsid_py as tp
    from tsid_py.control.walking import WalkingController
    from tsid_py.control.walking.capture_bounds import LateralCapture

    robot = tp.robots.load(name)
    walker = WalkingController(robot)
    adjustment, sequence, gait, omega = walker._default_adjustment(), walker._default_sequence(), walker.gait, walker.com.omega
    height = robot.gravity / omega**2
    robot.update(robot.q_ref, robot.zero_velocity())
    ground = float(np.mean([robot.frame_placement(robot.frame_id(foot)).translation[2] for foot in robot.feet]))
    push_height = float(robot.data.oMi[1].act(robot.model.inertias[1].lever)[2]) - ground
    reach, past = crossing(robot, splits, whole_ranges=False)
    whole, whole_past = crossing(robot, splits, whole_ranges=True)
    plan = walker.walk_distance(3.0)
    inner = adjustment.min_width if sequence.inner_width is None else sequence.inner_width
    swing, stance, lifted = plan.swings[4], plan.footsteps[3], plan.footsteps[2]
    across = np.array([-math.sin(stance.yaw), math.cos(stance.yaw)])
    outward = across if across @ (stance.xy - lifted.xy) > 0 else -across
    period = gait.single_support + gait.double_support
    late = [phase for phase in phases if not 0.0 <= phase * period < swing.touch_down - swing.lift_off]
    if late:
        raise PhaseError(f"--phases must put the push within the swing, in [0, "
                         f"{(swing.touch_down - swing.lift_off) / period:.3f}) step periods for {name} "
                         f"(its swing {swing.touch_down - swing.lift_off:.3f} s of a {period:.3f} s step), got {late}")
    rows = []
    for cross_reach, label in ((reach.cross if reach.feasible else 0.0, "margin"),
                               (whole.cross if whole.feasible else 0.0, "whole ranges")):
        capture = LateralCapture(omega=omega, push_gain=push_height / height / (robot.mass * omega**2),
                                 half_width=0.5 * walker._contact_sole()[1], inner_width=inner,
                                 reach=adjustment.max_width, cross_reach=cross_reach, swing=gait.single_support,
                                 earliest=adjustment.earliest * gait.single_support,
                                 first_time=first_touch_down(walker, plan, 0.0),
                                 hand_over=sequence.double, quick_swing=sequence.single)
        push = 0.5 * standing_bound(name, "+y")[0]
        for phase in phases:
            start = phase * period
            state = plan.com_state(swing.lift_off + start)
            dcm = float(outward @ (np.array(state[:2]) + np.array(state[3:5]) / omega - stance.xy))
            capture = replace(capture, first_time=first_touch_down(walker, plan, start))
            bounds = capture.bounds(start, dcm)
            rows.append({"ranges": label, "push_at_s": round(start, 3), "dcm_m": round(dcm, 4),
                         **{key: round(value, 1) for key, value in bounds.items()},
                         "half_bound_N": push, "crossing_needed_m": round(capture.crossing_needed(start, dcm, push), 3),
                         "cross_reach_m": round(cross_reach, 3)})
    capture = replace(capture, cross_reach=reach.cross if reach.feasible else 0.0, first_time=first_touch_down(walker, plan, 0.0))
    state = plan.com_state(swing.lift_off)
    dcm = float(outward @ (np.array(state[:2]) + np.array(state[3:5]) / omega - stance.xy))
    first = capture.first_time
    sensitivity = {  # at the lift-off: the first touch-down, the quick swing and the first landing varied
        "two_step_N": [{"first_touch_down_s": round(moment, 4), "quick_swing_s": round(quick, 4), "inner_width_m": width,
                        "bound_N": round(replace(capture, first_time=moment, quick_swing=quick, inner_width=width)
                                         .bounds(0.0, dcm)["two_step"], 1)}
                       for moment in (first, 0.8 / omega) for quick in (sequence.single, 0.8 / omega)
                       for width in (adjustment.min_width, inner)],
        "crossing_needed_m": [{"touch_down_s": moment, "for_N": push, "cross_m": round(replace(
            capture, earliest=moment, first_time=min(moment, first)).crossing_needed(0.0, dcm, push), 3)}
            for moment in (first, 0.25, 0.3, adjustment.earliest * gait.single_support)]}
    return {"robot": name, "omega": round(omega, 4), "com_height_m": round(height, 4), "push_height_m": round(push_height, 4),
            "mass_kg": round(robot.mass, 2), "half_width_m": 0.5 * walker._contact_sole()[1],
            "inner_width_m": round(inner, 4), "first_touch_down_s": round(first, 4),
            "quick_swing_s": round(sequence.single, 4), "reach_m": round(adjustment.max_width, 4),
            "crossing": {"margin": _crossed(reach, past), "whole_ranges": _crossed(whole, whole_past)},
            "sensitivity": sensitivity, "rows": rows}


def _crossed(best, past) -> dict:
    return {"reach_m": round(best.cross, 3) if best.feasible else None, "split_m": best.split,
            "clearance_m": round(best.clearance, 4), "stopped_by": {"joints": list(past.fit.at_limits),
                                                                   "reached": past.fit.reached,
                                                                   "clearance_m": round(past.clearance, 4),
                                                                   "closest": list(past.closest)}}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", nargs="+", default=["g1", "talos"],
                        help="built-in robots or robot files (half the standing bound: walk_push.standing_bound)")
    parser.add_argument("--phases", type=float, nargs="+", default=[0.0, 0.4, 0.5],
                        help="push instants after the 5th lift-off, in step periods")
    parser.add_argument("--splits", type=float, nargs="+", default=[-0.3, -0.2, 0.2, 0.3],
                        help="crossed feet this far apart along the walk, m")
    parser.add_argument("--json", help="write the report here")
    args = parser.parse_args(argv)
    try:
        report = {"robots": [analyse(name, args.phases, args.splits) for name in args.robot]}
    except PhaseError as error:
        parser.error(str(error))
    for entry in report["robots"]:
        print(json.dumps({key: value for key, value in entry.items() if key != "rows"}))
        for row in entry["rows"]:
            print("  ", json.dumps(row))
    write_json(args.json, report)
    return report


if __name__ == "__main__":
    main()
