"""How sure the ground reactions estimated from a motion alone are: a Monte-Carlo band.

The joint angles of a recording carry noise — marker noise and soft tissue seen through
inverse kinematics. :func:`ground_reaction_band` redraws that noise ``draws`` times (white,
Gaussian, ``angle_noise`` rad on rotational coordinates and ``translation_noise`` m on
translational ones, before the low-pass filter), runs the whole estimate for each draw —
filter, contact detection, over-time solve — and returns per frame the percentiles of the
feet's wrenches: a band, not one curve. The draws run in parallel through
:func:`~tsid_py.offline.batch.inverse_dynamics_over_time_batch` (Dask) when asked.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..robot import Robot
from .batch import Recording, inverse_dynamics_over_time_batch
from .gait import (
    DEFAULT_LOWPASS,
    DEFAULT_THRESHOLDS,
    ContactThresholds,
    detect_contacts,
    motion_coordinates,
)
from .motion import coordinate_states, lowpass, uniform_step
from .over_time import DEFAULT_FRICTION

#: Default noise of inverse-kinematics angles (1°) and of the pelvis translations (2 mm).
ANGLE_NOISE, TRANSLATION_NOISE = np.deg2rad(1.0), 0.002


@dataclass
class GroundReactionBand:
    """``time`` (T,); ``contacts`` the feet; ``median``, ``low``, ``high`` (T, k, 6) the
    per-frame median and ``percentiles`` of the feet's world-aligned wrenches over the
    successful draws; ``draws`` (D, T, k, 6) all of them; ``failed`` the draws that failed
    with why."""

    time: np.ndarray
    contacts: list[str]
    median: np.ndarray
    low: np.ndarray
    high: np.ndarray
    draws: np.ndarray
    percentiles: tuple[float, float]
    failed: dict[int, str]


def noisy_recordings(robot: Robot, time, values, *, draws: int, angle_noise: float, translation_noise: float,
                     seed: int, lowpass_hz: float | None, thresholds: ContactThresholds, options: dict
                     ) -> list[Recording]:
    """One :class:`~tsid_py.offline.batch.Recording` per draw of noise on ``values`` (T, n)."""
    coordinates = robot.opensim.coordinates
    dt = uniform_step(time)
    sigma = np.where(coordinates.rotational, angle_noise, translation_noise)
    rng = np.random.default_rng(seed)
    recordings = []
    for _ in range(draws):
        noisy = values + rng.normal(size=values.shape) * sigma
        if lowpass_hz is not None:
            noisy = lowpass(noisy, dt, lowpass_hz)
        positions, velocities, accelerations = coordinate_states(coordinates, time, noisy)
        schedule = detect_contacts(robot, positions, dt, robot.feet, thresholds)
        recordings.append(Recording(positions, dt, tuple(robot.feet), {
            **options, "velocities": velocities, "accelerations": accelerations, "contact_schedule": schedule}))
    return recordings


def ground_reaction_band(robot: Robot, motion, *, draws: int = 50, angle_noise: float = ANGLE_NOISE,
                         translation_noise: float = TRANSLATION_NOISE, seed: int = 0,
                         lowpass_hz: float | None = DEFAULT_LOWPASS, percentiles=(5.0, 95.0),
                         thresholds: ContactThresholds = DEFAULT_THRESHOLDS, friction: float | None = DEFAULT_FRICTION,
                         smoothing_weight: float = 1.0, client=None, workers: int = 0) -> GroundReactionBand:
    """The feet's wrenches estimated from ``motion`` alone, with their spread over ``draws``
    redraws of the angles' noise (see the module docstring). ``client``/``workers`` as in
    :func:`~tsid_py.offline.batch.inverse_dynamics_over_time_batch`: ``workers=0`` without a
    client runs serially here; ``workers=2`` starts a local Dask cluster."""
    if not (isinstance(draws, int) and draws >= 1):
        raise ValueError(f"draws must be a positive number of draws, got {draws!r}")
    if angle_noise < 0 or translation_noise < 0:
        raise ValueError(f"angle_noise and translation_noise must be >= 0, got {angle_noise}, {translation_noise}")
    time, values = motion_coordinates(robot, motion)
    recordings = noisy_recordings(robot, time, values, draws=draws, angle_noise=angle_noise,
                                  translation_noise=translation_noise, seed=seed, lowpass_hz=lowpass_hz,
                                  thresholds=thresholds, options={"friction": friction,
                                                                  "smoothing_weight": smoothing_weight})
    batch = inverse_dynamics_over_time_batch(robot, recordings, client=client, workers=workers, progress=False)
    if not batch.succeeded:
        raise RuntimeError(f"every draw failed, e.g. {next(iter(batch.errors.values()))}")
    wrenches = np.array([batch.results[i].wrenches for i in batch.succeeded])
    low, median, high = np.percentile(wrenches, [percentiles[0], 50.0, percentiles[1]], axis=0)
    return GroundReactionBand(time, list(robot.feet), median, low, high, wrenches, tuple(percentiles), batch.errors)
