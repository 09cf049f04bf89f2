//! The WebGL stack: Chromium's WebGL2 in headless Chromium (Debian's
//! `chromium`), where ANGLE translates the GLSL ES 3.00 and runs it on
//! SwiftShader, Chromium's CPU Vulkan driver. A check module runs by
//! [`crate::glsl_draw`]'s plan: one vertex per case, the inputs in an R32UI
//! texture, the results through transform feedback.
//!
//! Node runs `runner/webgl/run.mjs` once per check module (and once for the
//! probe), with a job file that lists every draw: the plan (chunks, parts,
//! textures, uniforms) is made here, the page only draws. The script serves
//! `runner/webgl/index.html` and the words on 127.0.0.1 (a port the system
//! picks, paths under a random token), starts Chromium headless on that page
//! with a fresh profile and no network services, takes each draw's result
//! words back by HTTP POST and kills Chromium's process group when it is done,
//! on an error and on a timeout (`AETHER_WEBGL_TIMEOUT` seconds for the whole
//! run, 1200 unless set). `AETHER_CHROMIUM` names another Chromium than
//! `/usr/bin/chromium`; `AETHER_WEBGL_VERBOSE=1` passes Chromium's log and the
//! page's messages to stderr.
//!
//! A job's bound words ([`crate::glsl_draw`]) go in each of its draws
//! (`"bound"`: the 16 padded words, or `[]`); the page binds them to what the
//! program has active of the probe block, uniform and attributes before the
//! draw (an active block to zeros where the draw has none), and fails the
//! run naming the entry where the draw has bound words and the program none
//! of the bindings.

use std::path::{Path, PathBuf};
use std::process::Command;

use aether_generator::targets::shared::check::CheckModule;

use crate::exec::{self, Error, Executor, Job};
use crate::glsl_draw;

/// The Chromium run unless `AETHER_CHROMIUM` names another.
pub const DEFAULT_CHROMIUM: &str = "/usr/bin/chromium";

/// The context limits the probe reads (WebGL2 names), in the order
/// [`WebGl::limits`] gives them.
pub const LIMITS: [&str; 8] = [
    "MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS",
    "MAX_TRANSFORM_FEEDBACK_SEPARATE_ATTRIBS",
    "MAX_VERTEX_OUTPUT_COMPONENTS",
    "MAX_VARYING_VECTORS",
    "MAX_VARYING_COMPONENTS",
    "MAX_TEXTURE_SIZE",
    "MAX_VERTEX_TEXTURE_IMAGE_UNITS",
    "MAX_VERTEX_UNIFORM_VECTORS",
];

/// Chromium's WebGL2 on SwiftShader, through Node and a headless Chromium.
#[derive(Debug)]
pub struct WebGl {
    dir: PathBuf,
    node: String,
    chromium: String,
    /// `chromium --version`, less Debian's "built on" suffix.
    version: String,
    /// The context's strings and limits, as the page reports them.
    info: serde_json::Value,
    /// The timings of the last run ([`WebGl::timings`]).
    timings: serde_json::Value,
    work: PathBuf,
    runs: usize,
}

/// `runner/webgl` of this checkout.
pub fn default_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("webgl")
}

/// One draw of the plan: `cases` cases of job `job` from case `first`, part
/// `part`; `keep` of the PART_WORDS words each case returns are kept.
#[derive(Debug, Clone, Copy)]
struct Draw {
    job: usize,
    first: usize,
    cases: usize,
    part: usize,
    keep: usize,
}

