//! The WGSL core: `wgsl_core/aether_core.wgsl`, every f32 function of the
//! spec, the 32-slot tree (per invocation and across a workgroup) and the
//! per-lane linear algebra, and the check module the runner dispatches: one
//! compute entry point per callable over flat words (the kernels over arrays
//! of any length and the many-lane forms as entries over fixed arrays,
//! printed from the C core's statement trees).
//!
//! WGSL is the first target outside the C family. Its trees are printed by
//! the one walk of `print` with the spelling `Wgsl`; nothing here orders an
//! operation. f64 functions are left to df64 (WGSL has no f64).
//!
//! The check module's bindings, shared by every entry point:
//!   @group(0) @binding(0) var<storage, read> aether_in: array<u32>;
//!   @group(0) @binding(1) var<storage, read_write> aether_out: array<u32>;
//!   @group(0) @binding(2) var<uniform> aether_params: vec4<u32>;
//! params.x = the number of cases in the buffers, params.y = 0 (the opaque
//! zero of the guard), params.z = 0x3f800000 (the bits of 1.0, for the
//! opaque-one control), params.w = the first case of this dispatch. Case i
//! reads words [i*n_in, (i+1)*n_in) of aether_in and writes [i*n_out,
//! (i+1)*n_out) of aether_out. An entry with `cases_per_workgroup` ==
//! `workgroup_size` runs one case per invocation (case = params.w +
//! global_invocation_id.x); one with `cases_per_workgroup` == 1 runs one case
//! per workgroup (case = params.w + workgroup_id.x), its invocations
//! cooperating. A dispatch has at most 65535 workgroups in x.

use minijinja::context;

use crate::corpus::FunctionCases;
use crate::dsl::BinOp;
use crate::error::{Error, SpecError};
use crate::model::{Builtin, Callable, Function, Kernel, KernelKind, Kind, Model, Ty};
use crate::selftest::Witness;
use crate::spec::{ElemType, Routine, ShapeKind};
use crate::targets::shared::check::{CheckEntry, CheckModule, Guard, CHECK_WG};
use crate::targets::shared::kernels;
use crate::targets::shared::print::{self, Spelling};
use crate::targets::shared::shader::{self, f32_type, ShaderFunction, ShaderStruct};
use crate::targets::shared::stmt::{Arr, Loop, ParamTy, Place, Statements, Var, VarTy};
use crate::targets::{render, Capabilities, Exactness, Output, Target};

pub mod df64;
pub mod predicates;
pub mod strict;

/// The WGSL core's section of the contract doc: its bands.
const CONTRACT_TEMPLATE: &str = include_str!("../../../../templates/wgsl/contract.md.j2");

/// The key of the WGSL core's band table, `[bands.wgsl]`.
pub const BANDS: &str = "wgsl";

#[derive(Debug)]
pub struct WgslTarget;

/// The first lines of a function's entry (one case per invocation): the
/// case index, the bounds test, the guard's call and the case's first input
/// and output words.
pub fn function_entry_head(entry: &str, guard: &str, n_in: usize, n_out: usize) -> Vec<String> {
    vec![
        String::new(),
        format!("@compute @workgroup_size({CHECK_WG})"),
        format!("fn {entry}(@builtin(global_invocation_id) aether_gid: vec3<u32>) {{"),
        "    let aether_i = aether_params.w + aether_gid.x;".into(),
        "    if (aether_i >= aether_params.x) { return; }".into(),
        format!("    {guard}"),
        format!("    let aether_base = aether_i * {n_in}u;"),
        format!("    let aether_obase = aether_i * {n_out}u;"),
    ]
}

/// The spelling of WGSL: operators for the rounded operations (WGSL has no
/// contraction control: a fused or reassociated product is inside the band
/// the spec derives), `select` for a choice, and the core's helpers for what
/// WGSL leaves loose (fabs, isfinite and NaN tests on the bits, since an
/// implementation may assume no NaN or infinity; the barrier as the guard).
///
/// In a function whose tree rests on rounding to nearest
/// (`Function::relies_on_rounding`: the compensated helpers' barriers, the
/// elementary functions' shifters, splits and two-sums), every addition and
/// subtraction is also passed through the guard (`opaque`):
/// guarding the inputs alone does not stop a compiler that reassociates
/// (lavapipe rewrites t - (t - x) to x, whatever t is, and loses the
/// residual), so each rounded sum is opaque before the next operation reads
/// it. The guard is the identity on the bits: the tree's operations and
/// their order are unchanged.
///
/// `strict` (the strict build, `strict.rs`): every rounded operation's
/// result (product, quotient, square root, and every sum through `opaque`)
/// passes through the guard, in every function.
#[derive(Debug, Clone, Copy, Default)]
pub struct Wgsl {
    pub opaque: bool,
    pub strict: bool,
}

impl Spelling for Wgsl {
    fn lit(&self, v: f64, elem: &ElemType) -> String {
        crate::targets::shared::c_family::literal(v, elem)
    }
    fn truth(&self, b: bool) -> String {
        b.to_string()
    }
    fn bin(&self, op: BinOp, a: &str, b: &str, elem: &ElemType) -> String {
        match op {
            BinOp::Add | BinOp::Sub if self.opaque => format!("aether_barrier_{}(({a} {} {b}))", elem.name, op.symbol()),
            BinOp::Mul | BinOp::Div if self.strict => format!("aether_barrier_{}(({a} {} {b}))", elem.name, op.symbol()),
            _ => format!("({a} {} {b})", op.symbol()),
        }
    }
    fn select(&self, c: &str, a: &str, b: &str) -> String {
        format!("select({b}, {a}, {c})")
    }
    fn sqrt(&self, x: &str, elem: &ElemType) -> String {
        strict::rounded(self, format!("sqrt({x})"), elem)
    }
    fn call(&self, b: Builtin, args: &[String], elem: &ElemType) -> String {
        let e = &elem.name;
        match b {
            Builtin::Fabs => format!("aether_fabs_{e}({})", args[0]),
            Builtin::IsFinite => format!("aether_isfinite_{e}({})", args[0]),
            Builtin::Fmin | Builtin::Fmax => format!("aether_{}_{e}({}, {})", b.name(), args[0], args[1]),
            Builtin::Barrier => format!("aether_barrier_{e}({})", args[0]),
            Builtin::Fma => strict::rounded(self, format!("fma({})", args.join(", ")), elem),
            // Only a mutant calls hypot; WGSL's length() of a vec2 is one.
            Builtin::Hypot => strict::rounded(self, format!("length(vec2<{}>({}))", wgsl_scalar(elem), args.join(", ")), elem),
            Builtin::Sqrt => unreachable!("printed by sqrt()"),
        }
    }
    fn component(&self, var: &str, kind: &ShapeKind, k: usize) -> String {
        format!("{var}.{}", crate::targets::shared::c_family::component(kind, k))
    }
    fn kind_type(&self, model: &Model, kind: &Kind, elem: &ElemType) -> String {
        match kind {
            Kind::Bool => "bool".into(),
            Kind::Shape(s) => type_name(model, &s.name, elem),
        }
    }
    fn bind(&self, name: &str, ty: Ty, elem: &ElemType, value: &str) -> String {
        let ty = if ty == Ty::Bool { "bool".to_string() } else { wgsl_scalar(elem) };
        format!("let {name}: {ty} = {value};")
    }
    fn return_truth(&self, v: &str) -> String {
        format!("return {v};")
    }
    fn declare_out(&self, ty: &str) -> String {
        format!("var {}: {ty};", crate::targets::shared::print::OUT)
    }
}

