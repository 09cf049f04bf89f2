//! The per-lane linear algebra of the C core ([rules.linalg]) against
//! independent truth: backward errors of LU, Cholesky, the solves and the
//! inverse, the Jacobi eigen-decomposition's residual and orthogonality, and
//! the determinant and eigenvalues against nalgebra (in f64). Then every
//! `_lanes` form against its single form bit for bit, and the singular and
//! edge behaviour (zero pivots, non-SPD input, pivot ties).
//!
//! Residuals are evaluated from the C results widened to f64 with exact
//! products (fused multiply-add) and error-free sums, so even for the f64
//! core the measured error is the core's, not the checker's.

use std::fmt::Debug;
use std::os::raw::c_int;

use aether_generator::rng::SplitMix64;
use aether_tests::sys;
use nalgebra::{DMatrix, DVector};

/// Random matrices per routine, size and type.
const COUNT: usize = 20_000;

// The bounds, each in units of n * eps (eps = f32::EPSILON or f64::EPSILON of
// the core's element type): the smallest round constant that holds the
// measured maxima with margin. The maxima over all six (size, type) cases,
// with COUNT matrices each (the same at 40,000), are in the comments; each
// run prints its own.
/// ||P A - L U||_F / ||A||_F: max 0.20 (f64 n=2).
const C_LU: f64 = 1.0;
/// ||A - L L^T||_F / ||A||_F: max 0.46 (f32 n=2).
const C_CHOL: f64 = 1.0;
/// ||A x - b||_2 / (||A||_F ||x||_2) for lu_solve, cholesky_solve and the
/// four triangular solves: max 0.69 (cholesky_solve f32 n=2); lu_solve
/// 0.45, triangular 0.36.
const C_SOLVE: f64 = 1.0;
/// ||A X - I||_F / (||A||_F ||X||_F): max 0.29 (f64 n=2).
const C_INV: f64 = 1.0;
/// |det_lu - det(nalgebra)| / |det(nalgebra)|: max 0.82 (f64 n=4; for f64
/// nalgebra's own rounding is part of it).
const C_DET: f64 = 2.0;
/// ||A V - V diag(w)||_F / ||A||_F: max 1.36 (f32 n=2).
const C_EIG_RES: f64 = 2.0;
/// ||V^T V - I||_F: max 1.31 (f64 n=4).
const C_EIG_ORTH: f64 = 2.0;
/// max_i |w_i - w_i(nalgebra)| / ||A||_F, sorted ascending: max 0.66 for
/// f32 but 2.63 for f64 (f64 n=3), where nalgebra's f64 eigenvalues are no
/// more accurate than the core's (see C_EIG_RQ).
const C_EIG_VAL: f64 = 4.0;
/// max_i |w_i - rho_i| / ||A||_F, rho_i the Rayleigh quotient of nalgebra's
/// i-th eigenvector evaluated in about twice the precision, sorted: a
/// reference accurate to about eps_f64 |w_i| + ||r_i||^2 / gap, so good
/// enough for the f64 core too: max 0.90 (f64 n=2).
const C_EIG_RQ: f64 = 2.0;
/// ||x - x(nalgebra)||_2 / (||x(nalgebra)||_2 kappa_F(A)), the lu_solve
/// forward error scaled by the condition number: max 0.29 (f32 n=2).
const C_FWD: f64 = 1.0;

/// Lanes per many-lane batch are drawn from 0..=MAX_LANES; BATCHES batches
/// per routine, size and type.
const MAX_LANES: u64 = 9;
const BATCHES: usize = 1000;

// ------------------------------------------------------------------ the core

/// An element type of the core.
trait Elem: Copy + Debug + PartialEq + 'static {
    const NAME: &'static str;
    const EPS: f64;
    /// The least subnormal.
    const TINY: Self;
    /// The nearest value to `x`.
    fn of(x: f64) -> Self;
    /// Exact widening to f64.
    fn wide(self) -> f64;
    /// The bit pattern, widened to u64.
    fn bits(self) -> u64;
}

impl Elem for f32 {
    const NAME: &'static str = "f32";
    const EPS: f64 = f32::EPSILON as f64;
    const TINY: Self = f32::from_bits(1);
    fn of(x: f64) -> Self {
        x as f32
    }
    fn wide(self) -> f64 {
        f64::from(self)
    }
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
}

impl Elem for f64 {
    const NAME: &'static str = "f64";
    const EPS: f64 = f64::EPSILON;
    const TINY: Self = f64::from_bits(1);
    fn of(x: f64) -> Self {
        x
    }
    fn wide(self) -> f64 {
        self
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

/// The vector solves that share one signature: (matrix, b) -> x.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Solve {
    Lower,
    LowerUnit,
    Upper,
    UpperUnit,
    Cholesky,
}

impl Solve {
    const TRIANGULAR: [Solve; 4] = [Solve::Lower, Solve::LowerUnit, Solve::Upper, Solve::UpperUnit];
    fn name(self) -> &'static str {
        match self {
            Solve::Lower => "solve_lower",
            Solve::LowerUnit => "solve_lower_unit",
            Solve::Upper => "solve_upper",
            Solve::UpperUnit => "solve_upper_unit",
            Solve::Cholesky => "cholesky_solve",
        }
    }
}

/// One (size, type) of the C core's linear algebra. Matrices are row-major
/// slices of N * N elements, vectors slices of N; a many-lane call takes and
/// gives `count` of them one after another.
trait Case {
    type E: Elem;
    const N: usize;

    fn lu(a: &[Self::E]) -> (Vec<Self::E>, Vec<c_int>, c_int);
    fn lu_lanes(a: &[Self::E]) -> (Vec<Self::E>, Vec<c_int>, Vec<c_int>);
    fn lu_solve(lu: &[Self::E], ipiv: &[c_int], b: &[Self::E]) -> Vec<Self::E>;
    fn lu_solve_lanes(lu: &[Self::E], ipiv: &[c_int], b: &[Self::E]) -> Vec<Self::E>;
    fn solve(kind: Solve, a: &[Self::E], b: &[Self::E]) -> Vec<Self::E>;
    fn solve_lanes(kind: Solve, a: &[Self::E], b: &[Self::E]) -> Vec<Self::E>;
    fn det_lu(a: &[Self::E]) -> Self::E;
    fn det_lu_lanes(a: &[Self::E]) -> Vec<Self::E>;
    fn inverse(a: &[Self::E]) -> (Vec<Self::E>, c_int);
    fn inverse_lanes(a: &[Self::E]) -> (Vec<Self::E>, Vec<c_int>);
    fn cholesky(a: &[Self::E]) -> (Vec<Self::E>, c_int);
    fn cholesky_lanes(a: &[Self::E]) -> (Vec<Self::E>, Vec<c_int>);
    /// (w, v): eigenvalues, eigenvectors as the columns of v.
    fn eigh(a: &[Self::E]) -> (Vec<Self::E>, Vec<Self::E>);
    fn eigh_lanes(a: &[Self::E]) -> (Vec<Self::E>, Vec<Self::E>);

    fn label() -> String {
        format!("{} n={}", Self::E::NAME, Self::N)
    }
}

/// Panics unless every pivot is a valid 1-based row index: lu_solve indexes
/// the vector with them.
fn assert_pivots(ipiv: &[c_int], n: usize) {
    assert!(ipiv.iter().all(|&p| p >= 1 && p as usize <= n), "pivots out of range: {ipiv:?}");
}

