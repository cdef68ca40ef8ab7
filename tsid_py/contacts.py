"""Contacts: the wrench variables of the QP, their friction constraints and their kinematics.

Each contact owns its force parametrisation (TSID calls it the force-generator matrix): its
``size`` variables ``f`` make the wrench ``w_local = G f`` at the frame origin in the frame's
own axes (``z`` is the surface normal pointing into the robot), with ``G`` (6 × size)
:attr:`Contact.generator`. The friction and centre-of-pressure rows ``F f ≤ 0``
(:attr:`Contact.friction_matrix`) are constant matrices in those variables, built once. The
world-aligned wrench at the frame origin is ``blockdiag(R, R) G f`` with ``R`` the frame's
rotation, and the equation of motion uses ``J_localᵀ G f``.

A new contact type is one subclass: set ``size``, ``motion_rows`` and ``normal_index``, and
override :meth:`Contact.force_generator` and :meth:`Contact.friction_rows` (with
:meth:`Contact.describe_rows`); the solver, the tasks on wrenches and the inverse dynamics
read nothing else.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from numba import boolean, float64, intp, njit, void

from ._numba import MATRIX, ORDERED_MATH, VECTOR, direct_calls, inlined
from ._validation import positive_scalar, priority as check_priority
from .frames import FRAME_SOURCES, frame_motion_inline, placement_error
from .items import SolverItem
from .settings import Setting, flag, non_negative, positive
from .wrench_cone import convex_polygon, wrench_cone_rows

#: The inscribed pyramid keeps |f_x| ≤ μ/√2 f_z and |f_y| ≤ μ/√2 f_z, so that
#: √(f_x² + f_y²) ≤ μ f_z: no force outside the true Coulomb cone.
INSCRIBED_PYRAMID = 1.0 / np.sqrt(2.0)

#: A contact's default largest normal force is this many times the robot's weight: far above
#: what standing, walking or landing asks (a fixed 1e4 N was below a heavy robot's weight).
DEFAULT_FORCE_FACTOR = 20.0

#: Default stiffness of a contact's stabilisation, 1/s² (``kd`` = 2√kp = 20 1/s): a sole that
#: starts to rock or slide (the simulator's contacts are compliant) is brought back within
#: about 0.1–0.2 s instead of keeping its velocity. Measured on Talos under 0.1 s pushes, it
#: is what lets the soles stay flat up to the capture-point bounds (benchmarks/balance_sweep.py).
DEFAULT_KP = 100.0


@njit(void(*FRAME_SOURCES, VECTOR, float64, float64, VECTOR, MATRIX, intp, MATRIX, boolean, MATRIX, VECTOR, MATRIX,
           MATRIX, MATRIX, VECTOR), cache=True, fastmath=ORDERED_MATH)
def contact_rows(joint_jacobians, joint_jacobian_rates, columns, translation, rotation, v, kp, kd, anchor_translation,
                 anchor_rotation, first_row, generator, selects, jacobian, drift, force_block, root_block, matrix,
                 vector):
    """A contact's part of the QP from its frame's LOCAL Jacobian ``J`` and drift ``J̇v``
    (formed into ``jacobian`` and ``drift`` by :func:`~tsid_py.frames.frame_motion`): its
    columns of ``D``, ``force_block = −Jᵀ G`` (nv × s, ``G`` the contact's 6 × s force
    generator; when ``selects``, ``G`` is the first s columns of the identity and the block
    is ``−J[:s]ᵀ``, copied); the same columns of the root rows held as equalities,
    ``root_block = force_block[:r]`` (no rows when the root is not held); and its no-slip
    rows ``matrix[i] = J[first_row + i]``,
    ``vector[i] = −J̇v[first_row + i] − kd J[first_row + i] v + kp e[first_row + i]`` with ``e``
    the frame's drift from its anchor in its own axes (:func:`~tsid_py.frames.placement_error`,
    local; no position term when ``kp == 0``); ``matrix`` may have no rows (a contact without
    kinematics)."""
    frame_motion_inline(joint_jacobians, joint_jacobian_rates, columns, translation, rotation, v, True, jacobian, drift)
    nv, size = force_block.shape
    for i in range(nv):
        for j in range(size):
            if selects:
                force_block[i, j] = -jacobian[j, i]
            else:
                value = 0.0
                for k in range(6):
                    value += jacobian[k, i] * generator[k, j]
                force_block[i, j] = -value
    for i in range(root_block.shape[0]):
        for j in range(size):
            root_block[i, j] = force_block[i, j]
    error = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    if kp != 0.0 and matrix.shape[0] > 0:
        error = placement_error(translation, rotation, anchor_translation, anchor_rotation, True)
    for r in range(matrix.shape[0]):
        row = first_row + r
        velocity = 0.0
        for i in range(nv):
            matrix[r, i] = jacobian[row, i]
            velocity += jacobian[row, i] * v[i]
        vector[r] = -drift[row] - kd * velocity + kp * error[row]


contact_rows_inline = inlined(contact_rows)


_direct = direct_calls(contact_rows)


class Contact(SolverItem):
    """Common parts of point and planar contacts.

    Parameters
    ----------
    frame : name of the contact frame (z axis along the surface normal, into the robot).
    mu : Coulomb friction coefficient (> 0).
    f_min, f_max : bounds on the normal force, N (0 ≤ f_min < f_max; ``f_max`` default:
        :data:`DEFAULT_FORCE_FACTOR` × the robot's weight, set when the contact is added).
    kp : stiffness of the contact-acceleration stabilisation, 1/s² (:data:`DEFAULT_KP`);
        ``kd`` (1/s) defaults to 2√kp (critically damped: 20 1/s for the default). The
        constraint asks ``J q̈ + J̇ v = −kd J v + kp e`` where ``e`` is the frame's drift from
        where the contact was made, in its own axes (m, then rad). With ``kp = kd = 0`` a sole
        that has started to rock or slide keeps its velocity; with the defaults that velocity
        decays with a time constant of 0.1 s and the drift is pulled back.
    priority : "hard" (equality, default), "soft" with ``weight`` (1/(m/s²)²), or a level
        ``1, 2, …`` where the no-slip rows, weighted so, are minimised lexicographically (the
        friction and normal-force rows stay hard).
    unilateral : enforce the friction pyramid, the normal-force bounds and (planar) the
        centre-of-pressure and torsion rows. ``False`` leaves the wrench free (e.g. inverse
        dynamics that only asks the root equation to balance).
    kinematic : constrain the frame's acceleration. ``False`` when the motion is prescribed
        otherwise (inverse dynamics of a recorded motion).

    Every parameter is a validated property: changing one after the contact was added
    takes effect at the next solve.
    """

    #: Number of force variables.
    size: int = 0
    #: Which rows of the 6-D local frame motion (linear, then angular) the contact fixes.
    motion_rows: slice = slice(0, 0)
    #: Index of the normal force ``f_z`` among the variables (bounded by ``[f_min, f_max]``).
    normal_index: int = 2

    def __init__(self, frame: str, *, mu: float = 0.7, f_min: float = 0.0, f_max: float | None = None,
                 kp: float = DEFAULT_KP, kd: float | None = None, priority: str | int = "hard", weight: float = 1e3,
                 unilateral: bool = True, kinematic: bool = True):
        if not isinstance(frame, str):
            raise ValueError(f"frame must be a frame name (str), got {frame!r}")
        self.frame = frame
        self.name = frame
        self.frame_id = -1
        self.anchor: pin.SE3 | None = None      # placement when the contact was made
        self._unilateral = True
        self._mu = positive_scalar(mu, "mu")
        self._f_min, self._f_max = 0.0, np.inf
        #: Whether ``f_max`` is the default, :data:`DEFAULT_FORCE_FACTOR` × the robot's weight
        #: (resolved when the contact is added to a solver).
        self.f_max_from_weight = f_max is None
        self.set_normal_force_bounds(f_min, np.inf if f_max is None else f_max)
        self.set_gains(kp, kd)
        self.priority = priority
        self.weight = weight
        self._kinematic = flag(kinematic, "kinematic")
        self.generator = self.force_generator()
        expected = np.eye(6)[:, : self.size]
        #: Whether ``generator`` is the first ``size`` columns of the identity (the compiled
        #: rows then copy the Jacobian's rows instead of multiplying).
        self.generator_selects = self.generator.shape == expected.shape and bool(np.all(self.generator == expected))
        self.unilateral = unilateral

    # --------------------------------------------------------------------------- settings
    mu = Setting(positive, after="_rebuild_friction")
    """Coulomb friction coefficient (> 0)."""

    f_min = Setting(non_negative, after="_normal_force_bounds_changed")
    """Smallest normal force, N (≥ 0, < f_max)."""

    f_max = Setting(positive, after="_f_max_assigned")
    """Largest normal force, N (> f_min); by default :data:`DEFAULT_FORCE_FACTOR` × the
    weight of the robot the contact is added to."""

    kp = Setting(non_negative)
    """Stiffness of the contact-acceleration stabilisation, 1/s² (≥ 0)."""

    kd = Setting(non_negative)
    """Damping of the contact-acceleration stabilisation, 1/s (≥ 0)."""

    priority = Setting(check_priority, after="structure_changed")
    """``"hard"`` (the no-slip rows are equalities), ``"soft"`` (a cost with :attr:`weight`) or
    a level ``1, 2, …`` (that cost, minimised at that level)."""

    weight = Setting(positive, after="structure_changed")
    """Weight of the no-slip rows when soft, 1/(m/s²)² (> 0)."""

    unilateral = Setting(flag, after="_rebuild_friction")
    """Whether friction, normal-force and (planar) centre-of-pressure bounds apply."""

    kinematic = Setting(flag, after="structure_changed")
    """Whether the frame's acceleration is constrained (no-slip rows)."""

    def set_normal_force_bounds(self, f_min: float, f_max: float) -> None:
        """Both normal-force bounds at once, N: ``0 ≤ f_min < f_max`` (``f_max`` may be inf)."""
        lower = positive_scalar(f_min, "f_min", allow_zero=True)
        upper = np.inf if f_max == np.inf else positive_scalar(f_max, "f_max")
        if lower >= upper:
            raise ValueError(f"f_min must be < f_max, got f_min={f_min}, f_max={f_max}")
        self._f_min, self._f_max = lower, upper
        self.f_max_from_weight = getattr(self, "f_max_from_weight", False) and upper == np.inf
        self._normal_force_bounds_changed()

    def _f_max_assigned(self) -> None:
        self._normal_force_bounds_changed()
        self.f_max_from_weight = False

    def _normal_force_bounds_changed(self) -> None:
        """Check ``f_min < f_max`` and publish them as one value, read each step by the assembly."""
        if self._f_min >= self._f_max:
            raise ValueError(f"f_min must be < f_max, got f_min={self._f_min}, f_max={self._f_max}")
        #: ``(f_min, f_max)`` as one value, read each step by the assembly.
        self.normal_force_bounds = (self._f_min, self._f_max)

    def set_gains(self, kp: float, kd: float | None = None) -> None:
        """``kp`` (1/s²) and ``kd`` (1/s); ``kd = 2√kp`` when omitted."""
        self.kp = kp
        self.kd = 2.0 * np.sqrt(self._kp) if kd is None else kd

    # --------------------------------------------------------------------------- parametrisation
    def force_generator(self) -> np.ndarray:
        """``G`` (6 × size): the local wrench ``[f; m]`` at the frame origin is ``G f``."""
        return np.eye(6)[:, : self.size]

    def friction_rows(self) -> np.ndarray:
        """Rows ``F`` (rows × size) with ``F f ≤ 0``: the pyramid inscribed in the Coulomb
        cone, ``|f_x|, |f_y| ≤ μ/√2 f_z``, so that no force lies outside the true cone."""
        k = self._mu * INSCRIBED_PYRAMID
        rows = np.zeros((4, self.size))
        rows[0, [0, self.normal_index]] = [1.0, -k]
        rows[1, [0, self.normal_index]] = [-1.0, -k]
        rows[2, [1, self.normal_index]] = [1.0, -k]
        rows[3, [1, self.normal_index]] = [-1.0, -k]
        return rows

    def describe_rows(self) -> list[str]:
        """A label for each row of :meth:`friction_rows`, for infeasibility reports."""
        return ["friction cone"] * 4

    def _rebuild_friction(self) -> None:
        """The constant inequality rows (none when the contact is not unilateral)."""
        self.friction_matrix = self.friction_rows() if self._unilateral else np.zeros((0, self.size))
        self.row_labels = self.describe_rows() if self._unilateral else []
        self.structure_changed()

    def local_wrench(self, variables: np.ndarray) -> np.ndarray:
        """The (6,) wrench ``G f`` in the frame's axes from the contact's variables (a view
        of ``variables`` when ``G`` is the identity)."""
        if self.generator_selects:
            if self.size == 6:
                return variables
            wrench = np.zeros(6)
            wrench[: self.size] = variables
            return wrench
        return self.generator @ variables

    def world_wrench_map(self, rotation: np.ndarray) -> np.ndarray:
        """(6 × size) ``blockdiag(R, R) G``: world-aligned wrench from the variables."""
        return np.vstack([rotation @ self.generator[:3], rotation @ self.generator[3:]])

    # --------------------------------------------------------------------------- kinematics
    def bind(self, robot) -> None:
        """Resolve the frame name against ``robot`` (called when the contact is added), and
        a default ``f_max`` against its weight."""
        self.frame_id = robot.frame_id(self.frame)
        if self.f_max_from_weight:
            self._f_max = max(DEFAULT_FORCE_FACTOR * robot.weight, 2.0 * self._f_min, 1.0)
            self._normal_force_bounds_changed()
        self._sources = robot.frame_sources(self.frame_id)
        self._jacobian, self._drift = np.zeros((6, robot.nv)), np.zeros(6)     # the kernel's, refreshed each step
        if self.anchor is None:
            self._anchor_translation, self._anchor_rotation = np.zeros(3), np.eye(3)

    def anchor_at(self, placement: pin.SE3) -> None:
        """Remember where the contact was made (the ``kp`` term pulls the frame back there)."""
        self.anchor = placement.copy()
        self._anchor_translation = np.array(placement.translation, dtype=float)
        self._anchor_rotation = np.array(placement.rotation, dtype=float)

    @property
    def anchor_translation(self) -> np.ndarray:
        """(3,) the anchor's position, world, m: the contact's own array (read it, do not write
        it; :attr:`anchor` holds the same as a ``pin.SE3``, at a copy's cost per read)."""
        return self._anchor_translation

    @property
    def anchor_rotation(self) -> np.ndarray:
        """(3, 3) the anchor's rotation, world from contact: the contact's own array (read it,
        do not write it)."""
        return self._anchor_rotation

    def packed_parameters(self, soft_scale: float, nv: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """:meth:`write_rows`'s parameters as :mod:`tsid_py.assembly_program` packs them:
        floats ``kp`` (0 before the contact is anchored), ``kd``, the rows' scale
        ``soft_scale``, the anchor's translation and rotation, the generator ``G`` and room for
        the frame's Jacobian and drift (6 nv + 6); ints the frame, the first no-slip row,
        whether ``G`` selects, and the frame's supporting columns (their count first)."""
        columns = self._sources.columns
        kp = self._kp if self.anchor is not None else 0.0
        return ([np.array([kp, self._kd, soft_scale]), self._anchor_translation, self._anchor_rotation.ravel(),
                 self.generator.ravel(), np.zeros(6 * nv + 6)],
                [np.array([self.frame_id, self.motion_rows.start, self.generator_selects, columns.size]), columns])

    def compute(self, robot) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The readable definition of the contact's part of the QP at the robot's current
        state (:meth:`write_rows` forms the same in compiled code): with ``J`` and ``J̇v`` the
        frame's LOCAL Jacobian and classical acceleration at ``q̈ = 0`` (pinocchio's), returns
        ``(force_block, A, b)``: its columns of the equation of motion ``−Jᵀ G`` (nv × size)
        and its no-slip rows ``A q̈ = b``, ``A = J[rows]``,
        ``b = −J̇v[rows] − kd J[rows] v + kp e[rows]`` with the drift from the anchor
        ``e = [Rᵀ (p_anchor − p); log3(Rᵀ R_anchor)]`` (no rows without kinematics; ``e = 0``
        before the contact is anchored)."""
        jacobian = robot.frame_jacobian(self.frame_id, pin.LOCAL)
        drift = robot.frame_drift(self.frame_id, pin.LOCAL)
        force_block = -jacobian.T @ self.generator
        if not self._kinematic:
            return force_block, np.zeros((0, robot.nv)), np.zeros(0)
        error = np.zeros(6)
        if self.anchor is not None and self._kp != 0.0:
            placement = robot.frame_placement(self.frame_id)
            rotation_t = placement.rotation.T
            error = np.r_[rotation_t @ (self.anchor.translation - placement.translation),
                          pin.log3(rotation_t @ self.anchor.rotation)]
        rows = self.motion_rows
        return (force_block, jacobian[rows],
                -drift[rows] - self._kd * jacobian[rows] @ robot.v + self._kp * error[rows])

    def write_rows(self, robot, force_block: np.ndarray, root_block: np.ndarray, matrix: np.ndarray,
                   vector: np.ndarray) -> None:
        """Write the contact's part of the QP into the solver's buffers, from its LOCAL
        Jacobian ``J`` and drift ``J̇v``: its columns of the equation of motion,
        ``force_block = −Jᵀ G``, and of its root rows held as equalities,
        ``root_block = force_block[:r]`` (no rows for a root that is not held), and its
        no-slip rows ``J_rows q̈ = −J̇v − kd J v + kp e`` (local axes) into ``matrix`` and
        ``vector`` (both empty for a contact without kinematics). ``J`` and ``J̇v`` are
        formed from the frame's sources in the same compiled call (:func:`contact_rows`)."""
        kp = self._kp if self.anchor is not None else 0.0
        sources = self._sources            # (each by position: a *-call would build an argument tuple)
        _direct.contact_rows(sources[0], sources[1], sources[2], sources[3], sources[4], robot.v, kp, self._kd, self._anchor_translation, self._anchor_rotation,
                             self.motion_rows.start, self.generator, self.generator_selects, self._jacobian,
                             self._drift, force_block, root_block, matrix, vector)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.frame!r}, mu={self.mu})"


