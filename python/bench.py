"""Benchmark (not a test): the package's batched calls against the numpy expression a numpy user
would write for the same thing, side by side in one run, on the same arrays. Prints a Markdown
table: the best of REPEAT runs of each, their ratio (numpy time / aether time: above 1 means the
aether call is faster), and the share of items where numpy's result differs from the contract's
bits (NaN for NaN).

    python bench.py [N]        (N items per call, default 1000000; the mat4 rows use N / 4)
"""
import os
import platform
import sys
import time

import numpy as np

# The installed package, not the source folder beside this file (which has no built library).
if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(os.path.abspath(__file__)):
    sys.path.pop(0)
import aether  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
REPEAT = 7


def best(fn):
    fn()
    times = []
    for _ in range(REPEAT):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def differs(ours, theirs):
    ours, theirs = np.asarray(ours), np.asarray(theirs, dtype=ours.dtype)
    n = ours.shape[0]
    a, b = ours.reshape(n, -1), theirs.reshape(n, -1)
    u = np.uint32 if ours.dtype == np.float32 else np.uint64
    bad = (a.view(u) != b.view(u)) & ~(np.isnan(a) & np.isnan(b))
    return float(bad.any(axis=1).mean())


def main():
    rng = np.random.default_rng(49)

    def f32(*shape):
        return rng.uniform(-1, 1, size=shape).astype(np.float32)

    def f64(*shape):
        return rng.uniform(-1, 1, size=shape)

    v3a, v3b = f32(N, 3), f32(N, 3)
    v3a_soa, v3b_soa = np.ascontiguousarray(v3a.T), np.ascontiguousarray(v3b.T)
    d3a, d3b = f64(N, 3), f64(N, 3)
    m = N // 4
    m4a, m4b, v4 = f32(m, 4, 4), f32(m, 4, 4), f32(m, 4)
    d4a, d4b = f64(m, 4, 4), f64(m, 4, 4)
    m3 = f32(N, 3, 3)
    x = rng.uniform(-10, 10, size=N).astype(np.float32)
    rows = [
        ("vec3f_add_aos", N, lambda: aether.vec3f_add_aos(v3a, v3b), "a + b", lambda: v3a + v3b),
        ("vec3f_dot_aos", N, lambda: aether.vec3f_dot_aos(v3a, v3b), "np.einsum('ij,ij->i', a, b)",
         lambda: np.einsum("ij,ij->i", v3a, v3b)),
        ("vec3f_dot_soa", N, lambda: aether.vec3f_dot_soa(v3a_soa, v3b_soa), "(a * b).sum(axis=0) (SoA)",
         lambda: (v3a_soa * v3b_soa).sum(axis=0)),
        ("vec3d_dot_aos", N, lambda: aether.vec3d_dot_aos(d3a, d3b), "np.einsum('ij,ij->i', a, b)",
         lambda: np.einsum("ij,ij->i", d3a, d3b)),
        ("vec3f_norm_aos", N, lambda: aether.vec3f_norm_aos(v3a), "np.linalg.norm(a, axis=1)",
         lambda: np.linalg.norm(v3a, axis=1)),
        ("vec3f_normalize_aos", N, lambda: aether.vec3f_normalize_aos(v3a), "a / np.linalg.norm(a, axis=1, keepdims=True)",
         lambda: v3a / np.linalg.norm(v3a, axis=1, keepdims=True)),
        ("vec3f_cross_aos", N, lambda: aether.vec3f_cross_aos(v3a, v3b), "np.cross(a, b)", lambda: np.cross(v3a, v3b)),
        ("mat3f_determinant_aos", N, lambda: aether.mat3f_determinant_aos(m3), "np.linalg.det(m)", lambda: np.linalg.det(m3)),
        ("mat4f_mul_aos", m, lambda: aether.mat4f_mul_aos(m4a, m4b), "a @ b", lambda: m4a @ m4b),
        ("mat4d_mul_aos", m, lambda: aether.mat4d_mul_aos(d4a, d4b), "a @ b", lambda: d4a @ d4b),
        ("mat4f_mul_vec_aos", m, lambda: aether.mat4f_mul_vec_aos(m4a, v4), "np.einsum('nij,nj->ni', m, v)",
         lambda: np.einsum("nij,nj->ni", m4a, v4)),
        ("f32_sin_aos", N, lambda: aether.f32_sin_aos(x), "np.sin(x)", lambda: np.sin(x)),
        ("f32_exp_aos", N, lambda: aether.f32_exp_aos(x), "np.exp(x)", lambda: np.exp(x)),
    ]
    print("aether %s, numpy %s, Python %s, %s; n = %d (mat4 rows n = %d); best of %d"
          % (aether.CONTRACT_VERSION, np.__version__, platform.python_version(), platform.machine(), N, m, REPEAT))
    print()
    print("| aether call | numpy expression | items | aether ms | numpy ms | numpy / aether | numpy differs |")
    print("|---|---|---:|---:|---:|---:|---:|")
    with np.errstate(all="ignore"):
        for name, n, ours, expr, theirs in rows:
            ta, tn = best(ours), best(theirs)
            print("| `%s` | `%s` | %d | %.2f | %.2f | %.2f | %.2f%% |" % (name, expr, n, ta * 1e3, tn * 1e3, tn / ta, 100 * differs(ours(), theirs())))


if __name__ == "__main__":
    main()
