//! The C family's spelling: how C99, CUDA C++ and OpenCL C print the
//! model's trees, kernels and types (`Dialect`, one value per target: the C
//! core's `Dialect::C`, CUDA's and OpenCL's constants in their folders), the
//! flat thunks (`flat`), the self-test tables (`selftest`), the lanes
//! kernels' vector bodies (`simd`) and the corpus runner (`check`). An
//! operation order is written once here for the three languages.

use serde::Serialize;

use crate::dsl::BinOp;
use crate::model::{Builtin, Expr, Function, Kernel, KernelKind, Kind, Model, Param, Ty};
use crate::spec::{ElemType, ShapeKind};
use crate::targets::shared::docs::function_doc;
use crate::targets::shared::kernels::{COUNT, FIRST, LANES, TERM};
use crate::targets::shared::print::{self, Spelling};
use crate::targets::shared::stmt::{Arr, Loop, ParamTy, Place, Var, VarTy};

pub mod check;
pub mod flat;
pub mod predicate_check;
pub mod predicates;
pub mod selftest;
pub mod simd;

#[derive(Debug, Clone, Serialize)]
pub struct CType {
    pub name: String,
    pub doc: String,
    pub fields: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Helper {
    pub doc: String,
    pub lines: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CFunction {
    pub name: String,
    pub doc: Vec<String>,
    pub signature: String,
    pub body: Vec<String>,
}

/// How a C-family target spells the contract's arithmetic and its storage
/// classes. The C core and the CUDA core print the same trees and schedules
/// through this, so an operation order is written once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dialect {
    pub arith: Arith,
    /// Storage of a file-local helper (`static inline` in C).
    pub helper: &'static str,
    /// The math library's spelling: C's suffixed names (`sqrtf`, `fabsf`),
    /// or OpenCL C's overloaded ones (`sqrt`, `fabs`), which have no `f`
    /// forms.
    pub math: Math,
    /// Storage of a constant table inside a function body (`static const`
    /// in C; `const` in OpenCL C 1.2, which has no function-scope statics).
    pub table: &'static str,
    /// Products behind the guard that leaves them free to vectorise
    /// (`aether_product_vec_*`), for a function whose products do
    /// ([`products_vectorise`]); else the register-pinning guard.
    pub vector_products: bool,
    /// A fixed-length array parameter printed as an array, `int ipiv[3]`
    /// (C: the length documents the contract), or as a pointer, `int *ipiv`
    /// (OpenCL C: where the generic address space is on, as in PoCL 5's
    /// clang, an array parameter's elements are `__private` but a pointer
    /// parameter's are `__generic`, and the `_lanes` functions, which pass
    /// `&ipiv[l * n]` from their own pointer parameter, do not compile).
    pub array_params: bool,
}

/// How a dialect names the math library's functions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Math {
    /// `sqrtf`, `sqrt`: the element type's libm suffix.
    Suffixed,
    /// `sqrt` for every element type (OpenCL C).
    Overloaded,
}

/// How floating-point operations are printed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arith {
    /// C operators, `(a + b)`; every product behind its contraction guard
    /// (`aether_product_*`) when `guard`.
    Operators { guard: bool },
    /// One call per rounded operation, `aether_add_f32(a, b)`, to wrappers
    /// the target defines (the CUDA core: explicit-rounding intrinsics on
    /// the device, which no `--fmad` contracts).
    Calls,
}

impl Dialect {
    /// The plain-C core.
    pub const C: Dialect = Dialect {
        arith: Arith::Operators { guard: true },
        helper: "static inline",
        math: Math::Suffixed,
        table: "static const",
        vector_products: false,
        array_params: true,
    };

    /// A math library function of the element type in the dialect's
    /// spelling: `fabsf` in C, `fabs` in OpenCL C.
    pub fn libm(&self, base: &str, elem: &ElemType) -> String {
        match self.math {
            Math::Suffixed => format!("{base}{}", elem.libm_suffix),
            Math::Overloaded => base.to_string(),
        }
    }

    /// `a op b` for an arithmetic operation of the element type, or a
    /// comparison or logical operation (printed as the operator in every
    /// dialect: they round nothing).
    pub fn bin(&self, op: BinOp, a: &str, b: &str, elem: &ElemType) -> String {
        let rounded = matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div);
        match self.arith {
            Arith::Calls if rounded => format!("{}({a}, {b})", op_name(op, elem)),
            Arith::Operators { guard: true } if op == BinOp::Mul && self.vector_products => {
                format!("{}(({a} * {b}))", product_vec_name(elem))
            }
            Arith::Operators { guard: true } if op == BinOp::Mul => format!("{}(({a} * {b}))", product_name(elem)),
            _ => format!("({a} {} {b})", op.symbol()),
        }
    }

    /// The correctly rounded square root.
    pub fn sqrt(&self, x: &str, elem: &ElemType) -> String {
        match self.arith {
            Arith::Calls => format!("aether_sqrt_{}({x})", elem.name),
            // The C core as compiled (its guards on) spells it as its prelude's helper: the
            // IEEE operation without libm's errno check, which kept the norms from inlining.
            // The plain C body of the docs, and OpenCL C, keep the math library's name.
            Arith::Operators { guard: true } => format!("aether_ieee_sqrt_{}({x})", elem.name),
            Arith::Operators { guard: false } => format!("{}({x})", self.libm("sqrt", elem)),
        }
    }

    /// The name of a builtin other than sqrt: the C core's helpers and libm
    /// (fabs is exact everywhere; hypot and fma appear only in mutants).
    fn builtin(&self, b: Builtin, elem: &ElemType) -> String {
        match b {
            Builtin::IsFinite if self.arith == Arith::Calls => format!("aether_isfinite_{}", elem.name),
            Builtin::IsFinite => "isfinite".to_string(),
            Builtin::Barrier => barrier_name(elem),
            Builtin::Fmin | Builtin::Fmax => format!("aether_{}_{}", b.name(), elem.name),
            other => self.libm(other.name(), elem),
        }
    }
}

