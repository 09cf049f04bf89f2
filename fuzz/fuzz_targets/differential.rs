//! Differential fuzzing: the C core (as `aether-tests` builds and binds it)
//! against the Rust reference, under the comparison policy.
//!
//! Input layout (every read past the end gives zero bytes, so any input is a
//! valid one):
//!
//! | bytes | meaning |
//! |-------|---------|
//! | 2     | the callable: little-endian u16 modulo the number of callables (functions, then kernels, in spec order) |
//! | 1     | the word style: one style for every float word, or (mixed) one kind byte before each float word |
//! | 1     | flags: derived parameters, a real factorisation for `lu_solve` / `cholesky_solve`, symmetric matrices |
//! | ...   | the callable's words (below) |
//!
//! * A function takes exactly its n_in float words; a function with derived
//!   parameters (`s = a + b`) gets them computed unless flags & 3 == 0.
//! * `butterfly` (`reduce32`): the lane header below, nothing else.
//! * `lanes_*`: the lane header, `first` (one byte, 0..=255), a length (u16
//!   modulo 1 + 256/arrays, and at most what the remaining bytes hold), then
//!   the arrays' words.
//! * `*_array`: a length as above (cap 300/arrays), then the arrays' words.
//! * `plane_add`: S = 1 + byte % 8, a record count (at most 48, and what the
//!   remaining bytes hold), each record one byte (its element, modulo S)
//!   then K float words.
//! * `plane_resolve`: a length (at most 128), then n value and n companion
//!   words.
//! * linear algebra: single form one problem; many-lane form byte % 7
//!   problems. Matrices are n² words (mirrored to be symmetric when flags
//!   bit 3 is set); `lu_solve` pivots are `k + 1 + byte % (n - k)` (valid), or
//!   with flags bit 2 the LU and pivots of the reference's own `lu` of the
//!   matrix; `cholesky_solve` with flags bit 4 gets the reference's
//!   `cholesky` of the matrix.
//!
//! The lane header: a mode byte; mode 0 all +0 pairs, mode 1 every pair from
//! the bytes, mode 2 `byte % 8` pairs, each a lane byte (modulo the lane
//! count) and two words, the rest +0.
//!
//! A mismatch panics with the function's C name and the input and both
//! outputs in hex; libFuzzer saves the input under `artifacts/differential/`.

#![no_main]

use aether_generator::interp;
use aether_generator::model::{Callable, Function, KernelKind, Model};
use aether_generator::rng;
use aether_generator::spec::Routine;
use aether_reference::flat::FlatFn;
use aether_tests::{hex, policy, width, CFunction};
use libfuzzer_sys::fuzz_target;

/// How a callable's input words are drawn.
#[derive(Clone, Copy)]
enum Shape {
    Fixed { function: &'static Function, n_in: usize },
    Butterfly,
    Lanes { arrays: usize },
    Array { arrays: usize },
    Plane { width: usize },
    Resolve,
    Linalg { routine: Routine, n: usize, many: bool, lu: Option<FlatFn>, cholesky: Option<FlatFn> },
}

struct Target {
    name: String,
    c: CFunction,
    reference: FlatFn,
    bits: u32,
    is_float: bool,
    either_zero: bool,
    shape: Shape,
}

struct Table {
    lanes: usize,
    targets: Vec<Target>,
}

fn table() -> Table {
    let model: &'static Model = Box::leak(Box::new(aether_tests::model()));
    let fns = aether_tests::functions();
    let lanes = model.spec.reduction.as_ref().map_or(0, |r| r.lanes);
    let mut targets = Vec::new();
    for c in model.callables() {
        let name = c.c_name(model);
        let cf = *fns.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("{name}: not linked"));
        let reference = aether_reference::flat::lookup(c.family(), c.shape(), c.elem())
            .unwrap_or_else(|| panic!("{name}: no reference for {}/{}/{}", c.family(), c.shape(), c.elem()));
        let shape = match c {
            Callable::Function(f) => Shape::Fixed { function: f, n_in: f.input_words() },
            Callable::Kernel(k) => match &k.kind {
                KernelKind::Butterfly => Shape::Butterfly,
                KernelKind::Lanes { arrays, .. } => Shape::Lanes { arrays: arrays.len() },
                KernelKind::Array { lanes: lk } => {
                    let arrays = match model.kernels.iter().find(|x| &x.name == lk && x.elem == k.elem).map(|x| &x.kind) {
                        Some(KernelKind::Lanes { arrays, .. }) => arrays.len(),
                        _ => panic!("{name}: no lanes kernel `{lk}`"),
                    };
                    Shape::Array { arrays }
                }
                KernelKind::Plane { width } => Shape::Plane { width: *width },
                KernelKind::Resolve => Shape::Resolve,
                KernelKind::Linalg { routine, n, many } => Shape::Linalg {
                    routine: *routine,
                    n: *n,
                    many: *many,
                    lu: aether_reference::flat::lookup("lu", &k.shape, &k.elem),
                    cholesky: aether_reference::flat::lookup("cholesky", &k.shape, &k.elem),
                },
            },
        };
        targets.push(Target { name, c: cf, reference, bits: width(c.elem()), is_float: c.is_float(), either_zero: c.either_zero(), shape });
    }
    let kernels = targets.iter().filter(|t| !matches!(t.shape, Shape::Fixed { .. })).count();
    eprintln!("aether differential: {} callables ({kernels} kernels)", targets.len());
    Table { lanes, targets }
}

