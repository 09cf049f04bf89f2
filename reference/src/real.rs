//! The element types of the contract: [`Real`], implemented for `f32` and `f64`.
//!
//! Nothing promotes: every operation of an `f32` function is an `f32`
//! operation. The trait only names what the contract needs; arithmetic is the
//! plain IEEE operators (`+ - * /`, each rounded once, never fused).

use std::fmt::Debug;
use std::ops::{Add, Div, Mul, Sub};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// An IEEE binary floating-point element type of the contract (`f32` or `f64`).
///
/// Sealed: the contract has exactly these two element types.
pub trait Real:
    sealed::Sealed
    + Copy
    + Debug
    + Default
    + PartialEq
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Send
    + Sync
    + 'static
{
    /// `+0`.
    const ZERO: Self;
    /// `+1`.
    const ONE: Self;
    /// `+2` (the factor in `rotate`).
    const TWO: Self;
    /// `+0.5` (the factor of the symmetrised reads of `cholesky` and `eigh`).
    const HALF: Self;
    /// `-1` (the factor of `neg`, which the contract spells `x * -1`).
    const NEG_ONE: Self;
    /// Width of the bit pattern: 32 or 64.
    const BITS: u32;
    /// The element key used in the flat convention: `"f32"` or `"f64"`.
    const NAME: &'static str;

    /// The raw IEEE bit pattern, zero-extended to 64 bits (an `f32` occupies
    /// the low 32 bits).
    fn to_word(self) -> u64;
    /// The value whose raw IEEE bit pattern is `word`, or `None` when `word`
    /// has bits set above [`Real::BITS`].
    fn from_word(word: u64) -> Option<Self>;
    /// Correctly rounded square root (C `sqrtf` / `sqrt`).
    fn sqrt(self) -> Self;
    /// C `fabsf` / `fabs`: clears the sign bit, a NaN payload is kept.
    fn abs(self) -> Self;
    /// C `fminf` / `fmin`: a NaN operand is ignored when the other is not NaN;
    /// both NaN gives NaN. The sign of `fmin(+0, -0)` is unspecified.
    fn fmin(self, other: Self) -> Self;
    /// C `fmaxf` / `fmax`: a NaN operand is ignored when the other is not NaN;
    /// both NaN gives NaN. The sign of `fmax(+0, -0)` is unspecified.
    fn fmax(self, other: Self) -> Self;
    /// C `isfinite`: neither infinite nor NaN.
    fn is_finite(self) -> bool;
}

macro_rules! impl_real {
    ($t:ident, $bits_ty:ident, $bits:literal) => {
        impl Real for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const TWO: Self = 2.0;
            const HALF: Self = 0.5;
            const NEG_ONE: Self = -1.0;
            const BITS: u32 = $bits;
            const NAME: &'static str = stringify!($t);

            fn to_word(self) -> u64 {
                u64::from(self.to_bits())
            }
            fn from_word(word: u64) -> Option<Self> {
                $bits_ty::try_from(word).ok().map($t::from_bits)
            }
            fn sqrt(self) -> Self {
                $t::sqrt(self)
            }
            fn abs(self) -> Self {
                $t::abs(self)
            }
            // Rust's `min`/`max` return the other operand when one is NaN:
            // exactly C fmin/fmax.
            fn fmin(self, other: Self) -> Self {
                $t::min(self, other)
            }
            fn fmax(self, other: Self) -> Self {
                $t::max(self, other)
            }
            fn is_finite(self) -> bool {
                $t::is_finite(self)
            }
        }
    };
}

impl_real!(f32, u32, 32);
impl_real!(f64, u64, 64);
