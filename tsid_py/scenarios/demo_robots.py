"""Which robot a demo runs: a built-in robot by name, or any URDF or MJCF file by path,
classified by its profile.

A robot file's kind is read off the profile :func:`tsid_py.robots.load` derives for it
(:mod:`tsid_py.models.profile`), never off its name:

* **humanoid**: a floating base on two feet with soles (``sole_size``);
* **quadruped**: a floating base on at least three point feet (spheres: no sole);
* **arm**: a fixed base with an end effector;
* anything else fits no demo, e.g. a point-footed biped (example-robot-data's Bolt: two
  point feet cannot stand still, their support is a line) or a robot on four soles.

Each demo needs one or more kinds (:data:`NEEDS`); :func:`demo_robot` loads the robot and
raises :class:`UnsupportedRobot` naming what the demo needs and what the robot is.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from .. import robots
from ..models.profile import profile_of


class DemoArgumentError(ValueError):
    """A demo's argument the robot cannot carry out (a walk longer than one plan holds, a speed
    beyond its legs' reach), found before the run: ``arguments`` names the demo's keyword
    arguments at fault, which are the command line's options of the same names."""

    def __init__(self, arguments: tuple[str, ...], message: str):
        super().__init__(message)
        self.arguments = tuple(arguments)

    @property
    def options(self) -> str:
        """The command line's options at fault, ``--speed/--lateral``."""
        return "/".join("--" + argument.replace("_", "-") for argument in self.arguments)


class UnsupportedRobot(DemoArgumentError):
    """A demo was asked to run a robot it is not written for (e.g. ``arm`` on Talos), or a
    robot file it cannot load: an error of its ``robot`` argument (or of ``arguments``)."""

    def __init__(self, message: str, arguments: tuple[str, ...] = ("robot",)):
        super().__init__(arguments, message)


#: What each kind is, for messages.
KINDS = {
    "humanoid": "a humanoid (a floating base on two feet with soles)",
    "quadruped": "a legged robot on point feet (a floating base on at least three)",
    "arm": "a fixed-base arm with an end effector",
}


def kind_of(robot) -> str | None:
    """``"humanoid"``, ``"quadruped"``, ``"arm"`` (see the module) or None."""
    profile = profile_of(robot)
    if not robot.floating_base:
        return "arm" if profile.end_effector else None
    if profile.sole_size is not None and len(profile.feet) == 2:
        return "humanoid"
    if profile.sole_size is None and len(profile.feet) >= 3:
        return "quadruped"
    return None


def describe(robot) -> str:
    """What ``robot`` is, in a few words: its base and feet."""
    profile = profile_of(robot)
    if not robot.floating_base:
        return "a fixed-base robot" + ("" if profile.end_effector else " without an end effector")
    if not profile.feet:
        return "a floating-base robot without feet"
    feet = "soles" if profile.sole_size is not None else "point feet"
    return f"a floating-base robot on {len(profile.feet)} {feet}"


def _built_in(condition: Callable[[robots.RobotSpec], bool]) -> tuple[str, ...]:
    return tuple(sorted(name for name, spec in robots.SPECS.items() if condition(spec)))


#: The built-in robots of each kind (from their recipes, without loading them).
BUILT_IN = {
    "humanoid": _built_in(lambda spec: spec.floating_base and spec.sole_size is not None),
    "quadruped": _built_in(lambda spec: spec.floating_base and spec.sole_size is None and len(spec.feet) >= 3),
    "arm": _built_in(lambda spec: not spec.floating_base),
}

#: The kinds of robot each demo runs.
NEEDS = {"balance": ("humanoid", "quadruped"), "com-sway": ("humanoid",), "single-leg": ("humanoid",),
         "reconstruct": ("humanoid",), "walk": ("humanoid",), "quadruped": ("quadruped",), "arm": ("arm",),
         "trot": ("quadruped",)}


def built_in_robots(demo: str) -> tuple[str, ...]:
    """The built-in robots ``demo`` runs."""
    return tuple(name for kind in NEEDS[demo] for name in BUILT_IN[kind])


def is_path(robot) -> bool:
    """Whether ``robot`` names a file (a path), not a built-in robot."""
    return isinstance(robot, os.PathLike) or (isinstance(robot, str) and robot not in robots.SPECS
                                              and (os.sep in robot or Path(robot).suffix != ""))


def demo_robot(robot, demo: str, *, srdf=None):
    """The :class:`~tsid_py.Robot` ``robot`` (a built-in name or a robot file's path, with
    ``srdf`` for a URDF's postures) for ``demo``; :class:`UnsupportedRobot` when it is not a
    kind the demo runs (:data:`NEEDS`), naming both."""
    needs = NEEDS[demo]
    wanted = " or ".join(KINDS[kind] for kind in needs)
    if not is_path(robot):
        if srdf is not None:
            raise UnsupportedRobot(f"srdf applies to a robot file, not to the built-in robot {robot!r}", ("srdf",))
        supported = built_in_robots(demo)
        if robot not in supported:
            raise UnsupportedRobot(f"robot must be {wanted}: a built-in one ({', '.join(supported)}) or a URDF "
                                   f"or MJCF file's path, got {robot!r}")
        return robots.load(robot)
    path = Path(os.fspath(robot))
    if not path.is_file():
        raise UnsupportedRobot(f"robot file {str(path)!r} " + ("is a folder, not a file" if path.is_dir()
                                                               else "does not exist"))
    try:
        loaded = robots.load(path, srdf=srdf)
    except (ValueError, KeyError) as error:
        raise UnsupportedRobot(f"{path}: cannot be loaded: {error}") from None
    if kind_of(loaded) not in needs:
        raise UnsupportedRobot(f"the {demo} demo needs {wanted}; {path} is {describe(loaded)}")
    return loaded
