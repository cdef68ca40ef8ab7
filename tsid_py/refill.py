"""A solution refilled in place: the control loop's extraction in one compiled call.

``solver.solve(q, v, out=sol)`` refills the solution it returned before
(:meth:`tsid_py.assembly.Layout.extract`): ``x`` copied from the backend's buffer, the
generalised forces ``τ = D x + h`` (the unactuated root's rows exactly 0), the point
contacts' local wrenches ``[f; 0]`` copied from their variables and the contact frames'
rotations copied from the robot's pass. By numpy calls that is a call per array (a few
tenths of a microsecond each: eight to ten for a quadruped). :class:`Refill` puts the point
contacts' wrenches and the rotations the solution holds in two flat buffers (the
solution's arrays become views of them) and indexes, once, where each entry comes from:
:func:`refill` then writes everything in one call.
"""

from __future__ import annotations

import numpy as np
from numba import float64, intp, njit, void

from ._numba import ORDERED_MATH, compiled_function, inlined

_VALUES, _INDICES = float64[::1], intp[::1]
_FLOAT64 = np.dtype(np.float64)


@njit(void(_VALUES, _VALUES, float64[:, :], _VALUES, intp, _VALUES, _VALUES, _INDICES, _VALUES, _INDICES,
           _INDICES, _VALUES), cache=True, fastmath=ORDERED_MATH, _nrt=False)
def refill(x_in, x, D, bias, zero_rows, tau, sources, source_index, rotations, force_index, force_target, forces):
    """``x = x_in``; ``τ = D x + h`` with its first ``zero_rows`` entries 0 (the generalised
    forces, whose unactuated root's rows the equalities zero); ``rotations[k] = sources[source_index[k]]`` (the
    frames' rotations, from the pass's buffer) and ``forces[force_target[k]] = x[force_index[k]]``
    (the point contacts' forces; the moments' entries are not written: they stay 0)."""
    for j in range(x.size):
        x[j] = x_in[j]
    for i in range(zero_rows):
        tau[i] = 0.0
    for i in range(zero_rows, tau.size):
        value = bias[i]
        for j in range(x.size):
            value += D[i, j] * x[j]
        tau[i] = value
    for k in range(source_index.size):
        rotations[k] = sources[source_index[k]]
    for k in range(force_index.size):
        forces[force_target[k]] = x[force_index[k]]


refill_inline = inlined(refill)


_refill = compiled_function(refill)
#: :func:`refill`'s arguments after ``tau`` when there is nothing to gather.
_NOTHING = (np.zeros(0), np.zeros(0, dtype=np.intp), np.zeros(0), np.zeros(0, dtype=np.intp),
            np.zeros(0, dtype=np.intp), np.zeros(0))


