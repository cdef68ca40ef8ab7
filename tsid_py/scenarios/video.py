"""Off-screen video of a :class:`~tsid_py.sim.Simulation`, written as an MP4.

MuJoCo's :class:`mujoco.Renderer` draws into an off-screen OpenGL context, so no display is
needed. Which OpenGL MuJoCo uses is fixed when ``mujoco`` is first imported, by the
``MUJOCO_GL`` environment variable: ``egl`` (Debian packages ``libegl1`` and
``libgl1-mesa-dri``: Mesa's software rasteriser, no GPU needed) or ``osmesa``
(``libosmesa6``). :func:`select_offscreen_gl` picks one that is installed when the variable
is unset; call it (or set the variable) before anything imports ``mujoco``.

Frames are taken at a fixed rate of simulated time, ``fps`` frames per second: a run of
``T`` s gives ``round(T * fps)`` frames, and the video plays in real time. The MP4 is
H.264 (``yuv420p``, readable by browsers) through ``imageio-ffmpeg``, which ships its own
ffmpeg binary.
"""

from __future__ import annotations

import contextlib
import ctypes.util
import os
import sys
import weakref

import numpy as np

from .._files import publish, temporary_beside

#: Frame size, pixels (a multiple of 16, as H.264's macro blocks want).
DEFAULT_SIZE = (320, 240)


def select_offscreen_gl() -> str | None:
    """Set ``MUJOCO_GL`` to an installed off-screen OpenGL when it is unset and there is no
    display (Linux without ``DISPLAY`` or ``WAYLAND_DISPLAY``): ``egl`` if ``libEGL`` is
    found, else ``osmesa`` if ``libOSMesa`` is. Returns the value in force (None: MuJoCo's
    default, a hidden window of the display)."""
    headless = sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    if "MUJOCO_GL" not in os.environ and headless:
        for value, library in (("egl", "EGL"), ("osmesa", "OSMesa")):
            if ctypes.util.find_library(library):
                os.environ["MUJOCO_GL"] = value
                os.environ.setdefault("PYOPENGL_PLATFORM", value)
                break
    return os.environ.get("MUJOCO_GL")


class VideoRecorder:
    """Renders ``sim`` every ``1/fps`` s of simulated time into the MP4 file ``path``.

    Call :meth:`capture` once per physics step (it renders only when a frame is due) and
    :meth:`close` at the end; :attr:`frames` counts the frames written. A floating-base
    robot is followed by a tracking camera; a fixed-base one is framed as a whole.

    Parameters
    ----------
    sim : the simulation to film (build it with ``visual=True`` to see the robot's meshes).
    path : output file, ``.mp4``.
    fps : frames per second of simulated time (> 0).
    size : ``(width, height)`` in pixels, at most the model's off-screen buffer (640 × 480).
    """

    def __init__(self, sim, path: str, *, fps: float = 30.0, size: tuple[int, int] = DEFAULT_SIZE):
        if not str(path).lower().endswith(".mp4"):
            raise ValueError(f"path must name an .mp4 file, got {path!r}")
        if not fps > 0:
            raise ValueError(f"fps must be > 0, got {fps}")
        if "mujoco" not in sys.modules:
            select_offscreen_gl()
        import imageio.v2 as imageio
        import mujoco

        self.sim = sim
        self.fps = float(fps)
        self.frames = 0
        width, height = size
        try:
            self._renderer = mujoco.Renderer(sim.model, height, width)
        except Exception as exc:      # no OpenGL context could be made: say what to install
            raise RuntimeError(
                f"MuJoCo could not render off-screen (MUJOCO_GL={os.environ.get('MUJOCO_GL')!r}): {exc}. "
                "Install EGL (apt-get install libegl1 libgl1-mesa-dri) or OSMesa (libosmesa6) and set "
                "MUJOCO_GL=egl or MUJOCO_GL=osmesa before mujoco is imported") from exc
        self._camera = self._make_camera(mujoco, sim)
        self._lighten(sim.model)
        # Written beside ``path`` and renamed over it by close(): a run cut short leaves the
        # previous video whole (and its part is removed when the process ends).
        self.path = os.fspath(path)
        self._part = temporary_beside(self.path, ".mp4")
        self._discard = weakref.finalize(self, _remove, self._part)
        self._writer = imageio.get_writer(self._part, fps=self.fps, codec="libx264", quality=6,
                                          macro_block_size=16, ffmpeg_log_level="error")

    @staticmethod
    def _make_camera(mujoco, sim):
        camera = mujoco.MjvCamera()
        model = sim.model
        if sim.robot.floating_base:
            camera.type = mujoco.mjtCamera.mjCAMERA_TRACKING
            camera.trackbodyid = int(sim.root_body)
        else:
            camera.type = mujoco.mjtCamera.mjCAMERA_FREE
            camera.lookat[:] = model.stat.center
        camera.distance = 1.5 * float(model.stat.extent)        # the robot about half the frame's height
        camera.azimuth, camera.elevation = 135.0, -15.0
        return camera

    @staticmethod
    def _lighten(model) -> None:
        """A brighter head light than MuJoCo's default (visual only)."""
        model.vis.headlight.ambient[:] = 0.45
        model.vis.headlight.diffuse[:] = 0.6

    def capture(self) -> bool:
        """Render and write a frame if one is due at the simulation's current time; returns
        whether it did."""
        if self.sim.data.time + 1e-9 < self.frames / self.fps:
            return False
        self._renderer.update_scene(self.sim.data, camera=self._camera)
        self._writer.append_data(np.ascontiguousarray(self._renderer.render()))
        self.frames += 1
        return True

    def close(self) -> int:
        """Finish the file (it replaces ``path`` now); returns the number of frames written."""
        if self._writer is not None:
            self._writer.close()
            self._renderer.close()
            self._writer = None
            publish(self._part, self.path)
            self._discard.detach()
        return self.frames

    def __enter__(self) -> VideoRecorder:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _remove(path: str) -> None:
    """Remove ``path`` if it is still there (a video's part, never renamed)."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


class Watchers:
    """What watches a simulation loop: MuJoCo's passive viewer (``viewer``) and an off-screen
    :class:`VideoRecorder` (``video``, an .mp4 path); either may be absent.

    Call :meth:`before_step` before each physics step (a frame shows the state the
    controller saw), :meth:`after_step` after it, and :meth:`close` at the end.
    """

    def __init__(self, sim, *, viewer: bool = False, video: str | None = None):
        self.handle = None
        if viewer:
            import mujoco.viewer

            self.handle = mujoco.viewer.launch_passive(sim.model, sim.data)
        self.camera = VideoRecorder(sim, video) if video else None

    def before_step(self) -> None:
        """Render a frame if one is due (call it before the physics step)."""
        if self.camera is not None:
            self.camera.capture()

    def after_step(self) -> None:
        """Show the new state in the viewer (call it after the physics step)."""
        if self.handle is not None:
            self.handle.sync()

    def close(self) -> None:
        """Close the viewer and finish the video file."""
        if self.handle is not None:
            self.handle.close()
        if self.camera is not None:
            self.camera.close()
