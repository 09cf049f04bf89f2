//! `aether-runner df64`: the f64 functions in df64 on the WGSL stacks
//! (`wgsl_core/aether_df64.wgsl`, the check module of `targets::wgsl::df64`)
//! and on the GL stacks (`glsl_core/aether_df64.glsl`, `targets::glsl::df64`).
//!
//! Per function, on the corpus and N random inputs: the device's pairs
//! against the host df64 (the same tree, each rounded operation the
//! hand-written `aether_reference::df64` operation: `df64::host`), bit for
//! bit; and the device's value against the f64 reference, within the running
//! bound the generator composes from the stated operation bounds
//! (`Df64Spec::running_bound`). Cases outside the domain are counted by
//! reason. Then the probes (each built so that the contract's f32 function
//! fails it), computed on the device and loaded from storage (a texture
//! fetch in GLSL ES); on the GL stacks also the seed's probe, (1e8 + 0.5) -
//! 1e8 with the pairs from a uniform block, a plain uniform, an attribute
//! and computed in the shader.
//!
//! `--guard none|opaque-one` runs a control module (the guard removed, or
//! the opaque-one guard): it must put cases outside the bound. `--no-renorm`
//! removes the loaded-low-word guard and reports whether anything changes
//! (on a stack that drops a loaded low word, results do).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Instant;

use aether_generator::df64::{self, Df64Spec, U2};
use aether_generator::model::{Function, Model};
use aether_generator::rng::SplitMix64;
use aether_generator::targets::shared::check::{CheckEntry, CheckModule, Guard};
use aether_reference::df64::Df64;

use crate::exec::{Executor, Job};
use crate::lang::Lang;

/// Cases per job.
const CHUNK: usize = 1 << 16;

/// One function's line of the run.
#[derive(Debug, Clone, Default)]
pub struct Line {
    pub c_name: String,
    pub cases: usize,
    pub in_domain: usize,
    /// In-domain cases whose pairs are the host df64's, bit for bit (under
    /// the comparison policy).
    pub identical: usize,
    /// In-domain cases that differ from the host's only in the sign of a
    /// zero word.
    pub zero_sign: usize,
    /// In-domain cases that are not the host df64's but are the flushing
    /// host's (`df64::host_ftz`: every subnormal binary32 operand and result
    /// a zero): a residual the stack flushed (both GL stacks flush in a
    /// vertex shader; the spec's domain bounds the loss, not the bits).
    pub flushed: usize,
    /// In-domain cases outside the bound.
    pub outside: usize,
    /// The worst relative error in u^2 (over result words whose reference
    /// is not zero) and the bound there, and the case.
    pub worst: f64,
    pub worst_bound: f64,
    pub worst_case: Option<String>,
    /// The largest error / bound over the in-domain result words (at most 1
    /// when every case is within its bound).
    pub tightest: f64,
    /// The tree's constant bound in u^2, where it cannot cancel.
    pub constant: Option<f64>,
    pub out_of_domain: BTreeMap<&'static str, usize>,
    /// Out-of-domain cases whose pairs are the host's anyway.
    pub ood_identical: usize,
    /// The first in-domain case whose pairs are not the host's.
    pub first_differ: Option<String>,
    /// In-domain result pairs, and those whose low word the device lost
    /// (zero where the host's is not): the guard-free failure's signature.
    pub words: usize,
    pub lo_lost: usize,
}

/// The packed pair words of a case's binary64 inputs.
fn pairs(words: &[u64]) -> Vec<u64> {
    words.iter().map(|w| Df64::from_f64(f64::from_bits(*w)).to_word()).collect()
}

/// The u32 words the check module reads (hi, lo per binary64 word).
fn job_words(pairs: &[u64], out: &mut Vec<u64>) {
    for p in pairs {
        out.push(p & 0xffff_ffff);
        out.push(p >> 32);
    }
}

