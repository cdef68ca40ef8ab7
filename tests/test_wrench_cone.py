"""The contact wrench cone of a sole bearing on a polygon (tsid_py.wrench_cone) against its
closed form for a rectangle (Caron, Pham, Nakamura, ICRA 2015) and against a non-negative
least-squares decomposition onto the vertices' friction pyramids; a planar contact given a
bearing polygon keeps the solver's wrench in that cone."""

import math

import numpy as np
import pytest
from scipy.optimize import nnls

import tsid_py as tp
from tsid_py.wrench_cone import generators, inside, wrench_cone_rows


def _caron(wrench, half_x, half_y, k):
    """Caron et al.'s closed-form CWC of a rectangle of half sizes ``X, Y`` with corner
    pyramids ``|f_x|, |f_y| ≤ k f_z`` (their eqs. with μ = k)."""
    fx, fy, fz, tx, ty, tz = wrench
    tolerance = 1e-9 * max(1.0, float(np.abs(wrench).max()))
    if abs(fx) > k * fz + tolerance or abs(fy) > k * fz + tolerance:
        return False
    if abs(tx) > half_y * fz + tolerance or abs(ty) > half_x * fz + tolerance:
        return False
    low = -k * (half_x + half_y) * fz + abs(half_y * fx - k * tx) + abs(half_x * fy - k * ty)
    high = k * (half_x + half_y) * fz - abs(half_y * fx + k * tx) - abs(half_x * fy + k * ty)
    return low - tolerance <= tz <= high + tolerance


def _random_wrenches(rng, count, moment_scale):
    wrenches = rng.normal(size=(count, 6)) * [1, 1, 1, moment_scale, moment_scale, moment_scale]
    wrenches[:, 2] = np.abs(wrenches[:, 2]) * 2.5
    return wrenches


def test_a_rectangle_s_cone_is_caron_s_closed_form():
    half_x, half_y, mu = 0.1, 0.05, 0.7
    rectangle = [[half_x, half_y], [-half_x, half_y], [-half_x, -half_y], [half_x, -half_y]]
    rows = wrench_cone_rows(rectangle, mu)
    assert rows.shape == (16, 6)                          # 4 friction, 4 centre of pressure, 8 torsion
    np.testing.assert_allclose(np.linalg.norm(rows, axis=1), 1.0)
    wrenches = _random_wrenches(np.random.default_rng(0), 4000, 0.08)
    ours = np.all(wrenches @ rows.T <= 1e-9, axis=1)
    theirs = np.array([_caron(w, half_x, half_y, mu / math.sqrt(2)) for w in wrenches])
    np.testing.assert_array_equal(ours, theirs)
    assert 0.1 < ours.mean() < 0.9                          # the draw tests both sides


@pytest.mark.parametrize("seed", range(3))
def test_a_polygon_s_cone_holds_exactly_the_sums_of_vertex_forces(seed):
    """A wrench is in the cone if and only if it is a non-negative combination of the
    generators (NNLS residual 0)."""
    rng = np.random.default_rng(seed)
    angles = np.sort(rng.uniform(0, 2 * math.pi, 5))
    polygon = np.column_stack([0.08 * np.cos(angles) + 0.01, 0.04 * np.sin(angles) - 0.01])
    mu = rng.uniform(0.3, 1.0)
    rows, spanning = wrench_cone_rows(polygon, mu), generators(polygon, mu)
    for wrench in _random_wrenches(rng, 300, 0.05):
        _, residual = nnls(spanning.T, wrench)
        in_cone = bool(np.all(rows @ wrench <= 1e-9 * np.linalg.norm(wrench)))
        assert in_cone == (residual < 1e-7 * np.linalg.norm(wrench)), (wrench, residual)
        assert inside(wrench, polygon, mu) == in_cone


def test_a_long_narrow_sole_s_torsion_exceeds_the_rectangle_bound_when_pressed_evenly():
    """Pressed at its centre with no tangential force, a 0.17 × 0.037 m sole takes torsion up
    to ``k (X + Y) f_z`` (the cone), five times the planar contact's ``μ min(X, Y) f_z``."""
    half_x, half_y, mu = 0.085, 0.0185, 0.5
    rectangle = [[half_x, half_y], [-half_x, half_y], [-half_x, -half_y], [half_x, -half_y]]
    k = mu / math.sqrt(2)
    limit = k * (half_x + half_y)
    assert inside([0, 0, 1, 0, 0, 0.999 * limit], rectangle, mu)
    assert not inside([0, 0, 1, 0, 0, 1.001 * limit], rectangle, mu)
    assert limit > 2.5 * mu * half_y
    # off-centre, the moment of the tangential force is no torsion: p × f_t at the origin
    p, f = np.array([0.05, 0.0]), np.array([0.0, 0.2])
    assert inside([f[0], f[1], 1.0, 0.0, -p[0], p[0] * f[1] - p[1] * f[0]], rectangle, mu)