impl WebGl {
    /// Checks that node and Chromium are there, starts Chromium once to read
    /// the WebGL2 context's strings and limits; `NotInstalled` when node or
    /// Chromium is missing or Chromium gives no WebGL2 context.
    pub fn new() -> Result<WebGl, Error> {
        let node = std::env::var("AETHER_NODE").unwrap_or_else(|_| "node".into());
        let chromium = std::env::var("AETHER_CHROMIUM").ok().filter(|c| !c.is_empty()).unwrap_or_else(|| DEFAULT_CHROMIUM.into());
        if Command::new(&node).arg("--version").output().map(|o| !o.status.success()).unwrap_or(true) {
            return Err(Error::NotInstalled(format!(
                "`{node} --version` does not run (Node.js is needed for WebGL: apt-get install nodejs)"
            )));
        }
        let version = match Command::new(&chromium).arg("--version").output() {
            Ok(o) if o.status.success() => {
                let text = String::from_utf8_lossy(&o.stdout);
                let line = text.lines().next().unwrap_or("").trim();
                line.split(" built on ").next().unwrap_or(line).to_string()
            }
            _ => {
                return Err(Error::NotInstalled(format!(
                    "`{chromium} --version` does not run (WebGL2 is Chromium's: apt-get install chromium)"
                )));
            }
        };
        let dir = default_dir();
        let work = std::env::temp_dir().join(format!("aether-runner-webgl-{}-{}", std::process::id(), unique()));
        std::fs::create_dir_all(&work).map_err(|e| Error::Failed(format!("{}: {e}", work.display())))?;
        let mut w = WebGl { dir, node, chromium, version, info: serde_json::Value::Null, timings: serde_json::Value::Null, work, runs: 0 };
        let result = w.work.join("probe.json");
        let r = w.node(&["--probe".as_ref(), result.as_os_str()], &result)?;
        w.info = r["adapter"].clone();
        w.timings = r["timings"].clone();
        Ok(w)
    }

    /// The context's limits that [`LIMITS`] names, as `NAME=value` joined by
    /// commas.
    pub fn limits(&self) -> String {
        LIMITS.iter().map(|n| format!("{n}={}", self.info["limits"][n])).collect::<Vec<_>>().join(", ")
    }

    /// The timings of the last run or the probe, in milliseconds, as
    /// run.mjs reports them: `chromium_start_ms` (until the page asks for its
    /// job), `context_ms` (until it has its WebGL2 context), `programs_ms`
    /// (each entry's compile and link; SwiftShader builds its pipeline at the
    /// entry's first draw, which is counted there) and `draws` (each draw's,
    /// with its read-back, in order).
    pub fn timings(&self) -> &serde_json::Value {
        &self.timings
    }

    /// Runs node on run.mjs with `args`; the parsed result file, or its error.
    fn node(&self, args: &[&std::ffi::OsStr], result: &Path) -> Result<serde_json::Value, Error> {
        let _ = std::fs::remove_file(result);
        let out = Command::new(&self.node)
            .arg(self.dir.join("run.mjs"))
            .args(args)
            .env("AETHER_CHROMIUM", &self.chromium)
            // Chromium's profile goes under the work directory, which Drop removes.
            .env("TMPDIR", &self.work)
            .output()
            .map_err(|e| Error::Failed(format!("webgl: run {}: {e}", self.node)))?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        let parsed: Option<serde_json::Value> = std::fs::read_to_string(result).ok().and_then(|t| serde_json::from_str(&t).ok());
        match parsed {
            Some(v) if out.status.success() && v.get("error").is_none() => Ok(v),
            Some(v) if v.get("error").is_some() => {
                let msg = v["error"].as_str().unwrap_or("?").to_string();
                if msg.starts_with("no WebGL2 context") {
                    Err(Error::NotInstalled(format!("webgl: {} gave {msg}", self.version)))
                } else {
                    Err(Error::Failed(format!("webgl ({}): {msg}", self.describe(&v["adapter"]))))
                }
            }
            _ => Err(Error::Failed(format!("webgl: node exited with {} and no result:\n{}", out.status, stderr.trim_end()))),
        }
    }

    fn describe(&self, info: &serde_json::Value) -> String {
        if info.is_null() {
            return format!("{}: no WebGL2 context", self.version);
        }
        let s = |k: &str| info[k].as_str().unwrap_or("").to_string();
        format!("{}: {}, {}; {}: {}", self.version, s("version"), s("glsl"), s("unmasked_vendor"), s("unmasked_renderer"))
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

impl Drop for WebGl {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.work);
    }
}