impl Spelling for Dialect {
    fn lit(&self, v: f64, elem: &ElemType) -> String {
        literal(v, elem)
    }
    fn truth(&self, b: bool) -> String {
        i32::from(b).to_string()
    }
    fn bin(&self, op: BinOp, a: &str, b: &str, elem: &ElemType) -> String {
        Dialect::bin(self, op, a, b, elem)
    }
    fn select(&self, c: &str, a: &str, b: &str) -> String {
        format!("({c} ? {a} : {b})")
    }
    fn sqrt(&self, x: &str, elem: &ElemType) -> String {
        Dialect::sqrt(self, x, elem)
    }
    fn call(&self, b: Builtin, args: &[String], elem: &ElemType) -> String {
        format!("{}({})", self.builtin(b, elem), args.join(", "))
    }
    fn component(&self, var: &str, kind: &ShapeKind, k: usize) -> String {
        format!("{var}.{}", component(kind, k))
    }
    fn kind_type(&self, model: &Model, kind: &Kind, elem: &ElemType) -> String {
        kind_type(model, kind, elem)
    }
    fn bind(&self, name: &str, ty: Ty, elem: &ElemType, value: &str) -> String {
        let ty = if ty == Ty::Bool { "int" } else { elem.c_type.as_str() };
        format!("const {ty} {name} = {value};")
    }
    fn return_truth(&self, v: &str) -> String {
        format!("return {v} ? 1 : 0;")
    }
    fn declare_out(&self, ty: &str) -> String {
        format!("{ty} {};", crate::targets::shared::print::OUT)
    }
}

/// The C family's statements: declarations before use, pointers to arrays
/// and to a struct's members, a loop body on the loop's line.
impl crate::targets::shared::stmt::Statements for Dialect {
    fn base_type(&self, model: &Model, ty: &VarTy, elem: &ElemType) -> String {
        match ty {
            VarTy::Elem => elem.c_type.clone(),
            VarTy::Int => "int".into(),
            VarTy::Shape(s) => type_name(model, s, elem),
            VarTy::Size => "size_t".into(),
        }
    }
    fn decl(&self, model: &Model, elem: &ElemType, konst: bool, ty: &VarTy, vars: &[Var]) -> String {
        let vs: Vec<String> = vars
            .iter()
            .map(|v| {
                let mut s = v.name.clone();
                if let Some(n) = &v.len {
                    s.push_str(&format!("[{n}]"));
                }
                if let Some(i) = &v.init {
                    s.push_str(&format!(" = {i}"));
                }
                s
            })
            .collect();
        format!("{}{} {};", if konst { "const " } else { "" }, self.base_type(model, ty, elem), vs.join(", "))
    }
    fn for_head(&self, var: &str, from: &str, lp: &Loop) -> String {
        match lp {
            Loop::Up(cond) => format!("for ({var} = {from}; {cond}; ++{var})"),
            Loop::Down => format!("for ({var} = {from}; {var}-- > 0;)"),
        }
    }
    fn braces(&self) -> bool {
        false
    }
    fn at(&self, a: &Arr, idx: &str) -> String {
        format!("{}[{idx}]", self.arg(a))
    }
    fn arg(&self, a: &Arr) -> String {
        match a.place {
            Place::Local | Place::Param => a.name.clone(),
            Place::Field { ptr: false } => format!("{}.m", a.name),
            Place::Field { ptr: true } => format!("{}->m", a.name),
        }
    }
    fn choose(&self, c: &str, a: &str, b: &str) -> String {
        format!("{c} ? {a} : {b}")
    }
    fn incr(&self, v: &str) -> String {
        format!("++{v};")
    }
    fn view(&self, _of: &str, _ptr: bool) -> Vec<String> {
        Vec::new()
    }
    fn unview(&self, _of: &str) -> Vec<String> {
        Vec::new()
    }
    fn deref(&self, name: &str) -> String {
        format!("*{name}")
    }
    fn deref_base(&self, name: &str) -> String {
        format!("(*{name})")
    }
    fn alias(&self, model: &Model, elem: &ElemType, name: &str, ty: &VarTy, target: &str) -> String {
        format!("{} *{name} = &{target};", self.base_type(model, ty, elem))
    }
    fn fn_head(
        &self,
        model: &Model,
        elem: &ElemType,
        helper: bool,
        ret: Option<&VarTy>,
        name: &str,
        params: &[(String, ParamTy)],
    ) -> String {
        let ps: Vec<String> = params
            .iter()
            .map(|(p, ty)| match ty {
                ParamTy::Array { ty, len, konst } => {
                    let c = if *konst { "const " } else { "" };
                    let b = self.base_type(model, ty, elem);
                    if helper || !self.array_params {
                        format!("{c}{b} *{p}")
                    } else {
                        format!("{c}{b} {p}[{len}]")
                    }
                }
                ParamTy::Value(s) => format!("{} {p}", type_name(model, s, elem)),
                ParamTy::Ptr { shape, konst } => format!("{}{} *{p}", if *konst { "const " } else { "" }, type_name(model, shape, elem)),
                ParamTy::Elem => format!("{} {p}", elem.c_type),
            })
            .collect();
        let r = ret.map_or("void".to_string(), |t| self.base_type(model, t, elem));
        let storage = if helper { format!("{} ", self.helper) } else { String::new() };
        format!("{storage}{r} {name}({})", ps.join(", "))
    }
}