/// WGSL's statements: `var`/`let` declarations with their types, loop
/// variables of `i32`, every body braced, arrays passed as `ptr<function,
/// array<..>>` (a parameter array is indexed through `*`), and a matrix
/// struct's `m` viewed through a local copy (WGSL has no pointer to a
/// member of a function parameter; the copy is written back before the
/// function returns).
impl Statements for Wgsl {
    fn base_type(&self, model: &Model, ty: &VarTy, elem: &ElemType) -> String {
        match ty {
            VarTy::Elem => wgsl_scalar(elem),
            VarTy::Int => "i32".into(),
            VarTy::Shape(s) => type_name(model, s, elem),
            VarTy::Size => "u32".into(),
        }
    }
    fn decl(&self, model: &Model, elem: &ElemType, konst: bool, ty: &VarTy, vars: &[Var]) -> String {
        let b = self.base_type(model, ty, elem);
        let vs: Vec<String> = vars
            .iter()
            .map(|v| {
                let t = match &v.len {
                    Some(n) => format!("array<{b}, {n}>"),
                    None => b.clone(),
                };
                match (&v.init, konst) {
                    (Some(i), true) => format!("let {}: {t} = {i};", v.name),
                    (Some(i), false) => format!("var {}: {t} = {i};", v.name),
                    (None, _) => format!("var {}: {t};", v.name),
                }
            })
            .collect();
        vs.join(" ")
    }
    fn for_head(&self, var: &str, from: &str, lp: &Loop) -> String {
        match lp {
            Loop::Up(cond) => format!("for ({var} = {from}; {cond}; {var}++)"),
            Loop::Down => format!("for ({var} = {from} - 1; {var} >= 0; {var}--)"),
        }
    }
    fn braces(&self) -> bool {
        true
    }
    fn at(&self, a: &Arr, idx: &str) -> String {
        match a.place {
            Place::Local => format!("{}[{idx}]", a.name),
            Place::Param => format!("(*{})[{idx}]", a.name),
            Place::Field { .. } => format!("{}_m[{idx}]", a.name),
        }
    }
    fn arg(&self, a: &Arr) -> String {
        match a.place {
            Place::Local => format!("&{}", a.name),
            Place::Param => a.name.clone(),
            Place::Field { .. } => format!("&{}_m", a.name),
        }
    }
    fn choose(&self, c: &str, a: &str, b: &str) -> String {
        format!("select({b}, {a}, {c})")
    }
    fn incr(&self, v: &str) -> String {
        format!("{v}++;")
    }
    fn view(&self, of: &str, ptr: bool) -> Vec<String> {
        vec![if ptr { format!("var {of}_m = (*{of}).m;") } else { format!("var {of}_m = {of}.m;") }]
    }
    fn unview(&self, of: &str) -> Vec<String> {
        vec![format!("(*{of}).m = {of}_m;")]
    }
    fn deref(&self, name: &str) -> String {
        format!("*{name}")
    }
    fn deref_base(&self, name: &str) -> String {
        format!("(*{name})")
    }
    fn alias(&self, _model: &Model, _elem: &ElemType, name: &str, _ty: &VarTy, target: &str) -> String {
        format!("let {name} = &{target};")
    }
    fn fn_head(
        &self,
        model: &Model,
        elem: &ElemType,
        _helper: bool,
        ret: Option<&VarTy>,
        name: &str,
        params: &[(String, ParamTy)],
    ) -> String {
        let ps: Vec<String> = params
            .iter()
            .map(|(p, ty)| match ty {
                ParamTy::Array { ty, len, .. } => format!("{p}: ptr<function, array<{}, {len}>>", self.base_type(model, ty, elem)),
                ParamTy::Value(s) => format!("{p}: {}", type_name(model, s, elem)),
                ParamTy::Ptr { shape, .. } => format!("{p}: ptr<function, {}>", type_name(model, shape, elem)),
                ParamTy::Elem => format!("{p}: {}", wgsl_scalar(elem)),
            })
            .collect();
        let r = ret.map_or(String::new(), |t| format!(" -> {}", self.base_type(model, t, elem)));
        format!("fn {name}({}){r}", ps.join(", "))
    }
}

fn wgsl_scalar(elem: &ElemType) -> String {
    assert_eq!(elem.bits, 32, "WGSL has no f64 (df64 is a separate target)");
    "f32".into()
}

/// The WGSL type of a shape: the C core's struct name, or `f32`.
pub fn type_name(model: &Model, shape: &str, elem: &ElemType) -> String {
    match model.spec.shape(shape).map(|s| &s.kind) {
        Some(ShapeKind::Scalar) | None => wgsl_scalar(elem),
        _ => format!("aether_{shape}{}", elem.letter),
    }
}

/// The f32 element type of the spec, when it has one.
/// The structs of every vector and matrix shape in f32: scalar members, so
/// that a struct has alignment 4 and its size is its words (a `vec3<f32>`
/// member would align to 16): an array of them in a storage buffer has the
/// C core's memory order and stride.
fn structs(model: &Model, t: &ElemType) -> Vec<ShaderStruct> {
    let mut out = Vec::new();
    for shape in &model.spec.shapes {
        let fields = match &shape.kind {
            ShapeKind::Scalar => continue,
            ShapeKind::Vector(names) => names.iter().map(|n| format!("{n}: f32")).collect(),
            ShapeKind::Matrix { .. } => vec![format!("m: array<f32, {}>", shape.len())],
        };
        let doc = crate::targets::shared::docs::shape_doc(shape, "f32");
        out.push(ShaderStruct { name: type_name(model, &shape.name, t), doc, fields, size: 4 * shape.len() });
    }
    out
}

fn function(model: &Model, f: &Function, t: &ElemType, strict: bool) -> ShaderFunction {
    let sp = Wgsl { opaque: strict || f.relies_on_rounding(), strict };
    let name = model.c_name(f);
    let params: Vec<String> = f.params.iter().map(|p| format!("{}: {}", p.name, sp.kind_type(model, &p.kind, t))).collect();
    let ret = sp.kind_type(model, &f.ret, t);
    ShaderFunction {
        name: name.clone(),
        doc: crate::targets::shared::docs::function_doc(model, f),
        signature: format!("fn {name}({}) -> {ret}", params.join(", ")),
        body: print::body(&sp, model, f, t),
    }
}

/// The guard's helper: the value, its bits XORed with the opaque zero (or,
/// for the controls, multiplied by the opaque one, or nothing).
fn barrier_helper(t: &ElemType, guard: Guard) -> Vec<String> {
    guard_helper(&format!("aether_barrier_{}", t.name), "aether_opaque_zero", "aether_opaque_one", guard)
}

/// A guard function `name(x: f32) -> f32` over the module's opaque zero and
/// one (the core's barrier, df64's guard).
pub fn guard_helper(name: &str, zero: &str, one: &str, guard: Guard) -> Vec<String> {
    let body = match guard {
        Guard::Bits => format!("    return bitcast<f32>(bitcast<u32>(x) | {zero});"),
        Guard::OpaqueOne => format!("    return x * {one};"),
        Guard::None => "    return x;".into(),
    };
    vec![format!("fn {name}(x: f32) -> f32 {{"), body, "}".into()]
}

