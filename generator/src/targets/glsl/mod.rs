//! The GLSL ES 3.00 core, for WebGL2 and OpenGL ES 3: `glsl_core/aether_core.glsl`,
//! every f32 function of the spec, the 32-slot tree per invocation and the
//! per-lane linear algebra, printed from the same trees as every other core
//! through the one walk of `print` with the spelling `Glsl`; and the check
//! module the runner draws (`runner/src/glsl_draw.rs`): one function per
//! callable over flat words, run from a vertex shader with one vertex per
//! case.
//!
//! GLSL ES 3.00 has no compute shaders, no pointers, no 64-bit type and no
//! `precise`. Where WGSL passes a `ptr<function, ..>` this core passes an
//! `inout` parameter (copied in and out: the same bits, since no routine
//! passes one array twice); where WGSL runs a kernel across a workgroup this
//! core runs the same schedule in one invocation (the lanes in an array).
//! The integer predicates are `predicates.rs` (every i64 in two `uint`
//! limbs); the f64 functions (df64) are not in this core yet.
//!
//! The check module (`check_module`): the core, then the draw's bindings
//!   uniform highp usampler2D aether_in;   // the draw's input words, R32UI
//!   uniform highp uvec4 aether_params;    // (cases, opaque zero, bits of 1.0, 0)
//!   uniform highp uint aether_part;       // the 32-word window of results returned
//!   flat out highp uvec4 aether_o0..7;    // that window, captured by transform feedback
//! and one `void check_...()` per callable: case `gl_VertexID` reads its
//! `n_in` words with `aether_word`, calls the core and stores its `n_out`
//! words with `aether_put`; `main` (the runner's) calls the entry, then
//! `aether_emit`.

use minijinja::context;

use crate::corpus::FunctionCases;
use crate::dsl::BinOp;
use crate::error::Error;
use crate::model::{Builtin, Callable, Function, KernelKind, Kind, Model, Ty};
use crate::selftest::Witness;
use crate::spec::{ElemType, Routine, ShapeKind};
use crate::targets::shared::c_family::{component, component_name, minmax_rule};
use crate::targets::shared::check::{CheckEntry, CheckModule, Guard};
use crate::targets::shared::kernels;
use crate::targets::shared::print::{self, Spelling};
use crate::targets::shared::shader::{self, f32_type, ShaderFunction, ShaderStruct};
use crate::targets::shared::stmt::{Arr, Loop, ParamTy, Place, Statements, Var, VarTy};
use crate::targets::{render, Capabilities, Exactness, Output, Target};

pub mod df64;
pub mod predicates;

/// The key of the GLSL core's band table, `[bands.glsl]`.
pub const BANDS: &str = "glsl";

const CORE_TEMPLATE: &str = include_str!("../../../../templates/glsl/aether_core.glsl.j2");
const CONTRACT_TEMPLATE: &str = include_str!("../../../../templates/glsl/contract.md.j2");
/// The ULP distance, for consumers' own tests.
const ULP_GLSL: &str = include_str!("../../../../templates/glsl/ulp.glsl");

/// The words GLSL ES reserves that this core never uses itself: a spec name
/// equal to one is renamed here (`rename_reserved`) instead of refused for
/// every target.
const RENAMED: &str = include_str!("renamed.txt");

/// The prefix of a renamed word (the spec's names never start with
/// `aether`, so no renamed word meets a spec name).
pub const RENAMED_PREFIX: &str = "aether_kw_";

/// Whether `word` is one GLSL ES reserves and this core renames.
pub fn is_renamed(word: &str) -> bool {
    RENAMED.lines().filter(|l| !l.trim_start().starts_with('#')).flat_map(str::split_whitespace).any(|w| w == word)
}

