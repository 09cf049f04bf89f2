//! The C core's batched forms (`c_core/aether_batch.{h,c}`): every function
//! of the core over many items, in structure of arrays (`_soa`, the layout of
//! the CUDA and OpenCL batches: component c of item i at `[c * n + i]`) and
//! in array of structures (`_aos`: the core's own structs, one per item).
//!
//! Items are independent, so eight binary32 items (four binary64) are eight
//! lanes of one GNU C vector step: the function's tree printed with vector
//! types by the one walk every target uses (`print::body`), each vector lane
//! doing the scalar body's operations, in its order, on one item. The
//! compiler is given no loop to vectorise, and so no choice: the vector code
//! is there at -O1, with gcc's -O2 cost model (which vectorises no loop of
//! this kind) and on every GNU target. The products' guard is the OR with
//! an opaque zero (no contraction pass sees a product through an integer
//! OR); sqrt is the packed sqrt of AVX, SSE2 or AArch64 (correctly rounded
//! lane by lane, so the scalar sqrt's bits), else the scalar one lane by lane; fmin, fmax, fabs and
//! isfinite are the scalar rules as lane masks. Items past the last whole
//! vector, and every item where the vector path is not compiled (a compiler
//! without GNU C vectors, or `AETHER_NO_LANES_SIMD`), run the scalar
//! function: the same bits, item by item, which the corpus runner's
//! `--batch` modes check against the corpus and the Rust reference.

use std::cell::Cell;

use crate::dsl::BinOp;
use crate::model::{Builtin, Expr, Function, Kind, Model, Ty};
use crate::spec::{ElemType, ShapeKind};
use crate::targets::c::item::Width;
use crate::targets::shared::c_family::simd::mask_type;
use crate::targets::shared::c_family::{self as c, barrier_name, component, literal, Dialect};
use crate::targets::shared::print::{self, Spelling};
use crate::targets::shared::soa::{self, COUNT as N, INDEX as I, OUT};

/// The macro that makes the batches' product guard the identity: a negative
/// control (the corpus runner's `--batch` modes must then report the
/// functions whose products fuse under `-ffp-contract=fast`).
pub const UNGUARDED: &str = "AETHER_UNSAFE_UNGUARDED_BATCH_PRODUCTS";

/// The product guard of vector type `v`: the lanes kernels' own (the OR with
/// the opaque zero, defined once by `c_simd`), which [`UNGUARDED`] redefines
/// as the identity for the batches alone.
fn product_guard(v: &ElemType) -> String {
    c::product_name(v)
}

/// The product guard in the steps of the mat4 products ([`mat4_product`]):
/// the pinned vector with clang, the OR with gcc, which spills the pinned
/// products of a 16-element operand (mat4f_mul_soa 2.9 ns per item at
/// n = 1000 with the OR against 4.1 pinned, mat4d_mul_soa 6.0 against 8.0).
fn wide_product_guard(v: &ElemType) -> String {
    format!("aether_batch_wide_product_{}", v.name)
}

/// A matrix product with a 16-element operand: at least four results, each
/// a sum of products of inputs, and a 4 x 4 parameter.
fn mat4_product(f: &Function) -> bool {
    c::products_vectorise(f) && f.params.iter().any(|p| p.kind.words() == 16)
}

/// The vector sqrt of vector type `v` (in place, through a pointer: see [`step`]).
fn sqrt_name(v: &ElemType) -> String {
    format!("aether_batch_sqrt_{}", v.name)
}

/// The vector sqrt of each vector type: the packed square root of AVX, SSE2 or
/// AArch64 (IEEE 754's correctly rounded sqrt, lane by lane: the scalar
/// sqrt's bits), else the scalar sqrt lane by lane.
fn sqrt_fns(model: &Model) -> Vec<String> {
    let mut lines = vec![
        "#if defined(__AVX__) || defined(__SSE2__)".to_string(),
        "#  include <immintrin.h>".into(),
        "#elif defined(__aarch64__)".into(),
        "#  include <arm_neon.h>".into(),
        "#endif".into(),
    ];
    for t in &model.spec.types {
        let (v, width) = crate::targets::shared::c_family::simd::vector_elem(t);
        let cv = &v.c_type;
        let (ps, sse, neon, neon_t) =
            if t.bits == 32 { ("ps", "__m128", "vsqrtq_f32", "float32x4_t") } else { ("pd", "__m128d", "vsqrtq_f64", "float64x2_t") };
        let avx_t = if t.bits == 32 { "__m256" } else { "__m256d" };
        lines.push(format!("static __inline__ __attribute__((__always_inline__)) void {}({cv} *x)", sqrt_name(&v)));
        lines.push("{".into());
        lines.push("#if defined(__AVX__)".into());
        lines.push(format!("    *x = ({cv})_mm256_sqrt_{ps}(({avx_t})*x);"));
        lines.push("#elif defined(__SSE2__) || defined(__aarch64__)".into());
        lines.push("#  if defined(__SSE2__)".into());
        lines.push(format!("    union {{ {cv} v; {sse} h[2]; }} u;"));
        lines.push("#  else".into());
        lines.push(format!("    union {{ {cv} v; {neon_t} h[2]; }} u;"));
        lines.push("#  endif".into());
        lines.push("    u.v = *x;".into());
        lines.push("#  if defined(__SSE2__)".into());
        lines.push(format!("    u.h[0] = _mm_sqrt_{ps}(u.h[0]);"));
        lines.push(format!("    u.h[1] = _mm_sqrt_{ps}(u.h[1]);"));
        lines.push("#  else".into());
        lines.push(format!("    u.h[0] = {neon}(u.h[0]);"));
        lines.push(format!("    u.h[1] = {neon}(u.h[1]);"));
        lines.push("#  endif".into());
        lines.push("    *x = u.v;".into());
        lines.push("#else".into());
        lines.push("    unsigned k;".into());
        lines.push(format!("    for (k = 0; k < {width}u; ++k) (*x)[k] = sqrt{}((*x)[k]);", t.libm_suffix));
        lines.push("#endif".into());
        lines.push("}".into());
    }
    lines
}

fn splat(v: &ElemType) -> String {
    format!("aether_batch_splat_{}", v.name)
}

/// The vector spelling of a function's tree: every value a vector of items.
struct Vector<'a> {
    /// The scalar element type (its literals and libm).
    scalar: &'a ElemType,
    /// The vector type's name (`f32x8`).
    name: String,
    /// Numbers the statement expressions of sqrt, so none shadows another.
    sqrts: Cell<usize>,
    /// A mat4 product's step: its products take [`wide_product_guard`].
    wide: bool,
}

impl Spelling for Vector<'_> {
    fn lit(&self, v: f64, elem: &ElemType) -> String {
        format!("{}({})", splat(elem), literal(v, self.scalar))
    }
    fn truth(&self, b: bool) -> String {
        (if b { "(-1)" } else { "0" }).to_string()
    }
    fn bin(&self, op: BinOp, a: &str, b: &str, elem: &ElemType) -> String {
        match op {
            BinOp::Mul if self.wide => format!("{}(({a} * {b}))", wide_product_guard(elem)),
            BinOp::Mul => format!("{}(({a} * {b}))", product_guard(elem)),
            BinOp::And => format!("({a} & {b})"),
            BinOp::Or => format!("({a} | {b})"),
            _ => format!("({a} {} {b})", op.symbol()),
        }
    }
    fn not(&self, a: &str) -> String {
        format!("(~{a})")
    }
    fn select(&self, c: &str, a: &str, b: &str) -> String {
        format!("aether_select_{}({c}, {a}, {b})", self.name)
    }
    fn sqrt(&self, x: &str, elem: &ElemType) -> String {
        let k = self.sqrts.get();
        self.sqrts.set(k + 1);
        let s = format!("aether_sqrt_{k}");
        format!("(__extension__ ({{ {} {s} = {x}; {}(&{s}); {s}; }}))", elem.c_type, sqrt_name(elem))
    }
    fn call(&self, b: Builtin, args: &[String], elem: &ElemType) -> String {
        let (m, bits) = (mask_type(elem), elem.bits);
        let sign = if bits == 32 { "0x7fffffff" } else { "0x7fffffffffffffff" };
        let word = format!("(int{bits}_t){sign}");
        let x = &args[0];
        match b {
            Builtin::Fabs => format!("(({})(({m})({x}) & {word}))", elem.c_type),
            Builtin::IsFinite => crate::targets::shared::c_family::simd::finite_lanes(elem, x),
            Builtin::Barrier => format!("{}({x})", barrier_name(elem)),
            Builtin::Fmin | Builtin::Fmax => format!("aether_{}_{}({})", b.name(), elem.name, args.join(", ")),
            Builtin::Sqrt | Builtin::Hypot | Builtin::Fma => unreachable!("refused by `vectorises`"),
        }
    }
    fn component(&self, var: &str, kind: &ShapeKind, k: usize) -> String {
        format!("{var}.{}", component(kind, k))
    }
    fn kind_type(&self, model: &Model, kind: &Kind, elem: &ElemType) -> String {
        match kind {
            Kind::Bool => mask_type(elem),
            Kind::Shape(s) => c::type_name(model, &s.name, elem),
        }
    }
    fn bind(&self, name: &str, ty: Ty, elem: &ElemType, value: &str) -> String {
        let ty = if ty == Ty::Bool { mask_type(elem) } else { elem.c_type.clone() };
        format!("const {ty} {name} = {value};")
    }
    fn return_truth(&self, v: &str) -> String {
        format!("return {v};")
    }
    fn declare_out(&self, ty: &str) -> String {
        format!("{ty} {};", crate::targets::shared::print::OUT)
    }
}

