//! Hand-computed checks of the contract's operation order.
//!
//! Every expected value below was worked out by hand (the reasoning is in the
//! comments) and is compared bit for bit.

use aether_reference::flat::{entries, input_words, lookup};
use aether_reference::{arrays, scalar, Mat2, Mat3, Mat4, Quat, Real, Vec2, Vec3, Vec4};

const NAN32: f32 = f32::NAN;

fn bits32(x: f32) -> u32 {
    x.to_bits()
}

fn assert_bits32(got: f32, want: u32) {
    assert_eq!(got.to_bits(), want, "got {got:e} ({:#x}), want {want:#x}", got.to_bits());
}

fn assert_vec_bits32<const N: usize>(got: [f32; N], want: [u32; N]) {
    assert_eq!(got.map(bits32), want, "got {got:?}");
}

// ------------------------------------------------------------------ folds

#[test]
fn sum_is_ascending_not_descending() {
    // f32 ulp at 1e8 is 8. Right-nested, highest index outermost:
    // -1e8 + (1e8 + 1) = -1e8 + 1e8 = +0. A descending fold would give
    // 1 + (1e8 + -1e8) = 1.
    let a = Vec3::new(1.0f32, 1e8, -1e8);
    assert_bits32(a.sum(), 0x0000_0000);
}

#[test]
fn dot_is_right_nested_not_pairwise() {
    // Products (1e8, 1, -1e8, 1), all exact in f32 (1e8 = 2^8 * 390625).
    // Contract: 1 + (-1e8 + (1 + 1e8)) = 1 + (-1e8 + 1e8) = 1.
    // Pairwise (1e8 + 1) + (-1e8 + 1) = 1e8 + -1e8 = 0;
    // descending 1e8 + (1 + (-1e8 + 1)) = 1e8 + -1e8 = 0.
    let a = Vec4::new(1e4f32, 1.0, -1e4, 1.0);
    let b = Vec4::new(1e4f32, 1.0, 1e4, 1.0);
    assert_bits32(a.dot(b), 0x3f80_0000);
}

#[test]
fn dot_vec3_rounds_each_product_then_folds() {
    // (1e4*-1e4) + ((1e4*1e4) + 1*1) = -1e8 + 1e8 = +0 in f32.
    let a = Vec3::new(1.0f32, 1e4, 1e4);
    let b = Vec3::new(1.0f32, 1e4, -1e4);
    assert_bits32(a.dot(b), 0);
    // In f64 1e8 + 1 is exact, so the same inputs give 1.
    let a = Vec3::new(1.0f64, 1e4, 1e4);
    let b = Vec3::new(1.0f64, 1e4, -1e4);
    assert_eq!(a.dot(b).to_bits(), 1.0f64.to_bits());
}

#[test]
fn fold_has_no_zero_seed() {
    // -0 + (-0 + -0) = -0; a +0 seed would give +0.
    let z = Vec3::new(-0.0f32, -0.0, -0.0);
    assert_bits32(z.sum(), 0x8000_0000);
    let z = Vec2::new(-0.0f64, -0.0);
    assert_eq!(z.sum().to_bits(), 0x8000_0000_0000_0000);
    // dot of (-0, -0) with (1, 1): -0 + -0 = -0.
    let d = Vec2::new(-0.0f32, -0.0).dot(Vec2::new(1.0, 1.0));
    assert_bits32(d, 0x8000_0000);
}

#[test]
fn fold_helper_puts_the_new_term_on_the_left() {
    // Record the operand order: combine(new, acc) = format "(new acc)".
    let order = aether_reference::fold::fold(["0", "1", "2", "3"].map(String::from), |new, acc| format!("({new} {acc})"));
    assert_eq!(order, "(3 (2 (1 0)))");
}

#[test]
fn max_norm_follows_new_gt_acc() {
    // acc = NaN first: every `new > NaN` is false, the NaN survives.
    assert!(Vec3::new(NAN32, 1.0, 2.0).max_norm().is_nan());
    // A NaN later is skipped: acc = 1; NaN > 1 false -> 1; 2 > 1 -> 2.
    assert_bits32(Vec3::new(1.0f32, NAN32, 2.0).max_norm(), 0x4000_0000);
    // Last NaN: 2 stays (the swapped `acc > new ? acc : new` would give NaN).
    assert_bits32(Vec3::new(-1.0f32, -2.0, NAN32).max_norm(), 0x4000_0000);
    // Absolute values: max(|-3|, |2|) = 3.
    assert_bits32(Vec2::new(-3.0f32, 2.0).max_norm(), 0x4040_0000);
}

#[test]
fn is_finite_needs_every_component() {
    assert!(Vec3::new(1.0f32, 2.0, 3.0).is_finite());
    assert!(!Vec3::new(1.0f32, f32::INFINITY, 3.0).is_finite());
    assert!(!Vec4::new(1.0f64, 2.0, 3.0, f64::NAN).is_finite());
    assert!(!Vec2::new(f64::NEG_INFINITY, 0.0).is_finite());
}

