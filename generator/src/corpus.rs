//! The reference corpus: for every function, input words and the expected
//! result words (IEEE bit patterns), in md5-fenced parts of one family and
//! one element type each.
//!
//! Expected bits come from the hand-written reference. The generator also
//! evaluates its own model on every case and stops if the two disagree, and it
//! searches, for every mutant of a rule that changes a function, an input that
//! tells them apart.

use std::fmt::Write as _;

use crate::error::{Error, SpecError};
use crate::kernel;
use crate::linalg;
use crate::model::{Builtin, Callable, Expr, Function, Kernel, KernelKind, Model};
use crate::mutants::{self, Mutant};
use crate::policy;
use crate::rng::{self, SplitMix64};
use crate::spec::Routine;

/// Random cases per function in the corpus.
pub const RANDOM_CASES: usize = 24;
/// Inputs tried per (function, mutant) before the mutant is declared to
/// change no bit.
pub const WITNESS_TRIES: usize = 20_000;
/// The same for a kernel, whose inputs are arrays.
pub const KERNEL_WITNESS_TRIES: usize = 6_000;

#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub label: String,
    pub inputs: Vec<u64>,
    pub expected: Vec<u64>,
}

#[derive(Debug, Clone)]
pub struct FunctionCases {
    pub c_name: String,
    pub family: String,
    pub width: u32,
    pub n_in: usize,
    pub n_out: usize,
    /// Rows are records `n_in, n_out, inputs, results` (kernels, whose
    /// word counts depend on their arrays); `n_in` and `n_out` are then 0.
    pub records: bool,
    pub is_float: bool,
    pub either_zero: bool,
    pub signature: String,
    pub cases: Vec<Case>,
    /// Mutants that change this function's tree but no bit on any input tried.
    pub no_witness: Vec<Mutant>,
}

/// The reference's result words for a function or kernel on some inputs, as
/// the corpus records them: every NaN of a float result is the canonical
/// quiet NaN (`policy::canonical`), since the reference's NaN payloads and
/// signs change with its build profile and no checker may look at them.
pub fn reference(model: &Model, c: Callable, inputs: &[u64]) -> Result<Vec<u64>, Error> {
    let call = aether_reference::flat::lookup(c.family(), c.shape(), c.elem()).ok_or_else(|| {
        Error::Inconsistent(format!("the reference has no `{}` for {} {} ({})", c.family(), c.shape(), c.elem(), c.c_name(model)))
    })?;
    Ok(policy::canonical_words(&call(inputs), width_of(model, c.elem()), c.is_float()))
}

fn width_of(model: &Model, elem: &str) -> u32 {
    model.spec.types.iter().find(|t| t.name == elem).unwrap().bits
}

fn hex_list(words: &[u64], width: u32) -> String {
    words.iter().map(|w| if width == 32 { format!("0x{w:08x}") } else { format!("0x{w:016x}") }).collect::<Vec<_>>().join(" ")
}

/// The spec's named probes of a callable, as rows.
pub fn probe_rows(model: &Model, c: Callable, w: u32) -> Result<Vec<(String, Vec<u64>)>, Error> {
    let probes = match c {
        Callable::Function(f) => &model.spec.family(&f.family).unwrap().cases,
        Callable::Kernel(k) => &model.spec.kernel(&k.key).unwrap().cases,
    };
    let mut rows = Vec::new();
    for p in probes.iter().filter(|p| p.applies_to(c.shape())) {
        let words: Vec<u64> = p.words.iter().map(|x| x.word(w)).collect();
        if let Some((n_in, _)) = c.fixed_words() {
            if words.len() != n_in {
                return Err(Error::from(SpecError {
                    file: model.spec.file.clone(),
                    line: p.line,
                    key: p.key.clone(),
                    message: format!("probe `{}` has {} words; {} takes {n_in}", p.label, words.len(), c.c_name(model)),
                }));
            }
        }
        rows.push((format!("probe: {}", p.label), words));
    }
    Ok(rows)
}