/// The pointer parameter that carries parameter `p` into a function whose
/// body reads `p` itself (the batches' and the lanes kernels' vector steps,
/// the batches' item functions): `aether_in_<p>`, never a spec name nor
/// another generated one.
pub fn pointer_to(p: &str) -> String {
    format!("aether_in_{p}")
}

/// The wrapper a `Calls` dialect prints for a rounded operation:
/// `aether_add_f32`, `aether_mul_f64`.
pub fn op_name(op: BinOp, elem: &ElemType) -> String {
    let verb = match op {
        BinOp::Add => "add",
        BinOp::Sub => "sub",
        BinOp::Mul => "mul",
        BinOp::Div => "div",
        _ => unreachable!("only rounded operations have wrappers"),
    };
    format!("aether_{verb}_{}", elem.name)
}

/// The C type name of a shape in an element type: `aether_vec3f`, or `float`.
pub fn type_name(model: &Model, shape: &str, elem: &ElemType) -> String {
    match model.spec.shape(shape).map(|s| &s.kind) {
        Some(ShapeKind::Scalar) | None => elem.c_type.clone(),
        _ => format!("aether_{shape}{}", elem.letter),
    }
}

pub fn kind_type(model: &Model, k: &Kind, elem: &ElemType) -> String {
    match k {
        Kind::Bool => "int".into(),
        Kind::Shape(s) => type_name(model, &s.name, elem),
    }
}

/// The struct of every vector and matrix shape in every element type, in
/// the order the cores declare them.
pub fn c_types(model: &Model) -> Vec<CType> {
    let mut types = Vec::new();
    for elem in &model.spec.types {
        for shape in &model.spec.shapes {
            let fields = match &shape.kind {
                ShapeKind::Scalar => continue,
                ShapeKind::Vector(names) => names.iter().map(|n| format!("{} {n}", elem.c_type)).collect(),
                ShapeKind::Matrix { .. } => vec![format!("{} m[{}]", elem.c_type, shape.len())],
            };
            let doc = crate::targets::shared::docs::shape_doc(shape, &elem.c_type);
            types.push(CType { name: type_name(model, &shape.name, elem), doc, fields });
        }
    }
    types
}

/// The per-lane linear algebra's helpers of every element type and size a
/// kernel uses, in a dialect.
pub fn linalg_helpers(model: &Model, lowered: &[Function], dialect: &Dialect) -> Vec<Helper> {
    linalg_helpers_of(model, lowered, dialect, &|_| true)
}

/// `linalg_helpers` of the element types `elem` accepts (by name).
pub fn linalg_helpers_of(model: &Model, lowered: &[Function], dialect: &Dialect, elem: &dyn Fn(&str) -> bool) -> Vec<Helper> {
    let mut sizes: Vec<(String, usize)> = Vec::new();
    for k in model.kernels.iter().filter(|k| elem(&k.elem)) {
        if let KernelKind::Linalg { n, .. } = k.kind {
            if !sizes.contains(&(k.elem.clone(), n)) {
                sizes.push((k.elem.clone(), n));
            }
        }
    }
    sizes
        .into_iter()
        .map(|(elem, n)| {
            let t = model.spec.types.iter().find(|t| t.name == elem).unwrap();
            Helper {
                doc: format!("The per-lane linear algebra of {n}x{n} {} matrices on row-major arrays ([rules.linalg]).", t.c_type),
                lines: crate::targets::shared::linalg::helpers(model, lowered, t, n, dialect),
            }
        })
        .collect()
}

/// Statements that set both components of the pair `var` to +0, the value
/// every lane of [rules.reduction] starts from.
pub fn zero_pair(model: &Model, elem: &ElemType, var: &str) -> Vec<String> {
    let red = model.spec.reduction.as_ref().expect("kernels need [rules.reduction]");
    (0..2).map(|k| format!("{var}.{} = {};", component_name(model, &red.pair, k), literal(0.0, elem))).collect()
}

/// C's fmin (`cmp` "<") or fmax (">") of `a` and `b`, the one statement of
/// the rule every target prints: a NaN `a` gives `b`, a NaN `b` gives `a`,
/// else `b cmp a ? b : a`. `isnan` spells the NaN test, `select(c, x, y)` the
/// choice `c ? x : y` (`y` may be a nested choice).
pub fn minmax_rule(cmp: &str, isnan: &dyn Fn(&str) -> String, select: &dyn Fn(&str, &str, &str) -> String) -> String {
    minmax_rule_with(cmp, isnan, select, None)
}

/// An instruction's spelling on two operands (`minmax_rule_with`).
pub type Native<'a> = &'a dyn Fn(&str, &str) -> String;

