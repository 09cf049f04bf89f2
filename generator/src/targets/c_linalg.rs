//! The C text of the per-lane linear algebra: the same schedules as
//! `crate::linalg` evaluates, printed as loops over row-major arrays. Each
//! routine is a static helper over plain arrays, wrapped by the public
//! function of its shape; a many-lane form loops over the single form.

use crate::model::{Function, Kernel, KernelKind, Model};
use crate::spec::{ElemType, Linalg, Multipliers, Nesting, Pivot, Routine, Seed, ShapeKind, Symmetrize, Update};

use super::c::{literal, type_name, Dialect};
use crate::dsl::BinOp;

/// A printed C function: name, doc lines, signature, body lines.
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
    d: &'a Dialect,
}

impl Ctx<'_> {
    fn t(&self) -> &str {
        &self.e.c_type
    }
    fn lit(&self, v: f64) -> String {
        literal(v, self.e)
    }
    fn fabs(&self) -> String {
        self.d.libm("fabs", self.e)
    }
    fn fma(&self) -> String {
        self.d.libm("fma", self.e)
    }
    fn mat(&self) -> String {
        type_name(self.model, &format!("mat{}", self.n), self.e)
    }
    fn vec(&self) -> String {
        type_name(self.model, &format!("vec{}", self.n), self.e)
    }
    fn comps(&self) -> Vec<String> {
        match &self.model.spec.shape(&format!("vec{}", self.n)).unwrap().kind {
            ShapeKind::Vector(names) => names.clone(),
            _ => unreachable!("a vector shape"),
        }
    }
    /// `x * y` in the dialect (in C behind its contraction guard).
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
            format!("{}(-({x}), {y}, {s})", self.fma())
        } else {
            self.sub(s, &self.product(x, y))
        }
    }
    /// Lines that set `acc` to the finished dot product of x(k)*y(k) for k
    /// in 0..m (m a C expression, at least 1), by the fold rule.
    fn dot(&self, m: &str, x: &dyn Fn(&str) -> String, y: &dyn Fn(&str) -> String) -> Vec<String> {
        let t = self.t();
        let step = |k: &str| {
            if self.l.fused {
                format!("acc = {}({}, {}, acc);", self.fma(), x(k), y(k))
            } else {
                format!("acc = {};", self.add(&self.product(&x(k), &y(k)), "acc"))
            }
        };
        let rule = &self.model.spec.fold;
        match (rule.nesting, rule.seed) {
            (Nesting::Right, Seed::None) => {
                vec![format!("{t} acc = {};", self.product(&x("0"), &y("0"))), format!("for (k = 1; k < {m}; ++k) {}", step("k"))]
            }
            (Nesting::Left, Seed::None) => vec![
                format!("{t} acc = {};", self.product(&x(&format!("({m} - 1)")), &y(&format!("({m} - 1)")))),
                format!("for (k = {m} - 1; k-- > 0;) {}", step("k")),
            ],
            (Nesting::Right, Seed::Identity) => {
                vec![format!("{t} acc = {};", self.lit(0.0)), format!("for (k = 0; k < {m}; ++k) {}", step("k"))]
            }
            (Nesting::Left, Seed::Identity) => {
                vec![format!("{t} acc = {};", self.lit(0.0)), format!("for (k = {m}; k-- > 0;) {}", step("k"))]
            }
        }
    }
}

fn indent(lines: Vec<String>, by: usize) -> Vec<String> {
    lines.into_iter().map(|l| format!("{}{l}", " ".repeat(by))).collect()
}

