//! The comparison, written once for every stack: the inputs of each entry
//! of a check module, the reference's results, and each case judged under the
//! target's band (`aether_generator::bands`, the one policy).

use std::collections::BTreeMap;

use aether_generator::bands;
use aether_generator::corpus::ParsedFunction;
use aether_generator::kernel;
use aether_generator::linalg;
use aether_generator::model::{Callable, KernelKind, Model};
use aether_generator::rng::SplitMix64;
use aether_generator::spec::BandMetric;
use aether_generator::targets::shared::check::CheckModule;

use crate::exec::{Error, Executor, Job};
use crate::inputs::{self, Draw, Inputs, Source};

/// One entry's cases and the reference's results, shared by every stack and
/// every control module (matched by C name).
#[derive(Debug, Clone)]
pub struct EntryCases {
    /// The entry point (a callable can have several: the butterfly per
    /// invocation and across a workgroup).
    pub entry: String,
    pub c_name: String,
    /// The callable's index in `model.callables()`.
    pub at: usize,
    pub n_in: usize,
    pub n_out: usize,
    pub inputs: Inputs,
    /// `n_out` words per case.
    pub expected: Vec<u64>,
}

/// The inputs and expected results of every entry of `module`.
pub fn prepare(
    model: &Model,
    module: &CheckModule,
    corpus: &BTreeMap<String, ParsedFunction>,
    n_random: usize,
    seed: u64,
) -> Result<Vec<EntryCases>, String> {
    let callables = model.callables();
    let lowered = model.lowered();
    let mut out = Vec::new();
    for e in &module.entries {
        let at = callables
            .iter()
            .position(|c| c.c_name(model) == e.c_name)
            .ok_or_else(|| format!("entry {}: the model has no callable {}", e.entry, e.c_name))?;
        let c = callables[at];
        if (c.family(), c.shape(), c.elem()) != (e.family.as_str(), e.shape.as_str(), e.elem.as_str()) {
            return Err(format!(
                "entry {}: keys {} {} {} but {} is {} {} {}",
                e.entry,
                e.family,
                e.shape,
                e.elem,
                e.c_name,
                c.family(),
                c.shape(),
                c.elem()
            ));
        }
        let reference = aether_reference::flat::lookup(c.family(), c.shape(), c.elem())
            .ok_or_else(|| format!("{}: the reference has no {} {} {}", e.c_name, c.family(), c.shape(), c.elem()))?;
        let draw = match c {
            Callable::Kernel(k) => match k.kind {
                KernelKind::Linalg { routine, n, .. } => {
                    let rules = linalg::Rules::new(model, &lowered, &k.elem);
                    Some(move |r: &mut SplitMix64| linalg::random_single(&rules, routine, n, r))
                }
                _ => None,
            },
            Callable::Function(_) => None,
        };
        let draw_ref: Option<&Draw<'_>> = draw.as_ref().map(|d| d as &Draw<'_>);
        // A lanes kernel's `#first` and a plane's `#S` and element numbers
        // are whole numbers: drawn as such, the floats as every entry's.
        let (n_in, n_out) = (e.n_in, e.n_out);
        let whole = match c {
            Callable::Kernel(k) => match k.kind {
                // The kernel's own inputs (compensation-meaningful
                // elements, lanes as an accumulation leaves them) of the
                // entry's length, drawn until one has it.
                KernelKind::Lanes { .. } | KernelKind::Resolve => {
                    let lowered = &lowered;
                    Some(Box::new(move |r: &mut SplitMix64| {
                        for _ in 0..10_000 {
                            let w = kernel::random_input(model, lowered, k, r);
                            if w.len() == n_in {
                                return w;
                            }
                        }
                        let mut w = inputs::random_input(r, n_in);
                        if matches!(k.kind, KernelKind::Lanes { .. }) {
                            w[n_out] = r.below(1 << 20);
                        }
                        w
                    }) as Box<Draw<'_>>)
                }
                KernelKind::Plane { width } => Some(Box::new(move |r: &mut SplitMix64| {
                    let s = (n_out / (2 * width)) as u64;
                    let mut w = inputs::random_input(r, n_in);
                    w[0] = s;
                    for rec in (1..n_in).step_by(width + 1) {
                        w[rec] = r.below(s);
                    }
                    w
                }) as Box<Draw<'_>>),
                _ => None,
            },
            Callable::Function(_) => None,
        };
        let draw_ref = draw_ref.or(whole.as_deref());
        let inputs = inputs::for_entry(c, e, corpus.get(&e.c_name), n_random, seed, draw_ref);
        let mut expected = Vec::with_capacity(inputs.cases() * e.n_out);
        for k in 0..inputs.cases() {
            let r = reference(&inputs.words[k * e.n_in..(k + 1) * e.n_in]);
            if r.len() != e.n_out {
                return Err(format!("{}: the reference gives {} words, the entry {} has {}", e.c_name, r.len(), e.entry, e.n_out));
            }
            expected.extend(r);
        }
        out.push(EntryCases { entry: e.entry.clone(), c_name: e.c_name.clone(), at, n_in: e.n_in, n_out: e.n_out, inputs, expected });
    }
    Ok(out)
}

/// Runs the cases on a stack through `module` (the model's or a control's);
/// an entry of the module with no cases of its name and counts is left
/// out. The outputs by entry name (`n_out` words per case, as u64).
pub fn execute(exec: &mut dyn Executor, module: &CheckModule, cases: &[EntryCases]) -> Result<BTreeMap<String, Vec<u64>>, Error> {
    let mut jobs = Vec::new();
    // Each job's entry name; an entry's cases are cut into jobs whose input
    // and output words stay under MAX_JOB_BYTES (a stack binds a storage
    // buffer of at most 128 MiB: wgpu's default limit).
    let mut names: Vec<String> = Vec::new();
    for (i, e) in module.entries.iter().enumerate() {
        if let Some(c) = cases.iter().find(|c| c.entry == e.entry && c.c_name == e.c_name && c.n_in == e.n_in && c.n_out == e.n_out) {
            if e.n_in == 0 {
                jobs.push(Job::without_inputs(i, c.inputs.cases()));
                names.push(e.entry.clone());
                continue;
            }
            let per_job = (MAX_JOB_BYTES / (8 * e.n_in.max(e.n_out))).max(1);
            for chunk in c.inputs.words.chunks(per_job * e.n_in) {
                jobs.push(Job::new(module, i, chunk.to_vec()));
                names.push(e.entry.clone());
            }
        }
    }
    let outs = exec.run(module, &jobs)?;
    let mut out: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for (name, words) in names.into_iter().zip(outs) {
        out.entry(name).or_default().extend(words);
    }
    Ok(out)
}

/// The most bytes of input or output words one job carries (as 64-bit words
/// on the host; the WGSL stacks upload half of that).
pub const MAX_JOB_BYTES: usize = 128 << 20;

/// An input, the reference's words and the stack's, for the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Example {
    pub inputs: Vec<u64>,
    pub expected: Vec<u64>,
    pub got: Vec<u64>,
    pub ulp: f64,
    pub factor: f64,
}

