"""A MuJoCo simulation of a :class:`~tsid_py.Robot`, in pinocchio's conventions.

The plant is built from the robot's URDF, or is its MJCF file as shipped
(:func:`~tsid_py.sim.model.build_model`). Joints are matched by name and each kind converted
(:mod:`tsid_py.sim.joint_map`): the free flyer's quaternion order and base velocity frame,
continuous joints' ``(cos θ, sin θ)``, ball, planar and composite joints. Torques reach the
robot as generalized forces or through the file's motors (:mod:`tsid_py.sim.actuation`);
MuJoCo integrates ``M v̇ + c = τ + contact forces`` — the controller is never trusted for the
motion. The feet are read through :class:`~tsid_py.sim.feet.Feet`.
"""

from __future__ import annotations

import math
import re
from collections import deque

import numpy as np
import pinocchio as pin

from .._validation import as_vector, positive_scalar
from .actuation import Actuation
from .contact import ContactOptions
from .feet import Feet
from .joint_map import JointMap
from .loads import LoadSensors, add_loads
from .self_collision import PairDistances, add_collision_geometry
from .engine import import_mujoco
from .model import SOLE_THICKNESS, build_model
from .plant import DriveModel, PlantModel


class SimulationDiverged(RuntimeError):
    """MuJoCo's integration produced a non-finite or unbounded state (its ``BADQACC``,
    ``BADQPOS`` or ``BADQVEL`` warnings). MuJoCo would reset to the model's default pose and
    carry on with the time back at zero; the harness stops instead, with this error."""


def _tilt(rotation: np.ndarray) -> float:
    """Angle (rad) between a frame's z axis (the last column of its world rotation) and the
    vertical (``math``, not numpy: this runs per foot and per step)."""
    return math.acos(min(1.0, max(-1.0, float(rotation[2, 2]))))


