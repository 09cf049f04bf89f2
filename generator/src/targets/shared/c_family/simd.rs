//! The vector path of the C core's strided lanes kernels (`aether_f32_lanes_sum`,
//! `aether_f32_lanes_dot` and their binary64 twins, and so the `*_array` sums).
//!
//! The contract gives element `j` to lane `(first + j) mod 32` and adds it to
//! that lane's pair by the reduction's step, in ascending `j`. Each lane is an
//! independent sequence, so 32 consecutive elements from a lane-aligned index
//! are 32 independent steps: with GNU C vector types (32 bytes: 8 binary32 or
//! 4 binary64 lanes per vector) the kernel runs them as 4 or 8 vector steps,
//! every vector lane doing exactly the scalar step's operations on exactly
//! the scalar lane's terms, in the same order. The bits are the scalar
//! loop's; the vector step is the one step of the spec printed with vector
//! types (not a second statement of it), its barrier and product guard the
//! vector pinned in its register with AVX (else the OR with an opaque zero),
//! its fmin/fmax the one NaN rule as lane masks (with AVX, x86's min/max of
//! (b, a) and one select for a NaN a: the same rule).
//!
//! The path is compiled where `AETHER_LANES_SIMD` is defined (GNU C compilers
//! unless `AETHER_NO_LANES_SIMD`); elements before the first lane-aligned
//! index and after the last whole block of 32 take the scalar loop.

use crate::dsl::BinOp;
use crate::model::{Builtin, Expr, Function, Kernel, KernelKind, Model};
use crate::spec::ElemType;
use crate::targets::shared::c_family::{
    barrier_name, component_name, kind_type, minmax_rule, minmax_rule_with, pointer_to, product_name, type_name, Dialect, Helper,
};
use crate::targets::shared::kernels::{COUNT, ELEMENT, FIRST, LANES, TERM};
use crate::targets::shared::print;

/// Bytes of one vector.
const VECTOR_BYTES: u32 = 32;

/// The element type of a vector of `t`: `aether_f32x8` (letter `fx8`).
pub fn vector_elem(t: &ElemType) -> (ElemType, usize) {
    let width = (VECTOR_BYTES * 8 / t.bits) as usize;
    let e = ElemType {
        name: format!("{}x{width}", t.name),
        c_type: format!("aether_{}x{width}", t.name),
        letter: format!("{}x{width}", t.letter),
        literal_suffix: t.literal_suffix.clone(),
        libm_suffix: t.libm_suffix.clone(),
        bits: t.bits,
    };
    (e, width)
}

/// The integer vector type of vector type `v`'s masks and bits.
pub fn mask_type(v: &ElemType) -> String {
    format!("aether_i{}x{}", v.bits, VECTOR_BYTES * 8 / v.bits)
}

/// `x`'s lanes that are finite, as a mask of vector type `v`: the exponent
/// bits not all set, tested on the bits (no option of the compiler's folds an
/// integer test). The lanes kernels' chunks and the batches' `isfinite`.
pub fn finite_lanes(v: &ElemType, x: &str) -> String {
    let (m, bits) = (mask_type(v), v.bits);
    let exp = if bits == 32 { "0x7f800000" } else { "0x7ff0000000000000" };
    format!("((({m})({x}) & (int{bits}_t){exp}) != (int{bits}_t){exp})")
}

/// The reduction's step of element type `t`, when it can be printed with
/// vector types: straight-line arithmetic, barriers and fmin/fmax (no
/// choice or comparison, which C spells differently for vectors).
fn vector_step<'a>(model: &Model, lowered: &'a [Function], t: &ElemType) -> Option<&'a Function> {
    vector_fn(lowered, t, &model.spec.reduction.as_ref()?.step)
}

/// The reduction's merge of two pairs (the butterfly's), when it can be printed with vector types.
fn vector_combine<'a>(model: &Model, lowered: &'a [Function], t: &ElemType) -> Option<&'a Function> {
    vector_fn(lowered, t, &model.spec.reduction.as_ref()?.combine)
}

/// Function `family` of element type `t`, when it can be printed with vector types.
fn vector_fn<'a>(lowered: &'a [Function], t: &ElemType, family: &str) -> Option<&'a Function> {
    let f = lowered.iter().find(|f| f.family == family && f.elem == t.name)?;
    fn plain(e: &Expr) -> bool {
        match e {
            Expr::Lit(_) | Expr::Input { .. } | Expr::Temp(_) => true,
            Expr::Bin(op, a, b) => matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div) && plain(a) && plain(b),
            Expr::Call(b, args) => {
                matches!(b, crate::model::Builtin::Barrier | crate::model::Builtin::Fmin | crate::model::Builtin::Fmax)
                    && args.iter().all(plain)
            }
            _ => false,
        }
    }
    (f.temps.iter().all(|t| plain(&t.expr)) && f.outputs.iter().all(plain)).then_some(f)
}

/// The name of the vector step.
fn vector_step_name(model: &Model, f: &Function, width: usize) -> String {
    format!("{}_x{width}", model.c_name(f))
}

/// Whole blocks of 32 elements per chunk of the vector path's speculation (`AETHER_LANES_CHUNK`,
/// which a build may set: scripts/c-random.sh sets 1, so that every block is a chunk): 4096
/// elements, 16 or 32 KiB of each array, so a chunk run again comes from L1.
const CHUNK_BLOCKS: usize = 128;

