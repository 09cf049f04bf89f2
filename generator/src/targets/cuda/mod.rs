//! The CUDA core beside `c_core`: `cuda_core/aether_core.cuh` (header-only,
//! every function `__host__ __device__`), `cuda_core/aether_batch.{h,cu}`
//! (batched kernels over structure-of-arrays data, with C launchers) and
//! `cuda_core/check/` (the flat thunks for the GPU runner).
//!
//! The functions are the C core's, printed by the same printers
//! (`c::function`, `c::kernel`, `targets::linalg`) in the `Calls` dialect: every
//! rounded operation is a call to a wrapper that is an explicit-rounding
//! intrinsic on the device (`__fadd_rn`, `__dmul_rn`, ...), which nvcc never
//! contracts whatever `--fmad` says, and the plain operation behind the C
//! core's contraction guard on the host.

use minijinja::context;
use serde::Serialize;

use crate::corpus::FunctionCases;
use crate::error::{Error, SpecError};
use crate::model::{Function, Kernel, KernelKind, Model};
use crate::selftest::{self, Witness};
use crate::spec::{Assignment, ElemType};
use crate::targets::shared::c_family::flat::{self as c_flat, ThunkStyle};
use crate::targets::shared::c_family::{self as c, Arith, CFunction, Dialect, Helper};
use crate::targets::shared::kernels::{COUNT, ELEMENT, TERM};
use crate::targets::shared::soa::{self, INDEX, OUT};
use crate::targets::{render, Capabilities, Exactness, Output, Target};

pub mod check;
pub mod predicates;

#[derive(Debug)]
pub struct Cuda;

/// Operations through the wrappers; file-local helpers for host and device.
pub const DIALECT: Dialect = Dialect { arith: Arith::Calls, helper: "static AETHER_HD inline", ..Dialect::C };

/// Thunks for host and device; device code has malloc and free but no calloc.
const THUNKS: ThunkStyle<'static> =
    ThunkStyle { storage: "static AETHER_HD ", calloc: "aether_cuda_calloc", free: "aether_cuda_free", arena: "" };

/// The warp the butterfly runs on.
const WARP: usize = 32;

const CORE_TEMPLATE: &str = include_str!("../../../../templates/cuda/aether_core.cuh.j2");
const BATCH_H_TEMPLATE: &str = include_str!("../../../../templates/cuda/aether_batch.h.j2");
const BATCH_CU_TEMPLATE: &str = include_str!("../../../../templates/cuda/aether_batch.cu.j2");
const BENCH_TEMPLATE: &str = include_str!("../../../../templates/cuda/check/aether_bench.cu.j2");

#[derive(Serialize)]
struct Wrapper {
    c_type: String,
    name: String,
    /// The device's explicit-rounding intrinsic.
    intrinsic: String,
    /// The host expression of `a` and `b` (or `x`).
    host: String,
    unary: bool,
    doc: String,
}

/// One batched kernel: its launcher's parameters and the per-item body.
#[derive(Serialize)]
struct Batch {
    name: String,
    kernel: String,
    doc: String,
    /// `const float *a`, ..., without `n` and the stream.
    params: Vec<String>,
    /// The kernel's arguments in launch order (parameter names).
    args: Vec<String>,
    /// The body for item `i` of `n` (grid-stride loop around it).
    body: Vec<String>,
    /// One warp per item (rows kernels) instead of one thread.
    warp: bool,
    /// For the benchmark: the buffers, and the launcher's arguments before
    /// `n` (`b0`, `b1`, ... or `len`).
    bufs: Vec<Buf>,
    call: Vec<String>,
    /// For the benchmark's check against the host path: declarations of
    /// the parameters over host copies (`h<k>` inputs, `r<k>` results),
    /// and the body for item i on the host.
    host_decls: Vec<String>,
    host_body: Vec<String>,
    /// The policy's +0/-0 grant of the function (fmin, fmax, ...).
    either_zero: bool,
}

