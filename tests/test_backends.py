"""Every backend's answer against an exact active-set solve (quadprog, Goldfarb–Idnani, or
the default backend's), and the cases that used to trip them: a contact's force ramp ending
at a [0, 0] box, ProxQP's retry from a cold start, and control steps captured from
benchmarks/soak.py on which a backend failed although they are feasible (tests/data/soak_qps.npz)."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest
import qpsolvers

import tsid_py as tp
from tsid_py.backends import make_backend
from tsid_py.backends.base import FEASIBILITY_TOLERANCE, constraint_violation
from tsid_py.backends.polish import complementary, polish
from tsid_py.backends.presolve import presolve
from tsid_py.qp import QP

from .conftest import perturbed_state, standing_solver

BACKENDS = [name for name in ("reduced", "proxsuite", "osqp", "daqp", "proxqp")
            if name in ("reduced", "proxsuite") or name in qpsolvers.available_solvers]


def _standing(robot, qp_solver):
    solver = standing_solver(robot, qp_solver=qp_solver)
    solver.add_task(tp.tasks.OrientationTask("torso_2_link", np.eye(3), kp=50.0))
    solver.add_constraint(tp.constraints.TorqueLimits(scale=0.3))         # some limits active
    return solver


@pytest.mark.parametrize("qp_solver", BACKENDS)
def test_torques_agree_with_an_exact_active_set_solve(talos, rng, qp_solver):
    """On the Talos standing problem (torque limits at 30 % so that some are active), τ
    within 1e-4 relative of quadprog's exact solve."""
    q, v = perturbed_state(talos, rng)
    exact = _standing(talos, "quadprog").solve(q, v)
    got = _standing(talos, qp_solver).solve(q, v)
    scale = np.abs(exact.tau).max()
    assert np.abs(got.tau - exact.tau).max() <= 1e-4 * scale, qp_solver
    assert np.any(np.isclose(np.abs(exact.tau_actuated), 0.3 * talos.effort_limits, rtol=1e-6))


@pytest.mark.parametrize("qp_solver", BACKENDS + ["quadprog"])
def test_a_ramped_contact_removal_runs_to_its_end(talos, qp_solver):
    """The ramp's last step bounds the normal force to [0, 0]: every backend solves it, and
    the contact is gone after the ramp."""
    solver = standing_solver(talos, qp_solver=qp_solver)
    com = solver.tasks[0]
    foot = talos.feet[1]
    support = talos.placement_at(talos.q_ref, talos.frame_id(talos.feet[0])).translation
    com.set_target(np.r_[support[:2], com.position_ref[2]])
    q, v = talos.q_ref, talos.zero_velocity()
    solver.solve(q, v)
    solver.remove_contact(foot, transition=0.01)
    forces = [solver.solve(q, v).local_wrenches.get(foot, np.zeros(6))[2] for _ in range(12)]
    assert foot not in solver.contacts
    assert forces[9] == pytest.approx(0.0, abs=1e-6 * talos.weight)          # the [0, 0] step


def test_proxsuite_retries_from_a_cold_start_after_a_misleading_warm_start(talos, rng):
    """A warm start far from the answer (a previous problem with other numbers) never turns
    a feasible step into a failure: the answers equal a fresh backend's."""
    def build():
        solver = standing_solver(talos, qp_solver="proxsuite")
        solver.add_constraint(tp.constraints.TorqueLimits())
        return solver

    solver = build()
    solver.solve(talos.q_ref, talos.zero_velocity())          # anchors the contacts
    for _ in range(5):
        q, v = perturbed_state(talos, rng, joint_spread=0.2, velocity_spread=1.0)
        cold = copy.deepcopy(solver)               # the same problem, its backend without a warm start
        got = solver.solve(q, v)
        fresh = cold.solve(q, v)
        np.testing.assert_allclose(got.tau, fresh.tau, atol=1e-5 * np.abs(fresh.tau).max())


