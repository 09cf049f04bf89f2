//! The per-item vector forms of the C core's 4 × 4 matrix products, the
//! binary32 quaternion product and the binary32 adjugate inverses
//! (`AETHER_ITEM_SHUFFLES`, aether_core.c: with AVX under clang or gcc 12
//! and later, header-only and in the object): mat4f_mul, mat4d_mul,
//! mat4f_mul_vec, mat4d_mul_vec, quatf_mul, quatd_mul,
//! mat3f_inverse_adjugate and mat4f_inverse_adjugate.
//!
//! A caller's loop over `aether_mat4f_mul_vec` ran 2.9 times slower than
//! cglm's and glam's: the contract's row-major matrix puts the four products
//! that one result sums in one row, so a compiler that packs the four
//! results into one vector has to gather each column across four rows first
//! (16 lane inserts per item). The form here takes the products along the
//! rows instead (two rows times the vector twice, in two 8-lane products)
//! and moves the products, not the inputs, into the lanes of the sums: two
//! unpacks, two swaps within 64-bit pairs and one final gather, then the
//! contract's three sums (binary64: one row per four-lane vector, the
//! products transposed by unpacks and half swaps). `aether_mat4f_mul` takes
//! two rows of the result per vector: each row of `b` twice times `a`'s
//! entries broadcast, summed in the contract's order. `aether_quatf_mul` and
//! `aether_quatd_mul` subtract their first signed term with x86's addsub and
//! add the others with their broadcast operand's sign bits flipped where the
//! contract subtracts.
//! The adjugates' plan is built from their trees ([`adjugate`], [`lanes`]):
//! each group of eight components is one 8-lane vector whose operands are
//! shuffles of the matrix's entries (the products of each cofactor, their
//! sums, the sign of the odd ones as a product with -1 and a blend, the
//! product with the reciprocal), and the determinant, its reciprocal and a
//! last component outside the groups are scalars ([`scalar`]), the
//! determinant's cofactors taken from the vectors' lanes. Across items, clang had vectorised the scalar body with
//! about 100 lane inserts and extracts per 8 items on the one shuffle port,
//! and gcc ran it scalar: 4.4 and 4.8 ns per item against glam's 2.7 to
//! 3.0; the form takes 3.0 with both. For the 4 × 4 one, gcc's header-only
//! loop went from 18.6 to 11.8 ns per item and both objects from 18 to 19 to
//! 11 to 12; clang's header-only loop, vectorised across items, is as fast
//! with it as without (9.8 and 10.0).
//!
//! Without AVX the same plans run in 16-byte vectors
//! (`AETHER_ITEM_SHUFFLES_128`: x86-64's baseline SSE2, i386 with SSE2 and
//! aarch64's NEON; [`Width`]): mat4f_mul one result row per vector and
//! mat4d_mul half a row, a's entries broadcast from its rows; the mat4 *
//! vec4 forms one row (binary64: half a row) per product, transposed into
//! the sums' lanes by unpacks and joined halves ([`Plan::transpose`]: eight
//! shuffles in binary32); the quaternion products four lanes (binary64:
//! two), every subtracted term added with its broadcast operand's sign bits
//! flipped (SSE2 has no addsub). At x86-64's `-O2` (no `-march`, n = 1024)
//! the header-only loops went from 31.1 (gcc) and 6.2 (clang) ns per item
//! to 3.8 over mat4f_mul, cglm's and glam's speed; from 6.1 and 2.2 to 1.4
//! and 1.3 over quatf_mul (cglm 1.4); from 2.6 and 3.3 to 1.5 over
//! mat4f_mul_vec, where cglm's column-major product takes 1.0 with four
//! shuffles per item to the transpose's eight; from 31.0 and 10.0 to 9.4
//! and 7.9 over mat4d_mul (glam 8.3).
//!
//! The order of operations stays the tree's: a plan is a list of lane moves
//! (loads, shuffles, products, sums, stores), and [`form`] evaluates it on
//! symbols, giving each result component the expression the plan computes.
//! The plan is printed only where those expressions are the function's
//! lowered trees, up to the order of the operands of `+` and `*` (IEEE 754
//! rounds `a + b` and `b + a` alike); any other fold in the spec leaves the
//! scalar body alone. Every product is pinned in its vector register
//! (`aether_item_pin`: `AETHER_PIN_VECTOR` with AVX, the same on a 16-byte
//! vector elsewhere, an empty asm statement that claims to change it):
//! its value is opaque to the compiler, so no contraction fuses it into a
//! sum, and the guard emits no instruction. (The OR with an opaque zero
//! that guarded these forms before cost one per product: 8 of mat4f_mul's
//! 45 instructions per item, and clang's header-only loop over mat4f_mul
//! 3.3 ns per item against 2.4 pinned.)
//! `AETHER_UNSAFE_UNGUARDED_ITEM_PRODUCTS` removes this guard alone (and `AETHER_UNSAFE_UNGUARDED_VECTOR_PRODUCTS` with the
//! vectorising guard): the compatibility matrix's negative controls, where
//! mat4f_mul's and quatf_mul's forms then fuse under `-ffp-contract=fast`
//! (and on aarch64 the 16-byte forms of mat4f_mul, mat4d_mul, quatf_mul and
//! quatd_mul, into fmla: 84 corpus mismatches with gcc 12 and clang 14).
//! The mat4 * vec4 forms' products reach their sums only through shuffles,
//! and no compiler tried fused them without the guard; it stays, for a
//! compiler that moves the shuffles before the products.

use crate::dsl::BinOp;
use crate::model::{Expr, Function, Kind, Model};
use crate::spec::ElemType;
use crate::targets::shared::print::OUT;

/// The macro under which the core prints the AVX forms (aether_core.c).
pub const MACRO: &str = "AETHER_ITEM_SHUFFLES";

/// The macro under which the core prints the 16-byte forms: x86 with SSE2
/// and without AVX, and aarch64 (aether_core.c, [`prologue`]).
pub const MACRO_128: &str = "AETHER_ITEM_SHUFFLES_128";

/// The vector registers a form is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// AVX's 32-byte vectors and its addsub ([`MACRO`]).
    Avx,
    /// 16-byte vectors with no addsub: x86-64's baseline SSE2, i386 with
    /// SSE2, and aarch64's NEON ([`MACRO_128`]).
    Bytes16,
}

impl Width {
    /// Every width, in the order the core tests their macros.
    pub const ALL: [Width; 2] = [Width::Avx, Width::Bytes16];

    /// The macro under which the core prints this width's forms.
    pub fn macro_name(self) -> &'static str {
        match self {
            Width::Avx => MACRO,
            Width::Bytes16 => MACRO_128,
        }
    }

    fn bytes(self) -> usize {
        match self {
            Width::Avx => 32,
            Width::Bytes16 => 16,
        }
    }
}

/// Defined in gcc's object (aether_core.c): gcc's callers copy a by-value
/// struct of more than 16 bytes onto the stack 16 bytes at a time, and a
/// 32-byte load of two such stores waits for them to retire (no store
/// forwarding), so the forms load such an argument 16 bytes at a time there.
pub const COPIES_BY_16: &str = "AETHER_ITEM_COPIES_BY_16_BYTES";

/// A struct's size in bytes (`None` for a scalar or a boolean).
fn struct_bytes(k: &Kind, elem: &str) -> Option<usize> {
    matches!(k, Kind::Shape(_)).then(|| k.words() * if elem == "f64" { 8 } else { 4 })
}

/// Whether parameter `i` of `f` is a struct of 16 bytes or less, which the
/// x86-64 System V convention passes in vector registers, 8 bytes in each.
fn in_registers_param(f: &Function, i: usize) -> bool {
    struct_bytes(&f.params[i].kind, &f.elem).is_some_and(|b| b <= 16)
}

/// A vector value of a plan: its C name and each lane's expression.
#[derive(Clone)]
struct V {
    name: String,
    lanes: Vec<Expr>,
}

/// A plan being written: the C lines and the result components it stored.
struct Plan<'a> {
    f: &'a Function,
    width: Width,
    /// The element's name in the vector types (`f32`, `f64`) and its C type.
    t: &'a str,
    c: &'a str,
    elem: &'a ElemType,
    lines: Vec<String>,
    out: Vec<Option<Expr>>,
    n: usize,
    /// The scalars computed so far, by the tree each one is ([`scalar`]).
    memo: Vec<(Expr, V)>,
    /// Every vector bound so far, whose lanes a scalar may take.
    built: Vec<V>,
    /// The function's temps, computed on first use ([`scalar`]).
    temps: Vec<Option<V>>,
    /// 32-byte loads by 16-byte halves under gcc, header-only too
    /// (`aether_item_load32_gcc_halves_f32x8`: the adjugates).
    gcc_halves: bool,
    /// The 4 x 4 matrix's columns, column k in both 16-byte halves of
    /// vector k (in some order within each half): the sources of the
    /// gathers of inputs whose every half is one column's ([`lanes`]).
    columns: Vec<V>,
    /// Vectors whose low half is one column's and high half another's,
    /// made as needed, by the two columns.
    column_pairs: Vec<((usize, usize), V)>,
}

impl<'a> Plan<'a> {
    fn new(f: &'a Function, elem: &'a ElemType, width: Width) -> Self {
        let temps = vec![None; f.temps.len()];
        Plan {
            f,
            width,
            t: &elem.name,
            c: &elem.c_type,
            elem,
            lines: Vec::new(),
            out: vec![None; f.output_words()],
            n: 0,
            memo: Vec::new(),
            built: Vec::new(),
            temps,
            gcc_halves: false,
            columns: Vec::new(),
            column_pairs: Vec::new(),
        }
    }

