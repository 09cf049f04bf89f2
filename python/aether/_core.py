"""The loader: opens the C core built at install time (aether/_aether_c*.so) with ctypes and
makes one Python function per row of the generated binding table (aether/_generated/table.py)
and form. Nothing here names a contract function: every binding comes from the table.

Every argument is checked before the C function is called; a bad one raises an ArgumentError
subclass and nothing is computed (an `out` array given is left as it was).
"""
import ctypes
import glob
import os
from collections import namedtuple

import numpy as np


def _load_table():
    """aether/_generated/table.py, executed from its source (not imported: no __pycache__ is
    written in the generated folder, whose every file the generator owns)."""
    import types

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_generated", "table.py")
    with open(path, encoding="utf-8") as f:
        code = compile(f.read(), path, "exec")
    module = types.ModuleType("aether._generated.table")
    module.__file__ = path
    exec(code, module.__dict__)
    return module


table = _load_table()

__all__ = [
    "ArgumentError",
    "DTypeError",
    "ShapeError",
    "LayoutError",
    "LengthError",
    "SelfTestError",
    "SelfTest",
    "Function",
]


class ArgumentError(Exception):
    """An argument the binding refuses; nothing was computed."""


class DTypeError(ArgumentError, TypeError):
    """Not a numpy array (a list, a tuple), or an array of another dtype (no casting is done)."""


class ShapeError(ArgumentError, ValueError):
    """An array whose shape is not the form's layout of the parameter's shape."""


class LayoutError(ArgumentError, ValueError):
    """A non-contiguous, unaligned or (for `out`) read-only or overlapping array."""


class LengthError(ArgumentError, ValueError):
    """Arrays of one call holding different numbers of items."""


class SelfTestError(RuntimeError):
    """The self-test found this process or build unable to give the contract's bits."""


SelfTest = namedtuple("SelfTest", "ok status message")
SelfTest.__doc__ = "aether_selftest()'s result: ok, its status bits (0 when ok) and its message."

_DTYPES = {name: np.dtype(np.float32 if bits == 32 else np.float64) for name, (_c, _l, bits) in table.TYPES.items()}
_CTYPES = {name: (ctypes.c_float if bits == 32 else ctypes.c_double) for name, (_c, _l, bits) in table.TYPES.items()}
_TRUTH = np.dtype(np.intc)  # the batches' truth values: C int, 0 or 1


def _library_path():
    here = os.path.dirname(os.path.abspath(__file__))
    found = sorted(glob.glob(os.path.join(here, "_aether_c*.so")) + glob.glob(os.path.join(here, "_aether_c*.pyd")))
    if not found:
        raise ImportError("aether: the C core library (_aether_c*.so) is not beside %s: install with pip install ./python" % here)
    return found[0]


_lib = ctypes.CDLL(_library_path())
_lib.aether_contract_id.restype = ctypes.c_char_p
_lib.aether_contract_id.argtypes = []
_lib.aether_selftest.restype = ctypes.c_int
_lib.aether_selftest.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]


def contract_id():
    """The contract id compiled into the loaded C core (aether_contract_id())."""
    return _lib.aether_contract_id().decode("ascii")


if contract_id() != table.CONTRACT_ID:
    raise ImportError(
        "aether: the C core is contract %r, the binding table %r: reinstall after `cargo run -p generator`"
        % (contract_id(), table.CONTRACT_ID)
    )


def selftest():
    """Runs aether_selftest() against the table's contract id: witness vectors for every rule and
    the floating-point environment (rounding mode, flush-to-zero, denormals-are-zero).
    Returns SelfTest(ok, status, message); the message says in words what is wrong, if anything."""
    buf = ctypes.create_string_buffer(16384)
    status = _lib.aether_selftest(table.CONTRACT_ID.encode("ascii"), buf, len(buf))
    return SelfTest(status == 0, status, buf.value.decode("utf-8", "replace"))


def check():
    """selftest(), raising SelfTestError with its message when it fails."""
    r = selftest()
    if not r.ok:
        raise SelfTestError(r.message)
    return r


# ------------------------------------------------------------------ C structs for the scalar API

_structs = {}


def _c_type(shape, elem):
    """The ctypes type of a value of `shape` in `elem`: the C scalar, or the core's struct."""
    words, _item, fields = table.SHAPES[shape]
    scalar = _CTYPES[elem]
    if shape == "scalar" or (fields is None and words == 1):
        return scalar
    key = (shape, elem)
    if key not in _structs:
        names = list(fields) if fields is not None else ["m%d" % k for k in range(words)]
        name = "aether_%s%s" % (shape, table.TYPES[elem][1])
        _structs[key] = type(name, (ctypes.Structure,), {"_fields_": [(n, scalar) for n in names]})
    return _structs[key]


