//! Every spec the generator accepts gives a C core that compiles: a fixed,
//! deterministic sample of textual mutations of spec/aether.toml (docs,
//! names, numbers, bodies, dropped lines, copied and dropped tables) goes
//! through the generator's fast path (`aether_generator::fuzzing::
//! render_with_probe_corpus`: parse, validation, model, every mutant's model,
//! the spec's probes on the reference and the model, every target; with no
//! corpus at all the self-tests' witness loops run to `0u`, which nvcc's
//! `-Werror all-warnings` refuses, so the probe corpus it is). For every mutant the
//! generator accepts, `c_core/aether_core.c` (with its header) and
//! `c_core/check/aether_flat.c` are compiled with gcc and clang
//! (`-std=c99 -Wall -Werror -c`), and, when an nvcc is found ($NVCC,
//! build/cuda/root/bin/nvcc as scripts/cuda-toolchain.sh installs it, or
//! PATH), a translation unit that includes `cuda_core/aether_core.cuh` is
//! compiled to PTX. An accepted mutant whose output does not compile fails
//! the test, which names the mutation and shows the compiler's first
//! errors. A refused mutant is fine (the generator said why); a panic while
//! generating is a failure too.
//!
//! Identical outputs are compiled once. Prints
//! `spec mutants: N tried, A accepted, R refused (...), ... compiled with gcc, clang[, nvcc]`.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use aether_generator::fuzzing;

type Mutation = (String, Option<String>);

fn spec_text() -> String {
    std::fs::read_to_string(aether_generator::default_root().join(aether_generator::SPEC_PATH)).unwrap()
}

/// `from` replaced by `to` once; None when the spec no longer has `from`.
fn once(text: &str, from: &str, to: &str) -> Option<String> {
    text.find(from).map(|_| text.replacen(from, to, 1))
}

/// A small deterministic generator for the sampled mutations.
struct Lcg(u64);
impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