    /// The lanes of the widest vector of the plan's width: 8 binary32 or 4
    /// binary64 with AVX, 4 or 2 in 16 bytes.
    fn wide(&self) -> usize {
        self.width.bytes() * 8 / self.elem.bits as usize
    }

    /// The operands of eight products of two inputs each, each lane's two
    /// exchanged where that makes every half of both operand vectors one
    /// column's ([`Plan::gather_by_columns`]; a product's operands commute, bit
    /// for bit). Unchanged where no exchange does.
    fn orient_by_columns(&self, lefts: &mut [Expr], rights: &mut [Expr]) {
        let column = |e: &Expr| if let Expr::Input { param: 0, comp } = e { Some(comp % 4) } else { None };
        if self.columns.is_empty() || lefts.len() != 8 || lefts.iter().chain(rights.iter()).any(|e| column(e).is_none()) {
            return;
        }
        let one_column = |xs: &[&Expr]| xs.iter().all(|e| column(e) == column(xs[0]));
        let mut chosen = [0u32; 2];
        for (h, slot) in chosen.iter_mut().enumerate() {
            let lanes = 4 * h..4 * h + 4;
            let ok = (0..16u32).find(|mask| {
                let pick = |i: usize, left: bool| if (mask >> (i - 4 * h) & 1 == 1) == left { &rights[i] } else { &lefts[i] };
                let l: Vec<&Expr> = lanes.clone().map(|i| pick(i, true)).collect();
                let r: Vec<&Expr> = lanes.clone().map(|i| pick(i, false)).collect();
                one_column(&l) && one_column(&r)
            });
            let Some(mask) = ok else { return };
            *slot = mask;
        }
        for i in 0..8 {
            if chosen[i / 4] >> (i % 4) & 1 == 1 {
                std::mem::swap(&mut lefts[i], &mut rights[i]);
            }
        }
    }

    /// The gather of the inputs `trees` (eight lanes) by one shuffle within
    /// each 16-byte half, where each half's inputs are one column's: from
    /// [`Plan::columns`], or a blend of two of them.
    fn gather_by_columns(&mut self, trees: &[Expr]) -> Option<V> {
        if self.columns.is_empty() || trees.len() != 8 {
            return None;
        }
        let mut col = [0usize; 2];
        for (h, half) in trees.chunks(4).enumerate() {
            col[h] = self.columns.iter().position(|c| half.iter().all(|e| c.lanes[4 * h..4 * h + 4].contains(e)))?;
        }
        let src = if col[0] == col[1] {
            self.columns[col[0]].clone()
        } else if let Some((_, v)) = self.column_pairs.iter().find(|(k, _)| *k == (col[0], col[1])) {
            v.clone()
        } else {
            let (lo, hi) = (self.columns[col[0]].clone(), self.columns[col[1]].clone());
            let v = self.shuffle(&lo, &hi, &[0, 1, 2, 3, 12, 13, 14, 15]);
            self.column_pairs.push(((col[0], col[1]), v.clone()));
            v
        };
        let pick: Vec<usize> = trees
            .iter()
            .enumerate()
            .map(|(i, e)| src.lanes[4 * (i / 4)..4 * (i / 4) + 4].iter().position(|x| x == e).map(|j| 4 * (i / 4) + j))
            .collect::<Option<_>>()?;
        Some(self.shuffle(&src, &src, &pick))
    }

    fn bind(&mut self, lanes: Vec<Expr>, value: String) -> V {
        let name = format!("aether_v{}", self.n);
        self.n += 1;
        self.lines.push(format!("const {} {name} = {value};", self.type_of(lanes.len())));
        let v = V { name, lanes };
        if v.lanes.len() > 1 {
            self.built.push(v.clone());
        }
        v
    }

    /// The C type of a value of `lanes` lanes: a vector, or the element
    /// type itself for one lane.
    fn type_of(&self, lanes: usize) -> String {
        if lanes == 1 {
            self.c.to_string()
        } else {
            format!("aether_item_{}x{lanes}", self.t)
        }
    }

    /// Component `comp` of parameter `param`, as a scalar.
    fn load_scalar(&mut self, param: usize, comp: usize) -> V {
        let name = format!("aether_v{}", self.n);
        self.n += 1;
        let p = &self.f.params[param].name;
        self.lines.push(format!("{} {name};", self.c));
        self.lines.push(format!("memcpy(&{name}, (const char *)&{p} + {comp}u * sizeof({}), sizeof {name});", self.c));
        V { name, lanes: vec![Expr::Input { param, comp }] }
    }

    /// A literal in every one of `lanes` lanes.
    fn lit(&mut self, v: f64, lanes: usize) -> V {
        let l = crate::targets::shared::c_family::literal(v, self.elem);
        let value = if lanes == 1 { l } else { format!("{{{}}}", vec![l; lanes].join(", ")) };
        self.bind(vec![Expr::Lit(v); lanes], value)
    }

    /// A scalar in every one of `lanes` lanes.
    fn splat(&mut self, x: &V, lanes: usize) -> V {
        assert_eq!(x.lanes.len(), 1);
        // An initializer, not a compound literal (C++ has none).
        let value = format!("{{{}}}", vec![x.name.clone(); lanes].join(", "));
        self.bind(vec![x.lanes[0].clone(); lanes], value)
    }

    /// Components `first..first + lanes` (memory order) of parameter `param`.
    fn load(&mut self, param: usize, first: usize, lanes: usize) -> V {
        let name = format!("aether_v{}", self.n);
        self.n += 1;
        let p = &self.f.params[param].name;
        self.lines.push(format!("aether_item_{}x{lanes} {name};", self.t));
        let src = format!("(const char *)&{p} + {first}u * sizeof({})", self.c);
        let bytes = lanes * if self.t == "f64" { 8 } else { 4 };
        if bytes == 32 && self.gcc_halves && self.t == "f32" {
            self.lines.push(format!("aether_item_load32_gcc_halves_f32x8({name}, {src});"));
        } else if bytes == 32 {
            self.lines.push(format!("aether_item_load32_{}x{lanes}({name}, {src});", self.t));
        } else if bytes == 16 && self.t == "f32" && in_registers_param(self.f, param) {
            self.lines.push(format!("aether_item_load_halves_f32x4({name}, {src});"));
        } else {
            self.lines.push(format!("memcpy(&{name}, {src}, sizeof {name});"));
        }
        V { name, lanes: (first..first + lanes).map(|comp| Expr::Input { param, comp }).collect() }
    }

    /// Lane i is lane `pick[i]` of `a` followed by `b`.
    fn shuffle(&mut self, a: &V, b: &V, pick: &[usize]) -> V {
        let both: Vec<&Expr> = a.lanes.iter().chain(&b.lanes).collect();
        let lanes = pick.iter().map(|&i| both[i].clone()).collect();
        let idx: Vec<String> = pick.iter().map(|i| i.to_string()).collect();
        self.bind(lanes, format!("__builtin_shufflevector({}, {}, {})", a.name, b.name, idx.join(", ")))
    }

    /// Components `first..first + count` of parameter `param` as vectors of
    /// `lanes` lanes each.
    fn parts(&mut self, param: usize, first: usize, count: usize, lanes: usize) -> Vec<V> {
        (first..first + count).step_by(lanes).map(|c| self.load(param, c, lanes)).collect()
    }

    /// Whether a broadcast operand is loaded alone from memory (binary64
    /// with AVX: one load, where gcc spelled a broadcast from a register as a
    /// shuffle across the halves), rather than taken from a lane of a
    /// vector loaded whole. In 16 bytes every broadcast is a shuffle: a
    /// binary64 broadcast from memory is a load and a shuffle there too
    /// (SSE2 has no movddup), and clang merged such 8-byte loads into a
    /// 16-byte one across the two 16-byte stores of gcc's and its own
    /// callers, which waits for both to retire (quatd_mul's object: 12.7 ns
    /// per call, 7.9 with the scalar body).
    fn broadcasts_from_memory(&self) -> bool {
        self.width == Width::Avx && self.elem.bits == 64
    }

    /// Component `comp` of parameter `param` in every one of `lanes` lanes:
    /// loaded alone and broadcast, once per plan (a vector already built
    /// with those lanes is that value).
    fn broadcast(&mut self, param: usize, comp: usize, lanes: usize) -> V {
        let want = vec![Expr::Input { param, comp }; lanes];
        if let Some(v) = self.built.iter().find(|v| v.lanes == want) {
            return v.clone();
        }
        let x = self.load_scalar(param, comp);
        self.splat(&x, lanes)
    }

    /// The components `comps` of a parameter held in `parts` (its
    /// consecutive components, the same number in each): a part as it is,
    /// or one shuffle of one or two parts.
    fn gather(&mut self, parts: &[V], comps: &[usize]) -> V {
        let want: Vec<Expr> = comps.iter().map(|&c| parts[c / parts[0].lanes.len()].lanes[c % parts[0].lanes.len()].clone()).collect();
        if let Some(v) = self.built.iter().find(|v| v.lanes == want) {
            return v.clone();
        }
        let n = parts[0].lanes.len();
        let whole = comps[0] / n;
        if comps.len() == n && comps.iter().enumerate().all(|(i, &c)| c == whole * n + i) {
            return parts[whole].clone();
        }
        let mut from: Vec<usize> = comps.iter().map(|c| c / n).collect();
        from.sort_unstable();
        from.dedup();
        assert!(from.len() <= 2, "a gather from two parts at most");
        let (a, b) = (parts[from[0]].clone(), parts[*from.last().unwrap()].clone());
        let pick: Vec<usize> = comps.iter().map(|c| if c / n == from[0] { c % n } else { n + c % n }).collect();
        self.shuffle(&a, &b, &pick)
    }