macro_rules! case {
    ($case:ident: $e:ty, $n:literal, $m:ident, $v:ident { $($f:ident),+ },
     lu = $lu:ident / $lu_l:ident, lu_solve = $lus:ident / $lus_l:ident,
     solve_lower = $sl:ident / $sl_l:ident, solve_lower_unit = $slu:ident / $slu_l:ident,
     solve_upper = $su:ident / $su_l:ident, solve_upper_unit = $suu:ident / $suu_l:ident,
     cholesky_solve = $cs:ident / $cs_l:ident, det_lu = $det:ident / $det_l:ident,
     inverse = $inv:ident / $inv_l:ident, cholesky = $ch:ident / $ch_l:ident, eigh = $eig:ident / $eig_l:ident) => {
        #[derive(Debug)]
        struct $case;

        impl $case {
            fn m(a: &[$e]) -> sys::$m {
                sys::$m { m: a.try_into().unwrap() }
            }
            fn ms(a: &[$e]) -> Vec<sys::$m> {
                assert_eq!(a.len() % ($n * $n), 0);
                a.chunks_exact($n * $n).map(Self::m).collect()
            }
            fn v(b: &[$e]) -> sys::$v {
                assert_eq!(b.len(), $n);
                let mut it = b.iter().copied();
                sys::$v { $($f: it.next().unwrap()),+ }
            }
            fn vs(b: &[$e]) -> Vec<sys::$v> {
                assert_eq!(b.len() % $n, 0);
                b.chunks_exact($n).map(Self::v).collect()
            }
            fn unv(v: &sys::$v) -> Vec<$e> {
                vec![$(v.$f),+]
            }
            fn unvs(v: &[sys::$v]) -> Vec<$e> {
                v.iter().flat_map(Self::unv).collect()
            }
            fn unms(m: &[sys::$m]) -> Vec<$e> {
                m.iter().flat_map(|m| m.m).collect()
            }
        }

        impl Case for $case {
            type E = $e;
            const N: usize = $n;

            fn lu(a: &[$e]) -> (Vec<$e>, Vec<c_int>, c_int) {
                let mut m = Self::m(a);
                let mut ipiv: [c_int; $n] = [0; $n];
                // SAFETY: m is one matrix and ipiv holds the N ints the declaration asks for.
                let info = unsafe { sys::$lu(&mut m, ipiv.as_mut_ptr()) };
                (m.m.to_vec(), ipiv.to_vec(), info)
            }
            fn lu_lanes(a: &[$e]) -> (Vec<$e>, Vec<c_int>, Vec<c_int>) {
                let mut m = Self::ms(a);
                let count = m.len();
                let mut ipiv: Vec<c_int> = vec![0; count * $n];
                let mut info: Vec<c_int> = vec![0; count];
                // SAFETY: count matrices, count * N pivots and count infos, as many as the call reads and writes.
                unsafe { sys::$lu_l(m.as_mut_ptr(), ipiv.as_mut_ptr(), info.as_mut_ptr(), count) };
                (Self::unms(&m), ipiv, info)
            }
            fn lu_solve(lu: &[$e], ipiv: &[c_int], b: &[$e]) -> Vec<$e> {
                assert_eq!(ipiv.len(), $n);
                assert_pivots(ipiv, $n);
                let m = Self::m(lu);
                // SAFETY: one matrix, N pivots each in 1..=N (checked above), so every index the C code forms is in range.
                let x = unsafe { sys::$lus(&m, ipiv.as_ptr(), Self::v(b)) };
                Self::unv(&x)
            }
            fn lu_solve_lanes(lu: &[$e], ipiv: &[c_int], b: &[$e]) -> Vec<$e> {
                let m = Self::ms(lu);
                let b = Self::vs(b);
                let count = m.len();
                assert_eq!(b.len(), count);
                assert_eq!(ipiv.len(), count * $n);
                assert_pivots(ipiv, $n);
                let mut x = vec![Self::v(&[0.0; $n]); count];
                // SAFETY: count matrices, vectors and results and count * N pivots in 1..=N (checked above).
                unsafe { sys::$lus_l(m.as_ptr(), ipiv.as_ptr(), b.as_ptr(), x.as_mut_ptr(), count) };
                Self::unvs(&x)
            }
            fn solve(kind: Solve, a: &[$e], b: &[$e]) -> Vec<$e> {
                let f: unsafe extern "C" fn(sys::$m, sys::$v) -> sys::$v = match kind {
                    Solve::Lower => sys::$sl,
                    Solve::LowerUnit => sys::$slu,
                    Solve::Upper => sys::$su,
                    Solve::UpperUnit => sys::$suu,
                    Solve::Cholesky => sys::$cs,
                };
                // SAFETY: the solves take and return plain values and read nothing else.
                let x = unsafe { f(Self::m(a), Self::v(b)) };
                Self::unv(&x)
            }
            fn solve_lanes(kind: Solve, a: &[$e], b: &[$e]) -> Vec<$e> {
                let f: unsafe extern "C" fn(*const sys::$m, *const sys::$v, *mut sys::$v, usize) = match kind {
                    Solve::Lower => sys::$sl_l,
                    Solve::LowerUnit => sys::$slu_l,
                    Solve::Upper => sys::$su_l,
                    Solve::UpperUnit => sys::$suu_l,
                    Solve::Cholesky => sys::$cs_l,
                };
                let m = Self::ms(a);
                let b = Self::vs(b);
                let count = m.len();
                assert_eq!(b.len(), count);
                let mut x = vec![Self::v(&[0.0; $n]); count];
                // SAFETY: count matrices, vectors and results, as many as the call reads and writes.
                unsafe { f(m.as_ptr(), b.as_ptr(), x.as_mut_ptr(), count) };
                Self::unvs(&x)
            }
            fn det_lu(a: &[$e]) -> $e {
                // SAFETY: takes and returns plain values.
                unsafe { sys::$det(Self::m(a)) }
            }
            fn det_lu_lanes(a: &[$e]) -> Vec<$e> {
                let m = Self::ms(a);
                let mut d: Vec<$e> = vec![0.0; m.len()];
                // SAFETY: count matrices and count results.
                unsafe { sys::$det_l(m.as_ptr(), d.as_mut_ptr(), m.len()) };
                d
            }
            fn inverse(a: &[$e]) -> (Vec<$e>, c_int) {
                let mut inv = Self::m(&[0.0; $n * $n]);
                // SAFETY: inv is one matrix to write.
                let info = unsafe { sys::$inv(Self::m(a), &mut inv) };
                (inv.m.to_vec(), info)
            }
            fn inverse_lanes(a: &[$e]) -> (Vec<$e>, Vec<c_int>) {
                let m = Self::ms(a);
                let count = m.len();
                let mut inv = vec![Self::m(&[0.0; $n * $n]); count];
                let mut info: Vec<c_int> = vec![0; count];
                // SAFETY: count matrices in, count matrices and count infos out.
                unsafe { sys::$inv_l(m.as_ptr(), inv.as_mut_ptr(), info.as_mut_ptr(), count) };
                (Self::unms(&inv), info)
            }
            fn cholesky(a: &[$e]) -> (Vec<$e>, c_int) {
                let mut m = Self::m(a);
                // SAFETY: m is one matrix, factorised in place.
                let info = unsafe { sys::$ch(&mut m) };
                (m.m.to_vec(), info)
            }
            fn cholesky_lanes(a: &[$e]) -> (Vec<$e>, Vec<c_int>) {
                let mut m = Self::ms(a);
                let count = m.len();
                let mut info: Vec<c_int> = vec![0; count];
                // SAFETY: count matrices in place and count infos.
                unsafe { sys::$ch_l(m.as_mut_ptr(), info.as_mut_ptr(), count) };
                (Self::unms(&m), info)
            }
            fn eigh(a: &[$e]) -> (Vec<$e>, Vec<$e>) {
                let mut w = Self::v(&[0.0; $n]);
                let mut v = Self::m(&[0.0; $n * $n]);
                // SAFETY: w and v are one vector and one matrix to write.
                unsafe { sys::$eig(Self::m(a), &mut w, &mut v) };
                (Self::unv(&w), v.m.to_vec())
            }
            fn eigh_lanes(a: &[$e]) -> (Vec<$e>, Vec<$e>) {
                let m = Self::ms(a);
                let count = m.len();
                let mut w = vec![Self::v(&[0.0; $n]); count];
                let mut v = vec![Self::m(&[0.0; $n * $n]); count];
                // SAFETY: count matrices in, count vectors and count matrices out.
                unsafe { sys::$eig_l(m.as_ptr(), w.as_mut_ptr(), v.as_mut_ptr(), count) };
                (Self::unvs(&w), Self::unms(&v))
            }
        }
    };
}

case!(M2f: f32, 2, aether_mat2f, aether_vec2f { x, y },
    lu = aether_mat2f_lu / aether_mat2f_lu_lanes, lu_solve = aether_mat2f_lu_solve / aether_mat2f_lu_solve_lanes,
    solve_lower = aether_mat2f_solve_lower / aether_mat2f_solve_lower_lanes,
    solve_lower_unit = aether_mat2f_solve_lower_unit / aether_mat2f_solve_lower_unit_lanes,
    solve_upper = aether_mat2f_solve_upper / aether_mat2f_solve_upper_lanes,
    solve_upper_unit = aether_mat2f_solve_upper_unit / aether_mat2f_solve_upper_unit_lanes,
    cholesky_solve = aether_mat2f_cholesky_solve / aether_mat2f_cholesky_solve_lanes,
    det_lu = aether_mat2f_det_lu / aether_mat2f_det_lu_lanes, inverse = aether_mat2f_inverse / aether_mat2f_inverse_lanes,
    cholesky = aether_mat2f_cholesky / aether_mat2f_cholesky_lanes, eigh = aether_mat2f_eigh / aether_mat2f_eigh_lanes);
