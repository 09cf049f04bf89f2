//! The per-lane linear algebra printed for every target: the schedules of
//! `crate::linalg`, built once here as statement trees (`stmt`) over
//! row-major arrays and spelled by the target (`stmt::Statements`: the C
//! family through `c_family::Dialect`, WGSL through `wgsl::Wgsl`). Each routine is
//! a file-local helper over plain arrays, wrapped by the public function of
//! its shape; a C many-lane form loops over the single form.

use crate::model::{Builtin, Function, Kernel, KernelKind, Model};
use crate::spec::{ElemType, Linalg, Multipliers, Nesting, Pivot, Routine, Seed, ShapeKind, Symmetrize, Update};

use crate::dsl::BinOp;
use crate::targets::shared::c_family::{component_name, type_name};
use crate::targets::shared::stmt::{Arr, Func, ParamTy, Statements, Stmt, Var, VarTy};

/// A printed function: name, doc lines, signature, body lines.
#[derive(Debug)]
pub struct Printed {
    pub name: String,
    pub doc: Vec<String>,
    pub signature: String,
    pub body: Vec<String>,
}

struct Ctx<'a> {
    model: &'a Model,
    l: &'a Linalg,
    e: &'a ElemType,
    n: usize,
    d: &'a dyn Statements,
}

impl Ctx<'_> {
    fn lit(&self, v: f64) -> String {
        self.d.lit(v, self.e)
    }
    fn fabs(&self, x: &str) -> String {
        self.d.call(Builtin::Fabs, &[x.to_string()], self.e)
    }
    fn fma(&self, x: &str, y: &str, z: &str) -> String {
        self.d.call(Builtin::Fma, &[x.to_string(), y.to_string(), z.to_string()], self.e)
    }
    fn comps(&self) -> Vec<String> {
        match &self.model.spec.shape(&format!("vec{}", self.n)).unwrap().kind {
            ShapeKind::Vector(names) => names.clone(),
            _ => unreachable!("a vector shape"),
        }
    }
    fn mat(&self) -> String {
        format!("mat{}", self.n)
    }
    fn vec(&self) -> String {
        format!("vec{}", self.n)
    }
    /// `x * y` in the spelling (in C behind its contraction guard).
    fn product(&self, x: &str, y: &str) -> String {
        self.d.bin(BinOp::Mul, x, y, self.e)
    }
    fn add(&self, x: &str, y: &str) -> String {
        self.d.bin(BinOp::Add, x, y, self.e)
    }
    fn sub(&self, x: &str, y: &str) -> String {
        self.d.bin(BinOp::Sub, x, y, self.e)
    }
    fn div(&self, x: &str, y: &str) -> String {
        self.d.bin(BinOp::Div, x, y, self.e)
    }
    /// `s - x*y`, or its fused form under the fma mutant.
    fn sub_mul(&self, s: &str, x: &str, y: &str) -> String {
        if self.l.fused {
            self.fma(&format!("-({x})"), y, s)
        } else {
            self.sub(s, &self.product(x, y))
        }
    }
    /// Element (i, j) of the row-major n×n array `a`.
    fn ij(&self, a: &Arr, i: &str, j: &str) -> String {
        self.d.at(a, &format!("({i}) * {} + ({j})", self.n))
    }
    /// Statements that set `acc` to the finished dot product of x(k)*y(k)
    /// for k in 0..m (m an index expression, at least 1), by the fold rule.
    fn dot(&self, m: &str, x: &dyn Fn(&str) -> String, y: &dyn Fn(&str) -> String) -> Vec<Stmt> {
        let step = |k: &str| {
            if self.l.fused {
                Stmt::set("acc", self.fma(&x(k), &y(k), "acc"))
            } else {
                Stmt::set("acc", self.add(&self.product(&x(k), &y(k)), "acc"))
            }
        };
        let acc = |v: String| Stmt::decl(VarTy::Elem, vec![Var::init("acc", v)]);
        let rule = &self.model.spec.fold;
        match (rule.nesting, rule.seed) {
            (Nesting::Right, Seed::None) => {
                vec![acc(self.product(&x("0"), &y("0"))), Stmt::up("k", "1", format!("k < {m}"), step("k"))]
            }
            (Nesting::Left, Seed::None) => vec![
                acc(self.product(&x(&format!("({m} - 1)")), &y(&format!("({m} - 1)")))),
                Stmt::down("k", format!("{m} - 1"), step("k")),
            ],
            (Nesting::Right, Seed::Identity) => vec![acc(self.lit(0.0)), Stmt::up("k", "0", format!("k < {m}"), step("k"))],
            (Nesting::Left, Seed::Identity) => vec![acc(self.lit(0.0)), Stmt::down("k", m, step("k"))],
        }
    }
}