/// A random binary64 value of the domain: random sign and significand, the
/// exponent uniform in [-30, 30]; 1 in 16 a small whole number, 1 in 32 zero.
fn value(r: &mut SplitMix64) -> f64 {
    match r.below(32) {
        0 => 0.0,
        1 | 2 => (r.below(33) as f64) - 16.0,
        _ => {
            let e = r.below(61) as i32 - 30;
            let m = 1.0 + (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            if r.next_u64() & 1 == 0 {
                m * 2f64.powi(e)
            } else {
                -m * 2f64.powi(e)
            }
        }
    }
}

/// One random input of `n` binary64 words; one in four has its second half
/// a near copy of its first (the words perturbed by 2^-k relative, k in
/// 1..48): the cancellations of a difference, a cross product, a
/// determinant.
fn random_input(r: &mut SplitMix64, n: usize) -> Vec<u64> {
    let mut w: Vec<f64> = (0..n).map(|_| value(r)).collect();
    if n >= 2 && r.below(4) == 0 {
        let h = n / 2;
        for k in 0..h {
            let e = 1 + r.below(48) as i32;
            w[h + k] = w[k] * (1.0 + if r.next_u64() & 1 == 0 { 2f64.powi(-e) } else { -(2f64.powi(-e)) });
        }
    }
    w.into_iter().map(f64::to_bits).collect()
}

/// Judges one function's device results.
fn judge(spec: &Df64Spec, f: &Function, c_name: &str, inputs: &[Vec<u64>], got: &[u64], n_out: usize, line: &mut Line) {
    let reference = aether_reference::flat::lookup(&f.family, &f.shape, "f64");
    for (k, words) in inputs.iter().enumerate() {
        line.cases += 1;
        let p = pairs(words);
        let host = df64::host(f, &p);
        let dev = &got[k * n_out..(k + 1) * n_out];
        let dev_pairs: Vec<u64> = if f.returns_bool() { vec![dev[0]] } else { dev.chunks(2).map(|c| c[0] | (c[1] << 32)).collect() };
        // Bit identity under the contract's comparison policy
        // (`policy::word_matches`: any NaN for any NaN, the zero sign only
        // where the family has either-zero slack), each word of a pair an f32;
        // a difference in zero signs alone is counted apart, as WGSL's bands
        // allow it (lavapipe turns a chosen +0 into -0).
        let words_of = |v: &[u64]| -> Vec<u64> {
            if f.returns_bool() {
                v.to_vec()
            } else {
                v.iter().flat_map(|p| [p & 0xffff_ffff, p >> 32]).collect()
            }
        };
        let (dw, hw) = (words_of(&dev_pairs), words_of(&host));
        let is_float = !f.returns_bool();
        let same = aether_generator::policy::matches(&hw, &dw, 32, is_float, f.either_zero);
        let zero_sign = !same && aether_generator::policy::matches(&hw, &dw, 32, is_float, true);
        // Else the host df64 of a stack that flushes subnormals (both GL
        // stacks do in a vertex shader): a residual below binary32's normal
        // range is lost there, and with it the bits, within the bound.
        let flushed = !same && !zero_sign && {
            let ftz = words_of(&df64::host_ftz(spec, f, &p));
            aether_generator::policy::matches(&ftz, &dw, 32, is_float, f.either_zero)
        };
        let vals: Vec<f64> = words.iter().map(|w| f64::from_bits(*w)).collect();
        match spec.running_bound(f, &vals) {
            Err(why) => {
                *line.out_of_domain.entry(why).or_default() += 1;
                line.ood_identical += usize::from(same || zero_sign || flushed);
            }
            Ok(bounds) => {
                line.in_domain += 1;
                line.identical += usize::from(same);
                line.zero_sign += usize::from(zero_sign);
                line.flushed += usize::from(flushed);
                if !same && !zero_sign && !flushed && line.first_differ.is_none() {
                    line.first_differ = Some(format!(
                        "{:?}: device {dev_pairs:x?}, host {host:x?}",
                        words.iter().map(|w| f64::from_bits(*w)).collect::<Vec<_>>()
                    ));
                }
                if let Some(r) = reference {
                    let want = r(words);
                    for ((v, _), w) in bounds.iter().zip(&want) {
                        let ok = if f.returns_bool() { (*v != 0.0) == (*w != 0) } else { v.to_bits() == *w || *v == f64::from_bits(*w) };
                        assert!(ok, "{c_name}: the running bound's binary64 value is not the reference's on {words:x?}");
                    }
                }
                let mut bad = false;
                for (((v, e), d), h) in bounds.iter().zip(&dev_pairs).zip(&host) {
                    if f.returns_bool() {
                        bad |= (*v != 0.0) != (*d != 0);
                        continue;
                    }
                    line.words += 1;
                    line.lo_lost += usize::from(Df64::from_word(*d).lo == 0.0 && Df64::from_word(*h).lo != 0.0);
                    let x = Df64::from_word(*d).to_f64();
                    let err = (x - v).abs();
                    // to_f64 rounds once: 2^-53 of the value.
                    let allowed = e * (1.0 + 1e-6) + x.abs() * 2f64.powi(-53);
                    // A NaN error is outside too.
                    if err.partial_cmp(&allowed) != Some(std::cmp::Ordering::Less) && err != allowed {
                        bad = true;
                    }
                    if allowed > 0.0 {
                        line.tightest = line.tightest.max(err / allowed);
                    }
                    if *v != 0.0 {
                        let rel = err / v.abs() / U2;
                        if rel > line.worst {
                            line.worst = rel;
                            line.worst_bound = e / v.abs() / U2;
                            line.worst_case = Some(format!("{vals:?}"));
                        }
                    }
                }
                if bad {
                    line.outside += 1;
                    if line.outside == 1 {
                        line.worst_case = Some(format!("OUTSIDE: {vals:?} gave {dev_pairs:x?}"));
                    }
                }
            }
        }
    }
}

/// Runs every function of the module on one stack.
pub fn run(exec: &mut dyn Executor, model: &Model, module: &CheckModule, random: usize, only: Option<&str>) -> Result<Vec<Line>, String> {
    let spec = df64::of(model).ok_or("the spec has no [df64]")?;
    let lowered = model.lowered();
    let committed = aether_generator::corpus::read_committed(&aether_generator::default_root())?;
    let fs = spec.functions(&lowered);
    // The functions' cases, then one run per batch of functions (a stack
    // compiles the module once per run) whose input words stay below BATCH_WORDS.
    struct Work<'a> {
        at: usize,
        f: &'a Function,
        e: &'a CheckEntry,
        cases: usize,
        inputs: Vec<Vec<u64>>,
    }
    let mut work = Vec::new();
    for (at, e) in module.entries.iter().enumerate() {
        let Some(f) = fs.iter().find(|f| model.c_name(f) == e.c_name) else { continue };
        if only.is_some_and(|o| !e.c_name.contains(o)) {
            continue;
        }
        let cases = committed.get(&e.c_name).map_or(0, |p| p.cases.len()) + random;
        work.push(Work { at, f, e, cases, inputs: Vec::new() });
    }
    // A function's inputs: its corpus cases, then its own seeded random ones
    // (drawn only when its batch runs, so a long run holds one batch's).
    let draw = |w: &Work| -> Vec<Vec<u64>> {
        let mut inputs: Vec<Vec<u64>> =
            committed.get(&w.e.c_name).map(|p| p.cases.iter().map(|c| c.inputs.clone()).collect()).unwrap_or_default();
        let mut r = SplitMix64::new(0xdf64 ^ (w.at as u64) << 32);
        inputs.extend((0..random).map(|_| random_input(&mut r, w.f.input_words())));
        inputs
    };
    let mut lines = Vec::new();
    let mut k = 0;
    while k < work.len() {
        let mut end = k;
        let mut words = 0;
        while end < work.len() && (end == k || words + work[end].cases * work[end].e.n_in <= BATCH_WORDS) {
            words += work[end].cases * work[end].e.n_in;
            end += 1;
        }
        for w in &mut work[k..end] {
            w.inputs = draw(w);
        }
        let mut jobs = Vec::new();
        for w in &work[k..end] {
            for chunk in w.inputs.chunks(CHUNK) {
                if w.e.n_in == 0 {
                    jobs.push(Job::without_inputs(w.at, chunk.len()));
                    continue;
                }
                let mut ws = Vec::with_capacity(chunk.len() * w.e.n_in);
                for c in chunk {
                    job_words(&pairs(c), &mut ws);
                }
                jobs.push(Job::new(module, w.at, ws));
            }
        }
        let outs = exec.run(module, &jobs).map_err(|x| format!("{}: {x}", exec.stack()))?;
        let mut outs = outs.iter();
        for w in &work[k..end] {
            let mut line = Line { c_name: w.e.c_name.clone(), constant: spec.constant_bound(w.f), ..Line::default() };
            for chunk in w.inputs.chunks(CHUNK) {
                judge(spec, w.f, &w.e.c_name, chunk, outs.next().ok_or("a job's result is missing")?, w.e.n_out, &mut line);
            }
            lines.push(line);
        }
        for w in &mut work[k..end] {
            w.inputs = Vec::new();
        }
        k = end;
    }
    Ok(lines)
}