/// A buffer of a batched kernel, for the benchmark: `per_item` elements of
/// `c_type` per item (`len` for a row); `diag` > 0 for an n x n matrix whose
/// diagonal the benchmark makes dominant, so every factorisation runs to
/// its end.
#[derive(Serialize)]
struct Buf {
    c_type: String,
    per_item: String,
    input: bool,
    diag: usize,
}

impl Buf {
    fn new(c_type: &str, per_item: impl ToString, input: bool, diag: usize) -> Self {
        Buf { c_type: c_type.to_string(), per_item: per_item.to_string(), input, diag }
    }
}

impl Target for Cuda {
    fn name(&self) -> &'static str {
        "cuda"
    }

    fn folder(&self) -> &'static str {
        "cuda_core"
    }

    fn exactness(&self) -> Exactness {
        Exactness::Bits
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { f64: true, i64: true, pointers: true, compute: true }
    }

    fn validate(&self, model: &Model) -> Result<(), SpecError> {
        let Some(red) = model.spec.reduction.as_ref() else {
            return Err(model.error_at(1, "rules.reduction", "the cuda target needs [rules.reduction]"));
        };
        if red.lanes != WARP || red.assignment != Assignment::Strided || red.rounds.iter().any(|r| *r >= WARP) {
            return Err(model.error_at(
                red.line,
                "rules.reduction",
                format!(
                    "the cuda target runs the lane tree on a warp of {WARP} strided lanes, but the spec has {} lanes \
                     ({:?} assignment, rounds {:?})",
                    red.lanes, red.assignment, red.rounds
                ),
            ));
        }
        Ok(())
    }

    fn render(&self, model: &Model, banner: &str, corpus: &[FunctionCases]) -> Result<Vec<Output>, Error> {
        self.validate(model)?;
        let witnesses = selftest::witnesses(model, &|name| corpus.iter().find(|f| f.c_name == name).map(|f| f.cases.clone()));
        let lowered = model.lowered();
        let mut out = vec![
            Output::new("cuda_core/aether_core.cuh", core(model, &lowered, banner, &witnesses)?),
            Output::new(
                "cuda_core/aether_predicate.cuh",
                crate::targets::shared::c_family::predicates::c_family(model, predicates::PREDICATES, banner),
            ),
            Output::new("cuda_core/check/aether_predicate_check.cu", predicates::cuda_check(model, banner)),
        ];
        let batches = batches(model, &lowered);
        let ctx =
            context! { banner, contract_id => selftest::contract_id(model), batches, policy => c_flat::policy_function("bench_word_ok") };
        out.push(Output::new("cuda_core/aether_batch.h", render("cuda/aether_batch.h.j2", BATCH_H_TEMPLATE, &ctx)?));
        out.push(Output::new("cuda_core/aether_batch.cu", render("cuda/aether_batch.cu.j2", BATCH_CU_TEMPLATE, &ctx)?));
        out.push(Output::new("cuda_core/check/aether_bench.cu", render("cuda/check/aether_bench.cu.j2", BENCH_TEMPLATE, &ctx)?));
        out.push(Output::new("cuda_core/check/aether_cuda_flat.cuh", flat(model, banner)));
        out.extend(check::files(model, banner)?);
        Ok(out)
    }
}

fn elem<'a>(model: &'a Model, name: &str) -> &'a ElemType {
    model.spec.types.iter().find(|t| t.name == name).expect("a declared element type")
}

/// The rounded-operation wrappers of one element type.
fn wrappers(t: &ElemType) -> Vec<Wrapper> {
    let letter = if t.bits == 32 { "f" } else { "d" };
    let c_type = &t.c_type;
    let bin = |op: crate::dsl::BinOp, verb: &str, sym: &str| {
        let host = if op == crate::dsl::BinOp::Mul { format!("{}((a * b))", c::product_name(t)) } else { format!("a {sym} b") };
        Wrapper {
            c_type: c_type.clone(),
            name: c::op_name(op, t),
            intrinsic: format!("__{letter}{verb}_rn"),
            host,
            unary: false,
            doc: format!("a {sym} b in {c_type}, rounded once to nearest even"),
        }
    };
    use crate::dsl::BinOp::*;
    vec![
        bin(Add, "add", "+"),
        bin(Sub, "sub", "-"),
        bin(Mul, "mul", "*"),
        bin(Div, "div", "/"),
        Wrapper {
            c_type: c_type.clone(),
            name: format!("aether_sqrt_{}", t.name),
            intrinsic: format!("__{letter}sqrt_rn"),
            host: format!("sqrt{}(x)", t.libm_suffix),
            unary: true,
            doc: format!("the square root of x in {c_type}, correctly rounded"),
        },
    ]
}

