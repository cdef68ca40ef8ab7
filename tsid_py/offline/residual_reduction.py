"""Residual reduction: the small changes of a model's mass distribution that remove as much
of the root's residual wrench as a whole recorded trial allows.

With force plates every external wrench is measured, so the wrench the free-floating root
still needs (OpenSim's pelvis residuals) is the model's and the data's mismatch. Part of it
is a wrong mass distribution; OpenSim's Residual Reduction Algorithm changes the total mass
(by the mean vertical residual over g) and the torso's centre of mass (by the mean residual
moments), and AddBiomechanics fits the total mass and the segment masses to the plates. Here
the same parameters are fitted to **every frame at once** by least squares; the kinematics
are not changed (the rest of the residual is theirs: marker noise, soft tissue, filtering).

**The residual is affine in the inertial parameters.** With π the joints' inertial
parameters (pinocchio's 10 per joint: ``m``, ``m c``, the inertia about the joint's origin)
the inverse dynamics is ``τ = Y(q, v, a) π`` (``pinocchio.computeJointTorqueRegressor``),
and the measured wrenches do not depend on π. So the root's residual at frame t,
world-aligned at the root's origin, is exactly

    r_t(π) = r_t(π₀) + B_t Y_t,root (π − π₀),      B_t = diag(R_t, R_t)       (N, N·m)

with ``Y_t,root`` the regressor's 6 root rows and ``R_t`` the root's rotation.

**Parameters.** Each body b (mass ``m_b``, centre of mass ``c_b`` in its own frame, inertia
``I_b`` about it, as the model file gives them) becomes

    m_b = s (1 + μ_b) m_b⁰,   c_b = c_b⁰ + δ_b,   I_b = s (1 + μ_b) I_b⁰

- ``s``: the total mass scale (every body's density, not its shape, as RRA's mass change);
- ``δ_b`` (m, in the body's frame): the centre-of-mass offset of the bodies in
  ``com_bodies`` (default the heaviest body, the torso of OpenSim's gait models, as RRA),
  along their horizontal axes by default; the inertia about the centre of mass is kept, as
  RRA does;
- ``μ_b`` (only with ``per_body=True``): mass moved between bodies, ``Σ_b m_b⁰ μ_b = 0``, so
  the total mass is ``s M⁰`` whatever the μ.

**Fit.** Over the N frames of the trial, with ``ℓ`` the moment length (a residual moment of
ℓ N·m weighs as a residual force of 1 N), ``W`` the model's weight and β_i each
parameter's bound:

    minimise   J(p) = (1/N) Σ_t [ ‖r_f,t(p)‖² + ‖r_m,t(p)‖² / ℓ² ] + ε W² Σ_i ((p_i − p_i⁰)/β_i)²
    subject to |s − 1| ≤ β_s,  |δ_b,k| ≤ β_δ,  |μ_b| ≤ β_μ,  Σ_b m_b⁰ μ_b = 0

The ε term only picks one answer where the trial cannot tell parameters apart (the pelvis's
and the torso's offsets move the whole body's centre of mass alike); at the default
ε = 1e-8 moving a parameter to its bound costs as much as a residual of 0.07 N RMS, so it
biases nothing the trial determines (a deliberately perturbed pelvis is recovered to grams
and tenths of a millimetre, ``tests/test_residual_reduction.py``). π(p) is
quadratic in δ (the parallel-axis term), so the problem is solved by SLSQP (scipy) on
the exact residuals, started from the model. The bounds (:class:`ResidualReductionOptions`)
say by how much the model may change at most.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin
from scipy.optimize import minimize

from ..robot import Robot

#: Default bound on the total mass change, as a fraction of the model's mass. Neither RRA
#: (``Δm = F̄_y / g``) nor AddBiomechanics (``m = |F̄| / |ā_com|``, refused below 10 kg) bounds
#: the total mass; 5 % (3.6 kg on a 72.6 kg subject) is our choice: far above a scale's
#: error, so a fit that wants more points at the data (a plate not zeroed, a missed load),
#: not at the model.
TOTAL_MASS_BOUND = 0.05

#: Default bound on each centre-of-mass offset component, m: half the clamp OpenSim's RRA
#: puts on its torso adjustment (0.1 m, ``RRATool::adjustCOMToReduceResiduals``) — fitted
#: here to the whole trial rather than to its mean moments, an offset beyond a few
#: centimetres means the residual comes from elsewhere.
COM_OFFSET_BOUND = 0.05

#: Default bound on a body's share of the mass when ``per_body`` is on (fraction of its
#: mass): AddBiomechanics lets each segment's mass vary (its linear step keeps the shares
#: summing to the total, as here; its bounds are its skeleton's wide defaults, 0.01–100 kg).
#: 20 % is our bound, about the spread between published segment-mass tables for the
#: same segment.
BODY_MASS_BOUND = 0.20

#: Weight ε of the regularisation (see the module docstring).
REGULARIZATION = 1e-8


@dataclass(frozen=True)
class ResidualReductionOptions:
    """What the fit may change, and by how much at most (module docstring).

    ``total_mass``: bound β_s on ``|s − 1|`` (fraction); ``com_offset``: bound β_δ on each
    component of a centre-of-mass offset (m); ``com_bodies``: the bodies whose centre of
    mass may move (None: the heaviest body, :func:`default_com_bodies`); ``com_axes``: along which of
    their axes — ``"horizontal"`` (the two body axes other than the one closest to vertical
    in the model's default pose, as RRA moves the torso's only in x and z: a vertical offset
    changes no gravity moment, so the trial hardly tells it apart from noise) or ``"all"``;
    ``per_body``: also move mass
    between bodies, each within ``body_mass`` (fraction); ``moment_length`` ℓ (m);
    ``regularization`` ε."""

    total_mass: float = TOTAL_MASS_BOUND
    com_offset: float = COM_OFFSET_BOUND
    com_bodies: tuple[str, ...] | None = None
    com_axes: str = "horizontal"
    per_body: bool = False
    body_mass: float = BODY_MASS_BOUND
    moment_length: float = 1.0
    regularization: float = REGULARIZATION

    def __post_init__(self):
        for name in ("total_mass", "com_offset", "body_mass", "moment_length", "regularization"):
            value = getattr(self, name)
            if not np.isfinite(value) or value < 0 or (name == "moment_length" and value == 0):
                raise ValueError(f"ResidualReductionOptions.{name} must be a finite number "
                                 f"{'> 0' if name == 'moment_length' else '>= 0'}, got {value}")
        if self.total_mass >= 1 or self.body_mass >= 1:
            raise ValueError("ResidualReductionOptions.total_mass and body_mass are fractions below 1, got "
                             f"{self.total_mass}, {self.body_mass}")
        if self.com_axes not in ("horizontal", "all"):
            raise ValueError(f"ResidualReductionOptions.com_axes must be 'horizontal' or 'all', got {self.com_axes!r}")
        if self.com_bodies is not None:
            object.__setattr__(self, "com_bodies", tuple(self.com_bodies))


@dataclass(frozen=True)
class BodyChange:
    """One body's change: mass (kg) and centre of mass (m, in the body's frame) before and
    after."""

    body: str
    mass_before: float
    mass_after: float
    com_before: np.ndarray
    com_after: np.ndarray

    @property
    def mass_change(self) -> float:
        """kg"""
        return self.mass_after - self.mass_before

    @property
    def mass_change_percent(self) -> float:
        return 100.0 * self.mass_change / self.mass_before if self.mass_before else 0.0

    @property
    def com_offset(self) -> np.ndarray:
        """(3,) m, in the body's frame."""
        return self.com_after - self.com_before


