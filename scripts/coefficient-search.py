#!/usr/bin/env python3
"""Native search for inputs of the elementary functions that see one coefficient's last bit.

    python3 scripts/coefficient-search.py [--tries N] [--jobs J] [--seed S] FAMILY:HEX ...

Every coefficient is seen by a case of its polynomial's own function (`[families.<name>_poly]`,
tests/coefficients.rs), where any argument is allowed; this searches for the harder witness, an
input of the functions that call it (how the functions' own "the last bit of coefficient ..."
cases were found). For each FAMILY:HEX (FAMILY a key of AIMS below, HEX the coefficient's bits),
a copy of the shipped C core is made with that coefficient's last bit flipped in the text
(every occurrence of its exact decimal literal), both copies are compiled header-only
(tests/c/coefficient_core.c) and linked beside tests/c/coefficient_search.c, and the functions
that use the coefficient are called on N random inputs (default 2^30) aimed where the
polynomial's argument is largest (AIMS below); an f32 function of one input then takes every
one of its 2^32 inputs, so that a coefficient still unseen is shown equivalent on it. Each witness is
printed as a case line for the `cases` of the family of the function it moves
(spec/aether.toml); `cargo test -p aether-tests --test coefficients` then checks the corpus
through the generator's interpreter, with the mutant exactly as the Rust search makes it.

A last-bit change of coefficient c_i of a polynomial in u moves the result by about
2^-p |c_i| u^i of it (p: the precision), so an input sees it about that often: an aimed native
search reaches what a 2^22-input search through the interpreter cannot, down to about 2^-32.
Past that (the high-order f64 terms: down to 2^-47) no search of the functions' inputs does,
which is why each polynomial is a function of its own.
"""
import argparse
import decimal
import os
import re
import struct
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORE = os.path.join(ROOT, "c_core")
TESTS_C = os.path.join(ROOT, "tests", "c")
FLAGS = ["-std=c99", "-O2", "-ffp-contract=off", "-D_GNU_SOURCE"]


def both(r):
    """A range and its negation: (lo, hi) -> [(lo, hi), (-hi, -lo)]."""
    lo, hi = r
    return [(lo, hi), (-hi, -lo)]


# Where each family's polynomial argument is largest, by the family's reduction (spec/aether.toml):
# per family, the functions that use its coefficients, each with its x ranges (and y ranges for
# a two-input function). "all" for an f32 one-input function: every one of the 2^32 inputs, so
# that a coefficient no input sees is shown equivalent on that function, not merely unfound.
PI4 = 0.7853981633974483
LN2_2 = 0.34657359027997264
EXP_X = both((0.30, LN2_2)) + both((LN2_2, 0.40))
ASIN_X = both((0.44, 0.5)) + both((0.5, 0.56))
AIMS = {
    # r = x - k pi/2 near +-pi/4: quadrant 0 below pi/4 and quadrant 1 just past it.
    "sincos": [("sincos", both((0.70, PI4)) + both((PI4, 0.87)), None)],
    # v = r below 43/64 = 0.671875, where tan's own polynomial is used at its widest.
    "tan": [("tan", both((0.60, 0.671875)), None)],
    # t = x for |x| < 7/16, the widest interval of the reduction; atan2 reduces |y| against
    # |x| the same way.
    "atan": [("atan", both((0.40, 0.4375)), None), ("atan2", both((0.40, 0.4375)), [(1.0, 1.0)])],
    # r = x - k ln 2 near +-ln 2 / 2; pow reaches exp's steps (exp_finish) with any r and a
    # low part, where exp's inputs give only the r of the f32 or f64 grid.
    "exp": [("exp", EXP_X, None), ("pow", [(1.5, 4.0)], [(-40.0, 40.0)])],
    # r = x - k near +-1/2.
    "exp2": [("exp2", both((0.42, 0.5)) + both((0.5, 0.58)), None)],
    # m near the ends of log's reduction interval, k = 0: s = f / (2 + f) at its widest.
    "log": [(f, [(1.33, 1.41421356), (0.7071068, 0.75)], None) for f in ("log", "log2")],
    # z = x^2 near 1/4 below |x| = 1/2, and z = (1 - |x|) / 2 near 1/4 above it.
    "asin": [("asin", ASIN_X, None), ("acos", ASIN_X, None)],
    # x at the edge of the centre 1 (s at its widest), |y log x| up to about 700.
    "pow": [("pow", [(1.035, 1.0442), (0.958, 0.966)], [(8000.0, 16000.0), (-16000.0, -8000.0)])],
}
# f32: every input of the one-input functions, after the aimed tries found none.
EVERY = "all"


def value(bits, word):
    if bits == 32:
        return struct.unpack("<f", struct.pack("<I", word))[0]
    return struct.unpack("<d", struct.pack("<Q", word))[0]


