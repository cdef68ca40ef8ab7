"""Tasks on the efforts: joint torques (TorqueTask) and contact wrenches (WrenchTask).

Both act on the whole variable vector ``x = [q̈; f]``: τ is linear in x through the
equation of motion, ``τ_a = T x + t``, and a contact's wrench is its variables rotated to
world-aligned axes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._validation import as_vector
from ..row_writers import direct
from ..rows import Rows
from .base import Task


class TorqueTask(Task):
    """Ask the actuated torques (or those of ``joints``) to equal ``target``, N·m.

    ``target`` has one entry per selected joint (default: zeros, the solver's torque
    regularisation).

    Parameters
    ----------
    target : the torques asked for, N·m, one per selected joint (default: zeros).
    joints : names of the actuated joints to control, in the order of ``target`` (default:
        every actuated joint, in the robot's order).
    weight : per-joint weights of the cost (scalar or one per joint, ≥ 0); unused when hard.
    priority : ``"soft"`` (a weighted cost), ``"hard"`` (equalities) or a level ``1, 2, …``.
    mask : booleans, one per joint, selecting the joints the task keeps (default: all).
    name : how reports and errors name the task (default: ``"TorqueTask"``).
    """

    acts_on = "x"

    def __init__(self, target=None, *, joints: Sequence[str] | None = None, weight=1.0, priority: str | int = "soft",
                 mask=None, name: str | None = None):
        if joints is not None and (isinstance(joints, str) or len(joints) == 0):
            raise ValueError("joints must be a non-empty list of joint names (or None for all)")
        self.joints = None if joints is None else list(joints)
        self._index = None
        self._pending_target = target
        super().__init__(None if self.joints is None else len(self.joints), weight=weight, priority=priority,
                         mask=mask, name=name)
        if target is not None and self.dim is not None:
            as_vector(target, "target", self.dim)

    def dimension(self, robot) -> int:
        """The number of selected joints: ``robot.na``, or the length of ``joints``."""
        return robot.na if self.joints is None else len(self.joints)

    def bind(self, robot) -> None:
        """Map ``joints`` to their rows of ``τ_a`` (a joint's velocity index, less 6 on a floating
        base) and apply the target given so far (default: zeros)."""
        offset = 6 if robot.floating_base else 0
        if self.joints is None:
            self._index = np.arange(robot.na)
        else:
            self._index = np.array([robot.joint_v_index(name) - offset for name in self.joints], dtype=int)
        self._rows_for = None
        self.set_target(np.zeros(self.dim) if self._pending_target is None else self._pending_target)

    def set_target(self, target, velocity=None, acceleration=None) -> None:
        """``target``: one torque per selected joint, N·m (no velocity or acceleration)."""
        if velocity is not None or acceleration is not None:
            raise ValueError("TorqueTask takes a torque target only: velocity and acceleration must be None")
        if self._index is None:
            if self.dim is not None:
                as_vector(target, "target", self.dim)
            self._pending_target = target
            return
        self.torque_ref = as_vector(target, "target", self.dim).copy()
        self.torque_ref.flags.writeable = False        # change it with set_target
        self._rows_for = None

    def target_arrays(self) -> tuple[np.ndarray, ...]:
        """``(torque_ref,)`` once the task is added."""
        return () if self._index is None else (self.torque_ref,)

    def restore_targets(self, values) -> None:
        """:meth:`set_target` with the recorded torques."""
        if len(values):
            self.set_target(values[0])

    def compute(self, context) -> Rows:
        """With ``τ_a = T x + t`` this step: ``A = T[rows]`` (n columns, over the whole ``x``) and
        ``b = τ_ref − t[rows]`` (N·m) for the kept joints' rows of ``τ_a``."""
        torque_matrix, torque_offset = context.torque_map()
        rows = self._index[self._rows]
        return Rows(torque_matrix[rows], self.torque_ref[self._rows] - torque_offset[rows])

    def packed_parameters(self, weighted: bool, nv: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """:meth:`write_rows`'s parameters as :mod:`tsid_py.assembly_program` packs them: floats
        the rows' scales (√w when ``weighted``, else ones) and the kept joints' targets (N·m);
        ints their rows of ``τ_a``."""
        scales = np.broadcast_to(self._row_scales[weighted], (self.size,))
        return [scales, self.torque_ref[self._rows]], [self._index[self._rows]]

    def write_rows(self, context, matrix, vector, weighted):
        """``τ_a[rows] = T[rows] x + t[rows]`` asked to equal the target: one compiled call."""
        if self._rows_for is not self._rows:       # the mask or the target changed
            self._rows_for = self._rows
            self._torque_rows = self._index[self._rows].astype(np.intp)       # rows of τ_a the task reads
            self._kept_ref = np.array(self.torque_ref[self._rows])            # writable, for the compiled call
        torque_matrix, torque_offset = context.torque_map()
        direct.affine_target_rows(torque_matrix, torque_offset, self._torque_rows, self._row_scales[weighted],
                                  self._kept_ref, matrix, vector)

    def record(self, solution) -> None:
        """``error = τ_ref − τ_a`` (N·m, every selected joint) from the solution's torques."""
        self.error = self.torque_ref - solution.tau_actuated[self._index]


class WrenchTask(Task):
    """Ask the wrench of ``contact`` (world-aligned, at the frame origin) to equal ``target``.

    ``target`` is ``[f; m]`` (6,), N and N·m; a point contact only has the force rows, so its
    moment rows are masked out. Useful to distribute the weight between feet.

    Parameters
    ----------
    contact : the name of the contact (its frame's name).
    target : the world-aligned wrench ``[f; m]`` (6,), N and N·m (default: zeros).
    weight : per-axis weights of the cost (scalar or (6,), ≥ 0); unused when hard.
    priority : ``"soft"`` (a weighted cost), ``"hard"`` (equalities) or a level ``1, 2, …``.
    mask : booleans (6,) selecting the axes the task keeps (default: all).
    name : how reports and errors name the task (default: ``"WrenchTask(<contact>)"``).
    """

    acts_on = "x"

    def __init__(self, contact: str, target=None, *, weight=1.0, priority: str | int = "soft", mask=None,
                 name: str | None = None):
        if not isinstance(contact, str):
            raise ValueError(f"contact must be a contact frame name (str), got {contact!r}")
        self.contact = contact
        super().__init__(6, weight=weight, priority=priority, mask=mask,
                         name=f"WrenchTask({contact})" if name is None else name)
        self.set_target(np.zeros(6) if target is None else target)

    def set_target(self, target, velocity=None, acceleration=None) -> None:
        """``target``: the world-aligned wrench ``[f; m]`` (6,), N and N·m."""
        if velocity is not None or acceleration is not None:
            raise ValueError("WrenchTask takes a wrench target only: velocity and acceleration must be None")
        self.wrench_ref = as_vector(target, "target", 6).copy()

    def target_arrays(self) -> tuple[np.ndarray, ...]:
        """``(wrench_ref,)``."""
        return (self.wrench_ref,)

    def restore_targets(self, values) -> None:
        """:meth:`set_target` with the recorded wrench."""
        self.set_target(values[0])

    def compute(self, context):
        """``A`` maps ``x`` (n columns) to the contact's world-aligned wrench,
        ``blockdiag(R, R) G`` on its columns (``R`` the frame's rotation, ``G`` its force
        generator), and ``b`` is the target (N, N·m), 0 on the rows the contact cannot act on;
        ``KeyError`` if the contact is not active."""
        if self.contact not in context.contact_columns:
            raise KeyError(f"WrenchTask: contact {self.contact!r} is not active; "
                           f"active contacts: {list(context.contact_columns)}")
        columns = context.contact_columns[self.contact]
        contact = context.contacts[self.contact]
        matrix = np.zeros((6, context.n))
        matrix[:, columns] = contact.world_wrench_map(context.robot.frame_rotation(contact.frame_id))
        target = self.wrench_ref.copy()
        unreachable = ~np.any(matrix, axis=1)
        target[unreachable] = 0.0      # e.g. a point contact exerts no moment: nothing to ask for
        return Rows(matrix[self._rows], target[self._rows])

    def record(self, solution) -> None:
        """``error = wrench_ref − wrench`` (6,), N and N·m, world-aligned, while the contact is
        active."""
        if self.contact in solution.wrenches:
            self.error = self.wrench_ref - solution.wrenches[self.contact]
