//! The integer predicates in OpenCL C: the dialect of the core's predicate
//! file (built-in integer types, `clz` and `convert_<type>_rte`, the golden
//! forms only under `cl_khr_fp64`) and the check program.

use std::fmt::Write;

use crate::model::Model;
use crate::predicate::{Form, PTy};
use crate::targets::shared::c_family::predicates::{c_family, PredicateDialect};
use crate::targets::shared::predicates::predicate_name;

/// How the OpenCL core prints the integer predicates.
pub const PREDICATES: PredicateDialect = PredicateDialect {
    guard: "AETHER_PREDICATE_CL",
    qual: "static inline",
    preamble: "/* The spec's predicates in OpenCL C: each decision in two forms that return the same answer
   on every input of its domain. The integer forms (aether_<name>_integer) use no floating
   point, so a device without cl_khr_fp64 runs them; the golden forms need binary64 and are
   compiled only under cl_khr_fp64 (and left out when AETHER_NO_FP64 is defined). Integer to
   float conversions are spelled convert_<type>_rte. Results are 1 or 0. */
#if defined(cl_khr_fp64) && !defined(AETHER_NO_FP64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define AETHER_PREDICATE_GOLDEN 1
#endif
#pragma OPENCL FP_CONTRACT OFF

",
    helpers: None,
    builtin_ints: true,
    hex_floats: true,
    rounded_calls: false,
    convert_rte: true,
    builtin_clz: true,
    golden_if: "#if defined(AETHER_PREDICATE_GOLDEN)",
    program_scope_tables: true,
};

/// The OpenCL check program of the predicates: the core's predicate file,
/// then one kernel per form, `aether_pcheck_<name>_<form>(in, out, n)`: work
/// item i reads its arguments as `long` words at `in[i * n_in]` and writes
/// the answer to `out[i]`. The golden kernels exist only where binary64 does.
pub fn opencl_check(model: &Model, banner: &str) -> String {
    let preds = &model.spec.predicates;
    let mut s = c_family(model, PREDICATES, banner);
    s.push_str("\n/* The check kernels of the predicates (the host: aether-opencl). */\n");
    s.push_str("__kernel void aether_pcheck_selftest(__global int *out) {\n    if (get_global_id(0) == 0) out[0] = aether_predicate_selftest();\n}\n");
    for p in &preds.predicates {
        for form in Form::BOTH {
            let golden = p.uses_float(preds, form);
            if golden {
                s.push_str("#if defined(AETHER_PREDICATE_GOLDEN)\n");
            }
            let n = p.params.len();
            let args: Vec<String> = p
                .params
                .iter()
                .enumerate()
                .map(|(k, q)| match q.ty {
                    PTy::Int(t) if t.bits == 32 => format!("({})a[{k}]", if t.signed { "int" } else { "uint" }),
                    _ => format!("a[{k}]"),
                })
                .collect();
            let _ = writeln!(
                s,
                "__kernel void aether_pcheck_{name}_{f}(__global const long *in, __global int *out, uint n) {{
    const size_t i = get_global_id(0);
    if (i >= n) return;
    __global const long *a = in + i * {n};
    out[i] = {callee}({args});
}}",
                name = p.name,
                f = form.name(),
                callee = predicate_name(&p.name, form),
                args = args.join(", ")
            );
            if golden {
                s.push_str("#endif\n");
            }
        }
    }
    s
}