class PointContact(Contact):
    """A 3-D force at the frame origin: a quadruped's foot, a fingertip.

    Its frame's linear acceleration is constrained (3 rows); its rotation is free.
    """

    size = 3
    motion_rows = slice(0, 3)


def _bearing_polygon(value, name: str):
    """None, or the counter-clockwise convex polygon (k ≥ 3, 2) of ``value`` (read-only)."""
    if value is None:
        return None
    polygon = convex_polygon(value, name)
    polygon.flags.writeable = False
    return polygon


class PlanarContact(Contact):
    """A 6-D wrench on a rectangular sole centred at the frame origin.

    ``length`` runs along the frame's x axis, ``width`` along y (metres). Beyond the
    friction pyramid the wrench keeps its centre of pressure in the rectangle,
    ``|m_y| ≤ (length/2) f_z`` and ``|m_x| ≤ (width/2) f_z``, and bounds the torsional moment
    ``|m_z| ≤ μ (min(length, width)/2) f_z`` — a cap that ignores the coupling with the
    centre of pressure and the tangential force. The whole frame motion is constrained (6 rows).

    With ``coupled_torsion`` the wrench is also kept in the rectangle's contact wrench cone
    (:mod:`tsid_py.wrench_cone`; its 8 faces with ``m_z``, Caron et al.'s closed form): with
    ``X, Y`` the half length and width and ``k = μ/√2``,

    .. math::

        -k (X + Y) f_z + |Y f_x - k m_x| + |X f_y - k m_y| ≤ m_z
        ≤ k (X + Y) f_z - |Y f_x + k m_x| - |X f_y + k m_y|.

    A sole pressed on an edge (``|m_x| = Y f_z`` or ``|m_y| = X f_z``) is then asked only the
    torsion that edge holds, and a tangential force applied off-centre brings its moment
    ``p × f_t`` about the frame origin, which is no torsion: the cap alone let the QP ask a
    sole bearing on its toe with a sideways force for a torsion about its centre of pressure
    several times what the toe holds (docs/walking.md, G1's spinning stance sole). The cap
    stays (pressed evenly, the cone alone allows ``k (X + Y) f_z``, 3.8 × the cap on G1's
    narrow sole). Off by default, in the balance and walking controllers too (their
    ``coupled_torsion``; measured in docs/walking.md, "The torsion a sole's edge holds").

    A sole that bears on part of itself only (on bumps: :meth:`tsid_py.control.terrain.Terrain.rest`)
    is given that part as ``bearing``, a convex polygon (k ≥ 3, 2) of the frame's x–y plane
    (m): the wrench is then kept in the exact contact wrench cone of forces at its vertices
    (:mod:`tsid_py.wrench_cone`): the centre of pressure in the polygon, the torsion coupled
    with the tangential force. ``region`` is the centre of pressure's polygon either way.

    Parameters
    ----------
    frame : name of the sole frame (z axis along the surface normal, into the robot).
    length : sole length along the frame's x axis, m (> 0).
    width : sole width along the frame's y axis, m (> 0).
    mu, f_min, f_max, kp, kd, priority, weight, unilateral, kinematic : as for
        :class:`Contact` (the same defaults: ``mu = 0.7``, ``f_min = 0`` N, ``f_max`` 20 × the
        robot's weight,
        ``kp = 0`` 1/s², ``kd = 2√kp`` 1/s, hard, ``weight = 1e3``, unilateral, kinematic).
    bearing : None (the rectangle bears) or the polygon the sole bears on (see above).
    coupled_torsion : the rectangle's torsion also within its contact wrench cone (see above;
        8 more rows). A bearing polygon's cone always couples it.
    """

    size = 6
    motion_rows = slice(0, 6)

    def __init__(self, frame: str, length: float = 0.2, width: float = 0.13, *, mu: float = 0.7, f_min: float = 0.0,
                 f_max: float | None = None, kp: float = DEFAULT_KP, kd: float | None = None,
                 priority: str | int = "hard",
                 weight: float = 1e3, unilateral: bool = True, kinematic: bool = True, bearing=None,
                 coupled_torsion: bool = False):
        self._length = positive_scalar(length, "length")
        self._coupled_torsion = flag(coupled_torsion, "coupled_torsion")
        self._width = positive_scalar(width, "width")
        self._bearing = _bearing_polygon(bearing, "bearing")
        super().__init__(frame, mu=mu, f_min=f_min, f_max=f_max, kp=kp, kd=kd, priority=priority, weight=weight,
                         unilateral=unilateral, kinematic=kinematic)

    length = Setting(positive, after="_footprint_changed")
    """Sole length along the frame's x axis, m (> 0)."""

    width = Setting(positive, after="_footprint_changed")
    """Sole width along the frame's y axis, m (> 0)."""

    coupled_torsion = Setting(flag, after="_rebuild_friction")
    """Whether the rectangle's torsion is kept in its contact wrench cone (see the class)."""

    bearing = Setting(_bearing_polygon, after="_footprint_changed")
    """The polygon the sole bears on ((k, 2) m, counter-clockwise, the frame's x–y), or None:
    the rectangle (see the class)."""

    @property
    def region(self) -> np.ndarray:
        """The centre of pressure's polygon (k, 2), counter-clockwise, m in the frame's x–y:
        the bearing polygon, or the rectangle's corners."""
        if self._bearing is not None:
            return self._bearing.copy()
        half_length, half_width = self._length / 2, self._width / 2
        return np.array([[half_length, half_width], [-half_length, half_width], [-half_length, -half_width],
                         [half_length, -half_width]])

    def _footprint_changed(self) -> None:
        """The rectangle or the bearing polygon changed: its friction and centre-of-pressure rows, and what the owner
        derives from the footprint (a controller's support polygon)."""
        self._rebuild_friction()
        if self._owner is not None:
            self._owner.footprint_changed()

    def friction_rows(self) -> np.ndarray:
        """With a bearing polygon, the faces of its contact wrench cone. Else the pyramid,
        the centre of pressure in the rectangle and the torsion cap, then with
        ``coupled_torsion`` the eight faces of the rectangle's cone with ``m_z`` (see the
        class)."""
        if self._bearing is not None:
            return wrench_cone_rows(self._bearing, self._mu)
        pyramid = super().friction_rows()
        half_length, half_width = self._length / 2, self._width / 2
        torsion = self._mu * min(half_length, half_width)
        rows = np.zeros((6, 6))
        rows[0, [4, 2]] = [1.0, -half_length]    # m_y ≤ (l/2) f_z   (CoP_x ≥ −l/2)
        rows[1, [4, 2]] = [-1.0, -half_length]
        rows[2, [3, 2]] = [1.0, -half_width]     # m_x ≤ (w/2) f_z
        rows[3, [3, 2]] = [-1.0, -half_width]
        rows[4, [5, 2]] = [1.0, -torsion]
        rows[5, [5, 2]] = [-1.0, -torsion]
        if not self._coupled_torsion:
            return np.vstack([pyramid, rows])
        cone = wrench_cone_rows(self.region, self._mu)      # its other 8 faces: the pyramid's and the CoP's
        return np.vstack([pyramid, rows, cone[np.abs(cone[:, 5]) > 1e-12]])

    def describe_rows(self) -> list[str]:
        """A label for each row of :meth:`friction_rows`, for infeasibility reports: four
        ``"friction cone"``, four ``"centre of pressure"`` and two ``"torsion"`` (ten with
        ``coupled_torsion``); with a bearing polygon, each face by the components it bounds
        (forces only: ``"friction cone"``; the normal force and the tilting moments:
        ``"centre of pressure"``; else ``"wrench cone"``)."""
        if self._bearing is not None:
            labels = []
            for row in self.friction_rows():
                used = np.abs(row) > 1e-12
                labels.append("friction cone" if not used[3:].any() else
                              "centre of pressure" if not (used[[0, 1, 5]]).any() else "wrench cone")
            return labels
        torsion = 10 if self._coupled_torsion else 2
        return super().describe_rows() + ["centre of pressure"] * 4 + ["torsion"] * torsion

    def __repr__(self) -> str:
        bearing = "" if self._bearing is None else f", bearing={len(self._bearing)} vertices"
        coupled = ", coupled_torsion=True" if self._coupled_torsion else ""
        return (f"PlanarContact({self.frame!r}, length={self.length}, width={self.width}, mu={self.mu}{bearing}"
                f"{coupled})")

