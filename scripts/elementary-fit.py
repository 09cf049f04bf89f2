#!/usr/bin/env python3
"""The polynomial fits of the elementary functions in spec/aether.toml.

Prints, for a function and an element type, the Chebyshev interpolant of the
polynomial the spec evaluates (in u = t*t), computed at 200 bits and rounded
once to the type, as the spec's bit patterns, and the fit's error measured at
200 bits on a dense grid (the rounded coefficients, exact arithmetic: the
error of the approximation alone; the evaluated error is the accuracy
report's, docs/reports/elementary-functions.md).

    python3 scripts/elementary-fit.py atan f32   # needs mpmath (pip install mpmath)
    python3 scripts/elementary-fit.py pow-table f64   # pow's constants

atan: atan(t) = t + (t u) P(u) on |t| <= 7/16 (the reduced argument), so
P(u) = (atan(sqrt u) / sqrt u - 1) / u on u in [0, (7/16)^2].
exp: exp(r) = 1 + r + (r r) P(r) on |r| <= 0.35 (a little over ln2 / 2, the
reduced argument's reach), so P(r) = (exp(r) - 1 - r) / r^2, a polynomial in
r itself.
exp2: 2^r = 1 + r ln 2 + (r r) P(r) on |r| <= 1/2, so P(r) = (2^r - 1 - r ln 2)
/ r^2. (log2 uses log's polynomial.)
log: log(1 + f) = f - (h - s (h + z P(z))) with h = f f / 2, s = f / (2 + f)
and z = s s (the identity log(1 + f) = 2 atanh(s) = 2s + s z P(z) and 2s = f -
s f), so P(z) = (log((1 + s) / (1 - s)) / s - 2) / z on z in [0, 0.0295]
(|s| <= (sqrt 2 - 1) / (sqrt 2 + 1) = 0.1716 for 1 + f in [sqrt 1/2, sqrt 2]).
tan: tan(v) = v + (v u) P(u) with u = v v on |v| <= 43/64 (sincos's reduced
argument r below 43/64, else pi/4 - |r| <= 0.114), so P(u) = (tan(sqrt u) /
sqrt u - 1) / u on u in [0, (43/64)^2].
pow: log(m / c) = 2 atanh(s) = 2s + s z P(z), s = (m - c) / (m + c), z = s s,
on z in [0, 0.00047] (|s| <= 0.02166 with nine c, `pow-table` prints them and
the exact reach), so P is log's target on a shorter interval.
asin (and acos): asin(a) = a + (a z) P(z) with z = a a on a <= 1/2, and the
same P at z = (1 - a) / 2 <= 1/4 past 1/2 (asin a = pi/2 - 2 asin(sqrt z)), so
P(z) = (asin(sqrt z) / sqrt z - 1) / z on z in [0, 1/4].
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


def target_exp(r):
    if r == 0:
        return mp.mpf(1) / 2
    with mp.workprec(200 + 8 * max(0, -int(mp.log(abs(r), 2)))):  # exp(r) - 1 - r cancels near 0
        return (mp.exp(r) - 1 - r) / (r * r)


def target_exp2(r):
    if r == 0:
        return mp.log(2) ** 2 / 2
    with mp.workprec(200 + 8 * max(0, -int(mp.log(abs(r), 2)))):  # 2^r - 1 - r ln 2 cancels near 0
        return (mp.power(2, r) - 1 - r * mp.log(2)) / (r * r)


def target_log(z):
    if z == 0:
        return mp.mpf(2) / 3
    s = mp.sqrt(z)
    return (mp.log((1 + s) / (1 - s)) / s - 2) / z


def target_asin(z):
    if z == 0:
        return mp.mpf(1) / 6
    a = mp.sqrt(z)
    return (mp.asin(a) / a - 1) / z


def error_asin(z, p):
    # relative error of a + (a z) P(z) against asin a, a = sqrt z
    a = mp.sqrt(z)
    exact = mp.asin(a)
    return abs((a + a * z * p) / exact - 1) if exact else mp.mpf(0)


def target_tan(u):
    if u == 0:
        return mp.mpf(1) / 3
    r = mp.sqrt(u)
    return (mp.tan(r) / r - 1) / u


def error_tan(u, p):
    # relative error of r + (r u) P(u) against tan r, r = sqrt u
    r = mp.sqrt(u)
    exact = mp.tan(r)
    return abs((r + r * u * p) / exact - 1) if exact else mp.mpf(0)


def error_atan(u, p):
    # relative error of t + t u P(u) against atan t, t = sqrt u
    t = mp.sqrt(u)
    exact = mp.atan(t)
    return abs((t + t * u * p) / exact - 1) if exact else mp.mpf(0)


def error_exp(r, p):
    # relative error of 1 + r + r^2 P(r) against exp r
    return abs((1 + r + r * r * p) / mp.exp(r) - 1)


def error_exp2(r, p):
    # relative error of 1 + r ln 2 + r^2 P(r) against 2^r
    return abs((1 + r * mp.log(2) + r * r * p) / mp.power(2, r) - 1)


def error_log(z, p):
    # relative error of f - (h - s (h + z P(z))) against log(1 + f), for both
    # signs of s = sqrt z (f = 2s / (1 - s))
    worst = mp.mpf(0)
    for s in (mp.sqrt(z), -mp.sqrt(z)):
        if s == 0:
            continue
        f = 2 * s / (1 - s)
        h = f * f / 2
        exact = mp.log(1 + f)
        worst = max(worst, abs((f - (h - s * (h + z * p))) / exact - 1))
    return worst


def error_pow(z, p):
    # relative error of 2s + s z P(z) against 2 atanh(s) = log((1 + s) / (1 -
    # s)), s = sqrt z (odd in s, so one sign serves)
    s = mp.sqrt(z)
    if s == 0:
        return mp.mpf(0)
    exact = mp.log((1 + s) / (1 - s))
    return abs((2 * s + s * z * p) / exact - 1)


FITS = {
    # function: (the polynomial's target, its interval, degree per type, the
    # relative error of the evaluated form at a point given the polynomial's value)
    "atan": (target_atan, (mp.mpf(0), (mp.mpf(7) / 16) ** 2), {"f32": 4, "f64": 11}, error_atan),
    "exp": (target_exp, (-mp.mpf("0.35"), mp.mpf("0.35")), {"f32": 5, "f64": 10}, error_exp),
    "exp2": (target_exp2, (-mp.mpf("0.5"), mp.mpf("0.5")), {"f32": 5, "f64": 10}, error_exp2),
    "tan": (target_tan, (mp.mpf(0), mp.mpf("0.671875") ** 2), {"f32": 5, "f64": 12}, error_tan),
    "asin": (target_asin, (mp.mpf(0), mp.mpf("0.25")), {"f32": 5, "f64": 12}, error_asin),
    "log": (target_log, (mp.mpf(0), mp.mpf("0.0295")), {"f32": 2, "f64": 6}, error_log),
    "pow": (target_log, (mp.mpf(0), mp.mpf("0.000470")), {"f32": 1, "f64": 4}, error_pow),
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


def round_bits(x, n):
    # x rounded once to n significant bits (ties to even)
    if x == 0:
        return mp.mpf(0)
    m, e = mp.frexp(x)
    return mp.ldexp(mp.nint(m * 2**n), int(e) - n)


def pow_table(ty):
    # pow's second reduction and its constants: c_j = 2^(j/8) rounded (j =
    # -4..4), the breakpoints 2^((2j-1)/16) rounded (j = -3..4), log c_j in
    # two parts (hi rounded, lo the rest rounded), ln 2 in three parts (two
    # of p - 11 bits, f32 p - 8, so k L1 and k L2 are exact for |k| < 2^11,
    # f32 2^8; the third rounded), and the reach of s = (m - c) / (m + c).
    p = 24 if ty == "f32" else 53
    rnd = round_f32_once if ty == "f32" else float
    cs = [round_bits(mp.power(2, mp.mpf(j) / 8), p) for j in range(-4, 5)]
    ts = [round_bits(mp.power(2, mp.mpf(2 * j - 1) / 16), p) for j in range(-3, 5)]
    edges = [cs[0]] + ts + [cs[-1]]
    sigma = max(abs(m - c) / (m + c) for j, c in enumerate(cs) for m in edges[j:j + 2])
    print(f"# pow {ty}: |s| <= {mp.nstr(sigma, 8)}, s^2 <= {mp.nstr(sigma ** 2, 8)}")
    for j, t in enumerate(ts):
        print(f"t{j + 1} = {bits(float(t), ty)}  # {float(t)!r}")
    for j, c in enumerate(cs):
        lc = mp.log(c)
        hi = rnd(lc)
        lo = rnd(lc - mp.mpf(hi))
        print(f"c{j} = {bits(float(c), ty)}  log hi {bits(hi, ty)}  lo {bits(lo, ty)}")
    short = p - (8 if ty == "f32" else 11)
    l1 = round_bits(mp.log(2), short)
    l2 = round_bits(mp.log(2) - l1, short)
    l3 = mp.log(2) - l1 - l2
    print(f"ln2 = {bits(float(l1), ty)} + {bits(float(l2), ty)} + {bits(rnd(l3), ty)}")


def main():
    name, ty = sys.argv[1], sys.argv[2]
    if name == "pow-table":
        pow_table(ty)
        return
    f, (lo, hi), degrees, error = FITS[name]
    n = degrees[ty] + 1 if len(sys.argv) < 4 else int(sys.argv[3]) + 1
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
        worst = max(worst, error(u, p))
    unit = mp.mpf(2) ** (-24 if ty == "f32" else -53)
    print(f"# {name} {ty}: degree {n - 1} on [{mp.nstr(lo, 6)}, {mp.nstr(hi, 6)}], "
          f"max relative error of the evaluated form in exact arithmetic {mp.nstr(worst / unit, 4)} u "
          f"(u = 2^{-24 if ty == 'f32' else -53})")
    for j, cj in enumerate(coeffs):
        print(f"c{j} = {bits(cj, ty)}  # {cj!r}")


if __name__ == "__main__":
    main()
