"""Rolling point feet: each foot's contact frame kept at its sphere's lowest point.

A robot profile's point foot is a sphere of radius ``r`` whose contact frame is the sphere's
lowest point, with its z axis along the ground's normal — at the posture, where the frame
was placed (:mod:`tsid_py.models.profile`). The frame is fixed to the lower leg, so once the
leg has turned by ``θ`` it is a point of the sphere's surface ``r (1 − cos θ)`` above the
ground, and its axes are tilted by ``θ``. A contact that holds that point still fights the
sphere's rolling: under a trot's stance (``θ`` up to ~0.4 rad) it lifts the sphere off the
ground by millimetres, and the friction pyramid, in the frame's axes, tilts with the leg.

:class:`RollingFeet` (part of the controller's estimate stage) moves each foot's frame, before
each solve, to the sphere's lowest point at the robot's last update, ``c − r n`` (``c`` the
sphere's centre, ``n`` the ground's normal where the foot stands or will land), with the
ground frame's axes (:func:`~.ground.ground_frame`: z along ``n``, x along the world's x
projected on the ground). A contact on that frame constrains the
material point the sphere touches the ground with — the rolling contact: the centre moves
with the rolling, the touching point does not slide — and its friction pyramid is on the
ground's normal. The contact's position term is off (``kp = 0``): the touching point moves
along the ground as the sphere rolls, so there is no fixed point to pull it back to; its
velocity is damped. Feet of radius 0 (true points) keep their position; their axes are
turned to the ground frame all the same.

The frames are the robot's own, placed on their bodies through
:meth:`~tsid_py.Robot.frame_offset` (relative to the parent joint): reading a foot frame's
placement gives the current contact point. Build a
:class:`~tsid_py.sim.Simulation` of the robot before the controller's first step (the
harness measures where the feet are on their bodies when it is built).
"""

from __future__ import annotations

import numpy as np
from numba import float64, njit, void

from ..._numba import MATRIX, VECTOR, direct_calls
from .ground import Ground, ground_frame


@njit(void(MATRIX, MATRIX, VECTOR, float64, MATRIX, VECTOR), cache=True)
def place_foot(joint_rotation, axes, centre, radius, rotation, translation):
    """``rotation = R_jᵀ A`` (the ground frame ``A``'s axes in the joint's frame) and
    ``translation = c − r · rotation[:, 2]`` (the sphere's lowest point along the normal), in
    place (views of the model's frame placement)."""
    for i in range(3):
        for j in range(3):
            rotation[i, j] = (joint_rotation[0, i] * axes[0, j] + joint_rotation[1, i] * axes[1, j]
                              + joint_rotation[2, i] * axes[2, j])
    for i in range(3):
        translation[i] = centre[i] - radius * rotation[i, 2]


_direct = direct_calls(place_foot)


class RollingFeet:
    """Keep the contact frames of ``feet`` (names) of ``robot``, spheres of ``radius`` m, at
    their lowest points on ``ground`` (see the module).

    The placements are written in place, through the robot's views of the frames' offsets on
    their bodies (:meth:`~tsid_py.Robot.frame_offset`) and of the joints' rotations
    (:meth:`~tsid_py.Robot.joint_rotation`)."""

    def __init__(self, robot, feet, radius: float, ground: Ground):
        self.robot, self.ground, self.radius = robot, ground, float(radius)
        model = robot.model
        self.feet = []
        for foot in feet:
            frame_id = robot.frame_id(foot)
            rotation, translation = robot.frame_offset(frame_id)
            centre = translation + rotation @ np.array([0.0, 0.0, self.radius])
            self.feet.append((robot.joint_rotation(model.frames[frame_id].parentJoint), rotation, translation, centre))
        #: Each foot's ground frame (3, 3): set where it stands or will land (:meth:`set_ground`).
        self.axes = [ground_frame(ground.normal(0.0, 0.0), 0.0) for _ in self.feet]

    def set_ground(self, index: int, normal) -> None:
        """The ground's ``normal`` (3,) where foot ``index`` stands or will land (the gait stage
        sets it at lift-off, re-aim and touch-down: the terrain is not read every step)."""
        self.axes[index] = ground_frame(normal, 0.0)

    def update(self) -> None:
        """Move the frames to the lowest points at the robot's last update, their axes the
        ground frame's (:func:`~.ground.ground_frame`, ``t₁`` along the world's x)."""
        place, radius = _direct.place_foot, self.radius
        for (joint_rotation, rotation, translation, centre), axes in zip(self.feet, self.axes):
            place(joint_rotation, axes, centre, radius, rotation, translation)
