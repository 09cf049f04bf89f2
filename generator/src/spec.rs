//! Reading and validating the spec: serde types with spans, then a checked,
//! plain `Spec` that the model is built from.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use toml::Spanned;

use crate::dsl::{self, Ast, AstKind, Stmt};
use crate::error::{LineIndex, SpecError, SpecErrors};
use crate::names;
use crate::predicate;
use crate::spans::{first_content_line, in_file_order};

/// The most components a vector shape may have (OpenCL C's widest vector).
pub const MAX_COMPONENTS: usize = 16;
/// The most rows or columns of a matrix shape.
pub const MAX_MATRIX_SIDE: usize = 8;
/// The most lanes of the compensated reduction: a CUDA thread block, and
/// more than any WebGPU or OpenCL work-group guarantees (each target may ask
/// for less; the CUDA core needs exactly its warp of 32).
pub const MAX_LANES: usize = 1024;
/// The most words of one probe, and the most probes of one function.
pub const MAX_PROBE_WORDS: usize = 4096;
pub const MAX_PROBES: usize = 256;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    contract: RawContract,
    types: BTreeMap<String, Spanned<RawType>>,
    shapes: BTreeMap<String, Spanned<RawShape>>,
    rules: RawRules,
    combiners: BTreeMap<String, Spanned<RawCombiner>>,
    policy: Spanned<RawPolicy>,
    families: BTreeMap<String, Spanned<RawFamily>>,
    /// `[shared.<name>]`: compositions stated once that bodies call, and that
    /// no core exports (no function, no cases of their own).
    #[serde(default)]
    shared: BTreeMap<String, Spanned<RawFamily>>,
    #[serde(default)]
    kernels: BTreeMap<String, Spanned<RawKernel>>,
    #[serde(default)]
    bands: BTreeMap<String, Spanned<RawBands>>,
    #[serde(default)]
    integer_types: BTreeMap<String, Spanned<predicate::RawIntType>>,
    #[serde(default)]
    int_functions: BTreeMap<String, Spanned<predicate::RawIntFunction>>,
    #[serde(default)]
    predicates: BTreeMap<String, Spanned<predicate::RawPredicate>>,
    df64: Option<Spanned<crate::df64_spec::RawDf64>>,
    #[serde(default)]
    df64_ops: BTreeMap<String, Spanned<crate::df64_spec::RawOp>>,
    /// `[constants]`: read and checked with the model (`crate::constants`),
    /// after the checks of types and families whose errors come first.
    #[serde(default)]
    #[allow(dead_code)]
    constants: Option<toml::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBands {
    /// Another target's table this one starts from (`like = "wgsl"`): its
    /// entries and accuracies, each replaced where this table states it.
    like: Option<Spanned<String>>,
    #[serde(default)]
    bits: Vec<Spanned<String>>,
    #[serde(default)]
    ulp: Vec<Spanned<String>>,
    #[serde(default)]
    forward: Vec<Spanned<String>>,
    #[serde(default)]
    unbounded: Vec<Spanned<String>>,
    /// The target's accuracy per rounded operation, in ulp.
    add_sub_mul_ulp: Option<Spanned<f64>>,
    div_ulp: Option<Spanned<f64>>,
    sqrt_ulp: Option<Spanned<f64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawContract {
    name: Spanned<String>,
    version: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawType {
    c_type: Spanned<String>,
    letter: Spanned<String>,
    literal_suffix: String,
    libm_suffix: String,
    bits: Spanned<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawShape {
    kind: Spanned<String>,
    components: Option<Spanned<Vec<Spanned<String>>>>,
    rows: Option<Spanned<usize>>,
    cols: Option<Spanned<usize>>,
    layout: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRules {
    fold: Spanned<RawFold>,
    reduction: Option<Spanned<RawReduction>>,
    linalg: Option<Spanned<RawLinalg>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLinalg {
    pivot: Spanned<String>,
    update: Spanned<String>,
    multipliers: Spanned<String>,
    symmetrize: Spanned<String>,
    eigh_sweeps: Spanned<usize>,
    rotation: Spanned<String>,
    update_pair: Spanned<String>,
    diag: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReduction {
    lanes: Spanned<usize>,
    rounds: Spanned<Vec<Spanned<usize>>>,
    assignment: Spanned<String>,
    step: Spanned<String>,
    combine: Spanned<String>,
    value: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawKernel {
    op: Option<Spanned<String>>,
    doc: Spanned<String>,
    schedule: Spanned<String>,
    shapes: Spanned<Vec<Spanned<String>>>,
    arrays: Option<Spanned<Vec<Spanned<String>>>>,
    term: Option<Spanned<String>>,
    lanes: Option<Spanned<String>>,
    cases: Option<Spanned<Vec<Spanned<String>>>>,
    shape_cases: Option<BTreeMap<String, Spanned<Vec<Spanned<String>>>>>,
    many: Option<Spanned<bool>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFold {
    nesting: Spanned<String>,
    seed: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCombiner {
    expr: Spanned<String>,
    identity: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    nan: Spanned<String>,
    either_zero: Spanned<Vec<Spanned<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFamily {
    op: Option<Spanned<String>>,
    doc: Spanned<String>,
    shapes: Spanned<Vec<Spanned<String>>>,
    params: Spanned<Vec<Spanned<String>>>,
    returns: Spanned<String>,
    body: Option<Spanned<String>>,
    bodies: Option<BTreeMap<String, Spanned<String>>>,
    derived: Option<Spanned<Vec<Spanned<String>>>>,
    cases: Option<Spanned<Vec<Spanned<String>>>>,
}

/// An IEEE binary element type and how C spells it.
#[derive(Debug, Clone, PartialEq)]
pub struct ElemType {
    pub name: String,
    pub c_type: String,
    pub letter: String,
    pub literal_suffix: String,
    pub libm_suffix: String,
    pub bits: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    RowMajor,
    ColumnMajor,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ShapeKind {
    Scalar,
    /// Named components in memory order.
    Vector(Vec<String>),
    Matrix {
        rows: usize,
        cols: usize,
        layout: Layout,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub name: String,
    pub kind: ShapeKind,
}

impl Shape {
    /// Number of stored components.
    pub fn len(&self) -> usize {
        match &self.kind {
            ShapeKind::Scalar => 1,
            ShapeKind::Vector(c) => c.len(),
            ShapeKind::Matrix { rows, cols, .. } => rows * cols,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Memory index of matrix element (r, c).
    pub fn matrix_index(&self, r: usize, c: usize) -> Option<usize> {
        match self.kind {
            ShapeKind::Matrix { rows, cols, layout } if r < rows && c < cols => Some(match layout {
                Layout::RowMajor => r * cols + c,
                Layout::ColumnMajor => c * rows + r,
            }),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nesting {
    /// `t[N-1] (+) (... (+) t[0])`: accumulate upward from t[0] (the contract).
    Right,
    /// Accumulate downward from t[N-1]: the mirror order (a mutant).
    Left,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seed {
    None,
    /// Start from the combiner's identity (a mutant).
    Identity,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FoldRule {
    pub nesting: Nesting,
    pub seed: Seed,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Combiner {
    pub name: String,
    pub source: String,
    pub expr: Ast,
    pub identity: f64,
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// Families whose +0 and -0 results match each other.
    pub either_zero: Vec<String>,
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ParamKind {
    /// The family's own shape.
    SelfShape,
    Scalar,
    Bool,
    /// The vector with one entry per matrix column (a matrix's right operand).
    VecCols,
    /// The vector with one entry per matrix row (a matrix-vector result).
    VecRows,
    Named(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    /// The shape this body is for, or `None` for every shape.
    pub shape: Option<String>,
    /// The element type this body is for (`bodies.f64`), or `None` for
    /// every type. A type's body states its own constants (`f64_bits`).
    pub elem: Option<String>,
    pub stmts: Vec<Stmt>,
    /// The body as written in the spec.
    pub source: String,
    /// Spec line of the body's first line, and its key.
    pub line: usize,
    pub key: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Family {
    pub name: String,
    pub op: String,
    pub doc: String,
    pub shapes: Vec<String>,
    pub params: Vec<(String, ParamKind)>,
    pub returns: ParamKind,
    pub bodies: Vec<Body>,
    /// Parameters that test inputs compute from the others (`s = a + b`):
    /// the name, the expression, its text and its spec line, in order.
    pub derived: Vec<(String, Ast, String, usize)>,
    /// Named probe inputs that go into the corpus as they are.
    pub cases: Vec<Probe>,
    pub line: usize,
    /// The spec line of `params`.
    pub params_line: usize,
    /// A shared composition (`[shared.<name>]`): called from bodies, never
    /// exported.
    pub internal: bool,
}

/// One word of a probe: a number in the element type, or a whole number
/// (a count or an index).
#[derive(Debug, Clone, PartialEq)]
pub enum ProbeWord {
    /// A decimal or named value (`0.5`, `1e8`, `inf`, `-inf`, `nan`, `max`,
    /// `-max`, `tiny`), rounded once to the element type.
    Float(String),
    /// `#n`: the integer n itself.
    Int(u64),
}

/// A named probe input: `"label: w0, w1, ..."` in the spec.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    pub label: String,
    pub words: Vec<ProbeWord>,
    pub line: usize,
    pub key: String,
    /// The one shape it is for (a kernel's `shape_cases.<shape>`); `None`
    /// for every shape of its family or kernel.
    pub shape: Option<String>,
}

impl Probe {
    /// Whether the probe is an input of the instance of shape `shape`.
    pub fn applies_to(&self, shape: &str) -> bool {
        self.shape.as_deref().is_none_or(|s| s == shape)
    }
}

impl ProbeWord {
    /// The bit pattern in an element type of `bits` bits.
    pub fn word(&self, bits: u32) -> u64 {
        match self {
            ProbeWord::Int(n) => *n,
            ProbeWord::Float(s) => {
                let v = probe_value(s, bits).expect("checked when the spec was read");
                if bits == 32 {
                    u64::from((v as f32).to_bits())
                } else {
                    v.to_bits()
                }
            }
        }
    }
}

/// A decimal probe word must be a number of some element type: one that
/// rounds to infinity in binary64 (`1e400`) or a nonzero one that rounds to
/// zero there (`1e-400`) is another input than the one written, in every
/// type; `inf`, `max`, `tiny` and the like say what is meant. (A probe is an
/// input of every type of its family, so a binary64 case such as `1e-310`
/// may round in binary32: the spec's labels say which type a case is for.)
fn decimal_fits(word: &str) -> Result<(), String> {
    let body = word.strip_prefix('-').unwrap_or(word);
    if !body.starts_with(|c: char| c.is_ascii_digit() || c == '.') || body.contains('*') {
        return Ok(());
    }
    let mantissa = body.split(['e', 'E']).next().unwrap_or(body);
    let nonzero = mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b));
    let v = probe_value(body, 64).unwrap_or(f64::NAN);
    if v.is_infinite() {
        return Err(
            "overflows every element type (binary64's largest finite number is 1.7976931348623157e308, `max`; write `inf` for infinity)"
                .into(),
        );
    }
    if v == 0.0 && nonzero {
        return Err(
            "underflows to zero in every element type (binary64's least nonzero number is 4.9e-324, `tiny`; write 0 for zero)".into()
        );
    }
    Ok(())
}

/// The value of a probe word in an element type of `bits` bits, carried in
/// an f64 that holds it exactly: a decimal rounded once to the type, a name
/// (`inf`, `nan`, `max`, `tiny`, `max_ulp` the spacing of the largest
/// binade), or `k*name` with a decimal k such that the product is exact.
fn probe_value(s: &str, bits: u32) -> Option<f64> {
    let (neg, body) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
    let named = |name: &str| -> Option<f64> {
        Some(match (name, bits) {
            ("inf", _) => f64::INFINITY,
            ("nan", _) => f64::NAN,
            ("max", 32) => f64::from(f32::MAX),
            ("max", _) => f64::MAX,
            ("tiny", 32) => f64::from(f32::from_bits(1)),
            ("tiny", _) => f64::from_bits(1),
            ("max_ulp", 32) => 2f64.powi(104),
            ("max_ulp", _) => 2f64.powi(971),
            _ => return None,
        })
    };
    let v = if let Some((k, name)) = body.split_once('*') {
        let k: f64 = k.parse().ok().filter(|k: &f64| k.is_finite())?;
        let v = k * named(name)?;
        // The product must be exact in the element type.
        let exact = if bits == 32 { f64::from(v as f32) == v } else { v.is_finite() && v / named(name)? == k };
        if !exact {
            return None;
        }
        v
    } else if let Some(v) = named(body) {
        v
    } else if bits == 32 {
        f64::from(body.parse::<f32>().ok()?)
    } else {
        body.parse::<f64>().ok()?
    };
    Some(if neg { -v } else { v })
}

fn probes(loc: &Loc, key: &str, raw: Option<&Spanned<Vec<Spanned<String>>>>) -> Result<Vec<Probe>, SpecError> {
    let mut out = Vec::new();
    let items = raw.map(|r| r.get_ref().as_slice()).unwrap_or_default();
    if items.len() > MAX_PROBES {
        let at = raw.map_or(0, |r| r.span().start);
        return Err(loc.err(at, key.to_string(), format!("{} probes: at most {MAX_PROBES}", items.len())));
    }
    for item in items {
        let bad = |m: String| loc.err(item.span().start, key.to_string(), m);
        let (label, rest) =
            item.get_ref().rsplit_once(':').ok_or_else(|| bad(format!("`{}` is not `label: word, word, ...`", item.get_ref())))?;
        names::check_text(label).map_err(|m| bad(format!("probe label `{}`: {m}", label.trim().escape_debug())))?;
        if rest.split(',').count() > MAX_PROBE_WORDS {
            return Err(bad(format!("probe `{}` has more than {MAX_PROBE_WORDS} words", label.trim())));
        }
        let mut words = Vec::new();
        for w in rest.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            let word = if let Some(n) = w.strip_prefix('#') {
                ProbeWord::Int(n.parse().map_err(|_| bad(format!("`{w}` is not a whole number")))?)
            } else {
                if probe_value(w, 32).is_none() || probe_value(w, 64).is_none() {
                    return Err(bad(format!("`{w}` is not a number, `inf`, `nan`, `max`, `tiny`, `k*max_ulp` or `#n`")));
                }
                decimal_fits(w).map_err(|m| bad(format!("`{w}` {m}")))?;
                ProbeWord::Float(w.to_string())
            };
            words.push(word);
        }
        out.push(Probe {
            label: label.trim().to_string(),
            words,
            line: loc.lines.line(item.span().start),
            key: key.to_string(),
            shape: None,
        });
    }
    Ok(out)
}

impl Family {
    /// The body for one shape and element type: the shape's own, else the
    /// type's own, else the family's `body`.
    pub fn body_for(&self, shape: &str, elem: &str) -> Option<&Body> {
        let find = |f: &dyn Fn(&Body) -> bool| self.bodies.iter().find(|b| f(b));
        find(&|b| b.shape.as_deref() == Some(shape))
            .or_else(|| find(&|b| b.shape.is_none() && b.elem.as_deref() == Some(elem)))
            .or_else(|| find(&|b| b.shape.is_none() && b.elem.is_none()))
    }

    /// Whether some body belongs to one element type only.
    pub fn has_type_bodies(&self) -> bool {
        self.bodies.iter().any(|b| b.elem.is_some())
    }

    /// Whether the family, or a family it calls (at any depth), states a
    /// body per element type: its instances are then built once per type.
    pub fn depends_on_type(&self, spec: &Spec) -> bool {
        fn calls(ast: &dsl::Ast, out: &mut Vec<String>) {
            use dsl::AstKind as K;
            match &ast.kind {
                K::Number(_) | K::Int(_) | K::Ident(_) => {}
                K::Field(a, _) | K::Not(a) => calls(a, out),
                K::Index(a, b) | K::Bin(_, a, b) | K::Bits(_, a, b) => {
                    calls(a, out);
                    calls(b, out);
                }
                K::Select(c, a, b) => {
                    calls(c, out);
                    calls(a, out);
                    calls(b, out);
                }
                K::Call(name, args) => {
                    out.push(name.clone());
                    args.iter().for_each(|a| calls(a, out));
                }
            }
        }
        let mut seen = vec![self.name.clone()];
        let mut todo = vec![self];
        while let Some(f) = todo.pop() {
            if f.has_type_bodies() {
                return true;
            }
            let mut names = Vec::new();
            f.bodies.iter().flat_map(|b| &b.stmts).for_each(|st| calls(&st.value, &mut names));
            for n in names {
                if let Some(g) = spec.family(&n).filter(|_| !seen.contains(&n)) {
                    seen.push(n);
                    todo.push(g);
                }
            }
        }
        false
    }
}

/// The validated spec.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    pub file: String,
    /// The spec's text, so a consumer can fingerprint it.
    pub source: String,
    pub name: String,
    pub version: String,
    pub types: Vec<ElemType>,
    pub shapes: Vec<Shape>,
    pub fold: FoldRule,
    pub combiners: Vec<Combiner>,
    pub policy: Policy,
    pub families: Vec<Family>,
    pub reduction: Option<Reduction>,
    pub linalg: Option<Linalg>,
    pub kernels: Vec<KernelSpec>,
    /// `[bands.<target>]`: the metric of each family and kernel on a target
    /// that is not bit-exact (the numbers are derived: `crate::bands`).
    pub bands: Vec<TargetBands>,
    /// `[integer_types]`, `[int_functions]` and `[predicates]`.
    pub predicates: predicate::Predicates,
    /// `[df64]` and `[df64_ops]`: the f64 functions on a target without
    /// binary64.
    pub df64: Option<crate::df64_spec::Df64Spec>,
}

/// The metric a spec states for a family on a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BandMetric {
    Bits,
    Ulp,
    Forward,
    Unbounded,
}

impl BandMetric {
    /// The key of `[bands.<target>]` that lists it.
    pub fn key(self) -> &'static str {
        match self {
            BandMetric::Bits => "bits",
            BandMetric::Ulp => "ulp",
            BandMetric::Forward => "forward",
            BandMetric::Unbounded => "unbounded",
        }
    }
}

/// One entry of `[bands.<target>]`.
#[derive(Debug, Clone, PartialEq)]
pub struct BandEntry {
    pub name: String,
    pub metric: BandMetric,
    pub line: usize,
}

/// A target's accuracy per rounded operation, in ulp of the result (0.5:
/// correctly rounded; 1: either neighbour), from which its bands are derived.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpUlps {
    pub add_sub_mul: f64,
    pub div: f64,
    pub sqrt: f64,
}

/// `[bands.<target>]`.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetBands {
    pub target: String,
    pub line: usize,
    pub entries: Vec<BandEntry>,
    pub ops: OpUlps,
}

/// The largest per-operation ulp count a band table may state.
pub const MAX_OP_ULP: f64 = 1_048_576.0;

/// Which entry of a column is the pivot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pivot {
    /// The first entry of largest magnitude (LAPACK's i?amax).
    FirstLargest,
    /// The last one (a mutant).
    LastLargest,
}

/// How LU reduces an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Update {
    /// By one finished dot product of the earlier columns (left-looking).
    Dot,
    /// By a rank-one update after every column, term by term (a mutant).
    RightLooking,
}

/// How LU forms its multipliers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Multipliers {
    /// One reciprocal of the pivot, then a product per entry.
    Reciprocal,
    /// A correctly rounded division per entry (a mutant).
    Division,
}

/// How Cholesky and eigh read their input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Symmetrize {
    /// 0.5*a_ij + 0.5*a_ji.
    HalfSum,
    /// The lower triangle as it is (a mutant).
    Lower,
}

/// `[rules.linalg]`: the orders of the per-lane linear algebra.
#[derive(Debug, Clone, PartialEq)]
pub struct Linalg {
    pub pivot: Pivot,
    pub update: Update,
    pub multipliers: Multipliers,
    pub symmetrize: Symmetrize,
    pub eigh_sweeps: usize,
    /// Families: the Jacobi rotation, its update of a pair of entries, and
    /// of the two diagonal entries.
    pub rotation: String,
    pub update_pair: String,
    pub diag: String,
    /// Products fused into the subtractions (the fma mutant; no spec key).
    pub fused: bool,
    pub line: usize,
}

/// A routine of the per-lane linear algebra.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Routine {
    Lu,
    LuSolve,
    SolveLower,
    SolveLowerUnit,
    SolveUpper,
    SolveUpperUnit,
    DetLu,
    Inverse,
    Cholesky,
    CholeskySolve,
    Eigh,
}

impl Routine {
    pub const ALL: [(&'static str, Routine); 11] = [
        ("lu", Routine::Lu),
        ("lu_solve", Routine::LuSolve),
        ("solve_lower", Routine::SolveLower),
        ("solve_lower_unit", Routine::SolveLowerUnit),
        ("solve_upper", Routine::SolveUpper),
        ("solve_upper_unit", Routine::SolveUpperUnit),
        ("det_lu", Routine::DetLu),
        ("inverse", Routine::Inverse),
        ("cholesky", Routine::Cholesky),
        ("cholesky_solve", Routine::CholeskySolve),
        ("eigh", Routine::Eigh),
    ];

    pub fn name(self) -> &'static str {
        Routine::ALL.iter().find(|(_, r)| *r == self).unwrap().0
    }
}

/// What a routine reads and writes, in words, for size n.
pub fn words(routine: Routine, n: usize) -> (usize, usize) {
    let nn = n * n;
    match routine {
        Routine::Lu => (nn, nn + n + 1),
        Routine::LuSolve => (nn + 2 * n, n),
        Routine::SolveLower | Routine::SolveLowerUnit | Routine::SolveUpper | Routine::SolveUpperUnit => (nn + n, n),
        Routine::DetLu => (nn, 1),
        Routine::Inverse | Routine::Cholesky => (nn, nn + 1),
        Routine::CholeskySolve => (nn + n, n),
        Routine::Eigh => (nn, n + nn),
    }
}

/// The words of one problem that are whole numbers, not floats: in the
/// input (`lu_solve`'s pivots) and in the result (`lu`'s pivots and info,
/// `inverse`'s and `cholesky`'s info).
pub fn whole_words(routine: Routine, n: usize) -> (Vec<usize>, Vec<usize>) {
    let nn = n * n;
    let input = pivot_words(routine, n).map_or(Vec::new(), |(at, count)| (at..at + count).collect());
    let output = match routine {
        Routine::Lu => (nn..nn + n + 1).collect(),
        Routine::Inverse | Routine::Cholesky => vec![nn],
        _ => Vec::new(),
    };
    (input, output)
}

/// Where a routine's input holds pivot rows, and how many: `lu_solve` takes
/// `LU`, then the n pivots (pivot k in k+1..=n), then `b`.
pub fn pivot_words(routine: Routine, n: usize) -> Option<(usize, usize)> {
    (routine == Routine::LuSolve).then_some((n * n, n))
}

/// Where element i of an array goes among the lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Assignment {
    /// Element i (counted from the array's first global index) to lane
    /// `i mod lanes`: what a warp-strided loop does.
    Strided,
    /// Every element to lane 0: one sequential Neumaier chain (a mutant).
    Single,
}

/// `[rules.reduction]`: the compensated reduction across lanes.
#[derive(Debug, Clone, PartialEq)]
pub struct Reduction {
    pub lanes: usize,
    /// Butterfly partner offsets, in the order the rounds run.
    pub rounds: Vec<usize>,
    pub assignment: Assignment,
    /// Families: a lane takes one term (`step`), two lanes merge
    /// (`combine`), a pair is delivered as one value (`value`).
    pub step: String,
    pub combine: String,
    pub value: String,
    /// The shape of a (hi, comp) pair: the combine family's shape.
    pub pair: String,
    pub line: usize,
}

/// How a kernel walks its arrays.
#[derive(Debug, Clone, PartialEq)]
pub enum Schedule {
    /// 32 pairs in, the butterfly, lane 0 out.
    Butterfly,
    /// Adds the terms of arrays to lanes in ascending element order.
    Lanes { arrays: Vec<String>, term: Ast, term_source: String, term_line: usize },
    /// Lanes from +0 pairs, a `Lanes` kernel, the butterfly, the value.
    Array { lanes: String },
    /// Adds one term to an element of an accumulation plane.
    Plane,
    /// Delivers every slot of a plane.
    Resolve,
    /// A routine of the per-lane linear algebra.
    Linalg(Routine),
}

/// `[kernels.<name>]`: a function over caller-owned arrays.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelSpec {
    pub name: String,
    pub op: String,
    pub doc: String,
    pub schedule: Schedule,
    pub shapes: Vec<String>,
    pub cases: Vec<Probe>,
    /// Also a form over an array of independent problems (`<op>_lanes`).
    pub many: bool,
    pub line: usize,
}

impl Spec {
    pub fn shape(&self, name: &str) -> Option<&Shape> {
        self.shapes.iter().find(|s| s.name == name)
    }

    pub fn family(&self, name: &str) -> Option<&Family> {
        self.families.iter().find(|f| f.name == name)
    }

    pub fn combiner(&self, name: &str) -> Option<&Combiner> {
        self.combiners.iter().find(|c| c.name == name)
    }

    pub fn kernel(&self, name: &str) -> Option<&KernelSpec> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

struct Loc<'a> {
    file: &'a str,
    lines: LineIndex,
}

impl Loc<'_> {
    fn err(&self, offset: usize, key: impl Into<String>, message: impl Into<String>) -> SpecError {
        SpecError { file: self.file.to_string(), line: self.lines.line(offset), key: key.into(), message: message.into() }
    }
}

/// The dotted key of the table whose header precedes `offset`, for errors that
/// serde reports with a span but no key.
fn enclosing_key(text: &str, offset: usize) -> String {
    let offset = offset.min(text.len());
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let before = &text[..end];
    for line in before.lines().rev() {
        let t = line.trim();
        if t.starts_with('[') && t.ends_with(']') {
            return t.trim_matches(|c| c == '[' || c == ']').to_string();
        }
    }
    String::from("(top level)")
}

/// Which key a serde message is about, when it names one.
fn key_in_message(msg: &str) -> Option<String> {
    let start = msg.find('`')? + 1;
    let end = start + msg[start..].find('`')?;
    Some(msg[start..end].to_string())
}

/// Parses and validates a spec file's bytes: text that is not UTF-8 is an
/// error at the line and column of its first bad byte.
pub fn parse_bytes(file: &str, bytes: &[u8]) -> Result<Spec, SpecErrors> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse(file, text),
        Err(e) => {
            let good = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default();
            let line_start = good.rfind('\n').map_or(0, |i| i + 1);
            let col = good[line_start..].chars().count() + 1;
            let loc = Loc { file, lines: LineIndex::new(good) };
            Err(loc
                .err(
                    good.len(),
                    enclosing_key(good, good.len()),
                    format!("column {col}: byte 0x{:02x} is not UTF-8 (a spec is UTF-8 text)", bytes[e.valid_up_to()]),
                )
                .into())
        }
    }
}

/// Parses and validates a spec text. `file` names it in errors.
///
/// Every check whose inputs were accepted runs, and all their errors are
/// returned (in line order, see [`SpecErrors`]); a check that reads what an
/// earlier one refused does not run, since its errors would only repeat that
/// one. TOML that does not parse stops at once; the tables every function
/// reads (contract, types, shapes, the fold, combiners, predicates) are
/// checked together, then the families and shared compositions (each table on
/// its own), then what names families (`[policy]`, `[df64]`, the rules of
/// reduction and linear algebra), then the kernels (each table on its own)
/// and last the bands, which name kernels.
pub fn parse(file: &str, text: &str) -> Result<Spec, SpecErrors> {
    let loc = Loc { file, lines: LineIndex::new(text) };
    let raw: RawSpec = toml::from_str(text).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        let message = e.message().trim().replace('\n', "; ");
        let table = enclosing_key(text, offset);
        let key = match key_in_message(&message) {
            Some(k) if message.starts_with("unknown field") || message.starts_with("missing field") => {
                if table == "(top level)" {
                    k
                } else {
                    format!("{table}.{k}")
                }
            }
            _ => table,
        };
        loc.err(offset, key, message)
    })?;
    let mut errors = Vec::new();
    let name =
        names::check_contract_name(raw.contract.name.get_ref()).map_err(|m| loc.err(raw.contract.name.span().start, "contract.name", m));
    let version =
        names::check_version(raw.contract.version.get_ref()).map_err(|m| loc.err(raw.contract.version.span().start, "contract.version", m));
    let predicates = predicate::Raw { int_types: &raw.integer_types, functions: &raw.int_functions, predicates: &raw.predicates };
    let (Some(()), Some(()), Some(types), Some(shapes), Some(fold), Some(combiners), Some(predicates)) = (
        kept(name, &mut errors),
        kept(version, &mut errors),
        kept(types(&loc, &raw), &mut errors),
        kept(shapes(&loc, &raw), &mut errors),
        kept(fold(&loc, &raw), &mut errors),
        kept(combiners(&loc, &raw), &mut errors),
        kept(predicate::parse(file, text, predicates), &mut errors),
    ) else {
        return Err(refused(errors));
    };
    let spec = Spec {
        file: file.to_string(),
        source: text.to_string(),
        name: raw.contract.name.get_ref().clone(),
        version: raw.contract.version.get_ref().clone(),
        types,
        shapes,
        fold,
        combiners,
        policy: Policy { either_zero: Vec::new(), line: 0 },
        families: Vec::new(),
        reduction: None,
        linalg: None,
        kernels: Vec::new(),
        bands: Vec::new(),
        predicates,
        df64: None,
    };
    // Shared compositions first: the spec states them before their callers.
    let shared = shared(&loc, &raw, text, &spec).map_err(|e| errors.extend(e)).ok();
    let families = families(&loc, &in_file_order(&raw.families), false, text, &spec).map_err(|e| errors.extend(e)).ok();
    let (Some(shared), Some(mut families)) = (shared, families) else {
        return Err(refused(errors));
    };
    let called = kept(check_called(&loc, &raw.shared, &families, &shared), &mut errors);
    families.extend(shared);
    let names: Vec<String> = families.iter().filter(|f| !f.internal).map(|f| f.name.clone()).collect();
    let df64 = kept(crate::df64_spec::parse(file, text, raw.df64.as_ref(), &raw.df64_ops, &names), &mut errors);
    let policy = kept(policy(&loc, &raw, &families), &mut errors);
    let spec = Spec { families, ..spec };
    let reduction = kept(reduction(&loc, &raw, &spec), &mut errors);
    let linalg = kept(linalg(&loc, &raw, &spec), &mut errors);
    // The kernels read the rules of reduction and linear algebra, the bands
    // the kernels' names.
    let (Some(reduction), Some(linalg)) = (reduction, linalg) else {
        return Err(refused(errors));
    };
    let spec = Spec { reduction, linalg, ..spec };
    let Some(kernels) = kernels(&loc, &raw, &spec).map_err(|e| errors.extend(e)).ok() else {
        return Err(refused(errors));
    };
    let spec = Spec { kernels, ..spec };
    let bands = kept(bands(&loc, &raw, &spec), &mut errors);
    let (Some(()), Some(df64), Some(policy), Some(bands)) = (called, df64, policy, bands) else {
        return Err(refused(errors));
    };
    Ok(Spec { df64, policy, bands, ..spec })
}

/// The value of a check that passed; the error of one that did not joins
/// `errors`.
fn kept<T>(result: Result<T, SpecError>, errors: &mut Vec<SpecError>) -> Option<T> {
    result.map_err(|e| errors.push(e)).ok()
}

/// The errors of a spec that a check refused (there is at least one).
fn refused(errors: Vec<SpecError>) -> SpecErrors {
    SpecErrors::new(errors).expect("a refused check gives an error")
}

/// `[bands.<target>]`: every name a family or kernel, listed once.
fn bands(loc: &Loc, raw: &RawSpec, spec: &Spec) -> Result<Vec<TargetBands>, SpecError> {
    let mut out = Vec::new();
    for (target, b) in in_file_order(&raw.bands) {
        let key = format!("bands.{target}");
        // Which keys a target reads is the target's fact (`Target::bands`):
        // `aether_generator::model` checks the tables against the registry.
        if !names::is_identifier(target) {
            return Err(loc.err(b.span().start, key, format!("`{}` is not a target's bands key", target.escape_debug())));
        }
        let r = b.get_ref();
        let base: Option<&TargetBands> = match &r.like {
            None => None,
            Some(l) => Some(out.iter().find(|t: &&TargetBands| &t.target == l.get_ref()).ok_or_else(|| {
                loc.err(
                    l.span().start,
                    format!("{key}.like"),
                    format!("`{}`: no band table `[bands.{}]` above this one to start from", l.get_ref(), l.get_ref()),
                )
            })?),
        };
        let mut entries: Vec<BandEntry> = Vec::new();
        for (metric, list) in [
            (BandMetric::Bits, &r.bits),
            (BandMetric::Ulp, &r.ulp),
            (BandMetric::Forward, &r.forward),
            (BandMetric::Unbounded, &r.unbounded),
        ] {
            for n in list {
                let name = n.get_ref();
                let k = format!("{key}.{}", metric.key());
                if !spec.families.iter().any(|f| &f.name == name && !f.internal) && !spec.kernels.iter().any(|x| &x.name == name) {
                    return Err(loc.err(n.span().start, k, format!("unknown family or kernel `{name}`")));
                }
                if let Some(prev) = entries.iter().find(|e| &e.name == name) {
                    return Err(loc.err(n.span().start, k, format!("`{name}` is listed twice (also under {})", prev.metric.key())));
                }
                entries.push(BandEntry { name: name.clone(), metric, line: loc.lines.line(n.span().start) });
            }
        }
        // A table that starts from another keeps the other's entries that it
        // does not state itself, in the other's order, before its own.
        if let Some(base) = base {
            let inherited: Vec<BandEntry> = base.entries.iter().filter(|e| !entries.iter().any(|m| m.name == e.name)).cloned().collect();
            entries = inherited.into_iter().chain(entries).collect();
        }
        let op = |name: &str, v: &Option<Spanned<f64>>| -> Result<f64, SpecError> {
            let Some(v) = v else {
                if let Some(base) = base {
                    return Ok(match name {
                        "add_sub_mul_ulp" => base.ops.add_sub_mul,
                        "div_ulp" => base.ops.div,
                        _ => base.ops.sqrt,
                    });
                }
                return Err(loc.err(
                    b.span().start,
                    key.clone(),
                    format!("missing `{name}`: the target's accuracy of that operation in ulp (its bands are derived from it)"),
                ));
            };
            let x = *v.get_ref();
            if !(0.5..=MAX_OP_ULP).contains(&x) {
                return Err(loc.err(
                    v.span().start,
                    format!("{key}.{name}"),
                    format!("{x} ulp: an operation's accuracy is at least 0.5 ulp (correctly rounded) and at most {MAX_OP_ULP}"),
                ));
            }
            Ok(x)
        };
        let ops = OpUlps {
            add_sub_mul: op("add_sub_mul_ulp", &r.add_sub_mul_ulp)?,
            div: op("div_ulp", &r.div_ulp)?,
            sqrt: op("sqrt_ulp", &r.sqrt_ulp)?,
        };
        out.push(TargetBands { target: target.clone(), line: loc.lines.line(b.span().start), entries, ops });
    }
    Ok(out)
}

fn is_c_identifier(s: &str) -> bool {
    names::is_identifier(s)
}

fn types(loc: &Loc, raw: &RawSpec) -> Result<Vec<ElemType>, SpecError> {
    let mut out = Vec::new();
    for (name, t) in in_file_order(&raw.types) {
        let key = format!("types.{name}");
        let t_ref = t.get_ref();
        names::check_part(name, "type name").map_err(|m| loc.err(t.span().start, key.clone(), m))?;
        let bits = *t_ref.bits.get_ref();
        if bits != 32 && bits != 64 {
            return Err(loc.err(
                t_ref.bits.span().start,
                format!("{key}.bits"),
                format!("unknown element type width {bits}: only IEEE binary32 (32) and binary64 (64) exist here"),
            ));
        }
        let c_type = t_ref.c_type.get_ref();
        let expected = if bits == 32 { "float" } else { "double" };
        if c_type != expected {
            return Err(loc.err(
                t_ref.c_type.span().start,
                format!("{key}.c_type"),
                format!("a {bits}-bit element type is C `{expected}`, not `{c_type}`"),
            ));
        }
        if !is_c_identifier(t_ref.letter.get_ref()) || t_ref.letter.get_ref().len() > 2 {
            return Err(loc.err(t_ref.letter.span().start, format!("{key}.letter"), "the letter must be a C identifier"));
        }
        // What C spells a literal and a libm call with: anything else would
        // change the type of every constant or call (`sqrtl`, `2.0L`).
        let (literal, libm) = if bits == 32 { ("f", "f") } else { ("", "") };
        if t_ref.literal_suffix != literal || t_ref.libm_suffix != libm {
            return Err(loc.err(
                t.span().start,
                key.clone(),
                format!(
                    "a {bits}-bit element type has literal_suffix = \"{literal}\" and libm_suffix = \"{libm}\" (C's `{c_type}`), \
                     not \"{}\" and \"{}\"",
                    t_ref.literal_suffix.escape_debug(),
                    t_ref.libm_suffix.escape_debug()
                ),
            ));
        }
        out.push(ElemType {
            name: name.clone(),
            c_type: c_type.clone(),
            letter: t_ref.letter.get_ref().clone(),
            literal_suffix: t_ref.literal_suffix.clone(),
            libm_suffix: t_ref.libm_suffix.clone(),
            bits,
        });
    }
    if out.is_empty() {
        return Err(loc.err(0, "types", "the spec declares no element type"));
    }
    Ok(out)
}

fn shapes(loc: &Loc, raw: &RawSpec) -> Result<Vec<Shape>, SpecError> {
    let mut out = Vec::new();
    for (name, s) in in_file_order(&raw.shapes) {
        let key = format!("shapes.{name}");
        let r = s.get_ref();
        names::check_part(name, "shape name").map_err(|m| loc.err(s.span().start, key.clone(), m))?;
        let need = |field: &str, present: bool| -> Result<(), SpecError> {
            if present {
                Ok(())
            } else {
                Err(loc.err(s.span().start, format!("{key}.{field}"), format!("missing field `{field}` for a {} shape", r.kind.get_ref())))
            }
        };
        let refuse = |field: &str, present: bool| -> Result<(), SpecError> {
            if present {
                Err(loc.err(s.span().start, format!("{key}.{field}"), format!("a {} shape has no `{field}`", r.kind.get_ref())))
            } else {
                Ok(())
            }
        };
        let kind = match r.kind.get_ref().as_str() {
            "scalar" => {
                refuse("components", r.components.is_some())?;
                refuse("rows", r.rows.is_some())?;
                ShapeKind::Scalar
            }
            "vector" => {
                need("components", r.components.is_some())?;
                refuse("rows", r.rows.is_some())?;
                let comps = r.components.as_ref().unwrap();
                let mut comp_names: Vec<String> = Vec::new();
                for c in comps.get_ref() {
                    if !is_c_identifier(c.get_ref()) || comp_names.contains(c.get_ref()) {
                        return Err(loc.err(
                            c.span().start,
                            format!("{key}.components"),
                            format!("component `{}` is not a fresh C identifier", c.get_ref().escape_debug()),
                        ));
                    }
                    names::check_local(c.get_ref(), "component").map_err(|m| loc.err(c.span().start, format!("{key}.components"), m))?;
                    comp_names.push(c.get_ref().clone());
                }
                if comp_names.is_empty() {
                    return Err(loc.err(comps.span().start, format!("{key}.components"), "a vector needs at least one component"));
                }
                if comp_names.len() > MAX_COMPONENTS {
                    return Err(loc.err(
                        comps.span().start,
                        format!("{key}.components"),
                        format!("{} components: a vector has at most {MAX_COMPONENTS}", comp_names.len()),
                    ));
                }
                ShapeKind::Vector(comp_names)
            }
            "matrix" => {
                need("rows", r.rows.is_some())?;
                need("cols", r.cols.is_some())?;
                need("layout", r.layout.is_some())?;
                refuse("components", r.components.is_some())?;
                let layout = r.layout.as_ref().unwrap();
                let layout_v = match layout.get_ref().as_str() {
                    "row-major" => Layout::RowMajor,
                    "column-major" => Layout::ColumnMajor,
                    other => {
                        return Err(loc.err(
                            layout.span().start,
                            format!("{key}.layout"),
                            format!("unknown layout `{other}` (expected `row-major` or `column-major`)"),
                        ));
                    }
                };
                let rows = *r.rows.as_ref().unwrap().get_ref();
                let cols = *r.cols.as_ref().unwrap().get_ref();
                if rows == 0 || cols == 0 {
                    return Err(loc.err(s.span().start, key.clone(), "a matrix needs at least one row and one column"));
                }
                if rows > MAX_MATRIX_SIDE || cols > MAX_MATRIX_SIDE {
                    return Err(loc.err(
                        s.span().start,
                        key.clone(),
                        format!("a {rows}x{cols} matrix: at most {MAX_MATRIX_SIDE} rows and {MAX_MATRIX_SIDE} columns"),
                    ));
                }
                ShapeKind::Matrix { rows, cols, layout: layout_v }
            }
            other => {
                return Err(loc.err(
                    r.kind.span().start,
                    format!("{key}.kind"),
                    format!("unknown shape kind `{other}` (expected `scalar`, `vector` or `matrix`)"),
                ));
            }
        };
        out.push(Shape { name: name.clone(), kind });
    }
    Ok(out)
}

fn fold(loc: &Loc, raw: &RawSpec) -> Result<FoldRule, SpecError> {
    let f = raw.rules.fold.get_ref();
    let nesting = match f.nesting.get_ref().as_str() {
        "right" => Nesting::Right,
        "left" => Nesting::Left,
        other => {
            return Err(loc.err(
                f.nesting.span().start,
                "rules.fold.nesting",
                format!("unknown nesting `{other}` (expected `right` or `left`)"),
            ));
        }
    };
    let seed = match f.seed.get_ref().as_str() {
        "none" => Seed::None,
        "identity" => Seed::Identity,
        other => {
            return Err(loc.err(f.seed.span().start, "rules.fold.seed", format!("unknown seed `{other}` (expected `none` or `identity`)")));
        }
    };
    Ok(FoldRule { nesting, seed })
}

fn combiners(loc: &Loc, raw: &RawSpec) -> Result<Vec<Combiner>, SpecError> {
    let mut out = Vec::new();
    for (name, c) in in_file_order(&raw.combiners) {
        let key = format!("combiners.{name}");
        let r = c.get_ref();
        let line = loc.lines.line(r.expr.span().start);
        let expr = dsl::parse_expr(r.expr.get_ref()).map_err(|e| loc.err(r.expr.span().start, format!("{key}.expr"), e.to_string()))?;
        let identity: f64 = r.identity.get_ref().trim().parse().map_err(|_| {
            loc.err(r.identity.span().start, format!("{key}.identity"), format!("`{}` is not a number", r.identity.get_ref()))
        })?;
        out.push(Combiner { name: name.clone(), source: r.expr.get_ref().clone(), expr, identity, line });
    }
    Ok(out)
}

fn parse_kind(s: &str) -> Option<ParamKind> {
    Some(match s {
        "self" => ParamKind::SelfShape,
        "scalar" => ParamKind::Scalar,
        "bool" => ParamKind::Bool,
        "vec_cols" => ParamKind::VecCols,
        "vec_rows" => ParamKind::VecRows,
        other if is_c_identifier(other) => ParamKind::Named(other.to_string()),
        _ => return None,
    })
}

/// First line of a string value's content: a `"""` string skips the newline
/// that follows its opening quotes.
fn content_line(loc: &Loc, text: &str, offset: usize) -> usize {
    first_content_line(&loc.lines, text, offset)
}

fn body(loc: &Loc, text: &str, key: String, shape: Option<String>, elem: Option<String>, s: &Spanned<String>) -> Result<Body, SpecError> {
    let first = content_line(loc, text, s.span().start);
    let stmts = dsl::parse_body(s.get_ref()).map_err(|e| SpecError {
        file: loc.file.to_string(),
        line: first + e.line - 1,
        key: key.clone(),
        message: format!("column {}: {}", e.col, e.message),
    })?;
    for st in &stmts {
        if let dsl::Target::Let(name) = &st.target {
            names::check_local(name, "the step").map_err(|m| SpecError {
                file: loc.file.to_string(),
                line: first + st.line - 1,
                key: key.clone(),
                message: m,
            })?;
        }
    }
    Ok(Body { shape, elem, stmts, source: s.get_ref().trim().to_string(), line: first, key })
}

/// `[shared.<name>]`: read as families are, checked to be internal (no
/// `op`, `cases` or `derived`) and named apart from every family.
fn shared(loc: &Loc, raw: &RawSpec, text: &str, spec: &Spec) -> Result<Vec<Family>, Vec<SpecError>> {
    let mut errors = Vec::new();
    let mut tables = Vec::new();
    for (name, f) in in_file_order(&raw.shared) {
        let key = format!("shared.{name}");
        let r = f.get_ref();
        let fields = [("op", r.op.is_some()), ("cases", r.cases.is_some()), ("derived", r.derived.is_some())];
        if let Some((field, _)) = fields.iter().find(|(_, present)| *present) {
            errors.push(loc.err(
                f.span().start,
                format!("{key}.{field}"),
                format!("a shared composition is not exported, so it has no `{field}` (its callers' cases test it)"),
            ));
        } else if raw.families.contains_key(name) {
            errors.push(loc.err(f.span().start, key, format!("`{name}` names a family too: a shared composition needs a name of its own")));
        } else {
            tables.push((name, f));
        }
    }
    match families(loc, &tables, true, text, spec) {
        Ok(shared) if errors.is_empty() => Ok(shared),
        Ok(_) => Err(errors),
        Err(more) => Err(errors.into_iter().chain(more).collect()),
    }
}

/// Every shared composition is called by some family's or other shared
/// composition's body: one that nothing calls is a statement no core prints.
fn check_called(loc: &Loc, raw: &BTreeMap<String, Spanned<RawFamily>>, exported: &[Family], shared: &[Family]) -> Result<(), SpecError> {
    for h in shared {
        let called = exported
            .iter()
            .chain(shared)
            .filter(|f| f.name != h.name)
            .any(|f| f.bodies.iter().any(|b| b.stmts.iter().any(|st| calls(&st.value, &h.name))));
        if !called {
            return Err(loc.err(
                raw[&h.name].span().start,
                format!("shared.{}", h.name),
                format!("shared composition `{}` is called by no family or other shared composition (no core would print it)", h.name),
            ));
        }
    }
    Ok(())
}

/// Whether `ast` calls the function `name` anywhere.
fn calls(ast: &Ast, name: &str) -> bool {
    match &ast.kind {
        AstKind::Call(n, args) => n == name || args.iter().any(|a| calls(a, name)),
        AstKind::Index(a, b) | AstKind::Bin(_, a, b) | AstKind::Bits(_, a, b) => calls(a, name) || calls(b, name),
        AstKind::Field(a, _) | AstKind::Not(a) => calls(a, name),
        AstKind::Select(c, a, b) => calls(c, name) || calls(a, name) || calls(b, name),
        AstKind::Number(_) | AstKind::Int(_) | AstKind::Ident(_) => false,
    }
}

/// The families of the given tables: each table is checked on its own (its
/// C name against the tables accepted before it), and every refused table's
/// first error is returned.
fn families(
    loc: &Loc,
    raw: &[(&String, &Spanned<RawFamily>)],
    internal: bool,
    text: &str,
    spec: &Spec,
) -> Result<Vec<Family>, Vec<SpecError>> {
    let mut out: Vec<Family> = Vec::new();
    let mut errors = Vec::new();
    for &(name, f) in raw {
        match family(loc, name, f, internal, text, spec, &out) {
            Ok(family) => out.push(family),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// One `[families.<name>]` (or `[shared.<name>]`) table; `out` holds the
/// families accepted before it.
fn family(
    loc: &Loc,
    name: &String,
    f: &Spanned<RawFamily>,
    internal: bool,
    text: &str,
    spec: &Spec,
    out: &[Family],
) -> Result<Family, SpecError> {
    let table = if internal { "shared" } else { "families" };
    let key = format!("{table}.{name}");
    let r = f.get_ref();
    if !is_c_identifier(name) {
        return Err(loc.err(f.span().start, key, "a family name must be a C identifier"));
    }
    names::check_part(name, "family name").map_err(|m| loc.err(f.span().start, key.clone(), m))?;
    let op = r.op.as_ref().map_or(name.clone(), |o| o.get_ref().clone());
    if !is_c_identifier(&op) {
        return Err(loc.err(r.op.as_ref().unwrap().span().start, format!("{key}.op"), format!("`{op}` is not a C identifier")));
    }
    if let Some(o) = &r.op {
        names::check_part(&op, "operation name").map_err(|m| loc.err(o.span().start, format!("{key}.op"), m))?;
    }
    names::check_text(r.doc.get_ref()).map_err(|m| loc.err(r.doc.span().start, format!("{key}.doc"), m))?;
    let mut shapes = Vec::new();
    for s in r.shapes.get_ref() {
        if spec.shape(s.get_ref()).is_none() {
            return Err(loc.err(s.span().start, format!("{key}.shapes"), format!("unknown shape `{}`", s.get_ref())));
        }
        if shapes.contains(s.get_ref()) {
            return Err(loc.err(s.span().start, format!("{key}.shapes"), format!("shape `{}` is listed twice", s.get_ref())));
        }
        shapes.push(s.get_ref().clone());
    }
    if shapes.is_empty() {
        return Err(loc.err(r.shapes.span().start, format!("{key}.shapes"), "a family needs at least one shape"));
    }
    let mut params: Vec<(String, ParamKind)> = Vec::new();
    for p in r.params.get_ref() {
        let bad = || loc.err(p.span().start, format!("{key}.params"), format!("`{}` is not `name: kind`", p.get_ref()));
        let (pname, kind) = p.get_ref().split_once(':').ok_or_else(bad)?;
        let (pname, kind) = (pname.trim(), kind.trim());
        // `out` too: a body reads it as the parameter, and defines the result by `out = ...`
        // (the cores name their result `aether_out`).
        if !is_c_identifier(pname) || params.iter().any(|(n, _)| n == pname) {
            return Err(loc.err(p.span().start, format!("{key}.params"), format!("parameter name `{pname}` is not a fresh C identifier")));
        }
        names::check_local(pname, "parameter name").map_err(|m| loc.err(p.span().start, format!("{key}.params"), m))?;
        let k = parse_kind(kind).ok_or_else(bad)?;
        if let ParamKind::Named(n) = &k {
            if spec.shape(n).is_none() {
                return Err(loc.err(p.span().start, format!("{key}.params"), format!("unknown shape `{n}`")));
            }
        }
        if k == ParamKind::Bool {
            return Err(loc.err(p.span().start, format!("{key}.params"), "a parameter cannot be `bool`"));
        }
        params.push((pname.to_string(), k));
    }
    let returns = parse_kind(r.returns.get_ref()).ok_or_else(|| {
        loc.err(r.returns.span().start, format!("{key}.returns"), format!("unknown result kind `{}`", r.returns.get_ref()))
    })?;
    if let ParamKind::Named(n) = &returns {
        if spec.shape(n).is_none() {
            return Err(loc.err(r.returns.span().start, format!("{key}.returns"), format!("unknown shape `{n}`")));
        }
    }
    let mut bodies = Vec::new();
    if let Some(b) = &r.body {
        bodies.push(body(loc, text, format!("{key}.body"), None, None, b)?);
    }
    if let Some(bs) = &r.bodies {
        for (which, b) in in_file_order(bs) {
            let bkey = format!("{key}.bodies.{which}");
            if shapes.contains(which) {
                bodies.push(body(loc, text, bkey, Some(which.clone()), None, b)?);
            } else if spec.types.iter().any(|t| &t.name == which) {
                bodies.push(body(loc, text, bkey, None, Some(which.clone()), b)?);
            } else {
                return Err(loc.err(b.span().start, bkey, format!("`{which}` is neither one of the family's shapes nor an element type")));
            }
        }
    }
    for s in &shapes {
        for t in &spec.types {
            if !bodies.iter().any(|b| b.shape.as_deref() == Some(s) || b.shape.is_none() && b.elem.as_ref().is_none_or(|e| *e == t.name)) {
                return Err(loc.err(
                    f.span().start,
                    format!("{key}.body"),
                    format!("missing field `body` (no body for shape `{s}` of `{}`)", t.name),
                ));
            }
        }
    }
    if let Some(other) = out.iter().find(|o| o.op == op && o.shapes.iter().any(|s| shapes.contains(s))) {
        return Err(loc.err(
            f.span().start,
            format!("{key}.op"),
            format!("C name clash: family `{}` already defines `{op}` for a shape of this family", other.name),
        ));
    }
    let mut derived = Vec::new();
    if let Some(d) = &r.derived {
        for item in d.get_ref() {
            let dkey = format!("{key}.derived");
            let bad = |m: String| loc.err(item.span().start, dkey.clone(), m);
            let (pname, expr) =
                item.get_ref().split_once('=').ok_or_else(|| bad(format!("`{}` is not `param = expression`", item.get_ref())))?;
            let pname = pname.trim();
            match params.iter().find(|(n, _)| n == pname) {
                Some((_, ParamKind::Scalar)) => {}
                Some((_, ParamKind::SelfShape)) if shapes.iter().all(|s| s == "scalar") => {}
                Some(_) => return Err(bad(format!("derived parameter `{pname}` must be a scalar"))),
                None => return Err(bad(format!("`{pname}` is not a parameter of the family"))),
            }
            if derived.iter().any(|(n, _, _, _): &(String, Ast, String, usize)| n == pname) {
                return Err(bad(format!("`{pname}` is derived twice")));
            }
            let ast = dsl::parse_expr(expr.trim()).map_err(|e| bad(e.to_string()))?;
            derived.push((pname.to_string(), ast, expr.trim().to_string(), loc.lines.line(item.span().start)));
        }
    }
    Ok(Family {
        name: name.clone(),
        op,
        doc: r.doc.get_ref().clone(),
        shapes,
        params,
        returns,
        bodies,
        derived,
        cases: probes(loc, &format!("{key}.cases"), r.cases.as_ref())?,
        line: loc.lines.line(f.span().start),
        params_line: loc.lines.line(r.params.span().start),
        internal,
    })
}

fn policy(loc: &Loc, raw: &RawSpec, families: &[Family]) -> Result<Policy, SpecError> {
    let p = raw.policy.get_ref();
    if p.nan.get_ref() != "any-nan" {
        return Err(loc.err(p.nan.span().start, "policy.nan", format!("unknown NaN policy `{}` (expected `any-nan`)", p.nan.get_ref())));
    }
    let mut seen = BTreeSet::new();
    let mut either_zero = Vec::new();
    for f in p.either_zero.get_ref() {
        if !families.iter().any(|fam| &fam.name == f.get_ref() && !fam.internal) {
            return Err(loc.err(f.span().start, "policy.either_zero", format!("unknown function family `{}`", f.get_ref())));
        }
        if !seen.insert(f.get_ref().clone()) {
            return Err(loc.err(f.span().start, "policy.either_zero", format!("family `{}` is listed twice", f.get_ref())));
        }
        either_zero.push(f.get_ref().clone());
    }
    Ok(Policy { either_zero, line: loc.lines.line(p.either_zero.span().start) })
}

fn reduction(loc: &Loc, raw: &RawSpec, spec: &Spec) -> Result<Option<Reduction>, SpecError> {
    let Some(r) = &raw.rules.reduction else { return Ok(None) };
    let key = "rules.reduction";
    let rr = r.get_ref();
    let lanes = *rr.lanes.get_ref();
    if lanes > MAX_LANES {
        return Err(loc.err(rr.lanes.span().start, format!("{key}.lanes"), format!("{lanes} lanes: at most {MAX_LANES}")));
    }
    if lanes < 2 || !lanes.is_power_of_two() {
        return Err(loc.err(
            rr.lanes.span().start,
            format!("{key}.lanes"),
            format!("{lanes} lanes: the butterfly needs a power of two, at least 2"),
        ));
    }
    let mut rounds = Vec::new();
    for k in rr.rounds.get_ref() {
        let v = *k.get_ref();
        if !v.is_power_of_two() || v >= lanes {
            return Err(loc.err(k.span().start, format!("{key}.rounds"), format!("round offset {v} is not a power of two below {lanes}")));
        }
        if rounds.contains(&v) {
            return Err(loc.err(k.span().start, format!("{key}.rounds"), format!("round offset {v} is listed twice")));
        }
        rounds.push(v);
    }
    if rounds.len() != lanes.trailing_zeros() as usize {
        return Err(loc.err(
            rr.rounds.span().start,
            format!("{key}.rounds"),
            format!("{} round(s) cannot merge {lanes} lanes: list every offset 1, 2, 4, ..., {} once", rounds.len(), lanes / 2),
        ));
    }
    let assignment = match rr.assignment.get_ref().as_str() {
        "strided" => Assignment::Strided,
        "single" => Assignment::Single,
        other => {
            return Err(loc.err(
                rr.assignment.span().start,
                format!("{key}.assignment"),
                format!("unknown assignment `{other}` (expected `strided` or `single`)"),
            ));
        }
    };
    // The three families and the pair shape they share.
    let family = |field: &str, v: &Spanned<String>, params: &[&str], returns: &str| -> Result<String, SpecError> {
        let bad = |m: String| loc.err(v.span().start, format!("{key}.{field}"), m);
        let f = spec.family(v.get_ref()).ok_or_else(|| bad(format!("unknown family `{}`", v.get_ref())))?;
        let kinds: Vec<String> = f
            .params
            .iter()
            .map(|(_, k)| match k {
                ParamKind::SelfShape => "self".to_string(),
                ParamKind::Scalar => "scalar".to_string(),
                ParamKind::Named(n) => n.clone(),
                other => format!("{other:?}"),
            })
            .collect();
        let ret = match &f.returns {
            ParamKind::SelfShape => "self",
            ParamKind::Scalar => "scalar",
            _ => "?",
        };
        if kinds != params || ret != returns || f.shapes.len() != 1 {
            return Err(bad(format!(
                "family `{}` must have one shape and take ({}) to {returns}, like a {field} of (hi, comp) pairs",
                f.name,
                params.join(", ")
            )));
        }
        Ok(f.name.clone())
    };
    let step = family("step", &rr.step, &["self", "scalar"], "self")?;
    let combine = family("combine", &rr.combine, &["self", "self"], "self")?;
    let value = family("value", &rr.value, &["self"], "scalar")?;
    let pair = spec.family(&combine).unwrap().shapes[0].clone();
    for f in [&step, &value] {
        if spec.family(f).unwrap().shapes[0] != pair {
            return Err(loc.err(r.span().start, key, format!("`{f}` and `{combine}` must share one pair shape")));
        }
    }
    if spec.shape(&pair).map(Shape::len) != Some(2) {
        return Err(loc.err(
            rr.combine.span().start,
            format!("{key}.combine"),
            format!("the pair shape `{pair}` must have two components (hi, comp)"),
        ));
    }
    Ok(Some(Reduction { lanes, rounds, assignment, step, combine, value, pair, line: loc.lines.line(r.span().start) }))
}

/// The kernels: each table is checked on its own (its C name against the
/// families and the kernels accepted before it), and every refused table's
/// first error is returned.
fn kernels(loc: &Loc, raw: &RawSpec, spec: &Spec) -> Result<Vec<KernelSpec>, Vec<SpecError>> {
    let mut out: Vec<KernelSpec> = Vec::new();
    let mut errors = Vec::new();
    let mut refused: Vec<&String> = Vec::new();
    for (name, k) in in_file_order(&raw.kernels) {
        // A kernel whose `lanes` names a refused kernel is not checked: its
        // error would only repeat that kernel's.
        if k.get_ref().lanes.as_ref().is_some_and(|l| refused.contains(&l.get_ref())) {
            continue;
        }
        match kernel(loc, name, k, spec, &out) {
            Ok(kernel) => out.push(kernel),
            Err(e) => {
                errors.push(e);
                refused.push(name);
            }
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// One `[kernels.<name>]` table; `out` holds the kernels accepted before it.
fn kernel(loc: &Loc, name: &String, k: &Spanned<RawKernel>, spec: &Spec, out: &[KernelSpec]) -> Result<KernelSpec, SpecError> {
    let key = format!("kernels.{name}");
    let r = k.get_ref();
    let sched = r.schedule.get_ref().as_str();
    let routine = Routine::ALL.iter().find(|(n, _)| *n == sched).map(|(_, r)| *r);
    if routine.is_some() && spec.linalg.is_none() {
        return Err(loc.err(k.span().start, key, "a linear-algebra kernel needs `[rules.linalg]`"));
    }
    let red = spec.reduction.as_ref();
    if routine.is_none() && red.is_none() {
        return Err(loc.err(k.span().start, key, "a kernel needs `[rules.reduction]`"));
    }
    // The pair shape of the compensated kernels (none for linear algebra).
    let pair = red.map(|r| r.pair.clone()).unwrap_or_default();
    if !is_c_identifier(name) {
        return Err(loc.err(k.span().start, key, "a kernel name must be a C identifier"));
    }
    names::check_part(name, "kernel name").map_err(|m| loc.err(k.span().start, key.clone(), m))?;
    let op = r.op.as_ref().map_or(name.clone(), |o| o.get_ref().clone());
    if let Some(o) = &r.op {
        names::check_part(&op, "operation name").map_err(|m| loc.err(o.span().start, format!("{key}.op"), m))?;
    }
    names::check_text(r.doc.get_ref()).map_err(|m| loc.err(r.doc.span().start, format!("{key}.doc"), m))?;
    let mut shapes = Vec::new();
    for s in r.shapes.get_ref() {
        if spec.shape(s.get_ref()).is_none() || shapes.contains(s.get_ref()) {
            return Err(loc.err(s.span().start, format!("{key}.shapes"), format!("`{}` is not a new, known shape", s.get_ref())));
        }
        shapes.push(s.get_ref().clone());
    }
    let need = |field: &str, present: bool, what: &str| -> Result<(), SpecError> {
        if present {
            Ok(())
        } else {
            Err(loc.err(k.span().start, format!("{key}.{field}"), format!("missing field `{field}` for a `{what}` kernel")))
        }
    };
    let refuse = |field: &str, present: bool, what: &str| -> Result<(), SpecError> {
        if present {
            Err(loc.err(k.span().start, format!("{key}.{field}"), format!("a `{what}` kernel has no `{field}`")))
        } else {
            Ok(())
        }
    };
    let only = |allowed: &dyn Fn(&Shape) -> bool, what: &str| -> Result<(), SpecError> {
        match shapes.iter().find(|s| !allowed(spec.shape(s).unwrap())) {
            Some(s) => Err(loc.err(r.shapes.span().start, format!("{key}.shapes"), format!("a `{what}` kernel cannot take shape `{s}`"))),
            None if shapes.is_empty() => Err(loc.err(r.shapes.span().start, format!("{key}.shapes"), "a kernel needs at least one shape")),
            None => Ok(()),
        }
    };
    let scalar = |s: &Shape| matches!(s.kind, ShapeKind::Scalar);
    let schedule = match sched {
        _ if routine.is_some() => {
            only(
                &|s: &Shape| matches!(s.kind, ShapeKind::Matrix { rows, cols, .. } if rows == cols && spec.shape(&format!("vec{rows}")).is_some()),
                sched,
            )?;
            refuse("term", r.term.is_some(), sched)?;
            refuse("lanes", r.lanes.is_some(), sched)?;
            Schedule::Linalg(routine.unwrap())
        }
        "butterfly" => {
            only(&|s: &Shape| s.name == pair, sched)?;
            Schedule::Butterfly
        }
        "lanes" => {
            only(&scalar, sched)?;
            need("arrays", r.arrays.is_some(), sched)?;
            need("term", r.term.is_some(), sched)?;
            refuse("lanes", r.lanes.is_some(), sched)?;
            let mut arrays = Vec::new();
            for a in r.arrays.as_ref().unwrap().get_ref() {
                // Any fresh name, `lanes` and `first` too: the kernels' own are `aether_...`.
                if !is_c_identifier(a.get_ref()) || arrays.contains(a.get_ref()) {
                    return Err(loc.err(a.span().start, format!("{key}.arrays"), format!("`{}` is not a fresh array name", a.get_ref())));
                }
                names::check_local(a.get_ref(), "array name").map_err(|m| loc.err(a.span().start, format!("{key}.arrays"), m))?;
                arrays.push(a.get_ref().clone());
            }
            if arrays.is_empty() {
                return Err(loc.err(r.shapes.span().start, format!("{key}.arrays"), "a `lanes` kernel reads at least one array"));
            }
            let t = r.term.as_ref().unwrap();
            let term = dsl::parse_expr(t.get_ref()).map_err(|e| loc.err(t.span().start, format!("{key}.term"), e.to_string()))?;
            Schedule::Lanes { arrays, term, term_source: t.get_ref().clone(), term_line: loc.lines.line(t.span().start) }
        }
        "array" => {
            only(&scalar, sched)?;
            need("lanes", r.lanes.is_some(), sched)?;
            refuse("term", r.term.is_some(), sched)?;
            let l = r.lanes.as_ref().unwrap();
            match out.iter().find(|o| &o.name == l.get_ref()) {
                Some(KernelSpec { schedule: Schedule::Lanes { .. }, .. }) => {}
                _ => {
                    return Err(loc.err(
                        l.span().start,
                        format!("{key}.lanes"),
                        format!("`{}` is not a `lanes` kernel declared above", l.get_ref()),
                    ));
                }
            }
            Schedule::Array { lanes: l.get_ref().clone() }
        }
        "plane" | "resolve" => {
            if sched == "plane" {
                only(&|s: &Shape| matches!(s.kind, ShapeKind::Scalar | ShapeKind::Vector(_)) && s.name != pair, sched)?;
            } else {
                only(&scalar, sched)?;
            }
            refuse("term", r.term.is_some(), sched)?;
            refuse("lanes", r.lanes.is_some(), sched)?;
            if sched == "plane" {
                Schedule::Plane
            } else {
                Schedule::Resolve
            }
        }
        other => {
            return Err(loc.err(
                r.schedule.span().start,
                format!("{key}.schedule"),
                format!(
                    "unknown schedule `{other}` (expected butterfly, lanes, array, plane, resolve, or a linear-algebra routine: {})",
                    Routine::ALL.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
                ),
            ));
        }
    };
    if !matches!(schedule, Schedule::Lanes { .. }) {
        refuse("arrays", r.arrays.is_some(), sched)?;
    }
    let many = r.many.as_ref().is_some_and(|m| *m.get_ref());
    if many && !matches!(schedule, Schedule::Linalg(_)) {
        let at = r.many.as_ref().map_or(k.span().start, |m| m.span().start);
        return Err(loc.err(at, format!("{key}.many"), format!("a `{sched}` kernel has no many-lane form")));
    }
    let clash = spec.families.iter().any(|f| f.op == op && f.shapes.iter().any(|s| shapes.contains(s)))
        || out.iter().any(|o| o.op == op && o.shapes.iter().any(|s| shapes.contains(s)));
    if clash {
        return Err(loc.err(
            k.span().start,
            format!("{key}.op"),
            format!("C name clash: `{op}` is already defined for a shape of this kernel"),
        ));
    }
    let mut cases = probes(loc, &format!("{key}.cases"), r.cases.as_ref())?;
    // `shape_cases.<shape>`: probes for one shape only (a matrix kernel's
    // words are one matrix of that size), in the order the shapes are listed.
    for shape in &shapes {
        let Some(list) = r.shape_cases.as_ref().and_then(|m| m.get(shape)) else { continue };
        for mut p in probes(loc, &format!("{key}.shape_cases.{shape}"), Some(list))? {
            p.shape = Some(shape.clone());
            cases.push(p);
        }
    }
    if let Some((shape, list)) = r.shape_cases.iter().flatten().find(|(s, _)| !shapes.contains(s)) {
        return Err(loc.err(
            list.span().start,
            format!("{key}.shape_cases.{shape}"),
            format!("`{shape}` is not a shape of this kernel (shapes: {})", shapes.join(", ")),
        ));
    }
    Ok(KernelSpec {
        name: name.clone(),
        op,
        doc: r.doc.get_ref().clone(),
        schedule,
        shapes,
        cases,
        many,
        line: loc.lines.line(k.span().start),
    })
}

fn linalg(loc: &Loc, raw: &RawSpec, spec: &Spec) -> Result<Option<Linalg>, SpecError> {
    let Some(l) = &raw.rules.linalg else { return Ok(None) };
    let key = "rules.linalg";
    let r = l.get_ref();
    fn pick<T: Copy>(loc: &Loc, field: &str, v: &Spanned<String>, options: &[(&str, T)]) -> Result<T, SpecError> {
        options.iter().find(|(n, _)| n == v.get_ref()).map(|(_, t)| *t).ok_or_else(|| {
            let names: Vec<String> = options.iter().map(|(n, _)| format!("`{n}`")).collect();
            loc.err(
                v.span().start,
                format!("rules.linalg.{field}"),
                format!("unknown {field} `{}` (expected {})", v.get_ref(), names.join(" or ")),
            )
        })
    }
    let pivot = pick(loc, "pivot", &r.pivot, &[("first-largest", Pivot::FirstLargest), ("last-largest", Pivot::LastLargest)])?;
    let update = pick(loc, "update", &r.update, &[("dot", Update::Dot), ("right-looking", Update::RightLooking)])?;
    let multipliers =
        pick(loc, "multipliers", &r.multipliers, &[("reciprocal", Multipliers::Reciprocal), ("division", Multipliers::Division)])?;
    let symmetrize = pick(loc, "symmetrize", &r.symmetrize, &[("half-sum", Symmetrize::HalfSum), ("lower", Symmetrize::Lower)])?;
    let sweeps = *r.eigh_sweeps.get_ref();
    if sweeps == 0 || sweeps > 64 {
        return Err(loc.err(r.eigh_sweeps.span().start, format!("{key}.eigh_sweeps"), format!("{sweeps} sweeps: between 1 and 64")));
    }
    let family = |field: &str, v: &Spanned<String>, arity: usize| -> Result<String, SpecError> {
        let bad = |m: String| loc.err(v.span().start, format!("{key}.{field}"), m);
        let f = spec.family(v.get_ref()).ok_or_else(|| bad(format!("unknown family `{}`", v.get_ref())))?;
        if f.params.len() != arity || f.shapes != ["scalar"] {
            return Err(bad(format!("family `{}` must be a scalar family of {arity} parameter(s)", f.name)));
        }
        Ok(f.name.clone())
    };
    Ok(Some(Linalg {
        pivot,
        update,
        multipliers,
        symmetrize,
        eigh_sweeps: sweeps,
        rotation: family("rotation", &r.rotation, 3)?,
        update_pair: family("update_pair", &r.update_pair, 3)?,
        diag: family("diag", &r.diag, 4)?,
        fused: false,
        line: loc.lines.line(l.span().start),
    }))
}