def literal(bits, word):
    """The core's digits for |value|: the generator prints exact decimals (an f32 one is then
    followed by f, which mutant_core matches)."""
    return format(decimal.Decimal(abs(value(bits, word))), "f")


def mutant_core(bits, word, where):
    """A copy of c_core with the coefficient's last bit flipped; the number of replacements."""
    src = open(os.path.join(CORE, "aether_core.c")).read()
    old, new = literal(bits, word), literal(bits, word ^ 1)
    tail = "f" if bits == 32 else ""
    pattern = re.compile(r"(?<![0-9.])" + re.escape(old + tail) + r"(?![0-9f])")
    out, n = pattern.subn(new + tail, src)
    os.makedirs(where, exist_ok=True)
    open(os.path.join(where, "aether_core.c"), "w").write(out)
    with open(os.path.join(CORE, "aether_core.h")) as f:
        open(os.path.join(where, "aether_core.h"), "w").write(f.read())
    return n


def cc(args):
    subprocess.run(["gcc", *FLAGS, *args], check=True)


def search(job):
    bits, word, family, tries, seed, tmp, orig_obj, driver_obj = job
    name = f"{word:0{bits // 4}X}"
    where = os.path.join(tmp, name)
    n = mutant_core(bits, word, where)
    if n == 0:
        return f"# f{bits} 0x{name} ({family}): its literal is not in the C core's text"
    mut_obj = os.path.join(where, "mut.o")
    cc(["-I" + where, "-I" + TESTS_C, "-DPREFIX=mut_", "-c", os.path.join(TESTS_C, "coefficient_core.c"), "-o", mut_obj])
    exe = os.path.join(where, "search")
    cc([driver_obj, orig_obj, mut_obj, "-lm", "-o", exe])
    lines = []
    for fn, xs, ys in AIMS[family]:
        full = f"aether_f{bits}_{fn}"
        plans = [(str(tries), ",".join(f"{lo!r}:{hi!r}" for lo, hi in xs))]
        if bits == 32 and ys is None:
            plans.append(("0", EVERY))
        for count, xtext in plans:
            args = [exe, full, count, str((word & 0xFFFF) + (seed << 16)), xtext]
            if ys is not None:
                args.append(",".join(f"{lo!r}:{hi!r}" for lo, hi in ys))
            r = subprocess.run(args, capture_output=True, text=True)
            out = r.stdout.strip()
            if out.startswith("witness "):
                inputs, after = out[len("witness "):].rsplit(" after ", 1)
                # The case belongs to the family of the function that sees it.
                return (
                    f'{fn}: "the last bit of coefficient 0x{name} (f{bits}) moves {full} here: {inputs}",'
                    f"  # after {after} tries ({n} literal(s) replaced)"
                )
            lines.append(f"{full}: {out or r.stderr.strip()}")
    return f"# none: f{bits} 0x{name} ({family}, {n} literal(s) replaced): " + "; ".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tries", type=int, default=1 << 30)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    # Another stream of random inputs (a second run on other inputs, e.g. one per core).
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("hex", nargs="+", metavar="FAMILY:HEX")
    a = ap.parse_args()
    bad = [h for h in a.hex if h.count(":") != 1]
    if bad:
        sys.exit(f"coefficient-search: name each coefficient as FAMILY:HEX (e.g. sincos:BF56C16C16C16966), not {bad}")
    named = [h.split(":") for h in a.hex]
    todo = [(32 if len(h.removeprefix("0x")) <= 8 else 64, int(h.removeprefix("0x"), 16), f) for f, h in named]
    missing = [t for t in todo if t[2] not in AIMS]
    if missing:
        sys.exit(f"coefficient-search: no aim for the families {sorted({t[2] for t in missing})}")
    with tempfile.TemporaryDirectory() as tmp:
        orig_obj, driver_obj = os.path.join(tmp, "orig.o"), os.path.join(tmp, "driver.o")
        cc(["-I" + CORE, "-I" + TESTS_C, "-DPREFIX=orig_", "-c", os.path.join(TESTS_C, "coefficient_core.c"), "-o", orig_obj])
        cc(["-I" + TESTS_C, "-c", os.path.join(TESTS_C, "coefficient_search.c"), "-o", driver_obj])
        jobs = [(b, w, f, a.tries, a.seed, tmp, orig_obj, driver_obj) for b, w, f in todo]
        found = 0
        with ThreadPoolExecutor(max_workers=a.jobs) as pool:
            for line in pool.map(search, jobs):
                print(line, flush=True)
                found += not line.startswith("#")
        print(f"# {found} of {len(jobs)} coefficients witnessed ({a.tries} tries per function)")
    # 0 when every coefficient searched was seen (CI's control: one the corpus already sees).
    sys.exit(0 if found == len(jobs) else 1)


if __name__ == "__main__":
    main()
