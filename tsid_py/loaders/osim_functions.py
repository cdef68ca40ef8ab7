"""The scalar functions of an OpenSim model file: how a joint's rotation or translation
depends on a coordinate (``<TransformAxis>``'s function).

Each function is evaluated with its first and second derivatives, so that a coupled
coordinate's velocity and acceleration follow by the chain rule (``ẋ = f'(c) ċ``,
``ẍ = f''(c) ċ² + f'(c) c̈``). Supported: ``Constant``, ``LinearFunction``, ``SimmSpline``,
``NaturalCubicSpline``, ``PolynomialFunction`` and ``MultiplierFunction`` around any of them.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

import numpy as np


class OsimFunction:
    """``f(c)``: :meth:`evaluate` returns ``(f, f', f'')`` at ``c`` (scalar or array)."""

    def evaluate(self, c):  # pragma: no cover - interface
        raise NotImplementedError

    @property
    def is_identity(self) -> bool:
        """Whether ``f(c) = c`` (the axis *is* the coordinate)."""
        return False

    @property
    def is_constant(self) -> bool:
        return False


@dataclass(frozen=True)
class Constant(OsimFunction):
    value: float

    def evaluate(self, c):
        zero = np.zeros_like(np.asarray(c, dtype=float))
        return zero + self.value, zero, zero

    @property
    def is_constant(self) -> bool:
        return True


@dataclass(frozen=True)
class Polynomial(OsimFunction):
    """``Σ_i a_i c^(n−i)`` (OpenSim's order: highest power first; ``LinearFunction`` is
    ``slope, intercept``)."""

    coefficients: tuple[float, ...]

    def evaluate(self, c):
        c = np.asarray(c, dtype=float)
        p = np.poly1d(self.coefficients)
        return p(c), p.deriv(1)(c) if len(self.coefficients) > 1 else 0 * c, \
            p.deriv(2)(c) if len(self.coefficients) > 2 else 0 * c

    @property
    def is_identity(self) -> bool:
        return self.coefficients == (1.0, 0.0)

    @property
    def is_constant(self) -> bool:
        return all(a == 0 for a in self.coefficients[:-1])


@dataclass(frozen=True)
class Multiplier(OsimFunction):
    """``scale · f(c)``."""

    function: OsimFunction
    scale: float

    def evaluate(self, c):
        return tuple(self.scale * value for value in self.function.evaluate(c))

    @property
    def is_identity(self) -> bool:
        return self.scale == 1.0 and self.function.is_identity

    @property
    def is_constant(self) -> bool:
        return self.function.is_constant


@dataclass(frozen=True, eq=False)
class CubicSpline(OsimFunction):
    """A piecewise cubic through the knots ``(x_i, y_i)``:
    ``s(c) = y_i + b_i h + c_i h² + d_i h³`` with ``h = c − x_i`` on ``[x_i, x_{i+1}]``,
    continued by its tangent lines outside the knots (as OpenSim does).

    :meth:`simm` builds OpenSim's ``SimmSpline`` — the Forsythe–Malcolm–Moler spline,
    whose end conditions make the third derivative at each end that of the cubic through
    the four nearest knots; :meth:`natural` the natural spline (``s'' = 0`` at both ends).
    """

    x: np.ndarray
    y: np.ndarray
    b: np.ndarray
    c: np.ndarray
    d: np.ndarray

    @classmethod
    def simm(cls, x, y) -> CubicSpline:
        x, y = _knots(x, y)
        n = len(x)
        if n < 4:
            return cls.natural(x, y)
        b, c, d = np.zeros(n), np.zeros(n), np.zeros(n)
        d[0] = x[1] - x[0]
        c[1] = (y[1] - y[0]) / d[0]
        for i in range(1, n - 1):         # the tridiagonal system of the second derivatives (× 1/2)
            d[i] = x[i + 1] - x[i]
            b[i] = 2.0 * (d[i - 1] + d[i])
            c[i + 1] = (y[i + 1] - y[i]) / d[i]
            c[i] = c[i + 1] - c[i]
        b[0], b[-1] = -d[0], -d[n - 2]   # end rows: third derivatives of the end cubics
        c[0] = (c[2] / (x[3] - x[1]) - c[1] / (x[2] - x[0])) * d[0] ** 2 / (x[3] - x[0])
        c[-1] = -(c[n - 2] / (x[n - 1] - x[n - 3]) - c[n - 3] / (x[n - 2] - x[n - 4])) * d[n - 2] ** 2 \
            / (x[n - 1] - x[n - 4])
        for i in range(1, n):             # forward elimination, then back substitution
            t = d[i - 1] / b[i - 1]
            b[i] -= t * d[i - 1]
            c[i] -= t * c[i - 1]
        c[-1] /= b[-1]
        for i in range(n - 2, -1, -1):
            c[i] = (c[i] - d[i] * c[i + 1]) / b[i]
        slope = np.diff(y) / np.diff(x)
        h = np.diff(x)
        b_out = np.empty(n)
        b_out[:-1] = slope - h * (c[1:] + 2.0 * c[:-1])
        b_out[-1] = slope[-1] + h[-1] * (c[-2] + 2.0 * c[-1])
        d_out = np.append(np.diff(c) / h, 0.0)
        return cls(x, y, b_out, 3.0 * c, d_out)

    @classmethod
    def natural(cls, x, y) -> CubicSpline:
        from scipy.interpolate import CubicSpline as Scipy

        x, y = _knots(x, y)
        if len(x) == 2:
            slope = (y[1] - y[0]) / (x[1] - x[0])
            return cls(x, y, np.full(2, slope), np.zeros(2), np.zeros(2))
        spline = Scipy(x, y, bc_type="natural")
        d3, c2, b1, _ = spline.c                      # scipy: highest power first, per interval
        b = np.append(b1, spline(x[-1], 1))
        return cls(x, y, b, np.append(c2, 0.0), np.append(d3, 0.0))

    def evaluate(self, c):
        c = np.asarray(c, dtype=float)
        x = self.x
        i = np.clip(np.searchsorted(x, c, side="right") - 1, 0, len(x) - 2)
        h = c - x[i]
        value = self.y[i] + h * (self.b[i] + h * (self.c[i] + h * self.d[i]))
        slope = self.b[i] + h * (2.0 * self.c[i] + 3.0 * h * self.d[i])
        curvature = 2.0 * self.c[i] + 6.0 * h * self.d[i]
        for outside, end in ((c < x[0], 0), (c > x[-1], -1)):       # tangent lines
            value = np.where(outside, self.y[end] + self.b[end] * (c - x[end]), value)
            slope = np.where(outside, self.b[end], slope)
            curvature = np.where(outside, 0.0, curvature)
        return value, slope, curvature


def _knots(x, y) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or len(x) < 2:
        raise ValueError(f"a spline needs as many x as y values, at least 2, got {x.shape} and {y.shape}")
    if np.any(np.diff(x) <= 0):
        raise ValueError(f"a spline's x values must increase strictly, got {x.tolist()}")
    return x, y


def _numbers(element: ET.Element, tag: str) -> list[float]:
    text = element.findtext(tag)
    if text is None:
        raise ValueError(f"<{element.tag}> has no <{tag}>")
    try:
        return [float(token) for token in text.split()]
    except ValueError:
        raise ValueError(f"<{element.tag}><{tag}> must hold numbers, got {text.strip()!r}") from None


def parse_function(element: ET.Element) -> OsimFunction:
    """The function an XML element describes (``ValueError`` naming an unsupported type)."""
    tag = element.tag
    if tag == "Constant":
        return Constant(_numbers(element, "value")[0])
    if tag == "LinearFunction":
        return Polynomial(tuple(_numbers(element, "coefficients")))
    if tag == "PolynomialFunction":
        return Polynomial(tuple(_numbers(element, "coefficients")))
    if tag in ("SimmSpline", "NaturalCubicSpline"):
        build = CubicSpline.simm if tag == "SimmSpline" else CubicSpline.natural
        return build(_numbers(element, "x"), _numbers(element, "y"))
    if tag == "MultiplierFunction":
        inner = element.find("function")
        children = list(inner) if inner is not None else []
        if len(children) != 1:
            raise ValueError("<MultiplierFunction> must hold one function in <function>")
        scale = element.findtext("scale")
        return Multiplier(parse_function(children[0]), float(scale) if scale is not None else 1.0)
    raise ValueError(f"function type <{tag}> is not supported (Constant, LinearFunction, PolynomialFunction, "
                     "SimmSpline, NaturalCubicSpline, MultiplierFunction are)")
