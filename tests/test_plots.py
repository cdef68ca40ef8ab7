"""Every demo's figure has data in every panel, labelled axes, and the marks a reader needs."""

import numpy as np
import pytest

from tsid_py.scenarios import demos
from tsid_py.scenarios.plots import plot_run, save_plot

#: Each demo, short: long enough for every signal (and, for balance, a push) to appear.
SHORT_RUNS = {
    "balance": lambda: demos.balance(duration=0.5, push=60.0, push_times=(0.2, 5.0)),
    "com-sway": lambda: demos.com_sway(duration=0.3),
    "single-leg": lambda: demos.single_leg(duration=0.3),
    "quadruped": lambda: demos.quadruped(duration=0.3),
    "arm": lambda: demos.arm(duration=0.3),
    "reconstruct": lambda: demos.reconstruct(duration=0.15, settle=0.1),
    "walk": lambda: demos.walk(distance=0.25),
    "trot": lambda: demos.trot(speed=0.3, duration=0.8, push=30.0, push_at=0.6),
}


def legend_texts(axis) -> list[str]:
    legend = axis.get_legend()
    return [] if legend is None else [text.get_text() for text in legend.get_texts()]


def test_every_demo_is_plotted():
    assert set(SHORT_RUNS) == set(demos.DEMOS)


@pytest.mark.parametrize("name", sorted(SHORT_RUNS))
def test_every_panel_has_data_and_labelled_axes(name):
    run = SHORT_RUNS[name]()
    figure = plot_run(run)
    assert len(figure.axes) == 4
    for axis in figure.axes:
        assert axis.has_data(), f"{name}: panel {axis.get_title()!r} is empty"
        assert axis.get_title() and axis.get_xlabel() and axis.get_ylabel(), f"{name}: {axis.get_title()!r}"
        named = legend_texts(axis) or [label.get_text() for label in axis.get_yticklabels()]
        assert named, f"{name}: panel {axis.get_title()!r} has no legend"
    titles = {axis.get_title(): axis for axis in figure.axes}
    texts = [text for axis in figure.axes for text in legend_texts(axis)]
    if name not in ("walk", "trot"):          # the walk's fourth panel is the feet's heights, the trot's its speed
        assert any(text == "torque limit" for text in texts)
    if name == "arm":
        assert {"target", "actual"} <= set(legend_texts(titles["end-effector path in the y–z plane"]))
    if name == "walk":
        top = set(legend_texts(titles["footsteps, CoM and ZMP from above"]))
        assert {"measured footholds", "ZMP planned", "double-support polygon", "CoM ground projection"} <= top
        assert set(run.info["feet"]) == set(legend_texts(titles["sole height above the floor"]))
    if name in ("balance", "com-sway", "single-leg", "quadruped", "reconstruct", "walk"):
        forces = legend_texts(titles["normal contact force per foot"])
        for foot in run.info["feet"]:         # each foot named once (its colour), the line styles once
            assert sum(foot in text for text in forces) == 1
        assert {"planned", "measured (MuJoCo)"} <= set(forces) or {"simulator", "recovered"} <= set(forces)
    if name == "trot":
        top = legend_texts(titles["from above: base path and footholds (squares: the start)"])
        assert "base path" in top and all(f"{foot} footholds" in top for foot in run.info["feet"])
        assert any(text.startswith("push") for text in texts)
    if name == "reconstruct":
        assert any("applied" in text for text in texts) and "recovered" in legend_texts(
            titles["total vertical ground-reaction force"])


def test_balance_figure_draws_the_support_polygon_and_marks_the_push_that_happened():
    run = SHORT_RUNS["balance"]()
    assert [push["at"] for push in run.summary["pushes"]] == [0.2]     # the one at 5 s never came
    figure = plot_run(run)
    support = next(axis for axis in figure.axes if axis.get_title().startswith("zero-moment point"))
    assert "support polygon" in legend_texts(support)
    polygon = next(patch for patch in support.patches if patch.get_label() == "support polygon")
    corners = polygon.get_xy()[:-1]
    outlines = np.vstack(list(run.info["foot_outlines"].values()))      # 2 soles x 4 corners
    # the polygon is the soles' convex hull: its vertices are sole corners (the 4 outer ones of
    # two parallel soles), and every sole corner is inside it or on its edges (counter-clockwise)
    assert len(corners) == 4
    assert all(np.min(np.linalg.norm(outlines - corner, axis=1)) < 1e-12 for corner in corners)
    for a, b in zip(corners, np.roll(corners, -1, axis=0)):
        edge, offsets = b - a, outlines - a
        assert np.all(edge[0] * offsets[:, 1] - edge[1] * offsets[:, 0] >= -1e-12)
    for axis in figure.axes:
        if axis.get_xlabel() == "time (s)":
            assert "push" in legend_texts(axis), axis.get_title()


def test_save_plot_writes_a_png(tmp_path):
    path = tmp_path / "arm.png"
    save_plot(SHORT_RUNS["arm"](), str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