    /// The transpose of `rows` (two or four vectors of as many lanes): lane
    /// i of vector j is lane j of row i, vector j in some order (the
    /// callers read each one's lanes). Rows are interleaved in pairs
    /// (x86's unpcklps and unpckhps, each within the 16-byte halves of a
    /// 32-byte vector as AVX's are), then, for four, the pairs' halves joined
    /// (movlhps and movhlps; AVX's vperm2f128).
    fn transpose(&mut self, rows: &[V]) -> Vec<V> {
        let n = rows.len();
        assert!(matches!(n, 2 | 4) && rows.iter().all(|r| r.lanes.len() == n), "a square of two or four");
        // The lanes of a 16-byte segment, within which x86's unpacks interleave.
        let seg = 128 / self.elem.bits as usize;
        assert!(seg <= n, "rows of whole 16-byte segments");
        let unpack = |high: bool| -> Vec<usize> {
            let half = if high { seg / 2..seg } else { 0..seg / 2 };
            (0..n / seg).flat_map(|g| half.clone().flat_map(move |i| [g * seg + i, n + g * seg + i])).collect()
        };
        let (lo, hi) = (unpack(false), unpack(true));
        let mut pairs = Vec::new();
        for pair in rows.chunks(2) {
            pairs.push(self.shuffle(&pair[0], &pair[1], &lo));
            pairs.push(self.shuffle(&pair[0], &pair[1], &hi));
        }
        if n == 2 {
            return pairs;
        }
        let (lo, hi): (Vec<usize>, Vec<usize>) = ((0..2).chain(4..6).collect(), (2..4).chain(6..8).collect());
        let mut out = Vec::new();
        for pick in [&lo, &hi] {
            for (a, b) in [(&pairs[0], &pairs[2]), (&pairs[1], &pairs[3])] {
                let (a, b) = (a.clone(), b.clone());
                out.push(self.shuffle(&a, &b, pick));
            }
        }
        out
    }

    /// A 4-lane vector in both halves of an 8-lane one. Read from memory
    /// (a matrix's row, or the header-only form's operand), it is spelled
    /// as a vector of its lanes: gcc 12 compiles that to one
    /// `vbroadcastf128` from memory (a load alone), where the shuffle
    /// written with `__builtin_shufflevector` became a 16-byte load and a
    /// `vperm2f128` on the one shuffle port (mat4f_mul's header-only loop
    /// in a scratch copy: 3.3 ns per item against 2.4 with the broadcast;
    /// clang emits the broadcast from either). Where the value arrives in
    /// registers (a four-element argument of the object), gcc moved the
    /// spelled lanes through general registers, and the shuffle stays
    /// (`aether_item_twice_halves_f32x4`).
    fn twice(&mut self, x: &V) -> V {
        assert!(x.lanes.len() == 4 && self.t == "f32", "a binary32 row of four lanes");
        let lanes = x.lanes.iter().chain(&x.lanes).cloned().collect();
        let in_registers = matches!(x.lanes[0], Expr::Input { param, .. } if in_registers_param(self.f, param));
        let spelling = if in_registers { "aether_item_twice_halves_f32x4" } else { "aether_item_twice_f32x4" };
        self.bind(lanes, format!("{spelling}({})", x.name))
    }

    fn op(&mut self, op: BinOp, a: &V, b: &V) -> V {
        assert_eq!(a.lanes.len(), b.lanes.len());
        let lanes = a.lanes.iter().zip(&b.lanes).map(|(x, y)| Expr::Bin(op, Box::new(x.clone()), Box::new(y.clone()))).collect();
        let value = match op {
            BinOp::Mul => format!("aether_item_product_{}x{}({}, {})", self.t, a.lanes.len(), a.name, b.name),
            BinOp::Add | BinOp::Sub | BinOp::Div => format!("{} {} {}", a.name, op.symbol(), b.name),
            _ => unreachable!("plans multiply, add, subtract and divide"),
        };
        self.bind(lanes, value)
    }

    /// Lane i is `s - x * y` where `negate[i]`, else `s + x * y`. IEEE 754
    /// defines s - p as s + (-p), and (-x) * y is -(x * y), so the bits are
    /// the same, zeros' signs included (a NaN's sign may differ, and the
    /// comparison policy lets any NaN match any NaN). Where the even lanes
    /// subtract and the odd ones add, it is x86's `addsubps` of `s` and the
    /// product; otherwise `s` plus the product of `x` with those lanes' sign
    /// bits flipped (an XOR off the product's chain: `x` is a broadcast, `y`
    /// a shuffle). Measured in a scratch loop of quatf_mul (best of 2000
    /// passes over 1024 items): 1.16 ns per item (gcc and clang) against 1.29
    /// / 1.30 with the flip on each product.
    fn add_product(&mut self, s: &V, x: &V, y: &V, negate: &[bool]) -> V {
        let n = negate.len();
        assert!(s.lanes.len() == n && x.lanes.len() == n && y.lanes.len() == n);
        let lanes = (0..n)
            .map(|i| {
                let p = Expr::Bin(BinOp::Mul, Box::new(x.lanes[i].clone()), Box::new(y.lanes[i].clone()));
                Expr::Bin(if negate[i] { BinOp::Sub } else { BinOp::Add }, Box::new(s.lanes[i].clone()), Box::new(p))
            })
            .collect();
        let (t, bits) = (self.t, if self.t == "f64" { 64 } else { 32 });
        if negate.iter().all(|x| !x) {
            let prod = self.op(BinOp::Mul, x, y);
            return self.op(BinOp::Add, s, &prod);
        }
        if self.width == Width::Avx && n == 4 && negate == [true, false, true, false] {
            return self.bind(lanes, format!("aether_item_addsub_{t}x4({}, aether_item_product_{t}x4({}, {}))", s.name, x.name, y.name));
        }
        let min = format!("INT{bits}_MIN");
        let mask: Vec<&str> = negate.iter().map(|&x| if x { min.as_str() } else { "0" }).collect();
        let name = format!("aether_v{}", self.n);
        self.n += 1;
        self.lines.push(format!("const aether_item_i{bits}x{n} {name} = {{{}}};", mask.join(", ")));
        self.bind(lanes, format!("{} + aether_item_product_{t}x{n}(aether_item_flip_{t}x{n}({}, {name}), {})", s.name, x.name, y.name))
    }

    /// Stores `v` as result components `first..`.
    fn store(&mut self, v: &V, first: usize) {
        let dst = format!("(char *)&{OUT} + {first}u * sizeof({})", self.c);
        if self.t == "f32" && v.lanes.len() == 4 && struct_bytes(&self.f.ret, &self.f.elem) == Some(16) {
            self.lines.push(format!("aether_item_store_halves_f32x4({dst}, {});", v.name));
        } else {
            self.lines.push(format!("memcpy({dst}, &{}, sizeof {});", v.name, v.name));
        }
        for (i, e) in v.lanes.iter().enumerate() {
            self.out[first + i] = Some(e.clone());
        }
    }
}

/// `e` with the operands of every `+` and `*` in one order (their printed
/// form's), so that trees equal up to commutation compare equal.
fn commuted(e: &Expr) -> Expr {
    match e {
        Expr::Bin(op, a, b) => {
            let (a, b) = (commuted(a), commuted(b));
            let swap = matches!(op, BinOp::Add | BinOp::Mul) && format!("{a:?}") > format!("{b:?}");
            if swap {
                Expr::Bin(*op, Box::new(b), Box::new(a))
            } else {
                Expr::Bin(*op, Box::new(a), Box::new(b))
            }
        }
        other => other.clone(),
    }
}

fn words(k: &Kind) -> usize {
    k.words()
}

/// mat4 * vec4 with AVX in binary32: the products along the rows, moved
/// into the sums' lanes by five shuffles: two that pair the rows' columns
/// (x86's `shufps`), two that copy each odd lane onto the even one below it
/// (`movshdup`), and one that gathers the four sums from the even lanes. An
/// earlier order (unpacks, pair swaps, a half extracted and an unpack: six)
/// measured 1.69 ns per item against this one's 1.36 with gcc and 1.23 with
/// clang (a scratch loop, best of 2000 passes over 1024 items).
fn mul_vec<'a>(f: &'a Function, elem: &'a ElemType) -> Plan<'a> {
    let mut p = Plan::new(f, elem, Width::Avx);
    let m01 = p.load(0, 0, 8);
    let m23 = p.load(0, 8, 8);
    let v = p.load(1, 0, 4);
    let vv = p.twice(&v);
    let p01 = p.op(BinOp::Mul, &m01, &vv);
    let p23 = p.op(BinOp::Mul, &m23, &vv);
    // Lanes (rows 0, 0, 2, 2 | rows 1, 1, 3, 3): columns 0 and 1 in a, 2 and 3 in b.
    let a = p.shuffle(&p01, &p23, &[0, 1, 8, 9, 4, 5, 12, 13]);
    let b = p.shuffle(&p01, &p23, &[2, 3, 10, 11, 6, 7, 14, 15]);
    // Each odd lane (column 1, column 3) copied onto the even lane below it.
    let a1 = p.shuffle(&a, &a, &[1, 1, 3, 3, 5, 5, 7, 7]);
    let b1 = p.shuffle(&b, &b, &[1, 1, 3, 3, 5, 5, 7, 7]);
    let s = p.op(BinOp::Add, &a, &a1);
    let s = p.op(BinOp::Add, &b, &s);
    let s = p.op(BinOp::Add, &b1, &s);
    // Rows 0, 1, 2 and 3 are the sums in lanes 0, 4, 2 and 6.
    let o = p.shuffle(&s, &s, &[0, 4, 2, 6]);
    p.store(&o, 0);
    p
}

