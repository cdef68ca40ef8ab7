"""A load hung on Talos's hand in MuJoCo, its wrench given to the balance controller or not."""

import tsid_py as tp
from tsid_py.scenarios.hanging_load import hanging_load_trial


def test_a_hanging_load_known_to_the_controller_does_not_move_the_robot():
    """10 kg on a pendulum at the right hand (the plant's body, its own dynamics): with the
    wrench from the plant's force sensor the CoM stays on its target and the hand holds;
    without it the hand sinks and the CoM and base drift."""
    known = hanging_load_trial(tp.robots.load("talos"), wrench="measured", mass=10.0, duration=0.8)
    unknown = hanging_load_trial(tp.robots.load("talos"), wrench="none", mass=10.0, duration=0.8)
    assert not known["fell"] and not unknown["fell"]
    assert known["com_error_max_mm"] < 1.0 and known["hand_sink_max_mm"] < 3.0
    assert known["cop_margin_min_mm"] > 50.0 and known["relaxed_steps"] == 0
    assert unknown["hand_sink_max_mm"] > 30.0 and unknown["com_error_max_mm"] > 3.0
    assert unknown["base_drop_mm"] > 5.0
