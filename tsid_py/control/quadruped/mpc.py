r"""Convex model-predictive control of the centroidal dynamics: ground-reaction forces over a
horizon (Di Carlo et al., "Dynamic locomotion in the MIT Cheetah 3 through convex MPC", 2018).

**Model.** The robot is one rigid body of mass ``m`` and inertia ``I`` (its centroidal
composite inertia, base frame) pushed by the forces ``f_i`` of its feet on the ground, at the
feet's positions ``r_i`` relative to the CoM. The state ``x = [Θ, p, ω, ṗ]`` ∈ ℝ¹² stacks the
base's roll, pitch, yaw ``Θ``, the CoM ``p`` (world), the angular velocity ``ω`` (world) and
the CoM velocity. With roll and pitch small and the yaw ``ψ`` taken from the reference,

.. math::

    \dot Θ = R_z(ψ)^T ω, \qquad \dot p = \dot p, \qquad
    \dot ω = I_w^{-1} \sum_i r_i × f_i, \qquad \ddot p = \frac{1}{m}\sum_i f_i + g,

``I_w = R_z(ψ) I R_z(ψ)ᵀ``: ``ẋ = A_c x + B_c u + g̃``, linear in ``x`` and in the forces ``u``.
``A_c`` maps velocities to positions only, so ``A_c A_c' = 0`` for any two such matrices and
the zero-order-hold discretisation over an interval ``δ`` is exact in closed form:
``A = I + δ A_c``, ``B = (δ I + δ²/2 A_c) B_c``. Over ``N`` intervals the states are then
affine in the stacked forces ``U`` (the **condensed** form), with ``E_l = R_z(ψ_l)ᵀ`` and
``C_a = Σ_{l<a} E_l``:

.. math::

    Θ_a &= Θ_0 + δ C_a ω_0 + δ² \sum_{j<a} (C_a − C_j − E_j/2)\, \dot ω_j \\
    p_a &= p_0 + a δ \dot p_0 + \tfrac{a²δ²}{2} g + δ² \sum_{j<a} (a − j − \tfrac12)\, \ddot p_j \\
    ω_a &= ω_0 + δ \sum_{j<a} \dot ω_j, \qquad \dot p_a = \dot p_0 + a δ g + δ \sum_{j<a} \ddot p_j

(``ω̇_j``, ``p̈_j`` the accelerations the forces of interval ``j`` make): ``X = F + Φ U``.

**Forces.** Only the feet on the ground in interval ``k`` (the gait's contact table) have
forces there. Each is written in its ground frame ``G_i = [t₁ t₂ n]`` (``n`` the ground's
normal at the foot), ``f_i = G_i f̃_i``, so that the friction pyramid inscribed in the cone of
friction ``μ`` and the normal-force bounds are rows on single variables:

.. math::

    |f̃_{i,x}|, |f̃_{i,y}| ≤ \frac{μ}{\sqrt 2} f̃_{i,z}, \qquad f_{\min} ≤ f̃_{i,z} ≤ f_{\max,i}.

**Cost.** ``Σ_{a=1}^{N} (x_a − x_a^{ref})ᵀ Q (x_a − x_a^{ref}) + α Σ ‖U‖²``: with
``X = F + ΦU`` the QP is ``min ½ Uᵀ H U + hᵀ U`` with ``H = 2 (Φᵀ Q̄ Φ + α I)`` and
``h = 2 Φᵀ Q̄ (F − X^{ref})``, solved by DAQP (a dual active-set solver, the library's QP
dependency; the normal-force bounds as its simple bounds, warm-started from the last
active set). The weights are given per axis in units of the robot (:class:`MPCWeights`):
angles in rad, positions in CoM heights ``h``, velocities in ``√(g h)``, angular velocities
in ``√(g/h)``, forces in ``m g``: one set of weights suits robots of any size.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..._validation import as_vector, positive_scalar
from ...settings import Setting, positive
from .mpc_kernels import condensed_cost, sample_plan, variable_accelerations

#: Slices of the state ``x = [Θ, p, ω, ṗ]``.
ANGLES, POSITION, ANGULAR_VELOCITY, VELOCITY = slice(0, 3), slice(3, 6), slice(6, 9), slice(9, 12)

#: DAQP's stand-in for an infinite bound.
_INFINITE = 1e30
#: How many contact tables' constraint rows are kept (a periodic gait uses a few).
CONSTRAINT_CACHE = 32


@dataclass(frozen=True)
class MPCWeights:
    """Per-axis weights of the state error, dimensionless (see the module): ``angles``
    (roll, pitch, yaw), ``position`` (x, y, z), ``angular_velocity`` and ``velocity`` (x, y, z
    each), and ``force`` (α on the forces in units of the weight)."""

    angles: tuple = (20.0, 20.0, 10.0)
    position: tuple = (1.0, 1.0, 50.0)
    angular_velocity: tuple = (0.2, 0.2, 1.0)
    velocity: tuple = (5.0, 5.0, 1.0)
    force: float = 1e-3

    def diagonal(self, height: float, gravity: float, mass: float) -> tuple[np.ndarray, float]:
        """``Q``'s diagonal (12,) in SI units and ``α`` in 1/N² for a robot whose CoM stands
        ``height`` m high, of ``mass`` kg under ``gravity`` m/s²."""
        scales = np.concatenate([np.ones(3), np.full(3, height), np.full(3, np.sqrt(gravity / height)),
                                 np.full(3, np.sqrt(gravity * height))])
        weights = np.concatenate([as_vector(np.asarray(w, dtype=float), name, 3) for name, w in (
            ("angles", self.angles), ("position", self.position), ("angular_velocity", self.angular_velocity),
            ("velocity", self.velocity))])
        if np.any(weights < 0):
            raise ValueError(f"MPC weights must be ≥ 0, got {weights}")
        return weights / scales**2, positive_scalar(self.force, "force") / (mass * gravity) ** 2


@dataclass
class MPCPlan:
    """A solved horizon: ``start`` (s), ``step`` ``δ`` (s), ``states`` (N + 1, 12) predicted
    from the measured state ``states[0]``, ``forces`` (N, 4, 3) world-aligned (zero for a foot
    in the air), ``contacts`` (N, 4) booleans, ``accelerations`` (N, 6) ``[ω̇, p̈]`` of each
    interval, the QP's ``iterations``, ``solve_time`` (s, assembly and solve) and ``status``."""

    start: float
    step: float
    states: np.ndarray
    forces: np.ndarray
    contacts: np.ndarray
    accelerations: np.ndarray
    iterations: int
    solve_time: float
    status: str

    def __post_init__(self):
        # x(t) = states[k] + τ (rates[k] + τ/2 curvatures[k]) within interval k
        N = len(self.forces)
        self._rates = np.zeros((N, 12))
        self._rates[:, ANGLES] = (self.states[1:, ANGLES] - self.states[:-1, ANGLES]) / self.step
        self._rates[:, POSITION] = self.states[:-1, VELOCITY]
        self._rates[:, ANGULAR_VELOCITY] = self.accelerations[:, :3]
        self._rates[:, VELOCITY] = self.accelerations[:, 3:]
        self._curvatures = np.zeros((N, 12))
        self._curvatures[:, POSITION] = self.accelerations[:, 3:]
        self._last = len(self.forces) - 1

    def interval(self, t: float) -> int:
        """The index of the interval holding ``t`` (clamped to the horizon)."""
        return int(min(max((t - self.start) // self.step, 0), self._last))

    def state(self, t: float, out: np.ndarray | None = None) -> np.ndarray:
        """The predicted state at ``t`` (into ``out`` (12,) when given): exact within an
        interval for the positions and velocities (constant accelerations), the angles
        interpolated linearly."""
        k = self.interval(t)
        tau = min(max(t - self.start - k * self.step, 0.0), self.step)
        out = np.empty(12) if out is None else out
        sample_plan(self.states, self._rates, self._curvatures, k, tau, out)
        return out


class CentroidalMPC:
    """The convex MPC of the module for a body of ``mass`` kg and base-frame ``inertia``
    (3, 3) kg·m², ``horizon`` intervals of ``step`` s.

    Parameters
    ----------
    mass, inertia, gravity : the rigid body (kg, kg·m², m/s²).
    horizon : number of intervals ``N``.
    step : interval ``δ``, s.
    height : the CoM's standing height, m (the unit of the weights' positions).
    mu : friction coefficient of the ground (the pyramid inscribed in its cone).
    f_min : least normal force of a foot on the ground, N.
    f_max : largest normal force per foot, N (scalar or (4,)).
    weights : :class:`MPCWeights`.
    """

    #: Friction coefficient of the ground (assignable: the friction rows, cached per contact
    #: table, are built anew at the next solve).
    mu = Setting(positive, after="_friction_changed")

    def __init__(self, mass: float, inertia, gravity: float, horizon: int, step: float, height: float, *,
                 mu: float = 0.5, f_min: float = 0.0, f_max=None, weights: MPCWeights | None = None):
        self.mass = positive_scalar(mass, "mass")
        self.gravity = positive_scalar(gravity, "gravity")
        self.inertia = np.array(inertia, dtype=float).reshape(3, 3)
        if not np.all(np.linalg.eigvalsh(0.5 * (self.inertia + self.inertia.T)) > 0):
            raise ValueError("inertia must be symmetric positive definite")
        self.inertia_inverse = np.linalg.inv(self.inertia)
        if int(horizon) != horizon or horizon < 1:
            raise ValueError(f"horizon must be a whole number ≥ 1, got {horizon!r}")
        self.horizon = int(horizon)
        self.step = positive_scalar(step, "step")
        self.height = positive_scalar(height, "height")
        self._constraints: dict[bytes, tuple] = {}     # by contact table
        self.mu = mu
        self.f_min = positive_scalar(f_min, "f_min", allow_zero=True)
        f_max = np.full(4, 2.0 * self.mass * self.gravity) if f_max is None else np.broadcast_to(
            np.asarray(f_max, dtype=float), (4,)).copy()
        if not np.all(f_max > self.f_min):
            raise ValueError(f"f_max must exceed f_min for every foot, got {f_max}")
        self.f_max = f_max
        self.weights = weights or MPCWeights()
        self.Q, self.alpha = self.weights.diagonal(self.height, self.gravity, self.mass)
        self.g = np.array([0.0, 0.0, -self.gravity])
        self._dual = None           # the last solve's multipliers, for a warm start
        self._layout = None                 # the contact table they were found for

    def _friction_changed(self) -> None:
        self._constraints.clear()

    # ------------------------------------------------------------------ the condensed model
    def model(self, yaws, contacts, levers, frames):
        """The pieces of the condensed form: ``E`` (N, 3, 3) ``R_z(ψ_l)ᵀ``, ``C`` (N + 1, 3, 3),
        ``columns`` (m, 3) (interval, foot and axis of each variable) and each variable's
        ``angular`` and ``linear`` accelerations per newton (m, 3), from the reference yaw of
        each interval ``yaws`` (N,), its ``contacts`` (N, 4) booleans, the feet's ``levers``
        ``r_i`` (N, 4, 3) from the CoM (world axes) and ground ``frames`` ``G_i`` (4, 3, 3)
        (columns ``t₁, t₂, n``)."""
        N = self.horizon
        cos, sin = np.cos(yaws), np.sin(yaws)
        rz = np.zeros((N, 3, 3))
        rz[:, 0, 0], rz[:, 0, 1], rz[:, 1, 0], rz[:, 1, 1], rz[:, 2, 2] = cos, -sin, sin, cos, 1.0
        E = np.transpose(rz, (0, 2, 1))                                   # R_z(ψ)ᵀ
        C = np.concatenate([np.zeros((1, 3, 3)), np.cumsum(E, axis=0)])  # C_a = Σ_{l<a} E_l, a = 0..N
        inverse = rz @ self.inertia_inverse @ E                           # I_w⁻¹ per interval
        steps, feet = np.nonzero(contacts)
        m = 3 * steps.size
        columns = np.stack([np.repeat(steps, 3), np.repeat(feet, 3), np.tile(np.arange(3), steps.size)], axis=1)
        angular, linear = np.empty((m, 3)), np.empty((m, 3))
        variable_accelerations(steps, feet, np.ascontiguousarray(levers, dtype=float),
                               np.ascontiguousarray(frames, dtype=float), inverse, self.mass, angular, linear)
        return E, C, columns, angular, linear

    def free_response(self, x0, C) -> np.ndarray:
        """``F`` (N, 12): the states ``x_1 … x_N`` with no force (the body falls)."""
        N, delta = self.horizon, self.step
        x0 = np.asarray(x0, dtype=float)
        a = np.arange(1, N + 1) * delta
        F = np.empty((N, 12))
        F[:, ANGLES] = x0[ANGLES] + delta * C[1:] @ x0[ANGULAR_VELOCITY]
        F[:, POSITION] = x0[POSITION] + np.outer(a, x0[VELOCITY]) + np.outer(0.5 * a**2, self.g)
        F[:, ANGULAR_VELOCITY] = x0[ANGULAR_VELOCITY]
        F[:, VELOCITY] = x0[VELOCITY] + np.outer(a, self.g)
        return F

    def condensed(self, x0, yaws, contacts, levers, frames):
        """``(F, Φ, columns)``: the free response ``F`` (N, 12) and the force map ``Φ``
        (N, 12, m) of the module's condensed form (the readable definition: dense), from the
        state ``x0`` (12,) and :meth:`model`'s arguments."""
        N, delta = self.horizon, self.step
        E, C, columns, angular, linear = self.model(yaws, contacts, levers, frames)
        m = columns.shape[0]
        j = columns[:, 0]
        a = np.arange(1, N + 1)
        after = (a[:, None] > j[None, :]).astype(float)                   # (N, m): u_j acts on x_a
        Phi = np.zeros((N, 12, m))
        D = C[j] + 0.5 * E[j]                                              # (m, 3, 3)
        theta = np.einsum("aij,mj->aim", C[1:], angular) - np.einsum("mij,mj->im", D, angular)[None]
        Phi[:, ANGLES] = delta**2 * theta * after[:, None, :]
        Phi[:, POSITION] = delta**2 * ((a[:, None] - j[None, :] - 0.5) * after)[:, None, :] * linear.T[None]
        Phi[:, ANGULAR_VELOCITY] = delta * after[:, None, :] * angular.T[None]
        Phi[:, VELOCITY] = delta * after[:, None, :] * linear.T[None]
        return self.free_response(x0, C), Phi, columns

    def dense_cost(self, x0, reference, yaws, contacts, levers, frames):
        """``(H, h)`` from :meth:`condensed`'s dense ``Φ`` (the readable definition of
        :meth:`cost`)."""
        F, Phi, columns = self.condensed(x0, yaws, contacts, levers, frames)
        m = columns.shape[0]
        P = Phi.reshape(12 * self.horizon, m)
        q = np.tile(self.Q, self.horizon)
        H = 2.0 * (P.T @ (q[:, None] * P))
        H.flat[:: m + 1] += 2.0 * self.alpha
        return H, 2.0 * P.T @ (q * (F - reference).ravel())

    def cost(self, x0, reference, yaws, contacts, levers, frames):
        """``(H, h, columns, angular, linear)``: the QP's cost in compiled code from the
        condensed form's structure (:mod:`.mpc_kernels`; equal to :meth:`dense_cost`)."""
        E, C, columns, angular, linear = self.model(yaws, contacts, levers, frames)
        m = columns.shape[0]
        residual = self.free_response(x0, C) - reference
        H, h = np.empty((m, m)), np.empty(m)
        condensed_cost(columns[:, 0].astype(np.int64), angular, linear, E, C, self.Q, self.alpha, self.step,
                       np.ascontiguousarray(residual), H, h)
        return H, h, columns, angular, linear

    def constraints(self, columns) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(A, upper, lower)`` in DAQP's form, ``lower ≤ [U; A U] ≤ upper``: the first ``m``
        rows are the simple bounds (the normal forces'), then the friction pyramid's rows
        ``±f̃_t − (μ/√2) f̃_n ≤ 0`` (built once per contact table)."""
        axis, feet = columns[:, 2], columns[:, 1]
        m = columns.shape[0]
        normal = axis == 2
        upper = np.where(normal, self.f_max[feet], _INFINITE)
        lower = np.where(normal, self.f_min, -_INFINITE)
        k = self.mu / np.sqrt(2.0)
        tangential = np.flatnonzero(~normal)
        partner = tangential + (2 - axis[tangential])     # the normal column of the same foot
        A = np.zeros((2 * tangential.size, m))
        rows = np.arange(tangential.size)
        A[2 * rows, tangential], A[2 * rows, partner] = 1.0, -k
        A[2 * rows + 1, tangential], A[2 * rows + 1, partner] = -1.0, -k
        return (A, np.concatenate([upper, np.zeros(A.shape[0])]),
                np.concatenate([lower, np.full(A.shape[0], -_INFINITE)]))

    def rollout(self, x0, yaws, accelerations) -> np.ndarray:
        """The states (N + 1, 12) from ``x0`` under each interval's ``accelerations`` (N, 6)
        ``[ω̇, p̈]`` (gravity included), stepped exactly (zero-order hold): within interval
        ``l`` the velocities grow linearly, the positions and (through ``E_l``) the angles
        quadratically."""
        delta, N = self.step, self.horizon
        x0 = np.asarray(x0, dtype=float)
        states = np.empty((N + 1, 12))
        states[0] = x0
        angular, linear = accelerations[:, :3], accelerations[:, 3:]
        omega = x0[ANGULAR_VELOCITY] + delta * np.vstack([np.zeros(3), np.cumsum(angular, axis=0)])
        velocity = x0[VELOCITY] + delta * np.vstack([np.zeros(3), np.cumsum(linear, axis=0)])
        states[:, ANGULAR_VELOCITY], states[:, VELOCITY] = omega, velocity
        states[1:, POSITION] = x0[POSITION] + np.cumsum(delta * velocity[:-1] + 0.5 * delta**2 * linear, axis=0)
        c, s = np.cos(yaws), np.sin(yaws)
        rates = delta * omega[:-1] + 0.5 * delta**2 * angular               # per interval, world axes
        turned = np.column_stack([c * rates[:, 0] + s * rates[:, 1], -s * rates[:, 0] + c * rates[:, 1], rates[:, 2]])
        states[1:, ANGLES] = x0[ANGLES] + np.cumsum(turned, axis=0)          # E_l = R_z(ψ_l)ᵀ
        return states

    # ------------------------------------------------------------------ solving
    def solve(self, start: float, x0, reference, yaws, contacts, levers, frames) -> MPCPlan:
        """Solve the horizon from the measured state ``x0`` (12,) at ``start`` s toward
        ``reference`` (N, 12) (the states ``x_1 … x_N``), see :meth:`model` for the other
        arguments. A failed solve (no forces satisfy the bounds) raises ``RuntimeError``."""
        import daqp

        tic = time.perf_counter()
        x0 = np.asarray(x0, dtype=float)
        reference = np.asarray(reference, dtype=float).reshape(self.horizon, 12)
        contacts = np.asarray(contacts, dtype=bool).reshape(self.horizon, 4)
        H, h, columns, angular, linear = self.cost(x0, reference, yaws, contacts, levers, frames)
        m = columns.shape[0]
        forces = np.zeros((self.horizon, 4, 3))
        accelerations = np.zeros((self.horizon, 6))
        iterations, status, U = 0, "no foot on the ground", np.zeros(0)
        if m:
            layout = contacts.tobytes()
            if layout not in self._constraints:        # a periodic gait repeats its contact tables
                if len(self._constraints) >= CONSTRAINT_CACHE:
                    self._constraints.clear()
                self._constraints[layout] = self.constraints(columns)
            A, upper, lower = self._constraints[layout]
            sense = np.zeros(upper.size, dtype=np.int32)
            if self._layout == layout and self._dual is not None:
                sense[self._dual != 0.0] = 1               # the last active set, as a warm start
            U, _, exitflag, info = daqp.solve(H, h, A, upper, lower, sense)
            if exitflag < 1:
                self._dual = self._layout = None
                raise RuntimeError(f"the centroidal MPC found no forces (DAQP exit flag {exitflag})")
            self._dual, self._layout = np.asarray(info["lam"]).copy(), layout
            iterations, status = int(info["iterations"]), "solved"
            local = U.reshape(-1, 3)                       # f̃ per (interval, foot), ground frame
            steps, feet = columns[::3, 0], columns[::3, 1]
            forces[steps, feet] = np.einsum("pij,pj->pi", frames[feet], local)
            per_variable = np.hstack([angular, linear]) * U[:, None]
            accelerations[:] = (columns[:, 0][None, :] == np.arange(self.horizon)[:, None]) @ per_variable
        accelerations[:, 3:] += self.g
        states = self.rollout(x0, yaws, accelerations)
        self.last_solution = U
        return MPCPlan(start, self.step, states, forces, contacts, accelerations, iterations,
                       time.perf_counter() - tic, status)
