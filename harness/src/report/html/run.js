// The run page (body data-page "run": harness run's -o page.html and harness report's):
// per workload its samples in the order taken and their distribution, the phases' table, then the
// run's facts.
// It draws with the common script's helpers (common.js, window.harnessPage), which runs first.
(function (H) {
  'use strict';

  var colour = H.colour, alpha = H.alpha, el = H.el, isNum = H.isNum, num = H.num, sig = H.sig,
    unitFor = H.unitFor, timeText = H.timeText, spanText = H.spanText, frequencyText = H.frequencyText,
    ticksText = H.ticksText, rateText = H.rateText, ticksTime = H.ticksTime,
    facts = H.facts, table = H.table, swatch = H.swatch, addChart = H.addChart, axis = H.axis,
    orderAxis = H.orderAxis, crosses = H.crosses, triangles = H.triangles, drawnCaption = H.drawnCaption,
    amountText = H.amountText, fixedText = H.fixedText;

  // Shaded bands behind the samples: the sampler's blocks, alternating, and each floor's block in
  // green (a Chart.js plugin; the chart itself is Chart.js's).
  var blockBands = {
    id: 'harnessBlocks',
    beforeDatasetsDraw: function (chart) {
      var bands = (chart.options.plugins.harnessBlocks || {}).bands || [];
      var x = chart.scales.x;
      var area = chart.chartArea;
      var ctx = chart.ctx;
      ctx.save();
      bands.forEach(function (b) {
        var left = Math.max(area.left, x.getPixelForValue(b.from));
        var right = Math.min(area.right, x.getPixelForValue(b.to));
        if (right <= left) return;
        ctx.fillStyle = b.floor ? colour.floorBand : b.shade ? colour.band : 'rgba(0,0,0,0)';
        ctx.fillRect(left, area.top, right - left, area.bottom - area.top);
      });
      ctx.restore();
    }
  };

  // ---- the run page --------------------------------------------------------------------------
  function phaseOf(workload, id) {
    var phases = workload.phases || [];
    for (var i = 0; i < phases.length; i++) if (phases[i].phase === id) return phases[i];
    return null;
  }

  function runFacts(report) {
    var h = report.harness;
    var c = h.clock;
    var ctx = report.context || {};
    var section = el('section', { id: 'run' });
    section.appendChild(el('h2', { text: 'The run' }));
    var clockText = c.name + (c.description ? ' — ' + c.description : '');
    var cal = c.calibration;
    var calText = cal
      ? num(cal.ticks_per_second / 1e6, 6) + ' MHz against ' + cal.reference + ', error within ' +
        num(cal.error_ppm, 2) + ' ppm, ' + cal.rounds + ' rounds in ' + spanText(cal.duration_seconds) +
        ' ms' + (cal.converged ? '' : ' (not converged in the time limit)')
      : cal === null ? 'none: the clock\'s rate is declared, not calibrated' : 'not in this report (written by an older harness)';
    var doc = h.doctor;
    var doctorText = null;
    if (doc) {
      doctorText = doc.ok + ' checks ok, ' + doc.warn + ' warned, ' + doc.unknown + ' unknown' +
        (doc.warned && doc.warned.length ? '; warned: ' + doc.warned.join(', ') : '') +
        (doc.unknown_ids && doc.unknown_ids.length ? '; unknown: ' + doc.unknown_ids.join(', ') : '');
    }
    var o = h.options || {};
    section.appendChild(facts([
      ['clock', clockText],
      ['its rate', num(c.ticks_per_second, 0) + ' ticks/s (1 tick = ' + timeText(1e9 / c.ticks_per_second) + ')'],
      ['calibration', calText],
      ['step, granularity, read cost', [c.step_ticks, c.granularity_ticks, c.read_cost_ticks].map(function (v) {
        return isNum(v) ? ticksText(v) + ' ticks' : 'not measured';
      }).join(', ')],
      ['why this clock', c.reason],
      ['doctor', doctorText === null ? 'not run' : doctorText + ' (harness doctor prints each check\'s facts and advice)'],
      ['CPU', doc ? 'CPU ' + doc.cpu + (doc.cpu_reason ? ': ' + doc.cpu_reason : '') : null],
      ['samples asked', o.samples === undefined ? null : String(o.samples) + ' per phase' +
        (o.warmup_ns ? ', warmup ' + timeText(o.warmup_ns) : '') + (o.priority ? ', priority ' + o.priority : '')],
      ['host', [ctx.host_name, ctx.num_cpus ? ctx.num_cpus + ' CPUs' : '', ctx.mhz_per_cpu ? ctx.mhz_per_cpu + ' MHz' : '']
        .filter(Boolean).join(', ')],
      ['date', ctx.date],
      ['harness', [h.harness_version, ctx.library_build_type ? ctx.library_build_type + ' build' : ''].filter(Boolean).join(', ')]
    ]));
    section.appendChild(el('p', {
      class: 'note',
      text: 'Times are per call: the sample\'s ticks of ' + c.name + ' less the timer overhead, divided by the ' +
        'calls in the sample, converted with the rate above' + (cal ? ' (a calibrated estimate)' : '') +
        '. The floor is the lowest block minimum the sampler confirmed (docs/floor.md); spread = (max − min) / min.'
    }));
    return section;
  }

  function phaseLine(p, perTick) {
    if (!p) return null;
    var f = p.floor;
    var parts = [];
    var floorTicks = f ? f.ticks : p.min_ticks;
    parts.push('floor ' + ticksTime(floorTicks, perTick) + (f ? (f.confirmed ? ' (confirmed, block ' + f.block + ')' : ' (not confirmed)') : ''));
    parts.push('median ' + ticksTime(p.median_ticks, perTick));
    parts.push('spread ' + (isNum(p.spread_percent) ? num(p.spread_percent, 3) + '%' : 'n/a'));
    parts.push('disturbed ' + p.disturbed + ' of ' + p.samples);
    if (p.verdict) parts.push('verdict: ' + p.verdict);
    // Per iteration and throughput at the minimum, when the workload reports or declares them.
    if (p.seconds_per_iteration) parts.push('per iteration ' + timeText(p.seconds_per_iteration.at_min * 1e9) + ' at the minimum');
    if (p.items_per_second) parts.push(rateText(p.items_per_second.at_min, false) + ' at the minimum');
    if (p.bytes_per_second) parts.push(rateText(p.bytes_per_second.at_min, true) + ' at the minimum');
    return parts.join(', ');
  }

  function samplesFigure(section, w, series, perTick, maxDrawn) {
    var base = phaseOf(w, 'baseline');
    var prep = phaseOf(w, 'prepared');
    var order = [];
    if (base && series.phases.baseline) order.push(['baseline', base, series.phases.baseline]);
    if (prep && series.phases.prepared) order.push(['prepared', prep, series.phases.prepared]);
    var lowest = Infinity;
    order.forEach(function (o) {
      var f = o[1].floor ? o[1].floor.ticks : o[1].min_ticks;
      if (isNum(f)) lowest = Math.min(lowest, f * perTick);
    });
    var unit = unitFor(isNum(lowest) ? lowest : 1);
    var scale = perTick / unit.per;
    // The chart's top: the histogram's (html.cpp: the highest phase's 75th percentile plus 1.5
    // times its distance above the minimum), and a little room; samples beyond it are drawn on
    // the edge as triangles.
    var hist = series.histogram;
    var top = null;
    if (hist && hist.top_ticks < hist.high_ticks) {
      top = (hist.top_ticks + 0.05 * (hist.top_ticks - hist.low_ticks)) * scale;
    }
    var datasets = [];
    var disturbed = [];
    var above = [];
    var bands = [];
    var offset = 0;
    var drawn = 0;
    var total = 0;
    var maxY = -Infinity;
    order.forEach(function (o) {
      var id = o[0];
      var p = o[1];
      var s = o[2];
      var pts = [];
      for (var k = 0; k < s.i.length; k++) {
        var pt = { x: offset + s.i[k], y: s.t[k] * scale };
        maxY = Math.max(maxY, pt.y);
        if (s.d[k]) disturbed.push(pt);
        pts.push(pt);
      }
      drawn += s.i.length;
      total += s.samples;
      datasets.push({
        type: 'scatter',
        label: id + ' samples',
        data: pts,
        backgroundColor: alpha(colour[id], 0.75),
        borderColor: colour[id],
        pointRadius: s.i.length > 1500 ? 1.5 : 2.5,
        pointHoverRadius: 4,
        order: 2
      });
      (p.blocks || []).forEach(function (b, n) {
        bands.push({
          from: offset + b.first_sample + 0.5,
          to: offset + b.first_sample + b.samples + 0.5,
          shade: n % 2 === 1,
          floor: !!(p.floor && p.floor.block === n + 1)
        });
      });
      var floorTicks = p.floor ? p.floor.ticks : p.min_ticks;
      if (isNum(floorTicks) && s.samples > 0) {
        datasets.push({
          type: 'line',
          label: id + ' floor' + (p.floor ? (p.floor.confirmed ? ' (confirmed)' : ' (not confirmed)') : ' (min)'),
          data: [{ x: offset + 0.5, y: floorTicks * scale }, { x: offset + s.samples + 0.5, y: floorTicks * scale }],
          borderColor: colour[id],
          borderDash: [7, 4],
          borderWidth: 2,
          pointRadius: 0,
          fill: false,
          order: 1
        });
      }
      offset += s.samples;
    });
    if (top !== null && maxY > top) {
      // (Clipped below; the triangles keep their true value for the text and the tooltip.)
      datasets.forEach(function (d) {
        if (d.type !== 'scatter') return;
        d.data = d.data.filter(function (pt) {
          if (pt.y <= top) return true;
          above.push({ x: pt.x, y: top, value: pt.y });
          return false;
        });
      });
      disturbed = disturbed.filter(function (pt) {
        return pt.y <= top;
      });
    } else {
      top = null;
    }
    if (disturbed.length > 0) datasets.push(crosses('disturbed (host slow-down or context switch)', disturbed));
    if (above.length > 0) datasets.push(triangles('above the top, drawn on the edge', above));
    // In the document before the chart is made: Chart.js sizes the canvas from its box.
    var figure = el('div', { class: 'figure' });
    section.appendChild(figure);
    var left = el('div');
    left.appendChild(el('h3', { text: 'Samples in the order taken' }));
    figure.appendChild(left);
    var yAxis = axis('time per call (' + unit.name + ')', { beginAtZero: false });
    if (top !== null) yAxis.max = top;
    addChart(left, 'samples', w.name + ': every sample in the order taken, time per call in ' + unit.name, {
      type: 'scatter',
      data: { datasets: datasets },
      options: {
        parsing: false,
        normalized: true,
        scales: {
          x: orderAxis('sample, in the order taken' + (order.length > 1 ? ' (baseline, then prepared)' : ''), offset),
          y: yAxis
        },
        plugins: {
          legend: { position: 'bottom', labels: { boxWidth: 14 } },
          harnessBlocks: { bands: bands },
          tooltip: {
            callbacks: {
              label: function (item) {
                var v = item.raw.value !== undefined ? item.raw.value : item.raw.y;
                return item.dataset.label + ': sample ' + item.raw.x + ', ' + sig(v, 5) + ' ' + unit.name;
              }
            }
          }
        }
      },
      plugins: [blockBands]
    });
    var aside = el('aside');
    order.forEach(function (o) {
      aside.appendChild(el('p', null, [swatch(colour[o[0]]), el('strong', { text: o[0] + ': ' }), phaseLine(o[1], perTick)]));
    });
    aside.appendChild(el('p', {
      class: 'caption',
      text: 'Dashed lines: each phase\'s floor. Shaded bands: the sampler\'s blocks (alternate ones grey); ' +
        'green: the block the floor came from. Crosses: disturbed samples.'
    }));
    aside.appendChild(drawnCaption(drawn, total, maxDrawn, 'samples', 'phase', 'highest',
      'The figures, the table and the histogram use every sample.'));
    if (above.length > 0) {
      var highest = Math.max.apply(null, above.map(function (a) { return a.value; }));
      aside.appendChild(el('p', {
        class: 'caption',
        text: num(above.length, 0) + (above.length === 1 ? ' drawn sample lies' : ' drawn samples lie') +
          ' above the chart\'s top (' + sig(top, 4) + ' ' + unit.name +
          '); the highest is ' + sig(highest, 5) + ' ' + unit.name + '.'
      }));
    }
    figure.appendChild(aside);
    return unit;
  }

  function histogramFigure(section, w, series, perTick, unit) {
    var hist = series.histogram;
    if (!hist) return;
    var scale = perTick / unit.per;
    var labels = [];
    for (var b = 0; b < hist.bins; b++) {
      labels.push(sig((hist.low_ticks + hist.width_ticks * (b + 0.5)) * scale, 4));
    }
    var anyAbove = false;
    Object.keys(hist.above).forEach(function (id) {
      if (hist.above[id] > 0) anyAbove = true;
    });
    var topLabel = sig(hist.top_ticks * scale, 4);
    if (anyAbove) labels.push('> ' + topLabel);
    var datasets = [];
    var notes = [];
    ['baseline', 'prepared'].forEach(function (id) {
      var counts = hist.counts[id];
      if (!counts) return;
      var n = 0;
      counts.forEach(function (c) { n += c; });
      n += hist.above[id];
      var data = counts.map(function (c) { return n > 0 ? (100 * c) / n : 0; });
      if (anyAbove) data.push(n > 0 ? (100 * hist.above[id]) / n : 0);
      datasets.push({
        label: id + ' (' + num(n, 0) + ' samples)',
        data: data,
        backgroundColor: alpha(colour[id], 0.7),
        borderColor: colour[id],
        borderWidth: 1,
        categoryPercentage: 1.0,
        barPercentage: 1.0
      });
      var p = phaseOf(w, id);
      if (p) {
        notes.push(el('p', null, [swatch(colour[id]), el('strong', { text: id + ': ' }),
          'min ' + ticksTime(p.min_ticks, perTick) + ', median ' + ticksTime(p.median_ticks, perTick) +
          ', max ' + ticksTime(p.max_ticks, perTick) +
          (hist.above[id] > 0 ? ', ' + num(hist.above[id], 0) + ' above ' + topLabel + ' ' + unit.name : '')]));
      }
    });
    var figure = el('div', { class: 'figure' });
    section.appendChild(figure);
    var left = el('div');
    left.appendChild(el('h3', { text: 'Distribution of each phase, one scale' }));
    figure.appendChild(left);
    addChart(left, 'distribution', w.name + ': share of each phase\'s samples per bin of time per call', {
      type: 'bar',
      data: { labels: labels, datasets: datasets },
      options: {
        scales: {
          x: axis('time per call (' + unit.name + '), bins of ' + sig(hist.width_ticks * scale, 3) + ' ' + unit.name, {
            ticks: { maxRotation: 0, autoSkip: true, autoSkipPadding: 8 }
          }),
          y: axis('share of the phase\'s samples (%)', { beginAtZero: true })
        },
        plugins: { legend: { position: 'bottom', labels: { boxWidth: 14 } } }
      }
    });
    var aside = el('aside', null, notes);
    aside.appendChild(el('p', {
      class: 'caption',
      text: 'Each bar: the share of its phase\'s samples in that bin, counted over every sample. The scale runs from the ' +
        'lowest sample to the highest of the phases\' 75th percentile plus 1.5 times its distance above the phase\'s minimum' +
        (anyAbove ? '; the last bar holds the samples above that. The samples chart uses the same top.' : '.')
    }));
    figure.appendChild(aside);
  }

  function workloadTable(w, perTick) {
    var rows = [];
    (w.phases || []).forEach(function (p) {
      rows.push([
        p.phase,
        num(p.samples, 0),
        ticksTime(p.min_ticks, perTick),
        ticksTime(p.median_ticks, perTick),
        ticksTime(p.max_ticks, perTick),
        isNum(p.spread_percent) ? num(p.spread_percent, 3) + '%' : 'n/a',
        num(p.disturbed, 0),
        p.verdict || '-',
        p.floor ? (p.floor.confirmed ? 'confirmed' : 'unconfirmed') : '-',
        ticksText(p.min_ticks)
      ]);
    });
    return table(['phase', 'samples', 'min', 'median', 'max', 'spread %', 'disturbed', 'verdict', 'floor', 'min (ticks)'],
      rows, [0, 7, 8]);
  }

  // The CPU counters: per call at each phase's floor and median samples and over the phase (the
  // JSON's phases[].counters), what was not available and why, and the pin's check.
  function countersBlock(section, w) {
    var n = w.instructions;
    if (n) {
      section.appendChild(el('p', { text: 'Instructions per call: ' + n.per_call + ', counted under Valgrind (' + n.tool +
        ')' + (n.same_in_every_call ? ', the same in ' + n.calls.length + ' of ' + n.calls.length + ' calls' : ', the median of ' + n.calls.join(', ')) +
        (n.l1_misses_per_call !== null ? '; simulated cache misses per call: L1 ' + n.l1_misses_per_call + ', last level ' + n.ll_misses_per_call : '') + '.' }));
    }
    var c = w.counters;
    if (!c || !c.status || c.status.length === 0) return;
    var count = function (v, scaled) {
      return isNum(v) ? amountText(v) + (scaled ? '*' : '') : 'n/a';
    };
    var rows = [];
    (w.phases || []).forEach(function (p) {
      if (!p.counters) return;
      Object.keys(p.counters.per_call).forEach(function (name) {
        var f = p.counters.per_call[name];
        rows.push([p.phase, name, count(f.at_floor, f.scaled_at_floor), count(f.at_median, f.scaled_at_median),
          count(f.phase_total, f.phase_total_scaled)]);
      });
      var ipc = p.counters.ipc;
      if (isNum(ipc.at_floor) || isNum(ipc.at_median)) {
        rows.push([p.phase, 'IPC', isNum(ipc.at_floor) ? fixedText(ipc.at_floor, 3) : 'n/a',
          isNum(ipc.at_median) ? fixedText(ipc.at_median, 3) : 'n/a', '']);
      }
    });
    section.appendChild(el('h3', { text: 'CPU counters' }));
    if (rows.length > 0) {
      section.appendChild(el('p', { class: 'note', text: 'Per call at the floor sample and at the median sample (task-clock in ns), and over the whole phase; * multiplexed by the kernel and scaled: an estimate.' }));
      section.appendChild(table(['phase', 'counter', 'at the floor', 'at the median', 'in the phase'], rows, [0, 1]));
    }
    if (c.pin_check) {
      section.appendChild(el('p', { class: c.pin_check.held === false ? 'warning' : 'note', text: 'Pin check: ' + c.pin_check.text + '.' }));
    }
    var reasons = [];  // grouped by reason, in the order first met
    c.status.forEach(function (s) {
      if (s.available) return;
      var g = reasons.filter(function (r) { return r.reason === s.reason; })[0];
      if (!g) reasons.push(g = { reason: s.reason, names: [] });
      g.names.push(s.name);
    });
    reasons.forEach(function (g) {
      section.appendChild(el('p', { class: 'note', text: 'Not available: ' + g.names.join(', ') + ': ' + g.reason + '.' }));
    });
  }

  // One line on top; the run's facts in full come after the workloads.
  function runHeadline(report) {
    var h = report.harness;
    var c = h.clock;
    var doc = h.doctor;
    var parts = ['Clock ' + c.name + ' at ' + frequencyText(c.ticks_per_second) +
      (c.calibration ? ' (calibrated within ' + num(c.calibration.error_ppm, 2) + ' ppm)' : '')];
    if (doc) parts.push('doctor: ' + doc.ok + ' ok, ' + doc.warn + ' warned, ' + doc.unknown + ' unknown');
    parts.push((h.workloads || []).length + ' workload(s); the run\'s details below');
    var p = el('p', { class: 'note', text: parts.join(' · ') + '.' });
    return p;
  }

  function runPage(main, data) {
    var report = data.report;
    var h = report.harness;
    var perTick = 1e9 / h.clock.ticks_per_second;
    main.appendChild(runHeadline(report));
    (h.workloads || []).forEach(function (w, n) {
      var series = (data.series || [])[n] || { phases: {}, histogram: null };
      var section = el('section', { class: 'workload' });
      main.appendChild(section);
      section.appendChild(el('h2', { text: w.name }));
      if (w.preparation_sentence) section.appendChild(el('p', { class: 'sentence', text: w.preparation_sentence }));
      if (w.failure) {
        section.appendChild(el('p', { class: 'warning', text: 'Failed in ' + w.failure.where + ': ' + w.failure.message }));
      }
      if (w.interrupted) section.appendChild(el('p', { class: 'warning', text: 'Interrupted: the results so far.' }));
      if (w.build && w.build.optimized === false) {
        section.appendChild(el('p', { class: 'warning', text: 'Registered from a build without optimisation: its times are not those of a release build.' }));
      }
      var first = phaseOf(w, 'first');
      if (first && isNum(first.min_ticks)) {
        section.appendChild(el('p', { text: 'First call: ' + ticksTime(first.min_ticks, perTick) + ' (' + num(first.min_ticks, 0) + ' ticks).' }));
      }
      var sampled = Object.keys(series.phases).some(function (id) {
        return series.phases[id].samples > 0;
      });
      if (sampled) {
        var unit = samplesFigure(section, w, series, perTick, data.max_drawn);
        histogramFigure(section, w, series, perTick, unit);
      } else {
        section.appendChild(el('p', { class: 'note', text: 'No phase was sampled: nothing to draw.' }));
      }
      section.appendChild(workloadTable(w, perTick));
      countersBlock(section, w);
    });
    main.appendChild(runFacts(report));
  }

  H.draw('run', runPage);
})(window.harnessPage);
