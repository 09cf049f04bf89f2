//! The integer predicates in CUDA: the header's dialect (the C header's,
//! with CUDA's qualifiers and each rounded operation of a golden form its
//! round-to-nearest intrinsic on the device) and the check program.

use std::fmt::Write;

use crate::dsl::BinOp;

use crate::model::Model;
use crate::targets::shared::c_family::predicate_check;
use crate::targets::shared::c_family::predicates::{rounded_verb, PredicateDialect, STDINT_PREAMBLE};

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
/// (`cuda_core/check/aether_predicate_check.cu`): the C family's GPU check
/// program (`shared::c_family::predicate_check`) over the CUDA header.
pub fn cuda_check(model: &Model, banner: &str) -> String {
    predicate_check::program(model, PREDICATES, "aether_predicate.cuh", "CUDA", banner)
}