def residual_norms(residuals: np.ndarray) -> dict:
    """RMS and largest norm over the frames of the force (N) and moment (N·m) parts of
    (N, 6) residual wrenches."""
    force, moment = (np.linalg.norm(residuals[:, part], axis=1) for part in (slice(0, 3), slice(3, 6)))
    return {"force_rms_N": float(np.sqrt(np.mean(force**2))), "force_max_N": float(force.max()),
            "moment_rms_Nm": float(np.sqrt(np.mean(moment**2))), "moment_max_Nm": float(moment.max())}


@dataclass
class ResidualReduction:
    """The fitted model and what changed. ``robot``: the adjusted robot (a new one; the
    input is untouched); ``changes``: every body's :class:`BodyChange`; ``mass_scale`` s;
    ``com_offsets`` δ_b (m, body frames); ``mass_shares`` μ_b (per-body fit only);
    ``residuals_before`` / ``residuals_after`` (N, 6) the root's residual per frame at
    ``time`` (world-aligned at the root's origin, N and N·m); ``at_bounds`` the parameters
    the bounds stopped; ``options`` the bounds used."""

    robot: Robot
    changes: list[BodyChange]
    mass_scale: float
    com_offsets: dict[str, np.ndarray]
    mass_shares: dict[str, float]
    time: np.ndarray
    residuals_before: np.ndarray
    residuals_after: np.ndarray
    at_bounds: list[str]
    options: ResidualReductionOptions
    iterations: int = 0
    mass_before: float = field(init=False)
    mass_after: float = field(init=False)

    def __post_init__(self):
        self.mass_before = float(sum(change.mass_before for change in self.changes))
        self.mass_after = float(sum(change.mass_after for change in self.changes))

    def summary(self) -> dict:
        """The changes (kg, %, m) and the residuals before and after (RMS and largest norm
        over the frames, N and N·m), as plain numbers."""
        before, after = residual_norms(self.residuals_before), residual_norms(self.residuals_after)
        return {
            "mass_before_kg": round(self.mass_before, 4), "mass_after_kg": round(self.mass_after, 4),
            "mass_change_kg": round(self.mass_after - self.mass_before, 4),
            "mass_change_percent": round(100 * (self.mass_after / self.mass_before - 1), 3),
            "com_offsets_m": {body: [round(float(x), 5) for x in offset] for body, offset in self.com_offsets.items()},
            "bodies": {c.body: {"mass_kg": [round(c.mass_before, 4), round(c.mass_after, 4)],
                                "mass_change_percent": round(c.mass_change_percent, 3),
                                "com_offset_m": [round(float(x), 5) for x in c.com_offset]} for c in self.changes},
            "residuals_before": {k: round(v, 3) for k, v in before.items()},
            "residuals_after": {k: round(v, 3) for k, v in after.items()},
            "at_bounds": list(self.at_bounds),
        }


