"""A readable status of one control step: what each task, contact and limit is doing.

:func:`report` reads a :class:`~tsid_py.DynamicsSolver` right after its
:meth:`~tsid_py.DynamicsSolver.solve` and the :class:`~tsid_py.Solution` it returned, through
public attributes only, and gives a :class:`Report`: ``str(report)`` is a text table,
:meth:`Report.as_dict` the same numbers for logging or JSON.

For each **task**: its error ``‖e‖`` (the task's own units: m, rad, N·m, …), and its weighted
cost ``Σᵢ wᵢ rᵢ²`` over the axes its mask keeps, where ``r = A x − b`` is the residual of its
rows at the solution; for a PD task ``r = J q̈ + J̇ v − a*`` with ``a* = a_ref + Kp e + Kd ė``
(m/s² or rad/s²), for a torque or wrench task ``r`` is its recorded error.

For each **contact**, from its wrench ``[f; m]`` in the contact frame's axes (z the normal):

* ``normal_force`` ``f_z`` (N) and the normal-force bounds in force at this step;
* ``cone_usage = ‖(f_x, f_y)‖ / (μ f_z)``: 1 on the Coulomb cone; the solver keeps the force
  in the inscribed pyramid, ``max(|f_x|, |f_y|) ≤ μ/√2 f_z``, whose usage is
  ``pyramid_usage`` (1 on the pyramid's faces);
* planar contacts: the centre of pressure ``(−m_y/f_z, m_x/f_z)`` (m, in the sole's axes), its
  ``edge_margin`` to the nearest sole edge (m, ≥ 0 inside), and ``torsion_usage``
  ``|m_z| / (μ min(l, w)/2 f_z)``.

Each **limit** (torque, joint position, velocity, acceleration) is listed per joint where it is
active, i.e. where the solution is within ``tolerance`` (relative) of the bound.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._geometry import polygon_edges
from .constraints import AccelerationBounds, TorqueLimits
from .tasks import PDTask

#: A bound is active when the value is within this fraction of the bound's size of it.
ACTIVE_TOLERANCE = 1e-3


@dataclass
class Report:
    """The status of one solve; ``str()`` formats it as text.

    ``tasks``, ``contacts`` and ``limits`` are lists of flat dicts of plain numbers (see
    :func:`report` for their keys), ``success`` and ``status`` the solution's.
    """

    success: bool
    status: str
    tasks: list[dict] = field(default_factory=list)
    contacts: list[dict] = field(default_factory=list)
    limits: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        """The report as plain Python values (JSON-ready)."""
        return {"success": self.success, "status": self.status, "tasks": self.tasks,
                "contacts": self.contacts, "limits": self.limits}

    def __str__(self) -> str:
        lines = [f"solve: {'success' if self.success else 'failure'} ({self.status})", "tasks:"]
        for task in self.tasks:
            cost = "—" if task["cost"] is None else f"{task['cost']:.3g}"
            lines.append(f"  {task['name']:<34s} {str(task['priority']):<4s}  |error| {task['error_norm']:.3g}"
                         f"  cost {cost}")
        lines.append("contacts:" if self.contacts else "contacts: none")
        for contact in self.contacts:                 # two lines a planar contact: 80 columns
            lines.append(f"  {contact['name']:<16s} f_z {contact['normal_force']:7.1f} N"
                         f" in [{contact['f_min']:.0f}, {contact['f_max']:.0f}],"
                         f" cone {100 * contact['cone_usage']:.1f} %, pyramid {100 * contact['pyramid_usage']:.1f} %")
            if "edge_margin" in contact:
                lines.append(f"  {'':16s} CoP ({1e3 * contact['cop'][0]:+.0f}, {1e3 * contact['cop'][1]:+.0f}) mm,"
                             f" {round(1e3 * contact['edge_margin'], 1) + 0.0:.1f} mm from an edge,"
                             f" torsion {100 * contact['torsion_usage']:.0f} %")
        lines.append("active limits:" if self.limits else "active limits: none")
        for limit in self.limits:
            lines.append(f"  {limit['joint']} ({limit['constraint']}): {limit['value']:+.3g}"
                         f" at bound {limit['bound']:+.3g} {limit['unit']}")
        return "\n".join(lines)


def report(solver, solution, tolerance: float = ACTIVE_TOLERANCE) -> Report:
    """The status of ``solver``'s last step, ``solution`` (call it right after
    :meth:`~tsid_py.DynamicsSolver.solve`: the robot's kinematics must be those of the solve).

    Task entries: ``name``, ``priority``, ``error`` (list), ``error_norm``, ``cost`` (the task's
    weighted cost, at its level for a task at a level ``1, 2, …``; None for a hard task or a
    task without an error). Contact entries: ``name``, ``wrench`` (world-aligned,
    list), ``normal_force``, ``f_min``, ``f_max``, ``cone_usage``, ``pyramid_usage`` and, for a
    planar contact, ``cop`` (m), ``edge_margin`` (m), ``torsion_usage``. Limit entries:
    ``constraint``, ``joint``, ``value``, ``bound``, ``unit``.
    """
    if not tolerance >= 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance}")
    return Report(bool(solution.success), str(solution.status),
                  [_task_entry(solver.robot, task, solution) for task in solver.tasks],
                  [_contact_entry(solver, contact, solution) for contact in solver.contacts.values()
                   if contact.name in solution.local_wrenches],
                  _active_limits(solver, solution, tolerance))


# ------------------------------------------------------------------------------ tasks
def _task_entry(robot, task, solution) -> dict:
    error = np.atleast_1d(np.asarray(getattr(task, "error", np.zeros(0)), dtype=float))
    entry = {"name": task.name, "priority": task.priority, "error": error.tolist(),
             "error_norm": float(np.linalg.norm(error)), "cost": None}
    if task.priority != "hard" and error.size:          # a cost: soft, or at a level
        kept = np.asarray(task.mask, dtype=bool)
        residual = _pd_residual(robot, task, solution) if isinstance(task, PDTask) else -error
        entry["cost"] = float(np.sum(np.asarray(task.weight)[kept] * residual[kept] ** 2))
    return entry


def _pd_residual(robot, task: PDTask, solution) -> np.ndarray:
    """``J q̈ + J̇ v − a*`` over the task's ``dim`` axes."""
    _, jacobian, drift, first = task.kinematics(robot)
    rows = slice(first, first + task.dim)
    return jacobian[rows] @ solution.ddq + drift[rows] - task.desired_acceleration()