/// What a kernel's bits depend on, as text: the canonical trees of the steps
/// it runs and the reduction constants it uses. A mutant changes the kernel
/// when this changes.
pub fn kernel_signature(model: &Model, lowered: &[Function], k: &Kernel) -> String {
    let no_reduction = crate::spec::Reduction {
        lanes: 0,
        rounds: Vec::new(),
        assignment: crate::spec::Assignment::Strided,
        step: String::new(),
        combine: String::new(),
        value: String::new(),
        pair: String::new(),
        line: 0,
    };
    let red = model.spec.reduction.as_ref().unwrap_or(&no_reduction);
    let step = |family: &str| lowered.iter().find(|f| f.family == family && f.elem == k.elem).map(mutants::canonical).unwrap_or_default();
    let term = |name: &str| match model.kernels.iter().find(|x| x.name == name && x.elem == k.elem).map(|x| &x.kind) {
        Some(KernelKind::Lanes { term, .. }) => mutants::canonical(term),
        _ => String::new(),
    };
    let lanes = |name: &str| format!("{}|{:?}|{}|{}", step(&red.step), red.assignment, red.lanes, term(name));
    let tree = || format!("{}|{:?}", step(&red.combine), red.rounds);
    match &k.kind {
        KernelKind::Butterfly => tree(),
        KernelKind::Lanes { .. } => lanes(&k.name),
        KernelKind::Array { lanes: l } => format!("{}|{}|{}", lanes(l), tree(), step(&red.value)),
        KernelKind::Plane { .. } => step(&red.step),
        KernelKind::Resolve => step(&red.value),
        KernelKind::Linalg { routine, n, .. } => {
            let l = model.spec.linalg.as_ref().expect("linear algebra needs [rules.linalg]");
            // A dot of two terms is the same sum in either order, so the
            // fold's nesting matters from n = 4; a 2x2 has one update,
            // the same left-looking or right-looking.
            let nesting = if *n >= 4 { format!("{:?}", model.spec.fold.nesting) } else { String::new() };
            let update = if *n >= 3 { format!("{:?}", l.update) } else { String::new() };
            let lu = format!("{:?}|{update}|{:?}|{nesting}|{:?}|{}", l.pivot, l.multipliers, model.spec.fold.seed, l.fused);
            match routine {
                Routine::Lu | Routine::DetLu | Routine::Inverse => lu,
                Routine::LuSolve | Routine::SolveLower | Routine::SolveLowerUnit | Routine::SolveUpper | Routine::SolveUpperUnit => {
                    format!("{}", l.fused)
                }
                Routine::Cholesky => format!("{:?}|{}", l.symmetrize, l.fused),
                Routine::CholeskySolve => format!("{}", l.fused),
                Routine::Eigh => {
                    format!("{:?}|{}|{}|{}|{}", l.symmetrize, l.eigh_sweeps, step(&l.rotation), step(&l.update_pair), step(&l.diag))
                }
            }
        }
    }
}

/// Whether a mutant (its model and lowered functions) changes callable `at`
/// of `model.callables()`: its tree, or for a kernel what its bits depend on.
pub fn changes(model: &Model, lowered: &[Function], mutant: &Model, mutant_lowered: &[Function], at: usize) -> bool {
    if at < lowered.len() {
        mutants::canonical(&lowered[at]) != mutants::canonical(&mutant_lowered[at])
    } else {
        let k = at - lowered.len();
        kernel_signature(model, lowered, &model.kernels[k]) != kernel_signature(mutant, mutant_lowered, &mutant.kernels[k])
    }
}

/// The lowered functions with every `barrier(x)` read as `x`: two callables
/// whose trees (or, for a kernel, signatures) agree on these give the same
/// bits on every input in the interpreter.
fn without_barriers(lowered: &[Function]) -> Vec<Function> {
    lowered
        .iter()
        .map(|f| {
            let mut g = f.clone();
            g.map_exprs(&mut |e| match e {
                Expr::Call(Builtin::Barrier, mut args) => args.remove(0),
                e => e,
            });
            g
        })
        .collect()
}

