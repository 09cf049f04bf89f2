//! Errors that name the file, the line and the key.

use std::fmt;

/// An error in the spec, located at `file:line` and at a dotted key such as
/// `families.dot.body`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    pub file: String,
    pub line: usize,
    pub key: String,
    pub message: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: `{}`: {}", self.file, self.line, self.key, self.message)
    }
}

impl std::error::Error for SpecError {}

/// Any failure of a generator run.
#[derive(Debug)]
pub enum Error {
    Spec(SpecError),
    Io {
        path: String,
        source: std::io::Error,
    },
    Template {
        template: String,
        message: String,
    },
    /// The spec's model and the hand-written reference disagree, or a corpus
    /// invariant does not hold: a bug in one of them, never in the inputs.
    Inconsistent(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Spec(e) => write!(f, "{e}"),
            Error::Io { path, source } => write!(f, "{path}: {source}"),
            Error::Template { template, message } => write!(f, "template {template}: {message}"),
            Error::Inconsistent(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<SpecError> for Error {
    fn from(e: SpecError) -> Self {
        Error::Spec(e)
    }
}

/// Maps byte offsets of a source text to 1-based line numbers.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    pub fn line(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }
}
