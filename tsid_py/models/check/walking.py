"""The model check of a biped's walk: whether its legs reach the stances its gait asks for.

A robot on two soles walks with the gait of its profile (:mod:`tsid_py.models.gait`, its
width and length already brought within the legs' reach where some are,
:mod:`tsid_py.models.reach`). Two stances are tested at the standing posture, soles flat and
the legs' joints inside their ranges: the CoM over each sole at the walk's step width
(``walk-out-of-reach``), and the feet one step length apart with the CoM between them
(``step-out-of-reach``). When a fit cannot reach one, the finding names the joints its best
fit leaves at the ends of their ranges — the joints whose ranges stop the walk.

Two stances are weighed against the torque limits: the CoM over one sole
(``single-support-near-torque-limits``), and the stance leg of a step down as high as the
gait's swing clearance (``stance-knee-down-a-step``): walking down, the stance leg must
shorten by about the drop before the swing foot reaches the lower foothold (the front leg has
little reach to spare at touch-down), so its knee carries the robot bent further.
"""

from __future__ import annotations

from ..legs import leg_geometry
from ..posture import posture_at_extension, single_support_knee_share
from ..reach import between_soles, over_each_sole, stance, standing_soles
from .report import Finding, finding
from .torques import TORQUE_MARGIN, static_torque_ratio
from .urdf_text import listed


def walking_findings(robot, file: str) -> list[Finding]:
    """The findings of the module for ``robot`` (none unless it stands on two soles)."""
    profile = getattr(robot, "profile", None)
    if profile is None or not robot.floating_base or robot.sole_size is None or len(robot.feet) != 2:
        return []
    model, q, feet, gait = robot.model, robot.q_ref, list(robot.feet), profile.gait
    soles = standing_soles(model, q, feet)
    found = []
    sway = over_each_sole(model, q, feet, stance(soles, width=gait.step_width))
    missed = [(foot, result) for foot, result in zip(feet, sway) if not result.reached]
    if missed:
        joints = sorted({name for _, result in missed for name in result.at_limits})
        found.append(finding(
            "warning", "walk-out-of-reach", file, f"joints {listed(joints)}" if joints else "the legs",
            "with the soles flat and the joints inside their ranges, the legs cannot put the centre of mass over "
            + " or ".join(f"{foot!r} ({_fit(result)})" for foot, result in missed)
            + " at the walk's width; " + (f"the fit leaves {listed(joints)} at the end of their ranges" if joints
                                           else "no joint is at a limit: the legs have no motion that takes it there "
                                                "(legs without a hip roll cannot sway)") + _vault(gait),
            "a walk needs its CoM over each sole in turn: check these joints' ranges in the file (and the "
            "mirrored leg's); narrower steps (Gait.step_width) ask less of the hips", None,
            joints=joints, com_error_m=[result.com_error for _, result in missed]))
    found += _single_support_torques(robot, profile, feet, sway, file)
    found += _down_a_step(robot, gait, feet, file)
    steps = between_soles(model, q, feet, soles, gait.step_length, gait.step_width)
    if not all(result.reached for result in steps):
        joints = sorted({name for result in steps if not result.reached for name in result.at_limits})
        worst = max(steps, key=lambda result: result.feet_error + result.com_error)
        found.append(finding(
            "warning", "step-out-of-reach", file, f"joints {listed(joints)}" if joints else "the legs",
            f"with the soles flat and the joints inside their ranges, the legs cannot hold the feet one step "
            f"({gait.step_length:.3f} m) apart with the centre of mass between them, nor any shorter step the "
            f"gait rule tried ({_fit(worst)}); the fit leaves {listed(joints) or 'no joint'} at the end of "
            "their ranges, and a walk on flat soles at a constant height falls" + _vault(gait),
            "check these joints' ranges in the file against the robot's (and the mirrored leg's): a walk needs "
            "each ankle and hip to turn both ways from standing", None,
            joints=joints, step_length_m=gait.step_length))
    return found


