"""Several objects' arrays moved into two buffers: how a compiled step takes a whole
estimator's state in a few arguments.

A direct call of a compiled kernel (:func:`tsid_py._numba.compiled_function`) unboxes each
array it is given, and the cost is not linear in their number: measured on the project's
2-core machine (numba 0.68, arrays of 10 float64), 4 arrays 0.15 µs, 8 arrays 1.1 µs, 35
arrays 8 µs — more than the estimator's arithmetic. :class:`Buffers` lays a set of
``(owner, attribute)`` arrays back to back in one contiguous array per dtype (float64,
intp) and makes each owner's attribute a view of it (same shape, same values): the owners
read and write their arrays as before, and a kernel given the two buffers reads each field
as a slice of them (:func:`float_field`, :func:`integer_field`, reshaped to the field's
shape; the layout heads the integer buffer). The kernel's views of the fields are made
without numba's slicing and reshaping (bounds fix-ups, a C call per reshape, reference
counts on the views): :func:`float_field`, :func:`float_matrix` and :func:`float_tensor` are
arrays at an address in the buffer (``numba.carray``), valid while the kernel holds the
buffer (its argument), 0.04 µs a view less. One buffer also keeps a step's data on
consecutive cache lines: the control step runs the simulator and the solver between two
estimator updates, so the estimator's data is read from memory each time.
"""

from __future__ import annotations

import numpy as np
from numba import carray, njit, types
from numba.extending import intrinsic

from .._numba import FASTMATH


class Buffers:
    """Float64 and intp arrays gathered into two contiguous buffers (see the module).

    Add the fields with :meth:`add`, then :meth:`build` once: each owner's attribute becomes a
    C-contiguous view of :attr:`floats` or :attr:`integers` holding the same numbers.
    :attr:`integers` starts with the layout: the float fields' offsets (one more than the
    float fields), then the integer fields' (one more than those), so that float field ``i``
    (in the order of the :meth:`add` calls) is ``floats[integers[i]:integers[i + 1]]``
    (:func:`float_field`) and integer field ``j`` is
    ``integers[integers[F + 1 + j]:integers[F + 2 + j]]`` with ``F`` float fields
    (:func:`integer_field`).
    """

    def __init__(self):
        self._fields: dict[np.dtype, list[tuple[object, str]]] = {FLOAT: [], INTEGER: []}
        self.floats: np.ndarray | None = None
        self.integers: np.ndarray | None = None

    def add(self, owner, *names: str) -> None:
        """Move ``owner``'s array attributes ``names`` (float64 or intp arrays) at
        :meth:`build`."""
        if self.floats is not None:
            raise RuntimeError("the buffers are built: add their fields before build()")
        for name in names:
            array = getattr(owner, name)
            kind = getattr(array, "dtype", None)
            if not isinstance(array, np.ndarray) or kind not in self._fields:
                raise ValueError(f"{type(owner).__name__}.{name} must be a float64 or intp array, got "
                                 f"{kind if kind is not None else type(array).__name__}")
            self._fields[kind].append((owner, name))

    def build(self) -> tuple[np.ndarray, np.ndarray]:
        """Allocate :attr:`floats` and :attr:`integers`, copy each field into its buffer and make
        the owners' attributes views of it; returns the two buffers."""
        floats, integers = self._fields[FLOAT], self._fields[INTEGER]
        float_offsets = _offsets(floats, 0)
        header = len(floats) + len(integers) + 2
        integer_offsets = _offsets(integers, header)
        self.floats = np.empty(float_offsets[-1], dtype=FLOAT)
        self.integers = np.empty(integer_offsets[-1], dtype=INTEGER)
        self.integers[:header] = float_offsets + integer_offsets
        _move(floats, self.floats, float_offsets)
        _move(integers, self.integers, integer_offsets)
        return self.floats, self.integers


FLOAT, INTEGER = np.dtype(np.float64), np.dtype(np.intp)


def _offsets(fields: list[tuple[object, str]], start: int) -> list[int]:
    """Where each field starts (and the last ends) when laid back to back from ``start``."""
    offsets = [start]
    for owner, name in fields:
        offsets.append(offsets[-1] + getattr(owner, name).size)
    return offsets


def _move(fields: list[tuple[object, str]], values: np.ndarray, offsets: list[int]) -> None:
    """Copy each field into ``values`` at its offset; the owner's attribute becomes the view."""
    for (owner, name), start, stop in zip(fields, offsets[:-1], offsets[1:]):
        array = getattr(owner, name)
        view = values[start:stop].reshape(array.shape)
        view[...] = array
        setattr(owner, name, view)


@intrinsic
def _address(typingctx, array, offset):
    """The address of ``array[offset]`` (a C-contiguous 1-D array) as a typed pointer, for
    ``numba.carray``: no bounds check (the layout gives the offsets)."""
    signature = types.CPointer(array.dtype)(array, offset)

    def codegen(context, builder, signature, args):
        values = context.make_array(signature.args[0])(context, builder, args[0])
        return builder.gep(values.data, [args[1]])

    return signature, codegen


@njit(cache=True, fastmath=FASTMATH, inline="always")
def float_field(floats, integers, index):
    """Float field ``index`` of :class:`Buffers`, 1-D."""
    start = integers[index]
    return carray(_address(floats, start), integers[index + 1] - start)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def float_matrix(floats, integers, index, columns):
    """Float field ``index`` of :class:`Buffers` as a C-contiguous matrix of ``columns`` columns."""
    start = integers[index]
    return carray(_address(floats, start), ((integers[index + 1] - start) // columns, columns))


@njit(cache=True, fastmath=FASTMATH, inline="always")
def float_tensor(floats, integers, index, rows, columns):
    """Float field ``index`` of :class:`Buffers` as a C-contiguous stack of ``rows`` × ``columns``
    matrices."""
    start = integers[index]
    return carray(_address(floats, start), ((integers[index + 1] - start) // (rows * columns), rows, columns))


@njit(cache=True, fastmath=FASTMATH, inline="always")
def integer_field(integers, float_fields, index):
    """Integer field ``index`` of :class:`Buffers` with ``float_fields`` float fields."""
    start = integers[float_fields + 1 + index]
    return carray(_address(integers, start), integers[float_fields + 2 + index] - start)
