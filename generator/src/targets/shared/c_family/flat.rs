//! The flat calling convention printed in C: one thunk per callable that reads
//! the input words, calls the core function with C values built from them,
//! and writes the result words. It is the convention of
//! `aether_reference::flat` and of the corpus (every input word an IEEE bit
//! pattern of the element type, an `f32` in the low 32 bits; pivots, counts
//! and indices plain unsigned words).
//!
//! One printer serves two files: the self-test inside the core replays its
//! witnesses through static thunks, and `c_core/check/aether_flat.c` gives the
//! corpus runner a thunk for every callable.

use crate::model::{Callable, Function, Kernel, KernelKind, Kind, Model};
use crate::spec::{ElemType, Routine, ShapeKind};

/// The value a thunk returns when the words do not fit the convention (a
/// wrong count, an element index out of range, an invalid pivot) or the
/// result buffer is too small; nothing is called then.
pub const BAD: &str = "AETHER_FLAT_BAD";

/// Static helpers every file with thunks needs: bit-exact conversions
/// between words and the element types (memcpy, so no value conversion and
/// no aliasing question).
pub fn helpers() -> Vec<String> {
    helpers_with("static ")
}

/// How a file declares its thunks and where they get scratch memory: the C
/// files use `static` and calloc/free; the CUDA files `__host__ __device__`
/// thunks and allocation that works on the device too.
#[derive(Debug, Clone, Copy)]
pub struct ThunkStyle<'a> {
    /// Prefix of every thunk and helper, ending in a space.
    pub storage: &'a str,
    /// A calloc-like function (zeroed memory).
    pub calloc: &'a str,
    pub free: &'a str,
    /// A declaration put first in every thunk that takes scratch memory
    /// (the arena `calloc` draws from where there is no heap, as in OpenCL
    /// C); empty for none.
    pub arena: &'a str,
}

/// The C files' thunks.
pub const C_THUNKS: ThunkStyle<'static> = ThunkStyle { storage: "static ", calloc: "calloc", free: "free", arena: "" };

/// The bit helpers with the given storage prefix (ending in a space).
pub fn helpers_with(storage: &str) -> Vec<String> {
    [
        "STORAGEfloat aether_flat_rd32(uint64_t w)",
        "{",
        "    uint32_t u = (uint32_t)w;",
        "    float x;",
        "    memcpy(&x, &u, sizeof x);",
        "    return x;",
        "}",
        "",
        "STORAGEdouble aether_flat_rd64(uint64_t w)",
        "{",
        "    double x;",
        "    memcpy(&x, &w, sizeof x);",
        "    return x;",
        "}",
        "",
        "STORAGEuint64_t aether_flat_wr32(float x)",
        "{",
        "    uint32_t u;",
        "    memcpy(&u, &x, sizeof u);",
        "    return (uint64_t)u;",
        "}",
        "",
        "STORAGEuint64_t aether_flat_wr64(double x)",
        "{",
        "    uint64_t u;",
        "    memcpy(&u, &x, sizeof u);",
        "    return u;",
        "}",
    ]
    .iter()
    .map(|s| match s.strip_prefix("STORAGE") {
        Some(rest) => format!("{storage}{rest}"),
        None => s.to_string(),
    })
    .collect()
}

/// The spec's comparison policy as a C function `static int {name}(uint64_t
/// expected, uint64_t actual, unsigned bits, int is_float, int either_zero)`:
/// bytes equal; or both NaN; or +0 against -0 where the function is granted
/// it (`policy.either_zero`). The one C statement of `crate::policy`, used by
/// the core's self-test and by the corpus runner.
pub fn policy_function(name: &str) -> Vec<String> {
    vec![
        format!("static int {name}(uint64_t expected, uint64_t actual, unsigned bits, int is_float, int either_zero)"),
        "{".into(),
        "    const uint64_t mag = bits == 32u ? (uint64_t)0x7fffffffu : (uint64_t)0x7fffffffffffffffull;".into(),
        "    const uint64_t inf = bits == 32u ? (uint64_t)0x7f800000u : (uint64_t)0x7ff0000000000000ull;".into(),
        "    if (expected == actual) return 1;".into(),
        "    if (!is_float) return 0;".into(),
        "    if ((expected & mag) > inf && (actual & mag) > inf) return 1;".into(),
        "    return either_zero && (expected & mag) == 0u && (actual & mag) == 0u;".into(),
        "}".into(),
    ]
}