/// Rows every function gets: special values, signed zeros by parameter,
/// special pairs.
fn function_rows(model: &Model, f: &Function, w: u32) -> Vec<(String, Vec<u64>)> {
    let n_in = f.input_words();
    let c_name = model.c_name(f);
    let mut rows: Vec<(String, Vec<u64>)> = Vec::new();
    let specials = rng::specials(w);
    // Special values: every word one special; one special among ordinary
    // words; for two-word inputs, every pair.
    let mut ord = SplitMix64::for_name(&c_name, 0);
    let ordinary: Vec<u64> = (0..n_in).map(|_| rng::word(&mut ord, w, rng::Mode::Narrow)).collect();
    for (k, (name, s)) in specials.iter().enumerate() {
        if n_in > 0 {
            rows.push((format!("special: every input word {name}"), vec![*s; n_in]));
            let mut v = ordinary.clone();
            v[k % n_in] = *s;
            rows.push((format!("special: word {} is {name}, the rest ordinary", k % n_in), v));
        }
    }
    // Signed zeros split by parameter: products of them are -0, which is
    // what tells an unseeded fold of products from a zero-seeded one.
    if f.params.len() > 1 {
        let slots = f.input_slots();
        for p in 0..f.params.len() {
            let v: Vec<u64> = slots.iter().map(|(q, _)| if *q == p { specials[1].1 } else { specials[0].1 }).collect();
            rows.push((format!("special: parameter {} all -0, the rest +0", f.params[p].name), v));
        }
    }
    if n_in == 2 {
        for (na, a) in &specials {
            for (nb, b) in &specials {
                rows.push((format!("special pair: {na}, {nb}"), vec![*a, *b]));
            }
        }
    }
    if n_in == 0 {
        rows.push(("no input".into(), Vec::new()));
    }
    rows
}

/// Rows a kernel gets besides its probes: ragged ends for the butterfly,
/// long arrays of heavy cancellation for the array kernels.
fn kernel_rows(model: &Model, lowered: &[Function], k: &Kernel) -> Vec<(String, Vec<u64>)> {
    let mut rows = Vec::new();
    match &k.kind {
        KernelKind::Butterfly => {
            let steps = kernel::Steps::new(model, lowered, &k.elem);
            let lanes = steps.reduction.lanes;
            for ragged in 1..=lanes {
                let mut r = SplitMix64::for_name(&model.kernel_c_name(k), 0x7a99 + ragged as u64);
                let mut ls = vec![[0u64, 0u64]; lanes];
                let xs = kernel::elements(&mut r, steps.bits, 3 * ragged);
                for (i, x) in xs.into_iter().enumerate() {
                    ls[i % ragged] = steps.step(ls[i % ragged], x);
                }
                rows.push((format!("ragged end: lanes 0..{ragged} hold pairs, the rest +0 pairs"), ls.into_iter().flatten().collect()));
            }
        }
        KernelKind::Linalg { routine, n, many } => {
            // One input of each matrix class, so every class is in the corpus.
            let rules = linalg::Rules::new(model, lowered, &k.elem);
            for seed in 0..16u64 {
                let mut r = SplitMix64::for_name(&model.kernel_c_name(k), 0x11a1 + seed);
                rows.push((format!("matrix classes #{seed}"), linalg::random_input(&rules, *routine, *n, *many, &mut r)));
            }
            if *routine == Routine::Eigh {
                // A rotation with theta = -inf: (aqq - app) / (2 apq) overflows, t is
                // -0 (spelled tt * -1), and a -0 eigenvalue keeps its sign only so.
                let w = |x: f64| if steps_bits(model, k) == 32 { u64::from((x as f32).to_bits()) } else { x.to_bits() };
                let tiny2 = if steps_bits(model, k) == 32 { u64::from(2u32) } else { 2 };
                let mut a = vec![w(0.0); n * n];
                a[0] = w(1.0);
                a[1] = tiny2;
                a[*n] = tiny2;
                a[*n + 1] = w(-0.0);
                for i in 2..*n {
                    a[i * n + i] = w(i as f64);
                }
                let words = if *many { [a.clone(), a].concat() } else { a };
                rows.push(("theta = -inf: t = -0, and the eigenvalue -0 keeps its sign".into(), words));
            }
        }
        KernelKind::Array { .. } => {
            for (n, seed) in [(1000, 1), (4096, 2)] {
                rows.push((format!("heavy cancellation in a long array, n = {n}"), kernel::long_cancellation(model, k, n, seed)));
            }
        }
        _ => {}
    }
    rows
}

fn steps_bits(model: &Model, k: &Kernel) -> u32 {
    model.spec.types.iter().find(|t| t.name == k.elem).unwrap().bits
}

