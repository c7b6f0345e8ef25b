// The compare page (body data-page "compare", harness compare --format html): per workload
// the two sides' floors (or medians) with their intervals and the verdict.
// It draws with the common script's helpers (common.js, window.harnessPage), which runs first.
(function (H) {
  'use strict';

  var colour = H.colour, alpha = H.alpha, el = H.el, isNum = H.isNum, num = H.num, sig = H.sig,
    facts = H.facts, table = H.table, swatch = H.swatch, addChart = H.addChart, axis = H.axis;
  var figureText = H.ticksText;  // as the console's compare writes a figure (compare/figures.hpp)

  // ---- the compare page ----------------------------------------------------------------------
  function comparePage(main, data) {
    var intro = el('section', { id: 'run' });
    intro.appendChild(el('h2', { text: 'What is compared' }));
    var sources = function (side) {
      return (data[side] || []).map(function (r) { return r.source + (r.date ? ' (' + r.date + ')' : ''); }).join(', ');
    };
    var gate = data.gate || {};
    intro.appendChild(facts([
      ['A', sources('a')],
      ['B', sources('b')],
      ['unit', data.unit + (data.same_clock ? '' : ' (the reports used different clocks: converted with each one\'s rate)')],
      ['host check', data.host_speed_differs
        ? 'the sides ran the reference loop at different speeds (best ' + figureText(data.references.a) + ' against ' +
          figureText(data.references.b) + '): the host or its clock speed differed, the comparison is not to be trusted'
        : 'the sides ran the reference loop at the same speed'],
      ['gate', 'B slower by more than ' + sig(gate.threshold_percent, 6) + '% in: ' +
        (gate.slower && gate.slower.length ? gate.slower.join(', ') : 'no workload') +
        (gate.not_compared && gate.not_compared.length ? '; not compared: ' + gate.not_compared.join(', ') : '') +
        ' (exit code ' + gate.exit_code + ')']
    ]));
    intro.appendChild(el('p', {
      class: 'note',
      text: 'Each side\'s floor: the minimum of its prepared samples with its 95% interval for the floor, widened by one ' +
        'clock step each way; with several reports a side spans them all. B is faster or slower only when the two ' +
        'intervals are apart.'
    }));
    main.appendChild(intro);
    (data.workloads || []).forEach(function (w) {
      var section = el('section', { class: 'workload' });
      main.appendChild(section);
      section.appendChild(el('h2', { text: w.name }));
      section.appendChild(el('p', { class: 'sentence', text: 'Verdict: ' + w.verdict + ': ' + w.reason }));
      var figure = el('div', { class: 'figure' });
      section.appendChild(figure);
      // Without a confirmed floor on a side the medians decided (decided_by median_shift): each
      // side's median of all its samples with its interval is drawn then, not an empty floor.
      var byMedians = w.decided_by === 'median_shift';
      var left = el('div');
      left.appendChild(el('h3', { text: byMedians ? 'The two medians with their intervals (no confirmed floor)' : 'The two floors with their intervals' }));
      figure.appendChild(left);
      var sides = [['A', w.a, colour.baseline], ['B', w.b, colour.prepared]];
      var bars = sides.map(function (s) {
        var i = byMedians ? s[1].median_interval : s[1].floor;
        return i ? [i.lower, i.upper] : null;
      });
      var mins = sides.map(function (s) {
        var v = byMedians ? s[1].median : s[1].min;
        return isNum(v) ? v : null;
      });
      addChart(left, byMedians ? 'medians' : 'floors', w.name + (byMedians ? ': the medians of A and B with their intervals' : ': the floors of A and B with their intervals'), {
        type: 'bar',
        data: {
          labels: ['A', 'B'],
          datasets: [
            {
              type: 'bar',
              label: byMedians ? 'median interval (95%, order statistics)' : 'floor interval (95%, widened by one step)',
              data: bars,
              backgroundColor: [alpha(colour.baseline, 0.45), alpha(colour.prepared, 0.45)],
              borderColor: [colour.baseline, colour.prepared],
              borderWidth: 2,
              borderSkipped: false,
              barPercentage: 0.5,
              order: 2
            },
            {
              type: 'line',
              label: byMedians ? 'median of all the side\'s samples' : 'min (the median of the side\'s reports\' minimums)',
              data: mins,
              showLine: false,
              pointStyle: 'rectRot',
              pointRadius: 7,
              backgroundColor: colour.ink,
              borderColor: colour.ink,
              order: 1
            }
          ]
        },
        options: {
          indexAxis: 'y',
          scales: {
            x: axis('time per call (' + data.unit + ')', { beginAtZero: false }),
            y: axis('side')
          },
          plugins: { legend: { position: 'bottom', labels: { boxWidth: 14 } } }
        }
      });
      var aside = el('aside');
      sides.forEach(function (s) {
        var side = s[1];
        var figures = byMedians
          ? 'median ' + figureText(side.median) + (side.median_interval ? ' [' + figureText(side.median_interval.lower) + ', ' +
            figureText(side.median_interval.upper) + ']' : '') + ' over ' + side.samples + ' samples; ' +
            side.unconfirmed + ' report(s) without a confirmed floor'
          : 'min ' + figureText(side.min) + (side.floor ? ', floor ' + figureText(side.floor.lower) + ' to ' + figureText(side.floor.upper) : ', no interval') +
            ', ' + side.reports + ' report(s), fewest samples ' + side.fewest_samples +
            (side.notes && side.notes.length ? '; ' + side.notes.join('; ') : '');
        aside.appendChild(el('p', null, [swatch(s[2]), el('strong', { text: s[0] + ': ' }), figures]));
      });
      aside.appendChild(el('p', null, [el('strong', { text: 'B / A: ' }), isNum(w.ratio) ? num(w.ratio, 4) +
        (byMedians && w.shift ? ' [' + num(w.shift.lower, 4) + ', ' + num(w.shift.upper, 4) + '] by the median shift (' + w.shift.method + ')' : '')
        : 'undefined']));
      figure.appendChild(aside);
    });
    var others = [];
    (data.not_compared || []).forEach(function (w) { others.push([w.name, 'not compared: ' + w.reason]); });
    (data.only_in_a || []).forEach(function (n) { others.push([n, 'only in A']); });
    (data.only_in_b || []).forEach(function (n) { others.push([n, 'only in B']); });
    if (others.length) {
      var s = el('section');
      s.appendChild(el('h2', { text: 'Not compared' }));
      s.appendChild(table(['workload', 'why'], others, [0, 1]));
      main.appendChild(s);
    }
  }

  H.draw('compare', comparePage);
})(window.harnessPage);