/// `e` with every temp replaced by its expression.
fn expand(f: &Function, e: &Expr) -> Expr {
    e.clone().map(&mut |n| if let Expr::Temp(i) = n { expand(f, &f.temps[i].expr) } else { n })
}

/// The operands `(x, y)` where `ab` and `ba` are Knuth's two-sum residual of one sum in both
/// operand orders: `ab = (x - (t - (t - x))) + (y - (t - x))` and `ba` the same with x and y
/// exchanged, where t is `x + y` or `y + x` (IEEE sums commute exactly), through a barrier or
/// not. The pattern is the premise of the one-order step, not a second statement of the
/// contract: if the spec's residual changes, it stops matching and the vectors keep the whole
/// step. The premise tests (`one_order_premise`) evaluate the spec's own trees that it matched.
fn two_sum_orders(ab: &Expr, ba: &Expr) -> Option<(Expr, Expr)> {
    use crate::dsl::BinOp::{Add, Sub};
    fn bin(op: crate::dsl::BinOp, a: &Expr, b: &Expr) -> Expr {
        Expr::Bin(op, Box::new(a.clone()), Box::new(b.clone()))
    }
    let residual = |x: &Expr, y: &Expr, t: &Expr| {
        let bv = bin(Sub, t, x);
        bin(Add, &bin(Sub, x, &bin(Sub, t, &bv)), &bin(Sub, y, &bv))
    };
    // The shape gives x, y and t: ab = (x - (t - bv)) + (y - bv).
    let Expr::Bin(Add, l, r) = ab else { return None };
    let (Expr::Bin(Sub, x, _), Expr::Bin(Sub, y, _)) = (&**l, &**r) else { return None };
    let Expr::Bin(Sub, _, bv) = &**r else { return None };
    let Expr::Bin(Sub, t, _) = &**bv else { return None };
    let sum = match &**t {
        Expr::Call(Builtin::Barrier, a) if a.len() == 1 => &a[0],
        s => s,
    };
    let is_sum = *sum == bin(Add, x, y) || *sum == bin(Add, y, x);
    (x != y && is_sum && *ab == residual(x, y, t) && *ba == residual(y, x, t)).then(|| ((**x).clone(), (**y).clone()))
}

/// The operands of the step's one fmax, its temps expanded (the two residuals that
/// [`one_order_step`] matches); None where the step has not exactly one fmin or fmax.
fn step_residuals(step: &Function) -> Option<(Expr, Expr)> {
    let mut found = Vec::new();
    for e in step.exprs() {
        e.visit(&mut |n| {
            if let Expr::Call(b @ (Builtin::Fmin | Builtin::Fmax), args) = n {
                found.push((*b, args.clone()));
            }
        });
    }
    let [(Builtin::Fmax, args)] = found.as_slice() else { return None };
    let [ab, ba] = args.as_slice() else { return None };
    Some((expand(step, ab), expand(step, ba)))
}

/// The reduction's step with its two-sum residual in one operand order: the step's one fmax,
/// `fmax(ab, ba)` of Knuth's two-sum residual in both orders (`two_sum_err`), replaced by `ab`,
/// and the operations only `ba` reads dropped: 7 operations where the whole step takes 16.
/// Wherever `ab` is finite the two give the same bits. A sum or difference keeps an infinity
/// infinite or makes it NaN, so a finite `ab` had no intermediate overflow and is the exact
/// residual. `ba` is then the exact residual too, the same number, and fmax(ab, ba) = (ba > ab ?
/// ba : ab) is `ab`, bit for bit, whatever the signs of a zero; or its order overflowed
/// spuriously, which gives NaN and fmax keeps `ab`; never +inf. The test
/// `one_order_premise_holds_in_every_small_binary_format` shows the last exhaustively over
/// small formats, and `..._near_the_top_of_binary32_and_binary64` near the overflow threshold.
/// A non-finite `ab` makes the companion non-finite, and the lane stays so: the kernel keeps a
/// chunk's one-order result only where every lane ends finite, and otherwise runs the chunk
/// again with the whole step. None where the step has not that one fmax.
fn one_order_step(step: &Function) -> Option<Function> {
    let (ab, ba) = step_residuals(step)?;
    two_sum_orders(&ab, &ba)?;
    let mut f = step.clone();
    f.map_exprs(&mut |e| match e {
        Expr::Call(Builtin::Fmax, mut args) if args.len() == 2 => args.swap_remove(0),
        e => e,
    });
    let (temps, outputs) = crate::model::prune_temps(f.temps, f.outputs);
    Some(Function { temps, outputs, ..f })
}

/// The name of the one-order step.
fn one_order_name(model: &Model, f: &Function, width: usize) -> String {
    format!("{}_one_order", vector_step_name(model, f, width))
}

/// The name of the test that every lane of `count` vector pairs is finite.
fn finite_name(pair: &str) -> String {
    format!("{pair}_finite")
}

/// The OR with the opaque zero of vector type `v`, lane by lane: the
/// vector guard without AVX, and the batches' steps of the mat4 products
/// with gcc (`c_batch`).
pub fn or_zero_name(v: &ElemType) -> String {
    format!("aether_or_zero_{}", v.name)
}