/// Builds every function's and kernel's cases: probes, specials,
/// discriminating witnesses, random.
pub fn build(model: &Model) -> Result<Vec<FunctionCases>, Error> {
    let lowered = model.lowered();
    let unbarred = without_barriers(&lowered);
    let mut mutant_builds = Vec::new();
    for m in mutants::ALL {
        let (mm, ml) = m.build(model)?;
        let mu = without_barriers(&ml);
        mutant_builds.push((m, mm, ml, mu));
    }
    let callables = model.callables();
    let one = |i: usize| -> Result<FunctionCases, Error> {
        let c = callables[i];
        let w = width_of(model, c.elem());
        let c_name = c.c_name(model);
        let mut rows = probe_rows(model, c, w)?;
        match c {
            Callable::Function(f) => rows.extend(function_rows(model, f, w)),
            Callable::Kernel(k) => rows.extend(kernel_rows(model, &lowered, k)),
        }

        // Discriminating cases: one witness per mutant that changes the tree.
        let mut no_witness = Vec::new();
        for (m, mm, ml, mu) in &mutant_builds {
            if !changes(model, &lowered, mm, ml, i) {
                continue;
            }
            // A mutant that changes only where the barriers are (`no-barrier`)
            // evaluates to the same bits on every input here, since the
            // interpreter's barrier is the identity: no search can find a
            // witness, so none is run (the kernels' searches were a third of
            // the generator's time).
            if !changes(model, &unbarred, mm, mu, i) {
                no_witness.push(*m);
                continue;
            }
            let differs = |inputs: &[u64]| {
                let a = kernel::evaluate_callable(model, &lowered, i, inputs);
                let b = kernel::evaluate_callable(mm, ml, i, inputs);
                match (a, b) {
                    (Ok(a), Ok(b)) => !policy::matches(&a, &b, w, c.is_float(), c.either_zero()),
                    _ => false,
                }
            };
            match witness(model, &lowered, c, &rows, &c_name, *m, &differs) {
                Some(inputs) => rows.push((format!("discriminates {}: {}", m.name(), m.description()), inputs)),
                None => no_witness.push(*m),
            }
        }

        // Seeded random cases.
        for k in 0..RANDOM_CASES {
            let mut r = SplitMix64::for_name(&c_name, 1000 + k as u64);
            rows.push((format!("random #{k}"), kernel::random_callable_input(model, &lowered, c, &mut r)));
        }

        // One case per distinct input; a repeated input adds its label to the
        // first case's (a special row can be a mutant's witness too).
        let mut first: std::collections::HashMap<Vec<u64>, usize> = std::collections::HashMap::new();
        let mut cases: Vec<Case> = Vec::new();
        for (label, inputs) in rows {
            if let Some(&k) = first.get(&inputs) {
                cases[k].label = format!("{}; {label}", cases[k].label);
                continue;
            }
            first.insert(inputs.clone(), cases.len());
            let expected = reference(model, c, &inputs)?;
            let (line, key) = model.origin(c);
            let what = format!("{c_name} (family `{}`, shape `{}`, type `{}`)", c.family(), c.shape(), c.elem());
            let ours = kernel::evaluate_callable(model, &lowered, i, &inputs)
                .map_err(|m| Error::from(model.error_at(line, key.clone(), format!("{what}: {m}"))))?;
            if !policy::matches(&expected, &ours, w, c.is_float(), c.either_zero()) {
                return Err(Error::from(model.error_at(
                    line,
                    key,
                    format!(
                        "the spec's model and the reference disagree on {what} for inputs [{}]: reference [{}], model [{}] \
                         ({label}); the body or the reference is wrong",
                        hex_list(&inputs, w),
                        hex_list(&expected, w),
                        hex_list(&ours, w)
                    ),
                )));
            }
            cases.push(Case { label, inputs, expected });
        }
        let (n_in, n_out) = c.fixed_words().unwrap_or((0, 0));
        Ok(FunctionCases {
            c_name: c_name.clone(),
            family: c.family().to_string(),
            width: w,
            n_in,
            n_out,
            records: c.fixed_words().is_none(),
            is_float: c.is_float(),
            either_zero: c.either_zero(),
            signature: match c {
                Callable::Function(f) => signature(model, f),
                Callable::Kernel(k) => kernel_signature_line(model, k),
            },
            cases,
            no_witness,
        })
    };
    // The callables are independent: build them on every core, in order.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(callables.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<Option<Result<FunctionCases, Error>>> = (0..callables.len()).map(|_| None).collect();
    let done: Vec<Vec<(usize, Result<FunctionCases, Error>)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if i >= callables.len() {
                            break mine;
                        }
                        mine.push((i, one(i)));
                    }
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("a corpus worker panicked")).collect()
    });
    for (i, r) in done.into_iter().flatten() {
        results[i] = Some(r);
    }
    results.into_iter().map(|r| r.expect("every callable was built")).collect()
}

