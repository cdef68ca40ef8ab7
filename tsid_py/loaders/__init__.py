"""Readers of robot model files that build a pinocchio model (URDF, MJCF, OpenSim).

Core layer: a loader turns a file into a ``pinocchio.Model`` (and the file-level facts that
come with it: postures, actuators, couplings) and names the file, element and fix when the
file is wrong. Choosing feet, soles, torso and controller defaults from a model is the
robot profile's job (:mod:`tsid_py.models`), not a loader's.
"""
