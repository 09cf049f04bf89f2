// aether for the web: the WGSL and GLSL ES cores (generated, byte for byte the
// repository's wgsl_core/ and glsl_core/), the subset tool and the WebGPU helpers.
export { version, contractId, wgslCore, wgslDf64, wgslPredicate, glslCore, glslDf64, glslPredicate } from './generated/sources.js';
export { subset, closure, itemTable, coreSource, needsOpaqueZero, opaqueZeroDeclaration } from './subset.js';
export { OPAQUE_ZERO_BINDING, createOpaqueZero, opaqueZeroEntry, selfTestSource, describeSelfTest, runSelfTest } from './gpu.js';
export { selftestFields, selftestRules } from './generated/selftest.js';
