"""A biped's walk with its gait or its posture changed: what a smaller gait or a leaning stance gives.

    python benchmarks/walk_variants.py --robot PATH [--distance 2] [--gait LENGTH HEIGHT]
                                       [--lean EXTENSION] [--swing-pitch-weight W] [--rise H] [--json FILE]

The walk of ``tsid-py demo walk --robot PATH --distance D`` (:func:`tsid_py.scenarios.walk.run_walk`
with the demos' conditions: the controller on the state estimator, exact sensors), with the
profile changed by the options, none of which the library derives:

* ``--gait LENGTH HEIGHT``: the gait's step length and step height (m) instead of the
  profile's (a shuffle: short, low steps);
* ``--lean EXTENSION``: the posture is the stance of ``benchmarks/com_reach.py`` that brings
  the CoM furthest forward over the soles with the base free to pitch and each leg stretched
  at most ``EXTENSION`` of its straight length (the torso leaning forward as a person with
  stiff ankles does); the gait is then derived from that posture (:func:`derive_profile`),
  ``--gait`` still overriding its length and height;
* ``--swing-pitch-weight W``: the swing foot's task weighs its pitch ``W`` instead of the
  controller's swing weight (10): a foot free to tilt toes down in the air, as the mid-swing
  stances of ``benchmarks/com_reach.py`` do;
* ``--rise H``: the gait's ``com_rise`` (m) instead of the profile's (:func:`tsid_py.models.reach.com_rise`),
  the swing sole's tilt free (``free_swing_tilt``) when ``H > 0``; ``--rise 0`` is a level walk
  with a level swing sole.

Prints the demo's summary (distance, steps, fall) as one JSON line.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
from com_reach import BASES, furthest_forward, load_biped

import tsid_py.scenarios.walk as walk_module
from tsid_py.control.walking import WalkingController
from tsid_py.models.profile import derive_profile
from tsid_py.scenarios.demos import DEFAULT_CONDITIONS
from tsid_py.scenarios.reports import write_json
from tsid_py.scenarios.walk import run_walk


def swing_pitch_weighted(pitch_weight: float) -> type:
    """The walking controller with its swing tasks' weight about the world's y axis (the
    sole's pitch on a walk along x) set to ``pitch_weight``: a swing foot free to tilt toes
    down (the weight's other axes kept; the demo's run builds the controller itself, so the
    class is put in its place)."""

    class SwingPitchWeighted(WalkingController):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            for task in self.swing_tasks.values():
                weight = np.broadcast_to(np.asarray(task.weight, dtype=float), (6,)).copy()
                weight[4] = pitch_weight
                task.weight = weight

    return SwingPitchWeighted


KEYS = ("distance_m", "steps", "planned_steps", "fell", "fell_at", "fall_reason", "yaw_change_deg")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", required=True, help="a biped's URDF or MJCF file (or a built-in name)")
    parser.add_argument("--distance", type=float, default=2.0, help="m to walk (default 2)")
    parser.add_argument("--gait", type=float, nargs=2, metavar=("LENGTH", "HEIGHT"), help="step length and height, m")
    parser.add_argument("--lean", type=float, metavar="EXTENSION", help="stand leaning, legs at most this extended")
    parser.add_argument("--swing-pitch-weight", type=float, metavar="WEIGHT",
                        help="the swing foot task's weight about the walk's side axis (its pitch), the others kept")
    parser.add_argument("--rise", type=float, metavar="H", help="the CoM's rise in single support, m (0: level)")
    parser.add_argument("--json", help="write the summary to this file")
    args = parser.parse_args()
    robot, profile, q, feet, soles, middle = load_biped(parser, args.robot)
    result = {"robot": args.robot, "gait": args.gait, "lean": args.lean}
    if args.lean is not None:
        found = furthest_forward(robot.model, q, feet, soles, middle, turns=BASES["pitch"], max_extension=args.lean)
        if found is None:
            parser.error(f"--lean: no stance with the legs at most {args.lean} extended")
        robot.q_ref = np.array(found.pop("q"))
        profile = robot.profile = derive_profile(robot)
        result["stance"] = found
    if args.gait is not None:
        robot.profile = profile.with_(gait=profile.gait.with_(step_length=args.gait[0], step_height=args.gait[1]))
    if args.rise is not None:
        robot.profile = robot.profile.with_(gait=robot.profile.gait.with_(com_rise=args.rise,
                                                                          free_swing_tilt=args.rise > 0))
        result["rise"] = args.rise
    if args.swing_pitch_weight is not None:
        walk_module.WalkingController = swing_pitch_weighted(args.swing_pitch_weight)
        result["swing_pitch_weight"] = args.swing_pitch_weight
    summary, _, _ = run_walk(robot, distance=args.distance, conditions=DEFAULT_CONDITIONS)
    result.update({key: summary[key] for key in KEYS if key in summary})
    print(json.dumps(result))
    write_json(args.json, result)


if __name__ == "__main__":
    main()
