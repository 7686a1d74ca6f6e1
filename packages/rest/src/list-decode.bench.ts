// Throughput of list and watch decoding. Run with `pnpm --filter @kubets/rest bench`
// (vitest bench --run). Each benchmark decodes the whole body once per iteration, so
// MB/s = ops/s × body size (printed below).
import { test } from 'vitest';
import { chunksOf, makePod, makePodListBody } from '../test/bench-fixtures.js';
import { decodeListStream } from './list-decode.js';
import { decodeWatchEvents } from './watch.js';

const PODS = 10_000;
const CHUNK = 64 * 1024;

const listBody = makePodListBody(PODS);
const listChunks = chunksOf(listBody, CHUNK);
const listMB = listBody.length / 1e6;

const watchBody = Buffer.from(
  Array.from(
    { length: PODS },
    (_, i) => `${JSON.stringify({ type: 'MODIFIED', object: makePod(i) })}\n`,
  ).join(''),
  'utf8',
);
const watchChunks = chunksOf(watchBody, CHUNK);
const watchMB = watchBody.length / 1e6;

console.log(
  `list body: ${PODS} pods, ${listMB.toFixed(1)} MB (${Math.round(listBody.length / PODS)} B/pod) ` +
    `in ${listChunks.length} chunks of 64 KiB; watch body: ${watchMB.toFixed(1)} MB`,
);

// Large bodies: a fixed number of runs rather than tinybench's default time budget.
const options = { iterations: 20, time: 0, warmupIterations: 3, warmupTime: 0 };

async function* stream(chunks: readonly Buffer[]): AsyncGenerator<Buffer> {
  for (const chunk of chunks) yield chunk;
}

test('10,000-pod list in 64 KiB chunks', async ({ bench }) => {
  await bench.compare(
    bench(`JSON.parse(Buffer.concat(chunks).toString()) (${listMB.toFixed(1)} MB)`, () => {
      const list = JSON.parse(Buffer.concat(listChunks).toString()) as { items: unknown[] };
      if (list.items.length !== PODS) throw new Error('wrong count');
    }),
    bench(`decodeListStream, items collected (${listMB.toFixed(1)} MB)`, async () => {
      const list = await decodeListStream(stream(listChunks));
      if (list.items.length !== PODS) throw new Error('wrong count');
    }),
    bench(`decodeListStream, onItem only (${listMB.toFixed(1)} MB)`, async () => {
      let count = 0;
      await decodeListStream(stream(listChunks), {
        onItem: () => {
          count++;
        },
        collectItems: false,
      });
      if (count !== PODS) throw new Error('wrong count');
    }),
    options,
  );
}, 600_000);

test('10,000 watch events in 64 KiB chunks', async ({ bench }) => {
  await bench(`decodeWatchEvents (${watchMB.toFixed(1)} MB)`, async () => {
    let count = 0;
    for await (const event of decodeWatchEvents(stream(watchChunks))) {
      if (event.type === 'MODIFIED') count++;
    }
    if (count !== PODS) throw new Error('wrong count');
  }).run(options);
}, 600_000);
