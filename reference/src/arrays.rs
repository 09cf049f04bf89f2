//! The vector families on plain arrays `[T; N]` whose elements are the
//! components in memory order.
//!
//! [`Vec2`](crate::Vec2), [`Vec3`](crate::Vec3), [`Vec4`](crate::Vec4) and
//! [`Quat`](crate::Quat) delegate here, so each rule is written once.
//! Componentwise functions apply one expression per index; reductions go
//! through [`fold()`](crate::fold::fold).

use std::array::from_fn;

use crate::fold::{self, fold};
use crate::real::Real;
use crate::scalar;

/// `add`: `out[i] = a[i] + b[i]`.
pub fn add<T: Real, const N: usize>(a: [T; N], b: [T; N]) -> [T; N] {
    from_fn(|i| a[i] + b[i])
}

/// `sub`: `out[i] = a[i] - b[i]`.
pub fn sub<T: Real, const N: usize>(a: [T; N], b: [T; N]) -> [T; N] {
    from_fn(|i| a[i] - b[i])
}

/// `mul` (componentwise): `out[i] = a[i] * b[i]`.
pub fn mul<T: Real, const N: usize>(a: [T; N], b: [T; N]) -> [T; N] {
    from_fn(|i| a[i] * b[i])
}

/// `scale`: `out[i] = s * a[i]` (the scalar is the left operand).
pub fn scale<T: Real, const N: usize>(a: [T; N], s: T) -> [T; N] {
    from_fn(|i| s * a[i])
}

/// `div` by a scalar: `r = 1 / s` once, then `out[i] = r * a[i]`. Not a
/// correctly rounded division per component; a tiny `s` whose reciprocal
/// overflows gives `inf * a[i]`.
pub fn div<T: Real, const N: usize>(a: [T; N], s: T) -> [T; N] {
    let r = T::ONE / s;
    from_fn(|i| r * a[i])
}

/// `neg`: `out[i] = a[i] * -1`.
pub fn neg<T: Real, const N: usize>(a: [T; N]) -> [T; N] {
    a.map(scalar::neg)
}

/// `abs`: `out[i] = fabs(a[i])`.
pub fn abs<T: Real, const N: usize>(a: [T; N]) -> [T; N] {
    a.map(scalar::abs)
}

/// `min` (componentwise): `out[i] = fmin(a[i], b[i])` (C semantics, see
/// [`scalar::fmin`]).
pub fn min<T: Real, const N: usize>(a: [T; N], b: [T; N]) -> [T; N] {
    from_fn(|i| scalar::fmin(a[i], b[i]))
}

/// `max` (componentwise): `out[i] = fmax(a[i], b[i])` (C semantics, see
/// [`scalar::fmax`]).
pub fn max<T: Real, const N: usize>(a: [T; N], b: [T; N]) -> [T; N] {
    from_fn(|i| scalar::fmax(a[i], b[i]))
}

/// `lerp`: `out[i] = a[i] + t * (b[i] - a[i])`, evaluated as written: the
/// difference, then the product with `t`, then the sum.
pub fn lerp<T: Real, const N: usize>(a: [T; N], b: [T; N], t: T) -> [T; N] {
    from_fn(|i| a[i] + t * (b[i] - a[i]))
}

/// `sum`: the [`fold()`] of `a[k]` with `new + acc`:
/// `a[N-1] + (... + (a[1] + a[0]))`.
pub fn sum<T: Real, const N: usize>(a: [T; N]) -> T {
    fold(a, fold::add)
}

/// `dot`: the [`fold()`] of the rounded products `a[k] * b[k]` with
/// `new + acc`: `a[N-1]*b[N-1] + (... + (a[1]*b[1] + a[0]*b[0]))`.
pub fn dot<T: Real, const N: usize>(a: [T; N], b: [T; N]) -> T {
    fold((0..N).map(|k| a[k] * b[k]), fold::add)
}

/// `squared_norm`: `dot(a, a)`.
pub fn squared_norm<T: Real, const N: usize>(a: [T; N]) -> T {
    dot(a, a)
}

/// `norm`: `sqrt(squared_norm(a))`. No hypot: it overflows and underflows
/// with the squares.
pub fn norm<T: Real, const N: usize>(a: [T; N]) -> T {
    squared_norm(a).sqrt()
}

/// `max_norm`: the [`fold()`] of `fabs(a[k])` with the `max_select` combiner
/// `new > acc ? new : acc` (see [`fold::max_select`] for NaN behaviour).
pub fn max_norm<T: Real, const N: usize>(a: [T; N]) -> T {
    fold(a.map(scalar::abs), fold::max_select)
}

/// `is_finite`: the [`fold()`] of `isfinite(a[k])` with `new && acc`; true
/// only when every component is finite.
pub fn is_finite<T: Real, const N: usize>(a: [T; N]) -> bool {
    fold(a.map(T::is_finite), fold::all)
}

/// `reflect` (GLSL's): `k = 2 * dot(n, v)`, the doubling exact but where it
/// overflows, then `out[i] = v[i] - k * n[i]`, the product rounded before the
/// subtraction. `n` is used as given (a true reflection needs a unit `n`).
pub fn reflect<T: Real, const N: usize>(v: [T; N], n: [T; N]) -> [T; N] {
    let k = T::TWO * dot(n, v);
    from_fn(|i| v[i] - k * n[i])
}

/// `normalize`: `n = norm(a)`, `d = div(a, n)` (one reciprocal `1 / n`, then
/// `(1/n) * a[i]`); the result is `d` when `n > 0` and `a` unchanged otherwise
/// (a zero vector, a squared norm that underflows to zero, or a NaN norm).
pub fn normalize<T: Real, const N: usize>(a: [T; N]) -> [T; N] {
    let n = norm(a);
    if n > T::ZERO {
        div(a, n)
    } else {
        a
    }
}