#[test]
fn norm_has_no_hypot() {
    assert_bits32(Vec2::new(3.0f32, 4.0).norm(), 0x40a0_0000);
    // 1e20^2 overflows f32: sqrt(inf) = inf, where hypot would give 1e20.
    assert_eq!(Vec2::new(1e20f32, 0.0).norm(), f32::INFINITY);
    // 1e-30^2 underflows to 0.
    assert_bits32(Vec2::new(1e-30f32, 0.0).norm(), 0);
}

// ----------------------------------------------------------- componentwise

#[test]
fn div_multiplies_by_one_reciprocal() {
    // 1/3 in f32 rounds up to 0x3eaaaaab = 0.3333333433. Times 5 that is
    // 1.6666667163, nearer 0x3fd55556 (1.6666667461) than 0x3fd55555
    // (1.6666666269); the correctly rounded 5/3 is 0x3fd55555.
    let got = Vec3::new(5.0f32, 7.0, 10.0).div(3.0);
    assert_vec_bits32(got.to_array(), [0x3fd5_5556, 0x4015_5556, 0x4055_5556]);
    assert_ne!(got.x, 5.0f32 / 3.0);
    // f64: (1/3)*5 = 0x1.aaaaaaaaaaaaap+0, while 5/3 = 0x1.aaaaaaaaaaaabp+0.
    let got = Vec2::new(5.0f64, 0.0).div(3.0);
    assert_eq!(got.x.to_bits(), 0x3ffa_aaaa_aaaa_aaaa);
    assert_ne!(got.x, 5.0f64 / 3.0);
    // A reciprocal that overflows gives inf * x (and inf * 0 = NaN).
    let got = Vec2::new(1.0f32, 0.0).div(1e-40);
    assert_eq!(got.x, f32::INFINITY);
    assert!(got.y.is_nan());
}

#[test]
fn neg_is_times_minus_one() {
    assert_bits32(scalar::neg(0.0f32), 0x8000_0000);
    assert_bits32(scalar::neg(-0.0f32), 0);
    assert_eq!(scalar::neg(0.0f64).to_bits(), 0x8000_0000_0000_0000);
    let v = Vec3::new(0.0f32, -2.0, 1.5).neg();
    assert_vec_bits32(v.to_array(), [0x8000_0000, 0x4000_0000, 0xbfc0_0000]);
}

#[test]
fn abs_clears_the_sign_bit() {
    assert_bits32(scalar::abs(-0.0f32), 0);
    let nan = f32::from_bits(0xffc0_0001);
    assert_eq!(scalar::abs(nan).to_bits(), 0x7fc0_0001);
    assert_vec_bits32(Vec2::new(-1.0f32, 2.0).abs().to_array(), [0x3f80_0000, 0x4000_0000]);
}

#[test]
fn sign_of_zero_and_nan_is_plus_zero() {
    assert_bits32(scalar::sign(-0.0f32), 0);
    assert_bits32(scalar::sign(0.0f32), 0);
    assert_bits32(scalar::sign(NAN32), 0);
    assert_bits32(scalar::sign(-3.0f32), 0xbf80_0000);
    assert_bits32(scalar::sign(1e-45f32), 0x3f80_0000);
    assert_eq!(scalar::sign(f64::NEG_INFINITY), -1.0);
}

#[test]
fn fmin_fmax_ignore_a_single_nan() {
    assert_eq!(scalar::fmin(NAN32, 2.0), 2.0);
    assert_eq!(scalar::fmin(2.0, NAN32), 2.0);
    assert_eq!(scalar::fmax(NAN32, -2.0), -2.0);
    assert!(scalar::fmax(f64::NAN, f64::NAN).is_nan());
    assert_eq!(scalar::fmin(1.0f64, -1.0), -1.0);
    let m = Vec2::new(NAN32, 5.0).min(Vec2::new(1.0, NAN32));
    assert_eq!(m, Vec2::new(1.0, 5.0));
    let m = Vec2::new(NAN32, 5.0).max(Vec2::new(1.0, 7.0));
    assert_eq!(m, Vec2::new(1.0, 7.0));
}

#[test]
fn lerp_is_a_plus_t_times_difference() {
    // b - a = 2.6f - 0.1f = 2.4999999031 -> 2.5 exactly; 0.7f * 2.5 =
    // 1.7499999702 -> 1.75; 0.1f + 1.75 = 1.8500000015 -> 0x3feccccd.
    // (1 - t)*a + t*b would give 0x3feccccc.
    let got = Vec2::new(0.1f32, 0.0).lerp(Vec2::new(2.6, 1.0), 0.7);
    assert_vec_bits32(got.to_array(), [0x3fec_cccd, 0x3f33_3333]);
}

#[test]
fn reflect_is_v_minus_twice_the_dot_times_n() {
    // k = 2 * dot(n, v) = 2 * (0.8f*0.7f + (0.6f*0.1f + 0*0.1f)), then
    // v[i] - k * n[i] with the product rounded: y and z below. One rounding
    // of v[i] - k * n[i] (an FMA) would give 0xbf24dd30 and 0xbe958107.
    let got = Vec3::new(0.1f32, 0.1, 0.7).reflect(Vec3::new(0.0, 0.6, 0.8));
    assert_vec_bits32(got.to_array(), [0x3dcc_cccd, 0xbf24_dd2f, 0xbe95_8108]);
}

