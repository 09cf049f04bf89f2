//! The quaternion shape [`Quat`]: a 4-vector laid out `(w, x, y, z)`.

use crate::arrays;
use crate::real::Real;
use crate::scalar;
use crate::vector::Vec3;

/// The `quat` shape: components `w, x, y, z` in memory order (the scalar part
/// first).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Quat<T> {
    /// The scalar part.
    pub w: T,
    /// The `i` component.
    pub x: T,
    /// The `j` component.
    pub y: T,
    /// The `k` component.
    pub z: T,
}

impl<T: Real> Quat<T> {
    /// A quaternion from its components, scalar part first.
    pub const fn new(w: T, x: T, y: T, z: T) -> Self {
        Self { w, x, y, z }
    }

    /// The components in memory order `[w, x, y, z]`.
    pub fn to_array(self) -> [T; 4] {
        [self.w, self.x, self.y, self.z]
    }

    /// The quaternion whose components, in memory order `w, x, y, z`, are `a`.
    pub fn from_array(a: [T; 4]) -> Self {
        let [w, x, y, z] = a;
        Self { w, x, y, z }
    }

    /// The vector part `(x, y, z)`.
    pub fn vector(self) -> Vec3<T> {
        Vec3::new(self.x, self.y, self.z)
    }

    /// `normalize` (quat): as for vectors, over the components in memory
    /// order `w, x, y, z`: `n = sqrt(z*z + (y*y + (x*x + w*w)))`; when `n > 0`
    /// each component is `(1/n) * c` (one reciprocal), else the input is
    /// returned unchanged.
    pub fn normalize(self) -> Self {
        Self::from_array(arrays::normalize(self.to_array()))
    }

    /// `quat_mul`: the Hamilton product `a b`, each component a left-to-right
    /// chain of four rounded products:
    ///
    /// ```text
    /// w = ((a.w*b.w - a.x*b.x) - a.y*b.y) - a.z*b.z
    /// x = ((a.w*b.x + a.x*b.w) + a.y*b.z) - a.z*b.y
    /// y = ((a.w*b.y - a.x*b.z) + a.y*b.w) + a.z*b.x
    /// z = ((a.w*b.z + a.x*b.y) - a.y*b.x) + a.z*b.w
    /// ```
    #[allow(clippy::should_implement_trait)] // the contract's name; `Mul` delegates here
    pub fn mul(self, b: Self) -> Self {
        let a = self;
        Self {
            w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
            x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        }
    }

    /// `conjugate`: `(w, x * -1, y * -1, z * -1)`.
    pub fn conjugate(self) -> Self {
        Self { w: self.w, x: scalar::neg(self.x), y: scalar::neg(self.y), z: scalar::neg(self.z) }
    }

    /// `rotate` `v` by `self` (`q`): with `u = (q.x, q.y, q.z)`,
    ///
    /// ```text
    /// t      = scale(cross(u, v), 2)          t[i] = 2 * cross(u, v)[i]
    /// out[i] = (v[i] + q.w * t[i]) + cross(u, t)[i]
    /// ```
    ///
    /// i.e. `add(add(v, scale(t, q.w)), cross(u, t))`. Equals `q v q*` for a
    /// unit `q`; a non-unit `q` is not rescaled.
    pub fn rotate(self, v: Vec3<T>) -> Vec3<T> {
        let u = self.vector();
        let t = u.cross(v).scale(T::TWO);
        v.add(t.scale(self.w)).add(u.cross(t))
    }
}

impl<T: Real> std::ops::Mul for Quat<T> {
    type Output = Self;
    /// The Hamilton product, [`Quat::mul`].
    fn mul(self, b: Self) -> Self {
        Quat::mul(self, b)
    }
}