fn ints(names: &[&str]) -> Stmt {
    Stmt::decl(VarTy::Int, names.iter().map(|n| Var::new(n)).collect())
}

fn elem_array(name: &str, len: usize, konst: bool) -> (String, ParamTy) {
    (name.into(), ParamTy::Array { ty: VarTy::Elem, len, konst })
}

fn int_array(name: &str, len: usize, konst: bool) -> (String, ParamTy) {
    (name.into(), ParamTy::Array { ty: VarTy::Int, len, konst })
}

/// The statement trees of the helpers of one element type and size, shared
/// by its routines. In C they are `static inline`: with the products'
/// contraction guards (asm statements) clang's inliner otherwise keeps them
/// out of line, which made `aether_mat3f_lu_solve` about ten times slower
/// (docs/reports/guard-cost.md).
pub fn helper_funcs(model: &Model, lowered: &[Function], e: &ElemType, n: usize, d: &dyn Statements) -> Vec<Func> {
    let Some(l) = model.spec.linalg.as_ref() else { return Vec::new() };
    let c = Ctx { model, l, e, n, d };
    let suffix = format!("{}_{n}", e.name);
    let nn = n * n;
    let mut out = Vec::new();
    let (w, ipiv, a, b, x, v, ev) =
        (Arr::param("w"), Arr::param("ipiv"), Arr::param("a"), Arr::param("b"), Arr::param("x"), Arr::param("v"), Arr::param("e"));
    let wij = |i: &str, j: &str| c.ij(&w, i, j);

    // LU, in place on w (row-major), pivots 1-based.
    let mut body = vec![Stmt::decl(VarTy::Int, vec![Var::init("info", "0"), Var::new("i"), Var::new("j"), Var::new("k"), Var::new("p")])];
    let mut col = Vec::new();
    if l.update == Update::Dot {
        let fused_one = l.fused && model.spec.fold.seed == Seed::None;
        let update = |m: &str| {
            let mut s = Vec::new();
            if fused_one {
                // One product: contraction fuses a - x*y whole.
                s.push(Stmt::when(
                    format!("{m} == 1"),
                    Stmt::Inline(vec![Stmt::set(wij("i", "j"), c.sub_mul(&wij("i", "j"), &wij("i", "0"), &wij("0", "j"))), Stmt::Continue]),
                ));
            }
            s.extend(c.dot(m, &|k| wij("i", k), &|k| wij(k, "j")));
            s.push(Stmt::set(wij("i", "j"), c.sub(&wij("i", "j"), "acc")));
            Stmt::Block(s)
        };
        col.push(Stmt::up("i", "1", "i < j", update("i")));
        col.push(Stmt::when("j > 0", Stmt::up("i", "j", format!("i < {n}"), update("j"))));
    }
    let wins = match l.pivot {
        Pivot::FirstLargest => "m > best",
        Pivot::LastLargest => "m >= best",
    };
    col.push(Stmt::set("p", "j"));
    col.push(Stmt::Block(vec![
        Stmt::decl(VarTy::Elem, vec![Var::init("best", c.fabs(&wij("j", "j")))]),
        Stmt::up(
            "i",
            "j + 1",
            format!("i < {n}"),
            Stmt::Block(vec![
                Stmt::konst(VarTy::Elem, vec![Var::init("m", c.fabs(&wij("i", "j")))]),
                Stmt::when(wins, Stmt::Inline(vec![Stmt::set("p", "i"), Stmt::set("best", "m")])),
            ]),
        ),
    ]));
    col.push(Stmt::set(d.at(&ipiv, "j"), "p + 1"));
    col.push(Stmt::when(
        "p != j",
        Stmt::up(
            "k",
            "0",
            format!("k < {n}"),
            Stmt::Inline(vec![
                Stmt::konst(VarTy::Elem, vec![Var::init("s", wij("j", "k"))]),
                Stmt::set(wij("j", "k"), wij("p", "k")),
                Stmt::set(wij("p", "k"), "s"),
            ]),
        ),
    ));
    let scale = match l.multipliers {
        Multipliers::Reciprocal => vec![
            Stmt::konst(VarTy::Elem, vec![Var::init("r", c.div(&c.lit(1.0), &wij("j", "j")))]),
            Stmt::up("i", "j + 1", format!("i < {n}"), Stmt::set(wij("i", "j"), c.product(&wij("i", "j"), "r"))),
        ],
        Multipliers::Division => {
            vec![Stmt::up("i", "j + 1", format!("i < {n}"), Stmt::set(wij("i", "j"), c.div(&wij("i", "j"), &wij("j", "j"))))]
        }
    };
    col.push(Stmt::when_else(
        format!("{} == {}", wij("j", "j"), c.lit(0.0)),
        Stmt::Block(vec![Stmt::when("info == 0", Stmt::set("info", "j + 1"))]),
        Stmt::Block(scale),
    ));
    if l.update == Update::RightLooking {
        col.push(Stmt::up(
            "i",
            "j + 1",
            format!("i < {n}"),
            Stmt::up("k", "j + 1", format!("k < {n}"), Stmt::set(wij("i", "k"), c.sub_mul(&wij("i", "k"), &wij("i", "j"), &wij("j", "k")))),
        ));
    }
    body.push(Stmt::up("j", "0", format!("j < {n}"), Stmt::Block(col)));
    body.push(Stmt::ret("info"));
    out.push(Func {
        name: format!("aether_lu_{suffix}"),
        helper: true,
        ret: Some(VarTy::Int),
        params: vec![elem_array("w", nn, false), int_array("ipiv", n, false)],
        body,
    });

    // Triangular solves on arrays: lower or upper, unit or not.
    for (lower, unit) in [(true, false), (true, true), (false, false), (false, true)] {
        let name = format!("aether_solve_{}{}_{suffix}", if lower { "lower" } else { "upper" }, if unit { "_unit" } else { "" });
        let s_k = Stmt::set("s", c.sub_mul("s", &wij("i", "k"), &d.at(&x, "k")));
        let row = |inner: Stmt| {
            Stmt::Block(vec![
                Stmt::decl(VarTy::Elem, vec![Var::init("s", d.at(&b, "i"))]),
                inner,
                if unit { Stmt::set(d.at(&x, "i"), "s") } else { Stmt::set(d.at(&x, "i"), c.div("s", &wij("i", "i"))) },
            ])
        };
        let rows = if lower {
            Stmt::up("i", "0", format!("i < {n}"), row(Stmt::up("k", "0", "k < i", s_k)))
        } else {
            Stmt::down("i", n.to_string(), row(Stmt::up("k", "i + 1", format!("k < {n}"), s_k)))
        };
        out.push(Func {
            name,
            helper: true,
            ret: None,
            params: vec![elem_array("w", nn, true), elem_array("b", n, true), elem_array("x", n, false)],
            body: vec![ints(&["i", "k"]), rows],
        });
    }

    // lu_solve on arrays.
    let (y, z) = (Arr::local("y"), Arr::local("z"));
    let yk = |k: &str| d.at(&y, k);
    let pk = format!("{} - 1", d.at(&ipiv, "k"));
    out.push(Func {
        name: format!("aether_lu_solve_{suffix}"),
        helper: true,
        ret: None,
        params: vec![elem_array("w", nn, true), int_array("ipiv", n, true), elem_array("b", n, true), elem_array("x", n, false)],
        body: vec![
            Stmt::decl(VarTy::Elem, vec![Var::array("y", n), Var::array("z", n)]),
            ints(&["k"]),
            Stmt::up("k", "0", format!("k < {n}"), Stmt::set(yk("k"), d.at(&b, "k"))),
            Stmt::up(
                "k",
                "0",
                format!("k < {n}"),
                Stmt::when(
                    format!("{pk} != k"),
                    Stmt::Inline(vec![
                        Stmt::konst(VarTy::Elem, vec![Var::init("s", yk("k"))]),
                        Stmt::set(yk("k"), yk(&pk)),
                        Stmt::set(yk(&pk), "s"),
                    ]),
                ),
            ),
            Stmt::Call(format!("aether_solve_lower_unit_{suffix}({}, {}, {})", d.arg(&w), d.arg(&y), d.arg(&z))),
            Stmt::Call(format!("aether_solve_upper_{suffix}({}, {}, {})", d.arg(&w), d.arg(&z), d.arg(&x))),
        ],
    });

    // Cholesky on arrays: reads a, writes w.
    let sym = |i: &str, j: &str| match l.symmetrize {
        Symmetrize::HalfSum => c.add(&c.product(&c.lit(0.5), &c.ij(&a, i, j)), &c.product(&c.lit(0.5), &c.ij(&a, j, i))),
        Symmetrize::Lower => c.ij(&a, i, j),
    };
    let chol = vec![
        ints(&["i", "j", "k"]),
        Stmt::up(
            "i",
            "0",
            format!("i < {n}"),
            Stmt::up("j", "0", format!("j < {n}"), Stmt::set(wij("i", "j"), d.choose("j <= i", &sym("i", "j"), &c.lit(0.0)))),
        ),
        Stmt::up(
            "j",
            "0",
            format!("j < {n}"),
            Stmt::Block(vec![
                Stmt::decl(VarTy::Elem, vec![Var::init("d", wij("j", "j"))]),
                Stmt::decl(VarTy::Elem, vec![Var::new("l")]),
                Stmt::up("k", "0", "k < j", Stmt::set("d", c.sub_mul("d", &wij("j", "k"), &wij("j", "k")))),
                Stmt::when(format!("!(d > {})", c.lit(0.0)), Stmt::ret("j + 1")),
                Stmt::set("l", d.sqrt("d", e)),
                Stmt::set(wij("j", "j"), "l"),
                Stmt::up(
                    "i",
                    "j + 1",
                    format!("i < {n}"),
                    Stmt::Block(vec![
                        Stmt::decl(VarTy::Elem, vec![Var::init("s", wij("i", "j"))]),
                        Stmt::up("k", "0", "k < j", Stmt::set("s", c.sub_mul("s", &wij("i", "k"), &wij("j", "k")))),
                        Stmt::set(wij("i", "j"), c.div("s", "l")),
                    ]),
                ),
            ]),
        ),
        Stmt::ret("0"),
    ];
    out.push(Func {
        name: format!("aether_cholesky_{suffix}"),
        helper: true,
        ret: Some(VarTy::Int),
        params: vec![elem_array("a", nn, true), elem_array("w", nn, false)],
        body: chol,
    });

    // Jacobi eigen-decomposition on arrays: reads a, writes e (values) and v.
    let find = |family: &str| {
        let f = lowered.iter().find(|f| f.family == family && f.elem == e.name).unwrap();
        model.c_name(f)
    };
    let (rot, upd, diag) = (find(&l.rotation), find(&l.update_pair), find(&l.diag));
    let lw = Arr::local("w");
    let ww = |i: &str, j: &str| c.ij(&lw, i, j);
    let vv = |i: &str, j: &str| c.ij(&v, i, j);
    let (gx, gy) = (format!("gh.{}", component_name(model, "vec2", 0)), format!("gh.{}", component_name(model, "vec2", 1)));
    let pair = Stmt::Block(vec![
        Stmt::konst(VarTy::Elem, vec![Var::init("app", ww("p", "p")), Var::init("aqq", ww("q", "q")), Var::init("apq", ww("p", "q"))]),
        Stmt::decl(VarTy::Shape(rotation_shape(model, l)), vec![Var::new("r")]),
        Stmt::decl(VarTy::Shape("vec2".into()), vec![Var::new("gh")]),
        Stmt::when(format!("apq == {}", c.lit(0.0)), Stmt::Continue),
        Stmt::set("r", format!("{rot}(app, aqq, apq)")),
        Stmt::up(
            "k",
            "0",
            format!("k < {n}"),
            Stmt::Block(vec![
                Stmt::when("k == p || k == q", Stmt::Continue),
                Stmt::set("gh", format!("{upd}({}, {}, r)", ww("k", "p"), ww("k", "q"))),
                Stmt::Line(vec![Stmt::set(ww("k", "p"), &gx), Stmt::set(ww("p", "k"), &gx)]),
                Stmt::Line(vec![Stmt::set(ww("k", "q"), &gy), Stmt::set(ww("q", "k"), &gy)]),
            ]),
        ),
        Stmt::set("gh", format!("{diag}(app, aqq, apq, r)")),
        Stmt::set(ww("p", "p"), &gx),
        Stmt::set(ww("q", "q"), &gy),
        Stmt::Line(vec![Stmt::set(ww("p", "q"), c.lit(0.0)), Stmt::set(ww("q", "p"), c.lit(0.0))]),
        Stmt::up(
            "k",
            "0",
            format!("k < {n}"),
            Stmt::Block(vec![
                Stmt::set("gh", format!("{upd}({}, {}, r)", vv("k", "p"), vv("k", "q"))),
                Stmt::Line(vec![Stmt::set(vv("k", "p"), &gx), Stmt::set(vv("k", "q"), &gy)]),
            ]),
        ),
    ]);
    let eig = vec![
        Stmt::decl(VarTy::Elem, vec![Var::array("w", format!("{n} * {n}"))]),
        ints(&["i", "j", "k", "p", "q", "sweep"]),
        Stmt::up(
            "i",
            "0",
            format!("i < {n}"),
            Stmt::up(
                "j",
                "0",
                format!("j < {n}"),
                Stmt::Inline(vec![
                    Stmt::set(ww("i", "j"), sym("i", "j")),
                    Stmt::set(vv("i", "j"), d.choose("i == j", &c.lit(1.0), &c.lit(0.0))),
                ]),
            ),
        ),
        Stmt::up(
            "sweep",
            "0",
            format!("sweep < {}", l.eigh_sweeps),
            Stmt::Block(vec![Stmt::up("p", "0", format!("p + 1 < {n}"), Stmt::up("q", "p + 1", format!("q < {n}"), pair))]),
        ),
        Stmt::up("i", "0", format!("i < {n}"), Stmt::set(d.at(&ev, "i"), ww("i", "i"))),
        Stmt::up(
            "i",
            "0",
            format!("i + 1 < {n}"),
            Stmt::Block(vec![
                Stmt::decl(VarTy::Int, vec![Var::init("m", "i")]),
                Stmt::up(
                    "j",
                    "i + 1",
                    format!("j < {n}"),
                    Stmt::when(format!("{} < {}", d.at(&ev, "j"), d.at(&ev, "m")), Stmt::set("m", "j")),
                ),
                Stmt::when(
                    "m != i",
                    Stmt::Block(vec![
                        Stmt::Line(vec![
                            Stmt::konst(VarTy::Elem, vec![Var::init("s", d.at(&ev, "i"))]),
                            Stmt::set(d.at(&ev, "i"), d.at(&ev, "m")),
                            Stmt::set(d.at(&ev, "m"), "s"),
                        ]),
                        Stmt::up(
                            "k",
                            "0",
                            format!("k < {n}"),
                            Stmt::Inline(vec![
                                Stmt::konst(VarTy::Elem, vec![Var::init("u", vv("k", "i"))]),
                                Stmt::set(vv("k", "i"), vv("k", "m")),
                                Stmt::set(vv("k", "m"), "u"),
                            ]),
                        ),
                    ]),
                ),
            ]),
        ),
    ];
    out.push(Func {
        name: format!("aether_eigh_{suffix}"),
        helper: true,
        ret: None,
        params: vec![elem_array("a", nn, true), elem_array("e", n, false), elem_array("v", nn, false)],
        body: eig,
    });
    out
}

