import type { TextOutput } from './io.js';
import type { TextStyle } from './terminal-style.js';

/** What a run is doing, as a {@link Spinner} shows it. */
export interface RunActivity {
  /** The agent at work. */
  agent: string;
  /** The model it is waiting for. */
  model?: string;
  /** The tool it is running. */
  tool?: string;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const FRAME_MS = 100;
/** Erases the line the cursor is on and returns to its start. */
const CLEAR_LINE = '\r\u001b[K';

/**
 * A one-line progress indicator on a terminal (stderr): a spinning frame, the agent at work, the
 * model or tool it waits for, and the time since the turn started. It is drawn only while the
 * transcript is at the start of a line ({@link hold} while text is mid-line), and erased before
 * anything else prints ({@link clear}), so it never mixes with the transcript.
 */
export class Spinner {
  private timer: ReturnType<typeof setInterval> | undefined;
  private drawn = false;
  private held = false;
  private frame = 0;
  private startedAt = 0;
  private activity: RunActivity | undefined;

  constructor(
    private readonly out: TextOutput,
    private readonly style: TextStyle,
    private readonly now: () => number = Date.now,
  ) {}

  /** Starts spinning for a new turn. */
  start(): void {
    this.stop();
    this.startedAt = this.now();
    this.activity = undefined;
    this.held = false;
    this.timer = setInterval(() => this.draw(), FRAME_MS);
    // A spinner never keeps the process alive.
    this.timer.unref();
    this.draw();
  }

  /** Shows what the run does now. */
  update(activity: RunActivity): void {
    this.activity = activity;
  }

  /** Erases the spinner so other text can print; it comes back on the next frame unless held. */
  clear(): void {
    if (!this.drawn) return;
    this.out.write(CLEAR_LINE);
    this.drawn = false;
  }

  /** `true` keeps the spinner off (text is mid-line), `false` lets it draw again. */
  hold(held: boolean): void {
    this.held = held;
    if (held) this.clear();
  }

  /** Stops and erases the spinner (the end of a turn). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.clear();
  }

  private draw(): void {
    if (this.held || !this.timer) return;
    const seconds = ((this.now() - this.startedAt) / 1000).toFixed(1);
    const { agent, model, tool } = this.activity ?? { agent: 'starting' };
    const doing = tool !== undefined ? ` → ${tool}` : model !== undefined ? ` · ${model}` : '';
    const frame = FRAMES[this.frame++ % FRAMES.length]!;
    this.out.write(`${CLEAR_LINE}${this.style.paint('muted', `${frame} ${agent}${doing} ${seconds}s`)}`);
    this.drawn = true;
  }
}