/// Whether a function's tree has a vector spelling: no hypot or fma (only
/// mutants have them), no truth constant and no choice between truth values.
pub fn vectorises(f: &Function) -> bool {
    fn ok(e: &Expr) -> bool {
        match e {
            Expr::Lit(_) | Expr::Input { .. } | Expr::Temp(_) => true,
            Expr::Truth(_) => false,
            Expr::Bin(_, a, b) => ok(a) && ok(b),
            Expr::Not(a) => ok(a),
            Expr::Select(c, a, b) => !a.is_truth() && ok(c) && ok(a) && ok(b),
            Expr::Call(b, args) => !matches!(b, Builtin::Hypot | Builtin::Fma) && args.iter().all(ok),
            Expr::Fold { .. } | Expr::Hole(_) => false,
        }
    }
    f.temps.iter().all(|t| ok(&t.expr)) && f.outputs.iter().all(ok)
}

fn elem<'a>(model: &'a Model, name: &str) -> &'a ElemType {
    model.spec.types.iter().find(|t| t.name == name).unwrap()
}

/// The name of a function's vector step.
fn step_name(model: &Model, f: &Function, width: usize) -> String {
    format!("{}_batch_x{width}", model.c_name(f))
}

/// A scratch vector of a loaded parameter value `var` (`soa::value_of`):
/// `aether_<role>_<param>`, so that no two parameters' scratch names meet.
fn scratch(role: &str, var: &str) -> String {
    let p = var.strip_prefix("aether_v_").unwrap_or_else(|| panic!("`{var}` is not a parameter's value"));
    format!("aether_{role}_{p}")
}

/// The vector step of a function: its parameters and result through
/// pointers (a vector passed by value changes the ABI where the target has no
/// vector registers of its width: -Wpsabi), its body the scalar tree printed
/// with vector types.
fn step(model: &Model, f: &Function) -> Vec<String> {
    let t = elem(model, &f.elem);
    let (v, width) = crate::targets::shared::c_family::simd::vector_elem(t);
    let sp = Vector { scalar: t, name: v.name.clone(), sqrts: Cell::new(0), wide: mat4_product(f) };
    let ty = |k: &Kind| sp.kind_type(model, k, &v);
    let mut params = vec![format!("{} *aether_result", ty(&f.ret))];
    params.extend(f.params.iter().map(|p| format!("const {} *{}", ty(&p.kind), c::pointer_to(&p.name))));
    let mut lines = vec![
        format!("static __inline__ __attribute__((__always_inline__)) void {}({})", step_name(model, f, width), params.join(", ")),
        "{".into(),
    ];
    for p in &f.params {
        lines.push(format!("    const {} {} = *{};", ty(&p.kind), p.name, c::pointer_to(&p.name)));
    }
    let mut body = print::body(&sp, model, f, &v);
    let last = body.pop().unwrap_or_default();
    body.push(format!("*aether_result = {}", last.trim_start_matches("return ")));
    lines.extend(body.into_iter().map(|l| format!("    {l}")));
    lines.push("}".into());
    lines
}

/// Statements that move component `c` of items i .. i + width - 1 between
/// the vector value `var` and the arrays: SoA (`arr + c * n + i`, one
/// memcpy) or AoS (`arr[i + k]`, lane by lane).
#[allow(clippy::too_many_arguments)]
fn lanes_io(
    kind: &ShapeKind,
    var: &str,
    arr: &str,
    words: usize,
    width: usize,
    aos: Option<Moves>,
    load: bool,
    elem_c: &str,
    vector: &str,
) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(moves) = aos {
        return aos_io(kind, var, arr, words, width, load, elem_c, vector, moves);
    }
    for c in 0..words {
        let (field, at) = match kind {
            ShapeKind::Scalar => (var.to_string(), format!("{arr} + {I}")),
            _ => (format!("{var}.{}", component(kind, c)), format!("{arr} + {c}u * {N} + {I}")),
        };
        if load {
            out.push(format!("memcpy(&{field}, {at}, {width}u * sizeof({elem_c}));"));
        } else {
            out.push(format!("memcpy({at}, &{field}, {width}u * sizeof({elem_c}));"));
        }
    }
    out
}

/// The AoS steps' moves under AVX (C, after [`sqrt_fns`]): `width` items into
/// their component vectors and back, lane j of every vector item j. Each
/// vector's 128-bit halves hold items 0-3 and 4-7 (binary64: 0-1 and 2-3),
/// and each half is loaded or stored as one 16-byte piece of an item, so the
/// rest is shuffles within a half (AVX's one-uop in-lane shuffles), never a
/// gather across the halves. A group of four binary32 (two binary64)
/// consecutive elements of each item makes four (two) component vectors; a
/// shape whose size is not a multiple of the group takes its last group
/// overlapping the one before (never a read or write past the item), and a
/// vec3f or vec2f (smaller than a group) and a vec3d have their own moves over the
/// consecutive items.
const AVX_AOS_MOVES: &str = r#"#if defined(__AVX__)
/* The AoS steps' moves: lane j of every component vector is item j; a vector's 128-bit halves
   hold items 0-3 and 4-7 (binary64: 0-1 and 2-3), each half one 16-byte piece of an item, so the
   rest is shuffles within a half. Elements at..at+3 (at..at+1) of each item, item k at
   p + k * stride, are four (two) component vectors. They move bits and never compute. */
/* clang merges the 16-byte stores of adjacent items into 32-byte ones, each built by two more
   shuffles (an insert and a cross-lane permute) on the port the moves already fill; an empty asm
   statement between the stores keeps them apart (quatf_mul 1.31 to 1.17 ns per item). */
#if defined(__clang__)
#  define aether_batch_store_apart() __asm__ __volatile__("")
#else
#  define aether_batch_store_apart() ((void)0)
#endif
static __inline__ __attribute__((__always_inline__, __unused__)) __m256 aether_batch_halves_f32(const float *lo, const float *hi)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(lo)), _mm_loadu_ps(hi), 1);
}
static __inline__ __attribute__((__always_inline__, __unused__)) void aether_batch_put_halves_f32(float *lo, float *hi, __m256 v)
{
    _mm_storeu_ps(lo, _mm256_castps256_ps128(v));
    aether_batch_store_apart();
    _mm_storeu_ps(hi, _mm256_extractf128_ps(v, 1));
    aether_batch_store_apart();
}
static __inline__ __attribute__((__always_inline__, __unused__)) __m256d aether_batch_halves_f64(const double *lo, const double *hi)
{
    return _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(lo)), _mm_loadu_pd(hi), 1);
}
static __inline__ __attribute__((__always_inline__, __unused__)) void aether_batch_put_halves_f64(double *lo, double *hi, __m256d v)
{
    _mm_storeu_pd(lo, _mm256_castpd256_pd128(v));
    aether_batch_store_apart();
    _mm_storeu_pd(hi, _mm256_extractf128_pd(v, 1));
    aether_batch_store_apart();
}
/* The 4 x 4 transpose within each half: rows r0..r3 in, columns c0..c3 out. */
static __inline__ __attribute__((__always_inline__, __unused__)) void aether_batch_transpose4_f32x8(__m256 r0, __m256 r1, __m256 r2, __m256 r3, aether_f32x8 *c0, aether_f32x8 *c1, aether_f32x8 *c2, aether_f32x8 *c3)
{
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    *c0 = (aether_f32x8)_mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    *c1 = (aether_f32x8)_mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    *c2 = (aether_f32x8)_mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    *c3 = (aether_f32x8)_mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}
static __inline__ __attribute__((__always_inline__, __unused__)) void aether_batch_aos_load4_f32x8(const float *p, size_t stride, size_t at, aether_f32x8 *c0, aether_f32x8 *c1, aether_f32x8 *c2, aether_f32x8 *c3)
{
    const __m256 r0 = aether_batch_halves_f32(p + at, p + 4u * stride + at);
    const __m256 r1 = aether_batch_halves_f32(p + stride + at, p + 5u * stride + at);
    const __m256 r2 = aether_batch_halves_f32(p + 2u * stride + at, p + 6u * stride + at);
    const __m256 r3 = aether_batch_halves_f32(p + 3u * stride + at, p + 7u * stride + at);
    aether_batch_transpose4_f32x8(r0, r1, r2, r3, c0, c1, c2, c3);
}
static __inline__ __attribute__((__always_inline__, __unused__)) void aether_batch_aos_store4_f32x8(float *p, size_t stride, size_t at, aether_f32x8 c0, aether_f32x8 c1, aether_f32x8 c2, aether_f32x8 c3)
{
    const __m256 t0 = _mm256_unpacklo_ps((__m256)c0, (__m256)c1), t1 = _mm256_unpackhi_ps((__m256)c0, (__m256)c1);
    const __m256 t2 = _mm256_unpacklo_ps((__m256)c2, (__m256)c3), t3 = _mm256_unpackhi_ps((__m256)c2, (__m256)c3);
    aether_batch_put_halves_f32(p + at, p + 4u * stride + at, _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)));
    aether_batch_put_halves_f32(p + stride + at, p + 5u * stride + at, _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2)));
    aether_batch_put_halves_f32(p + 2u * stride + at, p + 6u * stride + at, _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)));
    aether_batch_put_halves_f32(p + 3u * stride + at, p + 7u * stride + at, _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2)));
}
/* Eight consecutive items of four elements, two per 32-byte load or store: lane j of the
   component vectors is item 0, 2, 4, 6, 1, 3, 5, 7 (the same in every vector of a step whose
   inputs and result all move so, which is all a lane-wise step needs). */
