"""How far forward a biped's legs can bring its CoM over flat soles, inside their joint ranges.

    python benchmarks/com_reach.py --robot PATH [--starts 4] [--parts double single mid-swing] [--json FILE]

A walk on flat soles needs the CoM over the soles (over their middle in double support, over
the stance sole in single support) with every joint inside its range (MuJoCo enforces them).
:mod:`tsid_py.models.reach` answers yes or no for the stances a gait asks; this script
measures the margin: the CoM's largest forward offset (m) the legs reach, by a constrained
optimisation over the base and the legs' joints from the robot's profile posture
(``tp.robots.load(PATH)``; SLSQP, the best of ``--starts`` starts, the posture and others
spread over the base's turns: a local search, so a lower bound on the true largest), the ranges shrunk by
:data:`~tsid_py.models.posture.LIMIT_MARGIN` as bounds, the soles held flat where they stand:

* **double support**, the CoM's forward offset from the soles' centres' middle, with the base
  held as it stands, free to pitch, or free to pitch and roll, and each leg stretched at most
  1.0, 0.99, 0.97 or 0.95 of its straight length (:mod:`tsid_py.models.legs`; a walk's legs
  are bent: the posture rule's 0.95, :data:`~tsid_py.models.posture.MAX_EXTENSION`);
* **single support**, the CoM's forward offset from the stance sole's centre (across the walk
  over it) with the other foot lifted flat by 0, 1, 2 cm and the gait's step height, the base
  held or free to pitch;
* **mid-swing**, the same with the other foot free to tilt (toes down, its knee bent, the hip
  hiked by the base's roll) above its standing place, every corner of its sole 1 or 2 cm clear
  of the floor, the base free to pitch (or pitch and roll) by at most 0.15 or 0.3 rad from how
  it stands, every leg up to straight.

A robot whose legs reach the walk gives offsets ≥ 0 (the CoM can be at or ahead of the soles'
centres); a negative offset larger than the sole's half length is off the sole.
"""

from __future__ import annotations

import argparse
import itertools

import numpy as np
import pinocchio as pin
from scipy.optimize import minimize

import tsid_py as tp
from tsid_py.models.legs import ankle_of, leg_geometry, point_of
from tsid_py.models.posture import joint_bounds, moved_configuration
from tsid_py.models.profile import profile_of
from tsid_py.models.reach import standing_soles, walk_axes
from tsid_py.scenarios.reports import write_json

EXTENSIONS = (1.0, 0.99, 0.97, 0.95)
BASES = {"held": (), "pitch": (4,), "pitch+roll": (3, 4)}
#: The starts after the first turn the base by -TURN … TURN (rad, evenly) about each free
#: axis, the legs' joints drawn at random in their ranges.
TURN = 0.6
#: Mid-swing (the swing foot beside its standing place, free to tilt, its sole this many m
#: clear of the floor) with the base turned at most MID_SWING_TURNS rad from how it stands.
SWING_CLEARANCES = (0.01, 0.02)
MID_SWING_TURNS = (0.15, 0.3)
PARTS = ("double", "single", "mid-swing")


