//! The OpenCL C core beside `c_core`: `opencl_core/aether_core.cl` (every
//! function and kernel of the spec in OpenCL C 1.2, the f64 ones under
//! `cl_khr_fp64`) and `opencl_core/check/aether_check.cl` (the core, then one
//! `__kernel` per fixed-layout callable over flat words and the device
//! self-test, for the runner).
//!
//! The functions are the C core's, printed by the same printers
//! (`c::function`, `c::kernel`, `targets::linalg`) in the dialect `DIALECT`: C
//! operators without the C core's asm guards (OpenCL C has no inline asm),
//! under `#pragma OPENCL FP_CONTRACT OFF`, which the language defines as C99's
//! pragma (no operation is contracted); the overloaded math builtins (`sqrt`,
//! `fabs`: OpenCL C has no `sqrtf`); and no function-scope statics.
//!
//! The barrier of the spec is the C core's volatile store and reload. OpenCL
//! C guarantees nothing about volatile beyond C99, but with the pragma nothing
//! needs it: every operation is already rounded to its type
//! (`FLT_EVAL_METHOD` is 0 in OpenCL C) and none is fused. The volatile is
//! kept as a second wall for the negative control that drops the pragma: on
//! PoCL (clang and LLVM), a volatile load is never folded or fused through.
//!
//! The check program's kernels, one per callable with fixed word counts
//! (functions, the butterfly, the single-problem linear algebra):
//!   __kernel void aether_check_<name>(__global const W *in, __global W *out,
//!                                     __global ulong *n_out, uint count)
//! with W = uint for the f32 functions (an f32 word's low 32 bits) and ulong
//! for the f64 ones and the kernels (whose pivots and statuses are 64-bit
//! words). Work item i < count reads words [i*n_in, (i+1)*n_in) of `in`,
//! writes [i*n_out, (i+1)*n_out) of `out` and the thunk's count (n_out, or
//! `AETHER_FLAT_BAD` = all ones) to n_out[i]. The f64 kernels exist only
//! when the program was built for a device with `cl_khr_fp64` (and without
//! `-DAETHER_NO_FP64`).
//!
//! The kernels over arrays of any length (lanes, arrays, planes, resolve,
//! the many-lane linear algebra) get the same thunks, with their scratch
//! from a private arena (`AETHER_ARENA`: OpenCL C has no heap) instead of
//! calloc, and kernels over variable-length cases (`ClProgram::arrays`):
//! case i's words are in[at[i]..at[i + 1]), copied to private memory (the
//! core's array functions take private pointers), its results at out[i *
//! cap..]. The private buffers are sized by build options
//! (`array_options`); a case that does not fit is refused, never cut.
//!
//! Beside the butterfly's single-thread kernel, `aether_check_<name>_group`
//! runs the lane tree on one work group (one work item per lane, the
//! partners through local memory): global size count * lanes, local size
//! lanes (`workgroup_size`, with `cases_per_workgroup` 1).
//!
//! The self-test kernel `aether_selftest(__global uint *status, __global
//! uint *failed, uint cap)`, run as one work item, replays the witnesses of
//! the fixed-layout callables and the subnormal probes: status[0] is the C
//! core's status bits (FLUSH_TO_ZERO 2, DENORMALS_ARE_ZERO 4, WITNESS 8),
//! status[1] the failed witnesses (their indices in failed[0..cap]),
//! status[2] the witnesses run, status[3] those skipped (f64 without fp64),
//! status[4] the causes the cause probes detect (`selftest::Cause` bits,
//! flush from the subnormal probes), status[5] the failed witnesses a
//! detected cause explains (their causes mask meets it), status[6] the causes
//! that explain them; the C core's bits FUSED 32, REASSOCIATED 64, ZERO_SIGN
//! 128 name those causes, RULE 256 a failed witness no detected cause
//! explains. failed[] lists the unexplained ones first.

use minijinja::context;
use serde::Serialize;

use crate::corpus::FunctionCases;
use crate::error::{Error, SpecError};
use crate::model::{Callable, Function, KernelKind, Model};
use crate::selftest::{self, Witness};
use crate::targets::shared::c_family::flat::{self as c_flat, ThunkStyle};
use crate::targets::shared::c_family::{self as c, Arith, CFunction, Dialect, Helper, Math};
use crate::targets::shared::check::CheckEntry;
use crate::targets::shared::soa::{self, SoaBatch};
use crate::targets::{render, Capabilities, Exactness, Output, Target};

pub mod options;
pub mod predicates;

#[derive(Debug)]
pub struct OpenCl;

/// Plain operators (the pragma forbids contraction), overloaded math, no
/// function-scope statics.
pub const DIALECT: Dialect = Dialect {
    arith: Arith::Operators { guard: false },
    helper: "static inline",
    math: Math::Overloaded,
    table: "const",
    vector_products: false,
    array_params: false,
};