#[test]
fn scale_add_sub_mul() {
    let a = Vec4::new(1.0f64, 2.0, 3.0, 4.0);
    let b = Vec4::new(0.5f64, -1.0, 2.0, 0.0);
    assert_eq!(a.add(b), Vec4::new(1.5, 1.0, 5.0, 4.0));
    assert_eq!(a.sub(b), Vec4::new(0.5, 3.0, 1.0, 4.0));
    assert_eq!(a.mul(b), Vec4::new(0.5, -2.0, 6.0, 0.0));
    assert_eq!(a.scale(-2.0), Vec4::new(-2.0, -4.0, -6.0, -8.0));
    assert_eq!(a + b, a.add(b));
    assert_eq!(-a, a.neg());
    assert_eq!(a / 4.0, a.div(4.0));
}

#[test]
fn cross_is_right_handed() {
    let x = Vec3::new(1.0f32, 0.0, 0.0);
    let y = Vec3::new(0.0f32, 1.0, 0.0);
    assert_eq!(x.cross(y), Vec3::new(0.0, 0.0, 1.0));
    assert_eq!(y.cross(x), Vec3::new(0.0, 0.0, -1.0));
    // (2,3,4) x (5,6,7) = (3*7-4*6, 4*5-2*7, 2*6-3*5) = (-3, 6, -3)
    assert_eq!(Vec3::new(2.0f64, 3.0, 4.0).cross(Vec3::new(5.0, 6.0, 7.0)), Vec3::new(-3.0, 6.0, -3.0));
}

// -------------------------------------------------------------- normalize

#[test]
fn normalize_uses_one_reciprocal() {
    // |(1, 6)| = sqrt(37) = 0x40c2a5fe; r = 1/n = 0x3e285835. r * 6 =
    // 0x3f7c8450, while 6 / n would be 0x3f7c844f.
    let got = Vec2::new(1.0f32, 6.0).normalize();
    assert_vec_bits32(got.to_array(), [0x3e28_5835, 0x3f7c_8450]);
}

#[test]
fn normalize_returns_the_input_when_the_norm_is_not_positive() {
    let zero = Vec3::new(-0.0f32, 0.0, -0.0);
    assert_vec_bits32(zero.normalize().to_array(), [0x8000_0000, 0, 0x8000_0000]);
    // The squared norm underflows to 0: returned unchanged.
    let tiny = Vec2::new(1e-30f32, -1e-30);
    assert_eq!(tiny.normalize(), tiny);
    // A NaN norm: returned unchanged (payload and all).
    let nan = f32::from_bits(0x7fc0_1234);
    let v = Vec4::new(1.0f32, nan, 2.0, 3.0);
    assert_vec_bits32(v.normalize().to_array(), [0x3f80_0000, 0x7fc0_1234, 0x4000_0000, 0x4040_0000]);
    let q = Quat::new(0.0f64, -0.0, 0.0, 0.0);
    assert_eq!(q.normalize().x.to_bits(), 0x8000_0000_0000_0000);
}

#[test]
fn quat_normalize_folds_in_memory_order() {
    // (w, x, y, z) = (4096, 1, 1, 1) in f32, squares (2^24, 1, 1, 1) folded
    // w first: 1 + (1 + (1 + 2^24)); each 2^24 + 1 is a tie that rounds to
    // even 2^24, so n = sqrt(2^24) = 4096 and r = 2^-12 exactly. Folding
    // x, y, z first would give 2^24 + 3 -> 2^24 + 4 and n = 4096 + 2^-11.
    let q = Quat::new(4096.0f32, 1.0, 1.0, 1.0).normalize();
    assert_vec_bits32(q.to_array(), [0x3f80_0000, 0x3980_0000, 0x3980_0000, 0x3980_0000]);
    let q = Quat::new(0.0f64, 3.0, 0.0, 4.0).normalize();
    // r = 1/5 = 0.2 (rounded); 0.2 * 3 = 0.6000000000000001, 0.2 * 4 = 0.8.
    assert_eq!(q.to_array(), [0.0, 0.6000000000000001, 0.0, 0.8]);
}

// ------------------------------------------------------------ quaternions

#[test]
fn hamilton_product() {
    let i = Quat::new(0.0f32, 1.0, 0.0, 0.0);
    let j = Quat::new(0.0f32, 0.0, 1.0, 0.0);
    let k = Quat::new(0.0f32, 0.0, 0.0, 1.0);
    assert_eq!(i.mul(j), k);
    assert_eq!(j.mul(k), i);
    assert_eq!(k.mul(i), j);
    assert_eq!(j.mul(i), k.conjugate());
    assert_eq!(i.mul(i), Quat::new(-1.0, 0.0, 0.0, 0.0));
    // (1,2,3,4)(5,6,7,8): w = 5-12-21-32 = -60, x = 6+10+24-28 = 12,
    // y = 7-16+15+24 = 30, z = 8+14-18+20 = 24.
    let a = Quat::new(1.0f64, 2.0, 3.0, 4.0);
    let b = Quat::new(5.0f64, 6.0, 7.0, 8.0);
    assert_eq!(a * b, Quat::new(-60.0, 12.0, 30.0, 24.0));
}