def furthest_forward(model, q, feet, placements, stance, *, turns=(), max_extension=None, starts=4,
                     clearance=None, sole_size=None, max_turn=None):
    """The largest forward offset (m) of the CoM from the point ``stance`` (2,) the legs reach
    with the soles at ``placements``, the CoM across the walk over ``stance``, the base free to
    turn about its local axes ``turns`` (3: x, 4: y) and each leg stretched at most
    ``max_extension``; with the fit's base roll-pitch-yaw (deg), legs' extensions, the joints
    it leaves at a bound and its configuration ``q``. None when no start satisfies the
    constraints. A foot given as ``(x, y)`` instead of a placement is at mid-swing: its frame
    above that point, its sole rectangle (``sole_size``, centred on the frame) with every
    corner ``clearance`` m or more above the floor (z = 0), tilted as the legs' ranges allow. ``max_turn`` (rad): the base turns at
    most this much about each free axis from how it stands (None: unbounded)."""
    legs = [leg_geometry(model, q, foot) for foot in feet]
    lower, upper = model.lowerPositionLimit, model.upperPositionLimit
    joints = sorted({joint for leg in legs for joint in leg.joints if model.joints[joint].nq == 1
                     and upper[model.joints[joint].idx_q] > lower[model.joints[joint].idx_q] + 1e-9})
    index = np.array([model.joints[joint].idx_q for joint in joints])
    low, high = joint_bounds(lower[index], upper[index])
    data, frames = model.createData(), [model.getFrameId(foot) for foot in feet]
    base = pin.XYZQUATToSE3(q[:7])
    chains = [(leg.joints[0], ankle_of(model, leg), leg.straight_length) for leg in legs if leg.knee is not None]
    present = [placement for placement in placements if isinstance(placement, pin.SE3)]
    forward, left = (axis[:2] for axis in walk_axes([present[0], present[-1]]))
    free = 3 + len(turns)

    def configuration(x):
        twist = np.zeros(6)
        twist[:3], twist[list(turns)] = x[:3], x[3:free]
        trial = moved_configuration(q, base, index, np.r_[twist, x[free:]])
        pin.framesForwardKinematics(model, data, trial)
        return trial

    def com_offset(x):
        return pin.centerOfMass(model, data, configuration(x), False)[:2] - stance

    def extensions(x):
        configuration(x)
        return np.array([np.linalg.norm(point_of(data, end) - data.oMi[hip].translation) / straight
                         for hip, end, straight in chains])

    held = [(frame, target) for frame, target in zip(frames, placements) if isinstance(target, pin.SE3)]
    swinging = [(frame, np.asarray(target)) for frame, target in zip(frames, placements)
                if not isinstance(target, pin.SE3)]
    corners = (None if sole_size is None else
               np.array([[sx * sole_size[0] / 2, sy * sole_size[1] / 2, 0.0] for sx in (1, -1) for sy in (1, -1)]))

    def equalities(x):
        configuration(x)
        soles = [pin.log6(target.actInv(data.oMf[frame])).vector for frame, target in held]
        above = [data.oMf[frame].translation[:2] - xy for frame, xy in swinging]
        return np.r_[np.concatenate(soles + above), left @ com_offset(x)]

    def clearances(x):
        configuration(x)
        return np.concatenate([(corners @ data.oMf[frame].rotation.T + data.oMf[frame].translation)[:, 2] - clearance
                               for frame, _ in swinging])

    constraints = [{"type": "eq", "fun": equalities}]
    if swinging:
        constraints.append({"type": "ineq", "fun": clearances})
    if max_extension is not None:
        constraints.append({"type": "ineq", "fun": lambda x: max_extension - extensions(x)})
    turn_bound = (None, None) if max_turn is None else (-max_turn, max_turn)
    bounds = [(None, None)] * 3 + [turn_bound] * (free - 3) + list(zip(low, high))
    best = None
    turn_seeds = np.linspace(-TURN, TURN, max(starts - 1, 1))
    for start in range(starts):
        rng = np.random.default_rng(start)
        x0 = (np.r_[np.zeros(free), np.clip(q[index], low, high)] if start == 0
              else np.r_[rng.normal(0.0, 0.02, 3), np.full(free - 3, turn_seeds[start - 1]), rng.uniform(low, high)])
        x0 = np.clip(x0, [b[0] if b[0] is not None else -np.inf for b in bounds],
                     [b[1] if b[1] is not None else np.inf for b in bounds])
        result = minimize(lambda x: -forward @ com_offset(x), x0, method="SLSQP", bounds=bounds,
                          constraints=constraints, options={"maxiter": 300, "ftol": 1e-12})
        violation = np.abs(equalities(result.x)).max()
        if swinging:
            violation = max(violation, float(-np.min(clearances(result.x))))
        if max_extension is not None:
            violation = max(violation, float(np.max(extensions(result.x) - max_extension)))
        if violation < 1e-5 and (best is None or result.fun < best.fun):
            best = result
    if best is None:
        return None
    trial = configuration(best.x)
    rpy = np.degrees(pin.rpy.matrixToRpy(pin.XYZQUATToSE3(trial[:7]).rotation))
    at_limits = [model.names[joint] for joint, value, a, b in zip(joints, best.x[free:], low, high)
                 if min(value - a, b - value) < 1e-5]
    swing = {}
    if swinging:
        low_corners = clearances(best.x) + clearance
        swing = {"swing_clearance_m": round(float(np.min(low_corners)), 4),
                 "swing_pitch_deg": [round(float(np.degrees(pin.rpy.matrixToRpy(data.oMf[frame].rotation)[1])), 1)
                                     for frame, _ in swinging]}
    return {"forward_m": round(float(-best.fun), 4), "base_rpy_deg": np.round(rpy, 1).tolist(), **swing,
            "extensions": np.round(extensions(best.x), 3).tolist(), "at_limits": at_limits, "q": trial.tolist()}