/// GLSL ES text with every identifier that GLSL ES reserves and the core does
/// not use (`renamed.txt`: `in`, `out`, `input`, `sample`, ...) prefixed with
/// RENAMED_PREFIX, outside comments: a spec's parameter, step, component or
/// array may take such a name (it is only C's or another language's word).
pub fn rename_reserved(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            let end = text[i..].find('\n').map_or(b.len(), |k| i + k);
            out.push_str(&text[i..end]);
            i = end;
        } else if b[i..].starts_with(b"/*") {
            let end = text[i + 2..].find("*/").map_or(b.len(), |k| i + 2 + k + 2);
            out.push_str(&text[i..end]);
            i = end;
        } else if b[i].is_ascii_alphabetic() || b[i] == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &text[start..i];
            if is_renamed(word) {
                out.push_str(RENAMED_PREFIX);
            }
            out.push_str(word);
        } else if b[i].is_ascii_digit() {
            // A number's letters (0x7fu, 1e5) are no identifier.
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                i += 1;
            }
            out.push_str(&text[start..i]);
        } else {
            let ch = text[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// The result words one draw returns per case (the runner's
/// `glsl_draw::PART_WORDS`: 8 `uvec4` varyings).
pub const PART_WORDS: usize = 32;

#[derive(Debug)]
pub struct GlslTarget;

/// The spelling of GLSL ES 3.00: operators for the rounded operations (no
/// contraction control: a fused product is inside the band the spec
/// derives), `?:` for a choice, and the core's helpers on the bits for what
/// GLSL leaves loose (fabs, isfinite and NaN tests: an implementation need
/// not support NaN or infinity). In a function whose tree rests on rounding
/// to nearest every sum passes through the guard (`opaque`), as in WGSL.
#[derive(Debug, Clone, Default)]
pub struct Glsl {
    pub opaque: bool,
    /// The loop variables declared `uint` so far: GLSL converts no `int`
    /// literal to `uint`, so a counted loop from a bare `0` over one of them
    /// starts from `0u`.
    unsigned: std::cell::RefCell<Vec<String>>,
}

/// An exact GLSL literal of an f32 value: a whole number below 2^24 in
/// decimal (`2.0`, `-0.0` as its bits), every other value by its bits
/// (`uintBitsToFloat(0x3dcccccdu)`, a constant expression): GLSL ES states
/// nothing about how a decimal literal is converted, and a compiler that
/// parses to double and then rounds to float rounds twice.
pub fn literal(v: f64) -> String {
    let f = v as f32;
    assert_eq!(f64::from(f), v, "an f32 literal that is not an f32 value");
    if f.fract() == 0.0 && f.abs() < 16_777_216.0 && !(f == 0.0 && f.is_sign_negative()) {
        let sign = if f < 0.0 { "-" } else { "" };
        return format!("{sign}{:.1}", f.abs());
    }
    format!("uintBitsToFloat(0x{:08x}u)", f.to_bits())
}

impl Spelling for Glsl {
    fn lit(&self, v: f64, elem: &ElemType) -> String {
        glsl_scalar(elem);
        literal(v)
    }
    fn truth(&self, b: bool) -> String {
        b.to_string()
    }
    fn bin(&self, op: BinOp, a: &str, b: &str, elem: &ElemType) -> String {
        match op {
            BinOp::Add | BinOp::Sub if self.opaque => format!("aether_barrier_{}(({a} {} {b}))", elem.name, op.symbol()),
            _ => format!("({a} {} {b})", op.symbol()),
        }
    }
    fn select(&self, c: &str, a: &str, b: &str) -> String {
        format!("({c} ? {a} : {b})")
    }
    fn sqrt(&self, x: &str, _elem: &ElemType) -> String {
        format!("sqrt({x})")
    }
    fn call(&self, b: Builtin, args: &[String], elem: &ElemType) -> String {
        let e = &elem.name;
        match b {
            Builtin::Fabs => format!("aether_fabs_{e}({})", args[0]),
            Builtin::IsFinite => format!("aether_isfinite_{e}({})", args[0]),
            Builtin::Fmin | Builtin::Fmax => format!("aether_{}_{e}({}, {})", b.name(), args[0], args[1]),
            Builtin::Barrier => format!("aether_barrier_{e}({})", args[0]),
            // GLSL ES 3.00 has no fma (3.10 adds it); only a mutant calls it,
            // and there it is a product and a sum a compiler may fuse.
            Builtin::Fma => format!("({} * {} + {})", args[0], args[1], args[2]),
            // Only a mutant calls hypot; GLSL's length() of a vec2 is one.
            Builtin::Hypot => format!("length(vec2({}))", args.join(", ")),
            Builtin::Sqrt => unreachable!("printed by sqrt()"),
        }
    }
    fn component(&self, var: &str, kind: &ShapeKind, k: usize) -> String {
        format!("{var}.{}", component(kind, k))
    }
    fn kind_type(&self, model: &Model, kind: &Kind, elem: &ElemType) -> String {
        match kind {
            Kind::Bool => "bool".into(),
            Kind::Shape(s) => type_name(model, &s.name, elem),
        }
    }
    fn bind(&self, name: &str, ty: Ty, elem: &ElemType, value: &str) -> String {
        let ty = if ty == Ty::Bool { "bool".to_string() } else { glsl_scalar(elem) };
        format!("{ty} {name} = {value};")
    }
    fn return_truth(&self, v: &str) -> String {
        format!("return {v};")
    }
    fn declare_out(&self, ty: &str) -> String {
        format!("{ty} {};", print::OUT)
    }
}

/// GLSL's statements: C's declarations and loops (no `const`, which GLSL
/// keeps for constant expressions), every body braced, arrays and written
/// structs passed as `inout` parameters (GLSL has no pointers), a matrix's
/// `m` passed as it is (no view), and the one alias the kernels make (a lane
/// of the lanes array) as a macro of the element it names.
impl Statements for Glsl {
    fn base_type(&self, model: &Model, ty: &VarTy, elem: &ElemType) -> String {
        match ty {
            VarTy::Elem => glsl_scalar(elem),
            VarTy::Int => "int".into(),
            VarTy::Shape(s) => type_name(model, s, elem),
            VarTy::Size => "uint".into(),
        }
    }
    fn decl(&self, model: &Model, elem: &ElemType, _konst: bool, ty: &VarTy, vars: &[Var]) -> String {
        let b = self.base_type(model, ty, elem);
        if *ty == VarTy::Size {
            self.unsigned.borrow_mut().extend(vars.iter().map(|v| v.name.clone()));
        }
        let vs: Vec<String> = vars
            .iter()
            .map(|v| {
                let name = match &v.len {
                    Some(n) => format!("{}[{n}]", v.name),
                    None => v.name.clone(),
                };
                match &v.init {
                    Some(i) => format!("{b} {name} = {i};"),
                    None => format!("{b} {name};"),
                }
            })
            .collect();
        vs.join(" ")
    }
    fn for_head(&self, var: &str, from: &str, lp: &Loop) -> String {
        let from = match from.parse::<u64>() {
            Ok(n) if self.unsigned.borrow().iter().any(|u| u == var) => format!("{n}u"),
            _ => from.to_string(),
        };
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
            Place::Local | Place::Param => format!("{}[{idx}]", a.name),
            Place::Field { .. } => format!("{}.m[{idx}]", a.name),
        }
    }
    fn arg(&self, a: &Arr) -> String {
        match a.place {
            Place::Local | Place::Param => a.name.clone(),
            Place::Field { .. } => format!("{}.m", a.name),
        }
    }
    fn choose(&self, c: &str, a: &str, b: &str) -> String {
        format!("({c} ? {a} : {b})")
    }
    fn incr(&self, v: &str) -> String {
        format!("{v}++;")
    }
    fn view(&self, _of: &str, _ptr: bool) -> Vec<String> {
        Vec::new()
    }
    fn unview(&self, _of: &str) -> Vec<String> {
        Vec::new()
    }
    fn deref(&self, name: &str) -> String {
        name.to_string()
    }
    fn deref_base(&self, name: &str) -> String {
        name.to_string()
    }
    /// GLSL has no pointer: the alias is a macro of the element it names (an
    /// array element at an index without side effects), redefined where the
    /// next alias of that name starts.
    fn alias(&self, _model: &Model, _elem: &ElemType, name: &str, _ty: &VarTy, target: &str) -> String {
        format!("#undef {name}\n#define {name} {target}")
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
                ParamTy::Array { ty, len, konst } => {
                    format!("{}{} {p}[{len}]", if *konst { "" } else { "inout " }, self.base_type(model, ty, elem))
                }
                ParamTy::Value(s) => format!("{} {p}", type_name(model, s, elem)),
                ParamTy::Ptr { shape, konst } => format!("{}{} {p}", if *konst { "" } else { "inout " }, type_name(model, shape, elem)),
                ParamTy::Elem => format!("{} {p}", glsl_scalar(elem)),
            })
            .collect();
        let r = ret.map_or("void".to_string(), |t| self.base_type(model, t, elem));
        format!("{r} {name}({})", ps.join(", "))
    }
}

fn glsl_scalar(elem: &ElemType) -> String {
    assert_eq!(elem.bits, 32, "GLSL ES 3.00 has no f64");
    "float".into()
}

/// The GLSL type of a shape: the C core's struct name, or `float`.
pub fn type_name(model: &Model, shape: &str, elem: &ElemType) -> String {
    match model.spec.shape(shape).map(|s| &s.kind) {
        Some(ShapeKind::Scalar) | None => glsl_scalar(elem),
        _ => format!("aether_{shape}{}", elem.letter),
    }
}

