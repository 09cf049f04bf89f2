"""Every batched function, both forms, and every scalar function, on every corpus case the
committed corpus has for it: the contract's bits (NaN for NaN, +0/-0 where the spec allows)."""
import numpy as np
import pytest

import aether
from helpers import describe, functions, inputs_from_words, mismatches, read_corpus, result_words

CORPUS = read_corpus()
FUNCS = functions()
IDS = [f.name for f in FUNCS]


def test_every_function_has_corpus_cases():
    missing = [f.c_name for f in FUNCS if not CORPUS.get(f.c_name)]
    assert not missing, "no corpus table for %s" % missing
    assert len(FUNCS) == len(aether._core.table.FUNCTIONS) > 200


def cases(f):
    rows = CORPUS[f.c_name]
    labels = [r[0] for r in rows]
    ins = np.array([r[1] for r in rows], dtype=np.uint64)
    exp = np.array([r[2] for r in rows], dtype=np.uint64)
    assert ins.shape[1] == sum(f.in_words) and exp.shape[1] == f.out_words, "the corpus and the table disagree on %s" % f.name
    return labels, ins, exp


@pytest.mark.parametrize("form", ["aos", "soa"])
@pytest.mark.parametrize("f", FUNCS, ids=IDS)
def test_batched_form_on_corpus(f, form):
    labels, ins, exp = cases(f)
    # Twice over, so that the vector steps (8 or 4 items) and the scalar rest both see every case.
    rows2, exp2, labels2 = np.concatenate([ins, ins[::-1]]), np.concatenate([exp, exp[::-1]]), labels + labels[::-1]
    kw = {} if f.params else {"n": len(rows2)}
    out = getattr(aether, "%s_%s" % (f.name, form))(*inputs_from_words(f, rows2, form), **kw)
    got = result_words(f, out, form)
    bad = mismatches(f, exp2, got)
    assert not bad.any(), describe(f, rows2, exp2, got, bad, labels2)


@pytest.mark.parametrize("f", FUNCS, ids=IDS)
def test_scalar_function_on_corpus(f):
    labels, ins, exp = cases(f)
    scalar = getattr(aether, f.name)
    got = []
    arrays = inputs_from_words(f, ins, "aos")
    for i in range(len(ins)):
        r = scalar(*[x[i] if x.ndim > 1 else x[i] for x in arrays])
        if f.truth:
            got.append([int(r)])
        else:
            got.append(np.asarray(r, dtype=f.dtype).reshape(-1).view(np.uint32 if f.bits == 32 else np.uint64).astype(np.uint64))
    got = np.array(got, dtype=np.uint64).reshape(exp.shape)
    bad = mismatches(f, exp, got)
    assert not bad.any(), describe(f, ins, exp, got, bad, labels)