/// The same rule, its last two choices spelled `native(b, a)` where a target
/// has an instruction that gives `x cmp y ? x : y`, and `y` when either is
/// NaN (x86's minps/maxps and their kin): on (b, a) that is `b cmp a ? b : a`,
/// and a for a NaN b, so only a NaN a is left to `select`.
pub fn minmax_rule_with(
    cmp: &str,
    isnan: &dyn Fn(&str) -> String,
    select: &dyn Fn(&str, &str, &str) -> String,
    native: Option<Native>,
) -> String {
    let rest = match native {
        Some(native) => native("b", "a"),
        None => select(&isnan("b"), "a", &select(&format!("b {cmp} a"), "b", "a")),
    };
    select(&isnan("a"), "b", &rest)
}

/// C's `c ? x : y`, with `y` in parentheses when it is itself a choice.
fn c_select(c: &str, x: &str, y: &str) -> String {
    if y.contains('?') {
        format!("{c} ? {x} : ({y})")
    } else {
        format!("{c} ? {x} : {y}")
    }
}

/// fmin() and fmax() of the spec for one element type, with a storage
/// prefix: comparisons only, so they round nothing in any dialect.
pub fn minmax_helper(t: &ElemType, storage: &str) -> Helper {
    let c = &t.c_type;
    Helper {
        doc: format!(
            "fmin() and fmax() of the spec for {c}: C's semantics (a NaN operand is ignored when the other is not NaN), \
             written out so that no libm's treatment of a signalling NaN (returned as NaN by some, ignored by others) \
             reaches the results. The sign of a zero result of +0 and -0 is outside the guarantee."
        ),
        lines: vec![
            format!("{storage} {c} aether_fmin_{}({c} a, {c} b)", t.name),
            "{".into(),
            format!("    return {};", minmax_rule("<", &|x| format!("{x} != {x}"), &c_select)),
            "}".into(),
            String::new(),
            format!("{storage} {c} aether_fmax_{}({c} a, {c} b)", t.name),
            "{".into(),
            format!("    return {};", minmax_rule(">", &|x| format!("{x} != {x}"), &c_select)),
            "}".into(),
        ],
    }
}

/// The ULP distance of every element type (`aether_f32_ulp_distance`,
/// returning `uint32_t`, and its twins), for consumers' own tests of results
/// that are not bit-exact: the rules of `aether_reference::ulp`, in integer
/// arithmetic on the words only (read with `memcpy`, which device code has
/// too), so no option that assumes no NaN or no signed zero can fold a test.
/// NaN follows `[policy] nan = "any-nan"`, the only policy the spec accepts.
/// The same text serves the C and the CUDA core.
pub fn ulp_functions(model: &Model) -> Vec<CFunction> {
    model
        .spec
        .types
        .iter()
        .map(|t| {
            let w = t.bits;
            let (inf, span) = if w == 32 {
                (u64::from(f32::INFINITY.to_bits()), format!("0x{:x}", 2 * f32::INFINITY.to_bits()))
            } else {
                (f64::INFINITY.to_bits(), format!("0x{:x}", 2 * f64::INFINITY.to_bits()))
            };
            let digits = (w / 4) as usize;
            let hex = |v: u64| format!("0x{v:0digits$x}u");
            let u = format!("uint{w}_t");
            let c = &t.c_type;
            let name = format!("aether_{}_ulp_distance", t.name);
            let doc = vec![
                format!("the distance between two {c} values in units in the last place (ULP): how many"),
                "representable values lie between a and b, counted on one ordered line valid across signs, for tests".into(),
                "of results that are not bit-exact. Negative values lie below positive ones; +0 and -0 are one point".into(),
                "(distance 0), so -tiny and +tiny (the smallest subnormals) are 2 apart; an infinity lies one step past".into(),
                "the largest finite value of its sign. NaN follows the comparison policy: any NaN against any NaN is 0;".into(),
                format!("a NaN against a number (infinities included) is UINT{w}_MAX, which no two numbers reach (-inf to"),
                format!("+inf is {span}). Only the bits are read (memcpy, then integer arithmetic): a word's point on the"),
                format!("line is 2^{} + m for a clear sign and 2^{} - m for a set one, m its magnitude bits, so no", w - 1, w - 1),
                "point or difference wraps.".into(),
            ];
            let body = vec![
                format!("const {u} sign = {}, inf = {};", hex(1 << (w - 1)), hex(inf)),
                format!("{u} ua, ub, ma, mb, pa, pb;"),
                "memcpy(&ua, &a, sizeof ua);".into(),
                "memcpy(&ub, &b, sizeof ub);".into(),
                "ma = ua & ~sign;".into(),
                "mb = ub & ~sign;".into(),
                format!("if (ma > inf || mb > inf) return (ma > inf && mb > inf) ? 0u : {};", hex(u64::MAX >> (64 - w))),
                "pa = (ua & sign) != 0u ? sign - ma : sign + ma;".into(),
                "pb = (ub & sign) != 0u ? sign - mb : sign + mb;".into(),
                "return pa > pb ? pa - pb : pb - pa;".into(),
            ];
            CFunction { signature: format!("{u} {name}({c} a, {c} b)"), name, doc, body }
        })
        .collect()
}