/// The structs of every vector and matrix shape in f32, scalar members in
/// the C core's memory order.
fn structs(model: &Model, t: &ElemType) -> Vec<ShaderStruct> {
    let mut out = Vec::new();
    for shape in &model.spec.shapes {
        let fields = match &shape.kind {
            ShapeKind::Scalar => continue,
            ShapeKind::Vector(names) => names.iter().map(|n| format!("float {n}")).collect(),
            ShapeKind::Matrix { .. } => vec![format!("float m[{}]", shape.len())],
        };
        let doc = crate::targets::shared::docs::shape_doc(shape, "f32");
        out.push(ShaderStruct { name: type_name(model, &shape.name, t), doc, fields, size: 4 * shape.len() });
    }
    out
}

fn function(model: &Model, f: &Function, t: &ElemType) -> ShaderFunction {
    let sp = Glsl { opaque: f.relies_on_rounding(), ..Glsl::default() };
    let name = model.c_name(f);
    let params: Vec<String> = f.params.iter().map(|p| format!("{} {}", sp.kind_type(model, &p.kind, t), p.name)).collect();
    let ret = sp.kind_type(model, &f.ret, t);
    ShaderFunction {
        name: name.clone(),
        doc: crate::targets::shared::docs::function_doc(model, f),
        signature: format!("{ret} {name}({})", params.join(", ")),
        body: print::body(&sp, model, f, t),
    }
}

/// The guard's helper: the value, the opaque zero added to its bits (or, for
/// the controls, multiplied by the opaque one, or nothing). Added, not XORed
/// as in WGSL: Mesa's GLSL compiler (llvmpipe, Mesa 22.3) sees through
/// `floatBitsToUint(x) ^ z` and folds a two-sum's residual to zero behind
/// it, but not through the integer sum (`runner/tests/glsl_guard.rs`).
pub const GUARD_BITS: &str = "floatBitsToUint(x) + aether_opaque_zero";

fn barrier_helper(t: &ElemType, guard: Guard) -> Vec<String> {
    guard_helper(&format!("aether_barrier_{}", t.name), "aether_opaque_zero", "aether_opaque_one", guard)
}

/// A guard function `float name(float x)` over the module's opaque zero and
/// one (the core's barrier, df64's guard): GUARD_BITS's sum on the bits.
pub fn guard_helper(name: &str, zero: &str, one: &str, guard: Guard) -> Vec<String> {
    let body = match guard {
        Guard::Bits => format!("    return uintBitsToFloat({});", GUARD_BITS.replace("aether_opaque_zero", zero)),
        Guard::OpaqueOne => format!("    return x * {one};"),
        Guard::None => "    return x;".into(),
    };
    vec![format!("float {name}(float x) {{"), body, "}".into()]
}

/// The 32-slot tree in one invocation, the lanes in an array.
fn butterfly(model: &Model, t: &ElemType) -> Option<(shader::Butterfly, ShaderFunction)> {
    let b = shader::butterfly(model, t, &|shape| type_name(model, shape, t))?;
    let (pair, combine, lanes, name) = (&b.pair, &b.combine, b.lanes, &b.name);
    let mut per = vec![format!("{pair} v[{lanes}] = lanes;"), format!("{pair} w[{lanes}];")];
    for r in &b.rounds {
        per.push(format!("// round: xor {r}"));
        per.push(format!("for (uint i = 0u; i < {lanes}u; i++) {{ w[i] = {combine}(v[i], v[i ^ {r}u]); }}"));
        per.push("v = w;".into());
    }
    per.push("return v[0];".into());
    let f = ShaderFunction {
        name: name.clone(),
        doc: vec![
            b.doc.clone(),
            "One invocation, the lanes in an array (GLSL ES 3.00 has no workgroups: a shader that spreads the lanes over \
             invocations runs the same rounds in the same pairing)."
                .into(),
        ],
        signature: format!("{pair} {name}({pair} lanes[{lanes}])"),
        body: per,
    };
    Some((b, f))
}

/// fmin or fmax of the spec: C's rule, the NaN test on the bits.
fn minmax(cmp: &str) -> String {
    minmax_rule(cmp, &|x| format!("aether_isnan_f32({x})"), &|c, x, y| format!("({c} ? {x} : {y})"))
}

/// The core's source for the given lowered functions and guard.
pub fn core_source(model: &Model, lowered: &[Function], banner: &str, guard: Guard, witnesses: &[Witness]) -> Result<String, Error> {
    let Some(t) = f32_type(model) else { return Ok(String::new()) };
    let mut functions: Vec<ShaderFunction> = lowered.iter().filter(|f| f.elem == t.name).map(|f| function(model, f, t)).collect();
    if let Some((_, f)) = butterfly(model, t) {
        functions.push(f);
    }
    functions.extend(shader::linalg_functions(model, lowered, t, &Glsl::default()));
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
        ulp => ULP_GLSL.trim_end(),
        version => model.spec.version,
        contract_id => crate::selftest::contract_id(model),
        structs => structs(model, t),
        barrier => barrier_helper(t, guard),
        guard => format!("{guard:?}"),
        functions,
    };
    Ok(rename_reserved(&render("glsl/aether_core.glsl.j2", CORE_TEMPLATE, &ctx)?))
}

/// Statements that bind every parameter of `f` by name, input word `k`
/// spelled by `word(k)` (a `uint` expression).
fn bind_params(model: &Model, f: &Function, t: &ElemType, word: &dyn Fn(usize) -> String) -> Vec<String> {
    let sp = Glsl::default();
    let mut lines = Vec::new();
    let mut w = 0usize;
    for p in &f.params {
        let Kind::Shape(s) = &p.kind else { unreachable!("no truth parameters") };
        let words: Vec<String> = (0..s.len()).map(|k| format!("uintBitsToFloat({})", word(w + k))).collect();
        let ty = sp.kind_type(model, &p.kind, t);
        let value = match &s.kind {
            ShapeKind::Scalar => words[0].clone(),
            ShapeKind::Vector(_) => format!("{ty}({})", words.join(", ")),
            ShapeKind::Matrix { .. } => format!("{ty}(float[{}]({}))", s.len(), words.join(", ")),
        };
        lines.push(format!("{ty} {} = {value};", p.name));
        w += s.len();
    }
    lines
}

/// The words of a function's result `var`, as uint expressions.
fn result_words(f: &Function, var: &str) -> Vec<String> {
    let sp = Glsl::default();
    match &f.ret {
        Kind::Bool => vec![format!("({var} ? 1u : 0u)")],
        Kind::Shape(s) if matches!(s.kind, ShapeKind::Scalar) => vec![format!("floatBitsToUint({var})")],
        Kind::Shape(s) => (0..s.len()).map(|k| format!("floatBitsToUint({})", sp.component(var, &s.kind, k))).collect(),
    }
}

/// The words of the self-test's report (`aether_selftest_report`).
pub const SELFTEST_WORDS: usize = 13;

/// The fields of `aether_selftest_report`, in the order the check entry
/// writes them (the WGSL core's report, field for field).
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