/// The thunks: file-local, private memory only. OpenCL C has no heap: the
/// thunks of the kernels over arrays take their scratch from a private arena
/// of `AETHER_CHECK_SCRATCH` words declared in the thunk (`AETHER_ARENA`),
/// zeroed as calloc's, and give it back when they return.
const THUNKS: ThunkStyle<'static> =
    ThunkStyle { storage: "static ", calloc: "AETHER_ARENA_CALLOC", free: "AETHER_ARENA_FREE", arena: "AETHER_ARENA;" };

/// The private buffers of a kernel over arrays, per work item: the case's
/// words, the result words and the arena. The generated defaults; the host
/// builds with larger ones (`-DAETHER_CHECK_WORDS=...`) for longer cases,
/// and a case that does not fit is refused (`AETHER_FLAT_BAD`), never cut.
pub const ARRAY_WORDS: usize = 1024;
pub const ARRAY_OUT: usize = 256;

/// The largest work group every OpenCL device takes (CL_DEVICE_MAX_WORK_GROUP_SIZE
/// is at least 1 on the embedded profile; 64 holds on every full-profile
/// GPU and CPU runtime in use).
const MIN_WORK_GROUP: usize = 64;

/// The OpenCL core's section of the contract doc: the relaxed device's bands.
const CONTRACT_TEMPLATE: &str = include_str!("../../../../templates/opencl/contract.md.j2");

const CORE_TEMPLATE: &str = include_str!("../../../../templates/opencl/aether_core.cl.j2");

/// One kernel of the check program.
#[derive(Debug, Clone, PartialEq)]
pub struct ClEntry {
    /// The kernel's name, the callable's keys and word counts
    /// (`workgroup_size` and `cases_per_workgroup` are 1: one case per work
    /// item).
    pub check: CheckEntry,
    /// 32 (the buffers hold uint words) or 64 (ulong words).
    pub word_bits: u32,
    /// The element type's width: the kernel exists only with fp64 when 64.
    pub elem_bits: u32,
    pub is_float: bool,
    pub either_zero: bool,
    /// A kernel over arrays of any length (in `ClProgram::arrays`): its
    /// cases have their own word counts.
    pub variable: bool,
}

/// The check program: its source and kernels.
#[derive(Debug, Clone, PartialEq)]
pub struct ClProgram {
    pub source: String,
    pub entries: Vec<ClEntry>,
    /// The self-test's witnesses, in the order of its table (their index is
    /// what `failed` reports).
    pub witnesses: Vec<Witness>,
    /// The kernels over arrays of any length (lanes, arrays, planes,
    /// resolve, the many-lane linear algebra): `n_in` and `n_out` are 0, the
    /// words of case i are in[at[i]..at[i + 1]) and its results
    /// out[i * cap..]:
    ///   __kernel void aether_check_<name>(__global const ulong *in,
    ///       __global const ulong *at, __global ulong *out,
    ///       __global ulong *n_out, uint count, uint cap)
    pub arrays: Vec<ClEntry>,
    /// The core's batched kernels over structure-of-arrays data (one
    /// `__global` array per parameter and result, component c of item i at
    /// [c * aether_n + i]), named `<callable>_batch`, with a last `ulong
    /// aether_n` argument.
    pub batches: Vec<SoaBatch>,
}

/// The build options that size the private buffers of the kernels over
/// arrays for cases of up to `words` input words and `out` result words.
pub fn array_options(words: usize, out: usize) -> String {
    // The arena: every thunk takes at most its words twice over (a copy of
    // the input and the results), in 8-byte words, plus one element per
    // array and alignment; 256 words cover the rest.
    format!("-DAETHER_CHECK_WORDS={words} -DAETHER_CHECK_OUT={out} -DAETHER_CHECK_SCRATCH={}", 2 * words + 2 * out + 256)
}

/// Build option that prints the core without `#pragma OPENCL FP_CONTRACT
/// OFF` (a negative control only: products fuse).
pub const ALLOW_CONTRACTION: &str = "-DAETHER_UNSAFE_ALLOW_CONTRACTION";
/// Build option that leaves out every f64 function, as for a device without
/// `cl_khr_fp64`.
pub const NO_FP64: &str = "-DAETHER_NO_FP64";

