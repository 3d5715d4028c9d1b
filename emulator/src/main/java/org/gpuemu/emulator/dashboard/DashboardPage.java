package org.gpuemu.emulator.dashboard;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.html.Charts;

/**
 * The dashboard page: the run's facts, its live status (emulated time, real-time factor, p99 timer lateness, the
 * verdict so far), one card per VM (FPS, GPU share, mode, memory of the last metrics period) and the report's two
 * time charts, FPS and GPU share per VM, started from {@link Charts#lines} with empty series and grown by the page's
 * script from the {@code timeline} events. The script only listens ({@code EventSource}); it never asks anything.
 */
final class DashboardPage {
  private DashboardPage() {}

  static String html(Settings.Scenario scenario) {
    Map<String, List<double[]>> empty = new LinkedHashMap<>();
    for (Settings.Vm vm : scenario.vms()) empty.put(vm.name(), List.of());
    ObjectNode fps = Charts.lines("FPS", empty);
    ObjectNode share = Charts.lines("GPU share", empty);
    String facts = String.format(java.util.Locale.ROOT, "%d VMs, policy %s, %.1f emulated s at time scale %s",
        scenario.vms().size(), scenario.gpuPolicy().name(), scenario.durationNanos() / 1e9, scenario.timeScale());
    return TEMPLATE
        .replace("@TITLE@", escape(scenario.name()))
        .replace("@FACTS@", escape(facts))
        .replace("@DURATION@", String.valueOf(scenario.durationNanos() / 1e9))
        .replace("@FPS@", script(fps.toString()))
        .replace("@SHARE@", script(share.toString()));
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
        #banner { margin: 8px 0; padding: 8px 10px; border-radius: 4px; display: none; }
        #banner.ok { display: block; background: #e3f4e3; } #banner.bad { display: block; background: #fbe3e3; }
        #cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 12px 0; }
        .card { border: 1px solid #ccc; border-radius: 6px; padding: 8px 12px; min-width: 150px; }
        .card h2 { font-size: 15px; margin: 0 0 4px; } .card div { font-family: monospace; }
        .chart { width: 100%; height: 300px; } h3 { font-size: 16px; margin: 12px 0 0; }
      </style></head>
      <body data-state="connecting" data-rows="0">
      <h1>@TITLE@ — live dashboard</h1>
      <div class="facts">@FACTS@. Observes the run only: no controls yet.</div>
      <div id="status">waiting for the run…</div>
      <div id="banner"></div>
      <div id="cards"></div>
      <h3>FPS per VM</h3><div class="chart" id="fps"></div>
      <h3>GPU share per VM</h3><div class="chart" id="share"></div>
      <script src="echarts.min.js"></script>
      <script>
      (function () {
        var duration = @DURATION@;
        var fpsOption = @FPS@, shareOption = @SHARE@;
        var names = fpsOption.series.map(function (s) { return s.name; });
        var fps = echarts.init(document.getElementById('fps')); fps.setOption(fpsOption);
        var share = echarts.init(document.getElementById('share')); share.setOption(shareOption);
        var data, last, rows, dirty = false, ended = false;
        function reset() {
          data = { fps: {}, share: {} }; last = {}; rows = 0;
          names.forEach(function (n) { data.fps[n] = []; data.share[n] = []; });
        }
        reset();
        function fmt(x, d) { return x === undefined || x === null ? '-' : Number(x).toFixed(d); }
        function text(s) { return String(s).replace(/[&<>"]/g, function (c) {
          return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; }); }
        function draw() {
          if (!dirty) return;
          dirty = false;
          fps.setOption({ series: names.map(function (n) { return { name: n, data: data.fps[n] }; }) });
          share.setOption({ series: names.map(function (n) { return { name: n, data: data.share[n] }; }) });
          document.getElementById('cards').innerHTML = names.map(function (n) {
            var r = last[n] || {};
            return '<div class="card" data-vm="' + text(n) + '"><h2>' + text(n) + '</h2>'
              + '<div>FPS ' + fmt(r.fps, 1) + '</div><div>share ' + fmt(r.gpu_share * 100, 1) + ' %</div>'
              + '<div>mode ' + text(r.mode || '-') + '</div><div>memory ' + fmt(r.memory_mb, 0) + ' MB</div></div>';
          }).join('');
          document.body.setAttribute('data-rows', rows);
        }
        setInterval(draw, 250);
        var events = new EventSource('events');
        events.onopen = function () { reset(); document.body.setAttribute('data-state', 'live'); };
        events.addEventListener('timeline', function (e) {
          var r = JSON.parse(e.data);
          if (!data.fps[r.vm]) return;
          data.fps[r.vm].push([r.t_s, r.fps]); data.share[r.vm].push([r.t_s, r.gpu_share]);
          last[r.vm] = r; rows++; dirty = true;
        });
        events.addEventListener('live', function (e) {
          var v = JSON.parse(e.data);
          document.getElementById('status').textContent = 'emulated ' + fmt(Math.min(v.t_s, duration), 1) + ' / '
            + fmt(duration, 1) + ' s   real-time factor ' + (v.rtf === undefined ? '-' : fmt(v.rtf, 2) + 'x')
            + '   p99 timer lateness ' + (v.p99_us === undefined ? '-' : v.p99_us + ' µs')
            + '   verdict ' + (v.verdict || '-');
        });
        events.addEventListener('end', function (e) {
          var s = JSON.parse(e.data);
          ended = true; events.close(); dirty = true; draw();
          var b = document.getElementById('banner');
          if (s.faithful === undefined) { b.className = 'bad'; b.textContent = 'The run stopped.'; }
          else {
            b.className = s.faithful && !(s.broken_invariants || []).length ? 'ok' : 'bad';
            b.textContent = 'Run ended: ' + (s.faithful ? 'faithful' : 'UNFAITHFUL (' + s.reason + ')')
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