case!(M3f: f32, 3, aether_mat3f, aether_vec3f { x, y, z },
    lu = aether_mat3f_lu / aether_mat3f_lu_lanes, lu_solve = aether_mat3f_lu_solve / aether_mat3f_lu_solve_lanes,
    solve_lower = aether_mat3f_solve_lower / aether_mat3f_solve_lower_lanes,
    solve_lower_unit = aether_mat3f_solve_lower_unit / aether_mat3f_solve_lower_unit_lanes,
    solve_upper = aether_mat3f_solve_upper / aether_mat3f_solve_upper_lanes,
    solve_upper_unit = aether_mat3f_solve_upper_unit / aether_mat3f_solve_upper_unit_lanes,
    cholesky_solve = aether_mat3f_cholesky_solve / aether_mat3f_cholesky_solve_lanes,
    det_lu = aether_mat3f_det_lu / aether_mat3f_det_lu_lanes, inverse = aether_mat3f_inverse / aether_mat3f_inverse_lanes,
    cholesky = aether_mat3f_cholesky / aether_mat3f_cholesky_lanes, eigh = aether_mat3f_eigh / aether_mat3f_eigh_lanes);
case!(M4f: f32, 4, aether_mat4f, aether_vec4f { x, y, z, w },
    lu = aether_mat4f_lu / aether_mat4f_lu_lanes, lu_solve = aether_mat4f_lu_solve / aether_mat4f_lu_solve_lanes,
    solve_lower = aether_mat4f_solve_lower / aether_mat4f_solve_lower_lanes,
    solve_lower_unit = aether_mat4f_solve_lower_unit / aether_mat4f_solve_lower_unit_lanes,
    solve_upper = aether_mat4f_solve_upper / aether_mat4f_solve_upper_lanes,
    solve_upper_unit = aether_mat4f_solve_upper_unit / aether_mat4f_solve_upper_unit_lanes,
    cholesky_solve = aether_mat4f_cholesky_solve / aether_mat4f_cholesky_solve_lanes,
    det_lu = aether_mat4f_det_lu / aether_mat4f_det_lu_lanes, inverse = aether_mat4f_inverse / aether_mat4f_inverse_lanes,
    cholesky = aether_mat4f_cholesky / aether_mat4f_cholesky_lanes, eigh = aether_mat4f_eigh / aether_mat4f_eigh_lanes);
case!(M2d: f64, 2, aether_mat2d, aether_vec2d { x, y },
    lu = aether_mat2d_lu / aether_mat2d_lu_lanes, lu_solve = aether_mat2d_lu_solve / aether_mat2d_lu_solve_lanes,
    solve_lower = aether_mat2d_solve_lower / aether_mat2d_solve_lower_lanes,
    solve_lower_unit = aether_mat2d_solve_lower_unit / aether_mat2d_solve_lower_unit_lanes,
    solve_upper = aether_mat2d_solve_upper / aether_mat2d_solve_upper_lanes,
    solve_upper_unit = aether_mat2d_solve_upper_unit / aether_mat2d_solve_upper_unit_lanes,
    cholesky_solve = aether_mat2d_cholesky_solve / aether_mat2d_cholesky_solve_lanes,
    det_lu = aether_mat2d_det_lu / aether_mat2d_det_lu_lanes, inverse = aether_mat2d_inverse / aether_mat2d_inverse_lanes,
    cholesky = aether_mat2d_cholesky / aether_mat2d_cholesky_lanes, eigh = aether_mat2d_eigh / aether_mat2d_eigh_lanes);
case!(M3d: f64, 3, aether_mat3d, aether_vec3d { x, y, z },
    lu = aether_mat3d_lu / aether_mat3d_lu_lanes, lu_solve = aether_mat3d_lu_solve / aether_mat3d_lu_solve_lanes,
    solve_lower = aether_mat3d_solve_lower / aether_mat3d_solve_lower_lanes,
    solve_lower_unit = aether_mat3d_solve_lower_unit / aether_mat3d_solve_lower_unit_lanes,
    solve_upper = aether_mat3d_solve_upper / aether_mat3d_solve_upper_lanes,
    solve_upper_unit = aether_mat3d_solve_upper_unit / aether_mat3d_solve_upper_unit_lanes,
    cholesky_solve = aether_mat3d_cholesky_solve / aether_mat3d_cholesky_solve_lanes,
    det_lu = aether_mat3d_det_lu / aether_mat3d_det_lu_lanes, inverse = aether_mat3d_inverse / aether_mat3d_inverse_lanes,
    cholesky = aether_mat3d_cholesky / aether_mat3d_cholesky_lanes, eigh = aether_mat3d_eigh / aether_mat3d_eigh_lanes);
case!(M4d: f64, 4, aether_mat4d, aether_vec4d { x, y, z, w },
    lu = aether_mat4d_lu / aether_mat4d_lu_lanes, lu_solve = aether_mat4d_lu_solve / aether_mat4d_lu_solve_lanes,
    solve_lower = aether_mat4d_solve_lower / aether_mat4d_solve_lower_lanes,
    solve_lower_unit = aether_mat4d_solve_lower_unit / aether_mat4d_solve_lower_unit_lanes,
    solve_upper = aether_mat4d_solve_upper / aether_mat4d_solve_upper_lanes,
    solve_upper_unit = aether_mat4d_solve_upper_unit / aether_mat4d_solve_upper_unit_lanes,
    cholesky_solve = aether_mat4d_cholesky_solve / aether_mat4d_cholesky_solve_lanes,
    det_lu = aether_mat4d_det_lu / aether_mat4d_det_lu_lanes, inverse = aether_mat4d_inverse / aether_mat4d_inverse_lanes,
    cholesky = aether_mat4d_cholesky / aether_mat4d_cholesky_lanes, eigh = aether_mat4d_eigh / aether_mat4d_eigh_lanes);

/// Runs a generic check for all six (size, type) cases and fails the test
/// with every failure message once all of them have printed their lines.
macro_rules! all_cases {
    ($check:ident) => {{
        let mut log = Log::default();
        $check::<M2f>(&mut log);
        log.flush();
        $check::<M3f>(&mut log);
        log.flush();
        $check::<M4f>(&mut log);
        log.flush();
        $check::<M2d>(&mut log);
        log.flush();
        $check::<M3d>(&mut log);
        log.flush();
        $check::<M4d>(&mut log);
        log.flush();
        log.finish();
    }};
}

/// The printed lines of one check (printed together, so that tests running
/// in parallel do not interleave them) and its failures.
#[derive(Debug, Default)]
struct Log {
    lines: Vec<String>,
    failures: Vec<String>,
}

impl Log {
    fn line(&mut self, line: String) {
        self.lines.push(line);
    }

    fn fail(&mut self, failure: String) {
        self.failures.push(failure);
    }

    fn flush(&mut self) {
        if !self.lines.is_empty() {
            println!("{}", self.lines.join("\n"));
            self.lines.clear();
        }
    }

    /// Fails the test with the first failures once every line is printed.
    fn finish(&self) {
        let shown: Vec<&str> = self.failures.iter().take(20).map(String::as_str).collect();
        assert!(self.failures.is_empty(), "{} failure(s), the first {}:\n{}", self.failures.len(), shown.len(), shown.join("\n"));
    }
}

// ------------------------------------------------------------- f64 helpers

/// Error-free sum: s + e = a + b exactly.
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `init + sum of x * y` over the pairs, as accurate as if computed in twice
/// the working precision (Ogita, Rump and Oishi's Dot2: exact products by
/// fused multiply-add, error-free sums, the errors added at the end).
fn dot2(init: f64, pairs: impl IntoIterator<Item = (f64, f64)>) -> f64 {
    let (mut s, mut c) = (init, 0.0);
    for (x, y) in pairs {
        let p = x * y;
        let pe = x.mul_add(y, -p);
        let (t, te) = two_sum(s, p);
        s = t;
        c += te + pe;
    }
    s + c
}

/// The Rayleigh quotient v^T A v / v^T v, with the sums as accurate as in
/// twice the working precision (each v_j a_jk split exactly into two terms).
fn rayleigh(n: usize, a: &[f64], v: &[f64]) -> f64 {
    let mut pairs = Vec::with_capacity(2 * n * n);
    for j in 0..n {
        for k in 0..n {
            let p = v[j] * a[j * n + k];
            pairs.push((p, v[k]));
            pairs.push((v[j].mul_add(a[j * n + k], -p), v[k]));
        }
    }
    dot2(0.0, pairs) / dot2(0.0, v.iter().map(|&x| (x, x)))
}

/// The Euclidean (Frobenius for a matrix) norm.
fn norm(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt()
}

fn wide<E: Elem>(x: &[E]) -> Vec<f64> {
    x.iter().map(|v| v.wide()).collect()
}

