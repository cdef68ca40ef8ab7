"""Solution of one control step."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Solution:
    """What the solver found at one step.

    ``ddq`` (nv,) joint accelerations; ``tau`` (nv,) generalised forces with ``tau[:6] == 0``
    on a floating base; ``tau_actuated`` (na,) the motor torques; ``wrenches[name]`` (6,)
    ``[f; m]`` exerted by the environment on the robot at the contact frame origin in
    world-aligned axes, ``local_wrenches[name]`` the same in the contact frame's axes;
    ``x`` the raw QP variables ``[q̈; f_1; …]``. ``ddq`` is a view of ``x``, ``tau_actuated``
    of ``tau``, and a planar contact's local wrench of its variables in ``x``: copy one to
    change it on its own.
    """

    ddq: np.ndarray
    tau: np.ndarray
    tau_actuated: np.ndarray
    wrenches: dict[str, np.ndarray]
    local_wrenches: dict[str, np.ndarray]
    success: bool
    status: str
    x: np.ndarray = field(repr=False, default=None)
    iterations: int = 0

    @property
    def total_normal_force(self) -> float:
        """Σ of the world z components of the contact forces, N."""
        return float(sum(w[2] for w in self.wrenches.values()))