/// The vector types and helpers, and the vector step of every element type
/// that has one, inside `#if defined(AETHER_LANES_SIMD)`.
pub fn helpers(model: &Model, lowered: &[Function]) -> Vec<Helper> {
    let Some(red) = model.spec.reduction.as_ref() else { return Vec::new() };
    let mut lines = vec!["#if defined(AETHER_LANES_SIMD)".to_string()];
    // The negative control of the chunks' check (scripts/negative-controls.sh): with it, a
    // chunk's one-order result is kept whatever its lanes hold.
    lines.push("#if defined(AETHER_UNSAFE_LANES_NO_RECHECK)".into());
    lines.push("#  define AETHER_LANES_KEEP(finite) ((void)(finite), 1)".into());
    lines.push("#else".into());
    lines.push("#  define AETHER_LANES_KEEP(finite) (finite)".into());
    lines.push("#endif".into());
    lines.push("#if !defined(AETHER_LANES_CHUNK)".into());
    lines.push(format!("#  define AETHER_LANES_CHUNK {CHUNK_BLOCKS}"));
    lines.push("#endif".into());
    let mut printed = false;
    for t in &model.spec.types {
        let Some(step) = vector_step(model, lowered, t) else { continue };
        printed = true;
        let (v, width) = vector_elem(t);
        let (c, m) = (&v.c_type, mask_type(&v));
        let word = format!("int{}_t", t.bits);
        let pair = type_name(model, &red.pair, &v);
        let (hi, lo) = (component_name(model, &red.pair, 0), component_name(model, &red.pair, 1));
        lines.push(format!("typedef {} {c} __attribute__((vector_size({VECTOR_BYTES})));", t.c_type));
        lines.push(format!("typedef {word} {m} __attribute__((vector_size({VECTOR_BYTES})));"));
        lines.push(format!("typedef struct {pair} {{ {c} {hi}; {c} {lo}; }} {pair};"));
        // Macros, not functions: a vector passed or returned by value changes the ABI where the
        // target has no vector registers of that width (gcc and clang warn, -Wpsabi). The
        // barrier and the product guard: the vector pinned in its register with AVX (no
        // instruction), else its bits ORed with the opaque zero, lane by lane.
        lines.push(format!("#define {}(x) (({c})(({m})(x) | ({word})aether_opaque_zero()))", or_zero_name(&v)));
        lines.push("#if defined(AETHER_PIN_VECTOR)".into());
        for name in [barrier_name(&v), product_name(&v)] {
            lines.push(format!("#  define {name}(x) AETHER_PIN_VECTOR({c}, (x))"));
        }
        lines.push("#else".into());
        for name in [barrier_name(&v), product_name(&v)] {
            lines.push(format!("#  define {name}(x) {}(x)", or_zero_name(&v)));
        }
        lines.push("#endif".into());
        lines.push(format!("#define aether_select_{}(mask, x, y) (({c})((({m})(x) & (mask)) | (({m})(y) & ~(mask))))", v.name));
        let select = |cond: &str, x: &str, y: &str| format!("aether_select_{}({cond}, {x}, {y})", v.name);
        // With AVX the rule's last two choices are one instruction (x86's min and max,
        // `minmax_rule_with`): three operations where the written-out rule takes six (the f64
        // sums' step: 0.61 to 0.55 ns per element).
        let suffix = if t.bits == 32 { "ps" } else { "pd" };
        for (name, cmp, x86) in [("fmin", "<", "min"), ("fmax", ">", "max")] {
            let isnan = |x: &str| format!("({x} != {x})");
            let rule = parenthesize_ab(&minmax_rule(cmp, &isnan, &select));
            let native = |x: &str, y: &str| format!("({c})__builtin_ia32_{x86}{suffix}{}({x}, {y})", VECTOR_BYTES * 8);
            let avx = parenthesize_ab(&minmax_rule_with(cmp, &isnan, &select, Some(&native)));
            lines.push("#if defined(__AVX__)".into());
            lines.push(format!("#  define aether_{name}_{}(a, b) ({avx})", v.name));
            lines.push("#else".into());
            lines.push(format!("#  define aether_{name}_{}(a, b) ({rule})", v.name));
            lines.push("#endif".into());
        }
        // The step, through pointers (the same ABI reason): its body as printed for the scalar
        // type, with vector types, its result stored instead of returned.
        let print_step = |f: &Function, name: &str, lines: &mut Vec<String>| -> Option<()> {
            let mut params: Vec<String> = vec![format!("{} *aether_result", kind_type(model, &f.ret, &v))];
            params.extend(f.params.iter().map(|p| format!("const {} *{}", kind_type(model, &p.kind, &v), pointer_to(&p.name))));
            lines.push(format!("static __inline__ void {name}({})", params.join(", ")));
            lines.push("{".into());
            for p in &f.params {
                lines.push(format!("    const {} {} = *{};", kind_type(model, &p.kind, &v), p.name, pointer_to(&p.name)));
            }
            let mut body = print::body(&Dialect::C, model, f, &v);
            let last = body.pop().unwrap_or_default();
            let value = last.strip_prefix("return ")?;
            body.push(format!("*aether_result = {value}"));
            lines.extend(body.into_iter().map(|l| format!("    {l}")));
            lines.push("}".into());
            Some(())
        };
        if print_step(step, &vector_step_name(model, step, width), &mut lines).is_none() {
            return Vec::new();
        }
        if let Some(combine) = vector_combine(model, lowered, t) {
            if print_step(combine, &vector_step_name(model, combine, width), &mut lines).is_none() {
                return Vec::new();
            }
        }
        let Some(one) = one_order_step(step) else { continue };
        lines.push(format!(
            "/* {}'s two-sum residual in one operand order: the same bits wherever that order's residual is finite. */",
            vector_step_name(model, step, width)
        ));
        if print_step(&one, &one_order_name(model, step, width), &mut lines).is_none() {
            return Vec::new();
        }
        lines.push(format!("/* Whether every lane of p[0..count) is finite, {hi} and {lo} alike. */"));
        lines.push(format!("static __inline__ int {}(const {pair} *p, unsigned count)", finite_name(&pair)));
        lines.push("{".into());
        lines.push("    unsigned v, k;".into());
        lines.push(format!("    {word} all = -1;"));
        lines.push("    for (v = 0; v < count; ++v) {".into());
        lines.push(format!(
            "        const {m} e = {} & {};",
            finite_lanes(&v, &format!("p[v].{hi}")),
            finite_lanes(&v, &format!("p[v].{lo}"))
        ));
        lines.push(format!("        for (k = 0; k < {width}u; ++k) all &= e[k];"));
        lines.push("    }".into());
        lines.push("    return all != 0;".into());
        lines.push("}".into());
    }
    if !printed {
        return Vec::new();
    }
    lines.push("#endif".into());
    vec![Helper {
        doc: "The vector path of the lanes kernels (AETHER_LANES_SIMD): 32-byte GNU C vectors, the reduction's step printed \
              with vector types, its barrier and product guard the vector pinned in its register (AVX) or ORed with an opaque zero, fmin/fmax the one NaN rule as \
              lane masks; every vector lane does the scalar step's operations on the scalar lane's terms."
            .into(),
        lines,
    }]
}

