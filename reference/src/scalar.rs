//! The scalar families: `fmin`, `fmax`, `sign`, and the scalar shapes of
//! `neg` and `abs`.

use crate::real::Real;

/// `fmin` (scalar): C `fmin(a, b)`. A NaN operand is ignored when the other is
/// not NaN; both NaN gives NaN. The sign of `fmin(+0, -0)` is unspecified
/// (the contract accepts either zero).
pub fn fmin<T: Real>(a: T, b: T) -> T {
    a.fmin(b)
}

/// `fmax` (scalar): C `fmax(a, b)`. A NaN operand is ignored when the other is
/// not NaN; both NaN gives NaN. The sign of `fmax(+0, -0)` is unspecified
/// (the contract accepts either zero).
pub fn fmax<T: Real>(a: T, b: T) -> T {
    a.fmax(b)
}

/// `sign` (scalar): `a > 0 ? 1 : (a < 0 ? -1 : 0)`, so `+1`, `-1`, or `+0`
/// for `+0`, `-0` and NaN.
pub fn sign<T: Real>(a: T) -> T {
    if a > T::ZERO {
        T::ONE
    } else if a < T::ZERO {
        T::NEG_ONE
    } else {
        T::ZERO
    }
}

/// `neg` (scalar): `a * -1`, one rounded (exact) multiplication. `neg(+0)` is
/// `-0`.
pub fn neg<T: Real>(a: T) -> T {
    a * T::NEG_ONE
}

/// `abs` (scalar): C `fabs(a)`, which clears the sign bit.
pub fn abs<T: Real>(a: T) -> T {
    a.abs()
}
