"""The command line's argument types: each option's value is checked where it enters.

An option takes one of these as its argparse ``type``. A value out of its domain makes
argparse end the command before any work, with exit status 2 and a one-line message that
names the option, what it takes and what it got::

    tsid-py demo: error: argument --duration: must be a positive number of seconds, got '0'

Each type carries its ``domain`` (``"positive"``, ``"output file"``, …): the command line's
tests read it to try every option with the values its domain refuses.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from pathlib import Path

from ._files import output_path_problem

#: Option values whose first character is "-" but that are values, not options: argparse
#: would take ``--push-direction -y`` or ``--turn -90`` for two options.
_NUMBER_LIKE = ("-", "+")


class Parser(argparse.ArgumentParser):
    """An argparse parser whose usage errors are one line on stderr, ``PROG: error: …``,
    with exit status 2 (argparse's own prints the usage above it); its subcommands' parsers
    are of this class too."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} -h)\n")


def _typed(domain: str, what: str, convert: Callable[[str], object]) -> Callable[[str], object]:
    """An argparse type named ``what`` (argparse says "invalid <what> value" for a
    ``ValueError``); ``convert`` raises :class:`argparse.ArgumentTypeError` with its reason."""
    convert.__name__ = what
    convert.domain = domain
    return convert


def _number(text: str, unit: str) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"must be a number of {unit}, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number of {unit}, got {text!r}")
    return value


def finite(unit: str) -> Callable[[str], float]:
    """A finite number, in ``unit`` (a signed amount: a velocity, a rate)."""
    return _checked_number("finite", unit, lambda value: True, f"a finite number of {unit}")


def parsed(domain: str, parse: Callable[[str], object]) -> Callable[[str], object]:
    """A value ``parse`` reads from the text (its ``ValueError`` becomes the usage error)."""
    def convert(text: str) -> object:
        try:
            return parse(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    return _typed(domain, domain, convert)


def _checked_number(domain: str, unit: str, accept: Callable[[float], bool], condition: str
                    ) -> Callable[[str], float]:
    """A finite number in ``unit`` that ``accept`` takes; refused: "must be ``condition``"."""
    def convert(text: str) -> float:
        value = _number(text, unit)
        if not accept(value):
            raise argparse.ArgumentTypeError(f"must be {condition}, got {text!r}")
        return value
    return _typed(domain, "number", convert)


def positive(unit: str) -> Callable[[str], float]:
    """A finite number > 0, in ``unit`` (plural: "seconds", "newtons")."""
    return _checked_number("positive", unit, lambda value: value > 0, f"a positive number of {unit}")


def non_negative(unit: str) -> Callable[[str], float]:
    """A finite number ≥ 0, in ``unit``."""
    return _checked_number("non-negative", unit, lambda value: value >= 0, f"a number of {unit} ≥ 0")


def fraction(what: str) -> Callable[[str], float]:
    """A number in [0, 1): a fraction of ``what``."""
    return _checked_number("fraction", f"a fraction of {what}", lambda value: 0 <= value < 1,
                           f"a fraction of {what} in [0, 1)")


def nonzero(unit: str) -> Callable[[str], float]:
    """A finite number other than 0, in ``unit`` (a signed amount: a turn, a slope)."""
    return _checked_number("nonzero", unit, lambda value: value != 0, f"a nonzero number of {unit}")


def count(minimum: int = 1) -> Callable[[str], int]:
    """A whole number ≥ ``minimum``."""
    def convert(text: str) -> int:
        try:
            value = int(text)
        except (TypeError, ValueError):
            raise argparse.ArgumentTypeError(f"must be a whole number ≥ {minimum}, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be a whole number ≥ {minimum}, got {text!r}")
        return value
    return _typed(f"count ≥ {minimum}", "whole number", convert)


def output_file(*suffixes: str) -> Callable[[str], str]:
    """A file to write: its suffix one of ``suffixes`` (any case), its folder existing and
    writable, itself not a folder — checked before any work, so that a run never ends by
    failing to save (:func:`tsid_py._files.output_path_problem`)."""
    def convert(text: str) -> str:
        problem = output_path_problem(text, suffixes)
        if problem is not None:
            raise argparse.ArgumentTypeError(problem)
        return text
    convert = _typed("output file", "output file", convert)
    convert.suffixes = suffixes
    return convert


def input_file(*suffixes: str) -> Callable[[str], str]:
    """An existing, readable file (with one of ``suffixes``, any case, when given)."""
    def convert(text: str) -> str:
        path = Path(text)
        if suffixes and path.suffix.lower() not in suffixes:
            raise argparse.ArgumentTypeError(f"must be a {' or '.join(suffixes)} file, got {text!r}")
        if not path.exists():
            raise argparse.ArgumentTypeError(f"file {text!r} does not exist")
        if not path.is_file():
            raise argparse.ArgumentTypeError(f"{text!r} is a folder, not a file")
        if not os.access(path, os.R_OK):
            raise argparse.ArgumentTypeError(f"file {text!r} is not readable")
        return text
    convert = _typed("input file", "input file", convert)
    convert.suffixes = suffixes
    return convert


def folder() -> Callable[[str], str]:
    """An existing folder."""
    def convert(text: str) -> str:
        path = Path(text)
        if not path.exists():
            raise argparse.ArgumentTypeError(f"folder {text!r} does not exist")
        if not path.is_dir():
            raise argparse.ArgumentTypeError(f"{text!r} is a file, not a folder")
        return text
    return _typed("folder", "folder", convert)


def _qp_solver(text: str) -> str:
    from .backends import make_backend

    make_backend(text)                  # ValueError naming the installed ones
    return text


def _robot(text: str) -> str:
    from .robots import available, load

    if text in available():
        return text
    if not Path(text).is_file():
        raise ValueError(f"must be a built-in robot ({', '.join(available())}) or a robot file, got {text!r}")
    try:
        load(text)                      # a file that is no robot is refused here, not after the work began
    except (ValueError, KeyError) as error:
        raise ValueError(f"{text!r} cannot be loaded: {error.args[0] if error.args else error}") from None
    return text


def _rerun_target(text: str) -> str:
    if not (text in ("spawn", "connect") or text.startswith("connect=") or text.lower().endswith(".rrd")):
        raise ValueError(f"takes a .rrd path, spawn or connect[=URL], got {text!r}")
    if text.lower().endswith(".rrd"):
        output_file(".rrd")(text)
    return text


#: Where Rerun's log goes: a ``.rrd`` file (checked like an output file), ``spawn`` or
#: ``connect[=URL]`` (:mod:`tsid_py.tools.viewer`).
rerun_target = parsed("rerun target", _rerun_target)
#: A QP backend's name (:func:`tsid_py.backends.make_backend`).
qp_solver = parsed("qp solver", _qp_solver)
#: A built-in robot's name or a robot file's path (:func:`tsid_py.robots.load`).
robot = parsed("robot", _robot)


def attach_values(argv: list[str], options: tuple[str, ...]) -> list[str]:
    """``argv`` with each of ``options`` joined to the value that follows it when that value
    starts with "-" or "+" (``--turn -90`` → ``--turn=-90``): argparse would read such a value
    as another option."""
    joined, tokens = [], iter(argv)
    for token in tokens:
        value = next(tokens, None) if token in options else None
        if value is None:
            joined.append(token)
        elif value.startswith(_NUMBER_LIKE):
            joined.append(f"{token}={value}")
        else:
            joined += [token, value]
    return joined
