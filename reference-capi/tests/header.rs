//! The committed header `include/aether_reference.h` must be what cbindgen
//! generates from `src/lib.rs` now (build.rs writes that to `OUT_DIR`).
//! `AETHER_BLESS=1 cargo test -p aether-reference-capi --test header`
//! rewrites the committed copy.

use std::path::Path;

const GENERATED: &str = include_str!(concat!(env!("OUT_DIR"), "/aether_reference.h"));

#[test]
fn committed_header_is_current() {
    let committed_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("include/aether_reference.h");
    if std::env::var_os("AETHER_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&committed_path, GENERATED).unwrap_or_else(|e| panic!("writing {}: {e}", committed_path.display()));
        eprintln!("AETHER_BLESS=1: wrote {}", committed_path.display());
        return;
    }
    let committed = std::fs::read_to_string(&committed_path).unwrap_or_default();
    if committed != GENERATED {
        let line = committed
            .lines()
            .zip(GENERATED.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(committed.lines().count().min(GENERATED.lines().count()));
        panic!(
            "{} is stale or missing: it differs from what cbindgen generates from reference-capi/src/lib.rs (first at line {}).\n\
             Refresh it with: AETHER_BLESS=1 cargo test -p aether-reference-capi --test header",
            committed_path.display(),
            line + 1
        );
    }
}
