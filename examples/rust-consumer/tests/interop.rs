//! The conversions only move values: the orientation of glam's column-major matrices and its
//! (x, y, z, w) quaternion against the core's row-major matrices and (w, x, y, z) quaternion.

use aether_core::{Mat3d, Mat4f, Quatf, Vec3f, Vec4f};

#[test]
fn glam_matrices_keep_their_meaning() {
    // A translation: glam keeps it in column 3; the core's row-major m has it at m[3], m[7], m[11].
    let g = glam::Mat4::from_translation(glam::Vec3::new(1.0, 2.0, 3.0));
    let m = Mat4f::from(g);
    assert_eq!([m.m[3], m.m[7], m.m[11]], [1.0, 2.0, 3.0]);
    assert_eq!(glam::Mat4::from(m), g, "a round trip is the identity");
    // Exact small integers: glam's product and the core's agree bit for bit.
    let a = glam::Mat4::from_cols_array(&core::array::from_fn(|k| (k as f32) - 7.0));
    let v = glam::Vec4::new(1.0, -2.0, 3.0, 0.5);
    let ours = Mat4f::from(a) * Vec4f::from(v);
    assert_eq!(glam::Vec4::from(ours), a * v);
    assert_eq!(glam::Mat4::from(Mat4f::from(a) * Mat4f::from(a)), a * a);
    let d = glam::DMat3::from_cols_array(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0]);
    assert_eq!(glam::DMat3::from(Mat3d::from(d)), d);
}

#[test]
fn glam_and_mint_quaternions_are_renamed_not_reordered() {
    let g = glam::Quat::from_xyzw(0.1, 0.2, 0.3, 0.9);
    let q = Quatf::from(g);
    assert_eq!((q.w, q.x, q.y, q.z), (0.9, 0.1, 0.2, 0.3));
    assert_eq!(glam::Quat::from(q), g);
    let mq: mint::Quaternion<f32> = q.into();
    assert_eq!((mq.s, mq.v.x, mq.v.y, mq.v.z), (0.9, 0.1, 0.2, 0.3));
    assert_eq!(Quatf::from(mq), q);
}

#[test]
fn mint_rows_are_rows() {
    let m = Mat4f::from_array(core::array::from_fn(|k| k as f32));
    let r: mint::RowMatrix4<f32> = m.into();
    assert_eq!((r.x.y, r.y.x, r.w.z), (1.0, 4.0, 14.0));
    assert_eq!(Mat4f::from(r), m);
    let v: mint::Vector3<f32> = Vec3f::new(1.0, 2.0, 3.0).into();
    assert_eq!(Vec3f::from(v), Vec3f::new(1.0, 2.0, 3.0));
}

#[test]
fn structs_are_pod() {
    let v = [Vec3f::new(1.0, 2.0, 3.0); 2];
    let bytes: &[u8] = bytemuck::cast_slice(&v);
    assert_eq!(bytes.len(), 24);
    assert_eq!(&bytes[4..8], &2.0_f32.to_le_bytes());
}