/// At most this many input words per run (64-bit on the host: 512 MiB).
const BATCH_WORDS: usize = 1 << 26;

// ------------------------------------------------------------------- probes

/// Where a probe's pairs come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum From {
    /// Formed on the device by aether_df64_add from f32 words of the input.
    Computed,
    /// The input words (a storage buffer in WGSL, a texture fetch in GLSL).
    Loaded,
    /// GLSL ES: the uniform block `aether_probe_block` (glsl_draw's bound words).
    Block,
    /// GLSL ES: the plain uniform `aether_probe_u`.
    Uniform,
    /// GLSL ES: the vertex attributes `aether_probe_a0..3`.
    Attribute,
}

impl From {
    fn name(self) -> &'static str {
        match self {
            From::Computed => "computed",
            From::Loaded => "loaded",
            From::Block => "uniform block",
            From::Uniform => "plain uniform",
            From::Attribute => "attribute",
        }
    }
    /// The pairs travel as the job's bound words, not its inputs.
    fn bound(self) -> bool {
        matches!(self, From::Block | From::Uniform | From::Attribute)
    }
}

/// A probe: df64 results the device computes from `inputs` (binary64
/// values, loaded as pairs, or for the computed probes f32 words added on
/// the device), the exact value of each, and the contract's f32 function on
/// the same values, which must fail where df64 passes.
struct Probe {
    name: &'static str,
    what: &'static str,
    from: From,
    /// The values: pairs when loaded; when computed, f32 (big, small) pairs
    /// whose sums the device forms.
    inputs: Vec<f64>,
    /// The statements in WGSL and GLSL ES (empty: not run in that language):
    /// `r` an array of `n` results; `p` the loaded pairs, `i` the computed
    /// probes' f32 words.
    wgsl: String,
    glsl: String,
    n: usize,
    /// The host df64 of each result, from the model's own functions.
    host: fn(&Model, &[f64]) -> Vec<Df64>,
    /// The binary64 reference of each result, and the contract's f32.
    exact: fn(&[f64]) -> Vec<f64>,
    plain: fn(&[f64]) -> Vec<f32>,
    /// The tolerance's scale: the inputs' largest magnitude (a difference,
    /// whose error df64 has in units of its operands), else the results'.
    by_inputs: bool,
}

impl Probe {
    fn body(&self, lang: Lang) -> &str {
        match lang {
            Lang::Wgsl => &self.wgsl,
            Lang::Glsl => &self.glsl,
        }
    }
}

fn call(model: &Model, family: &str, shape: &str, args: &[u64]) -> Vec<u64> {
    let lowered = model.lowered();
    let f = lowered.iter().find(|f| f.family == family && f.shape == shape && f.elem == "f64").expect("a function of the spec");
    df64::host(f, args)
}

fn flat64(family: &str, shape: &str, args: &[f64]) -> Vec<f64> {
    let w: Vec<u64> = args.iter().map(|x| x.to_bits()).collect();
    aether_reference::flat::lookup(family, shape, "f64").unwrap()(&w).into_iter().map(f64::from_bits).collect()
}

fn flat32(family: &str, shape: &str, args: &[f64]) -> Vec<f32> {
    let w: Vec<u64> = args.iter().map(|x| u64::from((*x as f32).to_bits())).collect();
    aether_reference::flat::lookup(family, shape, "f32").unwrap()(&w).into_iter().map(|b| f32::from_bits(b as u32)).collect()
}

fn dw(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| Df64::from_f64(*v).to_word()).collect()
}

const BIG: [f64; 3] = [1e8, 3e7, 7e8];
const SMALL: [f64; 3] = [0.5, 0.25, 0.125];

fn sums() -> Vec<f64> {
    BIG.iter().zip(SMALL).map(|(b, s)| b + s).collect()
}