/// mat4 * mat4: the result in vectors of the width's lanes (two rows of
/// binary32 with AVX; one row of binary64 with AVX, or of binary32 in 16
/// bytes; half a row of binary64 in 16 bytes), each the sum over k of a's
/// entry (r, k) broadcast times the same columns of b's row k, in the
/// contract's order. a's entries are broadcast by one shuffle each from
/// a's rows loaded whole (binary64 in 16 bytes: by halves), but with AVX in
/// binary64, where each is loaded alone ([`Plan::broadcasts_from_memory`]).
/// With AVX, gcc's loop over mat4d_mul's scalar body, pinned product by
/// product, took 21.8 ns per item through the object and 22.5 linked with
/// LTO, where gcc's inliner declined the body; with the form, see
/// docs/reports/performance-notes.md.
fn mat_mul<'a>(f: &'a Function, elem: &'a ElemType, width: Width) -> Plan<'a> {
    let mut p = Plan::new(f, elem, width);
    let n = p.wide();
    // b's row k as the result's vectors take it: in both halves of one
    // vector (8 lanes), whole (4), or by halves (2).
    let rows: Vec<Vec<V>> = (0..4)
        .map(|k| {
            if n == 8 {
                let row = p.load(1, 4 * k, 4);
                vec![p.twice(&row)]
            } else {
                (0..4 / n).map(|h| p.load(1, 4 * k + n * h, n)).collect()
            }
        })
        .collect();
    let from_memory = p.broadcasts_from_memory();
    // a's rows in this vector's lanes (its whole rows, or the two halves of its row), whose
    // lanes the broadcasts take.
    let mut a: Vec<V> = Vec::new();
    for first in (0..16).step_by(n) {
        let row_first = first / 4 * 4;
        if !from_memory && (n >= 4 || first == row_first) {
            a = p.parts(0, row_first, n.max(4), n);
        }
        let mut sum: Option<V> = None;
        for (k, row) in rows.iter().enumerate() {
            // Lane i: a's entry (the row of lane i, k).
            let ak = if from_memory {
                p.broadcast(0, row_first + k, n)
            } else {
                let comps: Vec<usize> = (0..n).map(|i| i / 4 * 4 + k).collect();
                p.gather(&a, &comps)
            };
            let prod = p.op(BinOp::Mul, &ak, &row[first % 4 / n]);
            sum = Some(match sum {
                None => prod,
                Some(s) => p.op(BinOp::Add, &prod, &s),
            });
        }
        p.store(&sum.unwrap(), first);
    }
    p
}

/// quat * quat (four components, stored w, x, y, z): the sum over k of a's
/// component k broadcast times b's components in the order term k of each
/// result takes them, each added or subtracted lane by lane; four lanes per
/// vector, or two (binary64 in 16 bytes: w and x, then y and z).
fn quat_mul<'a>(f: &'a Function, elem: &'a ElemType, width: Width) -> Option<Plan<'a>> {
    // Term k of result i is a[k] * b[order[k][i]], subtracted where
    // negate[k][i]: read from the function's trees (left-nested sums of four
    // products), so the signs and orders are the spec's alone.
    let mut order = [[0usize; 4]; 4];
    let mut negate = [[false; 4]; 4];
    for (i, out) in f.outputs.iter().enumerate().take(4) {
        let mut e = out;
        for k in (0..4).rev() {
            let (neg, prod) = match e {
                Expr::Bin(op @ (BinOp::Add | BinOp::Sub), rest, prod) if k > 0 => {
                    e = rest;
                    (*op == BinOp::Sub, &**prod)
                }
                prod if k == 0 => (false, prod),
                _ => return None,
            };
            let Expr::Bin(BinOp::Mul, x, y) = prod else { return None };
            let (Expr::Input { param: 0, comp: ka }, Expr::Input { param: 1, comp: kb }) = (&**x, &**y) else { return None };
            if *ka != k {
                return None;
            }
            order[k][i] = *kb;
            negate[k][i] = neg;
        }
    }
    let mut p = Plan::new(f, elem, width);
    let n = p.wide().min(4);
    // a's components are broadcast from a's lanes (binary32: a arrives in registers in the
    // object, two 8-byte halves on x86-64), but with AVX in binary64: a arrives in memory, and
    // each component is broadcast from there (a load, where gcc spelled the broadcast from a
    // register as a shuffle across AVX's halves: 2.1 ns per item against clang's 1.4).
    let a = if p.broadcasts_from_memory() { Vec::new() } else { p.parts(0, 0, 4, n) };
    let b = p.parts(1, 0, 4, n);
    for first in (0..4).step_by(n) {
        let mut sum: Option<V> = None;
        for k in 0..4 {
            let ak = if a.is_empty() { p.broadcast(0, k, n) } else { p.gather(&a, &vec![k; n]) };
            let bk = p.gather(&b, &order[k][first..first + n]);
            let negate = &negate[k][first..first + n];
            sum = Some(match sum {
                None if negate.iter().all(|x| !x) => p.op(BinOp::Mul, &ak, &bk),
                None => return None,
                Some(s) => p.add_product(&s, &ak, &bk, negate),
            });
        }
        p.store(&sum?, first);
    }
    Some(p)
}

/// mat4 * vec4 by rows (binary64 with AVX, binary32 in 16 bytes: one row
/// per vector; binary64 in 16 bytes: half a row): each row times the
/// vector, then the products transposed into the sums' lanes
/// ([`Plan::transpose`]: with AVX two unpacks and two half swaps per pair of
/// rows; SSE2's unpcklps, unpckhps, movlhps and movhlps, eight shuffles in
/// all) and summed in the contract's order.
fn mul_vec_rows<'a>(f: &'a Function, elem: &'a ElemType, width: Width) -> Plan<'a> {
    let mut p = Plan::new(f, elem, width);
    let n = p.wide().min(4);
    let v: Vec<V> = (0..4 / n).map(|h| p.load(1, n * h, n)).collect();
    let prods: Vec<Vec<V>> = (0..4)
        .map(|r| {
            (0..4 / n)
                .map(|h| {
                    let row = p.load(0, 4 * r + n * h, n);
                    p.op(BinOp::Mul, &row, &v[h])
                })
                .collect()
        })
        .collect();
    // A product's column (its matrix entry's), by which the transposed vectors are summed.
    let column = |v: &V| match &v.lanes[0] {
        Expr::Bin(BinOp::Mul, x, _) => match **x {
            Expr::Input { param: 0, comp } => comp % 4,
            _ => usize::MAX,
        },
        _ => usize::MAX,
    };
    for first in (0..4).step_by(n) {
        // Rows first.. (n of them): each column's products in one vector.
        let rows = &prods[first..first + n];
        let mut cols: Vec<V> = Vec::new();
        for h in 0..4 / n {
            let block: Vec<V> = rows.iter().map(|row| row[h].clone()).collect();
            cols.extend(p.transpose(&block));
        }
        cols.sort_by_key(column);
        let mut s = p.op(BinOp::Add, &cols[0], &cols[1]);
        for c in &cols[2..] {
            s = p.op(BinOp::Add, c, &s);
        }
        p.store(&s, first);
    }
    p
}

/// Tree `e` computed in scalars: each input loaded once, each subtree
/// computed once (a tree that repeats a subtree repeats its value, which
/// IEEE 754 rounds alike), and a subtree that is a lane of a vector already
/// built taken from that lane (one shuffle, where computing it again would
/// take its loads and operations). A temp is its tree, computed on first
/// use and checked to be that tree.
fn scalar(p: &mut Plan, e: &Expr) -> Option<V> {
    if let Some((_, v)) = p.memo.iter().find(|(k, _)| k == e) {
        return Some(v.clone());
    }
    let ce = commuted(e);
    let lane = match e {
        Expr::Bin(..) => p.built.iter().find_map(|v| v.lanes.iter().position(|x| commuted(x) == ce).map(|k| (v.name.clone(), k))),
        _ => None,
    };
    let v = match e {
        Expr::Bin(..) if lane.is_some() => {
            let (name, k) = lane?;
            p.bind(vec![e.clone()], format!("{name}[{k}]"))
        }
        Expr::Input { param, comp } => p.load_scalar(*param, *comp),
        Expr::Lit(x) => p.lit(*x, 1),
        Expr::Temp(i) => {
            if let Some(v) = p.temps.get(*i)?.clone() {
                return Some(v);
            }
            let tree = p.f.temps.get(*i)?.expr.clone();
            let v = scalar(p, &tree)?;
            if commuted(&v.lanes[0]) != commuted(&tree) {
                return None;
            }
            let v = V { name: v.name, lanes: vec![Expr::Temp(*i)] };
            p.temps[*i] = Some(v.clone());
            v
        }
        Expr::Bin(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div), a, b) => {
            let (a, b) = (scalar(p, a)?, scalar(p, b)?);
            p.op(*op, &a, &b)
        }
        _ => return None,
    };
    p.memo.push((e.clone(), v.clone()));
    Some(v)
}