#[test]
fn hamilton_product_is_a_left_to_right_chain() {
    // w = ((a.w*b.w - a.x*b.x) - a.y*b.y) - a.z*b.z with products
    // (1e8, 1e8, -1, 0) in f32: (1e8 - 1e8) - -1 - 0 = 1. Grouping the last
    // three first, 1e8 - (1e8 + -1) would round to 0.
    let a = Quat::new(1e4f32, 1e4, 1.0, 0.0);
    let b = Quat::new(1e4f32, 1e4, -1.0, 0.0);
    assert_bits32(a.mul(b).w, 0x3f80_0000);
}

#[test]
fn conjugate_negates_the_vector_part() {
    let q = Quat::new(1.0f32, 0.0, -0.0, 2.0).conjugate();
    assert_vec_bits32(q.to_array(), [0x3f80_0000, 0x8000_0000, 0, 0xc000_0000]);
}

#[test]
fn rotate_half_turn_about_z() {
    // q = (0, 0, 0, 1), v = (1, 2, 3): u = (0,0,1), cross(u,v) = (-2,1,0),
    // t = (-4,2,0), v + 0*t = v, cross(u,t) = (-2,-4,0) -> (-1,-2,3).
    let q = Quat::new(0.0f32, 0.0, 0.0, 1.0);
    let got = q.rotate(Vec3::new(1.0, 2.0, 3.0));
    assert_vec_bits32(got.to_array(), [0xbf80_0000, 0xc000_0000, 0x4040_0000]);
    // Identity quaternion leaves v alone.
    let v = Vec3::new(0.25f64, -7.0, 1e300);
    assert_eq!(Quat::new(1.0, 0.0, 0.0, 0.0).rotate(v), v);
}

// --------------------------------------------------------------- matrices

#[test]
fn identity_bits() {
    let id = Mat3::<f32>::identity();
    let words: Vec<u32> = id.elements().map(bits32).collect();
    assert_eq!(words, [0x3f80_0000, 0, 0, 0, 0x3f80_0000, 0, 0, 0, 0x3f80_0000]);
    let id = Mat2::<f64>::identity();
    let words: Vec<u64> = id.elements().map(f64::to_bits).collect();
    assert_eq!(words, [0x3ff0_0000_0000_0000, 0, 0, 0x3ff0_0000_0000_0000]);
}

#[test]
fn transpose_and_products() {
    let a = Mat2::from_rows([[1.0f32, 2.0], [3.0, 4.0]]);
    let b = Mat2::from_rows([[5.0f32, 6.0], [7.0, 8.0]]);
    assert_eq!(a.transpose(), Mat2::from_rows([[1.0, 3.0], [2.0, 4.0]]));
    assert_eq!(a.mul(b), Mat2::from_rows([[19.0, 22.0], [43.0, 50.0]]));
    assert_eq!(b * a, Mat2::from_rows([[23.0, 34.0], [31.0, 46.0]]));
    assert_eq!(a.mul_vec(Vec2::new(1.0, -1.0)), Vec2::new(-1.0, -1.0));
    // Frobenius: 5 + 12 + 21 + 32 = 70.
    assert_eq!(a.dot(b), 70.0);
    let m = Mat4::<f64>::from_fn(|r, c| (r * 4 + c) as f64);
    assert_eq!(m.mul(Mat4::identity()), m);
    assert_eq!(m.mul_vec(Vec4::new(1.0, 1.0, 1.0, 1.0)), Vec4::new(6.0, 22.0, 38.0, 54.0));
}

#[test]
fn mul_vec_rows_are_folds() {
    // Row 0 products (1, 1e8, -1e8): -1e8 + (1e8 + 1) = -1e8 + 1e8 = +0 in
    // f32; a descending fold would give 1 + (1e8 + -1e8) = 1. Row 1 is
    // 0 + (0 + 1) = 1, row 2 is 1e4 = 0x461c4000.
    let m = Mat3::from_rows([[1.0f32, 1e4, -1e4], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]);
    let v = Vec3::new(1.0f32, 1e4, 1e4);
    assert_vec_bits32(m.mul_vec(v).to_array(), [0, 0x3f80_0000, 0x461c_4000]);
}

#[test]
fn mat_dot_folds_row_major() {
    // Products in row-major order (1e8, 1, -1e8, 1):
    // 1 + (-1e8 + (1 + 1e8)) = 1. Column-major order (1e8, -1e8, 1, 1)
    // would give 1 + (1 + (-1e8 + 1e8)) = 2.
    let a = Mat2::from_rows([[1e4f32, 1.0], [-1e4, 1.0]]);
    let b = Mat2::from_rows([[1e4f32, 1.0], [1e4, 1.0]]);
    assert_bits32(a.dot(b), 0x3f80_0000);
}

