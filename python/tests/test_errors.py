"""Every refused argument raises its ArgumentError subclass before anything is computed: an
`out` array passed in keeps its sentinel bits. Run over every function and both forms."""
import numpy as np
import pytest

import aether
from helpers import functions

FUNCS = functions()
WITH_INPUTS = [f for f in FUNCS if f.params]
SENTINEL = 0x5A


def good_args(f, form, n=9):
    rng = np.random.default_rng(1)
    args = []
    for item in f.in_items:
        shape = (tuple(item) + (n,)) if form == "soa" else ((n,) + tuple(item))
        args.append(rng.uniform(-2, 2, size=shape).astype(f.dtype))
    return args


def out_for(f, form, n=9):
    shape = (tuple(f.out_item) + (n,)) if form == "soa" else ((n,) + tuple(f.out_item))
    out = np.empty(shape, dtype=f.out_dtype)
    out.view(np.uint8)[...] = SENTINEL
    return out


def untouched(out):
    return bool((out.view(np.uint8) == SENTINEL).all())


def bad_variants(f, form):
    """(label, args, expected exception) for every way of getting one argument wrong."""
    other = np.float64 if f.dtype == np.float32 else np.float32
    n = 9
    for k in range(len(f.params)):
        def with_arg(x, k=k):
            args = good_args(f, form, n)
            args[k] = x
            return args
        good = good_args(f, form, n)[k]
        yield "list", with_arg(good.tolist()), aether.DTypeError
        yield "tuple", with_arg(tuple(good.reshape(-1).tolist())), aether.DTypeError
        yield "scalar", with_arg(1.0), aether.DTypeError
        yield "other float dtype", with_arg(good.astype(other)), aether.DTypeError
        yield "int dtype", with_arg(good.astype(np.int32)), aether.DTypeError
        yield "byte-swapped", with_arg(good.astype(good.dtype.newbyteorder())), aether.DTypeError
        yield "masked", with_arg(np.ma.masked_array(good)), aether.DTypeError
        yield "extra axis", with_arg(good[..., None].copy()), aether.ShapeError
        yield "missing axis", with_arg(good.reshape(-1)[:1].reshape(()).copy() if good.ndim == 1 else good[0].copy()), aether.ShapeError
        wide = np.zeros(good.shape[:-1] + (good.shape[-1] + 1,), f.dtype) if form == "aos" and good.ndim > 1 else None
        if wide is not None:
            yield "wrong item shape", with_arg(wide), aether.ShapeError
        if good.ndim > 1 and good.shape[0] != good.shape[-1]:
            yield "the other form's layout", with_arg(np.ascontiguousarray(np.moveaxis(good, 0, -1) if form == "aos" else np.moveaxis(good, -1, 0))), aether.ShapeError
        strided = np.repeat(good, 2, axis=-1 if form == "soa" else 0)
        strided = strided[..., ::2] if form == "soa" else strided[::2]
        assert strided.shape == good.shape and not strided.flags.c_contiguous
        yield "non-contiguous", with_arg(strided), aether.LayoutError
        if good.ndim > 1:
            yield "Fortran order", with_arg(np.asfortranarray(good)), aether.LayoutError
        raw = np.zeros(good.nbytes + 1, np.uint8)[1:].view(np.uint8)
        unaligned = np.frombuffer(raw.data, dtype=f.dtype).reshape(good.shape) if good.size else None
        if unaligned is not None and not unaligned.flags.aligned:
            yield "unaligned", with_arg(unaligned), aether.LayoutError
        shorter = good[..., :-1].copy() if form == "soa" else good[:-1].copy()
        if len(f.params) > 1:
            yield "mismatched length", with_arg(shorter), aether.LengthError


@pytest.mark.parametrize("form", ["aos", "soa"])
@pytest.mark.parametrize("f", WITH_INPUTS, ids=[f.name for f in WITH_INPUTS])
def test_refused_inputs_compute_nothing(f, form):
    fn = getattr(aether, "%s_%s" % (f.name, form))
    count = 0
    for label, args, exc in bad_variants(f, form):
        out = out_for(f, form)
        with pytest.raises(exc):
            fn(*args, out=out)
        assert untouched(out), "%s: %s wrote to out before refusing" % (fn.__name__, label)
        with pytest.raises(exc):
            fn(*args)
        count += 1
    assert count >= 10


