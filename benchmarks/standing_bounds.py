"""The standing push bounds the push benchmarks scale their pushes by: the largest 0.1 s push
on the base at t = 1 s the balance controller survives standing on the ideal harness (with
every smaller one, on the sweep's grid), per robot and direction.

+x and +y are issue 28's table; −x and −y were measured with ``benchmarks/balance_sweep.py``
(Talos on a 20 N grid, G1 on a 10 N grid). A robot not in the table (a built-in name or a
robot file) has its bound measured now, the same way
(:func:`tsid_py.scenarios.sweep.sweep_direction` in the pushed direction, on a grid of 1/20
of the model's bound: about half a minute a direction), or taken from its model
(:func:`tsid_py.control.push_bounds`: the capture point reaching the soles' hull with the
centre of pressure at its edge; Talos 310 / 489 N and G1 139 / 212 N in +x / +y, within 10 %
above the measured ones; Romeo's 328 N in +y is 26 % above its measured 260 N).

Units: N.
"""

from __future__ import annotations

#: Measured standing bounds, N (see the module).
STANDING_BOUNDS = {"talos": {"+x": 280.0, "-x": 320.0, "+y": 460.0, "-y": 460.0},
                   "g1": {"+x": 130.0, "-x": 100.0, "+y": 200.0, "-y": 200.0}}
SOURCES = ("measured", "model")


def standing_bound(robot_name: str, direction: str, source: str = "measured") -> tuple[float, str]:
    """The standing bound (N) of a 0.1 s push on ``robot_name`` in ``direction`` (``"+x"``,
    ``"-x"``, ``"+y"``, ``"-y"``) and where it comes from: :data:`STANDING_BOUNDS`; else, for
    ``source="measured"``, measured now, or for ``source="model"`` the model's (see the
    module)."""
    if source not in SOURCES:
        raise ValueError(f"source must be one of {SOURCES}, got {source!r}")
    if robot_name in STANDING_BOUNDS:
        return STANDING_BOUNDS[robot_name][direction], "table"
    import tsid_py as tp
    from tsid_py.control import push_bounds
    from tsid_py.scenarios.sweep import sweep_direction

    robot = tp.robots.load(robot_name)
    model = float(push_bounds(robot, 0.1)[direction].cop_at_edge)
    if source == "model":
        return model, "model"
    grid = max(1.0, round(model / 20.0))
    return float(sweep_direction(robot, direction, step=grid)["survived_up_to"]), f"measured on a {grid:g} N grid"
