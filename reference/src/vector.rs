//! The vector shapes [`Vec2`], [`Vec3`] and [`Vec4`].
//!
//! Every method is one family of the contract; it converts to the components
//! in memory order (`x, y, z, w`) and applies the rule in [`crate::arrays`].

use crate::arrays;
use crate::real::Real;

macro_rules! vector {
    ($(#[$doc:meta])* $name:ident, $n:literal, $shape:literal, [$($field:ident),+]) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        #[repr(C)]
        pub struct $name<T> {
            $(
                #[doc = concat!("The `", stringify!($field), "` component.")]
                pub $field: T,
            )+
        }

        impl<T: Real> $name<T> {
            #[doc = concat!("A ", $shape, " from its components.")]
            pub const fn new($($field: T),+) -> Self {
                Self { $($field),+ }
            }

            /// The components in memory order.
            pub fn to_array(self) -> [T; $n] {
                [$(self.$field),+]
            }

            /// The vector whose components, in memory order, are `a`.
            pub fn from_array(a: [T; $n]) -> Self {
                let [$($field),+] = a;
                Self { $($field),+ }
            }
        }

        // The method names are the contract's family keys, so `add`, `sub`,
        // `mul`, `div` and `neg` deliberately shadow the operator names; the
        // `std::ops` impls below delegate to them.
        #[allow(clippy::should_implement_trait)]
        impl<T: Real> $name<T> {
            /// `add`: `out[i] = a[i] + b[i]`.
            pub fn add(self, b: Self) -> Self {
                Self::from_array(arrays::add(self.to_array(), b.to_array()))
            }

            /// `sub`: `out[i] = a[i] - b[i]`.
            pub fn sub(self, b: Self) -> Self {
                Self::from_array(arrays::sub(self.to_array(), b.to_array()))
            }

            /// `mul` (componentwise): `out[i] = a[i] * b[i]`.
            pub fn mul(self, b: Self) -> Self {
                Self::from_array(arrays::mul(self.to_array(), b.to_array()))
            }

            /// `scale`: `out[i] = s * a[i]`.
            pub fn scale(self, s: T) -> Self {
                Self::from_array(arrays::scale(self.to_array(), s))
            }

            /// `div` by a scalar: `r = 1 / s` once, then `out[i] = r * a[i]`
            /// (not `a[i] / s`).
            pub fn div(self, s: T) -> Self {
                Self::from_array(arrays::div(self.to_array(), s))
            }

            /// `neg`: `out[i] = a[i] * -1`.
            pub fn neg(self) -> Self {
                Self::from_array(arrays::neg(self.to_array()))
            }

            /// `abs`: `out[i] = fabs(a[i])`.
            pub fn abs(self) -> Self {
                Self::from_array(arrays::abs(self.to_array()))
            }

            /// `min`: `out[i] = fmin(a[i], b[i])`, C semantics.
            pub fn min(self, b: Self) -> Self {
                Self::from_array(arrays::min(self.to_array(), b.to_array()))
            }

            /// `max`: `out[i] = fmax(a[i], b[i])`, C semantics.
            pub fn max(self, b: Self) -> Self {
                Self::from_array(arrays::max(self.to_array(), b.to_array()))
            }

            /// `lerp`: `out[i] = a[i] + t * (b[i] - a[i])`.
            pub fn lerp(self, b: Self, t: T) -> Self {
                Self::from_array(arrays::lerp(self.to_array(), b.to_array(), t))
            }

            /// `sum`: the fold `a[N-1] + (... + (a[1] + a[0]))`, unseeded.
            pub fn sum(self) -> T {
                arrays::sum(self.to_array())
            }

            /// `dot`: the fold `a[N-1]*b[N-1] + (... + (a[1]*b[1] + a[0]*b[0]))`,
            /// unseeded, each product rounded.
            pub fn dot(self, b: Self) -> T {
                arrays::dot(self.to_array(), b.to_array())
            }

            /// `squared_norm`: `dot(a, a)`.
            pub fn squared_norm(self) -> T {
                arrays::squared_norm(self.to_array())
            }

            /// `norm`: `sqrt(squared_norm(a))`, no hypot.
            pub fn norm(self) -> T {
                arrays::norm(self.to_array())
            }

            /// `max_norm`: the fold of `fabs(a[k])` with
            /// `new > acc ? new : acc`.
            pub fn max_norm(self) -> T {
                arrays::max_norm(self.to_array())
            }

            /// `is_finite`: true when every component is finite.
            pub fn is_finite(self) -> bool {
                arrays::is_finite(self.to_array())
            }

            /// `normalize`: `n = norm(a)`; `(1/n) * a[i]` (one reciprocal) when
            /// `n > 0`, else `a` unchanged.
            pub fn normalize(self) -> Self {
                Self::from_array(arrays::normalize(self.to_array()))
            }
        }

        impl<T: Real> std::ops::Add for $name<T> {
            type Output = Self;
            /// [`add`](Self::add).
            fn add(self, b: Self) -> Self {
                $name::add(self, b)
            }
        }

        impl<T: Real> std::ops::Sub for $name<T> {
            type Output = Self;
            /// [`sub`](Self::sub).
            fn sub(self, b: Self) -> Self {
                $name::sub(self, b)
            }
        }

        impl<T: Real> std::ops::Mul for $name<T> {
            type Output = Self;
            /// Componentwise [`mul`](Self::mul).
            fn mul(self, b: Self) -> Self {
                $name::mul(self, b)
            }
        }

        impl<T: Real> std::ops::Div<T> for $name<T> {
            type Output = Self;
            /// [`div`](Self::div): one reciprocal, then products.
            fn div(self, s: T) -> Self {
                $name::div(self, s)
            }
        }

        impl<T: Real> std::ops::Neg for $name<T> {
            type Output = Self;
            /// [`neg`](Self::neg): `a[i] * -1`.
            fn neg(self) -> Self {
                $name::neg(self)
            }
        }
    };
}

vector!(
    /// The `vec2` shape: components `x, y` in memory order.
    Vec2, 2, "vec2", [x, y]
);
vector!(
    /// The `vec3` shape: components `x, y, z` in memory order.
    Vec3, 3, "vec3", [x, y, z]
);
vector!(
    /// The `vec4` shape: components `x, y, z, w` in memory order.
    Vec4, 4, "vec4", [x, y, z, w]
);

impl<T: Real> Vec3<T> {
    /// `cross`: each component `p*q - r*s`, both products rounded, then one
    /// rounded subtraction:
    ///
    /// ```text
    /// x = a.y*b.z - a.z*b.y
    /// y = a.z*b.x - a.x*b.z
    /// z = a.x*b.y - a.y*b.x
    /// ```
    pub fn cross(self, b: Self) -> Self {
        let a = self;
        Self { x: a.y * b.z - a.z * b.y, y: a.z * b.x - a.x * b.z, z: a.x * b.y - a.y * b.x }
    }

    /// `reflect`: `k = 2 * dot(n, v)`, then `v[i] - k * n[i]`, each product
    /// rounded (GLSL's reflect of `self` about the normal `n`, as given).
    pub fn reflect(self, n: Self) -> Self {
        Self::from_array(arrays::reflect(self.to_array(), n.to_array()))
    }
}
