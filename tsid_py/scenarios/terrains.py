"""The demos' terrains, from a short text (``tsid-py demo walk|trot --terrain ...``): one
parser for both demos, each demo sizing the terrain to its robot.

* ``flat`` — the floor alone (the default);
* ``slope:DEG`` — a slope of ``DEG`` degrees, ``0 < |DEG| < 60`` (negative: down,
  :meth:`~tsid_py.control.terrain.Terrain.slope`);
* ``steps:HEIGHT`` — three steps of ``HEIGHT`` m up (negative: down), a landing, three steps
  back (:meth:`~tsid_py.control.terrain.Terrain.steps`), ``0 < |HEIGHT| ≤ 0.3``;
* ``stairs:RISE`` — three steps of ``RISE`` m up and a landing
  (:meth:`~tsid_py.control.terrain.Terrain.stairs`);
* ``rough:AMPLITUDE[:SEED]`` — random ground within ``± AMPLITUDE`` m about its mean
  (:meth:`~tsid_py.control.terrain.Terrain.rough`; the draw seeded by ``SEED``, else by the
  demo's ``--seed``).

**The walk** (:func:`walk_terrain`): the terrain starts ahead of the robot's toes, farther by a
draw of ``U[0, 2 step_length)`` from the generator seeded with the run's seed (where the first
edge falls in the stride changes with the seed; the feet are on flat ground at the start);
the steps' treads are two gait steps deep (a foot lands once on each), the landing four.
**The trot** (:func:`trot_terrain`): the descriptions' own defaults (steps' treads 0.3 m).

Units: m, degrees in the text.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from ..control.terrain import Block, Terrain, tilt_rotation
from ..models.profile import profile_of

#: The text forms, as a usage message names them.
FORMS = "flat, slope:DEG, steps:HEIGHT, stairs:RISE or rough:AMPLITUDE[:SEED]"
#: Each kind's value, and whether a value is in its range.
RANGES = {"slope": ("DEG in (-60, 0) or (0, 60)", lambda x: 0 < abs(x) < 60),
          "steps": ("HEIGHT in m, non-zero, |HEIGHT| ≤ 0.3", lambda x: 0 < abs(x) <= 0.3),
          "stairs": ("RISE in m, in (0, 0.3]", lambda x: 0 < x <= 0.3),
          "rough": ("AMPLITUDE in m, in (0, 0.1]", lambda x: 0 < x <= 0.1)}


@dataclass(frozen=True)
class TerrainChoice:
    """A parsed ``--terrain``: its ``kind`` (a key of :data:`RANGES`), ``value`` (degrees or
    m) and, for rough ground, the draw's ``seed`` if the text gave one."""

    kind: str
    value: float
    seed: int | None = None

    def __str__(self) -> str:
        return f"{self.kind}:{self.value:g}" + ("" if self.seed is None else f":{self.seed}")


def parse_terrain(text: str) -> TerrainChoice | None:
    """The :class:`TerrainChoice` of ``text`` (None for ``flat``); ``ValueError`` saying what
    was expected and what was received (the option's argparse type)."""
    text = str(text)
    if text == "flat":
        return None
    kind, colon, rest = text.partition(":")
    values = rest.split(":") if colon else []
    if kind not in RANGES or not 1 <= len(values) <= (2 if kind == "rough" else 1):
        raise ValueError(f"must be {FORMS}, got {text!r}")
    expected, inside = RANGES[kind]
    try:
        number = float(values[0])
        seed = int(values[1]) if len(values) == 2 else None
    except ValueError:
        raise ValueError(f"{text!r}: {kind} needs {expected}" + (" and a whole-number SEED" if len(values) == 2
                                                                  else "")) from None
    if not math.isfinite(number) or not inside(number) or (seed is not None and seed < 0):
        raise ValueError(f"{text!r}: {kind} needs {expected}" + (", SEED ≥ 0" if kind == "rough" else ""))
    return TerrainChoice(kind, number, seed)