/// The trees `trees` (one per lane) as one vector, built like the trees
/// (their operands of + and * in one order: [`commuted`]):
/// where every lane has the same operation, that operation on the vectors of
/// its operands; an input in every lane, one shuffle of `sources` (vectors of
/// inputs); a temp or a literal in every lane, its splat. Where some lanes
/// are `x * -1` and the others have x's shape, x in every lane, its product
/// with -1, and a blend of the two. `None` where the lanes differ otherwise.
fn lanes(p: &mut Plan, trees: &[Expr], sources: (&V, &V)) -> Option<V> {
    let n = trees.len();
    let negated = |e: &Expr| match e {
        Expr::Bin(BinOp::Mul, x, m) | Expr::Bin(BinOp::Mul, m, x) if **m == Expr::Lit(-1.0) => Some((**x).clone()),
        _ => None,
    };
    let shape = |e: &Expr| std::mem::discriminant(e);
    if trees.iter().all(|e| matches!(e, Expr::Input { .. })) {
        if let Some(v) = p.gather_by_columns(trees) {
            return Some(v);
        }
        let (a, b) = sources;
        let both: Vec<&Expr> = a.lanes.iter().chain(&b.lanes).collect();
        let pick: Vec<usize> = trees.iter().map(|e| both.iter().position(|x| *x == e)).collect::<Option<_>>()?;
        let b = if pick.iter().all(|&i| i < a.lanes.len()) { a } else { b };
        return Some(p.shuffle(a, b, &pick));
    }
    if let Some(Expr::Temp(i)) = trees.first() {
        if trees.iter().all(|e| *e == Expr::Temp(*i)) {
            let t = scalar(p, &Expr::Temp(*i))?;
            return Some(p.splat(&t, n));
        }
    }
    if let Some(Expr::Lit(x)) = trees.first() {
        if trees.iter().all(|e| *e == Expr::Lit(*x)) {
            return Some(p.lit(*x, n));
        }
    }
    let ops: Vec<Option<BinOp>> = trees.iter().map(|e| if let Expr::Bin(op, ..) = e { Some(*op) } else { None }).collect();
    if ops[0].is_some() && ops.iter().all(|o| *o == ops[0]) {
        let mut lefts: Vec<Expr> = trees.iter().map(|e| if let Expr::Bin(_, a, _) = e { (**a).clone() } else { unreachable!() }).collect();
        let mut rights: Vec<Expr> = trees.iter().map(|e| if let Expr::Bin(_, _, b) = e { (**b).clone() } else { unreachable!() }).collect();
        if ops[0] == Some(BinOp::Mul) {
            p.orient_by_columns(&mut lefts, &mut rights);
        }
        // A lane x * -1 among lanes of x's shape is the blend below, not this product.
        let mixed = trees.iter().any(|e| negated(e).is_some()) && trees.iter().any(|e| negated(e).is_none());
        if !mixed {
            let (a, b) = (lanes(p, &lefts, sources)?, lanes(p, &rights, sources)?);
            return Some(p.op(ops[0]?, &a, &b));
        }
    }
    let stripped: Vec<Expr> = trees.iter().map(|e| negated(e).unwrap_or_else(|| e.clone())).collect();
    if stripped.iter().any(|e| shape(e) != shape(&stripped[0])) || stripped == trees {
        return None;
    }
    let x = lanes(p, &stripped, sources)?;
    let minus = p.lit(-1.0, n);
    let neg = p.op(BinOp::Mul, &x, &minus);
    let pick: Vec<usize> = trees.iter().enumerate().map(|(i, e)| if negated(e).is_some() { n + i } else { i }).collect();
    Some(p.shuffle(&x, &neg, &pick))
}

/// The adjugate inverses of 3 x 3 and 4 x 4 binary32 matrices: each
/// component is `x * s`, s the function's one temp (the determinant's
/// reciprocal). The x of each whole group of eight components is one 8-lane
/// vector built from the trees ([`lanes`]) out of the matrix's first eight
/// entries and its next eight (4 x 4) or its ninth in every lane (3 x 3);
/// then s in scalars ([`scalar`]: the determinant takes its cofactors from
/// those lanes), the vectors' products with it, and a last component that
/// fills no group (3 x 3) in scalars. The 4 x 4 one first makes the matrix's
/// columns, column k in both halves of a vector (two interleaves, two half
/// swaps, four interleaves): in each half of a group, a cofactor operand is
/// one column's entries (the lanes' products oriented so:
/// [`Plan::orient_by_columns`]), so each gather is one shuffle within the
/// halves of a column, or of two columns' blend, where gathering from the
/// two halves of the matrix took shuffles across them (about 44 shuffles per
/// item with clang, 31 now; gcc 11.0 to 9.2 ns per item, clang 9.3 to 8.8,
/// side by side, glam 7.4).
fn adjugate<'a>(f: &'a Function, elem: &'a ElemType) -> Option<Plan<'a>> {
    let n = f.output_words();
    if f.temps.len() != 1 || !matches!(n, 9 | 16) {
        return None;
    }
    let mut p = Plan::new(f, elem, Width::Avx);
    p.gcc_halves = true;
    let first = p.load(0, 0, 8);
    let rest = if n == 16 {
        let rest = p.load(0, 8, 8);
        // The columns: rows 0 and 2 | 1 and 3 interleaved (u: columns 0 and 1, w: 2 and 3), their
        // halves swapped, and interleaved again: column k in both halves of vector k.
        let u = p.shuffle(&first, &rest, &[0, 8, 1, 9, 4, 12, 5, 13]);
        let w = p.shuffle(&first, &rest, &[2, 10, 3, 11, 6, 14, 7, 15]);
        for x in [u, w] {
            let swapped = p.shuffle(&x, &x, &[4, 5, 6, 7, 0, 1, 2, 3]);
            let lo = p.shuffle(&x, &swapped, &[0, 8, 1, 9, 4, 12, 5, 13]);
            let hi = p.shuffle(&x, &swapped, &[2, 10, 3, 11, 6, 14, 7, 15]);
            p.columns.extend([lo, hi]);
        }
        rest
    } else {
        let ninth = scalar(&mut p, &Expr::Input { param: 0, comp: 8 })?;
        p.splat(&ninth, 8)
    };
    // Each lane's + and * operands in one order (commuted), so that lanes
    // equal up to that order share a shape; then x * s split into x and s.
    let mut xs = Vec::new();
    for t in f.outputs.iter().take(n / 8 * 8).map(commuted) {
        let Expr::Bin(BinOp::Mul, a, b) = t else { return None };
        match (*a, *b) {
            (x, Expr::Temp(0)) | (Expr::Temp(0), x) => xs.push(x),
            _ => return None,
        }
    }
    let groups: Vec<V> = xs.chunks(8).map(|c| lanes(&mut p, c, (&first, &rest))).collect::<Option<_>>()?;
    let s = scalar(&mut p, &Expr::Temp(0))?;
    let s = p.splat(&s, 8);
    for (i, x) in groups.iter().enumerate() {
        let o = p.op(BinOp::Mul, x, &s);
        p.store(&o, 8 * i);
    }
    for i in n / 8 * 8..n {
        let last = scalar(&mut p, &f.outputs[i])?;
        p.store(&last, i);
    }
    Some(p)
}

/// The vector form of `f` for `width` (the lines under its macro), where a
/// plan computes its trees. The adjugates' plans are AVX's alone; the
/// others take the width's lanes.
pub fn form(model: &Model, f: &Function, width: Width) -> Option<Vec<String>> {
    let elem: &ElemType = model.spec.types.iter().find(|t| t.name == f.elem)?;
    let plan = if f.params.len() == 1 && elem.bits == 32 && f.params[0].kind == f.ret && !f.temps.is_empty() {
        if width != Width::Avx {
            return None;
        }
        adjugate(f, elem)?
    } else if !f.temps.is_empty() || f.params.len() != 2 {
        return None;
    } else {
        match (elem.bits, words(&f.params[0].kind), words(&f.params[1].kind), words(&f.ret)) {
            (32, 16, 4, 4) if width == Width::Avx => mul_vec(f, elem),
            (32 | 64, 16, 4, 4) => mul_vec_rows(f, elem, width),
            (32 | 64, 16, 16, 16) => mat_mul(f, elem, width),
            (32 | 64, 4, 4, 4) if f.params[0].kind == f.ret && f.params[1].kind == f.ret => quat_mul(f, elem, width)?,
            _ => return None,
        }
    };
    let same = plan.out.iter().zip(&f.outputs).all(|(got, want)| got.as_ref().map(commuted) == Some(commuted(want)));
    if !same {
        return None;
    }
    let ret = crate::targets::shared::c_family::kind_type(model, &f.ret, elem);
    let mut lines = vec![format!("{ret} {OUT};")];
    lines.extend(plan.lines);
    lines.push(format!("return {OUT};"));
    Some(lines)
}

/// Every form of `f`, by width, in the order the core tests their macros.
pub fn forms(model: &Model, f: &Function) -> Vec<(Width, Vec<String>)> {
    Width::ALL.iter().filter_map(|&w| form(model, f, w).map(|lines| (w, lines))).collect()
}