/// The kernels the WGSL core has: the 32-slot tree per invocation and across
/// a workgroup, for the f32 pair.
fn butterfly(model: &Model, t: &ElemType) -> Option<(Kernel, Vec<ShaderFunction>)> {
    let b = shader::butterfly(model, t, &|shape| type_name(model, shape, t))?;
    let (pair, combine, lanes, name) = (&b.pair, &b.combine, b.lanes, &b.name);
    let red = &b;
    let k = b.kernel.clone();
    let mut per = vec![format!("var v = lanes;"), format!("var w: array<{pair}, {lanes}>;")];
    for r in &red.rounds {
        per.push(format!("// round: xor {r}"));
        per.push(format!("for (var i = 0u; i < {lanes}u; i++) {{ w[i] = {combine}(v[i], v[i ^ {r}u]); }}"));
        per.push("v = w;".into());
    }
    per.push("return v[0];".into());
    let mut wg = vec![format!("var v = p;")];
    for r in &red.rounds {
        wg.push(format!("// round: xor {r}"));
        wg.push(format!("aether_reduce32_{}[lane] = v;", t.name));
        wg.push("workgroupBarrier();".into());
        wg.push(format!("let o{r} = aether_reduce32_{}[lane ^ {r}u];", t.name));
        wg.push("workgroupBarrier();".into());
        wg.push(format!("v = {combine}(v, o{r});"));
    }
    wg.push("return v;".into());
    let fns = vec![
        ShaderFunction {
            name: name.clone(),
            doc: vec![b.doc.clone(), "One invocation, the lanes in an array.".into()],
            signature: format!("fn {name}(lanes: array<{pair}, {lanes}>) -> {pair}"),
            body: per,
        },
        ShaderFunction {
            name: format!("{name}_workgroup"),
            doc: vec![
                b.doc.clone(),
                format!(
                    "Across a workgroup: invocation `lane` (0..{lanes}) brings its pair `p`, and every invocation gets the result \
                     (combine is symmetric bit for bit). Call it from uniform control flow in a workgroup of exactly {lanes} \
                     invocations; it uses the workgroup array aether_reduce32_{}.",
                    t.name
                ),
            ],
            signature: format!("fn {name}_workgroup(lane: u32, p: {pair}) -> {pair}"),
            body: wg,
        },
    ];
    Some((k, fns))
}

/// The per-lane linear algebra in f32: the helpers of every size over
/// `ptr<function, array<f32, ..>>`, then the single form of every routine
/// over the core's structs (`shared::shader`, spelled by `Wgsl`).
fn linalg_functions(model: &Model, lowered: &[Function], t: &ElemType, strict: bool) -> Vec<ShaderFunction> {
    shader::linalg_functions(model, lowered, t, &strict::spelling(strict))
}

const CORE_TEMPLATE: &str = include_str!("../../../../templates/wgsl/aether_core.wgsl.j2");
/// The ULP distance, for consumers' own tests (the rules of
/// `aether_reference::ulp` and the C core's `aether_f32_ulp_distance`).
const ULP_WGSL: &str = include_str!("../../../../templates/wgsl/ulp.wgsl");

/// fmin or fmax of the spec in WGSL: the C family's rule
/// (`c::minmax_rule`), the NaN test on the bits.
fn minmax(cmp: &str) -> String {
    crate::targets::shared::c_family::minmax_rule(cmp, &|x| format!("aether_isnan_f32({x})"), &|c, x, y| format!("select({y}, {x}, {c})"))
}

/// The core's source for the given lowered functions and guard.
pub fn core_source(model: &Model, lowered: &[Function], banner: &str, guard: Guard, witnesses: &[Witness]) -> Result<String, Error> {
    core_source_of(model, lowered, banner, guard, witnesses, false)
}

/// The core's source, the default build or (`strict`) the strict one.
pub fn core_source_of(
    model: &Model,
    lowered: &[Function],
    banner: &str,
    guard: Guard,
    witnesses: &[Witness],
    strict: bool,
) -> Result<String, Error> {
    let Some(t) = f32_type(model) else { return Ok(String::new()) };
    let mut functions: Vec<ShaderFunction> = lowered.iter().filter(|f| f.elem == t.name).map(|f| function(model, f, t, strict)).collect();
    functions.extend(linalg_functions(model, lowered, t, strict));
    let mut pair = String::new();
    if let Some((_, fns)) = butterfly(model, t) {
        functions.extend(fns);
        let red = model.spec.reduction.as_ref().unwrap();
        pair = format!("var<workgroup> aether_reduce32_{}: array<{}, {}>;", t.name, type_name(model, &red.pair, t), red.lanes);
    }
    let (witness_words, selftest) = match witnesses.is_empty() {
        true => (String::new(), None),
        false => {
            let (decl, f) = selftest(model, lowered, t, witnesses);
            (decl, Some(f))
        }
    };
    let ctx = context! {
        banner,
        selftest,
        witness_words,
        selftest_fields => SELFTEST_FIELDS,
        fmin => minmax("<"),
        fmax => minmax(">"),
        ulp => ULP_WGSL.trim_end(),
        version => model.spec.version,
        contract_id => crate::selftest::contract_id(model),
        structs => structs(model, t),
        barrier => barrier_helper(t, guard),
        guard => format!("{guard:?}"),
        functions,
        workgroup_pair => pair,
        strict,
    };
    render("wgsl/aether_core.wgsl.j2", CORE_TEMPLATE, &ctx)
}

/// The statements of a check entry that read case `i`'s parameters from
/// `aether_in` at `aether_base` and bind them by name.
fn load_params(model: &Model, f: &Function, t: &ElemType) -> Vec<String> {
    bind_params(model, f, t, &|k| format!("bitcast<f32>(aether_in[aether_base + {k}u])"))
}

/// Statements that bind every parameter of `f` by name, input word `k`
/// spelled by `word(k)`.
fn bind_params(model: &Model, f: &Function, t: &ElemType, word: &dyn Fn(usize) -> String) -> Vec<String> {
    let sp = Wgsl::default();
    let mut lines = Vec::new();
    let mut w = 0usize;
    for p in &f.params {
        let Kind::Shape(s) = &p.kind else { unreachable!("no truth parameters") };
        let words: Vec<String> = (0..s.len()).map(|k| word(w + k)).collect();
        let value = match &s.kind {
            ShapeKind::Scalar => words[0].clone(),
            ShapeKind::Vector(_) => format!("{}({})", sp.kind_type(model, &p.kind, t), words.join(", ")),
            ShapeKind::Matrix { .. } => format!("{}(array<f32, {}>({}))", sp.kind_type(model, &p.kind, t), s.len(), words.join(", ")),
        };
        lines.push(format!("let {} = {value};", p.name));
        w += s.len();
    }
    lines
}

/// The words of a function's result `var`, as u32 expressions.
fn result_words(f: &Function, var: &str) -> Vec<String> {
    let sp = Wgsl::default();
    match &f.ret {
        Kind::Bool => vec![format!("select(0u, 1u, {var})")],
        Kind::Shape(s) if matches!(s.kind, ShapeKind::Scalar) => vec![format!("bitcast<u32>({var})")],
        Kind::Shape(s) => (0..s.len()).map(|k| format!("bitcast<u32>({})", sp.component(var, &s.kind, k))).collect(),
    }
}

/// The words of the self-test's report (`aether_selftest_report`).
pub const SELFTEST_WORDS: usize = 13;

/// The self-test: replays the witnesses of the WGSL core's callables (their
/// inputs read through the opaque zero, so no compiler folds them at build
/// time) and probes subnormal flushing and the sign of zero.
fn selftest(model: &Model, lowered: &[Function], t: &ElemType, witnesses: &[Witness]) -> (String, ShaderFunction) {
    selftest_with(model, lowered, t, witnesses, 0)
}

