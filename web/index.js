// aether for the web: the WGSL and GLSL ES cores (generated, byte for byte the
// repository's wgsl_core/ and glsl_core/), the subset tool and the WebGPU helpers.
// wgslCore is the strict build (wgsl_core/aether_core_strict.wgsl: every rounded
// result guarded, so a driver that fuses or reassociates keeps the bits);
// wgslCoreFast the default build (wgsl_core/aether_core.wgsl).
export { version, contractId, wgslCore, wgslCoreFast, wgslDf64, wgslPredicate, glslCore, glslDf64, glslPredicate } from './generated/sources.js';
export { subset, closure, itemTable, coreSource, needsOpaqueZero, opaqueZeroDeclaration } from './subset.js';
export { OPAQUE_ZERO_BINDING, createOpaqueZero, opaqueZeroEntry, selfTestSource, describeSelfTest, runSelfTest } from './gpu.js';
export { selftestFields, selftestRules } from './generated/selftest.js';