# ------------------------------------------------------------------------------ the model's bodies
@dataclass
class _Bodies:
    """The bodies of an OpenSim robot with their pinocchio joints and placements."""

    names: list[str]
    joints: np.ndarray                  # (b,) pinocchio joint ids
    placements: list[pin.SE3]           # body frame in its joint's frame
    inertias: list[pin.Inertia]         # in the body's frame (the file's)

    @property
    def masses(self) -> np.ndarray:
        return np.array([inertia.mass for inertia in self.inertias])


def _bodies(robot: Robot) -> _Bodies:
    loaded = robot.opensim
    if loaded is None or not loaded.inertias:
        raise ValueError(f"robot {robot.name!r} was not read from an OpenSim model (use tsid_py.Robot.from_osim): "
                         "residual reduction adjusts its bodies' masses")
    model = robot.model
    names = list(loaded.inertias)
    frames = [model.frames[model.getFrameId(name)] for name in names]
    bodies = _Bodies(names, np.array([frame.parentJoint for frame in frames]),
                     [pin.SE3(frame.placement) for frame in frames], [loaded.inertias[name] for name in names])
    expected = _joint_parameters(model, bodies, bodies.inertias)
    actual = np.concatenate([model.inertias[j].toDynamicParameters() for j in range(1, model.njoints)])
    if not np.allclose(expected, actual, rtol=1e-9, atol=1e-12):
        raise ValueError(f"robot {robot.name!r}: its joints' inertias are not its bodies' (was robot.model changed "
                         "after loading?)")
    return bodies


