"""``tsid-py demo NAME --video FILE.mp4`` renders the run off-screen, one frame per 1/30 s."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tsid_py.sim import Simulation
from tsid_py.scenarios.video import VideoRecorder

from .conftest import load_robot


def test_a_one_second_balance_run_gives_thirty_frames(tmp_path):
    """In a fresh process (MuJoCo picks its OpenGL at import): the CLI selects an off-screen one."""
    import imageio.v3 as iio

    video, summary = tmp_path / "balance.mp4", tmp_path / "balance.json"
    env = {key: value for key, value in os.environ.items() if key not in ("MUJOCO_GL", "PYOPENGL_PLATFORM", "DISPLAY")}
    result = subprocess.run([sys.executable, "-m", "tsid_py.cli", "demo", "balance", "--duration", "1",
                             "--video", str(video), "--json", str(summary)],
                            env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert json.loads(summary.read_text())["simulated_time"] == pytest.approx(1.0)
    frames = iio.imread(video)
    assert frames.shape == (30, 480, 640, 3)
    assert frames.std() > 10                  # a picture (robot, floor), not a blank frame
    assert video.stat().st_size < 400_000
    top = frames[0, 60:110]                   # below the time's overlay, above the horizon:
    assert top[..., 2].mean() > top[..., 0].mean() + 20      # a blue sky, not black


#: Two frames of Go2, before and during a push (run in its own process: MuJoCo picks its
#: OpenGL when first imported, and this test process may have imported it already).
PUSH_FRAMES = """
import sys
import numpy as np
from tsid_py.scenarios.video import VideoRecorder, select_offscreen_gl
select_offscreen_gl()
import tsid_py as tp
from tsid_py.sim import Simulation
robot = tp.robots.load("go2")
sim = Simulation(robot, visual=True)
with VideoRecorder(sim, sys.argv[1], fps=10) as video:
    video.capture()
    sim.push([0.0, 30.0, 0.0], duration=0.5)
    sim.step(np.zeros(robot.na), steps=100)
    video.capture()
"""


def test_a_frame_shows_the_push_and_the_robot_in_colour(tmp_path):
    """Go2's geoms have no material (Collada visuals shown as its collision meshes): they get
    colours; during a push an arrow (red) points onto the base and the force is written."""
    import imageio.v3 as iio

    from tsid_py.scenarios.video import ROBOT_COLOURS, paint_robot

    sim = Simulation(load_robot("go2"), visual=True)
    paint_robot(sim.model)
    painted = sim.model.geom_rgba[sim.model.geom_bodyid > 0]
    for colour in ROBOT_COLOURS:
        assert np.isclose(painted, colour, atol=1e-6).all(axis=1).any(), colour
    path = tmp_path / "go2.mp4"
    env = {key: value for key, value in os.environ.items() if key not in ("MUJOCO_GL", "PYOPENGL_PLATFORM", "DISPLAY")}
    result = subprocess.run([sys.executable, "-c", PUSH_FRAMES, str(path)], env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    quiet, pushed = iio.imread(path).astype(int)
    red = lambda image: ((image[..., 0] > 150) & (image[..., 1] < 70) & (image[..., 2] < 70)).sum()
    assert red(pushed) > red(quiet) + 200


def test_recorder_rejects_a_path_that_is_not_mp4(tmp_path):
    sim = Simulation(load_robot("panda"))
    with pytest.raises(ValueError, match="path"):
        VideoRecorder(sim, str(tmp_path / "run.gif"))
    with pytest.raises(ValueError, match="fps"):
        VideoRecorder(sim, str(tmp_path / "run.mp4"), fps=0)


@pytest.mark.parametrize("name", ["go2", "panda"])
def test_robots_with_collada_visuals_get_a_visual_model(name):
    """MuJoCo cannot read .dae meshes: those links show their (STL) collision meshes instead;
    a visual model has a sky (a skybox texture)."""
    import mujoco

    from tsid_py.sim.model import build_model, prepared_urdf

    robot = load_robot(name)
    assert ".dae" not in prepared_urdf(robot, visual=True)
    model = build_model(robot, visual=True)
    visuals = [i for i in range(model.ngeom) if model.geom_group[i] == 1]
    assert model.nmesh > 0 and len(visuals) >= model.nmesh
    assert mujoco.mjtTexture.mjTEXTURE_SKYBOX in model.tex_type


_FILM = """
import sys
import numpy as np
from tsid_py.scenarios.video import VideoRecorder, select_offscreen_gl
select_offscreen_gl()
import tsid_py as tp
from tsid_py.sim import Simulation
sim = Simulation(tp.robots.load("panda"), visual=True)
recorder = VideoRecorder(sim, sys.argv[1])
for _ in range(100):
    recorder.capture()
    sim.step(np.zeros(sim.robot.na))
if sys.argv[2] == "close":
    print(recorder.close())
else:
    raise KeyboardInterrupt                # the run cut short: the video is never closed
"""


def test_a_video_cut_short_leaves_the_previous_one(tmp_path):
    """The video is written beside its path and renamed over it when closed: a run cut short
    (Ctrl-C) leaves the previous video whole and no part behind; a closed one replaces it."""
    import imageio.v3 as iio

    video = tmp_path / "run.mp4"
    video.write_bytes(b"the previous video")
    env = {key: value for key, value in os.environ.items() if key not in ("MUJOCO_GL", "PYOPENGL_PLATFORM", "DISPLAY")}
    cut = subprocess.run([sys.executable, "-c", _FILM, str(video), "interrupt"], env=env, capture_output=True,
                         text=True, timeout=300)
    assert "KeyboardInterrupt" in cut.stderr
    assert video.read_bytes() == b"the previous video" and [p.name for p in tmp_path.iterdir()] == ["run.mp4"]
    done = subprocess.run([sys.executable, "-c", _FILM, str(video), "close"], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert iio.imread(video).shape[0] == int(done.stdout) > 0          # the frames the recorder wrote
    assert [p.name for p in tmp_path.iterdir()] == ["run.mp4"]
