"""Solution of one control step."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np


@dataclass
class Solution:
    """What the solver found at one step.

    ``ddq`` (nv,) joint accelerations; ``tau`` (nv,) generalised forces with ``tau[:6] == 0``
    on a floating base; ``tau_actuated`` (na,) the motor torques; ``local_wrenches[name]``
    (6,) ``[f; m]`` exerted by the environment on the robot at the contact frame origin in
    the contact frame's axes, and :attr:`wrenches` the same in world-aligned axes (formed
    on first access from ``frame_rotations``, the contact frames' rotations at this step);
    ``x`` the raw QP variables ``[q̈; f_1; …; λ_1; …]``. ``ddq`` is a view of ``x``, ``tau_actuated``
    of ``tau``, and a planar contact's local wrench of its variables in ``x``: copy one to
    change it on its own.

    ``relaxed`` names what a control loop's failure policy gave up to produce this step
    (:class:`tsid_py.control.FailurePolicy`; then ``success`` is False); empty for a solve of
    the problem as posed.

    ``closure_forces[name]``: each closure's force ``λ`` (:mod:`tsid_py.closures`: N in world
    axes for a point closure, a wrench for a frame closure, a generalised force for a joint
    coupling), a view of ``x``.

    ``levels``: with priority levels (:mod:`tsid_py.hierarchy`), each level's
    :class:`~tsid_py.hierarchy.LevelOutcome` (residual, violation, whether it was met), in the
    order they were solved; :attr:`gave_way` names the levels that could not be met. Empty
    for the default problem (hard rows and a cost).
    """

    ddq: np.ndarray
    tau: np.ndarray
    tau_actuated: np.ndarray
    local_wrenches: dict[str, np.ndarray]
    frame_rotations: dict[str, np.ndarray] = field(repr=False)
    success: bool
    status: str
    x: np.ndarray = field(repr=False, default=None)
    iterations: int = 0
    relaxed: tuple[str, ...] = ()
    levels: tuple = ()
    closure_forces: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def gave_way(self) -> tuple:
        """The priorities of the levels that gave way (could not be met given the levels above
        them and the hard rows): a step that still succeeded, every level above them exact."""
        return tuple(level.priority for level in self.levels if level.gave_way)

    @cached_property
    def wrenches(self) -> dict[str, np.ndarray]:
        """``wrenches[name]`` (6,): ``[R f; R m]`` with ``R`` the contact frame's rotation,
        i.e. the wrench at the frame origin in world-aligned axes."""
        return {name: np.dot(wrench.reshape(2, 3), self.frame_rotations[name].T).ravel()
                for name, wrench in self.local_wrenches.items()}

    def refilled(self, status: str, iterations: int) -> None:
        """Mark this solution as refilled in place by a new step (the solver's
        ``solve(..., out=solution)``): its status and iterations are that step's, and
        :attr:`wrenches` is formed anew on next access."""
        self.status, self.iterations, self.success, self.relaxed = status, iterations, True, ()
        self.__dict__.pop("wrenches", None)

    @property
    def total_normal_force(self) -> float:
        """Σ of the world z components of the contact forces, N."""
        return float(sum(w[2] for w in self.wrenches.values()))
