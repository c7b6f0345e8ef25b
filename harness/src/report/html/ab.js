// The ab page (body data-page "ab", harness ab): the answer, B/A round by round, the round
// ratios' histogram (counted in C++, report/ab_html.cpp) and the comparison's facts; for gbench
// --vs, the answer and both figures per benchmark, then the facts.
// It draws with the common script's helpers (common.js, window.harnessPage), which runs first.
(function (H) {
  'use strict';

  var dark = H.dark, colour = H.colour, alpha = H.alpha, el = H.el, isNum = H.isNum, num = H.num,
    fixedText = H.fixedText, percentText = H.percentText, frequencyText = H.frequencyText,
    spanText = H.spanText, sig = H.sig, timeText = H.timeText, ticksTime = H.ticksTime, facts = H.facts,
    table = H.table, swatch = H.swatch, addChart = H.addChart, axis = H.axis, orderAxis = H.orderAxis,
    crosses = H.crosses, triangles = H.triangles, drawnCaption = H.drawnCaption;

  // ---- the ab page ---------------------------------------------------------------------------
  // One colour per pair of processes: Okabe and Ito's, the disturbed vermillion left out.
  var pairColours = [colour.prepared, colour.baseline, colour.second, '#CC79A7', dark ? '#0072B2' : '#56B4E9', colour.ink];
  function pairColour(k) {
    return pairColours[k % pairColours.length];
  }
  var answerBand = dark ? 'rgba(0,158,115,0.30)' : 'rgba(0,158,115,0.18)';

  // The answer on the histogram: its interval shaded behind the bars and its median as a line
  // over them, placed between the bins' centres (the bars are categories; this maps a ratio onto
  // them: bin b, 0-based inside the edge bars, is category b + first, centred on low + (b + 0.5)
  // width).
  function answerOnBins(chart, draw) {
    var o = chart.options.plugins.harnessAnswer;
    if (!o || !o.answer) return;
    var x = chart.scales.x;
    var area = chart.chartArea;
    var pitch = x.getPixelForValue(1) - x.getPixelForValue(0);
    var ctx = chart.ctx;
    ctx.save();
    ctx.beginPath();
    ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
    ctx.clip();
    draw(ctx, area, o.answer, function (v) {
      return x.getPixelForValue(0) + ((v - o.low) / o.width - 0.5 + o.first) * pitch;
    });
    ctx.restore();
  }
  var answerMarks = {
    id: 'harnessAnswer',
    beforeDatasetsDraw: function (chart) {
      answerOnBins(chart, function (ctx, area, answer, at) {
        var left = at(answer.lower);
        ctx.fillStyle = answerBand;
        ctx.fillRect(left, area.top, Math.max(1, at(answer.upper) - left), area.bottom - area.top);
      });
    },
    afterDatasetsDraw: function (chart) {
      answerOnBins(chart, function (ctx, area, answer, at) {
        ctx.strokeStyle = colour.ink;
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.moveTo(at(answer.ratio), area.top);
        ctx.lineTo(at(answer.ratio), area.bottom);
        ctx.stroke();
      });
    }
  };

  // A ratio with a fixed number of decimals (5, as the console's floors B/A), so that 1.01 and
  // 1.01003 read as 1.01000 and 1.01003; rounded as the console rounds it (fixedText).
  function ratioText(v, decimals) {
    return isNum(v) ? fixedText(v, decimals === undefined ? 5 : decimals) : '-';
  }

  function sideText(side, mode) {
    if (!side) return null;
    return side.workload + (mode === 'builds' ? ' of ' + side.build : '') +
      (side.iterations_per_call ? ', ' + num(side.iterations_per_call, 0) + ' iterations a call' : '');
  }

  // One comparison's figures (view): its series and histogram as page data made them, its answer
  // (an interval, or null) and its pairs from the report; with gbench, one benchmark's.
  function comparisonView(made, answer, pairs, data) {
    return { series: made.series, histogram: made.histogram, answerText: made.answer, answer: answer, pairs: pairs,
      maxDrawn: data.max_drawn, gbench: data.report.ab.mode === 'gbench' };
  }

  // The ratio of every round in the order taken, one dataset per pair, the answer's interval as a
  // band and its median as a line; rounds beyond the histogram's scale drawn on the edges.
  function roundsFigure(main, view) {
    var hist = view.histogram;
    var answer = view.answer;
    // Room above and below the scale for the rounds beyond it, drawn in the middle of that room.
    var margin = 0.08 * (hist.top - hist.low);
    var yMin = hist.low - margin;
    var yMax = hist.top + margin;
    var edgeLow = hist.low - margin / 2;
    var edgeHigh = hist.top + margin / 2;
    var several = view.series.length > 1;
    var datasets = [];
    var disturbed = [];
    var above = [];
    var below = [];
    var pairMedians = [];
    var offset = 0;
    var drawn = 0;
    var total = 0;
    var beyond = 0;
    view.series.forEach(function (s, k) {
      var pts = [];
      for (var n = 0; n < s.i.length; n++) {
        // Beyond the scale: on its edge, keeping the true value for the tooltip; a disturbed
        // round stays a cross there.
        var out = s.r[n] > hist.top ? edgeHigh : s.r[n] < hist.low ? edgeLow : null;
        var pt = { x: offset + s.i[n], y: out === null ? s.r[n] : out, value: s.r[n], pair: k + 1, round: s.i[n] };
        if (s.d[n]) disturbed.push(pt);
        else if (out === null) pts.push(pt);
        else (out === edgeHigh ? above : below).push(pt);
        if (out !== null) beyond++;
      }
      drawn += s.i.length;
      total += s.with_ratio;
      datasets.push({
        type: 'scatter',
        label: several ? 'pair ' + (k + 1) + ' rounds' : 'round ratios',
        data: pts,
        backgroundColor: alpha(pairColour(k), 0.75),
        borderColor: pairColour(k),
        pointRadius: s.i.length > 1500 ? 1.5 : 2.5,
        pointHoverRadius: 4,
        order: 2
      });
      var est = view.pairs[k].estimate.rounds;
      if (several && est) {
        pairMedians.push({ x: offset + 0.5, y: est.ratio }, { x: offset + s.rounds + 0.5, y: est.ratio }, { x: offset + s.rounds + 0.5, y: null });
      }
      offset += s.rounds;
    });
    var end = Math.max(1.5, offset + 0.5);
    if (answer) {
      datasets.push({
        type: 'line',
        label: '95% interval of the answer',
        data: [{ x: 0.5, y: answer.upper }, { x: end, y: answer.upper }],
        fill: { value: answer.lower },
        backgroundColor: answerBand,
        borderWidth: 0,
        pointRadius: 0,
        order: 4
      });
      datasets.push({
        type: 'line',
        label: several ? 'the answer (over the pairs)' : 'median of the round ratios (the answer)',
        data: [{ x: 0.5, y: answer.ratio }, { x: end, y: answer.ratio }],
        borderColor: colour.ink,
        borderWidth: 2,
        pointRadius: 0,
        fill: false,
        order: 1
      });
    }
    if (pairMedians.length) {
      datasets.push({
        type: 'line',
        label: 'each pair\'s median',
        data: pairMedians,
        borderColor: colour.ink,
        borderDash: [6, 4],
        borderWidth: 1.5,
        pointRadius: 0,
        spanGaps: false,
        fill: false,
        order: 1
      });
    }
    if (disturbed.length) datasets.push(crosses('disturbed rounds (host slow-down or context switch)', disturbed));
    if (above.length) datasets.push(triangles('above the scale, drawn at the top', above, 0));
    if (below.length) datasets.push(triangles('below the scale, drawn at the bottom', below, 180));
    var figure = el('div', { class: 'figure' });
    main.appendChild(figure);
    var left = el('div');
    left.appendChild(el('h3', { text: 'B/A round by round' }));
    figure.appendChild(left);
    addChart(left, 'ab-rounds', 'the ratio of B\'s round minimum to A\'s, per round in the order taken', {
      type: 'scatter',
      data: { datasets: datasets },
      options: {
        parsing: false,
        normalized: true,
        scales: {
          x: orderAxis('round, in the order taken' + (several ? ' (pair 1, then pair 2, ...)' : ''), offset),
          y: axis('B/A of the round', { min: yMin, max: yMax })
        },
        plugins: {
          legend: { position: 'bottom', labels: { boxWidth: 14 } },
          tooltip: {
            callbacks: {
              label: function (item) {
                var raw = item.raw;
                if (raw.round === undefined) return item.dataset.label + ': ' + ratioText(raw.y);
                return (several ? 'pair ' + raw.pair + ', ' : '') + 'round ' + raw.round + ': B/A ' + ratioText(raw.value);
              }
            }
          }
        }
      }
    });
    var aside = el('aside');
    view.series.forEach(function (s, k) {
      var p = view.pairs[k];
      aside.appendChild(el('p', null, [swatch(pairColour(k)), el('strong', { text: (several ? 'pair ' + (k + 1) : 'rounds') + ': ' }),
        num(s.rounds, 0) + ' rounds' + (view.gbench ? '' : ', ' + num(p.estimate.disturbed_rounds, 0) + ' disturbed') +
        (s.change ? '; B against A ' + s.change : '') +
        (p.estimate.disturbed_rounds > 0 ? '; without the disturbed ' + (s.undisturbed || 'too few left for an interval') : '')]));
      if (s.with_ratio < s.rounds) {
        aside.appendChild(el('p', { class: 'caption warning', text: num(s.rounds - s.with_ratio, 0) +
          ' round(s) gave no ratio (A\'s round minimum not above 0: the workload no longer than the timer overhead).' }));
      }
    });
    aside.appendChild(el('p', {
      class: 'caption',
      text: 'Each point: one round\'s B/A, ' + (view.gbench
        ? 'the lowest real_time per iteration of B\'s repetitions in the round over A\'s (an invocation of each binary). '
        : 'the lowest time per call of B\'s samples in the round over A\'s. ') +
        (answer ? 'Shaded: the answer\'s 95% interval; solid line: the answer. ' : '') +
        (view.gbench ? '' : 'Crosses: rounds with a disturbed sample. ') + 'The vertical scale is the histogram\'s (' + ratioText(hist.low) + ' to ' +
        ratioText(hist.top) + ')' + (beyond
        ? '; ' + num(beyond, 0) + ' drawn round(s) lie beyond it, drawn just outside it (triangles, or crosses when disturbed): ' +
          'the lowest ratio is ' + ratioText(hist.lowest) + ', the highest ' + ratioText(hist.highest) + '.'
        : '.')
    }));
    aside.appendChild(drawnCaption(drawn, total, view.maxDrawn, 'rounds', 'pair', 'highest ratio',
      'The figures and the histogram use every round.'));
    figure.appendChild(aside);
  }

  // The ratios' histogram as page data counted it (ab_html.cpp): undisturbed rounds per pair and
  // the disturbed ones stacked on them; an edge bar on each side when rounds lie beyond the scale.
  function ratioHistogramFigure(main, view) {
    var hist = view.histogram;
    var several = view.series.length > 1;
    var bars = hist.bins + 2;
    var any = function (index) {
      return hist.disturbed[index] > 0 || hist.counts.some(function (c) { return c[index] > 0; });
    };
    var first = any(0) ? 0 : 1;
    var last = any(bars - 1) ? bars - 1 : bars - 2;
    // Bin centres with the decimals that tell neighbouring bins apart.
    var decimals = Math.min(8, Math.max(2, Math.ceil(-Math.log10(hist.width))));
    var labels = [];
    for (var b = first; b <= last; b++) {
      if (b === 0) labels.push('< ' + ratioText(hist.low, decimals));
      else if (b === bars - 1) labels.push('> ' + ratioText(hist.top, decimals));
      else labels.push(ratioText(hist.low + hist.width * (b - 0.5), decimals));
    }
    var datasets = [];
    var sum = function (counts) {
      return counts.reduce(function (t, c) { return t + c; }, 0);
    };
    // The edge bars, pale: their labels may be skipped when the axis is crowded.
    var fills = function (c) {
      var out = [];
      for (var b = first; b <= last; b++) out.push(alpha(c, b === 0 || b === bars - 1 ? 0.3 : 0.7));
      return out;
    };
    hist.counts.forEach(function (c, k) {
      datasets.push({
        label: (several ? 'pair ' + (k + 1) + ', undisturbed' : view.gbench ? 'rounds' : 'undisturbed rounds') + ' (' + num(sum(c), 0) + ')',
        data: c.slice(first, last + 1),
        backgroundColor: fills(pairColour(k)),
        legendColour: alpha(pairColour(k), 0.7),
        borderColor: pairColour(k),
        borderWidth: 1,
        categoryPercentage: 1.0,
        barPercentage: 1.0
      });
    });
    if (hist.disturbed.some(function (c) { return c > 0; })) {
      datasets.push({
        label: 'disturbed rounds' + (several ? ', every pair' : '') + ' (' + num(sum(hist.disturbed), 0) + ')',
        data: hist.disturbed.slice(first, last + 1),
        backgroundColor: fills(colour.disturbed),
        legendColour: alpha(colour.disturbed, 0.7),
        borderColor: colour.disturbed,
        borderWidth: 1,
        categoryPercentage: 1.0,
        barPercentage: 1.0
      });
    }
    var figure = el('div', { class: 'figure' });
    main.appendChild(figure);
    var left = el('div');
    left.appendChild(el('h3', { text: 'Distribution of the round ratios' }));
    figure.appendChild(left);
    addChart(left, 'ab-histogram', 'how many rounds gave each B/A, in bins of ' + sig(hist.width, 3), {
      type: 'bar',
      data: { labels: labels, datasets: datasets },
      options: {
        scales: {
          x: axis('B/A, bins of ' + sig(hist.width, 3), { stacked: true, ticks: { maxRotation: 0, autoSkip: true, autoSkipPadding: 8 } }),
          y: axis('rounds', { stacked: true, beginAtZero: true, ticks: { precision: 0 } })
        },
        plugins: {
          legend: {
            position: 'bottom',
            labels: {
              boxWidth: 14,
              // A dataset's inner bars' colour (the legend would take its first bar's, maybe pale).
              generateLabels: function (chart) {
                var items = Chart.defaults.plugins.legend.labels.generateLabels(chart);
                items.forEach(function (item) {
                  item.fillStyle = chart.data.datasets[item.datasetIndex].legendColour || item.fillStyle;
                });
                return items;
              }
            }
          },
          harnessAnswer: { answer: view.answer, low: hist.low, width: hist.width, first: 1 - first }
        }
      },
      plugins: [answerMarks]
    });
    var aside = el('aside');
    if (view.answerText) aside.appendChild(el('p', null, [el('strong', { text: 'B against A: ' }), view.answerText]));
    aside.appendChild(el('p', {
      class: 'caption',
      text: 'Each bar: the rounds whose B/A fell in that bin, counted over every round' +
        (several ? ', one colour per pair of processes, stacked' : '') + '. The scale runs between the quartiles of the ' +
        'ratios widened by three times their distance (Tukey\'s far-out fences), and holds the answer\'s interval' +
        (first === 0 || last === bars - 1 ? '; the pale bars at its ends hold the rounds beyond it' : '') + '. ' +
        (view.answer ? 'Shaded: the answer\'s 95% interval; line: the answer.' : '')
    }));
    figure.appendChild(aside);
  }

  // What was compared and how, and per pair (with gbench, per benchmark) what its rounds gave.
  function abFacts(main, data, perTick) {
    var report = data.report;
    var ab = report.ab;
    var gbench = ab.mode === 'gbench';
    var c = report.harness.clock;
    var o = ab.options;
    var ctx = report.context || {};
    var section = el('section', { id: 'run' });
    main.appendChild(section);
    section.appendChild(el('h2', { text: 'The comparison' }));
    var prepared = [];
    (ab.preparations || []).forEach(function (p) {
      (p.applied || []).forEach(function (a) { prepared.push(a + ': applied'); });
      (p.refused || []).forEach(function (r) { prepared.push(r.action + ': ' + r.reason); });
    });
    section.appendChild(facts([
      ['A', gbench ? ab.builds.a + ' (--vs)' : sideText(ab.a, ab.mode)],
      ['B', gbench ? ab.builds.b : sideText(ab.b, ab.mode)],
      ['clock', c.name + ' at ' + frequencyText(c.ticks_per_second) +
        (c.calibration ? ' (calibrated within ' + num(c.calibration.error_ppm, 2) + ' ppm)' : '') +
        (isNum(c.step_ticks) ? ', step ' + sig(c.step_ticks, 4) + ' ticks' : '')],
      ['why this clock', c.reason],
      gbench ? ['invocations', ab.plan]
        : ['rounds', 'about ' + timeText(o.round_time_ns) + ' each, ' + o.order + ' order' + (o.order === 'random' ? ' (seed ' + o.seed + ')' : '') +
          (o.cpu === null ? ', not pinned' : ', on CPU ' + o.cpu)],
      ['budget', (gbench ? 'per benchmark, rounds' : 'warmup ' + timeText(o.warmup_ns) + ', then rounds') +
        ' until the interval\'s half-width is under ' + percentText(o.target, 3) + ' or ' + timeText(o.max_time_ns) + ' pass'],
      ['threshold', 'the same within ±' + percentText(o.threshold, 2) +
        (isNum(o.fail_if_slower) ? '; the gate fails when B is slower by more than ' + percentText(o.fail_if_slower, 2) : '')],
      ['processes', ab.mode === 'builds' ? o.pairs + ' pair(s) asked, ' + o.layout : null],
      ['only in A, not compared', gbench && ab.only_in_a.length ? ab.only_in_a.join(', ') : null],
      ['only in B, not compared', gbench && ab.only_in_b.length ? ab.only_in_b.join(', ') : null],
      ['prepared', prepared.join('; ')],
      ['host', [ctx.host_name, ctx.num_cpus ? ctx.num_cpus + ' CPUs' : ''].filter(Boolean).join(', ')],
      ['date', ctx.date],
      ['harness', [report.harness.harness_version, ctx.library_build_type ? ctx.library_build_type + ' build' : ''].filter(Boolean).join(', ')]
    ]));
    // The columns: each pair with its series, or each benchmark's one pair with its own.
    var columns = gbench
      ? ab.comparisons.map(function (cmp, n) { return { name: cmp.benchmark, pair: cmp.pair, series: data.benchmarks[n].series[0] }; })
      : ab.pairs.map(function (p, n) { return { name: n === 0 && ab.pairs.length === 1 ? 'this run' : 'pair ' + (n + 1), pair: p, series: data.series[n] }; });
    var head = [''].concat(columns.map(function (col) { return col.name; }));
    var row = function (name, f) {
      return [name].concat(columns.map(function (col) { return f(col.pair, col.series); }));
    };
    var per = gbench ? 'iteration' : 'call';
    var floor = function (ticks) {
      return isNum(ticks) ? ticksTime(ticks, perTick) + (gbench ? '' : ' (' + num(ticks, 0) + ' ticks)') : '-';
    };
    var rows = [
      row('rounds', function (p, s) { return num(s.rounds, 0); }),
      gbench ? null : row('disturbed rounds', function (p) { return num(p.estimate.disturbed_rounds, 0); }),
      row('B against A (95%)', function (p, s) { return s.change || 'no interval'; }),
      gbench ? null : row('without the disturbed', function (p, s) { return s.undisturbed || 'no interval'; }),
      row('floor of A, per ' + per, function (p) { return floor(p.estimate.floor_a_ticks); }),
      row('floor of B, per ' + per, function (p) { return floor(p.estimate.floor_b_ticks); }),
      row('floors B/A', function (p) { return isNum(p.estimate.floor_ratio) ? ratioText(p.estimate.floor_ratio) : '-'; }),
      row('round minimums over the floor, A / B (median)', function (p) {
        var e = p.estimate;
        return isNum(e.slow_a) && isNum(e.slow_b) ? num(e.slow_a, 2) + 'x / ' + num(e.slow_b, 2) + 'x' : '-';
      }),
      gbench ? row('repetitions an invocation', function (p) { return num(p.samples_per_side, 0); })
        : row('reference runs over the fastest (median)', function (p) { return isNum(p.estimate.slow_reference) ? num(p.estimate.slow_reference, 2) + 'x' : '-'; }),
      gbench ? null : row('batch (calls a sample)', function (p) { return num(p.batch, 0) + (p.batch_calibrated ? ', calibrated' : ', given'); }),
      gbench ? null : row('samples a side, a round', function (p) { return num(p.samples_per_side, 0); }),
      gbench ? null : row('samples a stretch (AB, BA... in a round)', function (p) { return p.samples_per_stretch === undefined ? '-' : num(p.samples_per_stretch, 0); }),
      gbench ? null : row('timer overhead A, B', function (p) { return p.overhead_a_ticks + ', ' + p.overhead_b_ticks + ' ticks'; }),
      gbench ? null : row('warmup', function (p) { return num(p.warmup_rounds, 0) + ' rounds, ' + spanText(p.warmup_seconds); }),
      row('rounds took', function (p) { return spanText(p.seconds); }),
      row('stopped', function (p, s) {
        return s.stopped + (isNum(p.last_half_width) ? ' (the round ratios\' half-width ' + percentText(p.last_half_width, 3) + ' at the last of ' + p.checks + ' checks)' : '');
      })
    ].filter(Boolean);
    if (columns.length) section.appendChild(table(head, rows, [0]));
    section.appendChild(el('p', {
      class: 'note',
      text: gbench
        ? 'A round is one invocation of each binary for one benchmark, in ABBA order; its B/A is B\'s lowest real_time per ' +
          'iteration over the invocation\'s repetitions over A\'s. Each benchmark\'s answer is the median of its round ratios ' +
          'with its order-statistic 95% interval. The figures are Google Benchmark\'s own: no reference loop runs beside ' +
          'them, so no round is marked disturbed. The floors are each side\'s lowest round minimum over the whole run; a ' +
          'side\'s rounds at a median ' + num(data.slow_host, 2) + 'x its floor or more ran slow for most of the run.'
        : 'A round takes the same number of samples of each side, one side after the other; its B/A is B\'s lowest time ' +
          'per call in the round over A\'s. The answer is the median of the round ratios with its order-statistic 95% interval' +
          (columns.length > 1 ? ', combined over the pairs of processes (Student\'s t on their ratios, joined with the pooled rounds\')' : '') +
          '. A round is disturbed when its reference run was slow or a context switch hit it. The floors are each side\'s ' +
          'lowest round minimum over the whole run; a side\'s rounds at a median ' + num(data.slow_host, 2) + 'x its floor or more ran slow for most of ' +
          'the run (the host slowing the workload, which the reference run may not show, or a time that varies from sample to sample).'
    }));
  }

  // The answer's interval in words: the ratio, its bounds, how it was made and what widened it.
  function answerText(a, overPairs) {
    return 'B/A ' + ratioText(a.ratio) + ', 95% interval ' + ratioText(a.lower) + ' to ' + ratioText(a.upper) +
      ': ' + a.method + ', over ' + num(a.count, 0) + (overPairs ? ' pairs of processes' : ' rounds') +
      ' (coverage at least ' + percentText(a.level, 1) + ')' +
      (a.order ? ', widened to reach the median of the rounds A ran first, ' + ratioText(a.order.a_first) + ' over ' +
        num(a.order.a_first_rounds, 0) + ', and of those B ran first, ' + ratioText(a.order.b_first) + ' over ' +
        num(a.order.b_first_rounds, 0) + ' (where running second moves the two sides unequally, the true ratio lies between them)' : '') +
      (a.resolution > 0 ? ', widened by ' + percentText(a.resolution, 3) + ' either side for the clock\'s step (a step of each side\'s clock over its sample at the floor)' : '') + '.';
  }

  // The two figures of a comparison, or why there are none.
  function comparisonFigures(main, view) {
    if (view.histogram) {
      roundsFigure(main, view);
      ratioHistogramFigure(main, view);
    } else {
      main.appendChild(el('p', { class: 'note', text: 'No round gave a ratio: nothing to draw.' }));
    }
  }

  // gbench --vs: per benchmark, its answer, verdict and figures.
  function benchmarkSections(main, data) {
    var ab = data.report.ab;
    ab.comparisons.forEach(function (cmp, n) {
      var made = data.benchmarks[n];
      var section = el('section', { class: 'benchmark' });
      main.appendChild(section);
      section.appendChild(el('h2', { text: cmp.benchmark + ': ' + made.headline }));
      if (cmp.verdict) section.appendChild(el('p', { class: 'sentence', text: 'Verdict: ' + cmp.verdict + ': ' + cmp.reason }));
      if (cmp.answer) section.appendChild(el('p', { text: answerText(cmp.answer, false) }));
      if (cmp.gate_failed) {
        section.appendChild(el('p', { class: 'warning', text: 'The gate failed: B is slower than A by more than --fail-if-slower ' +
          num(ab.options.fail_if_slower * 100, 3) + '% (exit code 4).' }));
      }
      if (cmp.error) section.appendChild(el('p', { class: 'warning', text: 'Failed: ' + cmp.error }));
      comparisonFigures(section, comparisonView(made, cmp.answer, [cmp.pair], data));
    });
  }

  function abPage(main, data) {
    var ab = data.report.ab;
    var perTick = 1e9 / data.report.harness.clock.ticks_per_second;
    var gbench = ab.mode === 'gbench';
    var top = el('section', { id: 'answer' });
    main.appendChild(top);
    top.appendChild(el('h2', { text: data.headline }));
    if (!gbench && ab.verdict) top.appendChild(el('p', { class: 'sentence', text: 'Verdict: ' + ab.verdict + ': ' + ab.reason }));
    if (!gbench && ab.answer) top.appendChild(el('p', { text: answerText(ab.answer, data.series.length > 1) }));
    if (!gbench && ab.gate_failed) {
      top.appendChild(el('p', { class: 'warning', text: 'The gate failed: B is slower than A by more than --fail-if-slower ' +
        num(ab.options.fail_if_slower * 100, 3) + '% (exit code 4).' }));
    }
    if (gbench && ab.gate_failed) {
      top.appendChild(el('p', { class: 'warning', text: 'The gate failed: in a benchmark below, B is slower than A by more than ' +
        '--fail-if-slower ' + num(ab.options.fail_if_slower * 100, 3) + '% (exit code 4).' }));
    }
    if (ab.interrupted) top.appendChild(el('p', { class: 'warning', text: 'Interrupted: the figures are what came before.' }));
    if (gbench) benchmarkSections(main, data);
    else comparisonFigures(main, comparisonView(data, ab.answer, ab.pairs, data));
    abFacts(main, data, perTick);
  }

  H.draw('ab', abPage);
})(window.harnessPage);