/// The body of a strided lanes kernel with its vector path, from the scalar
/// body (`size_t aether_j;`, the loop over it): the scalar loop up to the first
/// lane-aligned element, whole blocks of `lanes` elements as vector steps,
/// the scalar loop for the rest. None where the kernel has no vector path.
pub fn lanes_body(model: &Model, lowered: &[Function], k: &Kernel, scalar: &[String]) -> Option<Vec<String>> {
    let red = model.spec.reduction.as_ref()?;
    let KernelKind::Lanes { arrays, term } = &k.kind else { return None };
    if red.assignment != crate::spec::Assignment::Strided {
        return None;
    }
    let t = model.spec.types.iter().find(|t| t.name == k.elem)?;
    let step = vector_step(model, lowered, t)?;
    let (v, width) = vector_elem(t);
    let lanes = red.lanes;
    if lanes % width != 0 {
        return None;
    }
    let vectors = lanes / width;
    // The scalar body is `size_t aether_j;`, `for (aether_j = 0; aether_j < aether_n; ++aether_j) {`, the loop's
    // statements, `}`.
    let (j, n) = (ELEMENT, COUNT);
    let (decl, open, close) = (scalar.first()?, scalar.get(1)?, scalar.last()?);
    if *decl != format!("size_t {j};") || *open != format!("for ({j} = 0; {j} < {n}; ++{j}) {{") || close != "}" {
        return None;
    }
    let each = &scalar[2..scalar.len() - 1];
    let pair = type_name(model, &red.pair, &v);
    let (hi, lo) = (component_name(model, &red.pair, 0), component_name(model, &red.pair, 1));
    // Every name here is `aether_...`: the spec's arrays are in scope.
    let (acc, fast, finite_var, v_, k_, i) = ("aether_acc", "aether_fast", "aether_finite", "aether_v", "aether_k", "aether_i");
    let mut b = vec![format!("size_t {j} = 0;")];
    b.push(format!("for (; {j} < {n} && ({FIRST} + {j}) % {lanes}u != 0u; ++{j}) {{"));
    b.extend(each.iter().cloned());
    b.push("}".into());
    b.push("#if defined(AETHER_LANES_SIMD)".into());
    b.push(format!("if ({n} - {j} >= {lanes}u) {{"));
    b.push(format!("    /* Lane {width}v + k of the contract is lane k of vector v. */"));
    let speculate = one_order_step(step).is_some();
    let finite = finite_name(&pair);
    b.push(format!("    {pair} {acc}[{vectors}];"));
    if speculate {
        b.push(format!("    {pair} {fast}[{vectors}];"));
        b.push(format!("    int {finite_var};"));
    }
    b.push(format!("    unsigned {v_}, {k_};"));
    b.push(format!("    size_t {i};"));
    b.push(format!("    for ({v_} = 0; {v_} < {vectors}u; ++{v_}) {{"));
    b.push(format!("        for ({k_} = 0; {k_} < {width}u; ++{k_}) {{"));
    b.push(format!("            {acc}[{v_}].{hi}[{k_}] = {LANES}[{width}u * {v_} + {k_}].{hi};"));
    b.push(format!("            {acc}[{v_}].{lo}[{k_}] = {LANES}[{width}u * {v_} + {k_}].{lo};"));
    b.push("        }".into());
    b.push("    }".into());
    // Element j's vector of array `p`: `aether_v_<p>`.
    let value = |p: &str| format!("aether_v_{p}");
    let stmts = crate::targets::shared::c_family::lane_term_with(term, &v, &|p| value(p), &Dialect::C);
    let term_lines = crate::targets::shared::stmt::block(&Dialect::C, model, &v, &stmts);
    // The blocks from j to `end`, each vector step by `step_name` on `state`.
    let blocks = |b: &mut Vec<String>, indent: &str, end: &str, step_name: &str, state: &str| {
        b.push(format!("{indent}for ({i} = {j}; {i} < {end}; {i} += {lanes}u) {{"));
        b.push(format!("{indent}    for ({v_} = 0; {v_} < {vectors}u; ++{v_}) {{"));
        for a in arrays {
            let av = value(a);
            b.push(format!("{indent}        {} {av};", v.c_type));
            b.push(format!("{indent}        memcpy(&{av}, {a} + {i} + {width}u * {v_}, sizeof {av});"));
        }
        b.push(format!("{indent}        {{"));
        b.extend(term_lines.iter().map(|l| format!("{indent}            {l}")));
        b.push(format!("{indent}            {step_name}(&{state}[{v_}], &{state}[{v_}], &{TERM});"));
        b.push(format!("{indent}        }}"));
        b.push(format!("{indent}    }}"));
        b.push(format!("{indent}}}"));
    };
    let whole = vector_step_name(model, step, width);
    if speculate {
        b.push(format!("    {finite_var} = {finite}({acc}, {vectors}u);"));
        b.push(format!("    while ({n} - {j} >= {lanes}u) {{"));
        b.push("        /* A chunk of up to AETHER_LANES_CHUNK blocks. While every lane is finite it runs first with the step's".into());
        b.push("           two-sum residual in one operand order; that result is kept where every lane ends finite (the".into());
        b.push("           same bits as the whole step's), and otherwise the chunk runs again from acc with the whole step. */".into());
        b.push(format!("        const size_t aether_blocks = ({n} - {j}) / {lanes}u, aether_chunk = (size_t)AETHER_LANES_CHUNK;"));
        b.push(format!(
            "        const size_t aether_end = {j} + {lanes}u * (aether_blocks < aether_chunk ? aether_blocks : aether_chunk);"
        ));
        b.push(format!("        if ({finite_var}) {{"));
        b.push(format!("            for ({v_} = 0; {v_} < {vectors}u; ++{v_}) {fast}[{v_}] = {acc}[{v_}];"));
        blocks(&mut b, "            ", "aether_end", &one_order_name(model, step, width), fast);
        b.push(format!("            {finite_var} = AETHER_LANES_KEEP({finite}({fast}, {vectors}u));"));
        b.push(format!("            if ({finite_var}) for ({v_} = 0; {v_} < {vectors}u; ++{v_}) {acc}[{v_}] = {fast}[{v_}];"));
        b.push("        }".into());
        b.push(format!("        if (!{finite_var}) {{"));
        blocks(&mut b, "            ", "aether_end", &whole, acc);
        b.push(format!("            {finite_var} = {finite}({acc}, {vectors}u);"));
        b.push("        }".into());
        b.push(format!("        {j} = aether_end;"));
        b.push("    }".into());
    } else {
        blocks(&mut b, "    ", &format!("{j} + {lanes}u * (({n} - {j}) / {lanes}u)"), &whole, acc);
        b.push(format!("    {j} += {lanes}u * (({n} - {j}) / {lanes}u);"));
    }
    b.push(format!("    for ({v_} = 0; {v_} < {vectors}u; ++{v_}) {{"));
    b.push(format!("        for ({k_} = 0; {k_} < {width}u; ++{k_}) {{"));
    b.push(format!("            {LANES}[{width}u * {v_} + {k_}].{hi} = {acc}[{v_}].{hi}[{k_}];"));
    b.push(format!("            {LANES}[{width}u * {v_} + {k_}].{lo} = {acc}[{v_}].{lo}[{k_}];"));
    b.push("        }".into());
    b.push("    }".into());
    b.push("}".into());
    b.push("#endif".into());
    b.push(format!("for (; {j} < {n}; ++{j}) {{"));
    b.extend(each.iter().cloned());
    b.push("}".into());
    Some(b)
}

