package org.gpuemu.emulator.dashboard;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.html.Charts;

/**
 * The dashboard page: the run's facts, its live status (emulated time, real-time factor, p99 timer lateness, the
 * verdict so far, paused or not), the controls ({@link RemoteControl}: pause and resume, a fault of any kind on a
 * chosen VM, a VM's weight or share), one card per VM (FPS, GPU share, mode, memory of the last metrics period) and
 * the report's time charts — FPS per VM (with the policy's mode switches marked, VGRIS Figure 11), GPU share per VM,
 * fairness (MMR per period by GPU time and the run's λ: FairGV, VMCG) and GPU memory per VM (gBalloon) — started
 * from {@link Charts#lines} with empty series and grown by the page's script from the {@code timeline} events, each
 * control marked where it took effect. The script listens ({@code EventSource}) and posts a control when a button
 * is pressed; it never polls.
 */
final class DashboardPage {
  private DashboardPage() {}

  static String html(Settings.Scenario scenario, RemoteControl control) {
    Map<String, List<double[]>> empty = new LinkedHashMap<>();
    for (Settings.Vm vm : scenario.vms()) empty.put(vm.name(), List.of());
    ObjectNode fps = Charts.lines("FPS", empty);
    ObjectNode share = Charts.lines("GPU share", empty);
    Map<String, List<double[]>> fairSeries = new LinkedHashMap<>();
    fairSeries.put("MMR", List.of());
    fairSeries.put("λ", List.of());
    ObjectNode fairness = Charts.lines("MMR, λ", fairSeries);
    ObjectNode memory = Charts.lines("MiB", empty);
    String facts = String.format(java.util.Locale.ROOT, "%d VMs, policy %s, %.1f emulated s at time scale %s",
        scenario.vms().size(), scenario.gpuPolicy().name(), scenario.durationNanos() / 1e9, scenario.timeScale());
    StringBuilder vms = new StringBuilder();
    for (Settings.Vm vm : scenario.vms()) {
      vms.append("<option value=\"").append(escape(vm.name())).append("\">").append(escape(vm.name()))
          .append("</option>");
    }
    StringBuilder kinds = new StringBuilder();
    for (FaultPlan.Kind k : FaultPlan.Kind.values()) {
      if (!k.inOneJvm()) continue;
      kinds.append("<option value=\"").append(k.label()).append("\" data-heal=\"")
          .append(RemoteControl.seconds(control.defaultHealNanos(k))).append("s\">").append(k.label())
          .append("</option>");
    }
    StringBuilder weights = new StringBuilder("{");
    for (Settings.Vm vm : scenario.vms()) {
      if (weights.length() > 1) weights.append(',');
      weights.append('"').append(vm.name().replace("\\", "\\\\").replace("\"", "\\\"")).append("\":")
          .append(vm.weight());
    }
    weights.append('}');
    return TEMPLATE
        .replace("@TITLE@", escape(scenario.name()))
        .replace("@FACTS@", escape(facts))
        .replace("@DURATION@", String.valueOf(scenario.durationNanos() / 1e9))
        .replace("@VMS@", vms.toString())
        .replace("@KINDS@", kinds.toString())
        .replace("@WEIGHTS@", script(weights.toString()))
        .replace("@FPS@", script(fps.toString()))
        .replace("@SHARE@", script(share.toString()))
        .replace("@FAIRNESS@", script(fairness.toString()))
        .replace("@MEMORY@", script(memory.toString()));
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }

  /** JSON made safe inside a script element. */
  private static String script(String json) {
    return json.replace("</", "<\\/");
  }