#[test]
fn determinants_of_known_matrices() {
    let m2 = Mat2::from_rows([[3.0f64, 8.0], [4.0, 6.0]]);
    assert_eq!(m2.determinant(), -14.0);
    let m3 = Mat3::from_rows([[1.0f32, 2.0, 3.0], [0.0, 1.0, 4.0], [5.0, 6.0, 0.0]]);
    assert_eq!(m3.determinant(), 1.0);
    let m4 = Mat4::from_rows([[1.0f64, 0.0, 2.0, -1.0], [3.0, 0.0, 0.0, 5.0], [2.0, 1.0, 4.0, -3.0], [1.0, 0.0, 5.0, 0.0]]);
    assert_eq!(m4.determinant(), 30.0);
    assert_eq!(Mat4::<f32>::identity().determinant(), 1.0);
}

#[test]
fn inverse_adjugate_is_the_adjugate_times_one_reciprocal() {
    // det 3, s = 1/3 rounded: 5 * s = 1.6666666666666665 where the true
    // division 5 / 3 gives 1.6666666666666667.
    let m2 = Mat2::from_rows([[1.0f64, 2.0], [1.0, 5.0]]);
    let s = 1.0 / 3.0;
    // (2 * -1) * s and (1 * -1) * s, the products by -1 being exact.
    let want: [f64; 4] = [5.0 * s, -2.0 * s, -s, s];
    let got: Vec<f64> = m2.inverse_adjugate().elements().collect();
    assert_eq!(got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), want.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    assert_ne!(got[0], 5.0 / 3.0, "a true division would give other bits");
    // det 1: the inverse is exact, so every cofactor's sign and the transposition show.
    let m3 = Mat3::from_rows([[1.0f32, 2.0, 3.0], [0.0, 1.0, 4.0], [5.0, 6.0, 0.0]]);
    assert_eq!(m3.inverse_adjugate(), Mat3::from_rows([[-24.0, 18.0, 5.0], [20.0, -15.0, -4.0], [-5.0, 4.0, 1.0]]));
    // mat4 (det 30): close to the LU inverse, and a zero cofactor keeps its sign rule:
    // (0 * -1) * s is -0 for s > 0.
    let m4 = Mat4::from_rows([[1.0f64, 0.0, 2.0, -1.0], [3.0, 0.0, 0.0, 5.0], [2.0, 1.0, 4.0, -3.0], [1.0, 0.0, 5.0, 0.0]]);
    let (lu_inv, info) = aether_reference::linalg::inverse(m4);
    assert_eq!(info, 0);
    for (a, b) in m4.inverse_adjugate().elements().zip(lu_inv.elements()) {
        assert!((a - b).abs() <= 1e-15, "{a} against the LU inverse's {b}");
    }
    let singular = Mat2::from_rows([[1.0f32, 2.0], [2.0, 4.0]]);
    assert!(singular.inverse_adjugate().elements().all(|x| !x.is_finite()), "det 0: infinities and NaN, no info");
}

#[test]
fn determinant_is_a_left_to_right_chain() {
    // Rows 1, 2 = (1, 1, 0), (0, 1, 1e4): det(M00) = 1e4, det(M01) = 1e4,
    // det(M02) = 1. Row 0 = (1e4, 1e4, 1): terms 1e8, 1e8, 1.
    // (1e8 - 1e8) + 1 = 1; the grouping 1e8 - (1e8 - 1) would give 0.
    let m = Mat3::from_rows([[1e4f32, 1e4, 1.0], [1.0, 1.0, 0.0], [0.0, 1.0, 1e4]]);
    assert_eq!(m.minor(0, 0), Mat2::from_rows([[1.0, 0.0], [1.0, 1e4]]));
    assert_eq!(m.minor(0, 1), Mat2::from_rows([[1.0, 0.0], [0.0, 1e4]]));
    assert_eq!(m.minor(0, 2), Mat2::from_rows([[1.0, 1.0], [0.0, 1.0]]));
    assert_bits32(m.determinant(), 0x3f80_0000);
}

#[test]
fn mat4_minor_keeps_the_original_order() {
    let m = Mat4::<f64>::from_fn(|r, c| (r * 4 + c) as f64);
    let minor = m.minor(0, 2);
    assert_eq!(minor, Mat3::from_rows([[4.0, 5.0, 7.0], [8.0, 9.0, 11.0], [12.0, 13.0, 15.0]]));
}

// ------------------------------------------------------------ arrays layer

#[test]
fn arrays_match_the_vector_methods() {
    let a = [1.5f64, -2.0, 0.25];
    let b = [4.0f64, 0.5, -8.0];
    assert_eq!(arrays::dot(a, b), Vec3::from_array(a).dot(Vec3::from_array(b)));
    assert_eq!(arrays::sum(a), -0.25);
    assert_eq!(<f64 as Real>::NAME, "f64");
}