/// The corpus's special values of each element type (`rng::specials`) as C
/// arrays `{prefix}{bits}[]`, for the runner's random inputs.
pub fn specials_tables(model: &Model, prefix: &str) -> Vec<String> {
    let mut v = Vec::new();
    for t in &model.spec.types {
        let (ty, suffix) = if t.bits == 32 { ("uint32_t", "u") } else { ("uint64_t", "ull") };
        let words: Vec<String> = crate::rng::specials(t.bits).iter().map(|(_, w)| format!("0x{w:x}{suffix}")).collect();
        v.push(format!("static const {ty} {prefix}{}[] = {{ {} }};", t.bits, words.join(", ")));
    }
    v
}

/// The layout of a callable's input words, as the C runner's random mode
/// needs it to build valid inputs.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// `AETHER_FLAT_FIXED`, `_LANES`, `_ARRAYS`, `_PLANE`, `_RESOLVE`,
    /// `_LINALG` or `_LINALG_LANES`.
    pub kind: &'static str,
    /// Input and result words (fixed and linear-algebra layouts; per lane
    /// for `_LINALG_LANES`); for `_LANES` the lane words (2 per lane) before
    /// the lane index; else 0.
    pub n_in: usize,
    pub n_out: usize,
    /// Arrays of a lanes or arrays kernel; components of a plane element.
    pub arrays: usize,
    /// Where `lu_solve`'s pivots start in a lane's words, and the size n
    /// (pivot k must lie in k+1..=n); 0 and 0 when there are none.
    pub ipiv_at: usize,
    pub ipiv_n: usize,
}

pub fn layout(model: &Model, c: Callable) -> Layout {
    let fixed = |kind, n_in, n_out| Layout { kind, n_in, n_out, arrays: 0, ipiv_at: 0, ipiv_n: 0 };
    match c {
        Callable::Function(f) => fixed("AETHER_FLAT_FIXED", f.input_words(), f.output_words()),
        Callable::Kernel(k) => match &k.kind {
            KernelKind::Butterfly => fixed("AETHER_FLAT_FIXED", 2 * lanes(model), 2),
            KernelKind::Lanes { arrays, .. } => {
                Layout { arrays: arrays.len(), ..fixed("AETHER_FLAT_LANES", 2 * lanes(model), 2 * lanes(model)) }
            }
            KernelKind::Array { lanes: l } => Layout { arrays: lane_arrays(model, l).len(), ..fixed("AETHER_FLAT_ARRAYS", 0, 0) },
            KernelKind::Plane { width } => Layout { arrays: *width, ..fixed("AETHER_FLAT_PLANE", 0, 0) },
            KernelKind::Resolve => fixed("AETHER_FLAT_RESOLVE", 0, 0),
            KernelKind::Linalg { routine, n, many } => {
                let (i, o) = crate::linalg::words(*routine, *n);
                let kind = if *many { "AETHER_FLAT_LINALG_LANES" } else { "AETHER_FLAT_LINALG" };
                let (ipiv_at, ipiv_n) = crate::linalg::pivot_words(*routine, *n).unwrap_or((0, 0));
                Layout { kind, n_in: i, n_out: o, arrays: 0, ipiv_at, ipiv_n }
            }
        },
    }
}

fn lanes(model: &Model) -> usize {
    model.spec.reduction.as_ref().map_or(0, |r| r.lanes)
}