/// The vector path of the butterfly (halving rounds only, lane 0 returned): the rounds whose
/// partner is whole vectors away run as vector merges of vector q with vector q + m / width,
/// lane by lane the scalar rounds' merges of lane i with lane i + m; the rounds within a vector
/// then run as the scalar loop on the first vector's lanes. `v` is the scalar body's array of
/// pairs, `r` and `i` its indices; the lines return lane 0. None where the butterfly has no
/// vector path.
pub fn butterfly_body(model: &Model, lowered: &[Function], elem: &ElemType) -> Option<Vec<String>> {
    let red = model.spec.reduction.as_ref()?;
    let combine = vector_combine(model, lowered, elem)?;
    let (v, width) = vector_elem(elem);
    let pair = type_name(model, &red.pair, &v);
    let (hi, lo) = (component_name(model, &red.pair, 0), component_name(model, &red.pair, 1));
    let lanes = red.lanes;
    let vector_rounds = red.rounds.iter().take_while(|&&m| m >= width && m % width == 0).count();
    if lanes % width != 0 || vector_rounds == 0 {
        return None;
    }
    let name = vector_step_name(model, combine, width);
    let mut b = vec!["#if defined(AETHER_LANES_SIMD)".to_string(), "{".into()];
    b.push(format!("    /* Lane {width}q + k of the contract is lane k of vector q. */"));
    b.push(format!("    {pair} vec[{}];", lanes / width));
    b.push("    unsigned q, k;".into());
    b.push(format!("    for (q = 0; q < {}u; ++q) {{", lanes / width));
    b.push(format!("        for (k = 0; k < {width}u; ++k) {{"));
    b.push(format!("            vec[q].{hi}[k] = lanes[{width}u * q + k].{hi};"));
    b.push(format!("            vec[q].{lo}[k] = lanes[{width}u * q + k].{lo};"));
    b.push("        }".into());
    b.push("    }".into());
    for &m in &red.rounds[..vector_rounds] {
        let apart = m / width;
        b.push(format!("    for (q = 0; q < {apart}u; ++q) {name}(&vec[q], &vec[q], &vec[q + {apart}u]);"));
    }
    b.push(format!("    for (k = 0; k < {width}u; ++k) {{"));
    b.push(format!("        v[k].{hi} = vec[0].{hi}[k];"));
    b.push(format!("        v[k].{lo} = vec[0].{lo}[k];"));
    b.push("    }".into());
    b.push(format!("    for (r = {vector_rounds}u; r < {}u; ++r) {{", red.rounds.len()));
    b.push(format!("        for (i = 0; i < rounds[r]; ++i) v[i] = {}(v[i], v[i ^ rounds[r]]);", model.c_name(combine)));
    b.push("    }".into());
    b.push("    return v[0];".into());
    b.push("}".into());
    b.push("#endif".into());
    Some(b)
}

