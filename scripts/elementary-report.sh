#!/usr/bin/env bash
# The elementary functions' accuracy and speed: builds tests/c/elementary_report.c
# with the shipped C core (gcc -O2, the core's own flags; OpenMP for the f32
# sweep), runs it and writes docs/reports/elementary-functions.md.
#
#   scripts/elementary-report.sh [F64_INPUTS_PER_BINADE] [--check [F32_STRIDE]]
#
# F64_INPUTS_PER_BINADE (default 100000) random inputs per binade of the f64
# domain (and for sin and cos as many next to multiples of pi/2). Every f32
# input is swept (about 5 minutes on 2 cores). --check writes no report and fails when a
# stated target is missed (f32 at most 1 ulp from the correctly rounded
# result, f64 under 2 ulp, NaN outside the domain, no undecided reference),
# timing nothing; with F32_STRIDE only every F32_STRIDE-th f32 input (CI's
# bounded run: scripts/test.sh). An f32 case that neither binary64 nor long
# double decides is decided here with mpmath (pip install mpmath; installed
# when such a case turns up and it is missing).
set -euo pipefail
cd "$(dirname "$0")/.."
per=${1:-100000}
check=0
mode=all
stride=1
if [ "${2:-}" = --check ]; then
    check=1
    mode=accuracy
    stride=${3:-1}
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags="-std=c99 -D_GNU_SOURCE -O2 -ffp-contract=off"
gcc $flags -fopenmp -Ic_core tests/c/elementary_report.c c_core/aether_core.c -lm -o "$tmp/report"
t0=$SECONDS
"$tmp/report" "$per" "$mode" "$stride" | tee "$tmp/out"
secs=$((SECONDS - t0))
python3 - "$tmp/out" "$check" "$per" "$secs" "$flags" <<'PY'
import sys, subprocess, platform, datetime
out, check, per, secs, flags = sys.argv[1], sys.argv[2] == "1", sys.argv[3], sys.argv[4], sys.argv[5]
acc, tim, und = [], [], []
for line in open(out):
    f = line.strip().split("|")
    {"acc": acc, "time": tim, "und": und}[f[0]].append(f[1:])
# The f32 cases long double could not decide: the correctly rounded binary32 result from mpmath
# at 300 bits, then the row's counts corrected. Such a case is either within 2^-60 of a rounding
# boundary or exactly on one: exp2(-150) = 2^-150 is half the least subnormal, and mpmath's nint
# rounds a tie to even, as binary32 does.
resolved = {}
if und:
    import struct
    try:
        import mpmath as mp
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "mpmath"], check=True)
        import mpmath as mp
    mp.mp.prec = 300
    fns = {"sin": mp.sin, "cos": mp.cos, "atan": mp.atan, "exp": mp.exp, "log": mp.log,
           "exp2": lambda v: mp.power(2, v), "log2": lambda v: mp.log(v, 2), "asin": mp.asin, "acos": mp.acos, "tan": mp.tan,
           "pow": mp.power}
    def f32_bits(v):
        return struct.unpack("<I", struct.pack("<f", v))[0]
    def order(b):
        return b if b < 0x80000000 else 0x80000000 - b
    for name, ty, xs, ys in und:
        # One input, or pow's two ("x,y").
        args = [mp.mpf(float.fromhex(a)) for a in xs.split(",")]
        y = float.fromhex(ys)
        exact = fns[name](*args)
        m, e = mp.frexp(exact)
        e = max(int(e), -125)  # binary32's subnormals share the least normal exponent's grid
        c = float(mp.ldexp(mp.nint(mp.ldexp(exact, 24 - e)), e - 24))
        c = struct.unpack("<f", struct.pack("<f", c))[0]
        dist = abs(order(f32_bits(y)) - order(f32_bits(c)))
        r = resolved.setdefault(name, [0, 0, 0])
        r[0] += 1
        r[1] += y == c
        r[2] = max(r[2], dist)
        print(f"elementary-report: {name} f32 at {xs}: decided by mpmath, the result {'is' if y == c else 'is not'} the correctly rounded one ({dist} ulp)")
    for row in acc:
        if row[1] == "f32" and row[0] in resolved:
            n_res, n_cr, dmax = resolved[row[0]]
            n = int(row[3])
            row[7] = f"{(float(row[7]) * n + n_cr) / n:.6f}"
            row[6] = str(max(int(row[6]), dmax))
            row[9] = str(int(row[9]) - n_res)
bad = []
for name, ty, dom, n, err, worst, dist, share, ld, und, outside in acc:
    if ty == "f32" and (int(dist) > 1 or int(und) > 0):
        bad.append(f"{name} {ty}: {dist} ulp from the correctly rounded result, {und} undecided")
    if ty == "f64" and float(err) >= 2.0:
        bad.append(f"{name} {ty}: {err} ulp")
    if int(outside) > 0:
        bad.append(f"{name} {ty}: {outside} inputs outside the domain do not give NaN")
