//! The integer predicates in CUDA: the header's dialect (the C header's,
//! with CUDA's qualifiers and each rounded operation of a golden form its
//! round-to-nearest intrinsic on the device) and the check program.

use std::fmt::Write;

use crate::dsl::BinOp;

use crate::model::Model;
use crate::predicate::{Form, Predicate};
use crate::targets::shared::c_family::predicates::{rounded_verb, CSpell, PredicateDialect, STDINT_PREAMBLE};
use crate::targets::shared::predicates::{predicate_name, Spell};

/// How the CUDA core prints the integer predicates.
pub const PREDICATES: PredicateDialect = PredicateDialect {
    guard: "AETHER_PREDICATE_CUH",
    qual: "static __host__ __device__ inline",
    preamble: STDINT_PREAMBLE,
    helpers: Some(cuda_ops),
    builtin_ints: false,
    hex_floats: true,
    rounded_calls: true,
    convert_rte: false,
    builtin_clz: false,
    golden_if: "#if !defined(AETHER_PREDICATE_NO_FLOAT)",
    program_scope_tables: false,
};

/// The CUDA core's rounded operations and integer narrowings of the
/// predicates: the `_rn` intrinsics on the device, plain C on the host.
fn cuda_ops() -> String {
    let mut s = String::from("/* Each rounded operation of a golden form: the round-to-nearest intrinsic on the device (never\n   contracted), the plain operator on the host. */\n");
    for (t, l) in [("f32", ("float", "f")), ("f64", ("double", "d"))] {
        for op in [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div] {
            let v = rounded_verb(op);
            let intr = if t == "f32" && op == BinOp::Div { "__fdiv_rn".to_string() } else { format!("__{}{v}_rn", l.1) };
            let _ = writeln!(
                s,
                "static __host__ __device__ inline {ty} aether_pred_{v}_{t}({ty} a, {ty} b) {{\n#if defined(__CUDA_ARCH__)\n    return {intr}(a, b);\n#else\n    return a {} b;\n#endif\n}}",
                op.symbol(),
                ty = l.0
            );
        }
        for (i, c, intr) in [("i64", "int64_t", "ll"), ("i32", "int32_t", "int")] {
            let _ = writeln!(
                s,
                "static __host__ __device__ inline {ty} aether_pred_{i}_to_{t}({c} x) {{\n#if defined(__CUDA_ARCH__)\n    return __{intr}2{}_rn(x);\n#else\n    return ({ty})x;\n#endif\n}}",
                if t == "f32" { "float" } else { "double" },
                ty = l.0
            );
        }
    }
    s.push('\n');
    s
}

/// The CUDA check program of the predicates
/// (`cuda_core/check/aether_predicate_check.cu`): one `__global__` kernel
/// per form (`aether_pcheck_<name>_<form>`, for the PTX check: its
/// floating-point instructions must all be the `_rn` ones), and a host
/// `main` that runs both forms through the CUDA header's host path on every
/// case of the predicates' corpus parts, printing one line and returning 1
/// on a mismatch.
pub fn cuda_check(model: &Model, banner: &str) -> String {
    let preds = &model.spec.predicates;
    let mut s = format!("{banner}\n#include <stdio.h>\n#include \"aether_predicate.cuh\"\n");
    for p in &preds.predicates {
        let _ = writeln!(s, "#include \"predicate_{}.h\"", p.name);
    }
    s.push('\n');
    let sp = CSpell { d: PREDICATES, preds, f32: &model.spec.types[0], f64: &model.spec.types[0] };
    let args = |p: &Predicate, src: &str| -> String {
        p.params.iter().enumerate().map(|(k, q)| format!("({})(int64_t){src}[{k}]", sp.ty(q.ty))).collect::<Vec<_>>().join(", ")
    };
    for p in &preds.predicates {
        for form in Form::BOTH {
            let _ = writeln!(
                s,
                "__global__ void aether_pcheck_{name}_{f}(const unsigned long long *in, int *out, unsigned n) {{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned long long *a = in + (size_t)i * {n_in}u;
    out[i] = {callee}({args});
}}
",
                name = p.name,
                f = form.name(),
                n_in = p.params.len(),
                callee = predicate_name(&p.name, form),
                args = args(p, "a")
            );
        }
    }
    s.push_str("int main(void) {\n    unsigned cases = 0, bad = 0, k;\n");
    for p in &preds.predicates {
        let table = format!("aether_corpus_predicate_{}", p.name);
        let n = p.params.len();
        let _ = writeln!(
            s,
            "    for (k = 0; k < sizeof {table} / sizeof {table}[0]; k++) {{
        const uint64_t *a = {table}[k];
        const int want = (int)a[{n}];
        cases++;
        if ({g}({args}) != want || {i}({args}) != want) {{
            bad++;
            printf(\"aether_predicate_check: {name} case %u: the host path disagrees with the corpus\\n\", k);
        }}
    }}",
            g = predicate_name(&p.name, Form::Golden),
            i = predicate_name(&p.name, Form::Integer),
            args = args(p, "a"),
            name = p.name
        );
    }
    s.push_str(
        "    printf(\"aether_predicate_check: %u corpus cases, both forms of every predicate on the CUDA header's host path: %u mismatches\\n\", cases, bad);
    k = (unsigned)aether_predicate_selftest();
    printf(\"aether_predicate_check: aether_predicate_selftest() on the host path: %u wrong answers\\n\", k);
    return bad != 0 || k != 0;
}
",
    );
    s
}