def _joint_parameters(model: pin.Model, bodies: _Bodies, inertias: Sequence[pin.Inertia]) -> np.ndarray:
    """π (10 (njoints − 1),): each joint's parameters, the sum of its bodies' placed in it;
    joints without a body keep the model's."""
    parameters = np.concatenate([model.inertias[j].toDynamicParameters() for j in range(1, model.njoints)])
    for j in np.unique(bodies.joints):
        total = sum((placement.act(inertia) for joint, placement, inertia in zip(bodies.joints, bodies.placements,
                                                                                 inertias) if joint == j),
                    pin.Inertia.Zero())
        parameters[10 * (j - 1):10 * j] = total.toDynamicParameters()
    return parameters


# ------------------------------------------------------------------------------ parameters
@dataclass
class _Parameters:
    """p = (s − 1, δ for each CoM body, μ for each body), scaled by their bounds into z ∈ [−1, 1]."""

    com_bodies: list[str]
    per_body: bool
    scales: np.ndarray

    def split(self, z: np.ndarray, count: int):
        p = z * self.scales
        offsets = p[1:1 + 3 * len(self.com_bodies)].reshape(-1, 3)
        shares = p[1 + 3 * len(self.com_bodies):] if self.per_body else np.zeros(count)
        return 1.0 + p[0], offsets, shares

    def names(self, bodies: list[str]) -> list[str]:
        names = ["total mass"] + [f"{body} centre of mass {axis}" for body in self.com_bodies for axis in "xyz"]
        return names + ([f"{body} mass share" for body in bodies] if self.per_body else [])


def body_parameters(masses, coms, inertias) -> np.ndarray:
    """(b, 10) pinocchio's dynamic parameters ``[m, m c, I_O]`` of bodies with ``masses``
    (b,), centres of mass ``coms`` (b, 3) and inertias about them ``inertias`` (b, 3, 3),
    all in each body's frame: ``I_O = I + m (‖c‖² E − c cᵀ)`` (parallel axes), its entries in
    the order xx, xy, yy, xz, yz, zz."""
    masses, coms = np.asarray(masses, dtype=float), np.asarray(coms, dtype=float)
    about_origin = inertias + masses[:, None, None] * (np.einsum("bi,bi->b", coms, coms)[:, None, None] * np.eye(3)
                                                       - np.einsum("bi,bj->bij", coms, coms))
    rows, columns = (0, 0, 1, 0, 1, 2), (0, 1, 1, 2, 2, 2)
    return np.column_stack([masses, masses[:, None] * coms, about_origin[:, rows, columns]])


def placement_map(placement: pin.SE3) -> np.ndarray:
    """(10, 10) the linear map of a body's dynamic parameters to its joint's, ``placement``
    being the body's frame in the joint's (``X.act`` of an inertia is linear in them):
    identified exactly from 10 independent inertias."""
    rng = np.random.default_rng(0)
    basis = []
    for _ in range(10):
        root = rng.normal(size=(3, 3))
        basis.append(pin.Inertia(1.0 + rng.random(), rng.normal(size=3), root @ root.T + np.eye(3)))
    before = np.column_stack([inertia.toDynamicParameters() for inertia in basis])
    after = np.column_stack([placement.act(inertia).toDynamicParameters() for inertia in basis])
    return after @ np.linalg.inv(before)


def _adjusted(bodies: _Bodies, scale: float, offsets: dict[str, np.ndarray], shares) -> list[pin.Inertia]:
    inertias = []
    for name, inertia, share in zip(bodies.names, bodies.inertias, shares):
        factor = scale * (1.0 + share)
        inertias.append(pin.Inertia(inertia.mass * factor, inertia.lever + offsets.get(name, np.zeros(3)),
                                    inertia.inertia * factor))
    return inertias


def default_com_bodies(robot: Robot) -> list[str]:
    """The heaviest body (the torso — head, arms and trunk — of OpenSim's gait models): the
    body whose centre of mass OpenSim's RRA moves, the least known and the one that moves
    the whole body's most. (Adding the pelvis's measured no better on the Gait2354 trial:
    the two offsets move the whole body's centre of mass alike, and the fit then pushes the
    pelvis's to its bounds.)"""
    bodies = _bodies(robot)
    return [bodies.names[int(np.argmax(bodies.masses))]]


