//! What every stack implements: run the entries of one WGSL check module on
//! input words, and give back the result words. The binding convention and
//! the dispatch plan are the check module's (`aether_generator::targets::wgsl`),
//! shared here by every executor.

use aether_generator::targets::shared::check::{CheckEntry, CheckModule};

use crate::glsl_draw;

/// The most workgroups one dispatch may have in x (WebGPU's
/// `maxComputeWorkgroupsPerDimension` default, which every stack allows).
pub const MAX_WORKGROUPS: u32 = 65535;

/// The bits of 1.0f32: `params.z`, the opaque one of the opaque-one control.
pub const ONE_BITS: u32 = 0x3f80_0000;

/// An executor's failure, as text that says what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The stack is not installed here (its driver, runtime or package).
    NotInstalled(String),
    /// The stack is there but the module or a run failed (a shader compile
    /// error carries the compiler's messages).
    Failed(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::NotInstalled(m) => write!(f, "not installed: {m}"),
            Error::Failed(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

/// The cases of one entry: `count` inputs of the entry's `n_in` words each,
/// one after another: 64-bit words, an f32's bits in the low 32 (the flat
/// convention's), so one job serves the WGSL stacks (which upload and read
/// back 32-bit words) and the OpenCL stack (f64 and integer words too).
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// The index of the entry in the module's `entries`.
    pub entry: usize,
    pub count: usize,
    pub inputs: Vec<u64>,
    /// The GL stacks' bound words: at most [`glsl_draw::BOUND_WORDS`] (the
    /// bits of 16 f32 values) that the GLES and WebGL executors bind to the
    /// entry's probe block, probe uniform or probe attributes (the
    /// convention is [`crate::glsl_draw`]'s); empty for ordinary jobs. The
    /// WebGPU and OpenCL executors ignore them.
    pub bound: Vec<u32>,
}

impl Job {
    /// A job of `inputs.len() / n_in` cases of entry `entry` (an entry
    /// without inputs takes `Job::without_inputs`).
    pub fn new(module: &CheckModule, entry: usize, inputs: Vec<u64>) -> Job {
        let n_in = module.entries[entry].n_in;
        let count = inputs.len().checked_div(n_in).unwrap_or(0);
        Job { entry, count, inputs, bound: Vec::new() }
    }

    /// `count` cases of an entry that reads no input words.
    pub fn without_inputs(entry: usize, count: usize) -> Job {
        Job { entry, count, inputs: Vec::new(), bound: Vec::new() }
    }

    /// The job with bound words `words` (at most
    /// [`glsl_draw::BOUND_WORDS`]; [`check_jobs`] rejects more).
    pub fn with_bound(self, words: Vec<u32>) -> Job {
        Job { bound: words, ..self }
    }
}

/// One stack: a WebGPU implementation on one adapter.
pub trait Executor {
    /// The stack's short name (`wgpu`, `dawn`).
    fn stack(&self) -> &'static str;
    /// The adapter and driver, as the stack reports them.
    fn adapter(&self) -> String;
    /// Runs every job on the module's entries: one vector of result words
    /// (`count * n_out`, 64-bit as the inputs) per job, in order.
    fn run(&mut self, module: &CheckModule, jobs: &[Job]) -> Result<Vec<Vec<u64>>, Error>;
    /// Whether the stack rounds every + - * / and sqrt to nearest and fuses
    /// nothing, as the CPU stacks do (lavapipe, SwiftShader: measured in
    /// docs/reports/wgsl.md). WGSL promises neither, so the per-lane linear
    /// algebra is `unbounded` in the spec's WGSL bands (a GPU driver divides
    /// within 2 ulp and fuses products: docs/reports/gpu-targets.md); on such
    /// a stack the runner holds it to the reference's bits all the same, as
    /// a check of the printer.
    fn rounds_to_nearest(&self) -> bool {
        false
    }
    /// The key of the band table its results are judged under
    /// (`[bands.<key>]`): the WGSL core's unless the stack runs another
    /// target's module (GLSL ES: `glsl`).
    fn bands(&self) -> &'static str {
        aether_generator::targets::wgsl::BANDS
    }
}

/// One dispatch of an entry: cases `first..first + cases`, in `workgroups`
/// workgroups; `params.w` = `first`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dispatch {
    pub first: u32,
    pub cases: u32,
    pub workgroups: u32,
}

