//! Per-lane linear algebra on the square matrices [`Mat<T, N>`](Mat) (`N` =
//! 2, 3, 4 in the contract) and vectors `[T; N]`: LU with partial pivoting,
//! the triangular solves, the determinant and inverse through LU, Cholesky,
//! and the symmetric eigen-decomposition by cyclic Jacobi.
//!
//! Every operation is one IEEE operation in the element type (nothing
//! promotes, nothing is fused, reassociated or compensated), in exactly the
//! order written in each function's documentation. Two kinds of sums occur:
//!
//! * a *finished dot product* of the terms `t_0 .. t_{m-1}` (`m >= 1`) is
//!   unseeded and ascending: `acc = t_0`, then `acc = acc + t_k` for
//!   `k = 1 .. m-1` (LU only);
//! * *term by term* subtraction: `s = s - t_k` for `k` ascending (the
//!   triangular solves and Cholesky).
//!
//! LU forms its multipliers with one reciprocal of the pivot and a product
//! per entry; every other division (the triangular solves, Cholesky, the
//! Jacobi rotation) is a correctly rounded `x / y`. Pivot indices (`ipiv`)
//! are 1-based, LAPACK style, and `info` is `0` on success or the 1-based
//! column of the first failure.
//!
//! Matrices are row-major: `m.rows[i][j]` is element `(i, j)`, written
//! `M[i][j]` below.

// The loops follow the contract's index notation (`W[i][k] * W[k][j]` over
// ranges of `k`), which iterator chains would only obscure.
#![allow(clippy::needless_range_loop)]

use std::array::from_fn;

use crate::matrix::Mat;
use crate::real::Real;

/// The number of Jacobi sweeps of [`eigh`]: every sweep visits each pair
/// `(p, q)`, `p < q`, once.
pub const EIGH_SWEEPS: usize = 10;

/// The finished dot product of `terms` (at least one): `acc = t_0`, then
/// `acc = acc + t_k` for `k` ascending. Unseeded, so `-0` terms sum to `-0`.
fn finished<T: Real>(terms: impl IntoIterator<Item = T>) -> T {
    let mut terms = terms.into_iter();
    let first = terms.next().expect("a finished dot product has at least one term");
    terms.fold(first, |acc, t| acc + t)
}

/// The symmetrised read of `(i, j)`, `i >= j`: `0.5*a[i][j] + 0.5*a[j][i]`
/// (two products, one sum; the `(i, j)` term on the left).
fn symmetric<T: Real, const N: usize>(a: &[[T; N]; N], i: usize, j: usize) -> T {
    T::HALF * a[i][j] + T::HALF * a[j][i]
}

/// The result of [`lu()`]: the packed factors, the row interchanges and the
/// first zero pivot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lu<T, const N: usize> {
    /// `L` strictly below the diagonal (its unit diagonal implied) and `U` on
    /// and above it, packed in one matrix.
    pub lu: Mat<T, N>,
    /// The 1-based pivot rows: at step `j` row `j` was interchanged with row
    /// `ipiv[j] - 1` (`ipiv[j] = j + 1` when there was no interchange), so
    /// `j + 1 <= ipiv[j] <= N`.
    pub ipiv: [usize; N],
    /// `0`, or `j + 1` for the first column `j` whose pivot is zero (`±0`;
    /// a NaN pivot is not zero).
    pub info: usize,
}

/// `lu`: LU factorisation with partial pivoting, left-looking (column by
/// column) on a working copy `W` of `a`. For `j = 0 .. N-1`:
///
/// 1. upper part, rows `i = 1 .. j-1` ascending (row 0 is unchanged):
///    `W[i][j] = W[i][j] - acc`, `acc` the finished dot product of
///    `W[i][k]*W[k][j]` over `k = 0 .. i-1` (the already updated `W[k][j]`);
/// 2. lower part, rows `i = j .. N-1`, only when `j > 0`:
///    `W[i][j] = W[i][j] - acc`, `acc` the finished dot product of
///    `W[i][k]*W[k][j]` over `k = 0 .. j-1`;
/// 3. pivot: `p = j`, `best = |W[j][j]|`; for `i = j+1 .. N-1`, if
///    `|W[i][j]| > best` then `p = i`, `best = |W[i][j]|` (the first entry of
///    largest magnitude; a NaN never wins, so a NaN on the diagonal stays);
///    `ipiv[j] = p + 1`;
/// 4. if `p != j`, rows `j` and `p` of `W` are swapped (all `N` columns);
/// 5. if `W[j][j] == 0` (`-0` is zero, NaN is not), `info = j + 1` unless
///    already set, and column `j` below the diagonal is left as it is;
///    otherwise `r = 1 / W[j][j]` once and `W[i][j] = W[i][j] * r` for
///    `i = j+1 .. N-1`.
///
/// The factorisation always runs to the end; `info` is `0` when no pivot was
/// zero.
pub fn lu<T: Real, const N: usize>(a: Mat<T, N>) -> Lu<T, N> {
    let mut w = a.rows;
    let mut ipiv = [0; N];
    let mut info = 0;
    for j in 0..N {
        for i in 1..j {
            let acc = finished((0..i).map(|k| w[i][k] * w[k][j]));
            w[i][j] = w[i][j] - acc;
        }
        if j > 0 {
            for i in j..N {
                let acc = finished((0..j).map(|k| w[i][k] * w[k][j]));
                w[i][j] = w[i][j] - acc;
            }
        }
        let (mut p, mut best) = (j, w[j][j].abs());
        for i in j + 1..N {
            let magnitude = w[i][j].abs();
            if magnitude > best {
                p = i;
                best = magnitude;
            }
        }
        ipiv[j] = p + 1;
        if p != j {
            w.swap(j, p);
        }
        if w[j][j] == T::ZERO {
            if info == 0 {
                info = j + 1;
            }
        } else {
            let r = T::ONE / w[j][j];
            for i in j + 1..N {
                w[i][j] = w[i][j] * r;
            }
        }
    }
    Lu { lu: Mat::from_rows(w), ipiv, info }
}

/// Forward substitution on the lower triangle of `l`, with or without the
/// division by the diagonal.
fn forward<T: Real, const N: usize>(l: Mat<T, N>, b: [T; N], unit: bool) -> [T; N] {
    let l = l.rows;
    let mut x = b;
    for i in 0..N {
        let mut s = b[i];
        for k in 0..i {
            s = s - l[i][k] * x[k];
        }
        x[i] = if unit { s } else { s / l[i][i] };
    }
    x
}

/// Back substitution on the upper triangle of `u`, with or without the
/// division by the diagonal.
fn backward<T: Real, const N: usize>(u: Mat<T, N>, b: [T; N], unit: bool) -> [T; N] {
    let u = u.rows;
    let mut x = b;
    for i in (0..N).rev() {
        let mut s = b[i];
        for k in i + 1..N {
            s = s - u[i][k] * x[k];
        }
        x[i] = if unit { s } else { s / u[i][i] };
    }
    x
}

/// `solve_lower`: `x` with `L x = b`, reading only the lower triangle of `l`
/// and its diagonal. For `i = 0 .. N-1`: `s = b[i]`;
/// `s = s - L[i][k]*x[k]` for `k = 0 .. i-1` (term by term);
/// `x[i] = s / L[i][i]`.
pub fn solve_lower<T: Real, const N: usize>(l: Mat<T, N>, b: [T; N]) -> [T; N] {
    forward(l, b, false)
}

