/** Where progress goes: stderr, or a test's collector. */
export interface ProgressOutput {
  write(text: string): unknown;
  /** A terminal redraws one line in place; anything else gets whole lines, fewer of them. */
  readonly isTTY?: boolean;
}

export interface ProgressCounts {
  readonly indexed: number;
  readonly skipped: number;
  readonly failed: number;
}

const barWidth = 30;
/** A terminal is redrawn at most this often; a log gets a line per percent at most. */
const redrawIntervalMs = 100;

/**
 * A self-drawn progress bar: on a terminal, `[#####.....] 12/40 30% indexed 10 skipped 1 failed 1`
 * redrawn in place; on a pipe or a log file, the same text as a line each time the percentage
 * moves, so a long run prints at most about a hundred lines. Notes (per-item errors) are printed
 * above the bar.
 */
export class ProgressBar {
  readonly #output: ProgressOutput;
  readonly #total: number;
  readonly #now: () => number;
  #lastDraw = Number.NEGATIVE_INFINITY;
  #lastPercent = -1;
  #drawn = false;
  #line = '';

  constructor(output: ProgressOutput, total: number, now: () => number = Date.now) {
    this.#output = output;
    this.#total = total;
    this.#now = now;
  }

  update(done: number, counts: ProgressCounts): void {
    const percent = this.#total === 0 ? 100 : Math.floor((done / this.#total) * 100);
    this.#line = formatLine(done, this.#total, percent, counts);
    const finished = done >= this.#total;
    if (this.#output.isTTY === true) {
      if (!finished && this.#now() - this.#lastDraw < redrawIntervalMs) return;
      this.#lastDraw = this.#now();
      this.#output.write(`\r\x1b[2K${this.#line}`);
      this.#drawn = true;
      return;
    }
    if (percent === this.#lastPercent && !finished) return;
    this.#lastPercent = percent;
    this.#output.write(`${this.#line}\n`);
  }

  /** A line above the bar (the bar is drawn again after it on a terminal). */
  note(text: string): void {
    if (this.#output.isTTY === true && this.#drawn) {
      this.#output.write(`\r\x1b[2K${text}\n${this.#line}`);
      return;
    }
    this.#output.write(`${text}\n`);
  }

  /** Ends the bar's line on a terminal. */
  finish(): void {
    if (this.#output.isTTY === true && this.#drawn) this.#output.write('\n');
    this.#drawn = false;
  }
}

function formatLine(done: number, total: number, percent: number, counts: ProgressCounts): string {
  const filled = Math.round((Math.min(percent, 100) / 100) * barWidth);
  const bar = `${'#'.repeat(filled)}${'.'.repeat(barWidth - filled)}`;
  return `[${bar}] ${done}/${total} ${percent}% indexed ${counts.indexed} skipped ${counts.skipped} failed ${counts.failed}`;
}