fn round<E: Elem>(x: &[f64]) -> Vec<E> {
    x.iter().map(|&v| E::of(v)).collect()
}

/// `c - a * b` for n x n row-major matrices (c = None: zero), accurately.
fn residual(n: usize, c: Option<&[f64]>, a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut r = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            let init = c.map_or(0.0, |c| c[i * n + j]);
            r[i * n + j] = dot2(init, (0..n).map(|k| (-a[i * n + k], b[k * n + j])));
        }
    }
    r
}

/// `a x - b`, accurately.
fn residual_vec(n: usize, a: &[f64], x: &[f64], b: &[f64]) -> Vec<f64> {
    (0..n).map(|i| dot2(-b[i], (0..n).map(|k| (a[i * n + k], x[k])))).collect()
}

fn transpose(n: usize, a: &[f64]) -> Vec<f64> {
    (0..n * n).map(|k| a[(k % n) * n + k / n]).collect()
}

fn identity(n: usize) -> Vec<f64> {
    (0..n * n).map(|k| if k % (n + 1) == 0 { 1.0 } else { 0.0 }).collect()
}

fn nmat(n: usize, a: &[f64]) -> DMatrix<f64> {
    DMatrix::from_row_slice(n, n, a)
}

/// Keeps the largest value seen; a NaN sticks (and then fails any bound).
fn bump(max: &mut f64, x: f64) {
    if !max.is_nan() && (x.is_nan() || x > *max) {
        *max = x;
    }
}

/// Prints `<routine> <label>: <count> <things>, max <what> = <max> n eps
/// (bound <bound> n eps)` and records a failure when the maximum (in units of
/// n * eps) is not within the bound.
fn report(log: &mut Log, head: &str, count: usize, things: &str, what: &str, max: f64, bound: f64) {
    let line = format!("{head}: {count} {things}, max {what} = {max:.3} n eps (bound {bound} n eps)");
    log.line(line.clone());
    if max.is_nan() || max > bound {
        log.fail(line);
    }
}

// ------------------------------------------------------------------ inputs

/// Uniform in [-1, 1).
fn unit(rng: &mut SplitMix64) -> f64 {
    (rng.next_u64() >> 11) as f64 * (2.0 / (1u64 << 53) as f64) - 1.0
}

/// Uniform in [lo, hi).
fn between(rng: &mut SplitMix64, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * 0.5 * (unit(rng) + 1.0)
}

fn sign(rng: &mut SplitMix64) -> f64 {
    if rng.below(2) == 0 {
        1.0
    } else {
        -1.0
    }
}

/// Entries uniform in [-1, 1], each diagonal entry shifted by +2n or -2n (so
/// strictly diagonally dominant, condition number a few units), and, for
/// every other matrix, the rows shuffled so that partial pivoting has work.
fn lu_input<E: Elem>(rng: &mut SplitMix64, n: usize, shuffle: bool) -> Vec<E> {
    let mut a: Vec<f64> = (0..n * n).map(|_| unit(rng)).collect();
    for i in 0..n {
        a[i * n + i] += sign(rng) * 2.0 * n as f64;
    }
    if shuffle {
        for i in (1..n).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            for k in 0..n {
                a.swap(i * n + k, j * n + k);
            }
        }
    }
    round(&a)
}

/// B B^T + n I with B uniform in [-1, 1] (exactly symmetric after rounding:
/// the f64 sums for (i, j) and (j, i) are the same operations).
fn spd_input<E: Elem>(rng: &mut SplitMix64, n: usize) -> Vec<E> {
    let b: Vec<f64> = (0..n * n).map(|_| unit(rng)).collect();
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            a[i * n + j] = (0..n).map(|k| b[i * n + k] * b[j * n + k]).sum::<f64>() + if i == j { n as f64 } else { 0.0 };
        }
    }
    round(&a)
}

/// Symmetric, entries uniform in [-1, 1].
fn symmetric_input<E: Elem>(rng: &mut SplitMix64, n: usize) -> Vec<E> {
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let x = unit(rng);
            a[i * n + j] = x;
            a[j * n + i] = x;
        }
    }
    round(&a)
}

/// A triangle for `kind` with diagonal magnitudes in [1, 2] (random sign),
/// the rest of the triangle uniform in [-1, 1], and NaN wherever the solve
/// must not read (the other triangle, and the diagonal of a unit solve).
/// Returns the input and the matrix the solve stands for.
fn triangular_input<E: Elem>(rng: &mut SplitMix64, n: usize, kind: Solve) -> (Vec<E>, Vec<f64>) {
    let lower = matches!(kind, Solve::Lower | Solve::LowerUnit);
    let unit_diag = matches!(kind, Solve::LowerUnit | Solve::UpperUnit);
    let mut input = vec![f64::NAN; n * n];
    for i in 0..n {
        for j in 0..n {
            if i == j && !unit_diag {
                input[i * n + j] = sign(rng) * between(rng, 1.0, 2.0);
            } else if i != j && (i > j) == lower {
                input[i * n + j] = unit(rng);
            }
        }
    }
    let input: Vec<E> = round(&input);
    // The triangle the solve stands for, from the rounded input.
    let truth = (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            match (i == j, unit_diag) {
                (true, true) => 1.0,
                (true, false) => input[k].wide(),
                _ if (i > j) == lower => input[k].wide(),
                _ => 0.0,
            }
        })
        .collect();
    (input, truth)
}

/// Unpacks lu's result: L unit lower, U upper.
fn unpack_lu(n: usize, lu: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let mut l = identity(n);
    let mut u = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            if i > j {
                l[i * n + j] = lu[i * n + j];
            } else {
                u[i * n + j] = lu[i * n + j];
            }
        }
    }
    (l, u)
}

/// P A: row k swapped with row ipiv[k] - 1, k ascending.
fn permute(n: usize, a: &[f64], ipiv: &[c_int]) -> Vec<f64> {
    let mut pa = a.to_vec();
    for (k, &p) in ipiv.iter().enumerate() {
        let p = p as usize - 1;
        for j in 0..n {
            pa.swap(k * n + j, p * n + j);
        }
    }
    pa
}

/// ||P A - L U||_F / ||A||_F.
fn lu_backward_error(n: usize, a: &[f64], lu: &[f64], ipiv: &[c_int]) -> f64 {
    let (l, u) = unpack_lu(n, lu);
    norm(&residual(n, Some(&permute(n, a, ipiv)), &l, &u)) / norm(a)
}

// ------------------------------------------- 1. truth on well-conditioned input

fn check_lu<C: Case>(log: &mut Log) {
    let (n, eps) = (C::N, C::E::EPS);
    let mut rng = SplitMix64::for_name(&format!("linalg lu {}", C::label()), 0);
    let (mut max, mut swapped) = (0.0, 0usize);
    for t in 0..COUNT {
        let a = lu_input::<C::E>(&mut rng, n, t % 2 == 1);
        let (lu, ipiv, info) = C::lu(&a);
        if info != 0 {
            log.fail(format!("lu {}: info {info} for a well-conditioned matrix {a:?}", C::label()));
        }
        assert_pivots(&ipiv, n);
        swapped += usize::from(ipiv.iter().enumerate().any(|(k, &p)| p as usize != k + 1));
        bump(&mut max, lu_backward_error(n, &wide(&a), &wide(&lu), &ipiv) / (n as f64 * eps));
    }
    let head = format!("lu {}", C::label());
    report(log, &head, COUNT, &format!("matrices ({swapped} with interchanges)"), "||PA-LU||/||A||", max, C_LU);
}

fn check_cholesky<C: Case>(log: &mut Log) {
    let (n, eps) = (C::N, C::E::EPS);
    let mut rng = SplitMix64::for_name(&format!("linalg cholesky {}", C::label()), 0);
    let mut max = 0.0;
    for _ in 0..COUNT {
        let a = spd_input::<C::E>(&mut rng, n);
        let (l, info) = C::cholesky(&a);
        if info != 0 {
            log.fail(format!("cholesky {}: info {info} for an SPD matrix {a:?}", C::label()));
        }
        // +0 above the diagonal, bit for bit.
        for i in 0..n {
            for j in i + 1..n {
                if l[i * n + j].bits() != 0 {
                    log.fail(format!("cholesky {}: entry ({i}, {j}) above the diagonal is {:?}, not +0", C::label(), l[i * n + j]));
                }
            }
        }
        let (a, l) = (wide(&a), wide(&l));
        bump(&mut max, norm(&residual(n, Some(&a), &l, &transpose(n, &l))) / norm(&a) / (n as f64 * eps));
    }
    report(log, &format!("cholesky {}", C::label()), COUNT, "SPD matrices", "||A-LL^T||/||A||", max, C_CHOL);
}

