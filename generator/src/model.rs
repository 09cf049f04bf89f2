//! The target-neutral model: one expression tree per output component of every
//! function, built from the spec's bodies. Calls are inlined, names resolved to
//! memory indices, literals checked to be exact. Folds stay `Fold` nodes until
//! `lower` expands them by the spec's fold rule, so the rule lives in one place.

use std::collections::HashMap;

use crate::dsl::{Ast, AstKind, BinOp, Stmt, Target};
use crate::error::{SpecError, SpecErrors};
use crate::spec::{Body, ElemType, Family, Nesting, ParamKind, Routine, Schedule, Seed, Shape, ShapeKind, Spec};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Builtin {
    Sqrt,
    Fabs,
    Fmin,
    Fmax,
    IsFinite,
    Hypot,
    /// The optimisation barrier: the value itself, rounded to the element
    /// type and opaque to the compiler, so no product is fused through it.
    Barrier,
    /// Fused multiply-add: appears only in mutants.
    Fma,
}

impl Builtin {
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Sqrt => "sqrt",
            Builtin::Fabs => "fabs",
            Builtin::Fmin => "fmin",
            Builtin::Fmax => "fmax",
            Builtin::IsFinite => "isfinite",
            Builtin::Hypot => "hypot",
            Builtin::Barrier => "barrier",
            Builtin::Fma => "fma",
        }
    }

    fn from_name(s: &str) -> Option<(Builtin, usize)> {
        Some(match s {
            "sqrt" => (Builtin::Sqrt, 1),
            "fabs" => (Builtin::Fabs, 1),
            "fmin" => (Builtin::Fmin, 2),
            "fmax" => (Builtin::Fmax, 2),
            "isfinite" => (Builtin::IsFinite, 1),
            "hypot" => (Builtin::Hypot, 2),
            "barrier" => (Builtin::Barrier, 1),
            _ => return None,
        })
    }
}

/// A scalar expression. Every value is of the function's element type, or a
/// truth value (comparisons, `isfinite`, `&&`, `||`, `!`).
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A literal, exactly representable in every element type.
    Lit(f64),
    /// Component `comp` (memory index) of parameter `param`.
    Input {
        param: usize,
        comp: usize,
    },
    /// A named intermediate (`Function::temps`).
    Temp(usize),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Call(Builtin, Vec<Expr>),
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A fold over `terms` (ascending index) with a combiner, before the fold
    /// rule orders it.
    Fold {
        combiner: String,
        op: Box<Expr>,
        identity: f64,
        terms: Vec<Expr>,
    },
    /// Inside a combiner: 0 is the new term, 1 the folded rest.
    Hole(u8),
    /// A truth constant (only a seeded truth fold, a mutant, makes one).
    Truth(bool),
}

