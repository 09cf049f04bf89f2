// Types of the aether web package (index.js).

/** The aether version and the contract id the cores were generated for. */
export const version: string;
export const contractId: string;

/**
 * The WGSL core (f32) in its strict build, byte for byte
 * wgsl_core/aether_core_strict.wgsl: every rounded result passes through the
 * opaque-zero guard, so a driver that fuses products or reassociates sums
 * keeps the contract's bits. Every entry point that calls it must first call
 * aether_set_opaque_zero.
 */
export const wgslCore: string;
/**
 * The WGSL core's default build, byte for byte wgsl_core/aether_core.wgsl:
 * faster, the same bits where the driver neither fuses nor reassociates (a
 * GPU driver may: see the README).
 */
export const wgslCoreFast: string;
/** The WGSL df64 core (the f64 functions in pairs of f32), wgsl_core/aether_df64.wgsl. */
export const wgslDf64: string;
/** The WGSL integer predicates, wgsl_core/aether_predicate.wgsl. */
export const wgslPredicate: string;
/** The GLSL ES 3.00 core (WebGL2), glsl_core/aether_core.glsl. */
export const glslCore: string;
/** The GLSL ES 3.00 df64 core, glsl_core/aether_df64.glsl. */
export const glslDf64: string;
/** The GLSL ES 3.00 integer predicates, glsl_core/aether_predicate.glsl. */
export const glslPredicate: string;

export type Language = 'wgsl' | 'glsl';
/** 'core': the WGSL strict build (or the GLSL core); 'fast': the WGSL default build (WGSL only). */
export type Core = 'core' | 'fast' | 'df64' | 'predicate';

export interface CoreOptions {
  /** Default 'wgsl'. */
  language?: Language;
  /** Default 'core'. */
  core?: Core;
}

export interface OpaqueZeroPlace {
  /** WGSL bind group, default 0. */
  group?: number;
  /** WGSL binding, default 16 (OPAQUE_ZERO_BINDING). */
  binding?: number;
  /** The uniform's name, default 'aether_zero'. */
  name?: string;
}

export interface SubsetOptions extends CoreOptions {
  /**
   * Where to declare the opaque-zero uniform when the selection needs it
   * (default group 0, binding 16, name aether_zero); false leaves the
   * declaration out (declare your own and pass a zero from it).
   */
  opaqueZero?: OpaqueZeroPlace | false;
  /** A comment naming the selection and the call the entry point must make (default true). */
  header?: boolean;
}

export type ItemKind = 'fn' | 'struct' | 'var' | 'const' | 'alias' | 'override' | 'prototype';

export interface Item {
  /** Its position in the core's item table. */
  index: number;
  kind: ItemKind;
  name: string;
  /** Offsets in the core's source (from the item's attached comment to past its last newline). */
  start: number;
  end: number;
  /** The indices of the items it references. */
  deps: number[];
}

export interface Closure {
  indices: number[];
  items: Array<Item & { text: string }>;
  /** The setter every entry point must call first (aether_set_opaque_zero, aether_df64_set_opaque_zero), or null. */
  opaqueZeroSetter: string | null;
}

/**
 * The source of the named items of a core with every item they reference,
 * transitively, in the core's order and bytes: the bits are the whole core's.
 * Throws on a name the core does not have.
 */
export function subset(names: string | readonly string[], options?: SubsetOptions): string;
/** The items subset() would return, and the opaque-zero setter they need. */
export function closure(names: string | readonly string[], options?: CoreOptions): Closure;
/** Every top-level item of a core, in order. */
export function itemTable(options?: CoreOptions): Item[];
/** The whole source of a core. */
export function coreSource(options?: CoreOptions): string;
/** The names of a core's items whose code needs the opaque zero (their setters aside). */
export function needsOpaqueZero(options?: CoreOptions): string[];
/** The opaque-zero uniform's declaration (WGSL: a vec4<u32> at group/binding; GLSL: a uniform uint). */
export function opaqueZeroDeclaration(options?: OpaqueZeroPlace & { language?: Language }): string;

/** 16: the binding (in group 0) of the opaque-zero uniform this package declares by default. */
export const OPAQUE_ZERO_BINDING: number;
/** A 16-byte uniform buffer that stays zero. */
export function createOpaqueZero(device: GPUDevice, options?: { label?: string }): GPUBuffer;
/** The bind group entry of that buffer (binding 16 unless given). */
export function opaqueZeroEntry(buffer: GPUBuffer, binding?: number): GPUBindGroupEntry;

/** The self-test's report: aether_selftest_report's fields. */
export interface SelfTestFields {
  failed_rules: number;
  failed: number;
  banded_differ: number;
  witnesses: number;
  flushes_results: number;
  flushes_operands: number;
  zero_sign_ignored: number;
  first_failed: number;
  outside_domain_differ: number;
}

export interface SelfTestResult {
  /** No witness of an exact rule failed. */
  passed: boolean;
  fields: SelfTestFields;
  /** The rules (mutants::ALL names) whose witnesses failed. */
  failingRules: string[];
  /** The report in words. */
  text: string;
}

/** The self-test's compute module (entry `main`): the subset for aether_selftest, or the whole core. */
export function selfTestSource(options?: { whole?: boolean; wholeSource?: string }): string;
/** A report's words, by field and in words. */
export function describeSelfTest(words: ArrayLike<number>): SelfTestResult;
/**
 * Runs the WGSL self-test on a device: builds the pipeline (seconds), runs one
 * invocation, reads the report. Rejects if the module does not compile.
 */
export function runSelfTest(
  device: GPUDevice,
  options?: { whole?: boolean; wholeSource?: string },
): Promise<SelfTestResult & { words: number[]; buildMs: number; runMs: number }>;

/** aether_selftest_report's field names, in order. */
export const selftestFields: readonly string[];
/** The rule whose witness failed sets bit k of failed_rules: its name is selftestRules[k]. */
export const selftestRules: readonly string[];