/// The self-test: replays the witnesses of the core's callables (their
/// inputs read from a table at an index offset by the opaque zero, so no
/// compiler folds them when it builds the shader) and probes subnormal
/// flushing and the sign of zero.
fn selftest(model: &Model, lowered: &[Function], t: &ElemType, witnesses: &[Witness]) -> (String, ShaderFunction) {
    selftest_with(model, lowered, t, witnesses, 0)
}

/// The self-test, with the cause probes of the causes in `simulate` (a mask
/// of `selftest::Cause::bit`) printed in the form their cause gives them: a
/// control that stands for an implementation with those causes.
fn selftest_with(model: &Model, lowered: &[Function], t: &ElemType, witnesses: &[Witness], simulate: u32) -> (String, ShaderFunction) {
    let callables = model.callables();
    let zeros = vec!["0u"; SELFTEST_WORDS].join(", ");
    let mut body = vec![format!("aether_selftest_report aether_report = aether_selftest_report({zeros});")];
    body.push(format!("aether_report.witnesses = {}u;", witnesses.len()));
    let table = std::cell::RefCell::new(Vec::<u32>::new());
    let word = |x: u64| {
        let mut t = table.borrow_mut();
        t.push(x as u32);
        format!("aether_w({}u)", t.len() - 1)
    };
    // The causes first, in plain arithmetic on words from the table: an
    // implementation that fuses, reassociates, flushes or ignores zero signs
    // in the core's code does it here too. A failing witness whose causes
    // (its mask, from the generator) meet a detected one is counted as
    // explained.
    for probe in crate::selftest::subnormal_probes(model).into_iter().filter(|p| p.bits == 32) {
        let field = if probe.operand { "flushes_operands" } else { "flushes_results" };
        body.push(format!(
            "aether_report.{field} = (floatBitsToUint(uintBitsToFloat({}) * uintBitsToFloat({})) != 0x{:08x}u) ? 1u : 0u;",
            word(probe.a),
            word(probe.b),
            probe.expected as u32
        ));
    }
    body.push("// -0 * 1 is -0 and +0 * -1 is -0 where the sign of a zero is kept.".into());
    let (nz, one, pz, mone) = (word(0x8000_0000), word(0x3f80_0000), word(0), word(0xbf80_0000));
    body.push(format!(
        "aether_report.zero_sign_ignored = (floatBitsToUint(uintBitsToFloat({nz}) * uintBitsToFloat({one})) != 0x80000000u || floatBitsToUint(uintBitsToFloat({pz}) * uintBitsToFloat({mone})) != 0x80000000u) ? 1u : 0u;"
    ));
    body.extend(crate::selftest::shader_cause_probes(
        model,
        &crate::selftest::ShaderProbeSpelling {
            read: &|x| format!("uintBitsToFloat({})", word(x)),
            bits: &|e| format!("floatBitsToUint({e})"),
            flag: &|cond, bit| format!("(({cond}) ? {bit}u : 0u)"),
            declare: "uint aether_causes",
            shield: &|e| format!("uintBitsToFloat(floatBitsToUint({e}) | aether_opaque_zero)"),
        },
        simulate,
    ));
    for (n, w) in witnesses.iter().enumerate() {
        let c = callables[w.callable];
        let bit = crate::mutants::ALL.iter().position(|m| *m == w.mutant).unwrap();
        let banded = crate::bands::band_on(model, BANDS, c).stated != crate::spec::BandMetric::Bits;
        let in_domain = w.inputs.iter().chain(&w.expected).all(|x| {
            let v = f32::from_bits(*x as u32);
            v.is_finite() && (v == 0.0 || v.abs() >= f32::MIN_POSITIVE)
        }) || !c.is_float();
        let mut block = vec![format!("{{ // witness {n}: {} discriminates {}", w.c_name, w.mutant.name())];
        let got: Vec<String> = match c {
            Callable::Function(f) => {
                let f = lowered.iter().find(|g| g.family == f.family && g.shape == f.shape && g.elem == f.elem).unwrap();
                block.extend(bind_params(model, f, t, &|k| word(w.inputs[k])).into_iter().map(|l| format!("    {l}")));
                let args: Vec<&str> = f.params.iter().map(|p| p.name.as_str()).collect();
                block.push(format!(
                    "    {} aether_got = {}({});",
                    Glsl::default().kind_type(model, &f.ret, t),
                    model.c_name(f),
                    args.join(", ")
                ));
                result_words(f, "aether_got")
            }
            Callable::Kernel(k) => {
                let red = model.spec.reduction.as_ref().unwrap();
                let pair = type_name(model, &red.pair, t);
                block.push(format!("    {pair} aether_lanes[{}];", red.lanes));
                for l in 0..red.lanes {
                    block.push(format!(
                        "    aether_lanes[{l}] = {pair}(uintBitsToFloat({}), uintBitsToFloat({}));",
                        word(w.inputs[2 * l]),
                        word(w.inputs[2 * l + 1])
                    ));
                }
                block.push(format!("    {pair} aether_got = {}(aether_lanes);", model.kernel_c_name(k)));
                let (hi, comp) = (component_name(model, &red.pair, 0), component_name(model, &red.pair, 1));
                vec![format!("floatBitsToUint(aether_got.{hi})"), format!("floatBitsToUint(aether_got.{comp})")]
            }
        };
        let (either, float) = (c.either_zero(), c.is_float());
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
    let decl = format!("const uint aether_witness_words[{}] = uint[{}]({});", table.len(), table.len(), words.join(", "));
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
                "Call aether_set_opaque_zero() with a zero from a uniform first (the witnesses' inputs pass through it, so no compiler \
                 folds them when it builds the shader)."
                    .into(),
                "failed_rules has bit k set for a failing witness of the k-th rule (mutants::ALL order) among the families the spec \
                 states as bits on GLSL, for witnesses inside the domain (finite, no subnormal); banded_differ counts witnesses of \
                 banded families that differ (allowed within their band), outside_domain_differ those with a NaN, infinity or \
                 subnormal word that differ (an implementation may flush or lack NaN)."
                    .into(),
                "fuses, reassociates, flushes_results, flushes_operands and zero_sign_ignored are the cause probes' findings, in \
                 plain arithmetic: a failing witness that one of the detected causes can explain (its mask, from the generator) is \
                 counted in explained (explained_causes: the causes that explained them, selftest::Cause bits: 1 fusion, 2 \
                 reassociation, 4 flush, 8 zero-sign), not in failed_rules."
                    .into(),
            ],
            signature: "aether_selftest_report aether_selftest()".into(),
            body,
        },
    )
}

/// The self-test's witnesses for the GLSL core: those of its callables
/// that run in the self-test's one call (the functions and the butterfly).
pub fn selftest_witnesses(model: &Model, cases_of: &dyn Fn(&str) -> Option<Vec<crate::corpus::Case>>) -> Vec<Witness> {
    let names: Vec<String> = callables(model)
        .iter()
        .filter(|c| !matches!(c, Callable::Kernel(k) if k.kind != KernelKind::Butterfly))
        .map(|c| c.c_name(model))
        .collect();
    crate::selftest::witnesses(model, &|name| if names.iter().any(|n| n == name) { cases_of(name) } else { None })
}

