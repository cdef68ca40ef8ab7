"""Self-collision avoidance judged by MuJoCo: the hands driven through each other (short)."""

import pytest

import tsid_py as tp
from tsid_py.scenarios.self_collision import crossing_trial


@pytest.mark.parametrize("avoid", [True, False])
def test_hands_driven_through_each_other(avoid):
    """With the constraint every watched pair stays at least the safety distance apart in the
    plant (MuJoCo's distances between the collision meshes) and no step is relaxed; without
    it the hands collide (MuJoCo finds contacts between them, the meshes overlap). The robot
    stands either way."""
    summary = crossing_trial(tp.robots.load("talos"), avoid=avoid, duration=2.0)
    assert not summary["fell"]
    if avoid:
        assert summary["closest_mm"] >= summary["safety_distance_mm"]
        assert summary["self_contacts_max"] == 0 and summary["relaxed_steps"] == 0 and summary["rows_max"] > 0
    else:
        assert summary["closest_mm"] < 0.0 and summary["self_contacts_max"] > 0