/// The core header.
fn core(model: &Model, lowered: &[Function], banner: &str, witnesses: &[Witness]) -> Result<String, Error> {
    let mut helpers: Vec<Helper> = Vec::new();
    for t in &model.spec.types {
        helpers.push(c::minmax_helper(t, DIALECT.helper));
    }
    helpers.extend(c::linalg_helpers(model, lowered, &DIALECT));
    let mut functions: Vec<CFunction> = lowered.iter().map(|f| c::function(model, f, &DIALECT)).collect();
    functions.extend(model.kernels.iter().map(|k| c::kernel(model, k, &DIALECT)));
    let wrappers: Vec<Wrapper> = model.spec.types.iter().flat_map(wrappers).collect();
    let types = c::c_types(model);
    let max_literals: Vec<_> = model
        .spec
        .types
        .iter()
        .map(|t| {
            let max = if t.bits == 32 { f64::from(f32::MAX) } else { f64::MAX };
            context! { c_type => t.c_type, name => t.name, max => c::literal(max, t), barrier => c::barrier_name(t), product => c::product_name(t) }
        })
        .collect();
    let version: Vec<u32> = model.spec.version.split('.').map(|p| p.parse().unwrap_or(0)).chain(std::iter::repeat(0)).take(3).collect();
    let rules: std::collections::BTreeSet<&str> = witnesses.iter().map(|w| w.mutant.name()).collect();
    let ctx = context! {
        banner,
        version => model.spec.version,
        version_parts => version,
        contract_id => selftest::contract_id(model),
        types,
        wrappers,
        elems => max_literals,
        helpers,
        functions,
        device => device_lines(model, lowered),
        selftest => selftest_tables(model, witnesses),
        witness_count => witnesses.len(),
        witness_rules => rules.len(),
        witness_max_out => witnesses.iter().map(|w| w.expected.len()).max().unwrap_or(1),
        witness_max_in => witnesses.iter().map(|w| w.inputs.len()).max().unwrap_or(1),
        policy => c_flat::policy_function("aether_selftest_word_ok"),
        probes => crate::targets::shared::c_family::selftest::probe_table(model),
        flat_helpers => c_flat::helpers_with("static AETHER_HD "),
        causes => crate::targets::shared::c_family::selftest::cause_probe_function(
            model,
            ("static AETHER_HD inline ", "static inline "),
            false,
            // Every operation as the core spells it: its rounded-operation
            // calls (intrinsics on the device, the host's guard on the host).
            &crate::targets::shared::c_family::selftest::Spelling::Calls,
        ),
        ulp => c::ulp_functions(model),
    };
    render("cuda/aether_core.cuh.j2", CORE_TEMPLATE, &ctx)
}