/// A lowered function printed in a dialect; its doc shows the exact body in
/// C operators.
pub fn function(model: &Model, f: &Function, dialect: &Dialect) -> CFunction {
    let elem = model.spec.types.iter().find(|t| t.name == f.elem).unwrap();
    let name = model.c_name(f);
    let params: Vec<String> = f.params.iter().map(|p| format!("{} {}", kind_type(model, &p.kind, elem), p.name)).collect();
    let ret = kind_type(model, &f.ret, elem);
    let signature = format!("{ret} {name}({})", if params.is_empty() { "void".to_string() } else { params.join(", ") });
    let mut doc = function_doc(model, f);
    let guarded = Dialect { vector_products: dialect.arith == (Arith::Operators { guard: true }) && products_vectorise(f), ..*dialect };
    let lines = print::body(&guarded, model, f, elem);
    // The exact order of operations, stated in the header: the body as
    // printed, without the products' contraction guards.
    doc.push("Evaluates exactly (the C body, in this order; every operation rounded once):".into());
    doc.extend(body_lines(model, f, elem, Arith::Operators { guard: false }).iter().map(|l| format!("    {l}")));
    CFunction { name, doc, signature, body: lines }
}

/// The C statements of a lowered function, its arithmetic spelled by `arith`.
fn body_lines(model: &Model, f: &Function, elem: &ElemType, arith: Arith) -> Vec<String> {
    print::body(&Dialect { arith, ..Dialect::C }, model, f, elem)
}

/// The C signature and body lines of a lowered function (what the core
/// prints for it), for documents that show the exact arithmetic.
pub fn signature_and_body(model: &Model, f: &Function) -> (String, Vec<String>) {
    let c = function(model, f, &Dialect::C);
    let elem = model.spec.types.iter().find(|t| t.name == f.elem).unwrap();
    (c.signature, body_lines(model, f, elem, Arith::Operators { guard: false }))
}

pub fn component(kind: &ShapeKind, k: usize) -> String {
    match kind {
        ShapeKind::Vector(names) => names[k].clone(),
        _ => format!("m[{k}]"),
    }
}

/// The contraction guard of a product of the element type: with GNU C
/// compilers an empty asm no pass can see through (clang's
/// `-ffp-contract=fast` disregards pragmas, and gcc's vectoriser fuses under
/// them); elsewhere the identity (see the source's prologue).
pub fn product_name(t: &ElemType) -> String {
    format!("aether_product_{}", t.name)
}

/// The guard that leaves products free to vectorise: their bits ORed with
/// an opaque zero in the header-only form; the register-pinning guard in the
/// object (see the source's prologue).
pub fn product_vec_name(t: &ElemType) -> String {
    format!("aether_product_vec_{}", t.name)
}

/// Whether a function's products are lanes a vectoriser packs: at least four
/// results, each a sum of at least two products whose operands hold no
/// product, no intermediate and no call (the matrix products, the
/// quaternion product, mat4 * vec4). There the vectorising guard measured
/// faster (docs/reports/performance.md); elsewhere (one result, or chains of
/// products, as in dot, cross, rotate) the pinning guard did.
pub fn products_vectorise(f: &Function) -> bool {
    fn one_level(e: &Expr, products: &mut usize, under_product: bool) -> bool {
        match e {
            Expr::Bin(BinOp::Mul, a, b) => {
                *products += 1;
                !under_product && one_level(a, products, true) && one_level(b, products, true)
            }
            Expr::Bin(_, a, b) => one_level(a, products, under_product) && one_level(b, products, under_product),
            Expr::Input { .. } | Expr::Lit(_) => true,
            _ => false,
        }
    }
    f.temps.is_empty()
        && f.outputs.len() >= 4
        && f.outputs.iter().all(|e| {
            let mut n = 0;
            one_level(e, &mut n, false) && n >= 2
        })
}

pub fn barrier_name(t: &ElemType) -> String {
    format!("aether_barrier_{}", t.name)
}