/// One entry on one stack.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub entry: String,
    pub c_name: String,
    pub source: Source,
    pub corpus: usize,
    pub corpus_skipped: usize,
    pub random: usize,
    pub cases: usize,
    pub in_domain: usize,
    pub identical: usize,
    /// Worst over the in-domain cases.
    pub worst_ulp: f64,
    pub worst_factor: f64,
    pub band: String,
    /// In-domain cases outside the band.
    pub outside: usize,
    /// Out-of-domain cases that are not identical.
    pub ood_differ: usize,
    /// The in-domain case farthest outside the band (worst ULP), if any.
    pub worst_outside: Option<Example>,
    /// The in-domain cases of the worst ULP distance and of the worst
    /// forward-error factor, when not zero.
    pub worst_ulp_case: Option<Example>,
    pub worst_factor_case: Option<Example>,
}

/// Judges one entry's outputs against the reference; on a stack that rounds
/// every operation to nearest ([`Executor::rounds_to_nearest`]) what the
/// spec leaves unbounded (the per-lane linear algebra, the elementary
/// functions and what is built on them, the adjugate inverse) is held to
/// bits: there the only freedom left is reassociation and fusion, which the
/// guards stop where a tree rests on rounding, and the target's bands are
/// for the stacks that round otherwise.
pub fn judge(model: &Model, c: &EntryCases, got: &[u64], rounds_to_nearest: bool) -> Row {
    judge_on(model, aether_generator::targets::wgsl::BANDS, c, got, rounds_to_nearest)
}

