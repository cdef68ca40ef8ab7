"""The walk demo's terrains, from a short text: ``slope:DEG``, ``steps:HEIGHT``,
``rough:AMPLITUDE`` (``tsid-py demo walk --terrain ...``), sized to the robot.

* ``slope:DEG`` — a ramp of ``DEG`` degrees (negative: down) over the rest of the walk
  (:meth:`~tsid_py.terrain.Terrain.slope`, 4 m long), in ``(0, 30]`` in magnitude;
* ``steps:HEIGHT`` — three steps of ``HEIGHT`` m up (negative: down), a landing, three steps
  back (:meth:`~tsid_py.terrain.Terrain.steps`), each tread twice the gait's
  ``step_length`` deep (a foot lands once on each tread), the landing four; ``|HEIGHT|``
  at most 0.3 m;
* ``rough:AMPLITUDE`` — ground within ``±AMPLITUDE`` m (at most 0.1 m), bumps 0.2 m apart
  (:meth:`~tsid_py.terrain.Terrain.rough`).

Each starts ahead of the robot's toes, farther by a draw of ``U[0, 2 step_length)`` from the
generator seeded with ``seed`` (where the first edge falls in the stride, and the rough
ground's draw, change with the seed; the robot's feet are on flat ground at the start).

Units: m, degrees in the text.
"""

from __future__ import annotations

import numpy as np

from ..models.profile import profile_of
from ..terrain import Terrain

#: The terrain kinds of the text form, and the range each value must lie in.
KINDS = {"slope": "DEG in [-30, 0) or (0, 30]", "steps": "HEIGHT in m, non-zero, |HEIGHT| ≤ 0.3",
         "rough": "AMPLITUDE in m, in (0, 0.1]"}
#: The text forms, as a usage string names them.
FORMS = "slope:DEG, steps:HEIGHT or rough:AMPLITUDE"


def parse_terrain(text: str) -> tuple[str, float]:
    """``(kind, value)`` of a terrain's text form; ``ValueError`` saying what was expected
    and what was received."""
    kind, colon, value = str(text).partition(":")
    if not colon or kind not in KINDS:
        raise ValueError(f"must be {FORMS}, got {text!r}")
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{kind}: needs a number ({KINDS[kind]}), got {value!r}") from None
    bounds = {"slope": 0 < abs(number) <= 30, "steps": 0 < abs(number) <= 0.3, "rough": 0 < number <= 0.1}
    if not np.isfinite(number) or not bounds[kind]:
        raise ValueError(f"{kind}: needs {KINDS[kind]}, got {value!r}")
    return kind, number


def demo_terrain(text: str, robot, seed: int = 0) -> Terrain:
    """The terrain of ``text`` (see the module) for ``robot`` (its profile's gait and sole)
    and ``seed``."""
    kind, value = parse_terrain(text)
    profile = profile_of(robot)
    gait = profile.gait
    rng = np.random.default_rng(seed)
    toes = 0.5 * (profile.sole_size[0] if profile.sole_size else 2 * profile.foot_radius)
    start = toes + 0.1 + float(rng.uniform(0.0, 2.0 * gait.step_length))
    if kind == "slope":
        return Terrain.slope(value, start=start)
    if kind == "steps":
        tread = 2.0 * gait.step_length
        return Terrain.steps(value, tread, start=start, landing=2 * tread)
    return Terrain.rough(value, seed=int(rng.integers(2**31)), start=start)
