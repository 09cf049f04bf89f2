//! The aether generator: reads the one spec, builds a target-neutral model of
//! every function (expression trees with folds ordered by the spec's rule),
//! and writes the language cores, the reference corpus and their checks.

pub mod contract_doc;
pub mod corpus;
pub mod dsl;
pub mod error;
pub mod fuzzing;
pub mod interp;
pub mod kernel;
pub mod linalg;
pub mod model;
pub mod mutants;
pub mod output;
pub mod policy;
pub mod rng;
pub mod selftest;
pub mod spec;
pub mod targets;

pub use error::{Error, SpecError};
pub use model::Model;

/// Where the spec lives, relative to the repository root.
pub const SPEC_PATH: &str = "spec/aether.toml";

/// The repository root this crate was built in.
pub fn default_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Reads and builds the model of the spec under `root`.
pub fn load(root: &std::path::Path) -> Result<Model, Error> {
    let path = root.join(SPEC_PATH);
    let text = std::fs::read_to_string(&path).map_err(|source| Error::Io { path: SPEC_PATH.into(), source })?;
    let spec = spec::parse(SPEC_PATH, &text)?;
    Ok(Model::build(&spec)?)
}