# ------------------------------------------------------------------ checks


def _describe(x):
    if isinstance(x, np.ndarray):
        return "a %s array of shape %s" % (x.dtype, x.shape)
    return "a %s" % type(x).__name__


def _array(fname, pname, x, dtype, writeable=False):
    if not isinstance(x, np.ndarray) or isinstance(x, np.ma.MaskedArray):
        raise DTypeError(
            "%s: %s must be a numpy array of %s, not %s (convert explicitly: np.asarray(x, dtype=np.%s))"
            % (fname, pname, dtype, _describe(x), dtype)
        )
    if x.dtype != dtype:
        raise DTypeError(
            "%s: %s must have dtype %s (native byte order), not %s; no casting is done" % (fname, pname, dtype, x.dtype)
        )
    if not x.flags.c_contiguous:
        raise LayoutError("%s: %s is not C-contiguous (np.ascontiguousarray makes a copy that is)" % (fname, pname))
    if not x.flags.aligned:
        raise LayoutError("%s: %s is not aligned for %s" % (fname, pname, dtype))
    if writeable and not x.flags.writeable:
        raise LayoutError("%s: %s is read-only" % (fname, pname))


def _items(fname, pname, x, item, soa):
    """The number of items of `x`, whose shape must be item + (n,) (soa) or (n,) + item (aos)."""
    want = "%s + (n,)" % (item,) if soa else "(n,) + %s" % (item,)
    if x.ndim != len(item) + 1:
        raise ShapeError("%s: %s must have shape %s, not %s" % (fname, pname, want, x.shape))
    n, rest = (x.shape[-1], x.shape[:-1]) if soa else (x.shape[0], x.shape[1:])
    if tuple(rest) != tuple(item):
        raise ShapeError("%s: %s must have shape %s, not %s" % (fname, pname, want, x.shape))
    return n


# ------------------------------------------------------------------ one function


