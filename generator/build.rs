//! Collects each target's keyword list (`src/targets/<target>/keywords.txt`)
//! into one table that `names.rs` includes, so that a new target's words
//! come with its folder and no list outside it names them.

use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/targets");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut dirs: Vec<_> =
        std::fs::read_dir(&root).expect("src/targets").map(|e| e.expect("an entry").path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    let mut table = String::from("&[\n");
    for dir in dirs {
        let file = dir.join("keywords.txt");
        println!("cargo:rerun-if-changed={}", dir.display());
        if file.is_file() {
            println!("cargo:rerun-if-changed={}", file.display());
            let name = dir.file_name().expect("a folder name").to_string_lossy().into_owned();
            table.push_str(&format!("    ({name:?}, include_str!({:?})),\n", file.display().to_string()));
        }
    }
    table.push_str("]\n");
    let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("target_keywords.rs");
    std::fs::write(out, table).expect("write the keyword table");
}
