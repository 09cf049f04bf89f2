//! The aether C core against cglm and glam, measured side by side in one process.
//!
//! Every contender is a loop over caller-owned arrays with one signature,
//! `bench_<who>_<op>(a, b, out, n)`: the C ones come from `c/contenders.c`
//! (gcc and clang; the core as its own object, the header-only core, cglm, and
//! the plain and Kahan loops), the glam ones are below. Each round times every
//! contender of every operation in turn (so a noisy, shared machine slows them
//! alike) and keeps each one's best time per item.
//!
//! Before anything is timed, every contender's output is compared item by
//! item with the hand-written reference (`aether-reference`): an aether
//! contender that differs in one bit stops the run; the peers' differences are
//! counted and printed (they follow no contract: other fold orders, fused
//! products, another inverse).
//!
//! ```text
//! aether-bench [--n N] [--rounds R] [--ms MS] [--only NAME] [--check] [--callgrind] [--markdown] [--list]
//! ```
//! `--check` only compares (CI); `--callgrind` runs each contender once, for
//! `valgrind --tool=callgrind`, whose per-function counts scripts/bench.sh
//! turns into instructions per item. `--list` names the operations but the
//! elementary functions (scripts/bench.sh's runs in memory; the elementary
//! functions are timed in cache only).
//!
//! The elementary functions (`f32_sin` ... `f64_pow`) run against the
//! platform's: glibc's libm (gcc and clang), glibc's libmvec through gcc's
//! vectoriser under `-O3 -ffast-math` (its fast path), and Rust's std (what
//! glam calls). Their C loops are found by name in each kind's table
//! (`bench_<cc>_<kind>_elementary_table`).

use std::ffi::c_void;
use std::time::Instant;

use std::ffi::{c_char, CStr};

use aether_reference::elementary::{self, Trig};
use aether_reference::{compensated, linalg, Mat, Quat, Vec3, Vec4};

type Loop = unsafe extern "C" fn(*const c_void, *const c_void, *mut c_void, usize);

macro_rules! c_loops {
    ($($name:ident),* $(,)?) => {
        extern "C" { $(fn $name(a: *const c_void, b: *const c_void, out: *mut c_void, n: usize);)* }
    };
}

c_loops!(
    bench_gcc_obj_vec3f_dot,
    bench_gcc_lto_vec3f_dot,
    bench_gcc_obj_vec3f_cross,
    bench_gcc_lto_vec3f_cross,
    bench_gcc_obj_vec3f_normalize,
    bench_gcc_lto_vec3f_normalize,
    bench_gcc_obj_quatf_mul,
    bench_gcc_lto_quatf_mul,
    bench_gcc_obj_quatf_rotate,
    bench_gcc_lto_quatf_rotate,
    bench_gcc_obj_mat4f_mul,
    bench_gcc_lto_mat4f_mul,
    bench_gcc_obj_mat4f_mul_vec,
    bench_gcc_lto_mat4f_mul_vec,
    bench_gcc_obj_mat3f_inverse,
    bench_gcc_lto_mat3f_inverse,
    bench_gcc_obj_mat4f_inverse,
    bench_gcc_lto_mat4f_inverse,
    bench_gcc_obj_mat3f_inverse_adjugate,
    bench_gcc_lto_mat3f_inverse_adjugate,
    bench_gcc_obj_mat4f_inverse_adjugate,
    bench_gcc_lto_mat4f_inverse_adjugate,
    bench_gcc_obj_vec3d_dot,
    bench_gcc_lto_vec3d_dot,
    bench_gcc_obj_mat4d_mul,
    bench_gcc_lto_mat4d_mul,
    bench_gcc_obj_mat4d_mul_vec,
    bench_gcc_lto_mat4d_mul_vec,
    bench_gcc_obj_quatd_mul,
    bench_gcc_lto_quatd_mul,
    bench_gcc_obj_mat3f_inverse_lanes,
    bench_gcc_lto_mat3f_inverse_lanes,
    bench_gcc_obj_f32_sum_array,
    bench_gcc_obj_f32_dot_array,
    bench_gcc_obj_f64_sum_array,
    bench_gcc_inline_vec3f_dot,
    bench_gcc_inline_vec3f_cross,
    bench_gcc_inline_vec3f_normalize,
    bench_gcc_inline_quatf_mul,
    bench_gcc_inline_quatf_rotate,
    bench_gcc_inline_mat4f_mul,
    bench_gcc_inline_mat4f_mul_vec,
    bench_gcc_inline_mat3f_inverse,
    bench_gcc_inline_mat4f_inverse,
    bench_gcc_inline_mat3f_inverse_adjugate,
    bench_gcc_inline_mat4f_inverse_adjugate,
    bench_gcc_inline_vec3d_dot,
    bench_gcc_inline_mat4d_mul,
    bench_gcc_inline_mat4d_mul_vec,
    bench_gcc_inline_quatd_mul,
    bench_gcc_inline_mat3f_inverse_lanes,
    bench_gcc_inline_f32_sum_array,
    bench_gcc_inline_f32_dot_array,
    bench_gcc_inline_f64_sum_array,
    bench_clang_obj_vec3f_dot,
    bench_clang_lto_vec3f_dot,
    bench_clang_obj_vec3f_cross,
    bench_clang_lto_vec3f_cross,
    bench_clang_obj_vec3f_normalize,
    bench_clang_lto_vec3f_normalize,
    bench_clang_obj_quatf_mul,
    bench_clang_lto_quatf_mul,
    bench_clang_obj_quatf_rotate,
    bench_clang_lto_quatf_rotate,
    bench_clang_obj_mat4f_mul,
    bench_clang_lto_mat4f_mul,
    bench_clang_obj_mat4f_mul_vec,
    bench_clang_lto_mat4f_mul_vec,
    bench_clang_obj_mat3f_inverse,
    bench_clang_lto_mat3f_inverse,
    bench_clang_obj_mat4f_inverse,
    bench_clang_lto_mat4f_inverse,
    bench_clang_obj_mat3f_inverse_adjugate,
    bench_clang_lto_mat3f_inverse_adjugate,
    bench_clang_obj_mat4f_inverse_adjugate,
    bench_clang_lto_mat4f_inverse_adjugate,
    bench_clang_obj_vec3d_dot,
    bench_clang_lto_vec3d_dot,
    bench_clang_obj_mat4d_mul,
    bench_clang_lto_mat4d_mul,
    bench_clang_obj_mat4d_mul_vec,
    bench_clang_lto_mat4d_mul_vec,
    bench_clang_obj_quatd_mul,
    bench_clang_lto_quatd_mul,
    bench_clang_obj_mat3f_inverse_lanes,
    bench_clang_lto_mat3f_inverse_lanes,
    bench_clang_obj_f32_sum_array,
    bench_clang_obj_f32_dot_array,
    bench_clang_obj_f64_sum_array,
    bench_clang_inline_vec3f_dot,
    bench_clang_inline_vec3f_cross,
    bench_clang_inline_vec3f_normalize,
    bench_clang_inline_quatf_mul,
    bench_clang_inline_quatf_rotate,
    bench_clang_inline_mat4f_mul,
    bench_clang_inline_mat4f_mul_vec,
    bench_clang_inline_mat3f_inverse,
    bench_clang_inline_mat4f_inverse,
    bench_clang_inline_mat3f_inverse_adjugate,
    bench_clang_inline_mat4f_inverse_adjugate,
    bench_clang_inline_vec3d_dot,
    bench_clang_inline_mat4d_mul,
    bench_clang_inline_mat4d_mul_vec,
    bench_clang_inline_quatd_mul,
    bench_clang_inline_mat3f_inverse_lanes,
    bench_clang_inline_f32_sum_array,
    bench_clang_inline_f32_dot_array,
    bench_clang_inline_f64_sum_array,
    bench_gcc_cglm_vec3f_dot,
    bench_gcc_cglm_vec3f_cross,
    bench_gcc_cglm_vec3f_normalize,
    bench_gcc_cglm_quatf_mul,
    bench_gcc_cglm_quatf_rotate,
    bench_gcc_cglm_mat4f_mul,
    bench_gcc_cglm_mat4f_mul_vec,
    bench_gcc_cglm_mat3f_inverse,
    bench_gcc_cglm_mat4f_inverse,
    bench_gcc_cglm_f32_sum_array_plain,
    bench_gcc_cglm_f32_sum_array_kahan,
    bench_gcc_cglm_f32_dot_array_plain,
    bench_gcc_cglm_f32_dot_array_kahan,
    bench_gcc_cglm_f64_sum_array_plain,
    bench_gcc_cglm_f64_sum_array_kahan,
    bench_clang_cglm_vec3f_dot,
    bench_clang_cglm_vec3f_cross,
    bench_clang_cglm_vec3f_normalize,
    bench_clang_cglm_quatf_mul,
    bench_clang_cglm_quatf_rotate,
    bench_clang_cglm_mat4f_mul,
    bench_clang_cglm_mat4f_mul_vec,
    bench_clang_cglm_mat3f_inverse,
    bench_clang_cglm_mat4f_inverse,
    bench_clang_cglm_f32_sum_array_plain,
    bench_clang_cglm_f32_sum_array_kahan,
    bench_clang_cglm_f32_dot_array_plain,
    bench_clang_cglm_f32_dot_array_kahan,
    bench_clang_cglm_f64_sum_array_plain,
    bench_clang_cglm_f64_sum_array_kahan,
    bench_gcc_cglmobj_vec3f_dot,
    bench_gcc_cglmobj_vec3f_cross,
    bench_gcc_cglmobj_vec3f_normalize,
    bench_gcc_cglmobj_quatf_mul,
    bench_gcc_cglmobj_quatf_rotate,
    bench_gcc_cglmobj_mat4f_mul,
    bench_gcc_cglmobj_mat4f_mul_vec,
    bench_gcc_cglmobj_mat3f_inverse,
    bench_gcc_cglmobj_mat4f_inverse,
    bench_gcc_batch_vec3f_dot_aos,
    bench_gcc_batch_vec3f_dot_soa,
    bench_gcc_batch_vec3f_cross_aos,
    bench_gcc_batch_vec3f_cross_soa,
    bench_gcc_batch_vec3f_normalize_aos,
    bench_gcc_batch_vec3f_normalize_soa,
    bench_gcc_batch_quatf_mul_aos,
    bench_gcc_batch_quatf_mul_soa,
    bench_gcc_batch_quatf_rotate_aos,
    bench_gcc_batch_quatf_rotate_soa,
    bench_gcc_batch_mat4f_mul_aos,
    bench_gcc_batch_mat4f_mul_soa,
    bench_gcc_batch_mat4f_mul_vec_aos,
    bench_gcc_batch_mat4f_mul_vec_soa,
    bench_gcc_batch_mat3f_inverse_adjugate_aos,
    bench_gcc_batch_mat3f_inverse_adjugate_soa,
    bench_gcc_batch_mat4f_inverse_adjugate_aos,
    bench_gcc_batch_mat4f_inverse_adjugate_soa,
    bench_gcc_batch_vec3d_dot_aos,
    bench_gcc_batch_vec3d_dot_soa,
    bench_gcc_batch_mat4d_mul_aos,
    bench_gcc_batch_mat4d_mul_soa,
    bench_gcc_batch_mat4d_mul_vec_aos,
    bench_gcc_batch_mat4d_mul_vec_soa,
    bench_gcc_batch_quatd_mul_aos,
    bench_gcc_batch_quatd_mul_soa,
    bench_clang_batch_vec3f_dot_aos,
    bench_clang_batch_vec3f_dot_soa,
    bench_clang_batch_vec3f_cross_aos,
    bench_clang_batch_vec3f_cross_soa,
    bench_clang_batch_vec3f_normalize_aos,
    bench_clang_batch_vec3f_normalize_soa,
    bench_clang_batch_quatf_mul_aos,
    bench_clang_batch_quatf_mul_soa,
    bench_clang_batch_quatf_rotate_aos,
    bench_clang_batch_quatf_rotate_soa,
    bench_clang_batch_mat4f_mul_aos,
    bench_clang_batch_mat4f_mul_soa,
    bench_clang_batch_mat4f_mul_vec_aos,
    bench_clang_batch_mat4f_mul_vec_soa,
    bench_clang_batch_mat3f_inverse_adjugate_aos,
    bench_clang_batch_mat3f_inverse_adjugate_soa,
    bench_clang_batch_mat4f_inverse_adjugate_aos,
    bench_clang_batch_mat4f_inverse_adjugate_soa,
    bench_clang_batch_vec3d_dot_aos,
    bench_clang_batch_vec3d_dot_soa,
    bench_clang_batch_mat4d_mul_aos,
    bench_clang_batch_mat4d_mul_soa,
    bench_clang_batch_mat4d_mul_vec_aos,
    bench_clang_batch_mat4d_mul_vec_soa,
    bench_clang_batch_quatd_mul_aos,
    bench_clang_batch_quatd_mul_soa,
);

