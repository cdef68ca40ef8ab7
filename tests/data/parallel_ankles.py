"""Write ``parallel_ankles.xml``: a small biped whose ankles are parallel mechanisms.

Run ``python tests/data/parallel_ankles.py`` to write the file again. Each leg is that of
``biped.xml`` (a three-hinge hip, a knee, box soles) with the two ankle hinges passive: two
motors on the shin turn cranks 4 cm long, and from each crank's tip a rod 20 cm long (a
universal joint at the crank, two passive hinges) comes down to the foot, where an
``<equality connect>`` closes the loop 4 cm behind the ankle and 2.5 cm to either side of it.
Turning both motors together pitches the foot; turning them apart rolls it. At ``qpos0`` the
rods hang straight and the loops are closed; the keyframe ``crouch`` (knees bent 0.8 rad, the
feet flat) is closed by Newton's method on MuJoCo's own equality residuals (``efc_pos``) over
the cranks' and rods' joints, then the pelvis is set so that the soles touch ``z = 0``.
"""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np

SIDES = {"left": 1.0, "right": -1.0}
CRANK, ROD, BEHIND, APART = 0.04, 0.2, 0.04, 0.025     # m


def leg(side: str) -> str:
    """The MJCF of one leg."""
    y = 0.1 * SIDES[side]
    rods = "".join(f"""
          <body name="{side}_crank_{end}" pos="0 {APART * sign:g} -0.1">
            <joint name="{side}_ankle_motor_{end}" axis="0 1 0" range="-1.2 1.2"/>
            <inertial pos="-0.02 0 0" mass="0.05" diaginertia="2e-5 2e-5 2e-5"/>
            <geom type="capsule" fromto="0 0 0 -{CRANK} 0 0" size="0.008"/>
            <body name="{side}_rod_{end}" pos="-{CRANK} 0 0">
              <joint class="rod" name="{side}_rod_{end}_x" axis="1 0 0"/>
              <joint class="rod" name="{side}_rod_{end}_y" axis="0 1 0"/>
              <inertial pos="0 0 -0.1" mass="0.05" diaginertia="2e-4 2e-4 5e-6"/>
              <geom type="capsule" fromto="0 0 0 0 0 -{ROD}" size="0.005"/>
            </body>
          </body>""" for end, sign in (("out", SIDES[side]), ("in", -SIDES[side])))
    return f"""
      <body name="{side}_thigh" pos="0 {y:g} -0.05">
        <joint name="{side}_hip_yaw" axis="0 0 1"/>
        <joint name="{side}_hip_roll" axis="1 0 0"/>
        <joint name="{side}_hip_pitch" axis="0 1 0"/>
        <inertial pos="0 0 -0.15" mass="2.5" diaginertia="0.02 0.02 0.004"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.04"/>
        <body name="{side}_shin" pos="0 0 -0.3">
          <joint name="{side}_knee" axis="0 1 0" range="0 2.5"/>
          <inertial pos="0 0 -0.15" mass="1.4" diaginertia="0.012 0.012 0.002"/>
          <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.035"/>{rods}
          <body name="{side}_foot" pos="0 0 -0.3">
            <joint class="ankle" name="{side}_ankle_pitch" axis="0 1 0" range="-1 1"/>
            <joint class="ankle" name="{side}_ankle_roll" axis="1 0 0" range="-0.5 0.5"/>
            <inertial pos="0.02 0 -0.03" mass="0.6" diaginertia="0.001 0.002 0.002"/>
            <geom class="sole" name="{side}_sole_geom" pos="0.02 0 -0.04"/>
            <site name="{side}_sole" pos="0.02 0 -0.05"/>
          </body>
        </body>
      </body>"""