@pytest.mark.parametrize("form", ["aos", "soa"])
@pytest.mark.parametrize("f", WITH_INPUTS, ids=[f.name for f in WITH_INPUTS])
def test_refused_out_arrays(f, form):
    fn = getattr(aether, "%s_%s" % (f.name, form))
    args = good_args(f, form)
    other = np.float64 if f.out_dtype == np.float32 else np.float32
    good = out_for(f, form)
    readonly = out_for(f, form)
    readonly.flags.writeable = False
    wrong = [
        (np.zeros(good.shape, other), aether.DTypeError),
        (good.tolist(), aether.DTypeError),
        (out_for(f, form, n=8), aether.LengthError),
        (good[..., None].copy(), aether.ShapeError),
        (readonly, aether.LayoutError),
    ]
    if good.ndim > 1:
        wrong.append((np.asfortranarray(good), aether.LayoutError))
    for out, exc in wrong:
        with pytest.raises(exc):
            fn(*args, out=out)
    # An out that overlaps an input without being it: refused, nothing written.
    if not f.truth and f.in_items[0] == f.out_item and args[0].size > 1:
        big = np.zeros(args[0].size + 1, f.dtype)
        a0 = big[:-1].reshape(args[0].shape)
        a0[...] = args[0]
        shifted = big[1:].reshape(args[0].shape)
        before = big.copy()
        with pytest.raises(aether.LayoutError):
            fn(*([a0] + args[1:]), out=shifted)
        assert (big.view(np.uint8) == before.view(np.uint8)).all()


@pytest.mark.parametrize("f", WITH_INPUTS, ids=[f.name for f in WITH_INPUTS])
def test_in_place_and_empty(f):
    for form in ("aos", "soa"):
        fn = getattr(aether, "%s_%s" % (f.name, form))
        args = good_args(f, form)
        want = fn(*args)
        if not f.truth and f.in_items[0] == f.out_item:
            a0 = args[0].copy()
            got = fn(*([a0] + args[1:]), out=a0)
            assert got is a0
            assert (got.view(np.uint8) == want.view(np.uint8)).all(), "in place differs"
        empty = fn(*good_args(f, form, n=0))
        assert empty.size == 0 and empty.dtype == f.out_dtype


def test_wrong_argument_counts_and_n():
    with pytest.raises(TypeError):
        aether.vec3f_dot_aos(np.zeros((2, 3), np.float32))
    with pytest.raises(TypeError):
        aether.vec3f_dot_aos(np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32), n=2)
    with pytest.raises(TypeError):
        aether.mat3f_identity_aos()
    with pytest.raises(TypeError):
        aether.mat3f_identity_aos(n=-1)
    with pytest.raises(TypeError):
        aether.mat3f_identity_aos(n=2.0)
    out = np.full((3, 3, 3), 7, np.float32)
    with pytest.raises(aether.LengthError):
        aether.mat3f_identity_soa(n=2, out=out)
    assert (out == 7).all()
    assert aether.mat3f_identity_aos(n=2).shape == (2, 3, 3)
    assert aether.mat3f_identity_soa(out=out) is out and (out[:, :, 0] == np.eye(3)).all()


def test_scalar_functions_refuse():
    with pytest.raises(aether.ShapeError):
        aether.vec3f_dot((1.0, 2.0), (1.0, 2.0, 3.0))
    with pytest.raises(aether.DTypeError):
        aether.vec3f_dot(np.zeros(3, np.float64), np.zeros(3, np.float32))
    with pytest.raises(aether.DTypeError):
        aether.f32_sin(np.float64(0.5))
    with pytest.raises(aether.DTypeError):
        aether.f32_sin("0.5")
    with pytest.raises(aether.DTypeError):
        aether.f32_sin(True)
    with pytest.raises(aether.DTypeError):
        aether.vec3f_norm({"x": 1})
    with pytest.raises(aether.DTypeError):
        aether.vec3f_norm(["a", "b", "c"])
    with pytest.raises(TypeError):
        aether.vec3f_dot((1.0, 2.0, 3.0))
    with pytest.raises(aether.ShapeError):
        aether.mat2f_determinant([1.0, 2.0, 3.0, 4.0])  # a matrix is (rows, cols)
    assert aether.mat2f_determinant([[1.0, 2.0], [3.0, 4.0]]) == np.float32(-2.0)
    assert isinstance(aether.vec3f_is_finite([1.0, 2.0, np.inf]), bool)
    for exc in (aether.DTypeError, aether.ShapeError, aether.LayoutError, aether.LengthError):
        assert issubclass(exc, aether.ArgumentError)
