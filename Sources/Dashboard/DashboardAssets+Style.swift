extension DashboardAssets {
    static let style = #"""
:root { --bg: #14171c; --panel: #1d2128; --line: #39404c; --text: #dde3ea; --dim: #8b95a3; --ok: #4fbf72;
        --duck: #e3b341; --stop: #e5534b; --accent: #58a6ff; font: 13px/1.4 system-ui, sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); height: 100vh; display: flex; flex-direction: column; overflow: hidden; }
header { display: flex; gap: 12px; align-items: center; padding: 6px 12px; background: var(--panel); border-bottom: 1px solid var(--line); }
header h1 { font-size: 16px; margin: 0; }
.spacer { flex: 1; }
#link[data-state="open"] { color: var(--ok); }
#link[data-state="closed"] { color: var(--stop); }
#jack { color: var(--dim); }
#refusal { background: #4a1e1e; color: #ffd7d5; padding: 6px 12px; font-family: ui-monospace, monospace; }
main { flex: 1; display: flex; min-height: 0; }
#graph-view { flex: 1; overflow: auto; }
#graph { display: block; }
aside { width: 360px; display: flex; flex-direction: column; border-left: 1px solid var(--line); background: var(--panel); min-height: 0; }
aside section { padding: 8px 12px; border-bottom: 1px solid var(--line); }
aside h2 { font-size: 13px; margin: 0 0 6px; color: var(--dim); text-transform: uppercase; letter-spacing: .05em; }
#timeline-view { flex: 1; overflow-y: auto; min-height: 120px; }
#timeline { list-style: none; margin: 0; padding: 0; font-family: ui-monospace, monospace; font-size: 12px; }
#timeline li { padding: 2px 0; border-bottom: 1px solid #262b33; }
#timeline .t { color: var(--dim); margin-right: 6px; }
#timeline .fault, #timeline .xrun { color: var(--stop); }
#timeline .duck { color: var(--duck); }
#timeline .interruption { color: #d2a8ff; }
#timeline .connection { color: var(--dim); }
#timeline .state { color: var(--accent); }
button { background: #2a313c; color: var(--text); border: 1px solid var(--line); border-radius: 4px; padding: 3px 8px; cursor: pointer; }
button:hover { border-color: var(--accent); }
input { background: #11141a; color: var(--text); border: 1px solid var(--line); border-radius: 4px; padding: 3px 6px; min-width: 0; }
#connect-form { display: grid; grid-template-columns: 1fr 1fr; gap: 4px; }
#rules { margin: 6px 0 0; padding-left: 16px; color: var(--dim); font-size: 12px; }
#rules .removed, #rules .refused { color: var(--stop); }
#rules .pending { color: var(--duck); }
.parameter { display: grid; grid-template-columns: 80px minmax(0, 1fr) 80px 38px; gap: 4px; align-items: center; margin: 3px 0; }
.parameter label { overflow: hidden; text-overflow: ellipsis; }
.parameter input[type=number] { width: 80px; }
#session-controls { display: flex; flex-wrap: wrap; gap: 4px; margin-bottom: 6px; }
#app-summary { color: var(--dim); margin: 0 0 6px; white-space: pre-line; }
svg text { fill: var(--text); font-size: 12px; }
svg .app rect.box { fill: var(--panel); stroke: var(--line); stroke-width: 1.5; }
svg .app.selected rect.box { stroke: var(--accent); stroke-width: 2.5; }
svg .app.program rect.box { stroke-dasharray: 6 3; }
svg .app.faulted rect.box { stroke: var(--stop); stroke-width: 2.5; }
svg .app .title { font-weight: 600; font-size: 13px; }
svg .app .sub, svg .app .cpu { fill: var(--dim); font-size: 11px; }
svg .app .state { font-size: 11px; }
svg .app[data-state="audible"] .state, svg .app[data-state="running"] .state { fill: var(--ok); }
svg .app[data-state="ducked"] .state { fill: var(--duck); }
svg .app[data-state="interrupted"] .state, svg .app[data-state^="isolated"] .state, svg .app[data-state="not running"] .state { fill: var(--stop); }
svg .app .fault { fill: var(--stop); font-size: 11px; }
svg .meter-back { fill: #0c0e12; }
svg .meter-rms { fill: var(--ok); }
svg .meter-peak { fill: #b6f0c6; }
svg .app[data-state="ducked"] .meter-rms { fill: var(--duck); }
svg .outside rect.box { fill: #181b21; stroke: var(--line); stroke-dasharray: 2 3; }
svg .port { fill: #0c0e12; stroke: var(--dim); }
svg .port-label { fill: var(--dim); font-size: 10px; }
svg path.edge { fill: none; stroke: #6e7f96; stroke-width: 1.5; }
svg path.edge.jack { stroke: var(--accent); stroke-dasharray: 5 3; }
svg path.edge.muted { stroke: var(--stop); }
"""#
}