/// Device-only code: the lane tree as a warp butterfly, and each array
/// kernel on one warp.
fn device_lines(model: &Model, lowered: &[Function]) -> Vec<String> {
    let red = model.spec.reduction.as_ref().expect("checked in render");
    let step_name = |family: &str, e: &str| model.c_name(lowered.iter().find(|f| f.family == family && f.elem == e).unwrap());
    let mut out = Vec::new();
    for t in &model.spec.types {
        if !model.kernels.iter().any(|k| k.elem == t.name && k.kind == KernelKind::Butterfly) {
            continue;
        }
        let pair = c::type_name(model, &red.pair, t);
        let (hi, comp) = (c::component_name(model, &red.pair, 0), c::component_name(model, &red.pair, 1));
        let combine = step_name(&red.combine, &t.name);
        let rounds: Vec<String> = red.rounds.iter().map(|r| r.to_string()).collect();
        out.push(format!(
            "/* The {lanes}-lane tree of [rules.reduction] on a warp: lane l holds lane l's pair; after round r \
             every lane holds {combine}(own, lane l ^ r's), as the host tree's w[l] (rounds {}). Lane 0 then \
             holds the host tree's result. Call it with all {WARP} lanes of the warp active and converged. */",
            rounds.join(", "),
            lanes = red.lanes
        ));
        out.push(format!("static __device__ inline {pair} {}_warp({pair} v)", reduce_name(model, t)));
        out.push("{".into());
        for r in &red.rounds {
            out.push("    {".into());
            out.push(format!("        {pair} o;"));
            out.push(format!("        o.{hi} = __shfl_xor_sync(0xffffffffu, v.{hi}, {r});"));
            out.push(format!("        o.{comp} = __shfl_xor_sync(0xffffffffu, v.{comp}, {r});"));
            out.push(format!("        v = {combine}(v, o);"));
            out.push("    }".into());
        }
        out.push("    return v;".into());
        out.push("}".into());
        out.push(String::new());
        for k in model.kernels.iter().filter(|k| k.elem == t.name) {
            let KernelKind::Array { lanes: lk } = &k.kind else { continue };
            let lk_kernel = model.kernels.iter().find(|x| &x.name == lk && x.elem == k.elem).unwrap();
            let KernelKind::Lanes { arrays, term } = &lk_kernel.kind else { unreachable!("checked when the spec was read") };
            let e = &t.c_type;
            let name = model.kernel_c_name(k);
            let arrs: Vec<String> = arrays.iter().map(|a| format!("const {e} *{a}")).collect();
            out.push(format!(
                "/* {name} on one warp: lane l adds elements l, l + {WARP}, ... in ascending order (the strided \
                 assignment), then the warp tree; every lane returns the bits of {name}. */"
            ));
            // The spec's arrays are in scope: every other name is `aether_...`.
            out.push(format!("static __device__ inline {e} {name}_warp({}, size_t {COUNT})", arrs.join(", ")));
            out.push("{".into());
            out.push(format!("    {pair} aether_p;"));
            out.push(format!("    size_t {ELEMENT};"));
            out.extend(c::zero_pair(model, t, "aether_p").iter().map(|l| format!("    {l}")));
            out.push(format!("    for ({ELEMENT} = threadIdx.x % {WARP}u; {ELEMENT} < {COUNT}; {ELEMENT} += {WARP}u) {{"));
            out.extend(c::lane_term(term, t, ELEMENT, &DIALECT).iter().map(|l| format!("        {l}")));
            out.push(format!("        aether_p = {}(aether_p, {TERM});", step_name(&red.step, &t.name)));
            out.push("    }".into());
            out.push(format!("    aether_p = {}_warp(aether_p);", reduce_name(model, t)));
            out.push(format!("    aether_p.{hi} = __shfl_sync(0xffffffffu, aether_p.{hi}, 0);"));
            out.push(format!("    aether_p.{comp} = __shfl_sync(0xffffffffu, aether_p.{comp}, 0);"));
            out.push(format!("    return {}(aether_p);", step_name(&red.value, &t.name)));
            out.push("}".into());
            out.push(String::new());
        }
    }
    out
}

fn reduce_name(model: &Model, t: &ElemType) -> String {
    model.kernel_c_name(model.kernels.iter().find(|k| k.elem == t.name && k.kind == KernelKind::Butterfly).unwrap())
}