static __inline__ __attribute__((__always_inline__, __unused__)) void aether_batch_aos_load4w_f32x8(const float *p, aether_f32x8 *c0, aether_f32x8 *c1, aether_f32x8 *c2, aether_f32x8 *c3)
{
    const __m256 r0 = _mm256_loadu_ps(p), r1 = _mm256_loadu_ps(p + 8);
    const __m256 r2 = _mm256_loadu_ps(p + 16), r3 = _mm256_loadu_ps(p + 24);
    aether_batch_transpose4_f32x8(r0, r1, r2, r3, c0, c1, c2, c3);
}
static __inline__ __attribute__((__always_inline__, __unused__)) void aether_batch_aos_store4w_f32x8(float *p, aether_f32x8 c0, aether_f32x8 c1, aether_f32x8 c2, aether_f32x8 c3)
{
    const __m256 t0 = _mm256_unpacklo_ps((__m256)c0, (__m256)c1), t1 = _mm256_unpackhi_ps((__m256)c0, (__m256)c1);
    const __m256 t2 = _mm256_unpacklo_ps((__m256)c2, (__m256)c3), t3 = _mm256_unpackhi_ps((__m256)c2, (__m256)c3);
    _mm256_storeu_ps(p, _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)));
    _mm256_storeu_ps(p + 8, _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2)));
    _mm256_storeu_ps(p + 16, _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)));
    _mm256_storeu_ps(p + 24, _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2)));
}
/* Eight consecutive vec3f: the halves hold x0 y0 z0 x1 | y1 z1 x2 y2 | z2 x3 y3 z3 (and items 4-7). */
static __inline__ __attribute__((__always_inline__, __unused__)) void aether_batch_aos_load3_f32x8(const float *p, aether_f32x8 *x, aether_f32x8 *y, aether_f32x8 *z)
{
    const __m256 m03 = aether_batch_halves_f32(p, p + 12), m14 = aether_batch_halves_f32(p + 4, p + 16);
    const __m256 m25 = aether_batch_halves_f32(p + 8, p + 20);
    const __m256 xy = _mm256_shuffle_ps(m14, m25, _MM_SHUFFLE(2, 1, 3, 2)); /* x2 y2 x3 y3 */
    const __m256 yz = _mm256_shuffle_ps(m03, m14, _MM_SHUFFLE(1, 0, 2, 1)); /* y0 z0 y1 z1 */
    *x = (aether_f32x8)_mm256_shuffle_ps(m03, xy, _MM_SHUFFLE(2, 0, 3, 0));
    *y = (aether_f32x8)_mm256_shuffle_ps(yz, xy, _MM_SHUFFLE(3, 1, 2, 0));
    *z = (aether_f32x8)_mm256_shuffle_ps(yz, m25, _MM_SHUFFLE(3, 0, 3, 1));
}
static __inline__ __attribute__((__always_inline__, __unused__)) void aether_batch_aos_store3_f32x8(float *p, aether_f32x8 x, aether_f32x8 y, aether_f32x8 z)
{
    const __m256 rxy = _mm256_shuffle_ps((__m256)x, (__m256)y, _MM_SHUFFLE(2, 0, 2, 0)); /* x0 x2 y0 y2 */
    const __m256 ryz = _mm256_shuffle_ps((__m256)y, (__m256)z, _MM_SHUFFLE(3, 1, 3, 1)); /* y1 y3 z1 z3 */
    const __m256 rzx = _mm256_shuffle_ps((__m256)z, (__m256)x, _MM_SHUFFLE(3, 1, 2, 0)); /* z0 z2 x1 x3 */
    aether_batch_put_halves_f32(p, p + 12, _mm256_shuffle_ps(rxy, rzx, _MM_SHUFFLE(2, 0, 2, 0)));
    aether_batch_put_halves_f32(p + 4, p + 16, _mm256_shuffle_ps(ryz, rxy, _MM_SHUFFLE(3, 1, 2, 0)));
    aether_batch_put_halves_f32(p + 8, p + 20, _mm256_shuffle_ps(rzx, ryz, _MM_SHUFFLE(3, 1, 3, 1)));
}
/* Eight consecutive vec2f: the halves hold x0 y0 x1 y1 | x2 y2 x3 y3 (and items 4-7). */
static __inline__ __attribute__((__always_inline__, __unused__)) void aether_batch_aos_load2_f32x8(const float *p, aether_f32x8 *x, aether_f32x8 *y)
{
    const __m256 r0 = aether_batch_halves_f32(p, p + 8), r1 = aether_batch_halves_f32(p + 4, p + 12);
    *x = (aether_f32x8)_mm256_shuffle_ps(r0, r1, _MM_SHUFFLE(2, 0, 2, 0));
    *y = (aether_f32x8)_mm256_shuffle_ps(r0, r1, _MM_SHUFFLE(3, 1, 3, 1));
}
static __inline__ __attribute__((__always_inline__, __unused__)) void aether_batch_aos_store2_f32x8(float *p, aether_f32x8 x, aether_f32x8 y)
{
    aether_batch_put_halves_f32(p, p + 8, _mm256_unpacklo_ps((__m256)x, (__m256)y));
    aether_batch_put_halves_f32(p + 4, p + 12, _mm256_unpackhi_ps((__m256)x, (__m256)y));
}
/* Four consecutive vec3d: the halves hold x0 y0 | z0 x1 | y1 z1 (and items 2-3). */
static __inline__ __attribute__((__always_inline__, __unused__)) void aether_batch_aos_load3_f64x4(const double *p, aether_f64x4 *x, aether_f64x4 *y, aether_f64x4 *z)
{
    const __m256d a = aether_batch_halves_f64(p, p + 6), b = aether_batch_halves_f64(p + 2, p + 8);
    const __m256d c = aether_batch_halves_f64(p + 4, p + 10);
    *x = (aether_f64x4)_mm256_shuffle_pd(a, b, 0xA);
    *y = (aether_f64x4)_mm256_shuffle_pd(a, c, 0x5);
    *z = (aether_f64x4)_mm256_shuffle_pd(b, c, 0xA);
}
static __inline__ __attribute__((__always_inline__, __unused__)) void aether_batch_aos_store3_f64x4(double *p, aether_f64x4 x, aether_f64x4 y, aether_f64x4 z)
{
    aether_batch_put_halves_f64(p, p + 6, _mm256_shuffle_pd((__m256d)x, (__m256d)y, 0x0));
    aether_batch_put_halves_f64(p + 2, p + 8, _mm256_shuffle_pd((__m256d)z, (__m256d)x, 0xA));
    aether_batch_put_halves_f64(p + 4, p + 10, _mm256_shuffle_pd((__m256d)y, (__m256d)z, 0xF));
}
static __inline__ __attribute__((__always_inline__, __unused__)) void aether_batch_aos_load2_f64x4(const double *p, size_t stride, size_t at, aether_f64x4 *c0, aether_f64x4 *c1)
{
    const __m256d r0 = aether_batch_halves_f64(p + at, p + 2u * stride + at);
    const __m256d r1 = aether_batch_halves_f64(p + stride + at, p + 3u * stride + at);
    *c0 = (aether_f64x4)_mm256_unpacklo_pd(r0, r1);
    *c1 = (aether_f64x4)_mm256_unpackhi_pd(r0, r1);
}
static __inline__ __attribute__((__always_inline__, __unused__)) void aether_batch_aos_store2_f64x4(double *p, size_t stride, size_t at, aether_f64x4 c0, aether_f64x4 c1)
{
    aether_batch_put_halves_f64(p + at, p + 2u * stride + at, _mm256_unpacklo_pd((__m256d)c0, (__m256d)c1));
    aether_batch_put_halves_f64(p + stride + at, p + 3u * stride + at, _mm256_unpackhi_pd((__m256d)c0, (__m256d)c1));
}
#endif"#;

