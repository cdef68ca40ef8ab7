"""MuJoCo, the physics engine of the harness: an optional dependency (the ``sim`` extra)."""

from __future__ import annotations


def import_mujoco():
    """The ``mujoco`` module, or ``ModuleNotFoundError`` saying how to install it."""
    try:
        import mujoco
    except ImportError as exc:  # the sim extra is optional
        raise ModuleNotFoundError("MuJoCo is needed for simulation: pip install 'tsid_py[sim]'") from exc
    return mujoco
