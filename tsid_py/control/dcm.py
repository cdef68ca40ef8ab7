"""CapturePointTask: the CoM task of a balance controller, driven by capture-point feedback.

Horizontally the task does not ask for a PD on the CoM position: it chooses where the
centre of pressure should be, keeps that point inside the support polygon, and asks for the
CoM acceleration the linear inverted pendulum (:mod:`tsid_py.control.capture_point`) gets
from it. With ``ξ = c + ċ/ω`` the capture point and ``ξ_ref = c_ref + ċ_ref/ω`` its
reference, the centre of pressure that makes the capture point error decay at ``gain`` (1/s),
``ξ̇ − ξ̇_ref = −gain (ξ − ξ_ref)``, follows from ``ξ̇ = ω (ξ − p)``:

    p* = ξ + (gain (ξ − ξ_ref) − ξ̇_ref) / ω,    ξ̇_ref = ċ_ref + c̈_ref / ω.

``p = clamp(p*)`` is the nearest point of the support polygon (so the commanded CoP never
leaves the soles) and the CoM is asked ``c̈ = ω² (c − p)``. Unsaturated, the law is a PD on
the CoM with ``kp = ω gain`` and ``kd = ω + gain``; saturated, it is the best the soles can
do, and the **hip strategy** asks for part of the rest, ``hip_ratio · ω² (p − p*)``, which
the centre of pressure cannot give: the QP finds it in the centroidal angular momentum
(rotating the trunk), against the torso and momentum tasks. Vertically the task is the
usual PD (``height_kp``, 1/s²) toward the reference height.
"""

from __future__ import annotations

import numpy as np
from numba import boolean, float64, intp, njit

from .._numba import MATRIX, VECTOR, direct_calls
from .._validation import as_vector, positive_scalar
from ..row_writers import pd_rows_inline
from ..settings import Setting, assigned, fraction, non_negative, optional_non_negative
from ..tasks import CoMTask
from .capture_point import SupportPolygon, lipm_frequency


@njit(boolean(VECTOR, VECTOR, float64, float64, float64, float64, MATRIX, VECTOR, MATRIX, VECTOR, VECTOR, VECTOR,
              intp[:], VECTOR, VECTOR, VECTOR, VECTOR, VECTOR, MATRIX, VECTOR, VECTOR, VECTOR), cache=True)
def capture_point_rows(com, com_velocity, omega, gain, offset_x, offset_y, edges, state, jacobian, v, drift,
                       position_ref, kept, scale, acceleration_ref, velocity_ref, kp, kd, matrix, vector, error,
                       error_rate):
    """:meth:`CapturePointTask.command` and the CoM task's rows in one call, for the usual
    case, a commanded centre of pressure ``p*`` inside the support (``edges``: rows
    ``(nx, ny, offset)`` of its half-planes, none for no support): ``state = (ξ, p*, 0)``,
    the horizontal ``c̈`` into ``acceleration_ref``, ``error = c_ref − c`` and the PD rows
    (:func:`~tsid_py.row_writers.pd_rows`). Returns False, having written nothing, when
    ``p*`` is outside (or not finite): the caller takes the general path. The arithmetic
    is :meth:`~CapturePointTask.command`'s, operation for operation (no fast-math here), so
    both paths give the same bits."""
    cx, cy = com[0], com[1]
    xi_x, xi_y = cx + com_velocity[0] / omega, cy + com_velocity[1] / omega
    scale_xi = 1.0 + gain / omega
    px, py = scale_xi * xi_x - offset_x, scale_xi * xi_y - offset_y
    if px != px or py != py:
        return False
    for k in range(edges.shape[0]):
        if edges[k, 0] * px + edges[k, 1] * py > edges[k, 2] + 1e-12:
            return False
    state[0], state[1], state[2], state[3], state[4] = xi_x, xi_y, px, py, 0.0
    square = omega * omega
    acceleration_ref[0] = square * (cx - px) + 0.0 * (px - px)
    acceleration_ref[1] = square * (cy - py) + 0.0 * (py - py)
    for i in range(error.size):
        error[i] = position_ref[i] - com[i]
    pd_rows_inline(jacobian, v, drift, error, 0, kept, scale, acceleration_ref, velocity_ref, kp, kd, matrix, vector,
                   error_rate)
    return True


_direct = direct_calls(capture_point_rows)
_NO_EDGES = np.zeros((0, 3))
_UNCHANGED = object()