  private static final String TEMPLATE = """
      <!DOCTYPE html>
      <html lang="en"><head><meta charset="utf-8"><title>@TITLE@ — live</title>
      <style>
        body { font-family: system-ui, sans-serif; margin: 16px 24px; color: #222; }
        h1 { font-size: 20px; margin: 0 0 4px; } .facts { color: #555; margin-bottom: 8px; }
        #status { font-family: monospace; padding: 6px 10px; background: #f3f3f3; border-radius: 4px; }
        body[data-paused=true] #status { background: #fff3cd; }
        #banner { margin: 8px 0; padding: 8px 10px; border-radius: 4px; display: none; }
        #banner.ok { display: block; background: #e3f4e3; } #banner.bad { display: block; background: #fbe3e3; }
        #controls { display: flex; flex-wrap: wrap; gap: 8px 18px; align-items: center; margin: 10px 0;
          padding: 8px 10px; border: 1px solid #ddd; border-radius: 6px; }
        #controls fieldset { border: none; padding: 0; margin: 0; display: flex; gap: 4px; align-items: center; }
        #controls legend { float: left; font-weight: 600; margin-right: 4px; }
        #controls input { width: 64px; } button { cursor: pointer; }
        #log { font-family: monospace; font-size: 12px; margin: 0 0 8px; padding-left: 18px; max-height: 96px;
          overflow-y: auto; color: #444; }
        #log .refused { color: #a00; }
        #run { font-weight: 600; margin: 4px 0; } #run:empty { display: none; }
        #results { border-collapse: collapse; margin: 8px 0; font-size: 13px; }
        #results th, #results td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; }
        #cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 12px 0; }
        .card { border: 1px solid #ccc; border-radius: 6px; padding: 8px 12px; min-width: 150px; }
        .card h2 { font-size: 15px; margin: 0 0 4px; } .card div { font-family: monospace; }
        .chart { width: 100%; height: 300px; } h3 { font-size: 16px; margin: 12px 0 0; }
      </style></head>
      <body data-state="connecting" data-rows="0" data-paused="false" data-controls="0">
      <h1>@TITLE@ — live dashboard</h1>
      <div class="facts">@FACTS@. Controls take effect as events 1 ms after the model's present (whole ms);
        summary.json records them under <code>controls</code>, and <code>run … --controls summary.json</code> replays
        them.</div>
      <div id="run"></div>
      <div id="status">waiting for the run…</div>
      <div id="banner"></div>
      <div id="controls">
        <fieldset><legend>Run</legend><button id="pause">Pause</button><button id="resume">Resume</button></fieldset>
        <fieldset><legend>Fault</legend><select id="fault-kind">@KINDS@</select> on
          <select id="fault-vm">@VMS@</select> heal after <input id="fault-heal" value="">
          <button id="fault-go">Inject</button></fieldset>
        <fieldset><legend>Weight</legend><select id="weight-vm">@VMS@</select>
          <input id="weight-value" type="number" min="1" step="1" value="1"><button id="weight-go">Set</button></fieldset>
        <fieldset><legend>Share</legend><select id="share-vm">@VMS@</select>
          <input id="share-value" type="number" min="0.01" max="1" step="0.05" value="0.5">
          <button id="share-go">Set</button></fieldset>
      </div>
      <ul id="log"></ul>
      <table id="results" style="display:none"><thead><tr><th>policy</th><th>FPS per VM</th><th>GPU share per VM</th>
        <th>MMR</th><th>λ</th><th>GPU utilization</th><th>verdict</th></tr></thead><tbody></tbody></table>
      <div id="cards"></div>
      <h3>FPS per VM</h3><div class="chart" id="fps"></div>
      <h3>GPU share per VM</h3><div class="chart" id="share"></div>
      <h3>Fairness: MMR per metrics period (min/max of GPU share over weight share) and λ</h3>
      <div class="chart" id="fairness"></div>
      <h3>GPU memory per VM</h3><div class="chart" id="memory"></div>
      <script src="echarts.min.js"></script>
      <script>
      (function () {
        var duration = @DURATION@, initial = @WEIGHTS@, weights = JSON.parse(JSON.stringify(initial));
        var fpsOption = @FPS@, shareOption = @SHARE@, fairnessOption = @FAIRNESS@, memoryOption = @MEMORY@;
        var names = fpsOption.series.map(function (s) { return s.name; });
        var fps = echarts.init(document.getElementById('fps')); fps.setOption(fpsOption);
        var share = echarts.init(document.getElementById('share')); share.setOption(shareOption);
        var fairness = echarts.init(document.getElementById('fairness')); fairness.setOption(fairnessOption);
        var memory = echarts.init(document.getElementById('memory')); memory.setOption(memoryOption);
        var data, last, prev, rows, marks, modes, periods, controls, dirty = false, ended = false;
        function clear() {
          data = { fps: {}, share: {}, memory: {}, mmr: [], lambda: [] }; last = {}; prev = {}; marks = [];
          modes = {}; periods = {};
          names.forEach(function (n) { data.fps[n] = []; data.share[n] = []; data.memory[n] = []; modes[n] = []; });
        }
        function reset() {
          clear(); rows = 0; controls = 0;
          document.getElementById('log').innerHTML = '';
        }
        // MMR of one metrics period as the report computes it (RunPanels.mmrOverTime): min/max over the VMs of
        // gpu_share / (weight / sum of weights), the weights in force now; only once every VM's row is in
        function period(r) {
          var p = periods[r.t_s] = periods[r.t_s] || {};
          p[r.vm] = r.gpu_share;
          if (r.lambda !== undefined && p.lambda === undefined) { p.lambda = r.lambda; data.lambda.push([r.t_s, r.lambda]); }
          if (names.length < 2 || names.some(function (n) { return p[n] === undefined; })) return;
          var total = names.reduce(function (s, n) { return s + weights[n]; }, 0), min = Infinity, max = 0;
          names.forEach(function (n) { var x = p[n] / (weights[n] / total); min = Math.min(min, x); max = Math.max(max, x); });
          if (max > 0) data.mmr.push([r.t_s, min / max]);
        }
        reset();
        function fmt(x, d) { return x === undefined || x === null ? '-' : Number(x).toFixed(d); }
        function text(s) { return String(s).replace(/[&<>"]/g, function (c) {
          return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; }); }
        function series(chart, key) {
          return names.map(function (n, i) {
            var s = { name: n, data: data[key][n] };
            if (key === 'fps') s.markPoint = { symbolSize: 36, data: modes[n] };
            if (i === 0) s.markLine = { silent: true, symbol: ['none', 'none'],
              lineStyle: { type: 'dashed', color: '#a33' }, data: marks };
            return s;
          });
        }
        function draw() {
          if (!dirty) return;
          dirty = false;
          fps.setOption({ series: series(fps, 'fps') });
          share.setOption({ series: series(share, 'share') });
          memory.setOption({ series: series(memory, 'memory') });
          fairness.setOption({ series: [{ name: 'MMR', data: data.mmr }, { name: 'λ', data: data.lambda }] });
          document.getElementById('cards').innerHTML = names.map(function (n) {
            var r = last[n] || {};
            return '<div class="card" data-vm="' + text(n) + '"><h2>' + text(n) + '</h2>'
              + '<div>FPS ' + fmt(r.fps, 1) + '</div><div>share ' + fmt(r.gpu_share * 100, 1) + ' %</div>'
              + '<div>weight ' + text(weights[n]) + '</div>'
              + '<div>mode ' + text(r.mode || '-') + '</div><div>memory ' + fmt(r.memory_mb, 0) + ' MB</div></div>';
          }).join('');
          document.body.setAttribute('data-rows', rows);
          document.body.setAttribute('data-controls', controls);
        }
        setInterval(draw, 250);
        function log(line, refused) {
          var li = document.createElement('li');
          li.textContent = line;
          if (refused) li.className = 'refused';
          var list = document.getElementById('log');
          list.insertBefore(li, list.firstChild);
        }
        function send(body) {
          var headers = { 'Content-Type': 'application/json' };
          // beyond loopback the printed address carries the token in its fragment, which never leaves the browser
          var token = /[#&]token=([0-9a-f]+)/.exec(location.hash);
          if (token) headers['Authorization'] = 'Bearer ' + token[1];
          fetch('control', { method: 'POST', headers: headers, body: JSON.stringify(body) })
            .then(function (r) { return r.json(); })
            .then(function (a) {
              if (a.error) log('refused: ' + a.error, true);
              else if (a.text) log('requested: ' + a.text + ' at ' + fmt(a.at_s, 3) + ' s');
            })
            .catch(function (e) { log('no answer: ' + e, true); });
        }
        function value(id) { return document.getElementById(id).value; }
        function click(id, f) { document.getElementById(id).addEventListener('click', f); }
        click('pause', function () { send({ what: 'pause' }); });
        click('resume', function () { send({ what: 'resume' }); });
        var kind = document.getElementById('fault-kind');
        function healDefault() { document.getElementById('fault-heal').value =
          kind.options[kind.selectedIndex].getAttribute('data-heal'); }
        kind.addEventListener('change', healDefault); healDefault();
        click('fault-go', function () { send({ what: 'fault', kind: value('fault-kind'), target: value('fault-vm'),
          heal_after: value('fault-heal') }); });
        click('weight-go', function () { send({ what: 'weight', target: value('weight-vm'),
          value: Number(value('weight-value')) }); });
        click('share-go', function () { send({ what: 'share', target: value('share-vm'),
          value: Number(value('share-value')) }); });
        var events = new EventSource('events');
        events.onopen = function () {
          reset(); document.body.setAttribute('data-state', 'live');
          document.querySelector('#results tbody').innerHTML = '';
        };
        events.addEventListener('timeline', function (e) {
          var r = JSON.parse(e.data);
          if (!data.fps[r.vm]) return;
          data.fps[r.vm].push([r.t_s, r.fps]); data.share[r.vm].push([r.t_s, r.gpu_share]);
          data.memory[r.vm].push([r.t_s, r.memory_mb]);
          // a mode switch of the policy (VGRIS Figure 11): marked where the VM's mode differs from its last period's
          if (last[r.vm] && r.mode && last[r.vm].mode !== r.mode) {
            modes[r.vm].push({ coord: [r.t_s, r.fps], value: r.mode, label: { fontSize: 9 } });
          }
          period(r);
          prev[r.vm] = last[r.vm]; last[r.vm] = r; rows++; dirty = true;
        });
        // a compare's next policy: its charts start afresh; the finished ones stay in the results table
        events.addEventListener('run', function (e) {
          var r = JSON.parse(e.data);
          clear(); weights = JSON.parse(JSON.stringify(initial));
          document.getElementById('run').textContent = 'policy ' + r.policy + ' (' + (r.index + 1) + ' of '
            + r.count + ')';
          document.body.setAttribute('data-run', r.policy);
          log('started: policy ' + r.policy); dirty = true;
        });
        events.addEventListener('run-end', function (e) {
          var r = JSON.parse(e.data);
          var table = document.getElementById('results'); table.style.display = '';
          function per(o, d) { return names.map(function (n) { return text(n) + ' ' + fmt(o[n], d); }).join(', '); }
          var row = document.createElement('tr');
          row.innerHTML = '<td>' + text(r.policy) + '</td><td>' + per(r.fps, 1) + '</td><td>' + per(r.gpu_share, 3)
            + '</td><td>' + fmt(r.mmr, 3) + '</td><td>' + fmt(r.lambda, 3) + '</td><td>' + fmt(r.utilization, 3)
            + '</td><td>' + (r.faithful ? 'faithful' : 'UNFAITHFUL (' + text(r.reason) + ')')
            + (r.invariants ? '' : '; invariants BROKEN') + '</td>';
          table.querySelector('tbody').appendChild(row);
          document.body.setAttribute('data-runs-ended', table.querySelectorAll('tbody tr').length);
        });
        events.addEventListener('control', function (e) {
          var c = JSON.parse(e.data);
          controls++; dirty = true;
          if (c.what === 'pause') { log('paused at ' + fmt(c.at_s, 3) + ' s'); return; }
          if (c.what === 'resume') { log('resumed after ' + fmt(c.paused_wall_s, 1) + ' s of wall time'); return; }
          if (c.applied && c.what === 'weight') weights[c.target] = c.value;
          log((c.applied ? 'applied: ' : 'not applied: ') + c.text + ' at ' + fmt(c.at_s, 3) + ' s'
            + (c.note ? ' (' + c.note + ')' : ''), !c.applied);
          if (c.applied) marks.push({ xAxis: c.at_s, label: { formatter: c.what + ' ' + c.target,
            position: 'insideEndTop' } });
        });
        events.addEventListener('live', function (e) {
          var v = JSON.parse(e.data);
          document.body.setAttribute('data-paused', v.paused ? 'true' : 'false');
          document.getElementById('status').textContent = (v.paused ? 'PAUSED   ' : '')
            + 'emulated ' + fmt(Math.min(v.t_s, duration), 1) + ' / '
            + fmt(duration, 1) + ' s   real-time factor ' + (v.rtf === undefined ? '-' : fmt(v.rtf, 2) + 'x')
            + '   p99 timer lateness ' + (v.p99_us === undefined ? '-' : v.p99_us + ' µs')
            + '   verdict ' + (v.verdict || '-');
        });
        // the run's end cuts its last metrics period short (a few ms of drain): its rates are noise, as in the report
        function dropShortLastPeriod() {
          names.forEach(function (n) {
            var p = data.fps[n], k = p.length;
            if (k >= 3 && p[k - 1][0] - p[k - 2][0] < (p[k - 2][0] - p[k - 3][0]) / 2) {
              var t = p.pop()[0]; data.share[n].pop(); data.memory[n].pop(); if (prev[n]) last[n] = prev[n];
              data.mmr = data.mmr.filter(function (x) { return x[0] < t; });
              data.lambda = data.lambda.filter(function (x) { return x[0] < t; });
            }
          });
        }
        events.addEventListener('end', function (e) {
          var s = JSON.parse(e.data);
          ended = true; events.close(); dropShortLastPeriod(); dirty = true; draw();
          document.querySelectorAll('#controls button').forEach(function (b) { b.disabled = true; });
          var b = document.getElementById('banner');
          if (s.faithful === undefined) { b.className = 'bad'; b.textContent = 'The run stopped.'; }
          else {
            b.className = s.faithful && !(s.broken_invariants || []).length ? 'ok' : 'bad';
            b.textContent = (s.compare ? 'Compare ended: ' + (s.faithful ? 'every run faithful' : 'UNFAITHFUL ('
              + s.reason + ')') : 'Run ended: ' + (s.faithful ? 'faithful' : 'UNFAITHFUL (' + s.reason + ')'))
              + ((s.broken_invariants || []).length ? '; broken invariants: ' + s.broken_invariants.join(', ') : '')
              + '. The dashboard has stopped; summary.json and report.html are in the run folder.';
          }
          document.body.setAttribute('data-state', 'ended');
        });
        events.onerror = function () {
          if (!ended) document.body.setAttribute('data-state', 'reconnecting');
        };
      })();
      </script>
      </body></html>
      """;
}