impl Target for OpenCl {
    fn name(&self) -> &'static str {
        "opencl"
    }

    fn folder(&self) -> &'static str {
        "opencl_core"
    }

    fn exactness(&self) -> Exactness {
        Exactness::Bits
    }

    fn device_bands(&self) -> &'static [&'static str] {
        &[RELAXED]
    }

    /// The bands of a device without correctly rounded f32 divide and sqrt,
    /// where the spec states `[bands.opencl_relaxed]`: the callables that
    /// leave the bits, with their derived bands.
    fn contract_doc(&self, model: &Model) -> Result<Option<String>, Error> {
        let Some(table) = model.spec.bands.iter().find(|b| b.target == RELAXED) else {
            return Ok(None);
        };
        let callables = relaxed_callables(model);
        let rows = crate::bands::rows(model, RELAXED, &callables, true);
        if rows.is_empty() {
            return Ok(None);
        }
        let ctx = context! {
            bits => callables.len() - rows.len(),
            total => callables.len(),
            ops => context! { add => table.ops.add_sub_mul, div => table.ops.div, sqrt => table.ops.sqrt },
            bands => rows,
        };
        Ok(Some(render("opencl/contract.md.j2", CONTRACT_TEMPLATE, &ctx)?))
    }

    /// binary64 where the device has `cl_khr_fp64` (the core guards it:
    /// `AETHER_NO_FP64` builds without).
    fn capabilities(&self) -> Capabilities {
        Capabilities { f64: true, i64: true, pointers: true, compute: true }
    }

    fn validate(&self, model: &Model) -> Result<(), SpecError> {
        crate::bands::check(model, RELAXED, &relaxed_callables(model))?;
        // The work-group butterfly: one work item per lane, partner l ^ r in
        // local memory, so the lanes must fit a work group that every
        // OpenCL device takes and every partner must be a lane.
        let Some(red) = model.spec.reduction.as_ref() else { return Ok(()) };
        if red.lanes == 0 || red.lanes > MIN_WORK_GROUP || red.rounds.iter().any(|r| *r == 0 || *r >= red.lanes) {
            return Err(model.error_at(
                red.line,
                "rules.reduction",
                format!(
                    "the opencl target runs the lane tree on one work group of at most {MIN_WORK_GROUP} work items with \
                     partner l ^ r, but the spec has {} lanes and rounds {:?}",
                    red.lanes, red.rounds
                ),
            ));
        }
        Ok(())
    }

    fn render(&self, model: &Model, banner: &str, corpus: &[FunctionCases]) -> Result<Vec<Output>, Error> {
        self.validate(model)?;
        let witnesses = selftest::witnesses(model, &|name| corpus.iter().find(|f| f.c_name == name).map(|f| f.cases.clone()));
        let lowered = model.lowered();
        let core = core(model, &lowered, banner)?;
        let check = check_program(model, &lowered, banner, &witnesses)?;
        Ok(vec![
            Output::new("opencl_core/aether_core.cl", core),
            Output::new("opencl_core/check/aether_check.cl", check.source),
            Output::new(
                "opencl_core/aether_predicate.cl",
                crate::targets::shared::c_family::predicates::c_family(model, predicates::PREDICATES, banner),
            ),
            Output::new("opencl_core/check/aether_predicate_check.cl", predicates::opencl_check(model, banner)),
        ])
    }
}

/// The band table of an OpenCL device without correctly rounded f32
/// division and sqrt (built without `-cl-fp32-correctly-rounded-divide-sqrt`).
pub const RELAXED: &str = "opencl_relaxed";

/// The callables `[bands.opencl_relaxed]` states: every f32 function and
/// kernel (f64 division and sqrt are correctly rounded on every OpenCL device).
pub fn relaxed_callables(model: &Model) -> Vec<Callable<'_>> {
    let f32s: Vec<&str> = model.spec.types.iter().filter(|t| t.bits == 32).map(|t| t.name.as_str()).collect();
    model.callables().into_iter().filter(|c| f32s.contains(&c.elem())).collect()
}

/// Whether a callable's words are fixed (one kernel of the first kind);
/// the kernels over arrays get the variable-length kernels of
/// `array_kernels`, whose thunks draw scratch from a private arena.
pub fn fixed(c: Callable) -> bool {
    match c {
        Callable::Function(_) => true,
        Callable::Kernel(k) => matches!(k.kind, KernelKind::Butterfly | KernelKind::Linalg { many: false, .. }),
    }
}

#[derive(Serialize)]
struct Section {
    name: String,
    c_type: String,
    fp64: bool,
    barrier: String,
    types: Vec<c::CType>,
    helpers: Vec<Helper>,
    functions: Vec<CFunction>,
    ulp: Vec<CFunction>,
    batches: Vec<ClBatch>,
}

/// A batched kernel over structure-of-arrays data (`soa`, the CUDA core's
/// model), its arrays in `__global` memory.
#[derive(Serialize)]
struct ClBatch {
    name: String,
    doc: String,
    params: Vec<String>,
    body: Vec<String>,
}

