"""Many recordings at once: on a local Dask cluster the results are those of serial runs,
and a bad recording is reported by index without losing the others."""

import numpy as np
import pytest

import tsid_py as tp
from tsid_py.offline.batch import Recording, RobotSource, inverse_dynamics_over_time_batch

from .conftest import balance_rollout


@pytest.fixture(scope="module")
def recordings():
    robot = tp.robots.load("talos")
    good = [balance_rollout(robot, 20, sway=sway)[0] for sway in (0.03, 0.05)]
    bad = good[0].copy()
    bad[7, 12] = np.nan
    return robot, [Recording(good[0], 2e-3, tuple(robot.feet)), (bad, 2e-3, robot.feet),
                   {"positions": good[1], "dt": 2e-3, "contacts": robot.feet}]


def _same(a, b):
    for name in ("tau", "wrenches", "positions", "relaxed_frames"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_local_cluster_matches_serial_and_reports_failures(recordings):
    robot, items = recordings
    direct = [tp.multiple_contact_inverse_dynamics_over_time(robot, positions, 2e-3, robot.feet)
              for positions in (items[0].positions, items[2]["positions"])]
    for batch in (inverse_dynamics_over_time_batch(robot, items, workers=0, progress=False),
                  inverse_dynamics_over_time_batch("talos", items, workers=2, progress=False)):
        assert batch.succeeded == [0, 2]
        assert batch.results[1] is None
        assert list(batch.errors) == [1]
        assert batch.errors[1].startswith("ValueError") and "frames [7]" in batch.errors[1]
        _same(batch.results[0], direct[0])
        _same(batch.results[2], direct[1])


def test_threads_of_one_process_get_their_own_robot():
    import threading

    source = RobotSource(name="talos")
    built = []
    thread = threading.Thread(target=lambda: built.append(source.build()))
    thread.start()
    thread.join()
    assert source.build() is source.build() and built[0] is not source.build()


def test_robot_sources_are_checked(talos):
    assert RobotSource.of(talos) == RobotSource(name="talos")
    assert RobotSource.of(talos.urdf_path).urdf == talos.urdf_path
    with pytest.raises(ValueError, match="robot must be one of"):
        RobotSource.of("no-such-robot")
    with pytest.raises(ValueError, match=r"recordings\[0\]"):
        inverse_dynamics_over_time_batch(talos, [42], workers=0, progress=False)
