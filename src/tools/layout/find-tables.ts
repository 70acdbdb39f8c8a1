import { boxHeight, median, unionBox } from './box-geometry.ts';
import { joinLineTexts } from './join-line-texts.ts';
import type { Box, TextLine } from './page-content.ts';
import { tableHtml } from './table-html.ts';
import { groupRows, type TextRow } from './text-rows.ts';

/** A table rebuilt from aligned line boxes. */
export interface TableRegion {
  readonly box: Box;
  /** `<table><tr><td>…</td></tr>…</table>`, every cell a `<td>`, empty ones included. */
  readonly html: string;
  readonly lines: readonly TextLine[];
}

export interface TableSearch {
  /** Fragments of a row closer than this are one cell (a PDF's words and font runs). */
  readonly minCellGap: number;
}

interface Cell {
  readonly box: Box;
  readonly lines: readonly TextLine[];
  readonly text: string;
}

interface Interval {
  readonly x0: number;
  readonly x1: number;
}

/** Lines of list markers: bullets, "1.", "a)", "(iv)". */
const listMarker = /^(?:[•·▪◦‣○●■□\-–—*]|\(?(?:\d{1,3}|[a-z]|[ivxlc]{1,5})[.)])$/iu;

/**
 * Finds tables: runs of at least two consecutive rows, each of at least two cells (separate boxes
 * at the same height), whose cells fall into the same columns (x-ranges overlapping) from row to
 * row. Runs that look like running text in columns (every column of phrases) or like a list
 * (markers, then text) are left to the text analysis. Returns the tables and the lines
 * that belong to none.
 */
export function findTables(lines: readonly TextLine[], search: TableSearch): { tables: TableRegion[]; rest: TextLine[] } {
  const tables: TableRegion[] = [];
  let run: Cell[][] = [];
  let columns: Interval[] = [];
  let previous: Box | undefined;
  const finish = () => {
    const table = run.length >= 2 ? tableOf(run, columns) : undefined;
    if (table !== undefined) tables.push(table);
    run = [];
    columns = [];
  };
  for (const row of groupRows(lines)) {
    const cells = rowCells(row, search.minCellGap);
    if (cells.length < 2) {
      finish();
      previous = row.box;
      continue;
    }
    const near = previous !== undefined && row.box.y0 - previous.y1 <= 2.5 * Math.min(boxHeight(row.box), boxHeight(previous));
    const placement = run.length > 0 && near ? placeInColumns(columns, cells) : null;
    if (placement === null) {
      finish();
      columns = cells.map((cell) => ({ x0: cell.box.x0, x1: cell.box.x1 }));
    } else {
      columns = placement;
    }
    run.push(cells);
    previous = row.box;
  }
  finish();
  const inTables = new Set(tables.flatMap((table) => table.lines));
  return { tables, rest: lines.filter((line) => !inTables.has(line)) };
}

/** A row's boxes left to right, fragments closer than the cell gap joined into one cell. */
function rowCells(row: TextRow<TextLine>, minCellGap: number): Cell[] {
  const groups: TextLine[][] = [];
  for (const line of row.lines) {
    const group = groups.at(-1);
    const last = group?.at(-1);
    if (group !== undefined && last !== undefined && line.box.x0 - last.box.x1 < minCellGap) group.push(line);
    else groups.push([line]);
  }
  return groups.map((group) => ({
    box: unionBox(group.map((line) => line.box)),
    lines: group,
    text: joinLineTexts(group.map((line) => line.text)),
  }));
}

/**
 * The columns widened by the row's cells, or null when the row does not line up: a cell across
 * two columns, two cells in one column, or fewer than two cells in the existing columns.
 */
function placeInColumns(columns: readonly Interval[], cells: readonly Cell[]): Interval[] | null {
  const next = [...columns];
  const used = new Set<number>();
  const added: Interval[] = [];
  for (const cell of cells) {
    const hits = columns.flatMap((column, index) => (sharedWidth(column, cell.box) > 0 ? [index] : []));
    if (hits.length > 1) return null;
    const hit = hits[0];
    if (hit === undefined) {
      added.push({ x0: cell.box.x0, x1: cell.box.x1 });
      continue;
    }
    if (used.has(hit)) return null;
    used.add(hit);
    const column = next[hit] as Interval;
    next[hit] = { x0: Math.min(column.x0, cell.box.x0), x1: Math.max(column.x1, cell.box.x1) };
  }
  if (used.size < 2) return null;
  return [...next, ...added].sort((a, b) => a.x0 - b.x0);
}

function tableOf(rows: readonly Cell[][], columns: readonly Interval[]): TableRegion | undefined {
  const grid = rows.map((cells) => {
    const slots: Cell[][] = columns.map(() => []);
    for (const cell of cells) slots[bestColumn(columns, cell.box)]?.push(cell);
    return slots;
  });
  if (looksLikeColumnsOfText(grid) || looksLikeList(grid)) return undefined;
  const cells = rows.flat();
  return {
    box: unionBox(cells.map((cell) => cell.box)),
    html: tableHtml(grid.map((slots) => slots.map((slot) => joinLineTexts(slot.map((cell) => cell.text))))),
    lines: cells.flatMap((cell) => cell.lines),
  };
}

function bestColumn(columns: readonly Interval[], box: Box): number {
  let best = 0;
  let bestOverlap = -Infinity;
  columns.forEach((column, index) => {
    const overlap = sharedWidth(column, box);
    if (overlap > bestOverlap) {
      best = index;
      bestOverlap = overlap;
    }
  });
  return best;
}

/** Width of the shared horizontal range; negative for the gap between ranges apart. */
function sharedWidth(column: Interval, box: Box): number {
  return Math.min(column.x1, box.x1) - Math.max(column.x0, box.x0);
}

/**
 * Every column holding phrases of three words or more (two CJK characters count as a word): lines
 * of running text side by side, a multi-column page. Tables hold at least one column of short
 * entries (names, numbers, codes).
 */
function looksLikeColumnsOfText(grid: readonly Cell[][][]): boolean {
  const columnCount = grid[0]?.length ?? 0;
  for (let column = 0; column < columnCount; column++) {
    const cells = grid.flatMap((slots) => slots[column] ?? []);
    if (median(cells.map((cell) => wordCount(cell.text))) < 3) return false;
  }
  return columnCount > 0;
}

function wordCount(text: string): number {
  const unspaced = text.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu)?.length ?? 0;
  const spaced = text
    .replace(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu, ' ')
    .split(/\s+/)
    .filter((word) => /[\p{L}\p{N}]/u.test(word));
  return spaced.length + unspaced / 2;
}

/** Two columns whose first holds only list markers: a bulleted or numbered list. */
function looksLikeList(grid: readonly Cell[][][]): boolean {
  if (grid[0]?.length !== 2) return false;
  return grid.every((slots) => (slots[0] ?? []).every((cell) => listMarker.test(cell.text.trim())));
}