/// A function body with its vector forms first: `#if` the first width's
/// macro, its form, `#elif` the next's, ..., `#else`, the scalar body,
/// `#endif` (the scalar body alone where there is no form).
pub fn wrap(forms: Vec<(Width, Vec<String>)>, scalar: Vec<String>) -> Vec<String> {
    if forms.is_empty() {
        return scalar;
    }
    let mut lines = Vec::new();
    for (i, (width, form)) in forms.into_iter().enumerate() {
        lines.push(format!("#{} defined({})", if i == 0 { "if" } else { "elif" }, width.macro_name()));
        lines.extend(form);
    }
    lines.push("#else".into());
    lines.extend(scalar);
    lines.push("#endif".into());
    lines
}

/// The forms' file-scope C ([`prologue`]): which width is taken, the vector
/// types, the moves of a by-value argument, the product guard and the sign
/// flips; `{MACRO}` and `{MACRO_128}` stand for the macros' names. It ends
/// in the `#if` of the packing checks, which [`prologue`] prints and closes.
const PROLOGUE: &str = r#"
/* Without AVX (x86-64's baseline SSE2, i386 with SSE2, aarch64's NEON) the same forms in 16-byte
   vectors ({MACRO_128}, under clang and gcc 12 or later; AETHER_NO_ITEM_SHUFFLES
   turns it off): mat4f_mul one result row per vector, each row of b loaded whole times a's
   entries broadcast from a's row; mat4f_mul_vec the four row products, transposed by eight
   shuffles (unpcklps, unpckhps, movlhps, movhlps) into the lanes of the contract's three sums;
   quatf_mul each lane one chain, a subtracted product added with its broadcast operand's sign
   bits flipped (SSE2 has no addsub); the binary64 ones in two lanes. Each product is pinned in
   its register as the AVX forms' are ("+x" on x86; "+w" on aarch64, where -ffp-contract=fast
   otherwise fuses it into its sum with fmla: the corpus then differs in mat4f_mul, mat4d_mul,
   quatf_mul and quatd_mul). These builds ran the scalar bodies before; at x86-64's -O2, n = 1024
   (ns per item, gcc / clang): header-only mat4f_mul 31.1 / 6.2 before, 3.8 / 3.8 with the forms
   (cglm 3.8), quatf_mul 6.1 / 2.2 before, 1.4 / 1.3 (cglm 1.4), mat4f_mul_vec 2.6 / 3.3 before,
   1.5 / 1.5 (cglm's column-major product 1.0: four shuffles to the transpose's eight); the
   objects' mat4f_mul 26.1 / 19.5 before, 6.2 / 7.5, quatf_mul 5.1 / 3.1 before, 2.1 / 1.9. On
   aarch64 (instructions per item under qemu, header-only, gcc / clang) mat4f_mul 59 / 122
   before, 42 / 36, mat4f_mul_vec 43 / 38 before, 22 / 23. */
#if !defined({MACRO}) && !defined(AETHER_NO_ITEM_SHUFFLES) \
    && (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)) \
    && ((defined(__SSE2__) && (defined(__x86_64__) || defined(__i386__))) || defined(__aarch64__))
#  define {MACRO_128} 1
#endif
#if defined({MACRO}) || defined({MACRO_128})
typedef float aether_item_f32x4 __attribute__((vector_size(16)));
typedef int32_t aether_item_i32x4 __attribute__((vector_size(16)));
typedef double aether_item_f64x2 __attribute__((vector_size(16)));
typedef int64_t aether_item_i64x2 __attribute__((vector_size(16)));
typedef float aether_item_f32x2 __attribute__((vector_size(8)));
/* A struct of four binary32 elements passed or returned by value travels in two vector
   registers, 8 bytes in each (x86-64 System V). The object moves it by those halves, which both
   compilers then keep in registers (one vmovlhps in, one vpermilps out); moved whole, gcc
   stored the halves and loaded them as one 16-byte value, which waits for both stores to
   retire (quatf_mul 14.5 ns per call). Inlined (AETHER_INLINED), the form moves the caller's
   arrays whole, and so does every other target (aarch64 passes it in four registers, one
   element in each; i386 in memory). */
#  if defined(AETHER_INLINED) || !defined(__x86_64__)
#    define aether_item_load_halves_f32x4(v, p) memcpy(&(v), (p), sizeof (v))
#    define aether_item_store_halves_f32x4(p, v) memcpy((p), &(v), sizeof (v))
#  else
#    define aether_item_load_halves_f32x4(v, p) do { aether_item_f32x2 aether_lo_, aether_hi_; \
         memcpy(&aether_lo_, (p), 8); memcpy(&aether_hi_, (p) + 8, 8); \
         (v) = __builtin_shufflevector(aether_lo_, aether_hi_, 0, 1, 2, 3); } while (0)
#    define aether_item_store_halves_f32x4(p, v) do { \
         const aether_item_f32x2 aether_lo_ = __builtin_shufflevector((v), (v), 0, 1); \
         const aether_item_f32x2 aether_hi_ = __builtin_shufflevector((v), (v), 2, 3); \
         memcpy((p), &aether_lo_, 8); memcpy((p) + 8, &aether_hi_, 8); } while (0)
#  endif
/* Each product pinned in its register: AETHER_PIN_VECTOR with AVX, the same empty asm statement
   on a 16-byte vector elsewhere ("+x": an xmm register; "+w": a NEON register). */
#  if defined(AETHER_UNSAFE_ALLOW_CONTRACTION) || defined(AETHER_UNSAFE_UNGUARDED_VECTOR_PRODUCTS) \
      || defined(AETHER_UNSAFE_UNGUARDED_ITEM_PRODUCTS)
#    define aether_item_pin(type, x) (x)
#  elif defined(AETHER_PIN_VECTOR)
#    define aether_item_pin(type, x) AETHER_PIN_VECTOR(type, x)
#  elif defined(__aarch64__)
#    define aether_item_pin(type, x) \
         __extension__ ({ type aether_pinned_ = (x); __asm__("" : "+w"(aether_pinned_)); aether_pinned_; })
#  else
#    define aether_item_pin(type, x) \
         __extension__ ({ type aether_pinned_ = (x); __asm__("" : "+x"(aether_pinned_)); aether_pinned_; })
#  endif
#  define aether_item_product_f32x4(a, b) aether_item_pin(aether_item_f32x4, (a) * (b))
#  define aether_item_product_f64x2(a, b) aether_item_pin(aether_item_f64x2, (a) * (b))
/* x with the sign bits of the lanes set in sign flipped. */
#  define aether_item_flip_f32x4(x, sign) ((aether_item_f32x4)((aether_item_i32x4)(x) ^ (sign)))
#  define aether_item_flip_f64x2(x, sign) ((aether_item_f64x2)((aether_item_i64x2)(x) ^ (sign)))
#endif
#if defined({MACRO})
typedef float aether_item_f32x8 __attribute__((vector_size(32)));
typedef int32_t aether_item_i32x8 __attribute__((vector_size(32)));
typedef double aether_item_f64x4 __attribute__((vector_size(32)));
typedef int64_t aether_item_i64x4 __attribute__((vector_size(32)));
/* A 32-byte load of a by-value argument: gcc's callers copy one 16 bytes at a time, and a
   32-byte load of two such stores waits for them to retire (no store forwarding): gcc's
   object loads the halves (mat4f_mul 12.2 ns per call against 4.6). clang's callers copy
   32 bytes at a time, and the header-only form reads the caller's own arrays. */
#  define aether_item_load_by16_f32x8(v, p) do { aether_item_f32x4 aether_lo_, aether_hi_; \
       memcpy(&aether_lo_, (p), 16); memcpy(&aether_hi_, (p) + 16, 16); \
       (v) = __builtin_shufflevector(aether_lo_, aether_hi_, 0, 1, 2, 3, 4, 5, 6, 7); } while (0)
#  define aether_item_load_by16_f64x4(v, p) do { aether_item_f64x2 aether_lo_, aether_hi_; \
       memcpy(&aether_lo_, (p), 16); memcpy(&aether_hi_, (p) + 16, 16); \
       (v) = __builtin_shufflevector(aether_lo_, aether_hi_, 0, 1, 2, 3); } while (0)
#  if defined(AETHER_ITEM_COPIES_BY_16_BYTES)
#    define aether_item_load32_f32x8(v, p) aether_item_load_by16_f32x8(v, p)
#    define aether_item_load32_f64x4(v, p) aether_item_load_by16_f64x4(v, p)
#  else
#    define aether_item_load32_f32x8(v, p) memcpy(&(v), (p), sizeof (v))
#    define aether_item_load32_f64x4(v, p) memcpy(&(v), (p), sizeof (v))
#  endif
/* The adjugates' forms load the matrix by 16-byte halves under gcc, header-only too: loaded
   whole, gcc's header-only loops took 10.3 ns per item (mat3f) and 27 (mat4f) against 3.1 and
   11.8 by halves; the caller's copy of the by-value argument, 16 bytes at a time, is what a
   whole load waits for. (mat4f_mul's form measured the other way: 3.2 whole, 3.7 by halves.)
   clang reads them whole. */
#  if defined(__clang__)
#    define aether_item_load32_gcc_halves_f32x8(v, p) memcpy(&(v), (p), sizeof (v))
#  else
#    define aether_item_load32_gcc_halves_f32x8(v, p) aether_item_load_by16_f32x8(v, p)
#  endif
/* A row of four binary32 lanes in both halves of an 8-lane vector, as an initializer of its
   lanes: from memory gcc loads it with one vbroadcastf128, where the same copy written as a
   shuffle took a 16-byte load and a vperm2f128 (c_item.rs, `twice`). The object's vec4f
   argument arrives in two registers (above), and there the shuffle stays. */
