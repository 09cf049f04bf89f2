//! The square matrix shapes: [`Mat<T, N>`](Mat) and its aliases [`Mat2`],
//! [`Mat3`], [`Mat4`], stored row-major (element `(r, c)` at flat index
//! `r*N + c`).

use crate::fold::{self, fold};
use crate::real::Real;
use crate::vector::{Vec2, Vec3, Vec4};

/// An `N x N` matrix stored row-major: `rows[r][c]` is element `(r, c)`, and
/// the memory order of the elements is `r` outer, `c` inner.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Mat<T, const N: usize> {
    /// The rows, top to bottom; each row left to right.
    pub rows: [[T; N]; N],
}

/// The `mat2` shape.
pub type Mat2<T> = Mat<T, 2>;
/// The `mat3` shape.
pub type Mat3<T> = Mat<T, 3>;
/// The `mat4` shape.
pub type Mat4<T> = Mat<T, 4>;

impl<T: Real, const N: usize> Mat<T, N> {
    /// The matrix with the given rows.
    pub const fn from_rows(rows: [[T; N]; N]) -> Self {
        Self { rows }
    }

    /// The matrix whose element `(r, c)` is `f(r, c)`.
    pub fn from_fn(mut f: impl FnMut(usize, usize) -> T) -> Self {
        Self { rows: std::array::from_fn(|r| std::array::from_fn(|c| f(r, c))) }
    }

    /// The elements in memory (row-major) order.
    pub fn elements(&self) -> impl Iterator<Item = T> + '_ {
        self.rows.iter().flatten().copied()
    }

    /// `identity`: `+1` on the diagonal, `+0` elsewhere.
    pub fn identity() -> Self {
        Self::from_fn(|r, c| if r == c { T::ONE } else { T::ZERO })
    }

    /// `transpose`: `out[r][c] = m[c][r]`.
    pub fn transpose(self) -> Self {
        Self::from_fn(|r, c| self.rows[c][r])
    }

    /// Matrix times column vector on arrays: `out[r]` is the fold
    /// `m[r][N-1]*v[N-1] + (... + (m[r][1]*v[1] + m[r][0]*v[0]))`, unseeded.
    /// [`mul_vec`](Mat::mul_vec) is this on the vector shape.
    pub fn mul_array(self, v: [T; N]) -> [T; N] {
        std::array::from_fn(|r| fold((0..N).map(|k| self.rows[r][k] * v[k]), fold::add))
    }

    /// `mat_mul`: entry `(r, c)` is the fold
    /// `a[r][N-1]*b[N-1][c] + (... + (a[r][1]*b[1][c] + a[r][0]*b[0][c]))`,
    /// unseeded.
    #[allow(clippy::should_implement_trait)] // the contract's name; `Mul` delegates here
    pub fn mul(self, b: Self) -> Self {
        Self::from_fn(|r, c| fold((0..N).map(|k| self.rows[r][k] * b.rows[k][c]), fold::add))
    }

    /// `mat_dot` (Frobenius product): the fold of `a[r][c] * b[r][c]` over the
    /// elements in row-major order (`r` outer, `c` inner, ascending), i.e.
    /// the `dot` of the two flat element arrays.
    pub fn dot(self, b: Self) -> T {
        fold(self.elements().zip(b.elements()).map(|(x, y)| x * y), fold::add)
    }

    /// The `M x M` matrix (`M = N - 1`) without row `row` and column `col`,
    /// the remaining elements in their original order.
    fn minor_of<const M: usize>(self, row: usize, col: usize) -> Mat<T, M> {
        assert!(M + 1 == N && row < N && col < N, "minor out of shape");
        let skip = |i: usize, cut: usize| if i < cut { i } else { i + 1 };
        Mat::from_fn(|r, c| self.rows[skip(r, row)][skip(c, col)])
    }
}

impl<T: Real> Mat2<T> {
    /// `determinant` (mat2): `m00*m11 - m01*m10`, both products rounded.
    pub fn determinant(self) -> T {
        let m = self.rows;
        m[0][0] * m[1][1] - m[0][1] * m[1][0]
    }

