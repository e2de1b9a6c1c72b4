// The charts of the "aggregate a CSV" page: plain SVG, one chart per statistic of a column, each
// released figure as a dot within its interval. Quantiles and histograms put their levels or bins
// along the axis with one mark per group beside each other; the other statistics, the groups.
import { fmt } from './aggregate-format.js';

const COLOURS = ['#2563eb', '#c2410c', '#047857', '#7c3aed', '#b45309', '#0e7490', '#be185d', '#4d7c0f'];
const H = 220;
const PAD = { left: 78, right: 10, top: 12, bottom: 40 };
/** The horizontal room per mark: a chart of many bins is drawn wider and scaled down to fit. */
const PER_MARK = 26;

const escapeHtml = (text) => String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/** The charts of a release's long table, in its order. */
export function charts(table) {
  const byStatistic = Map.groupBy(table, (line) => (line.column === undefined ? line.statistic : `${line.statistic}(${line.column})`));
  return [...byStatistic].map(([name, lines]) => chart(name, lines));
}

/**
 * One statistic's chart: each interval a bar with caps (drawn at least 6 px tall, so that a narrow
 * one still shows) and its value a dot.
 */
function chart(name, lines) {
  const groups = [...new Set(lines.map((l) => l.group))];
  const levels = lines[0].at === undefined ? undefined : [...new Set(lines.map((l) => l.at))];
  const categories = levels ?? groups;
  const series = levels ? groups.length : 1;
  const W = Math.max(360, PAD.left + PAD.right + lines.length * PER_MARK + categories.length * 12);
  const low = Math.min(...lines.map((l) => l.low));
  const high = Math.max(...lines.map((l) => l.high));
  const margin = 0.1 * (high - low || Math.abs(high) || 1);
  const [lo, hi] = [low - margin, high + margin];
  const y = (v) => PAD.top + ((H - PAD.top - PAD.bottom) * (hi - v)) / (hi - lo);
  const slot = (W - PAD.left - PAD.right) / categories.length;
  const xOf = (l) => {
    const c = categories.indexOf(levels ? l.at : l.group);
    const s = levels ? groups.indexOf(l.group) : 0;
    return PAD.left + slot * (c + (s + 0.5) / series);
  };
  const marks = lines.map((l) => {
    const x = xOf(l);
    const colour = COLOURS[levels ? groups.indexOf(l.group) % COLOURS.length : 0];
    const [top, bottom] = [Math.min(y(l.high), y(l.value) - 3), Math.max(y(l.low), y(l.value) + 3)];
    const cap = (at) => `<line x1="${x - 5}" x2="${x + 5}" y1="${at}" y2="${at}" stroke="${colour}" stroke-width="2"/>`;
    return (
      `<g data-testid="interval"><title>${escapeHtml(l.group)}${l.at === undefined ? '' : ` ${escapeHtml(l.at)}`}: ${fmt(l.value)} [${fmt(l.low)}, ${fmt(l.high)}]</title>` +
      `<line x1="${x}" x2="${x}" y1="${top}" y2="${bottom}" stroke="${colour}" stroke-width="2"/>${cap(top)}${cap(bottom)}` +
      `<circle cx="${x}" cy="${y(l.value)}" r="2.5" fill="#1d2430"/></g>`
    );
  });
  const labels = categories.map(
    (c, i) => `<text x="${PAD.left + slot * (i + 0.5)}" y="${H - PAD.bottom + 18}" text-anchor="middle" font-size="12">${escapeHtml(c)}</text>`,
  );
  const axis = [low, (low + high) / 2, high].map((v) => `<text x="${PAD.left - 8}" y="${y(v) + 4}" text-anchor="end" font-size="11">${fmt(v)}</text>`);
  const legend = levels
    ? `<p class="legend">${groups.map((g, i) => `<span style="color:${COLOURS[i % COLOURS.length]}">■</span> ${escapeHtml(g)}`).join(' ')}</p>`
    : '';
  const figure = document.createElement('figure');
  figure.innerHTML =
    `<figcaption>${escapeHtml(name)}</figcaption>` +
    `<svg viewBox="0 0 ${W} ${H}" style="max-width:${W}px" role="img" aria-label="${escapeHtml(name)} per group with its interval">` +
    `<line x1="${PAD.left}" x2="${PAD.left}" y1="${PAD.top}" y2="${H - PAD.bottom}" stroke="#94a3b8"/>${axis.join('')}${labels.join('')}${marks.join('')}</svg>${legend}`;
  return figure;
}
