import type { Page } from 'puppeteer-core';

/**
 * What a page at a narrow width pushes out of sight: the document wider than the window, and
 * every chart label drawn past its chart's edge or the window's. A table that scrolls in its own
 * box is not clipped, so only the document's width and the charts' texts are measured.
 */
export async function clippedAt(page: Page, width: number): Promise<{ documentWidth: number; labels: string[] }> {
  await page.setViewport({ width, height: 900 });
  const documentWidth = await page.evaluate(
    () =>
      (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement
        .scrollWidth,
  );
  const labels = await page.$$eval(
    'svg',
    (charts, windowWidth) =>
      charts.flatMap((chart) => {
        const box = chart.getBoundingClientRect();
        return [...chart.querySelectorAll('text')]
          .map((label) => ({ label, at: label.getBoundingClientRect() }))
          .filter(
            ({ at }) => at.width > 0 && (at.right > Math.min(box.right, windowWidth) + 0.5 || at.left < box.left - 0.5),
          )
          .map(
            ({ label, at }) =>
              `${chart.id || chart.getAttribute('class')}: "${label.textContent}" ends at ${Math.round(at.right)}`,
          );
      }),
    width,
  );
  return { documentWidth, labels };
}