impl Expr {
    fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Bin(op, Box::new(a), Box::new(b))
    }

    /// Whether the expression is truth-valued.
    pub fn is_truth(&self) -> bool {
        match self {
            Expr::Bin(op, ..) => op.is_comparison() || op.is_logical(),
            Expr::Not(_) | Expr::Truth(_) => true,
            Expr::Call(b, _) => *b == Builtin::IsFinite,
            Expr::Select(_, a, _) => a.is_truth(),
            _ => false,
        }
    }

    fn is_trivial(&self) -> bool {
        matches!(self, Expr::Lit(_) | Expr::Input { .. } | Expr::Temp(_))
    }

    /// Applies `f` to every node, children first.
    pub fn map(self, f: &mut impl FnMut(Expr) -> Expr) -> Expr {
        let e = match self {
            Expr::Bin(op, a, b) => Expr::Bin(op, Box::new(a.map(f)), Box::new(b.map(f))),
            Expr::Not(a) => Expr::Not(Box::new(a.map(f))),
            Expr::Call(b, args) => Expr::Call(b, args.into_iter().map(|a| a.map(f)).collect()),
            Expr::Select(c, a, b) => Expr::Select(Box::new(c.map(f)), Box::new(a.map(f)), Box::new(b.map(f))),
            Expr::Fold { combiner, op, identity, terms } => {
                Expr::Fold { combiner, op, identity, terms: terms.into_iter().map(|t| t.map(f)).collect() }
            }
            leaf => leaf,
        };
        f(e)
    }

    /// Visits every node, parents first.
    pub fn visit(&self, f: &mut impl FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Bin(_, a, b) => {
                a.visit(f);
                b.visit(f);
            }
            Expr::Not(a) => a.visit(f),
            Expr::Call(_, args) => args.iter().for_each(|a| a.visit(f)),
            Expr::Select(c, a, b) => {
                c.visit(f);
                a.visit(f);
                b.visit(f);
            }
            Expr::Fold { terms, .. } => terms.iter().for_each(|t| t.visit(f)),
            _ => {}
        }
    }

    /// The depth and the node count of the tree once its folds are ordered
    /// (a fold of n terms becomes a chain n deep), computed without
    /// recursion.
    pub fn extent(&self) -> (usize, usize) {
        let (mut depth, mut nodes) = (0, 0);
        let mut todo: Vec<(&Expr, usize)> = vec![(self, 1)];
        while let Some((e, d)) = todo.pop() {
            depth = depth.max(d);
            nodes += 1;
            match e {
                Expr::Bin(_, a, b) => todo.extend([(&**a, d + 1), (&**b, d + 1)]),
                Expr::Not(a) => todo.push((a, d + 1)),
                Expr::Call(_, args) => todo.extend(args.iter().map(|a| (a, d + 1))),
                Expr::Select(c, a, b) => todo.extend([(&**c, d + 1), (&**a, d + 1), (&**b, d + 1)]),
                Expr::Fold { op, terms, .. } => {
                    let (op_depth, op_nodes) = op.extent();
                    let chain = d + terms.len() * op_depth;
                    nodes += terms.len() * op_nodes;
                    todo.extend(terms.iter().map(|t| (t, chain + 1)));
                }
                _ => {}
            }
        }
        (depth, nodes)
    }

    fn substitute_holes(&self, new: &Expr, acc: &Expr) -> Expr {
        self.clone().map(&mut |e| match e {
            Expr::Hole(0) => new.clone(),
            Expr::Hole(_) => acc.clone(),
            other => other,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    Float,
    Bool,
}

/// What a parameter or a result is.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Bool,
    /// A value of a shape (the `scalar` shape for a plain number).
    Shape(Shape),
}

impl Kind {
    pub fn words(&self) -> usize {
        match self {
            Kind::Bool => 1,
            Kind::Shape(s) => s.len(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    pub kind: Kind,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Temp {
    pub name: String,
    pub ty: Ty,
    pub expr: Expr,
}

/// One function of one family, shape and element type.
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub family: String,
    pub op: String,
    pub shape: String,
    pub elem: String,
    pub params: Vec<Param>,
    pub ret: Kind,
    pub temps: Vec<Temp>,
    /// One expression per result component, in memory order.
    pub outputs: Vec<Expr>,
    /// The comparison policy lets a +0 match a -0 in this function's results.
    pub either_zero: bool,
    /// Parameters that test inputs compute from the others: the parameter
    /// index and a one-output function of all parameters.
    pub derived: Vec<(usize, Function)>,
}

impl Function {
    pub fn input_words(&self) -> usize {
        self.params.iter().map(|p| p.kind.words()).sum()
    }

    pub fn output_words(&self) -> usize {
        self.ret.words()
    }

    pub fn returns_bool(&self) -> bool {
        self.ret == Kind::Bool
    }

    /// `(param, component)` of every input word, in order.
    pub fn input_slots(&self) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for (p, param) in self.params.iter().enumerate() {
            for c in 0..param.kind.words() {
                v.push((p, c));
            }
        }
        v
    }

    /// Every node of the function, temps first.
    pub fn exprs(&self) -> impl Iterator<Item = &Expr> {
        self.temps.iter().map(|t| &t.expr).chain(self.outputs.iter())
    }

    /// Whether the tree's value rests on each operation rounding to nearest
    /// in the stated order: it has a barrier (a compensated helper) or an
    /// exactness idiom, a sum or difference one of whose operands is itself a
    /// sum or difference of the other operand and something (the temps looked
    /// through once). Under real arithmetic such a node is one of its operands
    /// or zero; in floating point it is what the rounding did:
    /// - `(x + C) - C`, a shifter's rounding of x to an integer (the
    ///   elementary functions' reductions and scalings);
    /// - `t - (t - x)` with t = 4097 x, Veltkamp's split (asin, atan2, pow);
    /// - `(a + b) - a` and `s - (r - v)`, the error of a two-sum.
    ///
    /// A compiler that reassociates folds each to an operand or to zero
    /// (lavapipe does), so a target that may reassociate guards such a tree
    /// (`targets::wgsl`), and no band follows from per-operation accuracy for
    /// it (`bands`): the tree's real value is not the function's.
    pub fn relies_on_rounding(&self) -> bool {
        // `inner` (a temp looked through) is a sum or difference with `other`
        // as one of its operands.
        let holds = |inner: &Expr, other: &Expr| {
            let inner = match inner {
                Expr::Temp(i) => &self.temps[*i].expr,
                e => e,
            };
            matches!(inner, Expr::Bin(BinOp::Add | BinOp::Sub, p, q) if (**p == *other || **q == *other) && *other != Expr::Lit(0.0))
        };
        let mut found = false;
        for e in self.exprs() {
            e.visit(&mut |x| match x {
                Expr::Call(Builtin::Barrier, _) => found = true,
                Expr::Bin(BinOp::Add | BinOp::Sub, a, b) => found |= holds(a, b) || holds(b, a),
                _ => {}
            });
        }
        found
    }

    pub fn map_exprs(&mut self, f: &mut impl FnMut(Expr) -> Expr) {
        for t in &mut self.temps {
            t.expr = std::mem::replace(&mut t.expr, Expr::Lit(0.0)).map(f);
        }
        for o in &mut self.outputs {
            *o = std::mem::replace(o, Expr::Lit(0.0)).map(f);
        }
    }
}

/// Every function of the spec, in spec order: family, then shape, then type.
#[derive(Debug, Clone)]
pub struct Model {
    pub spec: Spec,
    pub functions: Vec<Function>,
    /// Every kernel of the spec, in spec order: kernel, then shape, then type.
    pub kernels: Vec<Kernel>,
}

/// What a kernel instance does; see `spec::Schedule`.
#[derive(Debug, Clone, PartialEq)]
pub enum KernelKind {
    Butterfly,
    /// `term` is a function of one scalar per array (element j of each).
    Lanes {
        arrays: Vec<String>,
        term: Box<Function>,
    },
    /// The name of the `Lanes` kernel it accumulates with.
    Array {
        lanes: String,
    },
    /// Elements of `width` components.
    Plane {
        width: usize,
    },
    Resolve,
    /// A linear-algebra routine of size n, single or over many lanes.
    Linalg {
        routine: Routine,
        n: usize,
        many: bool,
    },
}

/// One kernel of one shape and element type: a function over caller-owned
/// arrays whose every floating-point step is a family of the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Kernel {
    /// The flat and reference key: the spec's kernel name, with `_lanes`
    /// for a many-lane form.
    pub name: String,
    /// The spec's `[kernels.<key>]`.
    pub key: String,
    pub op: String,
    pub shape: String,
    pub elem: String,
    pub kind: KernelKind,
}

/// The parameters, result and trees of one family instance.
type Instance = (Vec<Param>, Kind, Vec<Temp>, Vec<Expr>);

/// `elem` is the element type when the family states a body per type (the
/// instance is then built once per type), else `None` (built once for all).
fn instance(spec: &Spec, fam: &Family, shape: &Shape, elem: Option<&ElemType>) -> Result<Instance, SpecError> {
    let taken = fam.params.iter().map(|(n, _)| n.clone()).collect();
    let mut b = Builder { spec, temps: Vec::new(), stack: Vec::new(), taken, elem };
    let body = fam.body_for(&shape.name, elem.map_or("", |e| e.name.as_str())).unwrap();
    let params = resolve_params(spec, fam, shape, body)?;
    let ret = resolve_kind(spec, &fam.returns, shape, body, "returns")?;
    let args: Vec<Val> = params
        .iter()
        .enumerate()
        .map(|(p, param)| match &param.kind {
            Kind::Shape(s) => Val::Agg(s.clone(), (0..s.len()).map(|comp| Expr::Input { param: p, comp }).collect()),
            Kind::Bool => unreachable!("parameters are never bool"),
        })
        .collect();
    let result = b.instantiate(fam, shape, body, args, "").map_err(|mut e| {
        if e.key != body.key {
            e.message = format!("{} (while building `{}` for `{}`)", e.message, fam.name, shape.name);
        }
        e
    })?;
    let outputs = match result {
        Val::Agg(_, comps) => comps,
        Val::F(e) | Val::B(e) => vec![e],
        _ => unreachable!("instantiate returns a value of the result kind"),
    };
    let (mut depth, mut nodes) = (0, 0);
    for e in b.temps.iter().map(|t| &t.expr).chain(&outputs) {
        let (d, n) = e.extent();
        depth = depth.max(d);
        nodes += n;
    }
    if depth > MAX_TREE_DEPTH || nodes > MAX_TREE_NODES {
        return Err(SpecError {
            file: spec.file.clone(),
            line: body.line,
            key: body.key.clone(),
            message: format!(
                "`{}` for `{}` is a tree {depth} deep with {nodes} nodes once its calls are inlined and its folds ordered: \
                 at most {MAX_TREE_DEPTH} deep and {MAX_TREE_NODES} nodes",
                fam.name, shape.name
            ),
        });
    }
    let (temps, outputs) = prune_temps(b.temps, outputs);
    Ok((params, ret, temps, outputs))
}

/// Drops the named steps no result reads (a called family's other results:
/// `sincos(a).x` leaves the cosine's steps unread) and renumbers the rest,
/// so no core prints a step nothing uses.
pub(crate) fn prune_temps(temps: Vec<Temp>, mut outputs: Vec<Expr>) -> (Vec<Temp>, Vec<Expr>) {
    let mut used = vec![false; temps.len()];
    let mark = |e: &Expr, used: &mut Vec<bool>| {
        e.visit(&mut |n| {
            if let Expr::Temp(i) = n {
                used[*i] = true;
            }
        })
    };
    outputs.iter().for_each(|o| mark(o, &mut used));
    // A step reads only earlier steps, so one pass from the last marks all.
    for i in (0..temps.len()).rev() {
        if used[i] {
            mark(&temps[i].expr, &mut used);
        }
    }
    if used.iter().all(|&u| u) {
        return (temps, outputs);
    }
    let mut index = vec![usize::MAX; temps.len()];
    let mut kept = Vec::new();
    let renumber = |e: Expr, index: &[usize]| e.map(&mut |n| if let Expr::Temp(i) = n { Expr::Temp(index[i]) } else { n });
    for (i, t) in temps.into_iter().enumerate() {
        if used[i] {
            index[i] = kept.len();
            let expr = renumber(t.expr, &index);
            kept.push(Temp { expr, ..t });
        }
    }
    outputs = outputs.into_iter().map(|o| renumber(o, &index)).collect();
    (kept, outputs)
}

/// A scalar function of the given scalar parameters whose one result is
/// `expr`: a kernel's term, or a derived parameter.
fn expr_function(
    spec: &Spec,
    name: &str,
    params: &[String],
    expr: &Ast,
    source: &str,
    line: usize,
    key: &str,
) -> Result<Function, SpecError> {
    let scalar = spec.shape("scalar").cloned().ok_or_else(|| SpecError {
        file: spec.file.clone(),
        line,
        key: key.to_string(),
        message: "needs the `scalar` shape".into(),
    })?;
    let fam = Family {
        name: name.to_string(),
        op: name.to_string(),
        doc: String::new(),
        shapes: vec!["scalar".into()],
        params: params.iter().map(|p| (p.clone(), ParamKind::Scalar)).collect(),
        returns: ParamKind::Scalar,
        bodies: vec![Body {
            shape: None,
            elem: None,
            stmts: vec![Stmt { line: 1, target: Target::Out, value: expr.clone() }],
            source: source.to_string(),
            line,
            key: key.to_string(),
        }],
        derived: Vec::new(),
        cases: Vec::new(),
        line,
        params_line: line,
        internal: true,
    };
    let (params, ret, temps, outputs) = instance(spec, &fam, &scalar, None)?;
    Ok(Function {
        family: name.to_string(),
        op: name.to_string(),
        shape: "scalar".into(),
        elem: String::new(),
        params,
        ret,
        temps,
        outputs,
        either_zero: false,
        derived: Vec::new(),
    })
}

impl Model {
    /// The model of a checked spec. Each family and kernel is built on its
    /// own and every refused one's first error is returned; then, on the
    /// whole model, the independent checks of `Model::check`.
    pub fn build(spec: &Spec) -> Result<Model, SpecErrors> {
        let mut functions = Vec::new();
        let mut errors = Vec::new();
        // A shared composition is inlined where a body calls it, never exported.
        'families: for fam in spec.families.iter().filter(|f| !f.internal) {
            // The first error of a family refuses it; the others are built.
            macro_rules! or_next {
                ($e:expr) => {
                    match $e {
                        Ok(v) => v,
                        Err(e) => {
                            errors.push(e);
                            continue 'families;
                        }
                    }
                };
            }
            for shape_name in &fam.shapes {
                let shape = spec.shape(shape_name).unwrap().clone();
                // One instance for every type, or (per-type bodies) one per type.
                let mut instances = Vec::new();
                if fam.depends_on_type(spec) {
                    for elem in &spec.types {
                        instances.push(or_next!(instance(spec, fam, &shape, Some(elem))));
                    }
                } else {
                    let one = or_next!(instance(spec, fam, &shape, None));
                    instances.extend(std::iter::repeat_n(one, spec.types.len()));
                }
                let mut derived = Vec::new();
                for (pname, ast, source, line) in &fam.derived {
                    let names: Vec<String> = fam.params.iter().map(|(n, _)| n.clone()).collect();
                    let key = format!("families.{}.derived", fam.name);
                    let g = or_next!(expr_function(spec, &format!("{}_{pname}", fam.name), &names, ast, source, *line, &key));
                    derived.push((names.iter().position(|n| n == pname).unwrap(), g));
                }
                for (elem, (params, ret, temps, outputs)) in spec.types.iter().zip(instances) {
                    let derived =
                        derived.iter().map(|(p, g): &(usize, Function)| (*p, Function { elem: elem.name.clone(), ..g.clone() })).collect();
                    functions.push(Function {
                        family: fam.name.clone(),
                        op: fam.op.clone(),
                        shape: shape_name.clone(),
                        elem: elem.name.clone(),
                        params,
                        ret,
                        temps,
                        outputs,
                        either_zero: spec.policy.either_zero.contains(&fam.name),
                        derived,
                    });
                }
            }
        }
        let mut kernels = Vec::new();
        'kernels: for k in &spec.kernels {
            for shape_name in &k.shapes {
                let kind = match &k.schedule {
                    Schedule::Butterfly => KernelKind::Butterfly,
                    Schedule::Lanes { arrays, term, term_source, term_line } => {
                        let key = format!("kernels.{}.term", k.name);
                        let term = match expr_function(spec, &format!("{}_term", k.name), arrays, term, term_source, *term_line, &key) {
                            Ok(term) => term,
                            Err(e) => {
                                errors.push(e);
                                continue 'kernels;
                            }
                        };
                        KernelKind::Lanes { arrays: arrays.clone(), term: Box::new(term) }
                    }
                    Schedule::Array { lanes } => KernelKind::Array { lanes: lanes.clone() },
                    Schedule::Plane => KernelKind::Plane { width: spec.shape(shape_name).unwrap().len() },
                    Schedule::Resolve => KernelKind::Resolve,
                    Schedule::Linalg(routine) => {
                        let n = match spec.shape(shape_name).unwrap().kind {
                            ShapeKind::Matrix { rows, .. } => rows,
                            _ => unreachable!("checked when the spec was read"),
                        };
                        KernelKind::Linalg { routine: *routine, n, many: false }
                    }
                };
                for elem in &spec.types {
                    let kind = match &kind {
                        KernelKind::Lanes { arrays, term } => KernelKind::Lanes {
                            arrays: arrays.clone(),
                            term: Box::new(Function { elem: elem.name.clone(), ..(**term).clone() }),
                        },
                        other => other.clone(),
                    };
                    let many = match kind {
                        KernelKind::Linalg { routine, n, .. } if k.many => Some(KernelKind::Linalg { routine, n, many: true }),
                        _ => None,
                    };
                    kernels.push(Kernel {
                        name: k.name.clone(),
                        key: k.name.clone(),
                        op: k.op.clone(),
                        shape: shape_name.clone(),
                        elem: elem.name.clone(),
                        kind,
                    });
                    if let Some(kind) = many {
                        kernels.push(Kernel {
                            name: format!("{}_lanes", k.name),
                            key: k.name.clone(),
                            op: format!("{}_lanes", k.op),
                            shape: shape_name.clone(),
                            elem: elem.name.clone(),
                            kind,
                        });
                    }
                }
            }
        }
        // The checks below read the whole model.
        SpecErrors::check(errors)?;
        let model = Model { spec: spec.clone(), functions, kernels };
        model.check()?;
        Ok(model)
    }

    /// The checks of a built model, each independent of the others: the
    /// either-zero policy, the C names and the reference against the spec
    /// both ways (the probes, which evaluate kernels, are checked after the
    /// build: `Model::check_probes`, in `kernel`). Every error of each is
    /// returned.
    fn check(&self) -> Result<(), SpecErrors> {
        let mut errors = Vec::new();
        errors.extend(self.check_policy().err());
        errors.extend(self.check_names());
        errors.extend(self.check_reference());
        errors.extend(self.check_reference_entries());
        SpecErrors::check(errors)
    }

    /// An error at a line and key of the spec.
    pub fn error_at(&self, line: usize, key: impl Into<String>, message: impl Into<String>) -> SpecError {
        SpecError { file: self.spec.file.clone(), line, key: key.into(), message: message.into() }
    }

    /// The spec line and key of a callable: its family's, or its kernel's.
    pub fn origin(&self, c: Callable) -> (usize, String) {
        match c {
            Callable::Function(f) => {
                let fam = self.spec.family(&f.family).unwrap();
                let body = fam.body_for(&f.shape, &f.elem).unwrap();
                (body.line, body.key.clone())
            }
            Callable::Kernel(k) => (self.spec.kernel(&k.key).map_or(0, |s| s.line), format!("kernels.{}", k.key)),
        }
    }

    /// Every C name the cores define is defined once: the functions, the
    /// kernels and the types (two prefixes may spell one name, e.g. a type
    /// named `vec3f` beside the shape `vec3` of `f32`).
    fn check_names(&self) -> Vec<SpecError> {
        let mut errors = Vec::new();
        let mut seen: HashMap<String, String> = HashMap::new();
        let types = self.spec.shapes.iter().filter(|s| !matches!(s.kind, ShapeKind::Scalar)).flat_map(|s| {
            self.spec.types.iter().map(move |t| {
                let key = format!("shapes.{}", s.name);
                (format!("aether_{}{}", s.name, t.letter), format!("the type of shape `{}` and type `{}`", s.name, t.name), key)
            })
        });
        let functions = self.callables().into_iter().map(|c| {
            let key = self.origin(c).1.split('.').take(2).collect::<Vec<_>>().join(".");
            (c.c_name(self), format!("`{}` for shape `{}` and type `{}`", c.family(), c.shape(), c.elem()), key)
        });
        for (name, what, key) in types.chain(functions) {
            if let Some(first) = seen.get(&name) {
                errors.push(self.error_at(
                    self.key_line(&key),
                    key,
                    format!(
                        "C name clash: `{name}` is both {first} and {what} (a shape's name with a type's letter spells a \
                         type's name, or two operations share a name)"
                    ),
                ));
                continue;
            }
            seen.insert(name, what);
        }
        errors
    }

    /// The line of a `families.X`, `kernels.X` or `shapes.X` key.
    fn key_line(&self, key: &str) -> usize {
        let name = key.split('.').nth(1).unwrap_or_default();
        if key.starts_with("families.") {
            self.spec.family(name).map_or(0, |f| f.line)
        } else if key.starts_with("kernels.") {
            self.spec.kernel(name).map_or(0, |k| k.line)
        } else {
            let needle = format!("[{key}]");
            self.spec.source.lines().position(|l| l.trim() == needle).map_or(0, |i| i + 1)
        }
    }

    /// The hand-written reference implements every callable, with the input
    /// words the spec's parameters give: checked before it is ever called.
    fn check_reference(&self) -> Vec<SpecError> {
        let mut errors = Vec::new();
        for c in self.callables() {
            let (family, shape, elem) = (c.family(), c.shape(), c.elem());
            let (line, key) = self.origin(c);
            // A type the reference has no function of: one error, at the type.
            if !aether_reference::flat::entries().iter().any(|e| e.2 == elem) {
                let key = format!("types.{elem}");
                errors.push(self.error_at(
                    self.key_line(&key),
                    key,
                    format!(
                        "the reference implements no function of type `{elem}` ({} and the others): implement them in \
                         reference/ and add them to reference/src/flat.rs first",
                        c.c_name(self)
                    ),
                ));
                continue;
            }
            if aether_reference::flat::lookup(family, shape, elem).is_none() {
                let fam_line = self.key_line(&key);
                errors.push(self.error_at(
                    fam_line,
                    key.split('.').take(2).collect::<Vec<_>>().join("."),
                    format!(
                        "the reference has no `{family}` for shape `{shape}` and type `{elem}` ({}): implement it in reference/ \
                         and add its line to reference/src/flat.rs first",
                        c.c_name(self)
                    ),
                ));
                continue;
            }
            let ours = match c {
                Callable::Function(f) => Some((f.input_words(), "its parameters give")),
                Callable::Kernel(Kernel { kind: KernelKind::Linalg { routine, n, many: false }, .. }) => {
                    Some((crate::spec::words(*routine, *n).0, "the routine takes"))
                }
                Callable::Kernel(_) => None,
            };
            if let Some((words, what)) = ours {
                let theirs = aether_reference::flat::input_words(family, shape, elem);
                if theirs != Some(words) {
                    let (line, key) = match c {
                        Callable::Function(f) => (self.spec.family(&f.family).unwrap().params_line, format!("families.{family}.params")),
                        Callable::Kernel(_) => (line, key),
                    };
                    errors.push(self.error_at(
                        line,
                        key,
                        format!(
                            "{} takes {words} input words as {what}, but the reference's `{family}` for `{shape}` takes {}: \
                             the spec and reference/src/flat.rs must agree",
                            c.c_name(self),
                            theirs.map_or("a variable number".to_string(), |t| t.to_string())
                        ),
                    ));
                }
            }
        }
        errors
    }

    /// The other way: every function the hand-written reference implements
    /// (`aether_reference::flat::entries`, the table `lookup` reads) is a
    /// callable of the spec. A spec that drops a type, a family or kernel, one
    /// of their shapes, or a many-lane form the reference still implements is
    /// refused, at the key that would list it. Each entry maps to one place:
    /// a family (`[families.*]`), a kernel (`[kernels.*]`: the compensated
    /// sums over arrays and the linear algebra) or a kernel's many-lane form
    /// (`<kernel>_lanes`, `many = true`). Nothing is exempt: the df64
    /// operations and the predicates are no flat entries (they have references
    /// of their own, checked by their corpora).
    fn check_reference_entries(&self) -> Vec<SpecError> {
        #[derive(PartialEq, Eq, PartialOrd, Ord)]
        enum Missing<'a> {
            Type(&'a str),
            Shape { table: &'static str, name: &'a str, line: usize, shape: &'a str },
            Many { kernel: &'a str, line: usize },
            Shared { name: &'a str, line: usize },
            Table(&'a str),
        }
        let have: std::collections::HashSet<(&str, &str, &str)> =
            self.callables().iter().map(|c| (c.family(), c.shape(), c.elem())).collect();
        let mut missing: std::collections::BTreeMap<Missing, Vec<String>> = std::collections::BTreeMap::new();
        for &(family, shape, elem) in aether_reference::flat::entries() {
            if have.contains(&(family, shape, elem)) {
                continue;
            }
            let exported = self.spec.families.iter().find(|f| f.name == family);
            let lanes = family.strip_suffix("_lanes").and_then(|k| self.spec.kernel(k));
            let place = if !self.spec.types.iter().any(|t| t.name == elem) {
                Missing::Type(elem)
            } else if let Some(f) = exported {
                if f.internal {
                    Missing::Shared { name: family, line: f.line }
                } else {
                    Missing::Shape { table: "families", name: family, line: f.line, shape }
                }
            } else if let Some(k) = self.spec.kernel(family) {
                Missing::Shape { table: "kernels", name: family, line: k.line, shape }
            } else if let Some(k) = lanes {
                if k.shapes.iter().any(|s| s == shape) {
                    Missing::Many { kernel: &k.name, line: k.line }
                } else {
                    // The single form is missing too: reported with it.
                    Missing::Shape { table: "kernels", name: &k.name, line: k.line, shape }
                }
            } else {
                Missing::Table(family)
            };
            missing.entry(place).or_default().push(format!("`{family}/{shape}/{elem}`"));
        }
        let listed = |entries: &[String]| {
            let shown = entries.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
            match entries.len() {
                n if n > 3 => format!("{shown} and {} more, in reference/src/flat.rs", n - 3),
                _ => format!("{shown} in reference/src/flat.rs"),
            }
        };
        let table_lines = |prefix: &str| -> Vec<usize> {
            let source = &self.spec.source;
            source.lines().enumerate().filter(|(_, l)| l.trim().starts_with(prefix)).map(|(i, _)| i + 1).collect()
        };
        missing
            .into_iter()
            .map(|(place, entries)| {
                let entries = listed(&entries);
                match place {
                    Missing::Type(elem) => self.error_at(
                        table_lines("[types.").first().copied().unwrap_or(1),
                        "types",
                        format!(
                            "the reference implements functions of type `{elem}` ({entries}), but the spec declares no type \
                             `{elem}`: declare `[types.{elem}]`, or take them out of the reference"
                        ),
                    ),
                    Missing::Shape { table, name, line, shape } => {
                        let what = if table == "families" { "family" } else { "kernel" };
                        let undeclared =
                            if self.spec.shape(shape).is_none() { format!(" (and declare `[shapes.{shape}]`)") } else { String::new() };
                        self.error_at(
                            self.field_line(line, "shapes"),
                            format!("{table}.{name}.shapes"),
                            format!(
                                "the reference implements `{name}` for shape `{shape}` ({entries}), but the {what} does not list \
                                 `{shape}`: list it{undeclared}, or take it out of the reference"
                            ),
                        )
                    }
                    Missing::Many { kernel, line } => self.error_at(
                        self.field_line(line, "many"),
                        format!("kernels.{kernel}.many"),
                        format!(
                            "the reference implements the many-lane form `{kernel}_lanes` ({entries}), but the kernel is not \
                             `many = true`: set it, or take the form out of the reference"
                        ),
                    ),
                    Missing::Shared { name, line } => self.error_at(
                        line,
                        format!("shared.{name}"),
                        format!(
                            "the reference implements `{name}` ({entries}), but the spec's `{name}` is a shared composition, \
                             which no core exports: make it a family, or take it out of the reference"
                        ),
                    ),
                    Missing::Table(name) => self.error_at(
                        table_lines("[families.").into_iter().chain(table_lines("[kernels.")).max().unwrap_or(1),
                        format!("families.{name}"),
                        format!(
                            "the reference implements `{name}` ({entries}), but the spec has no `[families.{name}]` or \
                             `[kernels.{name}]`: add one among the function tables (the last of which starts here), or take \
                             it out of the reference"
                        ),
                    ),
                }
            })
            .collect()
    }

    /// The line of `field = ...` in the table whose header is at `table_line`
    /// (that line when the table does not state the field).
    fn field_line(&self, table_line: usize, field: &str) -> usize {
        let lines = self.spec.source.lines().enumerate().skip(table_line);
        for (i, l) in lines {
            let l = l.trim();
            // The next table's header (a doc string's line may start with `[`).
            let header = l.strip_prefix('[').and_then(|h| h.strip_suffix(']'));
            if header.is_some_and(|h| !h.is_empty() && h.chars().all(|c| c.is_alphanumeric() || "_.\"".contains(c))) {
                break;
            }
            if l.strip_prefix(field).is_some_and(|rest| rest.trim_start().starts_with('=')) {
                return i + 1;
            }
        }
        table_line
    }

    /// C-style name of a kernel, e.g. `aether_f32_sum_array`.
    pub fn kernel_c_name(&self, k: &Kernel) -> String {
        format!("aether_{}_{}", self.prefix(&k.shape, &k.elem), k.op)
    }

    /// A family given either-zero slack must return fmin/fmax results directly,
    /// or the slack would hide real differences.
    fn check_policy(&self) -> Result<(), SpecError> {
        for f in self.functions.iter().filter(|f| f.either_zero) {
            let ok = f.outputs.iter().all(|o| matches!(o, Expr::Call(Builtin::Fmin | Builtin::Fmax, _)));
            if !ok {
                return Err(SpecError {
                    file: self.spec.file.clone(),
                    line: self.spec.policy.line,
                    key: "policy.either_zero".into(),
                    message: format!("family `{}` is given either-zero slack, but its results are not fmin/fmax results", f.family),
                });
            }
        }
        Ok(())
    }

    /// The function with every fold expanded by the spec's fold rule.
    pub fn lower(&self, f: &Function) -> Function {
        let mut g = f.clone();
        let rule = &self.spec.fold;
        g.map_exprs(&mut |e| match e {
            Expr::Fold { op, identity, terms, .. } => {
                let combine = |new: &Expr, acc: &Expr| op.substitute_holes(new, acc);
                let mut order: Vec<&Expr> = terms.iter().collect();
                if rule.nesting == Nesting::Left {
                    order.reverse();
                }
                let (mut acc, rest) = match rule.seed {
                    Seed::None => (order[0].clone(), &order[1..]),
                    Seed::Identity if op.is_truth() => (Expr::Truth(identity != 0.0), &order[..]),
                    Seed::Identity => (Expr::Lit(identity), &order[..]),
                };
                for t in rest {
                    acc = combine(t, &acc);
                }
                acc
            }
            other => other,
        });
        g
    }

    pub fn lowered(&self) -> Vec<Function> {
        self.functions.iter().map(|f| self.lower(f)).collect()
    }

    /// C-style name of a function, e.g. `aether_vec3f_dot`.
    pub fn c_name(&self, f: &Function) -> String {
        format!("aether_{}_{}", self.prefix(&f.shape, &f.elem), f.op)
    }

    /// `vec3f`, `quatd`, or `f32` for a scalar.
    pub fn prefix(&self, shape: &str, elem: &str) -> String {
        let t = self.spec.types.iter().find(|t| t.name == elem).unwrap();
        match self.spec.shape(shape).map(|s| &s.kind) {
            Some(ShapeKind::Scalar) | None => t.name.clone(),
            _ => format!("{shape}{}", t.letter),
        }
    }
}

fn resolve_kind(spec: &Spec, k: &ParamKind, shape: &Shape, body: &Body, what: &str) -> Result<Kind, SpecError> {
    let err = |m: String| SpecError { file: spec.file.clone(), line: body.line, key: body.key.clone(), message: m };
    let named = |n: String| {
        spec.shape(&n)
            .cloned()
            .map(Kind::Shape)
            .ok_or_else(|| err(format!("{what}: shape `{n}` is needed for `{}` but the spec has none", shape.name)))
    };
    match k {
        ParamKind::SelfShape => Ok(Kind::Shape(shape.clone())),
        ParamKind::Scalar => named("scalar".into()),
        ParamKind::Bool => Ok(Kind::Bool),
        ParamKind::Named(n) => named(n.clone()),
        ParamKind::VecCols | ParamKind::VecRows => match shape.kind {
            ShapeKind::Matrix { rows, cols, .. } => named(format!("vec{}", if *k == ParamKind::VecCols { cols } else { rows })),
            _ => Err(err(format!("{what}: `vec_cols`/`vec_rows` need a matrix shape, not `{}`", shape.name))),
        },
    }
}

fn resolve_params(spec: &Spec, fam: &Family, shape: &Shape, body: &Body) -> Result<Vec<Param>, SpecError> {
    fam.params.iter().map(|(name, k)| Ok(Param { name: name.clone(), kind: resolve_kind(spec, k, shape, body, "params")? })).collect()
}

/// A value while a body is evaluated.
#[derive(Debug, Clone)]
enum Val {
    F(Expr),
    B(Expr),
    /// A number not yet given a role: an index or a literal.
    Num(f64),
    /// A compile-time truth (comparisons of indices).
    Static(bool),
    Agg(Shape, Vec<Expr>),
}

struct Builder<'a> {
    spec: &'a Spec,
    temps: Vec<Temp>,
    /// The families being instantiated, outermost first.
    stack: Vec<String>,
    /// Names a temp must not take: the function's parameters. (The cores'
    /// own names, the result `aether_out` among them, start with `aether`,
    /// as no spec name does.)
    taken: Vec<String>,
    /// The element type, when the function being built has a body of its
    /// own type (so `f64_bits` may state a binary64 constant).
    elem: Option<&'a ElemType>,
}

type Env = HashMap<String, Val>;

/// An error inside one body, before it is given a file and line; or one
/// already located in the body of a family it calls, which passes up as it is.
struct BodyErr {
    col: usize,
    message: String,
    located: Option<Box<SpecError>>,
}

fn berr<T>(ast: &Ast, message: impl Into<String>) -> Result<T, BodyErr> {
    Err(BodyErr { col: ast.col, message: message.into(), located: None })
}

/// How deep family calls may nest while one function is built.
pub const MAX_CALL_DEPTH: usize = 16;

/// The most terms one fold may have (the product of its index ranges).
pub const MAX_FOLD_TERMS: usize = 256;

/// The deepest expression tree a function may have once its calls are
/// inlined, and the most nodes: every target prints and evaluates these
/// trees, and none should need a deep stack for it.
pub const MAX_TREE_DEPTH: usize = 512;
pub const MAX_TREE_NODES: usize = 1 << 16;

impl<'a> Builder<'a> {
    fn is_barrier(&self, e: &Expr) -> bool {
        match e {
            Expr::Call(Builtin::Barrier, _) => true,
            Expr::Temp(t) => self.is_barrier(&self.temps[*t].expr),
            _ => false,
        }
    }

    fn temp(&mut self, name: &str, ty: Ty, expr: Expr) -> Expr {
        if expr.is_trivial() {
            return expr;
        }
        let mut unique = name.to_string();
        let mut n = 2;
        // Unique among the temps, and never a parameter's name or a word a
        // target reserves (a callee's step `cast` of family `const` would be
        // `const_cast`).
        while self.temps.iter().any(|t| t.name == unique) || self.taken.contains(&unique) || crate::names::is_reserved(&unique) {
            unique = format!("{name}_{n}");
            n += 1;
        }
        self.temps.push(Temp { name: unique, ty, expr });
        Expr::Temp(self.temps.len() - 1)
    }

    /// Binds a value to temps, component by component.
    fn bind(&mut self, name: &str, v: Val) -> Val {
        match v {
            Val::F(e) => Val::F(self.temp(name, Ty::Float, e)),
            Val::B(e) => Val::B(self.temp(name, Ty::Bool, e)),
            Val::Agg(shape, comps) => {
                let comps = comps
                    .into_iter()
                    .enumerate()
                    .map(|(k, e)| {
                        let suffix = match &shape.kind {
                            ShapeKind::Vector(names) => names[k].clone(),
                            _ => k.to_string(),
                        };
                        self.temp(&format!("{name}_{suffix}"), Ty::Float, e)
                    })
                    .collect();
                Val::Agg(shape, comps)
            }
            other => other,
        }
    }

    /// Evaluates `body` of `fam` for `shape` with the given arguments; the
    /// result is a value of the family's result kind.
    fn instantiate(&mut self, fam: &Family, shape: &Shape, body: &Body, args: Vec<Val>, prefix: &str) -> Result<Val, SpecError> {
        let spec = self.spec;
        let ret = resolve_kind(spec, &fam.returns, shape, body, "returns")?;
        let at = |line: usize, col: usize, m: String| SpecError {
            file: spec.file.clone(),
            line: body.line + line - 1,
            key: body.key.clone(),
            message: format!("column {col}: {m}"),
        };
        self.stack.push(fam.name.clone());
        if self.stack.len() > MAX_CALL_DEPTH {
            let chain: Vec<&str> = self.stack.iter().map(String::as_str).take(4).collect();
            return Err(at(
                1,
                1,
                format!(
                    "calls nest more than {MAX_CALL_DEPTH} deep ({} -> ...): a family that calls itself, directly or through \
                     others, never ends",
                    chain.join(" -> ")
                ),
            ));
        }
        let mut env: Env = HashMap::new();
        for ((name, _), v) in fam.params.iter().zip(args) {
            env.insert(name.clone(), v);
        }
        let len = |n: usize| Val::Num(n as f64);
        match &shape.kind {
            ShapeKind::Matrix { rows, cols, .. } => {
                env.insert("R".into(), len(*rows));
                env.insert("C".into(), len(*cols));
                env.insert("N".into(), len(rows * cols));
            }
            _ => {
                env.insert("N".into(), len(shape.len()));
            }
        }
        let out_len = ret.words();
        let mut outs: Vec<Option<Expr>> = vec![None; out_len];
        for st in &body.stmts {
            let wrap = |e: BodyErr| match e.located {
                Some(located) => *located,
                None => at(st.line, e.col, e.message),
            };
            let assign = |outs: &mut Vec<Option<Expr>>, k: usize, v: Val| -> Result<(), BodyErr> {
                let e = match (&ret, v) {
                    (Kind::Bool, Val::B(e)) => e,
                    (Kind::Shape(_), Val::F(e)) => e,
                    (Kind::Shape(_), Val::Num(n)) => lit(&st.value, n)?,
                    (Kind::Shape(s), Val::Agg(a, comps)) if a.len() == 1 && s.len() == 1 => comps[0].clone(),
                    _ => return berr(&st.value, "this value does not have the type of the result component"),
                };
                if outs[k].is_some() {
                    return berr(&st.value, format!("result component {k} is assigned twice"));
                }
                outs[k] = Some(e);
                Ok(())
            };
            match &st.target {
                Target::Let(name) => {
                    if env.contains_key(name) || name == "out" {
                        return Err(at(st.line, 1, format!("`{name}` is already bound")));
                    }
                    let v = self.eval(&st.value, &env).map_err(wrap)?;
                    let temp_name = if prefix.is_empty() { name.clone() } else { format!("{prefix}_{name}") };
                    let v = self.bind(&temp_name, v);
                    env.insert(name.clone(), v);
                }
                Target::Out => {
                    let v = self.eval(&st.value, &env).map_err(wrap)?;
                    match v {
                        Val::Agg(s, comps) if s.len() == out_len && out_len > 1 || matches!(&ret, Kind::Shape(r) if *r == s) => {
                            for (k, e) in comps.into_iter().enumerate() {
                                assign(&mut outs, k, Val::F(e)).map_err(wrap)?;
                            }
                        }
                        other => assign(&mut outs, 0, other).map_err(wrap)?,
                    }
                }
                Target::OutField(field) => {
                    let k = match &ret {
                        Kind::Shape(Shape { kind: ShapeKind::Vector(names), .. }) => names.iter().position(|n| n == field),
                        _ => None,
                    };
                    let Some(k) = k else {
                        return Err(at(st.line, 1, format!("the result has no component `{field}`")));
                    };
                    let v = self.eval(&st.value, &env).map_err(wrap)?;
                    assign(&mut outs, k, v).map_err(wrap)?;
                }
                Target::OutIndexed(vars) => {
                    let Kind::Shape(rs) = &ret else {
                        return Err(at(st.line, 1, "a truth-valued result has no components".into()));
                    };
                    // Every index tuple of the result, with its memory index.
                    let slots: Vec<(Vec<usize>, usize)> = match (&rs.kind, vars.len()) {
                        (ShapeKind::Matrix { rows, cols, .. }, 2) => (0..*rows)
                            .flat_map(|r| (0..*cols).map(move |c| (r, c)))
                            .map(|(r, c)| (vec![r, c], rs.matrix_index(r, c).unwrap()))
                            .collect(),
                        (ShapeKind::Vector(_) | ShapeKind::Scalar, 1) => (0..rs.len()).map(|i| (vec![i], i)).collect(),
                        _ => {
                            return Err(at(
                                st.line,
                                1,
                                format!("`out` of shape `{}` cannot be indexed with {} index(es)", rs.name, vars.len()),
                            ));
                        }
                    };
                    for (ix, k) in slots {
                        let mut env2 = env.clone();
                        for (v, i) in vars.iter().zip(&ix) {
                            env2.insert(v.clone(), Val::Num(*i as f64));
                        }
                        let v = self.eval(&st.value, &env2).map_err(wrap)?;
                        assign(&mut outs, k, v).map_err(wrap)?;
                    }
                }
            }
        }
        self.stack.pop();
        let mut comps = Vec::new();
        for (k, o) in outs.into_iter().enumerate() {
            match o {
                Some(e) => comps.push(e),
                None => return Err(at(1, 1, format!("result component {k} of `{}` for `{}` is never assigned", fam.name, shape.name))),
            }
        }
        Ok(match ret {
            Kind::Bool => Val::B(comps.remove(0)),
            Kind::Shape(s) if matches!(s.kind, ShapeKind::Scalar) => Val::F(comps.remove(0)),
            Kind::Shape(s) => Val::Agg(s, comps),
        })
    }

    fn eval(&mut self, ast: &Ast, env: &Env) -> Result<Val, BodyErr> {
        match &ast.kind {
            AstKind::Number(v) => Ok(Val::Num(*v)),
            AstKind::Ident(name) => match env.get(name) {
                Some(v) => Ok(v.clone()),
                None => berr(ast, format!("unknown name `{name}`")),
            },
            AstKind::Field(base, field) => {
                let b = self.eval(base, env)?;
                match &b {
                    Val::Agg(Shape { kind: ShapeKind::Vector(names), name }, comps) => match names.iter().position(|n| n == field) {
                        Some(k) => Ok(Val::F(comps[k].clone())),
                        None => berr(ast, format!("shape `{name}` has no component `{field}`")),
                    },
                    _ => berr(ast, format!("`.{field}` needs a vector or quaternion")),
                }
            }
            AstKind::Index(base, idx) => {
                if let AstKind::Index(inner, row) = &base.kind {
                    let m = self.eval(inner, env)?;
                    let r = self.index(row, env)?;
                    let c = self.index(idx, env)?;
                    return match &m {
                        Val::Agg(s, comps) => match s.matrix_index(r, c) {
                            Some(k) => Ok(Val::F(comps[k].clone())),
                            None => berr(ast, format!("[{r}][{c}] is not an element of `{}`", s.name)),
                        },
                        _ => berr(ast, "only a matrix is indexed twice"),
                    };
                }
                let b = self.eval(base, env)?;
                let i = self.index(idx, env)?;
                match &b {
                    Val::Agg(s, _) if matches!(s.kind, ShapeKind::Matrix { .. }) => berr(ast, "a matrix element is m[r][c]"),
                    Val::Agg(s, comps) => match comps.get(i) {
                        Some(e) => Ok(Val::F(e.clone())),
                        None => berr(ast, format!("index {i} is past the end of `{}`", s.name)),
                    },
                    _ => berr(ast, "only a vector is indexed"),
                }
            }
            AstKind::Not(a) => {
                let v = self.eval(a, env)?;
                match v {
                    Val::B(e) => Ok(Val::B(Expr::Not(Box::new(e)))),
                    Val::Static(b) => Ok(Val::Static(!b)),
                    _ => berr(ast, "`!` needs a truth value"),
                }
            }
            AstKind::Select(c, a, b) => {
                let cv = self.eval(c, env)?;
                let av = self.eval(a, env)?;
                let bv = self.eval(b, env)?;
                match cv {
                    Val::Static(t) => Ok(if t { av } else { bv }),
                    Val::B(ce) => match (self.scalar(a, av)?, self.scalar(b, bv)?) {
                        (Val::F(x), Val::F(y)) => Ok(Val::F(Expr::Select(Box::new(ce), Box::new(x), Box::new(y)))),
                        (Val::B(x), Val::B(y)) => Ok(Val::B(Expr::Select(Box::new(ce), Box::new(x), Box::new(y)))),
                        _ => berr(ast, "both branches of `?:` need the same type"),
                    },
                    _ => berr(c, "the condition of `?:` must be a truth value"),
                }
            }
            AstKind::Bin(op, a, b) => {
                let av = self.eval(a, env)?;
                let bv = self.eval(b, env)?;
                self.binary(ast, *op, a, av, b, bv)
            }
            AstKind::Call(name, args) => self.call(ast, name, args, env),
            AstKind::Int(_) | AstKind::Bits(..) => berr(
                ast,
                "hexadecimal literals and the bit operators `<< >> & |` belong to the integer bodies of predicates, not to a float body",
            ),
        }
    }

    fn index(&mut self, ast: &Ast, env: &Env) -> Result<usize, BodyErr> {
        match self.eval(ast, env)? {
            Val::Num(n) if n >= 0.0 && n.fract() == 0.0 => Ok(n as usize),
            _ => berr(ast, "an index must be a non-negative whole number or an index name"),
        }
    }

    /// Coerces a value used as a number: literals become exact constants, a
    /// one-component aggregate its component.
    fn scalar(&self, ast: &Ast, v: Val) -> Result<Val, BodyErr> {
        match v {
            Val::Num(n) => Ok(Val::F(lit(ast, n)?)),
            Val::Agg(s, mut comps) if s.len() == 1 && matches!(s.kind, ShapeKind::Scalar) => Ok(Val::F(comps.remove(0))),
            Val::Agg(s, _) => berr(ast, format!("a `{}` is used where a number is expected", s.name)),
            other => Ok(other),
        }
    }

    fn binary(&mut self, ast: &Ast, op: BinOp, a: &Ast, av: Val, b: &Ast, bv: Val) -> Result<Val, BodyErr> {
        if let (Val::Num(x), Val::Num(y)) = (&av, &bv) {
            let (x, y) = (*x, *y);
            return Ok(match op {
                BinOp::Add => Val::Num(x + y),
                BinOp::Sub => Val::Num(x - y),
                BinOp::Mul => Val::Num(x * y),
                BinOp::Lt => Val::Static(x < y),
                BinOp::Gt => Val::Static(x > y),
                BinOp::Le => Val::Static(x <= y),
                BinOp::Ge => Val::Static(x >= y),
                BinOp::Eq => Val::Static(x == y),
                BinOp::Ne => Val::Static(x != y),
                _ => return berr(ast, format!("`{}` of two numbers is not evaluated at build time: write the result", op.symbol())),
            });
        }
        if let (Val::Static(x), Val::Static(y)) = (&av, &bv) {
            match op {
                BinOp::And => return Ok(Val::Static(*x && *y)),
                BinOp::Or => return Ok(Val::Static(*x || *y)),
                _ => {}
            }
        }
        let av = self.scalar(a, av)?;
        let bv = self.scalar(b, bv)?;
        match (av, bv) {
            (Val::F(x), Val::F(y)) if !op.is_logical() => {
                let e = Expr::bin(op, x, y);
                Ok(if op.is_comparison() { Val::B(e) } else { Val::F(e) })
            }
            (Val::B(x), Val::B(y)) if op.is_logical() => Ok(Val::B(Expr::bin(op, x, y))),
            _ => berr(ast, format!("`{}` does not apply to these operand types", op.symbol())),
        }
    }

    fn call(&mut self, ast: &Ast, name: &str, args: &[Ast], env: &Env) -> Result<Val, BodyErr> {
        let spec = self.spec;
        if name == "fold" {
            return self.fold(ast, args, env);
        }
        if name == "f32_bits" || name == "f64_bits" {
            return self.bits_literal(ast, name, args);
        }
        if name == "minor" {
            if args.len() != 3 {
                return berr(ast, "minor(m, r, c) takes three arguments");
            }
            let m = self.eval(&args[0], env)?;
            let r = self.index(&args[1], env)?;
            let c = self.index(&args[2], env)?;
            let Val::Agg(s, comps) = m else { return berr(&args[0], "minor needs a matrix") };
            let ShapeKind::Matrix { rows, cols, .. } = s.kind else { return berr(&args[0], "minor needs a matrix") };
            if r >= rows {
                return berr(&args[1], format!("minor row {r} is not a row of `{}` (0..{rows})", s.name));
            }
            if c >= cols {
                return berr(&args[2], format!("minor column {c} is not a column of `{}` (0..{cols})", s.name));
            }
            let Some(sub) = spec
                .shapes
                .iter()
                .find(|x| matches!(x.kind, ShapeKind::Matrix { rows: r2, cols: c2, .. } if r2 + 1 == rows && c2 + 1 == cols))
            else {
                return berr(ast, format!("no {}x{} matrix shape for the minor of `{}`", rows - 1, cols - 1, s.name));
            };
            let mut out = vec![Expr::Lit(0.0); sub.len()];
            for i in 0..rows - 1 {
                for j in 0..cols - 1 {
                    let (si, sj) = (i + usize::from(i >= r), j + usize::from(j >= c));
                    out[sub.matrix_index(i, j).unwrap()] = comps[s.matrix_index(si, sj).unwrap()].clone();
                }
            }
            return Ok(Val::Agg(sub.clone(), out));
        }
        if let Some((b, arity)) = Builtin::from_name(name) {
            if args.len() != arity {
                return berr(ast, format!("`{name}` takes {arity} argument(s)"));
            }
            let mut xs = Vec::new();
            for a in args {
                let v = self.eval(a, env)?;
                match self.scalar(a, v)? {
                    Val::F(e) => xs.push(e),
                    _ => return berr(a, format!("`{name}` needs a number")),
                }
            }
            if b == Builtin::Barrier && self.is_barrier(&xs[0]) {
                // A barrier of a value that has passed one is that value.
                return Ok(Val::F(xs.remove(0)));
            }
            let e = Expr::Call(b, xs);
            return Ok(if b == Builtin::IsFinite { Val::B(e) } else { Val::F(e) });
        }
        if let Some(shape) = spec.shape(name) {
            // A constructor: components in memory order.
            if args.len() != shape.len() {
                return berr(ast, format!("`{name}` takes {} components", shape.len()));
            }
            let mut comps = Vec::new();
            for a in args {
                let v = self.eval(a, env)?;
                match self.scalar(a, v)? {
                    Val::F(e) => comps.push(e),
                    _ => return berr(a, "a component must be a number"),
                }
            }
            return Ok(Val::Agg(shape.clone(), comps));
        }
        let Some(fam) = spec.family(name) else {
            return berr(ast, format!("unknown function `{name}` (not a builtin, a shape or a family)"));
        };
        if args.len() != fam.params.len() {
            return berr(ast, format!("`{name}` takes {} argument(s)", fam.params.len()));
        }
        let mut vals = Vec::new();
        for a in args {
            let v = self.eval(a, env)?;
            vals.push(match v {
                Val::Num(n) => Val::F(lit(a, n)?),
                other => other,
            });
        }
        // The instance is the first shape (the family's own first, then any
        // other) for which every argument fits its parameter.
        let candidates = fam.shapes.iter().filter_map(|s| spec.shape(s)).chain(spec.shapes.iter());
        for shape in candidates {
            if fam.depends_on_type(spec) && self.elem.is_none() {
                return berr(ast, format!("`{name}` states a body per element type: call it from a body of one type (`bodies.<type>`)"));
            }
            let Some(body) = fam.body_for(&shape.name, self.elem.map_or("", |e| e.name.as_str())) else { continue };
            let Ok(params) = resolve_params(spec, fam, shape, body) else { continue };
            let fits = params.iter().zip(&vals).all(|(p, v)| match (&p.kind, v) {
                (Kind::Shape(s), Val::Agg(a, _)) => s == a,
                (Kind::Shape(s), Val::F(_)) => matches!(s.kind, ShapeKind::Scalar),
                _ => false,
            });
            if !fits {
                continue;
            }
            let mut bound = Vec::new();
            for (p, v) in params.iter().zip(vals) {
                let v = match v {
                    Val::F(e) => Val::Agg(p_shape(p), vec![e]),
                    other => other,
                };
                bound.push(self.bind(&format!("{name}_{}", p.name), v));
            }
            return self.instantiate(fam, shape, body, bound, name).map_err(|e| BodyErr {
                col: ast.col,
                message: String::new(),
                located: Some(Box::new(e)),
            });
        }
        berr(ast, format!("no shape of family `{name}` takes these arguments"))
    }

    /// `f32_bits(0x3F317218)`, `f64_bits(0x3FE62E42FEFA39EF)`: a constant
    /// stated by its bit pattern. A binary64 one belongs to a body of the
    /// f64 type alone (`bodies.f64`), since it is not a binary32 number.
    fn bits_literal(&self, ast: &Ast, name: &str, args: &[Ast]) -> Result<Val, BodyErr> {
        let [arg] = args else { return berr(ast, format!("`{name}` takes one hexadecimal bit pattern")) };
        let AstKind::Int(bits) = arg.kind else { return berr(arg, format!("`{name}` takes one hexadecimal bit pattern")) };
        let v = if name == "f32_bits" {
            let Ok(b) = u32::try_from(bits) else { return berr(arg, format!("0x{bits:x} is wider than 32 bits")) };
            f64::from(f32::from_bits(b))
        } else {
            if self.elem.is_none_or(|e| e.bits != 64) {
                return berr(ast, "`f64_bits` states a binary64 constant: it belongs to a body of a 64-bit type (`bodies.f64`)");
            }
            f64::from_bits(bits)
        };
        if !v.is_finite() {
            return berr(arg, format!("0x{bits:x} is not a finite number"));
        }
        Ok(Val::F(Expr::Lit(v)))
    }

    fn fold(&mut self, ast: &Ast, args: &[Ast], env: &Env) -> Result<Val, BodyErr> {
        let spec = self.spec;
        if args.len() < 3 {
            return berr(ast, "fold(combiner, i < N, ..., term) needs a combiner, at least one index and a term");
        }
        let AstKind::Ident(cname) = &args[0].kind else { return berr(&args[0], "the first argument of fold names a combiner") };
        let Some(comb) = spec.combiner(cname) else { return berr(&args[0], format!("unknown combiner `{cname}`")) };
        let mut ranges = Vec::new();
        for b in &args[1..args.len() - 1] {
            let AstKind::Bin(BinOp::Lt, v, bound) = &b.kind else { return berr(b, "a fold index is written `i < N`") };
            let AstKind::Ident(vname) = &v.kind else { return berr(b, "a fold index is written `i < N`") };
            let n = self.index(bound, env)?;
            ranges.push((vname.clone(), n));
        }
        let term_ast = &args[args.len() - 1];
        let total = ranges.iter().try_fold(1usize, |t, r| t.checked_mul(r.1)).filter(|t| *t <= MAX_FOLD_TERMS);
        let Some(total) = total else {
            return berr(ast, format!("a fold of more than {MAX_FOLD_TERMS} terms: fold over a shape's components"));
        };
        if total == 0 {
            return berr(ast, "a fold over no term has no value (the contract's folds have no seed)");
        }
        let mut terms = Vec::new();
        let mut ty = None;
        for flat in 0..total {
            let mut env2 = env.clone();
            let mut rem = flat;
            for (name, n) in ranges.iter().rev() {
                env2.insert(name.clone(), Val::Num((rem % n) as f64));
                rem /= n;
            }
            let v = self.eval(term_ast, &env2)?;
            let (t, e) = match self.scalar(term_ast, v)? {
                Val::F(e) => (Ty::Float, e),
                Val::B(e) => (Ty::Bool, e),
                _ => return berr(term_ast, "a fold term must be a number or a truth value"),
            };
            ty = Some(t);
            terms.push(e);
        }
        let ty = ty.unwrap();
        let hole = |k: u8| if ty == Ty::Float { Val::F(Expr::Hole(k)) } else { Val::B(Expr::Hole(k)) };
        let mut cenv: Env = HashMap::new();
        cenv.insert("new".into(), hole(0));
        cenv.insert("acc".into(), hole(1));
        let op = self.eval(&comb.expr, &cenv).map_err(|e| BodyErr {
            col: ast.col,
            message: format!("combiner `{cname}` (column {}): {}", e.col, e.message),
            located: e.located,
        })?;
        let (op, rty) = match self.scalar(&comb.expr, op)? {
            Val::F(e) => (e, Ty::Float),
            Val::B(e) => (e, Ty::Bool),
            _ => return berr(ast, format!("combiner `{cname}` does not give a value")),
        };
        if rty != ty {
            return berr(ast, format!("combiner `{cname}` turns {ty:?} terms into {rty:?}: a fold keeps its type"));
        }
        let e = Expr::Fold { combiner: cname.clone(), op: Box::new(op), identity: comb.identity, terms };
        Ok(if ty == Ty::Float { Val::F(e) } else { Val::B(e) })
    }
}

fn p_shape(p: &Param) -> Shape {
    match &p.kind {
        Kind::Shape(s) => s.clone(),
        Kind::Bool => unreachable!("parameters are never bool"),
    }
}

/// A literal must be exact in binary32 (and so in binary64): the spec never
/// relies on a rounding of its own constants.
fn lit(ast: &Ast, v: f64) -> Result<Expr, BodyErr> {
    if (v as f32) as f64 != v || !v.is_finite() {
        return berr(ast, format!("literal {v} is not exactly representable in binary32"));
    }
    Ok(Expr::Lit(v))
}

/// A function or a kernel: anything with a C name, a flat calling convention
/// and corpus cases.
#[derive(Debug, Clone, Copy)]
pub enum Callable<'a> {
    Function(&'a Function),
    Kernel(&'a Kernel),
}

impl<'a> Callable<'a> {
    pub fn c_name(&self, model: &Model) -> String {
        match self {
            Callable::Function(f) => model.c_name(f),
            Callable::Kernel(k) => model.kernel_c_name(k),
        }
    }

    /// The family or kernel key.
    pub fn family(&self) -> &'a str {
        match self {
            Callable::Function(f) => &f.family,
            Callable::Kernel(k) => &k.name,
        }
    }

    pub fn shape(&self) -> &'a str {
        match self {
            Callable::Function(f) => &f.shape,
            Callable::Kernel(k) => &k.shape,
        }
    }

    pub fn elem(&self) -> &'a str {
        match self {
            Callable::Function(f) => &f.elem,
            Callable::Kernel(k) => &k.elem,
        }
    }

    /// Whether the results are floating-point words (not truth values).
    pub fn is_float(&self) -> bool {
        match self {
            Callable::Function(f) => !f.returns_bool(),
            Callable::Kernel(_) => true,
        }
    }

    pub fn either_zero(&self) -> bool {
        match self {
            Callable::Function(f) => f.either_zero,
            Callable::Kernel(_) => false,
        }
    }

    /// The number of input and result words, when fixed (functions); a
    /// kernel's depend on its arrays.
    pub fn fixed_words(&self) -> Option<(usize, usize)> {
        match self {
            Callable::Function(f) => Some((f.input_words(), f.output_words())),
            Callable::Kernel(_) => None,
        }
    }
}

impl Model {
    /// Every function, then every kernel, in spec order.
    pub fn callables(&self) -> Vec<Callable<'_>> {
        self.functions.iter().map(Callable::Function).chain(self.kernels.iter().map(Callable::Kernel)).collect()
    }
}