// ---- glam's loops: the same signature, so callgrind sees them like the C ones ----

/// A glam loop with the C loops' signature.
macro_rules! glam_map2 {
    ($name:ident, $ta:ty, $tb:ty, $tr:ty, |$x:ident, $y:ident| $e:expr) => {
        /// # Safety
        /// `a`, `b` and `out` point to `n` items of the loop's types.
        #[no_mangle]
        #[inline(never)]
        pub unsafe extern "C" fn $name(a: *const c_void, b: *const c_void, out: *mut c_void, n: usize) {
            let a = unsafe { std::slice::from_raw_parts(a as *const $ta, n) };
            let b = unsafe { std::slice::from_raw_parts(b as *const $tb, n) };
            let out = unsafe { std::slice::from_raw_parts_mut(out as *mut $tr, n) };
            for ((o, $x), $y) in out.iter_mut().zip(a).zip(b) {
                *o = $e;
            }
        }
    };
}
glam_map2!(bench_glam_vec3f_dot, glam::Vec3, glam::Vec3, f32, |x, y| x.dot(*y));
glam_map2!(bench_glam_vec3f_cross, glam::Vec3, glam::Vec3, glam::Vec3, |x, y| x.cross(*y));
glam_map2!(bench_glam_vec3f_normalize, glam::Vec3, glam::Vec3, glam::Vec3, |x, _y| x.normalize());
glam_map2!(bench_glam_quatf_mul, glam::Quat, glam::Quat, glam::Quat, |x, y| *x * *y);
glam_map2!(bench_glam_quatf_rotate, glam::Quat, glam::Vec3, glam::Vec3, |x, y| *x * *y);
glam_map2!(bench_glam_mat4f_mul, glam::Mat4, glam::Mat4, glam::Mat4, |x, y| *x * *y);
glam_map2!(bench_glam_mat4f_mul_vec, glam::Mat4, glam::Vec4, glam::Vec4, |x, y| *x * *y);
glam_map2!(bench_glam_mat3f_inverse, glam::Mat3, glam::Mat3, glam::Mat3, |x, _y| x.inverse());
glam_map2!(bench_glam_mat4f_inverse, glam::Mat4, glam::Mat4, glam::Mat4, |x, _y| x.inverse());
glam_map2!(bench_glam_vec3d_dot, glam::DVec3, glam::DVec3, f64, |x, y| x.dot(*y));
glam_map2!(bench_glam_mat4d_mul, glam::DMat4, glam::DMat4, glam::DMat4, |x, y| *x * *y);
glam_map2!(bench_glam_mat4d_mul_vec, glam::DMat4, glam::DVec4, glam::DVec4, |x, y| *x * *y);
glam_map2!(bench_glam_quatd_mul, glam::DQuat, glam::DQuat, glam::DQuat, |x, y| *x * *y);

// ---- the elementary functions ----

/// One entry of a C kind's table of elementary loops.
#[repr(C)]
struct Entry {
    name: *const c_char,
    f: Loop,
}

type Table = unsafe extern "C" fn(*mut usize) -> *const Entry;

extern "C" {
    fn bench_gcc_obj_elementary_table(n: *mut usize) -> *const Entry;
    fn bench_gcc_inline_elementary_table(n: *mut usize) -> *const Entry;
    fn bench_clang_obj_elementary_table(n: *mut usize) -> *const Entry;
    fn bench_clang_inline_elementary_table(n: *mut usize) -> *const Entry;
    fn bench_gcc_libm_elementary_table(n: *mut usize) -> *const Entry;
    fn bench_clang_libm_elementary_table(n: *mut usize) -> *const Entry;
    fn bench_gcc_fast_elementary_table(n: *mut usize) -> *const Entry;
}

/// The elementary functions' contenders: who, and each kind's table.
const ELEMENTARY_KINDS: [(&str, Table); 7] = [
    ("gcc object", bench_gcc_obj_elementary_table),
    ("gcc header-only", bench_gcc_inline_elementary_table),
    ("clang object", bench_clang_obj_elementary_table),
    ("clang header-only", bench_clang_inline_elementary_table),
    ("glibc gcc", bench_gcc_libm_elementary_table),
    ("glibc clang", bench_clang_libm_elementary_table),
    ("libmvec gcc", bench_gcc_fast_elementary_table),
];

/// The loop named `op` in one kind's table.
fn elementary_loop(table: Table, op: &str) -> Loop {
    let mut n = 0usize;
    let entries = unsafe { std::slice::from_raw_parts(table(&mut n), n) };
    entries
        .iter()
        .find(|e| unsafe { CStr::from_ptr(e.name) }.to_str() == Ok(op))
        .unwrap_or_else(|| panic!("no loop {op} in a C table of elementary loops"))
        .f
}