/// The computed probes' vector: each lane the device's sum of a big and a
/// small f32 word (the big ones in i[0..3], the small in i[3..6]).
const COMPUTED_LANES: &str = "let a = aether_vec3d(aether_df64_add(aether_df64(i[0], 0.0), aether_df64(i[3], 0.0)), \
    aether_df64_add(aether_df64(i[1], 0.0), aether_df64(i[4], 0.0)), aether_df64_add(aether_df64(i[2], 0.0), aether_df64(i[5], 0.0)));";
const COMPUTED_LANES_GLSL: &str = "aether_vec3d a = aether_vec3d(aether_df64_add(vec2(i[0], 0.0), vec2(i[3], 0.0)), \
    aether_df64_add(vec2(i[1], 0.0), vec2(i[4], 0.0)), aether_df64_add(vec2(i[2], 0.0), vec2(i[5], 0.0)));";

/// The seed's probe in GLSL ES: the pairs `a` and `b` (bound by the caller),
/// `a - b` by the core's aether_vec2d_sub (lane x; lane y 0 - 0).
const SEED_GLSL: &str = "r[0] = aether_vec2d_sub(aether_vec2d(a, vec2(0.0, 0.0)), aether_vec2d(b, vec2(0.0, 0.0))).x;";

/// The seed's values: 1e8 + 0.5 (the pair (1e8, 0.5)) and 1e8.
const SEED: [f64; 2] = [1e8 + 0.5, 1e8];

fn seed_host(m: &Model, _: &[f64]) -> Vec<Df64> {
    vec![Df64::from_word(call(m, "sub", "vec2", &dw(&[SEED[0], 0.0, SEED[1], 0.0]))[0])]
}

fn seed_plain(_: &[f64]) -> Vec<f32> {
    vec![flat32("sub", "vec2", &[SEED[0], 0.0, SEED[1], 0.0])[0]]
}

/// The seed's probe with its pairs from `from` (a GLSL ES source of two
/// vec4 components: `src.xy` is 1e8 + 0.5, `src.zw` is 1e8).
fn seed(name: &'static str, what: &'static str, from: From, src: &str) -> Probe {
    let (inputs, bind) = match from {
        From::Computed => {
            (vec![1e8, 0.5], "vec2 a = aether_df64_add(vec2(i[0], 0.0), vec2(i[1], 0.0));\nvec2 b = vec2(i[0], 0.0);".to_string())
        }
        _ => (SEED.to_vec(), format!("vec2 a = {src}.xy;\nvec2 b = {src}.zw;")),
    };
    Probe {
        name,
        what,
        from,
        inputs,
        wgsl: String::new(),
        glsl: format!("{bind}\n{SEED_GLSL}"),
        n: 1,
        host: seed_host,
        exact: |_| vec![0.5],
        plain: seed_plain,
        by_inputs: true,
    }
}