/// How an `_aos` step moves its items into lanes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Moves {
    /// Lane j is item j, for every shape (the halves of a vector are items 0-3 and 4-7).
    Items,
    /// Every input and the result are four binary32 elements: two items per 32-byte load and
    /// store, and lane j is item 0, 2, 4, 6, 1, 3, 5, 7 alike in every vector (no insert).
    Whole,
}

/// The moves of `f`'s `_aos` step: [`Moves::Whole`] where every parameter
/// and the result are shapes of four binary32 elements.
fn moves(f: &Function) -> Moves {
    let four = |k: &Kind| matches!(k, Kind::Shape(_)) && k.words() == 4;
    if f.elem == "f32" && four(&f.ret) && f.params.iter().all(|p| four(&p.kind)) {
        Moves::Whole
    } else {
        Moves::Items
    }
}

/// The AVX form of [`aos_io`] (`None` for a vector type it has no moves
/// for): the component vectors of `words`-element items by groups of four
/// binary32 (two binary64) elements, the last overlapping the one before
/// where `words` is not a multiple of the group (its components already
/// placed go to `aether_skip_<param>`, and on a store it writes them again with the
/// same bits); a vec3f, vec2f or vec3d by its own moves.
fn avx_aos_io(kind: &ShapeKind, var: &str, arr: &str, words: usize, load: bool, vector: &str, moves: Moves) -> Option<Vec<String>> {
    let field = |c: usize| format!("{var}.{}", component(kind, c));
    let (elem_c, group, suffix) = match vector {
        "aether_f32x8" => ("float", 4, "f32x8"),
        "aether_f64x4" => ("double", 2, "f64x4"),
        _ => return None,
    };
    let base = if load { format!("(const {elem_c} *)(const void *)({arr} + {I})") } else { format!("({elem_c} *)(void *)({arr} + {I})") };
    // One call over consecutive items, every component at once: the whole-vector moves, and the
    // own moves of vec2f, vec3f and vec3d.
    let whole = moves == Moves::Whole && group == 4 && words == 4;
    if whole || words < group || (group == 2 && words == 3) {
        let args: Vec<String> = (0..words).map(|c| if load { format!("&{}", field(c)) } else { field(c) }).collect();
        let op = if load { "load" } else { "store" };
        let name = if whole { "4w".to_string() } else { words.to_string() };
        return Some(vec![format!("aether_batch_aos_{op}{name}_{suffix}({base}, {});", args.join(", "))]);
    }
    let mut starts: Vec<usize> = (0..words / group).map(|g| g * group).collect();
    if !words.is_multiple_of(group) {
        starts.push(words - group);
    }
    let mut out = Vec::new();
    let mut placed = vec![false; words];
    let skip = if load { scratch("skip", var) } else { String::new() };
    if load && !words.is_multiple_of(group) {
        out.push(format!("{vector} {skip};"));
    }
    for &s in &starts {
        let comps: Vec<String> = (s..s + group)
            .map(|c| {
                let first = !placed[c];
                placed[c] = true;
                match (load, first) {
                    (true, true) => format!("&{}", field(c)),
                    (true, false) => format!("&{skip}"),
                    (false, _) => field(c),
                }
            })
            .collect();
        let op = if load { "load" } else { "store" };
        out.push(format!("aether_batch_aos_{op}{group}_{suffix}({base}, {words}u, {s}u, {});", comps.join(", ")));
    }
    Some(out)
}

/// The AoS side of [`lanes_io`]: the `width` items from `i` are
/// `words * width` consecutive elements, moved as `words` whole vectors and
/// rearranged by shuffles (shapes of up to four components; a matrix's
/// lanes one by one). Lane j of component c is element j * words + c:
/// element p of vector (j * words + c) / width. Each component (each
/// vector stored) is one shuffle of the first two vectors it draws from,
/// then one more per further vector, each keeping the lanes already placed.
#[allow(clippy::too_many_arguments)]
fn aos_io(
    kind: &ShapeKind,
    var: &str,
    arr: &str,
    words: usize,
    width: usize,
    load: bool,
    elem_c: &str,
    vector: &str,
    moves: Moves,
) -> Vec<String> {
    let field = |c: usize| match kind {
        ShapeKind::Scalar => var.to_string(),
        _ => format!("{var}.{}", component(kind, c)),
    };
    if words == 1 {
        return vec![if load {
            format!("memcpy(&{}, (const {elem_c} *)(const void *)({arr} + {I}), {width}u * sizeof({elem_c}));", field(0))
        } else {
            format!("memcpy((void *)({arr} + {I}), &{}, {width}u * sizeof({elem_c}));", field(0))
        }];
    }
    let portable = aos_io_portable(kind, var, arr, words, width, load, elem_c, vector);
    match avx_aos_io(kind, var, arr, words, load, vector, moves) {
        Some(avx) => {
            let mut out = vec!["#if defined(__AVX__)".to_string()];
            out.extend(avx);
            out.push("#else".into());
            out.extend(portable);
            out.push("#endif".into());
            out
        }
        None => portable,
    }
}

/// [`aos_io`] without AVX: whole vectors rearranged by two-source shuffles,
/// a matrix lane by lane.
#[allow(clippy::too_many_arguments)]
fn aos_io_portable(
    kind: &ShapeKind,
    var: &str,
    arr: &str,
    words: usize,
    width: usize,
    load: bool,
    elem_c: &str,
    vector: &str,
) -> Vec<String> {
    let field = |c: usize| match kind {
        ShapeKind::Scalar => var.to_string(),
        _ => format!("{var}.{}", component(kind, c)),
    };
    let bytes = |s: usize, konst: &str| format!("({konst}char *)({konst}void *)({arr} + {I}) + {}u * sizeof({elem_c})", s * width);
    if words > 4 {
        // A matrix: its components draw on up to eight vectors each, and the chains of shuffles
        // measured slower than building each vector from its lanes (and storing lane by lane).
        let item = |k: usize, c: usize| format!("{arr}[{I} + {k}u].{}", component(kind, c));
        let mut out = Vec::new();
        for c in 0..words {
            if load {
                let lanes: Vec<String> = (0..width).map(|k| item(k, c)).collect();
                out.push(format!("{} = ({vector}){{{}}};", field(c), lanes.join(", ")));
            } else {
                out.extend((0..width).map(|k| format!("{} = {}[{k}];", item(k, c), field(c))));
            }
        }
        return out;
    }
    let shuffle = format!("aether_batch_shuffle_{}", vector.trim_start_matches("aether_"));
    // One vector from sources (vector expressions) and, per lane, (source, element).
    let build = |sources: &[String], lanes: &[(usize, usize)]| -> String {
        let mut order: Vec<usize> = Vec::new();
        for &(src, _) in lanes {
            if !order.contains(&src) {
                order.push(src);
            }
        }
        let idx = |placed: &[usize], new: usize, first: bool| -> String {
            let v: Vec<String> = lanes
                .iter()
                .enumerate()
                .map(|(j, &(src, p))| {
                    if first && src == placed[0] {
                        p.to_string()
                    } else if !first && placed.contains(&src) {
                        j.to_string()
                    } else if src == new {
                        (width + p).to_string()
                    } else {
                        "0".into()
                    }
                })
                .collect();
            v.join(", ")
        };
        if order.len() == 1 {
            let w = &sources[order[0]];
            return format!("{shuffle}({w}, {w}, {})", idx(&order, usize::MAX, true));
        }
        let mut acc = format!("{shuffle}({}, {}, {})", sources[order[0]], sources[order[1]], idx(&order[..1], order[1], true));
        for k in 2..order.len() {
            acc = format!("{shuffle}({acc}, {}, {})", sources[order[k]], idx(&order[..k], order[k], false));
        }
        acc
    };
    let mut out = Vec::new();
    if load {
        let words_v: Vec<String> = (0..words).map(|s| scratch(&format!("w{s}"), var)).collect();
        out.push(format!("{vector} {};", words_v.join(", ")));
        for (s, w) in words_v.iter().enumerate() {
            out.push(format!("memcpy(&{w}, {}, {width}u * sizeof({elem_c}));", bytes(s, "const ")));
        }
        for c in 0..words {
            let lanes: Vec<(usize, usize)> = (0..width).map(|j| ((j * words + c) / width, (j * words + c) % width)).collect();
            out.push(format!("{} = {};", field(c), build(&words_v, &lanes)));
        }
    } else {
        let comps: Vec<String> = (0..words).map(field).collect();
        for t in 0..words {
            let lanes: Vec<(usize, usize)> = (0..width).map(|q| ((t * width + q) % words, (t * width + q) / words)).collect();
            out.push(format!(
                "{{ const {vector} aether_o = {}; memcpy({}, &aether_o, {width}u * sizeof({elem_c})); }}",
                build(&comps, &lanes),
                bytes(t, "")
            ));
        }
    }
    out
}