#  define aether_item_twice_f32x4(v) {(v)[0], (v)[1], (v)[2], (v)[3], (v)[0], (v)[1], (v)[2], (v)[3]}
#  if defined(AETHER_INLINED) || !defined(__x86_64__)
#    define aether_item_twice_halves_f32x4(v) aether_item_twice_f32x4(v)
#  else
#    define aether_item_twice_halves_f32x4(v) __builtin_shufflevector((v), (v), 0, 1, 2, 3, 0, 1, 2, 3)
#  endif
#  define aether_item_product_f32x8(a, b) aether_item_pin(aether_item_f32x8, (a) * (b))
#  define aether_item_product_f64x4(a, b) aether_item_pin(aether_item_f64x4, (a) * (b))
#  define aether_item_product_f32x1(a, b) aether_item_pin(float, (a) * (b))
/* s - p in the even lanes and s + p in the odd ones (x86's addsubps and addsubpd: AVX has
   them). */
#  define aether_item_flip_f64x4(x, sign) ((aether_item_f64x4)((aether_item_i64x4)(x) ^ (sign)))
#  define aether_item_addsub_f32x4(s, p) ((aether_item_f32x4)__builtin_ia32_addsubps((s), (p)))
#  define aether_item_addsub_f64x4(s, p) ((aether_item_f64x4)__builtin_ia32_addsubpd256((s), (p)))
#endif
#if defined({MACRO}) || defined({MACRO_128})
"#;

