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

#: Frame size, pixels (a multiple of 16, as H.264's macro blocks want; the model's off-screen
#: buffer, :mod:`tsid_py.sim.model`, is this size).
DEFAULT_SIZE = (640, 480)
#: The colours given to a robot's geoms that have neither a material nor a colour of their own
#: (MuJoCo's default grey, e.g. the collision meshes shown for Go2's and Panda's Collada
#: visuals), by the body's depth in the kinematic tree: the root, then alternating links.
ROBOT_COLOURS = ((0.93, 0.55, 0.18, 1.0), (0.86, 0.87, 0.89, 1.0), (0.22, 0.36, 0.58, 1.0))
#: Time constant of the camera following a floating-base robot, s (it smooths a gait's sway).
CAMERA_LAG = 0.4


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
    :meth:`close` at the end; :attr:`frames` counts the frames written. The camera looks at a
    floating-base robot's centre of mass from the front left, following it over the ground
    (smoothed over :data:`CAMERA_LAG` s, without lagging a steady walk) at a distance that
    keeps the robot about two thirds of the frame's height; a fixed-base robot is framed as a
    whole, from the same side. Each frame shows the simulated time and, while a force pushes a
    body (``Simulation.push``), an arrow onto that body and the force in newtons. Geoms
    without a material or colour of their own are given :data:`ROBOT_COLOURS`.

    Parameters
    ----------
    sim : the simulation to film (build it with ``visual=True`` to see the robot's meshes).
    path : output file, ``.mp4``.
    fps : frames per second of simulated time (> 0).
    size : ``(width, height)`` in pixels, at most the model's off-screen buffer (640 × 480).
    samples : multisampling (anti-aliasing) samples per pixel; 0 by default: on a CPU
        renderer (Mesa's llvmpipe) 4 samples make a frame about 2.5 times slower.
    """

    def __init__(self, sim, path: str, *, fps: float = 30.0, size: tuple[int, int] = DEFAULT_SIZE,
                 samples: int = 0):
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
        sim.model.vis.quality.offsamples = int(samples)
        try:
            self._renderer = mujoco.Renderer(sim.model, height, width)
        except Exception as exc:      # no OpenGL context could be made: say what to install
            raise RuntimeError(
                f"MuJoCo could not render off-screen (MUJOCO_GL={os.environ.get('MUJOCO_GL')!r}): {exc}. "
                "Install EGL (apt-get install libegl1 libgl1-mesa-dri) or OSMesa (libosmesa6) and set "
                "MUJOCO_GL=egl or MUJOCO_GL=osmesa before mujoco is imported") from exc
        self._mujoco = mujoco
        self._camera = self._make_camera(mujoco, sim)
        self._last_com = None
        self._lighten(sim.model)
        paint_robot(sim.model)
        self._label = _Label(height)
        # Written beside ``path`` and renamed over it by close(): a run cut short leaves the
        # previous video whole (and its part is removed when the process ends).
        self.path = os.fspath(path)
        self._part = temporary_beside(self.path, ".mp4")
        self._discard = weakref.finalize(self, _remove, self._part)
        self._writer = imageio.get_writer(self._part, fps=self.fps, codec="libx264", quality=6,
                                          macro_block_size=16, ffmpeg_log_level="error")

    @staticmethod
    def _make_camera(mujoco, sim):
        """A free camera on the robot's bounding sphere (its geoms' at the current state), at
        the distance where the sphere fills two thirds of the frame's height."""
        model, data = sim.model, sim.data
        robot = np.flatnonzero(model.geom_bodyid > 0)
        lows = (data.geom_xpos[robot] - model.geom_rbound[robot, None]).min(axis=0)
        highs = (data.geom_xpos[robot] + model.geom_rbound[robot, None]).max(axis=0)
        centre = (lows + highs) / 2
        radius = float(np.max(np.linalg.norm(data.geom_xpos[robot] - centre, axis=1) + model.geom_rbound[robot]))
        camera = mujoco.MjvCamera()
        camera.type = mujoco.mjtCamera.mjCAMERA_FREE
        camera.lookat[:] = centre
        camera.distance = radius / (2 / 3 * np.tan(np.radians(model.vis.global_.fovy) / 2))
        camera.azimuth, camera.elevation = 135.0, -12.0
        return camera

    def _follow(self) -> None:
        """Move the camera's target toward the robot's centre of mass over the ground, its
        height kept: a first-order filter of :data:`CAMERA_LAG` s on the CoM led by its
        velocity (from the last frame) times the lag, so that a steady walk stays centred."""
        if self.sim.robot.floating_base:
            com = self.sim.data.subtree_com[self.sim.root_body][:2].copy()
            velocity = (com - self._last_com) * self.fps if self._last_com is not None else 0.0
            self._last_com = com
            blend = 1.0 - np.exp(-1.0 / (self.fps * CAMERA_LAG))
            self._camera.lookat[:2] += blend * (com + CAMERA_LAG * velocity - self._camera.lookat[:2])

    @staticmethod
    def _lighten(model) -> None:
        """A brighter head light than MuJoCo's default (visual only)."""
        model.vis.headlight.ambient[:] = 0.45
        model.vis.headlight.diffuse[:] = 0.6

    def _push(self) -> tuple[int, np.ndarray] | None:
        """The body a force is applied to now (``data.xfrc_applied``) and that force, N."""
        forces = self.sim.data.xfrc_applied[:, :3]
        pushed = np.flatnonzero(np.abs(forces).sum(axis=1) > 0)
        return (int(pushed[0]), forces[pushed[0]].copy()) if pushed.size else None

    def _draw_push(self, body: int, force: np.ndarray) -> None:
        """An arrow onto ``body``'s centre of mass along ``force``, added to the scene."""
        scene = self._renderer.scene
        if scene.ngeom >= scene.maxgeom:
            return
        mujoco = self._mujoco
        tip = self.sim.data.xipos[body].copy()
        length = 0.5 * self._camera.distance * np.tan(np.radians(self.sim.model.vis.global_.fovy) / 2)
        tail = tip - length * force / np.linalg.norm(force)
        geom = scene.geoms[scene.ngeom]
        mujoco.mjv_initGeom(geom, mujoco.mjtGeom.mjGEOM_ARROW, np.zeros(3), np.zeros(3), np.eye(3).ravel(),
                            np.array([0.85, 0.1, 0.1, 1.0], dtype=np.float32))
        mujoco.mjv_connector(geom, mujoco.mjtGeom.mjGEOM_ARROW, 0.04 * length, tail, tip)
        scene.ngeom += 1

    def capture(self) -> bool:
        """Render and write a frame if one is due at the simulation's current time; returns
        whether it did."""
        if self.sim.data.time + 1e-9 < self.frames / self.fps:
            return False
        self._follow()
        self._renderer.update_scene(self.sim.data, camera=self._camera)
        push = self._push()
        lines = [f"t = {self.sim.data.time:.1f} s"]
        if push is not None:
            self._draw_push(*push)
            lines.append(f"push {_direction(push[1])}{np.linalg.norm(push[1]):.0f} N")
        frame = self._label.draw(self._renderer.render(), lines)
        self._writer.append_data(np.ascontiguousarray(frame))
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


def _direction(force: np.ndarray) -> str:
    """``"+y "`` for a force along a world axis, else nothing."""
    axis = int(np.argmax(np.abs(force)))
    if np.abs(force).sum() - abs(force[axis]) > 1e-6 * abs(force[axis]):
        return ""
    return f"{'+' if force[axis] > 0 else '-'}{'xyz'[axis]} "


def paint_robot(model) -> None:
    """Give the geoms that have no material and MuJoCo's default grey (0.5, 0.5, 0.5) the
    :data:`ROBOT_COLOURS` of their body's depth in the tree (visual only: ``geom_rgba``)."""
    depth = np.zeros(model.nbody, dtype=int)
    for body in range(1, model.nbody):
        parent = model.body_parentid[body]
        depth[body] = 0 if parent == 0 else depth[parent] + 1
    default = np.array([0.5, 0.5, 0.5, 1.0])
    for geom in range(model.ngeom):
        body = model.geom_bodyid[geom]
        if body > 0 and model.geom_matid[geom] < 0 and np.allclose(model.geom_rgba[geom], default):
            level = depth[body]
            model.geom_rgba[geom] = ROBOT_COLOURS[0] if level == 0 else ROBOT_COLOURS[1 + level % 2]


class _Label:
    """Text in the top-left corner of a frame (Pillow, matplotlib's DejaVu Sans)."""

    def __init__(self, height: int):
        from PIL import ImageFont

        size = max(12, height // 24)
        try:
            from matplotlib import font_manager

            self.font = ImageFont.truetype(font_manager.findfont("DejaVu Sans"), size)
        except (ImportError, OSError):
            self.font = ImageFont.load_default()
        self.step = int(1.3 * size)

    def draw(self, frame: np.ndarray, lines: list[str]) -> np.ndarray:
        from PIL import Image, ImageDraw

        image = Image.fromarray(frame)
        pen = ImageDraw.Draw(image)
        for index, line in enumerate(lines):
            colour = (20, 20, 30) if index == 0 else (200, 20, 20)
            pen.text((10, 8 + index * self.step), line, font=self.font, fill=colour,
                     stroke_width=2, stroke_fill=(255, 255, 255))
        return np.asarray(image)


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