fn lane_arrays(model: &Model, lanes_kernel: &str) -> Vec<String> {
    match model.kernels.iter().find(|x| x.name == lanes_kernel).map(|x| &x.kind) {
        Some(KernelKind::Lanes { arrays, .. }) => arrays.clone(),
        _ => unreachable!("an array kernel names a lanes kernel (checked when the spec was read)"),
    }
}

fn elem<'a>(model: &'a Model, name: &str) -> &'a ElemType {
    model.spec.types.iter().find(|t| t.name == name).unwrap()
}

fn rd(t: &ElemType) -> &'static str {
    if t.bits == 32 {
        "aether_flat_rd32"
    } else {
        "aether_flat_rd64"
    }
}

fn wr(t: &ElemType) -> &'static str {
    if t.bits == 32 {
        "aether_flat_wr32"
    } else {
        "aether_flat_wr64"
    }
}

/// `in[base + k]`, or `in[k]` without a base.
fn word(base: &str, k: usize) -> String {
    if base.is_empty() {
        format!("in[{k}u]")
    } else {
        format!("in[{base} + {k}u]")
    }
}

/// The C type of a value of `kind`, and the components of its shape.
fn c_type(model: &Model, kind: &Kind, t: &ElemType) -> String {
    match kind {
        Kind::Bool => "int".into(),
        Kind::Shape(s) => crate::targets::shared::c_family::type_name(model, &s.name, t),
    }
}

/// Statements that fill value `v` of `shape` from words base + at... by
/// memory position (the convention's order), through a memcpy of the
/// elements: a struct whose fields were laid out in another order gets other
/// values, as a caller compiled against another header would see.
fn read(model: &Model, shape: &str, t: &ElemType, v: &str, base: &str, at: usize) -> Vec<String> {
    let s = model.spec.shape(shape).unwrap();
    if matches!(s.kind, ShapeKind::Scalar) {
        return vec![format!("{v} = {}({});", rd(t), word(base, at))];
    }
    let n = s.len();
    let mut lines = vec![format!("{{"), format!("    {} e[{n}];", t.c_type)];
    lines.extend((0..n).map(|k| format!("    e[{k}] = {}({});", rd(t), word(base, at + k))));
    lines.push(format!("    memcpy(&{v}, e, sizeof e);"));
    lines.push("}".into());
    lines
}

/// Statements that append the components of `v` to `out[o++]`, in memory
/// order (a memcpy of the elements, as `read`).
fn write(model: &Model, shape: &str, t: &ElemType, v: &str) -> Vec<String> {
    let s = model.spec.shape(shape).unwrap();
    if matches!(s.kind, ShapeKind::Scalar) {
        return vec![format!("out[o++] = {}({v});", wr(t))];
    }
    let n = s.len();
    let mut lines = vec![format!("{{"), format!("    {} e[{n}];", t.c_type), format!("    memcpy(e, &{v}, sizeof e);")];
    lines.extend((0..n).map(|k| format!("    out[o++] = {}(e[{k}]);", wr(t))));
    lines.push("}".into());
    lines
}

/// Compile-time checks that every struct of the core is its elements with no
/// padding, so a memcpy of the elements is the convention's memory order.
pub fn layout_checks(model: &Model) -> Vec<String> {
    let mut v = Vec::new();
    for t in &model.spec.types {
        for s in &model.spec.shapes {
            if matches!(s.kind, ShapeKind::Scalar) {
                continue;
            }
            let ty = crate::targets::shared::c_family::type_name(model, &s.name, t);
            v.push(format!("typedef char aether_flat_layout_{ty}[sizeof({ty}) == {} * sizeof({}) ? 1 : -1];", s.len(), t.c_type));
        }
    }
    v
}

/// The row of a callable in `aether_flat_entries` (aether_flat.h's
/// `aether_flat_entry`), with `thunk` as its call.
pub fn entry_row(model: &Model, c: Callable, thunk: &str) -> String {
    let l = layout(model, c);
    let bits = elem(model, c.elem()).bits;
    format!(
        "    {{ \"{}\", \"{}\", \"{}\", \"{}\", {bits}u, {}, {}, {}, {}u, {}u, {}u, {}u, {}u, {thunk} }},",
        c.c_name(model),
        c.family(),
        c.shape(),
        c.elem(),
        i32::from(c.is_float()),
        i32::from(c.either_zero()),
        l.kind,
        l.n_in,
        l.n_out,
        l.arrays,
        l.ipiv_at,
        l.ipiv_n
    )
}

