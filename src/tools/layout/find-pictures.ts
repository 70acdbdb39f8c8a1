import { boxArea, boxHeight, boxWidth, clampBox, fractionInside, intersectionArea, mergeOverlapping, scaleBox } from './box-geometry.ts';
import { graphicRegions, type GraphicRegion } from './graphic-regions.ts';
import type { Box, PageContent } from './page-content.ts';

/**
 * The picture regions of a page (page pixels): the known ones (a PDF's placed images) and, when
 * the page has a raster, the graphics found on it, overlapping regions merged. Left out: known
 * pictures under 0.1 % of the page (bullets, ornaments), found regions smaller than 2 % of the
 * page or thinner than 3 % of it (rules, underlines, stray glyphs), and backgrounds —
 * a picture under most of the page with text on it (a page photographed or digitised as one image, a page-wide backdrop),
 * regions that text lines cover for a quarter or more (shaded boxes), and found regions made of
 * thin rules with text inside (frames, ruled tables).
 */
export function findPictures(page: PageContent): Box[] {
  const pageArea = page.width * page.height;
  if (pageArea <= 0) return [];
  const lineBoxes = page.lines.filter((line) => line.text.trim() !== '').map((line) => line.box);
  const isBackground = (box: Box) => {
    const lines = lineBoxes.filter((line) => fractionInside(line, box) >= 0.5);
    if (lines.length > 0 && boxArea(box) > 0.8 * pageArea) return true;
    const covered = lines.reduce((sum, line) => sum + intersectionArea(line, box), 0);
    return covered >= 0.25 * boxArea(box);
  };
  const isLargeEnough = (box: Box) => boxArea(box) >= 0.02 * pageArea && boxWidth(box) >= 0.03 * page.width && boxHeight(box) >= 0.03 * page.height;
  const known = page.pictures.map((box) => clampBox(box, page.width, page.height)).filter((box) => boxArea(box) >= 0.001 * pageArea && !isBackground(box));
  // Thin rules around or between text lines are a frame or a ruled table, not a picture.
  const isRuling = (region: GraphicRegion) => region.ruleShare >= 0.85 && lineBoxes.some((line) => fractionInside(line, region.box) >= 0.5);
  const detected = detectedRegions(page, lineBoxes)
    .filter((region) => isLargeEnough(region.box) && !isRuling(region) && !isBackground(region.box))
    .map((region) => region.box);
  return mergeOverlapping([...known, ...detected]).filter((box) => !isBackground(box));
}

/** Graphic regions of the raster, in page pixels (the raster may be rendered at another scale). */
function detectedRegions(page: PageContent, lineBoxes: readonly Box[]): GraphicRegion[] {
  const raster = page.raster;
  if (raster === undefined) return [];
  const scaleX = raster.width / page.width;
  const scaleY = raster.height / page.height;
  const regions = graphicRegions(
    raster,
    lineBoxes.map((box) => scaleBox(box, scaleX, scaleY)),
  );
  return regions.map((region) => ({ ...region, box: clampBox(scaleBox(region.box, 1 / scaleX, 1 / scaleY), page.width, page.height) }));
}