impl Executor for WebGl {
    fn stack(&self) -> &'static str {
        "webgl"
    }

    fn adapter(&self) -> String {
        self.describe(&self.info)
    }

    /// WebGL2 here runs on SwiftShader, a CPU stack.
    fn rounds_to_nearest(&self) -> bool {
        true
    }

    /// The stack runs the GLSL ES module, judged under its bands.
    fn bands(&self) -> &'static str {
        aether_generator::targets::glsl::BANDS
    }

    fn run(&mut self, module: &CheckModule, jobs: &[Job]) -> Result<Vec<Vec<u64>>, Error> {
        exec::check_jobs(module, jobs)?;
        self.runs += 1;
        let stem = self.work.join(format!("run{}", self.runs));
        let (inputs, outputs, job_file, result) =
            (stem.with_extension("in"), stem.with_extension("out"), stem.with_extension("json"), stem.with_extension("result.json"));
        // One program per entry that has draws, in order of first use.
        let mut programs: Vec<usize> = Vec::new();
        let mut draws: Vec<Draw> = Vec::new();
        let mut manifest = Vec::new();
        let mut words: Vec<u8> = Vec::new();
        let mut out_words = 0usize;
        for (ji, j) in jobs.iter().enumerate() {
            let e = &module.entries[j.entry];
            if j.count == 0 || e.n_out == 0 {
                continue;
            }
            let program = programs.iter().position(|&p| p == j.entry).unwrap_or_else(|| {
                programs.push(j.entry);
                programs.len() - 1
            });
            // The job's bound words padded to BOUND_WORDS, or none.
            let bound: Vec<u32> = if j.bound.is_empty() { Vec::new() } else { glsl_draw::padded_bound(&j.bound).to_vec() };
            for (first, cases) in glsl_draw::chunks(e.n_in, j.count) {
                let chunk: Vec<u32> = j.inputs[first * e.n_in..(first + cases) * e.n_in].iter().map(|&w| w as u32).collect();
                let (rows, texture) = glsl_draw::texture(&chunk);
                let tex_byte = words.len();
                words.extend(texture.iter().flat_map(|w| w.to_le_bytes()));
                for part in 0..glsl_draw::parts(e.n_out) {
                    let keep = glsl_draw::PART_WORDS.min(e.n_out - part * glsl_draw::PART_WORDS);
                    manifest.push(serde_json::json!({
                        "program": program, "tex_byte": tex_byte, "rows": rows, "cases": cases,
                        "params": glsl_draw::params(cases), "part": part, "keep": keep, "out_byte": out_words * 4,
                        "bound": bound,
                    }));
                    draws.push(Draw { job: ji, first, cases, part, keep });
                    out_words += cases * keep;
                }
            }
        }
        let programs: Vec<serde_json::Value> = programs
            .iter()
            .map(|&e| serde_json::json!({ "entry": module.entries[e].entry, "vertex": glsl_draw::vertex_source(module, e) }))
            .collect();
        let job = serde_json::json!({
            "programs": programs, "fragment": glsl_draw::FRAGMENT, "varyings": glsl_draw::VARYINGS,
            "tex_width": glsl_draw::TEX_WIDTH, "part_words": glsl_draw::PART_WORDS,
            "bound_names": {
                "block": glsl_draw::PROBE_BLOCK, "block_binding": glsl_draw::PROBE_BLOCK_BINDING,
                "uniform": glsl_draw::PROBE_UNIFORM, "attributes": glsl_draw::PROBE_ATTRIBUTES,
                "words": glsl_draw::BOUND_WORDS,
            },
            "inputs": inputs, "outputs": outputs, "draws": manifest,
        });
        let write = |p: &Path, b: &[u8]| std::fs::write(p, b).map_err(|e| Error::Failed(format!("{}: {e}", p.display())));
        write(&inputs, &words)?;
        drop(words);
        write(&job_file, job.to_string().as_bytes())?;
        let r = self.node(&[job_file.as_os_str(), result.as_os_str()], &result);
        let _ = std::fs::remove_file(&inputs);
        let _ = std::fs::remove_file(&job_file);
        let r = r?;
        if !r["adapter"].is_null() {
            self.info = r["adapter"].clone();
        }
        self.timings = r["timings"].clone();
        let bytes = std::fs::read(&outputs).map_err(|e| Error::Failed(format!("webgl: {}: {e}", outputs.display())))?;
        let _ = std::fs::remove_file(&outputs);
        if bytes.len() != out_words * 4 {
            return Err(Error::Failed(format!("webgl: {} result bytes for {out_words} words", bytes.len())));
        }
        let mut results: Vec<Vec<u64>> = jobs.iter().map(|j| vec![0u64; j.count * module.entries[j.entry].n_out]).collect();
        let mut at = 0usize;
        for d in &draws {
            // Back to the captured layout (PART_WORDS words per case), which
            // glsl_draw::scatter places.
            let mut captured = vec![0u32; d.cases * glsl_draw::PART_WORDS];
            for i in 0..d.cases {
                for k in 0..d.keep {
                    let b = &bytes[(at + i * d.keep + k) * 4..][..4];
                    captured[i * glsl_draw::PART_WORDS + k] = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
            }
            at += d.cases * d.keep;
            let n_out = module.entries[jobs[d.job].entry].n_out;
            glsl_draw::scatter(&captured, d.first, d.cases, n_out, d.part, &mut results[d.job]);
        }
        Ok(results)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::glsl_draw::{toy_expected, toy_module};

    /// The stack, or None (with a line saying why) where Chromium or node is
    /// not installed.
    fn open() -> Option<WebGl> {
        match WebGl::new() {
            Ok(w) => Some(w),
            Err(Error::NotInstalled(m)) => {
                println!("webgl: skipped: {m}");
                None
            }
            Err(e) => panic!("{e}"),
        }
    }

    /// `n` words from a linear congruential generator: any bits in the low
    /// 32 (NaNs, infinities and subnormals among them) when `plain` is false;
    /// when true, f32s of exponent -27..=27 and either sign, whose sums are
    /// finite and zero or normal (SwiftShader flushes subnormals, and a NaN's
    /// payload is the stack's, not the check's concern here).
    fn words(n: usize, seed: u64, plain: bool) -> Vec<u64> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let bits = x >> 32;
                if plain {
                    let exponent = 100 + (bits >> 23) % 55;
                    (bits & 0x807f_ffff) | (exponent << 23)
                } else {
                    bits ^ (x & 0xffff_ffff_0000_0000)
                }
            })
            .collect()
    }

    #[test]
    fn runs_the_toy_module() {
        let Some(mut w) = open() else { return };
        assert_eq!((w.stack(), w.bands(), w.rounds_to_nearest()), ("webgl", "glsl", true));
        println!("webgl adapter: {}", w.adapter());
        println!("webgl limits: {}", w.limits());
        println!("webgl probe timings: {}", w.timings());
        let m = toy_module();
        // A few hundred cases of each entry (t_wide is drawn in two parts),
        // then 70000 of t_add: a full draw of MAX_DRAW_CASES and the rest.
        let mut jobs: Vec<Job> = (0..3)
            .map(|e| {
                let n_in = m.entries[e].n_in;
                Job::new(&m, e, words((300 + [0, 7, 1][e]) * n_in, 17 + e as u64, e == 0))
            })
            .collect();
        jobs.push(Job::new(&m, 0, words(70000 * 2, 99, true)));
        let got = w.run(&m, &jobs).unwrap();
        println!("webgl toy timings: {}", w.timings());
        for (j, g) in jobs.iter().zip(&got) {
            let want = toy_expected(j);
            assert_eq!(g.len(), want.len(), "{}", m.entries[j.entry].entry);
            let bad: Vec<usize> = (0..want.len()).filter(|&i| g[i] != want[i]).collect();
            assert!(
                bad.is_empty(),
                "{}: {} words differ, first at {}: {:#x} for {:#x}",
                m.entries[j.entry].entry,
                bad.len(),
                bad[0],
                g[bad[0]],
                want[bad[0]]
            );
        }
        // An empty job and a job after it: nothing drawn for the first.
        let got = w.run(&m, &[Job::new(&m, 0, Vec::new()), Job::new(&m, 2, vec![1, 3])]).unwrap();
        assert_eq!(got, vec![Vec::new(), vec![1, 2]]);
    }

    #[test]
    fn a_program_that_does_not_compile_fails_with_the_log() {
        let Some(mut w) = open() else { return };
        let mut m = toy_module();
        m.source.push_str("\nvoid t_broken() { aether_put(0u, undeclared_word); }\n");
        let at = m.entries.len();
        m.entries.push(m.entries[0].clone());
        m.entries[at].entry = "t_broken".into();
        let e = w.run(&m, &[Job::new(&m, at, vec![1, 2])]).unwrap_err();
        let Error::Failed(msg) = e else { panic!("{e}") };
        println!("webgl compile error: {msg}");
        assert!(msg.contains("entry t_broken: the vertex shader does not compile"), "{msg}");
        assert!(msg.contains("undeclared_word"), "{msg}");
    }

    /// 16 distinct f32 values, none NaN or subnormal (a GPU may canonicalise
    /// a NaN, SwiftShader flushes subnormals), as bits.
    fn bound_words() -> Vec<u32> {
        let v: [f32; 16] = [
            1e8,
            0.5,
            -0.0,
            3.0e-5,
            1.0e30,
            0.0,
            -2.5,
            f32::MAX,
            f32::MIN_POSITIVE,
            -1.0e-30,
            0.1,
            -123456.79,
            f32::INFINITY,
            1.0 / 3.0,
            -7.0,
            1.0,
        ];
        v.map(f32::to_bits).to_vec()
    }

    #[test]
    fn bound_words_reach_the_block_the_uniform_and_the_attributes() {
        let Some(mut w) = open() else { return };
        let m = toy_module();
        let bound = bound_words();
        let mut distinct = bound.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), glsl_draw::BOUND_WORDS);
        // Each provenance, ordinary jobs between them, a short list (padded
        // with zeros), and the block and attribute entries without bound
        // words last: the block is bound to zeros, and the arrays were
        // disabled, so the attributes read the generic value (0, 0, 0, 1).
        let jobs = vec![
            Job::without_inputs(3, 3).with_bound(bound.clone()),
            Job::new(&m, 2, vec![1, 3, 5, 6]),
            Job::without_inputs(4, 3).with_bound(bound.clone()),
            Job::without_inputs(5, 3).with_bound(bound.clone()),
            Job::new(&m, 0, words(2 * 5, 8, true)),
            Job::without_inputs(5, 2).with_bound(bound[..5].to_vec()),
            Job::without_inputs(4, 2).with_bound(bound[11..].to_vec()),
            Job::without_inputs(5, 2),
            Job::without_inputs(3, 2),
        ];
        let got = w.run(&m, &jobs).unwrap();
        for (j, r) in jobs.iter().zip(&got) {
            let name = &m.entries[j.entry].entry;
            if j.bound.is_empty() && j.entry == 5 {
                assert_eq!(r, &[0, 0, 0, 0x3f80_0000].repeat(2 * 4), "{name} without bound words");
                continue;
            }
            if j.bound.is_empty() && j.entry == 3 {
                assert_eq!(r, &vec![0; 2 * glsl_draw::BOUND_WORDS], "{name} without bound words");
                continue;
            }
            assert_eq!(r, &toy_expected(j), "{name}");
            if j.bound.len() == glsl_draw::BOUND_WORDS {
                assert_eq!(r.len(), 3 * glsl_draw::BOUND_WORDS, "{name}");
                for (case, words) in r.chunks(glsl_draw::BOUND_WORDS).enumerate() {
                    let words: Vec<u32> = words.iter().map(|&w| w as u32).collect();
                    assert_eq!(words, bound, "{name}: case {case}");
                }
            }
        }
    }

    #[test]
    fn bound_words_without_a_probe_binding_fail() {
        let Some(mut w) = open() else { return };
        // t_add reaches neither the probe uniform nor the attributes, which
        // the linker drops; without the block in the source it has none.
        let m = glsl_draw::toy_module_without_block();
        let err = w.run(&m, &[Job::new(&m, 0, vec![1, 2]).with_bound(bound_words())]).unwrap_err();
        let Error::Failed(msg) = err else { panic!("{err:?}") };
        assert!(msg.contains("entry t_add: bound words but the program declares no aether_probe_* binding"), "{msg}");
        // A std140 block is active in every program whose source declares
        // it (GLES 3.0.6 2.12.6), used or not: in the toy module, t_add has
        // the block and runs with bound words; the attribute entry of the
        // module without the block runs too.
        let full = toy_module();
        let jobs = [Job::new(&full, 0, words(2 * 4, 3, true)).with_bound(bound_words())];
        assert_eq!(w.run(&full, &jobs).unwrap()[0], toy_expected(&jobs[0]));
        let jobs = [Job::without_inputs(5, 2).with_bound(bound_words())];
        assert_eq!(w.run(&m, &jobs).unwrap()[0], toy_expected(&jobs[0]));
    }
}
