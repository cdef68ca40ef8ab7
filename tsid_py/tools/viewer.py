"""A live or recorded view of a control loop in Rerun (``rerun-sdk``, the ``viewer`` extra).

    view = RerunView(solver, "walk.rrd")     # or "spawn" (a viewer window), "connect[=URL]"
    ...                                        # the loop: each solve is logged (every ``every`` steps)
    view.close()

:class:`RerunView` watches a :class:`~tsid_py.DynamicsSolver` (as its ``recorder``, or
through :class:`Instruments` beside a flight recorder) and logs, on the timeline ``time``
(s, the step count times ``dt``):

* ``robot/visual/<geometry>``: the robot's visual meshes (logged once) and their placements;
* ``world/wrenches/<contact>``: each contact force as an arrow from the contact frame
  (``WRENCH_SCALE`` m per N), world axes;
* ``world/com``, ``world/capture_point`` (``c + ċ/ω₀`` on the ground, ``ω₀ = √(g/c_z)``),
  ``world/cop`` (the centre of pressure of all contact wrenches, on the ground);
* ``world/support_polygon`` (the convex hull of the soles in contact), ``world/footsteps``
  (every sole outline where a contact was anchored, kept);
* ``plots/step_us`` (the solve's time, µs) and ``plots/task_error/<task>`` (‖error‖).

Nothing here needs a display: ``"walk.rrd"`` writes a file that ``rerun walk.rrd`` opens.
"""

from __future__ import annotations

import os
import time
import warnings

import numpy as np
import pinocchio as pin

from .._geometry import convex_hull_2d

#: Metres of arrow per newton of contact force.
WRENCH_SCALE = 1e-3


def _rerun():
    try:
        import rerun
    except ImportError as exc:     # pragma: no cover - the extra is installed in CI
        raise ImportError("the Rerun view needs rerun-sdk: pip install 'tsid_py[viewer]'") from exc
    return rerun