fn check_solves<C: Case>(log: &mut Log) {
    let (n, eps) = (C::N, C::E::EPS);
    let scale = n as f64 * eps;
    // lu_solve, with the forward error against nalgebra's LU solve.
    let mut rng = SplitMix64::for_name(&format!("linalg lu_solve {}", C::label()), 0);
    let (mut max, mut fwd) = (0.0, 0.0);
    for t in 0..COUNT {
        let a = lu_input::<C::E>(&mut rng, n, t % 2 == 1);
        let b: Vec<C::E> = round(&(0..n).map(|_| unit(&mut rng)).collect::<Vec<_>>());
        let (lu, ipiv, _) = C::lu(&a);
        let x = C::lu_solve(&lu, &ipiv, &b);
        let (a, b, x) = (wide(&a), wide(&b), wide(&x));
        bump(&mut max, norm(&residual_vec(n, &a, &x, &b)) / (norm(&a) * norm(&x)) / scale);
        let am = nmat(n, &a);
        let reference = am.clone().lu().solve(&DVector::from_column_slice(&b)).unwrap();
        let kappa = norm(am.as_slice()) * norm(am.try_inverse().unwrap().as_slice());
        let diff: Vec<f64> = x.iter().zip(reference.iter()).map(|(x, r)| x - r).collect();
        bump(&mut fwd, norm(&diff) / (norm(reference.as_slice()) * kappa) / scale);
    }
    let head = format!("lu_solve {}", C::label());
    report(log, &head, COUNT, "systems", "||Ax-b||/(||A|| ||x||)", max, C_SOLVE);
    report(log, &head, COUNT, "systems", "||x-x_nalgebra||/(||x_nalgebra|| kappa_F(A))", fwd, C_FWD);

    // The four triangular solves; the triangle not read and a unit diagonal are NaN.
    for kind in Solve::TRIANGULAR {
        let mut rng = SplitMix64::for_name(&format!("linalg {} {}", kind.name(), C::label()), 0);
        let mut max = 0.0;
        for _ in 0..COUNT {
            let (t, truth) = triangular_input::<C::E>(&mut rng, n, kind);
            let b: Vec<C::E> = round(&(0..n).map(|_| unit(&mut rng)).collect::<Vec<_>>());
            let x = wide(&C::solve(kind, &t, &b));
            bump(&mut max, norm(&residual_vec(n, &truth, &x, &wide(&b))) / (norm(&truth) * norm(&x)) / scale);
        }
        let head = format!("{} {}", kind.name(), C::label());
        report(log, &head, COUNT, "systems", "||Tx-b||/(||T|| ||x||)", max, C_SOLVE);
    }

    // cholesky_solve from the C core's own factor.
    let mut rng = SplitMix64::for_name(&format!("linalg cholesky_solve {}", C::label()), 0);
    let mut max = 0.0;
    for _ in 0..COUNT {
        let a = spd_input::<C::E>(&mut rng, n);
        let b: Vec<C::E> = round(&(0..n).map(|_| unit(&mut rng)).collect::<Vec<_>>());
        let (l, info) = C::cholesky(&a);
        assert_eq!(info, 0, "cholesky {}: {a:?}", C::label());
        let x = wide(&C::solve(Solve::Cholesky, &l, &b));
        let a = wide(&a);
        bump(&mut max, norm(&residual_vec(n, &a, &x, &wide(&b))) / (norm(&a) * norm(&x)) / scale);
    }
    let head = format!("cholesky_solve {}", C::label());
    report(log, &head, COUNT, "SPD systems", "||Ax-b||/(||A|| ||x||)", max, C_SOLVE);
}

fn check_inverse_det<C: Case>(log: &mut Log) {
    let (n, eps) = (C::N, C::E::EPS);
    let scale = n as f64 * eps;
    let mut rng = SplitMix64::for_name(&format!("linalg inverse {}", C::label()), 0);
    let mut max = 0.0;
    for t in 0..COUNT {
        let a = lu_input::<C::E>(&mut rng, n, t % 2 == 1);
        let (x, info) = C::inverse(&a);
        if info != 0 {
            log.fail(format!("inverse {}: info {info} for a well-conditioned matrix {a:?}", C::label()));
        }
        let (a, x) = (wide(&a), wide(&x));
        bump(&mut max, norm(&residual(n, Some(&identity(n)), &a, &x)) / (norm(&a) * norm(&x)) / scale);
    }
    report(log, &format!("inverse {}", C::label()), COUNT, "matrices", "||AX-I||/(||A|| ||X||)", max, C_INV);

    let mut rng = SplitMix64::for_name(&format!("linalg det_lu {}", C::label()), 0);
    let mut max = 0.0;
    for t in 0..COUNT {
        let a = lu_input::<C::E>(&mut rng, n, t % 2 == 1);
        let d = C::det_lu(&a).wide();
        let reference = nmat(n, &wide(&a)).determinant();
        bump(&mut max, (d - reference).abs() / reference.abs() / scale);
    }
    report(log, &format!("det_lu {}", C::label()), COUNT, "matrices", "|det-det_nalgebra|/|det_nalgebra|", max, C_DET);
}

fn check_eigh<C: Case>(log: &mut Log) {
    let (n, eps) = (C::N, C::E::EPS);
    let scale = n as f64 * eps;
    let mut rng = SplitMix64::for_name(&format!("linalg eigh {}", C::label()), 0);
    let (mut res, mut orth, mut val, mut val_rq, mut unsorted) = (0.0, 0.0, 0.0, 0.0, 0usize);
    for _ in 0..COUNT {
        let a = symmetric_input::<C::E>(&mut rng, n);
        let (w, v) = C::eigh(&a);
        let (a, w, v) = (wide(&a), wide(&w), wide(&v));
        let norm_a = norm(&a);
        if w.windows(2).any(|p| p[0].is_nan() || p[1].is_nan() || p[0] > p[1]) {
            unsorted += 1;
            log.fail(format!("eigh {}: eigenvalues not ascending: {w:?}", C::label()));
        }
        // (A V - V diag(w))_ij = sum_m a_im v_mj - v_ij w_j.
        let r: Vec<f64> = (0..n * n)
            .map(|k| {
                let (i, j) = (k / n, k % n);
                dot2(0.0, (0..n).map(|m| (a[i * n + m], v[m * n + j])).chain([(-v[i * n + j], w[j])]))
            })
            .collect();
        bump(&mut res, norm(&r) / norm_a / scale);
        bump(&mut orth, norm(&residual(n, Some(&identity(n)), &transpose(n, &v), &v)) / scale);
        let eigen = nalgebra::SymmetricEigen::new(nmat(n, &a));
        let mut reference: Vec<f64> = eigen.eigenvalues.iter().copied().collect();
        reference.sort_by(f64::total_cmp);
        let mut refined: Vec<f64> = eigen.eigenvectors.column_iter().map(|c| rayleigh(n, &a, c.as_slice())).collect();
        refined.sort_by(f64::total_cmp);
        for ((x, r), q) in w.iter().zip(&reference).zip(&refined) {
            bump(&mut val, (x - r).abs() / norm_a / scale);
            bump(&mut val_rq, (x - q).abs() / norm_a / scale);
        }
    }
    let head = format!("eigh {}", C::label());
    report(log, &head, COUNT, "symmetric matrices", "||AV-V diag(w)||/||A||", res, C_EIG_RES);
    report(log, &head, COUNT, "symmetric matrices", "||V^TV-I||", orth, C_EIG_ORTH);
    report(log, &head, COUNT, "symmetric matrices", "|w_i-w_i(nalgebra)|/||A||", val, C_EIG_VAL);
    report(log, &head, COUNT, "symmetric matrices", "|w_i-rayleigh(v_i(nalgebra))|/||A||", val_rq, C_EIG_RQ);
    log.line(format!("{head}: {COUNT} symmetric matrices, {unsorted} with eigenvalues not ascending"));
}

#[test]
fn lu_backward_error_is_small() {
    all_cases!(check_lu);
}

#[test]
fn cholesky_backward_error_is_small() {
    all_cases!(check_cholesky);
}

#[test]
fn solves_backward_error_is_small() {
    all_cases!(check_solves);
}

#[test]
fn inverse_residual_and_det_are_accurate() {
    all_cases!(check_inverse_det);
}

#[test]
fn eigh_residual_orthogonality_and_eigenvalues() {
    all_cases!(check_eigh);
}

// ---------------------------------------------------- 2. many lanes = single

