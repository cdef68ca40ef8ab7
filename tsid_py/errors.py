"""Exceptions raised by tsid_py."""

from __future__ import annotations


class SolverError(RuntimeError):
    """The QP backend failed to return a usable solution.

    ``status`` carries the backend's own status string for logging.
    """

    def __init__(self, message: str, status: str = "failed"):
        super().__init__(message)
        self.status = status


class InfeasibleError(SolverError):
    """The hard constraints of the problem cannot all be met.

    ``conflicts`` names the groups of hard constraints (e.g. ``"torque limits"``,
    ``"contact left_sole_link: friction cone"``, ``"task FrameTask(left_sole_link)"``)
    whose relaxation was needed to make the problem feasible.
    """

    def __init__(self, message: str, conflicts: list[str], status: str = "infeasible"):
        super().__init__(message, status)
        self.conflicts = list(conflicts)