// ------------------------------------------------------------- flat layer

fn w32(x: f32) -> u64 {
    u64::from(x.to_bits())
}

// ------------------------------------------------------ the spec's listing

/// `spec/aether.toml`, read as plain TOML: the tests below take every count
/// and width from it (and from the reference's entries), none by hand.
fn spec() -> &'static toml::Table {
    static SPEC: std::sync::OnceLock<toml::Table> = std::sync::OnceLock::new();
    SPEC.get_or_init(|| {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/aether.toml");
        let text = std::fs::read_to_string(path).expect("spec/aether.toml");
        text.parse().unwrap_or_else(|e| panic!("spec/aether.toml: {e}"))
    })
}

/// The table `[<name>]` (a dotted name such as `families.dot`).
fn table(name: &str) -> &'static toml::Table {
    name.split('.').try_fold(spec(), |t, part| t.get(part)?.as_table()).unwrap_or_else(|| panic!("spec/aether.toml has no table [{name}]"))
}

/// The string list `key` of a table (empty when it is absent).
fn strings(t: &toml::Table, key: &str) -> Vec<String> {
    t.get(key).and_then(|v| v.as_array()).into_iter().flatten().map(|v| v.as_str().unwrap().to_string()).collect()
}

/// The element types, in the spec's order.
fn types() -> Vec<String> {
    table("types").keys().cloned().collect()
}

/// A shape's rows and columns: a vector is one row, a scalar one element.
fn rows_cols(shape: &str) -> (usize, usize) {
    let t = table(&format!("shapes.{shape}"));
    let int = |k: &str| t[k].as_integer().unwrap() as usize;
    match t["kind"].as_str().unwrap() {
        "scalar" => (1, 1),
        "vector" => (1, t["components"].as_array().unwrap().len()),
        "matrix" => (int("rows"), int("cols")),
        other => panic!("shapes.{shape}: unknown kind `{other}`"),
    }
}

/// The words of a value of `shape`.
fn width(shape: &str) -> usize {
    let (r, c) = rows_cols(shape);
    r * c
}

/// The words of a parameter or result of kind `kind` (`self`, `scalar`,
/// `bool`, `vec_rows`, `vec_cols` or a shape) in a family of `shape`.
fn kind_words(kind: &str, shape: &str) -> usize {
    match kind {
        "self" => width(shape),
        "scalar" | "bool" => 1,
        "vec_rows" => rows_cols(shape).0,
        "vec_cols" => rows_cols(shape).1,
        named => width(named),
    }
}

/// What the spec says of one `(family, shape)` that the flat layer exposes.
#[derive(Debug)]
enum Listed {
    /// `[families.<name>]`: its parameters (`name: kind`) and its result's kind.
    Family { params: Vec<String>, returns: String },
    /// `[kernels.<name>]` (`lanes`: its many-lane form `<name>_lanes`).
    Kernel { name: String, schedule: String, lanes: bool },
}

/// Every `(family, shape)` the spec lists with what it says of it: each
/// family for each of its shapes, each kernel for each of its shapes, and
/// each `many = true` kernel's many-lane form `<kernel>_lanes`.
fn listing() -> std::collections::BTreeMap<(String, String), Listed> {
    let mut out = std::collections::BTreeMap::new();
    for (name, f) in table("families") {
        let f = f.as_table().unwrap();
        for shape in strings(f, "shapes") {
            let params = strings(f, "params");
            let returns = f["returns"].as_str().unwrap().to_string();
            out.insert((name.clone(), shape), Listed::Family { params, returns });
        }
    }
    for (name, k) in table("kernels") {
        let k = k.as_table().unwrap();
        let schedule = k["schedule"].as_str().unwrap().to_string();
        let many = k.get("many").and_then(|m| m.as_bool()).unwrap_or(false);
        for shape in strings(k, "shapes") {
            let kernel = |lanes| Listed::Kernel { name: name.clone(), schedule: schedule.clone(), lanes };
            out.insert((name.clone(), shape.clone()), kernel(false));
            if many {
                out.insert((format!("{name}_lanes"), shape), kernel(true));
            }
        }
    }
    out
}

/// Every `(family, shape, elem)` the spec lists.
fn spec_keys() -> std::collections::BTreeSet<(String, String, String)> {
    let types = types();
    listing().into_keys().flat_map(|(f, s)| types.iter().map(move |e| (f.clone(), s.clone(), e.clone()))).collect()
}

/// The reference's entries as owned keys.
fn entry_keys() -> Vec<(String, String, String)> {
    entries().iter().map(|&(f, s, e)| (f.to_string(), s.to_string(), e.to_string())).collect()
}

