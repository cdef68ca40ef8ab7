"""QP backends: :class:`Backend` and :func:`make_backend`.

``"reduced"`` (the default: null-space elimination, the previous step's active set and a
hot-started DAQP, :mod:`tsid_py.backends.reduced`), ``"proxsuite"`` (ProxQP on the full QP,
warm-started), ``"proxqp"`` (ProxQP started cold), ``"osqp"`` (OSQP, its answer polished
exactly), any other qpsolvers backend by name (``"daqp"``, ``"quadprog"``, …), or a
:class:`Backend` instance of your own. All but ``"reduced"`` solve the QP presolved
(:mod:`tsid_py.backends.presolve`: fixed variables substituted, units equilibrated).
"""

from __future__ import annotations

from .base import Backend, QPResult, solve_kkt

__all__ = ["Backend", "QPResult", "make_backend", "solve_kkt"]


def make_backend(qp_solver: "str | Backend") -> Backend:
    """A backend from a name (``"reduced"``, ``"proxsuite"``, ``"proxqp"``, ``"osqp"`` or any
    other installed qpsolvers backend) or the :class:`Backend` instance itself."""
    if isinstance(qp_solver, Backend):
        return qp_solver
    if not isinstance(qp_solver, str):
        raise ValueError(f"qp_solver must be a solver name (str) or a tsid_py.backends.Backend instance, "
                         f"got {type(qp_solver).__name__}")
    if qp_solver == "reduced":
        from .reduced import ReducedBackend

        return ReducedBackend()
    if qp_solver == "osqp":
        from .osqp import OsqpBackend

        return OsqpBackend()
    if qp_solver in ("proxsuite", "proxqp"):
        from .proxsuite import ProxsuiteBackend

        return (ProxsuiteBackend() if qp_solver == "proxsuite"
                else ProxsuiteBackend(warm_start=False, name="proxqp"))
    from .qpsolvers_backend import QpsolversBackend

    return QpsolversBackend(qp_solver)