/// Whether a function is componentwise: its parameters and its result are
/// one shape, it has no intermediate, and result component c is result
/// component 0's tree with every input's component 0 replaced by its
/// component c (vector add, sub, mul, div, neg, abs, min, max). An array of
/// such items is then one array of n * words elements, each going through
/// the same operation, and its `_aos` form is its `_soa` form over that
/// array (components c * n + i and item k's component c are both just
/// elements of it): whole vectors of elements, no shuffle.
pub fn componentwise(f: &Function) -> bool {
    fn shifted(e: &Expr, c: usize) -> Option<Expr> {
        let all = |v: &[Expr]| v.iter().map(|x| shifted(x, c)).collect::<Option<Vec<_>>>();
        Some(match e {
            Expr::Input { param, comp: 0 } => Expr::Input { param: *param, comp: c },
            Expr::Input { .. } | Expr::Temp(_) | Expr::Fold { .. } | Expr::Hole(_) => return None,
            Expr::Lit(_) | Expr::Truth(_) => e.clone(),
            Expr::Bin(op, a, b) => Expr::Bin(*op, Box::new(shifted(a, c)?), Box::new(shifted(b, c)?)),
            Expr::Not(a) => Expr::Not(Box::new(shifted(a, c)?)),
            Expr::Call(b, args) => Expr::Call(*b, all(args)?),
            Expr::Select(k, a, b) => Expr::Select(Box::new(shifted(k, c)?), Box::new(shifted(a, c)?), Box::new(shifted(b, c)?)),
        })
    }
    let words = f.ret.words();
    matches!(f.ret, Kind::Shape(_))
        && words >= 2
        && f.temps.is_empty()
        && f.params.iter().all(|p| p.kind == f.ret)
        && (0..words).all(|c| shifted(&f.outputs[0], c).as_ref() == Some(&f.outputs[c]))
}

/// Whether a function only moves its inputs' elements (transpose,
/// identity): no arithmetic for a vector step to share out, and the item
/// loop is a copy.
fn moves_only(f: &Function) -> bool {
    f.temps.is_empty() && f.outputs.iter().all(|e| matches!(e, Expr::Input { .. } | Expr::Lit(_)))
}

/// The condition under which a function's `_aos` form runs its vector step
/// (else every item goes through its item function). With AVX the step's
/// moves (`AVX_AOS_MOVES`) are in-lane shuffles: measured at n = 1024
/// (docs/reports/performance-notes.md), the step is the faster everywhere
/// but
/// - the mat4 products (a 16-element operand, and products a vectoriser
///   packs: mat4 * mat4, mat4 * vec4): their item function is already full
///   vector code over one item, the per-item form under
///   AETHER_ITEM_SHUFFLES or gcc's packing of its rows (mat4f_mul 3.7 ns
///   per item against the step's 4.5 with gcc, 3.2 against 5.9 with clang;
///   mat4d_mul with gcc 6.3 against 8.1); clang without the forms packs no
///   row, and there the step is the faster (mat4d_mul 11.2 against 12.4);
/// - the functions that only move elements (a transpose: the item loop is a
///   copy, mat3f_transpose 1.0 ns against 1.3).
///
/// Without AVX the step's moves are two-source shuffle chains, measured
/// slower than gcc's item loop wherever the item's products pack
/// ([`c::products_vectorise`]); there gcc takes the item loop. Where the
/// item function has a 16-byte form (AETHER_ITEM_SHUFFLES_128: the mat4
/// products and the quaternion products without AVX), clang takes it too:
/// at x86-64's baseline (-O2, n = 1024) clang's aos mat4f_mul went from
/// 13.1 ns per item (the step) to 3.8, mat4f_mul_vec 3.5 to 1.5, mat4d_mul
/// 10.8 to 6.4, quatf_mul 1.9 to 1.4 and quatd_mul 2.9 to 2.0; gcc's item
/// loops, the forms now, from 31.1 to 3.7 (mat4f_mul), 6.1 to 1.4
/// (quatf_mul) and 31.0 to 9.5 (mat4d_mul).
///
/// `AETHER_BATCH_AOS_STEPS` (every `_aos` through its vector step) and
/// `AETHER_BATCH_AOS_ITEMS` (every item alone) override it, for the
/// benchmark and the tests.
fn aos_steps_condition(model: &Model, f: &Function) -> String {
    let mat4_product = mat4_product(f);
    let pick = if moves_only(f) {
        "0"
    } else if mat4_product && crate::targets::c::item::form(model, f, Width::Avx).is_some() {
        if crate::targets::c::item::form(model, f, Width::Bytes16).is_some() {
            "(defined(__clang__) && !defined(AETHER_ITEM_SHUFFLES) && !defined(AETHER_ITEM_SHUFFLES_128))"
        } else {
            "(defined(__clang__) && !defined(AETHER_ITEM_SHUFFLES))"
        }
    } else if mat4_product || c::products_vectorise(f) {
        if mat4_product {
            "defined(__clang__)"
        } else if crate::targets::c::item::form(model, f, Width::Bytes16).is_some() {
            "(defined(__AVX__) || (defined(__clang__) && !defined(AETHER_ITEM_SHUFFLES_128)))"
        } else {
            "(defined(__AVX__) || defined(__clang__))"
        }
    } else {
        "1"
    };
    format!("!defined(AETHER_BATCH_AOS_ITEMS) && (defined(AETHER_BATCH_AOS_STEPS) || {pick})")
}

/// The item function of a function with a vector step: the core's body with
/// every product behind the guard that leaves it free to vectorise (the OR
/// with the opaque zero, `aether_product_vec_*` in the header-only core), so
/// a loop of them is one the compiler can vectorise across items.
fn item_name(model: &Model, f: &Function) -> String {
    format!("{}_batch_item", model.c_name(f))
}

///
/// Its inputs come through pointers and are copied inside: a struct passed
/// by value is loaded as the ABI's vector pieces (a vec3f as a pair and a
/// float), and LLVM's loop vectoriser refuses a loop holding vector values.
fn item_function(model: &Model, f: &Function) -> Vec<String> {
    let t = elem(model, &f.elem);
    let params: Vec<String> =
        f.params.iter().map(|p| format!("const {} *{}", c::kind_type(model, &p.kind, t), c::pointer_to(&p.name))).collect();
    let ret = c::kind_type(model, &f.ret, t);
    let d = Dialect { vector_products: true, ..Dialect::C };
    let mut lines = vec![format!("static inline {ret} {}({})", item_name(model, f), params.join(", ")), "{".into()];
    for p in &f.params {
        lines.push(format!("    const {} {} = *{};", c::kind_type(model, &p.kind, t), p.name, c::pointer_to(&p.name)));
    }
    let body = print::body(&d, model, f, t);
    let body = crate::targets::c::item::wrap(crate::targets::c::item::forms(model, f), body);
    lines.extend(body.into_iter().map(|l| format!("    {l}")));
    lines.push("}".into());
    lines
}

/// One batch of a function: `_soa` or `_aos`.
#[derive(Debug)]
pub struct Form {
    pub name: String,
    pub params: Vec<String>,
    doc: String,
    body: Vec<String>,
}

