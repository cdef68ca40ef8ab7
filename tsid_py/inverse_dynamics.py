r"""The documented inverse-dynamics cases, as configurations of :class:`DynamicsSolver`.

Each function sets up the same QP as a control step: the motion is prescribed by a hard
:class:`~tsid_py.tasks.AccelerationTask` (``q̈ = a``), the contacts carry free 6-D wrenches
(no acceleration constraint, since the motion is given; no bounds),
and the objective picks one solution among those that satisfy the root rows of

.. math::

    M(q)\, a + h(q, v) = S^\top τ + \sum_j J_j^\top w_j.

Wrenches are world-aligned at each contact frame's origin, ``[f; m]``, exerted on the robot.

The over-time case (:func:`multiple_contact_inverse_dynamics_over_time`, recorded motions
with contact bounds) and its batch and file helpers live in :mod:`tsid_py.offline`; they are
re-exported here and at the package's top level.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ._validation import as_matrix, as_vector
from .contacts import PlanarContact
from .offline.frames import check_contacts, finite_differences
from .offline.over_time import InverseDynamicsOverTimeResult, multiple_contact_inverse_dynamics_over_time
from .robot import Robot
from .solver import DynamicsSolver
from .tasks.effort import WrenchTask
from .tasks.regularization import AccelerationTask

#: Relative weight of the forces in "minimal contact moments": Σ_j ||m_j||² + ε ||f_j||².
MOMENT_OBJECTIVE_FORCE_WEIGHT = 1e-6


@dataclass
class ContactInverseDynamicsResult:
    tau: np.ndarray          # (nv,), tau[:6] == 0
    wrench: np.ndarray       # (6,) world-aligned


@dataclass
class MultipleContactInverseDynamicsResult:
    tau: np.ndarray          # (nv,), tau[:6] == 0
    wrenches: np.ndarray     # (k, 6) world-aligned, in the order of ``contacts``


# ------------------------------------------------------------------------------ helpers
def _wrench_contacts(solver: DynamicsSolver, contacts: Sequence[str]) -> None:
    """Add one free 6-D wrench per frame (no bounds, no kinematics: the motion is given)."""
    for name in contacts:
        solver.add_contact(PlanarContact(name, unilateral=False, kinematic=False))


def _solve_configured(solver: DynamicsSolver, q, v, a) -> "Solution":  # noqa: F821
    solver.add_task(AccelerationTask(a, priority="hard", name="prescribed motion"))
    return solver.solve(q, v)


def _state(robot: Robot, q, v, a):
    return (robot.check_configuration(q, "q"), as_vector(v, "v", robot.nv), as_vector(a, "a", robot.nv))


# ------------------------------------------------------------------------------ cases
def inverse_dynamics(robot: Robot, q, v, a) -> np.ndarray:
    """Plain inverse dynamics ``τ = M(q) a + h(q, v)``, (nv,).

    On a floating base the first 6 entries are the wrench a "crane" would have to apply at
    the root to produce the motion without any contact.
    """
    q, v, a = _state(robot, q, v, a)
    solver = DynamicsSolver(robot, regularization={"acceleration": 0.0, "force": 0.0, "torque": 0.0},
                            actuated_root=True, closures=False)
    return _solve_configured(solver, q, v, a).tau


def contact_inverse_dynamics(robot: Robot, q, v, a, contact: str) -> ContactInverseDynamicsResult:
    """Inverse dynamics with one contact wrench instead of the crane.

    The 6 root rows ``(M a + h)[:6] = J[:, :6]ᵀ w`` determine the wrench ``w`` uniquely; then
    ``τ = M a + h − Jᵀ w`` has ``τ[:6] = 0``.
    """
    (contact,) = check_contacts(robot, [contact])
    q, v, a = _state(robot, q, v, a)
    solver = DynamicsSolver(robot, regularization={"acceleration": 0.0, "force": 0.0, "torque": 0.0},
                            closures=False)
    _wrench_contacts(solver, [contact])
    solution = _solve_configured(solver, q, v, a)
    return ContactInverseDynamicsResult(solution.tau, solution.wrenches[contact])


def multiple_contact_inverse_dynamics(robot: Robot, q, v, a, contacts: Sequence[str],
                                      wrench_guesses=None) -> MultipleContactInverseDynamicsResult:
    """Inverse dynamics with ``k`` contact wrenches.

    With ``wrench_guesses`` (k, 6): the wrenches nearest to the guesses,
    ``min Σ_j ||w_j − ŵ_j||²`` subject to the root rows (the Euclidean projection of the
    guesses onto that affine set). Without: minimal contact moments,
    ``min Σ_j (||m_j||² + ε ||f_j||²)`` with ``ε =`` :data:`MOMENT_OBJECTIVE_FORCE_WEIGHT`,
    moments about each contact frame's origin (world-aligned; the norm does not depend on
    the axes).
    """
    contacts = check_contacts(robot, contacts)
    q, v, a = _state(robot, q, v, a)
    solver = DynamicsSolver(robot, regularization={"acceleration": 0.0, "force": 0.0, "torque": 0.0},
                            closures=False)
    _wrench_contacts(solver, contacts)
    if wrench_guesses is not None:
        guesses = as_matrix(wrench_guesses, "wrench_guesses", (len(contacts), 6))
        weight = np.ones(6)
    else:
        guesses = np.zeros((len(contacts), 6))
        weight = np.r_[np.full(3, MOMENT_OBJECTIVE_FORCE_WEIGHT), np.ones(3)]
    for name, guess in zip(contacts, guesses):
        solver.add_task(WrenchTask(name, guess, weight=weight))
    solution = _solve_configured(solver, q, v, a)
    return MultipleContactInverseDynamicsResult(solution.tau, np.array([solution.wrenches[c] for c in contacts]))


def gravity_compensation(robot: Robot, q, contacts: Sequence[str], minimize: str = "torque"
                         ) -> MultipleContactInverseDynamicsResult:
    """Static stance (``v = a = 0``): wrenches and torques that hold the robot against gravity,
    ``g(q) = Sᵀ τ + Σ_j J_jᵀ w_j``.

    One contact: the unique solution. Several: ``minimize="force"`` gives the minimal
    ``Σ_j ||w_j||²`` (the pseudo-inverse solution of the root rows), ``minimize="torque"``
    the minimal ``||τ_a||²``.
    """
    if minimize not in ("force", "torque"):
        raise ValueError(f"minimize must be 'force' or 'torque', got {minimize!r}")
    contacts = check_contacts(robot, contacts)
    q = robot.check_configuration(q, "q")
    weights = {"acceleration": 0.0, "force": 1.0, "torque": 0.0} if minimize == "force" else \
        {"acceleration": 0.0, "force": 0.0, "torque": 1.0}
    solver = DynamicsSolver(robot, regularization=weights, closures=False)
    _wrench_contacts(solver, contacts)
    zero = np.zeros(robot.nv)
    solution = _solve_configured(solver, q, zero, zero)
    return MultipleContactInverseDynamicsResult(solution.tau, np.array([solution.wrenches[c] for c in contacts]))


__all__ = ["inverse_dynamics", "contact_inverse_dynamics", "multiple_contact_inverse_dynamics",
           "gravity_compensation", "multiple_contact_inverse_dynamics_over_time", "finite_differences",
           "ContactInverseDynamicsResult", "MultipleContactInverseDynamicsResult",
           "InverseDynamicsOverTimeResult", "MOMENT_OBJECTIVE_FORCE_WEIGHT"]