/// The C function of a kernel: loops over caller-owned arrays that call the
/// step families by their C names.
pub fn kernel(model: &Model, k: &Kernel, dialect: &Dialect) -> CFunction {
    if let KernelKind::Linalg { .. } = k.kind {
        let p = crate::targets::shared::linalg::kernel(model, k, dialect);
        return CFunction { name: p.name, doc: p.doc, signature: p.signature, body: p.body };
    }
    let elem = model.spec.types.iter().find(|t| t.name == k.elem).unwrap();
    let red = model.spec.reduction.as_ref().expect("kernels need [rules.reduction]");
    let ks = model.spec.kernel(&k.key).unwrap();
    let t = &elem.c_type;
    let pair = type_name(model, &red.pair, elem);
    let step_name = |family: &str| {
        let f = model.functions.iter().find(|f| f.family == family && f.elem == k.elem).unwrap();
        model.c_name(f)
    };
    let (combine, value) = (step_name(&red.combine), step_name(&red.value));
    let lanes = red.lanes;
    let name = model.kernel_c_name(k);
    let mut body: Vec<String> = Vec::new();
    let signature;
    match &k.kind {
        KernelKind::Butterfly => {
            signature = format!("{pair} {name}(const {pair} lanes[{lanes}])");
            let rounds: Vec<String> = red.rounds.iter().map(|r| format!("{r}u")).collect();
            body.push(format!("{} unsigned rounds[{}] = {{ {} }};", dialect.table, rounds.len(), rounds.join(", ")));
            body.push(format!("{pair} v[{lanes}];"));
            body.push("unsigned r, i;".into());
            // The C core (guarded operators) adds the vector path of the halving rounds.
            if let (true, Arith::Operators { guard: true }) = (halving(&red.rounds), &dialect.arith) {
                body.extend(crate::targets::shared::c_family::simd::butterfly_body(model, &model.lowered(), elem).unwrap_or_default());
            }
            body.push(format!("for (i = 0; i < {lanes}u; ++i) v[i] = lanes[i];"));
            if halving(&red.rounds) {
                // Only lane 0 is returned, and rounds that halve down to 1 let lane i < m of the
                // round of mask m be the only lanes later rounds read: each round combines lane
                // i with lane i + m (= i ^ m, not written in that round) in place, 31 combines
                // for 32 lanes instead of 160, and lane 0 gets the same operands in the same
                // order as in the full butterfly, so the same bits.
                body.push(format!("for (r = 0; r < {}u; ++r) {{", rounds.len()));
                body.push(format!("    for (i = 0; i < rounds[r]; ++i) v[i] = {combine}(v[i], v[i ^ rounds[r]]);"));
                body.push("}".into());
            } else {
                body.push(format!("{pair} w[{lanes}];"));
                body.push(format!("for (r = 0; r < {}u; ++r) {{", rounds.len()));
                body.push(format!("    for (i = 0; i < {lanes}u; ++i) w[i] = {combine}(v[i], v[i ^ rounds[r]]);"));
                body.push(format!("    for (i = 0; i < {lanes}u; ++i) v[i] = w[i];"));
                body.push("}".into());
            }
            body.push("return v[0];".into());
        }
        KernelKind::Lanes { arrays, .. } => {
            let arrs: Vec<String> = arrays.iter().map(|a| format!("const {t} *{a}")).collect();
            signature = format!("void {name}({pair} {LANES}[{lanes}], size_t {FIRST}, {}, size_t {COUNT})", arrs.join(", "));
            let scalar = crate::targets::shared::stmt::block(
                dialect,
                model,
                elem,
                &crate::targets::shared::kernels::lanes_body(model, k, dialect, &|a| Arr::param(a)),
            );
            // The C core (guarded operators) adds the vector path; CUDA and OpenCL print the loop.
            let vector = match dialect.arith {
                Arith::Operators { guard: true } => crate::targets::shared::c_family::simd::lanes_body(model, &model.lowered(), k, &scalar),
                _ => None,
            };
            body.extend(vector.unwrap_or(scalar));
        }
        KernelKind::Array { lanes: lk } => {
            let lk_kernel = model.kernels.iter().find(|x| &x.name == lk && x.elem == k.elem).unwrap();
            let KernelKind::Lanes { arrays, .. } = &lk_kernel.kind else { unreachable!("checked when the spec was read") };
            let arrs: Vec<String> = arrays.iter().map(|a| format!("const {t} *{a}")).collect();
            signature = format!("{t} {name}({}, size_t {COUNT})", arrs.join(", "));
            body.push(format!("{pair} {LANES}[{lanes}];"));
            body.push("unsigned aether_i;".into());
            body.push(format!("for (aether_i = 0; aether_i < {lanes}u; ++aether_i) {{"));
            body.extend(zero_pair(model, elem, &format!("{LANES}[aether_i]")).iter().map(|l| format!("    {l}")));
            body.push("}".into());
            body.push(format!("{}({LANES}, 0, {}, {COUNT});", model.kernel_c_name(lk_kernel), arrays.join(", ")));
            let bfly = model.kernels.iter().find(|x| x.kind == KernelKind::Butterfly && x.elem == k.elem).map(|x| model.kernel_c_name(x));
            match bfly {
                Some(b) => body.push(format!("return {value}({b}({LANES}));")),
                None => unreachable!("an array kernel needs the butterfly kernel"),
            }
        }
        KernelKind::Plane { .. } => {
            let term_ty = type_name(model, &k.shape, elem);
            signature = format!("void {name}({t} *value, {t} *comp, size_t element, {term_ty} term)");
            body.extend(crate::targets::shared::stmt::block(
                dialect,
                model,
                elem,
                &crate::targets::shared::kernels::plane_body(model, k, dialect, &|a| Arr::param(a)),
            ));
        }
        KernelKind::Resolve => {
            signature = format!("void {name}({t} *out, const {t} *value, const {t} *comp, size_t n)");
            body.extend(crate::targets::shared::stmt::block(
                dialect,
                model,
                elem,
                &crate::targets::shared::kernels::resolve_body(model, k, dialect, &|a| Arr::param(a)),
            ));
        }
        KernelKind::Linalg { .. } => unreachable!("printed by linalg"),
    }
    let mut doc = vec![ks.doc.clone()];
    if let KernelKind::Lanes { .. } = &k.kind {
        if let crate::spec::Schedule::Lanes { term_source, .. } = &ks.schedule {
            doc.push(format!("Spec term: {term_source}"));
        }
    }
    CFunction { name, doc, signature, body }
}

/// Whether butterfly rounds halve down to 1 (16, 8, 4, 2, 1): then the lanes
/// that lane 0 depends on in the round of mask m are exactly 0..m.
fn halving(rounds: &[usize]) -> bool {
    rounds.last() == Some(&1) && rounds.windows(2).all(|w| w[0] == 2 * w[1])
}