/// The `_soa` (`aos` false) or `_aos` form of a lowered function, as
/// `aether_batch.h` declares it (the Python package's binding table reads
/// its name and parameters).
pub fn form(model: &Model, f: &Function, aos: bool) -> Form {
    let t = elem(model, &f.elem);
    let name = model.c_name(f);
    let (v, width) = crate::targets::shared::c_family::simd::vector_elem(t);
    let sp = Vector { scalar: t, name: v.name.clone(), sqrts: Cell::new(0), wide: mat4_product(f) };
    let scalar_ty = |k: &Kind| c::kind_type(model, k, t);
    let mut params = Vec::new();
    for p in &f.params {
        params.push(if aos { format!("const {} *{}", scalar_ty(&p.kind), p.name) } else { format!("const {} *{}", t.c_type, p.name) });
    }
    let out_ty = match (&f.ret, aos) {
        (Kind::Bool, _) => "int".to_string(),
        (_, true) => scalar_ty(&f.ret),
        (_, false) => t.c_type.clone(),
    };
    params.push(format!("{out_ty} *{OUT}"));
    params.push(format!("size_t {N}"));
    let args: Vec<String> = f.params.iter().map(|p| soa::value_of(&p.name)).collect();
    let mut body = vec![format!("size_t {I} = 0;")];
    if aos && vectorises(f) && componentwise(f) {
        // The items' components as one array of n * words elements (the packed-struct checks
        // stand beside the vector types): the _soa form over it.
        let cast = |arr: &str, konst: &str| format!("({konst}{} *)({konst}void *){arr}", t.c_type);
        let flat: Vec<String> = f.params.iter().map(|p| cast(&p.name, "const ")).chain([cast(OUT, ""), N.into()]).collect();
        body.push("#if defined(AETHER_LANES_SIMD) && !defined(AETHER_BATCH_AOS_ITEMS)".into());
        body.push(format!("{name}_soa({});", flat.join(", ")));
        body.push(format!("{I} = {N};"));
        body.push("#endif".into());
    } else if vectorises(f) {
        body.push(if aos {
            format!("#if defined(AETHER_LANES_SIMD) && {}", aos_steps_condition(model, f))
        } else {
            "#if defined(AETHER_LANES_SIMD)".into()
        });
        body.push(format!("for (; {N} - {I} >= {width}u; {I} += {width}u) {{"));
        let mut inner = Vec::new();
        for p in &f.params {
            inner.push(format!("{} {};", sp.kind_type(model, &p.kind, &v), soa::value_of(&p.name)));
        }
        inner.push(format!("{} aether_r;", sp.kind_type(model, &f.ret, &v)));
        if f.ret == Kind::Bool {
            inner.push("unsigned aether_k;".into());
        }
        for p in &f.params {
            let Kind::Shape(s) = &p.kind else { unreachable!("no parameter is a truth value") };
            inner.extend(lanes_io(
                &s.kind,
                &soa::value_of(&p.name),
                &p.name,
                p.kind.words(),
                width,
                aos.then(|| moves(f)),
                true,
                &t.c_type,
                &v.c_type,
            ));
        }
        let call_args: Vec<String> = std::iter::once("&aether_r".to_string()).chain(args.iter().map(|a| format!("&{a}"))).collect();
        inner.push(format!("{}({});", step_name(model, f, width), call_args.join(", ")));
        match &f.ret {
            Kind::Bool => {
                inner.push(format!("for (aether_k = 0; aether_k < {width}u; ++aether_k) {OUT}[{I} + aether_k] = aether_r[aether_k] != 0;"))
            }
            Kind::Shape(s) => {
                inner.extend(lanes_io(&s.kind, "aether_r", OUT, f.ret.words(), width, aos.then(|| moves(f)), false, &t.c_type, &v.c_type))
            }
        }
        body.extend(inner.into_iter().map(|l| format!("    {l}")));
        body.push("}".into());
        body.push("#endif".into());
    }
    body.push(format!("for (; {I} < {N}; ++{I}) {{"));
    if aos {
        if vectorises(f) {
            let args: Vec<String> = f.params.iter().map(|p| format!("&{}[{I}]", p.name)).collect();
            body.push(format!("    {OUT}[{I}] = {}({});", item_name(model, f), args.join(", ")));
        } else {
            body.push(format!(
                "    {OUT}[{I}] = {name}({});",
                f.params.iter().map(|p| format!("{}[{I}]", p.name)).collect::<Vec<_>>().join(", ")
            ));
        }
    } else {
        let b = soa::function_batch(model, f);
        body.extend(b.body.iter().map(|l| format!("    {l}")));
    }
    body.push("}".into());
    let (suffix, layout) =
        if aos { ("aos", "Array of structures: item i of each array is its i-th element.") } else { ("soa", soa::SOA_DOC) };
    Form {
        name: format!("{name}_{suffix}"),
        params,
        doc: format!("{OUT}[i] = {name}(item i of each input) for every i < {N}, with its bits. {layout}"),
        body,
    }
}

/// The vector types of every shape (the pair of the reduction is the lanes
/// kernels' own), the guard, the splat.
fn vector_types(model: &Model) -> Vec<String> {
    let pair = model.spec.reduction.as_ref().map(|r| r.pair.clone()).unwrap_or_default();
    let mut lines = Vec::new();
    for t in &model.spec.types {
        let (v, width) = crate::targets::shared::c_family::simd::vector_elem(t);
        let (cv, m) = (&v.c_type, mask_type(&v));
        let lit = (0..width).map(|_| "(x)").collect::<Vec<_>>().join(", ");
        lines.push(format!("#define {}(x) (({cv}){{{lit}}})", splat(&v)));
        // Two vectors' lanes picked by constant indices (gcc 12 and clang: __builtin_shufflevector;
        // older gcc: __builtin_shuffle with an index vector).
        lines.push("#if defined(__clang__) || __GNUC__ >= 12".into());
        lines.push(format!("#  define aether_batch_shuffle_{}(a, b, ...) __builtin_shufflevector((a), (b), __VA_ARGS__)", v.name));
        lines.push("#else".into());
        lines.push(format!("#  define aether_batch_shuffle_{}(a, b, ...) __builtin_shuffle((a), (b), ({m}){{__VA_ARGS__}})", v.name));
        lines.push("#endif".into());
        lines.push("#if defined(__clang__)".into());
        lines.push(format!("#  define {}(x) {}(x)", wide_product_guard(&v), product_guard(&v)));
        lines.push("#else".into());
        lines.push(format!("#  define {}(x) {}(x)", wide_product_guard(&v), crate::targets::shared::c_family::simd::or_zero_name(&v)));
        lines.push("#endif".into());
        lines.push(format!("#if defined({UNGUARDED})"));
        for guard in [product_guard(&v), wide_product_guard(&v)] {
            lines.push(format!("#  undef {guard}"));
            lines.push(format!("#  define {guard}(x) (x)"));
        }
        lines.push("#endif".into());
        for shape in &model.spec.shapes {
            if shape.name == pair {
                continue;
            }
            let fields: Vec<String> = match &shape.kind {
                ShapeKind::Scalar => continue,
                ShapeKind::Vector(names) => names.iter().map(|n| format!("{cv} {n};")).collect(),
                ShapeKind::Matrix { .. } => vec![format!("{cv} m[{}];", shape.len())],
            };
            let name = c::type_name(model, &shape.name, &v);
            lines.push(format!("typedef struct {name} {{ {} }} {name};", fields.join(" ")));
            // The AoS steps move eight structs as whole vectors: no padding in a struct.
            let scalar = c::type_name(model, &shape.name, t);
            lines.push(format!("typedef char {scalar}_is_packed[sizeof({scalar}) == {}u * sizeof({}) ? 1 : -1];", shape.len(), t.c_type));
        }
    }
    lines
}

/// `c_core/aether_batch.h` and `c_core/aether_batch.c`.
pub fn files(model: &Model, lowered: &[Function], banner: &str) -> (String, String) {
    let contract = crate::selftest::contract_id(model);
    let forms: Vec<Form> = lowered.iter().flat_map(|f| [form(model, f, false), form(model, f, true)]).collect();
    let mut h = vec![
        banner.to_string(),
        "/* aether batched forms: every element-wise function of the C core over n items at once, in".into(),
        "   structure of arrays (_soa: component c of item i of every array at [c * aether_n + i], the layout of".into(),
        "   the CUDA and OpenCL batches) and in array of structures (_aos: the core's structs, item i at".into(),
        "   [i]). Every item gets the bits the function gives it alone. With GNU C compilers (gcc, clang)".into(),
        "   eight binary32 items (four binary64) run as one vector step, each vector lane the function's".into(),
        "   operations in its order (an _aos form shuffles eight structs into lanes, or, where measured".into(),
        "   faster, loops over the items; a componentwise one, as vector add, runs over the items'".into(),
        "   elements as one array); the rest, and every item elsewhere, through the function".into(),
        "   itself. The per-lane linear algebra's batched forms are its _lanes functions. Truth values".into(),
        "   are int (0 or 1). aether_out may be one of the input arrays (in place) but must not overlap one".into(),
        "   otherwise. Compile aether_batch.c: it includes the core header-only, so aether_core.c must be".into(),
        "   beside aether_core.h but is not compiled or linked for it. Contract ".to_string() + &contract + ". */",
        "#ifndef AETHER_BATCH_H".into(),
        "#define AETHER_BATCH_H".into(),
        String::new(),
        "#include <stddef.h>".into(),
        "#include \"aether_core.h\"".into(),
        String::new(),
        format!("#define AETHER_BATCH_CONTRACT_ID \"{contract}\""),
        String::new(),
        "#ifdef __cplusplus".into(),
        "extern \"C\" {".into(),
        "#endif".into(),
    ];
    for f in &forms {
        h.push(String::new());
        h.push(format!("/* {}: {} */", f.name, f.doc));
        h.push(format!("void {}({});", f.name, f.params.join(", ")));
    }
    h.extend([
        "".into(),
        "#ifdef __cplusplus".into(),
        "}".into(),
        "#endif".into(),
        "".into(),
        "#endif /* AETHER_BATCH_H */".into(),
        "".into(),
    ]);
    let mut c = vec![
        banner.to_string(),
        "/* The batched forms (see aether_batch.h). The core comes in header-only (static inline, so".into(),
        "   nothing clashes with an aether_core.o linked beside this file), and its floating-point".into(),
        "   pragmas stay in force to the end of this file (AETHER_BATCH_SOURCE). */".into(),
        "#if !defined(AETHER_HEADER_ONLY)".into(),
        "#  define AETHER_HEADER_ONLY 1".into(),
        "#endif".into(),
        "#define AETHER_BATCH_SOURCE 1".into(),
        "/* The negative control of the batches' guards also takes the item functions' guard off. */".into(),
        format!("#if defined({UNGUARDED}) && !defined(AETHER_UNSAFE_UNGUARDED_VECTOR_PRODUCTS)"),
        "#  define AETHER_UNSAFE_UNGUARDED_VECTOR_PRODUCTS 1".into(),
        "#endif".into(),
        "#include \"aether_batch.h\"".into(),
        String::new(),
        "#include <string.h>".into(),
        String::new(),
        "#if defined(AETHER_LANES_SIMD)".into(),
        "/* The vector values (a shape's components, each a vector of items) and the splat of a literal.".into(),
        "   The products' guard is the lanes kernels' (the vector pinned in its register with AVX, else its".to_string(),
        "   bits ORed with the opaque zero; the mat4 products' steps keep the OR with gcc, which spills".to_string(),
        "   their pinned products). ".to_string() + UNGUARDED + " makes both the identity here (a",
        "   negative control; never in a build you rely on). */".into(),
    ];
    c.extend(vector_types(model));
    c.extend(sqrt_fns(model));
    c.push(AVX_AOS_MOVES.into());
    c.push(String::new());
    for f in lowered.iter().filter(|f| vectorises(f)) {
        c.extend(step(model, f));
        c.push(String::new());
    }
    c.push("#endif /* AETHER_LANES_SIMD */".into());
    for f in lowered.iter().filter(|f| vectorises(f)) {
        c.push(String::new());
        c.extend(item_function(model, f));
    }
    for f in &forms {
        c.push(String::new());
        c.push(format!("void {}({})", f.name, f.params.join(", ")));
        c.push("{".into());
        c.extend(f.body.iter().map(|l| if l.starts_with('#') { l.clone() } else { format!("    {l}") }));
        c.push("}".into());
    }
    c.push(String::new());
    (h.join("\n"), c.join("\n"))
}