fn kernel_signature_line(model: &Model, k: &Kernel) -> String {
    let conv = match &k.kind {
        KernelKind::Butterfly => "lane pairs (hi, comp) -> the pair of lane 0".to_string(),
        KernelKind::Lanes { arrays, .. } => {
            format!("lane pairs, #first, {} -> lane pairs", arrays.iter().map(|a| format!("{a}[n]")).collect::<Vec<_>>().join(", "))
        }
        KernelKind::Array { lanes } => match model.kernels.iter().find(|x| &x.name == lanes).map(|x| &x.kind) {
            Some(KernelKind::Lanes { arrays, .. }) => {
                format!("{} -> value", arrays.iter().map(|a| format!("{a}[n]")).collect::<Vec<_>>().join(", "))
            }
            _ => String::new(),
        },
        KernelKind::Plane { width } => format!("#S, records (#element, {width} term word(s)) -> S*{width} values, S*{width} companions"),
        KernelKind::Resolve => "value[n], comp[n] -> out[n]".to_string(),
        KernelKind::Linalg { routine, n, many } => {
            let (i, o) = linalg::words(*routine, *n);
            let per = if *many { "per lane, lanes one after another" } else { "" };
            format!("{i} word(s) in, {o} out {per}; see generator/src/linalg.rs")
        }
    };
    format!("{} (kernel; flat words: {conv})", model.kernel_c_name(k))
}

fn signature(model: &Model, f: &Function) -> String {
    let kind = |k: &crate::model::Kind| match k {
        crate::model::Kind::Bool => "bool".to_string(),
        crate::model::Kind::Shape(s) => model.prefix(&s.name, &f.elem),
    };
    let params: Vec<String> = f.params.iter().map(|p| format!("{}: {}", p.name, kind(&p.kind))).collect();
    format!("{}({}) -> {}", model.c_name(f), params.join(", "), kind(&f.ret))
}

/// The first input on which a mutant gives other bits under the comparison
/// policy: seeded random inputs first, so the case says what it is for, then
/// the rows already present.
fn witness(
    model: &Model,
    lowered: &[Function],
    c: Callable,
    rows: &[(String, Vec<u64>)],
    c_name: &str,
    m: Mutant,
    differs: &dyn Fn(&[u64]) -> bool,
) -> Option<Vec<u64>> {
    let tries = if c.fixed_words().is_some() { WITNESS_TRIES } else { KERNEL_WITNESS_TRIES };
    let mut r = SplitMix64::for_name(c_name, 0x5eed_0000 + m as u64);
    (0..tries)
        .map(|_| kernel::random_callable_input(model, lowered, c, &mut r))
        .find(|v| differs(v))
        .or_else(|| rows.iter().find(|(_, v)| differs(v)).map(|(_, v)| v.clone()))
}

// ------------------------------------------------------------------ writing

/// The corpus part name of a family and element type, e.g. `dot_f32`.
pub fn part_name(family: &str, elem: &str) -> String {
    format!("{family}_{elem}")
}

fn word_literal(w: u64, width: u32) -> String {
    if width == 32 {
        format!("0x{w:08x}u")
    } else {
        format!("0x{w:016x}ull")
    }
}

/// Wraps a body in the part's fences. The md5 is taken over the body: every
/// byte after the first line's newline up to the first byte of the last line,
/// so `sed '1d;$d' part | md5sum` reproduces it.
pub fn fence(name: &str, body: &str) -> String {
    let digest = format!("{:x}", md5::compute(body.as_bytes()));
    format!("/* aether-corpus-part: {name} md5: {digest} */\n{body}/* aether-corpus-part-end: {name} md5: {digest} */\n")
}