/// `solve_lower_unit`: [`solve_lower`] with an implied unit diagonal:
/// `x[i] = s`, and the diagonal of `l` is not read.
pub fn solve_lower_unit<T: Real, const N: usize>(l: Mat<T, N>, b: [T; N]) -> [T; N] {
    forward(l, b, true)
}

/// `solve_upper`: `x` with `U x = b`, reading only the upper triangle of `u`
/// and its diagonal. For `i = N-1` down to `0`: `s = b[i]`;
/// `s = s - U[i][k]*x[k]` for `k = i+1 .. N-1` ascending (term by term);
/// `x[i] = s / U[i][i]`.
pub fn solve_upper<T: Real, const N: usize>(u: Mat<T, N>, b: [T; N]) -> [T; N] {
    backward(u, b, false)
}

/// `solve_upper_unit`: [`solve_upper`] with an implied unit diagonal:
/// `x[i] = s`, and the diagonal of `u` is not read.
pub fn solve_upper_unit<T: Real, const N: usize>(u: Mat<T, N>, b: [T; N]) -> [T; N] {
    backward(u, b, true)
}

/// `lu_solve`: `x` with `A x = b` from the factors of [`lu()`]. `y = b`;
/// for `k = 0 .. N-1` swap `y[k]` and `y[ipiv[k] - 1]` (when they differ);
/// `y = solve_lower_unit(lu, y)`; `x = solve_upper(lu, y)`.
///
/// # Panics
///
/// If some `ipiv[k]` is outside `k+1 ..= N`.
pub fn lu_solve<T: Real, const N: usize>(lu: Mat<T, N>, ipiv: [usize; N], b: [T; N]) -> [T; N] {
    let mut y = b;
    for (k, &p) in ipiv.iter().enumerate() {
        assert!(k < p && p <= N, "aether_reference::linalg::lu_solve: ipiv[{k}] = {p} is outside {}..={N}", k + 1);
        if p - 1 != k {
            y.swap(k, p - 1);
        }
    }
    solve_upper(lu, solve_lower_unit(lu, y))
}

/// `det_lu`: the determinant through [`lu()`]. `d = U[0][0]`;
/// `d = d * U[k][k]` for `k = 1 .. N-1` ascending; then `d = d * -1` when the
/// number of `k` with `ipiv[k] != k + 1` is odd. `info` is not consulted (a
/// zero pivot makes a zero product).
///
/// `N` must be at least 1.
pub fn det_lu<T: Real, const N: usize>(a: Mat<T, N>) -> T {
    let Lu { lu: factors, ipiv, .. } = lu(a);
    let u = factors.rows;
    let mut d = u[0][0];
    for k in 1..N {
        d = d * u[k][k];
    }
    let interchanges = ipiv.iter().enumerate().filter(|&(k, &p)| p != k + 1).count();
    if interchanges % 2 == 1 {
        d = d * T::NEG_ONE;
    }
    d
}

/// `inverse`: `(X, info)` with `(LU, ipiv, info) = lu(a)` and column `j` of
/// `X` equal to `lu_solve(LU, ipiv, e_j)` (`e_j` is `+1` at `j`, `+0`
/// elsewhere). Always computed: a singular `a` gives infinities or NaN, and
/// `info` says so.
pub fn inverse<T: Real, const N: usize>(a: Mat<T, N>) -> (Mat<T, N>, usize) {
    let Lu { lu: factors, ipiv, info } = lu(a);
    let columns: [[T; N]; N] = from_fn(|j| lu_solve(factors, ipiv, from_fn(|i| if i == j { T::ONE } else { T::ZERO })));
    (Mat::from_fn(|i, j| columns[j][i]), info)
}

/// `cholesky`: `(L, info)` with `L L^T = S`, `S` the symmetric part of `a`.
///
/// The symmetrised read is `S[i][j] = 0.5*A[i][j] + 0.5*A[j][i]` (two
/// products, one sum) for every `i >= j`, the diagonal included. The working
/// matrix `W` holds `S` on and below the diagonal and `+0` above it. For
/// `j = 0 .. N-1`:
///
/// * `d = W[j][j]`; `d = d - W[j][k]*W[j][k]` for `k = 0 .. j-1` (term by
///   term);
/// * if `!(d > 0)` (a NaN `d` included): `info = j + 1` and the result is `W`
///   as it is: columns `0 .. j-1` hold `L`, columns `j ..` still hold `S` on
///   and below the diagonal, and `+0` above;
/// * `W[j][j] = sqrt(d)`;
/// * for `i = j+1 .. N-1`: `s = W[i][j]`; `s = s - W[i][k]*W[j][k]` for
///   `k = 0 .. j-1`; `W[i][j] = s / W[j][j]`.
///
/// `info` is `0` when it ran to the end; the result is `L = W`.
pub fn cholesky<T: Real, const N: usize>(a: Mat<T, N>) -> (Mat<T, N>, usize) {
    let a = a.rows;
    let mut w = [[T::ZERO; N]; N];
    for i in 0..N {
        for j in 0..=i {
            w[i][j] = symmetric(&a, i, j);
        }
    }
    for j in 0..N {
        let mut d = w[j][j];
        for k in 0..j {
            d = d - w[j][k] * w[j][k];
        }
        let positive = d > T::ZERO; // false for a NaN
        if !positive {
            return (Mat::from_rows(w), j + 1);
        }
        w[j][j] = d.sqrt();
        for i in j + 1..N {
            let mut s = w[i][j];
            for k in 0..j {
                s = s - w[i][k] * w[j][k];
            }
            w[i][j] = s / w[j][j];
        }
    }
    (Mat::from_rows(w), 0)
}

/// `cholesky_solve`: `x` with `L L^T x = b`, reading only the lower triangle
/// of `l` and its diagonal. `y = solve_lower(l, b)`; then the upper solve
/// with `L` transposed: for `i = N-1` down to `0`, `s = y[i]`;
/// `s = s - L[k][i]*x[k]` for `k = i+1 .. N-1` ascending;
/// `x[i] = s / L[i][i]`.
pub fn cholesky_solve<T: Real, const N: usize>(l: Mat<T, N>, b: [T; N]) -> [T; N] {
    let y = solve_lower(l, b);
    let l = l.rows;
    let mut x = y;
    for i in (0..N).rev() {
        let mut s = y[i];
        for k in i + 1..N {
            s = s - l[k][i] * x[k];
        }
        x[i] = s / l[i][i];
    }
    x
}

/// The Jacobi rotation of [`jacobi_rotation`] (the spec's `rotation` shape):
/// cosine `c`, sine `s`, tangent `t` and `tau = s / (1 + c)`, in that memory
/// (and flat) order.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Rotation<T> {
    /// The cosine, `1 / sqrt(t*t + 1)`.
    pub c: T,
    /// The sine, `t * c`.
    pub s: T,
    /// The tangent (`+0` when `apq` is `±0`).
    pub t: T,
    /// `s / (1 + c)`.
    pub tau: T,
}

