"""How the controller's joint torques ``tau_actuated`` reach the simulated robot.

* **Through the file's motors** — an MJCF robot whose every actuator is a torque motor on one
  joint (``force = gain · gear · ctrl``: fixed gain, no bias, no activation dynamics): each
  torque is sent as ``ctrl = τ / (gain · gear)``. The file's ``ctrlrange``/``forcerange`` then
  saturate it as the real drive would, and its sensors (``jointactuatorfrc``, …) read it. A
  joint no motor drives is passive: its torque (which the controller's limits, read from the
  same file, hold at 0) is not applied.
* **As generalized forces** (``qfrc_applied``) — a model the harness built from a URDF (no
  actuators), or a file whose actuators are not all such motors (position or velocity servos,
  tendon or site transmissions): their response to ``ctrl`` is not a torque the controller
  commands, so they are switched off (``mjDSBL_ACTUATION``), with a warning that names them.
  Forces on a non-root free or planar joint are rotated into MuJoCo's axes
  (:meth:`~tsid_py.sim.joint_map.JointMap.forces_to_mujoco`).
"""

from __future__ import annotations

import warnings

import numpy as np

from .joint_map import JointMap


class Actuation:
    """Applies ``tau_actuated`` (na,), pinocchio order, to MuJoCo's data (see the module);
    :attr:`mode` is ``"motors"`` or ``"generalized"``."""

    def __init__(self, model, joint_map: JointMap, robot, source_name: str = "the model"):
        import mujoco

        self.first = 6 if robot.floating_base else 0
        self.dofs = joint_map.dofs[self.first:]
        self.joint_map = joint_map
        self._rotate = joint_map.rotates(self.first)
        self._tau = np.zeros(robot.nv)
        self.mode = "generalized"
        if model.nu == 0:
            return
        motors, refused = self._motors(model, mujoco)
        if refused:
            model.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_ACTUATION)
            warnings.warn(f"{source_name}: actuators {', '.join(refused[:5])}{' …' if len(refused) > 5 else ''} "
                          "are not torque motors on one joint each, so the file's actuators are switched off and the "
                          "controller's torques are applied as generalized forces", UserWarning, stacklevel=3)
            return
        self.mode = "motors"
        #: per actuated pinocchio dof: its motor (−1: passive) and ctrl per N·m
        self.actuators = np.array([motors.get(int(dof), (-1, 0.0))[0] for dof in self.dofs], dtype=np.int64)
        self.scale = np.array([motors.get(int(dof), (-1, 0.0))[1] for dof in self.dofs])
        self._driven = self.actuators >= 0

    def _motors(self, model, mujoco) -> tuple[dict[int, tuple[int, float]], list[str]]:
        """``{dof: (actuator, 1 / (gain gear))}`` of the motors, and the actuators that are not."""
        motors, refused = {}, []
        for actuator in range(model.nu):
            name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_ACTUATOR, actuator) or f"#{actuator}"
            joint = model.actuator_trnid[actuator, 0]
            gain = model.actuator_gainprm[actuator, 0] * model.actuator_gear[actuator, 0]
            is_motor = (int(model.actuator_trntype[actuator]) in (mujoco.mjtTrn.mjTRN_JOINT,
                                                                  mujoco.mjtTrn.mjTRN_JOINTINPARENT)
                        and int(model.jnt_type[joint]) in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE)
                        and int(model.actuator_dyntype[actuator]) == mujoco.mjtDyn.mjDYN_NONE
                        and int(model.actuator_gaintype[actuator]) == mujoco.mjtGain.mjGAIN_FIXED
                        and int(model.actuator_biastype[actuator]) == mujoco.mjtBias.mjBIAS_NONE
                        and not np.any(model.actuator_gainprm[actuator, 1:]) and gain != 0)
            dof = int(model.jnt_dofadr[joint]) if is_motor else -1
            if not is_motor or dof in motors or dof not in self.dofs:
                refused.append(name)
            else:
                motors[dof] = (actuator, 1.0 / gain)
        return motors, refused

    def apply(self, data, tau: np.ndarray, q_of=None) -> None:
        """Send ``tau`` (na,) to ``data``; ``q_of()`` gives the pinocchio configuration when
        forces must be rotated (non-root free or planar joints)."""
        if self.mode == "motors":
            data.ctrl[self.actuators[self._driven]] = tau[self._driven] * self.scale[self._driven]
            return
        data.qfrc_applied[:] = 0.0
        if not self._rotate:
            data.qfrc_applied[self.dofs] = tau
            return
        self._tau[self.first:] = tau
        data.qfrc_applied[self.joint_map.dofs] = self.joint_map.forces_to_mujoco(self._tau, q_of())