/// The self-test's witness thunks (host and device), a dispatcher, and the
/// host tables of witnesses and words.
fn selftest_tables(model: &Model, witnesses: &[Witness]) -> Vec<String> {
    let callables = model.callables();
    let mut lines = c_flat::layout_checks(model);
    let mut thunks: Vec<usize> = Vec::new();
    for w in witnesses {
        if !thunks.contains(&w.callable) {
            thunks.push(w.callable);
            lines.push(String::new());
            lines.extend(c_flat::thunk_with(model, callables[w.callable], &witness_thunk(&w.c_name), &THUNKS));
        }
    }
    lines.push(String::new());
    lines.push(
        "static AETHER_HD size_t aether_selftest_call(unsigned thunk, const uint64_t *in, size_t n_in, uint64_t *out, size_t cap)".into(),
    );
    lines.push("{".into());
    lines.push("    switch (thunk) {".into());
    for (i, c) in thunks.iter().enumerate() {
        lines.push(format!("    case {i}u: return {}(in, n_in, out, cap);", witness_thunk(&callables[*c].c_name(model))));
    }
    lines.push("    default: return AETHER_FLAT_BAD;".into());
    lines.push("    }".into());
    lines.push("}".into());
    lines.push(String::new());
    lines.extend(crate::targets::shared::c_family::selftest::witness_table(model, witnesses, &|w| {
        format!("{}u", thunks.iter().position(|t| *t == w.callable).unwrap())
    }));
    lines
}

fn witness_thunk(c_name: &str) -> String {
    format!("aether_selftest_call_{}", c_name.trim_start_matches("aether_"))
}

/// `cuda_core/check/aether_cuda_flat.cuh`: every callable's thunk for host
/// and device (never inlined, so each is one function in the PTX), the
/// dispatcher by entry index, and the host table of aether_flat.h's entries.
fn flat(model: &Model, banner: &str) -> String {
    let callables = model.callables();
    let mut v = vec![
        banner.to_string(),
        "/* The flat calling convention (c_core/check/aether_flat.h) on the CUDA core: a thunk per callable".into(),
        "   for host and device, `aether_cuda_flat_call(index, ...)` that runs entry `index` of".into(),
        "   aether_flat_entries, and the entries (their `call` is the host thunk). Include it once, after".into(),
        "   aether_core.cuh, in the runner's translation unit. */".into(),
        "#ifndef AETHER_CUDA_FLAT_CUH".into(),
        "#define AETHER_CUDA_FLAT_CUH".into(),
        String::new(),
        "#include \"aether_core.cuh\"".into(),
        "#include \"aether_flat.h\"".into(),
        String::new(),
        format!("typedef char aether_cuda_flat_count[AETHER_FLAT_COUNT == {} ? 1 : -1];", callables.len()),
    ];
    let style = ThunkStyle { storage: "static AETHER_HD __noinline__ ", ..THUNKS };
    let mut table = Vec::new();
    let mut cases = Vec::new();
    for (i, callable) in callables.iter().enumerate() {
        let name = callable.c_name(model);
        let thunk = format!("aether_flat_call_{}", name.trim_start_matches("aether_"));
        v.push(String::new());
        v.extend(c_flat::thunk_with(model, *callable, &thunk, &style));
        table.push(c_flat::entry_row(model, *callable, &thunk));
        cases.push(format!("    case {i}u: return {thunk}(in, n_in, out, cap);"));
    }
    v.push(String::new());
    v.push("/* Runs entry `index` of aether_flat_entries on the words, on the host or the device. */".into());
    v.push(
        "static AETHER_HD inline size_t aether_cuda_flat_call(unsigned index, const uint64_t *in, size_t n_in, uint64_t *out, size_t cap)"
            .into(),
    );
    v.push("{".into());
    v.push("    switch (index) {".into());
    v.extend(cases);
    v.push("    default: return AETHER_FLAT_BAD;".into());
    v.push("    }".into());
    v.push("}".into());
    v.push(String::new());
    v.push("const aether_flat_entry aether_flat_entries[AETHER_FLAT_COUNT] = {".into());
    v.extend(table);
    v.push("};".into());
    v.push(String::new());
    v.push("#endif /* AETHER_CUDA_FLAT_CUH */".into());
    v.push(String::new());
    v.join("\n")
}

/// The batched kernels: every function of the core over structure-of-arrays
/// data, the LU and Cholesky solves (the model of `soa`, shared with the
/// OpenCL core), and each array kernel over rows (one warp a row).
fn batches(model: &Model, lowered: &[Function]) -> Vec<Batch> {
    let mut out: Vec<Batch> = lowered.iter().map(|f| soa_batch(soa::function_batch(model, f))).collect();
    for k in &model.kernels {
        if let Some(b) = soa::solve_batch(model, k) {
            out.push(soa_batch(b));
        } else if let KernelKind::Array { lanes } = &k.kind {
            out.push(rows_batch(model, k, lanes));
        }
    }
    out
}

