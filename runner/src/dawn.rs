//! The Dawn stack: Dawn for Node (npm `webgpu` 0.6.2, Tint translates the
//! WGSL) on SwiftShader, Chromium's CPU Vulkan driver (`chromium-common`).
//! Node runs `runner/dawn/run.mjs` once per check module, with a job file.

use std::path::{Path, PathBuf};
use std::process::Command;

use aether_generator::targets::shared::check::CheckModule;

use crate::exec::{self, Error, Executor, Job};

/// SwiftShader's Vulkan ICD as Debian's `chromium-common` installs it.
pub const SWIFTSHADER_ICD: &str = "/usr/lib/chromium/vk_swiftshader_icd.json";

/// Dawn for Node on SwiftShader.
#[derive(Debug)]
pub struct Dawn {
    dir: PathBuf,
    node: String,
    icd: String,
    adapter: String,
    work: PathBuf,
    runs: usize,
}

/// `runner/dawn` of this checkout.
pub fn default_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("dawn")
}

impl Dawn {
    /// Checks that node, the `webgpu` package (`npm ci` in `dir`) and the
    /// ICD (`AETHER_DAWN_ICD`, else SwiftShader's) are there, and asks Dawn
    /// for its adapter.
    pub fn new(dir: &Path) -> Result<Dawn, Error> {
        let node = std::env::var("AETHER_NODE").unwrap_or_else(|_| "node".into());
        let icd = std::env::var("AETHER_DAWN_ICD").unwrap_or_else(|_| SWIFTSHADER_ICD.into());
        if Command::new(&node).arg("--version").output().map(|o| !o.status.success()).unwrap_or(true) {
            return Err(Error::NotInstalled(format!("`{node} --version` does not run (Node.js is needed for Dawn)")));
        }
        if !dir.join("node_modules/webgpu/package.json").exists() {
            return Err(Error::NotInstalled(format!("{}: no node_modules/webgpu (run `npm ci` there)", dir.display())));
        }
        if !Path::new(&icd).exists() {
            return Err(Error::NotInstalled(format!("{icd}: no such Vulkan ICD (SwiftShader: apt-get install chromium-common)")));
        }
        let work = std::env::temp_dir().join(format!("aether-runner-dawn-{}-{}", std::process::id(), unique()));
        std::fs::create_dir_all(&work).map_err(|e| Error::Failed(format!("{}: {e}", work.display())))?;
        let mut d = Dawn { dir: dir.to_path_buf(), node, icd, adapter: String::new(), work, runs: 0 };
        let result = d.work.join("probe.json");
        let r = d.node(&["--probe".as_ref(), result.as_os_str()], &result)?;
        d.adapter = adapter_text(&r);
        Ok(d)
    }

    /// Runs node on run.mjs with `args`; the parsed result file, or its error.
    fn node(&self, args: &[&std::ffi::OsStr], result: &Path) -> Result<serde_json::Value, Error> {
        let _ = std::fs::remove_file(result);
        let out = Command::new(&self.node)
            .arg(self.dir.join("run.mjs"))
            .args(args)
            .env("VK_ICD_FILENAMES", &self.icd)
            .output()
            .map_err(|e| Error::Failed(format!("dawn: run {}: {e}", self.node)))?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        let parsed: Option<serde_json::Value> = std::fs::read_to_string(result).ok().and_then(|t| serde_json::from_str(&t).ok());
        match parsed {
            Some(v) if out.status.success() && v.get("error").is_none() => Ok(v),
            Some(v) if v.get("error").is_some() => {
                let msg = v["error"].as_str().unwrap_or("?").to_string();
                if msg.starts_with("requestAdapter gave no adapter") {
                    Err(Error::NotInstalled(format!("dawn: {msg}")))
                } else {
                    Err(Error::Failed(format!("{}: {msg}", adapter_text(&v))))
                }
            }
            _ => Err(Error::Failed(format!("dawn: node exited with {} and no result:\n{}", out.status, stderr.trim_end()))),
        }
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

fn adapter_text(v: &serde_json::Value) -> String {
    let a = &v["adapter"];
    if a.is_null() {
        return "no adapter".into();
    }
    let s = |k: &str| a[k].as_str().unwrap_or("").to_string();
    format!("Dawn (node webgpu 0.6.2) on {} ({} {}{})", s("description"), s("vendor"), s("architecture"), {
        let d = s("device");
        if d.is_empty() {
            String::new()
        } else {
            format!(" {d}")
        }
    })
}

impl Drop for Dawn {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.work);
    }
}

impl Executor for Dawn {
    fn stack(&self) -> &'static str {
        "dawn"
    }

    fn adapter(&self) -> String {
        self.adapter.clone()
    }

    /// Dawn here runs on SwiftShader, a CPU stack.
    fn rounds_to_nearest(&self) -> bool {
        true
    }

    fn run(&mut self, module: &CheckModule, jobs: &[Job]) -> Result<Vec<Vec<u64>>, Error> {
        exec::check_jobs(module, jobs)?;
        self.runs += 1;
        let stem = self.work.join(format!("run{}", self.runs));
        let (inputs, outputs, job_file, result) =
            (stem.with_extension("in"), stem.with_extension("out"), stem.with_extension("json"), stem.with_extension("result.json"));
        let mut words: Vec<u8> = Vec::new();
        let mut manifest = Vec::new();
        let (mut in_offset, mut out_offset) = (0usize, 0usize);
        for j in jobs {
            let e = &module.entries[j.entry];
            words.extend(j.inputs.iter().flat_map(|&w| (w as u32).to_le_bytes()));
            // The dispatch plan is checked here too, so both stacks refuse the same entries.
            exec::dispatches(e, j.count)?;
            manifest.push(serde_json::json!({
                "entry": e.entry, "n_in": e.n_in, "n_out": e.n_out, "workgroup_size": e.workgroup_size,
                "cases_per_workgroup": e.cases_per_workgroup, "count": j.count, "in_offset": in_offset, "out_offset": out_offset,
            }));
            in_offset += j.inputs.len();
            out_offset += j.count * e.n_out;
        }
        let job = serde_json::json!({
            "source": module.source, "inputs": inputs, "outputs": outputs, "jobs": manifest,
        });
        let write = |p: &Path, b: &[u8]| std::fs::write(p, b).map_err(|e| Error::Failed(format!("{}: {e}", p.display())));
        write(&inputs, &words)?;
        write(&job_file, job.to_string().as_bytes())?;
        let r = self.node(&[job_file.as_os_str(), result.as_os_str()], &result);
        let _ = std::fs::remove_file(&inputs);
        let r = r?;
        self.adapter = adapter_text(&r);
        let bytes = std::fs::read(&outputs).map_err(|e| Error::Failed(format!("dawn: {}: {e}", outputs.display())))?;
        let _ = std::fs::remove_file(&outputs);
        if bytes.len() != out_offset * 4 {
            return Err(Error::Failed(format!("dawn: {} result bytes for {out_offset} words", bytes.len())));
        }
        let all: Vec<u64> = bytes.chunks_exact(4).map(|b| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))).collect();
        let mut at = 0;
        Ok(jobs
            .iter()
            .map(|j| {
                let n = j.count * module.entries[j.entry].n_out;
                let v = all[at..at + n].to_vec();
                at += n;
                v
            })
            .collect())
    }
}
