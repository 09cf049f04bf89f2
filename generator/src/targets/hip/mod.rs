//! The HIP core beside `c_core`: `hip_core/aether_core.hip.h` (header-only,
//! every function `__host__ __device__`, for AMD GPUs through hipcc),
//! `hip_core/aether_predicate.hip.h` (the integer predicates) and
//! `hip_core/check/` (a kernel per callable for the static check of the
//! AMD GPU ISA, `scripts/hip-static.sh`, and the predicates' check program).
//!
//! The functions are the C core's, printed by the same printers
//! (`c::function`, `c::kernel`, `targets::linalg`) in the `Calls` dialect:
//! every rounded operation is a call to a wrapper. HIP's `_rn` intrinsics do
//! not hold on AMD GPUs: ROCm's `__fmul_rn` and `__fadd_rn` are the plain
//! operators, which clang's HIP default `-ffp-contract=fast-honor-pragmas`
//! fuses into `v_fmac_f32` once inlined (and `__fsqrt_rn` is the
//! approximate `__ocml_native_sqrt_f32`). So each wrapper is the plain
//! operation under `#pragma clang fp contract(off)` in its own body (the
//! pragma is block-scoped: nothing leaks into the includer), and each
//! product passes the C core's contraction guard, an empty asm statement
//! that pins it in a register (a VGPR on the device), which holds under
//! `-ffp-contract=fast` too, where clang disregards the pragma.

use std::fmt::Write;

use minijinja::context;
use serde::Serialize;

use crate::corpus::FunctionCases;
use crate::dsl::BinOp;
use crate::error::Error;
use crate::model::{Callable, Function, Model};
use crate::spec::ElemType;
use crate::targets::shared::c_family::flat::{self as c_flat, ThunkStyle};
use crate::targets::shared::c_family::predicates::{rounded_verb, PredicateDialect, STDINT_PREAMBLE};
use crate::targets::shared::c_family::{self as c, Arith, CFunction, Dialect, Helper};
use crate::targets::{render, Capabilities, Exactness, Output, Target};

#[derive(Debug)]
pub struct Hip;

/// Operations through the wrappers; file-local helpers for host and device.
pub const DIALECT: Dialect = Dialect { arith: Arith::Calls, helper: "static AETHER_HD inline", ..Dialect::C };

/// Thunks for host and device (device code has malloc and free, no calloc).
const THUNKS: ThunkStyle<'static> =
    ThunkStyle { storage: "static AETHER_HD inline ", calloc: "aether_hip_calloc", free: "aether_hip_free", arena: "" };

/// The core header's path under the folder, and its include name.
pub const CORE: &str = "aether_core.hip.h";
/// The predicates header.
pub const PREDICATE: &str = "aether_predicate.hip.h";
/// The prefix of each callable's kernel
/// in `check/aether_hip_flat.hip` (`scripts/hip-isa-check.awk` reads the
/// callable's name from it).
pub const ISA_KERNEL: &str = "aether_hip_isa_";

const CORE_TEMPLATE: &str = include_str!("../../../../templates/hip/aether_core.hip.h.j2");

#[derive(Serialize)]
struct Wrapper {
    c_type: String,
    name: String,
    /// The expression of `a` and `b` (or `x`), inside the wrapper's
    /// contraction-off block.
    expr: String,
    unary: bool,
    doc: String,
}

impl Target for Hip {
    fn name(&self) -> &'static str {
        "hip"
    }

    fn folder(&self) -> &'static str {
        "hip_core"
    }

    fn exactness(&self) -> Exactness {
        Exactness::Bits
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { f64: true, i64: true, pointers: true, compute: true }
    }

    fn render(&self, model: &Model, banner: &str, _corpus: &[FunctionCases]) -> Result<Vec<Output>, Error> {
        let lowered = model.lowered();
        Ok(vec![
            Output::new(format!("hip_core/{CORE}"), core(model, &lowered, banner)?),
            Output::new(format!("hip_core/{PREDICATE}"), crate::targets::shared::c_family::predicates::c_family(model, PREDICATES, banner)),
            Output::new(
                "hip_core/check/aether_predicate_check.hip",
                crate::targets::shared::c_family::predicate_check::program(model, PREDICATES, PREDICATE, "HIP", banner),
            ),
            Output::new("hip_core/check/aether_hip_flat.hip", isa(model, banner)),
        ])
    }
}