fn mutations(t: &str) -> Vec<Mutation> {
    let mut m: Vec<Mutation> = vec![
        // Texts that end up in C comments and strings.
        ("a family doc closes a C comment (*/)".into(), once(t, "doc = \"", "doc = \"closes */ a comment: ")),
        (
            "a family doc ends in a trigraph line splice (??/)".into(),
            once(t, "doc = \"Linear interpolation", "doc = \"ends in ??/\\nLinear interpolation"),
        ),
        (
            "a family doc holds quotes, a backslash and %n".into(),
            once(t, "doc = \"Scale by", "doc = \"\\\"quoted\\\" back\\\\slash %s%n Scale by"),
        ),
        ("a family doc is empty".into(), once(t, "doc = \"Scale by a scalar: s * a[i].\"", "doc = \"\"")),
        ("the contract version holds a quote".into(), once(t, "version = \"0.1.0\"", "version = \"0.1.0\\\" x\"")),
        ("the contract name is not ASCII".into(), once(t, "name = \"aether\"", "name = \"\u{e6}ther\"")),
        // Names.
        ("a family renamed (lerp -> lerp_renamed)".into(), once(t, "[families.lerp]\n", "[families.lerp_renamed]\n")),
        ("a parameter renamed (scale: s -> factor)".into(), common::rename_in_table(t, "[families.scale]", "s", "factor")),
        ("a parameter named as a C keyword (scale: s -> int)".into(), common::rename_in_table(t, "[families.scale]", "s", "int")),
        (
            "a parameter named as a C macro of the core's headers (scale: s -> NULL)".into(),
            common::rename_in_table(t, "[families.scale]", "s", "NULL"),
        ),
        ("vec2's components renamed (u, v)".into(), once(t, "components = [\"x\", \"y\"]\n", "components = [\"u\", \"v\"]\n")),
        (
            "the component z named as a C keyword (double), everywhere".into(),
            once(t, "\"z\"", "\"double\"").map(|m| m.replace("\"z\"", "\"double\"").replace(".z", ".double")),
        ),
        ("f32's letter h".into(), once(t, "letter = \"f\"", "letter = \"h\"")),
        ("f32's literal suffix F".into(), once(t, "literal_suffix = \"f\"", "literal_suffix = \"F\"")),
        // Rules.
        ("the fold nests to the left".into(), once(t, "nesting = \"right\"", "nesting = \"left\"")),
        ("the fold is seeded with the identity".into(), once(t, "seed = \"none\"", "seed = \"identity\"")),
        ("mat3 is column-major".into(), common::rename_in_table(t, "[shapes.mat3]", "row", "column")),
        ("eigh runs 3 sweeps".into(), once(t, "eigh_sweeps = 10", "eigh_sweeps = 3")),
        ("the butterfly's rounds reversed".into(), once(t, "rounds = [16, 8, 4, 2, 1]", "rounds = [1, 2, 4, 8, 16]")),
        ("16 lanes".into(), once(t, "lanes = 32", "lanes = 16")),
        (
            "max leaves the either-zero policy".into(),
            once(t, "either_zero = [\"fmin\", \"fmax\", \"min\", \"max\"]", "either_zero = [\"fmin\", \"fmax\", \"min\"]"),
        ),
        ("add's identity is 1".into(), once(t, "expr = \"new + acc\"\nidentity = \"0\"", "expr = \"new + acc\"\nidentity = \"1\"")),
        // Bodies.
        ("add's operands swapped".into(), once(t, "body = \"out[i] = a[i] + b[i]\"", "body = \"out[i] = b[i] + a[i]\"")),
        (
            "norm nested in redundant parentheses".into(),
            once(t, "body = \"out = sqrt(squared_norm(a))\"", "body = \"out = ((((((sqrt(((squared_norm(a))))))))))\""),
        ),
        (
            "norm is a square root twice".into(),
            once(t, "body = \"out = sqrt(squared_norm(a))\"", "body = \"out = sqrt(sqrt(squared_norm(a)))\""),
        ),
        (
            "lerp's body uses a temporary".into(),
            once(t, "body = \"out[i] = a[i] + t * (b[i] - a[i])\"", "body = \"\"\"\nd = b[i] - a[i]\nout[i] = a[i] + t * d\n\"\"\""),
        ),
        ("scale's body negates a term".into(), once(t, "body = \"out[i] = s * a[i]\"", "body = \"out[i] = s * a[i] * -1\"")),
    ];
    // Tables copied under a new name and dropped.
    if let Some((a, b)) = common::table(t, "[families.lerp]") {
        let copy = t[a..b].replacen("[families.lerp]", "[families.lerp_copy]", 1);
        m.push(("lerp copied as lerp_copy".into(), Some(format!("{}{copy}{}", &t[..b], &t[b..]))));
        m.push(("lerp dropped".into(), Some(format!("{}{}", &t[..a], &t[b..]))));
    }
    // Sampled: dropped lines, numbers replaced.
    let lines: Vec<&str> = t.lines().collect();
    let code: Vec<usize> = (0..lines.len()).filter(|&i| !lines[i].trim().is_empty() && !lines[i].trim_start().starts_with('#')).collect();
    let mut r = Lcg(0xae7e_5eed);
    for _ in 0..8 {
        let k = code[r.below(code.len())];
        let kept: Vec<&str> = lines.iter().enumerate().filter(|(i, _)| *i != k).map(|(_, l)| *l).collect();
        m.push((format!("line {} dropped: `{}`", k + 1, lines[k].trim()), Some(kept.join("\n") + "\n")));
    }
    let numbers: Vec<usize> = (0..lines.len())
        .filter(|&i| code.contains(&i) && lines[i].contains(" = ") && lines[i].trim_end().ends_with(|c: char| c.is_ascii_digit()))
        .collect();
    for with in ["1", "2", "64"] {
        if numbers.is_empty() {
            break;
        }
        // A line that already holds the number would be no mutation: take the next one.
        let start = r.below(numbers.len());
        let Some(k) = (0..numbers.len())
            .map(|j| numbers[(start + j) % numbers.len()])
            .find(|&k| lines[k].split_once(" = ").unwrap().1.trim() != with)
        else {
            continue;
        };
        let (key, _) = lines[k].split_once(" = ").unwrap();
        let mut v: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        v[k] = format!("{key} = {with}");
        m.push((format!("line {}: `{}` becomes `{}`", k + 1, lines[k].trim(), v[k].trim()), Some(v.join("\n") + "\n")));
    }
    m
}

fn find_nvcc() -> Option<PathBuf> {
    let root = aether_generator::default_root();
    let mut candidates: Vec<PathBuf> = std::env::var_os("NVCC").map(PathBuf::from).into_iter().collect();
    candidates.push(root.join("build/cuda/root/bin/nvcc"));
    candidates.push(PathBuf::from("nvcc"));
    candidates.into_iter().find(|p| Command::new(p).arg("--version").output().is_ok_and(|o| o.status.success()))
}

/// One compile: (what, the tool, its arguments, the working directory).
struct Job {
    label: String,
    tool: PathBuf,
    args: Vec<String>,
    dir: PathBuf,
}

fn first_lines(s: &str, n: usize) -> String {
    s.lines().take(n).collect::<Vec<_>>().join("\n")
}

