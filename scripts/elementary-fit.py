#!/usr/bin/env python3
"""The polynomial fits of the elementary functions in spec/aether.toml.

Prints, for a function and an element type, the Chebyshev interpolant of the
polynomial the spec evaluates (in u = t*t), computed at 200 bits and rounded
once to the type, as the spec's bit patterns, and the fit's error measured at
200 bits on a dense grid (the rounded coefficients, exact arithmetic: the
error of the approximation alone; the evaluated error is the accuracy
report's, docs/reports/elementary-functions.md).

    python3 scripts/elementary-fit.py atan f32   # needs mpmath (pip install mpmath)

atan: atan(t) = t + (t u) P(u) on |t| <= 7/16 (the reduced argument), so
P(u) = (atan(sqrt u) / sqrt u - 1) / u on u in [0, (7/16)^2].
"""
import struct
import sys

import mpmath as mp

mp.mp.prec = 200


def target_atan(u):
    if u == 0:
        return mp.mpf(-1) / 3
    t = mp.sqrt(u)
    return (mp.atan(t) / t - 1) / u


FITS = {
    # function: (the polynomial's target, the interval of u, degree per type)
    "atan": (target_atan, (mp.mpf(0), (mp.mpf(7) / 16) ** 2), {"f32": 4, "f64": 11}),
}



def round_f32_once(x):
    # Round an mpf to binary32 once (not through binary64).
    if x == 0:
        return 0.0
    m, e = mp.frexp(x)  # x = m * 2^e, 0.5 <= |m| < 1
    scaled = mp.nint(m * 2**24)
    return float(mp.ldexp(scaled, int(e) - 24))


def bits(x, ty):
    if ty == "f32":
        return "f32_bits(0x%08X)" % struct.unpack("<I", struct.pack("<f", x))[0]
    return "f64_bits(0x%016X)" % struct.unpack("<Q", struct.pack("<d", x))[0]


def main():
    name, ty = sys.argv[1], sys.argv[2]
    f, (lo, hi), degrees = FITS[name]
    n = degrees[ty] + 1
    nodes = [(lo + hi) / 2 + (hi - lo) / 2 * mp.cos(mp.pi * (2 * k + 1) / (2 * n)) for k in range(n)]
    a = mp.matrix([[x**j for j in range(n)] for x in nodes])
    c = mp.lu_solve(a, mp.matrix([f(x) for x in nodes]))
    coeffs = [round_f32_once(c[j]) if ty == "f32" else float(c[j]) for j in range(n)]
    worst = mp.mpf(0)
    for k in range(2001):
        u = lo + (hi - lo) * k / 2000
        p = mp.mpf(0)
        for cj in reversed(coeffs):
            p = p * u + mp.mpf(cj)
        t = mp.sqrt(u)
        approx = t + t * u * p
        exact = mp.atan(t) if t else mp.mpf(0)
        if exact:
            worst = max(worst, abs(approx / exact - 1))
    unit = mp.mpf(2) ** (-24 if ty == "f32" else -53)
    print(f"# {name} {ty}: degree {n - 1} in u on [{mp.nstr(lo, 6)}, {mp.nstr(hi, 6)}], "
          f"max relative error of t + t u P(u) {mp.nstr(worst / unit, 4)} u (u = 2^{-24 if ty == 'f32' else -53})")
    for j, cj in enumerate(coeffs):
        print(f"c{j} = {bits(cj, ty)}  # {cj!r}")


if __name__ == "__main__":
    main()