/// The callables the GLSL core has: every f32 function, the butterfly, the
/// array kernels (in one invocation), the per-lane linear algebra and the
/// lanes, plane and resolve steps (the last three as check entries over
/// fixed arrays).
pub fn callables(model: &Model) -> Vec<Callable<'_>> {
    shader::callables(model)
}

/// The entry function `name`: its head, the guard and the case's base words.
fn entry_head(name: &str, n_in: usize) -> Vec<String> {
    vec![
        String::new(),
        format!("void {name}() {{"),
        "    aether_check_guard();".into(),
        format!("    uint aether_base = uint(gl_VertexID) * {n_in}u;"),
    ]
}

/// An entry of one case per vertex: its names, its reference keys (family,
/// shape, element type), its words in and out, its most random inputs.
fn entry_of(
    name: String,
    c_name: String,
    (family, shape, elem): (&str, &str, &str),
    (n_in, n_out): (usize, usize),
    max: Option<usize>,
) -> CheckEntry {
    CheckEntry {
        entry: name,
        c_name,
        family: family.into(),
        shape: shape.into(),
        elem: elem.into(),
        n_in,
        n_out,
        workgroup_size: 1,
        cases_per_workgroup: 1,
        random: true,
        max_random: max,
    }
}

/// The check module of the given lowered functions (the model's own, or a
/// mutant's) with the given guard.
pub fn check_module(model: &Model, lowered: &[Function], guard: Guard) -> CheckModule {
    check_module_with(model, lowered, guard, &[])
}

/// A module whose one entry, `check_selftest`, runs the self-test once and
/// stores its report (SELFTEST_WORDS words; n_in is one unused word).
pub fn selftest_module(model: &Model, lowered: &[Function], guard: Guard, witnesses: &[Witness]) -> CheckModule {
    let mut m = check_module_with(model, lowered, guard, witnesses);
    m.entries.retain(|e| e.entry == "check_selftest");
    m
}

/// The self-test module with the cause probes of `simulate` (a mask of
/// `selftest::Cause::bit`) printed in the form their cause gives them, so
/// that a core printed from a mutant's trees (reassociate, neg-sub) stands
/// for an implementation with that cause: its self-test must name the cause.
/// (GLSL ES 3.00 has no fma(): the fma mutant's trees print as `a * b + c`,
/// which fuses no more than the core does, so fusion is simulated on WGSL.)
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

/// The check module, with the self-test's entry `check_selftest` when
/// `witnesses` is not empty.
pub fn check_module_with(model: &Model, lowered: &[Function], guard: Guard, witnesses: &[Witness]) -> CheckModule {
    let Some(t) = f32_type(model) else { return CheckModule { source: String::new(), entries: Vec::new() } };
    let core = core_source(model, lowered, "// aether check module", guard, witnesses).expect("the GLSL template renders");
    // The core is renamed already; the entries are renamed below, the
    // draw's bindings (which use `out` and `flat` as GLSL does) are not.
    let mut src = Vec::new();
    let mut entries = Vec::new();
    for f in lowered.iter().filter(|f| f.elem == t.name) {
        let name = model.c_name(f);
        let entry = format!("check_{}", name.trim_start_matches("aether_"));
        let (n_in, n_out) = (f.input_words(), f.output_words());
        src.extend(entry_head(&entry, n_in));
        src.extend(bind_params(model, f, t, &|k| format!("aether_word(aether_base + {k}u)")).into_iter().map(|l| format!("    {l}")));
        let args: Vec<&str> = f.params.iter().map(|p| p.name.as_str()).collect();
        src.push(format!("    {} aether_result = {name}({});", Glsl::default().kind_type(model, &f.ret, t), args.join(", ")));
        for (k, w) in result_words(f, "aether_result").into_iter().enumerate() {
            src.push(format!("    aether_put({k}u, {w});"));
        }
        src.push("}".into());
        let mut e = CheckEntry::of_function(entry, name, f, n_in, n_out);
        (e.workgroup_size, e.cases_per_workgroup) = (1, 1);
        entries.push(e);
    }
    if let Some((b, _)) = butterfly(model, t) {
        let red = model.spec.reduction.as_ref().unwrap();
        let (lanes, pair) = (red.lanes, type_name(model, &red.pair, t));
        let (hi, comp) = (component_name(model, &red.pair, 0), component_name(model, &red.pair, 1));
        let entry = format!("check_{}", b.name.trim_start_matches("aether_"));
        src.extend(entry_head(&entry, 2 * lanes));
        src.push(format!("    {pair} aether_lanes[{lanes}];"));
        src.push(format!(
            "    for (uint aether_l = 0u; aether_l < {lanes}u; aether_l++) {{ aether_lanes[aether_l] = {pair}(uintBitsToFloat(aether_word(aether_base + 2u * aether_l)), uintBitsToFloat(aether_word(aether_base + 2u * aether_l + 1u))); }}"
        ));
        src.push(format!("    {pair} aether_r = {}(aether_lanes);", b.name));
        src.push(format!("    aether_put(0u, floatBitsToUint(aether_r.{hi}));"));
        src.push(format!("    aether_put(1u, floatBitsToUint(aether_r.{comp}));"));
        src.push("}".into());
        entries.push(entry_of(entry, b.name.clone(), (&b.kernel.name, &b.kernel.shape, &b.kernel.elem), (2 * lanes, 2), None));
        array_entries(model, t, &b, &mut src, &mut entries);
    }
    linalg_entries(model, t, &mut src, &mut entries);
    kernel_entries(model, t, &mut src, &mut entries);
    if !witnesses.is_empty() {
        src.push(String::new());
        src.push("void check_selftest() {".into());
        src.push("    aether_check_guard();".into());
        src.push("    aether_selftest_report aether_r = aether_selftest();".into());
        for (k, f) in SELFTEST_FIELDS.iter().enumerate() {
            src.push(format!("    aether_put({k}u, aether_r.{f});"));
        }
        src.push("}".into());
        let mut e = entry_of("check_selftest".into(), "aether_selftest".into(), ("selftest", "scalar", &t.name), (1, SELFTEST_WORDS), None);
        e.random = false;
        entries.push(e);
    }
    src.push(String::new());
    let source = [core, String::new(), DRAW_BINDINGS.trim_end().to_string(), rename_reserved(&src.join("\n"))].join("\n");
    CheckModule { source, entries }
}