if check:
    for b in bad:
        print("elementary-report: MISSED:", b)
    print("elementary-report:", "all targets met" if not bad else f"{len(bad)} targets missed")
    sys.exit(1 if bad else 0)
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
glibc = subprocess.run(["ldd", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
L = []
L.append("# Elementary functions: accuracy and speed\n")
L.append("Written by `bash scripts/elementary-report.sh` (the program is `tests/c/elementary_report.c`); do not edit by hand.\n")
L.append(f"The functions are the C core's `aether_f32_sin`, `aether_f32_cos`, `aether_f32_tan`, `aether_f32_atan`, `aether_f32_atan2`, `aether_f32_exp`, "
         "`aether_f32_log`, `aether_f32_exp2`, `aether_f32_log2`, `aether_f32_pow`, `aether_f32_asin`, `aether_f32_acos` and their f64 forms (and `sincos`, "
         "the same bits as sin and cos), as `spec/aether.toml` states them from + - * / alone: sin and cos by a four-part Cody-Waite "
         "reduction by pi/2 with exact two-sums, Horner polynomials in r^2 and the quadrant by exact floating-point steps; tan on "
         "the same reduction by its own Horner polynomial in v^2 (v = r, or pi/4 - |r| past 43/64, then (1 - tan v) / (1 + tan v)), "
         "-1 / tan on odd quadrants with the division's rounding corrected by Dekker's exact product; atan by four "
         "breakpoints, one division with an exact numerator, a constant in two parts and a Horner polynomial in t^2; atan2 by the same "
         "reduction on |y| and |x| (no ratio formed) with constants pi - c for a negative x; exp by a two-part reduction by ln 2 (its "
         "rounding kept by a two-sum), a Horner polynomial in r and a scaling by 2^k built exactly from powers of two (one rounding); "
         "log by taking the exponent out exactly with powers of two, 2 atanh(f / (2 + f)) by a Horner polynomial, and k ln 2 in two "
         "parts; exp2 as exp with k = round(x) and 2^r by a split product with ln 2 in two parts; log2 as log with the division by "
         "ln 2 carried in parts (exact at powers of two); pow as exp(y log |x|) with log |x| in two parts (log's exponent, then the "
         "nearest of nine centres c and 2 atanh((m - c) / (m + c)) with the ratio in two parts), y log |x| by Dekker's exact product "
         "and exp's steps taking both parts, with C99's special values; asin and acos by one Horner polynomial in z = x^2 below 1/2 and, past it, in "
         "z = (1 - |x|) / 2 with asin |x| = pi/2 - 2 asin(sqrt z), the rounding of sqrt z carried by a Veltkamp split and one "
         "division. The C core gives the "
         "reference's bits on the corpus and random inputs (`scripts/c-random.sh`) and on every f32 input of each one-input function, "
         "with slices of atan2 and pow (`scripts/sweep.sh --plan full`, `docs/reports/exhaustive-f32.md`); the CUDA core gives the C "
         "core's bits on every f32 input on an H200 (`docs/reports/cuda-device.md`). The CUDA, OpenCL (PoCL) and WGSL runners run them "
         "like every function; WGSL lists every one but atan `unbounded` (their trees rest on rounding to nearest: shifters, splits, "
         "two-sums, which the WGSL printer guards; measured on a GPU, held to the reference's bits on the CPU stacks, which round to "
         "nearest) and bounds atan `forward`; relaxed OpenCL lists them `unbounded` but keeps exp's and exp2's bits (they divide "
         "nothing).\n")
L.append("## Accuracy\n")
L.append("| function | type | inputs | count | max error (ulp) | at | max distance to the correctly rounded result (ulp) | correctly rounded | decided by long double | undecided | outside the domain, not NaN |")
L.append("|---|---|---|---:|---:|---|---:|---:|---:|---:|---:|")
for name, ty, dom, n, err, worst, dist, share, ld, und, outside in acc:
    L.append(f"| {name} | {ty} | {dom} | {n} | {float(err):.4f} | `{worst}` | {dist} | {100*float(share):.3f} % | {ld} | {und} | {outside} |")
L.append("")
L.append("- **Domain**: sin, cos and tan: |x| <= 8192 (f32), |x| <= 2^20 (f64), where k * P1, k * P2 and k * P3 are exact; outside it, and "
         "for +-inf and NaN, the result is NaN. atan and exp: every input (atan(+-inf) = +-pi/2 rounded; exp overflows to +inf and "
         "underflows through the subnormals to +0 as one rounding; exp2 alike), NaN gives NaN. log and log2: x >= -0 (-inf at +-0, "
         "+inf at +inf); "
         "x < 0 and NaN give NaN. asin and acos: [-1, 1] (asin(+-1) = +-pi/2 rounded, acos(1) = +0, acos(-1) = pi rounded); "
         "|x| > 1 and NaN give NaN. pow: every pair, with C99's special values (pow(x, +-0) = pow(1, y) = 1, NaN included; "
         "+-0 and +-inf by the sign of y, signed for an odd y; y = +-inf by |x| against 1); a negative finite x to a non-integer y "
         "gives NaN; past the range +-inf and through the subnormals +-0 as one rounding. The last column counts "
         "the inputs outside the domain whose result is not NaN (for f64: 2e6, 1e300, +-inf and NaN for sin, cos and tan; NaN for atan and "
         "exp and exp2; -1e-300, -1, -inf and NaN for log and log2; +-(1 + 2^-52), -2, 1e300, +-inf and NaN for asin and acos; for pow, both "
         "types: a negative x to a non-integer y three ways, and NaN with 1, 2, NaN, -1 and 0 in the pairs C99 makes NaN).")
L.append("- **max error** is |computed - exact| in ulps of the result (exact: glibc's binary64 result for f32, the x87 long double "
         "sinl/cosl/atanl for f64, powl for pow). Under 1 is faithful.")
L.append("- **The correctly rounded f32 result**: glibc's binary64 result rounded once, unless it lies within 2^-50 (relative) of a binary32 "
         "rounding boundary, where the long double function decides (counted); a case still within 2^-60 of the boundary there is "
         "decided by mpmath at 300 bits (" + (", ".join(f"{k}: {v[0]}" for k, v in sorted(resolved.items())) or "none this run") + ") and "
         "the row's counts corrected, so the undecided column stays 0.")
L.append(f"- **f64 inputs**: {per} random inputs per binade (either sign), from 2^-30 to 2^20 for sin, cos and tan with as many next to "
         "multiples of pi/2 (the nearest double to k pi/2 and up to 3 ulps either side, the hard cases of the reduction), and from 2^-40 "
         "to 2^40 for atan (every interval of its reduction), from 2^-60 to 2^10 for exp (either sign: past overflow and into the "
         "subnormals; exp2 to 2^11), and positive inputs in every binade from 2^-1074 to 2^1023 for log and log2 (a twentieth as "
         "many per binade), and from 2^-40 to 1 for asin and acos (either sign); pow's pairs are in its row, four kinds by turns (the "
         "f32 row has 100 times, the f64 row 40 times, the per-binade count). The "
         "correctly rounded share for f64 compares with long double rounded once.")
L.append("")
L.append("## Speed against glibc\n")
L.append("ns per call on 4096 inputs in [-100, 100], in cache, each function beside glibc's in interleaved rounds, the best of 200 rounds "
         "each (a benchmark: the machine is shared, the ratio is the figure). `sincos` is the sum of both results, against glibc's "
         "`sincosf`/`sincos`; exp takes 0.8 x (in [-80, 80]), exp2 1.2 x, log and log2 |x|, asin and acos x / 100, pow |x| / 10 to "
         "y / 10, both sides alike.\n")
L.append("| function | aether (ns) | glibc (ns) | ratio |")
L.append("|---|---:|---:|---:|")
for name, a, g, r in tim:
    L.append(f"| {name} | {a} | {g} | {r} |")
L.append("")
L.append("The cost of determinism: atan evaluates every interval's numerator, denominator and constant and selects (no branch); "
         "exp builds 2^k from the bits of round(k/2) (exact floors, one factor per bit, no branch) and log takes the exponent out by one "
         "comparison pair per bit (no table, no bit "
         "cast, no ldexp: every core has + - * and selects), where glibc reads the exponent field and a table; "
         "and every product of the core passes the per-product guard (`aether_product_*`), which pins it so no "
         "compiler fuses it (a register pin per product), and the reduction carries its roundings in two two-sums; glibc promises "
         "no bits beyond its own accuracy bound, and other libraries give other bits.")
L.append("")
L.append("These are calls of the shipped object compiled by gcc, one at a time. In a caller's loop, clang's header-only form on "
         "x86-64 (`AETHER_VECTOR_INLINE`) vectorises each of these functions across items with the same bits "
         "(`tests/tests/inline_loops.rs`); `docs/reports/performance.md` times those loops against glibc's.")
L.append("")
L.append("## Machine and command\n")
L.append(f"- CPU: {cpu}; nproc {subprocess.run(['nproc'], capture_output=True, text=True).stdout.strip()}")
L.append(f"- {glibc}; {gcc}; flags `{flags}` (OpenMP for the f32 sweep)")
L.append(f"- commit {rev}; date (UTC) {datetime.datetime.utcnow():%Y-%m-%d %H:%M}; run time {secs} s")
L.append(f"- command: `bash scripts/elementary-report.sh {per}`")
if bad:
    L.append("\n**Targets missed:** " + "; ".join(bad))
open("docs/reports/elementary-functions.md", "w").write("\n".join(L) + "\n")
print("elementary-report: wrote docs/reports/elementary-functions.md")
PY
