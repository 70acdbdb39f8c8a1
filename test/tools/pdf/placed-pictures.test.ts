import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { placedPictures } from '../../../src/tools/pdf/placed-pictures.ts';
import { loadPdfJs, type PdfJs } from '../../../src/tools/pdf/pdfjs-document.ts';
import type { PageFrame } from '../../../src/tools/pdf/text-lines.ts';

let OPS: PdfJs['OPS'];
before(async () => {
  ({ OPS } = await loadPdfJs());
});

/** A 400 × 300 point page at scale 1: PDF y up becomes pixel y down. */
const frame: PageFrame = { transform: [1, 0, 0, -1, 0, 300], scale: 1, width: 400, height: 300 };

/** An operator list from [operator, args] pairs, as pdf.js's getOperatorList gives them. */
function operatorList(...operations: readonly (readonly [number, unknown])[]) {
  return { fnArray: operations.map(([operator]) => operator), argsArray: operations.map(([, args]) => args) };
}

describe('placed pictures from the operator list', () => {
  it('follows save, transform and restore to the matrix the image is painted with', () => {
    const list = operatorList(
      [OPS.save, null],
      [OPS.transform, [2, 0, 0, 2, 0, 0]],
      [OPS.save, null],
      [OPS.transform, [50, 0, 0, 25, 10, 20]],
      [OPS.paintImageXObject, ['img_1', 10, 10]],
      [OPS.restore, null],
      [OPS.restore, null],
      // Back to the page's own matrix: 30 × 30 points at (300, 250) from the bottom left.
      [OPS.save, null],
      [OPS.transform, [30, 0, 0, 30, 300, 250]],
      [OPS.paintInlineImageXObject, [{}]],
      [OPS.restore, null],
    );
    // Ordered by their top edge.
    assert.deepEqual(placedPictures(list, OPS, frame), [
      { x0: 300, y0: 20, x1: 330, y1: 50 },
      { x0: 20, y0: 210, x1: 120, y1: 260 },
    ]);
  });

  it('applies a form XObject’s matrix inside it and drops it after', () => {
    const list = operatorList(
      [
        OPS.paintFormXObjectBegin,
        [
          [1, 0, 0, 1, 100, 100],
          [0, 0, 50, 50],
        ],
      ],
      [OPS.save, null],
      [OPS.transform, [40, 0, 0, 40, 0, 0]],
      [OPS.paintImageMaskXObject, [{}]],
      [OPS.restore, null],
      [OPS.paintFormXObjectEnd, null],
      [OPS.transform, [40, 0, 0, 40, 0, 0]],
      [OPS.paintImageXObject, ['img_2', 4, 4]],
    );
    assert.deepEqual(placedPictures(list, OPS, frame), [
      { x0: 100, y0: 160, x1: 140, y1: 200 },
      { x0: 0, y0: 260, x1: 40, y1: 300 },
    ]);
  });

  it('places an annotation’s images from the page’s base state', () => {
    const list = operatorList(
      [OPS.transform, [3, 0, 0, 3, 0, 0]],
      [OPS.beginAnnotation, ['annotation_1', [200, 0, 260, 60], [1, 0, 0, 1, 200, 0], [1, 0, 0, 1, 0, 0], false]],
      [OPS.transform, [60, 0, 0, 60, 0, 0]],
      [OPS.paintImageXObject, ['img_3', 8, 8]],
      [OPS.endAnnotation, null],
    );
    assert.deepEqual(placedPictures(list, OPS, frame), [{ x0: 200, y0: 240, x1: 260, y1: 300 }]);
  });

  it('joins the bands of one scanned image, skips specks and what lies off the page', () => {
    const band = (bottom: number) =>
      [
        [OPS.save, null],
        [OPS.transform, [400, 0, 0, 100, 0, bottom]],
        [OPS.paintImageXObject, ['band', 400, 100]],
        [OPS.restore, null],
      ] as const;
    const list = operatorList(
      ...band(200),
      ...band(100),
      ...band(0),
      [OPS.save, null],
      [OPS.transform, [5, 0, 0, 5, 10, 10]],
      [OPS.paintImageXObject, ['speck', 5, 5]],
      [OPS.restore, null],
      [OPS.transform, [50, 0, 0, 50, 500, 500]],
      [OPS.paintImageXObject, ['away', 5, 5]],
    );
    assert.deepEqual(placedPictures(list, OPS, frame), [{ x0: 0, y0: 0, x1: 400, y1: 300 }]);
  });
});