/// The core's text per element type, in spec order.
fn sections(model: &Model, lowered: &[Function]) -> Vec<Section> {
    let all_types = c::c_types(model);
    let all_batches = soa::batches(model, lowered);
    let all_ulp = c::ulp_functions(model);
    model
        .spec
        .types
        .iter()
        .map(|t| {
            let mine: Vec<String> = model.spec.shapes.iter().map(|s| c::type_name(model, &s.name, t)).collect();
            let types = all_types.iter().filter(|ct| mine.contains(&ct.name)).cloned().collect();
            let mut helpers = vec![c::minmax_helper(t, DIALECT.helper)];
            helpers.extend(c::linalg_helpers_of(model, lowered, &DIALECT, &|e| e == t.name));
            let mut functions: Vec<CFunction> =
                lowered.iter().filter(|f| f.elem == t.name).map(|f| c::function(model, f, &DIALECT)).collect();
            functions.extend(model.kernels.iter().filter(|k| k.elem == t.name).map(|k| c::kernel(model, k, &DIALECT)));
            let ulp_name = format!("aether_{}_ulp_distance", t.name);
            Section {
                name: t.name.clone(),
                c_type: t.c_type.clone(),
                fp64: t.bits == 64,
                barrier: c::barrier_name(t),
                types,
                helpers,
                functions,
                ulp: all_ulp.iter().filter(|f| f.name == ulp_name).cloned().collect(),
                batches: all_batches
                    .iter()
                    .filter(|b| b.elem == t.name)
                    .map(|b| ClBatch {
                        name: b.name.clone(),
                        doc: b.doc.clone(),
                        params: b.arrays.iter().map(|a| a.param("__global ")).collect(),
                        body: b.body.clone(),
                    })
                    .collect(),
            }
        })
        .collect()
}

fn core(model: &Model, lowered: &[Function], banner: &str) -> Result<String, Error> {
    let ctx = context! {
        banner,
        version => model.spec.version,
        contract_id => selftest::contract_id(model),
        sections => sections(model, lowered),
        check => false,
        check_lines => Vec::<String>::new(),
        build_options => options::header_lines(),
    };
    render("opencl/aether_core.cl.j2", CORE_TEMPLATE, &ctx)
}

/// The check program of the given lowered functions (the model's own, or a
/// mutant's): the core, the flat thunks and one kernel per fixed callable,
/// and the self-test over `witnesses` (those of fixed callables).
pub fn check_program(model: &Model, lowered: &[Function], banner: &str, witnesses: &[Witness]) -> Result<ClProgram, Error> {
    let callables = model.callables();
    let elem_bits = |c: &Callable| model.spec.types.iter().find(|t| t.name == c.elem()).map_or(32, |t| t.bits);
    // The word helpers: the f64 ones only with fp64.
    let mut lines: Vec<String> = Vec::new();
    for f in c_flat::helpers_with("static inline ").split(|l| l.is_empty()) {
        let is64 = f[0].contains("64(");
        if is64 {
            lines.push("#ifdef AETHER_FP64".into());
        }
        lines.extend(f.iter().cloned());
        if is64 {
            lines.push("#endif".into());
        }
        lines.push(String::new());
    }
    let mut entries = Vec::new();
    for bits in [32u32, 64] {
        let group: Vec<&Callable> = callables.iter().filter(|c| fixed(**c) && elem_bits(c) == bits).collect();
        if group.is_empty() {
            continue;
        }
        if bits == 64 {
            lines.push("#ifdef AETHER_FP64".into());
        }
        for c in group {
            let name = c.c_name(model);
            let short = name.trim_start_matches("aether_");
            let thunk = format!("aether_flat_call_{short}");
            let l = c_flat::layout(model, *c);
            let word_bits = if bits == 32 && matches!(c, Callable::Function(_)) { 32 } else { 64 };
            let w = if word_bits == 32 { "uint" } else { "ulong" };
            let entry = format!("aether_check_{short}");
            lines.push(String::new());
            lines.extend(c_flat::thunk_with(model, *c, &thunk, &THUNKS));
            lines.push(String::new());
            lines.push(format!("__kernel void {entry}(__global const {w} *in, __global {w} *out, __global ulong *n_out, uint count)"));
            lines.push("{".into());
            lines.push("    const size_t i = get_global_id(0);".into());
            lines.push(format!("    uint64_t w[{}], r[{}];", l.n_in.max(1), l.n_out.max(1)));
            lines.push("    size_t k, n;".into());
            lines.push("    if (i >= count) return;".into());
            lines.push(format!("    for (k = 0; k < {}u; ++k) w[k] = (uint64_t)in[i * {}u + k];", l.n_in, l.n_in));
            lines.push(format!("    n = {thunk}(w, {}u, r, {}u);", l.n_in, l.n_out));
            lines.push("    n_out[i] = (ulong)n;".into());
            lines.push(format!("    for (k = 0; k < {}u; ++k) out[i * {}u + k] = ({w})r[k];", l.n_out, l.n_out));
            lines.push("}".into());
            if let Callable::Kernel(k) = c {
                if k.kind == KernelKind::Butterfly {
                    let (lines_g, e) = group_butterfly(model, k, bits);
                    lines.extend(lines_g);
                    entries.push(e);
                }
            }
            entries.push(ClEntry {
                check: CheckEntry {
                    entry,
                    c_name: name.clone(),
                    family: c.family().to_string(),
                    shape: c.shape().to_string(),
                    elem: c.elem().to_string(),
                    n_in: l.n_in,
                    n_out: l.n_out,
                    workgroup_size: 1,
                    cases_per_workgroup: 1,
                    // Every fixed-layout kernel takes random inputs
                    // (`aether_opencl::random_inputs`).
                    random: true,
                    max_random: None,
                },
                word_bits,
                elem_bits: bits,
                is_float: c.is_float(),
                either_zero: c.either_zero(),
                variable: false,
            });
        }
        if bits == 64 {
            lines.push("#endif /* AETHER_FP64 */".into());
        }
    }
    let arrays = array_kernels(model, &mut lines);
    let witnesses: Vec<Witness> = witnesses.iter().filter(|w| fixed(callables[w.callable])).cloned().collect();
    lines.push(String::new());
    lines.extend(selftest_lines(model, &witnesses));
    let core_ctx = context! {
        banner,
        version => model.spec.version,
        contract_id => selftest::contract_id(model),
        sections => sections(model, lowered),
        check => true,
        check_lines => lines,
        build_options => options::header_lines(),
    };
    let source = render("opencl/aether_core.cl.j2", CORE_TEMPLATE, &core_ctx)?;
    Ok(ClProgram { source, entries, witnesses, arrays, batches: soa::batches(model, lowered) })
}