class Function:
    """One row of the binding table: its batched forms and its scalar function."""

    def __init__(self, row):
        (self.name, self.family, self.shape, self.elem, self.either_zero, self.params, self.ret, self.soa_prototype, self.aos_prototype) = row
        self.c_name = "aether_" + self.name
        self.dtype = _DTYPES[self.elem]
        self.bits = table.TYPES[self.elem][2]
        self.truth = self.ret is None
        self.out_dtype = _TRUTH if self.truth else self.dtype
        self.in_items = [table.SHAPES[s][1] for _p, s in self.params]
        self.out_item = () if self.truth else table.SHAPES[self.ret][1]
        self.in_words = [table.SHAPES[s][0] for _p, s in self.params]
        self.out_words = 1 if self.truth else table.SHAPES[self.ret][0]
        pointers = [ctypes.c_void_p] * (len(self.params) + 1) + [ctypes.c_size_t]
        self._forms = {}
        for form in ("soa", "aos"):
            fn = getattr(_lib, "%s_%s" % (self.c_name, form))
            fn.argtypes = pointers
            fn.restype = None
            self._forms[form] = fn
        scalar = getattr(_lib, self.c_name)
        scalar.argtypes = [_c_type(s, self.elem) for _p, s in self.params]
        scalar.restype = ctypes.c_int if self.truth else _c_type(self.ret, self.elem)
        self._scalar = scalar

    def signature(self, form):
        names = ", ".join(p for p, _s in self.params)
        if not form:
            return "%s(%s)" % (self.name, names)
        return "%s_%s(%s, out=None)" % (self.name, form, names) if names else "%s_%s(*, n=None, out=None)" % (self.name, form)

    def call(self, form, args, out=None, n=None):
        soa = form == "soa"
        fname = "%s_%s" % (self.name, form)
        if len(args) != len(self.params):
            raise TypeError("%s takes %d arrays (%s), %d given" % (fname, len(self.params), ", ".join(p for p, _ in self.params), len(args)))
        if self.params and n is not None:
            raise TypeError("%s: n is only for a function without inputs; the arrays give the number of items" % fname)
        if not self.params and out is None:
            if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 0:
                raise TypeError("%s takes no input array: give the number of items as n=<int >= 0> (or an out array)" % fname)
        if not self.params and out is not None:
            _array(fname, "out", out, self.out_dtype, writeable=True)
            k = _items(fname, "out", out, self.out_item, soa)
            if n is not None and k != n:
                raise LengthError("%s: out holds %d items, n is %d" % (fname, k, n))
            n = k
        for (pname, _s), item, x in zip(self.params, self.in_items, args):
            _array(fname, pname, x, self.dtype)
            k = _items(fname, pname, x, item, soa)
            if n is None:
                n = k
            elif k != n:
                raise LengthError("%s: %s holds %d items, %s holds %d" % (fname, pname, k, self.params[0][0], n))
        shape = (self.out_item + (n,)) if soa else ((n,) + self.out_item)
        if out is None:
            out = np.empty(shape, dtype=self.out_dtype)
        else:
            _array(fname, "out", out, self.out_dtype, writeable=True)
            if _items(fname, "out", out, self.out_item, soa) != n:
                raise LengthError("%s: out holds %d items, the inputs %d" % (fname, out.shape[-1] if soa else out.shape[0], n))
            for (pname, _s), x in zip(self.params, args):
                same = x.ctypes.data == out.ctypes.data and x.nbytes == out.nbytes
                if not same and np.may_share_memory(x, out):
                    raise LayoutError("%s: out overlaps %s without being it (in place means out is %s itself)" % (fname, pname, pname))
        self._forms[form](*[x.ctypes.data for x in args], out.ctypes.data, n)
        return out

    def call_scalar(self, args):
        if len(args) != len(self.params):
            raise TypeError("%s takes %d arguments, %d given" % (self.name, len(self.params), len(args)))
        c_args = []
        for (pname, shape), item, x in zip(self.params, self.in_items, args):
            ctype = _c_type(shape, self.elem)
            if shape == "scalar":
                if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.floating, np.integer)):
                    raise DTypeError("%s: %s must be a number, not %s" % (self.name, pname, _describe(x)))
                if isinstance(x, np.floating) and x.dtype != self.dtype:
                    raise DTypeError("%s: %s is a numpy %s; the function takes %s (no casting is done)" % (self.name, pname, x.dtype, self.dtype))
                c_args.append(float(x))
                continue
            if isinstance(x, np.ndarray):
                if x.dtype != self.dtype:
                    raise DTypeError("%s: %s must have dtype %s, not %s; no casting is done" % (self.name, pname, self.dtype, x.dtype))
                a = x
            elif isinstance(x, (list, tuple)):
                try:
                    a = np.array(x, dtype=self.dtype)  # Python numbers, rounded as C rounds a double to float
                except (TypeError, ValueError) as e:
                    raise DTypeError("%s: %s must be numbers: %s" % (self.name, pname, e))
            else:
                raise DTypeError("%s: %s must be a sequence or numpy array of shape %s, not %s" % (self.name, pname, item, _describe(x)))
            if a.shape != tuple(item):
                raise ShapeError("%s: %s must have shape %s, not %s" % (self.name, pname, item, a.shape))
            c_args.append(ctype(*[float(v) for v in a.reshape(-1)]))
        r = self._scalar(*c_args)
        if self.truth:
            return bool(r)
        if self.ret == "scalar":
            return self.dtype.type(r)
        rt = type(r)
        return np.array([getattr(r, f) for f, _t in rt._fields_], dtype=self.dtype).reshape(self.out_item)


def _bind(f, form):
    if form is None:
        def scalar(*args):
            return f.call_scalar(args)
        fn = scalar
        fn.__doc__ = "%s: the C core's scalar %s, one item; returns a numpy scalar, an array of shape %s, or a bool." % (
            f.signature(None), f.c_name, f.out_item)
    else:
        if f.params:
            def batched(*args, out=None):
                return f.call(form, args, out)
        else:
            def batched(*, n=None, out=None):
                return f.call(form, (), out, n)
        fn = batched
        layout = "item shape + (n,): component c of item i at [c * n + i]" if form == "soa" else "(n,) + item shape: item i at [i]"
        fn.__doc__ = "%s\n\nC: %s\nArrays of dtype %s, C-contiguous, %s. Item shapes: %s -> %s%s." % (
            f.signature(form), f.soa_prototype if form == "soa" else f.aos_prototype, f.dtype, layout,
            ", ".join("%s %s" % (p, it) for (p, _s), it in zip(f.params, f.in_items)), f.out_item,
            " (int32 truth values, 0 or 1)" if f.truth else "")
    fn.__name__ = fn.__qualname__ = f.name if form is None else "%s_%s" % (f.name, form)
    return fn


FUNCTIONS = {}
BINDINGS = {}
for _row in table.FUNCTIONS:
    _f = Function(_row)
    FUNCTIONS[_f.name] = _f
    for _form in (None, "soa", "aos"):
        _b = _bind(_f, _form)
        BINDINGS[_b.__name__] = _b