def torques(x: np.ndarray, D: np.ndarray, bias: np.ndarray, zero_rows: int, tau: np.ndarray) -> None:
    """``tau = D x + h``, its first ``zero_rows`` entries 0: :func:`refill`'s arithmetic (a
    new solution's τ is then the same, bit for bit, as a refilled one's)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    _refill(x, x, D, np.ascontiguousarray(bias, dtype=np.float64), zero_rows, tau, *_NOTHING)


def _offset(view: np.ndarray, buffer: np.ndarray | None) -> int | None:
    """Where the C-contiguous float64 ``view`` starts in the flat ``buffer`` (entries), or
    None when it is not such a view."""
    if (buffer is None or view.dtype != np.float64 or not view.flags.c_contiguous
            or not np.shares_memory(view, buffer)):
        return None
    return (view.__array_interface__["data"][0] - buffer.__array_interface__["data"][0]) // buffer.itemsize


def _indices(parts: list) -> np.ndarray:
    return np.concatenate(parts).astype(np.intp) if parts else np.zeros(0, dtype=np.intp)


class Refill:
    """The refills of one solution a layout made (``solver.solve(..., out=solution)``): the
    first one plans them (:meth:`plan`: one compiled call from then on) when the robot's pass
    is the compiled one; otherwise each refill copies ``x``, forms ``τ`` and copies each point
    contact's forces and each rotation."""

    def __init__(self, solution, wrench_sources, buffer: np.ndarray | None):
        self.solution, self.wrench_sources, self.buffer = solution, wrench_sources, buffer
        x, local = solution.x, solution.local_wrenches
        #: ``(target, source)`` of each copy when there is no plan.
        self.copies = [(local[name][:columns.stop - columns.start], x[columns])
                       for name, columns, _, _ in wrench_sources if not np.shares_memory(local[name], x)]
        self.copies += [(solution.frame_rotations[name], rotation) for name, _, _, rotation in wrench_sources]
        self.planned = False
        self.arguments = None        # the compiled call's arguments after the solution's x and tau

    def run(self, x_in: np.ndarray, D: np.ndarray, bias: np.ndarray, zero_rows: int) -> None:
        """Refill the solution's ``x``, ``tau``, rotations and point contacts' forces from a
        backend's ``x_in`` (``τ = D x + h``, its first ``zero_rows`` entries 0)."""
        solution = self.solution
        if not self.planned:
            self.plan()
        if x_in.dtype is not _FLOAT64 or x_in.shape != solution.x.shape or not x_in.flags.c_contiguous:
            x_in = np.ascontiguousarray(x_in, dtype=np.float64).reshape(solution.x.shape)    # (or the error)
        if self.arguments is not None:
            _refill(x_in, solution.x, D, bias, zero_rows, solution.tau, *self.arguments)
        else:                                     # (pinocchio's pass: its bias, its rotations)
            _refill(x_in, solution.x, D, np.ascontiguousarray(bias, dtype=np.float64), zero_rows, solution.tau,
                    *_NOTHING)
            for target, source in self.copies:
                np.copyto(target, source)

    def run_planned(self, x_in: np.ndarray, D: np.ndarray, bias: np.ndarray, zero_rows: int) -> None:
        """:meth:`run` once planned on the compiled pass's buffer (``arguments`` not None),
        ``x_in`` a float64 vector of ``x``'s size (a backend's own buffer): the compiled call
        alone (a steady step's, :mod:`tsid_py.solver_steady`)."""
        solution, gather = self.solution, self.arguments
        _refill(x_in, solution.x, D, bias, zero_rows, solution.tau, gather[0], gather[1], gather[2], gather[3],
                gather[4], gather[5])

    def plan(self) -> None:
        """Put the solution's rotations and point contacts' wrenches (those that are not views
        of ``x``) in two flat buffers — the solution's arrays become views of them, with the
        same values — and index where each entry comes from, in the pass's flat buffer and in
        ``x``: :func:`refill`'s arguments. Nothing changes when a rotation is not a view of
        that buffer (pinocchio's pass)."""
        self.planned = True
        solution, sources, buffer = self.solution, self.wrench_sources, self.buffer
        offsets = [_offset(rotation, buffer) for _, _, _, rotation in sources]
        if buffer is None or None in offsets:
            return
        x, local, rotations = solution.x, solution.local_wrenches, solution.frame_rotations
        points = [(name, columns) for name, columns, _, _ in sources if not np.shares_memory(local[name], x)]
        flat, forces = np.empty(9 * len(sources)), np.zeros(6 * len(points))
        for k, (name, _, _, _) in enumerate(sources):
            flat[9 * k:9 * k + 9] = rotations[name].ravel()
            rotations[name] = flat[9 * k:9 * k + 9].reshape(3, 3)
        for k, (name, _) in enumerate(points):
            forces[6 * k:6 * k + 6] = local[name]
            local[name] = forces[6 * k:6 * k + 6]
        self.arguments = (buffer, _indices([np.arange(start, start + 9) for start in offsets]), flat,
                          _indices([np.arange(columns.start, columns.stop) for _, columns in points]),
                          _indices([6 * k + np.arange(columns.stop - columns.start)
                                    for k, (_, columns) in enumerate(points)]), forces)
