"""Self-collision avoidance judged by MuJoCo: the hands driven through each other (short), and an
MJCF robot's pairs against those MuJoCo collides."""

import pytest

import tsid_py as tp
from tsid_py.constraints import SelfCollisionAvoidance
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


_FILTERED_MJCF = """<mujoco model="filters">
  <default><geom type="sphere" size="0.05" density="500"/><joint axis="0 1 0" range="-1 1"/></default>
  <worldbody>
    <body name="torso" pos="0 0 1">
      <freejoint/>
      <geom name="torso_geom" contype="1" conaffinity="1"/>
      <body name="a" pos="0.5 0 0"><joint name="ja"/><geom name="a_geom" pos="0.2 0 0" contype="1" conaffinity="1"/>
        <geom name="a_seen" pos="0.3 0 0" contype="0" conaffinity="0" group="1"/></body>
      <body name="b" pos="-0.5 0 0"><joint name="jb"/><geom name="b_geom" pos="-0.2 0 0" contype="2" conaffinity="2"/>
      </body>
      <body name="c" pos="0 0.5 0"><joint name="jc"/><geom name="c_geom" pos="0 0.2 0" contype="1" conaffinity="2"/>
      </body>
      <body name="d" pos="0 -0.5 0"><joint name="jd"/><geom name="d_geom" pos="0 -0.2 0" contype="3" conaffinity="3"/>
        <body name="e" pos="0 -0.4 0"><joint name="je"/><geom name="e_geom" contype="1" conaffinity="1"/></body>
      </body>
    </body>
  </worldbody>
  <contact><exclude body1="a" body2="d"/><pair geom1="a_geom" geom2="b_geom"/></contact>
</mujoco>"""


def test_an_mjcf_robot_watches_the_pairs_mujoco_collides(tmp_path):
    """The pairs of a robot read from an MJCF file are those MuJoCo itself collides (its
    ``contype`` / ``conaffinity`` bits, ``<exclude>`` and ``<pair>``): MuJoCo, with every
    geom's (and pair's) margin larger than the robot, reports a contact for each pair it
    collides."""
    import mujoco

    path = tmp_path / "filters.xml"
    path.write_text(_FILTERED_MJCF)
    robot = tp.Robot.from_mjcf(path)
    constraint = SelfCollisionAvoidance()
    constraint.bind(robot)
    ours = {frozenset(names) for names in constraint.pairs.names}
    model = mujoco.MjModel.from_xml_path(str(path))
    model.geom_margin[:] = model.pair_margin[:] = 10.0
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    theirs = {frozenset(mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, int(g)) for g in contact.geom)
              for contact in data.contact[:data.ncon]}
    assert ours == theirs
    # the filters did the work: a-d excluded, b and e's bits apart, a-b (bits apart) by its <pair>
    assert frozenset(("a_geom", "b_geom")) in ours
    assert not {frozenset(("a_geom", "d_geom")), frozenset(("b_geom", "e_geom"))} & ours
    assert constraint.pairs.excluded["mjcf filters"] > 0