/// The self-test, with the cause probes of the causes in `simulate` (a mask
/// of `selftest::Cause::bit`) printed in the form their cause gives them: a
/// control that stands for a stack with those causes.
fn selftest_with(model: &Model, lowered: &[Function], t: &ElemType, witnesses: &[Witness], simulate: u32) -> (String, ShaderFunction) {
    let callables = model.callables();
    let mut body =
        vec!["var aether_report: aether_selftest_report;".to_string(), format!("aether_report.witnesses = {}u;", witnesses.len())];
    // Every input word of the witnesses and probes, in a table read at an
    // index the compiler cannot see (offset by the opaque zero): a literal
    // input, even guarded, lets the compiler evaluate and rearrange the
    // arithmetic at build time (measured on lavapipe: witnesses that pass
    // in a shader of their own failed beside the subnormal probes).
    let table = std::cell::RefCell::new(Vec::<u32>::new());
    let word = |x: u64| {
        let mut t = table.borrow_mut();
        t.push(x as u32);
        format!("aether_w({}u)", t.len() - 1)
    };
    // The causes first, in plain arithmetic on words from the table: a
    // driver that fuses, reassociates, flushes or ignores zero signs in the
    // core's code does it here too. A failing witness whose causes (its mask,
    // from the generator) meet a detected one is counted as explained.
    let p = crate::selftest::subnormal_probes(model).into_iter().filter(|p| p.bits == 32).collect::<Vec<_>>();
    for probe in &p {
        let field = if probe.operand { "flushes_operands" } else { "flushes_results" };
        body.push(format!(
            "aether_report.{field} = select(0u, 1u, bitcast<u32>({} * {}) != 0x{:08x}u);",
            word(probe.a),
            word(probe.b),
            probe.expected as u32
        ));
    }
    body.push("// -0 * 1 is -0 and +0 * -1 is -0 where the sign of a zero is kept.".into());
    let (nz, one, pz, mone) = (word(0x8000_0000), word(0x3f80_0000), word(0), word(0xbf80_0000));
    body.push(format!(
        "aether_report.zero_sign_ignored = select(0u, 1u, bitcast<u32>({nz} * {one}) != 0x80000000u || bitcast<u32>({pz} * {mone}) != 0x80000000u);"
    ));
    body.extend(crate::selftest::shader_cause_probes(
        model,
        &crate::selftest::ShaderProbeSpelling {
            read: &|x| word(x),
            bits: &|e| format!("bitcast<u32>({e})"),
            flag: &|cond, bit| format!("select(0u, {bit}u, {cond})"),
            declare: "let aether_causes",
            shield: &|e| format!("bitcast<f32>(bitcast<u32>({e}) | aether_opaque_zero)"),
        },
        simulate,
    ));
    for (n, w) in witnesses.iter().enumerate() {
        let c = callables[w.callable];
        let bit = crate::mutants::ALL.iter().position(|m| *m == w.mutant).unwrap();
        let banded = crate::bands::band_on(model, BANDS, c).stated != crate::spec::BandMetric::Bits;
        // A witness with a NaN, an infinity or a subnormal among its words is
        // outside the domain WGSL promises anything for (a stack may flush
        // subnormals and assume no NaN): counted apart.
        let in_domain = w.inputs.iter().chain(&w.expected).all(|x| {
            let v = f32::from_bits(*x as u32);
            v.is_finite() && (v == 0.0 || v.abs() >= f32::MIN_POSITIVE)
        }) || !c.is_float();
        let hex = |x: u64| word(x);
        let mut block = vec![format!("{{ // witness {n}: {} discriminates {}", w.c_name, w.mutant.name())];
        let got: Vec<String> = match c {
            Callable::Function(f) => {
                let f = lowered.iter().find(|g| g.family == f.family && g.shape == f.shape && g.elem == f.elem).unwrap();
                block.extend(bind_params(model, f, t, &|k| hex(w.inputs[k])).into_iter().map(|l| format!("    {l}")));
                let args: Vec<&str> = f.params.iter().map(|p| p.name.as_str()).collect();
                block.push(format!("    let aether_got = {}({});", model.c_name(f), args.join(", ")));
                result_words(f, "aether_got")
            }
            Callable::Kernel(k) => {
                let red = model.spec.reduction.as_ref().unwrap();
                let pair = type_name(model, &red.pair, t);
                block.push(format!("    var aether_lanes: array<{pair}, {}>;", red.lanes));
                for l in 0..red.lanes {
                    block.push(format!("    aether_lanes[{l}] = {pair}({}, {});", hex(w.inputs[2 * l]), hex(w.inputs[2 * l + 1])));
                }
                block.push(format!("    let aether_got = {}(aether_lanes);", model.kernel_c_name(k)));
                let (hi, comp) = (
                    crate::targets::shared::c_family::component_name(model, &red.pair, 0),
                    crate::targets::shared::c_family::component_name(model, &red.pair, 1),
                );
                vec![format!("bitcast<u32>(aether_got.{hi})"), format!("bitcast<u32>(aether_got.{comp})")]
            }
        };
        let either = c.either_zero();
        let float = c.is_float();
        let checks: Vec<String> = got
            .iter()
            .zip(&w.expected)
            .map(|(g, e)| format!("aether_selftest_word({g}, 0x{:08x}u, {float}, {either})", *e as u32))
            .collect();
        block.push(format!("    if (!({})) {{", checks.join(" && ")));
        if !in_domain {
            block.push("        aether_report.outside_domain_differ += 1u;".into());
        } else if banded {
            block.push("        aether_report.banded_differ += 1u;".into());
        } else {
            // The functions the core prints with every sum through its
            // barrier, and the kernels, by the probes printed so.
            let guarded = match c {
                Callable::Function(f) => {
                    lowered.iter().any(|g| g.family == f.family && g.shape == f.shape && g.elem == f.elem && g.relies_on_rounding())
                }
                Callable::Kernel(_) => true,
            };
            let causes = if guarded { "aether_guarded_causes" } else { "aether_causes" };
            block.push(format!(
                "        if (({causes} & {m}u) != 0u) {{ aether_report.explained += 1u; aether_report.explained_causes |= {causes} & {m}u; }} else {{ // causes: {}",
                crate::selftest::Cause::names(w.causes, ", "),
                m = w.causes
            ));
            block.push(format!("        aether_report.failed_rules |= {}u; // {}", 1u64 << bit, w.mutant.name()));
            block.push("        aether_report.failed += 1u;".into());
            block.push(format!("        if (aether_report.first_failed == 0u) {{ aether_report.first_failed = {}u; }}", n + 1));
            block.push("        }".into());
        }
        block.push("    }".into());
        block.push("}".into());
        body.extend(block);
    }
    body.push("return aether_report;".into());
    let table = table.into_inner();
    let words: Vec<String> = table.iter().map(|x| format!("0x{x:08x}u")).collect();
    let decl =
        format!("var<private> aether_witness_words: array<u32, {}> = array<u32, {}>({});", table.len(), table.len(), words.join(", "));
    (
        decl,
        ShaderFunction {
            name: "aether_selftest".into(),
            doc: vec![
                format!(
                    "The self-test: replays {} witness vectors (cases that tell a rule of the spec from a plausible mistake) through the \
                 core and probes the stack: subnormal results and operands flushed, the sign of a zero ignored.",
                    witnesses.len()
                ),
                "Call aether_set_opaque_zero() with a zero from a buffer first (the witnesses' inputs pass through it, so no compiler \
             folds them when it builds the shader)."
                    .into(),
                "failed_rules has bit k set for a failing witness of the k-th rule (mutants::ALL order) among the families the spec \
             states as bits, for witnesses inside WGSL's domain (finite, no subnormal); banded_differ counts witnesses of banded \
             families that differ (allowed within their band), outside_domain_differ those with a NaN, infinity or subnormal \
             word that differ (a stack may flush or assume no NaN)."
                    .into(),
                "fuses, reassociates, flushes_results, flushes_operands and zero_sign_ignored are the cause probes' findings, in \
             plain arithmetic: a failing witness that one of the detected causes can explain (its mask, from the generator) is \
             counted in explained (explained_causes: the causes that explained them, selftest::Cause bits: 1 fusion, 2 \
             reassociation, 4 flush, 8 zero-sign), not in failed_rules."
                    .into(),
            ],
            signature: "fn aether_selftest() -> aether_selftest_report".into(),
            body,
        },
    )
}