thread_local! {
    // CFunction holds a raw pointer (not Sync); libFuzzer calls the target
    // from one thread.
    static TABLE: Table = table();
}

/// The fuzzer's bytes, read front to back; zeros past the end.
struct Src<'a> {
    d: &'a [u8],
    at: usize,
}

impl Src<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.d.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }
    fn u16(&mut self) -> usize {
        usize::from(self.byte()) | usize::from(self.byte()) << 8
    }
    fn raw(&mut self, bits: u32) -> u64 {
        (0..bits / 8).fold(0u64, |w, i| w | u64::from(self.byte()) << (8 * i))
    }
    fn left(&self) -> usize {
        self.d.len().saturating_sub(self.at)
    }
}

/// Kinds of float word; `MIXED` styles read one kind byte per word.
const KINDS: u8 = 9;

/// Draws float words of one input.
struct Words<'a, 'b> {
    src: &'b mut Src<'a>,
    bits: u32,
    style: u8,
    /// The float words drawn so far (for exact negations and copies).
    seen: Vec<u64>,
    specials: Vec<u64>,
}

impl Words<'_, '_> {
    fn mixed(&self) -> bool {
        self.style >= KINDS
    }
    /// Bytes one float word takes.
    fn word_bytes(&self) -> usize {
        (self.bits / 8) as usize + usize::from(self.mixed())
    }
    fn word(&mut self) -> u64 {
        let kind = if self.mixed() { self.src.byte() % KINDS } else { self.style };
        let r = self.src.raw(self.bits);
        let bits = self.bits;
        let (mb, eb) = if bits == 32 { (23u32, 8u32) } else { (52, 11) };
        let bias = (1u64 << (eb - 1)) - 1;
        let sign_bit = 1u64 << (bits - 1);
        let sign = r & sign_bit;
        let mant = r & ((1u64 << mb) - 1);
        let e = (r >> mb) & ((1u64 << eb) - 1);
        let w = match kind {
            // Any bit pattern.
            0 => r,
            // Magnitudes in [2^-4, 2^4).
            1 => sign | ((bias - 4 + e % 8) << mb) | mant,
            // Any finite exponent, subnormals included.
            2 => sign | ((e % ((1 << eb) - 1)) << mb) | mant,
            3 => self.specials[(r % self.specials.len() as u64) as usize],
            4 => sign,
            // Small whole numbers.
            5 => {
                let v = (r % 17) as f64 - 8.0;
                if bits == 32 {
                    u64::from((v as f32).to_bits())
                } else {
                    v.to_bits()
                }
            }
            // Large values (2^20.. for f32, 2^50.. for f64) whose sums lose
            // the small terms but for the companions.
            6 => {
                let lo = if bits == 32 { 20 } else { 50 };
                sign | ((bias + lo + e % 10) << mb) | mant
            }
            // The exact negation, or a copy, of an earlier word: cancellation.
            7 | 8 if !self.seen.is_empty() => {
                let at = (r % self.seen.len() as u64) as usize;
                self.seen[at] ^ if kind == 7 { sign_bit } else { 0 }
            }
            _ => sign | ((bias - 4 + e % 8) << mb) | mant,
        };
        self.seen.push(w);
        w
    }
    fn words(&mut self, n: usize) -> Vec<u64> {
        (0..n).map(|_| self.word()).collect()
    }
}

/// The lane header of the lanes and butterfly kernels: `lanes` pairs.
fn lane_header(w: &mut Words, lanes: usize) -> Vec<u64> {
    let mut out = vec![0u64; 2 * lanes];
    match w.src.byte() % 3 {
        0 => {}
        1 => {
            for x in &mut out {
                *x = w.word();
            }
        }
        _ => {
            for _ in 0..w.src.byte() % 8 {
                let l = usize::from(w.src.byte()) % lanes;
                out[2 * l] = w.word();
                out[2 * l + 1] = w.word();
            }
        }
    }
    out
}

