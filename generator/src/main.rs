//! `cargo run -p generator [-- --check] [--root DIR]`

use std::path::PathBuf;
use std::process::ExitCode;

use aether_generator::{load, output};

/// The usage text: the folders it writes are the registry's.
fn usage() -> String {
    let folders: Vec<String> = aether_generator::targets::registry().iter().map(|t| format!("{}/", t.folder())).collect();
    format!(
        "usage: generator [--check] [--root DIR]
  (no flag)   regenerate {}, corpus/ and docs/
              from spec/aether.toml
  --check     regenerate in memory; exit 1 and name every stale, missing or
              orphaned file if the tree differs
  --root DIR  the repository root (default: the one this binary was built in)",
        folders.join(", ")
    )
}

fn main() -> ExitCode {
    let mut check = false;
    let mut root: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--check" => check = true,
            "--root" => match args.next() {
                Some(r) => root = Some(PathBuf::from(r)),
                None => {
                    eprintln!("--root needs a directory\n{}", usage());
                    return ExitCode::from(2);
                }
            },
            "-h" | "--help" => {
                println!("{}", usage());
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("unknown argument `{other}`\n{}", usage());
                return ExitCode::from(2);
            }
        }
    }
    let root = root.unwrap_or_else(aether_generator::default_root);
    let outputs = match load(&root).and_then(|m| output::generate(&m)) {
        Ok(o) => o,
        Err(e) => {
            // Several spec errors print one per line, each its own `error:`.
            for line in e.to_string().lines() {
                eprintln!("error: {line}");
            }
            eprintln!("nothing was written");
            return ExitCode::from(2);
        }
    };
    if check {
        let drift = output::check(&root, &outputs);
        if drift.is_empty() {
            println!("generator --check: {} generated files are current", outputs.len());
            return ExitCode::SUCCESS;
        }
        for d in &drift {
            eprintln!("{d}");
        }
        eprintln!("{} file(s) out of date: run `cargo run -p generator` to regenerate them", drift.len());
        return ExitCode::from(1);
    }
    match output::write(&root, &outputs) {
        Ok(n) => {
            println!("generator: {} files generated, {n} changed", outputs.len());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
