"""The build step that compiles tsid_py's numba kernels into the package (see
``tsid_py/kernels.py``): a source install carries them, and its first solve compiles nothing.
Everything else about the package is in ``pyproject.toml``."""

import os
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithKernels(build_py):
    """``build_py``, then ``python -m tsid_py.kernels`` on the built copy (its numba cache is
    written next to the built modules and installed with them). Best effort: a build that
    cannot compile (no numba in the build environment) installs without, and compiles on
    first use as before."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        environment = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
        environment["PYTHONPATH"] = os.path.abspath(self.build_lib)
        done = subprocess.run([sys.executable, "-m", "tsid_py.kernels"], env=environment, capture_output=True,
                              text=True)
        print(done.stdout.strip() if done.returncode == 0 else
              f"tsid_py: kernels not compiled at build time ({done.stderr.strip().splitlines()[-1:]})")


setup(cmdclass={"build_py": BuildWithKernels})
