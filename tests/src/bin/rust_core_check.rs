//! Checks builds of the Rust core against the reference through
//! `aether-rust-check` runners on pipes: every corpus case and N random
//! inputs per function (kernels N/5), the same inputs sent to every runner,
//! each result judged under the comparison policy. `scripts/rust-core.sh`
//! builds the runners (debug, release, x86-64-v3, native, aarch64 under
//! qemu-user, wasm32 under Node with and without simd128) and a rule
//! mutant's, which must fail.
//!
//!   rust_core_check [--per-function N] [--expect-fail LABEL:MUTANT]... LABEL=COMMAND...
//!
//! A runner named by `--expect-fail` runs mutant MUTANT's core: it must
//! mismatch, and only in callables whose tree the mutant changes.
//!   rust_core_check --write-mutant NAME DIR
//!
//! `--write-mutant` writes the Rust core of mutant NAME to DIR/rust_core and
//! a runner crate over it to DIR/rust-check (a workspace of its own).

use std::collections::BTreeSet;
use std::io::{BufReader, BufWriter, Read, Write};
use std::process::{Child, Command, Stdio};

use aether_generator::model::Callable;
use aether_generator::{corpus as gen_corpus, mutants, output, predicate_corpus, targets};
use aether_tests::rust_core::{inputs, random_count, Tally};
use aether_tests::{corpus, model};

struct Runner {
    label: String,
    child: Child,
    mutant: Option<mutants::Mutant>,
    mismatches: usize,
    cases: usize,
    failed: BTreeSet<String>,
    first: Vec<String>,
}

fn request(name: &str, words: &[u64], out: &mut impl Write) -> std::io::Result<()> {
    out.write_all(&(name.len() as u32).to_le_bytes())?;
    out.write_all(name.as_bytes())?;
    out.write_all(&(words.len() as u32).to_le_bytes())?;
    for w in words {
        out.write_all(&w.to_le_bytes())?;
    }
    Ok(())
}

fn answer(r: &mut impl Read) -> std::io::Result<Option<Vec<u64>>> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b)?;
    let n = u32::from_le_bytes(b);
    if n == u32::MAX - 1 {
        return Err(std::io::Error::other("the runner does not know this callable"));
    }
    if n == u32::MAX {
        return Ok(None);
    }
    let mut v = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let mut w = [0u8; 8];
        r.read_exact(&mut w)?;
        v.push(u64::from_le_bytes(w));
    }
    Ok(Some(v))
}

