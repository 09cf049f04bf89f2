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

use super::c::{barrier_name, component_name, kind_type, minmax_rule, minmax_rule_with, product_name, type_name, Dialect, Helper};
use super::print;
use crate::dsl::BinOp;
use crate::model::{Expr, Function, Kernel, KernelKind, Model};
use crate::spec::ElemType;

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

/// The reduction's step of element type `t`, when it can be printed with
/// vector types: straight-line arithmetic, barriers and fmin/fmax (no
/// choice or comparison, which C spells differently for vectors).
fn vector_step<'a>(model: &Model, lowered: &'a [Function], t: &ElemType) -> Option<&'a Function> {
    let red = model.spec.reduction.as_ref()?;
    let f = lowered.iter().find(|f| f.family == red.step && f.elem == t.name)?;
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
    for t in &model.spec.types {
        let Some(step) = vector_step(model, lowered, t) else { continue };
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
        let mut params: Vec<String> = vec![format!("{} *aether_result", kind_type(model, &step.ret, &v))];
        params.extend(step.params.iter().map(|p| format!("const {} *aether_{}", kind_type(model, &p.kind, &v), p.name)));
        lines.push(format!("static __inline__ void {}({})", vector_step_name(model, step, width), params.join(", ")));
        lines.push("{".into());
        for p in &step.params {
            lines.push(format!("    const {} {} = *aether_{};", kind_type(model, &p.kind, &v), p.name, p.name));
        }
        let mut body = print::body(&Dialect::C, model, step, &v);
        let last = body.pop().unwrap_or_default();
        let Some(value) = last.strip_prefix("return ") else { return Vec::new() };
        body.push(format!("*aether_result = {value}"));
        lines.extend(body.into_iter().map(|l| format!("    {l}")));
        lines.push("}".into());
    }
    if lines.len() == 1 {
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
/// body (`size_t j;`, the loop over `j`): the scalar loop up to the first
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
    // The scalar body is `size_t j;`, `for (j = 0; j < n; ++j) {`, the loop's statements, `}`.
    let (decl, open, close) = (scalar.first()?, scalar.get(1)?, scalar.last()?);
    if decl != "size_t j;" || open != "for (j = 0; j < n; ++j) {" || close != "}" {
        return None;
    }
    let each = &scalar[2..scalar.len() - 1];
    let pair = type_name(model, &red.pair, &v);
    let (hi, lo) = (component_name(model, &red.pair, 0), component_name(model, &red.pair, 1));
    let mut b = vec!["size_t j = 0;".to_string()];
    b.push(format!("for (; j < n && (first + j) % {lanes}u != 0u; ++j) {{"));
    b.extend(each.iter().cloned());
    b.push("}".into());
    b.push("#if defined(AETHER_LANES_SIMD)".into());
    b.push(format!("if (n - j >= {lanes}u) {{"));
    b.push(format!("    /* Lane {width}v + k of the contract is lane k of vector v. */"));
    b.push(format!("    {pair} acc[{vectors}];"));
    b.push("    unsigned v, k;".into());
    b.push(format!("    for (v = 0; v < {vectors}u; ++v) {{"));
    b.push(format!("        for (k = 0; k < {width}u; ++k) {{"));
    b.push(format!("            acc[v].{hi}[k] = lanes[{width}u * v + k].{hi};"));
    b.push(format!("            acc[v].{lo}[k] = lanes[{width}u * v + k].{lo};"));
    b.push("        }".into());
    b.push("    }".into());
    b.push(format!("    for (; n - j >= {lanes}u; j += {lanes}u) {{"));
    b.push(format!("        for (v = 0; v < {vectors}u; ++v) {{"));
    for a in arrays {
        b.push(format!("            {} {a}_v;", v.c_type));
        b.push(format!("            memcpy(&{a}_v, {a} + j + {width}u * v, sizeof {a}_v);"));
    }
    b.push("            {".into());
    let stmts = super::c::lane_term_with(term, &v, &|p| format!("{p}_v"), &Dialect::C);
    let term_lines = super::stmt::block(&Dialect::C, model, &v, &stmts);
    b.extend(term_lines.iter().map(|l| format!("                {l}")));
    b.push(format!("                {}(&acc[v], &acc[v], &term);", vector_step_name(model, step, width)));
    b.push("            }".into());
    b.push("        }".into());
    b.push("    }".into());
    b.push(format!("    for (v = 0; v < {vectors}u; ++v) {{"));
    b.push(format!("        for (k = 0; k < {width}u; ++k) {{"));
    b.push(format!("            lanes[{width}u * v + k].{hi} = acc[v].{hi}[k];"));
    b.push(format!("            lanes[{width}u * v + k].{lo} = acc[v].{lo}[k];"));
    b.push("        }".into());
    b.push("    }".into());
    b.push("}".into());
    b.push("#endif".into());
    b.push("for (; j < n; ++j) {".into());
    b.extend(each.iter().cloned());
    b.push("}".into());
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
            let body = super::super::c::kernel(&m, k, &Dialect::C).body.join("\n");
            assert!(body.contains("#if defined(AETHER_LANES_SIMD)"), "{}", m.kernel_c_name(k));
            assert!(body.contains("% 32u != 0u"), "{}: the scalar prefix up to a lane-aligned element", m.kernel_c_name(k));
        }
    }
}