/// `jacobi_rotation`: the Jacobi rotation that annihilates `apq` in the
/// symmetric 2x2 block
/// `[[app, apq], [apq, aqq]]`, operation by operation:
///
/// ```text
/// theta = (aqq - app) / (2 * apq)
/// r     = sqrt(theta * theta + 1)
/// tt    = isfinite(r) ? 1 / (fabs(theta) + r) : 0.5 / fabs(theta)
/// t0    = theta < 0 ? tt * -1 : tt
/// t     = apq == 0 ? +0 : t0
/// c     = 1 / sqrt(t * t + 1)
/// s     = t * c
/// tau   = s / (1 + c)
/// ```
///
/// With `apq == ±0` it is the identity rotation `t = +0`, `c = 1`, `s = +0`,
/// `tau = +0` (and [`eigh`] skips the pair).
pub fn jacobi_rotation<T: Real>(app: T, aqq: T, apq: T) -> Rotation<T> {
    let theta = (aqq - app) / (T::TWO * apq);
    let r = (theta * theta + T::ONE).sqrt();
    let tt = if r.is_finite() { T::ONE / (theta.abs() + r) } else { T::HALF / theta.abs() };
    let t0 = if theta < T::ZERO { tt * T::NEG_ONE } else { tt };
    let t = if apq == T::ZERO { T::ZERO } else { t0 };
    let c = T::ONE / (t * t + T::ONE).sqrt();
    let s = t * c;
    let tau = s / (T::ONE + c);
    Rotation { c, s, t, tau }
}

/// `jacobi_update`: the rotation applied to a pair of entries `(g, h)`
/// (columns `p` and `q` of one row): `(g - s*(h + tau*g), h + s*(g - tau*h))`, both from the
/// values before the rotation, each as parenthesised, left to right
/// (`m1 = tau*g; m2 = h + m1; m3 = s*m2; g - m3`, and likewise).
pub fn jacobi_update<T: Real>(g: T, h: T, rot: Rotation<T>) -> (T, T) {
    let Rotation { s, tau, .. } = rot;
    (g - s * (h + tau * g), h + s * (g - tau * h))
}

/// `jacobi_diag`: the rotation applied to the two diagonal entries:
/// `(app - t*apq, aqq + t*apq)`, the product rounded first in each.
pub fn jacobi_diag<T: Real>(app: T, aqq: T, apq: T, rot: Rotation<T>) -> (T, T) {
    let t = rot.t;
    (app - t * apq, aqq + t * apq)
}