# ---------------------------------------------------------------------------- captured soak steps
CAPTURED = Path(__file__).parent / "data" / "soak_qps.npz"
#: name: what made a backend fail on it (each is feasible): before the presolve, or, marked
#: "scaled", on the presolved problem before the fix that follows the colon.
CASES = {
    "weak_force_regularisation": "double support: the Hessian's diagonal spans 2.5e-8 (forces) to 40 "
                                 "(condition 5e9); OSQP hit its iteration limit",
    "ramp_end_zero_normal_force": "a ramped removal's last step: the normal force's box is [0, 0], "
                                  "quadprog called the constraints inconsistent",
    "many_active_rows": "torque limits and friction rows active; ProxQP reported primal infeasibility",
    "unloaded_contact_at_the_apex": "scaled: a contact at zero normal force, 11 dependent active rows "
                                    "on its 6 variables; OSQP's polishing gave up: our polish",
    "random_state_with_torque_limits": "scaled: ProxQP's infeasibility detection misfired: tighter eps_infeasible",
    "low_normal_force_bounds": "f_max = 50 N per foot: ProxQP and OSQP 3e-4 off; scaled: OSQP's own "
                               "polishing missed the rows by 2e-6: our polish",
    "warm_start_before": "OSQP and ProxQP 5e-6 off; scaled: DAQP at its default primal tolerance missed "
                         "a friction row by 1e-3 N: primal_tol",
    "warm_start_after": "scaled: warm-started ProxQP stopped 3e-4 off (a multiplier on an inactive row): "
                        "complementarity check",
}
SOAK_BACKENDS = ["proxsuite", "proxqp", "osqp"] + [name for name in ("daqp", "quadprog")
                                                    if name in qpsolvers.available_solvers]


def captured(name: str) -> QP:
    """A QP from tests/data/soak_qps.npz (fields stored as ``name/H``, ``name/g``, …)."""
    with np.load(CAPTURED) as data:
        fields = {key.split("/")[1]: data[key] for key in data.files if key.split("/")[0] == name}
    return QP(*(fields[key] for key in ("H", "g", "A", "b", "C", "l", "u")), fields.get("lb"), fields.get("ub"))


def exact_solution(qp: QP) -> np.ndarray:
    """The default backend's exact active-set solve, checked against the hard constraints."""
    result = make_backend("reduced").solve(qp)
    assert result.success and constraint_violation(qp, result.x) <= FEASIBILITY_TOLERANCE
    return result.x


def assert_exact(qp: QP, x: np.ndarray, exact: np.ndarray) -> None:
    assert constraint_violation(qp, x) <= FEASIBILITY_TOLERANCE
    assert np.abs(x - exact).max() <= 1e-6 * np.abs(exact).max()


