"""Shared by the tests: the committed corpus read back (fences checked), words <-> arrays in
both forms, and the contract's comparison policy on whole arrays."""
import glob
import hashlib
import os
import re

import numpy as np

import aether

REPO = os.environ.get("AETHER_REPO") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(REPO, "corpus")

_ROW = re.compile(r"^\s*\{(.*)/\* => \*/(.*)\},?\s*$")
_ARRAY = re.compile(r"^static const uint(32|64)_t aether_corpus_(\w+)\[(\d+)\]\[(\d+)\] = \{$")


def _words(text):
    return [int(w.strip().rstrip("ul").rstrip("u"), 16) for w in text.split(",") if w.strip()]


def read_corpus():
    """{c_name: [(label, input words, expected words)]} for every fixed-width table of every
    corpus part (the kernels' record tables are skipped: no batched form takes them)."""
    out = {}
    parts = sorted(glob.glob(os.path.join(CORPUS, "*.h")))
    if not parts:
        raise RuntimeError("no corpus under %s (set AETHER_REPO to the repository root)" % CORPUS)
    for path in parts:
        name = os.path.basename(path)
        if name == "aether_c_corpus.h":
            continue
        text = open(path, encoding="utf-8").read()
        lines = text.split("\n")
        m1 = re.match(r"^/\* aether-corpus-part: (\S+) md5: ([0-9a-f]+) \*/$", lines[0])
        m2 = re.match(r"^/\* aether-corpus-part-end: (\S+) md5: ([0-9a-f]+) \*/$", lines[-2])
        assert m1 and m2 and m1.groups() == m2.groups() and lines[-1] == "", "%s: bad fences" % name
        body = "\n".join(lines[1:-2]) + "\n"
        assert hashlib.md5(body.encode()).hexdigest() == m1.group(2), "%s: md5 of the body differs from the fence" % name
        current, label, width = None, "", 0
        for line in lines[1:-2]:
            t = line.strip()
            a = _ARRAY.match(t)
            if a:
                current, width = [], int(a.group(4))
                out["aether_" + a.group(2)] = current
                continue
            if t.startswith("static const "):
                current = None  # a record table (kernels)
                continue
            if current is None:
                continue
            if t.startswith("/* ") and t.endswith(" */"):
                label = t[3:-3]
                continue
            r = _ROW.match(t)
            if r:
                ins, exp = _words(r.group(1)), _words(r.group(2))
                assert len(ins) + len(exp) == width, "%s: a row of the wrong width" % name
                current.append((label, ins, exp))
    return out


def uint_dtype(f):
    return np.dtype(np.uint32 if f.bits == 32 else np.uint64)


def inputs_from_words(f, rows, form):
    """The arrays of each parameter for `rows` (a (n, in_words) unsigned array), in `form`."""
    rows = np.asarray(rows, dtype=uint_dtype(f))
    n = rows.shape[0]
    arrays, at = [], 0
    for words, item in zip(f.in_words, f.in_items):
        block = rows[:, at:at + words].copy().view(f.dtype)
        at += words
        if form == "aos":
            arrays.append(np.ascontiguousarray(block.reshape((n,) + tuple(item))))
        else:
            arrays.append(np.ascontiguousarray(block.T).reshape(tuple(item) + (n,)))
    return arrays


def result_words(f, out, form):
    """The (n, out_words) unsigned words of a result array of `form`."""
    if f.truth:
        return out.astype(np.uint64).reshape(-1, 1)
    n = out.shape[0] if form == "aos" else out.shape[-1]
    flat = out.reshape(n, f.out_words) if form == "aos" else out.reshape(f.out_words, n).T
    return np.ascontiguousarray(flat).view(uint_dtype(f)).astype(np.uint64)


def mismatches(f, expected, actual):
    """Per item, True where a result word breaks the policy: the bits equal, or both NaN (any
    payload), or +0 against -0 where the function's either_zero grants it."""
    expected = np.asarray(expected, dtype=np.uint64)
    actual = np.asarray(actual, dtype=np.uint64)
    assert expected.shape == actual.shape, (expected.shape, actual.shape)
    bad = expected != actual
    if not f.truth:
        if f.bits == 32:
            e, a = expected.astype(np.uint32).view(np.float32), actual.astype(np.uint32).view(np.float32)
            mag = np.uint64(0x7FFFFFFF)
        else:
            e, a = expected.view(np.float64), actual.view(np.float64)
            mag = np.uint64(0x7FFFFFFFFFFFFFFF)
        bad &= ~(np.isnan(e) & np.isnan(a))
        if f.either_zero:
            bad &= ~(((expected & mag) == 0) & ((actual & mag) == 0))
    return bad.any(axis=1)


def describe(f, rows, expected, actual, bad, labels=None, limit=5):
    lines = []
    for i in np.flatnonzero(bad)[:limit]:
        lab = (labels[i] + ": ") if labels else ""
        lines.append("%s%s(%s) expected %s got %s" % (
            lab, f.name, " ".join("%x" % w for w in rows[i]), " ".join("%x" % w for w in expected[i]),
            " ".join("%x" % w for w in actual[i])))
    return "%d of %d items differ:\n  %s" % (int(bad.sum()), len(bad), "\n  ".join(lines))


def functions():
    return list(aether.FUNCTIONS.values())
