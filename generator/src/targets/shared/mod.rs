//! What several targets share: the one walk over a lowered function's trees
//! (`print`, `stmt`) and the kernels' and linear algebra's statements
//! (`kernels`, `linalg`), the structure-of-arrays batches (`soa`), the
//! integer predicates' walk (`predicates`), the C family's spelling
//! (`c_family`: C, CUDA and OpenCL C print through its `Dialect`) and the
//! GPU runners' check entries and modules (`check`). Nothing here
//! imports a target's folder: a target is its folder, and takes what it
//! shares from here.

pub mod c_family;
pub mod check;
pub mod df64;
pub mod docs;
pub mod kernels;
pub mod linalg;
pub mod predicates;
pub mod print;
pub mod shader;
pub mod soa;
pub mod stmt;
