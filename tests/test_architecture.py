"""The package's shape, read from its source so that it stays true: the layers import only
downward, no import cycle, no module over 500 lines, no module reaching into another
object's private attributes, no robot named outside the built-in robots' module, and the
core tests never import the simulator."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tsid_py"
TESTS = Path(__file__).resolve().parent
MODULES = sorted(PACKAGE.rglob("*.py"))
MAX_LINES = 500

#: The layers, lowest first: a module may import only from its own layer or below. A module
#: not listed is core (layer 0: the robot, rows, QP, tasks, contacts, constraints, assembly,
#: backends, solver, diagnosis, loaders). The package itself (``tsid_py``) re-exports core,
#: ``robots`` and the offline cases: importing it counts as importing layer 2.
LAYERS = {
    "tsid_py.models": 1, "tsid_py.robots": 1,                       # robot profiles, built-in robots
    "tsid_py.estimation": 1,                                         # state estimators (below the controllers)
    "tsid_py.control": 2, "tsid_py.offline": 2, "tsid_py.inverse_dynamics": 2,
    "tsid_py": 2,
    "tsid_py.sim": 3,                                                # the MuJoCo harness only
    "tsid_py.scenarios": 4,                                          # demos, trials, sweeps, plots, video
    "tsid_py.cli": 5, "tsid_py.cli_inverse_dynamics": 5, "tsid_py.cli_check": 5, "tsid_py.cli_trot": 5,
    "tsid_py.cli_replay": 5, "tsid_py.cli_arguments": 5, "tsid_py.cli_conditions": 5, "tsid_py.bench": 5,                                         # tools
    "tsid_py.tools": 5,                                  # replay, viewer, the peers' benchmark workers
}

#: Test modules that run the simulator (or the demos, CLI and docs that do); every other
#: test module is a core test and imports neither MuJoCo nor the harness or scenarios.
SIMULATION_TESTS = {"test_sim", "test_walk", "test_step_recovery", "test_video", "test_plots", "test_cli",
                    "test_examples", "test_docs", "test_offline_files", "test_recorded_files", "test_harness_models",
                    "test_loaders", "test_cli_sweep", "test_trot", "test_terrain_walks", "test_estimation_sim",
                    "test_architecture", "test_recorder", "test_realtime_loop", "test_self_collision_sim",
                    "test_external_wrench_sim", "test_docs_claims", "test_closures_sim",
                    "test_held_joints_sim"}
SIMULATOR_MODULES = ("mujoco", "tsid_py.sim", "tsid_py.scenarios", "tsid_py.cli")

#: Every robot example-robot-data ships that a user may load (the built-in ones and others).
ROBOT_NAMES = ("talos", "g1", "go2", "solo12", "ur5", "panda", "romeo", "icub", "alexander", "simple_humanoid",
               "a1", "anymal_c", "anymal", "hyq", "go1", "b1", "kinova", "xarm", "z1", "tiago", "pr2")


def layer_of(module: str) -> int:
    """The layer of a module: the package itself, or its longest subpackage or module prefix
    in :data:`LAYERS`, else 0 (core)."""
    best, length = LAYERS["tsid_py"] if module == "tsid_py" else 0, -1
    for prefix, layer in LAYERS.items():
        if prefix != "tsid_py" and (module == prefix or module.startswith(prefix + ".")) and len(prefix) > length:
            best, length = layer, len(prefix)
    return best


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """``"a (layer i) -> b (layer j)"`` for every import of a higher layer; the package's
    own ``__init__`` (its public namespace) is not checked as an importer."""
    return [f"{source} ({layer_of(source)}) -> {target} ({layer_of(target)})"
            for source, targets in sorted(graph.items()) if source != "tsid_py"
            for target in sorted(targets) if layer_of(target) > layer_of(source)]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, source: str | None = None) -> set[str]:
    """The tsid_py modules ``path`` (or the text ``source`` as that module) imports at module
    level or in a function (absolute names)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text() if source is None else source)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith("tsid_py"):
                found.add(target)
                found.update(f"{target}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("tsid_py"))
    known = {module_name(p) for p in MODULES}
    return {target for target in found if target in known and target != name}


def test_layers_import_only_downward():
    graph = {module_name(path): imported_modules(path) for path in MODULES}
    assert not upward_imports(graph), upward_imports(graph)
    every = set(graph)
    assert {layer_of(module) for module in every} == set(range(6)), "each declared layer has modules"


def test_the_layer_check_sees_an_upward_import():
    """Self-test on synthetic sources: a core module importing the controllers, a harness
    module importing a scenario, relative and absolute."""
    solver = PACKAGE / "solver.py"
    core = imported_modules(solver, "from .control.balance import BalanceController\n")
    assert upward_imports({"tsid_py.solver": core}) == [
        "tsid_py.solver (0) -> tsid_py.control.balance (2)"]
    harness = imported_modules(PACKAGE / "sim" / "simulation.py", "def f():\n    import tsid_py.scenarios.demos\n")
    assert upward_imports({"tsid_py.sim.simulation": harness}) == [
        "tsid_py.sim.simulation (3) -> tsid_py.scenarios.demos (4)"]
    assert upward_imports({"tsid_py.scenarios.demos": {"tsid_py.sim.simulation", "tsid_py.control"}}) == []


def robot_names_in_code(source: str) -> list[str]:
    """String literals of ``source`` that name a robot, as ``"line N: 'text'"``; docstrings
    (every string standing alone as a statement: module, class, function and attribute
    docstrings) are documentation, not code."""
    pattern = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(sorted(ROBOT_NAMES, key=len, reverse=True))
                         + r")(?![A-Za-z0-9_])", re.IGNORECASE)
    tree = ast.parse(source)
    docstrings = {id(node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
    return [f"line {node.lineno}: {node.value!r}" for node in sorted(
        (node for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)),
        key=lambda node: node.lineno) if id(node) not in docstrings and pattern.search(node.value)]


@pytest.mark.parametrize("path", [p for p in MODULES if module_name(p) != "tsid_py.robots"],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_robot_is_named_outside_the_built_in_robots(path):
    """Robot facts come from profiles: only ``tsid_py/robots.py`` names a robot in code
    (docstrings may quote what was measured on one)."""
    assert not robot_names_in_code(path.read_text())


def test_the_robot_name_check_sees_a_name():
    source = '"""Talos walks."""\nGAITS = {"talos": 1}\nframe = f"{robot}_sole"\nhelp = "e.g. g1 or go2"\n'
    assert robot_names_in_code(source) == ["line 2: 'talos'", "line 4: 'e.g. g1 or go2'"]


def simulator_imports(path: Path) -> list[str]:
    """The simulator modules (:data:`SIMULATOR_MODULES`) a test file imports, anywhere in it."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
        if isinstance(node, ast.ImportFrom) and node.module == "tsid_py":
            names += [f"tsid_py.{alias.name}" for alias in node.names]
        found += [name for name in names if name.startswith(SIMULATOR_MODULES)]
    return found


@pytest.mark.parametrize("path", [p for p in sorted(TESTS.glob("*.py")) if p.stem not in SIMULATION_TESTS],
                         ids=lambda p: p.name)
def test_core_tests_do_not_import_the_simulator(path):
    assert not simulator_imports(path), simulator_imports(path)


def test_the_simulator_import_check_sees_one(tmp_path):
    sample = tmp_path / "test_sample.py"
    sample.write_text("import numpy\ndef f():\n    from tsid_py.scenarios.demos import balance\n"
                      "from tsid_py import sim\nimport mujoco\n")
    assert sorted(simulator_imports(sample)) == ["mujoco", "tsid_py.scenarios.demos", "tsid_py.sim"]


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the directed graph as a list of nodes (first == last), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return stack[stack.index(target):] + [target]
            if target not in state and (cycle := visit(target)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_no_import_cycles():
    graph = {module_name(path): imported_modules(path) for path in MODULES}
    # A package's __init__ re-exports its modules: an edge into a package stands for its
    # modules, and the edges out of an __init__ are its re-exports, not code that runs on them.
    packages = {module_name(p) for p in MODULES if p.name == "__init__.py"}
    graph = {node: {t for t in targets if t not in packages} for node, targets in graph.items()
             if node not in packages}
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_is_at_most_500_lines(path):
    assert len(path.read_text().splitlines()) <= MAX_LINES


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_private_attribute_of_another_object(path):
    """``x._name`` only with ``x`` being ``self``, ``cls`` or ``super()`` (dunders are public
    protocol)."""
    offending = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
                and not (isinstance(node.value, ast.Call) and getattr(node.value.func, "id", None) == "super")):
            offending.append(f"line {node.lineno}: {ast.unparse(node)}")
    assert not offending, offending


def kernels(source: str) -> list[tuple[ast.FunctionDef, ast.Call | None]]:
    """The functions decorated ``@njit`` or ``@njit(...)`` in ``source``, each with that
    decorator's call (None for a bare ``@njit``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                call = decorator if isinstance(decorator, ast.Call) else None
                if getattr(call.func if call else decorator, "id", None) == "njit":
                    found.append((node, call))
    return found


def uninlined_lazy_kernels(source: str) -> list[str]:
    """The functions decorated ``@njit(...)`` without an explicit signature and without
    ``inline="always"`` in ``source`` (see :mod:`tsid_py._numba`: such a function, called from
    a kernel, would leave the run's last bits depending on whether the kernels were compiled
    in the process or loaded from the disk cache)."""
    found = []
    for node, call in kernels(source):
        if call is not None and call.args:
            continue
        inline = {keyword.arg: keyword.value for keyword in call.keywords} if call else {}
        if not (isinstance(inline.get("inline"), ast.Constant) and inline["inline"].value == "always"):
            found.append(f"line {node.lineno}: {node.name}")
    return found


def calls_to_signed_kernels(sources: dict[str, str]) -> list[str]:
    """The calls, inside a kernel of ``sources`` (name → text), of a kernel with an explicit
    signature anywhere in ``sources`` (by its name): a kernel calls another one's inlined body
    (:func:`tsid_py._numba.inlined`), or its last bits would depend on which processes compiled
    the two (see :mod:`tsid_py._numba`)."""
    signed = {node.name for source in sources.values() for node, call in kernels(source) if call and call.args}
    found = []
    for name, source in sources.items():
        for node, _ in kernels(source):
            for call in (sub for sub in ast.walk(node) if isinstance(sub, ast.Call)):
                callee = getattr(call.func, "id", getattr(call.func, "attr", None))
                if callee in signed and callee != node.name:
                    found.append(f"{name} line {call.lineno}: {node.name} calls {callee}")
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_kernel_without_a_signature_is_inlined(path):
    assert not uninlined_lazy_kernels(path.read_text())


def test_no_kernel_calls_a_kernel_with_a_signature():
    assert not calls_to_signed_kernels({str(path.relative_to(PACKAGE)): path.read_text() for path in MODULES})


def test_the_checks_see_what_they_look_for(tmp_path):
    """The readers above find a private access and a relative import (so that an empty
    result means something)."""
    sample = PACKAGE / "solver.py"
    assert "tsid_py.assembly" in imported_modules(sample)
    tree = ast.parse("other._hidden\nself._own\n")
    private = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr.startswith("_")
               and not (isinstance(n.value, ast.Name) and n.value.id == "self")]
    assert len(private) == 1
    assert find_cycle({"qp": {"reduced"}, "reduced": {"qp"}}) == ["qp", "reduced", "qp"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    lazy = ('@njit(cache=True)\ndef a(): pass\n@njit\ndef b(): pass\n'
            '@njit(cache=True, inline="always")\ndef c(): pass\n@njit(void())\ndef d(): pass\n')
    assert uninlined_lazy_kernels(lazy) == ["line 2: a", "line 4: b"]
    callers = {"one": "@njit(void())\ndef signed(): pass\nsigned_inline = inlined(signed)\n",
               "two": "@njit(void())\ndef caller():\n    signed_inline()\n    signed()\n"}
    assert calls_to_signed_kernels(callers) == ["two line 4: caller calls signed"]


class _Watch:
    """Records every attribute assigned on a solver item by code in ``tsid_py.control``
    other than the item's own methods, while ``active``: :meth:`hook` is the items'
    ``__setattr__``."""

    def __init__(self):
        self.active, self.found = False, []

    def hook(self):
        watch = self

        def __setattr__(item, name, value):
            if watch.active:
                frame = sys._getframe(1)
                module = frame.f_globals.get("__name__", "")
                if module.startswith("tsid_py.control") and frame.f_locals.get("self") is not item:
                    watch.found.append(f"{type(item).__name__}.{name} = ... in {module}:{frame.f_lineno}")
            object.__setattr__(item, name, value)

        return __setattr__


def test_no_controller_stage_changes_an_item_setting_during_a_step(monkeypatch):
    """During steps that soften contacts, relax an infeasible step, walk and recover from a
    push, no code in tsid_py.control assigns an attribute of a task, contact or constraint
    (items change their own state in their methods: targets, supports). The watch itself
    sees an assignment made from a controller module (the self-test)."""
    import tsid_py as tp
    from tsid_py.control import BalanceController
    from tsid_py.control.walking import WalkingController
    from tsid_py.items import SolverItem

    from .conftest import load_robot

    watch = _Watch()
    monkeypatch.setattr(SolverItem, "__setattr__", watch.hook(), raising=False)
    robot = load_robot("talos")
    balance = BalanceController(robot)
    walker = WalkingController(load_robot("talos"), step_recovery=True)
    q, v = robot.q_ref.copy(), robot.zero_velocity()
    watch.active = True
    try:
        balance.step(q, v)
        hard = balance.solver.add_task(tp.tasks.PositionTask(robot.feet[0], kp=0.0, priority="hard"))
        hard.set_target(np.zeros(3), acceleration=[0.0, 0.0, 5.0])
        assert balance.step(q, v).relaxed                   # the failure policy's ladder
        balance.solver.remove_task(hard)
        rocking = v.copy()
        rocking[4] = 3.0                                     # pitching: the soles rock
        balance.step(q, rocking)
        balance.step(q, rocking, {foot: np.zeros(6) for foot in robot.feet})
        assert balance.contact_state.softened
        # walk with the controller's own accelerations; then a recovery from a fast capture point
        state = walker.robot.q_ref.copy(), walker.robot.zero_velocity()
        walker.walk_distance(0.3)
        for _ in range(2000):                               # lands its first step at 1.6 s
            solution = walker.step(*state)
            velocity = state[1] + 1e-3 * solution.ddq
            state = (pin.integrate(walker.robot.model, state[0], 1e-3 * velocity), velocity)
        assert walker.steps_taken >= 1
        while walker.walking:
            walker.step(walker.robot.q_ref, walker.robot.zero_velocity())
        pushed = walker.robot.zero_velocity()
        pushed[1] = 1.2                                     # sideways at 1.2 m/s: the capture point leaves
        for _ in range(100):
            walker.step(walker.robot.q_ref, pushed)
        assert walker.recovering
        assert not watch.found, watch.found
        # the self-test: an assignment from a controller module is seen
        from tsid_py.control import balance as balance_module

        exec(compile("balance.com.hip_ratio = 0.5", balance_module.__file__, "exec"),
             {"__name__": balance_module.__name__, "balance": balance})
        assert watch.found and "hip_ratio" in watch.found[0]
    finally:
        watch.active = False


def test_only_a_kernel_that_keeps_the_order_of_its_arithmetic_is_inlined():
    """:func:`tsid_py._numba.inlined` refuses a kernel compiled with reassociation or
    contraction (its inlined copy would compute other last bits than it) and inlines one
    compiled with :data:`~tsid_py._numba.ORDERED_MATH`."""
    from numba import float64, njit, void

    from tsid_py._numba import FASTMATH, ORDERED_MATH, inlined

    def scale(x):
        x[0] *= 2.0

    reordering = njit(void(float64[:]), fastmath=FASTMATH)(scale)
    with pytest.raises(ValueError, match="kernel scale must be compiled without reassociation"):
        inlined(reordering)
    body = inlined(njit(void(float64[:]), fastmath=ORDERED_MATH)(scale))
    assert body.targetoptions["inline"] == "always" and body.py_func is scale

    @njit(void(float64[:]))
    def caller(x):
        body(x)

    x = np.ones(1)
    caller(x)
    assert x[0] == 2.0