def trot_terrain(choice: TerrainChoice | None) -> Terrain | None:
    """The quadruped demo's terrain of ``choice`` (see the module; None: flat)."""
    if choice is None:
        return None
    kind, value = choice.kind, choice.value
    if kind == "slope":
        return Terrain.slope(value)
    if kind == "steps":
        return Terrain.steps(value, 0.3)
    if kind == "stairs":
        return Terrain.stairs(value)
    return Terrain.rough(value, seed=choice.seed or 0)


def walk_terrain(choice: TerrainChoice | None, robot, seed: int = 0) -> Terrain | None:
    """The walk demo's terrain of ``choice`` for ``robot`` (its profile's gait and sole) and
    the run's ``seed`` (see the module; None: flat)."""
    if choice is None:
        return None
    profile = profile_of(robot)
    step = profile.gait.step_length
    rng = np.random.default_rng(seed)
    toes = 0.5 * (profile.sole_size[0] if profile.sole_size else 2 * profile.foot_radius)
    start = toes + 0.1 + float(rng.uniform(0.0, 2.0 * step))
    return _build(choice, start=start, tread=2.0 * step, seed=int(rng.integers(2**31)))


def _build(choice: TerrainChoice, *, start: float, tread: float, seed: int) -> Terrain:
    kind, value = choice.kind, choice.value
    if kind == "slope":
        return Terrain.slope(value, start=start)
    if kind == "steps":
        return Terrain.steps(value, tread, start=start)
    if kind == "stairs":
        return Terrain.stairs(value, run=tread, start=start)
    return Terrain.rough(value, seed=seed if choice.seed is None else choice.seed, start=start)


def slope_stance(robot, degrees: float) -> tuple[np.ndarray, Terrain]:
    """A humanoid standing on a slope of ``degrees`` rising toward +x: ``robot.q_ref`` with
    each sole turned about its centre onto the slope (the base and the other joints kept; a
    Gauss-Newton on the joints, ``log6`` errors of the soles' frames), and the
    :class:`~tsid_py.control.terrain.Block` (2 m square) whose top face is that slope
    through the soles' centres, the floor 0.5 m below them (``(q, terrain)``)."""
    if robot.sole_size is None:
        raise ValueError(f"robot must stand on soles, got {robot.name!r} with point feet")
    if not abs(float(degrees)) < 60.0:
        raise ValueError(f"degrees must be in (-60, 60), got {degrees!r}")
    model, data = robot.model, robot.model.createData()
    frames = [robot.frame_id(foot) for foot in robot.feet]
    angle = math.radians(degrees)
    rotation = tilt_rotation([-math.sin(angle), 0.0, math.cos(angle)])
    q = robot.q_ref.copy()
    pin.framesForwardKinematics(model, data, q)
    targets = [pin.SE3(rotation @ data.oMf[i].rotation, data.oMf[i].translation.copy()) for i in frames]
    for _ in range(50):
        pin.computeJointJacobians(model, data, q)
        pin.updateFramePlacements(model, data)
        error = np.concatenate([pin.log6(data.oMf[i].actInv(target)).vector for i, target in zip(frames, targets)])
        if np.linalg.norm(error) < 1e-10:
            break
        jacobian = np.vstack([pin.getFrameJacobian(model, data, i, pin.LOCAL) for i in frames])
        jacobian[:, :6] = 0.0                                   # the base stays
        q = pin.integrate(model, q, np.linalg.lstsq(jacobian, error, rcond=None)[0])
    else:
        raise ValueError(f"{robot.name}: the legs cannot turn the soles onto a {degrees:g}° slope")
    pin.framesForwardKinematics(model, data, q)
    middle = np.mean([data.oMf[i].translation for i in frames], axis=0)
    half = np.array([1.0, 1.0, 0.05])
    block = Block(middle - rotation[:, 2] * half[2], half, rotation)
    return q, Terrain([block], floor=middle[2] - 0.5, name=f"slope:{degrees:g}")