/// The text of one part.
pub fn render_part(name: &str, banner: &str, fns: &[&FunctionCases]) -> String {
    let mut b = String::new();
    let _ = writeln!(b, "{banner}");
    let _ = writeln!(b, "/* Corpus part {name}. Each row: the input words, a `=>` comment, then the expected result");
    let _ = writeln!(b, "   words, all IEEE bit patterns; a truth-valued result is one word, 0 or 1. */");
    for f in fns {
        let ty = if f.width == 32 { "uint32_t" } else { "uint64_t" };
        let _ = writeln!(b);
        let array = f.c_name.trim_start_matches("aether_");
        if f.records {
            let _ = writeln!(
                b,
                "/* {}: {} cases, each a record: n_in, n_out, the n_in input words, the n_out result words */",
                f.signature,
                f.cases.len()
            );
        } else {
            let _ = writeln!(b, "/* {}: {} input word(s), {} result word(s), {} cases */", f.signature, f.n_in, f.n_out, f.cases.len());
        }
        if !f.no_witness.is_empty() {
            let names: Vec<&str> = f.no_witness.iter().map(|m| m.name()).collect();
            let tries = if f.records { KERNEL_WITNESS_TRIES } else { WITNESS_TRIES };
            let _ = writeln!(b, "/* mutants that change the tree but no bit on {tries} tried inputs: {} */", names.join(", "));
        }
        if f.records {
            let total: usize = f.cases.iter().map(|c| 2 + c.inputs.len() + c.expected.len()).sum();
            let _ = writeln!(b, "static const {ty} aether_corpus_{array}[{total}] = {{");
            for c in &f.cases {
                let _ = writeln!(b, "    /* {} */", c.label);
                let counts = [c.inputs.len() as u64, c.expected.len() as u64];
                let _ = writeln!(b, "    {},", counts.iter().map(|w| word_literal(*w, f.width)).collect::<Vec<_>>().join(", "));
                for chunk in c.inputs.chunks(8) {
                    let _ = writeln!(b, "    {},", chunk.iter().map(|w| word_literal(*w, f.width)).collect::<Vec<_>>().join(", "));
                }
                let outs: Vec<String> = c.expected.iter().map(|w| word_literal(*w, f.width)).collect();
                for (k, chunk) in outs.chunks(8).enumerate() {
                    let arrow = if k == 0 { "/* => */ " } else { "" };
                    let _ = writeln!(b, "    {arrow}{},", chunk.join(", "));
                }
            }
            let _ = writeln!(b, "}};");
            continue;
        }
        let _ = writeln!(b, "static const {ty} aether_corpus_{array}[{}][{}] = {{", f.cases.len(), f.n_in + f.n_out);
        for c in &f.cases {
            let ins: Vec<String> = c.inputs.iter().map(|w| word_literal(*w, f.width)).collect();
            let outs: Vec<String> = c.expected.iter().map(|w| word_literal(*w, f.width)).collect();
            let _ = writeln!(b, "    /* {} */", c.label);
            if ins.is_empty() {
                let _ = writeln!(b, "    {{ /* => */ {} }},", outs.join(", "));
            } else {
                let _ = writeln!(b, "    {{ {}, /* => */ {} }},", ins.join(", "), outs.join(", "));
            }
        }
        let _ = writeln!(b, "}};");
    }
    fence(name, &b)
}

/// Every part, keyed by part name, in spec order.
pub fn parts(model: &Model) -> Vec<(String, Vec<usize>)> {
    let mut order: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, c) in model.callables().into_iter().enumerate() {
        let name = part_name(c.family(), c.elem());
        match order.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => v.push(i),
            None => order.push((name, vec![i])),
        }
    }
    order
}

// ------------------------------------------------------------------ reading

/// One function's rows as read back from a part.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedFunction {
    pub c_name: String,
    /// 0 for a table of records.
    pub n_in: usize,
    pub n_out: usize,
    pub records: bool,
    pub cases: Vec<Case>,
}

/// Every committed corpus part under `root/corpus` (not the umbrella header
/// `aether_c_corpus.h`), read back and fence-checked, by C name.
pub fn read_committed(root: &std::path::Path) -> Result<std::collections::BTreeMap<String, ParsedFunction>, String> {
    let dir = root.join("corpus");
    let mut out = std::collections::BTreeMap::new();
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    for name in names {
        if name == "aether_c_corpus.h" || !name.ends_with(".h") {
            continue;
        }
        let text = std::fs::read_to_string(dir.join(&name)).map_err(|e| format!("{name}: {e}"))?;
        for f in parse_part(&name, &text)? {
            out.insert(f.c_name.clone(), f);
        }
    }
    Ok(out)
}