/// The thunk of a callable: `{storage}size_t name(const uint64_t *in, size_t
/// n_in, uint64_t *out, size_t cap)`, returning the number of result words or
/// `AETHER_FLAT_BAD`.
pub fn thunk(model: &Model, c: Callable, name: &str, storage: &str) -> Vec<String> {
    thunk_with(model, c, name, &ThunkStyle { storage, ..C_THUNKS })
}

/// The thunk of a callable in a thunk style.
pub fn thunk_with(model: &Model, c: Callable, name: &str, style: &ThunkStyle) -> Vec<String> {
    let storage = style.storage;
    let (mut decls, body) = match c {
        Callable::Function(f) => function(model, f),
        Callable::Kernel(k) => match &k.kind {
            KernelKind::Linalg { routine, n, many } => linalg(model, k, *routine, *n, *many, style),
            _ => kernel(model, k, style),
        },
    };
    if !style.arena.is_empty() && body.iter().any(|l| l.contains(style.calloc)) {
        decls.insert(0, style.arena.to_string());
    }
    let mut v = vec![format!("{storage}size_t {name}(const uint64_t *in, size_t n_in, uint64_t *out, size_t cap)"), "{".into()];
    v.extend(decls.iter().map(|l| format!("    {l}")));
    v.extend(body.iter().map(|l| if l.is_empty() { String::new() } else { format!("    {l}") }));
    v.push("}".into());
    v
}

fn function(model: &Model, f: &Function) -> (Vec<String>, Vec<String>) {
    let t = elem(model, &f.elem);
    let name = model.c_name(f);
    // Parameters are `p_<name>`, so no spec name meets the thunk's own.
    let mut decls = Vec::new();
    for p in &f.params {
        decls.push(format!("{} p_{};", c_type(model, &p.kind, t), p.name));
    }
    decls.push(format!("{} r;", c_type(model, &f.ret, t)));
    decls.push("size_t o = 0;".into());
    let mut body = vec!["(void)in;".to_string(), format!("if (n_in != {}u || cap < {}u) return {BAD};", f.input_words(), f.output_words())];
    let mut at = 0;
    for p in &f.params {
        let Kind::Shape(s) = &p.kind else { unreachable!("no parameter is a truth value") };
        body.extend(read(model, &s.name, t, &format!("p_{}", p.name), "", at));
        at += p.kind.words();
    }
    let args: Vec<String> = f.params.iter().map(|p| format!("p_{}", p.name)).collect();
    body.push(format!("r = {name}({});", args.join(", ")));
    match &f.ret {
        Kind::Bool => body.push("out[o++] = (uint64_t)r;".into()),
        Kind::Shape(s) => body.extend(write(model, &s.name, t, "r")),
    }
    body.push("return o;".into());
    (decls, body)
}