class Simulation:
    """Physics of ``robot`` on a floor, stepped with torques in pinocchio's joint order.

    Parameters
    ----------
    robot : the robot; its URDF is loaded into MuJoCo, or its MJCF file as shipped.
    timestep : physics step, s.
    friction : sliding friction of the floor and the feet (default 1.0 for a URDF robot, the
        file's own for an MJCF robot).
    visual : keep the model's meshes (for the viewer).
    actuation_delay : s between a torque command and its application (rounded to whole
        physics steps; the torques before the first command are zero). Models the
        latency of a real loop, which the controller does not know of.
    mass_scale : ``{body: factor}``: the simulated bodies' mass and inertia are multiplied
        by ``factor`` (the controller's model keeps the URDF's): a model error.
    contact : the contact model (:class:`~tsid_py.sim.contact.ContactOptions`; default the
        harness's measured one for a URDF robot, the file's own for an MJCF robot).
    terrain : a :class:`~tsid_py.control.terrain.Terrain` built on the floor
        (:mod:`tsid_py.sim.terrain`; None: the flat floor).
    plant : how the plant differs from the controller's model (:class:`~tsid_py.sim.plant.PlantModel`:
        drives, torque tracking, link masses and centres, floor friction, delay); its draws
        come from ``seed`` and are kept in :attr:`plant_draws`.
    seed : the seed of the simulation's random draws (the plant's; the sensors take their own).
    loads : :class:`~tsid_py.sim.loads.HangingLoad` items hung on the robot (bodies of the
        plant only: the controller's model does not have them); :meth:`load_wrenches` reads
        what they exert.
    self_collision : a :class:`~tsid_py.constraints.SelfCollisionAvoidance` (bound to
        ``robot`` here if it is not yet): its pieces collide in the plant, pair by pair
        (:mod:`tsid_py.sim.self_collision`), and :attr:`pair_distances` measures them.
    """

    def __init__(self, robot, *, timestep: float = 1e-3, friction: float | None = None, visual: bool = False,
                 actuation_delay: float = 0.0, mass_scale: dict | None = None, contact: ContactOptions | None = None,
                 terrain=None, plant: PlantModel | None = None, seed: int = 0, loads=(), self_collision=None):
        self.mujoco = import_mujoco()
        self.robot = robot
        self.timestep = positive_scalar(timestep, "timestep")
        self.plant = PlantModel() if plant is None else plant
        if not isinstance(self.plant, PlantModel):
            raise ValueError(f"plant must be a tsid_py.sim.plant.PlantModel, got {type(plant).__name__}")
        if friction is None:
            friction = self.plant.friction
        if friction is not None:
            friction = positive_scalar(friction, "friction")
        loads = tuple(loads)
        additions = [lambda spec: add_loads(spec, robot, loads)] if loads else []
        if self_collision is not None:
            if getattr(self_collision, "geometry", None) is None:
                self_collision.bind(robot)
            additions.append(lambda spec: add_collision_geometry(spec, robot, self_collision.geometry,
                                                                 self_collision.pairs.pieces, friction or 1.0))
        self.model = build_model(robot, timestep=self.timestep, friction=friction, visual=visual, contact=contact,
                                 terrain=terrain, additions=additions)
        self.loads = LoadSensors(self.model, loads)
        #: The plant's distances between the self-collision pairs (None without ``self_collision``).
        self.pair_distances = None if self_collision is None else PairDistances(self.model, self_collision.pairs.names)
        self.terrain = terrain
        self.friction = friction
        for body, factor in (mass_scale or {}).items():
            self._scale_body(body, positive_scalar(factor, f"mass_scale[{body!r}]"))
        # A diverging integration raises SimulationDiverged rather than restarting silently.
        self.model.opt.disableflags |= int(self.mujoco.mjtDisableBit.mjDSBL_AUTORESET)
        self._divergence_warnings = tuple(int(w) for w in (self.mujoco.mjtWarning.mjWARN_BADQACC,
                                                           self.mujoco.mjtWarning.mjWARN_BADQPOS,
                                                           self.mujoco.mjtWarning.mjWARN_BADQVEL))
        self.data = self.mujoco.MjData(self.model)
        delay = positive_scalar(actuation_delay, "actuation_delay", allow_zero=True) + self.plant.delay
        self._pending = deque([np.zeros(robot.na)] * int(round(delay / self.timestep)))
        self.joint_map = JointMap(robot.model, self.model)
        self.v_offset = 6 if robot.floating_base else 0
        #: MuJoCo dof index of pinocchio's v[v_offset + i] (the actuated joints)
        self.joint_dofs = self.joint_map.dofs[self.v_offset:]
        rng = np.random.default_rng(seed)
        #: What the plant model drew (link mass factors and centre-of-mass offsets, by body).
        self.plant_draws = self.plant.apply(self.model, robot, self.joint_dofs, rng)
        self.drive = DriveModel(self.plant, robot, self.timestep, rng) if self.plant.tracks_torque else None
        if robot.floating_base:
            self.root_body = int(self.model.jnt_bodyid[self.joint_map.matched[1][0]])
        name = robot.source.filename if robot.source is not None else robot.name
        self.actuation = Actuation(self.model, self.joint_map, robot, name)
        self.feet = Feet(self.model, robot, self.joint_map, robot.feet, robot.q_ref)
        self._push_body = None
        self._push_until = -1.0
        self._pin_data = robot.model.createData()     # the harness's own: the robot's is the controller's
        self.reset(robot.q_ref, robot.zero_velocity())

    def _scale_body(self, body: str, factor: float) -> None:
        body_id = self.mujoco.mj_name2id(self.model, self.mujoco.mjtObj.mjOBJ_BODY, body)
        if body_id < 0:
            names = [self.model.body(i).name for i in range(self.model.nbody)]
            raise KeyError(f"mass_scale: body {body!r} is not in the MuJoCo model; bodies: {names}")
        self.model.body_mass[body_id] *= factor
        self.model.body_inertia[body_id] *= factor

    # ------------------------------------------------------------------ state
    def reset(self, q, v) -> None:
        """Set the state (pinocchio conventions) and recompute MuJoCo's derived quantities."""
        self.mujoco.mj_resetData(self.model, self.data)
        self.set_state(q, v)
        self.mujoco.mj_forward(self.model, self.data)

    def set_state(self, q, v) -> None:
        """Write ``q`` (nq,), ``v`` (nv,) (pinocchio's conventions) into MuJoCo's state."""
        q = self.robot.check_configuration(q, "q")
        v = as_vector(v, "v", self.robot.nv)
        self.joint_map.to_mujoco(q, v, self.data.qpos, self.data.qvel)

    def state(self) -> tuple[np.ndarray, np.ndarray]:
        """``(q, v)`` in pinocchio's conventions (new arrays)."""
        q, v = np.empty(self.robot.nq), np.empty(self.robot.nv)
        self.joint_map.to_pinocchio(self.data.qpos, self.data.qvel, q, v)
        return q, v

    @property
    def time(self) -> float:
        """Simulated time, s."""
        return float(self.data.time)

    # ------------------------------------------------------------------ stepping
    def step(self, tau_actuated, steps: int = 1) -> None:
        """Apply ``tau_actuated`` (na,), pinocchio joint order, for ``steps`` physics steps;
        :class:`SimulationDiverged` if the integration blows up (the state is then left as
        MuJoCo's last one, not reset)."""
        tau = as_vector(tau_actuated, "tau_actuated", self.robot.na)
        if self._pending:                       # actuation delay: apply the oldest command
            self._pending.append(tau.copy())
            tau = self._pending.popleft()
        if self.drive is not None:              # the drives' tracking of the command
            tau = self.drive(tau)
        self.actuation.apply(self.data, tau, lambda: self.state()[0])
        messages: list[str] = []
        previous = self.mujoco.get_mju_user_warning()       # MuJoCo's messages go into the error,
        self.mujoco.set_mju_user_warning(messages.append)   # not onto stdout
        try:
            for _ in range(steps):
                if self._push_body is not None and self.data.time >= self._push_until:
                    self.data.xfrc_applied[self._push_body] = 0.0
                    self._push_body = None
                self.mujoco.mj_step(self.model, self.data)
        finally:
            self.mujoco.set_mju_user_warning(previous)
        warning = self.data.warning
        if any(warning[kind].number for kind in self._divergence_warnings):
            self._diverged(tau, messages)

    def _diverged(self, tau: np.ndarray, messages: list[str]) -> None:
        labels = ("accelerations", "positions", "velocities")
        bad = [label for kind, label in zip(self._divergence_warnings, labels) if self.data.warning[kind].number]
        finite = np.isfinite(tau)
        command = ("NaN or infinite entries" if not finite.all() else
                   f"largest entry {np.max(np.abs(tau)):.4g} at actuated index {int(np.argmax(np.abs(tau)))}"
                   if tau.size else "no entries")
        source = self.robot.source
        check = (f"; `tsid-py check-robot {source.path}` names the file's problems (links without inertia, "
                 "invalid inertias, joints that move no mass)" if source is not None else "")
        raise SimulationDiverged(
            f"the MuJoCo simulation of {self.robot.name!r} diverged at t = {self.data.time:.4f} s (non-finite or "
            f"unbounded {' and '.join(bad)}{': ' + messages[0].strip() if messages else ''}"
            f"{self._diverging_joint(messages)}); the last torque command has {command}. Check the commanded "
            f"torques, the model's masses and inertias and the time step{check}; reset() the simulation to go on")

    def _diverging_joint(self, messages: list[str]) -> str:
        """``", joint 'NAME'"`` for the degree of freedom MuJoCo's warning names ("... at DOF
        29"), or "" when it names none."""
        found = re.search(r"DOF (\d+)", messages[0]) if messages else None
        if found is None or int(found.group(1)) >= self.model.nv:
            return ""
        return f", joint {self.model.joint(int(self.model.dof_jntid[int(found.group(1))])).name!r}"

    def push(self, force, duration: float, body: str | None = None) -> None:
        """Apply a world-frame force (N) at ``body``'s centre of mass (default: the root body)
        for ``duration`` s of simulated time."""
        force = as_vector(force, "force", 3)
        duration = positive_scalar(duration, "duration")
        if body is None:
            body_id = self.root_body if self.robot.floating_base else self.model.nbody - 1
        else:
            body_id = self.mujoco.mj_name2id(self.model, self.mujoco.mjtObj.mjOBJ_BODY, body)
            if body_id < 0:
                raise KeyError(f"body {body!r} is not in the MuJoCo model")
        self.data.xfrc_applied[body_id, :3] = force
        self.data.xfrc_applied[body_id, 3:] = 0.0
        self._push_body = body_id
        self._push_until = self.data.time + duration

    def load_wrenches(self) -> dict[str, np.ndarray]:
        """What each hanging load exerts on the robot, ``[f; m]`` (6,) world-aligned at its
        frame's origin, by frame name (:mod:`tsid_py.sim.loads`; MuJoCo's sensors at the
        pivot, as of the last step)."""
        return self.loads.wrenches(self.data)

    # ------------------------------------------------------------------ feet
    def contact_wrenches(self) -> dict[str, np.ndarray]:
        """The floor's wrench on each foot, ``[f; m]`` world-aligned at the foot frame origin
        (the convention of :class:`~tsid_py.Solution`), from MuJoCo's contact solver, in one
        compiled pass over the contacts (:class:`~tsid_py.sim.feet.Feet`): the demos record it
        every step."""
        return dict(zip(self.feet.names, self.feet.wrenches(self.data)))

    def foot_pose(self, foot: str) -> tuple[float, np.ndarray]:
        """``(tilt, position)`` of a foot frame (a sole's centre or a sphere foot's contact
        point): the angle (rad) between its z axis and the vertical, and its world position
        (3,), m. For point feet as for soles, the horizontal drift of ``position`` while the
        foot is held on the ground is its slip (a sphere that rolls by θ without slipping
        moves its contact frame, a point of its surface, by only ``r (θ − sin θ) ≈ r θ³/6``).
        A sphere foot's tilt is its body's rotation since the posture that placed the frame:
        it rolls, so a large tilt is no sign of a fall, as it is for a sole."""
        rotation, position = self.feet.pose(self.data, foot)
        return _tilt(rotation), position

    def sole_pose(self, foot: str) -> tuple[float, np.ndarray]:
        """``(tilt, centre)`` of a foot's collision box or sphere as the harness builds it:
        :meth:`foot_pose` with the position moved along the foot's z axis to the box's centre
        (:data:`~tsid_py.sim.model.SOLE_THICKNESS` / 2 above the sole) or the sphere's
        (``robot.foot_radius`` above its contact point)."""
        rotation, position = self.feet.pose(self.data, foot)
        height = SOLE_THICKNESS / 2 if self.robot.sole_size is not None else max(self.robot.foot_radius, 1e-3)
        return _tilt(rotation), position + height * rotation[:, 2]

    def com_state(self) -> tuple[np.ndarray, np.ndarray]:
        """``(com, com_velocity)`` (3,) each of the simulated state, world axes, m and m/s
        (pinocchio on the harness's own data: the robot's belongs to its controller)."""
        q, v = self.state()
        data = self._pin_data
        pin.centerOfMass(self.robot.model, data, q, v, False)
        return data.com[0].copy(), data.vcom[0].copy()

    def sole_corners(self, feet) -> np.ndarray:
        """World (x, y) of the corners of the feet's sole rectangles (``robot.sole_size``
        centred on each foot frame, in its axes), (4 k, 2), m; point feet: their contact
        points, (k, 2)."""
        if self.robot.sole_size is None:
            return np.array([self.feet.pose(self.data, foot)[1][:2] for foot in feet]).reshape(-1, 2)
        half_length, half_width = np.asarray(self.robot.sole_size) / 2
        local = np.array([[sx * half_length, sy * half_width, 0.0] for sx in (1, -1) for sy in (1, -1)])
        corners = []
        for foot in feet:
            rotation, position = self.feet.pose(self.data, foot)
            corners.append((local @ rotation.T + position)[:, :2])
        return np.vstack(corners)

    # ------------------------------------------------------------------ dynamics, for checks
    def mass_matrix_and_bias(self) -> tuple[np.ndarray, np.ndarray]:
        """MuJoCo's ``M`` and bias forces at the current state, mapped to pinocchio's
        velocity coordinates: with ``v_mj = T v`` (:meth:`~tsid_py.sim.joint_map.JointMap.velocity_map`),
        ``M = Tᵀ M_mj T`` and ``h = Tᵀ (c_mj + M_mj Ṫ v)``."""
        mujoco, model, data = self.mujoco, self.model, self.data
        mujoco.mj_forward(model, data)
        full = np.zeros((model.nv, model.nv))
        mujoco.mj_fullM(model, data, full)
        q, v = self.state()
        order = self.joint_map.dofs
        T, t_dot_v = self.joint_map.velocity_map(q, v)
        M_mj = full[np.ix_(order, order)]
        c_mj = data.qfrc_bias[order]
        return T.T @ M_mj @ T, T.T @ (c_mj + M_mj @ t_dot_v)
