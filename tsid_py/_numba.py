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

They are compiled once (about a minute: 58 s, 41 s before every kernel-to-kernel call was
inlined) and cached on disk (``cache=True``): those with an explicit signature at import, the
others in :func:`tsid_py.backends.active_set.warm_up`, ahead of the control loop.

**Every call from one kernel to another is inlined** (``inline="always"``: numba copies the
callee's body into the caller before compiling it), so that a kernel's compiled code holds
everything it runs. Otherwise a run's last bits depended on how the kernels came to be
compiled. numba links a called function into its caller's library as a weak symbol, and its
copy there is optimised again with the caller (reassociated sums, fused multiply-adds:
:data:`FASTMATH`); whether the caller then runs that copy or the function's own library
depends on what is loaded and under which name (our reading of numba's linking; what was
measured is below). For a function without an explicit signature, on whether the caller was
compiled in the process or loaded from the disk cache: 284 of the 59 760 numbers of twenty G1
dynamics passes differed (up to 6e-14), and a G1 walk pushed near its bound walked from a
fresh compile and fell from the cache. For a function with an explicit signature (compiled or
loaded at import, under a name that carries a per-process counter), on where and in which
processes the kernels were compiled: a cache with the estimator's kernels from another
compile changed a realistic G1 walk (docs/walking.md, "Landing later"). So a function without
a signature is declared ``inline="always"``, and a kernel with one, when another kernel calls
it, is called through its body (:func:`inlined`); ``tests/test_architecture.py`` checks both.
An inlined copy is typed and optimised with its caller, so both are compiled without
reassociation and contraction (:data:`ORDERED_MATH`): with them, the copy computed other last
bits than the kernel (the compiled assembly than the items' own writers, which a test holds bit
for bit). A cache that lived through changes of other files is dropped on import
(:mod:`tsid_py._kernel_cache`).
"""

from __future__ import annotations

from types import SimpleNamespace

from numba import float64, njit
from numba.core import types
from numba.core.errors import TypingError
from numba.core.typing import signature
from numba.extending import intrinsic
from numba.np.linalg import dot_3_mm, ensure_blas

#: Let the compiler reorder sums and fuse multiply-adds (vectorised loops), but keep IEEE
#: semantics for inf and NaN: infinite bounds are data here.
FASTMATH = {"reassoc", "contract", "nsz", "arcp"}

#: The flags of the kernels that inline another kernel's body (:func:`inlined`) and of those
#: whose body is inlined: :data:`FASTMATH` without reassociation and contraction. Under those
#: two the optimiser reorders sums and fuses multiply-adds by what it sees around them (the
#: arrays' layouts, the loops), so an inlined copy would compute other last bits than the kernel
#: itself — the compiled assembly than the items' own writers, which a test holds bit for bit.
ORDERED_MATH = {"nsz", "arcp"}

#: Float arrays of any layout (views of pinocchio's buffers, slices).
VECTOR, MATRIX = float64[:], float64[:, :]


def inlined(kernel):
    """The body of the explicit-signature ``kernel`` for other kernels to call: its Python
    function compiled with ``inline="always"`` (copied into each caller before the caller is
    compiled; the caller's flags apply). A kernel calls another kernel only this way, so that
    its compiled code holds everything it runs (see the module; checked by
    ``tests/test_architecture.py``); Python calls ``kernel`` itself. ``kernel`` reorders no
    arithmetic (:data:`ORDERED_MATH`), nor may the kernels that call the body."""
    fastmath = kernel.targetoptions.get("fastmath", False)
    if fastmath is True or {"reassoc", "contract"} & set(fastmath or ()):
        raise ValueError(f"kernel {kernel.__name__} must be compiled without reassociation or contraction "
                         f"(ORDERED_MATH) to be inlined, got fastmath={fastmath!r}")
    return njit(inline="always")(kernel.py_func)


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
