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

use super::c::{self, barrier_name, component, literal, Dialect};
use super::c_simd::mask_type;
use super::print::{self, Spelling};
use super::soa;
use crate::dsl::BinOp;
use crate::model::{Builtin, Expr, Function, Kind, Model, Ty};
use crate::spec::{ElemType, ShapeKind};

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
        let (v, width) = super::c_simd::vector_elem(t);
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
        let (sign, exp) = if bits == 32 { ("0x7fffffff", "0x7f800000") } else { ("0x7fffffffffffffff", "0x7ff0000000000000") };
        let word = format!("(int{bits}_t){sign}");
        let x = &args[0];
        match b {
            Builtin::Fabs => format!("(({})(({m})({x}) & {word}))", elem.c_type),
            Builtin::IsFinite => format!("((({m})({x}) & (int{bits}_t){exp}) != (int{bits}_t){exp})"),
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
        format!("{ty} out;")
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

/// The vector step of a function: its parameters and result through
/// pointers (a vector passed by value changes the ABI where the target has no
/// vector registers of its width: -Wpsabi), its body the scalar tree printed
/// with vector types.
fn step(model: &Model, f: &Function) -> Vec<String> {
    let t = elem(model, &f.elem);
    let (v, width) = super::c_simd::vector_elem(t);
    let sp = Vector { scalar: t, name: v.name.clone(), sqrts: Cell::new(0) };
    let ty = |k: &Kind| sp.kind_type(model, k, &v);
    let mut params = vec![format!("{} *aether_result", ty(&f.ret))];
    params.extend(f.params.iter().map(|p| format!("const {} *aether_{}", ty(&p.kind), p.name)));
    let mut lines = vec![
        format!("static __inline__ __attribute__((__always_inline__)) void {}({})", step_name(model, f, width), params.join(", ")),
        "{".into(),
    ];
    for p in &f.params {
        lines.push(format!("    const {} {} = *aether_{};", ty(&p.kind), p.name, p.name));
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
    aos: bool,
    load: bool,
    elem_c: &str,
    vector: &str,
) -> Vec<String> {
    let mut out = Vec::new();
    if aos {
        return aos_io(kind, var, arr, words, width, load, elem_c, vector);
    }
    for c in 0..words {
        let (field, at) = match kind {
            ShapeKind::Scalar => (var.to_string(), format!("{arr} + i")),
            _ => (format!("{var}.{}", component(kind, c)), format!("{arr} + {c}u * n + i")),
        };
        if load {
            out.push(format!("memcpy(&{field}, {at}, {width}u * sizeof({elem_c}));"));
        } else {
            out.push(format!("memcpy({at}, &{field}, {width}u * sizeof({elem_c}));"));
        }
    }
    out
}

/// The AoS side of [`lanes_io`]: the `width` items from `i` are
/// `words * width` consecutive elements, moved as `words` whole vectors and
/// rearranged by shuffles (shapes of up to four components; a matrix's
/// lanes one by one). Lane j of component c is element j * words + c:
/// element p of vector (j * words + c) / width. Each component (each
/// vector stored) is one shuffle of the first two vectors it draws from,
/// then one more per further vector, each keeping the lanes already placed.
#[allow(clippy::too_many_arguments)]
fn aos_io(kind: &ShapeKind, var: &str, arr: &str, words: usize, width: usize, load: bool, elem_c: &str, vector: &str) -> Vec<String> {
    let field = |c: usize| match kind {
        ShapeKind::Scalar => var.to_string(),
        _ => format!("{var}.{}", component(kind, c)),
    };
    let bytes = |s: usize, konst: &str| format!("({konst}char *)({konst}void *)({arr} + i) + {}u * sizeof({elem_c})", s * width);
    if words == 1 {
        return vec![if load {
            format!("memcpy(&{}, (const {elem_c} *)(const void *)({arr} + i), {width}u * sizeof({elem_c}));", field(0))
        } else {
            format!("memcpy((void *)({arr} + i), &{}, {width}u * sizeof({elem_c}));", field(0))
        }];
    }
    if words > 4 {
        // A matrix: its components draw on up to eight vectors each, and the chains of shuffles
        // measured slower than building each vector from its lanes (and storing lane by lane).
        let item = |k: usize, c: usize| format!("{arr}[i + {k}u].{}", component(kind, c));
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
        let words_v: Vec<String> = (0..words).map(|s| format!("{var}_w{s}")).collect();
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

/// The condition under which a function's `_aos` form runs its vector step
/// (else every item goes through its item function, a loop the compiler may
/// vectorise itself). Measured (docs/reports/performance-notes.md):
/// - gcc: the vector step, except where the item function's products are
///   lanes gcc packs within one item (the matrix and quaternion products,
///   mat4 * vec4): there the item loop (mat4f_mul 2.8 ns against the
///   step's 9.7, quatf_mul 1.58 against 1.76);
/// - clang: the vector step everywhere (its loop vectoriser packs the item
///   loop across items only where an item has one result, and there the
///   step is as fast: dot 0.35 against 0.36 ns; elsewhere the step is up to
///   twice as fast, quatf_mul 1.60 against 2.99, and the item loop at most
///   1.3 times faster, quatd_mul);
/// - both: the item loop where the item function has its per-item vector
///   form (`c_item`: the mat4 products and quatf_mul under AETHER_ITEM_SHUFFLES),
///   which moves no component into the lanes of other items.
///
/// `AETHER_BATCH_AOS_STEPS` (every `_aos` through its vector step) and
/// `AETHER_BATCH_AOS_ITEMS` (every item alone) override it, for the
/// benchmark and the tests.
fn aos_steps_condition(model: &Model, f: &Function) -> String {
    let pick = if super::c_item::form(model, f).is_some() {
        "(defined(__clang__) && !defined(AETHER_ITEM_SHUFFLES))"
    } else if c::products_vectorise(f) {
        "defined(__clang__)"
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
    let params: Vec<String> = f.params.iter().map(|p| format!("const {} *aether_{}", c::kind_type(model, &p.kind, t), p.name)).collect();
    let ret = c::kind_type(model, &f.ret, t);
    let d = Dialect { vector_products: true, ..Dialect::C };
    let mut lines = vec![format!("static inline {ret} {}({})", item_name(model, f), params.join(", ")), "{".into()];
    for p in &f.params {
        lines.push(format!("    const {} {} = *aether_{};", c::kind_type(model, &p.kind, t), p.name, p.name));
    }
    let body = print::body(&d, model, f, t);
    let body = match super::c_item::form(model, f) {
        Some(form) => super::c_item::wrap(form, body),
        None => body,
    };
    lines.extend(body.into_iter().map(|l| format!("    {l}")));
    lines.push("}".into());
    lines
}

/// One batch of a function: `_soa` or `_aos`.
struct Form {
    name: String,
    params: Vec<String>,
    doc: String,
    body: Vec<String>,
}

fn form(model: &Model, f: &Function, aos: bool) -> Form {
    let t = elem(model, &f.elem);
    let name = model.c_name(f);
    let (v, width) = super::c_simd::vector_elem(t);
    let sp = Vector { scalar: t, name: v.name.clone(), sqrts: Cell::new(0) };
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
    params.push(format!("{out_ty} *out"));
    params.push("size_t n".into());
    let args: Vec<String> = f.params.iter().map(|p| format!("v_{}", p.name)).collect();
    let mut body = vec!["size_t i = 0;".to_string()];
    if vectorises(f) {
        body.push(if aos {
            format!("#if defined(AETHER_LANES_SIMD) && {}", aos_steps_condition(model, f))
        } else {
            "#if defined(AETHER_LANES_SIMD)".into()
        });
        body.push(format!("for (; n - i >= {width}u; i += {width}u) {{"));
        let mut inner = Vec::new();
        for p in &f.params {
            inner.push(format!("{} v_{};", sp.kind_type(model, &p.kind, &v), p.name));
        }
        inner.push(format!("{} aether_r;", sp.kind_type(model, &f.ret, &v)));
        if f.ret == Kind::Bool {
            inner.push("unsigned aether_k;".into());
        }
        for p in &f.params {
            let Kind::Shape(s) = &p.kind else { unreachable!("no parameter is a truth value") };
            inner.extend(lanes_io(&s.kind, &format!("v_{}", p.name), &p.name, p.kind.words(), width, aos, true, &t.c_type, &v.c_type));
        }
        let call_args: Vec<String> = std::iter::once("&aether_r".to_string()).chain(args.iter().map(|a| format!("&{a}"))).collect();
        inner.push(format!("{}({});", step_name(model, f, width), call_args.join(", ")));
        match &f.ret {
            Kind::Bool => {
                inner.push(format!("for (aether_k = 0; aether_k < {width}u; ++aether_k) out[i + aether_k] = aether_r[aether_k] != 0;"))
            }
            Kind::Shape(s) => inner.extend(lanes_io(&s.kind, "aether_r", "out", f.ret.words(), width, aos, false, &t.c_type, &v.c_type)),
        }
        body.extend(inner.into_iter().map(|l| format!("    {l}")));
        body.push("}".into());
        body.push("#endif".into());
    }
    body.push("for (; i < n; ++i) {".into());
    if aos {
        if vectorises(f) {
            let args: Vec<String> = f.params.iter().map(|p| format!("&{}[i]", p.name)).collect();
            body.push(format!("    out[i] = {}({});", item_name(model, f), args.join(", ")));
        } else {
            body.push(format!(
                "    out[i] = {name}({});",
                f.params.iter().map(|p| format!("{}[i]", p.name)).collect::<Vec<_>>().join(", ")
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
        doc: format!("out[i] = {name}(item i of each input) for every i < n, with its bits. {layout}"),
        body,
    }
}

/// The vector types of every shape (the pair of the reduction is the lanes
/// kernels' own), the guard, the splat.
fn vector_types(model: &Model) -> Vec<String> {
    let pair = model.spec.reduction.as_ref().map(|r| r.pair.clone()).unwrap_or_default();
    let mut lines = Vec::new();
    for t in &model.spec.types {
        let (v, width) = super::c_simd::vector_elem(t);
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
        lines.push(format!("#if defined({UNGUARDED})"));
        lines.push(format!("#  undef {}", product_guard(&v)));
        lines.push(format!("#  define {}(x) (x)", product_guard(&v)));
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
        "   structure of arrays (_soa: component c of item i of every array at [c * n + i], the layout of".into(),
        "   the CUDA and OpenCL batches) and in array of structures (_aos: the core's structs, item i at".into(),
        "   [i]). Every item gets the bits the function gives it alone. With GNU C compilers (gcc, clang)".into(),
        "   eight binary32 items (four binary64) run as one vector step, each vector lane the function's".into(),
        "   operations in its order (an _aos form shuffles eight structs into lanes, or, where measured".into(),
        "   faster, loops over the items); the rest, and every item elsewhere, through the function".into(),
        "   itself. The per-lane linear algebra's batched forms are its _lanes functions. Truth values".into(),
        "   are int (0 or 1). out may be one of the input arrays (in place) but must not overlap one".into(),
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
        "   The products' guard is the lanes kernels' (the bits ORed with the opaque zero, lane by lane);".to_string(),
        "   ".to_string() + UNGUARDED + " makes it the identity here (a negative control; never in a build",
        "   you rely on). */".into(),
    ];
    c.extend(vector_types(model));
    c.extend(sqrt_fns(model));
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
    c.extend(super::c_flat::helpers());
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
}