/// The helpers' text in a spelling.
pub fn helpers(model: &Model, lowered: &[Function], e: &ElemType, n: usize, d: &dyn Statements) -> Vec<String> {
    helper_funcs(model, lowered, e, n, d).iter().flat_map(|f| f.text(d, model, e)).collect()
}

/// The shape the rotation family returns.
fn rotation_shape(model: &Model, l: &Linalg) -> String {
    match &model.spec.family(&l.rotation).unwrap().returns {
        crate::spec::ParamKind::Named(s) => s.clone(),
        _ => unreachable!("checked when the spec was read"),
    }
}

/// The public function of the single form of a linear-algebra kernel, as
/// statements.
pub fn single_func(model: &Model, k: &Kernel, d: &dyn Statements) -> Func {
    let KernelKind::Linalg { routine, n, .. } = k.kind else { unreachable!("a linear-algebra kernel") };
    let l = model.spec.linalg.as_ref().expect("linear algebra needs [rules.linalg]");
    let e = model.spec.types.iter().find(|t| t.name == k.elem).unwrap();
    let c = Ctx { model, l, e, n, d };
    let (m, v) = (c.mat(), c.vec());
    let suffix = format!("{}_{n}", e.name);
    let name = model.kernel_c_name(k).trim_end_matches("_lanes").to_string();
    let comps = c.comps();
    let load = |var: &str, arr: &str| -> Vec<Stmt> {
        comps.iter().enumerate().map(|(i, f)| Stmt::set(d.at(&Arr::local(arr), &i.to_string()), format!("{var}.{f}"))).collect()
    };
    let store = |var: &str, arr: &str| -> Vec<Stmt> {
        comps.iter().enumerate().map(|(i, f)| Stmt::set(format!("{var}.{f}"), d.at(&Arr::local(arr), &i.to_string()))).collect()
    };
    let elems = |names: &[&str]| Stmt::decl(VarTy::Elem, names.iter().map(|x| Var::array(x, n)).collect());
    let vec_x = Stmt::decl(VarTy::Shape(v.clone()), vec![Var::new("x")]);
    let arg = |a: &Arr| d.arg(a);
    let (loc, fld) = (Arr::local, Arr::field);
    let mut body = Vec::new();
    let (ret, params) = match routine {
        Routine::Lu => {
            body.push(Stmt::View { of: "a".into(), ptr: true });
            body.push(Stmt::Return {
                value: Some(format!("aether_lu_{suffix}({}, {})", arg(&fld("a", true)), arg(&Arr::param("ipiv")))),
                unviews: vec!["a".into()],
            });
            (Some(VarTy::Int), vec![("a".to_string(), ParamTy::Ptr { shape: m, konst: false }), int_array("ipiv", n, false)])
        }
        Routine::LuSolve => {
            body.push(elems(&["bb", "xx"]));
            body.push(vec_x);
            body.push(Stmt::View { of: "lu".into(), ptr: true });
            body.extend(load("b", "bb"));
            body.push(Stmt::Call(format!(
                "aether_lu_solve_{suffix}({}, {}, {}, {})",
                arg(&fld("lu", true)),
                arg(&Arr::param("ipiv")),
                arg(&loc("bb")),
                arg(&loc("xx"))
            )));
            body.extend(store("x", "xx"));
            body.push(Stmt::ret("x"));
            (
                Some(VarTy::Shape(v.clone())),
                vec![
                    ("lu".to_string(), ParamTy::Ptr { shape: m, konst: true }),
                    int_array("ipiv", n, true),
                    ("b".to_string(), ParamTy::Value(v.clone())),
                ],
            )
        }
        Routine::SolveLower | Routine::SolveLowerUnit | Routine::SolveUpper | Routine::SolveUpperUnit => {
            body.push(elems(&["bb", "xx"]));
            body.push(vec_x);
            body.push(Stmt::View { of: "a".into(), ptr: false });
            body.extend(load("b", "bb"));
            body.push(Stmt::Call(format!(
                "aether_{}_{suffix}({}, {}, {})",
                routine.name(),
                arg(&fld("a", false)),
                arg(&loc("bb")),
                arg(&loc("xx"))
            )));
            body.extend(store("x", "xx"));
            body.push(Stmt::ret("x"));
            (Some(VarTy::Shape(v.clone())), vec![("a".to_string(), ParamTy::Value(m)), ("b".to_string(), ParamTy::Value(v.clone()))])
        }
        Routine::DetLu => {
            let a = fld("a", false);
            body.push(Stmt::decl(VarTy::Int, vec![Var::array("ipiv", n), Var::new("k"), Var::init("swaps", "0")]));
            body.push(Stmt::decl(VarTy::Elem, vec![Var::new("d")]));
            body.push(Stmt::View { of: "a".into(), ptr: false });
            body.push(Stmt::Call(format!("aether_lu_{suffix}({}, {})", arg(&a), arg(&loc("ipiv")))));
            body.push(Stmt::set("d", d.at(&a, "0")));
            body.push(Stmt::up("k", "1", format!("k < {n}"), Stmt::set("d", c.product("d", &d.at(&a, &format!("k * {n} + k"))))));
            body.push(Stmt::up(
                "k",
                "0",
                format!("k < {n}"),
                Stmt::when(format!("{} != k + 1", d.at(&loc("ipiv"), "k")), Stmt::Incr("swaps".into())),
            ));
            body.push(Stmt::when("swaps % 2 == 1", Stmt::set("d", c.product("d", &c.lit(-1.0)))));
            body.push(Stmt::ret("d"));
            (Some(VarTy::Elem), vec![("a".to_string(), ParamTy::Value(m))])
        }
        Routine::Inverse => {
            let (a, inv) = (fld("a", false), fld("inv", true));
            body.push(Stmt::decl(VarTy::Int, vec![Var::array("ipiv", n), Var::new("info"), Var::new("i"), Var::new("j")]));
            body.push(elems(&["e", "x"]));
            body.push(Stmt::View { of: "a".into(), ptr: false });
            body.push(Stmt::View { of: "inv".into(), ptr: true });
            body.push(Stmt::set("info", format!("aether_lu_{suffix}({}, {})", arg(&a), arg(&loc("ipiv")))));
            body.push(Stmt::up(
                "j",
                "0",
                format!("j < {n}"),
                Stmt::Block(vec![
                    Stmt::up("i", "0", format!("i < {n}"), Stmt::set(d.at(&loc("e"), "i"), d.choose("i == j", &c.lit(1.0), &c.lit(0.0)))),
                    Stmt::Call(format!(
                        "aether_lu_solve_{suffix}({}, {}, {}, {})",
                        arg(&a),
                        arg(&loc("ipiv")),
                        arg(&loc("e")),
                        arg(&loc("x"))
                    )),
                    Stmt::up("i", "0", format!("i < {n}"), Stmt::set(d.at(&inv, &format!("i * {n} + j")), d.at(&loc("x"), "i"))),
                ]),
            ));
            body.push(Stmt::Return { value: Some("info".into()), unviews: vec!["inv".into()] });
            (
                Some(VarTy::Int),
                vec![("a".to_string(), ParamTy::Value(m.clone())), ("inv".to_string(), ParamTy::Ptr { shape: m, konst: false })],
            )
        }
        Routine::Cholesky => {
            body.push(Stmt::konst(VarTy::Shape(m.clone()), vec![Var::init("a0", d.deref("a"))]));
            body.push(Stmt::View { of: "a0".into(), ptr: false });
            body.push(Stmt::View { of: "a".into(), ptr: true });
            body.push(Stmt::Return {
                value: Some(format!("aether_cholesky_{suffix}({}, {})", arg(&fld("a0", false)), arg(&fld("a", true)))),
                unviews: vec!["a".into()],
            });
            (Some(VarTy::Int), vec![("a".to_string(), ParamTy::Ptr { shape: m, konst: false })])
        }
        Routine::CholeskySolve => {
            let lm = fld("l", false);
            body.push(elems(&["bb", "y", "xx"]));
            body.push(vec_x);
            body.push(ints(&["i", "k"]));
            body.push(Stmt::View { of: "l".into(), ptr: false });
            body.extend(load("b", "bb"));
            body.push(Stmt::Call(format!("aether_solve_lower_{suffix}({}, {}, {})", arg(&lm), arg(&loc("bb")), arg(&loc("y")))));
            body.push(Stmt::down(
                "i",
                n.to_string(),
                Stmt::Block(vec![
                    Stmt::decl(VarTy::Elem, vec![Var::init("s", d.at(&loc("y"), "i"))]),
                    Stmt::up(
                        "k",
                        "i + 1",
                        format!("k < {n}"),
                        Stmt::set("s", c.sub_mul("s", &d.at(&lm, &format!("k * {n} + i")), &d.at(&loc("xx"), "k"))),
                    ),
                    Stmt::set(d.at(&loc("xx"), "i"), c.div("s", &d.at(&lm, &format!("i * {n} + i")))),
                ]),
            ));
            body.extend(store("x", "xx"));
            body.push(Stmt::ret("x"));
            (Some(VarTy::Shape(v.clone())), vec![("l".to_string(), ParamTy::Value(m)), ("b".to_string(), ParamTy::Value(v.clone()))])
        }
        Routine::Eigh => {
            body.push(Stmt::decl(VarTy::Elem, vec![Var::array("e", n)]));
            body.push(Stmt::View { of: "a".into(), ptr: false });
            body.push(Stmt::View { of: "v".into(), ptr: true });
            body.push(Stmt::Call(format!("aether_eigh_{suffix}({}, {}, {})", arg(&fld("a", false)), arg(&loc("e")), arg(&fld("v", true)))));
            body.extend(store(&d.deref_base("w"), "e"));
            body.push(Stmt::Unview("v".into()));
            (
                None,
                vec![
                    ("a".to_string(), ParamTy::Value(m.clone())),
                    ("w".to_string(), ParamTy::Ptr { shape: v.clone(), konst: false }),
                    ("v".to_string(), ParamTy::Ptr { shape: m, konst: false }),
                ],
            )
        }
    };
    Func { name, helper: false, ret, params, body }
}

