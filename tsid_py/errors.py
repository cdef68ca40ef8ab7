"""Exceptions raised by tsid_py."""

from __future__ import annotations

#: Default bound, in seconds, on the conflict search an :class:`InfeasibleError` runs when
#: its ``conflicts`` are first read (a Talos step needs a few milliseconds).
CONFLICT_TIME_LIMIT = 1.0


class SolverError(RuntimeError):
    """The QP backend failed to return a usable solution.

    ``status`` carries the backend's own status string for logging; ``qp``, when the solver
    raised it, is a copy of the failed :class:`~tsid_py.qp.QP` for offline inspection.
    ``level``: with priority levels, the level (1, 2, …, or "soft") whose QP failed although the hard
    rows and every level above it were solved (``qp`` is then that level's QP); None when the
    failure is the hard rows' or the problem has no levels.
    """

    def __init__(self, message: str, status: str = "failed", level: int | str | None = None):
        super().__init__(message)
        self.status = status
        self.qp = None
        self.level = level

    def __reduce__(self):
        return _rebuild, (type(self), self.__dict__.copy(), str(RuntimeError.__str__(self)))


def _rebuild(cls, state: dict, message: str):
    """Unpickle an error: its message and attributes, whatever its constructor's signature."""
    error = cls.__new__(cls)
    RuntimeError.__init__(error, message)
    error.__dict__.update(state)
    return error


class InfeasibleError(SolverError):
    """The hard constraints of the problem cannot all be met.

    ``conflicts`` names an irreducible set of groups of hard constraints (e.g.
    ``"torque limits"``, ``"contact left_sole_link: friction cone"``,
    ``"task FrameTask(left_sole_link)"``, ``"equation of motion (floating base)"``): together
    they are infeasible, and without any one of them the rest are feasible. It is found when
    first read (or by :meth:`find_conflicts`), off the control path: ``solve()`` raises at
    once. ``str(error)`` names the conflicts, so printing the error runs the search too.
    """

    def __init__(self, message: str, conflicts: list[str] | None = None, status: str = "infeasible", *,
                 search=None):
        """Either ``conflicts`` are given, or ``search`` finds them: an object whose
        ``run(time_limit)`` returns ``(groups, complete)`` and may be called again to go on."""
        if conflicts is None and search is None:
            raise ValueError("InfeasibleError needs conflicts or a search that finds them")
        super().__init__(message, status)
        self.search = search
        self._conflicts = None if conflicts is None else list(conflicts)
        #: False while the conflicts are a superset the time limit cut short (or not searched yet).
        self.complete = conflicts is not None

    @property
    def conflicts(self) -> list[str]:
        """The irreducible set of conflicting groups (searched for on first read, within
        :data:`CONFLICT_TIME_LIMIT`; a superset, with ``complete`` False, if it ran out)."""
        if self._conflicts is None:
            self.find_conflicts()
        return list(self._conflicts)

    def find_conflicts(self, time_limit: float | None = CONFLICT_TIME_LIMIT) -> list[str]:
        """Run (or resume) the conflict search for at most ``time_limit`` seconds (None: no
        limit) and return the conflicting groups; ``complete`` tells whether the set is
        irreducible or a superset the time limit cut short."""
        if not self.complete:
            groups, self.complete = self.search.run(time_limit)
            self._conflicts = list(groups)
        return list(self._conflicts)

    def __str__(self) -> str:
        headline = super().__str__()
        conflicts = self.conflicts
        if self.complete:
            return f"{headline}; these conflict (irreducible: drop any one and the rest are feasible): " \
                   + ", ".join(conflicts)
        return (f"{headline}; the conflict search hit its time limit: these conflict, but may not all be "
                "needed (call error.find_conflicts(time_limit=None) to finish): " + ", ".join(conflicts))