#[test]
fn accepted_mutants_compile() {
    let start = std::time::Instant::now();
    let text = spec_text();
    let tmp = std::env::temp_dir().join(format!("aether-spec-mutants-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let mut compilers: Vec<PathBuf> = Vec::new();
    for cc in ["gcc", "clang"] {
        if common::have(cc) {
            compilers.push(cc.into());
        } else {
            println!("note: {cc} is not installed; the mutants are not compiled with it");
        }
    }
    assert!(!compilers.is_empty(), "neither gcc nor clang is installed");
    let nvcc = find_nvcc();
    if nvcc.is_none() {
        println!("note: no nvcc ($NVCC, build/cuda/root/bin/nvcc or PATH; scripts/cuda-toolchain.sh installs one): the CUDA header is not compiled");
    }

    let all = mutations(&text);
    let (mut accepted, mut not_applicable) = (0, 0);
    let mut refused: Vec<String> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    let mut jobs: Vec<Job> = Vec::new();
    // Identical files are compiled once: (what, content digest) -> the mutant that first had it.
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    for (k, (name, mutant)) in all.iter().enumerate() {
        let Some(mutant) = mutant else {
            println!("n/a: {name} (the spec no longer has the text it changes)");
            not_applicable += 1;
            continue;
        };
        assert_ne!(mutant, &text, "{name}: the mutation changes nothing");
        let outputs = match std::panic::catch_unwind(|| fuzzing::render_with_probe_corpus(mutant)) {
            Ok(Ok(o)) => o,
            Ok(Err(e)) => {
                refused.push(format!("{name}: {}", first_lines(&e.to_string(), 1)));
                continue;
            }
            Err(_) => {
                failures.push(format!("mutant #{k} ({name}): the generator panicked"));
                continue;
            }
        };
        accepted += 1;
        let dir = tmp.join(format!("m{k:02}"));
        for o in &outputs {
            if o.path.starts_with("c_core/") || o.path == "cuda_core/aether_core.cuh" {
                let p = dir.join(&o.path);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(&p, &o.contents).unwrap();
            }
        }
        let file = |p: &str| outputs.iter().find(|o| o.path == p).map_or(String::new(), |o| o.contents.clone());
        let digest = |parts: &[&str]| format!("{:x}", md5::compute(parts.iter().map(|p| file(p)).collect::<Vec<_>>().concat()));
        let label = |what: &str, tool: &Path| format!("mutant #{k} ({name}): {} {what}", tool.display());
        let units = [
            (
                "c_core/aether_core.c",
                digest(&["c_core/aether_core.h", "c_core/aether_core.c"]),
                vec!["-Ic_core".to_string(), "c_core/aether_core.c".into()],
            ),
            (
                "c_core/check/aether_flat.c",
                digest(&["c_core/aether_core.h", "c_core/check/aether_flat.h", "c_core/check/aether_flat.c"]),
                vec!["-Ic_core".to_string(), "-Ic_core/check".into(), "c_core/check/aether_flat.c".into()],
            ),
        ];
        for (what, d, args) in units {
            if seen.insert((what.to_string(), d), k).is_some() {
                continue;
            }
            for cc in &compilers {
                // An object file of its own, never /dev/null (scripts/null-device.sh says why).
                let object = format!("obj{}.o", jobs.len());
                let mut a: Vec<String> = ["-std=c99", "-Wall", "-Werror", "-c", "-o", &object].map(String::from).to_vec();
                a.extend(args.iter().cloned());
                jobs.push(Job { label: label(what, cc), tool: cc.clone(), args: a, dir: dir.clone() });
            }
        }
        if let Some(nvcc) = &nvcc {
            let d = digest(&["cuda_core/aether_core.cuh"]);
            if seen.insert(("cuda".into(), d), k).is_none() {
                std::fs::write(dir.join("ptx.cu"), "#include \"aether_core.cuh\"\n").unwrap();
                let args = ["-Werror", "all-warnings", "-ptx", "-arch=sm_90", "-Icuda_core", "-o", "core.ptx", "ptx.cu"]
                    .map(String::from)
                    .to_vec();
                jobs.push(Job { label: label("cuda_core/aether_core.cuh to PTX", nvcc), tool: nvcc.clone(), args, dir: dir.clone() });
            }
        }
    }

    // The compiles, on every core.
    let compiled = jobs.len();
    let queue = Mutex::new(jobs);
    let errors = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let Some(job) = queue.lock().unwrap().pop() else { break };
                let out = Command::new(&job.tool).args(&job.args).current_dir(&job.dir).output().unwrap();
                if !out.status.success() {
                    let msg = String::from_utf8_lossy(&out.stderr);
                    errors.lock().unwrap().push(format!("{} failed:\n{}", job.label, first_lines(&msg, 12)));
                }
            });
        }
    });
    failures.extend(errors.into_inner().unwrap());
    failures.sort();
    let _ = std::fs::remove_dir_all(&tmp);

    for r in &refused {
        println!("refused: {r}");
    }
    let mut names: Vec<String> = compilers.iter().map(|c| c.display().to_string()).collect();
    if nvcc.is_some() {
        names.push("nvcc (PTX of the CUDA header)".into());
    }
    let mut failed_mutants: Vec<&str> = failures.iter().filter_map(|f| f.split(')').next()).collect();
    failed_mutants.dedup();
    println!(
        "spec mutants: {} tried ({not_applicable} not applicable), {accepted} accepted, {} refused, {compiled} compiles of distinct outputs with {}: {} failed, from {} accepted mutant(s) ({:.1} s)",
        all.len() - not_applicable,
        refused.len(),
        names.join(", "),
        failures.len(),
        failed_mutants.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "accepted mutants whose output does not compile (or that panicked):\n\n{}", failures.join("\n\n"));
}