fn kernel(model: &Model, k: &Kernel, style: &ThunkStyle) -> (Vec<String>, Vec<String>) {
    let (calloc, free) = (style.calloc, style.free);
    let t = elem(model, &k.elem);
    let red = model.spec.reduction.as_ref().expect("kernels need [rules.reduction]");
    let pair = crate::targets::shared::c_family::type_name(model, &red.pair, t);
    let lanes = red.lanes;
    let name = model.kernel_c_name(k);
    let e = &t.c_type;
    let (r, w) = (rd(t), wr(t));
    // Lane pairs by memory position, as every other value.
    let read_lanes = vec![
        format!("for (i = 0; i < {lanes}u; ++i) {{"),
        format!("    {e} e[2];"),
        format!("    e[0] = {r}(in[2u * i]);"),
        format!("    e[1] = {r}(in[2u * i + 1u]);"),
        "    memcpy(&lanes[i], e, sizeof e);".into(),
        "}".into(),
    ];
    let write_lanes = vec![
        format!("for (i = 0; i < {lanes}u; ++i) {{"),
        format!("    {e} e[2];"),
        "    memcpy(e, &lanes[i], sizeof e);".into(),
        format!("    out[2u * i] = {w}(e[0]);"),
        format!("    out[2u * i + 1u] = {w}(e[1]);"),
        "}".into(),
    ];
    let fill = |from: &str, count: &str| vec![format!("for (i = 0; i < {count}; ++i) x[i] = {r}(in[{from} + i]);")];
    let alloc = |count: &str| vec![format!("x = ({e} *){calloc}({count} + 1u, sizeof *x);"), format!("if (x == NULL) return {BAD};")];
    let mut decls = vec!["size_t i;".to_string()];
    let mut body = Vec::new();
    match &k.kind {
        KernelKind::Butterfly => {
            decls.push(format!("{pair} lanes[{lanes}];"));
            decls.push(format!("{pair} p;"));
            body.push(format!("if (n_in != {}u || cap < 2u) return {BAD};", 2 * lanes));
            body.extend(read_lanes);
            body.push(format!("p = {name}(lanes);"));
            body.push("{".into());
            body.push(format!("    {e} e[2];"));
            body.push("    memcpy(e, &p, sizeof e);".into());
            body.push(format!("    out[0] = {w}(e[0]);"));
            body.push(format!("    out[1] = {w}(e[1]);"));
            body.push("}".into());
            body.push("return 2u;".into());
        }
        KernelKind::Lanes { arrays, .. } => {
            let a = arrays.len();
            decls.extend([format!("{pair} lanes[{lanes}];"), format!("{e} *x;"), "size_t n;".into()]);
            let head = 2 * lanes + 1;
            body.push(format!("if (n_in < {head}u || (n_in - {head}u) % {a}u != 0u || cap < {}u) return {BAD};", 2 * lanes));
            body.push(format!("n = (n_in - {head}u) / {a}u;"));
            body.extend(alloc("n_in"));
            body.extend(fill(&format!("{head}u"), &format!("{a}u * n")));
            body.extend(read_lanes);
            let args: Vec<String> = (0..a).map(|j| if j == 0 { "x".to_string() } else { format!("x + {j}u * n") }).collect();
            body.push(format!("{name}(lanes, (size_t)in[{}u], {}, n);", 2 * lanes, args.join(", ")));
            body.extend(write_lanes);
            body.push(format!("{free}(x);"));
            body.push(format!("return {}u;", 2 * lanes));
        }
        KernelKind::Array { lanes: l } => {
            let a = lane_arrays(model, l).len();
            decls.extend([format!("{e} *x;"), format!("{e} v;"), "size_t n;".into()]);
            body.push(format!("if (n_in % {a}u != 0u || cap < 1u) return {BAD};"));
            body.push(format!("n = n_in / {a}u;"));
            body.extend(alloc("n_in"));
            body.extend(fill("0u", "n_in"));
            let args: Vec<String> = (0..a).map(|j| if j == 0 { "x".to_string() } else { format!("x + {j}u * n") }).collect();
            body.push(format!("v = {name}({}, n);", args.join(", ")));
            body.push(format!("{free}(x);"));
            body.push(format!("out[0] = {w}(v);"));
            body.push("return 1u;".into());
        }
        KernelKind::Plane { width } => {
            let kk = *width;
            let term_ty = crate::targets::shared::c_family::type_name(model, &k.shape, t);
            decls.extend([format!("{e} *value;"), format!("{e} *comp;"), format!("{term_ty} term;"), "size_t s, rec, slots;".into()]);
            body.push(format!("if (n_in < 1u || (n_in - 1u) % {}u != 0u || in[0] > (uint64_t)(cap / {}u)) return {BAD};", kk + 1, 2 * kk));
            body.push("s = (size_t)in[0];".into());
            body.push(format!("slots = s * {kk}u;"));
            body.push(format!("value = ({e} *){calloc}(slots + 1u, sizeof *value);"));
            body.push(format!("comp = ({e} *){calloc}(slots + 1u, sizeof *comp);"));
            body.push("if (value == NULL || comp == NULL) {".into());
            body.push(format!("    {free}(value);"));
            body.push(format!("    {free}(comp);"));
            body.push(format!("    return {BAD};"));
            body.push("}".into());
            body.push("/* All-zero bytes are +0 in IEEE formats: the plane starts at +0. */".into());
            body.push(format!("for (rec = 1u; rec < n_in; rec += {}u) {{", kk + 1));
            body.push("    if (in[rec] >= (uint64_t)s) {".into());
            body.push(format!("        {free}(value);"));
            body.push(format!("        {free}(comp);"));
            body.push(format!("        return {BAD};"));
            body.push("    }".into());
            for l in read(model, &k.shape, t, "term", "rec", 1) {
                body.push(format!("    {l}"));
            }
            body.push(format!("    {name}(value, comp, (size_t)in[rec], term);"));
            body.push("}".into());
            body.push(format!("for (i = 0; i < slots; ++i) out[i] = {w}(value[i]);"));
            body.push(format!("for (i = 0; i < slots; ++i) out[slots + i] = {w}(comp[i]);"));
            body.push(format!("{free}(value);"));
            body.push(format!("{free}(comp);"));
            body.push("return 2u * slots;".into());
        }
        KernelKind::Resolve => {
            decls.extend([format!("{e} *x;"), format!("{e} *y;"), "size_t n;".into()]);
            body.push(format!("if (n_in % 2u != 0u || cap < n_in / 2u) return {BAD};"));
            body.push("n = n_in / 2u;".into());
            body.extend(alloc("n_in"));
            body.push(format!("y = ({e} *){calloc}(n + 1u, sizeof *y);"));
            body.push("if (y == NULL) {".into());
            body.push(format!("    {free}(x);"));
            body.push(format!("    return {BAD};"));
            body.push("}".into());
            body.extend(fill("0u", "n_in"));
            body.push(format!("{name}(y, x, x + n, n);"));
            body.push(format!("for (i = 0; i < n; ++i) out[i] = {w}(y[i]);"));
            body.push(format!("{free}(x);"));
            body.push(format!("{free}(y);"));
            body.push("return n;".into());
        }
        KernelKind::Linalg { .. } => unreachable!("printed by linalg()"),
    }
    (decls, body)
}

