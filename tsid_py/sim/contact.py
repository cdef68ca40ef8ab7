"""The floor and the friction model between it and the feet.

MuJoCo's contacts are soft: a constraint force comes with a small violation, and a friction
force with a small slip velocity, ``v ≈ R f / b`` per friction row (``R``: the row's
regulariser, ``(1 − d)/d`` times its inverse inertia, ``d`` the impedance of ``solimp``;
``b`` the damping of ``solref``; ``impratio`` divides ``R`` of the friction rows). A foot
that carries a steady tangential force therefore slides at a steady speed: standing still on
four point feet under the stance controller with MuJoCo's defaults (pyramidal cone,
``impratio`` 1, ``d`` = 0.95), Go2's worst foot moved 94 mm in 5 s and Solo12's 59 mm; a
humanoid's soles (boxes, ``condim`` 4) on a 10° slope, 17 % of the weight along it, 38 mm
in 5 s standing (G1 and Talos) and 25–27 mm a stance walking up it, which the estimator,
assuming stance feet fixed, took for walking: 11–19 cm of drift over a 3 m walk.
``benchmarks/foot_creep.py`` measures each remedy (its docstring has the tables):

* global options — an elliptic cone with ``impratio`` 100: 0.4 / 0.3 mm for the point feet,
  ~1 mm for the soles; the no-slip post-solve: 0 mm but a quarter more per physics step;
* each foot's own impedance — ``d`` = 0.9999 on the spheres the harness builds,
  :attr:`ContactOptions.sole_impedance` on its sole boxes, which win the floor contact's
  parameters (``priority``): 0.15 mm in 5 s for Go2's point feet; 1.2 mm (G1) and 0.5 mm
  (Talos) for soles at ``d`` = 0.999 on the 10° slope, no cost per step.

A contact's normal and friction rows share ``solimp``, so a sole's own impedance stiffens
both; ``impratio`` stiffens only the friction rows. That difference decides rough ground: a
standing humanoid's soles sink 0.73 mm into the floor under MuJoCo's ``d`` (G1 and Talos
alike, 4 corners a sole, 1 s of the balance demo), 0.008 mm at ``d`` = 0.999. The walk's
planner takes every point of a footprint within 2 mm of the plane the sole rests on as
bearing (:data:`tsid_py.control.terrain.CONTACT_TOLERANCE`); a sole that sinks under load
bears on the ±2 cm height field around those points, a rigid one only on its three highest
points, and rolls (10–16°) when the centre of pressure is asked at a corner of the planner's
polygon that does not bear (G1's 5 cm wide soles, ``--realistic``: rough ground 3/5 on
MuJoCo's soles, 0/5 at ``d`` = 0.999). Stiff soles also take away the 7 mm slide with which
G1 rides out the 130 N standing push (at ``d`` = 0.999 it falls; 130 N is 94 % of its
rigid-contact bound).

So :data:`DEFAULT_CONTACT` stiffens friction only: an elliptic cone with ``impratio`` 10, the
soles' ``solimp`` and ``solref`` MuJoCo's, and point feet at
:attr:`ContactOptions.point_foot_impedance` = 0.9999. A standing G1 on the 10° slope creeps
0.32 mm in 1 s on it (MuJoCo's options: 7.6 mm a second; ``impratio`` 100, the global
options of Unitree's own ``go2.xml``: 0.03 mm). Measured (``benchmarks/terrain_walks.py``,
``--realistic``, seeds 0–4): G1 climbs 10° in 5 of 5 seeds where MuJoCo's options gave 0,
the estimator's drift 3.8 cm at most (16.8 cm on MuJoCo's; 3.0 cm at ``impratio`` 100).
``impratio`` 100 was not taken: on it Talos falls after the stepping recovery from a 600 N
sideways push (+y, ``tests/test_step_recovery.py``; its stance sole tips at 2.2 s), as it
does at 30, not at 10 or on MuJoCo's. On any of them G1's largest sideways standing push
falls from 200 to 190 N (at 200 N its soles tip 7.5°, where on MuJoCo's they slide 1.1 cm).
The point-foot gait contact :data:`WALKING_CONTACT` keeps MuJoCo's global options it was
measured on. ``ContactOptions(sole_impedance=0.999)`` remains the rigid-sole option.
"""