class CapturePointTask(CoMTask):
    """CoM task with capture-point feedback and a centre of pressure kept in ``support``.

    Parameters
    ----------
    com_height : height of the CoM above the soles (m), for ``ω = √(g / z)``.
    gain : decay rate of the capture point error, 1/s.
    hip_ratio : share (0 … 1) of the CoM acceleration the saturated centre of pressure
        cannot give that is still asked for (the hip strategy).
    height_kp : stiffness of the vertical CoM PD, 1/s² (kd = 2√kp).
    reference_margin : m; the reference capture point is kept this far inside the support
        polygon (see :meth:`_update_offset`), or None: followed wherever it goes (a walk's
        plan takes it out of the stance sole on purpose, see :attr:`reference_margin`).
    gravity : m/s².

    ``cop`` is the commanded centre of pressure (x, y) of the last step, ``dcm`` the capture
    point, ``saturated`` whether ``p*`` was outside the support polygon.
    """

    def __init__(self, com_height: float, *, gain: float = 8.0, hip_ratio: float = 0.5, height_kp: float = 100.0,
                 reference_margin: float | None = 0.01, weight=1.0, gravity: float = 9.81, name: str | None = None):
        super().__init__(kp=[0.0, 0.0, positive_scalar(height_kp, "height_kp", allow_zero=True)], weight=weight,
                         name=name or "CapturePointTask")
        self.omega = lipm_frequency(com_height, gravity)
        self._gain = positive_scalar(gain, "gain", allow_zero=True)
        self._cop_offset = [0.0, 0.0]
        self.hip_ratio = hip_ratio
        self.support: SupportPolygon | None = None
        self._reference_region: SupportPolygon | None = None
        self.reference_margin = reference_margin
        #: ``(ξ_x, ξ_y, p_x, p_y, saturated)`` of the last step (see the properties).
        self._state = np.zeros(5)
        self._edges_for, self._edges = None, _NO_EDGES     # the support's half-planes, as rows
        self._target_acceleration = np.zeros(3)

    @property
    def dcm_xy(self) -> tuple[float, float]:
        """The capture point (x, y) at the last step, m."""
        return tuple(self._state[:2].tolist())

    @property
    def cop_xy(self) -> tuple[float, float]:
        """The commanded centre of pressure (x, y) at the last step, m."""
        return tuple(self._state[2:4].tolist())

    @property
    def saturated(self) -> bool:
        """Whether the last step's ``p*`` was outside the support polygon."""
        return self._state.item(4) != 0.0

    gain = Setting(non_negative, after="_gain_changed")
    """Decay rate of the capture point error, 1/s (≥ 0)."""

    hip_ratio = Setting(fraction)
    """Share (0 … 1) of the CoM acceleration the saturated centre of pressure cannot give
    that the hip strategy asks of the angular momentum."""

    reference_margin = Setting(optional_non_negative, after="_reference_margin_changed")
    """Distance (m) kept between the reference capture point and the support polygon's
    edges, or None: no clamp. Standing, a reference at the edge cannot be tracked
    (:meth:`_update_offset`); walking, the reference capture point leaves the stance
    sole during each swing by design (``ξ̇ = ω (ξ − p)`` with the planned ZMP ``p`` on
    that sole, toward the next foothold), and clamping it there, at rest, removes the
    plan's feed-forward (measured: G1 fell at its first touch-down)."""

    def _gain_changed(self) -> None:
        if self.position_ref is not None:
            self._update_offset()

    def _reference_margin_changed(self) -> None:
        if self.support is not None:
            self.set_support(self.support)

    def set_support(self, support: SupportPolygon, *, hip_ratio=_UNCHANGED, reference_margin=_UNCHANGED) -> None:
        """The polygon the commanded centre of pressure is kept in (world x, y, m), and with
        it, when given, the :attr:`hip_ratio` and :attr:`reference_margin` in force: a
        balance stage's per-step inputs (:class:`~tsid_py.control.support.CapturePointStage`)."""
        if not isinstance(support, SupportPolygon):
            raise ValueError(f"support must be a SupportPolygon, got {type(support).__name__}")
        if hip_ratio is not _UNCHANGED:
            self.hip_ratio = hip_ratio
        if reference_margin is not _UNCHANGED:
            self._reference_margin = optional_non_negative(reference_margin, "reference_margin")
        self.support = support
        assigned(self)                     # a new support is a change of the task's parameters
        margin = self._reference_margin
        self._reference_region = None if margin is None else support.shrunk(margin)
        if self.position_ref is not None:
            self._update_offset()

    def set_target(self, target, velocity=None, acceleration=None) -> None:
        """CoM reference position (m), velocity (m/s) and acceleration (m/s²), world axes."""
        super().set_target(target, velocity, None)
        self._target_acceleration = (np.zeros(3) if acceleration is None
                                     else as_vector(acceleration, "acceleration", 3))
        self.acceleration_ref = self._target_acceleration.copy()
        self._update_offset()

    def _update_offset(self) -> None:
        """``p* = (1 + gain/ω) ξ − offset`` with ``offset = (gain ξ_ref + ξ̇_ref) / ω``, which
        only changes with the target, the gain and the support.

        A reference capture point at or beyond the support polygon's edge cannot be tracked
        (the centre of pressure would have to reach or leave the edge to hold it there): one
        closer than ``reference_margin`` to an edge is replaced by the nearest point that far
        inside, at rest. A CoM trajectory that is fast for the robot's ω — a 1 s
        minimum-jerk shift over one foot leads its end by ``ċ/ω``, on G1 past the sole's
        outer edge — then slows down instead of leaving the robot with a capture point it
        cannot bring back."""
        omega, gain = self.omega, self._gain
        xi_x, xi_y = (self.position_ref[:2] + self.velocity_ref[:2] / omega).tolist()
        rate_x, rate_y = (self.velocity_ref[:2] + self._target_acceleration[:2] / omega).tolist()
        if self._reference_region is not None:
            inside_x, inside_y = self._reference_region.clamp_xy(xi_x, xi_y)
            if inside_x != xi_x or inside_y != xi_y:
                xi_x, xi_y, rate_x, rate_y = inside_x, inside_y, 0.0, 0.0
        self._cop_offset = [(gain * xi_x + rate_x) / omega, (gain * xi_y + rate_y) / omega]

    #: Between steps the task changes its target (:meth:`target_arrays`), its support and
    #: settings (a flight recorder sees those as setting changes: :meth:`set_support` counts
    #: as one) and its outputs (``cop``, ``dcm``: written by the step).
    targets_complete = True

    def target_arrays(self) -> tuple[np.ndarray, ...]:
        """The CoM task's target arrays and the acceleration given to :meth:`set_target`
        (``acceleration_ref``'s horizontal part is this step's command, not an input)."""
        return (*super().target_arrays(), self._target_acceleration)

    def restore_targets(self, values) -> None:
        """:meth:`target_arrays`'s values back, and the offset of ``p*`` they give, exactly
        as :meth:`set_target` computed it."""
        *target, acceleration = values
        super().restore_targets(target)
        self._target_acceleration = np.array(acceleration, dtype=float)
        self._update_offset()

    def kinematics(self, robot):
        """This step's horizontal ``c̈`` into the feed-forward (:meth:`command`), then the
        CoM's kinematics."""
        self.command(robot)
        return super().kinematics(robot)

    def write_rows(self, context, matrix, vector, weighted):
        """:meth:`command`, then the CoM task's compiled rows: in one compiled call
        (:func:`capture_point_rows`) while ``p*`` is inside the support."""
        robot, support = context.robot, self.support
        if support is not self._edges_for:
            self._edges_for = support
            self._edges = (_NO_EDGES if support is None
                           else np.ascontiguousarray(np.column_stack([support.normals, support.offsets])))
        self.error, self.error_rate = self.error_buffers
        offset_x, offset_y = self._cop_offset
        if not _direct.capture_point_rows(robot.com, robot.com_velocity, self.omega, self._gain, offset_x, offset_y,
                                          self._edges, self._state, robot.com_jacobian, robot.v, robot.com_drift,
                                          self.position_ref, self._rows, self._row_scales[weighted],
                                          self.acceleration_ref, self.velocity_ref, self._kp, self._kd, matrix, vector,
                                          self.error, self.error_rate):
            self.command(robot)
            super().write_rows(context, matrix, vector, weighted)

    def command(self, robot) -> None:
        """Write this step's horizontal ``c̈ = ω² (c − p) + hip (p − p*)`` into the
        feed-forward, with ``p`` the commanded centre of pressure clamped into the support.
        (Scalar arithmetic: on 2-vectors, numpy's per-call cost would be the whole cost.)"""
        omega = self.omega
        cx, cy, _ = robot.com.tolist()
        vx, vy, _ = robot.com_velocity.tolist()
        xi_x, xi_y = cx + vx / omega, cy + vy / omega
        scale = 1.0 + self._gain / omega
        offset_x, offset_y = self._cop_offset
        px, py = scale * xi_x - offset_x, scale * xi_y - offset_y
        qx, qy = (px, py) if self.support is None else self.support.clamp_xy(px, py)
        saturated = qx != px or qy != py
        self._state[:] = (xi_x, xi_y, qx, qy, 1.0 if saturated else 0.0)
        square = omega * omega
        hip = self.hip_ratio * square if saturated else 0.0
        acceleration = self.acceleration_ref
        acceleration[0] = square * (cx - qx) + hip * (qx - px)
        acceleration[1] = square * (cy - qy) + hip * (qy - py)

    @property
    def dcm(self) -> np.ndarray:
        """The capture point (x, y) at the last step, m."""
        return self._state[:2].copy()

    @property
    def cop(self) -> np.ndarray:
        """The commanded centre of pressure (x, y) at the last step, m."""
        return self._state[2:4].copy()