#[test]
fn entries_cover_the_spec() {
    let all = entries();
    // Each entry once, and each reachable.
    let mut sorted = all.to_vec();
    sorted.sort_unstable();
    let twice: Vec<String> = sorted.windows(2).filter(|w| w[0] == w[1]).map(|w| format!("{}/{}/{}", w[0].0, w[0].1, w[0].2)).collect();
    assert!(twice.is_empty(), "entries listed twice in reference/src/flat.rs: {}", twice.join(", "));
    for &(family, shape, elem) in all {
        assert!(lookup(family, shape, elem).is_some(), "{family}/{shape}/{elem}: an entry that lookup does not find");
    }
    // Every element type of the spec has as many entries as the spec lists.
    let want = spec_keys();
    for elem in types() {
        let listed = want.iter().filter(|k| k.2 == elem).count();
        let implemented = all.iter().filter(|e| e.2 == elem).count();
        assert_eq!(implemented, listed, "type {elem}: the reference has {implemented} entries, the spec lists {listed} functions");
        assert!(listed > 0, "type {elem}: the spec lists no function");
    }
    // Every kernel of the spec (the compensated sums, the linear algebra and
    // their many-lane forms) is an entry for each of its shapes.
    for ((family, shape), listed) in listing() {
        if let Listed::Kernel { .. } = listed {
            for elem in types() {
                assert!(lookup(&family, &shape, &elem).is_some(), "kernel {family}/{shape}/{elem}: no reference entry");
            }
        }
    }
    assert!(lookup("dot", "vec5", "f32").is_none());
    assert!(lookup("cross", "vec2", "f32").is_none());
    assert!(lookup("dot", "vec3", "f16").is_none());
    assert!(lookup("reduce32", "scalar", "f32").is_none());
    assert!(lookup("plane_add", "mat2", "f64").is_none());
    assert!(lookup("lu", "vec3", "f32").is_none());
    assert!(lookup("eigh_lanes", "mat5", "f64").is_none());
}

/// The entries are exactly what the spec lists: its families, its kernels
/// and their many-lane forms, for each of their shapes and each element type.
#[test]
fn entries_equal_the_spec_listing() {
    let want = spec_keys();
    let got: std::collections::BTreeSet<_> = entry_keys().into_iter().collect();
    let name = |k: &&(String, String, String)| format!("{}/{}/{}", k.0, k.1, k.2);
    let unlisted: Vec<String> = got.difference(&want).map(|k| name(&k)).collect();
    let unimplemented: Vec<String> = want.difference(&got).map(|k| name(&k)).collect();
    assert!(
        unlisted.is_empty() && unimplemented.is_empty(),
        "reference entries the spec does not list: [{}]; spec functions the reference does not implement: [{}]",
        unlisted.join(", "),
        unimplemented.join(", ")
    );
}

#[test]
fn flat_calls_match_the_typed_api() {
    let dot = lookup("dot", "vec3", "f32").unwrap();
    let out = dot(&[w32(1.0), w32(1e4), w32(1e4), w32(1.0), w32(1e4), w32(-1e4)]);
    assert_eq!(out, [0]);

    let fmin = lookup("fmin", "scalar", "f64").unwrap();
    let out = fmin(&[f64::NAN.to_bits(), 2.0f64.to_bits()]);
    assert_eq!(out, [2.0f64.to_bits()]);

    let rotate = lookup("rotate", "quat", "f32").unwrap();
    let out = rotate(&[0, 0, 0, w32(1.0), w32(1.0), w32(2.0), w32(3.0)]);
    assert_eq!(out, [w32(-1.0), w32(-2.0), w32(3.0)]);

    let identity = lookup("identity", "mat2", "f64").unwrap();
    assert_eq!(identity(&[]), [1.0f64.to_bits(), 0, 0, 1.0f64.to_bits()]);

    let mul_vec = lookup("mul_vec", "mat3", "f64").unwrap();
    let m: Vec<u64> = (0..9).map(|k| f64::from(k).to_bits()).collect();
    let v = [1.0f64, 0.0, -1.0].map(f64::to_bits);
    let out = mul_vec(&[m, v.to_vec()].concat());
    assert_eq!(out, [-2.0f64, -2.0, -2.0].map(f64::to_bits));

    let is_finite = lookup("is_finite", "vec2", "f32").unwrap();
    assert_eq!(is_finite(&[w32(1.0), w32(2.0)]), [1]);
    assert_eq!(is_finite(&[w32(1.0), w32(f32::INFINITY)]), [0]);

    let div = lookup("div", "vec2", "f32").unwrap();
    assert_eq!(div(&[w32(5.0), w32(7.0), w32(3.0)]), [0x3fd5_5556, 0x4015_5556]);

    let neg = lookup("neg", "scalar", "f32").unwrap();
    assert_eq!(neg(&[0]), [0x8000_0000]);

    let quat_mul = lookup("quat_mul", "quat", "f64").unwrap();
    let i = [0.0f64, 1.0, 0.0, 0.0].map(f64::to_bits);
    let j = [0.0f64, 0.0, 1.0, 0.0].map(f64::to_bits);
    assert_eq!(quat_mul(&[i, j].concat()), [0.0f64, 0.0, 0.0, 1.0].map(f64::to_bits));
}