from __future__ import annotations

from dataclasses import dataclass

#: MuJoCo's friction cones by name.
CONES = ("pyramidal", "elliptic")

#: MuJoCo's own global contact options (``ContactOptions(**MUJOCO_OPTIONS)``: a pyramidal
#: cone, friction rows as soft as the normal rows).
MUJOCO_OPTIONS = {"cone": "pyramidal", "impratio": 1.0}


@dataclass(frozen=True)
class ContactOptions:
    """The contact model the harness gives the floor and the feet.

    friction : sliding friction coefficient of the floor and the feet it builds.
    cone : ``"elliptic"`` (the default) or ``"pyramidal"`` (MuJoCo's default) friction cone.
    impratio : ratio of the friction rows' impedance to the normal rows' (≥ 1; larger is
        stiffer friction, less creep under a steady tangential force: every contact).
        Default 10 (MuJoCo's is 1): the friction rows' regulariser is a tenth of the normal
        rows', so a loaded sole creeps 24 times slower while its normal compliance (MuJoCo's
        ``solimp``) stays as it is (see the module).
    noslip_iterations : MuJoCo's no-slip post-solve iterations (0: off; every contact).
    point_foot_impedance : the impedance ``d`` (``solimp``, in (0, 1)) of the contacts of the
        sphere feet the harness builds, which take precedence over the floor's (``priority``
        1); the creep speed scales as ``1 − d``. None: MuJoCo's (0.9 to 0.95).
    point_foot_timeconst : the time constant (s, ``solref``; ≥ 2 physics steps) with which
        those contacts correct their penetration. None: MuJoCo's 0.02 s. With ``d`` near 1
        and 0.02 s a loaded foot's penetration relaxes to zero slowly and overshoots it under
        a gait's changing loads: the contact drops for a step and comes back as an impact that
        slides the foot (:data:`WALKING_CONTACT`).
    sole_impedance : the impedance ``d`` of the contacts of the sole boxes the harness builds
        (``priority`` 1 over the floor's and the terrain's), as ``point_foot_impedance`` for
        the soles: a sole's creep under a steady tangential load scales as ``1 − d``.
        None: MuJoCo's (0.9 to 0.95).
    sole_timeconst : the time constant (s) of the soles' contacts, as ``point_foot_timeconst``.
        None: MuJoCo's 0.02 s.
    """

    friction: float = 1.0
    cone: str = "elliptic"
    impratio: float = 10.0
    noslip_iterations: int = 0
    point_foot_impedance: float | None = 0.9999
    point_foot_timeconst: float | None = None
    sole_impedance: float | None = None
    sole_timeconst: float | None = None

    def __post_init__(self):
        if not self.friction > 0:
            raise ValueError(f"friction must be > 0, got {self.friction!r}")
        if self.cone not in CONES:
            raise ValueError(f"cone must be one of {CONES}, got {self.cone!r}")
        if not self.impratio >= 1:
            raise ValueError(f"impratio must be >= 1, got {self.impratio!r}")
        if int(self.noslip_iterations) != self.noslip_iterations or self.noslip_iterations < 0:
            raise ValueError(f"noslip_iterations must be a whole number >= 0, got {self.noslip_iterations!r}")
        for name in ("point_foot", "sole"):
            impedance, timeconst = getattr(self, f"{name}_impedance"), getattr(self, f"{name}_timeconst")
            if impedance is not None and not 0 < impedance < 1:
                raise ValueError(f"{name}_impedance must be in (0, 1) or None, got {impedance!r}")
            if timeconst is not None and not timeconst > 0:
                raise ValueError(f"{name}_timeconst must be > 0 s or None, got {timeconst!r}")

    @property
    def sliding(self) -> list[float]:
        """MuJoCo's ``friction`` triple: sliding, torsional (m), rolling (m)."""
        return [self.friction, 0.005, 0.0001]

    def apply_to_point_foot(self, geom) -> None:
        """Give a sphere foot's ``mujoco.MjsGeom`` its impedance in the floor contact."""
        _set_impedance(geom, self.point_foot_impedance, self.point_foot_timeconst)

    def apply_to_sole(self, geom) -> None:
        """Give a sole box's ``mujoco.MjsGeom`` its impedance in the ground contact."""
        _set_impedance(geom, self.sole_impedance, self.sole_timeconst)

    def apply(self, spec) -> None:
        """Set the solver options of an ``mujoco.MjSpec``."""
        import mujoco

        spec.option.cone = (mujoco.mjtCone.mjCONE_ELLIPTIC if self.cone == "elliptic"
                            else mujoco.mjtCone.mjCONE_PYRAMIDAL)
        spec.option.impratio = self.impratio
        spec.option.noslip_iterations = int(self.noslip_iterations)