class RerunView:
    """Logs each ``every``-th solve of ``solver`` to Rerun (see the module).

    Parameters
    ----------
    solver : the solver to watch (its ``recorder`` slot is taken unless ``attach=False``).
    target : ``"spawn"`` (start a viewer), ``"connect"`` or ``"connect=URL"`` (a running
        viewer), or a path ending in ``.rrd`` (a file, written as the loop runs).
    every : log one step in this many (1 kHz steps: every 10th is 100 frames per second).
    """

    def __init__(self, solver, target: str, *, every: int = 10, attach: bool = True, name: str = "tsid_py"):
        rr = self.rr = _rerun()
        if not isinstance(every, int) or every < 1:
            raise ValueError(f"every must be a positive int, got {every!r}")
        self.solver, self.robot, self.every = solver, solver.robot, every
        self.stream = rr.RecordingStream(name)
        if target == "spawn":
            self.stream.spawn()
        elif target == "connect" or target.startswith("connect="):
            self.stream.connect_grpc(*(target.split("=", 1)[1:]))
        elif target.endswith(".rrd"):
            folder = os.path.dirname(os.path.abspath(target))
            if not os.path.isdir(folder):
                raise ValueError(f"the .rrd file's folder does not exist: {folder!r}")
            self.stream.save(target)
        else:
            raise ValueError(f"target must be 'spawn', 'connect[=URL]' or a path ending in .rrd, got {target!r}")
        self.count, self._tic, self._epoch = 0, 0.0, None
        self._geometry = self._log_meshes()
        if attach:
            if solver.recorder is not None:
                raise ValueError("this solver already has a recorder; combine them with Instruments")
            solver.recorder = self

    # ------------------------------------------------------------------ meshes
    def _log_meshes(self):
        """The visual geometry (logged once as static assets), or None for a robot without a URDF."""
        robot, rr = self.robot, self.rr
        if robot.urdf_path is None:
            return None
        with warnings.catch_warnings():       # pinocchio's note that package_dirs are given twice
            warnings.simplefilter("ignore", UserWarning)
            geometry = pin.buildGeomFromUrdf(robot.model, robot.urdf_path, pin.GeometryType.VISUAL,
                                             robot.package_dirs)
        kept = []
        for index, item in enumerate(geometry.geometryObjects):
            path = item.meshPath
            if not path or not os.path.isfile(path) or not path.lower().endswith((".stl", ".obj", ".glb", ".gltf")):
                continue
            entity = f"robot/visual/{index}_{item.name}"
            self.stream.log(entity, rr.Asset3D(path=path), static=True)
            kept.append((index, entity, np.asarray(item.meshScale, dtype=float)))
        return geometry, geometry.createData(), kept

    # ------------------------------------------------------------------ watching
    def before_step(self, solver, q, v, overrides) -> None:
        self._tic = time.perf_counter()

    def after_step(self, solver, solution, error) -> None:
        elapsed = time.perf_counter() - self._tic
        if solution is not None and self.count % self.every == 0:
            self.log_step(solution, self.count * solver.dt, elapsed)
        self.count += 1

    def log_step(self, solution, t: float, elapsed: float | None = None) -> None:
        """Log one solved step at time ``t`` (s); the robot's kinematics are that step's."""
        rr, stream, robot = self.rr, self.stream, self.robot
        stream.set_time("time", duration=t)
        if self._geometry is not None:
            geometry, data, kept = self._geometry
            pin.updateGeometryPlacements(robot.model, robot.data, geometry, data)
            for index, entity, scale in kept:
                placement = data.oMg[index]
                stream.log(entity, rr.Transform3D(translation=placement.translation, mat3x3=placement.rotation,
                                                  scale=scale))
        self._log_contacts(solution)
        com, com_velocity = robot.com, robot.com_velocity
        stream.log("world/com", rr.Points3D([com], radii=0.02, colors=[255, 200, 0]))
        omega = np.sqrt(robot.gravity / max(com[2], 1e-3))
        capture = np.array([com[0] + com_velocity[0] / omega, com[1] + com_velocity[1] / omega, 0.0])
        stream.log("world/capture_point", rr.Points3D([capture], radii=0.02, colors=[255, 60, 60]))
        if elapsed is not None:
            stream.log("plots/step_us", rr.Scalars(1e6 * elapsed))
        for task in self.solver.tasks:
            error = getattr(task, "error", None)
            if isinstance(error, np.ndarray) and error.size:
                stream.log(f"plots/task_error/{task.name}", rr.Scalars(float(np.linalg.norm(error))))

    def _log_contacts(self, solution) -> None:
        rr, stream, robot = self.rr, self.stream, self.robot
        origins, forces, outlines, total, moment = [], [], [], np.zeros(3), np.zeros(3)
        for name, contact in self.solver.contacts.items():
            wrench = solution.wrenches.get(name)
            if wrench is None:
                continue
            position = robot.frame_translation(contact.frame_id).copy()
            stream.log(f"world/wrenches/{name}", rr.Arrows3D(origins=[position], vectors=[WRENCH_SCALE * wrench[:3]],
                                                             colors=[60, 160, 255]))
            origins.append(position)
            forces.append(wrench[:3])
            total += wrench[:3]
            moment += wrench[3:] + np.cross(position, wrench[:3])
            outlines.append(_outline(contact, robot))
        if total[2] > 1e-6:                       # the CoP: where the moment about the ground's z axis vanishes
            cop = np.array([-moment[1] / total[2], moment[0] / total[2], 0.0])
            stream.log("world/cop", rr.Points3D([cop], radii=0.015, colors=[40, 220, 90]))
        corners = np.vstack(outlines) if outlines else np.zeros((0, 3))
        if len(corners) >= 3:
            hull = convex_hull_2d(corners[:, :2])
            ring = np.vstack([hull, hull[:1]])
            stream.log("world/support_polygon", rr.LineStrips3D([np.c_[ring, np.zeros(len(ring))]],
                                                                colors=[120, 120, 120]))
        if self.solver.contact_epoch != self._epoch:     # a contact was made or moved: a footstep
            self._epoch = self.solver.contact_epoch
            steps = [np.vstack([outline, outline[:1]]) for outline in outlines]
            if steps:
                stream.log("world/footsteps", rr.LineStrips3D(steps, colors=[200, 200, 255]))

    def close(self) -> None:
        """Stop watching and flush the stream."""
        if self.solver.recorder is self:
            self.solver.recorder = None
        self.stream.flush()


def _outline(contact, robot) -> np.ndarray:
    """The contact's sole corners (world, 4 × 3), or its point for a point contact."""
    placement = robot.frame_placement(contact.frame_id)
    length, width = getattr(contact, "length", 0.0), getattr(contact, "width", 0.0)
    local = np.array([[length / 2, width / 2, 0], [length / 2, -width / 2, 0], [-length / 2, -width / 2, 0],
                      [-length / 2, width / 2, 0]])
    return (placement.rotation @ local.T).T + placement.translation


class Instruments:
    """Several watchers in the solver's one ``recorder`` slot (a flight recorder and a view)."""

    def __init__(self, *watchers):
        self.watchers = [watcher for watcher in watchers if watcher is not None]

    def before_step(self, solver, q, v, overrides) -> None:
        for watcher in self.watchers:
            watcher.before_step(solver, q, v, overrides)

    def after_step(self, solver, solution, error) -> None:
        for watcher in self.watchers:
            watcher.after_step(solver, solution, error)