/// A shared structure-of-arrays batch as a CUDA kernel with its launcher.
fn soa_batch(b: soa::SoaBatch) -> Batch {
    let params: Vec<String> = b.arrays.iter().map(|a| a.param("")).collect();
    let bufs: Vec<Buf> = b.arrays.iter().map(|a| Buf::new(&a.c_type, a.per_item, a.input, a.diag)).collect();
    Batch {
        kernel: format!("aether_batch_kernel_{}", b.short),
        doc: b.doc,
        name: b.name,
        warp: false,
        call: (0..bufs.len()).map(|k| format!("b{k}")).collect(),
        host_decls: host_decls(&params, &bufs),
        host_body: b.body.clone(),
        either_zero: b.either_zero,
        args: b.arrays.iter().map(|a| a.name.clone()).collect(),
        params,
        body: b.body,
        bufs,
    }
}

/// The host declarations of a batch's parameters over the benchmark's host
/// copies: buffer k's input copy is `aether_h<k>`, its host result
/// `aether_r<k>` (the parameters take the spec's names).
fn host_decls(params: &[String], bufs: &[Buf]) -> Vec<String> {
    let mut k = 0;
    let mut out = Vec::new();
    for p in params {
        if !p.contains('*') {
            continue; // `size_t aether_len`, declared by the benchmark
        }
        let ty = &p[..=p.rfind('*').unwrap()];
        let src = if bufs[k].input { "aether_h" } else { "aether_r" };
        out.push(format!("{p} = ({ty}){src}{k};"));
        k += 1;
    }
    out
}

fn rows_batch(model: &Model, k: &Kernel, lanes_kernel: &str) -> Batch {
    let t = elem(model, &k.elem);
    let e = &t.c_type;
    let name = model.kernel_c_name(k);
    let lk = model.kernels.iter().find(|x| x.name == lanes_kernel && x.elem == k.elem).unwrap();
    let KernelKind::Lanes { arrays, .. } = &lk.kind else { unreachable!("checked when the spec was read") };
    // The spec's arrays are in scope: every other name is `aether_...`.
    let mut params: Vec<String> = arrays.iter().map(|a| format!("const {e} *{a}")).collect();
    params.push("size_t aether_len".into());
    params.push(format!("{e} *{OUT}"));
    let mut args: Vec<String> = arrays.clone();
    args.push("aether_len".into());
    args.push(OUT.into());
    let rows: Vec<String> = arrays.iter().map(|a| format!("{a} + {INDEX} * aether_len")).collect();
    let bufs: Vec<Buf> = arrays.iter().map(|_| Buf::new(e, "aether_len", true, 0)).chain([Buf::new(e, 1, false, 0)]).collect();
    Batch {
        kernel: format!("aether_batch_kernel_{}_rows", name.trim_start_matches("aether_")),
        doc: format!(
            "{OUT}[i] = {name}(row i, aether_len) for every row i < {COUNT}, row i of each array at [i * aether_len, (i + 1) * \
             aether_len); one warp per row (the warp tree), the bits of the host's {name}."
        ),
        name: format!("{name}_rows_batch"),
        args,
        body: vec![
            format!("const {e} aether_v = {name}_warp({}, aether_len);", rows.join(", ")),
            format!("if (threadIdx.x % {WARP}u == 0u) {OUT}[{INDEX}] = aether_v;"),
        ],
        warp: true,
        host_decls: host_decls(&params, &bufs),
        host_body: vec![format!("{OUT}[{INDEX}] = {name}({}, aether_len);", rows.join(", "))],
        either_zero: false,
        params,
        bufs,
        call: (0..arrays.len()).map(|k| format!("b{k}")).chain(["aether_len".to_string(), format!("b{}", arrays.len())]).collect(),
    }
}