/// The static helpers of one element type and size, shared by its routines.
/// They are `static inline`: with the products' contraction guards (asm
/// statements) clang's inliner otherwise keeps them out of line, which made
/// `aether_mat3f_lu_solve` about ten times slower (docs/reports/guard-cost.md).
pub fn helpers(model: &Model, lowered: &[Function], e: &ElemType, n: usize, d: &Dialect) -> Vec<String> {
    let Some(l) = model.spec.linalg.as_ref() else { return Vec::new() };
    let c = Ctx { model, l, e, n, d };
    let st = d.helper;
    let t = c.t().to_string();
    let suffix = format!("{}_{n}", e.name);
    let mut out = Vec::new();
    let w = |i: &str, j: &str| format!("w[({i}) * {n} + ({j})]");

    // LU, in place on w (row-major), pivots 1-based.
    out.push(format!("{st} int aether_lu_{suffix}({t} *w, int *ipiv)"));
    out.push("{".into());
    out.push("    int info = 0, i, j, k, p;".into());
    out.push(format!("    for (j = 0; j < {n}; ++j) {{"));
    if l.update == Update::Dot {
        let mut b = vec!["for (i = 1; i < j; ++i) {".to_string()];
        b.extend(indent(c.dot("i", &|k| w("i", k), &|k| w(k, "j")), 4));
        b.push(format!("    {} = {};", w("i", "j"), c.sub(&w("i", "j"), "acc")));
        b.push("}".into());
        b.push(format!("if (j > 0) for (i = j; i < {n}; ++i) {{"));
        b.extend(indent(c.dot("j", &|k| w("i", k), &|k| w(k, "j")), 4));
        b.push(format!("    {} = {};", w("i", "j"), c.sub(&w("i", "j"), "acc")));
        b.push("}".into());
        if l.fused && model.spec.fold.seed == Seed::None {
            // One product: contraction fuses a - x*y whole.
            b = vec![
                "for (i = 1; i < j; ++i) {".to_string(),
                format!("    if (i == 1) {{ {} = {}; continue; }}", w("i", "j"), c.sub_mul(&w("i", "j"), &w("i", "0"), &w("0", "j"))),
            ]
            .into_iter()
            .chain(indent(c.dot("i", &|k| w("i", k), &|k| w(k, "j")), 4))
            .chain([format!("    {} = {};", w("i", "j"), c.sub(&w("i", "j"), "acc")), "}".to_string()])
            .chain([format!("if (j > 0) for (i = j; i < {n}; ++i) {{")])
            .chain([format!("    if (j == 1) {{ {} = {}; continue; }}", w("i", "j"), c.sub_mul(&w("i", "j"), &w("i", "0"), &w("0", "j")))])
            .chain(indent(c.dot("j", &|k| w("i", k), &|k| w(k, "j")), 4))
            .chain([format!("    {} = {};", w("i", "j"), c.sub(&w("i", "j"), "acc")), "}".to_string()])
            .collect();
        }
        out.extend(indent(b, 8));
    }
    let wins = match l.pivot {
        Pivot::FirstLargest => "m > best",
        Pivot::LastLargest => "m >= best",
    };
    out.push("        p = j;".into());
    out.push("        {".into());
    out.push(format!("            {t} best = {}({});", c.fabs(), w("j", "j")));
    out.push(format!("            for (i = j + 1; i < {n}; ++i) {{"));
    out.push(format!("                const {t} m = {}({});", c.fabs(), w("i", "j")));
    out.push(format!("                if ({wins}) {{ p = i; best = m; }}"));
    out.push("            }".into());
    out.push("        }".into());
    out.push("        ipiv[j] = p + 1;".into());
    out.push(format!(
        "        if (p != j) for (k = 0; k < {n}; ++k) {{ const {t} s = {}; {} = {}; {} = s; }}",
        w("j", "k"),
        w("j", "k"),
        w("p", "k"),
        w("p", "k")
    ));
    out.push(format!("        if ({} == {}) {{", w("j", "j"), c.lit(0.0)));
    out.push("            if (info == 0) info = j + 1;".into());
    out.push("        } else {".into());
    match l.multipliers {
        Multipliers::Reciprocal => {
            out.push(format!("            const {t} r = {};", c.div(&c.lit(1.0), &w("j", "j"))));
            out.push(format!("            for (i = j + 1; i < {n}; ++i) {} = {};", w("i", "j"), c.product(&w("i", "j"), "r")));
        }
        Multipliers::Division => {
            out.push(format!("            for (i = j + 1; i < {n}; ++i) {} = {};", w("i", "j"), c.div(&w("i", "j"), &w("j", "j"))));
        }
    }
    out.push("        }".into());
    if l.update == Update::RightLooking {
        out.push(format!(
            "        for (i = j + 1; i < {n}; ++i) for (k = j + 1; k < {n}; ++k) {} = {};",
            w("i", "k"),
            c.sub_mul(&w("i", "k"), &w("i", "j"), &w("j", "k"))
        ));
    }
    out.push("    }".into());
    out.push("    return info;".into());
    out.push("}".into());
    out.push(String::new());

    // Triangular solves on arrays: lower or upper, unit or not.
    for (lower, unit) in [(true, false), (true, true), (false, false), (false, true)] {
        let name = format!("aether_solve_{}{}_{suffix}", if lower { "lower" } else { "upper" }, if unit { "_unit" } else { "" });
        out.push(format!("{st} void {name}(const {t} *w, const {t} *b, {t} *x)"));
        out.push("{".into());
        out.push("    int i, k;".into());
        if lower {
            out.push(format!("    for (i = 0; i < {n}; ++i) {{"));
            out.push(format!("        {t} s = b[i];"));
            out.push(format!("        for (k = 0; k < i; ++k) s = {};", c.sub_mul("s", &w("i", "k"), "x[k]")));
        } else {
            out.push(format!("    for (i = {n}; i-- > 0;) {{"));
            out.push(format!("        {t} s = b[i];"));
            out.push(format!("        for (k = i + 1; k < {n}; ++k) s = {};", c.sub_mul("s", &w("i", "k"), "x[k]")));
        }
        out.push(if unit { "        x[i] = s;".to_string() } else { format!("        x[i] = {};", c.div("s", &w("i", "i"))) });
        out.push("    }".into());
        out.push("}".into());
        out.push(String::new());
    }

    // lu_solve on arrays.
    out.push(format!("{st} void aether_lu_solve_{suffix}(const {t} *w, const int *ipiv, const {t} *b, {t} *x)"));
    out.push("{".into());
    out.push(format!("    {t} y[{n}], z[{n}];"));
    out.push("    int k;".into());
    out.push(format!("    for (k = 0; k < {n}; ++k) y[k] = b[k];"));
    out.push(format!(
        "    for (k = 0; k < {n}; ++k) if (ipiv[k] - 1 != k) {{ const {t} s = y[k]; y[k] = y[ipiv[k] - 1]; y[ipiv[k] - 1] = s; }}"
    ));
    out.push(format!("    aether_solve_lower_unit_{suffix}(w, y, z);"));
    out.push(format!("    aether_solve_upper_{suffix}(w, z, x);"));
    out.push("}".into());
    out.push(String::new());

    // Cholesky on arrays: reads a, writes w.
    let sym = |i: &str, j: &str| match l.symmetrize {
        Symmetrize::HalfSum => {
            c.add(&c.product(&c.lit(0.5), &format!("a[({i}) * {n} + ({j})]")), &c.product(&c.lit(0.5), &format!("a[({j}) * {n} + ({i})]")))
        }
        Symmetrize::Lower => format!("a[({i}) * {n} + ({j})]"),
    };
    out.push(format!("{st} int aether_cholesky_{suffix}(const {t} *a, {t} *w)"));
    out.push("{".into());
    out.push("    int i, j, k;".into());
    out.push(format!(
        "    for (i = 0; i < {n}; ++i) for (j = 0; j < {n}; ++j) {} = j <= i ? {} : {};",
        w("i", "j"),
        sym("i", "j"),
        c.lit(0.0)
    ));
    out.push(format!("    for (j = 0; j < {n}; ++j) {{"));
    out.push(format!("        {t} d = {};", w("j", "j")));
    out.push(format!("        {t} l;"));
    out.push(format!("        for (k = 0; k < j; ++k) d = {};", c.sub_mul("d", &w("j", "k"), &w("j", "k"))));
    out.push(format!("        if (!(d > {})) return j + 1;", c.lit(0.0)));
    out.push(format!("        l = {};", d.sqrt("d", e)));
    out.push(format!("        {} = l;", w("j", "j")));
    out.push(format!("        for (i = j + 1; i < {n}; ++i) {{"));
    out.push(format!("            {t} s = {};", w("i", "j")));
    out.push(format!("            for (k = 0; k < j; ++k) s = {};", c.sub_mul("s", &w("i", "k"), &w("j", "k"))));
    out.push(format!("            {} = {};", w("i", "j"), c.div("s", "l")));
    out.push("        }".into());
    out.push("    }".into());
    out.push("    return 0;".into());
    out.push("}".into());
    out.push(String::new());

    // Jacobi eigen-decomposition on arrays: reads a, writes e (values) and v.
    let find = |family: &str| {
        let f = lowered.iter().find(|f| f.family == family && f.elem == e.name).unwrap();
        model.c_name(f)
    };
    let (rot, upd, diag) = (find(&l.rotation), find(&l.update_pair), find(&l.diag));
    let rot_t = type_name(model, &rotation_shape(model, l), e);
    let v = |i: &str, j: &str| format!("v[({i}) * {n} + ({j})]");
    out.push(format!("{st} void aether_eigh_{suffix}(const {t} *a, {t} *e, {t} *v)"));
    out.push("{".into());
    out.push(format!("    {t} w[{n} * {n}];"));
    out.push("    int i, j, k, p, q, sweep;".into());
    out.push(format!(
        "    for (i = 0; i < {n}; ++i) for (j = 0; j < {n}; ++j) {{ {} = {}; {} = i == j ? {} : {}; }}",
        w("i", "j"),
        sym("i", "j"),
        v("i", "j"),
        c.lit(1.0),
        c.lit(0.0)
    ));
    out.push(format!("    for (sweep = 0; sweep < {}; ++sweep) {{", l.eigh_sweeps));
    out.push(format!("        for (p = 0; p + 1 < {n}; ++p) for (q = p + 1; q < {n}; ++q) {{"));
    out.push(format!("            const {t} app = {}, aqq = {}, apq = {};", w("p", "p"), w("q", "q"), w("p", "q")));
    out.push(format!("            {rot_t} r;"));
    let vec2 = type_name(model, "vec2", e);
    out.push(format!("            {vec2} gh;"));
    out.push(format!("            if (apq == {}) continue;", c.lit(0.0)));
    out.push(format!("            r = {rot}(app, aqq, apq);"));
    out.push(format!("            for (k = 0; k < {n}; ++k) {{"));
    out.push("                if (k == p || k == q) continue;".into());
    out.push(format!("                gh = {upd}({}, {}, r);", w("k", "p"), w("k", "q")));
    out.push(format!("                {} = gh.x; {} = gh.x;", w("k", "p"), w("p", "k")));
    out.push(format!("                {} = gh.y; {} = gh.y;", w("k", "q"), w("q", "k")));
    out.push("            }".into());
    out.push(format!("            gh = {diag}(app, aqq, apq, r);"));
    out.push(format!("            {} = gh.x;", w("p", "p")));
    out.push(format!("            {} = gh.y;", w("q", "q")));
    out.push(format!("            {} = {}; {} = {};", w("p", "q"), c.lit(0.0), w("q", "p"), c.lit(0.0)));
    out.push(format!("            for (k = 0; k < {n}; ++k) {{"));
    out.push(format!("                gh = {upd}({}, {}, r);", v("k", "p"), v("k", "q")));
    out.push(format!("                {} = gh.x; {} = gh.y;", v("k", "p"), v("k", "q")));
    out.push("            }".into());
    out.push("        }".into());
    out.push("    }".into());
    out.push(format!("    for (i = 0; i < {n}; ++i) e[i] = {};", w("i", "i")));
    out.push(format!("    for (i = 0; i + 1 < {n}; ++i) {{"));
    out.push("        int m = i;".into());
    out.push(format!("        for (j = i + 1; j < {n}; ++j) if (e[j] < e[m]) m = j;"));
    out.push("        if (m != i) {".into());
    out.push(format!("            const {t} s = e[i]; e[i] = e[m]; e[m] = s;"));
    out.push(format!(
        "            for (k = 0; k < {n}; ++k) {{ const {t} u = {}; {} = {}; {} = u; }}",
        v("k", "i"),
        v("k", "i"),
        v("k", "m"),
        v("k", "m")
    ));
    out.push("        }".into());
    out.push("    }".into());
    out.push("}".into());
    out.push(String::new());
    out
}

