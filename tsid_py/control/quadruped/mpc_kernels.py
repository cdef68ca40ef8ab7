r"""The condensed MPC's cost in compiled code, from its structure instead of the dense ``Φ``.

:meth:`~.mpc.CentroidalMPC.condensed` forms ``Φ`` (``12N × m``) and the cost is
``H = 2 (Φᵀ Q̄ Φ + α I)``, ``h = 2 Φᵀ Q̄ (F − X^{ref})``: ``O(N m²)`` products, most of them
with zeros. Each column ``c`` of ``Φ`` (a force variable of interval ``j_c`` with angular and
linear accelerations ``w_c``, ``l_c`` per newton) acts on the states ``a > j_c`` only, as

.. math::

    Φ_a^Θ = δ² (C_a − D_c) w_c,\quad Φ_a^p = δ² (a − α_c) l_c,\quad Φ_a^ω = δ w_c,\quad Φ_a^{\dot p} = δ l_c

with ``D_c = C_{j_c} + E_{j_c}/2`` and ``α_c = j_c + ½``. So ``H_{cd}`` sums over
``a ≥ s = max(j_c, j_d) + 1`` only, and every sum is a suffix sum computed once: with
``u_c = D_c w_c``, ``n_s = N − s + 1``, ``S_k = Σ_{a ≥ s} a^k``,

.. math::

    \tfrac12 H_{cd} = δ⁴ [w_cᵀ (Σ C_aᵀ Q_Θ C_a) w_d − u_cᵀ Q_Θ (Σ C_a) w_d
                       − w_cᵀ (Σ C_a)ᵀ Q_Θ u_d + n_s u_cᵀ Q_Θ u_d]
      + δ⁴ (S_2 − (α_c + α_d) S_1 + α_c α_d S_0)\, l_cᵀ Q_p l_d
      + δ² n_s (w_cᵀ Q_ω w_d + l_cᵀ Q_{\dot p} l_d) + α [c = d]

and ``h`` likewise from suffix sums of the weighted residuals ``e_a = Q (F_a − x_a^{ref})``.
``tests/test_quadruped_mpc.py`` checks both against the dense definition.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def condensed_cost(intervals, angular, linear, E, C, Q, alpha, delta, residual, H, h):
    """Write ``H`` (m, m) and ``h`` (m,) of the module from the variables' ``intervals`` (m,,
    non-decreasing),
    their ``angular`` and ``linear`` accelerations per newton (m, 3), ``E`` (N, 3, 3),
    ``C`` (N + 1, 3, 3), the state weights ``Q`` (12,), the force weight ``alpha``, the interval
    ``delta`` and the free response's ``residual`` ``F − X^{ref}`` (N, 12)."""
    N, m = E.shape[0], intervals.shape[0]
    d2, d4 = delta * delta, delta**4
    # suffix sums over a = s..N (index s = 1..N; s = N + 1 is empty)
    cqc = np.zeros((N + 2, 3, 3))
    csum = np.zeros((N + 2, 3, 3))
    s0, s1, s2 = np.zeros(N + 2), np.zeros(N + 2), np.zeros(N + 2)
    t_theta_c, t_theta = np.zeros((N + 2, 3)), np.zeros((N + 2, 3))
    t_p1, t_p0, t_w, t_v = np.zeros((N + 2, 3)), np.zeros((N + 2, 3)), np.zeros((N + 2, 3)), np.zeros((N + 2, 3))
    for s in range(N, 0, -1):
        for i in range(3):
            for k in range(3):
                value = 0.0
                for r in range(3):
                    value += C[s, r, i] * Q[r] * C[s, r, k]
                cqc[s, i, k] = cqc[s + 1, i, k] + value
                csum[s, i, k] = csum[s + 1, i, k] + C[s, i, k]
        s0[s], s1[s], s2[s] = s0[s + 1] + 1.0, s1[s + 1] + s, s2[s + 1] + s * s
        for i in range(3):
            e_theta = Q[i] * residual[s - 1, i]
            t_theta[s, i] = t_theta[s + 1, i] + e_theta
            e_p = Q[3 + i] * residual[s - 1, 3 + i]
            t_p0[s, i] = t_p0[s + 1, i] + e_p
            t_p1[s, i] = t_p1[s + 1, i] + s * e_p
            t_w[s, i] = t_w[s + 1, i] + Q[6 + i] * residual[s - 1, 6 + i]
            t_v[s, i] = t_v[s + 1, i] + Q[9 + i] * residual[s - 1, 9 + i]
        for i in range(3):
            value = 0.0
            for r in range(3):
                value += C[s, r, i] * Q[r] * residual[s - 1, r]
            t_theta_c[s, i] = t_theta_c[s + 1, i] + value
    # per variable: u_c = D_c w_c, α_c, and at its own s_c = j_c + 1 (the variables come in
    # intervals' order, so for c ≤ d, s = max(j_c, j_d) + 1 = s_d): Σ C_aᵀ Q_Θ C_a w_c,
    # Σ C_a w_c and (Σ C_a)ᵀ Q_Θ u_c
    u = np.empty((m, 3))
    offset = np.empty(m)
    cqc_w, sc_w, scq_u = np.zeros((m, 3)), np.zeros((m, 3)), np.zeros((m, 3))
    for c in range(m):
        j = intervals[c]
        offset[c] = j + 0.5
        for i in range(3):
            value = 0.0
            for k in range(3):
                value += (C[j, i, k] + 0.5 * E[j, i, k]) * angular[c, k]
            u[c, i] = value
        s = j + 1
        for i in range(3):
            for k in range(3):
                cqc_w[c, i] += cqc[s, i, k] * angular[c, k]
                sc_w[c, i] += csum[s, i, k] * angular[c, k]
                scq_u[c, i] += csum[s, k, i] * Q[k] * u[c, k]
    for c in range(m):
        jc = intervals[c]
        for d in range(c, m):
            s = intervals[d] + 1
            theta, lin_p, ang_w, lin_v = 0.0, 0.0, 0.0, 0.0
            for i in range(3):
                theta += (angular[c, i] * cqc_w[d, i] - u[c, i] * Q[i] * sc_w[d, i] - angular[c, i] * scq_u[d, i]
                          + s0[s] * u[c, i] * Q[i] * u[d, i])
                lin_p += linear[c, i] * Q[3 + i] * linear[d, i]
                ang_w += angular[c, i] * Q[6 + i] * angular[d, i]
                lin_v += linear[c, i] * Q[9 + i] * linear[d, i]
            sums = s2[s] - (offset[c] + offset[d]) * s1[s] + offset[c] * offset[d] * s0[s]
            value = d4 * (theta + sums * lin_p) + d2 * s0[s] * (ang_w + lin_v)
            H[c, d] = H[d, c] = 2.0 * value
        H[c, c] += 2.0 * alpha
        s = jc + 1
        value = 0.0
        if s <= N:
            for i in range(3):
                value += d2 * (angular[c, i] * t_theta_c[s, i] - u[c, i] * t_theta[s, i])
                value += d2 * linear[c, i] * (t_p1[s, i] - offset[c] * t_p0[s, i])
                value += delta * (angular[c, i] * t_w[s, i] + linear[c, i] * t_v[s, i])
        h[c] = 2.0 * value