def com_axes(robot: Robot, bodies: Sequence[str], which: str = "horizontal") -> np.ndarray:
    """(3 len(bodies),) 1 for each body axis along which its centre of mass may move, else 0
    (see :class:`ResidualReductionOptions`); the default pose is ``robot.q_ref``."""
    mask = np.ones((len(bodies), 3))
    if which == "horizontal":
        gravity = robot.model.gravity.linear
        up = -gravity / np.linalg.norm(gravity)
        for i, body in enumerate(bodies):
            rotation = robot.placement_at(robot.q_ref, robot.frame_id(body)).rotation
            mask[i, int(np.argmax(np.abs(rotation.T @ up)))] = 0.0
    return mask.ravel()


# ------------------------------------------------------------------------------ the fit
def root_regressors(robot: Robot, positions, velocities, accelerations) -> np.ndarray:
    """(N, 6, 10 (njoints − 1)) ``B_t Y_t,root``: the root's residual's derivative in π,
    world-aligned (module docstring)."""
    model, data = robot.model, robot.model.createData()
    regressors = np.empty((len(positions), 6, 10 * (model.njoints - 1)))
    for t, (q, v, a) in enumerate(zip(positions, velocities, accelerations)):
        Y = pin.computeJointTorqueRegressor(model, data, q, v, a)[:6]
        R = pin.Quaternion(q[3:7]).normalized().matrix()
        regressors[t, :3], regressors[t, 3:] = R @ Y[:3], R @ Y[3:6]
    return regressors


def reduce_residuals(robot: Robot, result, options: ResidualReductionOptions | None = None) -> ResidualReduction:
    """Fit the mass distribution of ``robot`` (read from an OpenSim model) to the residuals
    of ``result``, its inverse dynamics with force plates (a
    :class:`~tsid_py.offline.gait.HumanInverseDynamicsResult`): see the module docstring.
    Returns the adjusted robot and the report; ``robot`` is not changed."""
    options = options or ResidualReductionOptions()
    over_time = getattr(result, "over_time", result)
    if over_time.wrenches.shape[1]:
        raise ValueError("residual reduction needs every external wrench measured (force plates, no estimated "
                         "contacts): with contacts the solve absorbs the residual")
    bodies = _bodies(robot)
    com_bodies = list(options.com_bodies) if options.com_bodies is not None else default_com_bodies(robot)
    unknown = [name for name in com_bodies if name not in bodies.names]
    if unknown:
        raise KeyError(f"com_bodies {unknown} are not bodies of {robot.name!r}; bodies: {bodies.names}")
    before = np.asarray(over_time.residuals, dtype=float)
    fit = _Fit(robot, bodies, com_bodies, options,
               root_regressors(robot, over_time.positions, over_time.velocities, over_time.accelerations), before)
    z, iterations = fit.solve()
    scale, offsets, shares = fit.parameters.split(z, len(bodies.names))
    offsets = dict(zip(com_bodies, offsets))
    inertias = _adjusted(bodies, scale, offsets, shares)
    names = fit.parameters.names(bodies.names)
    at_bounds = [names[i] for i in np.flatnonzero((fit.parameters.scales > 0) & (np.abs(z) > 1 - 1e-6))]
    changes = [BodyChange(name, old.mass, new.mass, np.array(old.lever), np.array(new.lever))
               for name, old, new in zip(bodies.names, bodies.inertias, inertias)]
    return ResidualReduction(adjusted_robot(robot, dict(zip(bodies.names, inertias))), changes, scale, offsets,
                             dict(zip(bodies.names, map(float, shares))) if options.per_body else {},
                             np.asarray(getattr(result, "time", np.arange(len(before))), dtype=float), before,
                             fit.residuals(z), at_bounds, options, iterations)


