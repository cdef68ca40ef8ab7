"""Which feet stand: contact detection from force, confirmed by kinematics.

A foot counts as standing for the estimators while its normal force is above a threshold,
with hysteresis: it starts to stand when the force rises above ``on`` (N) and stops when it
falls below ``off`` < ``on``. The force is the measured one where the robot has force
sensors, else the one the controller planned at its last step (a foot being unloaded before
it lifts drops out before it leaves the ground; a landing foot joins once its contact
carries load). Kinematics confirm it: the estimators refuse a standing foot whose measured
position or orientation moves away from where it was put down by more than their noise
explains (a χ² gate, :mod:`~tsid_py.estimation.odometry`), and put it down anew if it keeps
doing so — a sole that slides or turns.
"""

from __future__ import annotations

import numpy as np


class ContactDetector:
    """Force thresholds with hysteresis for ``feet`` feet (see the module).

    Parameters
    ----------
    feet : number of feet.
    on, off : N; a foot stands from when its normal force exceeds ``on`` until it falls
        below ``off`` (0 ≤ off < on).
    """

    def __init__(self, feet: int, *, on: float, off: float):
        if not (np.isfinite(on) and np.isfinite(off) and 0.0 <= off < on):
            raise ValueError(f"the thresholds must satisfy 0 <= off < on, got on={on!r}, off={off!r}")
        self.on, self.off = float(on), float(off)
        #: 1.0 where a foot stands, else 0.0 (k,).
        self.stance = np.zeros(int(feet))

    def update(self, forces: np.ndarray) -> np.ndarray:
        """The stance flags after this period's normal ``forces`` (k,), N."""
        stance = self.stance
        for i, force in enumerate(forces):
            if stance[i] > 0.0:
                if force < self.off:
                    stance[i] = 0.0
            elif force > self.on:
                stance[i] = 1.0
        return stance

    def reset(self, stance=None) -> None:
        """No foot stands (or the given flags)."""
        self.stance[:] = 0.0 if stance is None else stance
