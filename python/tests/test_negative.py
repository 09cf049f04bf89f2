"""Negative controls: the comparison the corpus and reference tests use flags wrong answers.
numpy's own expressions for normalize and the mat4 product are not the contract's operations
in its order (a square root then a division per component where the contract multiplies by
one reciprocal; BLAS's order and FMA in the products), and the tests' check says so on most
inputs; a one-ULP change, a NaN for a number and a sign of zero are each caught."""
import numpy as np
import pytest

import aether
from helpers import functions, inputs_from_words, mismatches, read_corpus, result_words

F = aether.FUNCTIONS
N = 100_000


def words(f, out):
    return result_words(f, out, "aos")


def fraction_flagged(f, ours, numpy_result):
    bad = mismatches(f, words(f, ours), words(f, np.ascontiguousarray(numpy_result, dtype=f.dtype)))
    return float(bad.mean())


def test_numpy_normalize_is_flagged():
    f = F["vec3f_normalize"]
    v = np.random.default_rng(5).uniform(-1, 1, size=(N, 3)).astype(np.float32)
    frac = fraction_flagged(f, aether.vec3f_normalize_aos(v), v / np.linalg.norm(v, axis=1, keepdims=True))
    print("vec3f normalize: numpy differs on %.2f%% of rows" % (100 * frac))
    assert frac > 0.3


def test_numpy_mat4_product_is_flagged():
    f = F["mat4f_mul"]
    rng = np.random.default_rng(6)
    a = rng.uniform(-1, 1, size=(N // 10, 4, 4)).astype(np.float32)
    b = rng.uniform(-1, 1, size=(N // 10, 4, 4)).astype(np.float32)
    frac = fraction_flagged(f, aether.mat4f_mul_aos(a, b), a @ b)
    print("mat4f mul: numpy's a @ b differs on %.2f%% of products" % (100 * frac))
    assert frac > 0.9


def test_corpus_check_fails_a_numpy_normalize():
    """The corpus test's own steps, with numpy's normalize in the place of the core's."""
    f = F["vec3f_normalize"]
    rows = read_corpus()[f.c_name]
    ins = np.array([r[1] for r in rows], dtype=np.uint64)
    exp = np.array([r[2] for r in rows], dtype=np.uint64)
    (v,) = inputs_from_words(f, ins, "aos")
    with np.errstate(all="ignore"):
        wrong = np.ascontiguousarray(v / np.linalg.norm(v, axis=1, keepdims=True))
    bad = mismatches(f, exp, result_words(f, wrong, "aos"))
    print("vec3f normalize: numpy fails %d of %d corpus cases" % (bad.sum(), len(bad)))
    assert bad.sum() > len(bad) // 10
    assert not mismatches(f, exp, result_words(f, aether.vec3f_normalize_aos(v), "aos")).any()


@pytest.mark.parametrize("f", functions(), ids=[f.name for f in functions()])
def test_one_changed_word_is_flagged(f):
    """The core's own result with one word changed (the last bit of a number, a NaN for a
    number, a truth value flipped) is flagged at that item and nowhere else."""
    rng = np.random.default_rng(7)
    n = 17
    args = [rng.uniform(0.1, 0.9, size=(n,) + tuple(item)).astype(f.dtype) for item in f.in_items]
    out = getattr(aether, f.name + "_aos")(*args, **({} if f.params else {"n": n}))
    good = words(f, out)
    for change in ("ulp", "nan", "truth"):
        bad = good.copy()
        if f.truth != (change == "truth"):
            continue
        if change == "ulp":
            bad[5, -1] ^= 1
        elif change == "nan":
            if np.isnan(good[5, 0:1].astype(np.uint32 if f.bits == 32 else np.uint64).view(f.dtype)).any():
                continue
            bad[5, 0] = 0x7FC00000 if f.bits == 32 else 0x7FF8000000000000
        else:
            bad[5, 0] ^= 1
        flagged = mismatches(f, good, bad)
        assert flagged[5] and flagged.sum() == 1, change


def test_signed_zero_is_flagged_unless_granted():
    strict = F["vec3f_add"]
    assert not strict.either_zero
    z = np.zeros((1, 3), np.uint64)
    nz = z.copy()
    nz[0, 0] = 0x80000000
    assert mismatches(strict, z, nz).all()
    granted = [f for f in functions() if f.either_zero]
    for f in granted:
        zz = np.zeros((1, f.out_words), np.uint64)
        neg = zz.copy()
        neg[0, 0] = 0x80000000 if f.bits == 32 else 0x8000000000000000
        assert not mismatches(f, zz, neg).any()