/// The draw's bindings and word helpers (the convention of
/// `runner/src/glsl_draw.rs`).
pub(crate) const DRAW_BINDINGS: &str = r#"
// The draw (runner/src/glsl_draw.rs): case gl_VertexID reads its input
// words from aether_in (R32UI, 4096 texels a row) and returns the result
// words of window aether_part (32 words) through transform feedback.
uniform highp usampler2D aether_in;
uniform highp uvec4 aether_params;
uniform highp uint aether_part;
flat out highp uvec4 aether_o0;
flat out highp uvec4 aether_o1;
flat out highp uvec4 aether_o2;
flat out highp uvec4 aether_o3;
flat out highp uvec4 aether_o4;
flat out highp uvec4 aether_o5;
flat out highp uvec4 aether_o6;
flat out highp uvec4 aether_o7;
uint aether_r[32];

uint aether_word(uint k) {
    return texelFetch(aether_in, ivec2(int(k % 4096u), int(k / 4096u)), 0).r;
}

void aether_put(uint k, uint w) {
    uint lo = aether_part * 32u;
    if (k >= lo && k - lo < 32u) {
        aether_r[k - lo] = w;
    }
}

void aether_emit() {
    aether_o0 = uvec4(aether_r[0], aether_r[1], aether_r[2], aether_r[3]);
    aether_o1 = uvec4(aether_r[4], aether_r[5], aether_r[6], aether_r[7]);
    aether_o2 = uvec4(aether_r[8], aether_r[9], aether_r[10], aether_r[11]);
    aether_o3 = uvec4(aether_r[12], aether_r[13], aether_r[14], aether_r[15]);
    aether_o4 = uvec4(aether_r[16], aether_r[17], aether_r[18], aether_r[19]);
    aether_o5 = uvec4(aether_r[20], aether_r[21], aether_r[22], aether_r[23]);
    aether_o6 = uvec4(aether_r[24], aether_r[25], aether_r[26], aether_r[27]);
    aether_o7 = uvec4(aether_r[28], aether_r[29], aether_r[30], aether_r[31]);
}

void aether_check_guard() {
    for (int k = 0; k < 32; k++) {
        aether_r[k] = 0u;
    }
    aether_set_opaque_zero(aether_params.y);
    aether_set_opaque_one(uintBitsToFloat(aether_params.z));
}
"#;

/// The elements of one array in the check entries of the array kernels: not
/// a multiple of the lanes, so the last round is ragged.
pub const ARRAY_CHECK_LEN: usize = 100;

/// The check entries of the array kernels (sum_array, dot_array) in one
/// invocation: lane l starts from the +0 pair and takes the terms of
/// elements l, l + lanes, ... in ascending order with the reduction's step
/// ([rules.reduction], strided: element j goes to lane j % lanes, j
/// ascending), then the butterfly and the value. The host's bits, by the
/// spec's batching rule, and the bits of WGSL's workgroup schedule.
fn array_entries(model: &Model, t: &ElemType, b: &shader::Butterfly, src: &mut Vec<String>, entries: &mut Vec<CheckEntry>) {
    let Some(red) = model.spec.reduction.as_ref() else { return };
    let step = |family: &str| model.functions.iter().find(|f| f.family == family && f.elem == t.name).map(|f| model.c_name(f));
    let (Some(step), Some(value)) = (step(&red.step), step(&red.value)) else { return };
    let (lanes, n, pair) = (red.lanes, ARRAY_CHECK_LEN, &b.pair);
    let zero = format!("{pair}({})", vec!["0.0"; model.spec.shape(&red.pair).map_or(2, |s| s.len())].join(", "));
    for k in model.kernels.iter().filter(|k| k.elem == t.name) {
        let KernelKind::Array { lanes: lk } = &k.kind else { continue };
        let Some(KernelKind::Lanes { arrays, term }) = model.kernels.iter().find(|x| &x.name == lk && x.elem == k.elem).map(|x| &x.kind)
        else {
            continue;
        };
        let name = model.kernel_c_name(k);
        let entry = format!("check_{}", name.trim_start_matches("aether_"));
        let sp = Glsl::default();
        let lowered = model.lower(term);
        src.extend(entry_head(&entry, n * arrays.len()));
        src.push(format!("    {pair} aether_p[{lanes}];"));
        src.push(format!("    for (uint aether_l = 0u; aether_l < {lanes}u; aether_l++) {{ aether_p[aether_l] = {zero}; }}"));
        src.push(format!("    for (uint aether_j = 0u; aether_j < {n}u; aether_j++) {{"));
        for (a, p) in arrays.iter().zip(&lowered.params) {
            let at = arrays.iter().position(|x| x == a).unwrap() * n;
            src.push(format!("        float {} = uintBitsToFloat(aether_word(aether_base + {at}u + aether_j));", p.name));
        }
        for tmp in &lowered.temps {
            src.push(format!("        {}", sp.bind(&tmp.name, tmp.ty, t, &print::expr(&sp, &lowered, t, &tmp.expr))));
        }
        src.push(format!(
            "        aether_p[aether_j % {lanes}u] = {step}(aether_p[aether_j % {lanes}u], {});",
            print::expr(&sp, &lowered, t, &lowered.outputs[0])
        ));
        src.push("    }".into());
        src.push(format!("    aether_put(0u, floatBitsToUint({value}({}(aether_p))));", b.name));
        src.push("}".into());
        entries.push(entry_of(entry, name, (&k.name, &k.shape, &k.elem), (n * arrays.len(), 1), None));
    }
}

/// The records of one case of a plane entry, and its elements.
pub const PLANE_CHECK_RECORDS: usize = 8;
pub const PLANE_CHECK_ELEMENTS: usize = 4;
/// The slots of one case of the resolve entry.
pub const RESOLVE_CHECK_LEN: usize = 8;
/// The most random inputs of a per-invocation kernel entry over arrays.
pub const KERNEL_CHECK_RANDOM: usize = 5000;
/// The most random inputs of a linear-algebra entry.
pub const LINALG_CHECK_RANDOM: usize = 2000;
/// The lanes of one case of a many-lane linear-algebra entry.
pub const LINALG_CHECK_LANES: usize = 3;