class _Fit:
    """The least-squares problem of the module docstring in the scaled parameters z."""

    def __init__(self, robot: Robot, bodies: _Bodies, com_bodies: list[str], options: ResidualReductionOptions,
                 regressors: np.ndarray, before: np.ndarray):
        count = len(bodies.names)
        self.bodies, self.options, self.before = bodies, options, before
        self.parameters = _Parameters(com_bodies, options.per_body,
                                      np.r_[options.total_mass, options.com_offset * com_axes(robot, com_bodies,
                                                                                             options.com_axes),
                                            np.full(count if options.per_body else 0, options.body_mass)])
        # G_b = B_t Y_t,root[joint of b] P_b: the residual's derivative in body b's parameters.
        self.gains = np.stack([regressors[:, :, 10 * (j - 1):10 * j] @ placement_map(X)
                               for j, X in zip(bodies.joints, bodies.placements)], axis=2)      # (N, 6, b, 10)
        self.masses = bodies.masses
        self.coms = np.array([inertia.lever for inertia in bodies.inertias])
        self.inertias = np.array([inertia.inertia for inertia in bodies.inertias])
        self.com_index = [bodies.names.index(name) for name in com_bodies]
        self.phi0 = body_parameters(self.masses, self.coms, self.inertias)
        self.weights = np.r_[np.ones(3), np.full(3, 1.0 / options.moment_length)]
        self.scale = 1.0 / (len(before) * robot.weight**2)

    def residuals(self, z: np.ndarray) -> np.ndarray:
        """(N, 6) the root's residuals of the model at z."""
        scale, offsets, shares = self.parameters.split(z, len(self.masses))
        factors = scale * (1.0 + shares)
        coms = self.coms.copy()
        coms[self.com_index] += offsets
        phi = body_parameters(self.masses * factors, coms, self.inertias * factors[:, None, None])
        return self.before + np.einsum("tibk,bk->ti", self.gains, phi - self.phi0)

    def cost(self, z: np.ndarray) -> float:
        r = self.residuals(z) * self.weights
        return float(self.scale * np.sum(r**2) + self.options.regularization * z @ z)

    def gradient(self, z: np.ndarray, step: float = 1e-6) -> np.ndarray:
        """Central differences: exact for the parts quadratic in z, 1e-12 relative otherwise."""
        r = self.residuals(z) * self.weights
        grad = np.empty_like(z)
        for i in range(len(z)):
            dz = np.zeros_like(z)
            dz[i] = step
            dr = (self.residuals(z + dz) - self.residuals(z - dz)) * self.weights / (2 * step)
            grad[i] = 2 * self.scale * np.sum(r * dr)
        return grad + 2 * self.options.regularization * z

    def solve(self) -> tuple[np.ndarray, int]:
        scales = self.parameters.scales
        constraints = []
        if self.options.per_body and self.options.body_mass > 0:
            share = np.zeros(len(scales))
            share[len(scales) - len(self.masses):] = self.masses * self.options.body_mass / self.masses.sum()
            constraints.append({"type": "eq", "fun": lambda z: share @ z, "jac": lambda z: share})
        solution = minimize(self.cost, np.zeros(len(scales)), jac=self.gradient, method="SLSQP",
                            bounds=[(-1.0, 1.0) if scale > 0 else (0.0, 0.0) for scale in scales],
                            constraints=constraints, options={"maxiter": 500, "ftol": 1e-15})
        if not np.all(np.isfinite(solution.x)):
            raise RuntimeError(f"residual reduction: the fit failed ({solution.message})")
        return np.clip(solution.x, -1.0, 1.0), int(solution.nit)


def adjusted_robot(robot: Robot, inertias: dict[str, pin.Inertia]) -> Robot:
    """A new robot like ``robot`` (read from an OpenSim model) with its bodies' ``inertias``
    (each in its body's frame) replaced; the others kept."""
    bodies = _bodies(robot)
    model = pin.Model(robot.model)
    new = [inertias.get(name, inertia) for name, inertia in zip(bodies.names, bodies.inertias)]
    for j in np.unique(bodies.joints):
        model.inertias[int(j)] = sum((X.act(inertia) for joint, X, inertia in zip(bodies.joints, bodies.placements, new)
                                      if joint == j), pin.Inertia.Zero())
    adjusted = Robot(model, name=robot.name, feet=robot.feet, sole_size=robot.sole_size, foot_radius=robot.foot_radius,
                     q_ref=robot.q_ref, profile=robot.profile)
    adjusted.opensim = dataclasses.replace(robot.opensim, model=model, inertias=dict(zip(bodies.names, new)))
    return adjusted