/// The rounded-operation wrappers of one element type.
fn wrappers(t: &ElemType) -> Vec<Wrapper> {
    let c_type = &t.c_type;
    let bin = |op: BinOp| {
        let sym = op.symbol();
        let expr = if op == BinOp::Mul { format!("{}((a * b))", c::product_name(t)) } else { format!("a {sym} b") };
        Wrapper {
            c_type: c_type.clone(),
            name: c::op_name(op, t),
            expr,
            unary: false,
            doc: format!("a {sym} b in {c_type}, rounded once to nearest even"),
        }
    };
    vec![
        bin(BinOp::Add),
        bin(BinOp::Sub),
        bin(BinOp::Mul),
        bin(BinOp::Div),
        Wrapper {
            c_type: c_type.clone(),
            name: format!("aether_sqrt_{}", t.name),
            expr: format!("sqrt{}(x)", t.libm_suffix),
            unary: true,
            doc: format!(
                "the square root of x in {c_type}, correctly rounded (hipcc's default -fhip-fp32-correctly-rounded-divide-sqrt for f32)"
            ),
        },
    ]
}

/// The core header.
fn core(model: &Model, lowered: &[Function], banner: &str) -> Result<String, Error> {
    let mut helpers: Vec<Helper> = Vec::new();
    for t in &model.spec.types {
        helpers.push(c::minmax_helper(t, DIALECT.helper));
    }
    helpers.extend(c::linalg_helpers(model, lowered, &DIALECT));
    let mut functions: Vec<CFunction> = lowered.iter().map(|f| c::function(model, f, &DIALECT)).collect();
    functions.extend(model.kernels.iter().map(|k| c::kernel(model, k, &DIALECT)));
    let wrappers: Vec<Wrapper> = model.spec.types.iter().flat_map(wrappers).collect();
    let elems: Vec<_> = model
        .spec
        .types
        .iter()
        .map(|t| {
            let max = if t.bits == 32 { f64::from(f32::MAX) } else { f64::MAX };
            context! { c_type => t.c_type, name => t.name, max => c::literal(max, t), barrier => c::barrier_name(t), product => c::product_name(t) }
        })
        .collect();
    let version: Vec<u32> = model.spec.version.split('.').map(|p| p.parse().unwrap_or(0)).chain(std::iter::repeat(0)).take(3).collect();
    let ctx = context! {
        banner,
        version => model.spec.version,
        version_parts => version,
        contract_id => crate::selftest::contract_id(model),
        types => c::c_types(model),
        wrappers,
        elems,
        helpers,
        functions,
        ulp => c::ulp_functions(model),
    };
    render("hip/aether_core.hip.h.j2", CORE_TEMPLATE, &ctx)
}

/// How the HIP core prints the integer predicates: the C header's, with
/// HIP's qualifiers and each rounded operation of a golden form the core's
/// kind of wrapper (the plain operation with contraction off in its body;
/// a golden form has no sum, so only the pragma is needed).
pub const PREDICATES: PredicateDialect = PredicateDialect {
    guard: "AETHER_PREDICATE_HIP_H",
    qual: "static __host__ __device__ inline",
    preamble: STDINT_PREAMBLE,
    helpers: Some(hip_ops),
    builtin_ints: false,
    hex_floats: true,
    rounded_calls: true,
    convert_rte: false,
    builtin_clz: false,
    golden_if: "#if !defined(AETHER_PREDICATE_NO_FLOAT)",
    program_scope_tables: false,
};

/// The predicates' rounded operations and integer narrowings.
fn hip_ops() -> String {
    let mut s = String::from(
        "/* Each rounded operation of a golden form: the plain operation, with contraction off in its own\n   block (HIP's __fmul_rn and __fadd_rn are plain operators that clang contracts), on host and\n   device; each narrowing a conversion, which rounds to nearest on both. */\n#if !defined(__HIP__)\n#error \"aether_predicate.hip.h is HIP C++: compile it with hipcc (C and C++ host code uses c_core/aether_predicate.h)\"\n#endif\n#include <hip/hip_runtime.h>\n",
    );
    for (t, ty) in [("f32", "float"), ("f64", "double")] {
        for op in [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div] {
            let _ = writeln!(
                s,
                "static __host__ __device__ inline {ty} aether_pred_{v}_{t}({ty} a, {ty} b) {{\n#if !defined(AETHER_UNSAFE_ALLOW_CONTRACTION)\n#pragma clang fp contract(off)\n#endif\n    return a {} b;\n}}",
                op.symbol(),
                v = rounded_verb(op)
            );
        }
        for (i, c) in [("i64", "int64_t"), ("i32", "int32_t")] {
            let _ = writeln!(s, "static __host__ __device__ inline {ty} aether_pred_{i}_to_{t}({c} x) {{\n    return ({ty})x;\n}}");
        }
    }
    s.push('\n');
    s
}