def test_a_planar_contact_s_rows_are_the_rectangle_s_cone_with_the_torsion_cap():
    """With ``coupled_torsion`` the rows hold exactly the wrenches of Caron et al.'s closed
    form for the rectangle whose torsion is also within ``μ min(l, w)/2 f_z``; without, the
    closed form's torsion rows are not met (the draw has wrenches the rows let through)."""
    length, width, mu = 0.16, 0.037, 0.5                  # G1's sole as its controller sees it
    contact = tp.PlanarContact("sole", length, width, mu=mu, coupled_torsion=True)
    rows = contact.friction_matrix
    assert contact.row_labels == ["friction cone"] * 4 + ["centre of pressure"] * 4 + ["torsion"] * 10
    cap = mu * min(length, width) / 2
    wrenches = _random_wrenches(np.random.default_rng(1), 4000, 0.02)
    ours = np.all(wrenches @ rows.T <= 1e-9, axis=1)
    theirs = np.array([_caron(w, length / 2, width / 2, mu / math.sqrt(2)) and abs(w[5]) <= cap * w[2] + 1e-9
                       for w in wrenches])
    np.testing.assert_array_equal(ours, theirs)
    assert 0.1 < ours.mean() < 0.9
    capped = np.all(wrenches @ tp.PlanarContact("sole", length, width, mu=mu).friction_matrix.T <= 1e-9, axis=1)
    assert np.any(capped & ~theirs)


def _largest_torsion(rows, wrench):
    """The largest ``m_z`` the rows ``F w ≤ 0`` allow with the other five components of
    ``wrench`` held (each row with a positive ``m_z`` coefficient bounds it)."""
    w = np.array(wrench, dtype=float)
    w[5] = 0.0
    rising = rows[:, 5] > 1e-12
    return float(np.min(-(rows[rising] @ w) / rows[rising, 5]))


def test_a_sole_pressed_on_its_toe_holds_the_torsion_of_that_edge():
    """The wrench G1's controller asked of its far stance sole when it spun (docs/walking.md:
    the centre of pressure on the toe edge, the sideways force at the pyramid's edge, m_z
    at the old cap) is refused. With no tangential force and the centre of pressure on
    the toe edge at ``p_y``, the torsion allowed is the edge's, ``k (w/2 − |p_y|) f_z``
    (corner forces on the segment from ``p_y`` to its nearer end), falling to 0 at the corner —
    the rows of a cap alone (the contact's before) allowed ``μ (w/2) f_z`` everywhere."""
    length, width, mu = 0.16, 0.037, 0.5
    half_x, half_y, k = length / 2, width / 2, mu / math.sqrt(2)
    rows = tp.PlanarContact("sole", length, width, mu=mu, coupled_torsion=True).friction_matrix
    asked = np.array([-106.0, 116.5, 329.6, -1.05, -26.4, -3.05])     # at 5.23 s on main (0c42e14)
    assert abs(asked[5]) == pytest.approx(mu * half_y * asked[2], rel=1e-2)    # at the old cap
    assert np.max(rows @ asked) > 1.0                                  # N·m-sized violation
    fz = 300.0
    for py in np.linspace(-half_y, half_y, 9):
        on_toe = [0.0, 0.0, fz, py * fz, -half_x * fz, 0.0]
        expected = k * (half_y - abs(py)) * fz
        assert _largest_torsion(rows, on_toe) == pytest.approx(expected, abs=1e-9 * fz)
    centred = [0.0, 0.0, fz, 0.0, 0.0, 0.0]                             # pressed evenly: the cap binds
    assert _largest_torsion(rows, centred) == pytest.approx(mu * half_y * fz)


def test_bad_bearing_polygons_are_named():
    with pytest.raises(ValueError, match="span an area"):
        wrench_cone_rows([[0, 0], [0.1, 0], [0.2, 0]], 0.5)
    with pytest.raises(ValueError, match="bearing"):
        tp.PlanarContact("sole", 0.2, 0.1, bearing=[[0, 0], [1, 1]])
    with pytest.raises(ValueError, match="mu"):
        wrench_cone_rows([[0, 0], [0.1, 0], [0, 0.1]], 0.0)