/// Every entry runs on an input of the length the spec gives it and returns
/// as many words as the spec's result: a family's words come from its
/// `params` and `returns` and the shapes' widths, and must equal the
/// reference's `input_words`; a kernel's from its schedule (the compensated
/// kernels' lanes and arrays from `[rules.reduction]` and the kernel's
/// table, a linear-algebra routine's from its matrix's side).
#[test]
fn every_entry_runs_and_sizes_its_output() {
    let listing = listing();
    let reduction = table("rules.reduction");
    let lanes = reduction["lanes"].as_integer().unwrap() as usize;
    // The pair of the compensated sums: the combine family's shape.
    let combine = reduction["combine"].as_str().unwrap();
    let pair = width(&strings(table(&format!("families.{combine}")), "shapes")[0]);
    let arrays = |kernel: &str| strings(table(&format!("kernels.{kernel}")), "arrays").len();
    let mut failures = Vec::new();
    for &(family, shape, elem) in entries() {
        let key = format!("{family}/{shape}/{elem}");
        let one = if elem == "f32" { w32(1.0) } else { 1.0f64.to_bits() };
        let ones = |k: usize| vec![one; k];
        let Some(listed) = listing.get(&(family.to_string(), shape.to_string())) else {
            failures.push(format!("{key}: a reference entry that the spec lists nowhere"));
            continue;
        };
        let (inputs, outputs, what) = match listed {
            Listed::Family { params, returns } => {
                let n_in: usize = params.iter().map(|p| kind_words(p.split_once(':').unwrap().1.trim(), shape)).sum();
                let theirs = input_words(family, shape, elem);
                if theirs != Some(n_in) {
                    failures.push(format!("{key}: the spec's params {params:?} give {n_in} input words, the reference takes {theirs:?}"));
                    continue;
                }
                (ones(n_in), kind_words(returns, shape), format!("the spec's returns = \"{returns}\""))
            }
            Listed::Kernel { name, schedule, lanes: many } => {
                let (input, output) = match schedule.as_str() {
                    // The lanes' pairs in, one pair out.
                    "butterfly" => (ones(lanes * pair), pair),
                    // The lanes, the integer `first`, 3 terms of each array;
                    // the lanes out.
                    "lanes" => ([ones(lanes * pair), vec![3], ones(3 * arrays(name))].concat(), lanes * pair),
                    // 3 terms of each array of its lanes kernel; the value.
                    "array" => {
                        let of = table(&format!("kernels.{name}"))["lanes"].as_str().unwrap();
                        (ones(3 * arrays(of)), 1)
                    }
                    // S = 2 elements of K = width components; records (1,
                    // ones), (0, ones); the value and companion planes out.
                    "plane" => {
                        let k = width(shape);
                        ([vec![2, 1], ones(k), vec![0], ones(k)].concat(), 2 * 2 * k)
                    }
                    // 3 slots' values and companions; each slot's value.
                    "resolve" => (ones(6), 3),
                    // A routine on one side x side matrix; `#` words are integers.
                    routine => {
                        let (side, cols) = rows_cols(shape);
                        assert_eq!(side, cols, "{key}: a square matrix");
                        let n = side * side;
                        let (input, output) = match routine {
                            "lu" => (ones(n), n + side + 1),
                            // ipiv[k] = side is in k+1..=side for every k.
                            "lu_solve" => ([ones(n), vec![side as u64; side], ones(side)].concat(), side),
                            "solve_lower" | "solve_lower_unit" | "solve_upper" | "solve_upper_unit" | "cholesky_solve" => {
                                (ones(n + side), side)
                            }
                            "det_lu" => (ones(n), 1),
                            "inverse" | "cholesky" => (ones(n), n + 1),
                            "eigh" => (ones(n), side + n),
                            other => {
                                failures.push(format!(
                                    "{key}: kernel `{name}` has the schedule `{other}`, which this test does not know: add its \
                                     input and result words here"
                                ));
                                continue;
                            }
                        };
                        if !many && input_words(family, shape, elem) != Some(input.len()) {
                            failures.push(format!(
                                "{key}: the routine `{routine}` on a {side}x{side} matrix takes {} input words, the reference {:?}",
                                input.len(),
                                input_words(family, shape, elem)
                            ));
                            continue;
                        }
                        (input, output)
                    }
                };
                // The many-lane form on two problems.
                let copies = if *many { 2 } else { 1 };
                (input.repeat(copies), output * copies, format!("the `{schedule}` schedule"))
            }
        };
        let got = lookup(family, shape, elem).unwrap()(&inputs).len();
        if got != outputs {
            failures.push(format!("{key}: {got} result words, where {what} gives {outputs}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
#[should_panic(expected = "dot/vec3/f32 takes 6 words, got 5")]
fn flat_rejects_a_wrong_length() {
    let dot = lookup("dot", "vec3", "f32").unwrap();
    dot(&[0; 5]);
}

#[test]
#[should_panic(expected = "sum/vec2/f32: word 0x100000000 is not an f32 bit pattern")]
fn flat_rejects_high_bits_in_an_f32_word() {
    let sum = lookup("sum", "vec2", "f32").unwrap();
    sum(&[1 << 32, 0]);
}
