// The history page (body data-page "history", harness history --format html): per workload, the
// floor per commit with its 95% interval, one series per machine and CPU, unconfirmed floors hollow; the
// regressions found, and every run in a table.
// It draws with the common script's helpers (common.js, window.harnessPage), which runs first.
(function (H) {
  'use strict';

  var colour = H.colour, alpha = H.alpha, el = H.el, isNum = H.isNum, timeText = H.timeText,
    facts = H.facts, table = H.table, addChart = H.addChart, axis = H.axis,
    changePercentText = H.changePercentText, percentText = H.percentText,
    significantText = H.significantText;

  // One colour per series (a machine and the CPU its floors ran on), in the order they first appear.
  var palette = [colour.prepared, colour.baseline, colour.second, colour.disturbed, '#CC79A7', '#999999'];

  // A run's series: its machine and CPU (older documents give the machine alone).
  function seriesOf(r) {
    return r.series || r.machine;
  }
  function shortCommit(c) {
    return c.length > 12 ? c.slice(0, 12) : c;
  }
  function changeText(change) {
    return (change >= 0 ? '+' : '') + changePercentText(change * 100) + '%';
  }
  // The commit a run stands at: its own, or the run itself when CI gave none.
  function commitOf(r) {
    return r.commit || 'run ' + r.run;
  }

  // The intervals as vertical lines through each point (Chart.js 3 draws no error bars itself).
  var intervalLines = {
    id: 'intervalLines',
    afterDatasetsDraw: function (chart) {
      var ctx = chart.ctx;
      var y = chart.scales.y;
      var area = chart.chartArea;
      chart.data.datasets.forEach(function (d, i) {
        var meta = chart.getDatasetMeta(i);
        if (meta.hidden) return;
        ctx.save();
        ctx.beginPath();
        ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
        ctx.clip();
        ctx.strokeStyle = d.borderColor;
        ctx.lineWidth = 1.5;
        d.data.forEach(function (p, k) {
          if (!isNum(p.lower) || !isNum(p.upper)) return;
          var x = meta.data[k].x;
          ctx.beginPath();
          ctx.moveTo(x, y.getPixelForValue(p.lower));
          ctx.lineTo(x, y.getPixelForValue(p.upper));
          ctx.stroke();
        });
        ctx.restore();
      });
    }
  };

  function workloadChart(section, name, runs) {
    var commits = [];
    var machines = [];
    runs.forEach(function (r) {
      if (commits.indexOf(commitOf(r)) < 0) commits.push(commitOf(r));
      if (machines.indexOf(seriesOf(r)) < 0) machines.push(seriesOf(r));
    });
    var floors = runs.filter(function (r) { return isNum(r.floor_seconds); }).map(function (r) { return r.floor_seconds * 1e9; });
    var unit = H.unitFor(floors.length ? Math.min.apply(null, floors) : 1);
    var datasets = machines.map(function (m, i) {
      var c = palette[i % palette.length];
      var mine = runs.filter(function (r) { return seriesOf(r) === m && isNum(r.floor_seconds); });
      return {
        type: 'line',
        label: m + ' (' + mine.filter(function (r) { return r.confirmed; }).length + ' of ' + mine.length + ' confirmed)',
        data: mine.map(function (r) {
          var per = 1e9 / unit.per;
          return {
            x: commits.indexOf(commitOf(r)),
            y: r.floor_seconds * per,
            lower: isNum(r.floor_lower_seconds) ? r.floor_lower_seconds * per : null,
            upper: isNum(r.floor_upper_seconds) ? r.floor_upper_seconds * per : null
          };
        }),
        borderColor: c,
        backgroundColor: mine.map(function (r) { return r.confirmed ? c : 'rgba(0,0,0,0)'; }),
        pointBorderColor: c,
        pointRadius: 4,
        pointBorderWidth: 2,
        borderWidth: 1.5,
        tension: 0
      };
    });
    var bounds = { lower: undefined, upper: undefined };
    datasets.forEach(function (d) {
      d.data.forEach(function (p) {
        if (isNum(p.lower) && !(p.lower >= bounds.lower)) bounds.lower = p.lower;
        if (isNum(p.upper) && !(p.upper <= bounds.upper)) bounds.upper = p.upper;
      });
    });
    addChart(section, 'history', name + ': the floor per commit, one line per machine and CPU', {
      type: 'line',
      data: { datasets: datasets },
      options: {
        parsing: false,
        scales: {
          x: axis('commit, in the order first saved', {
            type: 'linear',
            min: -0.5,
            max: commits.length - 0.5,
            ticks: {
              stepSize: 1,
              callback: function (v) { return Number.isInteger(v) && commits[v] ? shortCommit(commits[v]) : ''; }
            }
          }),
          // The axis takes in the intervals, not the floors alone.
          y: axis('floor per call (' + unit.name + ')', { beginAtZero: false, suggestedMin: bounds.lower, suggestedMax: bounds.upper })
        },
        plugins: {
          legend: { position: 'bottom' },
          tooltip: {
            callbacks: {
              title: function (items) { return items.length ? commits[items[0].raw.x] : ''; }
            }
          }
        }
      },
      plugins: [intervalLines]
    });
    section.appendChild(el('p', {
      class: 'caption',
      text: 'Each point is one saved run\'s floor (the lowest prepared sample per call), with its 95% interval as a ' +
        'vertical line; a hollow point was not confirmed. Machines are never compared with each other.'
    }));
  }

  function findingsSection(main, reg) {
    var section = el('section', { id: 'regressions' });
    main.appendChild(section);
    section.appendChild(el('h2', { text: 'Regressions' }));
    section.appendChild(el('p', {
      class: 'note',
      text: 'A move of more than ' + percentText(reg.threshold, 2) + ' with p < ' + significantText(reg.significance, 3) +
        ' (Student\'s t over the log floors of up to ' + reg.window + ' commits each side of a boundary), per machine and CPU.'
    }));
    if (!reg.findings.length) {
      section.appendChild(el('p', { class: 'sentence', text: 'None found.' }));
      return;
    }
    section.appendChild(table(['workload', 'machine', 'direction', 'change', 'from', 'to', 'floor before', 'floor after', 'runs', 'noise', 'p'],
      reg.findings.map(function (f) {
        return [f.workload, f.machine, f.direction, changeText(f.change), shortCommit(f.commit_before), shortCommit(f.commit_after),
          timeText(f.floor_before_seconds * 1e9), timeText(f.floor_after_seconds * 1e9), f.runs_before + ' / ' + f.runs_after,
          percentText(f.noise, 2), significantText(f.p_value, 2)];
      }), [0, 1, 2, 4, 5]));
  }

  function historyPage(main, data) {
    var runs = data.runs || [];
    var q = data.query || {};
    var intro = el('section', { id: 'store' });
    main.appendChild(intro);
    intro.appendChild(el('h2', { text: 'Saved runs' }));
    intro.appendChild(facts([
      ['store', data.store],
      ['workload', q.workload || 'all'],
      ['machine', q.machine || 'all'],
      ['branch', q.branch || 'all'],
      ['since', q.since || 'the first run'],
      ['runs', String(runs.length)]
    ]));
    if (data.regressions) findingsSection(main, data.regressions);
    var names = [];
    runs.forEach(function (r) { if (names.indexOf(r.workload) < 0) names.push(r.workload); });
    names.forEach(function (name) {
      var mine = runs.filter(function (r) { return r.workload === name; });
      var section = el('section', { class: 'workload' });
      main.appendChild(section);
      section.appendChild(el('h2', { text: name }));
      workloadChart(section, name, mine);
      section.appendChild(table(['saved (UTC)', 'machine', 'commit', 'branch', 'floor', '95% interval', 'confirmed', 'median', 'samples'],
        mine.map(function (r) {
          var interval = isNum(r.floor_lower_seconds) && isNum(r.floor_upper_seconds)
            ? '[' + timeText(r.floor_lower_seconds * 1e9) + ', ' + timeText(r.floor_upper_seconds * 1e9) + ']' : '-';
          return [r.saved_at, seriesOf(r), r.commit ? shortCommit(r.commit) : '-', r.branch || '-',
            isNum(r.floor_seconds) ? timeText(r.floor_seconds * 1e9) : '-', interval,
            r.confirmed ? 'yes' : 'no' + (r.unconfirmed ? ': ' + r.unconfirmed : ''),
            isNum(r.median_seconds) ? timeText(r.median_seconds * 1e9) : '-', String(r.samples)];
        }), [0, 1, 2, 3, 6]));
    });
  }

  H.draw('history', historyPage);
})(window.harnessPage);