/// The public C-family function of a linear-algebra kernel.
pub fn kernel(model: &Model, k: &Kernel, d: &crate::targets::shared::c_family::Dialect) -> Printed {
    let KernelKind::Linalg { routine, n, many } = k.kind else { unreachable!("a linear-algebra kernel") };
    let e = model.spec.types.iter().find(|t| t.name == k.elem).unwrap();
    let (t, m, v) = (e.c_type.clone(), type_name(model, &format!("mat{n}"), e), type_name(model, &format!("vec{n}"), e));
    let name = model.kernel_c_name(k);
    let ks = model.spec.kernel(&k.key).unwrap();
    let mut doc = vec![ks.doc.clone()];
    if many {
        let single = name.trim_end_matches("_lanes");
        doc.push(format!("Many lanes: {single} on each of `count` problems stored one after another (lane l's matrix is the l-th {m}, its vector the l-th {v}, its pivots ipiv[l*{n}..], its info info[l]); every lane gives the bits of {single}."));
        let (signature, call) = match routine {
            Routine::Lu => {
                (format!("void {name}({m} *a, int *ipiv, int *info, size_t count)"), format!("info[l] = {single}(&a[l], &ipiv[l * {n}]);"))
            }
            Routine::LuSolve => (
                format!("void {name}(const {m} *lu, const int *ipiv, const {v} *b, {v} *x, size_t count)"),
                format!("x[l] = {single}(&lu[l], &ipiv[l * {n}], b[l]);"),
            ),
            Routine::SolveLower | Routine::SolveLowerUnit | Routine::SolveUpper | Routine::SolveUpperUnit | Routine::CholeskySolve => {
                (format!("void {name}(const {m} *a, const {v} *b, {v} *x, size_t count)"), format!("x[l] = {single}(a[l], b[l]);"))
            }
            Routine::DetLu => (format!("void {name}(const {m} *a, {t} *d, size_t count)"), format!("d[l] = {single}(a[l]);")),
            Routine::Inverse => {
                (format!("void {name}(const {m} *a, {m} *inv, int *info, size_t count)"), format!("info[l] = {single}(a[l], &inv[l]);"))
            }
            Routine::Cholesky => (format!("void {name}({m} *a, int *info, size_t count)"), format!("info[l] = {single}(&a[l]);")),
            Routine::Eigh => {
                (format!("void {name}(const {m} *a, {v} *w, {m} *vecs, size_t count)"), format!("{single}(a[l], &w[l], &vecs[l]);"))
            }
        };
        let body = vec!["size_t l;".to_string(), format!("for (l = 0; l < count; ++l) {call}")];
        return Printed { name, doc, signature, body };
    }
    let f = single_func(model, k, d);
    Printed { name, doc, signature: f.head(d, model, e), body: crate::targets::shared::stmt::block(d, model, e, &f.body) }
}
