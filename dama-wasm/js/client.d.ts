// Types of client.mjs: the engine in a Web Worker.
import type {
  AnalyseRequest, ApiAnswer, ApiRequest, ExplainMoveAnswer, ExplainSquareAnswer, Game, Info,
  MovesAnswer, PlayRequest, ReviewAnswer, ReviewItem, ReviewRequest, SearchAnswer,
} from './dama.js';

/** What a stopped search resolves with: its last reported line. */
export interface StoppedAnswer {
  stopped: true;
  depth: number;
  score: number;
  score_text: string;
  pv: string[];
  best: { move: string } | null;
}

export class DamaWorker {
  /** `module`: the module's URL (default: beside dama.mjs), bytes, or a compiled module. */
  constructor(module?: URL | string | ArrayBuffer | ArrayBufferView | WebAssembly.Module);
  /** Resolves once the engine runs; rejects where the browser cannot run it. */
  ready(): Promise<true>;
  call(request: { cmd: string; [field: string]: unknown }, onProgress?: ((info: Info) => void) | null): Promise<any>;
  moves(game?: Game): Promise<MovesAnswer>;
  explain(game: Game, what: { square: number }): Promise<ExplainSquareAnswer>;
  explain(game: Game, what: { move: string }): Promise<ExplainMoveAnswer>;
  play(request: PlayRequest, onProgress?: (info: Info) => void): Promise<SearchAnswer | StoppedAnswer>;
  analyse(request: AnalyseRequest, onProgress?: (info: Info) => void): Promise<SearchAnswer | StoppedAnswer>;
  review(request: ReviewRequest, onItem?: (item: ReviewItem) => void): Promise<ReviewAnswer>;
  api(request: ApiRequest): Promise<ApiAnswer>;
  /** Builds the endgame classes the searches on the clock asked for; resolves with how many. */
  buildTables(): Promise<number>;
  /** Ends the searches under way at once (each resolves with its last line). */
  stop(): void;
  /** Ends the worker (a hidden tab); the next request starts a fresh one. */
  pause(): void;
}