# ------------------------------------------------------------------------------ contacts
def _contact_entry(solver, contact, solution) -> dict:
    local = np.asarray(solution.local_wrenches[contact.name], dtype=float)
    fx, fy, fz, mx, my, mz = local
    f_min, f_max = solver.normal_force_limits().get(contact.name, contact.normal_force_bounds)
    loaded = fz > 1e-9
    entry = {"name": contact.name, "wrench": np.asarray(solution.wrenches[contact.name]).tolist(),
             "normal_force": float(fz), "f_min": float(f_min), "f_max": float(f_max),
             "cone_usage": float(np.hypot(fx, fy) / (contact.mu * fz)) if loaded else float(np.hypot(fx, fy) > 0),
             "pyramid_usage": (float(max(abs(fx), abs(fy)) / (contact.mu / np.sqrt(2.0) * fz)) if loaded
                               else float(max(abs(fx), abs(fy)) > 0))}
    if hasattr(contact, "region"):              # a planar contact: centre of pressure and torsion
        cop = np.array([-my, mx]) / fz if loaded else np.zeros(2)
        normals, offsets = polygon_edges(contact.region)
        margin = float(np.min(offsets - normals @ cop))
        entry.update(cop=cop.tolist(), edge_margin=margin if loaded else 0.0)
        if contact.bearing is None:
            half = min(contact.length, contact.width) / 2
            entry.update(torsion_usage=float(abs(mz) / (contact.mu * half * fz)) if loaded else 0.0)
    return entry


# ------------------------------------------------------------------------------ limits
def _active_limits(solver, solution, tolerance: float) -> list[dict]:
    robot = solver.robot
    offset = 6 if robot.floating_base else 0
    names = {robot.joint_v_index(name): name for name in robot.scalar_joint_names}
    entries = []
    for constraint in solver.constraints:
        if isinstance(constraint, TorqueLimits):
            values, bounds = solution.tau_actuated[constraint.index], constraint.effort
            hits = np.abs(values) >= (1 - tolerance) * bounds
            entries += [{"constraint": constraint.name, "joint": names.get(j + offset, f"v[{j + offset}]"),
                         "value": float(value),
                         "bound": float(np.copysign(bound, value)), "unit": "N·m"}
                        for j, value, bound in zip(constraint.index[hits], values[hits], bounds[hits])]
        elif isinstance(constraint, AccelerationBounds):
            entries += _active_acceleration_bounds(solver, constraint, solution, names, tolerance)
    return entries


def _active_acceleration_bounds(solver, constraint, solution, names, tolerance) -> list[dict]:
    """Joints whose q̈ sits on the constraint's lower or upper acceleration bound (within
    ``tolerance × max(1, |bound|)``, rad/s²)."""
    from .rows import StepContext

    context = StepContext(robot=solver.robot, dt=solver.dt, n=len(solution.x), nv=solver.robot.nv)
    index, lower, upper = constraint.acceleration_bounds(context)
    entries = []
    for joint, value, low, high in zip(index, solution.ddq[index], lower, upper):
        for bound in (low, high):
            if np.isfinite(bound) and abs(value - bound) <= tolerance * max(1.0, abs(bound)):
                entries.append({"constraint": constraint.name, "joint": names.get(joint, f"v[{joint}]"),
                                "value": float(value),
                                "bound": float(bound), "unit": "rad/s² (q̈)"})
    return entries
