import type { Box } from '../layout/page-content.ts';
import { multiply, type PageFrame } from './text-lines.ts';

/** The pdf.js operator codes the walk needs (pdf.js's OPS table). */
export interface PictureOperators {
  readonly save: number;
  readonly restore: number;
  readonly transform: number;
  readonly paintFormXObjectBegin: number;
  readonly paintFormXObjectEnd: number;
  readonly beginAnnotation: number;
  readonly endAnnotation: number;
  readonly paintImageXObject: number;
  readonly paintInlineImageXObject: number;
  readonly paintImageMaskXObject: number;
}

/** A page's operator list as pdf.js gives it (getOperatorList: unoptimised, no grouped ops). */
export interface OperatorList {
  readonly fnArray: readonly number[];
  readonly argsArray: readonly unknown[];
}

/** Pictures narrower or lower than this many PDF points are rules, bullets and specks. */
const minimumSide = 8;

/**
 * Where the page's images land, in pixels of a render with this frame: each image fills the unit
 * square of the current transformation matrix at the moment it is painted. Boxes are clamped to
 * the page; strips of one image (scanners often cut a page into bands) are merged back together.
 * Boxes come ordered by their top edge.
 */
export function placedPictures(operatorList: OperatorList, operators: PictureOperators, frame: PageFrame): Box[] {
  const identity = [1, 0, 0, 1, 0, 0];
  let matrix = identity;
  const saved: number[][] = [];
  const boxes: Box[] = [];
  const { fnArray, argsArray } = operatorList;
  for (let index = 0; index < fnArray.length; index += 1) {
    const operator = fnArray[index];
    const args = argsArray[index];
    if (operator === operators.save) {
      saved.push(matrix);
    } else if (operator === operators.restore) {
      matrix = saved.pop() ?? identity;
    } else if (operator === operators.transform) {
      if (isMatrix(args)) matrix = multiply(matrix, args);
    } else if (operator === operators.paintFormXObjectBegin) {
      // A form XObject runs in its own saved state with its /Matrix applied.
      saved.push(matrix);
      const formMatrix = Array.isArray(args) ? (args[0] as unknown) : undefined;
      if (isMatrix(formMatrix)) matrix = multiply(matrix, formMatrix);
    } else if (operator === operators.paintFormXObjectEnd) {
      matrix = saved.pop() ?? identity;
    } else if (operator === operators.beginAnnotation) {
      // An annotation's appearance starts from the page's base state, placed by its transform
      // (appearance box to annotation rectangle) and its own /Matrix, as pdf.js's canvas does.
      saved.length = 0;
      const [, , placement, appearanceMatrix] = Array.isArray(args) ? (args as unknown[]) : [];
      matrix = identity;
      if (isMatrix(placement)) matrix = multiply(matrix, placement);
      if (isMatrix(appearanceMatrix)) matrix = multiply(matrix, appearanceMatrix);
    } else if (operator === operators.endAnnotation) {
      saved.length = 0;
      matrix = identity;
    } else if (operator === operators.paintImageXObject || operator === operators.paintInlineImageXObject || operator === operators.paintImageMaskXObject) {
      const box = unitSquareBox(multiply(frame.transform, matrix), frame);
      if (box !== undefined) boxes.push(box);
    }
  }
  const minimum = minimumSide * frame.scale;
  return mergeStrips(boxes).filter((box) => box.x1 - box.x0 >= minimum && box.y1 - box.y0 >= minimum);
}

function isMatrix(value: unknown): value is number[] {
  return (
    (Array.isArray(value) || ArrayBuffer.isView(value)) &&
    (value as ArrayLike<unknown>).length === 6 &&
    Array.from(value as ArrayLike<unknown>).every((entry) => typeof entry === 'number' && Number.isFinite(entry))
  );
}

/** The unit square mapped by the matrix, as a page box; undefined when it is off the page. */
function unitSquareBox(matrix: readonly number[], frame: PageFrame): Box | undefined {
  const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = matrix;
  const xs = [e, a + e, c + e, a + c + e];
  const ys = [f, b + f, d + f, b + d + f];
  const box = {
    x0: Math.max(0, Math.min(...xs)),
    y0: Math.max(0, Math.min(...ys)),
    x1: Math.min(frame.width, Math.max(...xs)),
    y1: Math.min(frame.height, Math.max(...ys)),
  };
  return box.x1 > box.x0 && box.y1 > box.y0 ? box : undefined;
}

/** Boxes sharing their left and right edges and touching top to bottom (or the same sideways) become one. */
function mergeStrips(boxes: readonly Box[]): Box[] {
  const vertical = mergeAlong(boxes, (box) => [box.x0, box.x1, box.y0, box.y1]);
  return mergeAlong(vertical, (box) => [box.y0, box.y1, box.x0, box.x1]);
}

/**
 * One pass of strip merging: `sides` names a box as [edge, edge, start, end] where the two edges
 * must match (within a pixel) and the spans must touch or overlap.
 */
function mergeAlong(boxes: readonly Box[], sides: (box: Box) => readonly [number, number, number, number]): Box[] {
  const near = (left: number, right: number) => Math.abs(left - right) <= 1;
  const sorted = [...boxes].sort((left, right) => {
    const [a0, a1, aStart] = sides(left);
    const [b0, b1, bStart] = sides(right);
    // Rounded edges keep strips that differ by rounding noise next to each other.
    return Math.round(a0) - Math.round(b0) || Math.round(a1) - Math.round(b1) || aStart - bStart;
  });
  const merged: Box[] = [];
  for (const box of sorted) {
    const last = merged.at(-1);
    if (last !== undefined) {
      const [lastEdge0, lastEdge1, , lastEnd] = sides(last);
      const [edge0, edge1, start] = sides(box);
      if (near(lastEdge0, edge0) && near(lastEdge1, edge1) && start <= lastEnd + 1) {
        merged[merged.length - 1] = {
          x0: Math.min(last.x0, box.x0),
          y0: Math.min(last.y0, box.y0),
          x1: Math.max(last.x1, box.x1),
          y1: Math.max(last.y1, box.y1),
        };
        continue;
      }
    }
    merged.push(box);
  }
  return merged;
}
