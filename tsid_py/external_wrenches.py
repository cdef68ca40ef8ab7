"""Known external wrenches: a carried load, a force measured at a hand, a force plate's reading.

A wrench ``w_k = [f; m]`` (N, N·m) that the environment exerts on the robot at a frame,
measured or known rather than chosen by the QP, enters the equation of motion as data:

    M q̈ + h = Sᵀ τ + Σ_c J_cᵀ f_c + Σ_k J_kᵀ w_k

with ``J_k`` the frame's Jacobian (6 × nv) in the wrench's axes. The assembly
(:class:`tsid_py.assembly.Layout`) moves the known term to the bias, ``h − Σ_k J_kᵀ w_k``,
wherever ``h`` appears: the floating base's root equalities, the torque map ``τ_a = T x + t``
that torque limits and tasks read, and the torques of the solution. No variable is added, so
a known wrench costs one compiled call a step.

The wrench is given, as the package's convention says, force first, at the frame's origin, in
world-aligned axes — or in the frame's own axes with ``local=True`` (a wrist force/torque
sensor's reading) — and its moment may be given about another world point (a force plate's
centre of pressure, the moment then the free moment). Its generalized force is
:func:`tsid_py.frames.add_generalized_force`, the package's one map from a wrench to joint
space (the offline inverse dynamics' known wrenches are these items).
"""

from __future__ import annotations

import numpy as np
from numba import boolean, float64, njit, void

from ._numba import ORDERED_MATH, VECTOR, direct_calls
from ._validation import as_vector
from .frames import FRAME_SOURCES, add_generalized_force_inline
from .items import SolverItem
from .settings import Setting, flag


@njit(void(*FRAME_SOURCES, VECTOR, boolean, VECTOR, boolean, float64, VECTOR), cache=True, fastmath=ORDERED_MATH)
def wrench_generalized_force(joint_jacobians, joint_jacobian_rates, columns, translation, rotation, wrench, local,
                             point, about_point, scale, out):
    """``out += scale · J_pᵀ [f; m]`` for the wrench ``[f; m]`` on a frame (its sources as
    :data:`~tsid_py.frames.FRAME_SOURCES`): in world-aligned axes, or in the frame's axes
    when ``local`` (rotated to the world by ``R``); the moment about the frame's origin, or
    about the world point ``point`` when ``about_point``. The moment about the world origin
    is ``m + p × f`` with ``p`` that point (:func:`~tsid_py.frames.add_generalized_force`)."""
    fx, fy, fz, mx, my, mz = wrench[0], wrench[1], wrench[2], wrench[3], wrench[4], wrench[5]
    if local:
        R = rotation
        fx, fy, fz = (R[0, 0] * fx + R[0, 1] * fy + R[0, 2] * fz, R[1, 0] * fx + R[1, 1] * fy + R[1, 2] * fz,
                      R[2, 0] * fx + R[2, 1] * fy + R[2, 2] * fz)
        mx, my, mz = (R[0, 0] * mx + R[0, 1] * my + R[0, 2] * mz, R[1, 0] * mx + R[1, 1] * my + R[1, 2] * mz,
                      R[2, 0] * mx + R[2, 1] * my + R[2, 2] * mz)
    p = point if about_point else translation
    mx, my, mz = mx + p[1] * fz - p[2] * fy, my + p[2] * fx - p[0] * fz, mz + p[0] * fy - p[1] * fx
    add_generalized_force_inline(joint_jacobians, columns, scale * fx, scale * fy, scale * fz, scale * mx, scale * my,
                                 scale * mz, out)


_direct = direct_calls(wrench_generalized_force)


class ExternalWrench(SolverItem):
    """A known wrench on a frame, in the equation of motion (see the module).

    Parameters
    ----------
    frame : the frame the environment acts on (a URDF link or any frame of the model).
    wrench : ``[fx, fy, fz, mx, my, mz]`` exerted by the environment on the robot, N and N·m
        (default zero until :meth:`set_wrench`).
    local : the wrench is in the frame's own axes (a wrist sensor's reading) instead of
        world-aligned axes.
    name : how the solver and reports name it (default: the frame's name); unique in a solver.

    ``solver.add_external_wrench(ExternalWrench("arm_right_7_link", [0, 0, -98.1, 0, 0, 0]))``;
    then :meth:`set_wrench` each step (a constant stays as set). An item belongs to one
    solver; it pickles and copies with it.
    """

    local = Setting(flag)
    """Whether the wrench is in the frame's own axes (else world-aligned), read at each solve."""

    def __init__(self, frame: str, wrench=None, *, local: bool = False, name: str | None = None):
        if not isinstance(frame, str):
            raise ValueError(f"frame must be a frame name (str), got {frame!r}")
        if name is not None and not isinstance(name, str):
            raise ValueError(f"name must be a str, got {name!r}")
        self.frame = frame
        self.name = frame if name is None else name
        self.local = local
        self.frame_id = -1
        self._sources = None
        self._wrench = np.zeros(6)
        self._point = np.zeros(3)
        self._about_point = False
        if wrench is not None:
            self.set_wrench(wrench)

    def set_wrench(self, wrench, point=None) -> None:
        """The wrench from now on (6,), N and N·m, in the item's axes; its moment is about the
        frame's origin, or about the world point ``point`` (3,), m, when given (a force
        plate's centre of pressure). Copied: the caller's array may change afterwards."""
        np.copyto(self._wrench, as_vector(wrench, f"wrench of {self.name!r}", 6))
        if point is None:
            self._about_point = False
        else:
            np.copyto(self._point, as_vector(point, f"point of {self.name!r}", 3))
            self._about_point = True

    @property
    def wrench(self) -> np.ndarray:
        """The wrench in force (6,), a read-only view."""
        view = self._wrench.view()
        view.flags.writeable = False
        return view

    @property
    def point(self) -> np.ndarray | None:
        """The world point the moment is about (a copy), or None: the frame's origin."""
        return self._point.copy() if self._about_point else None

    def bind(self, robot) -> None:
        """Resolve ``frame`` against ``robot`` (``KeyError`` naming the frames otherwise) and
        take its kinematic sources for the compiled map."""
        self.frame_id = robot.frame_id(self.frame)
        self._sources = robot.frame_sources(self.frame_id)

    def add_generalized_force(self, out: np.ndarray, scale: float = 1.0) -> None:
        """``out += scale · J_kᵀ w`` (nv,) at the robot's last update (the assembly passes
        ``scale = −1`` to move the wrench into the bias)."""
        if self._sources is None:
            raise RuntimeError(f"external wrench {self.name!r} must be added to a solver first")
        sources = self._sources
        _direct.wrench_generalized_force(sources[0], sources[1], sources[2], sources[3], sources[4], self._wrench,
                                         self._local, self._point, self._about_point, scale, out)

    def generalized_force(self) -> np.ndarray:
        """``J_kᵀ w`` (nv,), N and N·m, at the robot's last update (a new array)."""
        out = np.zeros(self._wrench.size if self._sources is None else self._sources[0].shape[1])
        self.add_generalized_force(out)
        return out

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_sources"] = None               # views of one robot's buffers: bound again
        return state

    def __repr__(self) -> str:
        axes = "local" if self._local else "world"
        return f"ExternalWrench({self.frame!r}, {self._wrench.round(6).tolist()}, {axes})"