fn write_mutant(name: &str, dir: &std::path::Path) {
    let model = model();
    let m = mutants::Mutant::from_name(name).unwrap_or_else(|| panic!("no mutant `{name}`"));
    let (mutant_model, mutated) = m.build(&model).unwrap();
    let witnesses = aether_tests::witnesses(&model);
    let files = targets::rust::crate_files(&mutant_model, &mutated, &output::banner(&model), &witnesses).unwrap();
    for f in files {
        let path = dir.join(&f.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &f.contents).unwrap();
    }
    let root = aether_generator::default_root();
    let check = dir.join("rust-check");
    std::fs::create_dir_all(check.join("src")).unwrap();
    let main = std::fs::read_to_string(root.join("rust-check/src/main.rs")).unwrap();
    std::fs::write(check.join("src/main.rs"), main).unwrap();
    std::fs::write(
        check.join("Cargo.toml"),
        "[package]\nname = \"aether-rust-check\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\naether-core = { path = \"../rust_core\", features = [\"std\"] }\n\n[workspace]\n",
    )
    .unwrap();
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--write-mutant") {
        write_mutant(&args[1], std::path::Path::new(&args[2]));
        return;
    }
    let mut per_function = 2000usize;
    let mut expect_fail = Vec::new();
    let mut specs = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--per-function" => per_function = it.next().and_then(|n| n.parse().ok()).expect("--per-function N"),
            "--expect-fail" => expect_fail.push(it.next().expect("--expect-fail LABEL")),
            _ => specs.push(a),
        }
    }
    let mut runners: Vec<Runner> = specs
        .iter()
        .map(|s| {
            let (label, cmd) = s.split_once('=').unwrap_or_else(|| panic!("`{s}`: a runner is LABEL=COMMAND"));
            let mut words = cmd.split_whitespace();
            let child = Command::new(words.next().expect("a command"))
                .args(words)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap_or_else(|e| panic!("{label}: {cmd}: {e}"));
            Runner {
                label: label.to_string(),
                child,
                mutant: expect_fail.iter().find_map(|x: &String| {
                    let (l, m) = x.split_once(':').expect("--expect-fail LABEL:MUTANT");
                    (l == label).then(|| mutants::Mutant::from_name(m).unwrap_or_else(|| panic!("no mutant `{m}`")))
                }),
                mismatches: 0,
                cases: 0,
                failed: BTreeSet::new(),
                first: Vec::new(),
            }
        })
        .collect();
    let model = model();
    let corpus = corpus().unwrap_or_else(|e| panic!("{e}"));
    let lowered = model.lowered();
    let t0 = std::time::Instant::now();
    let mut total = 0usize;
    for c in model.callables() {
        let name = c.c_name(&model);
        let reference = aether_reference::flat::lookup(c.family(), c.shape(), c.elem()).unwrap();
        let ins = inputs(&model, &lowered, &corpus, c, random_count(c, per_function));
        let want: Vec<Vec<u64>> = ins.iter().map(|i| reference(i)).collect();
        total += ins.len();
        std::thread::scope(|s| {
            for r in runners.iter_mut() {
                let stdin = r.child.stdin.as_mut().unwrap();
                let stdout = r.child.stdout.as_mut().unwrap();
                let (ins, name) = (&ins, &name);
                let writer = s.spawn(move || {
                    let mut w = BufWriter::with_capacity(1 << 16, stdin);
                    for i in ins {
                        request(name, i, &mut w).expect("the runner reads its requests");
                    }
                    w.flush().expect("the runner reads its requests");
                });
                let mut rd = BufReader::with_capacity(1 << 16, stdout);
                let mut tally = Tally::default();
                for (i, want) in ins.iter().zip(&want) {
                    let got = answer(&mut rd).unwrap_or_else(|e| panic!("{}: {name}: {e}", r.label));
                    tally.judge(&model, c, i, want, got.as_deref());
                }
                writer.join().unwrap();
                r.cases += tally.cases;
                r.mismatches += tally.mismatches;
                if tally.mismatches > 0 {
                    r.failed.insert(name.clone());
                }
                r.first.extend(tally.first.into_iter().take(3usize.saturating_sub(r.first.len())));
            }
        });
        // A function's batched forms, on the same inputs: requests of up to BATCH items per form
        // (a request of 10^5 items grew a wasm32 runner's memory until Node's V8 aborted in its
        // garbage collector).
        if let Callable::Function(f) = c {
            const BATCH: usize = 4096;
            let per = f.output_words();
            for form in ["aos", "soa"] {
                let request_name = format!("batch:{form}:{name}");
                for r in runners.iter_mut() {
                    let mut tally = Tally::default();
                    for (chunk, wants) in ins.chunks(BATCH).zip(want.chunks(BATCH)) {
                        let mut words = vec![chunk.len() as u64];
                        chunk.iter().for_each(|i| words.extend_from_slice(i));
                        let mut w = BufWriter::new(r.child.stdin.as_mut().unwrap());
                        request(&request_name, &words, &mut w).expect("the runner reads its requests");
                        w.flush().expect("the runner reads its requests");
                        drop(w);
                        // Nothing follows the answer on the pipe (the runner waits for the next request).
                        let got = answer(&mut BufReader::new(r.child.stdout.as_mut().unwrap()))
                            .unwrap_or_else(|e| panic!("{}: {request_name}: {e}", r.label));
                        for (k, (i, want)) in chunk.iter().zip(wants).enumerate() {
                            let item = got.as_ref().and_then(|g| g.get(k * per..(k + 1) * per));
                            tally.judge(&model, c, i, want, item);
                        }
                    }
                    r.cases += tally.cases;
                    r.mismatches += tally.mismatches;
                    if tally.mismatches > 0 {
                        r.failed.insert(name.clone());
                    }
                    let first = tally.first.into_iter().map(|m| format!("{request_name}: {m}"));
                    r.first.extend(first.take(3usize.saturating_sub(r.first.len())));
                }
            }
            total += 2 * ins.len();
        }
    }
    // Both forms of every predicate: the corpus and the first 5N inputs of each sweep class.
    for p in &model.spec.predicates.predicates {
        let mut ins: Vec<Vec<u64>> = corpus[&format!("aether_predicate_{}", p.name)].cases.iter().map(|c| c.inputs.clone()).collect();
        let reference = predicate_corpus::reference(&p.name).unwrap();
        for class in predicate_corpus::sweep(per_function * 5).into_iter().filter(|c| c.predicate == p.name) {
            let words = class.chunks(per_function * 5).next().unwrap_or_default();
            ins.extend(words.chunks(class.arity).map(|a| a.iter().map(|x| *x as u64).collect::<Vec<u64>>()));
        }
        let want: Vec<bool> = ins.iter().map(|a| reference(&a.iter().map(|x| *x as i64).collect::<Vec<i64>>())).collect();
        for form in ["golden", "integer"] {
            let name = format!("predicate:{}:{form}", p.name);
            std::thread::scope(|s| {
                for r in runners.iter_mut() {
                    let stdin = r.child.stdin.as_mut().unwrap();
                    let stdout = r.child.stdout.as_mut().unwrap();
                    let (ins, name) = (&ins, &name);
                    let writer = s.spawn(move || {
                        let mut w = BufWriter::with_capacity(1 << 16, stdin);
                        for i in ins {
                            request(name, i, &mut w).expect("the runner reads its requests");
                        }
                        w.flush().expect("the runner reads its requests");
                    });
                    let mut rd = BufReader::with_capacity(1 << 16, stdout);
                    for (i, want) in ins.iter().zip(&want) {
                        let got = answer(&mut rd).unwrap_or_else(|e| panic!("{}: {name}: {e}", r.label));
                        r.cases += 1;
                        if got != Some(vec![u64::from(*want)]) {
                            r.mismatches += 1;
                            r.failed.insert(name.clone());
                            if r.first.len() < 3 {
                                r.first.push(format!("{name}: inputs {i:?} reference {want} Rust core {got:?}"));
                            }
                        }
                    }
                    writer.join().unwrap();
                }
            });
            total += ins.len();
        }
    }
    let mut bad = false;
    for r in &mut runners {
        drop(r.child.stdin.take());
        let status = r.child.wait().unwrap();
        println!(
            "rust-core-check: {:<14} {} inputs, {} mismatches in {} callables{}",
            r.label,
            r.cases,
            r.mismatches,
            r.failed.len(),
            if r.mutant.is_some() { " (a mutant: must fail)" } else { "" }
        );
        for f in &r.first {
            println!("    {f}");
        }
        if !status.success() {
            println!("    the runner exited with {status}");
            bad = true;
        }
        if let Some(m) = r.mutant {
            let (mutant_model, mutated) = m.build(&model).unwrap();
            let changed: BTreeSet<String> = (0..model.callables().len())
                .filter(|&i| gen_corpus::changes(&model, &lowered, &mutant_model, &mutated, i))
                .map(|i| model.callables()[i].c_name(&model))
                .collect();
            println!("    mutant {}: changes {} callables, fails in {}", m.name(), changed.len(), r.failed.len());
            if r.mismatches == 0 {
                println!("    FAIL: the mutant's core passes the check");
                bad = true;
            }
            let unexplained: Vec<&String> = r.failed.difference(&changed).collect();
            if !unexplained.is_empty() {
                println!("    FAIL: it fails where the mutant changes no tree: {unexplained:?}");
                bad = true;
            }
        } else if r.mismatches > 0 {
            bad = true;
        }
    }
    println!(
        "rust-core-check: {} callables, {total} inputs each ({per_function} random per function), {} runners, {:.1} s",
        model.callables().len(),
        runners.len(),
        t0.elapsed().as_secs_f64()
    );
    if bad {
        std::process::exit(1);
    }
}