/// A Rust std loop (what glam calls) with the C loops' signature: one input
/// (`b` unread), or two.
macro_rules! std_map {
    ($name:ident, $t:ty, |$x:ident| $e:expr) => {
        /// # Safety
        /// `a` and `out` point to `n` values of the loop's type.
        #[no_mangle]
        #[inline(never)]
        pub unsafe extern "C" fn $name(a: *const c_void, _b: *const c_void, out: *mut c_void, n: usize) {
            let a = unsafe { std::slice::from_raw_parts(a as *const $t, n) };
            let out = unsafe { std::slice::from_raw_parts_mut(out as *mut $t, n) };
            for (o, &$x) in out.iter_mut().zip(a) {
                *o = $e;
            }
        }
    };
    ($name:ident, $t:ty, |$x:ident, $y:ident| $e:expr) => {
        /// # Safety
        /// `a`, `b` and `out` point to `n` values of the loop's type.
        #[no_mangle]
        #[inline(never)]
        pub unsafe extern "C" fn $name(a: *const c_void, b: *const c_void, out: *mut c_void, n: usize) {
            let a = unsafe { std::slice::from_raw_parts(a as *const $t, n) };
            let b = unsafe { std::slice::from_raw_parts(b as *const $t, n) };
            let out = unsafe { std::slice::from_raw_parts_mut(out as *mut $t, n) };
            for ((o, &$x), &$y) in out.iter_mut().zip(a).zip(b) {
                *o = $e;
            }
        }
    };
}
std_map!(bench_std_f32_sin, f32, |x| x.sin());
std_map!(bench_std_f64_sin, f64, |x| x.sin());
std_map!(bench_std_f32_cos, f32, |x| x.cos());
std_map!(bench_std_f64_cos, f64, |x| x.cos());
std_map!(bench_std_f32_tan, f32, |x| x.tan());
std_map!(bench_std_f64_tan, f64, |x| x.tan());
std_map!(bench_std_f32_atan, f32, |x| x.atan());
std_map!(bench_std_f64_atan, f64, |x| x.atan());
std_map!(bench_std_f32_exp, f32, |x| x.exp());
std_map!(bench_std_f64_exp, f64, |x| x.exp());
std_map!(bench_std_f32_exp2, f32, |x| x.exp2());
std_map!(bench_std_f64_exp2, f64, |x| x.exp2());
std_map!(bench_std_f32_log, f32, |x| x.ln());
std_map!(bench_std_f64_log, f64, |x| x.ln());
std_map!(bench_std_f32_log2, f32, |x| x.log2());
std_map!(bench_std_f64_log2, f64, |x| x.log2());
std_map!(bench_std_f32_asin, f32, |x| x.asin());
std_map!(bench_std_f64_asin, f64, |x| x.asin());
std_map!(bench_std_f32_acos, f32, |x| x.acos());
std_map!(bench_std_f64_acos, f64, |x| x.acos());
std_map!(bench_std_f32_atan2, f32, |x, y| x.atan2(y));
std_map!(bench_std_f64_atan2, f64, |x, y| x.atan2(y));
std_map!(bench_std_f32_pow, f32, |x, y| x.powf(y));
std_map!(bench_std_f64_pow, f64, |x, y| x.powf(y));

/// The elementary functions: name, whether it takes two inputs, the Rust std
/// loops (f32, f64), and the inputs' map from [-1, 1) (as the accuracy
/// report's timing takes them: sin, cos and tan over [-100, 100], exp 80 x,
/// exp2 120 x, log and log2 100 |x|, asin and acos x, atan 100 x, atan2 100 y
/// and 100 x, pow 10 |x| to 10 y).
#[allow(clippy::type_complexity)]
const ELEMENTARY: [(&str, bool, [Loop; 2], [fn(f64) -> f64; 2]); 12] = [
    ("sin", false, [bench_std_f32_sin, bench_std_f64_sin], [times_100, times_100]),
    ("cos", false, [bench_std_f32_cos, bench_std_f64_cos], [times_100, times_100]),
    ("tan", false, [bench_std_f32_tan, bench_std_f64_tan], [times_100, times_100]),
    ("atan", false, [bench_std_f32_atan, bench_std_f64_atan], [times_100, times_100]),
    ("atan2", true, [bench_std_f32_atan2, bench_std_f64_atan2], [times_100, times_100]),
    ("exp", false, [bench_std_f32_exp, bench_std_f64_exp], [|x| 80.0 * x, same]),
    ("exp2", false, [bench_std_f32_exp2, bench_std_f64_exp2], [|x| 120.0 * x, same]),
    ("log", false, [bench_std_f32_log, bench_std_f64_log], [|x| 100.0 * x.abs(), same]),
    ("log2", false, [bench_std_f32_log2, bench_std_f64_log2], [|x| 100.0 * x.abs(), same]),
    ("pow", true, [bench_std_f32_pow, bench_std_f64_pow], [|x| 10.0 * x.abs(), |x| 10.0 * x]),
    ("asin", false, [bench_std_f32_asin, bench_std_f64_asin], [same, same]),
    ("acos", false, [bench_std_f32_acos, bench_std_f64_acos], [same, same]),
];

fn same(x: f64) -> f64 {
    x
}

fn times_100(x: f64) -> f64 {
    100.0 * x
}

/// Whether the operation is one of the elementary functions (`f32_sin`).
fn is_elementary(name: &str) -> bool {
    ELEMENTARY.iter().any(|e| name.len() == 4 + e.0.len() && name.ends_with(e.0) && (name.starts_with("f32_") || name.starts_with("f64_")))
}

// ---- buffers, layouts, inputs ----

/// 64-byte aligned storage (cglm's AVX paths load matrices with aligned loads).
#[derive(Clone)]
struct Buf {
    chunks: Vec<Chunk>,
}
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Chunk([u8; 64]);

impl Buf {
    fn zeroed(bytes: usize) -> Buf {
        Buf { chunks: vec![Chunk([0; 64]); bytes.div_ceil(64).max(1)] }
    }
    fn ptr(&self) -> *const c_void {
        self.chunks.as_ptr() as *const c_void
    }
    fn mut_ptr(&mut self) -> *mut c_void {
        self.chunks.as_mut_ptr() as *mut c_void
    }
    /// The first `len` elements as `T` (f32 or f64).
    fn elems<T: Copy>(&self, len: usize) -> &[T] {
        assert!(len * std::mem::size_of::<T>() <= self.chunks.len() * 64);
        unsafe { std::slice::from_raw_parts(self.chunks.as_ptr() as *const T, len) }
    }
    fn elems_mut<T: Copy>(&mut self, len: usize) -> &mut [T] {
        assert!(len * std::mem::size_of::<T>() <= self.chunks.len() * 64);
        unsafe { std::slice::from_raw_parts_mut(self.chunks.as_mut_ptr() as *mut T, len) }
    }
}

/// How an item's elements are ordered for a contender: aether's (row-major
/// matrices, (w, x, y, z) quaternions), the peers' (column-major, (x, y, z, w)),
/// or aether's components in planes (the batched `_soa` forms: component c of
/// item i at `[c * n + i]`).
#[derive(Clone, Copy, PartialEq)]
enum Layout {
    Aether,
    Peer,
    Soa,
}

impl Layout {
    /// The index of this layout's buffer in [`Data`]'s `a` and `b`.
    fn slot(self) -> usize {
        match self {
            Layout::Aether => 0,
            Layout::Peer => 1,
            Layout::Soa => 2,
        }
    }
}

/// One operand or result shape: its elements per item and the permutation
/// from aether's order to the peers' (`peer[k] = aether[perm[k]]`).
#[derive(Clone, Copy)]
enum Shape {
    Scalar,
    Vec3,
    Vec4,
    Quat,
    Mat3,
    Mat4,
    /// A whole array (the sums): n elements in, one out.
    Array,
}