def test_a_contact_bearing_on_a_triangle_keeps_the_solved_wrench_in_its_cone():
    """Talos on its right sole alone, bearing on a triangle of its heel: the QP's wrench is in
    the triangle's cone (its centre of pressure inside it, though the CoM is ahead of it), and
    the contact's rows, region and labels are the cone's."""
    robot = tp.robots.load("talos")
    q = robot.q_ref
    robot.update(q, robot.zero_velocity())
    length, width = robot.sole_size
    triangle = np.array([[-0.09, 0.05], [-0.09, -0.05], [0.0, 0.0]])
    solver = tp.DynamicsSolver(robot, dt=1e-3)
    right = robot.feet[1]
    contact = solver.add_contact(tp.PlanarContact(right, length, width, mu=0.5, bearing=triangle))
    np.testing.assert_allclose(contact.friction_matrix, wrench_cone_rows(triangle, 0.5))
    assert {"friction cone", "centre of pressure", "wrench cone"} <= set(contact.row_labels)
    assert contact.region.shape == (3, 2)
    solver.add_task(tp.tasks.CoMTask(robot.com, kp=50.0))
    solver.add_task(tp.tasks.JointTask(q, kp=10.0, weight=1e-3))
    solution = solver.solve(q, robot.zero_velocity())
    wrench = solution.local_wrenches[right]
    assert wrench[2] > 0.5 * robot.weight
    assert inside(wrench, triangle, 0.5, tolerance=1e-7)
    cop = np.array([-wrench[4], wrench[3]]) / wrench[2]
    edges = np.roll(triangle, -1, axis=0) - triangle
    normals = np.column_stack([edges[:, 1], -edges[:, 0]])              # outward: counter-clockwise
    assert np.all(np.einsum("ij,ij->i", normals, cop - triangle) <= 1e-7)
    contact.bearing = None                                   # back to the rectangle's ten rows
    assert contact.friction_matrix.shape == (10, 6)
    contact.coupled_torsion = True                           # and the cone's eight with m_z
    assert contact.friction_matrix.shape == (18, 6) and contact.row_labels[-8:] == ["torsion"] * 8


@pytest.mark.parametrize("coupled", [True, False])
def test_the_solver_keeps_a_coupled_sole_s_wrench_in_the_rectangle_s_cone(coupled):
    """G1 on its right sole alone, a soft wrench task asking it the wrench its controller
    asked when it spun (scaled to its weight): with ``coupled_torsion`` the solved wrench is in
    the rectangle's cone (its torsion about the centre of pressure within what the sole
    holds); without, the solver gives the cone-violating torsion the task asks."""
    robot = tp.robots.load("g1")
    q = robot.q_ref
    robot.update(q, robot.zero_velocity())
    length, width, mu = 0.16, 0.037, 0.5
    right = robot.feet[1]
    solver = tp.DynamicsSolver(robot, dt=1e-3)
    solver.add_contact(tp.PlanarContact(right, length, width, mu=mu, coupled_torsion=coupled))
    solver.add_task(tp.tasks.JointTask(q, kp=10.0, weight=1e-3))
    asked = np.array([-106.0, 116.5, 329.6, -1.05, -26.4, -3.05]) * robot.weight / 329.6
    solver.add_task(tp.tasks.WrenchTask(right, asked, weight=10.0))
    wrench = solver.solve(q, robot.zero_velocity()).local_wrenches[right]
    half_x, half_y = length / 2, width / 2
    rectangle = [[half_x, half_y], [-half_x, half_y], [-half_x, -half_y], [half_x, -half_y]]
    assert wrench[2] > 0.5 * robot.weight
    assert inside(wrench, rectangle, mu, tolerance=1e-7) == coupled
    assert abs(wrench[5]) <= mu * half_y * wrench[2] * (1 + 1e-7)          # the cap, either way


def test_the_balance_controller_s_soles_couple_their_torsion_when_asked():
    robot = tp.robots.load("g1")
    controller = tp.control.BalanceController(robot, coupled_torsion=True)
    assert all(contact.friction_matrix.shape == (18, 6) for contact in controller.solver.contacts.values())
    controller.coupled_torsion = False
    assert all(contact.friction_matrix.shape == (10, 6) for contact in controller.solver.contacts.values())
    with pytest.raises(ValueError, match="coupled_torsion"):
        tp.control.BalanceController(robot, coupled_torsion="yes")
