// Runs js/worker.mjs in a node worker thread as a browser runs it in a Web Worker: `self`
// with onmessage and postMessage (for the tests of client.mjs under node).
import { parentPort } from 'node:worker_threads';

globalThis.self = { postMessage: (data) => parentPort.postMessage(data), onmessage: null };
await import('../js/worker.mjs');
parentPort.on('message', (data) => self.onmessage({ data }));