/// A matrix from the mix the many-lane checks draw from: well-conditioned,
/// singular (a repeated row), NaN-containing, small integers, SPD.
fn mixed_input<E: Elem>(rng: &mut SplitMix64, n: usize) -> Vec<E> {
    match rng.below(5) {
        0 => lu_input(rng, n, true),
        1 => {
            let mut a: Vec<E> = lu_input(rng, n, false);
            let (i, j) = (rng.below(n as u64) as usize, rng.below(n as u64 - 1) as usize);
            let j = if j >= i { j + 1 } else { j };
            for k in 0..n {
                a[j * n + k] = a[i * n + k];
            }
            a
        }
        2 => {
            let mut a: Vec<E> = lu_input(rng, n, true);
            let k = rng.below((n * n) as u64) as usize;
            a[k] = E::of(f64::NAN);
            a
        }
        3 => (0..n * n).map(|_| E::of(rng.below(7) as f64 - 3.0)).collect(),
        _ => spd_input(rng, n),
    }
}

fn bits<E: Elem>(x: &[E]) -> Vec<u64> {
    x.iter().map(|v| v.bits()).collect()
}

/// Tallies lanes whose bits differ from the single form's, and those whose
/// only differences are between two NaNs.
#[derive(Debug, Default)]
struct Tally {
    lanes: usize,
    nan_lanes: usize,
    mismatches: usize,
    nan_payload_only: usize,
    first: Option<String>,
}

impl Tally {
    /// One lane: the single form's floats and ints against the lane's.
    fn lane<E: Elem>(&mut self, single: (&[E], &[c_int]), lane: (&[E], &[c_int]), what: impl FnOnce() -> String) {
        self.lanes += 1;
        let ((sf, si), (lf, li)) = (single, lane);
        if sf.iter().any(|v| v.wide().is_nan()) {
            self.nan_lanes += 1;
        }
        if bits(sf) != bits(lf) || si != li {
            self.mismatches += 1;
            let nan_only = si == li
                && sf.len() == lf.len()
                && sf.iter().zip(lf).all(|(a, b)| a.bits() == b.bits() || (a.wide().is_nan() && b.wide().is_nan()));
            if nan_only {
                self.nan_payload_only += 1;
            }
            if self.first.is_none() {
                self.first = Some(what());
            }
        }
    }

    fn report(&self, log: &mut Log, head: &str, batches: usize) {
        let line = format!(
            "{head}: {batches} batches, {} lanes ({} with NaN output), {} lanes differ from the single form ({} by NaN payload only)",
            self.lanes, self.nan_lanes, self.mismatches, self.nan_payload_only
        );
        log.line(line.clone());
        if self.mismatches != 0 {
            log.fail(format!("{line}; first: {}", self.first.as_deref().unwrap_or("")));
        }
    }
}

fn vector<E: Elem>(rng: &mut SplitMix64, n: usize) -> Vec<E> {
    (0..n).map(|_| if rng.below(16) == 0 { E::of(f64::NAN) } else { E::of(unit(rng) * 4.0) }).collect()
}

fn check_lanes<C: Case>(log: &mut Log) {
    let n = C::N;
    let nn = n * n;
    let label = C::label();
    let mut rng = SplitMix64::for_name(&format!("linalg lanes {label}"), 0);
    let batch = |rng: &mut SplitMix64| -> Vec<Vec<C::E>> {
        let count = rng.below(MAX_LANES + 1) as usize;
        (0..count).map(|_| mixed_input::<C::E>(rng, n)).collect()
    };

    let mut t = Tally::default();
    for _ in 0..BATCHES {
        let a = batch(&mut rng);
        let (m, ipiv, info) = C::lu_lanes(&a.concat());
        for (l, a) in a.iter().enumerate() {
            let (sm, sp, si) = C::lu(a);
            let (single, lane) = ([sp.as_slice(), &[si]].concat(), [&ipiv[l * n..][..n], &info[l..=l]].concat());
            t.lane((&sm, &single), (&m[l * nn..][..nn], &lane), || format!("lane {l} of {a:?}: {sm:?} {sp:?} {si}"));
        }
    }
    t.report(log, &format!("lu_lanes {label}"), BATCHES);

    let mut t = Tally::default();
    for _ in 0..BATCHES {
        let a = batch(&mut rng);
        let factors: Vec<_> = a.iter().map(|a| C::lu(a)).collect();
        let b: Vec<Vec<C::E>> = a.iter().map(|_| vector(&mut rng, n)).collect();
        let lu: Vec<C::E> = factors.iter().flat_map(|f| f.0.clone()).collect();
        let ipiv: Vec<c_int> = factors.iter().flat_map(|f| f.1.clone()).collect();
        let x = C::lu_solve_lanes(&lu, &ipiv, &b.concat());
        for (l, (f, b)) in factors.iter().zip(&b).enumerate() {
            let s = C::lu_solve(&f.0, &f.1, b);
            t.lane((&s, &[]), (&x[l * n..][..n], &[]), || format!("lane {l}: {f:?} {b:?}"));
        }
    }
    t.report(log, &format!("lu_solve_lanes {label}"), BATCHES);

    for kind in [Solve::Lower, Solve::LowerUnit, Solve::Upper, Solve::UpperUnit, Solve::Cholesky] {
        let mut t = Tally::default();
        for _ in 0..BATCHES {
            let mut a = batch(&mut rng);
            if kind == Solve::Cholesky {
                // From the core's own factor, finished or stopped.
                a = a.iter().map(|a| C::cholesky(a).0).collect();
            }
            let b: Vec<Vec<C::E>> = a.iter().map(|_| vector(&mut rng, n)).collect();
            let x = C::solve_lanes(kind, &a.concat(), &b.concat());
            for (l, (a, b)) in a.iter().zip(&b).enumerate() {
                let s = C::solve(kind, a, b);
                t.lane((&s, &[]), (&x[l * n..][..n], &[]), || format!("lane {l}: {a:?} {b:?}"));
            }
        }
        t.report(log, &format!("{}_lanes {label}", kind.name()), BATCHES);
    }

    let mut t = Tally::default();
    for _ in 0..BATCHES {
        let a = batch(&mut rng);
        let d = C::det_lu_lanes(&a.concat());
        for (l, a) in a.iter().enumerate() {
            let s = [C::det_lu(a)];
            t.lane((&s, &[]), (&d[l..=l], &[]), || format!("lane {l}: {a:?}"));
        }
    }
    t.report(log, &format!("det_lu_lanes {label}"), BATCHES);

    let mut t = Tally::default();
    for _ in 0..BATCHES {
        let a = batch(&mut rng);
        let (inv, info) = C::inverse_lanes(&a.concat());
        for (l, a) in a.iter().enumerate() {
            let (s, si) = C::inverse(a);
            t.lane((&s, &[si]), (&inv[l * nn..][..nn], &info[l..=l]), || format!("lane {l}: {a:?}"));
        }
    }
    t.report(log, &format!("inverse_lanes {label}"), BATCHES);

    let mut t = Tally::default();
    for _ in 0..BATCHES {
        let a = batch(&mut rng);
        let (m, info) = C::cholesky_lanes(&a.concat());
        for (l, a) in a.iter().enumerate() {
            let (s, si) = C::cholesky(a);
            t.lane((&s, &[si]), (&m[l * nn..][..nn], &info[l..=l]), || format!("lane {l}: {a:?}"));
        }
    }
    t.report(log, &format!("cholesky_lanes {label}"), BATCHES);

    let mut t = Tally::default();
    for _ in 0..BATCHES {
        let a = batch(&mut rng);
        let (w, v) = C::eigh_lanes(&a.concat());
        for (l, a) in a.iter().enumerate() {
            let (sw, sv) = C::eigh(a);
            let single = [sw.clone(), sv].concat();
            let lanes = [&w[l * n..][..n], &v[l * nn..][..nn]].concat();
            t.lane((&single, &[]), (&lanes, &[]), || format!("lane {l}: {a:?}"));
        }
    }
    t.report(log, &format!("eigh_lanes {label}"), BATCHES);
}

#[test]
fn many_lanes_equal_single_bit_for_bit() {
    all_cases!(check_lanes);
}

// ------------------------------------------------- 3. singular and edge cases