@pytest.mark.parametrize("backend", SOAK_BACKENDS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_captured_soak_steps_are_solved_exactly(case, backend):
    """Every backend solves each captured step, within the hard constraints, at the exact
    active-set solve's answer (relative 1e-6)."""
    qp = captured(case)
    result = make_backend(backend).solve(qp)
    assert result.success, (case, result.status)
    assert_exact(qp, result.x, exact_solution(qp))


def test_a_warm_start_never_stops_at_a_suboptimal_answer():
    """ProxQP warm-started from the step before stopped 3e-4 off with its residuals met (a
    multiplier on a row not at its bound); the complementarity check sends it to a cold start."""
    backend = make_backend("proxsuite")
    backend.solve(captured("warm_start_before"))
    qp = captured("warm_start_after")
    result = backend.solve(qp)
    assert result.success
    assert_exact(qp, result.x, exact_solution(qp))


@pytest.mark.parametrize("backend", ["proxsuite", "proxqp"])
def test_proxqp_still_recognises_infeasible_steps_at_once(backend):
    """The tighter infeasibility tolerances (ProxQP's default raised false alarms) still let
    ProxQP recognise every case of the diagnosis table as infeasible, long before its
    iteration limit."""
    from .test_diagnosis import CASES as INFEASIBLE

    for build in INFEASIBLE:
        case = build("reduced")
        with pytest.raises(tp.SolverError) as caught:
            case.solver.solve(case.q, case.v)
        solver = make_backend(backend)
        result = solver.solve(caught.value.qp)
        assert result.status == "PROXQP_PRIMAL_INFEASIBLE" and result.iterations < solver.max_iter / 10, \
            (build.__name__, result.status, result.iterations)


def test_presolve_removes_the_wrench_pinned_by_a_zero_normal_force():
    """At the ramp's last step the normal force's box [0, 0] and the pyramid, centre-of-pressure
    and torsion rows pin the contact's whole wrench: its six variables are substituted, its
    ten rows dropped, and the rest is scaled to a unit Hessian diagonal and unit rows."""
    qp = captured("ramp_end_zero_normal_force")
    presolved = presolve(qp)
    assert presolved.fixed.size == 6 and np.all(presolved.values == 0.0)
    assert presolved.qp.n == qp.n - 6 and presolved.qp.C.shape[0] == qp.C.shape[0] - 10
    np.testing.assert_allclose(np.diag(presolved.qp.H), 1.0)
    np.testing.assert_allclose(np.abs(presolved.qp.C).max(axis=1), 1.0)
    np.testing.assert_allclose(exact_solution(qp)[presolved.fixed], 0.0, atol=1e-9)


def test_presolve_reports_contradictory_bounds():
    """x0 ∈ [0, 0] pins x1 to 0 through ±x1 ≤ x0; then x2 − x1 ≥ 1 contradicts x2 ≤ 0.5: the
    backends fail (no exception), and the solver's diagnosis would explain."""
    C = np.array([[-1.0, 1.0, 0.0], [-1.0, -1.0, 0.0], [0.0, -1.0, 1.0]])
    qp = QP(np.eye(3), np.zeros(3), np.zeros((0, 3)), np.zeros(0), C, np.array([-np.inf, -np.inf, 1.0]),
            np.array([0.0, 0.0, np.inf]), np.array([0.0, -np.inf, -np.inf]), np.array([0.0, np.inf, 0.5]))
    assert presolve(qp).infeasible
    for backend in SOAK_BACKENDS:
        result = make_backend(backend).solve(qp)
        assert not result.success and not np.any(np.isfinite(result.x)), backend


def test_polish_certifies_only_the_optimum():
    """On the unloaded contact's apex (dependent active rows) the exact active set is
    certified and gives the exact answer; a row wrongly held at its bound is refused."""
    qp = captured("unloaded_contact_at_the_apex")
    exact = exact_solution(qp)
    presolved = presolve(qp)
    scaled = presolved.qp
    C, lower, upper = scaled.rows_with_box()
    values = C @ presolved.reduce(exact)
    with np.errstate(invalid="ignore"):
        at_lower = np.isfinite(lower) & (np.abs(values - lower) <= 1e-9 * (1 + np.abs(lower)))
        at_upper = np.isfinite(upper) & (np.abs(values - upper) <= 1e-9 * (1 + np.abs(upper))) & ~at_lower
    active = np.vstack([scaled.A, C[at_lower | at_upper]])
    assert np.linalg.matrix_rank(active) < active.shape[0]           # dependent rows
    x = polish(scaled, at_lower, at_upper)
    assert x is not None
    assert_exact(qp, presolved.expand(x), exact)
    inactive = np.flatnonzero(np.isfinite(upper) & ~at_upper & ~at_lower)
    for row in inactive[:5]:
        wrong = at_upper.copy()
        wrong[row] = True
        assert polish(scaled, at_lower, wrong) is None, row


def test_complementarity_refuses_a_multiplier_on_an_inactive_row():
    values, lower, upper = np.array([1.0, 0.5]), np.array([-np.inf, 0.0]), np.array([1.0, 1.0])
    assert complementary(values, lower, upper, np.array([2.0, 0.0]))
    assert not complementary(values, lower, upper, np.array([2.0, 0.1]))       # row 1 is inside
    assert not complementary(values, lower, upper, np.array([-2.0, 0.0]))      # an infinite bound
