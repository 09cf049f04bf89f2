//! The OpenCL stack: the OpenCL C core's check program
//! (`aether_generator::targets::opencl::check_program`) built on the first
//! OpenCL device (PoCL through the ICD loader), its kernels run on the corpus
//! and on random inputs, every result compared with the Rust reference under
//! the spec's policy (`aether_generator::policy`), and the self-test kernel
//! read back.

pub mod cl;
pub mod options;
pub mod predicate;

use std::collections::HashMap;
use std::path::Path;

use aether_generator::corpus::{self, Case};
use aether_generator::kernel;
use aether_generator::linalg::{self, Rules};
use aether_generator::model::{Callable, KernelKind, Model};
use aether_generator::policy;
use aether_generator::rng::{self, SplitMix64};
use aether_generator::selftest;
use aether_generator::spec::BandMetric;
use aether_generator::targets::opencl::{self, ClEntry, ClProgram};
use aether_generator::targets::shared::soa::{SoaArray, SoaBatch, SoaWhat};

/// The build option a device that reports correctly rounded f32 division
/// and sqrt gets.
pub const CORRECT_DIV_SQRT: &str = "-cl-fp32-correctly-rounded-divide-sqrt";

/// The model, its check program and the corpus.
#[derive(Debug)]
pub struct Setup {
    pub model: Model,
    pub program: ClProgram,
    pub corpus: HashMap<String, Vec<Case>>,
    /// The private buffers the kernels over arrays are built with: input and
    /// result words per case (the corpus's longest, and at least the
    /// generated defaults; a longer random case is refused and counted as a
    /// mismatch).
    pub array_words: usize,
    pub array_out: usize,
}

impl Setup {
    /// `base` with the options that size the kernels over arrays.
    pub fn options(&self, base: &str) -> String {
        format!("{base} {}", opencl::array_options(self.array_words, self.array_out)).trim().to_string()
    }
}

/// Reads the spec and the committed corpus under `root`, and prints the
/// check program (its self-test replays the corpus's witnesses).
pub fn setup(root: &Path) -> Result<Setup, String> {
    let model = aether_generator::load(root).map_err(|e| e.to_string())?;
    let mut corpus = HashMap::new();
    let dir = root.join("corpus");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().to_string()))
        .filter(|n| n.ends_with(".h") && n != "aether_c_corpus.h")
        .collect();
    names.sort();
    for n in names {
        let text = std::fs::read_to_string(dir.join(&n)).map_err(|e| format!("{n}: {e}"))?;
        for f in corpus::parse_part(&n, &text)? {
            corpus.insert(f.c_name, f.cases);
        }
    }
    let witnesses = selftest::witnesses(&model, &|name| corpus.get(name).cloned());
    let lowered = model.lowered();
    let program = opencl::check_program(&model, &lowered, "/* aether: OpenCL check program (aether-opencl) */", &witnesses)
        .map_err(|e| e.to_string())?;
    let arrays = program.arrays.iter().filter_map(|e| corpus.get(&e.check.c_name)).flatten();
    let (words, out) = arrays.fold((opencl::ARRAY_WORDS, opencl::ARRAY_OUT), |(w, o), c| (w.max(c.inputs.len()), o.max(c.expected.len())));
    Ok(Setup { model, program, corpus, array_words: words, array_out: out })
}

/// One entry's results on a set of cases.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    pub entry: String,
    pub c_name: String,
    pub elem: String,
    pub corpus: usize,
    pub random: usize,
    pub mismatches: usize,
    /// The first mismatch: inputs, expected, actual (hex words).
    pub first: Option<String>,
    /// Under a band (`check_entry_relaxed`): the metric stated, the cases
    /// bit-identical, in the band's domain, out of it and differing, and
    /// (for an `unbounded` kernel) differing; `mismatches` then counts the
    /// in-domain cases outside the band (for `bits`, every difference).
    pub band: Option<String>,
    pub identical: usize,
    pub in_domain: usize,
    pub out_of_domain_differ: usize,
    pub measured_differ: usize,
}

/// Whether `AETHER_OPENCL_RELAXED=1` forces the path of a device without
/// correctly rounded f32 divide and sqrt (built without the option, the f32
/// results judged by `[bands.opencl_relaxed]`).
pub fn forced_relaxed() -> bool {
    std::env::var("AETHER_OPENCL_RELAXED").is_ok_and(|v| v == "1")
}