/// The file-scope lines of the forms: their vector types, the guard and the
/// packing they rely on (each shape's components side by side).
pub fn prologue(model: &Model, lowered: &[Function]) -> Vec<String> {
    let mut lines: Vec<String> = PROLOGUE.lines().map(|l| l.replace("{MACRO}", MACRO).replace("{MACRO_128}", MACRO_128)).collect();
    lines.retain(|l| !l.is_empty());
    let mut packed: Vec<String> = Vec::new();
    for f in lowered.iter().filter(|f| !forms(model, f).is_empty()) {
        let Some(t) = model.spec.types.iter().find(|t| t.name == f.elem) else { continue };
        for k in f.params.iter().map(|p| &p.kind).chain(std::iter::once(&f.ret)) {
            if let Kind::Shape(s) = k {
                let c = crate::targets::shared::c_family::type_name(model, &s.name, t);
                let line = format!("typedef char {c}_packed_for_item_forms[sizeof({c}) == {}u * sizeof({}) ? 1 : -1];", s.len(), t.c_type);
                if !packed.contains(&line) {
                    packed.push(line);
                }
            }
        }
    }
    lines.extend(packed);
    lines.push("#endif".into());
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> Model {
        crate::load(&crate::default_root()).expect("the spec loads")
    }

    /// The functions with a form at both widths, in the core's order.
    const PRODUCTS: [&str; 6] =
        ["aether_quatf_mul", "aether_quatd_mul", "aether_mat4f_mul_vec", "aether_mat4d_mul_vec", "aether_mat4f_mul", "aether_mat4d_mul"];
    /// The functions with an AVX form alone.
    const ADJUGATES: [&str; 2] = ["aether_mat3f_inverse_adjugate", "aether_mat4f_inverse_adjugate"];

    #[test]
    fn the_4x4_products_the_quaternion_product_and_the_adjugates_and_only_they_have_a_form() {
        let m = model();
        let with = |w: Width| -> Vec<String> { m.lowered().iter().filter(|f| form(&m, f, w).is_some()).map(|f| m.c_name(f)).collect() };
        assert_eq!(with(Width::Avx), PRODUCTS.iter().chain(&ADJUGATES).copied().collect::<Vec<_>>());
        assert_eq!(with(Width::Bytes16), PRODUCTS, "the adjugates' plans are AVX's alone");
    }

    /// The adjugate's form is built from its trees, so a changed tree gets
    /// a form that computes the changed tree (the symbolic check in [`form`]
    /// says so) and differs from the spec's; a product's operands swapped
    /// (IEEE 754 rounds both alike) gives the same form; a lane whose
    /// shape differs from the others' gets none.
    #[test]
    fn an_adjugate_form_follows_its_trees() {
        let m = model();
        let lowered = m.lowered();
        let f = lowered.iter().find(|f| m.c_name(f) == "aether_mat3f_inverse_adjugate").unwrap();
        let bin = |op: BinOp, a: &Expr, b: &Expr| Expr::Bin(op, Box::new(a.clone()), Box::new(b.clone()));
        let with_out = |i: usize, e: Expr| {
            let mut g = f.clone();
            g.outputs[i] = e;
            form(&m, &g, Width::Avx)
        };
        let own = form(&m, f, Width::Avx).expect("its own trees have a form");
        // out[0] = (p - q) * s and out[1] = ((p - q) * -1) * s.
        let Expr::Bin(BinOp::Mul, cof0, s0) = &f.outputs[0] else { panic!("out[0] is no product") };
        let Expr::Bin(BinOp::Sub, p, q) = &**cof0 else { panic!("out[0]'s cofactor is no difference") };
        assert_eq!(with_out(0, bin(BinOp::Mul, s0, cof0)).as_ref(), Some(&own), "the product's operands swapped");
        for (what, e) in [
            ("the cofactor's subtraction swapped", bin(BinOp::Mul, &bin(BinOp::Sub, q, p), s0)),
            ("a sign on an even component", bin(BinOp::Mul, &bin(BinOp::Mul, cof0, &Expr::Lit(-1.0)), s0)),
        ] {
            let changed = with_out(0, e).unwrap_or_else(|| panic!("{what}: a form"));
            assert_ne!(changed, own, "{what}: another form");
        }
        assert!(with_out(2, bin(BinOp::Add, &f.outputs[2], s0)).is_none(), "a lane of another shape");
        let Expr::Bin(BinOp::Div, one, det) = &f.temps[0].expr else { panic!("s is no quotient") };
        let mut g = f.clone();
        g.temps[0].expr = bin(BinOp::Div, one, &Expr::Call(crate::model::Builtin::Sqrt, vec![(**det).clone()]));
        assert!(form(&m, &g, Width::Avx).is_none(), "a temp the scalar path does not compute");
    }

    /// The 4 x 4 adjugate's gathers take each half of their eight lanes from
    /// one column, held in both halves of a vector: every shuffle stays
    /// within its 16-byte halves but the two that swap the halves while the
    /// columns are made, and the operands of a product are exchanged lane by
    /// lane where that lets them (the form stays the trees', which `form`
    /// checks).
    #[test]
    fn the_4x4_adjugate_gathers_within_halves_from_its_columns() {
        let m = model();
        let lowered = m.lowered();
        let f = lowered.iter().find(|f| m.c_name(f) == "aether_mat4f_inverse_adjugate").unwrap();
        let lines = form(&m, f, Width::Avx).expect("a form");
        let (mut within, mut across) = (0, 0);
        for l in &lines {
            let Some(at) = l.find("__builtin_shufflevector(") else { continue };
            let args: Vec<&str> = l[at + 24..l.rfind(')').unwrap()].split(", ").collect();
            let picks: Vec<usize> = args[2..].iter().map(|x| x.trim().parse().unwrap()).collect();
            if picks.len() != 8 {
                continue;
            }
            if picks.iter().enumerate().all(|(i, &k)| k % 8 / 4 == i / 4) {
                within += 1;
            } else {
                across += 1;
            }
        }
        assert_eq!(across, 2, "the two half swaps alone cross the halves");
        assert!(within >= 20, "{within} shuffles within the halves");
    }

    /// The symbolic check is what keeps the order the tree's: a tree the
    /// plan does not compute (the same products summed pairwise, or one
    /// product's operand from another row) gets no form; the same tree with
    /// the operands of a sum swapped (IEEE 754 rounds both alike) keeps it.
    #[test]
    fn a_tree_the_plan_does_not_compute_gets_no_form() {
        let m = model();
        let lowered = m.lowered();
        let names = ["aether_mat4f_mul_vec", "aether_mat4d_mul_vec", "aether_mat4f_mul", "aether_mat4d_mul"];
        for (w, name) in Width::ALL.iter().flat_map(|w| names.iter().map(move |n| (*w, *n))) {
            let f = lowered.iter().find(|f| m.c_name(f) == name).unwrap();
            let Expr::Bin(BinOp::Add, p3, rest) = &f.outputs[1] else { panic!("{name}: out[1] is no sum") };
            let Expr::Bin(BinOp::Add, p2, rest) = &**rest else { panic!("{name}: out[1] is no right-nested sum") };
            let Expr::Bin(BinOp::Add, p1, p0) = &**rest else { panic!("{name}: out[1] is no right-nested sum") };
            let add = |a: &Expr, b: &Expr| Expr::Bin(BinOp::Add, Box::new(a.clone()), Box::new(b.clone()));
            let with = |e: Expr| {
                let mut g = f.clone();
                g.outputs[1] = e;
                form(&m, &g, w).is_some()
            };
            assert!(with(f.outputs[1].clone()), "{name} {w:?}: its own tree");
            assert!(with(add(&add(p2, &add(p0, p1)), p3)), "{name} {w:?}: operands swapped");
            assert!(!with(add(&add(p3, p2), &add(p1, p0))), "{name} {w:?}: summed pairwise");
            assert!(!with(add(p3, &add(p1, &add(p2, p0)))), "{name} {w:?}: another order");
            assert!(!with(add(p3, &add(p2, &add(p1, &f.outputs[0].clone())))), "{name} {w:?}: another row's term");
        }
    }

    /// The quaternion plan reads its signs and orders from the tree, so a
    /// tree with one term's sign flipped gets a form that flips that lane's
    /// sign too (its lanes are that tree, the symbolic check says), and a
    /// tree whose terms are not in the order of a's components gets none.
    #[test]
    fn a_quaternion_product_form_follows_its_signs_and_drops_another_order() {
        let m = model();
        let lowered = m.lowered();
        for (w, name) in Width::ALL.iter().flat_map(|w| ["aether_quatf_mul", "aether_quatd_mul"].map(move |n| (*w, n))) {
            let f = lowered.iter().find(|f| m.c_name(f) == name).unwrap();
            let Expr::Bin(last, rest, p3) = &f.outputs[2] else { panic!("out.y is no sum") };
            let Expr::Bin(mid, rest2, p2) = &**rest else { panic!("out.y is no left-nested sum") };
            let flip = |op: &BinOp| if *op == BinOp::Add { BinOp::Sub } else { BinOp::Add };
            let with = |e: Expr| {
                let mut g = f.clone();
                g.outputs[2] = e;
                form(&m, &g, w)
            };
            let bin = |op: BinOp, a: &Expr, b: &Expr| Expr::Bin(op, Box::new(a.clone()), Box::new(b.clone()));
            let own = with(f.outputs[2].clone()).expect("its own tree has a form");
            let flipped = with(bin(flip(last), rest, p3)).expect("a flipped sign still has a form");
            let masks = |lines: &[String]| lines.iter().filter(|l| l.contains("_MIN")).cloned().collect::<Vec<_>>();
            assert_ne!(masks(&own), masks(&flipped), "{name} {w:?}: the flipped sign is in the form's masks");
            assert!(with(bin(*last, &bin(*mid, rest2, p3), p2)).is_none(), "{name} {w:?}: the last two terms swapped");
            // SSE2 has no addsub: the 16-byte forms flip signs alone.
            assert_eq!(own.iter().any(|l| l.contains("_addsub_")), w == Width::Avx, "{name} {w:?}: addsub");
        }
    }

    #[test]
    fn the_core_prints_each_form_under_its_macro_with_the_scalar_body_after_it() {
        let m = model();
        let lowered = m.lowered();
        let (_, c) = crate::targets::c::render_core(&m, &lowered, "", &[]).expect("the core renders");
        for &name in PRODUCTS.iter().chain(&ADJUGATES) {
            let at = c.find(&format!(" {name}(")).unwrap_or_else(|| panic!("{name} is printed"));
            let body = &c[at..at + c[at..].find("\n}\n").unwrap()];
            let adjugate = name.contains("adjugate");
            let (open, elif, other, close) = (
                body.find(&format!("#if defined({MACRO})")),
                body.find(&format!("#elif defined({MACRO_128})")),
                body.find("#else"),
                body.find("#endif"),
            );
            assert!(open.is_some() && open < other && other < close, "{name}: #if, #else, #endif in order");
            assert_eq!(elif.is_none(), adjugate, "{name}: a 16-byte form but for the adjugates");
            assert!(elif.is_none() || (open < elif && elif < other), "{name}: the 16-byte form between");
            assert_eq!(
                body.matches("return aether_out;").count(),
                if adjugate { 2 } else { 3 },
                "{name}: each form and the scalar body return"
            );
            let avx = &body[open.unwrap()..elif.or(other).unwrap()];
            let b16 = elif.map_or("", |e| &body[e..other.unwrap()]);
            let products = |form: &str| form.matches("aether_item_product_f").count();
            let (in_avx, in_b16) = match name {
                "aether_quatf_mul" => (4, 4),
                "aether_quatd_mul" => (4, 8),
                "aether_mat4d_mul_vec" => (4, 8),
                "aether_mat4f_mul_vec" => (2, 4),
                // Four 8-lane products (two per cofactor, its sign, the reciprocal), three
                // scalar ones for the determinant (its cofactors are lanes of the vector's)
                // and three for the last component.
                "aether_mat3f_inverse_adjugate" => (10, 0),
                // Per group of eight: nine products per 3 x 3 cofactor and its sign; the
                // two groups' products with the reciprocal; the determinant's four.
                "aether_mat4f_inverse_adjugate" => (26, 0),
                "aether_mat4f_mul" => (8, 16),
                "aether_mat4d_mul" => (16, 32),
                _ => unreachable!(),
            };
            assert_eq!((products(avx), products(b16)), (in_avx, in_b16), "{name}: every product guarded");
            // A struct of four binary32 elements in registers (quatf_mul's
            // arguments and result, mat4f_mul_vec's vector and result) moves by
            // its 8-byte halves; what arrives in memory (the matrices' rows,
            // mat4d_mul_vec's vec4d, quatd_mul's quaternions) is read whole.
            let (loads, stores) = match name {
                "aether_quatf_mul" => (2, 1),
                "aether_mat4f_mul_vec" => (1, 1),
                _ => (0, 0),
            };
            for form in [avx, b16].into_iter().filter(|f| !f.is_empty()) {
                assert_eq!(form.matches("aether_item_load_halves_f32x4(").count(), loads, "{name}: loads by halves");
                assert_eq!(form.matches("aether_item_store_halves_f32x4(").count(), stores, "{name}: stores by halves");
            }
            // A row copied into both halves of an 8-lane vector is spelled as its lanes where
            // it comes from memory (gcc loads it with vbroadcastf128; as a shuffle, gcc spent a
            // vperm2f128 on it), by the macro where it may arrive in registers.
            let (spelled, by_macro) = match name {
                "aether_mat4f_mul" => (4, 0),
                "aether_mat4f_mul_vec" => (0, 1),
                _ => (0, 0),
            };
            assert_eq!(avx.matches("aether_item_twice_f32x4(").count(), spelled, "{name}: rows spelled into both halves");
            assert_eq!(avx.matches("aether_item_twice_halves_f32x4(").count(), by_macro, "{name}: the in-registers copy");
            assert!(!avx.contains(", 0, 1, 2, 3, 0, 1, 2, 3)"), "{name}: no shuffle copies a row into both halves");
            // The 16-byte forms: no 32-byte vector, no AVX instruction.
            assert!(!b16.contains("x8") && !b16.contains("f64x4") && !b16.contains("_addsub_"), "{name}: 16 bytes");
        }
        assert!(
            c.contains("#if defined(AETHER_HEADER_ONLY) || defined(AETHER_LTO)\n#  define AETHER_INLINED 1"),
            "AETHER_LTO lays the object out as the header-only form"
        );
        assert!(c.contains("typedef char aether_mat4f_packed_for_item_forms["), "the packing the forms read is checked");
    }

    /// The 16-byte forms' shapes: mat4f_mul_vec transposes its four row
    /// products by eight shuffles (unpacks, then the pairs' halves joined:
    /// SSE2's unpcklps, unpckhps, movlhps, movhlps); mat4f_mul broadcasts
    /// a's entries by one shuffle each from a's rows; the binary64 forms
    /// load nothing alone (clang merged such loads across its callers'
    /// 16-byte copies); and the AVX forms are printed as before (their
    /// macros' lines end where the 16-byte forms begin).
    #[test]
    fn the_16_byte_forms_transpose_by_eight_shuffles_and_broadcast_by_lanes() {
        let m = model();
        let lowered = m.lowered();
        let lines = |name: &str| form(&m, lowered.iter().find(|f| m.c_name(f) == name).unwrap(), Width::Bytes16).expect("a form");
        let shuffles = |lines: &[String]| lines.iter().filter(|l| l.contains("__builtin_shufflevector(")).count();
        let mul_vec = lines("aether_mat4f_mul_vec");
        assert_eq!(shuffles(&mul_vec), 8, "the transpose");
        for pick in ["0, 4, 1, 5)", "2, 6, 3, 7)", "0, 1, 4, 5)", "2, 3, 6, 7)"] {
            assert_eq!(mul_vec.iter().filter(|l| l.ends_with(pick) || l.ends_with(&format!("{pick};"))).count(), 2, "{pick}");
        }
        let mat_mul = lines("aether_mat4f_mul");
        assert_eq!(shuffles(&mat_mul), 16, "one broadcast per product");
        for name in ["aether_quatd_mul", "aether_mat4d_mul", "aether_mat4d_mul_vec"] {
            assert!(!lines(name).iter().any(|l| l.starts_with("double ")), "{name}: no binary64 loaded alone");
        }
        let prologue = prologue(&m, &lowered).join("\n");
        assert!(prologue.contains(&format!("#if !defined({MACRO}) && !defined(AETHER_NO_ITEM_SHUFFLES)")), "taken where AVX's are not");
        assert!(
            prologue.contains("__asm__(\"\" : \"+w\"(aether_pinned_))") && prologue.contains("\"+x\"(aether_pinned_)"),
            "pinned on both"
        );
        let unguarded = prologue.find("defined(AETHER_UNSAFE_UNGUARDED_ITEM_PRODUCTS)").expect("the negative control");
        assert!(
            prologue[unguarded..].starts_with("defined(AETHER_UNSAFE_UNGUARDED_ITEM_PRODUCTS)\n#    define aether_item_pin(type, x) (x)")
        );
    }
}