/// [`judge`] under the band table `bands_key` (`[bands.<key>]`: the
/// executor's target's, [`Executor::bands`]).
pub fn judge_on(model: &Model, bands_key: &str, c: &EntryCases, got: &[u64], rounds_to_nearest: bool) -> Row {
    let callable: Callable = model.callables()[c.at];
    let mut band = bands::band_on(model, bands_key, callable);
    let held = rounds_to_nearest && band.stated == BandMetric::Unbounded;
    if held {
        band = bands::Band { metrics: vec![bands::Metric::Bits; band.metrics.len()], stated: BandMetric::Bits, ..band };
    }
    let mut row = Row {
        entry: c.entry.clone(),
        c_name: c.c_name.clone(),
        source: c.inputs.source,
        corpus: c.inputs.corpus,
        corpus_skipped: c.inputs.corpus_skipped,
        random: c.inputs.random,
        cases: c.inputs.cases(),
        in_domain: 0,
        identical: 0,
        worst_ulp: 0.0,
        worst_factor: 0.0,
        band: if held { format!("{} (this stack)", band.summary()) } else { band.summary() },
        outside: 0,
        ood_differ: 0,
        worst_outside: None,
        worst_ulp_case: None,
        worst_factor_case: None,
    };
    for k in 0..c.inputs.cases() {
        let input = &c.inputs.words[k * c.n_in..(k + 1) * c.n_in];
        let expected = &c.expected[k * c.n_out..(k + 1) * c.n_out];
        let got = &got[k * c.n_out..(k + 1) * c.n_out];
        let j = bands::judge(model, callable, &band, input, expected, got);
        row.identical += usize::from(j.identical);
        if j.in_domain {
            row.in_domain += 1;
            let example =
                || Example { inputs: input.to_vec(), expected: expected.to_vec(), got: got.to_vec(), ulp: j.ulp, factor: j.factor };
            if j.ulp > row.worst_ulp {
                row.worst_ulp = j.ulp;
                row.worst_ulp_case = Some(example());
            }
            if j.factor > row.worst_factor {
                row.worst_factor = j.factor;
                row.worst_factor_case = Some(example());
            }
            if !j.within {
                row.outside += 1;
                if row.worst_outside.as_ref().is_none_or(|w| j.ulp > w.ulp) {
                    row.worst_outside = Some(example());
                }
            }
        } else if !j.identical {
            row.ood_differ += 1;
        }
    }
    row
}

/// What one stack gave on one module.
#[derive(Debug, Clone)]
pub struct StackRun {
    pub stack: String,
    pub adapter: String,
    pub rows: Vec<Row>,
    /// The raw outputs by entry name (for comparing a control with the baseline).
    pub outputs: BTreeMap<String, Vec<u64>>,
}

/// Runs every entry of `module` on `exec` and judges it.
pub fn run_stack(model: &Model, exec: &mut dyn Executor, module: &CheckModule, cases: &[EntryCases]) -> Result<StackRun, Error> {
    let outputs = execute(exec, module, cases)?;
    let (exact, key) = (exec.rounds_to_nearest(), exec.bands());
    let rows = cases.iter().filter_map(|c| outputs.get(&c.entry).map(|o| judge_on(model, key, c, o, exact))).collect();
    Ok(StackRun { stack: exec.stack().to_string(), adapter: exec.adapter(), rows, outputs })
}

/// A function whose results a control changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub entry: String,
    pub c_name: String,
    /// Bit-identical cases under the model's module and under the control's.
    pub identical_before: usize,
    pub identical_after: usize,
    /// Cases whose result words differ between the two modules.
    pub cases_differ: usize,
    pub cases: usize,
}

/// The functions that stop being bit-identical under a control: fewer
/// identical cases than the baseline had, on the same inputs.
pub fn changes(baseline: &StackRun, control: &StackRun) -> Vec<Change> {
    let mut out = Vec::new();
    for r in &control.rows {
        let Some(b) = baseline.rows.iter().find(|b| b.entry == r.entry) else { continue };
        let differ = match (baseline.outputs.get(&r.entry), control.outputs.get(&r.entry)) {
            (Some(x), Some(y)) if x.len() == y.len() && r.cases > 0 => {
                let n_out = x.len() / r.cases;
                x.chunks_exact(n_out.max(1)).zip(y.chunks_exact(n_out.max(1))).filter(|(p, q)| p != q).count()
            }
            _ => 0,
        };
        if r.identical < b.identical {
            out.push(Change {
                entry: r.entry.clone(),
                c_name: r.c_name.clone(),
                identical_before: b.identical,
                identical_after: r.identical,
                cases_differ: differ,
                cases: r.cases,
            });
        }
    }
    out
}