/// The shape the rotation family returns.
fn rotation_shape(model: &Model, l: &Linalg) -> String {
    match &model.spec.family(&l.rotation).unwrap().returns {
        crate::spec::ParamKind::Named(s) => s.clone(),
        _ => unreachable!("checked when the spec was read"),
    }
}

/// The public C function of a linear-algebra kernel.
pub fn kernel(model: &Model, k: &Kernel, d: &Dialect) -> Printed {
    let KernelKind::Linalg { routine, n, many } = k.kind else { unreachable!("a linear-algebra kernel") };
    let l = model.spec.linalg.as_ref().expect("linear algebra needs [rules.linalg]");
    let e = model.spec.types.iter().find(|t| t.name == k.elem).unwrap();
    let c = Ctx { model, l, e, n, d };
    let (t, m, v) = (c.t().to_string(), c.mat(), c.vec());
    let suffix = format!("{}_{n}", e.name);
    let name = model.kernel_c_name(k);
    let comps = c.comps();
    let load =
        |var: &str, arr: &str| -> Vec<String> { comps.iter().enumerate().map(|(i, f)| format!("{arr}[{i}] = {var}.{f};")).collect() };
    let store =
        |var: &str, arr: &str| -> Vec<String> { comps.iter().enumerate().map(|(i, f)| format!("{var}.{f} = {arr}[{i}];")).collect() };
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
    let mut body = Vec::new();
    let signature = match routine {
        Routine::Lu => {
            body.push(format!("return aether_lu_{suffix}(a->m, ipiv);"));
            format!("int {name}({m} *a, int ipiv[{n}])")
        }
        Routine::LuSolve => {
            body.push(format!("{t} bb[{n}], xx[{n}];"));
            body.push(format!("{v} x;"));
            body.extend(load("b", "bb"));
            body.push(format!("aether_lu_solve_{suffix}(lu->m, ipiv, bb, xx);"));
            body.extend(store("x", "xx"));
            body.push("return x;".into());
            format!("{v} {name}(const {m} *lu, const int ipiv[{n}], {v} b)")
        }
        Routine::SolveLower | Routine::SolveLowerUnit | Routine::SolveUpper | Routine::SolveUpperUnit => {
            body.push(format!("{t} bb[{n}], xx[{n}];"));
            body.push(format!("{v} x;"));
            body.extend(load("b", "bb"));
            body.push(format!("aether_{}_{suffix}(a.m, bb, xx);", routine.name()));
            body.extend(store("x", "xx"));
            body.push("return x;".into());
            format!("{v} {name}({m} a, {v} b)")
        }
        Routine::DetLu => {
            body.push("int ipiv[N_], k, swaps = 0;".replace("N_", &n.to_string()));
            body.push(format!("{t} d;"));
            body.push(format!("aether_lu_{suffix}(a.m, ipiv);"));
            body.push("d = a.m[0];".into());
            body.push(format!("for (k = 1; k < {n}; ++k) d = {};", c.product("d", &format!("a.m[k * {n} + k]"))));
            body.push(format!("for (k = 0; k < {n}; ++k) if (ipiv[k] != k + 1) ++swaps;"));
            body.push(format!("if (swaps % 2 == 1) d = {};", c.product("d", &c.lit(-1.0))));
            body.push("return d;".into());
            format!("{t} {name}({m} a)")
        }
        Routine::Inverse => {
            body.push(format!("int ipiv[{n}], info, i, j;"));
            body.push(format!("{t} e[{n}], x[{n}];"));
            body.push(format!("info = aether_lu_{suffix}(a.m, ipiv);"));
            body.push(format!("for (j = 0; j < {n}; ++j) {{"));
            body.push(format!("    for (i = 0; i < {n}; ++i) e[i] = i == j ? {} : {};", c.lit(1.0), c.lit(0.0)));
            body.push(format!("    aether_lu_solve_{suffix}(a.m, ipiv, e, x);"));
            body.push(format!("    for (i = 0; i < {n}; ++i) inv->m[i * {n} + j] = x[i];"));
            body.push("}".into());
            body.push("return info;".into());
            format!("int {name}({m} a, {m} *inv)")
        }
        Routine::Cholesky => {
            body.push(format!("const {m} a0 = *a;"));
            body.push(format!("return aether_cholesky_{suffix}(a0.m, a->m);"));
            format!("int {name}({m} *a)")
        }
        Routine::CholeskySolve => {
            body.push(format!("{t} bb[{n}], y[{n}], xx[{n}];"));
            body.push(format!("{v} x;"));
            body.push("int i, k;".into());
            body.extend(load("b", "bb"));
            body.push(format!("aether_solve_lower_{suffix}(l.m, bb, y);"));
            body.push(format!("for (i = {n}; i-- > 0;) {{"));
            body.push(format!("    {t} s = y[i];"));
            body.push(format!("    for (k = i + 1; k < {n}; ++k) s = {};", c.sub_mul("s", &format!("l.m[k * {n} + i]"), "xx[k]")));
            body.push(format!("    xx[i] = {};", c.div("s", &format!("l.m[i * {n} + i]"))));
            body.push("}".into());
            body.extend(store("x", "xx"));
            body.push("return x;".into());
            format!("{v} {name}({m} l, {v} b)")
        }
        Routine::Eigh => {
            body.push(format!("{t} e[{n}];"));
            body.push(format!("aether_eigh_{suffix}(a.m, e, v->m);"));
            body.extend(store("(*w)", "e"));
            format!("void {name}({m} a, {v} *w, {m} *v)")
        }
    };
    Printed { name, doc, signature, body }
}
