/**
 * The allowed key a misspelled one most likely meant, for "did you mean" hints: the same letters in
 * another case or with `_`/`-` (`baseurl`, `upstream_model`), else the nearest by edit distance
 * within a couple of letters (`timeout` for `timeoutMs`, `modles` for `models`). Undefined when
 * nothing is that close: a wild guess misleads more than no hint.
 */
export function closestKey(key: string, allowed: readonly string[]): string | undefined {
  const wanted = normalized(key);
  const exact = allowed.find((candidate) => normalized(candidate) === wanted);
  if (exact !== undefined) return exact;
  const tolerance = wanted.length >= 6 ? 2 : 1;
  let best: string | undefined;
  let bestDistance = tolerance + 1;
  for (const candidate of allowed) {
    const distance = editDistance(wanted, normalized(candidate));
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function normalized(key: string): string {
  return key.toLowerCase().replace(/[-_\s]/g, '');
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours cost 1. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, row) =>
    Array.from({ length: b.length + 1 }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)),
  );
  const at = (row: number, column: number): number => rows[row]?.[column] ?? Number.POSITIVE_INFINITY;
  for (let row = 1; row <= a.length; row++) {
    for (let column = 1; column <= b.length; column++) {
      const substitution = a[row - 1] === b[column - 1] ? 0 : 1;
      let distance = Math.min(at(row - 1, column) + 1, at(row, column - 1) + 1, at(row - 1, column - 1) + substitution);
      if (row > 1 && column > 1 && a[row - 1] === b[column - 2] && a[row - 2] === b[column - 1]) {
        distance = Math.min(distance, at(row - 2, column - 2) + 1);
      }
      (rows[row] as number[])[column] = distance;
    }
  }
  return at(a.length, b.length);
}
