"""Every public name has a docstring, and no public signature hides its parameters.

The public API is what ``tsid_py``, ``tsid_py.tasks`` and ``tsid_py.constraints`` list in
``__all__``: their classes, functions and modules; each class's public methods and properties
(inherited ones are checked on the class that defines them), each module's public functions;
and the public classes and functions of the modules in ``MODULES`` (no ``__all__`` of their own).
A docstring is the object's own: an override does not borrow its base's (the API reference
does not either).
"""

import inspect
from functools import cached_property
from types import FunctionType, ModuleType

import tsid_py
import tsid_py.constraints
import tsid_py.report
import tsid_py.scenarios.plots
import tsid_py.scenarios.video
import tsid_py.tasks

PACKAGES = (tsid_py, tsid_py.tasks, tsid_py.constraints)
MODULES = (tsid_py.report, tsid_py.scenarios.plots, tsid_py.scenarios.video)


def _own(obj) -> bool:
    return (getattr(obj, "__module__", None) or "").startswith("tsid_py")


def _members(cls) -> dict[str, object]:
    """Public methods and properties defined by ``cls`` or a tsid_py base, by qualified name."""
    found = {}
    for klass in cls.__mro__:
        if not _own(klass):
            continue
        for name, value in vars(klass).items():
            if name.startswith("_"):
                continue
            function = value.__func__ if isinstance(value, (staticmethod, classmethod)) else value
            if isinstance(function, (FunctionType, property, cached_property)):
                found.setdefault(f"{klass.__module__}.{klass.__qualname__}.{name}", function)
    return found


def _add(api: dict, obj) -> None:
    """``obj`` (a module, class or function) and what it shows publicly."""
    if isinstance(obj, ModuleType):
        api[obj.__name__] = obj
        for name, value in vars(obj).items():
            if not name.startswith("_") and getattr(value, "__module__", None) == obj.__name__ and (
                    isinstance(value, FunctionType) or inspect.isclass(value)):
                _add(api, value)
    else:
        api[f"{obj.__module__}.{obj.__qualname__}"] = obj
        if inspect.isclass(obj):
            api.update(_members(obj))


def public_api() -> dict[str, object]:
    """Qualified name → object for everything the API reference shows."""
    api = {}
    for package in PACKAGES:
        api[package.__name__] = package
        for name in package.__all__:
            _add(api, getattr(package, name))
    for module in MODULES:
        _add(api, module)
    return api


def _documented(obj) -> bool:
    doc = obj.fget.__doc__ if isinstance(obj, property) and obj.fget is not None else obj.__doc__
    return bool(doc and doc.strip())


def test_the_public_api_is_enumerated():
    api = public_api()
    for name in ("tsid_py.solver.DynamicsSolver.solve", "tsid_py.robot.Robot.com", "tsid_py.tasks.com.CoMTask",
                 "tsid_py.constraints.limits.TorqueLimits", "tsid_py.inverse_dynamics.gravity_compensation"):
        assert name in api
    assert len(api) > 100


def test_every_public_member_has_a_docstring():
    missing = sorted(name for name, obj in public_api().items() if not _documented(obj))
    assert not missing, f"{len(missing)} public members without a docstring:\n  " + "\n  ".join(missing)


def test_no_public_signature_hides_its_parameters_in_kwargs():
    hidden = []
    for name, obj in public_api().items():
        function = obj.__init__ if inspect.isclass(obj) else obj
        if isinstance(function, FunctionType) and _own(function):
            kinds = [p.kind for p in inspect.signature(function).parameters.values()]
            if inspect.Parameter.VAR_KEYWORD in kinds:
                hidden.append(name)
    assert not hidden, f"{len(hidden)} public signatures take **kwargs:\n  " + "\n  ".join(sorted(hidden))