/// Checks a part's fences and md5 and reads its rows. Errors name the part.
pub fn parse_part(file_name: &str, text: &str) -> Result<Vec<ParsedFunction>, String> {
    let first_nl = text.find('\n').ok_or_else(|| format!("{file_name}: no first line"))?;
    let first = &text[..first_nl];
    let trimmed = text.strip_suffix('\n').ok_or_else(|| format!("{file_name}: does not end with a newline"))?;
    let last_start = trimmed.rfind('\n').map_or(0, |i| i + 1);
    if last_start <= first_nl {
        return Err(format!("{file_name}: no end fence"));
    }
    let last = &trimmed[last_start..];
    let body = &text[first_nl + 1..last_start];
    let parse_fence = |line: &str, tag: &str| -> Option<(String, String)> {
        let rest = line.strip_prefix(&format!("/* {tag}: "))?.strip_suffix(" */")?;
        let (name, digest) = rest.split_once(" md5: ")?;
        Some((name.to_string(), digest.to_string()))
    };
    let (name1, md1) = parse_fence(first, "aether-corpus-part").ok_or_else(|| format!("{file_name}: malformed first fence line"))?;
    let (name2, md2) = parse_fence(last, "aether-corpus-part-end").ok_or_else(|| format!("{file_name}: malformed last fence line"))?;
    if name1 != name2 || md1 != md2 {
        return Err(format!("{file_name}: part {name1}: the fences disagree ({name1} {md1} / {name2} {md2})"));
    }
    if file_name != format!("{name1}.h") {
        return Err(format!("{file_name}: part {name1}: the fence names another part"));
    }
    let digest = format!("{:x}", md5::compute(body.as_bytes()));
    if digest != md1 {
        return Err(format!("{file_name}: part {name1}: md5 of the body is {digest}, the fence says {md1}"));
    }
    let mut out: Vec<ParsedFunction> = Vec::new();
    let mut label = String::new();
    // A table of records: its labels and words, read to its end.
    let mut pending: Option<(Vec<String>, Vec<u64>, usize)> = None;
    let bad_word = |x: &str| format!("{file_name}: part {name1}: bad word `{x}`");
    let words_of = |s: &str| -> Result<Vec<u64>, String> {
        s.split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(|x| {
                let h = x.trim_start_matches("0x").trim_end_matches("ull").trim_end_matches('u');
                u64::from_str_radix(h, 16).map_err(|_| bad_word(x))
            })
            .collect()
    };
    for line in body.lines() {
        let t = line.trim();
        if let Some((labels, words, total)) = &mut pending {
            if t == "};" {
                if words.len() != *total {
                    return Err(format!("{file_name}: part {name1}: a record table declares {total} words and holds {}", words.len()));
                }
                let f = out.last_mut().unwrap();
                let mut at = 0;
                for l in labels.iter() {
                    let (Some(&n_in), Some(&n_out)) = (words.get(at), words.get(at + 1)) else {
                        return Err(format!("{file_name}: part {name1}: {} has a record cut short", f.c_name));
                    };
                    let (n_in, n_out) = (n_in as usize, n_out as usize);
                    let end = at + 2 + n_in + n_out;
                    if end > words.len() {
                        return Err(format!("{file_name}: part {name1}: {} has a record cut short", f.c_name));
                    }
                    f.cases.push(Case {
                        label: l.clone(),
                        inputs: words[at + 2..at + 2 + n_in].to_vec(),
                        expected: words[at + 2 + n_in..end].to_vec(),
                    });
                    at = end;
                }
                if at != words.len() {
                    return Err(format!("{file_name}: part {name1}: {} has words after its last record", f.c_name));
                }
                pending = None;
            } else if let Some(l) = t.strip_prefix("/* ").and_then(|s| s.strip_suffix(" */")) {
                labels.push(l.to_string());
            } else {
                words.extend(words_of(t.trim_start_matches("/* => */"))?);
            }
            continue;
        }
        if let Some(rest) = t.strip_prefix("static const ") {
            // static const uint32_t aether_corpus_vec3f_dot[N][W] = {
            // static const uint32_t aether_corpus_f32_sum_array[TOTAL] = {
            let name = rest.split_whitespace().nth(1).and_then(|s| s.split('[').next()).unwrap_or_default();
            let dims: Vec<usize> = rest.split('[').skip(1).filter_map(|d| d.split(']').next()?.parse().ok()).collect();
            let c_name = format!("aether_{}", name.trim_start_matches("aether_corpus_"));
            match dims.len() {
                2 => out.push(ParsedFunction { c_name, n_in: dims[1], n_out: 0, records: false, cases: Vec::with_capacity(dims[0]) }),
                1 => {
                    out.push(ParsedFunction { c_name, n_in: 0, n_out: 0, records: true, cases: Vec::new() });
                    pending = Some((Vec::new(), Vec::new(), dims[0]));
                }
                _ => return Err(format!("{file_name}: part {name1}: malformed array line `{t}`")),
            }
        } else if let Some(l) = t.strip_prefix("/* ").and_then(|s| s.strip_suffix(" */")) {
            label = l.to_string();
        } else if t.starts_with('{') {
            let f = out.last_mut().ok_or_else(|| format!("{file_name}: part {name1}: a row before any array"))?;
            let inner = t.trim_start_matches('{').trim_end_matches(',').trim_end_matches('}');
            let (ins, outs) = inner.split_once("/* => */").ok_or_else(|| format!("{file_name}: part {name1}: row without `/* => */`"))?;
            let (ins, outs) = (words_of(ins)?, words_of(outs)?);
            f.cases.push(Case { label: label.clone(), inputs: ins, expected: outs });
        }
    }
    if pending.is_some() {
        return Err(format!("{file_name}: part {name1}: a record table has no end"));
    }
    for f in out.iter_mut().filter(|f| !f.records) {
        let width = f.n_in;
        let first = f.cases.first().ok_or_else(|| format!("{file_name}: part {name1}: {} has no case", f.c_name))?;
        f.n_out = first.expected.len();
        f.n_in = first.inputs.len();
        if f.n_in + f.n_out != width || f.cases.iter().any(|c| c.inputs.len() != f.n_in || c.expected.len() != f.n_out) {
            return Err(format!("{file_name}: part {name1}: {} has rows of the wrong width", f.c_name));
        }
    }
    if let Some(f) = out.iter().find(|f| f.cases.is_empty()) {
        return Err(format!("{file_name}: part {name1}: {} has no case", f.c_name));
    }
    Ok(out)
}