/// `eigh`: the symmetric eigen-decomposition `(w, V)` of the symmetric part
/// of `a` by cyclic Jacobi: `V` is orthogonal and column `i` of `V` is the
/// eigenvector of `w[i]`, with `w` ascending.
///
/// The working matrix is `W[i][j] = W[j][i] = 0.5*A[i][j] + 0.5*A[j][i]`
/// for `i >= j` (two products, one sum; computed once per pair and mirrored,
/// so `W` is exactly symmetric), and `V` starts as the identity.
/// [`EIGH_SWEEPS`] times, for `p = 0 .. N-2`, for `q = p+1 .. N-1`:
///
/// * if `W[p][q] == 0` (`±0`) the pair is skipped, nothing changes;
/// * otherwise `rot = jacobi_rotation(W[p][p], W[q][q], W[p][q])`, and with
///   the values before this rotation:
///   * for `r = 0 .. N-1`, `r != p, q`, ascending: `(W[r][p], W[r][q]) =
///     jacobi_update(W[r][p], W[r][q], rot)`, mirrored into `W[p][r]`,
///     `W[q][r]`;
///   * `(W[p][p], W[q][q]) = jacobi_diag(app, aqq, apq, rot)`;
///   * `W[p][q] = W[q][p] = +0`;
///   * for `r = 0 .. N-1` ascending: `(V[r][p], V[r][q]) =
///     jacobi_update(V[r][p], V[r][q], rot)`.
///
/// Then `w[i] = W[i][i]`, and the pairs `(w[i], column i of V)` are sorted
/// ascending by a selection sort: for `i = 0 .. N-2`, `m = i`; for
/// `j = i+1 .. N-1`, `if w[j] < w[m] { m = j }`; if `m != i`, swap `w[i]`,
/// `w[m]` and columns `i`, `m` of `V` (all rows).
pub fn eigh<T: Real, const N: usize>(a: Mat<T, N>) -> ([T; N], Mat<T, N>) {
    let a = a.rows;
    let mut w = [[T::ZERO; N]; N];
    for i in 0..N {
        for j in 0..=i {
            let x = symmetric(&a, i, j);
            w[i][j] = x;
            w[j][i] = x;
        }
    }
    let mut v = Mat::<T, N>::identity().rows;
    for _ in 0..EIGH_SWEEPS {
        for p in 0..N.saturating_sub(1) {
            for q in p + 1..N {
                let (app, aqq, apq) = (w[p][p], w[q][q], w[p][q]);
                if apq == T::ZERO {
                    continue;
                }
                let rot = jacobi_rotation(app, aqq, apq);
                for r in (0..N).filter(|&r| r != p && r != q) {
                    let (g, h) = jacobi_update(w[r][p], w[r][q], rot);
                    (w[r][p], w[p][r]) = (g, g);
                    (w[r][q], w[q][r]) = (h, h);
                }
                (w[p][p], w[q][q]) = jacobi_diag(app, aqq, apq, rot);
                (w[p][q], w[q][p]) = (T::ZERO, T::ZERO);
                for row in &mut v {
                    (row[p], row[q]) = jacobi_update(row[p], row[q], rot);
                }
            }
        }
    }
    let mut values: [T; N] = from_fn(|i| w[i][i]);
    for i in 0..N.saturating_sub(1) {
        let mut m = i;
        for j in i + 1..N {
            if values[j] < values[m] {
                m = j;
            }
        }
        if m != i {
            values.swap(i, m);
            for row in &mut v {
                row.swap(i, m);
            }
        }
    }
    (values, Mat::from_rows(v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flat::lookup;

    /// The matrix of the given rows, converted exactly from `f32`.
    fn mat<T: Real + From<f32>, const N: usize>(rows: [[f32; N]; N]) -> Mat<T, N> {
        Mat::from_fn(|r, c| T::from(rows[r][c]))
    }

    /// The vector of the given components, converted exactly from `f32`.
    fn vector<T: Real + From<f32>, const N: usize>(v: [f32; N]) -> [T; N] {
        v.map(T::from)
    }

    /// The bit patterns of a matrix, row-major.
    fn bits<T: Real, const N: usize>(m: Mat<T, N>) -> Vec<u64> {
        m.elements().map(T::to_word).collect()
    }

    /// The bit patterns of a vector.
    fn vbits<T: Real, const N: usize>(v: [T; N]) -> [u64; N] {
        v.map(T::to_word)
    }

    /// Applies the interchanges `ipiv` to the rows of `a` in order (`P A`).
    fn permute<T: Real, const N: usize>(a: Mat<T, N>, ipiv: [usize; N]) -> Mat<T, N> {
        let mut rows = a.rows;
        for (k, p) in ipiv.into_iter().enumerate() {
            rows.swap(k, p - 1);
        }
        Mat::from_rows(rows)
    }

    /// The unit lower factor and the upper factor packed in `lu`.
    fn factors<T: Real, const N: usize>(lu: Mat<T, N>) -> (Mat<T, N>, Mat<T, N>) {
        let l = Mat::from_fn(|r, c| match r.cmp(&c) {
            std::cmp::Ordering::Greater => lu.rows[r][c],
            std::cmp::Ordering::Equal => T::ONE,
            std::cmp::Ordering::Less => T::ZERO,
        });
        let u = Mat::from_fn(|r, c| if r <= c { lu.rows[r][c] } else { T::ZERO });
        (l, u)
    }

    // ------------------------------------------------------------------ LU

    fn lu_pivot_tie<T: Real + From<f32>>() {
        // Column 0 is (2, 4, -4): |4| = |-4|, the first (row 1) wins,
        // ipiv[0] = 2; the last would give 3. After the swap, multipliers
        // 2/4 = 0.5 and -4/4 = -1. Column 1: 1 - 0.5*3 = -0.5 and
        // 1 - (-1)*3 = 4, so row 2 is the pivot: ipiv[1] = 3, multiplier
        // -0.5/4 = -0.125. Column 2: upper 5 - (-1)*3 = 8, lower
        // 1 - (0.5*3 + -0.125*8) = 0.5. Every step is exact.
        let a = mat::<T, 3>([[2.0, 1.0, 1.0], [4.0, 3.0, 3.0], [-4.0, 1.0, 5.0]]);
        let f = lu(a);
        assert_eq!(f.ipiv, [2, 3, 3]);
        assert_eq!(f.info, 0);
        assert_eq!(bits(f.lu), bits(mat::<T, 3>([[4.0, 3.0, 3.0], [-1.0, 4.0, 8.0], [0.5, -0.125, 0.5]])));
        let (l, u) = factors(f.lu);
        assert_eq!(bits(l.mul(u)), bits(permute(a, f.ipiv)));
    }

    #[test]
    fn lu_pivot_tie_first_wins_and_pa_is_lu() {
        lu_pivot_tie::<f32>();
        lu_pivot_tie::<f64>();
    }

    fn lu_4x4<T: Real + From<f32>>() {
        // The rows of L U, L = [[1, 0, 0, 0], [0.5, 1, 0, 0],
        // [-0.5, 0.5, 1, 0], [0.25, -0.5, 0.5, 1]] and U = [[4, 2, -2, 1],
        // [0, 4, 2, 2], [0, 0, 2, 1], [0, 0, 0, 1]], given in the order
        // 2, 0, 3, 1. Every multiplier is below 1 in magnitude, so the
        // pivots are the rows of U: ipiv = (2, 4, 4, 4), every step exact.
        let a = mat::<T, 4>([[-2.0, 1.0, 4.0, 1.5], [4.0, 2.0, -2.0, 1.0], [1.0, -1.5, -0.5, 0.75], [2.0, 5.0, 1.0, 2.5]]);
        let f = lu(a);
        assert_eq!((f.ipiv, f.info), ([2, 4, 4, 4], 0));
        let want = [[4.0, 2.0, -2.0, 1.0], [0.5, 4.0, 2.0, 2.0], [-0.5, 0.5, 2.0, 1.0], [0.25, -0.5, 0.5, 1.0]];
        assert_eq!(bits(f.lu), bits(mat::<T, 4>(want)));
        let (l, u) = factors(f.lu);
        assert_eq!(bits(l.mul(u)), bits(permute(a, f.ipiv)));
        // det = 4 * 4 * 2 * 1 = 32 with three interchanges: -32.
        assert_eq!(det_lu(a), T::from(-32.0));
    }

    #[test]
    fn lu_of_a_4x4_reconstructs_exactly() {
        lu_4x4::<f32>();
        lu_4x4::<f64>();
    }

    #[test]
    fn lu_nan_on_the_diagonal_is_never_displaced() {
        // NaN > best and 5 > NaN are both false: row 0 stays the pivot.
        let f = lu(Mat::from_rows([[f32::NAN, 1.0], [5.0, 1.0]]));
        assert_eq!(f.ipiv, [1, 2]);
        assert_eq!(f.info, 0, "a NaN pivot is not zero");
        assert!(f.lu.rows[1][0].is_nan());
    }

    #[test]
    fn lu_multipliers_use_one_reciprocal() {
        // 5 * (1/6) differs from 5/6 in both types.
        let f = lu(Mat::from_rows([[6.0f32, 1.0], [5.0, 1.0]]));
        assert_eq!(f.lu.rows[1][0].to_bits(), (5.0f32 * (1.0 / 6.0)).to_bits());
        assert_ne!(f.lu.rows[1][0], 5.0f32 / 6.0);
        let f = lu(Mat::from_rows([[6.0f64, 1.0], [5.0, 1.0]]));
        assert_eq!(f.lu.rows[1][0].to_bits(), (5.0f64 * (1.0 / 6.0)).to_bits());
        assert_ne!(f.lu.rows[1][0], 5.0f64 / 6.0);
    }

    #[test]
    fn lu_subtracts_one_finished_dot_product() {
        // No interchanges (ties keep the first), multipliers 0, 1 and 1.
        // U[2][2] = 1 - (1*1e8 + 1*-1e8) = 1 - 0 = 1 in f32; term by term,
        // (1 - 1e8) - -1e8 = -1e8 + 1e8 = 0 (the ulp of 1e8 is 8).
        let a = Mat::from_rows([[1.0f32, 0.0, 1e8], [0.0, 1.0, -1e8], [1.0, 1.0, 1.0]]);
        let f = lu(a);
        assert_eq!(f.ipiv, [1, 2, 3]);
        assert_eq!(bits(f.lu), bits(a));
    }

    #[test]
    fn lu_dot_products_are_unseeded() {
        // Multiplier -0 * (1/1) = -0, so acc = -0 * 1 = -0 and
        // U[1][1] = -0 - -0 = +0. A +0 seed would make acc = +0 + -0 = +0
        // and U[1][1] = -0 - +0 = -0.
        let f = lu(Mat::from_rows([[1.0f32, 1.0], [-0.0, -0.0]]));
        assert_eq!(f.lu.rows.map(|r| r.map(f32::to_bits)), [[0x3f80_0000, 0x3f80_0000], [0x8000_0000, 0]]);
        assert_eq!(f.info, 2);
    }

    #[test]
    fn lu_zero_pivot_sets_info_and_continues() {
        // Column 0 is all zero: info = 1, no interchange, nothing scaled.
        // Column 1: (1, 2, 4) - 0*(...) -> pivot 4 in row 2 (ipiv 3), then
        // 2/4 = 0.5. Column 2: upper 8 - 0*2 = 8, lower 3 - (0*2 + 0.5*8)
        // = -1: the factorisation went on.
        let f = lu(mat::<f64, 3>([[0.0, 1.0, 2.0], [0.0, 2.0, 3.0], [0.0, 4.0, 8.0]]));
        assert_eq!((f.ipiv, f.info), ([1, 3, 3], 1));
        assert_eq!(bits(f.lu), bits(mat::<f64, 3>([[0.0, 1.0, 2.0], [0.0, 4.0, 8.0], [0.0, 0.5, -1.0]])));
        // A second zero pivot (3 -> 4: 4 - 4 = 0 at column 2) keeps info 1.
        let f = lu(mat::<f32, 3>([[0.0, 1.0, 2.0], [0.0, 2.0, 4.0], [0.0, 4.0, 8.0]]));
        assert_eq!((f.ipiv, f.info), ([1, 3, 3], 1));
        assert_eq!(f.lu.rows[2][2], 0.0);
        // The first zero pivot in column 1: [[1, 2], [2, 4]] -> swap,
        // 1 * (1/2) = 0.5, 2 - 0.5*4 = 0: info 2.
        let f = lu(mat::<f32, 2>([[1.0, 2.0], [2.0, 4.0]]));
        assert_eq!((f.ipiv, f.info), ([2, 2], 2));
        // Below a zero pivot a -0 stays -0 (scaling by 1/0 would give NaN).
        let f = lu(Mat::from_rows([[0.0f32, 1.0], [-0.0, 1.0]]));
        assert_eq!((f.ipiv, f.info), ([1, 2], 1));
        assert_eq!(f.lu.rows[1][0].to_bits(), 0x8000_0000);
        // A regular matrix: info 0.
        assert_eq!(lu(mat::<f64, 2>([[1.0, 2.0], [3.0, 4.0]])).info, 0);
    }

    // ---------------------------------------------------- triangular solves

    fn triangular<T: Real + From<f32>>() {
        let nan = f32::NAN;
        // x = (1, 2, 3) in every system; the NaN entries must not be read.
        let l = mat::<T, 3>([[2.0, nan, nan], [1.0, 4.0, nan], [-1.0, 2.0, 8.0]]);
        assert_eq!(vbits(solve_lower(l, vector([2.0, 9.0, 27.0]))), vbits(vector::<T, 3>([1.0, 2.0, 3.0])));
        let l = mat::<T, 3>([[nan, nan, nan], [1.0, nan, nan], [-1.0, 2.0, nan]]);
        assert_eq!(vbits(solve_lower_unit(l, vector([1.0, 3.0, 6.0]))), vbits(vector::<T, 3>([1.0, 2.0, 3.0])));
        let u = mat::<T, 3>([[2.0, 1.0, -1.0], [nan, 4.0, 2.0], [nan, nan, 8.0]]);
        assert_eq!(vbits(solve_upper(u, vector([1.0, 14.0, 24.0]))), vbits(vector::<T, 3>([1.0, 2.0, 3.0])));
        let u = mat::<T, 3>([[nan, 1.0, -1.0], [nan, nan, 2.0], [nan, nan, nan]]);
        assert_eq!(vbits(solve_upper_unit(u, vector([0.0, 8.0, 3.0]))), vbits(vector::<T, 3>([1.0, 2.0, 3.0])));
    }

    #[test]
    fn triangular_solves_on_exact_systems() {
        triangular::<f32>();
        triangular::<f64>();
    }

    #[test]
    fn triangular_solves_subtract_term_by_term() {
        // f32, terms 1e8, -1e8, 1 (x = 1 before the last row), b = 1; the
        // ulp at 1e8 is 8. Term by term, k ascending:
        // ((1 - 1e8) - -1e8) - 1 = (-1e8 + 1e8) - 1 = -1. One finished dot
        // product gives 1 - ((1e8 + -1e8) + 1) = 0, and k descending
        // ((1 - 1) - -1e8) - 1e8 = 0.
        let l = Mat::from_rows([[1.0f32, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [1e8, -1e8, 1.0, 1.0]]);
        assert_eq!(solve_lower_unit(l, [1.0; 4]), [1.0, 1.0, 1.0, -1.0]);
        assert_eq!(solve_lower(l, [1.0; 4]), [1.0, 1.0, 1.0, -1.0]);
        let u = Mat::from_rows([[1.0f32, 1e8, -1e8, 1.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]);
        assert_eq!(solve_upper_unit(u, [1.0; 4]), [-1.0, 1.0, 1.0, 1.0]);
        assert_eq!(solve_upper(u, [1.0; 4]), [-1.0, 1.0, 1.0, 1.0]);
        // cholesky_solve's transposed solve reads L[k][i], k ascending.
        // Column 0 of L below the diagonal is (1.25e7, -1.25e7, 1), the rest
        // the identity, b = (1, 12500008, -12499992, 2): y = (1, 8, 8, 1)
        // exactly, x3 = 1, x2 = x1 = 8, and
        // x0 = ((1 - 1.25e7*8) - -1.25e7*8) - 1*1 = (-1e8 + 1e8) - 1 = -1.
        let l = Mat::from_rows([[1.0f32, 0.0, 0.0, 0.0], [1.25e7, 1.0, 0.0, 0.0], [-1.25e7, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 1.0]]);
        assert_eq!(solve_lower(l, [1.0, 12_500_008.0, -12_499_992.0, 2.0]), [1.0, 8.0, 8.0, 1.0]);
        assert_eq!(cholesky_solve(l, [1.0, 12_500_008.0, -12_499_992.0, 2.0]), [-1.0, 8.0, 8.0, 1.0]);
    }

    // ---------------------------------------- lu_solve, inverse, determinant

    fn permutation_inverse<T: Real + From<f32>>() {
        // A x = y means 2 x1 = y0, 4 x2 = y1, x0 / 2 = y2.
        let a = mat::<T, 3>([[0.0, 2.0, 0.0], [0.0, 0.0, 4.0], [0.5, 0.0, 0.0]]);
        let f = lu(a);
        assert_eq!((f.ipiv, f.info), ([3, 3, 3], 0));
        let want = mat::<T, 3>([[0.0, 0.0, 2.0], [0.5, 0.0, 0.0], [0.0, 0.25, 0.0]]);
        let (x, info) = inverse(a);
        assert_eq!((bits(x), info), (bits(want), 0));
        let b = vector::<T, 3>([6.0, -8.0, 3.0]);
        assert_eq!(vbits(lu_solve(f.lu, f.ipiv, b)), vbits(vector::<T, 3>([6.0, 3.0, -2.0])));
    }

    #[test]
    fn lu_solve_and_inverse_of_a_scaled_permutation() {
        permutation_inverse::<f32>();
        permutation_inverse::<f64>();
        // A 4x4 one: the inverse is exact and so is the solve.
        let a = Mat::from_rows([[0.0f64, 0.0, 0.0, -8.0], [0.25, 0.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0], [0.0, 1.0, 0.0, 0.0]]);
        let (x, info) = inverse(a);
        assert_eq!(info, 0);
        assert_eq!(x, Mat::from_rows([[0.0, 4.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.5, 0.0], [-0.125, 0.0, 0.0, 0.0]]));
        assert_eq!(x.mul(a), Mat::identity());
    }

    #[test]
    fn lu_solve_of_a_general_system() {
        // The pivot-tie matrix: A (1, -1, 2) = (3, 7, 5).
        let a = mat::<f64, 3>([[2.0, 1.0, 1.0], [4.0, 3.0, 3.0], [-4.0, 1.0, 5.0]]);
        let f = lu(a);
        assert_eq!(lu_solve(f.lu, f.ipiv, [3.0, 7.0, 5.0]), [1.0, -1.0, 2.0]);
    }

    #[test]
    fn inverse_of_a_singular_matrix_reports_info() {
        let (x, info) = inverse(mat::<f32, 2>([[1.0, 2.0], [2.0, 4.0]]));
        assert_eq!(info, 2);
        assert!(x.elements().any(|e| !e.is_finite()));
    }

    #[test]
    #[should_panic(expected = "aether_reference::linalg::lu_solve: ipiv[1] = 1 is outside 2..=3")]
    fn lu_solve_rejects_a_backward_interchange() {
        lu_solve(Mat::<f32, 3>::identity(), [1, 1, 3], [1.0; 3]);
    }

    #[test]
    fn det_lu_signs() {
        // One interchange: [[0, 2], [3, 0]] -> U = [[3, 0], [0, 2]], 6 * -1.
        assert_eq!(det_lu(mat::<f32, 2>([[0.0, 2.0], [3.0, 0.0]])), -6.0);
        assert_eq!(det_lu(mat::<f64, 2>([[0.0, 2.0], [3.0, 0.0]])), -6.0);
        // Two interchanges (ipiv 3, 3, 3): 0.5 * 2 * 4 = 4, positive.
        assert_eq!(det_lu(mat::<f64, 3>([[0.0, 2.0, 0.0], [0.0, 0.0, 4.0], [0.5, 0.0, 0.0]])), 4.0);
        assert_eq!(det_lu(mat::<f32, 3>([[0.0, 2.0, 0.0], [0.0, 0.0, 4.0], [0.5, 0.0, 0.0]])), 4.0);
        // Two interchanges (ipiv 2, 3, 3): 4 * 4 * 0.5 = 8.
        assert_eq!(det_lu(mat::<f64, 3>([[2.0, 1.0, 1.0], [4.0, 3.0, 3.0], [-4.0, 1.0, 5.0]])), 8.0);
        assert_eq!(det_lu(Mat::<f32, 4>::identity()), 1.0);
        // A zero pivot: the product is 0 * 4 * 0 = 0, one interchange makes
        // it -0.
        assert_eq!(det_lu(mat::<f32, 3>([[0.0, 1.0, 2.0], [0.0, 2.0, 4.0], [0.0, 4.0, 8.0]])).to_bits(), 0x8000_0000);
    }

    // ------------------------------------------------------------- Cholesky

    /// `L L^T` for `L = [[2, 0, 0], [1, 3, 0], [-1, 2, 4]]`.
    const SPD: [[f32; 3]; 3] = [[4.0, 2.0, -2.0], [2.0, 10.0, 5.0], [-2.0, 5.0, 21.0]];

    fn cholesky_exact<T: Real + From<f32>>() {
        let (l, info) = cholesky(mat::<T, 3>(SPD));
        assert_eq!(info, 0);
        assert_eq!(bits(l), bits(mat::<T, 3>([[2.0, 0.0, 0.0], [1.0, 3.0, 0.0], [-1.0, 2.0, 4.0]])));
        // Not SPD: column 1 gives d = 1 - 1*1 = 0, so info = 2 and the
        // result is column 0 of L, then S as it was (1, 5, 21 below and on
        // the diagonal), +0 above.
        let a = mat::<T, 3>([[4.0, 2.0, -2.0], [2.0, 1.0, 5.0], [-2.0, 5.0, 21.0]]);
        let (w, info) = cholesky(a);
        assert_eq!(info, 2);
        assert_eq!(bits(w), bits(mat::<T, 3>([[2.0, 0.0, 0.0], [1.0, 1.0, 0.0], [-1.0, 5.0, 21.0]])));
        // An unsymmetric input is read as its symmetric part: (4+0)/2 = 2,
        // (-4+0)/2 = -2, (7+3)/2 = 5.
        let a = mat::<T, 3>([[4.0, 0.0, -4.0], [4.0, 10.0, 7.0], [0.0, 3.0, 21.0]]);
        assert_eq!(bits(cholesky(a).0), bits(cholesky(mat::<T, 3>(SPD)).0));
        // cholesky_solve: A (1, 2, 3) = (2, 37, 71); y = (1, 12, 12). The
        // upper triangle (NaN) is not read.
        let mut l = mat::<T, 3>([[2.0, 0.0, 0.0], [1.0, 3.0, 0.0], [-1.0, 2.0, 4.0]]);
        (l.rows[0][1], l.rows[0][2], l.rows[1][2]) = (T::from(f32::NAN), T::from(f32::NAN), T::from(f32::NAN));
        assert_eq!(vbits(cholesky_solve(l, vector([2.0, 37.0, 71.0]))), vbits(vector::<T, 3>([1.0, 2.0, 3.0])));
    }

    #[test]
    fn cholesky_of_exact_matrices() {
        cholesky_exact::<f32>();
        cholesky_exact::<f64>();
    }

    #[test]
    fn cholesky_stops_at_the_first_non_positive_column() {
        // A negative diagonal stops at column 0 with nothing factored.
        let a = Mat::from_rows([[-1.0f64, 2.0], [2.0, 3.0]]);
        let (w, info) = cholesky(a);
        assert_eq!(info, 1);
        assert_eq!(bits(w), bits(Mat::from_rows([[-1.0f64, 0.0], [2.0, 3.0]])));
        // A NaN d stops too (!(NaN > 0)).
        let (_, info) = cholesky(Mat::from_rows([[1.0f32, 0.0], [0.0, f32::NAN]]));
        assert_eq!(info, 2);
        // 4x4 diagonal: info 0, L = sqrt of the diagonal.
        let (l, info) = cholesky(Mat::<f32, 4>::from_fn(|r, c| if r == c { 4.0 } else { 0.0 }));
        assert_eq!((l, info), (Mat::from_fn(|r, c| if r == c { 2.0 } else { 0.0 }), 0));
    }

    // ---------------------------------------------------------------- eigh

    #[test]
    fn eigh_of_a_diagonal_sorts_by_selection() {
        // diag(2, 1, 2, 1) with -0 off the diagonal (every pair skipped).
        // Selection sort: i = 0 picks index 1, swap -> (1, 2, 2, 1) with
        // origins (1, 0, 2, 3); i = 1 picks index 3, swap -> (1, 1, 2, 2)
        // origins (1, 3, 2, 0); i = 2 keeps. A stable sort would give
        // origins (1, 3, 0, 2).
        let a = Mat::<f64, 4>::from_fn(|r, c| if r == c { [2.0, 1.0, 2.0, 1.0][r] } else { -0.0 });
        let (w, v) = eigh(a);
        assert_eq!(w, [1.0, 1.0, 2.0, 2.0]);
        let origin = [1, 3, 2, 0];
        assert_eq!(bits(v), bits(Mat::<f64, 4>::from_fn(|r, c| if r == origin[c] { 1.0 } else { 0.0 })));
        // Distinct values, f32.
        let a = Mat::from_rows([[3.0f32, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 0.5]]);
        let (w, v) = eigh(a);
        assert_eq!(w, [-1.0, 0.5, 3.0]);
        assert_eq!(bits(v), bits(Mat::from_rows([[0.0f32, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])));
    }

    fn ulps<T: Real>(a: T, b: T) -> u64 {
        let (a, b) = (a.to_word(), b.to_word());
        a.max(b) - a.min(b)
    }

    fn eigh_2x2<T: Real + From<f32>>() {
        // theta = 0, t = 1, c = s = 1/sqrt(2): W becomes diag(1, 3) exactly.
        let (w, v) = eigh(mat::<T, 2>([[2.0, 1.0], [1.0, 2.0]]));
        assert_eq!(vbits(w), vbits(vector::<T, 2>([1.0, 3.0])));
        let h = T::ONE / T::TWO.sqrt();
        let v = v.rows;
        // Column 0 ~ (1, -1)/sqrt(2), column 1 ~ (1, 1)/sqrt(2).
        for (got, want) in [(v[0][0], h), (v[1][0], h * T::NEG_ONE), (v[0][1], h), (v[1][1], h)] {
            assert!(ulps(got, want) <= 2, "{got:?} vs {want:?}");
        }
        // Orthonormal to a few ulps.
        let vtv = Mat::from_rows(v).transpose().mul(Mat::from_rows(v)).rows;
        assert!(ulps(vtv[0][0], T::ONE) <= 4 && ulps(vtv[1][1], T::ONE) <= 4);
        assert!(vtv[0][1].abs() < T::from(1e-6) && vtv[1][0].abs() < T::from(1e-6));
    }

    #[test]
    fn eigh_of_a_2x2() {
        eigh_2x2::<f32>();
        eigh_2x2::<f64>();
    }

    #[test]
    fn eigh_of_a_4x4_is_a_decomposition() {
        let a = Mat::from_rows([[4.0f64, 1.0, -2.0, 0.5], [1.0, 3.0, 0.0, 1.0], [-2.0, 0.0, 5.0, -1.0], [0.5, 1.0, -1.0, 2.0]]);
        let (w, v) = eigh(a);
        assert!(w.windows(2).all(|p| p[0] <= p[1]), "{w:?}");
        // A V = V diag(w) and V^T V = I, to rounding.
        let av = a.mul(v);
        let vd = Mat::<f64, 4>::from_fn(|r, c| v.rows[r][c] * w[c]);
        let vtv = v.transpose().mul(v);
        for r in 0..4 {
            for c in 0..4 {
                assert!((av.rows[r][c] - vd.rows[r][c]).abs() < 1e-12, "A V != V w at ({r}, {c})");
                let id = if r == c { 1.0 } else { 0.0 };
                assert!((vtv.rows[r][c] - id).abs() < 1e-14, "V^T V != I at ({r}, {c})");
            }
        }
        // Trace is kept: 14 to rounding.
        assert!((w.iter().sum::<f64>() - 14.0).abs() < 1e-13);
    }

    #[test]
    fn rotation_with_a_zero_apq_is_the_identity() {
        for apq in [0.0f32, -0.0] {
            // theta = 1/0 = inf, and with app == aqq 0/0 = NaN: t is +0
            // whatever tt was.
            for (app, aqq) in [(1.0f32, 2.0), (3.0, 3.0), (2.0, -5.0)] {
                let rot = jacobi_rotation(app, aqq, apq);
                assert_eq!([rot.c, rot.s, rot.t, rot.tau].map(f32::to_bits), [0x3f80_0000, 0, 0, 0], "{app} {aqq} {apq}");
            }
        }
        let rot = jacobi_rotation(1.0f64, 2.0, -0.0);
        assert_eq!([rot.c, rot.s, rot.t, rot.tau].map(f64::to_bits), [1.0f64.to_bits(), 0, 0, 0]);
    }

    #[test]
    fn rotation_branches() {
        // theta = 0 (app == aqq): t = 1 / (0 + 1) = 1, positive.
        let rot = jacobi_rotation(2.0f64, 2.0, 1.0);
        assert_eq!(rot.t, 1.0);
        assert_eq!(rot.c, 1.0 / 2.0f64.sqrt());
        assert_eq!(rot.s, rot.c);
        assert_eq!(rot.tau, rot.s / (1.0 + rot.c));
        // theta = (2 - 0) / (2 * 1) = 1: r = sqrt(2), t = 1 / (1 + sqrt 2).
        let rot = jacobi_rotation(0.0f64, 2.0, 1.0);
        assert_eq!(rot.t, 1.0 / (1.0 + 2.0f64.sqrt()));
        // theta = -1: the same t negated (tt * -1).
        let rot = jacobi_rotation(2.0f64, 0.0, 1.0);
        assert_eq!(rot.t, -(1.0 / (1.0 + 2.0f64.sqrt())));
        // theta = 1e20 in f32: theta^2 overflows, r = inf, so
        // t = 0.5 / |theta| (1 / (|theta| + r) would be 0); t^2 + 1 = 1, so
        // c = 1, s = t, tau = t / 2.
        let theta = 2e20f32 / 2.0;
        let rot = jacobi_rotation(0.0f32, 2e20, 1.0);
        assert_eq!(rot.t.to_bits(), (0.5 / theta).to_bits());
        assert_eq!((rot.c, rot.s, rot.tau), (1.0, rot.t, rot.t / 2.0));
        let rot = jacobi_rotation(2e20f32, 0.0, 1.0);
        assert_eq!(rot.t.to_bits(), (-(0.5 / theta)).to_bits());
        // The pair and diagonal updates.
        let rot = Rotation { c: 0.0f64, s: 2.0, t: 3.0, tau: 0.5 };
        // g - s*(h + tau*g) = 4 - 2*(1 + 2) = -2; h + s*(g - tau*h) =
        // 1 + 2*(4 - 0.5) = 8.
        assert_eq!(jacobi_update(4.0, 1.0, rot), (-2.0, 8.0));
        // app - t*apq = 1 - 6 = -5; aqq + t*apq = 2 + 6 = 8.
        assert_eq!(jacobi_diag(1.0, 2.0, 2.0, rot), (-5.0, 8.0));
    }

    #[test]
    fn eigh_skips_a_zero_pair() {
        // (0, 1) has w01 = 0 and is skipped. Rotating it anyway (t = 0,
        // s = 0, tau = 0) would compute w20 = inf - 0*(0 + 0*inf) = NaN.
        // (0, 2) then rotates with apq = inf: theta = 2 / inf = 0, t = 1,
        // w00 = 1 - 1*inf = -inf, w22 = 3 + inf = inf, and every other pair
        // is zero from then on.
        let inf = f64::INFINITY;
        let (w, v) = eigh(Mat::from_rows([[1.0, 0.0, inf], [0.0, 2.0, 0.0], [inf, 0.0, 3.0]]));
        assert_eq!(w, [-inf, 2.0, inf]);
        assert!(v.elements().all(f64::is_finite), "{v:?}");
        assert_eq!(v.rows[1], [0.0, 1.0, 0.0]);
    }

    #[test]
    fn flat_jacobi_steps_match_the_typed_api() {
        let rotation = lookup("jacobi_rotation", "scalar", "f64").unwrap();
        let r = jacobi_rotation(0.0f64, 2.0, 1.0);
        assert_eq!(rotation(&words([0.0f64, 2.0, 1.0])), words([r.c, r.s, r.t, r.tau]));
        let update = lookup("jacobi_update", "scalar", "f32").unwrap();
        let r = jacobi_rotation(1.0f32, 3.0, 0.5);
        let (x, y) = jacobi_update(0.25, -2.0, r);
        assert_eq!(update(&words([0.25f32, -2.0, r.c, r.s, r.t, r.tau])), words([x, y]));
        let diag = lookup("jacobi_diag", "scalar", "f32").unwrap();
        let (x, y) = jacobi_diag(1.0, 3.0, 0.5, r);
        assert_eq!(diag(&words([1.0f32, 3.0, 0.5, r.c, r.s, r.t, r.tau])), words([x, y]));
    }

    #[test]
    fn eigh_runs_ten_sweeps() {
        assert_eq!(EIGH_SWEEPS, 10);
    }

    // ------------------------------------------------------------ flat layer

    /// A xorshift64 generator.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }

        /// A multiple of 1/64 in [-8, 8), exact in both types.
        fn value<T: Real + From<f32>>(&mut self) -> T {
            T::from((self.next() % 1024) as f32 / 64.0 - 8.0)
        }

        /// A matrix with a dominant diagonal (so most factorisations
        /// succeed), sometimes unsymmetric.
        fn matrix<T: Real + From<f32>, const N: usize>(&mut self) -> Mat<T, N> {
            Mat::from_fn(|r, c| if r == c { self.value::<T>() + T::from(20.0) } else { self.value() })
        }

        fn vector<T: Real + From<f32>, const N: usize>(&mut self) -> [T; N] {
            from_fn(|_| self.value())
        }
    }

    fn words<T: Real>(xs: impl IntoIterator<Item = T>) -> Vec<u64> {
        xs.into_iter().map(T::to_word).collect()
    }

    fn ints(xs: impl IntoIterator<Item = usize>) -> Vec<u64> {
        xs.into_iter().map(|x| x as u64).collect()
    }

    /// Every linear-algebra entry for `(T, N)` on a few inputs: the flat
    /// single form against the typed function, and the lanes form against
    /// the single form lane by lane (0 to 3 lanes).
    fn flat_matches<T: Real + From<f32>, const N: usize>(shape: &str, rng: &mut Rng) {
        for round in 0..8 {
            let mut a = rng.matrix::<T, N>();
            if round == 0 {
                a.rows[0] = [T::ZERO; N]; // singular: info != 0, infinities
            }
            let b = rng.vector::<T, N>();
            let f = lu(a);
            let (x, info) = inverse(a);
            let (l, cinfo) = cholesky(a);
            let (w, v) = eigh(a);
            let cases: [(&str, Vec<u64>, Vec<u64>); 11] = [
                ("lu", words(a.elements()), [words(f.lu.elements()), ints(f.ipiv), ints([f.info])].concat()),
                ("lu_solve", [words(f.lu.elements()), ints(f.ipiv), words(b)].concat(), words(lu_solve(f.lu, f.ipiv, b))),
                ("solve_lower", [words(a.elements()), words(b)].concat(), words(solve_lower(a, b))),
                ("solve_lower_unit", [words(a.elements()), words(b)].concat(), words(solve_lower_unit(a, b))),
                ("solve_upper", [words(a.elements()), words(b)].concat(), words(solve_upper(a, b))),
                ("solve_upper_unit", [words(a.elements()), words(b)].concat(), words(solve_upper_unit(a, b))),
                ("det_lu", words(a.elements()), words([det_lu(a)])),
                ("inverse", words(a.elements()), [words(x.elements()), ints([info])].concat()),
                ("cholesky", words(a.elements()), [words(l.elements()), ints([cinfo])].concat()),
                ("cholesky_solve", [words(l.elements()), words(b)].concat(), words(cholesky_solve(l, b))),
                ("eigh", words(a.elements()), [words(w), words(v.elements())].concat()),
            ];
            for (family, input, output) in cases {
                let single = lookup(family, shape, T::NAME).unwrap_or_else(|| panic!("{family}/{shape}"));
                assert_eq!(single(&input), output, "{family}/{shape}/{}", T::NAME);
                let lanes_name = format!("{family}_lanes");
                let lanes = lookup(&lanes_name, shape, T::NAME).unwrap_or_else(|| panic!("{lanes_name}/{shape}"));
                let count = round % 4;
                assert_eq!(lanes(&input.repeat(count)), output.repeat(count), "{lanes_name}/{shape}/{}", T::NAME);
            }
        }
    }

    #[test]
    fn flat_entries_match_the_typed_api() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        flat_matches::<f32, 2>("mat2", &mut rng);
        flat_matches::<f64, 2>("mat2", &mut rng);
        flat_matches::<f32, 3>("mat3", &mut rng);
        flat_matches::<f64, 3>("mat3", &mut rng);
        flat_matches::<f32, 4>("mat4", &mut rng);
        flat_matches::<f64, 4>("mat4", &mut rng);
    }

    #[test]
    fn flat_lanes_are_independent() {
        // Three different lanes of eigh mat3/f64 against the single form.
        let mut rng = Rng(7);
        let inputs: Vec<Vec<u64>> = (0..3).map(|_| words(rng.matrix::<f64, 3>().elements())).collect();
        let single = lookup("eigh", "mat3", "f64").unwrap();
        let lanes = lookup("eigh_lanes", "mat3", "f64").unwrap();
        let want: Vec<u64> = inputs.iter().flat_map(|i| single(i)).collect();
        assert_eq!(lanes(&inputs.concat()), want);
        assert_eq!(want.len(), 3 * 12);
        assert!(lanes(&[]).is_empty());
    }

    #[test]
    fn flat_lu_writes_integers() {
        let lu = lookup("lu", "mat2", "f32").unwrap();
        let one = u64::from(1.0f32.to_bits());
        let two = u64::from(2.0f32.to_bits());
        let four = u64::from(4.0f32.to_bits());
        let half = u64::from(0.5f32.to_bits());
        // [[1, 2], [2, 4]]: swap, multiplier 0.5, U[1][1] = 0: ipiv (2, 2),
        // info 2, all plain integers.
        assert_eq!(lu(&[one, two, two, four]), [two, four, half, 0, 2, 2, 2]);
    }

    #[test]
    #[should_panic(expected = "aether_reference::flat: lu/mat3/f64 takes 9 words, got 8")]
    fn flat_rejects_a_wrong_length() {
        lookup("lu", "mat3", "f64").unwrap()(&[0; 8]);
    }

    #[test]
    #[should_panic(expected = "aether_reference::flat: eigh_lanes/mat2/f32 takes whole problems of 4 words, got 6")]
    fn flat_lanes_reject_a_partial_problem() {
        lookup("eigh_lanes", "mat2", "f32").unwrap()(&[0; 6]);
    }

    #[test]
    #[should_panic(expected = "aether_reference::flat: lu_solve/mat2/f32: ipiv[0] = 3 is outside 1..=2")]
    fn flat_lu_solve_rejects_a_bad_ipiv() {
        lookup("lu_solve", "mat2", "f32").unwrap()(&[0, 0, 0, 0, 3, 2, 0, 0]);
    }

    #[test]
    #[should_panic(expected = "aether_reference::flat: lu_solve_lanes/mat2/f64 lane 1: ipiv[1] = 1 is outside 2..=2")]
    fn flat_lu_solve_lanes_name_the_lane() {
        lookup("lu_solve_lanes", "mat2", "f64").unwrap()(&[0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 2, 1, 0, 0]);
    }

    #[test]
    #[should_panic(expected = "cholesky/mat2/f32: word 0x100000000 is not an f32 bit pattern")]
    fn flat_rejects_high_bits_in_an_f32_word() {
        lookup("cholesky", "mat2", "f32").unwrap()(&[0, 1 << 32, 0, 0]);
    }
}