/// The check entries of the kernels over arrays of any length that run per
/// invocation (lanes_sum, lanes_dot, plane_add, plane_resolve): the case's
/// words are read into fixed local arrays, the C core's kernel body runs on
/// them, printed from the same statement tree (`shared::kernels`), and the
/// results are stored. GLSL has no array of any length in a function.
fn kernel_entries(model: &Model, t: &ElemType, src: &mut Vec<String>, entries: &mut Vec<CheckEntry>) {
    let Some(red) = model.spec.reduction.as_ref() else { return };
    let sp = Glsl::default();
    let pair = type_name(model, &red.pair, t);
    let (hi, lo) = (component_name(model, &red.pair, 0), component_name(model, &red.pair, 1));
    let lanes = red.lanes;
    let rd = |at: &str| format!("uintBitsToFloat(aether_word({at}))");
    for k in model.kernels.iter().filter(|k| k.elem == t.name) {
        let name = model.kernel_c_name(k);
        let entry = format!("check_{}", name.trim_start_matches("aether_"));
        let mut body: Vec<String> = Vec::new();
        let (n_in, n_out) = match &k.kind {
            KernelKind::Lanes { arrays, .. } => {
                let n = ARRAY_CHECK_LEN;
                let (l, first, count) = (kernels::LANES, kernels::FIRST, kernels::COUNT);
                body.push(format!("{pair} {l}[{lanes}];"));
                body.push(format!(
                    "for (uint aether_k = 0u; aether_k < {lanes}u; aether_k++) {{ {l}[aether_k] = {pair}({}, {}); }}",
                    rd("aether_base + 2u * aether_k"),
                    rd("aether_base + 2u * aether_k + 1u")
                ));
                body.push(format!("uint {first} = aether_word(aether_base + {}u);", 2 * lanes));
                body.push(format!("uint {count} = {n}u;"));
                for (a, name) in arrays.iter().enumerate() {
                    body.push(format!("float {name}[{n}];"));
                    body.push(format!(
                        "for (uint aether_k = 0u; aether_k < {n}u; aether_k++) {{ {name}[aether_k] = {}; }}",
                        rd(&format!("aether_base + {}u + aether_k", 2 * lanes + 1 + a * n))
                    ));
                }
                body.extend(crate::targets::shared::stmt::block(&sp, model, t, &kernels::lanes_body(model, k, &sp, &|a| Arr::local(a))));
                body.push(format!(
                    "for (uint aether_k = 0u; aether_k < {lanes}u; aether_k++) {{ aether_put(2u * aether_k, floatBitsToUint({l}[aether_k].{hi})); aether_put(2u * aether_k + 1u, floatBitsToUint({l}[aether_k].{lo})); }}"
                ));
                (2 * lanes + 1 + arrays.len() * n, 2 * lanes)
            }
            KernelKind::Plane { width } => {
                let (kk, s, r) = (*width, PLANE_CHECK_ELEMENTS, PLANE_CHECK_RECORDS);
                let slots = s * kk;
                body.push(format!("float value[{slots}];"));
                body.push(format!("float comp[{slots}];"));
                // The plane starts at +0 (the flat words: the element count S, then the records).
                body.push(format!(
                    "for (uint aether_k = 0u; aether_k < {slots}u; aether_k++) {{ value[aether_k] = 0.0; comp[aether_k] = 0.0; }}"
                ));
                let recs = 1;
                body.push(format!("for (uint aether_r = 0u; aether_r < {r}u; aether_r++) {{"));
                body.push(format!("    uint aether_rec = aether_base + {recs}u + aether_r * {}u;", kk + 1));
                body.push("    uint element = aether_word(aether_rec);".into());
                let shape = model.spec.shape(&k.shape).unwrap();
                let term = match &shape.kind {
                    ShapeKind::Scalar => rd("aether_rec + 1u"),
                    _ => format!(
                        "{}({})",
                        type_name(model, &k.shape, t),
                        (0..kk).map(|c| rd(&format!("aether_rec + {}u", c + 1))).collect::<Vec<_>>().join(", ")
                    ),
                };
                body.push(format!("    {} term = {term};", type_name(model, &k.shape, t)));
                body.extend(
                    crate::targets::shared::stmt::block(&sp, model, t, &kernels::plane_body(model, k, &sp, &|a| Arr::local(a)))
                        .into_iter()
                        .map(|l| format!("    {l}")),
                );
                body.push("}".into());
                body.push(format!("for (uint aether_k = 0u; aether_k < {slots}u; aether_k++) {{ aether_put(aether_k, floatBitsToUint(value[aether_k])); aether_put({slots}u + aether_k, floatBitsToUint(comp[aether_k])); }}"));
                (recs + r * (kk + 1), 2 * slots)
            }
            KernelKind::Resolve => {
                let n = RESOLVE_CHECK_LEN;
                body.push(format!("uint n = {n}u;"));
                body.push(format!("float value[{n}];"));
                body.push(format!("float comp[{n}];"));
                body.push(format!("float out[{n}];"));
                body.push(format!(
                    "for (uint aether_k = 0u; aether_k < {n}u; aether_k++) {{ value[aether_k] = {}; comp[aether_k] = {}; }}",
                    rd("aether_base + aether_k"),
                    rd(&format!("aether_base + {n}u + aether_k"))
                ));
                body.extend(crate::targets::shared::stmt::block(&sp, model, t, &kernels::resolve_body(model, k, &sp, &|a| Arr::local(a))));
                body.push(format!(
                    "for (uint aether_k = 0u; aether_k < {n}u; aether_k++) {{ aether_put(aether_k, floatBitsToUint(out[aether_k])); }}"
                ));
                (2 * n, n)
            }
            _ => continue,
        };
        src.extend(entry_head(&entry, n_in));
        src.extend(body.iter().map(|l| format!("    {l}")));
        src.push("}".into());
        entries.push(entry_of(entry, name.clone(), (&k.name, &k.shape, &k.elem), (n_in, n_out), Some(KERNEL_CHECK_RANDOM)));
    }
}

