/**
 * The scoreboard as a hand-written SVG: jobs/s per case as bars with their min–max spread,
 * one panel for one-job-per-call cases and one for batches (their scales differ tenfold), and
 * a panel of the target ratios with the goal marked on each.
 */
import type { CaseResult } from './runner.js';
import type { Verdict } from './targets.js';

const WIDTH = 960;
const LABEL_WIDTH = 360;
const BAR_WIDTH = 470;
const ROW = 22;
const COLORS: Record<CaseResult['side'], string> = {
  ours: '#2b6cb0',
  raw: '#8a8f98',
  bullmq: '#dd6b20',
};

const xmlText = (text: string): string =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

function niceMax(value: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10])
    if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}

function panel(title: string, cases: readonly CaseResult[], top: number): [string, number] {
  const max = niceMax(Math.max(...cases.map((c) => c.jobsPerSecond.max)));
  const x = (value: number) => LABEL_WIDTH + (value / max) * BAR_WIDTH;
  const parts = [`<text x="10" y="${top + 16}" class="h">${xmlText(title)}</text>`];
  let y = top + 28;
  for (const c of cases) {
    const { median, min, max: high } = c.jobsPerSecond;
    const mid = y + ROW / 2;
    parts.push(
      `<text x="${LABEL_WIDTH - 8}" y="${mid + 4}" text-anchor="end">${xmlText(c.label)}</text>`,
      `<rect x="${LABEL_WIDTH}" y="${y + 3}" width="${(x(median) - LABEL_WIDTH).toFixed(1)}" height="${ROW - 6}" fill="${COLORS[c.side]}"/>`,
      `<line x1="${x(min).toFixed(1)}" x2="${x(high).toFixed(1)}" y1="${mid}" y2="${mid}" class="w"/>`,
      `<line x1="${x(min).toFixed(1)}" x2="${x(min).toFixed(1)}" y1="${mid - 4}" y2="${mid + 4}" class="w"/>`,
      `<line x1="${x(high).toFixed(1)}" x2="${x(high).toFixed(1)}" y1="${mid - 4}" y2="${mid + 4}" class="w"/>`,
      `<text x="${(x(high) + 6).toFixed(1)}" y="${mid + 4}">${Math.round(median).toLocaleString('en-US')}</text>`,
    );
    y += ROW;
  }
  parts.push(
    `<line x1="${LABEL_WIDTH}" x2="${LABEL_WIDTH}" y1="${top + 28}" y2="${y}" class="axis"/>`,
    `<text x="${LABEL_WIDTH + BAR_WIDTH}" y="${y + 14}" text-anchor="end" class="s">jobs/s, scale 0–${max.toLocaleString('en-US')}; whiskers: min–max of the rounds</text>`,
  );
  return [parts.join('\n'), y + 24];
}

function ratioPanel(verdicts: readonly Verdict[], top: number): [string, number] {
  const ratios = verdicts.filter((v) => v.shown.endsWith('×'));
  const max = niceMax(Math.max(...ratios.map((v) => v.value), 3.5));
  const x = (value: number) => LABEL_WIDTH + (value / max) * BAR_WIDTH;
  const parts = [
    `<text x="10" y="${top + 16}" class="h">Targets (ratios of medians, same run; gray: reported, no goal)</text>`,
  ];
  let y = top + 28;
  for (const v of ratios) {
    const mid = y + ROW / 2;
    const goal = Number(/[\d.]+/.exec(v.goal)?.[0] ?? 0);
    parts.push(
      `<text x="${LABEL_WIDTH - 8}" y="${mid + 4}" text-anchor="end">${xmlText(v.target)}</text>`,
      `<rect x="${LABEL_WIDTH}" y="${y + 3}" width="${(x(Math.min(v.value, max)) - LABEL_WIDTH).toFixed(1)}" height="${ROW - 6}" fill="${v.met === null ? '#a0aec0' : v.met ? '#2f855a' : '#c53030'}"/>`,
      v.met === null
        ? ''
        : `<line x1="${x(goal).toFixed(1)}" x2="${x(goal).toFixed(1)}" y1="${y}" y2="${y + ROW}" class="goal"/>`,
      `<text x="${(x(Math.min(v.value, max)) + 6).toFixed(1)}" y="${mid + 4}">${xmlText(v.shown)}${v.met === null ? ' (reported)' : ` (goal ${xmlText(v.goal)})`}</text>`,
    );
    y += ROW;
  }
  parts.push(
    `<line x1="${LABEL_WIDTH}" x2="${LABEL_WIDTH}" y1="${top + 28}" y2="${y}" class="axis"/>`,
  );
  return [parts.join('\n'), y + 16];
}

/** Splits text into lines of at most `width` characters, at spaces. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

export function chartSvg(
  cases: readonly CaseResult[],
  verdicts: readonly Verdict[],
  machine: string,
): string {
  const single = cases.filter((c) => c.jobsPerUnit === 1);
  const batched = cases.filter((c) => c.jobsPerUnit > 1);
  const [first, afterFirst] = panel('One job per call, sequential', single, 50);
  const [second, afterSecond] = panel('Batches', batched, afterFirst);
  const [third, afterThird] = ratioPanel(verdicts, afterSecond);
  const footer = wrap(machine, 150);
  const height = afterThird + 20 + footer.length * 14;
  const legend = [
    ['ours', 'echomq-lambda'],
    ['raw', 'raw iovalkey (no checks, no dedupe)'],
    ['bullmq', 'BullMQ'],
  ] as const;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, sans-serif" font-size="12" role="img" aria-labelledby="title">
<title id="title">echomq-lambda enqueue scoreboard: jobs per second per case, and the target ratios</title>
<style>text{fill:#1a202c}.h{font-weight:600;font-size:14px}.s{fill:#4a5568;font-size:11px}.w{stroke:#1a202c;stroke-width:1}.axis{stroke:#a0aec0}.goal{stroke:#1a202c;stroke-width:2;stroke-dasharray:3 2}</style>
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="10" y="22" class="h">echomq-lambda enqueue scoreboard (npm run bench)</text>
${legend.map(([side, name], i) => `<rect x="${10 + i * 250}" y="31" width="12" height="12" fill="${COLORS[side]}"/><text x="${26 + i * 250}" y="41" class="s">${xmlText(name)}</text>`).join('\n')}
${first}
${second}
${third}
${footer.map((line, i) => `<text x="10" y="${afterThird + 14 + i * 14}" class="s">${xmlText(line)}</text>`).join('\n')}
</svg>
`;
}