/// Runs an f32 entry and judges it by `[bands.opencl_relaxed]` (the path of
/// a device without correctly rounded f32 divide and sqrt): a `bits` entry
/// bit for bit under the policy, an `ulp` or `forward` one by
/// `bands::judge` (in-domain cases outside the band are `mismatches`), an
/// `unbounded` one measured only.
pub fn check_entry_relaxed(s: &Setup, prog: &cl::Program, e: &ClEntry, random: usize, seed: u64) -> Result<Tally, String> {
    let c = cases(s, e, random, seed)?;
    let got = if e.variable {
        let cap = c.expected.iter().map(Vec::len).max().unwrap_or(0).max(1);
        run_variable(prog, e, &c.inputs, cap)?
    } else {
        run_entry(prog, e, &c.inputs)?
    };
    let callable = callable(&s.model, e);
    let band = aether_generator::bands::band_on(&s.model, opencl::RELAXED, callable);
    let mut t = tally(e, &c, &got);
    let bad = t.mismatches;
    t.band = Some(band.summary());
    t.identical = c.inputs.len() - bad;
    match band.stated {
        BandMetric::Bits => t.in_domain = c.inputs.len(),
        BandMetric::Unbounded => {
            t.measured_differ = bad;
            t.mismatches = 0;
            t.first = None;
        }
        BandMetric::Ulp | BandMetric::Forward => {
            t.mismatches = 0;
            t.first = None;
            for ((inp, exp), act) in c.inputs.iter().zip(&c.expected).zip(&got) {
                let Some(act) = act else {
                    t.mismatches += 1;
                    continue;
                };
                let j = aether_generator::bands::judge(&s.model, callable, &band, inp, exp, act);
                if j.in_domain {
                    t.in_domain += 1;
                    if !j.within {
                        t.mismatches += 1;
                        if t.first.is_none() {
                            t.first = Some(format!("in [{}] expected [{}] got [{}] ({} ulp)", hex(inp), hex(exp), hex(act), j.ulp));
                        }
                    }
                } else if !j.identical {
                    t.out_of_domain_differ += 1;
                }
            }
        }
    }
    Ok(t)
}

fn callable<'m>(model: &'m Model, e: &ClEntry) -> Callable<'m> {
    model.callables().into_iter().find(|c| c.c_name(model) == e.check.c_name).expect("an entry of the model")
}

/// `count` random inputs of an entry, seeded by its name.
pub fn random_inputs(model: &Model, e: &ClEntry, count: usize, seed: u64) -> Vec<Vec<u64>> {
    let mut r = SplitMix64::for_name(&e.check.c_name, seed);
    let c = callable(model, e);
    if e.variable {
        // The generator's random inputs of a kernel over arrays, as the C
        // core's random test draws them (lengths 0..257 and the ragged ends).
        let lowered = model.lowered();
        return (0..count).map(|_| kernel::random_callable_input(model, &lowered, c, &mut r)).collect();
    }
    match c {
        Callable::Kernel(k) => match k.kind {
            KernelKind::Linalg { routine, n, .. } => {
                let lowered = model.lowered();
                let rules = Rules::new(model, &lowered, &k.elem);
                (0..count).map(|_| linalg::random_single(&rules, routine, n, &mut r)).collect()
            }
            _ => (0..count).map(|_| rng::input(&mut r, e.elem_bits, e.check.n_in)).collect(),
        },
        Callable::Function(_) => (0..count).map(|_| rng::input(&mut r, e.elem_bits, e.check.n_in)).collect(),
    }
}

/// Runs entry `e` of the built program on `inputs`: the result words of each
/// case, or `None` where the thunk refused the words.
pub fn run_entry(prog: &cl::Program, e: &ClEntry, inputs: &[Vec<u64>]) -> Result<Vec<Option<Vec<u64>>>, String> {
    if e.variable {
        return run_variable(prog, e, inputs, ARRAY_CAP);
    }
    let (n_in, n_out) = (e.check.n_in, e.check.n_out);
    let wb = (e.word_bits / 8) as usize;
    let mut bytes = Vec::with_capacity(inputs.len() * n_in * wb);
    for case in inputs {
        if case.len() != n_in {
            return Err(format!("{}: a case of {} words, not {n_in}", e.check.entry, case.len()));
        }
        for w in case {
            if wb == 4 {
                bytes.extend_from_slice(&(*w as u32).to_le_bytes());
            } else {
                bytes.extend_from_slice(&w.to_le_bytes());
            }
        }
    }
    let count = inputs.len();
    // One case per work group of `workgroup_size` work items, or one per
    // work item.
    let wg = e.check.workgroup_size as usize;
    let (global, local) = if e.check.cases_per_workgroup == 1 && wg > 1 { (count * wg, Some(wg)) } else { (count, None) };
    let outs = prog.run(
        &e.check.entry,
        global,
        local,
        &[cl::Arg::In(&bytes), cl::Arg::Out(count * n_out * wb), cl::Arg::Out(count * 8), cl::Arg::U32(count as u32)],
    )?;
    let word = |b: &[u8], i: usize| {
        if wb == 4 {
            u64::from(u32::from_le_bytes(b[i * 4..i * 4 + 4].try_into().unwrap()))
        } else {
            u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap())
        }
    };
    Ok((0..count)
        .map(|i| {
            let n = u64::from_le_bytes(outs[1][i * 8..i * 8 + 8].try_into().unwrap());
            (n == n_out as u64).then(|| (0..n_out).map(|k| word(&outs[0], i * n_out + k)).collect())
        })
        .collect())
}