/// `c_core/check/aether_flat_batch.{h,c}`: the batched thunk of every
/// function for the corpus runner's `--batch soa|aos` modes, indexed as
/// `aether_flat_entries` (NULL for the kernels, which have no batch). A
/// thunk takes `count` inputs in the flat convention (input k the words at
/// `in + in_at[k]`), lays them out as the form's arrays, runs the form once
/// over all of them (so whole vectors of items and the scalar rest), and
/// writes item k's result words at `out + k * cap`.
pub fn flat_files(model: &Model, lowered: &[Function], banner: &str) -> (String, String) {
    let count = model.callables().len();
    let h = [
        banner.to_string(),
        "/* The batched thunks of the corpus runner's --batch modes (see aether_flat_batch.c). */".into(),
        "#ifndef AETHER_FLAT_BATCH_H".into(),
        "#define AETHER_FLAT_BATCH_H".into(),
        String::new(),
        "#include <stddef.h>".into(),
        "#include <stdint.h>".into(),
        String::new(),
        "/* Runs `count` inputs (input k: the entry's n_in words at in + in_at[k]) through the _aos form".into(),
        "   (aos != 0) or the _soa form as one call; item k's result words go to out + k * cap. Returns the".into(),
        "   result words per item, or (size_t)-1 where cap is too small or memory ran out. */".into(),
        "typedef size_t (*aether_flat_batch_call)(int aos, const uint64_t *in, const size_t *in_at, size_t count, uint64_t *out, size_t cap);".into(),
        String::new(),
        format!("extern const aether_flat_batch_call aether_flat_batch_calls[{count}];"),
        String::new(),
        "#endif /* AETHER_FLAT_BATCH_H */".into(),
        String::new(),
    ]
    .join("\n");
    let mut c = vec![
        banner.to_string(),
        "/* The batched thunks (aether_flat_batch.h): the flat convention's words of many inputs as the".into(),
        "   arrays of a batched form of aether_batch.h, and its results back as words. */".into(),
        "#include <stdlib.h>".into(),
        "#include <string.h>".into(),
        String::new(),
        "#include \"aether_batch.h\"".into(),
        "#include \"aether_flat_batch.h\"".into(),
        String::new(),
    ];
    c.extend(crate::targets::shared::c_family::flat::helpers());
    for t in &model.spec.types {
        let (e, b) = (&t.c_type, t.bits);
        c.extend([
            String::new(),
            format!("/* Words at + c of each input as an array of {e}: item-major (aos) or component-major. */"),
            format!("static {e} *aether_flat_batch_get{b}(const uint64_t *in, const size_t *in_at, size_t count, size_t at, size_t words, int aos)"),
            "{".into(),
            format!("    {e} *d = ({e} *)malloc((count * words + 1u) * sizeof *d);"),
            "    size_t k, c;".into(),
            "    if (d == NULL) return NULL;".into(),
            "    for (k = 0; k < count; ++k) {".into(),
            format!("        for (c = 0; c < words; ++c) d[aos ? k * words + c : c * count + k] = aether_flat_rd{b}(in[in_at[k] + at + c]);"),
            "    }".into(),
            "    return d;".into(),
            "}".into(),
            String::new(),
            format!("static void aether_flat_batch_put{b}(const {e} *d, size_t count, size_t words, int aos, uint64_t *out, size_t cap)"),
            "{".into(),
            "    size_t k, c;".into(),
            "    for (k = 0; k < count; ++k) {".into(),
            format!("        for (c = 0; c < words; ++c) out[k * cap + c] = aether_flat_wr{b}(d[aos ? k * words + c : c * count + k]);"),
            "    }".into(),
            "}".into(),
        ]);
    }
    let mut names = Vec::new();
    for f in lowered {
        let t = elem(model, &f.elem);
        let (e, b) = (&t.c_type, t.bits);
        let name = model.c_name(f);
        let thunk = format!("aether_flat_batch_{}", name.trim_start_matches("aether_"));
        names.push(thunk.clone());
        let out_words = f.output_words();
        c.push(String::new());
        c.push(format!("static size_t {thunk}(int aos, const uint64_t *in, const size_t *in_at, size_t count, uint64_t *out, size_t cap)"));
        c.push("{".into());
        if f.params.is_empty() {
            c.push("    (void)in;".into());
            c.push("    (void)in_at;".into());
        }
        let mut at = 0;
        let mut arrays = Vec::new();
        for p in &f.params {
            c.push(format!("    {e} *p_{} = aether_flat_batch_get{b}(in, in_at, count, {at}u, {}u, aos);", p.name, p.kind.words()));
            arrays.push(format!("p_{}", p.name));
            at += p.kind.words();
        }
        let out_ty = if f.ret == Kind::Bool { "int".to_string() } else { e.clone() };
        c.push(format!("    {out_ty} *r = ({out_ty} *)malloc((count * {out_words}u + 1u) * sizeof *r);"));
        c.push("    size_t status = (size_t)-1;".into());
        c.push(format!(
            "    if (cap >= {out_words}u && r != NULL{}) {{",
            arrays.iter().map(|a| format!(" && {a} != NULL")).collect::<String>()
        ));
        let cast = |k: &Kind, a: &str, konst: bool| {
            let ty = c::kind_type(model, k, t);
            format!("({}{ty} *)(void *){a}", if konst { "const " } else { "" })
        };
        let aos_args: Vec<String> = f
            .params
            .iter()
            .map(|p| cast(&p.kind, &format!("p_{}", p.name), true))
            .chain([cast(&f.ret, "r", false), "count".into()])
            .collect();
        let soa_args: Vec<String> = arrays.iter().cloned().chain(["r".to_string(), "count".into()]).collect();
        c.push(format!("        if (aos) {name}_aos({});", aos_args.join(", ")));
        c.push(format!("        else {name}_soa({});", soa_args.join(", ")));
        if f.ret == Kind::Bool {
            c.push("        size_t k;".into());
            c.push("        for (k = 0; k < count; ++k) out[k * cap] = (uint64_t)r[k];".into());
        } else {
            c.push(format!("        aether_flat_batch_put{b}(r, count, {out_words}u, aos, out, cap);"));
        }
        c.push(format!("        status = {out_words}u;"));
        c.push("    }".into());
        for a in &arrays {
            c.push(format!("    free({a});"));
        }
        c.push("    free(r);".into());
        c.push("    return status;".into());
        c.push("}".into());
    }
    c.push(String::new());
    c.push(format!("const aether_flat_batch_call aether_flat_batch_calls[{count}] = {{"));
    c.extend(names.iter().map(|n| format!("    {n},")));
    c.extend((names.len()..count).map(|_| "    NULL,".to_string()));
    c.push("};".into());
    c.push(String::new());
    (h, c.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every function of the core has both forms, and every one of them the
    /// vector step (none has hypot, fma or a choice of truths).
    #[test]
    fn every_function_has_both_forms_and_its_vector_step() {
        let m = crate::load(&crate::default_root()).expect("the spec loads");
        let lowered = m.lowered();
        let (h, c) = files(&m, &lowered, "/* banner */");
        for f in &lowered {
            let name = m.c_name(f);
            assert!(vectorises(f), "{name}");
            for form in ["soa", "aos"] {
                assert!(h.contains(&format!("void {name}_{form}(")), "{name}_{form}");
            }
            let width = if f.elem == "f32" { 8 } else { 4 };
            assert!(
                c.contains(&format!("static __inline__ __attribute__((__always_inline__)) void {name}_batch_x{width}(")),
                "{name}: its vector step"
            );
        }
    }

    /// The vector step is the scalar tree: a dot's products guarded, in the
    /// scalar order.
    #[test]
    fn the_vector_step_keeps_the_scalar_order() {
        let m = crate::load(&crate::default_root()).expect("the spec loads");
        let lowered = m.lowered();
        let f = lowered.iter().find(|f| m.c_name(f) == "aether_vec3f_dot").unwrap();
        let text = step(&m, f).join("\n");
        let p = |x: &str| format!("aether_product_f32x8(({x}))");
        let want = format!("({} + ({} + {}))", p("a.z * b.z"), p("a.y * b.y"), p("a.x * b.x"));
        assert!(text.contains(&want), "{text}");
    }

    /// A printed form's body holds `line`.
    fn body_has(text: &str, line: &str) {
        assert!(text.contains(line), "no `{line}` in:\n{text}");
    }

    fn function<'a>(lowered: &'a [Function], m: &Model, name: &str) -> &'a Function {
        lowered.iter().find(|f| m.c_name(f) == name).unwrap_or_else(|| panic!("{name}"))
    }

    /// Exactly the same operation on every component is componentwise: not a
    /// scale (its factor is one per item), not a conjugate (w is kept), not
    /// a cross product; and a tree whose components were swapped, or whose
    /// one component does another operation, is not either.
    #[test]
    fn componentwise_is_the_same_operation_on_every_component() {
        let m = crate::load(&crate::default_root()).expect("the spec loads");
        let lowered = m.lowered();
        for name in ["aether_vec4f_add", "aether_vec3d_sub", "aether_vec2f_mul", "aether_vec4d_neg", "aether_vec3f_abs", "aether_vec4f_min"]
        {
            assert!(componentwise(function(&lowered, &m, name)), "{name}");
        }
        for name in [
            "aether_vec4f_scale",
            "aether_vec2f_div",
            "aether_quatf_conjugate",
            "aether_vec3f_cross",
            "aether_mat4f_transpose",
            "aether_vec4f_lerp",
        ] {
            assert!(!componentwise(function(&lowered, &m, name)), "{name}");
        }
        let add = function(&lowered, &m, "aether_vec4f_add");
        let mut swapped = add.clone();
        swapped.outputs.swap(1, 2);
        assert!(!componentwise(&swapped), "components swapped");
        let mut other = add.clone();
        let sub = function(&lowered, &m, "aether_vec4f_sub");
        other.outputs[3] = sub.outputs[3].clone();
        assert!(!componentwise(&other), "one component subtracts");
        let text = form(&m, add, true).body.join("\n");
        body_has(
            &text,
            "aether_vec4f_add_soa((const float *)(const void *)a, (const float *)(const void *)b, (float *)(void *)aether_out, aether_n);",
        );
    }

    /// The AVX moves take groups of four binary32 (two binary64) elements; a
    /// size that is not a multiple takes its last group overlapping the one
    /// before, never past the item, and loads each component once.
    #[test]
    fn the_avx_moves_stay_inside_the_item() {
        let m = crate::load(&crate::default_root()).expect("the spec loads");
        let mat3 = m.spec.shapes.iter().find(|s| s.name == "mat3").expect("mat3").kind.clone();
        let load = avx_aos_io(&mat3, "aether_v_m", "m", 9, true, "aether_f32x8", Moves::Items).unwrap();
        assert_eq!(
            load,
            [
                "aether_f32x8 aether_skip_m;",
                "aether_batch_aos_load4_f32x8((const float *)(const void *)(m + aether_i), 9u, 0u, &aether_v_m.m[0], &aether_v_m.m[1], &aether_v_m.m[2], &aether_v_m.m[3]);",
                "aether_batch_aos_load4_f32x8((const float *)(const void *)(m + aether_i), 9u, 4u, &aether_v_m.m[4], &aether_v_m.m[5], &aether_v_m.m[6], &aether_v_m.m[7]);",
                "aether_batch_aos_load4_f32x8((const float *)(const void *)(m + aether_i), 9u, 5u, &aether_skip_m, &aether_skip_m, &aether_skip_m, &aether_v_m.m[8]);",
            ]
        );
        let store = avx_aos_io(&mat3, "r", "aether_out", 9, false, "aether_f64x4", Moves::Items).unwrap();
        let last = store.last().unwrap();
        assert!(last.contains("9u, 7u, r.m[7], r.m[8]);"), "{last}");
        let vec3 = ShapeKind::Vector(vec!["x".into(), "y".into(), "z".into()]);
        assert_eq!(
            avx_aos_io(&vec3, "aether_v_a", "a", 3, true, "aether_f32x8", Moves::Items).unwrap(),
            ["aether_batch_aos_load3_f32x8((const float *)(const void *)(a + aether_i), &aether_v_a.x, &aether_v_a.y, &aether_v_a.z);"]
        );
        assert_eq!(
            avx_aos_io(&vec3, "r", "aether_out", 3, false, "aether_f64x4", Moves::Items).unwrap(),
            ["aether_batch_aos_store3_f64x4((double *)(void *)(aether_out + aether_i), r.x, r.y, r.z);"]
        );
        assert!(avx_aos_io(&vec3, "aether_v_a", "a", 3, true, "aether_f16x16", Moves::Items).is_none());
    }

    /// Two items per 32-byte move only where every input and the result are
    /// four binary32 elements (so every vector of the step has the same
    /// order of items); a scalar, a vec3 or a binary64 operand keeps lane j
    /// item j.
    #[test]
    fn whole_vector_moves_only_where_every_operand_has_four_binary32() {
        let m = crate::load(&crate::default_root()).expect("the spec loads");
        let lowered = m.lowered();
        for name in ["aether_quatf_mul", "aether_mat2f_mul", "aether_vec4f_normalize"] {
            assert_eq!(moves(function(&lowered, &m, name)), Moves::Whole, "{name}");
        }
        for name in ["aether_quatd_mul", "aether_vec4f_lerp", "aether_quatf_rotate", "aether_vec4f_dot", "aether_mat2f_determinant"] {
            assert_eq!(moves(function(&lowered, &m, name)), Moves::Items, "{name}");
        }
        let text = form(&m, function(&lowered, &m, "aether_quatf_mul"), true).body.join("\n");
        body_has(
            &text,
            "aether_batch_aos_load4w_f32x8((const float *)(const void *)(b + aether_i), &aether_v_b.w, &aether_v_b.x, &aether_v_b.y, &aether_v_b.z);",
        );
        body_has(
            &text,
            "aether_batch_aos_store4w_f32x8((float *)(void *)(aether_out + aether_i), aether_r.w, aether_r.x, aether_r.y, aether_r.z);",
        );
    }

    /// The item loop where the item is already vector code (the mat4
    /// products; without AVX, the quaternion products' 16-byte forms too) or
    /// a copy (a transpose); the vector step elsewhere.
    #[test]
    fn the_aos_pick_keeps_items_for_the_mat4_products_and_the_moves() {
        let m = crate::load(&crate::default_root()).expect("the spec loads");
        let lowered = m.lowered();
        let pick = |name: &str| aos_steps_condition(&m, function(&lowered, &m, name));
        let mat4 = "(defined(__clang__) && !defined(AETHER_ITEM_SHUFFLES) && !defined(AETHER_ITEM_SHUFFLES_128)))";
        assert!(pick("aether_mat4f_mul").ends_with(mat4));
        assert!(pick("aether_mat4d_mul").ends_with(mat4));
        assert!(pick("aether_mat3f_transpose").ends_with("|| 0)"));
        assert!(pick("aether_quatf_mul").ends_with("|| (defined(__AVX__) || (defined(__clang__) && !defined(AETHER_ITEM_SHUFFLES_128))))"));
        assert!(pick("aether_mat2f_mul").ends_with("|| (defined(__AVX__) || defined(__clang__)))"));
        assert!(pick("aether_mat4f_inverse_adjugate").ends_with("|| 1)"));
        assert!(moves_only(function(&lowered, &m, "aether_mat4d_transpose")));
        assert!(!moves_only(function(&lowered, &m, "aether_quatf_conjugate")));
    }
}
