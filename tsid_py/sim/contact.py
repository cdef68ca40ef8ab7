"""The floor and the friction model between it and the feet.

MuJoCo's contacts are soft: a contact force needs a small constraint violation, and with the
default pyramidal friction cone (``impratio = 1``) a foot that carries a steady tangential
force slides at a steady speed. Standing still on four point feet under the stance
controller, Go2's worst foot moved 94 mm in 5 s and Solo12's 59 mm (MuJoCo's defaults);
``benchmarks/foot_creep.py`` measures each option (its docstring has the table): an elliptic
cone alone halves the creep, ``impratio`` 10 brings it to 3–4 mm, 100 to 0.3–0.4 mm, all at
the same step time (16 µs); the no-slip post-solve (3 iterations) stops it but adds a quarter
to the step.

The default, :data:`DEFAULT_CONTACT`, is the elliptic cone with ``impratio = 100`` (what
Unitree's own Go2 MJCF file ships with): the friction rows are made 100 × stiffer than the
normal ones, the creep falls below half a millimetre and a physics step costs nothing more;
the no-slip post-solve stops the creep entirely but adds a quarter to every step (and did
worse, 3 mm, on Unitree's condim-6 feet). Humanoid soles (boxes, ``condim`` 4) creep less too
(Talos standing 3 s: 1.95 mm → 0.03 mm) and their step is no slower (33 µs).
"""

from __future__ import annotations

from dataclasses import dataclass

#: MuJoCo's friction cones by name.
CONES = ("pyramidal", "elliptic")


@dataclass(frozen=True)
class ContactOptions:
    """The contact model the harness gives the floor and the feet.

    friction : sliding friction coefficient of the floor and the feet it builds.
    cone : ``"elliptic"`` or ``"pyramidal"`` friction cone.
    impratio : ratio of the friction rows' impedance to the normal rows' (≥ 1; with an
        elliptic cone, larger is stiffer friction: less creep under a steady tangential force).
    noslip_iterations : MuJoCo's no-slip post-solve iterations (0: off).
    """

    friction: float = 1.0
    cone: str = "elliptic"
    impratio: float = 100.0
    noslip_iterations: int = 0

    def __post_init__(self):
        if not self.friction > 0:
            raise ValueError(f"friction must be > 0, got {self.friction!r}")
        if self.cone not in CONES:
            raise ValueError(f"cone must be one of {CONES}, got {self.cone!r}")
        if not self.impratio >= 1:
            raise ValueError(f"impratio must be >= 1, got {self.impratio!r}")
        if int(self.noslip_iterations) != self.noslip_iterations or self.noslip_iterations < 0:
            raise ValueError(f"noslip_iterations must be a whole number >= 0, got {self.noslip_iterations!r}")

    @property
    def sliding(self) -> list[float]:
        """MuJoCo's ``friction`` triple: sliding, torsional (m), rolling (m)."""
        return [self.friction, 0.005, 0.0001]

    def apply(self, spec) -> None:
        """Set the solver options of an ``mujoco.MjSpec``."""
        import mujoco

        spec.option.cone = (mujoco.mjtCone.mjCONE_ELLIPTIC if self.cone == "elliptic"
                            else mujoco.mjtCone.mjCONE_PYRAMIDAL)
        spec.option.impratio = self.impratio
        spec.option.noslip_iterations = int(self.noslip_iterations)


#: The harness's contact model (see the module for the measurements behind it).
DEFAULT_CONTACT = ContactOptions()


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


def has_floor(spec) -> bool:
    """Whether the world body already holds a plane (a scene file's floor)."""
    import mujoco

    return any(geom.type == mujoco.mjtGeom.mjGEOM_PLANE for geom in spec.worldbody.geoms)