/// The umbrella header: includes every part and lists every function's table.
pub fn render_umbrella(banner: &str, version: &str, contract_id: &str, parts: &[String], all: &[FunctionCases]) -> String {
    let mut b = String::new();
    let _ = writeln!(b, "{banner}");
    let _ = writeln!(b, "#ifndef AETHER_C_CORPUS_H\n#define AETHER_C_CORPUS_H\n");
    let _ = writeln!(b, "#include <stdint.h>\n");
    let _ = writeln!(b, "#define AETHER_CORPUS_CONTRACT_VERSION \"{version}\"");
    let _ = writeln!(b, "/* The fingerprint of the contract the corpus was generated from (aether_core.h's AETHER_CONTRACT_ID). */");
    let _ = writeln!(b, "#define AETHER_CORPUS_CONTRACT_ID \"{contract_id}\"\n");
    for p in parts {
        let _ = writeln!(b, "#include \"{p}.h\"");
    }
    let _ = writeln!(b);
    let _ = writeln!(b, "/* One entry per function: rows of n_in input words then n_out result words, each word");
    let _ = writeln!(b, "   elem_bits wide. A kernel (records 1, n_in and n_out 0) has a flat array of records instead:");
    let _ = writeln!(b, "   n_in, n_out, the n_in input words, the n_out result words; its flat convention is in its");
    let _ = writeln!(b, "   part. Compare with the spec's policy: bytes equal, or both NaN, or (either_zero) +0");
    let _ = writeln!(b, "   against -0. A result with is_float 0 is a truth value, compared as bytes. */");
    let _ = writeln!(b, "typedef struct aether_corpus_function {{\n    const char *name;\n    const char *part;\n    unsigned elem_bits;\n    unsigned n_in;\n    unsigned n_out;\n    unsigned n_cases;\n    const void *rows;\n    int is_float;\n    int either_zero;\n    int records;\n}} aether_corpus_function;\n");
    let _ = writeln!(b, "static const aether_corpus_function aether_corpus_functions[] = {{");
    for f in all {
        let _ = writeln!(
            b,
            "    {{ \"{}\", \"{}\", {}, {}, {}, {}, aether_corpus_{}, {}, {}, {} }},",
            f.c_name,
            part_name(&f.family, if f.width == 32 { "f32" } else { "f64" }),
            f.width,
            f.n_in,
            f.n_out,
            f.cases.len(),
            f.c_name.trim_start_matches("aether_"),
            i32::from(f.is_float),
            i32::from(f.either_zero),
            i32::from(f.records)
        );
    }
    let _ = writeln!(b, "}};\n");
    let _ = writeln!(b, "#define AETHER_CORPUS_FUNCTION_COUNT {}\n", all.len());
    let _ = writeln!(b, "#endif /* AETHER_C_CORPUS_H */");
    b
}