/// The self-test module with the cause probes of `simulate` (a mask of
/// `selftest::Cause::bit`) printed in the form their cause gives them, so
/// that a core printed from a mutant's trees (fma, reassociate, neg-sub)
/// stands for a stack with that cause: its self-test must name the cause.
pub fn selftest_module_simulating(model: &Model, lowered: &[Function], guard: Guard, witnesses: &[Witness], simulate: u32) -> CheckModule {
    let mut m = selftest_module(model, lowered, guard, witnesses);
    if simulate != 0 {
        if let Some(t) = f32_type(model) {
            let (_, plain) = selftest_with(model, lowered, t, witnesses, 0);
            let (_, sim) = selftest_with(model, lowered, t, witnesses, simulate);
            for (a, b) in plain.body.iter().zip(&sim.body).filter(|(a, b)| a != b) {
                assert!(m.source.contains(a.as_str()), "the self-test module lacks its probe `{a}`");
                m.source = m.source.replace(a.as_str(), b.as_str());
            }
        }
    }
    m
}

/// The self-test's witnesses for the WGSL core: those of its callables.
pub fn selftest_witnesses(model: &Model, cases_of: &dyn Fn(&str) -> Option<Vec<crate::corpus::Case>>) -> Vec<Witness> {
    // The kernels over arrays and the linear algebra run as entries over
    // buffers, not in the self-test's one invocation (only the butterfly
    // does).
    let names: Vec<String> = callables(model)
        .iter()
        .filter(|c| !matches!(c, Callable::Kernel(k) if k.kind != KernelKind::Butterfly))
        .map(|c| c.c_name(model))
        .collect();
    crate::selftest::witnesses(model, &|name| if names.iter().any(|n| n == name) { cases_of(name) } else { None })
}

/// A module with one entry point, `check_selftest`, that runs the
/// self-test once and writes its report (SELFTEST_WORDS words) to
/// aether_out, with the check module's bindings (n_in is one unused word).
pub fn selftest_module(model: &Model, lowered: &[Function], guard: Guard, witnesses: &[Witness]) -> CheckModule {
    let mut m = check_module_with(model, lowered, guard, witnesses);
    m.entries.retain(|e| e.entry == "check_selftest");
    m
}

fn store_result(f: &Function, var: &str) -> Vec<String> {
    result_words(f, var).into_iter().enumerate().map(|(k, w)| format!("aether_out[aether_obase + {k}u] = {w};")).collect()
}

/// The check module of the given lowered functions (the model's own, or a
/// mutant's) with the given guard: the core, then one entry point per f32
/// function and the butterfly kernel's two forms.
pub fn check_module(model: &Model, lowered: &[Function], guard: Guard) -> CheckModule {
    check_module_with(model, lowered, guard, &[])
}

/// The check module, with the self-test's entry `check_selftest` when
/// `witnesses` is not empty.
pub fn check_module_with(model: &Model, lowered: &[Function], guard: Guard, witnesses: &[Witness]) -> CheckModule {
    check_module_of(model, lowered, guard, witnesses, false)
}

/// The check module of the default build or (`strict`) the strict one.
pub fn check_module_of(model: &Model, lowered: &[Function], guard: Guard, witnesses: &[Witness], strict: bool) -> CheckModule {
    let Some(t) = f32_type(model) else { return CheckModule { source: String::new(), entries: Vec::new() } };
    let core = core_source_of(model, lowered, "// aether check module", guard, witnesses, strict).expect("the WGSL template renders");
    let mut src = vec![
        core,
        String::new(),
        "@group(0) @binding(0) var<storage, read> aether_in: array<u32>;".into(),
        "@group(0) @binding(1) var<storage, read_write> aether_out: array<u32>;".into(),
        "@group(0) @binding(2) var<uniform> aether_params: vec4<u32>;".into(),
        String::new(),
        "fn aether_check_guard() {".into(),
        "    aether_set_opaque_zero(aether_params.y);".into(),
        "    aether_set_opaque_one(bitcast<f32>(aether_params.z));".into(),
        "}".into(),
    ];
    let mut entries = Vec::new();
    for f in lowered.iter().filter(|f| f.elem == t.name) {
        let name = model.c_name(f);
        let entry = format!("check_{}", name.trim_start_matches("aether_"));
        let (n_in, n_out) = (f.input_words(), f.output_words());
        src.extend(function_entry_head(&entry, "aether_check_guard();", n_in, n_out));
        src.extend(load_params(model, f, t).into_iter().map(|l| format!("    {l}")));
        let args: Vec<&str> = f.params.iter().map(|p| p.name.as_str()).collect();
        src.push(format!("    let aether_result = {name}({});", args.join(", ")));
        src.extend(store_result(f, "aether_result").into_iter().map(|l| format!("    {l}")));
        src.push("}".into());
        entries.push(CheckEntry::of_function(entry, name, f, n_in, n_out));
    }
    if let Some((k, _)) = butterfly(model, t) {
        let red = model.spec.reduction.as_ref().unwrap();
        let (lanes, pair) = (red.lanes, type_name(model, &red.pair, t));
        let name = model.kernel_c_name(&k);
        let (hi, comp) = (
            crate::targets::shared::c_family::component_name(model, &red.pair, 0),
            crate::targets::shared::c_family::component_name(model, &red.pair, 1),
        );
        let short = name.trim_start_matches("aether_");
        src.push(String::new());
        src.push(format!("@compute @workgroup_size({CHECK_WG})"));
        src.push(format!("fn check_{short}(@builtin(global_invocation_id) aether_gid: vec3<u32>) {{"));
        src.push("    let aether_i = aether_params.w + aether_gid.x;".into());
        src.push("    if (aether_i >= aether_params.x) { return; }".into());
        src.push("    aether_check_guard();".into());
        src.push(format!("    let aether_base = aether_i * {}u;", 2 * lanes));
        src.push(format!("    var lanes: array<{pair}, {lanes}>;"));
        src.push(format!("    for (var l = 0u; l < {lanes}u; l++) {{"));
        src.push(format!(
            "        lanes[l] = {pair}(bitcast<f32>(aether_in[aether_base + 2u * l]), bitcast<f32>(aether_in[aether_base + 2u * l + 1u]));"
        ));
        src.push("    }".into());
        src.push(format!("    let r = {name}(lanes);"));
        src.push(format!("    aether_out[aether_i * 2u] = bitcast<u32>(r.{hi});"));
        src.push(format!("    aether_out[aether_i * 2u + 1u] = bitcast<u32>(r.{comp});"));
        src.push("}".into());
        src.push(String::new());
        src.push(format!("@compute @workgroup_size({lanes})"));
        src.push(format!(
            "fn check_{short}_workgroup(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lane: u32) {{"
        ));
        src.push("    let aether_i = aether_params.w + wid.x;".into());
        src.push("    if (aether_i >= aether_params.x) { return; }".into());
        src.push("    aether_check_guard();".into());
        src.push(format!("    let aether_base = aether_i * {}u + 2u * lane;", 2 * lanes));
        src.push(format!("    let p = {pair}(bitcast<f32>(aether_in[aether_base]), bitcast<f32>(aether_in[aether_base + 1u]));"));
        src.push(format!("    let r = {name}_workgroup(lane, p);"));
        src.push("    if (lane == 0u) {".into());
        src.push(format!("        aether_out[aether_i * 2u] = bitcast<u32>(r.{hi});"));
        src.push(format!("        aether_out[aether_i * 2u + 1u] = bitcast<u32>(r.{comp});"));
        src.push("    }".into());
        src.push("}".into());
        for (entry, wg, per) in [(format!("check_{short}"), CHECK_WG, CHECK_WG), (format!("check_{short}_workgroup"), lanes as u32, 1)] {
            entries.push(CheckEntry {
                entry,
                c_name: name.clone(),
                family: k.name.clone(),
                shape: k.shape.clone(),
                elem: k.elem.clone(),
                n_in: 2 * lanes,
                n_out: 2,
                workgroup_size: wg,
                cases_per_workgroup: per,
                random: true,
                max_random: None,
            });
        }
        array_entries(model, t, &mut src, &mut entries, strict);
    }
    linalg_entries(model, t, &mut src, &mut entries);
    kernel_entries(model, t, &mut src, &mut entries, strict);
    if !witnesses.is_empty() {
        src.push(String::new());
        src.push("@compute @workgroup_size(1)".into());
        src.push("fn check_selftest() {".into());
        src.push("    aether_check_guard();".into());
        src.push("    let r = aether_selftest();".into());
        for (k, f) in SELFTEST_FIELDS.iter().enumerate() {
            src.push(format!("    aether_out[{k}u] = r.{f};"));
        }
        src.push("}".into());
        entries.push(CheckEntry {
            entry: "check_selftest".into(),
            c_name: "aether_selftest".into(),
            family: "selftest".into(),
            shape: "scalar".into(),
            elem: t.name.clone(),
            n_in: 1,
            n_out: SELFTEST_WORDS,
            workgroup_size: 1,
            cases_per_workgroup: 1,
            random: false,
            max_random: None,
        });
    }
    src.push(String::new());
    CheckModule { source: src.join("\n"), entries }
}