/// The result words every case of a kernel over arrays has room for.
const ARRAY_CAP: usize = 256;

/// Runs a kernel over arrays: every case's words back to back, their
/// offsets, room for `cap` result words a case.
pub fn run_variable(prog: &cl::Program, e: &ClEntry, inputs: &[Vec<u64>], cap: usize) -> Result<Vec<Option<Vec<u64>>>, String> {
    let count = inputs.len();
    let mut words = Vec::new();
    let mut at = vec![0u8; 0];
    let mut off = 0u64;
    for case in inputs {
        at.extend_from_slice(&off.to_le_bytes());
        off += case.len() as u64;
        words.extend(case.iter().flat_map(|w| w.to_le_bytes()));
    }
    at.extend_from_slice(&off.to_le_bytes());
    let outs = prog.run(
        &e.check.entry,
        count,
        // One work item a work group: the private buffers are large, and a
        // runtime that keeps one copy per work item of a group (PoCL's work
        // item loops may) would need them many times over.
        Some(1),
        &[
            cl::Arg::In(&words),
            cl::Arg::In(&at),
            cl::Arg::Out(count * cap * 8),
            cl::Arg::Out(count * 8),
            cl::Arg::U32(count as u32),
            cl::Arg::U32(cap as u32),
        ],
    )?;
    let word = |b: &[u8], i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap());
    Ok((0..count)
        .map(|i| {
            let n = word(&outs[1], i);
            (n as usize <= cap).then(|| (0..n as usize).map(|k| word(&outs[0], i * cap + k)).collect())
        })
        .collect())
}

fn hex(ws: &[u64]) -> String {
    ws.iter().map(|w| format!("{w:x}")).collect::<Vec<_>>().join(" ")
}

/// The cases of an entry: its corpus cases (those of its word count) and
/// `random` random inputs, with the expected words (the corpus's, the
/// reference's for the random ones).
#[derive(Debug, Clone, Default)]
pub struct Cases {
    pub corpus: usize,
    pub random: usize,
    pub inputs: Vec<Vec<u64>>,
    pub expected: Vec<Vec<u64>>,
}

/// The corpus cases and `random` random inputs of an entry.
pub fn cases(s: &Setup, e: &ClEntry, random: usize, seed: u64) -> Result<Cases, String> {
    let reference = aether_reference::flat::lookup(&e.check.family, &e.check.shape, &e.check.elem)
        .ok_or_else(|| format!("the reference has no {} {} {}", e.check.family, e.check.shape, e.check.elem))?;
    let corpus: Vec<&Case> = s
        .corpus
        .get(&e.check.c_name)
        .map(|c| c.iter().filter(|k| e.variable || k.inputs.len() == e.check.n_in).collect())
        .unwrap_or_default();
    let mut inputs: Vec<Vec<u64>> = corpus.iter().map(|k| k.inputs.clone()).collect();
    let mut expected: Vec<Vec<u64>> = corpus.iter().map(|k| k.expected.clone()).collect();
    let rand = random_inputs(&s.model, e, random, seed);
    expected.extend(rand.iter().map(|i| reference(i)));
    inputs.extend(rand);
    Ok(Cases { corpus: corpus.len(), random, inputs, expected })
}

/// Judges an entry's results (`None`: the thunk refused the words) under
/// the policy.
pub fn tally(e: &ClEntry, c: &Cases, got: &[Option<Vec<u64>>]) -> Tally {
    let mut t = Tally {
        entry: e.check.entry.clone(),
        c_name: e.check.c_name.clone(),
        elem: e.check.elem.clone(),
        corpus: c.corpus,
        random: c.random,
        ..Tally::default()
    };
    for ((inp, exp), act) in c.inputs.iter().zip(&c.expected).zip(got) {
        let ok = act.as_ref().is_some_and(|a| policy::matches(exp, a, e.elem_bits, e.is_float, e.either_zero));
        if !ok {
            t.mismatches += 1;
            if t.first.is_none() {
                let a = act.as_ref().map_or("refused".to_string(), |a| hex(a));
                t.first = Some(format!("in [{}] expected [{}] got [{a}]", hex(inp), hex(exp)));
            }
        }
    }
    t
}