/// `text` with every identifier `a` and `b` (a macro's parameters) in parentheses.
fn parenthesize_ab(text: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if word == "a" || word == "b" {
            out.push_str(&format!("({word})"));
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for ch in text.chars() {
        if ch.is_ascii_alphanumeric() || ch == '_' {
            word.push(ch);
        } else {
            flush(&mut word, &mut out);
            out.push(ch);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macro_parameters_are_parenthesized_and_nothing_else() {
        assert_eq!(parenthesize_ab("f(a != a, b, ab > b_a)"), "f((a) != (a), (b), ab > b_a)");
    }

    /// The C core's lanes kernels of both element types have the vector path,
    /// and its step is the scalar step's body with vector types.
    #[test]
    fn every_strided_lanes_kernel_has_the_vector_path() {
        let m = crate::load(&crate::default_root()).expect("the spec loads");
        let lowered = m.lowered();
        let helpers = helpers(&m, &lowered).into_iter().flat_map(|h| h.lines).collect::<Vec<_>>().join("\n");
        for t in ["f32x8", "f64x4"] {
            assert!(helpers.contains(&format!("aether_barrier_{t}(s)")), "{t}: the step's barrier");
        }
        let lanes: Vec<_> = m.kernels.iter().filter(|k| matches!(k.kind, KernelKind::Lanes { .. })).collect();
        assert!(lanes.len() >= 4);
        for k in lanes {
            let body = crate::targets::shared::c_family::kernel(&m, k, &Dialect::C).body.join("\n");
            assert!(body.contains("#if defined(AETHER_LANES_SIMD)"), "{}", m.kernel_c_name(k));
            assert!(body.contains("% 32u != 0u"), "{}: the scalar prefix up to a lane-aligned element", m.kernel_c_name(k));
            assert!(
                body.contains("_one_order(&aether_fast[aether_v]") && body.contains("AETHER_LANES_KEEP("),
                "{}: the one-order chunks",
                m.kernel_c_name(k)
            );
        }
    }

    /// The butterfly's vector path: the rounds whose partner is whole vectors away (16 and 8 for
    /// binary32's eight lanes, 16, 8 and 4 for binary64's four), then the scalar rounds from the
    /// first one within a vector.
    #[test]
    fn the_butterfly_merges_whole_vectors_first() {
        let m = crate::load(&crate::default_root()).expect("the spec loads");
        let lowered = m.lowered();
        for (t, rounds, first_scalar) in
            [("f32", ["4u; ++q", "2u; ++q", "1u; ++q"], "r = 2u;"), ("f64", ["8u; ++q", "4u; ++q", "2u; ++q"], "r = 3u;")]
        {
            let elem = m.spec.types.iter().find(|e| e.name == t).expect("the type");
            let body = butterfly_body(&m, &lowered, elem).expect("a vector path").join("\n");
            // The vectors loaded, then the merges of vector q with q + 2 and q + 1 (binary32), q + 4, q + 2 and q + 1 (binary64).
            assert!(body.contains(rounds[0]), "{t}: {body}");
            assert!(body.contains(&format!("for (q = 0; q < {}", rounds[1])), "{t}: {body}");
            assert!(body.contains(&format!("for (q = 0; q < {}", rounds[2])), "{t}: {body}");
            assert!(body.contains(first_scalar), "{t}: {body}");
            let merges = body.lines().filter(|l| l.contains("(&vec[q], &vec[q], &vec[q + ")).count();
            assert_eq!(merges, if t == "f32" { 2 } else { 3 }, "{t}: one vector merge per round whole vectors apart");
        }
    }

    /// The one-order step is the whole step with `fmax(ab, ba)` as `ab`, found only where the
    /// fmax's operands are the two-sum residual in both operand orders.
    #[test]
    fn the_one_order_step_replaces_the_two_sum_fmax_alone() {
        let m = crate::load(&crate::default_root()).expect("the spec loads");
        let lowered = m.lowered();
        for t in &m.spec.types {
            let step = vector_step(&m, &lowered, t).expect("a vector step");
            let one = one_order_step(step).expect("the step's fmax is the two-sum's");
            let mut calls = 0;
            one.exprs().for_each(|e| e.visit(&mut |n| calls += usize::from(matches!(n, Expr::Call(Builtin::Fmax | Builtin::Fmin, _)))));
            assert_eq!(calls, 0);
            assert!(one.temps.len() < step.temps.len(), "the second order's operations are dropped");
            let (ab, ba) = step_residuals(step).expect("one fmax of two operands");
            let (x, y) = two_sum_orders(&ab, &ba).expect("the residual in both orders");
            assert_ne!(x, y);
            let (ab, ba) = (&ab, &ba);
            assert!(two_sum_orders(ab, ab).is_none() && two_sum_orders(ba, ba).is_none(), "one order twice");
        }
    }
}

/// The one-order step's premise (`one_order_step`): wherever a finite sum's two-sum residual in
/// the first order is finite, the second order gives the same number or NaN, never +inf, so
/// fmax of the two is the first. Exhaustively over small binary formats (round to nearest, ties
/// to even, subnormals, overflow to infinity), and on binary32 and binary64 near the top of their
/// range, where the spurious overflows live. Each test evaluates the spec's own residual trees,
/// the ones the generator matched (`spec_residuals`), so the premise shown is that of the code
/// the kernels run, not of a formula written here again.
#[cfg(test)]
mod one_order_premise {
    use crate::dsl::BinOp;
    use crate::model::{Builtin, Expr};

    /// For each element type, the spec's two residuals as [`super::one_order_step`] matched
    /// them, and their operands x and y.
    fn spec_residuals() -> Vec<(String, Expr, Expr, Expr, Expr)> {
        let m = crate::load(&crate::default_root()).expect("the spec loads");
        let lowered = m.lowered();
        m.spec
            .types
            .iter()
            .map(|t| {
                let step = super::vector_step(&m, &lowered, t).expect("a vector step");
                let (ab, ba) = super::step_residuals(step).expect("the step's fmax");
                let (x, y) = super::two_sum_orders(&ab, &ba).expect("the two-sum residual in both orders");
                (t.name.clone(), ab, ba, x, y)
            })
            .collect()
    }

    /// `e` evaluated with x as `a` and y as `b`, by the arithmetic `add` and `sub` (a barrier
    /// is the identity): the spec's tree itself, not a copy of its formula.
    fn eval<T: Copy>(e: &Expr, (x, y): (&Expr, &Expr), (a, b): (T, T), add: &dyn Fn(T, T) -> T, sub: &dyn Fn(T, T) -> T) -> T {
        match e {
            e if e == x => a,
            e if e == y => b,
            Expr::Bin(op, l, r) => {
                let (l, r) = (eval(l, (x, y), (a, b), add, sub), eval(r, (x, y), (a, b), add, sub));
                match op {
                    BinOp::Add => add(l, r),
                    BinOp::Sub => sub(l, r),
                    other => panic!("the residual has only sums and differences, not {other:?}"),
                }
            }
            Expr::Call(Builtin::Barrier, args) if args.len() == 1 => eval(&args[0], (x, y), (a, b), add, sub),
            other => panic!("a leaf that is neither operand: {other:?}"),
        }
    }

    /// A value of a small binary format: a finite one as an integer count of its smallest
    /// subnormal, or an infinity, or NaN.
    #[derive(Clone, Copy, PartialEq, Debug)]
    enum V {
        Fin(i64),
        Inf(bool),
        Nan,
    }

    /// A binary format of `p` significand bits and normal exponents `emin..=emax`.
    struct Format {
        p: u32,
        emin: i32,
        emax: i32,
    }

    impl Format {
        /// The largest finite value, in smallest subnormals.
        fn max(&self) -> i64 {
            ((1i64 << self.p) - 1) << (self.emax - self.emin)
        }

        /// `n` smallest subnormals rounded to the format.
        fn round(&self, n: i64) -> V {
            let a = n.unsigned_abs();
            let bits = 64 - a.leading_zeros();
            let shift = bits.saturating_sub(self.p);
            let q = a >> shift;
            let rest = a - (q << shift);
            let half = if shift == 0 { 0 } else { 1u64 << (shift - 1) };
            let up = shift > 0 && (rest > half || (rest == half && q & 1 == 1));
            let r = ((q + u64::from(up)) << shift) as i64;
            if r > self.max() {
                V::Inf(n < 0)
            } else {
                V::Fin(if n < 0 { -r } else { r })
            }
        }

        fn add(&self, a: V, b: V) -> V {
            match (a, b) {
                (V::Nan, _) | (_, V::Nan) => V::Nan,
                (V::Inf(x), V::Inf(y)) if x != y => V::Nan,
                (V::Inf(x), _) | (_, V::Inf(x)) => V::Inf(x),
                (V::Fin(x), V::Fin(y)) => self.round(x + y),
            }
        }

        fn sub(&self, a: V, b: V) -> V {
            let neg = match b {
                V::Fin(y) => V::Fin(-y),
                V::Inf(y) => V::Inf(!y),
                V::Nan => V::Nan,
            };
            self.add(a, neg)
        }

        /// Every finite value, each zero once.
        fn values(&self) -> Vec<V> {
            let mut v = vec![V::Fin(0)];
            for e in self.emin..=self.emax {
                let (lo, ulp) = if e == self.emin { (1, 1) } else { (1i64 << (self.p - 1), 1i64 << (e - self.emin)) };
                for m in lo..(1i64 << self.p) {
                    v.push(V::Fin(m * ulp));
                    v.push(V::Fin(-m * ulp));
                }
            }
            v
        }
    }

    /// `v` as a binary64 value: exact, the small formats' values being small multiples of
    /// their smallest subnormal (each zero is one value there).
    fn wide(v: V) -> f64 {
        match v {
            V::Fin(x) => x as f64,
            V::Inf(true) => f64::NEG_INFINITY,
            V::Inf(false) => f64::INFINITY,
            V::Nan => f64::NAN,
        }
    }

    #[test]
    fn one_order_premise_holds_in_every_small_binary_format() {
        let (mut pairs, mut first_nan, mut second_nan) = (0, 0, 0);
        let formats = [(2, -1, 2), (3, -2, 3), (4, -3, 4), (5, -2, 5), (6, -3, 3), (7, -2, 2)];
        for ((_, ab_tree, ba_tree, x, y), (p, emin, emax)) in spec_residuals().iter().flat_map(|r| formats.iter().map(move |&f| (r, f))) {
            let f = Format { p, emin, emax };
            let (add, sub) = (|a, b| f.add(a, b), |a, b| f.sub(a, b));
            let values = f.values();
            for &a in &values {
                for &b in &values {
                    let s = f.add(a, b);
                    if !matches!(s, V::Fin(_)) {
                        continue;
                    }
                    pairs += 1;
                    let (ab, ba) = (eval(ab_tree, (x, y), (a, b), &add, &sub), eval(ba_tree, (x, y), (a, b), &add, &sub));
                    first_nan += usize::from(ab == V::Nan);
                    second_nan += usize::from(ba == V::Nan);
                    if let V::Fin(_) = ab {
                        assert!(ba == ab || ba == V::Nan, "p {p}, emin {emin}, emax {emax}: {a:?} + {b:?}: {ab:?} and {ba:?}");
                        // The step's fmax(ab, ba) is ab: fmax as the reference states it.
                        assert_eq!(aether_reference::scalar::fmax(wide(ab), wide(ba)), wide(ab));
                    }
                }
            }
        }
        // Each order overflows spuriously somewhere: both are needed, and the check sees it.
        assert!(pairs > 0 && first_nan > 0 && second_nan > 0, "{pairs} sums, {first_nan} / {second_nan} NaN residuals");
    }

    fn near_top<T>(max: T, ulp_of_max: T, scale: &dyn Fn(T, f64) -> T) -> Vec<T>
    where
        T: Copy + std::ops::Neg<Output = T> + std::ops::Sub<Output = T>,
    {
        let mut v = Vec::new();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..20_000u64 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let r = (state >> 11) as f64 / (1u64 << 53) as f64;
            let x = match i % 3 {
                0 => max - scale(ulp_of_max, (r * 64.0).floor()),
                1 => scale(max, 0.5 + r / 2.0),
                _ => scale(max, r),
            };
            v.push(if state & 1 == 0 { x } else { -x });
        }
        v
    }

    #[test]
    fn one_order_premise_holds_near_the_top_of_binary32_and_binary64() {
        macro_rules! check {
            ($t:ty) => {{
                let residuals = spec_residuals();
                let (_, ab_tree, ba_tree, x, y) = residuals.iter().find(|r| r.0 == stringify!($t)).expect("the type's residuals");
                let (add, sub) = (|a: $t, b: $t| a + b, |a: $t, b: $t| a - b);
                let max = <$t>::MAX;
                let ulp = max - <$t>::from_bits(max.to_bits() - 1);
                let values = near_top(max, ulp, &|x: $t, k: f64| x * k as $t);
                let mut nans = 0;
                for w in values.chunks(2) {
                    let (a, b) = (w[0], w[1]);
                    if !(a + b).is_finite() {
                        continue;
                    }
                    let (ab, ba) = (eval(ab_tree, (x, y), (a, b), &add, &sub), eval(ba_tree, (x, y), (a, b), &add, &sub));
                    nans += usize::from(ab.is_nan() || ba.is_nan());
                    if ab.is_finite() {
                        assert!(ba.is_nan() || ba == ab, "{a:e} + {b:e}: {ab:e} and {ba:e}");
                        assert_eq!(aether_reference::scalar::fmax(ab, ba), ab, "{a:e} + {b:e}: the step's fmax is ab");
                    }
                }
                // The spec's case: -1.5 ulp(max) + max.
                let (a, b) = (-1.5 * ulp, max);
                assert!(eval(ab_tree, (x, y), (a, b), &add, &sub).is_nan(), "the first order's spurious overflow");
                nans
            }};
        }
        let seen = check!(f32) + check!(f64);
        assert!(seen > 0, "no spurious overflow near the top");
    }
}