fn probes() -> Vec<Probe> {
    let sub_loaded = |m: &Model, x: &[f64]| call(m, "sub", "vec3", &dw(x)).into_iter().map(Df64::from_word).collect();
    vec![
        Probe {
            name: "sub_computed",
            what: "(1e8 + 0.5, 3e7 + 0.25, 7e8 + 0.125) - (1e8, 3e7, 7e8), each lane's sum formed on the device by aether_df64_add",
            from: From::Computed,
            inputs: BIG.iter().chain(SMALL.iter()).copied().collect(),
            wgsl: format!(
                "{COMPUTED_LANES}\nlet b = aether_vec3d(aether_df64(i[0], 0.0), aether_df64(i[1], 0.0), aether_df64(i[2], 0.0));\n\
                 let d = aether_vec3d_sub(a, b);\nr[0] = d.x; r[1] = d.y; r[2] = d.z;"
            ),
            glsl: format!(
                "{COMPUTED_LANES_GLSL}\naether_vec3d b = aether_vec3d(vec2(i[0], 0.0), vec2(i[1], 0.0), vec2(i[2], 0.0));\n\
                 aether_vec3d d = aether_vec3d_sub(a, b);\nr[0] = d.x; r[1] = d.y; r[2] = d.z;"
            ),
            n: 3,
            host: |m, _| {
                let a = dw(&sums());
                let b = dw(&BIG);
                call(m, "sub", "vec3", &[a, b].concat()).into_iter().map(Df64::from_word).collect()
            },
            exact: |_| SMALL.to_vec(),
            plain: |_| flat32("sub", "vec3", &[sums(), BIG.to_vec()].concat()),
            by_inputs: true,
        },
        Probe {
            name: "sub_loaded",
            what: "the same difference, the pairs (1e8, 0.5), (3e7, 0.25), (7e8, 0.125) loaded (WGSL: storage; GLSL ES: a texture fetch)",
            from: From::Loaded,
            inputs: [sums(), BIG.to_vec()].concat(),
            wgsl: "let d = aether_vec3d_sub(aether_vec3d(p[0], p[1], p[2]), aether_vec3d(p[3], p[4], p[5]));\nr[0] = d.x; r[1] = d.y; r[2] = d.z;".into(),
            glsl: "aether_vec3d d = aether_vec3d_sub(aether_vec3d(p[0], p[1], p[2]), aether_vec3d(p[3], p[4], p[5]));\nr[0] = d.x; r[1] = d.y; r[2] = d.z;".into(),
            n: 3,
            host: sub_loaded,
            exact: |_| SMALL.to_vec(),
            plain: |x| flat32("sub", "vec3", x),
            by_inputs: true,
        },
        Probe {
            name: "loran_loaded",
            what: "a hyperbolic position's difference of two nearly equal distances |p - s1| - |p - s2|, about 1.5e7 each, loaded",
            from: From::Loaded,
            inputs: vec![0.3, 0.7, 0.0, 1.5e7 + 0.25, 2e6 + 0.5, 1e3, 2e6 + 0.75, 1.5e7 + 0.125, 1e3 + 0.5],
            wgsl: "let q = aether_vec3d(p[0], p[1], p[2]);\n\
                   let d1 = aether_vec3d_norm(aether_vec3d_sub(q, aether_vec3d(p[3], p[4], p[5])));\n\
                   let d2 = aether_vec3d_norm(aether_vec3d_sub(q, aether_vec3d(p[6], p[7], p[8])));\n\
                   r[0] = aether_vec2d_sub(aether_vec2d(d1, aether_df64(0.0, 0.0)), aether_vec2d(d2, aether_df64(0.0, 0.0))).x;"
                .into(),
            glsl: "aether_vec3d q = aether_vec3d(p[0], p[1], p[2]);\n\
                   vec2 d1 = aether_vec3d_norm(aether_vec3d_sub(q, aether_vec3d(p[3], p[4], p[5])));\n\
                   vec2 d2 = aether_vec3d_norm(aether_vec3d_sub(q, aether_vec3d(p[6], p[7], p[8])));\n\
                   r[0] = aether_vec2d_sub(aether_vec2d(d1, vec2(0.0, 0.0)), aether_vec2d(d2, vec2(0.0, 0.0))).x;"
                .into(),
            n: 1,
            host: |m, x| {
                let d1 = call(m, "norm", "vec3", &call(m, "sub", "vec3", &dw(&[&x[0..3], &x[3..6]].concat())));
                let d2 = call(m, "norm", "vec3", &call(m, "sub", "vec3", &dw(&[&x[0..3], &x[6..9]].concat())));
                let z = Df64::from_f64(0.0).to_word();
                vec![Df64::from_word(call(m, "sub", "vec2", &[d1[0], z, d2[0], z])[0])]
            },
            exact: |x| {
                let d1 = flat64("norm", "vec3", &flat64("sub", "vec3", &[&x[0..3], &x[3..6]].concat()))[0];
                let d2 = flat64("norm", "vec3", &flat64("sub", "vec3", &[&x[0..3], &x[6..9]].concat()))[0];
                vec![d1 - d2]
            },
            plain: |x| {
                let d1 = flat32("norm", "vec3", &flat32("sub", "vec3", &[&x[0..3], &x[3..6]].concat()).iter().map(|v| f64::from(*v)).collect::<Vec<_>>())[0];
                let d2 = flat32("norm", "vec3", &flat32("sub", "vec3", &[&x[0..3], &x[6..9]].concat()).iter().map(|v| f64::from(*v)).collect::<Vec<_>>())[0];
                vec![d1 - d2]
            },
            by_inputs: true,
        },
        Probe {
            name: "div_loaded",
            what: "(1e8 + 0.5, 3e7 + 0.25, 7e8 + 0.125) / (1e8 + 0.25), loaded (the contract's reciprocal, then a product per lane)",
            from: From::Loaded,
            inputs: [sums(), vec![1e8 + 0.25]].concat(),
            wgsl: "let d = aether_vec3d_div(aether_vec3d(p[0], p[1], p[2]), p[3]);\nr[0] = d.x; r[1] = d.y; r[2] = d.z;".into(),
            glsl: "aether_vec3d d = aether_vec3d_div(aether_vec3d(p[0], p[1], p[2]), p[3]);\nr[0] = d.x; r[1] = d.y; r[2] = d.z;".into(),
            n: 3,
            host: |m, x| call(m, "div", "vec3", &dw(x)).into_iter().map(Df64::from_word).collect(),
            exact: |x| flat64("div", "vec3", x),
            plain: |x| flat32("div", "vec3", x),
            by_inputs: false,
        },
        Probe {
            name: "norm_loaded",
            what: "|(1e8 + 0.5, 3e7 + 0.25, 7e8 + 0.125)|, loaded: a sqrt of a sum of squares carrying low words",
            from: From::Loaded,
            inputs: sums(),
            wgsl: "r[0] = aether_vec3d_norm(aether_vec3d(p[0], p[1], p[2]));".into(),
            glsl: "r[0] = aether_vec3d_norm(aether_vec3d(p[0], p[1], p[2]));".into(),
            n: 1,
            host: |m, x| call(m, "norm", "vec3", &dw(x)).into_iter().map(Df64::from_word).collect(),
            exact: |x| flat64("norm", "vec3", x),
            plain: |x| flat32("norm", "vec3", x),
            by_inputs: false,
        },
        Probe {
            name: "norm_computed",
            what: "the same norm, each lane formed on the device by aether_df64_add",
            from: From::Computed,
            inputs: BIG.iter().chain(SMALL.iter()).copied().collect(),
            wgsl: format!("{COMPUTED_LANES}\nr[0] = aether_vec3d_norm(a);"),
            glsl: format!("{COMPUTED_LANES_GLSL}\nr[0] = aether_vec3d_norm(a);"),
            n: 1,
            host: |m, _| call(m, "norm", "vec3", &dw(&sums())).into_iter().map(Df64::from_word).collect(),
            exact: |_| flat64("norm", "vec3", &sums()),
            plain: |_| flat32("norm", "vec3", &sums()),
            by_inputs: false,
        },
        seed("seed_block", "the seed's (1e8 + 0.5) - 1e8, the pairs (1e8, 0.5) and (1e8, 0) from a uniform block", From::Block, "aether_probe_b[0]"),
        seed("seed_uniform", "the same, the pairs from a plain uniform", From::Uniform, "aether_probe_u[0]"),
        seed("seed_attribute", "the same, the pairs from a vertex attribute", From::Attribute, "aether_probe_a0"),
        seed("seed_computed", "the same, 1e8 + 0.5 formed in the shader by aether_df64_add", From::Computed, ""),
    ]
}

