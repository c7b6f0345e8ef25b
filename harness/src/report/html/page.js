// The HTML report's script: draws the page from the JSON in <script id="harness-data"> with
// Chart.js (inlined before it). Four pages (body's data-page): "run" (harness run), "compare"
// (harness compare), "clocks" (harness clocks) and "ab" (harness ab). It computes no statistic:
// every figure in the text is the report's own (the ab page's histogram is counted in C++); it
// only converts ticks to a time unit and ratios to percentages, and draws.
//
// What it drew goes into the element harness-status (a hidden pre) as JSON, for the browser test: the charts (id,
// kind, dataset labels, axis titles, points, pixels painted, length of the canvas's data URL),
// the errors caught (window.onerror, unhandled rejections, console.error), the window's width and
// the page's (scroll_width), whether the dark scheme was drawn, and done: true at the end.
(function () {
  'use strict';

  var status = { page: document.body.getAttribute('data-page'), charts: [], errors: [], done: false };
  function writeStatus() {
    var out = document.getElementById('harness-status');
    if (out) out.textContent = JSON.stringify(status);
  }
  window.addEventListener('error', function (e) {
    status.errors.push(String(e.message || e.error || 'error'));
    writeStatus();
  });
  window.addEventListener('unhandledrejection', function (e) {
    status.errors.push('unhandled rejection: ' + String(e.reason));
    writeStatus();
  });
  var consoleError = console.error;
  console.error = function () {
    status.errors.push(Array.prototype.map.call(arguments, String).join(' '));
    writeStatus();
    consoleError.apply(console, arguments);
  };

  // ---- colours: Okabe and Ito's palette; the blue is lighter on a dark background ----------
  var dark = !!(window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches);
  var colour = {
    baseline: '#E69F00',                    // orange
    prepared: dark ? '#56B4E9' : '#0072B2', // sky blue / blue
    disturbed: '#D55E00',                   // vermillion
    second: dark ? '#F0E442' : '#009E73',   // yellow / bluish green
    ink: dark ? '#e6e6e6' : '#1a1a1a',
    grid: dark ? 'rgba(255,255,255,0.13)' : 'rgba(0,0,0,0.10)',
    band: dark ? 'rgba(255,255,255,0.05)' : 'rgba(0,0,0,0.045)',
    floorBand: dark ? 'rgba(0,158,115,0.22)' : 'rgba(0,158,115,0.16)'
  };
  function alpha(hex, a) {
    var n = parseInt(hex.slice(1), 16);
    return 'rgba(' + (n >> 16) + ',' + ((n >> 8) & 255) + ',' + (n & 255) + ',' + a + ')';
  }
  Chart.defaults.color = colour.ink;
  Chart.defaults.borderColor = colour.grid;
  Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif';
  Chart.defaults.animation = false;
  Chart.defaults.responsive = true;
  Chart.defaults.maintainAspectRatio = false;
  // Legends in the order the datasets are given (Chart.js would sort them by drawing order).
  Chart.defaults.plugins.legend.labels.sort = function (a, b) {
    return a.datasetIndex - b.datasetIndex;
  };

  // ---- small helpers ------------------------------------------------------------------------
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (k === 'text') node.textContent = attrs[k];
        else node.setAttribute(k, attrs[k]);
      });
    }
    (children || []).forEach(function (c) {
      if (c === null || c === undefined) return;
      node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    });
    return node;
  }
  function isNum(v) {
    return typeof v === 'number' && isFinite(v);
  }
  function num(v, digits) {
    if (!isNum(v)) return '-';
    return v.toLocaleString('en-US', { maximumFractionDigits: digits === undefined ? 3 : digits });
  }
  function sig(v, digits) {
    if (!isNum(v)) return '-';
    return Number(v.toPrecision(digits || 4)).toLocaleString('en-US', { maximumFractionDigits: 12 });
  }
  // ---- durationText: harness::format_seconds (harness/src/duration.cpp), step for step --------
  // tests/e2e/duration_format_check.py runs this block in Chromium over tests/data/duration_cases.json,
  // the values the C++ unit test prints too. format: { kind: 'decimals' | 'significant', digits,
  // trim_zeros, micro: 'unicode' | 'ascii' }.
  // `value` with `decimals` decimals as fmt prints it: rounded from the double's exact value (which
  // toFixed(100) spells out for any duration), to the nearest, ties to even (toFixed rounds them up).
  function fixedDecimals(value, decimals) {
    var negative = value < 0 || Object.is(value, -0);
    var exact = Math.abs(value).toFixed(100);
    var point = exact.indexOf('.');
    var digits = (exact.slice(0, point) + exact.slice(point + 1, point + 1 + decimals)).split('');
    var rest = exact.slice(point + 1 + decimals);
    var up = rest[0] > '5' || (rest[0] === '5' && (/[1-9]/.test(rest.slice(1)) ||
      (digits[digits.length - 1] % 2 === 1)));
    for (var i = digits.length - 1; up && i >= 0; i--) {
      if (digits[i] === '9') {
        digits[i] = '0';
      } else {
        digits[i] = String(Number(digits[i]) + 1);
        up = false;
      }
    }
    if (up) digits.unshift('1');
    var whole = digits.slice(0, digits.length - decimals).join('').replace(/^0+(?=\d)/, '');
    var text = decimals > 0 ? whole + '.' + digits.slice(digits.length - decimals).join('') : whole;
    return (negative ? '-' : '') + text;
  }
  function durationDecimals(value, format, inNs) {
    if (format.kind === 'decimals') return inNs && Math.abs(value) < 1 && value !== 0 ? format.digits + 1 : format.digits;
    var integerDigits = 1;
    for (var m = Math.abs(value); m >= 10 && integerDigits < 400; m /= 10) integerDigits++;
    return Math.max(0, format.digits - integerDigits);
  }
  function roundedText(value, format, inNs) {
    var decimals = durationDecimals(value, format, inNs);
    var text = fixedDecimals(value, decimals);
    var again = durationDecimals(Number(text), format, inNs);
    if (again !== decimals && format.kind === 'significant') text = fixedDecimals(value, again);
    return text;
  }
  function durationText(seconds, format) {
    if (!isFinite(seconds)) return 'n/a';
    var units = [[1, 's'], [1e3, 'ms'], [1e6, format.micro === 'ascii' ? 'us' : 'µs'], [1e9, 'ns']];
    var u = 0;
    while (u + 1 < units.length && Math.abs(seconds * units[u][0]) < 1) u++;
    var text = roundedText(seconds * units[u][0], format, u + 1 === units.length);
    if (u > 0 && Math.abs(Number(text)) >= 1000) {
      u--;
      text = roundedText(seconds * units[u][0], format, false);
    }
    if (format.trim_zeros && text.indexOf('.') >= 0) text = text.replace(/0+$/, '').replace(/\.$/, '');
    return text + ' ' + units[u][1];
  }
  // ---- end of durationText -------------------------------------------------------------------

  // The unit that puts `ns` (the smallest time shown) at 1 or more: ns, µs, ms or s.
  function unitFor(ns) {
    var a = Math.abs(ns);
    if (a >= 1e9) return { name: 's', per: 1e9 };
    if (a >= 1e6) return { name: 'ms', per: 1e6 };
    if (a >= 1e3) return { name: 'µs', per: 1e3 };
    return { name: 'ns', per: 1 };
  }
  // Four significant digits, trailing zeros dropped: '1.234 ms', '2.5 µs'.
  function timeText(ns) {
    if (!isNum(ns)) return '-';
    return durationText(ns / 1e9, { kind: 'significant', digits: 4, trim_zeros: true, micro: 'unicode' });
  }
  // A rate per second with an SI prefix (items) or a binary one (bytes), as the console writes it:
  // '12.35 M items/s', '87.08 GiB/s'.
  function rateText(perSecond, bytes) {
    if (!isNum(perSecond)) return '-';
    var base = bytes ? 1024 : 1000;
    var prefixes = bytes ? ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi'] : ['', 'k', 'M', 'G', 'T', 'P'];
    var v = perSecond;
    var i = 0;
    while (i + 1 < prefixes.length && Math.abs(v) >= base) {
      v /= base;
      i++;
    }
    return sig(v, 4) + ' ' + (bytes ? prefixes[i] + 'B/s' : (prefixes[i] ? prefixes[i] + ' ' : '') + 'items/s');
  }
  // A figure in ticks as a time; '-' for one the report leaves null (no samples).
  function ticksTime(ticks, perTick) {
    return isNum(ticks) ? timeText(ticks * perTick) : '-';
  }
  function facts(pairs) {
    var dl = el('dl', { class: 'facts' });
    pairs.forEach(function (p) {
      if (p[1] === null || p[1] === undefined || p[1] === '') return;
      dl.appendChild(el('dt', { text: p[0] }));
      dl.appendChild(typeof p[1] === 'string' ? el('dd', { text: p[1] }) : el('dd', null, [p[1]]));
    });
    return dl;
  }
  function table(head, rows, textColumns) {
    var t = el('table');
    var tr = el('tr');
    head.forEach(function (h, i) {
      tr.appendChild(el('th', { text: h, class: textColumns.indexOf(i) >= 0 ? 'text' : '' }));
    });
    t.appendChild(el('thead', null, [tr]));
    var body = el('tbody');
    rows.forEach(function (r) {
      var row = el('tr');
      r.forEach(function (c, i) {
        row.appendChild(el('td', { text: String(c), class: textColumns.indexOf(i) >= 0 ? 'text' : '' }));
      });
      body.appendChild(row);
    });
    t.appendChild(body);
    return el('div', { class: 'table-wrap' }, [t]);
  }
  function swatch(c) {
    var s = el('span', { class: 'swatch' });
    s.style.background = c;
    return s;
  }

  // Pixels a canvas has painted (alpha above 0), counted on a grid of every 4th pixel.
  function painted(canvas) {
    try {
      var ctx = canvas.getContext('2d');
      var img = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
      var count = 0;
      for (var y = 0; y < canvas.height; y += 4) {
        for (var x = 0; x < canvas.width; x += 4) {
          if (img[(y * canvas.width + x) * 4 + 3] > 0) count++;
        }
      }
      return count;
    } catch (e) {
      status.errors.push('reading the canvas: ' + e);
      return 0;
    }
  }

  var chartCount = 0;
  // Draws one chart into `container`, and records it in the status.
  function addChart(container, kind, description, config) {
    chartCount += 1;
    var id = 'chart-' + chartCount;
    var box = el('div', { class: 'chart-box' });
    var canvas = el('canvas', { id: id, role: 'img', 'aria-label': description });
    box.appendChild(canvas);
    container.appendChild(box);
    var chart = new Chart(canvas.getContext('2d'), config);
    var scales = chart.options.scales || {};
    var points = 0;
    chart.data.datasets.forEach(function (d) {
      points += d.data.length;
    });
    status.charts.push({
      id: id,
      kind: kind,
      labels: chart.data.datasets.map(function (d) {
        return d.label;
      }),
      x: scales.x && scales.x.title ? scales.x.title.text : '',
      y: scales.y && scales.y.title ? scales.y.title.text : '',
      points: points,
      painted: painted(canvas),
      data_url_length: canvas.toDataURL('image/png').length
    });
    return chart;
  }
  function axis(title, extra) {
    var a = { title: { display: true, text: title, font: { weight: '600' } }, grid: { color: colour.grid } };
    Object.keys(extra || {}).forEach(function (k) {
      a[k] = extra[k];
    });
    return a;
  }

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
      ? sig(cal.ticks_per_second / 1e6, 10) + ' MHz against ' + cal.reference + ', error within ' +
        num(cal.error_ppm, 2) + ' ppm, ' + cal.rounds + ' rounds in ' + num(cal.duration_seconds * 1e3, 1) +
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
      ['its rate', sig(c.ticks_per_second, 10) + ' ticks/s (1 tick = ' + timeText(1e9 / c.ticks_per_second) + ')'],
      ['calibration', calText],
      ['step, granularity, read cost', [c.step_ticks, c.granularity_ticks, c.read_cost_ticks].map(function (v) {
        return isNum(v) ? sig(v, 4) + ' ticks' : 'not measured';
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
    parts.push('spread ' + (isNum(p.spread_percent) ? num(p.spread_percent, 2) + '%' : 'n/a'));
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
    if (disturbed.length > 0) {
      datasets.push({
        type: 'scatter',
        label: 'disturbed (host slow-down or context switch)',
        data: disturbed,
        pointStyle: 'crossRot',
        pointRadius: 5,
        borderWidth: 2,
        borderColor: colour.disturbed,
        backgroundColor: colour.disturbed,
        order: 0
      });
    }
    if (above.length > 0) {
      datasets.push({
        type: 'scatter',
        label: 'above the top, drawn on the edge',
        data: above,
        pointStyle: 'triangle',
        pointRadius: above.length > 200 ? 2.5 : 5,
        borderColor: colour.ink,
        backgroundColor: alpha(colour.ink === '#e6e6e6' ? '#e6e6e6' : '#1a1a1a', 0.5),
        order: 0
      });
    }
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
          x: axis('sample, in the order taken' + (order.length > 1 ? ' (baseline, then prepared)' : ''), {
            type: 'linear',
            min: 0.5,
            max: Math.max(1.5, offset + 0.5),
            // The bounds sit half a sample out; only whole sample numbers are labelled.
            ticks: {
              callback: function (v) {
                return Number.isInteger(v) ? v.toLocaleString('en-US') : '';
              }
            }
          }),
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
    if (drawn < total) {
      aside.appendChild(el('p', {
        class: 'caption warning',
        text: 'Drawn: ' + num(drawn, 0) + ' of ' + num(total, 0) + ' samples (more than ' + num(maxDrawn, 0) +
          ' in a phase): the lowest and the highest of each stretch of consecutive samples, and its first ' +
          'disturbed one. The figures, the table and the histogram use every sample.'
      }));
    } else {
      aside.appendChild(el('p', { class: 'caption', text: 'Drawn: all ' + num(total, 0) + ' samples.' }));
    }
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
        isNum(p.min_ticks) ? sig(p.min_ticks, 6) : '-'
      ]);
    });
    return table(['phase', 'samples', 'min', 'median', 'max', 'spread %', 'disturbed', 'verdict', 'floor', 'min (ticks)'],
      rows, [0, 7, 8]);
  }

  // One line on top; the run's facts in full come after the workloads.
  function runHeadline(report) {
    var h = report.harness;
    var c = h.clock;
    var doc = h.doctor;
    var parts = ['Clock ' + c.name + ' at ' + sig(c.ticks_per_second / 1e6, 7) + ' MHz' +
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
        section.appendChild(el('p', { text: 'First call: ' + ticksTime(first.min_ticks, perTick) + ' (' + sig(first.min_ticks, 6) + ' ticks).' }));
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
    });
    main.appendChild(runFacts(report));
  }

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
        ? 'the sides ran the reference loop at different speeds (best ' + sig(data.references.a, 5) + ' against ' +
          sig(data.references.b, 5) + '): the host or its clock speed differed, the comparison is not to be trusted'
        : 'the sides ran the reference loop at the same speed'],
      ['gate', 'B slower by more than ' + num(gate.threshold_percent, 2) + '% in: ' +
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
          ? 'median ' + sig(side.median, 6) + (side.median_interval ? ' [' + sig(side.median_interval.lower, 6) + ', ' +
            sig(side.median_interval.upper, 6) + ']' : '') + ' over ' + side.samples + ' samples; ' +
            side.unconfirmed + ' report(s) without a confirmed floor'
          : 'min ' + sig(side.min, 6) + (side.floor ? ', floor ' + sig(side.floor.lower, 6) + ' to ' + sig(side.floor.upper, 6) : ', no interval') +
            ', ' + side.reports + ' report(s), fewest samples ' + side.fewest_samples +
            (side.notes && side.notes.length ? '; ' + side.notes.join('; ') : '');
        aside.appendChild(el('p', null, [swatch(s[2]), el('strong', { text: s[0] + ': ' }), figures]));
      });
      aside.appendChild(el('p', null, [el('strong', { text: 'B / A: ' }), isNum(w.ratio) ? sig(w.ratio, 5) +
        (byMedians && w.shift ? ' [' + sig(w.shift.lower, 5) + ', ' + sig(w.shift.upper, 5) + '] by the median shift (' + w.shift.method + ')' : '')
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
      ? sig(cal.ticks_per_second / 1e6, 10) + ' MHz against ' + cal.reference + ', error within ' + num(cal.error_ppm, 2) +
        ' ppm, ' + cal.rounds + ' rounds in ' + num(cal.duration_seconds * 1e3, 1) + ' ms' + (cal.converged ? '' : ' (not converged)')
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
        c.call_cost ? sig(c.call_cost.ns_per_call, 4) : '-',
        c.granularity && isNum(c.granularity.seconds) ? timeText(c.granularity.seconds * 1e9) : 'none seen',
        c.measured_resolution && isNum(c.measured_resolution.seconds) ? timeText(c.measured_resolution.seconds * 1e9) : 'none seen',
        c.smallest_step && isNum(c.smallest_step.seconds) ? timeText(c.smallest_step.seconds * 1e9) : 'none seen',
        sig(c.ticks_per_second, 8)
      ];
    });
    section.appendChild(table(['source', 'kind', 'ns per read', 'granularity', 'measured resolution', 'smallest step', 'ticks/s'], rows, [0, 1]));
    if (unavailable.length) {
      section.appendChild(el('p', { text: 'Unavailable here:' }));
      section.appendChild(el('ul', null, unavailable));
    }
  }

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
  // 1.01003 read as 1.01000 and 1.01003.
  function ratioText(v, decimals) {
    return isNum(v) ? v.toFixed(decimals === undefined ? 5 : decimals) : '-';
  }

  function sideText(side, mode) {
    if (!side) return null;
    return side.workload + (mode === 'builds' ? ' of ' + side.build : '') +
      (side.iterations_per_call ? ', ' + num(side.iterations_per_call, 0) + ' iterations a call' : '');
  }

  // The ratio of every round in the order taken, one dataset per pair, the answer's interval as a
  // band and its median as a line; rounds beyond the histogram's scale drawn on the edges.
  function roundsFigure(main, data, perTick) {
    var ab = data.report.ab;
    var hist = data.histogram;
    var answer = ab.answer;
    // Room above and below the scale for the rounds beyond it, drawn in the middle of that room.
    var margin = 0.08 * (hist.top - hist.low);
    var yMin = hist.low - margin;
    var yMax = hist.top + margin;
    var edgeLow = hist.low - margin / 2;
    var edgeHigh = hist.top + margin / 2;
    var several = data.series.length > 1;
    var datasets = [];
    var disturbed = [];
    var above = [];
    var below = [];
    var pairMedians = [];
    var offset = 0;
    var drawn = 0;
    var total = 0;
    var beyond = 0;
    data.series.forEach(function (s, k) {
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
      var est = ab.pairs[k].estimate.rounds;
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
    if (disturbed.length) {
      datasets.push({
        type: 'scatter',
        label: 'disturbed rounds (host slow-down or context switch)',
        data: disturbed,
        pointStyle: 'crossRot',
        pointRadius: 5,
        borderWidth: 2,
        borderColor: colour.disturbed,
        backgroundColor: colour.disturbed,
        order: 0
      });
    }
    [[above, 'above the scale, drawn at the top', 0], [below, 'below the scale, drawn at the bottom', 180]].forEach(function (e) {
      if (!e[0].length) return;
      datasets.push({
        type: 'scatter',
        label: e[1],
        data: e[0],
        pointStyle: 'triangle',
        pointRotation: e[2],
        pointRadius: e[0].length > 200 ? 2.5 : 5,
        borderColor: colour.ink,
        backgroundColor: alpha(colour.ink, 0.5),
        order: 0
      });
    });
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
          x: axis('round, in the order taken' + (several ? ' (pair 1, then pair 2, ...)' : ''), {
            type: 'linear',
            min: 0.5,
            max: end,
            ticks: {
              callback: function (v) {
                return Number.isInteger(v) ? v.toLocaleString('en-US') : '';
              }
            }
          }),
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
    data.series.forEach(function (s, k) {
      var p = ab.pairs[k];
      aside.appendChild(el('p', null, [swatch(pairColour(k)), el('strong', { text: (several ? 'pair ' + (k + 1) : 'rounds') + ': ' }),
        num(s.rounds, 0) + ' rounds, ' + num(p.estimate.disturbed_rounds, 0) + ' disturbed' +
        (s.change ? '; B against A ' + s.change : '') +
        (p.estimate.disturbed_rounds > 0 ? '; without the disturbed ' + (s.undisturbed || 'too few left for an interval') : '')]));
      if (s.with_ratio < s.rounds) {
        aside.appendChild(el('p', { class: 'caption warning', text: num(s.rounds - s.with_ratio, 0) +
          ' round(s) gave no ratio (A\'s round minimum not above 0: the workload no longer than the timer overhead).' }));
      }
    });
    aside.appendChild(el('p', {
      class: 'caption',
      text: 'Each point: one round\'s B/A, the lowest time per call of B\'s samples in the round over A\'s. ' +
        (answer ? 'Shaded: the answer\'s 95% interval; solid line: the answer. ' : '') +
        'Crosses: rounds with a disturbed sample. The vertical scale is the histogram\'s (' + ratioText(hist.low) + ' to ' +
        ratioText(hist.top) + ')' + (beyond
        ? '; ' + num(beyond, 0) + ' drawn round(s) lie beyond it, drawn just outside it (triangles, or crosses when disturbed): ' +
          'the lowest ratio is ' + ratioText(hist.lowest) + ', the highest ' + ratioText(hist.highest) + '.'
        : '.')
    }));
    if (drawn < total) {
      aside.appendChild(el('p', {
        class: 'caption warning',
        text: 'Drawn: ' + num(drawn, 0) + ' of ' + num(total, 0) + ' rounds (more than ' + num(data.max_drawn, 0) +
          ' in a pair): the lowest and the highest ratio of each stretch of consecutive rounds, and its first ' +
          'disturbed one. The figures and the histogram use every round.'
      }));
    } else {
      aside.appendChild(el('p', { class: 'caption', text: 'Drawn: all ' + num(total, 0) + ' rounds.' }));
    }
    figure.appendChild(aside);
  }

  // The ratios' histogram as page data counted it (ab_html.cpp): undisturbed rounds per pair and
  // the disturbed ones stacked on them; an edge bar on each side when rounds lie beyond the scale.
  function ratioHistogramFigure(main, data) {
    var hist = data.histogram;
    var ab = data.report.ab;
    var several = data.series.length > 1;
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
        label: (several ? 'pair ' + (k + 1) + ', undisturbed' : 'undisturbed rounds') + ' (' + num(sum(c), 0) + ')',
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
          harnessAnswer: { answer: ab.answer, low: hist.low, width: hist.width, first: 1 - first }
        }
      },
      plugins: [answerMarks]
    });
    var aside = el('aside');
    if (data.answer) aside.appendChild(el('p', null, [el('strong', { text: 'B against A: ' }), data.answer]));
    aside.appendChild(el('p', {
      class: 'caption',
      text: 'Each bar: the rounds whose B/A fell in that bin, counted over every round' +
        (several ? ', one colour per pair of processes, stacked' : '') + '. The scale runs between the quartiles of the ' +
        'ratios widened by three times their distance (Tukey\'s far-out fences), and holds the answer\'s interval' +
        (first === 0 || last === bars - 1 ? '; the pale bars at its ends hold the rounds beyond it' : '') + '. ' +
        (ab.answer ? 'Shaded: the answer\'s 95% interval; line: the answer.' : '')
    }));
    figure.appendChild(aside);
  }

  // What was compared and how, and per pair what its rounds gave.
  function abFacts(main, data, perTick) {
    var report = data.report;
    var ab = report.ab;
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
      ['A', sideText(ab.a, ab.mode)],
      ['B', sideText(ab.b, ab.mode)],
      ['clock', c.name + ' at ' + sig(c.ticks_per_second / 1e6, 7) + ' MHz' +
        (c.calibration ? ' (calibrated within ' + num(c.calibration.error_ppm, 2) + ' ppm)' : '') +
        (isNum(c.step_ticks) ? ', step ' + sig(c.step_ticks, 4) + ' ticks' : '')],
      ['why this clock', c.reason],
      ['rounds', 'about ' + timeText(o.round_time_ns) + ' each, ' + o.order + ' order' + (o.order === 'random' ? ' (seed ' + o.seed + ')' : '') +
        (o.cpu === null ? ', not pinned' : ', on CPU ' + o.cpu)],
      ['budget', 'warmup ' + timeText(o.warmup_ns) + ', then rounds until the interval\'s half-width is under ' +
        num(o.target * 100, 3) + '% or ' + timeText(o.max_time_ns) + ' pass'],
      ['threshold', 'the same within ±' + num(o.threshold * 100, 3) + '%' +
        (isNum(o.fail_if_slower) ? '; the gate fails when B is slower by more than ' + num(o.fail_if_slower * 100, 3) + '%' : '')],
      ['processes', ab.mode === 'builds' ? o.pairs + ' pair(s) asked, ' + o.layout : null],
      ['prepared', prepared.join('; ')],
      ['host', [ctx.host_name, ctx.num_cpus ? ctx.num_cpus + ' CPUs' : ''].filter(Boolean).join(', ')],
      ['date', ctx.date],
      ['harness', [report.harness.harness_version, ctx.library_build_type ? ctx.library_build_type + ' build' : ''].filter(Boolean).join(', ')]
    ]));
    var pairs = ab.pairs;
    var head = ['', pairs.length > 1 ? 'pair 1' : 'this run'];
    for (var k = 1; k < pairs.length; k++) head.push('pair ' + (k + 1));
    var row = function (name, f) {
      return [name].concat(pairs.map(function (p, n) { return f(p, data.series[n]); }));
    };
    var floor = function (ticks) {
      return isNum(ticks) ? ticksTime(ticks, perTick) + ' (' + sig(ticks, 6) + ' ticks)' : '-';
    };
    var rows = [
      row('rounds', function (p, s) { return num(s.rounds, 0); }),
      row('disturbed rounds', function (p) { return num(p.estimate.disturbed_rounds, 0); }),
      row('B against A (95%)', function (p, s) { return s.change || 'no interval'; }),
      row('without the disturbed', function (p, s) { return s.undisturbed || 'no interval'; }),
      row('floor of A, per call', function (p) { return floor(p.estimate.floor_a_ticks); }),
      row('floor of B, per call', function (p) { return floor(p.estimate.floor_b_ticks); }),
      row('floors B/A', function (p) { return isNum(p.estimate.floor_ratio) ? ratioText(p.estimate.floor_ratio) : '-'; }),
      row('batch (calls a sample)', function (p) { return num(p.batch, 0) + (p.batch_calibrated ? ', calibrated' : ', given'); }),
      row('samples a side, a round', function (p) { return num(p.samples_per_side, 0); }),
      row('samples a stretch (AB, BA... in a round)', function (p) { return p.samples_per_stretch === undefined ? '-' : num(p.samples_per_stretch, 0); }),
      row('timer overhead A, B', function (p) { return p.overhead_a_ticks + ', ' + p.overhead_b_ticks + ' ticks'; }),
      row('warmup', function (p) { return num(p.warmup_rounds, 0) + ' rounds, ' + num(p.warmup_seconds, 3) + ' s'; }),
      row('rounds took', function (p) { return num(p.seconds, 3) + ' s'; }),
      row('stopped', function (p, s) {
        return s.stopped + (isNum(p.last_half_width) ? ' (half-width ' + num(p.last_half_width * 100, 3) + '% at the last of ' + p.checks + ' checks)' : '');
      })
    ];
    if (pairs.length) section.appendChild(table(head, rows, [0]));
    section.appendChild(el('p', {
      class: 'note',
      text: 'A round takes the same number of samples of each side, one side after the other; its B/A is B\'s lowest time ' +
        'per call in the round over A\'s. The answer is the median of the round ratios with its order-statistic 95% interval' +
        (pairs.length > 1 ? ', combined over the pairs of processes (Student\'s t on their ratios, joined with the pooled rounds\')' : '') +
        '. A round is disturbed when its reference run was slow or a context switch hit it. The floors are each side\'s ' +
        'lowest round minimum over the whole run.'
    }));
  }

  function abPage(main, data) {
    var ab = data.report.ab;
    var perTick = 1e9 / data.report.harness.clock.ticks_per_second;
    var top = el('section', { id: 'answer' });
    main.appendChild(top);
    top.appendChild(el('h2', { text: data.headline }));
    if (ab.verdict) top.appendChild(el('p', { class: 'sentence', text: 'Verdict: ' + ab.verdict + ': ' + ab.reason }));
    var a = ab.answer;
    if (a) {
      top.appendChild(el('p', { text: 'B/A ' + ratioText(a.ratio) + ', 95% interval ' + ratioText(a.lower) + ' to ' + ratioText(a.upper) +
        ': ' + a.method + ', over ' + num(a.count, 0) + (data.series.length > 1 ? ' pairs of processes' : ' rounds') +
        ' (coverage at least ' + num(a.level * 100, 1) + '%).' }));
    }
    if (ab.gate_failed) {
      top.appendChild(el('p', { class: 'warning', text: 'The gate failed: B is slower than A by more than --fail-if-slower ' +
        num(ab.options.fail_if_slower * 100, 3) + '% (exit code 4).' }));
    }
    if (ab.interrupted) top.appendChild(el('p', { class: 'warning', text: 'Interrupted: the figures are what came before.' }));
    if (data.histogram) {
      roundsFigure(main, data, perTick);
      ratioHistogramFigure(main, data);
    } else {
      main.appendChild(el('p', { class: 'note', text: 'No round gave a ratio: nothing to draw.' }));
    }
    abFacts(main, data, perTick);
  }

  try {
    var main = document.getElementById('harness-page');
    main.textContent = '';
    var data = JSON.parse(document.getElementById('harness-data').textContent);
    if (status.page === 'run') runPage(main, data);
    else if (status.page === 'compare') comparePage(main, data);
    else if (status.page === 'clocks') clocksPage(main, data);
    else if (status.page === 'ab') abPage(main, data);
    else throw new Error('unknown page kind ' + status.page);
  } catch (e) {
    status.errors.push(String(e && e.stack ? e.stack : e));
    var failed = document.getElementById('harness-page');
    if (failed) failed.appendChild(el('p', { class: 'warning', text: 'The page could not be drawn: ' + e }));
  }
  // For the test at 390 px: a page wider than its window scrolls sideways.
  status.window_width = window.innerWidth;
  status.scroll_width = document.documentElement.scrollWidth;
  status.dark = dark;
  status.done = true;
  writeStatus();
})();