/// The elements of one array in the check entries of the array kernels: not
/// a multiple of the lanes, so the last round is ragged.
pub const ARRAY_CHECK_LEN: usize = 100;

/// The check entries of the array kernels (sum_array, dot_array) in the
/// workgroup schedule a WGSL kernel gives them, one array of ARRAY_CHECK_LEN
/// elements per workgroup of `lanes` invocations: invocation l starts from
/// the +0 pair and adds the terms of elements l, l + lanes, ... in ascending
/// order with the reduction's step ([rules.reduction], strided), then the
/// workgroup butterfly and the value. The host's bits, by the spec's
/// batching rule. (A kernel over a caller's storage buffer is the same loop
/// with the buffer in place of aether_in.)
fn array_entries(model: &Model, t: &ElemType, src: &mut Vec<String>, entries: &mut Vec<CheckEntry>, strict: bool) {
    let Some(red) = model.spec.reduction.as_ref() else { return };
    let Some((bfly, _)) = butterfly(model, t) else { return };
    let step = |family: &str| model.functions.iter().find(|f| f.family == family && f.elem == t.name).map(|f| model.c_name(f));
    let (Some(step), Some(value)) = (step(&red.step), step(&red.value)) else { return };
    let pair = type_name(model, &red.pair, t);
    let (lanes, n) = (red.lanes, ARRAY_CHECK_LEN);
    for k in model.kernels.iter().filter(|k| k.elem == t.name) {
        let KernelKind::Array { lanes: lk } = &k.kind else { continue };
        let Some(KernelKind::Lanes { arrays, term }) = model.kernels.iter().find(|x| &x.name == lk && x.elem == k.elem).map(|x| &x.kind)
        else {
            continue;
        };
        let name = model.kernel_c_name(k);
        let short = name.trim_start_matches("aether_");
        let entry = format!("check_{short}_workgroup");
        let sp = strict::spelling(strict);
        let lowered = model.lower(term);
        src.push(String::new());
        src.push(format!("@compute @workgroup_size({lanes})"));
        // The spec's arrays (and the term's steps) are in scope: every other name is `aether_...`.
        src.push(format!("fn {entry}(@builtin(workgroup_id) aether_wid: vec3<u32>, @builtin(local_invocation_index) aether_lane: u32) {{"));
        src.push("    let aether_i = aether_params.w + aether_wid.x;".into());
        src.push("    if (aether_i >= aether_params.x) { return; }".into());
        src.push("    aether_check_guard();".into());
        src.push(format!("    let aether_base = aether_i * {}u;", n * arrays.len()));
        src.push(format!("    var aether_p: {pair};"));
        src.extend(crate::targets::shared::c_family::zero_pair(model, t, "aether_p").into_iter().map(|l| format!("    {l}")));
        src.push(format!("    for (var aether_j = aether_lane; aether_j < {n}u; aether_j += {lanes}u) {{"));
        for (a, p) in arrays.iter().zip(&lowered.params) {
            let at = arrays.iter().position(|x| x == a).unwrap() * n;
            src.push(format!("        let {} = bitcast<f32>(aether_in[aether_base + {at}u + aether_j]);", p.name));
        }
        for tmp in &lowered.temps {
            src.push(format!("        {}", sp.bind(&tmp.name, tmp.ty, t, &print::expr(&sp, &lowered, t, &tmp.expr))));
        }
        src.push(format!("        aether_p = {step}(aether_p, {});", print::expr(&sp, &lowered, t, &lowered.outputs[0])));
        src.push("    }".into());
        src.push(format!("    let aether_r = {value}({}_workgroup(aether_lane, aether_p));", model.kernel_c_name(&bfly)));
        src.push("    if (aether_lane == 0u) {".into());
        src.push("        aether_out[aether_i] = bitcast<u32>(aether_r);".into());
        src.push("    }".into());
        src.push("}".into());
        entries.push(CheckEntry {
            entry,
            c_name: name,
            family: k.name.clone(),
            shape: k.shape.clone(),
            elem: k.elem.clone(),
            n_in: n * arrays.len(),
            n_out: 1,
            workgroup_size: lanes as u32,
            cases_per_workgroup: 1,
            random: true,
            max_random: None,
        });
    }
}

/// The records of one case of a plane entry, and its elements.
pub const PLANE_CHECK_RECORDS: usize = 8;
pub const PLANE_CHECK_ELEMENTS: usize = 4;
/// The slots of one case of the resolve entry.
pub const RESOLVE_CHECK_LEN: usize = 8;