/// The probes' tolerance: 64 u^2 of the scale's largest magnitude, far
/// above df64's error and far below f32's.
fn tolerance(scale: &[f64]) -> f64 {
    64.0 * U2 * scale.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

/// How a probe entry spells its declarations and words in one language.
struct EntrySpelling {
    head: String,
    decl_r: String,
    decl_i: String,
    decl_p: String,
    word_i: fn(usize) -> String,
    word_p: fn(usize) -> String,
    /// Result word `w` from `r[w / 2]`.
    put: fn(usize) -> String,
}

/// The entry of probe `p` in `lang`.
fn probe_entry(lang: Lang, p: &Probe) -> String {
    let k = p.inputs.len();
    let sp = match lang {
        Lang::Wgsl => EntrySpelling {
            head: format!("\n@compute @workgroup_size(1)\nfn check_df64_probe_{}() {{\n    aether_df64_check_guard();", p.name),
            decl_r: format!("var r: array<aether_df64, {}>;", p.n),
            decl_i: format!("var i: array<f32, {k}>;"),
            decl_p: format!("var p: array<aether_df64, {k}>;"),
            word_i: |j| format!("i[{j}] = bitcast<f32>(aether_in[{}u]);", 2 * j),
            word_p: |j| format!("p[{j}] = aether_df64_in({}u);", 2 * j),
            put: |w| format!("aether_out[{w}u] = bitcast<u32>(r[{}].{});", w / 2, if w % 2 == 0 { "x" } else { "y" }),
        },
        Lang::Glsl => EntrySpelling {
            head: format!("\nvoid check_df64_probe_{}() {{\n    aether_check_guard();", p.name),
            decl_r: format!("vec2 r[{}];", p.n),
            decl_i: format!("float i[{k}];"),
            decl_p: format!("vec2 p[{k}];"),
            word_i: |j| format!("i[{j}] = uintBitsToFloat(aether_word({}u));", 2 * j),
            word_p: |j| format!("p[{j}] = aether_df64_in({}u);", 2 * j),
            put: |w| format!("aether_put({w}u, floatBitsToUint(r[{}].{}));", w / 2, if w % 2 == 0 { "x" } else { "y" }),
        },
    };
    let EntrySpelling { head, decl_r, decl_i, decl_p, word_i, word_p, put } = sp;
    let mut s = format!("{head}\n");
    let mut lines = vec![decl_r];
    match p.from {
        From::Computed => {
            lines.push(decl_i);
            lines.extend((0..k).map(word_i));
        }
        From::Loaded => {
            lines.push(decl_p);
            lines.extend((0..k).map(word_p));
        }
        _ => {}
    }
    lines.extend(p.body(lang).lines().map(String::from));
    lines.extend((0..2 * p.n).map(put));
    for l in lines {
        let _ = writeln!(s, "    {l}");
    }
    s.push_str("}\n");
    s
}

/// The probes a language runs.
fn probes_of(lang: Lang) -> Vec<Probe> {
    probes().into_iter().filter(|p| !p.body(lang).is_empty()).collect()
}

/// Adds the probes' entries to a module.
fn with_probes(lang: Lang, mut m: CheckModule) -> CheckModule {
    if lang == Lang::Glsl {
        m.source.push('\n');
        m.source.push_str(&crate::glsl_draw::bound_declarations());
    }
    for p in probes_of(lang) {
        m.source.push_str(&probe_entry(lang, &p));
        m.entries.push(CheckEntry {
            entry: format!("check_df64_probe_{}", p.name),
            c_name: format!("probe_{}", p.name),
            family: "probe".into(),
            shape: String::new(),
            elem: "f64".into(),
            n_in: if p.from.bound() { 0 } else { 2 * p.inputs.len() },
            n_out: 2 * p.n,
            workgroup_size: 1,
            cases_per_workgroup: 1,
            random: false,
            max_random: None,
        });
    }
    m
}

/// One probe's result on a stack.
#[derive(Debug, Clone)]
pub struct ProbeResult {
    pub name: &'static str,
    pub from: &'static str,
    /// The device's df64 equals the host's, within the tolerance of the exact
    /// value, and the contract's f32 is outside it.
    pub pass: bool,
    pub device: Vec<f64>,
}

/// Runs the probes; true when each passes (device = host df64, within the
/// tolerance of the exact value) and the contract's f32 fails each.
fn run_probes(
    exec: &mut dyn Executor,
    lang: Lang,
    model: &Model,
    module: &CheckModule,
    log: &mut String,
) -> Result<Vec<ProbeResult>, String> {
    let mut results = Vec::new();
    for p in probes_of(lang) {
        let at = module.entries.iter().position(|e| e.entry == format!("check_df64_probe_{}", p.name)).ok_or("no probe entry")?;
        let mut w = Vec::new();
        let job = match p.from {
            From::Computed => {
                for x in &p.inputs {
                    w.push(u64::from((*x as f32).to_bits()));
                    w.push(0);
                }
                Job::new(module, at, w)
            }
            From::Loaded => {
                job_words(&dw(&p.inputs), &mut w);
                Job::new(module, at, w)
            }
            _ => {
                job_words(&dw(&p.inputs), &mut w);
                Job::without_inputs(at, 1).with_bound(w.iter().map(|&x| x as u32).collect())
            }
        };
        let out = exec.run(module, &[job]).map_err(|x| format!("{}: {x}", exec.stack()))?;
        let dev: Vec<Df64> = out[0].chunks(2).map(|c| Df64::from_word(c[0] | (c[1] << 32))).collect();
        let host = (p.host)(model, &p.inputs);
        let exact = (p.exact)(&p.inputs);
        let plain = (p.plain)(&p.inputs);
        let tol = tolerance(if p.by_inputs { &p.inputs } else { &exact });
        let dev_err = dev.iter().zip(&exact).fold(0.0f64, |m, (d, x)| m.max((d.to_f64() - x).abs()));
        let f32_err = plain.iter().zip(&exact).fold(0.0f64, |m, (d, x)| m.max((f64::from(*d) - x).abs()));
        let same = dev == host;
        let pass = same && dev_err <= tol && f32_err > tol;
        let device: Vec<f64> = dev.iter().map(|d| d.to_f64()).collect();
        let _ = writeln!(
            log,
            "  probe {} ({}): {}: device {device:?} (the host df64's: {same}), error {dev_err:.3e}; the contract's f32 {:?}, error {f32_err:.3e}; tolerance {tol:.3e}: {}",
            p.name,
            p.from.name(),
            p.what,
            plain,
            if pass { "ok, and f32 fails it" } else { "FAIL" }
        );
        results.push(ProbeResult { name: p.name, from: p.from.name(), pass, device });
    }
    Ok(results)
}

/// One stack's run as markdown: the summary lines, a table of every
/// function, and the probes.
fn markdown(stack: &str, adapter: &str, guard: Guard, no_renorm: bool, random: usize, lines: &[Line], log: &str) -> String {
    let mut m = String::new();
    let what = match (guard, no_renorm) {
        (Guard::Bits, false) => "the core".to_string(),
        (Guard::Bits, true) => "the loaded-low-word guard removed".to_string(),
        (g, _) => format!("control: guard {g:?}"),
    };
    let _ = writeln!(m, "### {stack}: {what}\n\n{adapter}; the corpus and {random} random inputs per function.\n");
    for l in log.lines().filter(|l| l.starts_with("df64 ")) {
        let _ = writeln!(m, "- {l}");
    }
    let _ = writeln!(
        m,
        "\n| function | cases | in domain | identical to the host df64 | more but for a zero's sign | more, the flushing host df64's | outside the bound | error / bound, at most | worst relative error (u²) | its bound there (u²) | constant bound (u²) | out of domain |"
    );
    let _ = writeln!(m, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
    for l in lines {
        let ood: Vec<String> = l.out_of_domain.iter().map(|(k, v)| format!("{v} {k}")).collect();
        let _ = writeln!(
            m,
            "| `{}` | {} | {} | {} | {} | {} | {} | {:.3} | {:.4e} | {:.4e} | {} | {} |",
            l.c_name,
            l.cases,
            l.in_domain,
            l.identical,
            l.zero_sign,
            l.flushed,
            l.outside,
            l.tightest,
            l.worst,
            l.worst_bound,
            l.constant.map_or("conditioned".to_string(), |c| format!("{c}")),
            if ood.is_empty() { "none".into() } else { ood.join(", ") }
        );
    }
    let probes: Vec<&str> = log.lines().filter(|l| l.starts_with("  probe ")).collect();
    if !probes.is_empty() {
        let _ = writeln!(m, "\nProbes:\n");
        for p in probes {
            let _ = writeln!(m, "- {}", p.trim_start().trim_start_matches("probe "));
        }
    }
    m.push('\n');
    m
}

/// `aether-runner df64 [--stack wgpu|dawn|all|gles|webgl|glsl-all] [--random N] [--guard bits|none|opaque-one] [--no-renorm]
/// [--only S | --probes-only] [--report FILE]`. `all` is the WebGPU stacks (the WGSL module), `glsl-all` the GL stacks (the
/// GLSL ES module); `--probes-only` runs the probes alone (no function's cases).
pub fn main(args: &[String]) -> Result<bool, String> {
    let mut stacks: Vec<String> = crate::STACKS.iter().map(|s| s.to_string()).collect();
    let mut random = 10_000usize;
    let mut guard = Guard::Bits;
    let mut only: Option<String> = None;
    let mut report: Option<String> = None;
    let mut no_renorm = false;
    let mut probes_only = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--stack" => {
                let v = it.next().ok_or("--stack needs a value")?;
                stacks = match v.as_str() {
                    "all" => crate::STACKS.iter().map(|s| s.to_string()).collect(),
                    "glsl-all" => crate::GLSL_STACKS.iter().map(|s| s.to_string()).collect(),
                    _ => vec![v.clone()],
                };
            }
            "--random" => random = it.next().and_then(|v| v.parse().ok()).ok_or("--random needs a count")?,
            "--guard" => {
                guard = match it.next().map(String::as_str) {
                    Some("bits") => Guard::Bits,
                    Some("none") => Guard::None,
                    Some("opaque-one") => Guard::OpaqueOne,
                    _ => return Err("--guard bits|none|opaque-one".into()),
                }
            }
            "--no-renorm" => no_renorm = true,
            "--only" => only = Some(it.next().ok_or("--only needs a substring")?.clone()),
            "--probes-only" => probes_only = true,
            "--report" => report = Some(it.next().ok_or("--report needs a file")?.clone()),
            other => {
                return Err(format!(
                "unknown option `{other}` (aether-runner df64 [--stack S] [--random N] [--guard G] [--no-renorm] [--only S | --probes-only] [--report F])"
            ))
            }
        }
    }
    let model = aether_generator::load(&aether_generator::default_root()).map_err(|e| e.to_string())?;
    df64::of(&model).ok_or("the spec has no [df64]")?;
    // The module of each language, the probes' entries added.
    let module_of = |lang: Lang| -> Result<CheckModule, String> {
        let mut module = with_probes(lang, lang.df64_check_module(&model, &model.lowered(), guard));
        if no_renorm {
            // The loaded-low-word guard removed: where a stack drops a loaded
            // low word, results change; where none does, nothing changes
            // (renorm is the identity on the normalised pairs the host loads).
            module.source = lang
                .df64_without_renorm(&model, &module.source)
                .ok_or("--no-renorm: the renorm operation's text changed: update the control")?;
        }
        Ok(module)
    };
    let mut ok = true;
    let mut text = String::new();
    for stack in &stacks {
        let t = Instant::now();
        let lang = Lang::of_stack(stack);
        let module = module_of(lang)?;
        let mut exec = crate::open(stack).map_err(|e| format!("{stack}: {e}"))?;
        let mut log = String::new();
        let what = if probes_only { "the probes only".to_string() } else { format!("the corpus and {random} random inputs per function") };
        let _ = writeln!(log, "df64 on {stack} ({}), guard {guard:?}: {what}", exec.adapter());
        let lines = if probes_only { Vec::new() } else { run(exec.as_mut(), &model, &module, random, only.as_deref())? };
        let (mut outside, mut cases, mut ident, mut dom, mut zsign, mut flushed) = (0, 0, 0, 0, 0, 0);
        for l in &lines {
            outside += l.outside;
            cases += l.cases;
            ident += l.identical;
            zsign += l.zero_sign;
            flushed += l.flushed;
            dom += l.in_domain;
            let ood: Vec<String> = l.out_of_domain.iter().map(|(k, v)| format!("{v} {k}")).collect();
            let _ = writeln!(
                log,
                "  {}: {} cases, {} in domain, {} identical to the host df64 ({} more but for a zero's sign, {} more the flushing host df64's), {} outside the bound (error/bound at most {:.3}); worst relative error {:.3} u^2 (its bound there {:.3}){}; out of domain: {} ({} of them identical anyway){}",
                l.c_name,
                l.cases,
                l.in_domain,
                l.identical,
                l.zero_sign,
                l.flushed,
                l.outside,
                l.tightest,
                l.worst,
                l.worst_bound,
                l.constant.map(|c| format!(", constant bound {c:.3} u^2")).unwrap_or_else(|| ", conditioned".into()),
                if ood.is_empty() { "none".into() } else { ood.join(", ") },
                l.ood_identical,
                l.worst_case.as_ref().filter(|_| l.outside > 0).map(|c| format!("; first outside {c}")).unwrap_or_default()
            );
            match (&l.first_differ, guard) {
                (Some(d), Guard::Bits) => {
                    let _ = writeln!(log, "    first in-domain case not identical to the host df64: {d}");
                }
                (_, Guard::Bits) => {}
                _ => {
                    let _ = writeln!(
                        log,
                        "    signature: {} of {} result pairs lost their low word; worst relative error {:.3} u (f32's unit, 2^-24)",
                        l.lo_lost,
                        l.words,
                        l.worst * U2 * (1u64 << 24) as f64
                    );
                }
            }
        }
        let probes = if only.is_none() { run_probes(exec.as_mut(), lang, &model, &module, &mut log)? } else { Vec::new() };
        let probes_ok = probes.iter().all(|p| p.pass);
        let seeds: Vec<String> = probes
            .iter()
            .filter(|p| p.name.starts_with("seed_"))
            .map(|p| format!("{} {:?}{}", p.from, p.device, if p.pass { "" } else { " FAIL" }))
            .collect();
        if !seeds.is_empty() {
            let _ = writeln!(
                log,
                "df64 seed probe (1e8 + 0.5) - 1e8 on {stack}{}: {} (expected 0.5 each)",
                if no_renorm { " without the renorm" } else { " with the renorm" },
                seeds.join(", ")
            );
        }
        let _ = writeln!(
            log,
            "df64 on {stack}: {} functions, {cases} cases, {dom} in domain, {ident} identical to the host df64, {zsign} more but for a zero's sign and {flushed} more the flushing host df64's, {outside} outside the bound; probes {}; {:.1} s",
            lines.len(),
            if only.is_none() { if probes_ok { "all pass" } else { "some FAIL" } } else { "not run" },
            t.elapsed().as_secs_f64()
        );
        match guard {
            Guard::Bits if no_renorm => {
                let failed = probes.iter().filter(|p| !p.pass).count();
                let _ = writeln!(
                    log,
                    "df64 without the loaded-low-word guard on {stack}: {} in-domain cases not identical to the host df64, {failed} of {} probes fail{}",
                    dom - ident - zsign - flushed,
                    probes.len(),
                    if dom == ident + zsign + flushed && failed == 0 {
                        ": this stack does not drop a loaded low word"
                    } else {
                        ": this stack drops loaded low words"
                    }
                );
            }
            Guard::Bits => ok &= outside == 0 && probes_ok && ident + zsign + flushed == dom,
            _ => {
                let (lost, words): (usize, usize) = lines.iter().fold((0, 0), |(a, b), l| (a + l.lo_lost, b + l.words));
                let failed: Vec<&str> = probes.iter().filter(|p| !p.pass).map(|p| p.name).collect();
                let _ = writeln!(
                    log,
                    "df64 control guard {guard:?} on {stack}: {outside} in-domain cases outside the bound, {lost} of {words} result pairs with their low word lost, {} of {} probes fail ({}){}",
                    failed.len(),
                    probes.len(),
                    failed.join(", "),
                    if outside > 0 || !failed.is_empty() { ", as it must" } else { ": the control changes nothing on this stack" }
                );
                ok &= outside > 0 || !failed.is_empty();
            }
        }
        print!("{log}");
        text.push_str(&markdown(stack, &exec.adapter(), guard, no_renorm, random, &lines, &log));
    }
    if let Some(path) = report {
        std::fs::write(&path, text).map_err(|e| format!("{path}: {e}"))?;
    }
    Ok(ok)
}