def _single_support_torques(robot, profile, feet, sway, file: str) -> list[Finding]:
    """``single-support-near-torque-limits``: the least share of the torque limits that holds
    the robot on one sole, its CoM over it (the reached fits of ``sway``; the contact
    wrenches of that sole alone, :func:`~.torques.static_torque_ratio`), above
    :data:`~.torques.TORQUE_MARGIN` for either sole. What is left of the limit is all a walk
    has for its dynamics: the sway's acceleration, a slope's bent knee, a push."""
    worst = None
    for foot, result in zip(feet, sway):
        if not result.reached:
            continue
        held = static_torque_ratio(robot, result.configuration, profile.balance.mu, feet=[foot])
        if held is not None and (worst is None or held["ratio"] > worst[1]["ratio"]):
            worst = (foot, held)
    if worst is None or worst[1]["ratio"] <= TORQUE_MARGIN:
        return []
    foot, held = worst
    if not held["ratio"] < float("inf"):
        text = f"no wrench of {foot!r} alone holds the robot still with its centre of mass over that sole"
        values = {"ratio": held["ratio"], "foot": foot}
    else:
        text = (f"standing on {foot!r} alone with the centre of mass over it (a walk's single support, at its width) "
                f"needs at least {held['ratio']:.2f} of the torque limits: joint {held['joint']!r} "
                f"{abs(held['torque']):.4g} N·m of its {held['limit']:.4g} N·m")
        values = {"ratio": held["ratio"], "joint": held["joint"], "torque": held["torque"], "limit": held["limit"],
                  "foot": foot}
    return [finding(
        "warning", "single-support-near-torque-limits", file, f"joint {held['joint']!r}" if held["joint"] else foot,
        text + ": what is left is all a walk has for the sway's acceleration, a slope's bent knee or a push (the QP "
        "holds the limits, so the CoM lags its plan where they bind)",
        "check the joint's <limit effort> against the real actuator; expect slopes, steps and pushes during a walk "
        "to fail before the pendulum's bounds", None, **values)]


def _down_a_step(robot, gait, feet, file: str) -> list[Finding]:
    """``stance-knee-down-a-step``: the knee's share of its torque limit holding the robot on
    one sole (:func:`~tsid_py.models.posture.single_support_knee_share`) with the legs
    shortened by the gait's ``step_height`` (:func:`~tsid_py.models.posture.posture_at_extension`:
    ``e − h / ℓ_s``), above :data:`~.torques.TORQUE_MARGIN`."""
    model, q = robot.model, robot.q_ref
    legs = [leg_geometry(model, q, foot) for foot in feet]
    if any(leg.knee is None for leg in legs):
        return []
    drop = gait.step_height
    extension = min(leg.extension for leg in legs) - drop / min(leg.straight_length for leg in legs)
    standing = single_support_knee_share(model, q, feet)
    share = single_support_knee_share(model, posture_at_extension(model, q, feet, extension), feet)
    if share <= TORQUE_MARGIN:
        return []
    knee = model.names[legs[0].knee]
    return [finding(
        "warning", "stance-knee-down-a-step", file, f"joint {knee!r}",
        f"a knee holds the robot on one sole with {standing:.2f} of its torque limit standing, and with "
        f"{share:.2f} with the legs {drop * 100:.1f} cm shorter (a step down as high as the gait's swing clearance, "
        f"the stance leg bent to {extension:.3f} of its straight length): walking down a step or a slope the "
        "stance knee saturates and the CoM sinks below its plan",
        "check the knee's <limit effort> against the real actuator; expect steps and slopes down to fail", None,
        joint=knee, share=share, standing_share=standing, step_m=drop, extension=extension)]


def _vault(gait) -> str:
    """What the profile's gait does about it, when it vaults (:func:`~tsid_py.models.reach.com_rise`)."""
    if not gait.com_rise:
        return ""
    return (f"; the derived gait vaults: its CoM rises {gait.com_rise * 100:.1f} cm in each single support, the swing "
            "sole free to tilt (Gait.com_rise, Gait.free_swing_tilt)")


def _fit(result) -> str:
    """The best fit's errors, in words."""
    return f"best fit, base upright: soles {result.feet_error * 1000:.1f} mm off, CoM {result.com_error * 1000:.1f} mm off"