impl Shape {
    fn len(self) -> usize {
        match self {
            Shape::Scalar | Shape::Array => 1,
            Shape::Vec3 => 3,
            Shape::Vec4 | Shape::Quat => 4,
            Shape::Mat3 => 9,
            Shape::Mat4 => 16,
        }
    }
    fn perm(self) -> Vec<usize> {
        match self {
            Shape::Quat => vec![1, 2, 3, 0],
            Shape::Mat3 => (0..9).map(|k| (k % 3) * 3 + k / 3).collect(),
            Shape::Mat4 => (0..16).map(|k| (k % 4) * 4 + k / 4).collect(),
            s => (0..s.len()).collect(),
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Elem {
    F32,
    F64,
}

struct Rng(u64);
impl Rng {
    /// Uniform in [-1, 1).
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
}

/// An operation: its shapes, its contenders and the reference's result words of an item.
struct Op {
    name: &'static str,
    elem: Elem,
    a: Shape,
    b: Option<Shape>,
    out: Shape,
    /// Well-conditioned inputs (the inverses): 3 added to the diagonal.
    diagonal: bool,
    /// Each input's values, from the generator's [-1, 1) (the elementary functions' domains).
    map: [fn(f64) -> f64; 2],
    contenders: Vec<(&'static str, Layout, Loop)>,
}

fn ops() -> Vec<Op> {
    use Elem::*;
    use Layout::*;
    use Shape::*;
    let mut v = Vec::new();
    macro_rules! op {
        ($name:literal, $elem:expr, $a:expr, $b:expr, $out:expr, $diag:expr, [$($c:expr),* $(,)?]) => {
            v.push(Op { name: $name, elem: $elem, a: $a, b: $b, out: $out, diagonal: $diag, map: [same, same], contenders: vec![$($c),*] });
        };
    }
    op!(
        "vec3f_dot",
        F32,
        Vec3,
        Some(Vec3),
        Scalar,
        false,
        [
            ("gcc object", Aether, bench_gcc_obj_vec3f_dot),
            ("gcc header-only", Aether, bench_gcc_inline_vec3f_dot),
            ("clang object", Aether, bench_clang_obj_vec3f_dot),
            ("clang header-only", Aether, bench_clang_inline_vec3f_dot),
            ("gcc object LTO", Aether, bench_gcc_lto_vec3f_dot),
            ("clang object LTO", Aether, bench_clang_lto_vec3f_dot),
            ("gcc batch aos", Aether, bench_gcc_batch_vec3f_dot_aos),
            ("gcc batch soa", Soa, bench_gcc_batch_vec3f_dot_soa),
            ("clang batch aos", Aether, bench_clang_batch_vec3f_dot_aos),
            ("clang batch soa", Soa, bench_clang_batch_vec3f_dot_soa),
            ("cglm gcc", Peer, bench_gcc_cglm_vec3f_dot),
            ("cglm clang", Peer, bench_clang_cglm_vec3f_dot),
            ("cglm object", Peer, bench_gcc_cglmobj_vec3f_dot),
            ("glam", Peer, bench_glam_vec3f_dot)
        ]
    );
    op!(
        "vec3f_cross",
        F32,
        Vec3,
        Some(Vec3),
        Vec3,
        false,
        [
            ("gcc object", Aether, bench_gcc_obj_vec3f_cross),
            ("gcc header-only", Aether, bench_gcc_inline_vec3f_cross),
            ("clang object", Aether, bench_clang_obj_vec3f_cross),
            ("clang header-only", Aether, bench_clang_inline_vec3f_cross),
            ("gcc object LTO", Aether, bench_gcc_lto_vec3f_cross),
            ("clang object LTO", Aether, bench_clang_lto_vec3f_cross),
            ("gcc batch aos", Aether, bench_gcc_batch_vec3f_cross_aos),
            ("gcc batch soa", Soa, bench_gcc_batch_vec3f_cross_soa),
            ("clang batch aos", Aether, bench_clang_batch_vec3f_cross_aos),
            ("clang batch soa", Soa, bench_clang_batch_vec3f_cross_soa),
            ("cglm gcc", Peer, bench_gcc_cglm_vec3f_cross),
            ("cglm clang", Peer, bench_clang_cglm_vec3f_cross),
            ("cglm object", Peer, bench_gcc_cglmobj_vec3f_cross),
            ("glam", Peer, bench_glam_vec3f_cross)
        ]
    );
    op!(
        "vec3f_normalize",
        F32,
        Vec3,
        None,
        Vec3,
        false,
        [
            ("gcc object", Aether, bench_gcc_obj_vec3f_normalize),
            ("gcc header-only", Aether, bench_gcc_inline_vec3f_normalize),
            ("clang object", Aether, bench_clang_obj_vec3f_normalize),
            ("clang header-only", Aether, bench_clang_inline_vec3f_normalize),
            ("gcc object LTO", Aether, bench_gcc_lto_vec3f_normalize),
            ("clang object LTO", Aether, bench_clang_lto_vec3f_normalize),
            ("gcc batch aos", Aether, bench_gcc_batch_vec3f_normalize_aos),
            ("gcc batch soa", Soa, bench_gcc_batch_vec3f_normalize_soa),
            ("clang batch aos", Aether, bench_clang_batch_vec3f_normalize_aos),
            ("clang batch soa", Soa, bench_clang_batch_vec3f_normalize_soa),
            ("cglm gcc", Peer, bench_gcc_cglm_vec3f_normalize),
            ("cglm clang", Peer, bench_clang_cglm_vec3f_normalize),
            ("cglm object", Peer, bench_gcc_cglmobj_vec3f_normalize),
            ("glam", Peer, bench_glam_vec3f_normalize)
        ]
    );
    op!(
        "quatf_mul",
        F32,
        Quat,
        Some(Quat),
        Quat,
        false,
        [
            ("gcc object", Aether, bench_gcc_obj_quatf_mul),
            ("gcc header-only", Aether, bench_gcc_inline_quatf_mul),
            ("clang object", Aether, bench_clang_obj_quatf_mul),
            ("clang header-only", Aether, bench_clang_inline_quatf_mul),
            ("gcc object LTO", Aether, bench_gcc_lto_quatf_mul),
            ("clang object LTO", Aether, bench_clang_lto_quatf_mul),
            ("gcc batch aos", Aether, bench_gcc_batch_quatf_mul_aos),
            ("gcc batch soa", Soa, bench_gcc_batch_quatf_mul_soa),
            ("clang batch aos", Aether, bench_clang_batch_quatf_mul_aos),
            ("clang batch soa", Soa, bench_clang_batch_quatf_mul_soa),
            ("cglm gcc", Peer, bench_gcc_cglm_quatf_mul),
            ("cglm clang", Peer, bench_clang_cglm_quatf_mul),
            ("cglm object", Peer, bench_gcc_cglmobj_quatf_mul),
            ("glam", Peer, bench_glam_quatf_mul)
        ]
    );
    op!(
        "quatf_rotate",
        F32,
        Quat,
        Some(Vec3),
        Vec3,
        false,
        [
            ("gcc object", Aether, bench_gcc_obj_quatf_rotate),
            ("gcc header-only", Aether, bench_gcc_inline_quatf_rotate),
            ("clang object", Aether, bench_clang_obj_quatf_rotate),
            ("clang header-only", Aether, bench_clang_inline_quatf_rotate),
            ("gcc object LTO", Aether, bench_gcc_lto_quatf_rotate),
            ("clang object LTO", Aether, bench_clang_lto_quatf_rotate),
            ("gcc batch aos", Aether, bench_gcc_batch_quatf_rotate_aos),
            ("gcc batch soa", Soa, bench_gcc_batch_quatf_rotate_soa),
            ("clang batch aos", Aether, bench_clang_batch_quatf_rotate_aos),
            ("clang batch soa", Soa, bench_clang_batch_quatf_rotate_soa),
            ("cglm gcc", Peer, bench_gcc_cglm_quatf_rotate),
            ("cglm clang", Peer, bench_clang_cglm_quatf_rotate),
            ("cglm object", Peer, bench_gcc_cglmobj_quatf_rotate),
            ("glam", Peer, bench_glam_quatf_rotate)
        ]
    );
    op!(
        "mat4f_mul",
        F32,
        Mat4,
        Some(Mat4),
        Mat4,
        false,
        [
            ("gcc object", Aether, bench_gcc_obj_mat4f_mul),
            ("gcc header-only", Aether, bench_gcc_inline_mat4f_mul),
            ("clang object", Aether, bench_clang_obj_mat4f_mul),
            ("clang header-only", Aether, bench_clang_inline_mat4f_mul),
            ("gcc object LTO", Aether, bench_gcc_lto_mat4f_mul),
            ("clang object LTO", Aether, bench_clang_lto_mat4f_mul),
            ("gcc batch aos", Aether, bench_gcc_batch_mat4f_mul_aos),
            ("gcc batch soa", Soa, bench_gcc_batch_mat4f_mul_soa),
            ("clang batch aos", Aether, bench_clang_batch_mat4f_mul_aos),
            ("clang batch soa", Soa, bench_clang_batch_mat4f_mul_soa),
            ("cglm gcc", Peer, bench_gcc_cglm_mat4f_mul),
            ("cglm clang", Peer, bench_clang_cglm_mat4f_mul),
            ("cglm object", Peer, bench_gcc_cglmobj_mat4f_mul),
            ("glam", Peer, bench_glam_mat4f_mul)
        ]
    );
    op!(
        "mat4f_mul_vec",
        F32,
        Mat4,
        Some(Vec4),
        Vec4,
        false,
        [
            ("gcc object", Aether, bench_gcc_obj_mat4f_mul_vec),
            ("gcc header-only", Aether, bench_gcc_inline_mat4f_mul_vec),
            ("clang object", Aether, bench_clang_obj_mat4f_mul_vec),
            ("clang header-only", Aether, bench_clang_inline_mat4f_mul_vec),
            ("gcc object LTO", Aether, bench_gcc_lto_mat4f_mul_vec),
            ("clang object LTO", Aether, bench_clang_lto_mat4f_mul_vec),
            ("gcc batch aos", Aether, bench_gcc_batch_mat4f_mul_vec_aos),
            ("gcc batch soa", Soa, bench_gcc_batch_mat4f_mul_vec_soa),
            ("clang batch aos", Aether, bench_clang_batch_mat4f_mul_vec_aos),
            ("clang batch soa", Soa, bench_clang_batch_mat4f_mul_vec_soa),
            ("cglm gcc", Peer, bench_gcc_cglm_mat4f_mul_vec),
            ("cglm clang", Peer, bench_clang_cglm_mat4f_mul_vec),
            ("cglm object", Peer, bench_gcc_cglmobj_mat4f_mul_vec),
            ("glam", Peer, bench_glam_mat4f_mul_vec)
        ]
    );
    op!(
        "mat3f_inverse",
        F32,
        Mat3,
        None,
        Mat3,
        true,
        [
            ("gcc object", Aether, bench_gcc_obj_mat3f_inverse),
            ("gcc header-only", Aether, bench_gcc_inline_mat3f_inverse),
            ("clang object", Aether, bench_clang_obj_mat3f_inverse),
            ("clang header-only", Aether, bench_clang_inline_mat3f_inverse),
            ("gcc object LTO", Aether, bench_gcc_lto_mat3f_inverse),
            ("clang object LTO", Aether, bench_clang_lto_mat3f_inverse),
            ("cglm gcc", Peer, bench_gcc_cglm_mat3f_inverse),
            ("cglm clang", Peer, bench_clang_cglm_mat3f_inverse),
            ("cglm object", Peer, bench_gcc_cglmobj_mat3f_inverse),
            ("glam", Peer, bench_glam_mat3f_inverse)
        ]
    );
    op!(
        "mat3f_inverse_lanes",
        F32,
        Mat3,
        None,
        Mat3,
        true,
        [
            ("gcc object", Aether, bench_gcc_obj_mat3f_inverse_lanes),
            ("gcc header-only", Aether, bench_gcc_inline_mat3f_inverse_lanes),
            ("clang object", Aether, bench_clang_obj_mat3f_inverse_lanes),
            ("clang header-only", Aether, bench_clang_inline_mat3f_inverse_lanes),
            ("gcc object LTO", Aether, bench_gcc_lto_mat3f_inverse_lanes),
            ("clang object LTO", Aether, bench_clang_lto_mat3f_inverse_lanes),
            ("cglm gcc", Peer, bench_gcc_cglm_mat3f_inverse),
            ("cglm clang", Peer, bench_clang_cglm_mat3f_inverse),
            ("cglm object", Peer, bench_gcc_cglmobj_mat3f_inverse),
            ("glam", Peer, bench_glam_mat3f_inverse)
        ]
    );
    op!(
        "mat4f_inverse",
        F32,
        Mat4,
        None,
        Mat4,
        true,
        [
            ("gcc object", Aether, bench_gcc_obj_mat4f_inverse),
            ("gcc header-only", Aether, bench_gcc_inline_mat4f_inverse),
            ("clang object", Aether, bench_clang_obj_mat4f_inverse),
            ("clang header-only", Aether, bench_clang_inline_mat4f_inverse),
            ("gcc object LTO", Aether, bench_gcc_lto_mat4f_inverse),
            ("clang object LTO", Aether, bench_clang_lto_mat4f_inverse),
            ("cglm gcc", Peer, bench_gcc_cglm_mat4f_inverse),
            ("cglm clang", Peer, bench_clang_cglm_mat4f_inverse),
            ("cglm object", Peer, bench_gcc_cglmobj_mat4f_inverse),
            ("glam", Peer, bench_glam_mat4f_inverse)
        ]
    );
    op!(
        "mat3f_inverse_adjugate",
        F32,
        Mat3,
        None,
        Mat3,
        true,
        [
            ("gcc object", Aether, bench_gcc_obj_mat3f_inverse_adjugate),
            ("gcc header-only", Aether, bench_gcc_inline_mat3f_inverse_adjugate),
            ("clang object", Aether, bench_clang_obj_mat3f_inverse_adjugate),
            ("clang header-only", Aether, bench_clang_inline_mat3f_inverse_adjugate),
            ("gcc object LTO", Aether, bench_gcc_lto_mat3f_inverse_adjugate),
            ("clang object LTO", Aether, bench_clang_lto_mat3f_inverse_adjugate),
            ("gcc batch aos", Aether, bench_gcc_batch_mat3f_inverse_adjugate_aos),
            ("gcc batch soa", Soa, bench_gcc_batch_mat3f_inverse_adjugate_soa),
            ("clang batch aos", Aether, bench_clang_batch_mat3f_inverse_adjugate_aos),
            ("clang batch soa", Soa, bench_clang_batch_mat3f_inverse_adjugate_soa),
            ("cglm gcc", Peer, bench_gcc_cglm_mat3f_inverse),
            ("cglm clang", Peer, bench_clang_cglm_mat3f_inverse),
            ("cglm object", Peer, bench_gcc_cglmobj_mat3f_inverse),
            ("glam", Peer, bench_glam_mat3f_inverse)
        ]
    );
    op!(
        "mat4f_inverse_adjugate",
        F32,
        Mat4,
        None,
        Mat4,
        true,
        [
            ("gcc object", Aether, bench_gcc_obj_mat4f_inverse_adjugate),
            ("gcc header-only", Aether, bench_gcc_inline_mat4f_inverse_adjugate),
            ("clang object", Aether, bench_clang_obj_mat4f_inverse_adjugate),
            ("clang header-only", Aether, bench_clang_inline_mat4f_inverse_adjugate),
            ("gcc object LTO", Aether, bench_gcc_lto_mat4f_inverse_adjugate),
            ("clang object LTO", Aether, bench_clang_lto_mat4f_inverse_adjugate),
            ("gcc batch aos", Aether, bench_gcc_batch_mat4f_inverse_adjugate_aos),
            ("gcc batch soa", Soa, bench_gcc_batch_mat4f_inverse_adjugate_soa),
            ("clang batch aos", Aether, bench_clang_batch_mat4f_inverse_adjugate_aos),
            ("clang batch soa", Soa, bench_clang_batch_mat4f_inverse_adjugate_soa),
            ("cglm gcc", Peer, bench_gcc_cglm_mat4f_inverse),
            ("cglm clang", Peer, bench_clang_cglm_mat4f_inverse),
            ("cglm object", Peer, bench_gcc_cglmobj_mat4f_inverse),
            ("glam", Peer, bench_glam_mat4f_inverse)
        ]
    );
    op!(
        "vec3d_dot",
        F64,
        Vec3,
        Some(Vec3),
        Scalar,
        false,
        [
            ("gcc object", Aether, bench_gcc_obj_vec3d_dot),
            ("gcc header-only", Aether, bench_gcc_inline_vec3d_dot),
            ("clang object", Aether, bench_clang_obj_vec3d_dot),
            ("clang header-only", Aether, bench_clang_inline_vec3d_dot),
            ("gcc object LTO", Aether, bench_gcc_lto_vec3d_dot),
            ("clang object LTO", Aether, bench_clang_lto_vec3d_dot),
            ("gcc batch aos", Aether, bench_gcc_batch_vec3d_dot_aos),
            ("gcc batch soa", Soa, bench_gcc_batch_vec3d_dot_soa),
            ("clang batch aos", Aether, bench_clang_batch_vec3d_dot_aos),
            ("clang batch soa", Soa, bench_clang_batch_vec3d_dot_soa),
            ("glam", Peer, bench_glam_vec3d_dot)
        ]
    );
    op!(
        "mat4d_mul",
        F64,
        Mat4,
        Some(Mat4),
        Mat4,
        false,
        [
            ("gcc object", Aether, bench_gcc_obj_mat4d_mul),
            ("gcc header-only", Aether, bench_gcc_inline_mat4d_mul),
            ("clang object", Aether, bench_clang_obj_mat4d_mul),
            ("clang header-only", Aether, bench_clang_inline_mat4d_mul),
            ("gcc object LTO", Aether, bench_gcc_lto_mat4d_mul),
            ("clang object LTO", Aether, bench_clang_lto_mat4d_mul),
            ("gcc batch aos", Aether, bench_gcc_batch_mat4d_mul_aos),
            ("gcc batch soa", Soa, bench_gcc_batch_mat4d_mul_soa),
            ("clang batch aos", Aether, bench_clang_batch_mat4d_mul_aos),
            ("clang batch soa", Soa, bench_clang_batch_mat4d_mul_soa),
            ("glam", Peer, bench_glam_mat4d_mul)
        ]
    );
    op!(
        "mat4d_mul_vec",
        F64,
        Mat4,
        Some(Vec4),
        Vec4,
        false,
        [
            ("gcc object", Aether, bench_gcc_obj_mat4d_mul_vec),
            ("gcc header-only", Aether, bench_gcc_inline_mat4d_mul_vec),
            ("clang object", Aether, bench_clang_obj_mat4d_mul_vec),
            ("clang header-only", Aether, bench_clang_inline_mat4d_mul_vec),
            ("gcc object LTO", Aether, bench_gcc_lto_mat4d_mul_vec),
            ("clang object LTO", Aether, bench_clang_lto_mat4d_mul_vec),
            ("gcc batch aos", Aether, bench_gcc_batch_mat4d_mul_vec_aos),
            ("gcc batch soa", Soa, bench_gcc_batch_mat4d_mul_vec_soa),
            ("clang batch aos", Aether, bench_clang_batch_mat4d_mul_vec_aos),
            ("clang batch soa", Soa, bench_clang_batch_mat4d_mul_vec_soa),
            ("glam", Peer, bench_glam_mat4d_mul_vec)
        ]
    );
    op!(
        "quatd_mul",
        F64,
        Quat,
        Some(Quat),
        Quat,
        false,
        [
            ("gcc object", Aether, bench_gcc_obj_quatd_mul),
            ("gcc header-only", Aether, bench_gcc_inline_quatd_mul),
            ("clang object", Aether, bench_clang_obj_quatd_mul),
            ("clang header-only", Aether, bench_clang_inline_quatd_mul),
            ("gcc object LTO", Aether, bench_gcc_lto_quatd_mul),
            ("clang object LTO", Aether, bench_clang_lto_quatd_mul),
            ("gcc batch aos", Aether, bench_gcc_batch_quatd_mul_aos),
            ("gcc batch soa", Soa, bench_gcc_batch_quatd_mul_soa),
            ("clang batch aos", Aether, bench_clang_batch_quatd_mul_aos),
            ("clang batch soa", Soa, bench_clang_batch_quatd_mul_soa),
            ("glam", Peer, bench_glam_quatd_mul)
        ]
    );
    op!(
        "f32_sum_array",
        F32,
        Array,
        None,
        Array,
        false,
        [
            ("gcc object", Aether, bench_gcc_obj_f32_sum_array),
            ("gcc header-only", Aether, bench_gcc_inline_f32_sum_array),
            ("clang object", Aether, bench_clang_obj_f32_sum_array),
            ("clang header-only", Aether, bench_clang_inline_f32_sum_array),
            ("plain loop gcc", Aether, bench_gcc_cglm_f32_sum_array_plain),
            ("plain loop clang", Aether, bench_clang_cglm_f32_sum_array_plain),
            ("Kahan loop gcc", Aether, bench_gcc_cglm_f32_sum_array_kahan),
            ("Kahan loop clang", Aether, bench_clang_cglm_f32_sum_array_kahan)
        ]
    );
    op!(
        "f32_dot_array",
        F32,
        Array,
        Some(Array),
        Array,
        false,
        [
            ("gcc object", Aether, bench_gcc_obj_f32_dot_array),
            ("gcc header-only", Aether, bench_gcc_inline_f32_dot_array),
            ("clang object", Aether, bench_clang_obj_f32_dot_array),
            ("clang header-only", Aether, bench_clang_inline_f32_dot_array),
            ("plain loop gcc", Aether, bench_gcc_cglm_f32_dot_array_plain),
            ("plain loop clang", Aether, bench_clang_cglm_f32_dot_array_plain),
            ("Kahan loop gcc", Aether, bench_gcc_cglm_f32_dot_array_kahan),
            ("Kahan loop clang", Aether, bench_clang_cglm_f32_dot_array_kahan)
        ]
    );
    op!(
        "f64_sum_array",
        F64,
        Array,
        None,
        Array,
        false,
        [
            ("gcc object", Aether, bench_gcc_obj_f64_sum_array),
            ("gcc header-only", Aether, bench_gcc_inline_f64_sum_array),
            ("clang object", Aether, bench_clang_obj_f64_sum_array),
            ("clang header-only", Aether, bench_clang_inline_f64_sum_array),
            ("plain loop gcc", Aether, bench_gcc_cglm_f64_sum_array_plain),
            ("plain loop clang", Aether, bench_clang_cglm_f64_sum_array_plain),
            ("Kahan loop gcc", Aether, bench_gcc_cglm_f64_sum_array_kahan),
            ("Kahan loop clang", Aether, bench_clang_cglm_f64_sum_array_kahan)
        ]
    );
    for (t, elem) in [F32, F64].into_iter().enumerate() {
        for &(fname, two, std, map) in &ELEMENTARY {
            // `f32_sin`: the name the C tables list (a static name, made once per run).
            let name: &'static str = Box::leak(format!("{}_{fname}", ["f32", "f64"][t]).into_boxed_str());
            let mut contenders: Vec<(&'static str, Layout, Loop)> =
                ELEMENTARY_KINDS.iter().map(|&(who, table)| (who, Aether, elementary_loop(table, name))).collect();
            contenders.push(("Rust std", Aether, std[t]));
            v.push(Op { name, elem, a: Scalar, b: two.then_some(Scalar), out: Scalar, diagonal: false, map, contenders });
        }
    }
    v
}

/// The reference's result elements, in aether's order: `out.len()` per item
/// (one for the sums).
fn reference<T: Trig>(op: &Op, a: &[T], b: &[T], n: usize) -> Vec<T> {
    if is_elementary(op.name) {
        let f: fn(T, T) -> T = match &op.name[4..] {
            "sin" => |x, _| elementary::sin(x),
            "cos" => |x, _| elementary::cos(x),
            "tan" => |x, _| elementary::tan(x),
            "atan" => |x, _| elementary::atan(x),
            "atan2" => elementary::atan2,
            "exp" => |x, _| elementary::exp(x),
            "exp2" => |x, _| elementary::exp2(x),
            "log" => |x, _| elementary::log(x),
            "log2" => |x, _| elementary::log2(x),
            "pow" => elementary::pow,
            "asin" => |x, _| elementary::asin(x),
            "acos" => |x, _| elementary::acos(x),
            other => unreachable!("no reference for {other}"),
        };
        return (0..n).map(|i| f(a[i], b.get(i).copied().unwrap_or(T::ZERO))).collect();
    }
    let v3 = |s: &[T]| Vec3 { x: s[0], y: s[1], z: s[2] };
    let v4 = |s: &[T]| Vec4 { x: s[0], y: s[1], z: s[2], w: s[3] };
    let q = |s: &[T]| Quat::new(s[0], s[1], s[2], s[3]);
    let m3 = |s: &[T]| Mat { rows: [[s[0], s[1], s[2]], [s[3], s[4], s[5]], [s[6], s[7], s[8]]] };
    let m4 = |s: &[T]| Mat { rows: std::array::from_fn(|i| std::array::from_fn(|j| s[4 * i + j])) };
    let flat = |m: Mat<T, 4>| m.rows.iter().flatten().copied().collect::<Vec<T>>();
    let (la, lb) = (op.a.len(), op.b.map_or(0, Shape::len));
    let base = op.name.trim_end_matches("_lanes");
    let adjugate = base.ends_with("_inverse_adjugate");
    let base = base.trim_end_matches("_adjugate");
    match base {
        "f32_sum_array" | "f64_sum_array" => return vec![compensated::sum_array(&a[..n])],
        "f32_dot_array" => return vec![compensated::dot_array(&a[..n], &b[..n])],
        _ => {}
    }
    let mut out = Vec::with_capacity(n * op.out.len());
    for i in 0..n {
        let x = &a[i * la..(i + 1) * la];
        let y = if lb > 0 { &b[i * lb..(i + 1) * lb] } else { &[][..] };
        // "vec3f_dot" -> "dot": the shape and element letter are op.a and op.elem.
        let op_name = &base[6..];
        match (op.a, op_name) {
            (Shape::Vec3, "dot") => out.push(v3(x).dot(v3(y))),
            (Shape::Vec3, "cross") => out.extend(v3(x).cross(v3(y)).to_array()),
            (Shape::Vec3, "normalize") => out.extend(v3(x).normalize().to_array()),
            (Shape::Quat, "mul") => out.extend(q(x).mul(q(y)).to_array()),
            (Shape::Quat, "rotate") => out.extend(q(x).rotate(v3(y)).to_array()),
            (Shape::Mat4, "mul") => out.extend(flat(m4(x).mul(m4(y)))),
            (Shape::Mat4, "mul_vec") => out.extend(m4(x).mul_vec(v4(y)).to_array()),
            (Shape::Mat3, "inverse") if adjugate => out.extend(m3(x).inverse_adjugate().rows.iter().flatten().copied()),
            (Shape::Mat4, "inverse") if adjugate => out.extend(flat(m4(x).inverse_adjugate())),
            (Shape::Mat3, "inverse") => out.extend(linalg::inverse(m3(x)).0.rows.iter().flatten().copied()),
            (Shape::Mat4, "inverse") => out.extend(flat(linalg::inverse(m4(x)).0)),
            _ => unreachable!("no reference for {}", op.name),
        }
    }
    out
}

/// One operation's buffers: the inputs in both layouts, one output buffer.
struct Data {
    n: usize,
    a: [Buf; 3],
    b: [Buf; 3],
    out: Buf,
    /// The reference's result words, in aether's order.
    want: Vec<u64>,
}

fn size_of(e: Elem) -> usize {
    if e == Elem::F32 {
        4
    } else {
        8
    }
}

/// Items (or array elements) of `shape` from the generator, in the three layouts.
fn fill(shape: Shape, elem: Elem, n: usize, diagonal: bool, map: fn(f64) -> f64, rng: &mut Rng) -> [Buf; 3] {
    let len = shape.len();
    let count = if matches!(shape, Shape::Array) { n } else { n * len };
    let mut values: Vec<f64> = (0..count).map(|_| map(rng.next())).collect();
    if diagonal {
        let d = if len == 9 { 3 } else { 4 };
        for item in values.chunks_mut(len) {
            for k in 0..d {
                item[k * d + k] += 3.0;
            }
        }
    }
    let perm = shape.perm();
    let mut peer = values.clone();
    let mut planes = values.clone();
    if !matches!(shape, Shape::Array) {
        for (i, (p, v)) in peer.chunks_mut(len).zip(values.chunks(len)).enumerate() {
            for k in 0..len {
                p[k] = v[perm[k]];
                planes[k * n + i] = v[k];
            }
        }
    }
    let store = |v: &[f64]| {
        let mut b = Buf::zeroed(v.len() * size_of(elem));
        match elem {
            Elem::F32 => b.elems_mut::<f32>(v.len()).iter_mut().zip(v).for_each(|(d, s)| *d = *s as f32),
            Elem::F64 => b.elems_mut::<f64>(v.len()).copy_from_slice(v),
        }
        b
    };
    [store(&values), store(&peer), store(&planes)]
}

/// The output words of a contender's run, in aether's order.
fn words(op: &Op, layout: Layout, out: &Buf, n: usize) -> Vec<u64> {
    let len = op.out.len();
    let count = if matches!(op.out, Shape::Array) { 1 } else { n * len };
    let raw: Vec<u64> = match op.elem {
        Elem::F32 => out.elems::<f32>(count).iter().map(|x| u64::from(x.to_bits())).collect(),
        Elem::F64 => out.elems::<f64>(count).iter().map(|x| x.to_bits()).collect(),
    };
    if layout == Layout::Aether || matches!(op.out, Shape::Array) {
        return raw;
    }
    if layout == Layout::Soa {
        return (0..count).map(|j| raw[(j % len) * n + j / len]).collect();
    }
    let perm = op.out.perm();
    let mut back = raw.clone();
    for (b, p) in back.chunks_mut(len).zip(raw.chunks(len)) {
        for k in 0..len {
            b[perm[k]] = p[k];
        }
    }
    back
}

fn prepare(op: &Op, n: usize, seed: u64) -> Data {
    let mut rng = Rng(seed);
    let a = fill(op.a, op.elem, n, op.diagonal, op.map[0], &mut rng);
    let b = match op.b {
        Some(s) => fill(s, op.elem, n, false, op.map[1], &mut rng),
        None => [Buf::zeroed(64), Buf::zeroed(64), Buf::zeroed(64)],
    };
    let (la, lb) = (
        if matches!(op.a, Shape::Array) { 1 } else { op.a.len() },
        op.b.map_or(0, |s| if matches!(s, Shape::Array) { 1 } else { s.len() }),
    );
    let want = match op.elem {
        Elem::F32 => {
            reference(op, a[0].elems::<f32>(n * la), b[0].elems::<f32>(n * lb), n).iter().map(|x| u64::from(x.to_bits())).collect()
        }
        Elem::F64 => reference(op, a[0].elems::<f64>(n * la), b[0].elems::<f64>(n * lb), n).iter().map(|x| x.to_bits()).collect(),
    };
    let out = Buf::zeroed(n.max(1) * op.out.len() * size_of(op.elem));
    Data { n, a, b, out, want }
}

fn call(f: Loop, layout: Layout, d: &mut Data) {
    let k = layout.slot();
    let (a, b) = (d.a[k].ptr(), d.b[k].ptr());
    unsafe { f(a, b, d.out.mut_ptr(), d.n) };
}

/// Items whose result differs from the reference's in any bit.
fn differing(op: &Op, layout: Layout, d: &Data) -> usize {
    let got = words(op, layout, &d.out, d.n);
    let len = if matches!(op.out, Shape::Array) { 1 } else { op.out.len() };
    got.chunks(len).zip(d.want.chunks(len)).filter(|(g, w)| g != w).count()
}

struct Args {
    n: usize,
    rounds: usize,
    ms: f64,
    only: Option<String>,
    check: bool,
    callgrind: bool,
    markdown: bool,
}

fn args() -> Args {
    let mut a = Args { n: 1024, rounds: 11, ms: 2.0, only: None, check: false, callgrind: false, markdown: false };
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        let mut value = |what: &str| it.next().unwrap_or_else(|| die(&format!("{x} needs {what}")));
        match x.as_str() {
            "--n" => a.n = value("a count").parse().unwrap_or_else(|_| die("--n needs a count")),
            "--rounds" => a.rounds = value("a count").parse().unwrap_or_else(|_| die("--rounds needs a count")),
            "--ms" => a.ms = value("milliseconds").parse().unwrap_or_else(|_| die("--ms needs milliseconds")),
            "--only" => a.only = Some(value("an operation")),
            "--check" => a.check = true,
            "--callgrind" => a.callgrind = true,
            "--markdown" => a.markdown = true,
            "--list" => {
                for op in ops().into_iter().filter(|o| !is_elementary(o.name)) {
                    println!("{}", op.name);
                }
                std::process::exit(0);
            }
            _ => die(&format!("unknown argument {x} (see the top of bench/src/main.rs)")),
        }
    }
    if a.n == 0 || a.rounds == 0 {
        die("--n and --rounds must be positive");
    }
    a
}

fn die(msg: &str) -> ! {
    eprintln!("aether-bench: {msg}");
    std::process::exit(2)
}

fn main() {
    let args = args();
    let ops: Vec<Op> = ops().into_iter().filter(|o| args.only.as_deref().is_none_or(|w| o.name == w)).collect();
    if ops.is_empty() {
        die("--only names no operation");
    }
    let mut data: Vec<Data> = ops.iter().enumerate().map(|(i, o)| prepare(o, args.n, 0x5eed_0000 + i as u64)).collect();
    // The bits first: every aether contender equals the reference on every item.
    let mut bad = 0;
    let mut peers_differ = Vec::new();
    for (op, d) in ops.iter().zip(data.iter_mut()) {
        let mut row = Vec::new();
        for &(who, layout, f) in &op.contenders {
            call(f, layout, d);
            let k = differing(op, layout, d);
            let aether = layout != Layout::Peer && (who.contains("object") || who.contains("header-only") || who.contains("batch"));
            if aether && k > 0 {
                eprintln!("aether-bench: {} {who}: {k} of {} items differ from the reference", op.name, d.n);
                bad += 1;
            }
            row.push(k);
        }
        peers_differ.push(row);
    }
    if bad > 0 {
        std::process::exit(1);
    }
    if args.check {
        println!("aether-bench: bits: every aether contender equals the reference on all {} operations, n = {}", ops.len(), args.n);
        return;
    }
    if args.callgrind {
        // Everything ran once above; once more, alone, for the counts (one call per contender).
        for (op, d) in ops.iter().zip(data.iter_mut()) {
            for &(_, layout, f) in &op.contenders {
                call(f, layout, d);
            }
        }
        return;
    }
    // Timing: each round, every contender of every operation in turn; the best per item.
    let mut best: Vec<Vec<f64>> = ops.iter().map(|o| vec![f64::INFINITY; o.contenders.len()]).collect();
    let mut reps: Vec<Vec<usize>> = ops.iter().map(|o| vec![0; o.contenders.len()]).collect();
    for _ in 0..args.rounds {
        for (i, (op, d)) in ops.iter().zip(data.iter_mut()).enumerate() {
            for (j, &(_, layout, f)) in op.contenders.iter().enumerate() {
                if reps[i][j] == 0 {
                    let t = Instant::now();
                    call(f, layout, d);
                    let one = t.elapsed().as_secs_f64();
                    reps[i][j] = ((args.ms * 1e-3 / one.max(1e-9)).ceil() as usize).max(1);
                }
                let t = Instant::now();
                for _ in 0..reps[i][j] {
                    call(f, layout, d);
                }
                let per_item = t.elapsed().as_secs_f64() * 1e9 / (reps[i][j] * d.n) as f64;
                best[i][j] = best[i][j].min(per_item);
            }
        }
    }
    if args.markdown {
        markdown(&ops, &best, &peers_differ, &args);
        return;
    }
    println!("ns per item (per element for the array sums), best of {} rounds, n = {}", args.rounds, args.n);
    for (i, op) in ops.iter().enumerate() {
        println!("op {}", op.name);
        for (j, &(who, _, _)) in op.contenders.iter().enumerate() {
            println!(
                "  {:<18} {:>10.3} ns  differs from the reference in {} of {} items",
                who,
                best[i][j],
                peers_differ[i][j],
                if matches!(op.out, Shape::Array) { 1 } else { args.n }
            );
        }
    }
}

/// The tables of docs/reports/performance.md: ns per item, and the ratios the
/// issue's targets are stated in.
fn markdown(ops: &[Op], best: &[Vec<f64>], differ: &[Vec<usize>], args: &Args) {
    let t = |i: usize, who: &str| ops[i].contenders.iter().position(|c| c.0 == who).map(|j| best[i][j]);
    let f = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.2}"));
    let r = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => format!("{:.2}", a / b),
        _ => "-".into(),
    };
    let min = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, None) => a,
        (None, b) => b,
    };
    println!("ns per item, best of {} rounds, n = {} items per pass.", args.rounds, args.n);
    println!();
    println!("| operation | gcc object | gcc header-only | clang object | clang header-only | cglm gcc | cglm clang | glam | cglm object | gcc header-only ÷ best peer | clang header-only ÷ best peer | gcc object ÷ cglm | clang object ÷ cglm | gcc object ÷ cglm object | clang object ÷ cglm object | peers' items off the contract (cglm gcc, cglm clang, glam, cglm object) |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (i, op) in ops.iter().enumerate().filter(|(_, o)| !matches!(o.a, Shape::Array) && !is_elementary(o.name)) {
        let (go, gh, co, ch) = (t(i, "gcc object"), t(i, "gcc header-only"), t(i, "clang object"), t(i, "clang header-only"));
        let (cg, cc, gl, cj) = (t(i, "cglm gcc"), t(i, "cglm clang"), t(i, "glam"), t(i, "cglm object"));
        let off = |who: &str| op.contenders.iter().position(|c| c.0 == who).map_or("-".to_string(), |j| differ[i][j].to_string());
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {}, {}, {}, {} of {} |",
            op.name,
            f(go),
            f(gh),
            f(co),
            f(ch),
            f(cg),
            f(cc),
            f(gl),
            f(cj),
            r(gh, min(cg, gl)),
            r(ch, min(cc, gl)),
            r(go, cg.or(gl)),
            r(co, cc.or(gl)),
            r(go, cj),
            r(co, cj),
            off("cglm gcc"),
            off("cglm clang"),
            off("glam"),
            off("cglm object"),
            args.n
        );
    }
    println!();
    println!("The batched forms (aether_batch.c as its own object, one call for all n items), ns per item, and each against the best peer's loop (the fastest of cglm gcc, cglm clang and glam).");
    println!();
    println!("| operation | gcc batch aos | gcc batch soa | clang batch aos | clang batch soa | best peer | gcc aos ÷ best peer | gcc soa ÷ best peer | clang aos ÷ best peer | clang soa ÷ best peer |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (i, op) in ops.iter().enumerate().filter(|(_, o)| o.contenders.iter().any(|c| c.0.contains("batch"))) {
        let (ga, gs, ca, cs) = (t(i, "gcc batch aos"), t(i, "gcc batch soa"), t(i, "clang batch aos"), t(i, "clang batch soa"));
        let peer = min(min(t(i, "cglm gcc"), t(i, "cglm clang")), t(i, "glam"));
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            op.name,
            f(ga),
            f(gs),
            f(ca),
            f(cs),
            f(peer),
            r(ga, peer),
            r(gs, peer),
            r(ca, peer),
            r(cs, peer)
        );
    }
    println!();
    println!("The array sums, ns per element (one array of n elements per pass).");
    println!();
    println!("| operation | gcc object | gcc header-only | clang object | clang header-only | plain loop gcc | plain loop clang | Kahan loop gcc | Kahan loop clang | gcc header-only ÷ plain | clang header-only ÷ plain | Kahan ÷ gcc header-only | Kahan ÷ clang header-only |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (i, op) in ops.iter().enumerate().filter(|(_, o)| matches!(o.a, Shape::Array)) {
        let (go, gh, co, ch) = (t(i, "gcc object"), t(i, "gcc header-only"), t(i, "clang object"), t(i, "clang header-only"));
        let (pg, pc, kg, kc) = (t(i, "plain loop gcc"), t(i, "plain loop clang"), t(i, "Kahan loop gcc"), t(i, "Kahan loop clang"));
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            op.name,
            f(go),
            f(gh),
            f(co),
            f(ch),
            f(pg),
            f(pc),
            f(kg),
            f(kc),
            r(gh, pg),
            r(ch, pc),
            r(kg, gh),
            r(kc, ch)
        );
    }
    println!();
    println!("The shipped object linked with link-time optimisation: `aether_core.c` and the loop compiled with `-flto`, the core with `-DAETHER_LTO` (laid out to be inlined) and `-fvisibility=hidden` (what a consumer's final link sees: nothing outside interposes the core's functions, so the compiler may inline them), ns per item, against cglm's inline functions (same compiler; glam for the f64 operations) and against the best peer.");
    println!();
    println!("| operation | gcc object LTO | clang object LTO | gcc object | clang object | cglm gcc | cglm clang | glam | gcc LTO ÷ cglm | clang LTO ÷ cglm | gcc LTO ÷ best peer | clang LTO ÷ best peer |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (i, op) in ops.iter().enumerate().filter(|(_, o)| o.contenders.iter().any(|c| c.0.ends_with("LTO"))) {
        let (gl, cl, go, co) = (t(i, "gcc object LTO"), t(i, "clang object LTO"), t(i, "gcc object"), t(i, "clang object"));
        let (cg, cc, glam) = (t(i, "cglm gcc"), t(i, "cglm clang"), t(i, "glam"));
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            op.name,
            f(gl),
            f(cl),
            f(go),
            f(co),
            f(cg),
            f(cc),
            f(glam),
            r(gl, cg.or(glam)),
            r(cl, cc.or(glam)),
            r(gl, min(cg, glam)),
            r(cl, min(cc, glam))
        );
    }
    if !ops.iter().any(|o| is_elementary(o.name)) {
        return;
    }
    println!();
    println!("The elementary functions, ns per call (the platform's: glibc's libm, its libmvec through gcc's vectoriser under -O3 -ffast-math, and Rust's std, which glam calls), and the cost of the contract's bits as a ratio.");
    println!();
    println!("| function | gcc object | gcc header-only | clang object | clang header-only | glibc gcc | glibc clang | libmvec gcc (-ffast-math) | Rust std | gcc header-only ÷ glibc gcc | clang header-only ÷ glibc clang | gcc header-only ÷ libmvec | items off the contract (glibc gcc, libmvec, Rust std) |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (i, op) in ops.iter().enumerate().filter(|(_, o)| is_elementary(o.name)) {
        let (go, gh, co, ch) = (t(i, "gcc object"), t(i, "gcc header-only"), t(i, "clang object"), t(i, "clang header-only"));
        let (lg, lc, mv, rs) = (t(i, "glibc gcc"), t(i, "glibc clang"), t(i, "libmvec gcc"), t(i, "Rust std"));
        let off = |who: &str| op.contenders.iter().position(|c| c.0 == who).map_or("-".to_string(), |j| differ[i][j].to_string());
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {}, {}, {} of {} |",
            op.name,
            f(go),
            f(gh),
            f(co),
            f(ch),
            f(lg),
            f(lc),
            f(mv),
            f(rs),
            r(gh, lg),
            r(ch, lc),
            r(gh, mv),
            off("glibc gcc"),
            off("libmvec gcc"),
            off("Rust std"),
            args.n
        );
    }
}