    /// `inverse_adjugate` (mat2): `s = 1 / det`, then
    /// `[[m11 * s, (m01 * -1) * s], [(m10 * -1) * s, m00 * s]]`.
    pub fn inverse_adjugate(self) -> Self {
        let m = self.rows;
        let s = T::ONE / self.determinant();
        Mat::from_fn(|r, c| if r == c { m[1 - c][1 - r] * s } else { (m[r][c] * T::NEG_ONE) * s })
    }
}

/// The cofactor `det(minor(i, j))`, times -1 when `i + j` is odd, of an N x N
/// matrix whose minors' determinant is `det_minor`.
fn cofactor<T: Real>(det_minor: T, i: usize, j: usize) -> T {
    if (i + j) % 2 == 1 {
        det_minor * T::NEG_ONE
    } else {
        det_minor
    }
}

impl<T: Real> Mat3<T> {
    /// The minor without row `row` and column `col`.
    pub fn minor(self, row: usize, col: usize) -> Mat2<T> {
        self.minor_of(row, col)
    }

    /// `determinant` (mat3): cofactor expansion along row 0, a left-to-right
    /// chain `(m00*det(M00) - m01*det(M01)) + m02*det(M02)`, where `M0j` is
    /// [`minor`](Self::minor)`(0, j)` and each product is rounded.
    pub fn determinant(self) -> T {
        let m = self.rows;
        m[0][0] * self.minor(0, 0).determinant() - m[0][1] * self.minor(0, 1).determinant() + m[0][2] * self.minor(0, 2).determinant()
    }

    /// `inverse_adjugate` (mat3): `s = 1 / det`, then `out[r][c]` is the
    /// cofactor of `(c, r)` times `s`.
    pub fn inverse_adjugate(self) -> Self {
        let s = T::ONE / self.determinant();
        Mat::from_fn(|r, c| cofactor(self.minor(c, r).determinant(), c, r) * s)
    }
}

impl<T: Real> Mat4<T> {
    /// The minor without row `row` and column `col`.
    pub fn minor(self, row: usize, col: usize) -> Mat3<T> {
        self.minor_of(row, col)
    }

    /// `determinant` (mat4): cofactor expansion along row 0, a left-to-right
    /// chain `((m00*det(M00) - m01*det(M01)) + m02*det(M02)) - m03*det(M03)`,
    /// where `M0j` is [`minor`](Self::minor)`(0, j)` whose determinant is the
    /// mat3 rule, and each product is rounded.
    pub fn determinant(self) -> T {
        let m = self.rows;
        m[0][0] * self.minor(0, 0).determinant() - m[0][1] * self.minor(0, 1).determinant() + m[0][2] * self.minor(0, 2).determinant()
            - m[0][3] * self.minor(0, 3).determinant()
    }

    /// `inverse_adjugate` (mat4): `s = 1 / det`, then `out[r][c]` is the
    /// cofactor of `(c, r)` (its minor's determinant by the mat3 rule) times `s`.
    pub fn inverse_adjugate(self) -> Self {
        let s = T::ONE / self.determinant();
        Mat::from_fn(|r, c| cofactor(self.minor(c, r).determinant(), c, r) * s)
    }
}

macro_rules! mul_vec {
    ($n:literal, $vec:ident) => {
        impl<T: Real> Mat<T, $n> {
            /// `mul_vec`: matrix times column vector; row `r` is the fold
            /// `m[r][N-1]*v[N-1] + (... + (m[r][1]*v[1] + m[r][0]*v[0]))`,
            /// unseeded (see [`mul_array`](Mat::mul_array)).
            pub fn mul_vec(self, v: $vec<T>) -> $vec<T> {
                $vec::from_array(self.mul_array(v.to_array()))
            }
        }

        impl<T: Real> std::ops::Mul<$vec<T>> for Mat<T, $n> {
            type Output = $vec<T>;
            /// [`mul_vec`](Mat::mul_vec).
            fn mul(self, v: $vec<T>) -> $vec<T> {
                self.mul_vec(v)
            }
        }
    };
}

mul_vec!(2, Vec2);
mul_vec!(3, Vec3);
mul_vec!(4, Vec4);

impl<T: Real, const N: usize> std::ops::Mul for Mat<T, N> {
    type Output = Self;
    /// The matrix product, [`Mat::mul`].
    fn mul(self, b: Self) -> Self {
        Mat::mul(self, b)
    }
}