@njit(cache=True, inline="always")
def variable_accelerations(steps, feet, levers, frames, inverse, mass, angular, linear):
    """Each variable's accelerations per newton: for the force of foot ``feet[p]`` in interval
    ``steps[p]`` along its ground frame's axis ``a`` (``G e_a``, ``G = frames[foot]``), row
    ``3 p + a`` of ``angular`` is ``I_w⁻¹ (r × G e_a)`` (``inverse[step]``, ``r =
    levers[step, foot]``) and of ``linear`` ``G e_a / m``."""
    for p in range(steps.shape[0]):
        k, i = steps[p], feet[p]
        rx, ry, rz = levers[k, i, 0], levers[k, i, 1], levers[k, i, 2]
        for a in range(3):
            gx, gy, gz = frames[i, 0, a], frames[i, 1, a], frames[i, 2, a]
            tx, ty, tz = ry * gz - rz * gy, rz * gx - rx * gz, rx * gy - ry * gx
            row = 3 * p + a
            for r in range(3):
                angular[row, r] = inverse[k, r, 0] * tx + inverse[k, r, 1] * ty + inverse[k, r, 2] * tz
            linear[row, 0], linear[row, 1], linear[row, 2] = gx / mass, gy / mass, gz / mass


@njit(cache=True, inline="always")
def sample_plan(states, rates, curvatures, k, tau, out):
    """``out = states[k] + τ (rates[k] + τ/2 curvatures[k])``: the plan's state (12,) ``τ`` s
    into interval ``k`` (:meth:`~.mpc.MPCPlan.state`)."""
    for i in range(out.shape[0]):
        out[i] = states[k, i] + tau * (rates[k, i] + 0.5 * tau * curvatures[k, i])