/// A zero column k: lu reports info = k + 1, still finishes (valid pivots,
/// P A = L U within the LU bound), det_lu is zero and inverse reports the
/// same info.
fn check_zero_column<C: Case>(log: &mut Log) {
    let (n, eps) = (C::N, C::E::EPS);
    let label = C::label();
    let mut rng = SplitMix64::for_name(&format!("linalg zero column {label}"), 0);
    let (mut count, mut max) = (0usize, 0.0);
    for k in 0..n {
        for t in 0..50 {
            let mut a = lu_input::<C::E>(&mut rng, n, t % 2 == 1);
            for i in 0..n {
                a[i * n + k] = C::E::of(0.0);
            }
            count += 1;
            let (lu, ipiv, info) = C::lu(&a);
            if info != k as c_int + 1 {
                log.fail(format!("lu {label}: zero column {k} gives info {info}, not {}: {a:?}", k + 1));
            }
            if !ipiv.iter().enumerate().all(|(j, &p)| p as usize > j && p as usize <= n) {
                log.fail(format!("lu {label}: pivots {ipiv:?} out of range for a zero column {k}"));
                continue;
            }
            if lu.iter().any(|x| !x.wide().is_finite()) {
                log.fail(format!("lu {label}: a non-finite factor for a zero column {k}: {lu:?}"));
            }
            bump(&mut max, lu_backward_error(n, &wide(&a), &wide(&lu), &ipiv) / (n as f64 * eps));
            let d = C::det_lu(&a).wide();
            if d != 0.0 {
                log.fail(format!("det_lu {label}: {d} for a zero column {k}"));
            }
            let (inv, inv_info) = C::inverse(&a);
            if inv_info != info {
                log.fail(format!("inverse {label}: info {inv_info} for a zero column {k}, lu says {info}"));
            }
            if inv.iter().all(|x| x.wide().is_finite()) {
                log.fail(format!("inverse {label}: all finite for a zero column {k}: {inv:?}"));
            }
        }
    }
    let head = format!("lu {label} zero column");
    report(log, &head, count, "singular matrices (info = k+1 each)", "||PA-LU||/||A||", max, C_LU);
}

#[test]
fn lu_zero_column_sets_info_and_finishes() {
    all_cases!(check_zero_column);
}

/// A = L D L^T with L unit lower (off-diagonal in [-1/2, 1/2]) and D
/// positive except D_jj in [-1, -1/2]: cholesky stops at info = j + 1, with
/// columns j.. of the lower triangle holding the half-sums of the input and
/// +0 above the diagonal. Then exact cases: a zero pivot (d == 0), a
/// negative and a NaN leading entry.
fn check_non_spd<C: Case>(log: &mut Log) {
    let n = C::N;
    let label = C::label();
    let mut rng = SplitMix64::for_name(&format!("linalg non-spd {label}"), 0);
    let mut count = 0usize;
    let mut check = |a: &[C::E], want: c_int, log: &mut Log| {
        count += 1;
        let (l, info) = C::cholesky(a);
        if info != want {
            log.fail(format!("cholesky {label}: info {info}, not {want}, for {a:?}"));
            return;
        }
        let j = want as usize - 1;
        for r in 0..n {
            for c in 0..n {
                let half = C::E::of(0.5);
                let s = C::E::of(half.wide() * a[r * n + c].wide() + half.wide() * a[c * n + r].wide());
                let want_bits = if c > r {
                    0
                } else if c >= j {
                    s.bits()
                } else {
                    l[r * n + c].bits()
                };
                if l[r * n + c].bits() != want_bits {
                    log.fail(format!("cholesky {label}: stopped at {want}, entry ({r}, {c}) is {:?}, not {s:?}", l[r * n + c]));
                }
            }
        }
    };
    for j in 0..n {
        for _ in 0..50 {
            let mut lower = identity(n);
            for r in 0..n {
                for c in 0..r {
                    lower[r * n + c] = 0.5 * unit(&mut rng);
                }
            }
            let d: Vec<f64> = (0..n).map(|i| if i == j { -between(&mut rng, 0.5, 1.0) } else { between(&mut rng, 1.0, 2.0) }).collect();
            let mut a = vec![0.0; n * n];
            for r in 0..n {
                for c in 0..n {
                    a[r * n + c] = (0..n).map(|k| lower[r * n + k] * d[k] * lower[c * n + k]).sum();
                }
            }
            check(&round::<C::E>(&a), j as c_int + 1, log);
        }
    }
    // [[1, 1], [1, 1]] in the leading block, I elsewhere: d = 1 - 1 * 1 = 0 exactly.
    let mut ones = identity(n);
    ones[1] = 1.0;
    ones[n] = 1.0;
    ones[n + 1] = 1.0;
    check(&round::<C::E>(&ones), 2, log);
    let mut negative = identity(n);
    negative[0] = -1.0;
    check(&round::<C::E>(&negative), 1, log);
    let mut zero = identity(n);
    zero[0] = 0.0;
    check(&round::<C::E>(&zero), 1, log);
    let mut nan = identity(n);
    nan[0] = f64::NAN;
    check(&round::<C::E>(&nan), 1, log);
    log.line(format!("cholesky {label} non-SPD: {count} matrices, info at the first non-positive pivot checked"));
}

#[test]
fn cholesky_non_spd_sets_info_at_first_bad_pivot() {
    all_cases!(check_non_spd);
}

/// |1| == |-1| in column 0: the first row keeps the pivot ([rules.linalg]
/// pivot = "first-largest"); a strictly larger entry below wins.
fn check_pivot_tie<C: Case>(log: &mut Log) {
    let n = C::N;
    let label = C::label();
    // [[1, 2], [-1, 3]] in the leading block, I elsewhere: L = [[1, 0], [-1, 1]], U = [[1, 2], [0, 5]] exactly.
    let mut a = identity(n);
    a[0] = 1.0;
    a[1] = 2.0;
    a[n] = -1.0;
    a[n + 1] = 3.0;
    let (lu, ipiv, info) = C::lu(&round::<C::E>(&a));
    let mut want = a.clone();
    want[n] = -1.0;
    want[n + 1] = 5.0;
    if ipiv[0] != 1 || info != 0 || wide(&lu) != want {
        log.fail(format!("lu {label}: pivot tie [[1, 2], [-1, 3]] gives ipiv {ipiv:?}, info {info}, factors {lu:?}"));
    }
    // Column 0 = (1, -1, 1, -1): still row 0.
    let mut b = identity(n);
    for i in 0..n {
        b[i * n] = if i % 2 == 0 { 1.0 } else { -1.0 };
    }
    let (_, ipiv_b, _) = C::lu(&round::<C::E>(&b));
    if ipiv_b[0] != 1 {
        log.fail(format!("lu {label}: pivot tie down column 0 of {b:?} gives ipiv {ipiv_b:?}"));
    }
    // [[1, 2], [-2, 3]]: the larger magnitude wins.
    a[n] = -2.0;
    let (_, ipiv_c, _) = C::lu(&round::<C::E>(&a));
    if ipiv_c[0] != 2 {
        log.fail(format!("lu {label}: [[1, 2], [-2, 3]] gives ipiv {ipiv_c:?}, not row 1 first"));
    }
    log.line(format!(
        "lu {label} pivot tie: ipiv {ipiv:?} for [[1, 2], [-1, 3]], {ipiv_b:?} for a tied column, {ipiv_c:?} for [[1, 2], [-2, 3]]"
    ));
}

#[test]
fn lu_pivot_tie_keeps_the_first_row() {
    all_cases!(check_pivot_tie);
}

// ------------------------------------------------ the contract's fine print

/// [rules.linalg] LU's dot is unseeded: A = [[1, -0], [1, -0]] (the leading
/// block, I elsewhere) has acc = 1 * -0 = -0 and u11 = -0 - -0 = +0, where a
/// zero-seeded acc (0 + -0 = +0) gives u11 = -0 - +0 = -0. det_lu is then +0
/// and inverse's row 1 starts (-inf, +inf); the seeded rule gives -0 and
/// (+inf, -inf).
fn check_unseeded_dot<C: Case>(log: &mut Log) {
    let n = C::N;
    let label = C::label();
    let mut a = identity(n);
    a[1] = -0.0;
    a[n] = 1.0;
    a[n + 1] = -0.0;
    let a = round::<C::E>(&a);
    let (lu, ipiv, info) = C::lu(&a);
    // The seeded alternative, written out: -0 - (+0 + 1 * -0).
    let (one, zero, minus_zero) = (C::E::of(1.0), C::E::of(0.0), C::E::of(-0.0));
    let seeded = C::E::of(minus_zero.wide() - (zero.wide() + (one.wide() * minus_zero.wide())));
    let plus_zero_bits = zero.bits();
    if seeded.bits() == plus_zero_bits || seeded.bits() != minus_zero.bits() {
        log.fail(format!("lu {label}: the seeded alternative is {seeded:?}, not -0"));
    }
    let want_ipiv: Vec<c_int> = (1..=n as c_int).collect();
    if lu[n + 1].bits() != plus_zero_bits || lu[n].bits() != one.bits() || ipiv != want_ipiv || info != 2 {
        log.fail(format!(
            "lu {label}: [[1, -0], [1, -0]] gives u11 = {:?} (bits {:#x}), ipiv {ipiv:?}, info {info}",
            lu[n + 1],
            lu[n + 1].bits()
        ));
    }
    let d = C::det_lu(&a);
    if d.bits() != plus_zero_bits {
        log.fail(format!("det_lu {label}: [[1, -0], [1, -0]] gives {d:?}, not +0"));
    }
    let (x, inv_info) = C::inverse(&a);
    if x[n].wide() != f64::NEG_INFINITY || x[n + 1].wide() != f64::INFINITY || inv_info != 2 {
        log.fail(format!("inverse {label}: [[1, -0], [1, -0]] gives row 1 = {:?}, info {inv_info}", &x[n..2 * n]));
    }
    log.line(format!(
        "lu {label} unseeded dot: u11 = {:?} (seeded: {seeded:?}), det_lu = {d:?}, inverse row 1 = ({:?}, {:?}), info {info}",
        lu[n + 1],
        x[n],
        x[n + 1]
    ));
}

