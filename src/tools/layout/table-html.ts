/** Text made safe inside HTML elements and attribute values. */
function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * A grid of cell texts as an HTML table. Every cell is a `<td>` (telling a header row from data by
 * position alone would be a guess); missing cells are empty `<td></td>` so columns stay aligned.
 */
export function tableHtml(rows: readonly (readonly string[])[]): string {
  const body = rows.map((cells) => `<tr>${cells.map((cell) => `<td>${escapeHtml(cell)}</td>`).join('')}</tr>`).join('');
  return `<table>${body}</table>`;
}
