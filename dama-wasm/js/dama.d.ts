// Types of dama.mjs: the engine run in the calling thread.

/** A game: the rules, the start position (FEN) and the moves played from it. */
export interface Game {
  /** italian (default), spanish, czech, english, russian or brazilian. */
  variant?: string;
  /** The start position, e.g. "W:W21,22:B13,K14"; the variant's start when absent. */
  fen?: string;
  /** The moves played from it, in Hub or PDN text ("22-18", "18x11"). */
  moves?: string[] | string;
}

/** A legal move. */
export interface MoveInfo {
  /** Hub text, as `dama moves` prints it: "22-18", "18x11". */
  move: string;
  /** PDN text. */
  pdn: string;
  from: number;
  to: number;
  /** The squares of the pieces it captures. */
  captured: number[];
  /** Every landing path a capture may take (explain by square only). */
  paths?: number[][];
}

export interface MovesAnswer {
  moves: MoveInfo[];
  turn: 'white' | 'black';
  /** Set when the rules ended the game (a draw rule still leaves legal moves). */
  outcome: string | null;
}

export interface ExplainSquareAnswer {
  square: number;
  moves: MoveInfo[];
  /** Why the piece cannot move, when it cannot. */
  why?: string;
}

export interface ExplainMoveAnswer {
  legal: boolean;
  move?: MoveInfo;
  why?: string;
}

/** An analysis's first progress where the endgame tables cover the position. */
export interface TableInfo {
  table: { result: 'win' | 'draw' | 'loss'; plies: number | null };
}

/** One completed iteration of a search (each line of a multi-PV one). */
export interface Info {
  depth: number;
  seldepth: number;
  multipv: number;
  /** In men for the side to move; wins are ±100 less a hundredth a ply, table wins ±90. */
  score: number;
  /** The score in hundredths of a man (wins and losses: the engine's own large values). */
  cp: number;
  /** "+0.35", "win in 7", "table win, 12 to conversion". */
  score_text: string;
  nodes: number;
  nps: number;
  ms: number;
  pv: string[];
  /** The first move's texts, arrow and landing path, and the line in both notations. */
  line: {
    move: string;
    text: string;
    arrow: [number, number];
    path: number[];
    pv: string[];
    pv_text: string[];
  } | null;
}

export interface Line {
  move: string;
  score: number;
  score_text: string;
  pv: string[];
}

export interface SearchAnswer {
  best: MoveInfo | null;
  score: number;
  score_text: string;
  depth: number;
  nodes: number;
  ms: number;
  /** The move came from the opening book (no search). */
  book: boolean;
  pv: string[];
  lines: Line[];
}

export interface Limits {
  depth?: number;
  nodes?: number;
  time_ms?: number;
}

export type Level = 'novice' | 'easy' | 'normal' | 'strong' | 'hard' | 1 | 2 | 3 | 4 | 5;

export interface PlayRequest extends Game, Limits {
  level: Level;
  /** The level's choice among its good moves is drawn from this seed (0 by default). */
  seed?: number;
}

export interface AnalyseRequest extends Game, Limits {
  /** Lines to score exactly (1 by default). */
  multipv?: number;
}

export interface BenchAnswer {
  positions: { nodes: number; ms: number; best: string | null }[];
  nodes: number;
  ms: number;
  signature: number;
}

export interface VersionAnswer {
  name: string;
  version: string;
  variants: string[];
  levels: string[];
  simd: boolean;
}

/** A review: the PDN text, its default variant, the budget of each position. */
export interface ReviewRequest {
  pdn: string;
  variant?: string;
  depth?: number;
  nodes?: number;
}

/** One item of a review, as `dama serve`'s streamed review sends it. */
export interface ReviewItem {
  type: 'game' | 'ply' | 'final' | 'done';
  game?: number;
  [field: string]: unknown;
}

/** The end of a review. */
export interface ReviewAnswer {
  games: number;
  thresholds: { '?!': number; '?': number; '??': number; clamp: number };
}

/** A request to `dama serve`'s API for a game kept by the caller. */
export interface ApiRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
  /** The game's record as the last answer gave it (null: none yet). */
  record?: ApiRecord | null;
  /** The new game's id (`POST /api/games`). */
  id?: string;
}

/** A game kept by the caller. */
export interface ApiRecord {
  variant: string;
  start_fen: string;
  moves: string[];
  level: string;
  scored_level: string;
  human: 'white' | 'black';
}

/** What the server would answer, and the game to keep (null once deleted). */
export interface ApiAnswer {
  status: number;
  body: any;
  id: string;
  record: ApiRecord | null;
}

/** The module's URL, beside dama.mjs. */
export const wasmUrl: URL;
/** Whether this host has WebAssembly at all. */
export function supported(): boolean;
/** Compiles the module from bytes, a URL, or nothing (the module beside dama.mjs). */
export function compile(
  source?: URL | string | ArrayBuffer | ArrayBufferView | WebAssembly.Module,
): Promise<WebAssembly.Module>;

/** The engine in this thread: every method throws an Error saying what was wrong. */
export class Dama {
  constructor(module: WebAssembly.Module);
  static create(
    source?: URL | string | ArrayBuffer | ArrayBufferView | WebAssembly.Module,
  ): Promise<Dama>;
  call(request: { cmd: string; [field: string]: unknown }, onProgress?: ((info: Info) => void) | null): any;
  version(): VersionAnswer;
  moves(game?: Game): MovesAnswer;
  explain(game: Game, what: { square: number }): ExplainSquareAnswer;
  explain(game: Game, what: { move: string }): ExplainMoveAnswer;
  perft(game: Game, depth: number): number;
  bench(depth?: number): BenchAnswer;
  play(request: PlayRequest, onProgress?: (info: Info) => void): SearchAnswer;
  analyse(request: AnalyseRequest, onProgress?: (info: Info | TableInfo) => void): SearchAnswer;
  /** Builds the endgame classes the searches on the clock asked for; returns how many. */
  buildTables(): number;
  review(request: ReviewRequest, onItem?: (item: ReviewItem) => void): ReviewAnswer;
  api(request: ApiRequest): ApiAnswer;
  newGame(): Record<string, never>;
  options(options: { hash_mib?: number }): { hash_mib: number };
}
