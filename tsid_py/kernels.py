"""Compile every numba kernel of the library into numba's on-disk cache, once.

    python -m tsid_py.kernels

A kernel is compiled the first time its module is imported (explicit signatures) or it is
first called; the result is cached next to the module (``__pycache__``, keyed by a hash of
the module's source and by the machine's CPU, and dropped whenever any of the package's numba
sources changes: :mod:`tsid_py._kernel_cache`), so a later process loads it in milliseconds.
Building tsid_py from source runs this (``setup.py``'s build step), so that the installed
package carries its compiled kernels and the first solve of a fresh install compiles nothing
(:doc:`performance`); run it by hand after an editable install to the same effect.
"""

from __future__ import annotations

import importlib
import time

#: The modules whose kernels a control loop or a demo uses (importing one compiles its
#: kernels with explicit signatures); :func:`tsid_py.backends.active_set.warm_up` compiles
#: the rest.
KERNEL_MODULES = ("tsid_py._validation", "tsid_py.rigid_body", "tsid_py.frames", "tsid_py.row_writers", "tsid_py.refill",
                  "tsid_py.contacts",
                  "tsid_py.tasks.joint", "tsid_py.backends.active_set", "tsid_py.control.dcm",
                  "tsid_py.step_log", "tsid_py.scenarios.recorder")


def compile_all() -> float:
    """Compile (or load) every kernel; returns the seconds it took."""
    tic = time.perf_counter()
    for name in KERNEL_MODULES:
        importlib.import_module(name)
    from .backends import active_set

    active_set.warm_up()
    return time.perf_counter() - tic


if __name__ == "__main__":
    print(f"tsid_py kernels compiled or loaded in {compile_all():.1f} s")