/// The check entries of the kernels over arrays of any length that are not
/// the workgroup schedule (lanes_sum, lanes_dot, plane_add, plane_resolve),
/// one case per invocation: the case's words are read into fixed local
/// arrays (ARRAY_CHECK_LEN elements per array for the lanes kernels,
/// PLANE_CHECK_ELEMENTS elements and PLANE_CHECK_RECORDS records for a
/// plane, RESOLVE_CHECK_LEN slots), then the C core's kernel body runs on
/// them, printed from the same statement tree (`targets::kernels`), and the
/// results are written back. A plain WGSL function cannot take an array of
/// any length; a consumer runs the same body over its storage buffer.
fn kernel_entries(model: &Model, t: &ElemType, src: &mut Vec<String>, entries: &mut Vec<CheckEntry>, strict: bool) {
    let Some(red) = model.spec.reduction.as_ref() else { return };
    let sp = strict::spelling(strict);
    let pair = type_name(model, &red.pair, t);
    let (hi, lo) = (
        crate::targets::shared::c_family::component_name(model, &red.pair, 0),
        crate::targets::shared::c_family::component_name(model, &red.pair, 1),
    );
    let lanes = red.lanes;
    let rd = |at: &str| format!("bitcast<f32>(aether_in[{at}])");
    for k in model.kernels.iter().filter(|k| k.elem == t.name) {
        let name = model.kernel_c_name(k);
        let entry = format!("check_{}", name.trim_start_matches("aether_"));
        let mut body: Vec<String> = Vec::new();
        let (n_in, n_out) = match &k.kind {
            KernelKind::Lanes { arrays, .. } => {
                let n = ARRAY_CHECK_LEN;
                // The spec's arrays are in scope: the kernel's own names are `aether_...`.
                let (l, first, count) = (kernels::LANES, kernels::FIRST, kernels::COUNT);
                body.push(format!("var {l}: array<{pair}, {lanes}>;"));
                body.push(format!(
                    "for (var aether_k = 0u; aether_k < {lanes}u; aether_k++) {{ {l}[aether_k] = {pair}({}, {}); }}",
                    rd("aether_base + 2u * aether_k"),
                    rd("aether_base + 2u * aether_k + 1u")
                ));
                body.push(format!("let {first} = aether_in[aether_base + {}u];", 2 * lanes));
                body.push(format!("let {count} = {n}u;"));
                for (a, name) in arrays.iter().enumerate() {
                    body.push(format!("var {name}: array<f32, {n}>;"));
                    body.push(format!(
                        "for (var aether_k = 0u; aether_k < {n}u; aether_k++) {{ {name}[aether_k] = {}; }}",
                        rd(&format!("aether_base + {}u + aether_k", 2 * lanes + 1 + a * n))
                    ));
                }
                body.extend(crate::targets::shared::stmt::block(&sp, model, t, &kernels::lanes_body(model, k, &sp, &|a| Arr::local(a))));
                body.push(format!(
                    "for (var aether_k = 0u; aether_k < {lanes}u; aether_k++) {{ aether_out[aether_obase + 2u * aether_k] = bitcast<u32>({l}[aether_k].{hi}); aether_out[aether_obase + 2u * aether_k + 1u] = bitcast<u32>({l}[aether_k].{lo}); }}"
                ));
                (2 * lanes + 1 + arrays.len() * n, 2 * lanes)
            }
            KernelKind::Plane { width } => {
                let (kk, s, r) = (*width, PLANE_CHECK_ELEMENTS, PLANE_CHECK_RECORDS);
                let slots = s * kk;
                body.push(format!("var value: array<f32, {slots}>;"));
                body.push(format!("var comp: array<f32, {slots}>;"));
                body.push(format!("for (var aether_r = 0u; aether_r < {r}u; aether_r++) {{"));
                body.push(format!("    let aether_rec = aether_base + 1u + aether_r * {}u;", kk + 1));
                body.push("    let element = aether_in[aether_rec];".into());
                let shape = model.spec.shape(&k.shape).unwrap();
                let term = match &shape.kind {
                    ShapeKind::Scalar => rd("aether_rec + 1u"),
                    _ => format!(
                        "{}({})",
                        type_name(model, &k.shape, t),
                        (0..kk).map(|c| rd(&format!("aether_rec + {}u", c + 1))).collect::<Vec<_>>().join(", ")
                    ),
                };
                body.push(format!("    let term = {term};"));
                body.extend(
                    crate::targets::shared::stmt::block(
                        &sp,
                        model,
                        t,
                        &crate::targets::shared::kernels::plane_body(model, k, &sp, &|a| Arr::local(a)),
                    )
                    .into_iter()
                    .map(|l| format!("    {l}")),
                );
                body.push("}".into());
                body.push(format!("for (var aether_k = 0u; aether_k < {slots}u; aether_k++) {{ aether_out[aether_obase + aether_k] = bitcast<u32>(value[aether_k]); aether_out[aether_obase + {slots}u + aether_k] = bitcast<u32>(comp[aether_k]); }}"));
                (1 + r * (kk + 1), 2 * slots)
            }
            KernelKind::Resolve => {
                let n = RESOLVE_CHECK_LEN;
                body.push(format!("let n = {n}u;"));
                body.push(format!("var value: array<f32, {n}>;"));
                body.push(format!("var comp: array<f32, {n}>;"));
                body.push(format!("var out: array<f32, {n}>;"));
                body.push(format!(
                    "for (var aether_k = 0u; aether_k < {n}u; aether_k++) {{ value[aether_k] = {}; comp[aether_k] = {}; }}",
                    rd("aether_base + aether_k"),
                    rd(&format!("aether_base + {n}u + aether_k"))
                ));
                body.extend(crate::targets::shared::stmt::block(
                    &sp,
                    model,
                    t,
                    &crate::targets::shared::kernels::resolve_body(model, k, &sp, &|a| Arr::local(a)),
                ));
                body.push(format!("for (var aether_k = 0u; aether_k < {n}u; aether_k++) {{ aether_out[aether_obase + aether_k] = bitcast<u32>(out[aether_k]); }}"));
                (2 * n, n)
            }
            _ => continue,
        };
        src.push(String::new());
        src.push(format!("@compute @workgroup_size({CHECK_WG})"));
        src.push(format!("fn {entry}(@builtin(global_invocation_id) aether_gid: vec3<u32>) {{"));
        src.push("    let aether_i = aether_params.w + aether_gid.x;".into());
        src.push("    if (aether_i >= aether_params.x) { return; }".into());
        src.push("    aether_check_guard();".into());
        src.push(format!("    let aether_base = aether_i * {n_in}u;"));
        src.push(format!("    let aether_obase = aether_i * {n_out}u;"));
        src.extend(body.iter().map(|l| format!("    {l}")));
        src.push("}".into());
        entries.push(CheckEntry {
            entry,
            c_name: name.clone(),
            family: k.name.clone(),
            shape: k.shape.clone(),
            elem: k.elem.clone(),
            n_in,
            n_out,
            workgroup_size: CHECK_WG,
            cases_per_workgroup: CHECK_WG,
            random: true,
            max_random: Some(KERNEL_CHECK_RANDOM),
        });
    }
}

/// The most random inputs of a linear-algebra entry (each is a whole
/// factorisation or sweep; at 10^5 the 66 entries would add minutes to CI on
/// two cores): the corpus plus at most this many per entry.
pub const LINALG_CHECK_RANDOM: usize = 2000;
/// The most random inputs of a per-invocation kernel entry over arrays
/// (lanes_sum, lanes_dot, plane_add, plane_resolve).
pub const KERNEL_CHECK_RANDOM: usize = 5000;

/// The lanes of one case of a many-lane linear-algebra entry.
pub const LINALG_CHECK_LANES: usize = 3;