/// The dispatches that run `count` cases of an entry, none over
/// [`MAX_WORKGROUPS`] workgroups.
pub fn dispatches(entry: &CheckEntry, count: usize) -> Result<Vec<Dispatch>, Error> {
    let per_group = entry.cases_per_workgroup;
    if per_group == 0 || (per_group != 1 && per_group != entry.workgroup_size) {
        return Err(Error::Failed(format!(
            "entry {}: cases_per_workgroup {} is neither 1 nor the workgroup size {}",
            entry.entry, per_group, entry.workgroup_size
        )));
    }
    let count = u32::try_from(count).map_err(|_| Error::Failed(format!("entry {}: {count} cases do not fit a u32", entry.entry)))?;
    let per_dispatch = per_group.saturating_mul(MAX_WORKGROUPS);
    let mut out = Vec::new();
    let mut first = 0u32;
    while first < count {
        let cases = per_dispatch.min(count - first);
        out.push(Dispatch { first, cases, workgroups: cases.div_ceil(per_group) });
        first += cases;
    }
    Ok(out)
}

/// The uniform `params` of a dispatch: (case count, 0, bits of 1.0, first case).
pub fn params(count: usize, first: u32) -> [u32; 4] {
    [count as u32, 0, ONE_BITS, first]
}

/// Checks the jobs against the module before a run.
pub fn check_jobs(module: &CheckModule, jobs: &[Job]) -> Result<(), Error> {
    for j in jobs {
        let e = module.entries.get(j.entry).ok_or_else(|| Error::Failed(format!("job for entry #{}: no such entry", j.entry)))?;
        if j.inputs.len() != j.count * e.n_in {
            return Err(Error::Failed(format!(
                "entry {}: {} input words for {} cases of {} words",
                e.entry,
                j.inputs.len(),
                j.count,
                e.n_in
            )));
        }
        if j.bound.len() > glsl_draw::BOUND_WORDS {
            return Err(Error::Failed(format!(
                "entry {}: {} bound words, more than the {} a job may bind",
                e.entry,
                j.bound.len(),
                glsl_draw::BOUND_WORDS
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(workgroup_size: u32, cases_per_workgroup: u32) -> CheckEntry {
        CheckEntry {
            entry: "e".into(),
            c_name: "c".into(),
            family: "f".into(),
            shape: "scalar".into(),
            elem: "f32".into(),
            n_in: 1,
            n_out: 1,
            workgroup_size,
            cases_per_workgroup,
            random: true,
            max_random: None,
        }
    }

    #[test]
    fn dispatches_cover_every_case_once_within_the_limit() {
        for (e, count) in [(entry(64, 64), 0usize), (entry(64, 64), 1), (entry(64, 64), 10_000_000), (entry(32, 1), 200_000)] {
            let d = dispatches(&e, count).unwrap();
            let mut next = 0;
            for x in &d {
                assert_eq!(x.first, next);
                assert!(x.workgroups <= MAX_WORKGROUPS && x.workgroups >= 1);
                assert!(x.workgroups * e.cases_per_workgroup >= x.cases);
                next += x.cases;
            }
            assert_eq!(next as usize, count);
        }
        assert_eq!(dispatches(&entry(32, 1), 65536).unwrap().len(), 2);
        assert!(dispatches(&entry(32, 7), 5).is_err());
    }

    #[test]
    fn check_jobs_takes_up_to_16_bound_words() {
        let m = glsl_draw::toy_module();
        let job = |n: usize| Job::without_inputs(3, 2).with_bound((0..n as u32).collect());
        assert_eq!(Job::new(&m, 0, vec![1, 2]).bound, Vec::<u32>::new());
        assert_eq!(Job::without_inputs(3, 1).bound, Vec::<u32>::new());
        assert_eq!(job(5).bound, vec![0, 1, 2, 3, 4]);
        assert_eq!((job(5).entry, job(5).count), (3, 2));
        check_jobs(&m, &[job(0), job(1), job(glsl_draw::BOUND_WORDS)]).unwrap();
        let err = check_jobs(&m, &[job(0), job(glsl_draw::BOUND_WORDS + 1)]).unwrap_err();
        let Error::Failed(msg) = err else { panic!("{err:?}") };
        assert!(msg.contains("t_bound_block") && msg.contains("17 bound words"), "{msg}");
    }
}