/// Runs an entry on its corpus cases and `random` random inputs and compares
/// every result with the reference under the policy.
pub fn check_entry(s: &Setup, prog: &cl::Program, e: &ClEntry, random: usize, seed: u64) -> Result<Tally, String> {
    let c = cases(s, e, random, seed)?;
    let got = if e.variable {
        let cap = c.expected.iter().map(Vec::len).max().unwrap_or(0).max(1);
        run_variable(prog, e, &c.inputs, cap)?
    } else {
        run_entry(prog, e, &c.inputs)?
    };
    Ok(tally(e, &c, &got))
}

/// What the self-test kernel reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelfTest {
    pub status: u32,
    /// The failed witnesses, those no detected cause explains first.
    pub failed: Vec<u32>,
    pub run: u32,
    pub skipped: u32,
    /// The causes the cause probes detect (`selftest::Cause` bits).
    pub causes: u32,
    /// How many failed witnesses a detected cause explains.
    pub explained: u32,
    /// The detected causes that explain them.
    pub explaining: u32,
}

impl SelfTest {
    /// The status bits by name, and the failed witnesses by function and rule.
    pub fn describe(&self, program: &ClProgram) -> String {
        let mut parts = Vec::new();
        if self.status & 2 != 0 {
            parts.push("FLUSH_TO_ZERO (f32/f64 results flushed: -cl-denorms-are-zero?)".to_string());
        }
        if self.status & 4 != 0 {
            parts.push("DENORMALS_ARE_ZERO (subnormal operands read as zero: -cl-denorms-are-zero?)".to_string());
        }
        if self.status & 8 != 0 {
            let names: Vec<String> = self
                .failed
                .iter()
                .filter_map(|i| program.witnesses.get(*i as usize))
                .map(|w| format!("{} ({})", w.c_name, w.mutant.name()))
                .collect();
            let rules = self.failed.len().saturating_sub(self.explained as usize);
            parts.push(format!("WITNESS: {} of {} failed: {}", self.failed.len(), self.run, names.join(", ")));
            if self.explained > 0 {
                parts.push(format!(
                    "{} explained by {} (the cause probes show {})",
                    self.explained,
                    selftest::Cause::names(self.explaining, ", "),
                    selftest::Cause::names(self.causes, ", ")
                ));
            }
            if self.status & 256 != 0 {
                parts.push(format!("RULE: {rules} no detected cause explains"));
            }
        }
        if parts.is_empty() {
            let seen = if self.causes != 0 {
                format!("; the cause probes show {} in plain code, and the core's guards held", selftest::Cause::names(self.causes, ", "))
            } else {
                String::new()
            };
            format!("OK ({} witnesses, {} skipped, subnormal probes exact{seen})", self.run, self.skipped)
        } else {
            parts.join("; ")
        }
    }
}

/// Runs the self-test kernel (one work item).
pub fn selftest(prog: &cl::Program) -> Result<SelfTest, String> {
    const CAP: usize = 256;
    let outs = prog.run("aether_selftest", 1, None, &[cl::Arg::Out(28), cl::Arg::Out(CAP * 4), cl::Arg::U32(CAP as u32)])?;
    let u = |b: &[u8], i: usize| u32::from_le_bytes(b[i * 4..i * 4 + 4].try_into().unwrap());
    let nfail = u(&outs[0], 1);
    Ok(SelfTest {
        status: u(&outs[0], 0),
        failed: (0..(nfail as usize).min(CAP)).map(|i| u(&outs[1], i)).collect(),
        run: u(&outs[0], 2),
        skipped: u(&outs[0], 3),
        causes: u(&outs[0], 4),
        explained: u(&outs[0], 5),
        explaining: u(&outs[0], 6),
    })
}

/// The work-group size the batched kernels run in; the item counts they are
/// checked on are not multiples of it (the last group's items past n do
/// nothing).
pub const BATCH_GROUP: usize = 64;

