//! The python package's generated files (being written).

use crate::error::Error;
use crate::model::Model;
use crate::targets::Output;

/// The folder the generator owns in the package.
pub const FOLDER: &str = "python/aether/_generated";

pub fn render(_model: &Model, _banner: &str, _cores: &[Output]) -> Result<Vec<Output>, Error> {
    Ok(Vec::new())
}
