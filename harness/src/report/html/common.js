// The HTML report's common script: what every page shares. The page's own script (run.js,
// compare.js, clocks.js or ab.js, after the body's data-page) follows it in the same <script>
// element (report/html.cpp) and draws the page from the JSON in <script id="harness-data"> with
// Chart.js (inlined before them), through harnessPage.draw. No page computes a statistic: every
// figure in the text is the report's own (the ab page's histogram is counted in C++); they only
// convert ticks to a time unit and ratios to percentages, and draw.
//
// What a page drew goes into the element harness-status (a hidden pre) as JSON, for the browser
// test: the charts (id, kind, dataset labels, axis titles, points, pixels painted, length of the
// canvas's data URL), the errors caught (window.onerror, unhandled rejections, console.error),
// the window's width and the page's (scroll_width), whether the dark scheme was drawn, and
// done: true at the end.
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
  // A figure with `digits` decimals (fmt's {:.Nf}, as the console's counts, ppm and the like:
  // "1200", "0.50"), or `digits` significant digits (fmt's {:.Ng}: "0.000123", "1.23e+06");
  // '-' for what the report leaves out. Both are the numbers block's (base/numbers.cpp).
  function num(v, digits) {
    return isNum(v) ? fixedText(v, digits === undefined ? 3 : digits) : '-';
  }
  function sig(v, digits) {
    return isNum(v) ? significantText(v, digits || 4) : '-';
  }
  // A figure in ticks as the console prints one per call (report/summary.cpp's ticks_text,
  // compare/figures.hpp): whole ticks whole, a batch's fraction of a tick with two decimals.
  function ticksText(ticks) {
    return isNum(ticks) ? fixedText(ticks, Number.isInteger(ticks) ? 0 : 2) : '-';
  }
  // A span of wall time as the console prints one (kSpanFormat in harness/duration.hpp):
  // "300 ms", "1.50 s".
  function spanText(seconds) {
    return isNum(seconds) ? durationText(seconds, { kind: 'significant', digits: 3, trim_zeros: false, micro: 'ascii' }) : '-';
  }
  // ---- durationText: harness::format_seconds (harness/src/base/duration.cpp), step for step ---
  // tests/e2e/duration_format_check.py runs this block in Chromium over tests/data/duration_cases.json,
  // the values the C++ unit test prints too. format: { kind: 'decimals' | 'significant', digits,
  // trim_zeros, micro: 'unicode' | 'ascii' }.
  // `value` with `decimals` decimals as fmt prints it: rounded from the double's exact value (which
  // toFixed(100) spells out for any duration), to the nearest, ties to even (toFixed rounds them up).
  function fixedDecimals(value, decimals) {
    var negative = value < 0 || Object.is(value, -0);
    // (toFixed spells numbers from 1e21 on in exponent form; they are whole, as BigInt spells them.)
    var exact = Math.abs(value) >= 1e21 ? BigInt(Math.abs(value)).toString() + '.' + '0'.repeat(100)
      : Math.abs(value).toFixed(100);
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

  // ---- numbers: harness/src/base/numbers.cpp, step for step ----------------------------------
  // tests/e2e/duration_format_check.py runs this block (after the durationText one, whose
  // fixedDecimals it uses) in Chromium over tests/data/number_cases.json, the values the C++ unit
  // test prints too. Each rounds the double's exact value, ties to even, as fmt does.
  function notFinite(value) {
    return value !== value ? 'nan' : value < 0 ? '-inf' : 'inf';
  }
  // fmt's {:.Nf}.
  function fixedText(value, decimals) {
    return isFinite(value) ? fixedDecimals(value, decimals) : notFinite(value);
  }
  // fmt's {:.Ng}: `digits` significant digits (0 counts as 1), trailing zeros dropped, exponent
  // form below 1e-4 or from 10^digits on.
  function significantText(value, digits) {
    if (!isFinite(value)) return notFinite(value);
    var p = Math.max(1, digits);
    var a = Math.abs(value);
    var exact = a >= 1e21 ? BigInt(a).toString() + '.' : a.toFixed(100);
    var point = exact.indexOf('.');
    var all = exact.slice(0, point) + exact.slice(point + 1);
    var first = all.search(/[1-9]/);
    var d = (first < 0 ? '' : all.slice(first, first + p)).split('');
    while (d.length < p) d.push('0');
    var rest = first < 0 ? '' : all.slice(first + p);
    var exponent = first < 0 ? 0 : point - first - 1;
    var up = rest[0] > '5' || (rest[0] === '5' && (/[1-9]/.test(rest.slice(1)) || d[p - 1] % 2 === 1));
    for (var i = p - 1; up && i >= 0; i--) {
      if (d[i] === '9') {
        d[i] = '0';
      } else {
        d[i] = String(Number(d[i]) + 1);
        up = false;
      }
    }
    if (up) {
      d.unshift('1');
      d.pop();
      exponent++;
    }
    var text;
    var trim = function (t) {
      return t.indexOf('.') >= 0 ? t.replace(/0+$/, '').replace(/\.$/, '') : t;
    };
    if (exponent < p && exponent >= -4) {
      text = exponent >= 0 ? d.slice(0, exponent + 1).join('') + '.' + d.slice(exponent + 1).join('')
        : '0.' + '0'.repeat(-exponent - 1) + d.join('');
      text = trim(text);
    } else {
      var e = Math.abs(exponent);
      text = trim(d[0] + '.' + d.slice(1).join('')) + 'e' + (exponent < 0 ? '-' : '+') + (e < 10 ? '0' : '') + e;
    }
    return (value < 0 || Object.is(value, -0) ? '-' : '') + text;
  }
  // fmt's {:+.Nf}: the sign always shown.
  function signedFixedText(value, decimals) {
    if (value !== value) return '+nan';
    var text = fixedText(value, decimals);
    return text[0] === '-' ? text : '+' + text;
  }
  function percentText(fraction, decimals) {
    return fixedText(fraction * 100, decimals) + '%';
  }
  function percentSignificantText(fraction, digits) {
    return significantText(fraction * 100, digits) + '%';
  }
  function factorText(ratio) {
    return fixedText(ratio, 2) + 'x';
  }
  function changePercentText(percent) {
    return fixedText(percent, Math.abs(percent) < 0.1 ? 3 : 2);
  }
  function signedChangePercentText(percent) {
    return (percent < 0 || Object.is(percent, -0) ? '' : '+') + changePercentText(percent) + '%';
  }
  function amountText(value) {
    return value === Math.floor(value) && Math.abs(value) < 1e15 ? fixedText(value, 0) : significantText(value, 6);
  }
  function frequencyText(hz) {
    if (hz >= 1e9) return significantText(hz / 1e9, 6) + ' GHz';
    if (hz >= 1e6) return significantText(hz / 1e6, 7) + ' MHz';
    if (hz >= 1e3) return significantText(hz / 1e3, 6) + ' kHz';
    return significantText(hz, 6) + ' Hz';
  }
  // ---- end of numbers ------------------------------------------------------------------------

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
  // A rate per second with an SI prefix (items) or a binary one (bytes), as the console writes it
  // (append_rate in base/format_template.cpp, step for step): '12.35 M items/s', '87.08 GiB/s',
  // '1.000 M items/s' for 999,999.9.
  function rateText(perSecond, bytes) {
    if (!isNum(perSecond)) return '-';
    var base = bytes ? 1024 : 1000;
    var prefixes = bytes ? ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi'] : ['', 'k', 'M', 'G', 'T', 'P'];
    var decimals = function (x) {
      var m = Math.abs(x);
      return m < 10 ? 3 : (m < 100 ? 2 : 1);
    };
    var rounded = function (x) {
      var scale = Math.pow(10, decimals(x));
      return Math.round(x * scale) / scale;
    };
    var v = perSecond;
    var i = 0;
    while (i + 1 < prefixes.length && Math.abs(rounded(v)) >= base) {
      v /= base;
      i++;
    }
    return fixedText(v, decimals(v)) + ' ' + (bytes ? prefixes[i] + 'B/s' : (prefixes[i] ? prefixes[i] + ' ' : '') + 'items/s');
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


  // ---- shared by the charts of points in the order taken (run samples, ab rounds) ----------
  // The x axis of `count` points in the order taken: its bounds half a point out; only whole
  // numbers are labelled.
  function orderAxis(title, count) {
    return axis(title, {
      type: 'linear',
      min: 0.5,
      max: Math.max(1.5, count + 0.5),
      ticks: {
        callback: function (v) {
          return Number.isInteger(v) ? v.toLocaleString('en-US') : '';
        }
      }
    });
  }
  // The disturbed points as crosses, over the others.
  function crosses(label, data) {
    return {
      type: 'scatter',
      label: label,
      data: data,
      pointStyle: 'crossRot',
      pointRadius: 5,
      borderWidth: 2,
      borderColor: colour.disturbed,
      backgroundColor: colour.disturbed,
      order: 0
    };
  }
  // Points beyond the scale as triangles on its edge (rotation 180: pointing down).
  function triangles(label, data, rotation) {
    return {
      type: 'scatter',
      label: label,
      data: data,
      pointStyle: 'triangle',
      pointRotation: rotation || 0,
      pointRadius: data.length > 200 ? 2.5 : 5,
      borderColor: colour.ink,
      backgroundColor: alpha(colour.ink, 0.5),
      order: 0
    };
  }
  // The caption saying how many points were drawn: all `total`, or `drawn` of them when a `group`
  // held more than `maxDrawn` `what` (the lowest and the `highest` of each stretch kept); `rest`
  // follows.
  function drawnCaption(drawn, total, maxDrawn, what, group, highest, rest) {
    if (drawn >= total) return el('p', { class: 'caption', text: 'Drawn: all ' + num(total, 0) + ' ' + what + '.' });
    return el('p', {
      class: 'caption warning',
      text: 'Drawn: ' + num(drawn, 0) + ' of ' + num(total, 0) + ' ' + what + ' (more than ' + num(maxDrawn, 0) +
        ' in a ' + group + '): the lowest and the ' + highest + ' of each stretch of consecutive ' + what +
        ', and its first disturbed one. ' + rest
    });
  }

  // Draws the page: `drawPage(main, data)` for the page of kind `kind` (its script's), `main` the
  // emptied <main>, `data` the page's JSON. Whatever it throws is shown on the page and recorded.
  function draw(kind, drawPage) {
    try {
      var main = document.getElementById('harness-page');
      main.textContent = '';
      var data = JSON.parse(document.getElementById('harness-data').textContent);
      if (status.page !== kind) throw new Error('unknown page kind ' + status.page + ' (the script draws ' + kind + ')');
      drawPage(main, data);
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
  }

  window.harnessPage = {
    dark: dark, colour: colour, alpha: alpha, el: el, isNum: isNum, num: num, sig: sig,
    durationText: durationText, fixedText: fixedText, significantText: significantText,
    signedFixedText: signedFixedText, percentText: percentText,
    percentSignificantText: percentSignificantText, factorText: factorText,
    changePercentText: changePercentText, signedChangePercentText: signedChangePercentText,
    amountText: amountText, frequencyText: frequencyText, spanText: spanText, ticksText: ticksText,
    unitFor: unitFor, timeText: timeText, rateText: rateText,
    ticksTime: ticksTime, facts: facts, table: table, swatch: swatch, addChart: addChart, axis: axis,
    orderAxis: orderAxis, crosses: crosses, triangles: triangles, drawnCaption: drawnCaption, draw: draw
  };
})();
