// The subset tool in Node (node --test web/test/subset.test.mjs; scripts/web.sh runs it): what it
// returns is the core's own bytes, and what it is given wrongly is refused with an error, never a
// partial source. (The browser test compiles every item's closure; this file checks the rest.)
import test from 'node:test';
import assert from 'node:assert/strict';
import { subset, closure, itemTable, coreSource, wgslCore, wgslCoreFast, glslCore } from '../index.js';

test('every item of a subset is a slice of the core, in the core order', () => {
  for (const [language, core] of [['wgsl', wgslCore], ['glsl', glslCore]]) {
    const c = closure(['aether_vec3f_normalize', 'aether_mat4f_mul'], { language });
    assert.ok(c.items.length >= 3, `${language}: ${c.items.length} items`);
    let last = -1;
    for (const it of c.items) {
      assert.equal(it.text, core.slice(it.start, it.end));
      assert.ok(it.start > last, `${language}: ${it.name} out of order`);
      last = it.start;
    }
  }
});

test('the items of a core cover it: nothing but blanks and comments between them', () => {
  for (const language of ['wgsl', 'glsl']) {
    for (const core of language === 'wgsl' ? ['core', 'fast', 'df64', 'predicate'] : ['core', 'df64', 'predicate']) {
      const text = coreSource({ language, core });
      const table = itemTable({ language, core });
      let at = 0;
      for (const it of table) {
        const gap = text.slice(at, it.start).replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|\s+/g, '');
        assert.equal(gap, '', `${language} ${core}: text before ${it.name}`);
        at = it.end;
      }
      assert.equal(text.slice(at).replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|\s+/g, ''), '', `${language} ${core}: text after the last item`);
    }
  }
});

test('a selection that needs the opaque zero declares it and names the setter', () => {
  const src = subset('aether_f32_two_sum');
  assert.match(src, /var<uniform> aether_zero: vec4<u32>/);
  assert.match(src, /must first call aether_set_opaque_zero\(aether_zero\.x\)/);
  // The strict build (the default core) guards every product and sum; the default build
  // ('fast') only the compensated and elementary functions.
  assert.match(subset('aether_vec3f_dot'), /must first call aether_set_opaque_zero\(aether_zero\.x\)/);
  assert.doesNotMatch(subset('aether_vec3f_dot', { core: 'fast' }), /aether_zero/);
});

test('the two WGSL builds: the strict one is the default core, the same items as the fast one', () => {
  assert.equal(coreSource(), wgslCore);
  assert.equal(coreSource({ core: 'fast' }), wgslCoreFast);
  assert.match(wgslCore, /THE STRICT BUILD/);
  assert.doesNotMatch(wgslCoreFast, /THE STRICT BUILD/);
  const names = (core) => itemTable({ core }).map((it) => `${it.kind} ${it.name}`);
  assert.deepEqual(names('core'), names('fast'));
  assert.match(subset('aether_vec3f_dot'), /aether_barrier_f32\(\(a\.x \* b\.x\)\)/);
  assert.throws(() => subset('aether_vec3f_dot', { language: 'glsl', core: 'fast' }), /no core "fast"/);
});

test('wrong arguments are refused with an error that says what is wrong', () => {
  assert.throws(() => subset(42), { name: 'TypeError', message: /names must be a string or an array of strings, not number/ });
  assert.throws(() => subset(['aether_vec3f_dot', 7]), { name: 'TypeError', message: /an array holding a string, number/ });
  assert.throws(() => subset(null), { name: 'TypeError', message: /not null/ });
  assert.throws(() => subset([]), { name: 'RangeError', message: /no names given/ });
  assert.throws(() => subset('aether_vec3f_dott'), /no item aether_vec3f_dott in the wgsl core core/);
  assert.throws(() => subset('aether_vec3f_dot', { language: 'hlsl' }), /no language "hlsl"/);
  assert.throws(() => subset('aether_vec3f_dot', { core: 'f64' }), /no core "f64"/);
});
