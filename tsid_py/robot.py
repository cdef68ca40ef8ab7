"""Robot: a pinocchio model and data, updated by one kinematics/dynamics pass per step."""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Sequence

import numpy as np
import pinocchio as pin

from ._validation import as_vector
from .loaders.mjcf import load_mjcf
from .loaders.source import CoordinateCoupling, ModelSource, joint_maps
from .loaders.urdf import load_urdf, srdf_postures
from .dynamics_pass import FrameSources, dynamics_pass

#: A quaternion whose norm is this close to 1 is normalised; farther away it is an error.
QUATERNION_TOLERANCE = 1e-3

_FLOAT64 = np.dtype(np.float64)


class Robot:
    """A rigid multibody robot and its state-dependent quantities.

    ``update(q, v)`` runs one kinematics and dynamics pass, which fills the mass matrix
    ``M(q)``, the bias forces ``h(q, v) = C(q, v) v + g(q)``, the joint Jacobians and their
    time derivatives, the centre of mass, its Jacobian and its drift, the centroidal momentum
    terms and the placements of the frames the robot's tasks and contacts read; every later
    query (frame Jacobians, the drift ``J̇ v``, the CoM drift) reads from that pass. For the
    joints of :mod:`tsid_py.rigid_body` (free flyer, revolute, prismatic, continuous) it is
    that module's compiled pass; for others, ``pinocchio.computeAllTerms``. Either way
    :attr:`data` is pinocchio's data at the last update, complete (computed on first access
    after an update by the compiled pass). Units are SI: m, rad, kg, N, N·m.
    """

    def __init__(
        self,
        model: pin.Model,
        *,
        name: str = "robot",
        feet: Sequence[str] = (),
        sole_size: tuple[float, float] | None = None,
        foot_radius: float = 0.0,
        q_ref: np.ndarray | None = None,
        urdf_path: str | None = None,
        package_dirs: Sequence[str] = (),
        end_effector: str | None = None,
        source: ModelSource | None = None,
        postures: dict[str, np.ndarray] | None = None,
        profile=None,
    ):
        self.model = model
        self._data = model.createData()
        #: The kinematics and dynamics pass each update runs (:mod:`tsid_py.dynamics_pass`:
        #: compiled, or pinocchio's for joints the compiled one does not know).
        self.dynamics = dynamics_pass(model, self._data)
        self._data_current = False                # whether _data holds the last update's terms
        self._placed_current = False              # whether _placed holds its joint placements
        self._bind_data_views()
        self.name = name
        if source is None and urdf_path is not None:
            source = ModelSource(path=os.fspath(urdf_path), kind="urdf", package_dirs=tuple(package_dirs))
        #: The file the model was read from and the loader's choices (None: built in code).
        self.source = source
        self.urdf_path = source.path if source is not None and source.kind == "urdf" else None
        self.package_dirs = list(package_dirs or (source.package_dirs if source is not None else ()))
        self.floating_base = model.joints[1].shortname() == "JointModelFreeFlyer" if model.njoints > 1 else False
        self.nq, self.nv = model.nq, model.nv
        self.na = self.nv - 6 if self.floating_base else self.nv
        self.mass = float(sum(inertia.mass for inertia in model.inertias))
        self.gravity = float(np.linalg.norm(model.gravity.linear))
        self.weight = self.mass * self.gravity
        self._frame_ids: dict[str, int] = {}
        self.feet = list(feet)
        for foot in self.feet:
            self.frame_id(foot)
        self.sole_size = sole_size
        self.foot_radius = foot_radius
        self.end_effector = end_effector
        self.q_ref = pin.neutral(model) if q_ref is None else self.check_configuration(q_ref, "q_ref")
        #: Named configurations from the model file (an MJCF's keyframes), name → q (nq,).
        self.postures = {key: self.check_configuration(value, f"postures[{key!r}]")
                         for key, value in (postures or {}).items()}
        self._build_joint_maps()
        #: The state of the last update: the robot's own arrays (an update copies into them).
        self.q = self.q_ref.copy()
        self.v = np.zeros(self.nv)
        self._q_shape, self._v_shape = self.q.shape, self.v.shape
        self.updated = False
        #: The robot's :class:`~tsid_py.models.profile.RobotProfile` (feet, torso, posture,
        #: controller defaults), or None: controllers then derive one from the model
        #: (:func:`tsid_py.models.profile.profile_of`).
        self.profile = profile

    def _bind_data_views(self) -> None:
        """Numpy views of the quantities that :meth:`update` refreshes (the compiled pass's
        outputs, or pinocchio's buffers, which are allocated once), so that reading them
        costs no call."""
        source = self.dynamics
        self._mass_matrix, self._bias = source.mass_matrix, source.bias
        self._joint_jacobians, self._joint_jacobian_rates = source.joint_jacobians, source.joint_jacobian_rates
        self._com, self._com_velocity, self._com_drift = source.com, source.com_velocity, source.com_drift
        self._com_jacobian = source.com_jacobian
        self._frame_sources: dict[int, FrameSources] = {}
        self._scratch = self.model.createData()     # for queries at other configurations
        self._placed = self.model.createData()      # joint placements at the last update

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        for key in ("_mass_matrix", "_bias", "_joint_jacobians", "_joint_jacobian_rates", "_com", "_com_velocity",
                    "_com_drift", "_com_jacobian", "_frame_sources", "_scratch", "_placed"):
            state.pop(key, None)
        state["_data_current"] = state["_placed_current"] = False
        return state

    def __setstate__(self, state: dict) -> None:
        """Restore a pickled or copied robot: its views are bound to its own data again."""
        self.__dict__.update(state)
        self._bind_data_views()

    @property
    def data(self) -> pin.Data:
        """pinocchio's data at the last update, complete: ``computeAllTerms``,
        ``updateFramePlacements`` and ``centerOfMass`` (acceleration) at the last ``(q, v)``
        (after a compiled update, run on first access). For users who need more than the
        robot's own queries; the control step reads the compiled pass's outputs."""
        if not self._data_current and self.updated:
            self.dynamics.complete(self.model, self._data, self.q, self.v)
            self._data_current = True
        return self._data

    @property
    def placed_data(self) -> pin.Data:
        """pinocchio data whose joints' world placements ``oMi`` (and nothing else promised) are
        the last update's; always the same object (views of ``oMi`` stay valid): :attr:`data`
        on pinocchio's pass, else its own, placed by ``forwardKinematics`` on first access."""
        if not self.dynamics.checks_inputs:        # pinocchio's pass: data is whole at each update
            return self._data
        if not self._placed_current and self.updated:
            pin.forwardKinematics(self.model, self._placed, self.q)
            self._placed_current = True
        return self._placed

    # ----------------------------------------------------------------------------- loading
    @classmethod
    def from_urdf(
        cls,
        path: str | os.PathLike,
        floating_base: bool = True,
        package_dirs: Sequence[str] | None = None,
        *,
        name: str = "robot",
        feet: Sequence[str] = (),
        sole_size: tuple[float, float] | None = None,
        foot_radius: float = 0.0,
        q_ref: np.ndarray | None = None,
        end_effector: str | None = None,
        mimic: str = "coupled",
        srdf: str | os.PathLike | None = None,
        posture: str | None = None,
        passive: Sequence[str] = (),
    ) -> "Robot":
        """Load a URDF (:func:`tsid_py.loaders.urdf.load_urdf`: continuous, floating, planar
        and mimic joints); ``floating_base`` adds a free-flyer root joint (7 q, 6 v).

        Parameters
        ----------
        path : the URDF file (``ValueError`` if it does not exist).
        floating_base : add a free-flyer root joint (7 q, 6 v) instead of a fixed base (a
            ``floating`` joint on the file's root link is that free flyer).
        package_dirs : folders that replace ``package://`` in the URDF's mesh paths (the
            simulator's visual model reads them).
        name : the robot's name in reports and errors.
        feet : the names of the foot frames (checked to exist).
        sole_size : the soles' (length, width), m, for planar foot contacts (None: point feet).
        foot_radius : the radius of a point foot's sphere, centred at the foot frame, m.
        q_ref : the reference configuration (nq,) (default: pinocchio's neutral one).
        end_effector : the name of the end-effector frame, if any.
        mimic : ``"coupled"`` (a mimic joint follows its primary joint: :attr:`mimic_joints`)
            or ``"independent"`` (the couplings are dropped).
        srdf : an SRDF whose group states become :attr:`postures`; ``q_ref`` (when not
            given) is ``posture``'s, by default the first's.
        posture : the SRDF group state ``q_ref`` starts from.
        passive : joints without a motor (:attr:`passive_joints`, with the mimic joints).
        """
        loaded = load_urdf(path, floating_base, package_dirs, mimic=mimic, passive=passive)
        postures = srdf_postures(loaded.model, srdf) if srdf is not None else {}
        if posture is not None and posture not in postures:
            raise KeyError(f"posture {posture!r} is not a group state of {srdf}; group states: {list(postures)}")
        if q_ref is None and postures:
            q_ref = postures[posture or next(iter(postures))]
        source = loaded.source if srdf is None else dataclasses.replace(loaded.source, srdf=os.fspath(srdf))
        return cls(loaded.model, name=name, feet=feet, sole_size=sole_size, foot_radius=foot_radius, q_ref=q_ref,
                   package_dirs=loaded.source.package_dirs, end_effector=end_effector, source=source,
                   postures=postures)

    @classmethod
    def from_mjcf(
        cls,
        path: str | os.PathLike,
        *,
        posture: str | None = None,
        name: str | None = None,
        feet: Sequence[str] = (),
        sole_size: tuple[float, float] | None = None,
        foot_radius: float = 0.0,
        q_ref: np.ndarray | None = None,
        end_effector: str | None = None,
    ) -> "Robot":
        """Load an MJCF file (:func:`tsid_py.loaders.mjcf.load_mjcf`): a ``<freejoint>`` on
        the root body makes a floating base; the keyframes become :attr:`postures`.

        Parameters
        ----------
        path : the MJCF file (``ValueError`` if it does not exist).
        posture : the keyframe ``q_ref`` starts from (default: the file's first keyframe,
            else ``qpos0``); ``KeyError`` naming the keyframes if it is not one.
        name : the robot's name (default: the file's model name).
        feet, sole_size, foot_radius, end_effector : as for :meth:`from_urdf`.
        q_ref : the reference configuration (nq,), instead of a keyframe.
        """
        loaded = load_mjcf(path)
        if posture is not None and posture not in loaded.postures:
            raise KeyError(f"posture {posture!r} is not a keyframe of {loaded.source.path}; "
                           f"keyframes: {list(loaded.postures)}")
        if q_ref is None:
            chosen = posture or loaded.default_posture
            q_ref = loaded.postures[chosen] if chosen is not None else None
        return cls(loaded.model, name=name or loaded.model.name or "robot", feet=feet, sole_size=sole_size,
                   foot_radius=foot_radius, q_ref=q_ref, end_effector=end_effector, source=loaded.source,
                   postures=loaded.postures)

    #: The OpenSim model this robot was read from (:meth:`from_osim`), else None: its
    #: coordinates (the map to pinocchio's q and v, with coupled joints), bodies, markers, path.
    opensim = None

    @classmethod
    def from_osim(cls, path: str | os.PathLike, *, name: str | None = None, feet: Sequence[str] | None = None
                  ) -> "Robot":
        """Load an OpenSim model (``.osim``, format 4.x) with :func:`tsid_py.loaders.opensim.load_osim`;
        the coordinates are the joint names, and joints coupled to a coordinate (the knee's
        translations) are reproduced exactly. ``feet``: foot bodies (default: ``calcn_r``,
        ``calcn_l`` if the model has them), each given a sole frame ``<body>_sole``
        (see :func:`~tsid_py.loaders.opensim.add_sole_frames`); ``robot.feet`` are those frames
        and ``robot.sole_size`` their (length, width). ``q_ref`` is the coordinates' defaults."""
        from .loaders.opensim import add_sole_frames, load_osim

        loaded = load_osim(path)
        feet = [b for b in ("calcn_r", "calcn_l") if b in loaded.bodies] if feet is None else list(feet)
        soles, sole_size = add_sole_frames(loaded, feet)
        robot = cls(loaded.model, name=name or loaded.name, feet=soles, sole_size=sole_size,
                    q_ref=loaded.coordinates.configurations(loaded.coordinates.defaults))
        robot.opensim = loaded
        return robot

    def _build_joint_maps(self) -> None:
        """Name → (q index, v index) for the 1-dof actuated joints, and their limits
        (:func:`~tsid_py.loaders.source.joint_maps`)."""
        maps = joint_maps(self.model, self.floating_base, self.source)
        self.joint_names, self._joint_q_index, self._joint_v_index = maps.names, maps.q_index, maps.v_index
        #: The continuous (unbounded revolute) joints: one velocity, two positions
        #: ``(cos θ, sin θ)`` from :meth:`joint_q_index` on.
        self.continuous_joints: set[str] = maps.continuous
        self.effort_limits, self.velocity_limits = maps.effort_limits, maps.velocity_limits
        self.position_lower, self.position_upper = maps.position_lower, maps.position_upper

    # ----------------------------------------------------------------------------- names
    def frame_id(self, name: str) -> int:
        """The pinocchio frame index of ``name``; ``KeyError`` naming close matches otherwise."""
        cached = self._frame_ids.get(name)
        if cached is not None:
            return cached
        if not isinstance(name, str) or not self.model.existFrame(name):
            known = [frame.name for frame in self.model.frames]
            hint = [k for k in known if isinstance(name, str) and name.lower()[:4] in k.lower()][:6]
            raise KeyError(f"frame {name!r} is not in robot {self.name!r}" + (f"; similar: {hint}" if hint else ""))
        matches = [i for i, frame in enumerate(self.model.frames) if frame.name == name]
        if len(matches) > 1:       # a joint and a link of the same name: the body frame is the link's
            bodies = [i for i in matches if self.model.frames[i].type == pin.FrameType.BODY]
            if len(bodies) != 1:
                kinds = [str(self.model.frames[i].type).rsplit(".", 1)[-1] for i in matches]
                raise KeyError(f"frame name {name!r} is ambiguous in robot {self.name!r}: "
                               f"{len(matches)} frames carry it ({', '.join(kinds)}); rename one in the model file")
            matches = bodies
        frame_id = matches[0]
        self._frame_ids[name] = frame_id
        return frame_id

    def joint_v_index(self, name: str) -> int:
        """Index in v (and in τ) of a joint with one velocity (revolute, prismatic or
        continuous)."""
        try:
            return self._joint_v_index[name]
        except KeyError:
            raise KeyError(f"joint {name!r} is not a 1-dof joint of robot {self.name!r}; "
                           f"joints: {list(self._joint_v_index)}") from None

    def has_1dof_joint(self, name: str) -> bool:
        """Whether ``name`` is a joint with one position and one velocity (nq = nv = 1),
        revolute or prismatic (a continuous joint has two positions, :attr:`continuous_joints`)."""
        return name in self._joint_v_index and name not in self.continuous_joints

    @property
    def scalar_joint_names(self) -> list[str]:
        """The joints with one velocity — revolute, prismatic and continuous — in the model's
        order: the joints a posture task controls."""
        return [name for name in self.joint_names if name in self._joint_v_index]

    @property
    def mimic_joints(self) -> tuple:
        """The URDF's mimic couplings the robot keeps (:class:`tsid_py.loaders.source.MimicJoint`:
        ``q[joint] = multiplier q[primary] + offset``); empty for a model without them, or
        loaded with ``mimic="independent"``. A solver holds them as closures (:attr:`closures`)."""
        return self.source.mimic if self.source is not None else ()

    @property
    def closures(self) -> tuple:
        """The model file's closed chains and couplings, as the loader read them: the mimic
        couplings (each a :class:`~tsid_py.loaders.source.CoordinateCoupling` named
        ``"mimic <joint>"``, ``q_m − 0 = b + k (q_p − 0)``) and an MJCF file's equalities
        (:mod:`tsid_py.loaders.mjcf_closures`). A :class:`~tsid_py.DynamicsSolver` holds each as
        a constraint of the equation of motion (:mod:`tsid_py.closures`)."""
        if self.source is None:
            return ()
        mimic = tuple(CoordinateCoupling(f"mimic {c.joint}", ((c.joint, 1.0),), ((c.primary, 1.0),),
                                         (c.offset, c.multiplier)) for c in self.source.mimic)
        return mimic + self.source.closures

    @property
    def passive_joints(self) -> tuple[str, ...]:
        """The joints without a motor, by name: an MJCF file's joints no actuator drives, a
        URDF's mimic joints and those named ``passive`` when loading. A solver holds their
        torque at 0 (:attr:`tsid_py.DynamicsSolver.passive_joints`)."""
        return self.source.passive if self.source is not None else ()

    def joint_q_index(self, name: str) -> int:
        """Index in q of a joint with one velocity (a continuous joint's ``cos θ``, followed
        by its ``sin θ``)."""
        self.joint_v_index(name)
        return self._joint_q_index[name]

    # ----------------------------------------------------------------------------- state
    def zero_velocity(self) -> np.ndarray:
        """A new zero velocity (nv,)."""
        return np.zeros(self.nv)

    def check_configuration(self, q, name: str = "q") -> np.ndarray:
        """Validate a configuration; a free-flyer quaternion near unit norm is normalised
        (in a copy of ``q``)."""
        q = as_vector(q, name, self.nq)
        if self.floating_base:
            norm = math.hypot(q.item(3), q.item(4), q.item(5), q.item(6))
            if abs(norm - 1.0) > QUATERNION_TOLERANCE:
                raise ValueError(f"{name}[3:7] must be a unit quaternion (x, y, z, w), got norm {norm:.6g}")
            if norm != 1.0:
                q = q.copy()
                for i in range(3, 7):          # element by element: no view to allocate
                    q[i] = q.item(i) / norm
        return q

    def update(self, q, v) -> None:
        """One kinematics/dynamics pass at ``(q, v)`` (validated: ``ValueError`` naming the
        argument; a quaternion near unit norm is normalised); every later query reads from
        it. Float vectors of the right sizes are checked, copied and passed in one compiled
        call (the control step's path)."""
        dynamics = self.dynamics
        if (dynamics.checks_inputs and type(q) is np.ndarray and type(v) is np.ndarray and q.dtype is _FLOAT64
                and v.dtype is _FLOAT64 and q.shape == self._q_shape and v.shape == self._v_shape
                and dynamics.update(q, v, self.q, self.v, QUATERNION_TOLERANCE) == 0):
            self.updated, self._data_current, self._placed_current = True, False, False
            return
        q = self.check_configuration(q, "q")        # the error that names the argument
        v = as_vector(v, "v", self.nv)
        self.update_unchecked(q, v)

    def update_unchecked(self, q: np.ndarray, v: np.ndarray) -> None:
        """``update`` for inputs already validated."""
        self.dynamics.update(q, v, self.q, self.v, QUATERNION_TOLERANCE)
        self.updated, self._data_current = True, not self.dynamics.checks_inputs
        self._placed_current = False

    # ----------------------------------------------------------------------------- dynamics
    # Views of the pass's buffers: valid (and changing) after each update; copy to keep.
    @property
    def mass_matrix(self) -> np.ndarray:
        """M(q), (nv, nv), symmetric."""
        return self._mass_matrix

    @property
    def bias(self) -> np.ndarray:
        """h(q, v) = C(q, v) v + g(q), (nv,)."""
        return self._bias

    def gravity_torques(self, q) -> np.ndarray:
        """g(q), (nv,) (on a scratch copy of the data: the last update is untouched)."""
        return pin.computeGeneralizedGravity(self.model, self._scratch, self.check_configuration(q)).copy()

    # ----------------------------------------------------------------------------- frames
    def frame_placement(self, frame_id: int) -> pin.SE3:
        """World placement of the frame at the last update (copy it to keep it: pinocchio's
        object, or one made from the compiled pass's arrays)."""
        return pin.SE3(self.frame_rotation(frame_id), self.frame_translation(frame_id))

    def placement_at(self, q, frame_id: int) -> pin.SE3:
        """World placement of the frame at configuration ``q`` (a new SE3), computed on a
        scratch copy of the data: the robot's state and its last update are untouched."""
        q = self.check_configuration(q, "q")
        self.dynamics.sync_frames(self.model)
        return pin.updateFramePlacement(self.model, self._forward_scratch(q), frame_id).copy()

    def com_at(self, q) -> np.ndarray:
        """Centre of mass (3,) at configuration ``q``, m; the robot's state is untouched."""
        return pin.centerOfMass(self.model, self._scratch, self.check_configuration(q, "q"), False).copy()

    def _forward_scratch(self, q: np.ndarray):
        pin.forwardKinematics(self.model, self._scratch, q)
        return self._scratch

    def frame_rotation(self, frame_id: int) -> np.ndarray:
        """(3, 3) world rotation of the frame (a view, refreshed by each update)."""
        return self.dynamics.frame_views(frame_id)[0]

    def frame_translation(self, frame_id: int) -> np.ndarray:
        """(3,) world position of the frame origin (a view, refreshed by each update)."""
        return self.dynamics.frame_views(frame_id)[1]

    def frame_offset(self, frame_id: int) -> tuple[np.ndarray, np.ndarray]:
        """Writable views of the frame's placement in its parent joint's frame, rotation (3, 3)
        and translation (3,), for a frame that moves on its body (a rolling foot's contact
        point): what is written there holds from the next update on."""
        return self.dynamics.frame_offset(self.model, frame_id)

    def joint_rotation(self, joint_id: int) -> np.ndarray:
        """(3, 3) world rotation of a joint's frame at the last update (a view, refreshed by
        each update)."""
        return self.dynamics.joint_rotation(joint_id)

    def frame_sources(self, frame_id: int) -> FrameSources:
        """The views and columns a compiled kernel forms the frame's Jacobian and drift from
        (built once per frame; the views are refreshed by each update)."""
        sources = self._frame_sources.get(frame_id)
        if sources is None:
            model = self.model
            joints = [model.joints[joint] for joint in model.supports[model.frames[frame_id].parentJoint]
                      if joint > 0]         # not the universe, which has no velocity
            columns = np.array([joint.idx_v + k for joint in joints for k in range(joint.nv)], dtype=np.intp)
            sources = self._frame_sources[frame_id] = FrameSources(
                self._joint_jacobians, self._joint_jacobian_rates, columns, self.frame_translation(frame_id),
                self.frame_rotation(frame_id))
        return sources

    def frame_jacobian(self, frame_id: int, reference=pin.LOCAL_WORLD_ALIGNED) -> np.ndarray:
        """(6, nv) Jacobian, linear rows first, in ``reference`` axes."""
        return pin.getFrameJacobian(self.model, self.data, frame_id, reference)

    def frame_velocity(self, frame_id: int, reference=pin.LOCAL_WORLD_ALIGNED) -> np.ndarray:
        """(6,) classical velocity of the frame origin and angular velocity."""
        return pin.getFrameVelocity(self.model, self.data, frame_id, reference).vector

    def frame_drift(self, frame_id: int, reference=pin.LOCAL_WORLD_ALIGNED) -> np.ndarray:
        """(6,) classical acceleration at q̈ = 0, i.e. ``J̇ v`` plus the ω × v term."""
        return pin.getFrameClassicalAcceleration(self.model, self.data, frame_id, reference).vector

    # ----------------------------------------------------------------------------- centre of mass
    @property
    def com(self) -> np.ndarray:
        """Centre of mass (3,), m, world axes (a view, refreshed by each update)."""
        return self._com

    @property
    def com_velocity(self) -> np.ndarray:
        """Centre-of-mass velocity (3,), m/s (a view, refreshed by each update)."""
        return self._com_velocity

    @property
    def com_jacobian(self) -> np.ndarray:
        """(3, nv) Jacobian of the CoM position."""
        return self._com_jacobian

    @property
    def com_drift(self) -> np.ndarray:
        """CoM acceleration at q̈ = 0, ``J̇_com v``."""
        return self._com_drift

    def centroidal(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The centroidal momentum matrix ``A_g`` (6 × nv), the momentum ``h_g = A_g v`` (6,)
        and its drift ``Ȧ_g v`` (6,), linear then angular, about the CoM (valid until the next
        update)."""
        return self.dynamics.centroidal(self._data, self.v)

    def __repr__(self) -> str:
        base = "floating" if self.floating_base else "fixed"
        return f"Robot({self.name!r}, nq={self.nq}, nv={self.nv}, {base} base)"