/// Runs batch `b` on `items` random items (structure of arrays, one
/// `__global` array per parameter and result) and compares item by item
/// with the reference: the function's flat words, or for a solve the
/// reference's factorisation then its solve. `Tally::random` is the item
/// count.
pub fn check_batch(s: &Setup, prog: &cl::Program, b: &SoaBatch, items: usize, seed: u64) -> Result<Tally, String> {
    let model = &s.model;
    let lowered = model.lowered();
    let mut r = SplitMix64::for_name(&format!("batch {}", b.name), seed);
    let lookup = |family: &str| {
        aether_reference::flat::lookup(family, &b.shape, &b.elem)
            .ok_or_else(|| format!("the reference has no {family} {} {}", b.shape, b.elem))
    };
    // Per item: the input words (in array order) and the expected result
    // words (in array order).
    let mut inputs: Vec<Vec<u64>> = Vec::with_capacity(items);
    let mut expected: Vec<Vec<u64>> = Vec::with_capacity(items);
    match b.what {
        SoaWhat::Function => {
            let f = lowered.iter().find(|f| model.c_name(f) == b.callable).ok_or("a batch of no function")?;
            let reference = lookup(&b.family)?;
            for _ in 0..items {
                let w = kernel::random_callable_input(model, &lowered, Callable::Function(f), &mut r);
                expected.push(reference(&w));
                inputs.push(w);
            }
        }
        SoaWhat::Solve { lu, n } => {
            let rules = Rules::new(model, &lowered, &b.elem);
            let (factor, solve) = (lookup(&b.factor_family)?, lookup(&b.family)?);
            let routine = if lu { aether_generator::spec::Routine::Lu } else { aether_generator::spec::Routine::Cholesky };
            for _ in 0..items {
                let mut w = linalg::random_single(&rules, routine, n, &mut r);
                let rhs = rng::input(&mut r, b.bits, n);
                let fac = factor(&w);
                // lu: the factors, n pivots, info; cholesky: the factor, info.
                let nn = n * n;
                let mut sw = fac[..nn].to_vec();
                if lu {
                    sw.extend_from_slice(&fac[nn..nn + n]);
                }
                sw.extend_from_slice(&rhs);
                let mut e = solve(&sw);
                e.push(*fac.last().unwrap());
                expected.push(e);
                w.extend(rhs);
                inputs.push(w);
            }
        }
    }
    // The arrays: component c of item i at [c * items + i].
    let width = |a: &SoaArray| if a.c_type == "int" || b.bits == 32 { 4 } else { 8 };
    let mut args_in: Vec<Vec<u8>> = Vec::new();
    let mut at = 0;
    for a in b.arrays.iter().filter(|a| a.input) {
        let mut bytes = Vec::with_capacity(a.per_item * items * width(a));
        for c in 0..a.per_item {
            for w in &inputs {
                let x = w[at + c];
                if width(a) == 4 {
                    bytes.extend_from_slice(&(x as u32).to_le_bytes());
                } else {
                    bytes.extend_from_slice(&x.to_le_bytes());
                }
            }
        }
        at += a.per_item;
        args_in.push(bytes);
    }
    let mut args: Vec<cl::Arg> = Vec::new();
    let mut k = 0;
    for a in &b.arrays {
        if a.input {
            args.push(cl::Arg::In(&args_in[k]));
            k += 1;
        } else {
            args.push(cl::Arg::Out(a.per_item * items * width(a)));
        }
    }
    args.push(cl::Arg::U64(items as u64));
    let global = items.div_ceil(BATCH_GROUP) * BATCH_GROUP;
    let outs = prog.run(&b.name, global, Some(BATCH_GROUP), &args)?;
    let mut t = Tally { entry: b.name.clone(), c_name: b.callable.clone(), elem: b.elem.clone(), random: items, ..Tally::default() };
    for (i, (inp, exp)) in inputs.iter().zip(&expected).enumerate() {
        let mut got = Vec::new();
        for (a, o) in b.arrays.iter().filter(|a| !a.input).zip(&outs) {
            for c in 0..a.per_item {
                let j = c * items + i;
                got.push(if a.c_type == "int" {
                    // An int result (a truth value, a factorisation's info) as the
                    // reference's 64-bit word.
                    i64::from(i32::from_le_bytes(o[j * 4..j * 4 + 4].try_into().unwrap())) as u64
                } else if width(a) == 4 {
                    u64::from(u32::from_le_bytes(o[j * 4..j * 4 + 4].try_into().unwrap()))
                } else {
                    u64::from_le_bytes(o[j * 8..j * 8 + 8].try_into().unwrap())
                });
            }
        }
        if !policy::matches(exp, &got, b.bits, b.is_float, b.either_zero) {
            t.mismatches += 1;
            if t.first.is_none() {
                t.first = Some(format!("item {i}: in [{}] expected [{}] got [{}]", hex(inp), hex(exp), hex(&got)));
            }
        }
    }
    Ok(t)
}