def _set_impedance(geom, impedance: float | None, timeconst: float | None) -> None:
    """``solimp`` with ``d`` = ``impedance`` at every penetration and ``solref`` with
    ``timeconst`` on ``geom``, which then wins its contacts' parameters (``priority`` 1)."""
    if impedance is not None or timeconst is not None:
        geom.priority = 1
    if impedance is not None:
        geom.solimp = [impedance, impedance, 0.001, 0.5, 2.0]
    if timeconst is not None:
        geom.solref = [timeconst, 1.0]


#: The harness's contact model (see the module for the measurements behind it).
DEFAULT_CONTACT = ContactOptions()

#: Point feet for gaits, on MuJoCo's global options (as measured): ``d`` = 0.993 corrected
#: in 2 ms. Under the default feet (``d`` = 0.9999 corrected in 20 ms) a trotting Go2's
#: loaded foot lost its contact for one physics step every ~50 ms (41 steps in 2 s) and came
#: back sliding, 5.4 mm per stance (median); with these, none and 0.03 mm, while a standing
#: Go2's worst foot creeps 1.1 mm in 5 s instead of 0.15 mm (``benchmarks/trot_contact.py``).
WALKING_CONTACT = ContactOptions(**MUJOCO_OPTIONS, point_foot_impedance=0.993, point_foot_timeconst=0.002)


#: MuJoCo's default friction triple (sliding, torsional m, rolling m).
MUJOCO_FRICTION = [1.0, 0.005, 0.0001]


def add_floor(spec, friction: list[float] | None = None):
    """A plane at ``z = 0`` named ``floor`` with a grey checker texture (0.5 m squares, which
    show motion on video), colliding with everything (``contype = conaffinity = 1``,
    ``condim`` 3, whatever the file's default class says); ``friction``: MuJoCo's triple
    (default :data:`MUJOCO_FRICTION`, MuJoCo's own)."""
    import mujoco

    floor = spec.worldbody.add_geom(name="floor", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0, 0, 0.05])
    floor.contype = floor.conaffinity = 1
    floor.condim = 3
    spec.add_texture(name="tsid_checker", type=mujoco.mjtTexture.mjTEXTURE_2D,
                     builtin=mujoco.mjtBuiltin.mjBUILTIN_CHECKER, rgb1=[0.72, 0.74, 0.77], rgb2=[0.58, 0.60, 0.64],
                     width=64, height=64)
    material = spec.add_material(name="tsid_checker", texrepeat=[2, 2], texuniform=True)
    material.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = "tsid_checker"
    floor.material = "tsid_checker"
    floor.friction = MUJOCO_FRICTION if friction is None else friction
    return floor


def add_sky(spec) -> None:
    """A pale blue sky for the viewer and the videos (a gradient skybox texture: drawn, never
    simulated), unless the file has its own."""
    import mujoco

    if any(texture.type == mujoco.mjtTexture.mjTEXTURE_SKYBOX for texture in spec.textures):
        return
    spec.add_texture(name="tsid_sky", type=mujoco.mjtTexture.mjTEXTURE_SKYBOX,
                     builtin=mujoco.mjtBuiltin.mjBUILTIN_GRADIENT, rgb1=[0.55, 0.72, 0.90],
                     rgb2=[0.95, 0.97, 1.0], width=64, height=384)


def has_floor(spec) -> bool:
    """Whether the world body already holds a plane (a scene file's floor)."""
    import mujoco

    return any(geom.type == mujoco.mjtGeom.mjGEOM_PLANE for geom in spec.worldbody.geoms)