/// The self-test's tables, dispatcher and kernel.
fn selftest_lines(model: &Model, witnesses: &[Witness]) -> Vec<String> {
    let callables = model.callables();
    let mut thunks: Vec<usize> = Vec::new();
    for w in witnesses {
        if !thunks.contains(&w.callable) {
            thunks.push(w.callable);
        }
    }
    let mut v = vec![
        "/* ---- The self-test: the witnesses of the fixed-layout callables and the subnormal probes ---- */".to_string(),
        String::new(),
        "static size_t aether_selftest_call(uint thunk, const uint64_t *in, size_t n_in, uint64_t *out, size_t cap)".into(),
        "{".into(),
        "    switch (thunk) {".into(),
    ];
    for (i, c) in thunks.iter().enumerate() {
        let short = callables[*c].c_name(model).trim_start_matches("aether_").to_string();
        let is64 = model.spec.types.iter().find(|t| t.name == callables[*c].elem()).is_some_and(|t| t.bits == 64);
        if is64 {
            v.push("#ifdef AETHER_FP64".into());
        }
        v.push(format!("    case {i}u: return aether_flat_call_{short}(in, n_in, out, cap);"));
        if is64 {
            v.push("#endif".into());
        }
    }
    v.push("    default: return AETHER_FLAT_BAD;".into());
    v.push("    }".into());
    v.push("}".into());
    v.push(String::new());
    v.push("/* One row per witness: thunk, bits, is_float, either_zero, n_in, n_out, word offset, the mask of the".into());
    v.push("   causes that can explain its failure (AETHER_SELFTEST_CAUSE_*). */".into());
    v.push(format!("__constant uint aether_selftest_rows[{}][8] = {{", witnesses.len().max(1)));
    let (rows, words) = crate::targets::shared::c_family::selftest::witness_rows(model, witnesses);
    for (w, r) in witnesses.iter().zip(&rows) {
        v.push(format!(
            "    {{ {}u, {}u, {}u, {}u, {}u, {}u, {}u, {}u }}, /* {}: {} */",
            thunks.iter().position(|t| *t == w.callable).unwrap(),
            r.bits,
            u32::from(r.is_float),
            u32::from(r.either_zero),
            w.inputs.len(),
            w.expected.len(),
            r.at,
            w.causes,
            w.c_name,
            w.mutant.name()
        ));
    }
    if witnesses.is_empty() {
        v.push("    { 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u }".into());
    }
    v.push("};".into());
    v.push(format!("__constant ulong aether_selftest_words[{}] = {{", words.len().max(1)));
    v.extend(crate::targets::shared::c_family::selftest::word_lines(&words, "ul"));
    v.push("};".into());
    let max_in = witnesses.iter().map(|w| w.inputs.len()).max().unwrap_or(1).max(1);
    let max_out = witnesses.iter().map(|w| w.expected.len()).max().unwrap_or(1).max(1);
    let probes = selftest::subnormal_probes(model);
    v.push(String::new());
    v.push("/* The subnormal probes: bits, operand (0: a result flush, 1: an operand flush), a, b, a * b. */".into());
    v.push(format!("__constant ulong aether_selftest_probes[{}][5] = {{", probes.len().max(1)));
    for p in &probes {
        v.push(format!("    {{ {}ul, {}ul, 0x{:016x}ul, 0x{:016x}ul, 0x{:016x}ul }},", p.bits, u32::from(p.operand), p.a, p.b, p.expected));
    }
    if probes.is_empty() {
        v.push("    { 0ul, 0ul, 0ul, 0ul, 0ul }".into());
    }
    v.push("};".into());
    v.push(String::new());
    v.extend(c_flat::policy_function("aether_selftest_word_ok"));
    v.push(String::new());
    v.push("/* The causes a failing witness can have besides a broken rule, by bit (selftest::CAUSES). */".into());
    v.extend(crate::targets::shared::c_family::selftest::cause_defines());
    v.push(String::new());
    v.push("/* The cause probes, printed as the core prints its arithmetic (products in parentheses, plain".into());
    v.push("   sums: the program's FP_CONTRACT setting and the compiler's options apply to them as to the".into());
    v.push("   core) on operands the compiler cannot see (volatile words): the mask of the causes whose".into());
    v.push("   probe gives other bits than IEEE arithmetic. */".into());
    v.push("static uint aether_selftest_causes(void)".into());
    v.push("{".into());
    v.push("    uint causes = 0u;".into());
    v.extend(crate::targets::shared::c_family::selftest::cause_probe_statements(
        model,
        &crate::targets::shared::c_family::selftest::Spelling::Infix(&|_, e| format!("({e})")),
        "ul",
        Some(("#ifdef AETHER_FP64", "#endif")),
    ));
    v.push("    return causes;".into());
    v.push("}".into());
    v.push(String::new());
    v.push(format!("#define AETHER_SELFTEST_FAIL_MAX {}u", witnesses.len().max(1)));
    v.extend(
        [
            "/* Run as one work item. status[0]: AETHER_SELFTEST_* bits; status[1]: failed witnesses (indices in",
            "   failed[0..cap)); status[2]: witnesses run; status[3]: skipped (f64 without fp64); status[4]: the",
            "   causes the probes detect (AETHER_SELFTEST_CAUSE_*, flush from the subnormal probes); status[5]:",
            "   the failed witnesses a detected cause explains (its mask meets it); status[6]: the causes that",
            "   explain them. A failed witness no detected cause explains sets AETHER_SELFTEST_RULE; every",
            "   failed witness sets AETHER_SELFTEST_WITNESS (a cause explains a failure, it does not excuse it). */",
            "__kernel void aether_selftest(__global uint *status, __global uint *failed, uint cap)",
            "{",
            "    uint bits = 0u, nfail = 0u, run = 0u, skipped = 0u, i, k, causes = aether_selftest_causes(), explained = 0u, explaining = 0u;",
            "    uint fails[AETHER_SELFTEST_FAIL_MAX];",
            &format!("    uint64_t in[{max_in}], out[{max_out}];"),
            &format!("    for (i = 0u; i < {}u; ++i) {{", witnesses.len()),
            "        const uint thunk = aether_selftest_rows[i][0], wbits = aether_selftest_rows[i][1];",
            "        const uint n_in = aether_selftest_rows[i][4], n_out = aether_selftest_rows[i][5], at = aether_selftest_rows[i][6];",
            "        size_t n;",
            "        int ok = 1;",
            "#ifndef AETHER_FP64",
            "        if (wbits == 64u) {",
            "            ++skipped;",
            "            continue;",
            "        }",
            "#endif",
            "        for (k = 0u; k < n_in; ++k) in[k] = aether_selftest_words[at + k];",
            &format!("        n = aether_selftest_call(thunk, in, n_in, out, {max_out}u);"),
            "        if (n != (size_t)n_out) ok = 0;",
            "        for (k = 0u; ok && k < n_out; ++k)",
            "            ok = aether_selftest_word_ok(aether_selftest_words[at + n_in + k], out[k], wbits,",
            "                                         (int)aether_selftest_rows[i][2], (int)aether_selftest_rows[i][3]);",
            "        ++run;",
            "        if (!ok) {",
            "            if (nfail < AETHER_SELFTEST_FAIL_MAX) fails[nfail] = i;",
            "            ++nfail;",
            "        }",
            "    }",
            "    if (nfail > 0u) bits |= AETHER_SELFTEST_WITNESS;",
            &format!("    for (i = 0u; i < {}u; ++i) {{", probes.len()),
            "        volatile ulong a = aether_selftest_probes[i][2], b = aether_selftest_probes[i][3];",
            "        ulong got;",
            "        if (aether_selftest_probes[i][0] == 32ul) {",
            "            got = (ulong)as_uint(as_float((uint)a) * as_float((uint)b));",
            "        } else {",
            "#ifdef AETHER_FP64",
            "            got = as_ulong(as_double(a) * as_double(b));",
            "#else",
            "            continue;",
            "#endif",
            "        }",
            "        if (got != aether_selftest_probes[i][4])",
            "            bits |= aether_selftest_probes[i][1] ? AETHER_SELFTEST_DENORMALS_ARE_ZERO : AETHER_SELFTEST_FLUSH_TO_ZERO;",
            "    }",
            "    if (bits & (AETHER_SELFTEST_FLUSH_TO_ZERO | AETHER_SELFTEST_DENORMALS_ARE_ZERO)) causes |= AETHER_SELFTEST_CAUSE_FLUSH;",
            "    /* The failed witnesses, those no detected cause explains first (indices in failed[0..cap)). */",
            "    for (k = 0u, i = 0u; i < nfail && i < AETHER_SELFTEST_FAIL_MAX; ++i) {",
            "        const uint m = aether_selftest_rows[fails[i]][7] & causes;",
            "        if (m != 0u) {",
            "            ++explained;",
            "            explaining |= m;",
            "        } else {",
            "            if (k < cap) failed[k] = fails[i];",
            "            ++k;",
            "        }",
            "    }",
            "    for (i = 0u; i < nfail && i < AETHER_SELFTEST_FAIL_MAX; ++i) {",
            "        if ((aether_selftest_rows[fails[i]][7] & causes) == 0u) continue;",
            "        if (k < cap) failed[k] = fails[i];",
            "        ++k;",
            "    }",
            "    if (nfail > explained) bits |= AETHER_SELFTEST_RULE;",
            "    if (explaining & AETHER_SELFTEST_CAUSE_FUSION) bits |= AETHER_SELFTEST_FUSED;",
            "    if (explaining & AETHER_SELFTEST_CAUSE_REASSOCIATION) bits |= AETHER_SELFTEST_REASSOCIATED;",
            "    if (explaining & AETHER_SELFTEST_CAUSE_ZERO_SIGN) bits |= AETHER_SELFTEST_ZERO_SIGN;",
            "    status[0] = bits;",
            "    status[1] = nfail;",
            "    status[2] = run;",
            "    status[3] = skipped;",
            "    status[4] = causes;",
            "    status[5] = explained;",
            "    status[6] = explaining;",
            "}",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    v
}

/// The lane tree on one work group (`<name>_group`): work item l holds lane
/// l's pair; in round r it combines its pair with lane l ^ r's, read from
/// local memory between barriers, as the host tree's w[l] = combine(v[l],
/// v[l ^ r]); work item 0 then holds the host tree's result. One case per
/// work group of `lanes` work items (words as the single-thread entry's).
fn group_butterfly(model: &Model, k: &crate::model::Kernel, bits: u32) -> (Vec<String>, ClEntry) {
    let red = model.spec.reduction.as_ref().expect("kernels need [rules.reduction]");
    let t = model.spec.types.iter().find(|t| t.name == k.elem).expect("a declared element type");
    let pair = c::type_name(model, &red.pair, t);
    let (hi, lo) = (c::component_name(model, &red.pair, 0), c::component_name(model, &red.pair, 1));
    let combine = model.c_name(model.functions.iter().find(|f| f.family == red.combine && f.elem == k.elem).expect("the combine family"));
    let name = model.kernel_c_name(k);
    let short = name.trim_start_matches("aether_");
    let entry = format!("aether_check_{short}_group");
    let lanes = red.lanes;
    let (rd, wr) = if bits == 32 { ("aether_flat_rd32", "aether_flat_wr32") } else { ("aether_flat_rd64", "aether_flat_wr64") };
    let mut v = vec![
        String::new(),
        format!("/* {name} on one work group of {lanes} work items (local memory and barriers): the host tree's bits. */"),
        format!("__kernel __attribute__((reqd_work_group_size({lanes}, 1, 1)))"),
        format!("void {entry}(__global const ulong *in, __global ulong *out, __global ulong *n_out, uint count)"),
        "{".into(),
        format!("    __local {pair} v[{lanes}];"),
        "    const size_t c = get_group_id(0), l = get_local_id(0);".into(),
        format!("    {pair} p;"),
        "    if (c >= count) return; /* the whole group: c is the group's */".into(),
        format!("    p.{hi} = {rd}(in[c * {}u + 2u * l]);", 2 * lanes),
        format!("    p.{lo} = {rd}(in[c * {}u + 2u * l + 1u]);", 2 * lanes),
    ];
    for r in &red.rounds {
        v.push("    v[l] = p;".into());
        v.push("    barrier(CLK_LOCAL_MEM_FENCE);".into());
        v.push(format!("    p = {combine}(p, v[l ^ {r}u]);"));
        v.push("    barrier(CLK_LOCAL_MEM_FENCE);".into());
    }
    v.extend([
        "    if (l == 0u) {".to_string(),
        format!("        out[c * 2u] = {wr}(p.{hi});"),
        format!("        out[c * 2u + 1u] = {wr}(p.{lo});"),
        "        n_out[c] = 2ul;".into(),
        "    }".into(),
        "}".into(),
    ]);
    let e = ClEntry {
        check: CheckEntry {
            entry,
            c_name: name,
            family: k.name.clone(),
            shape: k.shape.clone(),
            elem: k.elem.clone(),
            n_in: 2 * lanes,
            n_out: 2,
            workgroup_size: lanes as u32,
            cases_per_workgroup: 1,
            random: true,
            max_random: None,
        },
        word_bits: 64,
        elem_bits: bits,
        is_float: true,
        either_zero: false,
        variable: false,
    };
    (v, e)
}

/// The kernels over arrays of any length: the arena, then per callable the
/// C core's flat thunk (`c_flat::thunk_with`, the words of
/// `aether_reference::flat`) and a kernel that copies case i's words into
/// private memory (the core's array functions take private pointers: OpenCL
/// C 1.2 has no generic address space), calls the thunk and copies its
/// result words out. One case per work item.
fn array_kernels(model: &Model, lines: &mut Vec<String>) -> Vec<ClEntry> {
    let callables = model.callables();
    let elem_bits = |c: &Callable| model.spec.types.iter().find(|t| t.name == c.elem()).map_or(32, |t| t.bits);
    lines.extend(
        [
            "",
            "/* ---- The kernels over arrays of any length: private buffers of these sizes per work item ---- */",
            "",
            "#ifndef AETHER_CHECK_WORDS",
            &format!("#define AETHER_CHECK_WORDS {ARRAY_WORDS}"),
            "#endif",
            "#ifndef AETHER_CHECK_OUT",
            &format!("#define AETHER_CHECK_OUT {ARRAY_OUT}"),
            "#endif",
            "#ifndef AETHER_CHECK_SCRATCH",
            "#define AETHER_CHECK_SCRATCH (2 * AETHER_CHECK_WORDS + 2 * AETHER_CHECK_OUT + 256)",
            "#endif",
            "",
            "/* calloc for the thunks: n zeroed objects of size bytes from the thunk's arena, 8-byte aligned;",
            "   NULL (the thunk then refuses the case) when the arena is full. */",
            "static inline void *aether_arena_take(uint64_t *arena, size_t *at, size_t n, size_t size)",
            "{",
            "    const size_t words = (n * size + 7u) / 8u;",
            "    size_t k;",
            "    uint64_t *p = arena + *at;",
            "    if (words > (size_t)AETHER_CHECK_SCRATCH - *at) return NULL;",
            "    for (k = 0; k < words; ++k) p[k] = 0u;",
            "    *at += words;",
            "    return (void *)p;",
            "}",
            "#define AETHER_ARENA uint64_t aether_arena_[AETHER_CHECK_SCRATCH]; size_t aether_arena_at_ = 0",
            "#define AETHER_ARENA_CALLOC(n, size) aether_arena_take(aether_arena_, &aether_arena_at_, (n), (size))",
            "#define AETHER_ARENA_FREE(p) ((void)(p))",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    let mut entries = Vec::new();
    for bits in [32u32, 64] {
        let group: Vec<&Callable> = callables.iter().filter(|c| !fixed(**c) && elem_bits(c) == bits).collect();
        if group.is_empty() {
            continue;
        }
        if bits == 64 {
            lines.push("#ifdef AETHER_FP64".into());
        }
        for c in group {
            let name = c.c_name(model);
            let short = name.trim_start_matches("aether_");
            let thunk = format!("aether_flat_call_{short}");
            let entry = format!("aether_check_{short}");
            lines.push(String::new());
            lines.extend(c_flat::thunk_with(model, *c, &thunk, &THUNKS));
            lines.push(String::new());
            lines.extend([
                format!("__kernel void {entry}(__global const ulong *in, __global const ulong *at, __global ulong *out,"),
                format!("{}__global ulong *n_out, uint count, uint cap)", " ".repeat(entry.len() + 15)),
                "{".into(),
                "    const size_t i = get_global_id(0);".into(),
                "    uint64_t w[AETHER_CHECK_WORDS + 1], r[AETHER_CHECK_OUT + 1];".into(),
                "    size_t k, n, n_in;".into(),
                "    if (i >= count) return;".into(),
                "    n_in = (size_t)(at[i + 1] - at[i]);".into(),
                "    if (n_in > (size_t)AETHER_CHECK_WORDS || cap > (uint)AETHER_CHECK_OUT) {".into(),
                "        n_out[i] = (ulong)AETHER_FLAT_BAD;".into(),
                "        return;".into(),
                "    }".into(),
                "    for (k = 0; k < n_in; ++k) w[k] = (uint64_t)in[at[i] + k];".into(),
                format!("    n = {thunk}(w, n_in, r, (size_t)cap);"),
                "    n_out[i] = (ulong)n;".into(),
                "    if (n == AETHER_FLAT_BAD) return;".into(),
                "    for (k = 0; k < n; ++k) out[i * cap + k] = (ulong)r[k];".into(),
                "}".into(),
            ]);
            entries.push(ClEntry {
                check: CheckEntry {
                    entry,
                    c_name: name.clone(),
                    family: c.family().to_string(),
                    shape: c.shape().to_string(),
                    elem: c.elem().to_string(),
                    n_in: 0,
                    n_out: 0,
                    workgroup_size: 1,
                    cases_per_workgroup: 1,
                    random: true,
                    // aether-opencl sets the random count of the kernels over arrays itself
                    // (N/20, `--array-random`).
                    max_random: None,
                },
                word_bits: 64,
                elem_bits: bits,
                is_float: c.is_float(),
                either_zero: c.either_zero(),
                variable: true,
            });
        }
        if bits == 64 {
            lines.push("#endif /* AETHER_FP64 */".into());
        }
    }
    entries
}