def load_biped(parser: argparse.ArgumentParser, path: str):
    """The robot of ``--robot`` (a usage error, exit 2, when it does not load), its profile,
    the posture, the feet, the soles' placements there and their centres' middle (2,)."""
    try:
        robot = tp.robots.load(path)
    except (KeyError, ValueError) as error:
        parser.error(f"--robot: {error}")
    profile = profile_of(robot)
    q, feet = np.array(profile.posture), list(profile.feet)
    if len(feet) != 2 or profile.sole_size is None:
        parser.error(f"--robot: {path} does not stand on two soles (feet {feet})")
    soles = standing_soles(robot.model, q, feet)
    return robot, profile, q, feet, soles, 0.5 * (soles[0].translation[:2] + soles[1].translation[:2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", required=True, help="a biped's URDF or MJCF file (or a built-in name)")
    parser.add_argument("--starts", type=int, default=4, help="starts of each optimisation (default 4)")
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS), help="the stances to measure")
    parser.add_argument("--json", help="write the results to this file")
    args = parser.parse_args()
    robot, profile, q, feet, soles, middle = load_biped(parser, args.robot)
    model = robot.model
    print(f"{args.robot}: soles {profile.sole_size} m, gait step {profile.gait.step_length:.3f} m, "
          f"height {profile.gait.step_height:.3f} m")
    results = {"double": [], "single": [], "mid_swing": []}
    for base, turns in BASES.items() if "double" in args.parts else ():
        for extension in EXTENSIONS:
            found = furthest_forward(model, q, feet, soles, middle, turns=turns, max_extension=extension,
                                     starts=args.starts)
            if found:
                found.pop("q")
            results["double"].append({"base": base, "max_extension": extension, **(found or {"forward_m": None})})
            print(f"double support, base {base:10s} legs <= {extension:.2f}: "
                  + ("no fit" if found is None else f"CoM {100 * found['forward_m']:+.1f} cm from the soles' middle; "
                     f"base rpy {found['base_rpy_deg']} deg, legs {found['extensions']}, at limits {found['at_limits']}"),
                  flush=True)
    lifts = sorted({0.0, 0.01, 0.02, round(profile.gait.step_height, 4)}) if "single" in args.parts else ()
    for lift, (base, turns) in itertools.product(lifts, list(BASES.items())[:2]):
        for stance_index, foot in enumerate(feet):
            placements = [sole.copy() for sole in soles]
            placements[1 - stance_index].translation = placements[1 - stance_index].translation + [0.0, 0.0, lift]
            found = furthest_forward(model, q, feet, placements, soles[stance_index].translation[:2], turns=turns,
                                     starts=args.starts)
            if found:
                found.pop("q")
            results["single"].append({"stance": foot, "lift_m": lift, "base": base, **(found or {"forward_m": None})})
            print(f"single support on {foot}, other foot {100 * lift:.1f} cm up, base {base}: "
                  + ("no fit" if found is None else f"CoM {100 * found['forward_m']:+.1f} cm from its centre; "
                     f"base rpy {found['base_rpy_deg']} deg, legs {found['extensions']}, at limits {found['at_limits']}"),
                  flush=True)
    mid_swing = SWING_CLEARANCES if "mid-swing" in args.parts else ()
    for clearance, (base, turns), max_turn in itertools.product(mid_swing, list(BASES.items())[1:], MID_SWING_TURNS):
        for stance_index, foot in enumerate(feet):
            placements: list = [sole.copy() for sole in soles]
            placements[1 - stance_index] = soles[1 - stance_index].translation[:2].copy()
            found = furthest_forward(model, q, feet, placements, soles[stance_index].translation[:2], turns=turns,
                                     starts=args.starts, clearance=clearance, sole_size=profile.sole_size,
                                     max_turn=max_turn)
            if found:
                found.pop("q")
            results["mid_swing"].append({"stance": foot, "clearance_m": clearance, "base": base,
                                         "max_turn_rad": max_turn, **(found or {"forward_m": None})})
            print(f"mid-swing on {foot}, the other sole {100 * clearance:.0f} cm clear above its place, base {base} "
                  f"turned <= {max_turn} rad: " + ("no fit" if found is None else
                  f"CoM {100 * found['forward_m']:+.1f} cm from its centre; base rpy {found['base_rpy_deg']} deg, "
                  f"legs {found['extensions']}, swing sole {100 * found['swing_clearance_m']:.1f} cm up, pitched "
                  f"{found['swing_pitch_deg']} deg, at limits {found['at_limits']}"), flush=True)
    write_json(args.json, results)


if __name__ == "__main__":
    main()
