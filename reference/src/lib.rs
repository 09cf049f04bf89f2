//! The hand-written Rust reference of the aether numerics contract: the oracle
//! every language core is checked against.
//!
//! Every function is written out by hand from the contract
//! (`spec/aether.toml` and the prose numerics contract), in its exact order of
//! IEEE operations:
//!
//! * element types `f32` and `f64` ([`Real`]); nothing promotes, and no
//!   product is ever fused into a sum (Rust never contracts or reassociates);
//! * every reduction is the one [`fold::fold()`]: sequential, right-nested with
//!   the highest index outermost, unseeded,
//!   `t[N-1] + (t[N-2] + (... + t[0]))`;
//! * division by a scalar is one reciprocal `1/s` and a product per component;
//! * `neg` is `x * -1`; `norm` is `sqrt` of the squared norm (no hypot).
//!
//! The shapes are [`Vec2`], [`Vec3`], [`Vec4`] (components `x, y, z, w`),
//! [`Quat`] (`w, x, y, z`) and the row-major [`Mat2`], [`Mat3`], [`Mat4`].
//! The scalar families live in [`scalar`], the vector rules on plain arrays in
//! [`arrays`], and [`flat`] exposes every instantiated function to checkers
//! as raw IEEE words.
//!
//! [`compensated`] is the compensated (Neumaier) summation of arrays: the
//! error-free [`compensated::two_sum`] and its residual, the
//! [`compensated::Pair`] of a rounded sum and its compensation, the 32-lane
//! accumulator whose lane is the element's global index modulo 32 (so batching
//! changes no bit), the xor-butterfly [`compensated::reduce32`], and the
//! per-component accumulation plane. A compensation is reset to `+0` whenever
//! the rounded sum is not finite.
//!
//! [`df64`] is the double-float arithmetic of the contract's `[df64]`
//! sections, for the f64 functions on targets without binary64: a value is
//! the unevaluated sum `hi + lo` of two `f32` words, and each operation
//! (Knuth's and Dekker's error-free transforms, Veltkamp's split, and the
//! Joldes–Muller–Popescu sum, products and quotient, a Newton square root,
//! the comparisons) is its exact sequence of binary32 operations, with the
//! stated relative bounds in units of `u^2` (`u = 2^-24`).
//!
//! [`linalg`] is the per-lane linear algebra on [`Mat<T, N>`](Mat) and
//! `[T; N]` (`N` = 2, 3, 4): LU with partial pivoting (1-based `ipiv`,
//! reciprocal multipliers, finished dot products), the triangular solves,
//! `det_lu`, `inverse`, Cholesky of the symmetric part, and the symmetric
//! eigen-decomposition by [`linalg::EIGH_SWEEPS`] cyclic Jacobi sweeps.
//!
//! [`ulp`] measures the distance between two floats in units in the last
//! place, on the ordered integer line valid across signs (+0 and -0 one
//! point, a NaN against a number infinitely far): the unit of the bands of
//! the cores that are not bit-exact.
//!
//! [`angle`] is integer ADM's one-degree angle test as libvmaf's golden data
//! freezes it (operands narrowed to binary32, compared in binary64), next to
//! an integer-only evaluation with the same answers, three wrong spellings as
//! negative controls, named witnesses, and seeded sweep generators.

#![warn(missing_docs)]

pub mod angle;
pub mod arrays;
pub mod compensated;
pub mod df64;
pub mod elementary;
pub mod flat;
pub mod fold;
pub mod linalg;
mod matrix;
mod quat;
pub mod real;
pub mod scalar;
pub mod ulp;
mod vector;

pub use matrix::{Mat, Mat2, Mat3, Mat4};
pub use quat::Quat;
pub use real::Real;
pub use vector::{Vec2, Vec3, Vec4};