def model_text(keyframe: str = "") -> str:
    """The whole file, with ``keyframe`` (a ``<key>`` element) if given."""
    motors = "".join(f"""
    <motor name="{side}_{joint}" joint="{side}_{joint}"{' gear="2" ctrlrange="-50 50"' if joint == 'knee' else ''}/>"""
                     for side in SIDES for joint in ("hip_yaw", "hip_roll", "hip_pitch", "knee", "ankle_motor_out",
                                                     "ankle_motor_in"))
    loops = "".join(f"""
    <connect name="{side}_ankle_{end}" body1="{side}_rod_{end}" body2="{side}_foot" anchor="0 0 -{ROD}"/>"""
                    for side in SIDES for end in ("out", "in"))
    return f"""<!-- A small biped with parallel ankles, written for tsid_py's tests by tests/data/parallel_ankles.py
     (run it to write this file again): biped.xml's legs, whose ankle hinges are passive; on each
     shin two motors turn 4 cm cranks, and a 20 cm rod from each crank (a universal joint, passive)
     comes down to the foot, where an equality connect closes the loop 4 cm behind the ankle and
     2.5 cm to its side. The keyframe's loops were closed by Newton's method on MuJoCo's residuals. -->
<mujoco model="parallel_ankles">
  <compiler angle="radian" autolimits="true"/>
  <option timestep="0.002" integrator="implicitfast"/>
  <default>
    <joint armature="0.01" damping="0.2" frictionloss="0.1" range="-1.5 1.5"/>
    <geom contype="0" conaffinity="0" density="0" rgba="0.6 0.6 0.7 1"/>
    <motor ctrlrange="-60 60"/>
    <equality solref="0.002 1" solimp="0.9999 0.9999 0.001"/>
    <default class="ankle"><joint armature="0.001" damping="0.05" frictionloss="0"/></default>
    <default class="rod"><joint armature="0.0001" damping="0.01" frictionloss="0" range="-1 1"/></default>
    <default class="sole">
      <geom type="box" size="0.1 0.05 0.01" contype="1" conaffinity="1" friction="1.0 0.01 0.0001"
            rgba="0.3 0.3 0.3 1"/>
    </default>
  </default>
  <worldbody>
    <body name="pelvis" pos="0 0 0.7">
      <freejoint name="root"/>
      <inertial pos="0 0 0.1" mass="12" diaginertia="0.25 0.2 0.1"/>
      <geom type="box" size="0.08 0.14 0.2" pos="0 0 0.15"/>{leg("left")}{leg("right")}
    </body>
  </worldbody>
  <equality>{loops}
  </equality>
  <actuator>{motors}
  </actuator>{keyframe}
</mujoco>
"""


def closed_crouch(model: mujoco.MjModel) -> np.ndarray:
    """``qpos`` with the knees bent 0.8 rad, the hips and ankles at −0.4 rad (feet flat), the
    loops closed over the cranks' and rods' joints, and the soles on ``z = 0``."""
    data = mujoco.MjData(model)
    qpos = model.qpos0.copy()
    for side in SIDES:
        for joint, value in (("hip_pitch", -0.4), ("knee", 0.8), ("ankle_pitch", -0.4)):
            qpos[model.joint(f"{side}_{joint}").qposadr[0]] = value
    loop_joints = [model.joint(f"{side}_{name}") for side in SIDES
                   for name in ("ankle_motor_out", "ankle_motor_in", "rod_out_x", "rod_out_y", "rod_in_x", "rod_in_y")]
    dofs = [joint.dofadr[0] for joint in loop_joints]
    addresses = [joint.qposadr[0] for joint in loop_joints]
    for _ in range(50):
        data.qpos[:] = qpos
        mujoco.mj_forward(model, data)
        rows = data.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY
        residual = data.efc_pos[rows]
        if np.max(np.abs(residual)) < 1e-13:
            break
        jacobian = data.efc_J.reshape(data.nefc, model.nv)[rows][:, dofs]
        qpos[addresses] -= np.linalg.lstsq(jacobian, residual, rcond=None)[0]
    else:
        raise RuntimeError(f"the loops did not close: residual {np.max(np.abs(residual)):.3g} m")
    data.qpos[:] = qpos
    mujoco.mj_kinematics(model, data)
    qpos[2] -= data.site("left_sole").xpos[2]
    return qpos


def main() -> None:
    path = Path(__file__).with_name("parallel_ankles.xml")
    model = mujoco.MjModel.from_xml_string(model_text())
    qpos = closed_crouch(model)
    key = f"""
  <keyframe>
    <key name="crouch" qpos="{' '.join(f'{value:.12g}' for value in qpos)}"/>
  </keyframe>"""
    path.write_text(model_text(key))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