/// The check entries of the per-lane linear algebra, one case per
/// invocation. A single form reads its flat words (`crate::linalg`: floats
/// as bits, pivots and info as whole numbers) into the core's structs, calls
/// the core's function and writes its result words. A many-lane form runs
/// the C core's loop over the lanes of a case (LINALG_CHECK_LANES problems
/// one after another in the buffer), the single form once per lane: WGSL has
/// no pointer to a runtime-sized array in a plain function, so a many-lane
/// form is an entry point's loop over storage (as here), not a function of
/// the core.
fn linalg_entries(model: &Model, t: &ElemType, src: &mut Vec<String>, entries: &mut Vec<CheckEntry>) {
    for k in model.kernels.iter().filter(|k| k.elem == t.name) {
        let KernelKind::Linalg { routine, n, many } = k.kind else { continue };
        let name = model.kernel_c_name(k);
        let single = name.trim_end_matches("_lanes");
        let entry = format!("check_{}", name.trim_start_matches("aether_"));
        let (w_in, w_out) = crate::linalg::words(routine, n);
        let lanes = if many { LINALG_CHECK_LANES } else { 1 };
        let (mt, vt) = (type_name(model, &format!("mat{n}"), t), type_name(model, &format!("vec{n}"), t));
        let nn = n * n;
        let vcomps: Vec<String> = (0..n).map(|c| crate::targets::shared::c_family::component_name(model, &format!("vec{n}"), c)).collect();
        let rd = |at: usize| format!("bitcast<f32>(aether_in[aether_base + {at}u])");
        let mat_in = |var: &str, at: usize| {
            vec![format!("var {var}: {mt};"), format!("for (var aether_k = 0u; aether_k < {nn}u; aether_k++) {{ {var}.m[aether_k] = bitcast<f32>(aether_in[aether_base + {at}u + aether_k]); }}")]
        };
        let vec_in = |var: &str, at: usize| format!("let {var} = {vt}({});", (0..n).map(|c| rd(at + c)).collect::<Vec<_>>().join(", "));
        let mat_out = |var: &str, at: usize| {
            format!("for (var aether_k = 0u; aether_k < {nn}u; aether_k++) {{ aether_out[aether_obase + {at}u + aether_k] = bitcast<u32>({var}.m[aether_k]); }}")
        };
        let vec_out = |var: &str, at: usize| -> Vec<String> {
            vcomps.iter().enumerate().map(|(c, f)| format!("aether_out[aether_obase + {}u] = bitcast<u32>({var}.{f});", at + c)).collect()
        };
        let int_out = |var: &str, at: usize| format!("aether_out[aether_obase + {at}u] = u32({var});");
        let mut body: Vec<String> = Vec::new();
        match routine {
            Routine::Lu => {
                body.extend(mat_in("a", 0));
                body.push(format!("var ipiv: array<i32, {n}>;"));
                body.push(format!("let info = {single}(&a, &ipiv);"));
                body.push(mat_out("a", 0));
                body.push(format!("for (var aether_k = 0u; aether_k < {n}u; aether_k++) {{ aether_out[aether_obase + {nn}u + aether_k] = u32(ipiv[aether_k]); }}"));
                body.push(int_out("info", nn + n));
            }
            Routine::LuSolve => {
                body.extend(mat_in("lu", 0));
                body.push(format!("var ipiv: array<i32, {n}>;"));
                body.push(format!("for (var aether_k = 0u; aether_k < {n}u; aether_k++) {{ ipiv[aether_k] = i32(aether_in[aether_base + {nn}u + aether_k]); }}"));
                body.push(vec_in("b", nn + n));
                body.push(format!("let x = {single}(&lu, &ipiv, b);"));
                body.extend(vec_out("x", 0));
            }
            Routine::SolveLower | Routine::SolveLowerUnit | Routine::SolveUpper | Routine::SolveUpperUnit | Routine::CholeskySolve => {
                body.extend(mat_in("a", 0));
                body.push(vec_in("b", nn));
                body.push(format!("let x = {single}(a, b);"));
                body.extend(vec_out("x", 0));
            }
            Routine::DetLu => {
                body.extend(mat_in("a", 0));
                body.push(format!("let d = {single}(a);"));
                body.push("aether_out[aether_obase] = bitcast<u32>(d);".into());
            }
            Routine::Inverse => {
                body.extend(mat_in("a", 0));
                body.push(format!("var inv: {mt};"));
                body.push(format!("let info = {single}(a, &inv);"));
                body.push(mat_out("inv", 0));
                body.push(int_out("info", nn));
            }
            Routine::Cholesky => {
                body.extend(mat_in("a", 0));
                body.push(format!("let info = {single}(&a);"));
                body.push(mat_out("a", 0));
                body.push(int_out("info", nn));
            }
            Routine::Eigh => {
                body.extend(mat_in("a", 0));
                body.push(format!("var w: {vt};"));
                body.push(format!("var v: {mt};"));
                body.push(format!("{single}(a, &w, &v);"));
                body.extend(vec_out("w", 0));
                body.push(mat_out("v", n));
            }
        }
        src.push(String::new());
        src.push(format!("@compute @workgroup_size({CHECK_WG})"));
        src.push(format!("fn {entry}(@builtin(global_invocation_id) aether_gid: vec3<u32>) {{"));
        src.push("    let aether_i = aether_params.w + aether_gid.x;".into());
        src.push("    if (aether_i >= aether_params.x) { return; }".into());
        src.push("    aether_check_guard();".into());
        if many {
            src.push(format!("    for (var aether_l = 0u; aether_l < {lanes}u; aether_l++) {{"));
            src.push(format!("        let aether_base = (aether_i * {lanes}u + aether_l) * {w_in}u;"));
            src.push(format!("        let aether_obase = (aether_i * {lanes}u + aether_l) * {w_out}u;"));
            src.extend(body.iter().map(|l| format!("        {l}")));
            src.push("    }".into());
        } else {
            src.push(format!("    let aether_base = aether_i * {w_in}u;"));
            src.push(format!("    let aether_obase = aether_i * {w_out}u;"));
            src.extend(body.iter().map(|l| format!("    {l}")));
        }
        src.push("}".into());
        entries.push(CheckEntry {
            entry,
            c_name: name.clone(),
            family: k.name.clone(),
            shape: k.shape.clone(),
            elem: k.elem.clone(),
            n_in: lanes * w_in,
            n_out: lanes * w_out,
            workgroup_size: CHECK_WG,
            cases_per_workgroup: CHECK_WG,
            random: true,
            max_random: Some(LINALG_CHECK_RANDOM),
        });
    }
}

/// The fields of `aether_selftest_report`, in the order the check entry
/// writes them.
pub const SELFTEST_FIELDS: [&str; SELFTEST_WORDS] = [
    "failed_rules",
    "failed",
    "banded_differ",
    "witnesses",
    "flushes_results",
    "flushes_operands",
    "zero_sign_ignored",
    "first_failed",
    "outside_domain_differ",
    "fuses",
    "reassociates",
    "explained",
    "explained_causes",
];

/// The callables the WGSL core has: every f32 function, the f32 butterfly
/// kernel, and the array kernels in their workgroup schedule (check entries).
pub fn callables(model: &Model) -> Vec<Callable<'_>> {
    shader::callables(model)
}

impl Target for WgslTarget {
    fn name(&self) -> &'static str {
        "wgsl"
    }

    fn folder(&self) -> &'static str {
        "wgsl_core"
    }

    fn exactness(&self) -> Exactness {
        Exactness::Bands(BANDS)
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { f64: false, i64: false, pointers: false, compute: true }
    }

    fn prints_df64(&self) -> bool {
        true
    }

    fn callables<'m>(&self, model: &'m Model) -> Vec<Callable<'m>> {
        callables(model)
    }

    fn contract_doc(&self, model: &Model) -> Result<Option<String>, Error> {
        let rows = if model.spec.bands.iter().any(|b| b.target == BANDS) {
            crate::bands::rows(model, BANDS, &callables(model), false)
        } else {
            Vec::new()
        };
        let ctx = context! {
            bands => rows,
            linalg_domain => crate::bands::domain_text(crate::bands::LINALG_DOMAIN),
            array_domain => crate::bands::domain_text(crate::bands::ARRAY_KERNEL_DOMAIN),
        };
        Ok(Some(render("wgsl/contract.md.j2", CONTRACT_TEMPLATE, &ctx)?))
    }

    fn df64_audit(&self, model: &Model) -> Option<crate::df64::Audit> {
        let d = crate::df64::of(model)?;
        Some(df64::audit(&df64::core_source(model, &model.lowered(), "", Guard::Bits), d))
    }

    /// Every f32 function and the butterfly kernel have a metric in
    /// `[bands.wgsl]` that their trees can have.
    fn validate(&self, model: &Model) -> Result<(), SpecError> {
        crate::targets::shared::df64::validate(model)
    }

    fn render(&self, model: &Model, banner: &str, corpus: &[FunctionCases]) -> Result<Vec<Output>, Error> {
        let witnesses = selftest_witnesses(model, &|name| corpus.iter().find(|f| f.c_name == name).map(|f| f.cases.clone()));
        let core = core_source(model, &model.lowered(), banner, Guard::Bits, &witnesses)?;
        Ok(vec![
            Output::new("wgsl_core/aether_core.wgsl", core),
            Output::new(strict::PATH, core_source_of(model, &model.lowered(), banner, Guard::Bits, &witnesses, true)?),
            Output::new("wgsl_core/aether_predicate.wgsl", predicates::wgsl(model, banner)),
            Output::new(
                "wgsl_core/aether_df64.wgsl",
                crate::targets::wgsl::df64::core_source(model, &model.lowered(), banner, Guard::Bits),
            ),
        ])
    }
}
