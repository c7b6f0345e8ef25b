// The clocks page (body data-page "clocks", harness clocks --format html): every clock
// source's call cost and granularity, and their table.
// It draws with the common script's helpers (common.js, window.harnessPage), which runs first.
(function (H) {
  'use strict';

  var colour = H.colour, alpha = H.alpha, el = H.el, isNum = H.isNum, num = H.num, sig = H.sig,
    timeText = H.timeText, spanText = H.spanText, frequencyText = H.frequencyText, table = H.table, addChart = H.addChart, axis = H.axis;

  // ---- the clocks page -----------------------------------------------------------------------
  function clocksPage(main, data) {
    var clocks = data.clocks || [];
    var available = clocks.filter(function (c) { return c.available && c.call_cost; });
    var section = el('section', { id: 'clocks' });
    main.appendChild(section);
    section.appendChild(el('h2', { text: 'Every clock source: what a read costs, how finely it advances' }));
    var figure = el('div', { class: 'figure' });
    section.appendChild(figure);
    var left = el('div');
    figure.appendChild(left);
    var cost = available.map(function (c) { return c.call_cost.ns_per_call > 0 ? c.call_cost.ns_per_call : null; });
    var gran = available.map(function (c) {
      return c.granularity && isNum(c.granularity.seconds) && c.granularity.seconds > 0 ? c.granularity.seconds * 1e9 : null;
    });
    var chart = addChart(left, 'clocks', 'call cost and granularity of every clock source, ns, log scale', {
      type: 'bar',
      data: {
        labels: available.map(function (c) { return c.name; }),
        datasets: [
          { label: 'call cost (ns per read)', data: cost, backgroundColor: alpha(colour.prepared, 0.8), borderColor: colour.prepared, borderWidth: 1 },
          { label: 'granularity (ns, the smallest advance)', data: gran, backgroundColor: alpha(colour.baseline, 0.8), borderColor: colour.baseline, borderWidth: 1 }
        ]
      },
      options: {
        indexAxis: 'y',
        scales: {
          x: axis('ns (log scale)', { type: 'logarithmic', ticks: { maxRotation: 0 } }),
          y: axis('clock source', { ticks: { autoSkip: false } })
        },
        plugins: { legend: { position: 'bottom', labels: { boxWidth: 14 } } }
      }
    });
    chart.canvas.parentNode.style.height = Math.max(300, 90 + 34 * available.length) + 'px';
    chart.resize();
    var aside = el('aside');
    var def = data.default_clock || {};
    aside.appendChild(el('p', null, [el('strong', { text: 'Default sampling clock: ' }), def.name + ', because ' + def.reason]));
    var cal = data.tsc_calibration;
    aside.appendChild(el('p', null, [el('strong', { text: 'TSC calibration: ' }), cal
      ? num(cal.ticks_per_second / 1e6, 6) + ' MHz against ' + cal.reference + ', error within ' + num(cal.error_ppm, 2) +
        ' ppm, ' + cal.rounds + ' rounds in ' + spanText(cal.duration_seconds) + (cal.converged ? '' : ' (not converged)')
      : 'none (no usable TSC here)']));
    aside.appendChild(el('p', {
      class: 'caption',
      text: 'Call cost: a read\'s time over many start/stop pairs (second of two passes), timed against steady_clock. ' +
        'Granularity: the smallest amount the clock\'s value advances by. A clock without a bar advanced too rarely to see one.'
    }));
    figure.appendChild(aside);
    var unavailable = [];
    var rows = clocks.map(function (c) {
      if (!c.available) {
        unavailable.push(el('li', null, [el('code', { text: c.name }), ': ' + c.unavailable_reason]));
        return [c.name, c.kind, 'unavailable', '-', '-', '-', '-'];
      }
      return [
        c.name,
        c.kind,
        c.call_cost ? num(c.call_cost.ns_per_call, 1) : '-',
        c.granularity && isNum(c.granularity.seconds) ? timeText(c.granularity.seconds * 1e9) : 'none seen',
        c.measured_resolution && isNum(c.measured_resolution.seconds) ? timeText(c.measured_resolution.seconds * 1e9) : 'none seen',
        c.smallest_step && isNum(c.smallest_step.seconds) ? timeText(c.smallest_step.seconds * 1e9) : 'none seen',
        frequencyText(c.ticks_per_second)
      ];
    });
    section.appendChild(table(['source', 'kind', 'ns per read', 'granularity', 'measured resolution', 'smallest step', 'ticks/s'], rows, [0, 1]));
    if (unavailable.length) {
      section.appendChild(el('p', { text: 'Unavailable here:' }));
      section.appendChild(el('ul', null, unavailable));
    }
  }

  H.draw('clocks', clocksPage);
})(window.harnessPage);
