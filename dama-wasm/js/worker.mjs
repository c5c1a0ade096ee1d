// The Web Worker that runs dama's engine (started by client.mjs): one engine per worker,
// requests answered in order. Messages in: {id, request} (a request as Dama.call takes),
// or {module} first (a compiled WebAssembly.Module or the module's URL). Messages out:
// {id, info} for a search's progress, then {id, ok} or {id, error}; {ready} or
// {failed} once the module is loaded.
import { Dama, compile } from './dama.mjs';

let engine = null;
let loading = null;

self.onmessage = async (event) => {
  const { id, request, module } = event.data;
  if (module !== undefined) {
    loading = compile(module).then(
      (m) => {
        engine = new Dama(m);
        self.postMessage({ ready: true });
      },
      (e) => self.postMessage({ failed: String(e && e.message ? e.message : e) }),
    );
    return;
  }
  if (loading) await loading;
  if (!engine) {
    self.postMessage({ id, error: 'dama: the engine could not be loaded in this browser' });
    return;
  }
  try {
    const ok = engine.call(request, (info) => self.postMessage({ id, info }));
    self.postMessage({ id, ok });
  } catch (e) {
    self.postMessage({ id, error: e.message });
  }
};
