"""Every batched function, both forms, on random inputs, against the hand-written Rust
reference's results (reference/examples/py_ref.rs): 203 items per function (whole vector steps
and a scalar rest), values of every magnitude plus the special values.

The reference runs as $AETHER_PY_REF (a built py_ref binary; scripts/python.sh builds it), else
through `cargo run -q -p aether-reference --example py_ref` in the repository. With neither the
test fails: it is not skipped."""
import os
import shutil
import subprocess

import numpy as np
import pytest

import aether
from helpers import REPO, describe, functions, inputs_from_words, mismatches, result_words, uint_dtype

ITEMS = 203
FUNCS = functions()


def random_words(f, rng, n):
    """n rows of input words: numbers with exponents over [-20, 20]; in about one row in four,
    about one word in five a special value (zeros, infinities, NaNs, subnormals, the extremes)."""
    k = sum(f.in_words)
    ftype = f.dtype.type
    mant = rng.uniform(1.0, 2.0, size=(n, k))
    sign = rng.choice([-1.0, 1.0], size=(n, k))
    expo = rng.integers(-20, 21, size=(n, k))
    vals = (sign * np.ldexp(mant, expo)).astype(f.dtype)
    fi = np.finfo(f.dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, fi.tiny, -fi.tiny, fi.tiny * fi.eps, fi.max, -fi.max, 1.0, -1.0], dtype=f.dtype)
    pick = (rng.random(size=(n, 1)) < 0.25) & (rng.random(size=(n, k)) < 0.2)
    vals[pick] = rng.choice(specials, size=int(pick.sum()))
    return np.ascontiguousarray(vals.astype(ftype)).view(uint_dtype(f)).astype(np.uint64)


def reference_command():
    exe = os.environ.get("AETHER_PY_REF")
    if exe:
        return [exe]
    if shutil.which("cargo") and os.path.isfile(os.path.join(REPO, "reference", "examples", "py_ref.rs")):
        return ["cargo", "run", "-q", "-p", "aether-reference", "--example", "py_ref"]
    pytest.fail("no reference: set AETHER_PY_REF to a built py_ref, or run from the repository with cargo")


@pytest.fixture(scope="module")
def reference_results():
    rng = np.random.default_rng(20261207)
    inputs, lines = {}, []
    for f in FUNCS:
        rows = random_words(f, rng, ITEMS)
        inputs[f.name] = rows
        for r in rows:
            lines.append("%s %s %s %s" % (f.family, f.shape, f.elem, " ".join("%x" % w for w in r)))
    done = subprocess.run(reference_command(), input="\n".join(lines) + "\n", capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, "the reference failed: %s" % done.stderr[-2000:]
    out = done.stdout.split("\n")
    assert len(out) == len(lines) + 1 and out[-1] == "", "the reference answered %d lines for %d" % (len(out) - 1, len(lines))
    results, at = {}, 0
    for f in FUNCS:
        results[f.name] = np.array([[int(w, 16) for w in line.split()] for line in out[at:at + ITEMS]], dtype=np.uint64)
        at += ITEMS
    return inputs, results


@pytest.mark.parametrize("form", ["aos", "soa"])
@pytest.mark.parametrize("f", FUNCS, ids=[f.name for f in FUNCS])
def test_batched_form_against_reference(f, form, reference_results):
    inputs, results = reference_results
    rows, exp = inputs[f.name], results[f.name]
    assert exp.shape == (ITEMS, f.out_words)
    kw = {} if f.params else {"n": ITEMS}
    out = getattr(aether, "%s_%s" % (f.name, form))(*inputs_from_words(f, rows, form), **kw)
    got = result_words(f, out, form)
    bad = mismatches(f, exp, got)
    assert not bad.any(), describe(f, rows, exp, got, bad)