/// The statements that bind a lanes kernel's term of one element to
/// [`TERM`] (intermediates first), each array parameter `p` read as `read(p)`.
pub fn lane_term_with(
    term: &Function,
    elem: &ElemType,
    read: &dyn Fn(&str) -> String,
    sp: &dyn crate::targets::shared::stmt::Statements,
) -> Vec<crate::targets::shared::stmt::Stmt> {
    use crate::targets::shared::stmt::Stmt;
    let mut g = term.clone();
    g.params = g.params.iter().map(|p| Param { name: read(&p.name), kind: p.kind.clone() }).collect();
    let e = |x: &Expr| print::expr(sp, &g, elem, x);
    let mut out: Vec<Stmt> = g.temps.iter().map(|tmp| Stmt::konst(VarTy::Elem, vec![Var::init(&tmp.name, e(&tmp.expr))])).collect();
    out.push(Stmt::konst(VarTy::Elem, vec![Var::init(TERM, e(&g.outputs[0]))]));
    out
}

/// The statements that set `const T aether_term` ([`TERM`]) to a lanes
/// kernel's term of element `index` (each array parameter read at that index).
pub fn lane_term(term: &Function, elem: &ElemType, index: &str, dialect: &Dialect) -> Vec<String> {
    let t = &elem.c_type;
    let mut g = term.clone();
    g.params = g.params.iter().map(|p| Param { name: format!("{}[{index}]", p.name), kind: p.kind.clone() }).collect();
    let e = |x: &Expr| print::expr(dialect, &g, elem, x);
    let mut lines: Vec<String> = g.temps.iter().map(|tmp| format!("const {t} {} = {};", tmp.name, e(&tmp.expr))).collect();
    lines.push(format!("const {t} {TERM} = {};", e(&g.outputs[0])));
    lines
}

pub fn component_name(model: &Model, shape: &str, k: usize) -> String {
    component(&model.spec.shape(shape).unwrap().kind, k)
}

/// An exact C literal of the element type: `2.0f`, `-1.0`, `0.5f`, `0.75`,
/// the exact decimal expansion of a constant stated by its bits
/// (`0.041666664183139801025390625f`): every finite binary64 number has one
/// (at most 767 significant digits), so no finite value is printed as a
/// hexadecimal float. A decimal literal whose value is representable is that
/// value in every C++ (\[lex.fcon\]); in C, Annex F's conversion of a decimal with
/// more than DECIMAL_DIG digits gives one of the correct roundings of its two
/// DECIMAL_DIG-digit neighbours, which for a representable value is the value
/// itself whenever a DECIMAL_DIG-digit step is under half its ulp: always for
/// binary32, and for binary64 with DECIMAL_DIG >= 18 (21 on x86 and aarch64
/// gcc and clang; the corpus on every cell of the compatibility matrix checks
/// the rest). Hexadecimal floats need C99 or C++17, so the decimals keep the
/// core readable by C++11 compilers.
pub fn literal(v: f64, elem: &ElemType) -> String {
    let s = &elem.literal_suffix;
    if v.fract() == 0.0 && v.abs() < 16_777_216.0 {
        let sign = if v.is_sign_negative() { "-" } else { "" };
        return format!("{sign}{:.1}{s}", v.abs());
    }
    let bits = v.to_bits();
    let sign = if bits >> 63 == 1 { "-" } else { "" };
    if let Some(dec) = short_exact_decimal(v.abs()) {
        return format!("{sign}{dec}{s}");
    }
    let field = ((bits >> 52) & 0x7ff) as i64;
    let mant = bits & ((1u64 << 52) - 1);
    let mut hex = format!("{mant:013x}");
    while hex.ends_with('0') {
        hex.pop();
    }
    let frac = if hex.is_empty() { String::new() } else { format!(".{hex}") };
    // A binary64 subnormal is 0.mant * 2^-1022.
    let (lead, exp) = if field == 0 { (0, -1022) } else { (1, field - 1023) };
    format!("{sign}0x{lead}{frac}p{exp:+}{s}")
}

/// The exact decimal expansion of a finite, positive `v` (`0.5`, `0.75`,
/// `1152921504606846976.0`; `1e-3` is not a binary number).
fn short_exact_decimal(v: f64) -> Option<String> {
    if !v.is_finite() || v == 0.0 {
        return None;
    }
    let bits = v.to_bits();
    let field = ((bits >> 52) & 0x7ff) as i64;
    let (mut m, mut e) =
        if field == 0 { (bits & ((1u64 << 52) - 1), -1074) } else { ((bits & ((1u64 << 52) - 1)) | (1u64 << 52), field - 1075) };
    while m & 1 == 0 {
        m >>= 1;
        e += 1;
    }
    if e >= 0 {
        // A whole number: m * 2^e.
        let digits = digits_of(m, 2, e as usize);
        return Some(format!("{digits}.0"));
    }
    // v = m / 2^k = m * 5^k / 10^k.
    let k = (-e) as usize;
    let digits = digits_of(m, 5, k);
    Some(if digits.len() > k {
        format!("{}.{}", &digits[..digits.len() - k], &digits[digits.len() - k..])
    } else {
        format!("0.{}{digits}", "0".repeat(k - digits.len()))
    })
}