#[test]
fn lu_dot_is_unseeded_in_the_signs_of_zeros() {
    all_cases!(check_unseeded_dot);
}

/// [rules.linalg] symmetrize = "half-sum": a symmetric entry k*tiny is read
/// as 0.5*k*tiny + 0.5*k*tiny, which for odd k is the neighbour that is a
/// multiple of 4*tiny (0.5 * k*tiny is a tie that rounds to even). Read
/// back through Cholesky's stop: -k*tiny on the diagonal gives d <= 0, so
/// info = 1 and column 0 holds the symmetrised value. And tiny itself reads
/// as +0: Cholesky of [[tiny, 0], [0, 1]] stops with info = 1, L = +0 there,
/// and eigh gives the eigenvalue +0.
fn check_symmetric_tiny<C: Case>(log: &mut Log) {
    let n = C::N;
    let label = C::label();
    let tiny = C::E::TINY.wide();
    let with_leading = |x: f64| {
        let mut a = round::<C::E>(&identity(n));
        a[0] = C::E::of(x);
        a
    };
    let mut read = Vec::new();
    for k in 1..=9u32 {
        let read_as = if k % 2 == 0 {
            k
        } else if k % 4 == 1 {
            k - 1
        } else {
            k + 1
        };
        let (l, info) = C::cholesky(&with_leading(-f64::from(k) * tiny));
        let want = C::E::of(-f64::from(read_as) * tiny);
        if info != 1 || l[0].bits() != want.bits() {
            log.fail(format!("cholesky {label}: -{k}*tiny is read as {:?} (info {info}), not -{read_as}*tiny", l[0]));
        }
        read.push(format!("{k}->{read_as}"));
    }
    let (l, info) = C::cholesky(&with_leading(tiny));
    if info != 1 || l[0].bits() != C::E::of(0.0).bits() {
        log.fail(format!("cholesky {label}: [[tiny, 0], [0, 1]] gives info {info}, l00 = {:?}, not info 1 and +0", l[0]));
    }
    let (w, _) = C::eigh(&with_leading(tiny));
    if w[0].bits() != C::E::of(0.0).bits() {
        log.fail(format!("eigh {label}: [[tiny, 0], [0, 1]] gives the eigenvalues {w:?}, not +0 first"));
    }
    let (w3, _) = C::eigh(&with_leading(3.0 * tiny));
    if w3[0].bits() != C::E::of(4.0 * tiny).bits() {
        log.fail(format!("eigh {label}: [[3*tiny, 0], [0, 1]] gives the eigenvalues {w3:?}, not 4*tiny first"));
    }
    log.line(format!(
        "cholesky {label} symmetric odd multiples of tiny (k*tiny read as): {}; [[tiny, 0], [0, 1]]: info {info}, eigenvalue {:?}",
        read.join(" "),
        w[0]
    ));
}

#[test]
fn symmetric_odd_multiples_of_tiny_are_read_rounded() {
    all_cases!(check_symmetric_tiny);
}

/// [rules.linalg] pivot: p = j, best = |a_jj|, then p = i when |a_ij| >
/// best. A NaN on the diagonal stays the pivot over larger entries below it
/// (nothing compares greater than NaN): ipiv[0] = 1, info = 0 (a NaN is not
/// zero), NaN multipliers. A NaN below the diagonal is passed over: the
/// first largest of the others wins (the 5 in row 2 for n >= 3).
fn check_nan_pivot<C: Case>(log: &mut Log) {
    let n = C::N;
    let label = C::label();
    let mut diag = identity(n);
    diag[0] = f64::NAN;
    diag[1] = 1.0;
    diag[n] = 5.0;
    diag[n + 1] = 1.0;
    if n >= 3 {
        diag[2 * n] = 9.0;
    }
    let (lu, ipiv, info) = C::lu(&round::<C::E>(&diag));
    let multipliers_nan = (1..n).all(|i| lu[i * n].wide().is_nan());
    if ipiv[0] != 1 || info != 0 || !multipliers_nan {
        log.fail(format!("lu {label}: NaN on the diagonal over 5 (and 9): ipiv {ipiv:?}, info {info}, factors {lu:?}"));
    }
    let mut below = identity(n);
    below[n] = f64::NAN;
    if n >= 3 {
        below[2 * n] = 5.0;
    }
    let (_, ipiv_b, info_b) = C::lu(&round::<C::E>(&below));
    let want = if n >= 3 { 3 } else { 1 };
    if ipiv_b[0] != want || info_b != 0 {
        log.fail(format!("lu {label}: NaN below the diagonal: ipiv {ipiv_b:?}, info {info_b}, not ipiv[0] = {want}"));
    }
    log.line(format!("lu {label} NaN pivot: on the diagonal ipiv {ipiv:?} info {info}; below it ipiv {ipiv_b:?}"));
}

#[test]
fn lu_nan_on_the_diagonal_stays_the_pivot_and_below_it_is_passed_over() {
    all_cases!(check_nan_pivot);
}

/// The corpus carries the spec's probes of these three points for every
/// size, type and form, and each probe that a rule mutant is about tells
/// that mutant apart (the mutant's model gives other bits under the
/// policy): the unseeded dot kills fold-seeded in lu, det_lu and inverse,
/// and the symmetric tiny kills no-symmetrize in cholesky and eigh.
#[test]
fn the_fine_print_probes_are_in_the_corpus_and_discriminate() {
    use aether_generator::{kernel, mutants::Mutant};
    let model = aether_tests::model();
    let corpus = aether_tests::corpus().unwrap_or_else(|e| panic!("{e}"));
    let expect: [(&str, &str, Option<Mutant>); 7] = [
        ("lu", "probe: unseeded dot", Some(Mutant::FoldSeeded)),
        ("det_lu", "probe: unseeded dot", Some(Mutant::FoldSeeded)),
        ("inverse", "probe: unseeded dot", Some(Mutant::FoldSeeded)),
        ("cholesky", "probe: symmetric tiny", Some(Mutant::NoSymmetrize)),
        ("eigh", "probe: symmetric tiny", Some(Mutant::NoSymmetrize)),
        ("lu", "probe: NaN on the diagonal stays the pivot", None),
        ("lu", "probe: NaN below the diagonal is passed over", None),
    ];
    let builds: Vec<_> = [Mutant::FoldSeeded, Mutant::NoSymmetrize].into_iter().map(|m| (m, m.build(&model).unwrap())).collect();
    let mut seen = 0;
    let mut failures = Vec::new();
    for (i, c) in model.callables().into_iter().enumerate() {
        let aether_generator::model::Callable::Kernel(k) = c else { continue };
        for (key, label, mutant) in &expect {
            if k.key != *key {
                continue;
            }
            let name = c.c_name(&model);
            let cases: Vec<_> = corpus[&name].cases.iter().filter(|x| x.label.starts_with(label)).collect();
            if cases.len() != 1 {
                failures.push(format!("{name}: {} corpus cases labelled `{label}...`, not 1", cases.len()));
                continue;
            }
            seen += 1;
            let Some(m) = mutant else { continue };
            let (mm, ml) = &builds.iter().find(|(b, _)| b == m).unwrap().1;
            let theirs = kernel::evaluate_callable(mm, ml, i, &cases[0].inputs).unwrap();
            let w = aether_tests::width(c.elem());
            if aether_tests::policy::matches(&cases[0].expected, &theirs, w, c.is_float(), c.either_zero()) {
                failures.push(format!("{name}: `{label}` does not tell {} apart", m.name()));
            }
        }
    }
    println!("fine print: {seen} probe cases found in the corpus (lu, det_lu, inverse, cholesky, eigh; 3 sizes, 2 types, 2 forms)");
    assert_eq!(seen, 2 * 3 * 2 * expect.len(), "probe cases missing: {failures:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
