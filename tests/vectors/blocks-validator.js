// Writes tests/vectors/blocks-validator.json: what Strapi 4.25's own blocks validator answers
// for hand-picked and seeded random values of a blocks attribute, as its entity validator runs
// it (yup, strict: false, abortEarly: false; nullable, or notNil when required).
//   usage (from the repository root, with the reference Strapi installed by bench/reference/setup.sh):
//   node tests/vectors/blocks-validator.js ~/.cache/strapi-reference > tests/vectors/blocks-validator.json
'use strict';
const path = require('path');
const modules = path.join(process.argv[2] || path.join(process.env.HOME, '.cache/strapi-reference'), 'node_modules');
const utils = require(path.join(modules, '@strapi/utils'));
const blocks = require(path.join(modules, '@strapi/strapi/dist/services/entity-validator/blocks-validator.js'));
const { yup, validateYupSchema } = utils;

let seed = 20240515;
const random = () => { // mulberry32
  seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (items) => items[Math.floor(random() * items.length)];

const text = () => {
  const node = { type: 'text', text: pick(['hi', '', 'Hello world']) };
  for (const mark of ['bold', 'italic', 'underline', 'strikethrough', 'code']) if (random() < 0.2) node[mark] = true;
  return node;
};
const link = () => ({ type: 'link', url: pick(['https://strapi.io', '/about', 'mailto:a@b.c']), children: [text()] });
const inline = () => (random() < 0.8 ? text() : link());
const inlines = () => Array.from({ length: 1 + Math.floor(random() * 2) }, inline);
const image = () => ({
  name: 'photo.png', alternativeText: null, url: '/uploads/photo.png', caption: null, width: 10, height: 8,
  formats: {}, hash: 'photo', ext: '.png', mime: 'image/png', size: 1.5, previewUrl: null, provider: 'local',
  provider_metadata: null, createdAt: '2024-05-15T10:00:00.000Z', updatedAt: '2024-05-15T10:00:00.000Z',
});
const list = (depth) => ({
  type: 'list', format: pick(['ordered', 'unordered']),
  children: Array.from({ length: 1 + Math.floor(random() * 2) }, () =>
    depth < 2 && random() < 0.3 ? list(depth + 1) : { type: 'list-item', children: inlines() }),
});
const block = () => {
  switch (pick(['paragraph', 'heading', 'quote', 'code', 'list', 'image'])) {
    case 'paragraph': return { type: 'paragraph', children: inlines() };
    case 'heading': return { type: 'heading', level: 1 + Math.floor(random() * 6), children: inlines() };
    case 'quote': return { type: 'quote', children: inlines() };
    case 'code': return { type: 'code', syntax: pick([null, 'js', undefined]), children: [text()] };
    case 'list': return list(0);
    default: return { type: 'image', image: image(), children: [{ type: 'text', text: '' }] };
  }
};
// a wrong value for a key: other types, casts, out-of-range values (never null inside arrays:
// Strapi reads `null.type` there and answers 500)
const wrong = () => pick([
  undefined, null, 5, 2.5, '3', ' 4 ', 'abc', '', true, 'true', '1', 'FALSE', 0, [], [1], {}, { a: 1 }, 7, 'x'.repeat(3),
  'https://', 'http://exa mple.com', 'ftp://files.example.com:21/a', 'not a url', '#top', 'javascript:alert(1)', 1e21, -0.5,
]);
const mutate = (value, depth) => {
  if (Array.isArray(value)) {
    if (value.length && random() < 0.5) {
      const index = Math.floor(random() * value.length);
      const copy = value.slice();
      copy[index] = mutate(copy[index], depth + 1);
      return copy;
    }
    return random() < 0.5 ? [] : value.concat([pick(['paragraph', 'bogus', 5, 'text', [], {}])].map((t) => (typeof t === 'string' ? { type: t } : t)));
  }
  if (value && typeof value === 'object') {
    const keys = Object.keys(value);
    const copy = { ...value };
    const key = pick(keys.concat(['extra']));
    if (random() < 0.6 && value[key] && typeof value[key] === 'object') copy[key] = mutate(value[key], depth + 1);
    else if (random() < 0.3) delete copy[key];
    else copy[key] = wrong();
    return copy;
  }
  return wrong();
};

const handPicked = [
  [], 'abc', 5, { a: 1 }, true, '[]', '[{"type":"paragraph","children":[{"type":"text","text":"x"}]}]', '{"a":1}',
  [{ type: 'paragraph', children: [{ type: 'text', text: 'hi', bold: true }] }],
  [{ type: 'foo' }], [5], ['paragraph'], [[]], [{ type: 'paragraph' }], [{ type: 'paragraph', children: [] }],
  [{ type: 'paragraph', children: 'abc' }], [{ type: 'paragraph', children: {} }],
  [{ type: 'paragraph', children: [{ type: 'text', text: 5, bold: 'true' }] }],
  [{ type: 'paragraph', children: [{ type: 'text' }] }],
  [{ type: 'paragraph', children: [{ type: 'text', text: 'a', bold: 'yes', italic: 1, code: '0' }] }],
  [{ type: 'paragraph', children: [{ type: 'text', text: {} }, { type: 'text', text: [] }] }],
  [{ type: 'paragraph', children: [{ type: 'link', url: 'https://strapi.io', children: [{ type: 'text', text: 'a' }] }] }],
  [{ type: 'paragraph', children: [{ type: 'link', children: [{ type: 'text', text: 'a' }] }] }],
  [{ type: 'paragraph', children: [{ type: 'link', url: 'nope' }] }],
  [{ type: 'paragraph', children: [{ type: 'link', url: '/relative', children: [{ type: 'link' }] }] }],
  [{ type: 'heading', children: [{ type: 'text', text: 'h' }] }],
  [{ type: 'heading', level: '2', children: [{ type: 'text', text: 'h' }] }],
  [{ type: 'heading', level: 7, children: [{ type: 'text', text: 'h' }] }],
  [{ type: 'heading', level: 'abc', children: [{ type: 'text', text: 'h' }] }],
  [{ type: 'heading', level: 2.5, children: [] }],
  [{ type: 'heading', children: [] }, { type: 'list', format: 'x', children: [{ type: 'list-item', children: [{ type: 'bogus' }] }] }],
  [{ type: 'list', format: 'ordered', children: [] }],
  [{ type: 'list', format: 'ordered', children: [{ type: 'list-item', children: [] }, { type: 'list', format: 'unordered', children: [{ type: 'list-item', children: [{ type: 'text', text: 'deep' }] }] }] }],
  [{ type: 'list', children: [{ type: 'paragraph' }] }],
  [{ type: 'code', children: [{ type: 'link', url: '/a', children: [] }] }],
  [{ type: 'code', syntax: 5, children: [] }],
  [{ type: 'quote', children: [{ type: 'text', text: 'q' }], extra: { kept: true } }],
  [{ type: 'image', children: [] }],
  [{ type: 'image', image: {}, children: [] }],
  [{ type: 'image', image: { ...image(), width: '10', size: 'big', formats: null, provider_metadata: { a: 1 } }, children: [] }],
  [{ type: 'image', image: 'nope', children: [] }],
  [{ type: 'image', image: { ...image(), name: '', createdAt: '', caption: '' }, children: [] }],
  [{ type: 'paragraph', children: [{ type: 'link', url: '', children: [{ type: 'text', text: '' }] }] }],
];

const cases = [];
for (const value of handPicked) for (const required of [false, true]) cases.push({ value, required });
for (let i = 0; i < 600; i++) {
  let value = Array.from({ length: 1 + Math.floor(random() * 3) }, block);
  const rounds = Math.floor(random() * 6);
  for (let r = 0; r < rounds; r++) value = mutate(value, 0);
  cases.push({ value, required: random() < 0.2 });
}

(async () => {
  const vectors = [];
  for (const c of cases) {
    const value = c.value === undefined ? null : JSON.parse(JSON.stringify(c.value));
    let validator = blocks({}, {});
    validator = c.required ? validator.notNil() : validator.nullable();
    const schema = yup.object().shape({ body: validator.default(undefined) }).required();
    try {
      const answer = await validateYupSchema(schema, { strict: false, abortEarly: false })({ body: value });
      vectors.push({ value, required: c.required, stored: answer.body === undefined ? null : JSON.parse(JSON.stringify(answer.body)) });
    } catch (error) {
      if (error.name !== 'ValidationError') continue; // Strapi's own crash (`null.type`): a 500 there
      vectors.push({ value, required: c.required, message: error.message, errors: error.details.errors.map((e) => [e.path, e.message]) });
    }
  }
  // one vector a line: readable diffs, a small file
  const source = JSON.stringify('Strapi 4.25.24 services/entity-validator/blocks-validator (yup 0.32.9)');
  process.stdout.write(`{"source": ${source}, "vectors": [\n${vectors.map((v) => JSON.stringify(v)).join(',\n')}\n]}\n`);
})();
