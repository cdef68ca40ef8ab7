r"""Where a swinging foot lands: the Raibert heuristic with capture-point feedback.

A foot on the ground sweeps backward under the body for its stance time ``T_st``; landing it
where its hip will be at the middle of that stance makes the sweep symmetric about the hip,
so that a body moving at the commanded velocity keeps its feet under it (Raibert, "Legged
Robots That Balance", 1986). A body moving at another velocity is caught by the
**capture-point** term: a linear inverted pendulum of height ``h`` moving ``Δv`` too fast
comes to rest over a point ``√(h/g) Δv`` ahead (its capture point, Pratt et al. 2006), so the
foot lands that much farther along ``Δv``. On a turn the body's centripetal acceleration
``v × ω`` asks the feet ``h/(2g) (v × ω)`` outward. In the world's horizontal plane:

.. math::

    p_{foot} = p_{com}(t_{td}) + R_z(ψ_{mid})\, o_i + \frac{T_{st}}{2} v^{cmd}
               + \sqrt{h/g}\,(v − v^{cmd}) + \frac{h}{2g}\, v^{cmd} × ω^{cmd}

with ``o_i`` the foot's neutral foothold relative to the CoM in the heading frame
(:class:`~.geometry.Leg`), ``p_com(t_td) = p_com + v (t_td − t)`` the CoM where it will be at
touch-down (moving at the measured velocity), ``ψ_mid`` the heading at the middle of the
stance (the commanded yaw rate), and ``v``, ``v^cmd`` horizontal. The landing point is kept
within the leg's reach of the neutral point (:attr:`~.geometry.QuadrupedGeometry.reach`).

Units: m, s, rad.
"""

from __future__ import annotations

import math

import numpy as np


def raibert_foothold(com_xy, velocity_xy, command_xy, yaw_rate: float, yaw: float, neutral_xy,
                     time_to_touchdown: float, stance_time: float, height: float, gravity: float,
                     reach: float) -> np.ndarray:
    """The landing point (x, y) of the module's formula.

    Parameters
    ----------
    com_xy, velocity_xy : the CoM and its velocity now (2,), world, m and m/s.
    command_xy : the commanded velocity (2,), world axes, m/s.
    yaw_rate : the commanded yaw rate, rad/s; ``yaw``: the heading now, rad.
    neutral_xy : the foot's neutral foothold relative to the CoM, heading frame (2,), m.
    time_to_touchdown, stance_time : s (the stance that follows the landing).
    height, gravity : the CoM's height (m) and gravity (m/s²) of the pendulum.
    reach : largest distance (m) of the landing point from the neutral point.
    """
    com_xy, velocity_xy, command_xy = (np.asarray(a, dtype=float) for a in (com_xy, velocity_xy, command_xy))
    t_td = max(float(time_to_touchdown), 0.0)
    heading = yaw + yaw_rate * (t_td + 0.5 * stance_time)
    c, s = math.cos(heading), math.sin(heading)
    neutral = np.array([c * neutral_xy[0] - s * neutral_xy[1], s * neutral_xy[0] + c * neutral_xy[1]])
    centre = com_xy + velocity_xy * t_td + neutral
    offset = (0.5 * stance_time * command_xy + math.sqrt(height / gravity) * (velocity_xy - command_xy)
              + 0.5 * height / gravity * yaw_rate * np.array([command_xy[1], -command_xy[0]]))
    # v × ω with ω = (0, 0, ω_z): (v_y ω_z, −v_x ω_z)
    distance = float(np.hypot(*offset))
    if distance > reach:
        offset *= reach / distance
    return centre + offset
