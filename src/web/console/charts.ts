/** Charts drawn as SVG with the same figures in a table for people who would rather read. */
import { h, svg } from './dom.js';

/**
 * A bar chart: one group per label, one bar per series, drawn to scale with the counts written
 * above the bars; the figure's table says the same for people who would rather read.
 */
export function barChart(
  id: string,
  title: string,
  labels: string[],
  series: { name: string; className: string; values: number[] }[],
  /** Writes 0 above empty bars too: for a few bars, where "none" is the news. */
  showZeros = false,
): HTMLElement {
  const width = 640;
  const height = 220;
  const top = 20;
  const bottom = 36;
  const max = Math.max(1, ...series.flatMap((one) => one.values));
  const groupWidth = width / labels.length;
  const barWidth = Math.max(4, (groupWidth - 8) / series.length);
  const bars = labels.flatMap((label, index) =>
    series.map((one, s) => {
      const value = one.values[index]!;
      const barHeight = ((height - top - bottom) * value) / max;
      const x = index * groupWidth + 4 + s * barWidth;
      const y = height - bottom - barHeight;
      return svg(
        'g',
        {},
        svg(
          'rect',
          { x, y, width: barWidth - 2, height: barHeight, class: one.className },
          svg('title', {}, `${label}, ${one.name}: ${value}`),
        ),
        value > 0 || showZeros
          ? svg('text', { x: x + (barWidth - 2) / 2, y: y - 4, 'text-anchor': 'middle', class: 'chart-value' }, String(value))
          : '',
      );
    }),
  );
  const axis = labels.map((label, index) =>
    svg('text', { x: index * groupWidth + groupWidth / 2, y: height - bottom + 16, 'text-anchor': 'middle', class: 'chart-label' }, label),
  );
  return h(
    'figure',
    { class: 'chart', id },
    svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': title }, ...bars, ...axis) as unknown as HTMLElement,
    h('figcaption', {}, title, ' ', ...series.map((one) => h('span', { class: `key ${one.className}` }, one.name))),
    h(
      'table',
      { class: 'visually-hidden' },
      h('caption', {}, title),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, ''), ...series.map((one) => h('th', { scope: 'col' }, one.name)))),
      h(
        'tbody',
        {},
        ...labels.map((label, index) =>
          h('tr', {}, h('th', { scope: 'row' }, label), ...series.map((one) => h('td', {}, String(one.values[index])))),
        ),
      ),
    ),
  );
}

/**
 * A funnel: one horizontal bar per stage, drawn to scale against the first, each labelled with
 * its count and its share of the first stage; the figure's table says the same.
 */
export function funnelChart(id: string, title: string, stages: { name: string; value: number }[]): HTMLElement {
  const width = 640;
  const row = 34;
  const labelWidth = 150;
  const height = stages.length * row + 8;
  const first = stages[0]?.value ?? 0;
  const share = (value: number) => (first === 0 ? '—' : `${Math.round((value / first) * 100)} %`);
  const barSpace = width - labelWidth - 110;
  const bars = stages.map((stage, index) => {
    const barWidth = first === 0 ? 0 : (barSpace * stage.value) / first;
    const y = 4 + index * row;
    return svg(
      'g',
      {},
      svg('text', { x: labelWidth - 8, y: y + row / 2 + 4, 'text-anchor': 'end', class: 'chart-label' }, stage.name),
      svg(
        'rect',
        { x: labelWidth, y: y + 4, width: barWidth, height: row - 10, class: 'series-funnel' },
        svg('title', {}, `${stage.name}: ${stage.value}`),
      ),
      svg('text', { x: labelWidth + barWidth + 6, y: y + row / 2 + 4, class: 'chart-value' }, `${stage.value} · ${share(stage.value)}`),
    );
  });
  return h(
    'figure',
    { class: 'chart', id },
    svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': title }, ...bars) as unknown as HTMLElement,
    h('figcaption', {}, title),
    h(
      'table',
      { class: 'visually-hidden' },
      h('caption', {}, title),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Stage'),
          h('th', { scope: 'col' }, 'Sessions'),
          h('th', { scope: 'col' }, 'Share of created'),
        ),
      ),
      h(
        'tbody',
        {},
        ...stages.map((stage) =>
          h('tr', {}, h('th', { scope: 'row' }, stage.name), h('td', {}, String(stage.value)), h('td', {}, share(stage.value))),
        ),
      ),
    ),
  );
}