/// The decimal digits of `m * factor^times` (base 10^9 limbs, least first).
fn digits_of(m: u64, factor: u64, times: usize) -> String {
    let mut limbs = vec![m % 1_000_000_000, m / 1_000_000_000 % 1_000_000_000, m / 1_000_000_000_000_000_000];
    for _ in 0..times {
        let mut carry = 0;
        for limb in &mut limbs {
            let x = *limb * factor + carry;
            *limb = x % 1_000_000_000;
            carry = x / 1_000_000_000;
        }
        if carry > 0 {
            limbs.push(carry);
        }
    }
    while limbs.len() > 1 && limbs.last() == Some(&0) {
        limbs.pop();
    }
    let mut digits = limbs.last().unwrap().to_string();
    for limb in limbs.iter().rev().skip(1) {
        digits.push_str(&format!("{limb:09}"));
    }
    digits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32t() -> ElemType {
        ElemType {
            name: "f32".into(),
            c_type: "float".into(),
            letter: "f".into(),
            literal_suffix: "f".into(),
            libm_suffix: "f".into(),
            bits: 32,
        }
    }

    #[test]
    fn dialects_spell_rounded_operations_and_leave_comparisons() {
        let t = f32t();
        let calls = Dialect { arith: Arith::Calls, helper: "static", ..Dialect::C };
        assert_eq!(Dialect::C.bin(BinOp::Mul, "a", "b", &t), "aether_product_f32((a * b))");
        let vector = Dialect { vector_products: true, ..Dialect::C };
        assert_eq!(vector.bin(BinOp::Mul, "a", "b", &t), "aether_product_vec_f32((a * b))");
        assert_eq!(Dialect::C.bin(BinOp::Add, "a", "b", &t), "(a + b)");
        assert_eq!(Dialect::C.sqrt("x", &t), "aether_ieee_sqrt_f32(x)");
        assert_eq!(calls.bin(BinOp::Mul, "a", "b", &t), "aether_mul_f32(a, b)");
        assert_eq!(calls.bin(BinOp::Div, "a", "b", &t), "aether_div_f32(a, b)");
        assert_eq!(calls.bin(BinOp::Sub, "a", "b", &t), "aether_sub_f32(a, b)");
        assert_eq!(calls.sqrt("x", &t), "aether_sqrt_f32(x)");
        // Comparisons round nothing: the operator in every dialect.
        assert_eq!(calls.bin(BinOp::Lt, "a", "b", &t), "(a < b)");
        assert_eq!(calls.builtin(Builtin::IsFinite, &t), "aether_isfinite_f32");
        assert_eq!(Dialect::C.builtin(Builtin::IsFinite, &t), "isfinite");
    }

    #[test]
    fn literals_are_exact_and_typed() {
        assert_eq!(literal(2.0, &f32t()), "2.0f");
        assert_eq!(literal(-1.0, &f32t()), "-1.0f");
        assert_eq!(literal(-0.0, &f32t()), "-0.0f");
        assert_eq!(literal(0.5, &f32t()), "0.5f");
        assert_eq!(literal(0.75, &f32t()), "0.75f");
        assert_eq!(literal(-0.15625, &f32t()), "-0.15625f");
        assert_eq!(literal(1.5 * 2f64.powi(-20), &f32t()), "0.000001430511474609375f");
        assert_eq!(literal(-16777216.0, &f32t()), "-16777216.0f");
        assert_eq!(literal(2f64.powi(60), &f32t()), "1152921504606846976.0f");
        assert_eq!(literal(2f64.powi(-60), &f32t()), "0.000000000000000000867361737988403547205962240695953369140625f");
        // Every decimal printed is exact: it parses back to the same bits.
        for v in [3.0 * 2f64.powi(-130), f64::from(f32::from_bits(0x3D2A_AAAA)), f64::from_bits(0x397B_839A_2520_49C1), 0.1, 1e-300] {
            let text = literal(v, &f32t());
            let dec = text.trim_end_matches('f');
            if !dec.starts_with("0x") {
                assert_eq!(dec.parse::<f64>().unwrap().to_bits(), v.to_bits(), "{text}");
            }
        }
        // The least subnormal and the largest finite number too (751 and 309 digits).
        for v in [f64::from_bits(1), f64::MAX] {
            let text = literal(v, &f32t());
            assert!(!text.contains('x'), "{text}");
            assert_eq!(text.trim_end_matches('f').parse::<f64>().unwrap().to_bits(), v.to_bits());
        }
    }

    /// The butterfly computes only lane 0's cone where the rounds halve down
    /// to 1, and the full butterfly for any other rounds.
    #[test]
    fn the_butterfly_computes_lane_zeros_cone_only_where_the_rounds_halve() {
        assert!(halving(&[16, 8, 4, 2, 1]));
        assert!(halving(&[1]));
        assert!(!halving(&[1, 2, 4, 8, 16]), "the rounds-reversed mutant's order needs every lane");
        assert!(!halving(&[16, 4, 1]));
        assert!(!halving(&[]));
        let m = crate::load(&crate::default_root()).expect("the spec loads");
        let k = m.kernels.iter().find(|k| k.kind == KernelKind::Butterfly).expect("a butterfly kernel");
        let body = kernel(&m, k, &Dialect::C).body.join("\n");
        assert!(body.contains("for (i = 0; i < rounds[r]; ++i) v[i] = "), "{body}");
        assert!(!body.contains("w[i]"), "{body}");
    }
}