fn linalg(model: &Model, k: &Kernel, routine: Routine, n: usize, many: bool, style: &ThunkStyle) -> (Vec<String>, Vec<String>) {
    let (calloc, free) = (style.calloc, style.free);
    let t = elem(model, &k.elem);
    let e = &t.c_type;
    let (m, v) = (
        crate::targets::shared::c_family::type_name(model, &format!("mat{n}"), t),
        crate::targets::shared::c_family::type_name(model, &format!("vec{n}"), t),
    );
    let (mat, vec) = (format!("mat{n}"), format!("vec{n}"));
    let nn = n * n;
    let (w_in, w_out) = crate::linalg::words(routine, n);
    let name = model.kernel_c_name(k);
    let w = wr(t);
    // In the lanes form every value is an array element `x[l]` and lane l's
    // words start at `l * w_in`.
    let (base, at) = if many { (format!("l * {w_in}u"), "[l]") } else { (String::new(), "") };
    let ix = |s: &str| format!("{s}{at}");
    let ipiv_lv = |i: usize| if many { format!("ipiv[l * {n}u + {i}u]") } else { format!("ipiv[{i}]") };
    let mut decls = vec!["size_t o = 0;".to_string()];
    let mut per_lane_in = Vec::new();
    let mut call = Vec::new();
    let mut per_lane_out = Vec::new();
    let ints = |decls: &mut Vec<String>, name: &str, count: &str| {
        if many {
            decls.push(format!("int *{name} = NULL;"));
            let _ = count;
        } else {
            decls.push(format!("int {name}{count};"));
        }
    };
    // Declarations of the values, single or many.
    let val = |decls: &mut Vec<String>, ty: &str, name: &str| {
        if many {
            decls.push(format!("{ty} *{name} = NULL;"));
        } else {
            decls.push(format!("{ty} {name};"));
        }
    };
    let mut arrays: Vec<(String, String)> = Vec::new(); // (name, element type) to allocate for many lanes
    let mut alloc = |name: &str, ty: &str| arrays.push((name.to_string(), ty.to_string()));
    match routine {
        Routine::Lu => {
            val(&mut decls, &m, "a");
            ints(&mut decls, "ipiv", &format!("[{n}]"));
            ints(&mut decls, "info", "");
            alloc("a", &m);
            alloc("ipiv", &format!("int[{n}]"));
            alloc("info", "int");
            per_lane_in.extend(read(model, &mat, t, &ix("a"), &base, 0));
            if many {
                call.push(format!("{name}(a, ipiv, info, count);"));
            } else {
                call.push(format!("info = {name}(&a, ipiv);"));
            }
            per_lane_out.extend(write(model, &mat, t, &ix("a")));
            per_lane_out.extend((0..n).map(|i| format!("out[o++] = (uint64_t)(int64_t){};", ipiv_lv(i))));
            per_lane_out.push(format!("out[o++] = (uint64_t)(int64_t){};", ix("info")));
        }
        Routine::LuSolve => {
            val(&mut decls, &m, "a");
            ints(&mut decls, "ipiv", &format!("[{n}]"));
            val(&mut decls, &v, "b");
            val(&mut decls, &v, "r");
            alloc("a", &m);
            alloc("ipiv", &format!("int[{n}]"));
            alloc("b", &v);
            alloc("r", &v);
            per_lane_in.extend(read(model, &mat, t, &ix("a"), &base, 0));
            let (ipiv_at, _) = crate::linalg::pivot_words(routine, n).expect("lu_solve takes pivots");
            for i in 0..n {
                // A pivot outside k+1..=n would index out of the matrix.
                let wd = word(&base, ipiv_at + i);
                per_lane_in.push(format!("if ({wd} < {}u || {wd} > {n}u) goto bad;", i + 1));
                per_lane_in.push(format!("{} = (int){wd};", ipiv_lv(i)));
            }
            per_lane_in.extend(read(model, &vec, t, &ix("b"), &base, nn + n));
            if many {
                call.push(format!("{name}(a, ipiv, b, r, count);"));
            } else {
                call.push(format!("r = {name}(&a, ipiv, b);"));
            }
            per_lane_out.extend(write(model, &vec, t, &ix("r")));
        }
        Routine::SolveLower | Routine::SolveLowerUnit | Routine::SolveUpper | Routine::SolveUpperUnit | Routine::CholeskySolve => {
            val(&mut decls, &m, "a");
            val(&mut decls, &v, "b");
            val(&mut decls, &v, "r");
            alloc("a", &m);
            alloc("b", &v);
            alloc("r", &v);
            per_lane_in.extend(read(model, &mat, t, &ix("a"), &base, 0));
            per_lane_in.extend(read(model, &vec, t, &ix("b"), &base, nn));
            if many {
                call.push(format!("{name}(a, b, r, count);"));
            } else {
                call.push(format!("r = {name}(a, b);"));
            }
            per_lane_out.extend(write(model, &vec, t, &ix("r")));
        }
        Routine::DetLu => {
            val(&mut decls, &m, "a");
            val(&mut decls, e, "d");
            alloc("a", &m);
            alloc("d", e);
            per_lane_in.extend(read(model, &mat, t, &ix("a"), &base, 0));
            if many {
                call.push(format!("{name}(a, d, count);"));
            } else {
                call.push(format!("d = {name}(a);"));
            }
            per_lane_out.push(format!("out[o++] = {w}({});", ix("d")));
        }
        Routine::Inverse => {
            val(&mut decls, &m, "a");
            val(&mut decls, &m, "x");
            ints(&mut decls, "info", "");
            alloc("a", &m);
            alloc("x", &m);
            alloc("info", "int");
            per_lane_in.extend(read(model, &mat, t, &ix("a"), &base, 0));
            if many {
                call.push(format!("{name}(a, x, info, count);"));
            } else {
                call.push(format!("info = {name}(a, &x);"));
            }
            per_lane_out.extend(write(model, &mat, t, &ix("x")));
            per_lane_out.push(format!("out[o++] = (uint64_t)(int64_t){};", ix("info")));
        }
        Routine::Cholesky => {
            val(&mut decls, &m, "a");
            ints(&mut decls, "info", "");
            alloc("a", &m);
            alloc("info", "int");
            per_lane_in.extend(read(model, &mat, t, &ix("a"), &base, 0));
            if many {
                call.push(format!("{name}(a, info, count);"));
            } else {
                call.push(format!("info = {name}(&a);"));
            }
            per_lane_out.extend(write(model, &mat, t, &ix("a")));
            per_lane_out.push(format!("out[o++] = (uint64_t)(int64_t){};", ix("info")));
        }
        Routine::Eigh => {
            val(&mut decls, &m, "a");
            val(&mut decls, &v, "ev");
            val(&mut decls, &m, "vs");
            alloc("a", &m);
            alloc("ev", &v);
            alloc("vs", &m);
            per_lane_in.extend(read(model, &mat, t, &ix("a"), &base, 0));
            if many {
                call.push(format!("{name}(a, ev, vs, count);"));
            } else {
                call.push(format!("{name}(a, &ev, &vs);"));
            }
            per_lane_out.extend(write(model, &vec, t, &ix("ev")));
            per_lane_out.extend(write(model, &mat, t, &ix("vs")));
        }
    }
    let mut body = Vec::new();
    let frees: Vec<String> = arrays.iter().map(|(a, _)| format!("{free}({a});")).collect();
    if many {
        decls.push("size_t l, count;".into());
        body.push(format!("if (n_in % {w_in}u != 0u || n_in / {w_in}u > cap / {w_out}u) return {BAD};"));
        body.push(format!("count = n_in / {w_in}u;"));
        for (a, ty) in &arrays {
            // `int[n]` pivots are n ints per lane.
            let (elem_ty, per) = match ty.strip_prefix("int[") {
                Some(rest) => ("int".to_string(), rest.trim_end_matches(']').to_string()),
                None => (ty.clone(), "1".to_string()),
            };
            // Zeroed: compilers see initialised memory behind every const pointer.
            body.push(format!("{a} = ({elem_ty} *){calloc}({per}u * (count + 1u), sizeof *{a});"));
        }
        let nulls: Vec<String> = arrays.iter().map(|(a, _)| format!("{a} == NULL")).collect();
        body.push(format!("if ({}) goto bad;", nulls.join(" || ")));
        body.push("for (l = 0; l < count; ++l) {".into());
        body.extend(per_lane_in.iter().map(|s| format!("    {s}")));
        body.push("}".into());
        body.extend(call);
        body.push("for (l = 0; l < count; ++l) {".into());
        body.extend(per_lane_out.iter().map(|s| format!("    {s}")));
        body.push("}".into());
        body.extend(frees.iter().cloned());
        body.push("return o;".into());
        body.push(String::new());
        body.push("bad:".into());
        body.extend(frees);
        body.push(format!("return {BAD};"));
    } else {
        body.push(format!("if (n_in != {w_in}u || cap < {w_out}u) return {BAD};"));
        body.extend(per_lane_in);
        body.extend(call);
        body.extend(per_lane_out);
        body.push("return o;".into());
        if routine == Routine::LuSolve {
            body.push(String::new());
            body.push("bad:".into());
            body.push(format!("return {BAD};"));
        }
    }
    (decls, body)
}
