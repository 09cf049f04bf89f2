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

/// The most errors one run prints; the rest are counted ("and N more").
pub const ERROR_CAP: usize = 20;

/// Every independent error one run found in the spec (at least one), in line
/// order, one per line and key (the first found). A check that reads what an
/// earlier check refused does not run, so each error stands on its own.
///
/// One error prints exactly as a [`SpecError`]; several print one per line,
/// at most [`ERROR_CAP`], then a line that counts the rest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecErrors(Vec<SpecError>);

impl SpecErrors {
    /// The errors in line order (a stable sort: errors at one line keep the
    /// order they were found in), the later of two at one line and key
    /// dropped. `None` when there is none.
    pub fn new(errors: Vec<SpecError>) -> Option<SpecErrors> {
        let mut out: Vec<SpecError> = Vec::with_capacity(errors.len());
        for e in errors {
            if !out.iter().any(|o| (o.line, &o.key, &o.file) == (e.line, &e.key, &e.file)) {
                out.push(e);
            }
        }
        out.sort_by_key(|e| e.line);
        (!out.is_empty()).then_some(SpecErrors(out))
    }

    /// `Err` with the errors, or `Ok(())` when there is none.
    pub fn check(errors: Vec<SpecError>) -> Result<(), SpecErrors> {
        SpecErrors::new(errors).map_or(Ok(()), Err)
    }

    /// Every error, in line order.
    pub fn errors(&self) -> &[SpecError] {
        &self.0
    }

    /// The error of the lowest line.
    pub fn first(&self) -> &SpecError {
        &self.0[0]
    }

    pub fn into_vec(self) -> Vec<SpecError> {
        self.0
    }
}

impl From<SpecError> for SpecErrors {
    fn from(e: SpecError) -> Self {
        SpecErrors(vec![e])
    }
}

impl fmt::Display for SpecErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().take(ERROR_CAP).enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        if self.0.len() > ERROR_CAP {
            write!(f, "\nand {} more error(s) (only the first {ERROR_CAP} are shown)", self.0.len() - ERROR_CAP)?;
        }
        Ok(())
    }
}

impl std::error::Error for SpecErrors {}

/// Any failure of a generator run.
#[derive(Debug)]
pub enum Error {
    Spec(SpecErrors),
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
        Error::Spec(e.into())
    }
}

impl From<SpecErrors> for Error {
    fn from(e: SpecErrors) -> Self {
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