/// `hip_core/check/aether_hip_flat.hip`: every callable's thunk over flat
/// words (c_core/check/aether_flat.h) for host and device, the host entries
/// table the C corpus runner calls, and one kernel
/// per callable, `aether_hip_isa_<name>` (the callable's name without
/// `aether_`), that calls it: hipcc inlines every device function into its
/// kernel at its default flags, so each callable's code is one kernel's in
/// the ISA. The kernels' names are C names (`extern "C"`).
fn isa(model: &Model, banner: &str) -> String {
    let callables = model.callables();
    let mut table = Vec::new();
    let mut v = vec![
        banner.to_string(),
        "/* The flat calling convention (c_core/check/aether_flat.h) on the HIP core: a thunk per callable".into(),
        "   for host and device; one kernel per callable, aether_hip_isa_<name>, that runs the thunk of".into(),
        "   aether_<name> on the device (hipcc inlines every device function into its kernel, so each".into(),
        "   callable's code is one kernel in the ISA: scripts/hip-static.sh checks it with".into(),
        "   scripts/hip-isa-check.awk); and aether_flat_entries, whose `call` is the host thunk, so that".into(),
        "   the C corpus runner (c_core/check/aether_check.c, compiled as C) runs the HIP core's host path.".into(),
        "   Compile it with hipcc --cuda-host-only -DAETHER_HIP_FLAT_NO_KERNELS (no kernels: no device".into(),
        "   code to embed) and link it in place of c_core/check/aether_flat.c. */".into(),
        format!("#include \"{CORE}\""),
        "extern \"C\" {".into(),
        "#include \"aether_flat.h\"".into(),
        "}".into(),
        String::new(),
        format!("typedef char aether_hip_flat_count[AETHER_FLAT_COUNT == {} ? 1 : -1];", callables.len()),
        String::new(),
        "/* Zeroed memory on host and device (device code has malloc and free, no calloc). */".into(),
        "static AETHER_HD inline void *aether_hip_calloc(size_t count, size_t size)".into(),
        "{".into(),
        "    void *p = malloc(count * size);".into(),
        "    if (p != NULL) memset(p, 0, count * size);".into(),
        "    return p;".into(),
        "}".into(),
        String::new(),
        "static AETHER_HD inline void aether_hip_free(void *p)".into(),
        "{".into(),
        "    free(p);".into(),
        "}".into(),
        String::new(),
    ];
    v.extend(c_flat::helpers_with("static AETHER_HD inline "));
    for callable in &callables {
        let short = callable_short(model, *callable);
        let thunk = format!("aether_flat_call_{short}");
        v.push(String::new());
        v.extend(c_flat::thunk_with(model, *callable, &thunk, &THUNKS));
        v.push(String::new());
        v.push("#if !defined(AETHER_HIP_FLAT_NO_KERNELS)".into());
        v.push(format!(
            "extern \"C\" __global__ void {ISA_KERNEL}{short}(const uint64_t *in, size_t n_in, uint64_t *out, size_t cap, size_t *got)"
        ));
        v.push("{".into());
        v.push(format!("    *got = {thunk}(in, n_in, out, cap);"));
        v.push("}".into());
        v.push("#endif".into());
        table.push(c_flat::entry_row(model, *callable, &thunk));
    }
    v.push(String::new());
    v.push("/* Every callable's host thunk, in the order of c_core/check/aether_flat.c. */".into());
    v.push("extern \"C\" const aether_flat_entry aether_flat_entries[AETHER_FLAT_COUNT] = {".into());
    v.extend(table);
    v.push("};".into());
    v.push(String::new());
    v.join("\n")
}

/// A callable's C name without `aether_`.
fn callable_short(model: &Model, c: Callable<'_>) -> String {
    c.c_name(model).trim_start_matches("aether_").to_string()
}