/// The check entries of the per-lane linear algebra, one case per vertex:
/// a single form reads its flat words (`crate::linalg`: floats as bits,
/// pivots and info as whole numbers) into the core's structs, calls the
/// core's function and stores its result words; a many-lane form runs the
/// single form once per lane over LINALG_CHECK_LANES problems (the C core's
/// loop: GLSL has no array of any length in a function).
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
        let vcomps: Vec<String> = (0..n).map(|c| component_name(model, &format!("vec{n}"), c)).collect();
        let rd = |at: usize| format!("uintBitsToFloat(aether_word(aether_lbase + {at}u))");
        let mat_in = |var: &str, at: usize| {
            vec![
                format!("{mt} {var};"),
                format!(
                    "for (uint aether_k = 0u; aether_k < {nn}u; aether_k++) {{ {var}.m[aether_k] = uintBitsToFloat(aether_word(aether_lbase + {at}u + aether_k)); }}"
                ),
            ]
        };
        let vec_in = |var: &str, at: usize| format!("{vt} {var} = {vt}({});", (0..n).map(|c| rd(at + c)).collect::<Vec<_>>().join(", "));
        let mat_out = |var: &str, at: usize| {
            format!(
                "for (uint aether_k = 0u; aether_k < {nn}u; aether_k++) {{ aether_put(aether_obase + {at}u + aether_k, floatBitsToUint({var}.m[aether_k])); }}"
            )
        };
        let vec_out = |var: &str, at: usize| -> Vec<String> {
            vcomps.iter().enumerate().map(|(c, f)| format!("aether_put(aether_obase + {}u, floatBitsToUint({var}.{f}));", at + c)).collect()
        };
        let int_out = |var: &str, at: usize| format!("aether_put(aether_obase + {at}u, uint({var}));");
        let mut body: Vec<String> = Vec::new();
        match routine {
            Routine::Lu => {
                body.extend(mat_in("a", 0));
                body.push(format!("int ipiv[{n}];"));
                body.push(format!("int info = {single}(a, ipiv);"));
                body.push(mat_out("a", 0));
                body.push(format!(
                    "for (uint aether_k = 0u; aether_k < {n}u; aether_k++) {{ aether_put(aether_obase + {nn}u + aether_k, uint(ipiv[aether_k])); }}"
                ));
                body.push(int_out("info", nn + n));
            }
            Routine::LuSolve => {
                body.extend(mat_in("lu", 0));
                body.push(format!("int ipiv[{n}];"));
                body.push(format!(
                    "for (uint aether_k = 0u; aether_k < {n}u; aether_k++) {{ ipiv[aether_k] = int(aether_word(aether_lbase + {nn}u + aether_k)); }}"
                ));
                body.push(vec_in("b", nn + n));
                body.push(format!("{vt} x = {single}(lu, ipiv, b);"));
                body.extend(vec_out("x", 0));
            }
            Routine::SolveLower | Routine::SolveLowerUnit | Routine::SolveUpper | Routine::SolveUpperUnit | Routine::CholeskySolve => {
                body.extend(mat_in("a", 0));
                body.push(vec_in("b", nn));
                body.push(format!("{vt} x = {single}(a, b);"));
                body.extend(vec_out("x", 0));
            }
            Routine::DetLu => {
                body.extend(mat_in("a", 0));
                body.push(format!("float d = {single}(a);"));
                body.push("aether_put(aether_obase, floatBitsToUint(d));".into());
            }
            Routine::Inverse => {
                body.extend(mat_in("a", 0));
                body.push(format!("{mt} inv;"));
                body.push(format!("int info = {single}(a, inv);"));
                body.push(mat_out("inv", 0));
                body.push(int_out("info", nn));
            }
            Routine::Cholesky => {
                body.extend(mat_in("a", 0));
                body.push(format!("int info = {single}(a);"));
                body.push(mat_out("a", 0));
                body.push(int_out("info", nn));
            }
            Routine::Eigh => {
                body.extend(mat_in("a", 0));
                body.push(format!("{vt} w;"));
                body.push(format!("{mt} v;"));
                body.push(format!("{single}(a, w, v);"));
                body.extend(vec_out("w", 0));
                body.push(mat_out("v", n));
            }
        }
        src.extend(entry_head(&entry, lanes * w_in));
        src.push(format!("    for (uint aether_l = 0u; aether_l < {lanes}u; aether_l++) {{"));
        src.push(format!("        uint aether_lbase = aether_base + aether_l * {w_in}u;"));
        src.push(format!("        uint aether_obase = aether_l * {w_out}u;"));
        src.extend(body.iter().map(|l| format!("        {l}")));
        src.push("    }".into());
        src.push("}".into());
        entries.push(entry_of(entry, name.clone(), (&k.name, &k.shape, &k.elem), (lanes * w_in, lanes * w_out), Some(LINALG_CHECK_RANDOM)));
    }
}

impl Target for GlslTarget {
    fn name(&self) -> &'static str {
        "glsl"
    }

    fn folder(&self) -> &'static str {
        "glsl_core"
    }

    fn exactness(&self) -> Exactness {
        Exactness::Bands(BANDS)
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { f64: false, i64: false, pointers: false, compute: false }
    }

    fn callables<'m>(&self, model: &'m Model) -> Vec<Callable<'m>> {
        callables(model)
    }

    fn prints_df64(&self) -> bool {
        true
    }

    fn df64_audit(&self, model: &Model) -> Option<crate::df64::Audit> {
        let d = crate::df64::of(model)?;
        Some(df64::audit(&df64::core_source(model, &model.lowered(), "", Guard::Bits), d))
    }

    fn validate(&self, model: &Model) -> Result<(), crate::error::SpecError> {
        crate::targets::shared::df64::validate(model)
    }

    fn contract_doc(&self, model: &Model) -> Result<Option<String>, Error> {
        let rows = if model.spec.bands.iter().any(|b| b.target == BANDS) {
            crate::bands::rows(model, BANDS, &callables(model), false)
        } else {
            Vec::new()
        };
        // The per-operation accuracy the table states (or inherits by `like`).
        let ops = model.spec.bands.iter().find(|b| b.target == BANDS).map(|b| b.ops);
        let ctx = context! {
            bands => rows,
            ops => ops.map(|o| context! { add_sub_mul => o.add_sub_mul, div => o.div, sqrt => o.sqrt }),
            linalg_domain => crate::bands::domain_text(crate::bands::LINALG_DOMAIN),
            array_domain => crate::bands::domain_text(crate::bands::ARRAY_KERNEL_DOMAIN),
        };
        Ok(Some(render("glsl/contract.md.j2", CONTRACT_TEMPLATE, &ctx)?))
    }

    fn render(&self, model: &Model, banner: &str, corpus: &[FunctionCases]) -> Result<Vec<Output>, Error> {
        let witnesses = selftest_witnesses(model, &|name| corpus.iter().find(|f| f.c_name == name).map(|f| f.cases.clone()));
        let mut out =
            vec![Output::new("glsl_core/aether_core.glsl", core_source(model, &model.lowered(), banner, Guard::Bits, &witnesses)?)];
        out.push(Output::new("glsl_core/aether_predicate.glsl", predicates::glsl(model, banner)));
        if crate::df64::of(model).is_some_and(|d| d.targets.iter().any(|t| t == self.name())) {
            out.push(Output::new("glsl_core/aether_df64.glsl", df64::core_source(model, &model.lowered(), banner, Guard::Bits)));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_words_are_renamed_outside_comments_only() {
        let text = "// in and out\nfloat f(float out, float input) { /* out */ return out + input + 1e5 + float(0x7fu); }\n";
        assert_eq!(
            rename_reserved(text),
            "// in and out\nfloat f(float aether_kw_out, float aether_kw_input) { /* out */ return aether_kw_out + aether_kw_input + 1e5 + float(0x7fu); }\n"
        );
        assert!(is_renamed("sample") && !is_renamed("float") && !is_renamed("continue") && !is_renamed("inout"));
    }

    #[test]
    fn literals_are_exact() {
        assert_eq!(literal(2.0), "2.0");
        assert_eq!(literal(-3.0), "-3.0");
        assert_eq!(literal(0.0), "0.0");
        assert_eq!(literal(-0.0), "uintBitsToFloat(0x80000000u)");
        assert_eq!(literal(0.5), "uintBitsToFloat(0x3f000000u)");
        assert_eq!(literal(f64::from(0.1f32)), "uintBitsToFloat(0x3dcccccdu)");
        assert_eq!(literal(16_777_216.0), "uintBitsToFloat(0x4b800000u)");
    }
}
