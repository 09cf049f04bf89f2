"""aether: the aether numerics contract's C core over numpy arrays, with the contract's bits.

Every function of the C core that has batched forms is here three times (all made from the
generated binding table, aether/_generated/table.py):
  NAME_aos(*arrays, out=None)  array of structures: shape (n,) + item shape, item i at [i]
  NAME_soa(*arrays, out=None)  structure of arrays: shape item shape + (n,)
  NAME(*values)                the scalar C function on one item
e.g. vec3f_dot_aos(a, b) with a, b float32 arrays of shape (n, 3). A vector's item shape is
(k,), a matrix's (rows, cols) in row-major order, a scalar's (). Arrays must be numpy arrays
of exactly the function's dtype, C-contiguous and aligned; anything else raises an
ArgumentError subclass (DTypeError, ShapeError, LayoutError, LengthError) before anything is
computed. See python/README.md.
"""
from ._core import (  # noqa: F401
    BINDINGS as _BINDINGS,
    FUNCTIONS,
    ArgumentError,
    DTypeError,
    LayoutError,
    LengthError,
    SelfTest,
    SelfTestError,
    ShapeError,
    check,
    contract_id,
    selftest,
    table as _table,
)

CONTRACT_ID = _table.CONTRACT_ID
CONTRACT_NAME = _table.CONTRACT_NAME
CONTRACT_VERSION = _table.CONTRACT_VERSION

globals().update(_BINDINGS)
__version__ = CONTRACT_VERSION
__all__ = sorted(
    ["FUNCTIONS", "ArgumentError", "DTypeError", "LayoutError", "LengthError", "SelfTest", "SelfTestError",
     "ShapeError", "check", "contract_id", "selftest", "CONTRACT_ID", "CONTRACT_NAME", "CONTRACT_VERSION"]
    + list(_BINDINGS)
)