/// A length: `u16 % (cap + 1)`, and no more than the remaining bytes hold at
/// `per` bytes each.
fn length(src: &mut Src, cap: usize, per: usize) -> usize {
    let n = src.u16() % (cap + 1);
    n.min(src.left() / per.max(1))
}

fn matrix(w: &mut Words, n: usize, symmetric: bool) -> Vec<u64> {
    let mut a = w.words(n * n);
    if symmetric {
        for i in 0..n {
            for j in 0..i {
                a[j * n + i] = a[i * n + j];
            }
        }
    }
    a
}

/// One single-form linear-algebra problem.
fn linalg_single(w: &mut Words, routine: Routine, n: usize, flags: u8, lu: Option<FlatFn>, cholesky: Option<FlatFn>) -> Vec<u64> {
    let nn = n * n;
    let symmetric = flags & 8 != 0;
    match routine {
        Routine::Lu | Routine::DetLu | Routine::Inverse | Routine::Cholesky | Routine::Eigh => matrix(w, n, symmetric),
        Routine::LuSolve => {
            let a = matrix(w, n, symmetric);
            let mut out = match lu {
                Some(lu) if flags & 4 != 0 => {
                    // The reference's own factorisation: LU, then ipiv.
                    let o = lu(&a);
                    o[..nn + n].to_vec()
                }
                _ => {
                    let mut out = a;
                    for k in 0..n {
                        out.push((k + 1 + usize::from(w.src.byte()) % (n - k)) as u64);
                    }
                    out
                }
            };
            out.extend(w.words(n));
            out
        }
        Routine::CholeskySolve => {
            let a = matrix(w, n, symmetric);
            let mut out = match cholesky {
                Some(ch) if flags & 16 != 0 => ch(&a)[..nn].to_vec(),
                _ => a,
            };
            out.extend(w.words(n));
            out
        }
        Routine::SolveLower | Routine::SolveLowerUnit | Routine::SolveUpper | Routine::SolveUpperUnit => {
            let mut out = w.words(nn);
            out.extend(w.words(n));
            out
        }
    }
}

/// The flat input words of target `t` from the bytes after the header.
fn input(t: &Target, lanes: usize, src: &mut Src, style: u8, flags: u8) -> Vec<u64> {
    let specials = rng::specials(t.bits).into_iter().map(|(_, w)| w).collect();
    let mut w = Words { src, bits: t.bits, style, seen: Vec::new(), specials };
    match t.shape {
        Shape::Fixed { function, n_in } => {
            let mut words = w.words(n_in);
            if !function.derived.is_empty() && flags & 3 != 0 {
                interp::fill_derived(function, t.bits, &mut words);
            }
            words
        }
        Shape::Butterfly => lane_header(&mut w, lanes),
        Shape::Lanes { arrays } => {
            let mut words = lane_header(&mut w, lanes);
            words.push(u64::from(w.src.byte()));
            let per = arrays * w.word_bytes();
            let n = length(w.src, 256 / arrays, per);
            words.extend(w.words(arrays * n));
            words
        }
        Shape::Array { arrays } => {
            let per = arrays * w.word_bytes();
            let n = length(w.src, 300 / arrays, per);
            w.words(arrays * n)
        }
        Shape::Plane { width } => {
            let count = 1 + u64::from(w.src.byte() % 8);
            let per = 1 + width * w.word_bytes();
            let records = length(w.src, 48, per);
            let mut words = vec![count];
            for _ in 0..records {
                words.push(u64::from(w.src.byte()) % count);
                words.extend(w.words(width));
            }
            words
        }
        Shape::Resolve => {
            let per = 2 * w.word_bytes();
            let n = length(w.src, 128, per);
            w.words(2 * n)
        }
        Shape::Linalg { routine, n, many, lu, cholesky } => {
            let problems = if many { usize::from(w.src.byte() % 7) } else { 1 };
            (0..problems).flat_map(|_| linalg_single(&mut w, routine, n, flags, lu, cholesky)).collect()
        }
    }
}

fuzz_target!(|data: &[u8]| {
    TABLE.with(|table| {
        let mut src = Src { d: data, at: 0 };
        let t = &table.targets[src.u16() % table.targets.len()];
        // Styles 0..KINDS: one kind for every word; the rest (more than half
        // of the byte's values): a kind byte per word.
        let style = src.byte() % 20;
        let flags = src.byte();
        let words = input(t, table.lanes, &mut src, style, flags);
        let want = (t.reference)(&words);
        let got = t.c.run(&words);
        if !policy::matches(&want, &got, t.bits, t.is_float, t.either_zero) {
            panic!("MISMATCH {}: inputs {} reference {} C {}", t.name, hex(&words, t.bits), hex(&want, t.bits), hex(&got, t.bits));
        }
    });
});
