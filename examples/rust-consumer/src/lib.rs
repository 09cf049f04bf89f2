//! A glam user's deterministic math: the values stay glam's, the arithmetic
//! is the aether contract's, so every machine gets the same bits.
//!
//! ```
//! use glam::{Mat4, Vec3};
//!
//! let m = Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0));
//! let moved = aether_rust_consumer::transform_points(&m, &[Vec3::ZERO, Vec3::X]);
//! assert_eq!(moved, vec![Vec3::new(1.0, 2.0, 3.0), Vec3::new(2.0, 2.0, 3.0)]);
//! ```

use aether_core::{Mat4f, Quatf, Vec3f, Vec4f};

/// Every point transformed by `m` (as a glam user writes `m.transform_point3(p)`, for an
/// affine `m`), with the contract's matrix-vector product: the same bits on x86_64 with or
/// without FMA, aarch64 and wasm32.
///
/// ```
/// use glam::{Mat4, Vec3};
/// let m = Mat4::from_scale(Vec3::splat(2.0));
/// assert_eq!(aether_rust_consumer::transform_points(&m, &[Vec3::ONE]), vec![Vec3::splat(2.0)]);
/// ```
pub fn transform_points(m: &glam::Mat4, points: &[glam::Vec3]) -> Vec<glam::Vec3> {
    let m = Mat4f::from(*m);
    points
        .iter()
        .map(|p| {
            let r = m * Vec4f::new(p.x, p.y, p.z, 1.0);
            glam::Vec3::new(r.x, r.y, r.z)
        })
        .collect()
}

/// `v` rotated by the unit quaternion `q`, the contract's rotation (glam's `q * v` may fuse or
/// reorder its products on another target).
///
/// ```
/// use glam::{Quat, Vec3};
/// let v = aether_rust_consumer::rotate(Quat::IDENTITY, Vec3::new(1.0, 2.0, 3.0));
/// assert_eq!(v, Vec3::new(1.0, 2.0, 3.0));
/// ```
pub fn rotate(q: glam::Quat, v: glam::Vec3) -> glam::Vec3 {
    Quatf::from(q).rotate(Vec3f::from(v)).into()
}

/// The sine and cosine of `a` by the contract's polynomials (not the platform's libm, which
/// differs between operating systems).
///
/// ```
/// let (s, c) = aether_rust_consumer::sin_cos(0.0);
/// assert_eq!((s, c), (0.0, 1.0));
/// ```
pub fn sin_cos(a: f32) -> (f32, f32) {
    let v = aether_core::aether_f32_sincos(a);
    (v.x, v.y)
}

/// The compensated sum of a vertex buffer's coordinates, read through bytemuck as one slice of
/// floats (the structs are `Pod`): the same bits whatever the order of SIMD lanes on the target.
///
/// ```
/// use aether_core::Vec3f;
/// let pts = [Vec3f::new(1.0e8, 1.0, -1.0e8), Vec3f::new(0.5, 0.25, 0.0)];
/// assert_eq!(aether_rust_consumer::coordinate_sum(&pts), 1.75);
/// ```
pub fn coordinate_sum(points: &[Vec3f]) -> f32 {
    let flat: &[f32] = bytemuck::cast_slice(points);
    aether_core::aether_f32_sum_array(flat).expect("one slice has one length")
}
