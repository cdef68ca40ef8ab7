"""Shared numba settings for the compiled kernels, and their direct calls.

A control step's QP is small (50 variables, 18 equalities for Talos on two feet), so in
numpy its cost is the calls, not the arithmetic: a hundred operations at 1–3 µs each. Each
item of the QP therefore writes its rows in one compiled call. The kernels live next to
the concept they implement (frame kinematics in :mod:`tsid_py.frames`, row writers in
:mod:`tsid_py.row_writers`, a contact's rows in :mod:`tsid_py.contacts`, the posture
task's law in :mod:`tsid_py.tasks.joint`, the active-set solver in
:mod:`tsid_py.backends.active_set`); this module holds what they share.

The kernels a steady control step calls, which allocate nothing (the dynamics pass, the
assembly's program and its targets' copy, the reduced backend's step, the refill, the
finiteness test), are compiled
without numba's runtime (``_nrt=False``): their array arguments are then not wrapped in
reference-counted records, nor their views counted (an atomic increment and decrement each)
— about 30 ns less per array argument and a third of the assembly program's time. Such a
kernel, and everything it calls, may not allocate or return an array it did not receive
(numba refuses to compile it otherwise).

They are compiled once (about 10 s) and cached on disk (``cache=True``): those with an
explicit signature at import, the others in :func:`tsid_py.backends.active_set.warm_up`,
ahead of the control loop.

**Every function without an explicit signature is inlined where a kernel calls it**
(``inline="always"``: numba copies its body into the caller before compiling). Otherwise a
run's last bits depended on whether the kernels were compiled in the process or loaded from
the disk cache. numba links a called function into its caller's library as a weak symbol,
and its copy there is optimised again with the caller (reassociated sums, fused
multiply-adds: :data:`FASTMATH`). When a caller is compiled in the process, the function's own
compiled library is already loaded, and the weak symbol resolves to that; when the caller is
loaded from the cache, the function's library is not, and the caller runs its own copy (our
reading of numba's linking; inlining removes the difference, which is what was measured). The
two copies' results differ in the last bits: 284 of the 59 760 numbers of twenty G1 dynamics
passes (up to 6e-14), and a G1 walk pushed near its bound walked from a fresh compile and
fell from the cache. Inlined, there is one copy. A function with an explicit signature is
compiled (or loaded) when its module is imported, before any kernel that calls it, so its
own library is there in both cases — under the name the process that compiled it gave it,
though (a per-process counter is part of the name). Measured on the estimator's step, which
calls four such kernels: its last bits depend on where and in which processes its kernels
were compiled — a cache with one of them from another compile, or one written wholly by
other processes, changes a walk near its bound (docs/walking.md, "Landing later"). Not fixed;
the likely cure is every kernel-to-kernel call through an inlined body.
``tests/test_architecture.py`` checks the rule. A cache
that lived through changes of other files is dropped on import (:mod:`tsid_py._kernel_cache`).
"""

from __future__ import annotations

from types import SimpleNamespace

from numba import float64
from numba.core import types
from numba.core.errors import TypingError
from numba.core.typing import signature
from numba.extending import intrinsic
from numba.np.linalg import dot_3_mm, ensure_blas

#: Let the compiler reorder sums and fuse multiply-adds (vectorised loops), but keep IEEE
#: semantics for inf and NaN: infinite bounds are data here.
FASTMATH = {"reassoc", "contract", "nsz", "arcp"}

#: Float arrays of any layout (views of pinocchio's buffers, slices).
VECTOR, MATRIX = float64[:], float64[:, :]


def compiled_function(kernel):
    """The compiled function behind a kernel with one explicit signature."""
    (signature,) = kernel.signatures
    return kernel.overloads[signature].entry_point


def direct_calls(*kernels) -> SimpleNamespace:
    """Kernels as the control loop calls them: their compiled functions, without numba's
    dispatcher, which types every argument before each call (0.5–0.8 µs for 8–22
    arguments). A compiled function only unboxes, so it checks less: the caller must pass
    what the signature declares (float64 arrays of the declared dimensions, intp index
    arrays), so a kernel is called this way only with arrays the library builds; a user's
    arrays go through the dispatcher."""
    return SimpleNamespace(**{kernel.__name__: compiled_function(kernel) for kernel in kernels})


@intrinsic
def product_into(typingcontext, a, b, out):
    """``out = a b`` for C- or F-ordered float64 matrices: numba's own ``np.dot(a, b, out)``
    (the same BLAS call, so the same numbers) without returning ``out``, so that a kernel
    compiled without numba's runtime can use it (see :mod:`tsid_py._numba`)."""
    if not all(isinstance(x, types.Array) and x.ndim == 2 and x.dtype == types.float64 and x.layout in "CF"
               for x in (a, b, out)) or out.layout != "C":
        raise TypingError("product_into takes C- or F-ordered float64 matrices, out C-ordered")

    def codegen(context, builder, sig, args):
        ensure_blas()
        product = dot_3_mm(context, builder, signature(out, a, b, out), args)
        if context.enable_nrt:                # (dot_3_mm returns out borrowed: a reference to give back)
            context.nrt.decref(builder, out, product)
        return context.get_dummy_value()

    return signature(types.none, a, b, out), codegen
